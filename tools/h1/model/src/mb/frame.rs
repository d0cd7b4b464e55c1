//! The frame loop: decides, reconstructs and writes each macroblock of each
//! slice in turn, with the in-frame rate control between macroblocks.

use super::cabac_writer::CabacWriter;
use super::cavlc_writer::CavlcWriter;
use super::decide::{Decider, Lambdas};
use super::macroblock_layer::{self, EntropyWriter};
use super::params::{FrameParams, FrameStats};
use super::reconstruct;
use super::state::{MbInfo, PictureState};
use crate::bitwriter::BitWriter;
use crate::mvpred::BlockMotion;
use crate::picture::Planes;
use crate::ratectl::InFrameRc;
use crate::refpic::RefPicture;

/// One coded slice: its first macroblock and its slice_data() bits (no header).
pub struct SliceData {
    pub first_mb: usize,
    pub data: BitWriter,
}

/// The per-frame buffers of a [`FrameCoder`], kept from frame to frame.
#[derive(Default)]
pub struct CoderBuffers {
    pub rec: Option<Planes>,
    pub mbs: Vec<MbInfo>,
    pub motion: Vec<BlockMotion>,
}

/// Codes one frame.
pub struct FrameCoder<'a> {
    p: &'a FrameParams,
    src: &'a Planes,
    /// Mutable only to compute its half-sample rows as the coder reaches them.
    refpic: Option<&'a mut RefPicture>,
    /// The picture as coded so far; the whole reconstruction at the end.
    pub pic: PictureState,
    pub stats: FrameStats,
    /// In-frame rate control state, with the checkpoint results.
    pub rc: InFrameRc,
    lambdas: Lambdas,
}

impl<'a> FrameCoder<'a> {
    /// A coder of `src`, predicting P frames from `refpic`.
    /// `spare` lends the buffers of an earlier frame's coder ([`FrameCoder::into_buffers`]).
    pub fn new(
        p: &'a FrameParams,
        src: &'a Planes,
        refpic: Option<&'a mut RefPicture>,
        spare: CoderBuffers,
    ) -> Self {
        let (mb_w, mb_h) = (src.mb_w, src.mb_h);
        let CoderBuffers {
            rec,
            mut mbs,
            mut motion,
        } = spare;
        let unset = MbInfo {
            slice: -1,
            ..Default::default()
        };
        mbs.clear();
        mbs.resize(mb_w * mb_h, unset);
        motion.clear();
        motion.resize(
            mb_w * mb_h * 16,
            BlockMotion {
                ref_idx: -1,
                mv: [0, 0],
            },
        );
        FrameCoder {
            p,
            src,
            refpic,
            pic: PictureState {
                mb_w,
                mb_h,
                // Every macroblock's reconstruction is stored before it is read.
                rec: Planes::reuse(rec, mb_w, mb_h),
                mbs,
                motion,
                constrained_intra_pred: p.constrained_intra_pred,
            },
            stats: FrameStats::default(),
            rc: p.inframe.clone(),
            lambdas: Lambdas::new(),
        }
    }

    /// Gives the coder's buffers back for the next frame.
    pub fn into_buffers(self) -> CoderBuffers {
        CoderBuffers {
            rec: Some(self.pic.rec),
            mbs: self.pic.mbs,
            motion: self.pic.motion,
        }
    }

    /// Codes every slice of the frame; returns their slice_data() bits.
    pub fn encode(&mut self) -> Vec<SliceData> {
        let (mb_w, mb_h) = (self.pic.mb_w, self.pic.mb_h);
        let rows = if self.p.slice_rows == 0 {
            mb_h
        } else {
            self.p.slice_rows
        };
        let mut slices = Vec::new();
        let mut bits_done = 0u64;
        let mut mb_count = 0u32;
        for (slice, first_row) in (0..mb_h).step_by(rows).enumerate() {
            let last_row = (first_row + rows).min(mb_h);
            let p_slice = !self.p.intra;
            let (data, bins) = match self.p.cabac_init {
                Some(init) => self.code_slice(
                    CabacWriter::new(init, p_slice),
                    slice as i32,
                    first_row..last_row,
                    bits_done,
                    &mut mb_count,
                ),
                None => self.code_slice(
                    CavlcWriter::new(p_slice),
                    slice as i32,
                    first_row..last_row,
                    bits_done,
                    &mut mb_count,
                ),
            };
            self.stats.bins += bins;
            bits_done += data.bit_len() as u64;
            slices.push(SliceData {
                first_mb: first_row * mb_w,
                data,
            });
        }
        slices
    }

    /// Codes the macroblock rows `rows` as slice `slice` with `w`.
    fn code_slice<W: EntropyWriter>(
        &mut self,
        mut w: W,
        slice: i32,
        rows: core::ops::Range<usize>,
        bits_before: u64,
        mb_count: &mut u32,
    ) -> (BitWriter, u64) {
        let mb_w = self.pic.mb_w;
        let last_row = rows.end;
        let mut qp_pred = self.p.qp;
        for mby in rows {
            if let Some(rp) = self.refpic.as_deref_mut() {
                // Vectors reach search_range samples, the refinement one more.
                rp.prepare_half_rows(mby, self.p.search_range[1].max(0) as usize + 1);
            }
            let decider = Decider::new(self.p, self.src, self.refpic.as_deref(), &self.lambdas);
            for mbx in 0..mb_w {
                self.rc
                    .before_mb(*mb_count, bits_before + w.bit_len() as u64);
                *mb_count += 1;
                let d = decider.decide(&self.pic, &mut self.rc, slice, mbx, mby);
                let derived = reconstruct::commit(
                    &mut self.pic,
                    &mut self.stats,
                    slice,
                    mbx,
                    mby,
                    &d,
                    &mut qp_pred,
                );
                macroblock_layer::write(&mut w, self.p, &self.pic, mby * mb_w + mbx, &d, &derived);
                w.end_of_mb(mby + 1 == last_row && mbx + 1 == mb_w);
            }
        }
        w.finish()
    }
}
