//! SA8D (the 8x8 Hadamard transform of a difference, absolute sum) with SSE2.

use core::arch::x86_64::*;

/// Butterflies between the registers: an 8-point Hadamard down each lane.
#[inline(always)]
unsafe fn hadamard_lanes(r: &mut [__m128i; 8]) {
    // SAFETY (for the whole function): SSE2 register arithmetic only.
    unsafe {
        let mut h = 1;
        while h < 8 {
            for i in 0..8 {
                if i & h == 0 {
                    let (x, y) = (r[i], r[i + h]);
                    r[i] = _mm_add_epi16(x, y);
                    r[i + h] = _mm_sub_epi16(x, y);
                }
            }
            h *= 2;
        }
    }
}

/// Transposes an 8x8 matrix of 16-bit lanes.
#[inline(always)]
unsafe fn transpose(r: &mut [__m128i; 8]) {
    // SAFETY: SSE2 register shuffles only.
    unsafe {
        let a0 = _mm_unpacklo_epi16(r[0], r[1]);
        let a1 = _mm_unpackhi_epi16(r[0], r[1]);
        let a2 = _mm_unpacklo_epi16(r[2], r[3]);
        let a3 = _mm_unpackhi_epi16(r[2], r[3]);
        let a4 = _mm_unpacklo_epi16(r[4], r[5]);
        let a5 = _mm_unpackhi_epi16(r[4], r[5]);
        let a6 = _mm_unpacklo_epi16(r[6], r[7]);
        let a7 = _mm_unpackhi_epi16(r[6], r[7]);
        let b0 = _mm_unpacklo_epi32(a0, a2);
        let b1 = _mm_unpackhi_epi32(a0, a2);
        let b2 = _mm_unpacklo_epi32(a1, a3);
        let b3 = _mm_unpackhi_epi32(a1, a3);
        let b4 = _mm_unpacklo_epi32(a4, a6);
        let b5 = _mm_unpackhi_epi32(a4, a6);
        let b6 = _mm_unpacklo_epi32(a5, a7);
        let b7 = _mm_unpackhi_epi32(a5, a7);
        r[0] = _mm_unpacklo_epi64(b0, b4);
        r[1] = _mm_unpackhi_epi64(b0, b4);
        r[2] = _mm_unpacklo_epi64(b1, b5);
        r[3] = _mm_unpackhi_epi64(b1, b5);
        r[4] = _mm_unpacklo_epi64(b2, b6);
        r[5] = _mm_unpackhi_epi64(b2, b6);
        r[6] = _mm_unpacklo_epi64(b3, b7);
        r[7] = _mm_unpackhi_epi64(b3, b7);
    }
}

/// [`transform8x8::sa8d8`](crate::transform8x8::sa8d8): the 8-point
/// Hadamard transform down the eight 16-bit lanes of eight rows, a
/// transpose, and again.
pub fn sa8d8_sse2(a: &[u8; 64], b: &[u8; 64]) -> u32 {
    // SAFETY: SSE2 is part of x86_64; each load reads 8 bytes of a
    // 64-byte array at offset 8 * y, y < 8.
    unsafe {
        let z = _mm_setzero_si128();
        let mut r: [__m128i; 8] = core::array::from_fn(|y| {
            let va = _mm_loadl_epi64(a.as_ptr().add(y * 8) as *const __m128i);
            let vb = _mm_loadl_epi64(b.as_ptr().add(y * 8) as *const __m128i);
            _mm_sub_epi16(_mm_unpacklo_epi8(va, z), _mm_unpacklo_epi8(vb, z))
        });
        // Differences are within +-255, after both passes within +-16320.
        hadamard_lanes(&mut r);
        transpose(&mut r);
        hadamard_lanes(&mut r);
        let ones = _mm_set1_epi16(1);
        let mut acc = z;
        for v in r {
            let abs = _mm_max_epi16(v, _mm_sub_epi16(z, v));
            acc = _mm_add_epi32(acc, _mm_madd_epi16(abs, ones));
        }
        let mut lanes = [0u32; 4];
        _mm_storeu_si128(lanes.as_mut_ptr() as *mut __m128i, acc);
        (lanes.iter().sum::<u32>() + 2) >> 2
    }
}
