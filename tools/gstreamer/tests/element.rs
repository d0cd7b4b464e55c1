//! The element in pipelines: the README's gst-launch pipeline through the
//! real `gst-launch-1.0` with the built plugin, and harnesses (appsrc and
//! appsink) for forced key frames, a bit rate change while playing, a
//! flush, new caps and frames in flight; every stream is decoded by ffmpeg.
//! `scripts/h1-vm-check.sh` runs the event tests on the real driver too.

mod common;

use common::*;
use gst::prelude::*;
use std::process::Command;

#[test]
fn the_readme_pipeline_runs_in_gst_launch() {
    let out = tmp("out.mkv");
    let pipeline = format!(
        "videotestsrc num-buffers=300 ! video/x-raw,format=I420,width=1280,height=720,framerate=30/1 \
         ! v4l2slh264enc rate-control=cbr bitrate=2000000 ! h264parse ! matroskamux \
         ! filesink location={}",
        out.display()
    );
    let r = Command::new("gst-launch-1.0")
        .arg("-q")
        .args(pipeline.split_whitespace())
        .env("GST_PLUGIN_PATH", plugin_dir())
        .output()
        .expect("gst-launch-1.0 (apt gstreamer1.0-tools)");
    assert!(
        r.status.success(),
        "gst-launch-1.0 failed: {}{}",
        String::from_utf8_lossy(&r.stdout),
        String::from_utf8_lossy(&r.stderr)
    );
    // 300 frames, 1/30 s apart from 0, in a stream that decodes cleanly.
    let probe = Command::new("ffprobe")
        .args(["-v", "error", "-select_streams", "v:0", "-show_entries"])
        .args(["frame=pts_time,key_frame", "-of", "csv=p=0"])
        .arg(&out)
        .output()
        .unwrap();
    let frames: Vec<(u32, f64)> = String::from_utf8_lossy(&probe.stdout)
        .lines()
        .filter_map(|l| {
            let mut f = l.split(',');
            Some((f.next()?.parse().ok()?, f.next()?.parse().ok()?))
        })
        .collect();
    assert_eq!(
        frames.len(),
        300,
        "{}",
        String::from_utf8_lossy(&probe.stderr)
    );
    for (i, (_, t)) in frames.iter().enumerate() {
        assert!((t - i as f64 / 30.0).abs() < 0.002, "frame {i} at {t} s");
    }
    assert_eq!(frames[0].0, 1, "the first frame is a key frame");
    let dec = Command::new("ffmpeg")
        .args(["-v", "error", "-err_detect", "explode", "-i"])
        .arg(&out)
        .args(["-f", "null", "-"])
        .output()
        .unwrap();
    assert!(
        dec.status.success() && dec.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&dec.stderr)
    );
    // 2 Mb/s over 10 s, within the container's overhead.
    let bits = std::fs::metadata(&out).unwrap().len() as f64 * 8.0;
    assert!(
        (bits / 10.0 - 2e6).abs() < 0.05 * 2e6,
        "{} bit/s",
        bits / 10.0
    );
}

#[test]
fn gst_inspect_documents_every_property() {
    let r = Command::new("gst-inspect-1.0")
        .arg("v4l2slh264enc")
        .env("GST_PLUGIN_PATH", plugin_dir())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&r.stdout);
    assert!(r.status.success(), "{text}");
    for p in [
        "bitrate",
        "rate-control",
        "max-bitrate",
        "qp-min",
        "qp-max",
        "quantizer",
        "keyframe-interval",
        "cabac",
        "cabac-init-idc",
        "device",
        "cpb-size",
        "filler",
        "ltr-period",
        "temporal-layers",
        "layer-split",
        "in-flight",
        "threads",
    ] {
        assert!(text.contains(&format!("  {p} ")), "{p} missing:\n{text}");
    }
    assert!(text.contains("video/x-h264") && text.contains("byte-stream"));
}

#[test]
fn forced_key_frames_and_a_bit_rate_change_while_playing() {
    let (w, h) = (320, 240);
    let clip = h264_oracle::clip("meadow", w, h, 90);
    let frames: Vec<Vec<u8>> = clip.chunks(w * h * 3 / 2).map(<[u8]>::to_vec).collect();
    let samples = encode(
        w,
        h,
        "I420",
        &frames,
        &[("rate-control", "cbr"), ("bitrate", "200000")],
        |i, src, enc| {
            if i == 30 {
                enc.set_property("bitrate", 1_000_000u32);
            }
            if i == 60 || i == 75 {
                let ev = gst_video::DownstreamForceKeyUnitEvent::builder()
                    .timestamp(gst::ClockTime::from_nseconds(i as u64 * 1_000_000_000 / 30))
                    .all_headers(true)
                    .build();
                assert!(src.send_event(ev));
            }
        },
    );
    assert_eq!(samples.len(), 90);
    // Output timestamps are the input's.
    for (i, s) in samples.iter().enumerate() {
        let pts = s.buffer().unwrap().pts().unwrap().nseconds();
        assert_eq!(pts, i as u64 * 1_000_000_000 / 30, "frame {i}");
    }
    // Key frames: the first, the bit rate change (a new HRD starts with an
    // IDR picture) and both forced ones; no other.
    let keys: Vec<usize> = (0..90).filter(|&i| is_key(&samples[i])).collect();
    assert_eq!(keys, [0, 30, 60, 75], "key frames");
    // The new rate shows: frames after the change are much larger.
    let avg = |r: std::ops::Range<usize>| {
        let n = r.len();
        r.map(|i| bytes(&samples[i]).len()).sum::<usize>() / n
    };
    let (before, after) = (avg(10..30), avg(40..60));
    assert!(
        after > 3 * before,
        "{before} bytes/frame before, {after} after"
    );
    // Caps carry profile and level; the whole stream decodes to 90 pictures.
    let caps = samples[0].caps().unwrap().structure(0).unwrap().to_owned();
    assert_eq!(caps.get::<&str>("profile").unwrap(), "constrained-baseline");
    assert!(caps.get::<&str>("level").is_ok(), "{caps}");
    let stream: Vec<u8> = samples.iter().flat_map(bytes).collect();
    let dec = h264_oracle::ffmpeg_decode(&stream).unwrap();
    assert_eq!(dec.len(), w * h * 3 / 2 * 90);
}

#[test]
fn an_upstream_key_unit_request_gives_an_idr_picture() {
    // A sink asking for a key unit (as a muxer or a network sink does):
    // the next frame is an IDR picture, with its SPS and PPS.
    let (w, h) = (176, 144);
    let clip = h264_oracle::clip("meadow", w, h, 20);
    let frames: Vec<Vec<u8>> = clip.chunks(w * h * 3 / 2).map(<[u8]>::to_vec).collect();
    let samples = encode(
        w,
        h,
        "I420",
        &frames,
        &[("rate-control", "cqp")],
        |i, _, enc| {
            if i == 12 {
                let ev = gst_video::UpstreamForceKeyUnitEvent::builder()
                    .all_headers(true)
                    .build();
                let peer = enc.static_pad("src").unwrap().peer().unwrap();
                assert!(peer.push_event(ev));
            }
        },
    );
    let keys: Vec<usize> = (0..20).filter(|&i| is_key(&samples[i])).collect();
    assert_eq!(keys, [0, 12], "key frames");
    // The IDR picture carries its parameter sets (NAL types 7 and 8).
    let b = bytes(&samples[12]);
    let types: Vec<u8> = b
        .windows(4)
        .filter(|w| w[..3] == [0, 0, 1])
        .map(|w| w[3] & 0x1f)
        .collect();
    assert!(
        types.contains(&7) && types.contains(&8) && types.contains(&5),
        "{types:?}"
    );
}

#[test]
fn a_flush_drops_the_frames_in_flight_and_the_next_is_an_idr_picture() {
    // Two in flight: frame 5 is queued on the device when the flush comes.
    // It never comes out, and frame 6, the next after the flush, is an IDR
    // picture with its own timestamp.
    let (w, h) = (176, 144);
    let clip = h264_oracle::clip("meadow", w, h, 9);
    let frames: Vec<Vec<u8>> = clip.chunks(w * h * 3 / 2).map(<[u8]>::to_vec).collect();
    let (pipeline, src, enc, sink) = pipeline(&[("rate-control", "cqp"), ("quantizer", "30")]);
    src.set_caps(Some(&raw_caps("I420", w, h)));
    let mut samples = Vec::new();
    for (i, f) in frames.iter().enumerate().take(6) {
        samples.extend(push(&src, &sink, f, i as u64));
    }
    assert_eq!(samples.len(), 5, "frames 0..4 out, frame 5 in flight");
    // The streaming thread is idle: the flush goes straight to the element.
    let pad = enc.static_pad("sink").unwrap();
    assert!(pad.send_event(gst::event::FlushStart::new()));
    assert!(pad.send_event(gst::event::FlushStop::new(true)));
    let segment = gst::FormattedSegment::<gst::ClockTime>::new();
    assert!(pad.send_event(gst::event::Segment::new(&segment)));
    // Nothing is in flight now: frame 6 comes out when frame 7 goes in.
    assert!(push_lag(&src, &sink, &frames[6], 6, u64::MAX).is_none());
    for (i, f) in frames.iter().enumerate().skip(7) {
        samples.extend(push(&src, &sink, f, i as u64));
    }
    samples.extend(drain(&pipeline, &src, &sink));
    let pts: Vec<u64> = samples
        .iter()
        .map(|s| (s.buffer().unwrap().pts().unwrap().nseconds() * 30).div_ceil(1_000_000_000))
        .collect();
    assert_eq!(
        pts,
        [0, 1, 2, 3, 4, 6, 7, 8],
        "frame 5 dropped, the rest in order"
    );
    let keys: Vec<bool> = samples.iter().map(is_key).collect();
    assert_eq!(keys, [true, false, false, false, false, true, false, false]);
    // The part after the flush decodes on its own: its IDR picture starts afresh.
    let after: Vec<u8> = samples[5..].iter().flat_map(bytes).collect();
    let dec = h264_oracle::ffmpeg_decode(&after).unwrap();
    assert_eq!(dec.len(), w * h * 3 / 2 * 3);
}

#[test]
fn new_caps_drain_and_restart_with_new_parameter_sets() {
    // 176x144, then 320x240 in the same stream: the element drains, codes
    // the new size from an IDR picture with new parameter sets, and each
    // part decodes to its pictures.
    let (pipeline, src, _enc, sink) = pipeline(&[("rate-control", "cqp")]);
    let mut parts = Vec::new();
    let mut n = 0u64;
    for (w, h) in [(176usize, 144usize), (320, 240)] {
        src.set_caps(Some(&raw_caps("I420", w, h)));
        let clip = h264_oracle::clip("meadow", w, h, 5);
        let mut samples = Vec::new();
        for f in clip.chunks(w * h * 3 / 2) {
            // The first frame of the new caps brings out the old caps' last.
            samples.extend(push(&src, &sink, f, n));
            n += 1;
        }
        parts.push((w, h, samples));
    }
    let rest = drain(&pipeline, &src, &sink);
    // Each part's frames: the last of one came out with the next one's first push.
    let mut all: Vec<gst::Sample> = parts.iter().flat_map(|p| p.2.clone()).chain(rest).collect();
    for p in &mut parts {
        p.2 = all.drain(..5).collect();
    }
    for (w, h, samples) in &parts {
        assert!(
            is_key(&samples[0]),
            "{w}x{h}: the first frame is not a key frame"
        );
        let caps = samples[0].caps().unwrap().structure(0).unwrap().to_owned();
        assert_eq!(caps.get::<i32>("width").unwrap(), *w as i32, "{caps}");
        let stream: Vec<u8> = samples.iter().flat_map(bytes).collect();
        let dec = h264_oracle::ffmpeg_decode(&stream).unwrap();
        assert_eq!(dec.len(), w * h * 3 / 2 * 5, "{w}x{h}");
    }
}

#[test]
fn frames_in_flight_keep_the_stream_its_order_and_the_latency_they_add() {
    // The device encodes while the next frame comes: the same bytes for any
    // number in flight (and any number of the software H1's threads), each
    // frame out when in-flight - 1 more went in, and the LATENCY query
    // answers those frames' duration.
    let (w, h) = (176, 144);
    let clip = h264_oracle::clip("meadow", w, h, 12);
    let frames: Vec<Vec<u8>> = clip.chunks(w * h * 3 / 2).map(<[u8]>::to_vec).collect();
    let mut streams = Vec::new();
    for (depth, threads) in [(1u64, "1"), (2, "2"), (4, "3")] {
        let d = depth.to_string();
        let props = [
            ("rate-control", "cbr"),
            ("bitrate", "300000"),
            ("in-flight", d.as_str()),
            ("threads", threads),
        ];
        let mut latency = None;
        let samples = encode(w, h, "I420", &frames, &props, |i, _, enc| {
            // Once the caps are set: the first frames have come out.
            if i == 6 {
                let mut q = gst::query::Latency::new();
                assert!(enc.static_pad("src").unwrap().query(&mut q));
                latency = Some(q.result().1);
            }
        });
        assert_eq!(
            latency,
            Some(gst::ClockTime::from_nseconds(
                (depth - 1) * 1_000_000_000 / 30
            )),
            "in-flight {depth}"
        );
        assert_eq!(samples.len(), frames.len());
        for (i, s) in samples.iter().enumerate() {
            let pts = s.buffer().unwrap().pts().unwrap().nseconds();
            assert_eq!(
                pts,
                i as u64 * 1_000_000_000 / 30,
                "in-flight {depth}: frame {i}"
            );
        }
        streams.push(samples.iter().flat_map(bytes).collect::<Vec<u8>>());
    }
    assert!(streams[0] == streams[1] && streams[1] == streams[2]);
    let dec = h264_oracle::ffmpeg_decode(&streams[0]).unwrap();
    assert_eq!(dec.len(), clip.len());
}

#[test]
fn the_rfc_pipeline_runs_as_written() {
    // The 2023 RFC's example, word for word as a shell splits it: YUY2
    // straight from videotestsrc (320x240), every default of the element.
    let dir = tmp("rfc");
    std::fs::create_dir_all(&dir).unwrap();
    let r = Command::new("gst-launch-1.0")
        .current_dir(&dir)
        .args([
            "videotestsrc",
            "num-buffers=30",
            "!",
            "video/x-raw,",
            "format=YUY2",
        ])
        .args(["!", "v4l2slh264enc", "!", "filesink", "location=test.h264"])
        .env("GST_PLUGIN_PATH", plugin_dir())
        .output()
        .expect("gst-launch-1.0 (apt gstreamer1.0-tools)");
    assert!(
        r.status.success(),
        "gst-launch-1.0 failed: {}{}",
        String::from_utf8_lossy(&r.stdout),
        String::from_utf8_lossy(&r.stderr)
    );
    let stream = std::fs::read(dir.join("test.h264")).unwrap();
    let dec = h264_oracle::ffmpeg_decode(&stream).unwrap();
    assert_eq!(dec.len(), 320 * 240 * 3 / 2 * 30);
}

#[test]
fn cabac_gives_a_main_profile_stream_that_decodes() {
    let (w, h) = (176, 144);
    let clip = h264_oracle::clip("meadow", w, h, 6);
    let frames: Vec<Vec<u8>> = clip.chunks(w * h * 3 / 2).map(<[u8]>::to_vec).collect();
    let props = [("rate-control", "cqp"), ("quantizer", "30")];
    let cavlc = stream(w, h, "I420", &frames, &props);
    let props = [
        ("rate-control", "cqp"),
        ("quantizer", "30"),
        ("cabac", "true"),
    ];
    let cabac = stream(w, h, "I420", &frames, &props);
    // The SPS (after the AUD) names Main: profile_idc 77.
    let sps = cabac
        .windows(5)
        .position(|b| b[..4] == [0, 0, 1, 0x67])
        .unwrap();
    assert_eq!(cabac[sps + 4], 77);
    let (a, b) = (
        h264_oracle::ffmpeg_decode(&cavlc).unwrap(),
        h264_oracle::ffmpeg_decode(&cabac).unwrap(),
    );
    assert_eq!(b.len(), w * h * 3 / 2 * 6);
    // Same decisions, other entropy coding: the same pictures, fewer bytes.
    assert!(a == b, "CABAC and CAVLC pictures differ");
    assert!(
        cabac.len() < cavlc.len(),
        "{} vs {}",
        cabac.len(),
        cavlc.len()
    );
    // cabac-init-idc reaches the device: other bytes, the same pictures.
    let props = [
        ("rate-control", "cqp"),
        ("quantizer", "30"),
        ("cabac", "true"),
        ("cabac-init-idc", "2"),
    ];
    let idc2 = stream(w, h, "I420", &frames, &props);
    assert!(idc2 != cabac, "cabac-init-idc=2 gave the same stream as 0");
    assert!(h264_oracle::ffmpeg_decode(&idc2).unwrap() == b);
}

#[test]
fn settings_the_device_cannot_honour_fail_with_a_message() {
    for (prop, says) in [
        (
            "device=/dev/null",
            "does not expose the stateless H.264 encode uAPI",
        ),
        ("device=/dev/video99", "cannot open /dev/video99"),
        ("temporal-layers=3 layer-split=50,50", "needs 3 percentages"),
        (
            "temporal-layers=2 layer-split=sixty,40",
            "not a list of percentages",
        ),
    ] {
        // gst-launch-1.0 must exit on its own: a hang fails the test after a minute.
        let r = Command::new("timeout")
            .args(["60", "gst-launch-1.0", "videotestsrc", "num-buffers=2", "!"])
            .args(["video/x-raw,format=I420,width=176,height=144"])
            .args(["!", "v4l2slh264enc"])
            .args(prop.split(' '))
            .args(["!", "fakesink"])
            .env("GST_PLUGIN_PATH", plugin_dir())
            .output()
            .unwrap();
        assert_ne!(r.status.code(), Some(124), "{prop}: gst-launch-1.0 hung");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&r.stdout),
            String::from_utf8_lossy(&r.stderr)
        );
        assert!(!r.status.success(), "{prop}: {text}");
        assert!(text.contains(says), "{prop}: {text}");
    }
}

#[test]
fn a_layer_split_encodes_a_stream_whose_base_layer_decodes_alone() {
    let out = tmp("layers.h264");
    let r = Command::new("gst-launch-1.0")
        .args(["videotestsrc", "num-buffers=16", "!"])
        .args(["video/x-raw,format=I420,width=176,height=144,framerate=30/1"])
        .args(["!", "v4l2slh264enc", "bitrate=300000", "temporal-layers=3"])
        .args(["layer-split=50,25,25", "!", "filesink"])
        .arg(format!("location={}", out.display()))
        .env("GST_PLUGIN_PATH", plugin_dir())
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    // h264enc is built beside the plugin (cargo build --release --workspace).
    let v = Command::new(plugin_dir().join("h264enc"))
        .args(["verify", &out.display().to_string(), "--hrd"])
        .args(["--temporal-layers", "3", "--layer-split", "50,25,25"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&v.stdout);
    assert!(
        v.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&v.stderr)
    );
    assert!(text.contains("layers 0..0 meet their HRD"), "{text}");
}

#[test]
fn the_profile_comes_from_downstream_caps() {
    // Each profile downstream may ask for, through gst-launch-1.0 as a user
    // writes it; the stream's SPS (ffprobe) is that profile.
    for (caps, cabac, want) in [
        ("high", "", "High"),
        ("main", "", "Main"),
        // A constrained-baseline stream is a baseline one.
        ("baseline", "", "Constrained Baseline"),
        ("constrained-baseline", "", "Constrained Baseline"),
        // CABAC asks for main; downstream that takes only high gets high.
        ("high", "cabac=true", "High"),
    ] {
        let out = tmp(&format!("profile-{caps}-{cabac}.h264"));
        let pipeline = format!(
            "videotestsrc num-buffers=3 ! video/x-raw,format=I420,width=176,height=144 \
             ! v4l2slh264enc {cabac} ! video/x-h264,profile={caps} ! filesink location={}",
            out.display()
        );
        let r = Command::new("gst-launch-1.0")
            .arg("-q")
            .args(pipeline.split_whitespace())
            .env("GST_PLUGIN_PATH", plugin_dir())
            .output()
            .unwrap();
        assert!(
            r.status.success(),
            "profile={caps}: {}{}",
            String::from_utf8_lossy(&r.stdout),
            String::from_utf8_lossy(&r.stderr)
        );
        let probe = Command::new("ffprobe")
            .args([
                "-v",
                "error",
                "-show_entries",
                "stream=profile",
                "-of",
                "csv=p=0",
            ])
            .arg(&out)
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&probe.stdout).trim(),
            want,
            "profile={caps} {cabac}"
        );
    }
}
