// SPDX-License-Identifier: GPL-2.0-only
//! MSB-first bit writer into a caller-owned buffer (clause 7.2 descriptors).

use super::super::error::{Error, Result};

/// Writes bits MSB first into a borrowed byte buffer.
///
/// The writer never grows the buffer: a write that would not fit returns
/// [`Error::NoSpace`] and leaves the position where it was.
pub struct BitWriter<'a> {
    buf: &'a mut [u8],
    /// Position of the next bit, counted from the start of `buf`.
    pos: usize,
}

impl<'a> BitWriter<'a> {
    /// Creates a writer at bit 0 of `buf`.
    pub fn new(buf: &'a mut [u8]) -> Self {
        BitWriter { buf, pos: 0 }
    }

    /// Returns the number of bits written so far.
    pub fn bit_pos(&self) -> usize {
        self.pos
    }

    /// Returns true when the position is on a byte boundary.
    pub fn byte_aligned(&self) -> bool {
        self.pos % 8 == 0
    }

    /// Returns the number of bits the buffer still has room for.
    fn bits_free(&self) -> usize {
        // A slice of more than usize::MAX / 8 bytes saturates: room enough.
        self.buf.len().saturating_mul(8).saturating_sub(self.pos)
    }

    /// Returns the number of whole or partial bytes written so far.
    pub fn byte_len(&self) -> usize {
        self.pos.div_ceil(8)
    }

    /// Writes one bit.
    pub fn put_bit(&mut self, bit: bool) -> Result {
        let byte = self.pos / 8;
        let shift = 7 - (self.pos % 8) as u32;
        // Never overflows (a buffer would need 2^61 bytes), but if it did,
        // that is no room.
        let next = self.pos.checked_add(1).ok_or(Error::NoSpace)?;
        let slot = self.buf.get_mut(byte).ok_or(Error::NoSpace)?;
        if shift == 7 {
            *slot = 0;
        }
        if bit {
            *slot |= 1 << shift;
        }
        self.pos = next;
        Ok(())
    }

    /// Writes the `n` low bits of `value`, u(n) of clause 7.2, with `n <= 32`.
    pub fn put_bits(&mut self, n: u32, value: u32) -> Result {
        if n > 32 {
            return Err(Error::InvalidParam);
        }
        if n < 32 && value >> n != 0 {
            return Err(Error::InvalidParam);
        }
        if n as usize > self.bits_free() {
            return Err(Error::NoSpace);
        }
        let mut i = n;
        while i > 0 {
            i -= 1;
            self.put_bit((value >> i) & 1 != 0)?;
        }
        Ok(())
    }

    /// Writes a flag, u(1).
    pub fn put_flag(&mut self, flag: bool) -> Result {
        self.put_bit(flag)
    }

    /// Writes an unsigned Exp-Golomb code, ue(v) of clause 9.1.
    pub fn put_ue(&mut self, value: u32) -> Result {
        let code = u64::from(value) + 1;
        // code is 1..=2^32: len is 1..=33 and need 1..=65.
        let len = 64u32.saturating_sub(code.leading_zeros());
        let need = (2 * len as usize).saturating_sub(1);
        if need > self.bits_free() {
            return Err(Error::NoSpace);
        }
        for _ in 1..len {
            self.put_bit(false)?;
        }
        let mut i = len;
        while i > 0 {
            i -= 1;
            self.put_bit((code >> i) & 1 != 0)?;
        }
        Ok(())
    }

    /// Writes a signed Exp-Golomb code, se(v) of clause 9.1.1.
    pub fn put_se(&mut self, value: i32) -> Result {
        let mapped = if value > 0 {
            (value as u32).wrapping_mul(2).wrapping_sub(1)
        } else {
            value.unsigned_abs().wrapping_mul(2)
        };
        if value.unsigned_abs() > (u32::MAX - 1) / 2 {
            return Err(Error::InvalidParam);
        }
        self.put_ue(mapped)
    }

    /// Writes `rbsp_trailing_bits()` of clause 7.3.2.11.
    pub fn put_trailing_bits(&mut self) -> Result {
        self.put_bit(true)?;
        while !self.byte_aligned() {
            self.put_bit(false)?;
        }
        Ok(())
    }

    /// Returns the bytes written, the last one padded with zero bits.
    pub fn data(&self) -> &[u8] {
        let len = self.byte_len();
        self.buf.get(..len).unwrap_or(&[])
    }
}
