// SPDX-License-Identifier: GPL-2.0-only
//! The coded picture buffer of the hypothetical reference decoder (Annex C),
//! as a leaky bucket sampled at picture removal times.
//!
//! Fullness is kept in bits scaled by the frame rate numerator ("scaled bits",
//! bits x fps_num) so the arrival per picture interval, bit_rate x fps_den, is
//! exact in integers.

use super::super::math::div_u64;

/// State of the CPB between pictures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cpb {
    /// CpbSize in bits.
    pub size: u64,
    /// BitRate in bits/s.
    pub bit_rate: u64,
    /// Frame rate numerator.
    pub fps_num: u64,
    /// Frame rate denominator.
    pub fps_den: u64,
    /// Constant bit rate: arrival never pauses, so a full buffer is an overflow.
    pub cbr: bool,
    /// Fullness just before the next removal, scaled bits.
    pub fullness: u64,
    /// Scaled bits of pictures already removed that had not all arrived at
    /// their removal time: arrival makes them up before filling the buffer.
    pub deficit: u64,
    /// Pictures not all arrived at their removal time (CPB underflow).
    pub underflows: u32,
    /// Pictures whose removal found the buffer over its size (CBR only).
    pub overflows: u32,
}

impl Cpb {
    /// Creates a CPB filled to `initial` bits for the first removal.
    pub fn new(
        size: u64,
        bit_rate: u64,
        fps_num: u32,
        fps_den: u32,
        cbr: bool,
        initial: u64,
    ) -> Cpb {
        let fps_num = u64::from(fps_num.max(1));
        Cpb {
            size,
            bit_rate,
            fps_num,
            fps_den: u64::from(fps_den.max(1)),
            cbr,
            fullness: initial.min(size).saturating_mul(fps_num),
            deficit: 0,
            underflows: 0,
            overflows: 0,
        }
    }

    /// Bits arriving between two removals, scaled.
    pub fn arrival(&self) -> u64 {
        self.bit_rate.saturating_mul(self.fps_den)
    }

    /// Fullness before the next removal, in bits.
    pub fn fullness_bits(&self) -> u64 {
        div_u64(self.fullness, self.fps_num)
    }

    /// Bits per picture interval (rounded down).
    pub fn bits_per_frame(&self) -> u64 {
        div_u64(self.arrival(), self.fps_num)
    }

    /// Removes a picture of `bits` and fills for one interval. Returns the filler
    /// bits a CBR stream must add to stay within the buffer (always 0 for VBR).
    ///
    /// As Annex C has it (C.1, C.3): a picture is removed at its time whether
    /// or not it has all arrived; what has not is owed, and the pictures after
    /// it arrive that much later, so they underflow too until arrival has
    /// caught up. An overflow is counted for the picture whose removal finds
    /// the buffer over its size (CBR; VBR arrival pauses when full).
    pub fn remove(&mut self, bits: u64, filler_allowed: bool) -> u64 {
        let size_scaled = self.size.saturating_mul(self.fps_num);
        if self.cbr && self.fullness > size_scaled {
            self.overflows = self.overflows.saturating_add(1);
        }
        let scaled = bits.saturating_mul(self.fps_num);
        if scaled > self.fullness {
            self.deficit = self.deficit.saturating_add(scaled - self.fullness);
            self.fullness = 0;
        } else {
            self.fullness -= scaled;
        }
        if self.deficit > 0 {
            self.underflows = self.underflows.saturating_add(1);
        }
        // The next interval's arrival first makes up what is owed.
        let repaid = self.arrival().min(self.deficit);
        self.deficit -= repaid;
        let next = self.fullness.saturating_add(self.arrival() - repaid);
        let mut filler = 0;
        if next > size_scaled {
            if self.cbr && filler_allowed {
                // Whole bytes of filler so the next fullness fits.
                let excess = (next - size_scaled).saturating_add(self.fps_num.saturating_sub(1));
                let excess_bits = div_u64(excess, self.fps_num);
                filler = excess_bits.div_ceil(8).saturating_mul(8);
                self.fullness = next
                    .saturating_sub(filler.saturating_mul(self.fps_num))
                    .min(size_scaled);
            } else if self.cbr {
                // CBR arrival never pauses: the next removal finds the
                // buffer over its size, an overflow.
                self.fullness = next;
            } else {
                self.fullness = size_scaled;
            }
        } else {
            self.fullness = next;
        }
        filler
    }

    /// Bits still owed by pictures that were late at their removal time.
    pub fn deficit_bits(&self) -> u64 {
        div_u64(self.deficit, self.fps_num)
    }

    /// initial_cpb_removal_delay (90 kHz) that matches the current fullness.
    pub fn initial_removal_delay(&self) -> u32 {
        if self.bit_rate == 0 {
            return 0;
        }
        let d = div_u64(self.fullness_bits().saturating_mul(90_000), self.bit_rate);
        d.max(1).min(u64::from(u32::MAX >> 8)) as u32
    }
}
