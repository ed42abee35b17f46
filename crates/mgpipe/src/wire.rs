//! Wire framing shared by every ring transport (DESIGN §2.7, §4).
//!
//! A record is a [`RecordHeader`] followed by the call's POD payload, padded
//! to 8 bytes. Blob bytes never sit in the record: they are staged in the
//! STAGE segment and the header names them by stream position.

use bytemuck::{Pod, Zeroable};

/// Every record starts with this header. `len` counts header + payload +
/// padding and is a multiple of [`RECORD_ALIGN`].
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct RecordHeader {
    pub opcode: u16,
    pub flags: u16,
    /// Total record length in bytes, header included, multiple of 8.
    pub len: u32,
    /// Payload length in bytes (must equal the call's payload size).
    pub payload_len: u32,
    /// Reply slot for `reply_slot` calls, 0 otherwise.
    pub reply_slot: u32,
    /// Position of the blob in the STAGE byte stream (monotonic, not wrapped).
    pub blob_offset: u64,
    /// Blob length in bytes (0: no blob).
    pub blob_len: u64,
}

pub const RECORD_HEADER_SIZE: usize = core::mem::size_of::<RecordHeader>();
pub const RECORD_ALIGN: usize = 8;
const _: () = assert!(RECORD_HEADER_SIZE == 32);

/// Round `n` up to the record alignment.
pub const fn align_record(n: usize) -> usize {
    (n + RECORD_ALIGN - 1) & !(RECORD_ALIGN - 1)
}

/// A malformed record: never undefined behaviour, always this named error.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("protocol corruption: opcode {opcode} at offset {offset}: {why}")]
pub struct ProtocolCorruption {
    pub opcode: u16,
    pub offset: usize,
    pub why: &'static str,
}

/// Split one record off the front of `bytes`, checking the header.
/// Returns the header, the payload slice and the total record length.
pub fn split_record(
    bytes: &[u8],
    offset: usize,
) -> Result<(RecordHeader, &[u8], usize), ProtocolCorruption> {
    let bad = |opcode: u16, why| ProtocolCorruption {
        opcode,
        offset,
        why,
    };
    if bytes.len() < RECORD_HEADER_SIZE {
        return Err(bad(u16::MAX, "truncated record header"));
    }
    let header: RecordHeader = bytemuck::pod_read_unaligned(&bytes[..RECORD_HEADER_SIZE]);
    let len = header.len as usize;
    if len < RECORD_HEADER_SIZE || !len.is_multiple_of(RECORD_ALIGN) {
        return Err(bad(
            header.opcode,
            "record length not a multiple of 8 or below header size",
        ));
    }
    if len > bytes.len() {
        return Err(bad(
            header.opcode,
            "record length past end of published bytes",
        ));
    }
    let payload_len = header.payload_len as usize;
    if payload_len > len - RECORD_HEADER_SIZE {
        return Err(bad(header.opcode, "payload length past end of record"));
    }
    Ok((
        header,
        &bytes[RECORD_HEADER_SIZE..RECORD_HEADER_SIZE + payload_len],
        len,
    ))
}

/// One range of a `multi_draw` blob (little-endian, 16 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct MultiDrawRange {
    /// First vertex (arrays) or byte offset into the bound index buffer.
    pub start: u64,
    pub count: u32,
    pub base_vertex: i32,
}

const _: () = assert!(core::mem::size_of::<MultiDrawRange>() == 16);

/// The ranges of a `multi_draw` blob, or None when its length is not
/// `draw_count` whole ranges.
pub fn multi_draw_ranges(blob: &[u8], draw_count: u32) -> Option<Vec<MultiDrawRange>> {
    let n = draw_count as usize;
    if blob.len() != n.checked_mul(core::mem::size_of::<MultiDrawRange>())? {
        return None;
    }
    Some(
        blob.chunks_exact(core::mem::size_of::<MultiDrawRange>())
            .map(bytemuck::pod_read_unaligned)
            .collect(),
    )
}

/// The reply of `map_persistent` (8 bytes, little-endian).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct MapPersistentReply {
    /// Adoption tier (`consts::ADOPT_TIER_*`).
    pub tier: u32,
    /// `consts::MAP_PERSISTENT_*` bits.
    pub flags: u32,
}

const _: () = assert!(core::mem::size_of::<MapPersistentReply>() == 8);

impl MapPersistentReply {
    /// Whether this reply promises tier-2 reports of GPU writes.
    pub fn reports_gpu_writes(&self) -> bool {
        self.tier == crate::consts::ADOPT_TIER_CLIENT_PUSH
            && self.flags & crate::consts::MAP_PERSISTENT_REPORTS_GPU_WRITES != 0
    }
}

/// The vertex-buffer slots a vertex-input CSO names, as the
/// `set_vertex_buffers` a backend that applies the CSO keeps.
pub fn vertex_buffers_of(p: &crate::calls::CreateVertexInput) -> crate::calls::SetVertexBuffers {
    crate::calls::SetVertexBuffers {
        count: p.count,
        buffers: p.buffers,
        offsets: p.offsets,
        strides: p.strides,
        ..Default::default()
    }
}

/// Apply a `set_constant_buffer` delta to the uniform-buffer table a
/// backend keeps (the last `set_constant_buffers` plus deltas since). A slot
/// at or past `count` extends it; false (nothing changed) for a slot past
/// the table.
pub fn apply_constant_buffer(
    table: &mut crate::calls::SetConstantBuffers,
    p: &crate::calls::SetConstantBuffer,
) -> bool {
    let i = p.slot as usize;
    if i >= table.buffers.len() {
        return false;
    }
    table.buffers[i] = p.buffer;
    table.offsets[i] = p.offset;
    table.sizes[i] = p.size;
    table.count = table.count.max(p.slot + 1);
    true
}

/// The one slot below `count` in which `new` differs from `old`, when
/// exactly one does and the counts are equal: what a `set_constant_buffer`
/// delta can express.
pub fn single_constant_buffer_change(
    old: &crate::calls::SetConstantBuffers,
    new: &crate::calls::SetConstantBuffers,
) -> Option<usize> {
    if old.count != new.count {
        return None;
    }
    let n = (new.count as usize).min(new.buffers.len());
    let mut changed = None;
    for i in 0..n {
        if old.buffers[i] != new.buffers[i]
            || old.offsets[i] != new.offsets[i]
            || old.sizes[i] != new.sizes[i]
        {
            if changed.is_some() {
                return None;
            }
            changed = Some(i);
        }
    }
    changed
}

#[cfg(test)]
mod constant_buffer_tests {
    use super::*;
    use crate::calls::{SetConstantBuffer, SetConstantBuffers};
    use crate::Handle;

    fn table(count: u32) -> SetConstantBuffers {
        let mut t = SetConstantBuffers {
            count,
            ..Default::default()
        };
        for i in 0..count as usize {
            t.buffers[i] = Handle::new(i as u32 + 1, 1);
            t.offsets[i] = 256 * i as u64;
            t.sizes[i] = 64;
        }
        t
    }

    #[test]
    fn one_changed_slot_is_found_and_replayed() {
        let old = table(3);
        let mut new = old;
        new.offsets[1] = 4096;
        assert_eq!(single_constant_buffer_change(&old, &new), Some(1));
        let mut replay = old;
        assert!(apply_constant_buffer(
            &mut replay,
            &SetConstantBuffer {
                slot: 1,
                buffer: new.buffers[1],
                offset: new.offsets[1],
                size: new.sizes[1],
                ..Default::default()
            }
        ));
        assert_eq!(bytemuck::bytes_of(&replay), bytemuck::bytes_of(&new));
    }

    #[test]
    fn no_delta_for_two_changes_a_count_change_or_none() {
        let old = table(3);
        let mut two = old;
        two.sizes[0] = 1;
        two.sizes[2] = 1;
        assert_eq!(single_constant_buffer_change(&old, &two), None);
        assert_eq!(single_constant_buffer_change(&old, &table(4)), None);
        assert_eq!(single_constant_buffer_change(&old, &old), None);
    }

    #[test]
    fn slot_past_count_extends_and_past_table_is_refused() {
        let mut t = table(1);
        let p = SetConstantBuffer {
            slot: 5,
            buffer: Handle::new(9, 1),
            size: 16,
            ..Default::default()
        };
        assert!(apply_constant_buffer(&mut t, &p));
        assert_eq!(t.count, 6);
        assert_eq!(t.buffers[5], Handle::new(9, 1));
        // Slots past 16 exist (a program may use 36 blocks over its stages).
        let high = SetConstantBuffer {
            slot: 35,
            buffer: Handle::new(7, 1),
            size: 16,
            ..Default::default()
        };
        assert!(apply_constant_buffer(&mut t, &high));
        assert_eq!(t.count, 36);
        let before = t;
        let far = SetConstantBuffer {
            slot: t.buffers.len() as u32,
            ..Default::default()
        };
        assert!(!apply_constant_buffer(&mut t, &far));
        assert_eq!(bytemuck::bytes_of(&t), bytemuck::bytes_of(&before));
    }
}
