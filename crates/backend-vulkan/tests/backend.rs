//! Drives `VulkanBackend` through the MGPipe trait methods on whatever
//! Vulkan device the loader finds (lavapipe on CI). Skips (with a note)
//! when no Vulkan device is available.
//!
//! The draw test's SPIR-V was generated once with
//! `glslangValidator -V tests/data/draw.{vert,frag}` from GLSL written in the
//! frontend's conventions (everything in set 0, sampler slot 0 colliding
//! with uniform block binding 0), so the backend's set rewrite is exercised.

mod common;
use common::{current_surface, open, words, CTX};

use backend_vulkan::VulkanBackend;
use mgpipe::calls::*;
use mgpipe::consts::*;
use mgpipe::{Caps, Context, Handle, Opcode, Screen};

const GL_RGBA: u32 = 0x1908;
const GL_RGB: u32 = 0x1907;
const GL_BGRA: u32 = 0x80E1;
const GL_UNSIGNED_BYTE: u32 = 0x1401;
const GL_FLOAT: u32 = 0x1406;
const GL_RGBA8: u32 = 0x8058;
const GL_RGB8: u32 = 0x8051;
const GL_TEXTURE_2D: u32 = 0x0DE1;
const GL_NEAREST: u32 = 0x2600;
const GL_CLAMP_TO_EDGE: u32 = 0x812F;
const GL_TRIANGLE_STRIP: u32 = 5;
const GL_LINE_LOOP: u32 = 2;
const GL_FLOAT_TYPE: u32 = 0x1406;
const GL_PRIMITIVES_GENERATED: u32 = 0x8C87;
const GL_SAMPLES_PASSED: u32 = 0x8914;

fn clear_color(b: &mut VulkanBackend, c: [f32; 4]) {
    b.clear(&Clear {
        buffers: CLEAR_COLOR_ALL | CLEAR_DEPTH | CLEAR_STENCIL,
        color_type: CLEAR_FLOAT,
        color: c.map(f32::to_bits),
        depth: 1.0,
        ..Default::default()
    });
}

/// Clear colour `c` inside the GL scissor box `(x, y, w, h)` only (a render
/// state with the scissor test on, bound for the clear).
fn scissored_clear(
    b: &mut VulkanBackend,
    (x, y, width, height): (i32, i32, i32, i32),
    c: [f32; 4],
) {
    let rs = CreateRenderState {
        cso: Handle::new(1, 1),
        color_write_mask: u32::MAX,
        scissor_enable: 1,
        ..Default::default()
    };
    b.create_render_state(&rs);
    b.bind_render_state(&BindRenderState { cso: rs.cso });
    b.set_scissor(&SetScissor {
        x,
        y,
        width,
        height,
    });
    clear_color(b, c);
    b.bind_render_state(&BindRenderState { cso: Handle::NULL });
}

fn read(b: &mut VulkanBackend, x: i32, y: i32, w: u32, h: u32) -> Vec<u8> {
    let mut out = Vec::new();
    b.read_pixels(
        &ReadPixels {
            x,
            y,
            width: w,
            height: h,
            format: GL_RGBA,
            r#type: GL_UNSIGNED_BYTE,
        },
        &mut out,
    );
    assert_eq!(out.len(), (w * h * 4) as usize);
    out
}

fn px(img: &[u8], w: u32, x: u32, y: u32) -> [u8; 4] {
    let i = ((y * w + x) * 4) as usize;
    [img[i], img[i + 1], img[i + 2], img[i + 3]]
}

#[test]
fn caps_describe_a_vulkan_backend() {
    let Some(mut b) = open() else { return };
    let mut reply = Vec::new();
    b.get_caps(&GetCaps::default(), &mut reply);
    let caps: Caps = bytemuck::pod_read_unaligned(&reply);
    assert_eq!(caps.backend_kind, mgpipe::caps::BACKEND_VULKAN);
    assert!(caps.max_texture_size >= 1024);
    assert!(caps.implements(Opcode::Draw as u16));
    assert!(!Caps::get_str(&caps.driver_renderer).is_empty());
    eprintln!("device: {}", b.device_name());
}

#[test]
fn clear_and_read_pixels() {
    let Some(mut b) = open() else { return };
    current_surface(&mut b, 16, 8);
    clear_color(&mut b, [0.2, 0.4, 0.6, 0.8]);
    let img = read(&mut b, 0, 0, 16, 8);
    assert!(
        img.chunks(4).all(|p| p == [51, 102, 153, 204]),
        "{:?}",
        &img[..8]
    );

    // Scissored clear: GL coordinates (bottom-left origin) map 1:1 onto rows.
    scissored_clear(&mut b, (2, 1, 3, 2), [1.0, 0.0, 0.0, 1.0]);
    let img = read(&mut b, 0, 0, 16, 8);
    for y in 0..8 {
        for x in 0..16 {
            let inside = (2..5).contains(&x) && (1..3).contains(&y);
            let want = if inside {
                [255, 0, 0, 255]
            } else {
                [51, 102, 153, 204]
            };
            assert_eq!(px(&img, 16, x, y), want, "pixel ({x},{y})");
        }
    }
    // Partly outside the surface: the outside stays zero.
    let img = read(&mut b, 14, 6, 4, 4);
    assert_eq!(px(&img, 4, 0, 0), [51, 102, 153, 204]);
    assert_eq!(px(&img, 4, 3, 3), [0, 0, 0, 0]);
    // Converted read: RGB/FLOAT.
    let mut out = Vec::new();
    b.read_pixels(
        &ReadPixels {
            x: 2,
            y: 1,
            width: 1,
            height: 1,
            format: GL_RGB,
            r#type: GL_FLOAT,
        },
        &mut out,
    );
    let f: Vec<f32> = out
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(f, vec![1.0, 0.0, 0.0]);
}

/// `read_pixels_into` gives the same bytes as the reply path wherever the
/// destination sits (texel-aligned: imported and written by the device on
/// lavapipe; misaligned: copied), and writes not one byte outside it, also
/// when it straddles a page (imports cover whole pages).
#[test]
fn read_pixels_into_writes_exactly_the_destination() {
    let Some(mut b) = open() else { return };
    let (w, h) = (40u32, 24u32);
    current_surface(&mut b, w, h);
    clear_color(&mut b, [0.2, 0.4, 0.6, 0.8]);
    scissored_clear(&mut b, (3, 5, 7, 11), [1.0, 0.0, 0.5, 1.0]);
    let want = read(&mut b, 0, 0, w, h);
    let len = want.len();
    let p = ReadPixels {
        x: 0,
        y: 0,
        width: w,
        height: h,
        format: GL_RGBA,
        r#type: GL_UNSIGNED_BYTE,
    };
    const SENTINEL: u8 = 0xA5;
    // A page-aligned arena three pages long, so offsets are exact.
    let mut arena = vec![0u64; 3 * 4096 / 8 + 4096 / 8];
    let base = arena.as_mut_ptr() as usize;
    let pad = (4096 - base % 4096) % 4096;
    let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut arena);
    let page = &mut bytes[pad..pad + 3 * 4096];
    let page_addr = page.as_ptr() as usize;
    // Learn where the device copies from (known on CPU devices): the last
    // offset puts the destination 32 bytes after it modulo 4 KiB, in the
    // band where a host memcpy stalls, so that read must not be imported.
    page.fill(SENTINEL);
    assert!(b.read_pixels_into(&p, &mut page[..len]));
    let src = b.read_source_address();
    let in_band = (src.wrapping_add(32).wrapping_sub(page_addr) & 4095) + 4096;
    let before = b.imported_read_backs();
    let mut imported_reads = 0;
    for at in [0usize, 4, 4096 - 64, 4096 + 8, 1, 4096 - 3, in_band] {
        page.fill(SENTINEL);
        assert!(
            b.read_pixels_into(&p, &mut page[at..at + len]),
            "read_pixels_into at offset {at}"
        );
        assert!(page[at..at + len] == want[..], "bytes read at offset {at}");
        assert!(
            page[..at].iter().all(|&x| x == SENTINEL),
            "byte before the destination written (offset {at})"
        );
        assert!(
            page[at + len..].iter().all(|&x| x == SENTINEL),
            "byte after the destination written (offset {at})"
        );
        let band = src != 0
            && mgpipe::bytes::slow_band(page_addr + at, src)
            && b.read_source_address() == src;
        imported_reads += usize::from(at % 4 == 0 && !band);
    }
    if b.device_name().contains("llvmpipe") && std::env::var_os("MOBILEGL_VK_HOST_IMPORT").is_none()
    {
        // lavapipe has VK_EXT_external_memory_host and is a CPU device:
        // every texel-aligned destination out of the slow band was
        // imported, no other; the device's source address is known.
        assert_ne!(src, 0, "lavapipe's image memory is mapped");
        assert_eq!(
            b.imported_read_backs() - before,
            imported_reads as u64,
            "imported read-backs"
        );
    }
}

#[test]
fn renderbuffer_fbo_clear_and_read() {
    let Some(mut b) = open() else { return };
    current_surface(&mut b, 4, 4);
    let rb = Handle::new(7, 1);
    b.resource_create(
        &ResourceCreate {
            res: rb,
            kind: RESOURCE_RENDERBUFFER,
            internal_format: GL_RGB8,
            width: 8,
            height: 8,
            ..Default::default()
        },
        &[],
    );
    let mut fb = SetFramebufferState {
        fbo: Handle::new(3, 1),
        width: 8,
        height: 8,
        ..Default::default()
    };
    fb.color[0] = rb;
    fb.color_kind[0] = SURFACE_RENDERBUFFER;
    fb.draw_buffers = [NO_ATTACHMENT; 8];
    fb.draw_buffers[0] = 0;
    b.set_framebuffer_state(&fb);
    b.set_read_surface(&SetReadSurface {
        fbo: fb.fbo,
        color: rb,
        color_kind: SURFACE_RENDERBUFFER,
        ..Default::default()
    });
    clear_color(&mut b, [0.0, 1.0, 0.0, 0.0]);
    let img = read(&mut b, 0, 0, 8, 8);
    // RGB8 has no alpha: GL reads alpha 1.
    assert!(
        img.chunks(4).all(|p| p == [0, 255, 0, 255]),
        "{:?}",
        &img[..8]
    );
    let mut out = Vec::new();
    b.read_pixels(
        &ReadPixels {
            x: 0,
            y: 0,
            width: 1,
            height: 1,
            format: GL_BGRA,
            r#type: GL_UNSIGNED_BYTE,
        },
        &mut out,
    );
    assert_eq!(out, vec![0, 255, 0, 255]);
}

#[test]
fn buffer_upload_subdata_copy_readback() {
    let Some(mut b) = open() else { return };
    current_surface(&mut b, 4, 4);
    let init: Vec<u8> = (0..=255).collect();
    let a = Handle::new(1, 1);
    let c = Handle::new(2, 1);
    b.resource_create(
        &ResourceCreate {
            res: a,
            kind: RESOURCE_BUFFER,
            size: 256,
            ..Default::default()
        },
        &init,
    );
    b.resource_create(
        &ResourceCreate {
            res: c,
            kind: RESOURCE_BUFFER,
            size: 64,
            ..Default::default()
        },
        &[],
    );
    b.buffer_subdata(
        &BufferSubdata {
            res: a,
            offset: 100,
        },
        &[9; 40],
    );
    b.buffer_copy(&BufferCopy {
        src: a,
        dst: c,
        src_offset: 96,
        dst_offset: 0,
        size: 64,
    });
    let mut out = Vec::new();
    b.buffer_readback(
        &BufferReadback {
            res: a,
            offset: 64,
            size: 128,
        },
        &mut out,
    );
    for (i, &v) in out.iter().enumerate() {
        let off = 64 + i;
        let want = if (100..140).contains(&off) {
            9
        } else {
            off as u8
        };
        assert_eq!(v, want, "offset {off}");
    }
    b.buffer_readback(
        &BufferReadback {
            res: c,
            offset: 0,
            size: 64,
        },
        &mut out,
    );
    assert_eq!(&out[..4], &[96, 97, 98, 99]);
    assert_eq!(&out[4..8], &[9, 9, 9, 9]);
    // Respecify: new size and contents.
    b.buffer_respecify(
        &BufferRespecify {
            res: c,
            size: 8,
            usage: 0,
            ..Default::default()
        },
        &[1, 2, 3, 4, 5, 6, 7, 8],
    );
    b.buffer_readback(
        &BufferReadback {
            res: c,
            offset: 4,
            size: 4,
        },
        &mut out,
    );
    assert_eq!(out, vec![5, 6, 7, 8]);
    // Bad ranges and handles: logged, zeros, no panic.
    b.buffer_readback(
        &BufferReadback {
            res: c,
            offset: 4,
            size: 40,
        },
        &mut out,
    );
    assert_eq!(out, vec![0; 40]);
    b.buffer_subdata(
        &BufferSubdata {
            res: Handle::new(99, 1),
            offset: 0,
        },
        &[1],
    );
    // Fences and finish.
    b.fence_insert(&FenceInsert {
        fence: Handle::new(1, 1),
    });
    b.fence_wait(
        &FenceWait {
            fence: Handle::new(1, 1),
            flags: 0,
            timeout_ns: 1_000_000_000,
            ..Default::default()
        },
        &mut out,
    );
    assert_eq!(out, FENCE_STATUS_SIGNALED.to_le_bytes());
    b.fence_destroy(&FenceDestroy {
        fence: Handle::new(1, 1),
    });
    b.finish(&Finish::default(), &mut out);
    assert!(out.is_empty());
}

/// A shader sampling a 2x2 RGBA8 texture (GL row 0 red, green; row 1
/// blue, white) over a unit quad strip, with `u_xform` mapping [0,1]^2 onto
/// clip space and `u_color` halving green, and a white tint UBO: returns
/// (shader, texture, tint buffer).
/// Create and bind shader `sh` from a vertex and a fragment module, in the
/// frontend's blob layout (stages back to back), with a 32-byte default
/// uniform block at binding 1.
fn vertex_fragment_shader(b: &mut VulkanBackend, sh: Handle, vs: &[u8], fs: &[u8]) -> Handle {
    let (vs, fs) = (words(vs), words(fs));
    let mut blob: Vec<u8> = Vec::new();
    blob.extend(vs.iter().flat_map(|w| w.to_le_bytes()));
    blob.extend(fs.iter().flat_map(|w| w.to_le_bytes()));
    let mut stage_words = [0u32; 6];
    stage_words[STAGE_VERTEX] = vs.len() as u32;
    stage_words[STAGE_FRAGMENT] = fs.len() as u32;
    b.create_shader(
        &CreateShader {
            cso: sh,
            stage_mask: (1 << STAGE_VERTEX) | (1 << STAGE_FRAGMENT),
            stage_words,
            global_binding: 1,
            global_size: 32,
            ..Default::default()
        },
        &blob,
    );
    b.bind_shader(&BindShader { cso: sh });
    sh
}

fn textured_quad(b: &mut VulkanBackend) -> (Handle, Handle, Handle) {
    let sh = vertex_fragment_shader(
        b,
        Handle::new(1, 1),
        include_bytes!("data/draw.vert.spv"),
        include_bytes!("data/draw.frag.spv"),
    );
    // Default block: u_xform maps [0,1]^2 onto clip space; u_color halves green.
    let globals: Vec<f32> = vec![2.0, 2.0, -1.0, -1.0, 1.0, 0.5, 1.0, 1.0];
    b.set_global_constants(
        &SetGlobalConstants { shader: sh },
        bytemuck::cast_slice(&globals),
    );

    // User block 0: tint.
    let ubo = Handle::new(10, 1);
    let tint: Vec<f32> = vec![1.0, 1.0, 1.0, 1.0];
    b.resource_create(
        &ResourceCreate {
            res: ubo,
            kind: RESOURCE_BUFFER,
            size: 16,
            ..Default::default()
        },
        bytemuck::cast_slice(&tint),
    );
    let mut cb = SetConstantBuffers {
        count: 1,
        ..Default::default()
    };
    cb.buffers[0] = ubo;
    cb.sizes[0] = 16;
    b.set_constant_buffers(&cb);

    // 2x2 texture, first uploaded row = GL row 0 (t = 0, the bottom).
    let tex = Handle::new(11, 1);
    b.resource_create(
        &ResourceCreate {
            res: tex,
            kind: RESOURCE_TEXTURE,
            target: GL_TEXTURE_2D,
            ..Default::default()
        },
        &[],
    );
    let texels: [u8; 16] = [
        255, 0, 0, 255, /* (0,0) red */ 0, 255, 0, 255, /* (1,0) green */
        0, 0, 255, 255, /* (0,1) blue */ 255, 255, 255, 255, /* (1,1) white */
    ];
    b.texture_image(
        &TextureImage {
            res: tex,
            target: GL_TEXTURE_2D,
            level: 0,
            internal_format: GL_RGBA8,
            width: 2,
            height: 2,
            depth: 1,
            format: GL_RGBA,
            r#type: GL_UNSIGNED_BYTE,
        },
        &texels,
    );
    let view = Handle::new(1, 1);
    b.create_sampler_view(&CreateSamplerView {
        cso: view,
        texture: tex,
        target: GL_TEXTURE_2D,
        base_level: 0,
        max_level: 1000,
        ..Default::default()
    });
    let smp = Handle::new(1, 1);
    b.create_sampler(&CreateSampler {
        cso: smp,
        min_filter: GL_NEAREST,
        mag_filter: GL_NEAREST,
        wrap_s: GL_CLAMP_TO_EDGE,
        wrap_t: GL_CLAMP_TO_EDGE,
        wrap_r: GL_CLAMP_TO_EDGE,
        max_lod: 1000.0,
        min_lod: -1000.0,
        ..Default::default()
    });
    let mut views = SetSamplerViews {
        count: 1,
        ..Default::default()
    };
    views.views[0] = view;
    b.set_sampler_views(&views);
    let mut smps = BindSamplers {
        count: 1,
        ..Default::default()
    };
    smps.samplers[0] = smp;
    b.bind_samplers(&smps);

    // Vertex data: a unit quad strip at location 0; location 1 disabled.
    let quad: Vec<f32> = vec![0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0];
    let vbo = Handle::new(12, 1);
    b.resource_create(
        &ResourceCreate {
            res: vbo,
            kind: RESOURCE_BUFFER,
            size: 32,
            ..Default::default()
        },
        bytemuck::cast_slice(&quad),
    );
    let mut ve = CreateVertexElements {
        cso: Handle::new(1, 1),
        enabled_mask: 1,
        ..Default::default()
    };
    ve.format[0] = 2 | (GL_FLOAT_TYPE << 8);
    b.create_vertex_elements(&ve);
    b.bind_vertex_elements(&BindVertexElements { cso: ve.cso });
    let mut vb = SetVertexBuffers {
        count: 16,
        ..Default::default()
    };
    vb.buffers[0] = vbo;
    vb.strides[0] = 8;
    b.set_vertex_buffers(&vb);
    let mut defaults = SetVertexAttribDefaults {
        mask: !1 & 0xffff,
        ..Default::default()
    };
    for i in 0..16 {
        defaults.values[4 * i..4 * i + 4]
            .copy_from_slice(&[1.0f32, 1.0, 1.0, 1.0].map(f32::to_bits));
    }
    b.set_vertex_attrib_defaults(&defaults);
    (sh, tex, ubo)
}

#[test]
fn textured_draw_with_rewritten_spirv() {
    let Some(mut b) = open() else { return };
    let (w, h) = (8u32, 8u32);
    current_surface(&mut b, w, h);
    clear_color(&mut b, [0.0, 0.0, 0.0, 0.0]);

    let (sh, tex, ubo) = textured_quad(&mut b);

    b.draw(
        &Draw {
            mode: GL_TRIANGLE_STRIP,
            count: 4,
            instance_count: 1,
            ..Default::default()
        },
        &[],
    );
    let img = read(&mut b, 0, 0, w, h);
    // Bottom-left quadrant (GL rows 0..4) = texel (0,0) = red.
    assert_eq!(px(&img, w, 1, 1), [255, 0, 0, 255]);
    // Halved channels are 127.5: Vulkan lets the device round either way
    // (lavapipe gives 128, NVIDIA 127).
    let near = |got: [u8; 4], want: [u8; 4]| got.iter().zip(want).all(|(&g, w)| g.abs_diff(w) <= 1);
    assert!(
        near(px(&img, w, 6, 1), [0, 128, 0, 255]),
        "{:?}",
        px(&img, w, 6, 1)
    );
    assert_eq!(px(&img, w, 1, 6), [0, 0, 255, 255]);
    assert!(
        near(px(&img, w, 6, 6), [255, 128, 255, 255]),
        "{:?}",
        px(&img, w, 6, 6)
    );

    // Second draw after changing the globals and the tint between draws:
    // each draw keeps its own values.
    b.buffer_subdata(
        &BufferSubdata {
            res: ubo,
            offset: 0,
        },
        bytemuck::cast_slice(&[0.0f32, 1.0, 1.0, 1.0]),
    );
    let globals: Vec<f32> = vec![1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0];
    b.set_global_constants(
        &SetGlobalConstants { shader: sh },
        bytemuck::cast_slice(&globals),
    );
    b.draw(
        &Draw {
            mode: GL_TRIANGLE_STRIP,
            count: 4,
            instance_count: 1,
            ..Default::default()
        },
        &[],
    );
    let img = read(&mut b, 0, 0, w, h);
    assert_eq!(px(&img, w, 1, 1), [255, 0, 0, 255], "first draw untouched");
    assert_eq!(
        px(&img, w, 6, 6),
        [0, 255, 255, 255],
        "second draw: red tinted out"
    );

    // A PRIMITIVES_GENERATED query and an occlusion query counting at the
    // same time, across a submission (the read-back in the middle submits,
    // so each query is counted in two segments).
    let prims = Handle::new(20, 1);
    let occ = Handle::new(21, 1);
    b.query_begin(&QueryBegin {
        query: prims,
        target: GL_PRIMITIVES_GENERATED,
        ..Default::default()
    });
    b.query_begin(&QueryBegin {
        query: occ,
        target: GL_SAMPLES_PASSED,
        ..Default::default()
    });
    let strip = Draw {
        mode: GL_TRIANGLE_STRIP,
        count: 4,
        instance_count: 1,
        ..Default::default()
    };
    b.draw(&strip, &[]);
    let _ = read(&mut b, 0, 0, w, h);
    b.draw(&strip, &[]);
    b.query_end(&QueryEnd {
        query: prims,
        target: GL_PRIMITIVES_GENERATED,
        ..Default::default()
    });
    b.query_end(&QueryEnd {
        query: occ,
        target: GL_SAMPLES_PASSED,
        ..Default::default()
    });
    let result = |b: &mut VulkanBackend, query| {
        let mut reply = Vec::new();
        b.query_result(
            &QueryResult {
                query,
                wait: 1,
                ..Default::default()
            },
            &mut reply,
        );
        assert_eq!(reply.len(), 16);
        assert_eq!(reply[0], 1, "result available");
        u64::from_le_bytes(reply[8..16].try_into().unwrap())
    };
    // Two strips of two triangles; each covers the top-right quadrant
    // (4x4 pixels of the 8x8 surface).
    assert_eq!(result(&mut b, occ), 2 * 16, "samples passed");
    let generated = result(&mut b, prims);
    if b.device_name().contains("llvmpipe") {
        // lavapipe has VK_EXT_primitives_generated_query.
        assert_eq!(generated, 4, "primitives generated");
    } else {
        assert!(generated == 4 || generated == 0, "{generated}");
    }

    // Client indices + line loop + bad mode: no panic.
    b.draw(
        &Draw {
            mode: GL_TRIANGLE_STRIP,
            index_size: 2,
            count: 4,
            instance_count: 1,
            ..Default::default()
        },
        &[0, 0, 1, 0, 2, 0, 3, 0],
    );
    b.draw(
        &Draw {
            mode: GL_LINE_LOOP,
            count: 4,
            instance_count: 1,
            ..Default::default()
        },
        &[],
    );
    b.draw(
        &Draw {
            mode: 0x1234,
            count: 4,
            ..Default::default()
        },
        &[],
    );
    let mut out = Vec::new();
    b.finish(&Finish::default(), &mut out);
    b.delete_shader(&DeleteShader { cso: sh });
    b.resource_destroy(&ResourceDestroy { res: tex });
    b.draw(
        &Draw {
            mode: GL_TRIANGLE_STRIP,
            count: 4,
            instance_count: 1,
            ..Default::default()
        },
        &[],
    );
}

/// Texture uploads the host writes in place (LINEAR images on CPU
/// devices) must not overtake recorded draws that sample the texture, and
/// must land where a later draw reads them.
#[test]
fn buffer_texture_reads_its_buffer_as_a_texel_buffer() {
    const GL_TEXTURE_BUFFER: u32 = 0x8C2A;
    let Some(mut b) = open() else { return };
    let mut reply = Vec::new();
    b.get_caps(&GetCaps::default(), &mut reply);
    let caps: Caps = bytemuck::pod_read_unaligned(&reply);
    assert!(caps.implements(Opcode::TextureBuffer as u16));
    let (w, h) = (8u32, 2u32);
    current_surface(&mut b, w, h);
    clear_color(&mut b, [0.0, 0.0, 0.0, 0.0]);
    textured_quad(&mut b);

    // The same vertex stage with a fragment stage reading a samplerBuffer
    // at unit 0.
    let sh = vertex_fragment_shader(
        &mut b,
        Handle::new(2, 1),
        include_bytes!("data/draw.vert.spv"),
        include_bytes!("data/texbuf.frag.spv"),
    );
    let globals: Vec<f32> = vec![2.0, 2.0, -1.0, -1.0, 1.0, 1.0, 1.0, 1.0];
    b.set_global_constants(
        &SetGlobalConstants { shader: sh },
        bytemuck::cast_slice(&globals),
    );

    // Four RGBA8 texels, the whole buffer.
    let texels: [u8; 16] = [
        255, 0, 0, 255, /* red */ 0, 255, 0, 255, /* green */
        0, 0, 255, 255, /* blue */ 255, 255, 255, 255, /* white */
    ];
    let buf = Handle::new(20, 1);
    b.resource_create(
        &ResourceCreate {
            res: buf,
            kind: RESOURCE_BUFFER,
            size: 16,
            ..Default::default()
        },
        &texels,
    );
    let tex = Handle::new(21, 1);
    b.resource_create(
        &ResourceCreate {
            res: tex,
            kind: RESOURCE_TEXTURE,
            target: GL_TEXTURE_BUFFER,
            ..Default::default()
        },
        &[],
    );
    b.texture_buffer(&TextureBuffer {
        res: tex,
        buffer: buf,
        internal_format: GL_RGBA8,
        offset: 0,
        size: 0,
        ..Default::default()
    });
    let view = Handle::new(2, 1);
    b.create_sampler_view(&CreateSamplerView {
        cso: view,
        texture: tex,
        target: GL_TEXTURE_BUFFER,
        ..Default::default()
    });
    let mut views = SetSamplerViews {
        count: 1,
        ..Default::default()
    };
    views.views[0] = view;
    b.set_sampler_views(&views);
    let draw = Draw {
        mode: GL_TRIANGLE_STRIP,
        count: 4,
        instance_count: 1,
        ..Default::default()
    };
    b.draw(&draw, &[]);
    let img = read(&mut b, 0, 0, w, h);
    assert_eq!(px(&img, w, 0, 0), [255, 0, 0, 255]);
    assert_eq!(px(&img, w, 3, 1), [0, 255, 0, 255]);
    assert_eq!(px(&img, w, 5, 0), [0, 0, 255, 255]);
    assert_eq!(px(&img, w, 7, 1), [255, 255, 255, 255]);

    // A later write to the buffer is what the next draw reads.
    b.buffer_subdata(
        &BufferSubdata {
            res: buf,
            offset: 0,
        },
        &[0, 0, 0, 255],
    );
    b.draw(&draw, &[]);
    let img = read(&mut b, 0, 0, w, h);
    assert_eq!(px(&img, w, 0, 0), [0, 0, 0, 255]);
    assert_eq!(px(&img, w, 3, 0), [0, 255, 0, 255]);

    // Detached: the fetches read zeros.
    b.texture_buffer(&TextureBuffer {
        res: tex,
        buffer: Handle::NULL,
        internal_format: GL_RGBA8,
        offset: 0,
        size: 0,
        ..Default::default()
    });
    b.draw(&draw, &[]);
    let img = read(&mut b, 0, 0, w, h);
    assert_eq!(px(&img, w, 3, 0), [0, 0, 0, 0]);
}

#[test]
fn texture_uploads_keep_their_order_with_draws() {
    let Some(mut b) = open() else { return };
    let (w, h) = (8u32, 8u32);
    current_surface(&mut b, w, h);
    clear_color(&mut b, [0.0, 0.0, 0.0, 0.0]);
    let (sh, tex, _ubo) = textured_quad(&mut b);
    let globals = |b: &mut VulkanBackend, xform: [f32; 4]| {
        let g: Vec<f32> = [xform, [1.0; 4]].concat();
        b.set_global_constants(&SetGlobalConstants { shader: sh }, bytemuck::cast_slice(&g));
    };
    let fill = |b: &mut VulkanBackend, c: [u8; 4]| {
        b.texture_subimage(
            &TextureSubimage {
                res: tex,
                target: GL_TEXTURE_2D,
                width: 2,
                height: 2,
                depth: 1,
                format: GL_RGBA,
                r#type: GL_UNSIGNED_BYTE,
                ..Default::default()
            },
            &c.repeat(4),
        );
    };
    let quad = Draw {
        mode: GL_TRIANGLE_STRIP,
        count: 4,
        instance_count: 1,
        ..Default::default()
    };
    let all = |img: &[u8], x0: u32, x1: u32, want: [u8; 4]| {
        for y in 0..h {
            for x in x0..x1 {
                assert_eq!(px(img, w, x, y), want, "pixel ({x},{y})");
            }
        }
    };
    let _ = read(&mut b, 0, 0, w, h);
    let lavapipe = b.device_name().contains("llvmpipe")
        && std::env::var_os("MOBILEGL_VK_HOST_IMAGES").is_none();
    let writes = b.host_image_writes();

    // Idle device, nothing recorded: written in place on lavapipe.
    const YELLOW: [u8; 4] = [255, 255, 0, 255];
    const CYAN: [u8; 4] = [0, 255, 255, 255];
    const MAGENTA: [u8; 4] = [255, 0, 255, 255];
    fill(&mut b, YELLOW);
    globals(&mut b, [2.0, 2.0, -1.0, -1.0]);
    b.draw(&quad, &[]);
    all(&read(&mut b, 0, 0, w, h), 0, w, YELLOW);
    if lavapipe {
        assert_eq!(
            b.host_image_writes() - writes,
            1,
            "idle texture written in place"
        );
    }

    // A recorded draw samples the texture: the next upload waits its turn.
    globals(&mut b, [1.0, 2.0, -1.0, -1.0]);
    b.draw(&quad, &[]);
    fill(&mut b, CYAN);
    globals(&mut b, [1.0, 2.0, 0.0, -1.0]);
    b.draw(&quad, &[]);
    let img = read(&mut b, 0, 0, w, h);
    all(&img, 0, w / 2, YELLOW);
    all(&img, w / 2, w, CYAN);
    if lavapipe {
        assert_eq!(
            b.host_image_writes() - writes,
            1,
            "upload after a draw staged"
        );
    }

    // Only a clear recorded: it is submitted and the host writes meanwhile.
    clear_color(&mut b, [0.0, 0.0, 0.0, 0.0]);
    fill(&mut b, MAGENTA);
    globals(&mut b, [2.0, 2.0, -1.0, -1.0]);
    b.draw(&quad, &[]);
    all(&read(&mut b, 0, 0, w, h), 0, w, MAGENTA);
    if lavapipe {
        assert_eq!(
            b.host_image_writes() - writes,
            2,
            "upload after a clear in place"
        );
    }
}

#[test]
fn garbage_payloads_never_panic() {
    let Some(mut b) = open() else { return };
    let mut out = Vec::new();
    // No context current.
    b.draw(
        &Draw {
            mode: 4,
            count: 3,
            ..Default::default()
        },
        &[],
    );
    b.clear(&Clear::default());
    b.read_pixels(
        &ReadPixels {
            width: 2,
            height: 2,
            format: GL_RGBA,
            r#type: GL_UNSIGNED_BYTE,
            ..Default::default()
        },
        &mut out,
    );
    current_surface(&mut b, 4, 4);
    b.create_shader(
        &CreateShader {
            cso: Handle::new(2, 1),
            stage_mask: 1,
            stage_words: [3, 0, 0, 0, 0, 0],
            ..Default::default()
        },
        &[1, 2, 3, 4, 5],
    );
    b.bind_shader(&BindShader {
        cso: Handle::new(2, 1),
    });
    b.draw(
        &Draw {
            mode: 4,
            count: 3,
            instance_count: 1,
            ..Default::default()
        },
        &[],
    );
    b.texture_image(
        &TextureImage {
            res: Handle::new(5, 5),
            target: GL_TEXTURE_2D,
            width: 4,
            height: 4,
            ..Default::default()
        },
        &[0; 3],
    );
    b.resource_create(
        &ResourceCreate {
            res: Handle::new(6, 1),
            kind: RESOURCE_TEXTURE,
            target: GL_TEXTURE_2D,
            ..Default::default()
        },
        &[],
    );
    b.texture_image(
        &TextureImage {
            res: Handle::new(6, 1),
            target: GL_TEXTURE_2D,
            internal_format: GL_RGBA8,
            width: 4,
            height: 4,
            depth: 1,
            format: GL_RGBA,
            r#type: GL_UNSIGNED_BYTE,
            ..Default::default()
        },
        &[0; 3],
    );
    b.texture_subimage(
        &TextureSubimage {
            res: Handle::new(6, 1),
            target: GL_TEXTURE_2D,
            x: 3,
            y: 3,
            width: 4,
            height: 4,
            depth: 1,
            format: GL_RGBA,
            r#type: GL_UNSIGNED_BYTE,
            ..Default::default()
        },
        &[0; 64],
    );
    b.read_pixels(
        &ReadPixels {
            width: u32::MAX,
            height: u32::MAX,
            format: GL_RGBA,
            r#type: GL_UNSIGNED_BYTE,
            ..Default::default()
        },
        &mut out,
    );
    b.fence_wait(
        &FenceWait {
            fence: Handle::new(9, 9),
            ..Default::default()
        },
        &mut out,
    );
    assert_eq!(out, FENCE_STATUS_SIGNALED.to_le_bytes());
    b.surface_create(&SurfaceCreate {
        surface: Handle::new(2, 1),
        width: 0,
        height: 1,
        ..Default::default()
    });
    b.resource_create(
        &ResourceCreate {
            res: Handle::new(8, 1),
            kind: 77,
            ..Default::default()
        },
        &[],
    );
    b.make_current(&MakeCurrent {
        ctx: Handle::new(42, 1),
        ..Default::default()
    });
    b.context_destroy(&ContextDestroy { ctx: CTX });
    b.clear(&Clear::default());
}

/// A quad drawer over the depth shader (default block at binding 0).
struct DepthRig {
    sh: Handle,
}

impl DepthRig {
    fn new(b: &mut VulkanBackend) -> DepthRig {
        let vs = words(include_bytes!("data/depth.vert.spv"));
        let fs = words(include_bytes!("data/depth.frag.spv"));
        let mut blob: Vec<u8> = Vec::new();
        blob.extend(vs.iter().flat_map(|w| w.to_le_bytes()));
        blob.extend(fs.iter().flat_map(|w| w.to_le_bytes()));
        let sh = Handle::new(5, 1);
        let mut stage_words = [0u32; 6];
        stage_words[STAGE_VERTEX] = vs.len() as u32;
        stage_words[STAGE_FRAGMENT] = fs.len() as u32;
        b.create_shader(
            &CreateShader {
                cso: sh,
                stage_mask: (1 << STAGE_VERTEX) | (1 << STAGE_FRAGMENT),
                stage_words,
                global_binding: 0,
                global_size: 48,
                ..Default::default()
            },
            &blob,
        );
        b.bind_shader(&BindShader { cso: sh });
        let quad: Vec<f32> = vec![0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0];
        let vbo = Handle::new(20, 1);
        b.resource_create(
            &ResourceCreate {
                res: vbo,
                kind: RESOURCE_BUFFER,
                size: 32,
                ..Default::default()
            },
            bytemuck::cast_slice(&quad),
        );
        let mut ve = CreateVertexElements {
            cso: Handle::new(2, 1),
            enabled_mask: 1,
            ..Default::default()
        };
        ve.format[0] = 2 | (GL_FLOAT_TYPE << 8);
        b.create_vertex_elements(&ve);
        b.bind_vertex_elements(&BindVertexElements { cso: ve.cso });
        let mut vb = SetVertexBuffers {
            count: 16,
            ..Default::default()
        };
        vb.buffers[0] = vbo;
        vb.strides[0] = 8;
        b.set_vertex_buffers(&vb);
        DepthRig { sh }
    }

    /// Fill NDC [x0,x1]x[-1,1] at depth `z` with `color`.
    fn quad(&self, b: &mut VulkanBackend, x0: f32, x1: f32, z: f32, color: [f32; 4]) {
        let g: Vec<f32> = vec![
            x1 - x0,
            2.0,
            x0,
            -1.0,
            color[0],
            color[1],
            color[2],
            color[3],
            z,
            0.0,
            0.0,
            0.0,
        ];
        b.set_global_constants(
            &SetGlobalConstants { shader: self.sh },
            bytemuck::cast_slice(&g),
        );
        b.draw(
            &Draw {
                mode: GL_TRIANGLE_STRIP,
                count: 4,
                instance_count: 1,
                ..Default::default()
            },
            &[],
        );
    }
}

const GL_LESS: u32 = 0x0201;
const GL_DEPTH_COMPONENT: u32 = 0x1902;
const GL_BACK: u32 = 0x0405;
const GL_CCW: u32 = 0x0901;
const GL_CW: u32 = 0x0900;

#[test]
fn depth_uses_gl_clip_space_and_winding() {
    let Some(mut b) = open() else { return };
    let (w, h) = (8u32, 8u32);
    current_surface(&mut b, w, h);
    clear_color(&mut b, [0.0, 0.0, 0.0, 1.0]);
    let rig = DepthRig::new(&mut b);
    let rs = CreateRenderState {
        cso: Handle::new(9, 1),
        blend_src_rgb: 1,
        blend_src_alpha: 1,
        color_write_mask: u32::MAX,
        depth_test: 1,
        depth_write: 1,
        depth_func: GL_LESS,
        cull_face: GL_BACK,
        front_face: GL_CCW,
        ..Default::default()
    };
    b.create_render_state(&rs);
    b.bind_render_state(&BindRenderState { cso: rs.cso });
    rig.quad(&mut b, -1.0, 1.0, 0.5, [1.0, 0.0, 0.0, 1.0]);
    // GL z = -0.5 is window depth 0.25 (in front); Vulkan's [0,1] clip
    // volume would drop it entirely.
    rig.quad(&mut b, -1.0, 1.0, -0.5, [0.0, 1.0, 0.0, 1.0]);
    // Behind the green one: fails LESS.
    rig.quad(&mut b, -1.0, 0.0, 0.0, [0.0, 0.0, 1.0, 1.0]);
    let img = read(&mut b, 0, 0, w, h);
    assert!(
        img.chunks(4).all(|p| p == [0, 255, 0, 255]),
        "{:?}",
        &img[..16]
    );
    let mut out = Vec::new();
    b.read_pixels(
        &ReadPixels {
            x: 3,
            y: 3,
            width: 1,
            height: 1,
            format: GL_DEPTH_COMPONENT,
            r#type: GL_FLOAT,
        },
        &mut out,
    );
    let d = f32::from_le_bytes(out[..4].try_into().unwrap());
    assert!((d - 0.25).abs() < 1e-4, "depth {d}");

    // Winding: the strip's first triangle is counter-clockwise in GL
    // window space, so culling back faces keeps it with front = CCW ...
    let cull = |front: u32| CreateRenderState {
        cso: Handle::new(10, front),
        blend_src_rgb: 1,
        blend_src_alpha: 1,
        color_write_mask: u32::MAX,
        cull_enable: 1,
        cull_face: GL_BACK,
        front_face: front,
        ..Default::default()
    };
    b.create_render_state(&cull(GL_CCW));
    b.bind_render_state(&BindRenderState {
        cso: Handle::new(10, GL_CCW),
    });
    rig.quad(&mut b, -1.0, 0.0, 0.0, [1.0, 1.0, 0.0, 1.0]);
    // ... and drops it with front = CW.
    b.create_render_state(&cull(GL_CW));
    b.bind_render_state(&BindRenderState {
        cso: Handle::new(10, GL_CW),
    });
    rig.quad(&mut b, 0.0, 1.0, 0.0, [1.0, 1.0, 0.0, 1.0]);
    let img = read(&mut b, 0, 0, w, h);
    assert_eq!(px(&img, w, 1, 1), [255, 255, 0, 255], "front-facing kept");
    assert_eq!(px(&img, w, 6, 1), [0, 255, 0, 255], "back-facing culled");
}

#[test]
fn colour_masked_clear_keeps_masked_channels() {
    let Some(mut b) = open() else { return };
    current_surface(&mut b, 8, 8);
    clear_color(&mut b, [0.2, 0.4, 0.6, 0.8]);
    let rs = CreateRenderState {
        cso: Handle::new(4, 1),
        color_write_mask: 0b1001, // R and A only
        scissor_enable: 1,
        ..Default::default()
    };
    b.create_render_state(&rs);
    b.bind_render_state(&BindRenderState { cso: rs.cso });
    b.set_scissor(&SetScissor {
        x: 0,
        y: 0,
        width: 4,
        height: 8,
    });
    b.clear(&Clear {
        buffers: CLEAR_COLOR_ALL,
        color_type: CLEAR_FLOAT,
        color: [1.0f32, 1.0, 1.0, 1.0].map(f32::to_bits),
        ..Default::default()
    });
    let img = read(&mut b, 0, 0, 8, 8);
    assert_eq!(px(&img, 8, 1, 1), [255, 102, 153, 255]);
    assert_eq!(px(&img, 8, 6, 6), [51, 102, 153, 204]);
}

#[test]
fn render_state_toggles_between_draws_bind_their_pipelines() {
    let Some(mut b) = open() else { return };
    let (w, h) = (8u32, 8u32);
    current_surface(&mut b, w, h);
    clear_color(&mut b, [0.0, 0.0, 0.0, 1.0]);
    let rig = DepthRig::new(&mut b);
    // Two states that differ only in what the pipeline is keyed on: every
    // channel written, or none.
    let state = |slot: u32, mask: u32| CreateRenderState {
        cso: Handle::new(20 + slot, 1),
        blend_src_rgb: 1,
        blend_src_alpha: 1,
        color_write_mask: mask,
        ..Default::default()
    };
    let (write, keep) = (state(0, u32::MAX), state(1, 0));
    b.create_render_state(&write);
    b.create_render_state(&keep);
    let bind = |b: &mut VulkanBackend, rs: &CreateRenderState| {
        b.bind_render_state(&BindRenderState { cso: rs.cso })
    };
    // Columns 0-1, 2-3, 4-5, 6-7 of the 8-pixel-wide target.
    let col = |i: usize| (-1.0 + 0.5 * i as f32, -0.5 + 0.5 * i as f32);
    let colors = [
        [1.0, 0.0, 0.0, 1.0],
        [0.0, 1.0, 0.0, 1.0],
        [0.0, 0.0, 1.0, 1.0],
        [1.0, 1.0, 0.0, 1.0],
    ];
    // Twice in one frame: the first round makes both pipelines (full
    // path), the second switches between them on the light path.
    for round in 0..2 {
        for (i, c) in colors.iter().enumerate() {
            bind(&mut b, if i % 2 == 0 { &write } else { &keep });
            let (x0, x1) = col(i);
            let c = if round == 0 { [0.5, 0.5, 0.5, 1.0] } else { *c };
            rig.quad(&mut b, x0, x1, 0.0, c);
        }
    }
    assert!(
        b.light_render_states() >= 3,
        "the light path took {} render-state changes",
        b.light_render_states()
    );
    let img = read(&mut b, 0, 0, w, h);
    // Written columns hold the second round's colour; masked ones stay
    // black (a stale pipeline would have written grey or the colour).
    assert_eq!(px(&img, w, 1, 4), [255, 0, 0, 255], "column 0");
    assert_eq!(px(&img, w, 3, 4), [0, 0, 0, 255], "column 1 (masked)");
    assert_eq!(px(&img, w, 5, 4), [0, 0, 255, 255], "column 2");
    assert_eq!(px(&img, w, 7, 4), [0, 0, 0, 255], "column 3 (masked)");
}
