// SPDX-License-Identifier: GPL-2.0-only
//! Planning of the H1's in-frame rate control: checkpoint targets, the QP-delta
//! ladder and the MAD threshold, adapted from the hardware's statistics.
//!
//! The hardware compares, every `distance` macroblocks, the words (32 bits)
//! written so far with a target and moves the QP of the following macroblocks
//! by one of seven deltas chosen through six word-error thresholds.

use super::super::math::mul_div;

/// Number of H1 checkpoints.
pub const CHECKPOINTS: usize = 10;

/// QP deltas of the seven error ranges, most under target first.
const LADDER: [i8; 7] = [-3, -2, -1, 0, 1, 2, 3];

/// The in-frame control of one picture.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InFramePlan {
    /// Macroblocks between checkpoints; 0 disables checkpoints.
    pub distance: u16,
    /// Cumulative targets, 32-bit words.
    pub targets: [u16; CHECKPOINTS],
    /// Word-error thresholds, ascending.
    pub word_err: [i16; 6],
    /// QP deltas of the seven error ranges.
    pub delta_qp: [i8; 7],
    /// MAD threshold per sample; 0 disables the adjustment.
    pub mad_threshold: u8,
    /// QP added to macroblocks under the MAD threshold.
    pub mad_qp_adjust: i8,
}

impl InFramePlan {
    /// Checkpoints the hardware reaches in a picture of `mbs` macroblocks.
    pub fn reached(&self, mbs: u32) -> usize {
        if self.distance == 0 || mbs == 0 {
            return 0;
        }
        (((mbs - 1) / u32::from(self.distance)) as usize).min(CHECKPOINTS)
    }
}

/// Learns the ladder's width and the MAD threshold from past pictures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InFrameLearner {
    /// Width of one ladder step as a fraction of a checkpoint interval's target, Q8.
    step_q8: u32,
    /// Current MAD threshold.
    mad_threshold: u8,
}

impl Default for InFrameLearner {
    fn default() -> Self {
        InFrameLearner {
            step_q8: 256,
            mad_threshold: 2,
        }
    }
}

impl InFrameLearner {
    /// Plans the in-frame control for a picture aiming at `target_bits` of
    /// macroblock data over `mbs` macroblocks.
    pub fn plan(&self, target_bits: u32, mbs: u32, inter: bool) -> InFramePlan {
        let mut p = InFramePlan::default();
        let words = u64::from(target_bits / 32);
        if words == 0 || mbs < 2 * CHECKPOINTS as u32 || words > 0xffff {
            // Too small to steer, or beyond what the 16-bit targets hold.
            return p;
        }
        let distance = (mbs + CHECKPOINTS as u32) / (CHECKPOINTS as u32 + 1);
        p.distance = distance.min(0xfff) as u16;
        for (t, i) in p.targets.iter_mut().zip(0..CHECKPOINTS as u64) {
            let mb = u64::from(distance) * (i + 1);
            if mb >= u64::from(mbs) {
                break;
            }
            *t = mul_div(words, mb, u64::from(mbs)).clamp(1, 0xffff) as u16;
        }
        // One step of the ladder: a share of one checkpoint interval's words.
        let interval = mul_div(words, u64::from(distance), u64::from(mbs));
        let unit = mul_div(interval, u64::from(self.step_q8), 256).clamp(1, 0x2aaa) as i16;
        p.word_err = [-3 * unit, -2 * unit, -unit, unit, 2 * unit, 3 * unit];
        p.delta_qp = LADDER;
        if inter {
            // The hardware counts the macroblocks under the threshold (a
            // statistic for the client) but leaves their QP: lowering it by
            // one measured no PSNR gain on the test clips, and the share
            // under the threshold, which varies from picture to picture,
            // made the pictures' average QP jitter with it.
            p.mad_threshold = self.mad_threshold;
            p.mad_qp_adjust = 0;
        }
        p
    }

    /// Learns from a completed picture: how far it ended from `target_bits`,
    /// and how many of its `mbs` macroblocks were under the MAD threshold.
    pub fn learn(
        &mut self,
        plan: &InFramePlan,
        target_bits: u32,
        bits: u32,
        mad_count: u32,
        mbs: u32,
    ) {
        if plan.distance != 0 && target_bits > 0 {
            let off = u64::from(bits.abs_diff(target_bits)) * 8 > u64::from(target_bits);
            // Far off (over 1/8): tighten the ladder; close: relax it slowly.
            self.step_q8 = if off {
                (self.step_q8.saturating_mul(3) / 4).max(32)
            } else {
                (self.step_q8.saturating_mul(9) / 8).min(1024)
            };
        }
        if plan.mad_threshold != 0 && mbs > 0 {
            // Keep a quarter to a half of the macroblocks under the threshold.
            // mad_count comes from the hardware: any u32.
            if mad_count.saturating_mul(2) > mbs {
                self.mad_threshold = self.mad_threshold.saturating_sub(1).max(1);
            } else if mad_count.saturating_mul(4) < mbs {
                self.mad_threshold = self.mad_threshold.saturating_add(1).min(16);
            }
        }
    }
}
