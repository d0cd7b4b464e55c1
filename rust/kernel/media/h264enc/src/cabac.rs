// SPDX-License-Identifier: GPL-2.0-only
//! The CABAC arithmetic encoding engine (9.3.4.2), for the one slice the core
//! codes itself: a skipped picture's (see [`super::skip`]).
//!
//! The hardware codes every other slice; this engine needs only decisions
//! and the terminating bin. Its output goes straight through emulation
//! prevention, so a slice of any size needs no RBSP buffer.

use super::bitstream::emulation::Escaper;
use super::error::{Error, Result};

/// rangeTabLPS[pStateIdx][qCodIRangeIdx] (Table 9-44).
#[rustfmt::skip]
const RANGE_TAB_LPS: [[u8; 4]; 64] = [
    [128, 176, 208, 240], [128, 167, 197, 227], [128, 158, 187, 216], [123, 150, 178, 205],
    [116, 142, 169, 195], [111, 135, 160, 185], [105, 128, 152, 175], [100, 122, 144, 166],
    [95, 116, 137, 158], [90, 110, 130, 150], [85, 104, 123, 142], [81, 99, 117, 135],
    [77, 94, 111, 128], [73, 89, 105, 122], [69, 85, 100, 116], [66, 80, 95, 110],
    [62, 76, 90, 104], [59, 72, 86, 99], [56, 69, 81, 94], [53, 65, 77, 89],
    [51, 62, 73, 85], [48, 59, 69, 80], [46, 56, 66, 76], [43, 53, 63, 72],
    [41, 50, 59, 69], [39, 48, 56, 65], [37, 45, 54, 62], [35, 43, 51, 59],
    [33, 41, 48, 56], [32, 39, 46, 53], [30, 37, 43, 50], [29, 35, 41, 48],
    [27, 33, 39, 45], [26, 31, 37, 43], [24, 30, 35, 41], [23, 28, 33, 39],
    [22, 27, 32, 37], [21, 26, 30, 35], [20, 24, 29, 33], [19, 23, 27, 31],
    [18, 22, 26, 30], [17, 21, 25, 28], [16, 20, 23, 27], [15, 19, 22, 25],
    [14, 18, 21, 24], [14, 17, 20, 23], [13, 16, 19, 22], [12, 15, 18, 21],
    [12, 14, 17, 20], [11, 14, 16, 19], [11, 13, 15, 18], [10, 12, 15, 17],
    [10, 12, 14, 16], [9, 11, 13, 15], [9, 11, 12, 14], [8, 10, 12, 14],
    [8, 9, 11, 13], [7, 9, 11, 12], [7, 9, 10, 12], [7, 8, 10, 11],
    [6, 8, 9, 11], [6, 7, 9, 10], [6, 7, 8, 9], [2, 2, 2, 2],
];

/// transIdxLPS[pStateIdx] (Table 9-45); transIdxMPS is pStateIdx + 1 up to 62.
#[rustfmt::skip]
const TRANS_IDX_LPS: [u8; 64] = [
    0, 0, 1, 2, 2, 4, 4, 5, 6, 7, 8, 9, 9, 11, 11, 12,
    13, 13, 15, 15, 16, 16, 18, 18, 19, 19, 21, 21, 22, 22, 23, 24,
    24, 25, 26, 26, 27, 27, 28, 29, 29, 30, 30, 30, 31, 32, 32, 33,
    33, 33, 34, 34, 35, 35, 35, 36, 36, 36, 37, 37, 37, 38, 38, 63,
];

/// The arithmetic encoder of one slice's data (9.3.4.2).
///
/// codIRange stays in 2..=510 and codILow below 2^10 between calls
/// (9.3.4.2): the sums below cannot overflow a u32, and wrapping
/// arithmetic says so without a panic path.
pub struct ArithmeticEncoder<'a> {
    out: Escaper<'a>,
    low: u32,
    range: u32,
    bits_outstanding: u32,
    first_bit: bool,
    /// Bits of the RBSP byte being filled, MSB first.
    byte: u8,
    bits: u8,
}

impl<'a> ArithmeticEncoder<'a> {
    /// Starts the slice data (9.3.1.2), after the byte-aligned slice header.
    pub fn new(out: Escaper<'a>) -> Self {
        ArithmeticEncoder {
            out,
            low: 0,
            range: 510,
            bits_outstanding: 0,
            first_bit: true,
            byte: 0,
            bits: 0,
        }
    }

    fn write_bit(&mut self, bit: u32) -> Result {
        self.byte = (self.byte << 1) | (bit & 1) as u8;
        self.bits = self.bits.wrapping_add(1);
        if self.bits == 8 {
            self.out.push(self.byte)?;
            self.byte = 0;
            self.bits = 0;
        }
        Ok(())
    }

    /// PutBit (Figure 9-8).
    fn put_bit(&mut self, bit: u32) -> Result {
        if self.first_bit {
            self.first_bit = false;
        } else {
            self.write_bit(bit)?;
        }
        while self.bits_outstanding > 0 {
            self.write_bit((bit & 1) ^ 1)?;
            self.bits_outstanding = self.bits_outstanding.wrapping_sub(1);
        }
        Ok(())
    }

    /// RenormE (Figure 9-7).
    fn renorm(&mut self) -> Result {
        while self.range < 256 {
            if self.low < 256 {
                self.put_bit(0)?;
            } else if self.low >= 512 {
                self.low = self.low.wrapping_sub(512);
                self.put_bit(1)?;
            } else {
                self.low = self.low.wrapping_sub(256);
                // One per bin at most: a slice has far fewer than 2^32.
                self.bits_outstanding = self.bits_outstanding.saturating_add(1);
            }
            self.range = self.range.wrapping_shl(1);
            self.low = self.low.wrapping_shl(1);
        }
        Ok(())
    }

    /// EncodeDecision (Figure 9-7) of `bin` with the context variable `state`
    /// (`pStateIdx << 1 | valMPS`, as [`super::cabac_init`] gives it).
    pub fn decision(&mut self, state: &mut u8, bin: bool) -> Result {
        let p_state = usize::from(*state >> 1);
        let mps = *state & 1;
        let lps = RANGE_TAB_LPS
            .get(p_state)
            .and_then(|r| r.get(((self.range >> 6) & 3) as usize))
            .copied()
            .ok_or(Error::InvalidParam)?;
        self.range = self.range.wrapping_sub(u32::from(lps));
        if u8::from(bin) == mps {
            *state = ((p_state.min(61) as u8).wrapping_add(1) << 1) | mps;
        } else {
            self.low = self.low.wrapping_add(self.range);
            self.range = u32::from(lps);
            let mps = if p_state == 0 { mps ^ 1 } else { mps };
            let next = TRANS_IDX_LPS.get(p_state).copied().unwrap_or(0);
            *state = (next << 1) | mps;
        }
        self.renorm()
    }

    /// EncodeTerminate (Figure 9-10); a 1 ends the slice data with
    /// EncodeFlush, whose last bit is the rbsp_stop_one_bit.
    pub fn terminate(&mut self, bin: bool) -> Result {
        self.range = self.range.wrapping_sub(2);
        if bin {
            self.low = self.low.wrapping_add(self.range);
            self.range = 2;
            self.renorm()?;
            self.put_bit((self.low >> 9) & 1)?;
            self.write_bit((self.low >> 8) & 1)?;
            self.write_bit(1)
        } else {
            self.renorm()
        }
    }

    /// Ends the NAL unit after a terminating 1: rbsp_alignment_zero_bits,
    /// then the payload bytes written.
    pub fn finish(mut self) -> Result<usize> {
        while self.bits != 0 {
            self.write_bit(0)?;
        }
        self.out.finish()
    }
}
