//! Macroblock-aligned YUV 4:2:0 pictures and their layouts in "DMA" memory.

use crate::memory::{BusError, Memory};

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

    /// Reads an input picture: `width` x `height` visible samples at `luma_stride`,
    /// the rest of the last macroblock column and row filled by replicating the edge,
    /// into the buffers of `spare` ([`Planes::reuse`]).
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
    ) -> Result<Self, BusError> {
        let mut p = Planes::reuse(spare, mb_w, mb_h);
        let (s, cs) = (p.stride(), p.cstride());
        let (cw, ch) = (width.div_ceil(2), height.div_ceil(2));
        for y in 0..height {
            let dst = &mut p.y[y * s..y * s + width];
            mem.read(addr[0].wrapping_add((y * luma_stride) as u32), dst)?;
        }
        match fmt {
            InputFormat::I420 => {
                let cstride = luma_stride / 2;
                for y in 0..ch {
                    let at = |a: u32| a.wrapping_add((y * cstride) as u32);
                    mem.read(at(addr[1]), &mut p.cb[y * cs..y * cs + cw])?;
                    mem.read(at(addr[2]), &mut p.cr[y * cs..y * cs + cw])?;
                }
            }
            InputFormat::Nv12 => {
                let mut crow = vec![0u8; 2 * cw];
                for y in 0..ch {
                    mem.read(addr[1].wrapping_add((y * luma_stride) as u32), &mut crow)?;
                    for x in 0..cw {
                        p.cb[y * cs + x] = crow[2 * x];
                        p.cr[y * cs + x] = crow[2 * x + 1];
                    }
                }
            }
        }
        replicate_edges(&mut p.y, s, mb_h * 16, width, height);
        replicate_edges(&mut p.cb, cs, mb_h * 8, cw, ch);
        replicate_edges(&mut p.cr, cs, mb_h * 8, cw, ch);
        Ok(p)
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
    /// interleaved CbCr rows at `chroma`.
    pub fn store_recon(
        &self,
        mem: &mut dyn Memory,
        luma: u32,
        chroma: u32,
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
            for (k, (cb, cr)) in b.iter().zip(r).enumerate() {
                c[2 * k] = *cb;
                c[2 * k + 1] = *cr;
            }
            mem.write(chroma.wrapping_add((y * 2 * cs) as u32), &c)?;
        }
        Ok(())
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
