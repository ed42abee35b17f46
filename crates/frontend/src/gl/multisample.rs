//! Multisample textures (GL 3.2 core, ARB_texture_multisample; the
//! storage forms GL 4.3, ARB_texture_storage_multisample):
//! `glTex{Image,Storage}{2D,3D}Multisample`.
//!
//! A multisample texture's storage is one level whose sample count the
//! backend allocates, so its server resource is created with the count
//! (`resource_create.samples`) and then given storage (`texture_storage`,
//! one level). Re-specifying a mutable one (`glTexImage*Multisample` again)
//! gives the texture a fresh resource: backends keep multisample storage
//! immutable (GLES has only `glTexStorage*Multisample`), and the new handle
//! makes every framebuffer and sampler view that names the texture
//! re-resolve. No catalogue call of its own.
//!
//! Owns the validation and the texture-object bookkeeping only; sampling
//! and attachment go through `textures`, `framebuffers` and `validate`.

use mgpipe::calls;
use mgpipe::consts::RESOURCE_TEXTURE;
use mgpipe::Pipe;

use super::gl_err;
use super::textures::{bound_texture_name, valid_internal_format};
use super::validate::{has_depth, has_stencil, is_color_renderable};
use crate::context::{with_gl_dirty, Gl, LevelInfo, DIRTY_FRAMEBUFFER, DIRTY_PROGRAM};

/// The sized format a multisample image of `internal` gets: the unsized
/// renderable base formats name their 8-bit (or 24-bit depth) sizes, as
/// renderbuffers do.
const PROXY_TEXTURE_2D_MULTISAMPLE: u32 = 0x9101;
const PROXY_TEXTURE_2D_MULTISAMPLE_ARRAY: u32 = 0x9103;

pub(super) fn sized(internal: u32) -> u32 {
    super::framebuffers::sized_renderbuffer_format(internal)
}

/// Whether `f` (sized) is colour-, depth- or stencil-renderable, which a
/// multisample image must be (GL 4.6 §8.8: INVALID_ENUM otherwise).
pub(super) fn renderable(f: u32) -> bool {
    if !valid_internal_format(f) {
        return false;
    }
    if has_depth(f) || has_stencil(f) {
        return true;
    }
    // Shared-exponent is texture-only (compressed formats are not valid
    // internal formats here at all).
    is_color_renderable(f) && f != glow::RGB9_E5
}

/// The common body of the four entry points. `dims` is 2 or 3; `storage`
/// makes the texture immutable (glTexStorage*Multisample).
#[allow(clippy::too_many_arguments)]
pub(super) fn tex_multisample(
    gl: &mut Gl,
    dims: u32,
    target: u32,
    samples: i32,
    internal: u32,
    width: i32,
    height: i32,
    depth: i32,
    fixed_locations: bool,
    storage: bool,
) {
    let want = if dims == 2 {
        glow::TEXTURE_2D_MULTISAMPLE
    } else {
        glow::TEXTURE_2D_MULTISAMPLE_ARRAY
    };
    // glTexImage*Multisample also takes the proxy target (GL 4.6 §8.8);
    // the storage commands do not.
    let proxy = if dims == 2 {
        PROXY_TEXTURE_2D_MULTISAMPLE
    } else {
        PROXY_TEXTURE_2D_MULTISAMPLE_ARRAY
    };
    let is_proxy = !storage && target == proxy;
    if target != want && !is_proxy {
        gl_err!(gl, glow::INVALID_ENUM);
    }
    let f = sized(internal);
    if !renderable(f) {
        gl_err!(gl, glow::INVALID_ENUM);
    }
    // GL 4.6 §8.19: immutable storage takes sized internal formats only.
    if storage && f != internal {
        gl_err!(gl, glow::INVALID_ENUM);
    }
    let caps = &gl.conn.caps;
    let max = caps.max_texture_size as i32;
    let max_layers = caps.max_array_texture_layers.max(1) as i32;
    if samples < 1 || width < 0 || height < 0 || depth < 0 {
        gl_err!(gl, glow::INVALID_VALUE);
    }
    if storage && (width == 0 || height == 0 || depth == 0) {
        gl_err!(gl, glow::INVALID_VALUE);
    }
    if width > max || height > max || depth > max_layers {
        gl_err!(gl, glow::INVALID_VALUE);
    }
    // GL_MAX_{COLOR,DEPTH}_TEXTURE_SAMPLES and GL_MAX_INTEGER_SAMPLES are
    // all answered from the backend's one sample limit.
    if samples as u32 > gl.conn.caps.max_samples {
        gl_err!(gl, glow::INVALID_OPERATION);
    }
    // A proxy image is only checked: no proxy state is kept (its level
    // queries are not implemented), nothing is allocated.
    if is_proxy {
        return;
    }
    let name = bound_texture_name(gl, target);
    let Some(Some(tex)) = gl.sh.textures.get(&name) else {
        gl_err!(gl, glow::INVALID_OPERATION)
    };
    if name == 0 || tex.immutable_levels > 0 {
        gl_err!(gl, glow::INVALID_OPERATION);
    }
    let (created, old) = (tex.created, tex.handle);
    // A fresh identity for new storage (allocated before the old one is
    // freed, so it differs from it): what named the old storage
    // re-resolves.
    let handle = if created {
        let h = gl.conn.alloc.resource.alloc();
        gl.conn
            .pipe
            .resource_destroy(&calls::ResourceDestroy { res: old });
        gl.conn.alloc.resource.free(old);
        h
    } else {
        old
    };
    let (w, h, d) = (width as u32, height as u32, depth.max(1) as u32);
    let Some(Some(t)) = gl.sh.textures.get_mut(&name) else {
        return;
    };
    t.handle = handle;
    t.created = true;
    let samples = supported_samples(&gl.conn.caps, samples as u32);
    t.samples = samples;
    t.fixed_sample_locations = fixed_locations;
    for face in t.levels.iter_mut() {
        face.clear();
    }
    t.set_level(
        0,
        0,
        LevelInfo {
            width: w,
            height: h,
            depth: d,
            internal_format: f,
            requested: f,
        },
    );
    if storage {
        t.immutable_levels = 1;
    }
    gl.conn.pipe.resource_create(
        &calls::ResourceCreate {
            res: handle,
            kind: RESOURCE_TEXTURE,
            target,
            internal_format: f,
            width: w,
            height: h,
            depth: d,
            levels: 1,
            samples,
            gl_name: name,
            ..Default::default()
        },
        &[],
    );
    // A zero-sized image has no storage (GL allows it, then the texture is
    // incomplete and unattachable).
    if w > 0 && h > 0 {
        gl.conn.pipe.texture_storage(&calls::TextureStorage {
            res: handle,
            target,
            levels: 1,
            internal_format: f,
            width: w,
            height: h,
            depth: d,
        });
    }
}

#[no_mangle]
pub unsafe extern "C" fn glTexImage2DMultisample(
    target: u32,
    samples: i32,
    internal: u32,
    width: i32,
    height: i32,
    fixed: u8,
) {
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        tex_multisample(
            gl,
            2,
            target,
            samples,
            internal,
            width,
            height,
            1,
            fixed != 0,
            false,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn glTexImage3DMultisample(
    target: u32,
    samples: i32,
    internal: u32,
    width: i32,
    height: i32,
    depth: i32,
    fixed: u8,
) {
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        tex_multisample(
            gl,
            3,
            target,
            samples,
            internal,
            width,
            height,
            depth,
            fixed != 0,
            false,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn glTexStorage2DMultisample(
    target: u32,
    samples: i32,
    internal: u32,
    width: i32,
    height: i32,
    fixed: u8,
) {
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        tex_multisample(
            gl,
            2,
            target,
            samples,
            internal,
            width,
            height,
            1,
            fixed != 0,
            true,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn glTexStorage3DMultisample(
    target: u32,
    samples: i32,
    internal: u32,
    width: i32,
    height: i32,
    depth: i32,
    fixed: u8,
) {
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        tex_multisample(
            gl,
            3,
            target,
            samples,
            internal,
            width,
            height,
            depth,
            fixed != 0,
            true,
        )
    })
}

/// The sample count an image requested with `samples` gets: the smallest
/// count of at least `samples` the backend can make (GL 4.6 §8.8: the
/// resulting GL_TEXTURE_SAMPLES is at least the request and no more than
/// the next supported count; §9.2.4 the same for renderbuffers). 0 and 1
/// stay as asked; a request no supported count reaches stays as asked too
/// (the caller has checked it against GL_MAX_SAMPLES).
pub(crate) fn supported_samples(caps: &mgpipe::Caps, samples: u32) -> u32 {
    if samples <= 1 || caps.sample_counts <= 1 {
        return samples;
    }
    (samples..=caps.max_samples.min(1 << 30))
        .find(|&n| n.is_power_of_two() && caps.sample_counts & n != 0)
        .unwrap_or(samples)
}

/// Standard sample positions (the fixed patterns Vulkan and D3D name and
/// llvmpipe uses), x and y from the corner at memory row 0,
/// for 1, 2, 4, 8 and 16 samples.
fn standard_sample_position(samples: u32, index: u32) -> Option<[f32; 2]> {
    const P1: [[f32; 2]; 1] = [[0.5, 0.5]];
    const P2: [[f32; 2]; 2] = [[0.75, 0.75], [0.25, 0.25]];
    const P4: [[f32; 2]; 4] = [
        [0.375, 0.125],
        [0.875, 0.375],
        [0.125, 0.625],
        [0.625, 0.875],
    ];
    const P8: [[f32; 2]; 8] = [
        [0.5625, 0.3125],
        [0.4375, 0.6875],
        [0.8125, 0.5625],
        [0.3125, 0.1875],
        [0.1875, 0.8125],
        [0.0625, 0.4375],
        [0.6875, 0.9375],
        [0.9375, 0.0625],
    ];
    const P16: [[f32; 2]; 16] = [
        [0.5625, 0.5625],
        [0.4375, 0.3125],
        [0.3125, 0.625],
        [0.75, 0.4375],
        [0.1875, 0.375],
        [0.625, 0.8125],
        [0.8125, 0.6875],
        [0.6875, 0.1875],
        [0.375, 0.875],
        [0.5, 0.0625],
        [0.25, 0.125],
        [0.125, 0.75],
        [0.0, 0.5],
        [0.9375, 0.25],
        [0.875, 0.9375],
        [0.0625, 0.0],
    ];
    let table: &[[f32; 2]] = match samples {
        0 | 1 => &P1,
        2 => &P2,
        3 | 4 => &P4,
        5..=8 => &P8,
        _ => &P16,
    };
    table.get(index as usize).copied()
}

/// glGetMultisamplefv (GL 3.2): GL_SAMPLE_POSITION of sample `index` of
/// the draw framebuffer, in [0, 1] from the pixel's lower-left corner.
#[no_mangle]
pub unsafe extern "C" fn glGetMultisamplefv(pname: u32, index: u32, val: *mut f32) {
    crate::context::with_gl(|gl| {
        if pname != glow::SAMPLE_POSITION {
            gl_err!(gl, glow::INVALID_ENUM);
        }
        let samples = gl.framebuffer_samples(gl.st.draw_fbo);
        if index >= samples.max(1) {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        let Some([x, y]) = standard_sample_position(samples, index) else {
            gl_err!(gl, glow::INVALID_VALUE);
        };
        // Both backends keep GL's row 0 in memory row 0, where the
        // standard pattern's y counts from: it is GL's y as listed.
        if val.is_null() {
            return;
        }
        // SAFETY: GL_SAMPLE_POSITION returns two floats; the caller
        // provides room for them (checked not null).
        unsafe {
            *val = x;
            *val.add(1) = y;
        }
    })
}

#[cfg(test)]
mod tests {
    use super::supported_samples;

    #[test]
    fn requests_round_up_to_a_supported_count() {
        let mut caps = mgpipe::Caps::minimum();
        caps.max_samples = 8;
        // lavapipe's counts: 1 and 4 only.
        caps.sample_counts = 1 | 4;
        assert_eq!(supported_samples(&caps, 0), 0);
        assert_eq!(supported_samples(&caps, 1), 1);
        assert_eq!(supported_samples(&caps, 2), 4);
        assert_eq!(supported_samples(&caps, 3), 4);
        assert_eq!(supported_samples(&caps, 4), 4);
        // Nothing supported reaches 8: the request stays.
        assert_eq!(supported_samples(&caps, 8), 8);
        caps.sample_counts = 1 | 2 | 4 | 8;
        assert_eq!(supported_samples(&caps, 3), 4);
        assert_eq!(supported_samples(&caps, 5), 8);
        // No counts named: every request stays as asked.
        caps.sample_counts = 0;
        assert_eq!(supported_samples(&caps, 2), 2);
    }
}
