//! Random-bytes fuzzing of the control validation, the driver's control path
//! and the core's C API. Runs for H264ENC_FUZZ_SECONDS (default 20; the test
//! command runs it for 600).
//!
//! Every accept/refuse decision of the C validation is checked against the
//! rules written again here, independently: an invalid value must be refused,
//! a valid one accepted. The core's C API gets random configurations, frame
//! parameters, feedback registers and "hardware output" and must answer with
//! an errno, never crash.

use hantro_vdev::uapi::*;
use hantro_vdev::{PixelFormat, VirtualDevice};
use std::time::{Duration, Instant};

/// xorshift64*: deterministic per seed, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// Random bytes biased towards the edges of ranges (0, small, 0xff, 51, 52).
    fn fill(&mut self, b: &mut [u8]) {
        for x in b.iter_mut() {
            let r = self.next();
            *x = match r % 8 {
                0..=2 => 0,
                3 => (r >> 8) as u8 % 4,
                4 => 0xff,
                5 => [51u8, 52, 25, 26, 12, 13, 66, 77, 100][(r >> 8) as usize % 9],
                _ => (r >> 8) as u8,
            };
        }
    }
}

fn as_bytes<T>(v: &mut T) -> &mut [u8] {
    // SAFETY: T is a plain C struct (bindgen), every byte pattern is a valid value.
    unsafe { std::slice::from_raw_parts_mut(v as *mut T as *mut u8, std::mem::size_of::<T>()) }
}

fn params_valid(p: &v4l2_ctrl_h264_encode_params) -> bool {
    let known = V4L2_H264_ENCODE_FLAG_FORCE_IDR
        | V4L2_H264_ENCODE_FLAG_SCENE_CHANGE
        | V4L2_H264_ENCODE_FLAG_REFERENCE_TS;
    let has_ref = p.flags & V4L2_H264_ENCODE_FLAG_REFERENCE_TS != 0;
    p.flags & !known == 0
        && p.reserved.iter().all(|&r| r == 0)
        && (has_ref || p.reference_ts == 0)
        && !(has_ref && p.flags & V4L2_H264_ENCODE_FLAG_FORCE_IDR != 0)
}

fn rc_valid(r: &v4l2_ctrl_h264_encode_rc) -> bool {
    r.flags & !V4L2_H264_ENCODE_RC_FLAG_QP == 0
        && r.reserved.iter().all(|&b| b == 0)
        && r.qp <= 51
        && (r.flags & V4L2_H264_ENCODE_RC_FLAG_QP != 0 || r.qp == 0)
}

fn sps_valid(s: &v4l2_ctrl_h264_sps) -> bool {
    let bad_flags = V4L2_H264_SPS_FLAG_SEPARATE_COLOUR_PLANE
        | V4L2_H264_SPS_FLAG_QPPRIME_Y_ZERO_TRANSFORM_BYPASS
        | V4L2_H264_SPS_FLAG_GAPS_IN_FRAME_NUM_VALUE_ALLOWED;
    [66, 77, 100].contains(&s.profile_idc)
        && s.chroma_format_idc == 1
        && s.bit_depth_luma_minus8 == 0
        && s.bit_depth_chroma_minus8 == 0
        && s.seq_parameter_set_id <= 31
        && s.log2_max_frame_num_minus4 <= 12
        && (s.pic_order_cnt_type == 0 || s.pic_order_cnt_type == 2)
        && s.log2_max_pic_order_cnt_lsb_minus4 <= 12
        && (1..=16).contains(&s.max_num_ref_frames)
        && s.flags & V4L2_H264_SPS_FLAG_FRAME_MBS_ONLY != 0
        && s.flags & bad_flags == 0
        && s.pic_width_in_mbs_minus1 <= 255
        && s.pic_height_in_map_units_minus1 <= 255
}

fn pps_valid(p: &v4l2_ctrl_h264_pps, profile: u8) -> bool {
    let f = u32::from(p.flags);
    let bad = V4L2_H264_PPS_FLAG_WEIGHTED_PRED
        | V4L2_H264_PPS_FLAG_REDUNDANT_PIC_CNT_PRESENT
        | V4L2_H264_PPS_FLAG_BOTTOM_FIELD_PIC_ORDER_IN_FRAME_PRESENT
        | V4L2_H264_PPS_FLAG_SCALING_MATRIX_PRESENT;
    p.num_slice_groups_minus1 == 0
        && p.weighted_bipred_idc == 0
        && p.num_ref_idx_l0_default_active_minus1 <= 31
        && p.num_ref_idx_l1_default_active_minus1 <= 31
        && (-26..=25).contains(&p.pic_init_qp_minus26)
        && (-26..=25).contains(&p.pic_init_qs_minus26)
        && (-12..=12).contains(&p.chroma_qp_index_offset)
        && (-12..=12).contains(&p.second_chroma_qp_index_offset)
        && f & bad == 0
        && f & V4L2_H264_PPS_FLAG_DEBLOCKING_FILTER_CONTROL_PRESENT != 0
        && !(f & V4L2_H264_PPS_FLAG_ENTROPY_CODING_MODE != 0 && profile == 66)
        && !(f & V4L2_H264_PPS_FLAG_TRANSFORM_8X8_MODE != 0 && profile != 100)
}

fn seconds() -> u64 {
    std::env::var("H264ENC_FUZZ_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20)
}

#[test]
fn fuzz_controls_driver_and_core() {
    let budget = Duration::from_secs(seconds());
    let start = Instant::now();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut checked, mut refused, mut frames, mut core_calls) = (0u64, 0u64, 0u64, 0u64);
    let frame = vec![90u8; 32 * 32 * 3 / 2];
    while start.elapsed() < budget {
        // A device that streams with whatever SPS/PPS the fuzzer got accepted.
        let mut d = VirtualDevice::open();
        d.set_format(32, 32, PixelFormat::I420, 30, 1).unwrap();
        let mut profile = 66u8;
        for _ in 0..64 {
            match rng.next() % 6 {
                0 => {
                    let mut s = v4l2_ctrl_h264_sps::default();
                    rng.fill(as_bytes(&mut s));
                    if rng.next().is_multiple_of(2) {
                        // Often valid: only a few fields random.
                        s = v4l2_ctrl_h264_sps {
                            profile_idc: s.profile_idc,
                            chroma_format_idc: 1,
                            max_num_ref_frames: 1,
                            flags: V4L2_H264_SPS_FLAG_FRAME_MBS_ONLY,
                            log2_max_frame_num_minus4: s.log2_max_frame_num_minus4 % 16,
                            ..Default::default()
                        };
                    }
                    let ok = d.set_compound(V4L2_CID_STATELESS_H264_SPS, &s).is_ok();
                    assert_eq!(ok, sps_valid(&s), "SPS {s:?}");
                    if ok {
                        profile = s.profile_idc;
                    }
                    refused += u64::from(!ok);
                }
                1 => {
                    let mut p = v4l2_ctrl_h264_pps::default();
                    rng.fill(as_bytes(&mut p));
                    if rng.next().is_multiple_of(2) {
                        p = v4l2_ctrl_h264_pps {
                            flags: (p.flags & 0x0107)
                                | V4L2_H264_PPS_FLAG_DEBLOCKING_FILTER_CONTROL_PRESENT as u16,
                            chroma_qp_index_offset: p.chroma_qp_index_offset % 13,
                            ..Default::default()
                        };
                    }
                    let ok = d.set_compound(V4L2_CID_STATELESS_H264_PPS, &p).is_ok();
                    assert_eq!(ok, pps_valid(&p, profile), "PPS {p:?}");
                    refused += u64::from(!ok);
                }
                2 => {
                    // Integer controls, and ids that do not exist.
                    let id = [
                        V4L2_CID_MPEG_VIDEO_BITRATE,
                        V4L2_CID_MPEG_VIDEO_H264_MAX_QP,
                        V4L2_CID_MPEG_VIDEO_GOP_SIZE,
                        V4L2_CID_MPEG_VIDEO_BITRATE_MODE,
                        V4L2_CID_MPEG_VIDEO_FRAME_RC_ENABLE,
                        V4L2_CID_STATELESS_H264_ENCODE_LTR_PERIOD,
                        0x00990000 + (rng.next() % 4096) as u32,
                    ][(rng.next() % 7) as usize];
                    let v = (rng.next() as i64 % 2_000_000) as i32;
                    refused += u64::from(d.set_ctrl(id, v).is_err());
                }
                3 => {
                    // Wrong sizes are refused.
                    let mut buf = vec![0u8; (rng.next() % 64) as usize];
                    rng.fill(&mut buf);
                    let r = d.set_ctrl_bytes(V4L2_CID_STATELESS_H264_ENCODE_PARAMS, &buf);
                    if buf.len() != std::mem::size_of::<v4l2_ctrl_h264_encode_params>() {
                        assert!(r.is_err());
                    }
                }
                _ => {}
            }
            checked += 1;
        }
        if d.start().is_err() {
            continue;
        }
        // Requests with random per-frame controls through the driver and the model.
        for i in 0..12u64 {
            let mut p = v4l2_ctrl_h264_encode_params::default();
            let mut rc = v4l2_ctrl_h264_encode_rc::default();
            // A third raw bytes, a third near the edges of the rules, a third defaults.
            match rng.next() % 3 {
                0 => rng.fill(as_bytes(&mut p)),
                1 => {
                    p.flags = (rng.next() % 16) as u32;
                    p.reference_ts = rng.next() % 3;
                }
                _ => {}
            }
            match rng.next() % 3 {
                0 => rng.fill(as_bytes(&mut rc)),
                1 => {
                    rc.flags = (rng.next() % 3) as u32;
                    rc.qp = [0u8, 1, 26, 50, 51, 52, 53, 255][(rng.next() % 8) as usize];
                }
                _ => {}
            }
            if rng.next().is_multiple_of(4) {
                p.flags = V4L2_H264_ENCODE_FLAG_REFERENCE_TS;
                p.reference_ts = (rng.next() % 4) * 1000;
                p.reserved = [0; 5];
            }
            let r = d.encode(&frame, i * 1000, &p, &rc);
            assert_eq!(
                r.is_ok(),
                params_valid(&p) && rc_valid(&rc),
                "request {p:?} {rc:?}: {r:?}"
            );
            if let Ok(c) = r {
                frames += 1;
                assert!(c.error != 0 || !c.payload.is_empty());
            }
        }
        // The core's C API with random bytes everywhere.
        for _ in 0..32 {
            use h264enc::capi::*;
            let mut ctx = Box::new(Ctx {
                magic: 0,
                storage: [0; H264ENC_CTX_STORAGE_WORDS],
            });
            let mut cfg = h264enc::config::Config::default();
            rng.fill(as_bytes(&mut cfg));
            if rng.next().is_multiple_of(2) {
                cfg = h264enc::config::Config {
                    width: 64,
                    height: 48,
                    fps_num: 30,
                    fps_den: 1,
                    profile_idc: 66,
                    temporal_layers: 1 + (rng.next() % 3) as u8,
                    qp_i: 30,
                    qp_p: 30,
                    qp_max: 51,
                    max_refs_per_frame: 1,
                    rc_mode: (rng.next() % 4) as u8,
                    bitrate: 200_000,
                    max_bitrate: 300_000,
                    ltr_period: (rng.next() % 3) as u32,
                    ..Default::default()
                };
            }
            // SAFETY: valid pointers to owned values.
            let init = unsafe { h264enc_init(&mut *ctx, &cfg) };
            core_calls += 1;
            if init != 0 {
                // SAFETY: as above; an uninitialized context must be refused.
                assert_eq!(unsafe { h264enc_abort_frame(&mut *ctx) }, -22);
                continue;
            }
            for _ in 0..8 {
                let mut fp = h264enc::config::FrameParams::default();
                if rng.next().is_multiple_of(2) {
                    rng.fill(as_bytes(&mut fp));
                }
                let mut plan = h264enc::plan::FramePlan::default();
                // SAFETY: valid pointers.
                let r = unsafe { h264enc_plan_frame(&mut *ctx, &fp, &mut plan) };
                core_calls += 1;
                if r != 0 {
                    continue;
                }
                let mut hdr = [0u8; 512];
                // SAFETY: `hdr` is writable for its length.
                unsafe { h264enc_write_headers(&mut *ctx, hdr.as_mut_ptr(), hdr.len()) };
                let mut fb = h264enc::plan::HwFeedback::default();
                rng.fill(as_bytes(&mut fb));
                let mut stream = vec![0u8; (rng.next() % 300) as usize];
                rng.fill(&mut stream);
                if stream.len() > 8 && rng.next().is_multiple_of(2) {
                    stream[..5].copy_from_slice(&[0, 0, 0, 1, 0x65]);
                }
                let nals = [stream.len() as u32, (rng.next() % 500) as u32];
                let mut st = h264enc::plan::FrameStatus::default();
                // SAFETY: pointers valid for the given lengths.
                let r = unsafe {
                    h264enc_complete_frame(
                        &mut *ctx,
                        &fb,
                        stream.as_ptr(),
                        stream.len(),
                        nals.as_ptr(),
                        (rng.next() % 3) as u32,
                        &mut st,
                    )
                };
                core_calls += 1;
                assert!(r <= 0);
            }
        }
    }
    eprintln!(
        "fuzz: {:.0} s, {checked} control writes ({refused} refused), {frames} requests completed, {core_calls} core C-API calls, all decisions as the rules say",
        start.elapsed().as_secs_f64()
    );
    assert!(checked > 0 && core_calls > 0);
}
