//! Whether an inter residual quantizes to nothing at all: the P_Skip test,
//! asked of nearly every P macroblock before and after motion search.
//!
//! A level is zero when `(|c| * MF + f) >> qbits` is zero (the quantizer of
//! [`crate::transform`]), that is when `|c|` is under a threshold that depends
//! only on QP and the position class of the coefficient. The plain versions
//! here quantize block by block; the fast ones of `simd::x86::zero_check`
//! transform several 4x4 blocks at once in 16-bit lanes (|c| <= 9180 fits)
//! and compare with those thresholds.

use crate::tables::QUANT_MF;
use crate::transform::{fdct4x4, hadamard2x2, quant4x4, quant_chroma_dc};

/// Smallest |coefficient| that quantizes to a non-zero level, per position
/// class (0: both frequencies even, 1: both odd, 2: mixed), inter dead zone;
/// capped at i16::MAX, which no coefficient reaches.
pub fn thresholds(qp: i32) -> [i16; 3] {
    let qbits = 15 + (qp / 6) as u32;
    let limit = (1i64 << qbits) - (1i64 << qbits) / 6;
    let mf = QUANT_MF[(qp % 6) as usize];
    // |c| * mf < limit  <=>  |c| <= (limit - 1) / mf.
    core::array::from_fn(|k| ((limit - 1) / mf[k] as i64 + 1).min(i16::MAX as i64) as i16)
}

/// The signature of [`luma_is_zero`] at every CPU level.
pub type LumaIsZeroFn = fn(&[u8; 256], &[u8; 256], i32) -> bool;
/// The signature of [`chroma_is_zero`] at every CPU level.
pub type ChromaIsZeroFn = fn([&[u8]; 2], usize, usize, usize, i32, &[[u8; 64]; 2]) -> bool;

/// True when every level of the 16x16 inter luma residual `src - pred` is
/// zero; one 4x4 block at a time.
pub fn luma_is_zero(src: &[u8; 256], pred: &[u8; 256], qp: i32) -> bool {
    (0..16).all(|r| {
        let (bx, by) = (r % 4 * 4, r / 4 * 4);
        let mut d: [i32; 16] = core::array::from_fn(|i| {
            let o = (by + i / 4) * 16 + bx + i % 4;
            src[o] as i32 - pred[o] as i32
        });
        fdct4x4(&mut d);
        !quant4x4(&mut d, qp, false, false)
    })
}

/// True when every AC and DC level of the inter chroma residuals of one
/// macroblock (Cb and Cr, 8x8 each at `cs`, from `x`, `y` in samples) is
/// zero; one 4x4 block at a time.
pub fn chroma_is_zero(
    planes: [&[u8]; 2],
    cs: usize,
    x: usize,
    y: usize,
    qpc: i32,
    preds: &[[u8; 64]; 2],
) -> bool {
    (0..2).all(|c| {
        let mut dc = [0i32; 4];
        for (b, dcb) in dc.iter_mut().enumerate() {
            let (bx, by) = (b % 2 * 4, b / 2 * 4);
            let mut d: [i32; 16] = core::array::from_fn(|i| {
                let (r, k) = (by + i / 4, bx + i % 4);
                planes[c][(y + r) * cs + x + k] as i32 - preds[c][r * 8 + k] as i32
            });
            fdct4x4(&mut d);
            *dcb = d[0];
            if quant4x4(&mut d, qpc, false, true) {
                return false;
            }
        }
        hadamard2x2(&mut dc);
        !quant_chroma_dc(&mut dc, qpc, false)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The thresholds are exact: one below quantizes to zero, at it does not.
    #[test]
    fn thresholds_are_exact() {
        for qp in 0..52 {
            let t = thresholds(qp);
            for (k, &pos) in [0usize, 5, 1].iter().enumerate() {
                if t[k] == i16::MAX {
                    continue;
                }
                let mut b = [0i32; 16];
                b[pos] = t[k] as i32 - 1;
                assert!(!quant4x4(&mut b, qp, false, false), "qp {qp} class {k}");
                let mut b = [0i32; 16];
                b[pos] = -(t[k] as i32);
                assert!(quant4x4(&mut b, qp, false, false), "qp {qp} class {k}");
            }
        }
    }
}
