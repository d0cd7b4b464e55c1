//! Intra_8x8 prediction (8.3.2.2): reference sample filtering and the nine modes.

use crate::intra::{Edges, I4_DC, I4_DDL, I4_DDR, I4_H, I4_HD, I4_HU, I4_V, I4_VL, I4_VR};

/// Filtered reference samples p' of 8.3.2.2.1: 16 above (with the top-right
/// eight substituted when unavailable), 8 left, and the corner.
struct Refs {
    top: Option<[i32; 16]>,
    left: Option<[i32; 8]>,
    top_left: Option<i32>,
}

/// Applies the reference sample filtering process (8.3.2.2.1) to `e`, whose
/// `top` holds 16 samples and `left` 8.
fn filter(e: &Edges) -> Refs {
    let t: Option<[i32; 16]> = e.top.map(|t| core::array::from_fn(|i| i32::from(t[i])));
    let l: Option<[i32; 8]> = e.left.map(|l| core::array::from_fn(|i| i32::from(l[i])));
    let c = e.top_left.map(i32::from);
    let top = t.map(|t| {
        core::array::from_fn(|x| match x {
            0 => match c {
                Some(c) => (c + 2 * t[0] + t[1] + 2) >> 2,
                None => (3 * t[0] + t[1] + 2) >> 2,
            },
            15 => (t[14] + 3 * t[15] + 2) >> 2,
            _ => (t[x - 1] + 2 * t[x] + t[x + 1] + 2) >> 2,
        })
    });
    let top_left = c.map(|c| match (t, l) {
        (Some(t), Some(l)) => (t[0] + 2 * c + l[0] + 2) >> 2,
        (Some(t), None) => (3 * c + t[0] + 2) >> 2,
        (None, Some(l)) => (3 * c + l[0] + 2) >> 2,
        (None, None) => c,
    });
    let left = l.map(|l| {
        core::array::from_fn(|y| match y {
            0 => match c {
                Some(c) => (c + 2 * l[0] + l[1] + 2) >> 2,
                None => (3 * l[0] + l[1] + 2) >> 2,
            },
            7 => (l[6] + 3 * l[7] + 2) >> 2,
            _ => (l[y - 1] + 2 * l[y] + l[y + 1] + 2) >> 2,
        })
    });
    Refs {
        top,
        left,
        top_left,
    }
}

/// Predicts an 8x8 block in every mode `e` allows (Intra8x8PredMode order,
/// numbered as the 4x4 modes); returns the mask of modes predicted.
pub fn pred8x8_all(e: &Edges, out: &mut [[u8; 64]; 9]) -> u16 {
    let r = filter(e);
    let mut mask = 0u16;
    for mode in 0..9u8 {
        if predict(mode, &r, &mut out[mode as usize]) {
            mask |= 1 << mode;
        }
    }
    mask
}

/// Predicts an 8x8 block in `mode` from `e`; false when the mode needs
/// samples `e` does not have.
pub fn pred8x8(mode: u8, e: &Edges, out: &mut [u8; 64]) -> bool {
    predict(mode, &filter(e), out)
}

/// Writes `f(x, y)` for every sample, clipped.
#[inline(always)]
fn fill(out: &mut [u8; 64], f: impl Fn(usize, usize) -> i32) {
    for y in 0..8 {
        for x in 0..8 {
            out[y * 8 + x] = f(x, y).clamp(0, 255) as u8;
        }
    }
}

fn predict(mode: u8, r: &Refs, out: &mut [u8; 64]) -> bool {
    match mode {
        I4_V => {
            let Some(t) = r.top else { return false };
            fill(out, |x, _| t[x]);
        }
        I4_H => {
            let Some(l) = r.left else { return false };
            fill(out, |_, y| l[y]);
        }
        I4_DC => {
            let dc = match (r.top, r.left) {
                (Some(t), Some(l)) => (t[..8].iter().sum::<i32>() + l.iter().sum::<i32>() + 8) >> 4,
                (Some(t), None) => (t[..8].iter().sum::<i32>() + 4) >> 3,
                (None, Some(l)) => (l.iter().sum::<i32>() + 4) >> 3,
                (None, None) => 128,
            };
            out.fill(dc as u8);
        }
        I4_DDL => {
            let Some(t) = r.top else { return false };
            fill(out, |x, y| {
                if x == 7 && y == 7 {
                    (t[14] + 3 * t[15] + 2) >> 2
                } else {
                    (t[x + y] + 2 * t[x + y + 1] + t[x + y + 2] + 2) >> 2
                }
            });
        }
        I4_VL => {
            let Some(t) = r.top else { return false };
            fill(out, |x, y| {
                let i = x + (y >> 1);
                if y % 2 == 0 {
                    (t[i] + t[i + 1] + 1) >> 1
                } else {
                    (t[i] + 2 * t[i + 1] + t[i + 2] + 2) >> 2
                }
            });
        }
        I4_HU => {
            let Some(l) = r.left else { return false };
            fill(out, |x, y| {
                let z = x + 2 * y;
                let i = y + (x >> 1);
                match z {
                    0..=12 if z % 2 == 0 => (l[i] + l[i + 1] + 1) >> 1,
                    0..=12 => (l[i] + 2 * l[i + 1] + l[i + 2] + 2) >> 2,
                    13 => (l[6] + 3 * l[7] + 2) >> 2,
                    _ => l[7],
                }
            });
        }
        I4_DDR | I4_VR | I4_HD => {
            let (Some(t), Some(l), Some(c)) = (r.top, r.left, r.top_left) else {
                return false;
            };
            // One line of references p(k): k = 0 is the corner, k > 0 the
            // k-th sample above (x = k - 1), k < 0 the -k-th to the left (y = -k - 1).
            let mut line = [0i32; 25];
            line[8] = c;
            for k in 1..=8 {
                line[8 - k] = l[k - 1];
            }
            line[9..].copy_from_slice(&t);
            let p = |k: i32| line[(k + 8) as usize];
            let f3 = |k: i32| (p(k - 1) + 2 * p(k) + p(k + 1) + 2) >> 2;
            let f2 = |k: i32| (p(k) + p(k + 1) + 1) >> 1;
            match mode {
                I4_DDR => fill(out, |x, y| f3(x as i32 - y as i32)),
                I4_VR => fill(out, |x, y| {
                    let (x, y) = (x as i32, y as i32);
                    let z = 2 * x - y;
                    match z {
                        z if z >= 0 && z % 2 == 0 => f2(x - (y >> 1)),
                        z if z >= 0 => f3(x - (y >> 1)),
                        -1 => f3(0),
                        _ => f3(-(y - 2 * x - 1)),
                    }
                }),
                _ => fill(out, |x, y| {
                    let (x, y) = (x as i32, y as i32);
                    let z = 2 * y - x;
                    match z {
                        z if z >= 0 && z % 2 == 0 => f2(-(y - (x >> 1)) - 1),
                        z if z >= 0 => f3(-(y - (x >> 1))),
                        -1 => f3(0),
                        _ => f3(x - 2 * y - 1),
                    }
                }),
            }
        }
        _ => return false,
    }
    true
}
