//! The whole stack on the virtual device: the C driver plans with the Rust core,
//! programs the software H1, and the stream decodes (ffmpeg, openh264) to the
//! reconstruction the hardware wrote, in every rate-control mode.

use h264_oracle::{clip, ffmpeg_decode, first_diff, openh264_decode};
use hantro_vdev::uapi::*;
use hantro_vdev::{Completed, PixelFormat, VirtualDevice};

const W: u32 = 176;
const H: u32 = 144;

fn device(setup: impl FnOnce(&mut VirtualDevice)) -> VirtualDevice {
    let mut d = VirtualDevice::open();
    d.set_format(W, H, PixelFormat::I420, 30, 1).unwrap();
    setup(&mut d);
    d.start().unwrap();
    d
}

struct Run {
    stream: Vec<u8>,
    recon: Vec<u8>,
    done: Vec<Completed>,
}

fn encode(d: &mut VirtualDevice, yuv: &[u8], qp: impl Fn(usize) -> Option<u8>) -> Run {
    let fl = (W * H * 3 / 2) as usize;
    let mut run = Run {
        stream: Vec::new(),
        recon: Vec::new(),
        done: Vec::new(),
    };
    for (i, frame) in yuv.chunks(fl).enumerate() {
        let params = v4l2_ctrl_h264_encode_params::default();
        let mut rc = v4l2_ctrl_h264_encode_rc::default();
        if let Some(q) = qp(i) {
            rc.flags = V4L2_H264_ENCODE_RC_FLAG_QP;
            rc.qp = q;
        }
        let c = d
            .encode(frame, i as u64 * 33_333_333, &params, &rc)
            .unwrap();
        assert_eq!(c.error, 0, "frame {i} failed: {:?}", d.log());
        run.stream.extend_from_slice(&c.payload);
        run.recon.extend_from_slice(&d.recon(c.rec_slot).unwrap());
        run.done.push(c);
    }
    run
}

fn assert_decodes(run: &Run, what: &str) {
    let fl = (W * H * 3 / 2) as usize;
    let dec = ffmpeg_decode(&run.stream).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        dec == run.recon,
        "{what}: ffmpeg decode != recon: {}",
        first_diff(&dec, &run.recon, fl)
    );
    let dec = openh264_decode(&run.stream).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        dec == run.recon,
        "{what}: openh264 decode != recon: {}",
        first_diff(&dec, &run.recon, fl)
    );
}

#[test]
fn cqp_stream_decodes_to_the_reconstruction() {
    let yuv = clip("meadow", W as usize, H as usize, 12);
    // Without frame-level rate control: the I and P frame QPs.
    let mut d = device(|d| {
        d.set_ctrl(V4L2_CID_MPEG_VIDEO_FRAME_RC_ENABLE, 0).unwrap();
        d.set_ctrl(V4L2_CID_MPEG_VIDEO_GOP_SIZE, 5).unwrap();
        d.set_ctrl(V4L2_CID_MPEG_VIDEO_H264_P_FRAME_QP, 30).unwrap();
    });
    let run = encode(&mut d, &yuv, |_| None);
    assert_decodes(&run, "cqp");
    let keys: Vec<usize> = run
        .done
        .iter()
        .enumerate()
        .filter(|(_, c)| c.keyframe())
        .map(|(i, _)| i)
        .collect();
    assert_eq!(keys, vec![0, 5, 10]);
    for c in &run.done[1..5] {
        assert_eq!(c.feedback.slice_type, 0);
        assert_eq!(c.feedback.qp_avg_q8, 30 * 256);
    }
}

#[test]
fn constant_quality_codes_the_qp_its_quality_maps_to() {
    let yuv = clip("meadow", W as usize, H as usize, 6);
    let mut bits = Vec::new();
    // Quality 1 is QP 51, 100 is QP 0; P pictures 2 above I pictures.
    for (quality, qp_i) in [(40, 31u32), (60, 21), (80, 10)] {
        let mut d = device(|d| {
            d.set_ctrl(
                V4L2_CID_MPEG_VIDEO_BITRATE_MODE,
                V4L2_MPEG_VIDEO_BITRATE_MODE_CQ as i32,
            )
            .unwrap();
            d.set_ctrl(V4L2_CID_MPEG_VIDEO_CONSTANT_QUALITY, quality)
                .unwrap();
        });
        let run = encode(&mut d, &yuv, |_| None);
        assert_decodes(&run, "cq");
        // The H1 reports the QP sum halved: an odd sum loses 1, over the
        // 99 macroblocks less than 3/256 of a QP.
        let near = |avg: u32, qp: u32| (qp * 256 - 3..=qp * 256).contains(&avg);
        assert!(
            near(run.done[0].feedback.qp_avg_q8, qp_i),
            "quality {quality}: {}",
            run.done[0].feedback.qp_avg_q8
        );
        for c in &run.done[1..] {
            assert!(
                near(c.feedback.qp_avg_q8, qp_i + 2),
                "{}",
                c.feedback.qp_avg_q8
            );
        }
        bits.push(run.stream.len());
    }
    assert!(bits.windows(2).all(|b| b[0] < b[1]), "{bits:?}");
}

#[test]
fn a_frame_qp_is_refused_with_frame_rate_control_on() {
    let yuv = clip("testsrc2", W as usize, H as usize, 1);
    let mut d = device(|_| {});
    let rc = v4l2_ctrl_h264_encode_rc {
        flags: V4L2_H264_ENCODE_RC_FLAG_QP,
        qp: 30,
        ..Default::default()
    };
    let c = d.encode(&yuv, 0, &Default::default(), &rc).unwrap();
    assert_eq!(c.error, -22, "the request ends with an error");
    assert_eq!(c.feedback.error, 22, "EINVAL in its feedback");
}

#[test]
fn client_driven_qp_is_what_the_frames_get() {
    let yuv = clip("testsrc2", W as usize, H as usize, 8);
    let mut d = device(|d| d.set_ctrl(V4L2_CID_MPEG_VIDEO_FRAME_RC_ENABLE, 0).unwrap());
    let qps = [20u8, 24, 28, 32, 36, 40, 44, 22];
    let run = encode(&mut d, &yuv, |i| Some(qps[i]));
    assert_decodes(&run, "client qp");
    for (c, q) in run.done.iter().zip(qps) {
        assert_eq!(c.feedback.qp_avg_q8, u32::from(q) * 256);
    }
}

#[test]
fn cbr_with_filler_signals_hrd_and_decodes() {
    let yuv = clip("meadow", W as usize, H as usize, 30);
    let mut d = device(|d| {
        d.set_ctrl(
            V4L2_CID_MPEG_VIDEO_BITRATE_MODE,
            V4L2_MPEG_VIDEO_BITRATE_MODE_CBR as i32,
        )
        .unwrap();
        d.set_ctrl(V4L2_CID_MPEG_VIDEO_BITRATE, 300_000).unwrap();
        d.set_ctrl(V4L2_CID_STATELESS_H264_ENCODE_FILLER, 1)
            .unwrap();
    });
    let run = encode(&mut d, &yuv, |_| None);
    assert_decodes(&run, "cbr");
    // The H1's in-frame control moved the QP inside pictures: averages off the integer grid.
    let mixed = run
        .done
        .iter()
        .filter(|c| c.feedback.qp_avg_q8 % 256 != 0)
        .count();
    assert!(mixed > 0, "no picture with macroblocks at different QPs");
    assert!(
        run.done
            .iter()
            .skip(1)
            .any(|c| c.stats.unwrap()[HANTRO_H1_H264_ENC_STAT_MAD_COUNT as usize] > 0),
        "no macroblock under the MAD threshold"
    );
    for c in &run.done {
        assert_eq!(
            c.feedback.flags
                & (V4L2_H264_ENCODE_FEEDBACK_FLAG_HRD_UNDERFLOW
                    | V4L2_H264_ENCODE_FEEDBACK_FLAG_HRD_OVERFLOW),
            0
        );
    }
}
