//! Separate shader objects (GL 4.6 §7.3 glCreateShaderProgramv, §7.4
//! program pipelines, §7.6.1 glProgramUniform*): the API's error rules and
//! a draw whose stages come from two programs, each reading its own
//! default uniforms.
//!
//! `cargo nextest run -p frontend --test separate_shader_objects`

use std::ffi::CString;

mod common;
use common::{
    bind_rgba8_framebuffer, expect_error, link_program, make_context_version, no_gl_error, pixel,
};
use mobilegl::gl::{draw, get, pipelines, shaders, state, vertex};

const VS: &str = "#version 410 core
uniform vec4 offset;
const vec2 p[3] = vec2[](vec2(-1.0, -1.0), vec2(3.0, -1.0), vec2(-1.0, 3.0));
out vec4 v_color;
void main() {
    v_color = offset;
    gl_Position = vec4(p[gl_VertexID], 0.0, 1.0);
}
";

const FS: &str = "#version 410 core
uniform vec4 scale;
in vec4 v_color;
out vec4 o;
void main() { o = v_color * scale; }
";

/// A separable program of one shader (glCreateShaderProgramv).
unsafe fn shader_program(ty: u32, source: &str) -> u32 {
    let c = CString::new(source).unwrap();
    let strings = [c.as_ptr()];
    // SAFETY: one NUL-terminated string.
    let p = unsafe { pipelines::glCreateShaderProgramv(ty, 1, strings.as_ptr()) };
    no_gl_error("glCreateShaderProgramv");
    let mut ok = 0;
    // SAFETY: one value is written.
    unsafe { shaders::glGetProgramiv(p, glow::LINK_STATUS, &mut ok) };
    assert_eq!(ok, 1, "separable program does not link");
    p
}

unsafe fn location(p: u32, name: &str) -> i32 {
    let c = CString::new(name).unwrap();
    // SAFETY: a NUL-terminated name.
    unsafe { shaders::glGetUniformLocation(p, c.as_ptr()) }
}

unsafe fn pipeline_iv(pipe: u32, pname: u32) -> i32 {
    let mut v = -1;
    // SAFETY: one value is written.
    unsafe { pipelines::glGetProgramPipelineiv(pipe, pname, &mut v) };
    v
}

#[test]
fn program_pipeline_error_rules() {
    // SAFETY: GL calls on this thread with a current context; every
    // pointer covers what the call reads or writes.
    unsafe {
        make_context_version(4, 3);
        let vs = shader_program(glow::VERTEX_SHADER, VS);
        let fs = shader_program(glow::FRAGMENT_SHADER, FS);
        let mut sep = 0;
        shaders::glGetProgramiv(vs, glow::PROGRAM_SEPARABLE, &mut sep);
        assert_eq!(sep, 1);

        // glCreateShaderProgramv: a bad type, a negative count.
        assert_eq!(
            pipelines::glCreateShaderProgramv(glow::TEXTURE_2D, 0, std::ptr::null()),
            0
        );
        expect_error("CreateShaderProgramv type", glow::INVALID_ENUM);
        assert_eq!(
            pipelines::glCreateShaderProgramv(glow::VERTEX_SHADER, -1, std::ptr::null()),
            0
        );
        expect_error("CreateShaderProgramv count", glow::INVALID_VALUE);

        // Generated names are objects only once bound; created ones at once.
        let mut pipe = 0;
        pipelines::glGenProgramPipelines(1, &mut pipe);
        assert_eq!(pipelines::glIsProgramPipeline(pipe), 0);
        let mut created = 0;
        pipelines::glCreateProgramPipelines(1, &mut created);
        assert_eq!(pipelines::glIsProgramPipeline(created), 1);
        pipelines::glGenProgramPipelines(-1, &mut created);
        expect_error("GenProgramPipelines n < 0", glow::INVALID_VALUE);
        pipelines::glBindProgramPipeline(pipe + 1000);
        expect_error("bind unknown pipeline", glow::INVALID_OPERATION);
        pipelines::glBindProgramPipeline(pipe);
        no_gl_error("bind pipeline");
        assert_eq!(pipelines::glIsProgramPipeline(pipe), 1);
        let mut bound = 0;
        get::glGetIntegerv(glow::PROGRAM_PIPELINE_BINDING, &mut bound);
        assert_eq!(bound as u32, pipe);

        // glUseProgramStages: bits, unknown pipeline, program checks.
        pipelines::glUseProgramStages(pipe, 0x8000_0000, vs);
        expect_error("bad stage bits", glow::INVALID_VALUE);
        pipelines::glUseProgramStages(pipe + 1000, glow::VERTEX_SHADER_BIT, vs);
        expect_error("unknown pipeline", glow::INVALID_OPERATION);
        pipelines::glUseProgramStages(pipe, glow::VERTEX_SHADER_BIT, 0xdead);
        expect_error("unknown program", glow::INVALID_VALUE);
        let monolithic = link_program(VS, FS);
        pipelines::glUseProgramStages(pipe, glow::VERTEX_SHADER_BIT, monolithic);
        expect_error("non-separable program", glow::INVALID_OPERATION);
        let unlinked = shaders::glCreateProgram();
        shaders::glProgramParameteri(unlinked, glow::PROGRAM_SEPARABLE, 1);
        pipelines::glUseProgramStages(pipe, glow::VERTEX_SHADER_BIT, unlinked);
        expect_error("unlinked program", glow::INVALID_OPERATION);

        // GL_ALL_SHADER_BITS with a vertex-only program sets the vertex
        // stage only.
        pipelines::glUseProgramStages(pipe, 0xFFFF_FFFF, vs);
        no_gl_error("all bits");
        assert_eq!(pipeline_iv(pipe, glow::VERTEX_SHADER) as u32, vs);
        assert_eq!(pipeline_iv(pipe, glow::FRAGMENT_SHADER), 0);
        pipelines::glUseProgramStages(pipe, glow::FRAGMENT_SHADER_BIT, fs);
        assert_eq!(pipeline_iv(pipe, glow::FRAGMENT_SHADER) as u32, fs);
        pipelines::glGetProgramPipelineiv(pipe, glow::LINK_STATUS, &mut bound);
        expect_error("bad pipeline pname", glow::INVALID_ENUM);

        // glActiveShaderProgram.
        pipelines::glActiveShaderProgram(pipe, 0xdead);
        expect_error("active unknown program", glow::INVALID_VALUE);
        pipelines::glActiveShaderProgram(pipe, unlinked);
        expect_error("active unlinked program", glow::INVALID_OPERATION);
        pipelines::glActiveShaderProgram(pipe, fs);
        assert_eq!(pipeline_iv(pipe, glow::ACTIVE_PROGRAM) as u32, fs);

        // Validation: complete now; the info log is empty.
        pipelines::glValidateProgramPipeline(pipe);
        assert_eq!(pipeline_iv(pipe, glow::VALIDATE_STATUS), 1);
        assert_eq!(pipeline_iv(pipe, glow::INFO_LOG_LENGTH), 0);
        let mut empty = 0;
        pipelines::glGenProgramPipelines(1, &mut empty);
        pipelines::glValidateProgramPipeline(empty);
        assert_eq!(pipeline_iv(empty, glow::VALIDATE_STATUS), 0);
        assert!(pipeline_iv(empty, glow::INFO_LOG_LENGTH) > 0);
        let mut len = 0;
        pipelines::glGetProgramPipelineInfoLog(pipe + 1000, 0, &mut len, std::ptr::null_mut());
        expect_error("info log of unknown pipeline", glow::INVALID_VALUE);

        // glProgramUniform*: the named program's lookup errors, then the
        // glUniform* rules; glUniform* without a current program writes
        // the pipeline's active program.
        let scale = location(fs, "scale");
        assert!(scale >= 0);
        shaders::glProgramUniform4f(0xdead, scale, 1.0, 1.0, 1.0, 1.0);
        expect_error("ProgramUniform unknown program", glow::INVALID_VALUE);
        shaders::glProgramUniform4f(unlinked, scale, 1.0, 1.0, 1.0, 1.0);
        expect_error("ProgramUniform unlinked program", glow::INVALID_OPERATION);
        shaders::glProgramUniform1i(fs, scale, 1);
        expect_error("ProgramUniform type mismatch", glow::INVALID_OPERATION);
        shaders::glProgramUniform4f(fs, scale, 0.5, 0.25, 1.0, 1.0);
        no_gl_error("ProgramUniform4f");
        let mut v = [0f32; 4];
        shaders::glGetUniformfv(fs, scale, v.as_mut_ptr());
        assert_eq!(v, [0.5, 0.25, 1.0, 1.0]);
        shaders::glUniform4f(scale, 1.0, 2.0, 3.0, 4.0);
        no_gl_error("glUniform through the active program");
        shaders::glGetUniformfv(fs, scale, v.as_mut_ptr());
        assert_eq!(v, [1.0, 2.0, 3.0, 4.0]);

        // glUseProgram takes precedence; deleting the bound pipeline
        // unbinds it; a program used by a pipeline is only flagged.
        shaders::glDeleteProgram(vs);
        let mut deleting = 0;
        shaders::glGetProgramiv(vs, glow::DELETE_STATUS, &mut deleting);
        assert_eq!(deleting, 1);
        pipelines::glDeleteProgramPipelines(1, &pipe);
        get::glGetIntegerv(glow::PROGRAM_PIPELINE_BINDING, &mut bound);
        assert_eq!(bound, 0);
        assert_eq!(shaders::glIsProgram(vs), 0);
        no_gl_error("end");
    }
}

#[test]
fn pipeline_draws_two_programs_with_their_own_uniforms() {
    // SAFETY: GL calls on this thread with a current context; every
    // pointer covers what the call reads or writes.
    unsafe {
        make_context_version(4, 3);
        bind_rgba8_framebuffer(4, 4);
        state::glViewport(0, 0, 4, 4);
        let mut vao = 0;
        vertex::glGenVertexArrays(1, &mut vao);
        vertex::glBindVertexArray(vao);
        let vs = shader_program(glow::VERTEX_SHADER, VS);
        let fs = shader_program(glow::FRAGMENT_SHADER, FS);
        let mut pipe = 0;
        pipelines::glGenProgramPipelines(1, &mut pipe);
        pipelines::glUseProgramStages(pipe, glow::VERTEX_SHADER_BIT, vs);
        pipelines::glUseProgramStages(pipe, glow::FRAGMENT_SHADER_BIT, fs);
        pipelines::glBindProgramPipeline(pipe);
        shaders::glProgramUniform4f(vs, location(vs, "offset"), 1.0, 0.5, 1.0, 1.0);
        shaders::glProgramUniform4f(fs, location(fs, "scale"), 0.0, 1.0, 0.5, 1.0);
        draw::glDrawArrays(glow::TRIANGLES, 0, 3);
        no_gl_error("pipeline draw");
        let px = pixel(1, 1);
        assert!(
            px[0] < 2 && px[1].abs_diff(128) <= 2 && px[2].abs_diff(128) <= 2,
            "{px:?}"
        );
        // A uniform change of one stage's program reaches the next draw.
        shaders::glProgramUniform4f(fs, location(fs, "scale"), 1.0, 0.0, 0.0, 1.0);
        draw::glDrawArrays(glow::TRIANGLES, 0, 3);
        let px = pixel(1, 1);
        assert!(px[0] >= 254 && px[1] < 2 && px[2] < 2, "{px:?}");
        // A current program takes precedence over the pipeline.
        let mono = link_program(
            "#version 330 core
const vec2 p[3] = vec2[](vec2(-1.0, -1.0), vec2(3.0, -1.0), vec2(-1.0, 3.0));
void main() { gl_Position = vec4(p[gl_VertexID], 0.0, 1.0); }
",
            "#version 330 core
out vec4 o;
void main() { o = vec4(0.0, 0.0, 1.0, 1.0); }
",
        );
        shaders::glUseProgram(mono);
        draw::glDrawArrays(glow::TRIANGLES, 0, 3);
        assert_eq!(pixel(1, 1), [0, 0, 255, 255]);
        // Back to the pipeline; an empty pipeline draws nothing and fails.
        shaders::glUseProgram(0);
        draw::glDrawArrays(glow::TRIANGLES, 0, 3);
        no_gl_error("pipeline draw again");
        let px = pixel(1, 1);
        assert!(px[0] >= 254 && px[2] < 2, "{px:?}");
        pipelines::glUseProgramStages(pipe, 0xFFFF_FFFF, 0);
        draw::glDrawArrays(glow::TRIANGLES, 0, 3);
        expect_error("empty pipeline draw", glow::INVALID_OPERATION);
    }
}

#[test]
fn ext_per_stage_programs_keep_their_own_uniforms() {
    const EXT_VS: &str = "#version 130
uniform vec4 color;
const vec2 p[3] = vec2[](vec2(-1.0, -1.0), vec2(3.0, -1.0), vec2(-1.0, 3.0));
void main() {
    gl_Position = vec4(p[gl_VertexID], 0.0, 1.0);
    gl_TexCoord[0] = color;
}
";
    const EXT_FS: &str = "#version 130
uniform vec4 color;
void main() { gl_FragColor = gl_TexCoord[0] + color; }
";
    // SAFETY: GL calls on this thread with a current context; every
    // pointer covers what the call reads or writes.
    unsafe {
        common::make_compat_context_version(3, 0);
        bind_rgba8_framebuffer(4, 4);
        state::glViewport(0, 0, 4, 4);
        let source = |s: &str| CString::new(s).unwrap();
        let (vs_src, fs_src) = (source(EXT_VS), source(EXT_FS));
        let vs = pipelines::glCreateShaderProgramEXT(glow::VERTEX_SHADER, vs_src.as_ptr());
        let fs = pipelines::glCreateShaderProgramEXT(glow::FRAGMENT_SHADER, fs_src.as_ptr());
        no_gl_error("glCreateShaderProgramEXT");
        pipelines::glUseShaderProgramEXT(glow::TEXTURE_2D, vs);
        expect_error("bad shader type", glow::INVALID_ENUM);
        pipelines::glUseShaderProgramEXT(glow::VERTEX_SHADER, vs);
        pipelines::glUseShaderProgramEXT(glow::FRAGMENT_SHADER, fs);
        pipelines::glActiveProgramEXT(vs);
        shaders::glUniform4f(location(vs, "color"), 0.5, 0.5, -0.5, 0.0);
        pipelines::glActiveProgramEXT(fs);
        shaders::glUniform4f(location(fs, "color"), -0.5, 0.5, 0.5, 1.0);
        no_gl_error("uniforms through the active program");
        draw::glDrawArrays(glow::TRIANGLES, 0, 3);
        no_gl_error("EXT draw");
        let px = pixel(1, 1);
        assert!(px[0] < 2 && px[1] >= 254 && px[2] < 2, "{px:?}");
        // glUseProgram replaces every stage.
        shaders::glUseProgram(0);
        pipelines::glActiveProgramEXT(0xdead);
        expect_error("active unknown program", glow::INVALID_VALUE);
    }
}

#[test]
fn active_sampler_conflicts_fail_validation_and_draws() {
    const SAMPLER_FS: &str = "#version 410 core
uniform sampler2D s2[2];
uniform sampler3D s3[2];
out vec4 o;
void main() { o = texture(s2[1], vec2(0.0)) + texture(s3[1], vec3(0.0)); }
";
    // SAFETY: GL calls on this thread with a current context; every
    // pointer covers what the call reads or writes.
    unsafe {
        make_context_version(4, 3);
        bind_rgba8_framebuffer(4, 4);
        let mut vao = 0;
        vertex::glGenVertexArrays(1, &mut vao);
        vertex::glBindVertexArray(vao);
        let vs = shader_program(glow::VERTEX_SHADER, VS);
        let fs = shader_program(glow::FRAGMENT_SHADER, SAMPLER_FS);
        let mut pipe = 0;
        pipelines::glCreateProgramPipelines(1, &mut pipe);
        pipelines::glUseProgramStages(pipe, glow::VERTEX_SHADER_BIT, vs);
        pipelines::glUseProgramStages(pipe, glow::FRAGMENT_SHADER_BIT, fs);
        pipelines::glBindProgramPipeline(pipe);
        let (s2, s3) = (location(fs, "s2[1]"), location(fs, "s3[1]"));
        // The unread elements s2[0] and s3[0] share unit 0: no conflict.
        shaders::glProgramUniform1i(fs, s2, 1);
        shaders::glProgramUniform1i(fs, s3, 2);
        pipelines::glValidateProgramPipeline(pipe);
        assert_eq!(pipeline_iv(pipe, glow::VALIDATE_STATUS), 1);
        draw::glDrawArrays(glow::TRIANGLES, 0, 3);
        no_gl_error("draw without conflict");
        shaders::glProgramUniform1i(fs, s3, 1);
        pipelines::glValidateProgramPipeline(pipe);
        assert_eq!(pipeline_iv(pipe, glow::VALIDATE_STATUS), 0);
        draw::glDrawArrays(glow::TRIANGLES, 0, 3);
        expect_error("draw with a conflict", glow::INVALID_OPERATION);
    }
}

#[test]
fn geometry_stage_without_vertex_stage_fails_validation() {
    const GS: &str = "#version 410 core
layout(triangles) in;
layout(triangle_strip, max_vertices = 3) out;
void main() {
    for (int i = 0; i < 3; i++) { gl_Position = gl_in[i].gl_Position; EmitVertex(); }
}
";
    // SAFETY: GL calls on this thread with a current context; every
    // pointer covers what the call reads or writes.
    unsafe {
        make_context_version(4, 3);
        let gs = shader_program(glow::GEOMETRY_SHADER, GS);
        let fs = shader_program(glow::FRAGMENT_SHADER, FS);
        let vs = shader_program(glow::VERTEX_SHADER, VS);
        let mut pipe = 0;
        pipelines::glCreateProgramPipelines(1, &mut pipe);
        pipelines::glUseProgramStages(pipe, glow::GEOMETRY_SHADER_BIT, gs);
        pipelines::glUseProgramStages(pipe, glow::FRAGMENT_SHADER_BIT, fs);
        pipelines::glValidateProgramPipeline(pipe);
        assert_eq!(pipeline_iv(pipe, glow::VALIDATE_STATUS), 0);
        assert!(pipeline_iv(pipe, glow::INFO_LOG_LENGTH) > 0);
        // With a vertex stage the same pipeline validates.
        pipelines::glUseProgramStages(pipe, glow::VERTEX_SHADER_BIT, vs);
        pipelines::glValidateProgramPipeline(pipe);
        assert_eq!(pipeline_iv(pipe, glow::VALIDATE_STATUS), 1);
    }
}
