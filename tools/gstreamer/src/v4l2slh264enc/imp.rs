//! The element's implementation: properties, caps, and one request to the
//! device per input frame.

use super::settings::{
    choose_profile, peak_of, stream_config, RateControl, Settings, CAPS_PROFILES,
};
use gst::glib;
use gst::prelude::*;
use gst::subclass::prelude::*;
use gst_video::prelude::*;
use gst_video::subclass::prelude::*;
use h264enc_client::device::{Device, PixelFormat, VirtualDevice};
use h264enc_client::device_thread::DeviceThread;
use h264enc_client::session::{configure, layer_rates};
use std::collections::VecDeque;
use std::sync::{LazyLock, Mutex};
use v4l2_h264enc_uapi::{v4l2_ctrl_h264_encode_params, V4L2_H264_ENCODE_FLAG_FORCE_IDR};

static CAT: LazyLock<gst::DebugCategory> = LazyLock::new(|| {
    gst::DebugCategory::new(
        "v4l2slh264enc",
        gst::DebugColorFlags::empty(),
        Some("H.264 encoder over a stateless encoder device"),
    )
});

/// A configured stream.
struct State {
    /// The device on its own thread, with the frames in flight.
    dev: DeviceThread,
    /// The system frame numbers of the frames in flight, oldest first.
    in_flight: VecDeque<u32>,
    info: gst_video::VideoInfo,
    /// The input state, the reference of the output caps.
    input: gst_video::VideoCodecState<'static, gst_video::video_codec_state::Readable>,
    caps_sent: bool,
    /// A flush dropped the pictures before: the next must not refer to them.
    idr_next: bool,
    rate_control: RateControl,
    /// The profile the output caps name (downstream's choice, or the SPS's).
    profile: &'static str,
}

/// The `v4l2slh264enc` element.
#[derive(Default)]
pub struct V4l2SlH264Enc {
    settings: Mutex<Settings>,
    state: Mutex<Option<State>>,
}

fn uint(name: &str, blurb: &str, min: u32, max: u32, default: u32) -> glib::ParamSpec {
    glib::ParamSpecUInt::builder(name)
        .blurb(blurb)
        .minimum(min)
        .maximum(max)
        .default_value(default)
        .mutable_playing()
        .build()
}

impl ObjectImpl for V4l2SlH264Enc {
    fn properties() -> &'static [glib::ParamSpec] {
        static PROPS: LazyLock<Vec<glib::ParamSpec>> = LazyLock::new(|| {
            let d = Settings::default();
            vec![
                glib::ParamSpecString::builder("device")
                    .blurb("Encoder: \"virtual\" (the built-in software H1) or a V4L2 node such as /dev/video0")
                    .default_value(Some("virtual"))
                    .mutable_ready()
                    .build(),
                uint(
                    "bitrate",
                    "Target bit rate in bits per second (cbr, vbr); may change while playing",
                    1000,
                    u32::MAX,
                    d.bitrate,
                ),
                glib::ParamSpecEnum::builder_with_default("rate-control", d.rate_control)
                    .blurb("Rate control: cqp (quantizer), cbr, vbr (peak 1.5 x bitrate) or cq (quality)")
                    .mutable_ready()
                    .build(),
                uint("qp-min", "Lowest QP rate control may use", 0, 51, d.qp_min),
                uint("qp-max", "Highest QP rate control may use", 0, 51, d.qp_max),
                uint("quantizer", "QP of every frame with rate-control=cqp", 0, 51, d.quantizer),
                uint(
                    "quality",
                    "Constant quality with rate-control=cq, 1 (lowest) to 100",
                    1,
                    100,
                    d.quality,
                ),
                uint(
                    "keyframe-interval",
                    "Frames between IDR pictures (0: only the first and forced ones)",
                    0,
                    u32::MAX,
                    d.keyframe_interval,
                ),
                glib::ParamSpecBoolean::builder("cabac")
                    .blurb("CABAC entropy coding: the main profile, or high where downstream caps ask for it")
                    .default_value(d.cabac)
                    .mutable_ready()
                    .build(),
                uint(
                    "cabac-init-idc",
                    "cabac_init_idc of P slices with CABAC",
                    0,
                    2,
                    0,
                ),
                uint(
                    "max-bitrate",
                    "Peak bit rate in bit/s: vbr's HRD rate (0: 1.5 x bitrate); cq's most in any one second (0: none)",
                    0,
                    400_000_000,
                    d.max_bitrate,
                ),
                uint(
                    "cpb-size",
                    "HRD buffer (CPB) size in milliseconds at the peak rate (cbr, vbr)",
                    10,
                    60_000,
                    d.cpb_size,
                ),
                glib::ParamSpecBoolean::builder("filler")
                    .blurb("CBR: filler data so the stream never overflows its HRD buffer")
                    .default_value(d.filler)
                    .mutable_ready()
                    .build(),
                uint(
                    "ltr-period",
                    "Every N frames a P frame predicts from the long-term reference (0: none)",
                    0,
                    u32::MAX,
                    d.ltr_period,
                ),
                uint(
                    "temporal-layers",
                    "Temporal layers (1 to 3; the top layer is not used for reference)",
                    1,
                    3,
                    d.temporal_layers,
                ),
                glib::ParamSpecUInt::builder("in-flight")
                    .blurb("Frames in flight on the device, which encodes on its own thread while the next frame arrives; the latency is in-flight - 1 frames")
                    .minimum(1)
                    .maximum(16)
                    .default_value(d.in_flight)
                    .mutable_ready()
                    .build(),
                glib::ParamSpecUInt::builder("threads")
                    .blurb("Threads of the software H1 (device=virtual), which codes a frame's macroblock rows as a wavefront; the stream is the same for every count (0: one per CPU)")
                    .maximum(64)
                    .default_value(d.threads)
                    .mutable_ready()
                    .build(),
                glib::ParamSpecString::builder("layer-split")
                    .blurb("Percent of the bit rate for each temporal layer's own pictures, base first, as h264enc's --layer-split (cbr, vbr; empty: 60,40 with 2 layers, 40,20,40 with 3)")
                    .default_value(Some(""))
                    .mutable_ready()
                    .build(),
            ]
        });
        PROPS.as_ref()
    }

    fn set_property(&self, _id: usize, value: &glib::Value, pspec: &glib::ParamSpec) {
        let mut s = self.settings.lock().unwrap_or_else(|e| e.into_inner());
        match pspec.name() {
            "device" => {
                s.device = value
                    .get::<Option<String>>()
                    .ok()
                    .flatten()
                    .unwrap_or_else(|| "virtual".into())
            }
            "bitrate" => {
                s.bitrate = value.get().unwrap_or(s.bitrate);
                let (bitrate, peak) = (s.bitrate, peak_of(&s).unwrap_or(s.bitrate));
                drop(s);
                self.apply_bitrate(bitrate, peak);
            }
            "rate-control" => s.rate_control = value.get().unwrap_or(s.rate_control),
            "max-bitrate" => s.max_bitrate = value.get().unwrap_or(s.max_bitrate),
            "qp-min" => s.qp_min = value.get().unwrap_or(s.qp_min),
            "qp-max" => s.qp_max = value.get().unwrap_or(s.qp_max),
            "quantizer" => s.quantizer = value.get().unwrap_or(s.quantizer),
            "quality" => s.quality = value.get().unwrap_or(s.quality),
            "keyframe-interval" => s.keyframe_interval = value.get().unwrap_or(s.keyframe_interval),
            "cabac" => s.cabac = value.get().unwrap_or(s.cabac),
            "cabac-init-idc" => s.cabac_init_idc = value.get().unwrap_or(s.cabac_init_idc),
            "cpb-size" => s.cpb_size = value.get().unwrap_or(s.cpb_size),
            "filler" => s.filler = value.get().unwrap_or(s.filler),
            "ltr-period" => s.ltr_period = value.get().unwrap_or(s.ltr_period),
            "temporal-layers" => s.temporal_layers = value.get().unwrap_or(s.temporal_layers),
            "in-flight" => s.in_flight = value.get().unwrap_or(s.in_flight),
            "threads" => s.threads = value.get().unwrap_or(s.threads),
            "layer-split" => {
                s.layer_split = value
                    .get::<Option<String>>()
                    .ok()
                    .flatten()
                    .unwrap_or_default()
            }
            _ => {}
        }
    }

    fn property(&self, _id: usize, pspec: &glib::ParamSpec) -> glib::Value {
        let s = self.settings.lock().unwrap_or_else(|e| e.into_inner());
        match pspec.name() {
            "device" => s.device.to_value(),
            "bitrate" => s.bitrate.to_value(),
            "rate-control" => s.rate_control.to_value(),
            "max-bitrate" => s.max_bitrate.to_value(),
            "qp-min" => s.qp_min.to_value(),
            "qp-max" => s.qp_max.to_value(),
            "quantizer" => s.quantizer.to_value(),
            "quality" => s.quality.to_value(),
            "keyframe-interval" => s.keyframe_interval.to_value(),
            "cabac" => s.cabac.to_value(),
            "cabac-init-idc" => s.cabac_init_idc.to_value(),
            "cpb-size" => s.cpb_size.to_value(),
            "filler" => s.filler.to_value(),
            "ltr-period" => s.ltr_period.to_value(),
            "temporal-layers" => s.temporal_layers.to_value(),
            "layer-split" => s.layer_split.to_value(),
            "in-flight" => s.in_flight.to_value(),
            "threads" => s.threads.to_value(),
            _ => glib::Value::from_type(pspec.value_type()),
        }
    }
}

impl GstObjectImpl for V4l2SlH264Enc {}

impl ElementImpl for V4l2SlH264Enc {
    fn metadata() -> Option<&'static gst::subclass::ElementMetadata> {
        static META: LazyLock<gst::subclass::ElementMetadata> = LazyLock::new(|| {
            gst::subclass::ElementMetadata::new(
                "Stateless H.264 encoder",
                "Codec/Encoder/Video/Hardware",
                "Encodes raw video to H.264 through a V4L2 stateless encoder (hantro H1) or the built-in virtual H1",
                "The stateless H.264 encode project",
            )
        });
        Some(&*META)
    }

    fn pad_templates() -> &'static [gst::PadTemplate] {
        static PADS: LazyLock<Vec<gst::PadTemplate>> = LazyLock::new(|| {
            let sink = gst_video::VideoCapsBuilder::new()
                .format_list([
                    gst_video::VideoFormat::I420,
                    gst_video::VideoFormat::Nv12,
                    gst_video::VideoFormat::Yuy2,
                    gst_video::VideoFormat::Uyvy,
                    gst_video::VideoFormat::Rgb16,
                    gst_video::VideoFormat::Bgrx,
                    gst_video::VideoFormat::Rgbx,
                    gst_video::VideoFormat::Xrgb,
                    gst_video::VideoFormat::Xbgr,
                ])
                .width_range(16..=4080)
                .height_range(16..=4080)
                .build();
            let src = gst::Caps::builder("video/x-h264")
                .field("stream-format", "byte-stream")
                .field("alignment", "au")
                .field("profile", gst::List::new(CAPS_PROFILES))
                .build();
            vec![
                gst::PadTemplate::new(
                    "sink",
                    gst::PadDirection::Sink,
                    gst::PadPresence::Always,
                    &sink,
                )
                .expect("sink pad template"),
                gst::PadTemplate::new(
                    "src",
                    gst::PadDirection::Src,
                    gst::PadPresence::Always,
                    &src,
                )
                .expect("src pad template"),
            ]
        });
        PADS.as_ref()
    }
}

/// profile and level of the SPS in an access unit, as caps strings.
fn profile_level(au: &[u8]) -> Option<(&'static str, String)> {
    // The SPS NAL: start code, header 0x67, profile_idc, constraint flags, level_idc.
    let i = au
        .windows(4)
        .position(|w| w[..3] == [0, 0, 1] && w[3] & 0x1f == 7)?;
    let (profile_idc, flags, level_idc) = (*au.get(i + 4)?, *au.get(i + 5)?, *au.get(i + 6)?);
    let profile = match (profile_idc, flags & 0x40 != 0) {
        (66, true) => "constrained-baseline",
        (66, false) => "baseline",
        (77, _) => "main",
        (100, _) => "high",
        _ => return None,
    };
    let level = match level_idc {
        9 => "1b".to_string(),
        l if l % 10 == 0 => (l / 10).to_string(),
        l => format!("{}.{}", l / 10, l % 10),
    };
    Some((profile, level))
}

impl V4l2SlH264Enc {
    /// Posts an encode error. Called with no lock of the element held: an
    /// application's bus sync handler may call back into the element.
    fn encode_error(&self, msg: &str) -> gst::FlowError {
        gst::element_imp_error!(self, gst::StreamError::Encode, ["{}", msg]);
        gst::FlowError::Error
    }

    /// Waits for the oldest frame in flight and sends it downstream (the
    /// output caps before the first, from its SPS).
    fn output_oldest(&self) -> Result<gst::FlowSuccess, gst::FlowError> {
        let mut guard = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let st = guard.as_mut().ok_or(gst::FlowError::NotNegotiated)?;
        let id = st.in_flight.pop_front().ok_or(gst::FlowError::Error)?;
        let done = match st.dev.dequeue() {
            Ok(done) => done,
            Err(e) => {
                drop(guard);
                return Err(self.encode_error(&e.to_string()));
            }
        };
        let why = done.log.unwrap_or_default();
        let done = done.completed;
        if done.error != 0 {
            drop(guard);
            let e = format!("frame {id} failed on the device ({}): {why}", done.error);
            return Err(self.encode_error(&e));
        }
        if !st.caps_sent {
            let (coded, level) =
                profile_level(&done.payload).ok_or(gst::FlowError::NotNegotiated)?;
            // A constrained-baseline stream goes out as the baseline one
            // downstream asked for; any other must be what was negotiated.
            if coded != st.profile && !(coded == "constrained-baseline" && st.profile == "baseline")
            {
                let e = format!("the device coded the {coded} profile, not {}", st.profile);
                drop(guard);
                let _ = self.encode_error(&e);
                return Err(gst::FlowError::NotNegotiated);
            }
            let caps = gst::Caps::builder("video/x-h264")
                .field("stream-format", "byte-stream")
                .field("alignment", "au")
                .field("profile", st.profile)
                .field("level", level)
                .build();
            st.caps_sent = true;
            let input_state = st.input.clone();
            drop(guard);
            let obj = self.obj();
            // The input state carries size, rate and aspect into the output caps.
            let out = obj.set_output_state(caps, Some(&input_state))?;
            obj.negotiate(out)?;
        } else {
            drop(guard);
        }
        let obj = self.obj();
        let mut frame = obj.frame(id as i32).ok_or(gst::FlowError::Error)?;
        if done.keyframe() {
            frame.set_flags(gst_video::VideoCodecFrameFlags::SYNC_POINT);
        }
        frame.set_output_buffer(gst::Buffer::from_mut_slice(done.payload));
        obj.finish_frame(frame)
    }

    /// Sends every frame in flight downstream.
    fn drain(&self) -> Result<gst::FlowSuccess, gst::FlowError> {
        loop {
            let pending = self
                .state
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .as_ref()
                .is_some_and(|st| !st.in_flight.is_empty());
            if !pending {
                return Ok(gst::FlowSuccess::Ok);
            }
            self.output_oldest()?;
        }
    }

    fn apply_bitrate(&self, bitrate: u32, peak: u32) {
        let result = {
            let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
            match state.as_mut() {
                Some(st) if !matches!(st.rate_control, RateControl::Cqp | RateControl::Cq) => {
                    st.dev.set_bitrate(bitrate, peak)
                }
                _ => return,
            }
        };
        // The warning goes out with the lock released, as errors do.
        match result {
            Ok(()) => gst::info!(CAT, imp = self, "bit rate now {bitrate} bit/s"),
            Err(e) => gst::element_imp_warning!(
                self,
                gst::LibraryError::Settings,
                ["the device refused bit rate {bitrate}: {e}"]
            ),
        }
    }

    /// Copies a mapped input frame into the packed layout the device takes.
    fn pack(frame: &gst_video::VideoFrameRef<&gst::BufferRef>, out: &mut Vec<u8>) {
        let (w, h) = (frame.width() as usize, frame.height() as usize);
        out.clear();
        let planes: &[(u32, usize, usize)] = match frame.format() {
            gst_video::VideoFormat::Nv12 => &[(0, w, h), (1, w, h / 2)],
            gst_video::VideoFormat::I420 => &[(0, w, h), (1, w / 2, h / 2), (2, w / 2, h / 2)],
            // The packed 4:2:2 and RGB formats: one plane of whole pixels.
            _ => &[(0, frame.format_info().pixel_stride()[0] as usize * w, h)],
        };
        for &(p, row, rows) in planes {
            let stride = frame.plane_stride()[p as usize] as usize;
            if let Ok(data) = frame.plane_data(p) {
                for r in 0..rows {
                    out.extend_from_slice(&data[r * stride..r * stride + row]);
                }
            }
        }
    }
}

impl VideoEncoderImpl for V4l2SlH264Enc {
    /// Checks what does not depend on the format in the state change, so a
    /// wrong setting or node fails it at once instead of in the streaming thread.
    fn start(&self) -> Result<(), gst::ErrorMessage> {
        let s = self
            .settings
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let settings_error = |e: String| gst::error_msg!(gst::LibraryError::Settings, ["{}", e]);
        let (profile, _) = choose_profile(&s, None);
        let cfg = stream_config(&s, 16, 16, (30, 1), PixelFormat::I420, profile)
            .map_err(settings_error)?;
        if let Some(rc) = cfg.rc {
            layer_rates(&cfg, rc, u64::from(s.bitrate)).map_err(settings_error)?;
        }
        if s.device != "virtual" {
            h264enc_client::v4l2::open(&s.device)
                .map_err(|e| gst::error_msg!(gst::ResourceError::OpenReadWrite, ["{}", e]))?;
        }
        Ok(())
    }

    fn stop(&self) -> Result<(), gst::ErrorMessage> {
        if let Some(mut st) = self.state.lock().unwrap_or_else(|e| e.into_inner()).take() {
            let _ = st.dev.finish();
        }
        Ok(())
    }

    /// EOS: the frames in flight go out.
    fn finish(&self) -> Result<gst::FlowSuccess, gst::FlowError> {
        self.drain()
    }

    /// A seek: the frames in flight complete and are dropped, as the base
    /// class drops its own, and the next frame is an IDR picture.
    fn flush(&self) -> bool {
        if let Some(st) = self
            .state
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_mut()
        {
            while st.in_flight.pop_front().is_some() {
                let _ = st.dev.dequeue();
            }
            // Downstream flushed the pictures the next one would refer to.
            st.idr_next = true;
        }
        true
    }

    fn set_format(
        &self,
        state: &gst_video::VideoCodecState<'static, gst_video::video_codec_state::Readable>,
    ) -> Result<(), gst::LoggableError> {
        let info = state.info().clone();
        // New caps: the frames of the old ones go out first, and the old
        // device closes before the settings are read for the new one.
        self.drain()
            .map_err(|e| gst::loggable_error!(CAT, "draining before new caps: {e:?}"))?;
        if let Some(mut old) = self.state.lock().unwrap_or_else(|e| e.into_inner()).take() {
            let _ = old.dev.finish();
        }
        let s = self
            .settings
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        // The H1 reads these (H1_REG_IN_IMG_CTRL_FMT); GStreamer's YUY2 is
        // V4L2's YUYV, its RGB16 (native endian) RGB565 on the little-endian
        // CPUs the H1 sits beside.
        let format = match info.format() {
            gst_video::VideoFormat::Nv12 => PixelFormat::Nv12,
            gst_video::VideoFormat::Yuy2 => PixelFormat::Yuyv,
            gst_video::VideoFormat::Uyvy => PixelFormat::Uyvy,
            gst_video::VideoFormat::Rgb16 => PixelFormat::Rgb565,
            gst_video::VideoFormat::Bgrx => PixelFormat::Bgrx,
            gst_video::VideoFormat::Rgbx => PixelFormat::Rgbx,
            gst_video::VideoFormat::Xrgb => PixelFormat::Xrgb,
            gst_video::VideoFormat::Xbgr => PixelFormat::Xbgr,
            _ => PixelFormat::I420,
        };
        let (fps_num, fps_den) = match (info.fps().numer(), info.fps().denom()) {
            (n, d) if n > 0 && d > 0 => (n as u32, d as u32),
            _ => (30, 1),
        };
        // The profile downstream takes (video/x-h264,profile=...).
        let allowed = self.obj().src_pad().allowed_caps();
        let (profile, profile_name) = choose_profile(&s, allowed.as_ref());
        gst::info!(CAT, imp = self, "coding the {profile_name} profile");
        let size = (info.width(), info.height());
        let cfg = match stream_config(&s, size.0, size.1, (fps_num, fps_den), format, profile) {
            Ok(c) => c,
            Err(e) => {
                gst::element_imp_error!(self, gst::LibraryError::Settings, ["{}", e]);
                return Err(gst::loggable_error!(CAT, "{}", e));
            }
        };
        let depth = s.in_flight.max(1) as usize;
        let opened = if s.device == "virtual" {
            let threads = match s.threads {
                0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
                n => n as usize,
            };
            DeviceThread::spawn(depth, move || {
                let mut d = VirtualDevice::try_open()?;
                d.set_threads(threads);
                Ok(Box::new(d) as Box<dyn Device>)
            })
        } else {
            let path = s.device.clone();
            DeviceThread::spawn(depth, move || {
                Ok(Box::new(h264enc_client::v4l2::open(&path)?) as Box<dyn Device>)
            })
        };
        let mut dev = match opened {
            Ok(d) => d,
            Err(e) => {
                gst::element_imp_error!(self, gst::ResourceError::OpenReadWrite, ["{}", e]);
                return Err(gst::loggable_error!(CAT, "{}", e));
            }
        };
        if let Err(e) = configure(&mut dev, &cfg) {
            gst::element_imp_error!(self, gst::LibraryError::Settings, ["{}", e]);
            return Err(gst::loggable_error!(CAT, "{}", e));
        }
        // A frame comes out when the in-flight-th after it goes in.
        let latency = gst::ClockTime::SECOND
            .mul_div_floor(u64::from(fps_den) * (depth as u64 - 1), u64::from(fps_num))
            .unwrap_or(gst::ClockTime::ZERO);
        self.obj().set_latency(latency, Some(latency));
        *self.state.lock().unwrap_or_else(|e| e.into_inner()) = Some(State {
            dev,
            in_flight: VecDeque::new(),
            info,
            input: state.clone(),
            caps_sent: false,
            idr_next: false,
            rate_control: s.rate_control,
            profile: profile_name,
        });
        // A bit rate set while the device opened reached only the settings.
        let now = self
            .settings
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        if now.bitrate != s.bitrate {
            self.apply_bitrate(now.bitrate, peak_of(&now).unwrap_or(now.bitrate));
        }
        Ok(())
    }

    fn handle_frame(
        &self,
        frame: gst_video::VideoCodecFrame,
    ) -> Result<gst::FlowSuccess, gst::FlowError> {
        let mut guard = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let st = guard.as_mut().ok_or(gst::FlowError::NotNegotiated)?;
        let mut packed = Vec::new();
        {
            let input = frame.input_buffer().ok_or(gst::FlowError::Error)?;
            let vf = gst_video::VideoFrameRef::from_buffer_ref_readable(input, &st.info)
                .map_err(|_| gst::FlowError::Error)?;
            Self::pack(&vf, &mut packed);
        }
        let mut params = v4l2_ctrl_h264_encode_params::default();
        if frame
            .flags()
            .contains(gst_video::VideoCodecFrameFlags::FORCE_KEYFRAME)
            || std::mem::take(&mut st.idr_next)
        {
            params.flags |= V4L2_H264_ENCODE_FLAG_FORCE_IDR;
        }
        let ts = frame.pts().map_or(0, |t| t.nseconds());
        if let Err(e) = st
            .dev
            .queue(packed, ts, Some(params), Some(Default::default()))
        {
            drop(guard);
            return Err(self.encode_error(&e.to_string()));
        }
        st.in_flight.push_back(frame.system_frame_number());
        let full = st.dev.full();
        drop(guard);
        // The device holds the frames queued after the oldest while that
        // one goes downstream and the next comes from upstream.
        if full {
            self.output_oldest()?;
        }
        Ok(gst::FlowSuccess::Ok)
    }
}
