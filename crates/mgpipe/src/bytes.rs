//! Bulk byte copies that keep clear of a `rep movsb` stall.
//!
//! glibc's `memcpy`/`memmove` copy blocks of a few KiB and more with
//! `rep movsb`. On the AMD EPYC machines we measure on, that instruction
//! runs 10–15× slower (256 KiB: ~120 µs against ~8 µs) when the
//! destination lies 1–63 bytes after the source modulo 4 KiB: each load
//! then matches the page offset of a store the copy has just issued (4K
//! aliasing) and waits for it. Copies below 4 KiB take glibc's vector
//! loop, which is not hit. So a large copy in that band goes in 2 KiB
//! pieces and every other copy is one plain copy (docs/BENCHMARKS.md,
//! tenth session, has the measurements).
//!
//! Where the copy is made by someone else (the Vulkan driver writing a
//! read-back into imported memory), [`slow_band`] tells the caller to
//! pick another route.

/// Distances (destination − source, modulo 4 KiB) below this, except 0,
/// are in the slow band.
pub const SLOW_BAND: usize = 64;

/// Pieces a copy in the slow band is split into: under glibc's
/// `rep movsb` threshold on x86-64.
const PIECE: usize = 2048;

/// Copies shorter than this never reach `rep movsb`.
const LARGE: usize = 4096;

/// Whether a forward copy from address `src` to address `dst` falls in
/// the slow band.
#[inline]
pub fn slow_band(dst: usize, src: usize) -> bool {
    let d = dst.wrapping_sub(src) & 4095;
    d != 0 && d < SLOW_BAND
}

/// The length of the pieces a copy of `n` bytes from address `src` to
/// address `dst` should be made in: `n` (one copy) unless it is large and
/// in the slow band. For copies through raw pointers (shared memory).
#[inline]
pub fn piece_len(dst: usize, src: usize, n: usize) -> usize {
    if n >= LARGE && slow_band(dst, src) {
        PIECE
    } else {
        n
    }
}

/// `dst.copy_from_slice(src)` for slices of equal length (otherwise the
/// shorter length is copied), in pieces when the addresses are in the slow
/// band. Returns the bytes copied.
pub fn copy(dst: &mut [u8], src: &[u8]) -> usize {
    let n = dst.len().min(src.len());
    let (dst, src) = (&mut dst[..n], &src[..n]);
    let piece = piece_len(dst.as_ptr() as usize, src.as_ptr() as usize, n);
    if piece < n {
        for (d, s) in dst.chunks_mut(piece).zip(src.chunks(piece)) {
            d.copy_from_slice(s);
        }
    } else {
        dst.copy_from_slice(src);
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn band_is_the_first_63_bytes_after_the_source_modulo_4k() {
        assert!(!slow_band(0x1000, 0x1000));
        assert!(slow_band(0x1001, 0x1000));
        assert!(slow_band(0x2020, 0x1000));
        assert!(slow_band(0x103f, 0x1000));
        assert!(!slow_band(0x1040, 0x1000));
        // Destination before the source (modulo 4 KiB) is not the band.
        assert!(!slow_band(0x1000, 0x1010));
        assert!(slow_band(0x10, usize::MAX - 0xf));
    }

    #[test]
    fn copies_every_byte_on_and_off_the_band() {
        let src: Vec<u8> = (0..20_000u32).map(|i| (i * 7 + i / 251) as u8).collect();
        let mut buf = vec![0u8; 20_000 + 8192];
        let base = buf.as_ptr() as usize;
        for want in [0usize, 8, 32, 63, 64, 2048] {
            // Place the destination `want` bytes after the source modulo 4 KiB.
            let at = (src.as_ptr() as usize + want).wrapping_sub(base) & 4095;
            buf.iter_mut().for_each(|b| *b = 0xee);
            let n = copy(&mut buf[at..at + src.len()], &src);
            assert_eq!(n, src.len());
            assert_eq!(&buf[at..at + src.len()], &src[..], "distance {want}");
            assert!(buf[..at].iter().all(|&b| b == 0xee));
            assert!(buf[at + src.len()..].iter().all(|&b| b == 0xee));
        }
    }

    #[test]
    fn only_large_copies_in_the_band_are_split() {
        assert_eq!(piece_len(0x1010, 0x1000, 65536), PIECE);
        assert_eq!(piece_len(0x1010, 0x1000, 4095), 4095);
        assert_eq!(piece_len(0x1800, 0x1000, 65536), 65536);
    }

    #[test]
    fn unequal_lengths_copy_the_shorter() {
        let mut d = [0u8; 4];
        assert_eq!(copy(&mut d, &[1, 2]), 2);
        assert_eq!(d, [1, 2, 0, 0]);
        assert_eq!(copy(&mut d[..1], &[9, 9, 9]), 1);
        assert_eq!(d, [9, 2, 0, 0]);
    }
}
