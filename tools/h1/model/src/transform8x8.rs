//! The 8x8 transform of the High profile: its scan (Table 8-13), scaling
//! (8.5.13.1) and inverse transform (8.5.13.2), and their forward counterparts.

/// normAdjust8x8 values v(m, k) of equation 8-317, per QP % 6 and position class.
const NORM_ADJUST_8X8: [[i32; 6]; 6] = [
    [20, 18, 32, 19, 25, 24],
    [22, 19, 35, 21, 28, 26],
    [26, 23, 42, 24, 33, 31],
    [28, 25, 45, 26, 35, 33],
    [32, 28, 51, 30, 40, 38],
    [36, 32, 58, 34, 46, 43],
];

/// Position class of equation 8-317 for coefficient (i, j) of an 8x8 block.
const fn pos_class(i: usize, j: usize) -> usize {
    match (i % 4, j % 4) {
        (0, 0) => 0,
        (1 | 3, 1 | 3) => 1,
        (2, 2) => 2,
        (0, 1 | 3) | (1 | 3, 0) => 3,
        (0, 2) | (2, 0) => 4,
        _ => 5,
    }
}

/// 64 x the squared norm of row `i` of the forward transform below: 8 for
/// rows 0 and 4, 5 for rows 2 and 6, (12² + 10² + 6² + 3²) x 2 / 64 for the odd rows.
const fn row_norm64(i: usize) -> u64 {
    match i % 4 {
        0 => 512,
        2 => 320,
        _ => 578,
    }
}

/// LevelScale8x8 with flat scaling lists (16 x normAdjust8x8), raster, per QP % 6.
const LEVEL_SCALE_8X8: [[i32; 64]; 6] = {
    let mut t = [[0; 64]; 6];
    let mut m = 0;
    while m < 6 {
        let mut p = 0;
        while p < 64 {
            t[m][p] = 16 * NORM_ADJUST_8X8[m][pos_class(p / 8, p % 8)];
            p += 1;
        }
        m += 1;
    }
    t
};

/// Quantization multipliers matching [`fdct8x8`]: 2^22 / LevelScale8x8 over
/// the squared gain of the forward transform at the position, rounded.
const QUANT_MF_8X8: [[i32; 64]; 6] = {
    let mut t = [[0; 64]; 6];
    let mut m = 0;
    while m < 6 {
        let mut p = 0;
        while p < 64 {
            let den = LEVEL_SCALE_8X8[m][p] as u64 * row_norm64(p / 8) * row_norm64(p % 8);
            t[m][p] = (((1u64 << 40) + den / 2) / den) as i32;
            p += 1;
        }
        m += 1;
    }
    t
};

/// Zig-zag scan of 8x8 frame blocks (Table 8-13): raster index per scan position.
#[rustfmt::skip]
pub const ZIGZAG_8X8: [usize; 64] = [
    0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5,
    12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28,
    35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51,
    58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
];

/// One dimension of the forward 8x8 transform (the transpose of 8.5.13.2's butterflies).
#[inline(always)]
fn fdct8(a: [i32; 8]) -> [i32; 8] {
    let (s07, s16, s25, s34) = (a[0] + a[7], a[1] + a[6], a[2] + a[5], a[3] + a[4]);
    let (e0, e1, e2, e3) = (s07 + s34, s16 + s25, s07 - s34, s16 - s25);
    let (d07, d16, d25, d34) = (a[0] - a[7], a[1] - a[6], a[2] - a[5], a[3] - a[4]);
    let e4 = d16 + d25 + (d07 + (d07 >> 1));
    let e5 = d07 - d34 - (d25 + (d25 >> 1));
    let e6 = d07 + d34 - (d16 + (d16 >> 1));
    let e7 = d16 - d25 + (d34 + (d34 >> 1));
    [
        e0 + e1,
        e4 + (e7 >> 2),
        e2 + (e3 >> 1),
        e5 + (e6 >> 2),
        e0 - e1,
        e6 - (e5 >> 2),
        (e2 >> 1) - e3,
        (e4 >> 2) - e7,
    ]
}

/// Forward 8x8 transform of a residual block, raster order, in place.
pub fn fdct8x8(b: &mut [i32; 64]) {
    for r in 0..8 {
        let row: [i32; 8] = b[r * 8..r * 8 + 8].try_into().unwrap_or([0; 8]);
        b[r * 8..r * 8 + 8].copy_from_slice(&fdct8(row));
    }
    for c in 0..8 {
        let col = fdct8(core::array::from_fn(|r| b[r * 8 + c]));
        for (r, v) in col.into_iter().enumerate() {
            b[r * 8 + c] = v;
        }
    }
}

/// One dimension of the inverse transform (equations 8-318 to 8-341).
#[inline(always)]
fn idct8(d: [i32; 8]) -> [i32; 8] {
    let e0 = d[0] + d[4];
    let e1 = -d[3] + d[5] - d[7] - (d[7] >> 1);
    let e2 = d[0] - d[4];
    let e3 = d[1] + d[7] - d[3] - (d[3] >> 1);
    let e4 = (d[2] >> 1) - d[6];
    let e5 = -d[1] + d[7] + d[5] + (d[5] >> 1);
    let e6 = d[2] + (d[6] >> 1);
    let e7 = d[3] + d[5] + d[1] + (d[1] >> 1);
    let f0 = e0 + e6;
    let f1 = e1 + (e7 >> 2);
    let f2 = e2 + e4;
    let f3 = e3 + (e5 >> 2);
    let f4 = e2 - e4;
    let f5 = (e3 >> 2) - e5;
    let f6 = e0 - e6;
    let f7 = e7 - (e1 >> 2);
    [
        f0 + f7,
        f2 + f5,
        f4 + f3,
        f6 + f1,
        f6 - f1,
        f4 - f3,
        f2 - f5,
        f0 - f7,
    ]
}

/// Inverse 8x8 transform of 8.5.13.2, rows then columns, with the final `(x + 32) >> 6`.
pub fn idct8x8(d: &mut [i32; 64]) {
    for r in 0..8 {
        let row: [i32; 8] = d[r * 8..r * 8 + 8].try_into().unwrap_or([0; 8]);
        d[r * 8..r * 8 + 8].copy_from_slice(&idct8(row));
    }
    for c in 0..8 {
        let col = idct8(core::array::from_fn(|r| d[r * 8 + c]));
        for (r, v) in col.into_iter().enumerate() {
            d[r * 8 + c] = (v + 32) >> 6;
        }
    }
}

/// Quantizes a transformed 8x8 block at `qp` (dead zone 1/3 intra, 1/6 inter);
/// returns true when a level is non-zero.
pub fn quant8x8(b: &mut [i32; 64], qp: i32, intra: bool) -> bool {
    let qbits = 16 + (qp / 6) as u32;
    let f = if intra {
        (1i64 << qbits) / 3
    } else {
        (1i64 << qbits) / 6
    };
    let mf = &QUANT_MF_8X8[(qp % 6) as usize];
    let mut nz = false;
    for (c, &m) in b.iter_mut().zip(mf) {
        let l = ((i64::from(c.unsigned_abs()) * i64::from(m) + f) >> qbits) as i32;
        *c = if *c < 0 { -l } else { l };
        nz |= l != 0;
    }
    nz
}

/// Scales the levels of an 8x8 block back (8.5.13.1, flat scaling lists).
pub fn dequant8x8(b: &mut [i32; 64], qp: i32) {
    let ls = &LEVEL_SCALE_8X8[(qp % 6) as usize];
    let k = qp / 6;
    for (c, &s) in b.iter_mut().zip(ls) {
        *c = if k >= 6 {
            (*c * s) << (k - 6)
        } else {
            (*c * s + (1 << (5 - k))) >> (6 - k)
        };
    }
}

/// The residual of one 8x8 block from its levels (8.5.13): scaling and the
/// inverse transform, in place; an all-zero block stays zero without either.
pub fn reconstruct8x8(d: &mut [i32; 64], qp: i32) {
    if d.iter().all(|&v| v == 0) {
        return;
    }
    dequant8x8(d, qp);
    idct8x8(d);
}

/// The signature of [`sa8d8`] at every CPU level.
pub type Sa8d8Fn = fn(&[u8; 64], &[u8; 64]) -> u32;

/// SA8D of a 16x16 residual: `sa8d8` (the CPU level's [`sa8d8`]) of its
/// four 8x8 blocks, summed.
pub fn sa8d16(src: &[u8; 256], pred: &[u8; 256], sa8d8: Sa8d8Fn) -> u32 {
    let mut total = 0;
    for b8 in 0..4 {
        let (x0, y0) = (b8 % 2 * 8, b8 / 2 * 8);
        let block = |p: &[u8; 256]| -> [u8; 64] {
            core::array::from_fn(|i| p[(y0 + i / 8) * 16 + x0 + i % 8])
        };
        total += sa8d8(&block(src), &block(pred));
    }
    total
}

/// SA8D of an 8x8 block: the absolute sum of the 8x8 Hadamard transform of
/// the difference, scaled like a 4x4 SATD ((sum + 2) / 4); rows, then columns.
pub fn sa8d8(a: &[u8; 64], b: &[u8; 64]) -> u32 {
    let mut d = [[0i32; 8]; 8];
    for (y, row) in d.iter_mut().enumerate() {
        *row = hadamard8(core::array::from_fn(|x| {
            i32::from(a[y * 8 + x]) - i32::from(b[y * 8 + x])
        }));
    }
    let mut sum = 0u32;
    for x in 0..8 {
        let col = hadamard8(core::array::from_fn(|y| d[y][x]));
        sum += col.iter().map(|v| v.unsigned_abs()).sum::<u32>();
    }
    (sum + 2) >> 2
}

/// One dimension of an unnormalized 8-point Hadamard transform.
#[inline(always)]
fn hadamard8(a: [i32; 8]) -> [i32; 8] {
    let mut b = a;
    let mut h = 1;
    while h < 8 {
        for i in 0..8 {
            if i & h == 0 {
                let (x, y) = (b[i], b[i + h]);
                b[i] = x + y;
                b[i + h] = x - y;
            }
        }
        h *= 2;
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multipliers_are_those_of_the_reference_encoders() {
        // x264's and the JM's quant8 tables for QP % 6 = 0 and 5.
        let row = |m: usize| [0, 9, 18, 1, 2, 10].map(|p| QUANT_MF_8X8[m][p]);
        assert_eq!(row(0), [13107, 11428, 20972, 12222, 16777, 15481]);
        assert_eq!(row(5), [7282, 6428, 11570, 6830, 9118, 8640]);
    }

    #[test]
    fn transform_quantize_reconstruct_is_close_at_low_qp() {
        let mut rng = crate::testrng::Rng::new(0x51ed_270b);
        for qp in [0, 4, 12] {
            let mut worst = 0;
            for _ in 0..500 {
                let src: [i32; 64] = core::array::from_fn(|_| (rng.next_u64() % 511) as i32 - 255);
                let mut b = src;
                fdct8x8(&mut b);
                quant8x8(&mut b, qp, true);
                reconstruct8x8(&mut b, qp);
                for (r, s) in b.iter().zip(&src) {
                    worst = worst.max((r - s).abs());
                }
            }
            // Quantization error only: a step of about 0.6 at QP 0, 1 at 4, 2.5 at 12.
            assert!(
                worst <= [2, 3, 6][(qp / 4).min(2) as usize],
                "qp {qp}: {worst}"
            );
        }
    }
}
