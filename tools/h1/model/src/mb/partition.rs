//! The partitions of a P macroblock (Tables 7-13 and 7-17): the mb_type of
//! each partitioning, the sub_mb_type of each 8x8 block, and the 4x4 blocks
//! each partition covers, in the order their vector differences are coded.

use crate::bitwriter::ue_bits;
use crate::mvpred::Shape;

/// sub_mb_type of a P_8x8 macroblock (Table 7-17).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SubMode {
    S8x8 = 0,
    S8x4 = 1,
    S4x8 = 2,
    S4x4 = 3,
}

/// mb_type of a P macroblock with motion (Table 7-13; ref_idx is never coded
/// since the H1 predicts from one reference).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartMode {
    P16x16,
    P16x8,
    P8x16,
    P8x8([SubMode; 4]),
}

/// A macroblock or sub-macroblock partition, in 4x4 blocks of its macroblock
/// (kept in bytes: partition lists are built for every predicted macroblock).
#[derive(Clone, Copy, Debug)]
pub struct Part {
    pos: [u8; 4],
    pub shape: Shape,
}

impl Part {
    const fn new(x4: usize, y4: usize, w4: usize, h4: usize, shape: Shape) -> Self {
        Part {
            pos: [x4 as u8, y4 as u8, w4 as u8, h4 as u8],
            shape,
        }
    }

    /// Column of its top-left 4x4 block.
    pub fn x4(&self) -> usize {
        self.pos[0] as usize
    }

    /// Row of its top-left 4x4 block.
    pub fn y4(&self) -> usize {
        self.pos[1] as usize
    }

    /// Width in 4x4 blocks.
    pub fn w4(&self) -> usize {
        self.pos[2] as usize
    }

    /// Height in 4x4 blocks.
    pub fn h4(&self) -> usize {
        self.pos[3] as usize
    }

    /// The 4x4 blocks it covers, as a raster bit mask.
    pub fn mask(&self) -> u16 {
        let row = ((1u16 << self.w4()) - 1) << self.x4();
        (self.y4()..self.y4() + self.h4()).fold(0, |m, y| m | row << (y * 4))
    }
}

/// The whole macroblock.
pub const WHOLE: Part = Part::new(0, 0, 4, 4, Shape::Other);

/// The partitions of a macroblock, at most 16 (4x4 sub-macroblock partitions),
/// kept inline: they are listed for every predicted macroblock.
#[derive(Clone, Copy)]
pub struct Parts {
    list: [Part; 16],
    n: usize,
}

impl Parts {
    /// No partition.
    pub const fn new() -> Self {
        // All-zero entries, which compile to a plain clear of the array.
        const EMPTY: Part = Part::new(0, 0, 0, 0, Shape::Other);
        Parts {
            list: [EMPTY; 16],
            n: 0,
        }
    }

    /// Appends `p`.
    pub fn push(&mut self, p: Part) {
        self.list[self.n] = p;
        self.n += 1;
    }
}

impl Default for Parts {
    fn default() -> Self {
        Self::new()
    }
}

impl core::ops::Deref for Parts {
    type Target = [Part];

    fn deref(&self) -> &[Part] {
        &self.list[..self.n]
    }
}

/// Appends the partitions of 8x8 block `k` partitioned as `sub`.
pub fn sub_parts(sub: SubMode, k: usize, out: &mut Parts) {
    let (bx, by) = (k % 2 * 2, k / 2 * 2);
    match sub {
        SubMode::S8x8 => out.push(Part::new(bx, by, 2, 2, Shape::Other)),
        SubMode::S8x4 => {
            out.push(Part::new(bx, by, 2, 1, Shape::Other));
            out.push(Part::new(bx, by + 1, 2, 1, Shape::Other));
        }
        SubMode::S4x8 => {
            out.push(Part::new(bx, by, 1, 2, Shape::Other));
            out.push(Part::new(bx + 1, by, 1, 2, Shape::Other));
        }
        SubMode::S4x4 => {
            for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                out.push(Part::new(bx + dx, by + dy, 1, 1, Shape::Other));
            }
        }
    }
}

impl PartMode {
    /// mb_type in a P slice.
    pub fn mb_type(self) -> u32 {
        match self {
            PartMode::P16x16 => 0,
            PartMode::P16x8 => 1,
            PartMode::P8x16 => 2,
            PartMode::P8x8(_) => 3,
        }
    }

    /// No partition smaller than 8x8 (noSubMbPartSizeLessThan8x8Flag).
    pub fn min_part_8x8(self) -> bool {
        match self {
            PartMode::P8x8(subs) => subs.iter().all(|&s| s == SubMode::S8x8),
            _ => true,
        }
    }

    /// The partitions in the order their motion vector differences are coded.
    pub fn parts(self) -> Parts {
        let mut v = Parts::new();
        match self {
            PartMode::P16x16 => v.push(WHOLE),
            PartMode::P16x8 => {
                v.push(Part::new(0, 0, 4, 2, Shape::Rows(0)));
                v.push(Part::new(0, 2, 4, 2, Shape::Rows(1)));
            }
            PartMode::P8x16 => {
                v.push(Part::new(0, 0, 2, 4, Shape::Cols(0)));
                v.push(Part::new(2, 0, 2, 4, Shape::Cols(1)));
            }
            PartMode::P8x8(subs) => {
                for (k, s) in subs.iter().enumerate() {
                    sub_parts(*s, k, &mut v);
                }
            }
        }
        v
    }

    /// Bits of mb_type and the sub_mb_types.
    pub fn type_bits(self) -> u32 {
        let mut b = ue_bits(self.mb_type());
        if let PartMode::P8x8(subs) = self {
            b += subs.iter().map(|s| ue_bits(*s as u32)).sum::<u32>();
        }
        b
    }
}
