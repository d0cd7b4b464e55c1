// SPDX-License-Identifier: GPL-2.0-only
//! The context of a stream: the storage the driver allocates, the encoder it
//! holds, and [`h264enc_init`], which puts the encoder there.

use super::super::config::Config;
use super::super::encoder::Encoder;
use super::consts::{errno, EINVAL, H264ENC_CTX_SIZE, H264ENC_CTX_STORAGE_WORDS};
use core::mem::{align_of, size_of};

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

// cbindgen needs literal values; these tie them to the types.
// (The kernel's clippy 0.1.63 takes compile-time assertions for `assert!(true)`.)
#[allow(clippy::assertions_on_constants)]
const _: () = {
    assert!(size_of::<Ctx>() == H264ENC_CTX_SIZE);
    assert!(size_of::<Encoder>() <= H264ENC_CTX_SIZE - 8);
    assert!(align_of::<Encoder>() <= 8);
};

/// Returns the encoder of an initialized context.
///
/// # Safety
///
/// `ctx` must be null or point to a `Ctx` valid for reads and writes for the
/// returned lifetime, not accessed through any other reference meanwhile.
pub(super) unsafe fn encoder<'a>(ctx: *mut Ctx) -> Option<&'a mut Encoder> {
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
