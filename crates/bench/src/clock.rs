//! Clocks and small statistics.

/// Nanoseconds of `clock` (`CLOCK_MONOTONIC`, `CLOCK_THREAD_CPUTIME_ID`, ...).
pub fn now_ns(clock: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid out-pointer; the clock ids used are supported
    // on every Linux this runs on (a failure leaves zeros, never UB).
    unsafe { libc::clock_gettime(clock, &mut ts) };
    (ts.tv_sec as u64)
        .wrapping_mul(1_000_000_000)
        .wrapping_add(ts.tv_nsec as u64)
}

/// Wall, calling-thread CPU and process CPU, read together.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stamp {
    pub wall: u64,
    pub thread: u64,
    pub process: u64,
}

impl Stamp {
    pub fn now() -> Stamp {
        Stamp {
            wall: now_ns(libc::CLOCK_MONOTONIC),
            thread: now_ns(libc::CLOCK_THREAD_CPUTIME_ID),
            process: now_ns(libc::CLOCK_PROCESS_CPUTIME_ID),
        }
    }

    /// `later - self`, per clock.
    pub fn until(self, later: Stamp) -> Stamp {
        Stamp {
            wall: later.wall.saturating_sub(self.wall),
            thread: later.thread.saturating_sub(self.thread),
            process: later.process.saturating_sub(self.process),
        }
    }
}

/// Median of `v` (sorted copy; mean of the two middle values when even).
pub fn median(v: &[f64]) -> f64 {
    percentile(v, 50.0)
}

/// Linear-interpolated percentile `p` (0..=100) of `v`; 0 for empty input.
pub fn percentile(v: &[f64], p: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let rank = (p.clamp(0.0, 100.0) / 100.0) * (s.len() - 1) as f64;
    let lo = rank.floor() as usize;
    let hi = rank.ceil() as usize;
    let frac = rank - lo as f64;
    s[lo] + (s[hi] - s[lo]) * frac
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians() {
        assert_eq!(median(&[]), 0.0);
        assert_eq!(median(&[3.0]), 3.0);
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(percentile(&[1.0, 2.0, 3.0, 4.0, 5.0], 100.0), 5.0);
    }
}
