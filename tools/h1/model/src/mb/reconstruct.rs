//! Stores a decided macroblock in the picture: its samples, its motion and
//! what its neighbours' syntax and the deblocking filter read; derives the
//! syntax values that depend on the neighbours.

use super::decision::{MbDecision, MbKind};
use super::intra_search::{predicted_mode, Intra4x4, Intra8x8, IntraNxN};
use super::params::FrameStats;
use super::partition::PartMode;
use super::state::{LocalMotion, MbInfo, PicView, CBF_CHROMA_AC, CBF_CHROMA_DC, CBF_LUMA_DC};
use crate::intra;
use crate::mvpred::BlockMotion;
use crate::tables::BLK_TO_RASTER;
use crate::transform8x8::ZIGZAG_8X8;

/// The syntax values of a macroblock that its neighbours determine.
#[derive(Clone, Copy)]
pub struct Derived {
    /// mvd_l0 of each partition, in coding order.
    pub mvd: [[i32; 2]; 16],
    /// mb_qp_delta, when present ([`finish`] derives it).
    pub qp_delta: Option<i32>,
    /// rem_intra4x4_pred_mode (or rem_intra8x8_pred_mode) of each block in
    /// coding order, none where prev_intra_pred_mode_flag is 1.
    pub rem_modes: [Option<u8>; 16],
    /// The levels that are not 0.
    pub rlc_count: u32,
}

/// Counts the levels that are not 0.
fn nonzero(levels: &[i32]) -> u8 {
    levels.iter().filter(|&&v| v != 0).count() as u8
}

/// Stores macroblock (mbx, mby) of slice `slice` as `d` decided it, but
/// for its QP_Y, which [`finish`] gives in decoding order.
///
/// # Safety
///
/// Only the thread coding macroblock (mbx, mby) calls it, once per frame,
/// before it tells other threads that the macroblock is done
/// ([`PicView::store_mb`]).
pub unsafe fn store(pic: &PicView, slice: i32, mbx: usize, mby: usize, d: &MbDecision) -> Derived {
    let mut derived = Derived {
        mvd: [[0; 2]; 16],
        qp_delta: None,
        rem_modes: [None; 16],
        rlc_count: 0,
    };
    let mut m = MbInfo {
        slice,
        i4_modes: [intra::I4_DC; 16],
        cbp: d.cbp() as u8,
        t8x8: d.transform_8x8(),
        ..Default::default()
    };
    let mut local = LocalMotion::NONE;
    match d.kind {
        MbKind::Skip { mv } => {
            m.skip = true;
            m.one_motion = true;
            local.blocks = [BlockMotion { ref_idx: 0, mv }; 16];
        }
        MbKind::Inter(inter) => {
            m.one_motion = inter.mv.iter().all(|v| *v == inter.mv[0]);
            // Each vector difference is taken against the prediction from
            // the final vectors of the partitions before it, as a decoder
            // derives it.
            for (i, p) in inter.mode.parts().iter().enumerate() {
                let mv = inter.mv[p.y4() * 4 + p.x4()];
                let mvp = pic.part_mvp(slice, mbx, mby, p, &local);
                let dv = [mv[0] - mvp[0], mv[1] - mvp[1]];
                derived.mvd[i] = dv;
                let stored = [
                    dv[0].unsigned_abs().min(255) as u8,
                    dv[1].unsigned_abs().min(255) as u8,
                ];
                for y in p.y4()..p.y4() + p.h4() {
                    for x in p.x4()..p.x4() + p.w4() {
                        m.mvd[y * 4 + x] = stored;
                    }
                }
                local.set(p, mv);
            }
        }
        MbKind::I16x16(_) | MbKind::INxN(_) => {
            m.intra = true;
            m.one_motion = true;
            m.chroma_mode = d.chroma_mode;
        }
    }
    if let MbKind::INxN(modes) = d.kind {
        m.i4x4 = true;
        m.i4_modes = modes;
        derived.rem_modes = if m.t8x8 {
            rem_modes::<Intra8x8>(pic, slice, (mbx, mby), &modes)
        } else {
            rem_modes::<Intra4x4>(pic, slice, (mbx, mby), &modes)
        };
    }
    derived.rlc_count = store_levels(&mut m, d);
    // SAFETY: the caller's contract is store_mb's.
    unsafe { pic.store_mb(mbx, mby, m, &local.blocks, &d.luma.rec, &d.chroma.rec) };
    derived
}

/// Completes macroblock `d` in decoding order: its QP_Y from `qp_pred`,
/// QP_Y,PRED (7.4.5), which it updates, mb_qp_delta into `derived`, and its
/// statistics. Returns QP_Y.
pub fn finish(
    d: &MbDecision,
    derived: &mut Derived,
    qp_pred: &mut i32,
    stats: &mut FrameStats,
) -> i32 {
    if d.has_qp_delta() {
        let mut delta = d.qp - *qp_pred;
        // mb_qp_delta is coded modulo 52 within -26..=25 (7.4.5).
        if delta > 25 {
            delta -= 52;
        } else if delta < -26 {
            delta += 52;
        }
        derived.qp_delta = Some(delta);
        *qp_pred = d.qp;
    }
    stats.qp_sum += *qp_pred as u32;
    stats.rlc_count += derived.rlc_count;
    let t8 = u32::from(d.transform_8x8());
    match d.kind {
        MbKind::Skip { .. } => stats.skip_mbs += 1,
        MbKind::Inter(inter) => {
            stats.part_counts[inter.mode.mb_type() as usize] += 1;
            if let PartMode::P8x8(subs) = inter.mode {
                for s in subs {
                    stats.sub_counts[s as usize] += 1;
                }
            }
            stats.t8x8_mbs += t8;
        }
        MbKind::I16x16(_) => stats.intra_mbs += 1,
        MbKind::INxN(_) => {
            stats.intra_mbs += 1;
            stats.i8x8_mbs += t8;
        }
    }
    *qp_pred
}

/// TotalCoeff (CAVLC) and coded_block_flag (CABAC) of each coded block, and
/// the count of levels that are not 0.
fn store_levels(m: &mut MbInfo, d: &MbDecision) -> u32 {
    let (luma, chroma) = (&d.luma, &d.chroma);
    let mut rlc = 0;
    if matches!(d.kind, MbKind::I16x16(_)) {
        let n = nonzero(&luma.dc);
        m.cbf |= u32::from(n != 0) << CBF_LUMA_DC;
        rlc += u32::from(n);
    }
    for b8 in 0..4 {
        if luma.cbp & (1 << b8) == 0 {
            continue;
        }
        for i4 in 0..4 {
            let r = BLK_TO_RASTER[b8 * 4 + i4];
            let n = match luma.levels8.as_deref() {
                // The 4x4 block's CAVLC list: every fourth 8x8 coefficient
                // in zig-zag order (7.3.5.3.2); CABAC codes the 8x8 block
                // whole and its neighbours infer a flag of 1.
                Some(l8) => {
                    let list: [i32; 16] = core::array::from_fn(|k| l8[b8][ZIGZAG_8X8[4 * k + i4]]);
                    m.cbf |= 1 << r;
                    nonzero(&list)
                }
                None => {
                    let n = nonzero(&luma.levels[r]);
                    m.cbf |= u32::from(n != 0) << r;
                    n
                }
            };
            m.nz[r] = n;
            rlc += u32::from(n);
        }
    }
    if chroma.cbp == 0 {
        return rlc;
    }
    for c in 0..2 {
        let n = nonzero(&chroma.dc[c]);
        m.cbf |= u32::from(n != 0) << (CBF_CHROMA_DC + c as u32);
        rlc += u32::from(n);
    }
    if chroma.cbp < 2 {
        return rlc;
    }
    for c in 0..2 {
        for b in 0..4 {
            let n = nonzero(&chroma.ac[c][b]);
            m.cbf |= u32::from(n != 0) << (CBF_CHROMA_AC + 4 * c as u32 + b as u32);
            m.nzc[c][b] = n;
            rlc += u32::from(n);
        }
    }
    rlc
}

/// The rem_intra_pred_mode of each block of an Intra_NxN macroblock.
fn rem_modes<B: IntraNxN>(
    pic: &PicView,
    slice: i32,
    (mbx, mby): (usize, usize),
    modes: &[u8; 16],
) -> [Option<u8>; 16] {
    let mut out = [None; 16];
    let xy = (mbx as i32, mby as i32);
    for (i, o) in out
        .iter_mut()
        .take(B::per_side() * B::per_side())
        .enumerate()
    {
        let (bx, by) = B::position(i);
        let pred = predicted_mode::<B>(pic, slice, xy, (bx, by), modes);
        let m = modes[B::mode_block(bx, by, true)];
        if m != pred {
            *o = Some(if m < pred { m } else { m - 1 });
        }
    }
    out
}
