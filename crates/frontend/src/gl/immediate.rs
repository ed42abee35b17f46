//! Compatibility-profile immediate mode and legacy primitive types:
//! `glBegin`/`glVertex*`/`glEnd` record each vertex with the current
//! fixed-function values (colour, normal, texture coordinates ... as the
//! `glColor*` & co. of `legacy_arrays` leave them) and draw them at
//! `glEnd` through the client-memory array path, as if the application had
//! used `glVertexPointer` & co. on VAO 0; `GL_QUADS`, `GL_QUAD_STRIP` and
//! `GL_POLYGON` (from immediate mode or `glDrawArrays`/`glDrawElements`)
//! become triangles, a triangle strip and a triangle fan, which every
//! backend draws. Quads are split so both triangles end on the quad's last
//! vertex, GL's provoking vertex for flat shading.
//!
//! Owns: the vertices between `glBegin` and `glEnd`. Never touches: the
//! core profile (its entry points answer GL_INVALID_OPERATION there, as the
//! registry stubs did) or the application's arrays (saved and restored
//! around the `glEnd` draw).

use super::dlist::with_gl_listed;
use crate::context::{FfArray, Gl, DIRTY_VERTEX};
use crate::shader::{FF_TEXCOORD0, FF_VERTEX};

use super::gl_err;

pub const QUADS: u32 = 0x0007;
pub const QUAD_STRIP: u32 = 0x0008;
pub const POLYGON: u32 = 0x0009;

/// Fixed-function slots recorded per vertex: the position, then normal,
/// colour, secondary colour, fog coordinate and texture coordinates 0–7
/// (`shader::FF_*` order up to the edge flag).
const SLOTS: usize = FF_TEXCOORD0 + 8;
/// Floats per recorded vertex.
const VERTEX_FLOATS: usize = SLOTS * 4;

/// The primitive being specified between glBegin and glEnd.
#[derive(Debug, Default)]
pub struct Immediate {
    mode: u32,
    data: Vec<f32>,
}

fn valid_begin_mode(mode: u32) -> bool {
    mode <= POLYGON
        || matches!(
            mode,
            glow::LINES_ADJACENCY
                | glow::LINE_STRIP_ADJACENCY
                | glow::TRIANGLES_ADJACENCY
                | glow::TRIANGLE_STRIP_ADJACENCY
                | glow::PATCHES
        )
}

#[no_mangle]
pub unsafe extern "C" fn glBegin(mode: u32) {
    with_gl_listed("glBegin", 0, move |gl| {
        if gl.st.is_core() || gl.st.ff.immediate.is_some() {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        if !valid_begin_mode(mode) {
            gl_err!(gl, glow::INVALID_ENUM);
        }
        gl.st.ff.immediate = Some(Immediate {
            mode,
            data: Vec::new(),
        });
    })
}

/// One vertex at `pos` with the current fixed-function values.
fn vertex(gl: &mut Gl, pos: [f32; 4]) {
    let current = gl.st.ff_current;
    let Some(im) = gl.st.ff.immediate.as_mut() else {
        // Outside glBegin/glEnd a vertex does nothing (GL 4.6 compat §10.7).
        return;
    };
    im.data.extend_from_slice(&pos);
    for slot in &current[FF_VERTEX + 1..SLOTS] {
        im.data.extend_from_slice(slot);
    }
}

#[no_mangle]
pub unsafe extern "C" fn glEnd() {
    with_gl_listed("glEnd", 0, move |gl| {
        let Some(im) = gl.st.ff.immediate.take() else {
            gl_err!(gl, glow::INVALID_OPERATION);
        };
        let count = im.data.len() / VERTEX_FLOATS;
        if count == 0 {
            return;
        }
        draw_recorded(gl, im.mode, &im.data, count);
    })
}

/// Draw `count` recorded vertices: every slot an enabled client array over
/// `data` on the bound VAO for the duration of the draw.
fn draw_recorded(gl: &mut Gl, mode: u32, data: &[f32], count: usize) {
    let Some(Some(vao)) = gl.st.vaos.get_mut(&gl.st.vao) else {
        return;
    };
    let saved = vao.ff;
    let stride = (VERTEX_FLOATS * 4) as u32;
    for (slot, a) in vao.ff.iter_mut().enumerate().take(SLOTS) {
        *a = FfArray {
            enabled: true,
            size: 4,
            ty: glow::FLOAT,
            normalized: false,
            stride,
            buffer: 0,
            offset: (data.as_ptr() as u64).wrapping_add((slot * 16) as u64),
        };
    }
    vao.rev += 1;
    gl.st.dirty |= DIRTY_VERTEX;
    super::draw::draw(gl, mode, 0, count as i32, None, 0, 1, 0, 0);
    if let Some(Some(vao)) = gl.st.vaos.get_mut(&gl.st.vao) {
        vao.ff = saved;
        vao.rev += 1;
    }
    gl.st.dirty |= DIRTY_VERTEX;
}

macro_rules! vertex_fns {
    ($($name:ident($($arg:ident: $t:ty),*) => $pos:expr;)*) => {$(
        #[no_mangle]
        pub unsafe extern "C" fn $name($($arg: $t),*) {
            with_gl_listed(stringify!($name), 0, move |gl| {
                if gl.st.is_core() {
                    gl_err!(gl, glow::INVALID_OPERATION);
                }
                vertex(gl, $pos)
            })
        }
    )*};
}

macro_rules! vertex_v_fns {
    ($($name:ident($t:ty, $n:expr);)*) => {$(
        #[no_mangle]
        pub unsafe extern "C" fn $name(v: *const $t) {
            let null = v.is_null();
            let mut pos = [0.0f32, 0.0, 0.0, 1.0];
            if !null {
                // SAFETY: GL promises `$n` components at `v`.
                let c = unsafe { std::slice::from_raw_parts(v, $n) };
                for (d, s) in pos.iter_mut().zip(c) {
                    *d = *s as f32;
                }
            }
            with_gl_listed(stringify!($name), 0, move |gl| {
                if gl.st.is_core() {
                    gl_err!(gl, glow::INVALID_OPERATION);
                }
                if null {
                    return;
                }
                vertex(gl, pos)
            })
        }
    )*};
}

vertex_fns! {
    glVertex2f(x: f32, y: f32) => [x, y, 0.0, 1.0];
    glVertex2d(x: f64, y: f64) => [x as f32, y as f32, 0.0, 1.0];
    glVertex2i(x: i32, y: i32) => [x as f32, y as f32, 0.0, 1.0];
    glVertex2s(x: i16, y: i16) => [f32::from(x), f32::from(y), 0.0, 1.0];
    glVertex3f(x: f32, y: f32, z: f32) => [x, y, z, 1.0];
    glVertex3d(x: f64, y: f64, z: f64) => [x as f32, y as f32, z as f32, 1.0];
    glVertex3i(x: i32, y: i32, z: i32) => [x as f32, y as f32, z as f32, 1.0];
    glVertex3s(x: i16, y: i16, z: i16) => [f32::from(x), f32::from(y), f32::from(z), 1.0];
    glVertex4f(x: f32, y: f32, z: f32, w: f32) => [x, y, z, w];
    glVertex4d(x: f64, y: f64, z: f64, w: f64) => [x as f32, y as f32, z as f32, w as f32];
    glVertex4i(x: i32, y: i32, z: i32, w: i32) => [x as f32, y as f32, z as f32, w as f32];
    glVertex4s(x: i16, y: i16, z: i16, w: i16) =>
        [f32::from(x), f32::from(y), f32::from(z), f32::from(w)];
}

vertex_v_fns! {
    glVertex2fv(f32, 2);
    glVertex2dv(f64, 2);
    glVertex2iv(i32, 2);
    glVertex2sv(i16, 2);
    glVertex3fv(f32, 3);
    glVertex3dv(f64, 3);
    glVertex3iv(i32, 3);
    glVertex3sv(i16, 3);
    glVertex4fv(f32, 4);
    glVertex4dv(f64, 4);
    glVertex4iv(i32, 4);
    glVertex4sv(i16, 4);
}

/// `glRect*`: a filled rectangle, as GL 4.6 compat §10.9 defines it (a
/// polygon of four vertices, counter-clockwise from (x1, y1)).
fn rect(gl: &mut Gl, x1: f32, y1: f32, x2: f32, y2: f32) {
    if gl.st.is_core() || gl.st.ff.immediate.is_some() {
        gl_err!(gl, glow::INVALID_OPERATION);
    }
    gl.st.ff.immediate = Some(Immediate {
        mode: POLYGON,
        data: Vec::new(),
    });
    for (x, y) in [(x1, y1), (x2, y1), (x2, y2), (x1, y2)] {
        vertex(gl, [x, y, 0.0, 1.0]);
    }
    if let Some(im) = gl.st.ff.immediate.take() {
        draw_recorded(gl, im.mode, &im.data, 4);
    }
}

#[no_mangle]
pub unsafe extern "C" fn glRectf(x1: f32, y1: f32, x2: f32, y2: f32) {
    with_gl_listed("glRect", 0, move |gl| rect(gl, x1, y1, x2, y2))
}

#[no_mangle]
pub unsafe extern "C" fn glRectd(x1: f64, y1: f64, x2: f64, y2: f64) {
    with_gl_listed("glRect", 0, move |gl| {
        rect(gl, x1 as f32, y1 as f32, x2 as f32, y2 as f32)
    })
}

#[no_mangle]
pub unsafe extern "C" fn glRecti(x1: i32, y1: i32, x2: i32, y2: i32) {
    with_gl_listed("glRect", 0, move |gl| {
        rect(gl, x1 as f32, y1 as f32, x2 as f32, y2 as f32)
    })
}

#[no_mangle]
pub unsafe extern "C" fn glRects(x1: i16, y1: i16, x2: i16, y2: i16) {
    with_gl_listed("glRect", 0, move |gl| {
        rect(gl, x1.into(), y1.into(), x2.into(), y2.into())
    })
}

/// A draw of a legacy primitive type in a compatibility context, redrawn
/// as a type every backend has; false = not a legacy type (or a core
/// context), the caller draws as usual.
#[allow(clippy::too_many_arguments)]
pub(super) fn legacy_mode_draw(
    gl: &mut Gl,
    mode: u32,
    first: i32,
    count: i32,
    index_ty: Option<u32>,
    indices: usize,
    instances: i32,
    base_vertex: i32,
    base_instance: u32,
) -> bool {
    if !matches!(mode, QUADS | QUAD_STRIP | POLYGON) || gl.st.is_core() {
        return false;
    }
    // Two triangles per quad; a polygon is one primitive.
    let scale = if mode == POLYGON { 0.0 } else { 0.5 };
    super::points::set_primitive_id_scale(gl, scale);
    legacy_mode_redraw(
        gl,
        mode,
        first,
        count,
        index_ty,
        indices,
        instances,
        base_vertex,
        base_instance,
    );
    super::points::set_primitive_id_scale(gl, 1.0);
    true
}

/// [`legacy_mode_draw`]'s draw as triangles.
#[allow(clippy::too_many_arguments)]
fn legacy_mode_redraw(
    gl: &mut Gl,
    mode: u32,
    first: i32,
    count: i32,
    index_ty: Option<u32>,
    indices: usize,
    instances: i32,
    base_vertex: i32,
    base_instance: u32,
) -> bool {
    let args = |m: u32, c: i32| (m, c);
    let (new_mode, new_count) = match mode {
        // A quad strip is a triangle strip over the same vertices (pairs
        // only: an odd last vertex is dropped).
        QUAD_STRIP => args(glow::TRIANGLE_STRIP, if count < 4 { 0 } else { count & !1 }),
        POLYGON => args(glow::TRIANGLE_FAN, if count < 3 { 0 } else { count }),
        _ => args(glow::TRIANGLES, count),
    };
    if mode != QUADS {
        super::draw::draw(
            gl,
            new_mode,
            first,
            new_count,
            index_ty,
            indices,
            instances,
            base_vertex,
            base_instance,
        );
        return true;
    }
    if count < 0 || first < 0 {
        gl.st.set_error(glow::INVALID_VALUE);
        return true;
    }
    // Quads: the vertex (or index) sequence of every whole quad, as two
    // triangles ending on its last vertex.
    let quads = count as usize / 4;
    let source: Vec<u32> = match index_ty {
        None => (0..quads * 4).map(|i| first as u32 + i as u32).collect(),
        Some(ty) => match read_indices(gl, ty, indices, quads * 4) {
            Ok(v) => v,
            Err(e) => {
                gl.st.set_error(e);
                return true;
            }
        },
    };
    let mut tris: Vec<u32> = Vec::with_capacity(quads * 6);
    for q in source.chunks_exact(4) {
        tris.extend_from_slice(&[q[0], q[1], q[3], q[1], q[2], q[3]]);
    }
    // Client-memory indices: the bound VAO's element buffer is set aside
    // for this draw.
    let saved = match gl.st.vaos.get_mut(&gl.st.vao) {
        Some(Some(v)) => {
            let e = v.element_buffer;
            v.element_buffer = 0;
            v.rev += 1;
            e
        }
        _ => return true,
    };
    gl.st.dirty |= DIRTY_VERTEX;
    super::draw::draw(
        gl,
        glow::TRIANGLES,
        0,
        tris.len() as i32,
        Some(glow::UNSIGNED_INT),
        tris.as_ptr() as usize,
        instances,
        base_vertex,
        base_instance,
    );
    if let Some(Some(v)) = gl.st.vaos.get_mut(&gl.st.vao) {
        v.element_buffer = saved;
        v.rev += 1;
    }
    gl.st.dirty |= DIRTY_VERTEX;
    true
}

/// `n` indices of type `ty` at `at` (an offset into the bound element
/// buffer, or client memory when none is bound), widened to u32.
fn read_indices(gl: &mut Gl, ty: u32, at: usize, n: usize) -> Result<Vec<u32>, u32> {
    let size = match ty {
        glow::UNSIGNED_BYTE => 1,
        glow::UNSIGNED_SHORT => 2,
        glow::UNSIGNED_INT => 4,
        _ => return Err(glow::INVALID_ENUM),
    };
    let bytes = n * size;
    let element = match gl.st.vaos.get(&gl.st.vao) {
        Some(Some(v)) => v.element_buffer,
        _ => 0,
    };
    let raw = if element != 0 {
        let Some(Some(b)) = gl.sh.buffers.get(&element) else {
            return Err(glow::INVALID_OPERATION);
        };
        let h = b.handle;
        super::buffers::read_buffer(
            gl,
            h,
            at as u64,
            bytes as u64,
            crate::runtime::BlockingCause::BufferRead,
        )
    } else if at == 0 {
        return Err(glow::INVALID_OPERATION);
    } else {
        // SAFETY: the application promises `n` indices at `at` (client
        // memory, compatibility profile).
        unsafe { super::slice(at as *const u8, bytes as i32) }.to_vec()
    };
    Ok(super::draw::index_values(&raw, size).collect())
}
