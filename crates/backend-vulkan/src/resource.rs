//! Images and buffers: creation, uploads through the frame's staging arena,
//! views, and the release lists that feed deferred destruction.

use ash::vk;

use crate::device::{Gpu, RawBuffer};
use crate::emulation::{self, FormatClass, StorageFormat};
use crate::frame::{self, Garbage};
use crate::{ImageRes, ResKind, Resource, SurfaceEntry, ViewKey, VkError, VulkanBackend};

pub(crate) fn collect_image(img: ImageRes, out: &mut Vec<Garbage>) {
    for (_, v) in img.views {
        out.push(Garbage::View(v));
    }
    out.push(Garbage::Image(img.image, img.memory));
}

pub(crate) fn collect_resource(r: Resource, out: &mut Vec<Garbage>) {
    match r.kind {
        ResKind::Buffer { raw, .. } => out.push(Garbage::Buffer(raw)),
        ResKind::Texture { img, .. } => {
            if let Some(i) = img {
                collect_image(i, out)
            }
        }
        ResKind::Renderbuffer(i) => collect_image(i, out),
    }
}

pub(crate) fn collect_surface(s: SurfaceEntry, out: &mut Vec<Garbage>) {
    if let Some(i) = s.color {
        collect_image(i, out);
    }
    if let Some(i) = s.depth_stencil {
        collect_image(i, out);
    }
}

/// Sample count flags for a GL sample count.
pub(crate) fn sample_flags(n: u32) -> vk::SampleCountFlags {
    match n {
        0 | 1 => vk::SampleCountFlags::TYPE_1,
        2..=3 => vk::SampleCountFlags::TYPE_2,
        4..=7 => vk::SampleCountFlags::TYPE_4,
        8..=15 => vk::SampleCountFlags::TYPE_8,
        _ => vk::SampleCountFlags::TYPE_16,
    }
}

/// Identity view of all levels/layers for sampling.
pub(crate) fn full_range(img: &ImageRes) -> vk::ImageSubresourceRange {
    vk::ImageSubresourceRange {
        aspect_mask: emulation::aspect(img.format.class),
        base_mip_level: 0,
        level_count: vk::REMAINING_MIP_LEVELS,
        base_array_layer: 0,
        layer_count: vk::REMAINING_ARRAY_LAYERS,
    }
}

/// The view of `img` described by `key` (made on first use, cached).
pub(crate) fn view(gpu: &Gpu, img: &mut ImageRes, key: ViewKey) -> Option<vk::ImageView> {
    if let Some(&v) = img.views.get(&key) {
        return Some(v);
    }
    let sw = |i: usize| vk::ComponentSwizzle::from_raw(key.swizzle[i]);
    let ci = vk::ImageViewCreateInfo::default()
        .image(img.image)
        .view_type(vk::ImageViewType::from_raw(key.ty))
        .format(img.format.vk)
        .components(vk::ComponentMapping {
            r: sw(0),
            g: sw(1),
            b: sw(2),
            a: sw(3),
        })
        .subresource_range(vk::ImageSubresourceRange {
            aspect_mask: vk::ImageAspectFlags::from_raw(key.aspect),
            base_mip_level: key.base_level,
            level_count: key.levels,
            base_array_layer: key.base_layer,
            layer_count: key.layers,
        });
    // SAFETY: a live image of this device; the range was clamped by callers.
    match unsafe { gpu.device.create_image_view(&ci, None) } {
        Ok(v) => {
            img.views.insert(key, v);
            Some(v)
        }
        Err(e) => {
            tracing::warn!(?key, "vkCreateImageView failed: {e}");
            None
        }
    }
}

/// A single-level view for rendering into `level`: one layer (a 2D-ish
/// view), or every layer of the level for `ATTACH_LAYERED` (an array view;
/// a 3D image's slices through its 2D-array-compatible flag). Returns the
/// view and its layer count.
pub(crate) fn attachment_view(
    gpu: &Gpu,
    img: &mut ImageRes,
    level: u32,
    layer: u32,
) -> Option<(vk::ImageView, u32)> {
    if level >= img.levels {
        return None;
    }
    let layered = layer == mgpipe::consts::ATTACH_LAYERED;
    let (layer, layers, ty) = if layered {
        if img.view_type == vk::ImageViewType::TYPE_3D {
            let depth = (img.extent.depth >> level).max(1);
            (0, depth, vk::ImageViewType::TYPE_2D_ARRAY)
        } else if img.view_type == vk::ImageViewType::TYPE_1D
            || img.view_type == vk::ImageViewType::TYPE_1D_ARRAY
        {
            (0, img.layers.max(1), vk::ImageViewType::TYPE_1D_ARRAY)
        } else {
            (0, img.layers.max(1), vk::ImageViewType::TYPE_2D_ARRAY)
        }
    } else if img.view_type == vk::ImageViewType::TYPE_3D {
        let depth = (img.extent.depth >> level).max(1);
        (layer.min(depth - 1), 1, vk::ImageViewType::TYPE_2D)
    } else if img.view_type == vk::ImageViewType::TYPE_1D
        || img.view_type == vk::ImageViewType::TYPE_1D_ARRAY
    {
        (layer.min(img.layers - 1), 1, vk::ImageViewType::TYPE_1D)
    } else {
        (layer.min(img.layers - 1), 1, vk::ImageViewType::TYPE_2D)
    };
    let key = ViewKey {
        ty: ty.as_raw(),
        aspect: emulation::aspect(img.format.class).as_raw(),
        base_level: level,
        levels: 1,
        base_layer: layer,
        layers,
        swizzle: [0; 4],
    };
    let v = view(gpu, img, key)?;
    img.defined |= 1u64 << level.min(63);
    Some((v, layers))
}

/// Extent of `level` (at least 1 in every dimension).
pub(crate) fn level_extent(e: vk::Extent3D, level: u32) -> vk::Extent3D {
    let s = |v: u32| (v.checked_shr(level).unwrap_or(0)).max(1);
    vk::Extent3D {
        width: s(e.width),
        height: s(e.height),
        depth: s(e.depth),
    }
}

impl VulkanBackend {
    pub(crate) fn retire(&mut self, v: Vec<Garbage>) {
        for g in v {
            self.frames.retire(g);
        }
    }

    /// Storage for a GL internal format on this device.
    pub(crate) fn storage_format(&self, internal: u32) -> StorageFormat {
        let gpu = &self.gpu;
        emulation::storage_format(internal, &|f, class| {
            let feats = gpu.format_features(f);
            match class {
                FormatClass::Depth | FormatClass::DepthStencil | FormatClass::Stencil => {
                    feats.contains(vk::FormatFeatureFlags::DEPTH_STENCIL_ATTACHMENT)
                }
                _ => feats.contains(vk::FormatFeatureFlags::SAMPLED_IMAGE),
            }
        })
    }

    /// A new image in GENERAL layout (the transition is recorded now).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn create_image(
        &mut self,
        format: StorageFormat,
        gl_internal: u32,
        image_type: vk::ImageType,
        view_type: vk::ImageViewType,
        extent: vk::Extent3D,
        layers: u32,
        levels: u32,
        samples: u32,
    ) -> Result<ImageRes, VkError> {
        let feats = self.gpu.format_features(format.vk);
        let mut usage = vk::ImageUsageFlags::TRANSFER_SRC | vk::ImageUsageFlags::TRANSFER_DST;
        if feats.contains(vk::FormatFeatureFlags::SAMPLED_IMAGE) {
            usage |= vk::ImageUsageFlags::SAMPLED;
        }
        if format.class.is_color() {
            if feats.contains(vk::FormatFeatureFlags::COLOR_ATTACHMENT) {
                usage |= vk::ImageUsageFlags::COLOR_ATTACHMENT;
            }
        } else if feats.contains(vk::FormatFeatureFlags::DEPTH_STENCIL_ATTACHMENT) {
            usage |= vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT;
        }
        // Colour images whose format can be a storage image are made able
        // to be one (`set_shader_images`); multisampled storage images are
        // a named gap (shaderStorageImageMultisample is not used).
        let storage = format.class.is_color()
            && samples <= 1
            && feats.contains(vk::FormatFeatureFlags::STORAGE_IMAGE);
        if storage {
            usage |= vk::ImageUsageFlags::STORAGE;
        }
        let mut flags = vk::ImageCreateFlags::empty();
        if (view_type == vk::ImageViewType::CUBE || view_type == vk::ImageViewType::CUBE_ARRAY)
            && extent.width == extent.height
            && layers.is_multiple_of(6)
        {
            flags |= vk::ImageCreateFlags::CUBE_COMPATIBLE;
        }
        if image_type == vk::ImageType::TYPE_3D {
            flags |= vk::ImageCreateFlags::TYPE_2D_ARRAY_COMPATIBLE;
        }
        let samples_f = sample_flags(samples);
        let levels = if samples_f != vk::SampleCountFlags::TYPE_1 {
            1
        } else {
            levels.clamp(1, emulation::full_chain(extent))
        };
        let ci = vk::ImageCreateInfo::default()
            .flags(flags)
            .image_type(image_type)
            .format(format.vk)
            .extent(extent)
            .mip_levels(levels)
            .array_layers(layers.max(1))
            .samples(samples_f)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        // On CPU devices colour images are LINEAR where allowed (llvmpipe
        // stores every image linearly anyway), so the host can write an
        // idle one in place (`upload_image`).
        let linear =
            self.gpu.host_images && format.class.is_color() && self.gpu.linear_allowed(&ci);
        // A LINEAR image starts PREINITIALIZED: its transition to GENERAL
        // keeps what the host writes before the frame is submitted.
        let initial = if linear {
            vk::ImageLayout::PREINITIALIZED
        } else {
            vk::ImageLayout::UNDEFINED
        };
        let ci = if linear {
            ci.tiling(vk::ImageTiling::LINEAR).initial_layout(initial)
        } else {
            ci
        };
        let (image, memory, mapping) = self.gpu.create_image(&ci)?;
        let img = ImageRes {
            image,
            memory,
            host: mapping,
            linear: linear && mapping.addr != 0,
            format,
            gl_internal,
            view_type,
            extent,
            layers: layers.max(1),
            levels,
            samples: samples_f,
            storage,
            defined: 0,
            views: Default::default(),
        };
        // The transition goes ahead of the frame (`pre`): nothing recorded
        // can use a fresh image, and an open rendering instance stays open.
        let fresh = frame::Written {
            object: vk::Handle::as_raw(image),
            level: 0,
            ranges: [(0, u64::MAX), (0, u64::MAX), (0, u64::MAX), (0, u64::MAX)],
        };
        let cmd = match self.frames.pre_upload_cmd(&self.gpu, fresh) {
            Ok(c) => c,
            Err(e) => {
                let mut g = Vec::new();
                collect_image(img, &mut g);
                for x in g {
                    x.destroy(&self.gpu);
                }
                return Err(e);
            }
        };
        if linear {
            self.frames.note_fresh(image);
        }
        let ib = [vk::ImageMemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::HOST_WRITE)
            .dst_access_mask(vk::AccessFlags::MEMORY_READ | vk::AccessFlags::MEMORY_WRITE)
            .old_layout(initial)
            .new_layout(vk::ImageLayout::GENERAL)
            .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .image(image)
            .subresource_range(full_range(&img))];
        // SAFETY: `pre` is recording (never inside rendering); the image is
        // fresh.
        unsafe {
            self.gpu.device.cmd_pipeline_barrier(
                cmd,
                vk::PipelineStageFlags::HOST | vk::PipelineStageFlags::TOP_OF_PIPE,
                vk::PipelineStageFlags::ALL_COMMANDS,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &ib,
            )
        };
        Ok(img)
    }

    /// Copy tight texel bytes into a region of an image (one aspect).
    pub(crate) fn upload_image(
        &mut self,
        image: vk::Image,
        aspect: vk::ImageAspectFlags,
        b: TexelBox,
        data: &[u8],
    ) -> Result<(), VkError> {
        let (offset, extent, layers) = (b.offset, b.extent, b.layers.max(1));
        let staging = self.frames.upload(&self.gpu, data.len() as u64, 16)?;
        staging.write(0, data);
        // The frame now writes this image: later host writes to images
        // must not overtake it.
        self.frames.touch_images();
        let lo = |v: i32| v.max(0) as u64;
        let cmd = self.frames.upload_cmd(
            &self.gpu,
            frame::Written {
                object: vk::Handle::as_raw(image),
                level: b.level,
                ranges: [
                    (lo(offset.x), lo(offset.x) + extent.width as u64),
                    (lo(offset.y), lo(offset.y) + extent.height as u64),
                    (lo(offset.z), lo(offset.z) + extent.depth as u64),
                    (b.base_layer as u64, b.base_layer as u64 + layers as u64),
                ],
            },
        )?;
        let region = [vk::BufferImageCopy {
            buffer_offset: staging.offset,
            buffer_row_length: 0,
            buffer_image_height: 0,
            image_subresource: vk::ImageSubresourceLayers {
                aspect_mask: aspect,
                mip_level: b.level,
                base_array_layer: b.base_layer,
                layer_count: layers,
            },
            image_offset: offset,
            image_extent: extent,
        }];
        // SAFETY: recording outside rendering (upload_cmd); the staging
        // range holds the tight region (callers sized `data`); the image is
        // in GENERAL. Whatever comes next barriers first (see upload_cmd).
        unsafe {
            self.gpu.device.cmd_copy_buffer_to_image(
                cmd,
                staging.buffer,
                image,
                vk::ImageLayout::GENERAL,
                &region,
            )
        };
        Ok(())
    }

    /// Write tight colour texels into a region of texture `res` in place,
    /// by the host, when its image is LINEAR in mapped memory and nothing
    /// recorded or in flight uses it (`Frames::host_may_write_image`):
    /// what llvmpipe does for `glTexSubImage2D` natively, where the staged
    /// copy would run on lavapipe's queue thread at the next submission.
    /// False: nothing written (take `upload_image`).
    pub(crate) fn host_write_image(
        &mut self,
        res: mgpipe::Handle,
        b: TexelBox,
        data: &[u8],
    ) -> bool {
        let TexelBox {
            level,
            offset,
            extent,
            base_layer,
            layers,
        } = b;
        let Some(ResKind::Texture { img: Some(img), .. }) =
            self.scr.resources.get(res).map(|r| &r.kind)
        else {
            return false;
        };
        if !img.linear
            || level >= img.levels
            || offset.x < 0
            || offset.y < 0
            || offset.z < 0
            || !self
                .frames
                .host_may_write_image(&self.gpu, img.image, img.views.values())
        {
            return false;
        }
        let aspect = vk::ImageAspectFlags::COLOR;
        let texel = emulation::copy_texel_size(img.format.vk, aspect) as u64;
        let row = extent.width as u64 * texel;
        let (h, d) = (extent.height as u64, extent.depth as u64);
        if texel == 0 || data.len() as u64 != row * h * d * layers as u64 {
            return false;
        }
        // Rows lie at increasing offsets, so every layer's last row being
        // inside its subresource bounds them all; checked before any byte
        // is written.
        let (x, y0, z0) = (offset.x as u64, offset.y as u64, offset.z as u64);
        let layout = |l: u32| {
            self.gpu
                .subresource_layout(img.image, aspect, level, base_layer + l)
        };
        if (0..layers).any(|l| {
            row_at(
                &layout(l),
                img.host.len,
                x * texel,
                (y0 + h.saturating_sub(1), z0 + d.saturating_sub(1)),
                row,
            )
            .is_none()
        }) {
            return false;
        }
        let mut src = data.chunks_exact(row as usize);
        for l in 0..layers {
            let lay = layout(l);
            for z in z0..z0 + d {
                for y in y0..y0 + h {
                    let (Some(at), Some(src)) = (
                        row_at(&lay, img.host.len, x * texel, (y, z), row),
                        src.next(),
                    ) else {
                        return false;
                    };
                    // SAFETY: `host` maps the image's whole memory
                    // (coherent); the row lies inside its subresource
                    // (row_at); nothing on the device uses the image
                    // (host_may_write_image) and no other host reference
                    // to this memory exists.
                    let dst = unsafe {
                        std::slice::from_raw_parts_mut(
                            (img.host.addr + at as usize) as *mut u8,
                            src.len(),
                        )
                    };
                    mgpipe::bytes::copy(dst, src);
                }
            }
        }
        self.host_image_writes += 1;
        true
    }

    /// Zero every subresource of `img`, a LINEAR image just created (its
    /// transition out of PREINITIALIZED keeps the bytes), by the host.
    /// False: not such an image, nothing done.
    pub(crate) fn host_zero_image(&self, img: &ImageRes) -> bool {
        if !img.linear || img.host.len == 0 || !img.format.class.is_color() {
            return false;
        }
        // SAFETY: `host` maps the image's whole memory; the image is
        // fresh, so nothing else reads or writes it.
        unsafe { std::ptr::write_bytes(img.host.addr as *mut u8, 0, img.host.len) };
        true
    }

    /// Write `data` at `offset` of a client buffer in command-stream
    /// order: directly through the mapping when no submitted or recorded
    /// GPU work uses the buffer, else through a staged copy (which then
    /// counts as a use). `last_use` is the buffer's use serial.
    pub(crate) fn write_client_buffer(
        &mut self,
        raw: crate::device::RawBuffer,
        last_use: &std::cell::Cell<u64>,
        offset: u64,
        data: &[u8],
    ) -> Result<(), VkError> {
        let idle = self.frames.is_done(&self.gpu, last_use.get());
        if idle && !raw.ptr.is_null() && raw.write(offset, data) {
            return Ok(());
        }
        if idle && raw.ptr.is_null() {
            // Nothing recorded or in flight uses it: the staged copy goes
            // ahead of the frame, leaving any rendering instance open.
            return self.stage_buffer(raw.buffer, offset, data, true);
        }
        last_use.set(self.frames.next_serial);
        self.upload_buffer(raw.buffer, offset, data)
    }

    /// Copy bytes into a buffer in command-stream order.
    pub(crate) fn upload_buffer(
        &mut self,
        dst: vk::Buffer,
        offset: u64,
        data: &[u8],
    ) -> Result<(), VkError> {
        self.stage_buffer(dst, offset, data, false)
    }

    /// Copy bytes into a buffer through the upload arena: in command-stream
    /// order, or with `hoist` in the frame's `pre` command buffer (only for
    /// a destination nothing recorded in the frame uses; see
    /// `Frames::pre_upload_cmd`). Never waits for the GPU.
    pub(crate) fn stage_buffer(
        &mut self,
        dst: vk::Buffer,
        offset: u64,
        data: &[u8],
        hoist: bool,
    ) -> Result<(), VkError> {
        if data.is_empty() {
            return Ok(());
        }
        let staging = self.frames.upload(&self.gpu, data.len() as u64, 16)?;
        staging.write(0, data);
        let end = offset.saturating_add(data.len() as u64);
        let w = frame::Written {
            object: vk::Handle::as_raw(dst),
            level: 0,
            ranges: [(offset, end), (0, 1), (0, 1), (0, 1)],
        };
        let cmd = if hoist {
            self.frames.pre_upload_cmd(&self.gpu, w)?
        } else {
            self.frames.upload_cmd(&self.gpu, w)?
        };
        let region = [vk::BufferCopy {
            src_offset: staging.offset,
            dst_offset: offset,
            size: data.len() as u64,
        }];
        // SAFETY: recording outside rendering (upload_cmd; `pre` never
        // renders); ranges checked by callers. Whatever comes next
        // barriers first (see upload_cmd / pre_upload_cmd).
        unsafe {
            self.gpu
                .device
                .cmd_copy_buffer(cmd, staging.buffer, dst, &region)
        };
        Ok(())
    }

    /// Replace the whole contents of an unmapped buffer that nothing
    /// recorded in the frame uses (fresh, or idle) with `init` followed by
    /// zeros, ahead of the frame (`pre`): a staged copy plus, for a long
    /// tail, a fill of the disjoint rest.
    pub(crate) fn stage_whole_buffer(
        &mut self,
        raw: RawBuffer,
        init: &[u8],
    ) -> Result<(), VkError> {
        let n = (init.len() as u64).min(raw.size);
        let tail = raw.size - n;
        // Short tails travel as staged zeros; a long one is filled from a
        // 4-byte boundary (vkCmdFillBuffer's alignment).
        let staged_end = if tail <= 1 << 16 {
            raw.size
        } else {
            n.div_ceil(4) * 4
        };
        if staged_end > 0 {
            let staging = self.frames.upload(&self.gpu, staged_end, 16)?;
            staging.write(0, &init[..n as usize]);
            if !staging.raw.zero(staging.offset + n, staged_end - n) {
                return Err(VkError::Call {
                    call: "upload arena (zero)",
                    result: vk::Result::ERROR_MEMORY_MAP_FAILED,
                });
            }
            let cmd = self.frames.pre_upload_cmd(
                &self.gpu,
                frame::Written {
                    object: vk::Handle::as_raw(raw.buffer),
                    level: 0,
                    ranges: [(0, staged_end), (0, 1), (0, 1), (0, 1)],
                },
            )?;
            // SAFETY: `pre` is recording outside rendering; the range lies
            // inside both the arena slice and the buffer.
            unsafe {
                self.gpu.device.cmd_copy_buffer(
                    cmd,
                    staging.buffer,
                    raw.buffer,
                    &[vk::BufferCopy {
                        src_offset: staging.offset,
                        dst_offset: 0,
                        size: staged_end,
                    }],
                )
            };
        }
        if staged_end < raw.size {
            let cmd = self.frames.pre_upload_cmd(
                &self.gpu,
                frame::Written {
                    object: vk::Handle::as_raw(raw.buffer),
                    level: 0,
                    ranges: [(staged_end, raw.size), (0, 1), (0, 1), (0, 1)],
                },
            )?;
            // SAFETY: `pre` is recording outside rendering; the offset is a
            // multiple of 4 inside the buffer; WHOLE_SIZE fills to the end
            // (rounded down to 4 bytes: buffers hold at least their GL size,
            // and the zeros past it are never read).
            unsafe {
                self.gpu
                    .device
                    .cmd_fill_buffer(cmd, raw.buffer, staged_end, vk::WHOLE_SIZE, 0)
            };
        }
        Ok(())
    }

    /// A zeroed device buffer of `size` bytes for vertex/index/uniform use.
    pub(crate) fn new_buffer(&mut self, size: u64) -> Result<crate::device::RawBuffer, VkError> {
        self.new_buffer_with(size, &[])
    }

    /// A device buffer of `size` bytes holding `init` (at most `size`
    /// bytes) and zeros after it. On unified memory the buffer is mapped
    /// and filled by the host (no GPU work).
    pub(crate) fn new_buffer_with(
        &mut self,
        size: u64,
        init: &[u8],
    ) -> Result<crate::device::RawBuffer, VkError> {
        let usage = vk::BufferUsageFlags::TRANSFER_SRC
            | vk::BufferUsageFlags::TRANSFER_DST
            | vk::BufferUsageFlags::VERTEX_BUFFER
            | vk::BufferUsageFlags::INDEX_BUFFER
            | vk::BufferUsageFlags::UNIFORM_BUFFER
            | vk::BufferUsageFlags::STORAGE_BUFFER
            | vk::BufferUsageFlags::UNIFORM_TEXEL_BUFFER
            | vk::BufferUsageFlags::INDIRECT_BUFFER
            | if self.gpu.feat.xfb {
                vk::BufferUsageFlags::TRANSFORM_FEEDBACK_BUFFER_EXT
            } else {
                vk::BufferUsageFlags::empty()
            };
        let raw = self.gpu.create_buffer_in(size, usage, false, true)?;
        let init = &init[..init.len().min(raw.size as usize)];
        if !raw.ptr.is_null() {
            // A fresh buffer: no GPU work can use it yet.
            raw.write(0, init);
            raw.zero(init.len() as u64, raw.size - init.len() as u64);
            return Ok(raw);
        }
        // GL leaves undefined contents; zero them so reads are deterministic.
        // Fresh storage: nothing recorded uses it, so the writes go ahead
        // of the frame.
        if let Err(e) = self.stage_whole_buffer(raw, init) {
            self.frames.retire(Garbage::Buffer(raw));
            return Err(e);
        }
        Ok(raw)
    }

    /// The read-back buffer, at least `size` bytes (idle: every user
    /// waits for its copy before returning).
    pub(crate) fn readback_buffer(&mut self, size: u64) -> Result<RawBuffer, VkError> {
        if let Some(rb) = self.readback {
            if rb.size >= size {
                return Ok(rb);
            }
            self.readback = None;
            self.frames.retire(Garbage::Buffer(rb));
        }
        let cap = size
            .max(1 << 16)
            .checked_next_power_of_two()
            .unwrap_or(size);
        let rb = self
            .gpu
            .create_buffer(cap, vk::BufferUsageFlags::TRANSFER_DST, true)?;
        self.readback = Some(rb);
        Ok(rb)
    }

    /// Record `copy` into the read-back buffer (`size` bytes), submit, wait,
    /// and hand the bytes to `f`.
    pub(crate) fn read_back<R>(
        &mut self,
        size: u64,
        copy: impl FnOnce(&Gpu, vk::CommandBuffer, vk::Buffer),
        f: impl FnOnce(&[u8]) -> R,
    ) -> Result<R, VkError> {
        let rb = self.readback_buffer(size)?;
        let res = (|| {
            let cmd = self.frames.transfer_cmd(&self.gpu)?;
            copy(&self.gpu, cmd, rb.buffer);
            frame::barrier(&self.gpu, cmd);
            self.frames.finish(&self.gpu)
        })();
        if let Err(e) = res {
            // Maybe still used by recorded work: not reused, freed later.
            if let Some(rb) = self.readback.take() {
                self.frames.retire(Garbage::Buffer(rb));
            }
            return Err(e);
        }
        let bytes = rb.mapped().unwrap_or(&[]);
        Ok(f(bytes.get(..size as usize).unwrap_or(&[])))
    }

    /// Copy an image region into the read-back buffer, submit, wait and
    /// hand the tight bytes (one aspect) to `f`.
    pub(crate) fn read_image_with<R>(
        &mut self,
        r: &ImageRegion,
        f: impl FnOnce(&[u8]) -> R,
    ) -> Result<R, VkError> {
        let region = [r.copy(0)];
        let image = r.image;
        let copy = |gpu: &Gpu, cmd: vk::CommandBuffer, dst: vk::Buffer| {
            // SAFETY: recording outside rendering; region inside the image
            // (clipped by callers); the buffer holds it.
            unsafe {
                gpu.device.cmd_copy_image_to_buffer(
                    cmd,
                    image,
                    vk::ImageLayout::GENERAL,
                    dst,
                    &region,
                )
            };
        };
        self.read_back(r.size(), copy, f)
    }

    /// `read_image_with` writing the tight bytes straight into `dst`
    /// through a host-pointer import (`host_import.rs`): Ok(false) when
    /// that does not apply (no import, `dst` not texel-aligned or of
    /// another size, the device declined the pointer, or the driver's copy
    /// from `src_addr`, the host address of the region's first byte where
    /// known, would be in `mgpipe::bytes`' slow band) and nothing was done.
    pub(crate) fn read_image_into(
        &mut self,
        r: &ImageRegion,
        src_addr: Option<usize>,
        dst: &mut [u8],
    ) -> Result<bool, VkError> {
        self.last_read_src = src_addr.unwrap_or(0);
        if self.gpu.host_import.is_none() || r.size() != dst.len() as u64 {
            return Ok(false);
        }
        // A CPU device copies with the host's memcpy: 14x slower in the
        // band (the read-back buffer, page-aligned like the image, is not).
        if src_addr.is_some_and(|s| mgpipe::bytes::slow_band(dst.as_ptr() as usize, s)) {
            return Ok(false);
        }
        // SAFETY: `dst` is borrowed mutably for this whole call and the
        // buffer is destroyed (or, on failure, retired with nothing left to
        // write it) before the call returns.
        let Some(ib) = (unsafe { self.gpu.import_host(dst.as_mut_ptr(), dst.len()) }) else {
            return Ok(false);
        };
        // bufferOffset must be a multiple of the texel size (3-byte
        // formats included) and of 4.
        let texel = u64::from(r.texel.max(1));
        if !ib.offset.is_multiple_of(texel) || !ib.offset.is_multiple_of(4) {
            ib.raw.destroy(&self.gpu);
            return Ok(false);
        }
        let region = [r.copy(ib.offset)];
        let res = (|| {
            let cmd = self.frames.transfer_cmd(&self.gpu)?;
            // SAFETY: recording outside rendering; region inside the image
            // (clipped by callers); the imported buffer holds it at `offset`.
            unsafe {
                self.gpu.device.cmd_copy_image_to_buffer(
                    cmd,
                    r.image,
                    vk::ImageLayout::GENERAL,
                    ib.raw.buffer,
                    &region,
                )
            };
            frame::barrier(&self.gpu, cmd);
            self.frames.finish(&self.gpu)
        })();
        match res {
            Ok(()) => {
                ib.raw.destroy(&self.gpu);
                self.imported_reads += 1;
                Ok(true)
            }
            Err(e) => {
                // A failed submission never runs (the command buffer is
                // not submitted again); destroyed once the queue moved on.
                self.frames.retire(Garbage::Buffer(ib.raw));
                Err(e)
            }
        }
    }
}

impl VulkanBackend {
    /// Read the tight texels of `r` (colour, one layer) from a LINEAR image
    /// mapped at `host`, by the host, once everything recorded so far
    /// has completed: what llvmpipe does for `glReadPixels` natively, with
    /// no copy on the device's thread. Ok(false): not applicable, nothing
    /// done.
    pub(crate) fn host_read_image(
        &mut self,
        r: &ImageRegion,
        host: crate::device::HostMapping,
        dst: &mut [u8],
    ) -> Result<bool, VkError> {
        let texel = r.texel as u64;
        let row = r.extent.width as u64 * texel;
        if host.addr == 0
            || r.aspect != vk::ImageAspectFlags::COLOR
            || r.extent.depth != 1
            || r.offset.x < 0
            || r.offset.y < 0
            || r.offset.z < 0
            || row == 0
            || r.size() != dst.len() as u64
        {
            return Ok(false);
        }
        let lay = self
            .gpu
            .subresource_layout(r.image, r.aspect, r.level, r.layer);
        let (x, y0, z) = (r.offset.x as u64, r.offset.y as u64, r.offset.z as u64);
        let at = |y: u64| row_at(&lay, host.len, x * texel, (y0 + y, z), row);
        let h = r.extent.height as u64;
        if at(h.saturating_sub(1)).is_none() {
            return Ok(false);
        }
        self.frames.finish(&self.gpu)?;
        for (y, out) in dst.chunks_exact_mut(row as usize).enumerate() {
            let Some(a) = at(y as u64) else {
                return Ok(false);
            };
            // SAFETY: `host` maps the image's whole memory (coherent);
            // the row lies inside the subresource (row_at); every
            // submission completed, so nothing writes the image.
            let src = unsafe {
                std::slice::from_raw_parts((host.addr + a as usize) as *const u8, row as usize)
            };
            mgpipe::bytes::copy(out, src);
        }
        Ok(true)
    }
}

/// A box of texels in one level of an image: `layers` array layers from
/// `base_layer` (a 3D image's slices are `offset.z` and `extent.depth`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct TexelBox {
    pub level: u32,
    pub offset: vk::Offset3D,
    pub extent: vk::Extent3D,
    pub base_layer: u32,
    pub layers: u32,
}

/// Offset in the image's memory of the `len`-byte row `y` of slice `z`,
/// starting `x_bytes` into the row, of the LINEAR subresource `lay`; None
/// when it does not lie inside the subresource.
///
/// `mapped` bounds it too (the bytes mapped from the memory's start): a
/// driver's layout is not trusted to stay inside the allocation.
fn row_at(
    lay: &vk::SubresourceLayout,
    mapped: usize,
    x_bytes: u64,
    (y, z): (u64, u64),
    len: u64,
) -> Option<u64> {
    let at = z
        .checked_mul(lay.depth_pitch)?
        .checked_add(y.checked_mul(lay.row_pitch)?)?
        .checked_add(x_bytes)?;
    let abs = lay.offset.checked_add(at)?;
    (at.checked_add(len)? <= lay.size && abs.checked_add(len)? <= mapped as u64).then_some(abs)
}

/// One aspect of a box of one layer and level of an image, read back as
/// tight rows of `texel`-byte texels.
pub(crate) struct ImageRegion {
    pub image: vk::Image,
    pub aspect: vk::ImageAspectFlags,
    pub texel: u32,
    pub level: u32,
    pub layer: u32,
    pub offset: vk::Offset3D,
    pub extent: vk::Extent3D,
}

impl ImageRegion {
    /// Bytes of the tight rows.
    fn size(&self) -> u64 {
        let e = self.extent;
        e.width as u64 * e.height as u64 * e.depth as u64 * self.texel as u64
    }

    /// The image → buffer copy, tight rows from `buffer_offset`.
    fn copy(&self, buffer_offset: u64) -> vk::BufferImageCopy {
        vk::BufferImageCopy {
            buffer_offset,
            buffer_row_length: 0,
            buffer_image_height: 0,
            image_subresource: vk::ImageSubresourceLayers {
                aspect_mask: self.aspect,
                mip_level: self.level,
                base_array_layer: self.layer,
                layer_count: 1,
            },
            image_offset: self.offset,
            image_extent: self.extent,
        }
    }
}
