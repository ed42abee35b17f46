//! Shaders, programs and uniforms. Compilation runs here on the client
//! (GLSL → SPIR-V); the server only ever sees linked SPIR-V.

use super::dlist::with_gl_listed;
use std::ffi::c_char;

use mgpipe::calls;
use mgpipe::Handle;
use mgpipe::Pipe;

use super::{cstr, gl_err, put, slice};
use crate::context::{
    with_gl_dirty, Gl, LinkedState, ProgramObj, ShaderObj, ShaderOrProgram, UniformLocation,
    VectorSlot, DIRTY_PROGRAM, DIRTY_UNIFORMS, MAX_TEXTURE_UNITS, MAX_UBO_BINDINGS,
};
use crate::shader;
use crate::shader::Stage;

/// Scalar kind of a GLSL type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Base {
    Float,
    Int,
    Uint,
    Bool,
    Double,
    Sampler,
}

/// (base, columns, rows) of a GL uniform type enum.
pub fn type_info(ty: u32) -> (Base, u32, u32) {
    use Base::*;
    match ty {
        glow::FLOAT => (Float, 1, 1),
        glow::FLOAT_VEC2 => (Float, 1, 2),
        glow::FLOAT_VEC3 => (Float, 1, 3),
        glow::FLOAT_VEC4 => (Float, 1, 4),
        glow::INT => (Int, 1, 1),
        glow::INT_VEC2 => (Int, 1, 2),
        glow::INT_VEC3 => (Int, 1, 3),
        glow::INT_VEC4 => (Int, 1, 4),
        glow::UNSIGNED_INT => (Uint, 1, 1),
        glow::UNSIGNED_INT_VEC2 => (Uint, 1, 2),
        glow::UNSIGNED_INT_VEC3 => (Uint, 1, 3),
        glow::UNSIGNED_INT_VEC4 => (Uint, 1, 4),
        glow::BOOL => (Bool, 1, 1),
        glow::BOOL_VEC2 => (Bool, 1, 2),
        glow::BOOL_VEC3 => (Bool, 1, 3),
        glow::BOOL_VEC4 => (Bool, 1, 4),
        glow::DOUBLE => (Double, 1, 1),
        glow::DOUBLE_VEC2 => (Double, 1, 2),
        glow::DOUBLE_VEC3 => (Double, 1, 3),
        glow::DOUBLE_VEC4 => (Double, 1, 4),
        glow::FLOAT_MAT2 => (Float, 2, 2),
        glow::FLOAT_MAT3 => (Float, 3, 3),
        glow::FLOAT_MAT4 => (Float, 4, 4),
        glow::FLOAT_MAT2x3 => (Float, 2, 3),
        glow::FLOAT_MAT2x4 => (Float, 2, 4),
        glow::FLOAT_MAT3x2 => (Float, 3, 2),
        glow::FLOAT_MAT3x4 => (Float, 3, 4),
        glow::FLOAT_MAT4x2 => (Float, 4, 2),
        glow::FLOAT_MAT4x3 => (Float, 4, 3),
        glow::DOUBLE_MAT2 => (Double, 2, 2),
        glow::DOUBLE_MAT3 => (Double, 3, 3),
        glow::DOUBLE_MAT4 => (Double, 4, 4),
        glow::DOUBLE_MAT2x3 => (Double, 2, 3),
        glow::DOUBLE_MAT2x4 => (Double, 2, 4),
        glow::DOUBLE_MAT3x2 => (Double, 3, 2),
        glow::DOUBLE_MAT3x4 => (Double, 3, 4),
        glow::DOUBLE_MAT4x2 => (Double, 4, 2),
        glow::DOUBLE_MAT4x3 => (Double, 4, 3),
        _ => (Sampler, 1, 1),
    }
}

fn new_object_name(gl: &mut Gl) -> u32 {
    loop {
        let c = gl.sh.new_name();
        if !gl.sh.shader_objects.contains_key(&c) {
            return c;
        }
    }
}

fn shader_mut<'a>(gl: &'a mut Gl, name: u32) -> Result<&'a mut ShaderObj, u32> {
    match gl.sh.shader_objects.get_mut(&name) {
        Some(ShaderOrProgram::Shader(s)) => Ok(s),
        Some(ShaderOrProgram::Program(_)) => Err(glow::INVALID_OPERATION),
        None => Err(glow::INVALID_VALUE),
    }
}

pub(crate) fn program_mut<'a>(gl: &'a mut Gl, name: u32) -> Result<&'a mut ProgramObj, u32> {
    match gl.sh.shader_objects.get_mut(&name) {
        Some(ShaderOrProgram::Program(p)) => Ok(p),
        Some(ShaderOrProgram::Shader(_)) => Err(glow::INVALID_OPERATION),
        None => Err(glow::INVALID_VALUE),
    }
}

/// The varying locations the backend has (its varying components in
/// vec4s, at least one): the link's packing limit.
pub(crate) fn varying_locations(caps: &mgpipe::Caps) -> u32 {
    (caps.max_varying_components / 4).max(1)
}

#[no_mangle]
pub unsafe extern "C" fn glCreateShader(ty: u32) -> u32 {
    with_gl_dirty(DIRTY_PROGRAM, |gl| {
        let Some(stage) = shader::stage_from_gl(ty) else {
            gl.st.set_error(glow::INVALID_ENUM);
            return 0;
        };
        let name = new_object_name(gl);
        gl.sh.shader_objects.insert(
            name,
            ShaderOrProgram::Shader(ShaderObj {
                stage,
                gl_type: ty,
                source: String::new(),
                compiled_source: String::new(),
                compiled: false,
                info_log: String::new(),
                delete_pending: false,
                attached: 0,
            }),
        );
        name
    })
}

#[no_mangle]
pub unsafe extern "C" fn glDeleteShader(name: u32) {
    with_gl_dirty(DIRTY_PROGRAM, |gl| {
        if name == 0 {
            return;
        }
        match shader_mut(gl, name) {
            Ok(s) => {
                if s.attached > 0 {
                    s.delete_pending = true;
                } else {
                    gl.sh.shader_objects.remove(&name);
                }
            }
            Err(e) => gl.st.set_error(e),
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glIsShader(name: u32) -> u8 {
    with_gl_dirty(DIRTY_PROGRAM, |gl| {
        matches!(
            gl.sh.shader_objects.get(&name),
            Some(ShaderOrProgram::Shader(_))
        ) as u8
    })
}

#[no_mangle]
pub unsafe extern "C" fn glShaderSource(
    name: u32,
    count: i32,
    strings: *const *const c_char,
    lengths: *const i32,
) {
    // SAFETY: GL promises `count` strings (and lengths when non-null).
    let (strs, lens) = unsafe { (slice(strings, count), slice(lengths, count)) };
    let mut source = String::new();
    for (i, &p) in strs.iter().enumerate() {
        if p.is_null() {
            continue;
        }
        match lens.get(i) {
            Some(&l) if l >= 0 => {
                // SAFETY: the application promises `l` readable bytes.
                let b = unsafe { std::slice::from_raw_parts(p as *const u8, l as usize) };
                source.push_str(&String::from_utf8_lossy(b));
            }
            // SAFETY: NUL-terminated string per GL.
            _ => source.push_str(&unsafe { cstr(p) }),
        }
    }
    with_gl_dirty(DIRTY_PROGRAM, |gl| {
        if count < 0 {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        match shader_mut(gl, name) {
            Ok(s) => s.source = source,
            Err(e) => gl.st.set_error(e),
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glCompileShader(name: u32) {
    with_gl_dirty(DIRTY_PROGRAM, |gl| match shader_mut(gl, name) {
        Ok(s) => match shader::compile(s.stage, &s.source) {
            Ok(log) => {
                s.compiled_source.clone_from(&s.source);
                s.compiled = true;
                s.info_log = log;
            }
            Err(log) => {
                s.compiled = false;
                s.info_log = log;
            }
        },
        Err(e) => gl.st.set_error(e),
    })
}

/// Copy a string into a GL (bufSize, length, buf) triple.
pub(crate) unsafe fn write_log(text: &str, buf_size: i32, length: *mut i32, buf: *mut c_char) {
    if buf_size <= 0 || buf.is_null() {
        // SAFETY: optional out pointer.
        unsafe { put(length, 0) };
        return;
    }
    let bytes = text.as_bytes();
    let n = bytes.len().min(buf_size as usize - 1);
    // SAFETY: GL promises `buf_size` writable bytes.
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr() as *const c_char, buf, n);
        *buf.add(n) = 0;
        put(length, n as i32);
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetShaderiv(name: u32, pname: u32, out: *mut i32) {
    let v = with_gl_dirty(DIRTY_PROGRAM, |gl| {
        let s = match shader_mut(gl, name) {
            Ok(s) => s,
            Err(e) => {
                gl.st.set_error(e);
                return None;
            }
        };
        Some(match pname {
            glow::SHADER_TYPE => s.gl_type as i32,
            glow::DELETE_STATUS => s.delete_pending as i32,
            glow::COMPILE_STATUS => s.compiled as i32,
            glow::INFO_LOG_LENGTH => {
                if s.info_log.is_empty() {
                    0
                } else {
                    s.info_log.len() as i32 + 1
                }
            }
            glow::SHADER_SOURCE_LENGTH => {
                if s.source.is_empty() {
                    0
                } else {
                    s.source.len() as i32 + 1
                }
            }
            _ => {
                gl.st.set_error(glow::INVALID_ENUM);
                return None;
            }
        })
    });
    if let Some(v) = v {
        // SAFETY: GL promises one writable value.
        unsafe { put(out, v) };
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetShaderInfoLog(
    name: u32,
    buf_size: i32,
    length: *mut i32,
    log: *mut c_char,
) {
    let text = with_gl_dirty(DIRTY_PROGRAM, |gl| match shader_mut(gl, name) {
        Ok(s) => Some(s.info_log.clone()),
        Err(e) => {
            gl.st.set_error(e);
            None
        }
    });
    if let Some(t) = text {
        // SAFETY: forwards the application's buffer.
        unsafe { write_log(&t, buf_size, length, log) };
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetShaderSource(
    name: u32,
    buf_size: i32,
    length: *mut i32,
    source: *mut c_char,
) {
    let text = with_gl_dirty(DIRTY_PROGRAM, |gl| match shader_mut(gl, name) {
        Ok(s) => Some(s.source.clone()),
        Err(e) => {
            gl.st.set_error(e);
            None
        }
    });
    if let Some(t) = text {
        // SAFETY: forwards the application's buffer.
        unsafe { write_log(&t, buf_size, length, source) };
    }
}

#[no_mangle]
pub unsafe extern "C" fn glCreateProgram() -> u32 {
    with_gl_dirty(DIRTY_PROGRAM, |gl| {
        let name = new_object_name(gl);
        gl.sh
            .shader_objects
            .insert(name, ShaderOrProgram::Program(ProgramObj::default()));
        name
    })
}

pub(crate) fn destroy_program(gl: &mut Gl, name: u32) {
    if let Some(ShaderOrProgram::Program(p)) = gl.sh.shader_objects.remove(&name) {
        for s in p.shaders {
            detach(gl, s);
        }
        if let Some(l) = p.linked {
            let csos: Vec<Handle> = std::iter::once(l.cso)
                .chain(l.variants.iter().map(|v| v.1))
                .collect();
            delete_shader_csos(gl.conn, &csos);
        }
    }
}

fn detach(gl: &mut Gl, shader_name: u32) {
    if let Some(ShaderOrProgram::Shader(s)) = gl.sh.shader_objects.get_mut(&shader_name) {
        s.attached = s.attached.saturating_sub(1);
        if s.attached == 0 && s.delete_pending {
            gl.sh.shader_objects.remove(&shader_name);
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn glDeleteProgram(name: u32) {
    with_gl_dirty(DIRTY_PROGRAM, |gl| {
        if name == 0 {
            return;
        }
        let current = gl.st.program == name;
        match program_mut(gl, name) {
            Ok(p) => {
                if current || p.in_use > 0 {
                    p.delete_pending = true;
                } else {
                    destroy_program(gl, name);
                }
            }
            Err(e) => gl.st.set_error(e),
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glIsProgram(name: u32) -> u8 {
    with_gl_dirty(DIRTY_PROGRAM, |gl| {
        matches!(
            gl.sh.shader_objects.get(&name),
            Some(ShaderOrProgram::Program(_))
        ) as u8
    })
}

#[no_mangle]
pub unsafe extern "C" fn glAttachShader(program: u32, shader_name: u32) {
    with_gl_dirty(DIRTY_PROGRAM, |gl| {
        if let Err(e) = program_mut(gl, program) {
            gl_err!(gl, e);
        }
        if let Err(e) = shader_mut(gl, shader_name) {
            gl_err!(gl, e);
        }
        let Ok(p) = program_mut(gl, program) else {
            return;
        };
        if p.shaders.contains(&shader_name) {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        let attached = p.shaders.clone();
        // OpenGL ES 3.2 §7.3: at most one shader object of each stage.
        if gl.st.es.is_some() {
            let stage_of = |gl: &mut Gl, name: u32| shader_mut(gl, name).ok().map(|s| s.stage);
            let stage = stage_of(gl, shader_name);
            if attached.iter().any(|&other| stage_of(gl, other) == stage) {
                gl_err!(gl, glow::INVALID_OPERATION);
            }
        }
        let Ok(p) = program_mut(gl, program) else {
            return;
        };
        p.shaders.push(shader_name);
        if let Ok(s) = shader_mut(gl, shader_name) {
            s.attached += 1;
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glDetachShader(program: u32, shader_name: u32) {
    with_gl_dirty(DIRTY_PROGRAM, |gl| {
        if let Err(e) = shader_mut(gl, shader_name) {
            gl_err!(gl, e);
        }
        let p = match program_mut(gl, program) {
            Ok(p) => p,
            Err(e) => gl_err!(gl, e),
        };
        let Some(i) = p.shaders.iter().position(|&s| s == shader_name) else {
            gl_err!(gl, glow::INVALID_OPERATION)
        };
        p.shaders.remove(i);
        detach(gl, shader_name);
    })
}

#[no_mangle]
pub unsafe extern "C" fn glGetAttachedShaders(
    program: u32,
    max: i32,
    count: *mut i32,
    shaders: *mut u32,
) {
    let list = with_gl_dirty(DIRTY_PROGRAM, |gl| match program_mut(gl, program) {
        Ok(p) => Some(p.shaders.clone()),
        Err(e) => {
            gl.st.set_error(e);
            None
        }
    });
    if let Some(list) = list {
        let n = list.len().min(max.max(0) as usize);
        for (i, s) in list.iter().take(n).enumerate() {
            // SAFETY: GL promises `max` writable names.
            unsafe { put(shaders.add(i), *s) };
        }
        // SAFETY: optional out pointer.
        unsafe { put(count, n as i32) };
    }
}

#[no_mangle]
pub unsafe extern "C" fn glBindAttribLocation(program: u32, index: u32, name: *const c_char) {
    // SAFETY: NUL-terminated per GL.
    let n = unsafe { cstr(name) };
    with_gl_dirty(DIRTY_PROGRAM, |gl| {
        if index as usize >= crate::context::MAX_ATTRIBS {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        if n.starts_with("gl_") {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        match program_mut(gl, program) {
            Ok(p) => {
                p.attrib_bindings.retain(|(k, _)| *k != n);
                p.attrib_bindings.push((n, index));
            }
            Err(e) => gl.st.set_error(e),
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glBindFragDataLocation(program: u32, color: u32, name: *const c_char) {
    // SAFETY: NUL-terminated per GL.
    let n = unsafe { cstr(name) };
    with_gl_dirty(DIRTY_PROGRAM, |gl| {
        if color as usize >= crate::context::MAX_DRAW_BUFFERS {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        if n.starts_with("gl_") {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        match program_mut(gl, program) {
            Ok(p) => {
                p.frag_data_bindings.retain(|(k, _)| *k != n);
                p.frag_data_bindings.push((n, color));
            }
            Err(e) => gl.st.set_error(e),
        }
    })
}

/// A new shader CSO holding `stages` (the SPIR-V of `prog` or of a
/// variant of it) with `prog`'s default uniform block.
pub(crate) fn create_shader_cso(
    conn: &mut crate::runtime::Conn,
    prog: &crate::shader::LinkedProgram,
    stages: &[Option<Vec<u32>>; 6],
) -> Handle {
    let cso = conn.alloc.shader.alloc();
    let mut blob: Vec<u8> = Vec::new();
    let mut stage_mask = 0u32;
    let mut stage_words = [0u32; 6];
    for (i, words) in stages.iter().enumerate() {
        if let Some(w) = words {
            stage_mask |= 1 << i;
            stage_words[i] = w.len() as u32;
            blob.extend_from_slice(bytemuck::cast_slice(w));
        }
    }
    let (global_binding, global_size) = prog
        .global_block
        .as_ref()
        .map(|g| (g.binding, g.size))
        .unwrap_or((0, 0));
    conn.pipe.create_shader(
        &calls::CreateShader {
            cso,
            stage_mask,
            stage_words,
            global_binding,
            global_size,
            ..Default::default()
        },
        &blob,
    );
    cso
}

/// Delete and free the shader CSOs among `csos` (NULL and repeated ones
/// skipped).
fn delete_shader_csos(conn: &mut crate::runtime::Conn, csos: &[Handle]) {
    for (i, &cso) in csos.iter().enumerate() {
        // A variant that changed nothing is the program's own CSO.
        if cso.is_null() || csos[..i].contains(&cso) {
            continue;
        }
        conn.pipe.delete_shader(&calls::DeleteShader { cso });
        conn.alloc.shader.free(cso);
    }
}

/// GL_MAX_UNIFORM_LOCATIONS (GL 4.3's minimum).
pub const MAX_UNIFORM_LOCATIONS: usize = 1024;
/// GL_MAX_<STAGE>_UNIFORM_BLOCKS and GL_MAX_COMBINED_UNIFORM_BLOCKS.
pub const MAX_STAGE_UNIFORM_BLOCKS: usize = 12;
pub const MAX_COMBINED_UNIFORM_BLOCKS: usize = 36;

/// Uniform locations of a linked program: explicit `layout(location = N)`
/// ones first (an array's elements at N, N + 1, ...; GL 4.6 §7.6.1,
/// ARB_explicit_uniform_location), then the others in the lowest free
/// slots. Holes between explicit locations name no uniform. Overlaps and
/// locations past GL_MAX_UNIFORM_LOCATIONS are link errors.
fn uniform_locations(prog: &shader::LinkedProgram) -> Result<Vec<UniformLocation>, String> {
    let hole = UniformLocation {
        uniform: usize::MAX,
        element: 0,
        vector: None,
    };
    let mut slots: Vec<UniformLocation> = Vec::new();
    let mut free: Vec<(usize, u32, Option<VectorSlot>)> = Vec::new();
    for (ui, u) in prog.uniforms.iter().enumerate() {
        // Built-ins the client emulates (`gl_DepthRange`) are active but
        // have no location: the application cannot write them. Atomic
        // counters have none either (GL 4.6 §7.6.2.2).
        if u.block_index >= 0
            || u.name.starts_with("gl_")
            || u.gl_type == glow::UNSIGNED_INT_ATOMIC_COUNTER
        {
            continue;
        }
        let (base, cols, rows) = type_info(u.gl_type);
        let kind = match base {
            Base::Float => Some(Src::F),
            Base::Int => Some(Src::I),
            Base::Uint => Some(Src::U),
            _ => None,
        };
        let explicit = prog
            .uniform_locations
            .iter()
            .find(|(n, _)| *n == split_index(&u.name).0)
            .map(|&(_, l)| l);
        for e in 0..u.array_size.max(1) {
            let vector = kind.filter(|_| cols == 1).map(|k| VectorSlot {
                at: u.offset.saturating_add(e.saturating_mul(u.array_stride)),
                words: rows,
                kind: k as u8,
            });
            match explicit {
                Some(l) => {
                    let at = (l as usize).saturating_add(e as usize);
                    if at >= MAX_UNIFORM_LOCATIONS {
                        return Err(format!("ERROR: Linking: uniform \"{}\" has location {at}, above GL_MAX_UNIFORM_LOCATIONS\n", u.name));
                    }
                    if slots.len() <= at {
                        slots.resize(at + 1, hole);
                    }
                    if slots[at].uniform != usize::MAX {
                        return Err(format!(
                            "ERROR: Linking: uniform location {at} is given to two uniforms\n"
                        ));
                    }
                    slots[at] = UniformLocation {
                        uniform: ui,
                        element: e,
                        vector,
                    };
                }
                None => free.push((ui, e, vector)),
            }
        }
    }
    let mut next = 0usize;
    for (uniform, element, vector) in free {
        while slots.get(next).is_some_and(|s| s.uniform != usize::MAX) {
            next += 1;
        }
        if slots.len() <= next {
            slots.resize(next + 1, hole);
        }
        slots[next] = UniformLocation {
            uniform,
            element,
            vector,
        };
    }
    Ok(slots)
}

#[no_mangle]
pub unsafe extern "C" fn glProgramParameteri(program: u32, pname: u32, value: i32) {
    with_gl_dirty(DIRTY_PROGRAM, |gl| {
        let p = match program_mut(gl, program) {
            Ok(p) => p,
            Err(e) => gl_err!(gl, e),
        };
        let slot = match pname {
            glow::PROGRAM_BINARY_RETRIEVABLE_HINT => &mut p.binary_retrievable_hint,
            glow::PROGRAM_SEPARABLE => &mut p.separable,
            _ => gl_err!(gl, glow::INVALID_ENUM),
        };
        match value {
            0 => *slot = false,
            1 => *slot = true,
            _ => gl.st.set_error(glow::INVALID_VALUE),
        }
    })
}

/// The vertex stage of a compatibility-profile program that has none:
/// fixed-function transform, colours and texture coordinates passed
/// through (no lighting, no texgen).
/// The fragment shader of a compatibility program that has none but
/// writes `gl_FrontColor` (see `link_program`).
const FIXED_FUNCTION_FS: &str = "#version 110
void main()
{
    gl_FragColor = gl_Color;
}
";

pub(crate) const FIXED_FUNCTION_VS: &str = "#version 110
void main()
{
    gl_Position = ftransform();
    gl_FrontColor = gl_Color;
    gl_FrontSecondaryColor = gl_SecondaryColor;
    gl_TexCoord[0] = gl_TextureMatrix[0] * gl_MultiTexCoord0;
    gl_TexCoord[1] = gl_TextureMatrix[1] * gl_MultiTexCoord1;
    gl_TexCoord[2] = gl_TextureMatrix[2] * gl_MultiTexCoord2;
    gl_TexCoord[3] = gl_TextureMatrix[3] * gl_MultiTexCoord3;
    gl_TexCoord[4] = gl_TextureMatrix[4] * gl_MultiTexCoord4;
    gl_TexCoord[5] = gl_TextureMatrix[5] * gl_MultiTexCoord5;
    gl_TexCoord[6] = gl_TextureMatrix[6] * gl_MultiTexCoord6;
    gl_TexCoord[7] = gl_TextureMatrix[7] * gl_MultiTexCoord7;
    gl_FogFragCoord = abs((gl_ModelViewMatrix * gl_Vertex).z);
}
";

/// Source of `LinkedState::generation` (0 is never handed out).
static LINK_GENERATION: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

#[no_mangle]
pub unsafe extern "C" fn glLinkProgram(program: u32) {
    with_gl_dirty(DIRTY_PROGRAM, |gl| link_program(gl, program))
}

/// glLinkProgram's work (also the fixed-function programs').
pub(crate) fn link_program(gl: &mut Gl, program: u32) {
    // GL 4.6 §7.3: relinking the program transform feedback captures
    // with is an error while it is active.
    if gl.st.xfb.active && gl.st.xfb.program == program {
        gl_err!(gl, glow::INVALID_OPERATION);
    }
    {
        let p = match program_mut(gl, program) {
            Ok(p) => p,
            Err(e) => gl_err!(gl, e),
        };
        let shader_names = p.shaders.clone();
        let attribs = p.attrib_bindings.clone();
        let frags = p.frag_data_bindings.clone();
        let xfb_varyings = p.xfb_varyings.clone();
        let xfb_mode = p.xfb_mode;
        let separable = p.separable;
        let mut sources: Vec<(shader::Stage, String)> = Vec::new();
        let mut log = String::new();
        for s in &shader_names {
            if let Some(ShaderOrProgram::Shader(obj)) = gl.sh.shader_objects.get(s) {
                if !obj.compiled {
                    log.push_str("error: an attached shader is not compiled\n");
                }
                sources.push((obj.stage, obj.compiled_source.clone()));
            }
        }
        // Compatibility profile: a program without a vertex shader runs
        // fixed-function vertex processing (GL 4.6 compatibility §11.1),
        // here a legacy vertex shader doing its unlit part.
        // Not for separable programs: their missing stages come from
        // other programs of a pipeline.
        let has = |st: shader::Stage| sources.iter().any(|(s, _)| *s == st);
        if !gl.st.is_core()
            && !separable
            && has(shader::Stage::Fragment)
            && !has(shader::Stage::Vertex)
            && !has(shader::Stage::Geometry)
            && !has(shader::Stage::TessControl)
            && !has(shader::Stage::TessEval)
            && !has(shader::Stage::Compute)
        {
            sources.push((shader::Stage::Vertex, FIXED_FUNCTION_VS.to_owned()));
        }
        // ARB_tessellation_shader §2.14.2 (GL 4.6 §7.3): a program with a
        // tessellation stage and no vertex shader fails to link (a
        // separable one takes its vertex stage from a pipeline).
        let has = |st: shader::Stage| sources.iter().any(|(s, _)| *s == st);
        if !separable
            && (has(shader::Stage::TessControl) || has(shader::Stage::TessEval))
            && !has(shader::Stage::Vertex)
        {
            log.push_str("error: a tessellation shader is linked without a vertex shader\n");
        }
        // Likewise a program without a fragment shader whose vertex
        // processing writes `gl_FrontColor` runs fixed-function fragment
        // processing (§11.1 again): here its untextured part, the
        // interpolated primary colour (the texture environment is not
        // applied).
        let has = |st: shader::Stage| sources.iter().any(|(s, _)| *s == st);
        if !gl.st.is_core()
            && !separable
            && !has(shader::Stage::Fragment)
            && !has(shader::Stage::Compute)
            && sources.iter().any(|(s, t)| {
                matches!(s, shader::Stage::Vertex | shader::Stage::Geometry)
                    && t.contains("gl_FrontColor")
            })
        {
            sources.push((shader::Stage::Fragment, FIXED_FUNCTION_FS.to_owned()));
        }
        let per_vertex = if separable {
            let uses: Vec<(shader::Stage, shader::PerVertexUse)> = sources
                .iter()
                .map(|(s, t)| (*s, shader::per_vertex_use(t)))
                .collect();
            shader::check_separable_per_vertex(&uses)
        } else {
            Ok(())
        };
        let result = if !log.is_empty() {
            Err(log)
        } else if let Err(e) = per_vertex {
            Err(e)
        } else if sources.is_empty() {
            Err("error: no shaders attached\n".to_string())
        } else {
            let refs: Vec<(shader::Stage, &str)> =
                sources.iter().map(|(s, t)| (*s, t.as_str())).collect();
            shader::link(&shader::LinkInput {
                shaders: &refs,
                attrib_bindings: &attribs,
                frag_data_bindings: &frags,
                xfb_varyings: &xfb_varyings,
                xfb_mode,
                // Varyings are packed when the program needs more
                // locations than the backend has (`shader::packing`).
                varying_limit: varying_locations(&gl.conn.caps),
            })
            .and_then(|prog| {
                // Doubles reach only a backend that has them (GLES has no
                // 64-bit floats): a link error instead of a program whose
                // draws the backend would drop.
                let float64 = gl.conn.caps.features & mgpipe::caps::CAPS_FEATURE_FLOAT64 != 0;
                if !float64 && prog.uses_float64() {
                    return Err("ERROR: Linking: double-precision types are not supported by this backend (no 64-bit floats in the driver)\n".to_owned());
                }
                let vertex_stores =
                    gl.conn.caps.features & mgpipe::caps::CAPS_FEATURE_VERTEX_STORAGE != 0;
                if let Some(e) = prog.pre_fragment_stores.as_ref().filter(|_| !vertex_stores) {
                    return Err(e.clone());
                }
                // A storage block larger than GL_MAX_SHADER_STORAGE_BLOCK_SIZE
                // fails the link (GL 4.6 §7.8), not the draws that use it.
                let max_ssbo = gl.conn.caps.max_shader_storage_block_size;
                if let Some(b) = prog.storage_blocks.iter().find(|b| b.data_size > max_ssbo) {
                    return Err(format!(
                        "ERROR: Linking: storage block `{}` takes {} bytes; GL_MAX_SHADER_STORAGE_BLOCK_SIZE is {max_ssbo}\n",
                        b.name, b.data_size
                    ));
                }
                // Likewise a uniform block larger than
                // GL_MAX_UNIFORM_BLOCK_SIZE (GL 4.6 §7.6.2).
                let max_ubo = gl.conn.caps.max_uniform_block_size;
                if let Some(b) = prog.blocks.iter().find(|b| b.data_size > max_ubo) {
                    return Err(format!(
                        "ERROR: Linking: uniform block `{}` takes {} bytes; GL_MAX_UNIFORM_BLOCK_SIZE is {max_ubo}\n",
                        b.name, b.data_size
                    ));
                }
                // GL 4.6 §7.8: a link error when a stage uses more storage
                // blocks than GL_MAX_<STAGE>_SHADER_STORAGE_BLOCKS, or the
                // stages together more than the combined limit.
                let ssbo_limit = super::compute::storage_binding_limit(gl);
                let per_stage: Vec<usize> = (0..6)
                    .map(|s| {
                        prog.storage_blocks
                            .iter()
                            .filter(|b| b.stages & (1 << s) != 0)
                            .count()
                    })
                    .collect();
                if let Some(n) = per_stage.iter().find(|&&n| n > ssbo_limit) {
                    return Err(format!(
                        "ERROR: Linking: a stage uses {n} storage blocks; the limit per stage is {ssbo_limit}\n"
                    ));
                }
                let combined: usize = per_stage.iter().sum();
                let combined_limit = super::compute::combined_storage_block_limit(gl);
                if combined > combined_limit {
                    return Err(format!(
                        "ERROR: Linking: the stages use {combined} storage blocks together; GL_MAX_COMBINED_SHADER_STORAGE_BLOCKS is {combined_limit}\n"
                    ));
                }
                // The same for uniform blocks (GL 4.6 §7.6.2): 12 per
                // stage, 36 together (what glGet reports).
                let ubo_per_stage = (0..6).map(|s| {
                    prog.blocks.iter().filter(|b| b.stages & (1 << s) != 0).count()
                });
                if let Some(n) = ubo_per_stage.clone().find(|&n| n > MAX_STAGE_UNIFORM_BLOCKS) {
                    return Err(format!(
                        "ERROR: Linking: a stage uses {n} uniform blocks; the limit per stage is {MAX_STAGE_UNIFORM_BLOCKS}\n"
                    ));
                }
                let combined = ubo_per_stage.sum::<usize>();
                if combined > MAX_COMBINED_UNIFORM_BLOCKS {
                    return Err(format!(
                        "ERROR: Linking: the stages use {combined} uniform blocks together; GL_MAX_COMBINED_UNIFORM_BLOCKS is {MAX_COMBINED_UNIFORM_BLOCKS}\n"
                    ));
                }
                // ARB_transform_feedback3 layouts reach only a backend
                // that captures any layout (GLES cannot express them).
                let layouts =
                    gl.conn.caps.features & mgpipe::caps::CAPS_FEATURE_XFB_LAYOUTS != 0;
                if !layouts && prog.xfb.needs_free_layout() {
                    return Err("ERROR: Linking: transform feedback: this backend captures one tightly packed buffer or one varying per buffer; gl_SkipComponents gaps and several varyings after gl_NextBuffer are not supported (GLES)\n".to_owned());
                }
                // Varyings are not packed (each takes whole locations): a
                // program over the driver's location limit is refused here
                // rather than handed to a driver that may not check.
                let limit = varying_locations(&gl.conn.caps);
                if prog.varying_locations > limit {
                    return Err(format!(
                        "ERROR: Linking: the varyings need {} locations; this backend has {limit} (varyings are not packed into shared locations)\n",
                        prog.varying_locations
                    ));
                }
                let locations = uniform_locations(&prog)?;
                Ok((prog, locations))
            })
        };
        let old_cso = match program_mut(gl, program) {
            Ok(p) => p.linked.as_ref().map(|l| {
                std::iter::once(l.cso)
                    .chain(l.variants.iter().map(|v| v.1))
                    .collect::<Vec<Handle>>()
            }),
            Err(_) => None,
        };
        match result {
            Ok((prog, locations)) => {
                let cso = create_shader_cso(gl.conn, &prog, &prog.stage_spirv);
                let global_size = prog.global_block.as_ref().map_or(0, |g| g.size);
                // `layout(binding = N)` in the source gives initial units and
                // block bindings; everything else starts at 0.
                let mut sampler_units = vec![0u32; prog.sampler_slots as usize];
                for u in &prog.uniforms {
                    if let (Some(slot), Some(unit)) = (u.sampler_binding, u.explicit_binding) {
                        for e in 0..u.array_size.max(1) {
                            if let Some(s) = sampler_units.get_mut((slot + e) as usize) {
                                *s = unit + e;
                            }
                        }
                    }
                }
                let block_bindings: Vec<u32> = prog
                    .blocks
                    .iter()
                    .map(|b| b.explicit_binding.unwrap_or(0))
                    .collect();
                let storage_bindings: Vec<u32> = prog
                    .storage_blocks
                    .iter()
                    .map(|b| b.explicit_binding.unwrap_or(0))
                    .collect();
                let mut image_units = vec![0u32; prog.image_slots as usize];
                for u in &prog.uniforms {
                    if let (Some(slot), Some(unit)) = (u.image_binding, u.explicit_binding) {
                        for e in 0..u.array_size.max(1) {
                            if let Some(s) = image_units.get_mut((slot + e) as usize) {
                                *s = unit + e;
                            }
                        }
                    }
                }
                // With tessellation the draw mode must be GL_PATCHES and
                // the geometry input is matched against the evaluation
                // stage's output instead.
                let gs_input = prog
                    .geometry_layout()
                    .filter(|_| prog.stage_spirv[crate::shader::Stage::TessEval.index()].is_none())
                    .map(|g| g.input);
                // `gl_DepthRange` (emulated by a default-block uniform,
                // `shader::prepass`): where its three members live.
                let member = |m: &str| {
                    let name = format!("gl_DepthRange.{m}");
                    prog.uniforms
                        .iter()
                        .find(|u| u.block_index == -1 && u.name == name)
                        .map(|u| u.offset)
                };
                let depth_range_at = match (member("near"), member("far"), member("diff")) {
                    (Some(n), Some(f), Some(d)) => Some([n, f, d]),
                    _ => None,
                };
                // The matrix-state built-ins (`gl::matrix`), written at
                // the next draw (serial 0 is never current).
                let matrix_uniforms: Vec<super::matrix::MatrixUniform> = prog
                    .uniforms
                    .iter()
                    .chain(&prog.hidden_uniforms)
                    .filter(|u| u.block_index == -1)
                    .filter_map(|u| {
                        let base = u.name.strip_suffix("[0]").unwrap_or(&u.name);
                        Some(super::matrix::MatrixUniform {
                            which: super::matrix::Builtin::from_name(base)?,
                            offset: u.offset,
                            count: u.array_size.max(1),
                            array_stride: u.array_stride,
                            matrix_stride: u.matrix_stride,
                        })
                    })
                    .collect();
                // Zeros, then GLSL uniform initializers (GL 4.6 §7.6).
                let mut scratch = vec![0u8; global_size as usize];
                for (at, bytes) in &prog.initial_values {
                    let at = *at as usize;
                    if let Some(d) = scratch.get_mut(at..at + bytes.len()) {
                        d.copy_from_slice(bytes);
                    }
                }
                let link_input = std::sync::Arc::new(crate::context::KeptLinkInput {
                    sources,
                    attrib_bindings: attribs,
                    frag_data_bindings: frags,
                    xfb_varyings,
                    xfb_mode,
                });
                let linked = LinkedState {
                    generation: LINK_GENERATION.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
                    link_input,
                    gs_input,
                    tess_stages: u8::from(
                        prog.stage_spirv[crate::shader::Stage::TessControl.index()].is_some(),
                    ) | (u8::from(
                        prog.stage_spirv[crate::shader::Stage::TessEval.index()].is_some(),
                    ) << 1),
                    depth_range_at,
                    matrix_uniforms,
                    matrix_serial: 0,
                    scratch,
                    scratch_version: 1,
                    sampler_units,
                    block_bindings,
                    storage_bindings,
                    image_units,
                    locations,
                    cso,
                    variants: Vec::new(),
                    prog,
                };
                if let Ok(p) = program_mut(gl, program) {
                    p.linked = Some(linked);
                    p.link_status = true;
                    p.info_log.clear();
                }
            }
            Err(log) => {
                // A failed relink keeps the current executable if it is in
                // use (current, or a stage of a program pipeline).
                let current = gl.st.program == program;
                if let Ok(p) = program_mut(gl, program) {
                    p.link_status = false;
                    p.info_log = log;
                    if current || p.in_use > 0 {
                        return;
                    }
                    p.linked = None;
                }
            }
        }
        if let Some(old) = old_cso {
            delete_shader_csos(gl.conn, &old);
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn glUseProgram(program: u32) {
    with_gl_listed("glUseProgram", DIRTY_PROGRAM, move |gl| {
        // Not allowed between glBegin and glEnd (compatibility profile).
        if gl.st.ff.immediate.is_some() {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        // GL 4.6 §13.3: not while transform feedback is active and not
        // paused.
        if super::xfb::active_unpaused(gl) {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        if program != 0 {
            match program_mut(gl, program) {
                Ok(p) => {
                    if !p.link_status {
                        gl_err!(gl, glow::INVALID_OPERATION);
                    }
                    p.in_use += 1;
                }
                Err(e) => gl_err!(gl, e),
            }
        }
        let old = gl.st.program;
        gl.st.program = program;
        if old != 0 {
            release_program(gl, old);
        }
        // EXT_separate_shader_objects: glUseProgram sets every stage.
        if gl.st.ext_stages {
            super::pipelines::clear_ext_stages(gl);
        }
    })
}

/// Drop one use of `name` (current program or pipeline stage, counted in
/// `in_use`): a program flagged for deletion goes with its last use.
pub(crate) fn release_program(gl: &mut Gl, name: u32) {
    if let Ok(p) = program_mut(gl, name) {
        p.in_use = p.in_use.saturating_sub(1);
        if p.delete_pending && p.in_use == 0 {
            destroy_program(gl, name);
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn glValidateProgram(program: u32) {
    with_gl_dirty(DIRTY_PROGRAM, |gl| match program_mut(gl, program) {
        Ok(p) => p.validate_status = p.link_status,
        Err(e) => gl.st.set_error(e),
    })
}

#[no_mangle]
pub unsafe extern "C" fn glGetProgramiv(program: u32, pname: u32, out: *mut i32) {
    let v = with_gl_dirty(DIRTY_PROGRAM, |gl| {
        let tess = super::tess::has_tessellation(&gl.conn.caps);
        let p = match program_mut(gl, program) {
            Ok(p) => p,
            Err(e) => {
                gl.st.set_error(e);
                return None;
            }
        };
        let l = p.linked.as_ref();
        let max_name =
            |names: &mut dyn Iterator<Item = usize>| names.max().map(|n| n as i32 + 1).unwrap_or(0);
        if pname == glow::COMPUTE_WORK_GROUP_SIZE {
            // GL 4.6 §7.13: INVALID_OPERATION unless linked with a
            // compute shader.
            let size = l
                .filter(|_| p.link_status)
                .ok_or(glow::INVALID_OPERATION)
                .and_then(|l| super::compute::work_group_size(&l.prog));
            return match size {
                Ok(s) => Some(s.map(|v| v as i32).to_vec()),
                Err(e) => {
                    gl.st.set_error(e);
                    None
                }
            };
        }
        Some(vec![match pname {
            glow::DELETE_STATUS => p.delete_pending as i32,
            glow::LINK_STATUS => p.link_status as i32,
            glow::VALIDATE_STATUS => p.validate_status as i32,
            glow::INFO_LOG_LENGTH => {
                if p.info_log.is_empty() {
                    0
                } else {
                    p.info_log.len() as i32 + 1
                }
            }
            glow::ATTACHED_SHADERS => p.shaders.len() as i32,
            glow::ACTIVE_ATTRIBUTES => l.map(|l| l.prog.attributes.len() as i32).unwrap_or(0),
            glow::ACTIVE_ATTRIBUTE_MAX_LENGTH => l
                .map(|l| max_name(&mut l.prog.attributes.iter().map(|a| a.name.len())))
                .unwrap_or(0),
            glow::ACTIVE_UNIFORMS => l.map(|l| l.prog.uniforms.len() as i32).unwrap_or(0),
            glow::ACTIVE_UNIFORM_MAX_LENGTH => l
                .map(|l| max_name(&mut l.prog.uniforms.iter().map(|u| u.name.len())))
                .unwrap_or(0),
            glow::ACTIVE_UNIFORM_BLOCKS => l.map(|l| l.prog.blocks.len() as i32).unwrap_or(0),
            glow::ACTIVE_UNIFORM_BLOCK_MAX_NAME_LENGTH => l
                .map(|l| max_name(&mut l.prog.blocks.iter().map(|b| b.name.len())))
                .unwrap_or(0),
            glow::TRANSFORM_FEEDBACK_BUFFER_MODE
            | glow::TRANSFORM_FEEDBACK_VARYINGS
            | glow::TRANSFORM_FEEDBACK_VARYING_MAX_LENGTH => super::xfb::program_query(p, pname),
            glow::PROGRAM_BINARY_RETRIEVABLE_HINT => p.binary_retrievable_hint as i32,
            glow::PROGRAM_SEPARABLE => p.separable as i32,
            glow::PROGRAM_BINARY_LENGTH => 0,
            glow::TESS_CONTROL_OUTPUT_VERTICES
            | glow::TESS_GEN_MODE
            | glow::TESS_GEN_SPACING
            | glow::TESS_GEN_VERTEX_ORDER
            | glow::TESS_GEN_POINT_MODE
                if tess =>
            {
                // GL 4.6 §7.13: INVALID_OPERATION unless the program
                // linked with the stage the query is about.
                let stage = match pname {
                    glow::TESS_CONTROL_OUTPUT_VERTICES => crate::shader::Stage::TessControl,
                    _ => crate::shader::Stage::TessEval,
                };
                let Some(t) = l
                    .filter(|_| p.link_status)
                    .filter(|l| l.prog.stage_spirv[stage.index()].is_some())
                    .and_then(|l| l.prog.tess_layout())
                else {
                    gl.st.set_error(glow::INVALID_OPERATION);
                    return None;
                };
                match pname {
                    glow::TESS_CONTROL_OUTPUT_VERTICES => t.output_vertices as i32,
                    glow::TESS_GEN_MODE => t.mode as i32,
                    glow::TESS_GEN_SPACING => t.spacing as i32,
                    glow::TESS_GEN_VERTEX_ORDER => t.vertex_order as i32,
                    _ => i32::from(t.point_mode),
                }
            }
            glow::GEOMETRY_VERTICES_OUT
            | glow::GEOMETRY_INPUT_TYPE
            | glow::GEOMETRY_OUTPUT_TYPE
            | glow::GEOMETRY_SHADER_INVOCATIONS => {
                // GL 3.3 core §6.1.12: INVALID_OPERATION unless the
                // program linked with a geometry shader.
                let Some(g) = l
                    .filter(|_| p.link_status)
                    .and_then(|l| l.prog.geometry_layout())
                else {
                    gl.st.set_error(glow::INVALID_OPERATION);
                    return None;
                };
                match pname {
                    glow::GEOMETRY_VERTICES_OUT => g.max_vertices as i32,
                    glow::GEOMETRY_INPUT_TYPE => g.input as i32,
                    glow::GEOMETRY_SHADER_INVOCATIONS => g.invocations as i32,
                    _ => g.output as i32,
                }
            }
            glow::ACTIVE_ATOMIC_COUNTER_BUFFERS => {
                l.map(|l| l.prog.atomic_buffers.len() as i32).unwrap_or(0)
            }
            _ => {
                gl.st.set_error(glow::INVALID_ENUM);
                return None;
            }
        }])
    });
    for (k, v) in v.unwrap_or_default().into_iter().enumerate() {
        // SAFETY: GL promises room for the values of `pname` (three for
        // GL_COMPUTE_WORK_GROUP_SIZE, one otherwise).
        unsafe { put(out.add(k), v) };
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetProgramInfoLog(
    program: u32,
    buf_size: i32,
    length: *mut i32,
    log: *mut c_char,
) {
    let text = with_gl_dirty(DIRTY_PROGRAM, |gl| match program_mut(gl, program) {
        Ok(p) => Some(p.info_log.clone()),
        Err(e) => {
            gl.st.set_error(e);
            None
        }
    });
    if let Some(t) = text {
        // SAFETY: forwards the application's buffer.
        unsafe { write_log(&t, buf_size, length, log) };
    }
}

/// The linked state of `program`, or the GL error for "not linked".
pub(crate) fn linked<'a>(gl: &'a mut Gl, program: u32) -> Result<&'a mut LinkedState, u32> {
    let p = program_mut(gl, program)?;
    if !p.link_status {
        return Err(glow::INVALID_OPERATION);
    }
    p.linked.as_mut().ok_or(glow::INVALID_OPERATION)
}

#[no_mangle]
pub unsafe extern "C" fn glGetAttribLocation(program: u32, name: *const c_char) -> i32 {
    // SAFETY: NUL-terminated per GL.
    let n = unsafe { cstr(name) };
    with_gl_dirty(DIRTY_PROGRAM, |gl| match linked(gl, program) {
        // Names with the reserved prefix (an emulated `gl_Vertex`) have
        // no location to report (GL 4.6 §11.1.1).
        Ok(_) if n.starts_with("gl_") => -1,
        Ok(l) => l
            .prog
            .attributes
            .iter()
            .find(|a| a.name == n)
            .map(|a| a.location as i32)
            .unwrap_or(-1),
        Err(e) => {
            gl.st.set_error(e);
            -1
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glGetFragDataLocation(program: u32, name: *const c_char) -> i32 {
    // SAFETY: NUL-terminated per GL.
    let n = unsafe { cstr(name) };
    with_gl_dirty(DIRTY_PROGRAM, |gl| match linked(gl, program) {
        Ok(l) => l
            .prog
            .outputs
            .iter()
            .find(|a| a.name == n)
            .map(|a| a.location as i32)
            .unwrap_or(-1),
        Err(e) => {
            gl.st.set_error(e);
            -1
        }
    })
}

/// Split "name[3]" into ("name", Some(3)).
pub(crate) fn split_index(n: &str) -> (&str, Option<u32>) {
    if let Some(open) = n.rfind('[') {
        if n.ends_with(']') {
            if let Ok(i) = n[open + 1..n.len() - 1].parse::<u32>() {
                return (&n[..open], Some(i));
            }
        }
    }
    (n, None)
}

#[no_mangle]
pub unsafe extern "C" fn glGetUniformLocation(program: u32, name: *const c_char) -> i32 {
    // SAFETY: NUL-terminated per GL.
    let n = unsafe { cstr(name) };
    with_gl_dirty(DIRTY_PROGRAM, |gl| {
        let l = match linked(gl, program) {
            Ok(l) => l,
            Err(e) => {
                gl.st.set_error(e);
                return -1;
            }
        };
        uniform_location(l, &n)
    })
}

/// The location of uniform `n` (`"a"`, `"a[2]"`, `"s.m"`), or -1.
pub(crate) fn uniform_location(l: &LinkedState, n: &str) -> i32 {
    if n.starts_with("gl_") {
        return -1;
    }
    let (base, idx) = split_index(n);
    for (loc, ul) in l.locations.iter().enumerate() {
        let Some(u) = l.prog.uniforms.get(ul.uniform) else {
            continue;
        };
        let (ubase, _) = split_index(&u.name);
        let is_array = u.array_size > 1 || u.name.ends_with("[0]");
        let matches = if is_array {
            ubase == base && idx.unwrap_or(0) == ul.element
        } else {
            u.name == n
        };
        if matches {
            return loc as i32;
        }
    }
    -1
}

#[no_mangle]
pub unsafe extern "C" fn glGetActiveUniform(
    program: u32,
    index: u32,
    buf_size: i32,
    length: *mut i32,
    size: *mut i32,
    ty: *mut u32,
    name: *mut c_char,
) {
    let r = with_gl_dirty(DIRTY_PROGRAM, |gl| {
        let l = match linked(gl, program) {
            Ok(l) => l,
            Err(e) => {
                gl.st.set_error(if e == glow::INVALID_OPERATION {
                    glow::INVALID_OPERATION
                } else {
                    e
                });
                return None;
            }
        };
        match l.prog.uniforms.get(index as usize) {
            Some(u) => Some((u.name.clone(), u.array_size.max(1), u.gl_type)),
            None => {
                gl.st.set_error(glow::INVALID_VALUE);
                None
            }
        }
    });
    if let Some((n, s, t)) = r {
        // SAFETY: optional out pointers and the application's buffer.
        unsafe {
            put(size, s as i32);
            put(ty, t);
            write_log(&n, buf_size, length, name);
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetActiveAttrib(
    program: u32,
    index: u32,
    buf_size: i32,
    length: *mut i32,
    size: *mut i32,
    ty: *mut u32,
    name: *mut c_char,
) {
    let r = with_gl_dirty(DIRTY_PROGRAM, |gl| {
        let l = match linked(gl, program) {
            Ok(l) => l,
            Err(e) => {
                gl.st.set_error(e);
                return None;
            }
        };
        match l.prog.attributes.get(index as usize) {
            Some(a) => Some((a.name.clone(), a.array_size.max(1), a.gl_type)),
            None => {
                gl.st.set_error(glow::INVALID_VALUE);
                None
            }
        }
    });
    if let Some((n, s, t)) = r {
        // SAFETY: optional out pointers and the application's buffer.
        unsafe {
            put(size, s as i32);
            put(ty, t);
            write_log(&n, buf_size, length, name);
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetUniformBlockIndex(program: u32, name: *const c_char) -> u32 {
    // SAFETY: NUL-terminated per GL.
    let n = unsafe { cstr(name) };
    with_gl_dirty(DIRTY_PROGRAM, |gl| match linked(gl, program) {
        Ok(l) => l
            .prog
            .blocks
            .iter()
            .position(|b| b.name == n)
            .map(|i| i as u32)
            .unwrap_or(glow::INVALID_INDEX),
        Err(e) => {
            gl.st.set_error(e);
            glow::INVALID_INDEX
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glUniformBlockBinding(program: u32, index: u32, binding: u32) {
    with_gl_listed("glUniformBlockBinding", DIRTY_PROGRAM, move |gl| {
        let l = match linked(gl, program) {
            Ok(l) => l,
            Err(e) => gl_err!(gl, e),
        };
        if index as usize >= l.block_bindings.len() || binding as usize >= MAX_UBO_BINDINGS {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        l.block_bindings[index as usize] = binding;
    })
}

#[no_mangle]
pub unsafe extern "C" fn glGetActiveUniformBlockiv(
    program: u32,
    index: u32,
    pname: u32,
    out: *mut i32,
) {
    let v = with_gl_dirty(DIRTY_PROGRAM, |gl| {
        let l = match linked(gl, program) {
            Ok(l) => l,
            Err(e) => {
                gl.st.set_error(e);
                return None;
            }
        };
        let Some(b) = l.prog.blocks.get(index as usize) else {
            gl.st.set_error(glow::INVALID_VALUE);
            return None;
        };
        Some(match pname {
            glow::UNIFORM_BLOCK_BINDING => vec![l.block_bindings[index as usize] as i32],
            glow::UNIFORM_BLOCK_DATA_SIZE => vec![b.data_size as i32],
            glow::UNIFORM_BLOCK_NAME_LENGTH => vec![b.name.len() as i32 + 1],
            glow::UNIFORM_BLOCK_ACTIVE_UNIFORMS => vec![b.active_uniforms.len() as i32],
            glow::UNIFORM_BLOCK_ACTIVE_UNIFORM_INDICES => {
                b.active_uniforms.iter().map(|u| *u as i32).collect()
            }
            glow::UNIFORM_BLOCK_REFERENCED_BY_VERTEX_SHADER => {
                vec![l.prog.block_referenced(index as usize, Stage::Vertex) as i32]
            }
            glow::UNIFORM_BLOCK_REFERENCED_BY_GEOMETRY_SHADER => {
                vec![l.prog.block_referenced(index as usize, Stage::Geometry) as i32]
            }
            glow::UNIFORM_BLOCK_REFERENCED_BY_FRAGMENT_SHADER => {
                vec![l.prog.block_referenced(index as usize, Stage::Fragment) as i32]
            }
            _ => {
                gl.st.set_error(glow::INVALID_ENUM);
                return None;
            }
        })
    });
    if let Some(v) = v {
        for (i, x) in v.iter().enumerate() {
            // SAFETY: GL promises room for the values of `pname`.
            unsafe { put(out.add(i), *x) };
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetActiveUniformBlockName(
    program: u32,
    index: u32,
    buf_size: i32,
    length: *mut i32,
    name: *mut c_char,
) {
    let r = with_gl_dirty(DIRTY_PROGRAM, |gl| match linked(gl, program) {
        // GL 4.6 §7.6: a negative bufSize is INVALID_VALUE.
        Ok(_) if buf_size < 0 => {
            gl.st.set_error(glow::INVALID_VALUE);
            None
        }
        Ok(l) => match l.prog.blocks.get(index as usize) {
            Some(b) => Some(b.name.clone()),
            None => {
                gl.st.set_error(glow::INVALID_VALUE);
                None
            }
        },
        Err(e) => {
            gl.st.set_error(e);
            None
        }
    });
    if let Some(n) = r {
        // SAFETY: forwards the application's buffer.
        unsafe { write_log(&n, buf_size, length, name) };
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetUniformIndices(
    program: u32,
    count: i32,
    names: *const *const c_char,
    indices: *mut u32,
) {
    // SAFETY: GL promises `count` strings.
    let names: Vec<String> = unsafe { slice(names, count) }
        .iter()
        .map(|p| unsafe { cstr(*p) })
        .collect();
    let r = with_gl_dirty(DIRTY_PROGRAM, |gl| match linked(gl, program) {
        // ARB_uniform_buffer_object: a negative uniformCount is
        // INVALID_VALUE (nothing written).
        Ok(_) if count < 0 => {
            gl.st.set_error(glow::INVALID_VALUE);
            None
        }
        Ok(l) => Some(
            names
                .iter()
                .map(|n| {
                    l.prog
                        .uniforms
                        .iter()
                        .position(|u| u.name == *n || split_index(&u.name).0 == n.as_str())
                        .map(|i| i as u32)
                        .unwrap_or(glow::INVALID_INDEX)
                })
                .collect::<Vec<_>>(),
        ),
        Err(e) => {
            gl.st.set_error(e);
            None
        }
    });
    if let Some(v) = r {
        for (i, x) in v.iter().enumerate() {
            // SAFETY: GL promises `count` writable indices.
            unsafe { put(indices.add(i), *x) };
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetActiveUniformsiv(
    program: u32,
    count: i32,
    indices: *const u32,
    pname: u32,
    out: *mut i32,
) {
    // SAFETY: GL promises `count` indices.
    let idx = unsafe { slice(indices, count) }.to_vec();
    let r = with_gl_dirty(DIRTY_PROGRAM, |gl| {
        let l = match linked(gl, program) {
            Ok(l) => l,
            Err(e) => {
                gl.st.set_error(e);
                return None;
            }
        };
        if count < 0 {
            gl.st.set_error(glow::INVALID_VALUE);
            return None;
        }
        let mut v = Vec::new();
        for i in &idx {
            let Some(u) = l.prog.uniforms.get(*i as usize) else {
                gl.st.set_error(glow::INVALID_VALUE);
                return None;
            };
            v.push(match pname {
                glow::UNIFORM_TYPE => u.gl_type as i32,
                glow::UNIFORM_SIZE => u.array_size.max(1) as i32,
                glow::UNIFORM_NAME_LENGTH => u.name.len() as i32 + 1,
                glow::UNIFORM_BLOCK_INDEX => u.block_index,
                glow::UNIFORM_OFFSET => {
                    if u.block_index >= 0 || u.gl_type == glow::UNSIGNED_INT_ATOMIC_COUNTER {
                        u.offset as i32
                    } else {
                        -1
                    }
                }
                glow::UNIFORM_ARRAY_STRIDE => {
                    if u.block_index >= 0 && u.array_size > 1 {
                        u.array_stride as i32
                    } else if u.block_index >= 0 {
                        0
                    } else {
                        -1
                    }
                }
                glow::UNIFORM_MATRIX_STRIDE => {
                    if u.block_index >= 0 && type_info(u.gl_type).1 > 1 {
                        u.matrix_stride as i32
                    } else if u.block_index >= 0 {
                        0
                    } else {
                        -1
                    }
                }
                glow::UNIFORM_IS_ROW_MAJOR => u.is_row_major as i32,
                glow::UNIFORM_ATOMIC_COUNTER_BUFFER_INDEX => atomic_buffer_index(&l.prog, u),
                _ => {
                    gl.st.set_error(glow::INVALID_ENUM);
                    return None;
                }
            });
        }
        Some(v)
    });
    if let Some(v) = r {
        for (i, x) in v.iter().enumerate() {
            // SAFETY: GL promises `count` writable values.
            unsafe { put(out.add(i), *x) };
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetActiveUniformName(
    program: u32,
    index: u32,
    buf_size: i32,
    length: *mut i32,
    name: *mut c_char,
) {
    let r = with_gl_dirty(DIRTY_PROGRAM, |gl| match linked(gl, program) {
        // GL 4.6 §7.6: a negative bufSize is INVALID_VALUE.
        Ok(_) if buf_size < 0 => {
            gl.st.set_error(glow::INVALID_VALUE);
            None
        }
        Ok(l) => match l.prog.uniforms.get(index as usize) {
            Some(u) => Some(u.name.clone()),
            None => {
                gl.st.set_error(glow::INVALID_VALUE);
                None
            }
        },
        Err(e) => {
            gl.st.set_error(e);
            None
        }
    });
    if let Some(n) = r {
        // SAFETY: forwards the application's buffer.
        unsafe { write_log(&n, buf_size, length, name) };
    }
}

// ------------------------------------------------------------------ glUniform*

/// What kind of glUniform call wrote the data.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Src {
    F,
    I,
    U,
    /// `double`: two words per component (low word first).
    D,
}

/// `write_uniform`'s common case: one float/int/uint scalar or vector
/// element through a setter of its own family and size (checked against
/// the location's precomputed slot, so no type decoding per call). None:
/// take the general path, which also raises every error.
fn write_vector(l: &mut LinkedState, location: i32, src: Src, words: &[u32]) -> Option<()> {
    let slot = l.locations.get(usize::try_from(location).ok()?)?.vector?;
    if slot.kind != src as u8 || words.len() != slot.words as usize {
        return None;
    }
    let at = slot.at as usize;
    let dst = l.scratch.get_mut(at..at + words.len() * 4)?;
    let src: &[u8] = bytemuck::cast_slice(words);
    if dst != src {
        dst.copy_from_slice(src);
        l.scratch_version += 1;
    }
    Some(())
}

/// What a uniform setter changed (the caller marks the dirty group).
#[derive(Clone, Copy, Default, PartialEq, Eq)]
enum UniformWrite {
    /// Default-block values, or nothing (errors, location -1).
    #[default]
    Values,
    /// A sampler's texture unit.
    Sampler,
}

/// A setter's write: DIRTY_UNIFORMS is marked by the entry point, a sampler
/// unit additionally marks DIRTY_PROGRAM.
fn set_uniform(gl: &mut Gl, write: impl FnOnce(&mut Gl) -> UniformWrite) {
    if write(gl) == UniformWrite::Sampler {
        gl.st.dirty |= DIRTY_PROGRAM;
    }
}

/// What a uniform setter writes: `count` elements of `comps` words each
/// (or matrices of (columns, rows, transpose)) of the `src` family.
#[derive(Clone, Copy)]
struct Values<'a> {
    count: i32,
    src: Src,
    comps: u32,
    matrix: Option<(u32, u32, bool)>,
    words: &'a [u32],
}

impl<'a> Values<'a> {
    fn vector(count: i32, src: Src, comps: u32, words: &'a [u32]) -> Self {
        Values {
            count,
            src,
            comps,
            matrix: None,
            words,
        }
    }
}

/// The program glUniform* writes: the current program, else the active
/// program of the bound pipeline (GL 4.6 §7.6.1); 0 when neither.
fn current_uniform_program(gl: &Gl) -> u32 {
    if gl.st.program != 0 {
        gl.st.program
    } else {
        super::pipelines::active_program(gl)
    }
}

/// Write `count` elements of `comps` words each (or matrices) at `location`
/// of `program` (glProgramUniform*, GL 4.6 §7.6.1: its lookup errors), or of
/// the current program when None (glUniform*: GL_INVALID_OPERATION
/// without one).
fn write_uniform(gl: &mut Gl, program: Option<u32>, location: i32, v: Values) -> UniformWrite {
    let Values {
        count,
        src,
        comps,
        matrix,
        words,
    } = v;
    if location == -1 && program.is_none() {
        return UniformWrite::Values;
    }
    if count < 0 {
        gl_err!(gl, glow::INVALID_VALUE);
    }
    let (program, named) = match program {
        Some(p) => (p, true),
        None => (current_uniform_program(gl), false),
    };
    let l = match linked(gl, program) {
        Ok(l) => l,
        Err(e) => gl_err!(gl, if named { e } else { glow::INVALID_OPERATION }),
    };
    if location == -1 {
        return UniformWrite::Values;
    }
    if count == 1 && matrix.is_none() && write_vector(l, location, src, words).is_some() {
        return UniformWrite::Values;
    }
    if location < 0 || location as usize >= l.locations.len() {
        gl_err!(gl, glow::INVALID_OPERATION);
    }
    let loc = l.locations[location as usize];
    // A hole between explicit locations names no uniform.
    let Some(u) = l.prog.uniforms.get(loc.uniform) else {
        gl_err!(gl, glow::INVALID_OPERATION);
    };
    let (base, cols, rows) = type_info(u.gl_type);
    let ok = match (matrix, base) {
        (Some((c, r, _)), Base::Float) => src == Src::F && c == cols && r == rows,
        (Some((c, r, _)), Base::Double) => src == Src::D && c == cols && r == rows,
        (Some(_), _) => false,
        (None, _) if cols > 1 => false,
        (None, Base::Float) => src == Src::F && comps == rows,
        (None, Base::Int) => src == Src::I && comps == rows,
        (None, Base::Uint) => src == Src::U && comps == rows,
        (None, Base::Bool) => comps == rows,
        (None, Base::Sampler) => src == Src::I && comps == 1,
        (None, Base::Double) => src == Src::D && comps == rows,
    };
    if !ok {
        gl_err!(gl, glow::INVALID_OPERATION);
    }
    let is_array = u.array_size > 1;
    if count > 1 && !is_array {
        gl_err!(gl, glow::INVALID_OPERATION);
    }
    let remaining = u.array_size.max(1) - loc.element;
    let n = (count as u32).min(remaining);
    if let (Base::Sampler, Some(binding)) = (base, u.image_binding) {
        let unit = |e: u32| words.get(e as usize).copied().unwrap_or(0);
        if (0..n).any(|e| unit(e) as usize >= crate::gl::compute::MAX_IMAGE_UNITS) {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        for e in 0..n {
            let slot = (binding + loc.element + e) as usize;
            if let Some(s) = l.image_units.get_mut(slot) {
                *s = unit(e);
            }
        }
        // Image units are not part of the program's resource key.
        gl.st.dirty |= crate::context::DIRTY_RESOURCES;
        return UniformWrite::Sampler;
    }
    if base == Base::Sampler {
        let unit = |e: u32| words.get(e as usize).copied().unwrap_or(0);
        // Checked first: a failing call changes nothing.
        if (0..n).any(|e| unit(e) as usize >= MAX_TEXTURE_UNITS) {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        let binding = u.sampler_binding.unwrap_or(0);
        for e in 0..n {
            let slot = (binding + loc.element + e) as usize;
            if let Some(s) = l.sampler_units.get_mut(slot) {
                *s = unit(e);
            }
        }
        // A sampler's unit decides what the program's textures resolve to.
        return UniformWrite::Sampler;
    }
    let elem_words = cols * rows;
    let (offset, astride, mstride) = (
        u.offset as usize,
        u.array_stride as usize,
        u.matrix_stride as usize,
    );
    // Fast path, the common per-draw case (one float/int/uint scalar or
    // vector): its words are contiguous in the block. Unchanged bytes keep
    // the block's version, so re-setting a value sends nothing.
    if matrix.is_none() && cols == 1 && n == 1 && base != Base::Bool && src != Src::D {
        let at = offset + loc.element as usize * astride;
        let len = rows as usize * 4;
        if let (Some(dst), Some(src)) =
            (l.scratch.get_mut(at..at + len), words.get(..rows as usize))
        {
            let src: &[u8] = bytemuck::cast_slice(src);
            if dst != src {
                dst.copy_from_slice(src);
                l.scratch_version += 1;
            }
            return UniformWrite::Values;
        }
    }
    // Words per component: doubles take two.
    let cw = if src == Src::D { 2usize } else { 1 };
    let elem_words = elem_words as usize * cw;
    if words.len() < n as usize * elem_words {
        return UniformWrite::Values;
    }
    let mut changed = false;
    for e in 0..n as usize {
        let elem = loc.element as usize + e;
        let base_off = offset + elem * astride;
        let src_elem = &words[e * elem_words..(e + 1) * elem_words];
        for c in 0..cols as usize {
            for r in 0..rows as usize {
                let transpose = matrix.map(|m| m.2).unwrap_or(false);
                let at_src = if transpose {
                    r * cols as usize + c
                } else {
                    c * rows as usize + r
                } * cw;
                for k in 0..cw {
                    let w = src_elem[at_src + k];
                    let w = match (base, src) {
                        (Base::Bool, Src::F) => (f32::from_bits(w) != 0.0) as u32,
                        (Base::Bool, _) => (w != 0) as u32,
                        _ => w,
                    };
                    let at = base_off + c * mstride + (r * cw + k) * 4;
                    if let Some(dst) = l.scratch.get_mut(at..at + 4) {
                        let w = w.to_le_bytes();
                        changed |= *dst != w;
                        dst.copy_from_slice(&w);
                    }
                }
            }
        }
    }
    if changed {
        l.scratch_version += 1;
    }
    UniformWrite::Values
}

/// The index of the atomic counter buffer a counter uniform lives in; -1
/// for every other uniform.
pub(crate) fn atomic_buffer_index(prog: &shader::LinkedProgram, u: &shader::Uniform) -> i32 {
    if u.gl_type != glow::UNSIGNED_INT_ATOMIC_COUNTER {
        return -1;
    }
    prog.atomic_buffers
        .iter()
        .position(|a| Some(a.binding) == u.explicit_binding)
        .map_or(-1, |i| i as i32)
}

/// Uniform values as the 32-bit words the block stores: `f32`, `i32` and
/// `u32` share their bits with the word, so this borrows, never copies
/// (uniform setters run many times per frame).
fn as_words<T: bytemuck::Pod>(v: &[T]) -> &[u32] {
    bytemuck::try_cast_slice(v).unwrap_or(&[])
}

/// Both glUniform* (`program` None: the current program) and
/// glProgramUniform* (a named program) write through here.
#[inline]
fn uniform_entry(program: Option<u32>, location: i32, v: Values) {
    super::dlist::with_gl_listed_with(
        "glUniform",
        DIRTY_UNIFORMS,
        |gl| set_uniform(gl, |gl| write_uniform(gl, program, location, v)),
        // A display list keeps a copy of the values.
        |_| {
            let (count, src, comps, matrix) = (v.count, v.src, v.comps, v.matrix);
            let words = v.words.to_vec();
            Some(move |gl: &mut Gl| {
                let v = Values {
                    count,
                    src,
                    comps,
                    matrix,
                    words: &words,
                };
                set_uniform(gl, |gl| write_uniform(gl, program, location, v))
            })
        },
    )
}

/// glUniform{1,2,3,4}{f,i,ui,d}v and their glProgramUniform twins.
///
/// # Safety
/// `value` is null or points at `count * n` readable elements.
#[inline]
unsafe fn uniform_vector<T: bytemuck::Pod>(
    program: Option<u32>,
    location: i32,
    count: i32,
    value: *const T,
    src: Src,
    n: i32,
) {
    // SAFETY: GL promises `count` elements of `n` values.
    let v = unsafe { slice(value, count.saturating_mul(n)) };
    let words = as_words(v);
    uniform_entry(
        program,
        location,
        Values::vector(count, src, n as u32, words),
    )
}

/// glUniformMatrix*{f,d}v and their glProgramUniform twins: `dims` is
/// (columns, rows).
///
/// # Safety
/// `value` is null or points at `count` readable matrices.
#[inline]
unsafe fn uniform_matrix<T: bytemuck::Pod>(
    program: Option<u32>,
    location: i32,
    count: i32,
    transpose: u8,
    value: *const T,
    src: Src,
    (c, r): (u32, u32),
) {
    // SAFETY: GL promises `count` matrices.
    let v = unsafe { slice(value, count.saturating_mul((c * r) as i32)) };
    let words = as_words(v);
    let matrix = Some((c, r, transpose != 0));
    uniform_entry(
        program,
        location,
        Values {
            matrix,
            ..Values::vector(count, src, 0, words)
        },
    )
}

macro_rules! uniform_scalars {
    ($name:ident, $pname:ident, $t:ty, $src:expr, $($arg:ident),+) => {
        #[no_mangle]
        pub unsafe extern "C" fn $name(location: i32, $($arg: $t),+) {
            let words = [$(to_word($arg)),+];
            uniform_entry(None, location, Values::vector(1, $src, words.len() as u32, &words))
        }

        #[no_mangle]
        pub unsafe extern "C" fn $pname(program: u32, location: i32, $($arg: $t),+) {
            let words = [$(to_word($arg)),+];
            uniform_entry(Some(program), location, Values::vector(1, $src, words.len() as u32, &words))
        }
    };
}

macro_rules! uniform_vectors {
    ($name:ident, $pname:ident, $t:ty, $src:expr, $n:expr) => {
        #[no_mangle]
        pub unsafe extern "C" fn $name(location: i32, count: i32, value: *const $t) {
            // SAFETY: forwards the application's array.
            unsafe { uniform_vector(None, location, count, value, $src, $n) }
        }

        #[no_mangle]
        pub unsafe extern "C" fn $pname(program: u32, location: i32, count: i32, value: *const $t) {
            // SAFETY: forwards the application's array.
            unsafe { uniform_vector(Some(program), location, count, value, $src, $n) }
        }
    };
}

macro_rules! uniform_matrices {
    ($name:ident, $pname:ident, $c:expr, $r:expr) => {
        uniform_matrices!($name, $pname, $c, $r, f32, Src::F);
    };
    ($name:ident, $pname:ident, $c:expr, $r:expr, $t:ty, $src:expr) => {
        #[no_mangle]
        pub unsafe extern "C" fn $name(location: i32, count: i32, transpose: u8, value: *const $t) {
            // SAFETY: forwards the application's matrices.
            unsafe { uniform_matrix(None, location, count, transpose, value, $src, ($c, $r)) }
        }

        #[no_mangle]
        pub unsafe extern "C" fn $pname(
            program: u32,
            location: i32,
            count: i32,
            transpose: u8,
            value: *const $t,
        ) {
            // SAFETY: forwards the application's matrices.
            unsafe {
                uniform_matrix(
                    Some(program),
                    location,
                    count,
                    transpose,
                    value,
                    $src,
                    ($c, $r),
                )
            }
        }
    };
}

trait ToWord {
    fn word(self) -> u32;
}
impl ToWord for f32 {
    fn word(self) -> u32 {
        self.to_bits()
    }
}
impl ToWord for i32 {
    fn word(self) -> u32 {
        self as u32
    }
}
impl ToWord for u32 {
    fn word(self) -> u32 {
        self
    }
}
fn to_word<T: ToWord>(v: T) -> u32 {
    v.word()
}

uniform_scalars!(glUniform1f, glProgramUniform1f, f32, Src::F, x);
uniform_scalars!(glUniform2f, glProgramUniform2f, f32, Src::F, x, y);
uniform_scalars!(glUniform3f, glProgramUniform3f, f32, Src::F, x, y, z);
uniform_scalars!(glUniform4f, glProgramUniform4f, f32, Src::F, x, y, z, w);
uniform_scalars!(glUniform1i, glProgramUniform1i, i32, Src::I, x);
uniform_scalars!(glUniform2i, glProgramUniform2i, i32, Src::I, x, y);
uniform_scalars!(glUniform3i, glProgramUniform3i, i32, Src::I, x, y, z);
uniform_scalars!(glUniform4i, glProgramUniform4i, i32, Src::I, x, y, z, w);
uniform_scalars!(glUniform1ui, glProgramUniform1ui, u32, Src::U, x);
uniform_scalars!(glUniform2ui, glProgramUniform2ui, u32, Src::U, x, y);
uniform_scalars!(glUniform3ui, glProgramUniform3ui, u32, Src::U, x, y, z);
uniform_scalars!(glUniform4ui, glProgramUniform4ui, u32, Src::U, x, y, z, w);
uniform_vectors!(glUniform1fv, glProgramUniform1fv, f32, Src::F, 1);
uniform_vectors!(glUniform2fv, glProgramUniform2fv, f32, Src::F, 2);
uniform_vectors!(glUniform3fv, glProgramUniform3fv, f32, Src::F, 3);
uniform_vectors!(glUniform4fv, glProgramUniform4fv, f32, Src::F, 4);
uniform_vectors!(glUniform1iv, glProgramUniform1iv, i32, Src::I, 1);
uniform_vectors!(glUniform2iv, glProgramUniform2iv, i32, Src::I, 2);
uniform_vectors!(glUniform3iv, glProgramUniform3iv, i32, Src::I, 3);
uniform_vectors!(glUniform4iv, glProgramUniform4iv, i32, Src::I, 4);
uniform_vectors!(glUniform1uiv, glProgramUniform1uiv, u32, Src::U, 1);
uniform_vectors!(glUniform2uiv, glProgramUniform2uiv, u32, Src::U, 2);
uniform_vectors!(glUniform3uiv, glProgramUniform3uiv, u32, Src::U, 3);
uniform_vectors!(glUniform4uiv, glProgramUniform4uiv, u32, Src::U, 4);
uniform_matrices!(glUniformMatrix2fv, glProgramUniformMatrix2fv, 2, 2);
uniform_matrices!(glUniformMatrix3fv, glProgramUniformMatrix3fv, 3, 3);
uniform_matrices!(glUniformMatrix4fv, glProgramUniformMatrix4fv, 4, 4);
uniform_matrices!(glUniformMatrix2x3fv, glProgramUniformMatrix2x3fv, 2, 3);
uniform_matrices!(glUniformMatrix3x2fv, glProgramUniformMatrix3x2fv, 3, 2);
uniform_matrices!(glUniformMatrix2x4fv, glProgramUniformMatrix2x4fv, 2, 4);
uniform_matrices!(glUniformMatrix4x2fv, glProgramUniformMatrix4x2fv, 4, 2);
uniform_matrices!(glUniformMatrix3x4fv, glProgramUniformMatrix3x4fv, 3, 4);
uniform_matrices!(glUniformMatrix4x3fv, glProgramUniformMatrix4x3fv, 4, 3);
uniform_vectors!(glUniform1dv, glProgramUniform1dv, f64, Src::D, 1);
uniform_vectors!(glUniform2dv, glProgramUniform2dv, f64, Src::D, 2);
uniform_vectors!(glUniform3dv, glProgramUniform3dv, f64, Src::D, 3);
uniform_vectors!(glUniform4dv, glProgramUniform4dv, f64, Src::D, 4);
uniform_matrices!(
    glUniformMatrix2dv,
    glProgramUniformMatrix2dv,
    2,
    2,
    f64,
    Src::D
);
uniform_matrices!(
    glUniformMatrix3dv,
    glProgramUniformMatrix3dv,
    3,
    3,
    f64,
    Src::D
);
uniform_matrices!(
    glUniformMatrix4dv,
    glProgramUniformMatrix4dv,
    4,
    4,
    f64,
    Src::D
);
uniform_matrices!(
    glUniformMatrix2x3dv,
    glProgramUniformMatrix2x3dv,
    2,
    3,
    f64,
    Src::D
);
uniform_matrices!(
    glUniformMatrix3x2dv,
    glProgramUniformMatrix3x2dv,
    3,
    2,
    f64,
    Src::D
);
uniform_matrices!(
    glUniformMatrix2x4dv,
    glProgramUniformMatrix2x4dv,
    2,
    4,
    f64,
    Src::D
);
uniform_matrices!(
    glUniformMatrix4x2dv,
    glProgramUniformMatrix4x2dv,
    4,
    2,
    f64,
    Src::D
);
uniform_matrices!(
    glUniformMatrix3x4dv,
    glProgramUniformMatrix3x4dv,
    3,
    4,
    f64,
    Src::D
);
uniform_matrices!(
    glUniformMatrix4x3dv,
    glProgramUniformMatrix4x3dv,
    4,
    3,
    f64,
    Src::D
);

macro_rules! uniform_doubles {
    ($name:ident, $pname:ident, $($arg:ident),+) => {
        #[no_mangle]
        pub unsafe extern "C" fn $name(location: i32, $($arg: f64),+) {
            let v = [$($arg),+];
            uniform_entry(None, location, Values::vector(1, Src::D, v.len() as u32, as_words(&v)))
        }

        #[no_mangle]
        pub unsafe extern "C" fn $pname(program: u32, location: i32, $($arg: f64),+) {
            let v = [$($arg),+];
            uniform_entry(Some(program), location, Values::vector(1, Src::D, v.len() as u32, as_words(&v)))
        }
    };
}
uniform_doubles!(glUniform1d, glProgramUniform1d, x);
uniform_doubles!(glUniform2d, glProgramUniform2d, x, y);
uniform_doubles!(glUniform3d, glProgramUniform3d, x, y, z);
uniform_doubles!(glUniform4d, glProgramUniform4d, x, y, z, w);

/// Read a uniform's current words (glGetUniform*).
pub(super) fn read_uniform(gl: &mut Gl, program: u32, location: i32) -> Option<(Base, Vec<u32>)> {
    let l = match linked(gl, program) {
        Ok(l) => l,
        Err(e) => {
            gl.st.set_error(e);
            return None;
        }
    };
    let Some(loc) = usize::try_from(location)
        .ok()
        .and_then(|i| l.locations.get(i))
        .copied()
    else {
        gl.st.set_error(glow::INVALID_OPERATION);
        return None;
    };
    let Some(u) = l.prog.uniforms.get(loc.uniform) else {
        gl.st.set_error(glow::INVALID_OPERATION);
        return None;
    };
    let (base, cols, rows) = type_info(u.gl_type);
    if base == Base::Sampler {
        let (units, binding) = match u.image_binding {
            Some(b) => (&l.image_units, b),
            None => (&l.sampler_units, u.sampler_binding.unwrap_or(0)),
        };
        let slot = (binding + loc.element) as usize;
        return Some((Base::Int, vec![units.get(slot).copied().unwrap_or(0)]));
    }
    let mut out = Vec::new();
    let off = u.offset as usize + loc.element as usize * u.array_stride as usize;
    let cw = if base == Base::Double { 2 } else { 1 };
    for c in 0..cols as usize {
        for r in 0..rows as usize * cw {
            let at = off + c * u.matrix_stride as usize + r * 4;
            let w = l
                .scratch
                .get(at..at + 4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .unwrap_or(0);
            out.push(w);
        }
    }
    Some((base, out))
}

/// A uniform's values as doubles (`glGetUniform*v` of any type).
fn values_as_f64(base: Base, words: &[u32]) -> Vec<f64> {
    match base {
        Base::Double => words
            .chunks_exact(2)
            .map(|p| f64::from_bits(u64::from(p[0]) | (u64::from(p[1]) << 32)))
            .collect(),
        Base::Float => words
            .iter()
            .map(|w| f64::from(f32::from_bits(*w)))
            .collect(),
        Base::Int => words.iter().map(|w| f64::from(*w as i32)).collect(),
        _ => words.iter().map(|w| f64::from(*w)).collect(),
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetUniformdv(program: u32, location: i32, out: *mut f64) {
    if let Some((base, words)) =
        with_gl_dirty(DIRTY_PROGRAM, |gl| read_uniform(gl, program, location))
    {
        for (i, v) in values_as_f64(base, &words).into_iter().enumerate() {
            // SAFETY: GL promises room for the uniform's values.
            unsafe { put(out.add(i), v) };
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetUniformfv(program: u32, location: i32, out: *mut f32) {
    if let Some((base, words)) =
        with_gl_dirty(DIRTY_PROGRAM, |gl| read_uniform(gl, program, location))
    {
        if base == Base::Double {
            for (i, v) in values_as_f64(base, &words).into_iter().enumerate() {
                // SAFETY: GL promises room for the uniform's values.
                unsafe { put(out.add(i), v as f32) };
            }
            return;
        }
        for (i, w) in words.iter().enumerate() {
            let v = match base {
                Base::Float => f32::from_bits(*w),
                Base::Int => *w as i32 as f32,
                _ => *w as f32,
            };
            // SAFETY: GL promises room for the uniform's values.
            unsafe { put(out.add(i), v) };
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetUniformiv(program: u32, location: i32, out: *mut i32) {
    if let Some((base, words)) =
        with_gl_dirty(DIRTY_PROGRAM, |gl| read_uniform(gl, program, location))
    {
        for (i, w) in words.iter().enumerate() {
            let v = match base {
                // GL 4.6 §2.2.2: a float returned as an integer is
                // rounded to the nearest one.
                Base::Float => f32::from_bits(*w).round() as i32,
                _ => *w as i32,
            };
            // SAFETY: GL promises room for the uniform's values.
            unsafe { put(out.add(i), v) };
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetUniformuiv(program: u32, location: i32, out: *mut u32) {
    if let Some((base, words)) =
        with_gl_dirty(DIRTY_PROGRAM, |gl| read_uniform(gl, program, location))
    {
        for (i, w) in words.iter().enumerate() {
            let v = match base {
                Base::Float => f32::from_bits(*w).round() as u32,
                _ => *w,
            };
            // SAFETY: GL promises room for the uniform's values.
            unsafe { put(out.add(i), v) };
        }
    }
}

#[cfg(test)]
mod uniform_block_limit_tests {
    use super::MAX_COMBINED_UNIFORM_BLOCKS;

    /// Every block a linkable program may use over all its stages has a
    /// slot in the uniform-buffer table sent to the backend (blocks past
    /// the table would read nothing).
    #[test]
    fn constant_buffer_table_holds_the_combined_limit() {
        let table = mgpipe::calls::SetConstantBuffers::default();
        assert!(table.buffers.len() >= MAX_COMBINED_UNIFORM_BLOCKS);
    }
}
