//! A 3D texture slice as a framebuffer attachment
//! (`glFramebufferTextureLayer(..., tex3d, level, z)`): reads, blits and
//! clears must address slice `z` (Vulkan: `imageOffset.z` of a 3D image,
//! or a 2D view of the slice for rendering), never slice 0. Drives
//! `VulkanBackend` through the MGPipe trait methods on whatever Vulkan
//! device the loader finds (lavapipe on CI); skips without one.

mod common;
use common::{current_surface, open};

use backend_vulkan::VulkanBackend;
use mgpipe::calls::*;
use mgpipe::consts::*;
use mgpipe::{Context, Handle, Screen};

const GL_RGBA: u32 = 0x1908;
const GL_RGB: u32 = 0x1907;
const GL_UNSIGNED_BYTE: u32 = 0x1401;
const GL_RGBA8: u32 = 0x8058;
const GL_TEXTURE_3D: u32 = 0x806F;
const GL_COLOR_BUFFER_BIT: u32 = 0x4000;
const GL_NEAREST: u32 = 0x2600;

const TEX: Handle = Handle::new(5, 1);
const FBO: Handle = Handle::new(3, 1);

/// Edge of level 0 (a cube of `N`^3 texels, 2 levels).
const N: u32 = 4;

/// Texel bytes of slice `z` of `level`: every texel distinct and tagged
/// with its level and slice.
fn slice_texels(level: u32, z: u32) -> Vec<u8> {
    let e = N >> level;
    let mut v = Vec::new();
    for y in 0..e {
        for x in 0..e {
            v.extend_from_slice(&[
                (16 * level + z) as u8 + 1,
                (x + 1) as u8 * 10,
                (y + 1) as u8 * 20,
                200 + z as u8,
            ]);
        }
    }
    v
}

/// A context current on an `N`x`N` surface, plus `TEX`: an RGBA8 3D
/// texture of 2 levels whose slices hold `slice_texels`.
fn setup() -> Option<VulkanBackend> {
    let mut b = open()?;
    current_surface(&mut b, N, N);
    b.resource_create(
        &ResourceCreate {
            res: TEX,
            kind: RESOURCE_TEXTURE,
            target: GL_TEXTURE_3D,
            ..Default::default()
        },
        &[],
    );
    b.texture_storage(&TextureStorage {
        res: TEX,
        target: GL_TEXTURE_3D,
        levels: 2,
        internal_format: GL_RGBA8,
        width: N,
        height: N,
        depth: N,
    });
    for level in 0..2 {
        let e = N >> level;
        let data: Vec<u8> = (0..e).flat_map(|z| slice_texels(level, z)).collect();
        b.texture_subimage(
            &TextureSubimage {
                res: TEX,
                target: GL_TEXTURE_3D,
                level,
                width: e,
                height: e,
                depth: e,
                format: GL_RGBA,
                r#type: GL_UNSIGNED_BYTE,
                ..Default::default()
            },
            &data,
        );
    }
    Some(b)
}

/// Read from slice `z` of `level` of `TEX`.
fn read_slice(b: &mut VulkanBackend, level: u32, z: u32) {
    b.set_read_surface(&SetReadSurface {
        fbo: FBO,
        color: TEX,
        color_kind: SURFACE_TEXTURE,
        color_level: level,
        color_layer: z,
        ..Default::default()
    });
}

/// Draw into slice `z` of level 0 of `TEX`.
fn draw_slice(b: &mut VulkanBackend, z: u32) {
    let mut fb = SetFramebufferState {
        fbo: FBO,
        width: N,
        height: N,
        ..Default::default()
    };
    fb.color[0] = TEX;
    fb.color_kind[0] = SURFACE_TEXTURE;
    fb.color_layer[0] = z;
    fb.draw_buffers = [NO_ATTACHMENT; 8];
    fb.draw_buffers[0] = 0;
    b.set_framebuffer_state(&fb);
}

fn draw_surface(b: &mut VulkanBackend) {
    b.set_framebuffer_state(&SetFramebufferState {
        fbo: Handle::DEFAULT_FRAMEBUFFER,
        ..Default::default()
    });
}

fn read_surface(b: &mut VulkanBackend) {
    b.set_read_surface(&SetReadSurface {
        fbo: Handle::DEFAULT_FRAMEBUFFER,
        ..Default::default()
    });
}

fn pixels(b: &mut VulkanBackend, e: u32, format: u32) -> Vec<u8> {
    let mut out = Vec::new();
    b.read_pixels(
        &ReadPixels {
            x: 0,
            y: 0,
            width: e,
            height: e,
            format,
            r#type: GL_UNSIGNED_BYTE,
        },
        &mut out,
    );
    out
}

/// The whole texture, level 0, slices in order.
fn tex_image(b: &mut VulkanBackend) -> Vec<u8> {
    let mut out = Vec::new();
    b.get_texture_image(
        &GetTextureImage {
            res: TEX,
            target: GL_TEXTURE_3D,
            level: 0,
            width: N,
            height: N,
            depth: N,
            format: GL_RGBA,
            r#type: GL_UNSIGNED_BYTE,
            ..Default::default()
        },
        &mut out,
    );
    out
}

fn slices(img: &[u8]) -> Vec<&[u8]> {
    img.chunks_exact((N * N * 4) as usize).collect()
}

/// `glReadPixels` (the reply path, the direct `read_pixels_into` path and
/// a converted read) of slice z > 0 reads slice z, at level 0 and 1.
#[test]
fn read_pixels_reads_the_attached_3d_slice() {
    let Some(mut b) = setup() else { return };
    for (level, z) in [(0, 2), (0, 3), (1, 1), (0, 0)] {
        let e = N >> level;
        let want = slice_texels(level, z);
        read_slice(&mut b, level, z);
        assert_eq!(
            pixels(&mut b, e, GL_RGBA),
            want,
            "read_pixels of level {level} slice {z}"
        );
        let mut dst = vec![0u8; want.len()];
        let p = ReadPixels {
            x: 0,
            y: 0,
            width: e,
            height: e,
            format: GL_RGBA,
            r#type: GL_UNSIGNED_BYTE,
        };
        // An identity read of the whole attachment: taken directly.
        assert!(b.read_pixels_into(&p, &mut dst));
        assert_eq!(dst, want, "read_pixels_into of level {level} slice {z}");
        let rgb: Vec<u8> = want.chunks_exact(4).flat_map(|t| t[..3].to_vec()).collect();
        assert_eq!(
            pixels(&mut b, e, GL_RGB),
            rgb,
            "converted read of level {level} slice {z}"
        );
    }
}

/// `glBlitFramebuffer` out of a 3D slice copies that slice, and into a 3D
/// slice writes only that slice.
#[test]
fn blit_reads_and_writes_the_attached_3d_slice() {
    let Some(mut b) = setup() else { return };
    let blit = Blit {
        src: [0, 0, N as i32, N as i32],
        dst: [0, 0, N as i32, N as i32],
        mask: GL_COLOR_BUFFER_BIT,
        filter: GL_NEAREST,
    };
    // Slice 2 -> the surface.
    read_slice(&mut b, 0, 2);
    draw_surface(&mut b);
    b.blit(&blit);
    read_surface(&mut b);
    assert_eq!(pixels(&mut b, N, GL_RGBA), slice_texels(0, 2));

    // The surface (now slice 2's texels) -> slice 1; the others keep theirs.
    draw_slice(&mut b, 1);
    b.blit(&blit);
    let img = tex_image(&mut b);
    let got = slices(&img);
    assert_eq!(got.len(), N as usize);
    for (z, s) in got.iter().enumerate() {
        let want = slice_texels(0, if z == 1 { 2 } else { z as u32 });
        assert_eq!(*s, &want[..], "slice {z} after the blit into slice 1");
    }
}

/// Rendering into a 3D slice (a 2D view of the slice) clears only that
/// slice, and reading the slice back sees the clear.
#[test]
fn clear_renders_into_the_attached_3d_slice() {
    let Some(mut b) = setup() else { return };
    draw_slice(&mut b, 3);
    b.clear(&Clear {
        buffers: CLEAR_COLOR_ALL,
        color_type: CLEAR_FLOAT,
        color: [0.0f32, 1.0, 0.0, 1.0].map(f32::to_bits),
        ..Default::default()
    });
    let img = tex_image(&mut b);
    for (z, s) in slices(&img).iter().enumerate() {
        if z == 3 {
            assert!(s.chunks(4).all(|p| p == [0, 255, 0, 255]), "slice 3: {s:?}");
        } else {
            assert_eq!(*s, &slice_texels(0, z as u32)[..], "slice {z}");
        }
    }
    read_slice(&mut b, 0, 3);
    assert!(pixels(&mut b, N, GL_RGBA)
        .chunks(4)
        .all(|p| p == [0, 255, 0, 255]));
}

/// The scissor box limits what a blit writes (Vulkan's blit ignores it):
/// an unscaled blit and a 2x magnifying, flipped one from 2D slice reads
/// into the surface write only the pixels inside the box, each with the
/// texel GL's mapping gives it.
#[test]
fn blit_writes_only_inside_the_scissor_box() {
    let Some(mut b) = setup() else { return };
    const CLEARED: [u8; 4] = [9, 8, 7, 6];
    let rs = CreateRenderState {
        cso: Handle::new(1, 1),
        color_write_mask: u32::MAX,
        scissor_enable: 1,
        ..Default::default()
    };
    b.create_render_state(&rs);
    let scissor = SetScissor {
        x: 1,
        y: 2,
        width: 2,
        height: 1,
    };
    let inside = |x: u32, y: u32| (1..3).contains(&x) && y == 2;
    let slice = slice_texels(0, 2);
    let texel = |x: u32, y: u32| {
        let i = ((y * N + x) * 4) as usize;
        [slice[i], slice[i + 1], slice[i + 2], slice[i + 3]]
    };
    // (blit, the source texel that lands on surface pixel (x, y))
    type Map = fn(u32, u32) -> (u32, u32);
    let cases: [(Blit, Map); 2] = [
        (
            Blit {
                src: [0, 0, N as i32, N as i32],
                dst: [0, 0, N as i32, N as i32],
                mask: GL_COLOR_BUFFER_BIT,
                filter: GL_NEAREST,
            },
            |x, y| (x, y),
        ),
        (
            // Source [0,2)x[0,2) magnified 2x and mirrored in x.
            Blit {
                src: [0, 0, 2, 2],
                dst: [N as i32, 0, 0, N as i32],
                mask: GL_COLOR_BUFFER_BIT,
                filter: GL_NEAREST,
            },
            |x, y| ((N - 1 - x) / 2, y / 2),
        ),
    ];
    for (i, (blit, map)) in cases.iter().enumerate() {
        draw_surface(&mut b);
        b.bind_render_state(&BindRenderState { cso: Handle::NULL });
        b.clear(&Clear {
            buffers: CLEAR_COLOR_ALL,
            color_type: CLEAR_FLOAT,
            color: CLEARED.map(|c| (c as f32 / 255.0).to_bits()),
            ..Default::default()
        });
        b.bind_render_state(&BindRenderState { cso: rs.cso });
        b.set_scissor(&scissor);
        read_slice(&mut b, 0, 2);
        b.blit(blit);
        b.bind_render_state(&BindRenderState { cso: Handle::NULL });
        read_surface(&mut b);
        let img = pixels(&mut b, N, GL_RGBA);
        for y in 0..N {
            for x in 0..N {
                let j = ((y * N + x) * 4) as usize;
                let got = [img[j], img[j + 1], img[j + 2], img[j + 3]];
                let want = if inside(x, y) {
                    let (sx, sy) = map(x, y);
                    texel(sx, sy)
                } else {
                    CLEARED
                };
                assert_eq!(got, want, "blit {i}: pixel ({x},{y})");
            }
        }
    }
}
