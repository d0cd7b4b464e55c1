//! Interleaved chroma (the NV12 layout) split into planes and joined back
//! with SSE2, 16 pairs at a time.

use core::arch::x86_64::*;

/// [`picture::split_chroma`](crate::picture::split_chroma) 16 pairs at a time.
pub fn split_chroma_sse2(pairs: &[u8], b: &mut [u8], r: &mut [u8]) {
    let n = (pairs.len() / 32).min(b.len() / 16).min(r.len() / 16);
    // SAFETY: SSE2 is part of x86_64; chunk k reads bytes 32k..32k + 32
    // of `pairs` and writes 16k..16k + 16 of `b` and `r`, k < n (above).
    unsafe {
        let lo = _mm_set1_epi16(0xff);
        for k in 0..n {
            let p = pairs.as_ptr().add(32 * k) as *const __m128i;
            let (x, y) = (_mm_loadu_si128(p), _mm_loadu_si128(p.add(1)));
            let cb = _mm_packus_epi16(_mm_and_si128(x, lo), _mm_and_si128(y, lo));
            let cr = _mm_packus_epi16(_mm_srli_epi16::<8>(x), _mm_srli_epi16::<8>(y));
            _mm_storeu_si128(b.as_mut_ptr().add(16 * k) as *mut __m128i, cb);
            _mm_storeu_si128(r.as_mut_ptr().add(16 * k) as *mut __m128i, cr);
        }
    }
    let done = n * 16;
    for (k, pair) in pairs[done * 2..].chunks_exact(2).enumerate() {
        b[done + k] = pair[0];
        r[done + k] = pair[1];
    }
}

/// [`picture::join_chroma`](crate::picture::join_chroma) 16 pairs at a time.
pub fn join_chroma_sse2(b: &[u8], r: &[u8], pairs: &mut [u8]) {
    let n = (pairs.len() / 32).min(b.len() / 16).min(r.len() / 16);
    // SAFETY: SSE2 is part of x86_64; chunk k reads bytes 16k..16k + 16
    // of `b` and `r` and writes 32k..32k + 32 of `pairs`, k < n (above).
    unsafe {
        for k in 0..n {
            let cb = _mm_loadu_si128(b.as_ptr().add(16 * k) as *const __m128i);
            let cr = _mm_loadu_si128(r.as_ptr().add(16 * k) as *const __m128i);
            let p = pairs.as_mut_ptr().add(32 * k) as *mut __m128i;
            _mm_storeu_si128(p, _mm_unpacklo_epi8(cb, cr));
            _mm_storeu_si128(p.add(1), _mm_unpackhi_epi8(cb, cr));
        }
    }
    let done = n * 16;
    for (k, pair) in pairs[done * 2..].chunks_exact_mut(2).enumerate() {
        pair[0] = b[done + k];
        pair[1] = r[done + k];
    }
}
