//! Inter prediction sample interpolation (clause 8.4.2.2) and block distortion measures.

use crate::simd::avx2_dispatch;

/// A reference plane with edge extension by clamping coordinates (8.4.2.2.1 eq. 8-228, 8-229).
#[derive(Clone, Copy)]
pub struct RefPlane<'a> {
    pub data: &'a [u8],
    pub stride: usize,
    pub width: i32,
    pub height: i32,
}

impl RefPlane<'_> {
    #[inline]
    fn at(&self, x: i32, y: i32) -> i32 {
        let x = x.clamp(0, self.width - 1) as usize;
        let y = y.clamp(0, self.height - 1) as usize;
        self.data[y * self.stride + x] as i32
    }

    #[inline]
    fn inside(&self, x: i32, y: i32, w: i32, h: i32) -> bool {
        x >= 0 && y >= 0 && x + w <= self.width && y + h <= self.height
    }

    /// 6-tap horizontal intermediate b1 at (x + 1/2, y).
    #[inline]
    fn b1(&self, x: i32, y: i32) -> i32 {
        self.at(x - 2, y) - 5 * self.at(x - 1, y) + 20 * self.at(x, y) + 20 * self.at(x + 1, y)
            - 5 * self.at(x + 2, y)
            + self.at(x + 3, y)
    }

    /// 6-tap vertical intermediate h1 at (x, y + 1/2).
    #[inline]
    fn h1(&self, x: i32, y: i32) -> i32 {
        self.at(x, y - 2) - 5 * self.at(x, y - 1) + 20 * self.at(x, y) + 20 * self.at(x, y + 1)
            - 5 * self.at(x, y + 2)
            + self.at(x, y + 3)
    }
}

#[inline]
fn clip1(v: i32) -> i32 {
    v.clamp(0, 255)
}

/// Luma sample at integer position (x, y) plus quarter-sample fraction (fx, fy), Table 8-12.
#[inline]
pub fn luma_sample(r: &RefPlane, x: i32, y: i32, fx: i32, fy: i32) -> u8 {
    let g = || r.at(x, y);
    let b = |x: i32, y: i32| clip1((r.b1(x, y) + 16) >> 5);
    let h = |x: i32, y: i32| clip1((r.h1(x, y) + 16) >> 5);
    let j = || {
        let j1 = r.h1(x - 2, y) - 5 * r.h1(x - 1, y) + 20 * r.h1(x, y) + 20 * r.h1(x + 1, y)
            - 5 * r.h1(x + 2, y)
            + r.h1(x + 3, y);
        clip1((j1 + 512) >> 10)
    };
    let avg = |a: i32, b: i32| (a + b + 1) >> 1;
    let v = match (fx, fy) {
        (0, 0) => g(),
        (0, 1) => avg(g(), h(x, y)),
        (0, 2) => h(x, y),
        (0, 3) => avg(r.at(x, y + 1), h(x, y)),
        (1, 0) => avg(g(), b(x, y)),
        (1, 1) => avg(b(x, y), h(x, y)),
        (1, 2) => avg(h(x, y), j()),
        (1, 3) => avg(h(x, y), b(x, y + 1)),
        (2, 0) => b(x, y),
        (2, 1) => avg(b(x, y), j()),
        (2, 2) => j(),
        (2, 3) => avg(j(), b(x, y + 1)),
        (3, 0) => avg(r.at(x + 1, y), b(x, y)),
        (3, 1) => avg(b(x, y), h(x + 1, y)),
        (3, 2) => avg(j(), h(x + 1, y)),
        _ => avg(h(x + 1, y), b(x, y + 1)),
    };
    v as u8
}

/// Predicts a `w` x `h` luma block whose top-left sample is (x, y), moved by `mv` in quarter samples.
pub fn mc_luma(r: &RefPlane, x: i32, y: i32, mv: [i32; 2], w: usize, h: usize, out: &mut [u8]) {
    let xi = x + (mv[0] >> 2);
    let yi = y + (mv[1] >> 2);
    let (fx, fy) = (mv[0] & 3, mv[1] & 3);
    if fx == 0 && fy == 0 && r.inside(xi, yi, w as i32, h as i32) {
        for row in 0..h {
            let s = (yi as usize + row) * r.stride + xi as usize;
            out[row * w..row * w + w].copy_from_slice(&r.data[s..s + w]);
        }
        return;
    }
    for row in 0..h {
        for col in 0..w {
            out[row * w + col] = luma_sample(r, xi + col as i32, yi + row as i32, fx, fy);
        }
    }
}

/// Predicts a `w` x `h` block of one 4:2:0 chroma plane at chroma position (x, y);
/// `mv` is the luma vector, in eighth chroma samples (8.4.2.2.2).
pub fn mc_chroma(r: &RefPlane, x: i32, y: i32, mv: [i32; 2], w: usize, h: usize, out: &mut [u8]) {
    let xi = x + (mv[0] >> 3);
    let yi = y + (mv[1] >> 3);
    let (fx, fy) = (mv[0] & 7, mv[1] & 7);
    for row in 0..h {
        for col in 0..w {
            let (cx, cy) = (xi + col as i32, yi + row as i32);
            let a = r.at(cx, cy);
            let b = r.at(cx + 1, cy);
            let c = r.at(cx, cy + 1);
            let d = r.at(cx + 1, cy + 1);
            out[row * w + col] = (((8 - fx) * (8 - fy) * a
                + fx * (8 - fy) * b
                + (8 - fx) * fy * c
                + fx * fy * d
                + 32)
                >> 6) as u8;
        }
    }
}

/// Sum of absolute differences of two `w` x `h` blocks with strides.
pub fn sad(a: &[u8], sa: usize, b: &[u8], sb: usize, w: usize, h: usize) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if w == 16 && h.is_multiple_of(2) && std::is_x86_feature_detected!("avx2") {
        return x86::sad16_avx2(a, sa, b, sb, h, None);
    }
    sad_any(a, sa, b, sb, w, h)
}

avx2_dispatch!(
    /// [`sad`] of other shapes or without AVX2.
    fn sad_any(a: &[u8], sa: usize, b: &[u8], sb: usize, w: usize, h: usize) -> u32 => sad_plain
);

#[inline(always)]
fn sad_plain(a: &[u8], sa: usize, b: &[u8], sb: usize, w: usize, h: usize) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if w == 16 || w == 8 {
        return x86::sad(a, sa, b, sb, w, h, None);
    }
    match w {
        16 => sad_w::<16>(a, sa, b, sb, h),
        8 => sad_w::<8>(a, sa, b, sb, h),
        4 => sad_w::<4>(a, sa, b, sb, h),
        _ => {
            let mut s = 0u32;
            for y in 0..h {
                let (ra, rb) = (&a[y * sa..y * sa + w], &b[y * sb..y * sb + w]);
                s += ra
                    .iter()
                    .zip(rb)
                    .map(|(p, q)| p.abs_diff(*q) as u32)
                    .sum::<u32>();
            }
            s
        }
    }
}

/// SAD between `src` and the rounded average of `a` and `b` (which share `stride`).
pub fn sad_avg(
    src: &[u8],
    ss: usize,
    a: &[u8],
    b: &[u8],
    stride: usize,
    w: usize,
    h: usize,
) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if w == 16 && h.is_multiple_of(2) && std::is_x86_feature_detected!("avx2") {
        return x86::sad16_avx2(src, ss, a, stride, h, Some(b));
    }
    sad_avg_any(src, ss, a, b, stride, w, h)
}

avx2_dispatch!(
    /// [`sad_avg`] of other shapes or without AVX2.
    fn sad_avg_any(src: &[u8], ss: usize, a: &[u8], b: &[u8], stride: usize, w: usize, h: usize) -> u32
        => sad_avg_plain
);

#[inline(always)]
fn sad_avg_plain(
    src: &[u8],
    ss: usize,
    a: &[u8],
    b: &[u8],
    stride: usize,
    w: usize,
    h: usize,
) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if w == 16 || w == 8 {
        return x86::sad(src, ss, a, stride, w, h, Some(b));
    }
    match w {
        16 => sad_avg_w::<16>(src, ss, a, b, stride, h),
        8 => sad_avg_w::<8>(src, ss, a, b, stride, h),
        _ => {
            let mut s = 0u32;
            for y in 0..h {
                for k in 0..w {
                    let p = ((a[y * stride + k] as u16 + b[y * stride + k] as u16 + 1) >> 1) as u8;
                    s += src[y * ss + k].abs_diff(p) as u32;
                }
            }
            s
        }
    }
}

#[inline(always)]
fn sad_avg_w<const W: usize>(
    src: &[u8],
    ss: usize,
    a: &[u8],
    b: &[u8],
    stride: usize,
    h: usize,
) -> u32 {
    let mut s = 0u32;
    for y in 0..h {
        let rs: &[u8; W] = src[y * ss..y * ss + W].try_into().unwrap_or(&[0; W]);
        let ra: &[u8; W] = a[y * stride..y * stride + W].try_into().unwrap_or(&[0; W]);
        let rb: &[u8; W] = b[y * stride..y * stride + W].try_into().unwrap_or(&[0; W]);
        let mut row = 0u16;
        for k in 0..W {
            let p = ((ra[k] as u16 + rb[k] as u16 + 1) >> 1) as u8;
            row += rs[k].abs_diff(p) as u16;
        }
        s += row as u32;
    }
    s
}

/// SAD with SSE2 (part of every x86_64 CPU): PSADBW sums 16 absolute
/// differences at once, PAVGB is exactly the (a + b + 1) >> 1 of Table 8-12.
#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    /// SAD of `w` (8 or 16) x `h` blocks; with `avg`, against the rounded average of `b` and `avg`.
    #[inline(always)]
    pub fn sad(
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
        assert!(
            a.len() >= last(sa) && b.len() >= last(sb) && avg.is_none_or(|c| c.len() >= last(sb))
        );
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
    /// with `avg`, against the rounded average of `b` and `avg`. The caller
    /// checks that the CPU has AVX2.
    pub fn sad16_avx2(
        a: &[u8],
        sa: usize,
        b: &[u8],
        sb: usize,
        h: usize,
        avg: Option<&[u8]>,
    ) -> u32 {
        let last = |stride: usize| (h.max(1) - 1) * stride + 16;
        assert!(h.is_multiple_of(2) && a.len() >= last(sa) && b.len() >= last(sb));
        assert!(avg.is_none_or(|c| c.len() >= last(sb)));
        assert!(std::is_x86_feature_detected!("avx2"));
        // SAFETY: AVX2 is present (asserted); every row read lies inside its
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
        // SAFETY: the caller guarantees the rows are readable.
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

    /// SATD of a `w` x `h` block (w a multiple of 8, h of 4): pairs of 4x4
    /// tiles side by side in eight 16-bit lanes. Equal to the sum of
    /// [`super::satd4x4`] over its tiles (each tile's sum halved).
    #[inline(always)]
    pub fn satd(a: &[u8], sa: usize, b: &[u8], sb: usize, w: usize, h: usize) -> u32 {
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

    /// [`satd`] of a block 16 samples wide or a multiple of it, four tiles
    /// at a time in 16-bit AVX2 lanes (each 128-bit half as in [`satd8x4`]).
    /// The caller checks that the CPU has AVX2.
    pub fn satd16_avx2(a: &[u8], sa: usize, b: &[u8], sb: usize, w: usize, h: usize) -> u32 {
        assert!(
            w.is_multiple_of(16) && h.is_multiple_of(4) && h >= 4,
            "{w}x{h} is no block of 16-sample tiles"
        );
        assert!(a.len() >= (h - 1) * sa + w && b.len() >= (h - 1) * sb + w);
        assert!(std::is_x86_feature_detected!("avx2"));
        // SAFETY: AVX2 is present (asserted); every 16-byte row load lies
        // inside the slices (asserted above).
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
                        >(
                            v
                        ));
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

    /// SATD of the 4x4 block `src` against two predictions at once (the
    /// Intra_4x4 mode search), each equal to [`super::satd4x4`].
    pub fn satd4x4_x2(src: &[u8; 16], pa: &[u8; 16], pb: &[u8; 16]) -> [u32; 2] {
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
                let sw =
                    _mm_shufflehi_epi16::<0b10_11_00_01>(_mm_shufflelo_epi16::<0b10_11_00_01>(v));
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
}

/// SATD of the 4x4 block `src` against two 4x4 predictions: [`satd4x4`] of each.
pub fn satd4x4_x2(src: &[u8; 16], pa: &[u8; 16], pb: &[u8; 16]) -> [u32; 2] {
    #[cfg(target_arch = "x86_64")]
    {
        x86::satd4x4_x2(src, pa, pb)
    }
    #[cfg(not(target_arch = "x86_64"))]
    [satd4x4(src, 4, pa, 4), satd4x4(src, 4, pb, 4)]
}

/// SAD of rows of a width known at compile time, which the compiler vectorizes.
#[inline(always)]
fn sad_w<const W: usize>(a: &[u8], sa: usize, b: &[u8], sb: usize, h: usize) -> u32 {
    let mut s = 0u32;
    for y in 0..h {
        let ra: &[u8; W] = a[y * sa..y * sa + W].try_into().unwrap_or(&[0; W]);
        let rb: &[u8; W] = b[y * sb..y * sb + W].try_into().unwrap_or(&[0; W]);
        let mut row = 0u16;
        for k in 0..W {
            row += ra[k].abs_diff(rb[k]) as u16;
        }
        s += row as u32;
    }
    s
}

/// Sum of absolute Hadamard-transformed differences over 4x4 tiles of a
/// `w` x `h` block (each tile's sum halved).
pub fn satd(a: &[u8], sa: usize, b: &[u8], sb: usize, w: usize, h: usize) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if w.is_multiple_of(16) && h.is_multiple_of(4) && std::is_x86_feature_detected!("avx2") {
        return x86::satd16_avx2(a, sa, b, sb, w, h);
    }
    satd_any(a, sa, b, sb, w, h)
}

avx2_dispatch!(
    /// [`satd`] of other shapes or without AVX2.
    fn satd_any(a: &[u8], sa: usize, b: &[u8], sb: usize, w: usize, h: usize) -> u32 => satd_plain
);

#[inline(always)]
fn satd_plain(a: &[u8], sa: usize, b: &[u8], sb: usize, w: usize, h: usize) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if w.is_multiple_of(8) {
        return x86::satd(a, sa, b, sb, w, h);
    }
    satd_tiles(a, sa, b, sb, w, h)
}

/// SATD as the sum of [`satd4x4`] over the block's tiles.
#[inline(always)]
fn satd_tiles(a: &[u8], sa: usize, b: &[u8], sb: usize, w: usize, h: usize) -> u32 {
    let mut total = 0u32;
    for ty in 0..h / 4 {
        for tx in 0..w / 4 {
            let (oa, ob) = (ty * 4 * sa + tx * 4, ty * 4 * sb + tx * 4);
            total += satd4x4(&a[oa..], sa, &b[ob..], sb);
        }
    }
    total
}

/// SATD of one 4x4 tile: the 4x4 Hadamard transform of the difference, absolute sum halved.
#[inline(always)]
pub fn satd4x4(a: &[u8], sa: usize, b: &[u8], sb: usize) -> u32 {
    let mut t = [[0i32; 4]; 4];
    for (y, row) in t.iter_mut().enumerate() {
        let (ra, rb) = (&a[y * sa..y * sa + 4], &b[y * sb..y * sb + 4]);
        let d = [
            ra[0] as i32 - rb[0] as i32,
            ra[1] as i32 - rb[1] as i32,
            ra[2] as i32 - rb[2] as i32,
            ra[3] as i32 - rb[3] as i32,
        ];
        let (s01, d01, s23, d23) = (d[0] + d[1], d[0] - d[1], d[2] + d[3], d[2] - d[3]);
        *row = [s01 + s23, s01 - s23, d01 - d23, d01 + d23];
    }
    let mut sum = 0i32;
    for x in 0..4 {
        let (a0, a1, a2, a3) = (t[0][x], t[1][x], t[2][x], t[3][x]);
        let (s01, d01, s23, d23) = (a0 + a1, a0 - a1, a2 + a3, a2 - a3);
        sum += (s01 + s23).abs() + (s01 - s23).abs() + (d01 - d23).abs() + (d01 + d23).abs();
    }
    sum as u32 / 2
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The SIMD SADs equal the sum of absolute differences, averaged or not,
    /// for every width and height the search uses.
    #[test]
    fn sad_equals_the_plain_sum() {
        let mut rng = crate::testrng::Rng::new(0x0123_4567_89ab_cdef);
        let mut next = || rng.byte();
        for _ in 0..3000 {
            let a: Vec<u8> = (0..24 * 16).map(|_| next()).collect();
            let b: Vec<u8> = (0..32 * 16).map(|_| next()).collect();
            let c: Vec<u8> = (0..32 * 16).map(|_| next()).collect();
            for (w, h) in [(16, 16), (16, 8), (8, 16), (8, 8), (8, 4), (4, 8), (4, 4)] {
                let mut want = 0;
                let mut want_avg = 0;
                for y in 0..h {
                    for k in 0..w {
                        let s = a[y * 24 + k] as i32;
                        want += (s - b[y * 32 + k] as i32).unsigned_abs();
                        let p = (b[y * 32 + k] as i32 + c[y * 32 + k] as i32 + 1) >> 1;
                        want_avg += (s - p).unsigned_abs();
                    }
                }
                assert_eq!(sad(&a, 24, &b, 32, w, h), want, "{w}x{h}");
                assert_eq!(sad_avg(&a, 24, &b, &c, 32, w, h), want_avg, "{w}x{h}");
                // A source of stride 16, as the motion search's (whole rows in one load).
                if w == 16 {
                    let a16: Vec<u8> = (0..h * 16).map(|i| a[i / 16 * 24 + i % 16]).collect();
                    assert_eq!(sad(&a16, 16, &b, 32, w, h), want, "{w}x{h} stride 16");
                    assert_eq!(
                        sad_avg(&a16, 16, &b, &c, 32, w, h),
                        want_avg,
                        "{w}x{h} stride 16"
                    );
                }
            }
        }
    }

    /// The paired 4x4 SATD of the Intra_4x4 search equals two plain ones,
    /// on random blocks and on the extremes.
    #[test]
    fn paired_satd4x4_equals_the_plain_one() {
        let mut rng = crate::testrng::Rng::new(0x4a4a_0909);
        for round in 0..20000 {
            let mut block = || -> [u8; 16] {
                core::array::from_fn(|_| match round % 3 {
                    0 => rng.byte(),
                    1 => [0, 255][(rng.next_u64() & 1) as usize],
                    _ => (128 + rng.range(-8, 8)) as u8,
                })
            };
            let (src, a, b) = (block(), block(), block());
            assert_eq!(
                satd4x4_x2(&src, &a, &b),
                [satd4x4(&src, 4, &a, 4), satd4x4(&src, 4, &b, 4)],
                "{src:?} {a:?} {b:?}"
            );
        }
    }

    /// The SIMD SATD equals the sum of the 4x4 tiles' SATDs.
    #[test]
    fn satd_equals_the_sum_over_tiles() {
        let mut rng = crate::testrng::Rng::new(0x5eed_5a7d);
        for _ in 0..3000 {
            let a: Vec<u8> = (0..24 * 16).map(|_| rng.byte()).collect();
            let b: Vec<u8> = (0..32 * 16).map(|_| rng.byte()).collect();
            for (w, h) in [(16, 16), (16, 8), (8, 16), (8, 8), (8, 4)] {
                assert_eq!(
                    satd(&a, 24, &b, 32, w, h),
                    satd_tiles(&a, 24, &b, 32, w, h),
                    "{w}x{h}"
                );
            }
        }
        // Extremes: all +255 and all -255 differences.
        let (hi, lo) = ([255u8; 256], [0u8; 256]);
        assert_eq!(
            satd(&hi, 16, &lo, 16, 16, 16),
            satd_tiles(&hi, 16, &lo, 16, 16, 16)
        );
        assert_eq!(
            satd(&lo, 16, &hi, 16, 16, 16),
            satd_tiles(&lo, 16, &hi, 16, 16, 16)
        );
    }

    /// The unrolled SATD equals the Hadamard transform of clause 8.5.10's
    /// butterflies (transform::hadamard4x4) applied to the difference.
    #[test]
    fn satd_equals_the_plain_hadamard_sum() {
        let mut rng = crate::testrng::Rng::new(0x2545_f491_4f6c_dd1d);
        let mut next = || rng.byte();
        for _ in 0..5000 {
            let a: Vec<u8> = (0..64).map(|_| next()).collect();
            let b: Vec<u8> = (0..64).map(|_| next()).collect();
            let mut d = [0i32; 16];
            for i in 0..16 {
                d[i] = a[i / 4 * 8 + i % 4] as i32 - b[i / 4 * 8 + i % 4] as i32;
            }
            crate::transform::hadamard4x4(&mut d);
            let want = d.iter().map(|v| v.unsigned_abs()).sum::<u32>() / 2;
            assert_eq!(satd4x4(&a, 8, &b, 8), want);
        }
    }
}
