//! The picture as coded so far: reconstructed samples, motion, and what each
//! coded macroblock left for its neighbours. The decision reads it; only
//! [`super::reconstruct`] writes it.

use super::partition::Part;
use crate::intra;
use crate::mvpred::{self, BlockMotion, Neighbour};
use crate::picture::Planes;

/// Bit of [`MbInfo::cbf`] of the Intra16x16DCLevel block.
pub const CBF_LUMA_DC: u32 = 16;
/// Bits of [`MbInfo::cbf`] of the chroma DC blocks (Cb, Cr).
pub const CBF_CHROMA_DC: u32 = 17;
/// Bits of [`MbInfo::cbf`] of the chroma AC blocks ([Cb, Cr] x raster 2x2).
pub const CBF_CHROMA_AC: u32 = 19;

/// What a macroblock left for its neighbours (entropy contexts, intra modes, deblocking).
#[derive(Clone, Copy, Default)]
pub struct MbInfo {
    /// Slice index, -1 while not coded.
    pub slice: i32,
    pub intra: bool,
    pub i4x4: bool,
    pub skip: bool,
    /// QP_Y.
    pub qp: i32,
    /// TotalCoeff of each luma 4x4 block (raster), AC only for Intra_16x16;
    /// with the 8x8 transform, of the 4x4 block's CAVLC list (7.3.5.3.2).
    pub nz: [u8; 16],
    /// TotalCoeff of each chroma AC block, [Cb, Cr] x raster 2x2.
    pub nzc: [[u8; 4]; 2],
    /// Intra4x4PredMode per 4x4 block (raster); DC for other macroblock types.
    pub i4_modes: [u8; 16],
    /// coded_block_pattern (chroma in bits 5..4) as CABAC contexts see it.
    pub cbp: u8,
    /// intra_chroma_pred_mode.
    pub chroma_mode: u8,
    /// coded_block_flag of each block: the luma 4x4 blocks in bits 15..0
    /// (raster; AC blocks for Intra_16x16), then [`CBF_LUMA_DC`],
    /// [`CBF_CHROMA_DC`] and [`CBF_CHROMA_AC`].
    pub cbf: u32,
    /// |mvd| per 4x4 block (raster) and component, saturated at 255.
    pub mvd: [[u8; 2]; 16],
    /// transform_size_8x8_flag.
    pub t8x8: bool,
    /// All 16 blocks carry one motion (known where the motion is stored;
    /// lets the deblocking filter skip the edges of still macroblocks).
    pub one_motion: bool,
}

/// The motion of the macroblock being coded: its 4x4 blocks (raster) and
/// which of them are decided (a raster bit mask), for the prediction of the
/// vectors of its later partitions.
#[derive(Clone, Copy)]
pub struct LocalMotion {
    pub blocks: [BlockMotion; 16],
    pub done: u16,
}

impl LocalMotion {
    /// No block decided yet.
    pub const NONE: LocalMotion = LocalMotion {
        blocks: [BlockMotion {
            ref_idx: -1,
            mv: [0, 0],
        }; 16],
        done: 0,
    };

    /// Sets the vector of the blocks of `part` and marks them decided.
    pub fn set(&mut self, part: &Part, mv: [i32; 2]) {
        for y in part.y4()..part.y4() + part.h4() {
            for x in part.x4()..part.x4() + part.w4() {
                self.blocks[y * 4 + x] = BlockMotion { ref_idx: 0, mv };
            }
        }
        self.done |= part.mask();
    }
}

/// The picture as coded so far.
pub struct PictureState {
    pub mb_w: usize,
    pub mb_h: usize,
    pub rec: Planes,
    pub mbs: Vec<MbInfo>,
    /// Per 4x4 block motion of the picture.
    pub motion: Vec<BlockMotion>,
    /// constrained_intra_pred_flag: inter neighbours do not predict intra ones.
    pub constrained_intra_pred: bool,
}

/// Samples next to a 16x16 luma block: above, left, above-left, and whether
/// each may predict it.
pub struct LumaEdges {
    pub top: [u8; 16],
    pub left: [u8; 16],
    pub top_left: u8,
    pub top_ok: bool,
    pub left_ok: bool,
    pub top_left_ok: bool,
}

impl PictureState {
    /// The coded macroblock at (mbx, mby) if it is in slice `slice`.
    pub fn mb(&self, mbx: i32, mby: i32, slice: i32) -> Option<&MbInfo> {
        if mbx < 0 || mby < 0 || mbx >= self.mb_w as i32 || mby >= self.mb_h as i32 {
            return None;
        }
        let m = &self.mbs[mby as usize * self.mb_w + mbx as usize];
        (m.slice == slice).then_some(m)
    }

    /// A neighbour usable for intra prediction (constrained_intra_pred excludes inter ones).
    pub fn intra_avail(&self, mbx: i32, mby: i32, slice: i32) -> bool {
        self.mb(mbx, mby, slice)
            .is_some_and(|m| m.intra || !self.constrained_intra_pred)
    }

    /// Intra4x4PredMode (or Intra8x8PredMode) of raster 4x4 block `r` of
    /// the neighbouring macroblock (mbx, mby) as 8.3.1.1 reads it: DC for
    /// macroblocks not coded in Intra_NxN, none where it may not predict.
    pub fn neighbour_intra_mode(&self, mbx: i32, mby: i32, slice: i32, r: usize) -> Option<u8> {
        let m = self.mb(mbx, mby, slice)?;
        if !m.intra && self.constrained_intra_pred {
            return None;
        }
        Some(if m.i4x4 { m.i4_modes[r] } else { intra::I4_DC })
    }

    /// The reconstructed samples around the luma of macroblock (x, y).
    pub fn luma_edges(&self, slice: i32, x: i32, y: i32) -> LumaEdges {
        let s = self.rec.stride();
        let (px, py) = (x as usize * 16, y as usize * 16);
        let mut e = LumaEdges {
            top: [0; 16],
            left: [0; 16],
            top_left: 0,
            top_ok: self.intra_avail(x, y - 1, slice),
            left_ok: self.intra_avail(x - 1, y, slice),
            top_left_ok: self.intra_avail(x - 1, y - 1, slice),
        };
        if e.top_ok {
            e.top
                .copy_from_slice(&self.rec.y[(py - 1) * s + px..][..16]);
        }
        if e.left_ok {
            for (r, l) in e.left.iter_mut().enumerate() {
                *l = self.rec.y[(py + r) * s + px - 1];
            }
        }
        if e.top_left_ok {
            e.top_left = self.rec.y[(py - 1) * s + px - 1];
        }
        e
    }

    /// Neighbours A, B, C (or D) of the 4x4 block at global 4x4 position
    /// (gx, gy) of width `w4` (8.4.1.3.2); blocks of the macroblock `cur_mb`
    /// come from `local`, and only those it has decided.
    pub fn neighbours(
        &self,
        slice: i32,
        gx: i32,
        gy: i32,
        w4: i32,
        cur_mb: (i32, i32),
        local: &LocalMotion,
    ) -> (Neighbour, Neighbour, Neighbour) {
        let get = |bx: i32, by: i32| -> Neighbour {
            let (mx, my) = (bx.div_euclid(4), by.div_euclid(4));
            if (mx, my) == cur_mb {
                let r = ((by - my * 4) * 4 + (bx - mx * 4)) as usize;
                if local.done & (1 << r) == 0 {
                    return Neighbour::NONE;
                }
                return Neighbour {
                    available: true,
                    motion: local.blocks[r],
                };
            }
            if self.mb(mx, my, slice).is_none() {
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

    /// mvpLX of `part` of macroblock (mbx, mby) (8.4.1.3).
    pub fn part_mvp(
        &self,
        slice: i32,
        mbx: usize,
        mby: usize,
        part: &Part,
        local: &LocalMotion,
    ) -> [i32; 2] {
        let (a, b, c) = self.neighbours(
            slice,
            (mbx * 4 + part.x4()) as i32,
            (mby * 4 + part.y4()) as i32,
            part.w4() as i32,
            (mbx as i32, mby as i32),
            local,
        );
        mvpred::predict(0, a, b, c, part.shape)
    }

    /// The P_Skip vector of macroblock (x, y) (8.4.1.1).
    pub fn skip_mv(&self, slice: i32, x: i32, y: i32) -> [i32; 2] {
        let (a, b, c) = self.neighbours(slice, x * 4, y * 4, 4, (x, y), &LocalMotion::NONE);
        mvpred::skip_mv(a, b, c)
    }
}
