// SPDX-License-Identifier: GPL-2.0-only
//! Emulation prevention (clause 7.4.1): RBSP bytes to NAL payload bytes and back.

use super::super::error::{Error, Result};

/// Writes NAL payload bytes into a borrowed buffer from RBSP bytes given one
/// at a time, inserting `emulation_prevention_three_byte`s (clause 7.4.1).
///
/// Within a NAL unit the byte patterns 0x000000..0x000003 must not occur, so
/// a 0x03 goes after any two zero bytes that would be followed by a byte
/// <= 0x03. Byte at a time, so that a writer whose RBSP has no bound known in
/// advance (the CABAC engine) needs no RBSP buffer.
pub struct Escaper<'a> {
    out: &'a mut [u8],
    /// Bytes written to `out`.
    n: usize,
    /// Zero bytes just written, since the last other byte or 0x03.
    zeros: u32,
}

impl<'a> Escaper<'a> {
    /// Creates an escaper writing from the start of `out`.
    pub fn new(out: &'a mut [u8]) -> Self {
        Escaper {
            out,
            n: 0,
            zeros: 0,
        }
    }

    /// Writes one RBSP byte.
    pub fn push(&mut self, byte: u8) -> Result {
        // n indexes a slot of out that was just written, so n + 1 cannot wrap.
        if self.zeros >= 2 && byte <= 3 {
            *self.out.get_mut(self.n).ok_or(Error::NoSpace)? = 3;
            self.n = self.n.wrapping_add(1);
            self.zeros = 0;
        }
        *self.out.get_mut(self.n).ok_or(Error::NoSpace)? = byte;
        self.n = self.n.wrapping_add(1);
        self.zeros = if byte == 0 {
            self.zeros.saturating_add(1)
        } else {
            0
        };
        Ok(())
    }

    /// Ends the payload and returns the bytes written: a payload ending in
    /// 0x00 gets a 0x03 after it, since `cabac_zero_word`s aside, a NAL unit
    /// must not end in a zero byte.
    pub fn finish(mut self) -> Result<usize> {
        if self.zeros > 0 {
            *self.out.get_mut(self.n).ok_or(Error::NoSpace)? = 3;
            self.n = self.n.wrapping_add(1);
        }
        Ok(self.n)
    }
}

/// Copies `rbsp` into `out`, inserting `emulation_prevention_three_byte`s as
/// [`Escaper`] does. Returns the number of bytes written to `out`.
pub fn escape(rbsp: &[u8], out: &mut [u8]) -> Result<usize> {
    let mut e = Escaper::new(out);
    for &byte in rbsp {
        e.push(byte)?;
    }
    e.finish()
}

/// Returns the size `escape` would produce for `rbsp`.
pub fn escaped_len(rbsp: &[u8]) -> usize {
    let mut zeros = 0u32;
    let mut n = 0usize;
    for &byte in rbsp {
        if zeros >= 2 && byte <= 3 {
            n += 1;
            zeros = 0;
        }
        n += 1;
        zeros = if byte == 0 {
            zeros.saturating_add(1)
        } else {
            0
        };
    }
    if zeros > 0 {
        n += 1;
    }
    n
}

/// Copies a NAL payload into `out`, removing `emulation_prevention_three_byte`s.
///
/// A forbidden sequence (0x000000, 0x000001, 0x000002 inside the payload) is
/// invalid syntax: it can only come from a broken writer. Returns the number
/// of RBSP bytes written.
pub fn unescape(payload: &[u8], out: &mut [u8]) -> Result<usize> {
    unescape_into(payload, out, false)
}

/// Unescapes the start of a NAL payload into `out`, stopping when `out` is full.
///
/// Used where only a prefix (a slice header) is needed. Returns the number of
/// RBSP bytes written; a forbidden sequence within the prefix is invalid syntax.
pub fn unescape_prefix(payload: &[u8], out: &mut [u8]) -> Result<usize> {
    unescape_into(payload, out, true)
}

fn unescape_into(payload: &[u8], out: &mut [u8], prefix: bool) -> Result<usize> {
    let mut zeros = 0u32;
    let mut n = 0usize;
    for &byte in payload {
        if zeros >= 2 {
            if byte == 3 {
                zeros = 0;
                continue;
            }
            if byte < 3 {
                return Err(Error::InvalidSyntax);
            }
        }
        match out.get_mut(n) {
            Some(o) => *o = byte,
            None if prefix => break,
            None => return Err(Error::NoSpace),
        }
        n = n.wrapping_add(1);
        zeros = if byte == 0 {
            zeros.saturating_add(1)
        } else {
            0
        };
    }
    Ok(n)
}
