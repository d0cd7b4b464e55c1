// SPDX-License-Identifier: GPL-2.0-only
//! A frame's calls, from its plan to its end: plan, header NAL units, the
//! decision to code it again, completion (or completion as a skipped
//! picture), abort.

use super::super::config::FrameParams;
use super::super::plan::{FramePlan, FrameStatus, HwFeedback, Replanned};
use super::consts::{errno, EINVAL, H264ENC_REPLAN_CODE_AGAIN, H264ENC_REPLAN_SKIP};
use super::context::{encoder, Ctx};

/// Plans the next frame from its parameters `params` into `plan`.
///
/// - `ctx`: an initialized context with no frame planned.
/// - `params`: the parameters of the frame, read during the call only.
/// - `plan`: filled on success with what the driver programs the hardware from.
///
/// Decides the picture type, its references and its QP. The frame stays
/// planned until [`h264enc_complete_frame`] or [`h264enc_abort_frame`].
///
/// # Safety
///
/// `ctx` must be null or a context passed to
/// [`h264enc_init`](super::h264enc_init), `params` null or readable and `plan`
/// null or writable, each used by no other call meanwhile.
///
/// # Context
///
/// Any context, hard IRQ included: it does not sleep, allocate or take locks.
/// hantro calls it from device_run. The caller serializes it with every other
/// call on `ctx`; calls on distinct contexts may run concurrently.
///
/// # Return
///
/// 0, or a negative errno: -EINVAL for a null pointer, an uninitialized
/// context or bad parameters, -EBUSY if a frame is already planned, -ENOENT if
/// the reference `params` names is not in the DPB, -EOVERFLOW if a counter
/// would wrap.
#[no_mangle]
pub unsafe extern "C" fn h264enc_plan_frame(
    ctx: *mut Ctx,
    params: *const FrameParams,
    plan: *mut FramePlan,
) -> i32 {
    // SAFETY: the caller guarantees the pointers are null or valid and unaliased.
    let (enc, params, plan) = match unsafe { (encoder(ctx), params.as_ref(), plan.as_mut()) } {
        (Some(e), Some(p), Some(o)) => (e, p, o),
        _ => return EINVAL,
    };
    match enc.plan_frame(params) {
        Ok(p) => {
            *plan = p;
            0
        }
        Err(e) => errno(e),
    }
}

/// Writes the header NAL units of the planned frame into `buf`.
///
/// - `ctx`: a context with a planned frame.
/// - `buf`: where the access unit starts; the hardware's slices follow the
///   headers.
/// - `len`: bytes of `buf`;
///   [`H264ENC_MAX_HEADER_BYTES`](super::H264ENC_MAX_HEADER_BYTES) are always enough.
///
/// The headers are, each with its start code: the access unit delimiter (with
/// [`Config::aud`](super::super::config::Config::aud)), SPS and PPS (with
/// [`FramePlan::with_parameter_sets`]) and, in CBR and VBR streams, the SEI of
/// the HRD (buffering period on IDR pictures, picture timing).
///
/// # Safety
///
/// `ctx` must be null or an initialized context, and `buf` null or writable for
/// `len` bytes, each used by no other call meanwhile.
///
/// # Context
///
/// Any context, hard IRQ included: it does not sleep, allocate or take locks.
/// hantro calls it from device_run. The caller serializes it with every other
/// call on `ctx`; calls on distinct contexts may run concurrently.
///
/// # Return
///
/// The number of bytes written, or a negative errno: -EINVAL for a null
/// pointer or an uninitialized context, -EBUSY if no frame is planned,
/// -ENOSPC if `len` is too small.
#[no_mangle]
pub unsafe extern "C" fn h264enc_write_headers(ctx: *mut Ctx, buf: *mut u8, len: usize) -> i32 {
    if buf.is_null() {
        return EINVAL;
    }
    // SAFETY: the caller guarantees `ctx` is null or valid and `buf` writable for `len` bytes.
    let (enc, out) = match unsafe { (encoder(ctx), core::slice::from_raw_parts_mut(buf, len)) } {
        (Some(e), o) => (e, o),
        _ => return EINVAL,
    };
    match enc.write_headers(out) {
        Ok(n) => n as i32,
        Err(e) => errno(e),
    }
}

/// What the hardware wrote, as slices: the stream and its NAL size table;
/// `None` for a null pointer or more than 1024 NAL units.
///
/// # Safety
///
/// `stream` must be null or readable for `stream_len` bytes and `nal_sizes`
/// null or readable for `num_nals` entries, for `'a`.
unsafe fn hw_output<'a>(
    stream: *const u8,
    stream_len: usize,
    nal_sizes: *const u32,
    num_nals: u32,
) -> Option<(&'a [u8], &'a [u32])> {
    if stream.is_null() || nal_sizes.is_null() || num_nals > 1024 {
        return None;
    }
    // SAFETY: both pointers are non-null, and the caller guarantees their lengths.
    Some(unsafe {
        (
            core::slice::from_raw_parts(stream, stream_len),
            core::slice::from_raw_parts(nal_sizes, num_nals as usize),
        )
    })
}

/// Decides whether to code the planned frame again, from the feedback of a
/// hardware run of it.
///
/// - `ctx`: a context with a planned frame.
/// - `fb`: the feedback the driver read from the hardware's registers.
/// - `stream`: the slice NAL units the hardware wrote, start codes included.
/// - `stream_len`: bytes of `stream`.
/// - `nal_sizes`: the hardware's NAL size table, one entry per NAL unit.
/// - `num_nals`: entries of `nal_sizes`, at most 1024.
/// - `plan`: on [`H264ENC_REPLAN_CODE_AGAIN`], the new plan to program in
///   full, headers ([`h264enc_write_headers`]) included; on
///   [`H264ENC_REPLAN_SKIP`], the plan of the skipped picture.
///
/// The coding is verified first, as [`h264enc_complete_frame`] does: output
/// that disagrees with the plan drops the frame as it does there.
///
/// A CBR or VBR picture that would underflow the CPB (a scene cut in a P
/// picture with a low-delay buffer) is coded again at a coarser QP, and a P
/// picture that was a scene cut is coded again as an IDR picture (new
/// headers too: the driver writes them again), up to three runs in all;
/// [`FrameStatus::passes`] reports the runs it took. A P picture (or a cut's
/// IDR picture's P picture) that no run fits is skipped: a copy of its reference.
///
/// # Safety
///
/// `ctx` must be null or an initialized context, `fb` null or readable,
/// `stream` null or readable for `stream_len` bytes, `nal_sizes` null or
/// readable for `num_nals` entries and `plan` null or writable, each used by
/// no other call meanwhile.
///
/// # Context
///
/// Any context, hard IRQ included: it does not sleep, allocate or take locks.
/// hantro calls it from its done work item. The caller serializes it with
/// every other call on `ctx`; calls on distinct contexts may run concurrently.
///
/// # Return
///
/// [`H264ENC_REPLAN_CODE_AGAIN`] when the frame is to be coded again with
/// `*plan`, [`H264ENC_REPLAN_SKIP`] to complete it with
/// [`h264enc_complete_skipped`], 0 to complete it with
/// [`h264enc_complete_frame`], or a negative errno: -EINVAL for a null pointer,
/// an uninitialized context or more than 1024 NAL units, -EBUSY if no frame is
/// planned, and for output that disagrees with the plan (the frame is then
/// dropped) -EPROTO, -EBADMSG, -ENODATA or -EOVERFLOW.
#[no_mangle]
pub unsafe extern "C" fn h264enc_replan_frame(
    ctx: *mut Ctx,
    fb: *const HwFeedback,
    stream: *const u8,
    stream_len: usize,
    nal_sizes: *const u32,
    num_nals: u32,
    plan: *mut FramePlan,
) -> i32 {
    // SAFETY: the caller guarantees every pointer is null or valid for the
    // given lengths.
    let (enc, fb, plan, (stream, nals)) = match unsafe {
        (
            encoder(ctx),
            fb.as_ref(),
            plan.as_mut(),
            hw_output(stream, stream_len, nal_sizes, num_nals),
        )
    } {
        (Some(e), Some(f), Some(p), Some(o)) => (e, f, p, o),
        _ => return EINVAL,
    };
    match enc.replan_frame(fb, stream, nals) {
        Ok(Replanned::CodeAgain(p)) => {
            *plan = p;
            H264ENC_REPLAN_CODE_AGAIN
        }
        Ok(Replanned::Skip(p)) => {
            *plan = p;
            H264ENC_REPLAN_SKIP
        }
        Ok(Replanned::Complete) => 0,
        Err(e) => errno(e),
    }
}

/// Completes the planned frame from what the hardware wrote and reported.
///
/// - `ctx`: a context with a planned frame.
/// - `fb`: the feedback the driver read from the hardware's registers.
/// - `stream`: the slice NAL units the hardware wrote, start codes included.
/// - `stream_len`: bytes of `stream`.
/// - `nal_sizes`: the hardware's NAL size table, one entry per NAL unit.
/// - `num_nals`: entries of `nal_sizes`, at most 1024.
/// - `status`: filled on success with what the driver reports for the frame.
///
/// Checks the slice headers against the plan and the NAL size table against
/// the stream, then updates the reference pictures, the rate control and the
/// HRD model. If the hardware's output is refused, the frame is dropped as by
/// [`h264enc_abort_frame`]: the stream state stays as before it was planned.
///
/// # Safety
///
/// `ctx` must be null or an initialized context, `fb` null or readable,
/// `stream` null or readable for `stream_len` bytes, `nal_sizes` null or
/// readable for `num_nals` entries and `status` null or writable, each used by
/// no other call meanwhile.
///
/// # Context
///
/// Any context, hard IRQ included: it does not sleep, allocate or take locks.
/// The caller serializes it with every other call on `ctx`; calls on distinct
/// contexts may run concurrently.
///
/// # Return
///
/// 0, or a negative errno: -EINVAL for a null pointer, an uninitialized
/// context or more than 1024 NAL units, -EBUSY if no frame is planned, and for
/// output that disagrees with the plan -EPROTO, -EBADMSG, -ENODATA or
/// -EOVERFLOW.
#[no_mangle]
pub unsafe extern "C" fn h264enc_complete_frame(
    ctx: *mut Ctx,
    fb: *const HwFeedback,
    stream: *const u8,
    stream_len: usize,
    nal_sizes: *const u32,
    num_nals: u32,
    status: *mut FrameStatus,
) -> i32 {
    // SAFETY: the caller guarantees every pointer is null or valid for the
    // given lengths.
    let (enc, fb, status, (stream, nals)) = match unsafe {
        (
            encoder(ctx),
            fb.as_ref(),
            status.as_mut(),
            hw_output(stream, stream_len, nal_sizes, num_nals),
        )
    } {
        (Some(e), Some(f), Some(s), Some(o)) => (e, f, s, o),
        _ => return EINVAL,
    };
    match enc.complete_frame(fb, stream, nals) {
        Ok(s) => {
            *status = s;
            0
        }
        Err(e) => errno(e),
    }
}

/// Completes the planned frame as the skipped picture that
/// [`h264enc_replan_frame`] chose.
///
/// - `ctx`: a context whose last replan returned [`H264ENC_REPLAN_SKIP`].
/// - `buf`: where the access unit goes: the start of the CAPTURE buffer.
/// - `len`: bytes of `buf`.
/// - `status`: filled on success with what the driver reports for the frame.
///
/// Writes the whole access unit again (the headers, then one slice of
/// P_Skip macroblocks) and moves the stream state on as
/// [`h264enc_complete_frame`] does. The picture is a copy of the plan's
/// `ref_slot`: the driver copies that reconstruction to `rec_slot`. When the
/// access unit does not fit `buf`, the frame is dropped as by
/// [`h264enc_abort_frame`]; a refused argument leaves it planned.
///
/// # Safety
///
/// `ctx` must be null or an initialized context, `buf` null or writable for
/// `len` bytes and `status` null or writable, each used by no other call
/// meanwhile.
///
/// # Context
///
/// Any context, hard IRQ included: it does not sleep, allocate or take locks.
/// The caller serializes it with every other call on `ctx`; calls on distinct
/// contexts may run concurrently.
///
/// # Return
///
/// The bytes written, without the filler of `status->filler_bytes`, or a
/// negative errno: -EINVAL for a null pointer or an uninitialized context,
/// -EBUSY if no frame is planned as a skipped picture, -ENOSPC if `buf`
/// cannot hold the access unit.
#[no_mangle]
pub unsafe extern "C" fn h264enc_complete_skipped(
    ctx: *mut Ctx,
    buf: *mut u8,
    len: usize,
    status: *mut FrameStatus,
) -> i32 {
    if buf.is_null() {
        return EINVAL;
    }
    // SAFETY: the caller guarantees every pointer is null or valid, and
    // `buf` (not null) writable for `len` bytes.
    let (enc, status, out) = match unsafe {
        (
            encoder(ctx),
            status.as_mut(),
            core::slice::from_raw_parts_mut(buf, len),
        )
    } {
        (Some(e), Some(s), o) => (e, s, o),
        _ => return EINVAL,
    };
    match enc.complete_skipped(out) {
        Ok((n, s)) => {
            *status = s;
            i32::try_from(n).unwrap_or(i32::MAX)
        }
        Err(e) => errno(e),
    }
}

/// Drops the planned frame after a hardware error or a timeout.
///
/// - `ctx`: a context with a planned frame.
///
/// The stream state stays as before the frame was planned; the frame counts
/// among the errors of [`h264enc_get_stats`](super::h264enc_get_stats).
///
/// # Safety
///
/// `ctx` must be null or an initialized context used by no other call
/// meanwhile.
///
/// # Context
///
/// Any context, hard IRQ included: it does not sleep, allocate or take locks.
/// hantro calls it from device_run, its interrupt handler and its
/// watchdog. The caller serializes it with every other call on `ctx`; calls on
/// distinct contexts may run concurrently.
///
/// # Return
///
/// 0, or a negative errno: -EINVAL for a null pointer or an uninitialized
/// context, -EBUSY if no frame is planned.
#[no_mangle]
pub unsafe extern "C" fn h264enc_abort_frame(ctx: *mut Ctx) -> i32 {
    // SAFETY: the caller guarantees `ctx` is null or valid.
    match unsafe { encoder(ctx) } {
        Some(e) => e.abort_frame().map_or_else(errno, |()| 0),
        None => EINVAL,
    }
}
