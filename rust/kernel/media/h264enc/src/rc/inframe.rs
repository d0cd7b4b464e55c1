// SPDX-License-Identifier: GPL-2.0-only
//! Planning of the H1's in-frame rate control: checkpoint targets, the QP-delta
//! ladder and the MAD threshold, adapted from the hardware's statistics.
//!
//! The hardware compares, every `distance` macroblocks, the words (32 bits)
//! written so far with a target and moves the QP of the following macroblocks
//! by one of seven deltas chosen through six word-error thresholds.

use super::super::math::mul_div;
use super::super::plan::FramePlan;

/// Number of H1 checkpoints.
pub const CHECKPOINTS: usize = 10;

/// QP deltas of the seven error ranges, most under target first.
const LADDER: [i8; 7] = [-3, -2, -1, 0, 1, 2, 3];

/// Words added to the targets of the checkpoints before a picture's QP
/// switches up (`InFrameLearner::plan_fraction`).
const SWITCH_OFFSET: u32 = 0x4000;

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
    /// Sets the in-frame control registers' values in `plan`.
    pub fn program(&self, plan: &mut FramePlan) {
        plan.checkpoint_distance = self.distance;
        plan.checkpoint_targets = self.targets;
        plan.checkpoint_word_err = self.word_err;
        plan.checkpoint_delta_qp = self.delta_qp;
        plan.mad_threshold = self.mad_threshold;
        plan.mad_qp_adjust = self.mad_qp_adjust;
    }

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

    /// Plans the in-frame control of an inter picture coded at a QP between
    /// two integers: its last `fraction_q8`/256 (to the nearest checkpoint)
    /// one QP up, and steered by one step, or two above, only when it is
    /// off its target by two checkpoint intervals or more.
    ///
    /// The hardware picks a range by the error alone, so the targets of the
    /// checkpoints before the switch carry an offset that moves their
    /// errors into ranges of their own, far below those of the checkpoints
    /// after it.
    pub fn plan_fraction(&self, target_bits: u32, mbs: u32, fraction_q8: u8) -> InFramePlan {
        let p = self.plan(target_bits, mbs, true);
        let reached = p.reached(mbs);
        if reached == 0 {
            return p;
        }
        let distance = u32::from(p.distance);
        // Macroblocks to code one QP up, and the checkpoint after which
        // the rest of the picture comes closest to that.
        let want = mul_div(u64::from(mbs), u64::from(fraction_q8), 256);
        let mut switch = reached;
        let mut best = want;
        for k in 0..reached {
            // k < reached: distance * (k + 1) < mbs.
            let rest = u64::from(mbs.saturating_sub(distance.saturating_mul(k as u32 + 1)));
            if rest.abs_diff(want) < best {
                best = rest.abs_diff(want);
                switch = k;
            }
        }
        let words = u64::from(target_bits / 32);
        let unit = mul_div(words, 2 * u64::from(distance), u64::from(mbs)).max(1);
        let last = p.targets.get(reached - 1).copied().unwrap_or(0);
        if unit >= u64::from(SWITCH_OFFSET / 2)
            || u32::from(last).saturating_add(SWITCH_OFFSET) > 0xffff
        {
            return p;
        }
        // Checked above: the targets take the offset, and every threshold
        // fits an i16 (off + u < 24576, 3 * u < 24576); saturating only
        // keeps the arithmetic free of panic paths.
        let (off, u) = (SWITCH_OFFSET as i16, unit as i16);
        let mut q = p;
        for t in q.targets.iter_mut().take(switch) {
            *t = t.saturating_add(SWITCH_OFFSET as u16);
        }
        q.word_err = [
            (-off).saturating_sub(u),
            (-off).saturating_add(u),
            -off / 2,
            -u,
            u,
            u.saturating_mul(3),
        ];
        q.delta_qp = [-1, 0, 1, 0, 1, 2, 2];
        q
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
        // A picture planned with a fraction was not steered to its target.
        if plan.distance != 0 && target_bits > 0 && plan.delta_qp == LADDER {
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
