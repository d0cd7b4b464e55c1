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
        | V4L2_H264_ENCODE_FLAG_REFERENCE_TS
        | V4L2_H264_ENCODE_FLAG_MARK_LONG_TERM;
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

/// The sequence-level controls with the ranges the specification gives
/// them, and the menu entries the encoder does not offer.
const SEQUENCE_CTRLS: [(u32, i32, i32, u64); 12] = [
    (V4L2_CID_MPEG_VIDEO_H264_PROFILE, 0, 4, 1 << 3),
    (V4L2_CID_MPEG_VIDEO_H264_LEVEL, 0, 15, 1 << 1),
    (V4L2_CID_MPEG_VIDEO_H264_ENTROPY_MODE, 0, 1, 0),
    (V4L2_CID_MPEG_VIDEO_H264_8X8_TRANSFORM, 0, 1, 0),
    (
        V4L2_CID_MPEG_VIDEO_H264_CONSTRAINED_INTRA_PREDICTION,
        0,
        1,
        0,
    ),
    (V4L2_CID_MPEG_VIDEO_H264_CHROMA_QP_INDEX_OFFSET, -12, 12, 0),
    (V4L2_CID_MPEG_VIDEO_AU_DELIMITER, 0, 1, 0),
    (V4L2_CID_MPEG_VIDEO_PREPEND_SPSPPS_TO_IDR, 0, 1, 0),
    (V4L2_CID_MPEG_VIDEO_LTR_COUNT, 0, 1, 0),
    (V4L2_CID_MPEG_VIDEO_H264_HIERARCHICAL_CODING, 0, 1, 0),
    (V4L2_CID_MPEG_VIDEO_H264_HIERARCHICAL_CODING_LAYER, 1, 3, 0),
    (V4L2_CID_MPEG_VIDEO_CONSTANT_QUALITY, 1, 100, 0),
];

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
        // A device that streams with whatever controls the fuzzer got accepted.
        let mut d = VirtualDevice::open();
        d.set_format(32, 32, PixelFormat::I420, 30, 1).unwrap();
        for _ in 0..64 {
            match rng.next() % 6 {
                0 | 1 => {
                    // Sequence controls, around and beyond their ranges.
                    let (id, min, max, skip) =
                        SEQUENCE_CTRLS[(rng.next() % SEQUENCE_CTRLS.len() as u64) as usize];
                    let v = min - 2 + (rng.next() % (max - min + 5) as u64) as i32;
                    let ok = d.set_ctrl(id, v).is_ok();
                    let skipped = (0..64).contains(&v) && skip & (1u64 << v) != 0;
                    let valid = (min..=max).contains(&v) && !skipped;
                    assert_eq!(ok, valid, "control {id:#x} = {v}");
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
                    p.flags = (rng.next() % 32) as u32;
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
                    ltr_count: (rng.next() % 2) as u8,
                    ltr_period: (rng.next() % 3) as u32,
                    omit_param_sets: (rng.next() % 2) as u8,
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
                if rng.next().is_multiple_of(2) {
                    // SAFETY: pointers valid for the given lengths.
                    let r = unsafe {
                        h264enc_replan_frame(
                            &mut *ctx,
                            &fb,
                            stream.as_ptr(),
                            stream.len(),
                            nals.as_ptr(),
                            (rng.next() % 3) as u32,
                            &mut plan,
                        )
                    };
                    core_calls += 1;
                    assert!(r <= 2);
                    if r < 0 {
                        continue;
                    }
                    if r == 2 || rng.next().is_multiple_of(8) {
                        // The skipped picture, also where none was chosen
                        // (refused), into a buffer of any size.
                        let mut au = vec![0u8; (rng.next() % 600) as usize];
                        let mut st = h264enc::plan::FrameStatus::default();
                        // SAFETY: `au` is writable for its length.
                        let n = unsafe {
                            h264enc_complete_skipped(&mut *ctx, au.as_mut_ptr(), au.len(), &mut st)
                        };
                        core_calls += 1;
                        assert!(n < 0 || (n as usize) <= au.len());
                        assert!(r == 2 || n < 0, "a skip completed that was not chosen");
                        continue;
                    }
                }
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
