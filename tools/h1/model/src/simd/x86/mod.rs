//! The x86_64 functions of the CPU levels' tables, one file per concern:
//! SSE2 intrinsics (every x86_64 processor has SSE2), AVX2 intrinsics, and
//! in `autovec` plain loops compiled a second time with AVX2 enabled.
//!
//! Each function the tables hold is safe to call. The AVX2 ones are safe
//! only on a CPU with AVX2, which their SAFETY comments take from the one
//! way to reach them: the AVX2 table, which `Dsp::for_level` hands out only
//! when the CPU has AVX2. This module is private to `simd` for that reason.

pub mod autovec;
pub mod average;
pub mod chroma;
pub mod deblock;
pub mod halfpel;
pub mod sa8d;
pub mod sad;
pub mod satd;
pub mod zero_check;
