//! Software model of the Hantro H1 H.264 encoder core.
//!
//! The model reads the same register file the C driver programs, fetches the
//! input and reference pictures through a [`Memory`] bus, and writes what the
//! silicon writes: slice NAL units (header and data) at the output-stream
//! address after the header remainder, the NAL size table, the reconstructed
//! picture, and the status and statistics registers. `SLICE_HEADER.md` beside
//! this crate lists the slice header syntax it emits and the register behind
//! each field.

// Sample loops index several arrays by the same position, as the clauses' formulas do.
#![allow(clippy::needless_range_loop)]

pub mod bitwriter;
pub mod cabac;
pub mod cabac_syntax;
pub mod cavlc;
pub mod deblock;
pub mod decimate;
pub mod fault;
pub mod frame_job;
pub mod inter;
pub mod intra;
pub mod intra8x8;
pub mod mb;
pub mod memory;
pub mod mvpred;
pub mod nal;
pub mod output;
pub mod picture;
pub mod ratectl;
pub mod refpic;
pub mod regs;
pub mod rgb;
pub mod simd;
pub mod slice;
pub mod tables;
#[cfg(test)]
mod testrng;
pub mod transform;
pub mod transform8x8;
pub mod workers;
pub mod zero_check;

use frame_job::FrameJob;
use mb::{CoderBuffers, FrameCoder, FrameStats};
pub use memory::{BufferMemory, BusError, Memory};
use picture::Planes;
use regs::*;
pub use simd::{CpuLevel, Dsp};
use workers::Workers;

pub use frame_job::MAX_MBS_PER_SIDE;

/// One H1 core. Like the silicon it carries nothing from one frame to the
/// next: every input comes from the registers and memory. It keeps only
/// scratch memory (the prepared reference picture, the buffers of the input
/// and reconstructed pictures) to spare allocations, and the functions of
/// its CPU level.
pub struct H1 {
    dsp: &'static Dsp,
    refpic: refpic::RefPicture,
    input: Option<Planes>,
    coder: CoderBuffers,
    /// The threads that code a frame beside the caller's.
    workers: Workers,
}

/// Result of one run, for tests that look beyond the registers.
#[derive(Debug, Default)]
pub struct RunReport {
    /// The interrupt status written to INTERRUPT.
    pub irq: u32,
    /// Statistics of the coded frame.
    pub stats: FrameStats,
    /// Size of each slice NAL unit written, start code included.
    pub nal_sizes: Vec<u32>,
    /// QP_Y of each macroblock, raster order.
    pub mb_qps: Vec<u8>,
}

impl Default for H1 {
    /// An H1 of the highest level this CPU runs ([`CpuLevel::detect`]).
    fn default() -> Self {
        H1::new(CpuLevel::detect())
    }
}

impl H1 {
    /// An H1 that runs the functions of `level`, or of the highest level
    /// this CPU runs when `level` is above it ([`Dsp::for_level`]). Every
    /// level codes the same bytes.
    pub fn new(level: CpuLevel) -> Self {
        H1 {
            dsp: Dsp::for_level(level),
            refpic: Default::default(),
            input: None,
            coder: Default::default(),
            workers: Workers::new(0),
        }
    }

    /// The CPU level whose functions this H1 runs.
    pub fn level(&self) -> CpuLevel {
        self.dsp.level
    }

    /// An H1 of the highest CPU level that codes each frame with `threads`
    /// threads. A setting of the host, not of the silicon: the stream and
    /// every register are the same for every count.
    pub fn with_threads(threads: usize) -> Self {
        let mut h1 = H1::default();
        h1.set_threads(threads);
        h1
    }

    /// Codes the frames that follow with `threads` threads ([`H1::with_threads`]);
    /// 0 and 1 both mean the caller's thread alone, and at most 64 are used.
    pub fn set_threads(&mut self, threads: usize) {
        let extra = threads.clamp(1, 64) - 1;
        if extra != self.workers.len() {
            self.workers = Workers::new(extra);
        }
    }

    /// Runs one frame if ENC_CTRL has EN set; returns what was signalled.
    pub fn run(&mut self, regs: &mut Registers, mem: &mut dyn Memory) -> RunReport {
        let ctrl = regs.read(ENC_CTRL);
        if ctrl & ENC_CTRL_EN == 0 {
            return RunReport::default();
        }
        let report = match self.encode(regs, mem) {
            Ok(r) => r,
            Err(irq) => RunReport {
                irq,
                ..Default::default()
            },
        };
        regs.write(INTERRUPT, report.irq | IRQ_BIT);
        regs.write(ENC_CTRL, ctrl & !ENC_CTRL_EN);
        report
    }

    /// Codes the frame the registers describe: decodes them, reads the
    /// input (and reference), codes the macroblocks, assembles the NAL
    /// units, and writes the stream, the reconstruction and the status back.
    fn encode(&mut self, regs: &mut Registers, mem: &mut dyn Memory) -> Result<RunReport, u32> {
        let dsp = self.dsp;
        let mut job = FrameJob::from_regs(regs, dsp)?;
        let bus = |_: BusError| IRQ_BUS_ERROR;
        let src = Planes::load_input(
            self.input.take(),
            mem,
            job.fmt,
            job.input,
            job.row_len,
            job.width,
            job.height,
            job.mb_w,
            job.mb_h,
            dsp.split_chroma,
        )
        .map_err(bus)?;
        let intra = job.params.intra;
        if !intra {
            self.refpic
                .load(
                    mem,
                    regs.read(ADDR_REF_LUMA),
                    regs.read(ADDR_REF_CHROMA),
                    job.mb_w,
                    job.mb_h,
                    dsp.ref_kernels(),
                )
                .map_err(bus)?;
        }
        if job.cabac {
            let init = frame_job::load_cabac_init(regs, mem, job.params.qp, intra)?;
            job.params.cabac_init = Some(init);
        }

        let refpic = (!intra).then_some(&mut self.refpic);
        let spare = core::mem::take(&mut self.coder);
        let mut coder = FrameCoder::new(&job.params, &src, refpic, spare, &mut self.workers);
        let slices = coder.encode();

        let mut nals = nal::slice_nals(&job.header, slices, job.cabac, job.byte_stream)?;
        if job.cabac {
            coder.stats.cabac_zero_words = nal::append_cabac_zero_words(
                &mut nals,
                job.byte_stream,
                job.mb_w * job.mb_h,
                coder.stats.bins,
            );
        }
        let out = output::write_stream(regs, mem, &nals)?;
        if out.irq == IRQ_FRAME_RDY {
            let (luma, chroma) = (regs.read(ADDR_REC_LUMA), regs.read(ADDR_REC_CHROMA));
            coder
                .pic
                .rec
                .store_recon(mem, luma, chroma, dsp.join_chroma)
                .map_err(bus)?;
        }
        output::write_status(regs, &out, &coder.stats, &coder.rc);

        let mb_qps = coder.pic.mbs.iter().map(|m| m.qp as u8).collect();
        let stats = coder.stats.clone();
        self.coder = coder.into_buffers();
        self.input = Some(src);
        Ok(RunReport {
            irq: out.irq,
            stats,
            nal_sizes: out.nal_sizes,
            mb_qps,
        })
    }
}
