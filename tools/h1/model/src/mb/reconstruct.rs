//! Stores a decided macroblock in the picture: its samples, its motion and
//! what its neighbours' syntax and the deblocking filter read; derives the
//! syntax values that depend on the neighbours.

use super::decision::{MbDecision, MbKind};
use super::intra_search::{predicted_mode, Intra4x4, Intra8x8, IntraNxN};
use super::params::FrameStats;
use super::partition::PartMode;
use super::state::{LocalMotion, MbInfo, PictureState, CBF_CHROMA_AC, CBF_CHROMA_DC, CBF_LUMA_DC};
use crate::intra;
use crate::mvpred::BlockMotion;
use crate::tables::BLK_TO_RASTER;
use crate::transform8x8::ZIGZAG_8X8;

/// The syntax values of a macroblock that its neighbours determine.
pub struct Derived {
    /// mvd_l0 of each partition, in coding order.
    pub mvd: [[i32; 2]; 16],
    /// mb_qp_delta, when present.
    pub qp_delta: Option<i32>,
    /// rem_intra4x4_pred_mode (or rem_intra8x8_pred_mode) of each block in
    /// coding order, none where prev_intra_pred_mode_flag is 1.
    pub rem_modes: [Option<u8>; 16],
}

/// Counts the levels that are not 0.
fn nonzero(levels: &[i32]) -> u8 {
    levels.iter().filter(|&&v| v != 0).count() as u8
}

/// Stores macroblock (mbx, mby) of slice `slice` as `d` decided it. `qp_pred`
/// is QP_Y,PRED (7.4.5) and becomes this macroblock's QP_Y.
#[allow(clippy::too_many_arguments)]
pub fn commit(
    pic: &mut PictureState,
    stats: &mut FrameStats,
    slice: i32,
    mbx: usize,
    mby: usize,
    d: &MbDecision,
    qp_pred: &mut i32,
) -> Derived {
    let idx = mby * pic.mb_w + mbx;
    let mut derived = Derived {
        mvd: [[0; 2]; 16],
        qp_delta: None,
        rem_modes: [None; 16],
    };
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
    let mut m = MbInfo {
        slice,
        qp: *qp_pred,
        i4_modes: [intra::I4_DC; 16],
        cbp: d.cbp() as u8,
        t8x8: d.transform_8x8(),
        ..Default::default()
    };
    stats.qp_sum += *qp_pred as u32;
    let mut local = LocalMotion::NONE;
    match d.kind {
        MbKind::Skip { mv } => {
            m.skip = true;
            m.one_motion = true;
            local.blocks = [BlockMotion { ref_idx: 0, mv }; 16];
            stats.skip_mbs += 1;
        }
        MbKind::Inter(inter) => {
            m.one_motion = inter.mv.iter().all(|v| *v == inter.mv[0]);
            stats.part_counts[inter.mode.mb_type() as usize] += 1;
            if let PartMode::P8x8(subs) = inter.mode {
                for s in subs {
                    stats.sub_counts[s as usize] += 1;
                }
            }
            stats.t8x8_mbs += u32::from(m.t8x8);
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
            stats.intra_mbs += 1;
        }
    }
    if let MbKind::INxN(modes) = d.kind {
        m.i4x4 = true;
        m.i4_modes = modes;
        stats.i8x8_mbs += u32::from(m.t8x8);
        derived.rem_modes = if m.t8x8 {
            rem_modes::<Intra8x8>(pic, slice, (mbx, mby), &modes)
        } else {
            rem_modes::<Intra4x4>(pic, slice, (mbx, mby), &modes)
        };
    }
    store_levels(&mut m, d, stats);
    pic.mbs[idx] = m;
    store_motion(pic, mbx, mby, &local.blocks);
    store_rec(pic, mbx, mby, d);
    derived
}

/// TotalCoeff (CAVLC) and coded_block_flag (CABAC) of each coded block, and
/// the count of levels that are not 0.
fn store_levels(m: &mut MbInfo, d: &MbDecision, stats: &mut FrameStats) {
    let (luma, chroma) = (&d.luma, &d.chroma);
    if matches!(d.kind, MbKind::I16x16(_)) {
        let n = nonzero(&luma.dc);
        m.cbf |= u32::from(n != 0) << CBF_LUMA_DC;
        stats.rlc_count += u32::from(n);
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
            stats.rlc_count += u32::from(n);
        }
    }
    if chroma.cbp == 0 {
        return;
    }
    for c in 0..2 {
        let n = nonzero(&chroma.dc[c]);
        m.cbf |= u32::from(n != 0) << (CBF_CHROMA_DC + c as u32);
        stats.rlc_count += u32::from(n);
    }
    if chroma.cbp < 2 {
        return;
    }
    for c in 0..2 {
        for b in 0..4 {
            let n = nonzero(&chroma.ac[c][b]);
            m.cbf |= u32::from(n != 0) << (CBF_CHROMA_AC + 4 * c as u32 + b as u32);
            m.nzc[c][b] = n;
            stats.rlc_count += u32::from(n);
        }
    }
}

/// The rem_intra_pred_mode of each block of an Intra_NxN macroblock.
fn rem_modes<B: IntraNxN>(
    pic: &PictureState,
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

fn store_motion(pic: &mut PictureState, mbx: usize, mby: usize, blocks: &[BlockMotion; 16]) {
    let w4 = pic.mb_w * 4;
    for r in 0..4 {
        pic.motion[(mby * 4 + r) * w4 + mbx * 4..][..4].copy_from_slice(&blocks[r * 4..r * 4 + 4]);
    }
}

fn store_rec(pic: &mut PictureState, mbx: usize, mby: usize, d: &MbDecision) {
    let s = pic.rec.stride();
    for r in 0..16 {
        pic.rec.y[(mby * 16 + r) * s + mbx * 16..][..16]
            .copy_from_slice(&d.luma.rec[r * 16..r * 16 + 16]);
    }
    let cs = pic.rec.cstride();
    for r in 0..8 {
        pic.rec.cb[(mby * 8 + r) * cs + mbx * 8..][..8]
            .copy_from_slice(&d.chroma.rec[0][r * 8..r * 8 + 8]);
        pic.rec.cr[(mby * 8 + r) * cs + mbx * 8..][..8]
            .copy_from_slice(&d.chroma.rec[1][r * 8..r * 8 + 8]);
    }
}
