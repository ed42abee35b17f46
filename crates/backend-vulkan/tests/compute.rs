//! Compute dispatches, storage buffers and storage images
//! (`dispatch_compute`, `set_shader_buffers`, `set_shader_images`,
//! `memory_barrier`). Drives `VulkanBackend` through the MGPipe trait
//! methods on whatever Vulkan device the loader finds (lavapipe on CI);
//! skips without one.
//!
//! The SPIR-V was generated once with
//! `glslangValidator -V --target-env vulkan1.0 tests/data/<name>` from GLSL
//! written in the frontend's conventions (everything in set 0; uniform
//! block i, storage block j and image unit k at bindings i, j and k, so
//! they collide), so the backend's set rewrite is exercised.

mod common;
use common::{current_surface, open, words};

use backend_vulkan::VulkanBackend;
use mgpipe::calls::*;
use mgpipe::consts::*;
use mgpipe::{Caps, Context, Handle, Opcode, Screen};

const GL_RGBA: u32 = 0x1908;
const GL_UNSIGNED_BYTE: u32 = 0x1401;
const GL_FLOAT: u32 = 0x1406;
const GL_RGBA8: u32 = 0x8058;
const GL_R32UI: u32 = 0x8236;
const GL_RED_INTEGER: u32 = 0x8D94;
const GL_UNSIGNED_INT: u32 = 0x1405;
const GL_TEXTURE_2D: u32 = 0x0DE1;
const GL_TRIANGLE_STRIP: u32 = 5;
const GL_WRITE_ONLY: u32 = 0x88B9;
const GL_ALL_BARRIER_BITS: u32 = 0xFFFF_FFFF;
const GL_SHADER_STORAGE_BARRIER_BIT: u32 = 0x2000;

const FBO: Handle = Handle::new(3, 1);

/// Create program `cso` from (stage, SPIR-V) pairs, in the frontend's blob
/// layout (stages back to back, in stage order).
fn program(
    b: &mut VulkanBackend,
    cso: Handle,
    stages: &[(usize, &[u8])],
    global_binding: u32,
    global_size: u32,
) {
    let mut blob: Vec<u8> = Vec::new();
    let mut stage_words = [0u32; 6];
    let mut stage_mask = 0;
    for &(stage, spv) in stages {
        let w = words(spv);
        stage_words[stage] = w.len() as u32;
        stage_mask |= 1 << stage;
        blob.extend(w.iter().flat_map(|w| w.to_le_bytes()));
    }
    b.create_shader(
        &CreateShader {
            cso,
            stage_mask,
            stage_words,
            global_binding,
            global_size,
            ..Default::default()
        },
        &blob,
    );
}

fn buffer(b: &mut VulkanBackend, res: Handle, size: u64, init: &[u8]) {
    b.resource_create(
        &ResourceCreate {
            res,
            kind: RESOURCE_BUFFER,
            size,
            ..Default::default()
        },
        init,
    );
}

fn readback(b: &mut VulkanBackend, res: Handle, offset: u64, size: u64) -> Vec<u32> {
    let mut out = Vec::new();
    b.buffer_readback(&BufferReadback { res, offset, size }, &mut out);
    assert_eq!(out.len() as u64, size);
    words(&out)
}

fn caps(b: &mut VulkanBackend) -> Caps {
    let mut reply = Vec::new();
    b.get_caps(&GetCaps::default(), &mut reply);
    bytemuck::pod_read_unaligned(&reply)
}

/// An 8x8 RGBA8 2D texture `tex` whose every texel is `fill`.
fn texture(b: &mut VulkanBackend, tex: Handle, fill: [u8; 4]) {
    b.resource_create(
        &ResourceCreate {
            res: tex,
            kind: RESOURCE_TEXTURE,
            target: GL_TEXTURE_2D,
            ..Default::default()
        },
        &[],
    );
    let texels: Vec<u8> = (0..64).flat_map(|_| fill).collect();
    b.texture_image(
        &TextureImage {
            res: tex,
            target: GL_TEXTURE_2D,
            level: 0,
            internal_format: GL_RGBA8,
            width: 8,
            height: 8,
            depth: 1,
            format: GL_RGBA,
            r#type: GL_UNSIGNED_BYTE,
        },
        &texels,
    );
}

/// Read all 8x8 texels of level 0 of texture `tex` through a framebuffer
/// read surface, as the frontend reads a texture attachment.
fn read_texture(b: &mut VulkanBackend, tex: Handle) -> Vec<u8> {
    b.set_read_surface(&SetReadSurface {
        fbo: FBO,
        color: tex,
        color_kind: SURFACE_TEXTURE,
        ..Default::default()
    });
    let mut out = Vec::new();
    b.read_pixels(
        &ReadPixels {
            x: 0,
            y: 0,
            width: 8,
            height: 8,
            format: GL_RGBA,
            r#type: GL_UNSIGNED_BYTE,
        },
        &mut out,
    );
    b.set_read_surface(&SetReadSurface {
        fbo: Handle::DEFAULT_FRAMEBUFFER,
        ..Default::default()
    });
    assert_eq!(out.len(), 8 * 8 * 4);
    out
}

fn read_surface(b: &mut VulkanBackend, w: u32, h: u32) -> Vec<u8> {
    let mut out = Vec::new();
    b.read_pixels(
        &ReadPixels {
            x: 0,
            y: 0,
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

fn dispatch(groups: [u32; 3]) -> DispatchCompute {
    DispatchCompute {
        groups,
        ..Default::default()
    }
}

fn px(img: &[u8], w: u32, x: u32, y: u32) -> [u8; 4] {
    let i = ((y * w + x) * 4) as usize;
    [img[i], img[i + 1], img[i + 2], img[i + 3]]
}

fn image_unit(tex: Handle, format: u32) -> SetShaderImages {
    let mut si = SetShaderImages {
        count: 1,
        ..Default::default()
    };
    si.resources[0] = tex;
    si.levels[0] = 0;
    si.layers[0] = 0;
    si.access[0] = GL_WRITE_ONLY;
    si.formats[0] = format;
    si
}

/// The texel `image_store.comp` writes at (x, y) with `u_fill.zw` =
/// (0.2, 1.0).
fn stored(x: u32, y: u32) -> [u8; 4] {
    [(16 * x) as u8, (16 * y) as u8, 51, 255]
}

/// `stored` with `u_fill.z` = 0.6.
fn stored2(x: u32, y: u32) -> [u8; 4] {
    [(16 * x) as u8, (16 * y) as u8, 153, 255]
}

#[test]
fn caps_advertise_compute_and_storage() {
    let Some(mut b) = open() else { return };
    let c = caps(&mut b);
    for op in [
        Opcode::SetShaderBuffers,
        Opcode::SetShaderImages,
        Opcode::MemoryBarrier,
        Opcode::DispatchCompute,
    ] {
        assert!(c.implements(op as u16), "{op:?} not in the call mask");
    }
    assert!(c.max_compute_work_group_count.iter().all(|&n| n >= 65535));
    assert!(c.max_compute_work_group_size[0] >= 128);
    assert!(c.max_compute_work_group_invocations >= 128);
    assert!(c.max_compute_shared_memory_size >= 16384);
    assert!(
        (1..=8).contains(&c.max_image_units),
        "{}",
        c.max_image_units
    );
    assert!((4..=16).contains(&c.max_shader_storage_buffer_bindings));
    assert!(c.max_shader_storage_block_size >= 1 << 27);
    let a = c.shader_storage_buffer_offset_alignment;
    assert!(a.is_power_of_two() && a <= 256, "{a}");
}

/// (1) A compute shader `imageStore`s a pattern into a 2D RGBA8 texture;
/// after `memory_barrier` a read through a framebuffer sees exactly it.
#[test]
fn compute_image_store_then_read_pixels() {
    let Some(mut b) = open() else { return };
    current_surface(&mut b, 4, 4);
    let tex = Handle::new(11, 1);
    texture(&mut b, tex, [9, 9, 9, 9]);
    let sh = Handle::new(1, 1);
    program(
        &mut b,
        sh,
        &[(STAGE_COMPUTE, include_bytes!("data/image_store.comp.spv"))],
        0,
        16,
    );
    b.bind_shader(&BindShader { cso: sh });
    b.set_global_constants(
        &SetGlobalConstants { shader: sh },
        bytemuck::cast_slice(&[0.0f32, 0.0, 0.2, 1.0]),
    );
    b.set_shader_images(&image_unit(tex, GL_RGBA8));
    // 4x4 invocations per group: the bottom-left 4x8 texels only.
    b.dispatch_compute(&dispatch([1, 2, 1]));
    b.memory_barrier(&MemoryBarrier {
        barriers: GL_ALL_BARRIER_BITS,
        ..Default::default()
    });
    let img = read_texture(&mut b, tex);
    for y in 0..8 {
        for x in 0..8 {
            let want = if x < 4 { stored(x, y) } else { [9, 9, 9, 9] };
            assert_eq!(px(&img, 8, x, y), want, "texel ({x},{y})");
        }
    }
    // Again with another default block, over every texel (no barrier:
    // the read-back after a dispatch sees its writes anyway).
    b.set_global_constants(
        &SetGlobalConstants { shader: sh },
        bytemuck::cast_slice(&[0.0f32, 0.0, 0.6, 1.0]),
    );
    b.dispatch_compute(&dispatch([2, 2, 1]));
    let img = read_texture(&mut b, tex);
    for y in 0..8 {
        for x in 0..8 {
            assert_eq!(px(&img, 8, x, y), stored2(x, y), "texel ({x},{y})");
        }
    }
}

/// (2) A compute shader reads one storage buffer and writes another bound
/// at an offset (uniform block 0 collides with both storage bindings).
#[test]
fn compute_writes_a_storage_buffer_at_an_offset() {
    let Some(mut b) = open() else { return };
    current_surface(&mut b, 4, 4);
    let align = caps(&mut b).shader_storage_buffer_offset_alignment as u64;
    let off = align.max(16);
    let sh = Handle::new(1, 1);
    program(
        &mut b,
        sh,
        &[(STAGE_COMPUTE, include_bytes!("data/ssbo_write.comp.spv"))],
        1,
        0,
    );
    b.bind_shader(&BindShader { cso: sh });
    let params = Handle::new(10, 1);
    buffer(&mut b, params, 16, bytemuck::cast_slice(&[3u32, 0, 0, 0]));
    let mut cb = SetConstantBuffers {
        count: 1,
        ..Default::default()
    };
    cb.buffers[0] = params;
    cb.sizes[0] = 16;
    b.set_constant_buffers(&cb);
    let input = Handle::new(11, 1);
    let vals: Vec<u32> = (0..16).map(|i| 100 + i).collect();
    buffer(&mut b, input, 64, bytemuck::cast_slice(&vals));
    let out = Handle::new(12, 1);
    let total = off + 64 + 16;
    let sentinel = vec![0xEEu8; total as usize];
    buffer(&mut b, out, total, &sentinel);
    let mut sb = SetShaderBuffers {
        count: 2,
        ..Default::default()
    };
    sb.buffers[0] = out;
    sb.offsets[0] = off;
    sb.sizes[0] = 64;
    sb.buffers[1] = input;
    b.set_shader_buffers(&sb);
    b.dispatch_compute(&dispatch([2, 1, 1]));
    b.memory_barrier(&MemoryBarrier {
        barriers: GL_SHADER_STORAGE_BARRIER_BIT,
        ..Default::default()
    });
    let got = readback(&mut b, out, 0, total);
    let (pre, rest) = got.split_at((off / 4) as usize);
    let (data, post) = rest.split_at(16);
    assert!(pre.iter().all(|&w| w == 0xEEEE_EEEE), "before the range");
    let want: Vec<u32> = (0..16).map(|g| (100 + g) * 3 + g).collect();
    assert_eq!(data, &want[..]);
    assert!(post.iter().all(|&w| w == 0xEEEE_EEEE), "after the range");

    // A graphics program bound: the dispatch is refused, nothing written.
    let gfx = Handle::new(2, 1);
    program(
        &mut b,
        gfx,
        &[
            (STAGE_VERTEX, include_bytes!("data/draw.vert.spv")),
            (STAGE_FRAGMENT, include_bytes!("data/ssbo.frag.spv")),
        ],
        1,
        32,
    );
    b.bind_shader(&BindShader { cso: gfx });
    b.buffer_subdata(
        &BufferSubdata {
            res: out,
            offset: 0,
        },
        &sentinel,
    );
    b.dispatch_compute(&dispatch([2, 1, 1]));
    let got = readback(&mut b, out, 0, total);
    assert!(got.iter().all(|&w| w == 0xEEEE_EEEE));
}

/// The textured-quad vertex stage (`draw.vert`: `u_xform` maps the unit
/// quad at location 0) with `ssbo.frag`, which counts its fragments in
/// storage block 0 and marks each pixel's slot; bound with a quad buffer
/// and `u_xform` = `xform`.
fn ssbo_draw_rig(b: &mut VulkanBackend, sh: Handle) {
    draw_rig(b, sh, include_bytes!("data/ssbo.frag.spv"));
}

/// `ssbo_draw_rig` with another fragment stage.
fn draw_rig(b: &mut VulkanBackend, sh: Handle, frag: &[u8]) {
    program(
        b,
        sh,
        &[
            (STAGE_VERTEX, include_bytes!("data/draw.vert.spv")),
            (STAGE_FRAGMENT, frag),
        ],
        1,
        32,
    );
    b.bind_shader(&BindShader { cso: sh });
    let quad: Vec<f32> = vec![0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0];
    let vbo = Handle::new(20, 1);
    buffer(b, vbo, 32, bytemuck::cast_slice(&quad));
    let mut ve = CreateVertexElements {
        cso: Handle::new(1, 1),
        enabled_mask: 1,
        ..Default::default()
    };
    ve.format[0] = 2 | (GL_FLOAT << 8);
    b.create_vertex_elements(&ve);
    b.bind_vertex_elements(&BindVertexElements { cso: ve.cso });
    let mut vb = SetVertexBuffers {
        count: 1,
        ..Default::default()
    };
    vb.buffers[0] = vbo;
    vb.strides[0] = 8;
    b.set_vertex_buffers(&vb);
}

fn set_xform(b: &mut VulkanBackend, sh: Handle, xform: [f32; 4]) {
    let mut g = xform.to_vec();
    g.extend_from_slice(&[1.0; 4]);
    b.set_global_constants(&SetGlobalConstants { shader: sh }, bytemuck::cast_slice(&g));
}

fn quad(b: &mut VulkanBackend) {
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

/// (3) A fragment shader writes a storage buffer during a draw; after
/// `memory_barrier` a read-back sees every fragment's write.
#[test]
fn fragment_shader_writes_a_storage_buffer() {
    let Some(mut b) = open() else { return };
    current_surface(&mut b, 8, 8);
    b.clear(&Clear {
        buffers: CLEAR_COLOR_ALL,
        color_type: CLEAR_FLOAT,
        color: [1.0f32, 0.0, 0.0, 1.0].map(f32::to_bits),
        depth: 1.0,
        ..Default::default()
    });
    let sh = Handle::new(1, 1);
    ssbo_draw_rig(&mut b, sh);
    let hits = Handle::new(21, 1);
    buffer(&mut b, hits, 4 + 64 * 4, &[]);
    let mut sb = SetShaderBuffers {
        count: 1,
        ..Default::default()
    };
    sb.buffers[0] = hits;
    b.set_shader_buffers(&sb);
    // The whole surface.
    set_xform(&mut b, sh, [2.0, 2.0, -1.0, -1.0]);
    quad(&mut b);
    b.memory_barrier(&MemoryBarrier {
        barriers: GL_ALL_BARRIER_BITS,
        ..Default::default()
    });
    let got = readback(&mut b, hits, 0, 4 + 64 * 4);
    assert_eq!(got[0], 64, "fragments counted");
    let want: Vec<u32> = (1..=64).collect();
    assert_eq!(&got[1..], &want[..], "every pixel's slot marked");
    let img = read_surface(&mut b, 8, 8);
    assert!(img.chunks(4).all(|p| p == [0, 255, 0, 255]));
}

/// A fragment shader stores into an R32UI image declared without a format
/// (a draw binding the image set); the texture then holds every pixel's
/// mark and the colour buffer the draw's colour.
#[test]
fn fragment_shader_stores_to_an_image_without_format() {
    let Some(mut b) = open() else { return };
    current_surface(&mut b, 8, 8);
    let sh = Handle::new(1, 1);
    draw_rig(&mut b, sh, include_bytes!("data/image_store.frag.spv"));
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
    b.texture_storage(&TextureStorage {
        res: tex,
        target: GL_TEXTURE_2D,
        levels: 1,
        internal_format: GL_R32UI,
        width: 8,
        height: 8,
        depth: 1,
    });
    b.set_shader_images(&image_unit(tex, GL_R32UI));
    set_xform(&mut b, sh, [2.0, 2.0, -1.0, -1.0]);
    quad(&mut b);
    b.memory_barrier(&MemoryBarrier {
        barriers: GL_ALL_BARRIER_BITS,
        ..Default::default()
    });
    b.set_read_surface(&SetReadSurface {
        fbo: FBO,
        color: tex,
        color_kind: SURFACE_TEXTURE,
        ..Default::default()
    });
    let mut out = Vec::new();
    b.read_pixels(
        &ReadPixels {
            x: 0,
            y: 0,
            width: 8,
            height: 8,
            format: GL_RED_INTEGER,
            r#type: GL_UNSIGNED_INT,
        },
        &mut out,
    );
    let want: Vec<u32> = (1..=64).collect();
    assert_eq!(words(&out), want);
    b.set_read_surface(&SetReadSurface {
        fbo: Handle::DEFAULT_FRAMEBUFFER,
        ..Default::default()
    });
    let img = read_surface(&mut b, 8, 8);
    assert!(img.chunks(4).all(|p| p == [0, 0, 255, 255]));
}

/// (4) A dispatch between two draws into the same framebuffer ends the
/// rendering instance; the second draw begins another and renders, and
/// both draws' storage writes and the dispatch's land.
#[test]
fn draw_after_dispatch_renders() {
    let Some(mut b) = open() else { return };
    current_surface(&mut b, 8, 8);
    b.clear(&Clear {
        buffers: CLEAR_COLOR_ALL,
        color_type: CLEAR_FLOAT,
        color: [1.0f32, 0.0, 0.0, 1.0].map(f32::to_bits),
        depth: 1.0,
        ..Default::default()
    });
    let gfx = Handle::new(1, 1);
    ssbo_draw_rig(&mut b, gfx);
    let comp = Handle::new(2, 1);
    program(
        &mut b,
        comp,
        &[(STAGE_COMPUTE, include_bytes!("data/image_store.comp.spv"))],
        0,
        16,
    );
    b.set_global_constants(
        &SetGlobalConstants { shader: comp },
        bytemuck::cast_slice(&[0.0f32, 0.0, 0.2, 1.0]),
    );
    let tex = Handle::new(11, 1);
    texture(&mut b, tex, [0, 0, 0, 0]);
    b.set_shader_images(&image_unit(tex, GL_RGBA8));
    let hits = Handle::new(21, 1);
    buffer(&mut b, hits, 4 + 64 * 4, &[]);
    let mut sb = SetShaderBuffers {
        count: 1,
        ..Default::default()
    };
    sb.buffers[0] = hits;
    b.set_shader_buffers(&sb);

    // Left half, then the dispatch, then the right half.
    b.bind_shader(&BindShader { cso: gfx });
    set_xform(&mut b, gfx, [1.0, 2.0, -1.0, -1.0]);
    quad(&mut b);
    // A compute program bound to a draw is refused (nothing drawn).
    b.bind_shader(&BindShader { cso: comp });
    quad(&mut b);
    b.dispatch_compute(&dispatch([2, 2, 1]));
    b.bind_shader(&BindShader { cso: gfx });
    set_xform(&mut b, gfx, [1.0, 2.0, 0.0, -1.0]);
    quad(&mut b);
    b.memory_barrier(&MemoryBarrier {
        barriers: GL_ALL_BARRIER_BITS,
        ..Default::default()
    });

    let img = read_surface(&mut b, 8, 8);
    for y in 0..8 {
        for x in 0..8 {
            assert_eq!(px(&img, 8, x, y), [0, 255, 0, 255], "pixel ({x},{y})");
        }
    }
    let got = readback(&mut b, hits, 0, 4 + 64 * 4);
    assert_eq!(got[0], 64, "fragments of both draws counted");
    let want: Vec<u32> = (1..=64).collect();
    assert_eq!(&got[1..], &want[..]);
    let img = read_texture(&mut b, tex);
    for y in 0..8 {
        for x in 0..8 {
            assert_eq!(px(&img, 8, x, y), stored(x, y), "texel ({x},{y})");
        }
    }
}

/// Unusable bindings are logged and replaced by dummies or skipped; no
/// call panics, and a later valid dispatch still works.
#[test]
fn bad_storage_bindings_never_panic() {
    let Some(mut b) = open() else { return };
    current_surface(&mut b, 4, 4);
    // No shader bound, unknown shader.
    b.dispatch_compute(&dispatch([1, 1, 1]));
    b.bind_shader(&BindShader {
        cso: Handle::new(40, 1),
    });
    b.dispatch_compute(&dispatch([1, 1, 1]));
    let sh = Handle::new(1, 1);
    program(
        &mut b,
        sh,
        &[(STAGE_COMPUTE, include_bytes!("data/image_store.comp.spv"))],
        0,
        16,
    );
    b.bind_shader(&BindShader { cso: sh });
    b.set_global_constants(
        &SetGlobalConstants { shader: sh },
        bytemuck::cast_slice(&[0.0f32, 0.0, 0.2, 1.0]),
    );
    let tex = Handle::new(11, 1);
    texture(&mut b, tex, [7, 7, 7, 7]);
    // Unknown texture, out-of-range level, a format other than the
    // texture's, not an image format, a count beyond the slots.
    for si in [
        image_unit(Handle::new(99, 1), GL_RGBA8),
        SetShaderImages {
            levels: [5; 8],
            ..image_unit(tex, GL_RGBA8)
        },
        image_unit(tex, GL_R32UI),
        image_unit(tex, 0x1234),
        SetShaderImages {
            count: 1000,
            ..image_unit(tex, GL_RGBA8)
        },
    ] {
        b.set_shader_images(&si);
        b.dispatch_compute(&dispatch([1, 1, 1]));
    }
    // Each of those bound a dummy (except the last: count beyond 8 is
    // clamped): the texture holds 7s but for that dispatch's 4x4 corner.
    let img = read_texture(&mut b, tex);
    for y in 0..8 {
        for x in 0..8 {
            let want = if x < 4 && y < 4 {
                stored(x, y)
            } else {
                [7, 7, 7, 7]
            };
            assert_eq!(px(&img, 8, x, y), want, "texel ({x},{y})");
        }
    }
    b.set_shader_images(&image_unit(tex, GL_RGBA8));
    b.dispatch_compute(&dispatch([u32::MAX, 1, 1]));
    b.dispatch_compute(&dispatch([0, 1, 1]));
    let mut sb = SetShaderBuffers {
        count: 99,
        ..Default::default()
    };
    sb.buffers[0] = Handle::new(77, 1);
    sb.offsets[1] = 3;
    b.set_shader_buffers(&sb);
    b.memory_barrier(&MemoryBarrier::default());
    // A storage-buffer program with garbage bindings: dummies.
    let sh2 = Handle::new(2, 1);
    program(
        &mut b,
        sh2,
        &[(STAGE_COMPUTE, include_bytes!("data/ssbo_write.comp.spv"))],
        1,
        0,
    );
    b.bind_shader(&BindShader { cso: sh2 });
    b.dispatch_compute(&dispatch([1, 1, 1]));
    // A compute stage linked with a graphics one is refused at creation.
    let bad = Handle::new(3, 1);
    program(
        &mut b,
        bad,
        &[
            (STAGE_VERTEX, include_bytes!("data/draw.vert.spv")),
            (STAGE_COMPUTE, include_bytes!("data/ssbo_write.comp.spv")),
        ],
        1,
        32,
    );
    b.bind_shader(&BindShader { cso: bad });
    b.dispatch_compute(&dispatch([1, 1, 1]));
    let mut out = Vec::new();
    b.finish(&Finish::default(), &mut out);
}
