//! Optional reply calls: occlusion and timer queries, timestamps and
//! texture image readback (the answers `backend-gles/src/queries.rs` gives
//! through GLES, here through Vulkan).
//!
//! - `SAMPLES_PASSED` / `ANY_SAMPLES_PASSED(_CONSERVATIVE)`: occlusion
//!   queries (precise when the device can count exactly). A Vulkan query
//!   cannot span command buffers, so each command buffer the GL query
//!   covers gets its own slot (`frame::ActiveSegmented`) and the result
//!   adds them.
//! - `PRIMITIVES_GENERATED`: VK_EXT_primitives_generated_query, counted in
//!   segments the same way (where the device lacks it: logged, reads 0).
//! - `TIME_ELAPSED`, `glQueryCounter`, `GL_TIMESTAMP`: device timestamps
//!   (`vkCmdWriteTimestamp`) scaled by `timestampPeriod` to nanoseconds.
//! - `TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN`: VK_EXT_transform_feedback's
//!   stream query (stream 0), counted in segments too.
//! - `glGetTexImage`: image -> read-back buffer copies, converted like
//!   `read_pixels`.

use ash::vk;
use mgpipe::calls;
use mgpipe::pixels;
use tracing::warn;

use crate::emulation::{self, gl};
use crate::frame::{ActiveSegmented, Segmented, SlotPool};
use crate::resource::ImageRegion;
use crate::{ResKind, VulkanBackend};

/// One query object of the share group.
#[derive(Default)]
pub(crate) struct QueryEntry {
    pub target: u32,
    /// Segment slots of an occlusion or primitives-generated query (one per
    /// command buffer the query covered).
    pub seg: Vec<u32>,
    /// Timestamp slots: [begin, end] for TIME_ELAPSED, [t] for a counter.
    pub ts: Vec<u32>,
    /// Serial of the submission holding its last command.
    pub serial: u64,
    /// Still counting (begun, not ended).
    pub active: bool,
}

fn query_reply(reply: &mut Vec<u8>, available: bool, value: u64) {
    reply.clear();
    reply.extend_from_slice(&(available as u32).to_le_bytes());
    reply.extend_from_slice(&0u32.to_le_bytes());
    reply.extend_from_slice(&value.to_le_bytes());
}

impl VulkanBackend {
    /// The segmented kind counting `target`, where the device can.
    fn segmented(&self, target: u32) -> Option<Segmented> {
        match target {
            gl::SAMPLES_PASSED | gl::ANY_SAMPLES_PASSED | gl::ANY_SAMPLES_PASSED_CONSERVATIVE => {
                Some(Segmented::Occlusion)
            }
            gl::PRIMITIVES_GENERATED if self.gpu.feat.prims_generated => {
                Some(Segmented::PrimitivesGenerated)
            }
            gl::TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN if self.gpu.feat.xfb => {
                Some(Segmented::XfbWritten)
            }
            _ => None,
        }
    }

    /// Give an entry's slots back.
    fn release_query(&mut self, e: QueryEntry) {
        if let Some(k) = self.segmented(e.target) {
            for s in e.seg {
                self.frames.seg_slots[k as usize].release(s);
            }
        }
        for s in e.ts {
            self.frames.ts_slots.release(s);
        }
    }

    /// Store `e` under `h`, releasing whatever was there.
    fn put_query(&mut self, h: mgpipe::Handle, e: QueryEntry) {
        match self.scr.queries.insert(h, e) {
            Ok(Some(old)) => self.release_query(old),
            Ok(None) => {}
            Err(e) => {
                warn!(query = ?h, "query: invalid handle, skipped");
                self.release_query(e);
            }
        }
    }

    /// Record a timestamp into a new slot (outside rendering).
    fn write_timestamp(&mut self) -> Result<u32, String> {
        if self.gpu.timestamp_period.is_none() {
            return Err("the queue has no timestamps".into());
        }
        let cmd = self
            .frames
            .transfer_cmd(&self.gpu)
            .map_err(|e| e.to_string())?;
        let slot = self
            .frames
            .ts_slots
            .alloc(&self.gpu)
            .map_err(|e| e.to_string())?;
        let (pool, idx) = self.frames.ts_slots.at(slot).ok_or("no timestamp pool")?;
        // SAFETY: recording outside rendering; the slot is reset first.
        unsafe {
            self.gpu.device.cmd_reset_query_pool(cmd, pool, idx, 1);
            self.gpu.device.cmd_write_timestamp(
                cmd,
                vk::PipelineStageFlags::BOTTOM_OF_PIPE,
                pool,
                idx,
            );
        }
        Ok(slot)
    }

    /// Raw 64-bit results of `slots` of `pools` (their submission
    /// completed).
    fn slot_values(&self, pools: &SlotPool, slots: &[u32]) -> Option<Vec<u64>> {
        let mut out = Vec::with_capacity(slots.len());
        for &s in slots {
            let (pool, idx) = pools.at(s)?;
            let mut v = [0u64; 1];
            if pools.ty == vk::QueryType::TRANSFORM_FEEDBACK_STREAM_EXT {
                // Two values per query: primitives written, then needed.
                let mut w = [[0u64; 2]; 1];
                // SAFETY: as below, with the stream query's two values.
                unsafe {
                    self.gpu.device.get_query_pool_results(
                        pool,
                        idx,
                        &mut w,
                        vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
                    )
                }
                .ok()?;
                out.push(w[0][0]);
                continue;
            }
            // SAFETY: the slot's submission completed (callers waited), so
            // the result is available; one 64-bit value per query.
            unsafe {
                self.gpu.device.get_query_pool_results(
                    pool,
                    idx,
                    &mut v,
                    vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
                )
            }
            .ok()?;
            out.push(v[0]);
        }
        Some(out)
    }

    fn ticks_to_ns(&self, ticks: u64) -> u64 {
        let period = self.gpu.timestamp_period.unwrap_or(1.0);
        (ticks as f64 * period) as u64
    }

    pub(crate) fn q_begin(&mut self, p: &calls::QueryBegin) {
        if let Some(k) = self.segmented(p.target) {
            // A query already counting (a client error) ends first.
            self.end_active(k);
            let cmd = match self.frames.transfer_cmd(&self.gpu) {
                Ok(c) => c,
                Err(e) => {
                    warn!(query = ?p.query, "query_begin: {e}, skipped");
                    return;
                }
            };
            let flags = if p.target == gl::SAMPLES_PASSED && self.gpu.feat.occlusion_precise {
                vk::QueryControlFlags::PRECISE
            } else {
                vk::QueryControlFlags::empty()
            };
            self.frames.active_seg[k as usize] = Some(ActiveSegmented {
                query: p.query,
                flags,
                slots: Vec::new(),
                open: false,
            });
            if let Err(e) = self.frames.begin_segment(&self.gpu, cmd, k) {
                warn!(query = ?p.query, "query_begin: {e}");
            }
            let e = QueryEntry {
                target: p.target,
                active: true,
                ..Default::default()
            };
            self.put_query(p.query, e);
            return;
        }
        if p.target != gl::TIME_ELAPSED {
            self.warn_once(
                "query_target",
                "query_begin: only occlusion, PRIMITIVES_GENERATED (where the device has VK_EXT_primitives_generated_query) and TIME_ELAPSED queries are supported; others read 0 (named gap)",
            );
            self.put_query(
                p.query,
                QueryEntry {
                    target: p.target,
                    ..Default::default()
                },
            );
            return;
        }
        let ts = match self.write_timestamp() {
            Ok(s) => vec![s],
            Err(e) => {
                warn!(query = ?p.query, "query_begin: {e}; the result reads 0");
                Vec::new()
            }
        };
        let e = QueryEntry {
            target: p.target,
            ts,
            active: true,
            ..Default::default()
        };
        self.put_query(p.query, e);
    }

    /// End the active query of kind `k` and give its slots to its entry.
    fn end_active(&mut self, k: Segmented) {
        if self.frames.active_seg[k as usize].is_none() {
            return;
        }
        // Its last segment is in the recording command buffer, or (nothing
        // recorded since a submit closed it) in the last submission.
        let serial = if self.frames.recording {
            // Outside rendering, after the work it counts.
            self.frames.end_rendering(&self.gpu);
            self.frames.end_segment(&self.gpu, k);
            self.frames.next_serial
        } else {
            self.frames.next_serial - 1
        };
        let Some(a) = self.frames.active_seg[k as usize].take() else {
            return;
        };
        match self.scr.queries.get_mut(a.query) {
            Some(e) => {
                e.seg.extend(a.slots);
                e.serial = serial;
                e.active = false;
            }
            None => {
                for s in a.slots {
                    self.frames.seg_slots[k as usize].release(s);
                }
            }
        }
    }

    pub(crate) fn q_end(&mut self, p: &calls::QueryEnd) {
        if let Some(k) = self.segmented(p.target) {
            if self.frames.active_seg[k as usize].as_ref().map(|a| a.query) != Some(p.query) {
                warn!(query = ?p.query, target = p.target, "query_end: not the active query of its target, skipped");
                return;
            }
            self.end_active(k);
            return;
        }
        let Some(active) = self.scr.queries.get(p.query).map(|e| e.active) else {
            warn!(query = ?p.query, "query_end: unknown query, skipped");
            return;
        };
        if !active {
            return;
        }
        let slot = self.write_timestamp();
        let serial = self.frames.next_serial;
        if let Some(e) = self.scr.queries.get_mut(p.query) {
            e.active = false;
            e.serial = serial;
            match slot {
                Ok(s) if e.ts.len() == 1 => e.ts.push(s),
                Ok(s) => self.frames.ts_slots.release(s),
                Err(err) => warn!(query = ?p.query, "query_end: {err}; the result reads 0"),
            }
        }
    }

    pub(crate) fn q_counter(&mut self, p: &calls::QueryCounter) {
        let ts = match self.write_timestamp() {
            Ok(s) => vec![s],
            Err(e) => {
                warn!(query = ?p.query, "query_counter: {e}; the result reads 0");
                Vec::new()
            }
        };
        let e = QueryEntry {
            target: gl::TIMESTAMP,
            ts,
            serial: self.frames.next_serial,
            ..Default::default()
        };
        self.put_query(p.query, e);
    }

    pub(crate) fn q_result(&mut self, p: &calls::QueryResult, reply: &mut Vec<u8>) {
        let Some((target, serial, active)) = self
            .scr
            .queries
            .get(p.query)
            .map(|e| (e.target, e.serial, e.active))
        else {
            warn!(query = ?p.query, "query_result: unknown query, answered 0");
            query_reply(reply, true, 0);
            return;
        };
        if active {
            warn!(query = ?p.query, "query_result: query still active, answered 0");
            query_reply(reply, true, 0);
            return;
        }
        // Its commands may still sit in the recording command buffer.
        if serial >= self.frames.next_serial && self.frames.recording {
            if let Err(e) = self.frames.submit(&self.gpu) {
                warn!("query_result: submit failed: {e}");
            }
        }
        let done = if p.wait != 0 {
            match self.frames.wait_serial(&self.gpu, serial, u64::MAX) {
                Ok(ok) => ok,
                Err(e) => {
                    warn!("query_result: wait failed: {e}; answered 0");
                    query_reply(reply, true, 0);
                    return;
                }
            }
        } else {
            self.frames.is_done(&self.gpu, serial)
        };
        if !done {
            query_reply(reply, false, 0);
            return;
        }
        let Some(e) = self.scr.queries.get(p.query) else {
            query_reply(reply, true, 0);
            return;
        };
        let value = if let Some(k) = self.segmented(target) {
            let v = self
                .slot_values(&self.frames.seg_slots[k as usize], &e.seg)
                .unwrap_or_default();
            let sum = v.iter().fold(0u64, |a, &b| a.saturating_add(b));
            if matches!(
                target,
                gl::SAMPLES_PASSED
                    | gl::PRIMITIVES_GENERATED
                    | gl::TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN
            ) {
                sum
            } else {
                (sum != 0) as u64
            }
        } else {
            match self.slot_values(&self.frames.ts_slots, &e.ts).as_deref() {
                Some(&[t0, t1]) => self.ticks_to_ns(t1.saturating_sub(t0)),
                Some(&[t]) => self.ticks_to_ns(t),
                _ => 0,
            }
        };
        query_reply(reply, true, value);
    }

    pub(crate) fn q_destroy(&mut self, p: &calls::QueryDestroy) {
        for k in Segmented::ALL {
            if self.frames.active_seg[k as usize].as_ref().map(|a| a.query) == Some(p.query) {
                self.end_active(k);
            }
        }
        if let Some(e) = self.scr.queries.remove(p.query) {
            self.release_query(e);
        }
    }

    pub(crate) fn timestamp_ns(&mut self, reply: &mut Vec<u8>) {
        reply.clear();
        let value = (|| {
            let slot = self.write_timestamp()?;
            let r = self
                .frames
                .finish(&self.gpu)
                .map_err(|e| e.to_string())
                .and_then(|()| {
                    self.slot_values(&self.frames.ts_slots, &[slot])
                        .ok_or_else(|| "no result".to_string())
                });
            self.frames.ts_slots.release(slot);
            r.map(|v| self.ticks_to_ns(v.first().copied().unwrap_or(0)))
        })();
        let ns = value.unwrap_or_else(|e| {
            warn!("timestamp: {e}; answered 0");
            0
        });
        reply.extend_from_slice(&ns.to_le_bytes());
    }

    pub(crate) fn texture_image(&mut self, p: &calls::GetTextureImage, reply: &mut Vec<u8>) {
        reply.clear();
        let r = match pixels::texture_image_reply(
            p.format,
            p.r#type,
            p.width,
            p.height,
            p.depth,
            crate::context::MAX_REPLY,
        ) {
            Ok(r) => r,
            Err(e) => {
                warn!(
                    format = p.format,
                    ty = p.r#type,
                    w = p.width,
                    h = p.height,
                    d = p.depth,
                    "get_texture_image: {e}, empty reply"
                );
                return;
            }
        };
        reply.resize(r.len, 0);
        if r.len == 0 {
            return;
        }
        let read = if pixels::level_in_range(p.level) {
            self.read_texture_into(p, reply, r.bpp)
        } else {
            Err(format!("level {} out of range", p.level))
        };
        if let Err(e) = read {
            warn!(res = ?p.res, "get_texture_image: {e}; zeros returned");
        }
        reply.resize(r.len, 0);
    }

    fn read_texture_into(
        &mut self,
        p: &calls::GetTextureImage,
        reply: &mut [u8],
        bpp: usize,
    ) -> Result<(), String> {
        let (image, sf, levels, extent, layers, samples) =
            match self.scr.resources.get(p.res).map(|r| &r.kind) {
                Some(ResKind::Texture { img: Some(i), .. }) => {
                    (i.image, i.format, i.levels, i.extent, i.layers, i.samples)
                }
                _ => return Err("not a texture with storage".into()),
            };
        if samples != vk::SampleCountFlags::TYPE_1 {
            return Err("multisampled textures cannot be read (named gap)".into());
        }
        if p.level >= levels {
            return Err(format!("level {} beyond the storage's {levels}", p.level));
        }
        let (_, ext, base_layer, nlayers) =
            Self::region(p.target, 0, 0, 0, p.width, p.height, p.depth.max(1));
        let le = crate::resource::level_extent(extent, p.level);
        if ext.width > le.width
            || ext.height > le.height
            || ext.depth > le.depth
            || base_layer as u64 + nlayers as u64 > layers as u64
        {
            return Err("size differs from the level's".into());
        }
        let aspect = if sf.class.is_color() {
            vk::ImageAspectFlags::COLOR
        } else if p.format == gl::STENCIL_INDEX && sf.class.has_stencil() {
            vk::ImageAspectFlags::STENCIL
        } else if sf.class.has_depth() {
            vk::ImageAspectFlags::DEPTH
        } else {
            vk::ImageAspectFlags::STENCIL
        };
        let texel = emulation::copy_texel_size(sf.vk, aspect);
        let n = pixels::pixel_count(ext.width, ext.height, ext.depth).ok_or("size overflows")?;
        let chunk = n.checked_mul(bpp).ok_or("size overflows")?;
        for (i, layer) in (base_layer..base_layer + nlayers).enumerate() {
            let data = self
                .read_image_with(
                    &ImageRegion {
                        image,
                        aspect,
                        texel,
                        level: p.level,
                        layer,
                        offset: vk::Offset3D::default(),
                        extent: ext,
                    },
                    |b| b.to_vec(),
                )
                .map_err(|e| e.to_string())?;
            let conv = Self::convert_read(sf, aspect, data, n, p.format, p.r#type)?;
            let dst = i
                .checked_mul(chunk)
                .and_then(|at| reply.get_mut(at..)?.get_mut(..chunk));
            if let (Some(dst), Some(src)) = (dst, conv.get(..chunk)) {
                dst.copy_from_slice(src);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use mgpipe::consts::RESOURCE_TEXTURE;
    use mgpipe::pixels::gl;
    use mgpipe::{calls, Context, Handle, Screen};

    use crate::VulkanBackend;

    const TEXTURE_2D: u32 = 0x0DE1;
    const RGBA8: u32 = 0x8058;
    const DEPTH24_STENCIL8: u32 = 0x88F0;

    fn get(b: &mut VulkanBackend, p: calls::GetTextureImage) -> Vec<u8> {
        let mut reply = vec![0xAA; 3];
        Context::get_texture_image(b, &p, &mut reply);
        reply
    }

    /// The shared request checks answer hostile requests (unknown pair,
    /// sizes past the reply limit or GLsizei, absurd levels, a box larger
    /// than the level) with an empty or zero reply and never panic; a sane
    /// request of an odd width reads back the uploaded texels.
    #[test]
    fn get_texture_image_checks_requests() {
        let mut b = match VulkanBackend::open_default() {
            Ok(b) => b,
            Err(e) => {
                eprintln!("SKIP: no Vulkan device: {e}");
                return;
            }
        };
        let ctx = Handle::new(1, 1);
        let surface = Handle::new(1, 1);
        b.context_create(&calls::ContextCreate {
            ctx,
            ..Default::default()
        });
        b.surface_create(&calls::SurfaceCreate {
            surface,
            width: 4,
            height: 4,
            color_format: RGBA8,
            depth_stencil_format: DEPTH24_STENCIL8,
            ..Default::default()
        });
        b.make_current(&calls::MakeCurrent {
            ctx,
            draw: surface,
            read: surface,
        });
        let tex = Handle::new(1, 1);
        b.resource_create(
            &calls::ResourceCreate {
                res: tex,
                kind: RESOURCE_TEXTURE,
                target: TEXTURE_2D,
                ..Default::default()
            },
            &[],
        );
        let texels: Vec<u8> = (1..=12).collect();
        Context::texture_image(
            &mut b,
            &calls::TextureImage {
                res: tex,
                target: TEXTURE_2D,
                internal_format: RGBA8,
                width: 3,
                height: 1,
                depth: 1,
                format: gl::RGBA,
                r#type: gl::UNSIGNED_BYTE,
                ..Default::default()
            },
            &texels,
        );
        let req =
            |w: u32, h: u32, d: u32, level: u32, format: u32, ty: u32| calls::GetTextureImage {
                res: tex,
                target: TEXTURE_2D,
                level,
                width: w,
                height: h,
                depth: d,
                format,
                r#type: ty,
                ..Default::default()
            };
        let (rgba, ub) = (gl::RGBA, gl::UNSIGNED_BYTE);
        assert_eq!(get(&mut b, req(3, 1, 1, 0, rgba, ub)), texels);
        assert_eq!(
            get(&mut b, req(3, 1, 1, 0, gl::RGB, ub)),
            vec![1, 2, 3, 5, 6, 7, 9, 10, 11]
        );
        assert!(get(&mut b, req(3, 1, 1, 0, rgba, 0xdead)).is_empty());
        assert!(get(
            &mut b,
            req(u32::MAX, u32::MAX, u32::MAX, 0, rgba, gl::FLOAT)
        )
        .is_empty());
        assert!(get(&mut b, req(u32::MAX, 0, 1, 0, rgba, ub)).is_empty());
        assert!(get(&mut b, req(0, 1, 1, 0, rgba, ub)).is_empty());
        assert_eq!(get(&mut b, req(3, 1, 1, 40, rgba, ub)), vec![0; 12]);
        assert_eq!(get(&mut b, req(3, 1, 1, u32::MAX, rgba, ub)), vec![0; 12]);
        // A box larger than the level is refused: zeros of the asked size.
        assert_eq!(get(&mut b, req(5, 3, 2, 0, rgba, ub)), vec![0; 120]);
    }
}
