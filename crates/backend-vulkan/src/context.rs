//! `mgpipe::Context`: CSOs, `set_*` state, objects/transfers and verbs,
//! applied to the client context made current by `make_current`.

use ash::vk;
use mgpipe::calls;
use mgpipe::consts::{
    CLEAR_COLOR_ALL, CLEAR_COLOR_ONE, CLEAR_DEPTH, CLEAR_FLOAT, CLEAR_INT, CLEAR_STENCIL,
    CLEAR_UINT, NO_ATTACHMENT, SURFACE_NONE, SURFACE_RENDERBUFFER, SURFACE_TEXTURE,
};
use mgpipe::{Context, Handle};
use tracing::{debug, warn};

use crate::device::RawBuffer;
use crate::emulation::{self, gl, FormatClass, StorageFormat};
use crate::frame::{self, Garbage, RenderTarget};
use crate::pipeline::{self, PipeDesc, VertexSlot};
use crate::resource::{self, level_extent};
use crate::screen::{default_render_state, MAX_BUFFER};
use crate::spirv::{SamplerBinding, Scalar, SAMPLER_SET, UBO_SET};
use crate::{
    Ctx, ImageRes, ResKind, SamplerEntry, ShaderEntry, SurfaceEntry, ViewKey, VkError,
    VulkanBackend,
};

/// Replies larger than this are refused.
const MAX_REPLY: u64 = 1 << 30;

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
        }
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

fn image_of(
    scr: &mut crate::ScreenTables,
    r: ImgRef,
    kind: u32,
) -> Option<&mut ImageRes> {
    match r {
        ImgRef::Res(h) => match (kind, scr.resources.get_mut(h).map(|r| &mut r.kind)) {
            (SURFACE_TEXTURE, Some(ResKind::Texture { img: Some(i), .. })) => Some(i),
            (SURFACE_RENDERBUFFER, Some(ResKind::Renderbuffer(i))) => Some(i),
            _ => None,
        },
        ImgRef::SurfColor(s) => scr.surfaces.get_mut(s).and_then(|s| s.color.as_mut()),
        ImgRef::SurfDs(s) => scr.surfaces.get_mut(s).and_then(|s| s.depth_stencil.as_mut()),
    }
}

impl VulkanBackend {
    fn cur(&mut self, call: &'static str) -> Option<&mut Ctx> {
        let Some(h) = self.current else {
            warn!(call, "no current context, skipped");
            return None;
        };
        let c = self.ctxs.get_mut(h);
        if c.is_none() {
            warn!(call, ctx = ?h, "current context is gone, skipped");
        }
        c
    }

    fn cur_copy(&mut self, call: &'static str) -> Option<Ctx> {
        self.cur(call).map(|c| *c)
    }

    fn attach(&mut self, r: ImgRef, kind: u32, level: u32, layer: u32) -> Option<Attach> {
        let gpu = &self.gpu;
        let img = image_of(&mut self.scr, r, kind)?;
        let view = resource::attachment_view(gpu, img, level, layer)?;
        let e = level_extent(img.extent, level);
        Some(Attach {
            view,
            image: img.image,
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
                        .attach(ImgRef::Res(p.depth), p.depth_kind, p.depth_level, 0)
                        .filter(|a| a.format.class.has_depth());
                }
                if p.stencil_kind != SURFACE_NONE && !p.stencil.is_null() {
                    fb.stencil = self
                        .attach(ImgRef::Res(p.stencil), p.stencil_kind, p.stencil_level, 0)
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

    /// Open (or keep) the rendering instance for `fb`.
    fn begin_rendering(&mut self, fb: &Fb) -> Result<vk::CommandBuffer, VkError> {
        let cmd = self.frames.cmd(&self.gpu)?;
        let target = fb.target();
        if self.frames.rendering == Some(target) {
            return Ok(cmd);
        }
        if self.frames.rendering.is_some() {
            self.frames.end_rendering(&self.gpu);
        } else {
            frame::barrier(&self.gpu, cmd);
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
            .layer_count(1)
            .color_attachments(&colors);
        if target.depth != vk::ImageView::null() {
            info = info.depth_attachment(&depth);
        }
        if target.stencil != vk::ImageView::null() {
            info = info.stencil_attachment(&stencil);
        }
        self.gpu.begin_rendering(cmd, &info);
        self.frames.rendering = Some(target);
        Ok(cmd)
    }

    /// The GL scissor box (if enabled) clipped to `extent`; None: empty.
    fn scissor_rect(c: &Ctx, extent: vk::Extent2D) -> Option<vk::Rect2D> {
        let (mut x0, mut y0, mut x1, mut y1) = (0i64, 0i64, extent.width as i64, extent.height as i64);
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
                .create_image(sf, internal, it, vt, ext, layers, 1, if sb.ms { 2 } else { 1 })
                .ok()?;
            if let Ok(cmd) = self.frames.transfer_cmd(&self.gpu) {
                // SAFETY: recording outside rendering; fresh image in GENERAL.
                unsafe {
                    self.gpu.device.cmd_clear_color_image(
                        cmd,
                        img.image,
                        vk::ImageLayout::GENERAL,
                        &vk::ClearColorValue::default(),
                        &[resource::full_range(&img)],
                    )
                };
                frame::barrier(&self.gpu, cmd);
            }
            self.dummies.images.insert(key, img);
        }
        let gpu = &self.gpu;
        let img = self.dummies.images.get_mut(&key)?;
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

    /// The view a draw samples for texture unit `unit` (None: use a dummy).
    fn sampled_view(&mut self, c: &Ctx, unit: usize, sb: &SamplerBinding, no_mip: bool) -> Option<vk::ImageView> {
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
                    || (img.view_type == vk::ImageViewType::CUBE && want_vt == vk::ImageViewType::TYPE_2D_ARRAY)
            }
            vk::ImageViewType::TYPE_1D | vk::ImageViewType::TYPE_1D_ARRAY => {
                img.view_type == vk::ImageViewType::TYPE_1D
                    || img.view_type == vk::ImageViewType::TYPE_1D_ARRAY
            }
            vk::ImageViewType::CUBE => {
                img.view_type == vk::ImageViewType::CUBE && img.layers >= 6
            }
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
            if s == vk::ComponentSwizzle::A && img.format.alpha_one && aspect == vk::ImageAspectFlags::COLOR {
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
        let align = self.gpu.props.limits.min_uniform_buffer_offset_alignment.max(16);
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
        let mut data = sh.globals.clone();
        data.resize(size as usize, 0);
        let a = self.frames.upload(&self.gpu, size, align).ok()?;
        a.write(0, &data);
        if let Some(sh) = self.scr.shaders.get_mut(shader) {
            sh.globals_at = Some((serial, a.buffer, a.offset));
        }
        Some((a.buffer, a.offset, size))
    }

    fn buffer_of(&self, h: Handle) -> Option<(RawBuffer, u64)> {
        match self.scr.resources.get(h).map(|r| &r.kind) {
            Some(ResKind::Buffer { raw, size }) => Some((*raw, *size)),
            _ => None,
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
