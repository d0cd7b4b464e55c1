// SPDX-License-Identifier: GPL-2.0-only
//! Integer helpers: the one 64-bit division of the crate, and fixed-point logarithms.
//!
//! 32-bit ARM kernels have no `__aeabi_uldivmod`, so every 64-by-64 division
//! goes through [`div_u64`]; in the kernel build it maps to `div64_u64()`.

/// Returns `n / d`, or 0 when `d` is 0 (callers check divisors they do not control).
#[inline]
pub fn div_u64(n: u64, d: u64) -> u64 {
    n.checked_div(d).unwrap_or(0)
}

/// Returns `n / d` rounded to nearest, or 0 when `d` is 0.
#[inline]
pub fn div_round_u64(n: u64, d: u64) -> u64 {
    div_u64(n.saturating_add(d / 2), d)
}

/// Returns `a * b / d` without intermediate overflow for 32-bit factors.
#[inline]
pub fn mul_div(a: u64, b: u64, d: u64) -> u64 {
    div_u64(a.saturating_mul(b), d)
}

/// log2(x) in Q8 fixed point (x >= 1), exact to about 1/256.
pub fn log2_q8(x: u64) -> i32 {
    if x == 0 {
        return 0;
    }
    let int = 63 - x.leading_zeros() as i32;
    // Normalize to [1, 2) in Q16 and square repeatedly for 8 fraction bits.
    let mut m: u64 = if int >= 16 {
        x >> (int - 16)
    } else {
        x << (16 - int)
    };
    let mut frac = 0i32;
    for _ in 0..8 {
        // m is in [1, 2) in Q16 (below 2^17): the square fits in 34 bits.
        m = m.wrapping_mul(m) >> 16;
        frac <<= 1;
        if m >= 2 << 16 {
            m >>= 1;
            frac |= 1;
        }
    }
    (int << 8) + frac
}

/// 2^(i/16) in Q16 for i in 0..=16, for [`exp2_q8`].
const EXP2_Q16: [u64; 17] = [
    65536, 68438, 71468, 74632, 77936, 81386, 84990, 88752, 92682, 96785, 101070, 105545, 110218,
    115098, 120194, 125515, 131072,
];

/// 2^(x / 256) for x in Q8 (x >= 0), within 0.1 %, saturating at u64::MAX.
pub fn exp2_q8(x: i32) -> u64 {
    if x < 0 {
        return 0;
    }
    let int = (x >> 8) as u32;
    if int >= 47 {
        return u64::MAX;
    }
    let f = (x & 0xff) as usize;
    let (i, r) = (f >> 4, (f & 15) as u64);
    let lo = EXP2_Q16.get(i).copied().unwrap_or(65536);
    let hi = EXP2_Q16.get(i + 1).copied().unwrap_or(131072);
    // The table rises, hi - lo < 2^16 and r < 16: nothing here overflows.
    let frac_q16 = lo.saturating_add(hi.saturating_sub(lo).saturating_mul(r) >> 4);
    (frac_q16 << int) >> 16
}

/// Bounds `v` to `lo..=hi`; unlike `Ord::clamp` it cannot panic (`lo` wins when `lo > hi`).
#[inline]
pub fn clamp_i32(v: i32, lo: i32, hi: i32) -> i32 {
    v.min(hi).max(lo)
}
