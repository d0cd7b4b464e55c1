//! The macroblock engine: mode decision, residual coding and reconstruction of one frame.

use crate::bitwriter::BitWriter;
use crate::cabac::{CabacEncoder, NUM_CONTEXTS};
use crate::cavlc::{write_block, LEVEL_CLAMP};
use crate::decimate;
use crate::inter::{sad, satd, satd4x4_x2};
use crate::inter_mb::InterMb;
use crate::intra::{self, Edges};
use crate::mvpred::{self, BlockMotion, Neighbour};
use crate::picture::Planes;
use crate::ratectl::InFrameRc;
use crate::refpic::RefPicture;
use crate::simd::avx2_dispatch;
use crate::tables::{chroma_qp, BLK_TO_RASTER, CBP_INTER_CODE, CBP_INTRA_CODE, ZIGZAG_4X4};
use crate::transform::*;
use crate::transform8x8::{self as t8, ZIGZAG_8X8};
use crate::zero_check;

/// How the model codes one frame, decoded from the registers.
#[derive(Clone, Debug)]
pub struct FrameParams {
    pub intra: bool,
    pub qp: i32,
    pub qp_min: i32,
    pub qp_max: i32,
    pub chroma_qp_offset: i32,
    pub constrained_intra_pred: bool,
    /// Macroblock rows per slice, 0 for one slice.
    pub slice_rows: usize,
    pub disable_qpel: bool,
    /// 16x8, 8x16 and 8x8 partitions (MUTIMV_EN).
    pub multi_mv: bool,
    /// 8x4, 4x8 and 4x4 sub-macroblock partitions too (H264_INTER4X4_MODE).
    pub inter4x4: bool,
    /// Search range of the integer motion search, in samples (horizontal, vertical).
    pub search_range: [i32; 2],
    /// In-frame rate control (checkpoints, MAD) as programmed.
    pub inframe: InFrameRc,
    /// CABAC: the initial context states of every slice (from the driver's
    /// table, for the slice QP and type); CAVLC when absent.
    pub cabac_init: Option<[u8; NUM_CONTEXTS]>,
    /// The 8x8 transform may be used (TRANS8X8_MODE_EN; transform_8x8_mode_flag).
    pub transform_8x8: bool,
}

/// What a macroblock left for its neighbours (CAVLC contexts, intra modes, deblocking).
#[derive(Clone, Copy, Default)]
pub struct MbInfo {
    /// Slice index, -1 while not coded.
    pub slice: i32,
    pub intra: bool,
    pub i4x4: bool,
    pub skip: bool,
    /// QP_Y.
    pub qp: i32,
    /// TotalCoeff of each luma 4x4 block (raster), AC only for Intra_16x16.
    pub nz: [u8; 16],
    /// TotalCoeff of each chroma AC block, [Cb, Cr] x raster 2x2.
    pub nzc: [[u8; 4]; 2],
    /// Intra4x4PredMode per 4x4 block (raster); DC for other macroblock types.
    pub i4_modes: [u8; 16],
    /// coded_block_pattern (chroma in bits 5..4) as CABAC contexts see it.
    pub cbp: u8,
    /// intra_chroma_pred_mode.
    pub chroma_mode: u8,
    /// coded_block_flag of each block ([`crate::cabac_mb`] gives the bits).
    pub cbf: u32,
    /// |mvd| per 4x4 block (raster) and component, saturated at 255.
    pub mvd: [[u8; 2]; 16],
    /// transform_size_8x8_flag.
    pub t8x8: bool,
    /// All 16 blocks carry one motion (known where the motion is stored;
    /// lets the deblocking filter skip the edges of still macroblocks).
    pub one_motion: bool,
}

/// Statistics of a coded frame, as the H1 reports them.
#[derive(Clone, Debug, Default)]
pub struct FrameStats {
    /// Sum of QP_Y over all macroblocks.
    pub qp_sum: u32,
    /// Number of non-zero levels coded (run-length coded coefficients).
    pub rlc_count: u32,
    pub intra_mbs: u32,
    pub skip_mbs: u32,
    /// P macroblocks with motion per mb_type (16x16, 16x8, 8x16, 8x8).
    pub part_counts: [u32; 4],
    /// 8x8 blocks of P_8x8 macroblocks per sub_mb_type (8x8, 8x4, 4x8, 4x4).
    pub sub_counts: [u32; 4],
    /// P macroblocks coded with the 8x8 transform.
    pub t8x8_mbs: u32,
    /// Intra_8x8 macroblocks.
    pub i8x8_mbs: u32,
    /// CABAC bins of all slices (BinCountsInNALunits of 7.4.2.10).
    pub bins: u64,
    /// cabac_zero_words appended to meet the bound on bins per byte (7.4.2.10).
    pub cabac_zero_words: u32,
}

/// One coded slice: its first macroblock and its slice_data() bits (no header).
pub struct SliceData {
    pub first_mb: usize,
    pub data: BitWriter,
}

pub struct FrameCoder<'a> {
    pub(crate) p: &'a FrameParams,
    src: &'a Planes,
    /// Mutable only to compute its half-sample rows as the coder reaches them.
    refpic: Option<&'a mut RefPicture>,
    pub rec: Planes,
    pub mbs: Vec<MbInfo>,
    /// Per 4x4 block motion of the picture.
    pub motion: Vec<BlockMotion>,
    pub stats: FrameStats,
    /// In-frame rate control state, with the checkpoint results.
    pub rc: InFrameRc,
    mb_w: usize,
    mb_h: usize,
    /// The CABAC engine of the slice being coded (CAVLC when absent).
    cabac: Option<Box<CabacEncoder>>,
    /// Whether the previous macroblock of the slice had a non-zero mb_qp_delta.
    prev_qp_delta_nz: bool,
    /// [`lambda`] of each QP, computed once per frame rather than per macroblock.
    lambdas: [u32; 52],
}

/// The per-frame buffers of a [`FrameCoder`], kept from frame to frame.
#[derive(Default)]
pub struct CoderBuffers {
    pub rec: Option<Planes>,
    pub mbs: Vec<MbInfo>,
    pub motion: Vec<BlockMotion>,
}

/// Luma residual and levels of one macroblock.
#[derive(Clone)]
struct LumaCoding {
    /// Levels per 4x4 block (raster block index), in raster coefficient order.
    levels: [[i32; 16]; 16],
    /// Intra16x16 DC levels, raster.
    dc: [i32; 16],
    cbp: u32,
    /// Reconstructed 16x16 samples.
    rec: [u8; 256],
    /// The 8x8 transform codes the luma: its levels per 8x8 block (raster
    /// block index, raster coefficient order) instead of `levels`.
    levels8: Option<Box<[[i32; 64]; 4]>>,
}

struct ChromaCoding {
    dc: [[i32; 4]; 2],
    ac: [[[i32; 16]; 4]; 2],
    cbp: u32,
    rec: [[u8; 64]; 2],
}

/// A P_Skip whose prediction leaves no residual and costs (SATD) at most this
/// many lambdas is taken before any motion search.
const EARLY_SKIP_LAMBDAS: u32 = 64;

/// A P macroblock whose best inter cost is under this many lambdas plus
/// [`INTRA_THRESHOLD`] does not try intra prediction.
const INTRA_THRESHOLD_LAMBDAS: u32 = 64;
const INTRA_THRESHOLD: u32 = 512;

fn lambda(qp: i32) -> u32 {
    let l = 0.85f64 * 2f64.powf((qp - 12) as f64 / 6.0);
    l.round().max(1.0) as u32
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
            // Every macroblock's reconstruction is stored before it is read.
            rec: Planes::reuse(rec, mb_w, mb_h),
            mbs,
            motion,
            stats: FrameStats::default(),
            rc: p.inframe.clone(),
            mb_w,
            mb_h,
            cabac: None,
            prev_qp_delta_nz: false,
            lambdas: core::array::from_fn(|qp| lambda(qp as i32)),
        }
    }

    /// Gives the coder's buffers back for the next frame.
    pub fn into_buffers(self) -> CoderBuffers {
        CoderBuffers {
            rec: Some(self.rec),
            mbs: self.mbs,
            motion: self.motion,
        }
    }

    /// Codes every slice of the frame; returns their slice_data() bits.
    pub fn encode(&mut self) -> Vec<SliceData> {
        let rows = if self.p.slice_rows == 0 {
            self.mb_h
        } else {
            self.p.slice_rows
        };
        let mut slices = Vec::new();
        let mut first_row = 0;
        let mut slice_idx = 0;
        let mut bits_done = 0u64;
        let mut mb_count = 0u32;
        while first_row < self.mb_h {
            let last_row = (first_row + rows).min(self.mb_h);
            let mut bw = BitWriter::new();
            let mut skip_run = 0u32;
            let mut qp_prev = self.p.qp;
            self.cabac = self.p.cabac_init.map(|c| Box::new(CabacEncoder::new(c)));
            self.prev_qp_delta_nz = false;
            for mby in first_row..last_row {
                if let Some(rp) = self.refpic.as_deref_mut() {
                    // Vectors reach search_range samples, the refinement one more.
                    rp.prepare_half_rows(mby, self.p.search_range[1].max(0) as usize + 1);
                }
                for mbx in 0..self.mb_w {
                    let bits = match &self.cabac {
                        Some(e) => e.bit_len(),
                        None => bw.bit_len(),
                    };
                    self.rc.before_mb(mb_count, bits_done + bits as u64);
                    mb_count += 1;
                    self.code_mb(&mut bw, slice_idx, mbx, mby, &mut skip_run, &mut qp_prev);
                    if let Some(e) = self.cabac.as_mut() {
                        // end_of_slice_flag.
                        e.terminate(mby + 1 == last_row && mbx + 1 == self.mb_w);
                    }
                }
            }
            if let Some(e) = self.cabac.take() {
                self.stats.bins += e.bins;
                bw = e.finish();
            } else if skip_run > 0 {
                bw.ue(skip_run);
            }
            bits_done += bw.bit_len() as u64;
            slices.push(SliceData {
                first_mb: first_row * self.mb_w,
                data: bw,
            });
            first_row = last_row;
            slice_idx += 1;
        }
        slices
    }

    /// Width in macroblocks.
    pub(crate) fn mb_w(&self) -> usize {
        self.mb_w
    }

    pub(crate) fn mb(&self, mbx: i32, mby: i32, slice: i32) -> Option<&MbInfo> {
        if mbx < 0 || mby < 0 || mbx >= self.mb_w as i32 || mby >= self.mb_h as i32 {
            return None;
        }
        let m = &self.mbs[mby as usize * self.mb_w + mbx as usize];
        (m.slice == slice).then_some(m)
    }

    /// A neighbour usable for intra prediction (constrained_intra_pred excludes inter ones).
    fn intra_avail(&self, mbx: i32, mby: i32, slice: i32) -> bool {
        self.mb(mbx, mby, slice)
            .is_some_and(|m| m.intra || !self.p.constrained_intra_pred)
    }

    fn code_mb(
        &mut self,
        bw: &mut BitWriter,
        slice: i32,
        mbx: usize,
        mby: usize,
        skip_run: &mut u32,
        qp_prev: &mut i32,
    ) {
        // Lent out for the macroblock, so that the coder can be borrowed mutably beside it.
        let rp = self.refpic.take();
        self.code_mb_from(rp.as_deref(), bw, slice, mbx, mby, skip_run, qp_prev);
        self.refpic = rp;
    }

    #[allow(clippy::too_many_arguments)]
    fn code_mb_from(
        &mut self,
        refpic: Option<&RefPicture>,
        bw: &mut BitWriter,
        slice: i32,
        mbx: usize,
        mby: usize,
        skip_run: &mut u32,
        qp_prev: &mut i32,
    ) {
        let qp = self.rc.base_qp(self.p.qp, self.p.qp_min, self.p.qp_max);
        let lam = self.lambdas[qp.clamp(0, 51) as usize];
        let (x, y) = (mbx as i32, mby as i32);
        let idx = mby * self.mb_w + mbx;
        self.mbs[idx] = MbInfo {
            slice,
            qp,
            i4_modes: [intra::I4_DC; 16],
            ..Default::default()
        };

        let mut src = [0u8; 256];
        let s = self.src.stride();
        for r in 0..16 {
            src[r * 16..r * 16 + 16]
                .copy_from_slice(&self.src.y[(mby * 16 + r) * s + mbx * 16..][..16]);
        }

        let mut inter_cost = None;
        if let (false, Some(rp)) = (self.p.intra, refpic) {
            let skip_mv = self.skip_mv(slice, x, y);
            // P_Skip when its prediction leaves nothing to code. The residual
            // test costs more than the SATD, so it is only asked where the
            // SATD could make P_Skip win.
            let mut pred = [0u8; 256];
            let mut cpred = [[0u8; 64]; 2];
            rp.luma(x * 16, y * 16, skip_mv, 16, 16, &mut pred, 16);
            let skip_satd = satd(&src, 16, &pred, 16, 16, 16);
            // Nearly perfect skip predictions are taken without a search; the
            // others only when the search finds nothing better, since a
            // searched vector may predict far better even when neither leaves
            // a residual (zooms, slow motion at high QP).
            if skip_satd <= EARLY_SKIP_LAMBDAS * lam
                && self.skip_is_zero(rp, mbx, mby, &src, &pred, skip_mv, qp, &mut cpred)
            {
                self.commit_skip(idx, mbx, mby, skip_mv, &pred, &cpred, *qp_prev);
                self.code_skip(idx, skip_run);
                return;
            }
            let inter = self.decide_inter(rp, slice, mbx, mby, &src, skip_mv, lam);
            if skip_satd <= inter.cost.saturating_add(2 * lam)
                && self.skip_is_zero(rp, mbx, mby, &src, &pred, skip_mv, qp, &mut cpred)
            {
                self.commit_skip(idx, mbx, mby, skip_mv, &pred, &cpred, *qp_prev);
                self.code_skip(idx, skip_run);
                return;
            }
            // Intra prediction only where motion compensation predicts poorly.
            let (i16_mode, i16_cost) =
                if inter.cost < INTRA_THRESHOLD_LAMBDAS * lam + INTRA_THRESHOLD {
                    (intra::I16_DC, u32::MAX)
                } else {
                    self.best_i16(slice, x, y, &src, lam)
                };
            // Intra 4x4 (and 8x8) only where intra prediction is already in the running.
            let i4 = if i16_cost < inter.cost {
                self.best_inxn(slice, x, y, &src, qp, lam)
            } else {
                None
            };
            let intra_cost = i4.as_ref().map_or(i16_cost, |(c, _)| (*c).min(i16_cost));
            if inter.cost <= intra_cost {
                self.predict_inter(rp, mbx, mby, &inter, &mut pred, &mut cpred);
                // Well-predicted macroblocks may get the MAD adjustment.
                let sad_pred = sad(&src, 16, &pred, 16, 16, 16);
                let qp = self.rc.mad_qp(qp, sad_pred, self.p.qp_min, self.p.qp_max);
                // The 8x8 transform where no partition is smaller than 8x8
                // (7.3.5) and the 8x8 Hadamard cost says it compacts better.
                let luma = if self.p.transform_8x8
                    && inter.mode.min_part_8x8()
                    && t8::sa8d16(&src, &pred) < satd(&src, 16, &pred, 16, 16, 16)
                {
                    Self::code_luma_inter8(&src, &pred, qp)
                } else {
                    self.code_luma_inter(&src, &pred, qp)
                };
                let chroma = self.code_chroma(x, y, qp, false, &cpred);
                if inter.mv == [skip_mv; 16] && luma.cbp == 0 && chroma.cbp == 0 {
                    self.commit_skip(idx, mbx, mby, skip_mv, &luma.rec, &chroma.rec, *qp_prev);
                    self.code_skip(idx, skip_run);
                    return;
                }
                self.code_not_skipped(bw, idx, skip_run);
                self.mbs[idx].one_motion = inter.mv.iter().all(|v| *v == inter.mv[0]);
                self.write_inter(
                    bw, slice, idx, mbx, mby, &inter, &luma, &chroma, qp, qp_prev,
                );
                return;
            }
            self.code_not_skipped(bw, idx, skip_run);
            inter_cost = Some((i16_mode, i16_cost, i4));
        }
        let (i16_mode, i16_cost, i4) = match inter_cost {
            Some(c) => c,
            None => {
                let (m, c) = self.best_i16(slice, x, y, &src, lam);
                (m, c, self.best_inxn(slice, x, y, &src, qp, lam))
            }
        };
        let use_i4 = i4.as_ref().is_some_and(|(c, _)| *c < i16_cost);
        if use_i4 {
            let (_, luma) = i4.unwrap_or_else(|| unreachable!());
            self.write_intra(bw, slice, idx, mbx, mby, None, &luma, qp, qp_prev);
        } else {
            let luma = self.code_luma_i16(slice, x, y, &src, i16_mode, qp);
            self.write_intra(
                bw,
                slice,
                idx,
                mbx,
                mby,
                Some(i16_mode),
                &(luma, [intra::I4_DC; 16]),
                qp,
                qp_prev,
            );
        }
    }

    /// Whether the P_Skip prediction `pred` (luma) leaves no residual at all;
    /// predicts the chroma into `cpred` when the luma leaves none.
    #[allow(clippy::too_many_arguments)]
    fn skip_is_zero(
        &self,
        rp: &RefPicture,
        mbx: usize,
        mby: usize,
        src: &[u8; 256],
        pred: &[u8; 256],
        skip_mv: [i32; 2],
        qp: i32,
        cpred: &mut [[u8; 64]; 2],
    ) -> bool {
        if !zero_check::luma_is_zero(src, pred, qp) {
            return false;
        }
        self.predict_chroma(
            rp,
            mbx,
            mby,
            crate::inter_mb::PartMode::P16x16,
            &[skip_mv; 16],
            cpred,
        );
        let qpc = chroma_qp(qp, self.p.chroma_qp_offset);
        let planes = [&self.src.cb[..], &self.src.cr[..]];
        zero_check::chroma_is_zero(planes, self.src.cstride(), mbx * 8, mby * 8, qpc, cpred)
    }

    /// mb_skip_flag 1, or one more in mb_skip_run.
    fn code_skip(&mut self, idx: usize, skip_run: &mut u32) {
        match self.cabac.take() {
            Some(mut e) => {
                self.cabac_skip_flag(&mut e, idx, true);
                self.prev_qp_delta_nz = false;
                self.cabac = Some(e);
            }
            None => *skip_run += 1,
        }
    }

    /// mb_skip_flag 0 (P slices), or the mb_skip_run before a coded macroblock.
    fn code_not_skipped(&mut self, bw: &mut BitWriter, idx: usize, skip_run: &mut u32) {
        match self.cabac.take() {
            Some(mut e) => {
                self.cabac_skip_flag(&mut e, idx, false);
                self.cabac = Some(e);
            }
            None => {
                bw.ue(*skip_run);
                *skip_run = 0;
            }
        }
    }

    fn luma_edges(&self, slice: i32, x: i32, y: i32) -> ([u8; 16], [u8; 16], u8, bool, bool, bool) {
        let s = self.rec.stride();
        let (px, py) = (x as usize * 16, y as usize * 16);
        let la = self.intra_avail(x - 1, y, slice);
        let ta = self.intra_avail(x, y - 1, slice);
        let tla = self.intra_avail(x - 1, y - 1, slice);
        let mut top = [0u8; 16];
        let mut left = [0u8; 16];
        let mut tl = 0;
        if ta {
            top.copy_from_slice(&self.rec.y[(py - 1) * s + px..][..16]);
        }
        if la {
            for (r, l) in left.iter_mut().enumerate() {
                *l = self.rec.y[(py + r) * s + px - 1];
            }
        }
        if tla {
            tl = self.rec.y[(py - 1) * s + px - 1];
        }
        (top, left, tl, ta, la, tla)
    }

    /// The cheapest Intra_16x16 mode and its cost. P slices leave out the
    /// plane mode, which rarely beats motion compensation there and is the
    /// costly one to predict.
    fn best_i16(&self, slice: i32, x: i32, y: i32, src: &[u8; 256], lam: u32) -> (u8, u32) {
        let (top, left, tl, ta, la, tla) = self.luma_edges(slice, x, y);
        let e = Edges {
            top: ta.then_some(&top[..]),
            left: la.then_some(&left[..]),
            top_left: tla.then_some(tl),
        };
        let mut best = (intra::I16_DC, u32::MAX);
        let mut pred = [0u8; 256];
        let modes = if self.p.intra { 4 } else { 3 };
        for mode in 0..modes {
            if intra::pred16x16(mode, &e, &mut pred) {
                let cost = satd(src, 16, &pred, 16, 16, 16) + lam * 6;
                if cost < best.1 {
                    best = (mode, cost);
                }
            }
        }
        best
    }

    fn code_luma_i16(
        &self,
        slice: i32,
        x: i32,
        y: i32,
        src: &[u8; 256],
        mode: u8,
        qp: i32,
    ) -> LumaCoding {
        let (top, left, tl, ta, la, tla) = self.luma_edges(slice, x, y);
        let e = Edges {
            top: ta.then_some(&top[..]),
            left: la.then_some(&left[..]),
            top_left: tla.then_some(tl),
        };
        let mut pred = [0u8; 256];
        intra::pred16x16(mode, &e, &mut pred);
        let mut blocks = [[0i32; 16]; 16];
        let mut dc = [0i32; 16];
        for (b, blk) in blocks.iter_mut().enumerate() {
            *blk = residual_dct(src, &pred, b);
            dc[b] = blk[0];
            blk[0] = 0;
        }
        hadamard4x4(&mut dc);
        quant_luma_dc(&mut dc, qp);
        let mut any_ac = false;
        for blk in blocks.iter_mut() {
            any_ac |= quant4x4(blk, qp, true, true);
            clamp_levels(blk);
        }
        clamp_levels(&mut dc);
        let levels = blocks;
        // Reconstruct as a decoder would (8.5.10, 8.5.12).
        let mut dcr = dc;
        hadamard4x4(&mut dcr);
        dequant_luma_dc(&mut dcr, qp);
        let mut rec = [0u8; 256];
        for (b, lv) in levels.iter().enumerate() {
            let mut d = if any_ac { *lv } else { [0; 16] };
            reconstruct4x4(&mut d, qp, Some(dcr[b]));
            add_block(&mut rec, &pred, b, &d);
        }
        LumaCoding {
            levels: if any_ac { levels } else { [[0; 16]; 16] },
            dc,
            cbp: if any_ac { 15 } else { 0 },
            rec,
            levels8: None,
        }
    }

    /// Tries Intra_4x4 with a per-block mode decision; returns its cost and coding.
    fn try_i4x4(
        &self,
        slice: i32,
        x: i32,
        y: i32,
        src: &[u8; 256],
        qp: i32,
        lam: u32,
    ) -> Option<(u32, (LumaCoding, [u8; 16]))> {
        let (top, left, tl, ta, la, tla) = self.luma_edges(slice, x, y);
        let tra = self.intra_avail(x + 1, y - 1, slice);
        let s = self.rec.stride();
        let mut top_right = [0u8; 4];
        if tra {
            top_right.copy_from_slice(
                &self.rec.y[(y as usize * 16 - 1) * s + x as usize * 16 + 16..][..4],
            );
        }
        // Neighbouring modes for predIntra4x4PredMode (8.3.1.1).
        let mode_a = |bx: usize, by: usize, modes: &[u8; 16]| -> Option<u8> {
            if bx > 0 {
                return Some(modes[by * 4 + bx - 1]);
            }
            let m = self.mb(x - 1, y, slice)?;
            if !m.intra && self.p.constrained_intra_pred {
                return None;
            }
            Some(if m.i4x4 {
                m.i4_modes[by * 4 + 3]
            } else {
                intra::I4_DC
            })
        };
        let mode_b = |bx: usize, by: usize, modes: &[u8; 16]| -> Option<u8> {
            if by > 0 {
                return Some(modes[(by - 1) * 4 + bx]);
            }
            let m = self.mb(x, y - 1, slice)?;
            if !m.intra && self.p.constrained_intra_pred {
                return None;
            }
            Some(if m.i4x4 {
                m.i4_modes[12 + bx]
            } else {
                intra::I4_DC
            })
        };
        let mut rec = [0u8; 256];
        let mut modes = [intra::I4_DC; 16];
        let mut levels = [[0i32; 16]; 16];
        let mut cbp = 0u32;
        let mut cost = lam * 24;
        for blk_idx in 0..16 {
            let r = BLK_TO_RASTER[blk_idx];
            let (bx, by) = (r % 4, r / 4);
            let (px, py) = (bx * 4, by * 4);
            let l_ok = bx > 0 || la;
            let t_ok = by > 0 || ta;
            let tl_ok = match (bx > 0, by > 0) {
                (true, true) => true,
                (false, true) => la,
                (true, false) => ta,
                (false, false) => tla,
            };
            let tr_ok = if by == 0 {
                if bx < 3 {
                    ta
                } else {
                    tra
                }
            } else {
                bx < 3
                    && BLK_TO_RASTER
                        .iter()
                        .position(|&q| q == (by - 1) * 4 + bx + 1)
                        .unwrap_or(16)
                        < blk_idx
            };
            // The samples above, left and above-left of the block: from this
            // macroblock's reconstruction or its neighbours' edges.
            let mut t8 = [0u8; 8];
            let mut l4 = [0u8; 4];
            if py == 0 {
                t8[..4].copy_from_slice(&top[px..px + 4]);
            } else {
                t8[..4].copy_from_slice(&rec[(py - 1) * 16 + px..][..4]);
            }
            if !tr_ok {
                let v = t8[3];
                t8[4..].fill(v);
            } else if py > 0 {
                t8[4..].copy_from_slice(&rec[(py - 1) * 16 + px + 4..][..4]);
            } else if px < 12 {
                t8[4..].copy_from_slice(&top[px + 4..px + 8]);
            } else {
                t8[4..].copy_from_slice(&top_right);
            }
            for (i, l) in l4.iter_mut().enumerate() {
                *l = if px == 0 {
                    left[py + i]
                } else {
                    rec[(py + i) * 16 + px - 1]
                };
            }
            let tlv = match (px, py) {
                (0, 0) => tl,
                (_, 0) => top[px - 1],
                (0, _) => left[py - 1],
                _ => rec[(py - 1) * 16 + px - 1],
            };
            let e = Edges {
                top: t_ok.then_some(&t8[..]),
                left: l_ok.then_some(&l4[..]),
                top_left: tl_ok.then_some(tlv),
            };
            let pred_mode = match (mode_a(bx, by, &modes), mode_b(bx, by, &modes)) {
                (Some(a), Some(b)) => a.min(b),
                _ => intra::I4_DC,
            };
            let mut sblk = [0u8; 16];
            for (r, row) in sblk.chunks_exact_mut(4).enumerate() {
                row.copy_from_slice(&src[(py + r) * 16 + px..][..4]);
            }
            let mut best = (intra::I4_DC, u32::MAX);
            let mut preds = [[0u8; 16]; 9];
            let avail = intra::pred4x4_all(&e, &mut preds);
            // Modes two at a time; the last pairs with itself.
            for m0 in (0..9).step_by(2) {
                let m1 = (m0 + 1).min(8);
                let sums = satd4x4_x2(&sblk, &preds[m0], &preds[m1]);
                for (mode, sum) in [(m0, sums[0]), (m1, sums[1])] {
                    if avail & (1 << mode) != 0 {
                        let bits = if mode as u8 == pred_mode { 1 } else { 4 };
                        let c = sum + lam * bits;
                        if c < best.1 {
                            best = (mode as u8, c);
                        }
                    }
                }
            }
            cost += best.1;
            modes[r] = best.0;
            let pred = preds[best.0 as usize];
            let mut d = [0i32; 16];
            for i in 0..16 {
                d[i] = sblk[i] as i32 - pred[i] as i32;
            }
            fdct4x4(&mut d);
            quant4x4(&mut d, qp, true, false);
            clamp_levels(&mut d);
            if d.iter().any(|&v| v != 0) {
                cbp |= 1 << (blk_idx / 4);
            }
            levels[r] = d;
            reconstruct4x4(&mut d, qp, None);
            for i in 0..16 {
                rec[(py + i / 4) * 16 + px + i % 4] = (pred[i] as i32 + d[i]).clamp(0, 255) as u8;
            }
        }
        Some((
            cost,
            (
                LumaCoding {
                    levels,
                    dc: [0; 16],
                    cbp,
                    rec,
                    levels8: None,
                },
                modes,
            ),
        ))
    }

    /// The cheaper of Intra_4x4 and (with the 8x8 transform) Intra_8x8.
    fn best_inxn(
        &self,
        slice: i32,
        x: i32,
        y: i32,
        src: &[u8; 256],
        qp: i32,
        lam: u32,
    ) -> Option<(u32, (LumaCoding, [u8; 16]))> {
        let i4 = self.try_i4x4(slice, x, y, src, qp, lam);
        if !self.p.transform_8x8 {
            return i4;
        }
        let i8 = self.try_i8x8(slice, x, y, src, qp, lam);
        match (i4, i8) {
            (Some(a), Some(b)) => Some(if b.0 < a.0 { b } else { a }),
            (a, b) => a.or(b),
        }
    }

    /// Tries Intra_8x8 with a per-block mode decision (8.3.2); returns its cost
    /// and coding, the modes repeated over each 8x8 block's four 4x4 blocks.
    fn try_i8x8(
        &self,
        slice: i32,
        x: i32,
        y: i32,
        src: &[u8; 256],
        qp: i32,
        lam: u32,
    ) -> Option<(u32, (LumaCoding, [u8; 16]))> {
        let (top, left, tl, ta, la, tla) = self.luma_edges(slice, x, y);
        let tra = self.intra_avail(x + 1, y - 1, slice);
        let s = self.rec.stride();
        let mut top_right = [0u8; 8];
        if tra {
            top_right.copy_from_slice(
                &self.rec.y[(y as usize * 16 - 1) * s + x as usize * 16 + 16..][..8],
            );
        }
        let mut rec = [0u8; 256];
        let mut modes = [intra::I4_DC; 16];
        let mut levels8 = Box::new([[0i32; 64]; 4]);
        let mut cbp = 0u32;
        let mut cost = lam * 16;
        for b8 in 0..4 {
            let (bx, by) = (b8 % 2, b8 / 2);
            let (px, py) = (bx * 8, by * 8);
            let l_ok = bx > 0 || la;
            let t_ok = by > 0 || ta;
            let tl_ok = match (bx > 0, by > 0) {
                (true, true) => true,
                (false, true) => la,
                (true, false) => ta,
                (false, false) => tla,
            };
            // Block 2's top-right is block 1; block 3's is not decoded yet.
            let tr_ok = [ta, tra, true, false][b8];
            let sample = |sx: i32, sy: i32| -> u8 {
                if sx >= 0 && sy >= 0 {
                    rec[sy as usize * 16 + sx as usize]
                } else if sy < 0 && sx < 0 {
                    tl
                } else if sy < 0 {
                    if sx < 16 {
                        top[sx as usize]
                    } else {
                        top_right[(sx - 16) as usize]
                    }
                } else {
                    left[sy as usize]
                }
            };
            let mut t16 = [0u8; 16];
            let mut l8 = [0u8; 8];
            for i in 0..8 {
                t16[i] = sample((px + i) as i32, py as i32 - 1);
                l8[i] = sample(px as i32 - 1, (py + i) as i32);
            }
            for i in 8..16 {
                t16[i] = if tr_ok {
                    sample((px + i) as i32, py as i32 - 1)
                } else {
                    t16[7]
                };
            }
            let tlv = sample(px as i32 - 1, py as i32 - 1);
            let e = Edges {
                top: t_ok.then_some(&t16[..]),
                left: l_ok.then_some(&l8[..]),
                top_left: tl_ok.then_some(tlv),
            };
            // predIntra8x8PredMode (8.3.2.1): the neighbouring 8x8 blocks'
            // modes, or for 4x4 neighbours those of their 4x4 blocks 1 (A) and 2 (B).
            let mode_a = if bx > 0 {
                Some(modes[BLK_TO_RASTER[(b8 - 1) * 4 + 1]])
            } else {
                self.i4_neighbour_mode(x - 1, y, slice, BLK_TO_RASTER[(b8 + 1) * 4 + 1])
            };
            let mode_b = if by > 0 {
                Some(modes[BLK_TO_RASTER[(b8 - 2) * 4 + 2]])
            } else {
                self.i4_neighbour_mode(x, y - 1, slice, BLK_TO_RASTER[(b8 + 2) * 4 + 2])
            };
            let pred_mode = match (mode_a, mode_b) {
                (Some(a), Some(b)) => a.min(b),
                _ => intra::I4_DC,
            };
            let sblk: [u8; 64] = core::array::from_fn(|i| src[(py + i / 8) * 16 + px + i % 8]);
            let mut best = (intra::I4_DC, u32::MAX, [0u8; 64]);
            let mut preds = [[0u8; 64]; 9];
            let avail = crate::intra8x8::pred8x8_all(&e, &mut preds);
            for (mode, pred) in preds.iter().enumerate() {
                if avail & (1 << mode) != 0 {
                    let bits = if mode as u8 == pred_mode { 1 } else { 4 };
                    let c = t8::sa8d8(&sblk, pred) + lam * bits;
                    if c < best.1 {
                        best = (mode as u8, c, *pred);
                    }
                }
            }
            cost += best.1;
            for i4 in 0..4 {
                modes[BLK_TO_RASTER[b8 * 4 + i4]] = best.0;
            }
            let pred = best.2;
            let lv = &mut levels8[b8];
            for (i, c) in lv.iter_mut().enumerate() {
                *c = i32::from(sblk[i]) - i32::from(pred[i]);
            }
            t8::fdct8x8(lv);
            if t8::quant8x8(lv, qp, true) {
                cbp |= 1 << b8;
            }
            clamp_levels8(lv);
            let mut d = *lv;
            t8::reconstruct8x8(&mut d, qp);
            for i in 0..64 {
                rec[(py + i / 8) * 16 + px + i % 8] =
                    (i32::from(pred[i]) + d[i]).clamp(0, 255) as u8;
            }
        }
        Some((
            cost,
            (
                LumaCoding {
                    levels: [[0; 16]; 16],
                    dc: [0; 16],
                    cbp,
                    rec,
                    levels8: Some(levels8),
                },
                modes,
            ),
        ))
    }

    fn code_luma_inter(&self, src: &[u8; 256], pred: &[u8; 256], qp: i32) -> LumaCoding {
        let (mut levels, cbp) = quant_luma_inter(src, pred, qp);
        let mut scores = [0u32; 4];
        for (r, lv) in levels.iter().enumerate() {
            let b8 = (r / 8) * 2 + r % 4 / 2;
            if cbp & (1 << b8) != 0 {
                scores[b8] += decimate::score4x4(lv);
            }
        }
        let cbp = decimate::luma_cbp(scores, cbp);
        let mut rec = [0u8; 256];
        for (r, lv) in levels.iter_mut().enumerate() {
            let (bx, by) = (r % 4 * 4, r / 4 * 4);
            if cbp & (1 << ((by / 8) * 2 + bx / 8)) == 0 {
                *lv = [0; 16];
            }
            let mut d = *lv;
            reconstruct4x4(&mut d, qp, None);
            add_block(&mut rec, pred, r, &d);
        }
        LumaCoding {
            levels,
            dc: [0; 16],
            cbp,
            rec,
            levels8: None,
        }
    }

    /// Codes an inter luma residual with the 8x8 transform.
    fn code_luma_inter8(src: &[u8; 256], pred: &[u8; 256], qp: i32) -> LumaCoding {
        let mut levels8 = Box::new([[0i32; 64]; 4]);
        let mut rec = [0u8; 256];
        let mut cbp = 0;
        for (b8, lv) in levels8.iter_mut().enumerate() {
            let (x0, y0) = (b8 % 2 * 8, b8 / 2 * 8);
            for (i, c) in lv.iter_mut().enumerate() {
                let o = (y0 + i / 8) * 16 + x0 + i % 8;
                *c = i32::from(src[o]) - i32::from(pred[o]);
            }
            t8::fdct8x8(lv);
            if t8::quant8x8(lv, qp, false) {
                cbp |= 1 << b8;
            } else {
                *lv = [0; 64];
            }
            clamp_levels8(lv);
            let mut d = *lv;
            t8::reconstruct8x8(&mut d, qp);
            for (i, v) in d.iter().enumerate() {
                let o = (y0 + i / 8) * 16 + x0 + i % 8;
                rec[o] = (i32::from(pred[o]) + v).clamp(0, 255) as u8;
            }
        }
        LumaCoding {
            levels: [[0; 16]; 16],
            dc: [0; 16],
            cbp,
            rec,
            levels8: Some(levels8),
        }
    }

    /// Quantized chroma levels of a macroblock predicted by `preds`.
    fn quant_chroma(
        &self,
        x: i32,
        y: i32,
        qp: i32,
        intra: bool,
        preds: &[[u8; 64]; 2],
    ) -> ChromaCoding {
        let qpc = chroma_qp(qp, self.p.chroma_qp_offset);
        let planes = [&self.src.cb[..], &self.src.cr[..]];
        quant_chroma(
            planes,
            self.src.cstride(),
            x as usize,
            y as usize,
            qpc,
            intra,
            preds,
        )
    }

    /// Codes both chroma components of a macroblock predicted by `preds`.
    fn code_chroma(
        &self,
        x: i32,
        y: i32,
        qp: i32,
        intra: bool,
        preds: &[[u8; 64]; 2],
    ) -> ChromaCoding {
        let qpc = chroma_qp(qp, self.p.chroma_qp_offset);
        let mut out = self.quant_chroma(x, y, qp, intra, preds);
        for c in 0..2 {
            let mut f = out.dc[c];
            hadamard2x2(&mut f);
            dequant_chroma_dc(&mut f, qpc);
            for b in 0..4 {
                let mut d = out.ac[c][b];
                reconstruct4x4(&mut d, qpc, Some(f[b]));
                let (bx, by) = (b % 2 * 4, b / 2 * 4);
                for i in 0..16 {
                    let o = (by + i / 4) * 8 + bx + i % 4;
                    out.rec[c][o] = (preds[c][o] as i32 + d[i]).clamp(0, 255) as u8;
                }
            }
        }
        out
    }

    fn chroma_intra(&self, slice: i32, x: i32, y: i32) -> (u8, [[u8; 64]; 2]) {
        let la = self.intra_avail(x - 1, y, slice);
        let ta = self.intra_avail(x, y - 1, slice);
        let tla = self.intra_avail(x - 1, y - 1, slice);
        let cs = self.rec.cstride();
        let (px, py) = (x as usize * 8, y as usize * 8);
        let mut best = (intra::CHROMA_DC, u32::MAX, [[0u8; 64]; 2]);
        let mut edges = [([0u8; 8], [0u8; 8], 0u8); 2];
        for (c, plane) in [&self.rec.cb, &self.rec.cr].into_iter().enumerate() {
            if ta {
                edges[c]
                    .0
                    .copy_from_slice(&plane[(py - 1) * cs + px..][..8]);
            }
            if la {
                for r in 0..8 {
                    edges[c].1[r] = plane[(py + r) * cs + px - 1];
                }
            }
            if tla {
                edges[c].2 = plane[(py - 1) * cs + px - 1];
            }
        }
        for mode in 0..4 {
            let mut preds = [[0u8; 64]; 2];
            let mut ok = true;
            let mut cost = 0;
            for c in 0..2 {
                let e = Edges {
                    top: ta.then_some(&edges[c].0[..]),
                    left: la.then_some(&edges[c].1[..]),
                    top_left: tla.then_some(edges[c].2),
                };
                ok &= intra::pred_chroma(mode, &e, &mut preds[c]);
                let plane = if c == 0 { &self.src.cb } else { &self.src.cr };
                cost += satd(&plane[py * cs + px..], cs, &preds[c], 8, 8, 8);
            }
            if ok && cost < best.1 {
                best = (mode, cost, preds);
            }
        }
        (best.0, best.2)
    }

    /// Neighbours A, B, C (or D) of the 4x4 block at global 4x4 position (gx, gy) of width `w4`.
    pub(crate) fn neighbours(
        &self,
        slice: i32,
        gx: i32,
        gy: i32,
        w4: i32,
        cur_mb: (i32, i32),
        done: u16,
    ) -> (Neighbour, Neighbour, Neighbour) {
        let get = |bx: i32, by: i32| -> Neighbour {
            let (mx, my) = (bx.div_euclid(4), by.div_euclid(4));
            if (mx, my) == cur_mb {
                let r = (by - my * 4) * 4 + (bx - mx * 4);
                if done & (1 << r) == 0 {
                    return Neighbour::NONE;
                }
            } else if self.mb(mx, my, slice).is_none() {
                // Outside the picture or the slice, or not coded yet.
                return Neighbour::NONE;
            }
            Neighbour {
                available: true,
                motion: self.motion[(by as usize) * self.mb_w * 4 + bx as usize],
            }
        };
        let a = get(gx - 1, gy);
        let b = get(gx, gy - 1);
        let mut c = get(gx + w4, gy - 1);
        if !c.available {
            c = get(gx - 1, gy - 1);
        }
        (a, b, c)
    }

    /// The P_Skip vector of the macroblock (8.4.1.1).
    fn skip_mv(&self, slice: i32, x: i32, y: i32) -> [i32; 2] {
        let (a, b, c) = self.neighbours(slice, x * 4, y * 4, 4, (x, y), 0);
        mvpred::skip_mv(a, b, c)
    }

    fn set_motion(&mut self, mbx: usize, mby: usize, m: BlockMotion) {
        self.mbs[mby * self.mb_w + mbx].one_motion = true;
        let w4 = self.mb_w * 4;
        for r in 0..4 {
            for c in 0..4 {
                self.motion[(mby * 4 + r) * w4 + mbx * 4 + c] = m;
            }
        }
    }

    fn store_rec(&mut self, mbx: usize, mby: usize, luma: &[u8; 256], chroma: &[[u8; 64]; 2]) {
        let s = self.rec.stride();
        for r in 0..16 {
            self.rec.y[(mby * 16 + r) * s + mbx * 16..][..16]
                .copy_from_slice(&luma[r * 16..r * 16 + 16]);
        }
        let cs = self.rec.cstride();
        for r in 0..8 {
            self.rec.cb[(mby * 8 + r) * cs + mbx * 8..][..8]
                .copy_from_slice(&chroma[0][r * 8..r * 8 + 8]);
            self.rec.cr[(mby * 8 + r) * cs + mbx * 8..][..8]
                .copy_from_slice(&chroma[1][r * 8..r * 8 + 8]);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn commit_skip(
        &mut self,
        idx: usize,
        mbx: usize,
        mby: usize,
        mv: [i32; 2],
        luma: &[u8; 256],
        chroma: &[[u8; 64]; 2],
        qp_prev: i32,
    ) {
        self.set_motion(mbx, mby, BlockMotion { ref_idx: 0, mv });
        self.store_rec(mbx, mby, luma, chroma);
        let m = &mut self.mbs[idx];
        m.skip = true;
        m.qp = qp_prev;
        self.stats.qp_sum += qp_prev as u32;
        self.stats.skip_mbs += 1;
    }

    /// nC for a luma 4x4 block at raster (bx, by) of the current macroblock (9.2.1).
    fn nc_luma(&self, idx: usize, bx: usize, by: usize) -> i32 {
        let cur = &self.mbs[idx];
        let (mbx, mby) = ((idx % self.mb_w) as i32, (idx / self.mb_w) as i32);
        let na = if bx > 0 {
            Some(cur.nz[by * 4 + bx - 1])
        } else {
            self.mb(mbx - 1, mby, cur.slice).map(|m| m.nz[by * 4 + 3])
        };
        let nb = if by > 0 {
            Some(cur.nz[(by - 1) * 4 + bx])
        } else {
            self.mb(mbx, mby - 1, cur.slice).map(|m| m.nz[12 + bx])
        };
        nc_from(na, nb)
    }

    fn nc_chroma(&self, idx: usize, c: usize, bx: usize, by: usize) -> i32 {
        let cur = &self.mbs[idx];
        let (mbx, mby) = ((idx % self.mb_w) as i32, (idx / self.mb_w) as i32);
        let na = if bx > 0 {
            Some(cur.nzc[c][by * 2])
        } else {
            self.mb(mbx - 1, mby, cur.slice)
                .map(|m| m.nzc[c][by * 2 + 1])
        };
        let nb = if by > 0 {
            Some(cur.nzc[c][bx])
        } else {
            self.mb(mbx, mby - 1, cur.slice).map(|m| m.nzc[c][2 + bx])
        };
        nc_from(na, nb)
    }

    fn write_qp_delta(
        &mut self,
        bw: &mut BitWriter,
        cabac: Option<&mut CabacEncoder>,
        qp: i32,
        qp_prev: &mut i32,
    ) {
        let mut d = qp - *qp_prev;
        if d > 25 {
            d -= 52;
        } else if d < -26 {
            d += 52;
        }
        match cabac {
            Some(e) => crate::cabac_syntax::mb_qp_delta(e, self.prev_qp_delta_nz, d),
            None => bw.se(d),
        }
        self.prev_qp_delta_nz = d != 0;
        *qp_prev = qp;
    }

    /// Writes luma residual blocks in coding order, updating TotalCoeff contexts.
    fn write_luma_residual(
        &mut self,
        bw: &mut BitWriter,
        idx: usize,
        luma: &LumaCoding,
        i16: bool,
    ) {
        if let Some(l8) = luma.levels8.as_deref() {
            self.write_luma_residual8(bw, idx, l8, luma.cbp);
            return;
        }
        if i16 {
            let nc = self.nc_luma(idx, 0, 0);
            let mut scan = [0i32; 16];
            for (k, &r) in ZIGZAG_4X4.iter().enumerate() {
                scan[k] = luma.dc[r];
            }
            self.stats.rlc_count += write_block(bw, &scan, nc) as u32;
        }
        for blk_idx in 0..16 {
            let r = BLK_TO_RASTER[blk_idx];
            let (bx, by) = (r % 4, r / 4);
            if luma.cbp & (1 << (blk_idx / 4)) == 0 {
                self.mbs[idx].nz[r] = 0;
                continue;
            }
            let nc = self.nc_luma(idx, bx, by);
            let lv = &luma.levels[r];
            let total = if i16 {
                let mut scan = [0i32; 15];
                for k in 1..16 {
                    scan[k - 1] = lv[ZIGZAG_4X4[k]];
                }
                write_block(bw, &scan, nc)
            } else {
                let mut scan = [0i32; 16];
                for (k, &z) in ZIGZAG_4X4.iter().enumerate() {
                    scan[k] = lv[z];
                }
                write_block(bw, &scan, nc)
            };
            self.mbs[idx].nz[r] = total;
            self.stats.rlc_count += total as u32;
        }
    }

    /// The luma residual of an 8x8-transform macroblock in CAVLC: each 8x8
    /// block as four interleaved 16-coefficient lists, list i4x4 in the place
    /// of 4x4 block 4 * i8x8 + i4x4 (7.3.5.3.2), whose TotalCoeff it gives.
    fn write_luma_residual8(
        &mut self,
        bw: &mut BitWriter,
        idx: usize,
        l8: &[[i32; 64]; 4],
        cbp: u32,
    ) {
        for (b8, lv) in l8.iter().enumerate() {
            for i4 in 0..4 {
                let r = BLK_TO_RASTER[b8 * 4 + i4];
                if cbp & (1 << b8) == 0 {
                    self.mbs[idx].nz[r] = 0;
                    continue;
                }
                let list: [i32; 16] = core::array::from_fn(|k| lv[ZIGZAG_8X8[4 * k + i4]]);
                let nc = self.nc_luma(idx, r % 4, r / 4);
                let total = write_block(bw, &list, nc);
                self.mbs[idx].nz[r] = total;
                self.stats.rlc_count += total as u32;
            }
        }
    }

    fn write_chroma_residual(&mut self, bw: &mut BitWriter, idx: usize, chroma: &ChromaCoding) {
        if chroma.cbp == 0 {
            return;
        }
        for c in 0..2 {
            self.stats.rlc_count += write_block(bw, &chroma.dc[c], -1) as u32;
        }
        if chroma.cbp < 2 {
            return;
        }
        for c in 0..2 {
            for b in 0..4 {
                let nc = self.nc_chroma(idx, c, b % 2, b / 2);
                let mut scan = [0i32; 15];
                for k in 1..16 {
                    scan[k - 1] = chroma.ac[c][b][ZIGZAG_4X4[k]];
                }
                let t = write_block(bw, &scan, nc);
                self.mbs[idx].nzc[c][b] = t;
                self.stats.rlc_count += t as u32;
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn write_inter(
        &mut self,
        bw: &mut BitWriter,
        slice: i32,
        idx: usize,
        mbx: usize,
        mby: usize,
        inter: &InterMb,
        luma: &LumaCoding,
        chroma: &ChromaCoding,
        qp: i32,
        qp_prev: &mut i32,
    ) {
        let mut cabac = self.cabac.take();
        match cabac.as_deref_mut() {
            Some(e) => self.cabac_inter_pred(e, slice, mbx, mby, inter),
            None => self.write_inter_pred(bw, slice, mbx, mby, inter),
        }
        self.stats.part_counts[inter.mode.mb_type() as usize] += 1;
        if let crate::inter_mb::PartMode::P8x8(subs) = inter.mode {
            for s in subs {
                self.stats.sub_counts[s as usize] += 1;
            }
        }
        let cbp = luma.cbp | (chroma.cbp << 4);
        self.mbs[idx].cbp = cbp as u8;
        match cabac.as_deref_mut() {
            Some(e) => self.cabac_cbp(e, idx, cbp),
            None => bw.ue(CBP_INTER_CODE[cbp as usize] as u32),
        }
        if self.p.transform_8x8 && luma.cbp != 0 && inter.mode.min_part_8x8() {
            let t8 = luma.levels8.is_some();
            match cabac.as_deref_mut() {
                Some(e) => self.cabac_transform_size_8x8_flag(e, idx, t8),
                None => bw.flag(t8),
            }
            self.mbs[idx].t8x8 = t8;
            self.stats.t8x8_mbs += u32::from(t8);
        }
        let qp_coded = if cbp != 0 {
            self.write_qp_delta(bw, cabac.as_deref_mut(), qp, qp_prev);
            qp
        } else {
            self.prev_qp_delta_nz = false;
            *qp_prev
        };
        self.mbs[idx].qp = qp_coded;
        self.stats.qp_sum += qp_coded as u32;
        match cabac.as_deref_mut() {
            Some(e) => {
                match luma.levels8.as_deref() {
                    Some(l8) => self.cabac_luma_residual8(e, idx, l8, luma.cbp),
                    None => self.cabac_luma_residual(e, idx, &luma.levels, None, luma.cbp),
                }
                self.cabac_chroma_residual(e, idx, &chroma.dc, &chroma.ac, chroma.cbp);
            }
            None => {
                self.write_luma_residual(bw, idx, luma, false);
                self.write_chroma_residual(bw, idx, chroma);
            }
        }
        self.cabac = cabac;
        self.store_rec(mbx, mby, &luma.rec, &chroma.rec);
    }

    #[allow(clippy::too_many_arguments)]
    fn write_intra(
        &mut self,
        bw: &mut BitWriter,
        slice: i32,
        idx: usize,
        mbx: usize,
        mby: usize,
        i16_mode: Option<u8>,
        i4: &(LumaCoding, [u8; 16]),
        qp: i32,
        qp_prev: &mut i32,
    ) {
        let (x, y) = (mbx as i32, mby as i32);
        let (cmode, cpred) = self.chroma_intra(slice, x, y);
        let chroma = self.code_chroma(x, y, qp, true, &cpred);
        let luma = &i4.0;
        let mut cabac = self.cabac.take();
        let base = if self.p.intra { 0 } else { 5 };
        self.mbs[idx].intra = true;
        self.mbs[idx].chroma_mode = cmode;
        self.stats.intra_mbs += 1;
        let cbp = luma.cbp | (chroma.cbp << 4);
        self.mbs[idx].cbp = cbp as u8;
        let mb_type = match i16_mode {
            Some(mode) => 1 + mode as u32 + 4 * chroma.cbp + if luma.cbp != 0 { 12 } else { 0 },
            None => 0,
        };
        match cabac.as_deref_mut() {
            Some(e) => self.cabac_mb_type_intra(e, idx, mb_type),
            None => bw.ue(base + mb_type),
        }
        if i16_mode.is_none() {
            let t8 = luma.levels8.is_some();
            if self.p.transform_8x8 {
                match cabac.as_deref_mut() {
                    Some(e) => self.cabac_transform_size_8x8_flag(e, idx, t8),
                    None => bw.flag(t8),
                }
            }
            self.mbs[idx].t8x8 = t8;
            self.stats.i8x8_mbs += u32::from(t8);
            self.mbs[idx].i4x4 = true;
            self.mbs[idx].i4_modes = i4.1;
            let rems = if t8 {
                self.i8_rem_modes(slice, x, y, &i4.1)
            } else {
                self.i4_rem_modes(slice, x, y, &i4.1)
            };
            for &rem in &rems[..if t8 { 4 } else { 16 }] {
                match cabac.as_deref_mut() {
                    Some(e) => crate::cabac_syntax::intra4x4_pred_mode(e, rem),
                    None => {
                        bw.flag(rem.is_none());
                        if let Some(r) = rem {
                            bw.put(3, r as u32);
                        }
                    }
                }
            }
        }
        match cabac.as_deref_mut() {
            Some(e) => self.cabac_chroma_pred_mode(e, idx, cmode),
            None => bw.ue(cmode as u32),
        }
        if i16_mode.is_none() {
            match cabac.as_deref_mut() {
                Some(e) => self.cabac_cbp(e, idx, cbp),
                None => bw.ue(CBP_INTRA_CODE[cbp as usize] as u32),
            }
        }
        let qp_coded = if i16_mode.is_some() || cbp != 0 {
            self.write_qp_delta(bw, cabac.as_deref_mut(), qp, qp_prev);
            qp
        } else {
            self.prev_qp_delta_nz = false;
            *qp_prev
        };
        self.mbs[idx].qp = qp_coded;
        self.stats.qp_sum += qp_coded as u32;
        self.set_motion(
            mbx,
            mby,
            BlockMotion {
                ref_idx: -1,
                mv: [0, 0],
            },
        );
        match cabac.as_deref_mut() {
            Some(e) => {
                let dc = i16_mode.map(|_| &luma.dc);
                match luma.levels8.as_deref() {
                    Some(l8) => self.cabac_luma_residual8(e, idx, l8, luma.cbp),
                    None => self.cabac_luma_residual(e, idx, &luma.levels, dc, luma.cbp),
                }
                self.cabac_chroma_residual(e, idx, &chroma.dc, &chroma.ac, chroma.cbp);
            }
            None => {
                self.write_luma_residual(bw, idx, luma, i16_mode.is_some());
                self.write_chroma_residual(bw, idx, &chroma);
            }
        }
        self.cabac = cabac;
        let lrec = luma.rec;
        self.store_rec(mbx, mby, &lrec, &chroma.rec);
    }

    /// rem_intra8x8_pred_mode of each 8x8 block (the first four entries), None
    /// where the predicted mode is used (8.3.2.1).
    fn i8_rem_modes(&self, slice: i32, x: i32, y: i32, modes: &[u8; 16]) -> [Option<u8>; 16] {
        let mut out = [None; 16];
        for (b8, o) in out.iter_mut().take(4).enumerate() {
            let a = if b8 % 2 == 1 {
                Some(modes[BLK_TO_RASTER[(b8 - 1) * 4 + 1]])
            } else {
                self.i4_neighbour_mode(x - 1, y, slice, BLK_TO_RASTER[(b8 + 1) * 4 + 1])
            };
            let b = if b8 >= 2 {
                Some(modes[BLK_TO_RASTER[(b8 - 2) * 4 + 2]])
            } else {
                self.i4_neighbour_mode(x, y - 1, slice, BLK_TO_RASTER[(b8 + 2) * 4 + 2])
            };
            let pred = match (a, b) {
                (Some(a), Some(b)) => a.min(b),
                _ => intra::I4_DC,
            };
            let m = modes[BLK_TO_RASTER[b8 * 4]];
            if m != pred {
                *o = Some(if m < pred { m } else { m - 1 });
            }
        }
        out
    }

    /// rem_intra4x4_pred_mode of each 4x4 block in coding order, None where
    /// the predicted mode is used (8.3.1.1, with the neighbours as they are now).
    fn i4_rem_modes(&self, slice: i32, x: i32, y: i32, modes: &[u8; 16]) -> [Option<u8>; 16] {
        let mut out = [None; 16];
        for (blk_idx, o) in out.iter_mut().enumerate() {
            let r = BLK_TO_RASTER[blk_idx];
            let (bx, by) = (r % 4, r / 4);
            let a = if bx > 0 {
                Some(modes[r - 1])
            } else {
                self.i4_neighbour_mode(x - 1, y, slice, by * 4 + 3)
            };
            let b = if by > 0 {
                Some(modes[r - 4])
            } else {
                self.i4_neighbour_mode(x, y - 1, slice, 12 + bx)
            };
            let pred = match (a, b) {
                (Some(a), Some(b)) => a.min(b),
                _ => intra::I4_DC,
            };
            let m = modes[r];
            if m != pred {
                *o = Some(if m < pred { m } else { m - 1 });
            }
        }
        out
    }

    fn i4_neighbour_mode(&self, mbx: i32, mby: i32, slice: i32, r: usize) -> Option<u8> {
        let m = self.mb(mbx, mby, slice)?;
        if !m.intra && self.p.constrained_intra_pred {
            return None;
        }
        Some(if m.i4x4 { m.i4_modes[r] } else { intra::I4_DC })
    }
}

avx2_dispatch!(
    /// Levels and coded_block_pattern of an inter luma residual.
    fn quant_luma_inter(src: &[u8; 256], pred: &[u8; 256], qp: i32) -> ([[i32; 16]; 16], u32)
        => quant_luma_inter_plain
);

#[inline(always)]
fn quant_luma_inter_plain(src: &[u8; 256], pred: &[u8; 256], qp: i32) -> ([[i32; 16]; 16], u32) {
    let mut levels = [[0i32; 16]; 16];
    let mut cbp = 0;
    for (r, lv) in levels.iter_mut().enumerate() {
        let (bx, by) = (r % 4 * 4, r / 4 * 4);
        *lv = residual_dct(src, pred, r);
        if quant4x4(lv, qp, false, false) {
            clamp_levels(lv);
            cbp |= 1 << ((by / 8) * 2 + bx / 8);
        }
    }
    (levels, cbp)
}

avx2_dispatch!(
    /// Quantized chroma levels (QP'c `qpc`) of macroblock (x, y) of `planes`
    /// (Cb, Cr at stride `cs`) predicted by `preds`.
    #[allow(clippy::too_many_arguments)]
    fn quant_chroma(
        planes: [&[u8]; 2],
        cs: usize,
        x: usize,
        y: usize,
        qpc: i32,
        intra: bool,
        preds: &[[u8; 64]; 2],
    ) -> ChromaCoding => quant_chroma_plain
);

#[inline(always)]
fn quant_chroma_plain(
    planes: [&[u8]; 2],
    cs: usize,
    x: usize,
    y: usize,
    qpc: i32,
    intra: bool,
    preds: &[[u8; 64]; 2],
) -> ChromaCoding {
    let mut out = ChromaCoding {
        dc: [[0; 4]; 2],
        ac: [[[0; 16]; 4]; 2],
        cbp: 0,
        rec: [[0; 64]; 2],
    };
    let mut any_ac = false;
    let mut any_dc = false;
    for c in 0..2 {
        // The 8x8 residual, row by row, then its four 4x4 blocks.
        let mut res = [[0i32; 8]; 8];
        for (row, r) in res.iter_mut().enumerate() {
            let src = &planes[c][(y * 8 + row) * cs + x * 8..][..8];
            let pred = &preds[c][row * 8..row * 8 + 8];
            for k in 0..8 {
                r[k] = src[k] as i32 - pred[k] as i32;
            }
        }
        for b in 0..4 {
            let (bx, by) = (b % 2 * 4, b / 2 * 4);
            let d = &mut out.ac[c][b];
            for i in 0..16 {
                d[i] = res[by + i / 4][bx + i % 4];
            }
            fdct4x4(d);
            out.dc[c][b] = d[0];
            any_ac |= quant4x4(d, qpc, intra, true);
            d[0] = 0;
            clamp_levels(d);
        }
        hadamard2x2(&mut out.dc[c]);
        any_dc |= quant_chroma_dc(&mut out.dc[c], qpc, intra);
        for v in out.dc[c].iter_mut() {
            *v = (*v).clamp(-LEVEL_CLAMP, LEVEL_CLAMP);
        }
    }
    out.cbp = if any_ac {
        2
    } else if any_dc {
        1
    } else {
        0
    };
    if !any_ac {
        out.ac = [[[0; 16]; 4]; 2];
    }
    out
}

fn nc_from(na: Option<u8>, nb: Option<u8>) -> i32 {
    match (na, nb) {
        (Some(a), Some(b)) => (a as i32 + b as i32 + 1) >> 1,
        (Some(a), None) => a as i32,
        (None, Some(b)) => b as i32,
        (None, None) => 0,
    }
}

fn clamp_levels8(b: &mut [i32; 64]) {
    for v in b.iter_mut() {
        *v = (*v).clamp(-LEVEL_CLAMP, LEVEL_CLAMP);
    }
}

fn clamp_levels(b: &mut [i32; 16]) {
    for v in b.iter_mut() {
        *v = (*v).clamp(-LEVEL_CLAMP, LEVEL_CLAMP);
    }
}

/// Residual of raster 4x4 block `r` of a macroblock, forward transformed.
#[inline(always)]
fn residual_dct(src: &[u8; 256], pred: &[u8; 256], r: usize) -> [i32; 16] {
    let (bx, by) = (r % 4 * 4, r / 4 * 4);
    let mut d = [0i32; 16];
    for (i, v) in d.iter_mut().enumerate() {
        let o = (by + i / 4) * 16 + bx + i % 4;
        *v = src[o] as i32 - pred[o] as i32;
    }
    fdct4x4(&mut d);
    d
}

/// Adds residual `d` of raster 4x4 block `r` to the prediction into `rec`.
fn add_block(rec: &mut [u8; 256], pred: &[u8; 256], r: usize, d: &[i32; 16]) {
    let (bx, by) = (r % 4 * 4, r / 4 * 4);
    for i in 0..16 {
        let o = (by + i / 4) * 16 + bx + i % 4;
        rec[o] = (pred[o] as i32 + d[i]).clamp(0, 255) as u8;
    }
}
