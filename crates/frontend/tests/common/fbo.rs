//! Framebuffer attachments: depth levels, depth/stencil image pairing and
//! layered colour clears, texture error rules, depth read-back
//! (`framebuffer_levels*.rs`).

use mobilegl::gl::{
    copy_texture, dsa, fb_params, framebuffers as fb, get, multisample, pixels, queries, state,
    textures,
};

use super::{expect_error, no_gl_error};

/// A mipmapped 2D texture of `levels` levels, level 0 `size` square.
unsafe fn mip_texture(internal: u32, format: u32, ty: u32, size: i32, levels: i32) -> u32 {
    let mut tex = 0;
    // SAFETY (whole body): a context is current; no pixel data is read.
    unsafe {
        textures::glGenTextures(1, &mut tex);
        textures::glBindTexture(glow::TEXTURE_2D, tex);
        for l in 0..levels {
            let d = (size >> l).max(1);
            textures::glTexImage2D(
                glow::TEXTURE_2D,
                l,
                internal as i32,
                d,
                d,
                0,
                format,
                ty,
                std::ptr::null(),
            );
        }
    }
    no_gl_error("mip_texture");
    tex
}

/// Depth cleared into each level of a depth texture reads back from that
/// level (the read framebuffer's depth level travels to the backend).
pub unsafe fn check_depth_levels() {
    const LEVELS: i32 = 3;
    // SAFETY (whole body): a context is current; the names are ours and
    // `d` holds the one float each read writes.
    unsafe {
        let color = mip_texture(glow::RGBA8, glow::RGBA, glow::UNSIGNED_BYTE, 4, LEVELS);
        let depth = mip_texture(
            glow::DEPTH_COMPONENT24,
            glow::DEPTH_COMPONENT,
            glow::UNSIGNED_INT,
            4,
            LEVELS,
        );
        let mut fbo = 0;
        fb::glGenFramebuffers(1, &mut fbo);
        fb::glBindFramebuffer(glow::FRAMEBUFFER, fbo);
        let attach = |l: i32| {
            fb::glFramebufferTexture2D(
                glow::FRAMEBUFFER,
                glow::COLOR_ATTACHMENT0,
                glow::TEXTURE_2D,
                color,
                l,
            );
            fb::glFramebufferTexture2D(
                glow::FRAMEBUFFER,
                glow::DEPTH_ATTACHMENT,
                glow::TEXTURE_2D,
                depth,
                l,
            );
            assert_eq!(
                fb::glCheckFramebufferStatus(glow::FRAMEBUFFER),
                glow::FRAMEBUFFER_COMPLETE,
                "level {l}"
            );
        };
        let value = |l: i32| (l + 1) as f32 / LEVELS as f32;
        for l in 0..LEVELS {
            attach(l);
            state::glClearDepth(f64::from(value(l)));
            state::glClear(glow::DEPTH_BUFFER_BIT);
        }
        for l in 0..LEVELS {
            attach(l);
            let mut d = -1.0f32;
            pixels::glReadPixels(
                0,
                0,
                1,
                1,
                glow::DEPTH_COMPONENT,
                glow::FLOAT,
                (&mut d as *mut f32).cast(),
            );
            no_gl_error("depth read");
            assert!(
                (d - value(l)).abs() < 1e-3,
                "level {l}: depth {d}, want {}",
                value(l)
            );
        }
    }
}

/// Depth and stencil attachments of two different images are refused as
/// FRAMEBUFFER_UNSUPPORTED; one packed image on both points is complete.
pub unsafe fn check_depth_stencil_pairing() {
    // SAFETY (whole body): a context is current; the names are ours.
    unsafe {
        let color = mip_texture(glow::RGBA8, glow::RGBA, glow::UNSIGNED_BYTE, 4, 1);
        let ds = |levels| {
            mip_texture(
                glow::DEPTH24_STENCIL8,
                glow::DEPTH_STENCIL,
                glow::UNSIGNED_INT_24_8,
                4,
                levels,
            )
        };
        let (a, b) = (ds(2), ds(1));
        let mut fbo = 0;
        fb::glGenFramebuffers(1, &mut fbo);
        fb::glBindFramebuffer(glow::FRAMEBUFFER, fbo);
        let t2d = glow::TEXTURE_2D;
        let f = glow::FRAMEBUFFER;
        fb::glFramebufferTexture2D(f, glow::COLOR_ATTACHMENT0, t2d, color, 0);
        fb::glFramebufferTexture2D(f, glow::DEPTH_ATTACHMENT, t2d, a, 0);
        fb::glFramebufferTexture2D(f, glow::STENCIL_ATTACHMENT, t2d, b, 0);
        assert_eq!(
            fb::glCheckFramebufferStatus(f),
            glow::FRAMEBUFFER_UNSUPPORTED
        );
        fb::glFramebufferTexture2D(f, glow::STENCIL_ATTACHMENT, t2d, a, 0);
        assert_eq!(fb::glCheckFramebufferStatus(f), glow::FRAMEBUFFER_COMPLETE);
        // Same texture, different levels: two images.
        fb::glFramebufferTexture2D(f, glow::COLOR_ATTACHMENT0, t2d, 0, 0);
        fb::glFramebufferTexture2D(f, glow::STENCIL_ATTACHMENT, t2d, a, 1);
        assert_eq!(
            fb::glCheckFramebufferStatus(f),
            glow::FRAMEBUFFER_UNSUPPORTED
        );
        fb::glFramebufferTexture2D(f, glow::DEPTH_STENCIL_ATTACHMENT, t2d, a, 1);
        assert_eq!(fb::glCheckFramebufferStatus(f), glow::FRAMEBUFFER_COMPLETE);
        no_gl_error("pairing");
    }
}

/// glClear of a layered attachment (glFramebufferTexture on a 2D array)
/// clears every layer.
pub unsafe fn check_layered_clear() {
    const LAYERS: i32 = 3;
    // SAFETY (whole body): a context is current; the names are ours and
    // `px` holds the one RGBA8 pixel each read writes.
    unsafe {
        let mut tex = 0;
        textures::glGenTextures(1, &mut tex);
        textures::glBindTexture(glow::TEXTURE_2D_ARRAY, tex);
        textures::glTexImage3D(
            glow::TEXTURE_2D_ARRAY,
            0,
            glow::RGBA8 as i32,
            4,
            4,
            LAYERS,
            0,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            std::ptr::null(),
        );
        let (mut draw, mut read) = (0, 0);
        fb::glGenFramebuffers(1, &mut draw);
        fb::glGenFramebuffers(1, &mut read);
        fb::glBindFramebuffer(glow::DRAW_FRAMEBUFFER, draw);
        fb::glFramebufferTexture(glow::DRAW_FRAMEBUFFER, glow::COLOR_ATTACHMENT0, tex, 0);
        assert_eq!(
            fb::glCheckFramebufferStatus(glow::DRAW_FRAMEBUFFER),
            glow::FRAMEBUFFER_COMPLETE
        );
        state::glClearColor(0.0, 1.0, 0.0, 1.0);
        state::glClear(glow::COLOR_BUFFER_BIT);
        fb::glBindFramebuffer(glow::READ_FRAMEBUFFER, read);
        for layer in 0..LAYERS {
            fb::glFramebufferTextureLayer(
                glow::READ_FRAMEBUFFER,
                glow::COLOR_ATTACHMENT0,
                tex,
                0,
                layer,
            );
            let mut px = [0u8; 4];
            pixels::glReadPixels(
                1,
                1,
                1,
                1,
                glow::RGBA,
                glow::UNSIGNED_BYTE,
                px.as_mut_ptr().cast(),
            );
            assert_eq!(px, [0, 255, 0, 255], "layer {layer}");
        }
        no_gl_error("layered clear");
    }
}

/// A level above 0 of a mipmapped 1D array texture renders (GLES stores it
/// as a 2D array of height 1).
pub unsafe fn check_1d_array_level() {
    // SAFETY (whole body): a context is current; the names are ours and
    // `px` holds the one RGBA8 pixel the read writes.
    unsafe {
        let mut tex = 0;
        textures::glGenTextures(1, &mut tex);
        textures::glBindTexture(glow::TEXTURE_1D_ARRAY, tex);
        for l in 0..4 {
            textures::glTexImage2D(
                glow::TEXTURE_1D_ARRAY,
                l,
                glow::RGBA8 as i32,
                8 >> l,
                2,
                0,
                glow::RGBA,
                glow::UNSIGNED_BYTE,
                std::ptr::null(),
            );
        }
        let mut fbo = 0;
        fb::glGenFramebuffers(1, &mut fbo);
        fb::glBindFramebuffer(glow::FRAMEBUFFER, fbo);
        fb::glFramebufferTextureLayer(glow::FRAMEBUFFER, glow::COLOR_ATTACHMENT0, tex, 1, 1);
        assert_eq!(
            fb::glCheckFramebufferStatus(glow::FRAMEBUFFER),
            glow::FRAMEBUFFER_COMPLETE
        );
        state::glClearColor(0.0, 0.0, 1.0, 1.0);
        state::glClear(glow::COLOR_BUFFER_BIT);
        no_gl_error("1D array level clear");
        let mut px = [0u8; 4];
        pixels::glReadPixels(
            3,
            0,
            1,
            1,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            px.as_mut_ptr().cast(),
        );
        no_gl_error("1D array level read");
        assert_eq!(px, [0, 0, 255, 255]);
    }
}

/// Error rules of texture and framebuffer entry points: cube map array
/// dimensions, sized formats for multisample storage, the multisample
/// proxy target, BACK in glDrawBuffers, and RGBA_INTEGER_MODE_EXT.
pub unsafe fn check_error_rules() {
    // SAFETY (whole body): a context is current; the names are ours; null
    // pixel pointers upload nothing; `mode` holds one boolean.
    unsafe {
        let mut tex = [0; 3];
        textures::glGenTextures(3, tex.as_mut_ptr());
        textures::glBindTexture(glow::TEXTURE_CUBE_MAP_ARRAY, tex[0]);
        let cube_array = |w: i32, h: i32, d: i32| {
            textures::glTexImage3D(
                glow::TEXTURE_CUBE_MAP_ARRAY,
                0,
                glow::RGBA8 as i32,
                w,
                h,
                d,
                0,
                glow::RGBA,
                glow::UNSIGNED_BYTE,
                std::ptr::null(),
            )
        };
        cube_array(4, 4, 5);
        expect_error("cube map array depth 5", glow::INVALID_VALUE);
        cube_array(4, 2, 6);
        expect_error("cube map array 4x2", glow::INVALID_VALUE);
        cube_array(4, 4, 12);
        no_gl_error("cube map array 4x4x12");

        textures::glBindTexture(glow::TEXTURE_2D_MULTISAMPLE, tex[1]);
        multisample::glTexStorage2DMultisample(
            glow::TEXTURE_2D_MULTISAMPLE,
            1,
            glow::RGBA,
            4,
            4,
            1,
        );
        expect_error("unsized multisample storage", glow::INVALID_ENUM);
        multisample::glTexImage2DMultisample(0x9101, 1, glow::RGBA8, 4, 4, 1);
        no_gl_error("multisample proxy");

        fb::glBindFramebuffer(glow::FRAMEBUFFER, 0);
        // BACK alone names the default framebuffer's buffer from GL 4.x
        // on; GL 3.x lists it with the names of several buffers.
        let mut major = 0;
        get::glGetIntegerv(glow::MAJOR_VERSION, &mut major);
        fb::glDrawBuffers(1, [glow::BACK].as_ptr());
        if major >= 4 {
            no_gl_error("BACK on the default framebuffer");
            fb::glDrawBuffers(2, [glow::BACK, glow::NONE].as_ptr());
            expect_error("BACK with n = 2", glow::INVALID_OPERATION);
        } else {
            expect_error("BACK in a 3.x context", glow::INVALID_ENUM);
        }

        textures::glBindTexture(glow::TEXTURE_2D, tex[2]);
        textures::glTexImage2D(
            glow::TEXTURE_2D,
            0,
            glow::RGBA8UI as i32,
            4,
            4,
            0,
            glow::RGBA_INTEGER,
            glow::UNSIGNED_BYTE,
            std::ptr::null(),
        );
        let mut fbo = 0;
        fb::glGenFramebuffers(1, &mut fbo);
        fb::glBindFramebuffer(glow::FRAMEBUFFER, fbo);
        fb::glDrawBuffers(1, [glow::BACK].as_ptr());
        expect_error("BACK on a framebuffer object", glow::INVALID_ENUM);
        let mut mode = 0u8;
        get::glGetBooleanv(0x8D9E, &mut mode);
        assert_eq!(mode, 0, "no integer attachment yet");
        fb::glFramebufferTexture2D(
            glow::FRAMEBUFFER,
            glow::COLOR_ATTACHMENT0,
            glow::TEXTURE_2D,
            tex[2],
            0,
        );
        get::glGetBooleanv(0x8D9E, &mut mode);
        assert_eq!(mode, 1, "RGBA_INTEGER_MODE_EXT with an RGBA8UI draw buffer");
        no_gl_error("error rules");
    }
}

/// Texture parameter rules (rectangle textures, vector-only parameters,
/// DSA sampler state on a multisample texture) and the default
/// framebuffer's DOUBLEBUFFER agreeing between its two queries.
pub unsafe fn check_parameter_rules() {
    // SAFETY (whole body): a context is current; the names are ours; the
    // out pointers hold one value each.
    unsafe {
        let mut rect = 0;
        dsa::glCreateTextures(glow::TEXTURE_RECTANGLE, 1, &mut rect);
        dsa::glTextureParameteri(rect, glow::TEXTURE_WRAP_S, glow::REPEAT as i32);
        expect_error("rectangle REPEAT", glow::INVALID_ENUM);
        dsa::glTextureParameteri(rect, glow::TEXTURE_WRAP_T, glow::CLAMP_TO_EDGE as i32);
        no_gl_error("rectangle CLAMP_TO_EDGE");
        dsa::glTextureParameteri(
            rect,
            glow::TEXTURE_MIN_FILTER,
            glow::LINEAR_MIPMAP_LINEAR as i32,
        );
        expect_error("rectangle mipmap filter", glow::INVALID_ENUM);
        dsa::glTextureParameteri(rect, glow::TEXTURE_BASE_LEVEL, 1);
        expect_error("rectangle base level 1", glow::INVALID_OPERATION);
        dsa::glTextureParameteri(rect, glow::TEXTURE_BORDER_COLOR, 0);
        expect_error("scalar BORDER_COLOR", glow::INVALID_ENUM);

        let mut ms = 0;
        dsa::glCreateTextures(glow::TEXTURE_2D_MULTISAMPLE, 1, &mut ms);
        dsa::glTextureParameteri(ms, glow::TEXTURE_MIN_FILTER, glow::NEAREST as i32);
        expect_error("DSA sampler state, multisample", glow::INVALID_OPERATION);
        textures::glBindTexture(glow::TEXTURE_2D_MULTISAMPLE, ms);
        textures::glTexParameteri(
            glow::TEXTURE_2D_MULTISAMPLE,
            glow::TEXTURE_MIN_FILTER,
            glow::NEAREST as i32,
        );
        expect_error("sampler state, multisample", glow::INVALID_ENUM);

        fb::glBindFramebuffer(glow::FRAMEBUFFER, 0);
        let mut param = -1;
        fb_params::glGetFramebufferParameteriv(
            glow::DRAW_FRAMEBUFFER,
            glow::DOUBLEBUFFER,
            &mut param,
        );
        let mut flag = 2u8;
        get::glGetBooleanv(glow::DOUBLEBUFFER, &mut flag);
        no_gl_error("DOUBLEBUFFER queries");
        assert_eq!(param, i32::from(flag), "DOUBLEBUFFER: two answers");
    }
}

/// glGetTexImage of a depth texture reads what was rendered into it (a
/// GLES driver reads no depth texture directly: it is read as the read
/// surface's depth buffer).
pub unsafe fn check_depth_get_tex_image() {
    // SAFETY (whole body): a context is current; the names are ours and
    // `out` holds the 16 floats the read writes.
    unsafe {
        let depth = mip_texture(
            glow::DEPTH_COMPONENT24,
            glow::DEPTH_COMPONENT,
            glow::UNSIGNED_INT,
            4,
            2,
        );
        let mut fbo = 0;
        fb::glGenFramebuffers(1, &mut fbo);
        fb::glBindFramebuffer(glow::FRAMEBUFFER, fbo);
        fb::glFramebufferTexture2D(
            glow::FRAMEBUFFER,
            glow::DEPTH_ATTACHMENT,
            glow::TEXTURE_2D,
            depth,
            1,
        );
        state::glClearDepth(0.25);
        state::glClear(glow::DEPTH_BUFFER_BIT);
        no_gl_error("depth clear");
        textures::glBindTexture(glow::TEXTURE_2D, depth);
        let mut out = [-1.0f32; 4];
        queries::glGetTexImage(
            glow::TEXTURE_2D,
            1,
            glow::DEPTH_COMPONENT,
            glow::FLOAT,
            out.as_mut_ptr().cast(),
        );
        no_gl_error("glGetTexImage depth");
        for d in out {
            assert!((d - 0.25).abs() < 1e-3, "depth {d}, want 0.25");
        }
    }
}

/// A 16x16 framebuffer whose depth and stencil are one DEPTH24_STENCIL8
/// renderbuffer (bound for drawing and reading); its name.
unsafe fn depth_stencil_fbo() -> u32 {
    // SAFETY: a context is current; the names are ours.
    unsafe {
        let mut rb = 0;
        fb::glGenRenderbuffers(1, &mut rb);
        fb::glBindRenderbuffer(glow::RENDERBUFFER, rb);
        fb::glRenderbufferStorage(glow::RENDERBUFFER, glow::DEPTH24_STENCIL8, 16, 16);
        let mut f = 0;
        fb::glGenFramebuffers(1, &mut f);
        fb::glBindFramebuffer(glow::FRAMEBUFFER, f);
        for att in [glow::DEPTH_ATTACHMENT, glow::STENCIL_ATTACHMENT] {
            fb::glFramebufferRenderbuffer(glow::FRAMEBUFFER, att, glow::RENDERBUFFER, rb);
        }
        f
    }
}

/// GL 4.6 §18.3.1: a depth-only blit between depth/stencil images leaves
/// the destination's stencil alone (lavapipe zeroes it without the Vulkan
/// backend's workaround).
pub unsafe fn check_depth_only_blit_keeps_stencil() {
    // SAFETY (whole body): a context is current; the names are ours and
    // every read writes one value into the buffer given.
    unsafe {
        let src = depth_stencil_fbo();
        state::glClearDepth(0.5);
        state::glClear(glow::DEPTH_BUFFER_BIT);
        let dst = depth_stencil_fbo();
        state::glClearDepth(0.0);
        state::glClearStencil(0xfe);
        state::glClear(glow::DEPTH_BUFFER_BIT | glow::STENCIL_BUFFER_BIT);
        fb::glBindFramebuffer(glow::READ_FRAMEBUFFER, src);
        fb::glBlitFramebuffer(
            8,
            8,
            16,
            16,
            0,
            0,
            8,
            8,
            glow::DEPTH_BUFFER_BIT,
            glow::NEAREST,
        );
        no_gl_error("depth-only blit");
        fb::glBindFramebuffer(glow::READ_FRAMEBUFFER, dst);
        for (x, y, depth) in [(1, 1, 0.5f32), (12, 12, 0.0)] {
            let mut s = [0u8; 4];
            pixels::glReadPixels(
                x,
                y,
                1,
                1,
                glow::STENCIL_INDEX,
                glow::UNSIGNED_BYTE,
                s.as_mut_ptr().cast(),
            );
            assert_eq!(s[0], 0xfe, "stencil at ({x}, {y})");
            let mut d = [0f32; 1];
            pixels::glReadPixels(
                x,
                y,
                1,
                1,
                glow::DEPTH_COMPONENT,
                glow::FLOAT,
                d.as_mut_ptr().cast(),
            );
            assert!((d[0] - depth).abs() < 1e-4, "depth at ({x}, {y}): {}", d[0]);
        }
        no_gl_error("read-back");
    }
}

/// The stencil-only twin of `check_depth_only_blit_keeps_stencil`.
pub unsafe fn check_stencil_only_blit_keeps_depth() {
    // SAFETY (whole body): a context is current; the names are ours and
    // every read writes one value into the buffer given.
    unsafe {
        let src = depth_stencil_fbo();
        state::glClearDepth(0.5);
        state::glClearStencil(0x12);
        state::glClear(glow::DEPTH_BUFFER_BIT | glow::STENCIL_BUFFER_BIT);
        let dst = depth_stencil_fbo();
        state::glClearDepth(0.25);
        state::glClearStencil(0xfe);
        state::glClear(glow::DEPTH_BUFFER_BIT | glow::STENCIL_BUFFER_BIT);
        fb::glBindFramebuffer(glow::READ_FRAMEBUFFER, src);
        fb::glBlitFramebuffer(
            8,
            8,
            16,
            16,
            0,
            0,
            8,
            8,
            glow::STENCIL_BUFFER_BIT,
            glow::NEAREST,
        );
        no_gl_error("stencil-only blit");
        fb::glBindFramebuffer(glow::READ_FRAMEBUFFER, dst);
        for (x, y, stencil) in [(1, 1, 0x12u8), (12, 12, 0xfe)] {
            let mut s = [0u8; 4];
            pixels::glReadPixels(
                x,
                y,
                1,
                1,
                glow::STENCIL_INDEX,
                glow::UNSIGNED_BYTE,
                s.as_mut_ptr().cast(),
            );
            assert_eq!(s[0], stencil, "stencil at ({x}, {y})");
            let mut d = [0f32; 1];
            pixels::glReadPixels(
                x,
                y,
                1,
                1,
                glow::DEPTH_COMPONENT,
                glow::FLOAT,
                d.as_mut_ptr().cast(),
            );
            assert!((d[0] - 0.25).abs() < 1e-4, "depth at ({x}, {y}): {}", d[0]);
        }
        no_gl_error("read-back");
    }
}

/// Depth copies between depth formats (a blit cannot convert them) and
/// into an array layer take the depth values as they are.
pub unsafe fn check_depth_copies() {
    // SAFETY: GL calls on this thread with a current context; every
    // pointer covers what the call reads or writes.
    unsafe {
        // Source: a 4x4 DEPTH24_STENCIL8 framebuffer cleared to 0.25 with
        // the left half 0.75.
        let mut rb = 0;
        fb::glGenRenderbuffers(1, &mut rb);
        fb::glBindRenderbuffer(glow::RENDERBUFFER, rb);
        fb::glRenderbufferStorage(glow::RENDERBUFFER, glow::DEPTH24_STENCIL8, 4, 4);
        let mut f = 0;
        fb::glGenFramebuffers(1, &mut f);
        fb::glBindFramebuffer(glow::FRAMEBUFFER, f);
        fb::glFramebufferRenderbuffer(
            glow::FRAMEBUFFER,
            glow::DEPTH_STENCIL_ATTACHMENT,
            glow::RENDERBUFFER,
            rb,
        );
        state::glClearDepth(0.25);
        state::glClear(glow::DEPTH_BUFFER_BIT);
        state::glEnable(glow::SCISSOR_TEST);
        state::glScissor(0, 0, 2, 4);
        state::glClearDepth(0.75);
        state::glClear(glow::DEPTH_BUFFER_BIT);
        no_gl_error("source");

        let depths = |target: u32, n: usize| {
            let mut out = vec![-1.0f32; n];
            queries::glGetTexImage(
                target,
                0,
                glow::DEPTH_COMPONENT,
                glow::FLOAT,
                out.as_mut_ptr().cast(),
            );
            no_gl_error("glGetTexImage(DEPTH_COMPONENT)");
            out
        };
        let near = |got: &[f32], want: &[f32]| {
            assert!(
                got.iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-3),
                "{got:?} vs {want:?}"
            );
        };
        for internal in [
            glow::DEPTH_COMPONENT16,
            glow::DEPTH_COMPONENT32F,
            glow::DEPTH32F_STENCIL8,
        ] {
            let mut t = 0;
            textures::glGenTextures(1, &mut t);
            textures::glBindTexture(glow::TEXTURE_2D, t);
            copy_texture::glCopyTexImage2D(glow::TEXTURE_2D, 0, internal, 1, 0, 2, 1, 0);
            no_gl_error("glCopyTexImage2D(depth)");
            near(&depths(glow::TEXTURE_2D, 2), &[0.75, 0.25]);
        }
        let mut a = 0;
        textures::glGenTextures(1, &mut a);
        textures::glBindTexture(glow::TEXTURE_2D_ARRAY, a);
        textures::glTexStorage3D(glow::TEXTURE_2D_ARRAY, 1, glow::DEPTH_COMPONENT32F, 2, 1, 2);
        copy_texture::glCopyTexSubImage3D(glow::TEXTURE_2D_ARRAY, 0, 0, 0, 1, 1, 0, 2, 1);
        no_gl_error("glCopyTexSubImage3D(depth layer)");
        let got = depths(glow::TEXTURE_2D_ARRAY, 4);
        near(&got[2..], &[0.75, 0.25]);
    }
}

/// GL_*_BITS answer the bound framebuffer object's attachments, not the
/// window surface's.
pub unsafe fn check_framebuffer_bits() {
    // SAFETY (whole body): a context is current; each query writes one
    // integer into `v`.
    unsafe {
        let mut rbs = [0u32; 2];
        fb::glGenRenderbuffers(2, rbs.as_mut_ptr());
        fb::glBindRenderbuffer(glow::RENDERBUFFER, rbs[0]);
        fb::glRenderbufferStorage(glow::RENDERBUFFER, glow::RG16F, 4, 4);
        fb::glBindRenderbuffer(glow::RENDERBUFFER, rbs[1]);
        fb::glRenderbufferStorage(glow::RENDERBUFFER, glow::DEPTH_COMPONENT16, 4, 4);
        let mut fbo = 0;
        fb::glGenFramebuffers(1, &mut fbo);
        fb::glBindFramebuffer(glow::FRAMEBUFFER, fbo);
        fb::glFramebufferRenderbuffer(
            glow::FRAMEBUFFER,
            glow::COLOR_ATTACHMENT0,
            glow::RENDERBUFFER,
            rbs[0],
        );
        fb::glFramebufferRenderbuffer(
            glow::FRAMEBUFFER,
            glow::DEPTH_ATTACHMENT,
            glow::RENDERBUFFER,
            rbs[1],
        );
        no_gl_error("framebuffer for the bits queries");
        for (pname, want) in [
            (glow::RED_BITS, 16),
            (glow::GREEN_BITS, 16),
            (glow::BLUE_BITS, 0),
            (glow::ALPHA_BITS, 0),
            (glow::DEPTH_BITS, 16),
            (glow::STENCIL_BITS, 0),
        ] {
            let mut v = -1;
            get::glGetIntegerv(pname, &mut v);
            assert_eq!(v, want, "pname {pname:#x}");
        }
        fb::glBindFramebuffer(glow::FRAMEBUFFER, 0);
        fb::glDeleteFramebuffers(1, &fbo);
        fb::glDeleteRenderbuffers(2, rbs.as_ptr());
    }
}

/// glBlitFramebuffer from one level of a texture into the next (a mipmap
/// made level by level): the read and draw framebuffers attach two levels
/// of one texture at once.
pub unsafe fn check_blit_between_levels() {
    // SAFETY (whole body): a context is current; `texels` and `out` are
    // locals the size of the images named.
    unsafe {
        let texels = [[200u8, 100, 50, 255]; 16];
        let tex = mip_texture(glow::RGBA8, glow::RGBA, glow::UNSIGNED_BYTE, 4, 3);
        textures::glTexSubImage2D(
            glow::TEXTURE_2D,
            0,
            0,
            0,
            4,
            4,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            texels.as_ptr().cast(),
        );
        let mut fbos = [0u32; 2];
        fb::glGenFramebuffers(2, fbos.as_mut_ptr());
        fb::glBindFramebuffer(glow::READ_FRAMEBUFFER, fbos[0]);
        fb::glBindFramebuffer(glow::DRAW_FRAMEBUFFER, fbos[1]);
        for level in 1..3 {
            fb::glFramebufferTexture2D(
                glow::READ_FRAMEBUFFER,
                glow::COLOR_ATTACHMENT0,
                glow::TEXTURE_2D,
                tex,
                level - 1,
            );
            fb::glFramebufferTexture2D(
                glow::DRAW_FRAMEBUFFER,
                glow::COLOR_ATTACHMENT0,
                glow::TEXTURE_2D,
                tex,
                level,
            );
            let (s, d) = (4 >> (level - 1), 4 >> level);
            fb::glBlitFramebuffer(
                0,
                0,
                s,
                s,
                0,
                0,
                d,
                d,
                glow::COLOR_BUFFER_BIT,
                glow::NEAREST,
            );
        }
        no_gl_error("blits between levels");
        fb::glBindFramebuffer(glow::FRAMEBUFFER, 0);
        for level in 1..3 {
            let mut out = [[0u8; 4]; 4];
            queries::glGetTexImage(
                glow::TEXTURE_2D,
                level,
                glow::RGBA,
                glow::UNSIGNED_BYTE,
                out.as_mut_ptr().cast(),
            );
            let n = (4usize >> level).pow(2);
            assert_eq!(&out[..n], &texels[..n], "level {level}");
        }
        fb::glDeleteFramebuffers(2, fbos.as_ptr());
        textures::glDeleteTextures(1, &tex);
    }
}
