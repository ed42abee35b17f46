//! lavapipe quirk: one storage-image slot per vertex-pipeline stage, bound
//! at the start of every command buffer.
//!
//! Why: lavapipe (Mesa 22.3, Debian 12's) ends every command buffer it
//! executes with `cso_unbind_context`, which unbinds *all* shader-image
//! slots of every stage; llvmpipe then believes 64 image slots are in use
//! in the vertex, geometry and both tessellation stages, and before and
//! after every draw walks those 4 x 64 (empty) slots to map and unmap them.
//! callgrind of lavapipe's queue thread on `monolith+vulkan` `ubo`: 4.3 k of
//! its 13 k instructions per draw. lavapipe only lowers that count when a
//! descriptor set gives those stages a storage image, so we bind a set with
//! one 1x1 image visible to them (no shader uses it) before the first draw
//! of every command buffer: the walk covers one slot instead of 64.
//!
//! Owns: the image, its memory and view, a set layout, a pool with the one
//! set, and a pipeline layout `[empty, empty, empty, empty, image]` used
//! only to bind it (set index 4, above the UBO, sampler, storage-buffer and
//! storage-image sets of every program, which every frame binds after it
//! and which therefore never replace it). Applied only on llvmpipe devices
//! (with more than 4 descriptor sets); `MOBILEGL_VK_LVP_IMAGE_SLOTS=0`
//! turns it off.

use ash::vk;
use tracing::debug;

use crate::device::Gpu;
use crate::VkError;

/// Set index the image set is bound at (after the `spirv::SETS` sets of
/// program layouts).
const IMAGE_SLOT_SET: u32 = crate::spirv::SETS as u32;

pub(crate) struct ImageSlots {
    image: vk::Image,
    memory: vk::DeviceMemory,
    view: vk::ImageView,
    empty: vk::DescriptorSetLayout,
    set_layout: vk::DescriptorSetLayout,
    pool: vk::DescriptorPool,
    set: vk::DescriptorSet,
    layout: vk::PipelineLayout,
}

/// Whether the quirk applies to this device (the knob is checked by the
/// caller).
pub(crate) fn wanted(device_name: &str, geometry: bool, tessellation: bool) -> bool {
    device_name.contains("llvmpipe") && geometry && tessellation
}

impl ImageSlots {
    /// Create the objects; on failure everything made so far is destroyed.
    pub fn new(gpu: &Gpu) -> Result<Self, VkError> {
        let mut s = ImageSlots {
            image: vk::Image::null(),
            memory: vk::DeviceMemory::null(),
            view: vk::ImageView::null(),
            empty: vk::DescriptorSetLayout::null(),
            set_layout: vk::DescriptorSetLayout::null(),
            pool: vk::DescriptorPool::null(),
            set: vk::DescriptorSet::null(),
            layout: vk::PipelineLayout::null(),
        };
        match s.build(gpu) {
            Ok(()) => Ok(s),
            Err(e) => {
                s.destroy(gpu);
                Err(e)
            }
        }
    }

    fn build(&mut self, gpu: &Gpu) -> Result<(), VkError> {
        let d = &gpu.device;
        let call = |call: &'static str| move |result| VkError::Call { call, result };
        // With nullDescriptor the slot stays empty: llvmpipe skips it, where
        // a real image is mapped for every draw (+700 instructions a draw).
        if !gpu.feat.null_descriptor {
            self.make_image(gpu)?;
        }
        // SAFETY: valid device, an empty create info.
        self.empty = unsafe {
            d.create_descriptor_set_layout(&vk::DescriptorSetLayoutCreateInfo::default(), None)
        }
        .map_err(call("vkCreateDescriptorSetLayout"))?;
        let binding = [vk::DescriptorSetLayoutBinding::default()
            .binding(0)
            .descriptor_type(vk::DescriptorType::STORAGE_IMAGE)
            .descriptor_count(1)
            .stage_flags(
                vk::ShaderStageFlags::VERTEX
                    | vk::ShaderStageFlags::GEOMETRY
                    | vk::ShaderStageFlags::TESSELLATION_CONTROL
                    | vk::ShaderStageFlags::TESSELLATION_EVALUATION,
            )];
        // SAFETY: valid device and create info.
        self.set_layout = unsafe {
            d.create_descriptor_set_layout(
                &vk::DescriptorSetLayoutCreateInfo::default().bindings(&binding),
                None,
            )
        }
        .map_err(call("vkCreateDescriptorSetLayout"))?;
        let sizes = [vk::DescriptorPoolSize {
            ty: vk::DescriptorType::STORAGE_IMAGE,
            descriptor_count: 1,
        }];
        // SAFETY: valid device and create info.
        self.pool = unsafe {
            d.create_descriptor_pool(
                &vk::DescriptorPoolCreateInfo::default()
                    .max_sets(1)
                    .pool_sizes(&sizes),
                None,
            )
        }
        .map_err(call("vkCreateDescriptorPool"))?;
        let layouts = [self.set_layout];
        // SAFETY: the pool made above has room for this one set.
        self.set = unsafe {
            d.allocate_descriptor_sets(
                &vk::DescriptorSetAllocateInfo::default()
                    .descriptor_pool(self.pool)
                    .set_layouts(&layouts),
            )
        }
        .map_err(call("vkAllocateDescriptorSets"))?[0];
        // A null view when the image was not made (nullDescriptor).
        let info = [vk::DescriptorImageInfo::default()
            .image_view(self.view)
            .image_layout(vk::ImageLayout::GENERAL)];
        let write = vk::WriteDescriptorSet::default()
            .dst_set(self.set)
            .dst_binding(0)
            .descriptor_type(vk::DescriptorType::STORAGE_IMAGE)
            .image_info(&info);
        // SAFETY: the set is live and unused; the view is live or null
        // (nullDescriptor enabled).
        unsafe { d.update_descriptor_sets(&[write], &[]) };
        let mut set_layouts = [self.empty; IMAGE_SLOT_SET as usize + 1];
        set_layouts[IMAGE_SLOT_SET as usize] = self.set_layout;
        // SAFETY: valid device; the set layouts made above.
        self.layout = unsafe {
            d.create_pipeline_layout(
                &vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts),
                None,
            )
        }
        .map_err(call("vkCreatePipelineLayout"))?;
        debug!("lavapipe image-slot quirk on");
        Ok(())
    }

    /// The 1x1 image the slot names when empty slots are not allowed.
    fn make_image(&mut self, gpu: &Gpu) -> Result<(), VkError> {
        // R32_UINT: storage-image support is mandatory for it.
        let ci = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(vk::Format::R32_UINT)
            .extent(vk::Extent3D {
                width: 1,
                height: 1,
                depth: 1,
            })
            .mip_levels(1)
            .array_layers(1)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(vk::ImageUsageFlags::STORAGE)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        (self.image, self.memory, _) = gpu.create_image(&ci)?;
        let vci = vk::ImageViewCreateInfo::default()
            .image(self.image)
            .view_type(vk::ImageViewType::TYPE_2D)
            .format(vk::Format::R32_UINT)
            .subresource_range(vk::ImageSubresourceRange {
                aspect_mask: vk::ImageAspectFlags::COLOR,
                base_mip_level: 0,
                level_count: 1,
                base_array_layer: 0,
                layer_count: 1,
            });
        // SAFETY: valid device; the view names the image made above.
        self.view = unsafe { gpu.device.create_image_view(&vci, None) }.map_err(|result| {
            VkError::Call {
                call: "vkCreateImageView",
                result,
            }
        })?;
        Ok(())
    }

    /// Bind the image set into `cmd` (recording; program sets are bound
    /// after this, as every command buffer starts with no sets bound).
    pub fn bind(&self, gpu: &Gpu, cmd: vk::CommandBuffer) {
        // SAFETY: `cmd` is recording; the set and layout are live and
        // compatible at set IMAGE_SLOT_SET; no shader reads the set.
        unsafe {
            gpu.device.cmd_bind_descriptor_sets(
                cmd,
                vk::PipelineBindPoint::GRAPHICS,
                self.layout,
                IMAGE_SLOT_SET,
                &[self.set],
                &[],
            )
        };
    }

    /// Destroy every object (null ones are skipped by Vulkan).
    pub fn destroy(&self, gpu: &Gpu) {
        let d = &gpu.device;
        // SAFETY: the device is idle (called at teardown or right after a
        // failed build); destroying null handles is a no-op.
        unsafe {
            d.destroy_pipeline_layout(self.layout, None);
            d.destroy_descriptor_pool(self.pool, None);
            d.destroy_descriptor_set_layout(self.set_layout, None);
            d.destroy_descriptor_set_layout(self.empty, None);
            d.destroy_image_view(self.view, None);
            d.destroy_image(self.image, None);
            d.free_memory(self.memory, None);
        }
    }
}
