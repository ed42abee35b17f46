//! Compute, storage buffers and image units on the real driver (Mesa
//! llvmpipe here and on CI): `set_shader_buffers`, `set_shader_images`,
//! `dispatch_compute`, `memory_barrier`, and the promotion of mutable
//! textures to immutable storage that GLES image units need (images.rs).
// Payloads are built with `..z()` everywhere so generated `_padN` fields
// never matter.
#![allow(clippy::needless_update)]

use backend_gles::GlesBackend;
use mgpipe::consts::*;
use mgpipe::{calls, Caps, Context, Handle, Screen};

#[path = "fixtures/spirv.rs"]
mod fixtures;
#[path = "fixtures/harness.rs"]
mod harness;

use harness::*;

const GL_RGBA16: u32 = 0x805B;
const GL_READ_ONLY: u32 = 0x88B8;
const GL_WRITE_ONLY: u32 = 0x88B9;
const GL_READ_WRITE: u32 = 0x88BA;
const GL_TEXTURE_FETCH_BARRIER_BIT: u32 = 0x0008;
const GL_SHADER_IMAGE_ACCESS_BARRIER_BIT: u32 = 0x0020;
const GL_BUFFER_UPDATE_BARRIER_BIT: u32 = 0x0200;
const GL_FRAMEBUFFER_BARRIER_BIT: u32 = 0x0400;
const GL_SHADER_STORAGE_BARRIER_BIT: u32 = 0x2000;
const GL_CLIENT_MAPPED_BUFFER_BARRIER_BIT: u32 = 0x4000;
const GL_QUERY_BUFFER_BARRIER_BIT: u32 = 0x8000;
const GL_ALL_BARRIER_BITS: u32 = 0xFFFF_FFFF;

fn read_rgba(b: &mut GlesBackend, w: u32, h: u32) -> Vec<u8> {
    let mut reply = Vec::new();
    b.read_pixels(
        &calls::ReadPixels {
            x: 0,
            y: 0,
            width: w,
            height: h,
            format: GL_RGBA,
            r#type: GL_UNSIGNED_BYTE,
        },
        &mut reply,
    );
    reply
}

fn readback(b: &mut GlesBackend, res: Handle, offset: u64, size: u64) -> Vec<u8> {
    let mut reply = Vec::new();
    b.buffer_readback(&calls::BufferReadback { res, offset, size }, &mut reply);
    reply
}

fn new_texture(b: &mut GlesBackend, res: Handle) {
    b.resource_create(
        &calls::ResourceCreate {
            res,
            kind: RESOURCE_TEXTURE,
            target: GL_TEXTURE_2D,
            ..z()
        },
        &[],
    );
}

/// glTexImage2D of an RGBA8 level from RGBA bytes (a mutable texture).
fn tex_image(b: &mut GlesBackend, res: Handle, level: u32, w: u32, h: u32, rgba: &[u8]) {
    b.texture_image(
        &calls::TextureImage {
            res,
            target: GL_TEXTURE_2D,
            level,
            internal_format: GL_RGBA8,
            width: w,
            height: h,
            depth: 1,
            format: GL_RGBA,
            r#type: GL_UNSIGNED_BYTE,
            ..z()
        },
        rgba,
    );
}

fn graphics_shader(b: &mut GlesBackend, cso: Handle, vs: &[u32], fs: &[u32]) {
    let mut words = [0u32; 6];
    words[STAGE_VERTEX] = vs.len() as u32;
    words[STAGE_FRAGMENT] = fs.len() as u32;
    let blob: Vec<u8> = vs.iter().chain(fs).flat_map(|w| w.to_le_bytes()).collect();
    b.create_shader(
        &calls::CreateShader {
            cso,
            stage_mask: (1 << STAGE_VERTEX) | (1 << STAGE_FRAGMENT),
            stage_words: words,
            ..z()
        },
        &blob,
    );
}

fn compute_shader(b: &mut GlesBackend, cso: Handle, cs: &[u32], global: Option<(u32, u32)>) {
    let mut words = [0u32; 6];
    words[STAGE_COMPUTE] = cs.len() as u32;
    let blob: Vec<u8> = cs.iter().flat_map(|w| w.to_le_bytes()).collect();
    let (global_binding, global_size) = global.unwrap_or((0, 0));
    b.create_shader(
        &calls::CreateShader {
            cso,
            stage_mask: 1 << STAGE_COMPUTE,
            stage_words: words,
            global_binding,
            global_size,
            ..z()
        },
        &blob,
    );
}

fn draw_triangle(b: &mut GlesBackend) {
    b.draw(
        &calls::Draw {
            mode: GL_TRIANGLES,
            count: 3,
            instance_count: 1,
            ..z()
        },
        &[],
    );
}

/// Texture unit 0 samples `tex` (level 0 only) with nearest filtering.
fn sample_texture(b: &mut GlesBackend, tex: Handle) {
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
}

/// Image slot `slot` = `tex` at `level` (not layered) with `access` and
/// `format`; every other slot below `slot` unbound.
fn image_slot(b: &mut GlesBackend, slot: usize, tex: Handle, level: u32, access: u32, format: u32) {
    let mut im: calls::SetShaderImages = z();
    im.count = slot as u32 + 1;
    im.resources[slot] = tex;
    im.levels[slot] = level;
    im.access[slot] = access;
    im.formats[slot] = format;
    b.set_shader_images(&im);
}

fn storage_slot(b: &mut GlesBackend, slot: usize, buf: Handle, offset: u64, size: u64) {
    let mut sb: calls::SetShaderBuffers = z();
    sb.count = slot as u32 + 1;
    sb.buffers[slot] = buf;
    sb.offsets[slot] = offset;
    sb.sizes[slot] = size;
    b.set_shader_buffers(&sb);
}

fn dispatch(b: &mut GlesBackend, x: u32, y: u32) {
    b.dispatch_compute(&calls::DispatchCompute {
        groups: [x, y, 1],
        ..z()
    });
}

fn barrier(b: &mut GlesBackend, barriers: u32) {
    b.memory_barrier(&calls::MemoryBarrier {
        barriers,
        by_region: 0,
    });
}

/// What IMG_STORE_COMP writes at (x, y).
fn pattern(x: u32, y: u32) -> [u8; 4] {
    [(x * 30 + 5) as u8, (y * 30 + 7) as u8, (x + y) as u8, 255]
}

/// The pattern over a w x h image, rows bottom-up as glReadPixels returns.
fn pattern_image(w: u32, h: u32) -> Vec<u8> {
    (0..h)
        .flat_map(|y| (0..w).flat_map(move |x| pattern(x, y)))
        .collect()
}

/// The read surface is texture `tex` (level 0).
fn read_texture_surface(b: &mut GlesBackend, tex: Handle) -> calls::SetReadSurface {
    let rs = calls::SetReadSurface {
        fbo: Handle::new(9, 1),
        color: tex,
        color_kind: SURFACE_TEXTURE,
        ..z()
    };
    b.set_read_surface(&rs);
    rs
}

fn texture_framebuffer(tex: Handle) -> calls::SetFramebufferState {
    let mut fb: calls::SetFramebufferState = z();
    fb.fbo = Handle::new(3, 1);
    fb.color[0] = tex;
    fb.color_kind[0] = SURFACE_TEXTURE;
    fb.draw_buffers = [NO_ATTACHMENT; 8];
    fb.draw_buffers[0] = 0;
    fb.width = W;
    fb.height = H;
    fb
}

const IMG_STORE: Handle = Handle::new(10, 1);
const IMG_LOAD: Handle = Handle::new(11, 1);
const SAMPLE: Handle = Handle::new(12, 1);

#[test]
fn compute_image_store_into_a_mutable_texture_then_sample_and_attach() {
    let mut b = setup();
    let tex = Handle::new(1, 1);
    new_texture(&mut b, tex);
    tex_image(&mut b, tex, 0, W, H, &[0x11; (W * H * 4) as usize]);

    // Before the promotion: the texture is a colour attachment, the read
    // surface and sampled on unit 0 (every cache holds its first GL name).
    let fb = texture_framebuffer(tex);
    b.set_framebuffer_state(&fb);
    let rs = read_texture_surface(&mut b, tex);
    assert_eq!(read_rgba(&mut b, 1, 1), [0x11; 4]);
    default_framebuffer(&mut b);
    graphics_shader(&mut b, SAMPLE, fixtures::TRI_VERT, fixtures::TEX_FRAG);
    b.bind_shader(&calls::BindShader { cso: SAMPLE });
    fullscreen_triangle(&mut b);
    sample_texture(&mut b, tex);
    draw_triangle(&mut b);
    assert_eq!(read_rgba(&mut b, 1, 1), [0x11; 4]);
    b.set_read_surface(&rs);

    // imageStore into the glTexImage2D texture: promoted to immutable
    // storage so GLES binds it to the image unit.
    compute_shader(&mut b, IMG_STORE, fixtures::IMG_STORE_COMP, None);
    b.bind_shader(&calls::BindShader { cso: IMG_STORE });
    image_slot(&mut b, 0, tex, 0, GL_WRITE_ONLY, GL_RGBA8);
    dispatch(&mut b, W / 4, H / 4);
    barrier(
        &mut b,
        GL_SHADER_IMAGE_ACCESS_BARRIER_BIT
            | GL_TEXTURE_FETCH_BARRIER_BIT
            | GL_FRAMEBUFFER_BARRIER_BIT
            | GL_QUERY_BUFFER_BARRIER_BIT,
    );
    // The read surface (set before, not set again) reads the new texture.
    assert_eq!(read_rgba(&mut b, W, H), pattern_image(W, H));

    // Sampled: the texture unit takes the new name.
    default_framebuffer(&mut b);
    b.bind_shader(&calls::BindShader { cso: SAMPLE });
    draw_triangle(&mut b);
    assert_eq!(read_rgba(&mut b, W, H), pattern_image(W, H));

    // A colour attachment again, through the framebuffer description set
    // before the promotion (the same record: attached again all the same).
    b.set_framebuffer_state(&fb);
    b.clear(&calls::Clear {
        buffers: CLEAR_COLOR_ALL,
        color: [0.0f32, 0.0, 1.0, 1.0].map(f32::to_bits),
        ..z()
    });
    b.set_read_surface(&rs);
    assert_eq!(
        read_rgba(&mut b, W, H),
        [0, 0, 255, 255].repeat((W * H) as usize)
    );
    // The default surface was not drawn to by the clear.
    default_framebuffer(&mut b);
    assert_eq!(read_rgba(&mut b, 1, 1), pattern(0, 0));
    assert_no_gl_errors(&b);
}

#[test]
fn image_load_reads_every_copied_level() {
    let mut b = setup();
    let tex = Handle::new(1, 1);
    new_texture(&mut b, tex);
    // Two levels of a chain that would go down to 1x1: not mipmap
    // complete, which glCopyImageSubData minds.
    let level0: Vec<u8> = (0..W * H * 4).map(|i| (i * 7 % 251) as u8).collect();
    let level1: Vec<u8> = (0..4 * 4 * 4).map(|i| (200 - i) as u8).collect();
    tex_image(&mut b, tex, 0, W, H, &level0);
    tex_image(&mut b, tex, 1, 4, 4, &level1);
    let out = Handle::new(2, 1);
    buffer(&mut b, out, &[0u8; (W * H * 4) as usize]);
    compute_shader(&mut b, IMG_LOAD, fixtures::IMG_LOAD_COMP, None);
    b.bind_shader(&calls::BindShader { cso: IMG_LOAD });
    storage_slot(&mut b, 0, out, 0, 0);
    // Image binding 2 (slot 2), level 1.
    image_slot(&mut b, 2, tex, 1, GL_READ_ONLY, GL_RGBA8);
    dispatch(&mut b, 4, 4);
    barrier(&mut b, GL_BUFFER_UPDATE_BARRIER_BIT);
    assert_eq!(readback(&mut b, out, 0, 64), level1);
    image_slot(&mut b, 2, tex, 0, GL_READ_ONLY, GL_RGBA8);
    dispatch(&mut b, W, H);
    barrier(&mut b, GL_ALL_BARRIER_BITS);
    assert_eq!(readback(&mut b, out, 0, (W * H * 4) as u64), level0);
    assert_no_gl_errors(&b);
}

#[test]
fn compute_writes_a_storage_buffer_at_an_offset() {
    let mut b = setup();
    let mut caps = Vec::new();
    b.get_caps(&z(), &mut caps);
    let caps: Caps = bytemuck::pod_read_unaligned(&caps[..std::mem::size_of::<Caps>()]);
    assert!(caps.shader_storage_buffer_offset_alignment <= 256);

    // Params (uniform block 0): add = 5; the default uniform block at
    // binding 2: mul = 3; Out (storage block 1) at byte 256 of a buffer.
    let params = Handle::new(1, 1);
    let mut p = [0u8; 16];
    p[..4].copy_from_slice(&5u32.to_le_bytes());
    buffer(&mut b, params, &p);
    let out = Handle::new(2, 1);
    buffer(&mut b, out, &[0xAB; 512]);
    let sh = Handle::new(1, 1);
    compute_shader(&mut b, sh, fixtures::SSBO_COMP, Some((2, 16)));
    b.bind_shader(&calls::BindShader { cso: sh });
    let mut g = [0u8; 16];
    g[..4].copy_from_slice(&3u32.to_le_bytes());
    b.set_global_constants(&calls::SetGlobalConstants { shader: sh }, &g);
    let mut cb: calls::SetConstantBuffers = z();
    cb.count = 1;
    cb.buffers[0] = params;
    b.set_constant_buffers(&cb);
    storage_slot(&mut b, 1, out, 256, 32);
    // The client keeps a persistent map of the written range: it is told
    // the bytes the dispatch wrote (as after a buffer_copy).
    let mut reply = Vec::new();
    b.map_persistent(
        &calls::MapPersistent {
            res: out,
            offset: 256,
            length: 32,
            ..z()
        },
        &mut reply,
    );
    dispatch(&mut b, 1, 1);
    barrier(
        &mut b,
        GL_BUFFER_UPDATE_BARRIER_BIT | GL_SHADER_STORAGE_BARRIER_BIT,
    );
    let want: Vec<u8> = (0..8u32).flat_map(|i| (i * 3 + 5).to_le_bytes()).collect();
    let mut events = Vec::new();
    b.drain_events(&mut events);
    assert!(
        events.iter().any(|e| matches!(
            e,
            mgpipe::event::Event::BufferWriteback { res, offset: 256, bytes }
                if *res == out && *bytes == want
        )),
        "{events:?}"
    );
    assert_eq!(readback(&mut b, out, 256, 32), want);
    assert_eq!(readback(&mut b, out, 0, 256), vec![0xAB; 256]);
    assert_eq!(readback(&mut b, out, 288, 224), vec![0xAB; 224]);
    assert_no_gl_errors(&b);
}

#[test]
fn fragment_shader_writes_a_storage_buffer() {
    let mut b = setup();
    let hits = Handle::new(1, 1);
    buffer(&mut b, hits, &[0u8; 4 + (W * H * 4) as usize]);
    let sh = Handle::new(1, 1);
    graphics_shader(&mut b, sh, fixtures::TRI_VERT, fixtures::SSBO_FRAG);
    b.bind_shader(&calls::BindShader { cso: sh });
    storage_slot(&mut b, 0, hits, 0, 0);
    fullscreen_triangle(&mut b);
    draw_triangle(&mut b);
    barrier(&mut b, GL_BUFFER_UPDATE_BARRIER_BIT);
    let got = readback(&mut b, hits, 0, 4 + (W * H * 4) as u64);
    let word = |i: usize| u32::from_le_bytes(got[i * 4..i * 4 + 4].try_into().unwrap());
    assert_eq!(word(0), W * H, "one atomicAdd per fragment");
    for y in 0..H {
        for x in 0..W {
            assert_eq!(
                word(1 + (y * W + x) as usize),
                x + 10 * y,
                "cell ({x}, {y})"
            );
        }
    }
    assert_eq!(read_rgba(&mut b, 1, 1), [0, 255, 0, 255]);
    assert_no_gl_errors(&b);
}

#[test]
fn promoted_texture_redefined_by_texture_image() {
    let mut b = setup();
    let tex = Handle::new(1, 1);
    new_texture(&mut b, tex);
    tex_image(&mut b, tex, 0, W, H, &[0; (W * H * 4) as usize]);
    compute_shader(&mut b, IMG_STORE, fixtures::IMG_STORE_COMP, None);
    b.bind_shader(&calls::BindShader { cso: IMG_STORE });
    image_slot(&mut b, 0, tex, 0, GL_READ_WRITE, GL_RGBA8);
    dispatch(&mut b, W / 4, H / 4);
    barrier(&mut b, GL_FRAMEBUFFER_BARRIER_BIT);
    let rs = read_texture_surface(&mut b, tex);
    assert_eq!(read_rgba(&mut b, W, H), pattern_image(W, H));

    // Same format and size: an upload into the immutable storage (a
    // glTexImage2D on it would be INVALID_OPERATION, counted below).
    tex_image(&mut b, tex, 0, W, H, &[9; (W * H * 4) as usize]);
    assert_eq!(read_rgba(&mut b, W, H), vec![9; (W * H * 4) as usize]);

    // Another size: a mutable texture again, then promoted again.
    tex_image(&mut b, tex, 0, 4, 4, &[7; 4 * 4 * 4]);
    b.set_read_surface(&rs);
    assert_eq!(read_rgba(&mut b, 4, 4), vec![7; 4 * 4 * 4]);
    dispatch(&mut b, 1, 1);
    barrier(&mut b, GL_FRAMEBUFFER_BARRIER_BIT);
    assert_eq!(read_rgba(&mut b, 4, 4), pattern_image(4, 4));

    // glGenerateMipmap past the (one-level) storage: mutable again with
    // the whole chain, and level 2 as an image after that.
    tex_image(&mut b, tex, 0, 4, 4, &[40, 80, 120, 160].repeat(16));
    b.generate_mipmap(&calls::GenerateMipmap {
        res: tex,
        target: GL_TEXTURE_2D,
        ..z()
    });
    let out = Handle::new(2, 1);
    buffer(&mut b, out, &[0u8; 16]);
    compute_shader(&mut b, IMG_LOAD, fixtures::IMG_LOAD_COMP, None);
    b.bind_shader(&calls::BindShader { cso: IMG_LOAD });
    storage_slot(&mut b, 0, out, 0, 0);
    image_slot(&mut b, 2, tex, 2, GL_READ_ONLY, GL_RGBA8);
    dispatch(&mut b, 1, 1);
    barrier(&mut b, GL_BUFFER_UPDATE_BARRIER_BIT);
    assert_eq!(readback(&mut b, out, 0, 4), [40, 80, 120, 160]);
    assert_no_gl_errors(&b);
}

#[test]
fn writeonly_image_without_a_format_compiles_and_stores() {
    let mut b = setup();
    let tex = Handle::new(1, 1);
    new_texture(&mut b, tex);
    tex_image(&mut b, tex, 0, W, H, &[0; (W * H * 4) as usize]);
    let sh = Handle::new(1, 1);
    compute_shader(&mut b, sh, fixtures::IMG_NOFORMAT_COMP, None);
    b.bind_shader(&calls::BindShader { cso: sh });
    image_slot(&mut b, 1, tex, 0, GL_WRITE_ONLY, GL_RGBA8);
    dispatch(&mut b, W, H);
    barrier(&mut b, GL_FRAMEBUFFER_BARRIER_BIT);
    read_texture_surface(&mut b, tex);
    let want: Vec<u8> = (0..H)
        .flat_map(|_| (0..W).flat_map(|x| [255, 0, x as u8, 255]))
        .collect();
    assert_eq!(read_rgba(&mut b, W, H), want);
    assert_no_gl_errors(&b);
}

#[test]
fn refusals_are_skipped_without_gl_errors() {
    let mut b = setup();
    b.clear(&calls::Clear {
        buffers: CLEAR_COLOR_ALL,
        color: [1.0f32, 0.0, 0.0, 1.0].map(f32::to_bits),
        ..z()
    });
    let tex = Handle::new(1, 1);
    new_texture(&mut b, tex);
    tex_image(&mut b, tex, 0, W, H, &[0x22; (W * H * 4) as usize]);
    compute_shader(&mut b, IMG_STORE, fixtures::IMG_STORE_COMP, None);
    graphics_shader(&mut b, SAMPLE, fixtures::TRI_VERT, fixtures::TEX_FRAG);
    fullscreen_triangle(&mut b);
    sample_texture(&mut b, tex);

    // A draw with the compute program bound draws nothing.
    b.bind_shader(&calls::BindShader { cso: IMG_STORE });
    draw_triangle(&mut b);
    assert_eq!(read_rgba(&mut b, 1, 1), [255, 0, 0, 255]);
    // A dispatch with a graphics program bound runs nothing: the texture
    // keeps its contents.
    b.bind_shader(&calls::BindShader { cso: SAMPLE });
    image_slot(&mut b, 0, tex, 0, GL_WRITE_ONLY, GL_RGBA8);
    dispatch(&mut b, 2, 2);
    // An image format GLES lacks (RGBA16), a bad access, a renderbuffer,
    // an unknown resource, a level past the texture: units left unbound.
    b.bind_shader(&calls::BindShader { cso: IMG_STORE });
    for (res, access, format, level) in [
        (tex, GL_WRITE_ONLY, GL_RGBA16, 0),
        (tex, 0x1234, GL_RGBA8, 0),
        (Handle::new(40, 1), GL_WRITE_ONLY, GL_RGBA8, 0),
        (tex, GL_WRITE_ONLY, GL_RGBA8, u32::MAX),
    ] {
        image_slot(&mut b, 0, res, level, access, format);
        dispatch(&mut b, 2, 2);
    }
    let rb = Handle::new(5, 1);
    b.resource_create(
        &calls::ResourceCreate {
            res: rb,
            kind: RESOURCE_RENDERBUFFER,
            internal_format: GL_RGBA8,
            width: 4,
            height: 4,
            ..z()
        },
        &[],
    );
    image_slot(&mut b, 0, rb, 0, GL_WRITE_ONLY, GL_RGBA8);
    dispatch(&mut b, 2, 2);
    // Zero groups, groups past the driver's limit, an SSBO range past the
    // end of its buffer: skipped.
    b.dispatch_compute(&calls::DispatchCompute {
        groups: [0, 1, 1],
        ..z()
    });
    b.dispatch_compute(&calls::DispatchCompute {
        groups: [u32::MAX, 1, 1],
        ..z()
    });
    let small = Handle::new(6, 1);
    buffer(&mut b, small, &[0; 16]);
    storage_slot(&mut b, 0, small, 16, 64);
    dispatch(&mut b, 1, 1);
    // Barrier bits GLES lacks are masked off (alone: no call at all).
    barrier(
        &mut b,
        GL_QUERY_BUFFER_BARRIER_BIT | GL_CLIENT_MAPPED_BUFFER_BARRIER_BIT,
    );
    b.memory_barrier(&calls::MemoryBarrier {
        barriers: GL_ALL_BARRIER_BITS,
        by_region: 1,
    });
    b.memory_barrier(&calls::MemoryBarrier {
        barriers: GL_BUFFER_UPDATE_BARRIER_BIT | GL_FRAMEBUFFER_BARRIER_BIT,
        by_region: 1,
    });
    // Counts past the slots are clamped.
    let mut im: calls::SetShaderImages = z();
    im.count = u32::MAX;
    b.set_shader_images(&im);
    let mut sb: calls::SetShaderBuffers = z();
    sb.count = u32::MAX;
    b.set_shader_buffers(&sb);
    dispatch(&mut b, 1, 1);
    read_texture_surface(&mut b, tex);
    assert_eq!(read_rgba(&mut b, W, H), vec![0x22; (W * H * 4) as usize]);
    assert_no_gl_errors(&b);
}

#[test]
fn caps_report_compute_limits() {
    let mut b = setup();
    let mut reply = Vec::new();
    b.get_caps(&z(), &mut reply);
    let caps: Caps = bytemuck::pod_read_unaligned(&reply[..std::mem::size_of::<Caps>()]);
    // GLES 3.1 minimums (llvmpipe is GLES 3.2).
    assert!(caps
        .max_compute_work_group_count
        .iter()
        .all(|&n| n >= 65535));
    assert!(caps.max_compute_work_group_size[0] >= 128);
    assert!(caps.max_compute_work_group_size[2] >= 64);
    assert!(caps.max_compute_work_group_invocations >= 128);
    assert!(caps.max_compute_shared_memory_size >= 16384);
    assert!((4..=8).contains(&caps.max_image_units));
    assert!((4..=16).contains(&caps.max_shader_storage_buffer_bindings));
    assert!(caps.max_shader_storage_block_size >= 1 << 27);
    assert!(caps
        .shader_storage_buffer_offset_alignment
        .is_power_of_two());
    assert_no_gl_errors(&b);
}

#[test]
fn cube_and_array_textures_promote_and_bind_layers() {
    const GL_TEXTURE_CUBE_MAP: u32 = 0x8513;
    const GL_TEXTURE_CUBE_MAP_POSITIVE_X: u32 = 0x8515;
    const GL_TEXTURE_2D_ARRAY: u32 = 0x8C1A;
    let mut b = setup();
    let texel = |f: u32, x: u32, y: u32| [(f * 40 + 1) as u8, (x * 16) as u8, (y * 16) as u8, 255];
    let out = Handle::new(3, 1);
    buffer(&mut b, out, &[0u8; 6 * 4 * 4 * 4]);

    // A cube map made face by face with glTexImage2D, read as a layered
    // imageCube: every face copied into the immutable storage.
    let cube = Handle::new(1, 1);
    b.resource_create(
        &calls::ResourceCreate {
            res: cube,
            kind: RESOURCE_TEXTURE,
            target: GL_TEXTURE_CUBE_MAP,
            ..z()
        },
        &[],
    );
    let face = |f: u32| -> Vec<u8> {
        (0..4)
            .flat_map(|y| (0..4).flat_map(move |x| texel(f, x, y)))
            .collect()
    };
    for f in 0..6 {
        b.texture_image(
            &calls::TextureImage {
                res: cube,
                target: GL_TEXTURE_CUBE_MAP_POSITIVE_X + f,
                level: 0,
                internal_format: GL_RGBA8,
                width: 4,
                height: 4,
                depth: 1,
                format: GL_RGBA,
                r#type: GL_UNSIGNED_BYTE,
                ..z()
            },
            &face(f),
        );
    }
    let sh = Handle::new(1, 1);
    compute_shader(&mut b, sh, fixtures::IMG_CUBE_LOAD_COMP, None);
    b.bind_shader(&calls::BindShader { cso: sh });
    storage_slot(&mut b, 0, out, 0, 0);
    let mut im: calls::SetShaderImages = z();
    im.count = 1;
    im.resources[0] = cube;
    im.layers[0] = IMAGE_LAYERED;
    im.access[0] = GL_READ_ONLY;
    im.formats[0] = GL_RGBA8;
    b.set_shader_images(&im);
    b.dispatch_compute(&calls::DispatchCompute {
        groups: [4, 4, 6],
        ..z()
    });
    barrier(&mut b, GL_BUFFER_UPDATE_BARRIER_BIT);
    let want: Vec<u8> = (0..6).flat_map(face).collect();
    assert_eq!(readback(&mut b, out, 0, want.len() as u64), want);

    // One layer of a 2D array as a 2D image (not layered).
    let array = Handle::new(2, 1);
    b.resource_create(
        &calls::ResourceCreate {
            res: array,
            kind: RESOURCE_TEXTURE,
            target: GL_TEXTURE_2D_ARRAY,
            ..z()
        },
        &[],
    );
    let layers: Vec<u8> = (0..3).flat_map(face).collect();
    b.texture_image(
        &calls::TextureImage {
            res: array,
            target: GL_TEXTURE_2D_ARRAY,
            level: 0,
            internal_format: GL_RGBA8,
            width: 4,
            height: 4,
            depth: 3,
            format: GL_RGBA,
            r#type: GL_UNSIGNED_BYTE,
            ..z()
        },
        &layers,
    );
    compute_shader(&mut b, IMG_LOAD, fixtures::IMG_LOAD_COMP, None);
    b.bind_shader(&calls::BindShader { cso: IMG_LOAD });
    let mut im: calls::SetShaderImages = z();
    im.count = 3;
    im.resources[2] = array;
    im.layers[2] = 1;
    im.access[2] = GL_READ_ONLY;
    im.formats[2] = GL_RGBA8;
    b.set_shader_images(&im);
    dispatch(&mut b, 4, 4);
    barrier(&mut b, GL_BUFFER_UPDATE_BARRIER_BIT);
    assert_eq!(readback(&mut b, out, 0, 64), face(1));
    assert_no_gl_errors(&b);
}

#[test]
fn another_context_attaches_the_promoted_texture_again() {
    let mut b = setup();
    let tex = Handle::new(1, 1);
    new_texture(&mut b, tex);
    tex_image(&mut b, tex, 0, W, H, &[0x33; (W * H * 4) as usize]);
    // Context 2 draws into and reads from the texture.
    let ctx2 = Handle::new(2, 1);
    b.context_create(&calls::ContextCreate { ctx: ctx2, ..z() });
    b.make_current(&calls::MakeCurrent {
        ctx: ctx2,
        draw: SURF,
        read: SURF,
    });
    let fb = texture_framebuffer(tex);
    b.set_framebuffer_state(&fb);
    read_texture_surface(&mut b, tex);
    assert_eq!(read_rgba(&mut b, 1, 1), [0x33; 4]);

    // Context 1 promotes it (a new GL name) and writes the pattern.
    b.make_current(&calls::MakeCurrent {
        ctx: CTX,
        draw: SURF,
        read: SURF,
    });
    compute_shader(&mut b, IMG_STORE, fixtures::IMG_STORE_COMP, None);
    b.bind_shader(&calls::BindShader { cso: IMG_STORE });
    image_slot(&mut b, 0, tex, 0, GL_WRITE_ONLY, GL_RGBA8);
    dispatch(&mut b, W / 4, H / 4);
    barrier(&mut b, GL_FRAMEBUFFER_BARRIER_BIT);
    b.finish(&z(), &mut Vec::new());

    // Context 2's framebuffer and read surface (not set again) follow.
    b.make_current(&calls::MakeCurrent {
        ctx: ctx2,
        draw: SURF,
        read: SURF,
    });
    assert_eq!(read_rgba(&mut b, W, H), pattern_image(W, H));
    b.clear(&calls::Clear {
        buffers: CLEAR_COLOR_ALL,
        color: [0.0f32, 1.0, 0.0, 1.0].map(f32::to_bits),
        ..z()
    });
    assert_eq!(
        read_rgba(&mut b, W, H),
        [0, 255, 0, 255].repeat((W * H) as usize)
    );
    assert_no_gl_errors(&b);
}
