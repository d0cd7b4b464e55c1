//! The edge filters of 8.7.2.3 and 8.7.2.4 with SSE2 (part of x86_64): the 16
//! lines of a luma edge at once, and the 8 lines of a chroma edge of Cb and
//! Cr together; the same arithmetic as the plain filters of `deblock.rs`.
//! And the frame loop of `deblock.rs` around them, compiled for SSE2 and for
//! AVX2.

use crate::deblock::{self, DeblockParams, DeblockRows};
use crate::tables::{ALPHA, BETA, TC0};
use core::arch::x86_64::*;

/// [`deblock::deblock`] with the SSE2 edge filters.
pub fn deblock_sse2(r: DeblockRows<'_>, p: &DeblockParams) {
    deblock::deblock_with(r, p, filter_luma_edge_sse2, filter_chroma_edge_sse2);
}

/// [`deblock_sse2`] compiled for AVX2.
pub fn deblock_avx2(r: DeblockRows<'_>, p: &DeblockParams) {
    #[target_feature(enable = "avx2")]
    fn avx2(r: DeblockRows<'_>, p: &DeblockParams) {
        deblock::deblock_with(r, p, filter_luma_edge_sse2, filter_chroma_edge_sse2);
    }
    // SAFETY: only the AVX2 table reaches this function, and only on a CPU
    // with AVX2 (see the module `x86`).
    unsafe { avx2(r, p) }
}

/// [`deblock::filter_luma_edge`], the 16 lines at once.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn filter_luma_edge_sse2(
    plane: &mut [u8],
    stride: usize,
    x0: usize,
    y0: usize,
    pos: usize,
    vertical: bool,
    bs: &[u8; 4],
    index_a: usize,
    index_b: usize,
) {
    // The eight samples p3..q3 of the 16 lines as 16-byte vectors.
    let (first, last) = if vertical {
        (
            (y0) * stride + x0 + pos - 4,
            (y0 + 15) * stride + x0 + pos + 4,
        )
    } else {
        (
            (y0 + pos - 4) * stride + x0,
            (y0 + pos + 3) * stride + x0 + 16,
        )
    };
    assert!(last <= plane.len() && first < last);
    // SAFETY: SSE2 is part of x86_64; every load and store touches bytes
    // between `first` and `last`, inside `plane` (asserted above).
    unsafe {
        let base = plane.as_mut_ptr();
        let mut v = [_mm_setzero_si128(); 8];
        if vertical {
            let mut rows = [_mm_setzero_si128(); 16];
            for (i, r) in rows.iter_mut().enumerate() {
                *r = _mm_loadl_epi64(base.add(first + i * stride) as *const __m128i);
            }
            v = transpose_16x8(&rows);
        } else {
            for (i, r) in v.iter_mut().enumerate() {
                *r = _mm_loadu_si128(base.add(first + i * stride) as *const __m128i);
            }
        }
        let z = _mm_setzero_si128();
        let lo: [__m128i; 8] = core::array::from_fn(|i| _mm_unpacklo_epi8(v[i], z));
        let hi: [__m128i; 8] = core::array::from_fn(|i| _mm_unpackhi_epi8(v[i], z));
        let params = |b0: u8, b1: u8| {
            let tc = |b: u8| {
                if (1..4).contains(&b) {
                    TC0[index_a][b as usize - 1] as i16
                } else {
                    0
                }
            };
            (
                _mm_set_epi16(
                    b1 as i16, b1 as i16, b1 as i16, b1 as i16, b0 as i16, b0 as i16, b0 as i16,
                    b0 as i16,
                ),
                _mm_set_epi16(
                    tc(b1),
                    tc(b1),
                    tc(b1),
                    tc(b1),
                    tc(b0),
                    tc(b0),
                    tc(b0),
                    tc(b0),
                ),
            )
        };
        let alpha = ALPHA[index_a] as i16;
        let beta = BETA[index_b] as i16;
        let (bs_lo, tc_lo) = params(bs[0], bs[1]);
        let (bs_hi, tc_hi) = params(bs[2], bs[3]);
        let out_lo = filter8(&lo, bs_lo, tc_lo, alpha, beta);
        let out_hi = filter8(&hi, bs_hi, tc_hi, alpha, beta);
        for i in 0..8 {
            v[i] = _mm_packus_epi16(out_lo[i], out_hi[i]);
        }
        if vertical {
            let rows = transpose_8x16(&v);
            for (i, r) in rows.iter().enumerate() {
                _mm_storel_epi64(base.add(first + i * stride) as *mut __m128i, *r);
            }
        } else {
            // p3 and q3 never change.
            for (i, r) in v.iter().enumerate().take(7).skip(1) {
                _mm_storeu_si128(base.add(first + i * stride) as *mut __m128i, *r);
            }
        }
    }
}

/// [`deblock::filter_chroma_edge`], the 8 lines of Cb and of Cr at once.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn filter_chroma_edge_sse2(
    cb: &mut [u8],
    cr: &mut [u8],
    stride: usize,
    x0: usize,
    y0: usize,
    pos: usize,
    vertical: bool,
    bs: &[u8; 4],
    index_a: usize,
    index_b: usize,
) {
    // Each line's p3..q3 (only p1..q1 are read, only p0 and q0 written).
    let (first, last) = if vertical {
        (y0 * stride + x0 + pos - 4, (y0 + 7) * stride + x0 + pos + 4)
    } else {
        (
            (y0 + pos - 4) * stride + x0,
            (y0 + pos + 3) * stride + x0 + 8,
        )
    };
    assert!(last <= cb.len() && last <= cr.len() && first < last);
    // SAFETY: SSE2 is part of x86_64; every load and store touches 8 bytes
    // between `first` and `last` of `cb` or `cr` (asserted above).
    unsafe {
        let (pb, pr) = (cb.as_mut_ptr(), cr.as_mut_ptr());
        let load = |p: *mut u8, o: usize| _mm_loadl_epi64(p.add(o) as *const __m128i);
        // Lanes 0-7: the Cb lines, 8-15: the Cr lines.
        let v: [__m128i; 8] = if vertical {
            let rows: [__m128i; 16] = core::array::from_fn(|i| {
                let p = if i < 8 { pb } else { pr };
                load(p, first + (i % 8) * stride)
            });
            transpose_16x8(&rows)
        } else {
            core::array::from_fn(|i| {
                let o = first + i * stride;
                _mm_unpacklo_epi64(load(pb, o), load(pr, o))
            })
        };
        let z = _mm_setzero_si128();
        let wide = |x: __m128i| (_mm_unpacklo_epi8(x, z), _mm_unpackhi_epi8(x, z));
        let (p1, p0, q0, q1) = (wide(v[2]), wide(v[3]), wide(v[4]), wide(v[5]));
        let b = |k: usize| bs[k] as i16;
        let tc = |k: usize| {
            if (1..4).contains(&bs[k]) {
                TC0[index_a][bs[k] as usize - 1] as i16 + 1
            } else {
                0
            }
        };
        // Line k of a plane takes the strength of luma block k / 2.
        let bsv = _mm_set_epi16(b(3), b(3), b(2), b(2), b(1), b(1), b(0), b(0));
        let tcv = _mm_set_epi16(tc(3), tc(3), tc(2), tc(2), tc(1), tc(1), tc(0), tc(0));
        let (alpha, beta) = (ALPHA[index_a] as i16, BETA[index_b] as i16);
        let (p0l, q0l) = filter_chroma8(p1.0, p0.0, q0.0, q1.0, bsv, tcv, alpha, beta);
        let (p0h, q0h) = filter_chroma8(p1.1, p0.1, q0.1, q1.1, bsv, tcv, alpha, beta);
        let (np0, nq0) = (_mm_packus_epi16(p0l, p0h), _mm_packus_epi16(q0l, q0h));
        let store =
            |p: *mut u8, o: usize, x: __m128i| _mm_storel_epi64(p.add(o) as *mut __m128i, x);
        if vertical {
            let mut c = v;
            c[3] = np0;
            c[4] = nq0;
            let rows = transpose_8x16(&c);
            for (i, r) in rows.iter().enumerate() {
                let p = if i < 8 { pb } else { pr };
                store(p, first + (i % 8) * stride, *r);
            }
        } else {
            for (k, x) in [(3, np0), (4, nq0)] {
                let o = first + k * stride;
                store(pb, o, x);
                store(pr, o, _mm_srli_si128::<8>(x));
            }
        }
    }
}

/// The chroma filter of eight lines (16-bit lanes): new p0 and q0.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn filter_chroma8(
    p1: __m128i,
    p0: __m128i,
    q0: __m128i,
    q1: __m128i,
    bs: __m128i,
    tc: __m128i,
    alpha: i16,
    beta: i16,
) -> (__m128i, __m128i) {
    // SAFETY: SSE2 register arithmetic; values stay within 16 bits.
    unsafe {
        let z = _mm_setzero_si128();
        let (va, vb) = (_mm_set1_epi16(alpha), _mm_set1_epi16(beta));
        let filter = _mm_and_si128(
            _mm_andnot_si128(
                _mm_cmpeq_epi16(bs, z),
                _mm_cmplt_epi16(abs_diff(p0, q0), va),
            ),
            _mm_and_si128(
                _mm_cmplt_epi16(abs_diff(p1, p0), vb),
                _mm_cmplt_epi16(abs_diff(q1, q0), vb),
            ),
        );
        let bs4 = _mm_cmpeq_epi16(bs, _mm_set1_epi16(4));
        let c255 = _mm_set1_epi16(255);
        let clip = |v: __m128i| _mm_min_epi16(_mm_max_epi16(v, z), c255);
        // bS < 4 (8.7.2.3, chromaStyleFilteringFlag): tC = tC0 + 1.
        let delta = _mm_srai_epi16::<3>(_mm_add_epi16(
            _mm_add_epi16(
                _mm_slli_epi16::<2>(_mm_sub_epi16(q0, p0)),
                _mm_sub_epi16(p1, q1),
            ),
            _mm_set1_epi16(4),
        ));
        let delta = _mm_min_epi16(_mm_max_epi16(delta, _mm_sub_epi16(z, tc)), tc);
        let p0n = clip(_mm_add_epi16(p0, delta));
        let q0n = clip(_mm_sub_epi16(q0, delta));
        // bS 4 (8.7.2.4): (2p1 + p0 + q1 + 2) >> 2 and its mirror.
        let two = _mm_set1_epi16(2);
        let p0s = _mm_srai_epi16::<2>(_mm_add_epi16(
            _mm_add_epi16(_mm_slli_epi16::<1>(p1), p0),
            _mm_add_epi16(q1, two),
        ));
        let q0s = _mm_srai_epi16::<2>(_mm_add_epi16(
            _mm_add_epi16(_mm_slli_epi16::<1>(q1), q0),
            _mm_add_epi16(p1, two),
        ));
        (
            select(filter, select(bs4, p0s, p0n), p0),
            select(filter, select(bs4, q0s, q0n), q0),
        )
    }
}

/// `m ? a : b` lane by lane.
#[inline(always)]
unsafe fn select(m: __m128i, a: __m128i, b: __m128i) -> __m128i {
    // SAFETY: SSE2 register arithmetic.
    unsafe { _mm_or_si128(_mm_and_si128(m, a), _mm_andnot_si128(m, b)) }
}

#[inline(always)]
unsafe fn abs_diff(a: __m128i, b: __m128i) -> __m128i {
    // SAFETY: SSE2 register arithmetic.
    unsafe {
        let d = _mm_sub_epi16(a, b);
        _mm_max_epi16(d, _mm_sub_epi16(_mm_setzero_si128(), d))
    }
}

/// Filters eight lines: `s` holds p3, p2, p1, p0, q0, q1, q2, q3 as 16-bit
/// lanes, `bs` and `tc0` per lane.
#[inline(always)]
unsafe fn filter8(
    s: &[__m128i; 8],
    bs: __m128i,
    tc0: __m128i,
    alpha: i16,
    beta: i16,
) -> [__m128i; 8] {
    // SAFETY: SSE2 register arithmetic; every intermediate value stays
    // within 16 bits (at most 8 x 255 + 4).
    unsafe {
        let [p3, p2, p1, p0, q0, q1, q2, q3] = *s;
        let z = _mm_setzero_si128();
        let (va, vb) = (_mm_set1_epi16(alpha), _mm_set1_epi16(beta));
        let d_pq = abs_diff(p0, q0);
        let filter = _mm_and_si128(
            _mm_andnot_si128(_mm_cmpeq_epi16(bs, z), _mm_cmplt_epi16(d_pq, va)),
            _mm_and_si128(
                _mm_cmplt_epi16(abs_diff(p1, p0), vb),
                _mm_cmplt_epi16(abs_diff(q1, q0), vb),
            ),
        );
        let ap = _mm_cmplt_epi16(abs_diff(p2, p0), vb);
        let aq = _mm_cmplt_epi16(abs_diff(q2, q0), vb);
        let bs4 = _mm_cmpeq_epi16(bs, _mm_set1_epi16(4));
        let c255 = _mm_set1_epi16(255);
        let clip = |v: __m128i| _mm_min_epi16(_mm_max_epi16(v, z), c255);
        let clamp =
            |v: __m128i, t: __m128i| _mm_min_epi16(_mm_max_epi16(v, _mm_sub_epi16(z, t)), t);

        // bS < 4 (8.7.2.3): masks are -1, so subtracting them adds 1.
        let tc = _mm_sub_epi16(_mm_sub_epi16(tc0, ap), aq);
        let delta = _mm_srai_epi16::<3>(_mm_add_epi16(
            _mm_add_epi16(
                _mm_slli_epi16::<2>(_mm_sub_epi16(q0, p0)),
                _mm_sub_epi16(p1, q1),
            ),
            _mm_set1_epi16(4),
        ));
        let delta = clamp(delta, tc);
        let p0n = clip(_mm_add_epi16(p0, delta));
        let q0n = clip(_mm_sub_epi16(q0, delta));
        let avg = _mm_avg_epu16(p0, q0);
        let dp1 = _mm_srai_epi16::<1>(_mm_sub_epi16(
            _mm_add_epi16(p2, avg),
            _mm_slli_epi16::<1>(p1),
        ));
        let dq1 = _mm_srai_epi16::<1>(_mm_sub_epi16(
            _mm_add_epi16(q2, avg),
            _mm_slli_epi16::<1>(q1),
        ));
        let p1n = select(ap, _mm_add_epi16(p1, clamp(dp1, tc0)), p1);
        let q1n = select(aq, _mm_add_epi16(q1, clamp(dq1, tc0)), q1);

        // bS 4 (8.7.2.4).
        let strong = _mm_cmplt_epi16(d_pq, _mm_set1_epi16((alpha >> 2) + 2));
        let (sp, sq) = (_mm_and_si128(ap, strong), _mm_and_si128(aq, strong));
        let two = _mm_set1_epi16(2);
        let four = _mm_set1_epi16(4);
        let p0q0 = _mm_add_epi16(p0, q0);
        // (p2 + 2p1 + 2p0 + 2q0 + q1 + 4) >> 3, (p2 + p1 + p0 + q0 + 2) >> 2,
        // (2p3 + 3p2 + p1 + p0 + q0 + 4) >> 3, else (2p1 + p0 + q1 + 2) >> 2.
        let strong_side = |x2: __m128i, x1: __m128i, x3: __m128i, y1: __m128i, x0: __m128i| {
            let s0 = _mm_srai_epi16::<3>(_mm_add_epi16(
                _mm_add_epi16(x2, _mm_slli_epi16::<1>(_mm_add_epi16(x1, p0q0))),
                _mm_add_epi16(y1, four),
            ));
            let s1 = _mm_srai_epi16::<2>(_mm_add_epi16(
                _mm_add_epi16(x2, x1),
                _mm_add_epi16(p0q0, two),
            ));
            let s2 = _mm_srai_epi16::<3>(_mm_add_epi16(
                _mm_add_epi16(
                    _mm_slli_epi16::<1>(x3),
                    _mm_add_epi16(_mm_slli_epi16::<1>(x2), x2),
                ),
                _mm_add_epi16(_mm_add_epi16(x1, p0q0), four),
            ));
            let weak = _mm_srai_epi16::<2>(_mm_add_epi16(
                _mm_add_epi16(_mm_slli_epi16::<1>(x1), x0),
                _mm_add_epi16(y1, two),
            ));
            (s0, s1, s2, weak)
        };
        let (p0s, p1s, p2s, p0w) = strong_side(p2, p1, p3, q1, p0);
        let (q0s, q1s, q2s, q0w) = strong_side(q2, q1, q3, p1, q0);
        let p0_4 = select(sp, p0s, p0w);
        let p1_4 = select(sp, p1s, p1);
        let p2_4 = select(sp, p2s, p2);
        let q0_4 = select(sq, q0s, q0w);
        let q1_4 = select(sq, q1s, q1);
        let q2_4 = select(sq, q2s, q2);

        let pick = |four: __m128i, normal: __m128i, orig: __m128i| {
            select(filter, select(bs4, four, normal), orig)
        };
        [
            p3,
            pick(p2_4, p2, p2),
            pick(p1_4, p1n, p1),
            pick(p0_4, p0n, p0),
            pick(q0_4, q0n, q0),
            pick(q1_4, q1n, q1),
            pick(q2_4, q2, q2),
            q3,
        ]
    }
}

/// 16 rows of 8 bytes (low halves) to 8 columns of 16 bytes.
#[inline(always)]
unsafe fn transpose_16x8(r: &[__m128i; 16]) -> [__m128i; 8] {
    // SAFETY: SSE2 shuffles.
    unsafe {
        let t: [__m128i; 8] = core::array::from_fn(|i| _mm_unpacklo_epi8(r[2 * i], r[2 * i + 1]));
        let u: [__m128i; 8] = core::array::from_fn(|i| {
            let (a, b) = (t[i / 2 * 2], t[i / 2 * 2 + 1]);
            if i % 2 == 0 {
                _mm_unpacklo_epi16(a, b)
            } else {
                _mm_unpackhi_epi16(a, b)
            }
        });
        // u[0] cols 0-3 rows 0-3, u[1] cols 4-7 rows 0-3, u[2]/u[3] rows 4-7, ...
        let v = [
            _mm_unpacklo_epi32(u[0], u[2]),
            _mm_unpackhi_epi32(u[0], u[2]),
            _mm_unpacklo_epi32(u[1], u[3]),
            _mm_unpackhi_epi32(u[1], u[3]),
            _mm_unpacklo_epi32(u[4], u[6]),
            _mm_unpackhi_epi32(u[4], u[6]),
            _mm_unpacklo_epi32(u[5], u[7]),
            _mm_unpackhi_epi32(u[5], u[7]),
        ];
        [
            _mm_unpacklo_epi64(v[0], v[4]),
            _mm_unpackhi_epi64(v[0], v[4]),
            _mm_unpacklo_epi64(v[1], v[5]),
            _mm_unpackhi_epi64(v[1], v[5]),
            _mm_unpacklo_epi64(v[2], v[6]),
            _mm_unpackhi_epi64(v[2], v[6]),
            _mm_unpacklo_epi64(v[3], v[7]),
            _mm_unpackhi_epi64(v[3], v[7]),
        ]
    }
}

/// 8 columns of 16 bytes back to 16 rows of 8 bytes (in the low halves).
#[inline(always)]
unsafe fn transpose_8x16(c: &[__m128i; 8]) -> [__m128i; 16] {
    // SAFETY: SSE2 shuffles.
    unsafe {
        let a: [__m128i; 8] = core::array::from_fn(|i| {
            let (x, y) = (c[i / 2 * 2], c[i / 2 * 2 + 1]);
            if i % 2 == 0 {
                _mm_unpacklo_epi8(x, y)
            } else {
                _mm_unpackhi_epi8(x, y)
            }
        });
        // a[0]: rows 0-7 of cols 0,1; a[1]: rows 8-15; a[2], a[3]: cols 2,3; ...
        let mut out = [_mm_setzero_si128(); 16];
        for half in 0..2 {
            let (a01, a23, a45, a67) = (a[half], a[2 + half], a[4 + half], a[6 + half]);
            let b0 = _mm_unpacklo_epi16(a01, a23);
            let b1 = _mm_unpackhi_epi16(a01, a23);
            let b2 = _mm_unpacklo_epi16(a45, a67);
            let b3 = _mm_unpackhi_epi16(a45, a67);
            let d = [
                _mm_unpacklo_epi32(b0, b2),
                _mm_unpackhi_epi32(b0, b2),
                _mm_unpacklo_epi32(b1, b3),
                _mm_unpackhi_epi32(b1, b3),
            ];
            for (k, dk) in d.iter().enumerate() {
                out[half * 8 + 2 * k] = *dk;
                out[half * 8 + 2 * k + 1] = _mm_srli_si128::<8>(*dk);
            }
        }
        out
    }
}
