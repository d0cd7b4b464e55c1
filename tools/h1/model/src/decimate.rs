//! Dropping inter luma residuals whose few isolated ±1 levels cost more bits
//! than the distortion they remove.
//!
//! A block of an inter macroblock whose levels are all ±1, far apart and late
//! in the scan, costs its coded_block_pattern bit, a coeff_token and a run of
//! run_before codes (or their CABAC bins), yet reconstructs to a few units of
//! error at most. The score adds, for each ±1 from the end of the zig-zag
//! scan, a weight that falls with the run of zeros before it; any larger level
//! makes the block worth coding. An 8x8 quadrant (four 4x4 blocks) scoring
//! under 4 is dropped, and then the whole macroblock's luma when all four
//! together score under 6: the weights and thresholds of x264's DCT
//! decimation. Dropped blocks are simply not coded, so every stream stays a
//! conforming one.
//!
//! Only 4x4-transformed macroblocks are decimated. Measured at 720p
//! (`scripts/bench-h1.py`, garden and storm), decimation moved the BD-rate
//! against OpenH264 from -4.2 to -4.3 % in Baseline and from -24.1 to -24.6 %
//! in Main; the same rule on 8x8-transformed blocks (x264's 8x8 weights) took
//! High from -29.2 to -26.8 %, so those blocks are kept as quantized.

use crate::tables::ZIGZAG_4X4;

/// A score no block reaches by ±1 levels alone: a larger level is present.
const KEEP: u32 = 9;

/// Weight of a ±1 level by the run of zeros before it, 4x4 scan.
const WEIGHT_4X4: [u8; 16] = [3, 2, 2, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];

/// Score of levels given in scan order `scan` of `levels` (raster order).
fn score(levels: &[i32], scan: &[usize], weight: &[u8]) -> u32 {
    let mut total = 0u32;
    let mut run = 0usize;
    let mut seen = false;
    for &pos in scan.iter().rev() {
        let l = levels[pos];
        if l == 0 {
            run += seen as usize;
            continue;
        }
        if seen {
            total += u32::from(weight[run]);
        }
        if l.unsigned_abs() > 1 {
            return KEEP;
        }
        seen = true;
        run = 0;
    }
    if seen {
        total += u32::from(weight[run]);
    }
    total
}

/// Score of a 4x4 block of levels in raster order.
pub fn score4x4(levels: &[i32; 16]) -> u32 {
    score(levels, &ZIGZAG_4X4, &WEIGHT_4X4)
}

/// The coded_block_pattern (luma bits) left once poor 8x8 blocks are dropped,
/// given the score of each 8x8 block and the pattern before.
pub fn luma_cbp(scores: [u32; 4], cbp: u32) -> u32 {
    let mut kept = cbp;
    let mut total = 0;
    for (b8, s) in scores.iter().enumerate() {
        if cbp & (1 << b8) != 0 {
            total += s;
            if *s < 4 {
                kept &= !(1 << b8);
            }
        }
    }
    if total < 6 {
        0
    } else {
        kept
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The score by its definition: levels walked from the first in scan
    /// order, each ±1 weighted by the zeros between it and the previous one.
    fn score_by_definition(scan_levels: &[i32], weight: &[u8]) -> u32 {
        if scan_levels.iter().any(|l| l.abs() > 1) {
            return KEEP;
        }
        let mut total = 0;
        let mut zeros = 0;
        for &l in scan_levels {
            if l == 0 {
                zeros += 1;
            } else {
                total += u32::from(weight[zeros]);
                zeros = 0;
            }
        }
        total
    }

    #[test]
    fn scores_match_their_definition() {
        let mut rng = crate::testrng::Rng::new(0x5eed_dec1);
        for _ in 0..20_000 {
            let density = rng.range(1, 16);
            let mut b4 = [0i32; 16];
            for v in b4.iter_mut() {
                if rng.range(1, density) == 1 {
                    *v = [-2, -1, 1, 1, -1, 1, 2][rng.range(0, 6) as usize];
                }
            }
            let s4: Vec<i32> = ZIGZAG_4X4.iter().map(|&p| b4[p]).collect();
            assert_eq!(score4x4(&b4), score_by_definition(&s4, &WEIGHT_4X4));
        }
    }

    #[test]
    fn lone_late_ones_are_dropped_and_large_levels_kept() {
        let mut b = [0i32; 16];
        b[ZIGZAG_4X4[15]] = 1;
        assert_eq!(score4x4(&b), 0);
        b[ZIGZAG_4X4[0]] = -1;
        assert_eq!(score4x4(&b), 3);
        b[ZIGZAG_4X4[0]] = 2;
        assert_eq!(score4x4(&b), KEEP);
        // One block worth keeping keeps the macroblock; alone, 3 + 2 < 6 drops it.
        assert_eq!(luma_cbp([KEEP, 0, 3, 2], 0b1101), 0b0001);
        assert_eq!(luma_cbp([3, 0, 2, 0], 0b0101), 0);
        assert_eq!(luma_cbp([4, 0, 2, 0], 0b0101), 0b0001);
    }
}
