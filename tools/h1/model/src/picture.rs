//! Macroblock-aligned YUV 4:2:0 pictures and their layouts in "DMA" memory.

use crate::memory::{BusError, Memory};
use crate::rgb::RgbInput;

/// The signature of [`split_chroma`] at every CPU level.
pub type SplitChromaFn = fn(&[u8], &mut [u8], &mut [u8]);
/// The signature of [`join_chroma`] at every CPU level.
pub type JoinChromaFn = fn(&[u8], &[u8], &mut [u8]);

/// A 4:2:0 picture whose size is a whole number of macroblocks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Planes {
    /// Width in macroblocks.
    pub mb_w: usize,
    /// Height in macroblocks.
    pub mb_h: usize,
    /// Luma, `mb_w * 16` samples per row.
    pub y: Vec<u8>,
    /// Cb, `mb_w * 8` samples per row.
    pub cb: Vec<u8>,
    /// Cr, `mb_w * 8` samples per row.
    pub cr: Vec<u8>,
}

/// Input pixel formats of the IN_IMG_CTRL FMT field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputFormat {
    /// Three planes: Y, Cb, Cr (YUV420P).
    I420,
    /// Two planes: Y, interleaved CbCr (YUV420SP).
    Nv12,
    /// One plane of 4:2:2, Y0 Cb Y1 Cr (YUYV422).
    Yuyv,
    /// One plane of 4:2:2, Cb Y0 Cr Y1 (UYVY422).
    Uyvy,
    /// One plane of RGB pixels, converted to YCbCr 4:2:0 as it is read.
    Rgb(RgbInput),
}

impl Planes {
    /// Creates a black picture.
    pub fn new(mb_w: usize, mb_h: usize) -> Self {
        let n = mb_w * 16 * mb_h * 16;
        Planes {
            mb_w,
            mb_h,
            y: vec![0; n],
            cb: vec![128; n / 4],
            cr: vec![128; n / 4],
        }
    }

    /// Luma row stride.
    pub fn stride(&self) -> usize {
        self.mb_w * 16
    }

    /// Chroma row stride.
    pub fn cstride(&self) -> usize {
        self.mb_w * 8
    }

    /// A picture of `mb_w` x `mb_h` macroblocks in the buffers of `spare` when
    /// it has that size (contents unspecified, the caller overwrites them all),
    /// else a new black one: pictures are recycled from frame to frame, since
    /// fresh pages cost more than the copies into them.
    pub fn reuse(spare: Option<Planes>, mb_w: usize, mb_h: usize) -> Self {
        match spare {
            Some(p) if p.mb_w == mb_w && p.mb_h == mb_h => p,
            _ => Planes::new(mb_w, mb_h),
        }
    }

    /// Reads an input picture: `width` x `height` visible samples, rows of
    /// `luma_stride` samples (IN_IMG_CTRL ROW_LEN: pixels, so 2 bytes each in
    /// the packed 4:2:2 formats), the rest of the last macroblock column and
    /// row filled by replicating the edge, into the buffers of `spare`
    /// ([`Planes::reuse`]). Interleaved chroma is split with `split`, the
    /// [`split_chroma`] of the H1's CPU level.
    ///
    /// Packed 4:2:2 becomes 4:2:0 by averaging the chroma of each pair of
    /// rows, rounding up (a last odd row keeps its own). The H1's own
    /// vertical filter is not in any public source: this is the model's.
    #[allow(clippy::too_many_arguments)]
    pub fn load_input(
        spare: Option<Planes>,
        mem: &dyn Memory,
        fmt: InputFormat,
        addr: [u32; 3],
        luma_stride: usize,
        width: usize,
        height: usize,
        mb_w: usize,
        mb_h: usize,
        split: SplitChromaFn,
    ) -> Result<Self, BusError> {
        let mut p = Planes::reuse(spare, mb_w, mb_h);
        let (s, cs) = (p.stride(), p.cstride());
        let (cw, ch) = (width.div_ceil(2), height.div_ceil(2));
        let luma = |p: &mut Planes| -> Result<(), BusError> {
            for y in 0..height {
                let dst = &mut p.y[y * s..y * s + width];
                mem.read(addr[0].wrapping_add((y * luma_stride) as u32), dst)?;
            }
            Ok(())
        };
        match fmt {
            InputFormat::I420 => {
                luma(&mut p)?;
                let cstride = luma_stride / 2;
                for y in 0..ch {
                    let at = |a: u32| a.wrapping_add((y * cstride) as u32);
                    mem.read(at(addr[1]), &mut p.cb[y * cs..y * cs + cw])?;
                    mem.read(at(addr[2]), &mut p.cr[y * cs..y * cs + cw])?;
                }
            }
            InputFormat::Nv12 => {
                luma(&mut p)?;
                let mut crow = vec![0u8; 2 * cw];
                for y in 0..ch {
                    mem.read(addr[1].wrapping_add((y * luma_stride) as u32), &mut crow)?;
                    let (b, r) = (&mut p.cb[y * cs..][..cw], &mut p.cr[y * cs..][..cw]);
                    split(&crow, b, r);
                }
            }
            InputFormat::Yuyv => p.load_packed(mem, addr[0], luma_stride, width, height, false)?,
            InputFormat::Uyvy => p.load_packed(mem, addr[0], luma_stride, width, height, true)?,
            InputFormat::Rgb(rgb) => {
                let (y, cb, cr) = (&mut p.y, &mut p.cb, &mut p.cr);
                rgb.load(
                    mem,
                    addr[0],
                    luma_stride,
                    width,
                    height,
                    (y, s),
                    (cb, cr, cs),
                )?
            }
        }
        replicate_edges(&mut p.y, s, mb_h * 16, width, height);
        replicate_edges(&mut p.cb, cs, mb_h * 8, cw, ch);
        replicate_edges(&mut p.cr, cs, mb_h * 8, cw, ch);
        Ok(p)
    }

    /// Reads packed 4:2:2 rows (`chroma_first`: UYVY, else YUYV) of
    /// `row_len` pixels at `addr` into the visible samples.
    fn load_packed(
        &mut self,
        mem: &dyn Memory,
        addr: u32,
        row_len: usize,
        width: usize,
        height: usize,
        chroma_first: bool,
    ) -> Result<(), BusError> {
        let (s, cs) = (self.stride(), self.cstride());
        let cw = width.div_ceil(2);
        // Whole pairs: an odd width still reads the pair of its last sample.
        let mut row = vec![0u8; 4 * cw];
        let (yo, co) = if chroma_first { (1, 0) } else { (0, 1) };
        let mut sums = vec![0u16; 2 * cw];
        for y in 0..height {
            mem.read(addr.wrapping_add((y * row_len * 2) as u32), &mut row)?;
            for (x, d) in self.y[y * s..y * s + width].iter_mut().enumerate() {
                *d = row[2 * x + yo];
            }
            for (k, v) in sums.iter_mut().enumerate() {
                // Cb of pair k at 4k + co, Cr at 4k + 2 + co.
                let at = 4 * (k / 2) + 2 * (k % 2) + co;
                *v = if y % 2 == 0 {
                    u16::from(row[at])
                } else {
                    *v + u16::from(row[at])
                };
            }
            if y % 2 == 1 || y + 1 == height {
                let n = if y % 2 == 1 { 2 } else { 1 };
                let cy = y / 2;
                for i in 0..cw {
                    self.cb[cy * cs + i] = sums[2 * i].div_ceil(n) as u8;
                    self.cr[cy * cs + i] = sums[2 * i + 1].div_ceil(n) as u8;
                }
            }
        }
        Ok(())
    }

    /// Bytes of a reconstructed picture in memory: luma, then interleaved CbCr.
    pub fn luma_bytes(mb_w: usize, mb_h: usize) -> usize {
        mb_w * mb_h * 256
    }

    /// Bytes of the interleaved chroma plane of a reconstructed picture.
    pub fn chroma_bytes(mb_w: usize, mb_h: usize) -> usize {
        mb_w * mb_h * 128
    }

    /// Writes the picture in the reconstruction layout: raster luma at `luma`,
    /// interleaved CbCr rows at `chroma`, interleaved by `join`, the
    /// [`join_chroma`] of the H1's CPU level.
    pub fn store_recon(
        &self,
        mem: &mut dyn Memory,
        luma: u32,
        chroma: u32,
        join: JoinChromaFn,
    ) -> Result<(), BusError> {
        mem.write(luma, &self.y)?;
        // Row by row: a row-sized buffer stays in cache, a plane-sized one is
        // fresh memory every frame.
        let cs = self.cstride();
        let mut c = vec![0u8; 2 * cs];
        for (y, (b, r)) in self
            .cb
            .chunks_exact(cs)
            .zip(self.cr.chunks_exact(cs))
            .enumerate()
        {
            join(b, r, &mut c);
            mem.write(chroma.wrapping_add((y * 2 * cs) as u32), &c)?;
        }
        Ok(())
    }
}

/// Splits interleaved Cb, Cr pairs into `b` and `r`.
pub fn split_chroma(pairs: &[u8], b: &mut [u8], r: &mut [u8]) {
    for (k, pair) in pairs.chunks_exact(2).enumerate() {
        b[k] = pair[0];
        r[k] = pair[1];
    }
}

/// Interleaves rows of Cb and Cr into pairs (the NV12 layout).
pub fn join_chroma(b: &[u8], r: &[u8], pairs: &mut [u8]) {
    for (k, pair) in pairs.chunks_exact_mut(2).enumerate() {
        pair[0] = b[k];
        pair[1] = r[k];
    }
}

fn replicate_edges(plane: &mut [u8], stride: usize, rows: usize, width: usize, height: usize) {
    if width == 0 || height == 0 {
        return;
    }
    for y in 0..height {
        let v = plane[y * stride + width - 1];
        plane[y * stride + width..(y + 1) * stride].fill(v);
    }
    let (head, tail) = plane.split_at_mut(height * stride);
    let last = &head[(height - 1) * stride..];
    for r in 0..rows - height {
        tail[r * stride..(r + 1) * stride].copy_from_slice(last);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The split and join of interleaved chroma take every other sample and
    /// put them back.
    #[test]
    fn chroma_split_and_join_equal_the_plain_ones() {
        let mut rng = crate::testrng::Rng::new(0x5911);
        for pairs in [8, 16, 24, 40, 640, 648] {
            let src: Vec<u8> = (0..2 * pairs).map(|_| rng.byte()).collect();
            let (mut b, mut r) = (vec![0u8; pairs], vec![0u8; pairs]);
            split_chroma(&src, &mut b, &mut r);
            let mut joined = vec![0u8; 2 * pairs];
            join_chroma(&b, &r, &mut joined);
            let want_b: Vec<u8> = src.iter().step_by(2).copied().collect();
            let want_r: Vec<u8> = src.iter().skip(1).step_by(2).copied().collect();
            assert!(b == want_b && r == want_r, "{pairs} pairs");
            assert!(joined == src, "{pairs} pairs joined");
        }
    }

    /// Packed 4:2:2 rows read as IN_IMG_CTRL FMT 2 and 3 select: luma as it
    /// is, the chroma of each pair of rows averaged rounding up, a last odd
    /// row's its own, and rows ROW_LEN pixels (two bytes each) apart.
    #[test]
    fn packed_422_is_read_into_420() {
        let (w, h, row_len) = (6, 5, 8);
        let mut rng = crate::testrng::Rng::new(0x422);
        let frame: Vec<u8> = (0..row_len * 2 * h).map(|_| rng.byte()).collect();
        for (fmt, uyvy) in [(InputFormat::Yuyv, false), (InputFormat::Uyvy, true)] {
            let mut mem = crate::memory::BufferMemory::new();
            let addr = mem.alloc(frame.len());
            mem.buffer_mut(addr).unwrap().copy_from_slice(&frame);
            let p = Planes::load_input(
                None,
                &mem,
                fmt,
                [addr, 0, 0],
                row_len,
                w,
                h,
                1,
                1,
                split_chroma,
            )
            .unwrap();
            let (yo, co) = if uyvy { (1, 0) } else { (0, 1) };
            let at = |r: usize, i: usize| frame[r * row_len * 2 + i];
            for r in 0..h {
                for x in 0..w {
                    assert_eq!(p.y[r * 16 + x], at(r, 2 * x + yo), "{fmt:?} Y {x},{r}");
                }
            }
            for cy in 0..h.div_ceil(2) {
                for i in 0..w / 2 {
                    for (plane, k) in [(&p.cb, 0), (&p.cr, 2)] {
                        let a = u16::from(at(2 * cy, 4 * i + k + co));
                        let b = u16::from(at((2 * cy + 1).min(h - 1), 4 * i + k + co));
                        let want = (a + b).div_ceil(2) as u8;
                        assert_eq!(plane[cy * 8 + i], want, "{fmt:?} chroma {i},{cy}");
                    }
                }
            }
        }
    }
}
