//! Tessellation (GL 4.0 / GL_ARB_tessellation_shader) state: the patch
//! parameters (glPatchParameteri / glPatchParameterfv), which reach the
//! backend in `set_patch_state` when they change, and the implementation
//! limits. The stages themselves link like any other (`shader::link`); a
//! draw's GL_PATCHES rules are `validate::tess_accepts`.

use super::{gl_err, slice};
use crate::context::{with_gl, Gl};

/// GL_MAX_PATCH_VERTICES: GL 4.0's minimum, which GLES 3.2 and Vulkan
/// (maxTessellationPatchSize) guarantee too.
pub const MAX_PATCH_VERTICES: u32 = 32;
/// GL_MAX_TESS_GEN_LEVEL (GL 4.0 and GLES 3.2 minimum; Vulkan's
/// maxTessellationGenerationLevel minimum).
pub const MAX_TESS_GEN_LEVEL: u32 = 64;

/// Whether this context's backend runs tessellation stages
/// (`CAPS_FEATURE_TESSELLATION` and the `set_patch_state` call).
pub fn has_tessellation(caps: &mgpipe::Caps) -> bool {
    caps.features & mgpipe::caps::CAPS_FEATURE_TESSELLATION != 0
        && caps.implements(mgpipe::Opcode::SetPatchState as u16)
}

/// The patch state as the backend gets it.
fn patch_state(gl: &Gl) -> mgpipe::calls::SetPatchState {
    mgpipe::calls::SetPatchState {
        vertices: gl.st.patch_vertices,
        default_outer: gl.st.patch_default_outer,
        default_inner: gl.st.patch_default_inner,
        ..Default::default()
    }
}

/// Send the patch state (after a change).
fn emit(gl: &mut Gl) {
    if has_tessellation(&gl.conn.caps) {
        let p = patch_state(gl);
        gl.conn.pipe.set_patch_state(&p);
    }
}

/// glPatchParameteri's argument rules (GL 4.6 §10.1.15): the patch size,
/// or GL_INVALID_ENUM for a pname other than GL_PATCH_VERTICES (any
/// pname without tessellation), GL_INVALID_VALUE for a size ≤ 0 or over
/// GL_MAX_PATCH_VERTICES.
pub(crate) fn check_patch_vertices(tessellation: bool, pname: u32, value: i32) -> Result<u32, u32> {
    if !tessellation || pname != glow::PATCH_VERTICES {
        return Err(glow::INVALID_ENUM);
    }
    match u32::try_from(value) {
        Ok(v) if (1..=MAX_PATCH_VERTICES).contains(&v) => Ok(v),
        _ => Err(glow::INVALID_VALUE),
    }
}

/// glPatchParameteri after the context lookup.
pub(crate) fn patch_parameteri(gl: &mut Gl, pname: u32, value: i32) {
    let v = match check_patch_vertices(has_tessellation(&gl.conn.caps), pname, value) {
        Ok(v) => v,
        Err(e) => gl_err!(gl, e),
    };
    if gl.st.patch_vertices != v {
        gl.st.patch_vertices = v;
        emit(gl);
    }
}

/// glPatchParameterfv after the context lookup: `values` holds four outer
/// or two inner levels.
pub(crate) fn patch_parameterfv(gl: &mut Gl, pname: u32, values: &[f32]) {
    if !has_tessellation(&gl.conn.caps) {
        gl_err!(gl, glow::INVALID_ENUM);
    }
    match pname {
        glow::PATCH_DEFAULT_OUTER_LEVEL if values.len() >= 4 => {
            gl.st.patch_default_outer.copy_from_slice(&values[..4]);
        }
        glow::PATCH_DEFAULT_INNER_LEVEL if values.len() >= 2 => {
            gl.st.patch_default_inner.copy_from_slice(&values[..2]);
        }
        glow::PATCH_DEFAULT_OUTER_LEVEL | glow::PATCH_DEFAULT_INNER_LEVEL => return,
        _ => gl_err!(gl, glow::INVALID_ENUM),
    }
    emit(gl);
}

#[no_mangle]
pub unsafe extern "C" fn glPatchParameteri(pname: u32, value: i32) {
    with_gl(|gl| patch_parameteri(gl, pname, value))
}

#[no_mangle]
pub unsafe extern "C" fn glPatchParameterfv(pname: u32, values: *const f32) {
    let n = match pname {
        glow::PATCH_DEFAULT_OUTER_LEVEL => 4,
        glow::PATCH_DEFAULT_INNER_LEVEL => 2,
        _ => 0,
    };
    // SAFETY: GL 4.6 §10.1.15: `values` points at four (outer) or two
    // (inner) floats; `slice` answers empty for null.
    let v = unsafe { slice(values, n) }.to_vec();
    with_gl(|gl| patch_parameterfv(gl, pname, &v))
}

#[cfg(test)]
mod tests {
    use super::check_patch_vertices;
    use crate::gl::validate::tess_accepts;

    #[test]
    fn patch_vertices_errors() {
        assert_eq!(check_patch_vertices(true, glow::PATCH_VERTICES, 4), Ok(4));
        assert_eq!(check_patch_vertices(true, glow::PATCH_VERTICES, 1), Ok(1));
        assert_eq!(check_patch_vertices(true, glow::PATCH_VERTICES, 32), Ok(32));
        for bad in [0, -1, 33, i32::MIN, i32::MAX] {
            assert_eq!(
                check_patch_vertices(true, glow::PATCH_VERTICES, bad),
                Err(glow::INVALID_VALUE),
                "{bad}"
            );
        }
        // A pname other than GL_PATCH_VERTICES; any without tessellation.
        assert_eq!(
            check_patch_vertices(true, glow::PATCH_DEFAULT_INNER_LEVEL, 3),
            Err(glow::INVALID_ENUM)
        );
        assert_eq!(
            check_patch_vertices(false, glow::PATCH_VERTICES, 3),
            Err(glow::INVALID_ENUM)
        );
    }

    #[test]
    fn patches_draw_rules() {
        let op = Err(glow::INVALID_OPERATION);
        // No tessellation stage: any mode but GL_PATCHES.
        assert_eq!(tess_accepts(0, glow::TRIANGLES), Ok(()));
        assert_eq!(tess_accepts(0, glow::PATCHES), op);
        // Control and evaluation stages: GL_PATCHES only.
        assert_eq!(tess_accepts(3, glow::PATCHES), Ok(()));
        assert_eq!(tess_accepts(3, glow::TRIANGLES), op);
        assert_eq!(tess_accepts(3, glow::POINTS), op);
        // Evaluation alone (default levels): GL_PATCHES only.
        assert_eq!(tess_accepts(2, glow::PATCHES), Ok(()));
        assert_eq!(tess_accepts(2, glow::LINES), op);
        // A control stage without an evaluation stage consumes nothing.
        assert_eq!(tess_accepts(1, glow::PATCHES), op);
        assert_eq!(tess_accepts(1, glow::TRIANGLES), op);
    }
}
