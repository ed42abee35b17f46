//! Instance, physical device and logical device: everything looked up once
//! at startup, plus raw allocation helpers (memory, buffers, images).

use std::ffi::{c_char, CStr};

use ash::vk;
use tracing::{debug, info, warn};

use crate::host_alloc::CommandAllocator;
use crate::host_import::HostImport;
use crate::lvp_quirk::{self, ImageSlots};
use crate::VkError;

/// Optional device features we found and enabled.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Features {
    /// Vulkan 1.3 core dynamic rendering (else the KHR extension);
    /// reported in the startup log.
    #[allow(dead_code)]
    pub core_dynamic_rendering: bool,
    /// VK_EXT_depth_clip_control (GL's [-1,1] clip-space depth).
    pub depth_clip_control: bool,
    /// VK_EXT_custom_border_color (customBorderColors and
    /// customBorderColorWithoutFormat): GL's TEXTURE_BORDER_COLOR.
    pub custom_border_color: bool,
    /// VK_EXT_border_color_swizzle (borderColorSwizzle and
    /// borderColorSwizzleFromImage): the view's swizzle applies to the
    /// border colour, as GL's texture swizzle does.
    pub border_color_swizzle: bool,
    /// VK_{KHR,EXT}_vertex_attribute_divisor with instance-rate divisors.
    pub divisor: bool,
    /// VK_{KHR,EXT}_index_type_uint8.
    pub index_u8: bool,
    pub wide_lines: bool,
    pub anisotropy: bool,
    pub independent_blend: bool,
    /// depthBiasClamp: glPolygonOffsetClamp.
    pub depth_bias_clamp: bool,
    /// sampleRateShading: GL_SAMPLE_SHADING and gl_SampleID/Position.
    pub sample_rate_shading: bool,
    pub large_points: bool,
    /// fillModeNonSolid: glPolygonMode(GL_LINE / GL_POINT).
    pub fill_mode_non_solid: bool,
    /// VK_EXT_multi_draw: runs of draws with identical bindings become one
    /// vkCmdDrawMulti*EXT.
    pub multi_draw: bool,
    /// Exact occlusion counts (GL_SAMPLES_PASSED).
    pub occlusion_precise: bool,
    /// tessellationShader (enabled): tessellation stages, GL_PATCHES.
    pub tessellation: bool,
    /// Geometry and tessellation stages enabled, only for the lavapipe
    /// image-slot quirk (`lvp_quirk.rs`), which names those stages.
    pub lvp_image_slots: bool,
    /// VK_EXT_robustness2's nullDescriptor: empty slots of that quirk (an
    /// empty slot costs llvmpipe less than a real image) and GL's invalid
    /// image units (loads and atomics give zero, stores do nothing).
    pub null_descriptor: bool,
    /// VK_EXT_external_memory_host, for read-backs into the caller's
    /// memory (`host_import.rs`).
    pub host_import: bool,
    /// VK_EXT_primitives_generated_query (with rasterizer discard, as GL
    /// counts then too) for GL_PRIMITIVES_GENERATED; it requires
    /// VK_EXT_transform_feedback, enabled with it (no feature used).
    pub prims_generated: bool,
    /// VK_EXT_transform_feedback's `transformFeedback`: GL transform
    /// feedback (`xfb_*` calls, context.rs / frame.rs).
    pub xfb: bool,
    /// VK_EXT_primitive_topology_list_restart: GL restarts list
    /// primitives too (points, lines, triangles and their adjacency
    /// forms), which core Vulkan allows for strips and fans only.
    pub list_restart: bool,
    /// The queue runs compute dispatches (`dispatch_compute`).
    pub compute: bool,
    /// fragmentStoresAndAtomics: fragment shaders write storage buffers
    /// and images.
    pub fragment_stores: bool,
    /// vertexPipelineStoresAndAtomics: vertex, tessellation and geometry
    /// shaders write storage buffers and images.
    pub vertex_stores: bool,
    /// `shaderFloat64`: double-precision shaders and 64-bit vertex inputs.
    pub float64: bool,
    /// shaderStorageImage{Read,Write}WithoutFormat: storage images
    /// declared without a format.
    pub image_read_without_format: bool,
    pub image_write_without_format: bool,
    /// shaderStorageImageExtendedFormats: the GL image formats beyond the
    /// Vulkan base set (rg32f, r16f, r8, ...).
    pub image_extended_formats: bool,
    /// VK_EXT_provoking_vertex's `provokingVertexLast`: GL's default
    /// provoking vertex (the last of each primitive; Vulkan's own is the
    /// first) and its ordering of strip triangles (`pipeline.rs`).
    pub provoking_last: bool,
    /// `transformFeedbackPreservesProvokingVertex`: captured primitives
    /// keep the vertex order the provoking-vertex mode gives.
    pub xfb_provoking: bool,
    /// `shaderDrawParameters` (Vulkan 1.1): the `BaseInstance` built-in,
    /// which GL's `gl_InstanceID` subtracts (`spirv::subtract_base_instance`).
    pub draw_parameters: bool,
}

/// The device and what we know about it.
pub(crate) struct Gpu {
    /// Keeps libvulkan loaded for as long as the instance lives.
    _entry: ash::Entry,
    pub instance: ash::Instance,
    pub pdev: vk::PhysicalDevice,
    pub device: ash::Device,
    pub queue: vk::Queue,
    pub props: vk::PhysicalDeviceProperties,
    pub mem: vk::PhysicalDeviceMemoryProperties,
    pub feat: Features,
    /// Unified memory (CPU or integrated device with a device-local,
    /// host-visible, coherent memory type): client buffers live in mapped
    /// memory and idle ones are written by the host directly.
    pub uma: bool,
    /// Colour images are LINEAR where the device allows it, in mapped
    /// memory, and idle ones are written by the host directly (CPU
    /// devices with unified memory; `MOBILEGL_VK_HOST_IMAGES`).
    pub host_images: bool,
    dr_khr: Option<ash::khr::dynamic_rendering::Device>,
    /// VK_EXT_multi_draw entry points (when `feat.multi_draw`).
    pub multi_draw: Option<ash::ext::multi_draw::Device>,
    /// VK_EXT_transform_feedback entry points (when `feat.xfb`).
    pub xfb: Option<ash::ext::transform_feedback::Device>,
    /// Nanoseconds per timestamp tick; None: the queue has no timestamps.
    pub timestamp_period: Option<f64>,
    /// maxMultiDrawCount (0 without VK_EXT_multi_draw).
    pub max_multi_draw: u32,
    pub pool: vk::CommandPool,
    /// The pool's host allocator (None: the driver's default;
    /// `MOBILEGL_VK_HOST_ALLOC=0`). Dropped after the pool.
    cmd_alloc: Option<Box<CommandAllocator>>,
    /// The lavapipe image-slot quirk's objects (when it applies).
    pub image_slots: Option<ImageSlots>,
    /// Host-pointer imports (when `feat.host_import`).
    pub host_import: Option<HostImport>,
    pub pcache: vk::PipelineCache,
    pub device_name: String,
    pub driver_version: String,
    /// Format properties already asked for (vertex formats are checked at
    /// every draw).
    format_cache: std::cell::RefCell<
        std::collections::HashMap<i32, vk::FormatProperties, crate::table::WordHash>,
    >,
}

/// The `MOBILEGL_VK_*` switches read at open (see the crate doc).
#[derive(Clone, Copy)]
struct Knobs {
    host_alloc: bool,
    lvp_image_slots: bool,
    force_staging: bool,
    /// `MOBILEGL_VK_HOST_IMPORT`: None = on CPU devices only.
    host_import: Option<bool>,
    /// `MOBILEGL_VK_HOST_IMAGES`: None = on CPU devices with unified memory.
    host_images: Option<bool>,
}

fn call(call: &'static str) -> impl Fn(vk::Result) -> VkError {
    move |result| VkError::Call { call, result }
}

fn has_ext(list: &[vk::ExtensionProperties], name: &CStr) -> bool {
    list.iter()
        .any(|e| e.extension_name_as_c_str().is_ok_and(|n| n == name))
}

fn type_rank(t: vk::PhysicalDeviceType) -> u32 {
    match t {
        vk::PhysicalDeviceType::DISCRETE_GPU => 0,
        vk::PhysicalDeviceType::INTEGRATED_GPU => 1,
        vk::PhysicalDeviceType::VIRTUAL_GPU => 2,
        vk::PhysicalDeviceType::CPU => 3,
        _ => 4,
    }
}

impl Gpu {
    /// Load libvulkan, make an instance (1.1+) and a device on the first
    /// usable physical device (discrete > integrated > virtual > cpu).
    pub fn open() -> Result<Gpu, VkError> {
        // Knobs first: a bad value is refused before any Vulkan object exists.
        let knobs = Knobs {
            host_alloc: crate::bool_knob("MOBILEGL_VK_HOST_ALLOC", true)?,
            lvp_image_slots: crate::bool_knob("MOBILEGL_VK_LVP_IMAGE_SLOTS", true)?,
            force_staging: crate::bool_knob("MOBILEGL_VK_FORCE_STAGING", false)?,
            host_import: crate::optional_bool_knob("MOBILEGL_VK_HOST_IMPORT")?,
            host_images: crate::optional_bool_knob("MOBILEGL_VK_HOST_IMAGES")?,
        };
        // SAFETY: loading the system Vulkan loader; ash keeps the library
        // alive inside `Entry`, which we keep for the instance's lifetime.
        let entry = unsafe { ash::Entry::load() }.map_err(|e| VkError::Load(e.to_string()))?;
        // SAFETY: plain global query through a loaded entry.
        let inst_version = unsafe { entry.try_enumerate_instance_version() }
            .map_err(call("vkEnumerateInstanceVersion"))?
            .unwrap_or(vk::API_VERSION_1_0);
        if inst_version < vk::API_VERSION_1_1 {
            return Err(VkError::Version(format!(
                "{}.{}",
                vk::api_version_major(inst_version),
                vk::api_version_minor(inst_version)
            )));
        }
        let api = inst_version.min(vk::API_VERSION_1_3);
        // SAFETY: plain global query.
        let inst_exts = unsafe { entry.enumerate_instance_extension_properties(None) }
            .map_err(call("vkEnumerateInstanceExtensionProperties"))?;
        let mut ext_ptrs: Vec<*const c_char> = Vec::new();
        let mut flags = vk::InstanceCreateFlags::empty();
        if has_ext(&inst_exts, ash::khr::portability_enumeration::NAME) {
            ext_ptrs.push(ash::khr::portability_enumeration::NAME.as_ptr());
            flags |= vk::InstanceCreateFlags::ENUMERATE_PORTABILITY_KHR;
        }
        let app = vk::ApplicationInfo::default()
            .application_name(c"MobileGL")
            .engine_name(c"MobileGL backend-vulkan")
            .api_version(api);
        let ici = vk::InstanceCreateInfo::default()
            .application_info(&app)
            .enabled_extension_names(&ext_ptrs)
            .flags(flags);
        // SAFETY: the create info and the strings it points to outlive the call.
        let instance =
            unsafe { entry.create_instance(&ici, None) }.map_err(call("vkCreateInstance"))?;
        match Self::open_device(entry, instance.clone(), api, knobs) {
            Ok(g) => Ok(g),
            Err(e) => {
                // SAFETY: nothing was created from the instance that outlives this.
                unsafe { instance.destroy_instance(None) };
                Err(e)
            }
        }
    }

    fn open_device(
        entry: ash::Entry,
        instance: ash::Instance,
        api: u32,
        knobs: Knobs,
    ) -> Result<Gpu, VkError> {
        let Knobs {
            host_alloc,
            lvp_image_slots: lvp_slots,
            force_staging,
            host_import,
            host_images,
        } = knobs;
        // SAFETY: plain instance queries.
        let pdevs = unsafe { instance.enumerate_physical_devices() }
            .map_err(call("vkEnumeratePhysicalDevices"))?;
        let mut candidates = Vec::new();
        let mut why = Vec::new();
        for pd in pdevs {
            // SAFETY: `pd` was enumerated from this instance.
            let props = unsafe { instance.get_physical_device_properties(pd) };
            let name = props
                .device_name_as_c_str()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            if props.api_version < vk::API_VERSION_1_1 {
                why.push(format!("{name}: Vulkan < 1.1"));
                continue;
            }
            // SAFETY: as above.
            let qf = unsafe { instance.get_physical_device_queue_family_properties(pd) };
            // A family that computes too is preferred (`dispatch_compute`).
            let Some(qfam) = qf
                .iter()
                .position(|q| {
                    q.queue_flags
                        .contains(vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE)
                })
                .or_else(|| {
                    qf.iter()
                        .position(|q| q.queue_flags.contains(vk::QueueFlags::GRAPHICS))
                })
            else {
                why.push(format!("{name}: no graphics queue"));
                continue;
            };
            // SAFETY: as above.
            let exts =
                unsafe { instance.enumerate_device_extension_properties(pd) }.unwrap_or_default();
            let core13 = props.api_version >= vk::API_VERSION_1_3 && api >= vk::API_VERSION_1_3;
            if !core13 && !has_ext(&exts, ash::khr::dynamic_rendering::NAME) {
                why.push(format!("{name}: no dynamic rendering"));
                continue;
            }
            candidates.push((
                type_rank(props.device_type),
                pd,
                qfam as u32,
                props,
                exts,
                core13,
                qf[qfam].timestamp_valid_bits,
                qf[qfam].queue_flags.contains(vk::QueueFlags::COMPUTE),
            ));
        }
        candidates.sort_by_key(|c| c.0);
        let Some((_, pdev, qfam, props, exts, core13, ts_bits, q_compute)) =
            candidates.into_iter().next()
        else {
            return Err(VkError::NoDevice(if why.is_empty() {
                "no physical devices".into()
            } else {
                why.join("; ")
            }));
        };

        // Features available.
        let mut f13 = vk::PhysicalDeviceVulkan13Features::default();
        let mut fdr = vk::PhysicalDeviceDynamicRenderingFeatures::default();
        let mut fdcc = vk::PhysicalDeviceDepthClipControlFeaturesEXT::default();
        let mut fcbc = vk::PhysicalDeviceCustomBorderColorFeaturesEXT::default();
        let has_cbc = has_ext(&exts, ash::ext::custom_border_color::NAME);
        let mut fbcs = vk::PhysicalDeviceBorderColorSwizzleFeaturesEXT::default();
        let has_bcs = has_cbc && has_ext(&exts, ash::ext::border_color_swizzle::NAME);
        let mut fdiv = vk::PhysicalDeviceVertexAttributeDivisorFeaturesKHR::default();
        let mut fu8 = vk::PhysicalDeviceIndexTypeUint8FeaturesKHR::default();
        let mut fmd = vk::PhysicalDeviceMultiDrawFeaturesEXT::default();
        let mut frb2 = vk::PhysicalDeviceRobustness2FeaturesEXT::default();
        let mut fpgq = vk::PhysicalDevicePrimitivesGeneratedQueryFeaturesEXT::default();
        let mut fxfb = vk::PhysicalDeviceTransformFeedbackFeaturesEXT::default();
        let has_xfb = has_ext(&exts, ash::ext::transform_feedback::NAME);
        let mut flr = vk::PhysicalDevicePrimitiveTopologyListRestartFeaturesEXT::default();
        let has_lr = has_ext(&exts, ash::ext::primitive_topology_list_restart::NAME);
        let mut fpv = vk::PhysicalDeviceProvokingVertexFeaturesEXT::default();
        let mut fsdp = vk::PhysicalDeviceShaderDrawParametersFeatures::default();
        let has_pv = has_ext(&exts, ash::ext::provoking_vertex::NAME);
        let has_rb2 = has_ext(&exts, ash::ext::robustness2::NAME);
        let has_md = has_ext(&exts, ash::ext::multi_draw::NAME);
        let has_dcc = has_ext(&exts, ash::ext::depth_clip_control::NAME);
        let has_hi = has_ext(&exts, ash::ext::external_memory_host::NAME);
        let has_pgq = has_ext(&exts, ash::ext::primitives_generated_query::NAME)
            && has_ext(&exts, ash::ext::transform_feedback::NAME);
        let div_name = if has_ext(&exts, ash::khr::vertex_attribute_divisor::NAME) {
            Some(ash::khr::vertex_attribute_divisor::NAME)
        } else if has_ext(&exts, ash::ext::vertex_attribute_divisor::NAME) {
            Some(ash::ext::vertex_attribute_divisor::NAME)
        } else {
            None
        };
        let u8_name = if has_ext(&exts, ash::khr::index_type_uint8::NAME) {
            Some(ash::khr::index_type_uint8::NAME)
        } else if has_ext(&exts, ash::ext::index_type_uint8::NAME) {
            Some(ash::ext::index_type_uint8::NAME)
        } else {
            None
        };
        let core_f = {
            let mut f2 = vk::PhysicalDeviceFeatures2::default();
            if core13 {
                f2 = f2.push_next(&mut f13);
            } else {
                f2 = f2.push_next(&mut fdr);
            }
            if has_dcc {
                f2 = f2.push_next(&mut fdcc);
            }
            if has_cbc {
                f2 = f2.push_next(&mut fcbc);
            }
            if has_bcs {
                f2 = f2.push_next(&mut fbcs);
            }
            if div_name.is_some() {
                f2 = f2.push_next(&mut fdiv);
            }
            if u8_name.is_some() {
                f2 = f2.push_next(&mut fu8);
            }
            if has_md {
                f2 = f2.push_next(&mut fmd);
            }
            if has_rb2 {
                f2 = f2.push_next(&mut frb2);
            }
            if has_pgq {
                f2 = f2.push_next(&mut fpgq);
            }
            if has_xfb {
                f2 = f2.push_next(&mut fxfb);
            }
            if has_lr {
                f2 = f2.push_next(&mut flr);
            }
            if has_pv {
                f2 = f2.push_next(&mut fpv);
            }
            f2 = f2.push_next(&mut fsdp);
            // SAFETY: a well-formed pNext chain of feature structs (1.1 core query).
            unsafe { instance.get_physical_device_features2(pdev, &mut f2) };
            f2.features
        };
        let dyn_rendering = if core13 {
            f13.dynamic_rendering != 0
        } else {
            fdr.dynamic_rendering != 0
        };
        if !dyn_rendering {
            return Err(VkError::NoDevice("dynamic rendering feature absent".into()));
        }
        let device_name = props
            .device_name_as_c_str()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        // The quirk's set goes above every program set.
        let lvp_image_slots = lvp_slots
            && props.limits.max_bound_descriptor_sets > crate::spirv::SETS as u32
            && lvp_quirk::wanted(
                &device_name,
                core_f.geometry_shader != 0,
                core_f.tessellation_shader != 0,
            );
        let feat = Features {
            tessellation: core_f.tessellation_shader != 0
                && props.limits.max_tessellation_patch_size >= 32
                && props.limits.max_tessellation_generation_level >= 64,
            core_dynamic_rendering: core13,
            depth_clip_control: has_dcc && fdcc.depth_clip_control != 0,
            custom_border_color: has_cbc
                && fcbc.custom_border_colors != 0
                && fcbc.custom_border_color_without_format != 0,
            border_color_swizzle: has_bcs
                && fbcs.border_color_swizzle != 0
                && fbcs.border_color_swizzle_from_image != 0,
            divisor: div_name.is_some() && fdiv.vertex_attribute_instance_rate_divisor != 0,
            index_u8: u8_name.is_some() && fu8.index_type_uint8 != 0,
            wide_lines: core_f.wide_lines != 0,
            anisotropy: core_f.sampler_anisotropy != 0,
            independent_blend: core_f.independent_blend != 0,
            sample_rate_shading: core_f.sample_rate_shading != 0,
            depth_bias_clamp: core_f.depth_bias_clamp != 0,
            large_points: core_f.large_points != 0,
            fill_mode_non_solid: core_f.fill_mode_non_solid != 0,
            multi_draw: has_md && fmd.multi_draw != 0,
            occlusion_precise: core_f.occlusion_query_precise != 0,
            lvp_image_slots,
            null_descriptor: has_rb2 && frb2.null_descriptor != 0,
            host_import: has_hi
                && host_import.unwrap_or(props.device_type == vk::PhysicalDeviceType::CPU),
            prims_generated: has_pgq
                && fpgq.primitives_generated_query != 0
                && fpgq.primitives_generated_query_with_rasterizer_discard != 0,
            list_restart: has_lr && flr.primitive_topology_list_restart != 0,
            xfb: has_xfb && fxfb.transform_feedback != 0,
            compute: q_compute,
            fragment_stores: core_f.fragment_stores_and_atomics != 0,
            vertex_stores: core_f.vertex_pipeline_stores_and_atomics != 0,
            float64: core_f.shader_float64 != 0,
            image_read_without_format: core_f.shader_storage_image_read_without_format != 0,
            image_write_without_format: core_f.shader_storage_image_write_without_format != 0,
            image_extended_formats: core_f.shader_storage_image_extended_formats != 0,
            provoking_last: has_pv && fpv.provoking_vertex_last != 0,
            draw_parameters: fsdp.shader_draw_parameters != 0,
            xfb_provoking: has_pv
                && fpv.provoking_vertex_last != 0
                && has_xfb
                && fxfb.transform_feedback != 0
                && fpv.transform_feedback_preserves_provoking_vertex != 0,
        };

        // Enable exactly what we use.
        let mut dev_exts: Vec<*const c_char> = Vec::new();
        if !core13 {
            dev_exts.push(ash::khr::dynamic_rendering::NAME.as_ptr());
        }
        if feat.depth_clip_control {
            dev_exts.push(ash::ext::depth_clip_control::NAME.as_ptr());
        }
        if feat.custom_border_color {
            dev_exts.push(ash::ext::custom_border_color::NAME.as_ptr());
        }
        if feat.custom_border_color && feat.border_color_swizzle {
            dev_exts.push(ash::ext::border_color_swizzle::NAME.as_ptr());
        }
        if let (true, Some(n)) = (feat.divisor, div_name) {
            dev_exts.push(n.as_ptr());
        }
        if let (true, Some(n)) = (feat.index_u8, u8_name) {
            dev_exts.push(n.as_ptr());
        }
        if feat.multi_draw {
            dev_exts.push(ash::ext::multi_draw::NAME.as_ptr());
        }
        if feat.null_descriptor {
            dev_exts.push(ash::ext::robustness2::NAME.as_ptr());
        }
        if feat.host_import {
            // Its dependency VK_KHR_external_memory is core in 1.1.
            dev_exts.push(ash::ext::external_memory_host::NAME.as_ptr());
        }
        if feat.prims_generated || feat.xfb {
            dev_exts.push(ash::ext::transform_feedback::NAME.as_ptr());
        }
        if feat.prims_generated {
            dev_exts.push(ash::ext::primitives_generated_query::NAME.as_ptr());
        }
        if feat.list_restart {
            dev_exts.push(ash::ext::primitive_topology_list_restart::NAME.as_ptr());
        }
        if feat.provoking_last {
            dev_exts.push(ash::ext::provoking_vertex::NAME.as_ptr());
        }
        if has_ext(&exts, ash::khr::portability_subset::NAME) {
            dev_exts.push(ash::khr::portability_subset::NAME.as_ptr());
        }
        let core_enable = vk::PhysicalDeviceFeatures::default()
            .wide_lines(feat.wide_lines)
            .sampler_anisotropy(feat.anisotropy)
            .independent_blend(feat.independent_blend)
            .sample_rate_shading(feat.sample_rate_shading)
            .depth_bias_clamp(feat.depth_bias_clamp)
            .large_points(feat.large_points)
            .fill_mode_non_solid(feat.fill_mode_non_solid)
            .occlusion_query_precise(feat.occlusion_precise)
            .geometry_shader(feat.lvp_image_slots)
            .tessellation_shader(feat.lvp_image_slots || feat.tessellation)
            .fragment_stores_and_atomics(feat.fragment_stores)
            .vertex_pipeline_stores_and_atomics(feat.vertex_stores)
            .shader_float64(feat.float64)
            .shader_storage_image_read_without_format(feat.image_read_without_format)
            .shader_storage_image_write_without_format(feat.image_write_without_format)
            .shader_storage_image_extended_formats(feat.image_extended_formats);
        let mut e13 = vk::PhysicalDeviceVulkan13Features::default().dynamic_rendering(true);
        let mut edr = vk::PhysicalDeviceDynamicRenderingFeatures::default().dynamic_rendering(true);
        let mut edcc =
            vk::PhysicalDeviceDepthClipControlFeaturesEXT::default().depth_clip_control(true);
        let mut ecbc = vk::PhysicalDeviceCustomBorderColorFeaturesEXT::default()
            .custom_border_colors(true)
            .custom_border_color_without_format(true);
        let mut ebcs = vk::PhysicalDeviceBorderColorSwizzleFeaturesEXT::default()
            .border_color_swizzle(true)
            .border_color_swizzle_from_image(true);
        let mut ediv = vk::PhysicalDeviceVertexAttributeDivisorFeaturesKHR::default()
            .vertex_attribute_instance_rate_divisor(true);
        let mut eu8 = vk::PhysicalDeviceIndexTypeUint8FeaturesKHR::default().index_type_uint8(true);
        let mut emd = vk::PhysicalDeviceMultiDrawFeaturesEXT::default().multi_draw(true);
        let mut erb2 = vk::PhysicalDeviceRobustness2FeaturesEXT::default().null_descriptor(true);
        let mut epgq = vk::PhysicalDevicePrimitivesGeneratedQueryFeaturesEXT::default()
            .primitives_generated_query(true)
            .primitives_generated_query_with_rasterizer_discard(true);
        let mut exfb = vk::PhysicalDeviceTransformFeedbackFeaturesEXT::default()
            .transform_feedback(true)
            .geometry_streams(false);
        let mut elr = vk::PhysicalDevicePrimitiveTopologyListRestartFeaturesEXT::default()
            .primitive_topology_list_restart(true);
        let mut esdp =
            vk::PhysicalDeviceShaderDrawParametersFeatures::default().shader_draw_parameters(true);
        let mut epv = vk::PhysicalDeviceProvokingVertexFeaturesEXT::default()
            .provoking_vertex_last(true)
            .transform_feedback_preserves_provoking_vertex(feat.xfb_provoking);
        let prio = [1.0f32];
        let qci = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(qfam)
            .queue_priorities(&prio)];
        let mut dci = vk::DeviceCreateInfo::default()
            .queue_create_infos(&qci)
            .enabled_extension_names(&dev_exts)
            .enabled_features(&core_enable);
        if core13 {
            dci = dci.push_next(&mut e13);
        } else {
            dci = dci.push_next(&mut edr);
        }
        if feat.depth_clip_control {
            dci = dci.push_next(&mut edcc);
        }
        if feat.custom_border_color {
            dci = dci.push_next(&mut ecbc);
        }
        if feat.custom_border_color && feat.border_color_swizzle {
            dci = dci.push_next(&mut ebcs);
        }
        if feat.divisor {
            dci = dci.push_next(&mut ediv);
        }
        if feat.index_u8 {
            dci = dci.push_next(&mut eu8);
        }
        if feat.multi_draw {
            dci = dci.push_next(&mut emd);
        }
        if feat.null_descriptor {
            dci = dci.push_next(&mut erb2);
        }
        if feat.prims_generated {
            dci = dci.push_next(&mut epgq);
        }
        if feat.list_restart {
            dci = dci.push_next(&mut elr);
        }
        if feat.xfb {
            dci = dci.push_next(&mut exfb);
        }
        if feat.provoking_last {
            dci = dci.push_next(&mut epv);
        }
        if feat.draw_parameters {
            dci = dci.push_next(&mut esdp);
        }
        // SAFETY: every pointer in the create info outlives the call; the
        // extensions/features enabled were reported by this device.
        let device =
            unsafe { instance.create_device(pdev, &dci, None) }.map_err(call("vkCreateDevice"))?;
        // SAFETY: queue 0 of the family we asked for.
        let queue = unsafe { device.get_device_queue(qfam, 0) };
        // SAFETY: plain queries.
        let mem = unsafe { instance.get_physical_device_memory_properties(pdev) };
        let pci = vk::CommandPoolCreateInfo::default()
            .queue_family_index(qfam)
            .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
        let cmd_alloc = host_alloc.then(CommandAllocator::new);
        let cbs = cmd_alloc.as_ref().map(|a| a.callbacks());
        // SAFETY: valid device and create info; the allocator outlives the
        // pool (both live in the Gpu, the pool is destroyed first).
        let pool = match unsafe { device.create_command_pool(&pci, cbs.as_ref()) } {
            Ok(p) => p,
            Err(e) => {
                // SAFETY: nothing else was created from this device.
                unsafe { device.destroy_device(None) };
                return Err(VkError::Call {
                    call: "vkCreateCommandPool",
                    result: e,
                });
            }
        };
        // SAFETY: valid device; an empty initial cache.
        let pcache =
            unsafe { device.create_pipeline_cache(&vk::PipelineCacheCreateInfo::default(), None) }
                .unwrap_or(vk::PipelineCache::null());
        let dr_khr =
            (!core13).then(|| ash::khr::dynamic_rendering::Device::new(&instance, &device));
        let multi_draw = feat
            .multi_draw
            .then(|| ash::ext::multi_draw::Device::new(&instance, &device));
        let xfb = feat
            .xfb
            .then(|| ash::ext::transform_feedback::Device::new(&instance, &device));
        let timestamp_period = (ts_bits > 0 && props.limits.timestamp_period > 0.0)
            .then_some(props.limits.timestamp_period as f64);
        let max_multi_draw = if feat.multi_draw {
            let mut mdp = vk::PhysicalDeviceMultiDrawPropertiesEXT::default();
            let mut p2 = vk::PhysicalDeviceProperties2::default().push_next(&mut mdp);
            // SAFETY: a well-formed pNext chain of property structs (1.1 core query).
            unsafe { instance.get_physical_device_properties2(pdev, &mut p2) };
            mdp.max_multi_draw_count
        } else {
            0
        };
        let driver_version = format!(
            "Vulkan {}.{}.{} (driver 0x{:x})",
            vk::api_version_major(props.api_version),
            vk::api_version_minor(props.api_version),
            vk::api_version_patch(props.api_version),
            props.driver_version
        );
        // MOBILEGL_VK_FORCE_STAGING=1: behave as on a discrete GPU (no
        // host-visible device memory), so the staging paths run on lavapipe.
        let uma = !force_staging
            && matches!(
                props.device_type,
                vk::PhysicalDeviceType::CPU | vk::PhysicalDeviceType::INTEGRATED_GPU
            )
            && (0..mem.memory_type_count).any(|i| {
                mem.memory_types[i as usize].property_flags.contains(
                    vk::MemoryPropertyFlags::DEVICE_LOCAL
                        | vk::MemoryPropertyFlags::HOST_VISIBLE
                        | vk::MemoryPropertyFlags::HOST_COHERENT,
                )
            });
        let host_images =
            uma && host_images.unwrap_or(props.device_type == vk::PhysicalDeviceType::CPU);
        info!(device = %device_name, %driver_version, ?feat, uma, host_images, "Vulkan backend open");
        debug!(limits = ?props.limits, "device limits");
        let mut gpu = Gpu {
            _entry: entry,
            instance,
            pdev,
            device,
            queue,
            props,
            mem,
            feat,
            uma,
            host_images,
            dr_khr,
            multi_draw,
            xfb,
            timestamp_period,
            max_multi_draw,
            pool,
            cmd_alloc,
            image_slots: None,
            host_import: None,
            pcache,
            device_name,
            driver_version,
            format_cache: Default::default(),
        };
        if gpu.feat.host_import {
            gpu.host_import = HostImport::new(&gpu.instance, gpu.pdev, &gpu.device);
        }
        if gpu.feat.lvp_image_slots {
            gpu.image_slots = ImageSlots::new(&gpu)
                .inspect_err(|e| warn!("lavapipe image-slot quirk unavailable: {e}"))
                .ok();
        }
        Ok(gpu)
    }

    /// Tear down the device and instance (every child object already gone).
    pub fn destroy(&self) {
        // SAFETY: the device is idle (callers waited) and every object made
        // from it was destroyed; called once, right before dropping.
        unsafe {
            let _ = self.device.device_wait_idle();
            if let Some(q) = &self.image_slots {
                q.destroy(self);
            }
            if self.pcache != vk::PipelineCache::null() {
                self.device.destroy_pipeline_cache(self.pcache, None);
            }
            let cbs = self.cmd_alloc.as_ref().map(|a| a.callbacks());
            self.device.destroy_command_pool(self.pool, cbs.as_ref());
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }

    /// vkCmdBeginRendering (core 1.3 or KHR).
    pub fn begin_rendering(&self, cmd: vk::CommandBuffer, info: &vk::RenderingInfo) {
        // SAFETY: `cmd` is recording outside any render pass (callers track it).
        unsafe {
            match &self.dr_khr {
                Some(k) => k.cmd_begin_rendering(cmd, info),
                None => self.device.cmd_begin_rendering(cmd, info),
            }
        }
    }

    pub fn end_rendering(&self, cmd: vk::CommandBuffer) {
        // SAFETY: `cmd` is recording inside a rendering instance (callers track it).
        unsafe {
            match &self.dr_khr {
                Some(k) => k.cmd_end_rendering(cmd),
                None => self.device.cmd_end_rendering(cmd),
            }
        }
    }

    /// Memory type for `bits` with `want` flags (None: none fits).
    pub fn memory_type(&self, bits: u32, want: vk::MemoryPropertyFlags) -> Option<u32> {
        (0..self.mem.memory_type_count).find(|&i| {
            bits & (1 << i) != 0
                && self.mem.memory_types[i as usize]
                    .property_flags
                    .contains(want)
        })
    }

    /// Memory for `req` (`host`: host-visible and coherent, else device
    /// memory); with `prefer_mapped` (device memory wanted) a
    /// device-local, host-visible, coherent type is taken on unified-memory
    /// devices. The flag says whether the memory can be mapped.
    fn allocate_mappable(
        &self,
        req: vk::MemoryRequirements,
        host: bool,
        prefer_mapped: bool,
        what: &'static str,
    ) -> Result<(vk::DeviceMemory, bool), VkError> {
        let uma_flags = vk::MemoryPropertyFlags::DEVICE_LOCAL
            | vk::MemoryPropertyFlags::HOST_VISIBLE
            | vk::MemoryPropertyFlags::HOST_COHERENT;
        if !host && prefer_mapped && self.uma {
            if let Some(ty) = self.memory_type(req.memory_type_bits, uma_flags) {
                let ai = vk::MemoryAllocateInfo::default()
                    .allocation_size(req.size)
                    .memory_type_index(ty);
                // SAFETY: valid device and allocate info.
                if let Ok(m) = unsafe { self.device.allocate_memory(&ai, None) } {
                    return Ok((m, true));
                }
            }
        }
        let ty = if host {
            self.memory_type(
                req.memory_type_bits,
                vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT,
            )
        } else {
            self.memory_type(req.memory_type_bits, vk::MemoryPropertyFlags::DEVICE_LOCAL)
                .or_else(|| {
                    self.memory_type(req.memory_type_bits, vk::MemoryPropertyFlags::empty())
                })
        }
        .ok_or(VkError::NoMemoryType(what))?;
        let ai = vk::MemoryAllocateInfo::default()
            .allocation_size(req.size)
            .memory_type_index(ty);
        // SAFETY: valid device and allocate info.
        unsafe { self.device.allocate_memory(&ai, None) }
            .map(|m| (m, host))
            .map_err(call("vkAllocateMemory"))
    }

    /// A buffer with its own memory; `host`: host-visible + coherent, mapped.
    pub fn create_buffer(
        &self,
        size: u64,
        usage: vk::BufferUsageFlags,
        host: bool,
    ) -> Result<RawBuffer, VkError> {
        self.create_buffer_in(size, usage, host, false)
    }

    /// `create_buffer`; with `prefer_mapped`, device buffers on unified
    /// memory are mapped too (`RawBuffer::ptr` non-null when they are).
    pub fn create_buffer_in(
        &self,
        size: u64,
        usage: vk::BufferUsageFlags,
        host: bool,
        prefer_mapped: bool,
    ) -> Result<RawBuffer, VkError> {
        let bci = vk::BufferCreateInfo::default()
            .size(size.max(4))
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: valid device and create info.
        let buffer =
            unsafe { self.device.create_buffer(&bci, None) }.map_err(call("vkCreateBuffer"))?;
        // SAFETY: `buffer` is a live buffer of this device.
        let req = unsafe { self.device.get_buffer_memory_requirements(buffer) };
        let (memory, map) = match self.allocate_mappable(req, host, prefer_mapped, "buffer") {
            Ok(m) => m,
            Err(e) => {
                // SAFETY: the buffer just created, never used.
                unsafe { self.device.destroy_buffer(buffer, None) };
                return Err(e);
            }
        };
        // SAFETY: fresh buffer and memory of matching requirements; the
        // mapping covers the whole allocation and lives until it is freed.
        let ptr = unsafe {
            let bound = self.device.bind_buffer_memory(buffer, memory, 0);
            let mapped = match bound {
                Ok(()) if map => self
                    .device
                    .map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                    .map(|p| p as *mut u8),
                Ok(()) => Ok(std::ptr::null_mut()),
                Err(e) => Err(e),
            };
            match mapped {
                Ok(p) => p,
                Err(e) => {
                    self.device.destroy_buffer(buffer, None);
                    self.device.free_memory(memory, None);
                    return Err(VkError::Call {
                        call: "vkBindBufferMemory/vkMapMemory",
                        result: e,
                    });
                }
            }
        };
        Ok(RawBuffer {
            buffer,
            memory,
            ptr,
            size: size.max(4),
        })
    }

    /// An image with its own device memory, and that memory's host mapping
    /// where host imports or host images are on and it is mappable.
    pub fn create_image(
        &self,
        ci: &vk::ImageCreateInfo,
    ) -> Result<(vk::Image, vk::DeviceMemory, HostMapping), VkError> {
        // SAFETY: valid device and create info.
        let image = unsafe { self.device.create_image(ci, None) }.map_err(call("vkCreateImage"))?;
        // SAFETY: `image` is a live image of this device.
        let req = unsafe { self.device.get_image_memory_requirements(image) };
        // Where host imports or host images are used (CPU devices), the
        // image's memory is mapped once: host images are written and read
        // through it, and read-back imports check the address the driver
        // copies from (`read_image_into`).
        let want_addr = self.host_images || self.host_import.is_some();
        let (memory, mappable) = match self.allocate_mappable(req, false, want_addr, "image") {
            Ok(m) => m,
            Err(e) => {
                // SAFETY: the image just created, never used.
                unsafe { self.device.destroy_image(image, None) };
                return Err(e);
            }
        };
        // SAFETY: fresh image and memory of matching requirements.
        if let Err(e) = unsafe { self.device.bind_image_memory(image, memory, 0) } {
            // SAFETY: objects just created, never used.
            unsafe {
                self.device.destroy_image(image, None);
                self.device.free_memory(memory, None);
            }
            return Err(VkError::Call {
                call: "vkBindImageMemory",
                result: e,
            });
        }
        let ptr = if want_addr && mappable {
            // SAFETY: host-visible memory of this device, not mapped yet;
            // freeing the memory unmaps it.
            unsafe {
                self.device
                    .map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
            }
            .map_or(0, |p| p as usize)
        } else {
            0
        };
        Ok((
            image,
            memory,
            HostMapping {
                addr: ptr,
                len: if ptr == 0 { 0 } else { req.size as usize },
            },
        ))
    }

    /// Properties of `format` (asked once, then cached).
    fn format_properties(&self, format: vk::Format) -> vk::FormatProperties {
        if let Some(p) = self.format_cache.borrow().get(&format.as_raw()) {
            return *p;
        }
        // SAFETY: plain physical-device query.
        let p = unsafe {
            self.instance
                .get_physical_device_format_properties(self.pdev, format)
        };
        self.format_cache.borrow_mut().insert(format.as_raw(), p);
        p
    }

    /// Whether an image of `ci` (with OPTIMAL tiling) can be made LINEAR
    /// instead with the same usage, flags, extent, levels and layers.
    pub fn linear_allowed(&self, ci: &vk::ImageCreateInfo) -> bool {
        if ci.samples != vk::SampleCountFlags::TYPE_1 {
            return false;
        }
        // SAFETY: plain physical-device query.
        let p = unsafe {
            self.instance.get_physical_device_image_format_properties(
                self.pdev,
                ci.format,
                ci.image_type,
                vk::ImageTiling::LINEAR,
                ci.usage,
                ci.flags,
            )
        };
        p.is_ok_and(|p| {
            p.max_mip_levels >= ci.mip_levels
                && p.max_array_layers >= ci.array_layers
                && p.max_extent.width >= ci.extent.width
                && p.max_extent.height >= ci.extent.height
                && p.max_extent.depth >= ci.extent.depth
        })
    }

    /// Layout of one subresource of a LINEAR image.
    pub fn subresource_layout(
        &self,
        image: vk::Image,
        aspect: vk::ImageAspectFlags,
        level: u32,
        layer: u32,
    ) -> vk::SubresourceLayout {
        // SAFETY: `image` is a live LINEAR image of this device (callers)
        // and the subresource exists in it.
        unsafe {
            self.device.get_image_subresource_layout(
                image,
                vk::ImageSubresource {
                    aspect_mask: aspect,
                    mip_level: level,
                    array_layer: layer,
                },
            )
        }
    }

    /// Optimal-tiling features of `format`.
    pub fn format_features(&self, format: vk::Format) -> vk::FormatFeatureFlags {
        self.format_properties(format).optimal_tiling_features
    }

    /// Buffer (vertex fetch) features of `format`.
    pub fn buffer_format_features(&self, format: vk::Format) -> vk::FormatFeatureFlags {
        self.format_properties(format).buffer_features
    }

    /// Every 64-bit float vertex format can be fetched (lavapipe: none;
    /// without them `spirv::lower_f64_inputs` fetches 32-bit words).
    pub fn vertex_64_fetch(&self) -> bool {
        [
            vk::Format::R64_SFLOAT,
            vk::Format::R64G64_SFLOAT,
            vk::Format::R64G64B64_SFLOAT,
            vk::Format::R64G64B64A64_SFLOAT,
        ]
        .iter()
        .all(|&f| {
            self.buffer_format_features(f)
                .contains(vk::FormatFeatureFlags::VERTEX_BUFFER)
        })
    }
}

/// Where an image's whole memory is mapped on the host (`addr` 0 and
/// `len` 0: not mapped).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct HostMapping {
    pub addr: usize,
    pub len: usize,
}

/// A buffer and its dedicated memory (mapped when host-visible).
#[derive(Clone, Copy, Debug)]
pub(crate) struct RawBuffer {
    pub buffer: vk::Buffer,
    pub memory: vk::DeviceMemory,
    /// Null unless host-visible.
    pub ptr: *mut u8,
    pub size: u64,
}

impl RawBuffer {
    /// Copy `data` into the mapping at `offset` (bounds-checked; false when
    /// not mapped or out of range).
    pub fn write(&self, offset: u64, data: &[u8]) -> bool {
        if self.ptr.is_null()
            || offset
                .checked_add(data.len() as u64)
                .is_none_or(|e| e > self.size)
        {
            return false;
        }
        // SAFETY: the mapping covers `size` bytes (checked above) and is
        // host-coherent; nothing else aliases this range on the CPU while
        // this borrow lives.
        let dst =
            unsafe { std::slice::from_raw_parts_mut(self.ptr.add(offset as usize), data.len()) };
        mgpipe::bytes::copy(dst, data);
        true
    }

    /// Zero `len` bytes of the mapping at `offset` (bounds-checked; false
    /// when not mapped or out of range).
    pub fn zero(&self, offset: u64, len: u64) -> bool {
        if self.ptr.is_null() || offset.checked_add(len).is_none_or(|e| e > self.size) {
            return false;
        }
        // SAFETY: the mapping covers `size` bytes (checked above) and is
        // host-coherent; nothing else aliases this range on the CPU.
        unsafe { std::ptr::write_bytes(self.ptr.add(offset as usize), 0, len as usize) };
        true
    }

    /// The whole mapping (None when not mapped). Callers make sure no GPU
    /// work still writes it.
    pub fn mapped(&self) -> Option<&[u8]> {
        if self.ptr.is_null() {
            return None;
        }
        // SAFETY: the mapping covers `size` bytes and lives as long as the
        // buffer, which outlives the borrow of `self`.
        Some(unsafe { std::slice::from_raw_parts(self.ptr, self.size as usize) })
    }

    pub fn destroy(self, gpu: &Gpu) {
        // SAFETY: callers only destroy buffers no pending GPU work uses.
        unsafe {
            gpu.device.destroy_buffer(self.buffer, None);
            gpu.device.free_memory(self.memory, None);
        }
    }
}
