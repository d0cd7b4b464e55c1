// SPDX-License-Identifier: GPL-2.0-only

//! Media subsystem: Rust code of media drivers and their shared libraries.
//!
//! The module exists when the media subsystem does (`CONFIG_MEDIA_SUPPORT`),
//! and each library in it under its own option, so the V4L2 abstractions and
//! the codec libraries can be added here in any order.
//!
//! `h264enc` is also a Cargo crate of its own (`h264enc/Cargo.toml`), which
//! is where its tests live; inside the kernel crate it is this module, built
//! from the same files.

#[cfg(CONFIG_MEDIA_H264ENC_CORE)]
#[path = "h264enc/src/lib.rs"]
pub mod h264enc;
