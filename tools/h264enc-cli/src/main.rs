//! h264enc: encode YUV/Y4M files to H.264 through a stateless encoder: the
//! built-in virtual H1 by default, or a V4L2 device.

mod client_rc;
mod encode;
mod hrd;
mod input;
mod layers;
mod report;
mod rules;
mod stream;
mod verify;

use clap::{Parser, Subcommand};
use encode::{EncodeArgs, Profile, RcMode};
use h264enc_client::device::PixelFormat;
use h264enc_client::{units, v4l2};

#[derive(Parser)]
#[command(
    name = "h264enc",
    version,
    about = "Encode YUV/Y4M to H.264 through a stateless encoder (virtual H1 or /dev/videoN)"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Encode a .y4m file, raw .yuv (with --size) or - (stdin) to an Annex B .h264 file.
    Encode(Box<EncodeCli>),
    /// Decode with an independent decoder, compare with a reconstruction, check the HRD.
    Verify {
        /// The H.264 stream.
        stream: String,
        /// Reconstructed frames (raw I420) the decode must equal, byte for byte.
        #[arg(long)]
        recon: Option<String>,
        /// Check the stream against the Annex C HRD it signals.
        #[arg(long)]
        hrd: bool,
        /// The stream has 2 or 3 temporal layers: also check that each prefix
        /// of layers decodes on its own (and equals its frames of --recon).
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=3))]
        temporal_layers: u8,
        /// With --hrd: each prefix meets an HRD of its share of the signalled
        /// rate and CPB (percent per layer, base first; as encode's --layer-split).
        #[arg(long, value_name = "P0,P1[,P2]", value_delimiter = ',')]
        layer_split: Option<Vec<u32>>,
        /// With --hrd, for a stream that signals no HRD: hold it to a VBR HRD
        /// of RATE bits/s and a CPB of CPB bits, a picture removed every 1/FPS
        /// s from the moment the CPB is first full (a VBV).
        #[arg(long, value_name = "RATE,CPB,FPS", value_delimiter = ',', num_args = 1)]
        assume_hrd: Option<Vec<f64>>,
    },
    /// List the stateless H.264 encoders: the virtual one and /dev/video* nodes with the uAPI.
    Devices,
    /// Check that a device follows the stateless encode uAPI's rules (requests, changes while streaming, feedback, errors).
    CheckDevice {
        /// "virtual" or a V4L2 node (/dev/videoN).
        #[arg(default_value = "virtual")]
        device: String,
    },
}

#[derive(clap::Args)]
struct EncodeCli {
    /// Input: .y4m, raw .yuv (needs --size), or - for stdin (Y4M unless --size is given).
    input: String,
    /// Output .h264 (Annex B byte stream), or - for stdout (the summary then goes to stderr).
    #[arg(short, long)]
    output: String,
    /// Raw input size, WxH.
    #[arg(long, value_parser = units::parse_size)]
    size: Option<(u32, u32)>,
    /// Frame rate, N or N/D (raw input; overrides the Y4M header).
    #[arg(long, value_parser = units::parse_fps)]
    fps: Option<(u32, u32)>,
    /// Raw input pixel format: 4:2:0 planar (i420) or semi-planar (nv12),
    /// packed 4:2:2 (yuyv: Y0 Cb Y1 Cr; uyvy: Cb Y0 Cr Y1), which the H1 reads
    /// and codes as 4:2:0, or RGB, which it converts to BT.601 full-range
    /// 4:2:0 (rgb565: little-endian rrrrrggggggbbbbb, ffmpeg's rgb565le;
    /// bgrx, rgbx, xrgb, xbgr: 4 bytes a pixel in that order, ffmpeg's bgr0,
    /// rgb0, 0rgb, 0bgr). A Y4M file says its own (C420 or C422).
    #[arg(long, value_enum, default_value = "i420")]
    pix_fmt: PixFmt,
    /// Rate control (default: cbr with --bitrate, else cqp).
    #[arg(long, value_enum)]
    rc: Option<RcMode>,
    /// Target bit rate, bits/s (k and M suffixes).
    #[arg(long, value_parser = units::parse_bitrate)]
    bitrate: Option<u64>,
    /// Peak bit rate for VBR (default 1.5 x --bitrate); with --rc cq, the most any one-second window holds (default none).
    #[arg(long, value_parser = units::parse_bitrate)]
    max_bitrate: Option<u64>,
    /// HRD buffer: a bare number is milliseconds at the peak rate, k/M means bits (default 1000 ms).
    #[arg(long, value_parser = units::parse_cpb)]
    cpb_size: Option<units::CpbSize>,
    /// CBR: add filler data so the stream never overflows the HRD buffer.
    #[arg(long)]
    filler: bool,
    /// QP of every frame in cqp mode (default 26).
    #[arg(long)]
    qp: Option<u8>,
    /// Constant quality in cq mode, 1 (lowest) to 100 (default 50): the device maps it to a QP.
    #[arg(long)]
    quality: Option<u8>,
    /// Lowest QP rate control may use.
    #[arg(long, default_value_t = 10)]
    qp_min: u8,
    /// Highest QP rate control may use.
    #[arg(long, default_value_t = 51)]
    qp_max: u8,
    /// Frames between IDR pictures (0: only the first).
    #[arg(long, default_value_t = 0)]
    gop: u32,
    /// H.264 profile.
    #[arg(long, value_enum, default_value = "baseline")]
    profile: Profile,
    /// CABAC entropy coding (main, high).
    #[arg(long, overrides_with = "no_cabac")]
    cabac: bool,
    /// CAVLC entropy coding.
    #[arg(long)]
    no_cabac: bool,
    /// cabac_init_idc of P slices with CABAC (0, 1 or 2).
    #[arg(long, default_value_t = 0)]
    cabac_init_idc: u8,
    /// 8x8 transform (high; the default there).
    #[arg(long, overrides_with = "no_transform_8x8")]
    transform_8x8: bool,
    /// No 8x8 transform.
    #[arg(long)]
    no_transform_8x8: bool,
    /// Slices per picture (cut at macroblock rows).
    #[arg(long, default_value_t = 1)]
    slices: u32,
    /// Every N frames a P frame predicts from the long-term reference (0: none).
    #[arg(long, default_value_t = 0)]
    ltr_period: u32,
    /// Temporal layers (1, 2 or 3; the top layer is not used for reference).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=3))]
    temporal_layers: u8,
    /// Percent of --bitrate for each temporal layer's own pictures, base first
    /// (default 60,40 with 2 layers, 40,20,40 with 3); cbr and vbr.
    #[arg(long, value_name = "P0,P1[,P2]", value_delimiter = ',')]
    layer_split: Option<Vec<u32>>,
    /// The CLI runs rate control and passes each frame's QP (client-driven mode).
    #[arg(long)]
    client_rc: bool,
    /// Client-driven mode with another program choosing each frame's QP:
    /// CMD runs with the shell and speaks JSON lines on its stdin and
    /// stdout (see scripts/rc-compare.py).
    #[arg(long, value_name = "CMD")]
    client_rc_exec: Option<String>,
    /// Queue a frame the device fails again, up to N times (0: a failed frame ends the encode).
    #[arg(long, value_name = "N", default_value_t = 0)]
    retries: u32,
    /// Code these frames (numbered from 0, comma-separated) as IDR pictures.
    #[arg(long, value_name = "FRAMES", value_delimiter = ',')]
    force_idr: Vec<u64>,
    /// Mark these frames (comma-separated) as the long-term reference, each in place of the last.
    #[arg(long, value_name = "FRAMES", value_delimiter = ',')]
    mark_long_term: Vec<u64>,
    /// From frame N on, target RATE bits/s (cbr, vbr; repeatable): frame N is an IDR picture with the new HRD.
    #[arg(long, value_name = "N:RATE", value_parser = units::parse_bitrate_at)]
    bitrate_at: Vec<(u64, u64)>,
    /// Encode at most N frames.
    #[arg(long)]
    frames: Option<u64>,
    /// virtual, or a V4L2 node such as /dev/video0.
    #[arg(long, default_value = "virtual")]
    device: String,
    /// Frames in flight on the device, which runs on its own thread while
    /// the next frame is read (default 2; 1 with --client-rc or --retries).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=16))]
    in_flight: Option<u64>,
    /// Threads of the software H1 (--device virtual), which codes a frame's
    /// macroblock rows as a wavefront; the stream is the same for every
    /// count (default 1; 0: one per CPU).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(0..=64))]
    threads: Option<u64>,
    /// Write the reconstructed frames (raw I420, visible size).
    #[arg(long)]
    recon: Option<String>,
    /// Write per-frame statistics as JSON lines.
    #[arg(long)]
    stats: Option<String>,
    /// Write a plot of bit rate, QP and CPB fullness (.svg).
    #[arg(long)]
    plot: Option<String>,
    /// No progress bar and no summary.
    #[arg(short, long)]
    quiet: bool,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum PixFmt {
    I420,
    Nv12,
    Yuyv,
    Uyvy,
    Rgb565,
    Bgrx,
    Rgbx,
    Xrgb,
    Xbgr,
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.cmd {
        Cmd::Encode(e) => {
            let args = EncodeArgs {
                input: e.input,
                output: e.output.clone(),
                size: e.size,
                fps: e.fps,
                layout: match e.pix_fmt {
                    PixFmt::I420 => PixelFormat::I420,
                    PixFmt::Nv12 => PixelFormat::Nv12,
                    PixFmt::Yuyv => PixelFormat::Yuyv,
                    PixFmt::Uyvy => PixelFormat::Uyvy,
                    PixFmt::Rgb565 => PixelFormat::Rgb565,
                    PixFmt::Bgrx => PixelFormat::Bgrx,
                    PixFmt::Rgbx => PixelFormat::Rgbx,
                    PixFmt::Xrgb => PixelFormat::Xrgb,
                    PixFmt::Xbgr => PixelFormat::Xbgr,
                },
                rc: e.rc,
                bitrate: e.bitrate,
                max_bitrate: e.max_bitrate,
                cpb_size: e.cpb_size,
                filler: e.filler,
                qp: e.qp,
                quality: e.quality,
                qp_min: e.qp_min,
                qp_max: e.qp_max,
                gop: e.gop,
                profile: e.profile,
                cabac_init_idc: e.cabac_init_idc,
                cabac: if e.cabac {
                    Some(true)
                } else if e.no_cabac {
                    Some(false)
                } else {
                    None
                },
                transform_8x8: if e.transform_8x8 {
                    Some(true)
                } else if e.no_transform_8x8 {
                    Some(false)
                } else {
                    None
                },
                slices: e.slices,
                ltr_period: e.ltr_period,
                temporal_layers: e.temporal_layers,
                layer_split: e.layer_split,
                client_rc: e.client_rc || e.client_rc_exec.is_some(),
                client_rc_exec: e.client_rc_exec,
                retries: e.retries,
                force_idr: e.force_idr,
                mark_long_term: e.mark_long_term,
                bitrate_at: e.bitrate_at,
                frames: e.frames,
                in_flight: e.in_flight.map(|n| n as usize),
                threads: e.threads.map(|n| n as usize),
                device: e.device,
                recon: e.recon,
                stats: e.stats,
                plot: e.plot,
                quiet: e.quiet,
            };
            encode::run(&args).map(|s| {
                if e.quiet {
                    String::new()
                } else if e.output == "-" {
                    // The stream has standard output: the summary goes to stderr.
                    eprint!("{}", s.text("standard output"));
                    String::new()
                } else {
                    s.text(&e.output)
                }
            })
        }
        Cmd::Verify {
            stream,
            recon,
            hrd,
            temporal_layers,
            layer_split,
            assume_hrd,
        } => match assume_hrd.as_deref() {
            None => Ok(None),
            Some(&[rate, cpb, fps]) if rate > 0.0 && cpb > 0.0 && fps > 0.0 => {
                Ok(Some((rate, cpb, fps)))
            }
            Some(_) => Err("--assume-hrd takes RATE,CPB,FPS: three positive numbers".to_string()),
        }
        .and_then(|assumed| verify::run(&stream, recon.as_deref(), hrd, assumed))
        .and_then(|mut r| {
            r += &verify::prefixes(
                &stream,
                recon.as_deref(),
                hrd,
                temporal_layers,
                layer_split.as_deref(),
            )?;
            Ok(r)
        }),
        Cmd::Devices => Ok(v4l2::list()),
        Cmd::CheckDevice { device } => {
            if device == "virtual" {
                h264enc_client::device::VirtualDevice::try_open()
                    .and_then(|mut d| rules::check(&mut d, true))
            } else {
                v4l2::open(&device).and_then(|mut d| rules::check(&mut d, false))
            }
        }
    };
    match result {
        Ok(text) => print!("{text}"),
        Err(e) => {
            eprintln!("h264enc: {e}");
            std::process::exit(1);
        }
    }
}
