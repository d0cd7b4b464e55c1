//! The model's reconstruction equals what independent decoders make of its stream.
//!
//! The matrix here is the CI subset; `scripts/h1-matrix.sh` runs the full one
//! (CIF and 720p) through the same code with `H1_MATRIX=full`.

mod common;
use common::*;

/// Per clip: mb_type and sub_mb_type counts of P macroblocks, and the
/// macroblocks with the 8x8 transform (P, Intra_8x8).
type Counts = ([u32; 4], [u32; 4], [u32; 2]);

/// Encodes and checks one configuration; returns the partition counts, or a message on failure.
fn check(name: &str, cfg: &Config, frames: usize) -> Result<Counts, String> {
    let yuv = clip(name, cfg.width, cfg.height, frames);
    let enc = encode(&yuv, cfg);
    let tag = format!(
        "{name}-{}x{}-qp{}-db{}-rows{}-part{}{}{}{}{}",
        cfg.width,
        cfg.height,
        cfg.qp,
        cfg.deblock_idc,
        cfg.slice_rows,
        cfg.partitions,
        if cfg.nv12 { "-nv12" } else { "" },
        if cfg.constrained_intra { "-cip" } else { "" },
        cfg.cabac.map_or(String::new(), |i| format!("-cabac{i}")),
        if cfg.transform_8x8 { "-8x8" } else { "" }
    );
    let frame_len = cfg.width * cfg.height * 3 / 2;
    if enc.recon.len() != frames * frame_len {
        return Err(format!(
            "{tag}: {} recon bytes for {frames} frames",
            enc.recon.len()
        ));
    }
    if let Ok(dir) = std::env::var("H1_DUMP_DIR") {
        std::fs::write(format!("{dir}/{tag}.h264"), &enc.stream).unwrap();
    }
    let dec = ffmpeg_decode(&enc.stream).map_err(|e| format!("{tag}: {e}"))?;
    if dec != enc.recon {
        return Err(format!(
            "{tag}: ffmpeg decode != recon: {}",
            first_diff(&dec, &enc.recon, frame_len)
        ));
    }
    let dec2 = openh264_decode(&enc.stream).map_err(|e| format!("{tag}: {e}"))?;
    if dec2 != enc.recon {
        return Err(format!(
            "{tag}: openh264 decode != recon: {}",
            first_diff(&dec2, &enc.recon, frame_len)
        ));
    }
    for (i, fb) in enc.feedback.iter().enumerate() {
        if fb.bits != fb.nal_bytes * 8 {
            return Err(format!(
                "{tag}: frame {i}: bits register {} != 8 x {} NAL bytes",
                fb.bits, fb.nal_bytes
            ));
        }
        if fb.qp_sum_reg != fb.coded_qp_sum & !1 {
            return Err(format!(
                "{tag}: frame {i}: QP sum register {} != coded QP sum {}",
                fb.qp_sum_reg, fb.coded_qp_sum
            ));
        }
        if fb.rlc_reg != fb.coded_levels & !3 {
            return Err(format!(
                "{tag}: frame {i}: RLC register {} != coded levels {}",
                fb.rlc_reg, fb.coded_levels
            ));
        }
        if fb.slices != fb.expected_slices {
            return Err(format!(
                "{tag}: frame {i}: {} slices, expected {}",
                fb.slices, fb.expected_slices
            ));
        }
    }
    Ok((enc.part_counts, enc.sub_counts, enc.t8x8_mbs))
}

fn run_matrix(sizes: &[(usize, usize)], frames: usize) {
    let mut failures = Vec::new();
    let mut count = 0;
    // Per partition setting: mb_type counts, sub_mb_type counts.
    let mut seen = [([0u32; 4], [0u32; 4]); 3];
    // CABAC configurations per cabac_init_idc.
    let mut idcs = [0u32; 3];
    // P macroblocks with the 8x8 transform, and Intra_8x8 ones; CAVLC and CABAC.
    let mut t8x8 = [[0u32; 2]; 2];
    for &(w, h) in sizes {
        for content in ["flat", "noise", "testsrc2", "meadow"] {
            for qp in [10, 26, 40, 51] {
                for deblock_idc in [0, 1, 2] {
                    // Every configuration in Baseline (CAVLC), Main (CABAC)
                    // and High (the 8x8 transform, CABAC or CAVLC in turn).
                    for (slices, entropy) in
                        [1, 3].into_iter().flat_map(|s| [(s, 0), (s, 1), (s, 2)])
                    {
                        let rows = if slices == 1 {
                            0
                        } else {
                            mbs(h).div_ceil(3) as u32
                        };
                        // Each configuration takes one of the three partition
                        // settings in turn, and each CABAC one of the three
                        // cabac_init_idc values.
                        let partitions = (count / 3 % 3) as u8;
                        let high_cabac = entropy == 2 && count / 3 / 3 % 2 == 0;
                        let cabac = (entropy == 1 || high_cabac).then_some((count / 3 % 3) as u32);
                        if let Some(idc) = cabac {
                            idcs[idc as usize] += 1;
                        }
                        let cfg = Config {
                            width: w,
                            height: h,
                            qp,
                            deblock_idc,
                            slice_rows: rows,
                            gop: 3,
                            partitions,
                            cabac,
                            transform_8x8: entropy == 2,
                            ..Default::default()
                        };
                        count += 1;
                        match check(content, &cfg, frames) {
                            Ok((parts, subs, t8)) => {
                                for (k, n) in t8.iter().enumerate() {
                                    t8x8[k][usize::from(cabac.is_some())] += n;
                                }
                                let s = &mut seen[partitions as usize];
                                for k in 0..4 {
                                    s.0[k] += parts[k];
                                    s.1[k] += subs[k];
                                }
                            }
                            Err(e) => failures.push(e),
                        }
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {count} configurations failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    eprintln!("{count} configurations byte-exact (CABAC per cabac_init_idc: {idcs:?}); (mb_type, sub_mb_type) counts per partition setting: {seen:?}");
    assert!(
        idcs.iter().all(|&n| n > 0),
        "every cabac_init_idc: {idcs:?}"
    );
    eprintln!("8x8 transform P and Intra_8x8 macroblocks, each (CAVLC, CABAC): {t8x8:?}");
    assert!(
        t8x8.iter().flatten().all(|&n| n > 0),
        "8x8 transform in both entropy modes: {t8x8:?}"
    );
    // The registers gate the partitions, and with them on every shape is coded.
    assert_eq!(seen[0].0[1..], [0, 0, 0], "16x16 only: {seen:?}");
    assert_eq!(
        seen[1].1[1..],
        [0, 0, 0],
        "no sub-8x8 without INTER4X4: {seen:?}"
    );
    assert!(seen[1].0.iter().all(|&n| n > 0), "MUTIMV: {seen:?}");
    assert!(seen[2].0.iter().all(|&n| n > 0), "INTER4X4: {seen:?}");
    assert!(seen[2].1.iter().all(|&n| n > 0), "INTER4X4: {seen:?}");
}

#[test]
fn matrix_small_sizes() {
    run_matrix(&[(176, 144), (200, 120)], 4);
}

#[test]
fn matrix_large_sizes() {
    if std::env::var("H1_MATRIX").as_deref() != Ok("full") {
        eprintln!("CIF and 720p run in scripts/h1-matrix.sh (H1_MATRIX=full)");
        return;
    }
    run_matrix(&[(352, 288), (1280, 720)], 4);
}

#[test]
fn nv12_input_codes_the_same_picture_as_i420() {
    let yuv = clip("meadow", 200, 120, 3);
    let a = encode(
        &yuv,
        &Config {
            width: 200,
            height: 120,
            ..Default::default()
        },
    );
    let b = encode(
        &yuv,
        &Config {
            width: 200,
            height: 120,
            nv12: true,
            ..Default::default()
        },
    );
    assert!(a.stream == b.stream && a.recon == b.recon);
    check(
        "meadow",
        &Config {
            width: 200,
            height: 120,
            nv12: true,
            ..Default::default()
        },
        3,
    )
    .unwrap();
}

#[test]
fn constrained_intra_chroma_offset_and_filter_offsets() {
    for (cip, cqo, alpha, beta, cabac, t8) in [
        (true, 0, 0, 0, None, false),
        (false, 4, 0, 0, None, false),
        (false, -6, 3, -2, None, false),
        (true, 2, -6, 6, None, false),
        // CABAC: with constrained intra prediction, coded_block_flag contexts
        // of intra macroblocks still see inter neighbours (9.3.3.1.1.9).
        (true, -3, 1, 1, Some(0), false),
        (false, 5, -2, 2, Some(2), false),
        // Intra_8x8 references and modes from constrained neighbours.
        (true, 1, 0, 0, Some(1), true),
        (true, -2, 2, -1, None, true),
    ] {
        let cfg = Config {
            cabac,
            transform_8x8: t8,
            constrained_intra: cip,
            chroma_qp_offset: cqo,
            alpha,
            beta,
            gop: 5,
            qp: 32,
            ..Default::default()
        };
        check("meadow", &cfg, 5).unwrap();
        check("testsrc2", &cfg, 5).unwrap();
    }
}

/// Pictures with more bins than 7.4.2.10 allows for their bytes get
/// cabac_zero_words, and the bound then holds (noise at QP 0 needs them).
#[test]
fn cabac_zero_words_keep_bins_within_the_bound() {
    let mut padded = 0;
    for (content, qp) in [("noise", 0), ("noise", 6), ("meadow", 0), ("testsrc2", 30)] {
        let cfg = Config {
            cabac: Some(0),
            qp,
            gop: 2,
            ..Default::default()
        };
        check(content, &cfg, 3).unwrap();
        let yuv = clip(content, cfg.width, cfg.height, 3);
        let enc = encode(&yuv, &cfg);
        let mbs = (mbs(cfg.width) * mbs(cfg.height)) as u64;
        for (f, fb) in enc.feedback.iter().enumerate() {
            // NAL bytes without the 4-byte start codes.
            let bytes = u64::from(fb.nal_bytes) - 4 * u64::from(fb.slices);
            assert!(
                3 * fb.bins <= 32 * bytes + 3 * 96 * mbs,
                "{content} QP {qp} frame {f}: {} bins for {bytes} bytes",
                fb.bins
            );
            padded += fb.cabac_zero_words;
        }
    }
    assert!(
        padded > 0,
        "no picture needed cabac_zero_words: the test tests nothing"
    );
}
