//! Remainders and round-ups by sizes that are almost always powers of two
//! (buffer-offset alignments drivers report, ring capacities): a mask
//! then, a division only otherwise. They run per call or per record,
//! where a 64-bit division costs 15–40 cycles on x86 and is not free on
//! the phones' cores either. A size of 0 counts as 1.

/// `v % a`.
#[inline]
pub fn rem(v: u64, a: u64) -> u64 {
    let a = a.max(1);
    if a.is_power_of_two() {
        v & (a - 1)
    } else {
        v % a
    }
}

/// Whether `v` is a multiple of `a`.
#[inline]
pub fn is_multiple(v: u64, a: u64) -> bool {
    rem(v, a) == 0
}

/// The smallest multiple of `a` not below `v`; `u64::MAX` when that does
/// not fit.
#[inline]
pub fn round_up(v: u64, a: u64) -> u64 {
    let a = a.max(1);
    if a.is_power_of_two() {
        v.checked_add(a - 1).map_or(u64::MAX, |x| x & !(a - 1))
    } else {
        v.div_ceil(a).saturating_mul(a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_and_divisions_agree() {
        for a in [0u64, 1, 2, 3, 4, 24, 64, 100, 256, 1 << 26] {
            for v in [0u64, 1, 2, 3, 23, 24, 25, 63, 64, 65, 1000, (1 << 26) + 5] {
                let d = a.max(1);
                assert_eq!(rem(v, a), v % d, "rem({v}, {a})");
                assert_eq!(is_multiple(v, a), v % d == 0, "is_multiple({v}, {a})");
                assert_eq!(round_up(v, a), v.div_ceil(d) * d, "round_up({v}, {a})");
            }
        }
        assert_eq!(round_up(u64::MAX - 1, 64), u64::MAX);
        assert_eq!(round_up(u64::MAX - 1, 24), u64::MAX);
    }
}
