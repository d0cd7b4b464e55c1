//! The part of coding a frame that runs in decoding order: slices and their
//! entropy writers, the checkpoints of the in-frame rate control, QP_Y and
//! mb_qp_delta, the statistics.

use super::decision::MbDecision;
use super::macroblock_layer::{self, EntropyWriter};
use super::params::{FrameParams, FrameStats};
use super::reconstruct::{self, Derived};
use super::state::PicView;
use crate::bitwriter::BitWriter;
use crate::deblock::DeblockRows;
use crate::ratectl::InFrameRc;

/// One coded slice: its first macroblock and its slice_data() bits (no header).
pub struct SliceData {
    pub first_mb: usize,
    pub data: BitWriter,
}

/// What a frame's coding leaves.
pub struct CodedFrame {
    pub slices: Vec<SliceData>,
    /// QP_Y of every macroblock.
    pub qps: Vec<i32>,
    pub stats: FrameStats,
    /// The in-frame rate control with its checkpoint results and MAD count.
    pub rc: InFrameRc,
}

/// Writes the macroblocks of a frame in decoding order.
pub struct SliceCoder<'a, W, F> {
    p: &'a FrameParams,
    new_writer: F,
    mb_w: usize,
    total: usize,
    /// The in-frame rate control as the checkpoints so far left it.
    pub rc: InFrameRc,
    /// The writer of the current slice.
    w: Option<W>,
    /// Bits of the slices finished.
    bits_done: u64,
    /// QP_Y,PRED (7.4.5).
    qp_pred: i32,
    stats: FrameStats,
    qps: Vec<i32>,
    slices: Vec<SliceData>,
    /// The next macroblock to write.
    pub cursor: usize,
    /// The macroblocks before this one have passed the rate control's
    /// checkpoint test ([`InFrameRc::before_mb`]).
    pub rc_done: usize,
}

impl<'a, W: EntropyWriter, F: Fn(bool) -> W> SliceCoder<'a, W, F> {
    /// The coder of a frame of `p` with `total` macroblocks; `new_writer`
    /// makes each slice's writer, given whether it is a P slice.
    pub fn new(
        p: &'a FrameParams,
        rc: &InFrameRc,
        mb_w: usize,
        total: usize,
        new_writer: F,
    ) -> Self {
        SliceCoder {
            p,
            new_writer,
            mb_w,
            total,
            rc: rc.clone(),
            w: None,
            bits_done: 0,
            qp_pred: p.qp,
            stats: FrameStats::default(),
            qps: vec![0; total],
            slices: Vec::new(),
            cursor: 0,
            rc_done: 0,
        }
    }

    /// Slice index of macroblock address `n`.
    pub fn slice_of(&self, n: usize) -> i32 {
        self.p.slice_of_row(n / self.mb_w) as i32
    }

    /// Whether macroblock `n` starts a slice.
    fn first_of_slice(&self, n: usize) -> bool {
        n == 0 || self.slice_of(n) != self.slice_of(n - 1)
    }

    /// Whether macroblock `n` ends a slice.
    fn last_of_slice(&self, n: usize) -> bool {
        n + 1 == self.total || self.slice_of(n) != self.slice_of(n + 1)
    }

    /// Runs the rate control's checkpoint test before macroblock `n`, the
    /// next to write, with the bits written before it; starts its slice.
    pub fn before_mb(&mut self, n: usize) {
        debug_assert!(n == self.cursor && n == self.rc_done);
        if self.first_of_slice(n) {
            self.w = Some((self.new_writer)(!self.p.intra));
            self.qp_pred = self.p.qp;
        }
        let written = self.w.as_ref().map_or(0, |w| w.bit_len() as u64);
        self.rc.before_mb(n as u32, self.bits_done + written);
        self.rc_done = n + 1;
    }

    /// Writes macroblock `n`, the next in decoding order, as `d` decided it.
    pub fn write(&mut self, pic: &PicView, n: usize, d: &MbDecision, mut derived: Derived) {
        debug_assert!(n == self.cursor && n < self.rc_done);
        self.qps[n] = reconstruct::finish(d, &mut derived, &mut self.qp_pred, &mut self.stats);
        self.rc.mad_count += u32::from(d.mad);
        let last = self.last_of_slice(n);
        if let Some(w) = self.w.as_mut() {
            macroblock_layer::write(w, self.p, pic, n, d, &derived);
            w.end_of_mb(last);
        }
        if last {
            if let Some(w) = self.w.take() {
                let (data, bins) = w.finish();
                self.stats.bins += bins;
                self.bits_done += data.bit_len() as u64;
                let first_row = self
                    .p
                    .first_row_of_slice(self.p.slice_of_row(n / self.mb_w));
                self.slices.push(SliceData {
                    first_mb: first_row * self.mb_w,
                    data,
                });
            }
        }
        self.cursor = n + 1;
        // The row above is filtered once the last macroblock that predicts
        // from its samples unfiltered, the end of this row, is written: done
        // in decoding order, the filter runs beside the coding of the rows
        // below, which read none of its samples.
        if self.cursor.is_multiple_of(self.mb_w) && n >= self.mb_w {
            self.deblock_row(pic, n / self.mb_w - 1);
        }
    }

    /// Runs the deblocking filter over macroblock row `row`.
    fn deblock_row(&self, pic: &PicView, row: usize) {
        // SAFETY: row + 1 is written, so done, and the rows below it read
        // only row + 1 (the rule of [`PicView`]); this thread writes, so no
        // other thread filters.
        let done = unsafe { pic.rows_down_to(row) };
        let rows = DeblockRows {
            y: done.y,
            cb: done.cb,
            cr: done.cr,
            mb_w: self.mb_w,
            mbs: done.mbs,
            motion: done.motion,
            qps: &self.qps,
            rows: row..row + 1,
        };
        (self.p.dsp.deblock)(rows, &self.p.deblock);
    }

    /// The coded frame, once every macroblock is written and no other
    /// thread codes the picture: the last row is filtered too.
    pub fn finish(self, pic: &PicView) -> CodedFrame {
        debug_assert_eq!(self.cursor, self.total);
        self.deblock_row(pic, self.total / self.mb_w - 1);
        CodedFrame {
            slices: self.slices,
            qps: self.qps,
            stats: self.stats,
            rc: self.rc,
        }
    }
}
