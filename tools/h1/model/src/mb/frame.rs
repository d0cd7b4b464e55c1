//! The frame loop: decides, reconstructs and writes each macroblock of each
//! slice, with the in-frame rate control between macroblocks; in one thread,
//! or in several as a wavefront ([`super::wavefront`]).

use super::cabac_writer::CabacWriter;
use super::cavlc_writer::CavlcWriter;
use super::decide::{Decider, Lambdas};
use super::macroblock_layer::EntropyWriter;
use super::params::{FrameParams, FrameStats};
use super::reconstruct;
use super::slice_coder::{SliceCoder, SliceData};
use super::state::{MbInfo, PictureState};
use super::wavefront;
use crate::mvpred::BlockMotion;
use crate::picture::Planes;
use crate::ratectl::InFrameRc;
use crate::refpic::RefPicture;
use crate::workers::Workers;

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
    /// The threads that code the macroblocks beside this one.
    workers: &'a mut Workers,
}

impl<'a> FrameCoder<'a> {
    /// A coder of `src`, predicting P frames from `refpic`.
    /// `spare` lends the buffers of an earlier frame's coder ([`FrameCoder::into_buffers`]).
    pub fn new(
        p: &'a FrameParams,
        src: &'a Planes,
        refpic: Option<&'a mut RefPicture>,
        spare: CoderBuffers,
        workers: &'a mut Workers,
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
            workers,
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
        let (slices, qps) = match self.p.cabac_init {
            Some(init) => self.encode_with(|p_slice| CabacWriter::new(init, p_slice)),
            None => self.encode_with(CavlcWriter::new),
        };
        for (m, qp) in self.pic.mbs.iter_mut().zip(qps) {
            m.qp = qp;
        }
        slices
    }

    /// Codes the frame with the entropy writers `new_writer` makes (one per
    /// slice, given whether it is a P slice); returns the slices and the
    /// QP_Y of every macroblock.
    fn encode_with<W: EntropyWriter + Send>(
        &mut self,
        new_writer: impl Fn(bool) -> W + Send + Sync,
    ) -> (Vec<SliceData>, Vec<i32>) {
        let threads = (self.workers.len() + 1).min(self.pic.mb_h);
        if threads > 1 {
            if let Some(rp) = self.refpic.as_deref_mut() {
                // Threads read the reference's rows in any order: all of them, first.
                let reach = self.p.search_range[1].max(0) as usize + 1;
                rp.prepare_all_half_rows(reach, self.workers);
            }
            let decider = Decider::new(self.p, self.src, self.refpic.as_deref(), &self.lambdas);
            let (mb_w, total) = (self.pic.mb_w, self.pic.mb_w * self.pic.mb_h);
            let coder = SliceCoder::new(self.p, &self.rc, mb_w, total, new_writer);
            let view = self.pic.view();
            let out = wavefront::code(&decider, view, &self.rc, coder, self.workers, threads);
            self.stats = out.stats;
            self.rc = out.rc;
            return (out.slices, out.qps);
        }
        self.encode_serial(new_writer)
    }

    /// [`FrameCoder::encode_with`] in this thread, macroblock after macroblock.
    fn encode_serial<W: EntropyWriter>(
        &mut self,
        new_writer: impl Fn(bool) -> W,
    ) -> (Vec<SliceData>, Vec<i32>) {
        let (mb_w, mb_h) = (self.pic.mb_w, self.pic.mb_h);
        let mut coder = SliceCoder::new(self.p, &self.rc, mb_w, mb_w * mb_h, new_writer);
        for mby in 0..mb_h {
            if let Some(rp) = self.refpic.as_deref_mut() {
                // Vectors reach search_range samples, the refinement one more.
                rp.prepare_half_rows(mby, self.p.search_range[1].max(0) as usize + 1);
            }
            let decider = Decider::new(self.p, self.src, self.refpic.as_deref(), &self.lambdas);
            let view = self.pic.view();
            for mbx in 0..mb_w {
                let n = mby * mb_w + mbx;
                coder.before_mb(n);
                let d = decider.decide(&view, &coder.rc, coder.slice_of(n), mbx, mby);
                // SAFETY: this thread codes every macroblock, each once.
                let derived = unsafe { reconstruct::store(&view, coder.slice_of(n), mbx, mby, &d) };
                coder.write(&view, n, &d, derived);
            }
        }
        let out = coder.finish(&self.pic.view());
        self.stats = out.stats;
        self.rc = out.rc;
        (out.slices, out.qps)
    }
}
