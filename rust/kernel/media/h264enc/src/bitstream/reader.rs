// SPDX-License-Identifier: GPL-2.0-only
//! MSB-first bit reader over RBSP bytes (clause 7.2 descriptors).

use super::super::error::{Error, Result};

/// Reads bits MSB first from a byte slice of RBSP data.
///
/// Every read checks the remaining length and returns [`Error::Truncated`]
/// instead of reading past the end: the data usually comes from hardware.
pub struct BitReader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> BitReader<'a> {
    /// Creates a reader at bit 0 of `data`.
    pub fn new(data: &'a [u8]) -> Self {
        BitReader { data, pos: 0 }
    }

    /// Returns the number of bits consumed.
    pub fn bit_pos(&self) -> usize {
        self.pos
    }

    /// Returns the number of bits left.
    pub fn bits_left(&self) -> usize {
        self.data.len().saturating_mul(8).saturating_sub(self.pos)
    }

    /// Reads one bit.
    pub fn bit(&mut self) -> Result<bool> {
        let byte = *self.data.get(self.pos / 8).ok_or(Error::Truncated)?;
        let bit = (byte >> (7 - (self.pos % 8))) & 1;
        // Never overflows (the data would need 2^61 bytes); if it did, the
        // data ends here.
        self.pos = self.pos.checked_add(1).ok_or(Error::Truncated)?;
        Ok(bit != 0)
    }

    /// Reads u(n) with `n <= 32`.
    pub fn bits(&mut self, n: u32) -> Result<u32> {
        if n > 32 {
            return Err(Error::InvalidParam);
        }
        if self.bits_left() < n as usize {
            return Err(Error::Truncated);
        }
        let mut v: u32 = 0;
        for _ in 0..n {
            v = (v << 1) | u32::from(self.bit()?);
        }
        Ok(v)
    }

    /// Reads a flag, u(1).
    pub fn flag(&mut self) -> Result<bool> {
        self.bit()
    }

    /// Reads ue(v) of clause 9.1; codes longer than 32 bits are invalid syntax.
    pub fn ue(&mut self) -> Result<u32> {
        let mut zeros = 0u32;
        while !self.bit()? {
            zeros += 1;
            if zeros > 31 {
                return Err(Error::InvalidSyntax);
            }
        }
        let rest = self.bits(zeros)?;
        // zeros <= 31, so (1 << zeros) - 1 + rest fits in u32.
        Ok(1u32.wrapping_shl(zeros).wrapping_sub(1).wrapping_add(rest))
    }

    /// Reads se(v) of clause 9.1.1.
    pub fn se(&mut self) -> Result<i32> {
        let k = self.ue()?;
        let magnitude = ((k >> 1) + (k & 1)) as i32;
        Ok(if k & 1 == 1 { magnitude } else { -magnitude })
    }

    /// Returns true if the remaining bits are exactly `rbsp_trailing_bits()`.
    pub fn at_trailing_bits(&self) -> bool {
        let left = self.bits_left();
        if left == 0 || left > 8 {
            return false;
        }
        let last = match self.data.last() {
            Some(b) => *b,
            None => return false,
        };
        // The remaining bits are the low `left` bits of the last byte: 1 then zeros.
        let mask = if left == 8 { 0xff } else { (1u8 << left) - 1 };
        last & mask == 1u8 << (left - 1)
    }
}
