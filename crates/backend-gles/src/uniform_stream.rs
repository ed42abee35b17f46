//! Default uniform blocks streamed through one persistently mapped buffer
//! (`MOBILEGL_GLES_UNIFORM_STREAM=1|0`, default on; needs
//! `GL_EXT_buffer_storage`, else blocks stay per shader).
//!
//! Why: a client's `glUniform*` becomes a rewrite of the shader's default
//! uniform block (one `set_global_constants` record). Written in place
//! (`glBufferSubData` into the shader's own UBO), each update lands in a
//! buffer the previous draw still reads, which a GPU driver must order
//! (copy or wait). Streamed, each update is a `memcpy` to fresh bytes of a
//! coherent persistent mapping and the draw binds that range
//! (`glBindBufferRange`). Measured on an NVIDIA H200 (monolith, five
//! interleaved rounds): vanilla 926 -> 769 ns per op, texture 7.6 -> 2.6 us
//! per upload (a per-frame in-place update made the driver wait), read-back
//! 55.8 -> 49.4 us; on llvmpipe vanilla costs ~2% more instructions (one
//! more `glBindBufferRange` per draw). `glBufferSubData` into one big
//! stream buffer was tried first: 7x slower per draw on NVIDIA (the driver
//! copies the whole in-use buffer per update).
//!
//! The buffer is cut into [`SEGMENTS`] segments. Leaving a segment inserts a
//! fence after every draw that read it; entering one waits for the fence
//! left there one lap earlier (normally long signalled). A placement is
//! valid only while the cursor stays in its segment (each crossing starts a
//! new generation), so every draw that reads a segment precedes its fence;
//! a shader whose placement went stale writes its block again at its next
//! draw (`ShaderEntry::global_data` keeps the bytes). A fence covers only
//! its own context's commands, so a switch of native context first fences
//! the segment in use and moves on (`retire`): each segment is read by one
//! context.
//!
//! What it owns: the stream buffer, its mapping, cursor and fences. It
//! never touches the client's uniform buffers (`set_constant_buffers`).

use glow::HasContext;

/// Bytes of the stream buffer (the knob's size).
pub(crate) const STREAM_BYTES: u32 = 4 << 20;
/// Fenced segments per stream.
pub(crate) const SEGMENTS: usize = 4;

/// Where one block was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Placement {
    /// Bumped at each segment crossing.
    pub generation: u64,
    pub offset: u32,
}

/// A move of the cursor into another segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Crossing {
    pub left: usize,
    pub entered: usize,
}

/// Cursor arithmetic, apart from GL (unit-tested).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Cursor {
    segment_bytes: u32,
    align: u32,
    segment: usize,
    next: u32,
    generation: u64,
}

impl Cursor {
    /// A stream of `SEGMENTS` segments of `segment_bytes`; `align` is the
    /// driver's UNIFORM_BUFFER_OFFSET_ALIGNMENT.
    pub fn new(segment_bytes: u32, align: u32) -> Cursor {
        Cursor {
            segment_bytes,
            align: align.clamp(1, segment_bytes.max(1)),
            segment: 0,
            next: 0,
            generation: 0,
        }
    }

    /// Place `len` bytes: the placement, and the segment crossing it took
    /// (then the generation has moved on). None: empty, or larger than a
    /// segment.
    pub fn place(&mut self, len: u32) -> Option<(Placement, Option<Crossing>)> {
        if len == 0 || len > self.segment_bytes {
            return None;
        }
        let base = self.segment as u32 * self.segment_bytes;
        // Every uniform update, before every draw: no division for the
        // power-of-two alignments drivers report.
        let mut at = mgpipe::align::round_up(u64::from(self.next), u64::from(self.align))
            .min(u64::from(u32::MAX)) as u32;
        let mut crossing = None;
        if at.saturating_add(len) > base + self.segment_bytes {
            let left = self.segment;
            self.segment = (self.segment + 1) % SEGMENTS;
            self.generation += 1;
            at = self.segment as u32 * self.segment_bytes;
            crossing = Some(Crossing {
                left,
                entered: self.segment,
            });
        }
        self.next = at + len;
        Some((
            Placement {
                generation: self.generation,
                offset: at,
            },
            crossing,
        ))
    }

    pub fn is_current(&self, p: Placement) -> bool {
        p.generation == self.generation
    }

    /// Whether anything was placed in the current segment.
    pub fn segment_used(&self) -> bool {
        self.next > self.segment as u32 * self.segment_bytes
    }

    /// End the current segment now: every placement goes stale and the
    /// next block starts the next segment.
    pub fn force_cross(&mut self) {
        self.generation += 1;
        self.next = (self.segment as u32 + 1) * self.segment_bytes;
    }
}

pub(crate) struct UniformStream {
    pub buffer: glow::Buffer,
    /// The coherent persistent mapping of the whole buffer.
    map: *mut u8,
    bytes: u32,
    cursor: Cursor,
    fences: [Option<glow::Fence>; SEGMENTS],
    /// The current segment was fenced by `retire` (in the context that
    /// drew from it): the next crossing must not replace that fence.
    fenced_early: bool,
}

// SAFETY: `map` points into process memory the driver keeps mapped for
// the buffer's lifetime; the backend that owns the stream is used by one
// thread at a time (it moves with its native context).
unsafe impl Send for UniformStream {}

impl UniformStream {
    /// A stream of `bytes` (rounded down to whole aligned segments), or
    /// None when the driver lacks `GL_EXT_buffer_storage` or refuses.
    pub fn new(gl: &glow::Context, bytes: u32) -> Option<UniformStream> {
        if !gl.supported_extensions().contains("GL_EXT_buffer_storage") {
            tracing::info!("uniform stream: no GL_EXT_buffer_storage, blocks stay per shader");
            return None;
        }
        // SAFETY: a context is current (the backend's root). Immutable
        // storage of `bytes`, mapped once for the buffer's lifetime; the
        // pointer is checked before use.
        unsafe {
            let align = gl
                .get_parameter_i32(glow::UNIFORM_BUFFER_OFFSET_ALIGNMENT)
                .clamp(1, 1 << 16) as u32;
            let segment = (bytes / SEGMENTS as u32) / align * align;
            if segment == 0 {
                return None;
            }
            let bytes = segment * SEGMENTS as u32;
            let buffer = gl.create_buffer().ok()?;
            let flags = glow::MAP_WRITE_BIT | glow::MAP_PERSISTENT_BIT | glow::MAP_COHERENT_BIT;
            gl.bind_buffer(glow::COPY_WRITE_BUFFER, Some(buffer));
            gl.buffer_storage(glow::COPY_WRITE_BUFFER, bytes as i32, None, flags);
            let map = gl.map_buffer_range(glow::COPY_WRITE_BUFFER, 0, bytes as i32, flags);
            if map.is_null() {
                tracing::warn!("uniform stream: persistent map refused, blocks stay per shader");
                gl.delete_buffer(buffer);
                return None;
            }
            Some(UniformStream {
                buffer,
                map,
                bytes,
                cursor: Cursor::new(segment, align),
                fences: [None; SEGMENTS],
                fenced_early: false,
            })
        }
    }

    /// Write `data` after the previous block. None: empty or larger than a
    /// segment.
    pub fn push(&mut self, gl: &glow::Context, data: &[u8]) -> Option<Placement> {
        let (p, crossing) = self.cursor.place(u32::try_from(data.len()).ok()?)?;
        if let Some(c) = crossing {
            self.cross(gl, c);
        }
        let end = p.offset as usize + data.len();
        if end > self.bytes as usize {
            return None;
        }
        // SAFETY: `map` is the live persistent mapping of `bytes` bytes and
        // [offset, end) lies inside it; the GPU reads of this range from
        // one lap earlier are complete (`cross` waited for the segment's
        // fence); the mapping is coherent, so later draws see the bytes.
        unsafe {
            std::ptr::copy_nonoverlapping(
                data.as_ptr(),
                self.map.add(p.offset as usize),
                data.len(),
            );
        }
        Some(p)
    }

    /// Fence the segment left; wait until the GPU is done with the one
    /// entered.
    fn cross(&mut self, gl: &glow::Context, c: Crossing) {
        // SAFETY: fences of this context; a fence is waited for and deleted
        // once.
        unsafe {
            if !std::mem::take(&mut self.fenced_early) {
                self.fence(gl, c.left);
            }
            if let Some(f) = self.fences[c.entered].take() {
                let mut flags = glow::SYNC_FLUSH_COMMANDS_BIT;
                let mut tries = 0;
                loop {
                    match gl.client_wait_sync(f, flags, 1_000_000_000) {
                        glow::TIMEOUT_EXPIRED if tries < 5 => tries += 1,
                        glow::ALREADY_SIGNALED | glow::CONDITION_SATISFIED => break,
                        _ => {
                            // A lost or hung GPU: wait for everything.
                            tracing::warn!("uniform stream: fence wait failed, finishing");
                            gl.finish();
                            break;
                        }
                    }
                    flags = 0;
                }
                gl.delete_sync(f);
            }
        }
    }

    /// Fence segment `i` after every command of the current context.
    ///
    /// # Safety
    /// A context of the stream's share group is current.
    unsafe fn fence(&mut self, gl: &glow::Context, i: usize) {
        if let Some(old) = self.fences[i].take() {
            gl.delete_sync(old);
        }
        self.fences[i] = gl.fence_sync(glow::SYNC_GPU_COMMANDS_COMPLETE, 0).ok();
        // Flushed, so that another context of the group can wait for it.
        gl.flush();
    }

    /// The current native context is about to be switched away from: a
    /// fence only covers its own context's commands, so the segment it drew
    /// from is fenced now, here, and the next block (the next context's)
    /// starts a new segment. Every segment is then read by one context.
    pub fn retire(&mut self, gl: &glow::Context) {
        if !self.cursor.segment_used() || self.fenced_early {
            return;
        }
        let i = self.cursor.segment;
        // SAFETY: the context that drew from segment `i` is current (the
        // caller switches contexts after this).
        unsafe { self.fence(gl, i) };
        self.fenced_early = true;
        self.cursor.force_cross();
    }

    pub fn is_current(&self, p: Placement) -> bool {
        self.cursor.is_current(p)
    }

    /// Unmap and delete (the backend's drop or a replaced stream).
    pub fn destroy(mut self, gl: &glow::Context) {
        // SAFETY: our buffer and fences; the mapping is not used after.
        unsafe {
            for f in self.fences.iter_mut().filter_map(Option::take) {
                gl.delete_sync(f);
            }
            gl.bind_buffer(glow::COPY_WRITE_BUFFER, Some(self.buffer));
            gl.unmap_buffer(glow::COPY_WRITE_BUFFER);
            gl.delete_buffer(self.buffer);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_follow_each_other_aligned() {
        let mut c = Cursor::new(1024, 256);
        let (a, xa) = c.place(12).unwrap();
        let (b, xb) = c.place(300).unwrap();
        let (d, xd) = c.place(1).unwrap();
        assert_eq!((a.offset, b.offset, d.offset), (0, 256, 768));
        assert!(xa.is_none() && xb.is_none() && xd.is_none());
        assert!(c.is_current(a) && c.is_current(d));
    }

    #[test]
    fn a_non_power_of_two_alignment_rounds_up_too() {
        let mut c = Cursor::new(1024, 24);
        let offsets: Vec<u32> = (0..4).map(|_| c.place(10).unwrap().0.offset).collect();
        assert_eq!(offsets, [0, 24, 48, 72]);
        let mut p = Cursor::new(1024, 32);
        let offsets: Vec<u32> = (0..4).map(|_| p.place(33).unwrap().0.offset).collect();
        assert_eq!(offsets, [0, 64, 128, 192]);
    }

    #[test]
    fn a_full_segment_moves_on_and_old_placements_go_stale() {
        let mut c = Cursor::new(1024, 256);
        let (a, _) = c.place(600).unwrap();
        let (b, x) = c.place(600).unwrap();
        assert_eq!(
            x,
            Some(Crossing {
                left: 0,
                entered: 1
            })
        );
        assert_eq!(b.offset, 1024);
        assert!(!c.is_current(a) && c.is_current(b));
        // Exactly filling a segment's end stays in it.
        let mut e = Cursor::new(1024, 256);
        e.place(768).unwrap();
        assert_eq!(
            e.place(256).unwrap(),
            (
                Placement {
                    generation: 0,
                    offset: 768
                },
                None
            )
        );
        // After the last segment the cursor laps to the first.
        for _ in 0..2 {
            c.place(1024).unwrap();
        }
        let (f, x) = c.place(1).unwrap();
        assert_eq!(
            x,
            Some(Crossing {
                left: 3,
                entered: 0
            })
        );
        assert_eq!(f.offset, 0);
    }

    #[test]
    fn a_forced_crossing_makes_placements_stale_and_moves_on() {
        let mut c = Cursor::new(1024, 16);
        assert!(!c.segment_used());
        let (a, _) = c.place(32).unwrap();
        assert!(c.segment_used());
        c.force_cross();
        assert!(!c.is_current(a));
        let (b, x) = c.place(32).unwrap();
        assert_eq!(
            x,
            Some(Crossing {
                left: 0,
                entered: 1
            })
        );
        assert_eq!(b.offset, 1024);
        assert!(c.is_current(b));
    }

    #[test]
    fn oversized_and_empty_blocks_are_refused() {
        let mut c = Cursor::new(1024, 0);
        assert!(c.place(0).is_none());
        assert!(c.place(1025).is_none());
        assert_eq!(c.place(3).unwrap().0.offset, 0);
        assert_eq!(c.place(3).unwrap().0.offset, 3);
    }
}
