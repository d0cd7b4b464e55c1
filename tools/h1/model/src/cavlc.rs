//! CAVLC residual block coding (clause 7.3.5.3.2 syntax, clause 9.2 code tables).

use crate::bitwriter::BitWriter;
use crate::tables::{
    COEFF_TOKEN, COEFF_TOKEN_CHROMA_DC, RUN_BEFORE, TOTAL_ZEROS, TOTAL_ZEROS_CHROMA_DC,
};

/// Largest |level| the escape code of level_prefix 15 can carry at `suffix_length` (9.2.2.1).
///
/// Baseline, Main and Extended profiles limit level_prefix to 15, so larger
/// levels are clamped before coding; the reconstruction uses the clamped ones.
pub fn max_level(suffix_length: u32) -> i32 {
    let max_code = if suffix_length == 0 {
        30 + 4095
    } else {
        (15 << suffix_length) + 4095
    };
    // levelCode = 2 * |level| - 2 (positive) or 2 * |level| - 1 (negative).
    (max_code + 1) / 2
}

/// Conservative per-block level clamp valid for any suffixLength.
pub const LEVEL_CLAMP: i32 = 2063;

/// Writes `residual_block_cavlc()` for `coeffs` (scan order, `coeffs.len()` == maxNumCoeff).
///
/// `nc` selects the coeff_token table (-1 for chroma DC). Levels must already be
/// within [`LEVEL_CLAMP`]. Returns TotalCoeff.
pub fn write_block(bw: &mut BitWriter, coeffs: &[i32], nc: i32) -> u8 {
    let max_coeff = coeffs.len();
    // Levels from the highest frequency down, with the run of zeros before each.
    let mut levels = [0i32; 16];
    let mut runs = [0u32; 16];
    let mut total = 0usize;
    let mut last_nz = None;
    for (i, &c) in coeffs.iter().enumerate().rev() {
        if c != 0 {
            levels[total] = c;
            total += 1;
            if last_nz.is_none() {
                last_nz = Some(i);
            }
        }
    }
    // runs[k]: zeros between level k and the next lower-frequency level.
    {
        let mut k = 0;
        let mut zeros = 0u32;
        let mut seen = false;
        for &c in coeffs.iter().rev() {
            if c != 0 {
                if seen {
                    runs[k - 1] = zeros;
                }
                seen = true;
                k += 1;
                zeros = 0;
            } else if seen {
                zeros += 1;
            }
        }
        if k > 0 {
            runs[k - 1] = zeros;
        }
    }
    let mut trailing_ones = 0usize;
    while trailing_ones < total && trailing_ones < 3 && levels[trailing_ones].abs() == 1 {
        trailing_ones += 1;
    }

    let (len, code) = if nc < 0 {
        COEFF_TOKEN_CHROMA_DC[total][trailing_ones]
    } else {
        let t = match nc {
            0..=1 => 0,
            2..=3 => 1,
            4..=7 => 2,
            _ => 3,
        };
        COEFF_TOKEN[t][total][trailing_ones]
    };
    bw.put(len as u32, code as u32);
    if total == 0 {
        return 0;
    }
    for &l in levels.iter().take(trailing_ones) {
        bw.flag(l < 0);
    }

    let mut suffix_length: u32 = if total > 10 && trailing_ones < 3 {
        1
    } else {
        0
    };
    for (i, &level) in levels.iter().enumerate().take(total).skip(trailing_ones) {
        let mut level_code = if level > 0 {
            2 * level - 2
        } else {
            -2 * level - 1
        };
        if i == trailing_ones && trailing_ones < 3 {
            level_code -= 2;
        }
        write_level(bw, level_code as u32, suffix_length);
        if suffix_length == 0 {
            suffix_length = 1;
        }
        if level.abs() > (3 << (suffix_length - 1)) && suffix_length < 6 {
            suffix_length += 1;
        }
    }

    let last = last_nz.unwrap_or(0);
    let total_zeros = last + 1 - total;
    if total < max_coeff {
        let (len, code) = if max_coeff == 4 {
            TOTAL_ZEROS_CHROMA_DC[total - 1][total_zeros]
        } else {
            TOTAL_ZEROS[total - 1][total_zeros]
        };
        bw.put(len as u32, code as u32);
    }
    let mut zeros_left = total_zeros as u32;
    for &run in runs.iter().take(total - 1) {
        if zeros_left == 0 {
            break;
        }
        let (len, code) = RUN_BEFORE[(zeros_left.min(7) - 1) as usize][run as usize];
        bw.put(len as u32, code as u32);
        zeros_left -= run;
    }
    total as u8
}

/// Writes level_prefix and level_suffix for `level_code` (inverse of 9.2.2.1).
fn write_level(bw: &mut BitWriter, level_code: u32, suffix_length: u32) {
    if suffix_length == 0 {
        if level_code < 14 {
            bw.put(level_code + 1, 1);
        } else if level_code < 30 {
            bw.put(15, 1);
            bw.put(4, level_code - 14);
        } else {
            bw.put(16, 1);
            bw.put(12, level_code - 30);
        }
    } else {
        let prefix = level_code >> suffix_length;
        if prefix < 15 {
            bw.put(prefix + 1, 1);
            bw.put(suffix_length, level_code & ((1 << suffix_length) - 1));
        } else {
            bw.put(16, 1);
            bw.put(12, level_code - (15 << suffix_length));
        }
    }
}
