//! The P_Skip test (does an inter residual quantize to nothing?) with SSE2,
//! two 4x4 blocks side by side in 16-bit lanes, and AVX2, four: the forward
//! transform, then |c| against the smallest level-making coefficient of
//! each position class, `zero_check::thresholds`.

use crate::transform::{hadamard2x2, quant_chroma_dc};
use crate::zero_check::thresholds;
use core::arch::x86_64::*;

/// Forward core transform of two 4x4 blocks side by side: `r[k]` holds row
/// k of block A in lanes 0-3 and of block B in lanes 4-7. Returns `h[j]`
/// with coefficient (row i, column j) of A in lane i and of B in lane 4 + i.
#[inline(always)]
fn fdct_pair(r: [__m128i; 4]) -> [__m128i; 4] {
    // SAFETY: SSE2 is part of x86_64; register arithmetic only.
    unsafe {
        let butterfly = |a: [__m128i; 4]| {
            let s0 = _mm_add_epi16(a[0], a[3]);
            let s1 = _mm_add_epi16(a[1], a[2]);
            let d0 = _mm_sub_epi16(a[0], a[3]);
            let d1 = _mm_sub_epi16(a[1], a[2]);
            [
                _mm_add_epi16(s0, s1),
                _mm_add_epi16(_mm_add_epi16(d0, d0), d1),
                _mm_sub_epi16(s0, s1),
                _mm_sub_epi16(d0, _mm_add_epi16(d1, d1)),
            ]
        };
        // Down the columns, then transpose each half, then along the rows.
        let v = butterfly(r);
        let t0 = _mm_unpacklo_epi16(v[0], v[1]);
        let t1 = _mm_unpacklo_epi16(v[2], v[3]);
        let t2 = _mm_unpackhi_epi16(v[0], v[1]);
        let t3 = _mm_unpackhi_epi16(v[2], v[3]);
        let u0 = _mm_unpacklo_epi32(t0, t1);
        let u1 = _mm_unpackhi_epi32(t0, t1);
        let u2 = _mm_unpacklo_epi32(t2, t3);
        let u3 = _mm_unpackhi_epi32(t2, t3);
        butterfly([
            _mm_unpacklo_epi64(u0, u2),
            _mm_unpackhi_epi64(u0, u2),
            _mm_unpacklo_epi64(u1, u3),
            _mm_unpackhi_epi64(u1, u3),
        ])
    }
}

/// Per-lane thresholds of [`fdct_pair`]'s output, minus one, per column:
/// for even columns the rows alternate class 0 and 2, for odd columns 2 and 1.
#[inline(always)]
fn lane_limits(t: [i16; 3]) -> [__m128i; 4] {
    let [a, b, c] = t.map(|v| v - 1);
    // SAFETY: SSE2 is part of x86_64.
    unsafe {
        let even = _mm_setr_epi16(a, c, a, c, a, c, a, c);
        let odd = _mm_setr_epi16(c, b, c, b, c, b, c, b);
        [even, odd, even, odd]
    }
}

/// Lanes where |c| reaches its threshold (a non-zero level).
#[inline(always)]
fn over(h: [__m128i; 4], lim: [__m128i; 4]) -> __m128i {
    // SAFETY: SSE2 is part of x86_64; register arithmetic only.
    unsafe {
        let z = _mm_setzero_si128();
        let mut any = z;
        for (c, l) in h.iter().zip(lim) {
            let a = _mm_max_epi16(*c, _mm_sub_epi16(z, *c));
            any = _mm_or_si128(any, _mm_cmpgt_epi16(a, l));
        }
        any
    }
}

/// Residual rows of two 4x4 blocks: 8 samples of `a` minus 8 of `b`, four rows.
#[inline(always)]
fn residual_rows(a: &[u8], sa: usize, b: &[u8], sb: usize) -> [__m128i; 4] {
    assert!(a.len() >= 3 * sa + 8 && b.len() >= 3 * sb + 8);
    // SAFETY: each 8-byte load at k * stride lies in the slices (asserted).
    unsafe {
        let z = _mm_setzero_si128();
        core::array::from_fn(|k| {
            let x = _mm_loadl_epi64(a.as_ptr().add(k * sa) as *const __m128i);
            let y = _mm_loadl_epi64(b.as_ptr().add(k * sb) as *const __m128i);
            _mm_sub_epi16(_mm_unpacklo_epi8(x, z), _mm_unpacklo_epi8(y, z))
        })
    }
}

/// [`zero_check::luma_is_zero`](crate::zero_check::luma_is_zero) two 4x4
/// blocks at a time (see [`fdct_pair`]).
pub fn luma_is_zero_sse2(src: &[u8; 256], pred: &[u8; 256], qp: i32) -> bool {
    let lim = lane_limits(thresholds(qp));
    for by in 0..4 {
        for bx in [0, 8] {
            let o = by * 64 + bx;
            let h = fdct_pair(residual_rows(&src[o..], 16, &pred[o..], 16));
            // SAFETY: SSE2 is part of x86_64.
            if unsafe { _mm_movemask_epi8(over(h, lim)) } != 0 {
                return false;
            }
        }
    }
    true
}

/// [`fdct_pair`] on both 128-bit halves of AVX2 vectors: four 4x4 blocks.
#[target_feature(enable = "avx2")]
#[inline]
fn fdct_quad(r: [__m256i; 4]) -> [__m256i; 4] {
    let butterfly = |a: [__m256i; 4]| {
        let s0 = _mm256_add_epi16(a[0], a[3]);
        let s1 = _mm256_add_epi16(a[1], a[2]);
        let d0 = _mm256_sub_epi16(a[0], a[3]);
        let d1 = _mm256_sub_epi16(a[1], a[2]);
        [
            _mm256_add_epi16(s0, s1),
            _mm256_add_epi16(_mm256_add_epi16(d0, d0), d1),
            _mm256_sub_epi16(s0, s1),
            _mm256_sub_epi16(d0, _mm256_add_epi16(d1, d1)),
        ]
    };
    let v = butterfly(r);
    let t0 = _mm256_unpacklo_epi16(v[0], v[1]);
    let t1 = _mm256_unpacklo_epi16(v[2], v[3]);
    let t2 = _mm256_unpackhi_epi16(v[0], v[1]);
    let t3 = _mm256_unpackhi_epi16(v[2], v[3]);
    let u0 = _mm256_unpacklo_epi32(t0, t1);
    let u1 = _mm256_unpackhi_epi32(t0, t1);
    let u2 = _mm256_unpacklo_epi32(t2, t3);
    let u3 = _mm256_unpackhi_epi32(t2, t3);
    butterfly([
        _mm256_unpacklo_epi64(u0, u2),
        _mm256_unpackhi_epi64(u0, u2),
        _mm256_unpacklo_epi64(u1, u3),
        _mm256_unpackhi_epi64(u1, u3),
    ])
}

/// [`over`] for [`fdct_quad`]'s output: true when a level is non-zero.
#[target_feature(enable = "avx2")]
#[inline]
fn any_over(h: [__m256i; 4], lim: [__m256i; 4]) -> bool {
    let mut any = _mm256_setzero_si256();
    for (c, l) in h.iter().zip(lim) {
        any = _mm256_or_si256(any, _mm256_cmpgt_epi16(_mm256_abs_epi16(*c), l));
    }
    _mm256_movemask_epi8(any) != 0
}

/// [`zero_check::luma_is_zero`](crate::zero_check::luma_is_zero) four 4x4
/// blocks at a time (a row of them) in AVX2 lanes: each 128-bit half
/// computes as [`fdct_pair`] does.
pub fn luma_is_zero_avx2(src: &[u8; 256], pred: &[u8; 256], qp: i32) -> bool {
    // SAFETY: only the AVX2 table reaches this function, and only on a CPU
    // with AVX2 (see the module `x86`).
    unsafe { luma_avx2(src, pred, qp) }
}

/// [`luma_is_zero_avx2`].
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
unsafe fn luma_avx2(src: &[u8; 256], pred: &[u8; 256], qp: i32) -> bool {
    let lim = lane_limits(thresholds(qp));
    // SAFETY: AVX2 is present (the caller's promise); every 16-byte load
    // reads one row of the 256-byte arrays.
    unsafe {
        let lim: [__m256i; 4] = core::array::from_fn(|k| _mm256_broadcastsi128_si256(lim[k]));
        for by in 0..4 {
            let r: [__m256i; 4] = core::array::from_fn(|k| {
                let o = (by * 4 + k) * 16;
                let x = _mm_loadu_si128(src.as_ptr().add(o) as *const __m128i);
                let y = _mm_loadu_si128(pred.as_ptr().add(o) as *const __m128i);
                _mm256_sub_epi16(_mm256_cvtepu8_epi16(x), _mm256_cvtepu8_epi16(y))
            });
            if any_over(fdct_quad(r), lim) {
                return false;
            }
        }
        true
    }
}

/// [`zero_check::chroma_is_zero`](crate::zero_check::chroma_is_zero) a
/// whole 8x8 plane at a time in AVX2 lanes: the upper two blocks in the low
/// 128-bit half, the lower two in the high one.
pub fn chroma_is_zero_avx2(
    planes: [&[u8]; 2],
    cs: usize,
    x: usize,
    y: usize,
    qpc: i32,
    preds: &[[u8; 64]; 2],
) -> bool {
    // SAFETY: only the AVX2 table reaches this function, and only on a CPU
    // with AVX2 (see the module `x86`).
    unsafe { chroma_avx2(planes, cs, x, y, qpc, preds) }
}

/// [`chroma_is_zero_avx2`].
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
unsafe fn chroma_avx2(
    planes: [&[u8]; 2],
    cs: usize,
    x: usize,
    y: usize,
    qpc: i32,
    preds: &[[u8; 64]; 2],
) -> bool {
    let mut lim = lane_limits(thresholds(qpc));
    for p in planes {
        assert!(
            p.len() >= (y + 7) * cs + x + 8,
            "chroma block outside its plane"
        );
    }
    // SAFETY: AVX2 is present (the caller's promise); every 8-byte load
    // reads one row of the block inside its plane (asserted above) or of
    // the 64-byte prediction.
    unsafe {
        // The DC lanes are checked after the 2x2 Hadamard transform instead.
        lim[0] = _mm_insert_epi16::<0>(lim[0], i16::MAX as i32);
        lim[0] = _mm_insert_epi16::<4>(lim[0], i16::MAX as i32);
        let lim: [__m256i; 4] = core::array::from_fn(|k| _mm256_broadcastsi128_si256(lim[k]));
        for c in 0..2 {
            let rows = |p: *const u8, stride: usize, k: usize| {
                let up = _mm_loadl_epi64(p.add(k * stride) as *const __m128i);
                let down = _mm_loadl_epi64(p.add((k + 4) * stride) as *const __m128i);
                _mm256_cvtepu8_epi16(_mm_unpacklo_epi64(up, down))
            };
            let src = planes[c].as_ptr().add(y * cs + x);
            let r: [__m256i; 4] = core::array::from_fn(|k| {
                _mm256_sub_epi16(rows(src, cs, k), rows(preds[c].as_ptr(), 8, k))
            });
            let h = fdct_quad(r);
            if any_over(h, lim) {
                return false;
            }
            let mut dc = [
                _mm256_extract_epi16::<0>(h[0]) as i16 as i32,
                _mm256_extract_epi16::<4>(h[0]) as i16 as i32,
                _mm256_extract_epi16::<8>(h[0]) as i16 as i32,
                _mm256_extract_epi16::<12>(h[0]) as i16 as i32,
            ];
            hadamard2x2(&mut dc);
            if quant_chroma_dc(&mut dc, qpc, false) {
                return false;
            }
        }
        true
    }
}

/// [`zero_check::chroma_is_zero`](crate::zero_check::chroma_is_zero) two
/// 4x4 blocks at a time (see [`fdct_pair`]), the DC levels after the 2x2
/// Hadamard transform.
pub fn chroma_is_zero_sse2(
    planes: [&[u8]; 2],
    cs: usize,
    x: usize,
    y: usize,
    qpc: i32,
    preds: &[[u8; 64]; 2],
) -> bool {
    let mut lim = lane_limits(thresholds(qpc));
    // SAFETY: SSE2 is part of x86_64. The DC lanes (row 0 of column 0 of
    // each block) are checked after the 2x2 Hadamard transform instead.
    unsafe {
        lim[0] = _mm_insert_epi16::<0>(lim[0], i16::MAX as i32);
        lim[0] = _mm_insert_epi16::<4>(lim[0], i16::MAX as i32);
    }
    for c in 0..2 {
        let mut dc = [0i32; 4];
        for half in 0..2 {
            let o = (y + half * 4) * cs + x;
            let h = fdct_pair(residual_rows(
                &planes[c][o..],
                cs,
                &preds[c][half * 32..],
                8,
            ));
            // SAFETY: SSE2 is part of x86_64.
            unsafe {
                if _mm_movemask_epi8(over(h, lim)) != 0 {
                    return false;
                }
                dc[half * 2] = _mm_extract_epi16::<0>(h[0]) as i16 as i32;
                dc[half * 2 + 1] = _mm_extract_epi16::<4>(h[0]) as i16 as i32;
            }
        }
        hadamard2x2(&mut dc);
        if quant_chroma_dc(&mut dc, qpc, false) {
            return false;
        }
    }
    true
}
