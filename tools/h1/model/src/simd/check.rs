//! The harness of the CPU levels, after dav1d's checkasm: every function of
//! the [`Dsp`] of every level this CPU runs against the plain level's, on
//! random inputs and on the edge cases (all 0, all 255, 0 and 255
//! alternating, the largest residuals, every block shape the callers use,
//! odd strides, rows whose tail is shorter than a vector, unaligned
//! starts), thousands of times each. Buffers end where the function's last
//! read ends, and outputs start as the same random bytes for both, so a
//! stray read or write shows. A failure names the function, the level and
//! the input; a fast function that panics where the plain one does not
//! fails too.

use super::{CpuLevel, Dsp};
use crate::deblock::{DeblockParams, DeblockRows};
use crate::mb::decision::ChromaCoding;
use crate::mb::MbInfo;
use crate::mvpred::BlockMotion;
use crate::picture::Planes;
use crate::refpic::HalfPlanes;
use crate::testrng::Rng;
use std::fmt::Debug;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// The plain table, and those of the other levels this CPU runs.
fn tables() -> (&'static Dsp, Vec<&'static Dsp>) {
    let fast = CpuLevel::supported()
        .filter(|&l| l != CpuLevel::Plain)
        .map(|l| {
            let d = Dsp::for_level(l);
            assert_eq!(d.level, l, "the table of {l}");
            d
        })
        .collect();
    (Dsp::for_level(CpuLevel::Plain), fast)
}

/// Fails, naming `name`, `level` and `input`, when `fast` panics or gives
/// other than `want` (the plain function's result).
fn expect<T: Outcome>(
    name: &str,
    level: CpuLevel,
    want: &T,
    input: &dyn Fn() -> String,
    fast: impl FnOnce() -> T,
) {
    match catch_unwind(AssertUnwindSafe(fast)) {
        Ok(got) if got == *want => {}
        Ok(got) => panic!("{name}, level {level}, {}: {}", input(), got.differ(want)),
        Err(_) => panic!("{name}, level {level}, {}: panicked", input()),
    }
}

/// What a function under test gives, and how two of them differ.
trait Outcome: PartialEq + Debug {
    /// How `self` differs from `want`, the plain function's.
    fn differ(&self, want: &Self) -> String {
        format!("got {self:?} where plain gives {want:?}")
    }
}

impl Outcome for u32 {}
impl Outcome for bool {}
impl Outcome for [u32; 2] {}
impl Outcome for ([[i32; 16]; 16], u32) {}
impl Outcome for ChromaLevels {}

impl Outcome for Vec<u8> {
    fn differ(&self, want: &Self) -> String {
        let diff: Vec<usize> = (0..self.len()).filter(|&i| self[i] != want[i]).collect();
        let i = diff[0];
        format!(
            "{} samples differ, the first at index {i}: {} where plain gives {}",
            diff.len(),
            self[i],
            want[i]
        )
    }
}

/// Several buffers, as their names.
macro_rules! outcome_of_buffers {
    ($t:ty, $($f:tt $name:literal),+) => {
        impl Outcome for $t {
            fn differ(&self, want: &Self) -> String {
                $(if self.$f != want.$f {
                    return format!("{}: {}", $name, self.$f.differ(&want.$f));
                })+
                unreachable!("equal buffers")
            }
        }
    };
}
outcome_of_buffers!((Vec<u8>, Vec<u8>), 0 "first", 1 "second");
outcome_of_buffers!((Vec<u8>, Vec<u8>, Vec<u8>), 0 "b", 1 "h", 2 "j");
outcome_of_buffers!(Planes, y "luma", cb "Cb", cr "Cr");

/// The levels of [`ChromaCoding`]: DC, AC, cbp, reconstruction.
type ChromaLevels = ([[i32; 4]; 2], [[[i32; 16]; 4]; 2], u32, [[u8; 64]; 2]);

/// How a test buffer is filled.
#[derive(Clone, Copy, Debug)]
enum Fill {
    Zero,
    Max,
    /// 0 and 255 alternating along a row, in either phase.
    Alternate(bool),
    /// 0 and 255 in a checkerboard, in either phase.
    Checker(bool),
    Random,
    /// Random samples within this spread of a random level.
    Smooth(i32),
}

const FILLS: [Fill; 8] = [
    Fill::Zero,
    Fill::Max,
    Fill::Alternate(false),
    Fill::Alternate(true),
    Fill::Checker(false),
    Fill::Checker(true),
    Fill::Random,
    Fill::Smooth(16),
];

/// The fills of case `n`: every pair of [`FILLS`] in turn (the largest
/// residuals among them), a random third.
fn fills(rng: &mut Rng, n: usize) -> [Fill; 3] {
    let k = FILLS.len();
    let third = FILLS[rng.range(0, k as i32 - 1) as usize];
    [FILLS[n % k], FILLS[n / k % k], third]
}

/// `len` samples filled `how`, as rows of `stride`.
fn filled(rng: &mut Rng, how: Fill, len: usize, stride: usize) -> Vec<u8> {
    let base = rng.range(16, 239);
    (0..len)
        .map(|i| {
            let (x, y) = (i % stride.max(1), i / stride.max(1));
            match how {
                Fill::Zero => 0,
                Fill::Max => 255,
                Fill::Alternate(p) => [0, 255][(x + p as usize) % 2],
                Fill::Checker(p) => [0, 255][(x + y + p as usize) % 2],
                Fill::Random => rng.byte(),
                Fill::Smooth(d) => (base + rng.range(-d, d)).clamp(0, 255) as u8,
            }
        })
        .collect()
}

/// A block of `h` rows of `w` samples at `stride`, from offset `off`: the
/// buffer ends with the block's last sample.
fn block(rng: &mut Rng, how: Fill, off: usize, stride: usize, w: usize, h: usize) -> Vec<u8> {
    filled(rng, how, off + (h.max(1) - 1) * stride + w, stride)
}

/// A stride for rows of `w`: tight, 16, odd, a reference picture's, wide.
fn stride(rng: &mut Rng, w: usize) -> usize {
    match rng.range(0, 4) {
        0 => w,
        1 => w.max(16),
        2 => w + rng.range(1, 40) as usize,
        3 => w.max(112),
        _ => w.max(1376),
    }
}

/// An offset that leaves a block unaligned (or not).
fn offset(rng: &mut Rng) -> usize {
    rng.range(0, 31) as usize
}

/// Block shapes: the partitions and chroma blocks the callers use, then
/// shorter, taller, wider and odd ones (tails of the vector widths).
const SHAPES: [(usize, usize); 20] = [
    (16, 16),
    (16, 8),
    (8, 16),
    (8, 8),
    (8, 4),
    (4, 8),
    (4, 4),
    (16, 4),
    (16, 2),
    (16, 1),
    (16, 15),
    (8, 1),
    (8, 7),
    (4, 1),
    (12, 4),
    (24, 8),
    (32, 16),
    (48, 4),
    (3, 5),
    (1, 1),
];

#[test]
fn sad_and_sad_avg() {
    let (plain, fast) = tables();
    let mut rng = Rng::new(0x5ad0_0001);
    for n in 0..20_000 {
        let (w, h) = SHAPES[n % SHAPES.len()];
        let [fa, fb, fc] = fills(&mut rng, n / SHAPES.len());
        let (sa, sb) = (stride(&mut rng, w), stride(&mut rng, w));
        let (oa, ob, oc) = (offset(&mut rng), offset(&mut rng), offset(&mut rng));
        let a = block(&mut rng, fa, oa, sa, w, h);
        let b = block(&mut rng, fb, ob, sb, w, h);
        let c = block(&mut rng, fc, oc, sb, w, h);
        let (a, b, c) = (&a[oa..], &b[ob..], &c[oc..]);
        let input = || {
            format!(
                "{w}x{h}, strides {sa} {sb}, offsets {oa} {ob} {oc}, fills {fa:?} {fb:?} {fc:?}"
            )
        };
        let want = (plain.sad)(a, sa, b, sb, w, h);
        let want_avg = (plain.sad_avg)(a, sa, b, c, sb, w, h);
        for d in &fast {
            expect("sad", d.level, &want, &input, || {
                (d.sad)(a, sa, b, sb, w, h)
            });
            let got = || (d.sad_avg)(a, sa, b, c, sb, w, h);
            expect("sad_avg", d.level, &want_avg, &input, got);
        }
    }
}

#[test]
fn satd() {
    let (plain, fast) = tables();
    let mut rng = Rng::new(0x5a7d_0002);
    // Whole 4x4 tiles, as the callers have them.
    let shapes = SHAPES.iter().filter(|(w, h)| w % 4 == 0 && h % 4 == 0);
    let shapes: Vec<_> = shapes.chain(&[(16, 12), (8, 12), (64, 4)]).collect();
    for n in 0..20_000 {
        let &(w, h) = shapes[n % shapes.len()];
        let [fa, fb, _] = fills(&mut rng, n / shapes.len());
        let (sa, sb) = (stride(&mut rng, w), stride(&mut rng, w));
        let (oa, ob) = (offset(&mut rng), offset(&mut rng));
        let a = block(&mut rng, fa, oa, sa, w, h);
        let b = block(&mut rng, fb, ob, sb, w, h);
        let (a, b) = (&a[oa..], &b[ob..]);
        let input =
            || format!("{w}x{h}, strides {sa} {sb}, offsets {oa} {ob}, fills {fa:?} {fb:?}");
        let want = (plain.satd)(a, sa, b, sb, w, h);
        for d in &fast {
            expect("satd", d.level, &want, &input, || {
                (d.satd)(a, sa, b, sb, w, h)
            });
        }
    }
}

/// A block of `N` samples filled `how`, rows of `row`.
fn array<const N: usize>(rng: &mut Rng, how: Fill, row: usize) -> [u8; N] {
    filled(rng, how, N, row).try_into().expect("N samples")
}

#[test]
fn satd4x4_x2_and_sa8d8() {
    let (plain, fast) = tables();
    let mut rng = Rng::new(0x5a8d_0003);
    for n in 0..20_000 {
        let [fa, fb, fc] = fills(&mut rng, n);
        let (s, pa, pb) = (
            array(&mut rng, fa, 4),
            array(&mut rng, fb, 4),
            array(&mut rng, fc, 4),
        );
        let input = || format!("fills {fa:?} {fb:?} {fc:?}: {s:?} {pa:?} {pb:?}");
        let want = (plain.satd4x4_x2)(&s, &pa, &pb);
        let (a, b) = (array(&mut rng, fa, 8), array(&mut rng, fb, 8));
        let input8 = || format!("fills {fa:?} {fb:?}: {a:?} {b:?}");
        let want8 = (plain.sa8d8)(&a, &b);
        for d in &fast {
            let got = || (d.satd4x4_x2)(&s, &pa, &pb);
            expect("satd4x4_x2", d.level, &want, &input, got);
            expect("sa8d8", d.level, &want8, &input8, || (d.sa8d8)(&a, &b));
        }
    }
}

/// `pred` plus a residual of at most `amp` (0 none, 256 the extremes 0 and 255).
fn around(rng: &mut Rng, pred: &[u8], amp: i32) -> Vec<u8> {
    pred.iter()
        .map(|&p| match amp {
            0 => p,
            256 => (rng.next_u64() & 1) as u8 * 255,
            _ => (p as i32 + rng.range(-amp, amp)).clamp(0, 255) as u8,
        })
        .collect()
}

/// Residual amplitudes: none, small ones that quantize to nothing or to
/// little at most QPs, large ones, the extremes; 257 takes the fills.
const AMPS: [i32; 10] = [0, 1, 2, 3, 5, 8, 16, 40, 256, 257];

#[test]
fn luma_residuals() {
    let (plain, fast) = tables();
    let mut rng = Rng::new(0x2e70_0004);
    let mut seen = [0u32; 2];
    // Every QP, amplitude and pair of fills.
    for n in 0..52 * AMPS.len() * FILLS.len() * FILLS.len() {
        let qp = (n % 52) as i32;
        let amp = AMPS[n / 52 % AMPS.len()];
        let [fp, fs, _] = fills(&mut rng, n / 520);
        let pred: [u8; 256] = array(&mut rng, fp, 16);
        let src: [u8; 256] = match amp {
            257 => array(&mut rng, fs, 16),
            _ => around(&mut rng, &pred, amp).try_into().expect("256"),
        };
        let input = || format!("qp {qp}, amplitude {amp}, fills {fp:?} {fs:?}: {src:?} {pred:?}");
        let zero = (plain.luma_is_zero)(&src, &pred, qp);
        seen[zero as usize] += 1;
        let levels = (plain.quant_luma_inter)(&src, &pred, qp);
        for d in &fast {
            let got = || (d.luma_is_zero)(&src, &pred, qp);
            expect("luma_is_zero", d.level, &zero, &input, got);
            let got = || (d.quant_luma_inter)(&src, &pred, qp);
            expect("quant_luma_inter", d.level, &levels, &input, got);
        }
    }
    // Both answers occur often enough to mean something.
    assert!(seen[0] > 2000 && seen[1] > 2000, "{seen:?}");
}

#[test]
fn chroma_residuals() {
    let (plain, fast) = tables();
    let mut rng = Rng::new(0xc4_0005);
    let mut seen = [0u32; 2];
    // Every QP, amplitude and pair of fills.
    for n in 0..52 * AMPS.len() * FILLS.len() * FILLS.len() {
        let qpc = (n % 52) as i32;
        let amp = AMPS[n / 52 % AMPS.len()];
        let [fp, fs, _] = fills(&mut rng, n / 520);
        let preds: [[u8; 64]; 2] = [array(&mut rng, fp, 8), array(&mut rng, fp, 8)];
        // Macroblock (mbx, mby) of planes of stride cs, or the block at
        // sample (x, y) for the zero test; the planes end with the block.
        let (mbx, mby) = (rng.range(0, 3) as usize, rng.range(0, 2) as usize);
        let cs = 8 * (mbx + 1) + [0, 8, rng.range(1, 40) as usize][n % 3];
        let (x, y) = (mbx * 8, mby * 8);
        let mut planes = [
            vec![0u8; (y + 7) * cs + x + 8],
            vec![0u8; (y + 7) * cs + x + 8],
        ];
        for (plane, pred) in planes.iter_mut().zip(&preds) {
            let noise = filled(&mut rng, Fill::Random, plane.len(), cs);
            plane.copy_from_slice(&noise);
            for r in 0..8 {
                let row = &pred[r * 8..r * 8 + 8];
                let src = match amp {
                    257 => filled(&mut rng, fs, 8, 8),
                    _ => around(&mut rng, row, amp),
                };
                plane[(y + r) * cs + x..][..8].copy_from_slice(&src);
            }
        }
        let p = [&planes[0][..], &planes[1][..]];
        let intra = n % 2 == 1;
        let input = || {
            format!("qpc {qpc}, amplitude {amp}, fills {fp:?} {fs:?}, stride {cs}, macroblock ({mbx}, {mby}), intra {intra}")
        };
        let zero = (plain.chroma_is_zero)(p, cs, x, y, qpc, &preds);
        seen[zero as usize] += 1;
        let flat = |c: ChromaCoding| -> ChromaLevels { (c.dc, c.ac, c.cbp, c.rec) };
        let levels = flat((plain.quant_chroma)(p, cs, mbx, mby, qpc, intra, &preds));
        for d in &fast {
            let got = || (d.chroma_is_zero)(p, cs, x, y, qpc, &preds);
            expect("chroma_is_zero", d.level, &zero, &input, got);
            let got = || flat((d.quant_chroma)(p, cs, mbx, mby, qpc, intra, &preds));
            expect("quant_chroma", d.level, &levels, &input, got);
        }
    }
    assert!(seen[0] > 2000 && seen[1] > 2000, "{seen:?}");
}

/// Filter strengths: each of the four groups random, or all of one value.
fn strengths(rng: &mut Rng, n: usize) -> [u8; 4] {
    match n % 6 {
        k @ 0..=4 => [k as u8; 4],
        _ => core::array::from_fn(|_| rng.range(0, 4) as u8),
    }
}

/// indexA and indexB: random, or the ends of the tables.
fn indices(rng: &mut Rng, n: usize) -> (usize, usize) {
    match n % 7 {
        0 => (0, 0),
        1 => (51, 51),
        2 => (51, 0),
        _ => (rng.range(0, 51) as usize, rng.range(0, 51) as usize),
    }
}

#[test]
fn edge_filters() {
    let (plain, fast) = tables();
    let mut rng = Rng::new(0xdeb1_0006);
    let mut changed = 0;
    for n in 0..30_000 {
        let chroma = n % 2 == 1;
        let vertical = n / 2 % 2 == 0;
        let bs = strengths(&mut rng, n / 4);
        let (ia, ib) = indices(&mut rng, n / 4);
        // Mostly smooth content, which the filters act on.
        let how = match n / 4 % 3 {
            0 => FILLS[n / 12 % FILLS.len()],
            _ => Fill::Smooth([1, 2, 4, 8][n / 12 % 4]),
        };
        let (len, pos) = if chroma {
            (8, 4 * rng.range(0, 1) as usize)
        } else {
            (16, 4 * rng.range(0, 3) as usize)
        };
        // Any position with the four samples before the edge inside the plane.
        let (x0, y0) = (rng.range(4, 20) as usize, rng.range(4, 20) as usize);
        let s = x0 + len + [0, 1, rng.range(2, 40) as usize][n % 3];
        // The plane ends with the last sample the filter may read.
        let end = if vertical {
            (y0 + len - 1) * s + x0 + pos + 4
        } else {
            (y0 + pos + 3) * s + x0 + len
        };
        let plane = |rng: &mut Rng| filled(rng, how, end, s);
        let input = || {
            format!("{} edge, vertical {vertical}, at ({x0}, {y0}) + {pos}, stride {s}, bS {bs:?}, indexA {ia}, indexB {ib}, fill {how:?}", if chroma { "chroma" } else { "luma" })
        };
        if chroma {
            let (cb, cr) = (plane(&mut rng), plane(&mut rng));
            let run = |f: crate::deblock::ChromaEdgeFn| {
                let (mut b, mut r) = (cb.clone(), cr.clone());
                f(&mut b, &mut r, s, x0, y0, pos, vertical, &bs, ia, ib);
                (b, r)
            };
            let want = run(plain.filter_chroma_edge);
            changed += usize::from(want != (cb.clone(), cr.clone()));
            for d in &fast {
                expect("filter_chroma_edge", d.level, &want, &input, || {
                    run(d.filter_chroma_edge)
                });
            }
        } else {
            let y = plane(&mut rng);
            let run = |f: crate::deblock::LumaEdgeFn| {
                let mut p = y.clone();
                f(&mut p, s, x0, y0, pos, vertical, &bs, ia, ib);
                p
            };
            let want = run(plain.filter_luma_edge);
            changed += usize::from(want != y);
            for d in &fast {
                expect("filter_luma_edge", d.level, &want, &input, || {
                    run(d.filter_luma_edge)
                });
            }
        }
    }
    // The filters did act in many cases (a test of nothing would pass too).
    assert!(changed > 6000, "{changed} of 30000 cases filtered anything");
}

#[test]
fn deblocked_frames() {
    let (plain, fast) = tables();
    let mut rng = Rng::new(0xf4a3_0007);
    for n in 0..400 {
        let (mb_w, mb_h) = (rng.range(1, 5) as usize, rng.range(1, 4) as usize);
        let how = [
            Fill::Smooth(4),
            Fill::Random,
            Fill::Checker(false),
            Fill::Max,
        ][n % 4];
        let mut rec = Planes::new(mb_w, mb_h);
        for p in [&mut rec.y, &mut rec.cb, &mut rec.cr] {
            let stride = if p.len() == mb_w * mb_h * 256 {
                mb_w * 16
            } else {
                mb_w * 8
            };
            *p = filled(&mut rng, how, p.len(), stride);
        }
        let slices = rng.range(1, 3);
        let mbs: Vec<MbInfo> = (0..mb_w * mb_h)
            .map(|i| MbInfo {
                slice: (i * slices as usize / (mb_w * mb_h)) as i32,
                intra: rng.range(0, 5) == 0,
                qp: if n % 5 == 0 {
                    [0, 51][i % 2]
                } else {
                    rng.range(10, 51)
                },
                nz: core::array::from_fn(|_| (rng.range(0, 5) == 0) as u8),
                t8x8: rng.range(0, 2) == 0,
                one_motion: rng.range(0, 2) == 0,
                ..Default::default()
            })
            .collect();
        let motion: Vec<BlockMotion> = (0..mb_w * mb_h * 16)
            .map(|i| {
                let (bx, by) = (i % (mb_w * 4), i / (mb_w * 4));
                let m = &mbs[by / 4 * mb_w + bx / 4];
                let still = m.one_motion || rng.range(0, 2) == 0;
                BlockMotion {
                    ref_idx: if m.intra { -1 } else { 0 },
                    mv: if still {
                        [0, 0]
                    } else {
                        [rng.range(-6, 6), rng.range(-6, 6)]
                    },
                }
            })
            .collect();
        let p = DeblockParams {
            idc: [0, 0, 2, 1][n % 4],
            offset_a: 2 * rng.range(-6, 6),
            offset_b: 2 * rng.range(-6, 6),
            chroma_qp_offset: rng.range(-12, 12),
        };
        let input =
            || format!("{mb_w}x{mb_h} macroblocks, {slices} slices, {p:?}, fill {how:?}, case {n}");
        let qps: Vec<i32> = mbs.iter().map(|m| m.qp).collect();
        let run = |f: crate::deblock::DeblockFn| {
            let mut r = rec.clone();
            f(whole_picture(&mut r, &mbs, &motion, &qps), &p);
            r
        };
        let want = run(plain.deblock);
        for d in &fast {
            expect("deblock", d.level, &want, &input, || run(d.deblock));
        }
        // The coder filters a row at a time, each call seeing the picture
        // only down to its row: the same as the whole picture at once.
        let by_rows = {
            let mut r = rec.clone();
            for row in 0..mb_h {
                let (luma, mbs_down) = ((row + 1) * 256 * mb_w, (row + 1) * mb_w);
                (plain.deblock)(
                    DeblockRows {
                        y: &mut r.y[..luma],
                        cb: &mut r.cb[..luma / 4],
                        cr: &mut r.cr[..luma / 4],
                        mb_w,
                        mbs: &mbs[..mbs_down],
                        motion: &motion[..mbs_down * 16],
                        qps: &qps,
                        rows: row..row + 1,
                    },
                    &p,
                );
            }
            r
        };
        assert!(by_rows == want, "deblock row by row differs: {}", input());
    }
}

#[test]
fn half_sample_planes() {
    let (plain, fast) = tables();
    let mut rng = Rng::new(0x1234_0008);
    // Padded planes of 1, 2 and 80 macroblocks, the smallest a step takes,
    // odd sizes (tails of the 32-sample steps), one too small for a step.
    let sizes = [
        (112, 112),
        (128, 128),
        (1376, 20),
        (40, 6),
        (141, 37),
        (113, 9),
        (39, 8),
    ];
    for n in 0..300 {
        let (stride, rows) = sizes[n % sizes.len()];
        let how = FILLS[n / sizes.len() % FILLS.len()];
        let g = filled(&mut rng, how, stride * rows, stride);
        // All rows, or a band of them, as the coder asks for them.
        let (first, end) = match n % 3 {
            0 => (0, rows),
            _ => {
                let first = rng.range(0, rows as i32 - 1) as usize;
                (first, rng.range(first as i32 + 1, rows as i32) as usize)
            }
        };
        let garbage: Vec<u8> = filled(&mut rng, Fill::Random, stride * rows, stride);
        let run = |f: crate::refpic::HalfPlanesFn| {
            let mut h1 = vec![0i16; stride];
            let (mut b, mut h, mut j) = (garbage.clone(), garbage.clone(), garbage.clone());
            let band = first * stride..end * stride;
            f(HalfPlanes {
                g: &g,
                h1: &mut h1,
                b: &mut b[band.clone()],
                h: &mut h[band.clone()],
                j: &mut j[band],
                stride,
                rows,
                first,
                end,
            });
            (b, h, j)
        };
        let input = || format!("{stride}x{rows}, rows {first}..{end}, fill {how:?}");
        let want = run(plain.half_planes);
        for d in &fast {
            expect("half_planes", d.level, &want, &input, || run(d.half_planes));
        }
    }
}

#[test]
fn chroma_and_quarter_sample_predictions() {
    let (plain, fast) = tables();
    let mut rng = Rng::new(0xb111_0009);
    for n in 0..20_000 {
        // bilinear8: every weight pair of eighth-sample positions.
        let (fx, fy) = ((n % 8) as u16, (n / 8 % 8) as u16);
        let wts = [(8 - fx) * (8 - fy), fx * (8 - fy), (8 - fx) * fy, fx * fy];
        let h = [8, 4, 2, 1, 16][n / 64 % 5];
        let [fa, fb, fc] = fills(&mut rng, n / 320);
        let (s, os) = (stride(&mut rng, 9), stride(&mut rng, 8));
        let (o, oo) = (offset(&mut rng), offset(&mut rng));
        let src = block(&mut rng, fa, o, s, 9, h + 1);
        let out = block(&mut rng, Fill::Random, oo, os, 8, h);
        let run = |f: crate::refpic::Bilinear8Fn| {
            let mut out = out.clone();
            f(&src[o..], s, wts, h, &mut out[oo..], os);
            out
        };
        let input =
            || format!("8x{h}, weights {wts:?}, strides {s} {os}, offsets {o} {oo}, fill {fa:?}");
        let want = run(plain.bilinear8);
        for d in &fast {
            expect("bilinear8", d.level, &want, &input, || run(d.bilinear8));
        }
        // average_rows: every shape, the planes' strides, odd ones.
        let (w, h) = SHAPES[n % SHAPES.len()];
        let (st, os) = (stride(&mut rng, w), stride(&mut rng, w));
        let (oa, ob, oo) = (offset(&mut rng), offset(&mut rng), offset(&mut rng));
        let a = block(&mut rng, fb, oa, st, w, h);
        let b = block(&mut rng, fc, ob, st, w, h);
        let out = block(&mut rng, Fill::Random, oo, os, w, h);
        let run = |f: crate::refpic::AverageRowsFn| {
            let mut out = out.clone();
            f(&a[oa..], &b[ob..], st, &mut out[oo..], os, w, h);
            out
        };
        let input =
            || format!("{w}x{h}, strides {st} {os}, offsets {oa} {ob} {oo}, fills {fb:?} {fc:?}");
        let want = run(plain.average_rows);
        for d in &fast {
            expect("average_rows", d.level, &want, &input, || {
                run(d.average_rows)
            });
        }
    }
}

#[test]
fn interleaved_chroma() {
    let (plain, fast) = tables();
    let mut rng = Rng::new(0x5911_000a);
    // Every count up to three vectors and a half, then rows of pictures.
    let counts: Vec<usize> = (0..=56).chain([88, 640, 647, 648, 2040]).collect();
    for n in 0..3000 {
        let pairs = counts[n % counts.len()];
        let how = FILLS[n / counts.len() % FILLS.len()];
        let (o, ob, or) = (offset(&mut rng), offset(&mut rng), offset(&mut rng));
        // An odd byte after the pairs sometimes: it belongs to no pair.
        let nv12 = filled(&mut rng, how, o + 2 * pairs + n % 2, 2);
        let b = filled(&mut rng, how, ob + pairs, pairs.max(1));
        let r = filled(&mut rng, Fill::Random, or + pairs, pairs.max(1));
        let input = || format!("{pairs} pairs, offsets {o} {ob} {or}, fill {how:?}");
        let split = |f: crate::picture::SplitChromaFn| {
            let (mut cb, mut cr) = (b.clone(), r.clone());
            f(&nv12[o..], &mut cb[ob..], &mut cr[or..]);
            (cb, cr)
        };
        let join = |f: crate::picture::JoinChromaFn| {
            let mut out = nv12.clone();
            f(&b[ob..], &r[or..], &mut out[o..]);
            out
        };
        let (want_split, want_join) = (split(plain.split_chroma), join(plain.join_chroma));
        for d in &fast {
            expect("split_chroma", d.level, &want_split, &input, || {
                split(d.split_chroma)
            });
            expect("join_chroma", d.level, &want_join, &input, || {
                join(d.join_chroma)
            });
        }
    }
}

/// Every function of the table has its check above: a new field of [`Dsp`]
/// fails to compile here until it is named, and gets its check.
#[test]
fn every_function_is_checked() {
    let Dsp {
        level: _,
        sad: _,                // sad_and_sad_avg
        sad_avg: _,            // sad_and_sad_avg
        satd: _,               // satd
        satd4x4_x2: _,         // satd4x4_x2_and_sa8d8
        sa8d8: _,              // satd4x4_x2_and_sa8d8
        luma_is_zero: _,       // luma_residuals
        chroma_is_zero: _,     // chroma_residuals
        quant_luma_inter: _,   // luma_residuals
        quant_chroma: _,       // chroma_residuals
        filter_luma_edge: _,   // edge_filters
        filter_chroma_edge: _, // edge_filters
        deblock: _,            // deblocked_frames
        half_planes: _,        // half_sample_planes
        bilinear8: _,          // chroma_and_quarter_sample_predictions
        average_rows: _,       // chroma_and_quarter_sample_predictions
        split_chroma: _,       // interleaved_chroma
        join_chroma: _,        // interleaved_chroma
    } = Dsp::for_level(CpuLevel::Plain);
}

/// Every row of the picture `rec` for the deblocking filter: the plain
/// filter over the whole picture at once is what the row-by-row filtering
/// of the coder is checked against.
fn whole_picture<'a>(
    rec: &'a mut Planes,
    mbs: &'a [MbInfo],
    motion: &'a [BlockMotion],
    qps: &'a [i32],
) -> DeblockRows<'a> {
    let (mb_w, mb_h) = (rec.mb_w, rec.mb_h);
    DeblockRows {
        y: &mut rec.y,
        cb: &mut rec.cb,
        cr: &mut rec.cr,
        mb_w,
        mbs,
        motion,
        qps,
        rows: 0..mb_h,
    }
}
