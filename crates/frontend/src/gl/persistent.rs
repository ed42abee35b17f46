//! Persistent buffer maps (ARB_buffer_storage `MAP_PERSISTENT_BIT`) under
//! adoption tier T2, and the client end of the reverse channel.
//!
//! T2: the client keeps the mapped bytes (`BufferMap::data`) and the server
//! never sees the application's pointer. So:
//! * **Client writes** reach the server as `buffer_subdata` of the 64 KiB
//!   blocks whose xxh3 changed since the last push. Pushes happen where GL
//!   makes a coherent write visible to later commands: before each draw that
//!   reads the buffer (vertex, index or uniform binding, or a bound
//!   buffer texture), before a copy that
//!   reads it, and at `glFlush`/`glFinish`/`glFenceSync`/`glMemoryBarrier`.
//!   Maps with `MAP_FLUSH_EXPLICIT_BIT` push only what
//!   `glFlushMappedBufferRange` names.
//! * **GPU writes** (e.g. `glCopyBufferSubData` into the buffer) come back
//!   as events: the backend, told of the map by `map_persistent`, sends the
//!   bytes (`on_buffer_writeback`) or asks the client to pull them
//!   (`on_gpu_written`), ahead of the reply that ends the application's
//!   wait. A backend that declines `map_persistent` is pulled from at every
//!   `glFinish` and fence wait instead.
//!
//! [`absorb_events`] applies every event kind; `with_gl` calls it after
//! any blocking round trip, and `glGetError` and fence polls call it before
//! answering (a fence completion lets a poll skip its round trip).

use mgpipe::event::Event;
use mgpipe::{calls, Handle};

use crate::context::Gl;
use crate::runtime::BlockingCause;

/// Push granularity: a changed block travels whole.
pub const BLOCK: usize = 64 << 10;

/// Per-map T2 state.
#[derive(Debug, Clone, Default)]
pub struct PersistentMap {
    /// The backend reports GPU writes into the range as events.
    pub reports: bool,
    /// xxh3 of each block as the server last saw it.
    pub hashes: Vec<u64>,
}

fn block_hashes(data: &[u8]) -> Vec<u64> {
    data.chunks(BLOCK).map(xxhash_rust::xxh3::xxh3_64).collect()
}

/// A persistent map of buffer `name` was just created (its bytes are in
/// `map.data`): tell the backend and remember the buffer.
pub fn begin(gl: &mut Gl, name: u32) {
    let Some(Some(buf)) = gl.sh.buffers.get(&name) else {
        return;
    };
    let Some(map) = &buf.map else {
        return;
    };
    let p = calls::MapPersistent {
        res: buf.handle,
        offset: map.offset,
        length: map.length,
        access: map.access,
        ..Default::default()
    };
    let hashes = block_hashes(&map.data);
    let mut reply = Vec::new();
    if gl
        .conn
        .caps
        .implements(mgpipe::Opcode::MapPersistent as u16)
    {
        gl.conn.blocking(BlockingCause::MapPersistent);
        gl.conn.pipe.map_persistent(&p, &mut reply);
    }
    let reports = bytemuck::try_pod_read_unaligned::<mgpipe::wire::MapPersistentReply>(&reply)
        .is_ok_and(|r| r.reports_gpu_writes());
    if !reports {
        tracing::debug!(
            buffer = name,
            "map_persistent declined: GPU writes are pulled at sync points"
        );
    }
    if let Some(Some(buf)) = gl.sh.buffers.get_mut(&name) {
        if let Some(m) = &mut buf.map {
            m.persistent = Some(PersistentMap { reports, hashes });
        }
    }
    if !gl.sh.persistent.contains(&name) {
        gl.sh.persistent.push(name);
    }
}

/// The persistent map of `name` (handle `res`) ended: push what is left
/// unless the caller already did, and tell the backend.
pub fn end(gl: &mut Gl, name: u32, res: Handle) {
    gl.sh.persistent.retain(|n| *n != name);
    if gl
        .conn
        .caps
        .implements(mgpipe::Opcode::UnmapPersistent as u16)
    {
        gl.conn
            .pipe
            .unmap_persistent(&calls::UnmapPersistent { res });
    }
}

/// Push the changed blocks of one persistent map.
fn push(gl: &mut Gl, name: u32) {
    let Some(Some(buf)) = gl.sh.buffers.get_mut(&name) else {
        return;
    };
    let handle = buf.handle;
    let Some(map) = &mut buf.map else {
        return;
    };
    if map.access & glow::MAP_WRITE_BIT == 0 || map.access & glow::MAP_FLUSH_EXPLICIT_BIT != 0 {
        return;
    }
    let Some(pm) = &mut map.persistent else {
        return;
    };
    for (i, block) in map.data.chunks(BLOCK).enumerate() {
        let h = xxhash_rust::xxh3::xxh3_64(block);
        if pm.hashes.get(i) == Some(&h) {
            continue;
        }
        if let Some(slot) = pm.hashes.get_mut(i) {
            *slot = h;
        }
        gl.conn.pipe.buffer_subdata(
            &calls::BufferSubdata {
                res: handle,
                offset: map.offset + (i * BLOCK) as u64,
            },
            block,
        );
    }
}

/// Push every persistent map (flush, finish, fence, memory barrier).
pub fn push_all(gl: &mut Gl) {
    for i in 0..gl.sh.persistent.len() {
        let name = gl.sh.persistent[i];
        push(gl, name);
    }
}

/// Push the persistent maps a draw can read: the current VAO's vertex
/// (generic and fixed-function) and index buffers, the bound uniform buffers and the buffers of bound
/// buffer textures.
pub fn push_reachable(gl: &mut Gl) {
    for i in 0..gl.sh.persistent.len() {
        let name = gl.sh.persistent[i];
        let st = &*gl.st;
        let in_vao = st
            .vaos
            .get(&st.vao)
            .and_then(|v| v.as_ref())
            .is_some_and(|v| {
                v.element_buffer == name
                    || v.attribs
                        .iter()
                        .any(|a| a.enabled && v.binding_of(a).buffer == name)
                    // Fixed-function arrays (glVertexPointer & co.).
                    || v.ff.iter().any(|a| a.enabled && a.buffer == name)
            });
        let in_ubo = st.uniform_bindings.iter().any(|b| b.buffer == name);
        // Buffer textures bound on any unit (`gl::texbuf`).
        let in_tex = crate::context::target_index(glow::TEXTURE_BUFFER).is_some_and(|ti| {
            st.texture_units.iter().any(|u| {
                u.get(ti).is_some_and(|&t| {
                    t != 0
                        && matches!(gl.sh.textures.get(&t),
                            Some(Some(tex)) if tex.buffer.is_some_and(|a| a.buffer == name))
                })
            })
        });
        if in_vao || in_ubo || in_tex {
            push(gl, name);
        }
    }
}

/// Push `name` if it is persistently mapped (a copy is about to read it).
pub fn push_if_mapped(gl: &mut Gl, name: u32) {
    if gl.sh.persistent.contains(&name) {
        push(gl, name);
    }
}

/// Copy `bytes`, which the GPU wrote at `offset` of the buffer with handle
/// `res`, into its persistent map (the part the map covers).
pub fn write_back(gl: &mut Gl, res: Handle, offset: u64, bytes: &[u8]) {
    for &name in &gl.sh.persistent {
        let Some(Some(buf)) = gl.sh.buffers.get_mut(&name) else {
            continue;
        };
        if buf.handle != res {
            continue;
        }
        let Some(map) = &mut buf.map else {
            continue;
        };
        let lo = offset.max(map.offset);
        let hi = (offset + bytes.len() as u64).min(map.offset + map.length);
        if hi <= lo {
            return;
        }
        let src = &bytes[(lo - offset) as usize..(hi - offset) as usize];
        let at = (lo - map.offset) as usize;
        map.data[at..at + src.len()].copy_from_slice(src);
        // The server holds these bytes now: they are not a client write.
        if let Some(pm) = &mut map.persistent {
            let first = at / BLOCK;
            let last = (at + src.len() - 1) / BLOCK;
            for b in first..=last {
                let end = ((b + 1) * BLOCK).min(map.data.len());
                if let Some(h) = pm.hashes.get_mut(b) {
                    *h = xxhash_rust::xxh3::xxh3_64(&map.data[b * BLOCK..end]);
                }
            }
        }
        return;
    }
}

/// Pull `[offset, offset+len)` of the persistent map(s) of `res` (NULL:
/// every persistent map) from the server.
fn pull(gl: &mut Gl, res: Handle, offset: u64, len: u64, only_unreported: bool) {
    let targets: Vec<(Handle, u64, u64)> = gl
        .sh
        .persistent
        .iter()
        .filter_map(|n| gl.sh.buffers.get(n).and_then(|b| b.as_ref()))
        .filter(|b| res.is_null() || b.handle == res)
        .filter_map(|b| {
            let m = b.map.as_ref()?;
            if only_unreported && m.persistent.as_ref().is_some_and(|p| p.reports) {
                return None;
            }
            let lo = offset.max(m.offset);
            let hi = offset.saturating_add(len).min(m.offset + m.length);
            (hi > lo).then_some((b.handle, lo, hi - lo))
        })
        .collect();
    for (h, at, n) in targets {
        let bytes = super::buffers::read_buffer(gl, h, at, n, BlockingCause::BufferRead);
        write_back(gl, h, at, &bytes);
    }
}

/// Apply the backend's events (the reverse channel), oldest first.
pub fn absorb_events(gl: &mut Gl) {
    gl.conn.events_due = false;
    let pull_due = std::mem::take(&mut gl.conn.pull_due);
    let mut saw_fence = false;
    let mut events = std::mem::take(&mut gl.conn.event_scratch);
    gl.conn.pipe.poll_events(&mut events);
    for e in events.drain(..) {
        match e {
            Event::GlError { code, opcode } => {
                tracing::warn!(
                    "the driver raised GL error 0x{code:04X} applying {}",
                    mgpipe::Opcode::from_u16(opcode)
                        .map(|o| o.name())
                        .unwrap_or("an unknown call")
                );
                gl.st.set_error(code);
            }
            Event::BufferWriteback { res, offset, bytes } => write_back(gl, res, offset, &bytes),
            Event::GpuWritten { res, offset, len } => pull(gl, res, offset, len, false),
            Event::SurfaceChanged {
                surface,
                width,
                height,
            } => {
                crate::runtime::surface_changed(surface, width, height);
                // The default framebuffer's size feeds the framebuffer state.
                gl.st.dirty |= crate::context::DIRTY_FRAMEBUFFER;
            }
            Event::CapsInvalidated => refresh_caps(gl),
            Event::FenceSignaled { fence } => {
                for s in gl.sh.syncs.values_mut() {
                    if s.fence == fence {
                        s.signaled = true;
                    }
                }
                // A wait answered from this completion is a sync point too.
                saw_fence = true;
            }
            // Transports log these themselves; nothing reaches here.
            Event::Log { .. } => {}
        }
    }
    gl.conn.event_scratch = events;
    if (pull_due || saw_fence) && !gl.sh.persistent.is_empty() {
        pull(gl, Handle::NULL, 0, u64::MAX, true);
    }
}

/// `on_caps_invalidated`: ask again; keep the old snapshot if the answer is
/// not a snapshot (a lost link answers empty).
fn refresh_caps(gl: &mut Gl) {
    let mut reply = Vec::new();
    gl.conn
        .pipe
        .get_caps(&calls::GetCaps::default(), &mut reply);
    if reply.len() == std::mem::size_of::<mgpipe::Caps>() {
        gl.conn.caps = bytemuck::pod_read_unaligned(&reply);
        tracing::info!("backend caps refreshed (on_caps_invalidated)");
    } else {
        tracing::warn!("caps invalidated but no new snapshot came; keeping the old one");
    }
}

/// glMemoryBarrier: records apply in order on our side, so here only
/// `CLIENT_MAPPED_BUFFER_BARRIER_BIT` has work to do (push client writes);
/// the backend orders shader writes before the uses the bits name.
#[no_mangle]
pub unsafe extern "C" fn glMemoryBarrier(barriers: u32) {
    crate::context::with_gl(|gl| {
        // Every barrier bit GL 4.6 defines (0x10 is unassigned).
        const KNOWN: u32 = 0xFFEF;
        if barriers != glow::ALL_BARRIER_BITS && barriers & !KNOWN != 0 {
            gl.st.set_error(glow::INVALID_VALUE);
            return;
        }
        if barriers & glow::CLIENT_MAPPED_BUFFER_BARRIER_BIT != 0 {
            push_all(gl);
        }
        crate::gl::compute::memory_barrier(gl, barriers, false);
    })
}
