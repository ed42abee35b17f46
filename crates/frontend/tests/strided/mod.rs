//! Sub-image uploads out of larger client images (UNPACK_ROW_LENGTH and
//! skips, the way Minecraft uploads atlas tiles): monolith hands the
//! application's rows to the backend with their stride, which either lets
//! its driver read them in place or gathers them; the texels must be the
//! same as from a tight copy, and the driver's unpack state must not leak
//! into the uploads after them.

use std::ffi::c_void;

use crate::common::{make_context, no_gl_error};
use mobilegl::gl::{queries, state, textures};

/// Texel (x, y) of a `w`-pixel-wide client image of `bpp`-byte pixels.
fn source(w: usize, h: usize, bpp: usize, stride: usize) -> Vec<u8> {
    let mut v = vec![0u8; stride * h];
    for y in 0..h {
        for x in 0..w {
            for c in 0..bpp {
                v[y * stride + x * bpp + c] = (1 + x * 7 + y * 31 + c * 3) as u8;
            }
        }
    }
    v
}

/// Upload a `sw`×`sh` box out of a `row_len`-wide image (skipping
/// `skip` pixels and rows) into an 8×8 level at (3, 2), then read the
/// level back and compare every texel.
#[allow(clippy::too_many_arguments)]
unsafe fn check_box(
    what: &str,
    internal: u32,
    format: u32,
    bpp: usize,
    align: i32,
    row_len: usize,
    (skip_x, skip_y): (usize, usize),
    (sw, sh): (usize, usize),
) {
    const N: usize = 8;
    let stride = (row_len * bpp).div_ceil(align as usize) * align as usize;
    let src = source(row_len, skip_y + sh, bpp, stride);
    // SAFETY: a context is current; the source covers the described box
    // under the unpack state set here; the read buffer holds the level.
    unsafe {
        let mut tex = 0;
        textures::glGenTextures(1, &mut tex);
        textures::glBindTexture(glow::TEXTURE_2D, tex);
        state::glPixelStorei(glow::UNPACK_ALIGNMENT, 1);
        let zeros = vec![0u8; N * N * bpp];
        textures::glTexImage2D(
            glow::TEXTURE_2D,
            0,
            internal as i32,
            N as i32,
            N as i32,
            0,
            format,
            glow::UNSIGNED_BYTE,
            zeros.as_ptr() as *const c_void,
        );
        state::glPixelStorei(glow::UNPACK_ALIGNMENT, align);
        state::glPixelStorei(glow::UNPACK_ROW_LENGTH, row_len as i32);
        state::glPixelStorei(glow::UNPACK_SKIP_PIXELS, skip_x as i32);
        state::glPixelStorei(glow::UNPACK_SKIP_ROWS, skip_y as i32);
        textures::glTexSubImage2D(
            glow::TEXTURE_2D,
            0,
            3,
            2,
            sw as i32,
            sh as i32,
            format,
            glow::UNSIGNED_BYTE,
            src.as_ptr() as *const c_void,
        );
        state::glPixelStorei(glow::UNPACK_ROW_LENGTH, 0);
        state::glPixelStorei(glow::UNPACK_SKIP_PIXELS, 0);
        state::glPixelStorei(glow::UNPACK_SKIP_ROWS, 0);
        state::glPixelStorei(glow::UNPACK_ALIGNMENT, 1);
        // A tight upload right after: the driver's row length is back to 0.
        let tight: Vec<u8> = (0..2 * 2 * bpp).map(|i| 200 + i as u8).collect();
        textures::glTexSubImage2D(
            glow::TEXTURE_2D,
            0,
            0,
            6,
            2,
            2,
            format,
            glow::UNSIGNED_BYTE,
            tight.as_ptr() as *const c_void,
        );
        no_gl_error(what);
        state::glPixelStorei(glow::PACK_ALIGNMENT, 1);
        let mut got = vec![0xEEu8; N * N * bpp];
        queries::glGetTexImage(
            glow::TEXTURE_2D,
            0,
            format,
            glow::UNSIGNED_BYTE,
            got.as_mut_ptr() as *mut c_void,
        );
        no_gl_error(what);
        let mut want = zeros;
        for y in 0..sh {
            for x in 0..sw {
                let s = (skip_y + y) * stride + (skip_x + x) * bpp;
                let d = ((2 + y) * N + 3 + x) * bpp;
                want[d..d + bpp].copy_from_slice(&src[s..s + bpp]);
            }
        }
        for y in 0..2 {
            let d = ((6 + y) * N) * bpp;
            want[d..d + 2 * bpp].copy_from_slice(&tight[y * 2 * bpp..(y + 1) * 2 * bpp]);
        }
        if let Some(i) = got.iter().zip(&want).position(|(a, b)| a != b) {
            let t = i / bpp;
            panic!(
                "{what}: texel ({}, {}) byte {} = {}, want {}",
                t % N,
                t / N,
                i % bpp,
                got[i],
                want[i]
            );
        }
        textures::glDeleteTextures(1, &tex);
    }
}

/// Every case in one process (one connection).
pub unsafe fn check_strided_subimages() {
    // SAFETY: a context is made current first; each check is self-contained.
    unsafe {
        make_context();
        // RGBA8: a whole-pixel stride, read in place.
        check_box(
            "rgba8 in place",
            glow::RGBA8,
            glow::RGBA,
            4,
            4,
            16,
            (5, 3),
            (4, 3),
        );
        // R8 with an odd row length and alignment 1.
        check_box("r8 in place", glow::R8, glow::RED, 1, 1, 7, (2, 1), (5, 4));
        // RGB8, row length 5, alignment 4: 16-byte rows are not whole
        // pixels, so the rows are gathered.
        check_box(
            "rgb8 gathered",
            glow::RGB8,
            glow::RGB,
            3,
            4,
            5,
            (1, 2),
            (3, 3),
        );
        // RG8 with alignment 8 padding the rows.
        check_box(
            "rg8 padded rows",
            glow::RG8,
            glow::RG,
            2,
            8,
            3,
            (0, 0),
            (3, 5),
        );
        no_gl_error("end");
    }
}
