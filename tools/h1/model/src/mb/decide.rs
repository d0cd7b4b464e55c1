//! The mode decision of one macroblock: P_Skip, motion, or intra, by cost,
//! with its residual quantized and reconstructed.

use super::decision::{ChromaCoding, LumaCoding, MbDecision, MbKind};
use super::intra_search::{self, Intra4x4, Intra8x8};
use super::motion_search::MotionSearch;
use super::params::FrameParams;
use super::partition::PartMode;
use super::residual::{code_chroma, code_luma_i16, code_luma_inter, code_luma_inter8};
use super::state::{LumaEdges, PicView};
use crate::intra;
use crate::picture::Planes;
use crate::ratectl::InFrameRc;
use crate::refpic::RefPicture;
use crate::tables::chroma_qp;
use crate::transform8x8 as t8;

/// A P_Skip whose prediction leaves no residual and costs (SATD) at most this
/// many lambdas is taken before any motion search.
const EARLY_SKIP_LAMBDAS: u32 = 64;

/// A P macroblock whose best inter cost is under this many lambdas plus
/// [`INTRA_THRESHOLD`] does not try intra prediction.
const INTRA_THRESHOLD_LAMBDAS: u32 = 64;
const INTRA_THRESHOLD: u32 = 512;

/// The Lagrange multiplier of the mode decision at `qp`.
fn lambda(qp: i32) -> u32 {
    let l = 0.85f64 * 2f64.powf((qp - 12) as f64 / 6.0);
    l.round().max(1.0) as u32
}

/// [`lambda`] of each QP, computed once rather than per macroblock.
pub struct Lambdas([u32; 52]);

impl Lambdas {
    /// The multipliers of QP 0 to 51.
    pub fn new() -> Self {
        Lambdas(core::array::from_fn(|qp| lambda(qp as i32)))
    }
}

impl Default for Lambdas {
    fn default() -> Self {
        Self::new()
    }
}

/// What the decision of the macroblocks of a frame reads.
pub struct Decider<'a> {
    pub p: &'a FrameParams,
    pub src: &'a Planes,
    /// The reference of a P frame.
    pub refpic: Option<&'a RefPicture>,
    lambdas: &'a Lambdas,
}

/// The best Intra_NxN coding: cost, luma, modes.
type NxN = (u32, LumaCoding, [u8; 16]);

impl<'a> Decider<'a> {
    /// The decision of the macroblocks of `src`, predicting from `refpic`.
    pub fn new(
        p: &'a FrameParams,
        src: &'a Planes,
        refpic: Option<&'a RefPicture>,
        lambdas: &'a Lambdas,
    ) -> Self {
        Decider {
            p,
            src,
            refpic,
            lambdas,
        }
    }

    /// Decides macroblock (mbx, mby) of slice `slice` over the picture coded so far.
    pub fn decide(
        &self,
        pic: &PicView,
        rc: &InFrameRc,
        slice: i32,
        mbx: usize,
        mby: usize,
    ) -> MbDecision {
        let dsp = self.p.dsp;
        let qp = rc.base_qp(self.p.qp, self.p.qp_min, self.p.qp_max);
        let lam = self.lambdas.0[qp.clamp(0, 51) as usize];
        let (x, y) = (mbx as i32, mby as i32);
        let mut src = [0u8; 256];
        let s = self.src.stride();
        for r in 0..16 {
            src[r * 16..r * 16 + 16]
                .copy_from_slice(&self.src.y[(mby * 16 + r) * s + mbx * 16..][..16]);
        }
        let Some(rp) = self.refpic.filter(|_| !self.p.intra) else {
            let edges = pic.luma_edges(slice, x, y);
            return self.decide_intra(pic, slice, (x, y), &edges, &src, qp, lam, None);
        };
        let ms = MotionSearch {
            p: self.p,
            pic,
            rp,
            slice,
        };
        let skip_mv = pic.skip_mv(slice, x, y);
        // P_Skip when its prediction leaves nothing to code. The residual
        // test costs more than the SATD, so it is only asked where the
        // SATD could make P_Skip win.
        let mut pred = [0u8; 256];
        let mut cpred = [[0u8; 64]; 2];
        rp.luma(x * 16, y * 16, skip_mv, 16, 16, &mut pred, 16);
        let skip_satd = (dsp.satd)(&src, 16, &pred, 16, 16, 16);
        // Nearly perfect skip predictions are taken without a search; the
        // others only when the search finds nothing better, since a
        // searched vector may predict far better even when neither leaves
        // a residual (zooms, slow motion at high QP).
        if skip_satd <= EARLY_SKIP_LAMBDAS * lam
            && self.skip_is_zero(&ms, mbx, mby, &src, &pred, skip_mv, qp, &mut cpred)
        {
            return skip(skip_mv, pred, cpred);
        }
        let inter = ms.decide(mbx, mby, &src, skip_mv, lam);
        if skip_satd <= inter.cost.saturating_add(2 * lam)
            && self.skip_is_zero(&ms, mbx, mby, &src, &pred, skip_mv, qp, &mut cpred)
        {
            return skip(skip_mv, pred, cpred);
        }
        // Intra prediction only where motion compensation predicts poorly.
        let edges = pic.luma_edges(slice, x, y);
        let i16 = if inter.cost < INTRA_THRESHOLD_LAMBDAS * lam + INTRA_THRESHOLD {
            (intra::I16_DC, u32::MAX)
        } else {
            intra_search::best_i16(dsp, &edges, &src, lam, false)
        };
        // Intra 4x4 (and 8x8) only where intra prediction is already in the running.
        let nxn =
            (i16.1 < inter.cost).then(|| self.best_nxn(pic, slice, (x, y), &edges, &src, qp, lam));
        let intra_cost = nxn.as_ref().map_or(i16.1, |n| n.0.min(i16.1));
        if inter.cost > intra_cost {
            let searched = Some((i16, nxn));
            return self.decide_intra(pic, slice, (x, y), &edges, &src, qp, lam, searched);
        }
        ms.predict_inter(mbx, mby, &inter, &mut pred, &mut cpred);
        // Well-predicted macroblocks may get the MAD adjustment.
        let sad_pred = (dsp.sad)(&src, 16, &pred, 16, 16, 16);
        let mad = rc.mad_qp(qp, sad_pred, self.p.qp_min, self.p.qp_max);
        let qp = mad.unwrap_or(qp);
        // The 8x8 transform where no partition is smaller than 8x8
        // (7.3.5) and the 8x8 Hadamard cost says it compacts better.
        let luma = if self.p.transform_8x8
            && inter.mode.min_part_8x8()
            && t8::sa8d16(&src, &pred, dsp.sa8d8) < (dsp.satd)(&src, 16, &pred, 16, 16, 16)
        {
            code_luma_inter8(&src, &pred, qp)
        } else {
            code_luma_inter(&src, &pred, qp, dsp.quant_luma_inter)
        };
        let chroma = code_chroma(
            self.src,
            self.p.chroma_qp_offset,
            mbx,
            mby,
            qp,
            false,
            &cpred,
            dsp.quant_chroma,
        );
        // A vector that is P_Skip's with no residual is P_Skip; the MAD
        // adjustment it had still counts (MB_CNT_OUT counts them all).
        if inter.mv == [skip_mv; 16] && luma.cbp == 0 && chroma.cbp == 0 {
            let mut d = skip(skip_mv, luma.rec, chroma.rec);
            d.mad = mad.is_some();
            return d;
        }
        MbDecision {
            kind: MbKind::Inter(inter),
            qp,
            luma,
            chroma,
            chroma_mode: 0,
            mad: mad.is_some(),
        }
    }

    /// An intra macroblock; `searched` gives the Intra_16x16 mode and cost
    /// and the Intra_NxN coding a P macroblock's decision already found.
    #[allow(clippy::too_many_arguments)]
    fn decide_intra(
        &self,
        pic: &PicView,
        slice: i32,
        (x, y): (i32, i32),
        edges: &LumaEdges,
        src: &[u8; 256],
        qp: i32,
        lam: u32,
        searched: Option<((u8, u32), Option<NxN>)>,
    ) -> MbDecision {
        let ((i16_mode, i16_cost), nxn) = searched.unwrap_or_else(|| {
            let i16 = intra_search::best_i16(self.p.dsp, edges, src, lam, self.p.intra);
            (
                i16,
                Some(self.best_nxn(pic, slice, (x, y), edges, src, qp, lam)),
            )
        });
        let (kind, luma) = match nxn {
            Some((cost, luma, modes)) if cost < i16_cost => (MbKind::INxN(modes), luma),
            _ => (
                MbKind::I16x16(i16_mode),
                code_luma_i16(edges, src, i16_mode, qp),
            ),
        };
        let (chroma_mode, cpred) =
            intra_search::chroma_intra(self.p.dsp, pic, self.src, slice, x, y);
        let chroma = code_chroma(
            self.src,
            self.p.chroma_qp_offset,
            x as usize,
            y as usize,
            qp,
            true,
            &cpred,
            self.p.dsp.quant_chroma,
        );
        MbDecision {
            kind,
            qp,
            luma,
            chroma,
            chroma_mode,
            mad: false,
        }
    }

    /// The cheaper of Intra_4x4 and (with the 8x8 transform) Intra_8x8.
    #[allow(clippy::too_many_arguments)]
    fn best_nxn(
        &self,
        pic: &PicView,
        slice: i32,
        xy: (i32, i32),
        edges: &LumaEdges,
        src: &[u8; 256],
        qp: i32,
        lam: u32,
    ) -> NxN {
        let dsp = self.p.dsp;
        let i4 = intra_search::search_nxn::<Intra4x4>(dsp, pic, slice, xy, edges, src, qp, lam);
        if !self.p.transform_8x8 {
            return i4;
        }
        let i8 = intra_search::search_nxn::<Intra8x8>(dsp, pic, slice, xy, edges, src, qp, lam);
        if i8.0 < i4.0 {
            i8
        } else {
            i4
        }
    }

    /// Whether the P_Skip prediction `pred` (luma) leaves no residual at all;
    /// predicts the chroma into `cpred` when the luma leaves none.
    #[allow(clippy::too_many_arguments)]
    fn skip_is_zero(
        &self,
        ms: &MotionSearch,
        mbx: usize,
        mby: usize,
        src: &[u8; 256],
        pred: &[u8; 256],
        skip_mv: [i32; 2],
        qp: i32,
        cpred: &mut [[u8; 64]; 2],
    ) -> bool {
        if !(self.p.dsp.luma_is_zero)(src, pred, qp) {
            return false;
        }
        ms.predict_chroma(mbx, mby, PartMode::P16x16, &[skip_mv; 16], cpred);
        let qpc = chroma_qp(qp, self.p.chroma_qp_offset);
        let planes = [&self.src.cb[..], &self.src.cr[..]];
        (self.p.dsp.chroma_is_zero)(planes, self.src.cstride(), mbx * 8, mby * 8, qpc, cpred)
    }
}

/// P_Skip with the vector `mv`, predicted as `luma` and `chroma`.
fn skip(mv: [i32; 2], luma: [u8; 256], chroma: [[u8; 64]; 2]) -> MbDecision {
    MbDecision {
        kind: MbKind::Skip { mv },
        qp: 0,
        luma: LumaCoding::none(luma),
        chroma: ChromaCoding::none(chroma),
        chroma_mode: 0,
        mad: false,
    }
}
