//! Optional reply calls: queries, timestamps and texture image readback.
//!
//! Emulations (also listed in `emulation.rs`): GLES has no `SAMPLES_PASSED`
//! counter, so it is answered by `ANY_SAMPLES_PASSED` (0 or 1, a lower bound
//! of the true count); `TIME_ELAPSED` and timestamps use the CPU monotonic
//! clock around the driver's completion (GLES 3.2 has no timer queries
//! without `EXT_disjoint_timer_query`); `glGetTexImage` attaches the level to
//! a temporary framebuffer and reads it like `read_pixels`.

use std::time::Instant;

use glow::HasContext;
use mgpipe::calls;
use tracing::warn;

use crate::{emulation, GlesBackend, ResKind};

/// One query object of the share group.
pub(crate) struct QueryEntry {
    /// The GLES query (None for CPU-timed targets).
    pub q: Option<glow::Query>,
    pub target: u32,
    /// CPU-timed targets: start and result.
    pub started: Option<Instant>,
    pub result_ns: u64,
}

/// The GLES target that stands in for a desktop query target.
fn gles_query_target(target: u32) -> Option<u32> {
    match target {
        glow::SAMPLES_PASSED | glow::ANY_SAMPLES_PASSED => Some(glow::ANY_SAMPLES_PASSED),
        glow::ANY_SAMPLES_PASSED_CONSERVATIVE => Some(glow::ANY_SAMPLES_PASSED_CONSERVATIVE),
        glow::TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN => {
            Some(glow::TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN)
        }
        glow::PRIMITIVES_GENERATED => Some(glow::PRIMITIVES_GENERATED),
        _ => None,
    }
}

fn query_reply(reply: &mut Vec<u8>, available: bool, value: u64) {
    reply.clear();
    reply.extend_from_slice(&(available as u32).to_le_bytes());
    reply.extend_from_slice(&0u32.to_le_bytes());
    reply.extend_from_slice(&value.to_le_bytes());
}

impl GlesBackend {
    pub(crate) fn q_begin(&mut self, p: &calls::QueryBegin) {
        self.prepare();
        let gles = gles_query_target(p.target);
        let q = match gles {
            // SAFETY: a new query object on the current context.
            Some(_) => match unsafe { self.gl.create_query() } {
                Ok(q) => Some(q),
                Err(e) => {
                    warn!(query = ?p.query, "query_begin: glGenQueries failed: {e}");
                    return;
                }
            },
            None if p.target == glow::TIME_ELAPSED => None,
            None => {
                warn!(query = ?p.query, target = p.target, "query_begin: unsupported target, skipped");
                return;
            }
        };
        if let (Some(q), Some(t)) = (q, gles) {
            // SAFETY: `q` was just created; one active query per target is the client's rule.
            unsafe { self.gl.begin_query(t, q) };
        }
        let started = if q.is_none() {
            // SAFETY: plain call on the current context.
            unsafe { self.gl.finish() };
            Some(Instant::now())
        } else {
            None
        };
        let entry = QueryEntry {
            q,
            target: p.target,
            started,
            result_ns: 0,
        };
        match self.scr.queries.insert(p.query, entry) {
            Ok(Some(old)) => self.delete_query_entry(old),
            Ok(None) => {}
            Err(e) => {
                warn!(query = ?p.query, "query_begin: invalid handle, skipped");
                self.delete_query_entry(e);
            }
        }
        self.check("query_begin");
    }

    pub(crate) fn q_end(&mut self, p: &calls::QueryEnd) {
        self.prepare();
        let Some(e) = self.scr.queries.get_mut(p.query) else {
            warn!(query = ?p.query, "query_end: unknown query, skipped");
            return;
        };
        match (e.q, gles_query_target(e.target)) {
            // SAFETY: ends the query of this target begun by q_begin.
            (Some(_), Some(t)) => unsafe { self.gl.end_query(t) },
            _ => {
                // SAFETY: plain call on the current context.
                unsafe { self.gl.finish() };
                e.result_ns = e
                    .started
                    .map(|s| s.elapsed().as_nanos() as u64)
                    .unwrap_or(0);
            }
        }
        self.check("query_end");
    }

    pub(crate) fn q_counter(&mut self, p: &calls::QueryCounter) {
        self.prepare();
        // SAFETY: plain call on the current context.
        unsafe { self.gl.finish() };
        let now = self.epoch.elapsed().as_nanos() as u64;
        let entry = QueryEntry {
            q: None,
            target: glow::TIMESTAMP,
            started: None,
            result_ns: now,
        };
        match self.scr.queries.insert(p.query, entry) {
            Ok(Some(old)) => self.delete_query_entry(old),
            Ok(None) => {}
            Err(_) => warn!(query = ?p.query, "query_counter: invalid handle, skipped"),
        }
    }

    pub(crate) fn q_result(&mut self, p: &calls::QueryResult, reply: &mut Vec<u8>) {
        self.prepare();
        let Some(e) = self.scr.queries.get(p.query) else {
            warn!(query = ?p.query, "query_result: unknown query, answered 0");
            query_reply(reply, true, 0);
            return;
        };
        let Some(q) = e.q else {
            query_reply(reply, true, e.result_ns);
            return;
        };
        // SAFETY: `q` is a live query of this share group.
        unsafe {
            let mut available = self
                .gl
                .get_query_parameter_u32(q, glow::QUERY_RESULT_AVAILABLE)
                != 0;
            if !available && p.wait != 0 {
                // QUERY_RESULT waits for the result.
                available = true;
            }
            let value = if available {
                self.gl.get_query_parameter_u32(q, glow::QUERY_RESULT) as u64
            } else {
                0
            };
            query_reply(reply, available, value);
        }
        self.check("query_result");
    }

    pub(crate) fn q_destroy(&mut self, p: &calls::QueryDestroy) {
        self.prepare();
        if let Some(e) = self.scr.queries.remove(p.query) {
            self.delete_query_entry(e);
        }
    }

    fn delete_query_entry(&self, e: QueryEntry) {
        if let Some(q) = e.q {
            // SAFETY: a query of this share group, no longer referenced.
            unsafe { self.gl.delete_query(q) };
        }
    }

    pub(crate) fn timestamp_ns(&mut self, reply: &mut Vec<u8>) {
        self.prepare();
        // SAFETY: plain call on the current context.
        unsafe { self.gl.finish() };
        reply.clear();
        reply.extend_from_slice(&(self.epoch.elapsed().as_nanos() as u64).to_le_bytes());
    }

    pub(crate) fn texture_image(&mut self, p: &calls::GetTextureImage, reply: &mut Vec<u8>) {
        reply.clear();
        let Some(bpp) = emulation::bytes_per_pixel(p.format, p.r#type) else {
            warn!(
                format = p.format,
                ty = p.r#type,
                "get_texture_image: unknown format/type, empty reply"
            );
            return;
        };
        let (w, h, d) = (p.width as usize, p.height as usize, p.depth.max(1) as usize);
        let total = w.saturating_mul(h).saturating_mul(d).saturating_mul(bpp);
        if total > crate::context::MAX_REPLY || w > i32::MAX as usize || h > i32::MAX as usize {
            warn!(w, h, d, "get_texture_image: image too large, empty reply");
            return;
        }
        reply.resize(total, 0);
        if total == 0 {
            return;
        }
        self.prepare();
        let Some((tex, internal, target)) =
            self.scr.resources.get(p.res).and_then(|r| match r.kind {
                ResKind::Texture {
                    tex,
                    internal,
                    target,
                    ..
                } => Some((tex, internal, target)),
                _ => None,
            })
        else {
            warn!(res = ?p.res, "get_texture_image: not a texture, zeros returned");
            return;
        };
        let Some((rf, rt)) = emulation::readable_pair(emulation::format_class(internal)) else {
            warn!(res = ?p.res, "get_texture_image: depth/stencil images are not readable on GLES, zeros returned");
            return;
        };
        let gl = &self.gl;
        let layered = matches!(
            target,
            glow::TEXTURE_3D | glow::TEXTURE_2D_ARRAY | glow::TEXTURE_CUBE_MAP_ARRAY
        );
        // SAFETY: a temporary framebuffer made, bound for reading, used and
        // deleted here; the previous read binding is restored through the
        // shadow (forget_objects below).
        unsafe {
            let Ok(fb) = gl.create_framebuffer() else {
                warn!("get_texture_image: glGenFramebuffers failed, zeros returned");
                return;
            };
            gl.bind_framebuffer(glow::READ_FRAMEBUFFER, Some(fb));
            gl.pixel_store_i32(glow::PACK_ALIGNMENT, 1);
            gl.pixel_store_i32(glow::PACK_ROW_LENGTH, 0);
            let layer_bytes = w * h * bpp;
            for z in 0..d {
                if layered {
                    gl.framebuffer_texture_layer(
                        glow::READ_FRAMEBUFFER,
                        glow::COLOR_ATTACHMENT0,
                        Some(tex),
                        p.level as i32,
                        z as i32,
                    );
                } else {
                    let img_target = if target == glow::TEXTURE_CUBE_MAP {
                        p.target
                    } else {
                        target
                    };
                    gl.framebuffer_texture_2d(
                        glow::READ_FRAMEBUFFER,
                        glow::COLOR_ATTACHMENT0,
                        img_target,
                        Some(tex),
                        p.level as i32,
                    );
                }
                gl.read_buffer(glow::COLOR_ATTACHMENT0);
                let mut tmp = vec![0u8; emulation::bytes_per_pixel(rf, rt).unwrap_or(16) * w * h];
                gl.read_pixels(
                    0,
                    0,
                    w as i32,
                    h as i32,
                    rf,
                    rt,
                    glow::PixelPackData::Slice(Some(tmp.as_mut_slice())),
                );
                let dst = &mut reply[z * layer_bytes..(z + 1) * layer_bytes];
                if (rf, rt) == (p.format, p.r#type) {
                    dst.copy_from_slice(&tmp[..layer_bytes]);
                } else if let Some(v) = emulation::convert(&tmp, rf, rt, p.format, p.r#type, w * h)
                {
                    if v.len() == dst.len() {
                        dst.copy_from_slice(&v);
                    }
                }
            }
            gl.bind_framebuffer(glow::READ_FRAMEBUFFER, None);
            gl.delete_framebuffer(fb);
        }
        self.forget_objects();
        self.check("get_texture_image");
    }
}
