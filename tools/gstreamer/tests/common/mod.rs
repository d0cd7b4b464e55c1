//! Helpers of the element's tests: the built plugin, scratch files, and
//! appsrc ! v4l2slh264enc ! appsink pipelines.
#![allow(dead_code)]

use gst::prelude::*;
use std::path::{Path, PathBuf};

/// The directory holding the built plugin (target/<profile>), next to the test binary's `deps/`.
pub fn plugin_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let dir = exe.parent().and_then(Path::parent).expect("target dir");
    let so = dir.join("libgstv4l2slh264enc.so");
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let built = modified(&so).unwrap_or_else(|| {
        panic!(
            "{} has no libgstv4l2slh264enc.so: cargo build --release --workspace first",
            dir.display()
        )
    });
    // `cargo test` rebuilds the rlib the harness tests link, not the plugin
    // gst-launch-1.0 loads: refuse to test a stale plugin.
    let newest_rlib = std::fs::read_dir(dir.join("deps"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            n.starts_with("libgstv4l2slh264enc-") && n.ends_with(".rlib")
        })
        .filter_map(|e| modified(&e.path()))
        .max();
    assert!(
        newest_rlib.is_none_or(|r| r <= built),
        "the plugin is older than the element's code: cargo build --release -p gst-v4l2slh264enc"
    );
    dir.to_path_buf()
}

pub fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("gst-h264enc-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

pub fn init() {
    gst::init().unwrap();
    gstv4l2slh264enc::plugin_register_static().unwrap();
}

/// appsrc ! v4l2slh264enc (with `props`) ! appsink, playing.
pub fn pipeline(
    props: &[(&str, &str)],
) -> (
    gst::Pipeline,
    gst_app::AppSrc,
    gst::Element,
    gst_app::AppSink,
) {
    init();
    let src = gst_app::AppSrc::builder().format(gst::Format::Time).build();
    let enc = gst::ElementFactory::make("v4l2slh264enc").build().unwrap();
    // scripts/h1-vm-check.sh runs these pipelines on the real driver too.
    if let Ok(dev) = std::env::var("V4L2SLH264ENC_TEST_DEVICE") {
        enc.set_property("device", dev);
    }
    for (k, v) in props {
        enc.set_property_from_str(k, v);
    }
    let sink = gst_app::AppSink::builder().sync(false).build();
    let pipeline = gst::Pipeline::new();
    pipeline
        .add_many([src.upcast_ref(), &enc, sink.upcast_ref()])
        .unwrap();
    gst::Element::link_many([src.upcast_ref(), &enc, sink.upcast_ref()]).unwrap();
    pipeline.set_state(gst::State::Playing).unwrap();
    (pipeline, src, enc, sink)
}

/// The frames the element holds with its default of 2 in flight: frame n
/// comes out when frame n + 1 goes in.
pub const LAG: u64 = 1;

/// Pushes frame `n` (at n/30 s) and returns the coded sample that comes out
/// for it: frame n - `lag`'s, before the next push.
pub fn push_lag(
    src: &gst_app::AppSrc,
    sink: &gst_app::AppSink,
    frame: &[u8],
    n: u64,
    lag: u64,
) -> Option<gst::Sample> {
    let mut buf = gst::Buffer::from_slice(frame.to_vec());
    buf.get_mut()
        .unwrap()
        .set_pts(gst::ClockTime::from_nseconds(n * 1_000_000_000 / 30));
    src.push_buffer(buf).unwrap();
    (n >= lag).then(|| {
        sink.try_pull_sample(gst::ClockTime::from_seconds(30))
            .expect("a sample per frame")
    })
}

pub fn push(
    src: &gst_app::AppSrc,
    sink: &gst_app::AppSink,
    frame: &[u8],
    n: u64,
) -> Option<gst::Sample> {
    push_lag(src, sink, frame, n, LAG)
}

/// Ends the stream, waits for EOS through the pipeline and returns the
/// samples of the frames that were still in flight.
pub fn drain(
    pipeline: &gst::Pipeline,
    src: &gst_app::AppSrc,
    sink: &gst_app::AppSink,
) -> Vec<gst::Sample> {
    src.end_of_stream().unwrap();
    let mut rest = Vec::new();
    while let Ok(s) = sink.pull_sample() {
        rest.push(s);
    }
    let msg = pipeline
        .bus()
        .unwrap()
        .timed_pop_filtered(
            gst::ClockTime::from_seconds(30),
            &[gst::MessageType::Eos, gst::MessageType::Error],
        )
        .expect("EOS");
    assert!(matches!(msg.view(), gst::MessageView::Eos(_)), "{msg:?}");
    pipeline.set_state(gst::State::Null).unwrap();
    rest
}

/// Raw video caps of `format` at `w`x`h`, 30 frames a second.
pub fn raw_caps(format: &str, w: usize, h: usize) -> gst::Caps {
    gst::Caps::builder("video/x-raw")
        .field("format", format)
        .field("width", w as i32)
        .field("height", h as i32)
        .field("framerate", gst::Fraction::new(30, 1))
        .build()
}

/// Encodes `frames` through appsrc ! v4l2slh264enc ! appsink; `before(i, src, enc)`
/// runs before frame i is pushed. Returns the samples.
pub fn encode(
    w: usize,
    h: usize,
    format: &str,
    frames: &[Vec<u8>],
    props: &[(&str, &str)],
    mut before: impl FnMut(usize, &gst_app::AppSrc, &gst::Element),
) -> Vec<gst::Sample> {
    init();
    let caps = raw_caps(format, w, h);
    let (pipeline, src, enc, sink) = pipeline(props);
    src.set_caps(Some(&caps));
    let lag = props
        .iter()
        .find(|(k, _)| *k == "in-flight")
        .map_or(LAG, |(_, v)| v.parse::<u64>().unwrap() - 1);
    let mut samples = Vec::new();
    for (i, f) in frames.iter().enumerate() {
        before(i, &src, &enc);
        samples.extend(push_lag(&src, &sink, f, i as u64, lag));
    }
    samples.extend(drain(&pipeline, &src, &sink));
    samples
}

/// The stream [`encode`] gives, without events.
pub fn stream(
    w: usize,
    h: usize,
    format: &str,
    frames: &[Vec<u8>],
    props: &[(&str, &str)],
) -> Vec<u8> {
    encode(w, h, format, frames, props, |_, _, _| {})
        .iter()
        .flat_map(bytes)
        .collect()
}

pub fn is_key(s: &gst::Sample) -> bool {
    !s.buffer()
        .unwrap()
        .flags()
        .contains(gst::BufferFlags::DELTA_UNIT)
}

pub fn bytes(s: &gst::Sample) -> Vec<u8> {
    s.buffer().unwrap().map_readable().unwrap().to_vec()
}
