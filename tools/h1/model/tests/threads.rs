//! The model codes the same stream, reconstruction and registers with any
//! number of threads: the wavefront is a host setting, not the hardware's.

mod common;
use common::*;
use hantro_h1_model::regs::*;

/// Checkpoint targets of one word, thresholds and deltas that make every
/// checkpoint step the QP, every `distance` macroblocks (mid-row, so that the
/// wavefront meets each checkpoint part-way through two rows), and the MAD
/// adjustment on.
fn rate_control_regs(qp: u32, distance: u32) -> Vec<(usize, u32)> {
    let pairs = |vals: &[u32], base: usize| -> Vec<(usize, u32)> {
        vals.chunks(2)
            .enumerate()
            .map(|(i, p)| (base + i * 4, (p[0] & 0xffff) << 16 | (p[1] & 0xffff)))
            .collect()
    };
    let mut regs = pairs(
        &[40, 80, 120, 160, 200, 240, 280, 320, 360, 400],
        CHECKPOINT_BASE,
    );
    let word_err: Vec<u32> = [-30i32, -10, -3, 3, 10, 30]
        .iter()
        .map(|&e| e as u16 as u32)
        .collect();
    regs.extend(pairs(&word_err, CHKPT_WORD_ERR_BASE));
    let deltas: u32 = [-3i32, -2, -1, 0, 1, 2, 3]
        .iter()
        .enumerate()
        .map(|(i, &d)| ((d as u32) & 0xf) << (4 * i))
        .sum();
    regs.push((CHKPT_DELTA_QP, deltas));
    regs.push((
        QP_VAL,
        (qp << QP_VAL_LUM_SHIFT) | (51 << QP_VAL_MAX_SHIFT) | distance,
    ));
    let mad = (((-2i32 as u32) & 0xf) << MAD_QP_ADJUST_SHIFT) | (4 << MAD_THRESHOLD_SHIFT);
    regs.push((MAD_CTRL, mad));
    regs
}

/// Everything a run leaves that a thread count could change.
struct Outcome {
    stream: Vec<u8>,
    recon: Vec<u8>,
    mb_qps: Vec<Vec<u8>>,
    regs: Vec<Vec<u32>>,
    feedback: String,
}

fn outcome(e: &Encoded) -> Outcome {
    Outcome {
        stream: e.stream.clone(),
        recon: e.recon.clone(),
        mb_qps: e.mb_qps.clone(),
        regs: e.regs_after.iter().map(|r| r.0.to_vec()).collect(),
        feedback: format!(
            "{:?} {:?} {:?} {:?}",
            e.feedback, e.part_counts, e.sub_counts, e.t8x8_mbs
        ),
    }
}

#[test]
fn any_thread_count_codes_the_same_stream() {
    let (w, h) = (352, 288);
    let yuv = clip("meadow", w, h, 4);
    let configs = [
        (
            "CAVLC, 3-row slices, constrained intra, sub-8x8 partitions",
            Config {
                width: w,
                height: h,
                slice_rows: 3,
                constrained_intra: true,
                gop: 3,
                ..Default::default()
            },
        ),
        (
            "CABAC, 8x8 transform, checkpoints every 29 macroblocks, MAD",
            Config {
                width: w,
                height: h,
                qp: 30,
                cabac: Some(1),
                transform_8x8: true,
                extra_regs: rate_control_regs(30, 29),
                ..Default::default()
            },
        ),
        (
            "CAVLC, 2-row slices, checkpoints every 23 macroblocks",
            Config {
                width: w,
                height: h,
                qp: 28,
                slice_rows: 2,
                extra_regs: rate_control_regs(28, 23),
                ..Default::default()
            },
        ),
    ];
    for (what, cfg) in configs {
        let one = encode(&yuv, &cfg);
        let dec = ffmpeg_decode(&one.stream).unwrap();
        assert!(
            dec == one.recon,
            "{what}: {}",
            first_diff(&dec, &one.recon, w * h * 3 / 2)
        );
        let qps: std::collections::BTreeSet<u8> = one.mb_qps.iter().flatten().copied().collect();
        if cfg.extra_regs.iter().any(|&(r, _)| r == QP_VAL) {
            assert!(
                qps.len() > 2,
                "{what}: the checkpoints never moved the QP: {qps:?}"
            );
        }
        let want = outcome(&one);
        for threads in [2, 3, 4, 7] {
            let got = outcome(&encode(
                &yuv,
                &Config {
                    threads,
                    ..cfg.clone()
                },
            ));
            assert!(
                got.stream == want.stream,
                "{what}: {threads} threads: the stream differs"
            );
            assert!(
                got.recon == want.recon,
                "{what}: {threads} threads: the reconstruction differs"
            );
            assert!(
                got.mb_qps == want.mb_qps,
                "{what}: {threads} threads: macroblock QPs differ"
            );
            assert!(
                got.regs == want.regs,
                "{what}: {threads} threads: registers differ"
            );
            assert_eq!(
                got.feedback, want.feedback,
                "{what}: {threads} threads: feedback differs"
            );
        }
    }
}
