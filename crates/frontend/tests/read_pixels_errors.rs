//! glReadPixels by GL 3.3 core §4.3.1: the INVALID_OPERATION errors of a
//! read from a missing buffer (depth, stencil, both, or a colour read
//! buffer of NONE), of an integer/non-integer mismatch between `format`
//! and the colour read buffer, and of a multisampled read framebuffer, in
//! the order INVALID_VALUE, INVALID_ENUM, INVALID_FRAMEBUFFER_OPERATION,
//! INVALID_OPERATION; and clipping: only the pixels of the rectangle that
//! lie inside the read framebuffer are read and written (client memory or
//! a pack buffer, under the pack state), the others are left untouched,
//! and a rectangle far larger than the framebuffer costs no more than its
//! inside (never GL_OUT_OF_MEMORY).
//!
//! `cargo nextest run -p frontend --test read_pixels_errors`

use std::ffi::c_void;

mod common;
use common::{expect_error, gl_error, make_context, no_gl_error, pattern};
use mobilegl::gl::{buffers, framebuffers, get, pixels, state, textures};

/// Side of the small framebuffers below.
const FB: i32 = 8;
/// The byte every sentinel buffer starts with.
const SENTINEL: u8 = 0xEE;

fn assert_same(what: &str, got: &[u8], want: &[u8]) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    if let Some(i) = got.iter().zip(want).position(|(a, b)| a != b) {
        panic!(
            "{what}: byte {i} of {} differs (got {:#x}, want {:#x})",
            want.len(),
            got[i],
            want[i]
        );
    }
}

/// glReadPixels of (x, y, w, h) into `buf`.
unsafe fn read(x: i32, y: i32, w: i32, h: i32, format: u32, ty: u32, buf: &mut [u8]) {
    // SAFETY: a context is current; the caller sized `buf` for the image
    // under the pack state.
    unsafe { pixels::glReadPixels(x, y, w, h, format, ty, buf.as_mut_ptr() as *mut c_void) }
}

/// A 1x1 read of (format, type) into a sentinel buffer: the GL error it
/// raised; an erroring read must leave the buffer untouched.
unsafe fn read_error(format: u32, ty: u32) -> u32 {
    let mut buf = [SENTINEL; 16];
    // SAFETY: one pixel is at most 16 bytes.
    unsafe { read(0, 0, 1, 1, format, ty, &mut buf) };
    let e = gl_error();
    if e != glow::NO_ERROR {
        assert!(
            buf.iter().all(|&b| b == SENTINEL),
            "{format:#x}/{ty:#x}: error {e:#x} but memory written"
        );
    }
    e
}

fn check_read(what: &str, format: u32, ty: u32, want: u32) {
    // SAFETY: a context is current.
    let e = unsafe { read_error(format, ty) };
    assert_eq!(e, want, "{what}: GL error {e:#x}, want {want:#x}");
    no_gl_error(what);
}

/// A framebuffer bound to both targets, with one FB x FB renderbuffer per
/// (attachment, internal format, samples); its status must be complete.
unsafe fn renderbuffer_fbo(atts: &[(u32, u32, i32)]) -> (u32, Vec<u32>) {
    // SAFETY (whole body): a context is current; pointers cover the names.
    unsafe {
        let mut fbo = 0;
        framebuffers::glGenFramebuffers(1, &mut fbo);
        framebuffers::glBindFramebuffer(glow::FRAMEBUFFER, fbo);
        let mut rbs = vec![0u32; atts.len()];
        framebuffers::glGenRenderbuffers(rbs.len() as i32, rbs.as_mut_ptr());
        for (&(att, internal, samples), &rb) in atts.iter().zip(&rbs) {
            framebuffers::glBindRenderbuffer(glow::RENDERBUFFER, rb);
            framebuffers::glRenderbufferStorageMultisample(
                glow::RENDERBUFFER,
                samples,
                internal,
                FB,
                FB,
            );
            framebuffers::glFramebufferRenderbuffer(glow::FRAMEBUFFER, att, glow::RENDERBUFFER, rb);
        }
        no_gl_error("renderbuffer framebuffer");
        assert_eq!(
            framebuffers::glCheckFramebufferStatus(glow::FRAMEBUFFER),
            glow::FRAMEBUFFER_COMPLETE,
            "{atts:x?}"
        );
        (fbo, rbs)
    }
}

unsafe fn delete_fbo((fbo, rbs): (u32, Vec<u32>)) {
    // SAFETY: a context is current; pointers cover the names.
    unsafe {
        framebuffers::glBindFramebuffer(glow::FRAMEBUFFER, 0);
        framebuffers::glDeleteFramebuffers(1, &fbo);
        framebuffers::glDeleteRenderbuffers(rbs.len() as i32, rbs.as_ptr());
    }
}

/// DEPTH_COMPONENT, STENCIL_INDEX and DEPTH_STENCIL need the buffers they
/// read; a colour format needs a colour read buffer.
unsafe fn missing_buffers() {
    let color = (glow::COLOR_ATTACHMENT0, glow::RGBA8, 0);
    let op = glow::INVALID_OPERATION;
    let ok = glow::NO_ERROR;
    let d24s8 = glow::UNSIGNED_INT_24_8;
    let f32s8 = glow::FLOAT_32_UNSIGNED_INT_24_8_REV;
    // SAFETY (whole body): a context is current.
    unsafe {
        // Colour only.
        let fb = renderbuffer_fbo(&[color]);
        check_read("colour only: RGBA", glow::RGBA, glow::UNSIGNED_BYTE, ok);
        check_read("colour only: depth", glow::DEPTH_COMPONENT, glow::FLOAT, op);
        check_read(
            "colour only: stencil",
            glow::STENCIL_INDEX,
            glow::UNSIGNED_BYTE,
            op,
        );
        check_read("colour only: depth-stencil", glow::DEPTH_STENCIL, d24s8, op);
        check_read(
            "colour only: depth-stencil f32",
            glow::DEPTH_STENCIL,
            f32s8,
            op,
        );
        // A bad DEPTH_STENCIL type is still INVALID_ENUM, before the
        // missing buffers.
        check_read(
            "colour only: depth-stencil/UNSIGNED_BYTE",
            glow::DEPTH_STENCIL,
            glow::UNSIGNED_BYTE,
            glow::INVALID_ENUM,
        );
        delete_fbo(fb);

        // Depth, no stencil.
        let fb = renderbuffer_fbo(&[color, (glow::DEPTH_ATTACHMENT, glow::DEPTH_COMPONENT24, 0)]);
        check_read("depth only: depth", glow::DEPTH_COMPONENT, glow::FLOAT, ok);
        check_read(
            "depth only: stencil",
            glow::STENCIL_INDEX,
            glow::UNSIGNED_BYTE,
            op,
        );
        check_read("depth only: depth-stencil", glow::DEPTH_STENCIL, d24s8, op);
        delete_fbo(fb);

        // Stencil, no depth: a DEPTH24_STENCIL8 on the stencil point only.
        let fb = renderbuffer_fbo(&[color, (glow::STENCIL_ATTACHMENT, glow::DEPTH24_STENCIL8, 0)]);
        check_read(
            "stencil only: stencil",
            glow::STENCIL_INDEX,
            glow::UNSIGNED_BYTE,
            ok,
        );
        check_read(
            "stencil only: depth",
            glow::DEPTH_COMPONENT,
            glow::FLOAT,
            op,
        );
        check_read(
            "stencil only: depth-stencil",
            glow::DEPTH_STENCIL,
            d24s8,
            op,
        );
        delete_fbo(fb);

        // Both.
        let fb = renderbuffer_fbo(&[
            color,
            (glow::DEPTH_STENCIL_ATTACHMENT, glow::DEPTH24_STENCIL8, 0),
        ]);
        check_read("both: depth", glow::DEPTH_COMPONENT, glow::FLOAT, ok);
        check_read(
            "both: stencil",
            glow::STENCIL_INDEX,
            glow::UNSIGNED_BYTE,
            ok,
        );
        check_read("both: depth-stencil", glow::DEPTH_STENCIL, d24s8, ok);
        check_read("both: depth-stencil f32", glow::DEPTH_STENCIL, f32s8, ok);
        // READ_BUFFER NONE: no colour to read; depth and stencil still are
        // (and must reach no driver as a colour read: Mesa's GLES
        // glReadPixels crashed on that).
        framebuffers::glReadBuffer(glow::NONE);
        no_gl_error("glReadBuffer(NONE)");
        check_read(
            "read buffer NONE: depth",
            glow::DEPTH_COMPONENT,
            glow::FLOAT,
            ok,
        );
        check_read(
            "read buffer NONE: stencil",
            glow::STENCIL_INDEX,
            glow::UNSIGNED_BYTE,
            ok,
        );
        check_read(
            "read buffer NONE: RGBA",
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            op,
        );
        check_read("read buffer NONE: RED", glow::RED, glow::FLOAT, op);
        check_read(
            "read buffer NONE: RGBA_INTEGER",
            glow::RGBA_INTEGER,
            glow::UNSIGNED_INT,
            op,
        );
        framebuffers::glReadBuffer(glow::COLOR_ATTACHMENT0);
        check_read(
            "read buffer back: RGBA",
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            ok,
        );
        delete_fbo(fb);
    }
}

/// An integer format reads an integer colour buffer only, and an integer
/// colour buffer takes integer formats only; signed and unsigned mix
/// freely (desktop GL has no signed/unsigned rule).
unsafe fn integer_mismatch() {
    use glow::{
        BGRA, BGRA_INTEGER, DEPTH_COMPONENT, FLOAT, INT, INVALID_OPERATION as OP, NO_ERROR as OK,
        RED, RED_INTEGER, RGBA, RGBA_INTEGER, RGB_INTEGER, UNSIGNED_BYTE as UB, UNSIGNED_INT as UI,
        UNSIGNED_INT_8_8_8_8,
    };
    let depth = (glow::DEPTH_ATTACHMENT, glow::DEPTH_COMPONENT24, 0);
    // (colour buffer format, with a depth buffer, [(format, type, error)]).
    type Reads = &'static [(u32, u32, u32)];
    let cases: [(u32, bool, Reads); 4] = [
        (
            glow::RGBA8UI,
            true,
            &[
                (RGBA, UB, OP),
                (RGBA, FLOAT, OP),
                (RED, UB, OP),
                (RGBA_INTEGER, UI, OK),
                (RGBA_INTEGER, INT, OK),
                (RED_INTEGER, UB, OK),
                // The rule is about colour: depth reads as ever.
                (DEPTH_COMPONENT, FLOAT, OK),
            ],
        ),
        (
            glow::RGBA8I,
            false,
            &[
                (RGBA, UB, OP),
                (BGRA, UB, OP),
                (RGBA_INTEGER, INT, OK),
                (RGBA_INTEGER, UI, OK),
            ],
        ),
        (
            glow::RGBA8,
            false,
            &[
                (RGBA_INTEGER, UB, OP),
                (RGB_INTEGER, INT, OP),
                (BGRA_INTEGER, UNSIGNED_INT_8_8_8_8, OP),
                (RGBA, UB, OK),
            ],
        ),
        (
            glow::RGBA32F,
            false,
            &[(RGBA_INTEGER, INT, OP), (RGBA, FLOAT, OK)],
        ),
    ];
    // SAFETY (whole body): a context is current.
    unsafe {
        for (colour, with_depth, reads) in cases {
            let color = (glow::COLOR_ATTACHMENT0, colour, 0);
            let fb = if with_depth {
                renderbuffer_fbo(&[color, depth])
            } else {
                renderbuffer_fbo(&[color])
            };
            for &(format, ty, want) in reads {
                check_read(
                    &format!("{colour:#x}: {format:#x}/{ty:#x}"),
                    format,
                    ty,
                    want,
                );
            }
            delete_fbo(fb);
        }
    }
}

/// A multisampled framebuffer object cannot be read; and the errors come
/// in the order INVALID_VALUE, INVALID_ENUM, INVALID_FRAMEBUFFER_OPERATION,
/// INVALID_OPERATION.
unsafe fn multisample_and_order() {
    let mut buf = [SENTINEL; 64];
    // SAFETY (whole body): a context is current; `buf` holds any 1x1 pixel.
    unsafe {
        let mut max_samples = 0;
        get::glGetIntegerv(glow::MAX_SAMPLES, &mut max_samples);
        no_gl_error("MAX_SAMPLES");
        assert!(
            max_samples >= 1,
            "MAX_SAMPLES {max_samples}: no multisampling"
        );
        let samples = max_samples.min(4);
        let fb = renderbuffer_fbo(&[
            (glow::COLOR_ATTACHMENT0, glow::RGBA8, samples),
            (glow::DEPTH_ATTACHMENT, glow::DEPTH_COMPONENT24, samples),
        ]);
        let op = glow::INVALID_OPERATION;
        check_read("multisampled: RGBA", glow::RGBA, glow::UNSIGNED_BYTE, op);
        check_read(
            "multisampled: depth",
            glow::DEPTH_COMPONENT,
            glow::FLOAT,
            op,
        );
        check_read(
            "multisampled: bad type",
            glow::RGBA,
            0xdead,
            glow::INVALID_ENUM,
        );
        read(0, 0, -1, 1, glow::RGBA, glow::UNSIGNED_BYTE, &mut buf);
        expect_error("multisampled: negative width", glow::INVALID_VALUE);
        delete_fbo(fb);

        // An incomplete framebuffer (no attachment).
        let mut fbo = 0;
        framebuffers::glGenFramebuffers(1, &mut fbo);
        framebuffers::glBindFramebuffer(glow::FRAMEBUFFER, fbo);
        assert_ne!(
            framebuffers::glCheckFramebufferStatus(glow::READ_FRAMEBUFFER),
            glow::FRAMEBUFFER_COMPLETE
        );
        let fbop = glow::INVALID_FRAMEBUFFER_OPERATION;
        check_read("incomplete: RGBA", glow::RGBA, glow::UNSIGNED_BYTE, fbop);
        check_read(
            "incomplete: bad format",
            0xdead,
            glow::UNSIGNED_BYTE,
            glow::INVALID_ENUM,
        );
        check_read(
            "incomplete: depth-stencil/FLOAT",
            glow::DEPTH_STENCIL,
            glow::FLOAT,
            glow::INVALID_ENUM,
        );
        // A packed type with a format it does not pair with is an
        // INVALID_OPERATION: after the framebuffer's error.
        check_read(
            "incomplete: RGBA/5_6_5",
            glow::RGBA,
            glow::UNSIGNED_SHORT_5_6_5,
            fbop,
        );
        // Missing buffers are INVALID_OPERATION too: after it as well.
        check_read(
            "incomplete: depth",
            glow::DEPTH_COMPONENT,
            glow::FLOAT,
            fbop,
        );
        read(0, 0, 1, -1, 0xdead, glow::UNSIGNED_BYTE, &mut buf);
        expect_error("incomplete: negative height", glow::INVALID_VALUE);
        // Zero-sized reads raise the same errors.
        read(0, 0, 0, 0, glow::RGBA, glow::UNSIGNED_BYTE, &mut buf);
        expect_error("incomplete: empty read", fbop);
        framebuffers::glBindFramebuffer(glow::FRAMEBUFFER, 0);
        framebuffers::glDeleteFramebuffers(1, &fbo);

        // The default framebuffer of a surfaceless context is undefined.
        check_read("surfaceless default", glow::RGBA, glow::UNSIGNED_BYTE, fbop);
        assert!(buf.iter().all(|&b| b == SENTINEL));
    }
}

/// An FB x FB RGBA8 texture holding `pattern(.., seed)`, attached to a new
/// framebuffer bound to both targets: (framebuffer, texture, its pixels,
/// bottom row first).
unsafe fn pattern_fbo(seed: u32) -> (u32, u32, Vec<u8>) {
    let image = pattern((FB * FB * 4) as usize, seed);
    // SAFETY (whole body): a context is current; `image` holds the level
    // (tight rows: UNPACK_ALIGNMENT 4 divides 4 * FB).
    unsafe {
        let mut tex = 0;
        textures::glGenTextures(1, &mut tex);
        textures::glBindTexture(glow::TEXTURE_2D, tex);
        textures::glTexImage2D(
            glow::TEXTURE_2D,
            0,
            glow::RGBA8 as i32,
            FB,
            FB,
            0,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            image.as_ptr() as *const c_void,
        );
        let mut fbo = 0;
        framebuffers::glGenFramebuffers(1, &mut fbo);
        framebuffers::glBindFramebuffer(glow::FRAMEBUFFER, fbo);
        framebuffers::glFramebufferTexture2D(
            glow::FRAMEBUFFER,
            glow::COLOR_ATTACHMENT0,
            glow::TEXTURE_2D,
            tex,
            0,
        );
        no_gl_error("pattern framebuffer");
        assert_eq!(
            framebuffers::glCheckFramebufferStatus(glow::FRAMEBUFFER),
            glow::FRAMEBUFFER_COMPLETE
        );
        (fbo, tex, image)
    }
}

unsafe fn delete_pattern_fbo(fbo: u32, tex: u32) {
    // SAFETY: a context is current.
    unsafe {
        framebuffers::glBindFramebuffer(glow::FRAMEBUFFER, 0);
        framebuffers::glDeleteFramebuffers(1, &fbo);
        textures::glDeleteTextures(1, &tex);
    }
}

/// The pack state of a case (the rest at GL's defaults).
#[derive(Debug, Clone, Copy)]
struct Pack {
    row_length: i32,
    skip_pixels: i32,
    skip_rows: i32,
    alignment: i32,
}

const TIGHT: Pack = Pack {
    row_length: 0,
    skip_pixels: 0,
    skip_rows: 0,
    alignment: 4,
};

unsafe fn set_pack(p: Pack) {
    // SAFETY: a context is current.
    unsafe {
        state::glPixelStorei(glow::PACK_ROW_LENGTH, p.row_length);
        state::glPixelStorei(glow::PACK_SKIP_PIXELS, p.skip_pixels);
        state::glPixelStorei(glow::PACK_SKIP_ROWS, p.skip_rows);
        state::glPixelStorei(glow::PACK_ALIGNMENT, p.alignment);
    }
    no_gl_error("glPixelStorei");
}

/// One read case: a rectangle, a (format, type) of `bpp` bytes whose
/// pixel is the first `bpp` bytes of the RGBA8 one, and a pack state.
#[derive(Debug, Clone, Copy)]
struct Case {
    x: i32,
    y: i32,
    w: i32,
    h: i32,
    format: u32,
    bpp: usize,
    pack: Pack,
}

impl Case {
    fn stride(&self) -> usize {
        let px = if self.pack.row_length > 0 {
            self.pack.row_length
        } else {
            self.w
        } as usize;
        let a = self.pack.alignment as usize;
        (px * self.bpp).div_ceil(a) * a
    }

    /// Bytes the image touches under the pack state.
    fn size(&self) -> usize {
        let p = &self.pack;
        p.skip_rows as usize * self.stride()
            + p.skip_pixels as usize * self.bpp
            + (self.h as usize - 1) * self.stride()
            + self.w as usize * self.bpp
    }

    /// `before` with the pixels of the rectangle that lie inside the
    /// framebuffer (`fb`, FB x FB RGBA8, bottom row first) written where
    /// the pack state puts them, and nothing else changed.
    fn expect(&self, before: &[u8], fb: &[u8]) -> Vec<u8> {
        let mut out = before.to_vec();
        let p = &self.pack;
        let base = p.skip_rows as usize * self.stride() + p.skip_pixels as usize * self.bpp;
        for j in 0..self.h {
            for i in 0..self.w {
                let (fx, fy) = (self.x + i, self.y + j);
                if !(0..FB).contains(&fx) || !(0..FB).contains(&fy) {
                    continue;
                }
                let src = (fy * FB + fx) as usize * 4;
                let at = base + j as usize * self.stride() + i as usize * self.bpp;
                out[at..at + self.bpp].copy_from_slice(&fb[src..src + self.bpp]);
            }
        }
        out
    }
}

const CASES: &[Case] = &[
    // Wholly inside (the direct path).
    Case {
        x: 0,
        y: 0,
        w: FB,
        h: FB,
        format: glow::RGBA,
        bpp: 4,
        pack: TIGHT,
    },
    // Half outside on the left and at the top.
    Case {
        x: -3,
        y: 5,
        w: 6,
        h: 6,
        format: glow::RGBA,
        bpp: 4,
        pack: TIGHT,
    },
    // Outside on every side, under a pack state with gaps.
    Case {
        x: -2,
        y: -3,
        w: 13,
        h: 12,
        format: glow::RGBA,
        bpp: 4,
        pack: Pack {
            row_length: 15,
            skip_pixels: 1,
            skip_rows: 2,
            alignment: 8,
        },
    },
    // Taller than the framebuffer only: the part read is still whole rows.
    Case {
        x: 0,
        y: -2,
        w: FB,
        h: FB + 5,
        format: glow::RGBA,
        bpp: 4,
        pack: TIGHT,
    },
    // Three-byte pixels (a conversion) with padded rows, right and bottom
    // edges outside.
    Case {
        x: 5,
        y: -1,
        w: 5,
        h: 4,
        format: glow::RGB,
        bpp: 3,
        pack: TIGHT,
    },
    // Wholly outside: nothing read, nothing written, no error.
    Case {
        x: FB,
        y: 0,
        w: 4,
        h: 4,
        format: glow::RGBA,
        bpp: 4,
        pack: TIGHT,
    },
    Case {
        x: -4,
        y: -100,
        w: 4,
        h: 100,
        format: glow::RGBA,
        bpp: 4,
        pack: TIGHT,
    },
];

/// Clipped reads into client memory: the inside pixels land under the pack
/// state, the sentinel bytes around them stay.
unsafe fn clipped_client_memory() {
    // SAFETY (whole body): a context is current; every buffer holds its
    // case's image under the pack state (`Case::size`).
    unsafe {
        let (fbo, tex, image) = pattern_fbo(11);
        for (n, c) in CASES.iter().enumerate() {
            set_pack(c.pack);
            let before = pattern(c.size(), 0x5000 + n as u32);
            let mut buf = before.clone();
            read(c.x, c.y, c.w, c.h, c.format, glow::UNSIGNED_BYTE, &mut buf);
            no_gl_error(&format!("client {c:?}"));
            assert_same(&format!("client {c:?}"), &buf, &c.expect(&before, &image));
        }
        set_pack(TIGHT);
        delete_pattern_fbo(fbo, tex);
    }
}

/// The same reads into a pixel pack buffer at an offset: the inside
/// pixels land under the pack state, every other byte of the buffer keeps
/// its contents. A buffer too small for the whole rectangle is
/// INVALID_OPERATION even when the inside would fit.
unsafe fn clipped_pack_buffer() {
    const OFFSET: usize = 12;
    // SAFETY (whole body): a context is current; pointers cover the sizes
    // passed with them.
    unsafe {
        let (fbo, tex, image) = pattern_fbo(12);
        let mut pbo = 0;
        buffers::glGenBuffers(1, &mut pbo);
        buffers::glBindBuffer(glow::PIXEL_PACK_BUFFER, pbo);
        for (n, c) in CASES.iter().enumerate() {
            set_pack(c.pack);
            let size = OFFSET + c.size() + 7;
            let before = pattern(size, 0x6000 + n as u32);
            pack_buffer_data(&before);
            pixels::glReadPixels(
                c.x,
                c.y,
                c.w,
                c.h,
                c.format,
                glow::UNSIGNED_BYTE,
                OFFSET as *mut c_void,
            );
            no_gl_error(&format!("pack buffer {c:?}"));
            let got = pack_buffer_contents(size);
            let mut want = before[..OFFSET].to_vec();
            want.extend(c.expect(&before[OFFSET..OFFSET + c.size()], &image));
            want.extend_from_slice(&before[OFFSET + c.size()..]);
            assert_same(&format!("pack buffer {c:?}"), &got, &want);
        }
        set_pack(TIGHT);

        // GL packs the whole rectangle (undefined values outside), so the
        // whole rectangle must fit: a buffer holding only the inside is
        // refused, and keeps its contents.
        let c = CASES[1];
        let inside = 3 * 3 * 4;
        let before = pattern(c.size() - 1, 0x6100);
        assert!(before.len() > inside);
        pack_buffer_data(&before);
        pixels::glReadPixels(
            c.x,
            c.y,
            c.w,
            c.h,
            c.format,
            glow::UNSIGNED_BYTE,
            std::ptr::null_mut(),
        );
        expect_error("pack buffer too small", glow::INVALID_OPERATION);
        // A huge rectangle with a small buffer: the same error, not
        // GL_OUT_OF_MEMORY.
        pixels::glReadPixels(
            -(1 << 30),
            0,
            i32::MAX,
            1,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            std::ptr::null_mut(),
        );
        expect_error("pack buffer, huge rectangle", glow::INVALID_OPERATION);
        let got = pack_buffer_contents(before.len());
        assert_same("refused pack buffer", &got, &before);

        buffers::glBindBuffer(glow::PIXEL_PACK_BUFFER, 0);
        buffers::glDeleteBuffers(1, &pbo);
        delete_pattern_fbo(fbo, tex);
    }
}

/// A rectangle far wider than the framebuffer, in real client memory: one
/// row of 2^20 pixels (4 MiB), and one of 2^31 - 1 pixels (8 GiB of
/// address space, reserved but never touched but for the inside pixels).
/// Only the inside pixels are read and written; no GL_OUT_OF_MEMORY.
unsafe fn huge_rectangles() {
    // SAFETY (whole body): a context is current; each buffer holds the
    // whole row the read describes.
    unsafe {
        let (fbo, tex, image) = pattern_fbo(13);
        set_pack(TIGHT);
        let row = 2usize;
        let inside = &image[row * FB as usize * 4..(row + 1) * FB as usize * 4];

        let w = 1i32 << 20;
        let x = -(1i32 << 19);
        let mut buf = vec![SENTINEL; w as usize * 4];
        read(
            x,
            row as i32,
            w,
            1,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            &mut buf,
        );
        no_gl_error("2^20-pixel row");
        let at = (1usize << 19) * 4;
        assert_same(
            "2^20-pixel row: inside",
            &buf[at..at + inside.len()],
            inside,
        );
        assert!(
            buf[..at].iter().all(|&b| b == SENTINEL),
            "left of the inside"
        );
        assert!(
            buf[at + inside.len()..].iter().all(|&b| b == SENTINEL),
            "right of the inside"
        );
        drop(buf);

        // x = -2^30, width 2^31 - 1: 8 GiB of row, reserved without
        // backing (MAP_NORESERVE); untouched pages read as zero.
        let len = i32::MAX as usize * 4;
        let map = libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        );
        if map == libc::MAP_FAILED {
            eprintln!("huge_rectangles: cannot reserve 8 GiB of address space; skipped");
        } else {
            let base = map as *mut u8;
            pixels::glReadPixels(
                -(1 << 30),
                row as i32,
                i32::MAX,
                1,
                glow::RGBA,
                glow::UNSIGNED_BYTE,
                map,
            );
            no_gl_error("2^31 - 1 pixel row");
            let at = (1usize << 30) * 4;
            let got = std::slice::from_raw_parts(base.add(at), inside.len());
            assert_same("2^31 - 1 pixel row: inside", got, inside);
            // The bytes around it and the row's two ends are untouched.
            let around = |o: usize| *base.add(o);
            for o in [0, 4096, at - 1, at + inside.len(), len - 1] {
                assert_eq!(around(o), 0, "byte {o} written");
            }
            libc::munmap(map, len);
        }
        delete_pattern_fbo(fbo, tex);
    }
}

/// One test: the process has one connection and one current context.
#[test]
fn read_pixels_errors_and_clipping() {
    // SAFETY: EGL/GL calls on this thread with a current context, with
    // pointers that cover what each call reads or writes.
    unsafe {
        make_context();
        missing_buffers();
        integer_mismatch();
        multisample_and_order();
        clipped_client_memory();
        clipped_pack_buffer();
        huge_rectangles();
        state::glFinish();
        no_gl_error("end");
    }
}

/// Respecify the bound PIXEL_PACK_BUFFER with `data`.
unsafe fn pack_buffer_data(data: &[u8]) {
    // SAFETY: a context is current; `data` is readable for its length.
    unsafe {
        buffers::glBufferData(
            glow::PIXEL_PACK_BUFFER,
            data.len() as isize,
            data.as_ptr() as *const c_void,
            glow::STREAM_READ,
        )
    };
}

/// The first `len` bytes of the bound PIXEL_PACK_BUFFER.
unsafe fn pack_buffer_contents(len: usize) -> Vec<u8> {
    let mut got = vec![0u8; len];
    // SAFETY: a context is current; `got` is writable for `len` bytes.
    unsafe {
        buffers::glGetBufferSubData(
            glow::PIXEL_PACK_BUFFER,
            0,
            len as isize,
            got.as_mut_ptr() as *mut c_void,
        )
    };
    no_gl_error("glGetBufferSubData");
    got
}
