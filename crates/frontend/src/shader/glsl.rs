//! Thin, owned wrappers over the glslang C interface (`glslang-sys`).
//!
//! The safe `glslang` crate cannot run `mapIO` (its link consumes the
//! program) and refuses GLSL < 140 before glslang sees it, so this module
//! talks to the C API directly. Process initialisation goes through
//! `glslang::Compiler::acquire()` (a `OnceLock` around
//! `glslang_initialize_process`), so it happens once per process and is
//! shared with any other user of the crate. After that, glslang is safe to
//! use from any thread as long as each shader/program object stays on one
//! thread at a time, which these owned wrappers guarantee (they are `!Send`
//! and `!Sync` through their raw pointers and live inside one call).

use std::ffi::{CStr, CString};
use std::os::raw::c_char;
use std::ptr::NonNull;
use std::sync::OnceLock;

use glslang_sys as sys;

use super::Stage;

/// Name glslang gives the block that collects loose (default-block) uniforms.
pub(crate) const DEFAULT_BLOCK_NAME: &str = "DefaultUniforms";

/// Resource limits handed to glslang: its own defaults, with the built-in
/// constants raised to the values `glGetIntegerv` reports (GL 3.3 minimums
/// or more), so `gl_Max*` agrees with the API.
fn limits() -> &'static glslang::limits::ResourceLimits {
    static LIMITS: OnceLock<glslang::limits::ResourceLimits> = OnceLock::new();
    LIMITS.get_or_init(|| {
        let mut l = glslang::limits::DEFAULT_LIMITS;
        l.set_max_clip_planes(8);
        l.set_max_clip_distances(8);
        l.set_max_varying_components(64);
        l.set_max_varying_floats(64);
        l.set_max_vertex_output_components(64);
        l.set_max_geometry_input_components(64);
        l.set_max_geometry_output_components(128);
        l.set_max_geometry_uniform_components(1024);
        l.set_max_geometry_output_vertices(256);
        l.set_max_geometry_total_output_components(1024);
        l.set_max_geometry_texture_image_units(16);
        l.set_max_draw_buffers(8);
        // Tessellation: the GL 4.0 minimums `gl::tess` reports.
        l.set_max_tess_control_output_components(128);
        l.set_max_tess_control_texture_image_units(16);
        l.set_max_tess_patch_components(120);
        l
    })
}

fn resource_ptr() -> *const sys::glslang_resource_t {
    // `ResourceLimits` is `#[repr(transparent)]` over `glslang_resource_t`,
    // so a pointer to it is a valid pointer to the inner C struct; it lives
    // in a static for the rest of the process.
    std::ptr::from_ref(limits()).cast::<sys::glslang_resource_t>()
}

fn messages() -> sys::glslang_messages_t {
    sys::glslang_messages_t::SPV_RULES | sys::glslang_messages_t::VULKAN_RULES
}

/// Makes sure `glslang_initialize_process` ran (once per process).
pub(crate) fn ensure_initialized() -> Result<(), String> {
    match glslang::Compiler::acquire() {
        Some(_) => Ok(()),
        None => Err("ERROR: glslang failed to initialise\n".to_owned()),
    }
}

fn sys_stage(stage: Stage) -> sys::glslang_stage_t {
    match stage {
        Stage::Vertex => sys::glslang_stage_t::Vertex,
        Stage::TessControl => sys::glslang_stage_t::TesselationControl,
        Stage::TessEval => sys::glslang_stage_t::TesselationEvaluation,
        Stage::Geometry => sys::glslang_stage_t::Geometry,
        Stage::Fragment => sys::glslang_stage_t::Fragment,
        Stage::Compute => sys::glslang_stage_t::Compute,
    }
}

/// Copies a C string owned by glslang into a Rust `String` (lossy UTF-8).
///
/// # Safety
/// `ptr` must be null or point to a NUL-terminated string that stays alive
/// for the duration of the call.
unsafe fn c_string(ptr: *const c_char) -> String {
    if ptr.is_null() {
        return String::new();
    }
    // SAFETY: non-null and NUL-terminated per this function's contract.
    unsafe { CStr::from_ptr(ptr) }
        .to_string_lossy()
        .into_owned()
}

/// One parsed glslang shader. Owns the source and the input struct glslang
/// keeps pointers into.
pub(crate) struct ParsedShader {
    handle: NonNull<sys::glslang_shader_t>,
    pub(crate) stage: Stage,
    /// glslang's preprocessed text (comments stripped, macros expanded).
    pub(crate) preprocessed: String,
    // Kept alive because glslang holds pointers into them.
    _source: CString,
    _input: Box<sys::glslang_input_t>,
    _block_name: CString,
}

impl Drop for ParsedShader {
    fn drop(&mut self) {
        // SAFETY: `handle` came from `glslang_shader_create`, is deleted only
        // here, and any program that referenced it was dropped before (the
        // `Program` borrows the shaders it links).
        unsafe { sys::glslang_shader_delete(self.handle.as_ptr()) }
    }
}

/// Preprocesses and parses `source` for `stage` (Vulkan client, relaxed
/// rules, auto-mapped locations/bindings, `DefaultUniforms` global block).
/// Returns the shader and glslang's info log, or the info log on failure.
pub(crate) fn parse(stage: Stage, source: &str) -> Result<(ParsedShader, String), String> {
    ensure_initialized()?;
    let c_source = CString::new(source)
        .map_err(|_| "ERROR: 0:0: '' : shader source contains a NUL character\n".to_owned())?;
    let block_name = CString::new(DEFAULT_BLOCK_NAME).map_err(|_| String::new())?;
    let input = Box::new(sys::glslang_input_t {
        language: sys::glslang_source_t::GLSL,
        stage: sys_stage(stage),
        client: sys::glslang_client_t::Vulkan,
        client_version: sys::glslang_target_client_version_t::Vulkan1_0,
        target_language: sys::glslang_target_language_t::SPIRV,
        target_language_version: sys::glslang_target_language_version_t::SPIRV1_0,
        code: c_source.as_ptr(),
        default_version: 110,
        default_profile: sys::glslang_profile_t::None,
        force_default_version_and_profile: 0,
        forward_compatible: 0,
        messages: messages(),
        resource: resource_ptr(),
        callbacks: sys::glsl_include_callbacks_t {
            include_system: None,
            include_local: None,
            free_include_result: None,
        },
        callbacks_ctx: std::ptr::null_mut(),
    });
    // SAFETY: `input` is fully initialised, its `code` and `resource`
    // pointers outlive the shader (owned by the returned struct / static).
    let raw = unsafe { sys::glslang_shader_create(&*input) };
    let handle =
        NonNull::new(raw).ok_or_else(|| "ERROR: glslang could not create a shader\n".to_owned())?;
    let mut shader = ParsedShader {
        handle,
        stage,
        preprocessed: String::new(),
        _source: c_source,
        _input: input,
        _block_name: block_name,
    };
    let h = shader.handle.as_ptr();
    let options = sys::glslang_shader_options_t::AUTO_MAP_BINDINGS
        | sys::glslang_shader_options_t::AUTO_MAP_LOCATIONS
        | sys::glslang_shader_options_t::VULKAN_RULES_RELAXED;
    // SAFETY: `h` is a live shader; the block name CString is owned by
    // `shader` (glslang copies it into a std::string anyway).
    unsafe {
        sys::glslang_shader_set_options(h, options.0);
        sys::glslang_shader_set_default_uniform_block_name(h, shader._block_name.as_ptr());
        sys::glslang_shader_set_default_uniform_block_set_and_binding(h, 0, 0);
    }
    // SAFETY: `h` is live and `_input` points at valid, owned data.
    let ok = unsafe { sys::glslang_shader_preprocess(h, &*shader._input) } != 0;
    if !ok {
        // SAFETY: `h` is live; the log pointer is valid until the next call.
        return Err(unsafe { c_string(sys::glslang_shader_get_info_log(h)) });
    }
    // SAFETY: as above; the preprocessed string lives inside the shader.
    shader.preprocessed = unsafe { c_string(sys::glslang_shader_get_preprocessed_code(h)) };
    // SAFETY: `h` is live and has been preprocessed (parse reads the
    // preprocessed text stored in the wrapper).
    let ok = unsafe { sys::glslang_shader_parse(h, &*shader._input) } != 0;
    // SAFETY: `h` is live.
    let log = unsafe { c_string(sys::glslang_shader_get_info_log(h)) };
    if ok {
        Ok((shader, log))
    } else {
        Err(log)
    }
}

/// A linked glslang program borrowing its shaders.
pub(crate) struct Program<'a> {
    handle: NonNull<sys::glslang_program_t>,
    _shaders: std::marker::PhantomData<&'a ParsedShader>,
}

impl Drop for Program<'_> {
    fn drop(&mut self) {
        // SAFETY: created by `glslang_program_create`, deleted only here.
        unsafe { sys::glslang_program_delete(self.handle.as_ptr()) }
    }
}

impl<'a> Program<'a> {
    /// Links the shaders and runs the I/O mapper (cross-stage locations and
    /// bindings). Returns the program and the link log.
    pub(crate) fn link(shaders: &'a [ParsedShader]) -> Result<(Self, String), String> {
        ensure_initialized()?;
        // SAFETY: no preconditions.
        let raw = unsafe { sys::glslang_program_create() };
        let handle = NonNull::new(raw)
            .ok_or_else(|| "ERROR: glslang could not create a program\n".to_owned())?;
        let program = Program {
            handle,
            _shaders: std::marker::PhantomData,
        };
        let h = program.handle.as_ptr();
        for s in shaders {
            // SAFETY: both objects are live; the shaders outlive the program
            // (lifetime `'a`).
            unsafe { sys::glslang_program_add_shader(h, s.handle.as_ptr()) };
        }
        // SAFETY: `h` is live.
        let linked = unsafe { sys::glslang_program_link(h, messages().0) } != 0;
        // SAFETY: `h` is live.
        let mut log = unsafe { c_string(sys::glslang_program_get_info_log(h)) };
        if !linked {
            return Err(log);
        }
        // SAFETY: `h` is live and linked.
        let mapped = unsafe { sys::glslang_program_map_io(h) } != 0;
        if !mapped {
            // SAFETY: `h` is live.
            log.push_str(&unsafe { c_string(sys::glslang_program_get_info_log(h)) });
            if log.trim().is_empty() {
                log.push_str("ERROR: Linking: input/output or resource mapping failed\n");
            }
            return Err(log);
        }
        Ok((program, log))
    }

    /// Generates SPIR-V for one linked stage.
    pub(crate) fn spirv(&self, stage: Stage) -> Result<Vec<u32>, String> {
        let h = self.handle.as_ptr();
        let mut options = sys::glslang_spv_options_t {
            generate_debug_info: false,
            strip_debug_info: false,
            disable_optimizer: true,
            optimize_size: false,
            optimize_performance: false,
            disassemble: false,
            validate: false,
            emit_nonsemantic_shader_debug_info: false,
            emit_nonsemantic_shader_debug_source: false,
            compile_only: false,
            optimize_allow_expanded_id_bound: false,
            compiler_signature: std::ptr::null(),
            command_line_arguments: std::ptr::null(),
            current_working_directory: std::ptr::null(),
        };
        // SAFETY: `h` is a live, linked program that contains `stage`;
        // `options` is a valid, fully initialised struct.
        unsafe {
            sys::glslang_program_SPIRV_generate_with_options(h, sys_stage(stage), &mut options)
        };
        // SAFETY: `h` is live.
        let size = unsafe { sys::glslang_program_SPIRV_get_size(h) };
        // SAFETY: `h` is live; the messages string lives in the program.
        let msgs = unsafe { c_string(sys::glslang_program_SPIRV_get_messages(h)) };
        if size == 0 {
            return Err(format!(
                "ERROR: SPIR-V generation failed for the {stage:?} stage\n{msgs}"
            ));
        }
        if !msgs.trim().is_empty() {
            tracing::debug!(target: "mobilegl::shader", ?stage, "SPIR-V generation messages: {msgs}");
        }
        let mut words = vec![0u32; size];
        // SAFETY: `words` holds exactly `size` u32s, the amount glslang copies.
        unsafe { sys::glslang_program_SPIRV_get(h, words.as_mut_ptr()) };
        Ok(words)
    }
}
