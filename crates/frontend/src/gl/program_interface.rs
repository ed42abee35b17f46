//! Program interface queries (GL 4.3 §7.3.1, `GL_ARB_program_interface_query`):
//! `glGetProgramInterfaceiv`, `glGetProgramResourceIndex/Name/iv/Location`.
//!
//! A view over the reflection the older queries already answer from
//! (`LinkedProgram`: uniforms, uniform blocks, storage blocks, vertex
//! inputs, fragment outputs, buffer variables); nothing here reaches the
//! backend. Interfaces we do not reflect (atomic counter buffers,
//! transform feedback, subroutines) are valid and empty.

use std::ffi::c_char;

use super::shaders::{linked, split_index, type_info, uniform_location, write_log};
use super::{cstr, put, slice};
use crate::context::{with_gl_dirty, Gl, LinkedState, DIRTY_PROGRAM};
use crate::shader::Stage;

/// The interfaces GL 4.6 table 7.1 names, with what we hold for each.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Interface {
    Uniform,
    UniformBlock,
    StorageBlock,
    BufferVariable,
    Input,
    Output,
    /// Valid but never populated here.
    Empty,
}

fn interface(e: u32) -> Option<Interface> {
    Some(match e {
        glow::UNIFORM => Interface::Uniform,
        glow::UNIFORM_BLOCK => Interface::UniformBlock,
        glow::SHADER_STORAGE_BLOCK => Interface::StorageBlock,
        glow::PROGRAM_INPUT => Interface::Input,
        glow::PROGRAM_OUTPUT => Interface::Output,
        glow::BUFFER_VARIABLE => Interface::BufferVariable,
        glow::ATOMIC_COUNTER_BUFFER
        | glow::TRANSFORM_FEEDBACK_VARYING
        | glow::TRANSFORM_FEEDBACK_BUFFER
        | glow::VERTEX_SUBROUTINE
        | glow::TESS_CONTROL_SUBROUTINE
        | glow::TESS_EVALUATION_SUBROUTINE
        | glow::GEOMETRY_SUBROUTINE
        | glow::FRAGMENT_SUBROUTINE
        | glow::COMPUTE_SUBROUTINE
        | glow::VERTEX_SUBROUTINE_UNIFORM
        | glow::TESS_CONTROL_SUBROUTINE_UNIFORM
        | glow::TESS_EVALUATION_SUBROUTINE_UNIFORM
        | glow::GEOMETRY_SUBROUTINE_UNIFORM
        | glow::FRAGMENT_SUBROUTINE_UNIFORM
        | glow::COMPUTE_SUBROUTINE_UNIFORM => Interface::Empty,
        _ => return None,
    })
}

/// Resource names of `iface`, in index order. Inputs and outputs list what
/// `glGetActiveAttrib` lists (emulated built-ins included) and fragment
/// outputs; arrays are named `"a[0]"` as GL 4.6 §7.3.1.1 asks.
fn names(l: &LinkedState, iface: Interface) -> Vec<String> {
    let arrayed = |n: &str, size: u32| {
        if size > 1 && !n.ends_with(']') {
            format!("{n}[0]")
        } else {
            n.to_owned()
        }
    };
    match iface {
        Interface::Uniform => l.prog.uniforms.iter().map(|u| u.name.clone()).collect(),
        Interface::UniformBlock => l.prog.blocks.iter().map(|b| b.name.clone()).collect(),
        Interface::StorageBlock => l
            .prog
            .storage_blocks
            .iter()
            .map(|b| b.name.clone())
            .collect(),
        Interface::BufferVariable => l
            .prog
            .buffer_variables
            .iter()
            .map(|v| v.var.name.clone())
            .collect(),
        Interface::Input => l
            .prog
            .attributes
            .iter()
            .map(|a| arrayed(&a.name, a.array_size))
            .collect(),
        Interface::Output => l
            .prog
            .outputs
            .iter()
            .map(|a| arrayed(&a.name, a.array_size))
            .collect(),
        Interface::Empty => Vec::new(),
    }
}

/// Resource `name` of `iface`: an exact name, or an array's name without
/// `[0]`, or (uniforms, inputs, outputs) one of its elements.
fn find(l: &LinkedState, iface: Interface, name: &str) -> Option<usize> {
    let all = names(l, iface);
    if let Some(i) = all.iter().position(|n| n == name) {
        return Some(i);
    }
    let (base, idx) = split_index(name);
    all.iter().enumerate().find_map(|(i, n)| {
        let (nb, nidx) = split_index(n);
        let elements = match iface {
            Interface::Uniform => l.prog.uniforms[i].array_size,
            Interface::BufferVariable => l.prog.buffer_variables[i].var.array_size,
            Interface::Input => l.prog.attributes[i].array_size,
            Interface::Output => l.prog.outputs[i].array_size,
            _ => return None,
        };
        let within = idx.unwrap_or(0) < elements.max(1);
        (nidx == Some(0) && nb == base && within).then_some(i)
    })
}

/// Run `f` on the linked program; its error (or the program's) is set
/// and the default value returned.
fn with_linked<R: Default>(program: u32, f: impl FnOnce(&LinkedState) -> Result<R, u32>) -> R {
    with_gl_dirty(DIRTY_PROGRAM, |gl: &mut Gl| {
        let r = match linked(gl, program) {
            Ok(l) => f(l),
            Err(e) => Err(e),
        };
        r.unwrap_or_else(|e| {
            gl.st.set_error(e);
            R::default()
        })
    })
}

fn iface_of(e: u32) -> Result<Interface, u32> {
    interface(e).ok_or(glow::INVALID_ENUM)
}

#[no_mangle]
pub unsafe extern "C" fn glGetProgramInterfaceiv(
    program: u32,
    program_interface: u32,
    pname: u32,
    out: *mut i32,
) {
    let v = with_linked(program, |l| {
        let iface = iface_of(program_interface)?;
        let all = names(l, iface);
        match pname {
            glow::ACTIVE_RESOURCES => Ok(Some(all.len() as i32)),
            glow::MAX_NAME_LENGTH => Ok(Some(
                all.iter().map(|n| n.len() as i32 + 1).max().unwrap_or(0),
            )),
            glow::MAX_NUM_ACTIVE_VARIABLES
                if matches!(
                    iface,
                    Interface::UniformBlock | Interface::StorageBlock | Interface::Empty
                ) =>
            {
                Ok(Some(match iface {
                    Interface::UniformBlock => l
                        .prog
                        .blocks
                        .iter()
                        .map(|b| b.active_uniforms.len() as i32)
                        .max()
                        .unwrap_or(0),
                    Interface::StorageBlock => l
                        .prog
                        .storage_blocks
                        .iter()
                        .map(|b| b.active_variables.len() as i32)
                        .max()
                        .unwrap_or(0),
                    _ => 0,
                }))
            }
            glow::MAX_NUM_COMPATIBLE_SUBROUTINES => Ok(Some(0)),
            _ => Err(glow::INVALID_OPERATION),
        }
    });
    if let Some(v) = v {
        // SAFETY: GL promises one writable value.
        unsafe { put(out, v) };
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetProgramResourceIndex(
    program: u32,
    program_interface: u32,
    name: *const c_char,
) -> u32 {
    // SAFETY: NUL-terminated per GL.
    let n = unsafe { cstr(name) };
    let r = with_linked(program, |l| {
        let iface = iface_of(program_interface)?;
        Ok(Some(
            find(l, iface, &n).map_or(glow::INVALID_INDEX, |i| i as u32),
        ))
    });
    r.unwrap_or(glow::INVALID_INDEX)
}

#[no_mangle]
pub unsafe extern "C" fn glGetProgramResourceName(
    program: u32,
    program_interface: u32,
    index: u32,
    buf_size: i32,
    length: *mut i32,
    name: *mut c_char,
) {
    let n = with_linked(program, |l| {
        let iface = iface_of(program_interface)?;
        names(l, iface)
            .into_iter()
            .nth(index as usize)
            .map(Some)
            .ok_or(glow::INVALID_VALUE)
    });
    if let Some(n) = n {
        // SAFETY: the application's buffer of `buf_size` bytes.
        unsafe { write_log(&n, buf_size, length, name) };
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetProgramResourceLocation(
    program: u32,
    program_interface: u32,
    name: *const c_char,
) -> i32 {
    // SAFETY: NUL-terminated per GL.
    let n = unsafe { cstr(name) };
    let r = with_linked(program, |l| match interface(program_interface) {
        Some(Interface::Uniform) => Ok(Some(uniform_location(l, &n))),
        Some(iface @ (Interface::Input | Interface::Output)) => {
            if n.starts_with("gl_") {
                return Ok(Some(-1));
            }
            let vars = if iface == Interface::Input {
                &l.prog.attributes
            } else {
                &l.prog.outputs
            };
            let Some(i) = find(l, iface, &n) else {
                return Ok(Some(-1));
            };
            let v = &vars[i];
            let element = split_index(&n).1.unwrap_or(0);
            Ok(Some(if v.location == u32::MAX {
                -1
            } else {
                v.location.saturating_add(element) as i32
            }))
        }
        _ => Err(glow::INVALID_ENUM),
    });
    r.unwrap_or(-1)
}

#[no_mangle]
pub unsafe extern "C" fn glGetProgramResourceLocationIndex(
    program: u32,
    program_interface: u32,
    name: *const c_char,
) -> i32 {
    // SAFETY: NUL-terminated per GL.
    let n = unsafe { cstr(name) };
    let r = with_linked(program, |l| {
        if program_interface != glow::PROGRAM_OUTPUT {
            return Err(glow::INVALID_ENUM);
        }
        // No dual-source outputs are reflected: every output is index 0.
        Ok(Some(find(l, Interface::Output, &n).map_or(-1, |_| 0)))
    });
    r.unwrap_or(-1)
}

/// One property of resource `i` (GL 4.6 table 7.2); Err(INVALID_OPERATION)
/// for a property the interface does not have.
fn property(l: &LinkedState, iface: Interface, i: usize, prop: u32) -> Result<Vec<i32>, u32> {
    let stage_has = |s: Stage| l.prog.stage_spirv[s.index()].is_some() as i32;
    let referenced = |s: Stage| -> i32 {
        match iface {
            Interface::UniformBlock => l.prog.block_referenced(i, s) as i32,
            Interface::StorageBlock => {
                l.prog
                    .storage_blocks
                    .get(i)
                    .is_some_and(|b| b.stages & (1 << s.index()) != 0) as i32
            }
            Interface::BufferVariable => {
                l.prog
                    .buffer_variables
                    .get(i)
                    .and_then(|v| l.prog.storage_blocks.get(v.var.block_index as usize))
                    .is_some_and(|b| b.stages & (1 << s.index()) != 0) as i32
            }
            Interface::Input => (s == Stage::Vertex) as i32,
            Interface::Output => (s == Stage::Fragment) as i32,
            _ => stage_has(s),
        }
    };
    let by_stage = match prop {
        glow::REFERENCED_BY_VERTEX_SHADER => Some(Stage::Vertex),
        glow::REFERENCED_BY_TESS_CONTROL_SHADER => Some(Stage::TessControl),
        glow::REFERENCED_BY_TESS_EVALUATION_SHADER => Some(Stage::TessEval),
        glow::REFERENCED_BY_GEOMETRY_SHADER => Some(Stage::Geometry),
        glow::REFERENCED_BY_FRAGMENT_SHADER => Some(Stage::Fragment),
        glow::REFERENCED_BY_COMPUTE_SHADER => Some(Stage::Compute),
        _ => None,
    };
    if let Some(s) = by_stage {
        return Ok(vec![referenced(s)]);
    }
    let name_len = names(l, iface).get(i).map_or(0, |n| n.len() as i32 + 1);
    let bad = Err(glow::INVALID_OPERATION);
    match iface {
        Interface::Uniform => {
            let u = &l.prog.uniforms[i];
            let in_block = u.block_index >= 0;
            Ok(vec![match prop {
                glow::NAME_LENGTH => name_len,
                glow::TYPE => u.gl_type as i32,
                glow::ARRAY_SIZE => u.array_size.max(1) as i32,
                glow::OFFSET => {
                    if in_block || u.gl_type == glow::UNSIGNED_INT_ATOMIC_COUNTER {
                        u.offset as i32
                    } else {
                        -1
                    }
                }
                glow::BLOCK_INDEX => u.block_index,
                glow::ARRAY_STRIDE => match (in_block, u.array_size > 1) {
                    (true, true) => u.array_stride as i32,
                    (true, false) => 0,
                    _ => -1,
                },
                glow::MATRIX_STRIDE => match (in_block, type_info(u.gl_type).1 > 1) {
                    (true, true) => u.matrix_stride as i32,
                    (true, false) => 0,
                    _ => -1,
                },
                glow::IS_ROW_MAJOR => u.is_row_major as i32,
                glow::ATOMIC_COUNTER_BUFFER_INDEX => {
                    super::shaders::atomic_buffer_index(&l.prog, u)
                }
                glow::LOCATION => {
                    if in_block {
                        -1
                    } else {
                        let n = &u.name;
                        uniform_location(l, n)
                    }
                }
                _ => return bad,
            }])
        }
        Interface::UniformBlock | Interface::StorageBlock => {
            let (binding, size, active): (u32, u32, Vec<u32>) = if iface == Interface::UniformBlock
            {
                let b = &l.prog.blocks[i];
                (
                    l.block_bindings.get(i).copied().unwrap_or(0),
                    b.data_size,
                    b.active_uniforms.clone(),
                )
            } else {
                let b = &l.prog.storage_blocks[i];
                (
                    l.storage_bindings.get(i).copied().unwrap_or(0),
                    b.data_size,
                    b.active_variables.clone(),
                )
            };
            Ok(match prop {
                glow::NAME_LENGTH => vec![name_len],
                glow::BUFFER_BINDING => vec![binding as i32],
                glow::BUFFER_DATA_SIZE => vec![size as i32],
                glow::NUM_ACTIVE_VARIABLES => vec![active.len() as i32],
                glow::ACTIVE_VARIABLES => active.iter().map(|&u| u as i32).collect(),
                _ => return bad,
            })
        }
        Interface::BufferVariable => {
            let b = &l.prog.buffer_variables[i];
            let u = &b.var;
            Ok(vec![match prop {
                glow::NAME_LENGTH => name_len,
                glow::TYPE => u.gl_type as i32,
                glow::ARRAY_SIZE => u.array_size as i32,
                glow::OFFSET => u.offset as i32,
                glow::BLOCK_INDEX => u.block_index,
                glow::ARRAY_STRIDE => u.array_stride as i32,
                glow::MATRIX_STRIDE => u.matrix_stride as i32,
                glow::IS_ROW_MAJOR => u.is_row_major as i32,
                glow::TOP_LEVEL_ARRAY_SIZE => b.top_level_size as i32,
                glow::TOP_LEVEL_ARRAY_STRIDE => b.top_level_stride as i32,
                _ => return bad,
            }])
        }
        Interface::Input | Interface::Output => {
            let v = if iface == Interface::Input {
                &l.prog.attributes[i]
            } else {
                &l.prog.outputs[i]
            };
            Ok(vec![match prop {
                glow::NAME_LENGTH => name_len,
                glow::TYPE => v.gl_type as i32,
                glow::ARRAY_SIZE => v.array_size.max(1) as i32,
                glow::LOCATION => {
                    if v.location == u32::MAX {
                        -1
                    } else {
                        v.location as i32
                    }
                }
                glow::LOCATION_INDEX if iface == Interface::Output => 0,
                glow::LOCATION_COMPONENT => 0,
                glow::IS_PER_PATCH => 0,
                _ => return bad,
            }])
        }
        Interface::Empty => bad,
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetProgramResourceiv(
    program: u32,
    program_interface: u32,
    index: u32,
    prop_count: i32,
    props: *const u32,
    buf_size: i32,
    length: *mut i32,
    params: *mut i32,
) {
    // SAFETY: GL promises `prop_count` properties.
    let props = unsafe { slice(props, prop_count) }.to_vec();
    let values = with_linked(program, |l| {
        let iface = iface_of(program_interface)?;
        if prop_count <= 0 || buf_size < 0 || index as usize >= names(l, iface).len() {
            return Err(glow::INVALID_VALUE);
        }
        let mut out = Vec::new();
        for &p in &props {
            out.extend(property(l, iface, index as usize, p)?);
        }
        Ok(Some(out))
    });
    let Some(values) = values else {
        return;
    };
    let n = values.len().min(buf_size.max(0) as usize);
    for (k, v) in values.iter().take(n).enumerate() {
        // SAFETY: GL promises `buf_size` writable values.
        unsafe { put(params.add(k), *v) };
    }
    // SAFETY: optional out pointer.
    unsafe { put(length, n as i32) };
}
