//! Motion vector prediction (clause 8.4.1.3) and the P_Skip motion vector (8.4.1.1).

/// Motion state of one 4x4 block of the current picture.
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
pub struct BlockMotion {
    /// refIdxL0, -1 for intra or unused.
    pub ref_idx: i8,
    /// mvL0 in quarter samples.
    pub mv: [i32; 2],
}

/// A neighbouring partition as 8.4.1.3.2 derives it: unavailable, or available with its motion.
#[derive(Clone, Copy, Debug)]
pub struct Neighbour {
    pub available: bool,
    pub motion: BlockMotion,
}

impl Neighbour {
    /// An unavailable neighbour (refIdx -1, zero vector).
    pub const NONE: Neighbour = Neighbour {
        available: false,
        motion: BlockMotion {
            ref_idx: -1,
            mv: [0, 0],
        },
    };
}

/// Partition shape for the directional predictions of 8.4.1.3.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Shape {
    /// 16x16, 8x8 and smaller: median prediction.
    Other,
    /// 16x8, upper (0) or lower (1) partition.
    Rows(u8),
    /// 8x16, left (0) or right (1) partition.
    Cols(u8),
}

/// Derives mvpLX from neighbours A, B and C (C already replaced by D when unavailable).
pub fn predict(
    ref_idx: i8,
    a: Neighbour,
    mut b: Neighbour,
    mut c: Neighbour,
    shape: Shape,
) -> [i32; 2] {
    if !b.available && !c.available && a.available {
        b = a;
        c = a;
    }
    match shape {
        Shape::Rows(0) if b.motion.ref_idx == ref_idx => return b.motion.mv,
        Shape::Rows(1) if a.motion.ref_idx == ref_idx => return a.motion.mv,
        Shape::Cols(0) if a.motion.ref_idx == ref_idx => return a.motion.mv,
        Shape::Cols(1) if c.motion.ref_idx == ref_idx => return c.motion.mv,
        _ => {}
    }
    let matches = [a, b, c]
        .iter()
        .filter(|n| n.motion.ref_idx == ref_idx)
        .count();
    if matches == 1 {
        for n in [a, b, c] {
            if n.motion.ref_idx == ref_idx {
                return n.motion.mv;
            }
        }
    }
    let med = |x: i32, y: i32, z: i32| x.max(y).min(x.min(y).max(z));
    [
        med(a.motion.mv[0], b.motion.mv[0], c.motion.mv[0]),
        med(a.motion.mv[1], b.motion.mv[1], c.motion.mv[1]),
    ]
}

/// Derives the P_Skip vector of 8.4.1.1 from the macroblock's neighbours A, B and C/D.
pub fn skip_mv(a: Neighbour, b: Neighbour, c: Neighbour) -> [i32; 2] {
    let zero = |n: Neighbour| n.motion.ref_idx == 0 && n.motion.mv == [0, 0];
    if !a.available || !b.available || zero(a) || zero(b) {
        return [0, 0];
    }
    predict(0, a, b, c, Shape::Other)
}
