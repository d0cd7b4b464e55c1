//! Binarization (9.3.2) and context selection (9.3.3.1) of the syntax
//! elements the H1 codes with CABAC, given the neighbour conditions the
//! macroblock coder derives.

use crate::cabac::CabacEncoder;

/// ctxBlockCat of a residual block (Table 9-42), 4:2:0 with 4x4 transforms.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum BlockCat {
    /// Intra16x16DCLevel.
    LumaDc = 0,
    /// Intra16x16ACLevel.
    LumaAc = 1,
    /// LumaLevel4x4.
    Luma4x4 = 2,
    /// ChromaDCLevel.
    ChromaDc = 3,
    /// ChromaACLevel.
    ChromaAc = 4,
    /// LumaLevel8x8.
    Luma8x8 = 5,
}

/// ctxIdxBlockCatOffset of coded_block_flag, significant/last and
/// coeff_abs_level_minus1 per ctxBlockCat (Table 9-40).
/// (LumaLevel8x8 has other ctxIdxOffsets: 402, 417 and 426, and no coded_block_flag.)
const CBF_CAT_OFFSET: [usize; 6] = [0, 4, 8, 12, 16, 0];
const SIG_CAT_OFFSET: [usize; 6] = [0, 15, 29, 44, 47, 402 - 105];
const LAST_CAT_OFFSET: [usize; 6] = [0, 15, 29, 44, 47, 417 - 166];
const ABS_CAT_OFFSET: [usize; 6] = [0, 10, 20, 30, 39, 426 - 227];

/// ctxIdxInc of significant_coeff_flag in 8x8 frame blocks by scanning position (Table 9-43).
#[rustfmt::skip]
const SIG_INC_8X8: [u8; 63] = [
    0, 1, 2, 3, 4, 5, 5, 4, 4, 3, 3, 4, 4, 4, 5, 5,
    4, 4, 4, 4, 3, 3, 6, 7, 7, 7, 8, 9, 10, 9, 8, 7,
    7, 6, 11, 12, 13, 11, 6, 7, 8, 9, 14, 10, 9, 8, 6, 11,
    12, 13, 11, 6, 9, 14, 10, 9, 11, 12, 13, 11, 14, 10, 12,
];

/// ctxIdxInc of last_significant_coeff_flag in 8x8 blocks by scanning position (Table 9-43).
#[rustfmt::skip]
const LAST_INC_8X8: [u8; 63] = [
    0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    3, 3, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4,
    5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7, 8, 8, 8,
];

/// mb_skip_flag of a P slice (ctxIdx 11..13); `cond` = condTermFlagA + condTermFlagB.
pub fn mb_skip_flag(e: &mut CabacEncoder, cond: usize, skip: bool) {
    e.decision(11 + cond, skip);
}

/// mb_type of an intra macroblock (Table 9-36): 0 is I_NxN, 1..=24 Intra_16x16.
///
/// In I slices (ctxIdxOffset 3) `cond` = condTermFlagA + condTermFlagB; in P
/// slices the prefix "1" (ctxIdx 14) comes first and the suffix uses offset 17.
pub fn mb_type_intra(e: &mut CabacEncoder, p_slice: bool, cond: usize, mb_type: u32) {
    let (first, b2, b3, b4t, b4f, b5t, b5f, rest) = if p_slice {
        e.decision(14, true);
        (17, 18, 19, 19, 20, 20, 20, 20)
    } else {
        (3 + cond, 6, 7, 8, 9, 9, 10, 10)
    };
    if mb_type == 0 {
        e.decision(first, false);
        return;
    }
    e.decision(first, true);
    // Not I_PCM.
    e.terminate(false);
    let t = mb_type - 1;
    let (mode, chroma, luma) = (t % 4, (t / 4) % 3, t >= 12);
    e.decision(b2, luma);
    e.decision(b3, chroma != 0);
    let (m0, m1) = if chroma != 0 {
        e.decision(b4t, chroma == 2);
        (b5t, rest)
    } else {
        (b4f, b5f)
    };
    e.decision(m0, mode >> 1 != 0);
    e.decision(m1, mode & 1 != 0);
}

/// mb_type of an inter macroblock of a P slice (ctxIdx 14..20): 0 P_L0_16x16,
/// 1 P_L0_L0_16x8, 2 P_L0_L0_8x16, 3 P_8x8.
pub fn mb_type_p(e: &mut CabacEncoder, mb_type: u32) {
    // Bin strings 000, 011, 010, 001 (Table 9-37).
    let (b1, b2) = match mb_type {
        0 => (false, false),
        1 => (true, true),
        2 => (true, false),
        _ => (false, true),
    };
    e.decision(14, false);
    e.decision(15, b1);
    e.decision(if b1 { 17 } else { 16 }, b2);
}

/// sub_mb_type of a P macroblock (ctxIdx 21..23): 0 8x8, 1 8x4, 2 4x8, 3 4x4.
pub fn sub_mb_type_p(e: &mut CabacEncoder, t: u32) {
    // Bin strings 1, 00, 011, 010 (Table 9-38).
    e.decision(21, t == 0);
    if t == 0 {
        return;
    }
    e.decision(22, t != 1);
    if t != 1 {
        e.decision(23, t == 2);
    }
}

/// One component of mvd_l0 (UEG3, signed, uCoff 9): ctxIdxOffset 40
/// (horizontal) or 47 (vertical); `abs_sum` is absMvdComp of A plus B.
pub fn mvd(e: &mut CabacEncoder, vertical: bool, abs_sum: u32, v: i32) {
    let base = if vertical { 47 } else { 40 };
    let inc0 = match abs_sum {
        0..=2 => 0,
        3..=32 => 1,
        _ => 2,
    };
    let a = v.unsigned_abs();
    let prefix = a.min(9);
    for i in 0..prefix {
        let inc = if i == 0 {
            inc0
        } else {
            (i as usize + 2).min(6)
        };
        e.decision(base + inc, true);
    }
    if a < 9 {
        let inc = if prefix == 0 {
            inc0
        } else {
            (prefix as usize + 2).min(6)
        };
        e.decision(base + inc, false);
    } else {
        exp_golomb_bypass(e, a - 9, 3);
    }
    if a != 0 {
        e.bypass(v < 0);
    }
}

/// k-th order Exp-Golomb suffix in bypass bins (9.3.2.3).
fn exp_golomb_bypass(e: &mut CabacEncoder, mut v: u32, mut k: u32) {
    while v >= 1 << k {
        e.bypass(true);
        v -= 1 << k;
        k += 1;
    }
    e.bypass(false);
    while k > 0 {
        k -= 1;
        e.bypass((v >> k) & 1 != 0);
    }
}

/// prev_intra4x4_pred_mode_flag (ctxIdx 68) and rem_intra4x4_pred_mode (69,
/// three bins, least significant first).
pub fn intra4x4_pred_mode(e: &mut CabacEncoder, rem: Option<u8>) {
    e.decision(68, rem.is_none());
    if let Some(r) = rem {
        for k in 0..3 {
            e.decision(69, (r >> k) & 1 != 0);
        }
    }
}

/// intra_chroma_pred_mode (TU, cMax 3, ctxIdx 64..67); `cond` = condTermFlagA + condTermFlagB.
pub fn intra_chroma_pred_mode(e: &mut CabacEncoder, cond: usize, mode: u8) {
    e.decision(64 + cond, mode != 0);
    for i in 1..3 {
        if mode < i {
            return;
        }
        e.decision(67, mode > i);
    }
}

/// transform_size_8x8_flag (ctxIdx 399..401); `cond` = condTermFlagA + condTermFlagB.
pub fn transform_size_8x8_flag(e: &mut CabacEncoder, cond: usize, t8: bool) {
    e.decision(399 + cond, t8);
}

/// coded_block_pattern: the luma prefix (ctxIdx 73..76) bin by bin, each with
/// its condTermFlagA + 2 * condTermFlagB from `luma_cond(b8, bins so far)`, and the
/// chroma suffix (77..84) with `chroma_cond` for its two bins.
pub fn coded_block_pattern(
    e: &mut CabacEncoder,
    cbp: u32,
    luma_cond: impl Fn(usize, u32) -> usize,
    chroma_cond: [usize; 2],
) {
    for b8 in 0..4 {
        e.decision(
            73 + luma_cond(b8, cbp & ((1 << b8) - 1)),
            (cbp >> b8) & 1 != 0,
        );
    }
    let chroma = cbp >> 4;
    e.decision(77 + chroma_cond[0], chroma != 0);
    if chroma != 0 {
        e.decision(77 + 4 + chroma_cond[1], chroma == 2);
    }
}

/// mb_qp_delta (Table 9-3 mapping, unary, ctxIdx 60..63); `prev_nonzero` is
/// whether the previous macroblock of the slice had a non-zero mb_qp_delta.
pub fn mb_qp_delta(e: &mut CabacEncoder, prev_nonzero: bool, d: i32) {
    let mapped = if d > 0 {
        2 * d as u32 - 1
    } else {
        2 * d.unsigned_abs()
    };
    for i in 0..=mapped {
        let ctx = match i {
            0 => 60 + usize::from(prev_nonzero),
            1 => 62,
            _ => 63,
        };
        e.decision(ctx, i < mapped);
    }
}

/// ctxIdxInc of a significance map flag by scanning position.
type IncFn = fn(usize) -> usize;

/// One residual_block_cabac() (7.3.5.3.3): coded_block_flag with `cbf_cond` =
/// condTermFlagA + 2 * condTermFlagB (not for LumaLevel8x8 blocks, which must
/// have a level), then the significance map and the levels of `coeffs` in
/// scanning order. Returns the number of non-zero coefficients.
pub fn residual_block(e: &mut CabacEncoder, cat: BlockCat, cbf_cond: usize, coeffs: &[i32]) -> u8 {
    let c = cat as usize;
    let last = coeffs.iter().rposition(|&v| v != 0);
    if cat != BlockCat::Luma8x8 {
        e.decision(85 + CBF_CAT_OFFSET[c] + cbf_cond, last.is_some());
    }
    let Some(last) = last else {
        return 0;
    };
    let n = coeffs.len();
    let (sig_inc, last_inc): (IncFn, IncFn) = match cat {
        BlockCat::ChromaDc => (|i| i.min(2), |i| i.min(2)),
        BlockCat::Luma8x8 => (|i| SIG_INC_8X8[i] as usize, |i| LAST_INC_8X8[i] as usize),
        _ => (|i| i, |i| i),
    };
    for (i, &v) in coeffs.iter().enumerate().take(n - 1) {
        e.decision(105 + SIG_CAT_OFFSET[c] + sig_inc(i), v != 0);
        if v != 0 {
            e.decision(166 + LAST_CAT_OFFSET[c] + last_inc(i), i == last);
            if i == last {
                break;
            }
        }
    }
    let (mut eq1, mut gt1) = (0usize, 0usize);
    let max_gt1 = if cat == BlockCat::ChromaDc { 3 } else { 4 };
    let base = 227 + ABS_CAT_OFFSET[c];
    let mut count = 0;
    for &v in coeffs[..=last].iter().rev().filter(|&&v| v != 0) {
        count += 1;
        let a = v.unsigned_abs() - 1;
        let inc0 = if gt1 != 0 { 0 } else { (1 + eq1).min(4) };
        e.decision(base + inc0, a != 0);
        if a != 0 {
            let inc = 5 + gt1.min(max_gt1);
            let prefix = a.min(14);
            for _ in 1..prefix {
                e.decision(base + inc, true);
            }
            if a < 14 {
                e.decision(base + inc, false);
            } else {
                exp_golomb_bypass(e, a - 14, 0);
            }
            gt1 += 1;
        } else {
            eq1 += 1;
        }
        e.bypass(v < 0);
    }
    count
}
