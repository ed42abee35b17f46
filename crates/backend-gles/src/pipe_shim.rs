//! TEMPORARY stand-in for the generated `mgpipe` tables (Screen/Context/calls), produced
//! from catalogue/calls.toml by the MGPIPE.md rules until `mgpipe::Screen` lands.
// shim of mgpipe generated traits (temporary)
#![allow(dead_code, clippy::all)]
use mgpipe::Handle;
pub mod calls { use super::Handle;
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GetCaps { }
impl Default for GetCaps { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ContextCreate { pub ctx: Handle, pub share: Handle, pub flags: u32 }
impl Default for ContextCreate { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ContextDestroy { pub ctx: Handle }
impl Default for ContextDestroy { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SurfaceCreate { pub surface: Handle, pub width: u32, pub height: u32, pub color_format: u32, pub depth_stencil_format: u32, pub samples: u32 }
impl Default for SurfaceCreate { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SurfaceDestroy { pub surface: Handle }
impl Default for SurfaceDestroy { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct MakeCurrent { pub ctx: Handle, pub draw: Handle, pub read: Handle }
impl Default for MakeCurrent { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ResourceCreate { pub res: Handle, pub kind: u32, pub target: u32, pub internal_format: u32, pub width: u32, pub height: u32, pub depth: u32, pub levels: u32, pub samples: u32, pub usage: u32, pub _pad0: [u8; 4], pub size: u64, pub gl_name: u32, pub _pad1: [u8; 4] }
impl Default for ResourceCreate { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ResourceDestroy { pub res: Handle }
impl Default for ResourceDestroy { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct FenceWait { pub fence: Handle, pub flags: u32, pub _pad0: [u8; 4], pub timeout_ns: u64 }
impl Default for FenceWait { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct FenceDestroy { pub fence: Handle }
impl Default for FenceDestroy { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct BufferRespecify { pub res: Handle, pub size: u64, pub usage: u32, pub _pad0: [u8; 4] }
impl Default for BufferRespecify { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct BufferSubdata { pub res: Handle, pub offset: u64 }
impl Default for BufferSubdata { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct BufferCopy { pub src: Handle, pub dst: Handle, pub src_offset: u64, pub dst_offset: u64, pub size: u64 }
impl Default for BufferCopy { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct TextureImage { pub res: Handle, pub target: u32, pub level: u32, pub internal_format: u32, pub width: u32, pub height: u32, pub depth: u32, pub format: u32, pub r#type: u32 }
impl Default for TextureImage { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct TextureSubimage { pub res: Handle, pub target: u32, pub level: u32, pub x: i32, pub y: i32, pub z: i32, pub width: u32, pub height: u32, pub depth: u32, pub format: u32, pub r#type: u32 }
impl Default for TextureSubimage { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct TextureStorage { pub res: Handle, pub target: u32, pub levels: u32, pub internal_format: u32, pub width: u32, pub height: u32, pub depth: u32 }
impl Default for TextureStorage { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GenerateMipmap { pub res: Handle, pub target: u32 }
impl Default for GenerateMipmap { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct CreateRenderState { pub cso: Handle, pub blend_enable_mask: u32, pub blend_src_rgb: u32, pub blend_dst_rgb: u32, pub blend_src_alpha: u32, pub blend_dst_alpha: u32, pub blend_eq_rgb: u32, pub blend_eq_alpha: u32, pub color_write_mask: u32, pub depth_test: u32, pub depth_write: u32, pub depth_func: u32, pub stencil_test: u32, pub stencil_func: [u32; 2], pub stencil_ref: [i32; 2], pub stencil_value_mask: [u32; 2], pub stencil_write_mask: [u32; 2], pub stencil_fail: [u32; 2], pub stencil_zfail: [u32; 2], pub stencil_zpass: [u32; 2], pub cull_enable: u32, pub cull_face: u32, pub front_face: u32, pub scissor_enable: u32, pub polygon_offset_fill: u32, pub rasterizer_discard: u32, pub sample_alpha_to_coverage: u32, pub dither: u32, pub primitive_restart_fixed: u32 }
impl Default for CreateRenderState { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct BindRenderState { pub cso: Handle }
impl Default for BindRenderState { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct DeleteRenderState { pub cso: Handle }
impl Default for DeleteRenderState { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct CreateVertexElements { pub cso: Handle, pub enabled_mask: u32, pub buffer_index: [u32; 16], pub format: [u32; 16], pub offset: [u32; 16], pub divisor: [u32; 16] }
impl Default for CreateVertexElements { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct BindVertexElements { pub cso: Handle }
impl Default for BindVertexElements { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct DeleteVertexElements { pub cso: Handle }
impl Default for DeleteVertexElements { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct CreateSampler { pub cso: Handle, pub min_filter: u32, pub mag_filter: u32, pub wrap_s: u32, pub wrap_t: u32, pub wrap_r: u32, pub compare_mode: u32, pub compare_func: u32, pub min_lod: f32, pub max_lod: f32, pub lod_bias: f32, pub max_anisotropy: f32, pub border_color: [f32; 4] }
impl Default for CreateSampler { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct DeleteSampler { pub cso: Handle }
impl Default for DeleteSampler { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct CreateSamplerView { pub cso: Handle, pub texture: Handle, pub target: u32, pub base_level: u32, pub max_level: u32, pub swizzle: [u32; 4], pub depth_stencil_mode: u32 }
impl Default for CreateSamplerView { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct DeleteSamplerView { pub cso: Handle }
impl Default for DeleteSamplerView { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct CreateShader { pub cso: Handle, pub stage_mask: u32, pub stage_words: [u32; 6], pub global_binding: u32, pub global_size: u32 }
impl Default for CreateShader { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct DeleteShader { pub cso: Handle }
impl Default for DeleteShader { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct BindShader { pub cso: Handle }
impl Default for BindShader { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SetFramebufferState { pub fbo: Handle, pub color: [Handle; 8], pub color_kind: [u32; 8], pub color_level: [u32; 8], pub color_layer: [u32; 8], pub depth: Handle, pub depth_kind: u32, pub depth_level: u32, pub stencil: Handle, pub stencil_kind: u32, pub stencil_level: u32, pub draw_buffers: [u32; 8], pub width: u32, pub height: u32, pub content_hash: u64 }
impl Default for SetFramebufferState { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SetReadSurface { pub fbo: Handle, pub color: Handle, pub color_kind: u32, pub color_level: u32, pub color_layer: u32, pub depth: Handle, pub depth_kind: u32, pub stencil: Handle, pub stencil_kind: u32 }
impl Default for SetReadSurface { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SetViewport { pub x: f32, pub y: f32, pub width: f32, pub height: f32, pub near: f32, pub far: f32 }
impl Default for SetViewport { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SetScissor { pub x: i32, pub y: i32, pub width: i32, pub height: i32 }
impl Default for SetScissor { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SetBlendColor { pub color: [f32; 4] }
impl Default for SetBlendColor { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SetPolygonOffset { pub factor: f32, pub units: f32 }
impl Default for SetPolygonOffset { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SetLineWidth { pub width: f32 }
impl Default for SetLineWidth { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SetVertexBuffers { pub count: u32, pub buffers: [Handle; 16], pub _pad0: [u8; 4], pub offsets: [u64; 16], pub strides: [u32; 16] }
impl Default for SetVertexBuffers { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SetIndexBuffer { pub buffer: Handle }
impl Default for SetIndexBuffer { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SetVertexAttribDefaults { pub mask: u32, pub integer_mask: u32, pub values: [u32; 64] }
impl Default for SetVertexAttribDefaults { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SetSamplerViews { pub count: u32, pub views: [Handle; 32] }
impl Default for SetSamplerViews { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct BindSamplers { pub count: u32, pub samplers: [Handle; 32] }
impl Default for BindSamplers { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SetConstantBuffers { pub count: u32, pub buffers: [Handle; 16], pub _pad0: [u8; 4], pub offsets: [u64; 16], pub sizes: [u64; 16] }
impl Default for SetConstantBuffers { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SetGlobalConstants { pub shader: Handle }
impl Default for SetGlobalConstants { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Clear { pub buffers: u32, pub draw_buffer: u32, pub color_type: u32, pub color: [u32; 4], pub depth: f32, pub stencil: i32 }
impl Default for Clear { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Draw { pub mode: u32, pub index_size: u32, pub first: u32, pub count: u32, pub instance_count: u32, pub base_instance: u32, pub base_vertex: i32, pub _pad0: [u8; 4], pub index_offset: u64 }
impl Default for Draw { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Blit { pub src: [i32; 4], pub dst: [i32; 4], pub mask: u32, pub filter: u32 }
impl Default for Blit { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ReadPixels { pub x: i32, pub y: i32, pub width: u32, pub height: u32, pub format: u32, pub r#type: u32 }
impl Default for ReadPixels { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct BufferReadback { pub res: Handle, pub offset: u64, pub size: u64 }
impl Default for BufferReadback { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct FenceInsert { pub fence: Handle }
impl Default for FenceInsert { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct FlushCommands { }
impl Default for FlushCommands { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Finish { }
impl Default for Finish { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
#[repr(C)] #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Present { pub surface: Handle }
impl Default for Present { fn default() -> Self { bytemuck::Zeroable::zeroed() } }
}
pub trait Screen {
    fn get_caps(&mut self, p: &calls::GetCaps, reply: &mut Vec<u8>);
    fn context_create(&mut self, p: &calls::ContextCreate);
    fn context_destroy(&mut self, p: &calls::ContextDestroy);
    fn surface_create(&mut self, p: &calls::SurfaceCreate);
    fn surface_destroy(&mut self, p: &calls::SurfaceDestroy);
    fn make_current(&mut self, p: &calls::MakeCurrent);
    fn resource_create(&mut self, p: &calls::ResourceCreate, blob: &[u8]);
    fn resource_destroy(&mut self, p: &calls::ResourceDestroy);
    fn fence_wait(&mut self, p: &calls::FenceWait, reply: &mut Vec<u8>);
    fn fence_destroy(&mut self, p: &calls::FenceDestroy);
}
pub trait Context {
    fn buffer_respecify(&mut self, p: &calls::BufferRespecify, blob: &[u8]);
    fn buffer_subdata(&mut self, p: &calls::BufferSubdata, blob: &[u8]);
    fn buffer_copy(&mut self, p: &calls::BufferCopy);
    fn texture_image(&mut self, p: &calls::TextureImage, blob: &[u8]);
    fn texture_subimage(&mut self, p: &calls::TextureSubimage, blob: &[u8]);
    fn texture_storage(&mut self, p: &calls::TextureStorage);
    fn generate_mipmap(&mut self, p: &calls::GenerateMipmap);
    fn create_render_state(&mut self, p: &calls::CreateRenderState);
    fn bind_render_state(&mut self, p: &calls::BindRenderState);
    fn delete_render_state(&mut self, p: &calls::DeleteRenderState);
    fn create_vertex_elements(&mut self, p: &calls::CreateVertexElements);
    fn bind_vertex_elements(&mut self, p: &calls::BindVertexElements);
    fn delete_vertex_elements(&mut self, p: &calls::DeleteVertexElements);
    fn create_sampler(&mut self, p: &calls::CreateSampler);
    fn delete_sampler(&mut self, p: &calls::DeleteSampler);
    fn create_sampler_view(&mut self, p: &calls::CreateSamplerView);
    fn delete_sampler_view(&mut self, p: &calls::DeleteSamplerView);
    fn create_shader(&mut self, p: &calls::CreateShader, blob: &[u8]);
    fn delete_shader(&mut self, p: &calls::DeleteShader);
    fn bind_shader(&mut self, p: &calls::BindShader);
    fn set_framebuffer_state(&mut self, p: &calls::SetFramebufferState);
    fn set_read_surface(&mut self, p: &calls::SetReadSurface);
    fn set_viewport(&mut self, p: &calls::SetViewport);
    fn set_scissor(&mut self, p: &calls::SetScissor);
    fn set_blend_color(&mut self, p: &calls::SetBlendColor);
    fn set_polygon_offset(&mut self, p: &calls::SetPolygonOffset);
    fn set_line_width(&mut self, p: &calls::SetLineWidth);
    fn set_vertex_buffers(&mut self, p: &calls::SetVertexBuffers);
    fn set_index_buffer(&mut self, p: &calls::SetIndexBuffer);
    fn set_vertex_attrib_defaults(&mut self, p: &calls::SetVertexAttribDefaults);
    fn set_sampler_views(&mut self, p: &calls::SetSamplerViews);
    fn bind_samplers(&mut self, p: &calls::BindSamplers);
    fn set_constant_buffers(&mut self, p: &calls::SetConstantBuffers);
    fn set_global_constants(&mut self, p: &calls::SetGlobalConstants, blob: &[u8]);
    fn clear(&mut self, p: &calls::Clear);
    fn draw(&mut self, p: &calls::Draw, blob: &[u8]);
    fn blit(&mut self, p: &calls::Blit);
    fn read_pixels(&mut self, p: &calls::ReadPixels, reply: &mut Vec<u8>);
    fn buffer_readback(&mut self, p: &calls::BufferReadback, reply: &mut Vec<u8>);
    fn fence_insert(&mut self, p: &calls::FenceInsert);
    fn flush_commands(&mut self, p: &calls::FlushCommands);
    fn finish(&mut self, p: &calls::Finish, reply: &mut Vec<u8>);
    fn present(&mut self, p: &calls::Present);
}
#[repr(u16)] #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Opcode { GetCaps = 0, ContextCreate = 1, ContextDestroy = 2, SurfaceCreate = 3, SurfaceDestroy = 4, MakeCurrent = 5, ResourceCreate = 6, ResourceDestroy = 7, FenceWait = 8, FenceDestroy = 9, BufferRespecify = 10, BufferSubdata = 11, BufferCopy = 12, TextureImage = 13, TextureSubimage = 14, TextureStorage = 15, GenerateMipmap = 16, CreateRenderState = 17, BindRenderState = 18, DeleteRenderState = 19, CreateVertexElements = 20, BindVertexElements = 21, DeleteVertexElements = 22, CreateSampler = 23, DeleteSampler = 24, CreateSamplerView = 25, DeleteSamplerView = 26, CreateShader = 27, DeleteShader = 28, BindShader = 29, SetFramebufferState = 30, SetReadSurface = 31, SetViewport = 32, SetScissor = 33, SetBlendColor = 34, SetPolygonOffset = 35, SetLineWidth = 36, SetVertexBuffers = 37, SetIndexBuffer = 38, SetVertexAttribDefaults = 39, SetSamplerViews = 40, BindSamplers = 41, SetConstantBuffers = 42, SetGlobalConstants = 43, Clear = 44, Draw = 45, Blit = 46, ReadPixels = 47, BufferReadback = 48, FenceInsert = 49, FlushCommands = 50, Finish = 51, Present = 52 }
pub const CALL_COUNT: usize = 53;
