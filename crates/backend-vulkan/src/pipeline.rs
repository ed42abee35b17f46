//! Shaders (SPIR-V modules, descriptor-set layouts, pipeline layout) and
//! graphics pipelines keyed by everything that bakes into them.

use std::ffi::CString;
use std::sync::Arc;

use ash::vk;
use mgpipe::calls;
use mgpipe::consts::{STAGE_COMPUTE, STAGE_FRAGMENT, STAGE_VERTEX};

use crate::device::Gpu;
use crate::emulation::{self, gl};
use crate::frame::Garbage;
use crate::spirv::{
    self, ImageBinding, SamplerBinding, IMAGE_SET, SAMPLER_SET, SETS, STORAGE_SET, UBO_SET,
};
use crate::VkError;

/// A linked program made ready for pipelines.
pub(crate) struct ShaderBuild {
    pub modules: Vec<(vk::ShaderStageFlags, vk::ShaderModule, CString)>,
    /// One layout per set: [`UBO_SET`], [`SAMPLER_SET`], [`STORAGE_SET`],
    /// [`IMAGE_SET`] (empty where the program declares nothing of a kind).
    pub set_layouts: [vk::DescriptorSetLayout; SETS],
    pub layout: vk::PipelineLayout,
    /// (binding, count) of set 0, merged over stages (shared: each draw
    /// takes a handle).
    pub ubos: Arc<[(u32, u32)]>,
    /// Set 1, merged over stages.
    pub samplers: Arc<[SamplerBinding]>,
    /// Set 2 (storage blocks: binding, count), merged over stages.
    pub ssbos: Arc<[(u32, u32)]>,
    /// Set 3 (storage images), merged over stages.
    pub images: Arc<[ImageBinding]>,
    /// Vertex input locations and the attributes feeding them.
    pub inputs: Arc<[spirv::Input]>,
    /// A compute program (its one stage is the compute stage).
    pub is_compute: bool,
    /// Declares resources this backend cannot bind (`Reflection::unsupported`).
    pub unsupported: bool,
    /// Set 0 holds UNIFORM_BUFFER_DYNAMIC descriptors: a draw that only
    /// moves uniform ranges within the same buffers rebinds the set with
    /// new dynamic offsets instead of writing a new one.
    pub dynamic_ubos: bool,
}

impl ShaderBuild {
    pub fn collect(self, gpu: &Gpu, out: &mut Vec<Garbage>) {
        for (_, m, _) in self.modules {
            // SAFETY: modules are only read while creating pipelines, which
            // is synchronous; no pending GPU work references a module.
            unsafe { gpu.device.destroy_shader_module(m, None) };
        }
        out.push(Garbage::Layout(self.layout));
        for l in self.set_layouts {
            out.push(Garbage::SetLayout(l));
        }
    }
}

const STAGE_FLAGS: [vk::ShaderStageFlags; 6] = [
    vk::ShaderStageFlags::VERTEX,
    vk::ShaderStageFlags::TESSELLATION_CONTROL,
    vk::ShaderStageFlags::TESSELLATION_EVALUATION,
    vk::ShaderStageFlags::GEOMETRY,
    vk::ShaderStageFlags::FRAGMENT,
    vk::ShaderStageFlags::COMPUTE,
];

/// Split the create_shader blob into stages, rewrite and reflect them, and
/// make modules + layouts.
pub(crate) fn build_shader(
    gpu: &Gpu,
    p: &calls::CreateShader,
    blob: &[u8],
) -> Result<ShaderBuild, String> {
    let mut at = 0usize;
    let mut stages = Vec::new();
    for (i, &words) in p.stage_words.iter().enumerate() {
        if p.stage_mask & (1 << i) == 0 {
            continue;
        }
        let len = (words as usize)
            .checked_mul(4)
            .ok_or("stage length overflows")?;
        let bytes = blob
            .get(at..at.checked_add(len).ok_or("stage length overflows")?)
            .ok_or_else(|| format!("blob too short for stage {i} ({words} words)"))?;
        at += len;
        let mut w: Vec<u32> = bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        // 64-bit vertex inputs the device cannot fetch are read as 32-bit
        // words (`spirv::lower_f64_inputs`).
        let split_f64 = i == STAGE_VERTEX && gpu.feat.float64 && !gpu.vertex_64_fetch();
        let r = spirv::rewrite(&mut w, split_f64).map_err(|e| format!("stage {i}: {e}"))?;
        if split_f64 {
            if let Some(lowered) =
                spirv::lower_f64_inputs(&w).map_err(|e| format!("stage {i}: {e}"))?
            {
                w = lowered;
            }
        }
        if i == STAGE_VERTEX && gpu.feat.draw_parameters {
            if let Some(counted) =
                spirv::subtract_base_instance(&w).map_err(|e| format!("stage {i}: {e}"))?
            {
                w = counted;
            }
        }
        if i == STAGE_FRAGMENT {
            if let Some(flipped) =
                spirv::flip_point_coord(&w).map_err(|e| format!("stage {i}: {e}"))?
            {
                w = flipped;
            }
        }
        stages.push((i, w, r));
    }
    if stages.is_empty() {
        return Err("no stages".into());
    }
    for (_, _, r) in &stages {
        let too_big = r.ubos.iter().any(|u| u.1 > 64 || u.0 > 1024)
            || r.samplers.iter().any(|s| s.count > 64 || s.binding > 1024)
            || r.ssbos.iter().any(|u| u.1 > 64 || u.0 > 1024)
            || r.images.iter().any(|s| s.count > 64 || s.binding > 1024);
        if too_big {
            return Err("descriptor binding or array size beyond this backend's limits".into());
        }
    }
    let is_compute = p.stage_mask == 1 << STAGE_COMPUTE;
    if !is_compute && p.stage_mask & (1 << STAGE_COMPUTE) != 0 {
        return Err("a compute stage linked with graphics stages".into());
    }
    let mut ubos: Vec<(u32, u32)> = Vec::new();
    let mut samplers: Vec<SamplerBinding> = Vec::new();
    let mut ssbos: Vec<(u32, u32)> = Vec::new();
    let mut images: Vec<ImageBinding> = Vec::new();
    let mut inputs = Vec::new();
    let mut unsupported = false;
    for (i, _, r) in &stages {
        for &u in &r.ubos {
            match ubos.iter_mut().find(|x| x.0 == u.0) {
                Some(x) => x.1 = x.1.max(u.1),
                None => ubos.push(u),
            }
        }
        for s in &r.samplers {
            match samplers.iter_mut().find(|x| x.binding == s.binding) {
                Some(x) => x.count = x.count.max(s.count),
                None => samplers.push(*s),
            }
        }
        for &u in &r.ssbos {
            match ssbos.iter_mut().find(|x| x.0 == u.0) {
                Some(x) => x.1 = x.1.max(u.1),
                None => ssbos.push(u),
            }
        }
        for s in &r.images {
            match images.iter_mut().find(|x| x.binding == s.binding) {
                Some(x) => x.count = x.count.max(s.count),
                None => images.push(*s),
            }
        }
        if *i == 0 {
            inputs = r.inputs.clone();
        }
        unsupported |= r.unsupported;
    }
    let all = if is_compute {
        vk::ShaderStageFlags::COMPUTE
    } else {
        vk::ShaderStageFlags::ALL_GRAPHICS
    };
    let d = &gpu.device;
    let mut modules = Vec::new();
    let cleanup = |modules: &mut Vec<(vk::ShaderStageFlags, vk::ShaderModule, CString)>,
                   sl: &[vk::DescriptorSetLayout]| {
        // SAFETY: objects just created here, not used by any GPU work.
        unsafe {
            for (_, m, _) in modules.drain(..) {
                d.destroy_shader_module(m, None);
            }
            for &l in sl {
                d.destroy_descriptor_set_layout(l, None);
            }
        }
    };
    for (i, w, r) in &stages {
        let ci = vk::ShaderModuleCreateInfo::default().code(w);
        // SAFETY: `w` is a structurally walked SPIR-V module.
        match unsafe { d.create_shader_module(&ci, None) } {
            Ok(m) => modules.push((
                STAGE_FLAGS[*i],
                m,
                CString::new(r.entry.clone()).unwrap_or_else(|_| c"main".to_owned()),
            )),
            Err(e) => {
                cleanup(&mut modules, &[]);
                return Err(format!("vkCreateShaderModule (stage {i}): {e}"));
            }
        }
    }
    // Each binding is visible only to the stages that declare it: a
    // binding visible to a stage that does not read it still costs the
    // driver a state change for that stage on every descriptor-set bind
    // (llvmpipe re-copies the fragment state whenever a fragment constant
    // buffer moves, e.g. one glBindBufferRange per draw).
    let stages_of = |has: &dyn Fn(&spirv::Reflection) -> bool| {
        let mut f = vk::ShaderStageFlags::empty();
        for (i, _, r) in &stages {
            if has(r) {
                f |= STAGE_FLAGS[*i];
            }
        }
        if f.is_empty() {
            all
        } else {
            f & all
        }
    };
    let ubo_count: u64 = ubos.iter().map(|&(_, n)| n.max(1) as u64).sum();
    let dynamic_ubos =
        ubo_count <= gpu.props.limits.max_descriptor_set_uniform_buffers_dynamic as u64;
    let ubo_type = if dynamic_ubos {
        vk::DescriptorType::UNIFORM_BUFFER_DYNAMIC
    } else {
        vk::DescriptorType::UNIFORM_BUFFER
    };
    // One binding per (binding, count), visible to the stages declaring it.
    let set_bindings = |items: Vec<(u32, u32)>,
                        ty: vk::DescriptorType,
                        declares: &dyn Fn(&spirv::Reflection, u32) -> bool|
     -> Vec<vk::DescriptorSetLayoutBinding<'static>> {
        items
            .into_iter()
            .map(|(b, n)| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(b)
                    .descriptor_type(ty)
                    .descriptor_count(n.max(1))
                    .stage_flags(stages_of(&|r| declares(r, b)))
            })
            .collect()
    };
    let ubo_b = set_bindings(ubos.to_vec(), ubo_type, &|r, b| {
        r.ubos.iter().any(|u| u.0 == b)
    });
    // A texture unit read as a samplerBuffer is a uniform texel buffer
    // (GL forbids one unit used with two sampler types in a draw).
    let mut smp_b = set_bindings(
        samplers.iter().map(|s| (s.binding, s.count)).collect(),
        vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
        &|r, b| r.samplers.iter().any(|x| x.binding == b),
    );
    for b in smp_b.iter_mut() {
        if samplers
            .iter()
            .any(|s| s.binding == b.binding && s.dim == spirv::DIM_BUFFER)
        {
            b.descriptor_type = vk::DescriptorType::UNIFORM_TEXEL_BUFFER;
        }
    }
    let ssbo_b = set_bindings(
        ssbos.to_vec(),
        vk::DescriptorType::STORAGE_BUFFER,
        &|r, b| r.ssbos.iter().any(|u| u.0 == b),
    );
    let img_b = set_bindings(
        images.iter().map(|s| (s.binding, s.count)).collect(),
        vk::DescriptorType::STORAGE_IMAGE,
        &|r, b| r.images.iter().any(|x| x.binding == b),
    );
    let mut set_layouts = Vec::new();
    for b in [&ubo_b, &smp_b, &ssbo_b, &img_b] {
        let ci = vk::DescriptorSetLayoutCreateInfo::default().bindings(b);
        // SAFETY: valid device; bindings are unique per set (merged above).
        match unsafe { d.create_descriptor_set_layout(&ci, None) } {
            Ok(l) => set_layouts.push(l),
            Err(e) => {
                cleanup(&mut modules, &set_layouts);
                return Err(format!("vkCreateDescriptorSetLayout: {e}"));
            }
        }
    }
    let ci = vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts);
    // SAFETY: valid device and set layouts.
    let layout = match unsafe { d.create_pipeline_layout(&ci, None) } {
        Ok(l) => l,
        Err(e) => {
            cleanup(&mut modules, &set_layouts);
            return Err(format!("vkCreatePipelineLayout: {e}"));
        }
    };
    debug_assert_eq!(UBO_SET, 0);
    debug_assert_eq!(SAMPLER_SET, 1);
    debug_assert_eq!(STORAGE_SET, 2);
    debug_assert_eq!(IMAGE_SET, 3);
    Ok(ShaderBuild {
        modules,
        set_layouts: [
            set_layouts[0],
            set_layouts[1],
            set_layouts[2],
            set_layouts[3],
        ],
        layout,
        ubos: ubos.into(),
        samplers: samplers.into(),
        ssbos: ssbos.into(),
        images: images.into(),
        inputs: inputs.into(),
        is_compute,
        unsupported,
        dynamic_ubos,
    })
}

/// One vertex input location as the pipeline sees it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct VertexSlot {
    pub location: u32,
    pub format: vk::Format,
    pub stride: u32,
    pub instance: bool,
    pub divisor: u32,
}

/// Everything baked into one graphics pipeline.
pub(crate) struct PipeDesc<'a> {
    pub shader: mgpipe::Handle,
    pub build: &'a ShaderBuild,
    pub rs: &'a calls::CreateRenderState,
    pub topology: vk::PrimitiveTopology,
    /// patchControlPoints (PATCH_LIST only; 0 otherwise).
    pub patch_control_points: u32,
    pub restart: bool,
    pub colors: [vk::Format; 8],
    pub color_integer: u32,
    pub color_alpha_one: u32,
    pub depth: vk::Format,
    pub stencil: vk::Format,
    pub samples: vk::SampleCountFlags,
    pub vertex: &'a [VertexSlot],
}

impl<'a> PipeDesc<'a> {
    /// The description of a draw's pipeline; primitive restart applies to
    /// indexed draws (`index_size` != 0) only.
    pub fn new(
        shader: mgpipe::Handle,
        build: &'a ShaderBuild,
        rs: &'a calls::CreateRenderState,
        index_size: u32,
        t: &crate::PipeTargets,
        vertex: &'a [VertexSlot],
    ) -> Self {
        PipeDesc {
            shader,
            build,
            rs,
            topology: t.topology,
            patch_control_points: t.patch_control_points,
            restart: rs.primitive_restart_fixed != 0 && index_size != 0,
            colors: t.colors,
            color_integer: t.color_integer,
            color_alpha_one: t.color_alpha_one,
            depth: t.depth,
            stencil: t.stencil,
            samples: t.samples,
            vertex,
        }
    }

    /// The pipeline-cache key, written into `k` (cleared first): a draw
    /// reuses one buffer instead of allocating a key per draw.
    pub fn key_into(&self, k: &mut Vec<u32>) {
        k.clear();
        k.extend_from_slice(&[self.shader.slot, self.shader.gen]);
        let mut rs = *self.rs;
        rs.cso = mgpipe::Handle::NULL;
        rs.stencil_ref = [0; 2];
        k.extend_from_slice(bytemuck::cast_slice(bytemuck::bytes_of(&rs)));
        k.push(self.topology.as_raw() as u32);
        k.push(self.patch_control_points);
        k.push(self.restart as u32);
        k.extend(self.colors.iter().map(|f| f.as_raw() as u32));
        k.push(self.color_alpha_one);
        k.extend_from_slice(&[
            self.depth.as_raw() as u32,
            self.stencil.as_raw() as u32,
            self.samples.as_raw(),
        ]);
        for v in self.vertex {
            k.extend_from_slice(&[
                v.location,
                v.format.as_raw() as u32,
                v.stride,
                v.instance as u32,
                v.divisor,
            ]);
        }
    }
}

pub(crate) fn create_pipeline(gpu: &Gpu, d: &PipeDesc) -> Result<vk::Pipeline, VkError> {
    let rs = d.rs;
    let or = |v: u32, def: u32| if v == 0 { def } else { v };
    let stages: Vec<vk::PipelineShaderStageCreateInfo> = d
        .build
        .modules
        .iter()
        .map(|(st, m, name)| {
            vk::PipelineShaderStageCreateInfo::default()
                .stage(*st)
                .module(*m)
                .name(name.as_c_str())
        })
        .collect();
    let bindings: Vec<vk::VertexInputBindingDescription> = d
        .vertex
        .iter()
        .map(|v| vk::VertexInputBindingDescription {
            binding: v.location,
            stride: v.stride,
            input_rate: if v.instance {
                vk::VertexInputRate::INSTANCE
            } else {
                vk::VertexInputRate::VERTEX
            },
        })
        .collect();
    let attrs: Vec<vk::VertexInputAttributeDescription> = d
        .vertex
        .iter()
        .map(|v| vk::VertexInputAttributeDescription {
            location: v.location,
            binding: v.location,
            format: v.format,
            offset: 0,
        })
        .collect();
    let divs: Vec<vk::VertexInputBindingDivisorDescriptionKHR> = d
        .vertex
        .iter()
        .filter(|v| v.instance && v.divisor > 1 && gpu.feat.divisor)
        .map(|v| vk::VertexInputBindingDivisorDescriptionKHR {
            binding: v.location,
            divisor: v.divisor,
        })
        .collect();
    let mut div_ci =
        vk::PipelineVertexInputDivisorStateCreateInfoKHR::default().vertex_binding_divisors(&divs);
    let mut vi = vk::PipelineVertexInputStateCreateInfo::default()
        .vertex_binding_descriptions(&bindings)
        .vertex_attribute_descriptions(&attrs);
    if !divs.is_empty() {
        vi = vi.push_next(&mut div_ci);
    }
    let ia = vk::PipelineInputAssemblyStateCreateInfo::default()
        .topology(d.topology)
        .primitive_restart_enable(
            d.restart
                && (emulation::is_strip_topology(d.topology)
                    || (gpu.feat.list_restart && d.topology != vk::PrimitiveTopology::PATCH_LIST)),
        );
    let mut dcc = vk::PipelineViewportDepthClipControlCreateInfoEXT::default()
        .negative_one_to_one(rs.clip_zero_to_one == 0);
    let mut vp = vk::PipelineViewportStateCreateInfo::default()
        .viewport_count(1)
        .scissor_count(1);
    if gpu.feat.depth_clip_control {
        vp = vp.push_next(&mut dcc);
    }
    let cull = if rs.cull_enable != 0 {
        match or(rs.cull_face, gl::BACK) {
            gl::FRONT => vk::CullModeFlags::FRONT,
            gl::FRONT_AND_BACK => vk::CullModeFlags::FRONT_AND_BACK,
            _ => vk::CullModeFlags::BACK,
        }
    } else {
        vk::CullModeFlags::NONE
    };
    // GL rows are stored bottom-up (emulation.rs): the winding flips.
    // glClipControl(GL_UPPER_LEFT) flips y by a negative-height viewport,
    // which reverses window-space winding; GL's facing ignores the origin,
    // so the flip is undone here.
    let front = if (or(rs.front_face, gl::CCW) == gl::CW) != (rs.clip_upper_left != 0) {
        vk::FrontFace::COUNTER_CLOCKWISE
    } else {
        vk::FrontFace::CLOCKWISE
    };
    let (mode, offset) = polygon_mode(gpu, rs);
    let mut raster = vk::PipelineRasterizationStateCreateInfo::default()
        .rasterizer_discard_enable(rs.rasterizer_discard != 0)
        .polygon_mode(mode)
        .cull_mode(cull)
        .front_face(front)
        .depth_bias_enable(offset)
        .line_width(1.0);
    // GL's provoking vertex (glProvokingVertex, last by default); without
    // VK_EXT_provoking_vertex Vulkan's first vertex stands. With a
    // geometry shader the last vertex always provokes: the frontend's
    // first-vertex variant of the program does the rest, and the last-
    // vertex mode orders odd strip triangles (their adjacency) as GL does.
    let has_gs = d
        .build
        .modules
        .iter()
        .any(|(st, _, _)| *st == vk::ShaderStageFlags::GEOMETRY);
    let mut provoking = vk::PipelineRasterizationProvokingVertexStateCreateInfoEXT::default()
        .provoking_vertex_mode(provoking_mode(rs.provoking_first != 0 && !has_gs));
    if gpu.feat.provoking_last {
        raster = raster.push_next(&mut provoking);
    }
    // GL_SAMPLE_MASK: word 0 covers every count up to 32 samples.
    let sample_mask = [rs.sample_mask];
    let ms = vk::PipelineMultisampleStateCreateInfo::default()
        .rasterization_samples(d.samples)
        .alpha_to_coverage_enable(rs.sample_alpha_to_coverage != 0);
    // GL_SAMPLE_SHADING / glMinSampleShading (needs sampleRateShading).
    let ms = if rs.sample_shading != 0 && gpu.feat.sample_rate_shading {
        ms.sample_shading_enable(true)
            .min_sample_shading(rs.min_sample_shading.clamp(0.0, 1.0))
    } else {
        ms
    };
    let ms = if rs.sample_mask_enable != 0 {
        ms.sample_mask(&sample_mask)
    } else {
        ms
    };
    let has_depth = d.depth != vk::Format::UNDEFINED;
    let has_stencil = d.stencil != vk::Format::UNDEFINED;
    let face = |f: usize| vk::StencilOpState {
        fail_op: emulation::stencil_op(or(rs.stencil_fail[f], gl::KEEP)),
        pass_op: emulation::stencil_op(or(rs.stencil_zpass[f], gl::KEEP)),
        depth_fail_op: emulation::stencil_op(or(rs.stencil_zfail[f], gl::KEEP)),
        compare_op: emulation::compare_op(or(rs.stencil_func[f], gl::ALWAYS)),
        compare_mask: rs.stencil_value_mask[f],
        write_mask: rs.stencil_write_mask[f],
        reference: 0,
    };
    let ds = vk::PipelineDepthStencilStateCreateInfo::default()
        .depth_test_enable(has_depth && rs.depth_test != 0)
        .depth_write_enable(has_depth && rs.depth_test != 0 && rs.depth_write != 0)
        .depth_compare_op(emulation::compare_op(or(rs.depth_func, gl::LESS)))
        .stencil_test_enable(has_stencil && rs.stencil_test != 0)
        .front(face(0))
        .back(face(1));
    let mut atts = [vk::PipelineColorBlendAttachmentState::default(); 8];
    let n_colors = d
        .colors
        .iter()
        .rposition(|f| *f != vk::Format::UNDEFINED)
        .map(|i| i + 1)
        .unwrap_or(0);
    let first_blend = |i: usize| rs.blend_enable_mask & (1 << i) != 0;
    for (i, a) in atts.iter_mut().enumerate().take(n_colors) {
        let mut mask = (rs.color_write_mask >> (4 * i)) & 0xf;
        if !gpu.feat.independent_blend {
            mask = rs.color_write_mask & 0xf;
        }
        let blend_on = if gpu.feat.independent_blend {
            first_blend(i)
        } else {
            first_blend(0)
        };
        // Per-draw-buffer functions/equations (independentBlend), else
        // buffer 0's for every attachment.
        let j = if gpu.feat.independent_blend { i } else { 0 };
        let per = rs.blend_per_buffer != 0;
        let pick = |arr: &[u32; 8], scalar: u32| if per { arr[j] } else { scalar };
        // A format without alpha stored with one (RGB16F as RGBA16F): GL
        // blends with a destination alpha of 1, whatever the stored alpha.
        let alpha_one = d.color_alpha_one & (1 << i) != 0;
        let rgb_factor = |f: u32| match f {
            gl::DST_ALPHA if alpha_one => gl::ONE,
            gl::ONE_MINUS_DST_ALPHA | gl::SRC_ALPHA_SATURATE if alpha_one => gl::ZERO,
            f => f,
        };
        let alpha_factor = |f: u32| match f {
            gl::DST_ALPHA if alpha_one => gl::ONE,
            gl::ONE_MINUS_DST_ALPHA if alpha_one => gl::ZERO,
            f => f,
        };
        *a = vk::PipelineColorBlendAttachmentState {
            blend_enable: (blend_on
                && d.colors[i] != vk::Format::UNDEFINED
                && d.color_integer & (1 << i) == 0) as u32,
            src_color_blend_factor: emulation::blend_factor(rgb_factor(pick(
                &rs.blend_src_rgb_i,
                rs.blend_src_rgb,
            ))),
            dst_color_blend_factor: emulation::blend_factor(rgb_factor(pick(
                &rs.blend_dst_rgb_i,
                rs.blend_dst_rgb,
            ))),
            color_blend_op: emulation::blend_op(or(
                pick(&rs.blend_eq_rgb_i, rs.blend_eq_rgb),
                gl::FUNC_ADD,
            )),
            src_alpha_blend_factor: emulation::blend_factor(alpha_factor(pick(
                &rs.blend_src_alpha_i,
                rs.blend_src_alpha,
            ))),
            dst_alpha_blend_factor: emulation::blend_factor(alpha_factor(pick(
                &rs.blend_dst_alpha_i,
                rs.blend_dst_alpha,
            ))),
            alpha_blend_op: emulation::blend_op(or(
                pick(&rs.blend_eq_alpha_i, rs.blend_eq_alpha),
                gl::FUNC_ADD,
            )),
            color_write_mask: vk::ColorComponentFlags::from_raw(mask),
        };
    }
    let cb = vk::PipelineColorBlendStateCreateInfo::default().attachments(&atts[..n_colors]);
    let dyns = [
        vk::DynamicState::VIEWPORT,
        vk::DynamicState::SCISSOR,
        vk::DynamicState::BLEND_CONSTANTS,
        vk::DynamicState::STENCIL_REFERENCE,
        vk::DynamicState::DEPTH_BIAS,
        vk::DynamicState::LINE_WIDTH,
    ];
    let dy = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dyns);
    let mut rendering = vk::PipelineRenderingCreateInfo::default()
        .color_attachment_formats(&d.colors[..n_colors])
        .depth_attachment_format(d.depth)
        .stencil_attachment_format(d.stencil);
    // Tessellation: GL_PATCHES draws of a program with both tessellation
    // stages (Vulkan has no default levels, so no evaluation stage
    // alone); GL's domain origin is the lower left (Vulkan's default, the
    // upper left, would reverse the generated triangles' vertex order).
    let patches = d.topology == vk::PrimitiveTopology::PATCH_LIST;
    let has = |f: vk::ShaderStageFlags| d.build.modules.iter().any(|(st, _, _)| *st == f);
    let tess = has(vk::ShaderStageFlags::TESSELLATION_CONTROL)
        && has(vk::ShaderStageFlags::TESSELLATION_EVALUATION);
    if patches != tess
        || has(vk::ShaderStageFlags::TESSELLATION_CONTROL)
            != has(vk::ShaderStageFlags::TESSELLATION_EVALUATION)
    {
        return Err(VkError::Unsupported(
            "a tessellation program without a control or evaluation stage, or patches without tessellation",
        ));
    }
    let mut domain = vk::PipelineTessellationDomainOriginStateCreateInfo::default()
        .domain_origin(vk::TessellationDomainOrigin::LOWER_LEFT);
    let ts = vk::PipelineTessellationStateCreateInfo::default()
        .patch_control_points(d.patch_control_points.max(1))
        .push_next(&mut domain);
    let mut ci = vk::GraphicsPipelineCreateInfo::default()
        .stages(&stages)
        .vertex_input_state(&vi)
        .input_assembly_state(&ia)
        .viewport_state(&vp)
        .rasterization_state(&raster)
        .multisample_state(&ms)
        .depth_stencil_state(&ds)
        .color_blend_state(&cb)
        .dynamic_state(&dy)
        .layout(d.build.layout)
        .push_next(&mut rendering);
    if tess {
        ci = ci.tessellation_state(&ts);
    }
    // SAFETY: every pointer in the create info outlives the call; formats
    // match the rendering instance the pipeline is used in (keyed).
    match unsafe {
        gpu.device
            .create_graphics_pipelines(gpu.pcache, &[ci], None)
    } {
        Ok(v) if !v.is_empty() => Ok(v[0]),
        Ok(_) => Err(VkError::Call {
            call: "vkCreateGraphicsPipelines",
            result: vk::Result::ERROR_UNKNOWN,
        }),
        Err((v, result)) => {
            for p in v {
                if p != vk::Pipeline::null() {
                    // SAFETY: a pipeline just created, unused.
                    unsafe { gpu.device.destroy_pipeline(p, None) };
                }
            }
            Err(VkError::Call {
                call: "vkCreateGraphicsPipelines",
                result,
            })
        }
    }
}

/// The compute pipeline of a compute program (`build.is_compute`).
pub(crate) fn create_compute_pipeline(
    gpu: &Gpu,
    build: &ShaderBuild,
) -> Result<vk::Pipeline, VkError> {
    let Some((_, module, name)) = build
        .modules
        .iter()
        .find(|(st, _, _)| *st == vk::ShaderStageFlags::COMPUTE)
    else {
        return Err(VkError::Call {
            call: "vkCreateComputePipelines (no compute stage)",
            result: vk::Result::ERROR_INITIALIZATION_FAILED,
        });
    };
    let stage = vk::PipelineShaderStageCreateInfo::default()
        .stage(vk::ShaderStageFlags::COMPUTE)
        .module(*module)
        .name(name.as_c_str());
    let ci = vk::ComputePipelineCreateInfo::default()
        .stage(stage)
        .layout(build.layout);
    // SAFETY: every pointer in the create info outlives the call; the
    // module and layout are live objects of this device.
    match unsafe { gpu.device.create_compute_pipelines(gpu.pcache, &[ci], None) } {
        Ok(v) if !v.is_empty() => Ok(v[0]),
        Ok(_) => Err(VkError::Call {
            call: "vkCreateComputePipelines",
            result: vk::Result::ERROR_UNKNOWN,
        }),
        Err((v, result)) => {
            for p in v {
                if p != vk::Pipeline::null() {
                    // SAFETY: a pipeline just created, unused.
                    unsafe { gpu.device.destroy_pipeline(p, None) };
                }
            }
            Err(VkError::Call {
                call: "vkCreateComputePipelines",
                result,
            })
        }
    }
}

/// The built-in masked-clear program (SPIR-V made once with
/// `glslangValidator -V src/builtin/clear.{vert,frag}`).
pub(crate) struct ClearKit {
    pub vs: vk::ShaderModule,
    pub fs: vk::ShaderModule,
    pub layout: vk::PipelineLayout,
}

/// Push constants of the clear program: colour, then clip-space z.
pub(crate) const CLEAR_PUSH_SIZE: u32 = 20;

fn spv_words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

impl ClearKit {
    pub fn new(gpu: &Gpu) -> Result<ClearKit, VkError> {
        let d = &gpu.device;
        let err = |call| move |result| VkError::Call { call, result };
        let vs_w = spv_words(include_bytes!("builtin/clear.vert.spv"));
        let fs_w = spv_words(include_bytes!("builtin/clear.frag.spv"));
        // SAFETY: embedded, validated-at-build SPIR-V; valid device.
        let vs = unsafe {
            d.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&vs_w), None)
        }
        .map_err(err("vkCreateShaderModule"))?;
        // SAFETY: as above.
        let fs = match unsafe {
            d.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&fs_w), None)
        } {
            Ok(m) => m,
            Err(e) => {
                // SAFETY: the module just made, unused.
                unsafe { d.destroy_shader_module(vs, None) };
                return Err(err("vkCreateShaderModule")(e));
            }
        };
        let ranges = [vk::PushConstantRange {
            stage_flags: vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT,
            offset: 0,
            size: CLEAR_PUSH_SIZE,
        }];
        // SAFETY: valid device and create info.
        let layout = match unsafe {
            d.create_pipeline_layout(
                &vk::PipelineLayoutCreateInfo::default().push_constant_ranges(&ranges),
                None,
            )
        } {
            Ok(l) => l,
            Err(e) => {
                // SAFETY: modules just made, unused.
                unsafe {
                    d.destroy_shader_module(vs, None);
                    d.destroy_shader_module(fs, None);
                }
                return Err(err("vkCreatePipelineLayout")(e));
            }
        };
        Ok(ClearKit { vs, fs, layout })
    }

    pub fn collect(self, gpu: &Gpu, out: &mut Vec<Garbage>) {
        // SAFETY: modules are only read during (synchronous) pipeline creation.
        unsafe {
            gpu.device.destroy_shader_module(self.vs, None);
            gpu.device.destroy_shader_module(self.fs, None);
        }
        out.push(Garbage::Layout(self.layout));
    }
}

/// What a masked clear pipeline bakes in.
pub(crate) struct ClearDesc {
    pub colors: [vk::Format; 8],
    /// Colour write mask per slot (0: slot not cleared).
    pub masks: [u32; 8],
    pub depth: vk::Format,
    pub stencil: vk::Format,
    /// Stencil write mask (0: stencil not cleared).
    pub stencil_mask: u32,
    pub samples: vk::SampleCountFlags,
}

impl ClearDesc {
    pub fn key(&self) -> Vec<u32> {
        // Shader handles are never null, so [0, 0] never names a client pipeline.
        let mut k = vec![0, 0];
        k.extend(self.colors.iter().map(|f| f.as_raw() as u32));
        k.extend_from_slice(&self.masks);
        k.extend_from_slice(&[
            self.depth.as_raw() as u32,
            self.stencil.as_raw() as u32,
            self.stencil_mask,
            self.samples.as_raw(),
        ]);
        k
    }
}

pub(crate) fn create_clear_pipeline(
    gpu: &Gpu,
    kit: &ClearKit,
    d: &ClearDesc,
) -> Result<vk::Pipeline, VkError> {
    let stages = [
        vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::VERTEX)
            .module(kit.vs)
            .name(c"main"),
        vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::FRAGMENT)
            .module(kit.fs)
            .name(c"main"),
    ];
    let vi = vk::PipelineVertexInputStateCreateInfo::default();
    let ia = vk::PipelineInputAssemblyStateCreateInfo::default()
        .topology(vk::PrimitiveTopology::TRIANGLE_LIST);
    let vp = vk::PipelineViewportStateCreateInfo::default()
        .viewport_count(1)
        .scissor_count(1);
    let raster = vk::PipelineRasterizationStateCreateInfo::default()
        .polygon_mode(vk::PolygonMode::FILL)
        .cull_mode(vk::CullModeFlags::NONE)
        .line_width(1.0);
    let ms = vk::PipelineMultisampleStateCreateInfo::default().rasterization_samples(d.samples);
    let st = vk::StencilOpState {
        fail_op: vk::StencilOp::REPLACE,
        pass_op: vk::StencilOp::REPLACE,
        depth_fail_op: vk::StencilOp::REPLACE,
        compare_op: vk::CompareOp::ALWAYS,
        compare_mask: 0xff,
        write_mask: d.stencil_mask,
        reference: 0,
    };
    let ds = vk::PipelineDepthStencilStateCreateInfo::default()
        .stencil_test_enable(d.stencil != vk::Format::UNDEFINED && d.stencil_mask != 0)
        .front(st)
        .back(st);
    let n = d
        .colors
        .iter()
        .rposition(|f| *f != vk::Format::UNDEFINED)
        .map(|i| i + 1)
        .unwrap_or(0);
    let atts: Vec<vk::PipelineColorBlendAttachmentState> = (0..n)
        .map(|i| vk::PipelineColorBlendAttachmentState {
            color_write_mask: vk::ColorComponentFlags::from_raw(d.masks[i] & 0xf),
            ..Default::default()
        })
        .collect();
    let cb = vk::PipelineColorBlendStateCreateInfo::default().attachments(&atts);
    let dyns = [
        vk::DynamicState::VIEWPORT,
        vk::DynamicState::SCISSOR,
        vk::DynamicState::STENCIL_REFERENCE,
    ];
    let dy = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dyns);
    let mut rendering = vk::PipelineRenderingCreateInfo::default()
        .color_attachment_formats(&d.colors[..n])
        .depth_attachment_format(d.depth)
        .stencil_attachment_format(d.stencil);
    let ci = vk::GraphicsPipelineCreateInfo::default()
        .stages(&stages)
        .vertex_input_state(&vi)
        .input_assembly_state(&ia)
        .viewport_state(&vp)
        .rasterization_state(&raster)
        .multisample_state(&ms)
        .depth_stencil_state(&ds)
        .color_blend_state(&cb)
        .dynamic_state(&dy)
        .layout(kit.layout)
        .push_next(&mut rendering);
    // SAFETY: every pointer in the create info outlives the call.
    match unsafe {
        gpu.device
            .create_graphics_pipelines(gpu.pcache, &[ci], None)
    } {
        Ok(v) if !v.is_empty() => Ok(v[0]),
        Ok(_) => Err(VkError::Call {
            call: "vkCreateGraphicsPipelines",
            result: vk::Result::ERROR_UNKNOWN,
        }),
        Err((v, result)) => {
            for p in v {
                if p != vk::Pipeline::null() {
                    // SAFETY: a pipeline just created, unused.
                    unsafe { gpu.device.destroy_pipeline(p, None) };
                }
            }
            Err(VkError::Call {
                call: "vkCreateGraphicsPipelines",
                result,
            })
        }
    }
}

/// The pipeline's polygon mode for glPolygonMode (GL 4.6 §14.6.4) and
/// whether polygon offset applies in that mode (POLYGON_OFFSET_FILL /
/// _LINE / _POINT). Vulkan has one mode for both faces: where GL's front
/// and back modes differ, the face culling leaves is the one drawn, else
/// the front mode is used (logged once). Without fillModeNonSolid
/// polygons stay filled (logged once).
fn polygon_mode(gpu: &Gpu, rs: &calls::CreateRenderState) -> (vk::PolygonMode, bool) {
    let fill = |m: u32| if m == 0 { gl::FILL } else { m };
    let [front, back] = rs.polygon_mode.map(fill);
    let mode = if front == back {
        front
    } else if rs.cull_enable != 0 && rs.cull_face == gl::FRONT {
        back
    } else {
        if rs.cull_enable == 0 || rs.cull_face != gl::BACK {
            warn_once(
                &FACES_WARNED,
                "glPolygonMode with different front and back modes: both faces use the front mode",
            );
        }
        front
    };
    let (mode, offset) = match mode {
        gl::LINE => (vk::PolygonMode::LINE, rs.polygon_offset_line_point & 1 != 0),
        gl::POINT => (
            vk::PolygonMode::POINT,
            rs.polygon_offset_line_point & 2 != 0,
        ),
        _ => (vk::PolygonMode::FILL, rs.polygon_offset_fill != 0),
    };
    if mode != vk::PolygonMode::FILL && !gpu.feat.fill_mode_non_solid {
        warn_once(
            &UNSUPPORTED_WARNED,
            "glPolygonMode(GL_LINE/GL_POINT): the device lacks fillModeNonSolid; polygons are filled",
        );
        return (vk::PolygonMode::FILL, rs.polygon_offset_fill != 0);
    }
    (mode, offset)
}

static FACES_WARNED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
static UNSUPPORTED_WARNED: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// Log `msg` the first time `flag` is seen clear (pipelines are built
/// away from the backend's own once-per-key log).
fn warn_once(flag: &std::sync::atomic::AtomicBool, msg: &str) {
    if !flag.swap(true, std::sync::atomic::Ordering::Relaxed) {
        tracing::warn!("{msg} (logged once)");
    }
}

/// The Vulkan provoking-vertex mode: the first vertex or GL's default,
/// the last (`create_render_state.provoking_first`).
fn provoking_mode(first: bool) -> vk::ProvokingVertexModeEXT {
    if first {
        vk::ProvokingVertexModeEXT::FIRST_VERTEX
    } else {
        vk::ProvokingVertexModeEXT::LAST_VERTEX
    }
}
