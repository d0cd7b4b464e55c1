//! What the core writes and the hardware writes, read back by an independent
//! parser (ffmpeg's trace_headers) from streams of the whole stack.

use h264_oracle::{clip, ffmpeg_decode, first_diff, trace_headers};
use hantro_vdev::uapi::*;
use hantro_vdev::{PixelFormat, VirtualDevice};

#[test]
fn cbr_poc0_cropped_stream_headers_read_back() {
    let (w, h) = (200u32, 120u32);
    let yuv = clip("meadow", w as usize, h as usize, 8);
    let mut d = VirtualDevice::open();
    d.set_format(w, h, PixelFormat::I420, 25, 1).unwrap();
    let sps = v4l2_ctrl_h264_sps {
        profile_idc: 66,
        chroma_format_idc: 1,
        log2_max_frame_num_minus4: 4,
        pic_order_cnt_type: 0,
        log2_max_pic_order_cnt_lsb_minus4: 4,
        max_num_ref_frames: 1,
        flags: V4L2_H264_SPS_FLAG_FRAME_MBS_ONLY,
        ..Default::default()
    };
    d.set_compound(V4L2_CID_STATELESS_H264_SPS, &sps).unwrap();
    d.set_ctrl(
        V4L2_CID_MPEG_VIDEO_BITRATE_MODE,
        V4L2_MPEG_VIDEO_BITRATE_MODE_CBR as i32,
    )
    .unwrap();
    d.set_ctrl(V4L2_CID_MPEG_VIDEO_BITRATE, 320_000).unwrap();
    d.set_ctrl(V4L2_CID_MPEG_VIDEO_H264_CPB_SIZE, 60).unwrap();
    d.set_ctrl(V4L2_CID_MPEG_VIDEO_GOP_SIZE, 4).unwrap();
    d.start().unwrap();
    let fl = (w * h * 3 / 2) as usize;
    let (mut stream, mut recon) = (Vec::new(), Vec::new());
    for (i, f) in yuv.chunks(fl).enumerate() {
        let c = d
            .encode(f, i as u64, &Default::default(), &Default::default())
            .unwrap();
        assert_eq!(c.error, 0);
        stream.extend_from_slice(&c.payload);
        recon.extend_from_slice(&d.recon(c.rec_slot).unwrap());
    }
    let dec = ffmpeg_decode(&stream).unwrap();
    assert!(dec == recon, "{}", first_diff(&dec, &recon, fl));

    let t = trace_headers(&stream).unwrap();
    let one = |n: &str| -> i64 {
        let v: Vec<i64> = t.iter().filter(|(k, _)| k == n).map(|(_, v)| *v).collect();
        assert!(!v.is_empty(), "{n} not in the trace");
        v[0]
    };
    let all = |n: &str| -> Vec<i64> { t.iter().filter(|(k, _)| k == n).map(|(_, v)| *v).collect() };
    assert_eq!(one("profile_idc"), 66);
    assert_eq!(
        (one("constraint_set0_flag"), one("constraint_set1_flag")),
        (1, 1),
        "constrained baseline"
    );
    assert_eq!(one("pic_order_cnt_type"), 0);
    assert_eq!(one("log2_max_frame_num_minus4"), 4);
    // 13x8 macroblocks, cropped to 200x120: 8 and 8 samples, in chroma units 4 and 4.
    assert_eq!(
        (
            one("pic_width_in_mbs_minus1"),
            one("pic_height_in_map_units_minus1")
        ),
        (12, 7)
    );
    assert_eq!(
        (
            one("frame_crop_right_offset"),
            one("frame_crop_bottom_offset")
        ),
        (4, 4)
    );
    assert_eq!((one("num_units_in_tick"), one("time_scale")), (1, 50));
    // NAL HRD: 320000 b/s in units of 64 (scale 0), CPB 60 kB = 480000 bits in units of 16, CBR.
    assert_eq!(one("nal_hrd_parameters_present_flag"), 1);
    assert_eq!(
        (one("bit_rate_scale"), one("bit_rate_value_minus1[0]")),
        (0, 320_000 / 64 - 1)
    );
    assert_eq!(
        (one("cpb_size_scale"), one("cpb_size_value_minus1[0]")),
        (0, 480_000 / 16 - 1)
    );
    assert_eq!(one("cbr_flag[0]"), 1);
    // A buffering period on each of the two IDRs, picture timing on all 8 pictures.
    assert_eq!(all("initial_cpb_removal_delay[0]").len(), 2);
    let crd = all("cpb_removal_delay");
    assert_eq!(
        crd,
        vec![0, 2, 4, 6, 8, 2, 4, 6],
        "cpb_removal_delay in ticks since the last buffering period"
    );
    // POC type 0 in the slice headers the hardware wrote: 2 per picture since the IDR.
    assert_eq!(all("pic_order_cnt_lsb"), vec![0, 2, 4, 6, 0, 2, 4, 6]);
    assert_eq!(all("idr_pic_id"), vec![0, 1]);
    assert_eq!(all("frame_num"), vec![0, 1, 2, 3, 0, 1, 2, 3]);
}
