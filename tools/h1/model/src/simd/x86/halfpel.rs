//! The half-sample planes of clause 8.4.2.2.1 with AVX2, 32 samples per
//! step, row by row (the h1 intermediates of one row stay in cache): the
//! 6-tap sums of h1, h and b fit 16-bit lanes (-2550..10710); j sums h1
//! values, which needs 32 bits, so its taps are paired with `vpmaddwd`. The
//! same arithmetic as the plain `half_planes` of `refpic.rs`.

use crate::refpic::{self, HalfPlanes};
use core::arch::x86_64::*;

/// [`refpic::half_planes`]: h of rows 2..rows - 3 and b and j of columns
/// 2..stride - 3, of the rows `first..end`, 32 samples per step (planes
/// too small for a step take the plain function).
pub fn half_planes_avx2(mut p: HalfPlanes<'_>) {
    if p.stride < 40 || p.rows < 6 {
        return refpic::half_planes(p);
    }
    let n = p.stride * p.rows;
    assert!(p.first <= p.end && p.end <= p.rows);
    let band = p.stride * (p.end - p.first);
    assert!(p.g.len() >= n && p.h1.len() >= p.stride && p.b.len() >= band);
    assert!(p.h.len() >= band && p.j.len() >= band);
    // SAFETY: only the AVX2 table reaches this function, and only on a CPU
    // with AVX2 (see the module `x86`); every access of the routines stays
    // inside the first stride * rows elements of g and the band's
    // stride * (end - first) of the others (see each).
    unsafe {
        for y in p.first..p.end {
            if (2..p.rows - 3).contains(&y) {
                vertical(&mut p, y);
            } else {
                p.h1[..p.stride].fill(0);
            }
            horizontal(&mut p, y);
        }
    }
}

/// 6-tap of six 16-bit vectors: a - 5b + 20c + 20d - 5e + f.
#[inline(always)]
unsafe fn tap6_16(
    a: __m256i,
    b: __m256i,
    c: __m256i,
    d: __m256i,
    e: __m256i,
    f: __m256i,
) -> __m256i {
    // SAFETY: register arithmetic only; the caller has AVX2.
    unsafe {
        let cd = _mm256_add_epi16(c, d);
        let be = _mm256_add_epi16(b, e);
        let af = _mm256_add_epi16(a, f);
        // 20cd - 5be = 5 (4cd - be).
        let t = _mm256_sub_epi16(_mm256_slli_epi16(cd, 2), be);
        _mm256_add_epi16(af, _mm256_add_epi16(_mm256_slli_epi16(t, 2), t))
    }
}

/// Clip1((v + 16) >> 5) of two vectors of 16 sums, as 32 bytes in order.
#[inline(always)]
unsafe fn round5_pack(lo: __m256i, hi: __m256i) -> __m256i {
    // SAFETY: register arithmetic only; the caller has AVX2.
    unsafe {
        let r = _mm256_set1_epi16(16);
        let lo = _mm256_srai_epi16(_mm256_add_epi16(lo, r), 5);
        let hi = _mm256_srai_epi16(_mm256_add_epi16(hi, r), 5);
        _mm256_permute4x64_epi64(_mm256_packus_epi16(lo, hi), 0xd8)
    }
}

/// 16 samples from `p` widened to 16 bits.
#[inline(always)]
unsafe fn load16(p: *const u8) -> __m256i {
    // SAFETY: the caller guarantees 16 readable bytes at `p` and AVX2.
    unsafe { _mm256_cvtepu8_epi16(_mm_loadu_si128(p as *const __m128i)) }
}

/// h1 and h of row `y` (2..rows - 3, in first..end): vertical taps of every column.
///
/// # Safety
/// AVX2 present; g holds stride * rows elements, h the band's rows, h1 stride.
#[target_feature(enable = "avx2")]
unsafe fn vertical(p: &mut HalfPlanes<'_>, y: usize) {
    let s = p.stride;
    let g = p.g.as_ptr();
    let h1 = p.h1.as_mut_ptr();
    let h = p.h.as_mut_ptr();
    // Reads rows y - 2..=y + 3 at x..x + 32 <= s; writes row y. The last
    // step is moved back to end at s (recomputing some columns).
    for step in 0..s.div_ceil(32) {
        let x = (32 * step).min(s - 32);
        // SAFETY: every offset of g is below (y + 4) * s <= rows * s; of
        // h, below (y - first + 1) * s, within the band.
        unsafe {
            let r = |k: usize, o: usize| load16(g.add((y + k - 2) * s + x + o));
            let lo = tap6_16(r(0, 0), r(1, 0), r(2, 0), r(3, 0), r(4, 0), r(5, 0));
            let hi = tap6_16(r(0, 16), r(1, 16), r(2, 16), r(3, 16), r(4, 16), r(5, 16));
            _mm256_storeu_si256(h1.add(x) as *mut __m256i, lo);
            _mm256_storeu_si256(h1.add(x + 16) as *mut __m256i, hi);
            let out = (y - p.first) * s + x;
            _mm256_storeu_si256(h.add(out) as *mut __m256i, round5_pack(lo, hi));
        }
    }
}

/// b of row `y` (in first..end) from the samples and j from the row's h1:
/// horizontal taps.
///
/// # Safety
/// AVX2 present; g holds stride * rows elements, b and j the band's rows, h1 stride.
#[target_feature(enable = "avx2")]
unsafe fn horizontal(p: &mut HalfPlanes<'_>, y: usize) {
    let s = p.stride;
    let b = p.b.as_mut_ptr();
    let j = p.j.as_mut_ptr();
    let h1 = p.h1.as_ptr();
    let row = y * s;
    let band_row = (y - p.first) * s;
    // Output x reads x - 2..=x + 3 of its row; a step reads up to x + 34 < s.
    // The last step is moved back to end at s - 3: it recomputes some
    // outputs, which is cheaper than a scalar tail.
    let steps = (s - 5).div_ceil(32);
    for step in 0..steps {
        let x = (2 + 32 * step).min(s - 3 - 32);
        // SAFETY: g offsets lie in row y, below rows * s; b and j
        // offsets in the band's row y - first; h1 offsets x - 2..x + 34
        // lie below s.
        unsafe {
            let gp = p.g.as_ptr().add(row + x - 2);
            let t = |o: usize| load16(gp.add(o));
            let lo = tap6_16(t(0), t(1), t(2), t(3), t(4), t(5));
            let hi = tap6_16(t(16), t(17), t(18), t(19), t(20), t(21));
            _mm256_storeu_si256(b.add(band_row + x) as *mut __m256i, round5_pack(lo, hi));
            let hp = h1.add(x - 2);
            let lo = j16(hp);
            let hi = j16(hp.add(16));
            _mm256_storeu_si256(
                j.add(band_row + x) as *mut __m256i,
                _mm256_permute4x64_epi64(_mm256_packus_epi16(lo, hi), 0xd8),
            );
        }
    }
}

/// (6-tap of h1 + 512) >> 10 for 16 outputs whose taps start at `hp`,
/// saturated to 16 bits (in range for the final Clip1 by packus).
///
/// # Safety
/// AVX2 present; 21 values readable at `hp`.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn j16(hp: *const i16) -> __m256i {
    // SAFETY: the caller guarantees 21 readable values at `hp`.
    unsafe {
        let t = |o: usize| _mm256_loadu_si256(hp.add(o) as *const __m256i);
        // Pairwise sums stay in 16 bits: |h1| <= 10710.
        let af = _mm256_add_epi16(t(0), t(5));
        let be = _mm256_add_epi16(t(1), t(4));
        let cd = _mm256_add_epi16(t(2), t(3));
        let k = _mm256_set1_epi32(((-5i32) << 16) | 1);
        let w = _mm256_set1_epi32((20i32 << 16) | 1);
        let z = _mm256_setzero_si256();
        // af - 5 be, then 20 cd (paired with zero), in 32 bits.
        let sum = |afbe: __m256i, cdz: __m256i| {
            let v = _mm256_add_epi32(_mm256_madd_epi16(afbe, k), _mm256_madd_epi16(cdz, w));
            _mm256_srai_epi32(_mm256_add_epi32(v, _mm256_set1_epi32(512)), 10)
        };
        // cd is placed in the high half of each pair, multiplied by 20; the low half is 0.
        let lo = sum(_mm256_unpacklo_epi16(af, be), _mm256_unpacklo_epi16(z, cd));
        let hi = sum(_mm256_unpackhi_epi16(af, be), _mm256_unpackhi_epi16(z, cd));
        _mm256_packs_epi32(lo, hi)
    }
}
