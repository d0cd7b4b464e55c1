//! The CPU level of an H1 and its table of hot functions.
//!
//! Every function here has a plain version, portable Rust in the module of
//! its concern (`inter`, `deblock`, `zero_check`, ...), which is the
//! reference. On x86_64 the `x86` module holds the fast ones: SSE2
//! intrinsics (part of every x86_64 processor), AVX2 intrinsics, and plain
//! loops compiled a second time for AVX2. All are integer arithmetic, so
//! every level gives the same bytes; `check` compares each fast function
//! with its plain twin.
//!
//! An [`H1`](crate::H1) chooses its level once, when it is made
//! ([`CpuLevel::detect`] unless told otherwise), and hands the level's
//! [`Dsp`] to the code that calls these functions: a function pointer per
//! call, and no question to the CPU after [`CpuLevel::detect`].
//!
//! The concern modules never name this one: callers pass them the
//! functions they need, so the table can name their plain versions.

#[cfg(test)]
mod check;
#[cfg(target_arch = "x86_64")]
mod x86;

use crate::deblock::{self, ChromaEdgeFn, DeblockFn, LumaEdgeFn};
use crate::inter::{self, SadAvgFn, SadFn, Satd4x4x2Fn, SatdFn};
use crate::mb::residual::{self, QuantChromaFn, QuantLumaInterFn};
use crate::picture::{self, JoinChromaFn, SplitChromaFn};
use crate::refpic::{self, AverageRowsFn, Bilinear8Fn, HalfPlanesFn, RefKernels};
use crate::transform8x8::{self, Sa8d8Fn};
use crate::zero_check::{self, ChromaIsZeroFn, LumaIsZeroFn};
use core::fmt;

/// The environment variable that sets the CPU level of the software H1s
/// of the virtual device and the emulated H1: `plain`, `sse2` or `avx2`.
pub const CPU_LEVEL_VAR: &str = "H264ENC_H1_CPU";

/// Which implementation of the hot functions an H1 runs. Each level
/// includes the ones below it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CpuLevel {
    /// Portable Rust: the reference, and the only level off x86_64.
    Plain,
    /// SSE2, which every x86_64 processor has.
    Sse2,
    /// SSE2 and AVX2.
    Avx2,
}

impl CpuLevel {
    /// Every level, lowest first.
    pub const ALL: [CpuLevel; 3] = [CpuLevel::Plain, CpuLevel::Sse2, CpuLevel::Avx2];

    /// The highest level this CPU runs: the one place that asks it.
    pub fn detect() -> CpuLevel {
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx2") {
                CpuLevel::Avx2
            } else {
                CpuLevel::Sse2
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        CpuLevel::Plain
    }

    /// The levels this CPU runs, lowest first.
    pub fn supported() -> impl Iterator<Item = CpuLevel> {
        let top = CpuLevel::detect();
        CpuLevel::ALL.into_iter().filter(move |&l| l <= top)
    }

    /// The level's name, as [`CPU_LEVEL_VAR`] spells it.
    pub fn name(self) -> &'static str {
        match self {
            CpuLevel::Plain => "plain",
            CpuLevel::Sse2 => "sse2",
            CpuLevel::Avx2 => "avx2",
        }
    }

    /// The level `name` spells (in any case), if this CPU runs it; else a
    /// message saying why not.
    pub fn parse_supported(name: &str) -> Result<CpuLevel, String> {
        let level = CpuLevel::ALL
            .into_iter()
            .find(|l| l.name().eq_ignore_ascii_case(name));
        let Some(level) = level else {
            return Err(format!(
                "unknown CPU level {name:?}: plain, sse2 or avx2 ({})",
                CpuLevel::supported_names()
            ));
        };
        if level > CpuLevel::detect() {
            return Err(format!(
                "CPU level {name} is not supported by this CPU ({})",
                CpuLevel::supported_names()
            ));
        }
        Ok(level)
    }

    /// The level [`CPU_LEVEL_VAR`] asks for, [`CpuLevel::detect`] when it
    /// is unset or empty; a message naming the variable when its value is
    /// unknown or more than this CPU runs.
    pub fn from_env() -> Result<CpuLevel, String> {
        match std::env::var(CPU_LEVEL_VAR) {
            Err(std::env::VarError::NotPresent) => Ok(CpuLevel::detect()),
            Ok(v) if v.is_empty() => Ok(CpuLevel::detect()),
            Ok(v) => CpuLevel::parse_supported(&v).map_err(|e| format!("{CPU_LEVEL_VAR}: {e}")),
            Err(e) => Err(format!("{CPU_LEVEL_VAR}: {e}")),
        }
    }

    /// "this CPU runs plain, sse2 and avx2", for messages.
    fn supported_names() -> String {
        let names: Vec<_> = CpuLevel::supported().map(CpuLevel::name).collect();
        format!("this CPU runs {}", names.join(", "))
    }
}

impl fmt::Display for CpuLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The hot functions of one CPU level, each with the signature and the
/// results of its plain version (linked).
pub struct Dsp {
    /// The level whose functions these are.
    pub level: CpuLevel,
    /// SAD of two blocks, [`inter::sad`].
    pub sad: SadFn,
    /// SAD against the average of two blocks, [`inter::sad_avg`].
    pub sad_avg: SadAvgFn,
    /// SATD of two blocks, [`inter::satd`].
    pub satd: SatdFn,
    /// SATD of a 4x4 block against two predictions, [`inter::satd4x4_x2`].
    pub satd4x4_x2: Satd4x4x2Fn,
    /// SA8D of two 8x8 blocks, [`transform8x8::sa8d8`].
    pub sa8d8: Sa8d8Fn,
    /// The P_Skip test of the luma, [`zero_check::luma_is_zero`].
    pub luma_is_zero: LumaIsZeroFn,
    /// The P_Skip test of the chroma, [`zero_check::chroma_is_zero`].
    pub chroma_is_zero: ChromaIsZeroFn,
    /// Levels of an inter luma residual, [`residual::quant_luma_inter`].
    pub quant_luma_inter: QuantLumaInterFn,
    /// Levels of a chroma residual, [`residual::quant_chroma`].
    pub quant_chroma: QuantChromaFn,
    /// One luma edge of the deblocking filter, [`deblock::filter_luma_edge`].
    pub filter_luma_edge: LumaEdgeFn,
    /// One chroma edge, in Cb and Cr, [`deblock::filter_chroma_edge`].
    pub filter_chroma_edge: ChromaEdgeFn,
    /// The deblocking filter of a frame, [`deblock::deblock`]: the loop is
    /// compiled around this level's edge filters, which a pointer per edge
    /// would keep from being inlined.
    pub deblock: DeblockFn,
    /// Rows of the half-sample planes, [`refpic::half_planes`].
    pub half_planes: HalfPlanesFn,
    /// Chroma predictions 8 wide, [`refpic::bilinear8`].
    pub bilinear8: Bilinear8Fn,
    /// The rounded average of two predictions, [`refpic::average_rows`].
    pub average_rows: AverageRowsFn,
    /// Interleaved chroma into planes, [`picture::split_chroma`].
    pub split_chroma: SplitChromaFn,
    /// Chroma planes interleaved, [`picture::join_chroma`].
    pub join_chroma: JoinChromaFn,
}

/// The plain functions.
static PLAIN: Dsp = Dsp {
    level: CpuLevel::Plain,
    sad: inter::sad,
    sad_avg: inter::sad_avg,
    satd: inter::satd,
    satd4x4_x2: inter::satd4x4_x2,
    sa8d8: transform8x8::sa8d8,
    luma_is_zero: zero_check::luma_is_zero,
    chroma_is_zero: zero_check::chroma_is_zero,
    quant_luma_inter: residual::quant_luma_inter,
    quant_chroma: residual::quant_chroma,
    filter_luma_edge: deblock::filter_luma_edge,
    filter_chroma_edge: deblock::filter_chroma_edge,
    deblock: deblock::deblock,
    half_planes: refpic::half_planes,
    bilinear8: refpic::bilinear8,
    average_rows: refpic::average_rows,
    split_chroma: picture::split_chroma,
    join_chroma: picture::join_chroma,
};

/// SSE2: intrinsics where they pay, the plain functions elsewhere (which
/// the compiler vectorizes with SSE2 anyway).
#[cfg(target_arch = "x86_64")]
static SSE2: Dsp = Dsp {
    level: CpuLevel::Sse2,
    sad: x86::sad::sad_sse2,
    sad_avg: x86::sad::sad_avg_sse2,
    satd: x86::satd::satd_sse2,
    satd4x4_x2: x86::satd::satd4x4_x2_sse2,
    sa8d8: x86::sa8d::sa8d8_sse2,
    luma_is_zero: x86::zero_check::luma_is_zero_sse2,
    chroma_is_zero: x86::zero_check::chroma_is_zero_sse2,
    quant_luma_inter: residual::quant_luma_inter,
    quant_chroma: residual::quant_chroma,
    filter_luma_edge: x86::deblock::filter_luma_edge_sse2,
    filter_chroma_edge: x86::deblock::filter_chroma_edge_sse2,
    deblock: x86::deblock::deblock_sse2,
    half_planes: refpic::half_planes,
    bilinear8: refpic::bilinear8,
    average_rows: x86::average::average_rows_sse2,
    split_chroma: x86::chroma::split_chroma_sse2,
    join_chroma: x86::chroma::join_chroma_sse2,
};

/// AVX2: its intrinsics and AVX2 builds of plain loops where they pay, the
/// SSE2 functions elsewhere.
#[cfg(target_arch = "x86_64")]
static AVX2: Dsp = Dsp {
    level: CpuLevel::Avx2,
    sad: x86::sad::sad_avx2,
    sad_avg: x86::sad::sad_avg_avx2,
    satd: x86::satd::satd_avx2,
    satd4x4_x2: x86::satd::satd4x4_x2_sse2,
    sa8d8: x86::sa8d::sa8d8_sse2,
    luma_is_zero: x86::zero_check::luma_is_zero_avx2,
    chroma_is_zero: x86::zero_check::chroma_is_zero_avx2,
    quant_luma_inter: x86::autovec::quant_luma_inter_avx2,
    quant_chroma: x86::autovec::quant_chroma_avx2,
    filter_luma_edge: x86::deblock::filter_luma_edge_sse2,
    filter_chroma_edge: x86::deblock::filter_chroma_edge_sse2,
    deblock: x86::deblock::deblock_avx2,
    half_planes: x86::halfpel::half_planes_avx2,
    bilinear8: x86::autovec::bilinear8_avx2,
    average_rows: x86::average::average_rows_sse2,
    split_chroma: x86::chroma::split_chroma_sse2,
    join_chroma: x86::chroma::join_chroma_sse2,
};

impl Dsp {
    /// The functions of `level`, or of [`CpuLevel::detect`]'s when `level`
    /// is above it: a level the CPU lacks is never selected, since its
    /// instructions would fault. (The AVX2 functions rely on this: only
    /// this table reaches them.) [`CpuLevel::from_env`] refuses such a
    /// level instead.
    pub fn for_level(level: CpuLevel) -> &'static Dsp {
        match level.min(CpuLevel::detect()) {
            CpuLevel::Plain => &PLAIN,
            #[cfg(target_arch = "x86_64")]
            CpuLevel::Sse2 => &SSE2,
            #[cfg(target_arch = "x86_64")]
            CpuLevel::Avx2 => &AVX2,
            #[cfg(not(target_arch = "x86_64"))]
            _ => &PLAIN,
        }
    }

    /// The functions a reference picture runs.
    pub fn ref_kernels(&self) -> RefKernels {
        RefKernels {
            sad: self.sad,
            sad_avg: self.sad_avg,
            average_rows: self.average_rows,
            bilinear8: self.bilinear8,
            half_planes: self.half_planes,
            split_chroma: self.split_chroma,
        }
    }
}

impl fmt::Debug for Dsp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Dsp")
            .field("level", &self.level)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every level this CPU runs has its own table; a higher one is clamped.
    #[test]
    fn tables_follow_the_cpu() {
        let top = CpuLevel::detect();
        for level in CpuLevel::ALL {
            assert_eq!(Dsp::for_level(level).level, level.min(top), "{level}");
        }
        assert_eq!(CpuLevel::supported().last(), Some(top));
        #[cfg(target_arch = "x86_64")]
        assert!(top >= CpuLevel::Sse2, "every x86_64 CPU has SSE2");
    }

    /// Names parse to the levels this CPU runs; others are refused with a
    /// message saying which it runs.
    #[test]
    fn level_names() {
        for level in CpuLevel::supported() {
            assert_eq!(CpuLevel::parse_supported(level.name()), Ok(level));
            let upper = level.name().to_ascii_uppercase();
            assert_eq!(CpuLevel::parse_supported(&upper), Ok(level));
        }
        let e = CpuLevel::parse_supported("avx512").unwrap_err();
        assert!(
            e.contains("unknown") && e.contains("this CPU runs plain"),
            "{e}"
        );
        for level in CpuLevel::ALL
            .into_iter()
            .filter(|&l| l > CpuLevel::detect())
        {
            let e = CpuLevel::parse_supported(level.name()).unwrap_err();
            assert!(e.contains("not supported"), "{e}");
        }
    }
}
