//! The deblocking filter (clause 8.7) over a reconstructed frame.

use crate::mb::MbInfo;
use crate::mvpred::BlockMotion;
use crate::tables::{chroma_qp, ALPHA, BETA, TC0};
use core::ops::Range;

/// Slice-level filter controls (the H1 codes all slices of a frame alike).
#[derive(Clone, Copy, Debug)]
pub struct DeblockParams {
    /// disable_deblocking_filter_idc: 0 on, 1 off, 2 on but not across slice edges.
    pub idc: u32,
    /// FilterOffsetA = slice_alpha_c0_offset_div2 << 1.
    pub offset_a: i32,
    /// FilterOffsetB = slice_beta_offset_div2 << 1.
    pub offset_b: i32,
    pub chroma_qp_offset: i32,
}

/// The signature of [`filter_luma_edge`] at every CPU level.
pub type LumaEdgeFn = fn(&mut [u8], usize, usize, usize, usize, bool, &[u8; 4], usize, usize);
/// The signature of [`filter_chroma_edge`] at every CPU level.
pub type ChromaEdgeFn =
    fn(&mut [u8], &mut [u8], usize, usize, usize, usize, bool, &[u8; 4], usize, usize);
/// What one call of the deblocking filter reads and filters: the picture's
/// planes from its top row down to the last macroblock row it filters, and
/// the macroblocks' information, motion and QP_Y over the same rows. The
/// rows above `rows` are filtered already; the picture may be coded further
/// below them meanwhile, since the filter reads and writes none of it.
pub struct DeblockRows<'a> {
    pub y: &'a mut [u8],
    pub cb: &'a mut [u8],
    pub cr: &'a mut [u8],
    /// Picture width in macroblocks.
    pub mb_w: usize,
    pub mbs: &'a [MbInfo],
    pub motion: &'a [BlockMotion],
    /// QP_Y of each macroblock.
    pub qps: &'a [i32],
    /// The macroblock rows to filter.
    pub rows: Range<usize>,
}

/// The signature of [`deblock`] at every CPU level.
pub type DeblockFn = fn(DeblockRows<'_>, &DeblockParams);

/// Filters the rows of `r` in place, macroblock by macroblock in raster
/// order, with the plain edge filters.
pub fn deblock(r: DeblockRows<'_>, p: &DeblockParams) {
    deblock_with(r, p, filter_luma_edge, filter_chroma_edge);
}

/// [`deblock`] with the edge filters `luma` and `chroma` of a CPU level
/// (with the arguments of [`filter_luma_edge`] and [`filter_chroma_edge`]),
/// inlined into the loop: a level compiles its whole loop around its filters.
#[inline(always)]
pub fn deblock_with<L, C>(r: DeblockRows<'_>, p: &DeblockParams, luma: L, chroma: C)
where
    L: Fn(&mut [u8], usize, usize, usize, usize, bool, &[u8; 4], usize, usize),
    C: Fn(&mut [u8], &mut [u8], usize, usize, usize, usize, bool, &[u8; 4], usize, usize),
{
    if p.idc == 1 {
        return;
    }
    let DeblockRows {
        y: rec_y,
        cb: rec_cb,
        cr: rec_cr,
        mb_w,
        mbs,
        motion,
        qps,
        rows,
    } = r;
    // The rows filtered and the one above them, whose macroblocks the top
    // edges read.
    let top = rows.start.saturating_sub(1);
    let still: Vec<Option<BlockMotion>> = (top * mb_w..rows.end * mb_w)
        .map(|i| uniform_motion(&mbs[i], motion, mb_w, i % mb_w, i / mb_w))
        .collect();
    let still_at = |mbx: usize, mby: usize| still[(mby - top) * mb_w + mbx];
    let (stride, cstride) = (mb_w * 16, mb_w * 8);
    for mby in rows {
        for mbx in 0..mb_w {
            let cur = &mbs[mby * mb_w + mbx];
            let cur_qp = qps[mby * mb_w + mbx];
            let cur_still = still_at(mbx, mby);
            let left = (mbx > 0).then(|| (&mbs[mby * mb_w + mbx - 1], qps[mby * mb_w + mbx - 1]));
            let top =
                (mby > 0).then(|| (&mbs[(mby - 1) * mb_w + mbx], qps[(mby - 1) * mb_w + mbx]));
            let left_ok = left.is_some_and(|(l, _)| p.idc != 2 || l.slice == cur.slice);
            let top_ok = top.is_some_and(|(t, _)| p.idc != 2 || t.slice == cur.slice);
            for vertical in [true, false] {
                let nb = if vertical { left } else { top };
                let nb_still = if vertical {
                    (mbx > 0).then(|| still_at(mbx - 1, mby)).flatten()
                } else {
                    (mby > 0).then(|| still_at(mbx, mby - 1)).flatten()
                };
                for edge in 0..4 {
                    if edge == 0 && !(if vertical { left_ok } else { top_ok }) {
                        continue;
                    }
                    // Inside 8x8 transform blocks no luma edge is filtered
                    // (transform_size_8x8_flag, 8.7); chroma has none there.
                    if edge % 2 == 1 && cur.t8x8 {
                        continue;
                    }
                    // Edges between blocks of one motion and no coefficients
                    // have bS 0 (8.7.2.1): nothing to compute or filter.
                    if let Some(q) = cur_still {
                        if edge > 0 || nb_still.is_some_and(|p| same_motion(p, q)) {
                            continue;
                        }
                    }
                    let (q_mb, q_qp) = (cur, cur_qp);
                    let (p_mb, p_qp) = if edge == 0 {
                        nb.unwrap_or((cur, cur_qp))
                    } else {
                        (cur, cur_qp)
                    };
                    // bS for each of the four 4x4 blocks along the edge.
                    let mut bs = [0u8; 4];
                    for (k, b) in bs.iter_mut().enumerate() {
                        let (qx, qy) = if vertical { (edge, k) } else { (k, edge) };
                        let (px, py) = if vertical {
                            ((edge + 3) % 4, k)
                        } else {
                            (k, (edge + 3) % 4)
                        };
                        *b = strength(
                            p_mb,
                            q_mb,
                            edge == 0,
                            px + py * 4,
                            qx + qy * 4,
                            block_motion(motion, mb_w, mbx, mby, vertical, edge, px, py),
                            motion[(mby * 4 + qy) * mb_w * 4 + mbx * 4 + qx],
                        );
                    }
                    if bs == [0; 4] {
                        continue;
                    }
                    let qpav = (p_qp + q_qp + 1) >> 1;
                    let (index_a, index_b) = filter_indices(qpav, p);
                    luma(
                        rec_y,
                        stride,
                        mbx * 16,
                        mby * 16,
                        edge * 4,
                        vertical,
                        &bs,
                        index_a,
                        index_b,
                    );
                    if edge % 2 == 0 {
                        let qpc = (chroma_qp(p_qp, p.chroma_qp_offset)
                            + chroma_qp(q_qp, p.chroma_qp_offset)
                            + 1)
                            >> 1;
                        let (index_a, index_b) = filter_indices(qpc, p);
                        chroma(
                            rec_cb,
                            rec_cr,
                            cstride,
                            mbx * 8,
                            mby * 8,
                            edge * 2,
                            vertical,
                            &bs,
                            index_a,
                            index_b,
                        );
                    }
                }
            }
        }
    }
}

/// indexA and indexB of 8.7.2.2 for the average QP `qp` of an edge.
#[inline(always)]
fn filter_indices(qp: i32, p: &DeblockParams) -> (usize, usize) {
    (
        (qp + p.offset_a).clamp(0, 51) as usize,
        (qp + p.offset_b).clamp(0, 51) as usize,
    )
}

/// The motion of an inter macroblock without coefficients whose 16 blocks all
/// move alike (as the coder recorded); `None` for any other macroblock, whose
/// edges then get their strengths block by block.
#[inline(always)]
fn uniform_motion(
    mb: &MbInfo,
    motion: &[BlockMotion],
    mb_w: usize,
    mbx: usize,
    mby: usize,
) -> Option<BlockMotion> {
    if mb.intra || !mb.one_motion || mb.nz.iter().any(|&n| n != 0) {
        return None;
    }
    Some(motion[mby * 4 * mb_w * 4 + mbx * 4])
}

/// Two blocks whose shared edge gets bS 0 by motion (8.7.2.1, frame macroblocks).
#[inline(always)]
fn same_motion(p: BlockMotion, q: BlockMotion) -> bool {
    p.ref_idx == q.ref_idx && (p.mv[0] - q.mv[0]).abs() < 4 && (p.mv[1] - q.mv[1]).abs() < 4
}

/// Motion of the p-side block: in the neighbouring macroblock for edge 0.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn block_motion(
    motion: &[BlockMotion],
    mb_w: usize,
    mbx: usize,
    mby: usize,
    vertical: bool,
    edge: usize,
    px: usize,
    py: usize,
) -> BlockMotion {
    let (gx, gy) = if edge == 0 {
        if vertical {
            (mbx * 4 - 1, mby * 4 + py)
        } else {
            (mbx * 4 + px, mby * 4 - 1)
        }
    } else {
        (mbx * 4 + px, mby * 4 + py)
    };
    motion[gy * mb_w * 4 + gx]
}

/// Boundary filtering strength of 8.7.2.1 for frame macroblocks.
#[inline(always)]
fn strength(
    p: &MbInfo,
    q: &MbInfo,
    mb_edge: bool,
    pr: usize,
    qr: usize,
    pm: BlockMotion,
    qm: BlockMotion,
) -> u8 {
    if p.intra || q.intra {
        return if mb_edge { 4 } else { 3 };
    }
    if coded(p, pr) || coded(q, qr) {
        return 2;
    }
    if !same_motion(pm, qm) {
        return 1;
    }
    0
}

/// Whether the transform block holding 4x4 block `r` (raster) has a non-zero
/// level: with the 8x8 transform, the whole 8x8 block counts (8.7.2.1).
#[inline(always)]
fn coded(m: &MbInfo, r: usize) -> bool {
    if m.t8x8 {
        let r0 = (r / 8) * 8 + (r % 4) / 2 * 2;
        m.nz[r0] | m.nz[r0 + 1] | m.nz[r0 + 4] | m.nz[r0 + 5] != 0
    } else {
        m.nz[r] != 0
    }
}

/// Filters the luma edge of a macroblock at offset `pos` (0, 4, 8, 12) across
/// `x0, y0`, with the strengths `bs` of its four 4-line groups and the
/// filter's `index_a`/`index_b` (8.7.2.2 to 8.7.2.4).
#[allow(clippy::too_many_arguments)]
#[inline]
pub fn filter_luma_edge(
    plane: &mut [u8],
    stride: usize,
    x0: usize,
    y0: usize,
    pos: usize,
    vertical: bool,
    bs: &[u8; 4],
    index_a: usize,
    index_b: usize,
) {
    filter_edge(
        plane, stride, x0, y0, pos, vertical, bs, index_a, index_b, false,
    );
}

/// Filters the chroma edge at offset `pos` (0 or 4) of the 8x8 blocks at
/// `x0, y0` of both `cb` and `cr` (same stride), with the luma edge's
/// strengths `bs` (two lines each) and `index_a`/`index_b`.
#[allow(clippy::too_many_arguments)]
#[inline]
pub fn filter_chroma_edge(
    cb: &mut [u8],
    cr: &mut [u8],
    stride: usize,
    x0: usize,
    y0: usize,
    pos: usize,
    vertical: bool,
    bs: &[u8; 4],
    index_a: usize,
    index_b: usize,
) {
    for plane in [cb, cr] {
        filter_edge(
            plane, stride, x0, y0, pos, vertical, bs, index_a, index_b, true,
        );
    }
}

/// Filters one edge of a macroblock (or chroma block) at `pos` from `x0, y0`
/// in one plane, line by line (8.7.2.2 to 8.7.2.4).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn filter_edge(
    plane: &mut [u8],
    stride: usize,
    x0: usize,
    y0: usize,
    pos: usize,
    vertical: bool,
    bs: &[u8; 4],
    index_a: usize,
    index_b: usize,
    chroma: bool,
) {
    let alpha = ALPHA[index_a] as i32;
    let beta = BETA[index_b] as i32;
    let len = if chroma { 8 } else { 16 };
    for k in 0..len {
        let b = bs[if chroma { k / 2 } else { k / 4 }];
        if b == 0 {
            continue;
        }
        // Sample i on the q side (i >= 0) or p side (i < 0) of the edge:
        // `base + i * step`, across the edge.
        let (base, step) = if vertical {
            ((y0 + k) * stride + x0 + pos, 1isize)
        } else {
            ((y0 + pos) * stride + x0 + k, stride as isize)
        };
        let at = |i: isize| -> usize { (base as isize + i * step) as usize };
        let s = |i: isize| plane[at(i)] as i32;
        let (p0, p1, q0, q1) = (s(-1), s(-2), s(0), s(1));
        if !((p0 - q0).abs() < alpha && (p1 - p0).abs() < beta && (q1 - q0).abs() < beta) {
            continue;
        }
        if chroma {
            if b < 4 {
                let tc = TC0[index_a][b as usize - 1] as i32 + 1;
                let delta = ((((q0 - p0) << 2) + (p1 - q1) + 4) >> 3).clamp(-tc, tc);
                plane[at(-1)] = (p0 + delta).clamp(0, 255) as u8;
                plane[at(0)] = (q0 - delta).clamp(0, 255) as u8;
            } else {
                plane[at(-1)] = ((2 * p1 + p0 + q1 + 2) >> 2) as u8;
                plane[at(0)] = ((2 * q1 + q0 + p1 + 2) >> 2) as u8;
            }
            continue;
        }
        let (p2, q2) = (s(-3), s(2));
        let ap = (p2 - p0).abs();
        let aq = (q2 - q0).abs();
        if b < 4 {
            let tc0 = TC0[index_a][b as usize - 1] as i32;
            let tc = tc0 + (ap < beta) as i32 + (aq < beta) as i32;
            let delta = ((((q0 - p0) << 2) + (p1 - q1) + 4) >> 3).clamp(-tc, tc);
            plane[at(-1)] = (p0 + delta).clamp(0, 255) as u8;
            plane[at(0)] = (q0 - delta).clamp(0, 255) as u8;
            if ap < beta {
                plane[at(-2)] =
                    (p1 + ((p2 + ((p0 + q0 + 1) >> 1) - (p1 << 1)) >> 1).clamp(-tc0, tc0)) as u8;
            }
            if aq < beta {
                plane[at(1)] =
                    (q1 + ((q2 + ((p0 + q0 + 1) >> 1) - (q1 << 1)) >> 1).clamp(-tc0, tc0)) as u8;
            }
        } else {
            let (p3, q3) = (s(-4), s(3));
            let strong = (p0 - q0).abs() < ((alpha >> 2) + 2);
            if ap < beta && strong {
                plane[at(-1)] = ((p2 + 2 * p1 + 2 * p0 + 2 * q0 + q1 + 4) >> 3) as u8;
                plane[at(-2)] = ((p2 + p1 + p0 + q0 + 2) >> 2) as u8;
                plane[at(-3)] = ((2 * p3 + 3 * p2 + p1 + p0 + q0 + 4) >> 3) as u8;
            } else {
                plane[at(-1)] = ((2 * p1 + p0 + q1 + 2) >> 2) as u8;
            }
            if aq < beta && strong {
                plane[at(0)] = ((p1 + 2 * p0 + 2 * q0 + 2 * q1 + q2 + 4) >> 3) as u8;
                plane[at(1)] = ((p0 + q0 + q1 + q2 + 2) >> 2) as u8;
                plane[at(2)] = ((2 * q3 + 3 * q2 + q1 + q0 + p0 + 4) >> 3) as u8;
            } else {
                plane[at(0)] = ((2 * q1 + q0 + p1 + 2) >> 2) as u8;
            }
        }
    }
}
