//! Program pipeline objects and separable programs (GL 4.6 §7.3
//! glCreateShaderProgramv, §7.4 program pipelines, ARB_separate_shader_objects).
//!
//! A pipeline reaches the backend as an ordinary program: a draw with no
//! current program and a bound pipeline whose stages come from one
//! program draws with that program; stages from several programs are
//! linked once into a hidden composite program from the sources each
//! separable program kept at its link (cached on the pipeline by the
//! stages' programs and link generations), and every draw copies each
//! stage program's default-uniform values, sampler units and block
//! bindings into it by name (`sync_composite`).

use std::ffi::c_char;

use super::shaders::{program_mut, release_program, write_log};
use super::{gl_err, put, slice};
use crate::context::{
    with_gl_dirty, Gl, LinkedState, PipelineObj, ProgramObj, ShaderObj, ShaderOrProgram,
    DIRTY_PROGRAM, DIRTY_RESOURCES, DIRTY_UNIFORMS, DIRTY_VERTEX,
};
use crate::shader::Stage;

/// GL_ALL_SHADER_BITS.
const ALL_SHADER_BITS: u32 = 0xFFFF_FFFF;

/// The `glUseProgramStages` bit of each stage, in `Stage::index` order.
const STAGE_BITS: [u32; 6] = [
    glow::VERTEX_SHADER_BIT,
    glow::TESS_CONTROL_SHADER_BIT,
    glow::TESS_EVALUATION_SHADER_BIT,
    glow::GEOMETRY_SHADER_BIT,
    glow::FRAGMENT_SHADER_BIT,
    glow::COMPUTE_SHADER_BIT,
];

/// The stages this context has (GL 4.6 §7.4: a stage bit or query of a
/// stage the context lacks is an error): tessellation with GL 4.0, compute
/// where the backend runs it.
fn stage_supported(gl: &Gl, i: usize) -> bool {
    match Stage::ALL[i] {
        Stage::TessControl | Stage::TessEval => gl.st.version >= (4, 0),
        Stage::Compute => super::compute::has_compute(&gl.conn.caps),
        _ => true,
    }
}

/// The stages a draw runs (all but compute), in `Stage::index` order.
const GRAPHICS: std::ops::Range<usize> = 0..5;

/// The active program of the bound pipeline (what glUniform* writes when
/// no program is current), 0 when none.
pub(crate) fn active_program(gl: &Gl) -> u32 {
    gl.st
        .pipelines
        .get(&gl.st.pipeline)
        .map_or(0, |p| p.active_program)
}

/// Pipeline `name` for a call other than glIsProgramPipeline and
/// glGetProgramPipelineInfoLog: a name from glGenProgramPipelines becomes
/// an object here (GL 4.6 §7.4); an unknown name is GL_INVALID_OPERATION.
fn pipeline_mut<'a>(gl: &'a mut Gl, name: u32) -> Result<&'a mut PipelineObj, u32> {
    let p = gl
        .st
        .pipelines
        .get_mut(&name)
        .ok_or(glow::INVALID_OPERATION)?;
    p.ever_bound = true;
    Ok(p)
}

/// The linked state of a program, if it is a linked program.
fn linked_state<'a>(gl: &'a Gl, name: u32) -> Option<(&'a ProgramObj, &'a LinkedState)> {
    match gl.sh.shader_objects.get(&name) {
        Some(ShaderOrProgram::Program(p)) => Some((p, p.linked.as_ref()?)),
        _ => None,
    }
}

fn gen_pipelines(gl: &mut Gl, n: i32, out: *mut u32, created: bool) {
    if n < 0 {
        gl_err!(gl, glow::INVALID_VALUE);
    }
    for i in 0..n as usize {
        let name = loop {
            let c = gl.st.new_name();
            if !gl.st.pipelines.contains_key(&c) {
                break c;
            }
        };
        gl.st.pipelines.insert(
            name,
            PipelineObj {
                ever_bound: created,
                ..Default::default()
            },
        );
        // SAFETY: GL promises `n` writable names.
        unsafe { put(out.add(i), name) };
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGenProgramPipelines(n: i32, out: *mut u32) {
    with_gl_dirty(DIRTY_PROGRAM, |gl| gen_pipelines(gl, n, out, false))
}

#[no_mangle]
pub unsafe extern "C" fn glCreateProgramPipelines(n: i32, out: *mut u32) {
    with_gl_dirty(DIRTY_PROGRAM, |gl| gen_pipelines(gl, n, out, true))
}

#[no_mangle]
pub unsafe extern "C" fn glDeleteProgramPipelines(n: i32, names: *const u32) {
    // SAFETY: GL promises `n` names.
    let names = unsafe { slice(names, n) }.to_vec();
    with_gl_dirty(DIRTY_PROGRAM, |gl| {
        if n < 0 {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        for name in names {
            if name == 0 {
                continue;
            }
            let Some(p) = gl.st.pipelines.remove(&name) else {
                continue;
            };
            // GL 4.6 §7.4: deleting the bound pipeline unbinds it.
            if gl.st.pipeline == name {
                gl.st.pipeline = 0;
            }
            for prog in p.stages.into_iter().filter(|&s| s != 0) {
                release_program(gl, prog);
            }
            if let Some((_, c)) = p.composite {
                super::shaders::destroy_program(gl, c);
            }
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glIsProgramPipeline(name: u32) -> u8 {
    with_gl_dirty(0, |gl| {
        gl.st.pipelines.get(&name).is_some_and(|p| p.ever_bound) as u8
    })
}

#[no_mangle]
pub unsafe extern "C" fn glBindProgramPipeline(name: u32) {
    with_gl_dirty(DIRTY_PROGRAM, |gl| {
        // GL 4.6 §13.3: not while transform feedback is active and not
        // paused.
        if super::xfb::active_unpaused(gl) {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        if name != 0 {
            if let Err(e) = pipeline_mut(gl, name) {
                gl_err!(gl, e);
            }
        }
        gl.st.pipeline = name;
    })
}

/// `program` for glUseProgramStages / glActiveShaderProgram: 0, or a
/// linked program (GL_INVALID_VALUE for an unknown name,
/// GL_INVALID_OPERATION for a shader or an unlinked program).
fn linked_program_arg<'a>(gl: &'a mut Gl, program: u32) -> Result<Option<&'a mut ProgramObj>, u32> {
    if program == 0 {
        return Ok(None);
    }
    let p = program_mut(gl, program)?;
    if !p.link_status || p.linked.is_none() {
        return Err(glow::INVALID_OPERATION);
    }
    Ok(Some(p))
}

#[no_mangle]
pub unsafe extern "C" fn glUseProgramStages(pipeline: u32, stages: u32, program: u32) {
    with_gl_dirty(DIRTY_PROGRAM, |gl| {
        let valid: u32 = (0..6)
            .filter(|&i| stage_supported(gl, i))
            .fold(0, |a, i| a | STAGE_BITS[i]);
        if stages != ALL_SHADER_BITS && stages & !valid != 0 {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        // GL 4.6 §13.3: the bound pipeline cannot change while transform
        // feedback is active and not paused.
        if gl.st.pipeline == pipeline && super::xfb::active_unpaused(gl) {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        // The program is checked first, then the pipeline.
        let has = match linked_program_arg(gl, program) {
            Ok(Some(p)) if !p.separable => gl_err!(gl, glow::INVALID_OPERATION),
            Ok(Some(p)) => p.linked.as_ref().map_or([false; 6], |l| {
                std::array::from_fn(|i| l.prog.stage_spirv[i].is_some())
            }),
            Ok(None) => [false; 6],
            Err(e) => gl_err!(gl, e),
        };
        let mut old = Vec::new();
        let mut new = 0u32;
        match pipeline_mut(gl, pipeline) {
            Ok(pipe) => {
                for (i, bit) in STAGE_BITS.iter().enumerate() {
                    if stages & bit == 0 {
                        continue;
                    }
                    // A stage the program has no executable for is left
                    // without one.
                    let want = if has[i] { program } else { 0 };
                    if pipe.stages[i] != want {
                        old.push(pipe.stages[i]);
                        pipe.stages[i] = want;
                        new += u32::from(want != 0);
                    }
                }
            }
            Err(e) => gl_err!(gl, e),
        }
        // Each stage slot holds one use of its program (a program in use
        // by a pipeline is only flagged by glDeleteProgram).
        if let Ok(p) = program_mut(gl, program) {
            p.in_use += new;
        }
        for o in old.into_iter().filter(|&o| o != 0) {
            release_program(gl, o);
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glActiveShaderProgram(pipeline: u32, program: u32) {
    with_gl_dirty(DIRTY_PROGRAM, |gl| {
        // An unknown program (or a shader) is reported before the
        // pipeline, an unlinked program after it.
        let linked = match program {
            0 => true,
            _ => match program_mut(gl, program) {
                Ok(p) => p.link_status,
                Err(e) => gl_err!(gl, e),
            },
        };
        let pipe = match pipeline_mut(gl, pipeline) {
            Ok(p) => p,
            Err(e) => gl_err!(gl, e),
        };
        if !linked {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        pipe.active_program = program;
    })
}

#[no_mangle]
pub unsafe extern "C" fn glGetProgramPipelineiv(pipeline: u32, pname: u32, out: *mut i32) {
    let v = with_gl_dirty(0, |gl| {
        let supported: [bool; 6] = std::array::from_fn(|i| stage_supported(gl, i));
        let pipe = match pipeline_mut(gl, pipeline) {
            Ok(p) => p,
            Err(e) => gl_err!(gl, e),
        };
        let stage = |s: Stage| supported[s.index()].then_some(pipe.stages[s.index()] as i32);
        match pname {
            glow::ACTIVE_PROGRAM => Some(pipe.active_program as i32),
            glow::VALIDATE_STATUS => Some(pipe.validate_status as i32),
            glow::INFO_LOG_LENGTH => Some(if pipe.info_log.is_empty() {
                0
            } else {
                pipe.info_log.len() as i32 + 1
            }),
            glow::VERTEX_SHADER => stage(Stage::Vertex),
            glow::TESS_CONTROL_SHADER => stage(Stage::TessControl),
            glow::TESS_EVALUATION_SHADER => stage(Stage::TessEval),
            glow::GEOMETRY_SHADER => stage(Stage::Geometry),
            glow::FRAGMENT_SHADER => stage(Stage::Fragment),
            glow::COMPUTE_SHADER => stage(Stage::Compute),
            _ => None,
        }
        .or_else(|| {
            gl.st.set_error(glow::INVALID_ENUM);
            None
        })
    });
    if let Some(v) = v {
        // SAFETY: GL promises one writable value.
        unsafe { put(out, v) };
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetProgramPipelineInfoLog(
    pipeline: u32,
    buf_size: i32,
    length: *mut i32,
    log: *mut c_char,
) {
    let text = with_gl_dirty(0, |gl| {
        // GL 4.6 §7.14: GL_INVALID_VALUE for a name that is no pipeline
        // object (and this call does not make one of a generated name).
        let Some(p) = gl.st.pipelines.get(&pipeline) else {
            gl_err!(gl, glow::INVALID_VALUE);
        };
        if buf_size < 0 {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        Some(p.info_log.clone())
    });
    if let Some(t) = text {
        // SAFETY: forwards the application's buffer.
        unsafe { write_log(&t, buf_size, length, log) };
    }
}

#[no_mangle]
pub unsafe extern "C" fn glValidateProgramPipeline(pipeline: u32) {
    with_gl_dirty(0, |gl| {
        if let Err(e) = pipeline_mut(gl, pipeline) {
            gl_err!(gl, e);
        }
        let problem = pipeline_problem(gl, pipeline);
        if let Some(pipe) = gl.st.pipelines.get_mut(&pipeline) {
            pipe.validate_status = problem.is_none();
            pipe.info_log = problem.unwrap_or_default();
        }
    })
}

/// Why pipeline `name` cannot run (GL 4.6 §11.1.3.11), or None.
fn pipeline_problem(gl: &Gl, name: u32) -> Option<String> {
    let pipe = gl.st.pipelines.get(&name)?;
    if pipe.stages.iter().all(|&s| s == 0) {
        return Some("error: the program pipeline object has no program\n".into());
    }
    let mut units: Vec<(u32, u32)> = Vec::new();
    for (i, &prog) in pipe.stages.iter().enumerate() {
        if prog == 0 || pipe.stages[..i].contains(&prog) {
            continue;
        }
        let Some((p, l)) = linked_state(gl, prog) else {
            return Some(format!("error: program {prog} is not linked\n"));
        };
        if !p.separable {
            return Some(format!("error: program {prog} is not separable\n"));
        }
        // A program is active for all the stages it was linked with, and
        // no other program sits between two of its stages.
        let mine: Vec<usize> = (0..6).filter(|&s| pipe.stages[s] == prog).collect();
        if (0..6).any(|s| l.prog.stage_spirv[s].is_some() && pipe.stages[s] != prog) {
            return Some(format!(
                "error: program {prog} is active for some but not all of its stages\n"
            ));
        }
        if let (Some(&first), Some(&last)) = (mine.first(), mine.last()) {
            if (first..last).any(|s| pipe.stages[s] != 0 && pipe.stages[s] != prog) {
                return Some(format!(
                    "error: another program is active between two stages of program {prog}\n"
                ));
            }
        }
        // Samplers of different types may not read one texture unit.
        let targets = super::validate::sampler_targets(&l.prog);
        for (slot, &unit) in l.sampler_units.iter().enumerate() {
            let target = targets.get(slot).copied().unwrap_or(glow::TEXTURE_2D);
            match units.iter().find(|(u, _)| *u == unit) {
                Some(&(_, t)) if t != target => {
                    return Some(format!(
                        "error: active sampler conflict: texture unit {unit} is read by samplers of different types\n"
                    ));
                }
                Some(_) => {}
                None => units.push((unit, target)),
            }
        }
    }
    None
}

/// The program a draw with no current program and a bound pipeline runs
/// (`Gl::validate_draw`): Err(GL_INVALID_OPERATION) when the pipeline does
/// not validate or its composite does not link.
pub(crate) fn program_for_draw(gl: &mut Gl) -> Result<u32, u32> {
    let name = gl.st.pipeline;
    if let Some(problem) = pipeline_problem(gl, name) {
        if let Some(pipe) = gl.st.pipelines.get_mut(&name) {
            pipe.validate_status = false;
            pipe.info_log = problem;
        }
        return Err(glow::INVALID_OPERATION);
    }
    let Some(pipe) = gl.st.pipelines.get(&name) else {
        return Err(glow::INVALID_OPERATION);
    };
    let stages = pipe.stages;
    let mut progs: Vec<u32> = stages[GRAPHICS]
        .iter()
        .copied()
        .filter(|&s| s != 0)
        .collect();
    progs.dedup();
    // The substituted program's state is re-derived at every such draw:
    // pipelines are not on the hot path.
    gl.st.dirty |= DIRTY_PROGRAM | DIRTY_RESOURCES | DIRTY_UNIFORMS | DIRTY_VERTEX;
    match progs.as_slice() {
        [] => Err(glow::INVALID_OPERATION),
        // Every stage from one program: that program as it is.
        [one] => Ok(*one),
        _ => {
            let key: [(u32, u64); 6] = std::array::from_fn(|i| {
                let g = match linked_state(gl, stages[i]) {
                    Some((_, l)) if GRAPHICS.contains(&i) => l.generation,
                    _ => 0,
                };
                (if g == 0 { 0 } else { stages[i] }, g)
            });
            let cached = pipe.composite.filter(|(k, _)| *k == key).map(|(_, c)| c);
            let composite = match cached {
                Some(c) => c,
                None => {
                    let c = build_composite(gl, &stages);
                    let old = gl.st.pipelines.get_mut(&name).and_then(|p| {
                        p.synced = [0; 6];
                        p.composite.replace((key, c))
                    });
                    if let Some((_, o)) = old {
                        super::shaders::destroy_program(gl, o);
                    }
                    c
                }
            };
            match gl.sh.shader_objects.get(&composite) {
                Some(ShaderOrProgram::Program(p)) if p.link_status => {}
                _ => return Err(glow::INVALID_OPERATION),
            }
            sync_composite(gl, composite, &stages);
            Ok(composite)
        }
    }
}

/// Link the stages' programs' sources into one hidden program (a fresh
/// name in the share group, as the fixed-function programs).
fn build_composite(gl: &mut Gl, stages: &[u32; 6]) -> u32 {
    let input_of =
        |gl: &Gl, prog: u32| linked_state(gl, prog).and_then(|(_, l)| l.separable_input.clone());
    let mut shaders = Vec::new();
    let mut attribs = Vec::new();
    let mut frags = Vec::new();
    let mut xfb = (Vec::new(), 0);
    for i in GRAPHICS {
        let Some(input) = input_of(gl, stages[i]) else {
            continue;
        };
        let stage = Stage::ALL[i];
        match stage {
            Stage::Vertex => attribs = input.attrib_bindings.clone(),
            Stage::Fragment => frags = input.frag_data_bindings.clone(),
            _ => {}
        }
        // The last stage before rasterization decides what is captured.
        if stage != Stage::Fragment {
            xfb = (input.xfb_varyings.clone(), input.xfb_mode);
        }
        for (s, source) in input.sources.iter().filter(|(s, _)| *s == stage) {
            let name = fresh_name(gl);
            gl.sh.shader_objects.insert(
                name,
                ShaderOrProgram::Shader(ShaderObj {
                    stage: *s,
                    gl_type: gl_shader_type(*s),
                    source: source.clone(),
                    compiled: true,
                    info_log: String::new(),
                    // Goes with the composite program.
                    delete_pending: true,
                    attached: 1,
                }),
            );
            shaders.push(name);
        }
    }
    let program = fresh_name(gl);
    gl.sh.shader_objects.insert(
        program,
        ShaderOrProgram::Program(ProgramObj {
            shaders,
            attrib_bindings: attribs,
            frag_data_bindings: frags,
            xfb_varyings: xfb.0,
            xfb_mode: xfb.1,
            ..Default::default()
        }),
    );
    super::shaders::link_program(gl, program);
    if let Some(ShaderOrProgram::Program(p)) = gl.sh.shader_objects.get(&program) {
        if !p.link_status {
            tracing::warn!(
                "program pipeline: the composite of programs {stages:?} failed to link:\n{}",
                p.info_log
            );
        }
    }
    program
}

/// The GL shader type of a stage (`glCreateShader`'s argument).
fn gl_shader_type(s: Stage) -> u32 {
    match s {
        Stage::Vertex => glow::VERTEX_SHADER,
        Stage::TessControl => glow::TESS_CONTROL_SHADER,
        Stage::TessEval => glow::TESS_EVALUATION_SHADER,
        Stage::Geometry => glow::GEOMETRY_SHADER,
        Stage::Fragment => glow::FRAGMENT_SHADER,
        Stage::Compute => glow::COMPUTE_SHADER,
    }
}

fn fresh_name(gl: &mut Gl) -> u32 {
    loop {
        let c = gl.sh.new_name();
        if !gl.sh.shader_objects.contains_key(&c) {
            return c;
        }
    }
}

/// Bytes a default-block uniform takes from its offset.
fn uniform_bytes(u: &crate::shader::Uniform) -> usize {
    let (base, cols, rows) = super::shaders::type_info(u.gl_type);
    let cw = if base == super::shaders::Base::Double {
        8
    } else {
        4
    };
    let column = rows as usize * cw;
    let elem = if cols > 1 {
        (cols as usize - 1) * u.matrix_stride as usize + column
    } else {
        column
    };
    (u.array_size.max(1) as usize - 1) * u.array_stride as usize + elem
}

/// Copy each stage program's default-uniform values, sampler and image
/// units and block bindings into the composite (by name: the first stage
/// program declaring it), marking what changed.
fn sync_composite(gl: &mut Gl, composite: u32, stages: &[u32; 6]) {
    let Some(ShaderOrProgram::Program(mut cp)) = gl.sh.shader_objects.remove(&composite) else {
        return;
    };
    if let Some(c) = cp.linked.as_mut() {
        let mut sources: Vec<&LinkedState> = Vec::new();
        for &s in &stages[GRAPHICS] {
            if let Some((_, l)) = linked_state(gl, s) {
                if !sources.iter().any(|o| std::ptr::eq(*o, l)) {
                    sources.push(l);
                }
            }
        }
        let mut changed = false;
        for u in &c.prog.uniforms {
            if u.block_index >= 0 || u.name.starts_with("gl_") {
                continue;
            }
            let found = sources.iter().find_map(|l| {
                l.prog
                    .uniforms
                    .iter()
                    .find(|s| s.name == u.name && s.gl_type == u.gl_type && s.block_index < 0)
                    .map(|s| (*l, s))
            });
            let Some((l, s)) = found else { continue };
            let units = match (
                u.sampler_binding,
                s.sampler_binding,
                u.image_binding,
                s.image_binding,
            ) {
                (Some(d), Some(f), _, _) => Some((&mut c.sampler_units, &l.sampler_units, d, f)),
                (_, _, Some(d), Some(f)) => Some((&mut c.image_units, &l.image_units, d, f)),
                _ => None,
            };
            if let Some((dst, src, d, f)) = units {
                for e in 0..u.array_size.max(1) {
                    let (Some(to), Some(&v)) =
                        (dst.get_mut((d + e) as usize), src.get((f + e) as usize))
                    else {
                        continue;
                    };
                    *to = v;
                }
                continue;
            }
            let n = uniform_bytes(u);
            let (d, f) = (u.offset as usize, s.offset as usize);
            if let (Some(to), Some(from)) = (c.scratch.get_mut(d..d + n), l.scratch.get(f..f + n)) {
                if to != from {
                    to.copy_from_slice(from);
                    changed = true;
                }
            }
        }
        if changed {
            c.scratch_version += 1;
        }
        for (i, b) in c.prog.blocks.iter().enumerate() {
            let bound = sources.iter().find_map(|l| {
                let j = l.prog.blocks.iter().position(|x| x.name == b.name)?;
                l.block_bindings.get(j).copied()
            });
            if let (Some(v), Some(to)) = (bound, c.block_bindings.get_mut(i)) {
                *to = v;
            }
        }
        for (i, b) in c.prog.storage_blocks.iter().enumerate() {
            let bound = sources.iter().find_map(|l| {
                let j = l
                    .prog
                    .storage_blocks
                    .iter()
                    .position(|x| x.name == b.name)?;
                l.storage_bindings.get(j).copied()
            });
            if let (Some(v), Some(to)) = (bound, c.storage_bindings.get_mut(i)) {
                *to = v;
            }
        }
    }
    gl.sh
        .shader_objects
        .insert(composite, ShaderOrProgram::Program(cp));
}

#[no_mangle]
pub unsafe extern "C" fn glCreateShaderProgramv(
    ty: u32,
    count: i32,
    strings: *const *const c_char,
) -> u32 {
    // SAFETY: GL promises `count` NUL-terminated strings.
    let source: String = unsafe { slice(strings, count) }
        .iter()
        .filter(|p| !p.is_null())
        // SAFETY: NUL-terminated per GL.
        .map(|p| unsafe { super::cstr(*p) })
        .collect();
    with_gl_dirty(DIRTY_PROGRAM, |gl| {
        let Some(stage) = crate::shader::stage_from_gl(ty) else {
            gl_err!(gl, glow::INVALID_ENUM);
        };
        if count < 0 {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        create_shader_program(gl, stage, ty, source)
    })
}

/// glCreateShaderProgramv's work (GL 4.6 §7.3): compile, link a separable
/// program with that one shader, detach and delete it. The program's log
/// holds the compile log too.
fn create_shader_program(gl: &mut Gl, stage: Stage, gl_type: u32, source: String) -> u32 {
    let (compiled, log) = match crate::shader::compile(stage, &source) {
        Ok(log) => (true, log),
        Err(log) => (false, log),
    };
    let shader = fresh_name(gl);
    gl.sh.shader_objects.insert(
        shader,
        ShaderOrProgram::Shader(ShaderObj {
            stage,
            gl_type,
            source,
            compiled,
            info_log: log.clone(),
            delete_pending: true,
            attached: 1,
        }),
    );
    let program = fresh_name(gl);
    gl.sh.shader_objects.insert(
        program,
        ShaderOrProgram::Program(ProgramObj {
            shaders: vec![shader],
            separable: true,
            ..Default::default()
        }),
    );
    super::shaders::link_program(gl, program);
    gl.sh.shader_objects.remove(&shader);
    if let Ok(p) = program_mut(gl, program) {
        p.shaders.clear();
        if !compiled {
            p.info_log = format!("{log}{}", p.info_log);
        }
    }
    program
}
