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
mod cabac_mb;
pub mod cabac_syntax;
pub mod cavlc;
pub mod deblock;
#[cfg(target_arch = "x86_64")]
mod deblock_x86;
pub mod decimate;
pub mod encoder;
pub mod fault;
#[cfg(target_arch = "x86_64")]
mod halfpel_x86;
pub mod inter;
pub mod inter_mb;
pub mod intra;
pub mod intra8x8;
pub mod memory;
pub mod mvpred;
pub mod picture;
pub mod ratectl;
pub mod refpic;
pub mod regs;
pub mod rgb;
mod simd;
pub mod slice;
pub mod tables;
#[cfg(test)]
mod testrng;
pub mod transform;
pub mod transform8x8;
pub mod zero_check;

use encoder::{CoderBuffers, FrameCoder, FrameParams, FrameStats};
pub use fault::Fault;
pub use memory::{BufferMemory, BusError, Memory};
use picture::{InputFormat, Planes};
use regs::*;
use rgb::RgbInput;
use slice::SliceHeader;

/// Largest picture the model codes, in macroblocks per side (the H1's 4080 samples).
pub const MAX_MBS_PER_SIDE: u32 = 255;

/// One H1 core. Like the silicon it carries nothing from one frame to the
/// next: every input comes from the registers and memory. It keeps only
/// scratch memory (the prepared reference picture, the buffers of the input
/// and reconstructed pictures) to spare allocations.
#[derive(Default)]
pub struct H1 {
    refpic: refpic::RefPicture,
    input: Option<Planes>,
    coder: CoderBuffers,
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

impl H1 {
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

    fn encode(&mut self, regs: &mut Registers, mem: &mut dyn Memory) -> Result<RunReport, u32> {
        let ctrl = regs.read(ENC_CTRL);
        if (ctrl >> ENC_CTRL_MODE_SHIFT) & 3 != ENC_MODE_H264 {
            return Err(IRQ_CONFIG_ERROR);
        }
        // Other swaps would scramble every word the core reads or writes: the
        // model refuses them rather than code garbage. Only RGB input, whose
        // pixel words the swaps and MSB positions describe, takes others.
        let axi = regs.read(AXI_CTRL);
        let output_swaps = AXI_OUTPUT_SWAP8 | AXI_OUTPUT_SWAP16 | AXI_OUTPUT_SWAP32;
        if axi & output_swaps != output_swaps {
            return Err(IRQ_CONFIG_ERROR);
        }
        let mb_w = regs.field(ENC_CTRL, ENC_CTRL_WIDTH_SHIFT, 9) as usize;
        let mb_h = regs.field(ENC_CTRL, ENC_CTRL_HEIGHT_SHIFT, 9) as usize;
        if mb_w == 0
            || mb_h == 0
            || mb_w > MAX_MBS_PER_SIDE as usize
            || mb_h > MAX_MBS_PER_SIDE as usize
        {
            return Err(IRQ_CONFIG_ERROR);
        }
        let intra = regs.field(ENC_CTRL, ENC_CTRL_PIC_SHIFT, 2) == PIC_INTRA;
        let fmt = match regs.field(IN_IMG_CTRL, IN_IMG_FMT_SHIFT, 4) {
            IN_FMT_YUV420P => InputFormat::I420,
            IN_FMT_YUV420SP => InputFormat::Nv12,
            IN_FMT_YUYV422 => InputFormat::Yuyv,
            IN_FMT_UYVY422 => InputFormat::Uyvy,
            rgb => {
                let coeff = [regs.read(RGB_YUV_COEFF0), regs.read(RGB_YUV_COEFF1)];
                let mask = regs.read(RGB_MASK_MSB);
                let input = RgbInput::from_regs(rgb, axi, coeff, mask).ok_or(IRQ_CONFIG_ERROR)?;
                InputFormat::Rgb(input)
            }
        };
        if !matches!(fmt, InputFormat::Rgb(_)) && axi & AXI_CPU_BYTE_ORDER != AXI_CPU_BYTE_ORDER {
            return Err(IRQ_CONFIG_ERROR);
        }
        let row_len = regs.field(IN_IMG_CTRL, IN_IMG_ROW_LEN_SHIFT, 14) as usize;
        let over_r = regs.field(IN_IMG_CTRL, IN_IMG_OVRFLR_D4_SHIFT, 2) as usize * 4;
        let over_b = regs.field(IN_IMG_CTRL, IN_IMG_OVRFLB_SHIFT, 4) as usize;
        let width = mb_w * 16 - over_r;
        let height = mb_h * 16 - over_b;
        if row_len < width || height == 0 {
            return Err(IRQ_CONFIG_ERROR);
        }
        let bus = |e: BusError| {
            let _ = e;
            IRQ_BUS_ERROR
        };
        let src = Planes::load_input(
            self.input.take(),
            mem,
            fmt,
            [
                regs.read(ADDR_IN_PLANE_0),
                regs.read(ADDR_IN_PLANE_1),
                regs.read(ADDR_IN_PLANE_2),
            ],
            row_len,
            width,
            height,
            mb_w,
            mb_h,
        )
        .map_err(bus)?;
        if !intra {
            self.refpic
                .load(
                    mem,
                    regs.read(ADDR_REF_LUMA),
                    regs.read(ADDR_REF_CHROMA),
                    mb_w,
                    mb_h,
                )
                .map_err(bus)?;
        }

        let qp = regs.field(QP_VAL, QP_VAL_LUM_SHIFT, 6) as i32;
        let qp_min = regs.field(QP_VAL, QP_VAL_MIN_SHIFT, 6) as i32;
        let qp_max = regs.field(QP_VAL, QP_VAL_MAX_SHIFT, 6) as i32;
        let init_qp = regs.field(ENC_CTRL0, CTRL0_INIT_QP_SHIFT, 6) as i32;
        if qp > 51 || qp_max > 51 || qp_min > qp_max || init_qp > 51 {
            return Err(IRQ_CONFIG_ERROR);
        }
        let range = regs.read(H264_SEARCH_RANGE);
        let mut params = FrameParams {
            intra,
            qp,
            qp_min,
            qp_max,
            chroma_qp_offset: regs.sfield(ENC_CTRL0, CTRL0_CHROMA_QP_OFFSET_SHIFT, 5),
            constrained_intra_pred: regs.read(ENC_CTRL0) & CTRL0_CONSTR_INTRA_PRED != 0,
            slice_rows: regs.field(ENC_CTRL2, CTRL2_SLICE_SIZE_SHIFT, 7) as usize,
            disable_qpel: regs.read(ENC_CTRL2) & CTRL2_DISABLE_QUARTER_PIXMV != 0,
            multi_mv: regs.read(ENC_CTRL3) & CTRL3_MUTIMV_EN != 0,
            inter4x4: regs.read(ENC_CTRL3) & CTRL3_MUTIMV_EN != 0
                && regs.read(ENC_CTRL2) & CTRL2_INTER4X4_MODE != 0,
            search_range: [
                match range & 0xffff {
                    0 => 32,
                    r => r as i32,
                },
                match range >> 16 {
                    0 => 16,
                    r => r as i32,
                },
            ],
            inframe: ratectl::InFrameRc::from_regs(regs),
            cabac_init: None,
            transform_8x8: regs.read(ENC_CTRL2) & CTRL2_TRANS8X8 != 0,
        };
        let cabac_init_idc = regs.field(ENC_CTRL2, CTRL2_CABAC_INIT_IDC_SHIFT, 2);
        let cabac = regs.read(ENC_CTRL2) & CTRL2_ENTROPY_CABAC != 0;
        if cabac && cabac_init_idc > 2 {
            return Err(IRQ_CONFIG_ERROR);
        }
        if cabac {
            // The states of this picture's slice QP and slice type.
            let mut t = [0u8; cabac::NUM_CONTEXTS];
            let off = (qp as usize * 2 + usize::from(!intra)) * CABAC_TABLE_STRIDE;
            mem.read(regs.read(ADDR_CABAC_TBL).wrapping_add(off as u32), &mut t)
                .map_err(bus)?;
            // 9.3.1.1 never gives pStateIdx 63 (end_of_slice_flag, ctxIdx 276,
            // is not read from the table): such a table is not one a driver computed.
            if t.iter().enumerate().any(|(i, &v)| i != 276 && v >> 1 > 62) {
                return Err(IRQ_CONFIG_ERROR);
            }
            params.cabac_init = Some(t);
        }
        let ext = regs.read(H264_SLICE_EXT);
        let log2_max_frame_num = ((ext >> EXT_LOG2_MAX_FRAME_NUM_M4_SHIFT) & 0xf) + 4;
        if log2_max_frame_num > 16 {
            return Err(IRQ_CONFIG_ERROR);
        }
        let ref_mod = regs.read(H264_REF_MOD);
        let deblock_idc = regs.field(ENC_CTRL2, CTRL2_DEBLOCKING_FILTER_MODE_SHIFT, 2);
        if deblock_idc > 2 {
            return Err(IRQ_CONFIG_ERROR);
        }
        let alpha = regs.sfield(ENC_CTRL0, CTRL0_SLICE_ALPHA_SHIFT, 4);
        let beta = regs.sfield(ENC_CTRL0, CTRL0_SLICE_BETA_SHIFT, 4);
        if !(-6..=6).contains(&alpha) || !(-6..=6).contains(&beta) {
            return Err(IRQ_CONFIG_ERROR);
        }
        let header = SliceHeader {
            nal_ref_idc: ext & EXT_NAL_REF_IDC_MASK,
            idr: intra && ext & EXT_NON_IDR_INTRA == 0,
            intra,
            first_mb_in_slice: 0,
            pps_id: regs.field(ENC_CTRL1, CTRL1_PPS_ID_SHIFT, 8),
            frame_num: regs.read(ENC_CTRL1) & CTRL1_FRAME_NUM_MASK,
            log2_max_frame_num,
            idr_pic_id: regs.field(ENC_CTRL0, CTRL0_IDR_PICID_SHIFT, 4),
            poc_lsb: (ext & EXT_POC_TYPE0 != 0).then(|| {
                (
                    regs.read(H264_POC) & 0xffff,
                    ((ext >> EXT_LOG2_MAX_POC_LSB_M4_SHIFT) & 0xf) + 4,
                )
            }),
            num_ref_idx_override: None,
            ref_mod: match ref_mod & REF_MOD_IDC_PLUS1_MASK {
                0 => None,
                idc => Some((idc - 1, ref_mod >> REF_MOD_VALUE_SHIFT)),
            },
            mark_long_term: ext & EXT_MARK_LONG_TERM != 0,
            cabac_init_idc: (cabac && !intra).then_some(cabac_init_idc),
            slice_qp_delta: qp - init_qp,
            disable_deblocking_filter_idc: deblock_idc,
            alpha_div2: alpha,
            beta_div2: beta,
        };
        if header.idr && header.nal_ref_idc == 0 {
            return Err(IRQ_CONFIG_ERROR);
        }

        let refpic = (!intra).then_some(&mut self.refpic);
        let mut coder = FrameCoder::new(&params, &src, refpic, core::mem::take(&mut self.coder));
        let slices = coder.encode();

        // Slice NAL units: start code, NAL header, escaped slice_header() + slice_data().
        let byte_stream = regs.read(ENC_CTRL2) & CTRL2_STREAM_MODE != 0;
        let mut nals: Vec<Vec<u8>> = Vec::with_capacity(slices.len());
        for s in slices {
            let mut bw = bitwriter::BitWriter::new();
            let mut h = header.clone();
            h.first_mb_in_slice = s.first_mb as u32;
            h.write(&mut bw);
            let mut rbsp = bw;
            if cabac {
                // cabac_alignment_one_bit.
                while !rbsp.bit_len().is_multiple_of(8) {
                    rbsp.put(1, 1);
                }
            }
            let data = s.data.into_bits();
            rbsp.append_bits(&data.0, data.1);
            if cabac {
                // The flush at end_of_slice_flag wrote the rbsp_stop_one_bit.
                rbsp.align_zero();
            } else {
                rbsp.trailing();
            }
            let rbsp = rbsp.into_bytes();
            let mut nal = Vec::with_capacity(rbsp.len() * 9 / 8 + 8);
            if byte_stream {
                nal.extend_from_slice(&[0, 0, 0, 1]);
            }
            nal.push(((header.nal_ref_idc << 5) | header.nal_unit_type()) as u8);
            let start = nal.len();
            nal.resize(start + h264enc::bitstream::emulation::escaped_len(&rbsp), 0);
            h264enc::bitstream::emulation::escape(&rbsp, &mut nal[start..])
                .map_err(|_| IRQ_CONFIG_ERROR)?;
            nals.push(nal);
        }

        if cabac {
            let words = cabac_zero_words(&nals, byte_stream, mb_w * mb_h, coder.stats.bins);
            if let Some(last) = nals.last_mut() {
                for _ in 0..words {
                    // A cabac_zero_word, 0x0000, escaped: 00 00 03.
                    last.extend_from_slice(&[0, 0, 3]);
                }
            }
            coder.stats.cabac_zero_words = words;
        }

        // Output: header remainder, then the NAL units, never past STR_BUF_LIMIT.
        let out = regs.read(ADDR_OUTPUT_STREAM);
        let limit = regs.read(STR_BUF_LIMIT) as usize;
        let first_free_bit = regs.field(RLC_CTRL, RLC_STR_OFFS_SHIFT, 6) as usize;
        if !out.is_multiple_of(8) || !first_free_bit.is_multiple_of(8) {
            return Err(IRQ_CONFIG_ERROR);
        }
        let rem_bytes = first_free_bit / 8;
        let rem = [
            regs.read(STR_HDR_REM_MSB).to_be_bytes(),
            regs.read(STR_HDR_REM_LSB).to_be_bytes(),
        ]
        .concat();
        let mut stream = rem[..rem_bytes].to_vec();
        let mut irq = IRQ_FRAME_RDY;
        let mut nal_sizes = Vec::new();
        for nal in &nals {
            if stream.len() + nal.len() > limit {
                irq = IRQ_BUFFER_FULL;
                break;
            }
            stream.extend_from_slice(nal);
            nal_sizes.push(nal.len() as u32);
        }
        let written = stream.len().min(limit);
        mem.write(out, &stream[..written]).map_err(bus)?;
        let table = regs.read(ADDR_OUTPUT_CTRL);
        let mut t: Vec<u8> = nal_sizes.iter().flat_map(|s| s.to_le_bytes()).collect();
        t.extend_from_slice(&0u32.to_le_bytes());
        mem.write(table, &t).map_err(bus)?;

        if irq == IRQ_FRAME_RDY {
            let p = deblock::DeblockParams {
                idc: deblock_idc,
                offset_a: alpha * 2,
                offset_b: beta * 2,
                chroma_qp_offset: params.chroma_qp_offset,
            };
            deblock::deblock(&mut coder.rec, &coder.mbs, &coder.motion, &p);
            coder
                .rec
                .store_recon(mem, regs.read(ADDR_REC_LUMA), regs.read(ADDR_REC_CHROMA))
                .map_err(bus)?;
        }

        let stats = coder.stats.clone();
        let coded_bits = (written - rem_bytes.min(written)) as u32 * 8;
        regs.write(STR_BUF_LIMIT, coded_bits);
        regs.write(
            MAD_CTRL,
            (regs.read(MAD_CTRL) & !MAD_QP_SUM_DIV2_MASK)
                | ((stats.qp_sum / 2) & MAD_QP_SUM_DIV2_MASK),
        );
        regs.write(
            RLC_CTRL,
            (regs.read(RLC_CTRL) & !RLC_SUM_MASK) | ((stats.rlc_count / 4) & RLC_SUM_MASK),
        );
        coder.rc.write_back(regs);
        let c5 = regs.read(ENC_CTRL5) & !(0xff << CTRL5_COMPLETE_SLICES_SHIFT);
        regs.write(
            ENC_CTRL5,
            c5 | ((nal_sizes.len() as u32 & 0xff) << CTRL5_COMPLETE_SLICES_SHIFT),
        );
        let mb_qps = coder.mbs.iter().map(|m| m.qp as u8).collect();
        self.coder = coder.into_buffers();
        self.input = Some(src);
        Ok(RunReport {
            irq,
            stats,
            nal_sizes,
            mb_qps,
        })
    }
}

/// The cabac_zero_words a picture needs so that its bins stay within
/// (32 / 3) x NumBytesInVclNALunits + (RawMbBits x PicSizeInMbs) / 32
/// (7.4.2.10; RawMbBits is 3072 for 8-bit 4:2:0), each adding three bytes.
fn cabac_zero_words(nals: &[Vec<u8>], byte_stream: bool, mbs: usize, bins: u64) -> u32 {
    let start_code = if byte_stream { 4 } else { 0 };
    let bytes: u64 = nals.iter().map(|n| (n.len() - start_code) as u64).sum();
    let slack = 3072 * mbs as u64 / 32;
    // bins <= 32 x (bytes + 3k) / 3 + slack  <=>  96k >= 3 (bins - slack) - 32 bytes.
    let need = (3 * bins.saturating_sub(slack)).saturating_sub(32 * bytes);
    need.div_ceil(96) as u32
}
