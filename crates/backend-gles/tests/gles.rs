//! The backend on the real driver (Mesa llvmpipe here and on CI), driven
//! through the `mgpipe::Screen` / `mgpipe::Context` methods directly.
// Payloads are built with `..z()` everywhere so generated `_padN` fields
// never matter, even where a payload happens to have none today.
#![allow(clippy::needless_update)]

use backend_gles::GlesBackend;
use bytemuck::Zeroable;
use mgpipe::consts::*;
use mgpipe::{calls, Caps, Context, Handle, Screen};

#[path = "fixtures/spirv.rs"]
mod fixtures;
#[path = "fixtures/harness.rs"]
mod harness;

use harness::*;

// GL enums used by the tests.
const GL_RGB: u32 = 0x1907;
const GL_BGRA: u32 = 0x80E1;

fn clear_color(b: &mut GlesBackend, c: [f32; 4]) {
    b.clear(&calls::Clear {
        buffers: CLEAR_COLOR_ALL | CLEAR_DEPTH,
        color: c.map(f32::to_bits),
        depth: 1.0,
        ..z()
    });
}

fn read(b: &mut GlesBackend, x: i32, y: i32, w: u32, h: u32, format: u32, ty: u32) -> Vec<u8> {
    let mut reply = Vec::new();
    b.read_pixels(
        &calls::ReadPixels {
            x,
            y,
            width: w,
            height: h,
            format,
            r#type: ty,
        },
        &mut reply,
    );
    reply
}

fn pixel(b: &mut GlesBackend, x: i32, y: i32) -> [u8; 4] {
    let v = read(b, x, y, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE);
    [v[0], v[1], v[2], v[3]]
}

fn shader(b: &mut GlesBackend, cso: Handle, vs: &[u32], fs: &[u32], global_size: u32) {
    let mut words = [0u32; 6];
    words[STAGE_VERTEX] = vs.len() as u32;
    words[STAGE_FRAGMENT] = fs.len() as u32;
    let blob: Vec<u8> = vs.iter().chain(fs).flat_map(|w| w.to_le_bytes()).collect();
    b.create_shader(
        &calls::CreateShader {
            cso,
            stage_mask: (1 << STAGE_VERTEX) | (1 << STAGE_FRAGMENT),
            stage_words: words,
            global_binding: 0,
            global_size,
            ..z()
        },
        &blob,
    );
    b.bind_shader(&calls::BindShader { cso });
}

fn draw_arrays(b: &mut GlesBackend, count: u32) {
    b.draw(
        &calls::Draw {
            mode: GL_TRIANGLES,
            count,
            instance_count: 1,
            ..z()
        },
        &[],
    );
}

#[test]
fn clear_then_read_pixels() {
    let mut b = setup();
    clear_color(&mut b, [1.0, 0.5, 0.0, 1.0]);
    // 0.5 in an 8-bit channel is 127 or 128: GL leaves the rounding to the
    // driver (Mesa rounds up, NVIDIA down).
    let half = |v: u8| v == 127 || v == 128;
    let px = read(&mut b, 0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE);
    assert_eq!(px.len(), (W * H * 4) as usize);
    for c in px.chunks(4) {
        assert!(
            c[0] == 255 && half(c[1]) && c[2] == 0 && c[3] == 255,
            "{c:?}"
        );
    }
    let g = px[1];
    // Conversion paths: BGRA bytes and RGB floats are not directly readable on GLES.
    let bgra = read(&mut b, 2, 2, 2, 1, GL_BGRA, GL_UNSIGNED_BYTE);
    assert_eq!(bgra, vec![0, g, 255, 255, 0, g, 255, 255]);
    let rgbf = read(&mut b, 0, 0, 1, 1, GL_RGB, GL_FLOAT);
    let f: Vec<f32> = rgbf
        .chunks(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    assert_eq!(f.len(), 3);
    assert!(
        (f[0] - 1.0).abs() < 1e-6 && (f[1] - g as f32 / 255.0).abs() < 1e-6 && f[2] == 0.0,
        "{f:?}"
    );
    assert_no_gl_errors(&b);
}

#[test]
fn clear_honours_scissor_and_colour_mask() {
    let mut b = setup();
    clear_color(&mut b, [0.0, 0.0, 0.0, 1.0]);
    let mut rs: calls::CreateRenderState = z();
    rs.cso = Handle::new(3, 1);
    rs.color_write_mask = 0b1001; // red + alpha only
    rs.depth_write = 1;
    rs.scissor_enable = 1;
    b.create_render_state(&rs);
    b.bind_render_state(&calls::BindRenderState { cso: rs.cso });
    b.set_scissor(&calls::SetScissor {
        x: 0,
        y: 0,
        width: 2,
        height: 2,
    });
    clear_color(&mut b, [1.0, 1.0, 1.0, 1.0]);
    assert_eq!(pixel(&mut b, 1, 1), [255, 0, 0, 255]);
    assert_eq!(pixel(&mut b, 5, 5), [0, 0, 0, 255]);
    // Back to the default state: full clear again.
    b.bind_render_state(&calls::BindRenderState { cso: Handle::NULL });
    clear_color(&mut b, [0.0, 0.0, 1.0, 1.0]);
    assert_eq!(pixel(&mut b, 5, 5), [0, 0, 255, 255]);
    assert_no_gl_errors(&b);
}

#[test]
fn buffer_upload_copy_and_readback() {
    let mut b = setup();
    let src = Handle::new(1, 1);
    let dst = Handle::new(2, 1);
    let data: Vec<u8> = (0..64u8).collect();
    buffer(&mut b, src, &data);
    b.buffer_subdata(
        &calls::BufferSubdata {
            res: src,
            offset: 8,
            ..z()
        },
        &[0xAA; 4],
    );
    buffer(&mut b, dst, &[0u8; 32]);
    b.buffer_copy(&calls::BufferCopy {
        src,
        dst,
        src_offset: 4,
        dst_offset: 0,
        size: 16,
    });
    let mut reply = Vec::new();
    b.buffer_readback(
        &calls::BufferReadback {
            res: src,
            offset: 0,
            size: 64,
        },
        &mut reply,
    );
    let mut expect = data.clone();
    expect[8..12].copy_from_slice(&[0xAA; 4]);
    assert_eq!(reply, expect);
    b.buffer_readback(
        &calls::BufferReadback {
            res: dst,
            offset: 0,
            size: 16,
        },
        &mut reply,
    );
    assert_eq!(reply, expect[4..20]);
    // Respecify: new size and contents.
    b.buffer_respecify(
        &calls::BufferRespecify {
            res: dst,
            size: 4,
            usage: GL_STATIC_DRAW,
            ..z()
        },
        &[9, 8, 7, 6],
    );
    b.buffer_readback(
        &calls::BufferReadback {
            res: dst,
            offset: 0,
            size: 4,
        },
        &mut reply,
    );
    assert_eq!(reply, [9, 8, 7, 6]);
    assert_no_gl_errors(&b);
}

#[test]
fn draw_with_spirv_program_and_global_constants() {
    let mut b = setup();
    clear_color(&mut b, [0.0, 0.0, 0.0, 1.0]);
    let sh = Handle::new(1, 1);
    shader(&mut b, sh, fixtures::TRI_VERT, fixtures::COLOR_FRAG, 16);
    let green: [f32; 4] = [0.0, 1.0, 0.0, 1.0];
    b.set_global_constants(
        &calls::SetGlobalConstants { shader: sh },
        bytemuck::cast_slice(&green),
    );
    fullscreen_triangle(&mut b);
    draw_arrays(&mut b, 3);
    for (x, y) in [(0, 0), (7, 7), (3, 4)] {
        assert_eq!(pixel(&mut b, x, y), [0, 255, 0, 255], "pixel {x},{y}");
    }
    // Indexed draw with client indices (the streaming index buffer).
    clear_color(&mut b, [0.0, 0.0, 0.0, 1.0]);
    let red: [f32; 4] = [1.0, 0.0, 0.0, 1.0];
    b.set_global_constants(
        &calls::SetGlobalConstants { shader: sh },
        bytemuck::cast_slice(&red),
    );
    let idx: [u16; 3] = [0, 1, 2];
    b.draw(
        &calls::Draw {
            mode: GL_TRIANGLES,
            index_size: 2,
            count: 3,
            instance_count: 1,
            ..z()
        },
        bytemuck::cast_slice(&idx),
    );
    assert_eq!(pixel(&mut b, 4, 4), [255, 0, 0, 255]);
    // Indexed draw from a bound index buffer, instanced.
    let ib = Handle::new(60, 1);
    let idx32: [u32; 4] = [99, 0, 1, 2];
    buffer(&mut b, ib, bytemuck::cast_slice(&idx32));
    b.set_index_buffer(&calls::SetIndexBuffer { buffer: ib });
    let blue: [f32; 4] = [0.0, 0.0, 1.0, 1.0];
    b.set_global_constants(
        &calls::SetGlobalConstants { shader: sh },
        bytemuck::cast_slice(&blue),
    );
    b.draw(
        &calls::Draw {
            mode: GL_TRIANGLES,
            index_size: 4,
            count: 3,
            instance_count: 2,
            index_offset: 4,
            ..z()
        },
        &[],
    );
    assert_eq!(pixel(&mut b, 6, 1), [0, 0, 255, 255]);
    assert_no_gl_errors(&b);
}

/// Streamed default uniforms (`MOBILEGL_GLES_UNIFORM_STREAM=1`): every
/// update is drawn with its own values, and a shader whose placement went
/// stale (another shader's updates lapped the stream) writes its block
/// again before its next draw instead of reading overwritten bytes.
#[test]
fn streamed_global_constants_survive_a_lapped_stream() {
    let mut b = setup();
    assert!(
        b.stream_uniforms(4096),
        "llvmpipe has GL_EXT_buffer_storage"
    );
    let (a, other) = (Handle::new(1, 1), Handle::new(2, 1));
    shader(&mut b, other, fixtures::TRI_VERT, fixtures::COLOR_FRAG, 16);
    shader(&mut b, a, fixtures::TRI_VERT, fixtures::COLOR_FRAG, 16);
    fullscreen_triangle(&mut b);
    let green: [f32; 4] = [0.0, 1.0, 0.0, 1.0];
    b.set_global_constants(
        &calls::SetGlobalConstants { shader: a },
        bytemuck::cast_slice(&green),
    );
    clear_color(&mut b, [0.0, 0.0, 0.0, 1.0]);
    draw_arrays(&mut b, 3);
    assert_eq!(pixel(&mut b, 3, 3), [0, 255, 0, 255]);
    // Updates between draws: each draw sees its own colour.
    for (i, c) in [[1.0f32, 0.0, 0.0, 1.0], [0.0, 0.0, 1.0, 1.0]]
        .iter()
        .enumerate()
    {
        b.set_global_constants(
            &calls::SetGlobalConstants { shader: a },
            bytemuck::cast_slice(c),
        );
        draw_arrays(&mut b, 3);
        let want = if i == 0 {
            [255, 0, 0, 255]
        } else {
            [0, 0, 255, 255]
        };
        assert_eq!(pixel(&mut b, 3, 3), want, "update {i}");
    }
    // Lap the 4 KiB stream several times from the other shader.
    let grey: [f32; 4] = [0.5, 0.5, 0.5, 1.0];
    for _ in 0..1000 {
        b.set_global_constants(
            &calls::SetGlobalConstants { shader: other },
            bytemuck::cast_slice(&grey),
        );
    }
    // `a` was not set again: it must still draw blue.
    clear_color(&mut b, [0.0, 0.0, 0.0, 1.0]);
    draw_arrays(&mut b, 3);
    assert_eq!(pixel(&mut b, 3, 3), [0, 0, 255, 255]);
    // A shader never set draws with zeros, as a new UBO's.
    b.bind_shader(&calls::BindShader { cso: other });
    let fresh = Handle::new(3, 1);
    shader(&mut b, fresh, fixtures::TRI_VERT, fixtures::COLOR_FRAG, 16);
    clear_color(&mut b, [1.0, 1.0, 1.0, 1.0]);
    draw_arrays(&mut b, 3);
    assert_eq!(pixel(&mut b, 3, 3), [0, 0, 0, 0]);
    assert_no_gl_errors(&b);
}

/// Two contexts drawing with one streamed shader in turn: a context switch
/// moves the stream on (each segment is read by one context, fenced in it)
/// and the block written again in the new segment carries the shader's
/// latest values (default uniforms are program state, shared). The fences
/// themselves are not observable here: llvmpipe finishes every draw at once.
#[test]
fn streamed_global_constants_across_context_switches() {
    let mut b = setup();
    assert!(b.stream_uniforms(1 << 16));
    let sh = Handle::new(1, 1);
    shader(&mut b, sh, fixtures::TRI_VERT, fixtures::COLOR_FRAG, 16);
    fullscreen_triangle(&mut b);
    let other = Handle::new(2, 1);
    b.context_create(&calls::ContextCreate { ctx: other, ..z() });
    let colours: [[f32; 4]; 4] = [
        [0.0, 1.0, 0.0, 1.0],
        [1.0, 0.0, 0.0, 1.0],
        [0.0, 0.0, 1.0, 1.0],
        [1.0, 1.0, 0.0, 1.0],
    ];
    let mut latest = [0u8; 4];
    for (i, c) in colours.iter().enumerate() {
        let ctx = if i % 2 == 0 { CTX } else { other };
        b.make_current(&calls::MakeCurrent {
            ctx,
            draw: SURF,
            read: SURF,
        });
        if i == 1 {
            // The second context's own state, once.
            surface_defaults(&mut b);
            b.bind_shader(&calls::BindShader { cso: sh });
            fullscreen_triangle(&mut b);
        }
        // Odd steps set the values; even steps draw with the values set
        // in the other context (none yet at step 0: zeros).
        if i % 2 == 1 {
            b.set_global_constants(
                &calls::SetGlobalConstants { shader: sh },
                bytemuck::cast_slice(c),
            );
            latest = c.map(|v| (v * 255.0) as u8);
        }
        clear_color(&mut b, [0.0, 0.0, 0.0, 1.0]);
        draw_arrays(&mut b, 3);
        assert_eq!(pixel(&mut b, 3, 3), latest, "step {i}");
    }
    assert_no_gl_errors(&b);
}

#[test]
fn textured_draw_with_bgra_upload_into_an_fbo() {
    let mut b = setup();
    clear_color(&mut b, [1.0, 0.0, 1.0, 1.0]);
    // 2x2 texture uploaded as BGRA bytes (swizzled on the CPU): every texel
    // is R=10 G=200 B=30 A=255.
    let tex = Handle::new(1, 1);
    b.resource_create(
        &calls::ResourceCreate {
            res: tex,
            kind: RESOURCE_TEXTURE,
            target: GL_TEXTURE_2D,
            ..z()
        },
        &[],
    );
    let bgra: Vec<u8> = [30u8, 200, 10, 255].repeat(4);
    b.texture_image(
        &calls::TextureImage {
            res: tex,
            target: GL_TEXTURE_2D,
            level: 0,
            internal_format: GL_RGBA8,
            width: 2,
            height: 2,
            depth: 1,
            format: GL_BGRA,
            r#type: GL_UNSIGNED_BYTE,
            ..z()
        },
        &bgra,
    );
    let mut view: calls::CreateSamplerView = z();
    view.cso = Handle::new(1, 1);
    view.texture = tex;
    view.target = GL_TEXTURE_2D;
    view.max_level = 0;
    b.create_sampler_view(&view);
    let mut s: calls::CreateSampler = z();
    s.cso = Handle::new(1, 1);
    s.min_filter = GL_NEAREST;
    s.mag_filter = GL_NEAREST;
    s.wrap_s = GL_CLAMP_TO_EDGE;
    s.wrap_t = GL_CLAMP_TO_EDGE;
    s.max_lod = 1000.0;
    b.create_sampler(&s);
    let mut views: calls::SetSamplerViews = z();
    views.count = 1;
    views.views[0] = view.cso;
    b.set_sampler_views(&views);
    let mut samplers: calls::BindSamplers = z();
    samplers.count = 1;
    samplers.samplers[0] = s.cso;
    b.bind_samplers(&samplers);

    // Render into a texture attached as the client's colour attachment 1,
    // drawn through draw buffer 0 (the attachment remap emulation).
    let target = Handle::new(2, 1);
    b.resource_create(
        &calls::ResourceCreate {
            res: target,
            kind: RESOURCE_TEXTURE,
            target: GL_TEXTURE_2D,
            ..z()
        },
        &[],
    );
    b.texture_storage(&calls::TextureStorage {
        res: target,
        target: GL_TEXTURE_2D,
        levels: 1,
        internal_format: GL_RGBA8,
        width: W,
        height: H,
        depth: 1,
    });
    let mut fb: calls::SetFramebufferState = z();
    fb.fbo = Handle::new(1, 1);
    fb.color[1] = target;
    fb.color_kind[1] = SURFACE_TEXTURE;
    fb.draw_buffers = [NO_ATTACHMENT; 8];
    fb.draw_buffers[0] = 1;
    fb.width = W;
    fb.height = H;
    b.set_framebuffer_state(&fb);
    clear_color(&mut b, [0.0, 0.0, 0.0, 0.0]);
    shader(
        &mut b,
        Handle::new(2, 1),
        fixtures::TRI_VERT,
        fixtures::TEX_FRAG,
        0,
    );
    fullscreen_triangle(&mut b);
    draw_arrays(&mut b, 3);

    b.set_read_surface(&calls::SetReadSurface {
        fbo: fb.fbo,
        color: target,
        color_kind: SURFACE_TEXTURE,
        ..z()
    });
    assert_eq!(pixel(&mut b, 3, 3), [10, 200, 30, 255]);
    // The default framebuffer was not touched.
    b.set_read_surface(&calls::SetReadSurface {
        fbo: Handle::DEFAULT_FRAMEBUFFER,
        ..z()
    });
    assert_eq!(pixel(&mut b, 3, 3), [255, 0, 255, 255]);
    assert_no_gl_errors(&b);
}

#[test]
fn fences_finish_and_caps() {
    let mut b = setup();
    clear_color(&mut b, [0.0, 0.0, 0.0, 1.0]);
    let f = Handle::new(1, 1);
    b.fence_insert(&calls::FenceInsert { fence: f });
    let mut reply = Vec::new();
    b.fence_wait(
        &calls::FenceWait {
            fence: f,
            flags: 0,
            timeout_ns: 5_000_000_000,
            ..z()
        },
        &mut reply,
    );
    assert_eq!(reply, FENCE_STATUS_SIGNALED.to_le_bytes());
    b.fence_destroy(&calls::FenceDestroy { fence: f });
    b.finish(&calls::Finish::zeroed(), &mut reply);
    assert!(reply.is_empty());
    b.flush_commands(&calls::FlushCommands::zeroed());
    b.present(&calls::Present { surface: SURF });

    b.get_caps(&calls::GetCaps::zeroed(), &mut reply);
    assert_eq!(reply.len(), std::mem::size_of::<Caps>());
    let caps: Caps = bytemuck::pod_read_unaligned(&reply);
    assert_eq!(caps.backend_kind, mgpipe::caps::BACKEND_GLES);
    assert!(caps.max_texture_size >= 2048);
    assert!(!Caps::get_str(&caps.driver_renderer).is_empty());
    assert!(Caps::get_str(&caps.driver_version).starts_with("OpenGL ES 3."));
    for op in 0..mgpipe::CALL_COUNT as u16 {
        assert!(caps.implements(op), "opcode {op} not in the call mask");
    }
    assert_no_gl_errors(&b);
}

/// Make the context current on a new 4-sample RGBA8 + D24S8 surface.
fn current_on_multisampled_surface(b: &mut GlesBackend) {
    let ms = Handle::new(2, 1);
    b.surface_create(&calls::SurfaceCreate {
        surface: ms,
        width: W,
        height: H,
        color_format: GL_RGBA8,
        depth_stencil_format: GL_DEPTH24_STENCIL8,
        samples: 4,
        ..z()
    });
    b.make_current(&calls::MakeCurrent {
        ctx: CTX,
        draw: ms,
        read: ms,
    });
}

#[test]
fn multisampled_surface_reads_back_resolved() {
    let mut b = setup();
    current_on_multisampled_surface(&mut b);
    // Scissor on in the bound render state: the internal resolve must not
    // be clipped by it, and the state must survive the read.
    let mut rs: calls::CreateRenderState = z();
    rs.cso = Handle::new(4, 1);
    rs.color_write_mask = u32::MAX;
    rs.scissor_enable = 1;
    b.create_render_state(&rs);
    b.bind_render_state(&calls::BindRenderState { cso: rs.cso });
    b.set_scissor(&calls::SetScissor {
        x: 0,
        y: 0,
        width: W as i32,
        height: H as i32,
    });
    clear_color(&mut b, [0.0, 0.0, 1.0, 1.0]);
    b.set_scissor(&calls::SetScissor {
        x: 0,
        y: 0,
        width: 1,
        height: 1,
    });
    assert_eq!(pixel(&mut b, 6, 6), [0, 0, 255, 255]);
    clear_color(&mut b, [1.0, 0.0, 0.0, 1.0]);
    assert_eq!(pixel(&mut b, 0, 0), [255, 0, 0, 255]);
    assert_eq!(pixel(&mut b, 6, 6), [0, 0, 255, 255]);
    assert_no_gl_errors(&b);
}

/// Depth and stencil of a multisampled default surface read back resolved
/// (GLES reads no multisampled buffer; they used to answer zeros).
#[test]
fn multisampled_depth_and_stencil_read_back_resolved() {
    const GL_DEPTH_COMPONENT: u32 = 0x1902;
    const GL_STENCIL_INDEX: u32 = 0x1901;
    let mut b = setup();
    current_on_multisampled_surface(&mut b);
    b.clear(&calls::Clear {
        buffers: CLEAR_DEPTH | CLEAR_STENCIL,
        depth: 0.75,
        stencil: 5,
        ..z()
    });
    let depth = read(&mut b, 1, 2, 3, 2, GL_DEPTH_COMPONENT, GL_FLOAT);
    let depth: &[f32] = bytemuck::cast_slice(&depth);
    assert_eq!(depth.len(), 6);
    for d in depth {
        assert!((d - 0.75).abs() < 1e-4, "depth {d}");
    }
    assert_eq!(
        read(&mut b, 6, 5, 2, 1, GL_STENCIL_INDEX, GL_UNSIGNED_BYTE),
        [5, 5]
    );
    // Colour still reads (the temporary objects are gone, bindings restored).
    clear_color(&mut b, [0.0, 1.0, 0.0, 1.0]);
    assert_eq!(pixel(&mut b, 3, 3), [0, 255, 0, 255]);
    assert_no_gl_errors(&b);
}

/// Bad handles, short blobs and nonsense enums are logged and skipped.
#[test]
fn bad_input_never_panics() {
    let mut b = setup();
    let bogus = Handle::new(77, 9);
    let huge = Handle::new(u32::MAX, 1);
    let mut reply = Vec::new();
    // Draw with nothing bound, then with a shader that failed to build.
    draw_arrays(&mut b, 3);
    b.create_shader(
        &calls::CreateShader {
            cso: Handle::new(9, 1),
            stage_mask: 1,
            stage_words: [4, 0, 0, 0, 0, 0],
            ..z()
        },
        &[1, 2],
    );
    b.create_shader(
        &calls::CreateShader {
            cso: Handle::new(8, 1),
            stage_mask: 1,
            stage_words: [2, 0, 0, 0, 0, 0],
            ..z()
        },
        &[0xde; 8],
    );
    b.bind_shader(&calls::BindShader {
        cso: Handle::new(8, 1),
    });
    draw_arrays(&mut b, 3);
    b.draw(
        &calls::Draw {
            mode: 0x7,
            count: 4,
            index_size: 3,
            ..z()
        },
        &[1],
    );
    b.draw(
        &calls::Draw {
            mode: GL_TRIANGLES,
            count: u32::MAX,
            index_size: 4,
            instance_count: u32::MAX,
            ..z()
        },
        &[],
    );
    // Unknown / stale / out-of-range handles everywhere.
    b.resource_destroy(&calls::ResourceDestroy { res: bogus });
    b.resource_create(
        &calls::ResourceCreate {
            res: huge,
            kind: RESOURCE_BUFFER,
            size: 4,
            ..z()
        },
        &[],
    );
    b.resource_create(
        &calls::ResourceCreate {
            res: bogus,
            kind: 99,
            ..z()
        },
        &[],
    );
    b.resource_create(
        &calls::ResourceCreate {
            res: Handle::new(5, 1),
            kind: RESOURCE_BUFFER,
            size: u64::MAX,
            ..z()
        },
        &[],
    );
    b.buffer_subdata(
        &calls::BufferSubdata {
            res: bogus,
            offset: u64::MAX,
            ..z()
        },
        &[1, 2, 3],
    );
    b.buffer_copy(&calls::BufferCopy {
        src: bogus,
        dst: huge,
        src_offset: u64::MAX,
        dst_offset: 1,
        size: u64::MAX,
    });
    b.texture_image(
        &calls::TextureImage {
            res: bogus,
            target: 0xffff,
            width: u32::MAX,
            height: u32::MAX,
            ..z()
        },
        &[1],
    );
    let tex = Handle::new(3, 1);
    b.resource_create(
        &calls::ResourceCreate {
            res: tex,
            kind: RESOURCE_TEXTURE,
            target: GL_TEXTURE_2D,
            ..z()
        },
        &[],
    );
    b.texture_image(
        &calls::TextureImage {
            res: tex,
            target: GL_TEXTURE_2D,
            internal_format: GL_RGBA8,
            width: 64,
            height: 64,
            depth: 1,
            format: GL_RGBA,
            r#type: GL_UNSIGNED_BYTE,
            ..z()
        },
        &[0; 10],
    );
    b.texture_subimage(
        &calls::TextureSubimage {
            res: tex,
            target: GL_TEXTURE_2D,
            width: 4,
            height: 4,
            format: 0x1234,
            r#type: 0x5678,
            ..z()
        },
        &[],
    );
    b.texture_storage(&calls::TextureStorage {
        res: tex,
        target: 0x8C1A,
        levels: u32::MAX,
        width: u32::MAX,
        ..z()
    });
    b.generate_mipmap(&calls::GenerateMipmap {
        res: bogus,
        target: 0,
        ..z()
    });
    b.bind_render_state(&calls::BindRenderState { cso: bogus });
    b.bind_vertex_elements(&calls::BindVertexElements { cso: bogus });
    b.delete_shader(&calls::DeleteShader { cso: bogus });
    b.delete_sampler(&calls::DeleteSampler { cso: huge });
    let mut fb: calls::SetFramebufferState = z();
    fb.fbo = Handle::new(4, 1);
    fb.color[0] = bogus;
    fb.color_kind[0] = SURFACE_TEXTURE;
    fb.draw_buffers = [u32::MAX - 1; 8];
    b.set_framebuffer_state(&fb);
    b.set_framebuffer_state(&calls::SetFramebufferState { fbo: huge, ..z() });
    b.set_read_surface(&calls::SetReadSurface {
        fbo: bogus,
        color: bogus,
        color_kind: 7,
        ..z()
    });
    let mut views: calls::SetSamplerViews = z();
    views.count = u32::MAX;
    views.views = [bogus; 32];
    b.set_sampler_views(&views);
    let mut vbs: calls::SetVertexBuffers = z();
    vbs.count = 99;
    vbs.buffers = [bogus; 16];
    b.set_vertex_buffers(&vbs);
    let mut ve: calls::CreateVertexElements = z();
    ve.cso = Handle::new(2, 1);
    ve.enabled_mask = u32::MAX;
    ve.buffer_index = [u32::MAX; 16];
    ve.format = [u32::MAX; 16];
    b.create_vertex_elements(&ve);
    b.bind_vertex_elements(&calls::BindVertexElements { cso: ve.cso });
    shader(
        &mut b,
        Handle::new(1, 1),
        fixtures::TRI_VERT,
        fixtures::COLOR_FRAG,
        16,
    );
    draw_arrays(&mut b, 3);
    b.set_global_constants(
        &calls::SetGlobalConstants {
            shader: Handle::new(1, 1),
        },
        &[1; 3],
    );
    b.clear(&calls::Clear {
        buffers: u32::MAX,
        draw_buffer: u32::MAX,
        color_type: 9,
        ..z()
    });
    b.blit(&calls::Blit {
        src: [0, 0, i32::MAX, i32::MIN],
        dst: [0; 4],
        mask: u32::MAX,
        filter: 1,
    });
    b.read_pixels(
        &calls::ReadPixels {
            width: u32::MAX,
            height: u32::MAX,
            format: GL_RGBA,
            r#type: GL_UNSIGNED_BYTE,
            ..z()
        },
        &mut reply,
    );
    assert!(reply.is_empty());
    b.read_pixels(
        &calls::ReadPixels {
            width: 2,
            height: 2,
            format: 0x9999,
            r#type: 1,
            ..z()
        },
        &mut reply,
    );
    b.buffer_readback(
        &calls::BufferReadback {
            res: bogus,
            offset: 0,
            size: 8,
        },
        &mut reply,
    );
    assert_eq!(reply, [0; 8]);
    b.fence_wait(
        &calls::FenceWait {
            fence: bogus,
            ..z()
        },
        &mut reply,
    );
    assert_eq!(reply, FENCE_STATUS_SIGNALED.to_le_bytes());
    b.make_current(&calls::MakeCurrent {
        ctx: bogus,
        draw: bogus,
        read: bogus,
    });
    b.context_destroy(&calls::ContextDestroy { ctx: bogus });
    b.surface_create(&calls::SurfaceCreate {
        surface: Handle::new(2, 1),
        width: u32::MAX,
        height: 0,
        ..z()
    });
    // Context calls with no current context.
    b.make_current(&calls::MakeCurrent {
        ctx: Handle::NULL,
        draw: Handle::NULL,
        read: Handle::NULL,
    });
    draw_arrays(&mut b, 3);
    b.read_pixels(
        &calls::ReadPixels {
            width: 1,
            height: 1,
            format: GL_RGBA,
            r#type: GL_UNSIGNED_BYTE,
            ..z()
        },
        &mut reply,
    );
    assert_eq!(reply, [0; 4]);
    // Still alive: a context works again afterwards.
    b.make_current(&calls::MakeCurrent {
        ctx: CTX,
        draw: SURF,
        read: SURF,
    });
    b.set_framebuffer_state(&calls::SetFramebufferState {
        fbo: Handle::DEFAULT_FRAMEBUFFER,
        ..z()
    });
    b.set_read_surface(&calls::SetReadSurface {
        fbo: Handle::DEFAULT_FRAMEBUFFER,
        ..z()
    });
    b.bind_render_state(&calls::BindRenderState { cso: Handle::NULL });
    b.set_scissor(&calls::SetScissor {
        x: 0,
        y: 0,
        width: W as i32,
        height: H as i32,
    });
    clear_color(&mut b, [0.0, 1.0, 0.0, 1.0]);
    assert_eq!(pixel(&mut b, 0, 0), [0, 255, 0, 255]);
    b.context_destroy(&calls::ContextDestroy { ctx: CTX });
}

/// A vertex-input CSO: `ve` with one vertex buffer at `offset`, index buffer `ib`.
fn vertex_input(b: &mut GlesBackend, cso: Handle, ve: Handle, vb: Handle, offset: u64, ib: Handle) {
    let mut vi: calls::CreateVertexInput = z();
    vi.cso = cso;
    vi.elements = ve;
    vi.index_buffer = ib;
    vi.count = 1;
    vi.buffers[0] = vb;
    vi.offsets[0] = offset;
    vi.strides[0] = 8;
    b.create_vertex_input(&vi);
}

fn colour(b: &mut GlesBackend, sh: Handle, c: [f32; 4]) {
    b.set_global_constants(
        &calls::SetGlobalConstants { shader: sh },
        bytemuck::cast_slice(&c),
    );
}

fn draw_indexed(b: &mut GlesBackend, base_instance: u32) {
    b.draw(
        &calls::Draw {
            mode: GL_TRIANGLES,
            index_size: 4,
            count: 3,
            instance_count: 1,
            base_instance,
            ..z()
        },
        &[],
    );
}

/// The cached VAOs (one per vertex layout, vao_cache.rs): switching
/// layouts, index buffers that change under one layout, a deleted index
/// buffer whose GL name the driver may hand to its successor, and the
/// context-VAO path (base instance) interleaved with cached ones.
#[test]
fn cached_vertex_arrays_follow_layouts_and_index_buffers() {
    let mut b = setup();
    let sh = Handle::new(1, 1);
    shader(&mut b, sh, fixtures::TRI_VERT, fixtures::COLOR_FRAG, 16);
    // Vertices 0..3 cover the left edge only, 3..6 the right edge only.
    let pos: [f32; 12] = [
        -1.0, -1.0, 0.0, -1.0, -1.0, 3.0, //
        1.0, -1.0, 0.0, -1.0, 1.0, 3.0,
    ];
    let vb = Handle::new(50, 1);
    buffer(&mut b, vb, bytemuck::cast_slice(&pos));
    let mut ve: calls::CreateVertexElements = z();
    ve.cso = Handle::new(1, 1);
    ve.enabled_mask = 1;
    ve.format[0] = 2 | (GL_FLOAT << 8);
    b.create_vertex_elements(&ve);
    let (left, right) = (Handle::new(10, 1), Handle::new(11, 1));
    vertex_input(&mut b, left, ve.cso, vb, 0, Handle::NULL);
    vertex_input(&mut b, right, ve.cso, vb, 24, Handle::NULL);
    let black = [0, 0, 0, 255];
    let edges = |b: &mut GlesBackend| (pixel(b, 0, 0), pixel(b, 7, 0));

    // Two layouts, switched back and forth.
    clear_color(&mut b, [0.0, 0.0, 0.0, 1.0]);
    colour(&mut b, sh, [0.0, 1.0, 0.0, 1.0]);
    b.bind_vertex_input(&calls::BindVertexInput { cso: left });
    draw_arrays(&mut b, 3);
    assert_eq!(edges(&mut b), ([0, 255, 0, 255], black));
    colour(&mut b, sh, [1.0, 0.0, 0.0, 1.0]);
    b.bind_vertex_input(&calls::BindVertexInput { cso: right });
    draw_arrays(&mut b, 3);
    assert_eq!(edges(&mut b), ([0, 255, 0, 255], [255, 0, 0, 255]));
    clear_color(&mut b, [0.0, 0.0, 0.0, 1.0]);
    colour(&mut b, sh, [0.0, 0.0, 1.0, 1.0]);
    b.bind_vertex_input(&calls::BindVertexInput { cso: left });
    draw_arrays(&mut b, 3);
    assert_eq!(edges(&mut b), ([0, 0, 255, 255], black));

    // One layout, two index buffers (one VAO, the element binding per draw).
    let (ib_left, ib_right) = (Handle::new(60, 1), Handle::new(61, 1));
    buffer(&mut b, ib_left, bytemuck::cast_slice(&[0u32, 1, 2]));
    buffer(&mut b, ib_right, bytemuck::cast_slice(&[3u32, 4, 5]));
    let (vi_l, vi_r) = (Handle::new(12, 1), Handle::new(13, 1));
    vertex_input(&mut b, vi_l, ve.cso, vb, 0, ib_left);
    vertex_input(&mut b, vi_r, ve.cso, vb, 0, ib_right);
    for (cso, want) in [
        (vi_l, ([0, 0, 255, 255], black)),
        (vi_r, (black, [0, 0, 255, 255])),
    ] {
        clear_color(&mut b, [0.0, 0.0, 0.0, 1.0]);
        b.bind_vertex_input(&calls::BindVertexInput { cso });
        draw_indexed(&mut b, 0);
        assert_eq!(edges(&mut b), want);
    }

    // Element bindings are per VAO: layout A binds ib_left, layout B (another
    // vertex buffer) ib_right, then layout A draws with ib_right.
    let vb2 = Handle::new(51, 1);
    buffer(&mut b, vb2, bytemuck::cast_slice(&pos));
    let (a_left, b_right, a_right) = (Handle::new(15, 1), Handle::new(16, 1), Handle::new(17, 1));
    vertex_input(&mut b, a_left, ve.cso, vb, 0, ib_left);
    vertex_input(&mut b, b_right, ve.cso, vb2, 0, ib_right);
    vertex_input(&mut b, a_right, ve.cso, vb, 0, ib_right);
    for cso in [a_left, b_right] {
        b.bind_vertex_input(&calls::BindVertexInput { cso });
        draw_indexed(&mut b, 0);
    }
    clear_color(&mut b, [0.0, 0.0, 0.0, 1.0]);
    b.bind_vertex_input(&calls::BindVertexInput { cso: a_right });
    draw_indexed(&mut b, 0);
    assert_eq!(edges(&mut b), (black, [0, 0, 255, 255]));

    // The VAO of layout `vi_l` last had ib_left bound; delete it, make a
    // new index buffer (the driver may reuse the GL name) and draw that
    // layout again: the new indices must be the ones read.
    b.bind_vertex_input(&calls::BindVertexInput { cso: vi_l });
    draw_indexed(&mut b, 0);
    b.bind_vertex_input(&calls::BindVertexInput { cso: right });
    draw_arrays(&mut b, 3);
    b.resource_destroy(&calls::ResourceDestroy { res: ib_left });
    let ib_new = Handle::new(62, 1);
    buffer(&mut b, ib_new, bytemuck::cast_slice(&[3u32, 4, 5]));
    let vi_new = Handle::new(14, 1);
    vertex_input(&mut b, vi_new, ve.cso, vb, 0, ib_new);
    clear_color(&mut b, [0.0, 0.0, 0.0, 1.0]);
    b.bind_vertex_input(&calls::BindVertexInput { cso: vi_new });
    draw_indexed(&mut b, 0);
    assert_eq!(edges(&mut b), (black, [0, 0, 255, 255]));

    // Base instance takes the context's VAO; cached draws around it stay right.
    clear_color(&mut b, [0.0, 0.0, 0.0, 1.0]);
    b.bind_vertex_input(&calls::BindVertexInput { cso: vi_r });
    draw_indexed(&mut b, 1);
    assert_eq!(edges(&mut b), (black, [0, 0, 255, 255]));
    clear_color(&mut b, [0.0, 0.0, 0.0, 1.0]);
    b.bind_vertex_input(&calls::BindVertexInput { cso: left });
    draw_arrays(&mut b, 3);
    assert_eq!(edges(&mut b), ([0, 0, 255, 255], black));
    assert_no_gl_errors(&b);
}

/// Depth and stencil of the default framebuffer read back (GLES reads them
/// through GL_NV_read_depth / _stencil / _depth_stencil, which Mesa and
/// NVIDIA expose), converted to the client's type.
#[test]
fn depth_and_stencil_read_back() {
    const GL_DEPTH_COMPONENT: u32 = 0x1902;
    const GL_STENCIL_INDEX: u32 = 0x1901;
    const GL_DEPTH_STENCIL: u32 = 0x84F9;
    const GL_UNSIGNED_SHORT: u32 = 0x1403;
    const GL_UNSIGNED_INT_24_8: u32 = 0x84FA;
    let mut b = setup();
    b.clear(&calls::Clear {
        buffers: CLEAR_DEPTH | CLEAR_STENCIL,
        depth: 0.25,
        stencil: 7,
        ..z()
    });
    let depth = read(&mut b, 2, 3, 2, 1, GL_DEPTH_COMPONENT, GL_FLOAT);
    let depth: &[f32] = bytemuck::cast_slice(&depth);
    assert_eq!(depth.len(), 2);
    for d in depth {
        assert!((d - 0.25).abs() < 1e-4, "depth {d}");
    }
    let depth16 = read(&mut b, 0, 0, 1, 1, GL_DEPTH_COMPONENT, GL_UNSIGNED_SHORT);
    let d16 = u16::from_le_bytes([depth16[0], depth16[1]]);
    assert!((d16 as i32 - 16384).abs() <= 2, "depth as u16: {d16}");
    assert_eq!(
        read(&mut b, 7, 7, 1, 1, GL_STENCIL_INDEX, GL_UNSIGNED_BYTE),
        [7]
    );
    let ds = read(&mut b, 1, 1, 1, 1, GL_DEPTH_STENCIL, GL_UNSIGNED_INT_24_8);
    let ds = u32::from_le_bytes([ds[0], ds[1], ds[2], ds[3]]);
    assert_eq!(ds & 0xff, 7, "stencil of D24S8: {ds:#x}");
    assert!(
        ((ds >> 8) as i64 - 0x40_0000).abs() <= 2,
        "depth of D24S8: {ds:#x}"
    );
    assert_no_gl_errors(&b);
}
