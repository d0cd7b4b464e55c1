// SPDX-License-Identifier: GPL-2.0-only
//! The C API of the core, the only module with `unsafe` code.
//!
//! The C driver allocates a [`Ctx`] (its size is `H264ENC_CTX_SIZE`), calls
//! [`h264enc_init`], then per frame [`h264enc_plan_frame`],
//! [`h264enc_write_headers`] and [`h264enc_complete_frame`] (or
//! [`h264enc_abort_frame`]). Every function validates its pointers and
//! arguments and returns 0 or a positive count on success, a negative errno on
//! failure. The header `include/media/h264enc.h` is generated from these files
//! by cbindgen, which lists their items in the order of the modules below:
//! the constants, the context, a frame's calls, the stream's, and the calls
//! without a context.
#![allow(unsafe_code)]

mod consts;
mod context;
mod frame;
mod stream;
mod writers;

pub use consts::*;
pub use context::*;
pub use frame::*;
pub use stream::*;
pub use writers::*;
