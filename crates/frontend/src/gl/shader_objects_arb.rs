//! GL_ARB_shader_objects' own commands (compatibility contexts): the
//! extension's other commands alias the GL 2.0 ones (`exports`), these have
//! no core twin. A `GLhandleARB` is the object's name (shaders and programs
//! share one namespace here, as the extension requires). Answered from the
//! frontend's objects; no backend call. Extension-only commands: not
//! exported by name (`#[no_mangle]`), reached through GetProcAddress.

use std::ffi::c_char;

use super::{put, shaders};
use crate::context::{with_gl, ShaderOrProgram};

/// GL_PROGRAM_OBJECT_ARB (glGetHandleARB's pname, an OBJECT_TYPE value).
const PROGRAM_OBJECT_ARB: u32 = 0x8B40;
/// GL_SHADER_OBJECT_ARB (an OBJECT_TYPE value).
const SHADER_OBJECT_ARB: u32 = 0x8B48;
/// GL_OBJECT_TYPE_ARB.
const OBJECT_TYPE_ARB: u32 = 0x8B4E;
/// GL_OBJECT_SUBTYPE_ARB (a shader's type).
const OBJECT_SUBTYPE_ARB: u32 = 0x8B4F;

/// What `obj` names: Some(true) a program, Some(false) a shader.
fn kind(obj: u32) -> Option<bool> {
    with_gl(|gl| match gl.sh.shader_objects.get(&obj) {
        Some(ShaderOrProgram::Program(_)) => Some(true),
        Some(ShaderOrProgram::Shader(_)) => Some(false),
        None => None,
    })
}

fn invalid_value() {
    with_gl(|gl| gl.st.set_error(glow::INVALID_VALUE));
}

pub unsafe extern "C" fn glDeleteObjectARB(obj: u32) {
    match kind(obj) {
        // SAFETY: forwarded; no pointers.
        Some(true) => unsafe { shaders::glDeleteProgram(obj) },
        // SAFETY: forwarded; no pointers.
        Some(false) => unsafe { shaders::glDeleteShader(obj) },
        None if obj == 0 => {}
        None => invalid_value(),
    }
}

pub unsafe extern "C" fn glGetHandleARB(pname: u32) -> u32 {
    if pname != PROGRAM_OBJECT_ARB {
        with_gl(|gl| gl.st.set_error(glow::INVALID_ENUM));
        return 0;
    }
    let mut v = 0;
    // SAFETY: `v` is one writable int.
    unsafe { super::get::glGetIntegerv(glow::CURRENT_PROGRAM, &mut v) };
    v as u32
}

pub unsafe extern "C" fn glGetInfoLogARB(
    obj: u32,
    max_length: i32,
    length: *mut i32,
    info_log: *mut c_char,
) {
    match kind(obj) {
        // SAFETY: forwarded contract.
        Some(true) => unsafe { shaders::glGetProgramInfoLog(obj, max_length, length, info_log) },
        // SAFETY: forwarded contract.
        Some(false) => unsafe { shaders::glGetShaderInfoLog(obj, max_length, length, info_log) },
        None => invalid_value(),
    }
}

pub unsafe extern "C" fn glGetAttachedObjectsARB(
    container: u32,
    max_count: i32,
    count: *mut i32,
    obj: *mut u32,
) {
    // SAFETY: forwarded contract.
    unsafe { shaders::glGetAttachedShaders(container, max_count, count, obj) }
}

pub unsafe extern "C" fn glGetObjectParameterivARB(obj: u32, pname: u32, params: *mut i32) {
    let Some(program) = kind(obj) else {
        return invalid_value();
    };
    match pname {
        OBJECT_TYPE_ARB => {
            let t = if program {
                PROGRAM_OBJECT_ARB
            } else {
                SHADER_OBJECT_ARB
            };
            // SAFETY: GL promises one writable value.
            unsafe { put(params, t as i32) }
        }
        // The remaining names share their values with GL 2.0's
        // (OBJECT_DELETE_STATUS_ARB = DELETE_STATUS, ...).
        // SAFETY: forwarded contract.
        OBJECT_SUBTYPE_ARB if !program => unsafe {
            shaders::glGetShaderiv(obj, glow::SHADER_TYPE, params)
        },
        OBJECT_SUBTYPE_ARB => with_gl(|gl| gl.st.set_error(glow::INVALID_OPERATION)),
        // SAFETY: forwarded contract.
        _ if program => unsafe { shaders::glGetProgramiv(obj, pname, params) },
        // SAFETY: forwarded contract.
        _ => unsafe { shaders::glGetShaderiv(obj, pname, params) },
    }
}

pub unsafe extern "C" fn glGetObjectParameterfvARB(obj: u32, pname: u32, params: *mut f32) {
    // Every pname answers one value; an error leaves `v` unwritten.
    let mut v = i32::MIN;
    // SAFETY: `v` is one writable int.
    unsafe { glGetObjectParameterivARB(obj, pname, &mut v) };
    if v != i32::MIN && !params.is_null() {
        // SAFETY: GL promises one writable value.
        unsafe { put(params, v as f32) };
    }
}
