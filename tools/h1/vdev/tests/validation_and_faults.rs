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
fn every_sequence_control_rule_is_enforced() {
    let mut d = VirtualDevice::open();
    d.set_format(W, H, PixelFormat::I420, 30, 1).unwrap();
    // Menu entries the encoder does not offer.
    assert_eq!(
        d.set_ctrl(
            V4L2_CID_MPEG_VIDEO_H264_PROFILE,
            V4L2_MPEG_VIDEO_H264_PROFILE_EXTENDED as i32
        )
        .err(),
        Some(EINVAL)
    );
    assert_eq!(
        d.set_ctrl(
            V4L2_CID_MPEG_VIDEO_H264_LEVEL,
            V4L2_MPEG_VIDEO_H264_LEVEL_1B as i32
        )
        .err(),
        Some(EINVAL)
    );
    for (id, v) in [
        (V4L2_CID_MPEG_VIDEO_H264_PROFILE, 5),
        (V4L2_CID_MPEG_VIDEO_H264_CHROMA_QP_INDEX_OFFSET, 13),
        (V4L2_CID_MPEG_VIDEO_H264_HIERARCHICAL_CODING_LAYER, 4),
        (V4L2_CID_MPEG_VIDEO_LTR_COUNT, 2),
        (V4L2_CID_MPEG_VIDEO_CONSTANT_QUALITY, 0),
        (
            V4L2_CID_MPEG_VIDEO_H264_HIERARCHICAL_CODING_TYPE,
            V4L2_MPEG_VIDEO_H264_HIERARCHICAL_CODING_B as i32,
        ),
    ] {
        assert_eq!(d.set_ctrl(id, v).err(), Some(Errno(-34)), "{id:#x} = {v}");
    }
    // Values each valid alone that make no stream together: refused when
    // streaming starts, and the device starts once they are undone.
    let baseline = V4L2_MPEG_VIDEO_H264_PROFILE_CONSTRAINED_BASELINE as i32;
    let main = V4L2_MPEG_VIDEO_H264_PROFILE_MAIN as i32;
    let cabac = V4L2_MPEG_VIDEO_H264_ENTROPY_MODE_CABAC as i32;
    let cases: [(&str, &[(u32, i32)]); 4] = [
        (
            "CABAC in constrained baseline",
            &[
                (V4L2_CID_MPEG_VIDEO_H264_PROFILE, baseline),
                (V4L2_CID_MPEG_VIDEO_H264_ENTROPY_MODE, cabac),
            ],
        ),
        (
            "8x8 transform outside high",
            &[
                (V4L2_CID_MPEG_VIDEO_H264_PROFILE, main),
                (V4L2_CID_MPEG_VIDEO_H264_8X8_TRANSFORM, 1),
            ],
        ),
        (
            "QCIF at 30 fps and 2 Mb/s in level 1.0",
            &[(
                V4L2_CID_MPEG_VIDEO_H264_LEVEL,
                V4L2_MPEG_VIDEO_H264_LEVEL_1_0 as i32,
            )],
        ),
        (
            "an LTR period without a long-term reference",
            &[(V4L2_CID_STATELESS_H264_ENCODE_LTR_PERIOD, 3)],
        ),
    ];
    for (what, ctrls) in cases {
        let mut d = VirtualDevice::open();
        d.set_format(W, H, PixelFormat::I420, 30, 1).unwrap();
        for &(id, v) in ctrls {
            d.set_ctrl(id, v).unwrap();
        }
        assert_eq!(d.start().err(), Some(EINVAL), "{what}");
        d.set_ctrl(V4L2_CID_MPEG_VIDEO_H264_PROFILE, baseline)
            .unwrap();
        d.set_ctrl(V4L2_CID_MPEG_VIDEO_H264_ENTROPY_MODE, 0)
            .unwrap();
        d.set_ctrl(V4L2_CID_MPEG_VIDEO_H264_8X8_TRANSFORM, 0)
            .unwrap();
        d.set_ctrl(
            V4L2_CID_MPEG_VIDEO_H264_LEVEL,
            V4L2_MPEG_VIDEO_H264_LEVEL_4_0 as i32,
        )
        .unwrap();
        d.set_ctrl(V4L2_CID_STATELESS_H264_ENCODE_LTR_PERIOD, 0)
            .unwrap();
        assert_eq!(d.start(), Ok(()), "{what}, undone");
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
    // Formats the H1 cannot take: odd sizes cannot be 4:2:0.
    assert_eq!(
        d.set_format(175, 144, PixelFormat::I420, 30, 1).err(),
        Some(EINVAL)
    );
    assert_eq!(
        d.set_format(176, 143, PixelFormat::I420, 30, 1).err(),
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
    d.set_ctrl(V4L2_CID_MPEG_VIDEO_LTR_COUNT, 1).unwrap();
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
