// SPDX-License-Identifier: GPL-2.0-only
//! Picture order counts as a decoder derives them (8.2.1), for the feedback
//! and the DPB report: the client names pictures by timestamp, but a receiver
//! orders them by PicOrderCnt.

/// Returns PicOrderCnt(CurrPic) of a frame of a stream without B pictures.
///
/// - `poc_type`: pic_order_cnt_type, 0 or 2 (the encoder codes no other).
/// - `frames_since_idr`: frames since the last IDR picture, 0 for the IDR.
/// - `abs_frame_num`: FrameNumOffset + frame_num (8.2.1.3), 0 for the IDR.
/// - `reference`: nal_ref_idc is not 0.
///
/// Type 0 (8.2.1.1): the core codes pic_order_cnt_lsb as 2 * frames_since_idr
/// modulo MaxPicOrderCntLsb, and each step (2) is below MaxPicOrderCntLsb / 2,
/// so the decoder's PicOrderCntMsb tracking gives 2 * frames_since_idr.
/// Type 2 (8.2.1.3): 2 * absFrameNum, one less for a non-reference picture.
/// The result saturates at `i32::MAX`: 8.2.1 keeps conforming streams within
/// 32 bits, which only a stream of 2^30 frames without an IDR would leave.
pub fn pic_order_cnt(
    poc_type: u8,
    frames_since_idr: u64,
    abs_frame_num: u64,
    reference: bool,
) -> i32 {
    let poc = if poc_type == 0 {
        frames_since_idr.saturating_mul(2)
    } else {
        abs_frame_num
            .saturating_mul(2)
            .saturating_sub(u64::from(!reference))
    };
    i32::try_from(poc).unwrap_or(i32::MAX)
}
