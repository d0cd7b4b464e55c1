//! The picture as coded so far: reconstructed samples, motion, and what each
//! coded macroblock left for its neighbours. The decision and the syntax
//! writers read it through a [`PicView`]; only [`super::reconstruct`] writes
//! it, one macroblock at a time.
//!
//! Macroblocks may be coded by several threads at once (a wavefront: a
//! macroblock once the one above and right of it is done). A [`PicView`]
//! therefore reaches the buffers through raw pointers and never makes a
//! reference to more than the element it reads, so that one thread may store
//! a macroblock while others read the ones before it.

use super::partition::Part;
use crate::intra;
use crate::mvpred::{self, BlockMotion, Neighbour};
use crate::picture::Planes;
use core::marker::PhantomData;

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
    /// QP_Y; given in decoding order, once the frame's macroblocks are all coded.
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

/// The picture as coded so far: the owner of its buffers.
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

impl PictureState {
    /// A view of the picture for the macroblock stages, for as long as it is borrowed.
    pub fn view(&mut self) -> PicView<'_> {
        // The view's reads and writes are checked against the picture's
        // size, so the buffers must hold a picture of that size.
        let (w, h) = (self.mb_w, self.mb_h);
        assert!(
            self.rec.y.len() >= w * h * 256
                && self.rec.cb.len() >= w * h * 64
                && self.rec.cr.len() >= w * h * 64
                && self.mbs.len() >= w * h
                && self.motion.len() >= w * h * 16,
            "the picture's buffers are smaller than {w}x{h} macroblocks"
        );
        PicView {
            mb_w: self.mb_w,
            mb_h: self.mb_h,
            y: self.rec.y.as_mut_ptr(),
            cb: self.rec.cb.as_mut_ptr(),
            cr: self.rec.cr.as_mut_ptr(),
            mbs: self.mbs.as_mut_ptr(),
            motion: self.motion.as_mut_ptr(),
            constrained_intra_pred: self.constrained_intra_pred,
            _owner: PhantomData,
        }
    }
}

/// The top rows of a picture that no other thread codes any more
/// ([`PicView::rows_down_to`]).
pub struct DoneRows<'a> {
    pub y: &'a mut [u8],
    pub cb: &'a mut [u8],
    pub cr: &'a mut [u8],
    pub mbs: &'a [MbInfo],
    pub motion: &'a [BlockMotion],
}

/// The picture being coded, shared by the threads that code its macroblocks.
///
/// Reads go through raw pointers, one element at a time. The rule that makes
/// them sound: a macroblock's samples, motion and [`MbInfo`] are written once,
/// by [`PicView::store_mb`] in the thread that decided it, and no other
/// thread reads them before it learns (through a release store it reads
/// with acquire ordering) that the macroblock is done. The decision of
/// macroblock (x, y) reads macroblocks (x - 1, y) and (x - 1..=x + 1, y - 1),
/// done before it, and, of the macroblock right of it in its own row, which
/// the same thread codes later, the slice index still unset; the writer
/// reads the macroblock it writes and those left of and above it, all done.
/// The writer also filters the samples of a row, once the row below it is
/// done and no other thread reads them any more ([`PicView::rows_down_to`]).
/// The view is neither `Clone` nor `Copy`: it borrows the picture mutably,
/// so no other view or reference to the buffers exists while it lives.
pub struct PicView<'a> {
    mb_w: usize,
    mb_h: usize,
    y: *mut u8,
    cb: *mut u8,
    cr: *mut u8,
    mbs: *mut MbInfo,
    motion: *mut BlockMotion,
    /// constrained_intra_pred_flag: inter neighbours do not predict intra ones.
    constrained_intra_pred: bool,
    _owner: PhantomData<&'a mut PictureState>,
}

// SAFETY: the pointers reach buffers the view borrows mutably for 'a; the
// threads sharing the view follow the rule of [`PicView`], so that no element
// is written while another thread reads it.
unsafe impl Send for PicView<'_> {}
// SAFETY: as for Send.
unsafe impl Sync for PicView<'_> {}

impl PicView<'_> {
    /// Width in macroblocks.
    pub fn mb_w(&self) -> usize {
        self.mb_w
    }

    /// Height in macroblocks.
    pub fn mb_h(&self) -> usize {
        self.mb_h
    }

    /// Luma row stride.
    pub fn stride(&self) -> usize {
        self.mb_w * 16
    }

    /// Chroma row stride.
    pub fn cstride(&self) -> usize {
        self.mb_w * 8
    }

    /// The [`MbInfo`] of macroblock address `idx`.
    pub fn mb_at(&self, idx: usize) -> &MbInfo {
        assert!(idx < self.mb_w * self.mb_h);
        // SAFETY: in bounds (above; `view` checked the buffers' lengths); the
        // element is not being written (the rule of [`PicView`]).
        unsafe { &*self.mbs.add(idx) }
    }

    /// `N` reconstructed samples of plane `plane` (0 luma, 1 Cb, 2 Cr) from (x, y).
    pub fn samples<const N: usize>(&self, plane: usize, x: usize, y: usize) -> [u8; N] {
        let (base, stride, rows) = match plane {
            0 => (self.y, self.stride(), self.mb_h * 16),
            1 => (self.cb, self.cstride(), self.mb_h * 8),
            _ => (self.cr, self.cstride(), self.mb_h * 8),
        };
        assert!(x + N <= stride && y < rows);
        // SAFETY: in bounds (above; `view` checked the buffers' lengths);
        // samples of done macroblocks only (the rule of [`PicView`]); an
        // array of u8 has alignment 1, so any address is aligned for it.
        unsafe { base.add(y * stride + x).cast::<[u8; N]>().read() }
    }

    /// One reconstructed sample of plane `plane` at (x, y).
    pub fn sample(&self, plane: usize, x: usize, y: usize) -> u8 {
        self.samples::<1>(plane, x, y)[0]
    }

    /// The motion of the 4x4 block at global 4x4 position (bx, by).
    fn block_motion(&self, bx: usize, by: usize) -> BlockMotion {
        assert!(bx < self.mb_w * 4 && by < self.mb_h * 4);
        // SAFETY: in bounds (above; `view` checked the buffers' lengths); the
        // block's macroblock is done (the rule of [`PicView`]).
        unsafe { self.motion.add(by * self.mb_w * 4 + bx).read() }
    }

    /// Stores macroblock (mbx, mby): its [`MbInfo`], the motion of its 16
    /// blocks (raster) and its reconstructed samples.
    ///
    /// # Safety
    ///
    /// Only the thread coding macroblock (mbx, mby) calls it, once per frame,
    /// before it tells other threads that the macroblock is done, and no
    /// other thread reads the macroblock before then.
    pub unsafe fn store_mb(
        &self,
        mbx: usize,
        mby: usize,
        m: MbInfo,
        motion: &[BlockMotion; 16],
        luma: &[u8; 256],
        chroma: &[[u8; 64]; 2],
    ) {
        assert!(mbx < self.mb_w && mby < self.mb_h);
        let (s, cs, w4) = (self.stride(), self.cstride(), self.mb_w * 4);
        // SAFETY: every write lies inside macroblock (mbx, mby) of its buffer
        // (in bounds, above), which only this thread touches until it
        // publishes the macroblock (the caller's contract).
        unsafe {
            self.mbs.add(mby * self.mb_w + mbx).write(m);
            for r in 0..4 {
                let dst = self.motion.add((mby * 4 + r) * w4 + mbx * 4);
                core::ptr::copy_nonoverlapping(motion[r * 4..].as_ptr(), dst, 4);
            }
            for r in 0..16 {
                let dst = self.y.add((mby * 16 + r) * s + mbx * 16);
                core::ptr::copy_nonoverlapping(luma[r * 16..].as_ptr(), dst, 16);
            }
            for r in 0..8 {
                let o = (mby * 8 + r) * cs + mbx * 8;
                core::ptr::copy_nonoverlapping(chroma[0][r * 8..].as_ptr(), self.cb.add(o), 8);
                core::ptr::copy_nonoverlapping(chroma[1][r * 8..].as_ptr(), self.cr.add(o), 8);
            }
        }
    }

    /// Macroblock rows `0..=row`, for the deblocking filter of `row`.
    ///
    /// # Safety
    ///
    /// Rows `0..=row` and the row below it are done, and while the value
    /// lives no other thread reads or writes the samples of rows `0..=row`
    /// nor writes their [`MbInfo`] and motion: the rows below read only
    /// the row just above them, so the caller waits for the row below.
    pub unsafe fn rows_down_to(&self, row: usize) -> DoneRows<'_> {
        assert!(row < self.mb_h);
        let (mbs, luma) = ((row + 1) * self.mb_w, (row + 1) * 16 * self.stride());
        let chroma = luma / 4;
        // SAFETY: the prefixes lie in the buffers (`view` checked their
        // lengths against the picture's size); no other thread touches the
        // samples, nor writes the rest (the caller's contract).
        unsafe {
            DoneRows {
                y: core::slice::from_raw_parts_mut(self.y, luma),
                cb: core::slice::from_raw_parts_mut(self.cb, chroma),
                cr: core::slice::from_raw_parts_mut(self.cr, chroma),
                mbs: core::slice::from_raw_parts(self.mbs, mbs),
                motion: core::slice::from_raw_parts(self.motion, mbs * 16),
            }
        }
    }

    /// The coded macroblock at (mbx, mby) if it is in slice `slice`.
    pub fn mb(&self, mbx: i32, mby: i32, slice: i32) -> Option<&MbInfo> {
        if mbx < 0 || mby < 0 || mbx >= self.mb_w as i32 || mby >= self.mb_h as i32 {
            return None;
        }
        let m = self.mb_at(mby as usize * self.mb_w + mbx as usize);
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
            e.top = self.samples(0, px, py - 1);
        }
        if e.left_ok {
            for (r, l) in e.left.iter_mut().enumerate() {
                *l = self.sample(0, px - 1, py + r);
            }
        }
        if e.top_left_ok {
            e.top_left = self.sample(0, px - 1, py - 1);
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
                motion: self.block_motion(bx as usize, by as usize),
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
