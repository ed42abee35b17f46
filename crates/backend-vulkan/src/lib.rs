//! `backend-vulkan`: the Magma-style MGPipe applier over a Vulkan device
//! reached through `ash` (DESIGN §5).
//!
//! [`VulkanBackend`] implements `mgpipe::Screen` (share-group objects: caps,
//! contexts, surfaces, resources, fences) and `mgpipe::Context`
//! (everything else, applied to the context made current by
//! `make_current`), so `Box<dyn mgpipe::Applier>` works.
//!
//! **Owns**: one Vulkan instance/device (first usable physical device,
//! discrete > integrated > virtual > cpu; lavapipe on CI), one graphics
//! queue, every Vulkan object made on behalf of the client (buffers,
//! images, views, samplers, pipelines, descriptor pools) and the default
//! framebuffers (a colour + depth/stencil image pair per surface).
//! **Never touches**: the frontend's state, shared memory or transports,
//! windows/swapchains (surfaces are pbuffer-like), process-local handles
//! of the client.
//!
//! **Design**: records arrive in order and are replayed by one dispatch
//! into the current frame's command buffer. A frame is submitted at
//! flush/finish/fence/readback boundaries; at most
//! `MOBILEGL_VK_FRAMES_IN_FLIGHT` (default 2) submissions are outstanding.
//! Per-command-buffer state (bound pipeline, open rendering instance) is
//! reset at every submit boundary; objects released while the GPU may
//! still use them are destroyed once their submission retires. Every image
//! lives in `GENERAL` layout and full barriers separate transfers from
//! rendering (correctness first); back-to-back upload copies to disjoint
//! regions share one barrier. Pipelines are keyed by shader handle,
//! render-state contents, derived vertex input, attachment formats and
//! topology; descriptor sets come from per-frame pools and are reused while
//! their contents are unchanged (uniform ranges move through dynamic
//! offsets). Hot paths: on unified memory (lavapipe, integrated GPUs)
//! client buffers are mapped and idle ones are written by the host
//! (`glBufferData`/`glBufferSubData` without GPU work). Elsewhere
//! (discrete GPUs) uploads are staged through the frame's persistently
//! mapped arena and never wait for the GPU: writes to fresh or idle
//! buffers are hoisted into the frame's `pre` command buffer (submitted
//! ahead of the main one, so an open rendering instance stays open), and
//! busy buffers are orphaned as on unified memory; texture and busy-buffer
//! sub-uploads are copied in command-stream order. Draws that bind
//! nothing new are merged into one `vkCmdDrawMulti*EXT`, and a draw that
//! follows another with no call in between skips re-resolving state
//! (`VulkanBackend::epoch`), as does one after only index-buffer,
//! uniform-range, default-uniform, same-layout VAO or pipeline-only
//! render-state changes (`light`);
//! a command buffer is submitted every
//! `frame::SUBMIT_EVERY_DRAWS` draws so the device works while the frame
//! is recorded; read-backs reuse one host buffer. Queries (occlusion,
//! timers), timestamps and `glGetTexImage` are answered in `queries.rs`.
//! Compute dispatches run outside rendering instances (one ends for
//! them) with a full barrier after each; storage buffers and images are
//! bound like uniform buffers and samplers, in descriptor sets 2 and 3 of
//! every pipeline layout, at the graphics or the compute bind point.
//! The client's SPIR-V is consumed directly after one rewrite
//! ([`spirv`]); desktop-GL semantics Vulkan lacks are named in
//! [`emulation`]. Bad handles and malformed payloads are logged
//! (`tracing::warn`) and the call skipped: no trait method panics.
//!
//! Host memory of the command pool comes from size-class free lists
//! ([`host_alloc`]); a lavapipe quirk is worked around in [`lvp_quirk`];
//! read-backs land in the caller's memory through [`host_import`].
//!
//! Knobs (anything else is a startup error): `MOBILEGL_VK_FRAMES_IN_FLIGHT`
//! (1..=8, default 2); `MOBILEGL_VK_FORCE_STAGING=1|0` (default 0; 1
//! ignores host-visible device memory, as on a discrete GPU, so the staging
//! paths run on lavapipe too); `MOBILEGL_VK_HOST_ALLOC=1|0` (default 1);
//! `MOBILEGL_VK_LVP_IMAGE_SLOTS=1|0` (default 1);
//! `MOBILEGL_VK_HOST_IMPORT=1|0` (default: 1 on CPU devices, else 0);
//! `MOBILEGL_VK_HOST_IMAGES=1|0` (default: 1 on CPU devices with unified
//! memory; colour images LINEAR where allowed, written by the host when
//! idle); `MOBILEGL_VK_FENCE_POLL=adaptive|always|never` (default
//! adaptive: a fence wait polls up to 200 µs only while waits were short).

mod context;
mod device;
pub mod emulation;
mod frame;
mod host_alloc;
mod host_import;
mod lvp_quirk;
mod pipeline;
mod queries;
mod resource;
mod screen;
pub mod spirv;
mod table;

use std::collections::HashMap;

use ash::vk;
use mgpipe::calls;
use mgpipe::Handle;

use crate::device::{Gpu, RawBuffer};
use crate::emulation::StorageFormat;
use crate::frame::Frames;
use crate::table::Table;

/// Every way opening the backend can fail, by name.
#[derive(Debug, thiserror::Error)]
pub enum VkError {
    #[error("cannot load the Vulkan loader (libvulkan.so.1): {0}")]
    Load(String),
    #[error("the Vulkan instance is older than 1.1 ({0})")]
    Version(String),
    #[error("no usable Vulkan physical device: {0}")]
    NoDevice(String),
    #[error("{call} failed: {result}")]
    Call {
        call: &'static str,
        result: vk::Result,
    },
    #[error("no memory type for {0}")]
    NoMemoryType(&'static str),
    #[error("unsupported: {0}")]
    Unsupported(&'static str),
    #[error("bad value {value:?} for {knob}: {why}")]
    BadKnob {
        knob: &'static str,
        value: String,
        why: &'static str,
    },
}

/// Frames in flight unless `MOBILEGL_VK_FRAMES_IN_FLIGHT` says otherwise.
pub const DEFAULT_FRAMES_IN_FLIGHT: usize = 2;

/// A `1|0` knob; unset gives `default`, anything else is refused by name.
pub(crate) fn bool_knob(knob: &'static str, default: bool) -> Result<bool, VkError> {
    match std::env::var(knob) {
        Err(_) => Ok(default),
        Ok(v) => match v.as_str() {
            "1" => Ok(true),
            "0" => Ok(false),
            _ => Err(VkError::BadKnob {
                knob,
                value: v,
                why: "expected 1 or 0",
            }),
        },
    }
}

/// `bool_knob` without a default: None when `knob` is unset (the caller
/// then decides by device).
pub(crate) fn optional_bool_knob(knob: &'static str) -> Result<Option<bool>, VkError> {
    match std::env::var_os(knob) {
        None => Ok(None),
        Some(_) => bool_knob(knob, false).map(Some),
    }
}

fn frames_in_flight() -> Result<usize, VkError> {
    match std::env::var("MOBILEGL_VK_FRAMES_IN_FLIGHT") {
        Err(_) => Ok(DEFAULT_FRAMES_IN_FLIGHT),
        Ok(v) => match v.trim().parse::<usize>() {
            Ok(n) if (1..=8).contains(&n) => Ok(n),
            _ => Err(VkError::BadKnob {
                knob: "MOBILEGL_VK_FRAMES_IN_FLIGHT",
                value: v,
                why: "expected an integer in 1..=8",
            }),
        },
    }
}

/// Key of a cached image view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct ViewKey {
    pub ty: i32,
    pub aspect: u32,
    pub base_level: u32,
    pub levels: u32,
    pub base_layer: u32,
    pub layers: u32,
    pub swizzle: [i32; 4],
}

/// A Vulkan image with everything needed to use it as GL would.
pub(crate) struct ImageRes {
    pub image: vk::Image,
    pub memory: vk::DeviceMemory,
    /// Where `memory` is mapped on the host (CPU devices with host imports
    /// or host images); every host access stays inside it.
    pub host: crate::device::HostMapping,
    /// LINEAR tiling in memory mapped at `host`: the host may write
    /// texels in place (`upload_image`).
    pub linear: bool,
    pub format: StorageFormat,
    /// GL internal format it was defined with.
    pub gl_internal: u32,
    pub view_type: vk::ImageViewType,
    pub extent: vk::Extent3D,
    pub layers: u32,
    pub levels: u32,
    pub samples: vk::SampleCountFlags,
    /// Made with STORAGE usage (its format can be a storage image here).
    pub storage: bool,
    /// Bit i: level i has been defined (uploaded, rendered or allocated by storage).
    pub defined: u64,
    pub views: HashMap<ViewKey, vk::ImageView, table::WordHash>,
}

pub(crate) enum ResKind {
    Buffer {
        raw: RawBuffer,
        size: u64,
        /// Serial of the last submission that uses (or will use) the
        /// buffer on the GPU; the host writes it directly only once that
        /// submission completed.
        last_use: std::cell::Cell<u64>,
    },
    /// GL texture target (binding target, 0 until known); storage appears
    /// with texture_image/texture_storage.
    Texture {
        target: u32,
        samples: u32,
        img: Option<ImageRes>,
        /// A buffer texture's attachment (`texture_buffer`); None for
        /// every other target, or none attached.
        texbuf: Option<TexBufAttachment>,
    },
    Renderbuffer(ImageRes),
}

/// The buffer range a buffer texture (GL_TEXTURE_BUFFER) reads; resolved
/// to a `VkBufferView` at each draw, so a re-specified buffer (a new
/// `VkBuffer` after `glBufferData`) is what the next draw reads.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TexBufAttachment {
    pub buffer: Handle,
    pub internal_format: u32,
    pub offset: u64,
    /// Bytes; 0: to the end of the buffer, whatever its size becomes.
    pub size: u64,
}

pub(crate) struct Resource {
    pub kind: ResKind,
    pub gl_name: u32,
}

pub(crate) struct SurfaceEntry {
    pub width: u32,
    pub height: u32,
    pub color: Option<ImageRes>,
    pub depth_stencil: Option<ImageRes>,
}

pub(crate) struct ShaderEntry {
    /// None: the module set failed to build; draws with it are skipped.
    pub built: Option<pipeline::ShaderBuild>,
    pub global_binding: u32,
    pub global_size: u32,
    /// Last default-uniform-block contents.
    pub globals: Vec<u8>,
    /// Where `globals` sits in the arena: (submission serial it was
    /// uploaded for, buffer, offset).
    pub globals_at: Option<(u64, vk::Buffer, u64)>,
}

pub(crate) struct SamplerEntry {
    pub sampler: vk::Sampler,
    /// GL min filter has no mipmapping: views are sampled at the base level.
    pub no_mip: bool,
}

/// What a `create_vertex_input` names (`bind_vertex_input` applies it).
#[derive(Clone, Copy)]
pub(crate) struct VertexInput {
    pub elements: Handle,
    pub vbufs: calls::SetVertexBuffers,
    pub index_buffer: Handle,
}

/// Share-group (screen-level) tables.
#[derive(Default)]
pub(crate) struct ScreenTables {
    pub resources: Table<Resource>,
    pub surfaces: Table<SurfaceEntry>,
    /// Fence handle -> submission serial.
    pub fences: Table<u64>,
    pub render_states: Table<calls::CreateRenderState>,
    pub vertex_elements: Table<calls::CreateVertexElements>,
    /// Vertex-input CSOs: a VAO's elements, buffer slots and index buffer.
    pub vertex_inputs: Table<VertexInput>,
    pub samplers: Table<SamplerEntry>,
    pub views: Table<calls::CreateSamplerView>,
    pub shaders: Table<ShaderEntry>,
    pub queries: Table<queries::QueryEntry>,
}

/// One client context's state (everything `set_*`/`bind_*` names).
#[derive(Clone, Copy)]
pub(crate) struct Ctx {
    pub draw_surface: Handle,
    pub read_surface: Handle,
    /// None: the default framebuffer.
    pub fb: Option<calls::SetFramebufferState>,
    pub read: Option<calls::SetReadSurface>,
    pub render_state: calls::CreateRenderState,
    pub vertex_elements: Handle,
    pub shader: Handle,
    pub vbufs: calls::SetVertexBuffers,
    pub index_buffer: Handle,
    pub attrib_defaults: calls::SetVertexAttribDefaults,
    pub views: calls::SetSamplerViews,
    pub samplers: calls::BindSamplers,
    pub cbufs: calls::SetConstantBuffers,
    /// Storage-buffer bindings (`set_shader_buffers`).
    pub sbufs: calls::SetShaderBuffers,
    /// Image-unit bindings (`set_shader_images`).
    pub images: calls::SetShaderImages,
    pub viewport: calls::SetViewport,
    pub scissor: calls::SetScissor,
    pub blend_color: [f32; 4],
    /// GL_PATCH_VERTICES (`set_patch_state`): a GL_PATCHES draw's
    /// patchControlPoints.
    pub patch_vertices: u32,
    /// factor, units, clamp (0 = none).
    pub polygon_offset: [f32; 3],
    pub line_width: f32,
}

/// A fully resolved draw whose bindings are still recorded: a following
/// draw with the same epoch and shape only adds its own range.
/// [`VulkanBackend::light`]: the index buffer was set.
pub(crate) const LIGHT_INDEX: u8 = 1;
/// [`VulkanBackend::light`]: a uniform-buffer binding was set.
pub(crate) const LIGHT_CBUF: u8 = 2;
/// `bind_vertex_input` / `set_vertex_buffers` moved vertex buffers or
/// offsets under the same layout (elements, slot count and strides).
pub(crate) const LIGHT_VBUF: u8 = 4;
/// `bind_render_state` changed only what the pipeline is keyed on (the
/// scissor enable and stencil references, which feed dynamic state, are
/// unchanged): the light path binds the cached pipeline for the new state.
pub(crate) const LIGHT_RS: u8 = 8;

/// What a draw's pipeline is keyed on besides the shader, the render state
/// and the vertex layout (the last full draw's, for the light path).
#[derive(Clone, Copy, Debug)]
pub(crate) struct PipeTargets {
    pub topology: ash::vk::PrimitiveTopology,
    /// patchControlPoints of a PATCH_LIST topology (0 otherwise).
    pub patch_control_points: u32,
    pub colors: [ash::vk::Format; 8],
    pub color_integer: u32,
    /// Attachments whose GL format has no alpha (stored with one): blending
    /// reads their destination alpha as 1.
    pub color_alpha_one: u32,
    pub depth: ash::vk::Format,
    pub stencil: ash::vk::Format,
    pub samples: ash::vk::SampleCountFlags,
}

#[derive(Clone, Copy, Debug)]

pub(crate) struct LastDraw {
    pub epoch: u64,
    /// Submission serial of the command buffer it was recorded into.
    pub serial: u64,
    pub mode: u32,
    pub index_size: u32,
    pub instance_count: u32,
    pub base_instance: u32,
    /// Size of the bound index buffer (indexed draws from a buffer).
    pub index_bytes: u64,
    /// Locations whose vertex binding came from a client buffer (the
    /// others read attribute defaults); see `apply_light`.
    pub vbuf_locs: u32,
    /// An enabled attribute read its default because its buffer or format
    /// was unusable (the light vertex path then defers to the full one).
    pub enabled_defaulted: bool,
    /// The pipeline's framebuffer formats and topology (`LIGHT_RS`).
    pub targets: PipeTargets,
}

/// One vertex buffer binding of a draw (binding = vertex input location)
/// and where it comes from, for the light path's re-binding.
#[derive(Clone, Copy, Debug)]
pub(crate) struct VertexBind {
    pub binding: u32,
    pub buffer: vk::Buffer,
    pub offset: u64,
    /// The GL attribute read.
    pub attrib: u32,
    /// Bytes past the attribute's offset (16: the upper half of a split
    /// `dvec3`/`dvec4`).
    pub extra: u32,
}

/// See [`VulkanBackend::draw_scratch`]. A draw takes a buffer out, clears
/// it, and puts it back when done (an early return just drops it).
#[derive(Default)]
pub(crate) struct DrawScratch {
    pub slots: Vec<pipeline::VertexSlot>,
    pub vbinds: Vec<VertexBind>,
    pub key: Vec<u32>,
    pub ubo_infos: Vec<(u32, u32, vk::DescriptorBufferInfo)>,
    pub ubo_what: Vec<frame::DescriptorBuffer>,
    pub ubo_offsets: Vec<u32>,
}

/// Built-in objects bound where the client left a slot empty.
#[derive(Default)]
pub(crate) struct Dummies {
    pub ubo: Option<RawBuffer>,
    /// Bound at storage-block slots the client left empty.
    pub ssbo: Option<RawBuffer>,
    /// (view type, Vulkan format) -> 1x1 storage image, bound at image
    /// slots the client left empty (or bound unusably).
    pub storage_images: HashMap<(i32, i32), ImageRes>,
    /// (view type, scalar class) -> 1x1 image.
    pub images: HashMap<(i32, spirv::Scalar, bool), ImageRes>,
    pub sampler: Option<vk::Sampler>,
    /// The masked-clear program (made on first use).
    pub clear: Option<pipeline::ClearKit>,
}

/// The Vulkan backend: one device, a share group of contexts.
pub struct VulkanBackend {
    pub(crate) scr: ScreenTables,
    /// Contexts, boxed so that a full draw can take the current one out of
    /// its slot for the draw's duration (`VulkanBackend::lend_cur`) instead
    /// of copying it; an empty slot is a context lent out.
    pub(crate) ctxs: Table<Option<Box<Ctx>>>,
    pub(crate) current: Option<Handle>,
    pub(crate) pipelines: HashMap<Vec<u32>, vk::Pipeline, table::WordHash>,
    pub(crate) dummies: Dummies,
    /// Uniform texel buffer views made for buffer textures, by (buffer,
    /// format, offset, range), with the submission serial they were made
    /// for: each is retired as soon as it is made (destroyed once that
    /// submission completes) and reused only while the same submission
    /// records, so a view never outlives its buffer.
    pub(crate) texel_views: HashMap<(vk::Buffer, vk::Format, u64, u64), (vk::BufferView, u64)>,
    pub(crate) warned: std::collections::HashSet<&'static str>,
    pub(crate) frames: Frames,
    /// Host buffer read-backs copy into (grown on demand; only used by
    /// calls that wait for the copy before returning).
    pub(crate) readback: Option<RawBuffer>,
    /// Read-backs the device wrote straight into the caller's memory
    /// (`host_import.rs`).
    pub(crate) imported_reads: u64,
    /// Host address the last whole read-back was copied from, where known.
    pub(crate) last_read_src: usize,
    /// Texture uploads the host wrote in place (`host_write_image`).
    pub(crate) host_image_writes: u64,
    /// Draws whose render-state change the light path applied.
    pub(crate) light_render_states: u64,
    /// Bumped by every applied call except `draw` (`touch`): a draw that
    /// sees the epoch of the previous draw follows it with nothing in
    /// between, so it can reuse everything that draw resolved and bound.
    pub(crate) epoch: u64,
    /// What the last fully resolved draw left bound (see `epoch`).
    pub(crate) last_draw: Option<LastDraw>,
    /// Changes since the last draw that do not bump `epoch` because a
    /// following draw can apply them itself without resolving everything
    /// again ([`LIGHT_INDEX`]: `set_index_buffer`, [`LIGHT_CBUF`]:
    /// `set_constant_buffer`, [`LIGHT_VBUF`]: `bind_vertex_input`,
    /// [`LIGHT_RS`]: `bind_render_state`).
    pub(crate) light: u8,
    /// Buffers a fully resolved draw fills and drops, kept between draws
    /// so that it allocates nothing in the common case.
    pub(crate) draw_scratch: DrawScratch,
    // Field order: the device goes last (Drop tears everything down first).
    pub(crate) gpu: Gpu,
}

impl VulkanBackend {
    /// Open the first usable Vulkan device (see the crate doc).
    pub fn open_default() -> Result<VulkanBackend, VkError> {
        let n = frames_in_flight()?;
        let poll = frame::FencePoll::from_env()?;
        let gpu = Gpu::open()?;
        let frames = match Frames::new(&gpu, n, poll) {
            Ok(f) => f,
            Err(e) => {
                gpu.destroy();
                return Err(e);
            }
        };
        Ok(VulkanBackend {
            scr: ScreenTables::default(),
            ctxs: Table::default(),
            current: None,
            pipelines: HashMap::default(),
            dummies: Dummies::default(),
            texel_views: HashMap::default(),
            warned: Default::default(),
            frames,
            readback: None,
            imported_reads: 0,
            last_read_src: 0,
            host_image_writes: 0,
            light_render_states: 0,
            epoch: 0,
            last_draw: None,
            light: 0,
            draw_scratch: DrawScratch::default(),
            gpu,
        })
    }

    /// The physical device's name (diagnostics).
    pub fn device_name(&self) -> &str {
        &self.gpu.device_name
    }

    /// How many read-backs the device wrote straight into the caller's
    /// memory through a host-pointer import (diagnostics and tests).
    pub fn imported_read_backs(&self) -> u64 {
        self.imported_reads
    }

    /// The host address the device copied the last read-back of a whole
    /// image from, where known (CPU devices with host imports), else 0
    /// (diagnostics and tests: a destination in `mgpipe::bytes`' slow band
    /// from it is not imported).
    pub fn read_source_address(&self) -> usize {
        self.last_read_src
    }

    /// How many texture uploads the host wrote into a LINEAR image in
    /// place instead of staging a copy (diagnostics and tests).
    pub fn host_image_writes(&self) -> u64 {
        self.host_image_writes
    }

    /// How many draws applied a render-state change on the light path
    /// (`LIGHT_RS`: a cached pipeline bound, nothing else resolved again;
    /// diagnostics and tests).
    pub fn light_render_states(&self) -> u64 {
        self.light_render_states
    }

    /// Note that a call other than `draw` was applied (every `Screen` and
    /// `Context` method except `draw` calls this, but for the changes a
    /// following draw applies itself: those set a `LIGHT_*` bit instead).
    pub(crate) fn touch(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
    }

    /// Log `msg` once per backend.
    pub(crate) fn warn_once(&mut self, key: &'static str, msg: &str) {
        if self.warned.insert(key) {
            tracing::warn!("{msg} (logged once)");
        }
    }
}

impl Drop for VulkanBackend {
    fn drop(&mut self) {
        self.frames.destroy(&self.gpu);
        let gpu = &self.gpu;
        let mut all = Vec::new();
        for r in self.scr.resources.drain() {
            resource::collect_resource(r, &mut all);
        }
        for s in self.scr.surfaces.drain() {
            resource::collect_surface(s, &mut all);
        }
        for s in self.scr.samplers.drain() {
            all.push(frame::Garbage::Sampler(s.sampler));
        }
        for s in self.scr.shaders.drain() {
            if let Some(b) = s.built {
                b.collect(gpu, &mut all);
            }
        }
        for (_, p) in self.pipelines.drain() {
            all.push(frame::Garbage::Pipeline(p));
        }
        if let Some(b) = self.readback.take() {
            all.push(frame::Garbage::Buffer(b));
        }
        if let Some(b) = self.dummies.ubo.take() {
            all.push(frame::Garbage::Buffer(b));
        }
        if let Some(b) = self.dummies.ssbo.take() {
            all.push(frame::Garbage::Buffer(b));
        }
        for (_, img) in self.dummies.images.drain() {
            resource::collect_image(img, &mut all);
        }
        for (_, img) in self.dummies.storage_images.drain() {
            resource::collect_image(img, &mut all);
        }
        if let Some(s) = self.dummies.sampler.take() {
            all.push(frame::Garbage::Sampler(s));
        }
        if let Some(k) = self.dummies.clear.take() {
            k.collect(gpu, &mut all);
        }
        for g in all {
            g.destroy(gpu);
        }
        self.gpu.destroy();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_in_flight_knob() {
        // The only test in this binary touching the variable.
        std::env::set_var("MOBILEGL_VK_FRAMES_IN_FLIGHT", "3");
        assert_eq!(frames_in_flight().unwrap(), 3);
        for bad in ["0", "9", "two", ""] {
            std::env::set_var("MOBILEGL_VK_FRAMES_IN_FLIGHT", bad);
            assert!(
                matches!(frames_in_flight(), Err(VkError::BadKnob { .. })),
                "{bad:?}"
            );
        }
        std::env::remove_var("MOBILEGL_VK_FRAMES_IN_FLIGHT");
        assert_eq!(frames_in_flight().unwrap(), DEFAULT_FRAMES_IN_FLIGHT);
    }

    #[test]
    fn bool_knobs_refuse_anything_but_1_or_0() {
        // A variable no other test (or backend) reads.
        const K: &str = "MOBILEGL_VK_TEST_BOOL_KNOB";
        std::env::remove_var(K);
        assert!(bool_knob(K, true).unwrap());
        assert!(!bool_knob(K, false).unwrap());
        std::env::set_var(K, "0");
        assert!(!bool_knob(K, true).unwrap());
        std::env::set_var(K, "1");
        assert!(bool_knob(K, false).unwrap());
        for bad in ["", "yes", "2", " 1"] {
            std::env::set_var(K, bad);
            assert!(
                matches!(bool_knob(K, true), Err(VkError::BadKnob { .. })),
                "{bad:?}"
            );
        }
        std::env::remove_var(K);
    }
}
