// SPDX-License-Identifier: GPL-2.0-only
//! Emulation prevention (clause 7.4.1): RBSP bytes to NAL payload bytes and back.

use super::super::error::{Error, Result};

/// Copies `rbsp` into `out`, inserting `emulation_prevention_three_byte`s.
///
/// Within a NAL unit the byte patterns 0x000000..0x000003 must not occur
/// (clause 7.4.1), so a 0x03 is inserted after any two zero bytes that would be
/// followed by a byte <= 0x03. A payload ending in 0x00 also gets a 0x03 after
/// it, since `cabac_zero_word`s aside, the NAL unit must not end in a zero byte.
/// Returns the number of bytes written to `out`.
pub fn escape(rbsp: &[u8], out: &mut [u8]) -> Result<usize> {
    // n indexes a slot of out that was just written, so n + 1 cannot wrap.
    let mut zeros = 0u32;
    let mut n = 0usize;
    for &byte in rbsp {
        if zeros >= 2 && byte <= 3 {
            *out.get_mut(n).ok_or(Error::NoSpace)? = 3;
            n = n.wrapping_add(1);
            zeros = 0;
        }
        *out.get_mut(n).ok_or(Error::NoSpace)? = byte;
        n = n.wrapping_add(1);
        zeros = if byte == 0 {
            zeros.saturating_add(1)
        } else {
            0
        };
    }
    if zeros > 0 {
        *out.get_mut(n).ok_or(Error::NoSpace)? = 3;
        n = n.wrapping_add(1);
    }
    Ok(n)
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
