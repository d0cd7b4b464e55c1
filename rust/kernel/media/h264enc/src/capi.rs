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
use super::encoder::{Encoder, Stats};
use super::error::Error;
use super::plan::{FramePlan, FrameStatus, HwFeedback};
use super::sei;
use core::mem::{align_of, size_of};

/// Size in bytes of the storage of an encoder context.
pub const H264ENC_CTX_SIZE: usize = 2048;

/// 64-bit words of [`Ctx::storage`].
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

/// Frame flag: code an IDR picture.
pub const H264ENC_FRAME_FORCE_IDR: u32 = 1 << 0;
/// Frame flag: the client saw a scene change.
pub const H264ENC_FRAME_SCENE_CHANGE: u32 = 1 << 1;
/// Frame flag: predict from the picture named by `reference_ts`.
pub const H264ENC_FRAME_REFERENCE_TS: u32 = 1 << 2;
/// Frame flag: `qp` holds the picture's QP.
pub const H264ENC_FRAME_QP: u32 = 1 << 3;

/// Value of [`Ctx::magic`] once initialized ("h264encR").
const MAGIC: u64 = 0x6832_3634_656e_6352;

/// Storage of one encoder, allocated and owned by the C side.
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
    );
    assert!(H264ENC_FRAME_FORCE_IDR == super::config::frame_flags::FORCE_IDR);
    assert!(H264ENC_FRAME_SCENE_CHANGE == super::config::frame_flags::SCENE_CHANGE);
    assert!(H264ENC_FRAME_REFERENCE_TS == super::config::frame_flags::REFERENCE_TS);
    assert!(H264ENC_FRAME_QP == super::config::frame_flags::QP);
    assert!(size_of::<Encoder>() <= H264ENC_CTX_SIZE - 8);
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

/// Initializes `ctx` for the configuration `cfg`.
///
/// # Safety
///
/// `ctx` must point to writable storage of `H264ENC_CTX_SIZE` bytes aligned to
/// 8, and `cfg` to a readable `struct h264enc_config`; either may be null (-EINVAL).
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
/// # Safety
///
/// `ctx` must be a context passed to `h264enc_init`, `params` readable and
/// `plan` writable; null pointers give -EINVAL.
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

/// Writes the header NAL units of the planned frame into `buf`; returns their size.
///
/// # Safety
///
/// `ctx` must be an initialized context and `buf` writable for `len` bytes.
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

/// Completes the planned frame from the hardware feedback `fb`, the slice NAL
/// units in `stream` and the NAL size table `nal_sizes`; fills `status`.
///
/// # Safety
///
/// `ctx` must be an initialized context, `fb` readable, `stream` readable for
/// `stream_len` bytes, `nal_sizes` readable for `num_nals` entries and `status`
/// writable.
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
    if stream.is_null() || nal_sizes.is_null() || num_nals > 1024 {
        return EINVAL;
    }
    // SAFETY: the caller guarantees every pointer is valid for the given lengths.
    let (enc, fb, status, stream, nals) = match unsafe {
        (
            encoder(ctx),
            fb.as_ref(),
            status.as_mut(),
            core::slice::from_raw_parts(stream, stream_len),
            core::slice::from_raw_parts(nal_sizes, num_nals as usize),
        )
    } {
        (Some(e), Some(f), Some(s), st, n) => (e, f, s, st, n),
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

/// Drops the planned frame after a hardware error; the stream state is unchanged.
///
/// # Safety
///
/// `ctx` must be an initialized context.
#[no_mangle]
pub unsafe extern "C" fn h264enc_abort_frame(ctx: *mut Ctx) -> i32 {
    // SAFETY: the caller guarantees `ctx` is null or valid.
    match unsafe { encoder(ctx) } {
        Some(e) => e.abort_frame().map_or_else(errno, |_| 0),
        None => EINVAL,
    }
}

/// Changes the bit rate; the next picture is an IDR carrying the new HRD parameters.
///
/// # Safety
///
/// `ctx` must be an initialized context.
#[no_mangle]
pub unsafe extern "C" fn h264enc_set_bitrate(ctx: *mut Ctx, bitrate: u32, max_bitrate: u32) -> i32 {
    // SAFETY: the caller guarantees `ctx` is null or valid.
    match unsafe { encoder(ctx) } {
        Some(e) => e
            .set_bitrate(bitrate, max_bitrate)
            .map_or_else(errno, |_| 0),
        None => EINVAL,
    }
}

/// Returns the number of reconstruction buffers the driver must provide.
///
/// # Safety
///
/// `ctx` must be an initialized context.
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
/// # Safety
///
/// `ctx` must be an initialized context.
#[no_mangle]
pub unsafe extern "C" fn h264enc_slices_per_picture(ctx: *mut Ctx) -> i32 {
    // SAFETY: the caller guarantees `ctx` is null or valid.
    match unsafe { encoder(ctx) } {
        Some(e) => e.slices_per_picture() as i32,
        None => EINVAL,
    }
}

/// Copies the running totals into `stats`.
///
/// # Safety
///
/// `ctx` must be an initialized context and `stats` writable.
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

/// Writes a filler data NAL unit of exactly `size` bytes into `buf` (of `len` bytes).
///
/// # Safety
///
/// `buf` must be writable for `len` bytes.
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
/// One byte per ctxIdx 0 to 459, `pStateIdx << 1 | valMPS`: those of I slices
/// when `intra`, else those of `cabac_init_idc` (0 to 2), for SliceQP_Y
/// `slice_qp` (0 to 51). Returns 0, or -EINVAL for a bad argument or a buffer
/// shorter than `H264ENC_CABAC_CONTEXTS` bytes.
///
/// # Safety
///
/// `states` must be writable for `len` bytes.
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
