//! Every place where desktop GL semantics are emulated on Vulkan, named in
//! one module (DESIGN §5).
//!
//! | emulation | what the backend does |
//! |---|---|
//! | GL's bottom-left origin | images keep GL row order (memory row 0 = GL row 0 = the bottom row / first uploaded row); the viewport keeps a positive height, so NDC y = -1 lands on row 0, `gl_FragCoord` equals GL window coordinates and `read_pixels` copies rows as stored. The winding flips under this mapping, so GL `CCW` is Vulkan `CLOCKWISE` |
//! | 64-bit vertex inputs (`glVertexAttribL*`) on devices without R64 vertex formats (lavapipe) | the vertex stage's `double`/`dvec*`/`dmat*` inputs (and arrays) become private variables filled at entry from `uvec2`/`uvec4` inputs by `OpBitcast` (`spirv::lower_f64_inputs`); each attribute is fetched as `R32G32_UINT` / `R32G32B32A32_UINT` parts, a `dvec3`/`dvec4` as two (location L from its offset, L + 1 from offset + 16); Vulkan's location of every array element / matrix column is fed from GL's attribute (one per element or column) |
//! | `gl_InstanceID` (from 0 in base-instance draws) | a vertex stage reading `InstanceIndex` reads `InstanceIndex - BaseInstance` instead, stored at entry (`spirv::subtract_base_instance`; needs `shaderDrawParameters`, Vulkan 1.1) |
//! | `gl_PointCoord` origin | GL row order makes Vulkan's upper-left point origin GL's lower-left: a fragment stage reading `PointCoord` reads (s, 1 − t) instead (`spirv::flip_point_coord`), GL's default upper-left origin |
//! | GL clip-space depth [-1, 1] | `VK_EXT_depth_clip_control` (`negativeOneToOne`); without it depth is a named gap |
//! | separate texture-unit / UBO / storage-block / image-unit binding namespaces | SPIR-V rewrite (`spirv.rs`): sampled images move to descriptor set 1, storage blocks to set 2, storage images to set 3, UBOs stay in set 0 |
//! | `glDispatchCompute` | `vkCmdDispatch` outside any rendering instance (an open one ends; the next draw begins another), with one compute pipeline per program; a full barrier follows every dispatch, so its writes are visible to later draws, transfers, read-backs and dispatches even without `glMemoryBarrier` |
//! | `glMemoryBarrier` (any bits, by region or not) | ends the open rendering instance (draws inside one are not separated by barriers, so fragment-shader stores of earlier draws become visible to later ones), else a full barrier |
//! | image units | a view of one level (one layer, or every layer when layered) in the unit's format, which must be the texture's storage format; textures whose storage format supports `STORAGE_IMAGE` are made with STORAGE usage; images stay in `GENERAL` |
//! | empty storage-block / image-unit slots the program declares | a zeroed 64 KiB storage buffer / a 1x1 image of the declared type and format (stores land there; loads see zeros until a store) |
//! | 3-component formats (`RGB8`, `RGB16F`, `RGB32F`, `RGB565`, ...) | stored as the 4-component format, alpha written 1 on upload, view swizzle A = ONE |
//! | `RGBA4`, `RGB5_A1`, `R11F_G11F_B10F`, `RGB9_E5`, `RGB10`, small desktop formats | `RGBA8` / `RGBA16F` / `RGB10_A2` storage |
//! | 24-bit depth | `D32_SFLOAT` (or `D32_SFLOAT_S8_UINT`) when the device lacks the 24-bit format |
//! | unsized / compressed internal formats | the uncompressed sized format desktop drivers pick |
//! | client data in another format/type than the storage (`BGRA`, packed types, `FLOAT` into unorm ...) | converted on the CPU at upload |
//! | `glReadPixels` format/type | image copied as stored, converted on the CPU |
//! | stride-0 attribute defaults (disabled arrays) | a 16-byte per-draw buffer bound with stride 0 |
//! | per-attribute GL divisors | one Vulkan binding per attribute; divisor > 1 through `VK_*_vertex_attribute_divisor` |
//! | `GL_LINE_LOOP` | line strip + closing segment via a generated index list |
//! | `GL_UNSIGNED_BYTE` indices without `index_type_uint8` | widened to 16 bits on the CPU (client indices) |
//! | clears | `vkCmdClearAttachments` inside the rendering instance, rectangle = scissor box |
//! | clears under a partial colour mask / stencil write mask | a built-in fullscreen-triangle program (`src/builtin/clear.*`) with the masks baked into its pipeline |
//! | texture levels defined one at a time | the image gets the full mip chain at first definition; a view covers only the levels defined so far |
//!
//! Named gaps: partially colour-masked clears of integer buffers (cleared
//! unmasked, warned), `GL_QUADS`/`GL_POLYGON`, double/fixed/32-bit
//! normalised vertex formats, line loops from buffer-resident indices (drawn
//! as strips), `gl_InstanceID` with a base instance on devices without
//! `shaderDrawParameters` (Vulkan's InstanceIndex includes it), depth-stencil
//! uploads of packed `DEPTH_STENCIL` data, multisampled `read_pixels`
//! resolves only the colour aspect, custom sampler border colours on
//! devices without `VK_EXT_custom_border_color` (only transparent black /
//! opaque black / opaque white; with it, the view swizzle applies to the
//! border colour where `VK_EXT_border_color_swizzle` is there), rectangle samplers,
//! separate depth and stencil images in one framebuffer (stencil dropped),
//! redefining a texture's level 0 with another size/format discards its
//! other levels, transform feedback (no calls in the catalogue yet).
//! Storage buffers/images: an image unit whose format differs from the
//! texture's storage format (GL's reinterpretation by size class would need
//! MUTABLE_FORMAT images), whose texture format cannot be a storage image
//! on the device, or whose storage is emulated in another format than the
//! shader declares (`R11F_G11F_B10F` stored as `RGBA16F`) binds a dummy
//! (warned); so do a single slice of a 3D texture (needs
//! `VK_EXT_image_2d_view_of_3d`) and multisampled images; image buffers
//! (`imageBuffer`) and separate images/samplers are refused at
//! draw/dispatch, and atomic counters are not Vulkan SPIR-V (the frontend
//! must lower them to storage blocks); stores from the
//! vertex, tessellation and geometry stages need
//! `vertexPipelineStoresAndAtomics`, fragment ones `fragmentStoresAndAtomics`,
//! images without a declared format `shaderStorageImage{Read,Write}WithoutFormat`
//! (each enabled when the device has it; otherwise pipeline creation fails
//! and the draw or dispatch is skipped, logged).
//!
//! Limits (caps): compute work-group counts/sizes/invocations and shared
//! memory are the device's (0 when the queue cannot compute); image units =
//! `maxPerStageDescriptorStorageImages` clamped to 8, storage-buffer
//! bindings = `maxPerStageDescriptorStorageBuffers` clamped to 16, storage
//! block size = `maxStorageBufferRange`, storage offset alignment =
//! `minStorageBufferOffsetAlignment`; a storage range beyond
//! `maxStorageBufferRange` is clamped to it (warned once).

use ash::vk;

/// GL enums used here (desktop values).
#[allow(dead_code)]
pub mod gl {
    // The client format/type enums, shared with `mgpipe::pixels`.
    pub use mgpipe::pixels::gl::*;

    pub const SAMPLES_PASSED: u32 = 0x8914;
    pub const ANY_SAMPLES_PASSED: u32 = 0x8C2F;
    pub const ANY_SAMPLES_PASSED_CONSERVATIVE: u32 = 0x8D6A;
    pub const TIME_ELAPSED: u32 = 0x88BF;
    pub const TIMESTAMP: u32 = 0x8E28;
    pub const PRIMITIVES_GENERATED: u32 = 0x8C87;
    pub const TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN: u32 = 0x8C88;
    pub const NONE: u32 = 0;
    /// Image-unit access (`set_shader_images`).
    pub const READ_ONLY: u32 = 0x88B8;
    pub const ZERO: u32 = 0;
    pub const ONE: u32 = 1;
    pub const DOUBLE: u32 = 0x140A;
    pub const FIXED: u32 = 0x140C;
    pub const INT_2_10_10_10_REV: u32 = 0x8D9F;

    pub const R3_G3_B2: u32 = 0x2A10;
    pub const RGB4: u32 = 0x804F;
    pub const RGB5: u32 = 0x8050;
    pub const RGB8: u32 = 0x8051;
    pub const RGB10: u32 = 0x8052;
    pub const RGB12: u32 = 0x8053;
    pub const RGB16: u32 = 0x8054;
    pub const RGBA2: u32 = 0x8055;
    pub const RGBA4: u32 = 0x8056;
    pub const RGB5_A1: u32 = 0x8057;
    pub const RGBA8: u32 = 0x8058;
    pub const RGB10_A2: u32 = 0x8059;
    pub const RGBA12: u32 = 0x805A;
    pub const RGBA16: u32 = 0x805B;
    pub const R8: u32 = 0x8229;
    pub const R16: u32 = 0x822A;
    pub const RG8: u32 = 0x822B;
    pub const RG16: u32 = 0x822C;
    pub const R16F: u32 = 0x822D;
    pub const R32F: u32 = 0x822E;
    pub const RG16F: u32 = 0x822F;
    pub const RG32F: u32 = 0x8230;
    pub const R8I: u32 = 0x8231;
    pub const R8UI: u32 = 0x8232;
    pub const R16I: u32 = 0x8233;
    pub const R16UI: u32 = 0x8234;
    pub const R32I: u32 = 0x8235;
    pub const R32UI: u32 = 0x8236;
    pub const RG8I: u32 = 0x8237;
    pub const RG8UI: u32 = 0x8238;
    pub const RG16I: u32 = 0x8239;
    pub const RG16UI: u32 = 0x823A;
    pub const RG32I: u32 = 0x823B;
    pub const RG32UI: u32 = 0x823C;
    pub const RGBA32F: u32 = 0x8814;
    pub const RGB32F: u32 = 0x8815;
    pub const RGBA16F: u32 = 0x881A;
    pub const RGB16F: u32 = 0x881B;
    pub const R11F_G11F_B10F: u32 = 0x8C3A;
    pub const RGB9_E5: u32 = 0x8C3D;
    pub const SRGB: u32 = 0x8C40;
    pub const SRGB8: u32 = 0x8C41;
    pub const SRGB_ALPHA: u32 = 0x8C42;
    pub const SRGB8_ALPHA8: u32 = 0x8C43;
    pub const RGBA32UI: u32 = 0x8D70;
    pub const RGB32UI: u32 = 0x8D71;
    pub const RGBA16UI: u32 = 0x8D76;
    pub const RGB16UI: u32 = 0x8D77;
    pub const RGBA8UI: u32 = 0x8D7C;
    pub const RGB8UI: u32 = 0x8D7D;
    pub const RGBA32I: u32 = 0x8D82;
    pub const RGB32I: u32 = 0x8D83;
    pub const RGBA16I: u32 = 0x8D88;
    pub const RGB16I: u32 = 0x8D89;
    pub const RGBA8I: u32 = 0x8D8E;
    pub const RGB8I: u32 = 0x8D8F;
    pub const R8_SNORM: u32 = 0x8F94;
    pub const RG8_SNORM: u32 = 0x8F95;
    pub const RGB8_SNORM: u32 = 0x8F96;
    pub const RGBA8_SNORM: u32 = 0x8F97;
    pub const R16_SNORM: u32 = 0x8F98;
    pub const RG16_SNORM: u32 = 0x8F99;
    pub const RGB16_SNORM: u32 = 0x8F9A;
    pub const RGBA16_SNORM: u32 = 0x8F9B;
    pub const RGB10_A2UI: u32 = 0x906F;
    pub const RGB565: u32 = 0x8D62;
    pub const DEPTH_COMPONENT16: u32 = 0x81A5;
    pub const DEPTH_COMPONENT24: u32 = 0x81A6;
    pub const DEPTH_COMPONENT32: u32 = 0x81A7;
    pub const DEPTH_COMPONENT32F: u32 = 0x8CAC;
    pub const DEPTH24_STENCIL8: u32 = 0x88F0;
    pub const DEPTH32F_STENCIL8: u32 = 0x8CAD;
    pub const STENCIL_INDEX8: u32 = 0x8D48;
    pub const STENCIL_INDEX1: u32 = 0x8D46;
    pub const STENCIL_INDEX4: u32 = 0x8D47;
    pub const STENCIL_INDEX16: u32 = 0x8D49;
    pub const COMPRESSED_RED: u32 = 0x8225;
    pub const COMPRESSED_RG: u32 = 0x8226;
    pub const COMPRESSED_RGB: u32 = 0x84ED;
    pub const COMPRESSED_RGBA: u32 = 0x84EE;
    pub const COMPRESSED_SRGB: u32 = 0x8C48;
    pub const COMPRESSED_SRGB_ALPHA: u32 = 0x8C49;

    pub const TEXTURE_1D: u32 = 0x0DE0;
    pub const TEXTURE_2D: u32 = 0x0DE1;
    pub const TEXTURE_3D: u32 = 0x806F;
    pub const TEXTURE_RECTANGLE: u32 = 0x84F5;
    pub const TEXTURE_CUBE_MAP: u32 = 0x8513;
    pub const TEXTURE_CUBE_MAP_POSITIVE_X: u32 = 0x8515;
    pub const TEXTURE_CUBE_MAP_NEGATIVE_Z: u32 = 0x851A;
    pub const TEXTURE_1D_ARRAY: u32 = 0x8C18;
    pub const TEXTURE_2D_ARRAY: u32 = 0x8C1A;
    pub const TEXTURE_CUBE_MAP_ARRAY: u32 = 0x9009;
    pub const TEXTURE_2D_MULTISAMPLE: u32 = 0x9100;
    pub const TEXTURE_2D_MULTISAMPLE_ARRAY: u32 = 0x9102;
    pub const TEXTURE_BUFFER: u32 = 0x8C2A;

    pub const NEAREST: u32 = 0x2600;
    pub const LINEAR: u32 = 0x2601;
    pub const NEAREST_MIPMAP_NEAREST: u32 = 0x2700;
    pub const LINEAR_MIPMAP_NEAREST: u32 = 0x2701;
    pub const NEAREST_MIPMAP_LINEAR: u32 = 0x2702;
    pub const LINEAR_MIPMAP_LINEAR: u32 = 0x2703;
    pub const REPEAT: u32 = 0x2901;
    pub const CLAMP: u32 = 0x2900;
    pub const CLAMP_TO_EDGE: u32 = 0x812F;
    pub const CLAMP_TO_BORDER: u32 = 0x812D;
    pub const MIRRORED_REPEAT: u32 = 0x8370;
    pub const MIRROR_CLAMP_TO_EDGE: u32 = 0x8743;
    pub const COMPARE_REF_TO_TEXTURE: u32 = 0x884E;

    pub const RED_SWZ: u32 = 0x1903;
    pub const GREEN_SWZ: u32 = 0x1904;
    pub const BLUE_SWZ: u32 = 0x1905;
    pub const ALPHA_SWZ: u32 = 0x1906;
    pub const STENCIL_INDEX_MODE: u32 = 0x1901;

    pub const NEVER: u32 = 0x0200;
    pub const ALWAYS: u32 = 0x0207;
    pub const LESS: u32 = 0x0201;
    pub const LEQUAL: u32 = 0x0203;
    pub const KEEP: u32 = 0x1E00;
    pub const REPLACE: u32 = 0x1E01;
    pub const INCR: u32 = 0x1E02;
    pub const DECR: u32 = 0x1E03;
    pub const INVERT: u32 = 0x150A;
    pub const INCR_WRAP: u32 = 0x8507;
    pub const DECR_WRAP: u32 = 0x8508;
    pub const FRONT: u32 = 0x0404;
    pub const BACK: u32 = 0x0405;
    pub const FRONT_AND_BACK: u32 = 0x0408;
    pub const CW: u32 = 0x0900;
    pub const CCW: u32 = 0x0901;
    pub const POINT: u32 = 0x1B00;
    pub const LINE: u32 = 0x1B01;
    pub const FILL: u32 = 0x1B02;

    pub const SRC_COLOR: u32 = 0x0300;
    pub const ONE_MINUS_SRC_COLOR: u32 = 0x0301;
    pub const SRC_ALPHA: u32 = 0x0302;
    pub const ONE_MINUS_SRC_ALPHA: u32 = 0x0303;
    pub const DST_ALPHA: u32 = 0x0304;
    pub const ONE_MINUS_DST_ALPHA: u32 = 0x0305;
    pub const DST_COLOR: u32 = 0x0306;
    pub const ONE_MINUS_DST_COLOR: u32 = 0x0307;
    pub const SRC_ALPHA_SATURATE: u32 = 0x0308;
    pub const CONSTANT_COLOR: u32 = 0x8001;
    pub const ONE_MINUS_CONSTANT_COLOR: u32 = 0x8002;
    pub const CONSTANT_ALPHA: u32 = 0x8003;
    pub const ONE_MINUS_CONSTANT_ALPHA: u32 = 0x8004;
    pub const SRC1_ALPHA: u32 = 0x8589;
    pub const SRC1_COLOR: u32 = 0x88F9;
    pub const ONE_MINUS_SRC1_COLOR: u32 = 0x88FA;
    pub const ONE_MINUS_SRC1_ALPHA: u32 = 0x88FB;
    pub const FUNC_ADD: u32 = 0x8006;
    pub const MIN: u32 = 0x8007;
    pub const MAX: u32 = 0x8008;
    pub const FUNC_SUBTRACT: u32 = 0x800A;
    pub const FUNC_REVERSE_SUBTRACT: u32 = 0x800B;

    pub const POINTS: u32 = 0;
    pub const LINES: u32 = 1;
    pub const LINE_LOOP: u32 = 2;
    pub const LINE_STRIP: u32 = 3;
    pub const TRIANGLES: u32 = 4;
    pub const TRIANGLE_STRIP: u32 = 5;
    pub const TRIANGLE_FAN: u32 = 6;
    pub const LINES_ADJACENCY: u32 = 0xA;
    pub const LINE_STRIP_ADJACENCY: u32 = 0xB;
    pub const TRIANGLES_ADJACENCY: u32 = 0xC;
    pub const TRIANGLE_STRIP_ADJACENCY: u32 = 0xD;
    pub const PATCHES: u32 = 0xE;

    pub const COLOR_BUFFER_BIT: u32 = 0x4000;
    pub const DEPTH_BUFFER_BIT: u32 = 0x100;
    pub const STENCIL_BUFFER_BIT: u32 = 0x400;
}

/// Sample class of a storage format.
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

impl FormatClass {
    pub fn has_depth(self) -> bool {
        matches!(self, FormatClass::Depth | FormatClass::DepthStencil)
    }
    pub fn has_stencil(self) -> bool {
        matches!(self, FormatClass::DepthStencil | FormatClass::Stencil)
    }
    pub fn is_color(self) -> bool {
        !self.has_depth() && !self.has_stencil()
    }
    pub fn is_integer(self) -> bool {
        matches!(self, FormatClass::Int | FormatClass::Uint)
    }
}

/// How one GL internal format is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StorageFormat {
    pub vk: vk::Format,
    /// The GL client format/type whose bytes equal one stored texel.
    pub format: u32,
    pub ty: u32,
    pub class: FormatClass,
    /// The GL format has no alpha (the view swizzles A to ONE).
    pub alpha_one: bool,
    /// The emulation applied, for logs (None: native).
    pub emulation: Option<&'static str>,
}

use gl as g;
use vk::Format as F;

type Row = (u32, F, u32, u32, FormatClass);

use mgpipe::pixels::{FL, HF, SB, SI, SS, UB, UI, US};

/// Native rows: GL sized format -> Vulkan format with the same texel bytes.
const NATIVE: &[Row] = &[
    (g::R8, F::R8_UNORM, g::RED, UB, FormatClass::Unorm),
    (g::R8_SNORM, F::R8_SNORM, g::RED, SB, FormatClass::Unorm),
    (g::R16, F::R16_UNORM, g::RED, US, FormatClass::Unorm),
    (g::R16_SNORM, F::R16_SNORM, g::RED, SS, FormatClass::Unorm),
    (g::R16F, F::R16_SFLOAT, g::RED, HF, FormatClass::Float),
    (g::R32F, F::R32_SFLOAT, g::RED, FL, FormatClass::Float),
    (g::R8UI, F::R8_UINT, g::RED_INTEGER, UB, FormatClass::Uint),
    (g::R8I, F::R8_SINT, g::RED_INTEGER, SB, FormatClass::Int),
    (g::R16UI, F::R16_UINT, g::RED_INTEGER, US, FormatClass::Uint),
    (g::R16I, F::R16_SINT, g::RED_INTEGER, SS, FormatClass::Int),
    (g::R32UI, F::R32_UINT, g::RED_INTEGER, UI, FormatClass::Uint),
    (g::R32I, F::R32_SINT, g::RED_INTEGER, SI, FormatClass::Int),
    (g::RG8, F::R8G8_UNORM, g::RG, UB, FormatClass::Unorm),
    (g::RG8_SNORM, F::R8G8_SNORM, g::RG, SB, FormatClass::Unorm),
    (g::RG16, F::R16G16_UNORM, g::RG, US, FormatClass::Unorm),
    (
        g::RG16_SNORM,
        F::R16G16_SNORM,
        g::RG,
        SS,
        FormatClass::Unorm,
    ),
    (g::RG16F, F::R16G16_SFLOAT, g::RG, HF, FormatClass::Float),
    (g::RG32F, F::R32G32_SFLOAT, g::RG, FL, FormatClass::Float),
    (g::RG8UI, F::R8G8_UINT, g::RG_INTEGER, UB, FormatClass::Uint),
    (g::RG8I, F::R8G8_SINT, g::RG_INTEGER, SB, FormatClass::Int),
    (
        g::RG16UI,
        F::R16G16_UINT,
        g::RG_INTEGER,
        US,
        FormatClass::Uint,
    ),
    (
        g::RG16I,
        F::R16G16_SINT,
        g::RG_INTEGER,
        SS,
        FormatClass::Int,
    ),
    (
        g::RG32UI,
        F::R32G32_UINT,
        g::RG_INTEGER,
        UI,
        FormatClass::Uint,
    ),
    (
        g::RG32I,
        F::R32G32_SINT,
        g::RG_INTEGER,
        SI,
        FormatClass::Int,
    ),
    (g::RGBA8, F::R8G8B8A8_UNORM, g::RGBA, UB, FormatClass::Unorm),
    (
        g::SRGB8_ALPHA8,
        F::R8G8B8A8_SRGB,
        g::RGBA,
        UB,
        FormatClass::Unorm,
    ),
    (
        g::RGBA8_SNORM,
        F::R8G8B8A8_SNORM,
        g::RGBA,
        SB,
        FormatClass::Unorm,
    ),
    (
        g::RGBA16,
        F::R16G16B16A16_UNORM,
        g::RGBA,
        US,
        FormatClass::Unorm,
    ),
    (
        g::RGBA16_SNORM,
        F::R16G16B16A16_SNORM,
        g::RGBA,
        SS,
        FormatClass::Unorm,
    ),
    (
        g::RGBA16F,
        F::R16G16B16A16_SFLOAT,
        g::RGBA,
        HF,
        FormatClass::Float,
    ),
    (
        g::RGBA32F,
        F::R32G32B32A32_SFLOAT,
        g::RGBA,
        FL,
        FormatClass::Float,
    ),
    (
        g::RGBA8UI,
        F::R8G8B8A8_UINT,
        g::RGBA_INTEGER,
        UB,
        FormatClass::Uint,
    ),
    (
        g::RGBA8I,
        F::R8G8B8A8_SINT,
        g::RGBA_INTEGER,
        SB,
        FormatClass::Int,
    ),
    (
        g::RGBA16UI,
        F::R16G16B16A16_UINT,
        g::RGBA_INTEGER,
        US,
        FormatClass::Uint,
    ),
    (
        g::RGBA16I,
        F::R16G16B16A16_SINT,
        g::RGBA_INTEGER,
        SS,
        FormatClass::Int,
    ),
    (
        g::RGBA32UI,
        F::R32G32B32A32_UINT,
        g::RGBA_INTEGER,
        UI,
        FormatClass::Uint,
    ),
    (
        g::RGBA32I,
        F::R32G32B32A32_SINT,
        g::RGBA_INTEGER,
        SI,
        FormatClass::Int,
    ),
    (
        g::RGB10_A2,
        F::A2B10G10R10_UNORM_PACK32,
        g::RGBA,
        g::UNSIGNED_INT_2_10_10_10_REV,
        FormatClass::Unorm,
    ),
    (
        g::RGB10_A2UI,
        F::A2B10G10R10_UINT_PACK32,
        g::RGBA_INTEGER,
        g::UNSIGNED_INT_2_10_10_10_REV,
        FormatClass::Uint,
    ),
    (
        g::DEPTH_COMPONENT16,
        F::D16_UNORM,
        g::DEPTH_COMPONENT,
        US,
        FormatClass::Depth,
    ),
    (
        g::DEPTH_COMPONENT32F,
        F::D32_SFLOAT,
        g::DEPTH_COMPONENT,
        FL,
        FormatClass::Depth,
    ),
    (
        g::DEPTH32F_STENCIL8,
        F::D32_SFLOAT_S8_UINT,
        g::DEPTH_STENCIL,
        g::FLOAT_32_UNSIGNED_INT_24_8_REV,
        FormatClass::DepthStencil,
    ),
    (
        g::STENCIL_INDEX8,
        F::S8_UINT,
        g::STENCIL_INDEX,
        UB,
        FormatClass::Stencil,
    ),
];

/// Emulated rows: GL format -> (native GL row it is stored as, alpha one, why).
fn emulated(internal: u32) -> (u32, bool, &'static str) {
    match internal {
        g::RGB8 | g::RGB | 3 => (g::RGBA8, true, "RGB8 stored as RGBA8"),
        g::SRGB8 | g::SRGB => (g::SRGB8_ALPHA8, true, "SRGB8 stored as SRGB8_ALPHA8"),
        g::RGB8_SNORM => (g::RGBA8_SNORM, true, "RGB8_SNORM stored as RGBA8_SNORM"),
        g::RGB16 | g::RGB12 => (g::RGBA16, true, "RGB16 stored as RGBA16"),
        g::RGB16_SNORM => (g::RGBA16_SNORM, true, "RGB16_SNORM stored as RGBA16_SNORM"),
        g::RGB16F => (g::RGBA16F, true, "RGB16F stored as RGBA16F"),
        g::RGB32F => (g::RGBA32F, true, "RGB32F stored as RGBA32F"),
        g::R11F_G11F_B10F | g::RGB9_E5 => (g::RGBA16F, true, "packed float RGB stored as RGBA16F"),
        g::RGB8UI => (g::RGBA8UI, true, "RGB8UI stored as RGBA8UI"),
        g::RGB8I => (g::RGBA8I, true, "RGB8I stored as RGBA8I"),
        g::RGB16UI => (g::RGBA16UI, true, "RGB16UI stored as RGBA16UI"),
        g::RGB16I => (g::RGBA16I, true, "RGB16I stored as RGBA16I"),
        g::RGB32UI => (g::RGBA32UI, true, "RGB32UI stored as RGBA32UI"),
        g::RGB32I => (g::RGBA32I, true, "RGB32I stored as RGBA32I"),
        g::RGB565 | g::RGB5 | g::RGB4 | g::R3_G3_B2 => {
            (g::RGBA8, true, "small RGB format stored as RGBA8")
        }
        g::RGB10 => (g::RGB10_A2, true, "RGB10 stored as RGB10_A2"),
        g::RGBA4 | g::RGB5_A1 | g::RGBA2 => (g::RGBA8, false, "small RGBA format stored as RGBA8"),
        g::RGBA12 => (g::RGBA16, false, "RGBA12 stored as RGBA16"),
        g::RGBA | 4 => (g::RGBA8, false, "unsized RGBA"),
        g::RG | 2 => (g::RG8, false, "unsized RG"),
        g::RED | 1 => (g::R8, false, "unsized RED"),
        g::SRGB_ALPHA => (g::SRGB8_ALPHA8, false, "unsized sRGB"),
        g::DEPTH_COMPONENT | g::DEPTH_COMPONENT24 | g::DEPTH_COMPONENT32 => (
            g::DEPTH_COMPONENT32F,
            false,
            "24/32-bit unorm depth stored as D32_SFLOAT",
        ),
        g::DEPTH_STENCIL | g::DEPTH24_STENCIL8 => (
            g::DEPTH32F_STENCIL8,
            false,
            "DEPTH24_STENCIL8 stored as D32_SFLOAT_S8_UINT",
        ),
        g::STENCIL_INDEX | g::STENCIL_INDEX1 | g::STENCIL_INDEX4 | g::STENCIL_INDEX16 => {
            (g::STENCIL_INDEX8, false, "stencil size")
        }
        g::COMPRESSED_RGBA => (g::RGBA8, false, "compressed format stored uncompressed"),
        g::COMPRESSED_RGB => (g::RGBA8, true, "compressed format stored uncompressed"),
        g::COMPRESSED_RED => (g::R8, false, "compressed format stored uncompressed"),
        g::COMPRESSED_RG => (g::RG8, false, "compressed format stored uncompressed"),
        g::COMPRESSED_SRGB | g::COMPRESSED_SRGB_ALPHA => (
            g::SRGB8_ALPHA8,
            false,
            "compressed format stored uncompressed",
        ),
        // S3TC / RGTC / BPTC: the frontend hands uncompressed data.
        0x83F0..=0x83F3 | 0x8C4C..=0x8C4F => (g::RGBA8, false, "S3TC stored uncompressed"),
        0x8DBB | 0x8DBC => (g::R8, false, "RGTC stored uncompressed"),
        0x8DBD | 0x8DBE => (g::RG8, false, "RGTC stored uncompressed"),
        0x8E8C | 0x8E8D => (g::RGBA8, false, "BPTC stored uncompressed"),
        0x8E8E | 0x8E8F => (g::RGBA16F, false, "BPTC float stored uncompressed"),
        _ => (g::RGBA8, false, "unknown internal format, RGBA8 fallback"),
    }
}

fn native_row(internal: u32) -> Option<&'static Row> {
    NATIVE.iter().find(|r| r.0 == internal)
}

fn from_row(r: &Row, alpha_one: bool, emulation: Option<&'static str>) -> StorageFormat {
    StorageFormat {
        vk: r.1,
        format: r.2,
        ty: r.3,
        class: r.4,
        alpha_one,
        emulation,
    }
}

/// Map a desktop GL internal format to what we store. `supported(vk, class)`
/// says whether the device can use a Vulkan format for that class of use;
/// depth formats fall back D32S8 <-> D24S8, S8 -> a depth-stencil format.
pub fn storage_format(
    internal: u32,
    supported: &dyn Fn(vk::Format, FormatClass) -> bool,
) -> StorageFormat {
    let mut sf = match native_row(internal) {
        Some(r) => from_row(r, false, None),
        None => {
            let (to, a1, why) = emulated(internal);
            match native_row(to) {
                Some(r) => from_row(r, a1, Some(why)),
                None => from_row(native_row(g::RGBA8).unwrap_or(&NATIVE[0]), false, Some(why)),
            }
        }
    };
    if !supported(sf.vk, sf.class) {
        let alt: &[(vk::Format, u32, u32)] = match sf.class {
            FormatClass::DepthStencil => {
                &[(F::D24_UNORM_S8_UINT, g::DEPTH_STENCIL, g::UNSIGNED_INT_24_8)]
            }
            FormatClass::Stencil => &[
                (F::D24_UNORM_S8_UINT, g::DEPTH_STENCIL, g::UNSIGNED_INT_24_8),
                (
                    F::D32_SFLOAT_S8_UINT,
                    g::DEPTH_STENCIL,
                    g::FLOAT_32_UNSIGNED_INT_24_8_REV,
                ),
            ],
            FormatClass::Depth => &[
                (F::D32_SFLOAT, g::DEPTH_COMPONENT, FL),
                (F::X8_D24_UNORM_PACK32, g::DEPTH_COMPONENT, UI),
            ],
            _ => &[],
        };
        for &(f, fmt, ty) in alt {
            let class = if f == F::D32_SFLOAT || f == F::X8_D24_UNORM_PACK32 {
                FormatClass::Depth
            } else {
                FormatClass::DepthStencil
            };
            if supported(f, class) {
                sf.vk = f;
                sf.format = fmt;
                sf.ty = ty;
                sf.class = class;
                sf.emulation = Some("depth/stencil format fallback");
                break;
            }
        }
    }
    sf
}

/// The Vulkan format of a buffer texture's texels (`glTexBuffer`'s
/// internal formats, GL 4.6 table 8.16: the frontend accepts no others),
/// read through a uniform texel buffer view. Unlike images, the
/// 3-component 32-bit formats are used as they are (buffer views of them
/// are common where images of them are not).
pub fn texel_buffer_format(internal: u32) -> Option<vk::Format> {
    match internal {
        g::RGB32F => Some(F::R32G32B32_SFLOAT),
        g::RGB32I => Some(F::R32G32B32_SINT),
        g::RGB32UI => Some(F::R32G32B32_UINT),
        _ => native_row(internal).map(|r| r.1),
    }
}

/// Whether `internal` is a format GL accepts for an image unit
/// (`glBindImageTexture`: the formats of GL 4.6 table 8.26).
pub fn is_image_unit_format(internal: u32) -> bool {
    (1..=39).any(|f| spirv_image_format(f) == Some(internal))
}

/// The GL sized internal format of a SPIR-V storage-image format (the
/// `Image Format` operand of `OpTypeImage`; 0, Unknown, gives None).
pub fn spirv_image_format(f: u32) -> Option<u32> {
    Some(match f {
        1 => g::RGBA32F,
        2 => g::RGBA16F,
        3 => g::R32F,
        4 => g::RGBA8,
        5 => g::RGBA8_SNORM,
        6 => g::RG32F,
        7 => g::RG16F,
        8 => g::R11F_G11F_B10F,
        9 => g::R16F,
        10 => g::RGBA16,
        11 => g::RGB10_A2,
        12 => g::RG16,
        13 => g::RG8,
        14 => g::R16,
        15 => g::R8,
        16 => g::RGBA16_SNORM,
        17 => g::RG16_SNORM,
        18 => g::RG8_SNORM,
        19 => g::R16_SNORM,
        20 => g::R8_SNORM,
        21 => g::RGBA32I,
        22 => g::RGBA16I,
        23 => g::RGBA8I,
        24 => g::R32I,
        25 => g::RG32I,
        26 => g::RG16I,
        27 => g::RG8I,
        28 => g::R16I,
        29 => g::R8I,
        30 => g::RGBA32UI,
        31 => g::RGBA16UI,
        32 => g::RGBA8UI,
        33 => g::R32UI,
        34 => g::RGB10_A2UI,
        35 => g::RG32UI,
        36 => g::RG16UI,
        37 => g::RG8UI,
        38 => g::R16UI,
        39 => g::R8UI,
        _ => return None,
    })
}

/// Image aspect of a storage class.
pub fn aspect(class: FormatClass) -> vk::ImageAspectFlags {
    match class {
        FormatClass::Depth => vk::ImageAspectFlags::DEPTH,
        FormatClass::DepthStencil => vk::ImageAspectFlags::DEPTH | vk::ImageAspectFlags::STENCIL,
        FormatClass::Stencil => vk::ImageAspectFlags::STENCIL,
        _ => vk::ImageAspectFlags::COLOR,
    }
}

/// Bytes per texel of a storage format as copied to/from buffers for one
/// aspect (depth of D32S8 copies as 4 bytes, stencil as 1).
pub fn copy_texel_size(f: vk::Format, asp: vk::ImageAspectFlags) -> u32 {
    if asp == vk::ImageAspectFlags::STENCIL {
        return 1;
    }
    match f {
        F::R8_UNORM | F::R8_SNORM | F::R8_UINT | F::R8_SINT | F::S8_UINT => 1,
        F::R8G8_UNORM | F::R8G8_SNORM | F::R8G8_UINT | F::R8G8_SINT => 2,
        F::R16_UNORM | F::R16_SNORM | F::R16_SFLOAT | F::R16_UINT | F::R16_SINT | F::D16_UNORM => 2,
        F::R16G16_UNORM
        | F::R16G16_SNORM
        | F::R16G16_SFLOAT
        | F::R16G16_UINT
        | F::R16G16_SINT
        | F::R32_SFLOAT
        | F::R32_UINT
        | F::R32_SINT
        | F::R8G8B8A8_UNORM
        | F::R8G8B8A8_SRGB
        | F::R8G8B8A8_SNORM
        | F::R8G8B8A8_UINT
        | F::R8G8B8A8_SINT
        | F::A2B10G10R10_UNORM_PACK32
        | F::A2B10G10R10_UINT_PACK32
        | F::D32_SFLOAT
        | F::X8_D24_UNORM_PACK32
        | F::D32_SFLOAT_S8_UINT
        | F::D24_UNORM_S8_UINT => 4,
        F::R16G16B16A16_UNORM
        | F::R16G16B16A16_SNORM
        | F::R16G16B16A16_SFLOAT
        | F::R16G16B16A16_UINT
        | F::R16G16B16A16_SINT
        | F::R32G32_SFLOAT
        | F::R32G32_UINT
        | F::R32G32_SINT => 8,
        F::R32G32B32A32_SFLOAT | F::R32G32B32A32_UINT | F::R32G32B32A32_SINT => 16,
        _ => 4,
    }
}

/// Image type, view type and layer count for a GL texture target.
pub fn texture_shape(target: u32) -> Option<(vk::ImageType, vk::ImageViewType)> {
    Some(match target {
        g::TEXTURE_1D => (vk::ImageType::TYPE_1D, vk::ImageViewType::TYPE_1D),
        g::TEXTURE_1D_ARRAY => (vk::ImageType::TYPE_1D, vk::ImageViewType::TYPE_1D_ARRAY),
        g::TEXTURE_2D | g::TEXTURE_RECTANGLE | g::TEXTURE_2D_MULTISAMPLE => {
            (vk::ImageType::TYPE_2D, vk::ImageViewType::TYPE_2D)
        }
        g::TEXTURE_2D_ARRAY | g::TEXTURE_2D_MULTISAMPLE_ARRAY => {
            (vk::ImageType::TYPE_2D, vk::ImageViewType::TYPE_2D_ARRAY)
        }
        g::TEXTURE_3D => (vk::ImageType::TYPE_3D, vk::ImageViewType::TYPE_3D),
        g::TEXTURE_CUBE_MAP | g::TEXTURE_CUBE_MAP_POSITIVE_X..=g::TEXTURE_CUBE_MAP_NEGATIVE_Z => {
            (vk::ImageType::TYPE_2D, vk::ImageViewType::CUBE)
        }
        g::TEXTURE_CUBE_MAP_ARRAY => (vk::ImageType::TYPE_2D, vk::ImageViewType::CUBE_ARRAY),
        _ => return None,
    })
}

/// The texture (binding) target of an image target: cube faces -> cube map.
pub fn binding_target(target: u32) -> u32 {
    match target {
        g::TEXTURE_CUBE_MAP_POSITIVE_X..=g::TEXTURE_CUBE_MAP_NEGATIVE_Z => g::TEXTURE_CUBE_MAP,
        t => t,
    }
}

/// (extent, layer count) of level 0 for a GL (width, height, depth) of `target`.
pub fn extent_and_layers(target: u32, w: u32, h: u32, d: u32) -> (vk::Extent3D, u32) {
    let e = |w: u32, h: u32, d: u32| vk::Extent3D {
        width: w.max(1),
        height: h.max(1),
        depth: d.max(1),
    };
    match target {
        g::TEXTURE_1D => (e(w, 1, 1), 1),
        g::TEXTURE_1D_ARRAY => (e(w, 1, 1), h.max(1)),
        g::TEXTURE_3D => (e(w, h, d), 1),
        g::TEXTURE_2D_ARRAY | g::TEXTURE_2D_MULTISAMPLE_ARRAY => (e(w, h, 1), d.max(1)),
        g::TEXTURE_CUBE_MAP_ARRAY => (e(w, h, 1), d.max(6)),
        g::TEXTURE_CUBE_MAP | g::TEXTURE_CUBE_MAP_POSITIVE_X..=g::TEXTURE_CUBE_MAP_NEGATIVE_Z => {
            (e(w, h, 1), 6)
        }
        _ => (e(w, h, 1), 1),
    }
}

/// Number of levels in a full mip chain.
pub fn full_chain(e: vk::Extent3D) -> u32 {
    let m = e.width.max(e.height).max(e.depth).max(1);
    32 - m.leading_zeros()
}

pub fn compare_op(f: u32) -> vk::CompareOp {
    if (g::NEVER..=g::ALWAYS).contains(&f) {
        vk::CompareOp::from_raw((f - g::NEVER) as i32)
    } else {
        vk::CompareOp::ALWAYS
    }
}

pub fn stencil_op(op: u32) -> vk::StencilOp {
    match op {
        g::ZERO => vk::StencilOp::ZERO,
        g::REPLACE => vk::StencilOp::REPLACE,
        g::INCR => vk::StencilOp::INCREMENT_AND_CLAMP,
        g::DECR => vk::StencilOp::DECREMENT_AND_CLAMP,
        g::INVERT => vk::StencilOp::INVERT,
        g::INCR_WRAP => vk::StencilOp::INCREMENT_AND_WRAP,
        g::DECR_WRAP => vk::StencilOp::DECREMENT_AND_WRAP,
        _ => vk::StencilOp::KEEP,
    }
}

pub fn blend_factor(f: u32) -> vk::BlendFactor {
    use vk::BlendFactor as B;
    match f {
        g::ZERO => B::ZERO,
        g::ONE => B::ONE,
        g::SRC_COLOR => B::SRC_COLOR,
        g::ONE_MINUS_SRC_COLOR => B::ONE_MINUS_SRC_COLOR,
        g::SRC_ALPHA => B::SRC_ALPHA,
        g::ONE_MINUS_SRC_ALPHA => B::ONE_MINUS_SRC_ALPHA,
        g::DST_ALPHA => B::DST_ALPHA,
        g::ONE_MINUS_DST_ALPHA => B::ONE_MINUS_DST_ALPHA,
        g::DST_COLOR => B::DST_COLOR,
        g::ONE_MINUS_DST_COLOR => B::ONE_MINUS_DST_COLOR,
        g::SRC_ALPHA_SATURATE => B::SRC_ALPHA_SATURATE,
        g::CONSTANT_COLOR => B::CONSTANT_COLOR,
        g::ONE_MINUS_CONSTANT_COLOR => B::ONE_MINUS_CONSTANT_COLOR,
        g::CONSTANT_ALPHA => B::CONSTANT_ALPHA,
        g::ONE_MINUS_CONSTANT_ALPHA => B::ONE_MINUS_CONSTANT_ALPHA,
        g::SRC1_COLOR => B::SRC1_COLOR,
        g::ONE_MINUS_SRC1_COLOR => B::ONE_MINUS_SRC1_COLOR,
        g::SRC1_ALPHA => B::SRC1_ALPHA,
        g::ONE_MINUS_SRC1_ALPHA => B::ONE_MINUS_SRC1_ALPHA,
        _ => B::ONE,
    }
}

pub fn blend_op(e: u32) -> vk::BlendOp {
    match e {
        g::FUNC_SUBTRACT => vk::BlendOp::SUBTRACT,
        g::FUNC_REVERSE_SUBTRACT => vk::BlendOp::REVERSE_SUBTRACT,
        g::MIN => vk::BlendOp::MIN,
        g::MAX => vk::BlendOp::MAX,
        _ => vk::BlendOp::ADD,
    }
}

/// Vulkan topology for a GL primitive mode (line loops are drawn as strips,
/// see `draw`). None: not expressible (quads, polygons, unknown).
pub fn topology(mode: u32) -> Option<vk::PrimitiveTopology> {
    use vk::PrimitiveTopology as T;
    Some(match mode {
        g::POINTS => T::POINT_LIST,
        g::LINES => T::LINE_LIST,
        g::LINE_LOOP | g::LINE_STRIP => T::LINE_STRIP,
        g::TRIANGLES => T::TRIANGLE_LIST,
        g::TRIANGLE_STRIP => T::TRIANGLE_STRIP,
        g::TRIANGLE_FAN => T::TRIANGLE_FAN,
        g::LINES_ADJACENCY => T::LINE_LIST_WITH_ADJACENCY,
        g::LINE_STRIP_ADJACENCY => T::LINE_STRIP_WITH_ADJACENCY,
        g::TRIANGLES_ADJACENCY => T::TRIANGLE_LIST_WITH_ADJACENCY,
        g::TRIANGLE_STRIP_ADJACENCY => T::TRIANGLE_STRIP_WITH_ADJACENCY,
        g::PATCHES => T::PATCH_LIST,
        _ => return None,
    })
}

pub fn is_strip_topology(t: vk::PrimitiveTopology) -> bool {
    use vk::PrimitiveTopology as T;
    matches!(
        t,
        T::LINE_STRIP
            | T::TRIANGLE_STRIP
            | T::TRIANGLE_FAN
            | T::LINE_STRIP_WITH_ADJACENCY
            | T::TRIANGLE_STRIP_WITH_ADJACENCY
    )
}

/// Vertex attribute format: `format` = size | (GL type << 8) | VE_* bits.
pub fn vertex_format(fmt: u32) -> Option<vk::Format> {
    use mgpipe::consts::{VE_INTEGER, VE_NORMALIZED};
    let size = fmt & 0xff;
    let ty = (fmt >> 8) & 0xffff;
    let norm = fmt & VE_NORMALIZED != 0;
    let int = fmt & VE_INTEGER != 0;
    let pick = |v: [F; 4]| -> Option<F> {
        match size {
            1..=4 => Some(v[size as usize - 1]),
            _ => None,
        }
    };
    // GL_BGRA as a size (ARB_vertex_array_bgra).
    if size == g::BGRA & 0xff {
        return (ty == UB && norm).then_some(F::B8G8R8A8_UNORM);
    }
    match (ty, int, norm) {
        (FL, false, _) => pick([
            F::R32_SFLOAT,
            F::R32G32_SFLOAT,
            F::R32G32B32_SFLOAT,
            F::R32G32B32A32_SFLOAT,
        ]),
        (HF, false, _) => pick([
            F::R16_SFLOAT,
            F::R16G16_SFLOAT,
            F::R16G16B16_SFLOAT,
            F::R16G16B16A16_SFLOAT,
        ]),
        (UB, true, _) => pick([F::R8_UINT, F::R8G8_UINT, F::R8G8B8_UINT, F::R8G8B8A8_UINT]),
        (UB, false, true) => pick([
            F::R8_UNORM,
            F::R8G8_UNORM,
            F::R8G8B8_UNORM,
            F::R8G8B8A8_UNORM,
        ]),
        (UB, false, false) => pick([
            F::R8_USCALED,
            F::R8G8_USCALED,
            F::R8G8B8_USCALED,
            F::R8G8B8A8_USCALED,
        ]),
        (SB, true, _) => pick([F::R8_SINT, F::R8G8_SINT, F::R8G8B8_SINT, F::R8G8B8A8_SINT]),
        (SB, false, true) => pick([
            F::R8_SNORM,
            F::R8G8_SNORM,
            F::R8G8B8_SNORM,
            F::R8G8B8A8_SNORM,
        ]),
        (SB, false, false) => pick([
            F::R8_SSCALED,
            F::R8G8_SSCALED,
            F::R8G8B8_SSCALED,
            F::R8G8B8A8_SSCALED,
        ]),
        (US, true, _) => pick([
            F::R16_UINT,
            F::R16G16_UINT,
            F::R16G16B16_UINT,
            F::R16G16B16A16_UINT,
        ]),
        (US, false, true) => pick([
            F::R16_UNORM,
            F::R16G16_UNORM,
            F::R16G16B16_UNORM,
            F::R16G16B16A16_UNORM,
        ]),
        (US, false, false) => pick([
            F::R16_USCALED,
            F::R16G16_USCALED,
            F::R16G16B16_USCALED,
            F::R16G16B16A16_USCALED,
        ]),
        (SS, true, _) => pick([
            F::R16_SINT,
            F::R16G16_SINT,
            F::R16G16B16_SINT,
            F::R16G16B16A16_SINT,
        ]),
        (SS, false, true) => pick([
            F::R16_SNORM,
            F::R16G16_SNORM,
            F::R16G16B16_SNORM,
            F::R16G16B16A16_SNORM,
        ]),
        (SS, false, false) => pick([
            F::R16_SSCALED,
            F::R16G16_SSCALED,
            F::R16G16B16_SSCALED,
            F::R16G16B16A16_SSCALED,
        ]),
        (UI, true, _) => pick([
            F::R32_UINT,
            F::R32G32_UINT,
            F::R32G32B32_UINT,
            F::R32G32B32A32_UINT,
        ]),
        (SI, true, _) => pick([
            F::R32_SINT,
            F::R32G32_SINT,
            F::R32G32B32_SINT,
            F::R32G32B32A32_SINT,
        ]),
        // glVertexAttribLPointer: 64-bit inputs, no conversion.
        (g::DOUBLE, true, _) => pick([
            F::R64_SFLOAT,
            F::R64G64_SFLOAT,
            F::R64G64B64_SFLOAT,
            F::R64G64B64A64_SFLOAT,
        ]),
        (g::UNSIGNED_INT_2_10_10_10_REV, false, true) => Some(F::A2B10G10R10_UNORM_PACK32),
        (g::UNSIGNED_INT_2_10_10_10_REV, false, false) => Some(F::A2B10G10R10_USCALED_PACK32),
        (g::INT_2_10_10_10_REV, false, true) => Some(F::A2B10G10R10_SNORM_PACK32),
        (g::INT_2_10_10_10_REV, false, false) => Some(F::A2B10G10R10_SSCALED_PACK32),
        _ => None,
    }
}

/// The 32-bit unsigned format reading one part of a `glVertexAttribL*`
/// attribute (GL_DOUBLE, `size` doubles) whose 64-bit format the device
/// cannot fetch (`spirv::lower_f64_inputs`): the low part is bytes 0..16
/// (8 for one double), the high part bytes 16.. (none for fewer than three
/// doubles: the shader's upper half then reads the attribute default).
pub fn vertex_format_split(fmt: u32, part: crate::spirv::Part) -> Option<vk::Format> {
    use crate::spirv::Part;
    let size = fmt & 0xff;
    let ty = (fmt >> 8) & 0xffff;
    if ty != g::DOUBLE || fmt & mgpipe::consts::VE_INTEGER == 0 {
        return None;
    }
    match (part, size) {
        (Part::Low, 1) | (Part::High, 3) => Some(F::R32G32_UINT),
        (Part::Low, 2..=4) | (Part::High, 4) => Some(F::R32G32B32A32_UINT),
        _ => None,
    }
}

pub fn address_mode(w: u32) -> vk::SamplerAddressMode {
    match w {
        g::CLAMP_TO_EDGE | g::CLAMP => vk::SamplerAddressMode::CLAMP_TO_EDGE,
        g::CLAMP_TO_BORDER => vk::SamplerAddressMode::CLAMP_TO_BORDER,
        g::MIRRORED_REPEAT => vk::SamplerAddressMode::MIRRORED_REPEAT,
        g::MIRROR_CLAMP_TO_EDGE => vk::SamplerAddressMode::MIRROR_CLAMP_TO_EDGE,
        _ => vk::SamplerAddressMode::REPEAT,
    }
}

pub fn swizzle(s: u32, identity: vk::ComponentSwizzle) -> vk::ComponentSwizzle {
    use vk::ComponentSwizzle as S;
    match s {
        g::RED_SWZ => S::R,
        g::GREEN_SWZ => S::G,
        g::BLUE_SWZ => S::B,
        g::ALPHA_SWZ => S::A,
        // GL_ZERO travels as SWIZZLE_ZERO: 0 leaves the component as is.
        mgpipe::consts::SWIZZLE_ZERO => S::ZERO,
        g::ONE => S::ONE,
        _ => identity,
    }
}

// ------------------------------------------------------------------ pixels

// The client (format, type) tables and CPU conversions are backend-neutral
// and shared with the GLES backend (`mgpipe::pixels`); re-exported under
// their old names for the call sites in this crate.
pub use mgpipe::pixels::{bytes_per_pixel, convert, f16_to_f32, f32_to_f16, image_size};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_swizzle_selects_zero() {
        assert_eq!(
            swizzle(mgpipe::consts::SWIZZLE_ZERO, vk::ComponentSwizzle::A),
            vk::ComponentSwizzle::ZERO
        );
        assert_eq!(swizzle(0, vk::ComponentSwizzle::B), vk::ComponentSwizzle::B);
        assert_eq!(
            swizzle(g::ONE, vk::ComponentSwizzle::R),
            vk::ComponentSwizzle::ONE
        );
        assert_eq!(
            swizzle(0xdead, vk::ComponentSwizzle::G),
            vk::ComponentSwizzle::G
        );
    }

    fn all(_: vk::Format, _: FormatClass) -> bool {
        true
    }

    #[test]
    fn formats_map() {
        let s = storage_format(g::RGBA8, &all);
        assert_eq!((s.vk, s.emulation), (F::R8G8B8A8_UNORM, None));
        let s = storage_format(g::RGB8, &all);
        assert_eq!(s.vk, F::R8G8B8A8_UNORM);
        assert!(s.alpha_one);
        let s = storage_format(g::DEPTH24_STENCIL8, &|f, _| f != F::D32_SFLOAT_S8_UINT);
        assert_eq!(s.vk, F::D24_UNORM_S8_UINT);
        assert_eq!(storage_format(0xdead, &all).vk, F::R8G8B8A8_UNORM);
    }

    #[test]
    fn chains_and_ops() {
        assert_eq!(
            full_chain(vk::Extent3D {
                width: 4,
                height: 4,
                depth: 1
            }),
            3
        );
        assert_eq!(compare_op(g::LEQUAL), vk::CompareOp::LESS_OR_EQUAL);
    }

    /// The shared pixel tables size every native storage texel as Vulkan
    /// copies it (colour formats; depth/stencil copy per aspect).
    #[test]
    fn storage_pairs_match_texel_sizes() {
        for r in NATIVE.iter().filter(|r| r.4.is_color()) {
            let bpp = bytes_per_pixel(r.2, r.3);
            let texel = copy_texel_size(r.1, vk::ImageAspectFlags::COLOR) as usize;
            assert_eq!(bpp, Some(texel), "internal 0x{:X}", r.0);
        }
    }
}

/// Packed `DEPTH_STENCIL` client pixels of `ty` split into depth values
/// and stencil bytes: `UNSIGNED_INT_24_8` (depth in the high 24 bits) or
/// `FLOAT_32_UNSIGNED_INT_24_8_REV` (a float, then a word whose low 8 bits
/// are the stencil). None for another type or a short blob.
pub fn split_depth_stencil(blob: &[u8], ty: u32, pixels: usize) -> Option<(Vec<f32>, Vec<u8>)> {
    let size = match ty {
        gl::UNSIGNED_INT_24_8 => 4,
        gl::FLOAT_32_UNSIGNED_INT_24_8_REV => 8,
        _ => return None,
    };
    let texels = blob.get(..pixels.checked_mul(size)?)?.chunks_exact(size);
    Some(
        texels
            .map(|p| {
                let word = u32::from_le_bytes([p[0], p[1], p[2], p[3]]);
                if size == 4 {
                    ((word >> 8) as f32 / 16_777_215.0, p[0])
                } else {
                    (f32::from_bits(word), p[4])
                }
            })
            .unzip(),
    )
}

/// The inverse of `split_depth_stencil`: depth floats (native-endian
/// bytes, one per pixel) and stencil bytes packed as client pixels of
/// `ty`. None for another type or short inputs.
pub fn pack_depth_stencil(depth: &[u8], stencil: &[u8], ty: u32) -> Option<Vec<u8>> {
    let n = stencil.len();
    let depth = depth.get(..n.checked_mul(4)?)?;
    let mut out = Vec::with_capacity(n * 8);
    for (d, &s) in depth.chunks_exact(4).zip(stencil) {
        let d = f32::from_ne_bytes([d[0], d[1], d[2], d[3]]);
        match ty {
            gl::UNSIGNED_INT_24_8 => {
                let z = (d.clamp(0.0, 1.0) * 16_777_215.0).round() as u32;
                out.extend_from_slice(&((z << 8) | u32::from(s)).to_le_bytes());
            }
            gl::FLOAT_32_UNSIGNED_INT_24_8_REV => {
                out.extend_from_slice(&d.to_le_bytes());
                out.extend_from_slice(&u32::from(s).to_le_bytes());
            }
            _ => return None,
        }
    }
    Some(out)
}

#[cfg(test)]
mod depth_stencil_split_tests {
    use super::*;

    #[test]
    fn depth_and_stencil_pack_as_client_pixels() {
        let depth: Vec<u8> = [1.0f32, 0.5].iter().flat_map(|d| d.to_ne_bytes()).collect();
        let packed = pack_depth_stencil(&depth, &[0x12, 0x5A], gl::UNSIGNED_INT_24_8).unwrap();
        let (d, s) = split_depth_stencil(&packed, gl::UNSIGNED_INT_24_8, 2).unwrap();
        assert_eq!(d[0], 1.0);
        assert!((d[1] - 0.5).abs() < 1e-6);
        assert_eq!(s, [0x12, 0x5A]);
        let packed =
            pack_depth_stencil(&depth, &[7, 9], gl::FLOAT_32_UNSIGNED_INT_24_8_REV).unwrap();
        assert_eq!(packed.len(), 16);
        let (d, s) = split_depth_stencil(&packed, gl::FLOAT_32_UNSIGNED_INT_24_8_REV, 2).unwrap();
        assert_eq!((d, s), (vec![1.0, 0.5], vec![7, 9]));
        assert!(pack_depth_stencil(&depth, &[1, 2], gl::FLOAT).is_none());
        assert!(pack_depth_stencil(&depth[..4], &[1, 2], gl::UNSIGNED_INT_24_8).is_none());
    }

    #[test]
    fn packed_depth_stencil_splits_into_aspects() {
        let packed = [(0x00FF_FFFF_u32 << 8) | 0x12, 0x5A];
        let blob: Vec<u8> = packed.iter().flat_map(|w| w.to_le_bytes()).collect();
        let (d, s) = split_depth_stencil(&blob, gl::UNSIGNED_INT_24_8, 2).unwrap();
        assert_eq!(d, [1.0, 0.0]);
        assert_eq!(s, [0x12, 0x5A]);
        let mut blob = 0.25f32.to_le_bytes().to_vec();
        blob.extend_from_slice(&0xFFFF_FF07u32.to_le_bytes());
        let (d, s) = split_depth_stencil(&blob, gl::FLOAT_32_UNSIGNED_INT_24_8_REV, 1).unwrap();
        assert_eq!((d, s), (vec![0.25], vec![7]));
        assert!(split_depth_stencil(&blob, gl::FLOAT_32_UNSIGNED_INT_24_8_REV, 2).is_none());
        assert!(split_depth_stencil(&blob, gl::FLOAT, 1).is_none());
    }
}
