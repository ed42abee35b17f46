//! Buffer objects.

use std::ffi::c_void;

use mgpipe::calls;
use mgpipe::consts::*;
use mgpipe::Pipe;

use super::{gl_err, put, slice};
use crate::context::{
    with_gl, with_gl_dirty, Buffer, BufferMap, Gl, DIRTY_RESOURCES, DIRTY_UNIFORM_POINTS,
    DIRTY_VERTEX, MAX_UBO_BINDINGS,
};
use crate::runtime::BlockingCause;

/// The binding slot for a buffer target, or None (INVALID_ENUM).
pub(super) fn target_slot<'a>(gl: &'a mut Gl, target: u32) -> Option<&'a mut u32> {
    let s = &mut *gl.st;
    Some(match target {
        glow::ARRAY_BUFFER => &mut s.array_buffer,
        glow::ELEMENT_ARRAY_BUFFER => {
            let vao = s.vao;
            return s
                .vaos
                .get_mut(&vao)
                .and_then(|v| v.as_mut())
                .map(|v| &mut v.element_buffer);
        }
        glow::COPY_READ_BUFFER => &mut s.copy_read_buffer,
        glow::COPY_WRITE_BUFFER => &mut s.copy_write_buffer,
        glow::PIXEL_PACK_BUFFER => &mut s.pixel_pack_buffer,
        glow::PIXEL_UNPACK_BUFFER => &mut s.pixel_unpack_buffer,
        glow::UNIFORM_BUFFER => &mut s.uniform_buffer,
        glow::TEXTURE_BUFFER => &mut s.texture_buffer,
        glow::TRANSFORM_FEEDBACK_BUFFER => &mut s.transform_feedback_buffer,
        glow::DRAW_INDIRECT_BUFFER => &mut s.draw_indirect_buffer,
        glow::SHADER_STORAGE_BUFFER => &mut s.compute.shader_storage_buffer,
        glow::DISPATCH_INDIRECT_BUFFER => &mut s.compute.dispatch_indirect_buffer,
        glow::ATOMIC_COUNTER_BUFFER => &mut s.compute.atomic_counter_buffer,
        _ => return None,
    })
}

pub fn is_buffer_target(t: u32) -> bool {
    matches!(
        t,
        glow::ARRAY_BUFFER
            | glow::ELEMENT_ARRAY_BUFFER
            | glow::COPY_READ_BUFFER
            | glow::COPY_WRITE_BUFFER
            | glow::PIXEL_PACK_BUFFER
            | glow::PIXEL_UNPACK_BUFFER
            | glow::UNIFORM_BUFFER
            | glow::TEXTURE_BUFFER
            | glow::TRANSFORM_FEEDBACK_BUFFER
            | glow::DRAW_INDIRECT_BUFFER
            | glow::SHADER_STORAGE_BUFFER
            | glow::DISPATCH_INDIRECT_BUFFER
            | glow::ATOMIC_COUNTER_BUFFER
    )
}

/// The buffer name bound to `target` (0 if none); None = bad enum.
pub fn bound_buffer(gl: &mut Gl, target: u32) -> Option<u32> {
    target_slot(gl, target).map(|s| *s)
}

/// Make sure `name` exists as an object (created at first bind).
/// Err(INVALID_OPERATION) if the name was never generated (core profile).
/// The common case (0, or an object that exists) is inlined into every
/// bind.
#[inline]
pub fn ensure_buffer(gl: &mut Gl, name: u32) -> Result<(), u32> {
    if name == 0 || matches!(gl.sh.buffers.get(&name), Some(Some(_))) {
        return Ok(());
    }
    create_buffer_object(gl, name)
}

/// [`ensure_buffer`] for a name without an object yet.
fn create_buffer_object(gl: &mut Gl, name: u32) -> Result<(), u32> {
    match gl.sh.buffers.get(&name) {
        Some(Some(_)) => Ok(()),
        Some(None) => {
            let handle = gl.conn.alloc.resource.alloc();
            gl.conn.pipe.resource_create(
                &calls::ResourceCreate {
                    res: handle,
                    kind: RESOURCE_BUFFER,
                    gl_name: name,
                    ..Default::default()
                },
                &[],
            );
            gl.sh.buffers.insert(
                name,
                Some(Buffer {
                    handle,
                    size: 0,
                    usage: glow::STATIC_DRAW,
                    immutable: false,
                    storage_flags: 0,
                    map: None,
                }),
            );
            Ok(())
        }
        None => {
            if gl.st.is_core() {
                Err(glow::INVALID_OPERATION)
            } else {
                gl.sh.buffers.insert(name, None);
                create_buffer_object(gl, name)
            }
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGenBuffers(n: i32, out: *mut u32) {
    with_gl_dirty(DIRTY_VERTEX | DIRTY_RESOURCES, |gl| {
        if n < 0 {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        for i in 0..n as usize {
            let name = loop {
                let c = gl.sh.new_name();
                if !gl.sh.buffers.contains_key(&c) {
                    break c;
                }
            };
            gl.sh.buffers.insert(name, None);
            // SAFETY: GL promises `n` writable names at `out`.
            unsafe { put(out.add(i), name) };
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glCreateBuffers(n: i32, out: *mut u32) {
    with_gl_dirty(DIRTY_VERTEX | DIRTY_RESOURCES, |gl| {
        if n < 0 {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        for i in 0..n as usize {
            let name = loop {
                let c = gl.sh.new_name();
                if !gl.sh.buffers.contains_key(&c) {
                    break c;
                }
            };
            gl.sh.buffers.insert(name, None);
            let _ = ensure_buffer(gl, name);
            // SAFETY: GL promises `n` writable names at `out`.
            unsafe { put(out.add(i), name) };
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glDeleteBuffers(n: i32, names: *const u32) {
    // SAFETY: GL promises `n` names.
    let names = unsafe { slice(names, n) }.to_vec();
    with_gl_dirty(DIRTY_VERTEX | DIRTY_RESOURCES, |gl| {
        if n < 0 {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        for name in names {
            if name == 0 {
                continue;
            }
            let Some(entry) = gl.sh.buffers.remove(&name) else {
                continue;
            };
            // Unbind from this context's binding points.
            let s = &mut *gl.st;
            for b in [
                &mut s.array_buffer,
                &mut s.copy_read_buffer,
                &mut s.copy_write_buffer,
                &mut s.pixel_pack_buffer,
                &mut s.pixel_unpack_buffer,
                &mut s.uniform_buffer,
                &mut s.texture_buffer,
                &mut s.transform_feedback_buffer,
                &mut s.draw_indirect_buffer,
            ] {
                if *b == name {
                    *b = 0;
                }
            }
            for ib in s
                .uniform_bindings
                .iter_mut()
                .chain(s.xfb.bindings.iter_mut())
            {
                if ib.buffer == name {
                    *ib = Default::default();
                }
            }
            s.compute.unbind_buffer(name);
            if let Some(Some(vao)) = s.vaos.get_mut(&s.vao) {
                vao.rev += 1;
                if vao.element_buffer == name {
                    vao.element_buffer = 0;
                }
                for b in vao.bindings.iter_mut() {
                    if b.buffer == name {
                        b.buffer = 0;
                    }
                }
                for a in vao.ff.iter_mut() {
                    if a.buffer == name {
                        a.buffer = 0;
                    }
                }
            }
            // Any VAO may still name the buffer: forget derived emissions.
            gl.st.vao_emission.clear();
            if let Some(buf) = entry {
                if buf.map.as_ref().is_some_and(|m| m.persistent.is_some()) {
                    crate::gl::persistent::end(gl, name, buf.handle);
                }
                gl.conn
                    .pipe
                    .resource_destroy(&calls::ResourceDestroy { res: buf.handle });
                gl.conn.alloc.resource.free(buf.handle);
            }
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glIsBuffer(name: u32) -> u8 {
    with_gl_dirty(DIRTY_VERTEX | DIRTY_RESOURCES, |gl| {
        matches!(gl.sh.buffers.get(&name), Some(Some(_))) as u8
    })
}

#[no_mangle]
pub unsafe extern "C" fn glBindBuffer(target: u32, name: u32) {
    // Of the binding points only the VAO's element buffer feeds a draw
    // (vertex buffers are captured by glVertexAttribPointer, uniform blocks
    // read the indexed bindings): nothing else marks state dirty, so a
    // frame that re-binds buffers between draws re-derives nothing.
    with_gl(|gl| {
        if !is_buffer_target(target) {
            gl_err!(gl, glow::INVALID_ENUM);
        }
        if let Err(e) = ensure_buffer(gl, name) {
            gl_err!(gl, e);
        }
        let changed = match target_slot(gl, target) {
            Some(slot) => std::mem::replace(slot, name) != name,
            None => gl_err!(gl, glow::INVALID_OPERATION),
        };
        if target == glow::ELEMENT_ARRAY_BUFFER && changed {
            // The VAO's layout is unchanged (its emission stays cached);
            // only the index buffer record is re-derived.
            gl.st.dirty |= DIRTY_VERTEX;
        }
    })
}

pub(super) fn bind_range(
    gl: &mut Gl,
    target: u32,
    index: u32,
    name: u32,
    offset: i64,
    size: i64,
    ranged: bool,
) {
    match target {
        glow::UNIFORM_BUFFER => {
            if index as usize >= MAX_UBO_BINDINGS {
                gl_err!(gl, glow::INVALID_VALUE);
            }
        }
        glow::TRANSFORM_FEEDBACK_BUFFER => {
            if index as usize >= super::xfb::MAX_XFB_BUFFERS {
                gl_err!(gl, glow::INVALID_VALUE);
            }
            // GL 4.6 §13.3.2: offset and size multiples of 4.
            if ranged && name != 0 && (offset & 3 != 0 || size & 3 != 0) {
                gl_err!(gl, glow::INVALID_VALUE);
            }
            // The bindings of active transform feedback are fixed.
            if gl.st.xfb.active {
                gl_err!(gl, glow::INVALID_OPERATION);
            }
        }
        glow::SHADER_STORAGE_BUFFER | glow::ATOMIC_COUNTER_BUFFER => {}
        _ => gl_err!(gl, glow::INVALID_ENUM),
    }
    if ranged && name != 0 {
        if size <= 0 || offset < 0 {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        if target == glow::UNIFORM_BUFFER
            && !mgpipe::align::is_multiple(
                offset as u64,
                u64::from(gl.conn.caps.uniform_buffer_offset_alignment),
            )
        {
            gl_err!(gl, glow::INVALID_VALUE);
        }
    }
    if let Err(e) = ensure_buffer(gl, name) {
        gl_err!(gl, e);
    }
    if matches!(
        target,
        glow::SHADER_STORAGE_BUFFER | glow::ATOMIC_COUNTER_BUFFER
    ) {
        if let Err(e) = super::compute::bind_point(gl, target, index, name, offset, size, ranged) {
            gl.st.set_error(e);
        }
        return;
    }
    if target == glow::UNIFORM_BUFFER {
        gl.st.uniform_buffer = name;
        gl.st.uniform_bindings[index as usize] = crate::context::IndexedBuffer {
            buffer: name,
            offset: if ranged { offset as u64 } else { 0 },
            size: if ranged { size as u64 } else { 0 },
        };
        // Only this point: the next draw re-resolves the blocks reading it.
        gl.st.dirty |= DIRTY_UNIFORM_POINTS;
        gl.st.uniform_points_dirty |= 1 << index;
    } else {
        gl.st.transform_feedback_buffer = name;
        gl.st.xfb.bindings[index as usize] = crate::context::IndexedBuffer {
            buffer: name,
            offset: if ranged { offset as u64 } else { 0 },
            size: if ranged { size as u64 } else { 0 },
        };
    }
}

#[no_mangle]
pub unsafe extern "C" fn glBindBufferBase(target: u32, index: u32, name: u32) {
    // Indexed bindings feed uniform blocks; bind_range marks the point.
    with_gl(|gl| bind_range(gl, target, index, name, 0, 0, false))
}

#[no_mangle]
pub unsafe extern "C" fn glBindBufferRange(
    target: u32,
    index: u32,
    name: u32,
    offset: isize,
    size: isize,
) {
    with_gl(|gl| bind_range(gl, target, index, name, offset as i64, size as i64, true))
}

fn valid_usage(u: u32) -> bool {
    matches!(
        u,
        glow::STREAM_DRAW
            | glow::STREAM_READ
            | glow::STREAM_COPY
            | glow::STATIC_DRAW
            | glow::STATIC_READ
            | glow::STATIC_COPY
            | glow::DYNAMIC_DRAW
            | glow::DYNAMIC_READ
            | glow::DYNAMIC_COPY
    )
}

/// The buffer bound to `target`, checked: Err = the GL error to raise.
pub(super) fn bound_object(gl: &mut Gl, target: u32) -> Result<u32, u32> {
    if !is_buffer_target(target) {
        return Err(glow::INVALID_ENUM);
    }
    match bound_buffer(gl, target) {
        Some(0) | None => Err(glow::INVALID_OPERATION),
        Some(n) => Ok(n),
    }
}

/// Which buffer a call acts on: the one bound to a target (the classic
/// entry points) or a named one (ARB_direct_state_access).
#[derive(Clone, Copy)]
pub(crate) enum BufSel {
    Bound(u32),
    Named(u32),
}

/// Resolve `sel` to an existing buffer object: Err = the GL error (a DSA
/// name that is not an existing buffer object is INVALID_OPERATION).
pub(crate) fn resolve(gl: &mut Gl, sel: BufSel) -> Result<u32, u32> {
    match sel {
        BufSel::Bound(t) => bound_object(gl, t),
        BufSel::Named(n) => match gl.sh.buffers.get(&n) {
            Some(Some(_)) if n != 0 => Ok(n),
            _ => Err(glow::INVALID_OPERATION),
        },
    }
}

/// The application's `size` bytes at `data` (empty for null, a negative
/// size or one past i32: the caller raises the error).
///
/// # Safety
/// When `data` is non-null it must point to `size` readable bytes.
unsafe fn data_bytes<'a>(data: *const c_void, size: isize) -> &'a [u8] {
    let n = if size > 0 && size <= i32::MAX as isize {
        size as i32
    } else {
        0
    };
    // SAFETY: the caller's promise, for `n` <= `size` bytes.
    unsafe { slice(data as *const u8, n) }
}

#[no_mangle]
pub unsafe extern "C" fn glBufferData(target: u32, size: isize, data: *const c_void, usage: u32) {
    // SAFETY: GL promises `size` readable bytes when data is non-null.
    let bytes = unsafe { data_bytes(data, size) };
    with_gl_dirty(DIRTY_VERTEX | DIRTY_RESOURCES, |gl| {
        buffer_data(gl, BufSel::Bound(target), size, bytes, usage)
    })
}

/// glBufferData / glNamedBufferData.
pub(crate) fn buffer_data(gl: &mut Gl, sel: BufSel, size: isize, bytes: &[u8], usage: u32) {
    if size < 0 {
        gl_err!(gl, glow::INVALID_VALUE);
    }
    if !valid_usage(usage) {
        gl_err!(gl, glow::INVALID_ENUM);
    }
    let name = match resolve(gl, sel) {
        Ok(n) => n,
        Err(e) => gl_err!(gl, e),
    };
    // Storage that active transform feedback writes stays put (the
    // backend's driver refuses to respecify it, GLES 3.2 §13.3).
    if super::xfb::buffer_busy(gl, name) {
        gl_err!(gl, glow::INVALID_OPERATION);
    }
    if size > i32::MAX as isize {
        gl_err!(gl, glow::OUT_OF_MEMORY);
    }
    specify_storage(gl, name, size as u64, usage, None, bytes);
}

/// New storage for buffer `name` (glBufferData, or glBufferStorage with
/// `storage` flags, which makes it immutable): INVALID_OPERATION when the
/// buffer is immutable already. The backend keeps ordinary storage either
/// way: under tier T2 the client owns persistent maps.
fn specify_storage(
    gl: &mut Gl,
    name: u32,
    size: u64,
    usage: u32,
    storage: Option<u32>,
    bytes: &[u8],
) {
    let Some(Some(buf)) = gl.sh.buffers.get_mut(&name) else {
        gl_err!(gl, glow::INVALID_OPERATION)
    };
    if buf.immutable {
        gl_err!(gl, glow::INVALID_OPERATION);
    }
    buf.size = size;
    buf.usage = usage;
    if let Some(flags) = storage {
        buf.immutable = true;
        buf.storage_flags = flags;
    }
    buf.map = None;
    let handle = buf.handle;
    // Contents larger than one record's blob: the storage is made with
    // undefined contents (empty blob) and filled by the subdata records
    // that follow, in stream order.
    let split = bytes.len() > gl.conn.max_blob;
    gl.conn.pipe.buffer_respecify(
        &calls::BufferRespecify {
            res: handle,
            size,
            usage,
            ..Default::default()
        },
        if split { &[] } else { bytes },
    );
    if split {
        send_subdata(gl, handle, 0, bytes);
    }
}

/// Call `f(first_row, rows)` for consecutive bands of whole rows covering
/// `total_rows` rows of `row_bytes` bytes, each band at most `max_blob`
/// bytes. A band holds at least one row, so a single row larger than
/// `max_blob` travels alone (upload rows are at most a few hundred KiB).
/// Every upload split (buffer bytes: rows of one byte; texture rows and
/// slices) goes through here.
pub(crate) fn for_each_band(
    total_rows: usize,
    row_bytes: usize,
    max_blob: usize,
    mut f: impl FnMut(usize, usize),
) {
    let per_band = (max_blob / row_bytes.max(1)).max(1);
    let mut first = 0;
    while first < total_rows {
        let rows = per_band.min(total_rows - first);
        f(first, rows);
        first += rows;
    }
}

/// `buffer_subdata` of `bytes` at `offset`, as several records when the
/// bytes are larger than one record's blob may be (the STAGE ring of the
/// ring transports bounds it; see `Conn::max_blob`).
pub(crate) fn send_subdata(gl: &mut Gl, res: mgpipe::Handle, offset: u64, bytes: &[u8]) {
    let max_blob = gl.conn.max_blob;
    for_each_band(bytes.len(), 1, max_blob, |first, n| {
        let Some(chunk) = bytes.get(first..first + n) else {
            return;
        };
        gl.conn.pipe.buffer_subdata(
            &calls::BufferSubdata {
                res,
                offset: offset + first as u64,
            },
            chunk,
        );
    });
}

/// Storage flags ARB_buffer_storage defines.
const STORAGE_FLAGS: u32 = glow::MAP_READ_BIT
    | glow::MAP_WRITE_BIT
    | glow::MAP_PERSISTENT_BIT
    | glow::MAP_COHERENT_BIT
    | glow::DYNAMIC_STORAGE_BIT
    | glow::CLIENT_STORAGE_BIT;

#[no_mangle]
pub unsafe extern "C" fn glBufferStorage(
    target: u32,
    size: isize,
    data: *const c_void,
    flags: u32,
) {
    // SAFETY: GL promises `size` readable bytes when data is non-null.
    let bytes = unsafe { data_bytes(data, size) };
    with_gl_dirty(DIRTY_VERTEX | DIRTY_RESOURCES, |gl| {
        buffer_storage(gl, BufSel::Bound(target), size, bytes, flags)
    })
}

/// glBufferStorage / glNamedBufferStorage.
pub(crate) fn buffer_storage(gl: &mut Gl, sel: BufSel, size: isize, bytes: &[u8], flags: u32) {
    {
        let name = match resolve(gl, sel) {
            Ok(n) => n,
            Err(e) => gl_err!(gl, e),
        };
        if size <= 0
            || flags & !STORAGE_FLAGS != 0
            || (flags & glow::MAP_PERSISTENT_BIT != 0
                && flags & (glow::MAP_READ_BIT | glow::MAP_WRITE_BIT) == 0)
            || (flags & glow::MAP_COHERENT_BIT != 0 && flags & glow::MAP_PERSISTENT_BIT == 0)
        {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        if size > i32::MAX as isize {
            gl_err!(gl, glow::OUT_OF_MEMORY);
        }
        specify_storage(
            gl,
            name,
            size as u64,
            glow::DYNAMIC_DRAW,
            Some(flags),
            bytes,
        );
    }
}

#[no_mangle]
pub unsafe extern "C" fn glBufferSubData(
    target: u32,
    offset: isize,
    size: isize,
    data: *const c_void,
) {
    // SAFETY: GL promises `size` readable bytes.
    let bytes = unsafe { data_bytes(data, size) };
    with_gl_dirty(DIRTY_VERTEX | DIRTY_RESOURCES, |gl| {
        buffer_sub_data(gl, BufSel::Bound(target), offset, size, bytes)
    })
}

/// glBufferSubData / glNamedBufferSubData.
pub(crate) fn buffer_sub_data(gl: &mut Gl, sel: BufSel, offset: isize, size: isize, bytes: &[u8]) {
    {
        let name = match resolve(gl, sel) {
            Ok(n) => n,
            Err(e) => gl_err!(gl, e),
        };
        let Some(Some(buf)) = gl.sh.buffers.get(&name) else {
            gl_err!(gl, glow::INVALID_OPERATION)
        };
        if offset < 0 || size < 0 || (offset as u64).saturating_add(size as u64) > buf.size {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        if buf.map.as_ref().is_some_and(|m| m.persistent.is_none())
            || (buf.immutable && buf.storage_flags & glow::DYNAMIC_STORAGE_BIT == 0)
        {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        if size == 0 || bytes.is_empty() {
            return;
        }
        let handle = buf.handle;
        let mapped = buf.map.is_some();
        send_subdata(gl, handle, offset as u64, bytes);
        if mapped {
            // A persistent map shows the new contents too.
            crate::gl::persistent::write_back(gl, handle, offset as u64, bytes);
        }
    }
}

/// Read back a range of a buffer (a blocking point), in chunks no larger
/// than one reply.
pub fn read_buffer(
    gl: &mut Gl,
    handle: mgpipe::Handle,
    offset: u64,
    size: u64,
    cause: BlockingCause,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(size as usize);
    let chunk = gl.conn.max_reply as u64;
    let mut done = 0u64;
    let mut reply = Vec::new();
    while done < size {
        let n = (size - done).min(chunk);
        reply.clear();
        gl.conn.blocking(cause);
        gl.conn.pipe.buffer_readback(
            &calls::BufferReadback {
                res: handle,
                offset: offset + done,
                size: n,
            },
            &mut reply,
        );
        // A lost link answers short: the missing bytes read as zero.
        reply.resize(n as usize, 0);
        out.extend_from_slice(&reply);
        done += n;
    }
    out
}

#[no_mangle]
pub unsafe extern "C" fn glGetBufferSubData(
    target: u32,
    offset: isize,
    size: isize,
    data: *mut c_void,
) {
    let out = with_gl_dirty(DIRTY_VERTEX | DIRTY_RESOURCES, |gl| {
        get_buffer_sub_data(gl, BufSel::Bound(target), offset, size)
    });
    // SAFETY: GL promises `size` writable bytes at `data`.
    unsafe { write_out(out, data) };
}

/// Copy read-back bytes to the application's pointer (nothing for None
/// or a null pointer).
///
/// # Safety
/// `data` is null or valid for `bytes.len()` writes.
pub(crate) unsafe fn write_out(out: Option<Vec<u8>>, data: *mut c_void) {
    if let Some(bytes) = out {
        if !data.is_null() {
            // SAFETY: the caller's promise.
            unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), data as *mut u8, bytes.len()) };
        }
    }
}

/// glGetBufferSubData / glGetNamedBufferSubData: the bytes, None on error.
pub(crate) fn get_buffer_sub_data(
    gl: &mut Gl,
    sel: BufSel,
    offset: isize,
    size: isize,
) -> Option<Vec<u8>> {
    {
        let name = match resolve(gl, sel) {
            Ok(n) => n,
            Err(e) => {
                gl.st.set_error(e);
                return None;
            }
        };
        let Some(Some(buf)) = gl.sh.buffers.get(&name) else {
            return None;
        };
        if offset < 0 || size < 0 || (offset as u64).saturating_add(size as u64) > buf.size {
            gl.st.set_error(glow::INVALID_VALUE);
            return None;
        }
        if buf.map.is_some() {
            gl.st.set_error(glow::INVALID_OPERATION);
            return None;
        }
        let h = buf.handle;
        Some(read_buffer(
            gl,
            h,
            offset as u64,
            size as u64,
            BlockingCause::BufferRead,
        ))
    }
}

pub(crate) fn map_range(
    gl: &mut Gl,
    sel: BufSel,
    offset: i64,
    length: i64,
    access: u32,
) -> *mut c_void {
    let name = match resolve(gl, sel) {
        Ok(n) => n,
        Err(e) => {
            gl.st.set_error(e);
            return std::ptr::null_mut();
        }
    };
    // A buffer active transform feedback writes cannot be mapped.
    if super::xfb::buffer_busy(gl, name) {
        gl.st.set_error(glow::INVALID_OPERATION);
        return std::ptr::null_mut();
    }
    let Some(Some(buf)) = gl.sh.buffers.get(&name) else {
        return std::ptr::null_mut();
    };
    let rw = access & (glow::MAP_READ_BIT | glow::MAP_WRITE_BIT);
    let valid_bits = glow::MAP_READ_BIT
        | glow::MAP_WRITE_BIT
        | glow::MAP_INVALIDATE_RANGE_BIT
        | glow::MAP_INVALIDATE_BUFFER_BIT
        | glow::MAP_FLUSH_EXPLICIT_BIT
        | glow::MAP_UNSYNCHRONIZED_BIT
        | glow::MAP_PERSISTENT_BIT
        | glow::MAP_COHERENT_BIT;
    if offset < 0
        || length <= 0
        || (offset as u64).saturating_add(length as u64) > buf.size
        || access & !valid_bits != 0
    {
        gl.st.set_error(glow::INVALID_VALUE);
        return std::ptr::null_mut();
    }
    // Immutable storage maps only with the access its flags allow; a
    // persistent map needs immutable storage made for it.
    let allowed = if buf.immutable {
        buf.storage_flags
    } else {
        glow::MAP_READ_BIT | glow::MAP_WRITE_BIT
    };
    let needs_flags = access
        & (glow::MAP_READ_BIT
            | glow::MAP_WRITE_BIT
            | glow::MAP_PERSISTENT_BIT
            | glow::MAP_COHERENT_BIT);
    if rw == 0
        || buf.map.is_some()
        || needs_flags & !allowed != 0
        || (access & glow::MAP_READ_BIT != 0
            && access
                & (glow::MAP_INVALIDATE_RANGE_BIT
                    | glow::MAP_INVALIDATE_BUFFER_BIT
                    | glow::MAP_UNSYNCHRONIZED_BIT)
                != 0)
        || (access & glow::MAP_FLUSH_EXPLICIT_BIT != 0 && access & glow::MAP_WRITE_BIT == 0)
    {
        gl.st.set_error(glow::INVALID_OPERATION);
        return std::ptr::null_mut();
    }
    let handle = buf.handle;
    let invalidate =
        access & (glow::MAP_INVALIDATE_RANGE_BIT | glow::MAP_INVALIDATE_BUFFER_BIT) != 0;
    // Reading, or writing part of a range whose old bytes must survive, needs
    // the current contents: a blocking point.
    let data = if invalidate {
        vec![0u8; length as usize]
    } else {
        read_buffer(
            gl,
            handle,
            offset as u64,
            length as u64,
            BlockingCause::BufferRead,
        )
    };
    let Some(Some(buf)) = gl.sh.buffers.get_mut(&name) else {
        return std::ptr::null_mut();
    };
    buf.map = Some(BufferMap {
        offset: offset as u64,
        length: length as u64,
        access,
        data,
        persistent: None,
    });
    if access & glow::MAP_PERSISTENT_BIT != 0 {
        crate::gl::persistent::begin(gl, name);
    }
    // The bytes live in the map's Vec, which never reallocates while the
    // map lives (nothing resizes it), so the pointer stays valid.
    match gl.sh.buffers.get_mut(&name) {
        Some(Some(b)) => b
            .map
            .as_mut()
            .map(|m| m.data.as_mut_ptr() as *mut c_void)
            .unwrap_or(std::ptr::null_mut()),
        _ => std::ptr::null_mut(),
    }
}

#[no_mangle]
pub unsafe extern "C" fn glMapBufferRange(
    target: u32,
    offset: isize,
    length: isize,
    access: u32,
) -> *mut c_void {
    with_gl_dirty(DIRTY_VERTEX | DIRTY_RESOURCES, |gl| {
        Ptr(map_range(
            gl,
            BufSel::Bound(target),
            offset as i64,
            length as i64,
            access,
        ))
    })
    .0
}

/// A raw pointer that defaults to null (for `with_gl`).
pub(crate) struct Ptr(pub(crate) *mut c_void);
impl Default for Ptr {
    fn default() -> Self {
        Ptr(std::ptr::null_mut())
    }
}

#[no_mangle]
pub unsafe extern "C" fn glMapBuffer(target: u32, access: u32) -> *mut c_void {
    with_gl_dirty(DIRTY_VERTEX | DIRTY_RESOURCES, |gl| {
        map_buffer(gl, BufSel::Bound(target), access)
    })
    .0
}

/// glMapBuffer / glMapNamedBuffer.
pub(crate) fn map_buffer(gl: &mut Gl, sel: BufSel, access: u32) -> Ptr {
    {
        let bits = match access {
            glow::READ_ONLY => glow::MAP_READ_BIT,
            glow::WRITE_ONLY => glow::MAP_WRITE_BIT,
            glow::READ_WRITE => glow::MAP_READ_BIT | glow::MAP_WRITE_BIT,
            _ => {
                gl.st.set_error(glow::INVALID_ENUM);
                return Ptr::default();
            }
        };
        let size = match resolve(gl, sel) {
            Ok(n) => match gl.sh.buffers.get(&n) {
                Some(Some(b)) => b.size,
                _ => 0,
            },
            Err(e) => {
                gl.st.set_error(e);
                return Ptr::default();
            }
        };
        if size == 0 {
            gl.st.set_error(glow::OUT_OF_MEMORY);
            return Ptr::default();
        }
        Ptr(map_range(gl, sel, 0, size as i64, bits))
    }
}

#[no_mangle]
pub unsafe extern "C" fn glUnmapBuffer(target: u32) -> u8 {
    with_gl_dirty(DIRTY_VERTEX | DIRTY_RESOURCES, |gl| {
        unmap(gl, BufSel::Bound(target))
    })
}

/// glUnmapBuffer / glUnmapNamedBuffer.
pub(crate) fn unmap(gl: &mut Gl, sel: BufSel) -> u8 {
    {
        let name = match resolve(gl, sel) {
            Ok(n) => n,
            Err(e) => {
                gl.st.set_error(e);
                return 0;
            }
        };
        let Some(Some(buf)) = gl.sh.buffers.get_mut(&name) else {
            return 0;
        };
        let Some(map) = buf.map.take() else {
            gl.st.set_error(glow::INVALID_OPERATION);
            return 0;
        };
        let handle = buf.handle;
        if map.persistent.is_some() {
            crate::gl::persistent::end(gl, name, handle);
        }
        if map.access & glow::MAP_WRITE_BIT != 0 && map.access & glow::MAP_FLUSH_EXPLICIT_BIT == 0 {
            send_subdata(gl, handle, map.offset, &map.data);
        }
        1
    }
}

#[no_mangle]
pub unsafe extern "C" fn glFlushMappedBufferRange(target: u32, offset: isize, length: isize) {
    with_gl_dirty(DIRTY_VERTEX | DIRTY_RESOURCES, |gl| {
        flush_mapped(gl, BufSel::Bound(target), offset, length)
    })
}

/// glFlushMappedBufferRange / glFlushMappedNamedBufferRange.
pub(crate) fn flush_mapped(gl: &mut Gl, sel: BufSel, offset: isize, length: isize) {
    {
        let name = match resolve(gl, sel) {
            Ok(n) => n,
            Err(e) => gl_err!(gl, e),
        };
        let Some(Some(buf)) = gl.sh.buffers.get(&name) else {
            return;
        };
        let Some(map) = &buf.map else {
            gl_err!(gl, glow::INVALID_OPERATION)
        };
        if map.access & glow::MAP_FLUSH_EXPLICIT_BIT == 0 {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        if offset < 0 || length < 0 || (offset as u64).saturating_add(length as u64) > map.length {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        let (o, l) = (offset as usize, length as usize);
        let Some(bytes) = map.data.get(o..o + l).map(<[u8]>::to_vec) else {
            return;
        };
        let handle = buf.handle;
        let at = map.offset + o as u64;
        send_subdata(gl, handle, at, &bytes);
    }
}

#[no_mangle]
pub unsafe extern "C" fn glCopyBufferSubData(
    read_target: u32,
    write_target: u32,
    read_offset: isize,
    write_offset: isize,
    size: isize,
) {
    with_gl_dirty(DIRTY_VERTEX | DIRTY_RESOURCES, |gl| {
        copy_sub_data(
            gl,
            BufSel::Bound(read_target),
            BufSel::Bound(write_target),
            read_offset,
            write_offset,
            size,
        )
    })
}

/// glCopyBufferSubData / glCopyNamedBufferSubData.
pub(crate) fn copy_sub_data(
    gl: &mut Gl,
    read: BufSel,
    write: BufSel,
    read_offset: isize,
    write_offset: isize,
    size: isize,
) {
    {
        let (r, w) = match (resolve(gl, read), resolve(gl, write)) {
            (Ok(r), Ok(w)) => (r, w),
            (Err(e), _) | (_, Err(e)) => gl_err!(gl, e),
        };
        let (Some(Some(rb)), Some(Some(wb))) = (gl.sh.buffers.get(&r), gl.sh.buffers.get(&w))
        else {
            return;
        };
        if read_offset < 0
            || write_offset < 0
            || size < 0
            || read_offset as u64 + size as u64 > rb.size
            || write_offset as u64 + size as u64 > wb.size
        {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        if r == w && (read_offset - write_offset).abs() < size {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        let not_persistent = |m: &Option<crate::context::BufferMap>| {
            m.as_ref().is_some_and(|m| m.persistent.is_none())
        };
        if not_persistent(&rb.map) || not_persistent(&wb.map) {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        let p = calls::BufferCopy {
            src: rb.handle,
            dst: wb.handle,
            src_offset: read_offset as u64,
            dst_offset: write_offset as u64,
            size: size as u64,
        };
        // A persistently mapped source: the copy reads the client's writes.
        crate::gl::persistent::push_if_mapped(gl, r);
        gl.conn.pipe.buffer_copy(&p);
    }
}

pub(crate) fn buffer_param(gl: &mut Gl, sel: BufSel, pname: u32) -> Option<i64> {
    let name = match resolve(gl, sel) {
        Ok(n) => n,
        Err(e) => {
            gl.st.set_error(e);
            return None;
        }
    };
    let Some(Some(buf)) = gl.sh.buffers.get(&name) else {
        return None;
    };
    Some(match pname {
        glow::BUFFER_SIZE => buf.size as i64,
        glow::BUFFER_USAGE => buf.usage as i64,
        glow::BUFFER_MAPPED => buf.map.is_some() as i64,
        glow::BUFFER_ACCESS => match buf.map.as_ref().map(|m| m.access & 3) {
            Some(1) => glow::READ_ONLY as i64,
            Some(2) => glow::WRITE_ONLY as i64,
            _ => glow::READ_WRITE as i64,
        },
        glow::BUFFER_ACCESS_FLAGS => buf.map.as_ref().map(|m| m.access as i64).unwrap_or(0),
        glow::BUFFER_MAP_OFFSET => buf.map.as_ref().map(|m| m.offset as i64).unwrap_or(0),
        glow::BUFFER_MAP_LENGTH => buf.map.as_ref().map(|m| m.length as i64).unwrap_or(0),
        glow::BUFFER_IMMUTABLE_STORAGE => buf.immutable as i64,
        glow::BUFFER_STORAGE_FLAGS => buf.storage_flags as i64,
        _ => {
            gl.st.set_error(glow::INVALID_ENUM);
            return None;
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glGetBufferParameteriv(target: u32, pname: u32, out: *mut i32) {
    if let Some(v) = with_gl_dirty(DIRTY_VERTEX | DIRTY_RESOURCES, |gl| {
        buffer_param(gl, BufSel::Bound(target), pname)
    }) {
        // SAFETY: GL promises one writable value.
        unsafe { put(out, v as i32) };
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetBufferParameteri64v(target: u32, pname: u32, out: *mut i64) {
    if let Some(v) = with_gl_dirty(DIRTY_VERTEX | DIRTY_RESOURCES, |gl| {
        buffer_param(gl, BufSel::Bound(target), pname)
    }) {
        // SAFETY: GL promises one writable value.
        unsafe { put(out, v) };
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetBufferPointerv(target: u32, pname: u32, out: *mut *mut c_void) {
    let p = with_gl_dirty(DIRTY_VERTEX | DIRTY_RESOURCES, |gl| {
        buffer_pointer(gl, BufSel::Bound(target), pname)
    });
    // SAFETY: GL promises one writable pointer.
    unsafe { put(out, p.0) };
}

/// glGetBufferPointerv / glGetNamedBufferPointerv.
pub(crate) fn buffer_pointer(gl: &mut Gl, sel: BufSel, pname: u32) -> Ptr {
    {
        if pname != glow::BUFFER_MAP_POINTER {
            gl.st.set_error(glow::INVALID_ENUM);
            return Ptr::default();
        }
        let name = match resolve(gl, sel) {
            Ok(n) => n,
            Err(e) => {
                gl.st.set_error(e);
                return Ptr::default();
            }
        };
        match gl.sh.buffers.get_mut(&name) {
            Some(Some(b)) => Ptr(b
                .map
                .as_mut()
                .map(|m| m.data.as_mut_ptr() as *mut c_void)
                .unwrap_or(std::ptr::null_mut())),
            _ => Ptr::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::for_each_band;

    fn bands(total: usize, row: usize, max: usize) -> Vec<(usize, usize)> {
        let mut v = Vec::new();
        for_each_band(total, row, max, |first, n| v.push((first, n)));
        v
    }

    #[test]
    fn byte_bands_below_at_and_above_the_limit() {
        let max = 16 << 20;
        assert_eq!(bands(max - 1, 1, max), [(0, max - 1)]);
        assert_eq!(bands(max, 1, max), [(0, max)]);
        assert_eq!(bands(max + 1, 1, max), [(0, max), (max, 1)]);
        assert_eq!(bands(2 * max, 1, max), [(0, max), (max, max)]);
        assert_eq!(bands(0, 1, max), []);
        // Monolith: no limit, one record.
        assert_eq!(bands(max * 8, 1, usize::MAX), [(0, max * 8)]);
    }

    #[test]
    fn row_bands_hold_whole_rows() {
        // 35 / 10: three rows a band.
        assert_eq!(bands(7, 10, 35), [(0, 3), (3, 3), (6, 1)]);
        assert_eq!(bands(6, 10, 30), [(0, 3), (3, 3)]);
        assert_eq!(bands(6, 10, 29), [(0, 2), (2, 2), (4, 2)]);
        // A row larger than the limit still travels, alone.
        assert_eq!(bands(3, 100, 35), [(0, 1), (1, 1), (2, 1)]);
        // Zero-byte rows never divide by zero.
        assert_eq!(bands(4, 0, 35), [(0, 4)]);
    }
}
