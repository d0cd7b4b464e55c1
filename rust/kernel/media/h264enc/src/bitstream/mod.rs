// SPDX-License-Identifier: GPL-2.0-only
//! Bit-level reading and writing of RBSP data, and the emulation prevention stage.
//!
//! Writing an RBSP and escaping it into a NAL unit are separate stages (clause
//! 7.4.1): the writers produce raw RBSP bits, [`emulation`] inserts the
//! `emulation_prevention_three_byte`s.

pub mod emulation;
pub mod reader;
pub mod writer;

pub use reader::BitReader;
pub use writer::BitWriter;
