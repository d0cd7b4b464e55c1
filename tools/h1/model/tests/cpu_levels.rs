//! Every CPU level codes the same bytes: whole streams coded by an H1 of
//! each level this CPU runs equal those of the plain level, in the stream,
//! the reconstruction, every macroblock's QP and the registers written back.

mod common;
use common::*;
use hantro_h1_model::regs::*;
use hantro_h1_model::CpuLevel;

/// Register writes of in-frame rate control: checkpoints every `distance`
/// macroblocks with targets of a few words (so the QP steps both ways), the
/// ladder of word errors and QP deltas, and the MAD adjustment.
fn inframe_rc(qp: u32, distance: u32) -> Vec<(usize, u32)> {
    let pairs = |vals: &[u32], base: usize| -> Vec<(usize, u32)> {
        vals.chunks(2)
            .enumerate()
            .map(|(i, p)| (base + i * 4, (p[0] & 0xffff) << 16 | (p[1] & 0xffff)))
            .collect()
    };
    let targets = [2, 3, 5, 8, 12, 16, 20, 26, 30, 36];
    let mut regs = pairs(&targets, CHECKPOINT_BASE);
    let word_err: Vec<u32> = [-4i32, -2, -1, 1, 2, 4].map(|e| e as u16 as u32).to_vec();
    regs.extend(pairs(&word_err, CHKPT_WORD_ERR_BASE));
    let deltas = [-3i32, -2, -1, 0, 1, 2, 3];
    let packed = deltas
        .iter()
        .enumerate()
        .map(|(i, &d)| ((d as u32) & 0xf) << (4 * i));
    regs.push((CHKPT_DELTA_QP, packed.sum()));
    regs.push((
        QP_VAL,
        (qp << QP_VAL_LUM_SHIFT) | (51 << QP_VAL_MAX_SHIFT) | distance,
    ));
    let mad = (((-2i32 as u32) & 0xf) << MAD_QP_ADJUST_SHIFT) | (12 << MAD_THRESHOLD_SHIFT);
    regs.push((MAD_CTRL, mad));
    regs
}

/// Streams of I and P frames: CAVLC and CABAC, with and without the 8x8
/// transform, several slices, in-frame rate control with checkpoints,
/// deblocking across slices or not, NV12 input, sizes that are not whole
/// macroblocks, low and high QPs, real, synthetic and noise content.
fn streams() -> Vec<(&'static str, Config, usize)> {
    vec![
        (
            "meadow",
            Config {
                qp: 28,
                gop: 5,
                slice_rows: 3,
                extra_regs: inframe_rc(28, 20),
                ..Default::default()
            },
            10,
        ),
        (
            "carphone",
            Config {
                width: 352,
                height: 288,
                qp: 24,
                gop: 4,
                slice_rows: 5,
                cabac: Some(1),
                transform_8x8: true,
                alpha: 2,
                beta: -2,
                extra_regs: inframe_rc(24, 40),
                ..Default::default()
            },
            8,
        ),
        (
            "testsrc2",
            Config {
                width: 200,
                height: 120,
                qp: 6,
                gop: 2,
                slice_rows: 2,
                deblock_idc: 2,
                nv12: true,
                constrained_intra: true,
                chroma_qp_offset: -4,
                cabac: Some(0),
                transform_8x8: true,
                ..Default::default()
            },
            4,
        ),
        (
            "noise",
            Config {
                qp: 46,
                gop: 4,
                partitions: 1,
                cabac: Some(2),
                chroma_qp_offset: 6,
                alpha: -6,
                beta: 6,
                extra_regs: inframe_rc(46, 11),
                ..Default::default()
            },
            4,
        ),
    ]
}

#[test]
fn every_cpu_level_codes_the_plain_bytes() {
    let levels: Vec<CpuLevel> = CpuLevel::supported()
        .filter(|&l| l != CpuLevel::Plain)
        .collect();
    // Off x86_64 plain is the only level: there is nothing to compare.
    eprintln!("CPU levels compared with plain: {levels:?}");
    for (name, cfg, frames) in streams() {
        let yuv = clip(name, cfg.width, cfg.height, frames);
        let plain = encode(
            &yuv,
            &Config {
                cpu: CpuLevel::Plain,
                ..cfg.clone()
            },
        );
        // The streams are what they claim: P frames with inter macroblocks,
        // several slices, the 8x8 transform and checkpoints where asked.
        assert!(
            plain.feedback.iter().all(|f| f.slices == f.expected_slices),
            "{name}"
        );
        assert!(
            plain.part_counts.iter().sum::<u32>() > 0,
            "{name}: no inter macroblock"
        );
        assert!(
            !cfg.transform_8x8 || plain.t8x8_mbs.iter().sum::<u32>() > 0,
            "{name}"
        );
        let qps = plain.mb_qps.iter().flatten();
        let steps = qps.clone().zip(qps.skip(1)).filter(|(a, b)| a != b).count();
        assert!(
            cfg.extra_regs.is_empty() || steps > 0,
            "{name}: the QP never moved"
        );
        for &level in &levels {
            let enc = encode(
                &yuv,
                &Config {
                    cpu: level,
                    ..cfg.clone()
                },
            );
            let frame_len = cfg.width * cfg.height * 3 / 2;
            assert!(
                enc.stream == plain.stream,
                "{name}, level {level}: the stream differs from plain's ({} and {} bytes)",
                enc.stream.len(),
                plain.stream.len()
            );
            assert!(
                enc.recon == plain.recon,
                "{name}, level {level}: the reconstruction differs from plain's: {}",
                first_diff(&enc.recon, &plain.recon, frame_len)
            );
            assert_eq!(enc.mb_qps, plain.mb_qps, "{name}, level {level}: QPs");
            for (f, (a, b)) in enc.regs_after.iter().zip(&plain.regs_after).enumerate() {
                assert_eq!(a.0, b.0, "{name}, level {level}, frame {f}: registers");
            }
        }
    }
}
