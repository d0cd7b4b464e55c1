//! Integer transforms and quantization (clauses 8.5.9 to 8.5.12, and their forward counterparts).

use crate::tables::{DEQUANT_V, POS_CLASS, QUANT_MF};

/// Forward 4x4 core transform of a residual block, raster order, in place.
#[inline(always)]
pub fn fdct4x4(b: &mut [i32; 16]) {
    for r in 0..4 {
        let s = &mut b[r * 4..r * 4 + 4];
        let (p0, p1, p2, p3) = (s[0] + s[3], s[1] + s[2], s[1] - s[2], s[0] - s[3]);
        s[0] = p0 + p1;
        s[2] = p0 - p1;
        s[1] = 2 * p3 + p2;
        s[3] = p3 - 2 * p2;
    }
    for c in 0..4 {
        let (a, b1, c1, d) = (b[c], b[4 + c], b[8 + c], b[12 + c]);
        let (p0, p1, p2, p3) = (a + d, b1 + c1, b1 - c1, a - d);
        b[c] = p0 + p1;
        b[8 + c] = p0 - p1;
        b[4 + c] = 2 * p3 + p2;
        b[12 + c] = p3 - 2 * p2;
    }
}

/// Inverse 4x4 transform of clause 8.5.12.2, including the final `(x + 32) >> 6`.
pub fn idct4x4(d: &mut [i32; 16]) {
    for r in 0..4 {
        let s = &mut d[r * 4..r * 4 + 4];
        let e = s[0] + s[2];
        let f = s[0] - s[2];
        let g = (s[1] >> 1) - s[3];
        let h = s[1] + (s[3] >> 1);
        s[0] = e + h;
        s[1] = f + g;
        s[2] = f - g;
        s[3] = e - h;
    }
    for c in 0..4 {
        let (a, b, cc, dd) = (d[c], d[4 + c], d[8 + c], d[12 + c]);
        let e = a + cc;
        let f = a - cc;
        let g = (b >> 1) - dd;
        let h = b + (dd >> 1);
        d[c] = (e + h + 32) >> 6;
        d[4 + c] = (f + g + 32) >> 6;
        d[8 + c] = (f - g + 32) >> 6;
        d[12 + c] = (e - h + 32) >> 6;
    }
}

/// 4x4 Hadamard transform (used forward and inverse for Intra16x16 DC), raster, in place.
pub fn hadamard4x4(b: &mut [i32; 16]) {
    for r in 0..4 {
        let s = &mut b[r * 4..r * 4 + 4];
        let (p0, p1, p2, p3) = (s[0] + s[1], s[2] + s[3], s[0] - s[1], s[2] - s[3]);
        s[0] = p0 + p1;
        s[1] = p0 - p1;
        s[2] = p2 - p3;
        s[3] = p2 + p3;
    }
    for c in 0..4 {
        let (a, b1, c1, d) = (b[c], b[4 + c], b[8 + c], b[12 + c]);
        let (p0, p1, p2, p3) = (a + b1, c1 + d, a - b1, c1 - d);
        b[c] = p0 + p1;
        b[4 + c] = p0 - p1;
        b[8 + c] = p2 - p3;
        b[12 + c] = p2 + p3;
    }
}

/// Quantizes one coefficient with multiplier `mf`, shift `qbits` and rounding `f`.
#[inline]
fn quant(c: i32, mf: i32, qbits: u32, f: i32) -> i32 {
    let l = ((c.unsigned_abs() as i64 * mf as i64 + f as i64) >> qbits) as i32;
    if c < 0 {
        -l
    } else {
        l
    }
}

/// Rounding offset numerator: 1/3 of a step for intra, 1/6 for inter (as the JM does).
#[inline]
fn dead_zone(qbits: u32, intra: bool) -> i32 {
    if intra {
        (1 << qbits) / 3
    } else {
        (1 << qbits) / 6
    }
}

/// Quantizes a transformed 4x4 block at `qp`; `skip_dc` leaves position 0 untouched (AC blocks).
/// Returns true when a level is non-zero.
#[inline(always)]
pub fn quant4x4(b: &mut [i32; 16], qp: i32, intra: bool, skip_dc: bool) -> bool {
    let qbits = 15 + (qp / 6) as u32;
    let f = dead_zone(qbits, intra);
    let mf = &QUANT_MF16[(qp % 6) as usize];
    let dc = b[0];
    let mut nz = 0;
    // |c| <= 36 * 255 and MF <= 13107: the product fits an i32.
    for (c, m) in b.iter_mut().zip(mf) {
        let sign = *c >> 31;
        let l = (c.abs() * m + f) >> qbits;
        nz |= l;
        *c = (l ^ sign) - sign;
    }
    if skip_dc {
        nz = 0;
        b[0] = dc;
        for c in &b[1..] {
            nz |= *c;
        }
    }
    nz != 0
}

/// QUANT_MF by coefficient position, for each QP % 6.
const QUANT_MF16: [[i32; 16]; 6] = {
    let mut t = [[0; 16]; 6];
    let mut m = 0;
    while m < 6 {
        let mut i = 0;
        while i < 16 {
            t[m][i] = QUANT_MF[m][POS_CLASS[i]];
            i += 1;
        }
        m += 1;
    }
    t
};

/// Scales AC levels of a 4x4 block back (8.5.12.1, flat scaling lists); position 0 too unless `skip_dc`.
pub fn dequant4x4(b: &mut [i32; 16], qp: i32, skip_dc: bool) {
    let scale = &DEQUANT16[(qp % 6) as usize];
    let shift = (qp / 6) as u32;
    let dc = b[0];
    for (c, v) in b.iter_mut().zip(scale) {
        *c = (*c * v) << shift >> 4;
    }
    if skip_dc {
        b[0] = dc;
    }
}

/// LevelScale4x4 (times 16, flat scaling lists) by coefficient position, for each QP % 6.
const DEQUANT16: [[i32; 16]; 6] = {
    let mut t = [[0; 16]; 6];
    let mut m = 0;
    while m < 6 {
        let mut i = 0;
        while i < 16 {
            t[m][i] = DEQUANT_V[m][POS_CLASS[i]] * 16;
            i += 1;
        }
        m += 1;
    }
    t
};

/// The residual of one 4x4 block from its levels (8.5.12): scaling and the
/// inverse transform, in place. With `dc`, the block's DC comes already
/// scaled from its own transform (Intra16x16, chroma) in place of `d[0]`.
/// An all-zero block stays zero without either step.
pub fn reconstruct4x4(d: &mut [i32; 16], qp: i32, dc: Option<i32>) {
    let dc0 = dc.unwrap_or(d[0]);
    if dc0 == 0 && d[1..].iter().all(|&v| v == 0) {
        *d = [0; 16];
        return;
    }
    dequant4x4(d, qp, dc.is_some());
    if let Some(v) = dc {
        d[0] = v;
    }
    idct4x4(d);
}

/// Quantizes the Hadamard-transformed Intra16x16 DC block (forward counterpart of 8.5.10).
pub fn quant_luma_dc(b: &mut [i32; 16], qp: i32) -> bool {
    let qbits = 16 + (qp / 6) as u32;
    let f = dead_zone(qbits, true);
    let mf = QUANT_MF[(qp % 6) as usize][0];
    let mut nz = false;
    for c in b.iter_mut() {
        // The forward Hadamard output is halved before quantization.
        *c = quant(*c >> 1, mf, qbits, f);
        nz |= *c != 0;
    }
    nz
}

/// Intra16x16 DC scaling of clause 8.5.10 applied to the inverse-Hadamard output.
pub fn dequant_luma_dc(f: &mut [i32; 16], qp: i32) {
    let ls = DEQUANT_V[(qp % 6) as usize][0] * 16;
    let k = qp / 6;
    for c in f.iter_mut() {
        *c = if qp >= 36 {
            (*c * ls) << (k - 6)
        } else {
            (*c * ls + (1 << (5 - k))) >> (6 - k)
        };
    }
}

/// 2x2 Hadamard of the chroma DC coefficients `[c00, c01, c10, c11]` (raster).
pub fn hadamard2x2(c: &mut [i32; 4]) {
    let (a, b, cc, d) = (c[0], c[1], c[2], c[3]);
    c[0] = a + b + cc + d;
    c[1] = a - b + cc - d;
    c[2] = a + b - cc - d;
    c[3] = a - b - cc + d;
}

/// Quantizes the Hadamard-transformed chroma DC block.
pub fn quant_chroma_dc(c: &mut [i32; 4], qp: i32, intra: bool) -> bool {
    let qbits = 16 + (qp / 6) as u32;
    let f = dead_zone(qbits, intra);
    let mf = QUANT_MF[(qp % 6) as usize][0];
    let mut nz = false;
    for x in c.iter_mut() {
        *x = quant(*x, mf, qbits, f);
        nz |= *x != 0;
    }
    nz
}

/// Chroma DC scaling of clause 8.5.11.2 applied to the inverse-Hadamard output.
pub fn dequant_chroma_dc(f: &mut [i32; 4], qp: i32) {
    let ls = DEQUANT_V[(qp % 6) as usize][0] * 16;
    for c in f.iter_mut() {
        *c = ((*c * ls) << (qp / 6)) >> 5;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The branch-free quantizer equals the coefficient-by-coefficient
    /// formula on every QP, both dead zones and the whole coefficient range.
    #[test]
    fn quant4x4_equals_the_plain_formula() {
        let mut rng = crate::testrng::Rng::new(0x9e37_79b9_7f4a_7c15);
        let mut next = || rng.next_u64();
        for qp in 0..52 {
            for intra in [false, true] {
                for skip_dc in [false, true] {
                    for _ in 0..200 {
                        let mut b = [0i32; 16];
                        for v in b.iter_mut() {
                            // Up to 36 x 255, the largest core-transform output.
                            *v = (next() % 18361) as i32 - 9180;
                        }
                        let qbits = 15 + (qp / 6) as u32;
                        let f = dead_zone(qbits, intra);
                        let mut want = b;
                        for (i, c) in want.iter_mut().enumerate() {
                            if !(i == 0 && skip_dc) {
                                *c = quant(*c, QUANT_MF[(qp % 6) as usize][POS_CLASS[i]], qbits, f);
                            }
                        }
                        let nz = want.iter().skip(usize::from(skip_dc)).any(|&c| c != 0);
                        let mut got = b;
                        assert_eq!(quant4x4(&mut got, qp, intra, skip_dc), nz);
                        assert_eq!(got, want, "qp {qp}");
                    }
                }
            }
        }
    }
}
