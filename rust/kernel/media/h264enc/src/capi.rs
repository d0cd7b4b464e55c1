// SPDX-License-Identifier: GPL-2.0-only
//! The C API of the core, the only module with `unsafe` code.
//!
//! The C driver allocates a [`Ctx`] (its size is `H264ENC_CTX_SIZE`), calls
//! [`h264enc_init`], then per frame [`h264enc_plan_frame`],
//! [`h264enc_write_headers`] and [`h264enc_complete_frame`] (or
//! [`h264enc_abort_frame`]). Every function validates its pointers and
//! arguments and returns 0 or a positive count on success, a negative errno on
//! failure. The header `include/media/h264enc.h` is generated from this file
//! by cbindgen.
#![allow(unsafe_code)]

use super::cabac_init;
use super::config::{Config, FrameParams};
use super::dpb::DpbEntry;
use super::encoder::{Encoder, Stats};
use super::error::Error;
use super::plan::{FramePlan, FrameStatus, HwFeedback, Replanned};
use super::sei;
use core::mem::{align_of, size_of};

/// Most reference pictures [`h264enc_get_dpb_entry`] reports
/// (V4L2_H264_NUM_DPB_ENTRIES).
pub const H264ENC_MAX_DPB: usize = 16;

/// Size in bytes of the storage of an encoder context.
pub const H264ENC_CTX_SIZE: usize = 2048;

/// 64-bit words of the private storage of a context, [`Ctx::storage`].
pub const H264ENC_CTX_STORAGE_WORDS: usize = 255;

/// Context variables in a table of [`h264enc_cabac_init_states`].
pub const H264ENC_CABAC_CONTEXTS: usize = 460;

/// Largest header block [`h264enc_write_headers`] writes.
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
/// Frame flag: predict from the picture named by [`FrameParams::reference_ts`].
pub const H264ENC_FRAME_REFERENCE_TS: u32 = 0x4;
/// Frame flag: [`FrameParams::qp`] holds the picture's QP.
pub const H264ENC_FRAME_QP: u32 = 0x8;
/// Frame flag: mark the picture long-term, in place of the one held.
pub const H264ENC_FRAME_MARK_LONG_TERM: u32 = 0x10;

/// [`h264enc_replan_frame`]: code the frame again with the new plan.
pub const H264ENC_REPLAN_CODE_AGAIN: i32 = 1;
/// [`h264enc_replan_frame`]: no coding fits; complete the frame as a skipped
/// picture with [`h264enc_complete_skipped`].
pub const H264ENC_REPLAN_SKIP: i32 = 2;

/// Value of [`Ctx::magic`] once initialized ("h264encR").
const MAGIC: u64 = 0x6832_3634_656e_6352;

/// Storage of one encoder, allocated and owned by the C side.
///
/// The driver allocates [`H264ENC_CTX_SIZE`] bytes aligned to 8 (kzalloc()
/// memory is) and hands them to [`h264enc_init`]. There is no release call:
/// the core keeps no pointer to the storage and holds no resource, so the
/// driver frees it when the stream ends. The core has no global state.
///
/// Every call on a context uses it exclusively, the queries included: the
/// caller serializes all calls on one context. The hantro driver does so
/// through mem2mem, which runs one job at a time (plan, headers and abort in
/// device_run; complete and abort in the interrupt handler; abort in the
/// watchdog, which cancel_delayed_work() keeps apart from the handler), and
/// through start and stop streaming, which run under its queue lock with no
/// job in flight. Calls on distinct contexts may run concurrently.
#[repr(C, align(8))]
pub struct Ctx {
    /// Private to the core: set by [`h264enc_init`]; other calls refuse a context without it.
    pub magic: u64,
    /// Private to the core: the encoder state.
    pub storage: [u64; H264ENC_CTX_STORAGE_WORDS],
}

// cbindgen needs literal values; these tie them to the Rust definitions.
// (The kernel's clippy 0.1.63 takes compile-time assertions for `assert!(true)`.)
#[allow(clippy::assertions_on_constants)]
const _: () = {
    assert!(size_of::<Ctx>() == H264ENC_CTX_SIZE);
    assert!(H264ENC_MAX_HEADER_BYTES == super::encoder::MAX_HEADER_BYTES);
    assert!(H264ENC_CABAC_CONTEXTS == cabac_init::NUM_CONTEXTS);
    assert!(
        H264ENC_RC_CQP == super::config::rc_mode::CQP
            && H264ENC_RC_CBR == super::config::rc_mode::CBR
    );
    assert!(
        H264ENC_RC_VBR == super::config::rc_mode::VBR
            && H264ENC_RC_CLIENT == super::config::rc_mode::CLIENT
            && H264ENC_RC_CQ == super::config::rc_mode::CQ
    );
    assert!(H264ENC_FRAME_FORCE_IDR == super::config::frame_flags::FORCE_IDR);
    assert!(H264ENC_FRAME_SCENE_CHANGE == super::config::frame_flags::SCENE_CHANGE);
    assert!(H264ENC_FRAME_REFERENCE_TS == super::config::frame_flags::REFERENCE_TS);
    assert!(H264ENC_FRAME_QP == super::config::frame_flags::QP);
    assert!(H264ENC_FRAME_MARK_LONG_TERM == super::config::frame_flags::MARK_LONG_TERM);
    assert!(size_of::<Encoder>() <= H264ENC_CTX_SIZE - 8);
    assert!(H264ENC_MAX_DPB == super::dpb::MAX_DPB);
    assert!(align_of::<Encoder>() <= 8);
};

fn errno(e: Error) -> i32 {
    e.to_errno()
}

const EINVAL: i32 = -22;

/// Returns the encoder of an initialized context.
///
/// # Safety
///
/// `ctx` must be null or point to a `Ctx` valid for reads and writes for the
/// returned lifetime, not accessed through any other reference meanwhile.
unsafe fn encoder<'a>(ctx: *mut Ctx) -> Option<&'a mut Encoder> {
    // SAFETY: the caller guarantees `ctx` is null or valid and unaliased.
    let ctx = unsafe { ctx.as_mut()? };
    if ctx.magic != MAGIC {
        return None;
    }
    let p = ctx.storage.as_mut_ptr() as *mut Encoder;
    // SAFETY: `storage` is 8-byte aligned, large enough (asserted above) and,
    // with the magic set, holds the `Encoder` written by `h264enc_init`.
    Some(unsafe { &mut *p })
}

/// Initializes a context for the stream configuration `cfg`.
///
/// - `ctx`: storage of [`H264ENC_CTX_SIZE`] bytes aligned to 8, allocated by
///   the caller; its contents are ignored, so a context may be initialized
///   again.
/// - `cfg`: the configuration, read during the call only.
///
/// Checks `cfg` and writes the encoder state into `ctx`, which the other calls
/// then accept. On failure `ctx` is left uninitialized: the other calls refuse
/// it.
///
/// # Safety
///
/// `ctx` must be null or point to such storage, writable and used by no other
/// call meanwhile; `cfg` must be null or point to a readable [`Config`].
///
/// # Context
///
/// Process context (hantro calls it when streaming starts): it does not sleep
/// or allocate, but it is the call with the large stack frame (it builds the
/// encoder state on the stack), so it is kept out of interrupt context.
/// The caller serializes it with every other call on `ctx`; calls on distinct
/// contexts may run concurrently.
///
/// # Return
///
/// 0, or a negative errno: -EINVAL for a null pointer or a configuration the
/// core does not support.
#[no_mangle]
pub unsafe extern "C" fn h264enc_init(ctx: *mut Ctx, cfg: *const Config) -> i32 {
    // SAFETY: the caller guarantees the pointers are null or valid.
    let (ctx, cfg) = match unsafe { (ctx.as_mut(), cfg.as_ref()) } {
        (Some(c), Some(f)) => (c, f),
        _ => return EINVAL,
    };
    ctx.magic = 0;
    let enc = match Encoder::new(cfg) {
        Ok(e) => e,
        Err(e) => return errno(e),
    };
    let p = ctx.storage.as_mut_ptr() as *mut Encoder;
    // SAFETY: `storage` is aligned and large enough for an `Encoder` (asserted
    // above); writing does not read the old, possibly uninitialized, contents.
    unsafe { p.write(enc) };
    ctx.magic = MAGIC;
    0
}

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
/// `ctx` must be null or a context passed to [`h264enc_init`], `params` null or
/// readable and `plan` null or writable, each used by no other call meanwhile.
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
/// - `len`: bytes of `buf`; [`H264ENC_MAX_HEADER_BYTES`] are always enough.
///
/// The headers are, each with its start code: the access unit delimiter (with
/// [`Config::aud`]), SPS and PPS (with [`FramePlan::with_parameter_sets`]) and,
/// in CBR and VBR streams, the SEI of the HRD (buffering period on IDR
/// pictures, picture timing).
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
/// among the errors of [`h264enc_get_stats`].
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

/// Changes the bit rate of a stream with HRD parameters (CBR or VBR).
///
/// - `ctx`: an initialized context with no frame planned.
/// - `bitrate`: the new target bit rate, bits/s.
/// - `max_bitrate`: the new peak bit rate, bits/s (VBR; CBR uses `bitrate`).
///
/// The next picture is an IDR picture whose SPS carries the new HRD parameters.
///
/// # Safety
///
/// `ctx` must be null or an initialized context used by no other call
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
/// 0, or a negative errno: -EINVAL for a null pointer, an uninitialized
/// context, a stream without HRD parameters or a bit rate the HRD cannot
/// signal, -EBUSY if a frame is planned.
#[no_mangle]
pub unsafe extern "C" fn h264enc_set_bitrate(ctx: *mut Ctx, bitrate: u32, max_bitrate: u32) -> i32 {
    // SAFETY: the caller guarantees `ctx` is null or valid.
    match unsafe { encoder(ctx) } {
        Some(e) => e
            .set_bitrate(bitrate, max_bitrate)
            .map_or_else(errno, |()| 0),
        None => EINVAL,
    }
}

/// Returns the number of reconstruction buffers the driver must provide.
///
/// - `ctx`: an initialized context.
///
/// The plans name these buffers by slot, from 0 to the number minus 1.
///
/// # Safety
///
/// `ctx` must be null or an initialized context used by no other call
/// meanwhile.
///
/// # Context
///
/// Any context, hard IRQ included: it does not sleep, allocate or take locks.
/// It only reads `ctx`, but takes it exclusively like every call on a context:
/// the caller serializes it with every other call on `ctx`; calls on distinct
/// contexts may run concurrently.
///
/// # Return
///
/// The number of buffers (at most 17), or -EINVAL for a null pointer or an
/// uninitialized context.
#[no_mangle]
pub unsafe extern "C" fn h264enc_num_rec_slots(ctx: *mut Ctx) -> i32 {
    // SAFETY: the caller guarantees `ctx` is null or valid.
    match unsafe { encoder(ctx) } {
        Some(e) => i32::from(e.num_slots()),
        None => EINVAL,
    }
}

/// Returns the number of slices per picture the hardware is expected to write.
///
/// - `ctx`: an initialized context.
///
/// # Safety
///
/// `ctx` must be null or an initialized context used by no other call
/// meanwhile.
///
/// # Context
///
/// Any context, hard IRQ included: it does not sleep, allocate or take locks.
/// It only reads `ctx`, but takes it exclusively like every call on a context:
/// the caller serializes it with every other call on `ctx`; calls on distinct
/// contexts may run concurrently.
///
/// # Return
///
/// The number of slices (at least 1), or -EINVAL for a null pointer or an
/// uninitialized context.
#[no_mangle]
pub unsafe extern "C" fn h264enc_slices_per_picture(ctx: *mut Ctx) -> i32 {
    // SAFETY: the caller guarantees `ctx` is null or valid.
    match unsafe { encoder(ctx) } {
        Some(e) => e.slices_per_picture() as i32,
        None => EINVAL,
    }
}

/// Copies the running totals of a context into `stats`.
///
/// - `ctx`: an initialized context.
/// - `stats`: filled with the totals on success.
///
/// # Safety
///
/// `ctx` must be null or an initialized context and `stats` null or writable,
/// each used by no other call meanwhile.
///
/// # Context
///
/// Any context, hard IRQ included: it does not sleep, allocate or take locks.
/// It only reads `ctx`, but takes it exclusively like every call on a context:
/// the caller serializes it with every other call on `ctx`; calls on distinct
/// contexts may run concurrently.
///
/// # Return
///
/// 0, or -EINVAL for a null pointer or an uninitialized context.
#[no_mangle]
pub unsafe extern "C" fn h264enc_get_stats(ctx: *mut Ctx, stats: *mut Stats) -> i32 {
    // SAFETY: the caller guarantees the pointers are null or valid.
    match unsafe { (encoder(ctx), stats.as_mut()) } {
        (Some(e), Some(s)) => {
            *s = e.stats();
            0
        }
        _ => EINVAL,
    }
}

/// Copies the `index`-th reference picture of the DPB into `entry`.
///
/// - `ctx`: an initialized context.
/// - `index`: 0 for the first; the entries end at the first index that
///   returns -ENOENT, at most [`H264ENC_MAX_DPB`].
/// - `entry`: filled with the picture on success.
///
/// The DPB is the one after the marking of the last completed frame: the
/// pictures a client may name as the reference of the next ones.
///
/// # Safety
///
/// `ctx` must be null or an initialized context and `entry` null or writable,
/// each used by no other call meanwhile.
///
/// # Context
///
/// Any context, hard IRQ included: it does not sleep, allocate or take locks.
/// It only reads `ctx`, but takes it exclusively like every call on a context:
/// the caller serializes it with every other call on `ctx`; calls on distinct
/// contexts may run concurrently.
///
/// # Return
///
/// 0, or a negative errno: -EINVAL for a null pointer or an uninitialized
/// context, -ENOENT when the DPB holds no more pictures.
#[no_mangle]
pub unsafe extern "C" fn h264enc_get_dpb_entry(
    ctx: *mut Ctx,
    index: u32,
    entry: *mut DpbEntry,
) -> i32 {
    // SAFETY: the caller guarantees the pointers are null or valid.
    match unsafe { (encoder(ctx), entry.as_mut()) } {
        (Some(e), Some(out)) => match e.dpb_entry(index as usize) {
            Some(d) => {
                *out = d;
                0
            }
            None => errno(Error::NoReference),
        },
        _ => EINVAL,
    }
}

/// Writes a filler data NAL unit of exactly `size` bytes into `buf`.
///
/// - `buf`: where to write, usually right after the access unit.
/// - `len`: bytes of `buf`.
/// - `size`: bytes of the NAL unit, start code included, at least 6: the
///   [`FrameStatus::filler_bytes`] of a completed frame.
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
/// - `len`: bytes of `states`, at least [`H264ENC_CABAC_CONTEXTS`].
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
/// under [`H264ENC_CABAC_CONTEXTS`].
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
