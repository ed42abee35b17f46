//! Every place where desktop GL semantics are emulated on GLES 3.2, named in
//! one module (DESIGN §5).
//!
//! | emulation | what the backend does |
//! |---|---|
//! | `BGRA` / `BGR` client data | swizzled to RGBA / RGB on the CPU at upload |
//! | packed desktop types (`8_8_8_8(_REV)`, `5_6_5_REV`, `1_5_5_5_REV`, `4_4_4_4_REV`, `10_10_10_2`) | decoded + re-encoded on the CPU to the format's canonical GLES type |
//! | format/type pairs GLES refuses (e.g. `RGBA8` from `FLOAT`) | converted on the CPU to the canonical pair |
//! | `RGBA16`/`RG16`/`R16`/`RGB16` (+ `_SNORM`) | `EXT_texture_norm16` if present, else the 16F format (data converted) |
//! | unsized internal formats (`GL_RGBA`, `3`, `GL_DEPTH_COMPONENT` ...) | the sized format desktop drivers choose |
//! | `RGBA12`, `RGB10`, `RGBA2`, `R3_G3_B2`, ... | nearest GLES format (`RGBA8` / `RGB8` / `RGB565`) |
//! | RGB formats GLES cannot render into (`RGB8UI`/`I` ... `RGB32UI`/`I`, `RGB16F`, `RGB32F`, `SRGB8`, `RGB8_SNORM`, `RGB16(_SNORM)`, `RGB12`, `RGB9_E5`) | the 4-component format (`RGB9_E5` as `RGBA16F`), `alpha_one` on the resource: uploads get alpha 1 (CPU conversion), the view swizzle reads A as ONE, read-backs force alpha 1, blend factors read destination alpha as 1 (`state::dst_alpha_as_one`) |
//! | generic compressed internal formats and S3TC without the extension | uncompressed `RGBA8`/`RGB8`/`SRGB8_ALPHA8` storage |
//! | `DEPTH_COMPONENT32` (unorm) | `DEPTH_COMPONENT24`, `UNSIGNED_INT` data accepted as is |
//! | `TEXTURE_1D` / `TEXTURE_RECTANGLE` / `TEXTURE_1D_ARRAY` | `TEXTURE_2D` (height 1) / `TEXTURE_2D` / `TEXTURE_2D_ARRAY` (height 1) |
//! | a mutable `TEXTURE_1D_ARRAY` (a height-1 2D array, which Mesa allocates for one level under the default filter and then refuses as a render target) | the texture object's own min filter set to `LINEAR_MIPMAP_NEAREST` before each image (`Context::texture_image`); samplers are separate objects |
//! | wrap `CLAMP` / `MIRROR_CLAMP_TO_EDGE` | `CLAMP_TO_EDGE` |
//! | sampler LOD bias | not in GLES: a program variant built on the first draw that finds a non-zero bias on a unit it samples reads `mgl_LodBias[unit]` (added to implicit/explicit LODs, gradients scaled by 2^bias; `sampling.rs`) |
//! | 1D samplers/images in shaders | `Dim1D` lowered to `Dim2D` in the SPIR-V: second coordinate 0.5 (0.5·q projective, 0 texel), gradients/offsets widened, size queries narrowed (`sampling::lower_1d_images`) |
//! | `texture`/`textureOffset` with bias or offset on 2D array shadow samplers (and 1D array shadow ones) | `textureGrad(Offset)` with `dFdx`/`dFdy` of the coordinate scaled by 2^bias (`sampling::lower_lod`) |
//! | base instance | instanced attributes' offsets advanced by `base_instance` strides (GL fetches element ⌊instance / divisor⌋ + baseinstance; `gl_InstanceID` does not include it) |
//! | draw buffer i -> colour attachment j (j != i) | the FBO is built with attachment i = the client's attachment j |
//! | `glReadPixels` format/type GLES cannot read | read as RGBA/UNSIGNED_BYTE (or FLOAT / INTEGER by the surface class) and converted |
//! | `glReadPixels` of a multisampled surface/renderbuffer | resolved by a blit into a temporary single-sample FBO first |
//! | `glReadPixels` of `DEPTH_COMPONENT` / `STENCIL_INDEX` / `DEPTH_STENCIL` | read through `GL_NV_read_depth` / `_stencil` / `_depth_stencil` in the first type the driver accepts, converted (`Cx::read_depth_stencil`); a multisampled default surface's buffer is first resolved by a blit into a temporary (`Cx::resolve_depth_stencil`); zeros and a warning without the extensions |
//! | the default framebuffer | an FBO per context over the surface's colour + depth/stencil renderbuffers |
//! | unknown internal format | `RGBA8` fallback, logged |
//! | `GL_SAMPLES_PASSED` queries | `ANY_SAMPLES_PASSED` (0/1, a lower bound of the count; `queries.rs`) |
//! | `GL_TIME_ELAPSED`, `glQueryCounter`, `GL_TIMESTAMP` | CPU monotonic clock around `glFinish` (no timer queries in GLES 3.2) |
//! | `glGetTexImage` | the level attached to a temporary FBO and read like `glReadPixels` |
//! | `layout(location)` on an arrayed vertex-output / fragment-input block (Mesa's ESSL refuses it) | the location is dropped; the block matches by name (`shader::strip_block_array_locations`) |
//! | `gl_PointSize` in a geometry shader | `#extension GL_EXT_geometry_point_size : enable` added (`shader::enable_geometry_point_size`) |
//! | a program without a fragment shader | an empty ESSL fragment shader is linked in (`shader::build_program`) |
//! | an image unit naming a mutable (`texture_image`) texture (GLES binds only immutable ones) | the texture is promoted to immutable storage, every defined level copied, its caches invalidated; a later `texture_image` that does not fit the storage makes it mutable again (`images.rs`) |
//! | image formats GLES lacks (`RGBA16`, `RG32F`, ...) in an image unit | bound where the driver has `GL_NV_image_formats` (16-bit normalized ones with `GL_EXT_texture_norm16`); SPIRV-Cross's refused ES formats translated with a placeholder that the ESSL gets back, the extension enabled (`sampling::mark_desktop_only_formats`, `images::enable_image_formats`); otherwise the unit is left unbound, warned once per format (`images.rs`) |
//! | read-write storage images of formats other than r32f/r32i/r32ui (ESSL wants `readonly` or `writeonly`) | `readonly`/`writeonly` from the uses; a loaded and stored one becomes a `readonly` variable plus a `writeonly` twin at binding + 8 taking its stores, the unit's texture bound to both units (`sampling::qualify_storage_images`, `Cx::apply_images`) |
//! | 1D image atomics | the texel pointer's coordinate widened like other 1D image accesses (`sampling::lower_1d_images`) |
//! | buffer textures in image units | bound as they are (GLES 3.2 takes buffer textures without immutable storage) |
//! | an image unit whose texture's format is no image format (RGB formats) | left unbound, so every access is invalid as GL 4.6 §8.26 says (GLES would reinterpret the texels) |
//! | `glGetTexImage` of snorm, 16-bit normalized and `RGB10_A2` textures (GLES reads them as 8 bits or not at all) | the slice is copied bit for bit (`glCopyImageSubData`, the level made complete meanwhile) into an integer texture of the same texel size, read as `RGBA_INTEGER` and decoded to floats (`queries::RawView`) |
//! | fine/coarse derivatives (`dFdxFine`, `fwidthCoarse` ..., GLSL 4.50; ESSL has no derivative control) | the plain `dFdx`/`dFdy`/`fwidth` (`shader::lower_derivative_control`) |
//! | `interpolateAt*` of one component of a vector input (`v.z`, `v[i]`; ESSL takes whole inputs only) | the whole vector interpolated, the component extracted (`shader::interpolate_whole_vectors`) |
//! | a storage image without a format qualifier (`writeonly`) | `rgba8` (float) / `rgba32i` / `rgba32ui` assumed, warned (`shader::fill_unknown_image_formats`) |
//! | 64-bit floats (`ARB_gpu_shader_fp64`) | a SPIR-V pass carries each double as its bits in a `uvec2` (`fp64.rs`): moves, composites, comparisons, conversions, `abs`/`sign`/`min`/`max`/`clamp`/`frexp`/`trunc`/`transpose`, `pack`/`unpackDouble2x32` exact; **all other arithmetic (`+ - * /`, matrices, `dot`, `sqrt`, `floor` ...) at f32 precision** (decoded, computed as float, encoded); blocks padded to keep std140/std430 offsets; double varyings / vertex inputs split into `flat` `uvec2`/`uvec4` variables per location |
//! | `glVertexAttribLPointer` (`GL_DOUBLE` + `VE_INTEGER`) | fetched with `glVertexAttribIPointer` as `GL_UNSIGNED_INT` words, a dvec3/dvec4 as two attributes (bytes 0..16 at location L, 16.. at L + 1) through the program's `fp64::F64Input` map; such programs skip the VAO cache |
//! | array vertex inputs (ESSL refuses them) in a module with doubles | split into one input per location by the same pass |
//! | `glMemoryBarrier` bits GLES lacks (`CLIENT_MAPPED_BUFFER`, `QUERY_BUFFER`) | masked off (`GL_ALL_BARRIER_BITS` passes as is) |
//!
//! Not emulated (named gaps): `GL_DOUBLE` vertex attributes through
//! `glVertexAttribPointer` (converted to float), `GL_QUADS` /
//! `GL_POLYGON` primitives, depth/stencil `glReadPixels` on drivers without
//! `GL_NV_read_*` (or of a multisampled surface), texture buffers, the
//! sampler LOD bias on lookups through an array of samplers passed to a
//! function and on `samplerCubeArrayShadow` implicit lookups.

use glow as g;

/// What a GLES texture/renderbuffer is stored as and how data is uploaded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StorageFormat {
    /// GLES sized internal format.
    pub internal: u32,
    /// Canonical upload format/type for `internal`.
    pub format: u32,
    pub ty: u32,
    /// The emulation applied, for logs (None: native).
    pub emulation: Option<&'static str>,
    /// A format without alpha stored with one (`RGB16F` as `RGBA16F`):
    /// uploads write alpha 1, sampling swizzles A to ONE and read-backs
    /// answer alpha 1 (what GL gives for a format without alpha).
    pub alpha_one: bool,
}

/// Sample class of a format, for readback and clears.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FormatClass {
    Unorm,
    Float,
    Int,
    Uint,
    Depth,
    DepthStencil,
    Stencil,
}

/// (GLES internal, canonical format, canonical type, also accepted types, class)
type Row = (u32, u32, u32, &'static [u32], FormatClass);

use mgpipe::pixels::{FL, HF, SB, SI, SS, UB, UI, US};

/// GLES 3.2 sized internal formats (ES 3.2 spec tables 8.2 / 8.10) plus the
/// EXT_texture_norm16 ones.
const GLES_FORMATS: &[Row] = &[
    (g::R8, g::RED, UB, &[], FormatClass::Unorm),
    (g::R8_SNORM, g::RED, SB, &[], FormatClass::Unorm),
    (g::R16F, g::RED, HF, &[FL], FormatClass::Float),
    (g::R32F, g::RED, FL, &[], FormatClass::Float),
    (g::R8UI, g::RED_INTEGER, UB, &[], FormatClass::Uint),
    (g::R8I, g::RED_INTEGER, SB, &[], FormatClass::Int),
    (g::R16UI, g::RED_INTEGER, US, &[], FormatClass::Uint),
    (g::R16I, g::RED_INTEGER, SS, &[], FormatClass::Int),
    (g::R32UI, g::RED_INTEGER, UI, &[], FormatClass::Uint),
    (g::R32I, g::RED_INTEGER, SI, &[], FormatClass::Int),
    (g::RG8, g::RG, UB, &[], FormatClass::Unorm),
    (g::RG8_SNORM, g::RG, SB, &[], FormatClass::Unorm),
    (g::RG16F, g::RG, HF, &[FL], FormatClass::Float),
    (g::RG32F, g::RG, FL, &[], FormatClass::Float),
    (g::RG8UI, g::RG_INTEGER, UB, &[], FormatClass::Uint),
    (g::RG8I, g::RG_INTEGER, SB, &[], FormatClass::Int),
    (g::RG16UI, g::RG_INTEGER, US, &[], FormatClass::Uint),
    (g::RG16I, g::RG_INTEGER, SS, &[], FormatClass::Int),
    (g::RG32UI, g::RG_INTEGER, UI, &[], FormatClass::Uint),
    (g::RG32I, g::RG_INTEGER, SI, &[], FormatClass::Int),
    (g::RGB8, g::RGB, UB, &[], FormatClass::Unorm),
    (g::SRGB8, g::RGB, UB, &[], FormatClass::Unorm),
    (
        g::RGB565,
        g::RGB,
        UB,
        &[g::UNSIGNED_SHORT_5_6_5],
        FormatClass::Unorm,
    ),
    (g::RGB8_SNORM, g::RGB, SB, &[], FormatClass::Unorm),
    (
        g::R11F_G11F_B10F,
        g::RGB,
        HF,
        &[FL, g::UNSIGNED_INT_10F_11F_11F_REV],
        FormatClass::Float,
    ),
    (
        g::RGB9_E5,
        g::RGB,
        HF,
        &[FL, g::UNSIGNED_INT_5_9_9_9_REV],
        FormatClass::Float,
    ),
    (g::RGB16F, g::RGB, HF, &[FL], FormatClass::Float),
    (g::RGB32F, g::RGB, FL, &[], FormatClass::Float),
    (g::RGB8UI, g::RGB_INTEGER, UB, &[], FormatClass::Uint),
    (g::RGB8I, g::RGB_INTEGER, SB, &[], FormatClass::Int),
    (g::RGB16UI, g::RGB_INTEGER, US, &[], FormatClass::Uint),
    (g::RGB16I, g::RGB_INTEGER, SS, &[], FormatClass::Int),
    (g::RGB32UI, g::RGB_INTEGER, UI, &[], FormatClass::Uint),
    (g::RGB32I, g::RGB_INTEGER, SI, &[], FormatClass::Int),
    (g::RGBA8, g::RGBA, UB, &[], FormatClass::Unorm),
    (g::SRGB8_ALPHA8, g::RGBA, UB, &[], FormatClass::Unorm),
    (g::RGBA8_SNORM, g::RGBA, SB, &[], FormatClass::Unorm),
    (
        g::RGB5_A1,
        g::RGBA,
        UB,
        &[g::UNSIGNED_SHORT_5_5_5_1, g::UNSIGNED_INT_2_10_10_10_REV],
        FormatClass::Unorm,
    ),
    (
        g::RGBA4,
        g::RGBA,
        UB,
        &[g::UNSIGNED_SHORT_4_4_4_4],
        FormatClass::Unorm,
    ),
    (
        g::RGB10_A2,
        g::RGBA,
        g::UNSIGNED_INT_2_10_10_10_REV,
        &[],
        FormatClass::Unorm,
    ),
    (
        g::RGB10_A2UI,
        g::RGBA_INTEGER,
        g::UNSIGNED_INT_2_10_10_10_REV,
        &[],
        FormatClass::Uint,
    ),
    (g::RGBA16F, g::RGBA, HF, &[FL], FormatClass::Float),
    (g::RGBA32F, g::RGBA, FL, &[], FormatClass::Float),
    (g::RGBA8UI, g::RGBA_INTEGER, UB, &[], FormatClass::Uint),
    (g::RGBA8I, g::RGBA_INTEGER, SB, &[], FormatClass::Int),
    (g::RGBA16UI, g::RGBA_INTEGER, US, &[], FormatClass::Uint),
    (g::RGBA16I, g::RGBA_INTEGER, SS, &[], FormatClass::Int),
    (g::RGBA32UI, g::RGBA_INTEGER, UI, &[], FormatClass::Uint),
    (g::RGBA32I, g::RGBA_INTEGER, SI, &[], FormatClass::Int),
    (
        g::DEPTH_COMPONENT16,
        g::DEPTH_COMPONENT,
        US,
        &[UI],
        FormatClass::Depth,
    ),
    (
        g::DEPTH_COMPONENT24,
        g::DEPTH_COMPONENT,
        UI,
        &[],
        FormatClass::Depth,
    ),
    (
        g::DEPTH_COMPONENT32F,
        g::DEPTH_COMPONENT,
        FL,
        &[],
        FormatClass::Depth,
    ),
    (
        g::DEPTH24_STENCIL8,
        g::DEPTH_STENCIL,
        g::UNSIGNED_INT_24_8,
        &[],
        FormatClass::DepthStencil,
    ),
    (
        g::DEPTH32F_STENCIL8,
        g::DEPTH_STENCIL,
        g::FLOAT_32_UNSIGNED_INT_24_8_REV,
        &[],
        FormatClass::DepthStencil,
    ),
    (
        g::STENCIL_INDEX8,
        g::STENCIL_INDEX,
        UB,
        &[],
        FormatClass::Stencil,
    ),
    // EXT_texture_norm16 (same enum values as desktop GL).
    (g::R16, g::RED, US, &[], FormatClass::Unorm),
    (g::RG16, g::RG, US, &[], FormatClass::Unorm),
    (g::RGB16, g::RGB, US, &[], FormatClass::Unorm),
    (g::RGBA16, g::RGBA, US, &[], FormatClass::Unorm),
    (g::R16_SNORM, g::RED, SS, &[], FormatClass::Unorm),
    (g::RG16_SNORM, g::RG, SS, &[], FormatClass::Unorm),
    (g::RGB16_SNORM, g::RGB, SS, &[], FormatClass::Unorm),
    (g::RGBA16_SNORM, g::RGBA, SS, &[], FormatClass::Unorm),
];

fn row(internal: u32) -> Option<&'static Row> {
    GLES_FORMATS.iter().find(|r| r.0 == internal)
}

fn is_norm16(internal: u32) -> bool {
    matches!(
        internal,
        g::R16
            | g::RG16
            | g::RGB16
            | g::RGBA16
            | g::R16_SNORM
            | g::RG16_SNORM
            | g::RGB16_SNORM
            | g::RGBA16_SNORM
    )
}

/// The class of a GLES internal format (Unorm for unknown).
pub fn format_class(internal: u32) -> FormatClass {
    row(internal).map(|r| r.4).unwrap_or(FormatClass::Unorm)
}

/// Map a desktop GL internal format to what GLES 3.2 stores.
/// `norm16`: the driver has EXT_texture_norm16. Returns the fallback
/// (`RGBA8`, emulation "unknown internal format") for anything unknown.
pub fn storage_format(desktop: u32, norm16: bool) -> StorageFormat {
    let native = |internal: u32| row(internal).filter(|_| norm16 || !is_norm16(internal));
    if let Some((internal, why)) = renderable_with_alpha(desktop, norm16) {
        if let Some(r) = row(internal) {
            return StorageFormat {
                internal: r.0,
                format: r.1,
                ty: r.2,
                emulation: Some(why),
                alpha_one: true,
            };
        }
    }
    if let Some(r) = native(desktop) {
        return StorageFormat {
            internal: r.0,
            format: r.1,
            ty: r.2,
            emulation: None,
            alpha_one: false,
        };
    }
    let (internal, why): (u32, &'static str) = match desktop {
        // unsized and legacy component-count formats
        g::RGBA | 4 => (g::RGBA8, "unsized RGBA"),
        g::RGB | 3 => (g::RGB8, "unsized RGB"),
        g::RG | 2 => (g::RG8, "unsized RG"),
        g::RED | 1 => (g::R8, "unsized RED"),
        g::SRGB | g::SRGB_ALPHA => (g::SRGB8_ALPHA8, "unsized sRGB"),
        g::DEPTH_COMPONENT => (g::DEPTH_COMPONENT24, "unsized depth"),
        g::DEPTH_STENCIL => (g::DEPTH24_STENCIL8, "unsized depth-stencil"),
        g::STENCIL_INDEX | g::STENCIL_INDEX1 | g::STENCIL_INDEX4 | g::STENCIL_INDEX16 => {
            (g::STENCIL_INDEX8, "stencil size")
        }
        g::DEPTH_COMPONENT32 => (g::DEPTH_COMPONENT24, "unorm32 depth"),
        // norm16 without the extension
        g::R16 => (g::R16F, "R16 as R16F"),
        g::RG16 => (g::RG16F, "RG16 as RG16F"),
        g::RGBA16 => (g::RGBA16F, "RGBA16 as RGBA16F"),
        g::R16_SNORM => (g::R16F, "R16_SNORM as R16F"),
        g::RG16_SNORM => (g::RG16F, "RG16_SNORM as RG16F"),
        g::RGBA16_SNORM => (g::RGBA16F, "RGBA16_SNORM as RGBA16F"),
        // desktop-only sized formats
        g::RGBA12 => (if norm16 { g::RGBA16 } else { g::RGBA16F }, "RGBA12"),
        g::RGB10 => (g::RGB10_A2, "RGB10"),
        g::RGBA2 => (g::RGBA8, "small desktop format"),
        // Without alpha: RGB8 (renderable), so alpha reads 1 after rendering.
        g::RGB5 | g::RGB4 => (g::RGB8, "small desktop format"),
        g::R3_G3_B2 => (g::RGB565, "R3_G3_B2"),
        // compressed formats: stored uncompressed (the data arrives uncompressed)
        g::COMPRESSED_RGBA
        | g::COMPRESSED_RGBA_S3TC_DXT1_EXT
        | g::COMPRESSED_RGBA_S3TC_DXT3_EXT
        | g::COMPRESSED_RGBA_S3TC_DXT5_EXT
        | g::COMPRESSED_RGBA_BPTC_UNORM => (g::RGBA8, "compressed format stored uncompressed"),
        g::COMPRESSED_RGB | g::COMPRESSED_RGB_S3TC_DXT1_EXT => {
            (g::RGB8, "compressed format stored uncompressed")
        }
        g::COMPRESSED_RED | g::COMPRESSED_RED_RGTC1 | g::COMPRESSED_SIGNED_RED_RGTC1 => {
            (g::R8, "compressed format stored uncompressed")
        }
        g::COMPRESSED_RG | g::COMPRESSED_RG_RGTC2 | g::COMPRESSED_SIGNED_RG_RGTC2 => {
            (g::RG8, "compressed format stored uncompressed")
        }
        g::COMPRESSED_SRGB
        | g::COMPRESSED_SRGB_ALPHA
        | g::COMPRESSED_SRGB_ALPHA_BPTC_UNORM
        | g::COMPRESSED_SRGB_S3TC_DXT1_EXT
        | g::COMPRESSED_SRGB_ALPHA_S3TC_DXT1_EXT
        | g::COMPRESSED_SRGB_ALPHA_S3TC_DXT3_EXT
        | g::COMPRESSED_SRGB_ALPHA_S3TC_DXT5_EXT => {
            (g::SRGB8_ALPHA8, "compressed format stored uncompressed")
        }
        _ => (g::RGBA8, "unknown internal format, RGBA8 fallback"),
    };
    // RGB10 gains an alpha channel in RGB10_A2: kept at 1 like the RGB
    // formats of `renderable_with_alpha`.
    let alpha_one = desktop == g::RGB10;
    match row(internal) {
        Some(r) => StorageFormat {
            internal: r.0,
            format: r.1,
            ty: r.2,
            emulation: Some(why),
            alpha_one,
        },
        None => StorageFormat {
            internal: g::RGBA8,
            format: g::RGBA,
            ty: UB,
            emulation: Some(why),
            alpha_one: false,
        },
    }
}

/// Formats without alpha that GLES can sample but not render into (the
/// RGB integer, float and sRGB formats, `RGB9_E5`, 16-bit RGB): stored as
/// the 4-component format GLES renders into (`RGBA16F` for `RGB9_E5` and
/// 16-bit RGB without EXT_texture_norm16), alpha kept at 1 by the
/// backend (`StorageFormat::alpha_one`). `RGB8`/`RGB565`, renderable as
/// they are, keep their own storage.
fn renderable_with_alpha(desktop: u32, norm16: bool) -> Option<(u32, &'static str)> {
    const WHY: &str = "RGB format stored as RGBA to be renderable";
    let rgba16 = if norm16 { g::RGBA16 } else { g::RGBA16F };
    Some(match desktop {
        g::RGB8UI => (g::RGBA8UI, WHY),
        g::RGB8I => (g::RGBA8I, WHY),
        g::RGB16UI => (g::RGBA16UI, WHY),
        g::RGB16I => (g::RGBA16I, WHY),
        g::RGB32UI => (g::RGBA32UI, WHY),
        g::RGB32I => (g::RGBA32I, WHY),
        g::RGB16F => (g::RGBA16F, WHY),
        g::RGB32F => (g::RGBA32F, WHY),
        g::SRGB8 => (g::SRGB8_ALPHA8, WHY),
        g::RGB9_E5 => (g::RGBA16F, "RGB9_E5 stored as RGBA16F to be renderable"),
        g::RGB16 | g::RGB12 => (rgba16, WHY),
        // Renderable where the driver has EXT_render_snorm.
        g::RGB8_SNORM => (g::RGBA8_SNORM, WHY),
        g::RGB16_SNORM => (if norm16 { g::RGBA16_SNORM } else { g::RGBA16F }, WHY),
        g::COMPRESSED_RGB_BPTC_SIGNED_FLOAT | g::COMPRESSED_RGB_BPTC_UNSIGNED_FLOAT => {
            (g::RGBA16F, "compressed format stored uncompressed")
        }
        _ => return None,
    })
}

/// Make every pixel of `data` (read back in `format`/`ty`, one of the
/// [`readable_pair`]s) answer alpha 1 the way GL reads a format without
/// alpha: max for unorm bytes, 1.0 for floats, 1 for integers.
pub fn force_alpha_one(data: &mut [u8], format: u32, ty: u32) {
    let one: [u8; 4] = match (format, ty) {
        (g::RGBA, UB) => [255, 0, 0, 0],
        (g::RGBA, FL) => 1.0f32.to_le_bytes(),
        (g::RGBA_INTEGER, UI | SI) => 1u32.to_le_bytes(),
        _ => return,
    };
    let (px, at, n) = if ty == UB { (4, 3, 1) } else { (16, 12, 4) };
    for p in data.chunks_exact_mut(px) {
        p[at..at + n].copy_from_slice(&one[..n]);
    }
}

/// Whether GLES accepts `format`/`ty` for uploads into `internal` as is.
pub fn upload_accepted(internal: u32, format: u32, ty: u32) -> bool {
    match row(internal) {
        Some(r) => r.1 == format && (r.2 == ty || r.3.contains(&ty)),
        None => false,
    }
}

/// Texture binding target GLES uses for a desktop target, or None if
/// it has no GLES equivalent. Cube faces map to `TEXTURE_CUBE_MAP`.
pub fn binding_target(target: u32) -> Option<u32> {
    Some(match target {
        g::TEXTURE_2D | g::TEXTURE_1D | g::TEXTURE_RECTANGLE => g::TEXTURE_2D,
        g::TEXTURE_2D_ARRAY | g::TEXTURE_1D_ARRAY => g::TEXTURE_2D_ARRAY,
        g::TEXTURE_3D => g::TEXTURE_3D,
        g::TEXTURE_CUBE_MAP
        | g::TEXTURE_CUBE_MAP_POSITIVE_X
        | g::TEXTURE_CUBE_MAP_NEGATIVE_X
        | g::TEXTURE_CUBE_MAP_POSITIVE_Y
        | g::TEXTURE_CUBE_MAP_NEGATIVE_Y
        | g::TEXTURE_CUBE_MAP_POSITIVE_Z
        | g::TEXTURE_CUBE_MAP_NEGATIVE_Z => g::TEXTURE_CUBE_MAP,
        g::TEXTURE_CUBE_MAP_ARRAY => g::TEXTURE_CUBE_MAP_ARRAY,
        g::TEXTURE_2D_MULTISAMPLE => g::TEXTURE_2D_MULTISAMPLE,
        g::TEXTURE_2D_MULTISAMPLE_ARRAY => g::TEXTURE_2D_MULTISAMPLE_ARRAY,
        g::TEXTURE_BUFFER => g::TEXTURE_BUFFER,
        _ => return None,
    })
}

/// Image target + extent as GLES sees it: 1D -> 2D with height 1,
/// 1D array -> 2D array (w, 1, layers = height), rectangle -> 2D.
pub fn image_target_and_extent(target: u32, w: u32, h: u32, d: u32) -> Option<(u32, [u32; 3])> {
    Some(match target {
        g::TEXTURE_1D => (g::TEXTURE_2D, [w, 1, 1]),
        g::TEXTURE_1D_ARRAY => (g::TEXTURE_2D_ARRAY, [w, 1, h]),
        g::TEXTURE_RECTANGLE => (g::TEXTURE_2D, [w, h, 1]),
        t => {
            binding_target(t)?;
            (t, [w, h, d])
        }
    })
}

/// True when uploads to this (GLES) target use the 3D entry points.
pub fn is_3d_target(target: u32) -> bool {
    matches!(
        target,
        g::TEXTURE_3D
            | g::TEXTURE_2D_ARRAY
            | g::TEXTURE_CUBE_MAP_ARRAY
            | g::TEXTURE_2D_MULTISAMPLE_ARRAY
    )
}

/// Sampler wrap modes GLES lacks.
/// The texture swizzle a sampler view asks for, as GLES parameters: 0
/// leaves a component at identity, `SWIZZLE_ZERO` selects `GL_ZERO` (which
/// is 0 itself). Emulation: a format without alpha stored with one
/// (`alpha_one`) reads alpha 1 wherever the swizzle selects alpha.
pub fn view_swizzle(swizzle: [u32; 4], alpha_one: bool) -> [u32; 4] {
    let identity = [g::RED, g::GREEN, g::BLUE, g::ALPHA];
    let mut out = [0; 4];
    for i in 0..4 {
        out[i] = match swizzle[i] {
            0 => identity[i],
            mgpipe::consts::SWIZZLE_ZERO => g::ZERO,
            c => c,
        };
        if out[i] == g::ALPHA && alpha_one {
            out[i] = g::ONE;
        }
    }
    out
}

pub fn wrap_mode(w: u32) -> u32 {
    match w {
        g::REPEAT | g::CLAMP_TO_EDGE | g::MIRRORED_REPEAT | g::CLAMP_TO_BORDER => w,
        0 => g::REPEAT,
        _ => g::CLAMP_TO_EDGE, // GL_CLAMP, MIRROR_CLAMP_TO_EDGE, unknown
    }
}

/// Buffer usage hints GLES accepts; storage flags (glBufferStorage) and
/// unknown values become DYNAMIC_DRAW.
pub fn buffer_usage(u: u32) -> u32 {
    match u {
        g::STREAM_DRAW
        | g::STREAM_READ
        | g::STREAM_COPY
        | g::STATIC_DRAW
        | g::STATIC_READ
        | g::STATIC_COPY
        | g::DYNAMIC_DRAW
        | g::DYNAMIC_READ
        | g::DYNAMIC_COPY => u,
        _ => g::DYNAMIC_DRAW,
    }
}

/// Vertex attribute component types GLES 3.2 can fetch.
pub fn vertex_type_supported(ty: u32) -> bool {
    matches!(
        ty,
        g::BYTE
            | g::UNSIGNED_BYTE
            | g::SHORT
            | g::UNSIGNED_SHORT
            | g::INT
            | g::UNSIGNED_INT
            | g::HALF_FLOAT
            | g::FLOAT
            | g::FIXED
            | g::INT_2_10_10_10_REV
            | g::UNSIGNED_INT_2_10_10_10_REV
    )
}

/// Bytes of one vertex attribute element (for stride-0 arrays).
pub fn vertex_element_size(size: u32, ty: u32) -> u32 {
    match ty {
        g::BYTE | g::UNSIGNED_BYTE => size,
        g::SHORT | g::UNSIGNED_SHORT | g::HALF_FLOAT => size * 2,
        g::INT_2_10_10_10_REV | g::UNSIGNED_INT_2_10_10_10_REV => 4,
        _ => size * 4,
    }
}

// ------------------------------------------------------------------ pixels

// The client (format, type) tables and CPU conversions are backend-neutral
// and shared with the Vulkan backend (`mgpipe::pixels`); re-exported under
// their old names for the call sites in this crate.
pub use mgpipe::pixels::{bytes_per_pixel, convert, f16_to_f32, f32_to_f16, image_size};

/// What to read from a colour buffer of `class` so GLES always accepts it.
pub fn readable_pair(class: FormatClass) -> Option<(u32, u32)> {
    match class {
        FormatClass::Unorm => Some((g::RGBA, g::UNSIGNED_BYTE)),
        FormatClass::Float => Some((g::RGBA, g::FLOAT)),
        FormatClass::Int => Some((g::RGBA_INTEGER, g::INT)),
        FormatClass::Uint => Some((g::RGBA_INTEGER, g::UNSIGNED_INT)),
        FormatClass::Depth | FormatClass::DepthStencil | FormatClass::Stencil => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn view_swizzle_keeps_zero_selectors() {
        // ext_texture_swizzle: GL_ZERO arrives as SWIZZLE_ZERO (0: identity).
        let z = mgpipe::consts::SWIZZLE_ZERO;
        let s = [g::ONE, g::GREEN, g::ALPHA, z];
        assert_eq!(
            view_swizzle(s, false),
            [g::ONE, g::GREEN, g::ALPHA, g::ZERO]
        );
        assert_eq!(
            view_swizzle([g::RED, z, g::BLUE, g::ALPHA], true),
            [g::RED, g::ZERO, g::BLUE, g::ONE]
        );
        assert_eq!(
            view_swizzle([0; 4], false),
            [g::RED, g::GREEN, g::BLUE, g::ALPHA]
        );
        assert_eq!(view_swizzle([z; 4], false), [g::ZERO; 4]);
    }

    #[test]
    fn formats_map() {
        assert_eq!(storage_format(g::RGBA8, false).emulation, None);
        assert_eq!(storage_format(g::RGBA, false).internal, g::RGBA8);
        assert_eq!(storage_format(g::RGBA16, false).internal, g::RGBA16F);
        assert_eq!(storage_format(g::RGBA16, true).internal, g::RGBA16);
        assert_eq!(storage_format(0xdead, false).internal, g::RGBA8);
        assert!(upload_accepted(g::RGBA8, g::RGBA, g::UNSIGNED_BYTE));
        assert!(!upload_accepted(g::RGBA8, g::BGRA, g::UNSIGNED_BYTE));
        assert_eq!(bytes_per_pixel(g::RGB, g::UNSIGNED_SHORT_5_6_5), Some(2));
        assert_eq!(image_size(g::RGBA, g::FLOAT, 2, 2, 1), Some(64));
    }

    /// The shared tables name GL enums by their own constants: they must be
    /// the values glow (and so the GLES driver) uses.
    #[test]
    fn shared_pixel_enums_match_glow() {
        use mgpipe::pixels::gl as p;
        let pairs = [
            (p::BYTE, g::BYTE),
            (p::UNSIGNED_BYTE, g::UNSIGNED_BYTE),
            (p::SHORT, g::SHORT),
            (p::UNSIGNED_SHORT, g::UNSIGNED_SHORT),
            (p::INT, g::INT),
            (p::UNSIGNED_INT, g::UNSIGNED_INT),
            (p::FLOAT, g::FLOAT),
            (p::HALF_FLOAT, g::HALF_FLOAT),
            (p::UNSIGNED_BYTE_3_3_2, g::UNSIGNED_BYTE_3_3_2),
            (p::UNSIGNED_SHORT_4_4_4_4, g::UNSIGNED_SHORT_4_4_4_4),
            (p::UNSIGNED_SHORT_5_5_5_1, g::UNSIGNED_SHORT_5_5_5_1),
            (p::UNSIGNED_INT_8_8_8_8, g::UNSIGNED_INT_8_8_8_8),
            (p::UNSIGNED_INT_10_10_10_2, g::UNSIGNED_INT_10_10_10_2),
            (p::UNSIGNED_BYTE_2_3_3_REV, g::UNSIGNED_BYTE_2_3_3_REV),
            (p::UNSIGNED_SHORT_5_6_5, g::UNSIGNED_SHORT_5_6_5),
            (p::UNSIGNED_SHORT_5_6_5_REV, g::UNSIGNED_SHORT_5_6_5_REV),
            (p::UNSIGNED_SHORT_4_4_4_4_REV, g::UNSIGNED_SHORT_4_4_4_4_REV),
            (p::UNSIGNED_SHORT_1_5_5_5_REV, g::UNSIGNED_SHORT_1_5_5_5_REV),
            (p::UNSIGNED_INT_8_8_8_8_REV, g::UNSIGNED_INT_8_8_8_8_REV),
            (
                p::UNSIGNED_INT_2_10_10_10_REV,
                g::UNSIGNED_INT_2_10_10_10_REV,
            ),
            (p::UNSIGNED_INT_24_8, g::UNSIGNED_INT_24_8),
            (
                p::UNSIGNED_INT_10F_11F_11F_REV,
                g::UNSIGNED_INT_10F_11F_11F_REV,
            ),
            (p::UNSIGNED_INT_5_9_9_9_REV, g::UNSIGNED_INT_5_9_9_9_REV),
            (
                p::FLOAT_32_UNSIGNED_INT_24_8_REV,
                g::FLOAT_32_UNSIGNED_INT_24_8_REV,
            ),
            (p::STENCIL_INDEX, g::STENCIL_INDEX),
            (p::DEPTH_COMPONENT, g::DEPTH_COMPONENT),
            (p::RED, g::RED),
            (p::GREEN, g::GREEN),
            (p::BLUE, g::BLUE),
            (p::ALPHA, g::ALPHA),
            (p::RGB, g::RGB),
            (p::RGBA, g::RGBA),
            (p::LUMINANCE, g::LUMINANCE),
            (p::LUMINANCE_ALPHA, g::LUMINANCE_ALPHA),
            (p::BGR, g::BGR),
            (p::BGRA, g::BGRA),
            (p::RG, g::RG),
            (p::RG_INTEGER, g::RG_INTEGER),
            (p::DEPTH_STENCIL, g::DEPTH_STENCIL),
            (p::RED_INTEGER, g::RED_INTEGER),
            (p::GREEN_INTEGER, g::GREEN_INTEGER),
            (p::BLUE_INTEGER, g::BLUE_INTEGER),
            (p::RGB_INTEGER, g::RGB_INTEGER),
            (p::RGBA_INTEGER, g::RGBA_INTEGER),
            (p::BGR_INTEGER, g::BGR_INTEGER),
            (p::BGRA_INTEGER, g::BGRA_INTEGER),
        ];
        for (i, (shared, glow)) in pairs.iter().enumerate() {
            assert_eq!(shared, glow, "pair {i}");
        }
    }

    /// Every pair `readable_pair` asks GLES for can be sized and converted
    /// by the shared tables.
    #[test]
    fn rgb_formats_gles_cannot_render_are_stored_with_alpha() {
        for (desktop, stored) in [
            (g::RGB8UI, g::RGBA8UI),
            (g::RGB16I, g::RGBA16I),
            (g::RGB32UI, g::RGBA32UI),
            (g::RGB16F, g::RGBA16F),
            (g::RGB32F, g::RGBA32F),
            (g::SRGB8, g::SRGB8_ALPHA8),
            (g::RGB9_E5, g::RGBA16F),
        ] {
            let sf = storage_format(desktop, false);
            assert_eq!((sf.internal, sf.alpha_one), (stored, true), "{desktop:#x}");
            assert_eq!(row(sf.internal).map(|r| r.1), Some(sf.format));
        }
        assert_eq!(storage_format(g::RGB16, true).internal, g::RGBA16);
        // RGB10 is stored as RGB10_A2, its alpha kept at 1.
        let sf = storage_format(g::RGB10, false);
        assert_eq!((sf.internal, sf.alpha_one), (g::RGB10_A2, true));
        // Renderable as they are: native, no alpha to keep.
        for f in [g::RGB8, g::RGB565, g::RGBA8UI] {
            assert!(!storage_format(f, false).alpha_one, "{f:#x}");
        }
        // RGB client data gets alpha 1 on its way to the RGBA storage.
        let sf = storage_format(g::RGB8UI, false);
        let v = convert(&[1, 2, 3], g::RGB_INTEGER, UB, sf.format, sf.ty, 1).unwrap();
        assert_eq!(v, [1, 2, 3, 1]);
    }

    #[test]
    fn alpha_forced_to_one_on_read_back() {
        let mut ub = vec![9u8; 8];
        force_alpha_one(&mut ub, g::RGBA, UB);
        assert_eq!(ub, [9, 9, 9, 255, 9, 9, 9, 255]);
        let mut f = vec![0u8; 16];
        force_alpha_one(&mut f, g::RGBA, FL);
        assert_eq!(&f[12..], &1.0f32.to_le_bytes());
        let mut i = vec![0xffu8; 16];
        force_alpha_one(&mut i, g::RGBA_INTEGER, SI);
        assert_eq!(&i[12..], &1i32.to_le_bytes());
        assert_eq!(&i[..4], &[0xff; 4]);
    }

    #[test]
    fn readable_pairs_are_known() {
        for class in [
            FormatClass::Unorm,
            FormatClass::Float,
            FormatClass::Int,
            FormatClass::Uint,
        ] {
            let (f, t) = readable_pair(class).unwrap();
            assert!(bytes_per_pixel(f, t).is_some(), "{class:?}");
            assert!(convert(&[0; 16], f, t, g::RGBA, g::FLOAT, 1).is_some());
        }
    }
}
