// SPDX-License-Identifier: GPL-2.0-only
//! NAL unit framing (clause 7.3.1) in Annex B byte-stream format (B.1).

use super::bitstream::emulation;
use super::error::{Error, Result};

/// nal_unit_type values the core writes or checks (Table 7-1).
pub mod nal_type {
    /// Coded slice of a non-IDR picture.
    pub const SLICE: u8 = 1;
    /// Coded slice of an IDR picture.
    pub const SLICE_IDR: u8 = 5;
    /// Supplemental enhancement information.
    pub const SEI: u8 = 6;
    /// Sequence parameter set.
    pub const SPS: u8 = 7;
    /// Picture parameter set.
    pub const PPS: u8 = 8;
    /// Access unit delimiter.
    pub const AUD: u8 = 9;
    /// Filler data.
    pub const FILLER: u8 = 12;
}

/// The four-byte start code the core puts before every NAL unit it writes.
pub const START_CODE: [u8; 4] = [0, 0, 0, 1];

/// Writes start code, NAL header and the escaped `rbsp` into `out`; returns the bytes written.
pub fn write_nal(out: &mut [u8], nal_ref_idc: u8, nal_unit_type: u8, rbsp: &[u8]) -> Result<usize> {
    if nal_ref_idc > 3 || nal_unit_type > 31 {
        return Err(Error::InvalidParam);
    }
    let head = out.get_mut(..5).ok_or(Error::NoSpace)?;
    let header = [0, 0, 0, 1, (nal_ref_idc << 5) | nal_unit_type];
    for (d, s) in head.iter_mut().zip(header.iter()) {
        *d = *s;
    }
    let body = out.get_mut(5..).ok_or(Error::NoSpace)?;
    // escape() writes at most body.len() bytes: 5 + n is at most out.len().
    let n = emulation::escape(rbsp, body)?;
    Ok(n.saturating_add(5))
}
