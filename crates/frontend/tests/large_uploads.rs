//! Uploads larger than the ring transports' STAGE segment (64 MiB by
//! default) reach the backend whole: the frontend splits them into
//! records of at most `Conn::max_blob` bytes. Without the split the first
//! such upload loses the link and every read below answers zeros.
//!
//! `cargo nextest run -p frontend --test large_uploads` (the default
//! transport, inproc, is the one with a STAGE; monolith passes too).

use std::ffi::c_void;

mod common;
use common::{make_context, pattern};
use mobilegl::gl::{buffers, framebuffers, pixels, state, textures};

/// More than the default STAGE segment (64 MiB).
const STAGE: usize = 64 << 20;

/// The first differing byte, for a readable failure.
fn first_diff(a: &[u8], b: &[u8]) -> Option<usize> {
    if a.len() != b.len() {
        return Some(a.len().min(b.len()));
    }
    a.iter().zip(b).position(|(x, y)| x != y)
}

fn assert_same(what: &str, got: &[u8], want: &[u8]) {
    if let Some(i) = first_diff(got, want) {
        panic!(
            "{what}: byte {i} of {} differs (got {:?}, want {:?})",
            want.len(),
            got.get(i),
            want.get(i)
        );
    }
}

fn no_gl_error(what: &str) {
    // SAFETY: a context is current.
    let e = unsafe { state::glGetError() };
    assert_eq!(e, glow::NO_ERROR, "{what}: GL error {e:#x}");
}

/// Read `w`×`h` RGBA8 of the texture image attached to the read
/// framebuffer (layer `layer` of a 3D/array texture when `layered`).
unsafe fn read_texture(tex: u32, target: u32, layer: Option<i32>, w: i32, h: i32) -> Vec<u8> {
    let mut out = vec![0u8; w as usize * h as usize * 4];
    // SAFETY: a context is current; `out` holds the tight RGBA8 rows asked for.
    unsafe {
        let mut fbo = 0;
        framebuffers::glGenFramebuffers(1, &mut fbo);
        framebuffers::glBindFramebuffer(glow::FRAMEBUFFER, fbo);
        match layer {
            Some(l) => framebuffers::glFramebufferTextureLayer(
                glow::FRAMEBUFFER,
                glow::COLOR_ATTACHMENT0,
                tex,
                0,
                l,
            ),
            None => framebuffers::glFramebufferTexture2D(
                glow::FRAMEBUFFER,
                glow::COLOR_ATTACHMENT0,
                target,
                tex,
                0,
            ),
        }
        assert_eq!(
            framebuffers::glCheckFramebufferStatus(glow::FRAMEBUFFER),
            glow::FRAMEBUFFER_COMPLETE
        );
        state::glPixelStorei(glow::PACK_ALIGNMENT, 1);
        pixels::glReadPixels(
            0,
            0,
            w,
            h,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            out.as_mut_ptr() as *mut c_void,
        );
        framebuffers::glBindFramebuffer(glow::FRAMEBUFFER, 0);
        framebuffers::glDeleteFramebuffers(1, &fbo);
    }
    no_gl_error("read back");
    out
}

unsafe fn new_texture(target: u32) -> u32 {
    let mut tex = 0;
    // SAFETY: a context is current.
    unsafe {
        textures::glGenTextures(1, &mut tex);
        textures::glBindTexture(target, tex);
        textures::glTexParameteri(target, glow::TEXTURE_MIN_FILTER, glow::NEAREST as i32);
        textures::glTexParameteri(target, glow::TEXTURE_MAG_FILTER, glow::NEAREST as i32);
    }
    tex
}

/// 2D: glTexImage2D and a full glTexSubImage2D, each larger than STAGE.
unsafe fn texture_2d() {
    let (w, h) = (4096i32, 4100i32);
    let len = w as usize * h as usize * 4;
    assert!(len > STAGE);
    // SAFETY: a context is current; the images are `len` tight bytes
    // (UNPACK_ALIGNMENT 4 divides the RGBA8 row).
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
        no_gl_error("glTexImage2D");
        assert_same(
            "glTexImage2D",
            &read_texture(tex, glow::TEXTURE_2D, None, w, h),
            &a,
        );
        drop(a);
        let b = pattern(len, 2);
        textures::glTexSubImage2D(
            glow::TEXTURE_2D,
            0,
            0,
            0,
            w,
            h,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            b.as_ptr() as *const c_void,
        );
        no_gl_error("glTexSubImage2D");
        assert_same(
            "glTexSubImage2D",
            &read_texture(tex, glow::TEXTURE_2D, None, w, h),
            &b,
        );
        textures::glDeleteTextures(1, &tex);
    }
}

/// A 3D or array texture larger than STAGE, read back slice by slice.
unsafe fn texture_3d(target: u32, w: i32, h: i32, d: i32, seed: u32) {
    let slice = w as usize * h as usize * 4;
    let len = slice * d as usize;
    assert!(len > STAGE);
    // SAFETY: a context is current; the image is `len` tight bytes.
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
        for z in 0..d {
            let want = &a[z as usize * slice..(z as usize + 1) * slice];
            let got = read_texture(tex, target, Some(z), w, h);
            assert_same(&format!("glTexImage3D {target:#x} slice {z}"), &got, want);
        }
        textures::glDeleteTextures(1, &tex);
    }
}

/// glBufferData, glBufferSubData and glBufferStorage larger than STAGE.
unsafe fn buffers() {
    let len = STAGE + (3 << 20) + 5;
    // SAFETY: a context is current; every pointer covers the sizes passed.
    unsafe {
        let mut buf = 0;
        buffers::glGenBuffers(1, &mut buf);
        buffers::glBindBuffer(glow::COPY_WRITE_BUFFER, buf);
        let a = pattern(len, 3);
        buffers::glBufferData(
            glow::COPY_WRITE_BUFFER,
            len as isize,
            a.as_ptr() as *const c_void,
            glow::STATIC_DRAW,
        );
        no_gl_error("glBufferData");
        let mut got = vec![0u8; len];
        buffers::glGetBufferSubData(
            glow::COPY_WRITE_BUFFER,
            0,
            len as isize,
            got.as_mut_ptr() as *mut c_void,
        );
        assert_same("glBufferData", &got, &a);

        // A sub-range larger than STAGE at an odd offset.
        let off = 7usize;
        let sub = pattern(len - off - 3, 4);
        buffers::glBufferSubData(
            glow::COPY_WRITE_BUFFER,
            off as isize,
            sub.len() as isize,
            sub.as_ptr() as *const c_void,
        );
        no_gl_error("glBufferSubData");
        let mut want = a;
        want[off..off + sub.len()].copy_from_slice(&sub);
        buffers::glGetBufferSubData(
            glow::COPY_WRITE_BUFFER,
            0,
            len as isize,
            got.as_mut_ptr() as *mut c_void,
        );
        assert_same("glBufferSubData", &got, &want);
        buffers::glDeleteBuffers(1, &buf);
        drop(want);

        let mut imm = 0;
        buffers::glGenBuffers(1, &mut imm);
        buffers::glBindBuffer(glow::COPY_WRITE_BUFFER, imm);
        let c = pattern(len, 5);
        buffers::glBufferStorage(
            glow::COPY_WRITE_BUFFER,
            len as isize,
            c.as_ptr() as *const c_void,
            0,
        );
        no_gl_error("glBufferStorage");
        buffers::glGetBufferSubData(
            glow::COPY_WRITE_BUFFER,
            0,
            len as isize,
            got.as_mut_ptr() as *mut c_void,
        );
        assert_same("glBufferStorage", &got, &c);
        buffers::glDeleteBuffers(1, &imm);
    }
}

/// One test: the process has one connection and one current context.
#[test]
fn uploads_larger_than_stage_arrive_whole() {
    // SAFETY: EGL/GL calls on this thread with a current context, with
    // pointers that cover what each call reads or writes.
    unsafe {
        make_context();
        texture_2d();
        // 17 layers of 4 MiB: bands of whole layers. (An array texture,
        // not TEXTURE_3D: the split is the same, z is the slice, but the
        // Vulkan backend reads slice 0 of any 3D read attachment, so the
        // check would fail there for a reason of its own.)
        texture_3d(glow::TEXTURE_2D_ARRAY, 1024, 1024, 17, 6);
        // 4 layers of ~17 MiB, each larger than one record: bands of rows.
        texture_3d(glow::TEXTURE_2D_ARRAY, 2100, 2100, 4, 7);
        buffers();
        state::glFinish();
        no_gl_error("end");
    }
}
