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

use super::dlist::with_gl_listed;
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
/// stage the context lacks is an error): tessellation and compute where
/// the backend runs them (GL_ARB_tessellation_shader is advertised in
/// every context version then).
fn stage_supported(gl: &Gl, i: usize) -> bool {
    match Stage::ALL[i] {
        Stage::TessControl | Stage::TessEval => super::tess::has_tessellation(&gl.conn.caps),
        Stage::Compute => super::compute::has_compute(&gl.conn.caps),
        _ => true,
    }
}

/// The stages a draw runs (all but compute), in `Stage::index` order.
const GRAPHICS: std::ops::Range<usize> = 0..5;

/// The hidden pipeline object (never a name the application gets) holding
/// EXT_separate_shader_objects' per-stage programs (glUseShaderProgramEXT,
/// glActiveProgramEXT), used when no program is current and no pipeline
/// is bound.
const EXT_PIPELINE: u32 = u32::MAX;

/// Suffix of a default uniform renamed in a composite program because an
/// earlier stage's program declares one of the same name (each program
/// keeps its own value); the program's index in stage order follows.
const RENAMED: &str = "_mgl_sso";

/// The pipeline a draw without a current program runs: the bound one,
/// else the EXT per-stage programs (0: none).
fn draw_pipeline(gl: &Gl) -> u32 {
    match gl.st.pipeline {
        0 if gl.st.ext_stages => EXT_PIPELINE,
        p => p,
    }
}

/// The program of the last vertex-processing stage of the pipeline a draw
/// without a current program runs (what transform feedback captures from,
/// GL 4.6 §13.3), 0 when none.
pub(crate) fn last_vertex_stage_program(gl: &Gl) -> u32 {
    let pipe = draw_pipeline(gl);
    let Some(p) = gl.st.pipelines.get(&pipe) else {
        return 0;
    };
    [Stage::Geometry, Stage::TessEval, Stage::Vertex]
        .iter()
        .map(|s| p.stages.get(s.index()).copied().unwrap_or(0))
        .find(|&prog| prog != 0)
        .unwrap_or(0)
}

/// The active program of the bound pipeline (what glUniform* writes when
/// no program is current), 0 when none.
pub(crate) fn active_program(gl: &Gl) -> u32 {
    gl.st
        .pipelines
        .get(&draw_pipeline(gl))
        .map_or(0, |p| p.active_program)
}

/// The compute stage's program of the pipeline a dispatch without a
/// current program runs (0: none).
pub(crate) fn compute_stage(gl: &Gl) -> u32 {
    gl.st
        .pipelines
        .get(&draw_pipeline(gl))
        .map_or(0, |p| p.stages[Stage::Compute.index()])
}

/// Which stages `program` has executables for (none if it is not linked).
fn program_stages(gl: &Gl, program: u32) -> [bool; 6] {
    linked_state(gl, program).map_or([false; 6], |(_, l)| {
        std::array::from_fn(|i| l.prog.stage_spirv[i].is_some())
    })
}

/// Give stage `i` of pipeline `pipe` to `program` (0: none). Each stage
/// slot holds one use of its program (`ProgramObj::in_use`: a program in
/// use by a pipeline is only flagged by glDeleteProgram).
fn set_stage(gl: &mut Gl, pipe: u32, i: usize, program: u32) {
    let Some(slot) = gl.st.pipelines.get_mut(&pipe).map(|p| &mut p.stages[i]) else {
        return;
    };
    let old = std::mem::replace(slot, program);
    if old == program {
        return;
    }
    if let Ok(p) = program_mut(gl, program) {
        p.in_use += 1;
    }
    if old != 0 {
        release_program(gl, old);
    }
}

/// Pipeline `name` for a call other than glIsProgramPipeline and
/// glGetProgramPipelineInfoLog: a name from glGenProgramPipelines becomes
/// an object here (GL 4.6 §7.4); an unknown name is GL_INVALID_OPERATION.
fn pipeline_mut<'a>(gl: &'a mut Gl, name: u32) -> Result<&'a mut PipelineObj, u32> {
    if name == EXT_PIPELINE {
        return Err(glow::INVALID_OPERATION);
    }
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
            if name == 0 || name == EXT_PIPELINE {
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
    with_gl_listed("glUseProgramStages", DIRTY_PROGRAM, move |gl| {
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
        match linked_program_arg(gl, program) {
            Ok(Some(p)) if !p.separable => gl_err!(gl, glow::INVALID_OPERATION),
            Ok(_) => {}
            Err(e) => gl_err!(gl, e),
        }
        if let Err(e) = pipeline_mut(gl, pipeline) {
            gl_err!(gl, e);
        }
        let has = program_stages(gl, program);
        for (i, bit) in STAGE_BITS.iter().enumerate() {
            if stages & bit != 0 {
                // A stage the program has no executable for is left
                // without one.
                set_stage(gl, pipeline, i, if has[i] { program } else { 0 });
            }
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glActiveShaderProgram(pipeline: u32, program: u32) {
    with_gl_listed("glActiveShaderProgram", DIRTY_PROGRAM, move |gl| {
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

/// Why pipeline `name` cannot run (GL 4.6 §11.1.3.11), or None. The EXT
/// per-stage programs need not be separable nor complete.
fn pipeline_problem(gl: &Gl, name: u32) -> Option<String> {
    let pipe = gl.st.pipelines.get(&name)?;
    let ext = name == EXT_PIPELINE;
    if pipe.stages.iter().all(|&s| s == 0) {
        return Some("error: the program pipeline object has no program\n".into());
    }
    // Tessellation or geometry stages need a vertex stage to feed them
    // (GL 4.6 §11.1.3.11; ES 3.2 says the same).
    let pre_raster = [Stage::TessControl, Stage::TessEval, Stage::Geometry];
    if !ext
        && pipe.stages[Stage::Vertex.index()] == 0
        && pre_raster.iter().any(|s| pipe.stages[s.index()] != 0)
    {
        return Some(
            "error: a tessellation or geometry stage is active without a vertex stage\n".into(),
        );
    }
    let mut units: Vec<(u32, u32)> = Vec::new();
    for (i, &prog) in pipe.stages.iter().enumerate() {
        if prog == 0 || pipe.stages[..i].contains(&prog) {
            continue;
        }
        let Some((p, l)) = linked_state(gl, prog) else {
            return Some(format!("error: program {prog} is not linked\n"));
        };
        if ext {
            // Only the sampler rule below.
        } else if !p.separable {
            return Some(format!("error: program {prog} is not separable\n"));
        }
        // A program is active for all the stages it was linked with, and
        // no other program sits between two of its stages.
        let mine: Vec<usize> = (0..6).filter(|&s| pipe.stages[s] == prog).collect();
        if !ext && (0..6).any(|s| l.prog.stage_spirv[s].is_some() && pipe.stages[s] != prog) {
            return Some(format!(
                "error: program {prog} is active for some but not all of its stages\n"
            ));
        }
        if let (Some(&first), Some(&last), false) = (mine.first(), mine.last(), ext) {
            if (first..last).any(|s| pipe.stages[s] != 0 && pipe.stages[s] != prog) {
                return Some(format!(
                    "error: another program is active between two stages of program {prog}\n"
                ));
            }
        }
        // Active samplers of different types may not read one texture
        // unit.
        let targets = super::validate::sampler_targets(&l.prog);
        for (slot, &unit) in l.sampler_units.iter().enumerate() {
            if l.prog.active_samplers.get(slot) == Some(&false) {
                continue;
            }
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
/// not validate or its composite does not link, Err(GL_NO_ERROR) when
/// nothing is to be drawn.
pub(crate) fn program_for_draw(gl: &mut Gl) -> Result<u32, u32> {
    let name = draw_pipeline(gl);
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
    // Without a vertex stage a compatibility context runs fixed-function
    // vertex processing (the composite gets its vertex shader); a core one
    // has undefined results: nothing is drawn and no error raised
    // (backends need a vertex stage).
    let ff_vertex = stages[Stage::Vertex.index()] == 0;
    if ff_vertex && gl.st.is_core() {
        return Err(glow::NO_ERROR);
    }
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
        [one] if !ff_vertex => Ok(*one),
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
                    let c = build_composite(gl, &stages, ff_vertex);
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
fn build_composite(gl: &mut Gl, stages: &[u32; 6], ff_vertex: bool) -> u32 {
    // Default uniforms a program shares a name with an earlier program are
    // renamed in its sources: each program keeps its own value.
    let order = stage_programs(stages);
    let mut seen: Vec<String> = Vec::new();
    let mut renames: Vec<Vec<(String, String)>> = Vec::new();
    for (k, &prog) in order.iter().enumerate() {
        let mut names: Vec<String> = linked_state(gl, prog)
            .map(|(_, l)| {
                l.prog
                    .uniforms
                    .iter()
                    .filter(|u| u.block_index < 0 && !u.name.starts_with("gl_"))
                    .map(|u| base_name(&u.name).to_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.dedup();
        renames.push(
            names
                .iter()
                .filter(|n| seen.contains(n))
                .map(|n| (n.clone(), format!("{n}{RENAMED}{k}")))
                .collect(),
        );
        seen.extend(names);
    }
    let input_of = |gl: &Gl, prog: u32| linked_state(gl, prog).map(|(_, l)| l.link_input.clone());
    let mut shaders = Vec::new();
    if ff_vertex {
        shaders.push(hidden_shader(
            gl,
            Stage::Vertex,
            super::shaders::FIXED_FUNCTION_VS.to_owned(),
        ));
    }
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
        let rename = order
            .iter()
            .position(|&p| p == stages[i])
            .and_then(|k| renames.get(k))
            .filter(|r| !r.is_empty());
        for (s, source) in input.sources.iter().filter(|(s, _)| *s == stage) {
            let source = match rename {
                Some(r) => crate::shader::rename_identifiers(source, r),
                None => source.clone(),
            };
            shaders.push(hidden_shader(gl, *s, source));
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

/// A compiled-looking shader object of a composite program (deleted with
/// it).
fn hidden_shader(gl: &mut Gl, stage: Stage, source: String) -> u32 {
    let name = fresh_name(gl);
    gl.sh.shader_objects.insert(
        name,
        ShaderOrProgram::Shader(ShaderObj {
            stage,
            gl_type: gl_shader_type(stage),
            compiled_source: source.clone(),
            source,
            compiled: true,
            info_log: String::new(),
            delete_pending: true,
            attached: 1,
        }),
    );
    name
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

/// The distinct programs of a pipeline's draw stages, in stage order.
fn stage_programs(stages: &[u32; 6]) -> Vec<u32> {
    let mut order: Vec<u32> = Vec::new();
    for &p in &stages[GRAPHICS] {
        if p != 0 && !order.contains(&p) {
            order.push(p);
        }
    }
    order
}

/// A uniform name's variable: `"s"` of `"s.m"`, `"a"` of `"a[2]"`.
fn base_name(name: &str) -> &str {
    name.split(['.', '[']).next().unwrap_or(name)
}

/// A composite uniform renamed by `build_composite`: the index of its
/// program in stage order and its name there.
fn renamed_uniform(name: &str) -> Option<(usize, String)> {
    let base = base_name(name);
    let at = base.rfind(RENAMED)?;
    let k = base[at + RENAMED.len()..].parse().ok()?;
    Some((k, format!("{}{}", &base[..at], &name[base.len()..])))
}

fn fresh_name(gl: &mut Gl) -> u32 {
    loop {
        let c = gl.sh.new_name();
        if !gl.sh.shader_objects.contains_key(&c) {
            return c;
        }
    }
}

/// Program `l`'s default-block uniform `name` of type `ty`.
fn declared<'a>(l: &'a LinkedState, name: &str, ty: u32) -> Option<&'a crate::shader::Uniform> {
    l.prog
        .uniforms
        .iter()
        .find(|s| s.name == name && s.gl_type == ty && s.block_index < 0)
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
        let sources: Vec<&LinkedState> = stage_programs(stages)
            .into_iter()
            .filter_map(|p| linked_state(gl, p).map(|(_, l)| l))
            .collect();
        let mut changed = false;
        for u in &c.prog.uniforms {
            if u.block_index >= 0 || u.name.starts_with("gl_") {
                continue;
            }
            let found = match renamed_uniform(&u.name) {
                Some((k, name)) => sources
                    .get(k)
                    .and_then(|l| Some((*l, declared(l, &name, u.gl_type)?))),
                None => sources
                    .iter()
                    .find_map(|l| Some((*l, declared(l, &u.name, u.gl_type)?))),
            };
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
            compiled_source: source.clone(),
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

/// The current program, if any, becomes the EXT per-stage programs (its
/// stages and the active program), which glUseShaderProgramEXT and
/// glActiveProgramEXT then change one at a time.
fn adopt_current_program(gl: &mut Gl) {
    if !gl.st.pipelines.contains_key(&EXT_PIPELINE) {
        gl.st.pipelines.insert(EXT_PIPELINE, PipelineObj::default());
    }
    gl.st.ext_stages = true;
    let current = std::mem::take(&mut gl.st.program);
    if current == 0 {
        return;
    }
    let has = program_stages(gl, current);
    for i in GRAPHICS {
        set_stage(gl, EXT_PIPELINE, i, if has[i] { current } else { 0 });
    }
    if let Some(p) = gl.st.pipelines.get_mut(&EXT_PIPELINE) {
        p.active_program = current;
    }
    release_program(gl, current);
}

/// glUseProgram replaces every EXT per-stage program.
pub(crate) fn clear_ext_stages(gl: &mut Gl) {
    for i in 0..6 {
        set_stage(gl, EXT_PIPELINE, i, 0);
    }
    if let Some(p) = gl.st.pipelines.get_mut(&EXT_PIPELINE) {
        p.active_program = 0;
    }
    gl.st.ext_stages = false;
}

/// `program` for the EXT calls: 0 or a linked program.
fn check_ext_program(gl: &mut Gl, program: u32) -> Result<(), u32> {
    match linked_program_arg(gl, program) {
        Ok(_) => Ok(()),
        Err(e) => Err(e),
    }
}

// Not exported: extension commands resolve through GetProcAddress only.
pub unsafe extern "C" fn glUseShaderProgramEXT(ty: u32, program: u32) {
    with_gl_dirty(DIRTY_PROGRAM, |gl| {
        let stage = match ty {
            glow::VERTEX_SHADER => Stage::Vertex,
            glow::GEOMETRY_SHADER => Stage::Geometry,
            glow::FRAGMENT_SHADER => Stage::Fragment,
            _ => gl_err!(gl, glow::INVALID_ENUM),
        };
        if let Err(e) = check_ext_program(gl, program) {
            gl_err!(gl, e);
        }
        if super::xfb::active_unpaused(gl) {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        adopt_current_program(gl);
        let i = stage.index();
        let program = if program_stages(gl, program)[i] {
            program
        } else {
            0
        };
        set_stage(gl, EXT_PIPELINE, i, program);
    })
}

// Not exported: extension commands resolve through GetProcAddress only.
pub unsafe extern "C" fn glActiveProgramEXT(program: u32) {
    with_gl_dirty(DIRTY_PROGRAM, |gl| {
        if let Err(e) = check_ext_program(gl, program) {
            gl_err!(gl, e);
        }
        adopt_current_program(gl);
        if let Some(p) = gl.st.pipelines.get_mut(&EXT_PIPELINE) {
            p.active_program = program;
        }
    })
}

// Not exported: extension commands resolve through GetProcAddress only.
pub unsafe extern "C" fn glCreateShaderProgramEXT(ty: u32, string: *const c_char) -> u32 {
    let strings = [string];
    // SAFETY: one NUL-terminated string, as glCreateShaderProgramv takes.
    unsafe { glCreateShaderProgramv(ty, 1, strings.as_ptr()) }
}
