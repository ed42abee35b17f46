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
use mgpipe::pixels;
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
        let r = match pixels::texture_image_reply(
            p.format,
            p.r#type,
            p.width,
            p.height,
            p.depth,
            crate::context::MAX_REPLY as u64,
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
        if !pixels::level_in_range(p.level) {
            warn!(res = ?p.res, level = p.level, "get_texture_image: level out of range, zeros returned");
            return;
        }
        self.prepare();
        let Some((tex, internal, target, alpha_one)) =
            self.scr.resources.get(p.res).and_then(|r| match r.kind {
                ResKind::Texture {
                    tex,
                    internal,
                    target,
                    alpha_one,
                    ..
                } => Some((tex, internal, target, alpha_one)),
                _ => None,
            })
        else {
            warn!(res = ?p.res, "get_texture_image: not a texture, zeros returned");
            return;
        };
        let raw = raw_view(internal);
        let Some((rf, rt)) = (match raw {
            Some(_) => Some((glow::RGBA, glow::FLOAT)),
            None => emulation::readable_pair(emulation::format_class(internal)),
        }) else {
            warn!(res = ?p.res, "get_texture_image: depth/stencil images are not readable on GLES, zeros returned");
            return;
        };
        let layered = matches!(
            target,
            glow::TEXTURE_3D | glow::TEXTURE_2D_ARRAY | glow::TEXTURE_CUBE_MAP_ARRAY
        );
        // A 1D array is stored as a 2D array of height 1 (emulation.rs,
        // `image_target_and_extent`): the client's "rows" are its layers,
        // so each layer is read as one row into row y of the reply.
        let one_d_array = layered && p.target == glow::TEXTURE_1D_ARRAY;
        let h = if one_d_array { 1 } else { p.height };
        // What GLES reads per slice before converting (checked: on a 32-bit
        // host a 16-byte readable pixel can overflow what the reply fits).
        let Some(tmp_len) = pixels::image_size(rf, rt, p.width, h, 1) else {
            warn!(res = ?p.res, "get_texture_image: read-back too large, zeros returned");
            return;
        };
        // Each pass fills one slice of the reply (one row of a 1D array).
        let (n, slice_bytes) = if one_d_array {
            (r.width, r.width * r.bpp)
        } else {
            (r.width * r.height, r.slice_bytes)
        };
        let (w, h) = (r.width as i32, h as i32);
        let gl = &self.gl;
        // SAFETY: a temporary framebuffer (and, for a raw read, texture)
        // made, bound, used and deleted here; the texture's filter and level
        // range changed for the copy are restored right after it; previous
        // bindings are restored through the shadow (forget_objects below);
        // every read fills a buffer of the size `image_size` computed.
        unsafe {
            let Ok(fb) = gl.create_framebuffer() else {
                warn!("get_texture_image: glGenFramebuffers failed, zeros returned");
                return;
            };
            // The raw copy's texture: one slice at a time.
            let raw_tex = match raw {
                Some(v) => match gl.create_texture() {
                    Ok(t) => {
                        gl.bind_texture(glow::TEXTURE_2D, Some(t));
                        gl.tex_storage_2d(glow::TEXTURE_2D, 1, v.internal, w.max(1), h.max(1));
                        Some((t, v))
                    }
                    Err(_) => None,
                },
                None => None,
            };
            gl.bind_framebuffer(glow::READ_FRAMEBUFFER, Some(fb));
            gl.pixel_store_i32(glow::PACK_ALIGNMENT, 1);
            gl.pixel_store_i32(glow::PACK_ROW_LENGTH, 0);
            for (z, dst) in reply.chunks_exact_mut(slice_bytes).enumerate() {
                if let Some((t, v)) = raw_tex {
                    let (src_target, src_z) = if target == glow::TEXTURE_CUBE_MAP {
                        (
                            target,
                            p.target.wrapping_sub(glow::TEXTURE_CUBE_MAP_POSITIVE_X) as i32,
                        )
                    } else if layered {
                        (target, z as i32)
                    } else {
                        (target, 0)
                    };
                    // glCopyImageSubData wants a complete texture: the
                    // level alone, unfiltered, while it copies.
                    gl.bind_texture(target, Some(tex));
                    let saved = [
                        glow::TEXTURE_MIN_FILTER,
                        glow::TEXTURE_BASE_LEVEL,
                        glow::TEXTURE_MAX_LEVEL,
                    ]
                    .map(|pname| (pname, gl.get_tex_parameter_i32(target, pname)));
                    gl.tex_parameter_i32(target, glow::TEXTURE_MIN_FILTER, glow::NEAREST as i32);
                    gl.tex_parameter_i32(target, glow::TEXTURE_BASE_LEVEL, p.level as i32);
                    gl.tex_parameter_i32(target, glow::TEXTURE_MAX_LEVEL, p.level as i32);
                    gl.copy_image_sub_data(
                        tex,
                        src_target,
                        p.level as i32,
                        0,
                        0,
                        src_z,
                        t,
                        glow::TEXTURE_2D,
                        0,
                        0,
                        0,
                        0,
                        w,
                        h,
                        1,
                    );
                    for (pname, v) in saved {
                        gl.tex_parameter_i32(target, pname, v);
                    }
                    gl.framebuffer_texture_2d(
                        glow::READ_FRAMEBUFFER,
                        glow::COLOR_ATTACHMENT0,
                        glow::TEXTURE_2D,
                        Some(t),
                        0,
                    );
                    gl.read_buffer(glow::COLOR_ATTACHMENT0);
                    let mut tmp = vec![0u8; tmp_len];
                    let ty = if v.signed {
                        glow::INT
                    } else {
                        glow::UNSIGNED_INT
                    };
                    gl.read_pixels(
                        0,
                        0,
                        w,
                        h,
                        glow::RGBA_INTEGER,
                        ty,
                        glow::PixelPackData::Slice(Some(tmp.as_mut_slice())),
                    );
                    v.decode(&mut tmp);
                    if alpha_one {
                        emulation::force_alpha_one(&mut tmp, rf, rt);
                    }
                    if let Some(out) = emulation::convert(&tmp, rf, rt, p.format, p.r#type, n) {
                        if out.len() == dst.len() {
                            dst.copy_from_slice(&out);
                        }
                    }
                    continue;
                }
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
                let mut tmp = vec![0u8; tmp_len];
                gl.read_pixels(
                    0,
                    0,
                    w,
                    h,
                    rf,
                    rt,
                    glow::PixelPackData::Slice(Some(tmp.as_mut_slice())),
                );
                if alpha_one {
                    emulation::force_alpha_one(&mut tmp, rf, rt);
                }
                if (rf, rt) == (p.format, p.r#type) {
                    if let Some(src) = tmp.get(..dst.len()) {
                        dst.copy_from_slice(src);
                    }
                } else if let Some(v) = emulation::convert(&tmp, rf, rt, p.format, p.r#type, n) {
                    if v.len() == dst.len() {
                        dst.copy_from_slice(&v);
                    }
                }
            }
            gl.bind_framebuffer(glow::READ_FRAMEBUFFER, None);
            gl.delete_framebuffer(fb);
            if let Some((t, _)) = raw_tex {
                gl.delete_texture(t);
            }
        }
        self.forget_objects();
        self.check("get_texture_image");
    }
}

/// Emulation: colour formats GLES reads back inexactly or not at all
/// (`glReadPixels` takes RGBA/UNSIGNED_BYTE from a normalized buffer, so
/// 16- and 10-bit channels lose bits, and snorm formats are not
/// renderable): the slice is copied bit for bit (glCopyImageSubData,
/// same texel size) into an integer texture of the same layout, read as
/// RGBA_INTEGER and decoded to RGBA/FLOAT before the client's conversion.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct RawView {
    /// The integer format the slice is copied into.
    pub internal: u32,
    pub signed: bool,
    /// Bits of each stored channel (0: not stored).
    pub bits: [u32; 4],
}

pub(crate) fn raw_view(internal: u32) -> Option<RawView> {
    let v = |internal, signed, bits| {
        Some(RawView {
            internal,
            signed,
            bits,
        })
    };
    match internal {
        glow::RGBA16 => v(glow::RGBA16UI, false, [16; 4]),
        glow::RG16 => v(glow::RG16UI, false, [16, 16, 0, 0]),
        glow::R16 => v(glow::R16UI, false, [16, 0, 0, 0]),
        glow::RGBA16_SNORM => v(glow::RGBA16I, true, [16; 4]),
        glow::RG16_SNORM => v(glow::RG16I, true, [16, 16, 0, 0]),
        glow::R16_SNORM => v(glow::R16I, true, [16, 0, 0, 0]),
        glow::RGBA8_SNORM => v(glow::RGBA8I, true, [8; 4]),
        glow::RG8_SNORM => v(glow::RG8I, true, [8, 8, 0, 0]),
        glow::R8_SNORM => v(glow::R8I, true, [8, 0, 0, 0]),
        glow::RGB10_A2 => v(glow::RGB10_A2UI, false, [10, 10, 10, 2]),
        _ => None,
    }
}

impl RawView {
    /// RGBA_INTEGER texels (4 x 32 bits each) in place to RGBA/FLOAT: the
    /// normalized value of each stored channel (GL 4.6 §2.3.5), 0 for
    /// missing colour channels and 1 for a missing alpha.
    pub fn decode(&self, px: &mut [u8]) {
        for t in px.chunks_exact_mut(16) {
            for (c, b) in self.bits.iter().enumerate() {
                let w = &mut t[c * 4..c * 4 + 4];
                let raw = u32::from_ne_bytes([w[0], w[1], w[2], w[3]]);
                let f = match *b {
                    0 if c == 3 => 1.0,
                    0 => 0.0,
                    b if self.signed => {
                        let max = ((1u32 << (b - 1)) - 1) as f32;
                        (raw as i32 as f32 / max).max(-1.0)
                    }
                    b => raw as f32 / ((1u64 << b) - 1) as f32,
                };
                w.copy_from_slice(&f.to_ne_bytes());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use mgpipe::consts::RESOURCE_TEXTURE;
    use mgpipe::pixels::gl;
    use mgpipe::{calls, Context, Handle, Screen};

    use crate::GlesBackend;

    const TEXTURE_2D: u32 = 0x0DE1;
    const RGBA8: u32 = 0x8058;
    const DEPTH24_STENCIL8: u32 = 0x88F0;

    /// A backend with a current context on a 4x4 surface and one texture
    /// object of `target` (no storage yet).
    fn backend_with_texture(target: u32) -> (GlesBackend, Handle) {
        let mut b = GlesBackend::open_default().expect("native GLES backend (Mesa llvmpipe)");
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
                target,
                ..Default::default()
            },
            &[],
        );
        (b, tex)
    }

    fn get(b: &mut GlesBackend, p: calls::GetTextureImage) -> Vec<u8> {
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
        let (mut b, tex) = backend_with_texture(TEXTURE_2D);
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
        // A box larger than the level: whatever GLES reads, the size holds.
        assert_eq!(get(&mut b, req(5, 3, 2, 0, rgba, ub)).len(), 120);
    }

    #[test]
    fn get_texture_image_reads_16_bit_and_snorm_texels_exactly() {
        // RGBA16: 16-bit channels read back through the raw copy (the
        // framebuffer read gave 8 bits: 0x1234 came back as 0x1212).
        let (mut b, tex) = backend_with_texture(TEXTURE_2D);
        let px: [u16; 8] = [0x1234, 0xfffe, 1, 0x8000, 0, 0xffff, 0x00ff, 0x4321];
        let bytes: Vec<u8> = px.iter().flat_map(|v| v.to_ne_bytes()).collect();
        let image = |b: &mut GlesBackend, internal: u32, ty: u32, data: &[u8]| {
            Context::texture_image(
                b,
                &calls::TextureImage {
                    res: tex,
                    target: TEXTURE_2D,
                    internal_format: internal,
                    width: 2,
                    height: 1,
                    depth: 1,
                    format: gl::RGBA,
                    r#type: ty,
                    ..Default::default()
                },
                data,
            );
        };
        let req = |ty: u32| calls::GetTextureImage {
            res: tex,
            target: TEXTURE_2D,
            width: 2,
            height: 1,
            depth: 1,
            format: gl::RGBA,
            r#type: ty,
            ..Default::default()
        };
        image(&mut b, glow::RGBA16, gl::UNSIGNED_SHORT, &bytes);
        assert_eq!(get(&mut b, req(gl::UNSIGNED_SHORT)), bytes);
        // RGBA8_SNORM (not renderable on GLES): signed bytes back as they were.
        let sn: [i8; 8] = [-128, -127, -1, 0, 1, 64, 126, 127];
        let sbytes: Vec<u8> = sn.iter().map(|v| *v as u8).collect();
        image(&mut b, glow::RGBA8_SNORM, gl::BYTE, &sbytes);
        let back = get(&mut b, req(gl::FLOAT));
        let f: Vec<f32> = back
            .chunks_exact(4)
            .map(|c| f32::from_ne_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let want: Vec<f32> = sn.iter().map(|v| (*v as f32 / 127.0).max(-1.0)).collect();
        assert_eq!(f.len(), 8);
        for (g, w) in f.iter().zip(&want) {
            assert!((g - w).abs() < 1e-6, "{f:?} vs {want:?}");
        }
    }

    /// A TEXTURE_1D_ARRAY (stored as a 2D array of height 1) reads back
    /// every layer: row y of the reply is layer y, in the client's
    /// format and after a conversion alike.
    #[test]
    fn get_texture_image_reads_every_layer_of_a_1d_array() {
        const TEXTURE_1D_ARRAY: u32 = 0x8C18;
        let (mut b, tex) = backend_with_texture(TEXTURE_1D_ARRAY);
        // 3 texels wide, 4 layers: every byte distinct.
        let (w, layers) = (3u32, 4u32);
        let texels: Vec<u8> = (1..=(w * layers * 4) as u8).collect();
        Context::texture_image(
            &mut b,
            &calls::TextureImage {
                res: tex,
                target: TEXTURE_1D_ARRAY,
                internal_format: RGBA8,
                width: w,
                height: layers,
                depth: 1,
                format: gl::RGBA,
                r#type: gl::UNSIGNED_BYTE,
                ..Default::default()
            },
            &texels,
        );
        let req = |format: u32| calls::GetTextureImage {
            res: tex,
            target: TEXTURE_1D_ARRAY,
            level: 0,
            width: w,
            height: layers,
            depth: 1,
            format,
            r#type: gl::UNSIGNED_BYTE,
            ..Default::default()
        };
        assert_eq!(get(&mut b, req(gl::RGBA)), texels);
        let rgb: Vec<u8> = texels
            .chunks_exact(4)
            .flat_map(|t| t[..3].to_vec())
            .collect();
        assert_eq!(get(&mut b, req(gl::RGB)), rgb);
    }
}
