//! Texture sub-box uploads into every level, layer and slice of 2D, 2D
//! array and 3D textures land exactly where GL says, whichever path takes
//! them (on CPU devices: the host writing a LINEAR image in place when it
//! is idle; elsewhere, or when busy, a staged copy). Checked through
//! `get_texture_image` against a CPU model of the texture; one upload is a
//! strided record (`row_stride`, as monolith sends them). Drives
//! `VulkanBackend` through the MGPipe trait methods on whatever Vulkan
//! device the loader finds (lavapipe on CI); skips without one.

mod common;
use common::{current_surface, open};

use backend_vulkan::VulkanBackend;
use mgpipe::calls::*;
use mgpipe::consts::*;
use mgpipe::{Context, Handle, Screen};

const GL_RGBA: u32 = 0x1908;
const GL_UNSIGNED_BYTE: u32 = 0x1401;
const GL_RGBA8: u32 = 0x8058;
const GL_TEXTURE_2D: u32 = 0x0DE1;
const GL_TEXTURE_2D_ARRAY: u32 = 0x8C1A;
const GL_TEXTURE_3D: u32 = 0x806F;

/// A texture of `w`x`h` and `d` layers (or slices) with 2 levels, on the
/// CPU side: `texels[level]` is that level's RGBA8 bytes, layers in order.
struct Model {
    target: u32,
    size: [u32; 3],
    texels: Vec<Vec<u8>>,
}

impl Model {
    fn extent(&self, level: u32) -> [u32; 3] {
        let [w, h, d] = self.size;
        let d = if self.target == GL_TEXTURE_3D {
            (d >> level).max(1)
        } else {
            d
        };
        [(w >> level).max(1), (h >> level).max(1), d]
    }

    /// Write the box at (x, y, z) of `e` texels of `level`, each texel's
    /// bytes a function of `tag` and its place, into the model; return the
    /// tight bytes to upload.
    fn fill(&mut self, level: u32, at: [u32; 3], e: [u32; 3], tag: u8) -> Vec<u8> {
        let [lw, lh, _] = self.extent(level);
        let mut up = Vec::new();
        for z in 0..e[2] {
            for y in 0..e[1] {
                for x in 0..e[0] {
                    let px = [tag, x as u8 * 16 + y as u8, z as u8, 255 - tag];
                    let (gx, gy, gz) = (at[0] + x, at[1] + y, at[2] + z);
                    let i = (((gz * lh + gy) * lw + gx) * 4) as usize;
                    self.texels[level as usize][i..i + 4].copy_from_slice(&px);
                    up.extend_from_slice(&px);
                }
            }
        }
        up
    }
}

fn check(target: u32, size: [u32; 3]) {
    let Some(mut b) = open() else { return };
    current_surface(&mut b, 4, 4);
    // Settle the surface's creation so the uploads below meet an idle device.
    let mut out = Vec::new();
    b.finish(&Finish::default(), &mut out);
    let tex = Handle::new(7, 1);
    b.resource_create(
        &ResourceCreate {
            res: tex,
            kind: RESOURCE_TEXTURE,
            target,
            ..Default::default()
        },
        &[],
    );
    b.texture_storage(&TextureStorage {
        res: tex,
        target,
        levels: 2,
        internal_format: GL_RGBA8,
        width: size[0],
        height: size[1],
        depth: size[2],
    });
    let mut m = Model {
        target,
        size,
        texels: Vec::new(),
    };
    for level in 0..2 {
        let [w, h, d] = m.extent(level);
        m.texels.push(vec![0; (w * h * d * 4) as usize]);
    }
    let upload = |b: &mut VulkanBackend, m: &mut Model, level, at: [u32; 3], e, tag| {
        let data = m.fill(level, at, e, tag);
        b.texture_subimage(
            &TextureSubimage {
                res: tex,
                target,
                level,
                x: at[0] as i32,
                y: at[1] as i32,
                z: at[2] as i32,
                width: e[0],
                height: e[1],
                depth: e[2],
                format: GL_RGBA,
                r#type: GL_UNSIGNED_BYTE,
                ..Default::default()
            },
            &data,
        );
    };
    // Whole levels first (defined contents), then boxes inside them.
    for level in 0..2 {
        let e = m.extent(level);
        upload(&mut b, &mut m, level, [0, 0, 0], e, 10 + level as u8);
    }
    let [w, h, d] = m.extent(0);
    upload(&mut b, &mut m, 0, [1, 2, d - 1], [w - 2, h - 3, 1], 50);
    // A strided record (what monolith sends): rows 12 bytes apart more
    // than tight, the gap filled with bytes that must not land.
    {
        let e = [w - 3, h - 2, 1];
        let tight = m.fill(0, [2, 1, d - 1], e, 55);
        let row = e[0] as usize * 4;
        let stride = row + 12;
        let mut strided = vec![0xAB; stride * e[1] as usize];
        for (r, src) in tight.chunks(row).enumerate() {
            strided[r * stride..r * stride + row].copy_from_slice(src);
        }
        // The last row ends the blob (no gap after it).
        strided.truncate(stride * (e[1] as usize - 1) + row);
        b.texture_subimage(
            &TextureSubimage {
                res: tex,
                target,
                level: 0,
                x: 2,
                y: 1,
                z: (d - 1) as i32,
                width: e[0],
                height: e[1],
                depth: 1,
                format: GL_RGBA,
                r#type: GL_UNSIGNED_BYTE,
                row_stride: stride as u32,
                ..Default::default()
            },
            &strided,
        );
    }
    let [w1, h1, d1] = m.extent(1);
    upload(&mut b, &mut m, 1, [w1 - 1, 0, d1 - 1], [1, h1, 1], 60);
    if d > 1 {
        upload(&mut b, &mut m, 0, [0, 1, 1], [w, 1, d - 1], 70);
    }
    if b.device_name().contains("llvmpipe") && std::env::var_os("MOBILEGL_VK_HOST_IMAGES").is_none()
    {
        // lavapipe: LINEAR images, idle or created this frame, so every
        // upload above was written in place by the host.
        let n = b.host_image_writes();
        assert!(n >= 4, "{n} uploads written in place");
    }
    for level in 0..2 {
        let [w, h, d] = m.extent(level);
        let mut out = Vec::new();
        b.get_texture_image(
            &GetTextureImage {
                res: tex,
                target,
                level,
                width: w,
                height: h,
                depth: d,
                format: GL_RGBA,
                r#type: GL_UNSIGNED_BYTE,
                ..Default::default()
            },
            &mut out,
        );
        let want = &m.texels[level as usize];
        assert_eq!(out.len(), want.len(), "target 0x{target:X} level {level}");
        if let Some(i) = (0..want.len()).find(|&i| out[i] != want[i]) {
            let t = (i / 4) as u32;
            panic!(
                "target 0x{target:X} level {level}: texel ({}, {}, {}) = {:?}, expected {:?}",
                t % w,
                t / w % h,
                t / (w * h),
                &out[i / 4 * 4..i / 4 * 4 + 4],
                &want[i / 4 * 4..i / 4 * 4 + 4],
            );
        }
    }
}

#[test]
fn sub_boxes_of_2d_levels() {
    check(GL_TEXTURE_2D, [8, 6, 1]);
}

#[test]
fn sub_boxes_of_2d_array_layers() {
    check(GL_TEXTURE_2D_ARRAY, [8, 6, 3]);
}

#[test]
fn sub_boxes_of_3d_slices() {
    check(GL_TEXTURE_3D, [8, 6, 4]);
}
