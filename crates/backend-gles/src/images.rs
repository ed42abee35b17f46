//! Image units over GLES's rules.
//!
//! GLES 3.1 §8.22: glBindImageTexture of a texture that is not immutable
//! is INVALID_OPERATION (Mesa enforces it), where desktop GL binds any
//! texture, typically one made with glTexImage* (`texture_image`). A
//! mutable texture named by an image slot is therefore *promoted* before
//! the draw or dispatch: replaced, under the same resource handle, by an
//! immutable texture (glTexStorage*) of the same target, internal format,
//! size and the levels defined consecutively from 0, each level copied with
//! glCopyImageSubData; the old GL name is deleted and every cache that held
//! it is invalidated (framebuffer attachments, read surfaces, texture and
//! image units: `texture_replaced`).
//!
//! The client still sees a mutable texture: a later `texture_image` that
//! fits the storage (same format and level size) becomes glTexSubImage*;
//! anything else *demotes* it back to a mutable texture (a new name, the
//! surviving levels copied, the same invalidation), as do a
//! `texture_storage` (a fresh name) and a `generate_mipmap` that needs
//! levels past the storage.
//!
//! GLES also takes fewer image formats than desktop GL
//! ([`image_format_supported`]): a slot with another format is left unbound
//! and the format warned about once. Where the driver has
//! GL_NV_image_formats the rest of desktop GL's formats are bound too (the
//! 16-bit normalized ones with GL_EXT_texture_norm16), and shaders
//! declaring them enable the extension (`enable_image_formats`).

use glow::HasContext;
use mgpipe::consts::IMAGE_LAYERED;
use mgpipe::Handle;
use tracing::{debug, warn};

use crate::emulation;
use crate::pipe::calls;
use crate::{GlesBackend, ResKind, TexParams, TexStorage};

/// A texture the backend made immutable for an image unit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Promoted {
    /// Levels of the immutable storage (from 0).
    pub levels: u32,
    /// GLES internal format.
    pub internal: u32,
    /// Level-0 size as glTexStorage* took it (layers, or layer-faces of a
    /// cube array, in depth; depth 1 for 2D and cube maps).
    pub size: [u32; 3],
}

/// Image formats GLES 3.1 accepts in glBindImageTexture (table 8.27).
/// With `ImageFormats::nv` (GL_NV_image_formats), desktop GL's other
/// formats too.
pub(crate) fn image_format_supported(format: u32, ext: ImageFormats) -> bool {
    core_image_format(format)
        || (ext.nv && nv_image_format(format) && (ext.norm16 || !norm16_format(format)))
}

/// The image-format extensions the driver has.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ImageFormats {
    /// GL_NV_image_formats.
    pub nv: bool,
    /// GL_EXT_texture_norm16 (NV_image_formats' 16-bit normalized formats
    /// need it).
    pub norm16: bool,
}

/// The formats GL_NV_image_formats adds to ES 3.1's.
fn nv_image_format(format: u32) -> bool {
    matches!(
        format,
        glow::RG32F
            | glow::RG16F
            | glow::R11F_G11F_B10F
            | glow::R16F
            | glow::RGBA16
            | glow::RGB10_A2
            | glow::RG16
            | glow::RG8
            | glow::R16
            | glow::R8
            | glow::RGBA16_SNORM
            | glow::RG16_SNORM
            | glow::RG8_SNORM
            | glow::R16_SNORM
            | glow::R8_SNORM
            | glow::RGB10_A2UI
            | glow::RG32UI
            | glow::RG16UI
            | glow::RG8UI
            | glow::R16UI
            | glow::R8UI
            | glow::RG32I
            | glow::RG16I
            | glow::RG8I
            | glow::R16I
            | glow::R8I
    )
}

fn norm16_format(format: u32) -> bool {
    matches!(
        format,
        glow::RGBA16
            | glow::RG16
            | glow::R16
            | glow::RGBA16_SNORM
            | glow::RG16_SNORM
            | glow::R16_SNORM
    )
}

/// The ESSL layout qualifiers of GL_NV_image_formats' formats.
const NV_FORMAT_QUALIFIERS: [&str; 26] = [
    "rg32f",
    "rg16f",
    "r11f_g11f_b10f",
    "r16f",
    "rgba16",
    "rgb10_a2",
    "rg16",
    "rg8",
    "r16",
    "r8",
    "rgba16_snorm",
    "rg16_snorm",
    "rg8_snorm",
    "r16_snorm",
    "r8_snorm",
    "rgb10_a2ui",
    "rg32ui",
    "rg16ui",
    "rg8ui",
    "r16ui",
    "r8ui",
    "rg32i",
    "rg16i",
    "rg8i",
    "r16i",
    "r8i",
];

/// ESSL source declaring an image of a format only GL_NV_image_formats
/// has gets `#extension GL_NV_image_formats : enable` after its
/// `#version` (a driver without it warns, and the compile fails as it
/// would have).
pub fn enable_image_formats(src: String) -> String {
    let src = restore_marked_formats(src);
    let uses = src.lines().any(|l| {
        l.contains("uniform") && l.contains("image") && {
            l.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .any(|w| NV_FORMAT_QUALIFIERS.contains(&w))
        }
    });
    if !uses || src.contains("GL_NV_image_formats") {
        return src;
    }
    match src.find('\n') {
        Some(end) if src.starts_with("#version") => format!(
            "{}\n#extension GL_NV_image_formats : enable{}",
            &src[..end],
            &src[end..]
        ),
        _ => src,
    }
}

/// The declarations `sampling::mark_desktop_only_formats` gave a
/// placeholder format get theirs back: a line declaring a variable whose
/// name ends in the mark and a qualifier has that qualifier in place of
/// the placeholder.
fn restore_marked_formats(src: String) -> String {
    let mark = crate::sampling::FORMAT_NAME_MARK;
    if !src.contains(mark) {
        return src;
    }
    let mut out = String::with_capacity(src.len() + 64);
    for line in src.split_inclusive('\n') {
        let fixed = (|| {
            if !line.trim_start().starts_with("layout(") {
                return None;
            }
            let at = line.find(mark)? + mark.len();
            let q: String = line[at..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !NV_FORMAT_QUALIFIERS.contains(&q.as_str()) {
                return None;
            }
            let close = line.find(')')?;
            let head = &line[..close];
            let (from, word) = ["rgba32f", "rgba32i", "rgba32ui"]
                .iter()
                .filter_map(|w| {
                    head.match_indices(w)
                        .find(|(i, _)| {
                            let after = head[i + w.len()..].chars().next();
                            !after.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
                        })
                        .map(|(i, _)| (i, *w))
                })
                .next()?;
            Some(format!(
                "{}{}{}",
                &line[..from],
                q,
                &line[from + word.len()..]
            ))
        })();
        out.push_str(fixed.as_deref().unwrap_or(line));
    }
    out
}

fn core_image_format(format: u32) -> bool {
    matches!(
        format,
        glow::RGBA32F
            | glow::RGBA16F
            | glow::R32F
            | glow::RGBA32UI
            | glow::RGBA16UI
            | glow::RGBA8UI
            | glow::R32UI
            | glow::RGBA32I
            | glow::RGBA16I
            | glow::RGBA8I
            | glow::R32I
            | glow::RGBA8
            | glow::RGBA8_SNORM
    )
}

/// Texture targets an image unit can take on GLES.
fn image_target(target: u32) -> bool {
    matches!(
        target,
        glow::TEXTURE_2D
            | glow::TEXTURE_3D
            | glow::TEXTURE_2D_ARRAY
            | glow::TEXTURE_CUBE_MAP
            | glow::TEXTURE_CUBE_MAP_ARRAY
    )
}

/// Size of `level` of a storage whose level 0 is `base` (only 3D textures
/// shrink in depth).
pub(crate) fn level_size(target: u32, base: [u32; 3], level: u32) -> [u32; 3] {
    let shrink = |v: u32| v.checked_shr(level).unwrap_or(0).max(1);
    [
        shrink(base[0]),
        shrink(base[1]),
        if target == glow::TEXTURE_3D {
            shrink(base[2])
        } else {
            base[2].max(1)
        },
    ]
}

/// Levels of a full mipmap chain from `base`.
fn full_chain(target: u32, base: [u32; 3]) -> u32 {
    let mut m = base[0].max(base[1]);
    if target == glow::TEXTURE_3D {
        m = m.max(base[2]);
    }
    32 - m.max(1).leading_zeros()
}

/// Images glCopyImageSubData copies per level (`z` range): the six faces
/// of a cube map, else the depth.
fn copy_depth(target: u32, size: [u32; 3]) -> u32 {
    if target == glow::TEXTURE_CUBE_MAP {
        6
    } else {
        size[2]
    }
}

/// The image (level, cube face) a `texture_image` redefines: it is not
/// copied when the texture is demoted.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Redefined {
    pub level: u32,
    /// Cube face 0..6, None: every image of the level.
    pub face: Option<u32>,
}

/// glGetError until clear, so an error after the next calls is theirs.
///
/// # Safety
/// A context is current.
unsafe fn drain_errors(gl: &glow::Context) {
    for _ in 0..8 {
        // SAFETY: plain query on the current context (the caller's contract).
        if unsafe { gl.get_error() } == glow::NO_ERROR {
            break;
        }
    }
}

impl GlesBackend {
    /// Before a draw or dispatch: every texture the current context's image
    /// slots name is immutable (promoted where it was not). Slots that
    /// cannot be bound are left to `Cx::apply_images`, which unbinds them.
    pub(crate) fn prepare_images(&mut self, call: &'static str) {
        let Some(ctx) = self.current.and_then(|h| self.ctxs.get(h)) else {
            return;
        };
        let n = (ctx.images.count as usize).min(self.features.max_image_units);
        if n == 0 {
            return;
        }
        let images = ctx.images;
        for k in 0..n {
            let res = images.resources[k];
            if res.is_null() {
                continue;
            }
            let format = images.formats[k];
            if !image_format_supported(format, self.features.image_formats) {
                // Bounded: garbage formats from records must not grow it.
                if !self.warned_image_formats.contains(&format)
                    && self.warned_image_formats.len() < 64
                {
                    self.warned_image_formats.push(format);
                    warn!(
                        call,
                        slot = k,
                        format = format_args!("0x{format:04X}"),
                        "image format not in GLES (table 8.27): the unit is left unbound (logged once per format)"
                    );
                }
                continue;
            }
            // Buffer textures are bound as they are (GLES 3.2 §8.22 takes
            // a buffer texture or an immutable one).
            let mutable = matches!(
                self.scr.resources.get(res).map(|r| &r.kind),
                Some(ResKind::Texture {
                    storage: TexStorage::Mutable,
                    target,
                    ..
                }) if *target != glow::TEXTURE_BUFFER
            );
            if mutable {
                self.promote_texture(res, call);
            }
        }
    }

    /// The storage of `res` when the backend promoted it.
    pub(crate) fn promoted(&self, res: Handle) -> Option<Promoted> {
        match self.scr.resources.get(res).map(|r| &r.kind) {
            Some(ResKind::Texture {
                storage: TexStorage::Promoted(p),
                ..
            }) => Some(*p),
            _ => None,
        }
    }

    /// Replace the mutable texture `res` by an immutable copy (the module
    /// doc). False (logged) when it cannot be: the texture is left as it was.
    pub(crate) fn promote_texture(&mut self, res: Handle, call: &'static str) -> bool {
        let Some(query) = self.features.fns.get_tex_level_parameter_iv else {
            warn!(
                ?res,
                call, "image unit: no glGetTexLevelParameteriv (GLES 3.1), unit left unbound"
            );
            return false;
        };
        let Some(ResKind::Texture {
            tex: old,
            target,
            params,
            ..
        }) = self.scr.resources.get(res).map(|r| &r.kind)
        else {
            return false;
        };
        let (old, target, params) = (*old, *target, *params);
        self.prepare();
        if !image_target(target) {
            warn!(
                ?res,
                call,
                target = format_args!("0x{target:04X}"),
                "image unit: texture target cannot be an image on GLES, unit left unbound"
            );
            return false;
        }
        let gl = &self.gl;
        // SAFETY: the texture and the one made here are objects of this
        // share group, bound directly (every shadow forgets its bindings
        // below); the level queries write one integer each; the copies stay
        // inside the levels the queries reported.
        let made = unsafe {
            drain_errors(gl);
            gl.bind_texture(target, Some(old));
            let q = |t: u32, level: u32, pname: u32| {
                let mut v = 0i32;
                query(t, level as i32, pname, &mut v);
                v.max(0) as u32
            };
            let faces: &[u32] = if target == glow::TEXTURE_CUBE_MAP {
                &[
                    glow::TEXTURE_CUBE_MAP_POSITIVE_X,
                    glow::TEXTURE_CUBE_MAP_NEGATIVE_X,
                    glow::TEXTURE_CUBE_MAP_POSITIVE_Y,
                    glow::TEXTURE_CUBE_MAP_NEGATIVE_Y,
                    glow::TEXTURE_CUBE_MAP_POSITIVE_Z,
                    glow::TEXTURE_CUBE_MAP_NEGATIVE_Z,
                ]
            } else {
                std::slice::from_ref(&target)
            };
            let image = |level: u32| {
                let mut first = None;
                for &t in faces {
                    let size = [
                        q(t, level, glow::TEXTURE_WIDTH),
                        q(t, level, glow::TEXTURE_HEIGHT),
                        q(t, level, glow::TEXTURE_DEPTH),
                    ];
                    let internal = q(t, level, glow::TEXTURE_INTERNAL_FORMAT);
                    if size[0] == 0 {
                        return None;
                    }
                    match first {
                        None => first = Some((size, internal)),
                        Some(f) if f != (size, internal) => return None,
                        Some(_) => {}
                    }
                }
                first
            };
            let Some((base, internal)) = image(0) else {
                warn!(?res, call, "image unit: the texture has no level 0 (or cube faces differ), unit left unbound");
                gl.bind_texture(target, None);
                self.forget_objects();
                return false;
            };
            let mut levels = 1;
            while levels < full_chain(target, base) {
                match image(levels) {
                    Some(img) if img == (level_size(target, base, levels), internal) => levels += 1,
                    Some(_) => {
                        warn!(
                            ?res,
                            level = levels,
                            "image unit: a level does not continue the mipmap chain; it and the levels above are dropped"
                        );
                        break;
                    }
                    None => break,
                }
            }
            self.copy_into_new(
                (old, params),
                target,
                Promoted {
                    levels,
                    internal,
                    size: base,
                },
                true,
                None,
            )
        };
        let Some((new, p)) = made else {
            warn!(
                ?res,
                call,
                "image unit: promoting the texture to immutable storage failed, unit left unbound"
            );
            self.forget_objects();
            return false;
        };
        debug!(
            ?res,
            levels = p.levels,
            internal = format_args!("0x{:04X}", p.internal),
            "texture made immutable for an image unit"
        );
        self.swap_texture(res, new, TexStorage::Promoted(p), Some(p.internal));
        true
    }

    /// A new texture of `target` holding the images of `old` (levels `0 ..
    /// p.levels` of `p`'s format and size): immutable storage when
    /// `immutable`, else glTexImage* levels; `skip` is not copied. The old
    /// texture is deleted when the copy worked; None (the new one deleted,
    /// the old kept with its level range `old_params` restored) when it did
    /// not.
    ///
    /// # Safety
    /// A context is current; `old` is a live texture of `target` whose
    /// levels `0 .. p.levels` have `p`'s sizes and format.
    unsafe fn copy_into_new(
        &self,
        (old, old_params): (glow::Texture, TexParams),
        target: u32,
        p: Promoted,
        immutable: bool,
        skip: Option<Redefined>,
    ) -> Option<(glow::Texture, Promoted)> {
        let gl = &self.gl;
        let [w, h, d] = p.size.map(|v| v as i32);
        // SAFETY: the caller's contract; every object made here is deleted
        // on the failure paths.
        unsafe {
            let new = gl.create_texture().ok()?;
            gl.bind_texture(target, Some(new));
            let last = (p.levels - 1) as i32;
            if immutable {
                if emulation::is_3d_target(target) {
                    gl.tex_storage_3d(target, p.levels as i32, p.internal, w, h, d);
                } else {
                    gl.tex_storage_2d(target, p.levels as i32, p.internal, w, h);
                }
            } else {
                let sf = emulation::storage_format(p.internal, self.features.norm16);
                for level in 0..p.levels {
                    let [lw, lh, ld] = level_size(target, p.size, level).map(|v| v as i32);
                    let px = glow::PixelUnpackData::Slice(None);
                    if emulation::is_3d_target(target) {
                        gl.tex_image_3d(
                            target,
                            level as i32,
                            p.internal as i32,
                            lw,
                            lh,
                            ld,
                            0,
                            sf.format,
                            sf.ty,
                            px,
                        );
                    } else if target == glow::TEXTURE_CUBE_MAP {
                        for face in 0..6 {
                            gl.tex_image_2d(
                                glow::TEXTURE_CUBE_MAP_POSITIVE_X + face,
                                level as i32,
                                p.internal as i32,
                                lw,
                                lh,
                                0,
                                sf.format,
                                sf.ty,
                                glow::PixelUnpackData::Slice(None),
                            );
                        }
                    } else {
                        gl.tex_image_2d(
                            target,
                            level as i32,
                            p.internal as i32,
                            lw,
                            lh,
                            0,
                            sf.format,
                            sf.ty,
                            px,
                        );
                    }
                }
                // glCopyImageSubData wants both textures complete under
                // their own (mipmap) filter: the chain ends at the last level.
                gl.tex_parameter_i32(target, glow::TEXTURE_MAX_LEVEL, last);
            }
            let e = gl.get_error();
            if e != glow::NO_ERROR {
                warn!("new texture storage failed: GL error 0x{e:04X}");
                gl.delete_texture(new);
                return None;
            }
            gl.bind_texture(target, Some(old));
            gl.tex_parameter_i32(target, glow::TEXTURE_BASE_LEVEL, 0);
            gl.tex_parameter_i32(target, glow::TEXTURE_MAX_LEVEL, last);
            for level in 0..p.levels {
                let [lw, lh, _] = level_size(target, p.size, level).map(|v| v as i32);
                let depth = copy_depth(target, level_size(target, p.size, level));
                let ranges: Vec<(u32, u32)> = match skip {
                    Some(s) if s.level == level => match s.face {
                        Some(f) if target == glow::TEXTURE_CUBE_MAP && f < 6 => {
                            vec![(0, f), (f + 1, 6)]
                        }
                        _ => Vec::new(),
                    },
                    _ => vec![(0, depth)],
                };
                for (z0, z1) in ranges.into_iter().filter(|(a, b)| b > a) {
                    gl.copy_image_sub_data(
                        old,
                        target,
                        level as i32,
                        0,
                        0,
                        z0 as i32,
                        new,
                        target,
                        level as i32,
                        0,
                        0,
                        z0 as i32,
                        lw,
                        lh,
                        (z1 - z0) as i32,
                    );
                }
            }
            let e = gl.get_error();
            if e != glow::NO_ERROR {
                warn!("copying the texture's levels failed: GL error 0x{e:04X}");
                gl.delete_texture(new);
                gl.bind_texture(target, Some(old));
                gl.tex_parameter_i32(
                    target,
                    glow::TEXTURE_BASE_LEVEL,
                    old_params.base_level.min(i32::MAX as u32) as i32,
                );
                gl.tex_parameter_i32(
                    target,
                    glow::TEXTURE_MAX_LEVEL,
                    old_params.max_level.min(i32::MAX as u32) as i32,
                );
                return None;
            }
            if !immutable {
                // Back to the default the resource's TexParams records.
                gl.bind_texture(target, Some(new));
                gl.tex_parameter_i32(
                    target,
                    glow::TEXTURE_MAX_LEVEL,
                    TexParams::default().max_level as i32,
                );
            }
            gl.bind_texture(target, None);
            gl.delete_texture(old);
            Some((new, p))
        }
    }

    /// Put `new` in place of `res`'s texture (already deleted) and
    /// invalidate every cache that held the old name.
    fn swap_texture(&mut self, res: Handle, new: glow::Texture, st: TexStorage, fmt: Option<u32>) {
        if let Some(ResKind::Texture {
            tex,
            storage,
            params,
            internal,
            ..
        }) = self.scr.resources.get_mut(res).map(|r| &mut r.kind)
        {
            *tex = new;
            *storage = st;
            // A new texture object has the default view parameters: the next
            // draw sets the view's again.
            *params = TexParams::default();
            if let Some(f) = fmt {
                *internal = f;
            }
        }
        self.texture_replaced(res);
    }

    /// `res` has a new GL texture: framebuffers and read surfaces that
    /// attach it are attached again at their next bind (in every context),
    /// and every shadow forgets its texture and image units.
    pub(crate) fn texture_replaced(&mut self, res: Handle) {
        let names_draw = |d: &calls::SetFramebufferState| {
            d.color.contains(&res) || d.depth == res || d.stencil == res
        };
        let names_read =
            |d: &calls::SetReadSurface| d.color == res || d.depth == res || d.stencil == res;
        for c in self.ctxs.values_mut() {
            for e in c.fbos.values_mut() {
                if e.desc.as_ref().is_some_and(names_draw) {
                    e.stale = true;
                }
            }
            if c.read_desc.as_ref().is_some_and(names_read) {
                c.read_stale = true;
            }
        }
        self.forget_objects();
    }

    /// `texture_image` on a promoted texture: true when it fits the
    /// storage and was applied as glTexSubImage* (or had no data); false
    /// when the texture was demoted (the call then defines it as usual).
    pub(crate) fn texture_image_on_promoted(
        &mut self,
        p: &calls::TextureImage,
        blob: &[u8],
        pr: Promoted,
    ) -> bool {
        let target = match self.scr.resources.get(p.res).map(|r| &r.kind) {
            Some(ResKind::Texture { target, .. }) => *target,
            _ => return false,
        };
        let Some((_, ext)) =
            emulation::image_target_and_extent(p.target, p.width, p.height, p.depth)
        else {
            return false;
        };
        let sf = emulation::storage_format(p.internal_format, self.features.norm16);
        let want = level_size(target, pr.size, p.level.min(31));
        let fits = sf.internal == pr.internal
            && p.level < pr.levels
            && ext[0] == want[0]
            && ext[1] == want[1]
            && (!emulation::is_3d_target(target) || ext[2] == want[2]);
        if fits {
            if blob.is_empty() {
                // New contents undefined: the old ones do.
                return true;
            }
            mgpipe::Context::texture_subimage(
                self,
                &calls::TextureSubimage {
                    res: p.res,
                    target: p.target,
                    level: p.level,
                    x: 0,
                    y: 0,
                    z: 0,
                    width: p.width,
                    height: p.height,
                    depth: p.depth,
                    format: p.format,
                    r#type: p.r#type,
                    ..Default::default()
                },
                blob,
            );
            return true;
        }
        let face = (glow::TEXTURE_CUBE_MAP_POSITIVE_X..=glow::TEXTURE_CUBE_MAP_NEGATIVE_Z)
            .contains(&p.target)
            .then(|| p.target - glow::TEXTURE_CUBE_MAP_POSITIVE_X);
        self.demote_texture(
            p.res,
            Some(Redefined {
                level: p.level,
                face,
            }),
        );
        false
    }

    /// Before `generate_mipmap`: a promoted texture whose storage stops
    /// short of the full chain goes back to mutable levels (desktop GL
    /// makes every level down to 1x1).
    pub(crate) fn before_generate_mipmap(&mut self, res: Handle) {
        let Some(pr) = self.promoted(res) else {
            return;
        };
        let target = match self.scr.resources.get(res).map(|r| &r.kind) {
            Some(ResKind::Texture { target, .. }) => *target,
            _ => return,
        };
        if pr.levels < full_chain(target, pr.size) {
            self.demote_texture(res, None);
        }
    }

    /// Before `texture_storage`: a promoted texture gets a fresh GL name
    /// (glTexStorage* refuses an immutable texture; desktop GL takes the
    /// client's mutable one).
    pub(crate) fn before_texture_storage(&mut self, res: Handle) {
        if self.promoted(res).is_none() {
            return;
        }
        self.prepare();
        // SAFETY: a new texture object on the current context.
        let Ok(new) = (unsafe { self.gl.create_texture() }) else {
            warn!(?res, "texture_storage: glGenTextures failed");
            return;
        };
        if let Some(ResKind::Texture { tex, .. }) = self.scr.resources.get(res).map(|r| &r.kind) {
            // SAFETY: the texture this resource held, replaced below.
            unsafe { self.gl.delete_texture(*tex) };
        }
        self.swap_texture(res, new, TexStorage::Mutable, None);
    }

    /// A promoted texture back to mutable glTexImage* levels (a new name),
    /// every image but `skip` copied.
    pub(crate) fn demote_texture(&mut self, res: Handle, skip: Option<Redefined>) {
        let Some(pr) = self.promoted(res) else {
            return;
        };
        let (old, target, params) = match self.scr.resources.get(res).map(|r| &r.kind) {
            Some(ResKind::Texture {
                tex,
                target,
                params,
                ..
            }) => (*tex, *target, *params),
            _ => return,
        };
        self.prepare();
        // SAFETY: `old` is the promoted texture: immutable storage of `pr`.
        let made = unsafe {
            drain_errors(&self.gl);
            self.copy_into_new((old, params), target, pr, false, skip)
        };
        match made {
            Some((new, _)) => {
                debug!(?res, "promoted texture redefined: mutable again");
                self.swap_texture(res, new, TexStorage::Mutable, None);
            }
            None => {
                // Contents lost, but the client's redefinition must land on
                // a mutable texture.
                warn!(
                    ?res,
                    "redefining a promoted texture: its other levels could not be kept"
                );
                self.before_texture_storage(res);
            }
        }
    }
}

/// glBindImageTexture arguments for image slot `k` of `images` naming a
/// texture (`tex`: None when it cannot be bound).
pub(crate) fn image_unit(
    images: &calls::SetShaderImages,
    k: usize,
    tex: Option<glow::Texture>,
    ext: ImageFormats,
) -> Option<crate::state::ImageUnit> {
    let format = images.formats[k];
    let access = images.access[k];
    let layered = images.layers[k] == IMAGE_LAYERED;
    let ok = tex.is_some()
        && image_format_supported(format, ext)
        && matches!(
            access,
            glow::READ_ONLY | glow::WRITE_ONLY | glow::READ_WRITE
        )
        && images.levels[k] <= i32::MAX as u32
        && (layered || images.layers[k] <= i32::MAX as u32);
    ok.then(|| crate::state::ImageUnit {
        texture: tex,
        level: images.levels[k] as i32,
        layered,
        layer: if layered { 0 } else { images.layers[k] as i32 },
        access,
        format,
    })
}

/// An unbound image unit (a valid format and access, so the call itself
/// raises no error).
pub(crate) const UNBOUND_IMAGE: crate::state::ImageUnit = crate::state::ImageUnit {
    texture: None,
    level: 0,
    layered: false,
    layer: 0,
    access: glow::READ_ONLY,
    format: glow::RGBA8,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn level_sizes_and_chains() {
        assert_eq!(level_size(glow::TEXTURE_2D, [8, 4, 1], 1), [4, 2, 1]);
        assert_eq!(level_size(glow::TEXTURE_2D, [8, 4, 1], 3), [1, 1, 1]);
        assert_eq!(level_size(glow::TEXTURE_2D_ARRAY, [8, 8, 5], 2), [2, 2, 5]);
        assert_eq!(level_size(glow::TEXTURE_3D, [8, 8, 4], 2), [2, 2, 1]);
        assert_eq!(level_size(glow::TEXTURE_2D, [8, 8, 1], 40), [1, 1, 1]);
        assert_eq!(full_chain(glow::TEXTURE_2D, [8, 4, 1]), 4);
        assert_eq!(full_chain(glow::TEXTURE_2D, [1, 1, 1]), 1);
        assert_eq!(full_chain(glow::TEXTURE_2D_ARRAY, [2, 2, 64]), 2);
        assert_eq!(full_chain(glow::TEXTURE_3D, [2, 2, 64]), 7);
        assert_eq!(copy_depth(glow::TEXTURE_CUBE_MAP, [4, 4, 1]), 6);
    }

    #[test]
    fn nv_image_formats_are_enabled_where_declared() {
        let src = "#version 320 es\nprecision highp float;\nlayout(binding = 0, rg16f) uniform writeonly highp image2D img;\nvoid main() {}\n";
        let out = enable_image_formats(src.to_owned());
        assert!(
            out.starts_with("#version 320 es\n#extension GL_NV_image_formats : enable\nprecision"),
            "{out}"
        );
        // Core formats (and names merely containing a qualifier): unchanged.
        let core = "#version 320 es\nlayout(binding = 0, rgba8) uniform writeonly highp image2D rg16f_img;\n";
        assert_eq!(enable_image_formats(core.to_owned()), core);
    }

    #[test]
    fn image_formats_and_units() {
        let core = ImageFormats::default();
        let nv = ImageFormats {
            nv: true,
            norm16: false,
        };
        let nv16 = ImageFormats {
            nv: true,
            norm16: true,
        };
        assert!(image_format_supported(glow::RGBA8, core));
        assert!(image_format_supported(glow::R32UI, core));
        assert!(!image_format_supported(glow::RGBA16, core));
        assert!(!image_format_supported(glow::RG32F, core));
        assert!(image_format_supported(glow::RG32F, nv));
        assert!(image_format_supported(glow::R8I, nv));
        assert!(
            !image_format_supported(glow::RGBA16, nv),
            "norm16 needs EXT_texture_norm16"
        );
        assert!(image_format_supported(glow::RGBA16, nv16));
        assert!(!image_format_supported(glow::RGB8, nv16));
        let mut im: calls::SetShaderImages = bytemuck::Zeroable::zeroed();
        im.count = 1;
        im.formats[0] = glow::RGBA8;
        im.access[0] = glow::WRITE_ONLY;
        im.layers[0] = IMAGE_LAYERED;
        let tex = Some(glow::NativeTexture(std::num::NonZeroU32::new(7).unwrap()));
        let u = image_unit(&im, 0, tex, core).expect("bindable");
        assert!(u.layered && u.layer == 0 && u.access == glow::WRITE_ONLY);
        assert!(image_unit(&im, 0, None, core).is_none());
        im.access[0] = 0x1234;
        assert!(
            image_unit(&im, 0, tex, core).is_none(),
            "bad access refused"
        );
        im.access[0] = glow::READ_WRITE;
        im.formats[0] = glow::RGB8;
        assert!(
            image_unit(&im, 0, tex, core).is_none(),
            "format GLES lacks refused"
        );
    }
}
