//! Encodes a raw I420 file with OpenH264 (the `openh264` crate), for benchmarks beside `h264enc`.
//!
//! usage: openh264-encode IN.yuv WIDTHxHEIGHT FPS (--bitrate BPS | --qp QP) OUT.h264
//!
//! Prints one line: `frames=N seconds=S` (the time spent inside the encoder, single thread).

use openh264::encoder::{
    BitRate, Complexity, Encoder, EncoderConfig, FrameRate, IntraFramePeriod, Profile, QpRange,
    RateControlMode, UsageType,
};
use openh264::formats::YUVSlices;
use openh264::OpenH264API;
use std::time::{Duration, Instant};

fn fail(msg: &str) -> ! {
    eprintln!("openh264-encode: {msg}");
    std::process::exit(2);
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() != 6 {
        fail("usage: openh264-encode IN.yuv WxH FPS (--bitrate BPS | --qp QP) OUT.h264");
    }
    let data = std::fs::read(&args[0]).unwrap_or_else(|e| fail(&format!("{}: {e}", args[0])));
    let (w, h) = args[1]
        .split_once('x')
        .and_then(|(w, h)| Some((w.parse::<usize>().ok()?, h.parse::<usize>().ok()?)))
        .unwrap_or_else(|| fail("bad size"));
    let fps: f32 = args[2].parse().unwrap_or_else(|_| fail("bad fps"));
    let value: u32 = args[4].parse().unwrap_or_else(|_| fail("bad value"));
    // Same constraints as the H1 and x264 runs: one reference, no scene-cut or
    // background tricks, a single IDR, single thread.
    let mut cfg = EncoderConfig::new()
        .profile(Profile::Baseline)
        .usage_type(UsageType::CameraVideoRealTime)
        .complexity(Complexity::Medium)
        .max_frame_rate(FrameRate::from_hz(fps))
        .skip_frames(false)
        .scene_change_detect(false)
        .background_detection(false)
        .adaptive_quantization(false)
        .intra_frame_period(IntraFramePeriod::from_num_frames(0))
        .num_threads(1);
    cfg = match args[3].as_str() {
        "--bitrate" => cfg
            .rate_control_mode(RateControlMode::Bitrate)
            .bitrate(BitRate::from_bps(value)),
        "--qp" => {
            let q = u8::try_from(value.min(51)).unwrap_or(51);
            // Quality mode held at one QP: OpenH264's rate control "off"
            // mode ignores the QP range and codes at its own default.
            cfg.rate_control_mode(RateControlMode::Quality)
                .bitrate(BitRate::from_bps(100_000_000))
                .qp(QpRange::new(q, q))
        }
        o => fail(&format!("unknown option {o}")),
    };
    let mut enc = Encoder::with_api_config(OpenH264API::from_source(), cfg)
        .unwrap_or_else(|e| fail(&format!("encoder: {e}")));
    let frame = w * h * 3 / 2;
    if frame == 0 || !data.len().is_multiple_of(frame) {
        fail("input is not a whole number of I420 frames");
    }
    let mut out = Vec::new();
    let mut spent = Duration::ZERO;
    let mut n = 0;
    for f in data.chunks_exact(frame) {
        let (y, uv) = f.split_at(w * h);
        let (u, v) = uv.split_at(w * h / 4);
        let src = YUVSlices::new((y, u, v), (w, h), (w, w / 2, w / 2));
        let t = Instant::now();
        let bs = enc
            .encode(&src)
            .unwrap_or_else(|e| fail(&format!("encode: {e}")));
        bs.write_vec(&mut out);
        spent += t.elapsed();
        n += 1;
    }
    std::fs::write(&args[5], &out).unwrap_or_else(|e| fail(&format!("{}: {e}", args[5])));
    println!("frames={n} seconds={:.3}", spent.as_secs_f64());
}
