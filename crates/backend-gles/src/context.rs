//! `mgpipe::Context`: CSOs, `set_*` state, objects/transfers and verbs,
//! applied to the client context made current by `make_current`.

use glow::HasContext;
use mgpipe::consts::{
    CLEAR_COLOR_ALL, CLEAR_COLOR_ONE, CLEAR_DEPTH, CLEAR_FLOAT, CLEAR_INT, CLEAR_STENCIL,
    CLEAR_UINT, NO_ATTACHMENT, SURFACE_NONE, SURFACE_RENDERBUFFER, SURFACE_TEXTURE, VE_INTEGER,
    VE_NORMALIZED,
};
use mgpipe::Handle;
use tracing::{debug, info, warn};

use crate::emulation::{self, FormatClass};
use crate::pipe::{calls, Context};
use crate::screen::MAX_BUFFER;
use crate::shader;
use crate::state::{AttribState, Shadow};
use crate::vao_cache::{same_vertex_buffers, BoundVao, VaoEntry, MAX_CACHED_VAOS};
use crate::{
    Ctx, FboEntry, Features, GlesBackend, ResKind, ScreenTables, ShaderEntry, TexParams, TexStorage,
};

/// Barrier bits GLES 3.1 defines for glMemoryBarrier (desktop GL adds
/// CLIENT_MAPPED_BUFFER 0x4000 and QUERY_BUFFER 0x8000).
const GLES_BARRIER_BITS: u32 = 0x3FEF;
/// The subset glMemoryBarrierByRegion takes (ATOMIC_COUNTER, FRAMEBUFFER,
/// SHADER_IMAGE_ACCESS, SHADER_STORAGE, TEXTURE_FETCH, UNIFORM).
const GLES_BY_REGION_BITS: u32 = 0x342C;

/// The desktop barrier bits `barriers` as GLES takes them: bits it does not
/// define masked off; GL_ALL_BARRIER_BITS passed as is.
pub(crate) fn gles_barrier_bits(barriers: u32, by_region: bool) -> u32 {
    if barriers == u32::MAX {
        return barriers;
    }
    barriers
        & if by_region {
            GLES_BY_REGION_BITS
        } else {
            GLES_BARRIER_BITS
        }
}

/// Replies larger than this are refused (a corrupt read_pixels must not
/// allocate without bound).
pub(crate) const MAX_REPLY: usize = 1 << 30;

/// The parts of the backend one context call works with (disjoint borrows).
struct Cx<'a> {
    gl: &'a glow::Context,
    scr: &'a mut ScreenTables,
    f: &'a Features,
    ctx: &'a mut Ctx,
}

/// The parts an object call (upload, copy) works with: any context will do.
struct Ox<'a> {
    gl: &'a glow::Context,
    scr: &'a mut ScreenTables,
    f: &'a Features,
    shadow: &'a mut Shadow,
}

fn default_render_state() -> calls::CreateRenderState {
    let mut rs: calls::CreateRenderState = bytemuck::Zeroable::zeroed();
    rs.color_write_mask = u32::MAX;
    rs.depth_write = 1;
    rs.stencil_value_mask = [u32::MAX; 2];
    rs.stencil_write_mask = [u32::MAX; 2];
    rs.dither = 1;
    rs
}

impl GlesBackend {
    #[inline]
    fn cx(&mut self, call: &'static str) -> Option<Cx<'_>> {
        self.prepare();
        let Some(h) = self.current else {
            warn!(call, "no current context, skipped");
            return None;
        };
        let Some(ctx) = self.ctxs.get_mut(h) else {
            warn!(call, ctx = ?h, "current context is gone, skipped");
            return None;
        };
        Some(Cx {
            gl: &self.gl,
            scr: &mut self.scr,
            f: &self.features,
            ctx,
        })
    }

    /// The current context's record of state for setters that only store
    /// it for the next draw and make no GL call: no `prepare` (a thread
    /// check per record), since nothing touches the driver.
    #[inline]
    fn cx_state(&mut self, call: &'static str) -> Option<&mut Ctx> {
        let Some(h) = self.current else {
            warn!(call, "no current context, skipped");
            return None;
        };
        let ctx = self.ctxs.get_mut(h);
        if ctx.is_none() {
            warn!(call, ctx = ?h, "current context is gone, skipped");
        }
        ctx
    }

    fn ox(&mut self) -> Ox<'_> {
        self.prepare();
        let shadow = match self.current.and_then(|h| self.ctxs.get_mut(h)) {
            Some(c) => &mut c.shadow,
            None => &mut self.root_shadow,
        };
        Ox {
            gl: &self.gl,
            scr: &mut self.scr,
            f: &self.features,
            shadow,
        }
    }

    /// A vertex-elements CSO appeared or went away: every context re-applies
    /// its vertex input at its next draw (a handle may resolve differently).
    /// Every context's cached VAOs go (at its next draw).
    pub(crate) fn drop_cached_vaos(&mut self) {
        for c in self.ctxs.values_mut() {
            c.vaos.stale = true;
        }
    }

    fn vertex_input_changed(&mut self) {
        for c in self.ctxs.values_mut() {
            c.shadow.vertex_applied = None;
        }
    }

    /// After make_current: the default framebuffer now means the new surfaces.
    pub(crate) fn rebind_default_framebuffers(&mut self) {
        if let Some(mut cx) = self.cx("make_current") {
            cx.bind_draw();
            cx.bind_read();
        }
    }
}

fn buffer_of(scr: &ScreenTables, h: Handle) -> Option<(glow::Buffer, u64)> {
    match scr.resources.get(h).map(|r| &r.kind) {
        Some(ResKind::Buffer { buf, size }) => Some((*buf, *size)),
        _ => None,
    }
}

/// One framebuffer attachment as the client resolved it.
#[derive(Clone, Copy)]
struct Att {
    res: Handle,
    kind: u32,
    level: u32,
    layer: u32,
}

const NO_ATT: Att = Att {
    res: Handle::NULL,
    kind: SURFACE_NONE,
    level: 0,
    layer: 0,
};

/// Attach one resource to `att` of the framebuffer bound at `fbt`.
fn attach(gl: &glow::Context, scr: &ScreenTables, f: &Features, fbt: u32, att: u32, a: Att) {
    let Att {
        res,
        kind,
        level,
        layer,
    } = a;
    let detach = || {
        // SAFETY: detaching from the bound framebuffer.
        unsafe { gl.framebuffer_renderbuffer(fbt, att, glow::RENDERBUFFER, None) }
    };
    if kind == SURFACE_NONE || res.is_null() {
        return detach();
    }
    let r = scr.resources.get(res).map(|r| &r.kind);
    // SAFETY: attaching live share-group objects to the bound framebuffer;
    // bad levels/layers only raise GL errors.
    unsafe {
        match (kind, r) {
            (SURFACE_RENDERBUFFER, Some(ResKind::Renderbuffer { rb, .. })) => {
                gl.framebuffer_renderbuffer(fbt, att, glow::RENDERBUFFER, Some(*rb))
            }
            (SURFACE_TEXTURE, Some(ResKind::Texture { tex, target, .. })) => match *target {
                glow::TEXTURE_CUBE_MAP => {
                    if layer < 6 {
                        gl.framebuffer_texture_2d(
                            fbt,
                            att,
                            glow::TEXTURE_CUBE_MAP_POSITIVE_X + layer,
                            Some(*tex),
                            level as i32,
                        )
                    } else if f.gles32 {
                        gl.framebuffer_texture(fbt, att, Some(*tex), level as i32)
                    } else {
                        warn!(?res, layer, "layered cube attachment needs GLES 3.2");
                        detach()
                    }
                }
                glow::TEXTURE_3D
                | glow::TEXTURE_2D_ARRAY
                | glow::TEXTURE_CUBE_MAP_ARRAY
                | glow::TEXTURE_2D_MULTISAMPLE_ARRAY => {
                    if layer == u32::MAX && f.gles32 {
                        gl.framebuffer_texture(fbt, att, Some(*tex), level as i32)
                    } else {
                        gl.framebuffer_texture_layer(
                            fbt,
                            att,
                            Some(*tex),
                            level as i32,
                            layer as i32,
                        )
                    }
                }
                glow::TEXTURE_2D_MULTISAMPLE => {
                    gl.framebuffer_texture_2d(fbt, att, glow::TEXTURE_2D_MULTISAMPLE, Some(*tex), 0)
                }
                _ => {
                    gl.framebuffer_texture_2d(fbt, att, glow::TEXTURE_2D, Some(*tex), level as i32)
                }
            },
            _ => {
                warn!(
                    ?res,
                    kind, "framebuffer attachment: unknown resource or wrong kind, detached"
                );
                detach()
            }
        }
    }
}

fn ds_attachment(class: FormatClass) -> u32 {
    match class {
        FormatClass::DepthStencil => glow::DEPTH_STENCIL_ATTACHMENT,
        FormatClass::Stencil => glow::STENCIL_ATTACHMENT,
        _ => glow::DEPTH_ATTACHMENT,
    }
}

fn check_fb(gl: &glow::Context, fbt: u32, what: &str) {
    // SAFETY: plain query on the bound framebuffer.
    let st = unsafe { gl.check_framebuffer_status(fbt) };
    if st != glow::FRAMEBUFFER_COMPLETE {
        warn!("{what}: framebuffer incomplete (0x{st:04X})");
    }
}

impl Cx<'_> {
    /// This context's FBO for `surface`, made on first use.
    fn surface_fbo(&mut self, surface: Handle) -> Option<glow::Framebuffer> {
        let s = self.scr.surfaces.get(surface)?;
        if let Some(&fb) = self.ctx.surface_fbos.get(surface) {
            return Some(fb);
        }
        let gl = self.gl;
        // SAFETY: a new FBO of the current context, attached to the
        // surface's live renderbuffers.
        let fb = unsafe {
            let fb = gl.create_framebuffer().ok()?;
            // Both targets: glReadBuffer below applies to the read binding.
            gl.bind_framebuffer(glow::FRAMEBUFFER, Some(fb));
            self.ctx.shadow.draw_fb = Some(Some(fb));
            self.ctx.shadow.read_fb = Some(Some(fb));
            if let Some(rb) = s.color {
                gl.framebuffer_renderbuffer(
                    glow::DRAW_FRAMEBUFFER,
                    glow::COLOR_ATTACHMENT0,
                    glow::RENDERBUFFER,
                    Some(rb),
                );
            }
            if let Some(rb) = s.depth_stencil {
                let att = ds_attachment(emulation::format_class(s.ds_internal));
                gl.framebuffer_renderbuffer(
                    glow::DRAW_FRAMEBUFFER,
                    att,
                    glow::RENDERBUFFER,
                    Some(rb),
                );
            }
            gl.draw_buffers(&[if s.color.is_some() {
                glow::COLOR_ATTACHMENT0
            } else {
                glow::NONE
            }]);
            gl.read_buffer(if s.color.is_some() {
                glow::COLOR_ATTACHMENT0
            } else {
                glow::NONE
            });
            fb
        };
        check_fb(gl, glow::DRAW_FRAMEBUFFER, "surface framebuffer");
        if let Ok(Some(old)) = self.ctx.surface_fbos.insert(surface, fb) {
            // SAFETY: an FBO of this context for a destroyed surface.
            unsafe { gl.delete_framebuffer(old) };
        }
        Some(fb)
    }

    /// GLES 3 (as Mesa enforces it) makes a framebuffer incomplete when it
    /// attaches a level above TEXTURE_BASE_LEVEL of a mutable texture that
    /// is not mipmap complete, which desktop GL allows (rendering into
    /// levels one at a time). Such a level is made the texture's base (and
    /// max) level; the recorded view parameters change with it, so the next
    /// draw that samples the texture sets its own levels again. Where the
    /// bound read and draw framebuffers attach other levels of the same
    /// texture (a blit from one level into the next), the range spans them
    /// all, so that no attachment falls outside it.
    fn rebase_for_attach(&mut self, res: Handle, kind: u32, level: u32) {
        if kind != SURFACE_TEXTURE || res.is_null() {
            return;
        }
        let (lo, hi) = self
            .attached_levels(res)
            .into_iter()
            .fold((level, level), |(lo, hi), l| (lo.min(l), hi.max(l)));
        let Some(ResKind::Texture {
            tex,
            target,
            params,
            storage: crate::TexStorage::Mutable,
            ..
        }) = self.scr.resources.get_mut(res).map(|r| &mut r.kind)
        else {
            return;
        };
        if !matches!(
            *target,
            glow::TEXTURE_2D | glow::TEXTURE_3D | glow::TEXTURE_2D_ARRAY | glow::TEXTURE_CUBE_MAP
        ) || (params.base_level == lo && params.max_level == hi)
            // Level 0 of a texture never rebased needs nothing; one
            // rebased before goes back to level 0 (GLES: an attached level
            // below the base level is incomplete).
            || (hi == 0 && params.base_level == 0)
        {
            return;
        }
        let gl = self.gl;
        self.ctx.shadow.bind_texture(gl, *target, Some(*tex));
        // SAFETY: level parameters of the texture just bound to `target`.
        unsafe {
            gl.tex_parameter_i32(*target, glow::TEXTURE_BASE_LEVEL, lo as i32);
            gl.tex_parameter_i32(*target, glow::TEXTURE_MAX_LEVEL, hi as i32);
        }
        params.base_level = lo;
        params.max_level = hi;
    }

    /// The levels at which the bound read and draw framebuffer objects
    /// attach texture `res` (as last described to this context).
    fn attached_levels(&self, res: Handle) -> Vec<u32> {
        let mut levels = Vec::new();
        if !self.ctx.read_default {
            if let Some(p) = &self.ctx.read_desc {
                for (r, k, l) in [
                    (p.color, p.color_kind, p.color_level),
                    (p.depth, p.depth_kind, p.depth_level),
                    (p.stencil, p.stencil_kind, p.stencil_level),
                ] {
                    if r == res && k == SURFACE_TEXTURE {
                        levels.push(l);
                    }
                }
            }
        }
        if !self.ctx.draw_default {
            if let Some(p) = self.ctx.fbos.get(self.ctx.draw_fbo).and_then(|e| e.desc) {
                let colour = (0..8).map(|i| (p.color[i], p.color_kind[i], p.color_level[i]));
                for (r, k, l) in colour.chain([
                    (p.depth, p.depth_kind, p.depth_level),
                    (p.stencil, p.stencil_kind, p.stencil_level),
                ]) {
                    if r == res && k == SURFACE_TEXTURE {
                        levels.push(l);
                    }
                }
            }
        }
        levels
    }

    /// Attach the framebuffer description `p` to this context's FBO `fbo`
    /// (bound for drawing here).
    fn attach_draw_desc(&mut self, fbo: glow::Framebuffer, p: &calls::SetFramebufferState) {
        for i in 0..8 {
            self.rebase_for_attach(p.color[i], p.color_kind[i], p.color_level[i]);
        }
        self.rebase_for_attach(p.depth, p.depth_kind, p.depth_level);
        self.rebase_for_attach(p.stencil, p.stencil_kind, p.stencil_level);
        let gl = self.gl;
        self.ctx.shadow.bind_draw_fb(gl, Some(fbo));
        let fbt = glow::DRAW_FRAMEBUFFER;
        let mut active = [false; 8];
        let mut bufs = [glow::NONE; 8];
        // Emulation: GLES wants draw buffer i -> COLOR_ATTACHMENTi, so
        // attachment i is the client's attachment draw_buffers[i].
        for i in 0..8 {
            let src = p.draw_buffers[i];
            let att = glow::COLOR_ATTACHMENT0 + i as u32;
            if src != NO_ATTACHMENT && (src as usize) < 8 && i < self.f.max_draw_buffers {
                let s = src as usize;
                attach(
                    gl,
                    self.scr,
                    self.f,
                    fbt,
                    att,
                    Att {
                        res: p.color[s],
                        kind: p.color_kind[s],
                        level: p.color_level[s],
                        layer: p.color_layer[s],
                    },
                );
                active[i] = p.color_kind[s] != SURFACE_NONE;
                if active[i] {
                    bufs[i] = att;
                }
            } else if i < self.f.max_draw_buffers {
                attach(gl, self.scr, self.f, fbt, att, NO_ATT);
            }
        }
        let same = p.depth == p.stencil
            && p.depth_kind == p.stencil_kind
            && p.depth_level == p.stencil_level
            && p.depth_layer == p.stencil_layer
            && !p.depth.is_null();
        if same {
            attach(
                gl,
                self.scr,
                self.f,
                fbt,
                glow::DEPTH_STENCIL_ATTACHMENT,
                Att {
                    res: p.depth,
                    kind: p.depth_kind,
                    level: p.depth_level,
                    layer: p.depth_layer,
                },
            );
        } else {
            attach(
                gl,
                self.scr,
                self.f,
                fbt,
                glow::DEPTH_ATTACHMENT,
                Att {
                    res: p.depth,
                    kind: p.depth_kind,
                    level: p.depth_level,
                    layer: p.depth_layer,
                },
            );
            attach(
                gl,
                self.scr,
                self.f,
                fbt,
                glow::STENCIL_ATTACHMENT,
                Att {
                    res: p.stencil,
                    kind: p.stencil_kind,
                    level: p.stencil_level,
                    layer: p.stencil_layer,
                },
            );
        }
        let n = bufs
            .iter()
            .rposition(|&b| b != glow::NONE)
            .map(|i| i + 1)
            .unwrap_or(1)
            .min(self.f.max_draw_buffers);
        // SAFETY: draw buffers of the bound FBO, n <= MAX_DRAW_BUFFERS.
        unsafe { gl.draw_buffers(&bufs[..n]) };
        if let Some(e) = self.ctx.fbos.get_mut(p.fbo) {
            e.active = active;
        }
        check_fb(gl, fbt, "set_framebuffer_state");
    }

    /// Attach the read-surface description `p` to this context's read FBO
    /// (bound for reading).
    fn attach_read_desc(&mut self, p: &calls::SetReadSurface) {
        self.rebase_for_attach(p.color, p.color_kind, p.color_level);
        self.rebase_for_attach(p.depth, p.depth_kind, p.depth_level);
        self.rebase_for_attach(p.stencil, p.stencil_kind, p.stencil_level);
        let gl = self.gl;
        let fbt = glow::READ_FRAMEBUFFER;
        attach(
            gl,
            self.scr,
            self.f,
            fbt,
            glow::COLOR_ATTACHMENT0,
            Att {
                res: p.color,
                kind: p.color_kind,
                level: p.color_level,
                layer: p.color_layer,
            },
        );
        if p.depth == p.stencil
            && p.depth_kind == p.stencil_kind
            && p.depth_level == p.stencil_level
            && p.depth_layer == p.stencil_layer
            && !p.depth.is_null()
        {
            attach(
                gl,
                self.scr,
                self.f,
                fbt,
                glow::DEPTH_STENCIL_ATTACHMENT,
                Att {
                    res: p.depth,
                    kind: p.depth_kind,
                    level: p.depth_level,
                    layer: p.depth_layer,
                },
            );
        } else {
            attach(
                gl,
                self.scr,
                self.f,
                fbt,
                glow::DEPTH_ATTACHMENT,
                Att {
                    res: p.depth,
                    kind: p.depth_kind,
                    level: p.depth_level,
                    layer: p.depth_layer,
                },
            );
            attach(
                gl,
                self.scr,
                self.f,
                fbt,
                glow::STENCIL_ATTACHMENT,
                Att {
                    res: p.stencil,
                    kind: p.stencil_kind,
                    level: p.stencil_level,
                    layer: p.stencil_layer,
                },
            );
        }
        let rb = if p.color_kind != SURFACE_NONE && !p.color.is_null() {
            glow::COLOR_ATTACHMENT0
        } else {
            glow::NONE
        };
        // SAFETY: read buffer of the bound read FBO.
        unsafe { gl.read_buffer(rb) };
    }

    fn draw_target(&mut self) -> Option<glow::Framebuffer> {
        if self.ctx.draw_default {
            let s = self.ctx.draw_surface;
            let fb = self.surface_fbo(s);
            if fb.is_none() && !s.is_null() {
                warn!(surface = ?s, "draw surface unknown (destroyed?)");
            }
            fb
        } else {
            self.ctx.fbos.get(self.ctx.draw_fbo).map(|e| e.fbo)
        }
    }

    /// Emulation: blending reads destination alpha 1 for draw buffers
    /// whose attachment has no alpha in GL but is stored with one; when
    /// that set changes with the framebuffer, the bound render state's
    /// blend factors are applied again for it.
    fn update_dst_alpha_one(&mut self) {
        let mut mask = 0u32;
        if !self.ctx.draw_default {
            if let Some(d) = self.ctx.fbos.get(self.ctx.draw_fbo).and_then(|e| e.desc) {
                for (i, &a) in d.draw_buffers.iter().enumerate() {
                    let Some(&h) = d.color.get(a as usize) else {
                        continue;
                    };
                    if matches!(
                        self.scr.resources.get(h).map(|r| &r.kind),
                        Some(ResKind::Texture {
                            alpha_one: true,
                            ..
                        }) | Some(ResKind::Renderbuffer {
                            alpha_one: true,
                            ..
                        })
                    ) {
                        mask |= 1 << i;
                    }
                }
            }
        }
        if self.ctx.shadow.dst_alpha_one == mask {
            return;
        }
        self.ctx.shadow.dst_alpha_one = mask;
        let cso = self.ctx.render_state;
        let rs = if cso.is_null() {
            default_render_state()
        } else {
            match self.scr.render_states.get(cso) {
                Some(rs) => *rs,
                None => return,
            }
        };
        self.ctx.shadow.apply_render_state(
            self.gl,
            &rs,
            self.f.gles32,
            self.f.max_draw_buffers,
            &self.f.fns,
        );
    }

    #[inline]
    fn bind_draw(&mut self) {
        if !self.ctx.draw_default {
            self.refresh_draw_fbo();
            self.ctx.fbo_written = true;
        }
        let fb = self.draw_target();
        self.ctx.shadow.bind_draw_fb(self.gl, fb);
    }

    /// The bound framebuffer's attachments again when a texture in them got
    /// a new GL name (images.rs).
    fn refresh_draw_fbo(&mut self) {
        let Some(e) = self.ctx.fbos.get_mut(self.ctx.draw_fbo) else {
            return;
        };
        if !e.stale {
            return;
        }
        e.stale = false;
        if let Some(desc) = e.desc {
            let fbo = e.fbo;
            self.attach_draw_desc(fbo, &desc);
        }
    }

    /// Pack state for tight rows (alignment 1, no row length or skips), set
    /// once and shadowed: we never bind a PIXEL_PACK_BUFFER.
    fn tight_pack(&mut self) {
        if !self.ctx.shadow.pack_ok {
            // SAFETY: pack state of the current context.
            unsafe {
                self.gl.pixel_store_i32(glow::PACK_ALIGNMENT, 1);
                self.gl.pixel_store_i32(glow::PACK_ROW_LENGTH, 0);
                self.gl.pixel_store_i32(glow::PACK_SKIP_ROWS, 0);
                self.gl.pixel_store_i32(glow::PACK_SKIP_PIXELS, 0);
            }
            self.ctx.shadow.pack_ok = true;
        }
    }

    fn bind_read(&mut self) {
        let fb = if self.ctx.read_default {
            let s = self.ctx.read_surface;
            self.surface_fbo(s)
        } else {
            self.ctx.read_fbo
        };
        self.ctx.shadow.bind_read_fb(self.gl, fb);
        // Attached again when a texture in it got a new GL name (images.rs).
        if !self.ctx.read_default && self.ctx.read_stale {
            self.ctx.read_stale = false;
            if let Some(desc) = self.ctx.read_desc {
                self.attach_read_desc(&desc);
            }
        }
    }

    fn active_draw_buffers(&self) -> [bool; 8] {
        if self.ctx.draw_default {
            let mut a = [false; 8];
            a[0] = true;
            a
        } else {
            self.ctx
                .fbos
                .get(self.ctx.draw_fbo)
                .map(|e| e.active)
                .unwrap_or([false; 8])
        }
    }

    /// Whether the read surface has a colour buffer to read.
    fn read_has_colour(&self) -> bool {
        self.ctx.read_default
            || self
                .ctx
                .read_desc
                .is_some_and(|d| self.scr.resources.get(d.color).is_some())
    }

    /// glReadPixels of depth and/or stencil into `reply` (`total` bytes of
    /// the client's format/type, zeros where it cannot be read). GLES reads
    /// them only with GL_NV_read_depth / _stencil / _depth_stencil: read in
    /// the pair those allow, then convert.
    fn read_depth_stencil(&mut self, p: &calls::ReadPixels, total: usize, reply: &mut Vec<u8>) {
        reply.resize(total, 0);
        // The pairs the extensions allow vary by driver and buffer format
        // (Mesa's GLES takes UNSIGNED_INT, not FLOAT, from a 24-bit depth
        // buffer): the first the driver accepts is read.
        let depth = [glow::FLOAT, glow::UNSIGNED_INT, glow::UNSIGNED_SHORT];
        let candidates: &[u32] = match p.format {
            glow::DEPTH_COMPONENT if self.f.read_depth => &depth,
            glow::STENCIL_INDEX if self.f.read_stencil => &[glow::UNSIGNED_BYTE],
            // Only the packed type itself: no conversion between the two.
            glow::DEPTH_STENCIL if self.f.read_depth_stencil => std::slice::from_ref(&p.r#type),
            _ => {
                warn!(
                    format = p.format,
                    "read_pixels: the driver cannot read depth/stencil (no GL_NV_read_*), zeros returned"
                );
                return;
            }
        };
        let pixels = p.width as usize * p.height as usize;
        self.bind_read();
        // GLES reads no multisampled buffer: a multisampled default
        // surface's depth/stencil is resolved into a temporary first (a
        // multisampled framebuffer object is refused by the frontend).
        let resolved = if self.read_format().1 > 1 {
            match self.resolve_depth_stencil(p) {
                Some(r) => Some(r),
                None => {
                    warn!("read_pixels: resolving a multisampled depth/stencil failed, zeros returned");
                    return;
                }
            }
        } else {
            None
        };
        self.tight_pack();
        let gl = self.gl;
        let mut read = None;
        for &ty in candidates {
            let Some(n) =
                emulation::bytes_per_pixel(p.format, ty).and_then(|b| b.checked_mul(pixels))
            else {
                continue;
            };
            let mut tmp = vec![0u8; n];
            // SAFETY: `tmp` holds width*height pixels of (format, ty) with
            // PACK_ALIGNMENT 1; the read framebuffer is bound. Errors are
            // drained first so that the one read after the call is ours.
            let ok = unsafe {
                // Bounded: a lost context may keep reporting.
                for _ in 0..8 {
                    if gl.get_error() == glow::NO_ERROR {
                        break;
                    }
                }
                gl.read_pixels(
                    p.x,
                    p.y,
                    p.width as i32,
                    p.height as i32,
                    p.format,
                    ty,
                    glow::PixelPackData::Slice(Some(tmp.as_mut_slice())),
                );
                gl.get_error() == glow::NO_ERROR
            };
            if ok {
                read = Some((ty, tmp));
                break;
            }
        }
        if let Some(r) = resolved {
            self.drop_resolve(r);
        }
        let Some((ty, tmp)) = read else {
            warn!(
                format = p.format,
                "read_pixels: the driver refused every depth/stencil read type, zeros returned"
            );
            return;
        };
        let pair = (p.format, ty);
        match emulation::convert(&tmp, pair.0, pair.1, p.format, p.r#type, pixels) {
            Some(v) if v.len() == reply.len() => reply.copy_from_slice(&v),
            _ => warn!(
                format = p.format,
                ty = p.r#type,
                "read_pixels: no conversion of depth/stencil to this type, zeros returned"
            ),
        }
    }

    /// Delete the temporary objects of a resolve; the framebuffer bindings
    /// they took are re-made by the next user.
    fn drop_resolve(&mut self, (fb, rb): (glow::Framebuffer, glow::Renderbuffer)) {
        // SAFETY: temporary objects made by `resolve_buffers_for_read`,
        // deleted once.
        unsafe {
            self.gl.delete_framebuffer(fb);
            self.gl.delete_renderbuffer(rb);
        }
        self.ctx.shadow.draw_fb = None;
        self.ctx.shadow.read_fb = None;
    }

    /// Resolve the default read surface's depth/stencil buffer for the
    /// rectangle of `p` (see `resolve_buffers_for_read`); None when there is
    /// none to resolve or the driver refused.
    fn resolve_depth_stencil(
        &mut self,
        p: &calls::ReadPixels,
    ) -> Option<(glow::Framebuffer, glow::Renderbuffer)> {
        if !self.ctx.read_default {
            return None;
        }
        let s = self.scr.surfaces.get(self.ctx.read_surface)?;
        s.depth_stencil?;
        let internal = s.ds_internal;
        let (attachment, mask) = match internal {
            glow::DEPTH24_STENCIL8 | glow::DEPTH32F_STENCIL8 => (
                glow::DEPTH_STENCIL_ATTACHMENT,
                glow::DEPTH_BUFFER_BIT | glow::STENCIL_BUFFER_BIT,
            ),
            glow::STENCIL_INDEX8 => (glow::STENCIL_ATTACHMENT, glow::STENCIL_BUFFER_BIT),
            _ => (glow::DEPTH_ATTACHMENT, glow::DEPTH_BUFFER_BIT),
        };
        let rect = (p.x, p.y, p.width as i32, p.height as i32);
        // SAFETY: plain queries: earlier errors drained (bounded: a lost
        // context may keep reporting), so the one read below is the blit's.
        unsafe {
            for _ in 0..8 {
                if self.gl.get_error() == glow::NO_ERROR {
                    break;
                }
            }
        }
        let r = self.resolve_buffers_for_read(internal, attachment, mask, rect)?;
        // SAFETY: plain query; the blit's error (mismatched formats, a
        // driver without depth resolves) is ours to see.
        if unsafe { self.gl.get_error() } != glow::NO_ERROR {
            self.drop_resolve(r);
            return None;
        }
        Some(r)
    }

    /// GLES internal format of the read surface's depth (else stencil)
    /// buffer; None without one.
    fn read_ds_format(&self) -> Option<u32> {
        if self.ctx.read_default {
            let s = self.scr.surfaces.get(self.ctx.read_surface)?;
            s.depth_stencil?;
            return Some(s.ds_internal);
        }
        let d = self.ctx.read_desc?;
        let res = if d.depth.is_null() {
            d.stencil
        } else {
            d.depth
        };
        match self.scr.resources.get(res).map(|r| &r.kind) {
            Some(ResKind::Texture { internal, .. })
            | Some(ResKind::Renderbuffer { internal, .. }) => Some(*internal),
            _ => None,
        }
    }

    /// A blit the driver refused, done in two: each buffer's source
    /// rectangle copied 1:1 into a temporary of its format, then blitted
    /// from there to the destination. False when a step failed.
    fn blit_through_copy(&mut self, p: &calls::Blit, filter: u32) -> bool {
        let s = p.src;
        let d = p.dst;
        let (x, y) = (s[0].min(s[2]), s[1].min(s[3]));
        let (w, h) = ((s[2] - s[0]).abs(), (s[3] - s[1]).abs());
        if w == 0 || h == 0 {
            return true;
        }
        let ds_bits = p.mask & (glow::DEPTH_BUFFER_BIT | glow::STENCIL_BUFFER_BIT);
        let mut ok = true;
        for bits in [p.mask & glow::COLOR_BUFFER_BIT, ds_bits] {
            if bits == 0 {
                continue;
            }
            let (internal, attachment) = if bits == glow::COLOR_BUFFER_BIT {
                // A multisampled source too: the copy below is the resolve
                // GLES allows (same format, same rectangle), and the blit
                // from it may then scale or convert (a layer of a
                // multisample array read through a smaller window).
                let (internal, _samples) = self.read_format();
                (internal, glow::COLOR_ATTACHMENT0)
            } else {
                let Some(internal) = self.read_ds_format() else {
                    ok = false;
                    continue;
                };
                let att = match internal {
                    glow::DEPTH24_STENCIL8 | glow::DEPTH32F_STENCIL8 => {
                        glow::DEPTH_STENCIL_ATTACHMENT
                    }
                    glow::STENCIL_INDEX8 => glow::STENCIL_ATTACHMENT,
                    _ => glow::DEPTH_ATTACHMENT,
                };
                (internal, att)
            };
            self.bind_read();
            let Some(r) = self.resolve_buffers_for_read(internal, attachment, bits, (x, y, w, h))
            else {
                ok = false;
                continue;
            };
            // The temporary is bound for reading; the draw framebuffer again.
            self.ctx.shadow.draw_fb = None;
            self.bind_draw();
            let gl = self.gl;
            let sh = &mut self.ctx.shadow;
            // SAFETY: a blit from the temporary (bound for reading) to the
            // draw framebuffer; the temporary holds the source rectangle at
            // its own coordinates. Raster ops were suspended for the copy
            // only; this blit is the application's.
            unsafe {
                sh.bind_read_fb(gl, Some(r.0));
                if bits == glow::COLOR_BUFFER_BIT {
                    gl.read_buffer(glow::COLOR_ATTACHMENT0);
                }
                gl.blit_framebuffer(s[0], s[1], s[2], s[3], d[0], d[1], d[2], d[3], bits, filter);
                if gl.get_error() != glow::NO_ERROR {
                    ok = false;
                }
            }
            self.drop_resolve(r);
        }
        self.bind_draw();
        self.bind_read();
        ok
    }

    /// GLES internal format and sample count of the read surface's colour buffer.
    /// Whether the read surface is a format without alpha stored with one
    /// (`emulation::StorageFormat::alpha_one`).
    fn read_alpha_one(&self) -> bool {
        !self.ctx.read_default
            && matches!(
                self.ctx
                    .read_desc
                    .and_then(|d| self.scr.resources.get(d.color))
                    .map(|r| &r.kind),
                Some(ResKind::Texture {
                    alpha_one: true,
                    ..
                }) | Some(ResKind::Renderbuffer {
                    alpha_one: true,
                    ..
                })
            )
    }

    fn read_format(&self) -> (u32, u32) {
        if self.ctx.read_default {
            self.scr
                .surfaces
                .get(self.ctx.read_surface)
                .map(|s| (s.color_internal, s.samples))
                .unwrap_or((glow::RGBA8, 0))
        } else {
            match self
                .ctx
                .read_desc
                .and_then(|d| self.scr.resources.get(d.color))
                .map(|r| &r.kind)
            {
                Some(ResKind::Texture {
                    internal, samples, ..
                })
                | Some(ResKind::Renderbuffer {
                    internal, samples, ..
                }) => (*internal, *samples),
                _ => (glow::RGBA8, 0),
            }
        }
    }

    /// Emulation: GLES cannot glReadPixels a multisampled buffer; resolve the
    /// rectangle into a temporary single-sample FBO (left bound for reading,
    /// returned for deletion after the read).
    fn resolve_for_read(
        &mut self,
        internal: u32,
        x: i32,
        y: i32,
        w: i32,
        h: i32,
    ) -> Option<(glow::Framebuffer, glow::Renderbuffer)> {
        self.resolve_buffers_for_read(
            internal,
            glow::COLOR_ATTACHMENT0,
            glow::COLOR_BUFFER_BIT,
            (x, y, w, h),
        )
    }

    /// `resolve_for_read` of the buffers in `mask` (colour, or depth and/or
    /// stencil: GLES 3.0 resolves those by a blit between identical formats
    /// too) into a temporary renderbuffer of `internal` at `attachment`.
    fn resolve_buffers_for_read(
        &mut self,
        internal: u32,
        attachment: u32,
        mask: u32,
        (x, y, w, h): (i32, i32, i32, i32),
    ) -> Option<(glow::Framebuffer, glow::Renderbuffer)> {
        let gl = self.gl;
        let sh = &mut self.ctx.shadow;
        // SAFETY: temporary objects of the current context; the read
        // framebuffer (the multisampled source) is bound; raster ops that
        // affect blits are suspended and restored.
        unsafe {
            let rb = gl.create_renderbuffer().ok()?;
            gl.bind_renderbuffer(glow::RENDERBUFFER, Some(rb));
            // GLES requires identical rectangles for a multisample resolve:
            // the temporary covers (0,0)..(x+w,y+h) and is read at (x,y).
            gl.renderbuffer_storage(glow::RENDERBUFFER, internal, x.max(0) + w, y.max(0) + h);
            let Ok(fb) = gl.create_framebuffer() else {
                gl.delete_renderbuffer(rb);
                return None;
            };
            sh.bind_draw_fb(gl, Some(fb));
            gl.framebuffer_renderbuffer(
                glow::DRAW_FRAMEBUFFER,
                attachment,
                glow::RENDERBUFFER,
                Some(rb),
            );
            let saved = sh.suspend_blit_ops(gl);
            gl.blit_framebuffer(x, y, x + w, y + h, x, y, x + w, y + h, mask, glow::NEAREST);
            sh.resume_blit_ops(gl, saved);
            sh.bind_read_fb(gl, Some(fb));
            Some((fb, rb))
        }
    }

    fn apply_textures(&mut self) {
        let gl = self.gl;
        let n = (self.ctx.views.count as usize)
            .min(self.ctx.views.views.len())
            .min(self.f.max_units);
        for unit in 0..n {
            let h = self.ctx.views.views[unit];
            if h.is_null() {
                continue;
            }
            let Some(v) = self.scr.views.get(h).copied() else {
                warn!(view = ?h, unit, "draw: unknown sampler view, unit skipped");
                continue;
            };
            let Some(ResKind::Texture {
                tex,
                target,
                params,
                alpha_one,
                ..
            }) = self.scr.resources.get_mut(v.texture).map(|r| &mut r.kind)
            else {
                warn!(view = ?h, texture = ?v.texture, unit, "draw: sampler view names an unknown texture, unit skipped");
                continue;
            };
            let tgt = emulation::binding_target(v.target).unwrap_or(*target);
            if *target == 0 {
                *target = tgt;
            }
            self.ctx.shadow.active_unit(gl, unit as u32);
            self.ctx.shadow.bind_texture(gl, tgt, Some(*tex));
            // A buffer texture has no levels, swizzle or depth mode.
            if tgt == glow::TEXTURE_BUFFER {
                continue;
            }
            let want = TexParams {
                base_level: v.base_level,
                max_level: v.max_level,
                swizzle: emulation::view_swizzle(v.swizzle, *alpha_one),
                depth_stencil_mode: if v.depth_stencil_mode == 0 {
                    glow::DEPTH_COMPONENT
                } else {
                    v.depth_stencil_mode
                },
            };
            if *params != want {
                let old = *params;
                // SAFETY: parameters of the texture bound to `tgt` on the active unit.
                unsafe {
                    if old.base_level != want.base_level {
                        gl.tex_parameter_i32(tgt, glow::TEXTURE_BASE_LEVEL, want.base_level as i32);
                    }
                    if old.max_level != want.max_level {
                        gl.tex_parameter_i32(
                            tgt,
                            glow::TEXTURE_MAX_LEVEL,
                            want.max_level.min(i32::MAX as u32) as i32,
                        );
                    }
                    let names = [
                        glow::TEXTURE_SWIZZLE_R,
                        glow::TEXTURE_SWIZZLE_G,
                        glow::TEXTURE_SWIZZLE_B,
                        glow::TEXTURE_SWIZZLE_A,
                    ];
                    for (i, name) in names.into_iter().enumerate() {
                        if old.swizzle[i] != want.swizzle[i] {
                            gl.tex_parameter_i32(tgt, name, want.swizzle[i] as i32);
                        }
                    }
                    if old.depth_stencil_mode != want.depth_stencil_mode && self.f.gles31 {
                        gl.tex_parameter_i32(
                            tgt,
                            glow::DEPTH_STENCIL_TEXTURE_MODE,
                            want.depth_stencil_mode as i32,
                        );
                    }
                }
                *params = want;
            }
        }
        let n = (self.ctx.samplers.count as usize)
            .min(self.ctx.samplers.samplers.len())
            .min(self.f.max_units);
        for unit in 0..n {
            let h = self.ctx.samplers.samplers[unit];
            let s = if h.is_null() {
                None
            } else {
                match self.scr.samplers.get(h) {
                    Some(s) => Some(s.sampler),
                    None => {
                        warn!(sampler = ?h, unit, "draw: unknown sampler, unit unbound");
                        None
                    }
                }
            };
            self.ctx.shadow.bind_sampler(gl, unit as u32, s);
        }
    }

    fn apply_uniform_buffers(
        &mut self,
        sh_binding: u32,
        sh_size: u32,
        sh_block: Option<(glow::Buffer, u32)>,
    ) {
        let gl = self.gl;
        // Slot by slot, not a copy of the whole table per draw.
        let n = (self.ctx.cbufs.count as usize).min(self.ctx.cbufs.buffers.len());
        for i in 0..n {
            let cb = &self.ctx.cbufs;
            let (h, off, want_len) = (cb.buffers[i], cb.offsets[i], cb.sizes[i]);
            if h.is_null() {
                continue;
            }
            let Some((buf, size)) = buffer_of(self.scr, h) else {
                warn!(buffer = ?h, binding = i, "draw: unknown uniform buffer, binding skipped");
                continue;
            };
            let len = if want_len == 0 {
                size.saturating_sub(off)
            } else {
                want_len
            };
            if off > i32::MAX as u64 || len > i32::MAX as u64 {
                warn!(buffer = ?h, binding = i, "draw: uniform range beyond GLES limits, skipped");
                continue;
            }
            self.ctx
                .shadow
                .bind_ubo(gl, i as u32, Some(buf), off as i32, len as i32);
        }
        if let Some((ubo, offset)) = sh_block {
            self.ctx
                .shadow
                .bind_ubo(gl, sh_binding, Some(ubo), offset as i32, sh_size as i32);
        }
    }

    /// Storage-buffer bindings (`set_shader_buffers`): slot i is
    /// SHADER_STORAGE_BUFFER binding i; sizes resolved like uniform buffers
    /// (0: to the end of the buffer).
    fn apply_storage_buffers(&mut self) {
        let gl = self.gl;
        let n = (self.ctx.sbufs.count as usize)
            .min(self.ctx.sbufs.buffers.len())
            .min(self.f.max_ssbo_bindings);
        for i in 0..n {
            let sb = &self.ctx.sbufs;
            let (h, off, want_len) = (sb.buffers[i], sb.offsets[i], sb.sizes[i]);
            if h.is_null() {
                self.ctx.shadow.bind_ssbo(gl, i as u32, None, 0, 0);
                continue;
            }
            let Some((buf, size)) = buffer_of(self.scr, h) else {
                warn!(buffer = ?h, binding = i, "unknown storage buffer, binding left unbound");
                self.ctx.shadow.bind_ssbo(gl, i as u32, None, 0, 0);
                continue;
            };
            let len = if want_len == 0 {
                size.saturating_sub(off)
            } else {
                want_len
            };
            let fits = off.checked_add(len).is_some_and(|end| end <= size);
            let aligned = off % u64::from(self.f.ssbo_align.max(1)) == 0;
            if !fits || len == 0 || off > i32::MAX as u64 || len > i32::MAX as u64 || !aligned {
                warn!(buffer = ?h, binding = i, off, len, size, "storage buffer range empty, past the end or misaligned: binding left unbound");
                self.ctx.shadow.bind_ssbo(gl, i as u32, None, 0, 0);
                continue;
            }
            self.ctx
                .shadow
                .bind_ssbo(gl, i as u32, Some(buf), off as i32, len as i32);
        }
    }

    /// Image units (`set_shader_images`): slot k is image unit k. Textures
    /// are immutable by now (`prepare_images`); anything that cannot be
    /// bound leaves its unit unbound.
    fn apply_images(&mut self) {
        let gl = self.gl;
        let n = (self.ctx.images.count as usize).min(self.f.max_image_units);
        for k in 0..n {
            let h = self.ctx.images.resources[k];
            let tex = match self.scr.resources.get(h).map(|r| &r.kind) {
                _ if h.is_null() => None,
                // GL 4.6 §8.26: a texture whose format is not an image
                // format makes every access invalid, as an unbound unit
                // does (GLES would reinterpret it). `alpha_one`: an RGB
                // format stored as RGBA, none of which is an image format.
                Some(ResKind::Texture {
                    internal,
                    alpha_one,
                    ..
                }) if *alpha_one
                    || (*internal != 0
                        && !crate::images::image_format_supported(
                            *internal,
                            self.f.image_formats,
                        )) =>
                {
                    None
                }
                Some(ResKind::Texture {
                    tex,
                    storage: TexStorage::Immutable | TexStorage::Promoted(_),
                    ..
                }) => Some(*tex),
                // GLES 3.2 §8.22: a buffer texture needs no immutable storage.
                Some(ResKind::Texture { tex, target, .. }) if *target == glow::TEXTURE_BUFFER => {
                    Some(*tex)
                }
                Some(_) => {
                    warn!(resource = ?h, unit = k, "image unit names no (immutable) texture, left unbound");
                    None
                }
                None => {
                    warn!(resource = ?h, unit = k, "image unit names an unknown resource, left unbound");
                    None
                }
            };
            let unit =
                match crate::images::image_unit(&self.ctx.images, k, tex, self.f.image_formats) {
                    Some(u) => u,
                    None => {
                        let im = &self.ctx.images;
                        if tex.is_some()
                            && crate::images::image_format_supported(
                                im.formats[k],
                                self.f.image_formats,
                            )
                        {
                            warn!(
                                unit = k,
                                access = im.access[k],
                                level = im.levels[k],
                                layer = im.layers[k],
                                "image unit: bad access, level or layer, left unbound"
                            );
                        }
                        crate::images::UNBOUND_IMAGE
                    }
                };
            self.ctx.shadow.bind_image(gl, k as u32, unit);
            if self.f.alias_image_units {
                // The write-only twin of a read-write image (sampling.rs).
                let alias = k as u32 + crate::sampling::IMAGE_ALIAS_OFFSET;
                self.ctx.shadow.bind_image(gl, alias, unit);
            }
        }
    }

    /// Apply the vertex input to the context's VAO; true when every enabled
    /// attribute resolved (only then may later draws skip this until an
    /// input changes).
    fn apply_vertex_state(&mut self, base_instance: u32) -> bool {
        let (resolved, disabled) = self.apply_vertex_arrays(base_instance);
        self.apply_attrib_values(disabled);
        resolved
    }

    /// The attribute arrays of the bound VAO (diffed against the shadow):
    /// whether every enabled attribute resolved, and the attributes left
    /// without an array.
    fn apply_vertex_arrays(&mut self, base_instance: u32) -> (bool, u32) {
        let gl = self.gl;
        let mut resolved = true;
        let ve = self
            .scr
            .vertex_elements
            .get(self.ctx.vertex_elements)
            .copied();
        if ve.is_none() && !self.ctx.vertex_elements.is_null() {
            warn!(cso = ?self.ctx.vertex_elements, "draw: unknown vertex elements, attributes disabled");
            resolved = false;
        }
        let vb = self.ctx.vbufs;
        // Attributes with no array read the current values set below.
        let mut disabled = 0u32;
        for i in 0..self.f.max_attribs.min(16) {
            // Emulation: a split 64-bit attribute (fp64.rs) reads its
            // words from GL attribute `attrib`.
            let split = self
                .ctx
                .f64_inputs
                .iter()
                .find(|x| x.location == i as u32)
                .copied();
            let src = split.map_or(i, |x| x.attrib as usize);
            let want = ve.filter(|ve| src < 16 && ve.enabled_mask & (1 << src) != 0).and_then(|ve| {
                let i = src;
                let slot = ve.buffer_index[i] as usize;
                if slot >= (vb.count as usize).min(16) {
                    warn!(attrib = i, slot, "draw: attribute reads an unset vertex buffer slot, disabled");
                    resolved = false;
                    return None;
                }
                let h = vb.buffers[slot];
                let Some((buffer, _)) = buffer_of(self.scr, h) else {
                    warn!(attrib = i, buffer = ?h, "draw: unknown vertex buffer, attribute disabled");
                    resolved = false;
                    return None;
                };
                let fmt = ve.format[i];
                let mut size = (fmt & 0xff) as i32;
                let mut ty = (fmt >> 8) & 0xffff;
                let mut part_offset = 0u64;
                let mut stride_fix = None;
                if ty == glow::DOUBLE && fmt & VE_INTEGER != 0 {
                    // Emulation: 64-bit attributes fetched as uint words.
                    let x = split?;
                    let doubles = size;
                    size = if x.high { 2 * doubles - 4 } else { (2 * doubles).min(4) };
                    if size <= 0 {
                        return None;
                    }
                    part_offset = if x.high { 16 } else { 0 };
                    stride_fix = Some(doubles as u32 * 8);
                    ty = glow::UNSIGNED_INT;
                } else if split.is_some() {
                    warn!(attrib = i, "draw: a double vertex input fed without glVertexAttribLPointer, attribute disabled");
                    return None;
                }
                if !(1..=4).contains(&size) || !emulation::vertex_type_supported(ty) {
                    warn!(attrib = i, size, ty, "draw: vertex format not supported by GLES, attribute disabled");
                    resolved = false;
                    return None;
                }
                let stride = match (vb.strides[slot], stride_fix) {
                    (0, Some(tight)) => tight,
                    (s, _) => s,
                };
                let mut offset = vb.offsets[slot]
                    .saturating_add(ve.offset[i] as u64)
                    .saturating_add(part_offset);
                let divisor = ve.divisor[i];
                if divisor > 0 && base_instance > 0 {
                    // emulation: base instance (see emulation.rs). GL 4.6
                    // §10.5 fetches element floor(instance / divisor) +
                    // baseinstance: the base is not divided.
                    let eff = if stride == 0 { emulation::vertex_element_size(size as u32, ty) } else { stride };
                    offset = offset.saturating_add(u64::from(base_instance) * eff as u64);
                }
                if offset > i32::MAX as u64 || stride > i32::MAX as u32 {
                    warn!(attrib = i, offset, "draw: vertex offset beyond GLES limits, attribute disabled");
                    resolved = false;
                    return None;
                }
                Some(AttribState {
                    buffer,
                    size,
                    ty,
                    normalized: fmt & VE_NORMALIZED != 0,
                    integer: fmt & VE_INTEGER != 0,
                    stride: stride as i32,
                    offset: offset as i64,
                    divisor,
                })
            });
            let shadow = &mut self.ctx.shadow;
            if shadow.attribs[i] != Some(want) {
                let was_enabled = matches!(shadow.attribs[i], Some(Some(_)));
                match want {
                    Some(a) => {
                        shadow.bind_array_buffer(gl, Some(a.buffer));
                        // SAFETY: attribute i < MAX_VERTEX_ATTRIBS, sourced from the
                        // bound live ARRAY_BUFFER at a checked offset.
                        unsafe {
                            if !was_enabled {
                                gl.enable_vertex_attrib_array(i as u32);
                            }
                            if a.integer {
                                gl.vertex_attrib_pointer_i32(
                                    i as u32,
                                    a.size,
                                    a.ty,
                                    a.stride,
                                    a.offset as i32,
                                );
                            } else {
                                gl.vertex_attrib_pointer_f32(
                                    i as u32,
                                    a.size,
                                    a.ty,
                                    a.normalized,
                                    a.stride,
                                    a.offset as i32,
                                );
                            }
                            gl.vertex_attrib_divisor(i as u32, a.divisor);
                        }
                    }
                    None => {
                        // SAFETY: attribute i < MAX_VERTEX_ATTRIBS.
                        unsafe { gl.disable_vertex_attrib_array(i as u32) };
                    }
                }
                shadow.attribs[i] = Some(want);
            }
            if want.is_none() {
                disabled |= 1 << i;
            }
        }
        (resolved, disabled)
    }

    /// Current values of the `disabled` attributes (no array): context
    /// state, applied whatever VAO is bound.
    fn apply_attrib_values(&mut self, disabled: u32) {
        let gl = self.gl;
        let defaults = &self.ctx.attrib_defaults;
        let shadow = &mut self.ctx.shadow;
        let limit = (1u32 << self.f.max_attribs.min(16)) - 1;
        let wanted = disabled & defaults.mask & limit;
        // Values already set from these defaults stay set (context state,
        // whatever VAO is bound): a VAO switch checks only the new ones.
        let mut todo = wanted & !self.ctx.attrib_values_done;
        self.ctx.attrib_values_done |= wanted;
        while todo != 0 {
            let i = todo.trailing_zeros() as usize;
            todo &= todo - 1;
            {
                let v = [
                    defaults.values[4 * i],
                    defaults.values[4 * i + 1],
                    defaults.values[4 * i + 2],
                    defaults.values[4 * i + 3],
                ];
                let integer = defaults.integer_mask & (1 << i) != 0;
                if shadow.attrib_values[i] != Some((v, integer)) {
                    // SAFETY: current value of attribute i < MAX_VERTEX_ATTRIBS.
                    unsafe {
                        if integer {
                            gl.vertex_attrib_4_i32(
                                i as u32,
                                v[0] as i32,
                                v[1] as i32,
                                v[2] as i32,
                                v[3] as i32,
                            );
                        } else {
                            let fv = v.map(f32::from_bits);
                            gl.vertex_attrib_4_f32_slice(i as u32, &fv);
                        }
                    }
                    shadow.attrib_values[i] = Some((v, integer));
                }
            }
        }
    }

    /// Bind VAO `target`, moving the element-buffer shadow with it
    /// (ELEMENT_ARRAY_BUFFER is VAO state).
    fn switch_vao(&mut self, target: BoundVao) {
        let c = &mut *self.ctx;
        if c.vaos.bound == target {
            return;
        }
        let vao = match target {
            BoundVao::Cached(k) => match c.vaos.entries.get(&k) {
                Some(e) => Some(e.vao),
                None => return,
            },
            _ => c.vao,
        };
        let eb = c.shadow.element_buffer;
        match c.vaos.bound {
            BoundVao::Context => c.vaos.context_element_buffer = eb,
            BoundVao::Cached(k) => {
                if let Some(e) = c.vaos.entries.get_mut(&k) {
                    e.element_buffer = eb;
                }
            }
            BoundVao::Unknown => {}
        }
        // SAFETY: `vao` is this context's (its own or a cached one).
        unsafe { self.gl.bind_vertex_array(vao) };
        c.shadow.element_buffer = match target {
            BoundVao::Cached(k) => c.vaos.entries.get(&k).and_then(|e| e.element_buffer),
            _ => c.vaos.context_element_buffer,
        };
        c.vaos.bound = target;
        c.vaos.applied = false;
    }

    /// A stale cache (a buffer or vertex-elements CSO it may name is gone)
    /// is emptied here, where the context is current.
    #[inline]
    fn collect_vaos(&mut self) {
        if self.ctx.vaos.stale {
            self.collect_stale_vaos();
        }
    }

    #[cold]
    fn collect_stale_vaos(&mut self) {
        self.switch_vao(BoundVao::Context);
        let c = &mut *self.ctx;
        // A saved element binding may name a deleted buffer.
        c.shadow.element_buffer = None;
        c.vaos.context_element_buffer = None;
        c.vaos.stale = false;
        for (_, e) in c.vaos.entries.drain() {
            // SAFETY: a VAO of this context, not the bound one.
            unsafe { self.gl.delete_vertex_array(e.vao) };
        }
    }

    /// Draw with the cached VAO of the current layout (built on first use);
    /// false when this draw must use the context's VAO (piecewise vertex
    /// state, base-instance emulation, unresolved attributes, cache full,
    /// or the cache is off).
    #[inline]
    fn bind_cached_vertex_input(&mut self, base_instance: u32) -> bool {
        let Some(key) = self.ctx.layout else {
            return false;
        };
        if !self.f.vao_cache || base_instance != 0 || !self.ctx.f64_inputs.is_empty() {
            return false;
        }
        if self.ctx.vaos.bound == BoundVao::Cached(key) && self.ctx.vaos.applied {
            return true;
        }
        self.switch_cached_vertex_input(key)
    }

    /// [`Cx::bind_cached_vertex_input`] when the layout's VAO is not the
    /// one bound and applied.
    fn switch_cached_vertex_input(&mut self, key: u64) -> bool {
        let want = BoundVao::Cached(key);
        let c = &*self.ctx;
        let enabled = match c.vaos.entries.get(&key) {
            Some(e)
                if e.elements == c.vertex_elements && same_vertex_buffers(&e.vbufs, &c.vbufs) =>
            {
                let enabled = e.enabled_mask;
                self.switch_vao(want);
                enabled
            }
            // A key collision: this layout is not cached.
            Some(_) => return false,
            None => match self.build_vao(key) {
                Some(enabled) => enabled,
                None => return false,
            },
        };
        self.apply_attrib_values(!enabled & 0xffff);
        self.ctx.vaos.applied = true;
        true
    }

    /// A new VAO for the current layout under `key`, its attributes
    /// specified, left bound; its enabled mask, or None (nothing kept).
    fn build_vao(&mut self, key: u64) -> Option<u32> {
        if self.ctx.vaos.entries.len() >= MAX_CACHED_VAOS {
            return None;
        }
        let enabled_mask = self
            .scr
            .vertex_elements
            .get(self.ctx.vertex_elements)
            .map_or(0, |ve| ve.enabled_mask);
        // SAFETY: a new VAO of the current context.
        let vao = unsafe { self.gl.create_vertex_array() }.ok()?;
        self.ctx.vaos.entries.insert(
            key,
            VaoEntry {
                vao,
                elements: self.ctx.vertex_elements,
                vbufs: self.ctx.vbufs,
                // A new VAO has no element buffer and every array disabled.
                element_buffer: Some(None),
                enabled_mask,
            },
        );
        self.switch_vao(BoundVao::Cached(key));
        // The shadow's attribute arrays describe the context's VAO: set them
        // aside while the new one is specified from scratch.
        let saved = std::mem::replace(&mut self.ctx.shadow.attribs, [Some(None); 16]);
        let (resolved, _) = self.apply_vertex_arrays(0);
        self.ctx.shadow.attribs = saved;
        if !resolved {
            self.switch_vao(BoundVao::Context);
            self.ctx.vaos.entries.remove(&key);
            // SAFETY: the VAO just created, no longer bound.
            unsafe { self.gl.delete_vertex_array(vao) };
            return None;
        }
        Some(enabled_mask)
    }

    /// Upload client indices into the streaming index buffer; returns the
    /// byte offset to draw from (ELEMENT_ARRAY_BUFFER left bound to it).
    fn stream_indices(&mut self, data: &[u8]) -> Option<usize> {
        let gl = self.gl;
        let st = &mut self.ctx.stream;
        if data.len() as u64 > MAX_BUFFER {
            return None;
        }
        let buf = match st.buf {
            Some(b) => b,
            None => {
                // SAFETY: object creation on the current context.
                let b = unsafe { gl.create_buffer() }.ok()?;
                st.buf = Some(b);
                st.cap = 0;
                b
            }
        };
        self.ctx.shadow.bind_element_buffer(gl, Some(buf));
        let st = &mut self.ctx.stream;
        let mut at = (st.cursor + 3) & !3;
        // SAFETY: the streaming buffer is bound to ELEMENT_ARRAY_BUFFER; sizes checked.
        unsafe {
            if at + data.len() > st.cap {
                let cap = data
                    .len()
                    .max(st.cap)
                    .max(64 * 1024)
                    .min(MAX_BUFFER as usize);
                gl.buffer_data_size(glow::ELEMENT_ARRAY_BUFFER, cap as i32, glow::STREAM_DRAW);
                st.cap = cap;
                at = 0;
            }
            gl.buffer_sub_data_u8_slice(glow::ELEMENT_ARRAY_BUFFER, at as i32, data);
        }
        st.cursor = at + data.len();
        Some(at)
    }
}

impl Ox<'_> {
    /// The texture named by `res` bound for editing, with its binding target
    /// fixed by `image_target` on first use.
    fn edit_texture(
        &mut self,
        res: Handle,
        image_target: u32,
        call: &'static str,
    ) -> Option<(glow::Texture, u32, u32)> {
        let Some(ResKind::Texture {
            tex,
            target,
            internal,
            ..
        }) = self.scr.resources.get_mut(res).map(|r| &mut r.kind)
        else {
            warn!(?res, call, "unknown texture resource, skipped");
            return None;
        };
        let Some(bind) = emulation::binding_target(image_target) else {
            warn!(
                ?res,
                call,
                target = image_target,
                "texture target has no GLES equivalent, skipped"
            );
            return None;
        };
        if *target == 0 {
            *target = bind;
        } else if *target != bind {
            warn!(
                ?res,
                call,
                target = image_target,
                "target does not match the texture's, skipped"
            );
            return None;
        }
        let (tex, internal) = (*tex, *internal);
        self.shadow.bind_texture(self.gl, bind, Some(tex));
        Some((tex, bind, internal))
    }

    fn set_internal(&mut self, res: Handle, sized: u32, without_alpha: bool) {
        if let Some(ResKind::Texture {
            internal,
            alpha_one,
            ..
        }) = self.scr.resources.get_mut(res).map(|r| &mut r.kind)
        {
            *internal = sized;
            *alpha_one = without_alpha;
        }
    }
}

/// Client pixels made acceptable to GLES for `internal`: (format, type, bytes).
/// The driver's glReadPixels of `p`'s rectangle into `dst`, with errors
/// left by earlier (unchecked) calls drained first, so that a GL error
/// after the read is this read's: then `dst` is zeroed.
///
/// # Safety
/// A context is current with the read framebuffer and tight pack state
/// bound, and `dst` holds `p.width * p.height` pixels of (format, type).
unsafe fn read_checked(
    gl: &glow::Context,
    read: crate::state::ReadPixelsFn,
    p: &calls::ReadPixels,
    dst: &mut [u8],
) {
    // SAFETY: the caller's contract.
    unsafe {
        for _ in 0..8 {
            if gl.get_error() == glow::NO_ERROR {
                break;
            }
        }
        read(
            p.x,
            p.y,
            p.width as i32,
            p.height as i32,
            p.format,
            p.r#type,
            dst.as_mut_ptr().cast(),
        );
        let e = gl.get_error();
        if e != glow::NO_ERROR {
            dst.fill(0);
            warn!("read_pixels: GL error 0x{e:04X}, zeros returned");
        }
    }
}

fn upload_data<'b>(
    blob: &'b [u8],
    internal: u32,
    canon: impl FnOnce() -> (u32, u32),
    format: u32,
    ty: u32,
    extent: (u32, u32, u32),
    what: &str,
) -> Result<(u32, u32, std::borrow::Cow<'b, [u8]>), ()> {
    let Some(size) = emulation::image_size(format, ty, extent.0, extent.1, extent.2) else {
        warn!(what, format, ty, "unknown client format/type pair, skipped");
        return Err(());
    };
    if blob.len() < size {
        warn!(
            what,
            blob = blob.len(),
            expected = size,
            "pixel blob too short, skipped"
        );
        return Err(());
    }
    if internal == 0 || emulation::upload_accepted(internal, format, ty) {
        return Ok((format, ty, std::borrow::Cow::Borrowed(&blob[..size])));
    }
    let pixels = extent.0 as usize * extent.1 as usize * extent.2.max(1) as usize;
    // Only a conversion needs the storage's canonical pair.
    let canon = canon();
    match emulation::convert(blob, format, ty, canon.0, canon.1, pixels) {
        Some(v) => {
            debug!(
                what,
                format,
                ty,
                to_format = canon.0,
                to_type = canon.1,
                "pixels converted on the CPU"
            );
            Ok((canon.0, canon.1, std::borrow::Cow::Owned(v)))
        }
        None => {
            warn!(
                what,
                format,
                ty,
                internal,
                "no conversion from this format/type for the texture's format, skipped"
            );
            Err(())
        }
    }
}

/// How a `texture_subimage` blob reaches the driver.
enum StridedUpload<'b> {
    /// Rows `row_length` pixels apart, read in place: the first `len`
    /// bytes of the blob.
    InPlace { row_length: i32, len: usize },
    /// Tight rows (the blob itself, or gathered from its stride).
    Tight(std::borrow::Cow<'b, [u8]>),
}

/// Err: the record's stride or blob do not describe its box.
fn strided_upload<'b>(
    blob: &'b [u8],
    p: &calls::TextureSubimage,
    internal: u32,
) -> Result<StridedUpload<'b>, ()> {
    if p.row_stride == 0 {
        return Ok(StridedUpload::Tight(std::borrow::Cow::Borrowed(blob)));
    }
    let bpp = mgpipe::pixels::bytes_per_pixel(p.format, p.r#type).ok_or(())?;
    let row_bytes = (p.width as usize).checked_mul(bpp).ok_or(())?;
    let rows = (p.height as usize)
        .checked_mul(p.depth.max(1) as usize)
        .ok_or(())?;
    let stride = p.row_stride as usize;
    let in_place = p.depth <= 1
        && stride >= row_bytes
        && stride.is_multiple_of(bpp)
        && (internal == 0 || emulation::upload_accepted(internal, p.format, p.r#type));
    if in_place {
        let len = mgpipe::pixels::strided_len(stride, row_bytes, rows).ok_or(())?;
        let row_length = i32::try_from(stride / bpp).map_err(|_| ())?;
        if len <= blob.len() {
            return Ok(StridedUpload::InPlace { row_length, len });
        }
        return Err(());
    }
    mgpipe::pixels::tight_rows(blob, stride, row_bytes, rows)
        .map(StridedUpload::Tight)
        .ok_or(())
}

/// glTexSubImage2D/3D of `data` into the texture bound to `bind`.
///
/// # Safety
/// A texture is bound to `bind`; `data` holds the box under the current
/// unpack state.
#[allow(clippy::too_many_arguments)]
unsafe fn sub_image(
    gl: &glow::Context,
    bind: u32,
    img_target: u32,
    level: u32,
    (x, y, z): (i32, i32, i32),
    (w, h, d): (u32, u32, u32),
    (format, ty): (u32, u32),
    data: &[u8],
) {
    let px = glow::PixelUnpackData::Slice(Some(data));
    // SAFETY: the caller's promise.
    unsafe {
        if emulation::is_3d_target(bind) {
            gl.tex_sub_image_3d(
                img_target,
                level as i32,
                x,
                y,
                z,
                w as i32,
                h as i32,
                d as i32,
                format,
                ty,
                px,
            );
        } else {
            gl.tex_sub_image_2d(
                img_target,
                level as i32,
                x,
                y,
                w as i32,
                h as i32,
                format,
                ty,
                px,
            );
        }
    }
}

/// Canonical upload pair of a GLES sized format.
fn canonical(internal: u32, norm16: bool) -> (u32, u32) {
    let sf = emulation::storage_format(internal, norm16);
    (sf.format, sf.ty)
}

impl GlesBackend {
    /// Everything a draw needs before the driver call: the program, uniform
    /// buffers, textures, vertex state (when changed) and the draw
    /// framebuffer. None (logged) when the draw cannot run.
    /// The driver's own glReadPixels for the current context (resolved
    /// once per context): reads straight into caller memory, where glow's
    /// wrapper wants a slice it bounds itself.
    fn read_pixels_fn(&mut self) -> Option<crate::state::ReadPixelsFn> {
        let c = self.current.and_then(|h| self.ctxs.get_mut(h))?;
        if c.shadow.read_pixels_fn.is_none() {
            let f = self.egl.proc_address("glReadPixels");
            // SAFETY: the driver's glReadPixels, whose C signature
            // ReadPixelsFn spells out; checked not null.
            c.shadow.read_pixels_fn = (!f.is_null()).then(|| unsafe {
                std::mem::transmute::<*const std::ffi::c_void, crate::state::ReadPixelsFn>(f)
            });
        }
        c.shadow.read_pixels_fn
    }

    fn draw_setup(&mut self, call: &'static str, mode: u32, base_instance: u32) -> Option<Cx<'_>> {
        if mode > glow::PATCHES {
            warn!(
                mode,
                call, "primitive mode not in GLES (quads/polygon?), skipped"
            );
            return None;
        }
        let mut cx = self.program_setup(call, false)?;
        cx.collect_vaos();
        if !cx.bind_cached_vertex_input(base_instance) {
            cx.switch_vao(BoundVao::Context);
            if cx.ctx.shadow.vertex_applied != Some(base_instance)
                && cx.apply_vertex_state(base_instance)
            {
                cx.ctx.shadow.vertex_applied = Some(base_instance);
            }
        }
        cx.bind_draw();
        cx.xfb_before_draw();
        Some(cx)
    }

    /// The bound program and every binding it reads, for a draw
    /// (`compute` false: a compute program is refused) or a dispatch (true:
    /// only a compute program): uniform buffers, the default uniform block,
    /// textures and samplers, storage buffers and images (textures promoted
    /// for image units first, images.rs). None (logged) when it cannot run.
    fn program_setup(&mut self, call: &'static str, compute: bool) -> Option<Cx<'_>> {
        // Textures are promoted only for a program that will run.
        let runs = self
            .current
            .and_then(|h| self.ctxs.get(h))
            .and_then(|c| self.scr.shaders.get(c.shader))
            .is_some_and(|sh| sh.program.is_some() && sh.is_compute == compute);
        if runs {
            self.prepare_images(call);
        }
        let mut cx = self.cx(call)?;
        let gl = cx.gl;
        let ScreenTables {
            shaders,
            uniform_stream,
            samplers,
            biased_samplers,
            ..
        } = &mut *cx.scr;
        let Some(sh) = shaders.get_mut(cx.ctx.shader) else {
            warn!(shader = ?cx.ctx.shader, call, "no valid shader bound, skipped");
            return None;
        };
        let Some(program) = sh.program else {
            debug!(shader = ?cx.ctx.shader, call, "shader failed to build, skipped");
            return None;
        };
        if sh.is_compute != compute {
            if compute {
                warn!(shader = ?cx.ctx.shader, call, "bound shader is not a compute shader, skipped");
            } else {
                warn!(shader = ?cx.ctx.shader, call, "compute shader bound, skipped");
            }
            return None;
        }
        let global = match (uniform_stream.as_mut(), sh.global_data.is_empty()) {
            (Some(stream), false) => {
                // Written again when an orphaning took the last placement.
                if !sh.global_at.is_some_and(|at| stream.is_current(at)) {
                    sh.global_at = stream.push(gl, &sh.global_data);
                }
                sh.global_at.map(|at| (stream.buffer, at.offset))
            }
            _ => sh.global_ubo.map(|b| (b, 0)),
        };
        let (gb, gs) = (sh.global_binding, sh.global_size);
        // Emulation: sampler LOD bias (sampling.rs). Skipped unless some
        // live sampler has a bias and the program samples with an LOD.
        let program = if *biased_samplers > 0 && sh.lod_units != 0 {
            let sams = &cx.ctx.samplers;
            let n = (sams.count as usize).min(sams.samplers.len()).min(32);
            let mut bias = [0.0f32; 32];
            for (unit, b) in bias.iter_mut().enumerate().take(n) {
                if sh.lod_units & (1 << unit) != 0 {
                    if let Some(s) = samplers.get(sams.samplers[unit]) {
                        *b = s.lod_bias;
                    }
                }
            }
            if bias.iter().any(|&b| b != 0.0) {
                lod_variant(gl, cx.ctx.shader, sh, &bias).unwrap_or(program)
            } else {
                program
            }
        } else {
            program
        };
        cx.ctx.shadow.use_program(gl, Some(program));
        cx.apply_uniform_buffers(gb, gs, global);
        cx.apply_textures();
        cx.apply_storage_buffers();
        cx.apply_images();
        Some(cx)
    }

    /// After a draw or dispatch that may have written storage buffers: the
    /// client learns of writes into persistently mapped ranges, as after
    /// `buffer_copy`.
    fn report_storage_writes(&mut self) {
        if self.persistent.is_empty() {
            return;
        }
        let Some(ctx) = self.current.and_then(|h| self.ctxs.get(h)) else {
            return;
        };
        let sb = ctx.sbufs;
        let n = (sb.count as usize)
            .min(sb.buffers.len())
            .min(self.features.max_ssbo_bindings);
        for i in 0..n {
            let h = sb.buffers[i];
            let Some((_, size)) = buffer_of(&self.scr, h) else {
                continue;
            };
            let off = sb.offsets[i];
            let len = if sb.sizes[i] == 0 {
                size.saturating_sub(off)
            } else {
                sb.sizes[i]
            };
            self.report_gpu_write(h, off, len);
        }
    }

    /// `multi_draw`: one driver multi-draw where GLES has one
    /// (EXT_multi_draw_arrays, EXT_draw_elements_base_vertex), else the
    /// ranges one by one. Every range is checked before anything is drawn.
    fn multi_draw_ranges(&mut self, p: &calls::MultiDraw, blob: &[u8]) {
        let Some(ranges) = mgpipe::wire::multi_draw_ranges(blob, p.draw_count) else {
            warn!(
                draw_count = p.draw_count,
                blob = blob.len(),
                "multi_draw: blob is not draw_count ranges, skipped"
            );
            return;
        };
        if ranges.is_empty() {
            return;
        }
        let ty = match p.index_size {
            0 => 0,
            1 => glow::UNSIGNED_BYTE,
            2 => glow::UNSIGNED_SHORT,
            4 => glow::UNSIGNED_INT,
            s => {
                warn!(index_size = s, "multi_draw: bad index size, skipped");
                return;
            }
        };
        let in_limits = ranges
            .iter()
            .all(|r| r.start <= i32::MAX as u64 && r.count <= i32::MAX as u32);
        if !in_limits {
            warn!("multi_draw: a range beyond GLES limits, skipped");
            return;
        }
        let fns = self.multi_draw_fns;
        let gles32 = self.features.gles32;
        let Some(cx) = self.draw_setup("multi_draw", p.mode, 0) else {
            return;
        };
        let gl = cx.gl;
        let counts: Vec<i32> = ranges.iter().map(|r| r.count as i32).collect();
        let n = ranges.len() as i32;
        if ty == 0 {
            let firsts: Vec<i32> = ranges.iter().map(|r| r.start as i32).collect();
            // SAFETY: arrays draws with the validated state above; the
            // pointers are to `n` entries each, alive for the call.
            unsafe {
                match fns.arrays {
                    Some(f) => f(p.mode, firsts.as_ptr(), counts.as_ptr(), n),
                    None => {
                        for (f, c) in firsts.iter().zip(&counts) {
                            gl.draw_arrays(p.mode, *f, *c);
                        }
                    }
                }
            }
        } else {
            let ib = cx.ctx.index_buffer;
            let Some((buf, size)) = buffer_of(cx.scr, ib) else {
                warn!(buffer = ?ib, "multi_draw: no valid index buffer, skipped");
                return;
            };
            let isize_ = u64::from(p.index_size);
            let fits = ranges.iter().all(|r| {
                r.start
                    .checked_add(u64::from(r.count) * isize_)
                    .is_some_and(|end| end <= size)
            });
            if !fits {
                warn!(buffer = ?ib, size, "multi_draw: indices past the end of the index buffer, skipped");
                return;
            }
            cx.ctx.shadow.bind_element_buffer(gl, Some(buf));
            let offsets: Vec<*const std::ffi::c_void> = ranges
                .iter()
                .map(|r| r.start as usize as *const _)
                .collect();
            let bases: Vec<i32> = ranges.iter().map(|r| r.base_vertex).collect();
            let any_base = bases.iter().any(|b| *b != 0);
            // SAFETY: indexed draws from the bound ELEMENT_ARRAY_BUFFER, every
            // range checked above; the arrays hold `n` entries each.
            unsafe {
                match (fns.elements_base_vertex, fns.elements) {
                    (Some(f), _) => f(
                        p.mode,
                        counts.as_ptr(),
                        ty,
                        offsets.as_ptr(),
                        n,
                        bases.as_ptr(),
                    ),
                    (None, Some(f)) if !any_base => {
                        f(p.mode, counts.as_ptr(), ty, offsets.as_ptr(), n)
                    }
                    _ => {
                        for ((c, o), b) in counts.iter().zip(&ranges).zip(&bases) {
                            let off = o.start as i32;
                            if *b != 0 && gles32 {
                                gl.draw_elements_base_vertex(p.mode, *c, ty, off, *b);
                            } else {
                                gl.draw_elements(p.mode, *c, ty, off);
                            }
                        }
                    }
                }
            }
        }
        self.check("multi_draw");
        self.report_storage_writes();
    }
}

impl Context for GlesBackend {
    // ------------------------------------------------------------ objects

    fn buffer_respecify(&mut self, p: &calls::BufferRespecify, blob: &[u8]) {
        let o = self.ox();
        let Some(ResKind::Buffer { buf, size }) =
            o.scr.resources.get_mut(p.res).map(|r| &mut r.kind)
        else {
            warn!(res = ?p.res, "buffer_respecify: unknown buffer, skipped");
            return;
        };
        if p.size > MAX_BUFFER {
            warn!(res = ?p.res, size = p.size, "buffer_respecify: size beyond GLES limits, skipped");
            return;
        }
        let n = p.size as usize;
        // SAFETY: a live buffer bound to COPY_WRITE_BUFFER; lengths checked.
        unsafe {
            o.gl.bind_buffer(glow::COPY_WRITE_BUFFER, Some(*buf));
            let usage = emulation::buffer_usage(p.usage);
            if blob.len() >= n && n > 0 {
                o.gl.buffer_data_u8_slice(glow::COPY_WRITE_BUFFER, &blob[..n], usage);
            } else {
                o.gl.buffer_data_size(glow::COPY_WRITE_BUFFER, n as i32, usage);
                if !blob.is_empty() {
                    warn!(res = ?p.res, blob = blob.len(), size = n, "buffer_respecify: short blob, uploaded what came");
                    o.gl.buffer_sub_data_u8_slice(
                        glow::COPY_WRITE_BUFFER,
                        0,
                        &blob[..blob.len().min(n)],
                    );
                }
            }
        }
        *size = p.size;
        self.check_alloc(mgpipe::Opcode::BufferRespecify);
    }

    fn buffer_subdata(&mut self, p: &calls::BufferSubdata, blob: &[u8]) {
        let o = self.ox();
        let Some((buf, size)) = buffer_of(o.scr, p.res) else {
            warn!(res = ?p.res, "buffer_subdata: unknown buffer, skipped");
            return;
        };
        if p.offset
            .checked_add(blob.len() as u64)
            .is_none_or(|end| end > size)
        {
            warn!(res = ?p.res, offset = p.offset, len = blob.len(), size, "buffer_subdata: range past the end, skipped");
            return;
        }
        if blob.is_empty() {
            return;
        }
        // SAFETY: live buffer, range checked against its size.
        unsafe {
            o.gl.bind_buffer(glow::COPY_WRITE_BUFFER, Some(buf));
            o.gl.buffer_sub_data_u8_slice(glow::COPY_WRITE_BUFFER, p.offset as i32, blob);
        }
        self.check("buffer_subdata");
    }

    fn buffer_copy(&mut self, p: &calls::BufferCopy) {
        let o = self.ox();
        let (Some((src, ss)), Some((dst, ds))) = (buffer_of(o.scr, p.src), buffer_of(o.scr, p.dst))
        else {
            warn!(src = ?p.src, dst = ?p.dst, "buffer_copy: unknown buffer, skipped");
            return;
        };
        let ok = |off: u64, size: u64| off.checked_add(p.size).is_some_and(|e| e <= size);
        if !ok(p.src_offset, ss) || !ok(p.dst_offset, ds) {
            warn!(src = ?p.src, dst = ?p.dst, "buffer_copy: range past the end, skipped");
            return;
        }
        // SAFETY: live buffers, ranges checked.
        unsafe {
            o.gl.bind_buffer(glow::COPY_READ_BUFFER, Some(src));
            o.gl.bind_buffer(glow::COPY_WRITE_BUFFER, Some(dst));
            o.gl.copy_buffer_sub_data(
                glow::COPY_READ_BUFFER,
                glow::COPY_WRITE_BUFFER,
                p.src_offset as i32,
                p.dst_offset as i32,
                p.size as i32,
            );
        }
        self.check("buffer_copy");
        if !self.persistent.is_empty() {
            self.report_gpu_write(p.dst, p.dst_offset, p.size);
        }
    }

    fn texture_image(&mut self, p: &calls::TextureImage, blob: &[u8]) {
        // A texture the backend made immutable for an image unit: glTexSubImage
        // where the image fits its storage, else mutable again (images.rs).
        if let Some(pr) = self.promoted(p.res) {
            self.prepare();
            if self.texture_image_on_promoted(p, blob, pr) {
                return;
            }
        }
        let mut o = self.ox();
        let Some((img_target, [w, h, d])) =
            emulation::image_target_and_extent(p.target, p.width, p.height, p.depth)
        else {
            warn!(res = ?p.res, target = p.target, "texture_image: target has no GLES equivalent, skipped");
            return;
        };
        let sf = emulation::storage_format(p.internal_format, o.f.norm16);
        if let Some(why) = sf.emulation {
            debug!(res = ?p.res, format = p.internal_format, why, "texture format emulated");
        }
        let Some((_, bind, _)) = o.edit_texture(p.res, img_target, "texture_image") else {
            return;
        };
        let (format, ty, data) = if blob.is_empty() {
            (sf.format, sf.ty, None)
        } else {
            match upload_data(
                blob,
                sf.internal,
                || (sf.format, sf.ty),
                p.format,
                p.r#type,
                (p.width, p.height, p.depth),
                "texture_image",
            ) {
                Ok((f, t, d)) => (f, t, Some(d)),
                Err(()) => return,
            }
        };
        if img_target == glow::TEXTURE_2D_ARRAY && h == 1 {
            // Emulation: Mesa sizes a mutable 2D array of height 1 (a
            // desktop 1D array) for one level while the texture object has
            // its default minification filter, and then refuses to render
            // into any of its levels (FRAMEBUFFER_UNSUPPORTED). Another
            // mipmap filter on the texture object makes it allocate the
            // whole chain; sampling goes through sampler objects, so this
            // filter is never the one that samples.
            // SAFETY: a parameter of the texture bound to `bind`.
            unsafe {
                o.gl.tex_parameter_i32(
                    bind,
                    glow::TEXTURE_MIN_FILTER,
                    glow::LINEAR_MIPMAP_NEAREST as i32,
                )
            };
        }
        let px = glow::PixelUnpackData::Slice(data.as_deref());
        // SAFETY: the texture is bound to `bind`; the data slice holds the
        // full tight image (checked) and UNPACK_ALIGNMENT is 1.
        unsafe {
            if emulation::is_3d_target(bind) {
                o.gl.tex_image_3d(
                    img_target,
                    p.level as i32,
                    sf.internal as i32,
                    w as i32,
                    h as i32,
                    d as i32,
                    0,
                    format,
                    ty,
                    px,
                );
            } else {
                o.gl.tex_image_2d(
                    img_target,
                    p.level as i32,
                    sf.internal as i32,
                    w as i32,
                    h as i32,
                    0,
                    format,
                    ty,
                    px,
                );
            }
        }
        o.set_internal(p.res, sf.internal, sf.alpha_one);
        self.check_alloc(mgpipe::Opcode::TextureImage);
    }

    fn texture_subimage(&mut self, p: &calls::TextureSubimage, blob: &[u8]) {
        let mut o = self.ox();
        let norm16 = o.f.norm16;
        let Some((img_target, [w, h, d])) =
            emulation::image_target_and_extent(p.target, p.width, p.height, p.depth)
        else {
            warn!(res = ?p.res, target = p.target, "texture_subimage: target has no GLES equivalent, skipped");
            return;
        };
        // 1D arrays: the layer is y.
        let (x, y, z) = match p.target {
            glow::TEXTURE_1D => (p.x, 0, 0),
            glow::TEXTURE_1D_ARRAY => (p.x, 0, p.y),
            _ => (p.x, p.y, p.z),
        };
        let Some((_, bind, internal)) = o.edit_texture(p.res, img_target, "texture_subimage")
        else {
            return;
        };
        // Strided rows (monolith passes the application's own): the driver
        // reads them in place through UNPACK_ROW_LENGTH when it takes the
        // pair as it is; anything else is made tight first.
        let tight = match strided_upload(blob, p, internal) {
            Ok(StridedUpload::InPlace { row_length, len }) => {
                if let Some(data) = blob.get(..len) {
                    // SAFETY: texture bound to `bind`; `data` spans every row
                    // at the stride the row length gives (alignment is 1).
                    unsafe {
                        o.gl.pixel_store_i32(glow::UNPACK_ROW_LENGTH, row_length);
                        sub_image(
                            o.gl,
                            bind,
                            img_target,
                            p.level,
                            (x, y, z),
                            (w, h, d),
                            (p.format, p.r#type),
                            data,
                        );
                        o.gl.pixel_store_i32(glow::UNPACK_ROW_LENGTH, 0);
                    }
                }
                self.check("texture_subimage");
                return;
            }
            Ok(StridedUpload::Tight(t)) => t,
            Err(()) => {
                warn!(res = ?p.res, row_stride = p.row_stride, blob = blob.len(), "texture_subimage: strided rows do not fit the blob, skipped");
                return;
            }
        };
        let (format, ty, data) = match upload_data(
            &tight,
            internal,
            || canonical(internal, norm16),
            p.format,
            p.r#type,
            (p.width, p.height, p.depth),
            "texture_subimage",
        ) {
            Ok(v) => v,
            Err(()) => return,
        };
        // SAFETY: texture bound to `bind`; data holds the full tight box.
        unsafe {
            sub_image(
                o.gl,
                bind,
                img_target,
                p.level,
                (x, y, z),
                (w, h, d),
                (format, ty),
                &data,
            )
        };
        self.check("texture_subimage");
    }

    fn texture_storage(&mut self, p: &calls::TextureStorage) {
        self.before_texture_storage(p.res);
        let mut o = self.ox();
        let Some((img_target, [w, h, d])) =
            emulation::image_target_and_extent(p.target, p.width, p.height, p.depth)
        else {
            warn!(res = ?p.res, target = p.target, "texture_storage: target has no GLES equivalent, skipped");
            return;
        };
        let sf = emulation::storage_format(p.internal_format, o.f.norm16);
        let samples = match o.scr.resources.get(p.res).map(|r| &r.kind) {
            Some(ResKind::Texture { samples, .. }) => (*samples).max(1),
            _ => 1,
        };
        let Some((_, bind, _)) = o.edit_texture(p.res, img_target, "texture_storage") else {
            return;
        };
        let levels = p.levels.clamp(1, 32) as i32;
        // SAFETY: texture bound to `bind`; bad sizes only raise GL errors.
        unsafe {
            match bind {
                glow::TEXTURE_2D_MULTISAMPLE if o.f.gles31 => o.gl.tex_storage_2d_multisample(
                    bind,
                    samples as i32,
                    sf.internal,
                    w as i32,
                    h as i32,
                    true,
                ),
                glow::TEXTURE_2D_MULTISAMPLE_ARRAY
                    if o.f.fns.tex_storage_3d_multisample.is_some() =>
                {
                    if let Some(f) = o.f.fns.tex_storage_3d_multisample {
                        f(
                            bind,
                            samples as i32,
                            sf.internal,
                            w as i32,
                            h as i32,
                            d as i32,
                            1,
                        )
                    }
                }
                glow::TEXTURE_2D_MULTISAMPLE | glow::TEXTURE_2D_MULTISAMPLE_ARRAY => {
                    warn!(res = ?p.res, "texture_storage: multisample texture target not supported here, skipped");
                    return;
                }
                b if emulation::is_3d_target(b) => {
                    o.gl.tex_storage_3d(bind, levels, sf.internal, w as i32, h as i32, d as i32)
                }
                _ => {
                    o.gl.tex_storage_2d(bind, levels, sf.internal, w as i32, h as i32)
                }
            }
        }
        o.set_internal(p.res, sf.internal, sf.alpha_one);
        if let Some(ResKind::Texture { storage, .. }) =
            o.scr.resources.get_mut(p.res).map(|r| &mut r.kind)
        {
            *storage = TexStorage::Immutable;
        }
        self.check_alloc(mgpipe::Opcode::TextureStorage);
    }

    fn generate_mipmap(&mut self, p: &calls::GenerateMipmap) {
        self.before_generate_mipmap(p.res);
        let mut o = self.ox();
        let Some((_, bind, _)) = o.edit_texture(
            p.res,
            if p.target == 0 {
                glow::TEXTURE_2D
            } else {
                p.target
            },
            "generate_mipmap",
        ) else {
            return;
        };
        // SAFETY: texture bound to `bind`.
        unsafe { o.gl.generate_mipmap(bind) };
        self.check("generate_mipmap");
    }

    fn texture_buffer(&mut self, p: &calls::TextureBuffer) {
        let fns = self.features.fns;
        let buf = if p.buffer.is_null() {
            None
        } else {
            match buffer_of(&self.scr, p.buffer) {
                Some((b, _)) => Some(b),
                None => {
                    warn!(res = ?p.res, buffer = ?p.buffer, "texture_buffer: unknown buffer, skipped");
                    return;
                }
            }
        };
        let (Some(whole), Some(range)) = (fns.tex_buffer, fns.tex_buffer_range) else {
            tracing::error!(res = ?p.res, "texture_buffer: the driver has no glTexBuffer (GLES 3.2), skipped");
            return;
        };
        if p.offset > isize::MAX as u64 || p.size > isize::MAX as u64 {
            warn!(res = ?p.res, "texture_buffer: range beyond the driver's limits, skipped");
            return;
        }
        let mut o = self.ox();
        if o.edit_texture(p.res, glow::TEXTURE_BUFFER, "texture_buffer")
            .is_none()
        {
            return;
        }
        let name = buf.map_or(0, |b| b.0.get());
        // SAFETY: the texture is bound to TEXTURE_BUFFER; `name` is a live
        // buffer object of this context (or 0); bad formats and ranges only
        // raise GL errors.
        unsafe {
            if buf.is_some() && p.size > 0 {
                range(
                    glow::TEXTURE_BUFFER,
                    p.internal_format,
                    name,
                    p.offset as isize,
                    p.size as isize,
                );
            } else {
                whole(glow::TEXTURE_BUFFER, p.internal_format, name);
            }
        }
        o.set_internal(p.res, p.internal_format, false);
        self.check("texture_buffer");
    }

    // ------------------------------------------------------------ CSOs

    fn create_render_state(&mut self, p: &calls::CreateRenderState) {
        if self.scr.render_states.insert(p.cso, *p).is_err() {
            warn!(cso = ?p.cso, "create_render_state: invalid handle, skipped");
        }
    }

    fn bind_render_state(&mut self, p: &calls::BindRenderState) {
        let rs = if p.cso.is_null() {
            default_render_state()
        } else if let Some(rs) = self.scr.render_states.get(p.cso) {
            *rs
        } else {
            warn!(cso = ?p.cso, "bind_render_state: unknown render state, skipped");
            return;
        };
        let Some(cx) = self.cx("bind_render_state") else {
            return;
        };
        cx.ctx
            .shadow
            .apply_render_state(cx.gl, &rs, cx.f.gles32, cx.f.max_draw_buffers, &cx.f.fns);
        cx.ctx.render_state = p.cso;
        self.check("bind_render_state");
    }

    fn delete_render_state(&mut self, p: &calls::DeleteRenderState) {
        if self.scr.render_states.remove(p.cso).is_none() {
            warn!(cso = ?p.cso, "delete_render_state: unknown render state, skipped");
        }
    }

    fn create_vertex_elements(&mut self, p: &calls::CreateVertexElements) {
        match self.scr.vertex_elements.insert(p.cso, *p) {
            Err(_) => warn!(cso = ?p.cso, "create_vertex_elements: invalid handle, skipped"),
            // Redefined under the same handle: cached VAOs may be built from it.
            Ok(Some(_)) => self.drop_cached_vaos(),
            Ok(None) => {}
        }
        self.vertex_input_changed();
    }

    fn bind_vertex_elements(&mut self, p: &calls::BindVertexElements) {
        if !p.cso.is_null() && self.scr.vertex_elements.get(p.cso).is_none() {
            warn!(cso = ?p.cso, "bind_vertex_elements: unknown vertex elements");
        }
        if let Some(ctx) = self.cx_state("bind_vertex_elements") {
            ctx.vertex_elements = p.cso;
            ctx.layout = None;
            ctx.shadow.vertex_applied = None;
        }
    }

    fn create_vertex_input(&mut self, p: &calls::CreateVertexInput) {
        let vi = crate::vao_cache::VertexInput::new(p);
        if self.scr.vertex_inputs.insert(p.cso, vi).is_err() {
            warn!(cso = ?p.cso, "create_vertex_input: invalid handle, skipped");
        }
    }

    /// One record for what bind_vertex_elements + set_vertex_buffers +
    /// set_index_buffer would say.
    fn bind_vertex_input(&mut self, p: &calls::BindVertexInput) {
        // Borrowed, not copied: the CSO is ~350 bytes and this runs per VAO
        // switch (or per index-buffer change, the per-draw UBO pattern).
        let Some(vi) = self.scr.vertex_inputs.get(p.cso) else {
            warn!(cso = ?p.cso, "bind_vertex_input: unknown vertex input, skipped");
            return;
        };
        let Some(ctx) = self.current.and_then(|h| self.ctxs.get_mut(h)) else {
            warn!("bind_vertex_input: no current context, skipped");
            return;
        };
        // Only a different layout or buffer set needs the attributes
        // re-specified; a different index buffer alone does not. The slots
        // past `count` are never read, so they are not compared.
        let same = ctx.vertex_elements == vi.elements && same_vertex_buffers(&ctx.vbufs, &vi.vbufs);
        if !same {
            ctx.vertex_elements = vi.elements;
            ctx.vbufs = vi.vbufs;
            ctx.shadow.vertex_applied = None;
        }
        ctx.layout = Some(vi.layout);
        ctx.index_buffer = vi.index_buffer;
    }

    fn delete_vertex_input(&mut self, p: &calls::DeleteVertexInput) {
        if self.scr.vertex_inputs.remove(p.cso).is_none() {
            warn!(cso = ?p.cso, "delete_vertex_input: unknown vertex input, skipped");
        }
    }

    fn delete_vertex_elements(&mut self, p: &calls::DeleteVertexElements) {
        if self.scr.vertex_elements.remove(p.cso).is_none() {
            warn!(cso = ?p.cso, "delete_vertex_elements: unknown vertex elements, skipped");
        }
        self.drop_cached_vaos();
        self.vertex_input_changed();
    }

    fn create_sampler(&mut self, p: &calls::CreateSampler) {
        self.prepare();
        let gl = &self.gl;
        let or = |v: u32, d: u32| if v == 0 { d } else { v };
        // SAFETY: a new sampler object and its parameters; bad enums only raise GL errors.
        let s = unsafe {
            let Ok(s) = gl.create_sampler() else {
                warn!(cso = ?p.cso, "create_sampler: glGenSamplers failed");
                return;
            };
            gl.sampler_parameter_i32(
                s,
                glow::TEXTURE_MIN_FILTER,
                or(p.min_filter, glow::NEAREST_MIPMAP_LINEAR) as i32,
            );
            gl.sampler_parameter_i32(
                s,
                glow::TEXTURE_MAG_FILTER,
                or(p.mag_filter, glow::LINEAR) as i32,
            );
            gl.sampler_parameter_i32(
                s,
                glow::TEXTURE_WRAP_S,
                emulation::wrap_mode(p.wrap_s) as i32,
            );
            gl.sampler_parameter_i32(
                s,
                glow::TEXTURE_WRAP_T,
                emulation::wrap_mode(p.wrap_t) as i32,
            );
            gl.sampler_parameter_i32(
                s,
                glow::TEXTURE_WRAP_R,
                emulation::wrap_mode(p.wrap_r) as i32,
            );
            gl.sampler_parameter_i32(
                s,
                glow::TEXTURE_COMPARE_MODE,
                or(p.compare_mode, glow::NONE) as i32,
            );
            gl.sampler_parameter_i32(
                s,
                glow::TEXTURE_COMPARE_FUNC,
                or(p.compare_func, glow::LEQUAL) as i32,
            );
            gl.sampler_parameter_f32(s, glow::TEXTURE_MIN_LOD, p.min_lod);
            gl.sampler_parameter_f32(s, glow::TEXTURE_MAX_LOD, p.max_lod);
            if self.features.anisotropy && p.max_anisotropy > 1.0 {
                gl.sampler_parameter_f32(s, glow::TEXTURE_MAX_ANISOTROPY_EXT, p.max_anisotropy);
            }
            if self.features.gles32 && p.border_color != [0.0; 4] {
                gl.sampler_parameter_f32_slice(s, glow::TEXTURE_BORDER_COLOR, &p.border_color);
            }
            s
        };
        // Emulation: GLES has no LOD bias parameter; programs read it
        // from a uniform in a variant (sampling.rs, program_setup).
        let lod_bias = if p.lod_bias.is_finite() {
            p.lod_bias
        } else {
            0.0
        };
        let entry = crate::SamplerEntry {
            sampler: s,
            lod_bias,
        };
        match self.scr.samplers.insert(p.cso, entry) {
            Ok(old) => {
                self.scr.biased_samplers += (lod_bias != 0.0) as u32;
                if let Some(old) = old {
                    self.scr.biased_samplers -= (old.lod_bias != 0.0) as u32;
                    // SAFETY: a sampler of this share group.
                    unsafe { self.gl.delete_sampler(old.sampler) };
                    self.forget_objects();
                }
            }
            Err(e) => {
                warn!(cso = ?p.cso, "create_sampler: invalid handle, skipped");
                // SAFETY: the sampler just created.
                unsafe { self.gl.delete_sampler(e.sampler) };
            }
        }
        self.check("create_sampler");
    }

    fn delete_sampler(&mut self, p: &calls::DeleteSampler) {
        self.prepare();
        match self.scr.samplers.remove(p.cso) {
            Some(s) => {
                self.scr.biased_samplers -= (s.lod_bias != 0.0) as u32;
                // SAFETY: a sampler of this share group.
                unsafe { self.gl.delete_sampler(s.sampler) };
                self.forget_objects();
            }
            None => warn!(cso = ?p.cso, "delete_sampler: unknown sampler, skipped"),
        }
    }

    fn create_sampler_view(&mut self, p: &calls::CreateSamplerView) {
        if self.scr.views.insert(p.cso, *p).is_err() {
            warn!(cso = ?p.cso, "create_sampler_view: invalid handle, skipped");
        }
    }

    fn delete_sampler_view(&mut self, p: &calls::DeleteSamplerView) {
        if self.scr.views.remove(p.cso).is_none() {
            warn!(cso = ?p.cso, "delete_sampler_view: unknown sampler view, skipped");
        }
    }

    fn create_shader(&mut self, p: &calls::CreateShader, blob: &[u8]) {
        self.prepare();
        let mut lod_units = 0;
        let mut lod_stages = None;
        let (program, f64_inputs) = match shader::split_stages(p.stage_mask, &p.stage_words, blob) {
            Ok(stages) => {
                let program = shader::build_program(&self.gl, p.cso, &stages);
                // Emulation: what a sampler LOD bias would change (sampling.rs).
                if program.is_some() {
                    lod_units = stages
                        .iter()
                        .flatten()
                        .fold(0, |m, w| m | crate::sampling::lod_units(w));
                }
                if lod_units != 0 {
                    lod_stages = Some(Box::new(stages.clone()));
                }
                // Emulation: where split 64-bit vertex inputs read (fp64.rs).
                let vs = stages[mgpipe::consts::STAGE_VERTEX].as_deref();
                let f64_inputs = match (program, vs.map(crate::fp64::vertex_inputs)) {
                    (Some(_), Some(Ok(v))) => v,
                    (Some(_), Some(Err(e))) => {
                        tracing::error!(shader = ?p.cso, "create_shader: 64-bit vertex inputs: {e}");
                        Vec::new()
                    }
                    _ => Vec::new(),
                };
                (program, f64_inputs)
            }
            Err(e) => {
                tracing::error!(shader = ?p.cso, "create_shader: bad blob: {e}");
                (None, Vec::new())
            }
        };
        let block = p.global_size > 0 && p.global_size <= 1 << 24;
        let streamed = block && self.scr.uniform_stream.is_some();
        let global_ubo = if block && !streamed {
            // SAFETY: a new buffer sized for the default uniform block.
            unsafe {
                self.gl.create_buffer().ok().inspect(|&b| {
                    self.gl.bind_buffer(glow::COPY_WRITE_BUFFER, Some(b));
                    self.gl.buffer_data_size(
                        glow::COPY_WRITE_BUFFER,
                        p.global_size as i32,
                        glow::DYNAMIC_DRAW,
                    );
                })
            }
        } else {
            None
        };
        let entry = ShaderEntry {
            f64_inputs,
            program,
            global_binding: p.global_binding,
            global_size: p.global_size,
            global_ubo,
            // Streamed blocks start as zeros, like a new UBO's (written at
            // the first draw).
            global_data: if streamed {
                vec![0; p.global_size as usize]
            } else {
                Vec::new()
            },
            global_at: None,
            is_compute: p.stage_mask == 1 << mgpipe::consts::STAGE_COMPUTE,
            lod_units,
            lod_stages,
            lod_variant: None,
        };
        match self.scr.shaders.insert(p.cso, entry) {
            Ok(Some(old)) => {
                self.delete_shader_entry(old);
            }
            Ok(None) => {}
            Err(e) => {
                warn!(shader = ?p.cso, "create_shader: invalid handle, skipped");
                self.delete_shader_entry(e);
            }
        }
        self.check("create_shader");
    }

    fn delete_shader(&mut self, p: &calls::DeleteShader) {
        self.prepare();
        match self.scr.shaders.remove(p.cso) {
            Some(e) => self.delete_shader_entry(e),
            None => warn!(shader = ?p.cso, "delete_shader: unknown shader, skipped"),
        }
    }

    fn bind_shader(&mut self, p: &calls::BindShader) {
        let (program, f64_inputs) = match self.scr.shaders.get(p.cso) {
            Some(s) => (s.program, s.f64_inputs.clone()),
            None if p.cso.is_null() => (None, Vec::new()),
            None => {
                warn!(shader = ?p.cso, "bind_shader: unknown shader (draws will be skipped)");
                (None, Vec::new())
            }
        };
        let Some(cx) = self.cx("bind_shader") else {
            return;
        };
        cx.ctx.shader = p.cso;
        if cx.ctx.f64_inputs != f64_inputs {
            // Emulation: split 64-bit attributes (fp64.rs) map attributes
            // per program: the context VAO is specified again.
            cx.ctx.f64_inputs = f64_inputs;
            cx.ctx.shadow.vertex_applied = None;
        }
        if program.is_some() {
            cx.ctx.shadow.use_program(cx.gl, program);
        }
        self.check("bind_shader");
    }

    // ------------------------------------------------------------ set_*

    fn set_framebuffer_state(&mut self, p: &calls::SetFramebufferState) {
        let Some(mut cx) = self.cx("set_framebuffer_state") else {
            return;
        };
        if p.fbo == Handle::DEFAULT_FRAMEBUFFER || p.fbo.is_null() {
            cx.ctx.draw_default = true;
            cx.bind_draw();
            cx.update_dst_alpha_one();
            return;
        }
        let gl = cx.gl;
        if cx.ctx.fbos.get(p.fbo).is_none() {
            // SAFETY: a new FBO of the current context.
            let Ok(fbo) = (unsafe { gl.create_framebuffer() }) else {
                warn!(fbo = ?p.fbo, "set_framebuffer_state: glGenFramebuffers failed");
                return;
            };
            match cx.ctx.fbos.insert(
                p.fbo,
                FboEntry {
                    fbo,
                    desc: None,
                    active: [false; 8],
                    stale: false,
                },
            ) {
                Ok(Some(old)) => {
                    // SAFETY: this context's FBO for a retired framebuffer handle.
                    unsafe { gl.delete_framebuffer(old.fbo) };
                    cx.ctx.shadow.forget_all_objects();
                }
                Ok(None) => {}
                Err(e) => {
                    warn!(fbo = ?p.fbo, "set_framebuffer_state: invalid handle, skipped");
                    // SAFETY: the FBO just created.
                    unsafe { gl.delete_framebuffer(e.fbo) };
                    return;
                }
            }
        }
        cx.ctx.draw_default = false;
        cx.ctx.draw_fbo = p.fbo;
        let Some(entry) = cx.ctx.fbos.get_mut(p.fbo) else {
            return;
        };
        let fbo = entry.fbo;
        if entry.desc.as_ref() != Some(p) || entry.stale {
            entry.desc = Some(*p);
            entry.stale = false;
            cx.attach_draw_desc(fbo, p);
        }
        cx.ctx.shadow.bind_draw_fb(gl, Some(fbo));
        cx.update_dst_alpha_one();
        self.check("set_framebuffer_state");
    }

    fn set_read_surface(&mut self, p: &calls::SetReadSurface) {
        let Some(mut cx) = self.cx("set_read_surface") else {
            return;
        };
        if p.fbo == Handle::DEFAULT_FRAMEBUFFER || p.fbo.is_null() {
            cx.ctx.read_default = true;
            cx.bind_read();
            return;
        }
        let gl = cx.gl;
        cx.ctx.read_default = false;
        let fbo = match cx.ctx.read_fbo {
            Some(f) => f,
            None => {
                // SAFETY: a new FBO of the current context.
                let Ok(f) = (unsafe { gl.create_framebuffer() }) else {
                    warn!("set_read_surface: glGenFramebuffers failed");
                    return;
                };
                cx.ctx.read_fbo = Some(f);
                f
            }
        };
        cx.ctx.shadow.bind_read_fb(gl, Some(fbo));
        if cx.ctx.read_desc.as_ref() != Some(p) || cx.ctx.read_stale {
            cx.ctx.read_desc = Some(*p);
            cx.ctx.read_stale = false;
            cx.attach_read_desc(p);
        }
        self.check("set_read_surface");
    }

    fn set_viewport(&mut self, p: &calls::SetViewport) {
        let Some(cx) = self.cx("set_viewport") else {
            return;
        };
        cx.ctx.viewport = *p;
        let r = |v: f32| {
            if v.is_finite() {
                v.round().clamp(i32::MIN as f32, i32::MAX as f32) as i32
            } else {
                0
            }
        };
        cx.ctx.shadow.set_viewport(
            cx.gl,
            [r(p.x), r(p.y), r(p.width), r(p.height)],
            [p.near, p.far],
        );
        self.check("set_viewport");
    }

    fn set_scissor(&mut self, p: &calls::SetScissor) {
        let Some(cx) = self.cx("set_scissor") else {
            return;
        };
        let v = [p.x, p.y, p.width.max(0), p.height.max(0)];
        if cx.ctx.shadow.scissor != Some(v) {
            // SAFETY: plain state call.
            unsafe { cx.gl.scissor(v[0], v[1], v[2], v[3]) };
            cx.ctx.shadow.scissor = Some(v);
        }
        self.check("set_scissor");
    }

    fn set_blend_color(&mut self, p: &calls::SetBlendColor) {
        let Some(cx) = self.cx("set_blend_color") else {
            return;
        };
        if cx.ctx.shadow.blend_color != Some(p.color) {
            let c = p.color;
            // SAFETY: plain state call.
            unsafe { cx.gl.blend_color(c[0], c[1], c[2], c[3]) };
            cx.ctx.shadow.blend_color = Some(c);
        }
        self.check("set_blend_color");
    }

    fn set_patch_state(&mut self, p: &calls::SetPatchState) {
        let Some(cx) = self.cx("set_patch_state") else {
            return;
        };
        // GLES 3.2 has no default tessellation levels (a program there
        // always has a control stage); only the patch size is kept.
        if !cx.f.gles32 || !(1..=32).contains(&p.vertices) {
            return;
        }
        if cx.ctx.shadow.patch_vertices != Some(p.vertices) {
            // SAFETY: plain state call (GLES 3.2), value in 1..=32, which
            // GLES 3.2's GL_MAX_PATCH_VERTICES minimum allows.
            unsafe {
                cx.gl
                    .patch_parameter_i32(glow::PATCH_VERTICES, p.vertices as i32)
            };
            cx.ctx.shadow.patch_vertices = Some(p.vertices);
        }
        self.check("set_patch_state");
    }

    fn set_polygon_offset(&mut self, p: &calls::SetPolygonOffset) {
        let Some(cx) = self.cx("set_polygon_offset") else {
            return;
        };
        let v = [p.factor, p.units, p.clamp];
        if cx.ctx.shadow.polygon_offset != Some(v) {
            match cx.f.fns.polygon_offset_clamp {
                // SAFETY: the driver's glPolygonOffsetClampEXT (its
                // extension is listed); plain state call.
                Some(f) => unsafe { f(v[0], v[1], v[2]) },
                None => {
                    if v[2] != 0.0 && v[2].is_finite() {
                        warn!(
                            clamp = v[2],
                            "polygon offset clamp: the driver has no EXT_polygon_offset_clamp; \
                             offset left unclamped"
                        );
                    }
                    // SAFETY: plain state call.
                    unsafe { cx.gl.polygon_offset(v[0], v[1]) }
                }
            }
            cx.ctx.shadow.polygon_offset = Some(v);
        }
        self.check("set_polygon_offset");
    }

    fn set_line_width(&mut self, p: &calls::SetLineWidth) {
        let Some(cx) = self.cx("set_line_width") else {
            return;
        };
        let w = if p.width.is_finite() && p.width > 0.0 {
            p.width
        } else {
            1.0
        };
        if cx.ctx.shadow.line_width != Some(w) {
            // SAFETY: plain state call (the driver clamps to its range).
            unsafe { cx.gl.line_width(w) };
            cx.ctx.shadow.line_width = Some(w);
        }
        self.check("set_line_width");
    }

    fn set_vertex_buffers(&mut self, p: &calls::SetVertexBuffers) {
        if let Some(ctx) = self.cx_state("set_vertex_buffers") {
            ctx.vbufs = *p;
            ctx.layout = None;
            ctx.shadow.vertex_applied = None;
        }
    }

    fn set_index_buffer(&mut self, p: &calls::SetIndexBuffer) {
        if let Some(ctx) = self.cx_state("set_index_buffer") {
            ctx.index_buffer = p.buffer;
        }
    }

    fn set_vertex_attrib_defaults(&mut self, p: &calls::SetVertexAttribDefaults) {
        if let Some(ctx) = self.cx_state("set_vertex_attrib_defaults") {
            ctx.attrib_defaults = *p;
            ctx.attrib_values_done = 0;
            ctx.shadow.vertex_applied = None;
            ctx.vaos.applied = false;
        }
    }

    fn set_sampler_views(&mut self, p: &calls::SetSamplerViews) {
        if let Some(ctx) = self.cx_state("set_sampler_views") {
            ctx.views = *p;
        }
    }

    fn bind_samplers(&mut self, p: &calls::BindSamplers) {
        if let Some(ctx) = self.cx_state("bind_samplers") {
            ctx.samplers = *p;
        }
    }

    fn set_shader_buffers(&mut self, p: &calls::SetShaderBuffers) {
        if let Some(ctx) = self.cx_state("set_shader_buffers") {
            ctx.sbufs = *p;
        }
    }

    fn set_shader_images(&mut self, p: &calls::SetShaderImages) {
        if let Some(ctx) = self.cx_state("set_shader_images") {
            ctx.images = *p;
        }
    }

    fn set_constant_buffers(&mut self, p: &calls::SetConstantBuffers) {
        if let Some(ctx) = self.cx_state("set_constant_buffers") {
            ctx.cbufs = *p;
        }
    }

    fn set_constant_buffer(&mut self, p: &calls::SetConstantBuffer) {
        if let Some(ctx) = self.cx_state("set_constant_buffer") {
            if !mgpipe::wire::apply_constant_buffer(&mut ctx.cbufs, p) {
                warn!(
                    slot = p.slot,
                    "set_constant_buffer: slot out of range, skipped"
                );
            }
        }
    }

    fn set_global_constants(&mut self, p: &calls::SetGlobalConstants, blob: &[u8]) {
        self.prepare();
        let ScreenTables {
            shaders,
            uniform_stream,
            ..
        } = &mut self.scr;
        let Some(sh) = shaders.get_mut(p.shader) else {
            warn!(shader = ?p.shader, "set_global_constants: unknown shader, skipped");
            return;
        };
        if let (Some(stream), false) = (uniform_stream.as_mut(), sh.global_data.is_empty()) {
            let n = blob.len().min(sh.global_data.len());
            if blob.len() != sh.global_data.len() {
                warn!(shader = ?p.shader, blob = blob.len(), size = sh.global_size, "set_global_constants: blob size differs from global_size");
            }
            sh.global_data[..n].copy_from_slice(&blob[..n]);
            sh.global_at = stream.push(&self.gl, &sh.global_data);
            self.check("set_global_constants");
            return;
        }
        let Some(ubo) = sh.global_ubo else {
            if !blob.is_empty() {
                warn!(shader = ?p.shader, "set_global_constants: shader has no default uniform block, skipped");
            }
            return;
        };
        let n = blob.len().min(sh.global_size as usize);
        if blob.len() != sh.global_size as usize {
            warn!(shader = ?p.shader, blob = blob.len(), size = sh.global_size, "set_global_constants: blob size differs from global_size");
        }
        if n == 0 {
            return;
        }
        // SAFETY: the shader's live UBO, n <= its size.
        unsafe {
            self.gl.bind_buffer(glow::COPY_WRITE_BUFFER, Some(ubo));
            self.gl
                .buffer_sub_data_u8_slice(glow::COPY_WRITE_BUFFER, 0, &blob[..n]);
        }
        self.check("set_global_constants");
    }

    // ------------------------------------------------------------ verbs

    fn clear(&mut self, p: &calls::Clear) {
        let Some(mut cx) = self.cx("clear") else {
            return;
        };
        cx.bind_draw();
        let gl = cx.gl;
        let active = cx.active_draw_buffers();
        let clear_color = |i: u32| {
            // SAFETY: clearing draw buffer i (< 8) of the bound draw framebuffer.
            unsafe {
                match p.color_type {
                    CLEAR_FLOAT => {
                        gl.clear_buffer_f32_slice(glow::COLOR, i, &p.color.map(f32::from_bits))
                    }
                    CLEAR_INT => {
                        gl.clear_buffer_i32_slice(glow::COLOR, i, &p.color.map(|v| v as i32))
                    }
                    CLEAR_UINT => gl.clear_buffer_u32_slice(glow::COLOR, i, &p.color),
                    t => warn!(color_type = t, "clear: unknown colour type, skipped"),
                }
            }
        };
        if p.buffers & CLEAR_COLOR_ALL != 0 {
            for (i, _) in active.iter().enumerate().filter(|(_, a)| **a) {
                clear_color(i as u32);
            }
        } else if p.buffers & CLEAR_COLOR_ONE != 0
            && (p.draw_buffer as usize) < 8
            && active[p.draw_buffer as usize]
        {
            clear_color(p.draw_buffer);
        }
        let (d, s) = (p.buffers & CLEAR_DEPTH != 0, p.buffers & CLEAR_STENCIL != 0);
        // SAFETY: clearing depth/stencil of the bound draw framebuffer.
        unsafe {
            match (d, s) {
                (true, true) => {
                    gl.clear_buffer_depth_stencil(glow::DEPTH_STENCIL, 0, p.depth, p.stencil)
                }
                (true, false) => gl.clear_buffer_f32_slice(glow::DEPTH, 0, &[p.depth]),
                (false, true) => gl.clear_buffer_i32_slice(glow::STENCIL, 0, &[p.stencil]),
                (false, false) => {}
            }
        }
        self.check("clear");
    }

    fn draw(&mut self, p: &calls::Draw, blob: &[u8]) {
        if p.count == 0 {
            return;
        }
        if p.count > i32::MAX as u32
            || p.first > i32::MAX as u32
            || p.instance_count > i32::MAX as u32
        {
            warn!(
                count = p.count,
                first = p.first,
                "draw: count beyond GLES limits, skipped"
            );
            return;
        }
        let Some(mut cx) = self.draw_setup("draw", p.mode, p.base_instance) else {
            return;
        };
        let gl = cx.gl;
        let inst = p.instance_count;
        if p.index_size == 0 {
            // SAFETY: arrays draw with the validated state above.
            unsafe {
                if inst <= 1 {
                    gl.draw_arrays(p.mode, p.first as i32, p.count as i32);
                } else {
                    gl.draw_arrays_instanced(p.mode, p.first as i32, p.count as i32, inst as i32);
                }
            }
        } else {
            let ty = match p.index_size {
                1 => glow::UNSIGNED_BYTE,
                2 => glow::UNSIGNED_SHORT,
                4 => glow::UNSIGNED_INT,
                s => {
                    warn!(index_size = s, "draw: bad index size, skipped");
                    return;
                }
            };
            let bytes = p.count as u64 * p.index_size as u64;
            let offset = if !blob.is_empty() {
                // Client indices: the blob holds the indices the draw reads.
                if (blob.len() as u64) < bytes {
                    warn!(
                        blob = blob.len(),
                        need = bytes,
                        "draw: client index blob too short, skipped"
                    );
                    return;
                }
                match cx.stream_indices(&blob[..bytes as usize]) {
                    Some(o) => o as u64,
                    None => {
                        warn!("draw: client index upload failed, skipped");
                        return;
                    }
                }
            } else {
                let ib = cx.ctx.index_buffer;
                let Some((buf, size)) = buffer_of(cx.scr, ib) else {
                    warn!(buffer = ?ib, "draw: indexed draw without a valid index buffer, skipped");
                    return;
                };
                if p.index_offset.checked_add(bytes).is_none_or(|e| e > size) {
                    warn!(buffer = ?ib, offset = p.index_offset, bytes, size, "draw: indices past the end of the index buffer, skipped");
                    return;
                }
                cx.ctx.shadow.bind_element_buffer(gl, Some(buf));
                p.index_offset
            };
            if offset > i32::MAX as u64 {
                warn!(offset, "draw: index offset beyond GLES limits, skipped");
                return;
            }
            let (count, off) = (p.count as i32, offset as i32);
            // SAFETY: indexed draw from the bound ELEMENT_ARRAY_BUFFER, range checked.
            unsafe {
                match (p.base_vertex != 0 && cx.f.gles32, inst <= 1) {
                    (true, true) => {
                        gl.draw_elements_base_vertex(p.mode, count, ty, off, p.base_vertex)
                    }
                    (true, false) => gl.draw_elements_instanced_base_vertex(
                        p.mode,
                        count,
                        ty,
                        off,
                        inst as i32,
                        p.base_vertex,
                    ),
                    (false, true) => gl.draw_elements(p.mode, count, ty, off),
                    (false, false) => {
                        gl.draw_elements_instanced(p.mode, count, ty, off, inst as i32)
                    }
                }
            }
            if p.base_vertex != 0 && !cx.f.gles32 {
                warn!(
                    base_vertex = p.base_vertex,
                    "draw: base vertex needs GLES 3.2; drawn without it"
                );
            }
        }
        self.check("draw");
        self.report_storage_writes();
    }

    fn multi_draw(&mut self, p: &calls::MultiDraw, blob: &[u8]) {
        self.multi_draw_ranges(p, blob);
    }

    fn xfb_begin(&mut self, p: &calls::XfbBegin) {
        let Some(c) = self.cx_state("xfb_begin") else {
            return;
        };
        if c.xfb.begin.is_some() {
            warn!("xfb_begin: transform feedback already active, ignored");
            return;
        }
        c.xfb = crate::XfbCtx {
            begin: Some(*p),
            ..Default::default()
        };
    }

    fn xfb_end(&mut self, _p: &calls::XfbEnd) {
        let Some(cx) = self.cx("xfb_end") else {
            return;
        };
        let x = std::mem::take(&mut cx.ctx.xfb);
        if x.driver_active {
            let gl = cx.gl;
            // SAFETY: the driver's transform feedback is active; its
            // bindings are released after it ends.
            unsafe {
                gl.end_transform_feedback();
                for i in 0..x.begin.map_or(0, |b| b.count.min(4)) {
                    gl.bind_buffer_base(glow::TRANSFORM_FEEDBACK_BUFFER, i, None);
                }
            }
        }
        self.check("xfb_end");
    }

    fn xfb_pause(&mut self, _p: &calls::XfbPause) {
        let Some(cx) = self.cx("xfb_pause") else {
            return;
        };
        cx.ctx.xfb.paused = true;
        if cx.ctx.xfb.driver_active && !cx.ctx.xfb.driver_paused {
            // SAFETY: the driver's transform feedback is active, not paused.
            unsafe { cx.gl.pause_transform_feedback() };
            cx.ctx.xfb.driver_paused = true;
        }
        self.check("xfb_pause");
    }

    fn xfb_resume(&mut self, _p: &calls::XfbResume) {
        // Resumed in the driver at the next draw (with its program bound).
        if let Some(c) = self.cx_state("xfb_resume") {
            c.xfb.paused = false;
        }
    }

    fn dispatch_compute(&mut self, p: &calls::DispatchCompute) {
        if !self.features.gles31 {
            warn!("dispatch_compute: the driver has no compute (GLES 3.1), skipped");
            return;
        }
        let [x, y, z] = p.groups;
        if x == 0 || y == 0 || z == 0 {
            return;
        }
        let max = self.features.max_compute_groups;
        if x > max[0] || y > max[1] || z > max[2] {
            warn!(groups = ?p.groups, ?max, "dispatch_compute: more work groups than the driver takes, skipped");
            return;
        }
        let Some(cx) = self.program_setup("dispatch_compute", true) else {
            return;
        };
        // Emulation: rendering into a texture and then fetching it in a
        // compute shader needs no barrier in GL (or GLES), but llvmpipe's
        // GLES (Mesa 22.3) starts the dispatch without waiting for the
        // binned clears and draws still being rasterised (when the program
        // and its textures are the ones already bound), so the shader reads
        // old texels. On CPU rasterisers the framebuffer writes are
        // finished first; GPU drivers order them themselves.
        if std::mem::take(&mut cx.ctx.fbo_written) && cx.f.software {
            // SAFETY: a plain wait on this context's work.
            unsafe { cx.gl.finish() };
        }
        // SAFETY: a dispatch of the bound compute program, counts checked
        // against the driver's limits.
        unsafe { cx.gl.dispatch_compute(x, y, z) };
        self.check("dispatch_compute");
        self.report_storage_writes();
    }

    fn memory_barrier(&mut self, p: &calls::MemoryBarrier) {
        if !self.features.gles31 {
            warn!("memory_barrier: the driver has no GLES 3.1 barriers, skipped");
            return;
        }
        let bits = gles_barrier_bits(p.barriers, p.by_region != 0);
        if bits == 0 {
            return;
        }
        self.prepare();
        // SAFETY: plain call with bits GLES defines.
        unsafe {
            if p.by_region != 0 {
                self.gl.memory_barrier_by_region(bits);
            } else {
                self.gl.memory_barrier(bits);
            }
        }
        self.check("memory_barrier");
    }

    fn blit(&mut self, p: &calls::Blit) {
        let Some(mut cx) = self.cx("blit") else {
            return;
        };
        cx.bind_draw();
        cx.bind_read();
        let (s, d) = (p.src, p.dst);
        let filter = if p.filter == 0 {
            glow::NEAREST
        } else {
            p.filter
        };
        // SAFETY: plain queries first (earlier errors drained, bounded: a
        // lost context may keep reporting), then a blit between the bound
        // read and draw framebuffers.
        let refused = unsafe {
            for _ in 0..8 {
                if cx.gl.get_error() == glow::NO_ERROR {
                    break;
                }
            }
            cx.gl.blit_framebuffer(
                s[0], s[1], s[2], s[3], d[0], d[1], d[2], d[3], p.mask, filter,
            );
            cx.gl.get_error() == glow::INVALID_OPERATION
        };
        // GLES refuses a blit whose source and destination are the same
        // buffer, which desktop GL allows (undefined only where the
        // rectangles overlap): copy the source rectangle out first.
        if refused && !cx.blit_through_copy(p, filter) {
            warn!("blit: refused by the driver and not copied through a temporary");
        }
        self.check("blit");
    }

    /// On a software rasteriser glReadPixels is a synchronous copy that
    /// reads any row range like the whole: a ring transport may ask for one
    /// band at a time (`Features::software`).
    fn read_pixels_bands(&self) -> bool {
        self.features.software
    }

    fn read_pixels_into(&mut self, p: &calls::ReadPixels, dst: &mut [u8]) -> bool {
        // The direct read only: the client's format/type is the surface's
        // readable pair, single-sampled, the driver's glReadPixels resolved.
        // Anything else declines and takes `read_pixels` (conversions,
        // resolves, zero-filled answers).
        let Some(bpp) = emulation::bytes_per_pixel(p.format, p.r#type) else {
            return false;
        };
        let total = (p.width as u64)
            .saturating_mul(p.height as u64)
            .saturating_mul(bpp as u64);
        if total != dst.len() as u64
            || total == 0
            || p.width > i32::MAX as u32
            || p.height > i32::MAX as u32
        {
            return false;
        }
        let Some(read) = self.read_pixels_fn() else {
            return false;
        };
        let Some(mut cx) = self.cx("read_pixels") else {
            return false;
        };
        let (internal, samples) = cx.read_format();
        if samples > 1
            || cx.read_alpha_one()
            || !cx.read_has_colour()
            || emulation::readable_pair(emulation::format_class(internal))
                != Some((p.format, p.r#type))
        {
            return false;
        }
        cx.bind_read();
        cx.tight_pack();
        let gl = cx.gl;
        // SAFETY: `dst` holds width*height pixels of (format, type) with
        // PACK_ALIGNMENT 1 (checked above); GL leaves pixels outside the
        // read surface unwritten, which glReadPixels allows (undefined).
        unsafe { read_checked(gl, read, p, dst) };
        self.check("read_pixels");
        true
    }

    fn read_pixels(&mut self, p: &calls::ReadPixels, reply: &mut Vec<u8>) {
        let Some(bpp) = emulation::bytes_per_pixel(p.format, p.r#type) else {
            reply.clear();
            warn!(
                format = p.format,
                ty = p.r#type,
                "read_pixels: unknown format/type, empty reply"
            );
            return;
        };
        let pixels = p.width as u64 * p.height as u64;
        let total = pixels.saturating_mul(bpp as u64);
        if total > MAX_REPLY as u64 || p.width > i32::MAX as u32 || p.height > i32::MAX as u32 {
            reply.clear();
            warn!(
                w = p.width,
                h = p.height,
                "read_pixels: rectangle too large, empty reply"
            );
            return;
        }
        // The direct read fills the reply's spare capacity; every other
        // path answers `total` bytes (zeros where nothing could be read).
        let total = total as usize;
        reply.clear();
        if total == 0 {
            return;
        }
        let read_fn = self.read_pixels_fn();
        let Some(mut cx) = self.cx("read_pixels") else {
            reply.resize(total, 0);
            return;
        };
        if matches!(
            p.format,
            glow::DEPTH_COMPONENT | glow::STENCIL_INDEX | glow::DEPTH_STENCIL
        ) {
            cx.read_depth_stencil(p, total, reply);
            self.check("read_pixels");
            return;
        }
        // A read surface without a colour buffer (READ_BUFFER NONE) has
        // none to read: drivers differ in how such a read fails (Mesa's GLES
        // crashed), so nothing is asked.
        if !cx.read_has_colour() {
            reply.resize(total, 0);
            warn!("read_pixels: no colour buffer to read, zeros returned");
            return;
        }
        cx.bind_read();
        cx.tight_pack();
        let gl = cx.gl;
        let (internal, samples) = cx.read_format();
        let alpha_one = cx.read_alpha_one();
        let Some((rf, rt)) = emulation::readable_pair(emulation::format_class(internal)) else {
            reply.resize(total, 0);
            warn!(
                format = p.format,
                "read_pixels: depth/stencil reads are not available on GLES, zeros returned"
            );
            return;
        };
        let (w, h) = (p.width as i32, p.height as i32);
        let (x, y) = (p.x, p.y);
        let resolved = if samples > 1 {
            let r = cx.resolve_for_read(internal, x, y, w, h);
            if r.is_none() {
                reply.resize(total, 0);
                warn!("read_pixels: multisample resolve failed, zeros returned");
                return;
            }
            r
        } else {
            None
        };
        // SAFETY: the reply/temporary buffers hold width*height pixels of the
        // read pair with PACK_ALIGNMENT 1 (sizes computed above), for the
        // direct read as for glow's.
        unsafe {
            let direct = (rf, rt) == (p.format, p.r#type) && !alpha_one;
            if let (true, Some(read)) = (direct, read_fn) {
                // Zeroed first: GL leaves pixels outside the read surface
                // unwritten, and a failed read writes nothing.
                reply.resize(total, 0);
                read_checked(gl, read, p, reply);
            } else if direct {
                reply.resize(total, 0);
                gl.read_pixels(
                    x,
                    y,
                    w,
                    h,
                    rf,
                    rt,
                    glow::PixelPackData::Slice(Some(reply.as_mut_slice())),
                );
            } else {
                reply.resize(total, 0);
                let tmp_len = emulation::bytes_per_pixel(rf, rt).unwrap_or(16) * pixels as usize;
                let mut tmp = vec![0u8; tmp_len];
                gl.read_pixels(
                    x,
                    y,
                    w,
                    h,
                    rf,
                    rt,
                    glow::PixelPackData::Slice(Some(tmp.as_mut_slice())),
                );
                if alpha_one {
                    emulation::force_alpha_one(&mut tmp, rf, rt);
                }
                match emulation::convert(&tmp, rf, rt, p.format, p.r#type, pixels as usize) {
                    Some(v) if v.len() == reply.len() => reply.copy_from_slice(&v),
                    _ => {
                        warn!(
                            format = p.format,
                            ty = p.r#type,
                            "read_pixels: no conversion to this format/type, zeros returned"
                        )
                    }
                }
            }
        }
        if let Some(r) = resolved {
            cx.drop_resolve(r);
        }
        self.check("read_pixels");
    }

    fn buffer_readback(&mut self, p: &calls::BufferReadback, reply: &mut Vec<u8>) {
        reply.clear();
        if p.size > MAX_REPLY as u64 {
            warn!(res = ?p.res, size = p.size, "buffer_readback: size too large, empty reply");
            return;
        }
        reply.resize(p.size as usize, 0);
        if p.size == 0 {
            return;
        }
        // Shader stores (storage blocks, images) reach a mapping only after
        // a barrier; desktop drivers make the read wait for them anyway
        // and applications rely on it (llvmpipe's GLES map does not wait
        // for fragment-shader stores without one).
        let barrier = self.features.gles31;
        let o = self.ox();
        let Some((buf, size)) = buffer_of(o.scr, p.res) else {
            warn!(res = ?p.res, "buffer_readback: unknown buffer, zeros returned");
            return;
        };
        if barrier {
            // SAFETY: plain call with a bit GLES 3.1 defines.
            unsafe { o.gl.memory_barrier(glow::BUFFER_UPDATE_BARRIER_BIT) };
        }
        if p.offset.checked_add(p.size).is_none_or(|e| e > size) {
            warn!(res = ?p.res, offset = p.offset, len = p.size, size, "buffer_readback: range past the end, zeros returned");
            return;
        }
        // SAFETY: live buffer, range checked; the mapping is read for exactly
        // `size` bytes and unmapped before returning.
        unsafe {
            o.gl.bind_buffer(glow::COPY_READ_BUFFER, Some(buf));
            let ptr = o.gl.map_buffer_range(
                glow::COPY_READ_BUFFER,
                p.offset as i32,
                p.size as i32,
                glow::MAP_READ_BIT,
            );
            if ptr.is_null() {
                warn!(res = ?p.res, "buffer_readback: glMapBufferRange failed, zeros returned");
            } else {
                reply.copy_from_slice(std::slice::from_raw_parts(ptr, p.size as usize));
                o.gl.unmap_buffer(glow::COPY_READ_BUFFER);
            }
        }
        self.check("buffer_readback");
    }

    fn fence_insert(&mut self, p: &calls::FenceInsert) {
        self.prepare();
        // SAFETY: a new sync object on the current context.
        let f = match unsafe { self.gl.fence_sync(glow::SYNC_GPU_COMMANDS_COMPLETE, 0) } {
            Ok(f) => f,
            Err(e) => {
                warn!(fence = ?p.fence, "fence_insert: glFenceSync failed: {e}");
                return;
            }
        };
        match self.scr.fences.insert(p.fence, f) {
            // SAFETY: a sync object of this share group.
            Ok(Some(old)) => unsafe { self.gl.delete_sync(old) },
            Ok(None) => self.pending_fences.push(p.fence),
            Err(f) => {
                warn!(fence = ?p.fence, "fence_insert: invalid handle, skipped");
                // SAFETY: the sync just created.
                unsafe { self.gl.delete_sync(f) };
            }
        }
        self.check("fence_insert");
    }

    fn flush_commands(&mut self, _p: &calls::FlushCommands) {
        self.prepare();
        // SAFETY: plain call on the current context.
        unsafe { self.gl.flush() };
    }

    fn finish(&mut self, _p: &calls::Finish, reply: &mut Vec<u8>) {
        self.prepare();
        // SAFETY: plain call on the current context.
        unsafe { self.gl.finish() };
        reply.clear();
        self.check("finish");
    }

    fn query_begin(&mut self, p: &calls::QueryBegin) {
        self.q_begin(p);
    }

    fn query_end(&mut self, p: &calls::QueryEnd) {
        self.q_end(p);
    }

    fn query_counter(&mut self, p: &calls::QueryCounter) {
        self.q_counter(p);
    }

    fn query_result(&mut self, p: &calls::QueryResult, reply: &mut Vec<u8>) {
        self.q_result(p, reply);
    }

    fn timestamp(&mut self, _p: &calls::Timestamp, reply: &mut Vec<u8>) {
        self.timestamp_ns(reply);
    }

    fn get_texture_image(&mut self, p: &calls::GetTextureImage, reply: &mut Vec<u8>) {
        self.texture_image(p, reply);
    }

    fn present(&mut self, p: &calls::Present) {
        if !p.surface.is_null() && self.scr.surfaces.get(p.surface).is_none() {
            warn!(surface = ?p.surface, "present: unknown surface");
        }
        if !self.warned_present {
            self.warned_present = true;
            info!("present: surfaces are pbuffer/surfaceless, nothing to show (logged once)");
        }
    }
}

impl GlesBackend {
    fn delete_shader_entry(&mut self, e: ShaderEntry) {
        // SAFETY: objects of this share group.
        unsafe {
            if let Some(p) = e.program {
                self.gl.delete_program(p);
            }
            if let Some(p) = e.lod_variant.and_then(|v| v.program) {
                self.gl.delete_program(p);
            }
            if let Some(b) = e.global_ubo {
                self.gl.delete_buffer(b);
            }
        }
        self.forget_objects();
    }
}

/// The biased variant of a program (built at its first use), with
/// `bias` written to its `mgl_LodBias` when it changed. None: it could
/// not be built (logged once; the plain program draws unbiased).
fn lod_variant(
    gl: &glow::Context,
    cso: mgpipe::Handle,
    sh: &mut ShaderEntry,
    bias: &[f32; 32],
) -> Option<glow::Program> {
    let v = sh.lod_variant.get_or_insert_with(|| {
        let program = sh
            .lod_stages
            .as_deref()
            .and_then(|stages| shader::build_program_variant(gl, cso, stages, true));
        // SAFETY: a uniform query on the program just linked.
        let location = program.and_then(|p| unsafe {
            gl.get_uniform_location(p, &format!("{}[0]", crate::sampling::LOD_BIAS_UNIFORM))
        });
        if program.is_none() {
            warn!(shader = ?cso, "sampler LOD bias: the biased program variant failed to build; drawn unbiased");
        }
        crate::LodVariant {
            program,
            location,
            sent: None,
        }
    });
    let program = v.program?;
    if v.sent.as_ref() != Some(bias) {
        if let Some(loc) = &v.location {
            // SAFETY: the variant's own uniform; glUniform* writes the
            // bound program, so it is bound around the write.
            unsafe {
                gl.use_program(Some(program));
                gl.uniform_1_f32_slice(Some(loc), bias);
            }
        }
        v.sent = Some(*bias);
    }
    Some(program)
}

impl Cx<'_> {
    /// Transform feedback the client began or resumed starts (or resumes)
    /// in the driver before a draw, with the draw's program bound.
    fn xfb_before_draw(&mut self) {
        let Some(b) = self.ctx.xfb.begin else {
            return;
        };
        if self.ctx.xfb.paused {
            return;
        }
        let gl = self.gl;
        if self.ctx.xfb.driver_active {
            if self.ctx.xfb.driver_paused {
                // SAFETY: the driver's transform feedback is active and paused.
                unsafe { gl.resume_transform_feedback() };
                self.ctx.xfb.driver_paused = false;
            }
            return;
        }
        for i in 0..(b.count as usize).min(b.buffers.len()) {
            let Some((buf, size)) = buffer_of(self.scr, b.buffers[i]) else {
                warn!(buffer = ?b.buffers[i], index = i, "xfb_begin: no valid buffer; transform feedback not started");
                self.ctx.xfb.begin = None;
                return;
            };
            let off = b.offsets[i].min(size);
            let len = match b.sizes[i] {
                0 => size - off,
                n => n.min(size - off),
            };
            if off > i32::MAX as u64 || len > i32::MAX as u64 || len == 0 {
                warn!(index = i, off, len, "xfb_begin: buffer range beyond GLES limits or empty; transform feedback not started");
                self.ctx.xfb.begin = None;
                return;
            }
            // SAFETY: a live buffer, a range inside it.
            unsafe {
                gl.bind_buffer_range(
                    glow::TRANSFORM_FEEDBACK_BUFFER,
                    i as u32,
                    Some(buf),
                    off as i32,
                    len as i32,
                )
            };
        }
        // SAFETY: the capturing program is bound (program_setup) and was
        // linked with its varyings (shader::build_program).
        unsafe { gl.begin_transform_feedback(b.primitive) };
        self.ctx.xfb.driver_active = true;
        self.ctx.xfb.driver_paused = false;
    }
}
