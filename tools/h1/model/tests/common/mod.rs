//! Test bench of the H1 model: programs registers the way a driver does, runs
//! frames, and checks streams with independent decoders.
#![allow(dead_code)]

#[allow(unused_imports)]
pub use h264_oracle::{clip, ffmpeg_decode, first_diff, openh264_decode};
use h264enc::pps::PicParams;
use h264enc::sps::{Crop, SeqParams};
use hantro_h1_model::regs::*;
use hantro_h1_model::{BufferMemory, CpuLevel, Memory, H1};

/// Encoding settings of a test run.
#[derive(Clone, Debug)]
pub struct Config {
    pub width: usize,
    pub height: usize,
    pub qp: i32,
    pub deblock_idc: u32,
    pub slice_rows: u32,
    pub gop: usize,
    pub nv12: bool,
    pub constrained_intra: bool,
    pub chroma_qp_offset: i32,
    pub alpha: i32,
    pub beta: i32,
    /// Inter partitions: 0 16x16 only, 1 also 16x8, 8x16, 8x8 (MUTIMV_EN),
    /// 2 also sub-8x8 (H264_INTER4X4_MODE).
    pub partitions: u8,
    /// CABAC with this cabac_init_idc (Main profile); CAVLC when absent.
    pub cabac: Option<u32>,
    /// The 8x8 transform (High profile).
    pub transform_8x8: bool,
    /// Extra register writes after the standard programming (offset, value).
    pub extra_regs: Vec<(usize, u32)>,
    /// Threads of the model ([`H1::with_threads`]).
    pub threads: usize,
    /// The CPU level of the H1 (the highest this CPU runs by default).
    pub cpu: CpuLevel,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            width: 176,
            height: 144,
            qp: 26,
            deblock_idc: 0,
            slice_rows: 0,
            gop: 30,
            nv12: false,
            constrained_intra: false,
            chroma_qp_offset: 0,
            alpha: 0,
            beta: 0,
            partitions: 2,
            cabac: None,
            transform_8x8: false,
            extra_regs: Vec::new(),
            threads: 1,
            cpu: CpuLevel::detect(),
        }
    }
}

/// The result of encoding a clip.
pub struct Encoded {
    pub stream: Vec<u8>,
    /// Reconstructed frames, I420 at the visible size (what a decoder outputs).
    pub recon: Vec<u8>,
    /// Feedback registers of each frame and what the model coded.
    pub feedback: Vec<Feedback>,
    /// QP_Y of every macroblock of every frame.
    pub mb_qps: Vec<Vec<u8>>,
    /// The register file after each frame.
    pub regs_after: Vec<Registers>,
    /// P macroblocks coded with each mb_type 0..3, and 8x8 blocks with each sub_mb_type.
    pub part_counts: [u32; 4],
    pub sub_counts: [u32; 4],
    /// P macroblocks coded with the 8x8 transform, and Intra_8x8 ones.
    pub t8x8_mbs: [u32; 2],
}

/// The feedback registers of one frame beside the model's own counts.
#[derive(Clone, Debug)]
pub struct Feedback {
    pub bits: u32,
    pub nal_bytes: u32,
    pub qp_sum_reg: u32,
    pub coded_qp_sum: u32,
    pub rlc_reg: u32,
    pub coded_levels: u32,
    pub slices: u32,
    pub expected_slices: u32,
    /// CABAC bins of the picture and the cabac_zero_words appended.
    pub bins: u64,
    pub cabac_zero_words: u32,
}

pub fn mbs(v: usize) -> usize {
    v.div_ceil(16)
}

/// Encodes the I420 frames of `yuv` with the model; frame 0 and every `gop` are IDR.
pub fn encode(yuv: &[u8], cfg: &Config) -> Encoded {
    let (w, h) = (cfg.width, cfg.height);
    let (mw, mh) = (mbs(w), mbs(h));
    let frame_len = w * h * 3 / 2;
    let frames = yuv.len() / frame_len;
    let sps = SeqParams {
        profile_idc: match (cfg.transform_8x8, cfg.cabac) {
            (true, _) => 100,
            (false, Some(_)) => 77,
            (false, None) => 66,
        },
        constraint_flags: match (cfg.transform_8x8, cfg.cabac) {
            (true, _) => 0,
            (false, Some(_)) => 0x40,
            (false, None) => 0xc0,
        },
        level_idc: 40,
        sps_id: 0,
        log2_max_frame_num_minus4: 12,
        pic_order_cnt_type: 2,
        log2_max_poc_lsb_minus4: 0,
        max_num_ref_frames: 1,
        gaps_in_frame_num_allowed: false,
        width_mbs: mw as u16,
        height_mbs: mh as u16,
        crop: Crop {
            right: (mw * 16 - w) as u16,
            bottom: (mh * 16 - h) as u16,
        },
        num_units_in_tick: 1,
        time_scale: 60,
        colour: None,
        nal_hrd: None,
        max_dec_frame_buffering: None,
    };
    let pps = PicParams {
        pps_id: 0,
        sps_id: 0,
        entropy_coding_mode_flag: cfg.cabac.is_some(),
        pic_init_qp_minus26: 0,
        chroma_qp_index_offset: cfg.chroma_qp_offset as i8,
        constrained_intra_pred_flag: cfg.constrained_intra,
        transform_8x8_mode_flag: cfg.transform_8x8,
    };
    let mut stream = vec![0u8; 256];
    let n = sps.write_nal(&mut stream).unwrap();
    let m = pps.write_nal(&mut stream[n..]).unwrap();
    stream.truncate(n + m);

    let mut mem = BufferMemory::new();
    let in_addr = mem.alloc(frame_len);
    let rec = [
        (mem.alloc(mw * mh * 256), mem.alloc(mw * mh * 128)),
        (mem.alloc(mw * mh * 256), mem.alloc(mw * mh * 128)),
    ];
    // Worst case of CAVLC at QP 0 on noise stays well under 1000 bytes per macroblock.
    let out_len = mw * mh * 1000 + 1024;
    let out_addr = mem.alloc(out_len);
    let table = mem.alloc((mh + 1) * 4);
    // The CABAC context table as a driver fills it: per QP, the I-slice
    // states then those of the P slices' cabac_init_idc.
    let cabac_table = mem.alloc(CABAC_TABLE_SIZE);
    if let Some(idc) = cfg.cabac {
        let mut t = vec![0u8; CABAC_TABLE_SIZE];
        for (i, states) in t.chunks_mut(CABAC_TABLE_STRIDE).enumerate() {
            h264enc::cabac_init::init_states(i % 2 == 0, idc as u8, (i / 2) as u8, states).unwrap();
        }
        mem.write(cabac_table, &t).unwrap();
    }
    let mut h1 = H1::new(cfg.cpu);
    h1.set_threads(cfg.threads);
    let mut recon = Vec::new();
    let mut feedback = Vec::new();
    let mut mb_qps = Vec::new();
    let mut regs_after = Vec::new();
    let mut part_counts = [0u32; 4];
    let mut sub_counts = [0u32; 4];
    let mut t8x8_mbs = [0; 2];
    let mut frame_num = 0u32;
    let mut idr_id = 0u32;
    for f in 0..frames {
        let src = &yuv[f * frame_len..(f + 1) * frame_len];
        let (y, u, v) = (
            &src[..w * h],
            &src[w * h..w * h * 5 / 4],
            &src[w * h * 5 / 4..],
        );
        let mut input = y.to_vec();
        if cfg.nv12 {
            for i in 0..u.len() {
                input.push(u[i]);
                input.push(v[i]);
            }
        } else {
            input.extend_from_slice(u);
            input.extend_from_slice(v);
        }
        mem.write(in_addr, &input).unwrap();
        let idr = f % cfg.gop == 0;
        if idr {
            frame_num = 0;
        }
        let mut r = Registers::default();
        let (cur, prev) = (rec[f % 2], rec[(f + 1) % 2]);
        r.write(ADDR_IN_PLANE_0, in_addr);
        r.write(ADDR_IN_PLANE_1, in_addr + (w * h) as u32);
        r.write(ADDR_IN_PLANE_2, in_addr + (w * h * 5 / 4) as u32);
        r.write(ADDR_REC_LUMA, cur.0);
        r.write(ADDR_REC_CHROMA, cur.1);
        r.write(ADDR_REF_LUMA, prev.0);
        r.write(ADDR_REF_CHROMA, prev.1);
        r.write(ADDR_OUTPUT_STREAM, out_addr);
        r.write(ADDR_OUTPUT_CTRL, table);
        r.write(STR_BUF_LIMIT, out_len as u32);
        r.write(ADDR_CABAC_TBL, cabac_table);
        let fmt = if cfg.nv12 {
            IN_FMT_YUV420SP
        } else {
            IN_FMT_YUV420P
        };
        r.write(
            IN_IMG_CTRL,
            ((w as u32) << IN_IMG_ROW_LEN_SHIFT)
                | ((((mw * 16 - w) / 4) as u32) << IN_IMG_OVRFLR_D4_SHIFT)
                | (((mh * 16 - h) as u32) << IN_IMG_OVRFLB_SHIFT)
                | (fmt << IN_IMG_FMT_SHIFT),
        );
        r.write(
            ENC_CTRL0,
            (26 << CTRL0_INIT_QP_SHIFT)
                | (((cfg.alpha as u32) & 0xf) << CTRL0_SLICE_ALPHA_SHIFT)
                | (((cfg.beta as u32) & 0xf) << CTRL0_SLICE_BETA_SHIFT)
                | (((cfg.chroma_qp_offset as u32) & 0x1f) << CTRL0_CHROMA_QP_OFFSET_SHIFT)
                | ((idr_id & 0xf) << CTRL0_IDR_PICID_SHIFT)
                | if cfg.constrained_intra {
                    CTRL0_CONSTR_INTRA_PRED
                } else {
                    0
                },
        );
        r.write(ENC_CTRL1, frame_num & 0xffff);
        r.write(
            ENC_CTRL2,
            (cfg.deblock_idc << CTRL2_DEBLOCKING_FILTER_MODE_SHIFT)
                | (cfg.slice_rows << CTRL2_SLICE_SIZE_SHIFT)
                | CTRL2_STREAM_MODE
                | if cfg.transform_8x8 { CTRL2_TRANS8X8 } else { 0 }
                | cfg.cabac.map_or(0, |idc| {
                    CTRL2_ENTROPY_CABAC | (idc << CTRL2_CABAC_INIT_IDC_SHIFT)
                })
                | if cfg.partitions >= 2 {
                    CTRL2_INTER4X4_MODE
                } else {
                    0
                },
        );
        r.write(
            ENC_CTRL3,
            if cfg.partitions >= 1 {
                CTRL3_MUTIMV_EN
            } else {
                0
            },
        );
        r.write(
            QP_VAL,
            ((cfg.qp as u32) << QP_VAL_LUM_SHIFT) | (51 << QP_VAL_MAX_SHIFT),
        );
        r.write(H264_SLICE_EXT, 1 | (12 << EXT_LOG2_MAX_FRAME_NUM_M4_SHIFT));
        r.write(AXI_CTRL, AXI_CPU_BYTE_ORDER);
        let pic = if idr { PIC_INTRA } else { PIC_INTER };
        r.write(
            ENC_CTRL,
            ENC_CTRL_EN
                | (ENC_MODE_H264 << ENC_CTRL_MODE_SHIFT)
                | (pic << ENC_CTRL_PIC_SHIFT)
                | ((mw as u32) << ENC_CTRL_WIDTH_SHIFT)
                | ((mh as u32) << ENC_CTRL_HEIGHT_SHIFT)
                | ENC_CTRL_NAL_MODE,
        );
        for &(off, v) in &cfg.extra_regs {
            r.write(off, v);
        }
        let rep = h1.run(&mut r, &mut mem);
        assert_eq!(
            r.read(INTERRUPT) & !IRQ_BIT,
            IRQ_FRAME_RDY,
            "frame {f}: interrupt {:#x}",
            r.read(INTERRUPT)
        );
        let bits = r.read(STR_BUF_LIMIT);
        let out = mem.buffer(out_addr).unwrap();
        let nal_bytes: u32 = rep.nal_sizes.iter().sum();
        // The NAL size table in memory agrees with what was written.
        let t = mem.buffer(table).unwrap();
        for (i, s) in rep.nal_sizes.iter().enumerate() {
            assert_eq!(
                u32::from_le_bytes(t[i * 4..i * 4 + 4].try_into().unwrap()),
                *s
            );
        }
        stream.extend_from_slice(&out[..nal_bytes as usize]);
        let start_codes = out[..nal_bytes as usize]
            .windows(4)
            .filter(|w| w == &[0, 0, 0, 1])
            .count();
        assert_eq!(start_codes, rep.nal_sizes.len(), "slice NAL count");
        t8x8_mbs[0] += rep.stats.t8x8_mbs;
        t8x8_mbs[1] += rep.stats.i8x8_mbs;
        for k in 0..4 {
            part_counts[k] += rep.stats.part_counts[k];
            sub_counts[k] += rep.stats.sub_counts[k];
        }
        feedback.push(Feedback {
            bits,
            nal_bytes,
            qp_sum_reg: (r.read(MAD_CTRL) & MAD_QP_SUM_DIV2_MASK) * 2,
            // QP_Y of every macroblock as coded; deblocking uses these, so the
            // byte-exact decode of a filtered stream pins them down independently.
            coded_qp_sum: rep.mb_qps.iter().map(|&q| q as u32).sum(),
            rlc_reg: (r.read(RLC_CTRL) & RLC_SUM_MASK) * 4,
            coded_levels: rep.stats.rlc_count,
            slices: (r.read(ENC_CTRL5) >> CTRL5_COMPLETE_SLICES_SHIFT) & 0xff,
            bins: rep.stats.bins,
            cabac_zero_words: rep.stats.cabac_zero_words,
            expected_slices: if cfg.slice_rows == 0 {
                1
            } else {
                mh.div_ceil(cfg.slice_rows as usize) as u32
            },
        });
        mb_qps.push(rep.mb_qps.clone());
        regs_after.push(r.clone());
        // Reconstruction, cropped, as I420.
        let ly = mem.buffer(cur.0).unwrap();
        let lc = mem.buffer(cur.1).unwrap();
        let s = mw * 16;
        for row in 0..h {
            recon.extend_from_slice(&ly[row * s..row * s + w]);
        }
        for c in 0..2 {
            for row in 0..h / 2 {
                for x in 0..w / 2 {
                    recon.push(lc[row * s + 2 * x + c]);
                }
            }
        }
        frame_num = (frame_num + 1) & 0xffff;
        if idr {
            idr_id = (idr_id + 1) & 0xf;
        }
    }
    Encoded {
        stream,
        recon,
        feedback,
        mb_qps,
        regs_after,
        part_counts,
        t8x8_mbs,
        sub_counts,
    }
}
