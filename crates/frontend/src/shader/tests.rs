use super::gltypes::*;
use super::spirv::{dec, Module};
use super::*;

use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

const SPIRV_VAL: &str = "/usr/bin/spirv-val";

/// Runs spirv-val on `words` (Vulkan 1.0 environment). Skips (with a note)
/// when spirv-val is not installed.
fn validate(words: &[u32]) {
    if !Path::new(SPIRV_VAL).exists() {
        eprintln!("note: {SPIRV_VAL} not found; skipping SPIR-V validation");
        return;
    }
    static N: AtomicU32 = AtomicU32::new(0);
    let path = std::env::temp_dir().join(format!(
        "mobilegl-shader-test-{}-{}.spv",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&path, bytes).expect("write temp spv");
    let out = Command::new(SPIRV_VAL)
        .arg("--target-env")
        .arg("vulkan1.0")
        .arg(&path)
        .output()
        .expect("run spirv-val");
    let _ = std::fs::remove_file(&path);
    assert!(
        out.status.success(),
        "spirv-val failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn validate_all(p: &LinkedProgram) {
    for words in p.stage_spirv.iter().flatten() {
        validate(words);
    }
}

/// What the GLES backend does: SPIR-V → ESSL 3.20 with spirv-cross.
fn to_essl(words: &[u32]) -> String {
    use spirv_cross2::compile::glsl::GlslVersion;
    use spirv_cross2::compile::CompilableTarget;
    use spirv_cross2::targets::Glsl;
    let module = spirv_cross2::Module::from_words(words);
    let compiler = spirv_cross2::Compiler::<Glsl>::new(module).expect("spirv-cross parse");
    let mut options = Glsl::options();
    options.version = GlslVersion::Glsl320Es;
    options.support_nonzero_base_instance = false;
    compiler
        .compile(&options)
        .expect("spirv-cross compile")
        .to_string()
}

fn link_vs_fs(vs: &str, fs: &str, attribs: &[(String, u32)]) -> Result<LinkedProgram, String> {
    let shaders = [(Stage::Vertex, vs), (Stage::Fragment, fs)];
    link(&LinkInput {
        xfb_varyings: &[],
        xfb_mode: 0,
        shaders: &shaders,
        attrib_bindings: attribs,
        frag_data_bindings: &[],
        varying_limit: 0,
    })
}

/// Location decoration of the variable named `name` with storage `storage`.
fn location_of(words: &[u32], name: &str, storage_class: u32) -> Option<u32> {
    let m = Module::parse(words.to_vec()).ok()?;
    let v = m
        .variables
        .iter()
        .find(|v| v.storage == storage_class && m.name(v.id) == name)?;
    m.decoration(v.id, dec::LOCATION)
}

fn uniform<'a>(p: &'a LinkedProgram, name: &str) -> &'a Uniform {
    p.uniforms
        .iter()
        .find(|u| u.name == name)
        .unwrap_or_else(|| panic!("no uniform {name}: {:#?}", p.uniforms))
}

const VS_330: &str = r#"#version 330 core
in vec3 position;
in vec2 uv;
in vec3 normal;
out vec2 v_uv;
out vec3 v_normal;
out float v_depth;
uniform mat4 mvp;
uniform vec4 tint;
uniform float scales[3];
layout(std140) uniform Lights {
    vec3 light_dir;
    float intensity;
    mat3 basis;
    vec4 colors[2];
} lights;
void main() {
    v_uv = uv;
    v_normal = normal * lights.basis;
    v_depth = scales[1] * lights.intensity;
    gl_Position = mvp * vec4(position, 1.0);
}
"#;

const FS_330: &str = r#"#version 330 core
in float v_depth;
in vec3 v_normal;
in vec2 v_uv;
out vec4 color;
uniform sampler2D tex;
uniform vec4 tint;
layout(std140) uniform Lights {
    vec3 light_dir;
    float intensity;
    mat3 basis;
    vec4 colors[2];
} lights;
void main() {
    color = texture(tex, v_uv) * tint * lights.colors[1] * max(dot(v_normal, lights.light_dir), 0.0) + vec4(v_depth);
}
"#;

#[test]
fn stage_enums() {
    assert_eq!(stage_from_gl(GL_VERTEX_SHADER), Some(Stage::Vertex));
    assert_eq!(stage_from_gl(GL_COMPUTE_SHADER), Some(Stage::Compute));
    assert_eq!(stage_from_gl(0), None);
    for (i, s) in Stage::ALL.iter().enumerate() {
        assert_eq!(s.index(), i);
    }
}

#[test]
fn glsl330_pair_links_and_reflects() {
    let attribs = vec![("normal".to_owned(), 5u32)];
    let p = link_vs_fs(VS_330, FS_330, &attribs).unwrap_or_else(|e| panic!("link failed:\n{e}"));
    validate_all(&p);
    let vs = p.stage_spirv[Stage::Vertex.index()].as_ref().unwrap();
    let fs = p.stage_spirv[Stage::Fragment.index()].as_ref().unwrap();

    // Attributes: glBindAttribLocation honoured, the rest on free locations.
    let attr = |n: &str| {
        p.attributes
            .iter()
            .find(|a| a.name == n)
            .unwrap_or_else(|| panic!("{n}: {:?}", p.attributes))
    };
    assert_eq!(attr("normal").location, 5);
    assert_eq!(attr("position").gl_type, GL_FLOAT_VEC3);
    assert_eq!(attr("uv").gl_type, GL_FLOAT_VEC2);
    assert_ne!(attr("position").location, attr("uv").location);
    assert!(attr("position").location != 5 && attr("uv").location != 5);
    assert_eq!(location_of(vs, "normal", 1), Some(5));
    assert_eq!(
        location_of(vs, "position", 1),
        Some(attr("position").location)
    );

    // Varyings declared in different orders still match by name.
    for v in ["v_uv", "v_normal", "v_depth"] {
        let out = location_of(vs, v, 3).expect("vs output location");
        let inp = location_of(fs, v, 1).expect("fs input location");
        assert_eq!(out, inp, "varying {v}");
    }

    // Fragment output: single unbound output at 0.
    assert_eq!(p.outputs.len(), 1);
    assert_eq!(p.outputs[0].name, "color");
    assert_eq!(p.outputs[0].location, 0);
    assert_eq!(location_of(fs, "color", 3), Some(0));

    // Default block: loose uniforms with offsets matching the SPIR-V.
    let g = p.global_block.expect("global block");
    assert_eq!(g.binding, p.blocks.len() as u32);
    let mvp = uniform(&p, "mvp");
    assert_eq!(
        (
            mvp.gl_type,
            mvp.block_index,
            mvp.matrix_stride,
            mvp.is_row_major
        ),
        (GL_FLOAT_MAT4, -1, 16, false)
    );
    let tint = uniform(&p, "tint");
    assert_eq!((tint.gl_type, tint.array_size), (GL_FLOAT_VEC4, 1));
    let scales = uniform(&p, "scales[0]");
    assert_eq!(
        (scales.gl_type, scales.array_size, scales.array_stride),
        (GL_FLOAT, 3, 16)
    );
    assert!(g.size >= scales.offset + 3 * 16 && g.size & 15 == 0);
    assert_eq!(
        p.uniforms.iter().filter(|u| u.name == "tint").count(),
        1,
        "tint is shared between stages and listed once"
    );
    for words in [vs, fs] {
        let m = Module::parse(words.clone()).unwrap();
        let block = m.variables.iter().find(|v| {
            let pt = m.pointee(v).unwrap();
            m.name(pt) == "DefaultUniforms"
        });
        let Some(block) = block else { continue };
        assert_eq!(m.decoration(block.id, dec::BINDING), Some(g.binding));
        assert_eq!(m.decoration(block.id, dec::DESCRIPTOR_SET), Some(0));
        let st = m.pointee(block).unwrap();
        for (k, mem) in (0u32..).zip(["mvp", "tint", "scales"]) {
            let _ = mem;
            let name = m.member_name(st, k).to_owned();
            if name.is_empty() {
                continue;
            }
            let off = m.member_decoration(st, k, dec::OFFSET).unwrap();
            // Hidden uniforms (`mgl_Points` ...) share the block.
            let u = p
                .uniforms
                .iter()
                .chain(&p.hidden_uniforms)
                .find(|u| u.name == name || u.name == format!("{name}[0]"))
                .unwrap();
            assert_eq!(u.offset, off, "offset of {name}");
        }
    }

    // std140 uniform block.
    assert_eq!(p.blocks.len(), 1);
    let b = &p.blocks[0];
    assert_eq!((b.name.as_str(), b.binding), ("Lights", 0));
    assert_eq!(
        b.data_size, 96,
        "vec3+float (16) + mat3 (48) + vec4[2] (32)"
    );
    let names: Vec<&str> = b
        .active_uniforms
        .iter()
        .map(|&i| p.uniforms[i as usize].name.as_str())
        .collect();
    assert_eq!(
        names,
        [
            "Lights.light_dir",
            "Lights.intensity",
            "Lights.basis",
            "Lights.colors[0]"
        ]
    );
    let basis = uniform(&p, "Lights.basis");
    assert_eq!(
        (basis.offset, basis.matrix_stride, basis.block_index),
        (16, 16, 0)
    );
    assert_eq!(uniform(&p, "Lights.intensity").offset, 12);
    let colors = uniform(&p, "Lights.colors[0]");
    assert_eq!(
        (colors.offset, colors.array_size, colors.array_stride),
        (64, 2, 16)
    );

    // Sampler.
    let tex = uniform(&p, "tex");
    assert_eq!(
        (tex.gl_type, tex.sampler_binding, tex.offset),
        (GL_SAMPLER_2D, Some(0), u32::MAX)
    );
    assert_eq!(p.sampler_slots, 1);

    // Consumable by the GLES backend.
    for words in [vs, fs] {
        let essl = to_essl(words);
        assert!(essl.contains("#version 320 es"), "{essl}");
        assert!(essl.contains("layout(binding"), "{essl}");
    }
}

#[test]
fn compile_error_has_line() {
    let src = "#version 330 core\nout vec4 c;\nvoid main() {\n    c = undefined_thing;\n}\n";
    let log = compile(Stage::Fragment, src).unwrap_err();
    assert!(log.contains("0:4:"), "{log}");
    assert!(log.contains("undefined_thing"), "{log}");
    assert!(compile(
        Stage::Fragment,
        "#version 330 core\nout vec4 c;\nvoid main() { c = vec4(1.0); }\n"
    )
    .is_ok());
}

const VS_110: &str = "attribute vec4 a_position;\nattribute vec2 a_uv;\nvarying vec2 v_uv;\nuniform mat4 u_mvp;\nvoid main() {\n    v_uv = a_uv;\n    gl_Position = u_mvp * a_position;\n}\n";
const FS_110: &str = "#version 110\nvarying vec2 v_uv;\nuniform sampler2D texture;\nuniform vec4 u_color;\nvoid main() {\n    gl_FragColor = texture2D(texture, v_uv) * u_color;\n}\n";

#[test]
fn glsl110_links_through_prepass() {
    let attribs = vec![("a_uv".to_owned(), 3u32)];
    let p = link_vs_fs(VS_110, FS_110, &attribs).unwrap_or_else(|e| panic!("link failed:\n{e}"));
    validate_all(&p);
    let a = p.attributes.iter().find(|a| a.name == "a_uv").unwrap();
    assert_eq!(a.location, 3);
    let pos = p
        .attributes
        .iter()
        .find(|a| a.name == "a_position")
        .unwrap();
    assert_eq!(pos.location, 0);
    // The user's sampler named `texture` keeps its GL name.
    let t = uniform(&p, "texture");
    assert_eq!((t.gl_type, t.sampler_binding), (GL_SAMPLER_2D, Some(0)));
    uniform(&p, "u_mvp");
    uniform(&p, "u_color");
    assert_eq!(p.outputs.len(), 1);
    assert_eq!(p.outputs[0].location, 0);
    let vs = p.stage_spirv[0].as_ref().unwrap();
    let fs = p.stage_spirv[4].as_ref().unwrap();
    assert_eq!(location_of(vs, "v_uv", 3), location_of(fs, "v_uv", 1));
    let essl = to_essl(fs);
    assert!(
        essl.contains("#version 320 es") && essl.contains("layout(binding"),
        "{essl}"
    );
}

#[test]
fn legacy_errors_keep_line_numbers() {
    // No #version: the error is on line 3 of the user's text.
    let log = compile(
        Stage::Vertex,
        "attribute vec4 p;\nvoid main() {\n  gl_Position = p * nope;\n}\n",
    )
    .unwrap_err();
    assert!(log.contains("0:3:"), "{log}");
    // #version 120 with an injected gl_FragColor declaration.
    let log = compile(
        Stage::Fragment,
        "#version 120\n\nvoid main() {\n  gl_FragColor = vec4(nope);\n}\n",
    )
    .unwrap_err();
    assert!(log.contains("0:4:"), "{log}");
    // Compatibility built-ins without a core emulation are reported by
    // name (the matrices and gl_Vertex are emulated).
    let log = compile(
        Stage::Vertex,
        "#version 120\nvoid main() {\n  gl_Position = gl_LightSource[0].position * gl_Fog.density;\n}\n",
    )
    .unwrap_err();
    assert!(
        log.contains("gl_LightSource") && log.contains("gl_Fog") && log.contains("0:3:"),
        "{log}"
    );
}

/// GL 4.6 compatibility §17.4.1: gl_FragColor reaches every draw buffer,
/// i.e. every fragment output location; the copies stay hidden.
#[test]
fn frag_color_is_broadcast_to_every_draw_buffer() {
    let fs = "#version 110\nuniform vec4 c;\nvoid main() {\n  if (c.x > 2.0) { gl_FragColor = c; return; }\n  gl_FragColor = c * 0.5;\n}\n";
    let p = link_vs_fs(VS_110, fs, &[]).unwrap_or_else(|e| panic!("link failed:\n{e}"));
    validate_all(&p);
    assert_eq!(p.outputs.len(), 1, "{:?}", p.outputs);
    assert_eq!(p.outputs[0].location, 0);
    let words = p.stage_spirv[4].as_ref().unwrap();
    assert_eq!(location_of(words, "mgl_FragColor", 3), Some(0));
    assert_eq!(location_of(words, "mgl_FragColorB", 3), Some(1));
    let essl = to_essl(words);
    for k in 0..7 {
        assert!(essl.contains(&format!("mgl_FragColorB[{k}] = ")), "{essl}");
    }
    // Core outputs are not broadcast: `out vec4 color` is location 0 alone.
    let p = link_vs_fs(VS_330, FS_330, &[]).unwrap_or_else(|e| panic!("{e}"));
    let words = p.stage_spirv[4].as_ref().unwrap();
    assert_eq!(location_of(words, "mgl_FragColorB", 3), None);
    // A declared (unwritten) user output keeps its free location 1.
    let vs = "#version 130\nin vec4 p;\nvoid main() { gl_Position = p; }\n";
    let fs = "#version 130\nout vec4 color;\nvoid f(out vec4 x) { x = vec4(1.0); }\nvoid main() { gl_FragColor = vec4(1.0); }\n";
    let p = link_vs_fs(vs, fs, &[]).unwrap_or_else(|e| panic!("{e}"));
    let words = p.stage_spirv[4].as_ref().unwrap();
    assert_eq!(location_of(words, "mgl_FragColorB", 3), None);
    // gl_FragData indexed dynamically has GL_MAX_DRAW_BUFFERS elements.
    let fs = "#version 120\nuniform int n;\nvoid main() { for (int i = 0; i < n; i++) gl_FragData[i] = vec4(1.0); }\n";
    let p = link_vs_fs(VS_110, fs, &[]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.outputs.len(), 1, "{:?}", p.outputs);
    assert_eq!(p.outputs[0].array_size, 8);
    // gl_FragData is not broadcast either.
    let fs = "#version 120\nvoid main() { gl_FragData[0] = vec4(1.0); }\n";
    let p = link_vs_fs(VS_110, fs, &[]).unwrap_or_else(|e| panic!("{e}"));
    let words = p.stage_spirv[4].as_ref().unwrap();
    assert_eq!(location_of(words, "mgl_FragColorB", 3), None);
}

/// ARB_texture_cube_map_array in GLSL 1.10: `texture()` & co. are its
/// built-in lookups, not user names to rename.
#[test]
fn cube_map_array_lookups_in_glsl_110() {
    let fs = "#extension GL_ARB_texture_cube_map_array : enable\nuniform samplerCubeArray tex;\nvoid main() {\n  gl_FragColor = texture(tex, gl_TexCoord[0]) + textureLod(tex, vec4(1.0), 0.0) + vec4(textureSize(tex, 0), 0.0);\n}\n";
    compile(Stage::Fragment, fs).unwrap_or_else(|e| panic!("{e}"));
    // EXT_texture_array: its sampler types and texture2DArray() & co.
    let fs = "#extension GL_EXT_texture_array : require\nuniform sampler2DArray s;\nuniform sampler1DArray t;\nvoid main() {\n  gl_FragColor = texture2DArray(s, gl_TexCoord[0].xyz) + texture1DArray(t, vec2(0.5)) + texture2DArrayLod(s, vec3(0.5), 0.0);\n}\n";
    compile(Stage::Fragment, fs).unwrap_or_else(|e| panic!("{e}"));
    // Without the extension `texture` is still a GLSL 1.10 user name.
    let fs = "float texture(float x) { return x; }\nvoid main() { gl_FragColor = vec4(texture(1.0)); }\n";
    compile(Stage::Fragment, fs).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn frag_data_and_shadow() {
    let vs = "#version 120\nattribute vec4 p;\nvarying vec3 c;\nvoid main() { c = p.xyz; gl_Position = p; }\n";
    let fs = "#version 120\nvarying vec3 c;\nuniform sampler2DShadow sh;\nuniform sampler2D maps[2];\nvoid main() {\n  gl_FragData[0] = shadow2D(sh, c);\n  gl_FragData[1] = texture2D(maps[1], c.xy) + shadow2D(sh, c).r;\n}\n";
    let p = link_vs_fs(vs, fs, &[]).unwrap_or_else(|e| panic!("{e}"));
    validate_all(&p);
    assert_eq!(uniform(&p, "sh").sampler_binding, Some(0));
    assert_eq!(uniform(&p, "sh").gl_type, GL_SAMPLER_2D_SHADOW);
    let maps = uniform(&p, "maps[0]");
    assert_eq!((maps.sampler_binding, maps.array_size), (Some(1), 2));
    assert_eq!(p.sampler_slots, 3);
    assert_eq!(p.outputs[0].array_size, 2);
}

#[test]
fn explicit_locations_and_frag_data_binding() {
    let vs = "#version 330 core\nlayout(location = 2) in vec4 p;\nin vec4 q;\nin mat4 m;\nvoid main() { gl_Position = m * p + q + vec4(float(gl_VertexID + gl_InstanceID)); }\n";
    let fs = "#version 330 core\nout vec4 a;\nout vec4 b;\nvoid main() { a = vec4(1.0); b = vec4(0.0); }\n";
    let attribs = vec![("p".to_owned(), 7u32), ("q".to_owned(), 0u32)];
    let frag = vec![("a".to_owned(), 1u32), ("b".to_owned(), 0u32)];
    let shaders = [(Stage::Vertex, vs), (Stage::Fragment, fs)];
    let p = link(&LinkInput {
        xfb_varyings: &[],
        xfb_mode: 0,
        shaders: &shaders,
        attrib_bindings: &attribs,
        frag_data_bindings: &frag,
        varying_limit: 0,
    })
    .unwrap_or_else(|e| panic!("{e}"));
    validate_all(&p);
    let loc = |n: &str| p.attributes.iter().find(|a| a.name == n).unwrap().location;
    assert_eq!(
        loc("p"),
        2,
        "explicit layout wins over glBindAttribLocation"
    );
    assert_eq!(loc("q"), 0);
    // mat4 needs 4 consecutive free locations: 3..7 (2 is taken).
    assert_eq!(loc("m"), 3);
    let out = |n: &str| p.outputs.iter().find(|a| a.name == n).unwrap().location;
    assert_eq!((out("a"), out("b")), (1, 0));
    let essl = to_essl(p.stage_spirv[0].as_ref().unwrap());
    assert!(
        essl.contains("gl_VertexID") && essl.contains("gl_InstanceID"),
        "{essl}"
    );
}

#[test]
fn bad_inputs_do_not_panic() {
    assert!(compile(Stage::Fragment, "#version 330\nvoid main() {}\0garbage").is_err());
    assert!(compile(Stage::Vertex, "").is_err() || compile(Stage::Vertex, "").is_ok());
    assert!(compile(Stage::Vertex, "#version 9999\nvoid main(){}").is_err());
    assert!(compile(Stage::Vertex, "#version\n").is_err());
    let huge = format!(
        "#version 330\nfloat x_;\n{}void main() {{}}\n",
        "// padding\n".repeat(200_000)
    );
    assert!(compile(Stage::Vertex, &huge).is_ok());
    let junk: String = (0u8..=255).map(|b| b as char).collect();
    assert!(compile(Stage::Fragment, &junk).is_err());
    assert!(link(&LinkInput {
        xfb_varyings: &[],
        xfb_mode: 0,
        shaders: &[],
        attrib_bindings: &[],
        frag_data_bindings: &[],
        varying_limit: 0,
    })
    .is_err());
    let shaders = [
        (
            Stage::Vertex,
            "#version 330\nvoid main() { gl_Position = vec4(0.0); }\n",
        ),
        (
            Stage::Compute,
            "#version 430\nlayout(local_size_x=1) in;\nvoid main() {}\n",
        ),
    ];
    assert!(link(&LinkInput {
        xfb_varyings: &[],
        xfb_mode: 0,
        shaders: &shaders,
        attrib_bindings: &[],
        frag_data_bindings: &[],
        varying_limit: 0,
    })
    .is_err());
}

#[test]
fn threads() {
    let handles: Vec<_> = (0..4)
        .map(|_| std::thread::spawn(|| link_vs_fs(VS_330, FS_330, &[]).map(|p| p.uniforms.len())))
        .collect();
    let counts: Vec<usize> = handles
        .into_iter()
        .map(|h| h.join().unwrap().unwrap())
        .collect();
    assert!(counts.windows(2).all(|w| w[0] == w[1]));
}

#[test]
fn structs_bools_row_major_and_blocks() {
    let vs = r#"#version 330 core
in vec4 p;
struct Light { vec3 pos; float radius; };
uniform Light lights[2];
uniform bool enabled;
uniform bvec2 flags;
uniform int count;
layout(std140, row_major) uniform Mats { mat4 model; mat2x3 odd; };
layout(std140) uniform Extra { float e[2]; } extras[2];
out VS_OUT { vec3 n; float w; } vs_out;
void main() {
    vs_out.n = lights[1].pos * float(count);
    vs_out.w = enabled && flags.y ? lights[0].radius + extras[1].e[1] : odd[0].x;
    gl_Position = model * p;
}
"#;
    let gs = r#"#version 330 core
layout(triangles) in;
layout(triangle_strip, max_vertices = 3) out;
in VS_OUT { vec3 n; float w; } gs_in[];
out float g_w;
out vec3 g_n;
void main() {
    for (int i = 0; i < 3; i++) {
        g_n = gs_in[i].n;
        g_w = gs_in[i].w;
        gl_Position = gl_in[i].gl_Position;
        EmitVertex();
    }
    EndPrimitive();
}
"#;
    let fs = r#"#version 330 core
in vec3 g_n;
in float g_w;
uniform vec2 only_fs;
layout(location = 0) out vec4 o;
void main() { o = vec4(g_n * g_w, only_fs.x); }
"#;
    let shaders = [
        (Stage::Vertex, vs),
        (Stage::Geometry, gs),
        (Stage::Fragment, fs),
    ];
    let p = link(&LinkInput {
        xfb_varyings: &[],
        xfb_mode: 0,
        shaders: &shaders,
        attrib_bindings: &[],
        frag_data_bindings: &[],
        varying_limit: 0,
    })
    .unwrap_or_else(|e| panic!("{e}"));
    validate_all(&p);
    let l1 = uniform(&p, "lights[1].pos");
    let l0r = uniform(&p, "lights[0].radius");
    assert_eq!((l1.gl_type, l0r.gl_type), (GL_FLOAT_VEC3, GL_FLOAT));
    assert_eq!(
        l1.offset,
        l0r.offset - 12 + 16,
        "std140 struct {{vec3, float}} has stride 16"
    );
    assert_eq!(uniform(&p, "enabled").gl_type, GL_BOOL);
    assert_eq!(uniform(&p, "flags").gl_type, GL_BOOL_VEC2);
    assert_eq!(uniform(&p, "count").gl_type, GL_INT);
    uniform(&p, "only_fs");
    // Nameless block: members have no prefix; row_major reported.
    let model = uniform(&p, "model");
    assert!(model.is_row_major && model.matrix_stride == 16 && model.block_index >= 0);
    let odd = uniform(&p, "odd");
    assert_eq!((odd.gl_type, odd.is_row_major), (GL_FLOAT_MAT2X3, true));
    // Instanced block array: two blocks, consecutive bindings.
    let names: Vec<(&str, u32)> = p
        .blocks
        .iter()
        .map(|b| (b.name.as_str(), b.binding))
        .collect();
    assert_eq!(names, [("Mats", 0), ("Extra[0]", 1), ("Extra[1]", 2)]);
    assert_eq!(p.global_block.unwrap().binding, 3);
    uniform(&p, "Extra.e[0]");
    // Interface-block varyings and gs → fs varyings match.
    let vsw = p.stage_spirv[0].as_ref().unwrap();
    let gsw = p.stage_spirv[3].as_ref().unwrap();
    let fsw = p.stage_spirv[4].as_ref().unwrap();
    assert_eq!(location_of(vsw, "vs_out", 3), location_of(gsw, "gs_in", 1));
    for v in ["g_n", "g_w"] {
        assert_eq!(location_of(gsw, v, 3), location_of(fsw, v, 1), "{v}");
    }
    for w in p.stage_spirv.iter().flatten() {
        let essl = to_essl(w);
        assert!(essl.contains("#version 320 es"), "{essl}");
    }
}

#[test]
fn compute_program() {
    let cs = "#version 430\nlayout(local_size_x = 8) in;\nlayout(std430, binding = 3) buffer Data { float v[]; };\nuniform float k;\nlayout(binding = 5) uniform sampler2D s;\nlayout(std140, binding = 2) uniform P { vec4 q; } ps[2];\nvoid main() { v[gl_GlobalInvocationID.x] *= k * texelFetch(s, ivec2(0), 0).x * ps[1].q.x; }\n";
    let shaders = [(Stage::Compute, cs)];
    let p = link(&LinkInput {
        xfb_varyings: &[],
        xfb_mode: 0,
        shaders: &shaders,
        attrib_bindings: &[],
        frag_data_bindings: &[],
        varying_limit: 0,
    })
    .unwrap_or_else(|e| panic!("{e}"));
    validate_all(&p);
    assert_eq!(p.global_block.unwrap().binding, 2);
    assert_eq!(uniform(&p, "s").sampler_binding, Some(0));
    assert_eq!(uniform(&p, "s").explicit_binding, Some(5));
    let eb: Vec<Option<u32>> = p.blocks.iter().map(|b| b.explicit_binding).collect();
    assert_eq!(eb, [Some(2), Some(3)]);
    assert!(to_essl(p.stage_spirv[5].as_ref().unwrap()).contains("#version 320 es"));
    assert_eq!(p.local_size(), Some([8, 1, 1]));
    let sb: Vec<(&str, u32, Option<u32>)> = p
        .storage_blocks
        .iter()
        .map(|b| (b.name.as_str(), b.binding, b.explicit_binding))
        .collect();
    assert_eq!(sb, [("Data", 0, Some(3))]);
}

#[test]
fn compute_images_storage_and_counters() {
    // A 3.30 compute shader (GL_ARB_compute_shader) compiles as 4.30;
    // images take slots of their own, arrays consecutive ones.
    let cs = "#version 330\n#extension GL_ARB_compute_shader: require\n#extension GL_ARB_shader_image_load_store: require\nlayout(local_size_x = 2, local_size_y = 3) in;\nlayout(rgba8) writeonly uniform image2D a;\nlayout(r32ui, binding = 4) uniform uimage2D b[2];\nvoid main() { imageStore(a, ivec2(0), vec4(1.0)); imageStore(b[1], ivec2(0), uvec4(imageLoad(b[0], ivec2(1)).x)); }\n";
    let shaders = [(Stage::Compute, cs)];
    let p = link(&LinkInput {
        xfb_varyings: &[],
        xfb_mode: 0,
        shaders: &shaders,
        attrib_bindings: &[],
        frag_data_bindings: &[],
        varying_limit: 0,
    })
    .unwrap_or_else(|e| panic!("{e}"));
    validate_all(&p);
    assert_eq!(p.local_size(), Some([2, 3, 1]));
    assert_eq!(p.image_slots, 3);
    let a = uniform(&p, "a");
    assert_eq!(
        (a.gl_type, a.image_binding, a.explicit_binding),
        (0x904D, Some(0), None)
    );
    let b = uniform(&p, "b[0]");
    assert_eq!(
        (b.gl_type, b.image_binding, b.array_size, b.explicit_binding),
        (0x9063, Some(1), 2, Some(4))
    );
}

#[test]
fn other_legacy_versions() {
    // ES 1.00.
    let vs = "#version 100\nattribute vec4 p;\nvarying mediump vec2 t;\nvoid main() { t = p.xy; gl_Position = p; }\n";
    let fs = "#version 100\nprecision mediump float;\nvarying vec2 t;\nuniform sampler2D s;\nvoid main() { gl_FragColor = texture2D(s, t); }\n";
    let p = link_vs_fs(vs, fs, &[]).unwrap_or_else(|e| panic!("{e}"));
    validate_all(&p);
    // ES 3.00.
    let fs3 =
        "#version 300 es\nprecision mediump float;\nout vec4 c;\nvoid main() { c = vec4(1.0); }\n";
    assert!(compile(Stage::Fragment, fs3).is_ok());
    // 1.30 uses texture() legitimately; 1.50 compatibility maps like legacy.
    let vs130 =
        "#version 130\nin vec4 p;\nout vec2 t;\nvoid main() { t = p.xy; gl_Position = p; }\n";
    let fs130 = "#version 130\nin vec2 t;\nuniform sampler2D s;\nvoid main() { gl_FragColor = texture(s, t) + texture2D(s, t); }\n";
    let p = link_vs_fs(vs130, fs130, &[]).unwrap_or_else(|e| panic!("{e}"));
    validate_all(&p);
    let fs150 = "#version 150 compatibility\nin vec2 t;\nuniform sampler2D s;\nvoid main() { gl_FragColor = texture2D(s, t); }\n";
    let vs150 = "#version 150 compatibility\nin vec4 p;\nout vec2 t;\nvoid main() { t = p.xy; gl_Position = p; }\n";
    let p = link_vs_fs(vs150, fs150, &[]).unwrap_or_else(|e| panic!("{e}"));
    validate_all(&p);
    assert_eq!(p.outputs[0].location, 0);
}

#[test]
fn glsl140_inverse_and_line_continuation() {
    let vs = "#version 140\nin vec4 p;\nuniform mat2 m2;\nuniform mat3 m3;\nuniform mat4 m4;\nout vec4 v;\nvoid main() {\n    v = vec4(inverse(m2)[0], inverse(m3)[1].xy) + inverse(m4)[2];\n    gl_Position = p;\n}\n";
    let fs = "#version 140\nin vec4 v;\nout vec4 c;\n#define SET(x) \\\n    c = x\nvoid main() { SET(v); }\n";
    let p = link_vs_fs(vs, fs, &[]).unwrap_or_else(|e| panic!("link failed:\n{e}"));
    validate_all(&p);
    // The spliced directive keeps later line numbers.
    let bad = "#version 140\n#define A \\\n    1\nout vec4 c;\nvoid main() { c = undeclared; }\n";
    let e = compile(Stage::Fragment, bad).unwrap_err();
    assert!(e.contains("0:5:"), "{e}");
}

#[test]
fn legacy_compat_constants_and_limits() {
    let fs = "#version 130\nout vec4 c;\nuniform float f[gl_MaxTextureCoords >= 8 && gl_MaxVaryingComponents >= 64 ? 1 : -1];\nvoid main() { c = vec4(f[0]); }\n";
    compile(Stage::Fragment, fs).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn invariant_mismatch_fails_link() {
    let vs = "#version 150\nin vec4 p;\ninvariant out vec4 v;\nvoid main() { v = p; gl_Position = p; }\n";
    let fs_plain = "#version 150\nin vec4 v;\nout vec4 c;\nvoid main() { c = v; }\n";
    let fs_inv = "#version 150\nin vec4 v;\ninvariant v;\nout vec4 c;\nvoid main() { c = v; }\n";
    assert!(link_vs_fs(vs, fs_plain, &[]).is_err());
    link_vs_fs(vs, fs_inv, &[]).unwrap_or_else(|e| panic!("link failed:\n{e}"));
}

#[test]
fn geometry_layout_and_block_references() {
    let shaders = [
        (
            Stage::Vertex,
            "#version 150\nuniform A { vec4 a; };\nin vec4 p;\nvoid main() { gl_Position = p + a; }\n",
        ),
        (
            Stage::Geometry,
            "#version 150\nlayout(lines) in;\nlayout(line_strip, max_vertices = 5) out;\nvoid main() { gl_Position = gl_in[0].gl_Position; EmitVertex(); }\n",
        ),
        (
            Stage::Fragment,
            "#version 150\nuniform B { vec4 b; };\nout vec4 c;\nvoid main() { c = b; }\n",
        ),
    ];
    let p = link(&LinkInput {
        xfb_varyings: &[],
        xfb_mode: 0,
        shaders: &shaders,
        attrib_bindings: &[],
        frag_data_bindings: &[],
        varying_limit: 0,
    })
    .unwrap_or_else(|e| panic!("link failed:\n{e}"));
    let g = p.geometry_layout().unwrap();
    assert_eq!(
        (g.input, g.output, g.max_vertices),
        (glow::LINES, glow::LINE_STRIP, 5)
    );
    let a = p.blocks.iter().position(|b| b.name == "A").unwrap();
    let b = p.blocks.iter().position(|b| b.name == "B").unwrap();
    assert!(p.block_referenced(a, Stage::Vertex) && !p.block_referenced(a, Stage::Fragment));
    assert!(p.block_referenced(b, Stage::Fragment) && !p.block_referenced(b, Stage::Geometry));
}

const STREAM_VS: &str = "#version 150\nvoid main() { gl_Position = vec4(0.0); }\n";
const STREAM_FS: &str =
    "#version 150\nout vec4 color;\nvoid main() { color = vec4(0.0, 1.0, 0.0, 1.0); }\n";

fn stream_gs(out_stream: &str, emits: &str) -> String {
    format!(
        "#version 150\n#extension GL_ARB_gpu_shader5 : enable\n\
         layout(points, invocations = 2) in;\n\
         layout(points, max_vertices = 4) out;\n\
         layout(stream = {out_stream}) out vec4 side;\n\
         void main() {{\n  gl_Position = vec4(1.0);\n  side = vec4(2.0);\n{emits}}}\n"
    )
}

fn link_with_gs(gs: &str) -> Result<LinkedProgram, String> {
    let shaders = [
        (Stage::Vertex, STREAM_VS),
        (Stage::Geometry, gs),
        (Stage::Fragment, STREAM_FS),
    ];
    link(&LinkInput {
        xfb_varyings: &[],
        xfb_mode: 0,
        shaders: &shaders,
        attrib_bindings: &[],
        frag_data_bindings: &[],
        varying_limit: 0,
    })
}

#[test]
fn vertex_streams_lower_to_stream_zero() {
    let gs = stream_gs(
        "1",
        "  EmitStreamVertex(0);\n  EndStreamPrimitive(0);\n  EmitStreamVertex(1);\n  EndStreamPrimitive(1);\n",
    );
    compile(Stage::Geometry, &gs).expect("streams 0 and 1 compile");
    let p = link_with_gs(&gs).expect("streams 0 and 1 link");
    validate_all(&p);
    let words = p.stage_spirv[Stage::Geometry.index()].as_ref().unwrap();
    let ops: Vec<u16> = super::spirv::instructions(words).map(|(o, _)| o).collect();
    // Stream 0 became EmitVertex/EndPrimitive, stream 1 was dropped.
    assert_eq!(ops.iter().filter(|&&o| o == 218).count(), 1);
    assert_eq!(ops.iter().filter(|&&o| o == 219).count(), 1);
    assert!(!ops.contains(&220) && !ops.contains(&221));
    let essl = to_essl(words);
    assert!(essl.contains("EmitVertex()"), "{essl}");
    assert!(!essl.contains("stream"), "{essl}");
    assert_eq!(p.geometry_layout().map(|g| g.invocations), Some(2));
}

#[test]
fn vertex_stream_limits_are_errors() {
    // A stream qualifier past GL_MAX_VERTEX_STREAMS: compile error.
    let too_large = stream_gs("4", "  EmitStreamVertex(0);\n");
    assert!(compile(Stage::Geometry, &too_large).is_err());
    assert!(link_with_gs(&too_large).is_err());
    // EmitStreamVertex(-1) compiles but does not link.
    let negative = stream_gs("0", "  EmitStreamVertex(-1);\n  EndStreamPrimitive(-1);\n");
    let log = link_with_gs(&negative).expect_err("negative stream links");
    assert!(log.contains("vertex stream -1"), "{log}");
    // More invocations than GL_MAX_GEOMETRY_SHADER_INVOCATIONS.
    let many = stream_gs("0", "  EmitStreamVertex(0);\n").replace(
        "invocations = 2",
        &format!("invocations = {}", MAX_GEOMETRY_SHADER_INVOCATIONS + 1),
    );
    assert!(compile(Stage::Geometry, &many).is_err());
}

#[test]
fn legacy_compat_builtins_are_emulated() {
    let vs = "#version 120\n\
        void main() {\n\
          gl_FrontColor = gl_Color;\n\
          gl_TexCoord[0] = gl_MultiTexCoord0;\n\
          gl_Position = gl_ModelViewProjectionMatrix * gl_Vertex + ftransform() * 0.0;\n\
        }\n";
    let fs = "#version 120\n\
        void main() { gl_FragColor = gl_Color + gl_TexCoord[0]; }\n";
    let p = link_vs_fs(vs, fs, &[]).unwrap_or_else(|e| panic!("link failed:\n{e}"));
    validate_all(&p);
    // gl_Vertex is generic attribute 0, reported under its own name.
    let v = p.attributes.iter().find(|a| a.name == "gl_Vertex").unwrap();
    assert_eq!(v.location, 0);
    let vs_words = p.stage_spirv[0].as_ref().unwrap();
    let fs_words = p.stage_spirv[4].as_ref().unwrap();
    // The fragment shader's gl_Color is the vertex shader's gl_FrontColor.
    assert_eq!(
        location_of(vs_words, "mgl_FrontColor", 3),
        location_of(fs_words, "mgl_FrontColor", 1)
    );
    assert!(location_of(vs_words, "mgl_FrontColor", 3).is_some());
    to_essl(vs_words);
    to_essl(fs_words);
    // Built-ins with no core emulation stay compile errors.
    let lit = "#version 120\nvoid main() { gl_Position = gl_LightSource[0].position; }\n";
    assert!(compile(Stage::Vertex, lit).is_err());
}

#[test]
fn legacy_color_interpolation_must_match() {
    let fs_reads = "#version 130\nout vec4 c;\nvoid main() { c = gl_Color; }\n";
    let fs_flat =
        "#version 130\nflat in vec4 gl_Color;\nout vec4 c;\nvoid main() { c = gl_Color; }\n";
    let vs_flat_written = "#version 130\nflat out vec4 gl_FrontColor;\n\
        void main() { gl_Position = vec4(0); gl_FrontColor = vec4(0); }\n";
    let vs_flat_unused =
        "#version 130\nflat out vec4 gl_FrontColor;\nvoid main() { gl_Position = vec4(0); }\n";
    let vs_smooth_written = "#version 130\nsmooth out vec4 gl_FrontColor;\n\
        void main() { gl_Position = vec4(0); gl_FrontColor = vec4(0); }\n";
    // Written flat, read without a qualifier: mismatch.
    assert!(link_vs_fs(vs_flat_written, fs_reads, &[]).is_err());
    // An explicit smooth is not "no qualifier" either.
    assert!(link_vs_fs(vs_smooth_written, fs_reads, &[]).is_err());
    // Matching qualifiers, or an output that is never written: links.
    link_vs_fs(vs_flat_written, fs_flat, &[]).expect("flat/flat links");
    link_vs_fs(vs_flat_unused, fs_reads, &[]).expect("unwritten output links");
}

#[test]
fn clip_vertex_with_clip_distance_fails_to_link() {
    let vs = "#version 130\nuniform bool d;\nvoid main() {\n\
        gl_Position = vec4(0.0);\n\
        if (d) { gl_ClipDistance[0] = 1.0; } else { gl_ClipVertex = vec4(0.0); }\n}\n";
    let fs = "#version 130\nout vec4 c;\nvoid main() { c = vec4(1.0); }\n";
    compile(Stage::Vertex, vs).expect("compiles");
    let log = link_vs_fs(vs, fs, &[]).expect_err("links");
    assert!(log.contains("gl_ClipVertex and gl_ClipDistance"), "{log}");
}

#[test]
fn fragment_input_without_producer_fails_to_link() {
    let vs = "#version 110\nvarying vec4 foo;\nvoid main() { foo = vec4(1.0); gl_Position = vec4(0.0); }\n";
    let fs_bar = "#version 110\nvarying vec4 bar;\nvoid main() { gl_FragColor = bar; }\n";
    let fs_foo = "#version 110\nvarying vec4 foo;\nvoid main() { gl_FragColor = foo; }\n";
    let fs_unread = "#version 110\nvarying vec4 bar;\nvoid main() { gl_FragColor = vec4(1.0); }\n";
    let log = link_vs_fs(vs, fs_bar, &[]).expect_err("`bar` has no producer");
    assert!(log.contains("`bar`"), "{log}");
    link_vs_fs(vs, fs_foo, &[]).expect("matching varying links");
    // Declared but never read: no error (GLSL only requires the inputs a
    // shader uses to be written).
    link_vs_fs(vs, fs_unread, &[]).expect("unread input links");
}

#[test]
fn legacy_shader_may_redefine_builtins() {
    // GLSL 1.10 §6.1: a call before the user's declaration reaches the
    // built-in, a call after it the user's function.
    let fs = "#version 110\n\
        vec4 early() { return abs(vec4(-1.0)); }\n\
        vec4 abs(vec4 unused) { return vec4(0.5); }\n\
        void main() { gl_FragColor = early() + abs(vec4(-2.0)); }\n";
    compile(Stage::Fragment, fs).expect("a 1.10 shader may redefine abs");
    let pre = prepass::prepass(Stage::Fragment, fs).unwrap();
    let uses: Vec<&str> = pre.source.lines().filter(|l| l.contains("abs(")).collect();
    assert!(uses[0].contains(" abs(vec4(-1.0))"), "{uses:?}");
    assert!(uses[1].contains("vec4 mgl_u_abs(vec4 unused)"), "{uses:?}");
    assert!(uses[2].contains("mgl_u_abs(vec4(-2.0))"), "{uses:?}");
    // GLSL 1.30 forbids it, and nothing is renamed there.
    let fs130 = fs.replace("#version 110", "#version 130");
    assert!(!prepass::prepass(Stage::Fragment, &fs130)
        .unwrap()
        .source
        .contains("mgl_u_abs"));
}

#[test]
fn sample_qualifier_must_match_across_stages() {
    let vs = |q: &str| {
        format!(
            "#version 150\n#extension GL_ARB_gpu_shader5 : require\n{q} out vec4 c;\n\
             void main() {{ c = vec4(1.0); gl_Position = vec4(0.0); }}\n"
        )
    };
    let fs = |q: &str| {
        format!(
            "#version 150\n#extension GL_ARB_gpu_shader5 : require\n{q} in vec4 c;\nout vec4 o;\n\
             void main() {{ o = c; }}\n"
        )
    };
    let log = link_vs_fs(&vs(""), &fs("sample"), &[]).expect_err("fs-only sample links");
    assert!(log.contains("`c`"), "{log}");
    link_vs_fs(&vs("sample"), &fs("sample"), &[]).expect("sample on both ends links");
    link_vs_fs(&vs(""), &fs(""), &[]).expect("neither links");
}

#[test]
fn rectangle_samplers_become_2d_with_scaled_coordinates() {
    let fs = "#version 140\nuniform sampler2DRect r;\nout vec4 o;\n\
              void main() { o = texture(r, gl_FragCoord.xy) + texelFetch(r, ivec2(0)) \
              + vec4(textureSize(r), 0.0, 0.0); }\n";
    let vs = "#version 140\nin vec4 p;\nvoid main() { gl_Position = p; }\n";
    let p = link_vs_fs(vs, fs, &[]).expect("links");
    validate_all(&p);
    let words = p.stage_spirv[Stage::Fragment.index()].as_ref().unwrap();
    let m = Module::parse(words.clone()).unwrap();
    assert!(
        !m.types
            .values()
            .any(|t| matches!(t, spirv::Type::Image { dim: 4, .. })),
        "no Rect image type is left"
    );
    // Reflection still reports the rectangle sampler type.
    assert!(p
        .uniforms
        .iter()
        .any(|u| u.name == "r" && u.gl_type == glow::SAMPLER_2D_RECT));
    let essl = to_essl(words);
    assert!(essl.contains("sampler2D"), "{essl}");
    assert!(
        essl.contains("textureSize"),
        "coordinates scaled by the size: {essl}"
    );
}

#[test]
fn global_initializers_must_agree_across_shaders_of_a_stage() {
    let link3 = |a: &str, b: &str| {
        let vs1 = format!("#version 120\nfloat g{a};\nvoid main() {{ gl_Position = vec4(g); }}\n");
        let vs2 = format!("#version 120\nfloat g{b};\nvoid f() {{}}\n");
        let fs = "#version 120\nvoid main() { gl_FragColor = vec4(1.0); }\n";
        let shaders = [
            (Stage::Vertex, vs1.as_str()),
            (Stage::Vertex, vs2.as_str()),
            (Stage::Fragment, fs),
        ];
        link(&LinkInput {
            xfb_varyings: &[],
            xfb_mode: 0,
            shaders: &shaders,
            attrib_bindings: &[],
            frag_data_bindings: &[],
            varying_limit: 0,
        })
    };
    let log = link3(" = 1.0", " = 2.0").expect_err("different initializers");
    assert!(log.contains("\"g\""), "{log}");
    link3(" = 1.0", " = 1.0").expect("equal initializers link");
    link3("", " = 2.0").expect("one initializer links");
}

#[test]
fn frag_coord_redeclarations_must_agree() {
    let link_fs = |a: &str, b: &str| {
        let vs = "#version 150\nin vec4 p;\nvoid main() { gl_Position = p; }\n";
        let fs1 = format!(
            "#version 150\n{a}\nout vec4 o;\nvoid f();\nvoid main() {{ o = gl_FragCoord; f(); }}\n"
        );
        let fs2 = format!("#version 150\n{b}\nvoid f() {{ float z = gl_FragCoord.z; }}\n");
        let shaders = [
            (Stage::Vertex, vs),
            (Stage::Fragment, fs1.as_str()),
            (Stage::Fragment, fs2.as_str()),
        ];
        link(&LinkInput {
            xfb_varyings: &[],
            xfb_mode: 0,
            shaders: &shaders,
            attrib_bindings: &[],
            frag_data_bindings: &[],
            varying_limit: 0,
        })
    };
    let redecl = "layout(origin_upper_left) in vec4 gl_FragCoord;";
    link_fs(redecl, "").expect_err("used without the redeclaration");
    link_fs(redecl, "in vec4 gl_FragCoord;").expect_err("different qualifiers");
    link_fs(redecl, redecl).expect("equal redeclarations link");
    link_fs("", "").expect("no redeclaration links");
}

#[test]
fn global_initializer_names_skip_array_suffixes() {
    let g = prepass::global_initializers(
        "const float a[] = float[](0.0);\nconst int b[2] = int[](0, 1), c = 3;\nvoid main() { float d = 1.0; }\n",
    );
    let names: Vec<&str> = g.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["a", "b", "c"], "{g:?}");
}

#[test]
fn emulated_fixed_function_inputs_are_active_attributes() {
    let vs = "#version 110\nvoid main() { gl_Position = gl_Vertex + gl_Color + vec4(gl_Normal, gl_FogCoord); }\n";
    let fs = "#version 110\nvoid main() { gl_FragColor = vec4(1.0); }\n";
    let p = link_vs_fs(vs, fs, &[]).expect("links");
    let find = |n: &str| p.attributes.iter().find(|a| a.name == n);
    assert_eq!(find("gl_Vertex").map(|a| a.location), Some(0));
    for (name, ty) in [
        ("gl_Color", glow::FLOAT_VEC4),
        ("gl_Normal", glow::FLOAT_VEC3),
        ("gl_FogCoord", glow::FLOAT),
    ] {
        let a = find(name).unwrap_or_else(|| panic!("{name} listed: {:?}", p.attributes));
        assert_eq!((a.gl_type, a.location), (ty, u32::MAX), "{name}");
    }
    assert!(
        find("gl_SecondaryColor").is_none(),
        "unused inputs are not listed"
    );
}

#[test]
fn arrays_of_arrays_compile_as_430_and_name_each_row() {
    // GL_ARB_arrays_of_arrays in a 1.50 source: glslang takes arrays of
    // arrays from 4.30 only, so the source compiles as 4.30 with the
    // directive commented out (line numbers kept). Opaque arrays list one
    // active uniform per innermost array; block arrays name every element.
    let vs = "#version 150\nin vec4 p;\nvoid main() { gl_Position = p; }\n";
    let fs = "#version 150\n#extension GL_ARB_arrays_of_arrays : require\n#extension GL_ARB_shader_storage_buffer_object : require\nuniform sampler2D tex[2][3];\nuniform float k[2][2];\nlayout(std430, binding = 1) buffer B { vec4 a; } b[2][2];\nout vec4 c;\nvoid main() { c = texture(tex[1][2], vec2(0.0)) + k[1][0] + b[1][1].a; }\n";
    let p = link_vs_fs(vs, fs, &[]).unwrap_or_else(|e| panic!("{e}"));
    validate_all(&p);
    let row1 = uniform(&p, "tex[1][0]");
    assert_eq!((row1.sampler_binding, row1.array_size), (Some(3), 3));
    assert_eq!(uniform(&p, "tex[0][0]").sampler_binding, Some(0));
    assert_eq!(uniform(&p, "k[1][0]").array_size, 2);
    let sb: Vec<(&str, u32, Option<u32>)> = p
        .storage_blocks
        .iter()
        .map(|b| (b.name.as_str(), b.binding, b.explicit_binding))
        .collect();
    assert_eq!(
        sb,
        [
            ("B[0][0]", 0, Some(1)),
            ("B[0][1]", 1, Some(2)),
            ("B[1][0]", 2, Some(3)),
            ("B[1][1]", 3, Some(4))
        ]
    );
    // Flattened to one array level for Vulkan; ESSL takes it too.
    let essl = to_essl(p.stage_spirv[Stage::Fragment.index()].as_ref().unwrap());
    assert!(essl.contains("tex[6]"), "{essl}");
    // Without the extension, arrays of arrays stay a 1.50 compile error.
    let plain = fs.replace("#extension GL_ARB_arrays_of_arrays : require\n", "\n");
    let err = link_vs_fs(vs, &plain, &[]).expect_err("arrays of arrays need 4.30");
    assert!(err.contains("arrays of arrays"), "{err}");
}

#[test]
fn legacy_matrix_builtins_are_uniforms_under_their_names() {
    let vs = "#version 110\n\
        void main() { gl_Position = ftransform() + gl_TextureMatrix[1] * gl_Vertex; }\n";
    let fs = "#version 110\n\
        void main() { gl_FragColor = vec4(gl_NormalMatrix[0], gl_NormalScale); }\n";
    let p = link_vs_fs(vs, fs, &[]).unwrap_or_else(|e| panic!("link failed:\n{e}"));
    validate_all(&p);
    let find = |n: &str| {
        p.uniforms
            .iter()
            .find(|u| u.name == n && u.block_index == -1)
            .unwrap_or_else(|| panic!("{n} in {:?}", p.uniforms))
    };
    // ftransform() reads the modelview-projection matrix.
    assert_eq!(
        find("gl_ModelViewProjectionMatrix").gl_type,
        glow::FLOAT_MAT4
    );
    // Sized by use, as Mesa does: the highest constant index + 1.
    let t = find("gl_TextureMatrix[0]");
    assert_eq!((t.gl_type, t.array_size), (glow::FLOAT_MAT4, 2));
    assert_eq!(find("gl_NormalMatrix").gl_type, glow::FLOAT_MAT3);
    assert_eq!(find("gl_NormalScale").gl_type, glow::FLOAT);
    assert!(p.uniforms.iter().all(|u| !u.name.starts_with("mgl_")));
    // Indexed dynamically: all 8.
    let vs = "#version 110\nuniform int k;\n\
        void main() { gl_Position = gl_TextureMatrixInverse[k] * gl_Vertex; }\n";
    let p = link_vs_fs(vs, fs, &[]).unwrap_or_else(|e| panic!("link failed:\n{e}"));
    let t = p
        .uniforms
        .iter()
        .find(|u| u.name == "gl_TextureMatrixInverse[0]")
        .unwrap();
    assert_eq!(t.array_size, 8);
}

#[test]
fn clip_vertex_shader_writes_clip_distances() {
    let vs = "#version 120\n\
        void main() {\n\
          gl_Position = gl_ModelViewProjectionMatrix * gl_Vertex;\n\
          gl_ClipVertex = gl_ModelViewMatrix * gl_Vertex;\n\
        }\n";
    let fs = "#version 120\nvoid main() { gl_FragColor = vec4(1.0); }\n";
    let p = link_vs_fs(vs, fs, &[]).unwrap_or_else(|e| panic!("link failed:\n{e}"));
    validate_all(&p);
    // The planes are a uniform of the implementation's, not reported.
    assert!(!p.uniforms.iter().any(|u| u.name.contains("ClipPlane")));
    let planes = p
        .hidden_uniforms
        .iter()
        .find(|u| u.name == "mgl_ClipPlane[0]")
        .unwrap_or_else(|| panic!("{:?}", p.hidden_uniforms));
    assert_eq!((planes.gl_type, planes.array_size), (glow::FLOAT_VEC4, 8));
    let essl = to_essl(p.stage_spirv[0].as_ref().unwrap());
    assert!(essl.contains("gl_ClipDistance[7]"), "{essl}");
}

#[test]
fn vulkan_glsl_keywords_are_user_names_in_legacy_shaders() {
    let vs = "void main() { gl_Position = gl_Vertex; }\n";
    let fs = "uniform sampler2D sampler;\n\
        void main() { gl_FragColor = texture2D(sampler, vec2(0.5)); }\n";
    let p = link_vs_fs(vs, fs, &[]).unwrap_or_else(|e| panic!("link failed:\n{e}"));
    assert!(
        p.uniforms.iter().any(|u| u.name == "sampler"),
        "{:?}",
        p.uniforms
    );
}

#[test]
fn rename_identifiers_skips_members_and_comments() {
    let src = "uniform vec4 color; // color\nvoid main() { s.color = color + colorx; }\n";
    let out = super::prepass::rename_identifiers(src, &[("color".into(), "c2".into())]);
    assert_eq!(
        out,
        "uniform vec4 c2; // color\nvoid main() { s.color = c2 + colorx; }\n"
    );
}

#[test]
fn storage_block_unsized_array_only_last() {
    let vs = "#version 150\n#extension GL_ARB_shader_storage_buffer_object: require\n\
        buffer a { vec4 s[]; vec4 a[]; } b;\nin vec4 p;\n\
        void main() { gl_Position = p + b.a[0]; }\n";
    let fs = "#version 150\nout vec4 c;\nvoid main() { c = vec4(1.0); }\n";
    let e = link_vs_fs(vs, fs, &[]).expect_err("unsized member before the last must not link");
    assert!(e.contains("storage block `a`"), "{e}");
    let ok = vs.replace("vec4 s[]; vec4 a[];", "vec4 s[2]; vec4 a[];");
    link_vs_fs(&ok, fs, &[]).unwrap_or_else(|e| panic!("last unsized member must link:\n{e}"));
}

#[test]
fn storage_blocks_compile_under_glsl_130_with_the_extension() {
    let vs = "#version 130\n#extension GL_ARB_shader_storage_buffer_object: require\n\
        layout(std430) buffer ssbo { vec4 v; float f[]; };\nin vec4 p;\n\
        void main() { gl_Position = p; v = p; f[gl_VertexID] = 1.0; }\n";
    let pre = prepass::prepass(Stage::Vertex, vs).unwrap_or_else(|e| panic!("{e}"));
    assert!(pre.source.starts_with("#version 150"), "{}", pre.source);
}

#[test]
fn storage_block_atomics_compile_before_glsl_430() {
    let fs = "#version 330\n#extension GL_ARB_shader_storage_buffer_object: require\n\
        layout(binding = 0, std430) buffer b { int a[4]; int v; };\nout vec4 c;\n\
        void main() { int x = atomicMin(v, 7); x += atomicExchange(a[1], x);\n\
        c = vec4(float(x)); }\n";
    let vs = "#version 330\nin vec4 p;\nvoid main() { gl_Position = p; }\n";
    let p = link_vs_fs(vs, fs, &[]).unwrap_or_else(|e| panic!("link failed:\n{e}"));
    validate_all(&p);
    // A user function of that name is not a reason to raise the version.
    let own = "#version 330\nint atomicMin2(int a) { return a; }\nout vec4 c;\n\
        void main() { c = vec4(float(atomicMin2(1))); }\n";
    let pre = prepass::prepass(Stage::Fragment, own).unwrap();
    assert!(pre.source.starts_with("#version 330"), "{}", pre.source);
}

const VS_150_PASSTHROUGH: &str =
    "#version 150\nin vec4 piglit_vertex;\nvoid main() { gl_Position = piglit_vertex; }\n";

#[test]
fn constant_find_msb_and_lsb_fold() {
    // glslang cannot fold these; an array size using them must compile
    // (piglit arb_gpu_shader5 const-findMSB), and a wrong fold would make
    // the size negative.
    let fs = "#version 150\n#extension GL_ARB_gpu_shader5 : enable\nout vec4 color;\n\
        #define CHECK(cond) { float a[(cond) ? -1 : 1]; }\n\
        void main() {\n color = vec4(0.0);\n\
        CHECK(ivec4(-1) != findMSB(ivec4(0, -1, -1, 0)));\n\
        CHECK(ivec4(-1) != findMSB(uvec4(0u)));\n\
        CHECK(ivec4(30, 29, 28, 27) != findMSB(ivec4(0x80000000, -0x40000000, -0x20000000, -0x10000000)));\n\
        CHECK(ivec4(31, 30, 29, 28) != findMSB(uvec4(0xFFFFFFFFu, 0x7FFFFFFFu, 0x3FFFFFFFu, 0x1FFFFFFFu)));\n\
        CHECK(ivec4(0, 1, 2, 3) != findMSB(ivec4(-2, -3, -5, -9)));\n\
        CHECK(2 != findMSB(5));\n\
        CHECK(ivec3(-1, 0, 4) != findLSB(ivec3(0, -1, 0x30)));\n\
        CHECK(ivec2(31, 3) != findLSB(uvec2(0x80000000u,\n 8u)));\n\
        }\n";
    let p = link_vs_fs(VS_150_PASSTHROUGH, fs, &[]).expect("constant findMSB/findLSB fold");
    validate_all(&p);
    // A wrong value is still caught by the compiler.
    let bad = fs.replace("CHECK(2 != findMSB(5))", "CHECK(3 != findMSB(5))");
    assert!(link_vs_fs(VS_150_PASSTHROUGH, &bad, &[]).is_err());
    // Line numbers hold across a call split over two lines.
    let pre = prepass::prepass(Stage::Fragment, fs).unwrap();
    assert_eq!(pre.source.lines().count(), fs.lines().count());
    assert!(pre.source.contains("ivec2(31, 3)"), "{}", pre.source);
}

#[test]
fn user_find_msb_is_not_folded() {
    let fs = "#version 130\nout vec4 color;\nint findMSB(int x) { return 7; }\n\
        void main() { color = vec4(float(findMSB(1))); }\n";
    let pre = prepass::prepass(Stage::Fragment, fs).unwrap();
    assert!(pre.source.contains("float(findMSB(1))"), "{}", pre.source);
}

#[test]
fn legacy_texture_builtins_in_defines_are_renamed() {
    // piglit tex-miplevel-selection: `#define textureInst texture1DProj`.
    let fs = "#version 120\nuniform sampler1D tex;\nuniform sampler2DShadow sh;\n\
        #define textureInst texture1DProj\n#define SHADOW shadow2D\n\
        void main() {\n gl_FragColor = textureInst(tex, vec4(gl_TexCoord[0])) + SHADOW(sh, vec3(0.5));\n}\n";
    let pre = prepass::prepass(Stage::Fragment, fs).unwrap();
    assert!(
        pre.source.contains("#define textureInst textureProj\n"),
        "{}",
        pre.source
    );
    assert!(
        pre.source.contains("#define SHADOW mgl_shadow2D\n"),
        "{}",
        pre.source
    );
    let vs = "#version 120\nvoid main() { gl_Position = gl_Vertex; gl_TexCoord[0] = gl_Vertex; }\n";
    let p = link_vs_fs(vs, fs, &[]).expect("texture1DProj through a macro links");
    validate_all(&p);
}

#[test]
fn legacy_shadow_reference_is_clamped() {
    // GL clamps D_ref to [0, 1] for fixed-point depth textures
    // (piglit glsl-fs-shadow2D-clamp-z); the helpers do it themselves.
    let fs = "#version 110\nuniform sampler2DShadow tex;\nuniform vec3 c;\n\
        void main() { gl_FragColor = shadow2D(tex, c) + shadow2DProj(tex, vec4(c, 2.0)); }\n";
    let pre = prepass::prepass(Stage::Fragment, fs).unwrap();
    assert!(
        pre.source
            .contains("texture(s, vec3(c.xy, clamp(c.z, 0.0, 1.0)))"),
        "{}",
        pre.source
    );
    assert!(
        pre.source.contains("clamp(c.z / c.w, 0.0, 1.0)"),
        "{}",
        pre.source
    );
    let vs = "#version 110\nvoid main() { gl_Position = gl_Vertex; }\n";
    let p = link_vs_fs(vs, fs, &[]).expect("shadow helpers link");
    validate_all(&p);
}

#[test]
fn legacy_shadow_lookups_have_bias_and_rect_proj_forms() {
    // piglit glsl-fs-shadow2dproj-bias: the bias overload of the
    // projective helpers (fragment shaders only).
    let fs = "#version 110\nuniform sampler2DShadow tex;\nuniform vec4 c;\n\
        void main() { gl_FragColor = shadow2DProj(tex, c, 1.0) + shadow2DProjLod(tex, c, 0.0); }\n";
    let vs = "#version 110\nvoid main() { gl_Position = gl_Vertex; }\n";
    let p = link_vs_fs(vs, fs, &[]).expect("shadow2DProj with a bias links");
    validate_all(&p);
    // GLSL 1.40 (not legacy here) still has the deprecated shadow2DRectProj
    // (piglit glsl-1.40 glsl-fs-shadow2drectproj).
    let fs = "#version 140\nin vec2 t;\nout vec4 o;\nuniform sampler2DRectShadow tex;\n\
        void main() { o = vec4(shadow2DRectProj(tex, vec4(t, t.y, 2.0)).xxx, 1.0); }\n";
    let pre = prepass::prepass(Stage::Fragment, fs).unwrap();
    assert!(
        pre.source.contains("mgl_shadow2DRectProj(tex"),
        "{}",
        pre.source
    );
    let vs = "#version 140\nin vec4 p;\nout vec2 t;\nvoid main() { gl_Position = p; t = p.xy; }\n";
    let p = link_vs_fs(vs, fs, &[]).expect("shadow2DRectProj in GLSL 1.40 links");
    validate_all(&p);
}

#[test]
fn varying_arrays_of_arrays_are_flattened_for_essl() {
    // piglit varying-packing "simple mat2x4 arrays_of_arrays": ESSL refuses
    // arrays of arrays on interfaces; both sides become `[16]` at the same
    // location.
    let vs = "#version 150\n#extension GL_ARB_arrays_of_arrays : require\nin vec4 p;\nuniform int i;\n\
        out mat2x4 v[2][8];\nout vec4 w;\n\
        void main() { gl_Position = p; w = p; for (int a = 0; a < 2; a++) for (int b = 0; b < 8; b++) v[a][b] = mat2x4(float(i + a * 8 + b)); }\n";
    let fs = "#version 150\n#extension GL_ARB_arrays_of_arrays : require\nin mat2x4 v[2][8];\nin vec4 w;\nuniform int j;\nout vec4 c;\n\
        void main() { c = v[1][j][1] + v[0][3][0] + w; }\n";
    let p = link_vs_fs(vs, fs, &[]).expect("AoA varyings link");
    validate_all(&p);
    let vsw = p.stage_spirv[Stage::Vertex.index()].as_ref().unwrap();
    let fsw = p.stage_spirv[Stage::Fragment.index()].as_ref().unwrap();
    let vs_essl = to_essl(vsw);
    let fs_essl = to_essl(fsw);
    assert!(
        vs_essl.contains("mat2x4 v[16];") && !vs_essl.contains("[2][8]"),
        "{vs_essl}"
    );
    assert!(
        fs_essl.contains("mat2x4 v[16];") && !fs_essl.contains("[2][8]"),
        "{fs_essl}"
    );
    assert_eq!(
        location_of(vsw, "v", spirv::storage::OUTPUT),
        location_of(fsw, "v", spirv::storage::INPUT)
    );
    assert_eq!(
        location_of(vsw, "w", spirv::storage::OUTPUT),
        location_of(fsw, "w", spirv::storage::INPUT)
    );
    // A whole-array use keeps both sides as declared.
    let fs_whole = fs.replace("c = v[1][j][1]", "mat2x4 t[2][8] = v; c = t[1][j][1]");
    let p = link_vs_fs(vs, &fs_whole, &[]).expect("whole use links");
    let vs_essl = to_essl(p.stage_spirv[Stage::Vertex.index()].as_ref().unwrap());
    assert!(vs_essl.contains("v[2][8]"), "{vs_essl}");
}

#[test]
fn vulkan_glsl_keywords_are_user_names_in_core_shaders() {
    let vs = "#version 150\nin vec4 p;\nvoid main() { gl_Position = p; }\n";
    let fs = "#version 150\nuniform sampler2DMS sampler;\nout vec4 o;\n\
        void main() { o = texelFetch(sampler, ivec2(0), 0); }\n";
    let p = link_vs_fs(vs, fs, &[]).unwrap_or_else(|e| panic!("link failed:\n{e}"));
    assert!(
        p.uniforms.iter().any(|u| u.name == "sampler"),
        "{:?}",
        p.uniforms
    );
}

#[test]
fn precise_reaches_the_builtin_functions_it_uses() {
    let vs = VS_150_PASSTHROUGH;
    let fs = "#version 150\n#extension GL_ARB_gpu_shader5: require\n\
        uniform float a;\nuniform float b;\nout vec4 c;\n\
        void main() { precise float x = fract(floor(a / b) * 42.0);\n\
        float y = sin(a); c = vec4(x, y, 0.0, 1.0); }\n";
    let p = link_vs_fs(vs, fs, &[]).unwrap_or_else(|e| panic!("link failed:\n{e}"));
    validate_all(&p);
    let words = p.stage_spirv[Stage::Fragment.index()].as_ref().unwrap();
    // (GLSL.std.450 instruction number, result id) of each extended
    // instruction, and the ids decorated NoContraction.
    let mut ext = Vec::new();
    let mut no_contraction = Vec::new();
    for (opcode, inst) in spirv::instructions(words) {
        match opcode {
            12 => ext.push((inst[4], inst[2])),
            71 if inst[2] == 42 => no_contraction.push(inst[1]),
            _ => {}
        }
    }
    let id_of = |n: u32| ext.iter().find(|e| e.0 == n).unwrap().1;
    const FLOOR: u32 = 8;
    const FRACT: u32 = 10;
    const SIN: u32 = 13;
    assert!(
        no_contraction.contains(&id_of(FRACT)),
        "{ext:?} {no_contraction:?}"
    );
    assert!(
        no_contraction.contains(&id_of(FLOOR)),
        "{ext:?} {no_contraction:?}"
    );
    assert!(
        !no_contraction.contains(&id_of(SIN)),
        "{ext:?} {no_contraction:?}"
    );
}

#[test]
fn output_argument_indices_are_taken_before_the_call() {
    let vs = "#version 120\nuniform int u = 1;\nvoid f(inout int i, out int x)\n{\n  x = 4;\n  i = 0;\n}\n\
        void main()\n{\n  gl_Position = gl_Vertex;\n  vec4 value;\n  int i = u;\n  f(i, value[i]);\n\
        gl_FrontColor = vec4(1.0/value[1]);\n}\n";
    let pre = prepass::prepass(Stage::Vertex, vs).unwrap();
    assert!(
        pre.source
            .contains("(mgl_oi0 = int(i), f(i, value[mgl_oi0]));"),
        "{}",
        pre.source
    );
    // On the line it was on (after the lines the pre-pass puts first).
    let line_of = |text: &str, what: &str| text.lines().position(|l| l.contains(what));
    let shift = pre.source.lines().count() - vs.lines().count();
    assert_eq!(
        line_of(&pre.source, "f(i, value[mgl_oi0])"),
        line_of(vs, "f(i, value[i])").map(|l| l + shift)
    );
    let fs = "void main() { gl_FragColor = gl_Color; }\n";
    let p = link_vs_fs(vs, fs, &[]).unwrap_or_else(|e| panic!("link failed:\n{e}"));
    validate_all(&p);
    // Constant indices, inputs and declarations are left alone.
    let same = "#version 130\nvoid f(in float a, out float b) { b = a; }\n\
        void main() { float v[2]; int k = 1; f(v[k], v[1]); gl_Position = vec4(v[0]); }\n";
    assert!(prepass::hoist_out_argument_indices(same).is_none());
}

#[test]
fn varyings_over_the_location_limit_are_packed() {
    let vs = "#version 130\nin vec4 p;\nout float f[40];\nflat out ivec3 i[4];\nout vec2 unread;\n\
              void main() { gl_Position = p; for (int k = 0; k < 40; k++) f[k] = float(k); \
              for (int k = 0; k < 4; k++) i[k] = ivec3(k); unread = p.xy; }\n";
    let fs = "#version 130\nin float f[40];\nflat in ivec3 i[4];\nout vec4 c;\n\
              void main() { c = vec4(f[int(gl_FragCoord.x) % 40] + float(i[1].y)); }\n";
    let shaders = [(Stage::Vertex, vs), (Stage::Fragment, fs)];
    let input = |limit| LinkInput {
        xfb_varyings: &[],
        xfb_mode: 0,
        shaders: &shaders,
        attrib_bindings: &[],
        frag_data_bindings: &[],
        varying_limit: limit,
    };
    let plain = link(&input(0)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        plain.varying_locations, 45,
        "one location per element unpacked"
    );
    let packed = link(&input(16)).unwrap_or_else(|e| panic!("{e}"));
    validate_all(&packed);
    // 40 floats in 10 vec4s, 12 ints in 3 flat uvec4s.
    assert_eq!(packed.varying_locations, 13);
    let essl = to_essl(
        packed.stage_spirv[Stage::Fragment.index()]
            .as_ref()
            .unwrap(),
    );
    assert!(essl.contains("flat in uvec4"), "{essl}");
    // Not packed when it fits.
    let fits = link(&input(64)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(fits.varying_locations, 45);
}

#[test]
fn double_varyings_pack_as_two_components() {
    let vs = "#version 400\nin vec4 p;\nflat out double d[20];\nflat out dvec3 e;\n\
              void main() { gl_Position = p; for (int k = 0; k < 20; k++) d[k] = double(k); e = dvec3(p.xyz); }\n";
    let fs = "#version 400\nflat in double d[20];\nflat in dvec3 e;\nout vec4 c;\n\
              void main() { c = vec4(float(d[int(gl_FragCoord.x) % 20] + e.z)); }\n";
    let shaders = [(Stage::Vertex, vs), (Stage::Fragment, fs)];
    let p = link(&LinkInput {
        xfb_varyings: &[],
        xfb_mode: 0,
        shaders: &shaders,
        attrib_bindings: &[],
        frag_data_bindings: &[],
        varying_limit: 8,
    })
    .unwrap_or_else(|e| panic!("{e}"));
    validate_all(&p);
    // 23 doubles = 46 components in 12 flat uvec4s: still over 8, so the
    // program is left as it was (the link reports the count).
    assert_eq!(p.varying_locations, 22);
    let p = link(&LinkInput {
        xfb_varyings: &[],
        xfb_mode: 0,
        shaders: &shaders,
        attrib_bindings: &[],
        frag_data_bindings: &[],
        varying_limit: 16,
    })
    .unwrap_or_else(|e| panic!("{e}"));
    validate_all(&p);
    assert_eq!(p.varying_locations, 12);
}

#[test]
fn geometry_varyings_pack_before_each_emit() {
    let vs = "#version 150\nin vec4 p;\nvoid main() { gl_Position = p; }\n";
    let gs = "#version 150\nlayout(triangles) in;\nlayout(triangle_strip, max_vertices = 3) out;\n\
              out float f[24];\n\
              void main() { for (int v = 0; v < 3; v++) { gl_Position = gl_in[v].gl_Position; \
              for (int k = 0; k < 24; k++) f[k] = float(k + v); EmitVertex(); } }\n";
    let fs = "#version 150\nin float f[24];\nout vec4 c;\n\
              void main() { c = vec4(f[int(gl_FragCoord.x) % 24]); }\n";
    let shaders = [
        (Stage::Vertex, vs),
        (Stage::Geometry, gs),
        (Stage::Fragment, fs),
    ];
    let p = link(&LinkInput {
        xfb_varyings: &[],
        xfb_mode: 0,
        shaders: &shaders,
        attrib_bindings: &[],
        frag_data_bindings: &[],
        varying_limit: 8,
    })
    .unwrap_or_else(|e| panic!("{e}"));
    validate_all(&p);
    assert_eq!(p.varying_locations, 6);
}

/// glShadeModel(GL_FLAT): colour varyings read without an interpolation
/// qualifier get a flat variant (both sides of the interface, so GLES sees
/// matching `flat` qualifiers); explicitly qualified ones and other
/// varyings keep theirs.
#[test]
fn shade_model_flat_variant_of_colour_varyings() {
    let vs = "#version 110
varying vec4 other;
void main() { gl_Position = gl_Vertex; gl_FrontColor = gl_Color; gl_FrontSecondaryColor = gl_Color; other = gl_Color; }
";
    let fs = "#version 110
varying vec4 other;
void main() { gl_FragColor = gl_Color + gl_SecondaryColor + other; }
";
    let p = link_vs_fs(vs, fs, &[]).expect("links");
    assert_eq!(
        p.shade_model_colors,
        [
            "mgl_FrontColor",
            "mgl_BackColor",
            "mgl_FrontSecondaryColor",
            "mgl_BackSecondaryColor"
        ]
    );
    let flat = p.flat_shaded_spirv(&p.stage_spirv).expect("a flat variant");
    let is_flat = |words: &[u32], name: &str, storage: u32| {
        let m = Module::parse(words.to_vec()).unwrap();
        let v = m
            .variables
            .iter()
            .find(|v| v.storage == storage && m.names.get(&v.id).map(String::as_str) == Some(name))
            .unwrap_or_else(|| panic!("{name} declared"));
        m.decorations
            .get(&v.id)
            .is_some_and(|d| d.iter().any(|(k, _)| *k == 14))
    };
    let (vs_words, fs_words) = (
        flat[Stage::Vertex.index()].as_ref().unwrap(),
        flat[Stage::Fragment.index()].as_ref().unwrap(),
    );
    for name in ["mgl_FrontColor", "mgl_FrontSecondaryColor"] {
        assert!(
            is_flat(vs_words, name, spirv::storage::OUTPUT),
            "{name} out"
        );
        assert!(is_flat(fs_words, name, spirv::storage::INPUT), "{name} in");
        let plain = p.stage_spirv[Stage::Fragment.index()].as_ref().unwrap();
        assert!(
            !is_flat(plain, name, spirv::storage::INPUT),
            "{name} smooth by default"
        );
    }
    assert!(!is_flat(fs_words, "other", spirv::storage::INPUT));
    for words in flat.iter().flatten() {
        validate(words);
        let _ = to_essl(words);
    }

    // An explicit qualifier wins over the shade model.
    let vs = "#version 130
smooth out vec4 gl_FrontColor;
in vec4 pos;
void main() { gl_Position = pos; gl_FrontColor = vec4(1.0); }
";
    let fs = "#version 130
smooth in vec4 gl_Color;
out vec4 o;
void main() { o = gl_Color; }
";
    let p = link_vs_fs(vs, fs, &[]).expect("links");
    assert!(p.shade_model_colors.is_empty());
    assert!(p.flat_shaded_spirv(&p.stage_spirv).is_none());
}

/// glProvokingVertex(GL_FIRST_VERTEX_CONVENTION) with a geometry shader:
/// the variant links (flat outputs, arrays among them, delayed by one or
/// two vertices) with the plain link's interface; point output or no flat
/// output leave the geometry stage as it was.
#[test]
fn first_vertex_geometry_variant_links() {
    let vs = "#version 150
in vec4 pos;
out vec4 c;
void main() { gl_Position = pos; c = pos; }
";
    let fs = "#version 150
flat in vec4 gc;
flat in int gi[2];
out vec4 o;
void main() { o = gc + float(gi[1]); }
";
    let gs = |out: &str| {
        format!(
            "#version 150
layout(triangles) in;
layout({out}, max_vertices = 3) out;
in vec4 c[];
flat out vec4 gc; flat out int gi[2];
void main() {{
  for (int k = 0; k < 3; k++) {{ gc = c[k]; gi[0] = k; gi[1] = k; gl_Position = gl_in[k].gl_Position; EmitVertex(); }}
  EndPrimitive();
}}
"
        )
    };
    for (out, changes) in [
        ("triangle_strip", true),
        ("line_strip", true),
        ("points", false),
    ] {
        let src = gs(out);
        let shaders = [
            (Stage::Vertex, vs),
            (Stage::Geometry, src.as_str()),
            (Stage::Fragment, fs),
        ];
        let input = LinkInput {
            xfb_varyings: &[],
            xfb_mode: 0,
            shaders: &shaders,
            attrib_bindings: &[],
            frag_data_bindings: &[],
            varying_limit: 0,
        };
        let plain = link(&input).expect("plain link");
        let first = link_provoking_first(&input).expect("first-vertex variant links");
        assert!(first.same_interface(&plain), "{out}");
        let g = Stage::Geometry.index();
        assert_eq!(
            first.stage_spirv[g] != plain.stage_spirv[g],
            changes,
            "{out}"
        );
        validate_all(&first);
        let _ = to_essl(first.stage_spirv[g].as_ref().unwrap());
    }
}

/// GL_ARB_shader_image_load_store lets a GLSL 1.50 shader index an image
/// array with a dynamically uniform expression (glslang wants
/// GL_ARB_gpu_shader5 for that before 4.00).
#[test]
fn image_arrays_take_dynamically_uniform_indices() {
    let vs = "#version 150
in vec4 pos;
void main() { gl_Position = pos; }
";
    let fs = "#version 150
#extension GL_ARB_shader_image_load_store : enable
layout(r32ui) uniform uimage2D imgs[4];
uniform int u;
out uvec4 o;
void main() { o = imageLoad(imgs[(u + 1) % 4], ivec2(0)); }
";
    let p = link_vs_fs(vs, fs, &[]).expect("dynamic image array index links");
    validate_all(&p);
}

/// The bit-encoding built-ins in a GLSL 1.30 source (through
/// GL_ARB_shader_bit_encoding / GL_ARB_gpu_shader5, as Mesa takes them).
#[test]
fn bit_encoding_builtins_before_glsl_330() {
    let vs = "#version 130
#extension GL_ARB_shader_bit_encoding : enable
in vec4 pos;
flat out uint bits;
void main() { gl_Position = pos; bits = floatBitsToUint(pos.x) ^ uint(floatBitsToInt(intBitsToFloat(1))); }
";
    let fs = "#version 130
flat in uint bits;
out vec4 o;
void main() { o = vec4(uintBitsToFloat(bits)); }
";
    let p = link_vs_fs(vs, fs, &[]).expect("bit-encoding built-ins link");
    validate_all(&p);
}

#[test]
fn transform_feedback_refuses_two_streams_in_one_buffer() {
    let vs = "#version 150\nvoid main() { gl_Position = vec4(0.0); }\n";
    let gs = "#version 150
#extension GL_ARB_gpu_shader5 : enable
layout(points) in;
layout(points, max_vertices = 1) out;
out float s0;
layout(stream = 1) out vec2 s1;
void main() {
    gl_Position = gl_in[0].gl_Position;
    s0 = 0.0;
    s1 = vec2(1.0, 2.0);
    EmitVertex();
}
";
    let shaders = [(Stage::Vertex, vs), (Stage::Geometry, gs)];
    let names = ["s0".to_owned(), "s1".to_owned()];
    let run = |names: &[String]| {
        link(&LinkInput {
            xfb_varyings: names,
            xfb_mode: 0x8C8C, // GL_INTERLEAVED_ATTRIBS
            shaders: &shaders,
            attrib_bindings: &[],
            frag_data_bindings: &[],
            varying_limit: 0,
        })
    };
    let Err(err) = run(&names) else {
        panic!("two streams in buffer 0 must not link");
    };
    assert!(err.contains("stream"), "{err}");
    // Each stream in its own buffer links.
    let split = ["s0".to_owned(), "gl_NextBuffer".to_owned(), "s1".to_owned()];
    assert!(run(&split).is_ok());
}

#[test]
fn located_struct_varyings_are_found_by_variable_name() {
    let src = "#version 150\nlayout(location = 2) in struct S {\n vec4 a;\n} s;\n\
               layout(location = 0) in struct S1 { vec4 a; } s2;\nout vec4 c;\n\
               void main() { c = s2.a; }\n";
    let decls = prepass::layout_declarations(src);
    let names: Vec<(&str, bool)> = decls
        .iter()
        .map(|d| (d.name.as_str(), d.is_block))
        .collect();
    assert_eq!(names, vec![("s", false), ("s2", false)]);
    assert_eq!(
        prepass::explicit_locations(src, "in"),
        vec![("s".to_owned(), 2), ("s2".to_owned(), 0)]
    );
}

#[test]
fn separable_programs_need_redeclared_per_vertex_blocks() {
    let vs = "#version 150\nvoid main() { gl_Position = vec4(0.0); }\n";
    let vs_redeclared = "#version 150\nout gl_PerVertex { vec4 gl_Position; };\n\
                         void main() { gl_Position = vec4(0.0); }\n";
    let gs = "#version 150\nlayout(points) in;\nlayout(points, max_vertices = 1) out;\n\
              out vec4 g;\nvoid main() { g = gl_in[0].gl_Position; EmitVertex(); }\n";
    let fs = "#version 150\nin vec4 g;\nout vec4 c;\nvoid main() { c = g; }\n";
    let uses = |shaders: &[(Stage, &str)]| -> Vec<(Stage, PerVertexUse)> {
        shaders
            .iter()
            .map(|(s, t)| (*s, per_vertex_use(t)))
            .collect()
    };
    // The vertex stage writes gl_Position without redeclaring its block.
    assert!(check_separable_per_vertex(&uses(&[
        (Stage::Vertex, vs),
        (Stage::Geometry, gs),
        (Stage::Fragment, fs)
    ]))
    .is_err());
    // Redeclared output block: the geometry stage may read gl_in[].
    assert!(check_separable_per_vertex(&uses(&[
        (Stage::Vertex, vs_redeclared),
        (Stage::Geometry, gs),
    ]))
    .is_ok());
    // A single stage has no interface to check; GLSL 1.40 has no blocks.
    assert!(check_separable_per_vertex(&uses(&[(Stage::Vertex, vs)])).is_ok());
    let vs140 = "#version 140\nvoid main() { gl_PointSize = 1.0; }\n";
    let fs140 = "#version 140\nout vec4 c;\nvoid main() { c = vec4(1.0); }\n";
    assert!(
        check_separable_per_vertex(&uses(&[(Stage::Vertex, vs140), (Stage::Fragment, fs140)]))
            .is_ok()
    );
    // A member selection is not a use of the output block.
    let u = per_vertex_use("#version 150\nvoid main() { vec4 p = gl_in[0].gl_Position; }\n");
    assert!(u.uses_in && !u.uses_out);
}

#[test]
fn fragment_primitive_id_is_scaled_without_a_geometry_shader() {
    let fs = "#version 150\nflat in int e;\nout vec4 c;\n\
              void main() { c = vec4(e == gl_PrimitiveID ? 1.0 : 0.0); }\n";
    let pre = prepass::prepass(Stage::Fragment, fs).unwrap();
    assert!(
        pre.source.contains(prepass::PRIMITIVE_ID_SCALE)
            && pre.source.contains("mgl_primitive_id()"),
        "{}",
        pre.source
    );
    assert!(prepass::is_hidden_uniform(prepass::PRIMITIVE_ID_SCALE));
    // With a geometry shader the id is the geometry shader's to write.
    let view = prepass::LinkView {
        vs_feeds_gs: true,
        ..Default::default()
    };
    let pre = prepass::prepass_linked(Stage::Fragment, fs, &view).unwrap();
    assert!(
        !pre.source.contains(prepass::PRIMITIVE_ID_SCALE),
        "{}",
        pre.source
    );
    // The rewritten shader links, and the uniform is not listed.
    let vs = "#version 150\nin vec4 p;\nflat out int e;\nvoid main() { gl_Position = p; e = 0; }\n";
    let prog = link(&LinkInput {
        shaders: &[(Stage::Vertex, vs), (Stage::Fragment, fs)],
        attrib_bindings: &[],
        frag_data_bindings: &[],
        xfb_varyings: &[],
        xfb_mode: xfb::INTERLEAVED_ATTRIBS,
        varying_limit: 0,
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(prog
        .uniforms
        .iter()
        .all(|u| u.name != prepass::PRIMITIVE_ID_SCALE));
}

#[test]
fn constant_calls_glslang_does_not_fold_are_folded() {
    let fs = "#version 150\n#extension GL_ARB_gpu_shader5 : enable\n\
              #define STATIC_ASSERT(cond) { float array[(cond) ? -1 : 1]; }\nout vec4 c;\nvoid main() {\n\
              STATIC_ASSERT(floatBitsToInt(vec4(0.0, -0.0, 0.5, -0.5)) !=\n\
              floatBitsToInt(ldexp(vec4(0.0, -0.0, 0.5, -0.5), ivec4(0))));\n\
              STATIC_ASSERT(ivec4(1) != bitCount(ivec4(1, 2, 4, 8)));\n\
              STATIC_ASSERT(vec4(0.0, 1.0, 4.0, 7.0) != fma(vec4(0.0, 0.0, 2.0, 2.0), vec4(1.0, 1.0, 2.0, 2.0), vec4(0.0, 1.0, 0.0, 3.0)));\n\
              STATIC_ASSERT(ivec4(-1, 7, 0, 1) != bitfieldExtract(ivec4(-1, 15, 7, 3), 0, 3));\n\
              c = vec4(1.0);\n}\n";
    let pre = prepass::prepass(Stage::Fragment, fs).unwrap_or_else(|e| panic!("{e}"));
    for call in [
        "ldexp",
        "floatBitsToInt",
        "bitCount",
        "fma(",
        "bitfieldExtract",
    ] {
        assert!(
            !pre.source.contains(call),
            "{call} left in:\n{}",
            pre.source
        );
    }
    assert!(
        pre.source
            .contains("ivec4(0, -2147483648, 1056964608, -1090519040)"),
        "{}",
        pre.source
    );
    assert!(
        pre.source.contains("ivec4(-1, -1, -1, 3)"),
        "{}",
        pre.source
    );
    // The lines stay where they were.
    assert!(pre.source.matches('\n').count() >= fs.matches('\n').count());
    // A shader with its own function of that name is left alone.
    let own = "#version 150\nint bitCount(int x) { return 0; }\n\
               out vec4 c;\nvoid main() { c = vec4(bitCount(3)); }\n";
    let pre = prepass::prepass(Stage::Fragment, own).unwrap();
    assert!(pre.source.contains("bitCount(3)"), "{}", pre.source);
}

#[test]
fn implicitly_sized_arrays_get_their_stage_wide_size_for_length() {
    let main = "#version 330\nout vec4 c;\nfloat a[];\nvoid foo();\n\
                void main() { foo(); c = vec4(float(a.length())); }\n";
    let other = "#version 330\nfloat a[];\nvoid foo() { a[4] = 1.0; }\n";
    assert_eq!(
        prepass::implicit_array_sizes(other),
        vec![("a".to_owned(), 5)]
    );
    // Compiled alone, the unit asking for the length compiles (size 1).
    let pre = prepass::prepass(Stage::Fragment, main).unwrap();
    assert!(pre.source.contains("float a[1];"), "{}", pre.source);
    // Linked, it takes the size the other unit's index gives.
    let sizes = vec![("a".to_owned(), 5)];
    let view = prepass::LinkView {
        implicit_array_sizes: &sizes,
        ..Default::default()
    };
    let pre = prepass::prepass_linked(Stage::Fragment, main, &view).unwrap();
    assert!(pre.source.contains("float a[5];"), "{}", pre.source);
    // A storage block's runtime-sized member is not one of them.
    let ssbo = "#version 430\nbuffer B { float v[]; };\nout vec4 c;\n\
                void main() { c = vec4(float(v.length())); }\n";
    assert!(prepass::implicit_array_sizes(ssbo).is_empty());
    assert!(prepass::prepass(Stage::Fragment, ssbo)
        .unwrap()
        .source
        .contains("float v[];"));
    // Nor is a geometry shader's input array (the primitive sizes it).
    let gs = "#version 150
layout(lines) in;
layout(points, max_vertices = 2) out;
              in vec3 pos[];
void main() { for (int i = 0; i < pos.length(); i++) {
              gl_Position = vec4(pos[i], 1.0); EmitVertex(); } }
";
    assert!(prepass::implicit_array_sizes(gs).is_empty());
    assert!(prepass::prepass(Stage::Geometry, gs)
        .unwrap()
        .source
        .contains("in vec3 pos[];"));
}

/// A geometry shader emitting points takes its point size from
/// glPointSize (`mgl_Points`); one emitting triangles does not.
#[test]
fn geometry_shader_emitting_points_gets_point_size() {
    let vs = "#version 150\nin vec4 p;\nvoid main() { gl_Position = p; }\n";
    let fs = "#version 150\nout vec4 c;\nvoid main() { c = vec4(1.0); }\n";
    let gs = |out: &str| {
        format!(
            "#version 150\nlayout(points) in;\nlayout({out}, max_vertices = 3) out;\nvoid main() {{ gl_Position = gl_in[0].gl_Position; EmitVertex(); }}\n"
        )
    };
    for (out, expect) in [("points", true), ("triangle_strip", false)] {
        let g = gs(out);
        let shaders = [
            (Stage::Vertex, vs),
            (Stage::Geometry, g.as_str()),
            (Stage::Fragment, fs),
        ];
        let p = link(&LinkInput {
            xfb_varyings: &[],
            xfb_mode: 0,
            shaders: &shaders,
            attrib_bindings: &[],
            frag_data_bindings: &[],
            varying_limit: 0,
        })
        .unwrap();
        let essl = to_essl(p.stage_spirv[Stage::Geometry.index()].as_ref().unwrap());
        assert_eq!(essl.contains("gl_PointSize"), expect, "{out}:\n{essl}");
    }
}

/// Arrays of structs of samplers indexed dynamically read the element
/// indexed (a flat sampler array under the GL names), not unit 0.
#[test]
fn struct_sampler_arrays_are_flattened() {
    let vs = "#version 150\nin vec4 p;\nvoid main() { gl_Position = p; }\n";
    let fs = "#version 150\n#extension GL_ARB_gpu_shader5: require\n\
        struct I { sampler2D a; sampler2D b; };\n\
        struct S { sampler2D tex[2]; I si; };\n\
        uniform S s[2];\nuniform int n;\nuniform int m;\nout vec4 color;\n\
        void main() { color = texture(s[n].tex[m], vec2(0.5)) + texture(s[n].si.b, vec2(0.5)); }\n";
    let p = link_vs_fs(vs, fs, &[]).unwrap();
    validate_all(&p);
    let sampler = |name: &str| {
        let u = uniform(&p, name);
        (u.array_size, u.sampler_binding)
    };
    let tex0 = sampler("s[0].tex[0]");
    let tex1 = sampler("s[1].tex[0]");
    assert_eq!((tex0.0, tex1.0), (2, 2));
    assert_eq!(tex1.1.unwrap(), tex0.1.unwrap() + 2);
    let b0 = sampler("s[0].si.b");
    let b1 = sampler("s[1].si.b");
    assert_eq!((b0.0, b1.0), (1, 1));
    assert_eq!(b1.1.unwrap(), b0.1.unwrap() + 1);
    assert!(
        p.uniforms.iter().all(|u| !u.name.contains("mgl_os")),
        "{:#?}",
        p.uniforms
    );
    let essl = to_essl(p.stage_spirv[Stage::Fragment.index()].as_ref().unwrap());
    // One dynamically indexed array per leaf: s[n].tex[m] is element n * 2 + m.
    assert!(essl.contains("mgl_os_1s_3tex[4]"), "{essl}");
    assert!(essl.contains("* 2) +"), "{essl}");
}

/// The tessellation layout (GL_TESS_CONTROL_OUTPUT_VERTICES,
/// GL_TESS_GEN_*) comes from both stages' execution modes, and a control
/// shader's per-vertex output arrays take the locations of one element.
#[test]
fn tessellation_layout_and_per_vertex_locations() {
    let shaders = [
        (
            Stage::Vertex,
            "#version 150\nin vec4 p;\nout vec4 v;\nvoid main() { gl_Position = p; v = p; }\n",
        ),
        (
            Stage::TessControl,
            "#version 150\n#extension GL_ARB_tessellation_shader : require\nlayout(vertices = 32) out;\nin vec4 v[];\nout vec4 w[];\npatch out vec4 q;\nvoid main() {\n  w[gl_InvocationID] = v[gl_InvocationID];\n  q = v[0];\n  gl_out[gl_InvocationID].gl_Position = gl_in[gl_InvocationID].gl_Position;\n  gl_TessLevelOuter = float[4](1.0, 1.0, 1.0, 1.0);\n  gl_TessLevelInner = float[2](1.0, 1.0);\n}\n",
        ),
        (
            Stage::TessEval,
            "#version 150\n#extension GL_ARB_tessellation_shader : require\nlayout(quads, fractional_odd_spacing, cw, point_mode) in;\nin vec4 w[];\npatch in vec4 q;\nout vec4 c;\nvoid main() { gl_Position = gl_in[0].gl_Position; c = w[31] + q; }\n",
        ),
        (
            Stage::Fragment,
            "#version 150\nin vec4 c;\nout vec4 o;\nvoid main() { o = c; }\n",
        ),
    ];
    let p = link(&LinkInput {
        xfb_varyings: &[],
        xfb_mode: 0,
        shaders: &shaders,
        attrib_bindings: &[],
        frag_data_bindings: &[],
        varying_limit: 0,
    })
    .unwrap_or_else(|e| panic!("link failed:\n{e}"));
    let t = p.tess_layout().unwrap();
    assert_eq!(t.output_vertices, 32);
    assert_eq!(
        (t.mode, t.spacing, t.vertex_order, t.point_mode),
        (glow::QUADS, glow::FRACTIONAL_ODD, glow::CW, true)
    );
    // v (vertex), w[32] + q (control: w takes one location per vertex),
    // c (evaluation).
    assert!(p.varying_locations <= 4, "{}", p.varying_locations);
    assert!(p.geometry_layout().is_none());
}
