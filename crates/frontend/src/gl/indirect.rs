//! Indirect draws: `glDraw{Arrays,Elements}Indirect` (GL 4.0,
//! ARB_draw_indirect) and `glMultiDraw{Arrays,Elements}Indirect` (GL 4.3,
//! ARB_multi_draw_indirect).
//!
//! The commands are read back from the bound GL_DRAW_INDIRECT_BUFFER (one
//! blocking `buffer_readback`, ordered after every record before it, so
//! commands the GPU wrote are seen) and issued as the direct draws they
//! describe. That needs no catalogue call of its own, so every backend and
//! transport has it; the price is a round trip per call (documented in
//! `docs/ARCHITECTURE.md`). In a compatibility context without a bound
//! buffer the commands are read from client memory, as GL allows there.
//!
//! Owns the validation of GL 4.6 §10.4 and the command layouts; drawing
//! goes through `draw`.

use std::ffi::c_void;

use super::draw::{check_args, emit_draw};
use super::gl_err;
use crate::context::{with_gl, Gl};
use crate::runtime::BlockingCause;

/// `DrawArraysIndirectCommand`: count, instanceCount, first, baseInstance.
const ARRAYS_WORDS: usize = 4;
/// `DrawElementsIndirectCommand`: count, instanceCount, firstIndex,
/// baseVertex, baseInstance.
const ELEMENTS_WORDS: usize = 5;

/// Where the commands come from, checked.
enum Source {
    /// Bytes `offset..offset + span` of a buffer (the handle).
    Buffer(mgpipe::Handle, u64),
    /// Client memory (compatibility contexts without a bound buffer).
    Client(usize),
}

/// The checks of GL 4.6 §10.4 on `drawcount` commands of `words` words,
/// `stride` bytes apart, at `indirect`, made before any state validation
/// (the argument errors win, as in Mesa): where to read `span` bytes of
/// them, or the GL error.
fn command_source(
    gl: &Gl,
    indirect: usize,
    drawcount: usize,
    stride: usize,
    words: usize,
) -> Result<(Source, usize), u32> {
    if !indirect.is_multiple_of(4) {
        return Err(glow::INVALID_VALUE);
    }
    let span = match drawcount {
        0 => 0,
        n => (n - 1)
            .checked_mul(stride)
            .and_then(|s| s.checked_add(words * 4))
            .ok_or(glow::INVALID_OPERATION)?,
    };
    let name = gl.st.draw_indirect_buffer;
    if name == 0 {
        if gl.st.is_core() || indirect == 0 {
            return Err(glow::INVALID_OPERATION);
        }
        return Ok((Source::Client(indirect), span));
    }
    let Some(Some(buf)) = gl.sh.buffers.get(&name) else {
        return Err(glow::INVALID_OPERATION);
    };
    let end = (indirect as u64).checked_add(span as u64);
    if end.is_none_or(|e| e > buf.size) {
        return Err(glow::INVALID_OPERATION);
    }
    // A buffer mapped without GL_MAP_PERSISTENT_BIT may not be read.
    if buf
        .map
        .as_ref()
        .is_some_and(|m| m.access & glow::MAP_PERSISTENT_BIT == 0)
    {
        return Err(glow::INVALID_OPERATION);
    }
    Ok((Source::Buffer(buf.handle, indirect as u64), span))
}

/// The commands as words (`span` bytes from `src`, `drawcount` commands of
/// `words` words `stride` bytes apart).
fn read_commands(
    gl: &mut Gl,
    src: Source,
    span: usize,
    drawcount: usize,
    stride: usize,
    words: usize,
) -> Vec<u32> {
    let bytes = match src {
        // SAFETY: in a compatibility context the application promises the
        // commands at this address of its own memory.
        Source::Client(at) => unsafe { std::slice::from_raw_parts(at as *const u8, span) }.to_vec(),
        Source::Buffer(h, offset) => {
            super::buffers::read_buffer(gl, h, offset, span as u64, BlockingCause::IndirectDraw)
        }
    };
    let mut out = Vec::with_capacity(drawcount * words);
    for i in 0..drawcount {
        let at = i * stride;
        for w in 0..words {
            let b = bytes.get(at + 4 * w..at + 4 * w + 4).unwrap_or(&[0; 4]);
            out.push(u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        }
    }
    out
}

/// The common body: `index_ty` None for arrays. `stride` 0 = tightly
/// packed commands.
fn draw_indirect(
    gl: &mut Gl,
    mode: u32,
    index_ty: Option<u32>,
    indirect: usize,
    drawcount: i32,
    stride: i32,
) {
    let isize_ = match check_args(mode, 0, 0, index_ty, 0) {
        Ok(s) => s,
        Err(e) => gl_err!(gl, e),
    };
    if drawcount < 0 || stride < 0 || stride % 4 != 0 {
        gl_err!(gl, glow::INVALID_VALUE);
    }
    let words = if index_ty.is_some() {
        ELEMENTS_WORDS
    } else {
        ARRAYS_WORDS
    };
    let stride = if stride == 0 {
        words * 4
    } else {
        stride as usize
    };
    let (src, span) = match command_source(gl, indirect, drawcount as usize, stride, words) {
        Ok(s) => s,
        Err(e) => gl_err!(gl, e),
    };
    // The element forms read indices from a bound buffer.
    if isize_ != 0 {
        let vao = gl.st.vao;
        if !matches!(gl.st.vaos.get(&vao), Some(Some(v)) if v.element_buffer != 0) {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
    }
    super::draw::prepare_restart(gl, isize_);
    if let Err(e) = gl.validate_draw(mode) {
        gl_err!(gl, e);
    }
    let cmds = read_commands(gl, src, span, drawcount as usize, stride, words);
    for c in cmds.chunks_exact(words) {
        // A count or instance count past i32 cannot be a real draw: it is
        // skipped (and logged) rather than wrapped negative.
        let (count, instances) = (c[0], c[1]);
        if count > i32::MAX as u32 || instances > i32::MAX as u32 {
            super::log_once("indirect-huge", || {
                format!("indirect draw of {count} vertices x {instances} instances skipped")
            });
            continue;
        }
        if isize_ == 0 {
            let (first, base_instance) = (c[2], c[3]);
            if first > i32::MAX as u32 {
                continue;
            }
            emit_draw(
                gl,
                mode,
                first as i32,
                count as i32,
                0,
                0,
                instances as i32,
                0,
                base_instance,
            );
        } else {
            let (first_index, base_vertex, base_instance) = (c[2], c[3] as i32, c[4]);
            let offset = (first_index as usize).saturating_mul(isize_ as usize);
            emit_draw(
                gl,
                mode,
                0,
                count as i32,
                isize_,
                offset,
                instances as i32,
                base_vertex,
                base_instance,
            );
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn glDrawArraysIndirect(mode: u32, indirect: *const c_void) {
    with_gl(|gl| draw_indirect(gl, mode, None, indirect as usize, 1, 0))
}

#[no_mangle]
pub unsafe extern "C" fn glDrawElementsIndirect(mode: u32, ty: u32, indirect: *const c_void) {
    with_gl(|gl| draw_indirect(gl, mode, Some(ty), indirect as usize, 1, 0))
}

#[no_mangle]
pub unsafe extern "C" fn glMultiDrawArraysIndirect(
    mode: u32,
    indirect: *const c_void,
    drawcount: i32,
    stride: i32,
) {
    with_gl(|gl| draw_indirect(gl, mode, None, indirect as usize, drawcount, stride))
}

#[no_mangle]
pub unsafe extern "C" fn glMultiDrawElementsIndirect(
    mode: u32,
    ty: u32,
    indirect: *const c_void,
    drawcount: i32,
    stride: i32,
) {
    with_gl(|gl| draw_indirect(gl, mode, Some(ty), indirect as usize, drawcount, stride))
}
