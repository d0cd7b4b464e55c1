//! Inter prediction sample interpolation (clause 8.4.2.2) and block distortion measures.

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

/// The signature of [`sad`] at every CPU level.
pub type SadFn = fn(&[u8], usize, &[u8], usize, usize, usize) -> u32;
/// The signature of [`sad_avg`] at every CPU level.
pub type SadAvgFn = fn(&[u8], usize, &[u8], &[u8], usize, usize, usize) -> u32;
/// The signature of [`satd`] at every CPU level.
pub type SatdFn = fn(&[u8], usize, &[u8], usize, usize, usize) -> u32;
/// The signature of [`satd4x4_x2`] at every CPU level.
pub type Satd4x4x2Fn = fn(&[u8; 16], &[u8; 16], &[u8; 16]) -> [u32; 2];

/// Sum of absolute differences of two `w` x `h` blocks with strides.
pub fn sad(a: &[u8], sa: usize, b: &[u8], sb: usize, w: usize, h: usize) -> u32 {
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

/// SATD of the 4x4 block `src` against two 4x4 predictions: [`satd4x4`] of each.
pub fn satd4x4_x2(src: &[u8; 16], pa: &[u8; 16], pb: &[u8; 16]) -> [u32; 2] {
    [satd4x4(src, 4, pa, 4), satd4x4(src, 4, pb, 4)]
}

/// Sum of absolute Hadamard-transformed differences over 4x4 tiles of a
/// `w` x `h` block (each tile's sum halved): the sum of [`satd4x4`] over them.
pub fn satd(a: &[u8], sa: usize, b: &[u8], sb: usize, w: usize, h: usize) -> u32 {
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
