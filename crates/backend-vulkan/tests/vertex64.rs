//! 64-bit vertex inputs (`glVertexAttribLPointer`) reaching `double`,
//! `dvec*`, `dmat*` and array inputs through a vertex buffer. On devices
//! without R64 vertex formats (lavapipe) this runs the emulation: the
//! vertex stage reads 32-bit words it bit-casts (`spirv::lower_f64_inputs`)
//! and a `dvec3`/`dvec4` attribute is fetched as two parts. Skips where
//! the device has no 64-bit floats.
//!
//! `tests/data/f64_in.vert`, `f64_mat.vert` and `color.frag` were compiled
//! with `glslangValidator -V` (`f64_mat.vert.spv15`: `--target-env
//! vulkan1.2`, SPIR-V 1.5). Each vertex compares what it reads with the
//! values below for its `gl_VertexIndex` and goes green when all match,
//! red otherwise.

mod common;
use common::{current_surface, open, words};

use backend_vulkan::VulkanBackend;
use mgpipe::calls::*;
use mgpipe::consts::*;
use mgpipe::{caps, Caps, Context, Handle, Screen};

const GL_RGBA: u32 = 0x1908;
const GL_UNSIGNED_BYTE: u32 = 0x1401;
const GL_FLOAT: u32 = 0x1406;
const GL_DOUBLE: u32 = 0x140A;
const GL_TRIANGLE_STRIP: u32 = 5;

/// The per-vertex constant of the shaders (`K[gl_VertexIndex]`).
const K: [f64; 4] = [0.1, -3.5e200, 1.0e-300, 12345.678];
/// Strip corners, in the order the strip draws them.
const POS: [[f32; 2]; 4] = [[-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0], [1.0, 1.0]];

/// Whether the device has 64-bit floats, and then that it advertises 64-bit
/// vertex inputs too.
fn float64(b: &mut VulkanBackend) -> bool {
    let mut reply = Vec::new();
    b.get_caps(&GetCaps::default(), &mut reply);
    let c: Caps = bytemuck::pod_read_unaligned(&reply);
    if c.features & caps::CAPS_FEATURE_FLOAT64 == 0 {
        eprintln!("SKIP: no shaderFloat64");
        return false;
    }
    assert_ne!(c.features & caps::CAPS_FEATURE_VERTEX_64, 0);
    true
}

fn shader(b: &mut VulkanBackend, vs: &[u8]) {
    let vs = words(vs);
    let fs = words(include_bytes!("data/color.frag.spv"));
    let mut blob: Vec<u8> = Vec::new();
    blob.extend(vs.iter().flat_map(|w| w.to_le_bytes()));
    blob.extend(fs.iter().flat_map(|w| w.to_le_bytes()));
    let mut stage_words = [0u32; 6];
    stage_words[STAGE_VERTEX] = vs.len() as u32;
    stage_words[STAGE_FRAGMENT] = fs.len() as u32;
    let sh = Handle::new(1, 1);
    b.create_shader(
        &CreateShader {
            cso: sh,
            stage_mask: (1 << STAGE_VERTEX) | (1 << STAGE_FRAGMENT),
            stage_words,
            ..Default::default()
        },
        &blob,
    );
    b.bind_shader(&BindShader { cso: sh });
}

/// One interleaved vertex buffer: per vertex the position (two floats)
/// then `attribs` (GL attribute index, doubles), as the frontend sends
/// `glVertexAttribLPointer` (attribute i in slot i, `VE_INTEGER`).
fn vertices(b: &mut VulkanBackend, attribs: &[(usize, Vec<[f64; 4]>, u32)]) {
    let doubles: u32 = attribs.iter().map(|a| a.2).sum();
    let stride = 8 + 8 * doubles;
    let mut data: Vec<u8> = Vec::new();
    for (v, pos) in POS.iter().enumerate() {
        data.extend(pos.iter().flat_map(|x| x.to_le_bytes()));
        for (_, values, size) in attribs {
            for x in &values[v][..*size as usize] {
                data.extend(x.to_le_bytes());
            }
        }
    }
    let vbo = Handle::new(12, 1);
    b.resource_create(
        &ResourceCreate {
            res: vbo,
            kind: RESOURCE_BUFFER,
            size: data.len() as u64,
            ..Default::default()
        },
        &data,
    );
    let mut ve = CreateVertexElements {
        cso: Handle::new(1, 1),
        enabled_mask: 1,
        ..Default::default()
    };
    let mut vb = SetVertexBuffers {
        count: 16,
        ..Default::default()
    };
    ve.format[0] = 2 | (GL_FLOAT << 8);
    vb.buffers[0] = vbo;
    vb.strides[0] = stride;
    let mut offset = 8u64;
    for (i, _, size) in attribs {
        ve.enabled_mask |= 1 << i;
        ve.buffer_index[*i] = *i as u32;
        ve.format[*i] = size | (GL_DOUBLE << 8) | VE_INTEGER;
        vb.buffers[*i] = vbo;
        vb.offsets[*i] = offset;
        vb.strides[*i] = stride;
        offset += 8 * u64::from(*size);
    }
    b.create_vertex_elements(&ve);
    b.bind_vertex_elements(&BindVertexElements { cso: ve.cso });
    b.set_vertex_buffers(&vb);
}

/// Draw the strip on a cleared 8x8 surface: the pixels that are not green
/// (index, RGBA).
fn draw_not_green(b: &mut VulkanBackend) -> Vec<(usize, Vec<u8>)> {
    b.clear(&Clear {
        buffers: CLEAR_COLOR_ALL,
        color_type: CLEAR_FLOAT,
        color: [0.0f32, 0.0, 1.0, 1.0].map(f32::to_bits),
        ..Default::default()
    });
    b.draw(
        &Draw {
            mode: GL_TRIANGLE_STRIP,
            count: 4,
            instance_count: 1,
            ..Default::default()
        },
        &[],
    );
    let mut img = Vec::new();
    b.read_pixels(
        &ReadPixels {
            x: 0,
            y: 0,
            width: 8,
            height: 8,
            format: GL_RGBA,
            r#type: GL_UNSIGNED_BYTE,
        },
        &mut img,
    );
    assert_eq!(img.len(), 8 * 8 * 4);
    img.chunks(4)
        .enumerate()
        .filter(|(_, p)| *p != [0, 255, 0, 255])
        .map(|(i, p)| (i, p.to_vec()))
        .collect()
}

/// Per vertex: `f(k)` for each of the four vertices.
fn per_vertex(f: impl Fn(f64) -> [f64; 4]) -> Vec<[f64; 4]> {
    K.iter().map(|&k| f(k)).collect()
}

#[test]
fn dvec3_dvec4_and_double_inputs() {
    let Some(mut b) = open() else { return };
    if !float64(&mut b) {
        return;
    }
    current_surface(&mut b, 8, 8);
    shader(&mut b, include_bytes!("data/f64_in.vert.spv"));
    // dvec3 at 1 (Vulkan 1-2), dvec4 at 3 (3-4), double at 5.
    vertices(
        &mut b,
        &[
            (1, per_vertex(|k| [k, -k, 2.0 * k, 0.0]), 3),
            (3, per_vertex(|k| [4.0 * k, -2.0 * k, 0.5 * k, 8.0 * k]), 4),
            (5, per_vertex(|k| [-0.25 * k, 0.0, 0.0, 0.0]), 1),
        ],
    );
    assert_eq!(draw_not_green(&mut b), vec![], "dvec3 + dvec4 + double");

    // A value off by its last bit in the high half of the dvec4 turns a
    // vertex red: the comparison is exact.
    let mut w = per_vertex(|k| [4.0 * k, -2.0 * k, 0.5 * k, 8.0 * k]);
    w[2][3] = f64::from_bits(w[2][3].to_bits() ^ 1);
    vertices(
        &mut b,
        &[
            (1, per_vertex(|k| [k, -k, 2.0 * k, 0.0]), 3),
            (3, w, 4),
            (5, per_vertex(|k| [-0.25 * k, 0.0, 0.0, 0.0]), 1),
        ],
    );
    assert!(
        !draw_not_green(&mut b).is_empty(),
        "a wrong double read as the expected one"
    );
}

#[test]
fn dmat2x3_and_array_inputs() {
    let Some(mut b) = open() else { return };
    if !float64(&mut b) {
        return;
    }
    current_surface(&mut b, 8, 8);
    // GL attributes: dmat2x3 columns 1, 2; dvec3[2] elements 5, 6; dvec2[2]
    // elements 9, 10; double 11 (Vulkan locations 1-4, 5-8, 9-10, 11).
    let attribs = [
        (1, per_vertex(|k| [k, 2.0 * k, 3.0, 0.0]), 3),
        (2, per_vertex(|k| [4.0 * k, 5.0, 6.0 * k, 0.0]), 3),
        (5, per_vertex(|k| [-k, 7.0, -8.0, 0.0]), 3),
        (6, per_vertex(|k| [9.0, 10.0 * k, -k, 0.0]), 3),
        (9, per_vertex(|k| [11.0, 0.5 * k, 0.0, 0.0]), 2),
        (10, per_vertex(|k| [-0.5 * k, 12.0, 0.0, 0.0]), 2),
        (11, per_vertex(|k| [16.0 * k, 0.0, 0.0, 0.0]), 1),
    ];
    for (spv, what) in [
        (&include_bytes!("data/f64_mat.vert.spv")[..], "SPIR-V 1.0"),
        (&include_bytes!("data/f64_mat.vert.spv15")[..], "SPIR-V 1.5"),
    ] {
        shader(&mut b, spv);
        vertices(&mut b, &attribs);
        assert_eq!(draw_not_green(&mut b), vec![], "{what}");
    }
}
