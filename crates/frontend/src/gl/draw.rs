//! Draw calls: every flavour collapses into the one `draw` record, and
//! multi-draws into one `multi_draw` record where the backend takes it.

use std::ffi::c_void;

use mgpipe::calls;
use mgpipe::Pipe;

use super::legacy_arrays::{self, Reads};
use super::{gl_err, slice};
use crate::context::Gl;

pub(super) fn valid_mode(mode: u32) -> bool {
    matches!(
        mode,
        glow::POINTS
            | glow::LINES
            | glow::LINE_LOOP
            | glow::LINE_STRIP
            | glow::TRIANGLES
            | glow::TRIANGLE_STRIP
            | glow::TRIANGLE_FAN
            | glow::LINES_ADJACENCY
            | glow::LINE_STRIP_ADJACENCY
            | glow::TRIANGLES_ADJACENCY
            | glow::TRIANGLE_STRIP_ADJACENCY
            | glow::PATCHES
    )
}

/// The little-endian indices of `size` bytes (1, 2 or 4) in `bytes`,
/// widened to 32 bits.
pub(super) fn index_values(bytes: &[u8], size: usize) -> impl Iterator<Item = u32> + '_ {
    bytes.chunks_exact(size.clamp(1, 4)).map(|c| match *c {
        [a] => u32::from(a),
        [a, b] => u32::from(u16::from_le_bytes([a, b])),
        [a, b, c, d] => u32::from_le_bytes([a, b, c, d]),
        _ => 0,
    })
}

fn index_size(ty: u32) -> Option<u32> {
    match ty {
        glow::UNSIGNED_BYTE => Some(1),
        glow::UNSIGNED_SHORT => Some(2),
        glow::UNSIGNED_INT => Some(4),
        _ => None,
    }
}

/// GL_RASTERIZER_DISCARD makes a draw invisible: it is dropped here unless
/// something counts or captures its primitives (transform feedback, a
/// GL_PRIMITIVES_GENERATED query), for which the backend draws with
/// rasterization discarded.
pub(super) fn discards_draw(gl: &Gl) -> bool {
    gl.st.rasterizer_discard
        && !super::xfb::active_unpaused(gl)
        && !gl
            .st
            .active_queries
            .contains_key(&glow::PRIMITIVES_GENERATED)
}

/// Publish the batch every this many draws, so a server thread starts on a
/// frame while the application is still recording it (a validate point).
const PUBLISH_EVERY_DRAWS: u32 = 64;

/// Argument checks of one draw (before any state validation, so argument
/// errors win): the index size (0 = arrays) or the GL error.
pub(super) fn check_args(
    mode: u32,
    first: i32,
    count: i32,
    index_ty: Option<u32>,
    instances: i32,
) -> Result<u32, u32> {
    if !valid_mode(mode) {
        return Err(glow::INVALID_ENUM);
    }
    let isize_ = match index_ty {
        None => 0,
        Some(t) => index_size(t).ok_or(glow::INVALID_ENUM)?,
    };
    if count < 0 || first < 0 || instances < 0 {
        return Err(glow::INVALID_VALUE);
    }
    Ok(isize_)
}

/// GL_PRIMITIVE_RESTART for an indexed draw of `isize_`-byte indices.
/// Backends restart at the largest index value only (fixed-index restart,
/// GLES 3.0 and Vulkan), so the render state says fixed-index restart when
/// the restart index is that value; a smaller restart index makes the draw
/// rewrite its indices (`emit_restart_rewritten`); a larger one never
/// matches an index, so no restart is right. GL_PRIMITIVE_RESTART_FIXED_INDEX
/// wins over both (GL 4.6 §10.3.6).
pub(super) fn prepare_restart(gl: &mut Gl, isize_: u32) {
    // The common case, restart off and nothing left from an earlier draw,
    // costs three loads per indexed draw.
    let st = &gl.st;
    if isize_ == 0 || (!st.primitive_restart && !st.restart_as_fixed && !st.restart_rewrite) {
        return;
    }
    let custom = gl.st.primitive_restart && !gl.st.primitive_restart_fixed;
    let max = match isize_ {
        1 => 0xFF,
        2 => 0xFFFF,
        _ => u32::MAX,
    };
    let idx = gl.st.primitive_restart_index;
    gl.st.restart_rewrite = custom && idx < max;
    let as_fixed = custom && idx <= max;
    if gl.st.restart_as_fixed != as_fixed {
        gl.st.restart_as_fixed = as_fixed;
        gl.st.dirty |= crate::context::DIRTY_RENDER_STATE;
    }
}

/// An indexed draw whose restart index is not its type's largest value:
/// the `count` indices at byte `offset` of the bound index buffer (or of
/// client memory, compatibility contexts) are read back, widened to 32
/// bits with the restart index made `u32::MAX` (which fixed-index restart
/// honours), and sent with the draw. A blocking read per draw: this is
/// GL_PRIMITIVE_RESTART with an unusual index, which backends have no
/// state for.
#[allow(clippy::too_many_arguments)]
fn emit_restart_rewritten(
    gl: &mut Gl,
    mode: u32,
    count: i32,
    isize_: u32,
    offset: usize,
    instances: i32,
    base_vertex: i32,
    base_instance: u32,
) {
    let bytes = (count as usize).saturating_mul(isize_ as usize);
    let vao = gl.st.vao;
    let ib = match gl.st.vaos.get(&vao) {
        Some(Some(v)) if v.element_buffer != 0 => gl.sh.buffers.get(&v.element_buffer),
        _ => None,
    };
    let raw = match ib {
        Some(Some(b)) => {
            if offset as u64 & (u64::from(isize_) - 1) != 0 {
                gl_err!(gl, glow::INVALID_OPERATION);
            }
            let h = b.handle;
            super::buffers::read_buffer(
                gl,
                h,
                offset as u64,
                bytes as u64,
                crate::runtime::BlockingCause::BufferRead,
            )
        }
        _ if gl.st.is_core() || offset == 0 => gl_err!(gl, glow::INVALID_OPERATION),
        // SAFETY: the application promises `count` indices at `offset`
        // (a client pointer in a compatibility context).
        _ => unsafe { slice(offset as *const u8, bytes as i32) }.to_vec(),
    };
    let idx = gl.st.primitive_restart_index;
    let widened: Vec<u32> = index_values(&raw, isize_ as usize)
        .map(|v| if v == idx { u32::MAX } else { v })
        .collect();
    let mut base_vertex = base_vertex;
    if gl.st.vertex_per_draw {
        let reads = Reads::Indices {
            bytes: bytemuck::cast_slice(&widened),
            isize_: 4,
            base_vertex,
        };
        match legacy_arrays::emit_vertex_input_per_draw(gl, reads, instances as u32, base_instance)
        {
            Ok(shift) => base_vertex = base_vertex.wrapping_sub(shift as i32),
            Err(e) => gl_err!(gl, e),
        }
    }
    gl.conn.pipe.draw(
        &calls::Draw {
            mode,
            index_size: 4,
            count: widened.len() as u32,
            instance_count: instances as u32,
            base_instance,
            base_vertex,
            ..Default::default()
        },
        bytemuck::cast_slice(&widened),
    );
    count_draws(gl, 1);
}

/// One draw: check arguments, validate state, then emit.
#[allow(clippy::too_many_arguments)]
pub(super) fn draw(
    gl: &mut Gl,
    mode: u32,
    first: i32,
    count: i32,
    index_ty: Option<u32>,
    indices: usize,
    instances: i32,
    base_vertex: i32,
    base_instance: u32,
) {
    // Not a command allowed between glBegin and glEnd (GL 4.6 compat §10.7.5).
    if gl.st.ff.immediate.is_some() {
        gl_err!(gl, glow::INVALID_OPERATION);
    }
    if super::immediate::legacy_mode_draw(
        gl,
        mode,
        first,
        count,
        index_ty,
        indices,
        instances,
        base_vertex,
        base_instance,
    ) {
        return;
    }
    let isize_ = match check_args(mode, first, count, index_ty, instances) {
        Ok(s) => s,
        Err(e) => gl_err!(gl, e),
    };
    prepare_restart(gl, isize_);
    if let Err(e) = gl.validate_draw(mode) {
        gl_err!(gl, e);
    }
    emit_draw(
        gl,
        mode,
        first,
        count,
        isize_,
        indices,
        instances,
        base_vertex,
        base_instance,
    );
}

/// Emit one draw record; arguments are checked and state is validated
/// (multi-draws validate once for all their sub-draws).
#[allow(clippy::too_many_arguments)]
pub(super) fn emit_draw(
    gl: &mut Gl,
    mode: u32,
    first: i32,
    count: i32,
    isize_: u32,
    indices: usize,
    instances: i32,
    base_vertex: i32,
    base_instance: u32,
) {
    if count == 0 || instances == 0 || discards_draw(gl) {
        return;
    }
    if isize_ != 0 && gl.st.restart_rewrite {
        return emit_restart_rewritten(
            gl,
            mode,
            count,
            isize_,
            indices,
            instances,
            base_vertex,
            base_instance,
        );
    }
    let (mut first, mut base_vertex) = (first, base_vertex);
    if gl.st.vertex_per_draw {
        // Compatibility arrays: this draw derives the vertex input.
        let reads = if isize_ == 0 {
            Reads::Arrays {
                first: first as u32,
                count: count as u32,
            }
        } else if legacy_arrays::element_buffer_bound(gl) {
            Reads::BufferIndices {
                offset: indices as u64,
                count: count as u32,
                isize_,
                base_vertex,
            }
        } else {
            Reads::Indices {
                // SAFETY: the application promises `count` indices at
                // `indices` (client memory, compatibility profile).
                bytes: unsafe { slice(indices as *const u8, count.saturating_mul(isize_ as i32)) },
                isize_,
                base_vertex,
            }
        };
        match legacy_arrays::emit_vertex_input_per_draw(gl, reads, instances as u32, base_instance)
        {
            Ok(shift) if isize_ == 0 => first -= shift as i32,
            Ok(shift) => base_vertex = base_vertex.wrapping_sub(shift as i32),
            Err(e) => gl_err!(gl, e),
        }
    }
    let mut blob: &[u8] = &[];
    let mut index_offset = indices as u64;
    if isize_ != 0 {
        let has_ib = matches!(gl.st.sent.index_buffer, Some(h) if !h.is_null());
        if !has_ib {
            if gl.st.is_core() || indices == 0 {
                gl_err!(gl, glow::INVALID_OPERATION);
            }
            // Client-memory indices (compatibility profile): stage exactly the bytes read.
            // SAFETY: the application promises `count` indices at `indices`.
            blob = unsafe { slice(indices as *const u8, count.saturating_mul(isize_ as i32)) };
            index_offset = 0;
        } else if index_offset & (u64::from(isize_) - 1) != 0 {
            // isize_ is 1, 2 or 4: a mask, not a division per draw.
            gl_err!(gl, glow::INVALID_OPERATION);
        }
    }
    if gl.st.xfb.active {
        super::xfb::note_draw(gl, mode, count as u64, instances as u64);
    }
    gl.conn.pipe.draw(
        &calls::Draw {
            mode,
            index_size: isize_,
            first: first as u32,
            count: count as u32,
            instance_count: instances as u32,
            base_instance,
            base_vertex,
            index_offset,
            ..Default::default()
        },
        blob,
    );
    count_draws(gl, 1);
}

/// Count `n` emitted draws; publish the batch every [`PUBLISH_EVERY_DRAWS`].
fn count_draws(gl: &mut Gl, n: u32) {
    gl.st.draws_since_publish += n;
    if gl.st.draws_since_publish >= PUBLISH_EVERY_DRAWS {
        gl.st.draws_since_publish = 0;
        remote::Transport::flush(&mut *gl.conn.pipe);
    }
}

/// The sub-draws of one multi-draw, `(start, count, base_vertex)` with
/// start = first vertex (arrays) or index byte offset: one `multi_draw`
/// record when the backend takes it and every index lives in a bound index
/// buffer, else one `draw` record each. Arguments are checked and state is
/// validated already.
fn emit_multi(gl: &mut Gl, mode: u32, isize_: u32, ranges: &[(i64, i32, i32)]) {
    let has_ib = matches!(gl.st.sent.index_buffer, Some(h) if !h.is_null());
    let one_record = gl.conn.caps.implements(mgpipe::Opcode::MultiDraw as u16)
        && (isize_ == 0 || (has_ib && !gl.st.restart_rewrite))
        && !gl.st.rasterizer_discard
        && !gl.st.vertex_per_draw;
    if !one_record {
        for &(start, count, base) in ranges {
            if isize_ == 0 && start < 0 {
                gl_err!(gl, glow::INVALID_VALUE);
            }
            let (first, offset) = if isize_ == 0 {
                (start as i32, 0)
            } else {
                (0, start as usize)
            };
            emit_draw(gl, mode, first, count, isize_, offset, 1, base, 0);
        }
        return;
    }
    let mut out = Vec::with_capacity(ranges.len());
    for &(start, count, base) in ranges {
        if start < 0 && isize_ == 0 {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        if isize_ != 0 && (start as u64) & (u64::from(isize_) - 1) != 0 {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        if count > 0 {
            out.push(mgpipe::wire::MultiDrawRange {
                start: start as u64,
                count: count as u32,
                base_vertex: if isize_ == 0 { 0 } else { base },
            });
        }
    }
    if out.is_empty() {
        return;
    }
    if gl.st.xfb.active {
        for r in &out {
            super::xfb::note_draw(gl, mode, u64::from(r.count), 1);
        }
    }
    gl.conn.pipe.multi_draw(
        &calls::MultiDraw {
            mode,
            index_size: isize_,
            draw_count: out.len() as u32,
            ..Default::default()
        },
        bytemuck::cast_slice(&out),
    );
    count_draws(gl, out.len() as u32);
}

/// Check every sub-draw's arguments, validate once, then run `each`.
fn multi_draw(
    gl: &mut Gl,
    mode: u32,
    drawcount: i32,
    index_ty: Option<u32>,
    counts: &[i32],
    each: impl FnOnce(&mut Gl, u32),
) {
    if gl.st.ff.immediate.is_some() {
        gl_err!(gl, glow::INVALID_OPERATION);
    }
    if drawcount < 0 {
        gl_err!(gl, glow::INVALID_VALUE);
    }
    let mut isize_ = 0;
    for &c in counts {
        match check_args(mode, 0, c, index_ty, 1) {
            Ok(s) => isize_ = s,
            Err(e) => gl_err!(gl, e),
        }
    }
    if drawcount == 0 {
        return;
    }
    prepare_restart(gl, isize_);
    if let Err(e) = gl.validate_draw(mode) {
        gl_err!(gl, e);
    }
    each(gl, isize_);
}

#[no_mangle]
pub unsafe extern "C" fn glDrawArrays(mode: u32, first: i32, count: i32) {
    super::dlist::listed_arrays("glDrawArrays", first, count, 1, 0, move |gl| {
        draw(gl, mode, first, count, None, 0, 1, 0, 0)
    })
}

#[no_mangle]
pub unsafe extern "C" fn glDrawArraysInstanced(mode: u32, first: i32, count: i32, instances: i32) {
    super::dlist::listed_arrays(
        "glDrawArraysInstanced",
        first,
        count,
        instances,
        0,
        move |gl| draw(gl, mode, first, count, None, 0, instances, 0, 0),
    )
}

#[no_mangle]
pub unsafe extern "C" fn glDrawArraysInstancedBaseInstance(
    mode: u32,
    first: i32,
    count: i32,
    instances: i32,
    base_instance: u32,
) {
    super::dlist::listed_arrays(
        "glDrawArraysInstancedBaseInstance",
        first,
        count,
        instances,
        base_instance,
        move |gl| draw(gl, mode, first, count, None, 0, instances, 0, base_instance),
    )
}

#[no_mangle]
pub unsafe extern "C" fn glDrawElements(mode: u32, count: i32, ty: u32, indices: *const c_void) {
    super::dlist::listed_elements(
        "glDrawElements",
        count,
        ty,
        indices,
        0,
        1,
        0,
        move |gl, indices| draw(gl, mode, 0, count, Some(ty), indices, 1, 0, 0),
    )
}

#[no_mangle]
pub unsafe extern "C" fn glDrawElementsBaseVertex(
    mode: u32,
    count: i32,
    ty: u32,
    indices: *const c_void,
    base_vertex: i32,
) {
    super::dlist::listed_elements(
        "glDrawElementsBaseVertex",
        count,
        ty,
        indices,
        base_vertex,
        1,
        0,
        move |gl, indices| draw(gl, mode, 0, count, Some(ty), indices, 1, base_vertex, 0),
    )
}

#[no_mangle]
pub unsafe extern "C" fn glDrawElementsInstanced(
    mode: u32,
    count: i32,
    ty: u32,
    indices: *const c_void,
    instances: i32,
) {
    super::dlist::listed_elements(
        "glDrawElementsInstanced",
        count,
        ty,
        indices,
        0,
        instances,
        0,
        move |gl, indices| draw(gl, mode, 0, count, Some(ty), indices, instances, 0, 0),
    )
}

#[no_mangle]
pub unsafe extern "C" fn glDrawElementsInstancedBaseVertex(
    mode: u32,
    count: i32,
    ty: u32,
    indices: *const c_void,
    instances: i32,
    base_vertex: i32,
) {
    super::dlist::listed_elements(
        "glDrawElementsInstancedBaseVertex",
        count,
        ty,
        indices,
        base_vertex,
        instances,
        0,
        move |gl, indices| {
            draw(
                gl,
                mode,
                0,
                count,
                Some(ty),
                indices,
                instances,
                base_vertex,
                0,
            )
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn glDrawElementsInstancedBaseVertexBaseInstance(
    mode: u32,
    count: i32,
    ty: u32,
    indices: *const c_void,
    instances: i32,
    base_vertex: i32,
    base_instance: u32,
) {
    super::dlist::listed_elements(
        "glDrawElementsInstancedBaseVertexBaseInstance",
        count,
        ty,
        indices,
        base_vertex,
        instances,
        base_instance,
        move |gl, indices| {
            draw(
                gl,
                mode,
                0,
                count,
                Some(ty),
                indices,
                instances,
                base_vertex,
                base_instance,
            )
        },
    )
}

/// glDrawElementsInstancedBaseInstance (GL 4.2): base vertex 0.
#[no_mangle]
pub unsafe extern "C" fn glDrawElementsInstancedBaseInstance(
    mode: u32,
    count: i32,
    ty: u32,
    indices: *const c_void,
    instances: i32,
    base_instance: u32,
) {
    // SAFETY: the same arguments, passed through with base vertex 0.
    unsafe {
        glDrawElementsInstancedBaseVertexBaseInstance(
            mode,
            count,
            ty,
            indices,
            instances,
            0,
            base_instance,
        )
    }
}

#[no_mangle]
pub unsafe extern "C" fn glDrawRangeElements(
    mode: u32,
    start: u32,
    end: u32,
    count: i32,
    ty: u32,
    indices: *const c_void,
) {
    super::dlist::listed_elements(
        "glDrawRangeElements",
        count,
        ty,
        indices,
        0,
        1,
        0,
        move |gl, indices| {
            if end < start {
                gl_err!(gl, glow::INVALID_VALUE);
            }
            draw(gl, mode, 0, count, Some(ty), indices, 1, 0, 0)
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn glDrawRangeElementsBaseVertex(
    mode: u32,
    start: u32,
    end: u32,
    count: i32,
    ty: u32,
    indices: *const c_void,
    base_vertex: i32,
) {
    super::dlist::listed_elements(
        "glDrawRangeElementsBaseVertex",
        count,
        ty,
        indices,
        base_vertex,
        1,
        0,
        move |gl, indices| {
            if end < start {
                gl_err!(gl, glow::INVALID_VALUE);
            }
            draw(gl, mode, 0, count, Some(ty), indices, 1, base_vertex, 0)
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn glMultiDrawArrays(
    mode: u32,
    first: *const i32,
    count: *const i32,
    drawcount: i32,
) {
    // SAFETY: GL promises `drawcount` entries in each array.
    let (firsts, counts) = unsafe { (slice(first, drawcount), slice(count, drawcount)) };
    super::dlist::listed_multi_arrays(
        "glMultiDrawArrays",
        firsts,
        counts,
        move |gl, firsts, counts| {
            multi_draw(gl, mode, drawcount, None, counts, |gl, _| {
                let ranges: Vec<(i64, i32, i32)> = firsts
                    .iter()
                    .zip(counts)
                    .map(|(f, c)| (i64::from(*f), *c, 0))
                    .collect();
                emit_multi(gl, mode, 0, &ranges);
            })
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn glMultiDrawElements(
    mode: u32,
    count: *const i32,
    ty: u32,
    indices: *const *const c_void,
    drawcount: i32,
) {
    // SAFETY: GL promises `drawcount` entries in each array.
    let (counts, idx) = unsafe { (slice(count, drawcount), slice(indices, drawcount)) };
    super::dlist::listed_multi_elements(
        "glMultiDrawElements",
        counts,
        ty,
        idx,
        &[],
        move |gl, counts, idx, _| {
            multi_draw(gl, mode, drawcount, Some(ty), counts, |gl, isize_| {
                let ranges: Vec<(i64, i32, i32)> = counts
                    .iter()
                    .zip(idx)
                    .map(|(c, i)| (*i as i64, *c, 0))
                    .collect();
                emit_multi(gl, mode, isize_, &ranges);
            })
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn glMultiDrawElementsBaseVertex(
    mode: u32,
    count: *const i32,
    ty: u32,
    indices: *const *const c_void,
    drawcount: i32,
    basevertex: *const i32,
) {
    // SAFETY: GL promises `drawcount` entries in each array.
    let (counts, idx, bases) = unsafe {
        (
            slice(count, drawcount),
            slice(indices, drawcount),
            slice(basevertex, drawcount),
        )
    };
    super::dlist::listed_multi_elements(
        "glMultiDrawElementsBaseVertex",
        counts,
        ty,
        idx,
        bases,
        move |gl, counts, idx, bases| {
            multi_draw(gl, mode, drawcount, Some(ty), counts, |gl, isize_| {
                let ranges: Vec<(i64, i32, i32)> = counts
                    .iter()
                    .zip(idx)
                    .zip(bases)
                    .map(|((c, i), b)| (*i as i64, *c, *b))
                    .collect();
                emit_multi(gl, mode, isize_, &ranges);
            })
        },
    )
}
