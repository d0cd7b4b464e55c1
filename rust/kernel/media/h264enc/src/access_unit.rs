// SPDX-License-Identifier: GPL-2.0-only
//! The NAL units the core writes in front of a picture's slices, in the
//! order 7.4.1.2.3 gives them: AUD, SPS and PPS, then the HRD's SEI.

use super::error::{Error, Result};
use super::pps::PicParams;
use super::sei::{self, SeiTiming};
use super::sps::SeqParams;

/// What goes in front of one picture's slices.
#[derive(Clone, Copy, Debug)]
pub struct AuHeaders<'a> {
    /// An access unit delimiter, for an IDR picture (`Some(true)`) or
    /// another (`Some(false)`); `None` for none.
    pub aud: Option<bool>,
    /// The parameter sets, when the picture carries them.
    pub param_sets: Option<(&'a SeqParams, &'a PicParams)>,
    /// The timing SEI, when the stream signals an HRD.
    pub timing: Option<SeiTiming>,
}

/// Bytes of `h`, with `param_sets_bytes` (from [`measure_param_sets`])
/// standing for the parameter sets, which are not written again.
// Out of line: its scratch stays out of the callers' stack frames.
#[inline(never)]
pub fn headers_len(h: &AuHeaders<'_>, param_sets_bytes: u16) -> Result<usize> {
    let mut scratch = [0u8; 96];
    // Each part is under 200 bytes: the sums cannot overflow, but say so
    // to the compiler rather than keep a panic path.
    let mut n = 0usize;
    if let Some(idr) = h.aud {
        n = n.saturating_add(sei::write_aud(&mut scratch, idr)?);
    }
    if h.param_sets.is_some() {
        n = n.saturating_add(usize::from(param_sets_bytes));
    }
    if let Some(t) = &h.timing {
        n = n.saturating_add(sei::write_timing_sei(&mut scratch, t)?);
    }
    Ok(n)
}

/// Bytes of the SPS and PPS NAL units.
// A frame of its own: its scratch must not add to the callers' stack frames.
#[inline(never)]
pub fn measure_param_sets(sps: &SeqParams, pps: &PicParams) -> Result<u16> {
    let mut scratch = [0u8; 192];
    let n = sps
        .write_nal(&mut scratch)?
        .checked_add(pps.write_nal(&mut scratch)?)
        .ok_or(Error::Overflow)?;
    u16::try_from(n).map_err(|_| Error::Overflow)
}

/// Writes `h` into `out`; returns the bytes written.
pub fn write_headers(out: &mut [u8], h: &AuHeaders<'_>) -> Result<usize> {
    // Each writer returns at most the bytes of the slice it was given:
    // n never passes out.len(), and saturating says so without a panic.
    let mut n = 0usize;
    if let Some(idr) = h.aud {
        n = n.saturating_add(sei::write_aud(
            out.get_mut(n..).ok_or(Error::NoSpace)?,
            idr,
        )?);
    }
    if let Some((sps, pps)) = h.param_sets {
        n = n.saturating_add(sps.write_nal(out.get_mut(n..).ok_or(Error::NoSpace)?)?);
        n = n.saturating_add(pps.write_nal(out.get_mut(n..).ok_or(Error::NoSpace)?)?);
    }
    if let Some(t) = &h.timing {
        n = n.saturating_add(sei::write_timing_sei(
            out.get_mut(n..).ok_or(Error::NoSpace)?,
            t,
        )?);
    }
    Ok(n)
}
