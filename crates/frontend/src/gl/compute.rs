//! Compute dispatch (GL 4.3 §19), shader storage buffer bindings (§7.8)
//! and image units (§8.26), with `glMemoryBarrier`.
//!
//! Owns the GL state of those three (the indexed `GL_SHADER_STORAGE_BUFFER`
//! points, the image units, the dispatch-indirect binding) and its
//! resolution into `set_shader_buffers` / `set_shader_images` at each
//! validate point, after the program's textures and uniform buffers
//! (`validate::emit_program`). Program-side reflection (storage blocks,
//! image uniforms, the local size) lives in `shader`; the backends do the
//! rest (`dispatch_compute`, `memory_barrier`).
//!
//! `glDispatchComputeIndirect` reads its three counts back from the buffer
//! (one blocking round trip, ordered after earlier work), as indirect draws
//! do (`indirect.rs`).

use super::dlist::with_gl_listed;
use mgpipe::calls;

use super::gl_err;
use crate::context::{with_gl, Gl, IndexedBuffer};
use crate::runtime::BlockingCause;

/// Storage-buffer binding points tracked (the catalogue's slot count).
pub const MAX_STORAGE_BINDINGS: usize = 16;
/// Image units tracked (the catalogue's slot count).
pub const MAX_IMAGE_UNITS: usize = 8;
/// `GL_ATOMIC_COUNTER_BUFFER` binding points (GL 4.3's minimum for
/// compute shaders). Atomic counter buffers reach the backend as storage
/// buffers (`shader::AtomicBuffer`).
pub const MAX_ATOMIC_BINDINGS: usize = 8;
/// Counters per stage and in all (GL 4.3's minimums).
pub const MAX_ATOMIC_COUNTERS: u32 = 8;

/// One image unit (`glBindImageTexture`), GL 4.6 table 23.45.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageUnit {
    pub texture: u32,
    pub level: u32,
    pub layered: bool,
    pub layer: u32,
    pub access: u32,
    pub format: u32,
}

impl Default for ImageUnit {
    fn default() -> Self {
        ImageUnit {
            texture: 0,
            level: 0,
            layered: false,
            layer: 0,
            access: glow::READ_ONLY,
            format: glow::R8,
        }
    }
}

/// Per-context compute/storage/image state.
#[derive(Debug, Default)]
pub struct ComputeState {
    pub shader_storage_buffer: u32,
    pub dispatch_indirect_buffer: u32,
    pub storage_bindings: [IndexedBuffer; MAX_STORAGE_BINDINGS],
    pub atomic_counter_buffer: u32,
    pub atomic_bindings: [IndexedBuffer; MAX_ATOMIC_BINDINGS],
    pub image_units: [ImageUnit; MAX_IMAGE_UNITS],
    /// What the records last described (compare-based dirty tracking).
    pub sent_buffers: Option<calls::SetShaderBuffers>,
    pub sent_images: Option<calls::SetShaderImages>,
}

impl ComputeState {
    /// Forget a deleted buffer everywhere it is bound.
    pub fn unbind_buffer(&mut self, name: u32) {
        for b in [
            &mut self.shader_storage_buffer,
            &mut self.dispatch_indirect_buffer,
            &mut self.atomic_counter_buffer,
        ] {
            if *b == name {
                *b = 0;
            }
        }
        for ib in self
            .storage_bindings
            .iter_mut()
            .chain(self.atomic_bindings.iter_mut())
        {
            if ib.buffer == name {
                *ib = IndexedBuffer::default();
            }
        }
    }

    /// Forget a deleted texture in every image unit (GL 4.6 §8.26: deleting
    /// a texture bound to an image unit unbinds it).
    pub fn unbind_texture(&mut self, name: u32) {
        for u in self.image_units.iter_mut() {
            if u.texture == name {
                u.texture = 0;
            }
        }
    }
}

/// Storage-buffer binding points this context offers.
pub fn storage_binding_limit(gl: &Gl) -> usize {
    (gl.conn.caps.max_shader_storage_buffer_bindings as usize).min(MAX_STORAGE_BINDINGS)
}

/// GL_MAX_COMBINED_SHADER_STORAGE_BLOCKS: blocks of all stages together.
/// No more than the binding points, so that every block of a program can
/// have a binding of its own.
pub fn combined_storage_block_limit(gl: &Gl) -> usize {
    storage_binding_limit(gl)
}

/// Image units this context offers.
pub fn image_unit_limit(gl: &Gl) -> usize {
    (gl.conn.caps.max_image_units as usize).min(MAX_IMAGE_UNITS)
}

/// Whether the backend runs compute shaders at all.
pub fn has_compute(caps: &mgpipe::Caps) -> bool {
    caps.max_compute_work_group_invocations > 0
}

/// `glBindBufferBase/Range` of `GL_SHADER_STORAGE_BUFFER` or
/// `GL_ATOMIC_COUNTER_BUFFER` after the common checks: GL 4.6 §6.1.1's
/// index and alignment errors (storage offsets: the driver's alignment;
/// atomic counter offsets: multiples of 4. Atomic counter buffers reach the
/// backend as storage buffers, so a driver with a coarser storage alignment
/// than 4 drops a misaligned one, logged there).
pub fn bind_point(
    gl: &mut Gl,
    target: u32,
    index: u32,
    name: u32,
    offset: i64,
    size: i64,
    ranged: bool,
) -> Result<(), u32> {
    let atomic = target == glow::ATOMIC_COUNTER_BUFFER;
    let (limit, align) = if atomic {
        (MAX_ATOMIC_BINDINGS, 4)
    } else {
        (
            storage_binding_limit(gl),
            u64::from(gl.conn.caps.shader_storage_buffer_offset_alignment.max(1)),
        )
    };
    if index as usize >= limit {
        return Err(glow::INVALID_VALUE);
    }
    if ranged && name != 0 && !mgpipe::align::is_multiple(offset as u64, align) {
        return Err(glow::INVALID_VALUE);
    }
    let c = &mut gl.st.compute;
    let (generic, points) = if atomic {
        (&mut c.atomic_counter_buffer, &mut c.atomic_bindings[..])
    } else {
        (&mut c.shader_storage_buffer, &mut c.storage_bindings[..])
    };
    *generic = name;
    points[index as usize] = IndexedBuffer {
        buffer: name,
        offset: if ranged { offset as u64 } else { 0 },
        size: if ranged { size as u64 } else { 0 },
    };
    gl.st.dirty |= crate::context::DIRTY_RESOURCES;
    Ok(())
}

/// The image formats GL 4.6 table 8.33 allows for image units.
pub(super) fn valid_image_format(f: u32) -> bool {
    matches!(
        f,
        glow::RGBA32F
            | glow::RGBA16F
            | glow::RG32F
            | glow::RG16F
            | glow::R11F_G11F_B10F
            | glow::R32F
            | glow::R16F
            | glow::RGBA32UI
            | glow::RGBA16UI
            | glow::RGB10_A2UI
            | glow::RGBA8UI
            | glow::RG32UI
            | glow::RG16UI
            | glow::RG8UI
            | glow::R32UI
            | glow::R16UI
            | glow::R8UI
            | glow::RGBA32I
            | glow::RGBA16I
            | glow::RGBA8I
            | glow::RG32I
            | glow::RG16I
            | glow::RG8I
            | glow::R32I
            | glow::R16I
            | glow::R8I
            | glow::RGBA16
            | glow::RGB10_A2
            | glow::RGBA8
            | glow::RG16
            | glow::RG8
            | glow::R16
            | glow::R8
            | glow::RGBA16_SNORM
            | glow::RGBA8_SNORM
            | glow::RG16_SNORM
            | glow::RG8_SNORM
            | glow::R16_SNORM
            | glow::R8_SNORM
    )
}

#[no_mangle]
pub unsafe extern "C" fn glBindImageTexture(
    unit: u32,
    texture: u32,
    level: i32,
    layered: u8,
    layer: i32,
    access: u32,
    format: u32,
) {
    with_gl(|gl| {
        if unit as usize >= image_unit_limit(gl) {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        if texture != 0 && !matches!(gl.sh.textures.get(&texture), Some(Some(_))) {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        if level < 0 || layer < 0 {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        if !matches!(
            access,
            glow::READ_ONLY | glow::WRITE_ONLY | glow::READ_WRITE
        ) {
            gl_err!(gl, glow::INVALID_ENUM);
        }
        if !valid_image_format(format) {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        gl.st.compute.image_units[unit as usize] = ImageUnit {
            texture,
            level: level as u32,
            layered: layered != 0,
            layer: layer as u32,
            access,
            format,
        };
        gl.st.dirty |= crate::context::DIRTY_RESOURCES;
    })
}

/// `glGetIntegeri_v` of the image-unit and storage-binding queries; `None`
/// when `pname` is not one of them.
pub fn indexed_param(gl: &mut Gl, pname: u32, index: u32) -> Option<Result<i64, u32>> {
    let image = |gl: &Gl| {
        if index as usize >= image_unit_limit(gl) {
            Err(glow::INVALID_VALUE)
        } else {
            Ok(gl.st.compute.image_units[index as usize])
        }
    };
    let storage = |gl: &Gl| {
        if index as usize >= storage_binding_limit(gl) {
            Err(glow::INVALID_VALUE)
        } else {
            Ok(gl.st.compute.storage_bindings[index as usize])
        }
    };
    let caps = &gl.conn.caps;
    let workgroup = |v: [u32; 3]| {
        v.get(index as usize)
            .map(|&x| i64::from(x))
            .ok_or(glow::INVALID_VALUE)
    };
    Some(match pname {
        glow::IMAGE_BINDING_NAME => image(gl).map(|u| i64::from(u.texture)),
        glow::IMAGE_BINDING_LEVEL => image(gl).map(|u| i64::from(u.level)),
        glow::IMAGE_BINDING_LAYERED => image(gl).map(|u| i64::from(u.layered)),
        glow::IMAGE_BINDING_LAYER => image(gl).map(|u| i64::from(u.layer)),
        glow::IMAGE_BINDING_ACCESS => image(gl).map(|u| i64::from(u.access)),
        glow::IMAGE_BINDING_FORMAT => image(gl).map(|u| i64::from(u.format)),
        glow::SHADER_STORAGE_BUFFER_BINDING => storage(gl).map(|b| i64::from(b.buffer)),
        glow::SHADER_STORAGE_BUFFER_START => storage(gl).map(|b| b.offset as i64),
        glow::SHADER_STORAGE_BUFFER_SIZE => storage(gl).map(|b| b.size as i64),
        glow::ATOMIC_COUNTER_BUFFER_BINDING
        | glow::ATOMIC_COUNTER_BUFFER_START
        | glow::ATOMIC_COUNTER_BUFFER_SIZE => {
            match gl.st.compute.atomic_bindings.get(index as usize) {
                None => Err(glow::INVALID_VALUE),
                Some(b) => Ok(match pname {
                    glow::ATOMIC_COUNTER_BUFFER_BINDING => i64::from(b.buffer),
                    glow::ATOMIC_COUNTER_BUFFER_START => b.offset as i64,
                    _ => b.size as i64,
                }),
            }
        }
        glow::MAX_COMPUTE_WORK_GROUP_COUNT => workgroup(caps.max_compute_work_group_count),
        glow::MAX_COMPUTE_WORK_GROUP_SIZE => {
            let mut v = caps.max_compute_work_group_size;
            for (d, m) in v.iter_mut().zip(crate::shader::MAX_COMPUTE_WORK_GROUP_SIZE) {
                *d = (*d).min(m);
            }
            workgroup(v)
        }
        _ => return None,
    })
}

/// The compute program bound for a dispatch: its shader CSO is what the
/// draw path binds; Err(INVALID_OPERATION) without a current program that
/// has a compute stage (GL 4.6 §19).
fn check_compute_program(gl: &Gl) -> Result<(), u32> {
    let Some(crate::context::ShaderOrProgram::Program(p)) =
        gl.sh.shader_objects.get(&compute_program(gl))
    else {
        return Err(glow::INVALID_OPERATION);
    };
    match p.linked.as_ref() {
        Some(l) if l.prog.local_size().is_some() => Ok(()),
        _ => Err(glow::INVALID_OPERATION),
    }
}

/// The program a dispatch runs: the current one, else the compute stage
/// of the bound program pipeline.
fn compute_program(gl: &Gl) -> u32 {
    match gl.st.program {
        0 => super::pipelines::compute_stage(gl),
        p => p,
    }
}

/// Resolve the program's state and send the dispatch.
fn dispatch(gl: &mut Gl, groups: [u32; 3]) {
    let current = gl.st.program;
    if current == 0 {
        // A pipeline's compute program stands in for this dispatch, its
        // state re-derived.
        gl.st.program = compute_program(gl);
        gl.st.dirty |= crate::context::DIRTY_PROGRAM
            | crate::context::DIRTY_RESOURCES
            | crate::context::DIRTY_UNIFORMS;
    }
    let validated = gl.validate_dispatch();
    gl.st.program = current;
    if let Err(e) = validated {
        gl_err!(gl, e);
    }
    if groups.contains(&0) {
        return;
    }
    gl.conn.pipe.dispatch_compute(&calls::DispatchCompute {
        groups,
        ..Default::default()
    });
}

#[no_mangle]
pub unsafe extern "C" fn glDispatchCompute(x: u32, y: u32, z: u32) {
    with_gl_listed("glDispatchCompute", 0, move |gl| {
        if let Err(e) = check_compute_program(gl) {
            gl_err!(gl, e);
        }
        let max = gl.conn.caps.max_compute_work_group_count;
        if x > max[0] || y > max[1] || z > max[2] {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        dispatch(gl, [x, y, z]);
    })
}

#[no_mangle]
pub unsafe extern "C" fn glDispatchComputeIndirect(indirect: isize) {
    with_gl(|gl| {
        // Not compiled into display lists: an error while compiling one.
        if super::dlist::refuse_in_list(gl) {
            return;
        }
        if indirect < 0 || indirect % 4 != 0 {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        if let Err(e) = check_compute_program(gl) {
            gl_err!(gl, e);
        }
        let name = gl.st.compute.dispatch_indirect_buffer;
        let Some(Some(buf)) = gl.sh.buffers.get(&name) else {
            gl_err!(gl, glow::INVALID_OPERATION);
        };
        // A buffer mapped without GL_MAP_PERSISTENT_BIT may not be read.
        let mapped = buf
            .map
            .as_ref()
            .is_some_and(|m| m.access & glow::MAP_PERSISTENT_BIT == 0);
        let (handle, size) = (buf.handle, buf.size);
        let offset = indirect as u64;
        if mapped || offset.checked_add(12).is_none_or(|end| end > size) {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        let bytes =
            super::buffers::read_buffer(gl, handle, offset, 12, BlockingCause::IndirectDraw);
        let word = |i: usize| {
            bytes
                .get(i * 4..i * 4 + 4)
                .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        };
        let groups = [word(0), word(1), word(2)];
        // GL 4.6 §19: counts beyond the limits are undefined behaviour;
        // they are dropped here instead of reaching the driver.
        let max = gl.conn.caps.max_compute_work_group_count;
        if groups.iter().zip(max).any(|(&g, m)| g > m) {
            super::log_once("dispatch_indirect_limits", || {
                "glDispatchComputeIndirect: counts beyond GL_MAX_COMPUTE_WORK_GROUP_COUNT, dispatch dropped".into()
            });
            return;
        }
        dispatch(gl, groups);
    })
}

/// glMemoryBarrier / glMemoryBarrierByRegion after their checks: client
/// writes to persistent maps are pushed, and the backend orders shader
/// writes before what the bits name.
pub fn memory_barrier(gl: &mut Gl, barriers: u32, by_region: bool) {
    gl.conn.pipe.memory_barrier(&calls::MemoryBarrier {
        barriers,
        by_region: u32::from(by_region),
    });
}

#[no_mangle]
pub unsafe extern "C" fn glMemoryBarrierByRegion(barriers: u32) {
    with_gl(|gl| {
        // GL 4.6 §7.13.2: only the bits for framebuffer-local effects.
        const ALLOWED: u32 = glow::ATOMIC_COUNTER_BARRIER_BIT
            | glow::FRAMEBUFFER_BARRIER_BIT
            | glow::SHADER_IMAGE_ACCESS_BARRIER_BIT
            | glow::SHADER_STORAGE_BARRIER_BIT
            | glow::TEXTURE_FETCH_BARRIER_BIT
            | glow::UNIFORM_BARRIER_BIT;
        if barriers != glow::ALL_BARRIER_BITS && barriers & !ALLOWED != 0 {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        memory_barrier(gl, barriers, true);
    })
}

#[no_mangle]
pub unsafe extern "C" fn glShaderStorageBlockBinding(program: u32, index: u32, binding: u32) {
    with_gl(|gl| {
        let limit = storage_binding_limit(gl);
        let l = match super::shaders::linked(gl, program) {
            Ok(l) => l,
            Err(e) => gl_err!(gl, e),
        };
        if index as usize >= l.storage_bindings.len() || binding as usize >= limit {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        l.storage_bindings[index as usize] = binding;
        gl.st.dirty |= crate::context::DIRTY_RESOURCES;
    })
}

impl Gl<'_> {
    /// Everything a dispatch needs: the program, its uniforms, textures,
    /// uniform buffers, storage buffers and images (the draw path's
    /// program groups; framebuffer, render and vertex state are left dirty
    /// for the next draw).
    pub fn validate_dispatch(&mut self) -> Result<(), u32> {
        use crate::context::{
            DIRTY_PROGRAM, DIRTY_RESOURCES, DIRTY_UNIFORMS, DIRTY_UNIFORM_POINTS,
        };
        let dirty = self.st.dirty;
        if dirty & (DIRTY_PROGRAM | DIRTY_RESOURCES) != 0 {
            self.emit_program()?;
        } else if dirty & DIRTY_UNIFORMS != 0 {
            self.emit_program_globals()?;
        }
        if dirty & DIRTY_UNIFORM_POINTS != 0 {
            self.emit_uniform_points();
        }
        self.st.dirty &= !(DIRTY_PROGRAM | DIRTY_RESOURCES | DIRTY_UNIFORMS | DIRTY_UNIFORM_POINTS);
        if !self.sh.persistent.is_empty() {
            crate::gl::persistent::push_reachable(self);
        }
        Ok(())
    }

    /// Storage buffers and images of program `pname` (linked: checked by
    /// the caller). A program without either, with none sent, sends
    /// nothing.
    pub(crate) fn emit_storage(&mut self, pname: u32) {
        let Some(crate::context::ShaderOrProgram::Program(prog)) =
            self.sh.shader_objects.get(&pname)
        else {
            return;
        };
        let Some(linked) = prog.linked.as_ref() else {
            return;
        };
        // Storage blocks (slot = block index), then atomic counter buffers
        // (their own slots, bound through GL_ATOMIC_COUNTER_BUFFER).
        let slots = linked
            .storage_bindings
            .iter()
            .enumerate()
            .map(|(i, &bp)| (i, self.st.compute.storage_bindings.get(bp as usize)))
            .chain(linked.prog.atomic_buffers.iter().map(|a| {
                (
                    a.slot as usize,
                    self.st.compute.atomic_bindings.get(a.binding as usize),
                )
            }));
        let count = linked.storage_bindings.len() + linked.prog.atomic_buffers.len();
        let mut buffers = calls::SetShaderBuffers {
            count: count.min(MAX_STORAGE_BINDINGS) as u32,
            ..Default::default()
        };
        for (i, b) in slots {
            let Some(b) = b.filter(|_| i < MAX_STORAGE_BINDINGS) else {
                continue;
            };
            if let Some(Some(buf)) = self.sh.buffers.get(&b.buffer) {
                let size = if b.size == 0 {
                    buf.size.saturating_sub(b.offset)
                } else {
                    b.size
                };
                (buffers.buffers[i], buffers.offsets[i], buffers.sizes[i]) =
                    (buf.handle, b.offset, size);
            }
        }
        let mut images = calls::SetShaderImages {
            count: linked.image_units.len().min(MAX_IMAGE_UNITS) as u32,
            ..Default::default()
        };
        for (i, &unit) in linked.image_units.iter().enumerate().take(MAX_IMAGE_UNITS) {
            let Some(u) = self.st.compute.image_units.get(unit as usize) else {
                continue;
            };
            let Some(Some(tex)) = self.sh.textures.get(&u.texture) else {
                continue;
            };
            // GL 4.6 §8.26: an incomplete texture or a level outside its
            // base..maximum range makes the unit invalid (loads return 0,
            // stores and atomics do nothing): sent as unbound.
            if !tex.created || !image_level_valid(tex, u.level) {
                continue;
            }
            images.resources[i] = tex.handle;
            images.levels[i] = u.level;
            images.layers[i] = if u.layered {
                mgpipe::consts::IMAGE_LAYERED
            } else {
                u.layer
            };
            images.access[i] = u.access;
            images.formats[i] = u.format;
        }
        if self.st.compute.sent_buffers.as_ref() != Some(&buffers)
            && !(buffers.count == 0 && self.st.compute.sent_buffers.is_none())
        {
            if self.st.verify_dry {
                self.st.diverged("set_shader_buffers", None);
            } else {
                self.conn.pipe.set_shader_buffers(&buffers);
                self.st.compute.sent_buffers = Some(buffers);
            }
        }
        if self.st.compute.sent_images.as_ref() != Some(&images)
            && !(images.count == 0 && self.st.compute.sent_images.is_none())
        {
            if self.st.verify_dry {
                self.st.diverged("set_shader_images", None);
            } else {
                self.conn.pipe.set_shader_images(&images);
                self.st.compute.sent_images = Some(images);
            }
        }
    }
}

/// Whether `level` of `tex` can back an image unit (GL 4.6 §8.26, as Mesa
/// reads it): `level` lies in [base, q]; the base level needs the base
/// image (every face of a cube) defined, any other level the whole
/// mipmap chain base..=q consistent (§8.17). Buffer textures are not
/// judged here.
pub(crate) fn image_level_valid(tex: &crate::context::Texture, level: u32) -> bool {
    if tex.target == glow::TEXTURE_BUFFER || tex.buffer.is_some() {
        return true;
    }
    let faces: &[Vec<Option<crate::context::LevelInfo>>] = if tex.target == glow::TEXTURE_CUBE_MAP {
        &tex.levels[..tex.levels.len().min(6)]
    } else {
        &tex.levels[..tex.levels.len().min(1)]
    };
    let at = |face: &Vec<Option<crate::context::LevelInfo>>, l: u32| {
        face.get(l as usize).copied().flatten()
    };
    let (base, max) = if tex.immutable_levels > 0 {
        let last = tex.immutable_levels - 1;
        let base = tex.base_level.min(last);
        (base, tex.max_level.clamp(base, last))
    } else {
        (tex.base_level, tex.max_level)
    };
    let Some(b) = faces.first().and_then(|f| at(f, base)) else {
        return false;
    };
    if faces.iter().any(|f| at(f, base) != Some(b)) {
        return false;
    }
    // q = min(base + floor(log2(largest dimension)), max level).
    let largest = if tex.target == glow::TEXTURE_3D {
        b.width.max(b.height).max(b.depth)
    } else if matches!(tex.target, glow::TEXTURE_1D | glow::TEXTURE_1D_ARRAY) {
        b.width
    } else {
        b.width.max(b.height)
    };
    let q = (base + largest.max(1).ilog2()).min(max);
    // Rectangle and multisample textures have one level whatever the filter.
    let single_level = tex.samples > 0
        || matches!(
            tex.target,
            glow::TEXTURE_RECTANGLE
                | glow::TEXTURE_2D_MULTISAMPLE
                | glow::TEXTURE_2D_MULTISAMPLE_ARRAY
        );
    let q = if single_level { base } else { q };
    if level < base || level > q {
        return false;
    }
    if level == base || tex.immutable_levels > 0 {
        return true;
    }
    // A level past the base needs the whole chain base..=q consistent
    // (what Mesa calls mipmap-complete), whatever the filter.
    let arrays = matches!(
        tex.target,
        glow::TEXTURE_1D_ARRAY | glow::TEXTURE_2D_ARRAY | glow::TEXTURE_CUBE_MAP_ARRAY
    );
    (base + 1..=q).all(|l| {
        let k = l - base;
        let want = |d: u32| (d >> k).max(1);
        faces.iter().all(|f| {
            at(f, l).is_some_and(|i| {
                i.internal_format == b.internal_format
                    && i.width == want(b.width)
                    && (i.height == want(b.height)
                        || (tex.target == glow::TEXTURE_1D_ARRAY && i.height == b.height))
                    && (i.depth == want(b.depth) || (arrays && i.depth == b.depth))
            })
        })
    })
}

/// `GL_COMPUTE_WORK_GROUP_SIZE` of a linked program: Err(INVALID_OPERATION)
/// without a compute stage (GL 4.6 §7.13).
pub fn work_group_size(prog: &crate::shader::LinkedProgram) -> Result<[u32; 3], u32> {
    prog.local_size().ok_or(glow::INVALID_OPERATION)
}

#[cfg(test)]
mod image_unit_tests {
    use super::image_level_valid;
    use crate::context::{LevelInfo, Texture};

    fn level(w: u32, h: u32) -> Option<LevelInfo> {
        Some(LevelInfo {
            width: w,
            height: h,
            depth: 1,
            internal_format: glow::R32UI,
            requested: glow::R32UI,
        })
    }

    #[test]
    fn image_units_need_a_complete_level_in_range() {
        let mut t = Texture::new(mgpipe::Handle::NULL);
        t.target = glow::TEXTURE_2D;
        t.levels[0] = vec![level(4, 4)];
        // The base level alone serves, whatever the filter.
        assert!(image_level_valid(&t, 0));
        assert!(!image_level_valid(&t, 1), "no level 1");
        // Level 1 of the wrong size: the chain is not mipmap-complete.
        t.levels[0].push(level(4, 4));
        assert!(image_level_valid(&t, 0));
        assert!(!image_level_valid(&t, 1));
        // A consistent chain makes every level usable.
        t.levels[0] = vec![level(4, 4), level(2, 2), level(1, 1)];
        assert!(image_level_valid(&t, 1));
        assert!(image_level_valid(&t, 2));
        // Below the base level: invalid.
        t.base_level = 1;
        assert!(!image_level_valid(&t, 0));
        assert!(image_level_valid(&t, 1));
        // No image at the base level: invalid.
        t.base_level = 5;
        assert!(!image_level_valid(&t, 5));
    }
}
