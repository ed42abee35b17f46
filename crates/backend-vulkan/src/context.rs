//! `mgpipe::Context`: CSOs, `set_*` state, objects/transfers and verbs,
//! applied to the client context made current by `make_current`.

use ash::vk;
use mgpipe::calls;
use mgpipe::consts::{
    ATTACH_LAYERED, CLEAR_COLOR_ALL, CLEAR_COLOR_ONE, CLEAR_DEPTH, CLEAR_FLOAT, CLEAR_INT,
    CLEAR_STENCIL, CLEAR_UINT, IMAGE_LAYERED, NO_ATTACHMENT, SURFACE_NONE, SURFACE_RENDERBUFFER,
    SURFACE_TEXTURE,
};
use mgpipe::{Context, Handle};
use tracing::{debug, warn};

use crate::device::RawBuffer;
use crate::emulation::{self, gl, FormatClass, StorageFormat};
use crate::frame::{self, Garbage, RenderTarget};
use crate::pipeline::{self, PipeDesc, VertexSlot};
use crate::resource::{self, level_extent, ImageRegion};
use crate::screen::{default_render_state, MAX_BUFFER};
use crate::spirv::{
    ImageBinding, Part, SamplerBinding, Scalar, IMAGE_SET, SAMPLER_SET, SETS, STORAGE_SET, UBO_SET,
};
use crate::{
    Ctx, ImageRes, ResKind, SamplerEntry, ShaderEntry, SurfaceEntry, ViewKey, VkError,
    VulkanBackend,
};

/// Replies larger than this are refused.
pub(crate) const MAX_REPLY: u64 = 1 << 30;

/// Where an attachment lives.
#[derive(Clone, Copy)]
enum ImgRef {
    Res(Handle),
    SurfColor(Handle),
    SurfDs(Handle),
}

/// One resolved attachment.
#[derive(Clone, Copy)]
struct Attach {
    view: vk::ImageView,
    image: vk::Image,
    level: u32,
    /// Array layer for copies (always 0 for a 3D image).
    layer: u32,
    /// Depth slice for copies: the z offset of a 3D image's slice (Vulkan
    /// addresses it by `imageOffset.z`, not by array layer), else 0.
    z: i32,
    /// A 3D image.
    three_d: bool,
    /// Layers the view renders to (more than 1: a layered attachment).
    layers: u32,
    format: StorageFormat,
    extent: vk::Extent2D,
    samples: vk::SampleCountFlags,
}

/// The draw framebuffer resolved to views (colour slot i = draw buffer i).
struct Fb {
    colors: [Option<Attach>; 8],
    depth: Option<Attach>,
    stencil: Option<Attach>,
    extent: vk::Extent2D,
}

impl Fb {
    fn target(&self) -> RenderTarget {
        let mut color = [vk::ImageView::null(); 8];
        for (i, c) in self.colors.iter().enumerate() {
            if let Some(a) = c {
                color[i] = a.view;
            }
        }
        RenderTarget {
            color,
            depth: self.depth.map(|a| a.view).unwrap_or_default(),
            stencil: self.stencil.map(|a| a.view).unwrap_or_default(),
            extent: self.extent,
            layers: self.layers(),
        }
    }
    /// The rendering instance's layer count: the fewest layers of any
    /// attachment (1 unless every attachment is layered).
    fn layers(&self) -> u32 {
        self.colors
            .iter()
            .flatten()
            .chain(self.depth.iter())
            .chain(self.stencil.iter())
            .map(|a| a.layers)
            .min()
            .unwrap_or(1)
            .max(1)
    }
    fn samples(&self) -> vk::SampleCountFlags {
        self.colors
            .iter()
            .flatten()
            .chain(self.depth.iter())
            .chain(self.stencil.iter())
            .map(|a| a.samples)
            .next()
            .unwrap_or(vk::SampleCountFlags::TYPE_1)
    }
}

fn image_of(scr: &mut crate::ScreenTables, r: ImgRef, kind: u32) -> Option<&mut ImageRes> {
    match r {
        ImgRef::Res(h) => match (kind, scr.resources.get_mut(h).map(|r| &mut r.kind)) {
            (SURFACE_TEXTURE, Some(ResKind::Texture { img: Some(i), .. })) => Some(i),
            (SURFACE_RENDERBUFFER, Some(ResKind::Renderbuffer(i))) => Some(i),
            _ => None,
        },
        ImgRef::SurfColor(s) => scr.surfaces.get_mut(s).and_then(|s| s.color.as_mut()),
        ImgRef::SurfDs(s) => scr
            .surfaces
            .get_mut(s)
            .and_then(|s| s.depth_stencil.as_mut()),
    }
}

impl VulkanBackend {
    fn cur(&mut self, call: &'static str) -> Option<&mut Ctx> {
        let Some(h) = self.current else {
            warn!(call, "no current context, skipped");
            return None;
        };
        let c = self.ctxs.get_mut(h).and_then(|c| c.as_deref_mut());
        if c.is_none() {
            warn!(call, ctx = ?h, "current context is gone, skipped");
        }
        c
    }

    fn cur_copy(&mut self, call: &'static str) -> Option<Ctx> {
        self.cur(call).map(|c| *c)
    }

    /// Take the current context out of its slot (a pointer move, where
    /// `cur_copy` copies the whole context); `restore_cur` puts it back.
    /// While it is out, `cur` finds the slot empty and skips.
    fn lend_cur(&mut self, call: &'static str) -> Option<(Handle, Box<Ctx>)> {
        let h = self.current?;
        match self.ctxs.get_mut(h).and_then(Option::take) {
            Some(c) => Some((h, c)),
            None => {
                warn!(call, ctx = ?h, "current context is gone, skipped");
                None
            }
        }
    }

    fn restore_cur(&mut self, (h, c): (Handle, Box<Ctx>)) {
        if let Some(slot) = self.ctxs.get_mut(h) {
            *slot = Some(c);
        }
    }

    fn attach(&mut self, r: ImgRef, kind: u32, level: u32, layer: u32) -> Option<Attach> {
        let gpu = &self.gpu;
        let img = image_of(&mut self.scr, r, kind)?;
        let (view, layers) = resource::attachment_view(gpu, img, level, layer)?;
        let e = level_extent(img.extent, level);
        // Copies from a layered attachment read its first layer.
        let single = if layer == ATTACH_LAYERED { 0 } else { layer };
        let (layer, z) = slice_of(img, level, single);
        Some(Attach {
            view,
            layers,
            image: img.image,
            level,
            layer,
            z,
            three_d: img.view_type == vk::ImageViewType::TYPE_3D,
            format: img.format,
            extent: vk::Extent2D {
                width: e.width,
                height: e.height,
            },
            samples: img.samples,
        })
    }

    /// Resolve the context's draw framebuffer.
    fn resolve_fb(&mut self, c: &Ctx) -> Option<Fb> {
        let mut fb = Fb {
            colors: [None; 8],
            depth: None,
            stencil: None,
            extent: vk::Extent2D::default(),
        };
        match &c.fb {
            None => {
                let s = c.draw_surface;
                if self.scr.surfaces.get(s).is_none() {
                    debug!(surface = ?s, "no draw surface bound, skipped");
                    return None;
                }
                fb.colors[0] = self.attach(ImgRef::SurfColor(s), 0, 0, 0);
                if let Some(a) = self.attach(ImgRef::SurfDs(s), 0, 0, 0) {
                    if a.format.class.has_depth() {
                        fb.depth = Some(a);
                    }
                    if a.format.class.has_stencil() {
                        fb.stencil = Some(a);
                    }
                }
                let se = self.scr.surfaces.get(s)?;
                fb.extent = vk::Extent2D {
                    width: se.width,
                    height: se.height,
                };
            }
            Some(p) => {
                for i in 0..8 {
                    let src = p.draw_buffers[i];
                    if src == NO_ATTACHMENT || src >= 8 {
                        continue;
                    }
                    let s = src as usize;
                    if p.color_kind[s] == SURFACE_NONE || p.color[s].is_null() {
                        continue;
                    }
                    let a = self.attach(
                        ImgRef::Res(p.color[s]),
                        p.color_kind[s],
                        p.color_level[s],
                        p.color_layer[s],
                    );
                    if a.is_none() {
                        warn!(res = ?p.color[s], "framebuffer colour attachment unknown or without storage, dropped");
                    }
                    fb.colors[i] = a.filter(|a| a.format.class.is_color());
                }
                if p.depth_kind != SURFACE_NONE && !p.depth.is_null() {
                    fb.depth = self
                        .attach(
                            ImgRef::Res(p.depth),
                            p.depth_kind,
                            p.depth_level,
                            p.depth_layer,
                        )
                        .filter(|a| a.format.class.has_depth());
                }
                if p.stencil_kind != SURFACE_NONE && !p.stencil.is_null() {
                    fb.stencil = self
                        .attach(
                            ImgRef::Res(p.stencil),
                            p.stencil_kind,
                            p.stencil_level,
                            p.stencil_layer,
                        )
                        .filter(|a| a.format.class.has_stencil());
                }
                // Separate depth and stencil images cannot both attach in
                // Vulkan unless they are one view: keep depth.
                if let (Some(d), Some(s)) = (fb.depth, fb.stencil) {
                    if d.view != s.view {
                        warn!("separate depth and stencil images: stencil dropped");
                        fb.stencil = None;
                    }
                }
                let all = fb
                    .colors
                    .iter()
                    .flatten()
                    .chain(fb.depth.iter())
                    .chain(fb.stencil.iter());
                let mut ext: Option<vk::Extent2D> = None;
                for a in all {
                    ext = Some(match ext {
                        None => a.extent,
                        Some(e) => vk::Extent2D {
                            width: e.width.min(a.extent.width),
                            height: e.height.min(a.extent.height),
                        },
                    });
                }
                fb.extent = ext.unwrap_or(vk::Extent2D {
                    width: p.width.max(1),
                    height: p.height.max(1),
                });
            }
        }
        Some(fb)
    }

    /// Open (or keep) the rendering instance for `fb`. `draw`: the caller
    /// queues a draw, so pending draws stay pending while the instance is
    /// kept (the caller flushes them before recording any binding).
    fn begin_rendering(&mut self, fb: &Fb, draw: bool) -> Result<vk::CommandBuffer, VkError> {
        let target = fb.target();
        let keep = self.frames.recording && self.frames.rendering == Some(target);
        // The instance's attachments are listed as what the frame touches
        // (a draw in it flags every image: `push_draw`).
        let views = target
            .color
            .into_iter()
            .chain([target.depth, target.stencil]);
        let cmd = self
            .frames
            .cmd_for_rendering(&self.gpu, keep && draw, views)?;
        if keep {
            return Ok(cmd);
        }
        if self.frames.rendering.is_some() {
            self.frames.end_rendering(&self.gpu);
        } else {
            self.frames.full_barrier(&self.gpu, cmd);
        }
        let att = |v: vk::ImageView| {
            vk::RenderingAttachmentInfo::default()
                .image_view(v)
                .image_layout(vk::ImageLayout::GENERAL)
                .load_op(vk::AttachmentLoadOp::LOAD)
                .store_op(vk::AttachmentStoreOp::STORE)
        };
        let n = target
            .color
            .iter()
            .rposition(|v| *v != vk::ImageView::null())
            .map(|i| i + 1)
            .unwrap_or(0);
        let colors: Vec<vk::RenderingAttachmentInfo> =
            target.color[..n].iter().map(|&v| att(v)).collect();
        let depth = att(target.depth);
        let stencil = att(target.stencil);
        let mut info = vk::RenderingInfo::default()
            .render_area(vk::Rect2D {
                offset: vk::Offset2D { x: 0, y: 0 },
                extent: target.extent,
            })
            .layer_count(target.layers)
            .color_attachments(&colors);
        if target.depth != vk::ImageView::null() {
            info = info.depth_attachment(&depth);
        }
        if target.stencil != vk::ImageView::null() {
            info = info.stencil_attachment(&stencil);
        }
        self.gpu.begin_rendering(cmd, &info);
        self.frames.rendering = Some(target);
        if let Some(x) = self.frames.xfb.as_mut() {
            x.start(&self.gpu, cmd);
        }
        Ok(cmd)
    }

    /// The GL scissor box (if enabled) clipped to `extent`; None: empty.
    fn scissor_rect(c: &Ctx, extent: vk::Extent2D) -> Option<vk::Rect2D> {
        let (mut x0, mut y0, mut x1, mut y1) =
            (0i64, 0i64, extent.width as i64, extent.height as i64);
        if c.render_state.scissor_enable != 0 {
            let s = c.scissor;
            x0 = x0.max(s.x as i64);
            y0 = y0.max(s.y as i64);
            x1 = x1.min(s.x as i64 + s.width.max(0) as i64);
            y1 = y1.min(s.y as i64 + s.height.max(0) as i64);
        }
        (x1 > x0 && y1 > y0).then(|| vk::Rect2D {
            offset: vk::Offset2D {
                x: x0 as i32,
                y: y0 as i32,
            },
            extent: vk::Extent2D {
                width: (x1 - x0) as u32,
                height: (y1 - y0) as u32,
            },
        })
    }

    /// Zero a new surface's images.
    pub(crate) fn clear_surface_images(&mut self, s: &SurfaceEntry) {
        let Ok(cmd) = self.frames.transfer_cmd(&self.gpu) else {
            return;
        };
        for img in [&s.color, &s.depth_stencil].into_iter().flatten() {
            let range = [resource::full_range(img)];
            // SAFETY: recording outside rendering; fresh images in GENERAL.
            unsafe {
                if img.format.class.is_color() {
                    self.gpu.device.cmd_clear_color_image(
                        cmd,
                        img.image,
                        vk::ImageLayout::GENERAL,
                        &vk::ClearColorValue::default(),
                        &range,
                    );
                } else {
                    self.gpu.device.cmd_clear_depth_stencil_image(
                        cmd,
                        img.image,
                        vk::ImageLayout::GENERAL,
                        &vk::ClearDepthStencilValue {
                            depth: 1.0,
                            stencil: 0,
                        },
                        &range,
                    );
                }
            }
        }
        frame::barrier(&self.gpu, cmd);
    }

    fn dummy_ubo(&mut self) -> Option<vk::Buffer> {
        if let Some(b) = self.dummies.ubo {
            return Some(b.buffer);
        }
        match self.new_buffer(65536) {
            Ok(b) => {
                self.dummies.ubo = Some(b);
                Some(b.buffer)
            }
            Err(e) => {
                warn!("dummy uniform buffer: {e}");
                None
            }
        }
    }

    /// The uniform texel buffer view a draw binds for a `samplerBuffer` at
    /// texture unit `unit`: the buffer range attached to the unit's buffer
    /// texture, else (nothing attached, an unknown buffer, a format the
    /// device cannot read this way) zeros of the shader's scalar type.
    fn texel_view(&mut self, c: &Ctx, unit: usize, sb: &SamplerBinding) -> Option<vk::BufferView> {
        let attached = (unit < (c.views.count as usize).min(32))
            .then(|| c.views.views[unit])
            .filter(|h| !h.is_null())
            .and_then(|h| self.scr.views.get(h).copied())
            .and_then(
                |v| match self.scr.resources.get(v.texture).map(|r| &r.kind) {
                    Some(ResKind::Texture {
                        texbuf: Some(a), ..
                    }) => Some(*a),
                    _ => None,
                },
            );
        if let Some(a) = attached {
            match self.attached_texel_view(a) {
                Ok(v) => return Some(v),
                Err(why) => debug!(unit, "draw: buffer texture unusable ({why}), zeros bound"),
            }
        }
        let format = match sb.scalar {
            Scalar::Float => vk::Format::R32G32B32A32_SFLOAT,
            Scalar::Int => vk::Format::R32G32B32A32_SINT,
            Scalar::Uint => vk::Format::R32G32B32A32_UINT,
        };
        let dummy = self.dummy_ubo()?;
        self.texel_view_of(dummy, format, 0, 16).ok()
    }

    /// The view of buffer-texture attachment `a` (Err: why there is none).
    fn attached_texel_view(
        &mut self,
        a: crate::TexBufAttachment,
    ) -> Result<vk::BufferView, String> {
        let format = emulation::texel_buffer_format(a.internal_format)
            .ok_or_else(|| format!("internal format 0x{:X}", a.internal_format))?;
        if !self
            .gpu
            .buffer_format_features(format)
            .contains(vk::FormatFeatureFlags::UNIFORM_TEXEL_BUFFER)
        {
            return Err(format!("{format:?} not readable as a texel buffer"));
        }
        let (raw, size) = self.buffer_use(a.buffer).ok_or("unknown buffer")?;
        let texel = u64::from(emulation::copy_texel_size(
            format,
            vk::ImageAspectFlags::COLOR,
        ))
        .max(1);
        let limits = &self.gpu.props.limits;
        let align = limits.min_texel_buffer_offset_alignment.max(1);
        if !a.offset.is_multiple_of(align) || a.offset >= size {
            return Err(format!("offset {} (size {size})", a.offset));
        }
        let end = if a.size == 0 {
            size
        } else {
            a.offset.saturating_add(a.size).min(size)
        };
        let max = u64::from(limits.max_texel_buffer_elements).saturating_mul(texel);
        let range = ((end - a.offset) / texel * texel).min(max);
        if range == 0 {
            return Err("empty range".into());
        }
        self.texel_view_of(raw.buffer, format, a.offset, range)
    }

    /// A view of `range` bytes of `buffer` at `offset` as `format`, made
    /// (and retired) once per submission.
    fn texel_view_of(
        &mut self,
        buffer: vk::Buffer,
        format: vk::Format,
        offset: u64,
        range: u64,
    ) -> Result<vk::BufferView, String> {
        let serial = self.frames.next_serial;
        let key = (buffer, format, offset, range);
        if let Some(&(v, s)) = self.texel_views.get(&key) {
            if s == serial {
                return Ok(v);
            }
        }
        if self.texel_views.len() >= 256 {
            self.texel_views.retain(|_, (_, s)| *s == serial);
        }
        let ci = vk::BufferViewCreateInfo::default()
            .buffer(buffer)
            .format(format)
            .offset(offset)
            .range(range);
        // SAFETY: a live buffer made with UNIFORM_TEXEL_BUFFER usage; the
        // offset is aligned and the range inside it, a multiple of the
        // texel size and within maxTexelBufferElements (callers).
        let view = unsafe { self.gpu.device.create_buffer_view(&ci, None) }
            .map_err(|e| format!("vkCreateBufferView: {e}"))?;
        // Destroyed once the work recorded so far (which is all that can
        // use it: it is reused only in this submission) completes.
        self.frames.retire(frame::Garbage::BufferView(view));
        self.texel_views.insert(key, (view, serial));
        Ok(view)
    }

    fn default_sampler(&mut self) -> vk::Sampler {
        if let Some(s) = self.dummies.sampler {
            return s;
        }
        let ci = vk::SamplerCreateInfo::default()
            .mag_filter(vk::Filter::NEAREST)
            .min_filter(vk::Filter::NEAREST)
            .max_lod(vk::LOD_CLAMP_NONE);
        // SAFETY: valid device and create info.
        let s = unsafe { self.gpu.device.create_sampler(&ci, None) }.unwrap_or_default();
        self.dummies.sampler = Some(s);
        s
    }

    /// A 1x1 zeroed image matching a shader sampler's dimensionality.
    fn dummy_view(&mut self, sb: &SamplerBinding) -> Option<vk::ImageView> {
        let (vt, target) = sampler_view_type(sb);
        let key = (vt.as_raw(), sb.scalar, sb.ms);
        if !self.dummies.images.contains_key(&key) {
            let internal = match sb.scalar {
                Scalar::Float => gl::RGBA8,
                Scalar::Int => gl::RGBA8I,
                Scalar::Uint => gl::RGBA8UI,
            };
            let sf = self.storage_format(internal);
            let (it, _) = emulation::texture_shape(target)?;
            let (ext, layers) = emulation::extent_and_layers(target, 1, 1, 1);
            let img = self
                .create_image(
                    sf,
                    internal,
                    it,
                    vt,
                    ext,
                    layers,
                    1,
                    if sb.ms { 2 } else { 1 },
                )
                .ok()?;
            self.clear_fresh_image(&img);
            self.dummies.images.insert(key, img);
        }
        let img = self.dummies.images.get_mut(&key)?;
        whole_image_view(&self.gpu, img, vt)
    }

    /// Zero a just-created image (layout GENERAL) before its first use.
    fn clear_fresh_image(&mut self, img: &ImageRes) {
        if let Ok(cmd) = self.frames.transfer_cmd(&self.gpu) {
            // SAFETY: recording outside rendering; fresh image in GENERAL.
            unsafe {
                self.gpu.device.cmd_clear_color_image(
                    cmd,
                    img.image,
                    vk::ImageLayout::GENERAL,
                    &vk::ClearColorValue::default(),
                    &[resource::full_range(img)],
                )
            };
            frame::barrier(&self.gpu, cmd);
        }
    }

    /// The view a draw samples for texture unit `unit` (None: use a dummy).
    fn sampled_view(
        &mut self,
        c: &Ctx,
        unit: usize,
        sb: &SamplerBinding,
        no_mip: bool,
    ) -> Option<vk::ImageView> {
        if unit >= (c.views.count as usize).min(32) {
            return None;
        }
        let h = c.views.views[unit];
        if h.is_null() {
            return None;
        }
        let Some(v) = self.scr.views.get(h).copied() else {
            warn!(view = ?h, unit, "draw: unknown sampler view, dummy bound");
            return None;
        };
        let (want_vt, _) = sampler_view_type(sb);
        let gpu = &self.gpu;
        let Some(ResKind::Texture { img: Some(img), .. }) =
            self.scr.resources.get_mut(v.texture).map(|r| &mut r.kind)
        else {
            debug!(view = ?h, texture = ?v.texture, unit, "draw: texture without storage, dummy bound");
            return None;
        };
        let compatible = match want_vt {
            vk::ImageViewType::TYPE_2D | vk::ImageViewType::TYPE_2D_ARRAY => {
                img.view_type == vk::ImageViewType::TYPE_2D
                    || img.view_type == vk::ImageViewType::TYPE_2D_ARRAY
                    || (img.view_type == vk::ImageViewType::CUBE
                        && want_vt == vk::ImageViewType::TYPE_2D_ARRAY)
            }
            vk::ImageViewType::TYPE_1D | vk::ImageViewType::TYPE_1D_ARRAY => {
                img.view_type == vk::ImageViewType::TYPE_1D
                    || img.view_type == vk::ImageViewType::TYPE_1D_ARRAY
            }
            vk::ImageViewType::CUBE => img.view_type == vk::ImageViewType::CUBE && img.layers >= 6,
            vk::ImageViewType::CUBE_ARRAY => img.view_type == vk::ImageViewType::CUBE_ARRAY,
            t => img.view_type == t,
        };
        if !compatible || (img.samples != vk::SampleCountFlags::TYPE_1) != sb.ms {
            warn!(view = ?h, unit, "draw: texture shape does not match the shader's sampler, dummy bound");
            return None;
        }
        let base = v.base_level.min(img.levels - 1);
        let top = v.max_level.min(img.levels - 1).max(base);
        let mut levels = 0;
        while base + levels <= top && img.defined & (1u64 << (base + levels).min(63)) != 0 {
            levels += 1;
        }
        if no_mip || levels == 0 {
            levels = 1;
        }
        let class = img.format.class;
        let aspect = if class.has_depth() && v.depth_stencil_mode != gl::STENCIL_INDEX_MODE {
            vk::ImageAspectFlags::DEPTH
        } else if class.has_stencil() {
            vk::ImageAspectFlags::STENCIL
        } else {
            vk::ImageAspectFlags::COLOR
        };
        let ident = [
            vk::ComponentSwizzle::R,
            vk::ComponentSwizzle::G,
            vk::ComponentSwizzle::B,
            vk::ComponentSwizzle::A,
        ];
        let mut sw = [0i32; 4];
        for i in 0..4 {
            let mut s = emulation::swizzle(v.swizzle[i], ident[i]);
            if s == vk::ComponentSwizzle::A
                && img.format.alpha_one
                && aspect == vk::ImageAspectFlags::COLOR
            {
                s = vk::ComponentSwizzle::ONE;
            }
            sw[i] = s.as_raw();
        }
        let layers = if want_vt == vk::ImageViewType::TYPE_3D {
            1
        } else if want_vt == vk::ImageViewType::CUBE {
            6
        } else if want_vt == vk::ImageViewType::TYPE_2D || want_vt == vk::ImageViewType::TYPE_1D {
            1
        } else {
            img.layers
        };
        let key = ViewKey {
            ty: want_vt.as_raw(),
            aspect: aspect.as_raw(),
            base_level: base,
            levels,
            base_layer: 0,
            layers,
            swizzle: sw,
        };
        resource::view(gpu, img, key)
    }

    /// Upload (if stale) the shader's default uniform block; returns its range.
    fn globals_range(&mut self, shader: Handle) -> Option<(vk::Buffer, u64, u64)> {
        let serial = self.frames.next_serial;
        let align = self
            .gpu
            .props
            .limits
            .min_uniform_buffer_offset_alignment
            .max(16);
        let sh = self.scr.shaders.get(shader)?;
        let size = sh.global_size as u64;
        if size == 0 {
            return None;
        }
        if let Some((s, b, o)) = sh.globals_at {
            if s == serial {
                return Some((b, o, size));
            }
        }
        let a = self.frames.upload(&self.gpu, size, align).ok()?;
        let sh = self.scr.shaders.get_mut(shader)?;
        let n = sh.globals.len().min(size as usize);
        a.write(0, &sh.globals[..n]);
        // Zero what the client has not set (a shorter blob).
        const ZEROS: [u8; 256] = [0; 256];
        let mut at = n as u64;
        while at < size {
            let k = (size - at).min(ZEROS.len() as u64);
            a.write(at, &ZEROS[..k as usize]);
            at += k;
        }
        sh.globals_at = Some((serial, a.buffer, a.offset));
        Some((a.buffer, a.offset, size))
    }

    fn buffer_of(&self, h: Handle) -> Option<(RawBuffer, u64)> {
        match self.scr.resources.get(h).map(|r| &r.kind) {
            Some(ResKind::Buffer { raw, size, .. }) => Some((*raw, *size)),
            _ => None,
        }
    }

    /// `buffer_of` for a buffer the work being recorded uses on the GPU
    /// (marks it busy until that work completes).
    fn buffer_use(&self, h: Handle) -> Option<(RawBuffer, u64)> {
        match self.scr.resources.get(h).map(|r| &r.kind) {
            Some(ResKind::Buffer {
                raw,
                size,
                last_use,
            }) => {
                last_use.set(self.frames.next_serial);
                Some((*raw, *size))
            }
            _ => None,
        }
    }

    /// Submit the recording command buffer once it holds enough draws
    /// (`frame::SUBMIT_EVERY_DRAWS`), so the device runs it while the
    /// client records the rest of the frame. Called between calls only.
    fn submit_if_busy(&mut self) {
        if self.frames.draws_recorded >= frame::SUBMIT_EVERY_DRAWS {
            if let Err(e) = self.frames.submit(&self.gpu) {
                warn!("early submit failed: {e}");
            }
        }
    }

    /// The 16-byte constant used for a disabled attribute.
    fn attrib_default(&mut self, c: &Ctx, loc: u32, scalar: Scalar) -> Option<(vk::Buffer, u64)> {
        let i = loc as usize;
        let mut words = match scalar {
            Scalar::Float => [0, 0, 0, 1.0f32.to_bits()],
            _ => [0, 0, 0, 1],
        };
        if i < 16 && c.attrib_defaults.mask & (1 << i) != 0 {
            words.copy_from_slice(&c.attrib_defaults.values[4 * i..4 * i + 4]);
        }
        let a = self.frames.upload(&self.gpu, 16, 16).ok()?;
        a.write(0, bytemuck::cast_slice(&words));
        Some((a.buffer, a.offset))
    }
}

/// View type + a GL target for a shader sampler.
fn sampler_view_type(sb: &SamplerBinding) -> (vk::ImageViewType, u32) {
    match (sb.dim, sb.arrayed) {
        (0, false) => (vk::ImageViewType::TYPE_1D, gl::TEXTURE_1D),
        (0, true) => (vk::ImageViewType::TYPE_1D_ARRAY, gl::TEXTURE_1D_ARRAY),
        (2, _) => (vk::ImageViewType::TYPE_3D, gl::TEXTURE_3D),
        (3, false) => (vk::ImageViewType::CUBE, gl::TEXTURE_CUBE_MAP),
        (3, true) => (vk::ImageViewType::CUBE_ARRAY, gl::TEXTURE_CUBE_MAP_ARRAY),
        (_, true) => (vk::ImageViewType::TYPE_2D_ARRAY, gl::TEXTURE_2D_ARRAY),
        _ => (vk::ImageViewType::TYPE_2D, gl::TEXTURE_2D),
    }
}

/// A source image region for reads and blits.
#[derive(Clone, Copy)]
struct Src {
    image: vk::Image,
    format: StorageFormat,
    level: u32,
    /// Array layer (always 0 for a 3D image).
    layer: u32,
    /// Depth slice of a 3D image (the copies' z offset), else 0.
    z: i32,
    /// A 3D image.
    three_d: bool,
    extent: vk::Extent3D,
    samples: vk::SampleCountFlags,
    /// Where the image's memory is mapped on the host (addr 0: unknown).
    host: crate::device::HostMapping,
    /// LINEAR in memory mapped at `host` (the host may read it).
    linear: bool,
}

/// Where GL's attachment `layer` of `level` lives for copies: (array
/// layer, z offset). A 3D image has one array layer and addresses its
/// slices by `imageOffset.z` (the slice clamped like `attachment_view`
/// clamps it); any other image by array layer.
fn slice_of(img: &ImageRes, level: u32, layer: u32) -> (u32, i32) {
    if img.view_type == vk::ImageViewType::TYPE_3D {
        let depth = level_extent(img.extent, level).depth;
        (0, layer.min(depth - 1) as i32)
    } else {
        (layer.min(img.layers - 1), 0)
    }
}

fn clip(x: i64, y: i64, w: i64, h: i64, e: vk::Extent3D) -> Option<(u32, u32, u32, u32)> {
    let x0 = x.max(0);
    let y0 = y.max(0);
    let x1 = (x + w).min(e.width as i64);
    let y1 = (y + h).min(e.height as i64);
    (x1 > x0 && y1 > y0).then_some((x0 as u32, y0 as u32, (x1 - x0) as u32, (y1 - y0) as u32))
}

/// Copy tight rows of the clipped box `(x0, y0, w, h)` into the reply of a
/// read of `width` pixels per row starting at `(px, py)`.
fn scatter_rows(
    reply: &mut [u8],
    rows: &[u8],
    (x0, y0, w, h): (u32, u32, u32, u32),
    (px, py, width): (i64, i64, usize),
    bpp: usize,
) {
    let row = w as usize * bpp;
    let dx = (x0 as i64 - px) as usize;
    let dy0 = (y0 as i64 - py) as usize;
    if dx == 0 && w as usize == width {
        // Whole rows: one copy.
        let at = dy0 * row;
        let n = row * h as usize;
        if let (Some(d), Some(s)) = (reply.get_mut(at..at + n), rows.get(..n)) {
            d.copy_from_slice(s);
        }
        return;
    }
    for r in 0..h as usize {
        let at = ((dy0 + r) * width + dx) * bpp;
        if let (Some(d), Some(s)) = (
            reply.get_mut(at..at + row),
            rows.get(r * row..(r + 1) * row),
        ) {
            d.copy_from_slice(s);
        }
    }
}

/// Widen u8 indices to u16 (restart index 0xFF -> 0xFFFF).
fn widen_u8(data: &[u8]) -> Vec<u8> {
    data.iter()
        .flat_map(|&b| {
            let v: u16 = if b == 0xFF { 0xFFFF } else { b as u16 };
            v.to_le_bytes()
        })
        .collect()
}

impl VulkanBackend {
    /// The read surface's image for `aspect`.
    fn read_source(&mut self, c: &Ctx, aspect: vk::ImageAspectFlags) -> Option<Src> {
        let depthy = aspect != vk::ImageAspectFlags::COLOR;
        let (r, kind, level, layer) = match &c.read {
            None => (
                if depthy {
                    ImgRef::SurfDs(c.read_surface)
                } else {
                    ImgRef::SurfColor(c.read_surface)
                },
                0,
                0,
                0,
            ),
            Some(rd) if aspect == vk::ImageAspectFlags::DEPTH => (
                ImgRef::Res(rd.depth),
                rd.depth_kind,
                rd.depth_level,
                rd.depth_layer,
            ),
            Some(rd) if aspect == vk::ImageAspectFlags::STENCIL => (
                ImgRef::Res(rd.stencil),
                rd.stencil_kind,
                rd.stencil_level,
                rd.stencil_layer,
            ),
            Some(rd) => (
                ImgRef::Res(rd.color),
                rd.color_kind,
                rd.color_level,
                rd.color_layer,
            ),
        };
        let img = image_of(&mut self.scr, r, kind)?;
        let ok = match aspect {
            vk::ImageAspectFlags::DEPTH => img.format.class.has_depth(),
            vk::ImageAspectFlags::STENCIL => img.format.class.has_stencil(),
            _ => img.format.class.is_color(),
        };
        if !ok || level >= img.levels {
            return None;
        }
        let extent = level_extent(img.extent, level);
        let (layer, z) = slice_of(img, level, layer);
        Some(Src {
            image: img.image,
            format: img.format,
            level,
            layer,
            z,
            three_d: img.view_type == vk::ImageViewType::TYPE_3D,
            extent,
            samples: img.samples,
            host: img.host,
            linear: img.linear,
        })
    }

    /// Resolve a multisampled colour source into a temporary image.
    fn resolve_temp(&mut self, s: &Src) -> Result<ImageRes, VkError> {
        let tmp = self.create_image(
            s.format,
            0,
            vk::ImageType::TYPE_2D,
            vk::ImageViewType::TYPE_2D,
            vk::Extent3D {
                width: s.extent.width,
                height: s.extent.height,
                depth: 1,
            },
            1,
            1,
            1,
        )?;
        let cmd = self.frames.transfer_cmd(&self.gpu)?;
        let sub = |layer| vk::ImageSubresourceLayers {
            aspect_mask: vk::ImageAspectFlags::COLOR,
            mip_level: 0,
            base_array_layer: layer,
            layer_count: 1,
        };
        let region = [vk::ImageResolve {
            src_subresource: sub(s.layer),
            src_offset: vk::Offset3D::default(),
            dst_subresource: sub(0),
            dst_offset: vk::Offset3D::default(),
            extent: vk::Extent3D {
                width: s.extent.width,
                height: s.extent.height,
                depth: 1,
            },
        }];
        // SAFETY: recording outside rendering; both images in GENERAL, same
        // format, regions inside both.
        unsafe {
            self.gpu.device.cmd_resolve_image(
                cmd,
                s.image,
                vk::ImageLayout::GENERAL,
                tmp.image,
                vk::ImageLayout::GENERAL,
                &region,
            )
        };
        frame::barrier(&self.gpu, cmd);
        Ok(tmp)
    }

    /// A draw that follows a fully resolved one with nothing applied in
    /// between and the same shape: its range joins the pending draws.
    /// False: take the full path.
    fn fast_draw(&mut self, p: &calls::Draw, blob: &[u8]) -> bool {
        let Some(l) = self.last_draw else {
            return false;
        };
        if l.epoch != self.epoch
            || l.serial != self.frames.next_serial
            || !self.frames.recording
            || self.frames.rendering.is_none()
            || !blob.is_empty()
            || p.mode == gl::LINE_LOOP
            || (l.mode, l.index_size, l.instance_count, l.base_instance)
                != (p.mode, p.index_size, p.instance_count, p.base_instance)
        {
            return false;
        }
        if self.light != 0 && !self.apply_light(p) {
            return false;
        }
        let Some(l) = self.last_draw else {
            return false;
        };
        let inst = p.instance_count.max(1);
        if p.index_size == 0 {
            self.frames.push_draw(
                &self.gpu,
                (false, inst, p.base_instance),
                (p.first, p.count, 0),
            );
            return true;
        }
        let isz = p.index_size as u64;
        let bytes = p.count as u64 * isz;
        let first = p.index_offset / isz;
        let ok = p.index_offset.is_multiple_of(isz)
            && p.index_offset
                .checked_add(bytes)
                .is_some_and(|e| e <= l.index_bytes);
        let Ok(first) = u32::try_from(first) else {
            return false;
        };
        if !ok {
            return false;
        }
        self.frames.push_draw(
            &self.gpu,
            (true, inst, p.base_instance),
            (first, p.count, p.base_vertex),
        );
        true
    }

    /// The buffer, offset and range of every uniform-block binding of the
    /// bound shader (`ubos`: (binding, count) pairs), in `infos` (cleared
    /// first): the default-uniform block at `globals`, the context's
    /// uniform buffers elsewhere, a dummy where a range is unusable.
    fn resolve_ubos(
        &mut self,
        shader: Handle,
        cbufs: &calls::SetConstantBuffers,
        ubos: &[(u32, u32)],
        globals: Option<u32>,
        infos: &mut Vec<(u32, u32, vk::DescriptorBufferInfo)>,
    ) -> Result<(), String> {
        infos.clear();
        let max_range = self.gpu.props.limits.max_uniform_buffer_range as u64;
        let ubo_align = self
            .gpu
            .props
            .limits
            .min_uniform_buffer_offset_alignment
            .max(1);
        for &(b, n) in ubos.iter() {
            for k in 0..n.max(1) {
                let slot = b.saturating_add(k);
                let mut info = None;
                if globals == Some(slot) {
                    info = self.globals_range(shader);
                } else if (slot as usize) < (cbufs.count as usize).min(cbufs.buffers.len()) {
                    let si = slot as usize;
                    let h = cbufs.buffers[si];
                    if let Some((raw, size)) = self.buffer_use(h) {
                        let off = cbufs.offsets[si];
                        let len = if cbufs.sizes[si] == 0 {
                            size.saturating_sub(off)
                        } else {
                            cbufs.sizes[si]
                        }
                        .min(max_range);
                        if !off.is_multiple_of(ubo_align) {
                            warn!(
                                binding = slot,
                                off, "draw: uniform buffer offset not aligned, dummy bound"
                            );
                        } else if len == 0 || off.saturating_add(len) > size {
                            warn!(
                                binding = slot,
                                off, len, size, "draw: uniform range past the buffer, dummy bound"
                            );
                        } else {
                            info = Some((raw.buffer, off, len));
                        }
                    } else if !h.is_null() {
                        warn!(binding = slot, buffer = ?h, "draw: unknown uniform buffer, dummy bound");
                    }
                }
                let (buffer, offset, range) = match info {
                    Some(i) => i,
                    None => (
                        self.dummy_ubo().ok_or("no dummy uniform buffer")?,
                        0,
                        65536u64.min(max_range),
                    ),
                };
                infos.push((
                    b,
                    k,
                    vk::DescriptorBufferInfo {
                        buffer,
                        offset,
                        range,
                    },
                ));
            }
        }
        Ok(())
    }

    /// For `fast_draw`: apply what `set_index_buffer` / `set_constant_buffer`
    /// changed since the last draw, when that needs no new pipeline or
    /// descriptor set (an index buffer re-bound; uniform ranges that move
    /// only their dynamic offsets). False: the draw must be resolved in
    /// full (what was bound here stays consistent with `frames`' record of
    /// the bindings, which the full path compares against).
    fn apply_light(&mut self, p: &calls::Draw) -> bool {
        // The context is lent out of its slot, not copied (it is about
        // 2 KiB: a copy per draw was a tenth of this path's instructions on
        // the H200, and copying only the vertex and uniform bindings still
        // cost two 300-600 byte copies per draw).
        let Some(lent) = self.lend_cur("draw") else {
            return false;
        };
        let ok = self.apply_light_to(&lent.1, p);
        self.restore_cur(lent);
        ok
    }

    /// `apply_light` against `c`, the current context (lent out).
    fn apply_light_to(&mut self, c: &Ctx, p: &calls::Draw) -> bool {
        let (shader, index_buffer) = (c.shader, c.index_buffer);
        let Some(mut l) = self.last_draw else {
            return false;
        };
        let Some((ubos, layout, set_layout, dynamic, globals)) =
            self.scr.shaders.get(shader).and_then(|sh| {
                let b = sh.built.as_ref()?;
                Some((
                    b.ubos.clone(),
                    b.layout,
                    b.set_layouts[UBO_SET as usize],
                    b.dynamic_ubos,
                    (sh.global_size > 0).then_some(sh.global_binding),
                ))
            })
        else {
            return false;
        };
        let Ok(cmd) = self.frames.cmd_keep(&self.gpu) else {
            return false;
        };
        if self.light & crate::LIGHT_RS != 0
            && !self.rebind_pipeline(shader, &c.render_state, &l, cmd)
        {
            return false;
        }
        if self.light & crate::LIGHT_INDEX != 0 && p.index_size != 0 {
            let ty = match p.index_size {
                1 if self.gpu.feat.index_u8 => vk::IndexType::UINT8_EXT,
                2 => vk::IndexType::UINT16,
                4 => vk::IndexType::UINT32,
                _ => return false,
            };
            let Some((raw, size)) = self.buffer_use(index_buffer) else {
                return false;
            };
            let want = (raw.buffer, 0, ty);
            if self.frames.bound_index != Some(want) {
                self.frames.flush_draws(&self.gpu);
                // SAFETY: recording inside the open rendering instance; a
                // live buffer of this frame.
                unsafe {
                    self.gpu
                        .device
                        .cmd_bind_index_buffer(cmd, raw.buffer, 0, ty)
                };
                self.frames.bound_index = Some(want);
            }
            l.index_bytes = size;
        }
        if self.light & crate::LIGHT_VBUF != 0
            && !self.rebind_vertex_buffers(c.vertex_elements, &c.vbufs, &l, cmd)
        {
            return false;
        }
        if self.light & crate::LIGHT_CBUF != 0 && !ubos.is_empty() {
            if !dynamic {
                return false;
            }
            let mut infos = std::mem::take(&mut self.draw_scratch.ubo_infos);
            if self
                .resolve_ubos(shader, &c.cbufs, &ubos, globals, &mut infos)
                .is_err()
            {
                return false;
            }
            let mut offsets = std::mem::take(&mut self.draw_scratch.ubo_offsets);
            split_dynamic_offsets(&mut infos, &mut offsets);
            // The same set (buffers and sizes) as the one bound: only the
            // offsets move.
            let set = match &self.frames.last_ubo_set {
                Some((sl, what, set))
                    if *sl == set_layout
                        && what.len() == infos.len()
                        && what
                            .iter()
                            .zip(infos.iter())
                            .all(|(w, (b, k, i))| *w == (*b, *k, i.buffer, i.offset, i.range)) =>
                {
                    Some(*set)
                }
                _ => None,
            };
            let usable = set.filter(|s| self.frames.bound_sets[UBO_SET as usize] == (layout, *s));
            if let Some(set) = usable {
                if self.frames.bound_ubo_offsets != offsets {
                    self.frames.flush_draws(&self.gpu);
                    // SAFETY: recording inside the open rendering instance;
                    // the set was made for this layout in this frame and its
                    // buffers are live; one offset per dynamic descriptor.
                    unsafe {
                        self.gpu.device.cmd_bind_descriptor_sets(
                            cmd,
                            vk::PipelineBindPoint::GRAPHICS,
                            layout,
                            UBO_SET,
                            &[set],
                            &offsets,
                        )
                    };
                    self.frames.bound_ubo_offsets.clone_from(&offsets);
                }
            }
            self.draw_scratch.ubo_infos = infos;
            self.draw_scratch.ubo_offsets = offsets;
            if usable.is_none() {
                return false;
            }
        }
        self.light = 0;
        self.last_draw = Some(l);
        true
    }

    /// For `apply_light`: the render state changed only what the pipeline
    /// is keyed on. Binds the cached pipeline for the current render state
    /// with the last full draw's shader, targets and vertex layout (the
    /// layout is the shader's, so the bound descriptor sets stay valid);
    /// false when that pipeline was never made (the full path makes it).
    fn rebind_pipeline(
        &mut self,
        shader: Handle,
        rs: &calls::CreateRenderState,
        l: &crate::LastDraw,
        cmd: vk::CommandBuffer,
    ) -> bool {
        let Some(build) = self
            .scr
            .shaders
            .get(shader)
            .and_then(|sh| sh.built.as_ref())
        else {
            return false;
        };
        // The vertex slots the last full draw keyed its pipeline on.
        let slots = &self.draw_scratch.slots;
        let desc = PipeDesc::new(shader, build, rs, l.index_size, &l.targets, slots);
        let mut key = std::mem::take(&mut self.draw_scratch.key);
        desc.key_into(&mut key);
        let pipe = self.pipelines.get(key.as_slice()).copied();
        self.draw_scratch.key = key;
        let Some(pipe) = pipe else {
            return false;
        };
        if self.frames.bound_pipeline != pipe {
            self.frames.flush_draws(&self.gpu);
            // SAFETY: recording inside the open rendering instance whose
            // formats the pipeline was keyed on; a live pipeline of this
            // device with the bound sets' layout.
            unsafe {
                self.gpu
                    .device
                    .cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, pipe)
            };
            self.frames.bound_pipeline = pipe;
        }
        self.light_render_states += 1;
        true
    }

    /// For `apply_light`: the vertex buffers moved under the same layout.
    /// Every location the last full draw fed from a client buffer is bound
    /// to the new buffer and offset (validated as the full path does);
    /// false when a location read a default because of an error (the
    /// full path decides again) or a new binding is unusable.
    fn rebind_vertex_buffers(
        &mut self,
        vertex_elements: Handle,
        vbufs: &calls::SetVertexBuffers,
        l: &crate::LastDraw,
        cmd: vk::CommandBuffer,
    ) -> bool {
        let Some(ve) = self.scr.vertex_elements.get(vertex_elements).copied() else {
            return false;
        };
        // An enabled location the last draw fed a default (after an error)
        // is not a case for the light path.
        if l.enabled_defaulted {
            return false;
        }
        let mut vbinds = std::mem::take(&mut self.draw_scratch.vbinds);
        let mut ok = true;
        let mut flushed = false;
        for vb in vbinds.iter_mut() {
            let (loc, a) = (vb.binding as usize, vb.attrib as usize);
            if loc >= 16 || a >= 16 || l.vbuf_locs & (1 << loc) == 0 {
                continue;
            }
            let slot = ve.buffer_index[a] as usize;
            let buf = (slot < 16 && slot < vbufs.count as usize)
                .then(|| vbufs.buffers[slot])
                .and_then(|h| self.buffer_use(h));
            let Some((raw, size)) = buf else {
                ok = false;
                break;
            };
            let off = vbufs.offsets[slot]
                .saturating_add(ve.offset[a] as u64)
                .saturating_add(u64::from(vb.extra));
            if off >= size {
                ok = false;
                break;
            }
            let want = (raw.buffer, off);
            if self.frames.bound_vertex.get(loc) != Some(&want) {
                if !flushed {
                    self.frames.flush_draws(&self.gpu);
                    flushed = true;
                }
                // SAFETY: recording inside the open rendering instance; a
                // live buffer of this frame, at an offset inside it.
                unsafe {
                    self.gpu
                        .device
                        .cmd_bind_vertex_buffers(cmd, loc as u32, &[raw.buffer], &[off])
                };
                if let Some(x) = self.frames.bound_vertex.get_mut(loc) {
                    *x = want;
                }
            }
            (vb.buffer, vb.offset) = want;
        }
        self.draw_scratch.vbinds = vbinds;
        ok
    }

    fn do_draw(&mut self, p: &calls::Draw, blob: &[u8]) -> Result<(), String> {
        if p.count != 0 && self.fast_draw(p, blob) {
            return Ok(());
        }
        self.last_draw = None;
        // Resolved in full below.
        self.light = 0;
        if p.count == 0 {
            return Ok(());
        }
        let Some(lent) = self.lend_cur("draw") else {
            return Ok(());
        };
        let r = self.draw_full(&lent.1, p, blob);
        self.restore_cur(lent);
        r
    }

    /// Write (or reuse) the descriptor sets of program `shader` (`plan`)
    /// for context `c`'s bindings into `sets` (null where the program
    /// declares nothing of a set's kind), and set 0's dynamic offsets into
    /// `ubo_offsets` (cleared by the caller). Used by draws and dispatches
    /// alike: a set is bound at either bind point.
    fn write_sets(
        &mut self,
        c: &Ctx,
        shader: Handle,
        plan: &SetPlan,
        sets: &mut [vk::DescriptorSet; SETS],
        ubo_offsets: &mut Vec<u32>,
    ) -> Result<(), String> {
        let (ubos, samplers) = (&plan.ubos, &plan.samplers);
        let (set_layouts, dynamic_ubos, globals) =
            (plan.set_layouts, plan.dynamic_ubos, plan.globals);
        if !ubos.is_empty() {
            let mut infos = std::mem::take(&mut self.draw_scratch.ubo_infos);
            self.resolve_ubos(shader, &c.cbufs, ubos, globals, &mut infos)?;
            if dynamic_ubos {
                split_dynamic_offsets(&mut infos, ubo_offsets);
            }
            let ubo_type = if dynamic_ubos {
                vk::DescriptorType::UNIFORM_BUFFER_DYNAMIC
            } else {
                vk::DescriptorType::UNIFORM_BUFFER
            };
            let sl = set_layouts[UBO_SET as usize];
            let mut what = std::mem::take(&mut self.draw_scratch.ubo_what);
            what.clear();
            what.extend(
                infos
                    .iter()
                    .map(|(b, k, i)| (*b, *k, i.buffer, i.offset, i.range)),
            );
            // An unchanged set (same layout, same descriptors) is reused:
            // rebinding an identical set still costs the driver a state
            // change per draw.
            let reuse = match &self.frames.last_ubo_set {
                Some((l, w, set)) if *l == sl && *w == what => Some(*set),
                _ => None,
            };
            let set = match reuse {
                Some(set) => {
                    self.draw_scratch.ubo_what = what;
                    set
                }
                None => {
                    let set = self
                        .frames
                        .descriptor_set(&self.gpu, sl)
                        .map_err(|e| e.to_string())?;
                    let writes: Vec<vk::WriteDescriptorSet> = infos
                        .iter()
                        .map(|(b, k, i)| {
                            vk::WriteDescriptorSet::default()
                                .dst_set(set)
                                .dst_binding(*b)
                                .dst_array_element(*k)
                                .descriptor_type(ubo_type)
                                .buffer_info(std::slice::from_ref(i))
                        })
                        .collect();
                    // SAFETY: a fresh set of this layout; every info names a live buffer.
                    unsafe { self.gpu.device.update_descriptor_sets(&writes, &[]) };
                    // The replaced description's buffer becomes the scratch.
                    if let Some((_, old, _)) = self.frames.last_ubo_set.replace((sl, what, set)) {
                        self.draw_scratch.ubo_what = old;
                    }
                    set
                }
            };
            self.draw_scratch.ubo_infos = infos;
            sets[0] = set;
        }
        if !samplers.is_empty() {
            let mut infos: Vec<(u32, u32, vk::DescriptorImageInfo)> = Vec::new();
            // Uniform texel buffers (samplerBuffer), by (binding, element).
            let mut texels: Vec<(u32, u32, vk::BufferView)> = Vec::new();
            for sb in samplers.iter() {
                for k in 0..sb.count.max(1) {
                    let unit = sb.binding.saturating_add(k) as usize;
                    if sb.dim == crate::spirv::DIM_BUFFER {
                        let view = self
                            .texel_view(c, unit, sb)
                            .ok_or("no texel buffer view for a samplerBuffer")?;
                        texels.push((sb.binding, k, view));
                        continue;
                    }
                    let sh = (unit < (c.samplers.count as usize).min(32))
                        .then(|| c.samplers.samplers[unit])
                        .filter(|h| !h.is_null());
                    let (sampler, no_mip) = match sh.and_then(|h| self.scr.samplers.get(h)) {
                        Some(SamplerEntry { sampler, no_mip }) => (*sampler, *no_mip),
                        None => {
                            if let Some(h) = sh {
                                warn!(sampler = ?h, unit, "draw: unknown sampler, default used");
                            }
                            (self.default_sampler(), false)
                        }
                    };
                    let view = match self.sampled_view(c, unit, sb, no_mip) {
                        Some(v) => v,
                        None => self.dummy_view(sb).ok_or("no dummy texture")?,
                    };
                    infos.push((
                        sb.binding,
                        k,
                        vk::DescriptorImageInfo {
                            sampler,
                            image_view: view,
                            image_layout: vk::ImageLayout::GENERAL,
                        },
                    ));
                }
            }
            let sl = set_layouts[SAMPLER_SET as usize];
            // A texel buffer view keys the set by its raw handle in the
            // image-view position (no sampler): handles are unique among
            // live objects of the device.
            let what: Vec<frame::DescriptorImage> = infos
                .iter()
                .map(|(b, k, i)| (*b, *k, i.sampler, i.image_view))
                .chain(texels.iter().map(|(b, k, v)| {
                    (
                        *b,
                        *k,
                        vk::Sampler::null(),
                        vk::Handle::from_raw(vk::Handle::as_raw(*v)),
                    )
                }))
                .collect();
            let reuse = match &self.frames.last_sampler_set {
                Some((l, w, set)) if *l == sl && *w == what => Some(*set),
                _ => None,
            };
            let set = match reuse {
                Some(set) => set,
                None => {
                    let set = self
                        .frames
                        .descriptor_set(&self.gpu, sl)
                        .map_err(|e| e.to_string())?;
                    let writes: Vec<vk::WriteDescriptorSet> = infos
                        .iter()
                        .map(|(b, k, i)| {
                            vk::WriteDescriptorSet::default()
                                .dst_set(set)
                                .dst_binding(*b)
                                .dst_array_element(*k)
                                .descriptor_type(vk::DescriptorType::COMBINED_IMAGE_SAMPLER)
                                .image_info(std::slice::from_ref(i))
                        })
                        .chain(texels.iter().map(|(b, k, v)| {
                            vk::WriteDescriptorSet::default()
                                .dst_set(set)
                                .dst_binding(*b)
                                .dst_array_element(*k)
                                .descriptor_type(vk::DescriptorType::UNIFORM_TEXEL_BUFFER)
                                .texel_buffer_view(std::slice::from_ref(v))
                        }))
                        .collect();
                    // SAFETY: a fresh set of this layout; live views and samplers.
                    unsafe { self.gpu.device.update_descriptor_sets(&writes, &[]) };
                    self.frames.last_sampler_set = Some((sl, what, set));
                    set
                }
            };
            sets[1] = set;
        }
        if !plan.ssbos.is_empty() {
            sets[STORAGE_SET as usize] = self.storage_buffer_set(c, plan)?;
        }
        if !plan.images.is_empty() {
            sets[IMAGE_SET as usize] = self.storage_image_set(c, plan)?;
        }
        Ok(())
    }

    /// A draw resolved in full against `c`, the current context (lent out
    /// of its slot: nothing here reads it through `cur`).
    fn draw_full(&mut self, c: &Ctx, p: &calls::Draw, blob: &[u8]) -> Result<(), String> {
        // Open the frame first: the descriptor sets and arena ranges reused
        // below belong to the recording frame (a frame opened later would
        // reset the pools they came from).
        self.frames.cmd_keep(&self.gpu).map_err(|e| e.to_string())?;
        let topo = emulation::topology(p.mode).ok_or_else(|| {
            format!(
                "primitive mode 0x{:X} not supported (quads/polygon?)",
                p.mode
            )
        })?;
        let sh = self
            .scr
            .shaders
            .get(c.shader)
            .ok_or_else(|| format!("no valid shader bound ({:?})", c.shader))?;
        let build = sh
            .built
            .as_ref()
            .ok_or("the bound shader failed to build")?;
        if build.is_compute {
            return Err("compute shader bound".into());
        }
        if build.unsupported {
            return Err(
                "shader uses separate images/samplers, buffer textures or image buffers (not supported)".into(),
            );
        }
        let inputs = build.inputs.clone();
        let plan = SetPlan::of(sh, build);
        let layout = plan.layout;
        let Some(fb) = self.resolve_fb(c) else {
            return Ok(());
        };
        let vp = if c.viewport.width == 0.0 && c.viewport.height == 0.0 {
            calls::SetViewport {
                width: fb.extent.width as f32,
                height: fb.extent.height as f32,
                far: 1.0,
                ..Default::default()
            }
        } else {
            c.viewport
        };
        if !(vp.width > 0.0 && vp.height > 0.0 && vp.x.is_finite() && vp.y.is_finite()) {
            return Ok(());
        }
        let dims = self.gpu.props.limits.max_viewport_dimensions;
        let bounds = self.gpu.props.limits.viewport_bounds_range;
        let vp = calls::SetViewport {
            width: vp.width.min(dims[0] as f32),
            height: vp.height.min(dims[1] as f32),
            x: vp.x.clamp(bounds[0], bounds[1]),
            y: vp.y.clamp(bounds[0], bounds[1]),
            ..vp
        };
        let Some(scissor) = Self::scissor_rect(c, fb.extent) else {
            return Ok(());
        };

        // Vertex input: one binding per consumed location.
        let ve = self.scr.vertex_elements.get(c.vertex_elements).copied();
        if ve.is_none() && !c.vertex_elements.is_null() {
            warn!(cso = ?c.vertex_elements, "draw: unknown vertex elements, attributes read defaults");
        }
        let mut slots = std::mem::take(&mut self.draw_scratch.slots);
        let mut vbinds = std::mem::take(&mut self.draw_scratch.vbinds);
        slots.clear();
        vbinds.clear();
        let mut vbuf_locs = 0u32;
        let mut enabled_defaulted = false;
        for inp in inputs.iter() {
            let (l, a, scalar) = (inp.location, inp.attrib, inp.scalar);
            if l >= 16 || a >= 16 {
                warn!(
                    location = l,
                    attrib = a,
                    "draw: vertex inputs at locations >= 16 ignored"
                );
                continue;
            }
            let ai = a as usize;
            // Bytes of a split 64-bit attribute past its low part.
            let extra = if inp.part == Part::High { 16 } else { 0 };
            let mut got = None;
            // A dvec3/dvec4 input fed fewer than three doubles reads its
            // upper half from the default (no error).
            let mut short = false;
            if let Some(ve) = ve.filter(|ve| ve.enabled_mask & (1 << a) != 0) {
                let slot = ve.buffer_index[ai] as usize;
                let buf = (slot < 16 && slot < c.vbufs.count as usize)
                    .then(|| c.vbufs.buffers[slot])
                    .and_then(|h| self.buffer_use(h));
                let format = match inp.part {
                    Part::Whole => emulation::vertex_format(ve.format[ai]),
                    part => {
                        let f = emulation::vertex_format_split(ve.format[ai], part);
                        short = f.is_none() && part == Part::High;
                        f
                    }
                };
                match (buf, format) {
                    (Some((raw, size)), Some(f)) => {
                        let off = c.vbufs.offsets[slot]
                            .saturating_add(ve.offset[ai] as u64)
                            .saturating_add(extra);
                        let fetch = self
                            .gpu
                            .buffer_format_features(f)
                            .contains(vk::FormatFeatureFlags::VERTEX_BUFFER);
                        if !fetch {
                            warn!(
                                location = l,
                                ?f,
                                "draw: vertex format not fetchable on this device, default used"
                            );
                        } else if off >= size {
                            warn!(
                                location = l,
                                off, size, "draw: vertex offset past the buffer, default used"
                            );
                        } else {
                            let div = ve.divisor[ai];
                            if div > 1 && !self.gpu.feat.divisor {
                                self.warn_once("divisor", "vertex divisor > 1 without VK_*_vertex_attribute_divisor: treated as 1");
                            }
                            got = Some((
                                VertexSlot {
                                    location: l,
                                    format: f,
                                    stride: c.vbufs.strides[slot],
                                    instance: div > 0,
                                    divisor: div,
                                },
                                raw.buffer,
                                off,
                            ));
                        }
                    }
                    (None, _) => {
                        warn!(
                            location = l,
                            slot, "draw: attribute reads an unknown vertex buffer, default used"
                        )
                    }
                    (_, None) if short => {}
                    (_, None) => {
                        warn!(
                            location = l,
                            format = ve.format[ai],
                            "draw: vertex format not supported, default used"
                        )
                    }
                }
            }
            if got.is_some() {
                vbuf_locs |= 1 << l;
            } else if !short && ve.is_some_and(|ve| ve.enabled_mask & (1 << a) != 0) {
                enabled_defaulted = true;
            }
            let got = match got {
                Some(g) => g,
                None => {
                    let (b, o) = self
                        .attrib_default(c, a, scalar)
                        .ok_or("attribute default upload failed")?;
                    let format = match scalar {
                        Scalar::Float => vk::Format::R32G32B32A32_SFLOAT,
                        Scalar::Int => vk::Format::R32G32B32A32_SINT,
                        Scalar::Uint => vk::Format::R32G32B32A32_UINT,
                    };
                    (
                        VertexSlot {
                            location: l,
                            format,
                            stride: 0,
                            instance: false,
                            divisor: 0,
                        },
                        b,
                        o,
                    )
                }
            };
            slots.push(got.0);
            vbinds.push(crate::VertexBind {
                binding: l,
                buffer: got.1,
                offset: got.2,
                attrib: a,
                extra: extra as u32,
            });
        }

        // Pipeline.
        let mut colors = [vk::Format::UNDEFINED; 8];
        let mut color_integer = 0u32;
        let mut color_alpha_one = 0u32;
        for (i, a) in fb.colors.iter().enumerate() {
            if let Some(a) = a {
                colors[i] = a.format.vk;
                if a.format.class.is_integer() {
                    color_integer |= 1 << i;
                }
                if a.format.alpha_one {
                    color_alpha_one |= 1 << i;
                }
            }
        }
        let rs = c.render_state;
        let targets = crate::PipeTargets {
            topology: topo,
            patch_control_points: if topo == vk::PrimitiveTopology::PATCH_LIST {
                c.patch_vertices
            } else {
                0
            },
            colors,
            color_integer,
            color_alpha_one,
            depth: fb.depth.map(|a| a.format.vk).unwrap_or_default(),
            stencil: fb.stencil.map(|a| a.format.vk).unwrap_or_default(),
            samples: fb.samples(),
        };
        let pipe = {
            let sh = self.scr.shaders.get(c.shader).ok_or("shader vanished")?;
            let build = sh.built.as_ref().ok_or("shader vanished")?;
            let desc = PipeDesc::new(c.shader, build, &rs, p.index_size, &targets, &slots);
            let mut key = std::mem::take(&mut self.draw_scratch.key);
            desc.key_into(&mut key);
            let pipe = match self.pipelines.get(key.as_slice()) {
                Some(&p) => p,
                None => {
                    let np = pipeline::create_pipeline(&self.gpu, &desc)
                        .map_err(|e| format!("pipeline creation failed: {e}"))?;
                    self.pipelines.insert(key.clone(), np);
                    np
                }
            };
            self.draw_scratch.key = key;
            pipe
        };
        self.draw_scratch.slots = slots;

        // Descriptor sets.
        let mut sets = [vk::DescriptorSet::null(); SETS];
        let mut ubo_offsets = std::mem::take(&mut self.draw_scratch.ubo_offsets);
        ubo_offsets.clear();
        self.write_sets(c, c.shader, &plan, &mut sets, &mut ubo_offsets)?;

        // Indices (uploaded before the rendering instance opens).
        let inst = p.instance_count.max(1);
        let line_loop = p.mode == gl::LINE_LOOP;
        enum Kind {
            Arrays,
            /// (buffer, bind offset, type, count, first index)
            Indexed(vk::Buffer, u64, vk::IndexType, u32, u32),
        }
        let mut index_bytes = 0u64;
        let kind = if p.index_size == 0 {
            if line_loop && p.count >= 2 {
                if p.count > 1 << 24 {
                    return Err("line loop too long for the index emulation".into());
                }
                let end = p
                    .first
                    .checked_add(p.count)
                    .ok_or("first + count overflows")?;
                let idx: Vec<u32> = (p.first..end).chain([p.first]).collect();
                let bytes: &[u8] = bytemuck::cast_slice(&idx);
                let a = self
                    .frames
                    .upload(&self.gpu, bytes.len() as u64, 4)
                    .map_err(|e| e.to_string())?;
                a.write(0, bytes);
                Kind::Indexed(a.buffer, a.offset, vk::IndexType::UINT32, p.count + 1, 0)
            } else {
                Kind::Arrays
            }
        } else {
            let isz = p.index_size;
            let ty = match isz {
                1 if self.gpu.feat.index_u8 => vk::IndexType::UINT8_EXT,
                1 | 2 => vk::IndexType::UINT16,
                4 => vk::IndexType::UINT32,
                s => return Err(format!("bad index size {s}")),
            };
            let bytes = p.count as u64 * isz as u64;
            if !blob.is_empty() {
                if (blob.len() as u64) < bytes {
                    return Err(format!(
                        "client index blob too short ({} < {bytes})",
                        blob.len()
                    ));
                }
                let raw = &blob[..bytes as usize];
                let mut data = if isz == 1 && !self.gpu.feat.index_u8 {
                    widen_u8(raw)
                } else {
                    raw.to_vec()
                };
                let mut n = p.count;
                if line_loop && p.count >= 2 {
                    let w = data.len() / p.count as usize;
                    let first = data[..w].to_vec();
                    data.extend_from_slice(&first);
                    n = n.saturating_add(1);
                }
                let a = self
                    .frames
                    .upload(&self.gpu, data.len() as u64, 4)
                    .map_err(|e| e.to_string())?;
                a.write(0, &data);
                Kind::Indexed(a.buffer, a.offset, ty, n, 0)
            } else {
                let (raw, size) = self
                    .buffer_use(c.index_buffer)
                    .ok_or("indexed draw without a valid index buffer")?;
                index_bytes = size;
                if p.index_offset.checked_add(bytes).is_none_or(|e| e > size) {
                    return Err(format!(
                        "indices past the end of the index buffer (offset {} + {bytes} > {size})",
                        p.index_offset
                    ));
                }
                if !p.index_offset.is_multiple_of(isz as u64) {
                    return Err("index offset not a multiple of the index size".into());
                }
                if isz == 1 && !self.gpu.feat.index_u8 {
                    return Err(
                        "GL_UNSIGNED_BYTE indices in a buffer need VK_*_index_type_uint8".into(),
                    );
                }
                if line_loop {
                    self.warn_once(
                        "lineloop",
                        "GL_LINE_LOOP with buffer indices drawn as a line strip (named gap)",
                    );
                }
                // Bound at offset 0 (one bind for every draw from this
                // buffer); the offset becomes the first index.
                let first = u32::try_from(p.index_offset / isz as u64)
                    .map_err(|_| "index offset too large")?;
                Kind::Indexed(raw.buffer, 0, ty, p.count, first)
            }
        };

        // Record.
        let cmd = self.begin_rendering(&fb, true).map_err(|e| e.to_string())?;
        let lw = if self.gpu.feat.wide_lines && c.line_width.is_finite() {
            let r = self.gpu.props.limits.line_width_range;
            c.line_width.clamp(r[0], r[1])
        } else {
            1.0
        };
        let ds = frame::DynState {
            // glClipControl(GL_UPPER_LEFT): window y flipped, by a
            // negative-height viewport (core since Vulkan 1.1); the
            // pipeline's front face undoes the winding flip.
            viewport: if rs.clip_upper_left != 0 {
                [
                    vp.x,
                    vp.y + vp.height,
                    vp.width,
                    -vp.height,
                    vp.near.clamp(0.0, 1.0),
                    vp.far.clamp(0.0, 1.0),
                ]
            } else {
                [
                    vp.x,
                    vp.y,
                    vp.width,
                    vp.height,
                    vp.near.clamp(0.0, 1.0),
                    vp.far.clamp(0.0, 1.0),
                ]
            },
            scissor,
            blend: c.blend_color,
            stencil_ref: [rs.stencil_ref[0] as u32, rs.stencil_ref[1] as u32],
            depth_bias: [
                c.polygon_offset[1],
                c.polygon_offset[0],
                c.polygon_offset[2],
            ],
            line_width: lw,
        };
        // A draw that binds nothing new joins the pending draws (one
        // multi-draw); otherwise those are recorded before the bindings.
        let f = &self.frames;
        let rebind = f.bound_pipeline != pipe
            || f.dyn_state != Some(ds)
            || sets
                .iter()
                .enumerate()
                .any(|(i, s)| *s != vk::DescriptorSet::null() && f.bound_sets[i] != (layout, *s))
            || (sets[0] != vk::DescriptorSet::null() && f.bound_ubo_offsets != ubo_offsets)
            || vbinds.iter().any(|v| {
                f.bound_vertex
                    .get(v.binding as usize)
                    .is_none_or(|x| *x != (v.buffer, v.offset))
            })
            || matches!(kind, Kind::Indexed(buf, off, ty, ..) if f.bound_index != Some((buf, off, ty)));
        if rebind {
            self.frames.flush_draws(&self.gpu);
        }
        let d = &self.gpu.device;
        // SAFETY: recording inside the rendering instance the pipeline's
        // formats were keyed on; every bound object is live for this frame;
        // pending draws were recorded before any binding changes.
        unsafe {
            if self.frames.bound_pipeline != pipe {
                d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, pipe);
                self.frames.bound_pipeline = pipe;
            }
            // Dynamic state is set only where it differs from what this
            // command buffer last set (each call is a state change for the
            // driver).
            let old = self.frames.dyn_state.replace(ds);
            let changed = |f: &dyn Fn(&frame::DynState) -> bool| old.as_ref().is_none_or(f);
            if changed(&|o| o.viewport != ds.viewport) {
                let v = ds.viewport;
                d.cmd_set_viewport(
                    cmd,
                    0,
                    &[vk::Viewport {
                        x: v[0],
                        y: v[1],
                        width: v[2],
                        height: v[3],
                        min_depth: v[4],
                        max_depth: v[5],
                    }],
                );
            }
            if changed(&|o| o.scissor != ds.scissor) {
                d.cmd_set_scissor(cmd, 0, &[scissor]);
            }
            if changed(&|o| o.blend != ds.blend) {
                d.cmd_set_blend_constants(cmd, &ds.blend);
            }
            if changed(&|o| o.stencil_ref[0] != ds.stencil_ref[0]) {
                d.cmd_set_stencil_reference(cmd, vk::StencilFaceFlags::FRONT, ds.stencil_ref[0]);
            }
            if changed(&|o| o.stencil_ref[1] != ds.stencil_ref[1]) {
                d.cmd_set_stencil_reference(cmd, vk::StencilFaceFlags::BACK, ds.stencil_ref[1]);
            }
            if changed(&|o| o.depth_bias != ds.depth_bias) {
                d.cmd_set_depth_bias(cmd, ds.depth_bias[0], ds.depth_bias[2], ds.depth_bias[1]);
            }
            if changed(&|o| o.line_width != ds.line_width) {
                d.cmd_set_line_width(cmd, lw);
            }
            for (i, set) in sets.iter().enumerate() {
                let offsets: &[u32] = if i == UBO_SET as usize {
                    &ubo_offsets
                } else {
                    &[]
                };
                let moved = i == UBO_SET as usize && self.frames.bound_ubo_offsets != ubo_offsets;
                if *set != vk::DescriptorSet::null()
                    && (self.frames.bound_sets[i] != (layout, *set) || moved)
                {
                    self.frames.bound_sets[i] = (layout, *set);
                    if i == UBO_SET as usize {
                        self.frames.bound_ubo_offsets.clone_from(&ubo_offsets);
                    }
                    // Binding set i with another layout may disturb the
                    // sets above it: bind those again.
                    for above in self.frames.bound_sets.iter_mut().skip(i + 1) {
                        *above = (vk::PipelineLayout::null(), vk::DescriptorSet::null());
                    }
                    d.cmd_bind_descriptor_sets(
                        cmd,
                        vk::PipelineBindPoint::GRAPHICS,
                        layout,
                        i as u32,
                        std::slice::from_ref(set),
                        offsets,
                    );
                }
            }
            for &crate::VertexBind {
                binding: b,
                buffer: buf,
                offset: off,
                ..
            } in &vbinds
            {
                let bound = self.frames.bound_vertex.get_mut(b as usize);
                if bound.as_ref().is_some_and(|x| **x == (buf, off)) {
                    continue;
                }
                if let Some(x) = bound {
                    *x = (buf, off);
                }
                d.cmd_bind_vertex_buffers(cmd, b, &[buf], &[off]);
            }
            if let Kind::Indexed(buf, off, ty, ..) = kind {
                if self.frames.bound_index != Some((buf, off, ty)) {
                    d.cmd_bind_index_buffer(cmd, buf, off, ty);
                    self.frames.bound_index = Some((buf, off, ty));
                }
            }
        }
        self.draw_scratch.vbinds = vbinds;
        self.draw_scratch.ubo_offsets = ubo_offsets;
        match kind {
            Kind::Arrays => self.frames.push_draw(
                &self.gpu,
                (false, inst, p.base_instance),
                (p.first, p.count, 0),
            ),
            Kind::Indexed(_, _, _, n, first) => self.frames.push_draw(
                &self.gpu,
                (true, inst, p.base_instance),
                (first, n, p.base_vertex),
            ),
        }
        // Client-memory indices and line loops depend on the draw's own
        // data: only draws from buffers (or without indices) are followed.
        if blob.is_empty() && !line_loop {
            self.last_draw = Some(crate::LastDraw {
                epoch: self.epoch,
                serial: self.frames.next_serial,
                mode: p.mode,
                index_size: p.index_size,
                instance_count: p.instance_count,
                base_instance: p.base_instance,
                index_bytes,
                vbuf_locs,
                enabled_defaulted,
                targets,
            });
        }
        if p.base_instance != 0 {
            self.warn_once(
                "baseinstance",
                "base instance: gl_InstanceID includes it on Vulkan (named gap)",
            );
        }
        Ok(())
    }

    fn do_clear(&mut self, p: &calls::Clear) -> Result<(), String> {
        let Some(c) = self.cur_copy("clear") else {
            return Ok(());
        };
        let Some(fb) = self.resolve_fb(&c) else {
            return Ok(());
        };
        let Some(rect) = Self::scissor_rect(&c, fb.extent) else {
            return Ok(());
        };
        let rs = c.render_state;
        let color = match p.color_type {
            CLEAR_FLOAT => vk::ClearColorValue {
                float32: p.color.map(f32::from_bits),
            },
            CLEAR_INT => vk::ClearColorValue {
                int32: p.color.map(|v| v as i32),
            },
            CLEAR_UINT => vk::ClearColorValue { uint32: p.color },
            t => return Err(format!("unknown colour type {t}")),
        };
        let mut atts = Vec::new();
        // Partial masks go through the built-in clear program.
        let mut draw_masks = [0u32; 8];
        let mut int_masked = false;
        let mut slot = |i: usize, atts: &mut Vec<vk::ClearAttachment>| {
            let Some(a) = fb.colors[i] else {
                return;
            };
            let m = (rs.color_write_mask >> (4 * i)) & 0xf;
            if m == 0 {
                return;
            }
            if m != 0xf && p.color_type == CLEAR_FLOAT && !a.format.class.is_integer() {
                draw_masks[i] = m;
                return;
            }
            int_masked |= m != 0xf;
            atts.push(vk::ClearAttachment {
                aspect_mask: vk::ImageAspectFlags::COLOR,
                color_attachment: i as u32,
                clear_value: vk::ClearValue { color },
            });
        };
        if p.buffers & CLEAR_COLOR_ALL != 0 {
            for i in 0..8 {
                slot(i, &mut atts);
            }
        } else if p.buffers & CLEAR_COLOR_ONE != 0 && p.draw_buffer < 8 {
            slot(p.draw_buffer as usize, &mut atts);
        }
        if int_masked {
            self.warn_once(
                "maskedclear",
                "clear of an integer buffer with a partial colour mask cleared unmasked (named gap)",
            );
        }
        let mut ds = vk::ImageAspectFlags::empty();
        if p.buffers & CLEAR_DEPTH != 0 && fb.depth.is_some() && rs.depth_write != 0 {
            ds |= vk::ImageAspectFlags::DEPTH;
        }
        let smask = rs.stencil_write_mask[0] & 0xff;
        let mut stencil_draw = 0;
        if p.buffers & CLEAR_STENCIL != 0 && fb.stencil.is_some() && smask != 0 {
            if smask == 0xff {
                ds |= vk::ImageAspectFlags::STENCIL;
            } else {
                stencil_draw = smask;
            }
        }
        let depth = if p.depth.is_nan() {
            0.0
        } else {
            p.depth.clamp(0.0, 1.0)
        };
        if !ds.is_empty() {
            atts.push(vk::ClearAttachment {
                aspect_mask: ds,
                color_attachment: 0,
                clear_value: vk::ClearValue {
                    depth_stencil: vk::ClearDepthStencilValue {
                        depth,
                        stencil: p.stencil as u32,
                    },
                },
            });
        }
        let masked_draw = draw_masks.iter().any(|&m| m != 0) || stencil_draw != 0;
        if atts.is_empty() && !masked_draw {
            return Ok(());
        }
        let masked_pipe = if masked_draw {
            if self.dummies.clear.is_none() {
                self.dummies.clear =
                    Some(pipeline::ClearKit::new(&self.gpu).map_err(|e| e.to_string())?);
            }
            let mut colors = [vk::Format::UNDEFINED; 8];
            for (i, a) in fb.colors.iter().enumerate() {
                if let Some(a) = a {
                    colors[i] = a.format.vk;
                }
            }
            let desc = pipeline::ClearDesc {
                colors,
                masks: draw_masks,
                depth: fb.depth.map(|a| a.format.vk).unwrap_or_default(),
                stencil: fb.stencil.map(|a| a.format.vk).unwrap_or_default(),
                stencil_mask: stencil_draw,
                samples: fb.samples(),
            };
            let key = desc.key();
            let pipe = match self.pipelines.get(&key) {
                Some(&p) => p,
                None => {
                    let kit = self.dummies.clear.as_ref().ok_or("no clear kit")?;
                    let np = pipeline::create_clear_pipeline(&self.gpu, kit, &desc)
                        .map_err(|e| e.to_string())?;
                    self.pipelines.insert(key, np);
                    np
                }
            };
            Some((
                pipe,
                self.dummies
                    .clear
                    .as_ref()
                    .map(|k| k.layout)
                    .unwrap_or_default(),
            ))
        } else {
            None
        };
        // A clear never counts in a query (occlusion: GL 4.6 §4.2.1 counts
        // the samples of drawing commands only; nor does it generate
        // primitives): the draw that emulates a masked clear runs between
        // two segments of each active query (a segment begins and ends
        // outside rendering).
        let paused: Vec<frame::Segmented> = if masked_pipe.is_some() {
            frame::Segmented::ALL
                .into_iter()
                .filter(|&k| {
                    self.frames.active_seg[k as usize]
                        .as_ref()
                        .is_some_and(|a| a.open)
                })
                .collect()
        } else {
            Vec::new()
        };
        if !paused.is_empty() {
            self.frames
                .transfer_cmd(&self.gpu)
                .map_err(|e| e.to_string())?;
            for &k in &paused {
                self.frames.end_segment(&self.gpu, k);
            }
        }
        let cmd = self
            .begin_rendering(&fb, false)
            .map_err(|e| e.to_string())?;
        let rects = [vk::ClearRect {
            rect,
            base_array_layer: 0,
            layer_count: fb.layers(),
        }];
        let d = &self.gpu.device;
        // SAFETY: inside the rendering instance of `fb`; every attachment
        // index names a present attachment; the rect is inside the area;
        // the clear pipeline was made for exactly these formats.
        unsafe {
            if !atts.is_empty() {
                d.cmd_clear_attachments(cmd, &atts, &rects);
            }
            if let Some((pipe, layout)) = masked_pipe {
                d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, pipe);
                // Viewport, scissor, sets: the draw path must set its own again.
                self.frames.forget_bindings();
                self.frames.bound_pipeline = pipe;
                d.cmd_set_viewport(
                    cmd,
                    0,
                    &[vk::Viewport {
                        x: 0.0,
                        y: 0.0,
                        width: fb.extent.width as f32,
                        height: fb.extent.height as f32,
                        min_depth: 0.0,
                        max_depth: 1.0,
                    }],
                );
                d.cmd_set_scissor(cmd, 0, &[rect]);
                d.cmd_set_stencil_reference(
                    cmd,
                    vk::StencilFaceFlags::FRONT_AND_BACK,
                    p.stencil as u32,
                );
                // The clear pipeline uses Vulkan's [0, 1] clip depth and
                // never writes depth: z only has to survive clipping.
                let z = depth;
                let mut pc = [0u8; pipeline::CLEAR_PUSH_SIZE as usize];
                let c4 = p.color.map(f32::from_bits);
                pc[..16].copy_from_slice(bytemuck::cast_slice(&c4));
                pc[16..20].copy_from_slice(&z.to_le_bytes());
                d.cmd_push_constants(
                    cmd,
                    layout,
                    vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT,
                    0,
                    &pc,
                );
                d.cmd_draw(cmd, 3, 1, 0, 0);
            }
        }
        if !paused.is_empty() {
            let cmd = self
                .frames
                .transfer_cmd(&self.gpu)
                .map_err(|e| e.to_string())?;
            for k in paused {
                self.frames
                    .begin_segment(&self.gpu, cmd, k)
                    .map_err(|e| e.to_string())?;
            }
        }
        Ok(())
    }

    fn do_read_pixels(&mut self, p: &calls::ReadPixels, reply: &mut Vec<u8>) -> Result<(), String> {
        let bpp = emulation::bytes_per_pixel(p.format, p.r#type)
            .ok_or_else(|| format!("unknown format/type 0x{:X}/0x{:X}", p.format, p.r#type))?;
        let total = (p.width as u64)
            .saturating_mul(p.height as u64)
            .saturating_mul(bpp as u64);
        if total > MAX_REPLY {
            return Err("rectangle too large".into());
        }
        // `reply` stays empty until rows arrive; the caller pads it with
        // zeros to `total` bytes whatever happens.
        if total == 0 {
            return Ok(());
        }
        let Some(c) = self.cur_copy("read_pixels") else {
            return Ok(());
        };
        let aspect = match p.format {
            gl::DEPTH_COMPONENT => vk::ImageAspectFlags::DEPTH,
            gl::STENCIL_INDEX => vk::ImageAspectFlags::STENCIL,
            gl::DEPTH_STENCIL => return self.read_depth_stencil(p, total as usize, reply),
            _ => vk::ImageAspectFlags::COLOR,
        };
        let src = self
            .read_source(&c, aspect)
            .ok_or("no read buffer of that kind")?;
        let Some((x0, y0, cw, ch)) = clip(
            p.x as i64,
            p.y as i64,
            p.width as i64,
            p.height as i64,
            src.extent,
        ) else {
            return Ok(());
        };
        let mut tmp = None;
        let (image, level, layer, z) = if src.samples != vk::SampleCountFlags::TYPE_1 {
            if aspect != vk::ImageAspectFlags::COLOR {
                return Err(
                    "multisampled depth/stencil reads are not supported (named gap)".into(),
                );
            }
            let t = self.resolve_temp(&src).map_err(|e| e.to_string())?;
            let i = t.image;
            tmp = Some(t);
            (i, 0, 0, 0)
        } else {
            (src.image, src.level, src.layer, src.z)
        };
        let texel = emulation::copy_texel_size(src.format.vk, aspect);
        // The client asked for exactly the storage's texels: rows go from
        // the read-back mapping straight into the reply.
        let identity = aspect == vk::ImageAspectFlags::COLOR
            && !src.format.alpha_one
            && src.format.format == p.format
            && src.format.ty == p.r#type
            && texel as usize == bpp;
        let (px, py, pw) = (p.x as i64, p.y as i64, p.width as usize);
        let region = ImageRegion {
            image,
            aspect,
            texel,
            level,
            layer,
            offset: vk::Offset3D {
                x: x0 as i32,
                y: y0 as i32,
                z,
            },
            extent: vk::Extent3D {
                width: cw,
                height: ch,
                depth: 1,
            },
        };
        let data = self.read_image_with(&region, |bytes| {
            if !identity {
                return Some(bytes.to_vec());
            }
            if (x0 as i64, y0 as i64, cw, ch) == (px, py, p.width, p.height) {
                // The whole rectangle: no zero fill first.
                reply.clear();
                reply.extend_from_slice(bytes);
            } else {
                reply.resize(total as usize, 0);
                scatter_rows(reply, bytes, (x0, y0, cw, ch), (px, py, pw), bpp);
            }
            None
        });
        if let Some(t) = tmp {
            let mut g = Vec::new();
            resource::collect_image(t, &mut g);
            self.retire(g);
        }
        let Some(data) = data.map_err(|e| e.to_string())? else {
            return Ok(());
        };
        let n = cw as usize * ch as usize;
        let conv = Self::convert_read(src.format, aspect, data, n, p.format, p.r#type)?;
        reply.resize(total as usize, 0);
        scatter_rows(reply, &conv, (x0, y0, cw, ch), (px, py, pw), bpp);
        Ok(())
    }

    /// A `DEPTH_STENCIL` read: the depth aspect read as floats and the
    /// stencil aspect as bytes, packed into `UNSIGNED_INT_24_8` (depth in
    /// the high 24 bits) or `FLOAT_32_UNSIGNED_INT_24_8_REV` (a float, then
    /// a word with the stencil in its low 8 bits).
    fn read_depth_stencil(
        &mut self,
        p: &calls::ReadPixels,
        total: usize,
        reply: &mut Vec<u8>,
    ) -> Result<(), String> {
        let n = p.width as usize * p.height as usize;
        let (mut depth, mut stencil) = (Vec::new(), Vec::new());
        self.do_read_pixels(
            &calls::ReadPixels {
                format: gl::DEPTH_COMPONENT,
                r#type: gl::FLOAT,
                ..*p
            },
            &mut depth,
        )?;
        self.do_read_pixels(
            &calls::ReadPixels {
                format: gl::STENCIL_INDEX,
                r#type: gl::UNSIGNED_BYTE,
                ..*p
            },
            &mut stencil,
        )?;
        if depth.is_empty() && stencil.is_empty() {
            return Ok(());
        }
        depth.resize(n * 4, 0);
        stencil.resize(n, 0);
        let packed = emulation::pack_depth_stencil(&depth, &stencil, p.r#type)
            .ok_or_else(|| format!("no DEPTH_STENCIL read of type 0x{:X}", p.r#type))?;
        reply.clear();
        reply.extend_from_slice(&packed);
        reply.resize(total, 0);
        Ok(())
    }

    /// `read_pixels_into`: only the identity read of a whole single-sampled
    /// colour rectangle inside the surface (rows go from the read-back
    /// mapping straight into `dst`); Ok(false) declines before any GPU work.
    fn do_read_pixels_into(
        &mut self,
        p: &calls::ReadPixels,
        dst: &mut [u8],
    ) -> Result<bool, String> {
        let Some(bpp) = emulation::bytes_per_pixel(p.format, p.r#type) else {
            return Ok(false);
        };
        let total = (p.width as u64)
            .saturating_mul(p.height as u64)
            .saturating_mul(bpp as u64);
        if total == 0 || total != dst.len() as u64 || total > MAX_REPLY {
            return Ok(false);
        }
        if matches!(
            p.format,
            gl::DEPTH_COMPONENT | gl::STENCIL_INDEX | gl::DEPTH_STENCIL
        ) {
            return Ok(false);
        }
        let Some(c) = self.cur_copy("read_pixels") else {
            return Ok(false);
        };
        let aspect = vk::ImageAspectFlags::COLOR;
        let Some(src) = self.read_source(&c, aspect) else {
            return Ok(false);
        };
        let whole = p.x >= 0
            && p.y >= 0
            && clip(
                p.x as i64,
                p.y as i64,
                p.width as i64,
                p.height as i64,
                src.extent,
            ) == Some((p.x as u32, p.y as u32, p.width, p.height));
        let texel = emulation::copy_texel_size(src.format.vk, aspect);
        let identity = !src.format.alpha_one
            && src.format.format == p.format
            && src.format.ty == p.r#type
            && texel as usize == bpp;
        if !whole || !identity || src.samples != vk::SampleCountFlags::TYPE_1 {
            return Ok(false);
        }
        let region = ImageRegion {
            image: src.image,
            aspect,
            texel,
            level: src.level,
            layer: src.layer,
            offset: vk::Offset3D {
                x: p.x,
                y: p.y,
                z: src.z,
            },
            extent: vk::Extent3D {
                width: p.width,
                height: p.height,
                depth: 1,
            },
        };
        // The host address the driver copies from, where known: the
        // image's first byte (a read from the origin of level 0, layer 0).
        let src_addr = (src.host.addr != 0
            && src.level == 0
            && src.layer == 0
            && src.z == 0
            && p.x == 0
            && p.y == 0)
            .then_some(src.host.addr);
        // The device writes `dst` itself where it can (no copy after the wait).
        if self
            .read_image_into(&region, src_addr, dst)
            .map_err(|e| e.to_string())?
        {
            return Ok(true);
        }
        // Else the host reads a LINEAR image in place after the wait.
        if src.linear
            && self
                .host_read_image(&region, src.host, dst)
                .map_err(|e| e.to_string())?
        {
            return Ok(true);
        }
        self.read_image_with(&region, |bytes| match bytes.get(..dst.len()) {
            Some(b) => {
                mgpipe::bytes::copy(dst, b);
                true
            }
            None => false,
        })
        .map_err(|e| e.to_string())
    }

    /// Tight texels read back from storage `sff` (one aspect) converted to
    /// the client's format/type.
    pub(crate) fn convert_read(
        sff: StorageFormat,
        aspect: vk::ImageAspectFlags,
        mut data: Vec<u8>,
        n: usize,
        format: u32,
        ty: u32,
    ) -> Result<Vec<u8>, String> {
        let (mut sf, mut st) = (sff.format, sff.ty);
        if aspect == vk::ImageAspectFlags::STENCIL {
            (sf, st) = (gl::STENCIL_INDEX, gl::UNSIGNED_BYTE);
        } else if aspect == vk::ImageAspectFlags::DEPTH {
            match sff.vk {
                vk::Format::D16_UNORM => (sf, st) = (gl::DEPTH_COMPONENT, gl::UNSIGNED_SHORT),
                vk::Format::X8_D24_UNORM_PACK32 | vk::Format::D24_UNORM_S8_UINT => {
                    let f: Vec<f32> = data
                        .chunks_exact(4)
                        .map(|b| {
                            (u32::from_le_bytes([b[0], b[1], b[2], b[3]]) & 0xff_ffff) as f32
                                / 16_777_215.0
                        })
                        .collect();
                    data = bytemuck::cast_slice(&f).to_vec();
                    (sf, st) = (gl::DEPTH_COMPONENT, gl::FLOAT);
                }
                _ => (sf, st) = (gl::DEPTH_COMPONENT, gl::FLOAT),
            }
        } else if sff.alpha_one {
            // GL reads alpha 1 from formats without alpha.
            let (rf, rt) = match sff.class {
                FormatClass::Int => (gl::RGB_INTEGER, gl::INT),
                FormatClass::Uint => (gl::RGB_INTEGER, gl::UNSIGNED_INT),
                _ => (gl::RGB, gl::FLOAT),
            };
            data = emulation::convert(&data, sf, st, rf, rt, n)
                .ok_or("alpha-one conversion failed")?;
            (sf, st) = (rf, rt);
        }
        emulation::convert(&data, sf, st, format, ty, n)
            .ok_or_else(|| format!("no conversion from 0x{sf:X}/0x{st:X} to 0x{format:X}/0x{ty:X}"))
    }

    fn do_buffer_readback(
        &mut self,
        p: &calls::BufferReadback,
        reply: &mut Vec<u8>,
    ) -> Result<(), String> {
        if p.size > MAX_REPLY {
            return Err("size too large".into());
        }
        reply.resize(p.size as usize, 0);
        if p.size == 0 {
            return Ok(());
        }
        let (raw, size) = self.buffer_use(p.res).ok_or("unknown buffer")?;
        if p.offset.checked_add(p.size).is_none_or(|e| e > size) {
            return Err(format!(
                "range {}+{} past the end ({size})",
                p.offset, p.size
            ));
        }
        let copy = |gpu: &crate::device::Gpu, cmd: vk::CommandBuffer, dst: vk::Buffer| {
            // SAFETY: recording outside rendering; ranges checked above;
            // the read-back buffer holds `size` bytes.
            unsafe {
                gpu.device.cmd_copy_buffer(
                    cmd,
                    raw.buffer,
                    dst,
                    &[vk::BufferCopy {
                        src_offset: p.offset,
                        dst_offset: 0,
                        size: p.size,
                    }],
                )
            };
        };
        self.read_back(p.size, copy, |bytes| {
            mgpipe::bytes::copy(reply, bytes);
        })
        .map_err(|e| e.to_string())
    }

    fn do_blit(&mut self, p: &calls::Blit) -> Result<(), String> {
        let Some(c) = self.cur_copy("blit") else {
            return Ok(());
        };
        let Some(fb) = self.resolve_fb(&c) else {
            return Ok(());
        };
        let mut jobs: Vec<(Src, Attach, vk::ImageAspectFlags)> = Vec::new();
        if p.mask & gl::COLOR_BUFFER_BIT != 0 {
            if let Some(s) = self.read_source(&c, vk::ImageAspectFlags::COLOR) {
                for a in fb.colors.iter().flatten() {
                    jobs.push((s, *a, vk::ImageAspectFlags::COLOR));
                }
            }
        }
        let ds_mask = p.mask & (gl::DEPTH_BUFFER_BIT | gl::STENCIL_BUFFER_BIT);
        if ds_mask != 0 {
            let (asp, dst) = match ds_mask {
                gl::DEPTH_BUFFER_BIT => (vk::ImageAspectFlags::DEPTH, fb.depth),
                gl::STENCIL_BUFFER_BIT => (vk::ImageAspectFlags::STENCIL, fb.stencil),
                _ => (
                    vk::ImageAspectFlags::DEPTH | vk::ImageAspectFlags::STENCIL,
                    fb.depth
                        .filter(|d| fb.stencil.is_some_and(|s| s.view == d.view)),
                ),
            };
            let probe = if asp.contains(vk::ImageAspectFlags::DEPTH) {
                vk::ImageAspectFlags::DEPTH
            } else {
                vk::ImageAspectFlags::STENCIL
            };
            if let (Some(s), Some(d)) = (self.read_source(&c, probe), dst) {
                if s.format.vk == d.format.vk {
                    jobs.push((s, d, asp));
                } else {
                    warn!("blit: depth/stencil formats differ, skipped");
                }
            }
        }
        if jobs.is_empty() {
            return Ok(());
        }
        let mut cmd = self
            .frames
            .transfer_cmd(&self.gpu)
            .map_err(|e| e.to_string())?;
        let (s, d) = (p.src, p.dst);
        for (src, dst, asp) in jobs {
            let ss = |l: u32| vk::ImageSubresourceLayers {
                aspect_mask: asp,
                mip_level: l,
                base_array_layer: 0,
                layer_count: 1,
            };
            let mut srs = ss(src.level);
            srs.base_array_layer = src.layer;
            let mut drs = ss(dst.level);
            drs.base_array_layer = dst.layer;
            let cl = |v: i32, max: u32| v.clamp(0, max as i32);
            // A 3D slice is the box [z, z + 1) of its image.
            let so = [
                vk::Offset3D {
                    x: cl(s[0], src.extent.width),
                    y: cl(s[1], src.extent.height),
                    z: src.z,
                },
                vk::Offset3D {
                    x: cl(s[2], src.extent.width),
                    y: cl(s[3], src.extent.height),
                    z: src.z + 1,
                },
            ];
            let dof = [
                vk::Offset3D {
                    x: cl(d[0], dst.extent.width),
                    y: cl(d[1], dst.extent.height),
                    z: dst.z,
                },
                vk::Offset3D {
                    x: cl(d[2], dst.extent.width),
                    y: cl(d[3], dst.extent.height),
                    z: dst.z + 1,
                },
            ];
            if so[0].x == so[1].x
                || so[0].y == so[1].y
                || dof[0].x == dof[1].x
                || dof[0].y == dof[1].y
            {
                continue;
            }
            // The scissor test applies to blits (GL 4.6 §18.3.1); Vulkan's
            // blit and resolve ignore it, so the written rectangle is cut to
            // the scissor box: `cut` is what may be written when that is
            // less than the whole rectangle.
            let written = [
                dof[0].x.min(dof[1].x),
                dof[0].y.min(dof[1].y),
                dof[0].x.max(dof[1].x),
                dof[0].y.max(dof[1].y),
            ];
            let Some(r) = Self::scissor_rect(&c, dst.extent) else {
                continue;
            };
            let kept = [
                written[0].max(r.offset.x),
                written[1].max(r.offset.y),
                written[2].min(r.offset.x + r.extent.width as i32),
                written[3].min(r.offset.y + r.extent.height as i32),
            ];
            if kept[2] <= kept[0] || kept[3] <= kept[1] {
                continue;
            }
            let cut = (kept != written).then_some(kept);
            let single = src.samples == vk::SampleCountFlags::TYPE_1;
            if single && (src.three_d != dst.three_d || cut.is_some()) {
                let filter = self.blit_filter(p.filter, &src, asp);
                let copy = cut.unwrap_or(written);
                if let Err(e) = self.blit_via_temp(&src, &dst, srs, so, drs, dof, copy, filter) {
                    warn!("blit through a temporary image: {e}, skipped");
                }
                cmd = self
                    .frames
                    .transfer_cmd(&self.gpu)
                    .map_err(|e| e.to_string())?;
                continue;
            }
            // SAFETY: recording outside rendering; images in GENERAL; offsets
            // clamped inside both images.
            unsafe {
                if src.samples != vk::SampleCountFlags::TYPE_1 {
                    let same = so[1].x - so[0].x == dof[1].x - dof[0].x
                        && so[1].y - so[0].y == dof[1].y - dof[0].y
                        && so[0].x < so[1].x
                        && so[0].y < so[1].y;
                    if !same || asp != vk::ImageAspectFlags::COLOR || src.format.vk != dst.format.vk
                    {
                        warn!("blit: multisample resolve with scaling/flip/format change not supported, skipped");
                        continue;
                    }
                    // Unscaled and unflipped: the scissor cut moves both
                    // rectangles by the same amount.
                    let (mut so, mut dof) = (so, dof);
                    if let Some([x0, y0, x1, y1]) = cut {
                        so[0].x += x0 - dof[0].x;
                        so[0].y += y0 - dof[0].y;
                        so[1].x = so[0].x + (x1 - x0);
                        so[1].y = so[0].y + (y1 - y0);
                        dof[0].x = x0;
                        dof[0].y = y0;
                    }
                    self.gpu.device.cmd_resolve_image(
                        cmd,
                        src.image,
                        vk::ImageLayout::GENERAL,
                        dst.image,
                        vk::ImageLayout::GENERAL,
                        &[vk::ImageResolve {
                            src_subresource: srs,
                            src_offset: so[0],
                            dst_subresource: drs,
                            dst_offset: dof[0],
                            extent: vk::Extent3D {
                                width: (so[1].x - so[0].x) as u32,
                                height: (so[1].y - so[0].y) as u32,
                                depth: 1,
                            },
                        }],
                    );
                } else if asp != vk::ImageAspectFlags::COLOR
                    && asp != vk::ImageAspectFlags::DEPTH | vk::ImageAspectFlags::STENCIL
                    && dst.format.class.has_depth()
                    && dst.format.class.has_stencil()
                {
                    let filter = self.blit_filter(p.filter, &src, asp);
                    if let Err(e) =
                        self.blit_keeping_other_aspect(&src, &dst, srs, so, drs, dof, filter)
                    {
                        warn!("depth/stencil blit keeping the other aspect: {e}, skipped");
                    }
                    cmd = self
                        .frames
                        .transfer_cmd(&self.gpu)
                        .map_err(|e| e.to_string())?;
                } else {
                    let filter = self.blit_filter(p.filter, &src, asp);
                    blit_general(
                        &self.gpu.device,
                        cmd,
                        src.image,
                        dst.image,
                        (srs, so, drs, dof),
                        filter,
                    );
                }
            }
        }
        frame::barrier(&self.gpu, cmd);
        Ok(())
    }

    /// A depth-only or stencil-only blit (aspect of `drs`) into a
    /// depth/stencil image whose other aspect must stay (GL 4.6 §18.3.1;
    /// Vulkan promises it too). Emulation: lavapipe (Mesa 22.3) blits and
    /// copies packed depth/stencil texels whole, whatever the aspect, so the
    /// destination rectangle's other aspect is saved to a buffer first and
    /// written back after the blit (buffer copies of one aspect do keep the
    /// other).
    #[allow(clippy::too_many_arguments)]
    fn blit_keeping_other_aspect(
        &mut self,
        src: &Src,
        dst: &Attach,
        srs: vk::ImageSubresourceLayers,
        so: [vk::Offset3D; 2],
        drs: vk::ImageSubresourceLayers,
        dof: [vk::Offset3D; 2],
        filter: vk::Filter,
    ) -> Result<(), String> {
        let (x0, x1) = (dof[0].x.min(dof[1].x), dof[0].x.max(dof[1].x));
        let (y0, y1) = (dof[0].y.min(dof[1].y), dof[0].y.max(dof[1].y));
        let (w, h) = ((x1 - x0) as u32, (y1 - y0) as u32);
        let (other, texel) = if drs.aspect_mask == vk::ImageAspectFlags::DEPTH {
            // One byte per stencil texel (S8_UINT's buffer layout).
            (vk::ImageAspectFlags::STENCIL, 1)
        } else if dst.format.vk == vk::Format::D16_UNORM_S8_UINT {
            (vk::ImageAspectFlags::DEPTH, 2)
        } else {
            // X8_D24 words or 32-bit floats.
            (vk::ImageAspectFlags::DEPTH, 4)
        };
        let saved = self
            .gpu
            .create_buffer(
                u64::from(w) * u64::from(h) * texel,
                vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST,
                false,
            )
            .map_err(|e| e.to_string())?;
        let region = vk::BufferImageCopy {
            buffer_offset: 0,
            buffer_row_length: 0,
            buffer_image_height: 0,
            image_subresource: vk::ImageSubresourceLayers {
                aspect_mask: other,
                ..drs
            },
            image_offset: vk::Offset3D {
                x: x0,
                y: y0,
                z: dst.z,
            },
            image_extent: vk::Extent3D {
                width: w,
                height: h,
                depth: 1,
            },
        };
        let res = self.frames.transfer_cmd(&self.gpu).map(|cmd| {
            // SAFETY: recording outside rendering (transfer_cmd); both
            // images in GENERAL; the rectangle lies inside the destination
            // level (clamped by the caller) and the buffer holds its
            // `other`-aspect bytes.
            unsafe {
                self.gpu.device.cmd_copy_image_to_buffer(
                    cmd,
                    dst.image,
                    vk::ImageLayout::GENERAL,
                    saved.buffer,
                    &[region],
                );
                frame::barrier(&self.gpu, cmd);
                blit_general(
                    &self.gpu.device,
                    cmd,
                    src.image,
                    dst.image,
                    (srs, so, drs, dof),
                    filter,
                );
                frame::barrier(&self.gpu, cmd);
                self.gpu.device.cmd_copy_buffer_to_image(
                    cmd,
                    saved.buffer,
                    dst.image,
                    vk::ImageLayout::GENERAL,
                    &[region],
                );
                frame::barrier(&self.gpu, cmd);
            }
        });
        self.retire(vec![Garbage::Buffer(saved)]);
        res.map_err(|e| e.to_string())
    }

    /// The filter of a blit from `src`: LINEAR only where GL asked for it
    /// and the format can be filtered.
    fn blit_filter(&self, gl_filter: u32, src: &Src, asp: vk::ImageAspectFlags) -> vk::Filter {
        let linear = gl_filter == gl::LINEAR
            && asp == vk::ImageAspectFlags::COLOR
            && !src.format.class.is_integer()
            && self
                .gpu
                .format_features(src.format.vk)
                .contains(vk::FormatFeatureFlags::SAMPLED_IMAGE_FILTER_LINEAR);
        if linear {
            vk::Filter::LINEAR
        } else {
            vk::Filter::NEAREST
        }
    }

    /// A single-sampled blit in two steps: a blit into a temporary 2D image
    /// of the destination's format and level size, then a copy of `copy`
    /// (x0, y0, x1, y1: the written rectangle, or the part of it inside
    /// the scissor box) into the destination. Both steps are plain Vulkan.
    /// Used where one blit cannot do it: a scissor box that cuts the
    /// written rectangle (a cut source rectangle would need fractional
    /// offsets once scaled), and blits between a 3D slice and a non-3D
    /// image, because lavapipe's vkCmdBlitImage addresses *both* images
    /// the way the *source* image type dictates (a 2D source puts the
    /// destination slice at `baseArrayLayer`, which must be 0 for a 3D
    /// image, so a direct blit lands in slice 0), while its vkCmdCopyImage
    /// treats each image by its own type.
    #[allow(clippy::too_many_arguments)]
    fn blit_via_temp(
        &mut self,
        src: &Src,
        dst: &Attach,
        srs: vk::ImageSubresourceLayers,
        so: [vk::Offset3D; 2],
        drs: vk::ImageSubresourceLayers,
        dof: [vk::Offset3D; 2],
        copy: [i32; 4],
        filter: vk::Filter,
    ) -> Result<(), String> {
        let tmp = self
            .create_image(
                dst.format,
                0,
                vk::ImageType::TYPE_2D,
                vk::ImageViewType::TYPE_2D,
                vk::Extent3D {
                    width: dst.extent.width,
                    height: dst.extent.height,
                    depth: 1,
                },
                1,
                1,
                1,
            )
            .map_err(|e| e.to_string())?;
        let res = self.frames.transfer_cmd(&self.gpu).map(|cmd| {
            let tmp_sub = vk::ImageSubresourceLayers {
                mip_level: 0,
                base_array_layer: 0,
                ..drs
            };
            let flat = |o: vk::Offset3D, z: i32| vk::Offset3D { z, ..o };
            let [x0, y0, x1, y1] = copy;
            // SAFETY: recording outside rendering (transfer_cmd); every
            // image in GENERAL (the temporary's transition was recorded by
            // create_image); the offsets were clamped inside the source and
            // the destination level, which the temporary matches in size.
            unsafe {
                self.gpu.device.cmd_blit_image(
                    cmd,
                    src.image,
                    vk::ImageLayout::GENERAL,
                    tmp.image,
                    vk::ImageLayout::GENERAL,
                    &[vk::ImageBlit {
                        src_subresource: srs,
                        src_offsets: so,
                        dst_subresource: tmp_sub,
                        dst_offsets: [flat(dof[0], 0), flat(dof[1], 1)],
                    }],
                    filter,
                );
                frame::barrier(&self.gpu, cmd);
                self.gpu.device.cmd_copy_image(
                    cmd,
                    tmp.image,
                    vk::ImageLayout::GENERAL,
                    dst.image,
                    vk::ImageLayout::GENERAL,
                    &[vk::ImageCopy {
                        src_subresource: tmp_sub,
                        src_offset: vk::Offset3D { x: x0, y: y0, z: 0 },
                        dst_subresource: drs,
                        dst_offset: vk::Offset3D {
                            x: x0,
                            y: y0,
                            z: dst.z,
                        },
                        extent: vk::Extent3D {
                            width: (x1 - x0) as u32,
                            height: (y1 - y0) as u32,
                            depth: 1,
                        },
                    }],
                );
            }
        });
        let mut g = Vec::new();
        resource::collect_image(tmp, &mut g);
        self.retire(g);
        res.map_err(|e| e.to_string())
    }

    /// Client pixels made into the storage's texel bytes (borrowed when
    /// they already are: no copy of an upload in the storage's format).
    fn texel_data<'b>(
        &self,
        sf: &StorageFormat,
        blob: &'b [u8],
        format: u32,
        ty: u32,
        extent: (u32, u32, u32),
    ) -> Result<(std::borrow::Cow<'b, [u8]>, vk::ImageAspectFlags), String> {
        let size = emulation::image_size(format, ty, extent.0, extent.1, extent.2)
            .ok_or_else(|| format!("unknown client format/type 0x{format:X}/0x{ty:X}"))?;
        if blob.len() < size {
            return Err(format!("pixel blob too short ({} < {size})", blob.len()));
        }
        let pixels = extent.0 as usize * extent.1 as usize * extent.2.max(1) as usize;
        let blob = &blob[..size];
        if sf.class.is_color() {
            let same = emulation::bytes_per_pixel(format, ty)
                .filter(|_| format == sf.format && ty == sf.ty)
                .and_then(|b| blob.get(..b.checked_mul(pixels)?));
            if let Some(texels) = same {
                return Ok((texels.into(), vk::ImageAspectFlags::COLOR));
            }
            let data = emulation::convert(blob, format, ty, sf.format, sf.ty, pixels).ok_or_else(
                || format!("no conversion from 0x{format:X}/0x{ty:X} for this texture"),
            )?;
            return Ok((data.into(), vk::ImageAspectFlags::COLOR));
        }
        if format == gl::STENCIL_INDEX && sf.class.has_stencil() {
            let data = emulation::convert(
                blob,
                format,
                ty,
                gl::STENCIL_INDEX,
                gl::UNSIGNED_BYTE,
                pixels,
            )
            .ok_or("no stencil conversion")?;
            return Ok((data.into(), vk::ImageAspectFlags::STENCIL));
        }
        if format != gl::DEPTH_COMPONENT || !sf.class.has_depth() {
            return Err("depth/stencil uploads need DEPTH_COMPONENT data (packed DEPTH_STENCIL is a named gap)".into());
        }
        let data = match sf.vk {
            vk::Format::D16_UNORM => emulation::convert(
                blob,
                format,
                ty,
                gl::DEPTH_COMPONENT,
                gl::UNSIGNED_SHORT,
                pixels,
            ),
            vk::Format::X8_D24_UNORM_PACK32 | vk::Format::D24_UNORM_S8_UINT => {
                emulation::convert(blob, format, ty, gl::DEPTH_COMPONENT, gl::FLOAT, pixels).map(
                    |f| {
                        f.chunks_exact(4)
                            .flat_map(|b| {
                                let v =
                                    f32::from_le_bytes([b[0], b[1], b[2], b[3]]).clamp(0.0, 1.0);
                                ((v * 16_777_215.0).round() as u32).to_le_bytes()
                            })
                            .collect()
                    },
                )
            }
            _ => emulation::convert(blob, format, ty, gl::DEPTH_COMPONENT, gl::FLOAT, pixels),
        }
        .ok_or("no depth conversion")?;
        Ok((data.into(), vk::ImageAspectFlags::DEPTH))
    }

    /// Make sure texture `res` has an image able to hold `level` of the
    /// given size; returns false (logged) when it cannot.
    #[allow(clippy::too_many_arguments)]
    fn ensure_texture_image(
        &mut self,
        res: Handle,
        image_target: u32,
        internal: u32,
        level: u32,
        w: u32,
        h: u32,
        d: u32,
        levels: Option<u32>,
    ) -> Result<(), String> {
        let bind = emulation::binding_target(image_target);
        let (it, vt) = emulation::texture_shape(bind)
            .ok_or_else(|| format!("texture target 0x{image_target:X} not supported"))?;
        let (lext, layers) = emulation::extent_and_layers(image_target, w, h, d);
        if level >= 16 {
            return Err(format!("level {level} out of range"));
        }
        let lim = self.gpu.props.limits;
        if layers > lim.max_image_array_layers
            || (it == vk::ImageType::TYPE_3D && lext.depth > lim.max_image_dimension3_d)
        {
            return Err("too many layers / too deep".into());
        }
        let up = |v: u32, on: bool| {
            if on {
                v.checked_shl(level).unwrap_or(u32::MAX)
            } else {
                v
            }
        };
        let base = vk::Extent3D {
            width: up(lext.width, true),
            height: up(lext.height, it != vk::ImageType::TYPE_1D),
            depth: up(lext.depth, it == vk::ImageType::TYPE_3D),
        };
        let max = self.gpu.props.limits.max_image_dimension2_d.max(1);
        if base.width > max || base.height > max || base.depth > max {
            return Err("texture too large".into());
        }
        let sf = self.storage_format(internal);
        let Some(ResKind::Texture {
            target,
            samples,
            img,
            ..
        }) = self.scr.resources.get_mut(res).map(|r| &mut r.kind)
        else {
            return Err(format!("unknown texture {res:?}"));
        };
        if *target == 0 {
            *target = bind;
        } else if *target != bind {
            return Err(format!(
                "target 0x{image_target:X} does not match the texture's 0x{:X}",
                *target
            ));
        }
        let samples = *samples;
        // A mutable texture's level `level` fits the current storage when it
        // has the extent that level has in the storage's chain (GL halves
        // with truncation, so a level > 0 alone cannot say what level 0 is:
        // 65x32 has a level 1 of 32x16, which doubled is 64x32).
        let fits = img.as_ref().is_some_and(|i| {
            i.format == sf
                && i.gl_internal == internal
                && level_extent(i.extent, level) == lext
                && i.layers == layers
                && level < i.levels
                && levels.is_none()
        });
        if fits {
            return Ok(());
        }
        if let Some(why) = sf.emulation {
            debug!(?res, format = internal, why, "texture format emulated");
        }
        let old = img.take();
        let chain = levels.unwrap_or_else(|| emulation::full_chain(base));
        let mut new = self
            .create_image(sf, internal, it, vt, base, layers, chain, samples)
            .map_err(|e| e.to_string())?;
        // Fresh storage reads as zeros: a LINEAR image is zeroed by the host
        // (no device work, and the host may go on writing it this frame),
        // any other by a clear.
        let clear_cmd = if self.host_zero_image(&new) {
            None
        } else {
            self.frames.transfer_cmd(&self.gpu).ok()
        };
        if let Some(cmd) = clear_cmd {
            let range = [resource::full_range(&new)];
            // SAFETY: recording outside rendering; a fresh image in GENERAL.
            unsafe {
                if sf.class.is_color() {
                    self.gpu.device.cmd_clear_color_image(
                        cmd,
                        new.image,
                        vk::ImageLayout::GENERAL,
                        &vk::ClearColorValue::default(),
                        &range,
                    );
                } else {
                    self.gpu.device.cmd_clear_depth_stencil_image(
                        cmd,
                        new.image,
                        vk::ImageLayout::GENERAL,
                        &vk::ClearDepthStencilValue::default(),
                        &range,
                    );
                }
            }
            frame::barrier(&self.gpu, cmd);
        }
        if levels.is_some() {
            new.defined = u64::MAX;
        }
        if let Some(o) = old {
            if levels.is_none() {
                self.carry_levels(&o, &mut new, level);
            }
            debug!(?res, kept = new.defined, "texture storage redefined");
            let mut g = Vec::new();
            resource::collect_image(o, &mut g);
            self.retire(g);
        }
        if let Some(ResKind::Texture { img, .. }) =
            self.scr.resources.get_mut(res).map(|r| &mut r.kind)
        {
            *img = Some(new);
        }
        Ok(())
    }

    /// Copy into `new` the defined levels of `old` (other than `skip`, which
    /// is being redefined) whose extent is the same in both chains, so that
    /// redefining one level of a mutable texture keeps the others.
    fn carry_levels(&mut self, old: &ImageRes, new: &mut ImageRes, skip: u32) {
        if old.format != new.format || old.layers != new.layers || old.samples != new.samples {
            return;
        }
        let asp = emulation::aspect(old.format.class);
        let mut regions = Vec::new();
        let mut kept = 0u64;
        for l in 0..old.levels.min(new.levels).min(64) {
            let e = level_extent(old.extent, l);
            if l == skip || old.defined & (1u64 << l) == 0 || e != level_extent(new.extent, l) {
                continue;
            }
            let sub = vk::ImageSubresourceLayers {
                aspect_mask: asp,
                mip_level: l,
                base_array_layer: 0,
                layer_count: old.layers,
            };
            regions.push(vk::ImageCopy {
                src_subresource: sub,
                src_offset: vk::Offset3D::default(),
                dst_subresource: sub,
                dst_offset: vk::Offset3D::default(),
                extent: e,
            });
            kept |= 1u64 << l;
        }
        if regions.is_empty() {
            return;
        }
        let Ok(cmd) = self.frames.transfer_cmd(&self.gpu) else {
            return;
        };
        // SAFETY: recording outside rendering; both images live (the old one
        // is retired only after this), in GENERAL, same format, and every
        // region lies inside a level both of them have.
        unsafe {
            self.gpu.device.cmd_copy_image(
                cmd,
                old.image,
                vk::ImageLayout::GENERAL,
                new.image,
                vk::ImageLayout::GENERAL,
                &regions,
            )
        };
        frame::barrier(&self.gpu, cmd);
        new.defined |= kept;
    }

    /// (image, format, levels, extent) of a texture's storage.
    fn texture_image_of(
        &self,
        res: Handle,
    ) -> Option<(vk::Image, StorageFormat, u32, vk::Extent3D, u32)> {
        match self.scr.resources.get(res).map(|r| &r.kind) {
            Some(ResKind::Texture { img: Some(i), .. }) => {
                Some((i.image, i.format, i.levels, i.extent, i.layers))
            }
            _ => None,
        }
    }

    fn mark_defined(&mut self, res: Handle, level: u32) {
        if let Some(ResKind::Texture { img: Some(i), .. }) =
            self.scr.resources.get_mut(res).map(|r| &mut r.kind)
        {
            i.defined |= 1u64 << level.min(63);
        }
    }

    /// Offset/extent/layers of a box of `target`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn region(
        target: u32,
        x: i32,
        y: i32,
        z: i32,
        w: u32,
        h: u32,
        d: u32,
    ) -> (vk::Offset3D, vk::Extent3D, u32, u32) {
        let e = |w: u32, h: u32, d: u32| vk::Extent3D {
            width: w,
            height: h,
            depth: d,
        };
        let o = |x: i32, y: i32, z: i32| vk::Offset3D { x, y, z };
        match target {
            gl::TEXTURE_1D => (o(x, 0, 0), e(w, 1, 1), 0, 1),
            gl::TEXTURE_1D_ARRAY => (o(x, 0, 0), e(w, 1, 1), y.max(0) as u32, h),
            gl::TEXTURE_3D => (o(x, y, z), e(w, h, d), 0, 1),
            gl::TEXTURE_2D_ARRAY
            | gl::TEXTURE_CUBE_MAP_ARRAY
            | gl::TEXTURE_2D_MULTISAMPLE_ARRAY => (o(x, y, 0), e(w, h, 1), z.max(0) as u32, d),
            t @ gl::TEXTURE_CUBE_MAP_POSITIVE_X..=gl::TEXTURE_CUBE_MAP_NEGATIVE_Z => (
                o(x, y, 0),
                e(w, h, 1),
                t - gl::TEXTURE_CUBE_MAP_POSITIVE_X,
                1,
            ),
            _ => (o(x, y, 0), e(w, h, 1), 0, 1),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn upload_box(
        &mut self,
        res: Handle,
        target: u32,
        level: u32,
        bx: (i32, i32, i32, u32, u32, u32),
        format: u32,
        ty: u32,
        blob: &[u8],
    ) -> Result<(), String> {
        let (image, sf, levels, extent, layers) =
            self.texture_image_of(res).ok_or("texture has no storage")?;
        if level >= levels {
            return Err(format!("level {level} beyond the storage's {levels}"));
        }
        let (off, ext, base_layer, nlayers) =
            Self::region(target, bx.0, bx.1, bx.2, bx.3, bx.4, bx.5);
        let le = level_extent(extent, level);
        let inside = off.x >= 0
            && off.y >= 0
            && off.z >= 0
            && off.x as u64 + ext.width as u64 <= le.width as u64
            && off.y as u64 + ext.height as u64 <= le.height as u64
            && off.z as u64 + ext.depth as u64 <= le.depth as u64
            && base_layer as u64 + nlayers as u64 <= layers as u64;
        if !inside {
            return Err("box outside the level".into());
        }
        if ext.width == 0 || ext.height == 0 || ext.depth == 0 || nlayers == 0 {
            return Ok(());
        }
        let b = resource::TexelBox {
            level,
            offset: off,
            extent: ext,
            base_layer,
            layers: nlayers,
        };
        // Packed DEPTH_STENCIL pixels: each aspect uploaded on its own.
        if format == gl::DEPTH_STENCIL && sf.class.has_depth() && sf.class.has_stencil() {
            let pixels = bx.3 as usize * bx.4 as usize * bx.5.max(1) as usize;
            let (depth, stencil) = emulation::split_depth_stencil(blob, ty, pixels)
                .ok_or_else(|| format!("no DEPTH_STENCIL unpacking of type 0x{ty:X}"))?;
            let depth_bytes: Vec<u8> = depth.iter().flat_map(|d| d.to_le_bytes()).collect();
            let extent = (bx.3, bx.4, bx.5);
            for (bytes, format, ty) in [
                (&depth_bytes, gl::DEPTH_COMPONENT, gl::FLOAT),
                (&stencil, gl::STENCIL_INDEX, gl::UNSIGNED_BYTE),
            ] {
                let (data, aspect) = self.texel_data(&sf, bytes, format, ty, extent)?;
                self.upload_image(image, aspect, b, &data)
                    .map_err(|e| e.to_string())?;
            }
            return Ok(());
        }
        let (data, aspect) = self.texel_data(&sf, blob, format, ty, (bx.3, bx.4, bx.5))?;
        if aspect == vk::ImageAspectFlags::COLOR && self.host_write_image(res, b, &data) {
            return Ok(());
        }
        self.upload_image(image, aspect, b, &data)
            .map_err(|e| e.to_string())
    }

    fn release_shader(&mut self, h: Handle, e: ShaderEntry) {
        let mut g = Vec::new();
        if let Some(b) = e.built {
            b.collect(&self.gpu, &mut g);
        }
        let dead: Vec<Vec<u32>> = self
            .pipelines
            .keys()
            .filter(|k| k.len() >= 2 && k[0] == h.slot && k[1] == h.gen)
            .cloned()
            .collect();
        for k in dead {
            if let Some(p) = self.pipelines.remove(&k) {
                g.push(Garbage::Pipeline(p));
            }
        }
        self.retire(g);
    }
}

/// What a program's descriptor sets are made from (cloned out of its
/// build: a draw or dispatch then borrows the backend freely).
struct SetPlan {
    ubos: std::sync::Arc<[(u32, u32)]>,
    samplers: std::sync::Arc<[SamplerBinding]>,
    ssbos: std::sync::Arc<[(u32, u32)]>,
    images: std::sync::Arc<[ImageBinding]>,
    set_layouts: [vk::DescriptorSetLayout; SETS],
    layout: vk::PipelineLayout,
    dynamic_ubos: bool,
    /// Binding of the default uniform block (None: the program has none).
    globals: Option<u32>,
}

impl SetPlan {
    fn of(sh: &ShaderEntry, b: &pipeline::ShaderBuild) -> SetPlan {
        SetPlan {
            ubos: b.ubos.clone(),
            samplers: b.samplers.clone(),
            ssbos: b.ssbos.clone(),
            images: b.images.clone(),
            set_layouts: b.set_layouts,
            layout: b.layout,
            dynamic_ubos: b.dynamic_ubos,
            globals: (sh.global_size > 0).then_some(sh.global_binding),
        }
    }
}

/// Bytes of the storage buffer bound where the client left a slot empty.
const DUMMY_SSBO_SIZE: u64 = 65536;

/// View type + a GL target for a shader storage image.
fn image_view_type(ib: &ImageBinding) -> (vk::ImageViewType, u32) {
    sampler_view_type(&SamplerBinding {
        binding: ib.binding,
        count: ib.count,
        dim: ib.dim,
        arrayed: ib.arrayed,
        ms: ib.ms,
        scalar: ib.scalar,
    })
}

/// The layers of `img` a storage-image view of type `want` covers for a GL
/// image-unit binding of `layer` (`IMAGE_LAYERED`: every layer): (base
/// layer, layer count), or why the binding cannot be one.
fn storage_layers(
    img: &ImageRes,
    want: vk::ImageViewType,
    layer: u32,
) -> Result<(u32, u32), &'static str> {
    use vk::ImageViewType as T;
    let vt = img.view_type;
    let layered = layer == IMAGE_LAYERED;
    // A non-layered binding of an array, cube or 3D level is one layer of it.
    let one = |layers: u32| {
        if layered || layers == 1 {
            Ok((0, 1))
        } else if layer < layers {
            Ok((layer, 1))
        } else {
            Err("layer beyond the texture's layers")
        }
    };
    let two_d = [T::TYPE_2D, T::TYPE_2D_ARRAY, T::CUBE, T::CUBE_ARRAY].contains(&vt);
    let one_d = [T::TYPE_1D, T::TYPE_1D_ARRAY].contains(&vt);
    match want {
        T::TYPE_3D if vt == T::TYPE_3D => Ok((0, 1)),
        T::CUBE if vt == T::CUBE && img.layers >= 6 && layered => Ok((0, 6)),
        T::CUBE_ARRAY if vt == T::CUBE_ARRAY && layered => Ok((0, img.layers)),
        T::TYPE_2D | T::TYPE_1D if vt == T::TYPE_3D => {
            Err("a single slice of a 3D texture (needs VK_EXT_image_2d_view_of_3d; named gap)")
        }
        T::TYPE_2D if two_d => one(img.layers),
        T::TYPE_1D if one_d => one(img.layers),
        T::TYPE_2D_ARRAY if two_d && layered => Ok((0, img.layers)),
        T::TYPE_1D_ARRAY if one_d && layered => Ok((0, img.layers)),
        T::TYPE_2D_ARRAY if two_d => one(img.layers),
        T::TYPE_1D_ARRAY if one_d => one(img.layers),
        _ => Err("texture shape does not match the shader's image type"),
    }
}

impl VulkanBackend {
    fn dummy_ssbo(&mut self) -> Option<vk::Buffer> {
        if let Some(b) = self.dummies.ssbo {
            return Some(b.buffer);
        }
        match self.new_buffer(DUMMY_SSBO_SIZE) {
            Ok(b) => {
                self.dummies.ssbo = Some(b);
                Some(b.buffer)
            }
            Err(e) => {
                warn!("dummy storage buffer: {e}");
                None
            }
        }
    }

    /// Write (or reuse) the storage-buffer set of `plan` for `c`'s
    /// `set_shader_buffers` bindings (a dummy where a slot is empty or its
    /// range unusable).
    fn storage_buffer_set(&mut self, c: &Ctx, plan: &SetPlan) -> Result<vk::DescriptorSet, String> {
        let lim = self.gpu.props.limits;
        let max_range = lim.max_storage_buffer_range as u64;
        let align = lim.min_storage_buffer_offset_alignment.max(1);
        let sb = &c.sbufs;
        let mut infos: Vec<(u32, u32, vk::DescriptorBufferInfo)> = Vec::new();
        for &(b, n) in plan.ssbos.iter() {
            for k in 0..n.max(1) {
                let slot = b.saturating_add(k);
                let mut info = None;
                if (slot as usize) < (sb.count as usize).min(sb.buffers.len()) {
                    let si = slot as usize;
                    let h = sb.buffers[si];
                    if let Some((raw, size)) = self.buffer_use(h) {
                        let off = sb.offsets[si];
                        let len = if sb.sizes[si] == 0 {
                            size.saturating_sub(off)
                        } else {
                            sb.sizes[si]
                        };
                        if !off.is_multiple_of(align) {
                            warn!(
                                binding = slot,
                                off, "storage buffer offset not aligned, dummy bound"
                            );
                        } else if len == 0 || off.saturating_add(len) > size {
                            warn!(
                                binding = slot,
                                off, len, size, "storage buffer range past the buffer, dummy bound"
                            );
                        } else {
                            if len > max_range {
                                self.warn_once(
                                    "ssborange",
                                    "storage buffer range beyond maxStorageBufferRange: clamped",
                                );
                            }
                            info = Some((raw.buffer, off, len.min(max_range)));
                        }
                    } else if !h.is_null() {
                        warn!(binding = slot, buffer = ?h, "unknown storage buffer, dummy bound");
                    }
                }
                let (buffer, offset, range) = match info {
                    Some(i) => i,
                    None => (
                        self.dummy_ssbo().ok_or("no dummy storage buffer")?,
                        0,
                        DUMMY_SSBO_SIZE.min(max_range),
                    ),
                };
                infos.push((
                    b,
                    k,
                    vk::DescriptorBufferInfo {
                        buffer,
                        offset,
                        range,
                    },
                ));
            }
        }
        let sl = plan.set_layouts[STORAGE_SET as usize];
        let what: Vec<frame::DescriptorBuffer> = infos
            .iter()
            .map(|(b, k, i)| (*b, *k, i.buffer, i.offset, i.range))
            .collect();
        if let Some((l, w, set)) = &self.frames.last_ssbo_set {
            if *l == sl && *w == what {
                return Ok(*set);
            }
        }
        let set = self
            .frames
            .descriptor_set(&self.gpu, sl)
            .map_err(|e| e.to_string())?;
        let writes: Vec<vk::WriteDescriptorSet> = infos
            .iter()
            .map(|(b, k, i)| {
                vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(*b)
                    .dst_array_element(*k)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .buffer_info(std::slice::from_ref(i))
            })
            .collect();
        // SAFETY: a fresh set of this layout; every info names a live buffer
        // with a range inside it.
        unsafe { self.gpu.device.update_descriptor_sets(&writes, &[]) };
        self.frames.last_ssbo_set = Some((sl, what, set));
        Ok(set)
    }

    /// Write (or reuse) the storage-image set of `plan` for `c`'s
    /// `set_shader_images` bindings (a dummy where a unit is empty or its
    /// binding unusable).
    fn storage_image_set(&mut self, c: &Ctx, plan: &SetPlan) -> Result<vk::DescriptorSet, String> {
        let mut infos: Vec<(u32, u32, vk::DescriptorImageInfo)> = Vec::new();
        for ib in plan.images.iter() {
            for k in 0..ib.count.max(1) {
                let unit = ib.binding.saturating_add(k) as usize;
                // GL 4.6 §8.26: an invalid unit's loads and atomics return
                // zero and its stores do nothing, what a null descriptor
                // does; a dummy image (which keeps what was stored)
                // without one.
                let view = match self.storage_view(c, unit, ib) {
                    Some(v) => v,
                    None if self.gpu.feat.null_descriptor => vk::ImageView::null(),
                    None => self
                        .dummy_storage_view(ib)
                        .ok_or("no dummy storage image for the shader's image type")?,
                };
                infos.push((
                    ib.binding,
                    k,
                    vk::DescriptorImageInfo {
                        sampler: vk::Sampler::null(),
                        image_view: view,
                        image_layout: vk::ImageLayout::GENERAL,
                    },
                ));
            }
        }
        let sl = plan.set_layouts[IMAGE_SET as usize];
        let what: Vec<frame::DescriptorImage> = infos
            .iter()
            .map(|(b, k, i)| (*b, *k, i.sampler, i.image_view))
            .collect();
        if let Some((l, w, set)) = &self.frames.last_image_set {
            if *l == sl && *w == what {
                return Ok(*set);
            }
        }
        let set = self
            .frames
            .descriptor_set(&self.gpu, sl)
            .map_err(|e| e.to_string())?;
        let writes: Vec<vk::WriteDescriptorSet> = infos
            .iter()
            .map(|(b, k, i)| {
                vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(*b)
                    .dst_array_element(*k)
                    .descriptor_type(vk::DescriptorType::STORAGE_IMAGE)
                    .image_info(std::slice::from_ref(i))
            })
            .collect();
        // SAFETY: a fresh set of this layout; live views of images made with
        // STORAGE usage, in GENERAL.
        unsafe { self.gpu.device.update_descriptor_sets(&writes, &[]) };
        self.frames.last_image_set = Some((sl, what, set));
        Ok(set)
    }

    /// The view a draw or dispatch binds for image unit `unit` (None: use
    /// a dummy; why is logged).
    fn storage_view(&mut self, c: &Ctx, unit: usize, ib: &ImageBinding) -> Option<vk::ImageView> {
        let p = &c.images;
        if unit >= (p.count as usize).min(p.resources.len()) {
            return None;
        }
        let h = p.resources[unit];
        if h.is_null() {
            return None;
        }
        let (level, layer, access) = (p.levels[unit], p.layers[unit], p.access[unit]);
        let unit_vk = self.storage_format(p.formats[unit]).vk;
        let shader_vk = emulation::spirv_image_format(ib.format).map(|f| self.storage_format(f).vk);
        let (want_vt, _) = image_view_type(ib);
        let gpu = &self.gpu;
        let Some(ResKind::Texture { img: Some(img), .. }) =
            self.scr.resources.get_mut(h).map(|r| &mut r.kind)
        else {
            warn!(res = ?h, unit, "image unit: unknown texture or texture without storage, dummy bound");
            return None;
        };
        let why = if !emulation::is_image_unit_format(p.formats[unit]) {
            Some("not an image-unit format")
        } else if !img.storage {
            Some("the texture's format cannot be a storage image on this device")
        } else if level >= img.levels {
            Some("level beyond the texture's levels")
        } else if unit_vk != img.format.vk {
            Some("image-unit format differs from the texture's storage (reinterpretation is a named gap)")
        } else if shader_vk.is_some_and(|f| f != img.format.vk) {
            Some("the shader's image format differs from the texture's storage")
        } else if ib.ms {
            Some("multisampled storage images are a named gap")
        } else {
            None
        };
        if let Some(why) = why {
            warn!(res = ?h, unit, format = p.formats[unit], "image unit: {why}, dummy bound");
            return None;
        }
        let (base_layer, layers) = match storage_layers(img, want_vt, layer) {
            Ok(l) => l,
            Err(why) => {
                warn!(res = ?h, unit, layer, "image unit: {why}, dummy bound");
                return None;
            }
        };
        let key = ViewKey {
            ty: want_vt.as_raw(),
            aspect: vk::ImageAspectFlags::COLOR.as_raw(),
            base_level: level,
            levels: 1,
            base_layer,
            layers,
            // Identity: storage-image views may not swizzle.
            swizzle: [0; 4],
        };
        let v = resource::view(gpu, img, key);
        if v.is_some() && access != gl::READ_ONLY {
            // Stores define the level's contents.
            img.defined |= 1u64 << level.min(63);
        }
        v
    }

    /// A 1x1 storage image matching a shader image's type and format.
    fn dummy_storage_view(&mut self, ib: &ImageBinding) -> Option<vk::ImageView> {
        let (vt, target) = image_view_type(ib);
        let internal = emulation::spirv_image_format(ib.format).unwrap_or(match ib.scalar {
            Scalar::Float => gl::RGBA32F,
            Scalar::Int => gl::RGBA32I,
            Scalar::Uint => gl::RGBA32UI,
        });
        let sf = self.storage_format(internal);
        let key = (vt.as_raw(), sf.vk.as_raw());
        if !self.dummies.storage_images.contains_key(&key) {
            let (it, _) = emulation::texture_shape(target)?;
            let (ext, layers) = emulation::extent_and_layers(target, 1, 1, 1);
            let img = self
                .create_image(sf, internal, it, vt, ext, layers, 1, 1)
                .ok()?;
            if !img.storage {
                warn!(format = ?sf.vk, "no storage-image support for a dummy image of this format");
                let mut g = Vec::new();
                resource::collect_image(img, &mut g);
                self.retire(g);
                return None;
            }
            self.clear_fresh_image(&img);
            self.dummies.storage_images.insert(key, img);
        }
        let img = self.dummies.storage_images.get_mut(&key)?;
        whole_image_view(&self.gpu, img, vt)
    }

    /// `dispatch_compute`: the bound compute program over the current
    /// bindings, outside any rendering instance, followed by a full
    /// barrier (its writes are visible to everything recorded after it).
    fn do_dispatch(&mut self, p: &calls::DispatchCompute) -> Result<(), String> {
        let Some(c) = self.cur_copy("dispatch_compute") else {
            return Ok(());
        };
        if !self.gpu.feat.compute {
            return Err("the device's queue runs no compute work".into());
        }
        if p.groups.contains(&0) {
            return Ok(());
        }
        let lim = self.gpu.props.limits.max_compute_work_group_count;
        if p.groups.iter().zip(lim).any(|(&g, l)| g > l) {
            return Err(format!(
                "work group counts {:?} beyond the device's {lim:?}",
                p.groups
            ));
        }
        // Open the frame first: descriptor sets and arena ranges belong to
        // the recording frame.
        self.frames.cmd_keep(&self.gpu).map_err(|e| e.to_string())?;
        let sh = self
            .scr
            .shaders
            .get(c.shader)
            .ok_or_else(|| format!("no valid shader bound ({:?})", c.shader))?;
        let build = sh
            .built
            .as_ref()
            .ok_or("the bound shader failed to build")?;
        if !build.is_compute {
            return Err("the bound shader is not a compute program".into());
        }
        if build.unsupported {
            return Err(
                "shader uses separate images/samplers, buffer textures or image buffers (not supported)".into(),
            );
        }
        let plan = SetPlan::of(sh, build);
        // Compute pipelines are cached under the program's handle alone
        // (graphics keys are longer; `release_shader` drops both).
        let key = vec![c.shader.slot, c.shader.gen];
        let pipe = match self.pipelines.get(&key) {
            Some(&p) => p,
            None => {
                let np = pipeline::create_compute_pipeline(&self.gpu, build)
                    .map_err(|e| format!("compute pipeline creation failed: {e}"))?;
                self.pipelines.insert(key, np);
                np
            }
        };
        let mut sets = [vk::DescriptorSet::null(); SETS];
        let mut ubo_offsets = Vec::new();
        self.write_sets(&c, c.shader, &plan, &mut sets, &mut ubo_offsets)?;
        // Ends any rendering instance (the next draw begins one again) and
        // barriers after everything recorded before.
        let cmd = self
            .frames
            .transfer_cmd(&self.gpu)
            .map_err(|e| e.to_string())?;
        let d = &self.gpu.device;
        // SAFETY: recording outside rendering; the pipeline and every set
        // were made for `plan.layout` (sets in this frame, naming live
        // objects); one dynamic offset per dynamic descriptor of set 0;
        // group counts checked against the device's limits. Binding at the
        // compute bind point leaves the graphics bindings `frames` tracks
        // untouched.
        unsafe {
            d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, pipe);
            for (i, set) in sets.iter().enumerate() {
                if *set == vk::DescriptorSet::null() {
                    continue;
                }
                let offsets: &[u32] = if i == UBO_SET as usize {
                    &ubo_offsets
                } else {
                    &[]
                };
                d.cmd_bind_descriptor_sets(
                    cmd,
                    vk::PipelineBindPoint::COMPUTE,
                    plan.layout,
                    i as u32,
                    std::slice::from_ref(set),
                    offsets,
                );
            }
            d.cmd_dispatch(cmd, p.groups[0], p.groups[1], p.groups[2]);
        }
        // Conservative (GL asks for glMemoryBarrier first): later draws,
        // transfers, read-backs and dispatches see the writes.
        frame::barrier(&self.gpu, cmd);
        Ok(())
    }

    /// `memory_barrier`: shader writes made so far become visible to
    /// everything after. Draws inside the open rendering instance are not
    /// separated from each other by a barrier, so the instance ends (the
    /// next draw begins another, after a full barrier); outside one a full
    /// barrier is recorded (every transfer, dispatch and rendering instance
    /// also begins with one).
    fn do_memory_barrier(&mut self) {
        if !self.frames.recording {
            // Everything is submitted: the next command buffer begins its
            // work after a full barrier, which covers earlier submissions.
            return;
        }
        if self.frames.rendering.is_some() {
            self.frames.end_rendering(&self.gpu);
        } else {
            self.frames.flush_draws(&self.gpu);
            let cmd = self.frames.frames[self.frames.cur].cmd;
            self.frames.full_barrier(&self.gpu, cmd);
        }
    }
}

impl Context for VulkanBackend {
    // ------------------------------------------------------------ objects

    fn buffer_respecify(&mut self, p: &calls::BufferRespecify, blob: &[u8]) {
        self.touch();
        if self.buffer_of(p.res).is_none() {
            warn!(res = ?p.res, "buffer_respecify: unknown buffer, skipped");
            return;
        }
        if p.size > MAX_BUFFER {
            warn!(res = ?p.res, size = p.size, "buffer_respecify: size too large, skipped");
            return;
        }
        let n = blob.len().min(p.size as usize);
        // Storage the GPU is done with and about the right size is kept
        // and rewritten: by the host when mapped, else by a staged copy
        // ahead of the frame (nothing recorded uses it). Otherwise (busy:
        // GL's orphaning) new storage replaces it.
        let reuse = match self.scr.resources.get(p.res).map(|r| &r.kind) {
            Some(ResKind::Buffer { raw, last_use, .. }) => {
                let cap = raw.size;
                let fits = cap >= p.size.max(4) && cap / 2 <= p.size;
                let serial = last_use.get();
                (fits && self.frames.is_done(&self.gpu, serial)).then_some(*raw)
            }
            _ => None,
        };
        if let Some(raw) = reuse {
            if raw.ptr.is_null() {
                if let Err(e) = self.stage_whole_buffer(raw, &blob[..n]) {
                    warn!(res = ?p.res, "buffer_respecify: {e}");
                    return;
                }
            } else {
                raw.write(0, &blob[..n]);
                raw.zero(n as u64, raw.size - n as u64);
            }
            if let Some(ResKind::Buffer { size, .. }) =
                self.scr.resources.get_mut(p.res).map(|r| &mut r.kind)
            {
                *size = p.size;
            }
            return;
        }
        let raw = match self.new_buffer_with(p.size, &blob[..n]) {
            Ok(r) => r,
            Err(e) => {
                warn!(res = ?p.res, "buffer_respecify: {e}");
                return;
            }
        };
        if let Some(ResKind::Buffer {
            raw: r,
            size,
            last_use,
        }) = self.scr.resources.get_mut(p.res).map(|r| &mut r.kind)
        {
            let old = std::mem::replace(r, raw);
            *size = p.size;
            last_use.set(0);
            self.frames.retire(Garbage::Buffer(old));
        }
    }

    fn buffer_subdata(&mut self, p: &calls::BufferSubdata, blob: &[u8]) {
        self.touch();
        let Some((raw, size)) = self.buffer_of(p.res) else {
            warn!(res = ?p.res, "buffer_subdata: unknown buffer, skipped");
            return;
        };
        if p.offset
            .checked_add(blob.len() as u64)
            .is_none_or(|e| e > size)
        {
            warn!(res = ?p.res, offset = p.offset, len = blob.len(), size, "buffer_subdata: range past the end, skipped");
            return;
        }
        if blob.is_empty() {
            return;
        }
        // The use serial lives in the table entry; take it out for the call.
        let last_use = match self.scr.resources.get(p.res).map(|r| &r.kind) {
            Some(ResKind::Buffer { last_use, .. }) => std::cell::Cell::new(last_use.get()),
            _ => return,
        };
        let r = self.write_client_buffer(raw, &last_use, p.offset, blob);
        if let Some(ResKind::Buffer { last_use: l, .. }) =
            self.scr.resources.get(p.res).map(|r| &r.kind)
        {
            l.set(last_use.get());
        }
        if let Err(e) = r {
            warn!(res = ?p.res, "buffer_subdata: {e}");
        }
    }

    fn buffer_copy(&mut self, p: &calls::BufferCopy) {
        self.touch();
        let (Some((src, ss)), Some((dst, ds))) = (self.buffer_use(p.src), self.buffer_use(p.dst))
        else {
            warn!(src = ?p.src, dst = ?p.dst, "buffer_copy: unknown buffer, skipped");
            return;
        };
        let ok = |off: u64, size: u64| off.checked_add(p.size).is_some_and(|e| e <= size);
        if !ok(p.src_offset, ss) || !ok(p.dst_offset, ds) {
            warn!(src = ?p.src, dst = ?p.dst, "buffer_copy: range past the end, skipped");
            return;
        }
        if p.size == 0 {
            return;
        }
        let same = src.buffer == dst.buffer;
        if same && p.src_offset.max(p.dst_offset) < p.src_offset.min(p.dst_offset) + p.size {
            warn!(res = ?p.src, "buffer_copy: overlapping ranges in one buffer, skipped");
            return;
        }
        let Ok(cmd) = self.frames.transfer_cmd(&self.gpu) else {
            warn!("buffer_copy: no command buffer");
            return;
        };
        // SAFETY: recording outside rendering; ranges checked.
        unsafe {
            self.gpu.device.cmd_copy_buffer(
                cmd,
                src.buffer,
                dst.buffer,
                &[vk::BufferCopy {
                    src_offset: p.src_offset,
                    dst_offset: p.dst_offset,
                    size: p.size,
                }],
            )
        };
        frame::barrier(&self.gpu, cmd);
    }

    fn texture_image(&mut self, p: &calls::TextureImage, blob: &[u8]) {
        self.touch();
        if let Err(e) = self.ensure_texture_image(
            p.res,
            p.target,
            p.internal_format,
            p.level,
            p.width,
            p.height,
            p.depth,
            None,
        ) {
            warn!(res = ?p.res, "texture_image: {e}, skipped");
            return;
        }
        self.mark_defined(p.res, p.level);
        if blob.is_empty() {
            return;
        }
        if let Err(e) = self.upload_box(
            p.res,
            p.target,
            p.level,
            (0, 0, 0, p.width, p.height, p.depth),
            p.format,
            p.r#type,
            blob,
        ) {
            warn!(res = ?p.res, "texture_image: {e}, contents skipped");
        }
    }

    fn texture_subimage(&mut self, p: &calls::TextureSubimage, blob: &[u8]) {
        self.touch();
        // Strided rows (monolith passes the application's own) are made
        // tight here: the upload paths below copy tight rows.
        let rows = mgpipe::pixels::bytes_per_pixel(p.format, p.r#type).and_then(|bpp| {
            let row_bytes = (p.width as usize).checked_mul(bpp)?;
            let rows = (p.height as usize).checked_mul(p.depth.max(1) as usize)?;
            mgpipe::pixels::tight_rows(blob, p.row_stride as usize, row_bytes, rows)
        });
        let Some(blob) = rows.or_else(|| (p.row_stride == 0).then_some(blob.into())) else {
            warn!(res = ?p.res, row_stride = p.row_stride, blob = blob.len(), "texture_subimage: strided rows do not fit the blob, skipped");
            return;
        };
        let blob = &*blob;
        if let Err(e) = self.upload_box(
            p.res,
            p.target,
            p.level,
            (p.x, p.y, p.z, p.width, p.height, p.depth),
            p.format,
            p.r#type,
            blob,
        ) {
            warn!(res = ?p.res, "texture_subimage: {e}, skipped");
        }
    }

    fn texture_storage(&mut self, p: &calls::TextureStorage) {
        self.touch();
        if let Err(e) = self.ensure_texture_image(
            p.res,
            p.target,
            p.internal_format,
            0,
            p.width,
            p.height,
            p.depth,
            Some(p.levels.clamp(1, 16)),
        ) {
            warn!(res = ?p.res, "texture_storage: {e}, skipped");
        }
    }

    fn texture_buffer(&mut self, p: &calls::TextureBuffer) {
        self.touch();
        let attach = (!p.buffer.is_null()).then_some(crate::TexBufAttachment {
            buffer: p.buffer,
            internal_format: p.internal_format,
            offset: p.offset,
            size: p.size,
        });
        match self.scr.resources.get_mut(p.res).map(|r| &mut r.kind) {
            Some(ResKind::Texture { target, texbuf, .. })
                if *target == 0 || *target == gl::TEXTURE_BUFFER =>
            {
                *target = gl::TEXTURE_BUFFER;
                *texbuf = attach;
            }
            _ => warn!(res = ?p.res, "texture_buffer: not a buffer texture, skipped"),
        }
    }

    fn generate_mipmap(&mut self, p: &calls::GenerateMipmap) {
        self.touch();
        let Some((image, sf, levels, extent, layers)) = self.texture_image_of(p.res) else {
            warn!(res = ?p.res, "generate_mipmap: texture without storage, skipped");
            return;
        };
        if levels <= 1 {
            return;
        }
        let feats = self.gpu.format_features(sf.vk);
        if !feats.contains(vk::FormatFeatureFlags::BLIT_SRC | vk::FormatFeatureFlags::BLIT_DST) {
            warn!(res = ?p.res, format = ?sf.vk, "generate_mipmap: format cannot be blitted, skipped");
            return;
        }
        let filter = if feats.contains(vk::FormatFeatureFlags::SAMPLED_IMAGE_FILTER_LINEAR)
            && !sf.class.is_integer()
        {
            vk::Filter::LINEAR
        } else {
            vk::Filter::NEAREST
        };
        let Ok(cmd) = self.frames.transfer_cmd(&self.gpu) else {
            return;
        };
        let asp = emulation::aspect(sf.class);
        for l in 1..levels {
            let a = level_extent(extent, l - 1);
            let b = level_extent(extent, l);
            let sub = |m| vk::ImageSubresourceLayers {
                aspect_mask: asp,
                mip_level: m,
                base_array_layer: 0,
                layer_count: layers,
            };
            let end = |e: vk::Extent3D| vk::Offset3D {
                x: e.width as i32,
                y: e.height as i32,
                z: e.depth as i32,
            };
            // SAFETY: recording outside rendering; levels l-1 and l exist.
            unsafe {
                self.gpu.device.cmd_blit_image(
                    cmd,
                    image,
                    vk::ImageLayout::GENERAL,
                    image,
                    vk::ImageLayout::GENERAL,
                    &[vk::ImageBlit {
                        src_subresource: sub(l - 1),
                        src_offsets: [vk::Offset3D::default(), end(a)],
                        dst_subresource: sub(l),
                        dst_offsets: [vk::Offset3D::default(), end(b)],
                    }],
                    filter,
                )
            };
            frame::barrier(&self.gpu, cmd);
        }
        if let Some(ResKind::Texture { img: Some(i), .. }) =
            self.scr.resources.get_mut(p.res).map(|r| &mut r.kind)
        {
            i.defined = u64::MAX;
        }
    }

    // ------------------------------------------------------------ CSOs

    fn create_render_state(&mut self, p: &calls::CreateRenderState) {
        self.touch();
        if self.scr.render_states.insert(p.cso, *p).is_err() {
            warn!(cso = ?p.cso, "create_render_state: invalid handle, skipped");
        }
    }

    fn bind_render_state(&mut self, p: &calls::BindRenderState) {
        let rs = if p.cso.is_null() {
            default_render_state()
        } else if let Some(rs) = self.scr.render_states.get(p.cso) {
            *rs
        } else {
            self.touch();
            warn!(cso = ?p.cso, "bind_render_state: unknown render state, skipped");
            return;
        };
        let Some(c) = self.cur("bind_render_state") else {
            self.touch();
            return;
        };
        // Scissor enable and stencil references feed dynamic state, which
        // only the full path sets.
        let pipeline_only = c.render_state.scissor_enable == rs.scissor_enable
            && c.render_state.stencil_ref == rs.stencil_ref;
        c.render_state = rs;
        if pipeline_only {
            self.light |= crate::LIGHT_RS;
        } else {
            self.touch();
        }
    }

    fn delete_render_state(&mut self, p: &calls::DeleteRenderState) {
        self.touch();
        if self.scr.render_states.remove(p.cso).is_none() {
            warn!(cso = ?p.cso, "delete_render_state: unknown render state, skipped");
        }
    }

    fn create_vertex_elements(&mut self, p: &calls::CreateVertexElements) {
        self.touch();
        if self.scr.vertex_elements.insert(p.cso, *p).is_err() {
            warn!(cso = ?p.cso, "create_vertex_elements: invalid handle, skipped");
        }
    }

    fn bind_vertex_elements(&mut self, p: &calls::BindVertexElements) {
        self.touch();
        if !p.cso.is_null() && self.scr.vertex_elements.get(p.cso).is_none() {
            warn!(cso = ?p.cso, "bind_vertex_elements: unknown vertex elements");
        }
        if let Some(c) = self.cur("bind_vertex_elements") {
            c.vertex_elements = p.cso;
        }
    }

    fn delete_vertex_elements(&mut self, p: &calls::DeleteVertexElements) {
        self.touch();
        if self.scr.vertex_elements.remove(p.cso).is_none() {
            warn!(cso = ?p.cso, "delete_vertex_elements: unknown vertex elements, skipped");
        }
    }

    fn create_sampler(&mut self, p: &calls::CreateSampler) {
        self.touch();
        let or = |v: u32, d: u32| if v == 0 { d } else { v };
        let min = or(p.min_filter, gl::NEAREST_MIPMAP_LINEAR);
        let mag = or(p.mag_filter, gl::LINEAR);
        let f = |lin: bool| {
            if lin {
                vk::Filter::LINEAR
            } else {
                vk::Filter::NEAREST
            }
        };
        let (min_f, mip, no_mip) = match min {
            gl::NEAREST => (vk::Filter::NEAREST, vk::SamplerMipmapMode::NEAREST, true),
            gl::LINEAR => (vk::Filter::LINEAR, vk::SamplerMipmapMode::NEAREST, true),
            gl::NEAREST_MIPMAP_NEAREST => {
                (vk::Filter::NEAREST, vk::SamplerMipmapMode::NEAREST, false)
            }
            gl::LINEAR_MIPMAP_NEAREST => {
                (vk::Filter::LINEAR, vk::SamplerMipmapMode::NEAREST, false)
            }
            gl::LINEAR_MIPMAP_LINEAR => (vk::Filter::LINEAR, vk::SamplerMipmapMode::LINEAR, false),
            _ => (vk::Filter::NEAREST, vk::SamplerMipmapMode::LINEAR, false),
        };
        let l = self.gpu.props.limits;
        let bias = if p.lod_bias.is_finite() {
            p.lod_bias
                .clamp(-l.max_sampler_lod_bias, l.max_sampler_lod_bias)
        } else {
            0.0
        };
        let min_lod = if p.min_lod.is_finite() {
            p.min_lod
        } else {
            -1000.0
        };
        let max_lod = if p.max_lod.is_finite() {
            p.max_lod.max(min_lod)
        } else {
            1000.0
        };
        let aniso = self.gpu.feat.anisotropy && p.max_anisotropy > 1.0;
        let border = match p.border_color {
            [0.0, 0.0, 0.0, 0.0] => vk::BorderColor::FLOAT_TRANSPARENT_BLACK,
            [0.0, 0.0, 0.0, 1.0] => vk::BorderColor::FLOAT_OPAQUE_BLACK,
            [1.0, 1.0, 1.0, 1.0] => vk::BorderColor::FLOAT_OPAQUE_WHITE,
            _ if self.gpu.feat.custom_border_color => vk::BorderColor::FLOAT_CUSTOM_EXT,
            _ => {
                self.warn_once("border", "custom sampler border colours need VK_EXT_custom_border_color: transparent black used (named gap)");
                vk::BorderColor::FLOAT_TRANSPARENT_BLACK
            }
        };
        // The colour itself, any image format (customBorderColorWithoutFormat).
        let mut custom = vk::SamplerCustomBorderColorCreateInfoEXT::default()
            .custom_border_color(vk::ClearColorValue {
                float32: p.border_color,
            })
            .format(vk::Format::UNDEFINED);
        let ci = vk::SamplerCreateInfo::default()
            .mag_filter(f(mag == gl::LINEAR))
            .min_filter(min_f)
            .mipmap_mode(mip)
            .address_mode_u(emulation::address_mode(p.wrap_s))
            .address_mode_v(emulation::address_mode(p.wrap_t))
            .address_mode_w(emulation::address_mode(p.wrap_r))
            .mip_lod_bias(bias)
            .anisotropy_enable(aniso)
            .max_anisotropy(if aniso {
                p.max_anisotropy.min(l.max_sampler_anisotropy)
            } else {
                1.0
            })
            .compare_enable(p.compare_mode == gl::COMPARE_REF_TO_TEXTURE)
            .compare_op(emulation::compare_op(or(p.compare_func, gl::LEQUAL)))
            .min_lod(min_lod)
            .max_lod(max_lod)
            .border_color(border);
        let ci = if border == vk::BorderColor::FLOAT_CUSTOM_EXT {
            ci.push_next(&mut custom)
        } else {
            ci
        };
        // SAFETY: valid device and create info.
        let sampler = match unsafe { self.gpu.device.create_sampler(&ci, None) } {
            Ok(s) => s,
            Err(e) => {
                warn!(cso = ?p.cso, "create_sampler: {e}");
                return;
            }
        };
        match self
            .scr
            .samplers
            .insert(p.cso, SamplerEntry { sampler, no_mip })
        {
            Ok(Some(old)) => self.frames.retire(Garbage::Sampler(old.sampler)),
            Ok(None) => {}
            Err(e) => {
                warn!(cso = ?p.cso, "create_sampler: invalid handle, skipped");
                self.frames.retire(Garbage::Sampler(e.sampler));
            }
        }
    }

    fn delete_sampler(&mut self, p: &calls::DeleteSampler) {
        self.touch();
        match self.scr.samplers.remove(p.cso) {
            Some(s) => self.frames.retire(Garbage::Sampler(s.sampler)),
            None => warn!(cso = ?p.cso, "delete_sampler: unknown sampler, skipped"),
        }
    }

    fn create_sampler_view(&mut self, p: &calls::CreateSamplerView) {
        self.touch();
        if self.scr.views.insert(p.cso, *p).is_err() {
            warn!(cso = ?p.cso, "create_sampler_view: invalid handle, skipped");
        }
    }

    fn delete_sampler_view(&mut self, p: &calls::DeleteSamplerView) {
        self.touch();
        if self.scr.views.remove(p.cso).is_none() {
            warn!(cso = ?p.cso, "delete_sampler_view: unknown sampler view, skipped");
        }
    }

    fn create_shader(&mut self, p: &calls::CreateShader, blob: &[u8]) {
        self.touch();
        let built = match pipeline::build_shader(&self.gpu, p, blob) {
            Ok(b) => Some(b),
            Err(e) => {
                tracing::error!(shader = ?p.cso, "create_shader: {e}");
                None
            }
        };
        let entry = ShaderEntry {
            built,
            global_binding: p.global_binding,
            global_size: p.global_size.min(1 << 16),
            globals: Vec::new(),
            globals_at: None,
        };
        match self.scr.shaders.insert(p.cso, entry) {
            Ok(Some(old)) => self.release_shader(p.cso, old),
            Ok(None) => {}
            Err(e) => {
                warn!(shader = ?p.cso, "create_shader: invalid handle, skipped");
                self.release_shader(p.cso, e);
            }
        }
    }

    fn delete_shader(&mut self, p: &calls::DeleteShader) {
        self.touch();
        match self.scr.shaders.remove(p.cso) {
            Some(e) => self.release_shader(p.cso, e),
            None => warn!(shader = ?p.cso, "delete_shader: unknown shader, skipped"),
        }
    }

    fn bind_shader(&mut self, p: &calls::BindShader) {
        self.touch();
        if !p.cso.is_null() && self.scr.shaders.get(p.cso).is_none() {
            warn!(shader = ?p.cso, "bind_shader: unknown shader (draws will be skipped)");
        }
        if let Some(c) = self.cur("bind_shader") {
            c.shader = p.cso;
        }
    }

    // ------------------------------------------------------------ set_*

    fn set_framebuffer_state(&mut self, p: &calls::SetFramebufferState) {
        self.touch();
        if let Some(c) = self.cur("set_framebuffer_state") {
            c.fb = if p.fbo == Handle::DEFAULT_FRAMEBUFFER || p.fbo.is_null() {
                None
            } else {
                Some(*p)
            };
        }
    }

    fn set_read_surface(&mut self, p: &calls::SetReadSurface) {
        self.touch();
        if let Some(c) = self.cur("set_read_surface") {
            c.read = if p.fbo == Handle::DEFAULT_FRAMEBUFFER || p.fbo.is_null() {
                None
            } else {
                Some(*p)
            };
        }
    }

    fn set_viewport(&mut self, p: &calls::SetViewport) {
        self.touch();
        if let Some(c) = self.cur("set_viewport") {
            c.viewport = *p;
        }
    }

    fn set_scissor(&mut self, p: &calls::SetScissor) {
        self.touch();
        if let Some(c) = self.cur("set_scissor") {
            c.scissor = *p;
        }
    }

    fn set_patch_state(&mut self, p: &calls::SetPatchState) {
        self.touch();
        // Vulkan has no default tessellation levels (a pipeline with an
        // evaluation stage has a control stage): only the patch size.
        let max = self.gpu.props.limits.max_tessellation_patch_size;
        if let Some(c) = self.cur("set_patch_state") {
            if (1..=max).contains(&p.vertices) {
                c.patch_vertices = p.vertices;
            }
        }
    }

    fn set_blend_color(&mut self, p: &calls::SetBlendColor) {
        self.touch();
        if let Some(c) = self.cur("set_blend_color") {
            c.blend_color = p.color.map(|v| if v.is_finite() { v } else { 0.0 });
        }
    }

    fn set_polygon_offset(&mut self, p: &calls::SetPolygonOffset) {
        self.touch();
        let f = |v: f32| if v.is_finite() { v } else { 0.0 };
        // depthBiasClamp must be 0 without the feature.
        let clamp = if self.gpu.feat.depth_bias_clamp {
            f(p.clamp)
        } else {
            if p.clamp != 0.0 && p.clamp.is_finite() {
                warn!(
                    clamp = p.clamp,
                    "depthBiasClamp unsupported: offset unclamped"
                );
            }
            0.0
        };
        if let Some(c) = self.cur("set_polygon_offset") {
            c.polygon_offset = [f(p.factor), f(p.units), clamp];
        }
    }

    fn set_line_width(&mut self, p: &calls::SetLineWidth) {
        self.touch();
        if let Some(c) = self.cur("set_line_width") {
            c.line_width = if p.width.is_finite() && p.width > 0.0 {
                p.width
            } else {
                1.0
            };
        }
    }

    fn set_vertex_buffers(&mut self, p: &calls::SetVertexBuffers) {
        let Some(c) = self.cur("set_vertex_buffers") else {
            self.touch();
            return;
        };
        let light = light_vertex_change(c, c.vertex_elements, p);
        c.vbufs = *p;
        match light {
            Some(l) => self.light |= l,
            None => self.touch(),
        }
    }

    fn create_vertex_input(&mut self, p: &calls::CreateVertexInput) {
        self.touch();
        let vi = crate::VertexInput {
            elements: p.elements,
            vbufs: mgpipe::wire::vertex_buffers_of(p),
            index_buffer: p.index_buffer,
        };
        if self.scr.vertex_inputs.insert(p.cso, vi).is_err() {
            warn!(cso = ?p.cso, "create_vertex_input: invalid handle, skipped");
        }
    }

    /// bind_vertex_elements + set_vertex_buffers + set_index_buffer in one
    /// record. Switching only the index buffer (the per-draw UBO pattern:
    /// the same VAO re-bound with another element buffer) keeps the next
    /// draw on the light path, like `set_index_buffer`.
    fn bind_vertex_input(&mut self, p: &calls::BindVertexInput) {
        let Some(vi) = self.scr.vertex_inputs.get(p.cso) else {
            warn!(cso = ?p.cso, "bind_vertex_input: unknown vertex input, skipped");
            return;
        };
        let Some(c) = self
            .current
            .and_then(|h| self.ctxs.get_mut(h))
            .and_then(|c| c.as_deref_mut())
        else {
            warn!("bind_vertex_input: no current context, skipped");
            return;
        };
        let light = light_vertex_change(c, vi.elements, &vi.vbufs);
        c.index_buffer = vi.index_buffer;
        // The ~350-byte slots are copied only when they moved.
        if light != Some(0) {
            c.vertex_elements = vi.elements;
            c.vbufs = vi.vbufs;
        }
        match light {
            Some(l) => self.light |= crate::LIGHT_INDEX | l,
            None => self.touch(),
        }
    }

    fn delete_vertex_input(&mut self, p: &calls::DeleteVertexInput) {
        if self.scr.vertex_inputs.remove(p.cso).is_none() {
            warn!(cso = ?p.cso, "delete_vertex_input: unknown vertex input, skipped");
        }
    }

    fn set_index_buffer(&mut self, p: &calls::SetIndexBuffer) {
        // Not `touch`: the next draw re-binds it (`apply_light`).
        self.light |= crate::LIGHT_INDEX;
        if let Some(c) = self.cur("set_index_buffer") {
            c.index_buffer = p.buffer;
        }
    }

    fn set_vertex_attrib_defaults(&mut self, p: &calls::SetVertexAttribDefaults) {
        self.touch();
        if let Some(c) = self.cur("set_vertex_attrib_defaults") {
            c.attrib_defaults = *p;
        }
    }

    fn set_sampler_views(&mut self, p: &calls::SetSamplerViews) {
        self.touch();
        if let Some(c) = self.cur("set_sampler_views") {
            c.views = *p;
        }
    }

    fn bind_samplers(&mut self, p: &calls::BindSamplers) {
        self.touch();
        if let Some(c) = self.cur("bind_samplers") {
            c.samplers = *p;
        }
    }

    fn set_shader_buffers(&mut self, p: &calls::SetShaderBuffers) {
        self.touch();
        if p.count as usize > p.buffers.len() {
            warn!(
                count = p.count,
                "set_shader_buffers: count beyond 16, the rest ignored"
            );
        }
        if let Some(c) = self.cur("set_shader_buffers") {
            c.sbufs = *p;
        }
    }

    fn set_shader_images(&mut self, p: &calls::SetShaderImages) {
        self.touch();
        if p.count as usize > p.resources.len() {
            warn!(
                count = p.count,
                "set_shader_images: count beyond 8, the rest ignored"
            );
        }
        if let Some(c) = self.cur("set_shader_images") {
            c.images = *p;
        }
    }

    fn dispatch_compute(&mut self, p: &calls::DispatchCompute) {
        self.touch();
        if let Err(e) = self.do_dispatch(p) {
            warn!(groups = ?p.groups, "dispatch_compute: {e}, skipped");
        }
    }

    fn memory_barrier(&mut self, _p: &calls::MemoryBarrier) {
        self.touch();
        self.do_memory_barrier();
    }

    fn set_constant_buffers(&mut self, p: &calls::SetConstantBuffers) {
        self.touch();
        if let Some(c) = self.cur("set_constant_buffers") {
            c.cbufs = *p;
        }
    }

    fn set_constant_buffer(&mut self, p: &calls::SetConstantBuffer) {
        // Not `touch`: the next draw re-resolves the uniform buffers
        // (`apply_light`).
        self.light |= crate::LIGHT_CBUF;
        if let Some(c) = self.cur("set_constant_buffer") {
            if !mgpipe::wire::apply_constant_buffer(&mut c.cbufs, p) {
                warn!(
                    slot = p.slot,
                    "set_constant_buffer: slot out of range, skipped"
                );
            }
        }
    }

    fn set_global_constants(&mut self, p: &calls::SetGlobalConstants, blob: &[u8]) {
        // Not `touch`: the default uniform block is a dynamic-offset range
        // the next draw re-resolves (`apply_light`, LIGHT_CBUF).
        self.light |= crate::LIGHT_CBUF;
        let Some(sh) = self.scr.shaders.get_mut(p.shader) else {
            warn!(shader = ?p.shader, "set_global_constants: unknown shader, skipped");
            return;
        };
        if blob.len() != sh.global_size as usize {
            debug!(shader = ?p.shader, blob = blob.len(), size = sh.global_size, "set_global_constants: blob size differs from global_size");
        }
        let n = blob.len().min(sh.global_size as usize);
        sh.globals.clear();
        sh.globals.extend_from_slice(&blob[..n]);
        sh.globals_at = None;
    }

    // ------------------------------------------------------------ verbs

    fn clear(&mut self, p: &calls::Clear) {
        self.touch();
        if let Err(e) = self.do_clear(p) {
            warn!("clear: {e}, skipped");
        }
    }

    fn draw(&mut self, p: &calls::Draw, blob: &[u8]) {
        if let Err(e) = self.do_draw(p, blob) {
            warn!(mode = p.mode, count = p.count, "draw: {e}, skipped");
        }
        if let Some(x) = &self.frames.xfb {
            // The captured buffers are busy until this frame completes.
            for h in x.handles {
                let _ = self.buffer_use(h);
            }
        }
        self.submit_if_busy();
    }

    fn xfb_begin(&mut self, p: &calls::XfbBegin) {
        if self.frames.xfb.is_some() {
            warn!("xfb_begin: transform feedback already active, ignored");
            return;
        }
        if self.gpu.xfb.is_none() {
            warn!("xfb_begin: the device has no transform feedback, ignored");
            return;
        }
        let count = p.count.min(4);
        let mut buffers = [vk::Buffer::null(); 4];
        let mut offsets = [0u64; 4];
        let mut sizes = [0u64; 4];
        for i in 0..count as usize {
            let Some((raw, size)) = self.buffer_use(p.buffers[i]) else {
                warn!(buffer = ?p.buffers[i], index = i, "xfb_begin: no valid buffer, ignored");
                return;
            };
            let off = p.offsets[i].min(size);
            buffers[i] = raw.buffer;
            offsets[i] = off;
            sizes[i] = match p.sizes[i] {
                0 => size - off,
                n => n.min(size - off),
            };
        }
        let counter = match self.gpu.create_buffer(
            16,
            vk::BufferUsageFlags::TRANSFORM_FEEDBACK_COUNTER_BUFFER_EXT,
            false,
        ) {
            Ok(b) => b,
            Err(e) => {
                warn!("xfb_begin: counter buffer: {e}, ignored");
                return;
            }
        };
        // Captured from the next rendering instance on (frame.rs XfbRun).
        self.frames.end_rendering(&self.gpu);
        self.frames.xfb = Some(crate::frame::XfbRun {
            count,
            handles: p.buffers,
            buffers,
            offsets,
            sizes,
            counter,
            counters_valid: false,
            paused: false,
            recording: false,
        });
    }

    fn xfb_end(&mut self, _p: &calls::XfbEnd) {
        self.frames.end_rendering(&self.gpu);
        if let Some(x) = self.frames.xfb.take() {
            self.frames.retire(crate::frame::Garbage::Buffer(x.counter));
        }
    }

    fn xfb_pause(&mut self, _p: &calls::XfbPause) {
        // Ending the instance stores the positions in the counters.
        self.frames.end_rendering(&self.gpu);
        if let Some(x) = self.frames.xfb.as_mut() {
            x.paused = true;
        }
    }

    fn xfb_resume(&mut self, _p: &calls::XfbResume) {
        self.frames.end_rendering(&self.gpu);
        if let Some(x) = self.frames.xfb.as_mut() {
            x.paused = false;
        }
    }

    fn blit(&mut self, p: &calls::Blit) {
        self.touch();
        if let Err(e) = self.do_blit(p) {
            warn!("blit: {e}, skipped");
        }
    }

    fn read_pixels_into(&mut self, p: &calls::ReadPixels, dst: &mut [u8]) -> bool {
        self.touch();
        match self.do_read_pixels_into(p, dst) {
            Ok(done) => done,
            Err(e) => {
                warn!("read_pixels: {e}; answered through the reply instead");
                false
            }
        }
    }

    fn read_pixels(&mut self, p: &calls::ReadPixels, reply: &mut Vec<u8>) {
        self.touch();
        reply.clear();
        if let Err(e) = self.do_read_pixels(p, reply) {
            warn!(
                format = p.format,
                ty = p.r#type,
                "read_pixels: {e}; zeros returned"
            );
        }
        let want = emulation::bytes_per_pixel(p.format, p.r#type)
            .map(|bpp| (p.width as u64 * p.height as u64).saturating_mul(bpp as u64))
            .filter(|&t| t <= MAX_REPLY)
            .unwrap_or(0) as usize;
        if reply.len() != want {
            reply.clear();
            reply.resize(want, 0);
        }
    }

    fn buffer_readback(&mut self, p: &calls::BufferReadback, reply: &mut Vec<u8>) {
        self.touch();
        reply.clear();
        if let Err(e) = self.do_buffer_readback(p, reply) {
            warn!(res = ?p.res, "buffer_readback: {e}; zeros returned");
        }
    }

    fn fence_insert(&mut self, p: &calls::FenceInsert) {
        self.touch();
        let serial = match self.frames.submit(&self.gpu) {
            Ok(s) => s,
            Err(e) => {
                warn!(fence = ?p.fence, "fence_insert: submit failed: {e}");
                self.frames.next_serial - 1
            }
        };
        if self.scr.fences.insert(p.fence, serial).is_err() {
            warn!(fence = ?p.fence, "fence_insert: invalid handle, skipped");
        }
    }

    fn flush_commands(&mut self, _p: &calls::FlushCommands) {
        self.touch();
        if let Err(e) = self.frames.submit(&self.gpu) {
            warn!("flush_commands: {e}");
        }
    }

    fn finish(&mut self, _p: &calls::Finish, reply: &mut Vec<u8>) {
        self.touch();
        reply.clear();
        if let Err(e) = self.frames.finish(&self.gpu) {
            warn!("finish: {e}");
        }
    }

    fn query_begin(&mut self, p: &calls::QueryBegin) {
        self.touch();
        self.q_begin(p);
    }

    fn query_end(&mut self, p: &calls::QueryEnd) {
        self.touch();
        self.q_end(p);
    }

    fn query_counter(&mut self, p: &calls::QueryCounter) {
        self.touch();
        self.q_counter(p);
    }

    fn query_result(&mut self, p: &calls::QueryResult, reply: &mut Vec<u8>) {
        self.touch();
        self.q_result(p, reply);
    }

    fn timestamp(&mut self, _p: &calls::Timestamp, reply: &mut Vec<u8>) {
        self.touch();
        self.timestamp_ns(reply);
    }

    fn get_texture_image(&mut self, p: &calls::GetTextureImage, reply: &mut Vec<u8>) {
        self.touch();
        self.texture_image(p, reply);
    }

    fn present(&mut self, p: &calls::Present) {
        self.touch();
        if !p.surface.is_null() && self.scr.surfaces.get(p.surface).is_none() {
            warn!(surface = ?p.surface, "present: unknown surface");
        }
        if let Err(e) = self.frames.submit(&self.gpu) {
            warn!("present: {e}");
        }
        self.warn_once(
            "present",
            "present: surfaces are pbuffer-like, nothing to show",
        );
    }
}

/// Dynamic uniform-buffer offsets go in binding, then array-element order;
/// the ranges' starts move into them (the set then only names buffers and
/// sizes). `offsets` is cleared first.
fn split_dynamic_offsets(
    infos: &mut [(u32, u32, vk::DescriptorBufferInfo)],
    offsets: &mut Vec<u32>,
) {
    offsets.clear();
    infos.sort_unstable_by_key(|(b, k, _)| (*b, *k));
    for (_, _, i) in infos.iter_mut() {
        match u32::try_from(i.offset) {
            Ok(o) => {
                offsets.push(o);
                i.offset = 0;
            }
            Err(_) => offsets.push(0),
        }
    }
}

/// Whether moving context `c` to vertex elements `elements` with buffer
/// slots `vb` keeps the vertex layout the pipeline was built for (same
/// elements, slot count and strides): Some(LIGHT_VBUF) when only buffers
/// or offsets moved, Some(0) when nothing did, None when the next draw must
/// be resolved in full.
fn light_vertex_change(c: &Ctx, elements: Handle, vb: &calls::SetVertexBuffers) -> Option<u8> {
    let n = (vb.count as usize).min(vb.buffers.len());
    let same_layout = c.vertex_elements == elements
        && c.vbufs.count == vb.count
        && c.vbufs.strides[..n] == vb.strides[..n];
    if !same_layout {
        return None;
    }
    let moved = c.vbufs.buffers[..n] != vb.buffers[..n] || c.vbufs.offsets[..n] != vb.offsets[..n];
    Some(if moved { crate::LIGHT_VBUF } else { 0 })
}

/// A colour view of level 0 and every layer of `img` (the dummies').
fn whole_image_view(
    gpu: &crate::device::Gpu,
    img: &mut ImageRes,
    vt: vk::ImageViewType,
) -> Option<vk::ImageView> {
    let k = ViewKey {
        ty: vt.as_raw(),
        aspect: vk::ImageAspectFlags::COLOR.as_raw(),
        base_level: 0,
        levels: 1,
        base_layer: 0,
        layers: img.layers,
        swizzle: [0; 4],
    };
    resource::view(gpu, img, k)
}

/// One `vkCmdBlitImage` region (source subresource and corners,
/// destination subresource and corners) between two images in GENERAL.
///
/// # Safety
/// Recording outside a rendering instance; both images are live and in
/// GENERAL, and the corners lie inside their subresources.
unsafe fn blit_general(
    device: &ash::Device,
    cmd: vk::CommandBuffer,
    src: vk::Image,
    dst: vk::Image,
    (srs, so, drs, dof): (
        vk::ImageSubresourceLayers,
        [vk::Offset3D; 2],
        vk::ImageSubresourceLayers,
        [vk::Offset3D; 2],
    ),
    filter: vk::Filter,
) {
    // SAFETY: the caller's promise above.
    unsafe {
        device.cmd_blit_image(
            cmd,
            src,
            vk::ImageLayout::GENERAL,
            dst,
            vk::ImageLayout::GENERAL,
            &[vk::ImageBlit {
                src_subresource: srs,
                src_offsets: so,
                dst_subresource: drs,
                dst_offsets: dof,
            }],
            filter,
        )
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use vk::ImageViewType as T;

    fn img(view_type: vk::ImageViewType, layers: u32) -> ImageRes {
        ImageRes {
            image: vk::Image::null(),
            memory: vk::DeviceMemory::null(),
            host: Default::default(),
            linear: false,
            format: emulation::storage_format(gl::RGBA8, &|_, _| true),
            gl_internal: gl::RGBA8,
            view_type,
            extent: vk::Extent3D {
                width: 4,
                height: 4,
                depth: if view_type == T::TYPE_3D { 4 } else { 1 },
            },
            layers,
            levels: 1,
            samples: vk::SampleCountFlags::TYPE_1,
            storage: true,
            defined: 1,
            views: Default::default(),
        }
    }

    #[test]
    fn image_unit_layers_follow_gl_layered_bindings() {
        const L: u32 = IMAGE_LAYERED;
        let array = img(T::TYPE_2D_ARRAY, 4);
        // Non-layered: one layer, seen as 2D (or a 1-layer array).
        assert_eq!(storage_layers(&array, T::TYPE_2D, 2), Ok((2, 1)));
        assert_eq!(storage_layers(&array, T::TYPE_2D_ARRAY, 3), Ok((3, 1)));
        assert!(storage_layers(&array, T::TYPE_2D, 4).is_err());
        // Layered: every layer.
        assert_eq!(storage_layers(&array, T::TYPE_2D_ARRAY, L), Ok((0, 4)));
        // A non-array texture ignores the layer.
        let flat = img(T::TYPE_2D, 1);
        assert_eq!(storage_layers(&flat, T::TYPE_2D, 7), Ok((0, 1)));
        assert_eq!(storage_layers(&flat, T::TYPE_2D, L), Ok((0, 1)));
        // Cube maps: layered as a cube, a face as 2D.
        let cube = img(T::CUBE, 6);
        assert_eq!(storage_layers(&cube, T::CUBE, L), Ok((0, 6)));
        assert!(storage_layers(&cube, T::CUBE, 1).is_err());
        assert_eq!(storage_layers(&cube, T::TYPE_2D, 5), Ok((5, 1)));
        let cubes = img(T::CUBE_ARRAY, 12);
        assert_eq!(storage_layers(&cubes, T::CUBE_ARRAY, L), Ok((0, 12)));
        // 3D: the whole level; a single slice is a named gap.
        let vol = img(T::TYPE_3D, 1);
        assert_eq!(storage_layers(&vol, T::TYPE_3D, L), Ok((0, 1)));
        assert!(storage_layers(&vol, T::TYPE_2D, 2).is_err());
        // Shapes that do not match.
        assert!(storage_layers(&flat, T::TYPE_3D, L).is_err());
        assert!(storage_layers(&img(T::TYPE_1D, 1), T::TYPE_2D, L).is_err());
        assert!(storage_layers(&flat, T::CUBE, L).is_err());
    }
}
