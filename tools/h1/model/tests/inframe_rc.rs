//! The H1's in-frame rate control in the model: checkpoints step the QP of the
//! following macroblocks, the MAD adjustment lowers it on well-predicted ones,
//! the stream still decodes exactly, and the feedback matches what was coded.

mod common;
use common::*;
use hantro_h1_model::regs::*;

fn pack_pairs(vals: &[u32], base: usize) -> Vec<(usize, u32)> {
    vals.chunks(2)
        .enumerate()
        .map(|(i, p)| {
            (
                base + i * 4,
                (p[0] & 0xffff) << 16 | p.get(1).map_or(0, |v| v & 0xffff),
            )
        })
        .collect()
}

fn check_decodes(enc: &Encoded, cfg: &Config) {
    let dec = ffmpeg_decode(&enc.stream).unwrap();
    let fl = cfg.width * cfg.height * 3 / 2;
    assert!(dec == enc.recon, "{}", first_diff(&dec, &enc.recon, fl));
}

#[test]
fn checkpoints_step_the_qp_up_the_ladder() {
    // CABAC too: its mb_qp_delta contexts depend on the previous macroblock's delta.
    for cabac in [None, Some(1)] {
        checkpoints(cabac);
    }
}

fn checkpoints(cabac: Option<u32>) {
    let (w, h) = (352, 288);
    let yuv = clip("meadow", w, h, 3);
    let distance = 40u32;
    // Targets of one word: every checkpoint is over, the top delta (+3) applies
    // once the overshoot reaches three words.
    let mut extra = pack_pairs(&[1; 10], CHECKPOINT_BASE);
    let word_err: Vec<u32> = [-3i32, -2, -1, 1, 2, 3]
        .iter()
        .map(|&e| e as u16 as u32)
        .collect();
    extra.extend(pack_pairs(&word_err, CHKPT_WORD_ERR_BASE));
    let deltas: [i32; 7] = [-3, -2, -1, 0, 1, 2, 3];
    extra.push((
        CHKPT_DELTA_QP,
        deltas
            .iter()
            .enumerate()
            .map(|(i, &d)| ((d as u32) & 0xf) << (4 * i))
            .sum(),
    ));
    let cfg = Config {
        width: w,
        height: h,
        qp: 30,
        gop: 10,
        extra_regs: extra,
        cabac,
        ..Default::default()
    };
    let mut cfg_dist = cfg.clone();
    // QP_VAL keeps LUM and MAX as the bench programs them, plus the distance.
    cfg_dist.extra_regs.push((
        QP_VAL,
        (30 << QP_VAL_LUM_SHIFT) | (51 << QP_VAL_MAX_SHIFT) | distance,
    ));
    let enc = encode(&yuv, &cfg_dist);
    check_decodes(&enc, &cfg_dist);
    for (f, qps) in enc.mb_qps.iter().enumerate() {
        // Before the first checkpoint the frame QP; after it, up to QP + 3 once a macroblock coded its QP.
        assert!(
            qps[..distance as usize].iter().all(|&q| q == 30),
            "frame {f}: {:?}",
            &qps[..40]
        );
        assert!(
            qps[distance as usize + 5..].contains(&33),
            "frame {f}: no macroblock at QP 33"
        );
        // Every checkpoint is over its target, by more words at each: the delta
        // only climbs (a small first overshoot may take +1 or +2 first).
        assert!(
            qps.iter().all(|&q| (30..=33).contains(&q)) && qps.windows(2).all(|p| p[0] <= p[1]),
            "frame {f}: {qps:?}"
        );
        let r = &enc.regs_after[f];
        let results: Vec<u32> = (0..9)
            .map(|i| {
                let v = r.read(CHECKPOINT_BASE + (i / 2) * 4);
                if i % 2 == 0 {
                    v >> 16
                } else {
                    v & 0xffff
                }
            })
            .collect();
        assert!(
            results.windows(2).all(|p| p[0] <= p[1]),
            "frame {f}: results {results:?}"
        );
        assert!(results[0] > 1, "frame {f}: the first checkpoint saw data");
        assert!(
            u64::from(results[8]) * 32 <= u64::from(enc.feedback[f].bits),
            "frame {f}: results beyond the bits written"
        );
    }
}

#[test]
fn mad_adjustment_lowers_the_qp_of_well_predicted_macroblocks() {
    for cabac in [None, Some(2)] {
        mad_adjustment(cabac);
    }
}

fn mad_adjustment(cabac: Option<u32>) {
    let (w, h) = (176, 144);
    let yuv = clip("meadow", w, h, 4);
    // Threshold 63 (every inter macroblock qualifies), adjustment -2.
    let mad = (((-2i32 as u32) & 0xf) << MAD_QP_ADJUST_SHIFT) | (63 << MAD_THRESHOLD_SHIFT);
    let cfg = Config {
        width: w,
        height: h,
        qp: 32,
        gop: 10,
        extra_regs: vec![(MAD_CTRL, mad)],
        cabac,
        ..Default::default()
    };
    let enc = encode(&yuv, &cfg);
    check_decodes(&enc, &cfg);
    for f in 1..4 {
        let count = enc.regs_after[f].read(MB_CTRL) & MB_CNT_OUT_MASK;
        let at_30 = enc.mb_qps[f].iter().filter(|&&q| q == 30).count() as u32;
        assert!(
            count > 0,
            "frame {f}: no macroblock under the MAD threshold"
        );
        // Every counted macroblock was coded at 30; skipped ones keep the QP before them.
        assert!(
            at_30 >= count,
            "frame {f}: {count} counted, {at_30} at QP 30"
        );
    }
    assert_eq!(
        enc.regs_after[0].read(MB_CTRL) & MB_CNT_OUT_MASK,
        0,
        "the intra frame has no inter macroblock"
    );
}
