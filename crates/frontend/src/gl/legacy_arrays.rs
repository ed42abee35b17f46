//! Compatibility-profile vertex arrays (GL 4.6 compatibility §10.3–10.5):
//! the fixed-function arrays (vertex, normal, colour, secondary colour, fog
//! coordinate, texture coordinates 0–7, edge flag) of each VAO, the current
//! values a fixed-function input reads when its array is disabled, and
//! client-memory arrays.
//!
//! Drawing: a vertex shader's fixed-function inputs (`gl_Color` ...) are
//! real inputs at linker-chosen locations (`LinkedProgram::ff_inputs`).
//! When a program reads them, or a fixed-function or client-memory array
//! is enabled, `emit_vertex_input` leaves the vertex input to each draw
//! (`GlState::vertex_per_draw`), and [`emit_vertex_input_per_draw`] builds
//! it: generic attributes as the VAO says, the vertex array (when enabled)
//! at location 0, each fixed-function input from its array or its current
//! value; the vertices the draw reads of every client-memory array are
//! copied into a frontend-owned streaming buffer (re-specified per draw,
//! GL's orphaning), and the draw is shifted to start at the lowest vertex
//! it reads. Core contexts pay nothing: the flag is decided only when the
//! vertex state changes, and the legacy entry points refuse to run there
//! (GL_INVALID_OPERATION, as they are not part of the core profile).

use std::ffi::c_void;

use mgpipe::calls;
use mgpipe::consts::*;
use mgpipe::{Handle, Pipe};

use super::dlist::with_gl_listed;
use super::{gl_err, slice};
use crate::context::{with_gl, with_gl_dirty, FfArray, Gl, VertexArray, DIRTY_VERTEX, MAX_ATTRIBS};
use crate::shader::{
    FF_ARRAYS, FF_COLOR, FF_EDGE_FLAG, FF_FOG_COORD, FF_NORMAL, FF_SECONDARY_COLOR, FF_TEXCOORD0,
    FF_VERTEX,
};

/// Compatibility-profile enums `glow` does not carry (values from the GL
/// registry).
pub mod enums {
    pub const C3F_V3F: u32 = 0x2A24;
    pub const C4F_N3F_V3F: u32 = 0x2A26;
    pub const C4UB_V2F: u32 = 0x2A22;
    pub const C4UB_V3F: u32 = 0x2A23;
    pub const CLIENT_ACTIVE_TEXTURE: u32 = 0x84E1;
    pub const COLOR_ARRAY: u32 = 0x8076;
    pub const COLOR_ARRAY_BUFFER_BINDING: u32 = 0x8898;
    pub const COLOR_ARRAY_POINTER: u32 = 0x8090;
    pub const COLOR_ARRAY_SIZE: u32 = 0x8081;
    pub const COLOR_ARRAY_STRIDE: u32 = 0x8083;
    pub const COLOR_ARRAY_TYPE: u32 = 0x8082;
    pub const CURRENT_COLOR: u32 = 0x0B00;
    pub const CURRENT_FOG_COORD: u32 = 0x8453;
    pub const CURRENT_NORMAL: u32 = 0x0B02;
    pub const CURRENT_SECONDARY_COLOR: u32 = 0x8459;
    pub const CURRENT_TEXTURE_COORDS: u32 = 0x0B03;
    pub const EDGE_FLAG_ARRAY: u32 = 0x8079;
    pub const EDGE_FLAG_ARRAY_BUFFER_BINDING: u32 = 0x889B;
    pub const EDGE_FLAG_ARRAY_POINTER: u32 = 0x8093;
    pub const EDGE_FLAG_ARRAY_STRIDE: u32 = 0x808C;
    pub const FOG_COORD_ARRAY: u32 = 0x8457;
    pub const FOG_COORD_ARRAY_BUFFER_BINDING: u32 = 0x889D;
    pub const FOG_COORD_ARRAY_POINTER: u32 = 0x8456;
    pub const FOG_COORD_ARRAY_STRIDE: u32 = 0x8455;
    pub const FOG_COORD_ARRAY_TYPE: u32 = 0x8454;
    pub const MAX_TEXTURE_COORDS: u32 = 0x8871;
    pub const N3F_V3F: u32 = 0x2A25;
    pub const NORMAL_ARRAY: u32 = 0x8075;
    pub const NORMAL_ARRAY_BUFFER_BINDING: u32 = 0x8897;
    pub const NORMAL_ARRAY_POINTER: u32 = 0x808F;
    pub const NORMAL_ARRAY_STRIDE: u32 = 0x807F;
    pub const NORMAL_ARRAY_TYPE: u32 = 0x807E;
    pub const SECONDARY_COLOR_ARRAY: u32 = 0x845E;
    pub const SECONDARY_COLOR_ARRAY_BUFFER_BINDING: u32 = 0x889C;
    pub const SECONDARY_COLOR_ARRAY_POINTER: u32 = 0x845D;
    pub const SECONDARY_COLOR_ARRAY_SIZE: u32 = 0x845A;
    pub const SECONDARY_COLOR_ARRAY_STRIDE: u32 = 0x845C;
    pub const SECONDARY_COLOR_ARRAY_TYPE: u32 = 0x845B;
    pub const T2F_C3F_V3F: u32 = 0x2A2A;
    pub const T2F_C4F_N3F_V3F: u32 = 0x2A2C;
    pub const T2F_C4UB_V3F: u32 = 0x2A29;
    pub const T2F_N3F_V3F: u32 = 0x2A2B;
    pub const T2F_V3F: u32 = 0x2A27;
    pub const T4F_C4F_N3F_V4F: u32 = 0x2A2D;
    pub const T4F_V4F: u32 = 0x2A28;
    pub const TEXTURE_COORD_ARRAY: u32 = 0x8078;
    pub const TEXTURE_COORD_ARRAY_BUFFER_BINDING: u32 = 0x889A;
    pub const TEXTURE_COORD_ARRAY_POINTER: u32 = 0x8092;
    pub const TEXTURE_COORD_ARRAY_SIZE: u32 = 0x8088;
    pub const TEXTURE_COORD_ARRAY_STRIDE: u32 = 0x808A;
    pub const TEXTURE_COORD_ARRAY_TYPE: u32 = 0x8089;
    pub const V2F: u32 = 0x2A20;
    pub const V3F: u32 = 0x2A21;
    pub const VERTEX_ARRAY_BUFFER_BINDING: u32 = 0x8896;
    pub const VERTEX_ARRAY_POINTER: u32 = 0x808E;
    pub const VERTEX_ARRAY_SIZE: u32 = 0x807A;
    pub const VERTEX_ARRAY_STRIDE: u32 = 0x807C;
    pub const VERTEX_ARRAY_TYPE: u32 = 0x807B;
}
use enums as en;

/// GL_MAX_TEXTURE_COORDS.
pub const MAX_TEXTURE_COORDS: u32 = 8;

/// Staged client arrays start at multiples of this many bytes.
const STREAM_ALIGN: usize = 16;
/// The most zero bytes a draw stages below its first vertex to keep
/// gl_VertexID (`emit_vertex_input_per_draw`).
const MAX_ID_PADDING: u64 = 4 << 20;

// ------------------------------------------------------------- array state

/// The array slot a client-state capability names (texture coordinates:
/// the client active texture's), or None.
fn client_state_slot(gl: &Gl, cap: u32) -> Option<usize> {
    Some(match cap {
        glow::VERTEX_ARRAY => FF_VERTEX,
        en::NORMAL_ARRAY => FF_NORMAL,
        en::COLOR_ARRAY => FF_COLOR,
        en::SECONDARY_COLOR_ARRAY => FF_SECONDARY_COLOR,
        en::FOG_COORD_ARRAY => FF_FOG_COORD,
        en::TEXTURE_COORD_ARRAY => FF_TEXCOORD0 + gl.st.client_active_texture as usize,
        en::EDGE_FLAG_ARRAY => FF_EDGE_FLAG,
        _ => return None,
    })
}

/// The bound VAO's fixed-function arrays (compatibility contexts always
/// have one: VAO 0 exists).
fn ff_arrays<'a>(gl: &'a Gl) -> Option<&'a [FfArray; FF_ARRAYS]> {
    match gl.st.vaos.get(&gl.st.vao) {
        Some(Some(v)) => Some(&v.ff),
        _ => None,
    }
}

/// `glIsEnabled` of a client-state capability (compatibility contexts).
pub(super) fn client_state(gl: &Gl, cap: u32) -> Option<bool> {
    if gl.st.is_core() {
        return None;
    }
    let slot = client_state_slot(gl, cap)?;
    Some(ff_arrays(gl).is_some_and(|a| a[slot].enabled))
}

/// glEnable/glDisable of a client array cap in a compatibility context,
/// taken as glEnableClientState/glDisableClientState (as Mesa does; old
/// programs and tests rely on it). False: not such a cap here.
pub(super) fn enable_as_client_state(gl: &mut Gl, cap: u32, on: bool) -> bool {
    if gl.st.is_core() || client_state_slot(gl, cap).is_none() {
        return false;
    }
    set_client_state(gl, cap, on);
    gl.st.dirty |= DIRTY_VERTEX;
    true
}

fn set_client_state(gl: &mut Gl, cap: u32, on: bool) {
    if gl.st.is_core() {
        gl_err!(gl, glow::INVALID_OPERATION);
    }
    let Some(slot) = client_state_slot(gl, cap) else {
        gl_err!(gl, glow::INVALID_ENUM)
    };
    match super::vertex::vao_mut(gl) {
        Ok(v) => v.ff[slot].enabled = on,
        Err(e) => gl.st.set_error(e),
    }
}

#[no_mangle]
pub unsafe extern "C" fn glEnableClientState(cap: u32) {
    with_gl_dirty(DIRTY_VERTEX, |gl| set_client_state(gl, cap, true))
}

#[no_mangle]
pub unsafe extern "C" fn glDisableClientState(cap: u32) {
    with_gl_dirty(DIRTY_VERTEX, |gl| set_client_state(gl, cap, false))
}

#[no_mangle]
pub unsafe extern "C" fn glClientActiveTexture(texture: u32) {
    with_gl(|gl| {
        if gl.st.is_core() {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        let i = texture.wrapping_sub(glow::TEXTURE0);
        if i >= MAX_TEXTURE_COORDS {
            gl_err!(gl, glow::INVALID_ENUM);
        }
        gl.st.client_active_texture = i;
    })
}

/// What one `gl*Pointer` command accepts (GL 4.6 compatibility table 10.3).
struct PointerRules {
    sizes: &'static [i32],
    types: &'static [u32],
    normalized: bool,
}

const PACKED: [u32; 2] = [glow::INT_2_10_10_10_REV, glow::UNSIGNED_INT_2_10_10_10_REV];

fn rules(slot: usize) -> PointerRules {
    const BGRA: i32 = glow::BGRA as i32;
    const COLOR_TYPES: &[u32] = &[
        glow::BYTE,
        glow::UNSIGNED_BYTE,
        glow::SHORT,
        glow::UNSIGNED_SHORT,
        glow::INT,
        glow::UNSIGNED_INT,
        glow::HALF_FLOAT,
        glow::FLOAT,
        glow::DOUBLE,
        glow::INT_2_10_10_10_REV,
        glow::UNSIGNED_INT_2_10_10_10_REV,
    ];
    const POSITION_TYPES: &[u32] = &[
        glow::SHORT,
        glow::INT,
        glow::HALF_FLOAT,
        glow::FLOAT,
        glow::DOUBLE,
        glow::INT_2_10_10_10_REV,
        glow::UNSIGNED_INT_2_10_10_10_REV,
    ];
    match slot {
        FF_VERTEX => PointerRules {
            sizes: &[2, 3, 4],
            types: POSITION_TYPES,
            normalized: false,
        },
        FF_NORMAL => PointerRules {
            sizes: &[3],
            types: &[
                glow::BYTE,
                glow::SHORT,
                glow::INT,
                glow::HALF_FLOAT,
                glow::FLOAT,
                glow::DOUBLE,
                glow::INT_2_10_10_10_REV,
                glow::UNSIGNED_INT_2_10_10_10_REV,
            ],
            normalized: true,
        },
        FF_COLOR => PointerRules {
            sizes: &[3, 4, BGRA],
            types: COLOR_TYPES,
            normalized: true,
        },
        FF_SECONDARY_COLOR => PointerRules {
            sizes: &[3, BGRA],
            types: COLOR_TYPES,
            normalized: true,
        },
        FF_FOG_COORD => PointerRules {
            sizes: &[1],
            types: &[glow::HALF_FLOAT, glow::FLOAT, glow::DOUBLE],
            normalized: false,
        },
        FF_EDGE_FLAG => PointerRules {
            sizes: &[1],
            types: &[glow::BOOL],
            normalized: false,
        },
        _ => PointerRules {
            sizes: &[1, 2, 3, 4],
            types: POSITION_TYPES,
            normalized: false,
        },
    }
}

/// `gl*Pointer` of array `slot` (GL 4.6 compatibility §10.3.1 errors).
fn ff_pointer(gl: &mut Gl, slot: usize, size: i32, ty: u32, stride: i32, ptr: usize) {
    if gl.st.is_core() {
        gl_err!(gl, glow::INVALID_OPERATION);
    }
    if !(0..=super::vertex::MAX_STRIDE).contains(&stride) {
        gl_err!(gl, glow::INVALID_VALUE);
    }
    let r = rules(slot);
    if !r.types.contains(&ty) {
        gl_err!(gl, glow::INVALID_ENUM);
    }
    if !r.sizes.contains(&size) {
        gl_err!(gl, glow::INVALID_VALUE);
    }
    let bgra = size == glow::BGRA as i32;
    if bgra && ty != glow::UNSIGNED_BYTE && !PACKED.contains(&ty) {
        gl_err!(gl, glow::INVALID_OPERATION);
    }
    if PACKED.contains(&ty) && slot != FF_NORMAL && size != 4 && !bgra {
        gl_err!(gl, glow::INVALID_OPERATION);
    }
    let buffer = gl.st.array_buffer;
    // A client pointer is for VAO 0 only.
    if buffer == 0 && ptr != 0 && gl.st.vao != 0 {
        gl_err!(gl, glow::INVALID_OPERATION);
    }
    match super::vertex::vao_mut(gl) {
        Ok(v) => {
            let a = &mut v.ff[slot];
            a.size = size as u32;
            a.ty = ty;
            a.normalized = r.normalized;
            a.stride = stride as u32;
            a.buffer = buffer;
            a.offset = ptr as u64;
        }
        Err(e) => gl.st.set_error(e),
    }
}

#[no_mangle]
pub unsafe extern "C" fn glVertexPointer(size: i32, ty: u32, stride: i32, ptr: *const c_void) {
    with_gl_dirty(DIRTY_VERTEX, |gl| {
        ff_pointer(gl, FF_VERTEX, size, ty, stride, ptr as usize)
    })
}

#[no_mangle]
pub unsafe extern "C" fn glNormalPointer(ty: u32, stride: i32, ptr: *const c_void) {
    with_gl_dirty(DIRTY_VERTEX, |gl| {
        ff_pointer(gl, FF_NORMAL, 3, ty, stride, ptr as usize)
    })
}

#[no_mangle]
pub unsafe extern "C" fn glColorPointer(size: i32, ty: u32, stride: i32, ptr: *const c_void) {
    with_gl_dirty(DIRTY_VERTEX, |gl| {
        ff_pointer(gl, FF_COLOR, size, ty, stride, ptr as usize)
    })
}

#[no_mangle]
pub unsafe extern "C" fn glSecondaryColorPointer(
    size: i32,
    ty: u32,
    stride: i32,
    ptr: *const c_void,
) {
    with_gl_dirty(DIRTY_VERTEX, |gl| {
        ff_pointer(gl, FF_SECONDARY_COLOR, size, ty, stride, ptr as usize)
    })
}

#[no_mangle]
pub unsafe extern "C" fn glFogCoordPointer(ty: u32, stride: i32, ptr: *const c_void) {
    with_gl_dirty(DIRTY_VERTEX, |gl| {
        ff_pointer(gl, FF_FOG_COORD, 1, ty, stride, ptr as usize)
    })
}

#[no_mangle]
pub unsafe extern "C" fn glTexCoordPointer(size: i32, ty: u32, stride: i32, ptr: *const c_void) {
    with_gl_dirty(DIRTY_VERTEX, |gl| {
        let slot = FF_TEXCOORD0 + gl.st.client_active_texture as usize;
        ff_pointer(gl, slot, size, ty, stride, ptr as usize)
    })
}

#[no_mangle]
pub unsafe extern "C" fn glEdgeFlagPointer(stride: i32, ptr: *const c_void) {
    with_gl_dirty(DIRTY_VERTEX, |gl| {
        ff_pointer(gl, FF_EDGE_FLAG, 1, glow::BOOL, stride, ptr as usize)
    })
}

/// One `glInterleavedArrays` layout (GL 4.6 compatibility table 10.6):
/// texture coordinate size (0: none), colour size and type (0: none),
/// normal (bool), vertex size, colour / normal / vertex offsets and the
/// stride, in bytes.
struct Interleaved {
    st: i32,
    sc: i32,
    tc: u32,
    en: bool,
    sv: i32,
    pc: usize,
    pn: usize,
    pv: usize,
    s: i32,
}

fn interleaved(format: u32) -> Option<Interleaved> {
    const F: usize = 4;
    const C: usize = 4;
    let l = |st, sc, tc, en, sv, pc, pn, pv, s: usize| Interleaved {
        st,
        sc,
        tc,
        en,
        sv,
        pc,
        pn,
        pv,
        s: s as i32,
    };
    let (ub, fl) = (glow::UNSIGNED_BYTE, glow::FLOAT);
    Some(match format {
        en::V2F => l(0, 0, 0, false, 2, 0, 0, 0, 2 * F),
        en::V3F => l(0, 0, 0, false, 3, 0, 0, 0, 3 * F),
        en::C4UB_V2F => l(0, 4, ub, false, 2, 0, 0, C, C + 2 * F),
        en::C4UB_V3F => l(0, 4, ub, false, 3, 0, 0, C, C + 3 * F),
        en::C3F_V3F => l(0, 3, fl, false, 3, 0, 0, 3 * F, 6 * F),
        en::N3F_V3F => l(0, 0, 0, true, 3, 0, 0, 3 * F, 6 * F),
        en::C4F_N3F_V3F => l(0, 4, fl, true, 3, 0, 4 * F, 7 * F, 10 * F),
        en::T2F_V3F => l(2, 0, 0, false, 3, 0, 0, 2 * F, 5 * F),
        en::T4F_V4F => l(4, 0, 0, false, 4, 0, 0, 4 * F, 8 * F),
        en::T2F_C4UB_V3F => l(2, 4, ub, false, 3, 2 * F, 0, C + 2 * F, C + 5 * F),
        en::T2F_C3F_V3F => l(2, 3, fl, false, 3, 2 * F, 0, 5 * F, 8 * F),
        en::T2F_N3F_V3F => l(2, 0, 0, true, 3, 0, 2 * F, 5 * F, 8 * F),
        en::T2F_C4F_N3F_V3F => l(2, 4, fl, true, 3, 2 * F, 6 * F, 9 * F, 12 * F),
        en::T4F_C4F_N3F_V4F => l(4, 4, fl, true, 4, 4 * F, 8 * F, 11 * F, 15 * F),
        _ => return None,
    })
}

#[no_mangle]
pub unsafe extern "C" fn glInterleavedArrays(format: u32, stride: i32, ptr: *const c_void) {
    with_gl_dirty(DIRTY_VERTEX, |gl| {
        if gl.st.is_core() {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        if stride < 0 {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        let Some(f) = interleaved(format) else {
            gl_err!(gl, glow::INVALID_ENUM)
        };
        let p = ptr as usize;
        let s = if stride == 0 { f.s } else { stride };
        for cap in [
            en::EDGE_FLAG_ARRAY,
            en::SECONDARY_COLOR_ARRAY,
            en::FOG_COORD_ARRAY,
        ] {
            set_client_state(gl, cap, false);
        }
        let tex = FF_TEXCOORD0 + gl.st.client_active_texture as usize;
        if f.st != 0 {
            ff_pointer(gl, tex, f.st, glow::FLOAT, s, p);
        }
        set_client_state(gl, en::TEXTURE_COORD_ARRAY, f.st != 0);
        if f.sc != 0 {
            ff_pointer(gl, FF_COLOR, f.sc, f.tc, s, p.wrapping_add(f.pc));
        }
        set_client_state(gl, en::COLOR_ARRAY, f.sc != 0);
        if f.en {
            ff_pointer(gl, FF_NORMAL, 3, glow::FLOAT, s, p.wrapping_add(f.pn));
        }
        set_client_state(gl, en::NORMAL_ARRAY, f.en);
        set_client_state(gl, glow::VERTEX_ARRAY, true);
        ff_pointer(gl, FF_VERTEX, f.sv, glow::FLOAT, s, p.wrapping_add(f.pv));
    })
}

// ------------------------------------------------------------------ queries

/// Whether `pname` is a compatibility-profile array or current-value
/// query [`query`] answers.
pub(super) fn is_query(pname: u32) -> bool {
    matches!(
        pname,
        en::VERTEX_ARRAY_SIZE
            | en::VERTEX_ARRAY_TYPE
            | en::VERTEX_ARRAY_STRIDE
            | en::VERTEX_ARRAY_BUFFER_BINDING
            | en::NORMAL_ARRAY_TYPE
            | en::NORMAL_ARRAY_STRIDE
            | en::NORMAL_ARRAY_BUFFER_BINDING
            | en::COLOR_ARRAY_SIZE
            | en::COLOR_ARRAY_TYPE
            | en::COLOR_ARRAY_STRIDE
            | en::COLOR_ARRAY_BUFFER_BINDING
            | en::SECONDARY_COLOR_ARRAY_SIZE
            | en::SECONDARY_COLOR_ARRAY_TYPE
            | en::SECONDARY_COLOR_ARRAY_STRIDE
            | en::SECONDARY_COLOR_ARRAY_BUFFER_BINDING
            | en::FOG_COORD_ARRAY_TYPE
            | en::FOG_COORD_ARRAY_STRIDE
            | en::FOG_COORD_ARRAY_BUFFER_BINDING
            | en::TEXTURE_COORD_ARRAY_SIZE
            | en::TEXTURE_COORD_ARRAY_TYPE
            | en::TEXTURE_COORD_ARRAY_STRIDE
            | en::TEXTURE_COORD_ARRAY_BUFFER_BINDING
            | en::EDGE_FLAG_ARRAY_STRIDE
            | en::EDGE_FLAG_ARRAY_BUFFER_BINDING
            | en::CLIENT_ACTIVE_TEXTURE
            | en::MAX_TEXTURE_COORDS
            | en::CURRENT_COLOR
            | en::CURRENT_SECONDARY_COLOR
            | en::CURRENT_NORMAL
            | en::CURRENT_TEXTURE_COORDS
            | en::CURRENT_FOG_COORD
    )
}

/// What a query of [`is_query`] answers: integers (`Err` of enums is not
/// needed: types are reported as integers, which GL's conversions keep)
/// or floats.
pub(super) enum Answer {
    Int(i64),
    Enum(u32),
    Floats(Vec<f32>),
}

/// The answer to compatibility query `pname` ([`is_query`]); call in
/// compatibility contexts only.
pub(super) fn query(gl: &Gl, pname: u32) -> Option<Answer> {
    let st = &*gl.st;
    let cur = |slot: usize, n: usize| Some(Answer::Floats(st.ff_current[slot][..n].to_vec()));
    match pname {
        en::CLIENT_ACTIVE_TEXTURE => {
            return Some(Answer::Enum(glow::TEXTURE0 + st.client_active_texture))
        }
        en::MAX_TEXTURE_COORDS => return Some(Answer::Int(MAX_TEXTURE_COORDS.into())),
        en::CURRENT_COLOR => return cur(FF_COLOR, 4),
        en::CURRENT_SECONDARY_COLOR => return cur(FF_SECONDARY_COLOR, 4),
        en::CURRENT_NORMAL => return cur(FF_NORMAL, 3),
        en::CURRENT_FOG_COORD => return cur(FF_FOG_COORD, 1),
        en::CURRENT_TEXTURE_COORDS => {
            // The texture unit glActiveTexture selects (set 0 past the 8).
            let unit = st.active_texture.min(MAX_TEXTURE_COORDS - 1) as usize;
            return cur(FF_TEXCOORD0 + unit, 4);
        }
        _ => {}
    }
    let tex = FF_TEXCOORD0 + st.client_active_texture as usize;
    let (slot, what) = match pname {
        en::VERTEX_ARRAY_SIZE => (FF_VERTEX, 0),
        en::VERTEX_ARRAY_TYPE => (FF_VERTEX, 1),
        en::VERTEX_ARRAY_STRIDE => (FF_VERTEX, 2),
        en::VERTEX_ARRAY_BUFFER_BINDING => (FF_VERTEX, 3),
        en::NORMAL_ARRAY_TYPE => (FF_NORMAL, 1),
        en::NORMAL_ARRAY_STRIDE => (FF_NORMAL, 2),
        en::NORMAL_ARRAY_BUFFER_BINDING => (FF_NORMAL, 3),
        en::COLOR_ARRAY_SIZE => (FF_COLOR, 0),
        en::COLOR_ARRAY_TYPE => (FF_COLOR, 1),
        en::COLOR_ARRAY_STRIDE => (FF_COLOR, 2),
        en::COLOR_ARRAY_BUFFER_BINDING => (FF_COLOR, 3),
        en::SECONDARY_COLOR_ARRAY_SIZE => (FF_SECONDARY_COLOR, 0),
        en::SECONDARY_COLOR_ARRAY_TYPE => (FF_SECONDARY_COLOR, 1),
        en::SECONDARY_COLOR_ARRAY_STRIDE => (FF_SECONDARY_COLOR, 2),
        en::SECONDARY_COLOR_ARRAY_BUFFER_BINDING => (FF_SECONDARY_COLOR, 3),
        en::FOG_COORD_ARRAY_TYPE => (FF_FOG_COORD, 1),
        en::FOG_COORD_ARRAY_STRIDE => (FF_FOG_COORD, 2),
        en::FOG_COORD_ARRAY_BUFFER_BINDING => (FF_FOG_COORD, 3),
        en::TEXTURE_COORD_ARRAY_SIZE => (tex, 0),
        en::TEXTURE_COORD_ARRAY_TYPE => (tex, 1),
        en::TEXTURE_COORD_ARRAY_STRIDE => (tex, 2),
        en::TEXTURE_COORD_ARRAY_BUFFER_BINDING => (tex, 3),
        en::EDGE_FLAG_ARRAY_STRIDE => (FF_EDGE_FLAG, 2),
        en::EDGE_FLAG_ARRAY_BUFFER_BINDING => (FF_EDGE_FLAG, 3),
        _ => return None,
    };
    let a = ff_arrays(gl)?[slot];
    Some(match what {
        0 => Answer::Int(a.size.into()),
        1 => Answer::Enum(a.ty),
        2 => Answer::Int(a.stride.into()),
        _ => Answer::Int(a.buffer.into()),
    })
}

/// `glGetPointerv` of a `*_ARRAY_POINTER` (compatibility contexts), or
/// None for any other name.
pub(super) fn array_pointer(gl: &Gl, pname: u32) -> Option<usize> {
    if gl.st.is_core() {
        return None;
    }
    let slot = match pname {
        en::VERTEX_ARRAY_POINTER => FF_VERTEX,
        en::NORMAL_ARRAY_POINTER => FF_NORMAL,
        en::COLOR_ARRAY_POINTER => FF_COLOR,
        en::SECONDARY_COLOR_ARRAY_POINTER => FF_SECONDARY_COLOR,
        en::FOG_COORD_ARRAY_POINTER => FF_FOG_COORD,
        en::TEXTURE_COORD_ARRAY_POINTER => FF_TEXCOORD0 + gl.st.client_active_texture as usize,
        en::EDGE_FLAG_ARRAY_POINTER => FF_EDGE_FLAG,
        _ => return None,
    };
    Some(ff_arrays(gl).map_or(0, |a| a[slot].offset as usize))
}

// ----------------------------------------------------------- current values

fn set_current(gl: &mut Gl, slot: usize, v: [f32; 4]) {
    if gl.st.is_core() {
        gl_err!(gl, glow::INVALID_OPERATION);
    }
    gl.st.ff_current[slot] = v;
}

/// Signed normalized: max(c / (2^(bits−1) − 1), −1) (GL 4.6 §2.3.5).
fn snorm(c: f64, bits: u32) -> f32 {
    (c / ((1u64 << (bits - 1)) - 1) as f64).max(-1.0) as f32
}

/// Unsigned normalized: c / (2^bits − 1).
fn unorm(c: f64, bits: u32) -> f32 {
    (c / ((1u64 << bits) - 1) as f64) as f32
}

fn nb(c: i8) -> f32 {
    snorm(c.into(), 8)
}
fn ns(c: i16) -> f32 {
    snorm(c.into(), 16)
}
fn ni(c: i32) -> f32 {
    snorm(c.into(), 32)
}
fn nub(c: u8) -> f32 {
    unorm(c.into(), 8)
}
fn nus(c: u16) -> f32 {
    unorm(c.into(), 16)
}
fn nui(c: u32) -> f32 {
    unorm(c.into(), 32)
}
fn fd(c: f64) -> f32 {
    c as f32
}
fn ff(c: f32) -> f32 {
    c
}
fn fi(c: i32) -> f32 {
    c as f32
}
fn fs(c: i16) -> f32 {
    c.into()
}

/// `n` components at `v` (zeros past a null pointer), padded to four
/// with (0, 0, 0, 1).
///
/// # Safety
/// `v` is null or points at `n` values.
unsafe fn read4<T: Copy>(v: *const T, n: usize, conv: fn(T) -> f32) -> [f32; 4] {
    let mut out = [0.0, 0.0, 0.0, 1.0];
    // SAFETY: the caller promises `n` values at `v` (or null).
    for (o, c) in out.iter_mut().zip(unsafe { slice(v, n as i32) }) {
        *o = conv(*c);
    }
    out
}

/// `glX(a, b, c[, d])` and `glXv(v)` setting the current value of `slot`
/// (an expression of `gl` for texture coordinates) from `n` components.
macro_rules! current {
    ($f:ident, $fv:ident, $t:ty, $conv:ident, $slot:expr, 1) => {
        #[no_mangle]
        pub unsafe extern "C" fn $f(x: $t) {
            with_gl_listed(stringify!($f), 0, move |gl| set_current(gl, $slot, [$conv(x), 0.0, 0.0, 1.0]))
        }
        current!(@v $fv, $t, $conv, $slot, 1);
    };
    ($f:ident, $fv:ident, $t:ty, $conv:ident, $slot:expr, 2) => {
        #[no_mangle]
        pub unsafe extern "C" fn $f(x: $t, y: $t) {
            with_gl_listed(stringify!($f), 0, move |gl| set_current(gl, $slot, [$conv(x), $conv(y), 0.0, 1.0]))
        }
        current!(@v $fv, $t, $conv, $slot, 2);
    };
    ($f:ident, $fv:ident, $t:ty, $conv:ident, $slot:expr, 3) => {
        #[no_mangle]
        pub unsafe extern "C" fn $f(x: $t, y: $t, z: $t) {
            with_gl_listed(stringify!($f), 0, move |gl| set_current(gl, $slot, [$conv(x), $conv(y), $conv(z), 1.0]))
        }
        current!(@v $fv, $t, $conv, $slot, 3);
    };
    ($f:ident, $fv:ident, $t:ty, $conv:ident, $slot:expr, 4) => {
        #[no_mangle]
        pub unsafe extern "C" fn $f(x: $t, y: $t, z: $t, w: $t) {
            with_gl_listed(stringify!($f), 0, move |gl| set_current(gl, $slot, [$conv(x), $conv(y), $conv(z), $conv(w)]))
        }
        current!(@v $fv, $t, $conv, $slot, 4);
    };
    (@v $fv:ident, $t:ty, $conv:ident, $slot:expr, $n:literal) => {
        #[no_mangle]
        pub unsafe extern "C" fn $fv(v: *const $t) {
            // SAFETY: GL promises the components at `v`.
            let c = unsafe { read4(v, $n, $conv) };
            with_gl_listed(stringify!($fv), 0, move |gl| set_current(gl, $slot, c))
        }
    };
}

current!(glColor3b, glColor3bv, i8, nb, FF_COLOR, 3);
current!(glColor3s, glColor3sv, i16, ns, FF_COLOR, 3);
current!(glColor3i, glColor3iv, i32, ni, FF_COLOR, 3);
current!(glColor3ub, glColor3ubv, u8, nub, FF_COLOR, 3);
current!(glColor3us, glColor3usv, u16, nus, FF_COLOR, 3);
current!(glColor3ui, glColor3uiv, u32, nui, FF_COLOR, 3);
current!(glColor3f, glColor3fv, f32, ff, FF_COLOR, 3);
current!(glColor3d, glColor3dv, f64, fd, FF_COLOR, 3);
current!(glColor4b, glColor4bv, i8, nb, FF_COLOR, 4);
current!(glColor4s, glColor4sv, i16, ns, FF_COLOR, 4);
current!(glColor4i, glColor4iv, i32, ni, FF_COLOR, 4);
current!(glColor4ub, glColor4ubv, u8, nub, FF_COLOR, 4);
current!(glColor4us, glColor4usv, u16, nus, FF_COLOR, 4);
current!(glColor4ui, glColor4uiv, u32, nui, FF_COLOR, 4);
current!(glColor4f, glColor4fv, f32, ff, FF_COLOR, 4);
current!(glColor4d, glColor4dv, f64, fd, FF_COLOR, 4);
current!(
    glSecondaryColor3b,
    glSecondaryColor3bv,
    i8,
    nb,
    FF_SECONDARY_COLOR,
    3
);
current!(
    glSecondaryColor3s,
    glSecondaryColor3sv,
    i16,
    ns,
    FF_SECONDARY_COLOR,
    3
);
current!(
    glSecondaryColor3i,
    glSecondaryColor3iv,
    i32,
    ni,
    FF_SECONDARY_COLOR,
    3
);
current!(
    glSecondaryColor3ub,
    glSecondaryColor3ubv,
    u8,
    nub,
    FF_SECONDARY_COLOR,
    3
);
current!(
    glSecondaryColor3us,
    glSecondaryColor3usv,
    u16,
    nus,
    FF_SECONDARY_COLOR,
    3
);
current!(
    glSecondaryColor3ui,
    glSecondaryColor3uiv,
    u32,
    nui,
    FF_SECONDARY_COLOR,
    3
);
current!(
    glSecondaryColor3f,
    glSecondaryColor3fv,
    f32,
    ff,
    FF_SECONDARY_COLOR,
    3
);
current!(
    glSecondaryColor3d,
    glSecondaryColor3dv,
    f64,
    fd,
    FF_SECONDARY_COLOR,
    3
);
current!(glNormal3b, glNormal3bv, i8, nb, FF_NORMAL, 3);
current!(glNormal3s, glNormal3sv, i16, ns, FF_NORMAL, 3);
current!(glNormal3i, glNormal3iv, i32, ni, FF_NORMAL, 3);
current!(glNormal3f, glNormal3fv, f32, ff, FF_NORMAL, 3);
current!(glNormal3d, glNormal3dv, f64, fd, FF_NORMAL, 3);
current!(glFogCoordf, glFogCoordfv, f32, ff, FF_FOG_COORD, 1);
current!(glFogCoordd, glFogCoorddv, f64, fd, FF_FOG_COORD, 1);
current!(glTexCoord1s, glTexCoord1sv, i16, fs, FF_TEXCOORD0, 1);
current!(glTexCoord1i, glTexCoord1iv, i32, fi, FF_TEXCOORD0, 1);
current!(glTexCoord1f, glTexCoord1fv, f32, ff, FF_TEXCOORD0, 1);
current!(glTexCoord1d, glTexCoord1dv, f64, fd, FF_TEXCOORD0, 1);
current!(glTexCoord2s, glTexCoord2sv, i16, fs, FF_TEXCOORD0, 2);
current!(glTexCoord2i, glTexCoord2iv, i32, fi, FF_TEXCOORD0, 2);
current!(glTexCoord2f, glTexCoord2fv, f32, ff, FF_TEXCOORD0, 2);
current!(glTexCoord2d, glTexCoord2dv, f64, fd, FF_TEXCOORD0, 2);
current!(glTexCoord3s, glTexCoord3sv, i16, fs, FF_TEXCOORD0, 3);
current!(glTexCoord3i, glTexCoord3iv, i32, fi, FF_TEXCOORD0, 3);
current!(glTexCoord3f, glTexCoord3fv, f32, ff, FF_TEXCOORD0, 3);
current!(glTexCoord3d, glTexCoord3dv, f64, fd, FF_TEXCOORD0, 3);
current!(glTexCoord4s, glTexCoord4sv, i16, fs, FF_TEXCOORD0, 4);
current!(glTexCoord4i, glTexCoord4iv, i32, fi, FF_TEXCOORD0, 4);
current!(glTexCoord4f, glTexCoord4fv, f32, ff, FF_TEXCOORD0, 4);
current!(glTexCoord4d, glTexCoord4dv, f64, fd, FF_TEXCOORD0, 4);

/// `glMultiTexCoord*`: the slot of `target` (GL_TEXTURE0 + i, i < 8), or
/// GL_INVALID_ENUM.
fn multi_tex_coord(gl: &mut Gl, target: u32, v: [f32; 4]) {
    if gl.st.is_core() {
        gl_err!(gl, glow::INVALID_OPERATION);
    }
    let i = target.wrapping_sub(glow::TEXTURE0);
    if i >= MAX_TEXTURE_COORDS {
        gl_err!(gl, glow::INVALID_ENUM);
    }
    gl.st.ff_current[FF_TEXCOORD0 + i as usize] = v;
}

/// `glMultiTexCoordN{s,i,f,d}` and their `v` forms.
macro_rules! multi {
    ($f:ident, $fv:ident, $t:ty, $conv:ident, 1) => {
        #[no_mangle]
        pub unsafe extern "C" fn $f(target: u32, x: $t) {
            with_gl_listed(stringify!($f), 0, move |gl| multi_tex_coord(gl, target, [$conv(x), 0.0, 0.0, 1.0]))
        }
        multi!(@v $fv, $t, $conv, 1);
    };
    ($f:ident, $fv:ident, $t:ty, $conv:ident, 2) => {
        #[no_mangle]
        pub unsafe extern "C" fn $f(target: u32, x: $t, y: $t) {
            with_gl_listed(stringify!($f), 0, move |gl| multi_tex_coord(gl, target, [$conv(x), $conv(y), 0.0, 1.0]))
        }
        multi!(@v $fv, $t, $conv, 2);
    };
    ($f:ident, $fv:ident, $t:ty, $conv:ident, 3) => {
        #[no_mangle]
        pub unsafe extern "C" fn $f(target: u32, x: $t, y: $t, z: $t) {
            with_gl_listed(stringify!($f), 0, move |gl| multi_tex_coord(gl, target, [$conv(x), $conv(y), $conv(z), 1.0]))
        }
        multi!(@v $fv, $t, $conv, 3);
    };
    ($f:ident, $fv:ident, $t:ty, $conv:ident, 4) => {
        #[no_mangle]
        pub unsafe extern "C" fn $f(target: u32, x: $t, y: $t, z: $t, w: $t) {
            with_gl_listed(stringify!($f), 0, move |gl| multi_tex_coord(gl, target, [$conv(x), $conv(y), $conv(z), $conv(w)]))
        }
        multi!(@v $fv, $t, $conv, 4);
    };
    (@v $fv:ident, $t:ty, $conv:ident, $n:literal) => {
        #[no_mangle]
        pub unsafe extern "C" fn $fv(target: u32, v: *const $t) {
            // SAFETY: GL promises the components at `v`.
            let c = unsafe { read4(v, $n, $conv) };
            with_gl_listed(stringify!($fv), 0, move |gl| multi_tex_coord(gl, target, c))
        }
    };
}

multi!(glMultiTexCoord1s, glMultiTexCoord1sv, i16, fs, 1);
multi!(glMultiTexCoord1i, glMultiTexCoord1iv, i32, fi, 1);
multi!(glMultiTexCoord1f, glMultiTexCoord1fv, f32, ff, 1);
multi!(glMultiTexCoord1d, glMultiTexCoord1dv, f64, fd, 1);
multi!(glMultiTexCoord2s, glMultiTexCoord2sv, i16, fs, 2);
multi!(glMultiTexCoord2i, glMultiTexCoord2iv, i32, fi, 2);
multi!(glMultiTexCoord2f, glMultiTexCoord2fv, f32, ff, 2);
multi!(glMultiTexCoord2d, glMultiTexCoord2dv, f64, fd, 2);
multi!(glMultiTexCoord3s, glMultiTexCoord3sv, i16, fs, 3);
multi!(glMultiTexCoord3i, glMultiTexCoord3iv, i32, fi, 3);
multi!(glMultiTexCoord3f, glMultiTexCoord3fv, f32, ff, 3);
multi!(glMultiTexCoord3d, glMultiTexCoord3dv, f64, fd, 3);
multi!(glMultiTexCoord4s, glMultiTexCoord4sv, i16, fs, 4);
multi!(glMultiTexCoord4i, glMultiTexCoord4iv, i32, fi, 4);
multi!(glMultiTexCoord4f, glMultiTexCoord4fv, f32, ff, 4);
multi!(glMultiTexCoord4d, glMultiTexCoord4dv, f64, fd, 4);

// ----------------------------------------------------------------- drawing

/// The vertices a draw reads, for staging client-memory arrays.
pub(crate) enum Reads<'a> {
    /// `glDrawArrays*`: vertices `first..first + count`.
    Arrays { first: u32, count: u32 },
    /// Indexed draws: `isize_`-byte indices, client memory or read back.
    Indices {
        bytes: &'a [u8],
        isize_: u32,
        base_vertex: i32,
    },
    /// Indexed draws whose `count` indices start at byte `offset` of the
    /// bound element buffer (read back only when a client array needs it).
    BufferIndices {
        offset: u64,
        count: u32,
        isize_: u32,
        base_vertex: i32,
    },
}

/// Whether the bound VAO has an element buffer.
pub(crate) fn element_buffer_bound(gl: &Gl) -> bool {
    matches!(gl.st.vaos.get(&gl.st.vao), Some(Some(v)) if v.element_buffer != 0)
}

/// Whether VAO `vao` needs the per-draw vertex input of a compatibility
/// context: a fixed-function array or a client-memory generic array is
/// enabled.
pub(crate) fn needs_per_draw(vao: &VertexArray) -> bool {
    vao.ff[..FF_EDGE_FLAG].iter().any(|a| a.enabled)
        || vao
            .attribs
            .iter()
            .any(|a| a.enabled && vao.binding_of(a).buffer == 0)
}

/// Where one vertex-input slot reads.
#[derive(Debug, Clone, Copy)]
struct Source {
    /// GL buffer name; 0 = client memory at `offset`.
    buffer: u32,
    offset: u64,
    /// Effective stride in bytes.
    stride: u32,
    divisor: u32,
    /// The vertex-elements format word.
    format: u32,
    /// Bytes of one element.
    elem: u32,
}

fn format_word(size: u32, ty: u32, normalized: bool, integer: bool) -> u32 {
    size | (ty << 8)
        | if normalized { VE_NORMALIZED } else { 0 }
        | if integer { VE_INTEGER } else { 0 }
}

fn ff_source(a: &FfArray) -> Source {
    let size = if a.size == glow::BGRA { 4 } else { a.size };
    let elem = super::vertex::element_bytes(size, a.ty);
    Source {
        buffer: a.buffer,
        offset: a.offset,
        stride: if a.stride == 0 { elem } else { a.stride },
        divisor: 0,
        format: format_word(size, a.ty, a.normalized, false),
        elem,
    }
}

/// The lowest vertex a draw reads and one past the highest (`lo == hi`:
/// none); indices equal to the restart index are skipped.
fn vertex_range(gl: &mut Gl, reads: &Reads) -> (u64, u64) {
    let (bytes, isize_, base_vertex) = match *reads {
        Reads::Arrays { first, count } => {
            return (first.into(), u64::from(first) + u64::from(count))
        }
        Reads::Indices {
            bytes,
            isize_,
            base_vertex,
        } => (std::borrow::Cow::Borrowed(bytes), isize_, base_vertex),
        Reads::BufferIndices {
            offset,
            count,
            isize_,
            base_vertex,
        } => {
            let vao = gl.st.vao;
            let handle = match gl.st.vaos.get(&vao) {
                Some(Some(v)) => match gl.sh.buffers.get(&v.element_buffer) {
                    Some(Some(b)) => b.handle,
                    _ => return (0, 0),
                },
                _ => return (0, 0),
            };
            let len = u64::from(count) * u64::from(isize_);
            let raw = super::buffers::read_buffer(
                gl,
                handle,
                offset,
                len,
                crate::runtime::BlockingCause::BufferRead,
            );
            (std::borrow::Cow::Owned(raw), isize_, base_vertex)
        }
    };
    let restart = if gl.st.primitive_restart_fixed {
        Some(u32::MAX >> (32 - 8 * isize_.clamp(1, 4)))
    } else if gl.st.primitive_restart {
        Some(gl.st.primitive_restart_index)
    } else {
        None
    };
    let (mut lo, mut hi) = (u32::MAX, 0u32);
    let mut any = false;
    for v in super::draw::index_values(&bytes, isize_ as usize) {
        if Some(v) == restart || (isize_ == 4 && v == u32::MAX && gl.st.restart_rewrite) {
            continue;
        }
        any = true;
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !any {
        return (0, 0);
    }
    let lo = (i64::from(lo) + i64::from(base_vertex)).max(0) as u64;
    let hi = (i64::from(hi) + i64::from(base_vertex) + 1).max(0) as u64;
    (lo, hi.max(lo))
}

/// Derive and emit the vertex input of one draw (compatibility arrays,
/// fixed-function inputs; see the module note). Returns the first vertex
/// staged: the draw's first vertex (arrays) or base vertex (indexed) is
/// lowered by it.
pub(crate) fn emit_vertex_input_per_draw(
    gl: &mut Gl,
    reads: Reads,
    instances: u32,
    base_instance: u32,
) -> Result<u64, u32> {
    let core = gl.st.is_core();
    let vao_name = gl.st.vao;
    let Some(Some(vao)) = gl.st.vaos.get(&vao_name) else {
        return Err(glow::INVALID_OPERATION);
    };
    let mut sources: [Option<Source>; MAX_ATTRIBS] = [None; MAX_ATTRIBS];
    for (i, a) in vao.attribs.iter().enumerate() {
        if !a.enabled {
            continue;
        }
        let b = vao.binding_of(a);
        let elem = super::vertex::element_bytes(a.size, a.ty);
        sources[i] = Some(Source {
            buffer: b.buffer,
            offset: b.offset.saturating_add(u64::from(a.relative_offset)),
            stride: b.stride,
            divisor: b.divisor,
            format: format_word(a.size, a.ty, a.normalized, a.integer),
            elem,
        });
    }
    // The vertex array, when enabled, is what location 0 (gl_Vertex and
    // generic attribute 0) reads.
    if !core && vao.ff[FF_VERTEX].enabled {
        sources[0] = Some(ff_source(&vao.ff[FF_VERTEX]));
    }
    // Fixed-function inputs: their array, else their current value.
    let mut constants: [Option<[f32; 4]>; MAX_ATTRIBS] = [None; MAX_ATTRIBS];
    for &(slot, loc) in &gl.st.ff_inputs {
        let loc = loc as usize;
        if loc >= MAX_ATTRIBS || slot >= FF_ARRAYS {
            continue;
        }
        if !core && vao.ff[slot].enabled {
            sources[loc] = Some(ff_source(&vao.ff[slot]));
        } else {
            sources[loc] = None;
            constants[loc] = Some(gl.st.ff_current[slot]);
        }
    }
    let element_buffer = vao.element_buffer;

    let any_client = sources.iter().flatten().any(|s| s.buffer == 0);
    let (lo, hi) = if any_client {
        vertex_range(gl, &reads)
    } else {
        (0, 0)
    };
    // The draw normally starts at the first staged vertex (its first vertex
    // or base vertex lowered by `lo`), which moves gl_VertexID: a program
    // reading it gets the client copies placed at their own indices instead
    // (zeros below `lo`, up to a bound on the padding).
    let keep_ids = lo > 0
        && super::validate::program_reads_vertex_id(gl.sh, gl.st.program)
        && sources
            .iter()
            .flatten()
            .filter(|s| s.buffer == 0 && s.divisor == 0)
            .map(|s| lo.saturating_mul(s.stride.into()))
            .sum::<u64>()
            <= MAX_ID_PADDING;
    let shift = if keep_ids { 0 } else { lo };

    let mut ve = calls::CreateVertexElements::default();
    let mut vb = calls::SetVertexBuffers::default();
    let mut scratch = std::mem::take(&mut gl.st.stream_scratch);
    scratch.clear();
    let mut staged = 0u32;
    for (i, s) in sources.iter().enumerate() {
        let Some(s) = s else { continue };
        ve.enabled_mask |= 1 << i;
        ve.buffer_index[i] = i as u32;
        ve.format[i] = s.format;
        ve.divisor[i] = s.divisor;
        vb.strides[i] = s.stride;
        // Elements read: per vertex lo..hi, per instance from 0.
        let (first, n) = if s.divisor == 0 {
            (lo, hi - lo)
        } else {
            let per = u64::from(instances).div_ceil(u64::from(s.divisor));
            (0, u64::from(base_instance) + per)
        };
        if s.buffer != 0 {
            if let Some(Some(buf)) = gl.sh.buffers.get(&s.buffer) {
                vb.buffers[i] = buf.handle;
            }
            let shift = if s.divisor == 0 { shift } else { 0 };
            vb.offsets[i] = s
                .offset
                .saturating_add(shift.saturating_mul(s.stride.into()));
            continue;
        }
        // Client memory: copy the elements read.
        let len = if n == 0 {
            0
        } else {
            (n - 1)
                .saturating_mul(s.stride.into())
                .saturating_add(s.elem.into())
        };
        if len > i32::MAX as u64 {
            super::log_once("client-array-huge", || {
                format!("a client-memory array of {len} bytes was not staged")
            });
            continue;
        }
        let pad = scratch.len().next_multiple_of(STREAM_ALIGN) - scratch.len();
        scratch.resize(scratch.len() + pad, 0);
        vb.offsets[i] = scratch.len() as u64;
        staged |= 1 << i;
        if keep_ids && s.divisor == 0 {
            // Elements 0..lo are not read: zeros keep the indices.
            scratch.resize(scratch.len() + (lo * u64::from(s.stride)) as usize, 0);
        }
        let start = s
            .offset
            .saturating_add(first.saturating_mul(s.stride.into()));
        if s.offset == 0 {
            // A null client pointer: GL leaves this undefined; read zeros.
            scratch.resize(scratch.len() + len as usize, 0);
        } else {
            // SAFETY: the application promises the elements the draw
            // reads at its client pointer (GL 4.6 compatibility §10.3).
            let src = unsafe { slice(start as usize as *const u8, len as i32) };
            scratch.extend_from_slice(src);
        }
    }
    if staged != 0 {
        let h = stream_buffer(gl);
        let split = scratch.len() > gl.conn.max_blob;
        gl.conn.pipe.buffer_respecify(
            &calls::BufferRespecify {
                res: h,
                size: scratch.len() as u64,
                usage: glow::STREAM_DRAW,
                ..Default::default()
            },
            if split { &[] } else { &scratch },
        );
        if split {
            super::buffers::send_subdata(gl, h, 0, &scratch);
        }
        for i in 0..MAX_ATTRIBS {
            if staged & (1 << i) != 0 {
                vb.buffers[i] = h;
            }
        }
    }
    if scratch.capacity() > (16 << 20) {
        scratch = Vec::new();
    }
    gl.st.stream_scratch = scratch;
    vb.count = (u32::BITS - ve.enabled_mask.leading_zeros()).min(MAX_ATTRIBS as u32);

    let key = super::validate::cso_key(&ve);
    let elements = match gl.st.cso.vertex_elements.get(&key) {
        Some(h) => *h,
        None => {
            let h = gl.conn.alloc.vertex_elements.alloc();
            gl.conn
                .pipe
                .create_vertex_elements(&calls::CreateVertexElements { cso: h, ..ve });
            gl.st.cso.vertex_elements.insert(key, h);
            h
        }
    };
    let ib = match gl.sh.buffers.get(&element_buffer) {
        Some(Some(b)) => b.handle,
        _ => Handle::NULL,
    };
    gl.emit_vertex_parts(elements, vb, ib);

    // Defaults of the disabled slots: generic current values, the
    // fixed-function inputs' current values over them.
    let mut defaults = calls::SetVertexAttribDefaults {
        mask: !ve.enabled_mask & 0xFFFF,
        integer_mask: gl.st.current_attrib_integer,
        ..Default::default()
    };
    for (i, v) in gl.st.current_attrib.iter().enumerate() {
        defaults.values[i * 4..i * 4 + 4].copy_from_slice(v);
    }
    for (i, c) in constants.iter().enumerate() {
        if let Some(c) = c {
            defaults.values[i * 4..i * 4 + 4].copy_from_slice(&c.map(f32::to_bits));
            defaults.integer_mask &= !(1 << i);
        }
    }
    if gl.st.sent.attrib_defaults.as_ref() != Some(&defaults) {
        gl.conn.pipe.set_vertex_attrib_defaults(&defaults);
        gl.st.sent.attrib_defaults = Some(defaults);
    }
    // The next ordinary emission compares what it derives with what went.
    gl.st.sent_attrib_rev = 0;
    Ok(shift)
}

/// The streaming buffer's handle, created on first use.
fn stream_buffer(gl: &mut Gl) -> Handle {
    if gl.st.stream_buffer.is_null() {
        let h = gl.conn.alloc.resource.alloc();
        gl.conn.pipe.resource_create(
            &calls::ResourceCreate {
                res: h,
                kind: RESOURCE_BUFFER,
                gl_name: 0,
                ..Default::default()
            },
            &[],
        );
        gl.st.stream_buffer = h;
    }
    gl.st.stream_buffer
}
