// SPDX-License-Identifier: GPL-2.0-only
//! SEI messages of Annex D the encoder signals its HRD with, AUD and filler data.

use super::bitstream::BitWriter;
use super::error::{Error, Result};
use super::nal::{nal_type, write_nal};

/// Lengths of the HRD delay fields (E.1.2), in bits.
pub const DELAY_LENGTH: u32 = 24;

/// Writes an access unit delimiter (7.3.2.4) for I (`intra_only`) or I/P pictures.
pub fn write_aud(out: &mut [u8], intra_only: bool) -> Result<usize> {
    let primary_pic_type: u8 = if intra_only { 0 } else { 1 };
    write_nal(out, 0, nal_type::AUD, &[(primary_pic_type << 5) | 0x10])
}

/// Writes a filler data NAL unit (7.3.2.7) of exactly `size` bytes, start code included.
pub fn write_filler(out: &mut [u8], size: usize) -> Result<usize> {
    // Start code, header, at least the trailing byte.
    if size < 6 {
        return Err(Error::InvalidParam);
    }
    let dst = out.get_mut(..size).ok_or(Error::NoSpace)?;
    dst.fill(0xff);
    for (d, s) in dst.iter_mut().zip([0, 0, 0, 1, nal_type::FILLER].iter()) {
        *d = *s;
    }
    if let Some(last) = dst.last_mut() {
        *last = 0x80;
    }
    Ok(size)
}

/// Timing of one access unit for the buffering period and picture timing SEI.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SeiTiming {
    /// seq_parameter_set_id.
    pub sps_id: u8,
    /// Some(initial_cpb_removal_delay, offset) in 90 kHz units on buffering-period pictures.
    pub buffering_period: Option<(u32, u32)>,
    /// cpb_removal_delay in clock ticks since the last buffering period.
    pub cpb_removal_delay: u32,
    /// dpb_output_delay in clock ticks.
    pub dpb_output_delay: u32,
}

fn put_payload_header(bw: &mut BitWriter<'_>, payload_type: u32, size: u32) -> Result {
    let mut t = payload_type;
    while t >= 255 {
        bw.put_bits(8, 255)?;
        t -= 255;
    }
    bw.put_bits(8, t)?;
    let mut s = size;
    while s >= 255 {
        bw.put_bits(8, 255)?;
        s -= 255;
    }
    bw.put_bits(8, s)
}

/// Aligns a payload as D.1 requires (bit_equal_to_one then zeros).
fn align_payload(bw: &mut BitWriter<'_>) -> Result {
    if !bw.byte_aligned() {
        bw.put_bit(true)?;
        while !bw.byte_aligned() {
            bw.put_bit(false)?;
        }
    }
    Ok(())
}

/// Writes one SEI NAL unit with the buffering period (D.1.2, when due) and picture timing (D.1.3).
pub fn write_timing_sei(out: &mut [u8], t: &SeiTiming) -> Result<usize> {
    let mut rbsp = [0u8; 48];
    let mut bw = BitWriter::new(&mut rbsp);
    if let Some((delay, offset)) = t.buffering_period {
        let mut payload = [0u8; 16];
        let mut pw = BitWriter::new(&mut payload);
        pw.put_ue(u32::from(t.sps_id))?;
        pw.put_bits(DELAY_LENGTH, delay)?;
        pw.put_bits(DELAY_LENGTH, offset)?;
        align_payload(&mut pw)?;
        let n = pw.byte_len();
        put_payload_header(&mut bw, 0, n as u32)?;
        for &b in payload.get(..n).ok_or(Error::NoSpace)? {
            bw.put_bits(8, u32::from(b))?;
        }
    }
    let mut payload = [0u8; 16];
    let mut pw = BitWriter::new(&mut payload);
    pw.put_bits(
        DELAY_LENGTH,
        t.cpb_removal_delay & ((1 << DELAY_LENGTH) - 1),
    )?;
    pw.put_bits(DELAY_LENGTH, t.dpb_output_delay & ((1 << DELAY_LENGTH) - 1))?;
    align_payload(&mut pw)?;
    let n = pw.byte_len();
    put_payload_header(&mut bw, 1, n as u32)?;
    for &b in payload.get(..n).ok_or(Error::NoSpace)? {
        bw.put_bits(8, u32::from(b))?;
    }
    bw.put_trailing_bits()?;
    let len = bw.byte_len();
    write_nal(
        out,
        0,
        nal_type::SEI,
        rbsp.get(..len).ok_or(Error::NoSpace)?,
    )
}
