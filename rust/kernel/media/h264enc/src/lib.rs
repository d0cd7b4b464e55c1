// SPDX-License-Identifier: GPL-2.0-only
//! Kernel-ready core of a stateless H.264 encoder.
//!
//! The hardware (or its software model) codes macroblocks and writes slice
//! headers; this crate does everything else a stateless encoder driver needs:
//! it writes the SPS, PPS, AUD, SEI and filler NAL units, parses and verifies
//! what the hardware wrote, owns the stream state (GOP, frame_num, POC, DPB,
//! reference lists, long-term references) and runs rate control with an HRD
//! model. It is `no_std`, uses no `alloc`, no floating point and has no panic
//! path, so it builds as part of the kernel crate.

// In the kernel this file is the module `kernel::media::h264enc`, and the
// kernel crate is already `no_std` (`CONFIG_RUST` is the cfg Kbuild passes).
#![cfg_attr(not(CONFIG_RUST), no_std)]
#![deny(unsafe_code)]
#![forbid(unsafe_op_in_unsafe_fn)]
#![deny(clippy::float_arithmetic)]
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

pub mod access_unit;
pub mod bitstream;
pub mod cabac;
pub mod cabac_init;
pub mod capi;
pub mod config;
pub mod dpb;
pub mod encoder;
pub mod error;
pub mod gop;
pub mod level;
pub mod math;
pub mod nal;
pub mod plan;
pub mod poc;
pub mod pps;
pub mod rc;
pub mod sei;
pub mod skip;
pub mod slice_header;
pub mod sps;
pub mod stream;
pub mod verify;

pub use error::{Error, Result};

/// Panic handler of the freestanding staticlib that the symbol checks inspect.
///
/// The crate has no panic path; if one ever appears, the checks find
/// `core::panicking` in the staticlib and fail.
#[cfg(feature = "freestanding")]
#[panic_handler]
fn panic(_info: &core::panic::PanicInfo<'_>) -> ! {
    loop {}
}
