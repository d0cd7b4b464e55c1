// SPDX-License-Identifier: GPL-2.0-only
//! Decoded picture buffer of the encoder: reference marking (8.2.5), the P
//! reference list (8.2.4.2.1) and its modification (8.2.4.3).

use super::error::{Error, Result};

/// Most reference frames a stream may keep (V4L2_H264_NUM_DPB_ENTRIES).
pub const MAX_DPB: usize = 16;

/// Longest reference list (V4L2_H264_REF_LIST_LEN).
pub const MAX_LIST: usize = 32;

/// A reference picture, as the decoder will hold it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct RefPic {
    /// The entry holds a reference picture.
    pub in_use: bool,
    /// Marked "used for long-term reference".
    pub long_term: bool,
    /// temporal_id of the picture.
    pub temporal_id: u8,
    /// LongTermFrameIdx when long-term.
    pub long_term_frame_idx: u8,
    /// FrameNum.
    pub frame_num: u32,
    /// PicOrderCnt of the picture (8.2.1).
    pub pic_order_cnt: i32,
    /// Reconstruction buffer slot holding the picture.
    pub slot: u32,
    /// Position in decoding order.
    pub decode_index: u64,
    /// Timestamp of the source buffer (the uAPI's reference_ts).
    pub timestamp: u64,
}

/// A reference picture as the driver reports it to the client.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct DpbEntry {
    /// Timestamp of the picture's source buffer (the uAPI's reference_ts).
    pub timestamp: u64,
    /// FrameNum.
    pub frame_num: u32,
    /// PicOrderCnt (8.2.1).
    pub pic_order_cnt: i32,
    /// 1 when marked "used for long-term reference".
    pub long_term: u8,
    /// LongTermFrameIdx when long-term.
    pub long_term_frame_idx: u8,
    /// temporal_id of the picture.
    pub temporal_id: u8,
    /// Zero.
    pub reserved: u8,
    /// Zero.
    pub reserved2: u32,
}

/// modification_of_pic_nums_idc and its value: one ref_pic_list_modification command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ListModification {
    /// modification_of_pic_nums_idc: 0 subtract, 1 add, 2 long-term.
    pub idc: u8,
    /// abs_diff_pic_num_minus1 or long_term_pic_num.
    pub value: u32,
}

/// The reference pictures of the stream.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
pub struct Dpb {
    pics: [RefPic; MAX_DPB],
    /// max_num_ref_frames of the SPS.
    pub max_num_ref_frames: u32,
    /// MaxFrameNum = 2^(log2_max_frame_num).
    pub max_frame_num: u32,
    /// MaxLongTermFrameIdx + 1, 0 for "no long-term frame indices".
    pub max_long_term_frame_idx_plus1: u32,
}

impl Dpb {
    /// Creates an empty DPB.
    pub fn new(max_num_ref_frames: u32, log2_max_frame_num: u32) -> Result<Dpb> {
        if max_num_ref_frames == 0
            || max_num_ref_frames as usize > MAX_DPB
            || !(4..=16).contains(&log2_max_frame_num)
        {
            return Err(Error::InvalidParam);
        }
        Ok(Dpb {
            pics: [RefPic::default(); MAX_DPB],
            max_num_ref_frames,
            max_frame_num: 1 << log2_max_frame_num,
            max_long_term_frame_idx_plus1: 0,
        })
    }

    /// The reference pictures in use.
    pub fn refs(&self) -> impl Iterator<Item = &RefPic> {
        self.pics.iter().filter(|p| p.in_use)
    }

    /// Number of reference frames held.
    pub fn len(&self) -> usize {
        self.refs().count()
    }

    /// Returns true when no reference is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Returns entry `i`.
    pub fn get(&self, i: usize) -> Option<&RefPic> {
        self.pics.get(i).filter(|p| p.in_use)
    }

    /// FrameNumWrap of a short-term picture relative to the current frame_num (8-27).
    pub fn frame_num_wrap(&self, p: &RefPic, curr_frame_num: u32) -> i64 {
        if p.frame_num > curr_frame_num {
            i64::from(p.frame_num) - i64::from(self.max_frame_num)
        } else {
            i64::from(p.frame_num)
        }
    }

    /// Builds RefPicList0 of a P slice (8.2.4.2.1): short-term by descending PicNum,
    /// then long-term by ascending LongTermPicNum. Writes DPB indices; returns the length.
    pub fn p_list(&self, curr_frame_num: u32, out: &mut [u8; MAX_LIST]) -> usize {
        let mut n = 0;
        let mut used = [false; MAX_DPB];
        // Selection sort: at most 16 entries, no allocation, no recursion.
        for long in [false, true] {
            loop {
                let mut best: Option<(usize, i64)> = None;
                for (p, i) in self.pics.iter().zip(0..self.pics.len()) {
                    if !p.in_use || p.long_term != long || used.get(i).copied().unwrap_or(true) {
                        continue;
                    }
                    let key = if long {
                        -i64::from(p.long_term_frame_idx)
                    } else {
                        self.frame_num_wrap(p, curr_frame_num)
                    };
                    if best.map_or(true, |(_, k)| key > k) {
                        best = Some((i, key));
                    }
                }
                let i = match best {
                    Some((i, _)) => i,
                    None => break,
                };
                if let Some(u) = used.get_mut(i) {
                    *u = true;
                }
                if let Some(o) = out.get_mut(n) {
                    *o = i as u8;
                    n += 1;
                }
            }
        }
        n
    }

    /// The modification that puts DPB entry `target` first in RefPicList0, or None
    /// when it already is (8.2.4.3.1, 8.2.4.3.2).
    pub fn modification_for(
        &self,
        target: usize,
        curr_frame_num: u32,
    ) -> Result<Option<ListModification>> {
        let mut list = [0u8; MAX_LIST];
        let n = self.p_list(curr_frame_num, &mut list);
        self.modification_in(list.get(..n).unwrap_or(&[]), target, curr_frame_num)
    }

    /// As [`Dpb::modification_for`], with the default list already built by [`Dpb::p_list`].
    pub fn modification_in(
        &self,
        list: &[u8],
        target: usize,
        curr_frame_num: u32,
    ) -> Result<Option<ListModification>> {
        let first = *list.first().ok_or(Error::NoReference)?;
        if usize::from(first) == target {
            return Ok(None);
        }
        let p = self.get(target).ok_or(Error::NoReference)?;
        if p.long_term {
            return Ok(Some(ListModification {
                idc: 2,
                value: u32::from(p.long_term_frame_idx),
            }));
        }
        // picNumL0Pred starts at CurrPicNum; every short-term PicNum is below it.
        let pic_num = self.frame_num_wrap(p, curr_frame_num);
        let diff = i64::from(curr_frame_num) - pic_num;
        if diff < 1 || diff > i64::from(self.max_frame_num) {
            return Err(Error::InvalidSyntax);
        }
        Ok(Some(ListModification {
            idc: 0,
            value: (diff - 1) as u32,
        }))
    }

    /// Marks the decoded picture `cur` (8.2.5.1): IDR, sliding window, or the
    /// "mark current long-term" operation (memory_management_control_operation 6).
    pub fn mark(&mut self, cur: RefPic, idr: bool, long_term: bool) -> Result {
        let mut cur = cur;
        cur.in_use = true;
        if idr {
            for p in self.pics.iter_mut() {
                p.in_use = false;
            }
            cur.long_term = long_term;
            cur.long_term_frame_idx = 0;
            self.max_long_term_frame_idx_plus1 = if long_term { 1 } else { 0 };
        } else if long_term {
            // MMCO 6 with LongTermFrameIdx 0 replaces the current long-term picture (8.2.5.4.6).
            if self.max_long_term_frame_idx_plus1 == 0 {
                return Err(Error::InvalidParam);
            }
            for p in self.pics.iter_mut() {
                if p.in_use && p.long_term && p.long_term_frame_idx == 0 {
                    p.in_use = false;
                }
            }
            cur.long_term = true;
            cur.long_term_frame_idx = 0;
            if self.len() as u32 >= self.max_num_ref_frames {
                return Err(Error::Overflow);
            }
        } else {
            self.sliding_window();
            cur.long_term = false;
        }
        let free = self
            .pics
            .iter_mut()
            .find(|p| !p.in_use)
            .ok_or(Error::Overflow)?;
        *free = cur;
        Ok(())
    }

    /// Sliding window marking (8.2.5.3): drops the short-term picture with the
    /// smallest FrameNumWrap when the DPB is full.
    fn sliding_window(&mut self) {
        let full = self.len() as u32 >= self.max_num_ref_frames.max(1);
        if !full {
            return;
        }
        // The current frame_num is larger than every FrameNumWrap here; decoding
        // order gives the same answer without knowing it.
        let mut oldest: Option<(usize, u64)> = None;
        for (p, i) in self.pics.iter().zip(0..self.pics.len()) {
            if p.in_use && !p.long_term && oldest.map_or(true, |(_, d)| p.decode_index < d) {
                oldest = Some((i, p.decode_index));
            }
        }
        if let Some((i, _)) = oldest {
            if let Some(p) = self.pics.get_mut(i) {
                p.in_use = false;
            }
        }
    }

    /// Finds the most recent reference, short- or long-term, with
    /// `temporal_id` below `below` (or 0 when `below` is 0).
    pub fn latest_below(&self, below: u8) -> Option<usize> {
        let mut best: Option<(usize, u64)> = None;
        for (p, i) in self.pics.iter().zip(0..self.pics.len()) {
            let layer_ok = if below == 0 {
                p.temporal_id == 0
            } else {
                p.temporal_id < below
            };
            // A long-term picture counts too: a client may have marked the
            // latest picture long-term, and it is still the closest.
            if p.in_use && layer_ok && best.map_or(true, |(_, d)| p.decode_index > d) {
                best = Some((i, p.decode_index));
            }
        }
        best.map(|(i, _)| i)
    }

    /// Finds the long-term reference.
    pub fn long_term(&self) -> Option<usize> {
        self.pics.iter().position(|p| p.in_use && p.long_term)
    }

    /// Finds the reference whose source buffer had `timestamp`.
    pub fn by_timestamp(&self, timestamp: u64) -> Option<usize> {
        self.pics
            .iter()
            .position(|p| p.in_use && p.timestamp == timestamp)
    }

    /// Returns the `n`-th reference picture the DPB holds, in storage order,
    /// as the driver reports it to the client.
    pub fn entry(&self, n: usize) -> Option<DpbEntry> {
        self.refs().nth(n).map(|p| DpbEntry {
            timestamp: p.timestamp,
            frame_num: p.frame_num,
            pic_order_cnt: p.pic_order_cnt,
            long_term: p.long_term as u8,
            long_term_frame_idx: p.long_term_frame_idx,
            temporal_id: p.temporal_id,
            reserved: 0,
            reserved2: 0,
        })
    }

    /// Returns true when reconstruction slot `slot` holds a reference.
    pub fn slot_in_use(&self, slot: u32) -> bool {
        self.refs().any(|p| p.slot == slot)
    }
}
