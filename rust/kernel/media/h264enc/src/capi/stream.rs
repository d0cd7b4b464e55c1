// SPDX-License-Identifier: GPL-2.0-only
//! The calls on a stream between its frames: its bit rate, the buffers and
//! slices the driver sizes from it, its totals and its reference pictures.

use super::super::dpb::DpbEntry;
use super::super::encoder::Stats;
use super::super::error::Error;
use super::consts::{errno, EINVAL};
use super::context::{encoder, Ctx};

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
///   returns -ENOENT, at most [`H264ENC_MAX_DPB`](super::H264ENC_MAX_DPB).
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
