//! Plain loops of other modules compiled a second time with AVX2 enabled:
//! the same portable Rust (each is `#[inline(always)]` where it is
//! defined, so it is compiled into these), which the compiler vectorizes
//! with the wider registers. Integer arithmetic, so the results are those
//! of the plain build.

use crate::mb::decision::ChromaCoding;
use crate::mb::residual;
use crate::refpic;

/// [`residual::quant_luma_inter`] compiled for AVX2.
pub fn quant_luma_inter_avx2(src: &[u8; 256], pred: &[u8; 256], qp: i32) -> ([[i32; 16]; 16], u32) {
    #[target_feature(enable = "avx2")]
    fn avx2(src: &[u8; 256], pred: &[u8; 256], qp: i32) -> ([[i32; 16]; 16], u32) {
        residual::quant_luma_inter(src, pred, qp)
    }
    // SAFETY: only the AVX2 table reaches this function, and only on a CPU
    // with AVX2 (see the module `x86`).
    unsafe { avx2(src, pred, qp) }
}

/// [`residual::quant_chroma`] compiled for AVX2.
pub fn quant_chroma_avx2(
    planes: [&[u8]; 2],
    cs: usize,
    x: usize,
    y: usize,
    qpc: i32,
    intra: bool,
    preds: &[[u8; 64]; 2],
) -> ChromaCoding {
    #[target_feature(enable = "avx2")]
    fn avx2(
        planes: [&[u8]; 2],
        cs: usize,
        x: usize,
        y: usize,
        qpc: i32,
        intra: bool,
        preds: &[[u8; 64]; 2],
    ) -> ChromaCoding {
        residual::quant_chroma(planes, cs, x, y, qpc, intra, preds)
    }
    // SAFETY: only the AVX2 table reaches this function, and only on a CPU
    // with AVX2 (see the module `x86`).
    unsafe { avx2(planes, cs, x, y, qpc, intra, preds) }
}

/// [`refpic::bilinear8`] compiled for AVX2.
pub fn bilinear8_avx2(src: &[u8], s: usize, wts: [u16; 4], h: usize, out: &mut [u8], os: usize) {
    #[target_feature(enable = "avx2")]
    fn avx2(src: &[u8], s: usize, wts: [u16; 4], h: usize, out: &mut [u8], os: usize) {
        refpic::bilinear8(src, s, wts, h, out, os);
    }
    // SAFETY: only the AVX2 table reaches this function, and only on a CPU
    // with AVX2 (see the module `x86`).
    unsafe { avx2(src, s, wts, h, out, os) }
}
