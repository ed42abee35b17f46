//! The benchmark cases, shaped on Minecraft's measured frames.
//!
//! Every case renders into one 256×256 RGBA8 FBO divided into a 64×64 grid
//! of 4×4-pixel cells; each draw covers one cell, and its colour is a pure
//! function of the draw's index, so the expected picture after the last
//! frame can be computed here and compared with a read-back (a broken path
//! cannot look fast: the case is marked failed instead of timed).

use std::ffi::{c_void, CString};

use crate::gl::*;

/// Render target edge in pixels.
pub const SIZE: i32 = 256;
/// Cells per edge.
const GRID: u32 = 64;
/// Cell edge in pixels.
const CELL_PX: u32 = (SIZE as u32) / GRID;
/// Cell edge in NDC (exact in f32).
const CELL_NDC: f32 = 2.0 / GRID as f32;
const CELLS: u32 = GRID * GRID;
/// The clear colour of the drawing cases, as bytes (exact in unorm8).
const CLEAR: [u8; 4] = [64, 64, 64, 255];
/// Colour tolerance per channel (interpolation/rounding differences).
const TOL: u8 = 2;

/// One benchmark case.
pub trait Case {
    fn name(&self) -> &'static str;
    /// What one "operation" is (the unit of ns/op).
    fn op(&self) -> &'static str;
    fn ops_per_frame(&self) -> u32;
    /// Create objects (untimed).
    fn setup(&mut self, gl: &Gl) -> Result<(), String>;
    /// Issue frame `f` (the caller times it and ends it with `glFinish`).
    fn frame(&mut self, gl: &Gl, f: u64);
    /// Verify the target after `last` (the index of the last frame issued).
    fn check(&mut self, gl: &Gl, last: u64) -> Result<(), String>;
}

pub const NAMES: [&str; 6] = ["vanilla", "blend", "sodium", "ubo", "texture", "readback"];

pub fn make(name: &str) -> Option<Box<dyn Case>> {
    Some(match name {
        "vanilla" => Box::new(Vanilla::default()),
        "blend" => Box::new(Blend::default()),
        "sodium" => Box::new(Sodium::default()),
        "ubo" => Box::new(UboRanges::default()),
        "texture" => Box::new(TextureUpload::default()),
        "readback" => Box::new(Readback::default()),
        _ => return None,
    })
}

// ---- shared helpers -------------------------------------------------------

/// The FBO every case renders into.
pub struct Target {
    pub fbo: GLuint,
}

impl Target {
    pub fn create(gl: &Gl) -> Result<Target, String> {
        let (mut fbo, mut rb) = (0, 0);
        // SAFETY: GL calls on the current context with valid out-pointers.
        unsafe {
            (gl.glGenRenderbuffers)(1, &mut rb);
            (gl.glBindRenderbuffer)(RENDERBUFFER, rb);
            (gl.glRenderbufferStorage)(RENDERBUFFER, RGBA8, SIZE, SIZE);
            (gl.glGenFramebuffers)(1, &mut fbo);
            (gl.glBindFramebuffer)(FRAMEBUFFER, fbo);
            (gl.glFramebufferRenderbuffer)(FRAMEBUFFER, COLOR_ATTACHMENT0, RENDERBUFFER, rb);
            let st = (gl.glCheckFramebufferStatus)(FRAMEBUFFER);
            if st != FRAMEBUFFER_COMPLETE {
                return Err(format!("the RGBA8 FBO is incomplete: status 0x{st:04x}"));
            }
            (gl.glViewport)(0, 0, SIZE, SIZE);
        }
        gl.check_error("creating the FBO")?;
        Ok(Target { fbo })
    }
}

/// Read the whole target, tightly packed RGBA8, bottom row first.
pub fn read_target(gl: &Gl) -> Vec<u8> {
    let mut px = vec![0u8; (SIZE * SIZE * 4) as usize];
    // SAFETY: `px` holds SIZE*SIZE RGBA8 pixels with pack alignment 4 and
    // row length 0 (tight rows).
    unsafe {
        (gl.glPixelStorei)(PACK_ALIGNMENT, 4);
        (gl.glPixelStorei)(PACK_ROW_LENGTH, 0);
        (gl.glReadPixels)(
            0,
            0,
            SIZE,
            SIZE,
            RGBA,
            UNSIGNED_BYTE,
            px.as_mut_ptr().cast(),
        );
    }
    px
}

fn pixel(px: &[u8], x: u32, y: u32) -> [u8; 4] {
    let i = ((y * SIZE as u32 + x) * 4) as usize;
    match px.get(i..i + 4) {
        Some(p) => [p[0], p[1], p[2], p[3]],
        None => [0; 4],
    }
}

fn close(a: [u8; 4], b: [u8; 4], tol: u8) -> bool {
    a.iter().zip(b.iter()).all(|(x, y)| x.abs_diff(*y) <= tol)
}

/// Compare the centre pixel of every cell with `want(cell)`.
fn check_cells(px: &[u8], want: impl Fn(u32) -> [u8; 4]) -> Result<(), String> {
    let mut bad = 0;
    let mut first = None;
    for c in 0..CELLS {
        let (x, y) = (
            (c % GRID) * CELL_PX + CELL_PX / 2,
            (c / GRID) * CELL_PX + CELL_PX / 2,
        );
        let got = pixel(px, x, y);
        let w = want(c);
        if !close(got, w, TOL) {
            bad += 1;
            if first.is_none() {
                first = Some(format!(
                    "cell {c} pixel ({x},{y}) = {got:?}, expected {w:?}"
                ));
            }
        }
    }
    match first {
        None => Ok(()),
        Some(f) => Err(format!(
            "pixel check: {bad} of {CELLS} cells wrong; first: {f}"
        )),
    }
}

/// NDC of the lower-left corner of cell `c`.
fn cell_origin(c: u32) -> (f32, f32) {
    (
        -1.0 + (c % GRID) as f32 * CELL_NDC,
        -1.0 + (c / GRID) as f32 * CELL_NDC,
    )
}

fn unorm(k: u32) -> f32 {
    (k & 0xff) as f32 / 255.0
}

fn set_clear(gl: &Gl, c: [u8; 4]) {
    // SAFETY: plain state call.
    unsafe {
        (gl.glClearColor)(
            unorm(c[0].into()),
            unorm(c[1].into()),
            unorm(c[2].into()),
            unorm(c[3].into()),
        )
    };
}

fn compile(gl: &Gl, kind: GLenum, src: &str) -> Result<GLuint, String> {
    let c = CString::new(src).map_err(|e| e.to_string())?;
    // SAFETY: one NUL-terminated source string, lengths NULL; out-pointers
    // are valid; the log buffer's length is passed.
    unsafe {
        let s = (gl.glCreateShader)(kind);
        let p = c.as_ptr();
        (gl.glShaderSource)(s, 1, &p, std::ptr::null());
        (gl.glCompileShader)(s);
        let mut ok = 0;
        (gl.glGetShaderiv)(s, COMPILE_STATUS, &mut ok);
        if ok == 0 {
            let mut log = vec![0u8; 1024];
            let mut n = 0;
            (gl.glGetShaderInfoLog)(s, log.len() as i32, &mut n, log.as_mut_ptr().cast());
            log.truncate(n.clamp(0, 1024) as usize);
            (gl.glDeleteShader)(s);
            return Err(format!(
                "shader did not compile: {}",
                String::from_utf8_lossy(&log)
            ));
        }
        Ok(s)
    }
}

/// Compile and link; `attribs[i]` is bound to location `i`.
fn program(gl: &Gl, vs: &str, fs: &str, attribs: &[&str]) -> Result<GLuint, String> {
    let v = compile(gl, VERTEX_SHADER, vs)?;
    let f = compile(gl, FRAGMENT_SHADER, fs)?;
    // SAFETY: GL calls on the current context; names are NUL-terminated.
    unsafe {
        let p = (gl.glCreateProgram)();
        (gl.glAttachShader)(p, v);
        (gl.glAttachShader)(p, f);
        for (i, a) in attribs.iter().enumerate() {
            let c = CString::new(*a).map_err(|e| e.to_string())?;
            (gl.glBindAttribLocation)(p, i as u32, c.as_ptr());
        }
        (gl.glLinkProgram)(p);
        (gl.glDeleteShader)(v);
        (gl.glDeleteShader)(f);
        let mut ok = 0;
        (gl.glGetProgramiv)(p, LINK_STATUS, &mut ok);
        if ok == 0 {
            let mut log = vec![0u8; 1024];
            let mut n = 0;
            (gl.glGetProgramInfoLog)(p, log.len() as i32, &mut n, log.as_mut_ptr().cast());
            log.truncate(n.clamp(0, 1024) as usize);
            return Err(format!(
                "program did not link: {}",
                String::from_utf8_lossy(&log)
            ));
        }
        Ok(p)
    }
}

fn uniform(gl: &Gl, p: GLuint, name: &str) -> Result<GLint, String> {
    let c = CString::new(name).map_err(|e| e.to_string())?;
    // SAFETY: a linked program and a NUL-terminated name.
    let loc = unsafe { (gl.glGetUniformLocation)(p, c.as_ptr()) };
    if loc < 0 {
        return Err(format!("uniform {name} not found"));
    }
    Ok(loc)
}

fn buffer(gl: &Gl, target: GLenum, data: &[u8]) -> GLuint {
    let mut b = 0;
    // SAFETY: `data` is valid for its length; `b` is a valid out-pointer.
    unsafe {
        (gl.glGenBuffers)(1, &mut b);
        (gl.glBindBuffer)(target, b);
        (gl.glBufferData)(
            target,
            data.len() as isize,
            data.as_ptr().cast(),
            STATIC_DRAW,
        );
    }
    b
}

fn vao(gl: &Gl) -> GLuint {
    let mut v = 0;
    // SAFETY: valid out-pointer.
    unsafe {
        (gl.glGenVertexArrays)(1, &mut v);
        (gl.glBindVertexArray)(v);
    }
    v
}

/// Attribute `loc` from the bound ARRAY_BUFFER.
fn attrib(gl: &Gl, loc: u32, size: i32, ty: GLenum, norm: bool, stride: i32, offset: usize) {
    // SAFETY: an offset into the bound buffer object (no client memory).
    unsafe {
        (gl.glVertexAttribPointer)(
            loc,
            size,
            ty,
            u8::from(norm),
            stride,
            offset as *const c_void,
        );
        (gl.glEnableVertexAttribArray)(loc);
    }
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|f| f.to_le_bytes()).collect()
}

fn u16s(v: &[u16]) -> Vec<u8> {
    v.iter().flat_map(|f| f.to_le_bytes()).collect()
}

/// A unit quad [0,1]², 4 vertices (vec2), `copies` times.
fn unit_quads(copies: usize) -> Vec<u8> {
    let q = [0.0f32, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0];
    f32s(&q.repeat(copies))
}

const QUAD_INDICES: [u16; 6] = [0, 1, 2, 2, 1, 3];

/// The colour baked into the world mesh for cell `c` (alpha 128).
fn world_colour(c: u32) -> [u8; 4] {
    [
        (c.wrapping_mul(37) % 192) as u8,
        (c.wrapping_mul(11).wrapping_add(50) % 192) as u8,
        (c.wrapping_mul(5).wrapping_add(100) % 192) as u8,
        128,
    ]
}

/// The "world": one quad per cell at its absolute position, vertices
/// `{vec2 pos; u8x4 colour}` (12 bytes), and 6 indices per quad.
struct World {
    vbo: GLuint,
    ibo: GLuint,
}

impl World {
    fn create(gl: &Gl) -> World {
        let mut v = Vec::with_capacity(CELLS as usize * 4 * 12);
        let mut idx = Vec::with_capacity(CELLS as usize * 6);
        for c in 0..CELLS {
            let (x, y) = cell_origin(c);
            let col = world_colour(c);
            for (dx, dy) in [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)] {
                v.extend_from_slice(&(x + dx * CELL_NDC).to_le_bytes());
                v.extend_from_slice(&(y + dy * CELL_NDC).to_le_bytes());
                v.extend_from_slice(&col);
            }
            idx.extend(QUAD_INDICES.iter().map(|i| *i + (c * 4) as u16));
        }
        World {
            vbo: buffer(gl, ARRAY_BUFFER, &v),
            ibo: buffer(gl, ELEMENT_ARRAY_BUFFER, &u16s(&idx)),
        }
    }

    /// A VAO over the world buffers (attr 0 = pos, attr 1 = colour).
    fn vao(&self, gl: &Gl) -> GLuint {
        let v = vao(gl);
        // SAFETY: binding buffers this struct created.
        unsafe {
            (gl.glBindBuffer)(ARRAY_BUFFER, self.vbo);
            (gl.glBindBuffer)(ELEMENT_ARRAY_BUFFER, self.ibo);
        }
        attrib(gl, 0, 2, FLOAT, false, 12, 0);
        attrib(gl, 1, 4, UNSIGNED_BYTE, true, 12, 8);
        v
    }
}

const VS_WORLD: &str = "#version 330 core
in vec2 a_pos;
in vec4 a_col;
uniform vec3 u_off;
out vec4 v_col;
void main() {
    v_col = vec4(a_col.rgb * u_off.z, a_col.a);
    gl_Position = vec4(a_pos + u_off.xy, 0.0, 1.0);
}
";
const FS_VARYING: &str = "#version 330 core
in vec4 v_col;
out vec4 o_color;
void main() { o_color = v_col; }
";

fn world_program(gl: &Gl) -> Result<(GLuint, GLint), String> {
    let p = program(gl, VS_WORLD, FS_VARYING, &["a_pos", "a_col"])?;
    Ok((p, uniform(gl, p, "u_off")?))
}

// ---- vanilla ---------------------------------------------------------------

/// 5495 × {bind VAO, glUniform3fv, glDrawElements}.
#[derive(Default)]
pub struct Vanilla {
    prog: GLuint,
    loc: GLint,
    vaos: Vec<GLuint>,
    offs: Vec<[f32; 3]>,
}

const VANILLA_DRAWS: u32 = 5495;
const VANILLA_VAOS: usize = 8;

fn vanilla_colour(i: u32) -> [u8; 4] {
    let k = i % 251;
    [k as u8, (255 - k) as u8, 64, 255]
}

impl Case for Vanilla {
    fn name(&self) -> &'static str {
        "vanilla"
    }
    fn op(&self) -> &'static str {
        "bind VAO + glUniform3fv + glDrawElements"
    }
    fn ops_per_frame(&self) -> u32 {
        VANILLA_DRAWS
    }
    fn setup(&mut self, gl: &Gl) -> Result<(), String> {
        let vs = "#version 330 core
in vec2 a_pos;
uniform vec3 u_off;
void main() { gl_Position = vec4(a_pos * 0.03125 + u_off.xy, 0.0, 1.0); }
";
        let fs = "#version 330 core
uniform vec3 u_off;
out vec4 o_color;
void main() { o_color = vec4(u_off.z, 1.0 - u_off.z, 0.2509804, 1.0); }
";
        self.prog = program(gl, vs, fs, &["a_pos"])?;
        self.loc = uniform(gl, self.prog, "u_off")?;
        for _ in 0..VANILLA_VAOS {
            let v = vao(gl);
            buffer(gl, ARRAY_BUFFER, &unit_quads(1));
            attrib(gl, 0, 2, FLOAT, false, 8, 0);
            buffer(gl, ELEMENT_ARRAY_BUFFER, &u16s(&QUAD_INDICES));
            self.vaos.push(v);
        }
        self.offs = (0..VANILLA_DRAWS)
            .map(|i| {
                let (x, y) = cell_origin(i % CELLS);
                [x, y, unorm(i % 251)]
            })
            .collect();
        set_clear(gl, CLEAR);
        gl.check_error("vanilla setup")
    }
    fn frame(&mut self, gl: &Gl, _f: u64) {
        // SAFETY: objects from setup; `offs` entries are 3 floats each.
        unsafe {
            (gl.glClear)(COLOR_BUFFER_BIT);
            (gl.glUseProgram)(self.prog);
            for (i, off) in self.offs.iter().enumerate() {
                (gl.glBindVertexArray)(self.vaos[i % VANILLA_VAOS]);
                (gl.glUniform3fv)(self.loc, 1, off.as_ptr());
                (gl.glDrawElements)(TRIANGLES, 6, UNSIGNED_SHORT, std::ptr::null());
            }
        }
    }
    fn check(&mut self, gl: &Gl, _last: u64) -> Result<(), String> {
        let px = read_target(gl);
        check_cells(&px, |c| {
            // The last draw that landed on cell c.
            let mut last = None;
            let mut i = c;
            while i < VANILLA_DRAWS {
                last = Some(i);
                i += CELLS;
            }
            last.map_or(CLEAR, vanilla_colour)
        })
    }
}

// ---- blend toggles ---------------------------------------------------------

/// 46 × {enable blend, glBlendFuncSeparate, draw, disable, draw}.
#[derive(Default)]
pub struct Blend {
    prog: GLuint,
    loc: GLint,
    vao: GLuint,
}

const BLEND_GROUPS: u32 = 46;

impl Case for Blend {
    fn name(&self) -> &'static str {
        "blend"
    }
    fn op(&self) -> &'static str {
        "glEnable(BLEND) + glBlendFuncSeparate + draw + glDisable + draw"
    }
    fn ops_per_frame(&self) -> u32 {
        BLEND_GROUPS
    }
    fn setup(&mut self, gl: &Gl) -> Result<(), String> {
        (self.prog, self.loc) = world_program(gl)?;
        self.vao = World::create(gl).vao(gl);
        set_clear(gl, CLEAR);
        gl.check_error("blend setup")
    }
    fn frame(&mut self, gl: &Gl, _f: u64) {
        // SAFETY: objects from setup; index offsets lie inside the world IBO.
        unsafe {
            (gl.glClear)(COLOR_BUFFER_BIT);
            (gl.glUseProgram)(self.prog);
            (gl.glUniform3f)(self.loc, 0.0, 0.0, 1.0);
            (gl.glBindVertexArray)(self.vao);
            for g in 0..BLEND_GROUPS as usize {
                (gl.glEnable)(BLEND);
                // Additive colour, keep the destination's alpha.
                (gl.glBlendFuncSeparate)(ONE, ONE, ZERO, ONE);
                (gl.glDrawElements)(TRIANGLES, 6, UNSIGNED_SHORT, (2 * g * 12) as *const c_void);
                (gl.glDisable)(BLEND);
                (gl.glDrawElements)(
                    TRIANGLES,
                    6,
                    UNSIGNED_SHORT,
                    ((2 * g + 1) * 12) as *const c_void,
                );
            }
        }
    }
    fn check(&mut self, gl: &Gl, _last: u64) -> Result<(), String> {
        let px = read_target(gl);
        check_cells(&px, |c| {
            if c >= 2 * BLEND_GROUPS {
                CLEAR
            } else if c % 2 == 0 {
                let w = world_colour(c);
                [
                    w[0].saturating_add(CLEAR[0]),
                    w[1].saturating_add(CLEAR[1]),
                    w[2].saturating_add(CLEAR[2]),
                    CLEAR[3],
                ]
            } else {
                world_colour(c)
            }
        })
    }
}

// ---- Sodium ----------------------------------------------------------------

/// 132 × {glBindVertexArray, glUniform3f, glMultiDrawElementsBaseVertex of
/// 16 sub-draws}, all from one shared vertex/index buffer.
#[derive(Default)]
pub struct Sodium {
    prog: GLuint,
    loc: GLint,
    vaos: Vec<GLuint>,
    base: Vec<[GLint; SODIUM_SUB]>,
}

const SODIUM_DRAWS: u32 = 132;
const SODIUM_SUB: usize = 16;
const SODIUM_VAOS: usize = 4;

impl Case for Sodium {
    fn name(&self) -> &'static str {
        "sodium"
    }
    fn op(&self) -> &'static str {
        "glBindVertexArray + glUniform3f + glMultiDrawElementsBaseVertex(16)"
    }
    fn ops_per_frame(&self) -> u32 {
        SODIUM_DRAWS
    }
    fn setup(&mut self, gl: &Gl) -> Result<(), String> {
        (self.prog, self.loc) = world_program(gl)?;
        let world = World::create(gl);
        self.vaos = (0..SODIUM_VAOS).map(|_| world.vao(gl)).collect();
        self.base = (0..SODIUM_DRAWS)
            .map(|m| {
                let mut b = [0; SODIUM_SUB];
                for (s, v) in b.iter_mut().enumerate() {
                    *v = 4 * (m as i32 * SODIUM_SUB as i32 + s as i32);
                }
                b
            })
            .collect();
        set_clear(gl, CLEAR);
        gl.check_error("sodium setup")
    }
    fn frame(&mut self, gl: &Gl, _f: u64) {
        let counts = [6i32; SODIUM_SUB];
        let offsets = [std::ptr::null::<c_void>(); SODIUM_SUB];
        // SAFETY: objects from setup; the arrays hold SODIUM_SUB entries;
        // base vertices stay inside the world VBO.
        unsafe {
            (gl.glClear)(COLOR_BUFFER_BIT);
            (gl.glUseProgram)(self.prog);
            for (m, base) in self.base.iter().enumerate() {
                (gl.glBindVertexArray)(self.vaos[m % SODIUM_VAOS]);
                // Region origin: one cell to the right.
                (gl.glUniform3f)(self.loc, CELL_NDC, 0.0, 1.0);
                (gl.glMultiDrawElementsBaseVertex)(
                    TRIANGLES,
                    counts.as_ptr(),
                    UNSIGNED_SHORT,
                    offsets.as_ptr(),
                    SODIUM_SUB as i32,
                    base.as_ptr(),
                );
            }
        }
    }
    fn check(&mut self, gl: &Gl, _last: u64) -> Result<(), String> {
        let px = read_target(gl);
        let quads = SODIUM_DRAWS * SODIUM_SUB as u32;
        check_cells(&px, |c| {
            // Quad q lands one cell right of its own cell (off-screen at the
            // right edge).
            let (x, y) = (c % GRID, c / GRID);
            if x == 0 {
                return CLEAR;
            }
            let q = y * GRID + x - 1;
            if q < quads {
                world_colour(q)
            } else {
                CLEAR
            }
        })
    }
}

// ---- UBO ranges ------------------------------------------------------------

/// 3401 × {glBindBufferRange(UNIFORM_BUFFER), glBindBuffer(ELEMENT_ARRAY),
/// glDrawElementsBaseVertex}.
#[derive(Default)]
pub struct UboRanges {
    prog: GLuint,
    vao: GLuint,
    ubo: GLuint,
    ibos: [GLuint; 2],
    stride: usize,
}

const UBO_DRAWS: u32 = 3401;

fn ubo_colour(i: u32) -> [u8; 4] {
    [(i % 251) as u8, (i.wrapping_mul(3) % 256) as u8, 64, 255]
}

impl Case for UboRanges {
    fn name(&self) -> &'static str {
        "ubo"
    }
    fn op(&self) -> &'static str {
        "glBindBufferRange + glBindBuffer + glDrawElementsBaseVertex"
    }
    fn ops_per_frame(&self) -> u32 {
        UBO_DRAWS
    }
    fn setup(&mut self, gl: &Gl) -> Result<(), String> {
        let vs = "#version 330 core
layout(std140) uniform Draw { vec4 u_d; };
in vec2 a_pos;
flat out vec2 v_c;
void main() {
    v_c = u_d.zw;
    gl_Position = vec4(a_pos * 0.03125 + u_d.xy, 0.0, 1.0);
}
";
        let fs = "#version 330 core
flat in vec2 v_c;
out vec4 o_color;
void main() { o_color = vec4(v_c, 0.2509804, 1.0); }
";
        self.prog = program(gl, vs, fs, &["a_pos"])?;
        let name = CString::new("Draw").map_err(|e| e.to_string())?;
        // SAFETY: a linked program and a NUL-terminated block name.
        let block = unsafe { (gl.glGetUniformBlockIndex)(self.prog, name.as_ptr()) };
        if block == INVALID_INDEX {
            return Err("uniform block Draw not found".into());
        }
        // SAFETY: a valid block index of the program.
        unsafe { (gl.glUniformBlockBinding)(self.prog, block, 0) };
        let align = gl.integer(UNIFORM_BUFFER_OFFSET_ALIGNMENT).max(1) as usize;
        self.stride = 16usize.div_ceil(align) * align;
        let mut data = vec![0u8; self.stride * UBO_DRAWS as usize];
        for i in 0..UBO_DRAWS {
            let (x, y) = cell_origin(i % CELLS);
            let c = ubo_colour(i);
            let at = i as usize * self.stride;
            data[at..at + 16].copy_from_slice(&f32s(&[
                x,
                y,
                unorm(c[0].into()),
                unorm(c[1].into()),
            ]));
        }
        self.ubo = buffer(gl, UNIFORM_BUFFER, &data);
        self.vao = vao(gl);
        buffer(gl, ARRAY_BUFFER, &unit_quads(4));
        attrib(gl, 0, 2, FLOAT, false, 8, 0);
        self.ibos = [
            buffer(gl, ELEMENT_ARRAY_BUFFER, &u16s(&QUAD_INDICES)),
            buffer(gl, ELEMENT_ARRAY_BUFFER, &u16s(&QUAD_INDICES)),
        ];
        set_clear(gl, CLEAR);
        gl.check_error("ubo setup")
    }
    fn frame(&mut self, gl: &Gl, _f: u64) {
        // SAFETY: objects from setup; ranges lie inside the UBO.
        unsafe {
            (gl.glClear)(COLOR_BUFFER_BIT);
            (gl.glUseProgram)(self.prog);
            (gl.glBindVertexArray)(self.vao);
            for i in 0..UBO_DRAWS as usize {
                (gl.glBindBufferRange)(UNIFORM_BUFFER, 0, self.ubo, (i * self.stride) as isize, 16);
                (gl.glBindBuffer)(ELEMENT_ARRAY_BUFFER, self.ibos[i % 2]);
                (gl.glDrawElementsBaseVertex)(
                    TRIANGLES,
                    6,
                    UNSIGNED_SHORT,
                    std::ptr::null(),
                    4 * (i % 4) as i32,
                );
            }
        }
    }
    fn check(&mut self, gl: &Gl, _last: u64) -> Result<(), String> {
        let px = read_target(gl);
        check_cells(&px, |c| if c < UBO_DRAWS { ubo_colour(c) } else { CLEAR })
    }
}

// ---- texture upload ----------------------------------------------------------

/// 95 × {3 glPixelStorei + glTexSubImage2D 16×16} (unpack state reset
/// after them) + 23 × {glBindBuffer + glBufferData 64 KiB}.
#[derive(Default)]
pub struct TextureUpload {
    prog: GLuint,
    tex: GLuint,
    bufs: Vec<GLuint>,
    check_vao: GLuint,
    /// Two 64×64 RGBA source images (even/odd frames).
    src: [Vec<u8>; 2],
    /// Two 64 KiB buffer contents (even/odd frames).
    blob: [Vec<u8>; 2],
}

const TEX_UPLOADS: u32 = 95;
const BUF_UPLOADS: usize = 23;
const BUF_BYTES: usize = 64 << 10;
const ATLAS: i32 = 256;
const SRC: u32 = 64;

fn src_texel(p: u32, x: u32, y: u32) -> [u8; 4] {
    [
        (x * 3 + y * 5 + p * 101) as u8,
        (x * 7 + y * 2 + p * 37) as u8,
        (x ^ y).wrapping_add(p * 13) as u8,
        (200 + (x + y + p) % 56) as u8,
    ]
}

/// Atlas tile position and source sub-rectangle of upload `i`.
fn tile(i: u32) -> ((u32, u32), (u32, u32)) {
    let s = i % 16;
    (((i % 16) * 16, (i / 16) * 16), ((s % 4) * 16, (s / 4) * 16))
}

impl Case for TextureUpload {
    fn name(&self) -> &'static str {
        "texture"
    }
    fn op(&self) -> &'static str {
        "one upload (95 glTexSubImage2D 16x16 with glPixelStorei, 23 glBufferData 64 KiB)"
    }
    fn ops_per_frame(&self) -> u32 {
        TEX_UPLOADS + BUF_UPLOADS as u32
    }
    fn setup(&mut self, gl: &Gl) -> Result<(), String> {
        let vs = "#version 330 core
in vec2 a_pos;
void main() { gl_Position = vec4(a_pos, 0.0, 1.0); }
";
        let fs = "#version 330 core
uniform sampler2D u_tex;
out vec4 o_color;
void main() { o_color = texelFetch(u_tex, ivec2(gl_FragCoord.xy), 0); }
";
        self.prog = program(gl, vs, fs, &["a_pos"])?;
        let loc = uniform(gl, self.prog, "u_tex")?;
        for p in 0..2u32 {
            let mut img = Vec::with_capacity((SRC * SRC * 4) as usize);
            for y in 0..SRC {
                for x in 0..SRC {
                    img.extend_from_slice(&src_texel(p, x, y));
                }
            }
            self.src[p as usize] = img;
            let mut b: Vec<u8> = (0..BUF_BYTES)
                .map(|i| (i as u32 * 7 + p * 3) as u8)
                .collect();
            // The first 4 vertices: a full-target strip (used by check).
            b[..32].copy_from_slice(&f32s(&[-1.0, -1.0, 1.0, -1.0, -1.0, 1.0, 1.0, 1.0]));
            self.blob[p as usize] = b;
        }
        // SAFETY: GL calls on the current context; NULL data allocates
        // undefined contents; out-pointers are valid.
        unsafe {
            (gl.glUseProgram)(self.prog);
            (gl.glUniform1i)(loc, 0);
            (gl.glActiveTexture)(TEXTURE0);
            (gl.glGenTextures)(1, &mut self.tex);
            (gl.glBindTexture)(TEXTURE_2D, self.tex);
            (gl.glTexParameteri)(TEXTURE_2D, TEXTURE_MIN_FILTER, NEAREST);
            (gl.glTexParameteri)(TEXTURE_2D, TEXTURE_MAG_FILTER, NEAREST);
            (gl.glTexImage2D)(
                TEXTURE_2D,
                0,
                RGBA8 as i32,
                ATLAS,
                ATLAS,
                0,
                RGBA,
                UNSIGNED_BYTE,
                std::ptr::null(),
            );
            (gl.glPixelStorei)(UNPACK_ALIGNMENT, 4);
        }
        self.bufs = (0..BUF_UPLOADS)
            .map(|_| buffer(gl, ARRAY_BUFFER, &self.blob[0]))
            .collect();
        self.check_vao = vao(gl);
        // SAFETY: binding a buffer created above.
        unsafe { (gl.glBindBuffer)(ARRAY_BUFFER, self.bufs[BUF_UPLOADS - 1]) };
        attrib(gl, 0, 2, FLOAT, false, 8, 0);
        set_clear(gl, CLEAR);
        gl.check_error("texture setup")
    }
    fn frame(&mut self, gl: &Gl, f: u64) {
        let p = (f % 2) as usize;
        let src = self.src[p].as_ptr();
        let blob = self.blob[p].as_ptr();
        // SAFETY: the source image is 64×64 RGBA8 and every sub-rectangle
        // (skip + 16 ≤ 64 with row length 64) lies inside it; the blob is
        // BUF_BYTES long; objects from setup.
        unsafe {
            (gl.glClear)(COLOR_BUFFER_BIT);
            (gl.glBindTexture)(TEXTURE_2D, self.tex);
            for i in 0..TEX_UPLOADS {
                let ((tx, ty), (sx, sy)) = tile(i);
                (gl.glPixelStorei)(UNPACK_ROW_LENGTH, SRC as i32);
                (gl.glPixelStorei)(UNPACK_SKIP_PIXELS, sx as i32);
                (gl.glPixelStorei)(UNPACK_SKIP_ROWS, sy as i32);
                (gl.glTexSubImage2D)(
                    TEXTURE_2D,
                    0,
                    tx as i32,
                    ty as i32,
                    16,
                    16,
                    RGBA,
                    UNSIGNED_BYTE,
                    src.cast(),
                );
            }
            (gl.glPixelStorei)(UNPACK_ROW_LENGTH, 0);
            (gl.glPixelStorei)(UNPACK_SKIP_PIXELS, 0);
            (gl.glPixelStorei)(UNPACK_SKIP_ROWS, 0);
            for b in &self.bufs {
                (gl.glBindBuffer)(ARRAY_BUFFER, *b);
                (gl.glBufferData)(ARRAY_BUFFER, BUF_BYTES as isize, blob.cast(), STREAM_DRAW);
            }
        }
    }
    fn check(&mut self, gl: &Gl, last: u64) -> Result<(), String> {
        // Draw the atlas 1:1 with the last uploaded buffer's vertices.
        // SAFETY: objects from setup.
        unsafe {
            (gl.glUseProgram)(self.prog);
            (gl.glBindVertexArray)(self.check_vao);
            (gl.glBindTexture)(TEXTURE_2D, self.tex);
            (gl.glDrawArrays)(TRIANGLE_STRIP, 0, 4);
        }
        let px = read_target(gl);
        let p = (last % 2) as u32;
        let mut bad = 0;
        let mut first = None;
        for i in 0..TEX_UPLOADS {
            let ((tx, ty), (sx, sy)) = tile(i);
            for y in 0..16 {
                for x in 0..16 {
                    let got = pixel(&px, tx + x, ty + y);
                    let want = src_texel(p, sx + x, sy + y);
                    if got != want {
                        bad += 1;
                        if first.is_none() {
                            first = Some(format!(
                                "upload {i} texel ({},{}) = {got:?}, expected {want:?}",
                                tx + x,
                                ty + y
                            ));
                        }
                    }
                }
            }
        }
        match first {
            None => Ok(()),
            Some(f) => Err(format!(
                "pixel check: {bad} of {} texels wrong; first: {f}",
                TEX_UPLOADS * 256
            )),
        }
    }
}

// ---- readback ----------------------------------------------------------------

/// One glReadPixels of the whole 256×256 target per frame (after a clear
/// to a per-frame colour, which each frame's read-back must show).
#[derive(Default)]
pub struct Readback {
    buf: Vec<u8>,
    error: Option<String>,
}

fn readback_colour(f: u64) -> [u8; 4] {
    [
        (f.wrapping_mul(7) % 256) as u8,
        (f.wrapping_mul(13).wrapping_add(40) % 256) as u8,
        (f.wrapping_mul(29).wrapping_add(90) % 256) as u8,
        255,
    ]
}

impl Case for Readback {
    fn name(&self) -> &'static str {
        "readback"
    }
    fn op(&self) -> &'static str {
        "glClear + glReadPixels 256x256 RGBA8"
    }
    fn ops_per_frame(&self) -> u32 {
        1
    }
    fn setup(&mut self, gl: &Gl) -> Result<(), String> {
        self.buf = vec![0; (SIZE * SIZE * 4) as usize];
        // SAFETY: plain state calls.
        unsafe {
            (gl.glPixelStorei)(PACK_ALIGNMENT, 4);
            (gl.glPixelStorei)(PACK_ROW_LENGTH, 0);
        }
        gl.check_error("readback setup")
    }
    fn frame(&mut self, gl: &Gl, f: u64) {
        let want = readback_colour(f);
        set_clear(gl, want);
        // SAFETY: `buf` holds SIZE*SIZE tightly packed RGBA8 pixels.
        unsafe {
            (gl.glClear)(COLOR_BUFFER_BIT);
            (gl.glReadPixels)(
                0,
                0,
                SIZE,
                SIZE,
                RGBA,
                UNSIGNED_BYTE,
                self.buf.as_mut_ptr().cast(),
            );
        }
        if self.error.is_none() {
            for (x, y) in [(0, 0), (SIZE as u32 - 1, SIZE as u32 - 1), (77, 140)] {
                let got = pixel(&self.buf, x, y);
                if !close(got, want, 1) {
                    self.error = Some(format!(
                        "frame {f}: read-back pixel ({x},{y}) = {got:?}, expected {want:?}"
                    ));
                    break;
                }
            }
        }
    }
    fn check(&mut self, gl: &Gl, last: u64) -> Result<(), String> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        let px = read_target(gl);
        check_cells(&px, |_| readback_colour(last))
    }
}
