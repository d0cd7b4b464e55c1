//! What the driver reports in each request: the generic feedback (slice type,
//! frame_num, POC, long-term marking, the DPB by timestamp) and hantro's H1
//! statistics control, for coded frames and for a frame that failed.

use h264_oracle::clip;
use hantro_vdev::uapi::*;
use hantro_vdev::{Completed, PixelFormat, VirtualDevice};

const W: u32 = 176;
const H: u32 = 144;
const MBS: u32 = (W / 16) * (H / 16);

/// (timestamp, frame_num, pic_num, POC, long-term) of each DPB entry in use,
/// sorted; the other entries must be all zero.
fn dpb(c: &Completed) -> Vec<(u64, u16, u32, i32, bool)> {
    let mut v = Vec::new();
    for e in &c.feedback.dpb {
        if e.flags == 0 {
            assert_eq!(
                (e.reference_ts, e.frame_num, e.pic_num, e.fields),
                (0, 0, 0, 0),
                "an unused entry is zero"
            );
            continue;
        }
        let valid = V4L2_H264_DPB_ENTRY_FLAG_VALID | V4L2_H264_DPB_ENTRY_FLAG_ACTIVE;
        assert_eq!(e.flags & valid, valid);
        assert_eq!(u32::from(e.fields), V4L2_H264_FRAME_REF);
        assert_eq!(e.top_field_order_cnt, e.bottom_field_order_cnt);
        v.push((
            e.reference_ts,
            e.frame_num,
            e.pic_num,
            e.top_field_order_cnt,
            e.flags & V4L2_H264_DPB_ENTRY_FLAG_LONG_TERM != 0,
        ));
    }
    v.sort_unstable();
    v
}

#[test]
fn feedback_reports_decisions_and_the_dpb_by_timestamp() {
    let f: Vec<Vec<u8>> = clip("meadow", W as usize, H as usize, 4)
        .chunks((W * H * 3 / 2) as usize)
        .map(<[u8]>::to_vec)
        .collect();
    let mut d = VirtualDevice::open();
    d.set_format(W, H, PixelFormat::I420, 30, 1).unwrap();
    d.set_ctrl(V4L2_CID_MPEG_VIDEO_LTR_COUNT, 1).unwrap();
    d.set_ctrl(V4L2_CID_STATELESS_H264_ENCODE_LTR_PERIOD, 4)
        .unwrap();
    d.start().unwrap();
    let none = v4l2_ctrl_h264_encode_rc::default();
    let plain = v4l2_ctrl_h264_encode_params::default();

    // The IDR picture, marked long-term.
    let c = d.encode(&f[0], 0, &plain, &none).unwrap();
    let fb = &c.feedback;
    assert_eq!(u32::from(fb.slice_type), V4L2_H264_SLICE_TYPE_I);
    assert_eq!(
        fb.flags,
        V4L2_H264_ENCODE_FEEDBACK_FLAG_IDR | V4L2_H264_ENCODE_FEEDBACK_FLAG_LONG_TERM
    );
    assert_eq!((fb.frame_num, fb.pic_order_cnt, fb.error), (0, 0, 0));
    assert_eq!(fb.frame_bytes as usize, c.payload.len());
    assert_eq!(dpb(&c), [(0, 0, 0, 0, true)]);

    // A P picture: the DPB holds it beside the long-term picture.
    let c = d.encode(&f[1], 33_333_000, &plain, &none).unwrap();
    let fb = &c.feedback;
    assert_eq!(u32::from(fb.slice_type), V4L2_H264_SLICE_TYPE_P);
    assert_eq!(fb.flags, 0);
    assert_eq!((fb.frame_num, fb.pic_order_cnt), (1, 2));
    assert_eq!(dpb(&c), [(0, 0, 0, 0, true), (33_333_000, 1, 1, 2, false)]);
    let good = dpb(&c);

    // A request that names a picture the DPB does not hold fails with
    // ENOENT in its feedback, which still lists the DPB, unchanged.
    let gone = v4l2_ctrl_h264_encode_params {
        reference_ts: 12_345,
        flags: V4L2_H264_ENCODE_FLAG_REFERENCE_TS,
        ..Default::default()
    };
    let c = d.encode(&f[2], 66_666_000, &gone, &none).unwrap();
    assert_eq!(c.flags & V4L2_BUF_FLAG_ERROR, V4L2_BUF_FLAG_ERROR);
    assert_eq!(c.feedback.error, 2, "ENOENT");
    assert_eq!((c.feedback.frame_bytes, c.feedback.flags), (0, 0));
    assert_eq!(dpb(&c), good);
    assert_eq!(c.stats, Some([0; HANTRO_H1_H264_ENC_STATS_LEN as usize]));

    // Naming the long-term picture works; the H1's statistics agree with the
    // generic feedback (the average QP is the QP sum over the macroblocks).
    let lt = v4l2_ctrl_h264_encode_params {
        reference_ts: 0,
        flags: V4L2_H264_ENCODE_FLAG_REFERENCE_TS,
        ..Default::default()
    };
    let c = d.encode(&f[2], 66_666_000, &lt, &none).unwrap();
    assert_eq!(c.feedback.error, 0);
    let stats = c.stats.unwrap();
    let qp_sum = stats[HANTRO_H1_H264_ENC_STAT_QP_SUM as usize];
    assert!(qp_sum > 0 && stats[HANTRO_H1_H264_ENC_STAT_RLC_COUNT as usize] > 0);
    assert_eq!(c.feedback.qp_avg_q8, qp_sum * 256 / MBS);
    assert_eq!((c.feedback.frame_num, c.feedback.pic_order_cnt), (2, 4));
    assert_eq!(dpb(&c), [(0, 0, 0, 0, true), (66_666_000, 2, 2, 4, false)]);
}

#[test]
fn a_request_marks_its_frame_long_term() {
    let f = clip("meadow", W as usize, H as usize, 6);
    let fl = (W * H * 3 / 2) as usize;
    let mut d = VirtualDevice::open();
    d.set_format(W, H, PixelFormat::I420, 30, 1).unwrap();
    d.set_ctrl(V4L2_CID_MPEG_VIDEO_LTR_COUNT, 1).unwrap();
    d.start().unwrap();
    let none = v4l2_ctrl_h264_encode_rc::default();
    let (mut stream, mut recon, mut done) = (Vec::new(), Vec::new(), Vec::new());
    for (i, frame) in f.chunks(fl).enumerate() {
        let params = match i {
            3 => v4l2_ctrl_h264_encode_params {
                flags: V4L2_H264_ENCODE_FLAG_MARK_LONG_TERM,
                ..Default::default()
            },
            // Frame 5 recovers from frame 3, as after a loss of frame 4.
            5 => v4l2_ctrl_h264_encode_params {
                reference_ts: 3_000,
                flags: V4L2_H264_ENCODE_FLAG_REFERENCE_TS,
                ..Default::default()
            },
            _ => Default::default(),
        };
        let c = d.encode(frame, i as u64 * 1000, &params, &none).unwrap();
        assert_eq!(c.feedback.error, 0, "frame {i}");
        stream.extend_from_slice(&c.payload);
        recon.extend_from_slice(&d.recon(c.rec_slot).unwrap());
        done.push(c);
    }
    assert_eq!(
        done[3].feedback.flags,
        V4L2_H264_ENCODE_FEEDBACK_FLAG_LONG_TERM
    );
    // Frame 3 took the IDR picture's place as the long-term reference.
    let held = dpb(&done[3]);
    assert!(held.contains(&(3_000, 3, 0, 6, true)), "{held:?}");
    assert!(!held.iter().any(|e| e.0 == 0), "{held:?}");
    assert!(dpb(&done[5]).contains(&(3_000, 3, 0, 6, true)));
    let dec = h264_oracle::ffmpeg_decode(&stream).unwrap();
    assert!(
        dec == recon,
        "{}",
        h264_oracle::first_diff(&dec, &recon, fl)
    );
}
