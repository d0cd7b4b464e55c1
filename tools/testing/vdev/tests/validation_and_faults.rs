//! The driver's control validation, rule by rule, and its failure paths:
//! each failure ends the frame with an error and the stream stays decodable.

use h264_oracle::{clip, ffmpeg_decode, first_diff};
use hantro_vdev::uapi::*;
use hantro_vdev::{Errno, Fault, PixelFormat, VirtualDevice};

const EINVAL: Errno = Errno(-22);
const W: u32 = 176;
const H: u32 = 144;

fn started() -> VirtualDevice {
    let mut d = VirtualDevice::open();
    d.set_format(W, H, PixelFormat::I420, 30, 1).unwrap();
    d.start().unwrap();
    d
}

fn frame() -> Vec<u8> {
    vec![100u8; (W * H * 3 / 2) as usize]
}

#[test]
fn every_encode_params_rule_is_enforced() {
    let mut d = started();
    let f = frame();
    let rc = v4l2_ctrl_h264_encode_rc::default();
    let cases: Vec<(&str, v4l2_ctrl_h264_encode_params)> = vec![
        (
            "unknown flag",
            v4l2_ctrl_h264_encode_params {
                flags: 0x100,
                ..Default::default()
            },
        ),
        (
            "reserved not zero",
            v4l2_ctrl_h264_encode_params {
                reserved: [0, 0, 1, 0, 0],
                ..Default::default()
            },
        ),
        (
            "reference_ts without the flag",
            v4l2_ctrl_h264_encode_params {
                reference_ts: 5,
                ..Default::default()
            },
        ),
        (
            "IDR that names a reference",
            v4l2_ctrl_h264_encode_params {
                flags: V4L2_H264_ENCODE_FLAG_FORCE_IDR | V4L2_H264_ENCODE_FLAG_REFERENCE_TS,
                reference_ts: 0,
                ..Default::default()
            },
        ),
    ];
    for (what, p) in cases {
        assert_eq!(d.encode(&f, 0, &p, &rc).err(), Some(EINVAL), "{what}");
    }
    // The device still works after refusals.
    let ok = d.encode(&f, 0, &Default::default(), &rc).unwrap();
    assert_eq!(ok.error, 0);
}

#[test]
fn every_encode_rc_rule_is_enforced() {
    let mut d = started();
    let f = frame();
    let p = v4l2_ctrl_h264_encode_params::default();
    let cases = [
        (
            "unknown flag",
            v4l2_ctrl_h264_encode_rc {
                flags: 2,
                ..Default::default()
            },
        ),
        (
            "QP above 51",
            v4l2_ctrl_h264_encode_rc {
                flags: V4L2_H264_ENCODE_RC_FLAG_QP,
                qp: 52,
                ..Default::default()
            },
        ),
        (
            "QP without the flag",
            v4l2_ctrl_h264_encode_rc {
                qp: 20,
                ..Default::default()
            },
        ),
        (
            "reserved not zero",
            v4l2_ctrl_h264_encode_rc {
                reserved: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9],
                ..Default::default()
            },
        ),
    ];
    for (what, rc) in cases {
        assert_eq!(d.encode(&f, 0, &p, &rc).err(), Some(EINVAL), "{what}");
    }
}

#[test]
fn every_sps_and_pps_rule_is_enforced() {
    let mut d = VirtualDevice::open();
    d.set_format(W, H, PixelFormat::I420, 30, 1).unwrap();
    let good = v4l2_ctrl_h264_sps {
        profile_idc: 66,
        chroma_format_idc: 1,
        log2_max_frame_num_minus4: 12,
        pic_order_cnt_type: 2,
        max_num_ref_frames: 1,
        flags: V4L2_H264_SPS_FLAG_FRAME_MBS_ONLY,
        ..Default::default()
    };
    d.set_compound(V4L2_CID_STATELESS_H264_SPS, &good).unwrap();
    let bad_sps: Vec<(&str, v4l2_ctrl_h264_sps)> = vec![
        (
            "profile",
            v4l2_ctrl_h264_sps {
                profile_idc: 88,
                ..good
            },
        ),
        (
            "chroma format",
            v4l2_ctrl_h264_sps {
                chroma_format_idc: 2,
                ..good
            },
        ),
        (
            "bit depth",
            v4l2_ctrl_h264_sps {
                bit_depth_luma_minus8: 2,
                ..good
            },
        ),
        (
            "sps id",
            v4l2_ctrl_h264_sps {
                seq_parameter_set_id: 32,
                ..good
            },
        ),
        (
            "log2 max frame num",
            v4l2_ctrl_h264_sps {
                log2_max_frame_num_minus4: 13,
                ..good
            },
        ),
        (
            "poc type 1",
            v4l2_ctrl_h264_sps {
                pic_order_cnt_type: 1,
                ..good
            },
        ),
        (
            "poc lsb",
            v4l2_ctrl_h264_sps {
                log2_max_pic_order_cnt_lsb_minus4: 13,
                ..good
            },
        ),
        (
            "no reference frames",
            v4l2_ctrl_h264_sps {
                max_num_ref_frames: 0,
                ..good
            },
        ),
        (
            "17 reference frames",
            v4l2_ctrl_h264_sps {
                max_num_ref_frames: 17,
                ..good
            },
        ),
        ("fields", v4l2_ctrl_h264_sps { flags: 0, ..good }),
        (
            "frame num gaps",
            v4l2_ctrl_h264_sps {
                flags: V4L2_H264_SPS_FLAG_FRAME_MBS_ONLY
                    | V4L2_H264_SPS_FLAG_GAPS_IN_FRAME_NUM_VALUE_ALLOWED,
                ..good
            },
        ),
        (
            "width",
            v4l2_ctrl_h264_sps {
                pic_width_in_mbs_minus1: 256,
                ..good
            },
        ),
    ];
    for (what, s) in bad_sps {
        assert_eq!(
            d.set_compound(V4L2_CID_STATELESS_H264_SPS, &s).err(),
            Some(EINVAL),
            "SPS {what}"
        );
    }
    let flags = V4L2_H264_PPS_FLAG_DEBLOCKING_FILTER_CONTROL_PRESENT as u16;
    let good_pps = v4l2_ctrl_h264_pps {
        flags,
        ..Default::default()
    };
    d.set_compound(V4L2_CID_STATELESS_H264_PPS, &good_pps)
        .unwrap();
    let bad_pps: Vec<(&str, v4l2_ctrl_h264_pps)> = vec![
        (
            "slice groups",
            v4l2_ctrl_h264_pps {
                num_slice_groups_minus1: 1,
                ..good_pps
            },
        ),
        (
            "weighted bipred",
            v4l2_ctrl_h264_pps {
                weighted_bipred_idc: 1,
                ..good_pps
            },
        ),
        (
            "init qp",
            v4l2_ctrl_h264_pps {
                pic_init_qp_minus26: 26,
                ..good_pps
            },
        ),
        (
            "chroma qp offset",
            v4l2_ctrl_h264_pps {
                chroma_qp_index_offset: 13,
                ..good_pps
            },
        ),
        (
            "weighted pred",
            v4l2_ctrl_h264_pps {
                flags: flags | V4L2_H264_PPS_FLAG_WEIGHTED_PRED as u16,
                ..good_pps
            },
        ),
        (
            "no deblocking control",
            v4l2_ctrl_h264_pps {
                flags: 0,
                ..good_pps
            },
        ),
        (
            "CABAC in baseline",
            v4l2_ctrl_h264_pps {
                flags: flags | V4L2_H264_PPS_FLAG_ENTROPY_CODING_MODE as u16,
                ..good_pps
            },
        ),
        (
            "8x8 transform outside high",
            v4l2_ctrl_h264_pps {
                flags: flags | V4L2_H264_PPS_FLAG_TRANSFORM_8X8_MODE as u16,
                ..good_pps
            },
        ),
    ];
    for (what, p) in bad_pps {
        assert_eq!(
            d.set_compound(V4L2_CID_STATELESS_H264_PPS, &p).err(),
            Some(EINVAL),
            "PPS {what}"
        );
    }
    // Integer controls out of range, and the read-only feedback.
    assert_eq!(
        d.set_ctrl(V4L2_CID_MPEG_VIDEO_H264_MAX_QP, 52).err(),
        Some(Errno(-34))
    );
    assert_eq!(
        d.set_ctrl(V4L2_CID_MPEG_VIDEO_H264_LOOP_FILTER_ALPHA, 7)
            .err(),
        Some(Errno(-34))
    );
    assert_eq!(
        d.set_ctrl(V4L2_CID_STATELESS_H264_ENCODE_CABAC_INIT_IDC, 3)
            .err(),
        Some(Errno(-34))
    );
    assert_eq!(
        d.set_compound(
            V4L2_CID_STATELESS_H264_ENCODE_FEEDBACK,
            &v4l2_ctrl_h264_encode_feedback::default()
        )
        .err(),
        Some(Errno(-13))
    );
    // Formats the H1 cannot take.
    assert_eq!(
        d.set_format(174, 144, PixelFormat::I420, 30, 1).err(),
        Some(EINVAL)
    );
    assert_eq!(
        d.set_format(176, 144, PixelFormat::I420, 0, 1).err(),
        Some(EINVAL)
    );
    assert_eq!(
        d.set_format(8, 144, PixelFormat::I420, 30, 1).err(),
        Some(EINVAL)
    );
}

/// Encodes `n` frames of a clip, injecting `faults` at given frames; returns
/// the stream of the frames that completed and their reconstructions.
fn run_with_faults(faults: &[(usize, Fault)], n: usize) -> (Vec<u8>, Vec<u8>, Vec<i32>) {
    let yuv = clip("meadow", W as usize, H as usize, n);
    let mut d = VirtualDevice::open();
    d.set_format(W, H, PixelFormat::I420, 30, 1).unwrap();
    d.set_ctrl(V4L2_CID_MPEG_VIDEO_GOP_SIZE, 8).unwrap();
    d.set_ctrl(V4L2_CID_STATELESS_H264_ENCODE_LTR_PERIOD, 3)
        .unwrap();
    d.start().unwrap();
    let (mut stream, mut recon, mut errors) = (Vec::new(), Vec::new(), Vec::new());
    let fl = (W * H * 3 / 2) as usize;
    for (i, f) in yuv.chunks(fl).enumerate() {
        if let Some((_, fault)) = faults.iter().find(|(at, _)| *at == i) {
            d.inject(*fault);
        }
        let c = d
            .encode(f, i as u64 * 1000, &Default::default(), &Default::default())
            .unwrap();
        errors.push(c.error);
        assert_eq!(
            -(c.feedback.error as i32),
            c.error,
            "frame {i}: the feedback gives the reason"
        );
        if c.error == 0 {
            stream.extend_from_slice(&c.payload);
            recon.extend_from_slice(&d.recon(c.rec_slot).unwrap());
        } else {
            assert!(
                c.payload.is_empty(),
                "frame {i}: an errored frame carries no payload"
            );
        }
    }
    (stream, recon, errors)
}

#[test]
fn hardware_failures_end_the_frame_and_the_stream_continues() {
    let faults = [
        (3, Fault::Timeout),
        (5, Fault::BufferFull),
        (7, Fault::BusError),
        (9, Fault::BadQpSum),
        (11, Fault::CorruptSliceHeader),
        (12, Fault::Timeout),
    ];
    let (stream, recon, errors) = run_with_faults(&faults, 16);
    assert_eq!(errors[3], -110, "timeout");
    assert_eq!(errors[5], -28, "buffer full");
    assert_eq!(errors[7], -5, "bus error");
    assert_eq!(errors[9], -71, "feedback disagreeing with the plan");
    assert_eq!(errors[11], -71, "a slice header that is not the plan");
    assert_eq!(errors[12], -110, "timeout");
    assert_eq!(errors.iter().filter(|&&e| e != 0).count(), 6);
    // The frames that completed form a valid stream: the state never advanced on failures.
    let dec = ffmpeg_decode(&stream).unwrap();
    let fl = (W * H * 3 / 2) as usize;
    assert!(dec == recon, "{}", first_diff(&dec, &recon, fl));
}

#[test]
fn checkpoint_results_that_are_not_cumulative_are_refused() {
    let yuv = clip("meadow", W as usize, H as usize, 6);
    let mut d = VirtualDevice::open();
    d.set_format(W, H, PixelFormat::I420, 30, 1).unwrap();
    d.set_ctrl(
        V4L2_CID_MPEG_VIDEO_BITRATE_MODE,
        V4L2_MPEG_VIDEO_BITRATE_MODE_CBR as i32,
    )
    .unwrap();
    d.set_ctrl(V4L2_CID_MPEG_VIDEO_BITRATE, 250_000).unwrap();
    d.start().unwrap();
    let fl = (W * H * 3 / 2) as usize;
    let mut stream = Vec::new();
    for (i, f) in yuv.chunks(fl).enumerate() {
        if i == 3 {
            d.inject(Fault::BadCheckpoints);
        }
        let c = d
            .encode(f, i as u64, &Default::default(), &Default::default())
            .unwrap();
        if i == 3 {
            assert_eq!(c.error, -71, "feedback checkpoints that go down");
        } else {
            assert_eq!(c.error, 0);
            stream.extend_from_slice(&c.payload);
        }
    }
    ffmpeg_decode(&stream).unwrap();
}

#[test]
fn a_reference_that_no_longer_exists_is_refused() {
    let mut d = started();
    let f = frame();
    let rc = v4l2_ctrl_h264_encode_rc::default();
    let mut stream = Vec::new();
    for i in 0..3u64 {
        stream.extend(
            d.encode(&f, i * 1000, &Default::default(), &rc)
                .unwrap()
                .payload,
        );
    }
    // Frame 0 (timestamp 0) has left the one-frame DPB.
    let p = v4l2_ctrl_h264_encode_params {
        flags: V4L2_H264_ENCODE_FLAG_REFERENCE_TS,
        reference_ts: 0,
        ..Default::default()
    };
    let c = d.encode(&f, 3000, &p, &rc).unwrap();
    assert_eq!(c.error, -2, "ENOENT for a reference not in the DPB");
    // Naming the previous frame works, and the stream stays decodable.
    let p = v4l2_ctrl_h264_encode_params {
        flags: V4L2_H264_ENCODE_FLAG_REFERENCE_TS,
        reference_ts: 2000,
        ..Default::default()
    };
    let c = d.encode(&f, 4000, &p, &rc).unwrap();
    assert_eq!(c.error, 0);
    stream.extend(c.payload);
    ffmpeg_decode(&stream).unwrap();
}
