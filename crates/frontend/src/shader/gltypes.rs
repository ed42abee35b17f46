//! GL type enums (`glGetActiveUniform` / `glGetActiveAttrib` types) and the
//! SPIR-V type → GL type mapping.

use super::spirv::{Module, Type};

pub const GL_FLOAT: u32 = 0x1406;
pub const GL_FLOAT_VEC2: u32 = 0x8B50;
pub const GL_FLOAT_VEC3: u32 = 0x8B51;
pub const GL_FLOAT_VEC4: u32 = 0x8B52;
pub const GL_INT: u32 = 0x1404;
pub const GL_INT_VEC2: u32 = 0x8B53;
pub const GL_INT_VEC3: u32 = 0x8B54;
pub const GL_INT_VEC4: u32 = 0x8B55;
pub const GL_UNSIGNED_INT: u32 = 0x1405;
pub const GL_UNSIGNED_INT_VEC2: u32 = 0x8DC6;
pub const GL_UNSIGNED_INT_VEC3: u32 = 0x8DC7;
pub const GL_UNSIGNED_INT_VEC4: u32 = 0x8DC8;
pub const GL_BOOL: u32 = 0x8B56;
pub const GL_BOOL_VEC2: u32 = 0x8B57;
pub const GL_BOOL_VEC3: u32 = 0x8B58;
pub const GL_BOOL_VEC4: u32 = 0x8B59;
pub const GL_DOUBLE: u32 = 0x140A;
pub const GL_DOUBLE_VEC2: u32 = 0x8FFC;
pub const GL_DOUBLE_VEC3: u32 = 0x8FFD;
pub const GL_DOUBLE_VEC4: u32 = 0x8FFE;
pub const GL_FLOAT_MAT2: u32 = 0x8B5A;
pub const GL_FLOAT_MAT3: u32 = 0x8B5B;
pub const GL_FLOAT_MAT4: u32 = 0x8B5C;
pub const GL_FLOAT_MAT2X3: u32 = 0x8B65;
pub const GL_FLOAT_MAT2X4: u32 = 0x8B66;
pub const GL_FLOAT_MAT3X2: u32 = 0x8B67;
pub const GL_FLOAT_MAT3X4: u32 = 0x8B68;
pub const GL_FLOAT_MAT4X2: u32 = 0x8B69;
pub const GL_FLOAT_MAT4X3: u32 = 0x8B6A;
pub const GL_DOUBLE_MAT2: u32 = 0x8F46;
pub const GL_DOUBLE_MAT3: u32 = 0x8F47;
pub const GL_DOUBLE_MAT4: u32 = 0x8F48;
pub const GL_DOUBLE_MAT2X3: u32 = 0x8F49;
pub const GL_DOUBLE_MAT2X4: u32 = 0x8F4A;
pub const GL_DOUBLE_MAT3X2: u32 = 0x8F4B;
pub const GL_DOUBLE_MAT3X4: u32 = 0x8F4C;
pub const GL_DOUBLE_MAT4X2: u32 = 0x8F4D;
pub const GL_DOUBLE_MAT4X3: u32 = 0x8F4E;
pub const GL_SAMPLER_1D: u32 = 0x8B5D;
pub const GL_SAMPLER_2D: u32 = 0x8B5E;
pub const GL_SAMPLER_3D: u32 = 0x8B5F;
pub const GL_SAMPLER_CUBE: u32 = 0x8B60;
pub const GL_SAMPLER_1D_SHADOW: u32 = 0x8B61;
pub const GL_SAMPLER_2D_SHADOW: u32 = 0x8B62;
pub const GL_SAMPLER_2D_RECT: u32 = 0x8B63;
pub const GL_SAMPLER_2D_RECT_SHADOW: u32 = 0x8B64;
pub const GL_SAMPLER_1D_ARRAY: u32 = 0x8DC0;
pub const GL_SAMPLER_2D_ARRAY: u32 = 0x8DC1;
pub const GL_SAMPLER_BUFFER: u32 = 0x8DC2;
pub const GL_SAMPLER_1D_ARRAY_SHADOW: u32 = 0x8DC3;
pub const GL_SAMPLER_2D_ARRAY_SHADOW: u32 = 0x8DC4;
pub const GL_SAMPLER_CUBE_SHADOW: u32 = 0x8DC5;
pub const GL_INT_SAMPLER_1D: u32 = 0x8DC9;
pub const GL_INT_SAMPLER_2D: u32 = 0x8DCA;
pub const GL_INT_SAMPLER_3D: u32 = 0x8DCB;
pub const GL_INT_SAMPLER_CUBE: u32 = 0x8DCC;
pub const GL_INT_SAMPLER_2D_RECT: u32 = 0x8DCD;
pub const GL_INT_SAMPLER_1D_ARRAY: u32 = 0x8DCE;
pub const GL_INT_SAMPLER_2D_ARRAY: u32 = 0x8DCF;
pub const GL_INT_SAMPLER_BUFFER: u32 = 0x8DD0;
pub const GL_UNSIGNED_INT_SAMPLER_1D: u32 = 0x8DD1;
pub const GL_UNSIGNED_INT_SAMPLER_2D: u32 = 0x8DD2;
pub const GL_UNSIGNED_INT_SAMPLER_3D: u32 = 0x8DD3;
pub const GL_UNSIGNED_INT_SAMPLER_CUBE: u32 = 0x8DD4;
pub const GL_UNSIGNED_INT_SAMPLER_2D_RECT: u32 = 0x8DD5;
pub const GL_UNSIGNED_INT_SAMPLER_1D_ARRAY: u32 = 0x8DD6;
pub const GL_UNSIGNED_INT_SAMPLER_2D_ARRAY: u32 = 0x8DD7;
pub const GL_UNSIGNED_INT_SAMPLER_BUFFER: u32 = 0x8DD8;
pub const GL_SAMPLER_2D_MULTISAMPLE: u32 = 0x9108;
pub const GL_INT_SAMPLER_2D_MULTISAMPLE: u32 = 0x9109;
pub const GL_UNSIGNED_INT_SAMPLER_2D_MULTISAMPLE: u32 = 0x910A;
pub const GL_SAMPLER_2D_MULTISAMPLE_ARRAY: u32 = 0x910B;
pub const GL_INT_SAMPLER_2D_MULTISAMPLE_ARRAY: u32 = 0x910C;
pub const GL_UNSIGNED_INT_SAMPLER_2D_MULTISAMPLE_ARRAY: u32 = 0x910D;
pub const GL_SAMPLER_CUBE_MAP_ARRAY: u32 = 0x900C;
pub const GL_SAMPLER_CUBE_MAP_ARRAY_SHADOW: u32 = 0x900D;
pub const GL_INT_SAMPLER_CUBE_MAP_ARRAY: u32 = 0x900E;
pub const GL_UNSIGNED_INT_SAMPLER_CUBE_MAP_ARRAY: u32 = 0x900F;

pub const GL_VERTEX_SHADER: u32 = 0x8B31;
pub const GL_FRAGMENT_SHADER: u32 = 0x8B30;
pub const GL_GEOMETRY_SHADER: u32 = 0x8DD9;
pub const GL_TESS_CONTROL_SHADER: u32 = 0x8E88;
pub const GL_TESS_EVALUATION_SHADER: u32 = 0x8E87;
pub const GL_COMPUTE_SHADER: u32 = 0x91B9;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Scalar {
    Float,
    Double,
    Int,
    Uint,
    Bool,
}

fn scalar(m: &Module, id: u32) -> Option<Scalar> {
    match m.types.get(&id)? {
        Type::Bool => Some(Scalar::Bool),
        Type::Float { width: 64 } => Some(Scalar::Double),
        Type::Float { .. } => Some(Scalar::Float),
        Type::Int { signed: true, .. } => Some(Scalar::Int),
        Type::Int { signed: false, .. } => Some(Scalar::Uint),
        _ => None,
    }
}

fn vector_type(s: Scalar, n: u32) -> Option<u32> {
    let table: [u32; 4] = match s {
        Scalar::Float => [GL_FLOAT, GL_FLOAT_VEC2, GL_FLOAT_VEC3, GL_FLOAT_VEC4],
        Scalar::Double => [GL_DOUBLE, GL_DOUBLE_VEC2, GL_DOUBLE_VEC3, GL_DOUBLE_VEC4],
        Scalar::Int => [GL_INT, GL_INT_VEC2, GL_INT_VEC3, GL_INT_VEC4],
        Scalar::Uint => [
            GL_UNSIGNED_INT,
            GL_UNSIGNED_INT_VEC2,
            GL_UNSIGNED_INT_VEC3,
            GL_UNSIGNED_INT_VEC4,
        ],
        Scalar::Bool => [GL_BOOL, GL_BOOL_VEC2, GL_BOOL_VEC3, GL_BOOL_VEC4],
    };
    table.get((n as usize).checked_sub(1)?).copied()
}

/// Bool flavour of an int/uint GL type (glslang stores `bool` in blocks as
/// `uint`).
pub(crate) fn as_bool(gl_type: u32) -> u32 {
    match gl_type {
        GL_INT | GL_UNSIGNED_INT => GL_BOOL,
        GL_INT_VEC2 | GL_UNSIGNED_INT_VEC2 => GL_BOOL_VEC2,
        GL_INT_VEC3 | GL_UNSIGNED_INT_VEC3 => GL_BOOL_VEC3,
        GL_INT_VEC4 | GL_UNSIGNED_INT_VEC4 => GL_BOOL_VEC4,
        other => other,
    }
}

/// GL type of a non-array SPIR-V type, if it has one.
pub(crate) fn gl_type(m: &Module, id: u32) -> Option<u32> {
    match m.types.get(&id)? {
        Type::Bool | Type::Int { .. } | Type::Float { .. } => vector_type(scalar(m, id)?, 1),
        Type::Vector { component, count } => vector_type(scalar(m, *component)?, *count),
        Type::Matrix { column, columns } => {
            let (comp, rows) = match m.types.get(column)? {
                Type::Vector { component, count } => (*component, *count),
                _ => return None,
            };
            let double = scalar(m, comp)? == Scalar::Double;
            let t = match (columns, rows) {
                (2, 2) => [GL_FLOAT_MAT2, GL_DOUBLE_MAT2],
                (3, 3) => [GL_FLOAT_MAT3, GL_DOUBLE_MAT3],
                (4, 4) => [GL_FLOAT_MAT4, GL_DOUBLE_MAT4],
                (2, 3) => [GL_FLOAT_MAT2X3, GL_DOUBLE_MAT2X3],
                (2, 4) => [GL_FLOAT_MAT2X4, GL_DOUBLE_MAT2X4],
                (3, 2) => [GL_FLOAT_MAT3X2, GL_DOUBLE_MAT3X2],
                (3, 4) => [GL_FLOAT_MAT3X4, GL_DOUBLE_MAT3X4],
                (4, 2) => [GL_FLOAT_MAT4X2, GL_DOUBLE_MAT4X2],
                (4, 3) => [GL_FLOAT_MAT4X3, GL_DOUBLE_MAT4X3],
                _ => return None,
            };
            Some(t[usize::from(double)])
        }
        Type::SampledImage { image } => sampler_type(m, *image),
        _ => None,
    }
}

fn sampler_type(m: &Module, image: u32) -> Option<u32> {
    let Type::Image {
        sampled_type,
        dim,
        depth,
        arrayed,
        ms,
        ..
    } = m.types.get(&image)?
    else {
        return None;
    };
    let kind = match scalar(m, *sampled_type)? {
        Scalar::Int => 1,
        Scalar::Uint => 2,
        _ => 0,
    };
    let shadow = *depth == 1;
    // Dim: 0 1D, 1 2D, 2 3D, 3 Cube, 4 Rect, 5 Buffer.
    let t: [u32; 3] = match (dim, arrayed, ms, shadow) {
        (0, false, _, false) => [GL_SAMPLER_1D, GL_INT_SAMPLER_1D, GL_UNSIGNED_INT_SAMPLER_1D],
        (0, true, _, false) => [
            GL_SAMPLER_1D_ARRAY,
            GL_INT_SAMPLER_1D_ARRAY,
            GL_UNSIGNED_INT_SAMPLER_1D_ARRAY,
        ],
        (0, false, _, true) => [GL_SAMPLER_1D_SHADOW; 3],
        (0, true, _, true) => [GL_SAMPLER_1D_ARRAY_SHADOW; 3],
        (1, false, false, false) => [GL_SAMPLER_2D, GL_INT_SAMPLER_2D, GL_UNSIGNED_INT_SAMPLER_2D],
        (1, true, false, false) => [
            GL_SAMPLER_2D_ARRAY,
            GL_INT_SAMPLER_2D_ARRAY,
            GL_UNSIGNED_INT_SAMPLER_2D_ARRAY,
        ],
        (1, false, true, _) => [
            GL_SAMPLER_2D_MULTISAMPLE,
            GL_INT_SAMPLER_2D_MULTISAMPLE,
            GL_UNSIGNED_INT_SAMPLER_2D_MULTISAMPLE,
        ],
        (1, true, true, _) => [
            GL_SAMPLER_2D_MULTISAMPLE_ARRAY,
            GL_INT_SAMPLER_2D_MULTISAMPLE_ARRAY,
            GL_UNSIGNED_INT_SAMPLER_2D_MULTISAMPLE_ARRAY,
        ],
        (1, false, false, true) => [GL_SAMPLER_2D_SHADOW; 3],
        (1, true, false, true) => [GL_SAMPLER_2D_ARRAY_SHADOW; 3],
        (2, _, _, _) => [GL_SAMPLER_3D, GL_INT_SAMPLER_3D, GL_UNSIGNED_INT_SAMPLER_3D],
        (3, false, _, false) => [
            GL_SAMPLER_CUBE,
            GL_INT_SAMPLER_CUBE,
            GL_UNSIGNED_INT_SAMPLER_CUBE,
        ],
        (3, true, _, false) => [
            GL_SAMPLER_CUBE_MAP_ARRAY,
            GL_INT_SAMPLER_CUBE_MAP_ARRAY,
            GL_UNSIGNED_INT_SAMPLER_CUBE_MAP_ARRAY,
        ],
        (3, false, _, true) => [GL_SAMPLER_CUBE_SHADOW; 3],
        (3, true, _, true) => [GL_SAMPLER_CUBE_MAP_ARRAY_SHADOW; 3],
        (4, _, _, false) => [
            GL_SAMPLER_2D_RECT,
            GL_INT_SAMPLER_2D_RECT,
            GL_UNSIGNED_INT_SAMPLER_2D_RECT,
        ],
        (4, _, _, true) => [GL_SAMPLER_2D_RECT_SHADOW; 3],
        (5, _, _, _) => [
            GL_SAMPLER_BUFFER,
            GL_INT_SAMPLER_BUFFER,
            GL_UNSIGNED_INT_SAMPLER_BUFFER,
        ],
        _ => return None,
    };
    Some(t[kind])
}

/// `GL_IMAGE_1D`: the float image types follow in the order 1D, 2D, 3D,
/// 2D_RECT, CUBE, BUFFER, 1D_ARRAY, 2D_ARRAY, CUBE_MAP_ARRAY,
/// 2D_MULTISAMPLE, 2D_MULTISAMPLE_ARRAY; the `INT_` types start 11 later,
/// the `UNSIGNED_INT_` ones 22 later.
pub const GL_IMAGE_1D: u32 = 0x904C;

/// The GL type enum of an image uniform (`OpTypeImage` with Sampled = 2).
pub(crate) fn image_type(m: &Module, image: u32) -> Option<u32> {
    let Type::Image {
        sampled_type,
        dim,
        arrayed,
        ms,
        ..
    } = m.types.get(&image)?
    else {
        return None;
    };
    let kind = match scalar(m, *sampled_type)? {
        Scalar::Int => 1,
        Scalar::Uint => 2,
        _ => 0,
    };
    // Dim: 0 1D, 1 2D, 2 3D, 3 Cube, 4 Rect, 5 Buffer.
    let index = match (dim, arrayed, ms) {
        (0, false, _) => 0,
        (1, false, false) => 1,
        (2, _, _) => 2,
        (4, _, _) => 3,
        (3, false, _) => 4,
        (5, _, _) => 5,
        (0, true, _) => 6,
        (1, true, false) => 7,
        (3, true, _) => 8,
        (1, false, true) => 9,
        (1, true, true) => 10,
        _ => return None,
    };
    Some(GL_IMAGE_1D + kind * 11 + index)
}

/// Whether `ty` is one of the image uniform types.
pub fn is_image_type(ty: u32) -> bool {
    (GL_IMAGE_1D..GL_IMAGE_1D + 33).contains(&ty)
}
