// SPDX-License-Identifier: GPL-2.0-only
//! Level limits (Annex A, Table A-1) and the choice of level_idc.

use super::math::div_u64;

/// One row of Table A-1.
#[derive(Clone, Copy, Debug)]
pub struct LevelLimits {
    /// level_idc.
    pub level_idc: u8,
    /// MaxMBPS, macroblocks per second.
    pub max_mbps: u32,
    /// MaxFS, macroblocks per frame.
    pub max_fs: u32,
    /// MaxDpbMbs.
    pub max_dpb_mbs: u32,
    /// MaxBR in 1000 bits/s (VCL; NAL is x1200/1000 for Baseline/Main, x1500/1000 for High).
    pub max_br: u32,
    /// MaxCPB in 1000 bits (same factors).
    pub max_cpb: u32,
}

const fn row(
    level_idc: u8,
    max_mbps: u32,
    max_fs: u32,
    max_dpb_mbs: u32,
    max_br: u32,
    max_cpb: u32,
) -> LevelLimits {
    LevelLimits {
        level_idc,
        max_mbps,
        max_fs,
        max_dpb_mbs,
        max_br,
        max_cpb,
    }
}

/// Table A-1 without level 1b.
pub const LEVELS: [LevelLimits; 16] = [
    row(10, 1485, 99, 396, 64, 175),
    row(11, 3000, 396, 900, 192, 500),
    row(12, 6000, 396, 2376, 384, 1000),
    row(13, 11880, 396, 2376, 768, 2000),
    row(20, 11880, 396, 2376, 2000, 2000),
    row(21, 19800, 792, 4752, 4000, 4000),
    row(22, 20250, 1620, 8100, 4000, 4000),
    row(30, 40500, 1620, 8100, 10000, 10000),
    row(31, 108000, 3600, 18000, 14000, 14000),
    row(32, 216000, 5120, 20480, 20000, 20000),
    row(40, 245760, 8192, 32768, 20000, 25000),
    row(41, 245760, 8192, 32768, 50000, 62500),
    row(42, 522240, 8704, 34816, 50000, 62500),
    row(50, 589824, 22080, 110400, 135000, 135000),
    row(51, 983040, 36864, 184320, 240000, 240000),
    row(52, 2073600, 36864, 184320, 240000, 240000),
];

/// What a stream needs from its level.
#[derive(Clone, Copy, Debug)]
pub struct LevelNeeds {
    /// Picture width in macroblocks.
    pub width_mbs: u32,
    /// Picture height in macroblocks.
    pub height_mbs: u32,
    /// Frame rate numerator and denominator.
    pub fps_num: u32,
    /// Frame rate denominator.
    pub fps_den: u32,
    /// Peak NAL bit rate in bits/s (0 when unconstrained).
    pub bitrate: u32,
    /// CPB size in bits (0 when unconstrained).
    pub cpb_size: u32,
    /// Reference frames kept.
    pub num_ref_frames: u32,
    /// True for High profile (the 1.5 NAL factor).
    pub high: bool,
}

/// Returns true when the stream fits `l`.
pub fn fits(l: &LevelLimits, n: &LevelNeeds) -> bool {
    let fs = u64::from(n.width_mbs) * u64::from(n.height_mbs);
    if fs > u64::from(l.max_fs) {
        return false;
    }
    // Each side is limited to sqrt(8 * MaxFS) macroblocks (A.3.1 f, g).
    let side = u64::from(n.width_mbs.max(n.height_mbs));
    if side * side > 8 * u64::from(l.max_fs) {
        return false;
    }
    if n.fps_den == 0 {
        return false;
    }
    let mbps = div_u64(
        fs * u64::from(n.fps_num) + u64::from(n.fps_den) - 1,
        u64::from(n.fps_den),
    );
    if mbps > u64::from(l.max_mbps) {
        return false;
    }
    if fs * u64::from(n.num_ref_frames) > u64::from(l.max_dpb_mbs) {
        return false;
    }
    let factor: u64 = if n.high { 1500 } else { 1200 };
    if u64::from(n.bitrate) > factor * u64::from(l.max_br)
        || u64::from(n.cpb_size) > factor * u64::from(l.max_cpb)
    {
        return false;
    }
    true
}

/// Returns the lowest level_idc the stream fits, or None.
pub fn choose(n: &LevelNeeds) -> Option<u8> {
    LEVELS.iter().find(|l| fits(l, n)).map(|l| l.level_idc)
}

/// MaxMvsPer2Mb of Table A-1: 0 (no limit) below level 3, 32 at level 3, 16 above.
pub fn max_mvs_per_2mb(level_idc: u8) -> u8 {
    match level_idc {
        0..=22 => 0,
        30 => 32,
        _ => 16,
    }
}

/// Returns the Table A-1 row of `level_idc`.
pub fn limits(level_idc: u8) -> Option<&'static LevelLimits> {
    LEVELS.iter().find(|l| l.level_idc == level_idc)
}
