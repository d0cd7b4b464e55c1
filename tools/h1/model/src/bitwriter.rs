//! Fast MSB-first bit writer of the model's stream unit.

/// Accumulates bits MSB first into a growable buffer.
#[derive(Default, Clone)]
pub struct BitWriter {
    buf: Vec<u8>,
    acc: u64,
    nbits: u32,
}

impl BitWriter {
    /// Creates an empty writer.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of bits written.
    pub fn bit_len(&self) -> usize {
        self.buf.len() * 8 + self.nbits as usize
    }

    /// Writes the `n <= 32` low bits of `v`.
    #[inline]
    pub fn put(&mut self, n: u32, v: u32) {
        debug_assert!(n <= 32 && (n == 32 || v >> n == 0));
        if n == 0 {
            return;
        }
        self.acc = (self.acc << n) | u64::from(v);
        self.nbits += n;
        while self.nbits >= 8 {
            self.nbits -= 8;
            self.buf.push((self.acc >> self.nbits) as u8);
        }
    }

    /// Writes a flag.
    #[inline]
    pub fn flag(&mut self, f: bool) {
        self.put(1, f as u32);
    }

    /// Writes ue(v).
    #[inline]
    pub fn ue(&mut self, v: u32) {
        let code = u64::from(v) + 1;
        let len = 64 - code.leading_zeros();
        if len <= 16 {
            self.put(2 * len - 1, code as u32);
        } else {
            self.put(len - 1, 0);
            self.put(len, code as u32);
        }
    }

    /// Writes se(v).
    #[inline]
    pub fn se(&mut self, v: i32) {
        let k = if v > 0 {
            2 * v as u32 - 1
        } else {
            2 * v.unsigned_abs()
        };
        self.ue(k);
    }

    /// Writes rbsp_trailing_bits().
    pub fn trailing(&mut self) {
        self.put(1, 1);
        if self.nbits > 0 {
            let pad = 8 - self.nbits;
            self.put(pad, 0);
        }
    }

    /// Writes rbsp_alignment_zero_bits up to the next byte boundary.
    pub fn align_zero(&mut self) {
        if self.nbits > 0 {
            let pad = 8 - self.nbits;
            self.put(pad, 0);
        }
    }

    /// Returns the bytes; the writer must be byte aligned.
    pub fn into_bytes(self) -> Vec<u8> {
        debug_assert_eq!(self.nbits, 0);
        self.buf
    }
}

/// Number of bits of ue(v).
#[inline]
pub fn ue_bits(v: u32) -> u32 {
    let code = u64::from(v) + 1;
    2 * (64 - code.leading_zeros()) - 1
}

/// Number of bits of se(v).
#[inline]
pub fn se_bits(v: i32) -> u32 {
    let k = if v > 0 {
        2 * v as u32 - 1
    } else {
        2 * v.unsigned_abs()
    };
    ue_bits(k)
}

impl BitWriter {
    /// Returns the whole bytes and the count of valid bits (the last byte partially filled).
    pub fn into_bits(mut self) -> (Vec<u8>, usize) {
        let n = self.bit_len();
        if self.nbits > 0 {
            let pad = 8 - self.nbits;
            self.acc <<= pad;
            self.buf.push(self.acc as u8);
            self.nbits = 0;
        }
        (self.buf, n)
    }

    /// Appends `nbits` bits from `data` (MSB first).
    pub fn append_bits(&mut self, data: &[u8], nbits: usize) {
        let whole = nbits / 8;
        if self.nbits == 0 {
            self.buf.extend_from_slice(&data[..whole]);
        } else {
            for &b in &data[..whole] {
                self.put(8, b as u32);
            }
        }
        let rest = (nbits % 8) as u32;
        if rest > 0 {
            self.put(rest, (data[whole] >> (8 - rest)) as u32);
        }
    }
}
