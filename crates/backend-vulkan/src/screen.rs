//! `mgpipe::Screen`: the share group (caps, contexts, surfaces, resources,
//! fences).

use ash::vk;
use mgpipe::calls;
use mgpipe::consts::{
    FENCE_STATUS_SIGNALED, FENCE_STATUS_TIMEOUT, RESOURCE_BUFFER, RESOURCE_RENDERBUFFER,
    RESOURCE_TEXTURE,
};
use mgpipe::{Caps, Handle, Screen};
use tracing::{debug, warn};

use crate::emulation::{self, gl};
use crate::resource;
use crate::table::MAX_SLOT;
use crate::{Ctx, ImageRes, ResKind, Resource, SurfaceEntry, VkError, VulkanBackend};

/// Largest buffer one call may allocate (a corrupt size must not exhaust memory).
pub(crate) const MAX_BUFFER: u64 = 1 << 31;

/// GL's default render state (what a null render-state CSO means).
pub(crate) fn default_render_state() -> calls::CreateRenderState {
    calls::CreateRenderState {
        blend_src_rgb: gl::ONE,
        blend_dst_rgb: gl::ZERO,
        blend_src_alpha: gl::ONE,
        blend_dst_alpha: gl::ZERO,
        blend_eq_rgb: gl::FUNC_ADD,
        blend_eq_alpha: gl::FUNC_ADD,
        color_write_mask: u32::MAX,
        depth_write: 1,
        depth_func: gl::LESS,
        stencil_func: [gl::ALWAYS; 2],
        stencil_value_mask: [u32::MAX; 2],
        stencil_write_mask: [u32::MAX; 2],
        stencil_fail: [gl::KEEP; 2],
        stencil_zfail: [gl::KEEP; 2],
        stencil_zpass: [gl::KEEP; 2],
        cull_face: gl::BACK,
        front_face: gl::CCW,
        dither: 1,
        ..Default::default()
    }
}

fn new_ctx() -> Ctx {
    Ctx {
        draw_surface: Handle::NULL,
        read_surface: Handle::NULL,
        fb: None,
        read: None,
        render_state: default_render_state(),
        vertex_elements: Handle::NULL,
        shader: Handle::NULL,
        vbufs: Default::default(),
        index_buffer: Handle::NULL,
        attrib_defaults: Default::default(),
        views: Default::default(),
        samplers: Default::default(),
        cbufs: Default::default(),
        sbufs: Default::default(),
        images: Default::default(),
        viewport: Default::default(),
        scissor: Default::default(),
        blend_color: [0.0; 4],
        patch_vertices: 3,
        polygon_offset: [0.0; 3],
        line_width: 1.0,
    }
}

fn highest_sample_count(f: vk::SampleCountFlags) -> u32 {
    let r = f.as_raw();
    if r == 0 {
        1
    } else {
        1 << (31 - r.leading_zeros())
    }
}

impl VulkanBackend {
    fn fill_caps(&self) -> Caps {
        let l = &self.gpu.props.limits;
        let mut c = Caps::minimum();
        c.backend_kind = mgpipe::caps::BACKEND_VULKAN;
        c.max_texture_size = l.max_image_dimension2_d;
        c.max_3d_texture_size = l.max_image_dimension3_d;
        c.max_array_texture_layers = l.max_image_array_layers;
        c.max_cube_map_texture_size = l.max_image_dimension_cube;
        c.max_renderbuffer_size = l.max_framebuffer_width.min(l.max_framebuffer_height);
        c.max_draw_buffers = l.max_color_attachments.min(8);
        c.max_color_attachments = l.max_color_attachments.min(8);
        c.max_samples = highest_sample_count(
            l.framebuffer_color_sample_counts & l.framebuffer_depth_sample_counts,
        );
        // The counts an image can be made with (lavapipe: 1 and 4): GL
        // requests between them round up in the frontend.
        c.sample_counts = (l.framebuffer_color_sample_counts
            & l.framebuffer_depth_sample_counts
            & l.sampled_image_color_sample_counts
            & l.sampled_image_depth_sample_counts
            & l.sampled_image_integer_sample_counts)
            .as_raw()
            | 1;
        c.max_vertex_attribs = l.max_vertex_input_attributes.min(16);
        c.max_texture_image_units = l.max_per_stage_descriptor_samplers.min(32);
        c.max_combined_texture_image_units = l.max_descriptor_set_samplers.min(48);
        c.max_vertex_texture_image_units = l.max_per_stage_descriptor_samplers.min(16);
        c.max_uniform_buffer_bindings = l.max_descriptor_set_uniform_buffers.min(36);
        c.max_uniform_block_size = l.max_uniform_buffer_range.min(65536);
        c.uniform_buffer_offset_alignment = (l.min_uniform_buffer_offset_alignment as u32).max(1);
        let comps = (l.max_uniform_buffer_range / 4).min(16384);
        c.max_vertex_uniform_components = comps;
        c.max_fragment_uniform_components = comps;
        c.max_varying_components = l.max_vertex_output_components.min(128);
        c.max_viewport_dims = l.max_viewport_dimensions;
        c.max_texture_lod_bias = l.max_sampler_lod_bias;
        c.max_texture_max_anisotropy = if self.gpu.feat.anisotropy {
            l.max_sampler_anisotropy
        } else {
            1.0
        };
        c.aliased_line_width_range = if self.gpu.feat.wide_lines {
            l.line_width_range
        } else {
            [1.0, 1.0]
        };
        c.point_size_range = if self.gpu.feat.large_points {
            l.point_size_range
        } else {
            [1.0, 1.0]
        };
        c.max_elements_vertices = 1 << 20;
        c.max_elements_indices = 1 << 20;
        // Compute, storage buffers and images (`dispatch_compute`,
        // `set_shader_buffers`, `set_shader_images`); 0 without compute.
        let compute = self.gpu.feat.compute;
        let or0 = |v: u32| if compute { v } else { 0 };
        c.max_compute_work_group_count = l.max_compute_work_group_count.map(or0);
        c.max_compute_work_group_size = l.max_compute_work_group_size.map(or0);
        c.max_compute_work_group_invocations = or0(l.max_compute_work_group_invocations);
        c.max_compute_shared_memory_size = or0(l.max_compute_shared_memory_size);
        c.max_image_units = l.max_per_stage_descriptor_storage_images.min(8);
        c.max_shader_storage_buffer_bindings = l.max_per_stage_descriptor_storage_buffers.min(16);
        c.max_shader_storage_block_size = l.max_storage_buffer_range;
        c.shader_storage_buffer_offset_alignment =
            u32::try_from(l.min_storage_buffer_offset_alignment.max(1)).unwrap_or(u32::MAX);
        // Storage blocks in vertex and geometry shaders: every binding is
        // visible to all graphics stages (descriptor layouts use
        // ALL_GRAPHICS), so the device feature is all it takes.
        if self.gpu.feat.vertex_stores && c.max_shader_storage_buffer_bindings > 0 {
            c.features |= mgpipe::caps::CAPS_FEATURE_VERTEX_STORAGE;
        }
        if self.gpu.feat.float64 {
            // 64-bit vertex inputs: fetched natively where every R64
            // vertex format is, else as 32-bit words bit-cast in the
            // vertex stage (`spirv::lower_f64_inputs`; lavapipe).
            c.features |= mgpipe::caps::CAPS_FEATURE_FLOAT64 | mgpipe::caps::CAPS_FEATURE_VERTEX_64;
        }
        if self.gpu.feat.xfb {
            // VK_EXT_transform_feedback places every capture by its
            // decorations.
            c.features |= mgpipe::caps::CAPS_FEATURE_XFB_LAYOUTS;
        }
        if self.gpu.feat.sample_rate_shading {
            c.features |= mgpipe::caps::CAPS_FEATURE_SAMPLE_SHADING;
        }
        // Zero-to-one depth is Vulkan's own; the upper-left origin is a
        // negative-height viewport.
        c.features |= mgpipe::caps::CAPS_FEATURE_CLIP_CONTROL;
        if self.gpu.feat.independent_blend {
            c.features |= mgpipe::caps::CAPS_FEATURE_BLEND_PER_BUFFER;
        }
        if self.gpu.feat.tessellation {
            c.features |= mgpipe::caps::CAPS_FEATURE_TESSELLATION;
        }
        if self.gpu.feat.draw_parameters {
            // gl_InstanceID = InstanceIndex - BaseInstance in every
            // vertex stage (`spirv::subtract_base_instance`).
            c.features |= mgpipe::caps::CAPS_FEATURE_BASE_INSTANCE;
        }
        Caps::put_str(&mut c.driver_renderer, &self.gpu.device_name);
        Caps::put_str(&mut c.driver_version, &self.gpu.driver_version);
        // Every call up to `present` (the catalogue's required set when
        // this backend was written); later optional calls keep their
        // declining default bodies and stay out of the mask.
        c.call_mask = [0, 0];
        let implemented = (mgpipe::Opcode::Present as usize + 1).min(mgpipe::CALL_COUNT);
        let mut set = |i: usize| {
            if i < 128 {
                c.call_mask[i / 64] |= 1u64 << (i % 64);
            }
        };
        for i in 0..implemented {
            set(i);
        }
        // Optional calls this backend answers (queries.rs).
        use mgpipe::Opcode as O;
        for o in [
            O::QueryBegin,
            O::QueryEnd,
            O::QueryResult,
            O::QueryDestroy,
            O::GetTextureImage,
            // Vertex-input CSOs (context.rs).
            O::CreateVertexInput,
            O::BindVertexInput,
            O::DeleteVertexInput,
            // Storage buffers and images, in draws and dispatches.
            O::SetShaderBuffers,
            O::SetShaderImages,
            O::MemoryBarrier,
            // Buffer textures, as uniform texel buffers (context.rs).
            O::TextureBuffer,
            // GL_PATCH_VERTICES, a pipeline key part (context.rs).
            O::SetPatchState,
        ] {
            set(o as usize);
        }
        if self.gpu.feat.compute {
            set(O::DispatchCompute as usize);
        }
        // Transform feedback (VK_EXT_transform_feedback; frame.rs XfbRun).
        if self.gpu.feat.xfb {
            for o in [O::XfbBegin, O::XfbEnd, O::XfbPause, O::XfbResume] {
                set(o as usize);
            }
        }
        if self.gpu.timestamp_period.is_some() {
            set(O::QueryCounter as usize);
            set(O::Timestamp as usize);
        }
        c
    }

    /// A single-level 2D image for a surface or renderbuffer.
    pub(crate) fn new_2d(
        &mut self,
        internal: u32,
        w: u32,
        h: u32,
        samples: u32,
    ) -> Result<ImageRes, VkError> {
        let sf = self.storage_format(internal);
        if let Some(why) = sf.emulation {
            debug!(format = internal, why, "format emulated");
        }
        let mut img = self.create_image(
            sf,
            internal,
            vk::ImageType::TYPE_2D,
            vk::ImageViewType::TYPE_2D,
            vk::Extent3D {
                width: w,
                height: h,
                depth: 1,
            },
            1,
            1,
            samples,
        )?;
        img.defined = 1;
        Ok(img)
    }

    pub(crate) fn release_resource(&mut self, r: Resource) {
        debug!(gl_name = r.gl_name, "resource released");
        let mut g = Vec::new();
        resource::collect_resource(r, &mut g);
        self.retire(g);
    }

    fn release_surface(&mut self, s: SurfaceEntry) {
        let mut g = Vec::new();
        resource::collect_surface(s, &mut g);
        self.retire(g);
    }

    fn max_extent(&self) -> u32 {
        let l = &self.gpu.props.limits;
        l.max_framebuffer_width.min(l.max_framebuffer_height)
    }
}

impl Screen for VulkanBackend {
    fn get_caps(&mut self, _p: &calls::GetCaps, reply: &mut Vec<u8>) {
        self.touch();
        let caps = self.fill_caps();
        reply.clear();
        reply.extend_from_slice(bytemuck::bytes_of(&caps));
    }

    fn context_create(&mut self, p: &calls::ContextCreate) {
        self.touch();
        if p.ctx.is_null() || p.ctx.slot >= MAX_SLOT {
            warn!(ctx = ?p.ctx, "context_create: invalid handle, skipped");
            return;
        }
        if !p.share.is_null() && self.ctxs.get(p.share).is_none() {
            debug!(share = ?p.share, "context_create: unknown share context (one share group anyway)");
        }
        if let Ok(Some(_)) = self.ctxs.insert(p.ctx, Some(Box::new(new_ctx()))) {
            warn!(ctx = ?p.ctx, "context_create: slot reused without context_destroy; old context replaced");
        }
    }

    fn context_destroy(&mut self, p: &calls::ContextDestroy) {
        self.touch();
        if self.ctxs.remove(p.ctx).is_none() {
            warn!(ctx = ?p.ctx, "context_destroy: unknown context, skipped");
            return;
        }
        if self.current == Some(p.ctx) {
            self.current = None;
        }
    }

    fn surface_create(&mut self, p: &calls::SurfaceCreate) {
        self.touch();
        let max = self.max_extent();
        if p.width == 0 || p.height == 0 || p.width > max || p.height > max {
            warn!(surface = ?p.surface, w = p.width, h = p.height, "surface_create: bad size, skipped");
            return;
        }
        if p.surface.is_null() || p.surface.slot >= MAX_SLOT {
            warn!(surface = ?p.surface, "surface_create: invalid handle, skipped");
            return;
        }
        let mut make = |f: u32| -> Option<ImageRes> {
            if f == 0 {
                return None;
            }
            match self.new_2d(f, p.width, p.height, p.samples) {
                Ok(i) => Some(i),
                Err(e) => {
                    warn!(surface = ?p.surface, format = f, "surface_create: image failed: {e}");
                    None
                }
            }
        };
        let color = make(p.color_format);
        let depth_stencil = make(p.depth_stencil_format);
        // GL's initial default framebuffer contents are undefined; clear to
        // zero so the first read is deterministic.
        let s = SurfaceEntry {
            width: p.width,
            height: p.height,
            color,
            depth_stencil,
        };
        self.clear_surface_images(&s);
        match self.scr.surfaces.insert(p.surface, s) {
            Ok(Some(old)) => self.release_surface(old),
            Ok(None) => {}
            Err(s) => self.release_surface(s),
        }
    }

    fn surface_destroy(&mut self, p: &calls::SurfaceDestroy) {
        self.touch();
        match self.scr.surfaces.remove(p.surface) {
            Some(s) => self.release_surface(s),
            None => warn!(surface = ?p.surface, "surface_destroy: unknown surface, skipped"),
        }
    }

    fn make_current(&mut self, p: &calls::MakeCurrent) {
        self.touch();
        if p.ctx.is_null() {
            self.current = None;
            return;
        }
        for s in [p.draw, p.read] {
            if !s.is_null() && self.scr.surfaces.get(s).is_none() {
                warn!(surface = ?s, "make_current: unknown surface");
            }
        }
        let Some(c) = self.ctxs.get_mut(p.ctx).and_then(|c| c.as_deref_mut()) else {
            warn!(ctx = ?p.ctx, "make_current: unknown context, skipped");
            return;
        };
        c.draw_surface = p.draw;
        c.read_surface = p.read;
        self.current = Some(p.ctx);
    }

    fn resource_create(&mut self, p: &calls::ResourceCreate, blob: &[u8]) {
        self.touch();
        if p.res.is_null() || p.res.slot >= MAX_SLOT {
            warn!(res = ?p.res, "resource_create: invalid handle, skipped");
            return;
        }
        let kind = match p.kind {
            RESOURCE_BUFFER => {
                if p.size > MAX_BUFFER {
                    warn!(res = ?p.res, size = p.size, "resource_create: buffer too large, skipped");
                    return;
                }
                let n = blob.len().min(p.size as usize);
                if !blob.is_empty() && blob.len() < p.size as usize {
                    warn!(res = ?p.res, blob = blob.len(), size = p.size, "resource_create: blob shorter than size, uploaded what came");
                }
                let raw = match self.new_buffer_with(p.size, &blob[..n]) {
                    Ok(r) => r,
                    Err(e) => {
                        warn!(res = ?p.res, "resource_create: buffer failed: {e}");
                        return;
                    }
                };
                ResKind::Buffer {
                    raw,
                    size: p.size,
                    last_use: std::cell::Cell::new(0),
                }
            }
            RESOURCE_TEXTURE => {
                let target = emulation::binding_target(p.target);
                if p.target != 0
                    && target != gl::TEXTURE_BUFFER
                    && emulation::texture_shape(target).is_none()
                {
                    warn!(res = ?p.res, target = p.target, "resource_create: texture target not supported");
                }
                ResKind::Texture {
                    target,
                    samples: p.samples,
                    img: None,
                    texbuf: None,
                }
            }
            RESOURCE_RENDERBUFFER => {
                let max = self.max_extent();
                if p.width == 0 || p.height == 0 || p.width > max || p.height > max {
                    warn!(res = ?p.res, w = p.width, h = p.height, "resource_create: bad renderbuffer size, skipped");
                    return;
                }
                match self.new_2d(p.internal_format, p.width, p.height, p.samples) {
                    Ok(i) => ResKind::Renderbuffer(i),
                    Err(e) => {
                        warn!(res = ?p.res, "resource_create: renderbuffer failed: {e}");
                        return;
                    }
                }
            }
            k => {
                warn!(res = ?p.res, kind = k, "resource_create: unknown resource kind, skipped");
                return;
            }
        };
        let r = Resource {
            kind,
            gl_name: p.gl_name,
        };
        match self.scr.resources.insert(p.res, r) {
            Ok(Some(old)) => {
                warn!(res = ?p.res, "resource_create: slot reused without resource_destroy");
                self.release_resource(old);
            }
            Ok(None) => {}
            Err(r) => self.release_resource(r),
        }
    }

    fn resource_destroy(&mut self, p: &calls::ResourceDestroy) {
        self.touch();
        match self.scr.resources.remove(p.res) {
            Some(r) => self.release_resource(r),
            None => warn!(res = ?p.res, "resource_destroy: unknown resource, skipped"),
        }
    }

    fn fence_wait(&mut self, p: &calls::FenceWait, reply: &mut Vec<u8>) {
        self.touch();
        reply.clear();
        let Some(&serial) = self.scr.fences.get(p.fence) else {
            warn!(fence = ?p.fence, "fence_wait: unknown fence, answered signaled");
            reply.extend_from_slice(&FENCE_STATUS_SIGNALED.to_le_bytes());
            return;
        };
        let status = match self.frames.wait_serial(&self.gpu, serial, p.timeout_ns) {
            Ok(true) => FENCE_STATUS_SIGNALED,
            Ok(false) => FENCE_STATUS_TIMEOUT,
            Err(e) => {
                warn!(fence = ?p.fence, "fence_wait failed ({e}), answered signaled");
                FENCE_STATUS_SIGNALED
            }
        };
        reply.extend_from_slice(&status.to_le_bytes());
    }

    fn query_destroy(&mut self, p: &calls::QueryDestroy) {
        self.touch();
        self.q_destroy(p);
    }

    fn fence_destroy(&mut self, p: &calls::FenceDestroy) {
        self.touch();
        if self.scr.fences.remove(p.fence).is_none() {
            warn!(fence = ?p.fence, "fence_destroy: unknown fence, skipped");
        }
    }
}
