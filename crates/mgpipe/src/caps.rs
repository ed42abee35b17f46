//! The caps snapshot: everything the client must know of the backend's
//! driver, read once instead of asked per call (DESIGN §5, seeds/000 Part 1).

use bytemuck::{Pod, Zeroable};

/// Fixed-size, POD caps snapshot. Strings are NUL-padded UTF-8.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct Caps {
    /// Which backend filled this (BACKEND_GLES / BACKEND_VULKAN).
    pub backend_kind: u32,
    pub max_texture_size: u32,
    pub max_3d_texture_size: u32,
    pub max_array_texture_layers: u32,
    pub max_cube_map_texture_size: u32,
    pub max_renderbuffer_size: u32,
    pub max_draw_buffers: u32,
    pub max_color_attachments: u32,
    pub max_samples: u32,
    pub max_vertex_attribs: u32,
    pub max_texture_image_units: u32,
    pub max_combined_texture_image_units: u32,
    pub max_vertex_texture_image_units: u32,
    pub max_uniform_buffer_bindings: u32,
    pub max_uniform_block_size: u32,
    pub uniform_buffer_offset_alignment: u32,
    pub max_vertex_uniform_components: u32,
    pub max_fragment_uniform_components: u32,
    pub max_varying_components: u32,
    pub max_viewport_dims: [u32; 2],
    pub max_texture_lod_bias: f32,
    pub max_texture_max_anisotropy: f32,
    pub aliased_line_width_range: [f32; 2],
    pub point_size_range: [f32; 2],
    pub max_elements_vertices: u32,
    pub max_elements_indices: u32,
    /// Compute (GL 4.3 §19): 0 everywhere when the driver has no compute.
    pub max_compute_work_group_count: [u32; 3],
    pub max_compute_work_group_size: [u32; 3],
    pub max_compute_work_group_invocations: u32,
    pub max_compute_shared_memory_size: u32,
    /// Image units a program can use (GL_MAX_IMAGE_UNITS, at most 8 slots
    /// in `set_shader_images`).
    pub max_image_units: u32,
    /// Storage-buffer bindings (at most 16 slots in `set_shader_buffers`).
    pub max_shader_storage_buffer_bindings: u32,
    pub max_shader_storage_block_size: u32,
    pub shader_storage_buffer_offset_alignment: u32,
    /// `CAPS_FEATURE_*` bits.
    pub features: u32,
    /// Bit i set: multisample images of 2^i samples can be made (colour
    /// and depth attachments, sampled). 0: every power of two up to
    /// `max_samples`. A GL request for n samples gets the smallest
    /// supported count of at least n (GL 4.6 §8.8, §9.2.4).
    pub sample_counts: u32,
    /// Keeps `call_mask` 8-aligned without padding.
    pub reserved: u32,
    /// Bit i set: the backend implements call opcode i.
    pub call_mask: [u64; 2],
    /// The backend driver's own renderer string (diagnostics; our
    /// GL_RENDERER wraps it).
    pub driver_renderer: [u8; 128],
    pub driver_version: [u8; 128],
}

/// `Caps::features`: 64-bit floats in shaders (GL_ARB_gpu_shader_fp64).
pub const CAPS_FEATURE_FLOAT64: u32 = 1;
/// `Caps::features`: 64-bit vertex inputs fetched unconverted
/// (GL_ARB_vertex_attrib_64bit, `glVertexAttribLPointer`).
pub const CAPS_FEATURE_VERTEX_64: u32 = 2;
/// `Caps::features`: transform feedback captures any `XfbBuffer` /
/// `Offset` / `XfbStride` layout (gaps, several buffers of several
/// varyings: ARB_transform_feedback3's `gl_SkipComponents*` and
/// `gl_NextBuffer`); without it, one packed buffer or one varying per
/// buffer.
pub const CAPS_FEATURE_XFB_LAYOUTS: u32 = 4;
/// `Caps::features`: storage blocks (and the atomic counters built on
/// them) in vertex and geometry shaders, as many as
/// `max_shader_storage_buffer_bindings` (GL_MAX_VERTEX_SHADER_STORAGE_BLOCKS;
/// GLES 3.1 guarantees none, Vulkan needs vertexPipelineStoresAndAtomics).
pub const CAPS_FEATURE_VERTEX_STORAGE: u32 = 1 << 3;
/// `Caps::features`: per-sample shading (GL_SAMPLE_SHADING,
/// glMinSampleShading, gl_SampleID/gl_SamplePosition: GL_ARB_sample_shading).
pub const CAPS_FEATURE_SAMPLE_SHADING: u32 = 1 << 8;
/// `Caps::features`: blend functions/equations per draw buffer
/// (GL_ARB_draw_buffers_blend).
pub const CAPS_FEATURE_BLEND_PER_BUFFER: u32 = 1 << 9;
/// `Caps::features`: both glClipControl origins and depth modes
/// (GL_ARB_clip_control).
pub const CAPS_FEATURE_CLIP_CONTROL: u32 = 1 << 10;
/// `Caps::features`: `texture_subimage` rows at a `row_stride` are read
/// where they are (no gather copy in the backend), so a transport that
/// passes blobs by reference (monolith) should send them strided.
pub const CAPS_FEATURE_STRIDED_UPLOAD: u32 = 1 << 11;
/// `Caps::features`: `gl_InstanceID` counts from 0 in draws with a base
/// instance (GL_ARB_base_instance).
pub const CAPS_FEATURE_BASE_INSTANCE: u32 = 1 << 12;

/// `Caps::features`: tessellation control and evaluation stages, GL_PATCHES
/// draws and `set_patch_state` (GL_ARB_tessellation_shader), with at least
/// GL 4.0's minimum limits (32 patch vertices, generation level 64).
pub const CAPS_FEATURE_TESSELLATION: u32 = 1 << 13;

pub const BACKEND_GLES: u32 = 1;
pub const BACKEND_VULKAN: u32 = 2;

impl Caps {
    /// Conservative GL 3.3 minimums, for tests and null backends.
    pub fn minimum() -> Caps {
        let mut c = Caps::zeroed();
        c.max_texture_size = 1024;
        c.max_3d_texture_size = 256;
        c.max_array_texture_layers = 256;
        c.max_cube_map_texture_size = 1024;
        c.max_renderbuffer_size = 1024;
        c.max_draw_buffers = 8;
        c.max_color_attachments = 8;
        c.max_samples = 4;
        c.max_vertex_attribs = 16;
        c.max_texture_image_units = 16;
        c.max_combined_texture_image_units = 48;
        c.max_vertex_texture_image_units = 16;
        c.max_uniform_buffer_bindings = 36;
        c.max_uniform_block_size = 16384;
        c.uniform_buffer_offset_alignment = 256;
        c.max_vertex_uniform_components = 1024;
        c.max_fragment_uniform_components = 1024;
        c.max_varying_components = 60;
        c.max_viewport_dims = [4096, 4096];
        c.max_texture_lod_bias = 2.0;
        c.max_texture_max_anisotropy = 1.0;
        c.aliased_line_width_range = [1.0, 1.0];
        c.point_size_range = [1.0, 1.0];
        c.max_elements_vertices = 1 << 20;
        c.max_elements_indices = 1 << 20;
        c.max_compute_work_group_count = [65535; 3];
        c.max_compute_work_group_size = [1024, 1024, 64];
        c.max_compute_work_group_invocations = 1024;
        c.max_compute_shared_memory_size = 32768;
        c.max_image_units = 8;
        c.max_shader_storage_buffer_bindings = 8;
        c.max_shader_storage_block_size = 1 << 27;
        c.shader_storage_buffer_offset_alignment = 256;
        c.call_mask = [u64::MAX, u64::MAX];
        c
    }

    pub fn implements(&self, opcode: u16) -> bool {
        let i = opcode as usize;
        i < 128 && self.call_mask[i / 64] & (1u64 << (i % 64)) != 0
    }

    /// Write a string into one of the fixed NUL-padded fields.
    pub fn put_str(dst: &mut [u8], s: &str) {
        dst.fill(0);
        let n = s.len().min(dst.len() - 1);
        dst[..n].copy_from_slice(&s.as_bytes()[..n]);
    }

    /// Read a NUL-padded string field.
    pub fn get_str(src: &[u8]) -> &str {
        let end = src.iter().position(|&b| b == 0).unwrap_or(src.len());
        core::str::from_utf8(&src[..end]).unwrap_or("")
    }
}
