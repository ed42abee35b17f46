//! Native vertex array objects per vertex layout, per context.
//!
//! Why: a client that switches VAOs between draws (Minecraft's chunk and
//! entity draws) otherwise makes us re-specify every attribute of the
//! context's single VAO per draw (`glBindBuffer` + `glVertexAttribPointer`
//! per attribute), which costs drivers far more than the one
//! `glBindVertexArray` the application itself asked for.
//!
//! Keyed by layout (vertex-elements CSO + the used vertex-buffer slots), not
//! by vertex-input CSO: two CSOs that differ only in their index buffer
//! (re-binding GL_ELEMENT_ARRAY_BUFFER between draws) share one VAO, since a
//! VAO switch costs a driver more than an element-buffer bind. The element
//! buffer is bound per draw through the shadow, never baked in.
//!
//! What it owns: the cached VAO names and the element-buffer shadow of each
//! (ELEMENT_ARRAY_BUFFER is VAO state; the context's `Shadow` describes only
//! the bound VAO). It never touches attribute *values* (context state) or
//! the context's own VAO, which stays the path for piecewise vertex state,
//! base-instance emulation and unresolved attributes.

use mgpipe::{calls, Handle};

/// More cached VAOs than this per context: further layouts use the
/// context's VAO (a client creating layouts without bound keeps driver
/// memory bounded).
pub(crate) const MAX_CACHED_VAOS: usize = 4096;

pub(crate) struct VaoEntry {
    pub vao: glow::VertexArray,
    /// The layout it was built for (the key is only its hash).
    pub elements: Handle,
    pub vbufs: calls::SetVertexBuffers,
    /// Element-buffer binding of this VAO as last set (None: unknown).
    pub element_buffer: Option<Option<glow::Buffer>>,
    /// Attributes enabled in this VAO (the others read current values).
    pub enabled_mask: u32,
}

/// A vertex-input CSO as the backend keeps it: its parts in the shapes the
/// context state uses, and its layout key (both derived once, at creation).
pub(crate) struct VertexInput {
    pub elements: Handle,
    pub vbufs: calls::SetVertexBuffers,
    pub index_buffer: Handle,
    pub layout: u64,
}

impl VertexInput {
    pub fn new(p: &calls::CreateVertexInput) -> VertexInput {
        let vbufs = mgpipe::wire::vertex_buffers_of(p);
        VertexInput {
            elements: p.elements,
            layout: layout_key(p.elements, &vbufs),
            vbufs,
            index_buffer: p.index_buffer,
        }
    }
}

/// Which VAO is bound.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum BoundVao {
    /// Not known (a new context, or the cache was just flushed).
    #[default]
    Unknown,
    /// The context's own VAO.
    Context,
    /// The cached VAO of this layout key.
    Cached(u64),
}

#[derive(Default)]
pub(crate) struct VaoCache {
    pub entries: rustc_hash::FxHashMap<u64, VaoEntry>,
    pub bound: BoundVao,
    /// The context VAO's element-buffer shadow while another VAO is bound.
    pub context_element_buffer: Option<Option<glow::Buffer>>,
    /// The bound cached VAO's attribute current values are applied.
    pub applied: bool,
    /// Every entry must go (a buffer or vertex-elements CSO it may name was
    /// deleted); done at this context's next draw, when it is current.
    pub stale: bool,
}

/// The cache key of a layout: xxh3 of the vertex-elements handle and the
/// used vertex-buffer slots (entries keep the layout itself, so a hash
/// collision is detected, never drawn with).
pub(crate) fn layout_key(elements: Handle, vb: &calls::SetVertexBuffers) -> u64 {
    let n = (vb.count as usize).min(vb.buffers.len());
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(bytemuck::bytes_of(&elements));
    h.update(&vb.count.to_le_bytes());
    h.update(bytemuck::cast_slice(&vb.buffers[..n]));
    h.update(bytemuck::cast_slice(&vb.offsets[..n]));
    h.update(bytemuck::cast_slice(&vb.strides[..n]));
    h.digest()
}

/// Whether two vertex-buffer tables agree on their used slots.
pub(crate) fn same_vertex_buffers(
    a: &calls::SetVertexBuffers,
    b: &calls::SetVertexBuffers,
) -> bool {
    let n = (a.count as usize).min(a.buffers.len());
    a.count == b.count
        && a.buffers[..n] == b.buffers[..n]
        && a.offsets[..n] == b.offsets[..n]
        && a.strides[..n] == b.strides[..n]
}
