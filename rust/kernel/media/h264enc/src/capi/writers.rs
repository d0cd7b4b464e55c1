// SPDX-License-Identifier: GPL-2.0-only
//! The calls without a context: a filler NAL unit and the initial CABAC
//! context states, written into the caller's buffer.

use super::super::{cabac_init, sei};
use super::consts::{errno, EINVAL};

/// Writes a filler data NAL unit of exactly `size` bytes into `buf`.
///
/// - `buf`: where to write, usually right after the access unit.
/// - `len`: bytes of `buf`.
/// - `size`: bytes of the NAL unit, start code included, at least 6: the
///   [`FrameStatus::filler_bytes`](super::super::plan::FrameStatus::filler_bytes) of a
///   completed frame.
///
/// The NAL unit is a start code, the NAL header of filler data, 0xff bytes and
/// the stop bit.
///
/// # Safety
///
/// `buf` must be null or writable for `len` bytes and used by no other call
/// meanwhile.
///
/// # Context
///
/// Any context, hard IRQ included: it does not sleep, allocate or take locks.
/// It uses no context and no state, so it may run concurrently with any call.
///
/// # Return
///
/// `size`, or a negative errno: -EINVAL for a null `buf` or a `size` under 6,
/// -ENOSPC if `len` is less than `size`.
#[no_mangle]
pub unsafe extern "C" fn h264enc_write_filler(buf: *mut u8, len: usize, size: u32) -> i32 {
    if buf.is_null() {
        return EINVAL;
    }
    // SAFETY: the caller guarantees `buf` is writable for `len` bytes.
    let out = unsafe { core::slice::from_raw_parts_mut(buf, len) };
    match sei::write_filler(out, size as usize) {
        Ok(n) => n as i32,
        Err(e) => errno(e),
    }
}

/// Writes the initial CABAC context states of a slice into `states` (9.3.1.1).
///
/// - `intra`: true for the states of I slices, false for those of P slices.
/// - `cabac_init_idc`: cabac_init_idc of P slices, 0 to 2.
/// - `slice_qp`: SliceQP_Y, 0 to 51.
/// - `states`: the table to fill, one byte per ctxIdx 0 to 459.
/// - `len`: bytes of `states`, at least
///   [`H264ENC_CABAC_CONTEXTS`](super::H264ENC_CABAC_CONTEXTS).
///
/// Each byte is `pStateIdx << 1 | valMPS`, the form of hardware context tables.
///
/// # Safety
///
/// `states` must be null or writable for `len` bytes and used by no other call
/// meanwhile.
///
/// # Context
///
/// Any context, hard IRQ included: it does not sleep, allocate or take locks.
/// It uses no context and no state, so it may run concurrently with any call.
/// hantro calls it when streaming starts.
///
/// # Return
///
/// 0, or -EINVAL for a null `states`, an argument out of range or a `len`
/// under [`H264ENC_CABAC_CONTEXTS`](super::H264ENC_CABAC_CONTEXTS).
#[no_mangle]
pub unsafe extern "C" fn h264enc_cabac_init_states(
    intra: bool,
    cabac_init_idc: u8,
    slice_qp: u8,
    states: *mut u8,
    len: usize,
) -> i32 {
    if states.is_null() {
        return EINVAL;
    }
    // SAFETY: the caller guarantees `states` is writable for `len` bytes.
    let out = unsafe { core::slice::from_raw_parts_mut(states, len) };
    match cabac_init::init_states(intra, cabac_init_idc, slice_qp, out) {
        Ok(()) => 0,
        Err(e) => errno(e),
    }
}
