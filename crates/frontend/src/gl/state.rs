//! Fixed-function state, errors, clears, flush/finish.

use super::dlist::with_gl_listed;
use mgpipe::calls;
use mgpipe::consts::*;
use mgpipe::Pipe;

use super::{gl_err, log_once, slice};
use crate::context::{
    with_gl, with_gl_dirty, Gl, DIRTY_DYNAMIC, DIRTY_PROGRAM, DIRTY_RENDER_STATE, DIRTY_UNIFORMS,
    MAX_DRAW_BUFFERS,
};

fn valid_blend_factor(f: u32) -> bool {
    matches!(
        f,
        glow::ZERO
            | glow::ONE
            | glow::SRC_COLOR
            | glow::ONE_MINUS_SRC_COLOR
            | glow::DST_COLOR
            | glow::ONE_MINUS_DST_COLOR
            | glow::SRC_ALPHA
            | glow::ONE_MINUS_SRC_ALPHA
            | glow::DST_ALPHA
            | glow::ONE_MINUS_DST_ALPHA
            | glow::CONSTANT_COLOR
            | glow::ONE_MINUS_CONSTANT_COLOR
            | glow::CONSTANT_ALPHA
            | glow::ONE_MINUS_CONSTANT_ALPHA
            | glow::SRC_ALPHA_SATURATE
            | glow::SRC1_COLOR
            | glow::ONE_MINUS_SRC1_COLOR
            | glow::SRC1_ALPHA
            | glow::ONE_MINUS_SRC1_ALPHA
    )
}
fn valid_blend_eq(e: u32) -> bool {
    matches!(
        e,
        glow::FUNC_ADD | glow::FUNC_SUBTRACT | glow::FUNC_REVERSE_SUBTRACT | glow::MIN | glow::MAX
    )
}
pub fn valid_compare_func(f: u32) -> bool {
    matches!(
        f,
        glow::NEVER
            | glow::LESS
            | glow::EQUAL
            | glow::LEQUAL
            | glow::GREATER
            | glow::NOTEQUAL
            | glow::GEQUAL
            | glow::ALWAYS
    )
}
fn valid_stencil_op(o: u32) -> bool {
    matches!(
        o,
        glow::KEEP
            | glow::ZERO
            | glow::REPLACE
            | glow::INCR
            | glow::INCR_WRAP
            | glow::DECR
            | glow::DECR_WRAP
            | glow::INVERT
    )
}

/// Set a capability; false = not a capability we know (INVALID_ENUM).
fn set_cap(gl: &mut Gl, cap: u32, on: bool) -> bool {
    let s = &mut *gl.st;
    match cap {
        glow::BLEND => s.blend_enabled = if on { 0xFF } else { 0 },
        glow::DEPTH_TEST => s.depth_test = on,
        glow::STENCIL_TEST => s.stencil_test = on,
        glow::CULL_FACE => s.cull_face = on,
        glow::SCISSOR_TEST => s.scissor_test = on,
        glow::POLYGON_OFFSET_FILL => s.polygon_offset_fill = on,
        glow::POLYGON_OFFSET_LINE => s.polygon_offset_line = on,
        glow::POLYGON_OFFSET_POINT => s.polygon_offset_point = on,
        glow::RASTERIZER_DISCARD => s.rasterizer_discard = on,
        glow::SAMPLE_ALPHA_TO_COVERAGE => s.sample_alpha_to_coverage = on,
        glow::SAMPLE_ALPHA_TO_ONE => s.sample_alpha_to_one = on,
        glow::SAMPLE_COVERAGE => s.sample_coverage = on,
        glow::SAMPLE_MASK => s.sample_mask = on,
        glow::SAMPLE_SHADING => s.sample_shading = on,
        glow::DITHER => s.dither = on,
        glow::MULTISAMPLE => s.multisample = on,
        glow::PRIMITIVE_RESTART => s.primitive_restart = on,
        glow::PRIMITIVE_RESTART_FIXED_INDEX => s.primitive_restart_fixed = on,
        glow::PROGRAM_POINT_SIZE => {
            s.program_point_size = on;
            super::points::refresh(gl);
        }
        glow::DEPTH_CLAMP => s.depth_clamp = on,
        glow::FRAMEBUFFER_SRGB => s.framebuffer_srgb = on,
        glow::LINE_SMOOTH => s.line_smooth = on,
        glow::POLYGON_SMOOTH => s.polygon_smooth = on,
        glow::TEXTURE_CUBE_MAP_SEAMLESS => s.texture_cube_map_seamless = on,
        glow::COLOR_LOGIC_OP => s.color_logic_op = on,
        glow::DEBUG_OUTPUT => s.debug_out.output = on,
        glow::DEBUG_OUTPUT_SYNCHRONOUS => s.debug_out.synchronous = on,
        c if (glow::CLIP_DISTANCE0..glow::CLIP_DISTANCE0 + 8).contains(&c) => {
            let bit = 1 << (c - glow::CLIP_DISTANCE0);
            if on {
                s.clip_distances |= bit
            } else {
                s.clip_distances &= !bit
            }
            // GL_CLIP_PLANEi: a `gl_ClipVertex` shader's planes follow.
            let enabled = s.clip_distances;
            super::matrix::clip_enables_changed(gl, enabled);
        }
        c if !s.is_core() => return super::fixed_function::set_cap(gl, c, on),
        _ => return false,
    }
    true
}

pub fn get_cap(gl: &Gl, cap: u32) -> Option<bool> {
    let s = &*gl.st;
    Some(match cap {
        glow::BLEND => s.blend_enabled & 1 != 0,
        glow::DEPTH_TEST => s.depth_test,
        glow::STENCIL_TEST => s.stencil_test,
        glow::CULL_FACE => s.cull_face,
        glow::SCISSOR_TEST => s.scissor_test,
        glow::POLYGON_OFFSET_FILL => s.polygon_offset_fill,
        glow::POLYGON_OFFSET_LINE => s.polygon_offset_line,
        glow::POLYGON_OFFSET_POINT => s.polygon_offset_point,
        glow::RASTERIZER_DISCARD => s.rasterizer_discard,
        glow::SAMPLE_ALPHA_TO_COVERAGE => s.sample_alpha_to_coverage,
        glow::SAMPLE_ALPHA_TO_ONE => s.sample_alpha_to_one,
        glow::SAMPLE_COVERAGE => s.sample_coverage,
        glow::SAMPLE_MASK => s.sample_mask,
        glow::SAMPLE_SHADING => s.sample_shading,
        glow::DITHER => s.dither,
        glow::MULTISAMPLE => s.multisample,
        glow::PRIMITIVE_RESTART => s.primitive_restart,
        glow::PRIMITIVE_RESTART_FIXED_INDEX => s.primitive_restart_fixed,
        glow::PROGRAM_POINT_SIZE => s.program_point_size,
        glow::DEPTH_CLAMP => s.depth_clamp,
        glow::FRAMEBUFFER_SRGB => s.framebuffer_srgb,
        glow::LINE_SMOOTH => s.line_smooth,
        glow::POLYGON_SMOOTH => s.polygon_smooth,
        glow::TEXTURE_CUBE_MAP_SEAMLESS => s.texture_cube_map_seamless,
        glow::COLOR_LOGIC_OP => s.color_logic_op,
        glow::DEBUG_OUTPUT => s.debug_out.output,
        glow::DEBUG_OUTPUT_SYNCHRONOUS => s.debug_out.synchronous,
        c if (glow::CLIP_DISTANCE0..glow::CLIP_DISTANCE0 + 8).contains(&c) => {
            s.clip_distances & (1 << (c - glow::CLIP_DISTANCE0)) != 0
        }
        c if !s.is_core() => {
            return super::legacy_arrays::client_state(gl, c)
                .or_else(|| super::fixed_function::get_cap(gl, c))
        }
        _ => return None,
    })
}

#[no_mangle]
pub unsafe extern "C" fn glEnable(cap: u32) {
    with_gl_listed("glEnable", DIRTY_RENDER_STATE | DIRTY_DYNAMIC, move |gl| {
        if !set_cap(gl, cap, true) && !super::legacy_arrays::enable_as_client_state(gl, cap, true) {
            gl.st.set_error(glow::INVALID_ENUM);
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glDisable(cap: u32) {
    with_gl_listed("glDisable", DIRTY_RENDER_STATE | DIRTY_DYNAMIC, move |gl| {
        if !set_cap(gl, cap, false) && !super::legacy_arrays::enable_as_client_state(gl, cap, false)
        {
            gl.st.set_error(glow::INVALID_ENUM);
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glIsEnabled(cap: u32) -> u8 {
    with_gl(|gl| match get_cap(gl, cap) {
        Some(v) => v as u8,
        None => {
            gl.st.set_error(glow::INVALID_ENUM);
            0
        }
    })
}

fn indexed_cap(gl: &mut Gl, cap: u32, index: u32, on: Option<bool>) -> u8 {
    match cap {
        glow::BLEND => {
            if index as usize >= MAX_DRAW_BUFFERS {
                gl.st.set_error(glow::INVALID_VALUE);
                return 0;
            }
            let bit = 1u32 << index;
            match on {
                Some(true) => gl.st.blend_enabled |= bit,
                Some(false) => gl.st.blend_enabled &= !bit,
                None => return (gl.st.blend_enabled & bit != 0) as u8,
            }
            0
        }
        _ => {
            gl.st.set_error(glow::INVALID_ENUM);
            0
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn glEnablei(cap: u32, index: u32) {
    with_gl_listed("glEnablei", DIRTY_RENDER_STATE | DIRTY_DYNAMIC, move |gl| {
        indexed_cap(gl, cap, index, Some(true));
    })
}
#[no_mangle]
pub unsafe extern "C" fn glDisablei(cap: u32, index: u32) {
    with_gl_listed(
        "glDisablei",
        DIRTY_RENDER_STATE | DIRTY_DYNAMIC,
        move |gl| {
            indexed_cap(gl, cap, index, Some(false));
        },
    )
}
#[no_mangle]
pub unsafe extern "C" fn glIsEnabledi(cap: u32, index: u32) -> u8 {
    with_gl(|gl| indexed_cap(gl, cap, index, None))
}

#[no_mangle]
pub unsafe extern "C" fn glGetError() -> u32 {
    crate::context::with_gl_exempt(|gl| {
        // Errors the backend reported (on_gl_error) count too.
        crate::gl::persistent::absorb_events(gl);
        let e = gl.st.error;
        gl.st.error = glow::NO_ERROR;
        e
    })
}

/// Draw buffer `buf`, or every buffer (None); `None` when `buf` is out of
/// range (`GL_INVALID_VALUE` for the indexed blend calls).
fn draw_buffer_range(buf: Option<u32>) -> Option<std::ops::Range<usize>> {
    match buf {
        Some(i) if i as usize >= MAX_DRAW_BUFFERS => None,
        Some(i) => Some(i as usize..i as usize + 1),
        None => Some(0..MAX_DRAW_BUFFERS),
    }
}

/// Set the blend function of draw buffer `buf`, or every buffer (None).
fn set_blend_func(gl: &mut Gl, buf: Option<u32>, f: [u32; 4]) {
    if !f.iter().all(|&x| valid_blend_factor(x)) {
        gl_err!(gl, glow::INVALID_ENUM);
    }
    let Some(range) = draw_buffer_range(buf) else {
        gl_err!(gl, glow::INVALID_VALUE);
    };
    let s = &mut *gl.st;
    for i in range {
        s.blend_src_rgb[i] = f[0];
        s.blend_dst_rgb[i] = f[1];
        s.blend_src_alpha[i] = f[2];
        s.blend_dst_alpha[i] = f[3];
    }
}

/// Set the blend equations of draw buffer `buf`, or every buffer (None).
fn set_blend_eq(gl: &mut Gl, buf: Option<u32>, rgb: u32, alpha: u32) {
    if !valid_blend_eq(rgb) || !valid_blend_eq(alpha) {
        gl_err!(gl, glow::INVALID_ENUM);
    }
    let Some(range) = draw_buffer_range(buf) else {
        gl_err!(gl, glow::INVALID_VALUE);
    };
    let s = &mut *gl.st;
    for i in range {
        s.blend_eq_rgb[i] = rgb;
        s.blend_eq_alpha[i] = alpha;
    }
}

#[no_mangle]
pub unsafe extern "C" fn glBlendFunc(src: u32, dst: u32) {
    with_gl_listed(
        "glBlendFunc",
        DIRTY_RENDER_STATE | DIRTY_DYNAMIC,
        move |gl| set_blend_func(gl, None, [src, dst, src, dst]),
    )
}

#[no_mangle]
pub unsafe extern "C" fn glBlendFuncSeparate(src_rgb: u32, dst_rgb: u32, src_a: u32, dst_a: u32) {
    with_gl_listed(
        "glBlendFuncSeparate",
        DIRTY_RENDER_STATE | DIRTY_DYNAMIC,
        move |gl| set_blend_func(gl, None, [src_rgb, dst_rgb, src_a, dst_a]),
    )
}

#[no_mangle]
pub unsafe extern "C" fn glBlendFunci(buf: u32, src: u32, dst: u32) {
    with_gl_listed(
        "glBlendFunci",
        DIRTY_RENDER_STATE | DIRTY_DYNAMIC,
        move |gl| set_blend_func(gl, Some(buf), [src, dst, src, dst]),
    )
}

#[no_mangle]
pub unsafe extern "C" fn glBlendFuncSeparatei(
    buf: u32,
    src_rgb: u32,
    dst_rgb: u32,
    src_a: u32,
    dst_a: u32,
) {
    with_gl_listed(
        "glBlendFuncSeparatei",
        DIRTY_RENDER_STATE | DIRTY_DYNAMIC,
        move |gl| set_blend_func(gl, Some(buf), [src_rgb, dst_rgb, src_a, dst_a]),
    )
}

#[no_mangle]
pub unsafe extern "C" fn glBlendEquation(mode: u32) {
    with_gl_listed(
        "glBlendEquation",
        DIRTY_RENDER_STATE | DIRTY_DYNAMIC,
        move |gl| set_blend_eq(gl, None, mode, mode),
    )
}

#[no_mangle]
pub unsafe extern "C" fn glBlendEquationSeparate(rgb: u32, alpha: u32) {
    with_gl_listed(
        "glBlendEquationSeparate",
        DIRTY_RENDER_STATE | DIRTY_DYNAMIC,
        move |gl| set_blend_eq(gl, None, rgb, alpha),
    )
}

#[no_mangle]
pub unsafe extern "C" fn glBlendEquationi(buf: u32, mode: u32) {
    with_gl_listed(
        "glBlendEquationi",
        DIRTY_RENDER_STATE | DIRTY_DYNAMIC,
        move |gl| set_blend_eq(gl, Some(buf), mode, mode),
    )
}

#[no_mangle]
pub unsafe extern "C" fn glBlendEquationSeparatei(buf: u32, rgb: u32, alpha: u32) {
    with_gl_listed(
        "glBlendEquationSeparatei",
        DIRTY_RENDER_STATE | DIRTY_DYNAMIC,
        move |gl| set_blend_eq(gl, Some(buf), rgb, alpha),
    )
}

/// glTextureBarrier (GL 4.5, ARB_texture_barrier): earlier rendering is
/// visible to later texture fetches, as a memory barrier over texture
/// fetches and framebuffer accesses (the backends order draws after it).
#[no_mangle]
pub unsafe extern "C" fn glTextureBarrier() {
    with_gl(|gl| {
        super::compute::memory_barrier(
            gl,
            glow::TEXTURE_FETCH_BARRIER_BIT | glow::FRAMEBUFFER_BARRIER_BIT,
            false,
        )
    })
}

/// glClipControl (GL 4.5, ARB_clip_control).
#[no_mangle]
pub unsafe extern "C" fn glClipControl(origin: u32, depth: u32) {
    with_gl_listed(
        "glClipControl",
        DIRTY_RENDER_STATE | DIRTY_DYNAMIC,
        move |gl| {
            if !matches!(origin, glow::LOWER_LEFT | glow::UPPER_LEFT)
                || !matches!(depth, glow::NEGATIVE_ONE_TO_ONE | glow::ZERO_TO_ONE)
            {
                gl_err!(gl, glow::INVALID_ENUM);
            }
            gl.st.clip_upper_left = origin == glow::UPPER_LEFT;
            gl.st.clip_zero_to_one = depth == glow::ZERO_TO_ONE;
        },
    )
}

/// glMinSampleShading (GL 4.0): the value is clamped to [0, 1].
#[no_mangle]
pub unsafe extern "C" fn glMinSampleShading(value: f32) {
    with_gl_listed(
        "glMinSampleShading",
        DIRTY_RENDER_STATE | DIRTY_DYNAMIC,
        move |gl| {
            if gl.conn.caps.features & mgpipe::caps::CAPS_FEATURE_SAMPLE_SHADING == 0 {
                log_once("glMinSampleShading", || {
                    "glMinSampleShading: the backend has no per-sample shading; value kept".into()
                });
            }
            gl.st.min_sample_shading = if value.is_nan() {
                0.0
            } else {
                value.clamp(0.0, 1.0)
            };
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn glBlendColor(r: f32, g: f32, b: f32, a: f32) {
    with_gl_listed(
        "glBlendColor",
        DIRTY_RENDER_STATE | DIRTY_DYNAMIC,
        move |gl| gl.st.blend_color = [r, g, b, a],
    )
}

#[no_mangle]
pub unsafe extern "C" fn glColorMask(r: u8, g: u8, b: u8, a: u8) {
    with_gl_listed(
        "glColorMask",
        DIRTY_RENDER_STATE | DIRTY_DYNAMIC,
        move |gl| {
            let m = (r != 0) as u8
                | ((g != 0) as u8) << 1
                | ((b != 0) as u8) << 2
                | ((a != 0) as u8) << 3;
            gl.st.color_mask = [m; MAX_DRAW_BUFFERS];
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn glColorMaski(i: u32, r: u8, g: u8, b: u8, a: u8) {
    with_gl_listed(
        "glColorMaski",
        DIRTY_RENDER_STATE | DIRTY_DYNAMIC,
        move |gl| {
            if i as usize >= MAX_DRAW_BUFFERS {
                gl_err!(gl, glow::INVALID_VALUE);
            }
            gl.st.color_mask[i as usize] = (r != 0) as u8
                | ((g != 0) as u8) << 1
                | ((b != 0) as u8) << 2
                | ((a != 0) as u8) << 3;
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn glDepthFunc(f: u32) {
    with_gl_listed(
        "glDepthFunc",
        DIRTY_RENDER_STATE | DIRTY_DYNAMIC,
        move |gl| {
            if !valid_compare_func(f) {
                gl_err!(gl, glow::INVALID_ENUM);
            }
            gl.st.depth_func = f;
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn glDepthMask(flag: u8) {
    with_gl_listed(
        "glDepthMask",
        DIRTY_RENDER_STATE | DIRTY_DYNAMIC,
        move |gl| gl.st.depth_mask = flag != 0,
    )
}

#[no_mangle]
pub unsafe extern "C" fn glDepthRange(n: f64, f: f64) {
    // DIRTY_UNIFORMS: a program reading `gl_DepthRange` gets the new range.
    with_gl_listed(
        "glDepthRange",
        DIRTY_RENDER_STATE | DIRTY_DYNAMIC | DIRTY_UNIFORMS,
        move |gl| gl.st.depth_range = [n.clamp(0.0, 1.0) as f32, f.clamp(0.0, 1.0) as f32],
    )
}

#[no_mangle]
pub unsafe extern "C" fn glDepthRangef(n: f32, f: f32) {
    with_gl_listed(
        "glDepthRangef",
        DIRTY_RENDER_STATE | DIRTY_DYNAMIC | DIRTY_UNIFORMS,
        move |gl| gl.st.depth_range = [n.clamp(0.0, 1.0), f.clamp(0.0, 1.0)],
    )
}

fn stencil_faces(face: u32) -> Option<&'static [usize]> {
    match face {
        glow::FRONT => Some(&[0]),
        glow::BACK => Some(&[1]),
        glow::FRONT_AND_BACK => Some(&[0, 1]),
        _ => None,
    }
}

#[no_mangle]
pub unsafe extern "C" fn glStencilFuncSeparate(face: u32, func: u32, reference: i32, mask: u32) {
    with_gl_listed(
        "glStencilFuncSeparate",
        DIRTY_RENDER_STATE | DIRTY_DYNAMIC,
        move |gl| {
            let Some(faces) = stencil_faces(face) else {
                gl_err!(gl, glow::INVALID_ENUM)
            };
            if !valid_compare_func(func) {
                gl_err!(gl, glow::INVALID_ENUM);
            }
            for &i in faces {
                let f = &mut gl.st.stencil[i];
                (f.func, f.reference, f.value_mask) = (func, reference, mask);
            }
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn glStencilFunc(func: u32, reference: i32, mask: u32) {
    // SAFETY: forwards plain values.
    unsafe { glStencilFuncSeparate(glow::FRONT_AND_BACK, func, reference, mask) }
}

#[no_mangle]
pub unsafe extern "C" fn glStencilOpSeparate(face: u32, sfail: u32, dpfail: u32, dppass: u32) {
    with_gl_listed(
        "glStencilOpSeparate",
        DIRTY_RENDER_STATE | DIRTY_DYNAMIC,
        move |gl| {
            let Some(faces) = stencil_faces(face) else {
                gl_err!(gl, glow::INVALID_ENUM)
            };
            if ![sfail, dpfail, dppass].iter().all(|&o| valid_stencil_op(o)) {
                gl_err!(gl, glow::INVALID_ENUM);
            }
            for &i in faces {
                let f = &mut gl.st.stencil[i];
                (f.fail, f.zfail, f.zpass) = (sfail, dpfail, dppass);
            }
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn glStencilOp(sfail: u32, dpfail: u32, dppass: u32) {
    // SAFETY: forwards plain values.
    unsafe { glStencilOpSeparate(glow::FRONT_AND_BACK, sfail, dpfail, dppass) }
}

#[no_mangle]
pub unsafe extern "C" fn glStencilMaskSeparate(face: u32, mask: u32) {
    with_gl_listed(
        "glStencilMaskSeparate",
        DIRTY_RENDER_STATE | DIRTY_DYNAMIC,
        move |gl| {
            let Some(faces) = stencil_faces(face) else {
                gl_err!(gl, glow::INVALID_ENUM)
            };
            for &i in faces {
                gl.st.stencil[i].write_mask = mask;
            }
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn glStencilMask(mask: u32) {
    // SAFETY: forwards plain values.
    unsafe { glStencilMaskSeparate(glow::FRONT_AND_BACK, mask) }
}

#[no_mangle]
pub unsafe extern "C" fn glCullFace(mode: u32) {
    with_gl_listed(
        "glCullFace",
        DIRTY_RENDER_STATE | DIRTY_DYNAMIC,
        move |gl| {
            if stencil_faces(mode).is_none() {
                gl_err!(gl, glow::INVALID_ENUM);
            }
            gl.st.cull_mode = mode;
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn glFrontFace(mode: u32) {
    with_gl_listed(
        "glFrontFace",
        DIRTY_RENDER_STATE | DIRTY_DYNAMIC,
        move |gl| {
            if mode != glow::CW && mode != glow::CCW {
                gl_err!(gl, glow::INVALID_ENUM);
            }
            gl.st.front_face = mode;
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn glViewport(x: i32, y: i32, w: i32, h: i32) {
    with_gl_listed(
        "glViewport",
        DIRTY_RENDER_STATE | DIRTY_DYNAMIC,
        move |gl| {
            if w < 0 || h < 0 {
                gl_err!(gl, glow::INVALID_VALUE);
            }
            let max = gl.conn.caps.max_viewport_dims;
            gl.st.viewport = [x, y, w.min(max[0] as i32), h.min(max[1] as i32)];
            gl.st.viewport_set = true;
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn glScissor(x: i32, y: i32, w: i32, h: i32) {
    with_gl_listed("glScissor", DIRTY_RENDER_STATE | DIRTY_DYNAMIC, move |gl| {
        if w < 0 || h < 0 {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        gl.st.scissor = [x, y, w, h];
    })
}

#[no_mangle]
pub unsafe extern "C" fn glClearColor(r: f32, g: f32, b: f32, a: f32) {
    with_gl_listed("glClearColor", 0, move |gl| {
        gl.st.clear_color = [r, g, b, a];
        gl.st.clear_color_integer = None;
    })
}

/// EXT_texture_integer: the clear colour for integer colour buffers, which
/// glClear then clears with these words (a float clear colour leaves them
/// undefined). GL_COLOR_CLEAR_VALUE reads the values as floats.
fn clear_color_integer(ty: u32, words: [u32; 4]) {
    with_gl(|gl| {
        gl.st.clear_color = if ty == CLEAR_INT {
            words.map(|w| w as i32 as f32)
        } else {
            words.map(|w| w as f32)
        };
        gl.st.clear_color_integer = Some((ty, words));
    })
}

// Extension-only commands: not exported (the exported gl* names are the
// core ones), reached through GetProcAddress's table.
pub unsafe extern "C" fn glClearColorIiEXT(r: i32, g: i32, b: i32, a: i32) {
    clear_color_integer(CLEAR_INT, [r as u32, g as u32, b as u32, a as u32])
}

pub unsafe extern "C" fn glClearColorIuiEXT(r: u32, g: u32, b: u32, a: u32) {
    clear_color_integer(CLEAR_UINT, [r, g, b, a])
}

#[no_mangle]
pub unsafe extern "C" fn glClearDepth(d: f64) {
    with_gl_listed("glClearDepth", 0, move |gl| {
        gl.st.clear_depth = d.clamp(0.0, 1.0)
    })
}

#[no_mangle]
pub unsafe extern "C" fn glClearDepthf(d: f32) {
    with_gl_listed("glClearDepthf", 0, move |gl| {
        gl.st.clear_depth = d.clamp(0.0, 1.0) as f64
    })
}

#[no_mangle]
pub unsafe extern "C" fn glClearStencil(s: i32) {
    with_gl_listed("glClearStencil", 0, move |gl| gl.st.clear_stencil = s)
}

#[no_mangle]
pub unsafe extern "C" fn glPolygonOffset(factor: f32, units: f32) {
    with_gl_listed(
        "glPolygonOffset",
        DIRTY_RENDER_STATE | DIRTY_DYNAMIC,
        move |gl| gl.st.polygon_offset = [factor, units, 0.0],
    )
}

/// glPolygonOffsetClamp (GL 4.6, ARB/EXT_polygon_offset_clamp): a clamp
/// of zero or NaN means none.
#[no_mangle]
pub unsafe extern "C" fn glPolygonOffsetClamp(factor: f32, units: f32, clamp: f32) {
    with_gl_listed(
        "glPolygonOffsetClamp",
        DIRTY_RENDER_STATE | DIRTY_DYNAMIC,
        move |gl| {
            let clamp = if clamp.is_nan() { 0.0 } else { clamp };
            gl.st.polygon_offset = [factor, units, clamp]
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn glLineWidth(w: f32) {
    with_gl_listed(
        "glLineWidth",
        DIRTY_RENDER_STATE | DIRTY_DYNAMIC,
        move |gl| {
            if w <= 0.0 || w.is_nan() {
                gl_err!(gl, glow::INVALID_VALUE);
            }
            gl.st.line_width = w;
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn glPointSize(s: f32) {
    with_gl_listed(
        "glPointSize",
        DIRTY_RENDER_STATE | DIRTY_DYNAMIC,
        move |gl| {
            if s <= 0.0 || s.is_nan() {
                gl_err!(gl, glow::INVALID_VALUE);
            }
            gl.st.point_size = s;
            super::points::refresh(gl);
        },
    )
}

/// `GL_CLAMP_VERTEX_COLOR` (compatibility profile; glow lacks it).
pub const CLAMP_VERTEX_COLOR: u32 = 0x891A;
/// `GL_CLAMP_FRAGMENT_COLOR` (compatibility profile; glow lacks it).
pub const CLAMP_FRAGMENT_COLOR: u32 = 0x891B;

/// Index into `GlState::clamp_color` of a glClampColor target.
pub(crate) fn clamp_color_index(target: u32, core: bool) -> Option<usize> {
    match target {
        glow::CLAMP_READ_COLOR => Some(0),
        CLAMP_VERTEX_COLOR if !core => Some(1),
        CLAMP_FRAGMENT_COLOR if !core => Some(2),
        _ => None,
    }
}

/// glClampColor (GL 4.6 §18.2.8, compatibility §14.7.6): the values are
/// tracked and queryable. Only GL_CLAMP_READ_COLOR matters to a core
/// context, and the read path never clamps float colours (it honours
/// neither TRUE nor FIXED_ONLY for them: named gap, logged once).
#[no_mangle]
pub unsafe extern "C" fn glClampColor(target: u32, clamp: u32) {
    with_gl_listed("glClampColor", 0, move |gl| {
        let Some(i) = clamp_color_index(target, gl.st.is_core()) else {
            gl_err!(gl, glow::INVALID_ENUM);
        };
        if clamp != glow::TRUE as u32 && clamp != glow::FALSE as u32 && clamp != glow::FIXED_ONLY {
            gl_err!(gl, glow::INVALID_ENUM);
        }
        if i == 0 && clamp == glow::TRUE as u32 {
            log_once("clamp_read_color", || {
                "glClampColor(GL_CLAMP_READ_COLOR, GL_TRUE): float colours are read unclamped"
                    .into()
            });
        }
        gl.st.clamp_color[i] = clamp;
    })
}

#[no_mangle]
pub unsafe extern "C" fn glPolygonMode(face: u32, mode: u32) {
    with_gl_listed(
        "glPolygonMode",
        DIRTY_RENDER_STATE | DIRTY_DYNAMIC,
        move |gl| {
            if face != glow::FRONT_AND_BACK && (gl.st.is_core() || stencil_faces(face).is_none()) {
                gl_err!(gl, glow::INVALID_ENUM);
            }
            if !matches!(mode, glow::POINT | glow::LINE | glow::FILL) {
                gl_err!(gl, glow::INVALID_ENUM);
            }
            match face {
                glow::FRONT => gl.st.polygon_mode[0] = mode,
                glow::BACK => gl.st.polygon_mode[1] = mode,
                _ => gl.st.polygon_mode = [mode; 2],
            }
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn glProvokingVertex(mode: u32) {
    // DIRTY_PROGRAM: a program with a geometry shader draws through its
    // first-vertex variant (`Gl::variant_cso`).
    with_gl_listed(
        "glProvokingVertex",
        DIRTY_RENDER_STATE | DIRTY_DYNAMIC | DIRTY_PROGRAM,
        move |gl| {
            if mode != glow::FIRST_VERTEX_CONVENTION && mode != glow::LAST_VERTEX_CONVENTION {
                gl_err!(gl, glow::INVALID_ENUM);
            }
            gl.st.provoking_vertex = mode;
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn glPrimitiveRestartIndex(index: u32) {
    with_gl_listed(
        "glPrimitiveRestartIndex",
        DIRTY_RENDER_STATE | DIRTY_DYNAMIC,
        move |gl| gl.st.primitive_restart_index = index,
    )
}

#[no_mangle]
pub unsafe extern "C" fn glSampleCoverage(value: f32, invert: u8) {
    with_gl_listed(
        "glSampleCoverage",
        DIRTY_RENDER_STATE | DIRTY_DYNAMIC,
        move |gl| {
            gl.st.sample_coverage_value = value.clamp(0.0, 1.0);
            gl.st.sample_coverage_invert = invert != 0;
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn glSampleMaski(index: u32, mask: u32) {
    with_gl_listed("glSampleMaski", DIRTY_RENDER_STATE, move |gl| {
        // GL_MAX_SAMPLE_MASK_WORDS is 1.
        if index != 0 {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        gl.st.sample_mask_value = mask;
    })
}

#[no_mangle]
pub unsafe extern "C" fn glLogicOp(op: u32) {
    with_gl_listed("glLogicOp", DIRTY_RENDER_STATE | DIRTY_DYNAMIC, move |gl| {
        if !(glow::CLEAR..=glow::SET).contains(&op) {
            gl_err!(gl, glow::INVALID_ENUM);
        }
        gl.st.logic_op = op;
    })
}

#[no_mangle]
pub unsafe extern "C" fn glHint(target: u32, mode: u32) {
    with_gl_listed("glHint", 0, move |gl| {
        if !matches!(mode, glow::FASTEST | glow::NICEST | glow::DONT_CARE) {
            gl_err!(gl, glow::INVALID_ENUM);
        }
        if !matches!(
            target,
            glow::LINE_SMOOTH_HINT
                | glow::POLYGON_SMOOTH_HINT
                | glow::TEXTURE_COMPRESSION_HINT
                | glow::FRAGMENT_SHADER_DERIVATIVE_HINT
        ) {
            gl_err!(gl, glow::INVALID_ENUM);
        }
        gl.st.hints.insert(target, mode);
    })
}

#[no_mangle]
pub unsafe extern "C" fn glPixelStorei(pname: u32, param: i32) {
    with_gl(|gl| {
        let (store, key) = match pname {
            glow::PACK_ROW_LENGTH
            | glow::PACK_IMAGE_HEIGHT
            | glow::PACK_SKIP_PIXELS
            | glow::PACK_SKIP_ROWS
            | glow::PACK_SKIP_IMAGES
            | glow::PACK_ALIGNMENT
            | glow::PACK_SWAP_BYTES
            | glow::PACK_LSB_FIRST => (&mut gl.st.pack, pname),
            glow::UNPACK_ROW_LENGTH
            | glow::UNPACK_IMAGE_HEIGHT
            | glow::UNPACK_SKIP_PIXELS
            | glow::UNPACK_SKIP_ROWS
            | glow::UNPACK_SKIP_IMAGES
            | glow::UNPACK_ALIGNMENT
            | glow::UNPACK_SWAP_BYTES
            | glow::UNPACK_LSB_FIRST => (&mut gl.st.unpack, pname),
            _ => gl_err!(gl, glow::INVALID_ENUM),
        };
        let is_align = matches!(key, glow::PACK_ALIGNMENT | glow::UNPACK_ALIGNMENT);
        if is_align && !matches!(param, 1 | 2 | 4 | 8) {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        if param < 0 {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        match key {
            glow::PACK_ROW_LENGTH | glow::UNPACK_ROW_LENGTH => store.row_length = param,
            glow::PACK_IMAGE_HEIGHT | glow::UNPACK_IMAGE_HEIGHT => store.image_height = param,
            glow::PACK_SKIP_PIXELS | glow::UNPACK_SKIP_PIXELS => store.skip_pixels = param,
            glow::PACK_SKIP_ROWS | glow::UNPACK_SKIP_ROWS => store.skip_rows = param,
            glow::PACK_SKIP_IMAGES | glow::UNPACK_SKIP_IMAGES => store.skip_images = param,
            glow::PACK_SWAP_BYTES | glow::UNPACK_SWAP_BYTES => store.swap_bytes = param != 0,
            glow::PACK_LSB_FIRST | glow::UNPACK_LSB_FIRST => store.lsb_first = param != 0,
            _ => store.alignment = param,
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glPixelStoref(pname: u32, param: f32) {
    // SAFETY: forwards plain values.
    unsafe { glPixelStorei(pname, param.round() as i32) }
}

#[no_mangle]
pub unsafe extern "C" fn glFlush() {
    with_gl_dirty(DIRTY_RENDER_STATE | DIRTY_DYNAMIC, |gl| {
        crate::gl::persistent::push_all(gl);
        gl.conn
            .pipe
            .flush_commands(&calls::FlushCommands::default());
        remote::Transport::flush(&mut *gl.conn.pipe);
    })
}

#[no_mangle]
pub unsafe extern "C" fn glFinish() {
    with_gl_dirty(DIRTY_RENDER_STATE | DIRTY_DYNAMIC, |gl| {
        let mut reply = Vec::new();
        crate::gl::persistent::push_all(gl);
        gl.conn.blocking(crate::runtime::BlockingCause::Finish);
        gl.conn.pipe.finish(&calls::Finish::default(), &mut reply);
        // A surfaceless context never swaps: its frames end at glFinish.
        if gl.st.draw_surface.is_none() {
            gl.conn.end_frame();
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glClear(mask: u32) {
    with_gl_listed("glClear", DIRTY_RENDER_STATE | DIRTY_DYNAMIC, move |gl| {
        if mask & !(glow::COLOR_BUFFER_BIT | glow::DEPTH_BUFFER_BIT | glow::STENCIL_BUFFER_BIT) != 0
        {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        if let Err(e) = gl.validate_clear() {
            gl_err!(gl, e);
        }
        if gl.st.rasterizer_discard {
            return;
        }
        let mut buffers = 0;
        if mask & glow::COLOR_BUFFER_BIT != 0 {
            buffers |= CLEAR_COLOR_ALL;
        }
        if mask & glow::DEPTH_BUFFER_BIT != 0 {
            buffers |= CLEAR_DEPTH;
        }
        if mask & glow::STENCIL_BUFFER_BIT != 0 {
            buffers |= CLEAR_STENCIL;
        }
        if buffers == 0 {
            return;
        }
        let c = gl.st.clear_color;
        let (color_type, color) = gl
            .st
            .clear_color_integer
            .unwrap_or((CLEAR_FLOAT, c.map(f32::to_bits)));
        gl.conn.pipe.clear(&calls::Clear {
            buffers,
            draw_buffer: 0,
            color_type,
            color,
            depth: gl.st.clear_depth as f32,
            stencil: gl.st.clear_stencil,
            ..Default::default()
        });
    })
}

pub(super) fn clear_buffer(
    gl: &mut Gl,
    buffer: u32,
    drawbuffer: i32,
    color_type: u32,
    words: Option<[u32; 4]>,
    depth: Option<f32>,
    stencil: Option<i32>,
) {
    if drawbuffer < 0 {
        gl_err!(gl, glow::INVALID_VALUE);
    }
    let p = match buffer {
        glow::COLOR => {
            if drawbuffer as usize >= MAX_DRAW_BUFFERS {
                gl_err!(gl, glow::INVALID_VALUE);
            }
            let Some(w) = words else {
                gl_err!(gl, glow::INVALID_ENUM)
            };
            calls::Clear {
                buffers: CLEAR_COLOR_ONE,
                draw_buffer: drawbuffer as u32,
                color_type,
                color: w,
                ..Default::default()
            }
        }
        glow::DEPTH | glow::STENCIL | glow::DEPTH_STENCIL => {
            if drawbuffer != 0 {
                gl_err!(gl, glow::INVALID_VALUE);
            }
            let mut b = 0;
            if matches!(buffer, glow::DEPTH | glow::DEPTH_STENCIL) {
                b |= CLEAR_DEPTH;
            }
            if matches!(buffer, glow::STENCIL | glow::DEPTH_STENCIL) {
                b |= CLEAR_STENCIL;
            }
            calls::Clear {
                buffers: b,
                depth: depth.unwrap_or(0.0),
                stencil: stencil.unwrap_or(0),
                ..Default::default()
            }
        }
        _ => gl_err!(gl, glow::INVALID_ENUM),
    };
    if let Err(e) = gl.validate_clear() {
        gl_err!(gl, e);
    }
    if gl.st.rasterizer_discard {
        return;
    }
    gl.conn.pipe.clear(&p);
}

/// glClearBufferfv / glClearNamedFramebufferfv on the bound or named draw
/// framebuffer: `v` holds 4 (colour) or 1 (depth) values.
pub(super) fn clear_buffer_fv(gl: &mut Gl, buffer: u32, drawbuffer: i32, v: &[f32]) {
    if v.is_empty() {
        gl_err!(gl, glow::INVALID_VALUE);
    }
    if buffer == glow::STENCIL || buffer == glow::DEPTH_STENCIL {
        gl_err!(gl, glow::INVALID_ENUM);
    }
    let words = (v.len() == 4).then(|| [0, 1, 2, 3].map(|i| v[i].to_bits()));
    clear_buffer(
        gl,
        buffer,
        drawbuffer,
        CLEAR_FLOAT,
        words,
        Some(v[0].clamp(0.0, 1.0)),
        None,
    )
}

/// glClearBufferiv and its named twin: 4 (colour) or 1 (stencil) values.
pub(super) fn clear_buffer_iv(gl: &mut Gl, buffer: u32, drawbuffer: i32, v: &[i32]) {
    if v.is_empty() {
        gl_err!(gl, glow::INVALID_VALUE);
    }
    if buffer == glow::DEPTH || buffer == glow::DEPTH_STENCIL {
        gl_err!(gl, glow::INVALID_ENUM);
    }
    let words = (v.len() == 4).then(|| [0, 1, 2, 3].map(|i| v[i] as u32));
    clear_buffer(gl, buffer, drawbuffer, CLEAR_INT, words, None, Some(v[0]))
}

/// glClearBufferuiv and its named twin: 4 colour values.
pub(super) fn clear_buffer_uiv(gl: &mut Gl, buffer: u32, drawbuffer: i32, v: &[u32]) {
    if buffer != glow::COLOR {
        gl_err!(gl, glow::INVALID_ENUM);
    }
    if v.len() != 4 {
        gl_err!(gl, glow::INVALID_VALUE);
    }
    clear_buffer(
        gl,
        buffer,
        drawbuffer,
        CLEAR_UINT,
        Some([v[0], v[1], v[2], v[3]]),
        None,
        None,
    )
}

#[no_mangle]
pub unsafe extern "C" fn glClearBufferfv(buffer: u32, drawbuffer: i32, value: *const f32) {
    // SAFETY: GL promises 4 (colour) or 1 (depth) values.
    let v = unsafe { slice(value, if buffer == glow::COLOR { 4 } else { 1 }) }.to_vec();
    with_gl_listed(
        "glClearBufferfv",
        DIRTY_RENDER_STATE | DIRTY_DYNAMIC,
        move |gl| clear_buffer_fv(gl, buffer, drawbuffer, &v),
    )
}

#[no_mangle]
pub unsafe extern "C" fn glClearBufferiv(buffer: u32, drawbuffer: i32, value: *const i32) {
    // SAFETY: GL promises 4 (colour) or 1 (stencil) values.
    let v = unsafe { slice(value, if buffer == glow::COLOR { 4 } else { 1 }) }.to_vec();
    with_gl_listed(
        "glClearBufferiv",
        DIRTY_RENDER_STATE | DIRTY_DYNAMIC,
        move |gl| clear_buffer_iv(gl, buffer, drawbuffer, &v),
    )
}

#[no_mangle]
pub unsafe extern "C" fn glClearBufferuiv(buffer: u32, drawbuffer: i32, value: *const u32) {
    // SAFETY: GL promises 4 values.
    let v = unsafe { slice(value, 4) }.to_vec();
    with_gl_listed(
        "glClearBufferuiv",
        DIRTY_RENDER_STATE | DIRTY_DYNAMIC,
        move |gl| clear_buffer_uiv(gl, buffer, drawbuffer, &v),
    )
}

#[no_mangle]
pub unsafe extern "C" fn glClearBufferfi(buffer: u32, drawbuffer: i32, depth: f32, stencil: i32) {
    with_gl_listed(
        "glClearBufferfi",
        DIRTY_RENDER_STATE | DIRTY_DYNAMIC,
        move |gl| clear_buffer_fi(gl, buffer, drawbuffer, depth, stencil),
    )
}

/// glClearBufferfi and its named twin: depth and stencil together.
pub(super) fn clear_buffer_fi(gl: &mut Gl, buffer: u32, drawbuffer: i32, depth: f32, stencil: i32) {
    if buffer != glow::DEPTH_STENCIL {
        gl_err!(gl, glow::INVALID_ENUM);
    }
    clear_buffer(
        gl,
        buffer,
        drawbuffer,
        CLEAR_FLOAT,
        None,
        Some(depth.clamp(0.0, 1.0)),
        Some(stencil),
    )
}
