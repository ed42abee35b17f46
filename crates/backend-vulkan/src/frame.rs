//! Submission machinery: a bounded ring of frames (command buffer + fence +
//! upload arena + descriptor pools), deferred destruction, and the one
//! open rendering instance.
//!
//! Every applied call records into the current frame's command buffer; a
//! frame is submitted at flush/finish/fence/readback boundaries. Reusing a
//! frame slot first waits for its fence, so at most `frames_in_flight`
//! submissions are outstanding. Synchronisation is deliberately simple and
//! conservative: every image lives in `GENERAL` layout, and a full memory
//! barrier separates each transfer and each rendering instance from what
//! came before it (so nothing needs a barrier after it); only upload copies
//! from the arena to disjoint regions run back to back (`upload_cmd`).
//! Transfers to destinations nothing in the frame uses yet (fresh or idle
//! buffers) go to the slot's `pre` command buffer instead
//! (`pre_upload_cmd`), opened and closed by a full barrier and submitted
//! in the same batch ahead of the main one; the arena slices they read are
//! reclaimed with the slot, once its fence signals.
//! Draws whose bindings are already recorded wait in `pending` and are
//! recorded as one multi-draw before anything else enters the command
//! buffer (`transfer_cmd`, `end_rendering`, `submit` flush them).

use ash::vk;
use tracing::warn;

use crate::device::{Gpu, RawBuffer};
use crate::VkError;

/// GL transform feedback between `xfb_begin` and `xfb_end`: Vulkan's
/// runs only inside a rendering instance, so it is begun after each
/// instance opens (while not paused) and ended before the instance ends,
/// the write positions carried across in a counter buffer (one 4-byte
/// counter per binding).
pub(crate) struct XfbRun {
    pub count: u32,
    /// The client's buffer handles (kept busy by every capturing draw).
    pub handles: [mgpipe::Handle; 4],
    pub buffers: [vk::Buffer; 4],
    pub offsets: [u64; 4],
    pub sizes: [u64; 4],
    pub counter: RawBuffer,
    /// The counters hold positions (an instance captured before).
    pub counters_valid: bool,
    pub paused: bool,
    /// Begun in the open rendering instance.
    pub recording: bool,
}

impl XfbRun {
    const COUNTER_OFFSETS: [u64; 4] = [0, 4, 8, 12];

    /// After a rendering instance began in `cmd`.
    pub fn start(&mut self, gpu: &Gpu, cmd: vk::CommandBuffer) {
        let Some(x) = gpu.xfb.as_ref() else {
            return;
        };
        if self.paused || self.recording || self.count == 0 {
            return;
        }
        let n = self.count as usize;
        let counters = [if self.counters_valid {
            self.counter.buffer
        } else {
            vk::Buffer::null()
        }; 4];
        // SAFETY: `cmd` is recording inside a rendering instance; the
        // buffers were created with transform feedback usage and the
        // ranges lie inside them (context.rs `xfb_begin`); the counter
        // writes of the last instance are visible (full barrier after it).
        unsafe {
            (x.fp().cmd_bind_transform_feedback_buffers_ext)(
                cmd,
                0,
                n as u32,
                self.buffers.as_ptr(),
                self.offsets.as_ptr(),
                self.sizes.as_ptr(),
            );
            (x.fp().cmd_begin_transform_feedback_ext)(
                cmd,
                0,
                n as u32,
                counters.as_ptr(),
                Self::COUNTER_OFFSETS.as_ptr(),
            );
        }
        self.recording = true;
    }

    /// Before the rendering instance in `cmd` ends.
    pub fn stop(&mut self, gpu: &Gpu, cmd: vk::CommandBuffer) {
        let Some(x) = gpu.xfb.as_ref() else {
            return;
        };
        if !self.recording {
            return;
        }
        let n = self.count as usize;
        let counters = [self.counter.buffer; 4];
        // SAFETY: transform feedback was begun in this instance (start).
        unsafe {
            (x.fp().cmd_end_transform_feedback_ext)(
                cmd,
                0,
                n as u32,
                counters.as_ptr(),
                Self::COUNTER_OFFSETS.as_ptr(),
            )
        };
        self.recording = false;
        self.counters_valid = true;
    }
}

/// Objects whose destruction waits until the GPU is done with them.
pub(crate) enum Garbage {
    Buffer(RawBuffer),
    Image(vk::Image, vk::DeviceMemory),
    View(vk::ImageView),
    BufferView(vk::BufferView),
    Pipeline(vk::Pipeline),
    Layout(vk::PipelineLayout),
    SetLayout(vk::DescriptorSetLayout),
    Sampler(vk::Sampler),
}

impl Garbage {
    pub fn destroy(self, gpu: &Gpu) {
        let d = &gpu.device;
        // SAFETY: only called once no submitted work can use the object
        // (its retire serial completed, or the device is idle).
        unsafe {
            match self {
                Garbage::Buffer(b) => b.destroy(gpu),
                Garbage::Image(i, m) => {
                    d.destroy_image(i, None);
                    d.free_memory(m, None);
                }
                Garbage::View(v) => d.destroy_image_view(v, None),
                Garbage::BufferView(v) => d.destroy_buffer_view(v, None),
                Garbage::Pipeline(p) => d.destroy_pipeline(p, None),
                Garbage::Layout(l) => d.destroy_pipeline_layout(l, None),
                Garbage::SetLayout(l) => d.destroy_descriptor_set_layout(l, None),
                Garbage::Sampler(s) => d.destroy_sampler(s, None),
            }
        }
    }
}

/// Bump allocator over host-visible buffers, reset when its frame retires.
#[derive(Default)]
pub(crate) struct Arena {
    blocks: Vec<(RawBuffer, u64)>,
    current: usize,
}

const ARENA_BLOCK: u64 = 4 << 20;

/// A slice of the upload arena.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ArenaAlloc {
    pub buffer: vk::Buffer,
    pub offset: u64,
    pub raw: RawBuffer,
}

impl ArenaAlloc {
    pub fn write(&self, at: u64, data: &[u8]) -> bool {
        self.raw.write(self.offset + at, data)
    }
}

impl Arena {
    fn reset(&mut self) {
        for b in &mut self.blocks {
            b.1 = 0;
        }
        self.current = 0;
    }

    fn alloc(&mut self, gpu: &Gpu, size: u64, align: u64) -> Result<ArenaAlloc, VkError> {
        let align = align.max(16);
        let size = size.max(4);
        while self.current < self.blocks.len() {
            let (raw, used) = &mut self.blocks[self.current];
            let at = used.div_ceil(align) * align;
            if at + size <= raw.size {
                *used = at + size;
                return Ok(ArenaAlloc {
                    buffer: raw.buffer,
                    offset: at,
                    raw: *raw,
                });
            }
            self.current += 1;
        }
        let usage = vk::BufferUsageFlags::TRANSFER_SRC
            | vk::BufferUsageFlags::TRANSFER_DST
            | vk::BufferUsageFlags::UNIFORM_BUFFER
            | vk::BufferUsageFlags::VERTEX_BUFFER
            | vk::BufferUsageFlags::INDEX_BUFFER;
        let raw = gpu.create_buffer(size.max(ARENA_BLOCK), usage, true)?;
        self.blocks.push((raw, size));
        self.current = self.blocks.len() - 1;
        Ok(ArenaAlloc {
            buffer: raw.buffer,
            offset: 0,
            raw,
        })
    }

    fn destroy(&mut self, gpu: &Gpu) {
        for (b, _) in self.blocks.drain(..) {
            b.destroy(gpu);
        }
    }
}

pub(crate) struct Frame {
    pub cmd: vk::CommandBuffer,
    /// Uploads hoisted before `cmd` (see `Frames::pre_upload_cmd`);
    /// submitted with it, in the same batch, ahead of it.
    pub pre: vk::CommandBuffer,
    pub fence: vk::Fence,
    /// Serial of the last submission from this slot (0: none pending).
    pub serial: u64,
    pub arena: Arena,
    pools: Vec<vk::DescriptorPool>,
    pool_at: usize,
    /// What the last submission from this slot touched: any image
    /// (`Frames::images_touched`), or only these attachment views.
    touched_any: bool,
    attached: Vec<vk::ImageView>,
    /// Images whose creation (layout transition) the submission carries.
    fresh: Vec<vk::Image>,
}

/// The attachments of the open rendering instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RenderTarget {
    pub color: [vk::ImageView; 8],
    pub depth: vk::ImageView,
    pub stencil: vk::ImageView,
    pub extent: vk::Extent2D,
    /// The rendering instance's layer count (above 1: layered rendering).
    pub layers: u32,
}

pub(crate) struct Frames {
    pub frames: Vec<Frame>,
    pub cur: usize,
    pub recording: bool,
    /// Serial the next submission gets.
    pub next_serial: u64,
    /// Every submission with a serial <= this has completed.
    pub completed: u64,
    /// How long the next fence wait polls before it blocks.
    fence_wait: FenceWaitPolicy,
    garbage: Vec<(u64, Garbage)>,
    /// The rendering instance open in the current command buffer.
    pub rendering: Option<RenderTarget>,
    /// GL transform feedback (begun in each rendering instance).
    pub xfb: Option<XfbRun>,
    /// Pipeline bound in the current command buffer.
    pub bound_pipeline: vk::Pipeline,
    /// Draw dynamic state last set in the current command buffer.
    pub dyn_state: Option<DynState>,
    /// (pipeline layout, set) bound at sets 0..4 (`spirv::SETS`) at the
    /// graphics bind point in the current command buffer.
    pub bound_sets: [(vk::PipelineLayout, vk::DescriptorSet); crate::spirv::SETS],
    /// Dynamic offsets set 0 was bound with.
    pub bound_ubo_offsets: Vec<u32>,
    /// (buffer, offset) bound at vertex bindings 0..16 in the current
    /// command buffer.
    pub bound_vertex: [(vk::Buffer, u64); 16],
    /// (buffer, offset, type) of the bound index buffer.
    pub bound_index: Option<(vk::Buffer, u64, vk::IndexType)>,
    /// The last descriptor set written per set index in the recording
    /// frame, with what it holds, so an unchanged set is reused.
    pub last_ubo_set: Option<(
        vk::DescriptorSetLayout,
        Vec<DescriptorBuffer>,
        vk::DescriptorSet,
    )>,
    pub last_sampler_set: Option<(
        vk::DescriptorSetLayout,
        Vec<DescriptorImage>,
        vk::DescriptorSet,
    )>,
    pub last_ssbo_set: Option<(
        vk::DescriptorSetLayout,
        Vec<DescriptorBuffer>,
        vk::DescriptorSet,
    )>,
    pub last_image_set: Option<(
        vk::DescriptorSetLayout,
        Vec<DescriptorImage>,
        vk::DescriptorSet,
    )>,
    /// Whether the recording frame may access images other than its
    /// rendering attachments (`attached`): set by every recording except
    /// staged buffer uploads and the opening of a rendering instance; an
    /// image upload recorded in the frame counts too. While it is false an
    /// idle image that is not an attachment may be written by the host
    /// (`host_may_write_image`).
    images_touched: bool,
    /// Views the recording frame renders to.
    attached: Vec<vk::ImageView>,
    /// Images created in the recording frame: their layout transition (from
    /// PREINITIALIZED, which keeps what the host wrote) is in `pre`, so the
    /// host may write them until the frame is submitted.
    fresh: Vec<vk::Image>,
    /// True when everything recorded since the last full barrier is upload
    /// copies (from the arena), whose destinations are `written`.
    after_upload: bool,
    written: Vec<Written>,
    /// The current slot's `pre` command buffer is recording; `pre_written`
    /// are the destinations written since its last barrier.
    pre_recording: bool,
    pre_written: Vec<Written>,
    /// Draws with identical bindings not yet recorded: (indexed, instance
    /// count, first instance) and per draw (first index or vertex, count,
    /// vertex offset). Recorded (as one multi-draw where possible) before
    /// anything else goes into the command buffer.
    pending_kind: Option<(bool, u32, u32)>,
    pending: Vec<(u32, u32, i32)>,
    /// Draws queued into the recording command buffer.
    pub draws_recorded: u32,
    /// Slots of the segmented queries, by `Segmented` index.
    pub seg_slots: [SlotPool; 3],
    pub ts_slots: SlotPool,
    /// The active segmented query of each kind, by `Segmented` index.
    pub active_seg: [Option<ActiveSegmented>; 3],
}

/// A command buffer holding this many draws is submitted at the next draw
/// boundary, so the device (lavapipe: its queue thread) executes it while
/// the rest of the frame is recorded instead of after the frame's flush.
pub(crate) const SUBMIT_EVERY_DRAWS: u32 = 512;

/// What one upload copy wrote: an object (image or buffer handle), a level
/// and half-open ranges (x, y, z, layer; buffers use x as the byte range).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Written {
    pub object: u64,
    pub level: u32,
    pub ranges: [(u64, u64); 4],
}

impl Written {
    fn overlaps(&self, o: &Written) -> bool {
        self.object == o.object
            && self.level == o.level
            && self
                .ranges
                .iter()
                .zip(o.ranges.iter())
                .all(|(a, b)| a.0 < b.1 && b.0 < a.1)
    }
}

/// How long a fence wait polls before it blocks.
const FENCE_SPIN: std::time::Duration = std::time::Duration::from_micros(200);

/// Whether a fence wait polls (yielding) before it blocks: only while the
/// waits before it were short. Polling saves a sleep and a wake-up when the
/// fence is about to signal; on a wait for a long submission it only burns
/// a core that the device's own thread (lavapipe's queue thread) could use.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct FenceWaitPolicy {
    mode: FencePoll,
    last_wait_long: bool,
}

/// `MOBILEGL_VK_FENCE_POLL`: when a fence wait polls before it blocks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum FencePoll {
    /// While the waits before it were short (the default).
    #[default]
    Adaptive,
    /// Always, up to `FENCE_SPIN`.
    Always,
    /// Never: every wait blocks at once.
    Never,
}

impl FencePoll {
    /// The knob's value (unset: `Adaptive`).
    pub fn from_env() -> Result<FencePoll, VkError> {
        const KNOB: &str = "MOBILEGL_VK_FENCE_POLL";
        match std::env::var(KNOB) {
            Err(_) => Ok(FencePoll::Adaptive),
            Ok(v) => match v.as_str() {
                "adaptive" => Ok(FencePoll::Adaptive),
                "always" => Ok(FencePoll::Always),
                "never" => Ok(FencePoll::Never),
                _ => Err(VkError::BadKnob {
                    knob: KNOB,
                    value: v,
                    why: "expected adaptive, always or never",
                }),
            },
        }
    }
}

impl FenceWaitPolicy {
    pub fn new(mode: FencePoll) -> Self {
        FenceWaitPolicy {
            mode,
            last_wait_long: false,
        }
    }

    /// How long the next wait may poll, at most `timeout_ns`.
    pub fn poll_budget(&self, timeout_ns: u64) -> std::time::Duration {
        let poll = match self.mode {
            FencePoll::Adaptive => !self.last_wait_long,
            FencePoll::Always => true,
            FencePoll::Never => false,
        };
        if poll {
            FENCE_SPIN.min(std::time::Duration::from_nanos(timeout_ns))
        } else {
            std::time::Duration::ZERO
        }
    }

    /// Learn from a finished wait (polled or blocked) how long it took.
    pub fn learn(&mut self, waited: std::time::Duration) {
        self.last_wait_long = waited > FENCE_SPIN;
    }
}

/// Query slots per VkQueryPool.
const QUERY_POOL_SLOTS: u32 = 64;
/// At most this many live query slots of one type (pools are never freed
/// before teardown).
const MAX_QUERY_SLOTS: u32 = QUERY_POOL_SLOTS * 256;

/// Query slots of one type, handed out from pools of `QUERY_POOL_SLOTS`.
/// A slot is reset in the command stream right before each use, so a freed
/// slot may be handed out again at once.
pub(crate) struct SlotPool {
    pub ty: vk::QueryType,
    pools: Vec<vk::QueryPool>,
    free: Vec<u32>,
    next: u32,
}

impl SlotPool {
    fn new(ty: vk::QueryType) -> SlotPool {
        SlotPool {
            ty,
            pools: Vec::new(),
            free: Vec::new(),
            next: 0,
        }
    }

    pub fn alloc(&mut self, gpu: &Gpu) -> Result<u32, VkError> {
        if let Some(s) = self.free.pop() {
            return Ok(s);
        }
        if self.next >= MAX_QUERY_SLOTS {
            return Err(VkError::Call {
                call: "vkCreateQueryPool (slot limit)",
                result: vk::Result::ERROR_OUT_OF_HOST_MEMORY,
            });
        }
        if (self.next / QUERY_POOL_SLOTS) as usize >= self.pools.len() {
            let ci = vk::QueryPoolCreateInfo::default()
                .query_type(self.ty)
                .query_count(QUERY_POOL_SLOTS);
            // SAFETY: valid device and create info.
            let pool = unsafe { gpu.device.create_query_pool(&ci, None) }.map_err(|result| {
                VkError::Call {
                    call: "vkCreateQueryPool",
                    result,
                }
            })?;
            self.pools.push(pool);
        }
        let s = self.next;
        self.next += 1;
        Ok(s)
    }

    pub fn release(&mut self, slot: u32) {
        if slot < self.next && !self.free.contains(&slot) {
            self.free.push(slot);
        }
    }

    /// (pool, index) of a slot handed out by `alloc`.
    pub fn at(&self, slot: u32) -> Option<(vk::QueryPool, u32)> {
        self.pools
            .get((slot / QUERY_POOL_SLOTS) as usize)
            .map(|&p| (p, slot % QUERY_POOL_SLOTS))
    }

    fn destroy(&mut self, gpu: &Gpu) {
        for p in self.pools.drain(..) {
            // SAFETY: the device is idle (teardown).
            unsafe { gpu.device.destroy_query_pool(p, None) };
        }
    }
}

/// The queries a GL query object may keep counting across command buffers:
/// a Vulkan query may not span command buffers, so each command buffer gets
/// its own slot (a segment) and the result adds them up. One of each kind
/// may be active at a time (GL allows one per target; the occlusion targets
/// share one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Segmented {
    /// SAMPLES_PASSED and the ANY_SAMPLES_PASSED targets.
    Occlusion = 0,
    /// PRIMITIVES_GENERATED (VK_EXT_primitives_generated_query).
    PrimitivesGenerated = 1,
    /// TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN (VK_EXT_transform_feedback's
    /// stream query; two values per slot: written, needed).
    XfbWritten = 2,
}

impl Segmented {
    pub const ALL: [Segmented; 3] = [
        Segmented::Occlusion,
        Segmented::PrimitivesGenerated,
        Segmented::XfbWritten,
    ];
}

/// The segmented query being counted (see `Segmented`).
pub(crate) struct ActiveSegmented {
    pub query: mgpipe::Handle,
    pub flags: vk::QueryControlFlags,
    pub slots: Vec<u32>,
    /// A segment is begun in the recording command buffer.
    pub open: bool,
}

/// Upload copies recorded back to back without a barrier between them.
const MAX_UNBARRIERED_UPLOADS: usize = 256;

/// (binding, array element, buffer, offset, range) of one uniform descriptor.
pub(crate) type DescriptorBuffer = (u32, u32, vk::Buffer, u64, u64);
/// (binding, array element, sampler, view) of one combined image sampler
/// (or, with a null sampler, of one storage image).
pub(crate) type DescriptorImage = (u32, u32, vk::Sampler, vk::ImageView);

/// The dynamic state a draw sets (compared bit for bit, floats included).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct DynState {
    pub viewport: [f32; 6],
    pub scissor: vk::Rect2D,
    pub blend: [f32; 4],
    pub stencil_ref: [u32; 2],
    /// constant (units), slope (factor), clamp.
    pub depth_bias: [f32; 3],
    pub line_width: f32,
}

impl Frames {
    /// Forget what the current command buffer has bound (after recording
    /// that binds other pipelines/layouts or sets other dynamic state).
    pub fn forget_bindings(&mut self) {
        self.bound_pipeline = vk::Pipeline::null();
        self.dyn_state = None;
        self.bound_sets =
            [(vk::PipelineLayout::null(), vk::DescriptorSet::null()); crate::spirv::SETS];
        self.bound_vertex = [(vk::Buffer::null(), 0); 16];
        self.bound_index = None;
    }
}

fn new_pool(gpu: &Gpu) -> Result<vk::DescriptorPool, VkError> {
    let sizes = [
        vk::DescriptorPoolSize {
            ty: vk::DescriptorType::UNIFORM_BUFFER,
            descriptor_count: 8192,
        },
        vk::DescriptorPoolSize {
            ty: vk::DescriptorType::UNIFORM_BUFFER_DYNAMIC,
            descriptor_count: 8192,
        },
        vk::DescriptorPoolSize {
            ty: vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
            descriptor_count: 8192,
        },
        vk::DescriptorPoolSize {
            ty: vk::DescriptorType::UNIFORM_TEXEL_BUFFER,
            descriptor_count: 1024,
        },
        vk::DescriptorPoolSize {
            ty: vk::DescriptorType::STORAGE_BUFFER,
            descriptor_count: 2048,
        },
        vk::DescriptorPoolSize {
            ty: vk::DescriptorType::STORAGE_IMAGE,
            descriptor_count: 1024,
        },
    ];
    let ci = vk::DescriptorPoolCreateInfo::default()
        .max_sets(2048)
        .pool_sizes(&sizes);
    // SAFETY: valid device and create info.
    unsafe { gpu.device.create_descriptor_pool(&ci, None) }.map_err(|result| VkError::Call {
        call: "vkCreateDescriptorPool",
        result,
    })
}

impl Frames {
    pub fn new(gpu: &Gpu, n: usize, fence_poll: FencePoll) -> Result<Frames, VkError> {
        let ai = vk::CommandBufferAllocateInfo::default()
            .command_pool(gpu.pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(2 * n as u32);
        // SAFETY: valid pool of this device.
        let cmds = unsafe { gpu.device.allocate_command_buffers(&ai) }.map_err(|result| {
            VkError::Call {
                call: "vkAllocateCommandBuffers",
                result,
            }
        })?;
        let mut frames = Vec::with_capacity(n);
        let (main, pre) = cmds.split_at(n);
        for (&cmd, &pre) in main.iter().zip(pre) {
            // SAFETY: valid device; unsignalled fence.
            let fence = unsafe {
                gpu.device
                    .create_fence(&vk::FenceCreateInfo::default(), None)
            }
            .map_err(|result| VkError::Call {
                call: "vkCreateFence",
                result,
            })?;
            frames.push(Frame {
                cmd,
                pre,
                fence,
                serial: 0,
                arena: Arena::default(),
                pools: Vec::new(),
                pool_at: 0,
                touched_any: false,
                attached: Vec::new(),
                fresh: Vec::new(),
            });
        }
        Ok(Frames {
            frames,
            cur: 0,
            recording: false,
            next_serial: 1,
            completed: 0,
            fence_wait: FenceWaitPolicy::new(fence_poll),
            garbage: Vec::new(),
            rendering: None,
            xfb: None,
            bound_pipeline: vk::Pipeline::null(),
            dyn_state: None,
            bound_sets: [(vk::PipelineLayout::null(), vk::DescriptorSet::null());
                crate::spirv::SETS],
            bound_ubo_offsets: Vec::new(),
            bound_vertex: [(vk::Buffer::null(), 0); 16],
            bound_index: None,
            last_ubo_set: None,
            last_sampler_set: None,
            last_ssbo_set: None,
            last_image_set: None,
            images_touched: false,
            attached: Vec::new(),
            fresh: Vec::new(),
            after_upload: false,
            written: Vec::new(),
            pre_recording: false,
            pre_written: Vec::new(),
            pending_kind: None,
            pending: Vec::new(),
            draws_recorded: 0,
            seg_slots: [
                SlotPool::new(vk::QueryType::OCCLUSION),
                SlotPool::new(vk::QueryType::PRIMITIVES_GENERATED_EXT),
                SlotPool::new(vk::QueryType::TRANSFORM_FEEDBACK_STREAM_EXT),
            ],
            ts_slots: SlotPool::new(vk::QueryType::TIMESTAMP),
            active_seg: [None, None, None],
        })
    }

    /// The command buffer being recorded, opening a frame if needed, with
    /// pending draws left pending (for host-side work and for draws that
    /// join them). Flags the frame as touching any image.
    pub fn cmd_keep(&mut self, gpu: &Gpu) -> Result<vk::CommandBuffer, VkError> {
        let cmd = self.open(gpu)?;
        self.images_touched = true;
        Ok(cmd)
    }

    /// The command buffer a rendering instance on `views` opens in (pending
    /// draws recorded first unless `keep_pending`): like `cmd_keep`, but
    /// what the instance itself touches is listed, not flagged.
    pub fn cmd_for_rendering(
        &mut self,
        gpu: &Gpu,
        keep_pending: bool,
        views: impl IntoIterator<Item = vk::ImageView>,
    ) -> Result<vk::CommandBuffer, VkError> {
        if !keep_pending {
            self.flush_draws(gpu);
        }
        let cmd = self.open(gpu)?;
        for v in views {
            if v != vk::ImageView::null() && !self.attached.contains(&v) {
                self.attached.push(v);
            }
        }
        Ok(cmd)
    }

    /// Note `image`, created in the recording frame with its transition
    /// out of PREINITIALIZED recorded in `pre`.
    pub fn note_fresh(&mut self, image: vk::Image) {
        self.fresh.push(image);
    }

    /// Whether the host may write `image` (whose views are `views`) now:
    /// neither the recording frame nor a submission still in flight may
    /// touch it (each touched only attachments, none a view of it, and
    /// did not create it; or completed). An image created in the
    /// recording frame may be written until the frame is submitted (its
    /// transition keeps the bytes). Otherwise a recording frame that does
    /// not touch it is submitted first, so the device runs it (a clear,
    /// say) while the host copies.
    pub fn host_may_write_image<'a>(
        &mut self,
        gpu: &Gpu,
        image: vk::Image,
        views: impl Iterator<Item = &'a vk::ImageView> + Clone,
    ) -> bool {
        let touches = |any: bool, attached: &[vk::ImageView], fresh: &[vk::Image]| {
            any || fresh.contains(&image) || views.clone().any(|v| attached.contains(v))
        };
        if self.recording {
            if self.images_touched || views.clone().any(|v| self.attached.contains(v)) {
                return false;
            }
            if !self.fresh.contains(&image) && self.submit(gpu).is_err() {
                return false;
            }
        }
        for i in 0..self.frames.len() {
            let f = &self.frames[i];
            if f.serial > self.completed
                && touches(f.touched_any, &f.attached, &f.fresh)
                && !self.is_done(gpu, f.serial)
            {
                return false;
            }
        }
        true
    }

    /// Begin a frame if none is recording; the recording command buffer.
    fn open(&mut self, gpu: &Gpu) -> Result<vk::CommandBuffer, VkError> {
        if self.recording {
            return Ok(self.frames[self.cur].cmd);
        }
        let serial = self.frames[self.cur].serial;
        if serial > self.completed {
            self.wait_frame(gpu, self.cur, u64::MAX)?;
        }
        self.collect(gpu);
        let f = &mut self.frames[self.cur];
        f.arena.reset();
        for &p in &f.pools {
            // SAFETY: the frame's work completed (fence waited above).
            unsafe {
                let _ = gpu
                    .device
                    .reset_descriptor_pool(p, vk::DescriptorPoolResetFlags::empty());
            }
        }
        f.pool_at = 0;
        // SAFETY: the command buffer's previous submission completed.
        unsafe {
            gpu.device
                .reset_command_buffer(f.cmd, vk::CommandBufferResetFlags::empty())
                .map_err(|result| VkError::Call {
                    call: "vkResetCommandBuffer",
                    result,
                })?;
            gpu.device
                .begin_command_buffer(
                    f.cmd,
                    &vk::CommandBufferBeginInfo::default()
                        .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT),
                )
                .map_err(|result| VkError::Call {
                    call: "vkBeginCommandBuffer",
                    result,
                })?;
        }
        let cmd = f.cmd;
        if let Some(q) = &gpu.image_slots {
            q.bind(gpu, cmd);
        }
        self.recording = true;
        self.rendering = None;
        self.forget_bindings();
        // The frame's descriptor pools were reset with it.
        self.last_ubo_set = None;
        self.last_sampler_set = None;
        self.last_ssbo_set = None;
        self.last_image_set = None;
        self.after_upload = false;
        self.written.clear();
        self.images_touched = false;
        self.attached.clear();
        self.fresh.clear();
        self.draws_recorded = 0;
        for k in Segmented::ALL {
            // An active query continues in this command buffer.
            if let Err(e) = self.begin_segment(gpu, cmd, k) {
                warn!(kind = ?k, "query: new segment failed: {e}");
            }
        }
        Ok(cmd)
    }

    /// Begin a segment of the active query of kind `k` in `cmd`
    /// (recording, outside rendering); nothing when none is active.
    pub fn begin_segment(
        &mut self,
        gpu: &Gpu,
        cmd: vk::CommandBuffer,
        k: Segmented,
    ) -> Result<(), VkError> {
        let i = k as usize;
        let Some(a) = self.active_seg[i].as_ref() else {
            return Ok(());
        };
        if a.open {
            return Ok(());
        }
        let flags = a.flags;
        let slot = self.seg_slots[i].alloc(gpu)?;
        let Some((pool, idx)) = self.seg_slots[i].at(slot) else {
            return Ok(());
        };
        // SAFETY: recording outside rendering; the slot is reset before it
        // is begun; no other query of this type is active in `cmd`.
        unsafe {
            gpu.device.cmd_reset_query_pool(cmd, pool, idx, 1);
            gpu.device.cmd_begin_query(cmd, pool, idx, flags);
        }
        if let Some(a) = self.active_seg[i].as_mut() {
            a.slots.push(slot);
            a.open = true;
        }
        Ok(())
    }

    /// End the open segment of the active query of kind `k` in the
    /// recording command buffer (outside rendering).
    pub fn end_segment(&mut self, gpu: &Gpu, k: Segmented) {
        let i = k as usize;
        let Some(a) = self.active_seg[i].as_mut() else {
            return;
        };
        if !a.open || !self.recording {
            return;
        }
        a.open = false;
        let Some((pool, idx)) = a.slots.last().and_then(|&s| self.seg_slots[i].at(s)) else {
            return;
        };
        let cmd = self.frames[self.cur].cmd;
        // SAFETY: the query was begun in this command buffer, outside
        // rendering, and callers ended any rendering instance.
        unsafe { gpu.device.cmd_end_query(cmd, pool, idx) };
    }

    /// Whether submission `serial` completed, polling fences without
    /// waiting (work recorded but not submitted is never done).
    pub fn is_done(&mut self, gpu: &Gpu, serial: u64) -> bool {
        if serial <= self.completed {
            return true;
        }
        if serial >= self.next_serial {
            return false;
        }
        let slot = self
            .frames
            .iter()
            .filter(|f| f.serial >= serial)
            .min_by_key(|f| f.serial);
        let Some(f) = slot else {
            return false;
        };
        // SAFETY: the fence belongs to a submitted batch of this device.
        if let Ok(true) = unsafe { gpu.device.get_fence_status(f.fence) } {
            self.completed = self.completed.max(f.serial);
            return true;
        }
        false
    }

    /// A full barrier in the recording command buffer (outside rendering).
    pub fn full_barrier(&mut self, gpu: &Gpu, cmd: vk::CommandBuffer) {
        barrier(gpu, cmd);
        self.after_upload = false;
        self.written.clear();
    }

    /// The recording command buffer, outside rendering, ready for an upload
    /// copy (arena -> `w`). Back-to-back uploads whose destinations do not
    /// overlap share one barrier; every other command records a full
    /// barrier before it runs (`transfer_cmd`, `begin_rendering`), so no
    /// barrier is needed after an upload.
    pub fn upload_cmd(&mut self, gpu: &Gpu, w: Written) -> Result<vk::CommandBuffer, VkError> {
        if self.recording
            && self.rendering.is_none()
            && self.after_upload
            && self.written.len() < MAX_UNBARRIERED_UPLOADS
            && !self.written.iter().any(|x| x.overlaps(&w))
        {
            self.written.push(w);
            return Ok(self.frames[self.cur].cmd);
        }
        let cmd = self.transfer_cmd_quiet(gpu)?;
        self.after_upload = true;
        self.written.push(w);
        Ok(cmd)
    }

    /// Flag the recording frame as touching images beyond its attachments
    /// (an image upload staged into it).
    pub fn touch_images(&mut self) {
        self.images_touched = true;
    }

    /// The recording frame's `pre` command buffer, ready for a transfer
    /// (arena copy or fill) to `w`. It runs before everything recorded in
    /// the frame's main command buffer and after every earlier submission
    /// (a full barrier opens and closes it), so only destinations that
    /// nothing recorded in the main command buffer uses may be written
    /// here: fresh storage, or a buffer whose `last_use` completed (the
    /// same rule that lets the host write it on unified memory). Recording
    /// here never ends the open rendering instance. Back-to-back writes to
    /// disjoint destinations share one barrier.
    pub fn pre_upload_cmd(&mut self, gpu: &Gpu, w: Written) -> Result<vk::CommandBuffer, VkError> {
        self.open(gpu)?;
        let pre = self.frames[self.cur].pre;
        if !self.pre_recording {
            // SAFETY: `pre` belongs to the current slot, whose previous
            // submission completed (`cmd_keep` waited for it before
            // beginning the main command buffer); both are submitted
            // together, so neither is pending.
            unsafe {
                gpu.device
                    .reset_command_buffer(pre, vk::CommandBufferResetFlags::empty())
                    .map_err(|result| VkError::Call {
                        call: "vkResetCommandBuffer",
                        result,
                    })?;
                gpu.device
                    .begin_command_buffer(
                        pre,
                        &vk::CommandBufferBeginInfo::default()
                            .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT),
                    )
                    .map_err(|result| VkError::Call {
                        call: "vkBeginCommandBuffer",
                        result,
                    })?;
            }
            // Earlier submissions may still read what these transfers
            // overwrite.
            barrier(gpu, pre);
            self.pre_recording = true;
            self.pre_written.clear();
        } else if self.pre_written.len() >= MAX_UNBARRIERED_UPLOADS
            || self.pre_written.iter().any(|x| x.overlaps(&w))
        {
            barrier(gpu, pre);
            self.pre_written.clear();
        }
        self.pre_written.push(w);
        Ok(pre)
    }

    /// Wait for slot `i`'s last submission (false: timed out).
    fn wait_frame(&mut self, gpu: &Gpu, i: usize, timeout: u64) -> Result<bool, VkError> {
        let f = &self.frames[i];
        if f.serial == 0 || f.serial <= self.completed {
            return Ok(true);
        }
        // Poll first while waits have been short (a read-back or glFinish
        // right after a small submission); block at once while they have
        // been long (a frame slot or a finish behind a long submission).
        // Every wait, polled or blocked, teaches the policy.
        let start = std::time::Instant::now();
        let spin = self.fence_wait.poll_budget(timeout);
        let fence = f.fence;
        let serial = f.serial;
        let done = loop {
            // SAFETY: the fence belongs to a submitted batch of this device.
            match unsafe { gpu.device.get_fence_status(fence) } {
                Ok(true) => break true,
                Ok(false) if start.elapsed() < spin => std::thread::yield_now(),
                Ok(false) => break false,
                Err(result) => {
                    return Err(VkError::Call {
                        call: "vkGetFenceStatus",
                        result,
                    })
                }
            }
        };
        let signalled = if done {
            true
        } else {
            let left = timeout.saturating_sub(start.elapsed().as_nanos() as u64);
            // SAFETY: the fence belongs to a submitted batch of this device.
            match unsafe { gpu.device.wait_for_fences(&[fence], true, left) } {
                Ok(()) => true,
                Err(vk::Result::TIMEOUT) => false,
                Err(result) => {
                    return Err(VkError::Call {
                        call: "vkWaitForFences",
                        result,
                    })
                }
            }
        };
        self.fence_wait.learn(start.elapsed());
        if signalled {
            self.completed = self.completed.max(serial);
        }
        Ok(signalled)
    }

    /// Wait until submission `serial` completed (false: timed out).
    pub fn wait_serial(&mut self, gpu: &Gpu, serial: u64, timeout: u64) -> Result<bool, VkError> {
        if serial <= self.completed {
            return Ok(true);
        }
        // Queue order: waiting for the oldest slot whose serial >= `serial`
        // covers it.
        let slot = self
            .frames
            .iter()
            .enumerate()
            .filter(|(_, f)| f.serial >= serial)
            .min_by_key(|(_, f)| f.serial)
            .map(|(i, _)| i);
        match slot {
            Some(i) => {
                let ok = self.wait_frame(gpu, i, timeout)?;
                if ok {
                    self.completed = self.completed.max(serial);
                    self.collect(gpu);
                }
                Ok(ok)
            }
            // Not submitted yet (cannot happen: fences submit first).
            None => Ok(false),
        }
    }

    /// Queue a draw using the bindings recorded so far (the caller flushed
    /// pending draws before recording any binding).
    pub fn push_draw(&mut self, gpu: &Gpu, kind: (bool, u32, u32), draw: (u32, u32, i32)) {
        // drawCount must be less than maxMultiDrawCount.
        let cap = (gpu.max_multi_draw.saturating_sub(1) as usize).clamp(1, 1024);
        if self.pending_kind != Some(kind) || self.pending.len() >= cap {
            self.flush_draws(gpu);
        }
        self.pending_kind = Some(kind);
        self.pending.push(draw);
        self.draws_recorded += 1;
        self.images_touched = true;
    }

    /// Record the pending draws.
    pub fn flush_draws(&mut self, gpu: &Gpu) {
        let Some((indexed, inst, first_inst)) = self.pending_kind.take() else {
            return;
        };
        if !self.recording || self.rendering.is_none() {
            // Cannot happen: draws are queued inside a rendering instance
            // and flushed before it ends.
            self.pending.clear();
            return;
        }
        let cmd = self.frames[self.cur].cmd;
        let d = &gpu.device;
        let n = self.pending.len();
        // SAFETY: `cmd` is recording inside the rendering instance the
        // draws were queued in, with the bindings they were queued with
        // (nothing was recorded since); the multi-draw arrays are tightly
        // packed, `n` < maxMultiDrawCount (push_draw).
        unsafe {
            match &gpu.multi_draw {
                Some(md) if n > 1 && indexed => {
                    let infos: Vec<vk::MultiDrawIndexedInfoEXT> = self
                        .pending
                        .iter()
                        .map(|&(first, count, vo)| vk::MultiDrawIndexedInfoEXT {
                            first_index: first,
                            index_count: count,
                            vertex_offset: vo,
                        })
                        .collect();
                    (md.fp().cmd_draw_multi_indexed_ext)(
                        cmd,
                        n as u32,
                        infos.as_ptr(),
                        inst,
                        first_inst,
                        std::mem::size_of::<vk::MultiDrawIndexedInfoEXT>() as u32,
                        std::ptr::null(),
                    );
                }
                Some(md) if n > 1 => {
                    let infos: Vec<vk::MultiDrawInfoEXT> = self
                        .pending
                        .iter()
                        .map(|&(first, count, _)| vk::MultiDrawInfoEXT {
                            first_vertex: first,
                            vertex_count: count,
                        })
                        .collect();
                    (md.fp().cmd_draw_multi_ext)(
                        cmd,
                        n as u32,
                        infos.as_ptr(),
                        inst,
                        first_inst,
                        std::mem::size_of::<vk::MultiDrawInfoEXT>() as u32,
                    );
                }
                _ => {
                    for &(first, count, vo) in &self.pending {
                        if indexed {
                            d.cmd_draw_indexed(cmd, count, inst, first, vo, first_inst);
                        } else {
                            d.cmd_draw(cmd, count, inst, first, first_inst);
                        }
                    }
                }
            }
        }
        self.pending.clear();
    }

    /// Finish recording and submit; returns the serial of the work so far
    /// (the last submission's when nothing was recorded).
    pub fn submit(&mut self, gpu: &Gpu) -> Result<u64, VkError> {
        self.flush_draws(gpu);
        if !self.recording {
            return Ok(self.next_serial - 1);
        }
        let cmd = self.frames[self.cur].cmd;
        if self.rendering.take().is_some() {
            if let Some(x) = self.xfb.as_mut() {
                x.stop(gpu, cmd);
            }
            gpu.end_rendering(cmd);
        }
        for k in Segmented::ALL {
            self.end_segment(gpu, k);
        }
        self.recording = false;
        let pre = std::mem::take(&mut self.pre_recording);
        let f = &mut self.frames[self.cur];
        if pre {
            // What the hoisted transfers wrote is visible to the main
            // command buffer.
            barrier(gpu, f.pre);
            // SAFETY: `pre` is recording (pre_upload_cmd began it).
            unsafe { gpu.device.end_command_buffer(f.pre) }.map_err(|result| VkError::Call {
                call: "vkEndCommandBuffer",
                result,
            })?;
        }
        // SAFETY: `cmd` is recording and outside any rendering instance;
        // the fence is unsignalled (reset below before reuse).
        unsafe {
            gpu.device
                .end_command_buffer(cmd)
                .map_err(|result| VkError::Call {
                    call: "vkEndCommandBuffer",
                    result,
                })?;
            gpu.device
                .reset_fences(&[f.fence])
                .map_err(|result| VkError::Call {
                    call: "vkResetFences",
                    result,
                })?;
            // Submission order: the hoisted transfers first (the barrier
            // closing `pre` orders them before everything in `cmd`).
            let both = [f.pre, cmd];
            let cmds: &[vk::CommandBuffer] = if pre { &both } else { &both[1..] };
            let si = vk::SubmitInfo::default().command_buffers(cmds);
            gpu.device
                .queue_submit(gpu.queue, &[si], f.fence)
                .map_err(|result| VkError::Call {
                    call: "vkQueueSubmit",
                    result,
                })?;
        }
        let serial = self.next_serial;
        self.next_serial += 1;
        f.serial = serial;
        f.touched_any = self.images_touched;
        std::mem::swap(&mut f.attached, &mut self.attached);
        self.attached.clear();
        std::mem::swap(&mut f.fresh, &mut self.fresh);
        self.fresh.clear();
        self.cur = (self.cur + 1) % self.frames.len();
        Ok(serial)
    }

    /// Submit and wait for everything.
    pub fn finish(&mut self, gpu: &Gpu) -> Result<(), VkError> {
        let s = self.submit(gpu)?;
        self.wait_serial(gpu, s, u64::MAX)?;
        Ok(())
    }

    /// Queue `g` for destruction once the work recorded so far completes.
    pub fn retire(&mut self, g: Garbage) {
        let serial = if self.recording {
            self.next_serial
        } else {
            self.next_serial - 1
        };
        self.garbage.push((serial, g));
    }

    fn collect(&mut self, gpu: &Gpu) {
        let done = self.completed;
        let mut i = 0;
        while i < self.garbage.len() {
            if self.garbage[i].0 <= done {
                self.garbage.swap_remove(i).1.destroy(gpu);
            } else {
                i += 1;
            }
        }
    }

    /// Allocate upload space in the recording frame.
    pub fn upload(&mut self, gpu: &Gpu, size: u64, align: u64) -> Result<ArenaAlloc, VkError> {
        self.open(gpu)?;
        self.frames[self.cur].arena.alloc(gpu, size, align)
    }

    /// Allocate a descriptor set from the recording frame's pools.
    pub fn descriptor_set(
        &mut self,
        gpu: &Gpu,
        layout: vk::DescriptorSetLayout,
    ) -> Result<vk::DescriptorSet, VkError> {
        self.cmd_keep(gpu)?;
        let f = &mut self.frames[self.cur];
        loop {
            if f.pool_at >= f.pools.len() {
                f.pools.push(new_pool(gpu)?);
                f.pool_at = f.pools.len() - 1;
            }
            let layouts = [layout];
            let ai = vk::DescriptorSetAllocateInfo::default()
                .descriptor_pool(f.pools[f.pool_at])
                .set_layouts(&layouts);
            // SAFETY: valid pool and layout of this device.
            match unsafe { gpu.device.allocate_descriptor_sets(&ai) } {
                Ok(v) if !v.is_empty() => return Ok(v[0]),
                Ok(_) => {
                    return Err(VkError::Call {
                        call: "vkAllocateDescriptorSets",
                        result: vk::Result::ERROR_UNKNOWN,
                    })
                }
                Err(vk::Result::ERROR_OUT_OF_POOL_MEMORY | vk::Result::ERROR_FRAGMENTED_POOL)
                    if f.pool_at + 1 < f.pools.len() || f.pools.len() < 64 =>
                {
                    f.pool_at += 1;
                }
                Err(result) => {
                    return Err(VkError::Call {
                        call: "vkAllocateDescriptorSets",
                        result,
                    })
                }
            }
        }
    }

    /// Close the rendering instance, if any (before transfers/barriers).
    pub fn end_rendering(&mut self, gpu: &Gpu) {
        self.flush_draws(gpu);
        if self.rendering.take().is_some() {
            let cmd = self.frames[self.cur].cmd;
            if let Some(x) = self.xfb.as_mut() {
                x.stop(gpu, cmd);
            }
            gpu.end_rendering(cmd);
            self.full_barrier(gpu, cmd);
        }
    }

    /// The recording command buffer, outside any rendering instance, after
    /// a full barrier (ready for a transfer).
    pub fn transfer_cmd(&mut self, gpu: &Gpu) -> Result<vk::CommandBuffer, VkError> {
        let cmd = self.transfer_cmd_quiet(gpu)?;
        self.images_touched = true;
        Ok(cmd)
    }

    /// `transfer_cmd` for staged uploads, which list what they write.
    fn transfer_cmd_quiet(&mut self, gpu: &Gpu) -> Result<vk::CommandBuffer, VkError> {
        self.flush_draws(gpu);
        let cmd = self.open(gpu)?;
        if self.rendering.is_some() {
            self.end_rendering(gpu);
        } else {
            self.full_barrier(gpu, cmd);
        }
        Ok(cmd)
    }

    /// Wait for the whole device and destroy everything pending.
    pub fn destroy(&mut self, gpu: &Gpu) {
        if self.recording {
            if let Err(e) = self.submit(gpu) {
                warn!("final submit failed: {e}");
            }
        }
        if let Some(x) = self.xfb.take() {
            self.garbage
                .push((self.next_serial, Garbage::Buffer(x.counter)));
        }
        // SAFETY: teardown; waits for all queued work.
        unsafe {
            let _ = gpu.device.device_wait_idle();
        }
        self.completed = u64::MAX;
        self.collect(gpu);
        for p in &mut self.seg_slots {
            p.destroy(gpu);
        }
        self.ts_slots.destroy(gpu);
        for f in &mut self.frames {
            f.arena.destroy(gpu);
            // SAFETY: the device is idle; these objects are ours.
            unsafe {
                for p in f.pools.drain(..) {
                    gpu.device.destroy_descriptor_pool(p, None);
                }
                gpu.device.destroy_fence(f.fence, None);
            }
        }
        self.frames.clear();
    }
}

/// Full memory barrier: every earlier command's writes are visible to every
/// later command (conservative; correctness over speed).
pub(crate) fn barrier(gpu: &Gpu, cmd: vk::CommandBuffer) {
    let mb = [vk::MemoryBarrier::default()
        .src_access_mask(vk::AccessFlags::MEMORY_WRITE)
        .dst_access_mask(
            vk::AccessFlags::MEMORY_READ
                | vk::AccessFlags::MEMORY_WRITE
                | vk::AccessFlags::HOST_READ,
        )];
    // SAFETY: `cmd` is recording outside any rendering instance.
    unsafe {
        gpu.device.cmd_pipeline_barrier(
            cmd,
            vk::PipelineStageFlags::ALL_COMMANDS,
            vk::PipelineStageFlags::ALL_COMMANDS | vk::PipelineStageFlags::HOST,
            vk::DependencyFlags::empty(),
            &mb,
            &[],
            &[],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn fence_waits_poll_only_after_short_waits() {
        let mut p = FenceWaitPolicy::default();
        // Nothing learned yet: poll, bounded by the caller's timeout.
        assert_eq!(p.poll_budget(u64::MAX), FENCE_SPIN);
        assert_eq!(p.poll_budget(1_000), Duration::from_micros(1));
        // A long wait: the next one blocks at once.
        p.learn(FENCE_SPIN * 5);
        assert_eq!(p.poll_budget(u64::MAX), Duration::ZERO);
        // A short wait (even a blocked one) turns polling back on.
        p.learn(FENCE_SPIN / 4);
        assert_eq!(p.poll_budget(u64::MAX), FENCE_SPIN);
        // The knob's fixed modes ignore what waits took.
        let mut always = FenceWaitPolicy::new(FencePoll::Always);
        always.learn(FENCE_SPIN * 5);
        assert_eq!(always.poll_budget(u64::MAX), FENCE_SPIN);
        let never = FenceWaitPolicy::new(FencePoll::Never);
        assert_eq!(never.poll_budget(u64::MAX), Duration::ZERO);
    }
}
