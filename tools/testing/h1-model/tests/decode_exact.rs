//! The model's reconstruction equals what independent decoders make of its stream.

mod common;
use common::*;

fn check(name: &str, cfg: &Config, frames: usize) {
    let path = clip(name, cfg.width, cfg.height, frames);
    let yuv = std::fs::read(path).unwrap();
    let enc = encode(&yuv, cfg);
    let tag = format!(
        "{name}-{}x{}-qp{}-db{}-sl{}",
        cfg.width, cfg.height, cfg.qp, cfg.deblock_idc, cfg.slice_rows
    );
    let frame_len = cfg.width * cfg.height * 3 / 2;
    let dec = ffmpeg_decode(&enc.stream, &tag);
    assert!(
        dec == enc.recon,
        "{tag}: ffmpeg decode != recon: {}",
        first_diff(&dec, &enc.recon, frame_len)
    );
    let dec2 = openh264_decode(&enc.stream);
    assert!(
        dec2 == enc.recon,
        "{tag}: openh264 decode != recon: {}",
        first_diff(&dec2, &enc.recon, frame_len)
    );
    for (i, (bits, nal_bytes, qp_sum_reg, qp_sum, _rlc)) in enc.feedback.iter().enumerate() {
        assert_eq!(*bits, nal_bytes * 8, "{tag}: frame {i}: bits register");
        assert_eq!(
            *qp_sum_reg,
            qp_sum & !1,
            "{tag}: frame {i}: qp sum register"
        );
    }
}

#[test]
fn testsrc2_qcif_thin_path() {
    check(
        "testsrc2",
        &Config {
            gop: 4,
            ..Default::default()
        },
        6,
    );
}
