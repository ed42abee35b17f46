//! glGetTexImage of levels larger than one reply (the REPLY area of the
//! ring transports is 32 MiB; `Conn::max_reply` a little less): the frontend
//! reads colour images layer by layer in bands of whole rows and must hand
//! back every byte; a depth image is read the same way, as the read
//! surface's depth buffer. Also: glGetTexImage into a pixel pack
//! buffer, and the GL errors of refused (format, type) pairs.
//!
//! `cargo nextest run -p frontend --test get_tex_image` (the default
//! transport, inproc, has the 32 MiB REPLY; monolith passes too).

use std::ffi::c_void;

mod common;
use common::{expect_error, make_context, no_gl_error, pattern};
use mobilegl::gl::{buffers, framebuffers, pixels, queries, state, textures};

/// The default REPLY area; every "large" image below is bigger.
const REPLY: usize = 32 << 20;

fn assert_same(what: &str, got: &[u8], want: &[u8]) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    if let Some(i) = got.iter().zip(want).position(|(a, b)| a != b) {
        panic!(
            "{what}: byte {i} of {} differs (got {}, want {})",
            want.len(),
            got[i],
            want[i]
        );
    }
}

unsafe fn new_texture(target: u32) -> u32 {
    let mut tex = 0;
    // SAFETY: a context is current.
    unsafe {
        textures::glGenTextures(1, &mut tex);
        textures::glBindTexture(target, tex);
    }
    tex
}

/// glGetTexImage of `target` level 0 into a fresh buffer of `len` bytes
/// filled with 0xEE.
unsafe fn get(target: u32, format: u32, ty: u32, len: usize) -> Vec<u8> {
    let mut out = vec![0xEEu8; len];
    // SAFETY: a context is current; `out` holds `len` bytes, the caller's
    // size of the image under the pack state.
    unsafe {
        queries::glGetTexImage(target, 0, format, ty, out.as_mut_ptr() as *mut c_void);
    }
    out
}

/// A 2D level larger than one reply, in RGBA8 and in RGBA16F (half floats
/// read back bit for bit): bands of whole rows.
unsafe fn large_2d() {
    let (w, h) = (3000i32, 2900i32);
    let len = w as usize * h as usize * 4;
    assert!(len > REPLY);
    // SAFETY: a context is current; the images are tight (UNPACK_ALIGNMENT
    // 4 divides every row).
    unsafe {
        let tex = new_texture(glow::TEXTURE_2D);
        let a = pattern(len, 1);
        textures::glTexImage2D(
            glow::TEXTURE_2D,
            0,
            glow::RGBA8 as i32,
            w,
            h,
            0,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            a.as_ptr() as *const c_void,
        );
        no_gl_error("glTexImage2D RGBA8");
        let got = get(glow::TEXTURE_2D, glow::RGBA, glow::UNSIGNED_BYTE, len);
        no_gl_error("glGetTexImage RGBA8");
        assert_same("2D RGBA8", &got, &a);
        drop((a, got));

        // RGBA16F: 8 bytes a pixel; normal halves in [2^-10, 2^5) of both
        // signs, so any float conversion on the way is exact.
        let (w, h) = (2048i32, 2100i32);
        let n = w as usize * h as usize * 4;
        assert!(n * 2 > REPLY);
        let halves: Vec<u8> = (0..n as u32)
            .flat_map(|i| {
                let exp = 5 + (i.wrapping_mul(7) % 15);
                let v = ((i & 1) << 15) | (exp << 10) | (i.wrapping_mul(0x9E37) & 0x3FF);
                (v as u16).to_le_bytes()
            })
            .collect();
        textures::glTexImage2D(
            glow::TEXTURE_2D,
            0,
            glow::RGBA16F as i32,
            w,
            h,
            0,
            glow::RGBA,
            glow::HALF_FLOAT,
            halves.as_ptr() as *const c_void,
        );
        no_gl_error("glTexImage2D RGBA16F");
        let got = get(glow::TEXTURE_2D, glow::RGBA, glow::HALF_FLOAT, n * 2);
        no_gl_error("glGetTexImage RGBA16F");
        assert_same("2D RGBA16F", &got, &halves);
        textures::glDeleteTextures(1, &tex);
    }
}

/// One cube-map face larger than one reply: the face, not face 0, comes
/// back.
unsafe fn large_cube_face() {
    let s = 3000i32;
    let len = s as usize * s as usize * 4;
    assert!(len > REPLY);
    // SAFETY: a context is current; the images are tight.
    unsafe {
        let tex = new_texture(glow::TEXTURE_CUBE_MAP);
        let a = pattern(len, 3);
        let zero = vec![0u8; len];
        for (face, data) in [
            (glow::TEXTURE_CUBE_MAP_POSITIVE_X, &zero),
            (glow::TEXTURE_CUBE_MAP_NEGATIVE_Y, &a),
        ] {
            textures::glTexImage2D(
                face,
                0,
                glow::RGBA8 as i32,
                s,
                s,
                0,
                glow::RGBA,
                glow::UNSIGNED_BYTE,
                data.as_ptr() as *const c_void,
            );
        }
        no_gl_error("glTexImage2D cube faces");
        let got = get(
            glow::TEXTURE_CUBE_MAP_NEGATIVE_Y,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            len,
        );
        no_gl_error("glGetTexImage cube face");
        assert_same("cube face -Y", &got, &a);
        textures::glDeleteTextures(1, &tex);
    }
}

/// An array or 3D level larger than one reply, each layer smaller: layers
/// in order. With PACK_IMAGE_HEIGHT one row taller than the image, each
/// layer lands one row further on and the gap rows keep their bytes.
unsafe fn large_layered(target: u32, w: i32, h: i32, d: i32, seed: u32) {
    let row = w as usize * 4;
    let slice = row * h as usize;
    let len = slice * d as usize;
    assert!(len > REPLY && slice < REPLY);
    // SAFETY: a context is current; the image is `len` tight bytes, the
    // read-back buffer `d` images of `h + 1` rows.
    unsafe {
        let tex = new_texture(target);
        let a = pattern(len, seed);
        textures::glTexImage3D(
            target,
            0,
            glow::RGBA8 as i32,
            w,
            h,
            d,
            0,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            a.as_ptr() as *const c_void,
        );
        no_gl_error("glTexImage3D");
        state::glPixelStorei(glow::PACK_IMAGE_HEIGHT, h + 1);
        let stride = slice + row;
        let got = get(target, glow::RGBA, glow::UNSIGNED_BYTE, stride * d as usize);
        state::glPixelStorei(glow::PACK_IMAGE_HEIGHT, 0);
        no_gl_error("glGetTexImage layered");
        for z in 0..d as usize {
            let at = z * stride;
            assert_same(
                &format!("{target:#x} layer {z}"),
                &got[at..at + slice],
                &a[z * slice..(z + 1) * slice],
            );
            assert!(
                got[at + slice..at + stride].iter().all(|&b| b == 0xEE),
                "{target:#x} layer {z}: the PACK_IMAGE_HEIGHT gap row was written"
            );
        }
        textures::glDeleteTextures(1, &tex);
    }
}

/// A depth level larger than one reply is read in bands, as the read
/// surface's depth buffer: every value comes back.
unsafe fn large_depth_is_read_in_bands() {
    let (w, h) = (3000i32, 2900i32);
    let len = w as usize * h as usize * 4;
    assert!(len > REPLY);
    // SAFETY: a context is current; `out` holds the image.
    unsafe {
        let tex = new_texture(glow::TEXTURE_2D);
        textures::glTexImage2D(
            glow::TEXTURE_2D,
            0,
            glow::DEPTH_COMPONENT32F as i32,
            w,
            h,
            0,
            glow::DEPTH_COMPONENT,
            glow::FLOAT,
            std::ptr::null(),
        );
        no_gl_error("glTexImage2D depth");
        let mut fbo = 0;
        framebuffers::glGenFramebuffers(1, &mut fbo);
        framebuffers::glBindFramebuffer(glow::FRAMEBUFFER, fbo);
        framebuffers::glFramebufferTexture2D(
            glow::FRAMEBUFFER,
            glow::DEPTH_ATTACHMENT,
            glow::TEXTURE_2D,
            tex,
            0,
        );
        state::glClearDepth(0.5);
        state::glClear(glow::DEPTH_BUFFER_BIT);
        no_gl_error("depth clear");
        framebuffers::glBindFramebuffer(glow::FRAMEBUFFER, 0);
        framebuffers::glDeleteFramebuffers(1, &fbo);
        let got = get(glow::TEXTURE_2D, glow::DEPTH_COMPONENT, glow::FLOAT, len);
        no_gl_error("glGetTexImage depth");
        let half = 0.5f32.to_ne_bytes();
        assert!(
            got.chunks_exact(4).all(|d| d == half),
            "a depth image larger than one reply was not read back whole"
        );
        textures::glDeleteTextures(1, &tex);
    }
}

/// glGetTexImage into a PIXEL_PACK_BUFFER: `pixels` is an offset (the
/// frontend used to write through it as a pointer), and the buffer's
/// errors are INVALID_OPERATION.
unsafe fn into_pack_buffer() {
    let texels = pattern(4 * 4 * 4, 9);
    // SAFETY: a context is current; every pointer covers the sizes passed.
    unsafe {
        let tex = new_texture(glow::TEXTURE_2D);
        textures::glTexImage2D(
            glow::TEXTURE_2D,
            0,
            glow::RGBA8 as i32,
            4,
            4,
            0,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            texels.as_ptr() as *const c_void,
        );
        let mut buf = 0;
        buffers::glGenBuffers(1, &mut buf);
        buffers::glBindBuffer(glow::PIXEL_PACK_BUFFER, buf);
        let fill = vec![0xEEu8; 16 + texels.len() + 16];
        buffers::glBufferData(
            glow::PIXEL_PACK_BUFFER,
            fill.len() as isize,
            fill.as_ptr() as *const c_void,
            glow::STREAM_READ,
        );
        no_gl_error("pack buffer");
        queries::glGetTexImage(
            glow::TEXTURE_2D,
            0,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            16 as *mut c_void,
        );
        no_gl_error("glGetTexImage into a pack buffer");
        let mut got = vec![0u8; fill.len()];
        buffers::glGetBufferSubData(
            glow::PIXEL_PACK_BUFFER,
            0,
            got.len() as isize,
            got.as_mut_ptr() as *mut c_void,
        );
        assert!(
            got[..16].iter().all(|&b| b == 0xEE),
            "bytes before the offset"
        );
        assert_same("pack buffer", &got[16..16 + texels.len()], &texels);
        assert!(got[16 + texels.len()..].iter().all(|&b| b == 0xEE));
        // Past the end of the store.
        queries::glGetTexImage(
            glow::TEXTURE_2D,
            0,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            48 as *mut c_void,
        );
        expect_error("pack past the store", glow::INVALID_OPERATION);
        // Not a multiple of the datum (4 bytes of FLOAT).
        queries::glGetTexImage(
            glow::TEXTURE_2D,
            0,
            glow::RGBA,
            glow::FLOAT,
            2 as *mut c_void,
        );
        expect_error("misaligned pack offset", glow::INVALID_OPERATION);
        buffers::glBindBuffer(glow::PIXEL_PACK_BUFFER, 0);
        buffers::glDeleteBuffers(1, &buf);
        textures::glDeleteTextures(1, &tex);
    }
}

/// GL 4.6 core pair rules: DEPTH_STENCIL with a type other than its two
/// packed ones is INVALID_ENUM (glReadPixels' error list, and Mesa's
/// desktop-GL check for glTex[Sub]Image too); a packed type with a format
/// Table 8.5 does not pair it with is INVALID_OPERATION; glGetTexImage's
/// format must match the image's kind (INVALID_OPERATION).
unsafe fn pair_errors() {
    let mut px = [0u8; 64];
    let p = px.as_mut_ptr() as *mut c_void;
    // SAFETY: a context is current; `px` holds every 1x1 read below and
    // the 2x2 RGBA32F image read.
    unsafe {
        // A complete framebuffer with colour and depth/stencil.
        let mut rb = [0u32; 2];
        framebuffers::glGenRenderbuffers(2, rb.as_mut_ptr());
        let mut fbo = 0;
        framebuffers::glGenFramebuffers(1, &mut fbo);
        framebuffers::glBindFramebuffer(glow::FRAMEBUFFER, fbo);
        for (r, internal, att) in [
            (rb[0], glow::RGBA8, glow::COLOR_ATTACHMENT0),
            (
                rb[1],
                glow::DEPTH24_STENCIL8,
                glow::DEPTH_STENCIL_ATTACHMENT,
            ),
        ] {
            framebuffers::glBindRenderbuffer(glow::RENDERBUFFER, r);
            framebuffers::glRenderbufferStorage(glow::RENDERBUFFER, internal, 4, 4);
            framebuffers::glFramebufferRenderbuffer(glow::FRAMEBUFFER, att, glow::RENDERBUFFER, r);
        }
        assert_eq!(
            framebuffers::glCheckFramebufferStatus(glow::FRAMEBUFFER),
            glow::FRAMEBUFFER_COMPLETE
        );
        no_gl_error("framebuffer");

        pixels::glReadPixels(0, 0, 1, 1, glow::DEPTH_STENCIL, glow::UNSIGNED_BYTE, p);
        expect_error("ReadPixels DEPTH_STENCIL/UNSIGNED_BYTE", glow::INVALID_ENUM);
        pixels::glReadPixels(0, 0, 1, 1, glow::DEPTH_STENCIL, glow::FLOAT, p);
        expect_error("ReadPixels DEPTH_STENCIL/FLOAT", glow::INVALID_ENUM);
        pixels::glReadPixels(0, 0, 1, 1, glow::DEPTH_STENCIL, glow::UNSIGNED_INT_24_8, p);
        no_gl_error("ReadPixels DEPTH_STENCIL/UNSIGNED_INT_24_8");
        pixels::glReadPixels(
            0,
            0,
            1,
            1,
            glow::DEPTH_STENCIL,
            glow::FLOAT_32_UNSIGNED_INT_24_8_REV,
            p,
        );
        no_gl_error("ReadPixels DEPTH_STENCIL/FLOAT_32_UNSIGNED_INT_24_8_REV");
        pixels::glReadPixels(0, 0, 1, 1, glow::RGBA, glow::UNSIGNED_SHORT_5_6_5, p);
        expect_error("ReadPixels RGBA/5_6_5", glow::INVALID_OPERATION);
        pixels::glReadPixels(
            0,
            0,
            1,
            1,
            glow::DEPTH_COMPONENT,
            glow::UNSIGNED_INT_24_8,
            p,
        );
        expect_error("ReadPixels DEPTH_COMPONENT/24_8", glow::INVALID_OPERATION);
        pixels::glReadPixels(0, 0, 1, 1, glow::RGBA, 0xdead, p);
        expect_error("ReadPixels RGBA/0xdead", glow::INVALID_ENUM);
        framebuffers::glBindFramebuffer(glow::FRAMEBUFFER, 0);
        framebuffers::glDeleteFramebuffers(1, &fbo);
        framebuffers::glDeleteRenderbuffers(2, rb.as_ptr());

        // glTexImage2D goes through the same pair check.
        let ds = new_texture(glow::TEXTURE_2D);
        textures::glTexImage2D(
            glow::TEXTURE_2D,
            0,
            glow::DEPTH24_STENCIL8 as i32,
            2,
            2,
            0,
            glow::DEPTH_STENCIL,
            glow::UNSIGNED_BYTE,
            std::ptr::null(),
        );
        expect_error("TexImage2D DEPTH_STENCIL/UNSIGNED_BYTE", glow::INVALID_ENUM);
        textures::glTexImage2D(
            glow::TEXTURE_2D,
            0,
            glow::DEPTH24_STENCIL8 as i32,
            2,
            2,
            0,
            glow::DEPTH_STENCIL,
            glow::UNSIGNED_INT_24_8,
            std::ptr::null(),
        );
        no_gl_error("TexImage2D DEPTH_STENCIL/UNSIGNED_INT_24_8");
        queries::glGetTexImage(glow::TEXTURE_2D, 0, glow::DEPTH_STENCIL, glow::FLOAT, p);
        expect_error("GetTexImage DEPTH_STENCIL/FLOAT", glow::INVALID_ENUM);
        queries::glGetTexImage(glow::TEXTURE_2D, 0, glow::RGBA, glow::UNSIGNED_BYTE, p);
        expect_error(
            "GetTexImage RGBA of a depth/stencil image",
            glow::INVALID_OPERATION,
        );
        queries::glGetTexImage(
            glow::TEXTURE_2D,
            0,
            glow::DEPTH_STENCIL,
            glow::UNSIGNED_INT_24_8,
            p,
        );
        no_gl_error("GetTexImage DEPTH_STENCIL/UNSIGNED_INT_24_8");
        textures::glDeleteTextures(1, &ds);

        let rgba = new_texture(glow::TEXTURE_2D);
        textures::glTexImage2D(
            glow::TEXTURE_2D,
            0,
            glow::RGBA8 as i32,
            2,
            2,
            0,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            std::ptr::null(),
        );
        no_gl_error("TexImage2D RGBA8");
        queries::glGetTexImage(glow::TEXTURE_2D, 0, glow::RGBA, glow::UNSIGNED_INT_24_8, p);
        expect_error("GetTexImage RGBA/24_8", glow::INVALID_OPERATION);
        queries::glGetTexImage(glow::TEXTURE_2D, 0, glow::DEPTH_COMPONENT, glow::FLOAT, p);
        expect_error(
            "GetTexImage DEPTH_COMPONENT of RGBA8",
            glow::INVALID_OPERATION,
        );
        queries::glGetTexImage(
            glow::TEXTURE_2D,
            0,
            glow::RGBA_INTEGER,
            glow::UNSIGNED_BYTE,
            p,
        );
        expect_error("GetTexImage RGBA_INTEGER of RGBA8", glow::INVALID_OPERATION);
        queries::glGetTexImage(glow::TEXTURE_2D, 0, glow::RGBA, glow::FLOAT, p);
        no_gl_error("GetTexImage RGBA/FLOAT of RGBA8");
        textures::glDeleteTextures(1, &rgba);
    }
}

/// Uploads from a pixel unpack buffer with hostile unpack state: the layout
/// end must not wrap into a small range (release builds do not trap on
/// overflow); GL says INVALID_OPERATION when the read would leave the buffer.
unsafe fn hostile_unpack_from_buffer() {
    // SAFETY: a context is current; every pointer argument is an offset
    // into the bound unpack buffer, never dereferenced by the caller.
    unsafe {
        let tex = new_texture(glow::TEXTURE_2D);
        textures::glTexImage2D(
            glow::TEXTURE_2D,
            0,
            glow::RGBA8 as i32,
            4,
            4,
            0,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            std::ptr::null(),
        );
        no_gl_error("hostile unpack: storage");
        let mut buf = 0;
        buffers::glGenBuffers(1, &mut buf);
        buffers::glBindBuffer(glow::PIXEL_UNPACK_BUFFER, buf);
        let data = pattern(256, 9);
        buffers::glBufferData(
            glow::PIXEL_UNPACK_BUFFER,
            256,
            data.as_ptr().cast(),
            glow::STATIC_DRAW,
        );
        // Skips that overflow any size computation.
        state::glPixelStorei(glow::UNPACK_SKIP_ROWS, i32::MAX);
        state::glPixelStorei(glow::UNPACK_ROW_LENGTH, i32::MAX);
        textures::glTexSubImage2D(
            glow::TEXTURE_2D,
            0,
            0,
            0,
            4,
            4,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            std::ptr::null(),
        );
        expect_error("hostile unpack: skip rows", glow::INVALID_OPERATION);
        state::glPixelStorei(glow::UNPACK_SKIP_ROWS, 0);
        state::glPixelStorei(glow::UNPACK_ROW_LENGTH, 0);
        // An offset near the top of the address space.
        textures::glTexSubImage2D(
            glow::TEXTURE_2D,
            0,
            0,
            0,
            4,
            4,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            (usize::MAX - 8) as *const c_void,
        );
        expect_error("hostile unpack: offset", glow::INVALID_OPERATION);
        // The same upload in range works.
        textures::glTexSubImage2D(
            glow::TEXTURE_2D,
            0,
            0,
            0,
            4,
            4,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            std::ptr::null(),
        );
        no_gl_error("unpack from buffer");
        buffers::glBindBuffer(glow::PIXEL_UNPACK_BUFFER, 0);
        let mut back = vec![0u8; 64];
        queries::glGetTexImage(
            glow::TEXTURE_2D,
            0,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            back.as_mut_ptr().cast(),
        );
        no_gl_error("hostile unpack: read back");
        assert_same("unpack from buffer", &back, &data[..64]);
        textures::glDeleteTextures(1, &tex);
        buffers::glDeleteBuffers(1, &buf);
    }
}

/// One test: the process has one connection and one current context.
#[test]
fn get_tex_image_reads_levels_larger_than_one_reply() {
    // SAFETY: EGL/GL calls on this thread with a current context, with
    // pointers that cover what each call reads or writes.
    unsafe {
        make_context();
        pair_errors();
        hostile_unpack_from_buffer();
        into_pack_buffer();
        large_2d();
        large_cube_face();
        // 9 layers of 4 MiB.
        large_layered(glow::TEXTURE_2D_ARRAY, 1024, 1024, 9, 5);
        // 3 layers of ~17 MiB: bands of rows inside each layer.
        large_layered(glow::TEXTURE_2D_ARRAY, 2100, 2100, 3, 6);
        // 40 slices of 1 MiB (Vulkan: needs the backend to read slice z
        // of a 3D read attachment, not slice 0).
        large_layered(glow::TEXTURE_3D, 512, 512, 40, 7);
        large_depth_is_read_in_bands();
        state::glFinish();
        no_gl_error("end");
    }
}
