//! The rounded average of two predictions with SSE2, whose PAVGB computes
//! exactly the (a + b + 1) >> 1 of Table 8-12.

use crate::refpic;
use core::arch::x86_64::*;

/// [`refpic::average_rows`] with SSE2 for rows of 16 and 8 samples.
pub fn average_rows_sse2(
    a: &[u8],
    b: &[u8],
    st: usize,
    out: &mut [u8],
    os: usize,
    w: usize,
    h: usize,
) {
    if h == 0 || (w != 16 && w != 8) {
        return refpic::average_rows(a, b, st, out, os, w, h);
    }
    let (a, b) = (&a[..(h - 1) * st + w], &b[..(h - 1) * st + w]);
    let out = &mut out[..(h - 1) * os + w];
    for row in 0..h {
        // SAFETY: SSE2 is part of x86_64; row * stride + w lies within
        // each slice for row < h (cut to those lengths above).
        unsafe {
            let (pa, pb) = (a.as_ptr().add(row * st), b.as_ptr().add(row * st));
            let po = out.as_mut_ptr().add(row * os);
            if w == 16 {
                let v = _mm_avg_epu8(
                    _mm_loadu_si128(pa as *const __m128i),
                    _mm_loadu_si128(pb as *const __m128i),
                );
                _mm_storeu_si128(po as *mut __m128i, v);
            } else {
                let v = _mm_avg_epu8(
                    _mm_loadl_epi64(pa as *const __m128i),
                    _mm_loadl_epi64(pb as *const __m128i),
                );
                _mm_storel_epi64(po as *mut __m128i, v);
            }
        }
    }
}
