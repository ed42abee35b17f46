//! Driver-state shadow: what we last told the driver in one native context,
//! so redundant GL calls are skipped. `None` = unknown (always applied).

use glow::HasContext;

use crate::pipe::calls;

/// Capabilities toggled with glEnable/glDisable (blend is per draw buffer).
const CAPS: [u32; 12] = [
    glow::DEPTH_TEST,
    glow::STENCIL_TEST,
    glow::CULL_FACE,
    glow::SCISSOR_TEST,
    glow::POLYGON_OFFSET_FILL,
    glow::RASTERIZER_DISCARD,
    glow::SAMPLE_ALPHA_TO_COVERAGE,
    glow::DITHER,
    glow::PRIMITIVE_RESTART_FIXED_INDEX,
    glow::SAMPLE_MASK,
    // GL_POLYGON_OFFSET_LINE_NV / _POINT_NV (GL_NV_polygon_mode only).
    glow::POLYGON_OFFSET_LINE,
    glow::POLYGON_OFFSET_POINT,
];

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AttribState {
    pub buffer: glow::Buffer,
    pub size: i32,
    pub ty: u32,
    pub normalized: bool,
    pub integer: bool,
    pub stride: i32,
    pub offset: i64,
    pub divisor: u32,
}

/// Blend factors `[src rgb, dst rgb, src alpha, dst alpha]` for a
/// destination whose alpha reads 1 (a format without alpha stored with
/// one): DST_ALPHA is ONE, ONE_MINUS_DST_ALPHA ZERO and
/// SRC_ALPHA_SATURATE's min(As, 1 - Ad) ZERO.
pub fn dst_alpha_as_one(f: [u32; 4]) -> [u32; 4] {
    f.map(|x| match x {
        glow::DST_ALPHA => glow::ONE,
        glow::ONE_MINUS_DST_ALPHA | glow::SRC_ALPHA_SATURATE => glow::ZERO,
        x => x,
    })
}

#[derive(Default)]
pub struct Shadow {
    enables: [Option<bool>; CAPS.len()],
    blend: [Option<bool>; 8],
    /// Per draw buffer (index 0 also stands for the non-indexed call).
    blend_func: [Option<[u32; 4]>; 8],
    blend_eq: [Option<[u32; 2]>; 8],
    /// Draw buffers whose attachment has no alpha in GL but is stored with
    /// one (`emulation::StorageFormat::alpha_one`): their destination
    /// alpha blends as 1 (bit i: draw buffer i).
    pub dst_alpha_one: u32,
    /// glClipControlEXT's (origin, depth).
    clip_control: Option<(u32, u32)>,
    polygon_mode: Option<u32>,
    /// GL_SAMPLE_SHADING and glMinSampleShading's value.
    sample_shading: Option<(bool, u32)>,
    color_mask: [Option<[bool; 4]>; 8],
    depth_mask: Option<bool>,
    depth_func: Option<u32>,
    stencil_func: [Option<(u32, i32, u32)>; 2],
    stencil_write: [Option<u32>; 2],
    stencil_op: [Option<[u32; 3]>; 2],
    cull_face: Option<u32>,
    front_face: Option<u32>,
    sample_mask: Option<u32>,
    pub viewport: Option<[i32; 4]>,
    pub depth_range: Option<[f32; 2]>,
    pub scissor: Option<[i32; 4]>,
    pub blend_color: Option<[f32; 4]>,
    /// GL_PATCH_VERTICES (`set_patch_state`).
    pub patch_vertices: Option<u32>,
    /// factor, units, clamp.
    pub polygon_offset: Option<[f32; 3]>,
    pub line_width: Option<f32>,
    pub program: Option<Option<glow::Program>>,
    pub draw_fb: Option<Option<glow::Framebuffer>>,
    pub read_fb: Option<Option<glow::Framebuffer>>,
    pub array_buffer: Option<Option<glow::Buffer>>,
    pub element_buffer: Option<Option<glow::Buffer>>,
    pub active_unit: Option<u32>,
    /// (unit, target) -> texture
    pub textures: Vec<((u32, u32), Option<glow::Texture>)>,
    pub samplers: [Option<Option<glow::Sampler>>; 32],
    pub ubos: Vec<Option<(Option<glow::Buffer>, i32, i32)>>,
    pub ssbos: Vec<Option<(Option<glow::Buffer>, i32, i32)>>,
    /// Image unit -> what glBindImageTexture last got (None: unknown).
    pub images: [Option<ImageUnit>; 16],
    /// None: unknown; Some(None): array disabled.
    pub attribs: [Option<Option<AttribState>>; 16],
    pub attrib_values: [Option<([u32; 4], bool)>; 16],
    pub pack_ok: bool,
    /// The vertex input (vertex elements, vertex buffers, attribute
    /// defaults) is applied for this base instance and nothing it depends on
    /// changed since: draws skip re-applying it. None: apply at the next draw.
    pub vertex_applied: Option<u32>,
    /// The driver's glReadPixels, called directly so that a read-back can
    /// land in a reply's spare capacity (glow only takes initialised slices).
    pub read_pixels_fn: Option<ReadPixelsFn>,
}

/// One image unit's binding (glBindImageTexture arguments).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ImageUnit {
    pub texture: Option<glow::Texture>,
    pub level: i32,
    pub layered: bool,
    pub layer: i32,
    pub access: u32,
    pub format: u32,
}

/// `glReadPixels`.
pub type ReadPixelsFn =
    unsafe extern "system" fn(i32, i32, i32, i32, u32, u32, *mut std::ffi::c_void);

impl Shadow {
    /// Forget everything that names a deleted object (its GL name may be
    /// reused by the driver).
    pub fn forget_all_objects(&mut self) {
        self.program = None;
        self.draw_fb = None;
        self.read_fb = None;
        self.array_buffer = None;
        self.element_buffer = None;
        self.textures.clear();
        self.samplers = [None; 32];
        self.ubos.clear();
        self.ssbos.clear();
        self.images = [None; 16];
        self.attribs = [None; 16];
        self.vertex_applied = None;
    }

    fn enable(&mut self, gl: &glow::Context, i: usize, on: bool) {
        if self.enables[i] != Some(on) {
            // SAFETY: a valid capability enum on the current context.
            unsafe {
                if on {
                    gl.enable(CAPS[i])
                } else {
                    gl.disable(CAPS[i])
                }
            }
            self.enables[i] = Some(on);
        }
    }

    /// Blend functions and equations: one call when every draw buffer
    /// agrees (or the driver has no indexed calls), else one per buffer.
    fn apply_blend_funcs(
        &mut self,
        gl: &glow::Context,
        rs: &calls::CreateRenderState,
        indexed: bool,
        max_draw_buffers: usize,
    ) {
        let or = |v: u32, d: u32| if v == 0 { d } else { v };
        let alpha_one = self.dst_alpha_one;
        let func = |i: usize| {
            let f = if rs.blend_per_buffer != 0 {
                [
                    or(rs.blend_src_rgb_i[i], glow::ONE),
                    or(rs.blend_dst_rgb_i[i], glow::ZERO),
                    or(rs.blend_src_alpha_i[i], glow::ONE),
                    or(rs.blend_dst_alpha_i[i], glow::ZERO),
                ]
            } else {
                [
                    or(rs.blend_src_rgb, glow::ONE),
                    or(rs.blend_dst_rgb, glow::ZERO),
                    or(rs.blend_src_alpha, glow::ONE),
                    or(rs.blend_dst_alpha, glow::ZERO),
                ]
            };
            if alpha_one & (1 << i) != 0 {
                dst_alpha_as_one(f)
            } else {
                f
            }
        };
        let eq = |i: usize| {
            if rs.blend_per_buffer != 0 {
                [
                    or(rs.blend_eq_rgb_i[i], glow::FUNC_ADD),
                    or(rs.blend_eq_alpha_i[i], glow::FUNC_ADD),
                ]
            } else {
                [
                    or(rs.blend_eq_rgb, glow::FUNC_ADD),
                    or(rs.blend_eq_alpha, glow::FUNC_ADD),
                ]
            }
        };
        if (rs.blend_per_buffer == 0 && alpha_one == 0) || !indexed {
            if rs.blend_per_buffer != 0 {
                tracing::warn!("per-draw-buffer blending needs GLES 3.2: buffer 0's state used");
            }
            let (bf, be) = (func(0), eq(0));
            if self.blend_func.iter().any(|f| *f != Some(bf)) {
                // SAFETY: plain state call; bad enums only raise a GL error.
                unsafe { gl.blend_func_separate(bf[0], bf[1], bf[2], bf[3]) };
                self.blend_func = [Some(bf); 8];
            }
            if self.blend_eq.iter().any(|e| *e != Some(be)) {
                // SAFETY: plain state call.
                unsafe { gl.blend_equation_separate(be[0], be[1]) };
                self.blend_eq = [Some(be); 8];
            }
            return;
        }
        for i in 0..max_draw_buffers.clamp(1, 8) {
            let (bf, be) = (func(i), eq(i));
            if self.blend_func[i] != Some(bf) {
                // SAFETY: GLES 3.2 indexed call; i below MAX_DRAW_BUFFERS.
                unsafe { gl.blend_func_separate_draw_buffer(i as u32, bf[0], bf[1], bf[2], bf[3]) };
                self.blend_func[i] = Some(bf);
            }
            if self.blend_eq[i] != Some(be) {
                // SAFETY: GLES 3.2 indexed call; i below MAX_DRAW_BUFFERS.
                unsafe { gl.blend_equation_separate_draw_buffer(i as u32, be[0], be[1]) };
                self.blend_eq[i] = Some(be);
            }
        }
    }

    /// glClipControl through EXT_clip_control; without it only the GL
    /// default convention renders right (logged).
    fn apply_clip_control(
        &mut self,
        rs: &calls::CreateRenderState,
        clip_control: Option<crate::ClipControlFn>,
    ) {
        const LOWER_LEFT: u32 = 0x8CA1;
        const UPPER_LEFT: u32 = 0x8CA2;
        const NEGATIVE_ONE_TO_ONE: u32 = 0x935E;
        const ZERO_TO_ONE: u32 = 0x935F;
        let want = (
            if rs.clip_upper_left != 0 {
                UPPER_LEFT
            } else {
                LOWER_LEFT
            },
            if rs.clip_zero_to_one != 0 {
                ZERO_TO_ONE
            } else {
                NEGATIVE_ONE_TO_ONE
            },
        );
        if self.clip_control == Some(want) {
            return;
        }
        match clip_control {
            // SAFETY: the driver's glClipControlEXT with valid enums.
            Some(f) => unsafe { f(want.0, want.1) },
            None if want != (LOWER_LEFT, NEGATIVE_ONE_TO_ONE) => {
                tracing::warn!("glClipControl needs EXT_clip_control on GLES: ignored");
            }
            None => {}
        }
        self.clip_control = Some(want);
    }

    /// glPolygonMode through GL_NV_polygon_mode (one mode for both faces:
    /// the face culling leaves, else the front one); without it polygons
    /// stay filled (logged once).
    fn apply_polygon_mode(
        &mut self,
        gl: &glow::Context,
        rs: &calls::CreateRenderState,
        polygon_mode: Option<crate::PolygonModeFn>,
    ) {
        let fill = |m: u32| if m == 0 { glow::FILL } else { m };
        let [front, back] = rs.polygon_mode.map(fill);
        let want = if rs.cull_enable != 0 && rs.cull_face == glow::FRONT {
            back
        } else {
            front
        };
        let Some(f) = polygon_mode else {
            if want != glow::FILL && self.polygon_mode.is_none() {
                tracing::warn!(
                    "glPolygonMode(GL_LINE/GL_POINT) needs GL_NV_polygon_mode on GLES: polygons are filled (logged once per context)"
                );
                self.polygon_mode = Some(want);
            }
            return;
        };
        if self.polygon_mode != Some(want) {
            // SAFETY: the driver's glPolygonModeNV with GL_FRONT_AND_BACK
            // and a mode it accepts.
            unsafe { f(glow::FRONT_AND_BACK, want) };
            self.polygon_mode = Some(want);
        }
        self.enable(gl, 10, rs.polygon_offset_line_point & 1 != 0);
        self.enable(gl, 11, rs.polygon_offset_line_point & 2 != 0);
    }

    /// GL_SAMPLE_SHADING and its minimum fraction (GLES 3.2 core).
    fn apply_sample_shading(
        &mut self,
        gl: &glow::Context,
        rs: &calls::CreateRenderState,
        min_sample_shading: Option<crate::MinSampleShadingFn>,
    ) {
        let Some(min_fn) = min_sample_shading else {
            if rs.sample_shading != 0 {
                tracing::warn!("GL_SAMPLE_SHADING needs GLES 3.2 glMinSampleShading: ignored");
            }
            return;
        };
        let want = (rs.sample_shading != 0, rs.min_sample_shading.to_bits());
        if self.sample_shading == Some(want) {
            return;
        }
        // SAFETY: plain state calls of GLES 3.2; the value is a float.
        unsafe {
            if want.0 {
                gl.enable(glow::SAMPLE_SHADING);
                min_fn(rs.min_sample_shading.clamp(0.0, 1.0));
            } else {
                gl.disable(glow::SAMPLE_SHADING);
            }
        }
        self.sample_shading = Some(want);
    }

    /// Apply a render-state CSO (its blend factors for the draw buffers in
    /// `dst_alpha_one`, set before, rewritten by [`dst_alpha_as_one`]). `indexed`: GLES 3.2 per-draw-buffer calls;
    /// `fns`: the driver's extra entry points; without glSampleMaski
    /// (GLES 3.1) the sample mask stays off.
    pub fn apply_render_state(
        &mut self,
        gl: &glow::Context,
        rs: &calls::CreateRenderState,
        indexed: bool,
        max_draw_buffers: usize,
        fns: &crate::ExtraFns,
    ) {
        let sample_mask_i = fns.sample_mask_i;
        self.apply_sample_shading(gl, rs, fns.min_sample_shading);
        self.apply_clip_control(rs, fns.clip_control);
        self.apply_polygon_mode(gl, rs, fns.polygon_mode);
        let or = |v: u32, d: u32| if v == 0 { d } else { v };
        let n = if indexed {
            max_draw_buffers.clamp(1, 8)
        } else {
            1
        };
        for i in 0..n {
            let on = rs.blend_enable_mask & (1 << i) != 0;
            if self.blend[i] != Some(on) {
                // SAFETY: GL_BLEND with an index below MAX_DRAW_BUFFERS.
                unsafe {
                    match (indexed, on) {
                        (true, true) => gl.enable_draw_buffer(glow::BLEND, i as u32),
                        (true, false) => gl.disable_draw_buffer(glow::BLEND, i as u32),
                        (false, true) => gl.enable(glow::BLEND),
                        (false, false) => gl.disable(glow::BLEND),
                    }
                }
                self.blend[i] = Some(on);
            }
            let m = (rs.color_write_mask >> (4 * i)) & 0xf;
            let mask = [m & 1 != 0, m & 2 != 0, m & 4 != 0, m & 8 != 0];
            if self.color_mask[i] != Some(mask) {
                // SAFETY: plain state call; index below MAX_DRAW_BUFFERS.
                unsafe {
                    if indexed {
                        gl.color_mask_draw_buffer(i as u32, mask[0], mask[1], mask[2], mask[3])
                    } else {
                        gl.color_mask(mask[0], mask[1], mask[2], mask[3])
                    }
                }
                self.color_mask[i] = Some(mask);
            }
        }
        self.apply_blend_funcs(gl, rs, indexed, max_draw_buffers);
        self.enable(gl, 0, rs.depth_test != 0);
        let dw = rs.depth_write != 0;
        if self.depth_mask != Some(dw) {
            // SAFETY: plain state call.
            unsafe { gl.depth_mask(dw) };
            self.depth_mask = Some(dw);
        }
        let df = or(rs.depth_func, glow::LESS);
        if self.depth_func != Some(df) {
            // SAFETY: plain state call.
            unsafe { gl.depth_func(df) };
            self.depth_func = Some(df);
        }
        self.enable(gl, 1, rs.stencil_test != 0);
        for (face, f) in [(glow::FRONT, 0usize), (glow::BACK, 1usize)] {
            let func = (
                or(rs.stencil_func[f], glow::ALWAYS),
                rs.stencil_ref[f],
                rs.stencil_value_mask[f],
            );
            if self.stencil_func[f] != Some(func) {
                // SAFETY: plain state call.
                unsafe { gl.stencil_func_separate(face, func.0, func.1, func.2) };
                self.stencil_func[f] = Some(func);
            }
            if self.stencil_write[f] != Some(rs.stencil_write_mask[f]) {
                // SAFETY: plain state call.
                unsafe { gl.stencil_mask_separate(face, rs.stencil_write_mask[f]) };
                self.stencil_write[f] = Some(rs.stencil_write_mask[f]);
            }
            let op = [
                or(rs.stencil_fail[f], glow::KEEP),
                or(rs.stencil_zfail[f], glow::KEEP),
                or(rs.stencil_zpass[f], glow::KEEP),
            ];
            if self.stencil_op[f] != Some(op) {
                // SAFETY: plain state call.
                unsafe { gl.stencil_op_separate(face, op[0], op[1], op[2]) };
                self.stencil_op[f] = Some(op);
            }
        }
        self.enable(gl, 2, rs.cull_enable != 0);
        let cf = or(rs.cull_face, glow::BACK);
        if self.cull_face != Some(cf) {
            // SAFETY: plain state call.
            unsafe { gl.cull_face(cf) };
            self.cull_face = Some(cf);
        }
        let ff = or(rs.front_face, glow::CCW);
        if self.front_face != Some(ff) {
            // SAFETY: plain state call.
            unsafe { gl.front_face(ff) };
            self.front_face = Some(ff);
        }
        self.enable(gl, 3, rs.scissor_enable != 0);
        self.enable(gl, 4, rs.polygon_offset_fill != 0);
        self.enable(gl, 5, rs.rasterizer_discard != 0);
        self.enable(gl, 6, rs.sample_alpha_to_coverage != 0);
        self.enable(gl, 7, rs.dither != 0);
        self.enable(gl, 8, rs.primitive_restart_fixed != 0);
        if let Some(mask_i) = sample_mask_i {
            self.enable(gl, 9, rs.sample_mask_enable != 0);
            if rs.sample_mask_enable != 0 && self.sample_mask != Some(rs.sample_mask) {
                // SAFETY: the driver's glSampleMaski; word 0 always exists.
                unsafe { mask_i(0, rs.sample_mask) };
                self.sample_mask = Some(rs.sample_mask);
            }
        }
    }

    /// Disable scissor and rasterizer discard for an internal blit; returns
    /// what to restore.
    pub fn suspend_blit_ops(&mut self, gl: &glow::Context) -> [Option<bool>; 2] {
        let saved = [self.enables[3], self.enables[5]];
        self.enable(gl, 3, false);
        self.enable(gl, 5, false);
        saved
    }

    pub fn resume_blit_ops(&mut self, gl: &glow::Context, saved: [Option<bool>; 2]) {
        // Unknown before: leave unknown, so the next render state re-applies.
        match saved[0] {
            Some(on) => self.enable(gl, 3, on),
            None => self.enables[3] = None,
        }
        match saved[1] {
            Some(on) => self.enable(gl, 5, on),
            None => self.enables[5] = None,
        }
    }

    pub fn use_program(&mut self, gl: &glow::Context, p: Option<glow::Program>) {
        if self.program != Some(p) {
            // SAFETY: `p` is a live program of this share group or None.
            unsafe { gl.use_program(p) };
            self.program = Some(p);
        }
    }

    pub fn bind_draw_fb(&mut self, gl: &glow::Context, fb: Option<glow::Framebuffer>) {
        if self.draw_fb != Some(fb) {
            // SAFETY: `fb` belongs to this native context.
            unsafe { gl.bind_framebuffer(glow::DRAW_FRAMEBUFFER, fb) };
            self.draw_fb = Some(fb);
        }
    }

    pub fn bind_read_fb(&mut self, gl: &glow::Context, fb: Option<glow::Framebuffer>) {
        if self.read_fb != Some(fb) {
            // SAFETY: `fb` belongs to this native context.
            unsafe { gl.bind_framebuffer(glow::READ_FRAMEBUFFER, fb) };
            self.read_fb = Some(fb);
        }
    }

    pub fn bind_array_buffer(&mut self, gl: &glow::Context, b: Option<glow::Buffer>) {
        if self.array_buffer != Some(b) {
            // SAFETY: `b` is a live buffer or None.
            unsafe { gl.bind_buffer(glow::ARRAY_BUFFER, b) };
            self.array_buffer = Some(b);
        }
    }

    pub fn bind_element_buffer(&mut self, gl: &glow::Context, b: Option<glow::Buffer>) {
        if self.element_buffer != Some(b) {
            // SAFETY: `b` is a live buffer or None; the context's one VAO is bound.
            unsafe { gl.bind_buffer(glow::ELEMENT_ARRAY_BUFFER, b) };
            self.element_buffer = Some(b);
        }
    }

    pub fn active_unit(&mut self, gl: &glow::Context, unit: u32) {
        if self.active_unit != Some(unit) {
            // SAFETY: unit below MAX_COMBINED_TEXTURE_IMAGE_UNITS (callers clamp to 32).
            unsafe { gl.active_texture(glow::TEXTURE0 + unit) };
            self.active_unit = Some(unit);
        }
    }

    /// Bind `tex` to `target` on the active unit (uploads use this too, so
    /// the shadow stays true).
    pub fn bind_texture(&mut self, gl: &glow::Context, target: u32, tex: Option<glow::Texture>) {
        let unit = match self.active_unit {
            Some(u) => u,
            None => {
                self.active_unit(gl, 0);
                0
            }
        };
        if let Some(e) = self.textures.iter_mut().find(|e| e.0 == (unit, target)) {
            if e.1 == tex {
                return;
            }
            e.1 = tex;
        } else {
            self.textures.push(((unit, target), tex));
        }
        // SAFETY: `tex` is a live texture whose target is `target`, or None.
        unsafe { gl.bind_texture(target, tex) };
    }

    pub fn bind_sampler(&mut self, gl: &glow::Context, unit: u32, s: Option<glow::Sampler>) {
        let Some(slot) = self.samplers.get_mut(unit as usize) else {
            return;
        };
        if *slot != Some(s) {
            // SAFETY: unit < 32, `s` a live sampler or None.
            unsafe { gl.bind_sampler(unit, s) };
            *slot = Some(s);
        }
    }

    pub fn bind_ubo(
        &mut self,
        gl: &glow::Context,
        index: u32,
        b: Option<glow::Buffer>,
        offset: i32,
        size: i32,
    ) {
        bind_indexed(
            gl,
            glow::UNIFORM_BUFFER,
            &mut self.ubos,
            128,
            index,
            (b, offset, size),
        );
    }

    /// glBindBufferRange / glBindBufferBase of SHADER_STORAGE_BUFFER
    /// binding `index`, shadowed like `bind_ubo`.
    pub fn bind_ssbo(
        &mut self,
        gl: &glow::Context,
        index: u32,
        b: Option<glow::Buffer>,
        offset: i32,
        size: i32,
    ) {
        bind_indexed(
            gl,
            glow::SHADER_STORAGE_BUFFER,
            &mut self.ssbos,
            16,
            index,
            (b, offset, size),
        );
    }

    /// glBindImageTexture of image unit `unit` (< 8, or < 16 for the
    /// write-only twins' units), shadowed.
    pub fn bind_image(&mut self, gl: &glow::Context, unit: u32, want: ImageUnit) {
        let Some(slot) = self.images.get_mut(unit as usize) else {
            return;
        };
        if *slot != Some(want) {
            // SAFETY: unit < 16, below MAX_IMAGE_UNITS (the caller); the
            // texture is a live immutable texture (images.rs) or None.
            unsafe {
                gl.bind_image_texture(
                    unit,
                    want.texture,
                    want.level,
                    want.layered,
                    want.layer,
                    want.access,
                    want.format,
                )
            };
            *slot = Some(want);
        }
    }

    pub fn set_viewport(&mut self, gl: &glow::Context, v: [i32; 4], range: [f32; 2]) {
        if self.viewport != Some(v) {
            // SAFETY: plain state call.
            unsafe { gl.viewport(v[0], v[1], v[2].max(0), v[3].max(0)) };
            self.viewport = Some(v);
        }
        if self.depth_range != Some(range) {
            // SAFETY: plain state call.
            unsafe { gl.depth_range_f32(range[0], range[1]) };
            self.depth_range = Some(range);
        }
    }
}

/// An indexed buffer binding (`target` point `index` < `limit`): the
/// driver is called only when the shadow `slots` differs.
fn bind_indexed(
    gl: &glow::Context,
    target: u32,
    slots: &mut Vec<Option<(Option<glow::Buffer>, i32, i32)>>,
    limit: usize,
    index: u32,
    want: (Option<glow::Buffer>, i32, i32),
) {
    let i = index as usize;
    if i >= limit {
        return;
    }
    if slots.len() <= i {
        slots.resize(i + 1, None);
    }
    if slots[i] != Some(want) {
        let (b, offset, size) = want;
        // SAFETY: `index` is below the binding count the caps report (the
        // client's contract); a bad index or range only raises a GL error.
        unsafe {
            match b {
                Some(_) if size > 0 => gl.bind_buffer_range(target, index, b, offset, size),
                _ => gl.bind_buffer_base(target, index, b),
            }
        }
        slots[i] = Some(want);
    }
}
