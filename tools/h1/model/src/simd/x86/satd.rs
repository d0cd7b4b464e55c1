//! SATD (4x4 Hadamard transforms of differences, absolute sums halved)
//! with SSE2, two 4x4 tiles side by side in eight 16-bit lanes, and AVX2,
//! four tiles at a time.

use crate::inter;
use core::arch::x86_64::*;

/// [`inter::satd`] with SSE2 for blocks a multiple of 8 wide.
pub fn satd_sse2(a: &[u8], sa: usize, b: &[u8], sb: usize, w: usize, h: usize) -> u32 {
    if w.is_multiple_of(8) && h >= 4 {
        satd8(a, sa, b, sb, w, h)
    } else {
        inter::satd(a, sa, b, sb, w, h)
    }
}

/// [`inter::satd`] with AVX2 for blocks a multiple of 16 wide and of 4 high,
/// else [`satd_sse2`].
pub fn satd_avx2(a: &[u8], sa: usize, b: &[u8], sb: usize, w: usize, h: usize) -> u32 {
    if w.is_multiple_of(16) && h.is_multiple_of(4) && h >= 4 {
        satd16_avx2(a, sa, b, sb, w, h)
    } else {
        satd_sse2(a, sa, b, sb, w, h)
    }
}

/// SATD of a `w` x `h` block (w a multiple of 8, h of 4): pairs of 4x4
/// tiles side by side in eight 16-bit lanes. Equal to the sum of
/// [`inter::satd4x4`] over its tiles (each tile's sum halved).
#[inline(always)]
fn satd8(a: &[u8], sa: usize, b: &[u8], sb: usize, w: usize, h: usize) -> u32 {
    // One bounds check per block instead of one per row.
    assert!(h >= 4 && a.len() >= (h - 1) * sa + w && b.len() >= (h - 1) * sb + w);
    // SAFETY: SSE2 is part of x86_64; every tile lies inside the slices
    // (asserted above), and the rest is register arithmetic.
    unsafe {
        let mut acc = _mm_setzero_si128();
        for ty in 0..h / 4 {
            for tx in 0..w / 8 {
                let pa = a.as_ptr().add(ty * 4 * sa + tx * 8);
                let pb = b.as_ptr().add(ty * 4 * sb + tx * 8);
                acc = _mm_add_epi32(acc, satd8x4(pa, sa, pb, sb));
            }
        }
        let mut lanes = [0i32; 4];
        _mm_storeu_si128(lanes.as_mut_ptr() as *mut __m128i, acc);
        // Every term was counted twice (see satd8x4).
        (lanes.iter().sum::<i32>() / 2) as u32
    }
}

/// Twice the SATD of two side-by-side 4x4 tiles, as partial sums in four
/// lanes. The last butterfly uses |x + y| + |x - y| = 2 max(|x|, |y|).
///
/// # Safety
///
/// `a` and `b` must be readable for four rows of 8 bytes at their strides.
#[inline(always)]
unsafe fn satd8x4(a: *const u8, sa: usize, b: *const u8, sb: usize) -> __m128i {
    // SAFETY: the caller guarantees the four 8-byte rows are readable.
    unsafe {
        let z = _mm_setzero_si128();
        let row = |y: usize| {
            let va = _mm_unpacklo_epi8(_mm_loadl_epi64(a.add(y * sa) as *const __m128i), z);
            let vb = _mm_unpacklo_epi8(_mm_loadl_epi64(b.add(y * sb) as *const __m128i), z);
            _mm_sub_epi16(va, vb)
        };
        hadamard8x4([row(0), row(1), row(2), row(3)])
    }
}

/// [`satd8`] of a block 16 samples wide or a multiple of it, four tiles
/// at a time in 16-bit AVX2 lanes (each 128-bit half as in [`satd8x4`]).
fn satd16_avx2(a: &[u8], sa: usize, b: &[u8], sb: usize, w: usize, h: usize) -> u32 {
    assert!(
        w.is_multiple_of(16) && h.is_multiple_of(4) && h >= 4,
        "{w}x{h} is no block of 16-sample tiles"
    );
    assert!(a.len() >= (h - 1) * sa + w && b.len() >= (h - 1) * sb + w);
    // SAFETY: only the AVX2 table reaches this function, and only on a CPU
    // with AVX2 (see the module `x86`); every 16-byte row load lies inside
    // the slices (asserted above).
    unsafe { satd16(a.as_ptr(), sa, b.as_ptr(), sb, w, h) }
}

/// # Safety
/// AVX2 present; `a` and `b` readable for `h` rows of `w` bytes at their strides.
#[target_feature(enable = "avx2")]
unsafe fn satd16(a: *const u8, sa: usize, b: *const u8, sb: usize, w: usize, h: usize) -> u32 {
    // SAFETY: the caller guarantees the rows are readable; the rest is
    // register arithmetic.
    unsafe {
        let z = _mm256_setzero_si256();
        let even = _mm256_set_epi16(0, -1, 0, -1, 0, -1, 0, -1, 0, -1, 0, -1, 0, -1, 0, -1);
        let ones = _mm256_set1_epi16(1);
        let mut acc = z;
        for ty in 0..h / 4 {
            for tx in 0..w / 16 {
                let row = |y: usize| {
                    let pa = a.add((ty * 4 + y) * sa + tx * 16) as *const __m128i;
                    let pb = b.add((ty * 4 + y) * sb + tx * 16) as *const __m128i;
                    _mm256_sub_epi16(
                        _mm256_cvtepu8_epi16(_mm_loadu_si128(pa)),
                        _mm256_cvtepu8_epi16(_mm_loadu_si128(pb)),
                    )
                };
                let (r0, r1, r2, r3) = (row(0), row(1), row(2), row(3));
                let (s01, d01) = (_mm256_add_epi16(r0, r1), _mm256_sub_epi16(r0, r1));
                let (s23, d23) = (_mm256_add_epi16(r2, r3), _mm256_sub_epi16(r2, r3));
                let t = [
                    _mm256_add_epi16(s01, s23),
                    _mm256_sub_epi16(s01, s23),
                    _mm256_sub_epi16(d01, d23),
                    _mm256_add_epi16(d01, d23),
                ];
                for v in t {
                    let sw = _mm256_shufflehi_epi16::<0b10_11_00_01>(_mm256_shufflelo_epi16::<
                        0b10_11_00_01,
                    >(v));
                    let (s, d) = (_mm256_add_epi16(v, sw), _mm256_sub_epi16(v, sw));
                    let w1 = _mm256_blendv_epi8(d, s, even);
                    let abs = _mm256_abs_epi16(w1);
                    let m = _mm256_max_epi16(abs, _mm256_shuffle_epi32::<0b10_11_00_01>(abs));
                    acc = _mm256_add_epi32(acc, _mm256_madd_epi16(m, ones));
                }
            }
        }
        let sum = _mm_add_epi32(
            _mm256_castsi256_si128(acc),
            _mm256_extracti128_si256::<1>(acc),
        );
        let sum = _mm_add_epi32(sum, _mm_shuffle_epi32::<0b01_00_11_10>(sum));
        let sum = _mm_add_epi32(sum, _mm_shuffle_epi32::<0b10_11_00_01>(sum));
        // Every term was counted twice (see satd8x4).
        (_mm_cvtsi128_si32(sum) / 2) as u32
    }
}

/// [`inter::satd4x4_x2`]: SATD of the 4x4 block `src` against two
/// predictions at once (the Intra_4x4 mode search), as two tiles side by side.
pub fn satd4x4_x2_sse2(src: &[u8; 16], pa: &[u8; 16], pb: &[u8; 16]) -> [u32; 2] {
    // SAFETY: SSE2 is part of x86_64; each load reads one whole array.
    unsafe {
        let z = _mm_setzero_si128();
        let load = |p: &[u8; 16]| _mm_loadu_si128(p.as_ptr() as *const __m128i);
        let (s, a, b) = (load(src), load(pa), load(pb));
        // Rows as 32-bit words: [a0 b0 a1 b1], [a2 b2 a3 b3] and the source twice.
        let (p01, p23) = (_mm_unpacklo_epi32(a, b), _mm_unpackhi_epi32(a, b));
        let (s01, s23) = (_mm_unpacklo_epi32(s, s), _mm_unpackhi_epi32(s, s));
        let diff = |x: __m128i, y: __m128i, hi: bool| {
            if hi {
                _mm_sub_epi16(_mm_unpackhi_epi8(x, z), _mm_unpackhi_epi8(y, z))
            } else {
                _mm_sub_epi16(_mm_unpacklo_epi8(x, z), _mm_unpacklo_epi8(y, z))
            }
        };
        let acc = hadamard8x4([
            diff(s01, p01, false),
            diff(s01, p01, true),
            diff(s23, p23, false),
            diff(s23, p23, true),
        ]);
        let mut lanes = [0i32; 4];
        _mm_storeu_si128(lanes.as_mut_ptr() as *mut __m128i, acc);
        // Each tile's sum is even (every coefficient has the parity of the DC).
        [
            ((lanes[0] + lanes[1]) / 2) as u32,
            ((lanes[2] + lanes[3]) / 2) as u32,
        ]
    }
}

/// The Hadamard sums of two side-by-side 4x4 tiles of differences (rows
/// of eight 16-bit lanes): tile 0 in 32-bit lanes 0 and 1, tile 1 in 2 and 3.
#[inline(always)]
unsafe fn hadamard8x4([r0, r1, r2, r3]: [__m128i; 4]) -> __m128i {
    // SAFETY: SSE2 register arithmetic.
    unsafe {
        let z = _mm_setzero_si128();
        // Vertical butterflies, lane by lane (both tiles at once).
        let (s01, d01) = (_mm_add_epi16(r0, r1), _mm_sub_epi16(r0, r1));
        let (s23, d23) = (_mm_add_epi16(r2, r3), _mm_sub_epi16(r2, r3));
        let t = [
            _mm_add_epi16(s01, s23),
            _mm_sub_epi16(s01, s23),
            _mm_sub_epi16(d01, d23),
            _mm_add_epi16(d01, d23),
        ];
        // Horizontal butterflies inside each group of four lanes; only
        // absolute values count, so each output may change sign.
        let even = _mm_set_epi16(0, -1, 0, -1, 0, -1, 0, -1);
        let ones = _mm_set1_epi16(1);
        let mut acc = z;
        for v in t {
            let sw = _mm_shufflehi_epi16::<0b10_11_00_01>(_mm_shufflelo_epi16::<0b10_11_00_01>(v));
            let (s, d) = (_mm_add_epi16(v, sw), _mm_sub_epi16(v, sw));
            let w1 = _mm_or_si128(_mm_and_si128(even, s), _mm_andnot_si128(even, d));
            let abs = _mm_max_epi16(w1, _mm_sub_epi16(z, w1));
            // Lanes (0, 2) and (1, 3) of each group pair up in the last
            // butterfly: the maximum of each pair, twice.
            let m = _mm_max_epi16(abs, _mm_shuffle_epi32::<0b10_11_00_01>(abs));
            acc = _mm_add_epi32(acc, _mm_madd_epi16(m, ones));
        }
        acc
    }
}
