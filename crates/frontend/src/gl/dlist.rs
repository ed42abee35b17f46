//! Display lists (GL 4.6 compatibility §21.4): `glNewList`/`glEndList`
//! compile the commands in between into a list of closures,
//! `glCallList(s)` replays them.
//!
//! An entry point that may be compiled runs through [`with_gl_listed`]
//! (or [`with_gl_listed_with`] when its arguments point at client memory):
//! outside a list it runs at once, exactly as `with_gl` would; while a list
//! is compiled its arguments are captured by value (client memory copied
//! now, as the spec requires) into a closure pushed onto the list, which
//! also runs at once under GL_COMPILE_AND_EXECUTE. Errors of a compiled
//! command are raised when the list is executed, not when it is compiled.
//! Commands the spec executes immediately (glGen*, glBufferData, client
//! state, queries ...) keep plain `with_gl`; so does every listable command
//! not converted yet: `context::with_gl_inner` logs those once (by call
//! site) while a list is being compiled.
//!
//! Draws whose vertex arrays or indices are in client memory copy the
//! vertices they read and the indices at compile time ([`DrawCopy`]);
//! replaying swaps a snapshot of the vertex-array state (pointing at the
//! copies) into the bound VAO for the draw.
//!
//! Owns: the share group's lists (`Shared::lists`), the compile state and
//! the nesting depth of each context. Never touches: core contexts (every
//! display-list entry point answers GL_INVALID_OPERATION there).

use std::cell::Cell;
use std::collections::BTreeMap;
use std::sync::Arc;

use super::{gl_err, slice};
use crate::context::{
    with_gl, with_gl_inner, Gl, VertexArray, DIRTY_ALL, DIRTY_FRAMEBUFFER, DIRTY_RESOURCES,
    DIRTY_VERTEX,
};

pub const COMPILE: u32 = 0x1300;
pub const COMPILE_AND_EXECUTE: u32 = 0x1301;
pub const LIST_MODE: u32 = 0x0B30;
pub const MAX_LIST_NESTING: u32 = 0x0B31;
pub const LIST_BASE: u32 = 0x0B32;
pub const LIST_INDEX: u32 = 0x0B33;
/// GL_MAX_LIST_NESTING's value (the spec's minimum).
pub const NESTING: u32 = 64;

/// The most names one glGenLists reserves (beyond: GL_OUT_OF_MEMORY).
const MAX_GEN_RANGE: u64 = 1 << 22;

/// One compiled command.
pub struct Entry {
    /// The `DIRTY_*` groups the command's entry point marks.
    dirty: u32,
    run: Box<dyn Fn(&mut Gl) + Send + Sync>,
}

/// A compiled display list.
pub type List = Arc<[Entry]>;

/// The display lists of a share group, by name (a name reserved by
/// glGenLists holds an empty list).
#[derive(Default)]
pub struct Lists {
    pub lists: BTreeMap<u32, List>,
}

impl std::fmt::Debug for Lists {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lists")
            .field("names", &self.lists.len())
            .finish()
    }
}

/// The list being compiled.
pub struct Compiling {
    name: u32,
    mode: u32,
    entries: Vec<Entry>,
}

/// Per-context display-list state.
#[derive(Default)]
pub struct DlistState {
    pub compiling: Option<Compiling>,
    /// glCallList nesting depth of the list being executed.
    depth: u32,
    /// GL_LIST_BASE.
    pub base: u32,
}

impl std::fmt::Debug for DlistState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DlistState")
            .field("compiling", &self.compiling.as_ref().map(|c| c.name))
            .field("depth", &self.depth)
            .field("base", &self.base)
            .finish()
    }
}

/// Run a command that may be compiled into a display list: `f` holds its
/// arguments by value.
pub fn with_gl_listed<F>(name: &'static str, dirty: u32, f: F)
where
    F: Fn(&mut Gl) + Send + Sync + 'static,
{
    with_gl_inner(true, dirty, None, |gl| {
        if gl.st.dlist.compiling.is_some() {
            compile(gl, name, dirty, f);
        } else {
            f(gl);
        }
    })
}

/// [`with_gl_listed`] for a command whose arguments point at client
/// memory: `now` runs it outside a list; while compiling, `capture` copies
/// the arguments and returns the closure to record (None: nothing to
/// record, `capture` raised the command's compile-time error).
pub fn with_gl_listed_with<N, C, F>(name: &'static str, dirty: u32, now: N, capture: C)
where
    N: FnOnce(&mut Gl),
    C: FnOnce(&mut Gl) -> Option<F>,
    F: Fn(&mut Gl) + Send + Sync + 'static,
{
    with_gl_inner(true, dirty, None, |gl| {
        if gl.st.dlist.compiling.is_some() {
            if let Some(f) = capture(gl) {
                compile(gl, name, dirty, f);
            }
        } else {
            now(gl);
        }
    })
}

/// Record `f` in the list being compiled (and run it under
/// GL_COMPILE_AND_EXECUTE).
fn compile<F>(gl: &mut Gl, name: &'static str, dirty: u32, f: F)
where
    F: Fn(&mut Gl) + Send + Sync + 'static,
{
    let execute = gl
        .st
        .dlist
        .compiling
        .as_ref()
        .is_some_and(|c| c.mode == COMPILE_AND_EXECUTE);
    if execute {
        f(gl);
    }
    tracing::trace!("display list: compiled {name}");
    if let Some(c) = gl.st.dlist.compiling.as_mut() {
        c.entries.push(Entry {
            dirty,
            run: Box::new(f),
        });
    }
}

/// An entry point using plain `with_gl` ran while a list was compiled: it
/// executes immediately (what the spec asks of glGen*, queries, client
/// state ..., and the fallback of listable commands not converted yet).
/// Logged once per call site.
pub(crate) fn note_immediate(site: &'static std::panic::Location<'static>) {
    static SEEN: std::sync::OnceLock<
        parking_lot::Mutex<std::collections::HashSet<(&'static str, u32)>>,
    > = std::sync::OnceLock::new();
    let seen = SEEN.get_or_init(Default::default);
    if seen.lock().insert((site.file(), site.line())) {
        tracing::info!(
            "display list: the command at {}:{} is not compiled into display lists; executed immediately",
            site.file(),
            site.line()
        );
    }
}

/// Whether the current context compiles a list (GL_COMPILE or
/// GL_COMPILE_AND_EXECUTE).
pub fn compiling(gl: &Gl) -> bool {
    gl.st.dlist.compiling.is_some()
}

/// Execute list `name` (nothing for an unknown name or past the nesting
/// limit, GL 4.6 compat §21.4).
fn call_list(gl: &mut Gl, name: u32) {
    if gl.st.dlist.depth >= NESTING {
        return;
    }
    let Some(list) = gl.sh.lists.lists.get(&name).cloned() else {
        return;
    };
    gl.st.dlist.depth += 1;
    for e in list.iter() {
        let d = if e.dirty & DIRTY_FRAMEBUFFER != 0 {
            e.dirty | DIRTY_RESOURCES
        } else {
            e.dirty
        };
        gl.st.dirty |= d;
        (e.run)(gl);
    }
    gl.st.dlist.depth -= 1;
}

#[no_mangle]
pub unsafe extern "C" fn glNewList(list: u32, mode: u32) {
    with_gl(|gl| {
        if gl.st.is_core() {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        if list == 0 {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        if mode != COMPILE && mode != COMPILE_AND_EXECUTE {
            gl_err!(gl, glow::INVALID_ENUM);
        }
        if gl.st.dlist.compiling.is_some() || gl.st.ff.immediate.is_some() {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        gl.st.dlist.compiling = Some(Compiling {
            name: list,
            mode,
            entries: Vec::new(),
        });
    })
}

#[no_mangle]
pub unsafe extern "C" fn glEndList() {
    with_gl(|gl| {
        if gl.st.is_core() {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        let Some(c) = gl.st.dlist.compiling.take() else {
            gl_err!(gl, glow::INVALID_OPERATION);
        };
        gl.sh.lists.lists.insert(c.name, c.entries.into());
    })
}

#[no_mangle]
pub unsafe extern "C" fn glCallList(list: u32) {
    with_gl_listed("glCallList", DIRTY_ALL, move |gl| {
        if gl.st.is_core() {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        call_list(gl, list)
    })
}

/// The `n` list names of a glCallLists array of type `ty`, or the error.
///
/// # Safety
/// `lists` is null or points at `n` values of type `ty`.
unsafe fn list_names(n: i32, ty: u32, lists: *const std::ffi::c_void) -> Result<Vec<u32>, u32> {
    const BYTES_2: u32 = 0x1407;
    const BYTES_3: u32 = 0x1408;
    const BYTES_4: u32 = 0x1409;
    if n < 0 {
        return Err(glow::INVALID_VALUE);
    }
    let width = match ty {
        glow::BYTE | glow::UNSIGNED_BYTE => 1,
        glow::SHORT | glow::UNSIGNED_SHORT | BYTES_2 => 2,
        BYTES_3 => 3,
        glow::INT | glow::UNSIGNED_INT | glow::FLOAT | BYTES_4 => 4,
        _ => return Err(glow::INVALID_ENUM),
    };
    if lists.is_null() {
        return Ok(Vec::new());
    }
    // SAFETY: the application promises `n` values of `width` bytes.
    let bytes = unsafe { slice(lists.cast::<u8>(), n.saturating_mul(width)) };
    Ok(bytes
        .chunks_exact(width as usize)
        .map(|b| match ty {
            glow::BYTE => b[0] as i8 as i32 as u32,
            glow::UNSIGNED_BYTE => u32::from(b[0]),
            glow::SHORT => i16::from_ne_bytes([b[0], b[1]]) as i32 as u32,
            glow::UNSIGNED_SHORT => u32::from(u16::from_ne_bytes([b[0], b[1]])),
            glow::INT | glow::UNSIGNED_INT => u32::from_ne_bytes([b[0], b[1], b[2], b[3]]),
            glow::FLOAT => f32::from_ne_bytes([b[0], b[1], b[2], b[3]]) as i64 as u32,
            BYTES_2 => (u32::from(b[0]) << 8) | u32::from(b[1]),
            BYTES_3 => (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]),
            _ => u32::from_be_bytes([b[0], b[1], b[2], b[3]]),
        })
        .collect())
}

#[no_mangle]
pub unsafe extern "C" fn glCallLists(n: i32, ty: u32, lists: *const std::ffi::c_void) {
    // SAFETY: GL promises `n` values of type `ty` at `lists`.
    let names = unsafe { list_names(n, ty, lists) };
    with_gl_listed("glCallLists", DIRTY_ALL, move |gl| {
        if gl.st.is_core() {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        let names = match &names {
            Ok(v) => v,
            Err(e) => gl_err!(gl, *e),
        };
        // The base in effect when the command executes.
        let base = gl.st.dlist.base;
        for &l in names {
            call_list(gl, base.wrapping_add(l));
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glListBase(base: u32) {
    with_gl_listed("glListBase", 0, move |gl| {
        if gl.st.is_core() {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        gl.st.dlist.base = base;
    })
}

#[no_mangle]
pub unsafe extern "C" fn glGenLists(range: i32) -> u32 {
    with_gl(|gl| {
        if gl.st.is_core() {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        if range < 0 {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        if range == 0 {
            return 0;
        }
        let lists = &mut gl.sh.lists.lists;
        // The first run of `range` free names from 1.
        let range = range as u64;
        let mut first: u64 = 1;
        for &used in lists.keys() {
            let used = u64::from(used);
            if used < first {
                continue;
            }
            if used < first + range {
                first = used + 1;
            } else {
                break;
            }
        }
        // Each reserved name holds an (empty) list: a bound on one call.
        if first + range - 1 > u64::from(u32::MAX) || range > MAX_GEN_RANGE {
            gl_err!(gl, glow::OUT_OF_MEMORY);
        }
        let empty: List = Vec::new().into();
        for n in first..first + range {
            lists.insert(n as u32, empty.clone());
        }
        first as u32
    })
}

#[no_mangle]
pub unsafe extern "C" fn glDeleteLists(list: u32, range: i32) {
    with_gl(|gl| {
        if gl.st.is_core() {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        if range < 0 {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        let last = u64::from(list) + range as u64;
        let doomed: Vec<u32> = gl
            .sh
            .lists
            .lists
            .range(list..)
            .map(|(&n, _)| n)
            .take_while(|&n| u64::from(n) < last)
            .collect();
        for n in doomed {
            gl.sh.lists.lists.remove(&n);
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glIsList(list: u32) -> u8 {
    with_gl(|gl| {
        if gl.st.is_core() {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        u8::from(list != 0 && gl.sh.lists.lists.contains_key(&list))
    })
}

/// glGet* of the display-list state (compatibility contexts).
pub fn get(gl: &Gl, pname: u32) -> Option<Vec<i64>> {
    let d = &gl.st.dlist;
    Some(vec![match pname {
        LIST_INDEX => d.compiling.as_ref().map_or(0, |c| c.name).into(),
        LIST_MODE => d.compiling.as_ref().map_or(0, |c| c.mode).into(),
        LIST_BASE => d.base.into(),
        MAX_LIST_NESTING => NESTING.into(),
        _ => return None,
    }])
}

// ------------------------------------------------------------------ draws

/// Bytes one vertex of an array with `size` components of `ty` takes.
fn element_bytes(size: u32, ty: u32) -> u64 {
    match ty {
        glow::INT_2_10_10_10_REV
        | glow::UNSIGNED_INT_2_10_10_10_REV
        | glow::UNSIGNED_INT_10F_11F_11F_REV => 4,
        _ => {
            let comps = if size == glow::BGRA { 4 } else { size };
            u64::from(comps) * u64::from(super::validate::type_size(ty))
        }
    }
}

/// Copy vertices `lo..=hi` of a client array at `ptr` with `stride`;
/// returns the bytes and the pointer value that makes vertex `lo` land at
/// the start of the copy.
///
/// # Safety
/// The application promises the vertices are readable.
unsafe fn copy_vertices(ptr: u64, stride: u64, elem: u64, lo: u64, hi: u64) -> Option<Vec<u8>> {
    if ptr == 0 || hi < lo {
        return None;
    }
    let start = ptr.checked_add(lo.checked_mul(stride)?)?;
    let len = (hi - lo).checked_mul(stride)?.checked_add(elem)?;
    let len = i32::try_from(len).ok()?;
    // SAFETY: the caller promises the range is readable.
    Some(unsafe { slice(start as *const u8, len) }.to_vec())
}

/// The client-memory data a compiled draw reads, copied at compile time.
pub(crate) struct DrawCopy {
    /// The VAO state to draw with (client pointers moved to `data`).
    vao: VertexArray,
    /// Copied vertex data (kept alive for the pointers in `vao`).
    data: Vec<Vec<u8>>,
}

/// Which vertices a compiled draw reads: per vertex `lo..=hi` (None: no
/// per-vertex read, e.g. an empty draw), and the instances.
pub(crate) struct DrawRange {
    pub vertices: Option<(u64, u64)>,
    pub instances: u32,
    pub base_instance: u32,
}

/// The lowest and highest vertex `count` indices of `isize_` bytes read.
pub(crate) fn index_range(bytes: &[u8], isize_: u32, base_vertex: i32) -> Option<(u64, u64)> {
    let it = bytes
        .chunks_exact(isize_.max(1) as usize)
        .map(|b| match b.len() {
            1 => u32::from(b[0]),
            2 => u32::from(u16::from_ne_bytes([b[0], b[1]])),
            _ => u32::from_ne_bytes([b[0], b[1], b[2], b[3]]),
        })
        .map(|i| (i64::from(i) + i64::from(base_vertex)).max(0) as u64);
    let (mut lo, mut hi) = (u64::MAX, 0);
    for i in it {
        lo = lo.min(i);
        hi = hi.max(i);
    }
    (lo <= hi).then_some((lo, hi))
}

/// Snapshot the bound VAO for a compiled draw when it reads client memory
/// (None: every array is in a buffer object, the draw runs as compiled).
pub(crate) fn copy_client_arrays(gl: &Gl, r: &DrawRange, force: bool) -> Option<DrawCopy> {
    let Some(Some(vao)) = gl.st.vaos.get(&gl.st.vao) else {
        return None;
    };
    let client_ff = vao.ff.iter().any(|a| a.enabled && a.buffer == 0);
    let client_generic = vao
        .attribs
        .iter()
        .any(|a| a.enabled && vao.binding_of(a).buffer == 0);
    if !client_ff && !client_generic && !force {
        return None;
    }
    let mut snap = vao.clone();
    let mut data = Vec::new();
    for a in snap.ff.iter_mut() {
        if !a.enabled || a.buffer != 0 {
            continue;
        }
        let elem = element_bytes(a.size, a.ty);
        let stride = if a.stride == 0 {
            elem
        } else {
            u64::from(a.stride)
        };
        a.offset = match r.vertices {
            // SAFETY: the draw reads these vertices (the application
            // promises they are readable).
            Some((lo, hi)) => match unsafe { copy_vertices(a.offset, stride, elem, lo, hi) } {
                Some(bytes) => {
                    let p = (bytes.as_ptr() as u64).wrapping_sub(lo.wrapping_mul(stride));
                    data.push(bytes);
                    p
                }
                None => 0,
            },
            None => 0,
        };
    }
    let attribs = snap.attribs;
    let mut moved = [false; crate::context::MAX_ATTRIBS];
    for a in attribs.iter() {
        let bi = a.binding as usize;
        let Some(b) = snap.bindings.get(bi).copied() else {
            continue;
        };
        if !a.enabled || b.buffer != 0 || moved[bi] {
            continue;
        }
        // One copy per binding point, covering every attribute reading it.
        let elem = attribs
            .iter()
            .filter(|x| x.enabled && x.binding as usize == bi)
            .map(|x| u64::from(x.relative_offset) + element_bytes(x.size, x.ty))
            .max()
            .unwrap_or(0);
        let stride = if b.stride == 0 {
            elem
        } else {
            u64::from(b.stride)
        };
        let range = if b.divisor == 0 {
            r.vertices
        } else if r.instances == 0 {
            None
        } else {
            let lo = u64::from(r.base_instance);
            Some((lo, lo + u64::from((r.instances - 1) / b.divisor)))
        };
        let new = match range {
            // SAFETY: the draw reads these vertices.
            Some((lo, hi)) => match unsafe { copy_vertices(b.offset, stride, elem, lo, hi) } {
                Some(bytes) => {
                    let p = (bytes.as_ptr() as u64).wrapping_sub(lo.wrapping_mul(stride));
                    data.push(bytes);
                    p
                }
                None => 0,
            },
            None => 0,
        };
        snap.bindings[bi].offset = new;
        moved[bi] = true;
    }
    Some(DrawCopy { vao: snap, data })
}

/// Run `draw` with `copy`'s vertex-array state in place of the bound VAO's.
pub(crate) fn with_copy(gl: &mut Gl, copy: &Option<DrawCopy>, draw: impl FnOnce(&mut Gl)) {
    let Some(copy) = copy else {
        return draw(gl);
    };
    let _ = &copy.data;
    let vao_name = gl.st.vao;
    let saved = match gl.st.vaos.get_mut(&vao_name) {
        Some(Some(vao)) => {
            let mut snap = copy.vao.clone();
            snap.created = vao.created;
            snap.rev = vao.rev + 1;
            Some(std::mem::replace(vao, snap))
        }
        _ => None,
    };
    gl.st.dirty |= DIRTY_VERTEX;
    draw(gl);
    if let (Some(mut saved), Some(Some(vao))) = (saved, gl.st.vaos.get_mut(&vao_name)) {
        saved.rev = vao.rev + 1;
        *vao = saved;
    }
    gl.st.dirty |= DIRTY_VERTEX;
}

/// For the commands that raise GL_INVALID_OPERATION when called while a
/// list is compiled (glDispatchComputeIndirect ...): true when it did.
pub fn refuse_in_list(gl: &mut Gl) -> bool {
    if compiling(gl) {
        gl.st.set_error(glow::INVALID_OPERATION);
        return true;
    }
    false
}

/// A glTexImage* / glTexSubImage* entry point: `run` uploads from the
/// pointer it is given. In a list the image is unpacked now (the unpack
/// state and buffer of compile time) into tight bytes, which the replay
/// uploads under the default unpack state (alignment 1, no unpack buffer).
pub(crate) fn listed_image(
    name: &'static str,
    dirty: u32,
    [w, h, d]: [i32; 3],
    (target, format, ty, pixels): (u32, u32, u32, *const std::ffi::c_void),
    run: impl Fn(&mut Gl, *const std::ffi::c_void) + Send + Sync + 'static,
) {
    // Moved into whichever closure runs: no allocation outside a list.
    let slot = Cell::new(Some(run));
    with_gl_listed_with(
        name,
        dirty,
        |gl| {
            if let Some(run) = slot.take() {
                run(gl, pixels);
            }
        },
        |gl| {
            let keep = slot.take()?;
            // A proxy target's upload executes immediately (GL 4.6 compat
            // §21.4).
            if super::proxy_textures::is_proxy(target) {
                keep(gl, pixels);
                return None;
            }
            let bytes: Vec<u8> = match super::pixels::pixel_pair(format, ty) {
                Ok(bpp) if w > 0 && h > 0 && d > 0 => {
                    super::textures::image_source(gl, w as u32, h as u32, d as u32, bpp, ty, pixels)
                        .map(|c| c.into_owned())
                        .unwrap_or_default()
                }
                _ => Vec::new(),
            };
            Some(move |gl: &mut Gl| {
                let saved = (gl.st.unpack, gl.st.pixel_unpack_buffer);
                gl.st.unpack = crate::context::PixelStore {
                    alignment: 1,
                    ..Default::default()
                };
                gl.st.pixel_unpack_buffer = 0;
                let at = if bytes.is_empty() {
                    std::ptr::null()
                } else {
                    bytes.as_ptr().cast()
                };
                keep(gl, at);
                (gl.st.unpack, gl.st.pixel_unpack_buffer) = saved;
            })
        },
    )
}

/// ARB_draw_instanced: the instanced draws (by entry-point name) are not
/// compiled; called while a list is compiled they raise
/// GL_INVALID_OPERATION at once.
fn refuse_instanced(gl: &mut Gl, name: &str) -> bool {
    if name.contains("Instanced") {
        gl.st.set_error(glow::INVALID_OPERATION);
        return true;
    }
    false
}

/// A glDrawArrays* entry point: `run` draws; in a list the client arrays
/// it reads (`first..first + count`) are copied.
pub(crate) fn listed_arrays(
    name: &'static str,
    first: i32,
    count: i32,
    instances: i32,
    base_instance: u32,
    run: impl Fn(&mut Gl) + Send + Sync + 'static,
) {
    // Moved into whichever closure runs: no allocation outside a list.
    let slot = Cell::new(Some(run));
    with_gl_listed_with(
        name,
        0,
        |gl| {
            if let Some(run) = slot.take() {
                run(gl);
            }
        },
        |gl| {
            let keep = slot.take()?;
            if refuse_instanced(gl, name) {
                return None;
            }
            let r = DrawRange {
                vertices: (count > 0 && first >= 0)
                    .then(|| (first as u64, first as u64 + count as u64 - 1)),
                instances: instances.max(0) as u32,
                base_instance,
            };
            let copy = copy_client_arrays(gl, &r, false);
            Some(move |gl: &mut Gl| with_copy(gl, &copy, |gl| keep(gl)))
        },
    )
}

/// glMultiDrawArrays: [`listed_arrays`] over every sub-draw.
pub(crate) fn listed_multi_arrays(
    name: &'static str,
    firsts: &[i32],
    counts: &[i32],
    run: impl Fn(&mut Gl, &[i32], &[i32]) + Send + Sync + 'static,
) {
    // Moved into whichever closure runs: no allocation outside a list.
    let slot = Cell::new(Some(run));
    with_gl_listed_with(
        name,
        0,
        |gl| {
            if let Some(run) = slot.take() {
                run(gl, firsts, counts);
            }
        },
        |gl| {
            let keep = slot.take()?;
            let (f, c) = (firsts.to_vec(), counts.to_vec());
            let mut vertices: Option<(u64, u64)> = None;
            for (&first, &count) in f.iter().zip(&c) {
                if count > 0 && first >= 0 {
                    let (lo, hi) = (first as u64, first as u64 + count as u64 - 1);
                    vertices = Some(match vertices {
                        Some((a, b)) => (a.min(lo), b.max(hi)),
                        None => (lo, hi),
                    });
                }
            }
            let r = DrawRange {
                vertices,
                instances: 1,
                base_instance: 0,
            };
            let copy = copy_client_arrays(gl, &r, false);
            Some(move |gl: &mut Gl| with_copy(gl, &copy, |gl| keep(gl, &f, &c)))
        },
    )
}

/// A glDrawElements* entry point: `run` draws with the indices pointer (or
/// element-buffer offset) it is given. In a list, client-memory indices
/// are copied, and so are the vertices they read of client arrays.
#[allow(clippy::too_many_arguments)]
pub(crate) fn listed_elements(
    name: &'static str,
    count: i32,
    ty: u32,
    indices: *const std::ffi::c_void,
    base_vertex: i32,
    instances: i32,
    base_instance: u32,
    run: impl Fn(&mut Gl, usize) + Send + Sync + 'static,
) {
    let offset = indices as usize;
    // Moved into whichever closure runs: no allocation outside a list.
    let slot = Cell::new(Some(run));
    with_gl_listed_with(
        name,
        0,
        |gl| {
            if let Some(run) = slot.take() {
                run(gl, offset);
            }
        },
        |gl| {
            let keep = slot.take()?;
            if refuse_instanced(gl, name) {
                return None;
            }
            let isize_: u32 = match ty {
                glow::UNSIGNED_BYTE => 1,
                glow::UNSIGNED_SHORT => 2,
                glow::UNSIGNED_INT => 4,
                _ => 0,
            };
            let client = isize_ != 0
                && count > 0
                && offset != 0
                && !super::legacy_arrays::element_buffer_bound(gl);
            // SAFETY: the application promises `count` indices at `indices`.
            let idx: Vec<u8> = if client {
                unsafe { slice(offset as *const u8, count.saturating_mul(isize_ as i32)) }.to_vec()
            } else {
                Vec::new()
            };
            let copy = if client {
                let r = DrawRange {
                    vertices: index_range(&idx, isize_, base_vertex),
                    instances: instances.max(0) as u32,
                    base_instance,
                };
                copy_client_arrays(gl, &r, true)
            } else {
                None
            };
            Some(move |gl: &mut Gl| {
                let at = if client {
                    idx.as_ptr() as usize
                } else {
                    offset
                };
                with_copy(gl, &copy, |gl| keep(gl, at))
            })
        },
    )
}

/// glMultiDrawElements(BaseVertex): `run` draws with the counts, index
/// pointers (or element-buffer offsets) and base vertices (empty: none) it
/// is given; in a list client-memory indices and the vertices they read of
/// client arrays are copied.
pub(crate) fn listed_multi_elements(
    name: &'static str,
    counts: &[i32],
    ty: u32,
    indices: &[*const std::ffi::c_void],
    bases: &[i32],
    run: impl Fn(&mut Gl, &[i32], &[usize], &[i32]) + Send + Sync + 'static,
) {
    let offsets: Vec<usize> = indices.iter().map(|p| *p as usize).collect();
    // Moved into whichever closure runs: no allocation outside a list.
    let slot = Cell::new(Some(run));
    with_gl_listed_with(
        name,
        0,
        |gl| {
            if let Some(run) = slot.take() {
                run(gl, counts, &offsets, bases);
            }
        },
        |gl| {
            let keep = slot.take()?;
            let isize_: u32 = match ty {
                glow::UNSIGNED_BYTE => 1,
                glow::UNSIGNED_SHORT => 2,
                glow::UNSIGNED_INT => 4,
                _ => 0,
            };
            let (c, b) = (counts.to_vec(), bases.to_vec());
            let client = isize_ != 0 && !super::legacy_arrays::element_buffer_bound(gl);
            let mut copies: Vec<Vec<u8>> = Vec::new();
            let mut vertices: Option<(u64, u64)> = None;
            if client {
                for (k, (&n, &at)) in c.iter().zip(&offsets).enumerate() {
                    let bytes = if n > 0 && at != 0 {
                        // SAFETY: the application promises `n` indices at `at`.
                        unsafe { slice(at as *const u8, n.saturating_mul(isize_ as i32)) }.to_vec()
                    } else {
                        Vec::new()
                    };
                    let base = b.get(k).copied().unwrap_or(0);
                    if let Some((lo, hi)) = index_range(&bytes, isize_, base) {
                        vertices = Some(match vertices {
                            Some((a, z)) => (a.min(lo), z.max(hi)),
                            None => (lo, hi),
                        });
                    }
                    copies.push(bytes);
                }
            }
            let copy = if client {
                let r = DrawRange {
                    vertices,
                    instances: 1,
                    base_instance: 0,
                };
                copy_client_arrays(gl, &r, true)
            } else {
                None
            };
            let kept_offsets = offsets.clone();
            Some(move |gl: &mut Gl| {
                let at: Vec<usize> = if client {
                    copies
                        .iter()
                        .map(|v| if v.is_empty() { 0 } else { v.as_ptr() as usize })
                        .collect()
                } else {
                    kept_offsets.clone()
                };
                with_copy(gl, &copy, |gl| keep(gl, &c, &at, &b))
            })
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn call_lists_names_by_type() {
        let b: [u8; 4] = [1, 2, 3, 4];
        // SAFETY: four bytes.
        let v = unsafe { list_names(2, 0x1407, b.as_ptr().cast()) }.unwrap();
        assert_eq!(v, vec![0x0102, 0x0304]);
        // SAFETY: four bytes.
        let v = unsafe { list_names(1, 0x1409, b.as_ptr().cast()) }.unwrap();
        assert_eq!(v, vec![0x0102_0304]);
        let f: [f32; 2] = [3.0, 7.0];
        // SAFETY: two floats.
        let v = unsafe { list_names(2, glow::FLOAT, f.as_ptr().cast()) }.unwrap();
        assert_eq!(v, vec![3, 7]);
        // SAFETY: null is allowed.
        let e = unsafe { list_names(-1, glow::INT, std::ptr::null()) };
        assert_eq!(e, Err(glow::INVALID_VALUE));
        // SAFETY: null is allowed.
        let e = unsafe { list_names(1, glow::RGBA, std::ptr::null()) };
        assert_eq!(e, Err(glow::INVALID_ENUM));
    }

    #[test]
    fn index_range_spans_base_vertex() {
        let idx: [u16; 3] = [5, 2, 9];
        let bytes: &[u8] = bytemuck::cast_slice(&idx);
        assert_eq!(index_range(bytes, 2, 10), Some((12, 19)));
        assert_eq!(index_range(&[], 2, 0), None);
    }

    #[test]
    fn copied_vertices_start_at_lo() {
        let v: [f32; 8] = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0];
        // Vertices 1..=2 of a 2-float array.
        // SAFETY: in bounds of `v`.
        let c = unsafe { copy_vertices(v.as_ptr() as u64, 8, 8, 1, 2) }.unwrap();
        let f: &[f32] = bytemuck::cast_slice(&c);
        assert_eq!(f, &[2.0, 3.0, 4.0, 5.0]);
    }
}
