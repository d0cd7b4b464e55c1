//! The reference picture as the motion search reads it: luma and chroma with
//! replicated borders, and the three half-sample luma planes of clause
//! 8.4.2.2.1 computed once per frame, so that any quarter-sample prediction is
//! a copy or the rounded average of two planes (Table 8-12).
//!
//! Border replication equals the clamping of eq. 8-228/8-229, so predictions
//! are exact; blocks whose filter taps would leave the padded area fall back
//! to the sample-by-sample path of [`crate::inter`].
//!
//! A loaded picture gets its half-sample rows band by band, just before the
//! coder reaches them ([`RefPicture::prepare_half_rows`]): computed all at
//! once they would have left the cache by the time the search reads them.
//! Several threads compute them all first instead, a band each
//! ([`RefPicture::prepare_all_half_rows`]), since their wavefront reads
//! rows in any order. Predictions that would read rows not yet computed take the
//! sample-by-sample path, so the lazy planes change speed, never results.

use crate::inter::{self, mc_chroma, mc_luma, RefPlane, SadAvgFn, SadFn};
use crate::memory::{BusError, Memory};
use crate::picture::{self, Planes, SplitChromaFn};
use crate::workers::Workers;

/// Luma border, in samples, on every side.
const PAD: usize = 48;
/// Chroma border.
const CPAD: usize = PAD / 2;
/// Distance from the padded edge a block must keep for exact half-sample planes.
const MARGIN: i32 = 4;

/// A padded plane.
#[derive(Default)]
struct Padded<T> {
    data: Vec<T>,
    stride: usize,
}

/// The signature of [`average_rows`] at every CPU level.
pub type AverageRowsFn = fn(&[u8], &[u8], usize, &mut [u8], usize, usize, usize);
/// The signature of [`bilinear8`] at every CPU level.
pub type Bilinear8Fn = fn(&[u8], usize, [u16; 4], usize, &mut [u8], usize);
/// The signature of [`half_planes`] at every CPU level.
pub type HalfPlanesFn = fn(HalfPlanes<'_>);

/// The functions a reference picture runs, of one CPU level (the H1's).
#[derive(Clone, Copy)]
pub struct RefKernels {
    pub sad: SadFn,
    pub sad_avg: SadAvgFn,
    pub average_rows: AverageRowsFn,
    pub bilinear8: Bilinear8Fn,
    pub half_planes: HalfPlanesFn,
    pub split_chroma: SplitChromaFn,
}

impl RefKernels {
    /// The plain versions.
    pub const PLAIN: RefKernels = RefKernels {
        sad: inter::sad,
        sad_avg: inter::sad_avg,
        average_rows,
        bilinear8,
        half_planes,
        split_chroma: picture::split_chroma,
    };
}

impl Default for RefKernels {
    fn default() -> Self {
        Self::PLAIN
    }
}

/// One reference picture, prepared for motion estimation and compensation.
/// Its buffers are reused from frame to frame ([`RefPicture::prepare`]).
#[derive(Default)]
pub struct RefPicture {
    /// The functions of the H1's CPU level, given with each picture.
    k: RefKernels,
    /// Visible-area size in samples (whole macroblocks).
    width: i32,
    height: i32,
    /// Integer, horizontal half (b), vertical half (h) and centre (j) samples.
    g: Padded<u8>,
    b: Padded<u8>,
    h: Padded<u8>,
    j: Padded<u8>,
    cb: Padded<u8>,
    cr: Padded<u8>,
    /// One row of vertical 6-tap intermediates h1 (unrounded; they fit 16
    /// bits): j of a row needs only h1 of that row, so no h1 plane is kept.
    h1: Vec<i16>,
    /// One row of interleaved chroma as read from memory.
    scratch: Vec<u8>,
    /// Padded rows of b, h and j computed so far, from the top.
    half_rows: usize,
}

fn pad_plane(p: &mut Padded<u8>, src: &[u8], w: usize, rows: usize, pad: usize) {
    size_plane(p, w, rows, pad);
    for (y, srow) in src.chunks_exact(w).take(rows).enumerate() {
        p.data[(y + pad) * p.stride + pad..][..w].copy_from_slice(srow);
    }
    extend_borders(p, w, rows, pad);
}

/// Gives `p` the size of a `w` x `rows` plane with a border of `pad`.
fn size_plane(p: &mut Padded<u8>, w: usize, rows: usize, pad: usize) {
    p.stride = w + 2 * pad;
    p.data.resize(p.stride * (rows + 2 * pad), 0);
}

/// Replicates the edge samples of the `w` x `rows` picture inside `p` into its border.
fn extend_borders(p: &mut Padded<u8>, w: usize, rows: usize, pad: usize) {
    let stride = p.stride;
    for y in pad..pad + rows {
        let row = &mut p.data[y * stride..(y + 1) * stride];
        let (l, r) = (row[pad], row[pad + w - 1]);
        row[..pad].fill(l);
        row[pad + w..].fill(r);
    }
    for y in 0..pad {
        p.data
            .copy_within(pad * stride..(pad + 1) * stride, y * stride);
        let last = (pad + rows - 1) * stride;
        p.data
            .copy_within(last..last + stride, (pad + rows + y) * stride);
    }
}

#[inline]
fn clip1(v: i32) -> u8 {
    v.clamp(0, 255) as u8
}

#[inline]
fn tap6(a: i32, b: i32, c: i32, d: i32, e: i32, f: i32) -> i32 {
    a - 5 * b + 20 * c + 20 * d - 5 * e + f
}

/// The half-sample rows (of the padded planes) that the blocks of the
/// first `mb_rows` macroblock rows read when they move at most `reach`
/// samples down: the last block row, the filter taps and a second source
/// a row down.
fn half_rows_end(mb_rows: usize, reach: usize) -> usize {
    PAD + mb_rows * 16 + reach + MARGIN as usize + 1
}

impl RefPicture {
    /// A reference prepared from `planes`, running the functions `k`.
    pub fn new(planes: &Planes, k: RefKernels) -> Self {
        let mut r = RefPicture {
            k,
            ..Default::default()
        };
        r.prepare(planes);
        r
    }

    /// Pads `planes` and computes its half-sample planes, reusing the buffers.
    pub fn prepare(&mut self, planes: &Planes) {
        let (w, hgt) = (planes.stride(), planes.mb_h * 16);
        self.width = w as i32;
        self.height = hgt as i32;
        pad_plane(&mut self.g, &planes.y, w, hgt, PAD);
        pad_plane(
            &mut self.cb,
            &planes.cb,
            planes.cstride(),
            planes.mb_h * 8,
            CPAD,
        );
        pad_plane(
            &mut self.cr,
            &planes.cr,
            planes.cstride(),
            planes.mb_h * 8,
            CPAD,
        );
        self.start_half_planes();
        self.compute_half_rows(self.g.data.len() / self.g.stride);
    }

    /// Reads a reconstructed picture in the H1's format (luma rows, then rows
    /// of interleaved Cb and Cr) from memory straight into the padded planes;
    /// the half-sample planes follow with [`RefPicture::prepare_half_rows`].
    /// The picture runs the functions `k` until the next load.
    pub fn load(
        &mut self,
        mem: &dyn Memory,
        luma: u32,
        chroma: u32,
        mb_w: usize,
        mb_h: usize,
        k: RefKernels,
    ) -> Result<(), BusError> {
        self.k = k;
        let (w, hgt) = (mb_w * 16, mb_h * 16);
        self.width = w as i32;
        self.height = hgt as i32;
        size_plane(&mut self.g, w, hgt, PAD);
        let s = self.g.stride;
        for y in 0..hgt {
            let row = &mut self.g.data[(y + PAD) * s + PAD..][..w];
            mem.read(luma.wrapping_add((y * w) as u32), row)?;
        }
        extend_borders(&mut self.g, w, hgt, PAD);
        let (cw, ch) = (mb_w * 8, mb_h * 8);
        size_plane(&mut self.cb, cw, ch, CPAD);
        size_plane(&mut self.cr, cw, ch, CPAD);
        let cs = self.cb.stride;
        self.scratch.resize(2 * cw, 0);
        for y in 0..ch {
            mem.read(chroma.wrapping_add((y * 2 * cw) as u32), &mut self.scratch)?;
            let o = (y + CPAD) * cs + CPAD;
            let (b, r) = (&mut self.cb.data[o..o + cw], &mut self.cr.data[o..o + cw]);
            (self.k.split_chroma)(&self.scratch, b, r);
        }
        extend_borders(&mut self.cb, cw, ch, CPAD);
        extend_borders(&mut self.cr, cw, ch, CPAD);
        self.start_half_planes();
        Ok(())
    }

    /// Sizes the half-sample planes for the padded luma, none of their rows computed.
    fn start_half_planes(&mut self) {
        let s = self.g.stride;
        let n = self.g.data.len();
        for p in [&mut self.b, &mut self.h, &mut self.j] {
            p.stride = s;
            p.data.resize(n, 0);
        }
        self.h1.resize(s, 0);
        self.half_rows = 0;
    }

    /// Computes the half-sample rows every block of macroblock row `mby`
    /// reads when it moves at most `reach` samples down.
    pub fn prepare_half_rows(&mut self, mby: usize, reach: usize) {
        self.compute_half_rows(half_rows_end(mby + 1, reach));
    }

    /// Computes the half-sample rows of the whole picture, as
    /// [`RefPicture::prepare_half_rows`] does for its last macroblock row,
    /// a band on each of `workers` and on this thread at once: the
    /// wavefront reads them in any order.
    pub fn prepare_all_half_rows(&mut self, reach: usize, workers: &mut Workers) {
        let s = self.g.stride;
        let rows = self.g.data.len() / s;
        let height = rows - 2 * PAD;
        let end = half_rows_end(height / 16, reach).min(rows);
        let first = self.half_rows;
        if end <= first {
            return;
        }
        let per = (end - first).div_ceil(workers.len() + 1);
        let half_planes = self.k.half_planes;
        let g = &self.g.data[..];
        let mut rest = (
            &mut self.b.data[first * s..end * s],
            &mut self.h.data[first * s..end * s],
            &mut self.j.data[first * s..end * s],
        );
        let mut jobs: Vec<Box<dyn FnOnce() + Send + '_>> = Vec::new();
        let mut at = first;
        while at < end {
            let stop = (at + per).min(end);
            let n = (stop - at) * s;
            let (b, b_rest) = core::mem::take(&mut rest.0).split_at_mut(n);
            let (h, h_rest) = core::mem::take(&mut rest.1).split_at_mut(n);
            let (j, j_rest) = core::mem::take(&mut rest.2).split_at_mut(n);
            rest = (b_rest, h_rest, j_rest);
            jobs.push(Box::new(move || {
                half_planes(HalfPlanes {
                    g,
                    h1: &mut vec![0; s],
                    b,
                    h,
                    j,
                    stride: s,
                    rows,
                    first: at,
                    end: stop,
                })
            }));
            at = stop;
        }
        // The last band is this thread's.
        let last = jobs.pop();
        workers.run(jobs, || last.into_iter().for_each(|band| band()));
        self.half_rows = end;
    }

    /// Computes the half-sample planes down to padded row `end` (exclusive).
    fn compute_half_rows(&mut self, end: usize) {
        let s = self.g.stride;
        let rows = self.g.data.len() / s;
        let end = end.min(rows);
        if end <= self.half_rows {
            return;
        }
        let first = self.half_rows;
        let planes = HalfPlanes {
            g: &self.g.data,
            h1: &mut self.h1,
            b: &mut self.b.data[first * s..end * s],
            h: &mut self.h.data[first * s..end * s],
            j: &mut self.j.data[first * s..end * s],
            stride: s,
            rows,
            first,
            end,
        };
        (self.k.half_planes)(planes);
        self.half_rows = end;
    }

    /// [`RefPicture::fast`] for a block that may read the half-sample planes:
    /// also inside the rows computed so far.
    #[inline]
    fn fast_half(&self, x: i32, y: i32, w: usize, h: usize) -> bool {
        self.fast(x, y, w, h) && ((y + PAD as i32) as usize + h + 1) <= self.half_rows
    }

    /// The picture's luma with clamped access, for blocks outside the padded area.
    fn luma_plane(&self) -> RefPlane<'_> {
        RefPlane {
            data: &self.g.data[PAD * self.g.stride + PAD..],
            stride: self.g.stride,
            width: self.width,
            height: self.height,
        }
    }

    /// True when a `w` x `h` block at integer position (x, y) and its
    /// neighbours one sample right and down lie where the half-sample planes are exact.
    #[inline]
    fn fast(&self, x: i32, y: i32, w: usize, h: usize) -> bool {
        let lim = PAD as i32 - MARGIN;
        x >= -lim
            && y >= -lim
            && x + (w as i32) < self.width + lim
            && y + (h as i32) < self.height + lim
    }

    #[inline]
    fn at(&self, p: &Padded<u8>, x: i32, y: i32) -> usize {
        (y + PAD as i32) as usize * p.stride + (x + PAD as i32) as usize
    }

    /// Integer-position luma rows starting at (x, y), for SAD: `None` outside the padded area.
    #[inline]
    pub fn full_block(&self, x: i32, y: i32, w: usize, h: usize) -> Option<(&[u8], usize)> {
        if !self.fast(x, y, w, h) {
            return None;
        }
        let o = self.at(&self.g, x, y);
        Some((&self.g.data[o..], self.g.stride))
    }

    /// Predicts a `w` x `h` luma block at (x, y) moved by `mv` (quarter samples) into `out`.
    #[allow(clippy::too_many_arguments)]
    pub fn luma(
        &self,
        x: i32,
        y: i32,
        mv: [i32; 2],
        w: usize,
        h: usize,
        out: &mut [u8],
        os: usize,
    ) {
        let (xi, yi) = (x + (mv[0] >> 2), y + (mv[1] >> 2));
        if !self.fast_half(xi, yi, w, h) {
            let r = self.luma_plane();
            let mut tmp = [0u8; 256];
            mc_luma(&r, xi, yi, [mv[0] & 3, mv[1] & 3], w, h, &mut tmp);
            for row in 0..h {
                out[row * os..row * os + w].copy_from_slice(&tmp[row * w..row * w + w]);
            }
            return;
        }
        let (first, second) = self.sources(xi, yi, mv);
        let st = self.g.stride;
        match second {
            None => copy_rows(first, st, out, os, w, h),
            Some(sec) => (self.k.average_rows)(first, sec, st, out, os, w, h),
        }
    }

    /// The plane samples Table 8-12 takes for vector `mv` at integer position
    /// (xi, yi): one plane, or two to average (all planes share one stride).
    #[inline]
    fn sources(&self, xi: i32, yi: i32, mv: [i32; 2]) -> (&[u8], Option<&[u8]>) {
        let (g, b, hh, j) = (&self.g, &self.b, &self.h, &self.j);
        type Second<'p> = Option<(&'p Padded<u8>, i32, i32)>;
        let (first, fx, second): (&Padded<u8>, i32, Second) = match (mv[0] & 3, mv[1] & 3) {
            (0, 0) => (g, 0, None),
            (0, 1) => (g, 0, Some((hh, 0, 0))),
            (0, 2) => (hh, 0, None),
            (0, 3) => (hh, 0, Some((g, 0, 1))),
            (1, 0) => (g, 0, Some((b, 0, 0))),
            (1, 1) => (b, 0, Some((hh, 0, 0))),
            (1, 2) => (hh, 0, Some((j, 0, 0))),
            (1, 3) => (hh, 0, Some((b, 0, 1))),
            (2, 0) => (b, 0, None),
            (2, 1) => (b, 0, Some((j, 0, 0))),
            (2, 2) => (j, 0, None),
            (2, 3) => (j, 0, Some((b, 0, 1))),
            (3, 0) => (b, 0, Some((g, 1, 0))),
            (3, 1) => (b, 0, Some((hh, 1, 0))),
            (3, 2) => (j, 0, Some((hh, 1, 0))),
            _ => (hh, 1, Some((b, 0, 1))),
        };
        let a = &first.data[self.at(first, xi + fx, yi)..];
        (
            a,
            second.map(|(p, dx, dy)| &p.data[self.at(p, xi + dx, yi + dy)..]),
        )
    }

    /// SAD between `src` (stride `ss`) and the prediction [`RefPicture::luma`]
    /// would give, without building it.
    #[allow(clippy::too_many_arguments)]
    pub fn sad(
        &self,
        x: i32,
        y: i32,
        mv: [i32; 2],
        w: usize,
        h: usize,
        src: &[u8],
        ss: usize,
    ) -> u32 {
        let (xi, yi) = (x + (mv[0] >> 2), y + (mv[1] >> 2));
        if !self.fast_half(xi, yi, w, h) {
            let mut tmp = [0u8; 256];
            self.luma(x, y, mv, w, h, &mut tmp, 16);
            return (self.k.sad)(src, ss, &tmp, 16, w, h);
        }
        let st = self.g.stride;
        match self.sources(xi, yi, mv) {
            (a, None) => (self.k.sad)(src, ss, a, st, w, h),
            (a, Some(b)) => (self.k.sad_avg)(src, ss, a, b, st, w, h),
        }
    }

    /// Predicts a `w` x `h` block of chroma plane `c` (0 Cb, 1 Cr) at chroma
    /// position (x, y) for luma vector `mv` (eighth chroma samples, 8.4.2.2.2).
    #[allow(clippy::too_many_arguments)]
    pub fn chroma(
        &self,
        c: usize,
        x: i32,
        y: i32,
        mv: [i32; 2],
        w: usize,
        h: usize,
        out: &mut [u8],
        os: usize,
    ) {
        let (xi, yi) = (x + (mv[0] >> 3), y + (mv[1] >> 3));
        let (fx, fy) = (mv[0] & 7, mv[1] & 7);
        let lim = CPAD as i32 - 2;
        let (cw, ch) = (self.width / 2, self.height / 2);
        let p = if c == 0 { &self.cb } else { &self.cr };
        if xi < -lim || yi < -lim || xi + w as i32 + 1 > cw + lim || yi + h as i32 + 1 > ch + lim {
            let r = RefPlane {
                data: &p.data[CPAD * p.stride + CPAD..],
                stride: p.stride,
                width: cw,
                height: ch,
            };
            let mut tmp = [0u8; 64];
            mc_chroma(&r, x, y, mv, w, h, &mut tmp);
            for row in 0..h {
                out[row * os..row * os + w].copy_from_slice(&tmp[row * w..row * w + w]);
            }
            return;
        }
        let s = p.stride;
        let o = (yi + CPAD as i32) as usize * s + (xi + CPAD as i32) as usize;
        if fx == 0 && fy == 0 {
            copy_rows(&p.data[o..], s, out, os, w, h);
            return;
        }
        let (wa, wb, wc, wd) = (
            ((8 - fx) * (8 - fy)) as u16,
            (fx * (8 - fy)) as u16,
            ((8 - fx) * fy) as u16,
            (fx * fy) as u16,
        );
        let wts = [wa, wb, wc, wd];
        if w == 8 {
            // Whole-macroblock chroma: fixed-width rows the compiler vectorizes.
            (self.k.bilinear8)(&p.data[o..], s, wts, h, out, os);
            return;
        }
        for row in 0..h {
            let r0 = &p.data[o + row * s..][..w + 1];
            let r1 = &p.data[o + (row + 1) * s..][..w + 1];
            let d = &mut out[row * os..row * os + w];
            for k in 0..w {
                d[k] = bilinear(wts, r0[k], r0[k + 1], r1[k], r1[k + 1]);
            }
        }
    }
}

/// `out` = the rounded average `(a + b + 1) >> 1` of `h` rows of `w` samples
/// of `a` and `b` (Table 8-12's quarter samples).
pub fn average_rows(a: &[u8], b: &[u8], st: usize, out: &mut [u8], os: usize, w: usize, h: usize) {
    for row in 0..h {
        let (ra, rb) = (&a[row * st..][..w], &b[row * st..][..w]);
        for (d, (x, y)) in out[row * os..][..w].iter_mut().zip(ra.iter().zip(rb)) {
            *d = ((*x as u16 + *y as u16 + 1) >> 1) as u8;
        }
    }
}

/// Copies `h` rows of `w` samples; block widths get fixed-size copies, which
/// compile to moves where a variable length would call `memcpy` per row.
#[inline]
fn copy_rows(src: &[u8], ss: usize, out: &mut [u8], os: usize, w: usize, h: usize) {
    fn rows<const W: usize>(src: &[u8], ss: usize, out: &mut [u8], os: usize, h: usize) {
        if h == 0 {
            return;
        }
        // One bounds check per block instead of two per row.
        let (src, out) = (&src[..(h - 1) * ss + W], &mut out[..(h - 1) * os + W]);
        for row in 0..h {
            // SAFETY: row * ss + W <= src.len() and row * os + W <= out.len()
            // for row < h (the slices were cut to those lengths above), and
            // the two slices do not overlap (one is shared, one exclusive).
            unsafe {
                core::ptr::copy_nonoverlapping(
                    src.as_ptr().add(row * ss),
                    out.as_mut_ptr().add(row * os),
                    W,
                );
            }
        }
    }
    match w {
        16 => rows::<16>(src, ss, out, os, h),
        8 => rows::<8>(src, ss, out, os, h),
        4 => rows::<4>(src, ss, out, os, h),
        2 => rows::<2>(src, ss, out, os, h),
        _ => {
            for row in 0..h {
                out[row * os..][..w].copy_from_slice(&src[row * ss..][..w]);
            }
        }
    }
}

/// Equation 8-266: the weighted average of four chroma samples.
#[inline(always)]
fn bilinear([wa, wb, wc, wd]: [u16; 4], a: u8, b: u8, c: u8, d: u8) -> u8 {
    ((wa * a as u16 + wb * b as u16 + wc * c as u16 + wd * d as u16 + 32) >> 6) as u8
}

/// `h` rows of 8 bilinear chroma predictions from `src` (9 x `h` + 1
/// samples at stride `s`) with the weights `wts` of equation 8-266;
/// fixed-width rows the compiler vectorizes.
#[inline(always)]
pub fn bilinear8(src: &[u8], s: usize, wts: [u16; 4], h: usize, out: &mut [u8], os: usize) {
    for row in 0..h {
        let r0: &[u8; 9] = src[row * s..][..9].try_into().expect("row of 9");
        let r1: &[u8; 9] = src[(row + 1) * s..][..9].try_into().expect("row of 9");
        let d: &mut [u8; 8] = (&mut out[row * os..][..8]).try_into().expect("row of 8");
        for k in 0..8 {
            d[k] = bilinear(wts, r0[k], r0[k + 1], r1[k], r1[k + 1]);
        }
    }
}

/// A band of rows of the three half-sample planes and what they are
/// computed from: a padded luma plane `g` of `rows` rows of `stride`
/// samples and a row of h1 intermediates. `b`, `h` and `j` hold only the
/// band's rows, so that bands of one picture can be computed at once.
pub struct HalfPlanes<'a> {
    pub g: &'a [u8],
    pub h1: &'a mut [i16],
    /// Rows `first..end` of b, h and j.
    pub b: &'a mut [u8],
    pub h: &'a mut [u8],
    pub j: &'a mut [u8],
    pub stride: usize,
    pub rows: usize,
    /// The rows to compute: `first..end`.
    pub first: usize,
    pub end: usize,
}

/// Computes h (vertical), b (horizontal) and j (centre) of clause 8.4.2.2.1,
/// row by row: h and h1 of rows whose vertical taps exist (h1 is zero
/// elsewhere), b of columns 2..stride - 3 of every row, j from the row's h1;
/// the rows `p.first..p.end`.
pub fn half_planes(p: HalfPlanes) {
    let (g, s, rows) = (p.g, p.stride, p.rows);
    for y in p.first..p.end {
        let h1 = &mut p.h1[..s];
        if (2..rows - 3).contains(&y) {
            let r = |k: usize| &g[(y + k - 2) * s..(y + k - 1) * s];
            let (r0, r1, r2, r3, r4, r5) = (r(0), r(1), r(2), r(3), r(4), r(5));
            let hout = &mut p.h[(y - p.first) * s..(y - p.first + 1) * s];
            for x in 0..s {
                let v = tap6(
                    r0[x] as i32,
                    r1[x] as i32,
                    r2[x] as i32,
                    r3[x] as i32,
                    r4[x] as i32,
                    r5[x] as i32,
                );
                h1[x] = v as i16;
                hout[x] = clip1((v + 16) >> 5);
            }
        } else {
            h1.fill(0);
        }
        let row = &g[y * s..(y + 1) * s];
        let band = (y - p.first) * s;
        tap6_row(row, &mut p.b[band + 2..band + s - 3], 16, 5);
        tap6_row(&*h1, &mut p.j[band + 2..band + s - 3], 512, 10);
    }
}

/// `out[x]` = Clip1((6-tap of `row[x..x + 6]` + `round`) >> `shift`), for every x of `out`.
#[inline(always)]
fn tap6_row<T: Copy + Into<i32>>(row: &[T], out: &mut [u8], round: i32, shift: u32) {
    // Six shifted views of equal length let the compiler drop bounds checks.
    let n = out.len();
    let t: [&[T]; 6] = core::array::from_fn(|k| &row[k..k + n]);
    for (x, o) in out.iter_mut().enumerate() {
        let v = tap6(
            t[0][x].into(),
            t[1][x].into(),
            t[2][x].into(),
            t[3][x].into(),
            t[4][x].into(),
            t[5][x].into(),
        );
        *o = clip1((v + round) >> shift);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Half-sample planes computed band by band, as the coder asks for
    /// them, equal those computed at once.
    #[test]
    fn half_planes_in_bands_equal_those_at_once() {
        let mut rng = crate::testrng::Rng::new(0x0bad_5eed);
        let mut p = Planes::new(5, 4);
        for v in p.y.iter_mut() {
            *v = rng.byte();
        }
        let whole = RefPicture::new(&p, RefKernels::PLAIN);
        let mut banded = RefPicture::new(&p, RefKernels::PLAIN);
        banded.start_half_planes();
        let mut end = 0;
        while end < banded.g.data.len() / banded.g.stride {
            end += rng.range(1, 40) as usize;
            banded.compute_half_rows(end);
        }
        for (a, b) in [
            (&whole.b, &banded.b),
            (&whole.h, &banded.h),
            (&whole.j, &banded.j),
        ] {
            assert!(a.data == b.data);
        }
    }

    /// Predictions that reach rows not computed yet are still exact (they
    /// take the sample-by-sample path).
    #[test]
    fn predictions_beyond_the_computed_rows_are_exact() {
        let mut rng = crate::testrng::Rng::new(0x7070_1234);
        let mut p = Planes::new(3, 3);
        for v in p.y.iter_mut() {
            *v = rng.byte();
        }
        let whole = RefPicture::new(&p, RefKernels::PLAIN);
        let mut lazy = RefPicture::new(&p, RefKernels::PLAIN);
        lazy.start_half_planes();
        lazy.prepare_half_rows(0, 0);
        for _ in 0..5000 {
            let (x, y) = (rng.range(0, 2) * 16, rng.range(0, 2) * 16);
            let mv = [rng.range(-80, 80), rng.range(-80, 80)];
            let (mut a, mut b) = ([0u8; 256], [0u8; 256]);
            whole.luma(x, y, mv, 16, 16, &mut a, 16);
            lazy.luma(x, y, mv, 16, 16, &mut b, 16);
            assert_eq!(a, b, "({x},{y}) {mv:?}");
            let src: [u8; 256] = core::array::from_fn(|_| rng.byte());
            assert_eq!(
                whole.sad(x, y, mv, 16, 16, &src, 16),
                lazy.sad(x, y, mv, 16, 16, &src, 16)
            );
        }
    }

    /// Every fast prediction equals the sample-by-sample one of clause 8.4.2.2,
    /// inside the picture, near its edges and far outside it.
    #[test]
    fn fast_prediction_equals_the_plain_one() {
        let mut rng = crate::testrng::Rng::new(0x9e37_79b9_7f4a_7c15);
        let mut p = Planes::new(3, 2);
        for v in p.y.iter_mut().chain(p.cb.iter_mut()).chain(p.cr.iter_mut()) {
            *v = rng.byte();
        }
        let rp = RefPicture::new(&p, RefKernels::PLAIN);
        let luma = RefPlane {
            data: &p.y,
            stride: p.stride(),
            width: 48,
            height: 32,
        };
        for _ in 0..20000 {
            let (w, h) = [(16, 16), (16, 8), (8, 16), (8, 8), (8, 4), (4, 8), (4, 4)]
                [rng.range(0, 6) as usize];
            let (x, y) = (
                rng.range(0, 2) * 16 + rng.range(0, 3) * 4,
                rng.range(0, 1) * 16,
            );
            let mv = [rng.range(-400, 400), rng.range(-400, 400)];
            let mut want = [0u8; 256];
            let mut got = [0u8; 256];
            mc_luma(&luma, x, y, mv, w, h, &mut want);
            rp.luma(x, y, mv, w, h, &mut got, w);
            assert_eq!(
                want[..w * h],
                got[..w * h],
                "luma {w}x{h} at ({x},{y}) mv {mv:?}"
            );
            for c in 0..2 {
                let plane = if c == 0 { &p.cb } else { &p.cr };
                let r = RefPlane {
                    data: plane,
                    stride: p.cstride(),
                    width: 24,
                    height: 16,
                };
                let (cw, ch) = (w / 2, h / 2);
                mc_chroma(&r, x / 2, y / 2, mv, cw, ch, &mut want);
                rp.chroma(c, x / 2, y / 2, mv, cw, ch, &mut got, cw);
                assert_eq!(
                    want[..cw * ch],
                    got[..cw * ch],
                    "chroma {c} at ({x},{y}) mv {mv:?}"
                );
            }
        }
    }
}
