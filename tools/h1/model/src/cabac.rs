//! The CABAC arithmetic encoding engine (9.3.4) and its context variables.

use crate::bitwriter::BitWriter;

/// Context variables of 4:2:0 frame coding (ctxIdx 0 to 459).
pub const NUM_CONTEXTS: usize = 460;

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

/// The encoder of one slice: context variables and the arithmetic coder.
pub struct CabacEncoder {
    /// Per ctxIdx: pStateIdx in bits 7..1, valMPS in bit 0 (the hardware table's form).
    ctx: [u8; NUM_CONTEXTS],
    low: u32,
    range: u32,
    bits_outstanding: u32,
    first_bit: bool,
    out: BitWriter,
    /// Bins coded, for the BinCountsInNALunits constraint (7.4.2.10).
    pub bins: u64,
}

impl CabacEncoder {
    /// Starts a slice with the context states `ctx` (9.3.1.1, loaded from the
    /// driver's table) and the engine initialized (9.3.4.1).
    pub fn new(ctx: [u8; NUM_CONTEXTS]) -> Self {
        CabacEncoder {
            ctx,
            low: 0,
            range: 510,
            bits_outstanding: 0,
            first_bit: true,
            out: BitWriter::new(),
            bins: 0,
        }
    }

    /// Bits written so far (the outstanding ones not counted).
    pub fn bit_len(&self) -> usize {
        self.out.bit_len()
    }

    /// PutBit (Figure 9-9).
    #[inline]
    fn put_bit(&mut self, b: u32) {
        if self.first_bit {
            self.first_bit = false;
        } else {
            self.out.put(1, b);
        }
        while self.bits_outstanding > 0 {
            let n = self.bits_outstanding.min(32);
            self.out
                .put(n, if b == 0 { u32::MAX >> (32 - n) } else { 0 });
            self.bits_outstanding -= n;
        }
    }

    /// RenormE (Figure 9-8).
    #[inline]
    fn renorm(&mut self) {
        while self.range < 256 {
            if self.low < 256 {
                self.put_bit(0);
            } else if self.low >= 512 {
                self.low -= 512;
                self.put_bit(1);
            } else {
                self.low -= 256;
                self.bits_outstanding += 1;
            }
            self.range <<= 1;
            self.low <<= 1;
        }
    }

    /// EncodeDecision (9.3.4.2) of `bin` with context variable `ctx_idx`.
    #[inline]
    pub fn decision(&mut self, ctx_idx: usize, bin: bool) {
        let s = self.ctx[ctx_idx];
        let (state, mps) = ((s >> 1) as usize, s & 1);
        let lps = RANGE_TAB_LPS[state][((self.range >> 6) & 3) as usize] as u32;
        self.range -= lps;
        if u8::from(bin) == mps {
            self.ctx[ctx_idx] = ((state.min(61) as u8 + 1) << 1) | mps;
        } else {
            self.low += self.range;
            self.range = lps;
            let mps = if state == 0 { 1 - mps } else { mps };
            self.ctx[ctx_idx] = (TRANS_IDX_LPS[state] << 1) | mps;
        }
        self.renorm();
        self.bins += 1;
    }

    /// EncodeBypass (9.3.4.4).
    #[inline]
    pub fn bypass(&mut self, bin: bool) {
        self.low <<= 1;
        if bin {
            self.low += self.range;
        }
        if self.low >= 1024 {
            self.put_bit(1);
            self.low -= 1024;
        } else if self.low < 512 {
            self.put_bit(0);
        } else {
            self.low -= 512;
            self.bits_outstanding += 1;
        }
        self.bins += 1;
    }

    /// EncodeTerminate (9.3.4.5); a 1 ends the slice with EncodeFlush, whose
    /// last bit written is the rbsp_stop_one_bit.
    pub fn terminate(&mut self, bin: bool) {
        self.range -= 2;
        if bin {
            self.low += self.range;
            self.range = 2;
            self.renorm();
            self.put_bit((self.low >> 9) & 1);
            self.out.put(2, ((self.low >> 7) & 3) | 1);
        } else {
            self.renorm();
        }
        self.bins += 1;
    }

    /// The slice data bits, ending with the rbsp_stop_one_bit (after a terminating 1).
    pub fn finish(self) -> BitWriter {
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A plain arithmetic decoder (9.3.3.2) to check the engine against.
    struct Decoder<'a> {
        data: &'a [u8],
        pos: usize,
        range: u32,
        offset: u32,
        ctx: [u8; NUM_CONTEXTS],
    }

    impl<'a> Decoder<'a> {
        fn new(data: &'a [u8], ctx: [u8; NUM_CONTEXTS]) -> Self {
            let mut d = Decoder {
                data,
                pos: 0,
                range: 510,
                offset: 0,
                ctx,
            };
            d.offset = d.bits(9);
            d
        }
        fn bit(&mut self) -> u32 {
            let b = self
                .data
                .get(self.pos / 8)
                .map_or(0, |v| (v >> (7 - self.pos % 8)) & 1);
            self.pos += 1;
            b as u32
        }
        fn bits(&mut self, n: u32) -> u32 {
            (0..n).fold(0, |v, _| (v << 1) | self.bit())
        }
        fn decision(&mut self, i: usize) -> bool {
            let (state, mps) = ((self.ctx[i] >> 1) as usize, self.ctx[i] & 1);
            let lps = RANGE_TAB_LPS[state][((self.range >> 6) & 3) as usize] as u32;
            self.range -= lps;
            let bin;
            if self.offset >= self.range {
                bin = 1 - mps;
                self.offset -= self.range;
                self.range = lps;
                let m = if state == 0 { 1 - mps } else { mps };
                self.ctx[i] = (TRANS_IDX_LPS[state] << 1) | m;
            } else {
                bin = mps;
                self.ctx[i] = ((state.min(61) as u8 + 1) << 1) | mps;
            }
            while self.range < 256 {
                self.range <<= 1;
                self.offset = (self.offset << 1) | self.bit();
            }
            bin == 1
        }
        fn bypass(&mut self) -> bool {
            self.offset = (self.offset << 1) | self.bit();
            if self.offset >= self.range {
                self.offset -= self.range;
                true
            } else {
                false
            }
        }
        fn terminate(&mut self) -> bool {
            self.range -= 2;
            if self.offset >= self.range {
                true
            } else {
                while self.range < 256 {
                    self.range <<= 1;
                    self.offset = (self.offset << 1) | self.bit();
                }
                false
            }
        }
    }

    #[test]
    fn decoder_reads_back_what_the_engine_wrote() {
        let mut rng = crate::testrng::Rng::new(7);
        for round in 0..200 {
            let mut init = [0u8; NUM_CONTEXTS];
            for c in init.iter_mut() {
                *c = (((rng.next_u64() as u32) % 63) << 1 | ((rng.next_u64() as u32) & 1)) as u8;
            }
            // (kind, ctx, bin): kind 0 decision, 1 bypass, 2 terminate 0.
            let n = 1 + (rng.next_u64() as u32) as usize % 3000;
            let skew = (rng.next_u64() as u32) % 8;
            let ops: Vec<(u32, usize, bool)> = (0..n)
                .map(|_| {
                    let kind = match (rng.next_u64() as u32) % 16 {
                        0..=11 => 0,
                        12..=14 => 1,
                        _ => 2,
                    };
                    let ctx = (rng.next_u64() as u32) as usize % 8;
                    (kind, ctx, kind != 2 && (rng.next_u64() as u32) % 8 < skew)
                })
                .collect();
            let mut e = CabacEncoder::new(init);
            for &(k, c, b) in &ops {
                match k {
                    0 => e.decision(c, b),
                    1 => e.bypass(b),
                    _ => e.terminate(false),
                }
            }
            e.terminate(true);
            let (bytes, nbits) = e.finish().into_bits();
            // The last bit written is the stop bit.
            assert_eq!((bytes[(nbits - 1) / 8] >> (7 - (nbits - 1) % 8)) & 1, 1);
            let mut d = Decoder::new(&bytes, init);
            for (i, &(k, c, b)) in ops.iter().enumerate() {
                let got = match k {
                    0 => d.decision(c),
                    1 => d.bypass(),
                    _ => d.terminate(),
                };
                assert_eq!(got, b, "round {round} op {i}");
            }
            assert!(d.terminate(), "round {round}: end of slice");
            // The decoder never reads past the stop bit.
            assert!(
                d.pos <= nbits,
                "round {round}: read {} of {nbits} bits",
                d.pos
            );
        }
    }
}
