//! The H1's in-frame rate control: checkpoints with a QP-delta ladder, and the
//! MAD-based QP adjustment (see SLICE_HEADER.md, "In-frame rate control").

use crate::regs::{self, Registers};

/// Number of checkpoints.
pub const CHECKPOINTS: usize = 10;

/// In-frame control state of one frame.
#[derive(Clone, Debug, Default)]
pub struct InFrameRc {
    /// Macroblocks between checkpoints; 0 disables checkpoints.
    pub distance: u32,
    /// Cumulative targets in 32-bit words.
    pub targets: [i32; CHECKPOINTS],
    /// Word-error thresholds (signed, ascending) choosing among `delta_qp`.
    pub word_err: [i32; 6],
    /// QP deltas for the seven error ranges.
    pub delta_qp: [i32; 7],
    /// MAD threshold per sample; 0 disables the MAD adjustment.
    pub mad_threshold: u32,
    /// QP added to macroblocks under the MAD threshold.
    pub mad_adjust: i32,
    /// Words written at each checkpoint reached.
    pub results: [u32; CHECKPOINTS],
    /// Checkpoints reached.
    pub reached: usize,
    /// Current QP delta.
    pub delta: i32,
    /// Macroblocks under the MAD threshold.
    pub mad_count: u32,
}

/// Reads half `i` of a pair register: even indices in the upper half.
fn half(regs: &Registers, base: usize, i: usize) -> u32 {
    let r = regs.read(base + (i / 2) * 4);
    if i.is_multiple_of(2) {
        r >> 16
    } else {
        r & 0xffff
    }
}

impl InFrameRc {
    /// Decodes QP_VAL.CHECKPOINT_DISTAN, CHECKPOINT(0..4), CHKPT_WORD_ERR(0..2),
    /// CHKPT_DELTA_QP and MAD_CTRL.
    pub fn from_regs(r: &Registers) -> Self {
        let mut s = InFrameRc {
            distance: r.read(regs::QP_VAL) & regs::QP_VAL_CHECKPOINT_DISTAN_MASK,
            ..Default::default()
        };
        for i in 0..CHECKPOINTS {
            s.targets[i] = half(r, regs::CHECKPOINT_BASE, i) as i32;
        }
        for i in 0..6 {
            s.word_err[i] = half(r, regs::CHKPT_WORD_ERR_BASE, i) as u16 as i16 as i32;
        }
        let d = r.read(regs::CHKPT_DELTA_QP);
        for i in 0..7 {
            s.delta_qp[i] = (((d >> (4 * i)) & 0xf) as i32) << 28 >> 28;
        }
        s.mad_threshold = r.field(regs::MAD_CTRL, regs::MAD_THRESHOLD_SHIFT, 6);
        s.mad_adjust = r.sfield(regs::MAD_CTRL, regs::MAD_QP_ADJUST_SHIFT, 4);
        s
    }

    /// Called before coding macroblock `mb` (in coding order) with the bits of
    /// macroblock data written so far; at a checkpoint, records the result and
    /// picks the QP delta from the error against the target.
    pub fn before_mb(&mut self, mb: u32, bits: u64) {
        if self.distance == 0
            || mb == 0
            || !mb.is_multiple_of(self.distance)
            || self.reached >= CHECKPOINTS
        {
            return;
        }
        let words = (bits / 32) as i64;
        self.results[self.reached] = words.min(0xffff * 32) as u32;
        // A zero target ends the ladder: the driver programmed fewer checkpoints.
        let target = self.targets[self.reached];
        if target != 0 {
            let err = words - i64::from(target);
            let k = self
                .word_err
                .iter()
                .filter(|&&t| err >= i64::from(t))
                .count();
            self.delta = self.delta_qp[k];
        }
        self.reached += 1;
    }

    /// QP of the next macroblock before the MAD adjustment.
    pub fn base_qp(&self, qp: i32, min: i32, max: i32) -> i32 {
        (qp + self.delta).clamp(min, max)
    }

    /// The MAD adjustment of an inter-coded macroblock whose prediction has
    /// sum of absolute differences `sad` over 256 samples: its QP when it
    /// is under the threshold (the caller counts it in `mad_count`).
    pub fn mad_qp(&self, qp: i32, sad: u32, min: i32, max: i32) -> Option<i32> {
        if self.mad_threshold == 0 || sad / 256 >= self.mad_threshold {
            return None;
        }
        Some((qp + self.mad_adjust).clamp(min, max))
    }

    /// Writes the checkpoint results back (same halves as the targets, in words).
    pub fn write_back(&self, r: &mut Registers) {
        for i in 0..self.reached {
            let reg = regs::CHECKPOINT_BASE + (i / 2) * 4;
            let v = r.read(reg);
            let w = self.results[i].min(0xffff);
            r.write(
                reg,
                if i % 2 == 0 {
                    (v & 0xffff) | (w << 16)
                } else {
                    (v & !0xffff) | w
                },
            );
        }
        r.write(
            regs::MB_CTRL,
            (r.read(regs::MB_CTRL) & !regs::MB_CNT_OUT_MASK)
                | (self.mad_count & regs::MB_CNT_OUT_MASK),
        );
    }
}
