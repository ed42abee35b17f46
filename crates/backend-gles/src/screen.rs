//! `mgpipe::Screen`: the share group (caps, contexts, surfaces, resources,
//! fences).

use glow::HasContext;
use mgpipe::consts::{
    FENCE_STATUS_SIGNALED, FENCE_STATUS_TIMEOUT, RESOURCE_BUFFER, RESOURCE_RENDERBUFFER,
    RESOURCE_TEXTURE,
};
use mgpipe::{Caps, Handle};
use tracing::{debug, warn};

use crate::emulation;
use crate::pipe::{calls, Screen};
use crate::{Ctx, GlesBackend, ResKind, Resource, StreamBuf, SurfaceEntry, TexParams, TexStorage};

/// Number of calls this backend implements (all of the catalogue).
pub(crate) const IMPLEMENTED_CALLS: usize = mgpipe::CALL_COUNT;

/// Largest buffer the backend will allocate from one call (GLES sizes are i32).
pub(crate) const MAX_BUFFER: u64 = i32::MAX as u64;

impl GlesBackend {
    /// Delete a resource's GL object and scrub every context's shadow.
    fn delete_resource(&mut self, r: Resource) {
        debug!(gl_name = r.gl_name, "resource deleted");
        // SAFETY: objects of this share group, deleted on a current context.
        unsafe {
            match r.kind {
                ResKind::Buffer { buf, .. } => {
                    self.gl.delete_buffer(buf);
                    // A cached VAO may name it (and its GL name may be reused).
                    self.drop_cached_vaos();
                }
                ResKind::Texture { tex, .. } => self.gl.delete_texture(tex),
                ResKind::Renderbuffer { rb, .. } => self.gl.delete_renderbuffer(rb),
            }
        }
        self.forget_objects();
    }

    /// A deleted GL name may be reused: every shadow forgets object bindings.
    pub(crate) fn forget_objects(&mut self) {
        for c in self.ctxs.values_mut() {
            c.shadow.forget_all_objects();
        }
        self.root_shadow.forget_all_objects();
    }

    fn fill_caps(&self) -> Caps {
        let gl = &self.gl;
        let mut c = Caps::minimum();
        c.backend_kind = mgpipe::caps::BACKEND_GLES;
        // Emulation: doubles lowered to uint bit patterns (fp64.rs).
        c.features |= mgpipe::caps::CAPS_FEATURE_FLOAT64 | mgpipe::caps::CAPS_FEATURE_VERTEX_64;
        // GLES 3.2: glMinSampleShading and glBlendFuncSeparatei are core.
        let v = gl.version();
        if (v.major, v.minor) >= (3, 2) {
            c.features |= mgpipe::caps::CAPS_FEATURE_SAMPLE_SHADING
                | mgpipe::caps::CAPS_FEATURE_BLEND_PER_BUFFER;
            // GLES 3.2: tessellation stages are core (set_patch_state).
            c.features |= mgpipe::caps::CAPS_FEATURE_TESSELLATION;
        }
        if gl.supported_extensions().contains("GL_EXT_clip_control") {
            c.features |= mgpipe::caps::CAPS_FEATURE_CLIP_CONTROL;
        }
        // GLES 3.0 has UNPACK_ROW_LENGTH: strided rows go to the driver as
        // they are (`texture_subimage`).
        c.features |= mgpipe::caps::CAPS_FEATURE_STRIDED_UPLOAD;
        // Base-instance draws are emulated with gl_InstanceID from 0.
        c.features |= mgpipe::caps::CAPS_FEATURE_BASE_INSTANCE;
        // SAFETY: plain queries on the current context.
        unsafe {
            let u = |e: u32| gl.get_parameter_i32(e).max(0) as u32;
            c.max_texture_size = u(glow::MAX_TEXTURE_SIZE);
            c.max_3d_texture_size = u(glow::MAX_3D_TEXTURE_SIZE);
            c.max_array_texture_layers = u(glow::MAX_ARRAY_TEXTURE_LAYERS);
            c.max_cube_map_texture_size = u(glow::MAX_CUBE_MAP_TEXTURE_SIZE);
            c.max_renderbuffer_size = u(glow::MAX_RENDERBUFFER_SIZE);
            c.max_draw_buffers = u(glow::MAX_DRAW_BUFFERS).min(8);
            c.max_color_attachments = u(glow::MAX_COLOR_ATTACHMENTS).min(8);
            c.max_samples = u(glow::MAX_SAMPLES);
            c.sample_counts = sample_counts(gl);
            c.max_vertex_attribs = u(glow::MAX_VERTEX_ATTRIBS).min(16);
            c.max_texture_image_units = u(glow::MAX_TEXTURE_IMAGE_UNITS).min(32);
            c.max_combined_texture_image_units = u(glow::MAX_COMBINED_TEXTURE_IMAGE_UNITS);
            c.max_vertex_texture_image_units = u(glow::MAX_VERTEX_TEXTURE_IMAGE_UNITS);
            c.max_uniform_buffer_bindings = u(glow::MAX_UNIFORM_BUFFER_BINDINGS);
            c.max_uniform_block_size = u(glow::MAX_UNIFORM_BLOCK_SIZE);
            c.uniform_buffer_offset_alignment = u(glow::UNIFORM_BUFFER_OFFSET_ALIGNMENT).max(1);
            c.max_vertex_uniform_components = u(glow::MAX_VERTEX_UNIFORM_COMPONENTS);
            c.max_fragment_uniform_components = u(glow::MAX_FRAGMENT_UNIFORM_COMPONENTS);
            c.max_varying_components = u(glow::MAX_VARYING_COMPONENTS);
            let mut dims = [0i32; 2];
            gl.get_parameter_i32_slice(glow::MAX_VIEWPORT_DIMS, &mut dims);
            c.max_viewport_dims = [dims[0].max(0) as u32, dims[1].max(0) as u32];
            // GLES has no sampler LOD bias (see emulation.rs): report the GL
            // 3.3 minimum, the bias itself is ignored.
            c.max_texture_lod_bias = 2.0;
            c.max_texture_max_anisotropy = if self.features.anisotropy {
                gl.get_parameter_f32(glow::MAX_TEXTURE_MAX_ANISOTROPY_EXT)
            } else {
                1.0
            };
            let mut r = [0f32; 2];
            gl.get_parameter_f32_slice(glow::ALIASED_LINE_WIDTH_RANGE, &mut r);
            c.aliased_line_width_range = r;
            gl.get_parameter_f32_slice(glow::ALIASED_POINT_SIZE_RANGE, &mut r);
            c.point_size_range = r;
            c.max_elements_vertices = u(glow::MAX_ELEMENTS_VERTICES);
            c.max_elements_indices = u(glow::MAX_ELEMENTS_INDICES);
            // Compute, images and storage buffers are GLES 3.1 (0 before).
            if self.features.gles31 {
                for i in 0..3 {
                    let at = |e: u32| gl.get_parameter_indexed_i32(e, i as u32).max(0) as u32;
                    c.max_compute_work_group_count[i] = at(glow::MAX_COMPUTE_WORK_GROUP_COUNT);
                    c.max_compute_work_group_size[i] = at(glow::MAX_COMPUTE_WORK_GROUP_SIZE);
                }
                c.max_compute_work_group_invocations = u(glow::MAX_COMPUTE_WORK_GROUP_INVOCATIONS);
                c.max_compute_shared_memory_size = u(glow::MAX_COMPUTE_SHARED_MEMORY_SIZE);
                c.max_image_units = u(glow::MAX_IMAGE_UNITS).min(8);
                c.max_shader_storage_buffer_bindings =
                    u(glow::MAX_SHADER_STORAGE_BUFFER_BINDINGS).min(16);
                c.max_shader_storage_block_size = u(glow::MAX_SHADER_STORAGE_BLOCK_SIZE);
                c.shader_storage_buffer_offset_alignment =
                    u(glow::SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT).max(1);
                // GLES 3.1 allows 0 storage blocks before the fragment
                // stage; advertise them only where the driver has as many
                // as it has bindings (geometry shaders are GLES 3.2).
                let bindings = c.max_shader_storage_buffer_bindings;
                let geometry_ok = !self.features.gles32
                    || u(glow::MAX_GEOMETRY_SHADER_STORAGE_BLOCKS) >= bindings;
                if bindings > 0
                    && u(glow::MAX_VERTEX_SHADER_STORAGE_BLOCKS) >= bindings
                    && geometry_ok
                {
                    c.features |= mgpipe::caps::CAPS_FEATURE_VERTEX_STORAGE;
                }
            } else {
                c.max_compute_work_group_count = [0; 3];
                c.max_compute_work_group_size = [0; 3];
                c.max_compute_work_group_invocations = 0;
                c.max_compute_shared_memory_size = 0;
                c.max_image_units = 0;
                c.max_shader_storage_buffer_bindings = 0;
                c.max_shader_storage_block_size = 0;
                c.shader_storage_buffer_offset_alignment = 1;
            }
            Caps::put_str(
                &mut c.driver_renderer,
                &gl.get_parameter_string(glow::RENDERER),
            );
            Caps::put_str(
                &mut c.driver_version,
                &gl.get_parameter_string(glow::VERSION),
            );
        }
        c.call_mask = [0, 0];
        for i in 0..IMPLEMENTED_CALLS.min(128) {
            c.call_mask[i / 64] |= 1u64 << (i % 64);
        }
        // Buffer textures need GLES 3.2's glTexBuffer/glTexBufferRange.
        let fns = self.features.fns;
        if fns.tex_buffer.is_none() || fns.tex_buffer_range.is_none() {
            let i = mgpipe::Opcode::TextureBuffer as usize;
            c.call_mask[i / 64] &= !(1u64 << (i % 64));
        }
        c
    }

    /// Make `ctx`'s native context current (or the root's).
    pub(crate) fn make_native_current(&self, ctx: Option<Handle>) -> bool {
        let native = ctx
            .and_then(|h| self.ctxs.get(h))
            .map(|c| c.egl)
            .unwrap_or(self.egl.root);
        match self.egl.make_current(native) {
            Ok(()) => {
                self.thread.set(Some(std::thread::current().id()));
                true
            }
            Err(e) => {
                warn!(?ctx, "eglMakeCurrent failed: {e}");
                false
            }
        }
    }

    /// Before the native context changes: the stream segment the current
    /// one drew from is fenced in it (uniform_stream.rs).
    fn retire_uniform_stream(&mut self) {
        if self.current.is_some() {
            self.prepare();
            if let Some(s) = self.scr.uniform_stream.as_mut() {
                s.retire(&self.gl);
            }
        }
    }

    fn destroy_ctx(&mut self, h: Handle, c: Ctx) {
        // Delete its container objects with it current, then go back.
        if self.egl.make_current(c.egl).is_ok() {
            if self.current.is_some_and(|cur| cur.slot == h.slot) {
                // Its draws may still read the stream: fence them in it.
                if let Some(s) = self.scr.uniform_stream.as_mut() {
                    s.retire(&self.gl);
                }
            }
            let gl = &self.gl;
            // SAFETY: these objects belong to `c`'s native context, now current.
            unsafe {
                for f in c.fbos.into_values() {
                    gl.delete_framebuffer(f.fbo);
                }
                for f in c.surface_fbos.into_values() {
                    gl.delete_framebuffer(f);
                }
                if let Some(f) = c.read_fbo {
                    gl.delete_framebuffer(f);
                }
                if let Some(v) = c.vao {
                    gl.delete_vertex_array(v);
                }
                for v in c.vaos.entries.into_values().map(|e| e.vao) {
                    gl.delete_vertex_array(v);
                }
                if let Some(b) = c.stream.buf {
                    gl.delete_buffer(b);
                }
            }
        }
        if self.current.is_some_and(|c| c.slot == h.slot) {
            self.current = None;
        }
        self.make_native_current(self.current);
        self.egl.destroy_context(c.egl);
    }

    fn new_renderbuffer(
        &self,
        internal: u32,
        samples: u32,
        w: u32,
        h: u32,
    ) -> Option<glow::Renderbuffer> {
        let gl = &self.gl;
        // SAFETY: object creation and storage on the current context.
        unsafe {
            let rb = gl.create_renderbuffer().ok()?;
            gl.bind_renderbuffer(glow::RENDERBUFFER, Some(rb));
            if samples > 1 {
                gl.renderbuffer_storage_multisample(
                    glow::RENDERBUFFER,
                    samples as i32,
                    internal,
                    w as i32,
                    h as i32,
                );
            } else {
                gl.renderbuffer_storage(glow::RENDERBUFFER, internal, w as i32, h as i32);
            }
            gl.bind_renderbuffer(glow::RENDERBUFFER, None);
            Some(rb)
        }
    }
}

impl GlesBackend {
    /// The GPU wrote `[offset, offset+len)` of `res`: if a client persistent
    /// map covers it, queue the bytes (or a pull request) for the client.
    pub(crate) fn report_gpu_write(&mut self, res: Handle, offset: u64, len: u64) {
        let maps = std::mem::take(&mut self.persistent);
        let mut events = std::mem::take(&mut self.events);
        mgpipe::event::report_gpu_write(&maps, &mut events, res, offset, len, |at, n| {
            let mut bytes = Vec::new();
            mgpipe::Context::buffer_readback(
                self,
                &calls::BufferReadback {
                    res,
                    offset: at,
                    size: n,
                },
                &mut bytes,
            );
            (bytes.len() as u64 == n).then_some(bytes)
        });
        self.persistent = maps;
        self.events = events;
    }
}

impl GlesBackend {
    /// Queue a completion for every pending fence that has signalled (a
    /// zero-timeout glClientWaitSync each; nothing when none is pending).
    fn poll_fences(&mut self) {
        if self.pending_fences.is_empty() {
            return;
        }
        self.prepare();
        let mut i = 0;
        while i < self.pending_fences.len() {
            let h = self.pending_fences[i];
            let done = match self.scr.fences.get(h) {
                // SAFETY: a live sync object of this share group; zero timeout.
                Some(&f) => matches!(
                    unsafe { self.gl.client_wait_sync(f, 0, 0) },
                    glow::ALREADY_SIGNALED | glow::CONDITION_SATISFIED
                ),
                None => {
                    self.pending_fences.swap_remove(i);
                    continue;
                }
            };
            if done {
                self.pending_fences.swap_remove(i);
                self.events
                    .push(mgpipe::event::Event::FenceSignaled { fence: h });
            } else {
                i += 1;
            }
        }
    }
}

impl Screen for GlesBackend {
    fn drain_events(&mut self, out: &mut Vec<mgpipe::event::Event>) {
        self.poll_fences();
        self.events.drain_into(out);
    }

    /// Tier 2 (the client keeps the bytes); we report GPU writes into the
    /// range while the map lives.
    fn map_persistent(&mut self, p: &calls::MapPersistent, reply: &mut Vec<u8>) {
        self.persistent.insert(p.res, p.offset, p.length);
        reply.clear();
        reply.extend_from_slice(bytemuck::bytes_of(&mgpipe::wire::MapPersistentReply {
            tier: mgpipe::consts::ADOPT_TIER_CLIENT_PUSH,
            flags: mgpipe::consts::MAP_PERSISTENT_REPORTS_GPU_WRITES,
        }));
    }

    fn unmap_persistent(&mut self, p: &calls::UnmapPersistent) {
        self.persistent.remove(p.res);
    }

    fn get_caps(&mut self, _p: &calls::GetCaps, reply: &mut Vec<u8>) {
        self.prepare();
        let caps = self.fill_caps();
        reply.clear();
        reply.extend_from_slice(bytemuck::bytes_of(&caps));
        self.check("get_caps");
    }

    fn context_create(&mut self, p: &calls::ContextCreate) {
        self.prepare();
        if p.ctx.is_null() || p.ctx.slot >= crate::table::MAX_SLOT {
            warn!(ctx = ?p.ctx, "context_create: invalid handle, skipped");
            return;
        }
        if !p.share.is_null() && self.ctxs.get(p.share).is_none() {
            warn!(share = ?p.share, "context_create: unknown share context (all contexts share one group anyway)");
        }
        if p.flags != 0 {
            debug!(
                flags = p.flags,
                "context_create: debug/robust flags are not forwarded to the native context"
            );
        }
        let native = match self.egl.create_context() {
            Ok(c) => c,
            Err(e) => {
                warn!(ctx = ?p.ctx, "context_create failed: {e}");
                return;
            }
        };
        if let Err(e) = self.egl.make_current(native) {
            warn!(ctx = ?p.ctx, "context_create: cannot make the new context current: {e}");
            self.egl.destroy_context(native);
            self.make_native_current(self.current);
            return;
        }
        let gl = &self.gl;
        // SAFETY: `native` is current; per-context defaults set once.
        let vao = unsafe {
            let vao = gl.create_vertex_array().ok();
            gl.bind_vertex_array(vao);
            gl.pixel_store_i32(glow::UNPACK_ALIGNMENT, 1);
            gl.pixel_store_i32(glow::PACK_ALIGNMENT, 1);
            vao
        };
        let ctx = Ctx {
            egl: native,
            vao,
            draw_surface: Handle::NULL,
            read_surface: Handle::NULL,
            shadow: Default::default(),
            fbos: Default::default(),
            surface_fbos: Default::default(),
            draw_default: true,
            fbo_written: false,
            draw_fbo: Handle::DEFAULT_FRAMEBUFFER,
            read_default: true,
            read_fbo: None,
            read_desc: None,
            read_stale: false,
            render_state: Handle::NULL,
            vertex_elements: Handle::NULL,
            shader: Handle::NULL,
            f64_inputs: Vec::new(),
            vbufs: Default::default(),
            layout: None,
            vaos: Default::default(),
            index_buffer: Handle::NULL,
            attrib_defaults: Default::default(),
            attrib_values_done: 0,
            views: Default::default(),
            samplers: Default::default(),
            cbufs: Default::default(),
            sbufs: Default::default(),
            images: Default::default(),
            viewport: Default::default(),
            stream: StreamBuf::default(),
            xfb: Default::default(),
        };
        match self.ctxs.insert(p.ctx, ctx) {
            Ok(Some(old)) => {
                warn!(ctx = ?p.ctx, "context_create: slot reused without context_destroy; old context destroyed");
                // destroy_ctx restores the current context afterwards.
                self.destroy_ctx(p.ctx, old);
            }
            Ok(None) => {}
            Err(c) => self.egl.destroy_context(c.egl),
        }
        self.make_native_current(self.current);
        self.check("context_create");
    }

    fn context_destroy(&mut self, p: &calls::ContextDestroy) {
        self.prepare();
        match self.ctxs.remove(p.ctx) {
            Some(c) => self.destroy_ctx(p.ctx, c),
            None => warn!(ctx = ?p.ctx, "context_destroy: unknown context, skipped"),
        }
    }

    fn surface_create(&mut self, p: &calls::SurfaceCreate) {
        self.prepare();
        let max = self.fill_max_rb();
        if p.width == 0 || p.height == 0 || p.width > max || p.height > max {
            warn!(surface = ?p.surface, w = p.width, h = p.height, "surface_create: bad size, skipped");
            return;
        }
        let norm16 = self.features.norm16;
        let color_internal = if p.color_format == 0 {
            0
        } else {
            emulation::storage_format(p.color_format, norm16).internal
        };
        let ds_internal = if p.depth_stencil_format == 0 {
            0
        } else {
            emulation::storage_format(p.depth_stencil_format, norm16).internal
        };
        let color = if color_internal != 0 {
            self.new_renderbuffer(color_internal, p.samples, p.width, p.height)
        } else {
            None
        };
        let depth_stencil = if ds_internal != 0 {
            self.new_renderbuffer(ds_internal, p.samples, p.width, p.height)
        } else {
            None
        };
        let s = SurfaceEntry {
            width: p.width,
            height: p.height,
            color,
            color_internal,
            depth_stencil,
            ds_internal,
            samples: p.samples,
        };
        match self.scr.surfaces.insert(p.surface, s) {
            Ok(Some(old)) => self.delete_surface(old),
            Ok(None) => {}
            Err(s) => {
                warn!(surface = ?p.surface, "surface_create: invalid handle, skipped");
                self.delete_surface(s);
            }
        }
        self.check("surface_create");
    }

    fn surface_destroy(&mut self, p: &calls::SurfaceDestroy) {
        self.prepare();
        match self.scr.surfaces.remove(p.surface) {
            Some(s) => self.delete_surface(s),
            None => warn!(surface = ?p.surface, "surface_destroy: unknown surface, skipped"),
        }
        self.check("surface_destroy");
    }

    fn make_current(&mut self, p: &calls::MakeCurrent) {
        if p.ctx.is_null() {
            self.retire_uniform_stream();
            self.current = None;
            self.make_native_current(None);
            return;
        }
        if self.ctxs.get(p.ctx).is_none() {
            warn!(ctx = ?p.ctx, "make_current: unknown context, skipped");
            return;
        }
        if self.current != Some(p.ctx) {
            self.retire_uniform_stream();
        }
        if !self.make_native_current(Some(p.ctx)) {
            return;
        }
        self.current = Some(p.ctx);
        for s in [p.draw, p.read] {
            if !s.is_null() && self.scr.surfaces.get(s).is_none() {
                warn!(surface = ?s, "make_current: unknown surface");
            }
        }
        if let Some(c) = self.ctxs.get_mut(p.ctx) {
            c.draw_surface = p.draw;
            c.read_surface = p.read;
        }
        // The default framebuffer now means the new surfaces.
        self.rebind_default_framebuffers();
        self.check("make_current");
    }

    fn resource_create(&mut self, p: &calls::ResourceCreate, blob: &[u8]) {
        self.prepare();
        let gl = &self.gl;
        let kind = match p.kind {
            RESOURCE_BUFFER => {
                if p.size > MAX_BUFFER {
                    warn!(res = ?p.res, size = p.size, "resource_create: buffer too large for GLES, skipped");
                    return;
                }
                // SAFETY: object creation/storage on the current context;
                // the blob slice outlives the call.
                unsafe {
                    let Ok(buf) = gl.create_buffer() else {
                        warn!(res = ?p.res, "resource_create: glGenBuffers failed");
                        return;
                    };
                    gl.bind_buffer(glow::COPY_WRITE_BUFFER, Some(buf));
                    let usage = emulation::buffer_usage(p.usage);
                    let size = p.size as usize;
                    if blob.len() >= size && size > 0 {
                        gl.buffer_data_u8_slice(glow::COPY_WRITE_BUFFER, &blob[..size], usage);
                    } else {
                        gl.buffer_data_size(glow::COPY_WRITE_BUFFER, size as i32, usage);
                        if !blob.is_empty() {
                            warn!(res = ?p.res, blob = blob.len(), size, "resource_create: blob shorter than size, uploaded what came");
                            gl.buffer_sub_data_u8_slice(
                                glow::COPY_WRITE_BUFFER,
                                0,
                                &blob[..blob.len().min(size)],
                            );
                        }
                    }
                    gl.bind_buffer(glow::COPY_WRITE_BUFFER, None);
                    ResKind::Buffer { buf, size: p.size }
                }
            }
            RESOURCE_TEXTURE => {
                // SAFETY: object creation on the current context.
                let Ok(tex) = (unsafe { gl.create_texture() }) else {
                    warn!(res = ?p.res, "resource_create: glGenTextures failed");
                    return;
                };
                let target = if p.target == 0 {
                    0
                } else {
                    emulation::binding_target(p.target).unwrap_or(0)
                };
                if p.target != 0 && target == 0 {
                    warn!(res = ?p.res, target = p.target, "resource_create: texture target has no GLES equivalent");
                }
                ResKind::Texture {
                    tex,
                    target,
                    internal: 0,
                    alpha_one: false,
                    samples: p.samples,
                    params: TexParams::default(),
                    storage: TexStorage::Mutable,
                }
            }
            RESOURCE_RENDERBUFFER => {
                let max = self.fill_max_rb();
                if p.width == 0 || p.height == 0 || p.width > max || p.height > max {
                    warn!(res = ?p.res, w = p.width, h = p.height, "resource_create: bad renderbuffer size, skipped");
                    return;
                }
                let sf = emulation::storage_format(p.internal_format, self.features.norm16);
                if let Some(why) = sf.emulation {
                    debug!(res = ?p.res, format = p.internal_format, why, "renderbuffer format emulated");
                }
                let Some(rb) = self.new_renderbuffer(sf.internal, p.samples, p.width, p.height)
                else {
                    warn!(res = ?p.res, "resource_create: glGenRenderbuffers failed");
                    return;
                };
                ResKind::Renderbuffer {
                    rb,
                    internal: sf.internal,
                    alpha_one: sf.alpha_one,
                    samples: p.samples,
                }
            }
            k => {
                warn!(res = ?p.res, kind = k, "resource_create: unknown resource kind, skipped");
                return;
            }
        };
        // A texture object exists only after its first bind: make it now when
        // the target is known, so it can be attached before any image.
        let first_bind = match &kind {
            ResKind::Texture { tex, target, .. } if *target != 0 => Some((*target, *tex)),
            _ => None,
        };
        let r = Resource {
            kind,
            gl_name: p.gl_name,
        };
        match self.scr.resources.insert(p.res, r) {
            Ok(Some(old)) => {
                warn!(res = ?p.res, "resource_create: slot reused without resource_destroy");
                self.delete_resource(old);
            }
            Ok(None) => {}
            Err(r) => {
                warn!(res = ?p.res, "resource_create: invalid handle, skipped");
                self.delete_resource(r);
            }
        }
        if let Some((target, tex)) = first_bind {
            if self.scr.resources.get(p.res).is_some() {
                let shadow = match self.current.and_then(|h| self.ctxs.get_mut(h)) {
                    Some(c) => &mut c.shadow,
                    None => &mut self.root_shadow,
                };
                shadow.bind_texture(&self.gl, target, Some(tex));
            }
        }
        self.check_alloc(mgpipe::Opcode::ResourceCreate);
    }

    fn resource_destroy(&mut self, p: &calls::ResourceDestroy) {
        self.prepare();
        self.persistent.remove(p.res);
        match self.scr.resources.remove(p.res) {
            Some(r) => self.delete_resource(r),
            None => warn!(res = ?p.res, "resource_destroy: unknown resource, skipped"),
        }
        self.check("resource_destroy");
    }

    fn fence_wait(&mut self, p: &calls::FenceWait, reply: &mut Vec<u8>) {
        self.prepare();
        reply.clear();
        let Some(&fence) = self.scr.fences.get(p.fence) else {
            // Unknown: nothing to wait for (answering TIMEOUT could hang a client loop).
            warn!(fence = ?p.fence, "fence_wait: unknown fence, answered signaled");
            reply.extend_from_slice(&FENCE_STATUS_SIGNALED.to_le_bytes());
            return;
        };
        let flags = glow::SYNC_FLUSH_COMMANDS_BIT;
        let mut remaining = p.timeout_ns;
        let status = loop {
            let chunk = remaining.min(i32::MAX as u64);
            // SAFETY: `fence` is a live sync object of this share group.
            let r = unsafe { self.gl.client_wait_sync(fence, flags, chunk as i32) };
            match r {
                glow::ALREADY_SIGNALED | glow::CONDITION_SATISFIED => break FENCE_STATUS_SIGNALED,
                glow::TIMEOUT_EXPIRED if remaining > chunk => remaining -= chunk,
                glow::TIMEOUT_EXPIRED => break FENCE_STATUS_TIMEOUT,
                other => {
                    warn!(fence = ?p.fence, "glClientWaitSync failed (0x{other:04X}), answered signaled");
                    break FENCE_STATUS_SIGNALED;
                }
            }
        };
        reply.extend_from_slice(&status.to_le_bytes());
        self.check("fence_wait");
    }

    fn query_destroy(&mut self, p: &calls::QueryDestroy) {
        self.q_destroy(p);
    }

    fn fence_destroy(&mut self, p: &calls::FenceDestroy) {
        self.prepare();
        match self.scr.fences.remove(p.fence) {
            // SAFETY: a live sync object of this share group.
            Some(f) => unsafe { self.gl.delete_sync(f) },
            None => warn!(fence = ?p.fence, "fence_destroy: unknown fence, skipped"),
        }
        self.check("fence_destroy");
    }
}

impl GlesBackend {
    fn fill_max_rb(&self) -> u32 {
        // SAFETY: plain query on the current context.
        unsafe {
            self.gl
                .get_parameter_i32(glow::MAX_RENDERBUFFER_SIZE)
                .max(1) as u32
        }
    }

    fn delete_surface(&mut self, s: SurfaceEntry) {
        debug!(w = s.width, h = s.height, "surface deleted");
        // SAFETY: renderbuffers of this share group.
        unsafe {
            if let Some(rb) = s.color {
                self.gl.delete_renderbuffer(rb);
            }
            if let Some(rb) = s.depth_stencil {
                self.gl.delete_renderbuffer(rb);
            }
        }
        self.forget_objects();
    }
}

/// `Caps::sample_counts` from the driver's renderbuffer sample counts
/// (GL_SAMPLES of GLES 3.0's glGetInternalformativ) of a colour and a
/// depth/stencil format: the counts both can be made with, and 1.
///
/// # Safety
/// `gl` is current on this thread.
unsafe fn sample_counts(gl: &glow::Context) -> u32 {
    let mut mask = u32::MAX;
    for f in [glow::RGBA8, glow::DEPTH24_STENCIL8] {
        let mut n = [0i32];
        // SAFETY: GL_NUM_SAMPLE_COUNTS answers one integer.
        unsafe {
            gl.get_internal_format_i32_slice(glow::RENDERBUFFER, f, glow::NUM_SAMPLE_COUNTS, &mut n)
        };
        let mut counts = vec![0i32; n[0].clamp(0, 32) as usize];
        if !counts.is_empty() {
            // SAFETY: GL_SAMPLES answers GL_NUM_SAMPLE_COUNTS integers,
            // the length of `counts`.
            unsafe {
                gl.get_internal_format_i32_slice(glow::RENDERBUFFER, f, glow::SAMPLES, &mut counts)
            };
        }
        let m = counts
            .iter()
            .filter(|&&c| c > 0 && (c as u32).is_power_of_two() && c <= 1 << 30)
            .fold(0u32, |m, &c| m | c as u32);
        mask &= m;
    }
    // A count c (a power of two) is bit log2(c): the mask is their OR.
    mask | 1
}
