// SPDX-License-Identifier: GPL-2.0-only

//! Media: logic shared by media drivers, in Rust.
//!
//! `h264enc` is also a Cargo crate of its own (`h264enc/Cargo.toml`), which
//! is where its tests live; inside the kernel crate it is this module, built
//! from the same files.

#[path = "h264enc/src/lib.rs"]
pub mod h264enc;
