//! SAD of blocks against a prediction, or against the rounded average of
//! two, with SSE2 (PSADBW sums 16 absolute differences at once, PAVGB is
//! exactly the (a + b + 1) >> 1 of Table 8-12) and AVX2 (two rows of 16
//! samples at a time).

use crate::inter;
use core::arch::x86_64::*;

/// [`inter::sad`] with SSE2 for blocks 8 and 16 wide.
pub fn sad_sse2(a: &[u8], sa: usize, b: &[u8], sb: usize, w: usize, h: usize) -> u32 {
    if w == 16 || w == 8 {
        sad_rows(a, sa, b, sb, w, h, None)
    } else {
        inter::sad(a, sa, b, sb, w, h)
    }
}

/// [`inter::sad_avg`] with SSE2 for blocks 8 and 16 wide.
pub fn sad_avg_sse2(
    src: &[u8],
    ss: usize,
    a: &[u8],
    b: &[u8],
    stride: usize,
    w: usize,
    h: usize,
) -> u32 {
    if w == 16 || w == 8 {
        sad_rows(src, ss, a, stride, w, h, Some(b))
    } else {
        inter::sad_avg(src, ss, a, b, stride, w, h)
    }
}

/// [`inter::sad`] with AVX2 for blocks 16 wide of even height, else [`sad_sse2`].
pub fn sad_avx2(a: &[u8], sa: usize, b: &[u8], sb: usize, w: usize, h: usize) -> u32 {
    if w == 16 && h.is_multiple_of(2) {
        sad16_avx2(a, sa, b, sb, h, None)
    } else {
        sad_sse2(a, sa, b, sb, w, h)
    }
}

/// [`inter::sad_avg`] with AVX2 for blocks 16 wide of even height, else [`sad_avg_sse2`].
pub fn sad_avg_avx2(
    src: &[u8],
    ss: usize,
    a: &[u8],
    b: &[u8],
    stride: usize,
    w: usize,
    h: usize,
) -> u32 {
    if w == 16 && h.is_multiple_of(2) {
        sad16_avx2(src, ss, a, stride, h, Some(b))
    } else {
        sad_avg_sse2(src, ss, a, b, stride, w, h)
    }
}

/// SAD of `w` (8 or 16) x `h` blocks; with `avg`, against the rounded average of `b` and `avg`.
#[inline(always)]
fn sad_rows(
    a: &[u8],
    sa: usize,
    b: &[u8],
    sb: usize,
    w: usize,
    h: usize,
    avg: Option<&[u8]>,
) -> u32 {
    // One bounds check per block instead of one per row.
    let last = |stride: usize| (h.max(1) - 1) * stride + w;
    assert!(a.len() >= last(sa) && b.len() >= last(sb) && avg.is_none_or(|c| c.len() >= last(sb)));
    let load = |p: *const u8| {
        // SAFETY: SSE2 is part of x86_64; callers pass row starts whose
        // `w` bytes lie inside the slices (asserted above).
        unsafe {
            if w == 16 {
                _mm_loadu_si128(p as *const __m128i)
            } else {
                _mm_loadl_epi64(p as *const __m128i)
            }
        }
    };
    // SAFETY: SSE2 arithmetic; every row start y * stride is within the
    // slices, with `w` bytes after it (asserted above).
    unsafe {
        let mut acc = _mm_setzero_si128();
        for y in 0..h {
            let va = load(a.as_ptr().add(y * sa));
            let mut vb = load(b.as_ptr().add(y * sb));
            if let Some(c) = avg {
                vb = _mm_avg_epu8(vb, load(c.as_ptr().add(y * sb)));
            }
            acc = _mm_add_epi64(acc, _mm_sad_epu8(va, vb));
        }
        let hi = _mm_unpackhi_epi64(acc, acc);
        let total = if w == 16 { _mm_add_epi64(acc, hi) } else { acc };
        _mm_cvtsi128_si32(total) as u32
    }
}

/// SAD of 16-wide blocks of even height two rows at a time with AVX2;
/// with `avg`, against the rounded average of `b` and `avg`.
fn sad16_avx2(a: &[u8], sa: usize, b: &[u8], sb: usize, h: usize, avg: Option<&[u8]>) -> u32 {
    let last = |stride: usize| (h.max(1) - 1) * stride + 16;
    assert!(h.is_multiple_of(2) && a.len() >= last(sa) && b.len() >= last(sb));
    assert!(avg.is_none_or(|c| c.len() >= last(sb)));
    // SAFETY: only the AVX2 table reaches this function, and only on a CPU
    // with AVX2 (see the module `x86`); every row read lies inside its
    // slice (asserted above).
    unsafe { sad16(a.as_ptr(), sa, b.as_ptr(), sb, h, avg.map(|c| c.as_ptr())) }
}

/// # Safety
/// AVX2 present; `h` rows of 16 bytes readable at `a`, `b` (and `avg`).
#[target_feature(enable = "avx2")]
unsafe fn sad16(
    a: *const u8,
    sa: usize,
    b: *const u8,
    sb: usize,
    h: usize,
    avg: Option<*const u8>,
) -> u32 {
    // SAFETY: the caller guarantees the rows are readable; with a stride of
    // 16 two rows are 32 contiguous bytes.
    unsafe {
        let rows = |p: *const u8, s: usize, y: usize| {
            if s == 16 {
                _mm256_loadu_si256(p.add(y * 16) as *const __m256i)
            } else {
                _mm256_loadu2_m128i(
                    p.add((y + 1) * s) as *const __m128i,
                    p.add(y * s) as *const __m128i,
                )
            }
        };
        let mut acc = _mm256_setzero_si256();
        for y in (0..h).step_by(2) {
            let va = rows(a, sa, y);
            let mut vb = rows(b, sb, y);
            if let Some(c) = avg {
                vb = _mm256_avg_epu8(vb, rows(c, sb, y));
            }
            acc = _mm256_add_epi64(acc, _mm256_sad_epu8(va, vb));
        }
        let sum = _mm_add_epi64(
            _mm256_castsi256_si128(acc),
            _mm256_extracti128_si256::<1>(acc),
        );
        (_mm_cvtsi128_si64(sum) + _mm_extract_epi64::<1>(sum)) as u32
    }
}
