//! Validate points: turn tracked GL state into records, in a fixed order,
//! emitting only what differs from what this context sent last.
//!
//! Order: framebuffer → render state CSO → dynamic state (viewport,
//! scissor, blend colour, polygon offset, line width) → program + default
//! uniforms → sampler views + samplers → uniform buffers → vertex input.

use mgpipe::calls;
use mgpipe::consts::*;
use mgpipe::{Handle, Pipe};
use xxhash_rust::xxh3::xxh3_64;

use crate::context::{
    Attachment, Gl, LevelInfo, TexParams, Texture, CSO_CACHE_LIMIT, MAX_DRAW_BUFFERS,
};

/// Program variant bits (`Gl::variant_cso`): glShadeModel(GL_FLAT) with
/// colour varyings that follow it.
const VARIANT_FLAT_SHADED: u8 = 1;
/// glProvokingVertex(GL_FIRST_VERTEX_CONVENTION) with a geometry shader
/// (the backends provoke its output with the last vertex).
const VARIANT_FIRST_VERTEX_GS: u8 = 2;

/// Hash a payload's bytes with its handle field (the first 8 bytes, by the
/// catalogue's convention that every CSO create starts with `cso`) zeroed.
pub(crate) fn cso_key<T: bytemuck::Pod>(p: &T) -> u64 {
    // A copy on the stack, not a heap Vec: this runs at draw time.
    let mut c = *p;
    bytemuck::bytes_of_mut(&mut c)[..8].fill(0);
    xxh3_64(bytemuck::bytes_of(&c))
}

/// `a == b` for payloads built from zeroed defaults with only the first
/// `count` slots filled (what the validate points emit): the slots past
/// `count` are zero in both, so only the prefix is compared.
fn same_constant_buffers(a: &calls::SetConstantBuffers, b: &calls::SetConstantBuffers) -> bool {
    let n = (a.count as usize).min(a.buffers.len());
    a.count == b.count
        && a.buffers[..n] == b.buffers[..n]
        && a.offsets[..n] == b.offsets[..n]
        && a.sizes[..n] == b.sizes[..n]
}

/// The create_vertex_input payload (handle left null) of one vertex input.
fn vertex_input_payload(
    elements: Handle,
    vb: &calls::SetVertexBuffers,
    ib: Handle,
) -> calls::CreateVertexInput {
    calls::CreateVertexInput {
        elements,
        index_buffer: ib,
        count: vb.count,
        buffers: vb.buffers,
        offsets: vb.offsets,
        strides: vb.strides,
        ..Default::default()
    }
}

/// Whether `internal_format` can be a colour attachment.
pub fn is_color_renderable(f: u32) -> bool {
    !matches!(
        f,
        glow::DEPTH_COMPONENT16
            | glow::DEPTH_COMPONENT24
            | glow::DEPTH_COMPONENT32
            | glow::DEPTH_COMPONENT32F
            | glow::DEPTH24_STENCIL8
            | glow::DEPTH32F_STENCIL8
            | glow::STENCIL_INDEX8
            | glow::DEPTH_COMPONENT
            | glow::DEPTH_STENCIL
            | 0
    )
}
pub fn has_depth(f: u32) -> bool {
    matches!(
        f,
        glow::DEPTH_COMPONENT16
            | glow::DEPTH_COMPONENT24
            | glow::DEPTH_COMPONENT32
            | glow::DEPTH_COMPONENT32F
            | glow::DEPTH24_STENCIL8
            | glow::DEPTH32F_STENCIL8
            | glow::DEPTH_COMPONENT
            | glow::DEPTH_STENCIL
    )
}
pub fn has_stencil(f: u32) -> bool {
    matches!(
        f,
        glow::DEPTH24_STENCIL8
            | glow::DEPTH32F_STENCIL8
            | glow::STENCIL_INDEX8
            | glow::DEPTH_STENCIL
    )
}

/// The layer a draw framebuffer attaches for `a` (resolved as `r`): every
/// layer (`ATTACH_LAYERED`) for a layered texture attachment, else the
/// resolved layer or face.
pub(crate) fn draw_layer(a: &Attachment, r: &Resolved) -> u32 {
    if a.layered && r.kind == SURFACE_TEXTURE {
        ATTACH_LAYERED
    } else {
        r.layer
    }
}

/// Whether a framebuffer's depth and stencil attachments are both present
/// but name different images (object, level, layer or face).
pub(crate) fn separate_depth_stencil(depth: &Attachment, stencil: &Attachment) -> bool {
    depth.kind != SURFACE_NONE && stencil.kind != SURFACE_NONE && depth != stencil
}

/// A resolved attachment: handle, kind, level, layer, format, size.
#[derive(Clone, Copy, Debug, Default)]
pub struct Resolved {
    pub handle: Handle,
    pub kind: u32,
    pub level: u32,
    pub layer: u32,
    pub format: u32,
    pub width: u32,
    pub height: u32,
    pub samples: u32,
    /// GL_TEXTURE_FIXED_SAMPLE_LOCATIONS of a texture; renderbuffers
    /// always have fixed locations.
    pub fixed_sample_locations: bool,
}

impl Gl<'_> {
    /// The texture and level a texture attachment names (None for other
    /// kinds, or a missing texture or level).
    fn attached_level(&self, a: &Attachment) -> Option<(&Texture, LevelInfo)> {
        if a.kind != SURFACE_TEXTURE {
            return None;
        }
        let t = self.sh.textures.get(&a.name)?.as_ref()?;
        let face = if t.target == glow::TEXTURE_CUBE_MAP {
            a.cube_face as usize
        } else {
            0
        };
        Some((t, t.level(face, a.level as usize)?))
    }

    /// Whether `a` names a texture level or a renderbuffer of a legacy
    /// format (`gl::legacy_formats`).
    fn is_legacy_format_attachment(&self, a: &Attachment) -> bool {
        if a.kind == SURFACE_RENDERBUFFER {
            return matches!(self.sh.renderbuffers.get(&a.name), Some(Some(r))
                if r.requested > 2
                    && crate::gl::legacy_formats::legacy_format(r.requested)
                        .is_some_and(|f| f.storage == r.internal_format));
        }
        self.attached_level(a)
            .is_some_and(|(_, l)| l.legacy().is_some())
    }

    /// Resolve an attachment of a user framebuffer to its object.
    pub fn resolve_attachment(&self, a: &Attachment) -> Option<Resolved> {
        match a.kind {
            SURFACE_TEXTURE => {
                let (t, info) = self.attached_level(a)?;
                let layer = if t.target == glow::TEXTURE_CUBE_MAP {
                    a.cube_face
                } else {
                    a.layer
                };
                Some(Resolved {
                    handle: t.handle,
                    kind: SURFACE_TEXTURE,
                    level: a.level,
                    layer,
                    format: info.internal_format,
                    width: info.width,
                    height: info.height,
                    samples: t.samples,
                    fixed_sample_locations: t.fixed_sample_locations,
                })
            }
            SURFACE_RENDERBUFFER => {
                let r = self.sh.renderbuffers.get(&a.name)?.as_ref()?;
                if !r.created {
                    return None;
                }
                Some(Resolved {
                    handle: r.handle,
                    kind: SURFACE_RENDERBUFFER,
                    level: 0,
                    layer: 0,
                    format: r.internal_format,
                    width: r.width,
                    height: r.height,
                    samples: r.samples,
                    fixed_sample_locations: true,
                })
            }
            _ => None,
        }
    }

    /// glCheckFramebufferStatus for the user framebuffer `name` (0 = default).
    pub fn framebuffer_status(&self, name: u32) -> u32 {
        if name == 0 {
            return if self.st.draw_surface.is_some() {
                glow::FRAMEBUFFER_COMPLETE
            } else {
                glow::FRAMEBUFFER_UNDEFINED
            };
        }
        let Some(Some(fb)) = self.st.fbos.get(&name) else {
            return glow::FRAMEBUFFER_UNDEFINED;
        };
        let mut any = false;
        let mut samples: Option<u32> = None;
        let mut fixed: Option<bool> = None;
        let attachments = fb
            .color
            .iter()
            .map(|a| (a, 0u8))
            .chain([(&fb.depth, 1u8), (&fb.stencil, 2u8)]);
        for (a, role) in attachments {
            if a.kind == SURFACE_NONE {
                continue;
            }
            let Some(r) = self.resolve_attachment(a) else {
                return glow::FRAMEBUFFER_INCOMPLETE_ATTACHMENT;
            };
            if r.width == 0 || r.height == 0 {
                return glow::FRAMEBUFFER_INCOMPLETE_ATTACHMENT;
            }
            let ok = match role {
                0 => is_color_renderable(r.format),
                1 => has_depth(r.format),
                _ => has_stencil(r.format),
            };
            if !ok {
                return glow::FRAMEBUFFER_INCOMPLETE_ATTACHMENT;
            }
            // Legacy ALPHA/LUMINANCE/INTENSITY textures and renderbuffers
            // read back as their RGBA storage: not offered as render
            // targets (GL allows UNSUPPORTED for any combination).
            if role == 0 && self.is_legacy_format_attachment(a) {
                return glow::FRAMEBUFFER_UNSUPPORTED;
            }
            // RGB9_E5 is not colour-renderable in GL (4.6 table 8.12);
            // like Mesa, a framebuffer attaching it is unsupported rather
            // than incomplete.
            if role == 0 && r.format == glow::RGB9_E5 {
                return glow::FRAMEBUFFER_UNSUPPORTED;
            }
            if let Some(s) = samples {
                if s != r.samples {
                    return glow::FRAMEBUFFER_INCOMPLETE_MULTISAMPLE;
                }
            }
            samples = Some(r.samples);
            // GL 4.6 §9.4.2: fixed sample locations agree across the
            // attachments (a renderbuffer counts as fixed).
            if fixed.is_some_and(|f| f != r.fixed_sample_locations) {
                return glow::FRAMEBUFFER_INCOMPLETE_MULTISAMPLE;
            }
            fixed = Some(r.fixed_sample_locations);
            any = true;
        }
        if !any {
            return glow::FRAMEBUFFER_INCOMPLETE_MISSING_ATTACHMENT;
        }
        // Depth and stencil from two different images: neither backend can
        // attach them together (GLES 3.2 §9.4.3 and Vulkan need one image),
        // and GL lets an implementation refuse the combination, as Mesa
        // does.
        if separate_depth_stencil(&fb.depth, &fb.stencil) {
            return glow::FRAMEBUFFER_UNSUPPORTED;
        }
        // No FRAMEBUFFER_INCOMPLETE_DRAW_BUFFER / _READ_BUFFER: GL 4.1 and
        // ARB_ES2_compatibility (advertised) dropped both rules; a draw or
        // read buffer naming an empty attachment point writes nothing or
        // fails the read (INVALID_OPERATION at glReadPixels/glBlit) instead.
        glow::FRAMEBUFFER_COMPLETE
    }

    /// GL_SAMPLES of framebuffer `name`: the first attachment's sample
    /// count (0 for the default framebuffer, which is single-sampled).
    pub fn framebuffer_samples(&self, name: u32) -> u32 {
        let Some(Some(fb)) = self.st.fbos.get(&name) else {
            return 0;
        };
        fb.color
            .iter()
            .chain([&fb.depth, &fb.stencil])
            .find_map(|a| self.resolve_attachment(a))
            .map_or(0, |r| r.samples)
    }

    /// GL_{RED,GREEN,BLUE,ALPHA,DEPTH,STENCIL}_BITS of framebuffer object
    /// `name` (GL 4.6 compatibility §9.2.3: the bits of its attachments;
    /// colour from the first draw buffer's attachment, else the first
    /// colour attachment). None for the default framebuffer.
    pub fn framebuffer_bits(&self, name: u32, pname: u32) -> Option<u32> {
        if name == 0 {
            return None;
        }
        let Some(Some(fb)) = self.st.fbos.get(&name) else {
            return Some(0);
        };
        let a = match pname {
            glow::DEPTH_BITS => self.resolve_attachment(&fb.depth),
            glow::STENCIL_BITS => self.resolve_attachment(&fb.stencil),
            _ => fb
                .draw_buffers
                .iter()
                .filter_map(|b| b.checked_sub(glow::COLOR_ATTACHMENT0))
                .filter_map(|i| fb.color.get(i as usize))
                .chain(fb.color.iter())
                .find_map(|a| self.resolve_attachment(a)),
        };
        Some(a.map_or(0, |r| {
            let f = match super::legacy_formats::legacy_format(r.format) {
                Some(l) => l.storage,
                // GLES has no 32-bit normalised depth: the backend stores a
                // 24-bit one, and reads return its precision.
                None if r.format == glow::DEPTH_COMPONENT32
                    && self.conn.caps.backend_kind == mgpipe::caps::BACKEND_GLES =>
                {
                    glow::DEPTH_COMPONENT24
                }
                None => r.format,
            };
            super::framebuffers::component_bits(f, pname)
        }))
    }

    /// Size of the draw framebuffer (for clamping and reporting).
    pub fn draw_framebuffer_size(&self) -> (u32, u32) {
        self.framebuffer_size(self.st.draw_fbo, true)
    }

    pub fn framebuffer_size(&self, name: u32, draw: bool) -> (u32, u32) {
        if name == 0 {
            let s = if draw {
                &self.st.draw_surface
            } else {
                &self.st.read_surface
            };
            return s.as_ref().map(|s| s.size()).unwrap_or((0, 0));
        }
        let Some(Some(fb)) = self.st.fbos.get(&name) else {
            return (0, 0);
        };
        let mut size: Option<(u32, u32)> = None;
        for a in fb.color.iter().chain([&fb.depth, &fb.stencil]) {
            if let Some(r) = self.resolve_attachment(a) {
                // resolve_attachment already gives the attached level's size.
                let lw = r.width.max(1);
                size = Some(match size {
                    None => (lw, r.height.max(1)),
                    Some((w, h)) => (w.min(lw), h.min(r.height.max(1))),
                });
            }
        }
        size.unwrap_or((0, 0))
    }

    /// Emit the draw framebuffer. Err(INVALID_FRAMEBUFFER_OPERATION) when incomplete.
    pub fn emit_framebuffer(&mut self) -> Result<(), u32> {
        let name = self.st.draw_fbo;
        if self.framebuffer_status(name) != glow::FRAMEBUFFER_COMPLETE
            || super::framebuffers::layer_status(self, name).is_some()
        {
            return Err(glow::INVALID_FRAMEBUFFER_OPERATION);
        }
        let mut p = calls::SetFramebufferState {
            draw_buffers: [NO_ATTACHMENT; 8],
            ..Default::default()
        };
        if name == 0 {
            p.fbo = Handle::DEFAULT_FRAMEBUFFER;
            if let Some(s) = &self.st.draw_surface {
                (p.width, p.height) = s.size();
                p.color[0] = s.handle;
            }
            if self.st.default_draw_buffer != glow::NONE {
                p.draw_buffers[0] = 0;
            }
        } else if let Some(Some(fb)) = self.st.fbos.get(&name) {
            p.fbo = fb.handle;
            for i in 0..MAX_DRAW_BUFFERS {
                if let Some(r) = self.resolve_attachment(&fb.color[i]) {
                    p.color[i] = r.handle;
                    p.color_kind[i] = r.kind;
                    p.color_level[i] = r.level;
                    p.color_layer[i] = draw_layer(&fb.color[i], &r);
                }
                let db = fb.draw_buffers[i];
                if db != glow::NONE {
                    p.draw_buffers[i] = db.wrapping_sub(glow::COLOR_ATTACHMENT0);
                }
            }
            if let Some(r) = self.resolve_attachment(&fb.depth) {
                p.depth = r.handle;
                p.depth_kind = r.kind;
                p.depth_level = r.level;
                p.depth_layer = draw_layer(&fb.depth, &r);
            }
            if let Some(r) = self.resolve_attachment(&fb.stencil) {
                p.stencil = r.handle;
                p.stencil_kind = r.kind;
                p.stencil_level = r.level;
                p.stencil_layer = draw_layer(&fb.stencil, &r);
            }
            let (w, h) = self.framebuffer_size(name, true);
            p.width = w;
            p.height = h;
        }
        p.content_hash = 0;
        p.content_hash = xxh3_64(bytemuck::bytes_of(&p));
        if self.st.sent.framebuffer.as_ref() != Some(&p) {
            if self.st.verify_dry {
                let field = self
                    .st
                    .sent
                    .framebuffer
                    .as_ref()
                    .and_then(|o| o.first_divergence(&p));
                self.st.diverged("set_framebuffer_state", field);
            } else {
                self.conn.pipe.set_framebuffer_state(&p);
                self.st.sent.framebuffer = Some(p);
            }
        }
        Ok(())
    }

    /// Emit the read surface of the read framebuffer.
    pub fn emit_read_surface(&mut self) -> Result<(), u32> {
        let name = self.st.read_fbo;
        let status = if name == 0 {
            if self.st.read_surface.is_some() {
                glow::FRAMEBUFFER_COMPLETE
            } else {
                glow::FRAMEBUFFER_UNDEFINED
            }
        } else {
            self.framebuffer_status(name)
        };
        if status != glow::FRAMEBUFFER_COMPLETE {
            return Err(glow::INVALID_FRAMEBUFFER_OPERATION);
        }
        let mut p = calls::SetReadSurface::default();
        if name == 0 {
            p.fbo = Handle::DEFAULT_FRAMEBUFFER;
            if let Some(s) = &self.st.read_surface {
                p.color = s.handle;
            }
        } else if let Some(Some(fb)) = self.st.fbos.get(&name) {
            p.fbo = fb.handle;
            let rb = fb.read_buffer;
            let i = rb.wrapping_sub(glow::COLOR_ATTACHMENT0) as usize;
            if rb != glow::NONE && i < MAX_DRAW_BUFFERS {
                if let Some(r) = self.resolve_attachment(&fb.color[i]) {
                    p.color = r.handle;
                    p.color_kind = r.kind;
                    p.color_level = r.level;
                    p.color_layer = r.layer;
                }
            }
            // A layered attachment reads its first layer (GL 4.6 §9.8):
            // the resolved layer of a layered attachment is 0 / face 0.
            if let Some(r) = self.resolve_attachment(&fb.depth) {
                p.depth = r.handle;
                p.depth_kind = r.kind;
                p.depth_level = r.level;
                p.depth_layer = r.layer;
            }
            if let Some(r) = self.resolve_attachment(&fb.stencil) {
                p.stencil = r.handle;
                p.stencil_kind = r.kind;
                p.stencil_level = r.level;
                p.stencil_layer = r.layer;
            }
        }
        if self.st.sent.read_surface.as_ref() != Some(&p) {
            if self.st.verify_dry {
                let field = self
                    .st
                    .sent
                    .read_surface
                    .as_ref()
                    .and_then(|o| o.first_divergence(&p));
                self.st.diverged("set_read_surface", field);
            } else {
                self.conn.pipe.set_read_surface(&p);
                self.st.sent.read_surface = Some(p);
            }
        }
        Ok(())
    }

    /// The render state CSO, content-addressed.
    pub fn emit_render_state(&mut self) {
        let s = &*self.st;
        let mut color_write_mask = 0u32;
        for (i, m) in s.color_mask.iter().enumerate() {
            color_write_mask |= (*m as u32 & 0xF) << (4 * i);
        }
        let f = &s.stencil;
        let p = calls::CreateRenderState {
            cso: Handle::NULL,
            blend_enable_mask: s.blend_enabled,
            blend_src_rgb: s.blend_src_rgb[0],
            blend_dst_rgb: s.blend_dst_rgb[0],
            blend_src_alpha: s.blend_src_alpha[0],
            blend_dst_alpha: s.blend_dst_alpha[0],
            blend_eq_rgb: s.blend_eq_rgb[0],
            blend_eq_alpha: s.blend_eq_alpha[0],
            color_write_mask,
            depth_test: s.depth_test as u32,
            depth_write: s.depth_mask as u32,
            depth_func: s.depth_func,
            stencil_test: s.stencil_test as u32,
            stencil_func: [f[0].func, f[1].func],
            stencil_ref: [f[0].reference, f[1].reference],
            stencil_value_mask: [f[0].value_mask, f[1].value_mask],
            stencil_write_mask: [f[0].write_mask, f[1].write_mask],
            stencil_fail: [f[0].fail, f[1].fail],
            stencil_zfail: [f[0].zfail, f[1].zfail],
            stencil_zpass: [f[0].zpass, f[1].zpass],
            cull_enable: s.cull_face as u32,
            cull_face: s.cull_mode,
            front_face: s.front_face,
            scissor_enable: s.scissor_test as u32,
            polygon_offset_fill: s.polygon_offset_fill as u32,
            rasterizer_discard: s.rasterizer_discard as u32,
            sample_alpha_to_coverage: s.sample_alpha_to_coverage as u32,
            dither: s.dither as u32,
            primitive_restart_fixed: (s.primitive_restart_fixed
                || (s.primitive_restart && s.restart_as_fixed))
                as u32,
            sample_mask_enable: s.sample_mask as u32,
            sample_mask: s.sample_mask_value,
            sample_shading: s.sample_shading as u32,
            clip_upper_left: s.clip_upper_left as u32,
            clip_zero_to_one: s.clip_zero_to_one as u32,
            polygon_mode: s.polygon_mode,
            polygon_offset_line_point: s.polygon_offset_line as u32
                | (s.polygon_offset_point as u32) << 1,
            provoking_first: (s.provoking_vertex == glow::FIRST_VERTEX_CONVENTION) as u32,
            // Only the enable's state distinguishes CSOs while it is off.
            min_sample_shading: if s.sample_shading {
                s.min_sample_shading
            } else {
                0.0
            },
            ..Default::default()
        };
        // Per-draw-buffer blending: the arrays only when buffers differ,
        // so the common CSO stays the same bytes.
        let uniform = |a: &[u32; MAX_DRAW_BUFFERS]| a.iter().all(|v| *v == a[0]);
        let mut p = p;
        if ![
            &s.blend_src_rgb,
            &s.blend_dst_rgb,
            &s.blend_src_alpha,
            &s.blend_dst_alpha,
            &s.blend_eq_rgb,
            &s.blend_eq_alpha,
        ]
        .into_iter()
        .all(uniform)
        {
            p.blend_per_buffer = 1;
            p.blend_src_rgb_i = s.blend_src_rgb;
            p.blend_dst_rgb_i = s.blend_dst_rgb;
            p.blend_src_alpha_i = s.blend_src_alpha;
            p.blend_dst_alpha_i = s.blend_dst_alpha;
            p.blend_eq_rgb_i = s.blend_eq_rgb;
            p.blend_eq_alpha_i = s.blend_eq_alpha;
        }
        let p = p;
        if let Some(h) = self.st.cso.recent_render_states.find(&p) {
            self.bind_render_state(h);
            return;
        }
        let key = cso_key(&p);
        let handle = match self.st.cso.render_state.get(&key) {
            Some(h) => *h,
            None if self.st.verify_dry => {
                self.st.diverged(
                    "bind_render_state",
                    Some("no render-state CSO for the current state"),
                );
                return;
            }
            None => {
                if self.st.cso.render_state.len() >= CSO_CACHE_LIMIT {
                    for (_, h) in self.st.cso.render_state.drain() {
                        self.conn
                            .pipe
                            .delete_render_state(&calls::DeleteRenderState { cso: h });
                        self.conn.alloc.render_state.free(h);
                    }
                    self.st.cso.recent_render_states.clear();
                    self.st.sent.render_state = Handle::NULL;
                }
                let h = self.conn.alloc.render_state.alloc();
                self.conn
                    .pipe
                    .create_render_state(&calls::CreateRenderState { cso: h, ..p });
                self.st.cso.render_state.insert(key, h);
                h
            }
        };
        self.st.cso.recent_render_states.note(p, handle);
        self.bind_render_state(handle);
    }

    /// Bind render-state CSO `handle` unless it is the one sent.
    fn bind_render_state(&mut self, handle: Handle) {
        if self.st.sent.render_state != handle {
            if self.st.verify_dry {
                self.st.diverged("bind_render_state", Some("render_state"));
            } else {
                self.conn
                    .pipe
                    .bind_render_state(&calls::BindRenderState { cso: handle });
                self.st.sent.render_state = handle;
            }
        }
    }

    /// Viewport, scissor, blend colour, polygon offset, line width.
    pub fn emit_dynamic(&mut self) {
        let s = &*self.st;
        let [x, y, w, h] = s.viewport;
        let vp = calls::SetViewport {
            x: x as f32,
            y: y as f32,
            width: w as f32,
            height: h as f32,
            near: s.depth_range[0],
            far: s.depth_range[1],
        };
        if s.sent.viewport.as_ref() != Some(&vp) {
            self.conn.pipe.set_viewport(&vp);
            self.st.sent.viewport = Some(vp);
        }
        let s = &*self.st;
        let [x, y, w, h] = s.scissor;
        let sc = calls::SetScissor {
            x,
            y,
            width: w,
            height: h,
        };
        if s.sent.scissor.as_ref() != Some(&sc) {
            self.conn.pipe.set_scissor(&sc);
            self.st.sent.scissor = Some(sc);
        }
        let bc = calls::SetBlendColor {
            color: self.st.blend_color,
        };
        if self.st.sent.blend_color.as_ref() != Some(&bc) {
            if self.st.verify_dry {
                let field = self
                    .st
                    .sent
                    .blend_color
                    .as_ref()
                    .and_then(|o| o.first_divergence(&bc));
                self.st.diverged("set_blend_color", field);
            } else {
                self.conn.pipe.set_blend_color(&bc);
                self.st.sent.blend_color = Some(bc);
            }
        }
        let po = calls::SetPolygonOffset {
            factor: self.st.polygon_offset[0],
            units: self.st.polygon_offset[1],
            clamp: self.st.polygon_offset[2],
            ..Default::default()
        };
        if self.st.sent.polygon_offset.as_ref() != Some(&po) {
            if self.st.verify_dry {
                let field = self
                    .st
                    .sent
                    .polygon_offset
                    .as_ref()
                    .and_then(|o| o.first_divergence(&po));
                self.st.diverged("set_polygon_offset", field);
            } else {
                self.conn.pipe.set_polygon_offset(&po);
                self.st.sent.polygon_offset = Some(po);
            }
        }
        let lw = calls::SetLineWidth {
            width: self.st.line_width,
            ..Default::default()
        };
        if self.st.sent.line_width.as_ref() != Some(&lw) {
            if self.st.verify_dry {
                let field = self
                    .st
                    .sent
                    .line_width
                    .as_ref()
                    .and_then(|o| o.first_divergence(&lw));
                self.st.diverged("set_line_width", field);
            } else {
                self.conn.pipe.set_line_width(&lw);
                self.st.sent.line_width = Some(lw);
            }
        }
    }

    /// The sampler CSO for a parameter set, content-addressed.
    fn sampler_cso(&mut self, p: &TexParams) -> Handle {
        let payload = calls::CreateSampler {
            cso: Handle::NULL,
            min_filter: p.min_filter,
            mag_filter: p.mag_filter,
            wrap_s: p.wrap_s,
            wrap_t: p.wrap_t,
            wrap_r: p.wrap_r,
            compare_mode: p.compare_mode,
            compare_func: p.compare_func,
            min_lod: p.min_lod,
            max_lod: p.max_lod,
            lod_bias: p.lod_bias,
            max_anisotropy: p.max_anisotropy,
            border_color: p.border,
            ..Default::default()
        };
        let key = cso_key(&payload);
        if let Some(h) = self.st.cso.sampler.get(&key) {
            return *h;
        }
        if self.st.verify_dry {
            self.st.diverged(
                "bind_samplers",
                Some("no sampler CSO for the current parameters"),
            );
            return Handle::NULL;
        }
        let h = self.conn.alloc.sampler.alloc();
        self.conn
            .pipe
            .create_sampler(&calls::CreateSampler { cso: h, ..payload });
        self.st.cso.sampler.insert(key, h);
        h
    }

    /// The program's shader CSO and its default uniform block, the part a
    /// uniform change alone (DIRTY_UNIFORMS) needs re-sent.
    pub(crate) fn emit_program_globals(&mut self) -> Result<(), u32> {
        let mut linked = linked_program(self.sh, self.st.program)?;
        if linked.depth_range_at.is_some() {
            self.update_depth_range();
            linked = linked_program(self.sh, self.st.program)?;
        }
        if !linked.matrix_uniforms.is_empty() && linked.matrix_serial != self.st.matrices.serial {
            self.update_matrices();
            linked = linked_program(self.sh, self.st.program)?;
        }
        let mut cso = linked.cso;
        // Draw state the program's SPIR-V depends on (rare: compatibility
        // shade model, first-vertex convention with a geometry shader).
        let mut variant = 0u8;
        if self.st.ff.flat && !linked.prog.shade_model_colors.is_empty() {
            variant |= VARIANT_FLAT_SHADED;
        }
        if self.st.provoking_vertex == glow::FIRST_VERTEX_CONVENTION
            && linked.prog.stage_spirv[crate::shader::Stage::Geometry.index()].is_some()
        {
            variant |= VARIANT_FIRST_VERTEX_GS;
        }
        if variant != 0 {
            cso = self.variant_cso(variant);
            linked = linked_program(self.sh, self.st.program)?;
        }
        if self.st.sent.shader != cso {
            if self.st.verify_dry {
                self.st.diverged("bind_shader", Some("shader"));
            } else {
                self.conn.pipe.bind_shader(&calls::BindShader { cso });
                self.st.sent.shader = cso;
            }
        }
        if linked.prog.global_block.is_some() {
            let v = linked.scratch_version;
            if self.st.sent.global_version.get(cso) != Some(v) {
                if self.st.verify_dry {
                    self.st
                        .diverged("set_global_constants", Some("scratch version"));
                } else {
                    self.conn.pipe.set_global_constants(
                        &calls::SetGlobalConstants { shader: cso },
                        &linked.scratch,
                    );
                    self.st.sent.global_version.set(cso, v);
                }
            }
        }
        Ok(())
    }

    /// The current program's variant `bits` (VARIANT_*), created at the
    /// first draw that needs it; the program's own CSO when the variant
    /// changes nothing or cannot be made.
    fn variant_cso(&mut self, bits: u8) -> Handle {
        let pname = self.st.program;
        let varying_limit = crate::gl::shaders::varying_locations(&self.conn.caps);
        let Some(crate::context::ShaderOrProgram::Program(prog)) =
            self.sh.shader_objects.get_mut(&pname)
        else {
            return Handle::NULL;
        };
        let Some(linked) = prog.linked.as_mut() else {
            return Handle::NULL;
        };
        if let Some(&(_, h)) = linked.variants.iter().find(|v| v.0 == bits) {
            return h;
        }
        if self.st.verify_dry {
            return linked.cso;
        }
        let mut stages = linked.prog.stage_spirv.clone();
        let mut changed = false;
        if bits & VARIANT_FIRST_VERTEX_GS != 0 {
            let input = &linked.link_input;
            let refs: Vec<(crate::shader::Stage, &str)> = input
                .sources
                .iter()
                .map(|(s, t)| (*s, t.as_str()))
                .collect();
            let relinked = crate::shader::link_provoking_first(&crate::shader::LinkInput {
                shaders: &refs,
                attrib_bindings: &input.attrib_bindings,
                frag_data_bindings: &input.frag_data_bindings,
                xfb_varyings: &input.xfb_varyings,
                xfb_mode: input.xfb_mode,
                varying_limit,
            });
            match relinked {
                // Same interface and default-block layout: only the
                // geometry stage's code differs.
                Ok(p) if p.same_interface(&linked.prog) => {
                    changed |= p.stage_spirv != stages;
                    stages = p.stage_spirv;
                }
                Ok(_) => tracing::warn!(
                    program = pname,
                    "first-vertex variant: relinked interface differs; last vertex provokes"
                ),
                Err(log) => tracing::warn!(
                    program = pname,
                    %log,
                    "first-vertex variant: relink failed; last vertex provokes"
                ),
            }
        }
        if bits & VARIANT_FLAT_SHADED != 0 {
            if let Some(s) = linked.prog.flat_shaded_spirv(&stages) {
                stages = s;
                changed = true;
            }
        }
        let h = if changed {
            crate::gl::shaders::create_shader_cso(self.conn, &linked.prog, &stages)
        } else {
            linked.cso
        };
        linked.variants.push((bits, h));
        h
    }

    /// A program reading `gl_DepthRange` gets the current depth range in
    /// its default block (a new scratch version when it changed).
    fn update_depth_range(&mut self) {
        let [n, f] = self.st.depth_range;
        let Some(crate::context::ShaderOrProgram::Program(p)) =
            self.sh.shader_objects.get_mut(&self.st.program)
        else {
            return;
        };
        let Some(l) = p.linked.as_mut() else {
            return;
        };
        let Some(at) = l.depth_range_at else {
            return;
        };
        let mut changed = false;
        for (off, v) in at.into_iter().zip([n, f, f - n]) {
            let bytes = v.to_le_bytes();
            if let Some(dst) = l.scratch.get_mut(off as usize..off as usize + 4) {
                if dst != bytes {
                    dst.copy_from_slice(&bytes);
                    changed = true;
                }
            }
        }
        if changed {
            l.scratch_version += 1;
        }
    }

    /// A program reading the matrix state (`gl_ModelViewMatrix` & co.)
    /// gets its current values in its default block (a new scratch
    /// version when a value changed).
    fn update_matrices(&mut self) {
        let Some(crate::context::ShaderOrProgram::Program(p)) =
            self.sh.shader_objects.get_mut(&self.st.program)
        else {
            return;
        };
        let Some(l) = p.linked.as_mut() else {
            return;
        };
        let m = &self.st.matrices;
        if crate::gl::matrix::write_uniforms(m, &l.matrix_uniforms, &mut l.scratch) {
            l.scratch_version += 1;
        }
        l.matrix_serial = m.serial;
    }

    /// Program, default uniforms, textures and uniform buffers. Err(INVALID_OPERATION)
    /// when no usable program is bound.
    pub fn emit_program(&mut self) -> Result<(), u32> {
        self.emit_program_globals()?;
        let pname = self.st.program;
        let linked = linked_program(self.sh, pname)?;
        let cso = linked.cso;
        self.st.gs_input = linked.gs_input;
        self.st.tess_stages = linked.tess_stages;
        if self.st.ff_inputs != linked.prog.ff_inputs {
            // Which fixed-function inputs the vertex input feeds changed.
            self.st.ff_inputs = linked.prog.ff_inputs.clone();
            self.st.dirty |= crate::context::DIRTY_VERTEX;
        }
        // Textures and uniform buffers are re-resolved only when their
        // objects or bindings changed (DIRTY_RESOURCES) or when the program,
        // its sampler units or its block bindings differ from last time: a
        // uniform change alone (the common per-draw case) skips this.
        // Without DIRTY_PROGRAM nothing in the program changed since the
        // key was recorded: the vectors need no comparison.
        let same_inputs = self.st.resources_key.0 == cso
            && ((self.st.dirty & crate::context::DIRTY_PROGRAM == 0 && !self.st.verify_dry)
                || (self.st.resources_key.1 == linked.sampler_units
                    && self.st.resources_key.2 == linked.block_bindings));
        if same_inputs
            && !self.st.verify_dry
            && self.st.dirty & crate::context::DIRTY_RESOURCES == 0
        {
            return Ok(());
        }
        if !same_inputs && !self.st.verify_dry {
            self.st.resources_key = (
                cso,
                linked.sampler_units.clone(),
                linked.block_bindings.clone(),
            );
        }
        // Textures: slot b reads the unit the sampler uniform names. A
        // program without samplers, with none sent, has nothing to do here.
        let textures_clean = linked.sampler_units.is_empty()
            && !self.st.verify_dry
            && self
                .st
                .sent
                .sampler_views
                .as_ref()
                .is_some_and(|v| v.count == 0)
            && self.st.sent.samplers.as_ref().is_some_and(|s| s.count == 0);
        if !textures_clean {
            self.emit_textures(pname);
        }
        self.emit_uniform_buffers(pname);
        self.emit_storage(pname);
        Ok(())
    }

    /// Sampler views and samplers of program `pname` (linked: checked by
    /// the caller).
    fn emit_textures(&mut self, pname: u32) {
        let Some(crate::context::ShaderOrProgram::Program(prog)) =
            self.sh.shader_objects.get(&pname)
        else {
            return;
        };
        let Some(linked) = prog.linked.as_ref() else {
            return;
        };
        let units: Vec<u32> = linked.sampler_units.clone();
        let targets: Vec<u32> = sampler_targets(&linked.prog);
        let mut views = calls::SetSamplerViews {
            count: units.len().min(32) as u32,
            ..Default::default()
        };
        let mut samplers = calls::BindSamplers {
            count: views.count,
            ..Default::default()
        };
        for (slot, &unit) in units.iter().enumerate().take(32) {
            let target = targets.get(slot).copied().unwrap_or(glow::TEXTURE_2D);
            let tex_name = self.st.bound_texture(unit as usize, target);
            let Some(Some(tex)) = self.sh.textures.get(&tex_name) else {
                continue;
            };
            if !tex.created {
                continue;
            }
            let sv = calls::CreateSamplerView {
                cso: Handle::NULL,
                texture: tex.handle,
                target: tex.target,
                base_level: tex.base_level,
                max_level: tex.max_level,
                // GL_ZERO is 0, which the record reads as "identity".
                swizzle: tex.view_swizzle(!self.st.is_core()).map(|c| {
                    if c == glow::ZERO {
                        mgpipe::consts::SWIZZLE_ZERO
                    } else {
                        c
                    }
                }),
                depth_stencil_mode: tex.depth_stencil_mode,
            };
            let mut params = match self
                .st
                .sampler_units
                .get(unit as usize)
                .copied()
                .unwrap_or(0)
            {
                0 => tex.params,
                s => self.sh.samplers.get(&s).copied().unwrap_or(tex.params),
            };
            if let Some(level) = tex.level(0, tex.base_level as usize) {
                params.border = match level.legacy() {
                    Some(f) => f.storage_border(params.border),
                    None => crate::gl::textures::base_format_border(
                        level.internal_format,
                        params.border,
                    ),
                };
            }
            // GL 4.6 §8.17: an incomplete texture reads (0, 0, 0, 1); the
            // backends bind a placeholder for a unit without a view.
            if crate::gl::textures::mipmap_incomplete(tex, &params) {
                continue;
            }
            // The fixed-function program clamps GL_CLAMP coordinates under
            // LINEAR filtering itself (`fixed_function`): the border shows.
            if pname == self.st.ff.last && target != glow::TEXTURE_CUBE_MAP {
                params = crate::gl::textures::clamp_as_border(params);
            }
            let key = cso_key(&sv);
            let view = match self.st.cso.sampler_view.get(&key) {
                Some(h) => *h,
                None if self.st.verify_dry => {
                    self.st.diverged(
                        "set_sampler_views",
                        Some("no sampler-view CSO for a bound texture"),
                    );
                    Handle::NULL
                }
                None => {
                    let h = self.conn.alloc.sampler_view.alloc();
                    self.conn
                        .pipe
                        .create_sampler_view(&calls::CreateSamplerView { cso: h, ..sv });
                    self.st.cso.sampler_view.insert(key, h);
                    h
                }
            };
            views.views[slot] = view;
            samplers.samplers[slot] = self.sampler_cso(&params);
        }
        if self.st.sent.sampler_views.as_ref() != Some(&views) {
            if self.st.verify_dry {
                let field = self
                    .st
                    .sent
                    .sampler_views
                    .as_ref()
                    .and_then(|o| o.first_divergence(&views));
                self.st.diverged("set_sampler_views", field);
            } else {
                self.conn.pipe.set_sampler_views(&views);
                self.st.sent.sampler_views = Some(views);
            }
        }
        if self.st.sent.samplers.as_ref() != Some(&samplers) {
            if self.st.verify_dry {
                let field = self
                    .st
                    .sent
                    .samplers
                    .as_ref()
                    .and_then(|o| o.first_divergence(&samplers));
                self.st.diverged("bind_samplers", field);
            } else {
                self.conn.pipe.bind_samplers(&samplers);
                self.st.sent.samplers = Some(samplers);
            }
        }
    }

    /// Uniform buffers of program `pname` (linked: checked by the caller).
    fn emit_uniform_buffers(&mut self, pname: u32) {
        let Some(crate::context::ShaderOrProgram::Program(prog)) =
            self.sh.shader_objects.get(&pname)
        else {
            return;
        };
        let Some(linked) = prog.linked.as_ref() else {
            return;
        };
        if !self.st.verify_dry {
            // Every point is resolved below.
            self.st.uniform_points_dirty = 0;
        }
        // Uniform blocks: block i reads the GL binding point the program names.
        let blocks = &linked.block_bindings;
        let cb_slots = calls::SetConstantBuffers::default().buffers.len();
        let mut cb = calls::SetConstantBuffers {
            count: blocks.len().min(cb_slots) as u32,
            ..Default::default()
        };
        for (i, &bp) in blocks.iter().enumerate().take(cb_slots) {
            (cb.buffers[i], cb.offsets[i], cb.sizes[i]) = self.constant_buffer_of(bp);
        }
        if !self
            .st
            .sent
            .constant_buffers
            .as_ref()
            .is_some_and(|o| same_constant_buffers(o, &cb))
        {
            if self.st.verify_dry {
                let field = self
                    .st
                    .sent
                    .constant_buffers
                    .as_ref()
                    .and_then(|o| o.first_divergence(&cb));
                self.st.diverged("set_constant_buffers", field);
            } else {
                // One rebound range (the per-draw glBindBufferRange case) is
                // a 32-byte delta instead of the whole table.
                let delta = self
                    .st
                    .sent
                    .constant_buffers
                    .as_ref()
                    .and_then(|o| mgpipe::wire::single_constant_buffer_change(o, &cb));
                match delta {
                    Some(i) => self
                        .conn
                        .pipe
                        .set_constant_buffer(&calls::SetConstantBuffer {
                            slot: i as u32,
                            buffer: cb.buffers[i],
                            offset: cb.offsets[i],
                            size: cb.sizes[i],
                            ..Default::default()
                        }),
                    None => self.conn.pipe.set_constant_buffers(&cb),
                }
                self.st.sent.constant_buffers = Some(cb);
            }
        }
    }

    /// What uniform-buffer binding point `bp` gives a block: buffer handle,
    /// offset, size (a whole-buffer binding reads to the buffer's end; an
    /// unbound or unknown point reads nothing).
    fn constant_buffer_of(&self, bp: u32) -> (Handle, u64, u64) {
        let Some(b) = self.st.uniform_bindings.get(bp as usize) else {
            return (Handle::NULL, 0, 0);
        };
        match self.sh.buffers.get(&b.buffer) {
            Some(Some(buf)) => {
                let size = if b.size == 0 {
                    buf.size.saturating_sub(b.offset)
                } else {
                    b.size
                };
                (buf.handle, b.offset, size)
            }
            _ => (Handle::NULL, 0, 0),
        }
    }

    /// DIRTY_UNIFORM_POINTS alone: the program and every other resource are
    /// as last emitted, so only the blocks reading a re-bound point are
    /// re-resolved, each change sent as a `set_constant_buffer` delta.
    pub(crate) fn emit_uniform_points(&mut self) {
        if self.st.verify_dry || self.st.uniform_points_dirty == 0 {
            return;
        }
        let points = std::mem::take(&mut self.st.uniform_points_dirty);
        let Some(crate::context::ShaderOrProgram::Program(prog)) =
            self.sh.shader_objects.get(&self.st.program)
        else {
            return;
        };
        let Some(linked) = prog.linked.as_ref() else {
            return;
        };
        if self.st.sent.constant_buffers.is_none() {
            // Nothing emitted for this program yet: the whole table.
            let pname = self.st.program;
            return self.emit_uniform_buffers(pname);
        }
        let cb_slots = calls::SetConstantBuffers::default().buffers.len();
        for (i, &bp) in linked.block_bindings.iter().enumerate().take(cb_slots) {
            if bp >= 64 || points & (1 << bp) == 0 {
                continue;
            }
            let (buffer, offset, size) = self.constant_buffer_of(bp);
            let Some(sent) = self.st.sent.constant_buffers.as_mut() else {
                return;
            };
            if (sent.buffers[i], sent.offsets[i], sent.sizes[i]) == (buffer, offset, size) {
                continue;
            }
            let p = calls::SetConstantBuffer {
                slot: i as u32,
                buffer,
                offset,
                size,
                ..Default::default()
            };
            mgpipe::wire::apply_constant_buffer(sent, &p);
            self.conn.pipe.set_constant_buffer(&p);
        }
    }

    /// Vertex elements CSO, vertex buffers, index buffer, attribute defaults.
    pub fn emit_vertex_input(&mut self) -> Result<(), u32> {
        let vao_name = self.st.vao;
        let Some(Some(vao)) = self.st.vaos.get(&vao_name) else {
            return Err(glow::INVALID_OPERATION);
        };
        // Compatibility contexts: client-memory or fixed-function arrays,
        // or a program reading fixed-function inputs, make each draw derive
        // the vertex input (`legacy_arrays::emit_vertex_input_per_draw`).
        let per_draw = !self.st.ff_inputs.is_empty()
            || (!self.st.is_core() && crate::gl::legacy_arrays::needs_per_draw(vao));
        let (element_buffer, rev) = (vao.element_buffer, vao.rev);
        self.st.vertex_per_draw = per_draw;
        if per_draw {
            return Ok(());
        }
        // The index buffer is looked up fresh: re-binding GL_ELEMENT_ARRAY_BUFFER
        // between draws (common) must not re-derive the vertex layout.
        let ib = match self.sh.buffers.get(&element_buffer) {
            Some(Some(b)) => b.handle,
            _ => Handle::NULL,
        };
        let cso_path = self
            .conn
            .caps
            .implements(mgpipe::Opcode::BindVertexInput as u16);
        // Fast path, one record per VAO switch: the VAO's cached emission
        // already has a vertex-input CSO for this index buffer.
        if cso_path && !self.st.verify_dry {
            let hit = self
                .st
                .vao_emission
                .get(&vao_name)
                .filter(|e| e.rev == rev)
                .and_then(|e| {
                    let vi = e
                        .vertex_inputs
                        .iter()
                        .find(|v| v.0 == ib && !v.1.is_null())?;
                    Some((vi.1, e.enabled_mask))
                });
            if let Some((vi, enabled_mask)) = hit {
                self.bind_vertex_input(vi, ib);
                return self.emit_attrib_defaults(enabled_mask);
            }
        }
        // Derive the VAO's records once per revision (the dry verify pass
        // re-derives from scratch).
        let cached = match self.st.vao_emission.get(&vao_name) {
            Some(e) if e.rev == rev && !self.st.verify_dry => Some(e.clone()),
            _ => None,
        };
        let emission = match cached {
            Some(e) => e,
            None => match self.derive_vao_emission(vao_name) {
                Some(e) => e,
                None => return Ok(()),
            },
        };
        let (h, vb) = (emission.vertex_elements, emission.vertex_buffers);
        if cso_path && !self.st.verify_dry {
            let vi = self.vertex_input_cso(h, &vb, ib);
            if let Some(e) = self.st.vao_emission.get_mut(&vao_name) {
                e.vertex_inputs.rotate_right(1);
                e.vertex_inputs[0] = (ib, vi);
            }
            self.bind_vertex_input(vi, ib);
        } else if self.st.verify_dry && !self.st.sent.vertex_input.is_null() {
            // The records described the vertex input as one CSO: it must be
            // the CSO of what the tracker holds now.
            let key = cso_key(&vertex_input_payload(h, &vb, ib));
            if self.st.cso.vertex_input.get(&key) != Some(&self.st.sent.vertex_input) {
                self.st.diverged(
                    "bind_vertex_input",
                    Some("the bound vertex-input CSO is not the VAO's"),
                );
            }
        } else {
            self.emit_vertex_parts(h, vb, ib);
        }
        self.emit_attrib_defaults(emission.enabled_mask)
    }

    /// Send `bind_vertex_input` unless `vi` is bound already; `ib` is its
    /// index buffer.
    fn bind_vertex_input(&mut self, vi: Handle, ib: Handle) {
        if self.st.sent.vertex_input != vi {
            self.conn
                .pipe
                .bind_vertex_input(&calls::BindVertexInput { cso: vi });
            self.st.sent.vertex_input = vi;
            // The parts are unknown now (a later piecewise send must send
            // them all).
            self.st.sent.vertex_elements = Handle::NULL;
            self.st.sent.vertex_buffers = None;
        }
        // Draws read it (bound indices vs. client memory).
        self.st.sent.index_buffer = Some(ib);
    }

    /// The vertex-input CSO for (layout, buffers, index buffer), created on
    /// first use (content-addressed; the cache is flushed with deletes past
    /// its bound).
    fn vertex_input_cso(
        &mut self,
        elements: Handle,
        vb: &calls::SetVertexBuffers,
        ib: Handle,
    ) -> Handle {
        let p = vertex_input_payload(elements, vb, ib);
        let key = cso_key(&p);
        if let Some(h) = self.st.cso.vertex_input.get(&key) {
            return *h;
        }
        if self.st.cso.vertex_input.len() >= CSO_CACHE_LIMIT {
            for (_, h) in self.st.cso.vertex_input.drain() {
                self.conn
                    .pipe
                    .delete_vertex_input(&calls::DeleteVertexInput { cso: h });
                self.conn.alloc.vertex_elements.free(h);
            }
            for e in self.st.vao_emission.values_mut() {
                e.vertex_inputs = Default::default();
            }
            self.st.sent.vertex_input = Handle::NULL;
        }
        let h = self.conn.alloc.vertex_elements.alloc();
        self.conn
            .pipe
            .create_vertex_input(&calls::CreateVertexInput { cso: h, ..p });
        self.st.cso.vertex_input.insert(key, h);
        h
    }

    /// The three vertex records one by one (backends without vertex-input
    /// CSOs, and the dry verify pass).
    pub(crate) fn emit_vertex_parts(&mut self, h: Handle, vb: calls::SetVertexBuffers, ib: Handle) {
        if self.st.sent.vertex_elements != h {
            if self.st.verify_dry {
                self.st
                    .diverged("bind_vertex_elements", Some("vertex_elements"));
            } else {
                self.conn
                    .pipe
                    .bind_vertex_elements(&calls::BindVertexElements { cso: h });
                self.st.sent.vertex_elements = h;
            }
        }
        if self.st.sent.vertex_buffers.as_ref() != Some(&vb) {
            if self.st.verify_dry {
                let field = self
                    .st
                    .sent
                    .vertex_buffers
                    .as_ref()
                    .and_then(|o| o.first_divergence(&vb));
                self.st.diverged("set_vertex_buffers", field);
            } else {
                self.conn.pipe.set_vertex_buffers(&vb);
                self.st.sent.vertex_buffers = Some(vb);
            }
        }

        if self.st.sent.index_buffer != Some(ib) {
            if self.st.verify_dry {
                self.st.diverged("set_index_buffer", Some("index_buffer"));
            } else {
                self.conn
                    .pipe
                    .set_index_buffer(&calls::SetIndexBuffer { buffer: ib });
                self.st.sent.index_buffer = Some(ib);
            }
        }
        if !self.st.verify_dry {
            // Sent piecewise: no vertex-input CSO describes the server now.
            self.st.sent.vertex_input = Handle::NULL;
        }
    }

    /// Defaults of the disabled attributes: re-derived only when the current
    /// values changed or the enabled set differs from what was sent.
    fn emit_attrib_defaults(&mut self, enabled_mask: u32) -> Result<(), u32> {
        let mask = !enabled_mask & 0xFFFF;
        let unchanged = self.st.sent_attrib_rev == self.st.current_attrib_rev
            && self.st.sent.attrib_defaults.as_ref().map(|d| d.mask) == Some(mask);
        if unchanged && !self.st.verify_dry {
            return Ok(());
        }
        if !self.st.verify_dry {
            self.st.sent_attrib_rev = self.st.current_attrib_rev;
        }
        let mut defaults = calls::SetVertexAttribDefaults {
            mask,
            integer_mask: self.st.current_attrib_integer,
            ..Default::default()
        };
        for (i, v) in self.st.current_attrib.iter().enumerate() {
            defaults.values[i * 4..i * 4 + 4].copy_from_slice(v);
        }
        if self.st.sent.attrib_defaults.as_ref() != Some(&defaults) {
            if self.st.verify_dry {
                let field = self
                    .st
                    .sent
                    .attrib_defaults
                    .as_ref()
                    .and_then(|o| o.first_divergence(&defaults));
                self.st.diverged("set_vertex_attrib_defaults", field);
            } else {
                self.conn.pipe.set_vertex_attrib_defaults(&defaults);
                self.st.sent.attrib_defaults = Some(defaults);
            }
        }
        Ok(())
    }

    /// Compute (and create, content-addressed) the vertex elements CSO, the
    /// vertex buffer bindings and the index buffer of VAO `vao_name`; cache
    /// them under its revision.
    fn derive_vao_emission(&mut self, vao_name: u32) -> Option<crate::context::VaoEmission> {
        let Some(Some(vao)) = self.st.vaos.get(&vao_name) else {
            return None;
        };
        let rev = vao.rev;
        let mut ve = calls::CreateVertexElements::default();
        let mut vb = calls::SetVertexBuffers::default();
        for (i, a) in vao.attribs.iter().enumerate() {
            if !a.enabled {
                continue;
            }
            ve.enabled_mask |= 1 << i;
            ve.buffer_index[i] = i as u32;
            ve.format[i] = a.size
                | (a.ty << 8)
                | if a.normalized { VE_NORMALIZED } else { 0 }
                | if a.integer { VE_INTEGER } else { 0 };
            ve.offset[i] = 0;
            // Attribute i gets slot i whatever binding point it reads: the
            // binding's buffer, its offset plus the attribute's relative
            // offset, its stride and divisor (attributes sharing a binding
            // become slots with equal buffers).
            let b = vao.binding_of(a);
            ve.divisor[i] = b.divisor;
            if let Some(Some(buf)) = self.sh.buffers.get(&b.buffer) {
                vb.buffers[i] = buf.handle;
            }
            vb.offsets[i] = b.offset.saturating_add(u64::from(a.relative_offset));
            vb.strides[i] = b.stride;
        }
        // Slots up to the highest enabled attribute: backends bind and
        // compare only these.
        vb.count = (u32::BITS - ve.enabled_mask.leading_zeros()).min(16);
        let key = cso_key(&ve);
        let h = match self.st.cso.vertex_elements.get(&key) {
            Some(h) => *h,
            None if self.st.verify_dry => {
                self.st.diverged(
                    "bind_vertex_elements",
                    Some("no vertex-elements CSO for the bound VAO"),
                );
                return None;
            }
            None => {
                let h = self.conn.alloc.vertex_elements.alloc();
                self.conn
                    .pipe
                    .create_vertex_elements(&calls::CreateVertexElements { cso: h, ..ve });
                self.st.cso.vertex_elements.insert(key, h);
                h
            }
        };
        let e = crate::context::VaoEmission {
            rev,
            vertex_elements: h,
            vertex_buffers: vb,
            enabled_mask: ve.enabled_mask,
            vertex_inputs: Default::default(),
        };
        if !self.st.verify_dry {
            self.st.vao_emission.insert(vao_name, e.clone());
        }
        Some(e)
    }

    /// Everything a draw needs.
    pub fn validate_draw(&mut self, mode: u32) -> Result<(), u32> {
        crate::gl::points::note_draw_mode(self, mode);
        if self.st.program == 0 && (self.st.pipeline != 0 || self.st.ext_stages) {
            // No current program: the bound pipeline's stages
            // (`gl::pipelines`) stand in for this draw.
            let p = crate::gl::pipelines::program_for_draw(self)?;
            self.st.program = p;
            let r = self.validate_program_draw(mode);
            self.st.program = 0;
            return r;
        }
        if self.st.program == 0 && !self.st.is_core() {
            // No program in a compatibility context: the fixed-function
            // program for the current state stands in for this draw.
            let ff = crate::gl::fixed_function::program_for_draw(self)?;
            self.st.program = ff;
            let r = self.validate_program_draw(mode);
            self.st.program = 0;
            return r;
        }
        self.validate_program_draw(mode)
    }

    fn validate_program_draw(&mut self, mode: u32) -> Result<(), u32> {
        if self.st.program == 0 {
            return Err(glow::INVALID_OPERATION);
        }
        if self.st.vao == 0 && self.st.is_core() {
            return Err(glow::INVALID_OPERATION);
        }
        // GL 4.6 §13.3.1: while transform feedback is active the draw's
        // primitives must be of its primitive type.
        if self.st.xfb.active && !crate::gl::xfb::draw_mode_allowed(self, mode) {
            return Err(glow::INVALID_OPERATION);
        }
        self.emit_draw_state()?;
        // GL 4.6 §11.3.1: a geometry shader takes only the draw modes of
        // its input primitive (checked after the program was resolved,
        // which keeps `gs_input` current). Nothing reaches the backend
        // then: a topology the geometry stage does not take is undefined
        // behaviour in Vulkan.
        if let Some(input) = self.st.gs_input {
            if !gs_accepts(input, mode) {
                return Err(glow::INVALID_OPERATION);
            }
        }
        tess_accepts(self.st.tess_stages, mode)?;
        if self.st.verify {
            self.verify_draw_state();
        }
        if !self.sh.persistent.is_empty() {
            crate::gl::persistent::push_reachable(self);
        }
        Ok(())
    }

    /// Re-derive only the dirty groups (the dry verify pass re-derives all).
    fn emit_draw_state(&mut self) -> Result<(), u32> {
        use crate::context::{
            DIRTY_ALL, DIRTY_DYNAMIC, DIRTY_FRAMEBUFFER, DIRTY_PROGRAM, DIRTY_RENDER_STATE,
            DIRTY_RESOURCES, DIRTY_UNIFORMS, DIRTY_UNIFORM_POINTS, DIRTY_VERTEX,
        };
        let dirty = if self.st.verify_dry {
            DIRTY_ALL
        } else {
            self.st.dirty
        };
        if dirty & DIRTY_FRAMEBUFFER != 0 {
            self.emit_framebuffer()?;
        }
        if dirty & DIRTY_RENDER_STATE != 0 {
            self.emit_render_state();
        }
        if dirty & DIRTY_DYNAMIC != 0 {
            self.emit_dynamic();
        }
        if dirty & (DIRTY_PROGRAM | DIRTY_RESOURCES) != 0 {
            self.emit_program()?;
        } else if dirty & DIRTY_UNIFORMS != 0 {
            self.emit_program_globals()?;
        }
        // After emit_program: a full resolution there leaves no points.
        if dirty & DIRTY_UNIFORM_POINTS != 0 {
            self.emit_uniform_points();
        }
        // `emit_program` may have set DIRTY_VERTEX (fixed-function inputs).
        if (dirty | self.st.dirty) & DIRTY_VERTEX != 0 {
            self.emit_vertex_input()?;
        }
        if !self.st.verify_dry {
            self.st.dirty = 0;
        }
        Ok(())
    }

    /// MOBILEGL_PIPE_VERIFY=1: re-derive every state payload from the tracker
    /// and compare it, field by field, with what the records last described
    /// on this context; name the first divergence. Emission is skipped in
    /// this pass (dry), so a miss in dirty tracking shows up here instead of
    /// as wrong pixels.
    fn verify_draw_state(&mut self) {
        self.st.verify_dry = true;
        let _ = self.emit_draw_state();
        self.st.verify_dry = false;
        for d in std::mem::take(&mut self.st.verify_divergences) {
            self.st.verify_divergence_count += 1;
            tracing::error!("MOBILEGL_PIPE_VERIFY: state divergence at a draw: {d}");
        }
    }

    /// Everything a clear needs (framebuffer, masks, scissor).
    pub fn validate_clear(&mut self) -> Result<(), u32> {
        self.emit_framebuffer()?;
        self.emit_render_state();
        self.emit_dynamic();
        Ok(())
    }
}

/// The linked state of program `pname`: INVALID_OPERATION when it is not
/// a program or has no linked executable (no usable program is bound).
fn linked_program(
    sh: &crate::context::Shared,
    pname: u32,
) -> Result<&crate::context::LinkedState, u32> {
    match sh.shader_objects.get(&pname) {
        Some(crate::context::ShaderOrProgram::Program(prog)) => {
            prog.linked.as_ref().ok_or(glow::INVALID_OPERATION)
        }
        _ => Err(glow::INVALID_OPERATION),
    }
}

/// Whether program `pname`'s vertex shader reads gl_VertexID (false when
/// it is not a linked program).
pub(crate) fn program_reads_vertex_id(sh: &crate::context::Shared, pname: u32) -> bool {
    linked_program(sh, pname)
        .is_ok_and(|l| l.prog.attributes.iter().any(|a| a.name == "gl_VertexID"))
}

/// GL sampler target per sampler slot of a linked program.
pub(crate) fn sampler_targets(p: &crate::shader::LinkedProgram) -> Vec<u32> {
    let mut out = vec![glow::TEXTURE_2D; p.sampler_slots as usize];
    for u in &p.uniforms {
        if let Some(b) = u.sampler_binding {
            let target = sampler_type_target(u.gl_type);
            for e in 0..u.array_size.max(1) {
                if let Some(slot) = out.get_mut((b + e) as usize) {
                    *slot = target;
                }
            }
        }
    }
    out
}

/// The texture target a GLSL sampler type reads.
pub fn sampler_type_target(ty: u32) -> u32 {
    match ty {
        glow::SAMPLER_1D
        | glow::SAMPLER_1D_SHADOW
        | glow::INT_SAMPLER_1D
        | glow::UNSIGNED_INT_SAMPLER_1D => glow::TEXTURE_1D,
        glow::SAMPLER_3D | glow::INT_SAMPLER_3D | glow::UNSIGNED_INT_SAMPLER_3D => glow::TEXTURE_3D,
        glow::SAMPLER_CUBE
        | glow::SAMPLER_CUBE_SHADOW
        | glow::INT_SAMPLER_CUBE
        | glow::UNSIGNED_INT_SAMPLER_CUBE => glow::TEXTURE_CUBE_MAP,
        glow::SAMPLER_2D_ARRAY
        | glow::SAMPLER_2D_ARRAY_SHADOW
        | glow::INT_SAMPLER_2D_ARRAY
        | glow::UNSIGNED_INT_SAMPLER_2D_ARRAY => glow::TEXTURE_2D_ARRAY,
        glow::SAMPLER_1D_ARRAY
        | glow::SAMPLER_1D_ARRAY_SHADOW
        | glow::INT_SAMPLER_1D_ARRAY
        | glow::UNSIGNED_INT_SAMPLER_1D_ARRAY => glow::TEXTURE_1D_ARRAY,
        glow::SAMPLER_2D_RECT
        | glow::SAMPLER_2D_RECT_SHADOW
        | glow::INT_SAMPLER_2D_RECT
        | glow::UNSIGNED_INT_SAMPLER_2D_RECT => glow::TEXTURE_RECTANGLE,
        glow::SAMPLER_BUFFER | glow::INT_SAMPLER_BUFFER | glow::UNSIGNED_INT_SAMPLER_BUFFER => {
            glow::TEXTURE_BUFFER
        }
        glow::SAMPLER_2D_MULTISAMPLE
        | glow::INT_SAMPLER_2D_MULTISAMPLE
        | glow::UNSIGNED_INT_SAMPLER_2D_MULTISAMPLE => glow::TEXTURE_2D_MULTISAMPLE,
        glow::SAMPLER_2D_MULTISAMPLE_ARRAY
        | glow::INT_SAMPLER_2D_MULTISAMPLE_ARRAY
        | glow::UNSIGNED_INT_SAMPLER_2D_MULTISAMPLE_ARRAY => glow::TEXTURE_2D_MULTISAMPLE_ARRAY,
        glow::SAMPLER_CUBE_MAP_ARRAY
        | glow::SAMPLER_CUBE_MAP_ARRAY_SHADOW
        | glow::INT_SAMPLER_CUBE_MAP_ARRAY
        | glow::UNSIGNED_INT_SAMPLER_CUBE_MAP_ARRAY => glow::TEXTURE_CUBE_MAP_ARRAY,
        _ => glow::TEXTURE_2D,
    }
}

/// Size in bytes of one component of a vertex attribute type.
pub fn type_size(ty: u32) -> u32 {
    match ty {
        glow::BYTE | glow::UNSIGNED_BYTE => 1,
        glow::SHORT | glow::UNSIGNED_SHORT | glow::HALF_FLOAT => 2,
        glow::DOUBLE => 8,
        glow::INT_2_10_10_10_REV
        | glow::UNSIGNED_INT_2_10_10_10_REV
        | glow::UNSIGNED_INT_10F_11F_11F_REV => 1,
        _ => 4,
    }
}

/// Whether a geometry shader whose input primitive is `input` takes draw
/// mode `mode` (GL 4.6 table 11.1).
pub fn gs_accepts(input: u32, mode: u32) -> bool {
    match input {
        glow::POINTS => mode == glow::POINTS,
        glow::LINES => matches!(mode, glow::LINES | glow::LINE_STRIP | glow::LINE_LOOP),
        glow::LINES_ADJACENCY => {
            matches!(mode, glow::LINES_ADJACENCY | glow::LINE_STRIP_ADJACENCY)
        }
        glow::TRIANGLES => matches!(
            mode,
            glow::TRIANGLES | glow::TRIANGLE_STRIP | glow::TRIANGLE_FAN
        ),
        glow::TRIANGLES_ADJACENCY => matches!(
            mode,
            glow::TRIANGLES_ADJACENCY | glow::TRIANGLE_STRIP_ADJACENCY
        ),
        _ => true,
    }
}

/// GL 4.6 §10.1.15 / §11.2: a program with a tessellation stage
/// (`tess_stages` bit 0 control, bit 1 evaluation) draws GL_PATCHES
/// only, and GL_PATCHES needs an evaluation stage to consume the
/// patches; otherwise GL_INVALID_OPERATION.
pub(crate) fn tess_accepts(tess_stages: u8, mode: u32) -> Result<(), u32> {
    let patches = mode == glow::PATCHES;
    if (tess_stages != 0 && !patches) || (patches && tess_stages & 2 == 0) {
        return Err(glow::INVALID_OPERATION);
    }
    Ok(())
}
