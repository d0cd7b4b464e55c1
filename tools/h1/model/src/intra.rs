//! Intra prediction (clause 8.3): Intra_16x16, Intra_4x4 and chroma.

/// Neighbouring samples of a square block, with their availability.
pub struct Edges<'a> {
    /// Samples above the block (16 for 16x16, 8 for chroma, 8 for 4x4 with top-right).
    pub top: Option<&'a [u8]>,
    /// Samples left of the block, top to bottom.
    pub left: Option<&'a [u8]>,
    /// Sample above-left.
    pub top_left: Option<u8>,
}

#[inline]
fn clip(v: i32) -> u8 {
    v.clamp(0, 255) as u8
}

/// Vertical prediction of an `n` x `n` block (8-118, 8-139).
fn vertical(n: usize, e: &Edges, out: &mut [u8]) -> bool {
    let Some(t) = e.top else { return false };
    for row in out.chunks_mut(n) {
        row.copy_from_slice(&t[..n]);
    }
    true
}

/// Horizontal prediction of an `n` x `n` block (8-119, 8-138).
fn horizontal(n: usize, e: &Edges, out: &mut [u8]) -> bool {
    let Some(l) = e.left else { return false };
    for (y, row) in out.chunks_mut(n).enumerate() {
        row.fill(l[y]);
    }
    true
}

/// Plane prediction of an `n` x `n` block: `scale` is 5 for 16x16 luma (8-121)
/// and 34 for 4:2:0 chroma (8-142, xCF = yCF = 0).
fn plane(n: usize, scale: i32, e: &Edges, out: &mut [u8]) -> bool {
    let (Some(t), Some(l), Some(tl)) = (e.top, e.left, e.top_left) else {
        return false;
    };
    let top = |x: i32| {
        if x < 0 {
            tl as i32
        } else {
            t[x as usize] as i32
        }
    };
    let left = |y: i32| {
        if y < 0 {
            tl as i32
        } else {
            l[y as usize] as i32
        }
    };
    let half = n as i32 / 2;
    let mut h = 0;
    let mut v = 0;
    for i in 0..half {
        h += (i + 1) * (top(half + i) - top(half - 2 - i));
        v += (i + 1) * (left(half + i) - left(half - 2 - i));
    }
    let last = n as i32 - 1;
    let a = 16 * (left(last) + top(last));
    let b = (scale * h + 32) >> 6;
    let c = (scale * v + 32) >> 6;
    for y in 0..n {
        for x in 0..n {
            out[y * n + x] =
                clip((a + b * (x as i32 - (half - 1)) + c * (y as i32 - (half - 1)) + 16) >> 5);
        }
    }
    true
}

/// Intra_16x16 prediction modes (Table 8-4).
pub const I16_V: u8 = 0;
pub const I16_H: u8 = 1;
pub const I16_DC: u8 = 2;
pub const I16_PLANE: u8 = 3;

/// Predicts a 16x16 luma block (8.3.3). Returns false when the mode's samples are unavailable.
pub fn pred16x16(mode: u8, e: &Edges, out: &mut [u8; 256]) -> bool {
    match mode {
        I16_V => vertical(16, e, out),
        I16_H => horizontal(16, e, out),
        I16_DC => {
            let st: u32 = e.top.map_or(0, |t| t[..16].iter().map(|&v| v as u32).sum());
            let sl: u32 = e
                .left
                .map_or(0, |l| l[..16].iter().map(|&v| v as u32).sum());
            let dc = match (e.top.is_some(), e.left.is_some()) {
                (true, true) => (st + sl + 16) >> 5,
                (true, false) => (st + 8) >> 4,
                (false, true) => (sl + 8) >> 4,
                (false, false) => 128,
            };
            out.fill(dc as u8);
            true
        }
        I16_PLANE => plane(16, 5, e, out),
        _ => false,
    }
}

/// Chroma intra prediction modes (Table 7-16).
pub const CHROMA_DC: u8 = 0;
pub const CHROMA_H: u8 = 1;
pub const CHROMA_V: u8 = 2;
pub const CHROMA_PLANE: u8 = 3;

/// Predicts an 8x8 chroma block of 4:2:0 (8.3.4). Returns false when unavailable.
pub fn pred_chroma(mode: u8, e: &Edges, out: &mut [u8; 64]) -> bool {
    match mode {
        CHROMA_DC => {
            for (blk, (xo, yo)) in [(0usize, 0usize), (4, 0), (0, 4), (4, 4)]
                .into_iter()
                .enumerate()
            {
                let st: Option<u32> = e.top.map(|t| t[xo..xo + 4].iter().map(|&v| v as u32).sum());
                let sl: Option<u32> = e
                    .left
                    .map(|l| l[yo..yo + 4].iter().map(|&v| v as u32).sum());
                let dc = match (blk, st, sl) {
                    (0 | 3, Some(a), Some(b)) => (a + b + 4) >> 3,
                    (0 | 3, None, Some(b)) => (b + 2) >> 2,
                    (0 | 3, Some(a), None) => (a + 2) >> 2,
                    (1, Some(a), _) => (a + 2) >> 2,
                    (1, None, Some(b)) => (b + 2) >> 2,
                    (2, _, Some(b)) => (b + 2) >> 2,
                    (2, Some(a), None) => (a + 2) >> 2,
                    _ => 128,
                };
                for y in yo..yo + 4 {
                    out[y * 8 + xo..y * 8 + xo + 4].fill(dc as u8);
                }
            }
        }
        CHROMA_H => return horizontal(8, e, out),
        CHROMA_V => return vertical(8, e, out),
        CHROMA_PLANE => return plane(8, 34, e, out),
        _ => return false,
    }
    true
}

/// Intra_4x4 prediction modes (Table 8-2).
pub const I4_V: u8 = 0;
pub const I4_H: u8 = 1;
pub const I4_DC: u8 = 2;
pub const I4_DDL: u8 = 3;
pub const I4_DDR: u8 = 4;
pub const I4_VR: u8 = 5;
pub const I4_HD: u8 = 6;
pub const I4_VL: u8 = 7;
pub const I4_HU: u8 = 8;

/// Predicts a 4x4 luma block (8.3.1.2). `e.top` holds 8 samples, the last four
/// already substituted by p[3,-1] when the top-right is unavailable.
/// Returns false when the mode's samples are unavailable.
pub fn pred4x4(mode: u8, e: &Edges, out: &mut [u8; 16]) -> bool {
    let need_top = matches!(mode, I4_V | I4_DDL | I4_DDR | I4_VR | I4_HD | I4_VL);
    let need_left = matches!(mode, I4_H | I4_DDR | I4_VR | I4_HD | I4_HU);
    let need_tl = matches!(mode, I4_DDR | I4_VR | I4_HD);
    if (need_top && e.top.is_none())
        || (need_left && e.left.is_none())
        || (need_tl && e.top_left.is_none())
    {
        return false;
    }
    let t = e.top.unwrap_or(&[0; 8]);
    let l = e.left.unwrap_or(&[0; 4]);
    let tl = e.top_left.unwrap_or(0) as i32;
    // p(x, y) with x or y equal to -1, as in the clause.
    let p = |x: i32, y: i32| -> i32 {
        if y < 0 {
            if x < 0 {
                tl
            } else {
                t[x as usize] as i32
            }
        } else {
            l[y as usize] as i32
        }
    };
    for y in 0..4i32 {
        for x in 0..4i32 {
            let v = match mode {
                I4_V => p(x, -1),
                I4_H => p(-1, y),
                I4_DC => {
                    let st: i32 = (0..4).map(|i| p(i, -1)).sum();
                    let sl: i32 = (0..4).map(|i| p(-1, i)).sum();
                    match (e.top.is_some(), e.left.is_some()) {
                        (true, true) => (st + sl + 4) >> 3,
                        (false, true) => (sl + 2) >> 2,
                        (true, false) => (st + 2) >> 2,
                        (false, false) => 128,
                    }
                }
                I4_DDL => {
                    if x == 3 && y == 3 {
                        (p(6, -1) + 3 * p(7, -1) + 2) >> 2
                    } else {
                        (p(x + y, -1) + 2 * p(x + y + 1, -1) + p(x + y + 2, -1) + 2) >> 2
                    }
                }
                I4_DDR => {
                    if x > y {
                        (p(x - y - 2, -1) + 2 * p(x - y - 1, -1) + p(x - y, -1) + 2) >> 2
                    } else if x < y {
                        (p(-1, y - x - 2) + 2 * p(-1, y - x - 1) + p(-1, y - x) + 2) >> 2
                    } else {
                        (p(0, -1) + 2 * p(-1, -1) + p(-1, 0) + 2) >> 2
                    }
                }
                I4_VR => {
                    let z = 2 * x - y;
                    if z >= 0 && z & 1 == 0 {
                        (p(x - (y >> 1) - 1, -1) + p(x - (y >> 1), -1) + 1) >> 1
                    } else if z >= 0 {
                        (p(x - (y >> 1) - 2, -1)
                            + 2 * p(x - (y >> 1) - 1, -1)
                            + p(x - (y >> 1), -1)
                            + 2)
                            >> 2
                    } else if z == -1 {
                        (p(-1, 0) + 2 * p(-1, -1) + p(0, -1) + 2) >> 2
                    } else {
                        (p(-1, y - 1) + 2 * p(-1, y - 2) + p(-1, y - 3) + 2) >> 2
                    }
                }
                I4_HD => {
                    let z = 2 * y - x;
                    if z >= 0 && z & 1 == 0 {
                        (p(-1, y - (x >> 1) - 1) + p(-1, y - (x >> 1)) + 1) >> 1
                    } else if z >= 0 {
                        (p(-1, y - (x >> 1) - 2)
                            + 2 * p(-1, y - (x >> 1) - 1)
                            + p(-1, y - (x >> 1))
                            + 2)
                            >> 2
                    } else if z == -1 {
                        (p(-1, 0) + 2 * p(-1, -1) + p(0, -1) + 2) >> 2
                    } else {
                        (p(x - 1, -1) + 2 * p(x - 2, -1) + p(x - 3, -1) + 2) >> 2
                    }
                }
                I4_VL => {
                    if y & 1 == 0 {
                        (p(x + (y >> 1), -1) + p(x + (y >> 1) + 1, -1) + 1) >> 1
                    } else {
                        (p(x + (y >> 1), -1)
                            + 2 * p(x + (y >> 1) + 1, -1)
                            + p(x + (y >> 1) + 2, -1)
                            + 2)
                            >> 2
                    }
                }
                I4_HU => {
                    let z = x + 2 * y;
                    if z < 5 && z & 1 == 0 {
                        (p(-1, y + (x >> 1)) + p(-1, y + (x >> 1) + 1) + 1) >> 1
                    } else if z < 5 {
                        (p(-1, y + (x >> 1))
                            + 2 * p(-1, y + (x >> 1) + 1)
                            + p(-1, y + (x >> 1) + 2)
                            + 2)
                            >> 2
                    } else if z == 5 {
                        (p(-1, 2) + 3 * p(-1, 3) + 2) >> 2
                    } else {
                        p(-1, 3)
                    }
                }
                _ => return false,
            };
            out[(y * 4 + x) as usize] = v as u8;
        }
    }
    true
}

/// All nine Intra_4x4 predictions of a block at once (8.3.1.2.1 to 8.3.1.2.9),
/// computed from the 13 edge samples and their two filtered forms. Returns a
/// bit mask of the modes whose samples are available; `out[mode]` holds the
/// prediction of each available mode. Equal to [`pred4x4`], mode by mode.
pub fn pred4x4_all(e: &Edges, out: &mut [[u8; 16]; 9]) -> u16 {
    // E: p[-1,3], p[-1,2], p[-1,1], p[-1,0], p[-1,-1], p[0,-1] .. p[7,-1].
    let mut ed = [0i32; 13];
    if let Some(l) = e.left {
        for y in 0..4 {
            ed[3 - y] = l[y] as i32;
        }
    }
    ed[4] = e.top_left.unwrap_or(0) as i32;
    if let Some(t) = e.top {
        for x in 0..8 {
            ed[5 + x] = t[x] as i32;
        }
    }
    let f1 = |i: usize| ((ed[i] + ed[i + 1] + 1) >> 1) as u8;
    let f2 = |i: usize| ((ed[i - 1] + 2 * ed[i] + ed[i + 1] + 2) >> 2) as u8;
    let (top, left, tl) = (e.top.is_some(), e.left.is_some(), e.top_left.is_some());
    let mut mask = 1 << I4_DC;
    let dc = match (top, left) {
        (true, true) => (ed[5..9].iter().sum::<i32>() + ed[0..4].iter().sum::<i32>() + 4) >> 3,
        (false, true) => (ed[0..4].iter().sum::<i32>() + 2) >> 2,
        (true, false) => (ed[5..9].iter().sum::<i32>() + 2) >> 2,
        (false, false) => 128,
    };
    out[I4_DC as usize] = [dc as u8; 16];
    if top {
        mask |= 1 << I4_V | 1 << I4_DDL | 1 << I4_VL;
        for y in 0..4 {
            for x in 0..4 {
                let i = y * 4 + x;
                out[I4_V as usize][i] = ed[5 + x] as u8;
                out[I4_DDL as usize][i] = if x == 3 && y == 3 {
                    ((ed[11] + 3 * ed[12] + 2) >> 2) as u8
                } else {
                    f2(6 + x + y)
                };
                out[I4_VL as usize][i] = if y & 1 == 0 {
                    f1(5 + x + (y >> 1))
                } else {
                    f2(6 + x + (y >> 1))
                };
            }
        }
    }
    if left {
        mask |= 1 << I4_H | 1 << I4_HU;
        for y in 0..4 {
            for x in 0..4 {
                let i = y * 4 + x;
                out[I4_H as usize][i] = ed[3 - y] as u8;
                let z = x + 2 * y;
                let c = y + (x >> 1);
                out[I4_HU as usize][i] = match z {
                    0 | 2 | 4 => f1(2 - c),
                    1 | 3 => f2(2 - c),
                    5 => ((ed[1] + 3 * ed[0] + 2) >> 2) as u8,
                    _ => ed[0] as u8,
                };
            }
        }
    }
    if top && left && tl {
        mask |= 1 << I4_DDR | 1 << I4_VR | 1 << I4_HD;
        for y in 0..4i32 {
            for x in 0..4i32 {
                let i = (y * 4 + x) as usize;
                out[I4_DDR as usize][i] = f2((4 + x - y) as usize);
                let z = 2 * x - y;
                out[I4_VR as usize][i] = if z >= 0 && z & 1 == 0 {
                    f1((4 + x - (y >> 1)) as usize)
                } else if z >= 0 {
                    f2((4 + x - (y >> 1)) as usize)
                } else if z == -1 {
                    f2(4)
                } else {
                    f2((5 - y) as usize)
                };
                let z = 2 * y - x;
                out[I4_HD as usize][i] = if z >= 0 && z & 1 == 0 {
                    f1((3 - y + (x >> 1)) as usize)
                } else if z >= 0 {
                    f2((4 - y + (x >> 1)) as usize)
                } else if z == -1 {
                    f2(4)
                } else {
                    f2((3 + x) as usize)
                };
            }
        }
    }
    mask
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every mode of the all-at-once predictor equals the clause-by-clause one,
    /// for random edges under every combination of available neighbours.
    #[test]
    fn pred4x4_all_equals_pred4x4() {
        let mut rng = crate::testrng::Rng::new(0x1234_5678_9abc_def1);
        let mut next = || rng.byte();
        for _ in 0..20000 {
            let top: [u8; 8] = core::array::from_fn(|_| next());
            let left: [u8; 4] = core::array::from_fn(|_| next());
            let corner = next();
            let avail = next();
            let e = Edges {
                top: (avail & 1 != 0).then_some(&top[..]),
                left: (avail & 2 != 0).then_some(&left[..]),
                top_left: (avail & 4 != 0).then_some(corner),
            };
            let mut all = [[0u8; 16]; 9];
            let mask = pred4x4_all(&e, &mut all);
            for mode in 0..9u8 {
                let mut want = [0u8; 16];
                let ok = pred4x4(mode, &e, &mut want);
                assert_eq!(
                    mask & (1 << mode) != 0,
                    ok,
                    "mode {mode} availability {avail:#x}"
                );
                if ok {
                    assert_eq!(
                        all[mode as usize], want,
                        "mode {mode} availability {avail:#x}"
                    );
                }
            }
        }
    }
}
