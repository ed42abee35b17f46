//! Proxy textures (GL 4.6 §8.22): `glTexImage*` on a `GL_PROXY_TEXTURE_*`
//! target asks whether such an image could be made, without making it. The
//! answer is only the proxy's level state, read back with
//! `glGetTexLevelParameter*` on the same proxy target (zeros when the image
//! is not supported; no GL error for that). Nothing reaches the backend:
//! "supported" is decided from the caps snapshot's size limits.

use crate::context::{Gl, LevelInfo};

/// The proxy target of each texture dimensionality `glTexImage{1,2,3}D`
/// takes.
pub(super) fn is_proxy_for(target: u32, dims: u32) -> bool {
    match dims {
        1 => target == glow::PROXY_TEXTURE_1D,
        2 => matches!(
            target,
            glow::PROXY_TEXTURE_2D
                | glow::PROXY_TEXTURE_1D_ARRAY
                | glow::PROXY_TEXTURE_RECTANGLE
                | glow::PROXY_TEXTURE_CUBE_MAP
        ),
        _ => matches!(
            target,
            glow::PROXY_TEXTURE_3D
                | glow::PROXY_TEXTURE_2D_ARRAY
                | glow::PROXY_TEXTURE_CUBE_MAP_ARRAY
        ),
    }
}

/// Any proxy target.
pub(super) fn is_proxy(target: u32) -> bool {
    (1..=3).any(|dims| is_proxy_for(target, dims))
}

/// Levels a proxy `target` may name (GL 4.6 §8.5: a level above log2 of
/// the target's size limit, or any but 0 for a rectangle, is
/// GL_INVALID_VALUE, for proxies too).
pub(super) fn level_in_range(gl: &Gl, target: u32, level: i32) -> bool {
    let c = &gl.conn.caps;
    let max = match target {
        glow::PROXY_TEXTURE_RECTANGLE => return level == 0,
        glow::PROXY_TEXTURE_3D => c.max_3d_texture_size,
        glow::PROXY_TEXTURE_CUBE_MAP | glow::PROXY_TEXTURE_CUBE_MAP_ARRAY => {
            c.max_cube_map_texture_size
        }
        _ => c.max_texture_size,
    };
    let levels = 32 - max.max(1).leading_zeros() as i32;
    (0..levels).contains(&level)
}

/// Whether the backend could hold level `level` of `width × height × depth`
/// (inner size, border dropped) on proxy `target`.
pub(super) fn supported(
    gl: &Gl,
    target: u32,
    level: i32,
    [width, height, depth]: [i32; 3],
    internal_format: u32,
) -> bool {
    let c = &gl.conn.caps;
    let (max_xy, max_z) = match target {
        glow::PROXY_TEXTURE_3D => (c.max_3d_texture_size, c.max_3d_texture_size),
        glow::PROXY_TEXTURE_CUBE_MAP => (c.max_cube_map_texture_size, 1),
        glow::PROXY_TEXTURE_CUBE_MAP_ARRAY => {
            (c.max_cube_map_texture_size, c.max_array_texture_layers)
        }
        glow::PROXY_TEXTURE_2D_ARRAY => (c.max_texture_size, c.max_array_texture_layers),
        _ => (c.max_texture_size, 1),
    };
    let (max_xy, max_z) = (max_xy as i64, max_z.max(1) as i64);
    // A 1D array's layers are its height.
    let max_y = if target == glow::PROXY_TEXTURE_1D_ARRAY {
        c.max_array_texture_layers as i64
    } else {
        max_xy
    };
    let (w, h, d) = (width as i64, height as i64, depth as i64);
    let cube_ok = match target {
        glow::PROXY_TEXTURE_CUBE_MAP => w == h,
        glow::PROXY_TEXTURE_CUBE_MAP_ARRAY => w == h && d % 6 == 0,
        _ => true,
    };
    // One level past a gibibyte is refused, as a driver with finite memory
    // would: a "supported" answer is followed by a real allocation.
    let texel_bits: u64 = [
        glow::TEXTURE_RED_SIZE,
        glow::TEXTURE_GREEN_SIZE,
        glow::TEXTURE_BLUE_SIZE,
        glow::TEXTURE_ALPHA_SIZE,
        glow::TEXTURE_DEPTH_SIZE,
        glow::TEXTURE_STENCIL_SIZE,
    ]
    .iter()
    .map(|&p| super::framebuffers::component_bits(internal_format, p) as u64)
    .sum();
    let faces = if target == glow::PROXY_TEXTURE_CUBE_MAP {
        6
    } else {
        1
    };
    let bytes = (w.max(0) as u64) * (h.max(0) as u64) * (d.max(0) as u64) * faces * texel_bits / 8;
    level_in_range(gl, target, level)
        && bytes <= MAX_PROXY_LEVEL_BYTES
        && cube_ok
        && w <= max_xy >> level
        && h <= max_y.max(1)
            >> if target == glow::PROXY_TEXTURE_1D_ARRAY {
                0
            } else {
                level
            }
        && d <= if matches!(target, glow::PROXY_TEXTURE_3D) {
            max_z >> level
        } else {
            max_z
        }
}

/// The largest level a proxy answers "supported" for.
const MAX_PROXY_LEVEL_BYTES: u64 = 1 << 30;

/// Record the proxy's level state after a `glTexImage*` on it: the image's
/// when `supported`, all zeros otherwise.
pub(super) fn set_level(gl: &mut Gl, target: u32, level: i32, info: Option<LevelInfo>) {
    let level = level as u32;
    gl.st
        .proxy_levels
        .retain(|(t, l, _)| !(*t == target && *l == level));
    if let Some(info) = info {
        gl.st.proxy_levels.push((target, level, info));
    }
}

/// The proxy's state for `glGetTexLevelParameter*` (`None`: all zeros).
pub(super) fn level(gl: &Gl, target: u32, level: i32) -> Option<LevelInfo> {
    gl.st
        .proxy_levels
        .iter()
        .find(|(t, l, _)| *t == target && *l as i32 == level)
        .map(|(_, _, i)| *i)
}
