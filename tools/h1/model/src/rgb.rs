//! RGB input: where the H1 finds R, G and B in the words it reads, and how it
//! converts them to the YCbCr 4:2:0 it codes.
//!
//! What public sources pin down, all from Rockchip MPP, the user-space driver
//! of the same H1 (VEPU1) on RK3288:
//! - the format codes of IN_IMG_CTRL FMT (`vepu_common.h`) and the register
//!   fields of the coefficients and the MSB positions
//!   (`hal_h264e_vepu1_reg_tbl.h`);
//! - the equations and the coefficients in units of 2^-16
//!   (`hal_h264e_vepu_v2.c`): Y = A R + B G + C B, Cb = E (B - Y) + 128,
//!   Cr = F (R - Y) + 128, with A..F = 19589, 38443, 7504, 37008, 46740 for
//!   BT.601 and 13933, 46871, 4732, 35317, 41615 for BT.709;
//! - the pixel word: the input swaps of AXI_CTRL act on each 64-bit bus word
//!   read little-endian, and the pixels are taken from its most significant
//!   end, so that MPP's per-format MSB positions and swaps (`vepu_common.c`)
//!   find each component (checked by the tests below for the layouts MPP
//!   lists).
//!
//! What no public source gives, and the model chooses: the rounding (to
//! nearest, halves up), how a component of fewer than 8 bits widens (its bits
//! repeated, as 0x1f becomes 0xff) and a 10-bit one narrows (its 8 high bits),
//! and the chroma filter (the mean of each 2x2 block, rounding up, as the
//! packed 4:2:2 reader does).

use crate::memory::{BusError, Memory};
use crate::regs::*;

/// An RGB input format as the registers describe it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RgbInput {
    /// Bytes of one pixel: 2 or 4.
    pub bytes_per_pixel: usize,
    /// Bits of R, G and B.
    pub bits: [u32; 3],
    /// Position of the most significant bit of R, G and B in the pixel.
    pub msb: [u32; 3],
    /// Input swaps of AXI_CTRL: bytes in 16 bits, 16 bits in 32, 32 in 64.
    pub swap: [bool; 3],
    /// A, B, C, E, F in units of 2^-16.
    pub coeff: [i32; 5],
}

impl RgbInput {
    /// The RGB format of IN_IMG_CTRL FMT `fmt`, or `None` for a YUV one or a
    /// component that does not fit its pixel (an invalid configuration).
    pub fn from_regs(fmt: u32, axi_ctrl: u32, coeff: [u32; 2], mask_msb: u32) -> Option<Self> {
        let (bytes_per_pixel, bits) = match fmt {
            IN_FMT_RGB565 => (2, [5, 6, 5]),
            IN_FMT_RGB555 => (2, [5, 5, 5]),
            IN_FMT_RGB444 => (2, [4, 4, 4]),
            IN_FMT_RGB888 => (4, [8, 8, 8]),
            IN_FMT_RGB101010 => (4, [10, 10, 10]),
            _ => return None,
        };
        let msb =
            [RGB_R_MSB_SHIFT, RGB_G_MSB_SHIFT, RGB_B_MSB_SHIFT].map(|s| (mask_msb >> s) & 0x1f);
        let pixel_bits = 8 * bytes_per_pixel as u32;
        if msb
            .iter()
            .zip(bits)
            .any(|(&m, b)| m >= pixel_bits || m + 1 < b)
        {
            return None;
        }
        let half = |v: u32, hi: bool| (if hi { v >> 16 } else { v & 0xffff }) as i32;
        Some(RgbInput {
            bytes_per_pixel,
            bits,
            msb,
            swap: [AXI_INPUT_SWAP8, AXI_INPUT_SWAP16, AXI_INPUT_SWAP32].map(|b| axi_ctrl & b != 0),
            coeff: [
                half(coeff[0], false),
                half(coeff[0], true),
                half(coeff[1], false),
                half(coeff[1], true),
                half(mask_msb, false),
            ],
        })
    }

    /// The 64-bit bus word of the 8 bytes `b` after the input swaps.
    fn word(&self, b: &[u8]) -> u64 {
        let mut w = u64::from_le_bytes(b.try_into().unwrap_or([0; 8]));
        if self.swap[0] {
            w = ((w & 0x00ff_00ff_00ff_00ff) << 8) | ((w >> 8) & 0x00ff_00ff_00ff_00ff);
        }
        if self.swap[1] {
            w = ((w & 0x0000_ffff_0000_ffff) << 16) | ((w >> 16) & 0x0000_ffff_0000_ffff);
        }
        if self.swap[2] {
            w = w.rotate_left(32);
        }
        w
    }

    /// R, G and B of pixel word `px`, each widened or narrowed to 8 bits.
    fn rgb(&self, px: u32) -> [i32; 3] {
        let mut out = [0; 3];
        for (o, (&m, &n)) in out.iter_mut().zip(self.msb.iter().zip(&self.bits)) {
            let v = (px >> (m + 1 - n)) & ((1 << n) - 1);
            *o = widen(v, n) as i32;
        }
        out
    }

    /// Y, Cb and Cr of one pixel, Cb and Cr unsubsampled.
    pub fn ycbcr(&self, [r, g, b]: [i32; 3]) -> [i32; 3] {
        let [ca, cb, cc, ce, cf] = self.coeff;
        let y = ((ca * r + cb * g + cc * b + 0x8000) >> 16).clamp(0, 255);
        let u = (128 + ((ce * (b - y) + 0x8000) >> 16)).clamp(0, 255);
        let v = (128 + ((cf * (r - y) + 0x8000) >> 16)).clamp(0, 255);
        [y, u, v]
    }

    /// Reads `height` rows of `width` pixels, `row_len` pixels apart, from
    /// `addr` and converts them into the visible samples of `y`, `cb` and
    /// `cr` (rows of `s` and `cs` samples).
    #[allow(clippy::too_many_arguments)]
    pub fn load(
        &self,
        mem: &dyn Memory,
        addr: u32,
        row_len: usize,
        width: usize,
        height: usize,
        (y, s): (&mut [u8], usize),
        (cb, cr, cs): (&mut [u8], &mut [u8], usize),
    ) -> Result<(), BusError> {
        let bpp = self.bytes_per_pixel;
        let cw = width.div_ceil(2);
        let mut sums = vec![[0u16; 3]; cw];
        let (mut bytes, mut words) = (Vec::new(), Vec::new());
        for row in 0..height {
            // Whole bus words: the H1 reads 64 bits at a time.
            let first = addr.wrapping_add((row * row_len * bpp) as u32);
            let start = first & !7;
            let lead = (first - start) as usize;
            bytes.resize((lead + width * bpp).div_ceil(8) * 8, 0);
            mem.read(start, &mut bytes)?;
            words.clear();
            words.extend(bytes.chunks_exact(8).map(|b| self.word(b)));
            if row % 2 == 0 {
                sums.iter_mut().for_each(|c| *c = [0; 3]);
            }
            for x in 0..width {
                let at = lead + x * bpp;
                let w = words[at / 8];
                // Pixel slots count from the word's most significant end.
                let slot = (at % 8) / bpp;
                let shift = 64 - 8 * bpp * (slot + 1);
                let px = (w >> shift) as u32 & (u32::MAX >> (32 - 8 * bpp as u32));
                let [yv, u, v] = self.ycbcr(self.rgb(px));
                y[row * s + x] = yv as u8;
                let c = &mut sums[x / 2];
                c[0] += u as u16;
                c[1] += v as u16;
                c[2] += 1;
            }
            if row % 2 == 1 || row + 1 == height {
                for (i, c) in sums.iter().enumerate() {
                    cb[row / 2 * cs + i] = c[0].div_ceil(c[2]) as u8;
                    cr[row / 2 * cs + i] = c[1].div_ceil(c[2]) as u8;
                }
            }
        }
        Ok(())
    }
}

/// An `n`-bit component as 8 bits: its bits repeated when narrower, its high
/// bits when wider.
fn widen(v: u32, n: u32) -> u32 {
    if n >= 8 {
        return v >> (n - 8);
    }
    let (mut out, mut have) = (0, 0);
    while have < 8 {
        out = (out << n) | v;
        have += n;
    }
    out >> (have - 8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::BufferMemory;

    const BT601: [u32; 2] = [38443 << 16 | 19589, 37008 << 16 | 7504];
    const BT601_F: u32 = 46740;
    const ALL_SWAPS: u32 = AXI_INPUT_SWAP8 | AXI_INPUT_SWAP16 | AXI_INPUT_SWAP32;

    fn mask(r: u32, g: u32, b: u32) -> u32 {
        r << RGB_R_MSB_SHIFT | g << RGB_G_MSB_SHIFT | b << RGB_B_MSB_SHIFT | BT601_F
    }

    /// Loads one row of `pixels` (their bytes as memory holds them) and
    /// returns its luma.
    fn luma_of(input: &RgbInput, bytes: &[u8], width: usize) -> Vec<u8> {
        let mut mem = BufferMemory::new();
        let at = mem.alloc(bytes.len());
        mem.write(at, bytes).unwrap();
        let (mut y, mut cb, mut cr) = (vec![0; 16], vec![0; 8], vec![0; 8]);
        input
            .load(
                &mem,
                at,
                width,
                width,
                1,
                (&mut y, 16),
                (&mut cb, &mut cr, 8),
            )
            .unwrap();
        y.truncate(width);
        y
    }

    #[test]
    fn components_widen_by_repeating_their_bits() {
        assert_eq!(widen(0x1f, 5), 0xff);
        assert_eq!(widen(0x10, 5), 0x84);
        assert_eq!(widen(0x3f, 6), 0xff);
        assert_eq!(widen(0x8, 4), 0x88);
        assert_eq!(widen(0x3ff, 10), 0xff);
        assert_eq!(widen(0x200, 10), 0x80);
    }

    #[test]
    fn bt601_is_full_range_with_mpps_coefficients() {
        let input = RgbInput::from_regs(IN_FMT_RGB888, ALL_SWAPS, BT601, mask(23, 15, 7)).unwrap();
        assert_eq!(input.ycbcr([0, 0, 0]), [0, 128, 128]);
        assert_eq!(input.ycbcr([255, 255, 255]), [255, 128, 128]);
        // Y = 0.2989 R + 0.5866 G + 0.1145 B; Cb = 0.5647 (B - Y) + 128.
        assert_eq!(input.ycbcr([255, 0, 0]), [76, 85, 255]);
        assert_eq!(input.ycbcr([0, 255, 0]), [150, 43, 21]);
        assert_eq!(input.ycbcr([0, 0, 255]), [29, 255, 107]);
    }

    /// Each layout of MPP's table `vepu_rgb_cfg` and `vepu_rgb_le_cfg`, with
    /// its swaps and MSB positions, finds pure red, green and blue where
    /// the pixel's memory bytes put them.
    #[test]
    fn mpps_layouts_find_their_components() {
        let (s8, s16, s32) = (AXI_INPUT_SWAP8, AXI_INPUT_SWAP16, AXI_INPUT_SWAP32);
        // (format, swaps, R, G, B MSB, red, green, blue as memory bytes)
        type Layout = (u32, u32, [u32; 3], [&'static [u8]; 3]);
        let layouts: &[Layout] = &[
            // rgb565le: u16 rrrrrggggggbbbbb, little-endian.
            (
                IN_FMT_RGB565,
                s16 | s32,
                [15, 10, 4],
                [&[0x00, 0xf8], &[0xe0, 0x07], &[0x1f, 0x00]],
            ),
            // rgb565be: the same u16, big-endian.
            (
                IN_FMT_RGB565,
                s8 | s16 | s32,
                [15, 10, 4],
                [&[0xf8, 0x00], &[0x07, 0xe0], &[0x00, 0x1f]],
            ),
            // rgb555le: u16 0rrrrrgggggbbbbb.
            (
                IN_FMT_RGB555,
                s16 | s32,
                [14, 9, 4],
                [&[0x00, 0x7c], &[0xe0, 0x03], &[0x1f, 0x00]],
            ),
            // rgb444le: u16 0000rrrrggggbbbb.
            (
                IN_FMT_RGB444,
                s16 | s32,
                [11, 7, 3],
                [&[0x00, 0x0f], &[0xf0, 0x00], &[0x0f, 0x00]],
            ),
            // ARGB8888: bytes A R G B.
            (
                IN_FMT_RGB888,
                s32,
                [15, 23, 31],
                [&[0, 255, 0, 0], &[0, 0, 255, 0], &[0, 0, 0, 255]],
            ),
            // BGRA8888: bytes B G R A.
            (
                IN_FMT_RGB888,
                s32,
                [23, 15, 7],
                [&[0, 0, 255, 0], &[0, 255, 0, 0], &[255, 0, 0, 0]],
            ),
            // RGB101010: u32 00rrrrrrrrrrgggggggggg bbbbbbbbbb, big-endian.
            (
                IN_FMT_RGB101010,
                s8 | s16 | s32,
                [29, 19, 9],
                [
                    &[0x3f, 0xf0, 0, 0],
                    &[0, 0x0f, 0xfc, 0],
                    &[0, 0, 0x03, 0xff],
                ],
            ),
        ];
        for &(fmt, swaps, [r, g, b], pixels) in layouts {
            let input = RgbInput::from_regs(fmt, swaps, BT601, mask(r, g, b)).unwrap();
            // Eight pixels: each colour at each slot of a bus word, then black.
            for (colour, want) in pixels.iter().zip([76u8, 150, 29]) {
                let bpp = input.bytes_per_pixel;
                for slot in 0..8 / bpp {
                    let mut bytes = vec![0u8; 8 * bpp];
                    bytes[slot * bpp..][..bpp].copy_from_slice(colour);
                    let y = luma_of(&input, &bytes, 8);
                    for (x, &v) in y.iter().enumerate() {
                        let expect = if x == slot { want } else { 0 };
                        assert_eq!(v, expect, "format {fmt} swaps {swaps:#x} pixel {x}");
                    }
                }
            }
        }
    }

    #[test]
    fn chroma_is_the_mean_of_each_two_by_two_block() {
        let input =
            RgbInput::from_regs(IN_FMT_RGB888, AXI_INPUT_SWAP32, BT601, mask(23, 15, 7)).unwrap();
        // BGRx: blue, black / black, black in the first block.
        let mut mem = BufferMemory::new();
        let at = mem.alloc(16);
        mem.write(at, &[255, 0, 0, 0]).unwrap();
        let (mut y, mut cb, mut cr) = (vec![0; 4], vec![0; 1], vec![0; 1]);
        input
            .load(&mem, at, 2, 2, 2, (&mut y, 2), (&mut cb, &mut cr, 1))
            .unwrap();
        assert_eq!(y, [29, 0, 0, 0]);
        // (255 + 3 * 128) / 4 rounded up, (107 + 3 * 128) / 4 rounded up.
        assert_eq!((cb[0], cr[0]), (160, 123));
    }

    #[test]
    fn a_component_outside_its_pixel_is_refused() {
        assert!(RgbInput::from_regs(IN_FMT_RGB565, ALL_SWAPS, BT601, mask(16, 10, 4)).is_none());
        assert!(RgbInput::from_regs(IN_FMT_RGB565, ALL_SWAPS, BT601, mask(15, 4, 3)).is_none());
        assert!(RgbInput::from_regs(IN_FMT_YUV420P, ALL_SWAPS, BT601, mask(15, 10, 4)).is_none());
    }
}
