// SPDX-License-Identifier: GPL-2.0-only
//! The constants of the C API, and the errno of a refused argument.
//!
//! cbindgen copies literal values into the header: the assertions below tie
//! each constant to the Rust definition it stands for.

use super::super::config::{frame_flags, rc_mode};
use super::super::error::Error;
use super::super::{cabac_init, dpb, encoder};

/// Most reference pictures
/// [`h264enc_get_dpb_entry`](super::h264enc_get_dpb_entry) reports
/// (V4L2_H264_NUM_DPB_ENTRIES).
pub const H264ENC_MAX_DPB: usize = 16;

/// Size in bytes of the storage of an encoder context.
pub const H264ENC_CTX_SIZE: usize = 2048;

/// 64-bit words of the private storage of a context, [`Ctx::storage`](super::Ctx::storage).
pub const H264ENC_CTX_STORAGE_WORDS: usize = 255;

/// Context variables in a table of
/// [`h264enc_cabac_init_states`](super::h264enc_cabac_init_states).
pub const H264ENC_CABAC_CONTEXTS: usize = 460;

/// Largest header block [`h264enc_write_headers`](super::h264enc_write_headers) writes.
pub const H264ENC_MAX_HEADER_BYTES: usize = 256;

/// Rate control: constant QP.
pub const H264ENC_RC_CQP: u8 = 0;
/// Rate control: constant bit rate.
pub const H264ENC_RC_CBR: u8 = 1;
/// Rate control: variable bit rate.
pub const H264ENC_RC_VBR: u8 = 2;
/// Rate control: the client gives every picture's QP.
pub const H264ENC_RC_CLIENT: u8 = 3;
/// Rate control: constant quality, with a peak over any one-second window.
pub const H264ENC_RC_CQ: u8 = 4;

// Plain values, not `1 << n`: cbindgen copies the expression into C, where
// checkpatch asks for BIT(n), which userspace does not have.
/// Frame flag: code an IDR picture.
pub const H264ENC_FRAME_FORCE_IDR: u32 = 0x1;
/// Frame flag: the client saw a scene change.
pub const H264ENC_FRAME_SCENE_CHANGE: u32 = 0x2;
/// Frame flag: predict from the picture named by
/// [`FrameParams::reference_ts`](super::super::config::FrameParams::reference_ts).
pub const H264ENC_FRAME_REFERENCE_TS: u32 = 0x4;
/// Frame flag: [`FrameParams::qp`](super::super::config::FrameParams::qp) holds the
/// picture's QP.
pub const H264ENC_FRAME_QP: u32 = 0x8;
/// Frame flag: mark the picture long-term, in place of the one held.
pub const H264ENC_FRAME_MARK_LONG_TERM: u32 = 0x10;

/// [`h264enc_replan_frame`](super::h264enc_replan_frame): code the frame again with the
/// new plan.
pub const H264ENC_REPLAN_CODE_AGAIN: i32 = 1;
/// [`h264enc_replan_frame`](super::h264enc_replan_frame): no coding fits; complete the
/// frame as a skipped picture with
/// [`h264enc_complete_skipped`](super::h264enc_complete_skipped).
pub const H264ENC_REPLAN_SKIP: i32 = 2;

// cbindgen needs literal values; these tie them to the Rust definitions.
// (The kernel's clippy 0.1.63 takes compile-time assertions for `assert!(true)`.)
#[allow(clippy::assertions_on_constants)]
const _: () = {
    assert!(H264ENC_MAX_HEADER_BYTES == encoder::MAX_HEADER_BYTES);
    assert!(H264ENC_CABAC_CONTEXTS == cabac_init::NUM_CONTEXTS);
    assert!(H264ENC_RC_CQP == rc_mode::CQP && H264ENC_RC_CBR == rc_mode::CBR);
    assert!(
        H264ENC_RC_VBR == rc_mode::VBR
            && H264ENC_RC_CLIENT == rc_mode::CLIENT
            && H264ENC_RC_CQ == rc_mode::CQ
    );
    assert!(H264ENC_FRAME_FORCE_IDR == frame_flags::FORCE_IDR);
    assert!(H264ENC_FRAME_SCENE_CHANGE == frame_flags::SCENE_CHANGE);
    assert!(H264ENC_FRAME_REFERENCE_TS == frame_flags::REFERENCE_TS);
    assert!(H264ENC_FRAME_QP == frame_flags::QP);
    assert!(H264ENC_FRAME_MARK_LONG_TERM == frame_flags::MARK_LONG_TERM);
    assert!(H264ENC_MAX_DPB == dpb::MAX_DPB);
};

/// Returns the negative errno a call reports for `e`.
pub(super) fn errno(e: Error) -> i32 {
    e.to_errno()
}

/// What a call returns for a null pointer, an uninitialized context or a
/// refused argument: -EINVAL.
pub(super) const EINVAL: i32 = -22;
