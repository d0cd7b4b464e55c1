//! What the core writes and the hardware writes, read back by an independent
//! parser (ffmpeg's trace_headers) from streams of the whole stack.

use h264_oracle::{clip, ffmpeg_decode, first_diff, trace_headers};
use hantro_vdev::uapi::*;
use hantro_vdev::{PixelFormat, VirtualDevice};

#[test]
fn cbr_cropped_stream_headers_read_back_as_the_controls_ask() {
    let (w, h) = (200u32, 120u32);
    let yuv = clip("meadow", w as usize, h as usize, 8);
    let mut d = VirtualDevice::open();
    d.set_format(w, h, PixelFormat::I420, 25, 1).unwrap();
    // The sequence-level controls, each away from its default.
    for (id, v) in [
        (
            V4L2_CID_MPEG_VIDEO_H264_PROFILE,
            V4L2_MPEG_VIDEO_H264_PROFILE_MAIN,
        ),
        (
            V4L2_CID_MPEG_VIDEO_H264_LEVEL,
            V4L2_MPEG_VIDEO_H264_LEVEL_2_1,
        ),
        (
            V4L2_CID_MPEG_VIDEO_H264_ENTROPY_MODE,
            V4L2_MPEG_VIDEO_H264_ENTROPY_MODE_CABAC,
        ),
        (V4L2_CID_MPEG_VIDEO_H264_CONSTRAINED_INTRA_PREDICTION, 1),
        (V4L2_CID_MPEG_VIDEO_AU_DELIMITER, 0),
        (V4L2_CID_MPEG_VIDEO_PREPEND_SPSPPS_TO_IDR, 0),
    ] {
        d.set_ctrl(id, v as i32).unwrap();
    }
    d.set_ctrl(V4L2_CID_MPEG_VIDEO_H264_CHROMA_QP_INDEX_OFFSET, -2)
        .unwrap();
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
    assert_eq!(one("profile_idc"), 77);
    assert_eq!(one("level_idc"), 21);
    assert_eq!(
        (one("constraint_set0_flag"), one("constraint_set1_flag")),
        (0, 1),
        "main"
    );
    // What no control expresses, the driver chooses: frames in output order.
    assert_eq!(one("pic_order_cnt_type"), 2);
    assert_eq!(one("log2_max_frame_num_minus4"), 12);
    assert_eq!(one("entropy_coding_mode_flag"), 1);
    assert_eq!(one("constrained_intra_pred_flag"), 1);
    assert_eq!(one("chroma_qp_index_offset"), -2);
    // No AUD; SPS and PPS on the first of the two IDR pictures only (counted
    // in the stream: the trace also shows the parameter sets ffmpeg took
    // as extradata).
    let nal_types: Vec<u8> = stream
        .windows(4)
        .filter(|w| w[..3] == [0, 0, 1])
        .map(|w| w[3] & 0x1f)
        .collect();
    assert!(!nal_types.contains(&9), "{nal_types:?}");
    assert_eq!(nal_types.iter().filter(|&&t| t == 7).count(), 1);
    assert_eq!(nal_types.iter().filter(|&&t| t == 8).count(), 1);
    assert_eq!(nal_types.iter().filter(|&&t| t == 5).count(), 2);
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
    assert!(all("pic_order_cnt_lsb").is_empty());
    assert_eq!(all("idr_pic_id"), vec![0, 1]);
    assert_eq!(all("frame_num"), vec![0, 1, 2, 3, 0, 1, 2, 3]);
}

/// The VUI of a stream whose OUTPUT format has `colorimetry`, as ffmpeg reads it:
/// colour_primaries, transfer_characteristics, matrix_coefficients,
/// video_full_range_flag, or None without a video signal type.
fn vui_colour(colorimetry: [u32; 4]) -> Option<[i64; 4]> {
    let yuv = clip("meadow", 176, 144, 1);
    let mut d = VirtualDevice::open();
    d.set_format(176, 144, PixelFormat::I420, 30, 1).unwrap();
    let [cs, xfer, enc, quant] = colorimetry;
    d.set_colorimetry(cs, xfer, enc, quant).unwrap();
    d.start().unwrap();
    let c = d
        .encode(&yuv, 0, &Default::default(), &Default::default())
        .unwrap();
    assert_eq!(c.error, 0);
    let t = trace_headers(&c.payload).unwrap();
    let one = |n: &str| t.iter().find(|(k, _)| k == n).map(|(_, v)| *v);
    if one("video_signal_type_present_flag")? == 0 {
        return None;
    }
    Some([
        one("colour_primaries").unwrap(),
        one("transfer_characteristics").unwrap(),
        one("matrix_coefficients").unwrap(),
        one("video_full_range_flag").unwrap(),
    ])
}

#[test]
fn the_output_colorimetry_is_the_vui_colour_description() {
    // Defaults resolved for the colorspace: Rec. 709 is limited range,
    // JPEG is sRGB primaries and transfer, BT.601 matrix, full range.
    assert_eq!(
        vui_colour([V4L2_COLORSPACE_REC709, 0, 0, 0]),
        Some([1, 1, 1, 0])
    );
    assert_eq!(
        vui_colour([V4L2_COLORSPACE_JPEG, 0, 0, 0]),
        Some([1, 13, 6, 1])
    );
    assert_eq!(
        vui_colour([
            V4L2_COLORSPACE_BT2020,
            V4L2_XFER_FUNC_SMPTE2084,
            V4L2_YCBCR_ENC_BT2020,
            V4L2_QUANTIZATION_LIM_RANGE
        ]),
        Some([9, 16, 9, 0])
    );
    assert_eq!(
        vui_colour([
            V4L2_COLORSPACE_SMPTE170M,
            V4L2_XFER_FUNC_709,
            V4L2_YCBCR_ENC_601,
            V4L2_QUANTIZATION_FULL_RANGE
        ]),
        Some([6, 1, 6, 1])
    );
    assert_eq!(vui_colour([V4L2_COLORSPACE_DEFAULT, 0, 0, 0]), None);
    assert_eq!(vui_colour([V4L2_COLORSPACE_RAW, 0, 0, 0]), None);
}
