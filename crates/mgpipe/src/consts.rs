//! Constants that catalogue fields refer to by name.

/// `resource_create.kind`
pub const RESOURCE_BUFFER: u32 = 1;
pub const RESOURCE_TEXTURE: u32 = 2;
pub const RESOURCE_RENDERBUFFER: u32 = 3;

/// Surface kinds in framebuffer state.
pub const SURFACE_NONE: u32 = 0;
pub const SURFACE_TEXTURE: u32 = 1;
pub const SURFACE_RENDERBUFFER: u32 = 2;

/// `set_framebuffer_state.draw_buffers[i]` when draw buffer i is GL_NONE.
pub const NO_ATTACHMENT: u32 = u32::MAX;

/// `create_sampler_view.swizzle[i]` selecting zero (GL_ZERO, which is 0:
/// a 0 selector leaves component i at identity, as a zeroed payload does).
pub const SWIZZLE_ZERO: u32 = u32::MAX;

/// `create_vertex_elements.format` bits: size in bits 0..8, GL type in 8..24.
pub const VE_NORMALIZED: u32 = 1 << 24;
pub const VE_INTEGER: u32 = 1 << 25;

/// `clear.buffers`
pub const CLEAR_COLOR_ALL: u32 = 1 << 0;
pub const CLEAR_COLOR_ONE: u32 = 1 << 1;
pub const CLEAR_DEPTH: u32 = 1 << 2;
pub const CLEAR_STENCIL: u32 = 1 << 3;
/// `clear.color_type`
pub const CLEAR_FLOAT: u32 = 0;
pub const CLEAR_INT: u32 = 1;
pub const CLEAR_UINT: u32 = 2;

/// `fence_wait` reply (u32).
pub const FENCE_STATUS_SIGNALED: u32 = 1;
pub const FENCE_STATUS_TIMEOUT: u32 = 2;

/// `create_shader` stage order.
pub const STAGE_VERTEX: usize = 0;
pub const STAGE_TESS_CONTROL: usize = 1;
pub const STAGE_TESS_EVAL: usize = 2;
pub const STAGE_GEOMETRY: usize = 3;
pub const STAGE_FRAGMENT: usize = 4;
pub const STAGE_COMPUTE: usize = 5;

/// `context_create.flags`
pub const CONTEXT_FLAG_DEBUG: u32 = 1;
pub const CONTEXT_FLAG_ROBUST: u32 = 2;

// map_persistent reply: {tier: u32, flags: u32}.
/// Adoption tier 2: the client keeps the mapped bytes and pushes its writes.
pub const ADOPT_TIER_CLIENT_PUSH: u32 = 2;
/// The backend reports GPU writes into the mapped range as events.
pub const MAP_PERSISTENT_REPORTS_GPU_WRITES: u32 = 1;

/// `set_shader_images` layer: every layer of the level is bound.
pub const IMAGE_LAYERED: u32 = u32::MAX;

/// `set_framebuffer_state` attachment layer: every layer of the attached
/// level (a layered attachment, GL 4.6 §9.8).
pub const ATTACH_LAYERED: u32 = u32::MAX;
