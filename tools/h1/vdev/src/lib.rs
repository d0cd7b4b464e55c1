//! The virtual H.264 stateless encoder.
//!
//! The real hantro H1 H.264 backend (`drivers/media/platform/verisilicon/`)
//! and control validation (`drivers/media/v4l2-core/`) are compiled against a
//! small shim of the kernel APIs they use (`shim/`); their register writes and
//! DMA buffers land here, where the software H1 ([`hantro_h1_model`]) runs as
//! the hardware. The Rust core is linked through its C API exactly as in the
//! kernel. [`VirtualDevice`] offers the V4L2 stateless-encode semantics:
//! format, controls, then one request (source frame + per-frame controls) per
//! frame, completed with a CAPTURE payload and a feedback control.

#![allow(non_camel_case_types, non_upper_case_globals, non_snake_case)]

mod host;

pub use hantro_h1_model::CpuLevel;
pub use host::Fault;
use host::Host;
use std::ffi::c_void;

/// The uAPI types, and the device's C API (`shim/vdev.h`) that takes them.
pub mod uapi {
    #![allow(missing_docs, clippy::all)]
    pub use v4l2_h264enc_uapi::*;
    include!(concat!(env!("OUT_DIR"), "/vdev.rs"));
}

// The core's C API must be linked in: keep a reference to it.
#[used]
static LINK_CORE: unsafe extern "C" fn(
    *mut h264enc::capi::Ctx,
    *const h264enc::config::Config,
) -> i32 = h264enc::capi::h264enc_init;

use v4l2_h264enc_uapi::v4l2_fourcc as fourcc;

/// A negative errno from the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Errno(pub i32);

impl std::fmt::Display for Errno {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = match -self.0 {
            1 => "EPERM",
            5 => "EIO",
            12 => "ENOMEM",
            13 => "EACCES",
            16 => "EBUSY",
            22 => "EINVAL",
            28 => "ENOSPC",
            34 => "ERANGE",
            71 => "EPROTO",
            75 => "EOVERFLOW",
            110 => "ETIMEDOUT",
            2 => "ENOENT",
            _ => "error",
        };
        write!(f, "{name} ({})", self.0)
    }
}

fn check(ret: i32) -> Result<(), Errno> {
    if ret < 0 {
        Err(Errno(ret))
    } else {
        Ok(())
    }
}

/// Input pixel formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PixelFormat {
    /// Planar Y, Cb, Cr.
    I420,
    /// Y plane, interleaved CbCr.
    Nv12,
    /// Packed 4:2:2, Y0 Cb Y1 Cr (V4L2_PIX_FMT_YUYV, GStreamer's YUY2).
    Yuyv,
    /// Packed 4:2:2, Cb Y0 Cr Y1 (V4L2_PIX_FMT_UYVY).
    Uyvy,
    /// RGB 5:6:5, a little-endian 16-bit value rrrrrggggggbbbbb
    /// (V4L2_PIX_FMT_RGB565, GStreamer's RGB16, ffmpeg's rgb565le).
    Rgb565,
    /// Bytes B G R X (V4L2_PIX_FMT_XBGR32, GStreamer's BGRx, ffmpeg's bgr0).
    Bgrx,
    /// Bytes R G B X (V4L2_PIX_FMT_RGBX32, GStreamer's RGBx, ffmpeg's rgb0).
    Rgbx,
    /// Bytes X R G B (V4L2_PIX_FMT_XRGB32, GStreamer's xRGB, ffmpeg's 0rgb).
    Xrgb,
    /// Bytes X B G R (V4L2_PIX_FMT_BGRX32, GStreamer's xBGR, ffmpeg's 0bgr).
    Xbgr,
}

impl PixelFormat {
    /// Bytes of a pixel of the one-plane formats (packed 4:2:2 and RGB);
    /// `None` for the planar 4:2:0 ones.
    pub fn bytes_per_pixel(self) -> Option<usize> {
        match self {
            PixelFormat::I420 | PixelFormat::Nv12 => None,
            PixelFormat::Yuyv | PixelFormat::Uyvy | PixelFormat::Rgb565 => Some(2),
            PixelFormat::Bgrx | PixelFormat::Rgbx | PixelFormat::Xrgb | PixelFormat::Xbgr => {
                Some(4)
            }
        }
    }

    /// Bytes of a `width` x `height` frame, without padding.
    pub fn frame_len(self, width: u32, height: u32) -> usize {
        let luma = width as usize * height as usize;
        self.bytes_per_pixel().map_or(luma * 3 / 2, |b| luma * b)
    }

    /// Whether the H1 converts this format from RGB.
    pub fn is_rgb(self) -> bool {
        self.bytes_per_pixel().is_some() && !matches!(self, PixelFormat::Yuyv | PixelFormat::Uyvy)
    }

    /// The V4L2 pixel format (single plane).
    pub fn fourcc(self) -> u32 {
        fourcc(match self {
            PixelFormat::I420 => b"YU12",
            PixelFormat::Nv12 => b"NV12",
            PixelFormat::Yuyv => b"YUYV",
            PixelFormat::Uyvy => b"UYVY",
            PixelFormat::Rgb565 => b"RGBP",
            PixelFormat::Bgrx => b"XR24",
            PixelFormat::Rgbx => b"XB24",
            PixelFormat::Xrgb => b"BX24",
            PixelFormat::Xbgr => b"RX24",
        })
    }

    /// (row bytes, rows, bytes of one sample position) of each component
    /// of a `width` x `height` frame, in the order a packed frame holds them.
    pub fn components(self, width: usize, height: usize) -> Vec<(usize, usize, usize)> {
        let (w, h) = (width, height);
        match self {
            PixelFormat::I420 => vec![(w, h, 1), (w / 2, h / 2, 1), (w / 2, h / 2, 1)],
            PixelFormat::Nv12 => vec![(w, h, 1), (w, h / 2, 2)],
            // A sample position of packed 4:2:2 is a pair of pixels.
            PixelFormat::Yuyv | PixelFormat::Uyvy => vec![(2 * w, h, 4)],
            rgb => {
                let b = rgb.bytes_per_pixel().unwrap_or(4);
                vec![(b * w, h, b)]
            }
        }
    }
}

/// The width the H1 reads of a picture `width` wide: its input overfill
/// counts 4 pixels (IN_IMG_CTRL OVRFLR_D4), so an even width that is not a
/// multiple of 4 is read 2 pixels wider, and the client pads each row.
pub fn read_width(width: u32) -> u32 {
    width.next_multiple_of(4)
}

/// Pads a row whose first `filled` bytes are picture: the rest repeats its
/// last sample position (`unit` bytes), as the client pads for the H1.
pub fn pad_row(row: &mut [u8], filled: usize, unit: usize) {
    if filled < unit || unit == 0 {
        return;
    }
    let (pic, pad) = row.split_at_mut(filled);
    let last = &pic[filled - unit..];
    for (i, b) in pad.iter_mut().enumerate() {
        *b = last[i % unit];
    }
}

/// A packed `width` x `height` frame with each row padded to
/// [`read_width`], as the virtual device's source buffer holds it.
fn padded_frame(frame: &[u8], fmt: PixelFormat, width: u32, height: u32) -> Vec<u8> {
    let (w, w4, h) = (width as usize, read_width(width) as usize, height as usize);
    let mut out = Vec::with_capacity(fmt.frame_len(w4 as u32, height));
    let mut src = frame;
    for ((row, rows, unit), (row4, _, _)) in
        fmt.components(w, h).into_iter().zip(fmt.components(w4, h))
    {
        for _ in 0..rows {
            let (r, rest) = src.split_at(row.min(src.len()));
            src = rest;
            let at = out.len();
            out.extend_from_slice(r);
            out.resize(at + row4, 0);
            pad_row(&mut out[at..], r.len(), unit);
        }
    }
    out
}

/// A completed request.
#[derive(Clone, Debug)]
pub struct Completed {
    /// The access unit, Annex B.
    pub payload: Vec<u8>,
    /// V4L2 buffer flags (KEYFRAME, PFRAME, ERROR).
    pub flags: u32,
    /// 0, or the negative errno that ended the request with an error.
    pub error: i32,
    /// The feedback control of the request.
    pub feedback: uapi::v4l2_ctrl_h264_encode_feedback,
    /// The H1's statistics of the frame (V4L2_CID_HANTRO_H1_H264_ENC_STATS),
    /// when the device reports them.
    pub stats: Option<[u32; uapi::HANTRO_H1_H264_ENC_STATS_LEN as usize]>,
    /// Reconstruction slot of the frame.
    pub rec_slot: u32,
}

impl Completed {
    /// True when the frame is a key frame.
    pub fn keyframe(&self) -> bool {
        self.flags & uapi::V4L2_BUF_FLAG_KEYFRAME != 0
    }
}

/// The virtual device: one encoding context.
pub struct VirtualDevice {
    host: Box<Host>,
    dev: *mut uapi::vdev,
    width: u32,
    height: u32,
    fmt: PixelFormat,
    out_size: u32,
    /// The CAPTURE buffer, kept from frame to frame.
    out: Vec<u8>,
}

impl VirtualDevice {
    /// Opens a context, as [`VirtualDevice::try_open`]; panics with its
    /// message when `H264ENC_H1_CPU` is wrong.
    pub fn open() -> Self {
        Self::try_open().unwrap_or_else(|e| panic!("{e}"))
    }

    /// Opens a context whose software H1 runs the CPU level the environment
    /// variable `H264ENC_H1_CPU` names (`plain`, `sse2`, `avx2`), the
    /// highest this CPU runs when it is unset; the message when it names an
    /// unknown level or one this CPU lacks.
    pub fn try_open() -> Result<Self, String> {
        Ok(Self::open_at(CpuLevel::from_env()?))
    }

    /// Opens a context whose software H1 runs the CPU level `level` (or the
    /// highest this CPU runs, when that is lower).
    pub fn open_at(level: CpuLevel) -> Self {
        let mut host = Box::new(Host::new(level));
        let hp = &mut *host as *mut Host as *mut c_void;
        // SAFETY: `hp` points to the boxed host, which lives as long as the device.
        let dev = unsafe { uapi::vdev_create(hp) };
        assert!(!dev.is_null(), "out of memory creating the virtual device");
        VirtualDevice {
            host,
            dev,
            width: 0,
            height: 0,
            fmt: PixelFormat::I420,
            out_size: 0,
            out: Vec::new(),
        }
    }

    /// Opens a context whose software H1 codes each frame with `threads`
    /// threads. The stream is the same for every count; only the speed differs.
    pub fn open_with_threads(threads: usize) -> Self {
        let mut d = Self::open();
        d.set_threads(threads);
        d
    }

    /// Codes the frames that follow with `threads` threads of the software
    /// H1; the stream is the same for every count.
    pub fn set_threads(&mut self, threads: usize) {
        self.host.set_threads(threads);
    }

    /// Sets the colorimetry of the OUTPUT format (after [`Self::set_format`]).
    pub fn set_colorimetry(
        &mut self,
        colorspace: u32,
        xfer_func: u32,
        ycbcr_enc: u32,
        quantization: u32,
    ) -> Result<(), Errno> {
        // SAFETY: `dev` is valid until drop.
        check(unsafe {
            uapi::vdev_set_colorimetry(self.dev, colorspace, xfer_func, ycbcr_enc, quantization)
        })
    }

    /// Sets the OUTPUT format (visible size, pixel format) and the frame rate.
    pub fn set_format(
        &mut self,
        width: u32,
        height: u32,
        fmt: PixelFormat,
        fps_num: u32,
        fps_den: u32,
    ) -> Result<(), Errno> {
        let fourcc = fmt.fourcc();
        // SAFETY: `dev` is valid until drop.
        check(unsafe { uapi::vdev_set_format(self.dev, width, height, fourcc, fps_num, fps_den) })?;
        self.width = width;
        self.height = height;
        self.fmt = fmt;
        // Room for the worst case of the H1 (about 400 bytes per macroblock) and headers.
        let mbs = width.div_ceil(16) * height.div_ceil(16);
        self.out_size = mbs * 512 + 64 * 1024;
        Ok(())
    }

    /// Sets an integer control.
    pub fn set_ctrl(&mut self, id: u32, value: i32) -> Result<(), Errno> {
        // SAFETY: the pointer and size describe `value`.
        check(unsafe {
            uapi::vdev_set_ctrl(self.dev, id, &value as *const i32 as *const c_void, 4)
        })
    }

    /// Sets a compound control from its C struct.
    pub fn set_compound<T>(&mut self, id: u32, value: &T) -> Result<(), Errno> {
        // SAFETY: the pointer and size describe `value`, a plain C struct.
        check(unsafe {
            uapi::vdev_set_ctrl(
                self.dev,
                id,
                value as *const T as *const c_void,
                std::mem::size_of::<T>() as u32,
            )
        })
    }

    /// Sets a control from raw bytes (the size must be the control's).
    pub fn set_ctrl_bytes(&mut self, id: u32, data: &[u8]) -> Result<(), Errno> {
        // SAFETY: the pointer and size describe `data`.
        check(unsafe {
            uapi::vdev_set_ctrl(
                self.dev,
                id,
                data.as_ptr() as *const c_void,
                data.len() as u32,
            )
        })
    }

    /// Starts streaming: the backend configures the core and allocates its buffers.
    pub fn start(&mut self) -> Result<(), Errno> {
        // SAFETY: `dev` is valid.
        check(unsafe { uapi::vdev_start(self.dev) })
    }

    /// Stops streaming; the format and controls may change afterwards.
    pub fn stop(&mut self) {
        // SAFETY: `dev` is valid.
        unsafe { uapi::vdev_stop(self.dev) };
    }

    /// Changes the bit rate while streaming.
    pub fn set_bitrate(&mut self, bitrate: u32, peak: u32) -> Result<(), Errno> {
        // SAFETY: `dev` is valid.
        check(unsafe { uapi::vdev_set_bitrate(self.dev, bitrate, peak) })
    }

    /// Queues one request: a source frame and its per-frame controls. Returns
    /// the completed request; an `Err` means the request was refused.
    pub fn encode(
        &mut self,
        frame: &[u8],
        timestamp: u64,
        params: &uapi::v4l2_ctrl_h264_encode_params,
        rc: &uapi::v4l2_ctrl_h264_encode_rc,
    ) -> Result<Completed, Errno> {
        self.encode_request(frame, timestamp, Some(params), Some(rc))
    }

    /// As [`Self::encode`], with the per-frame controls the request leaves
    /// out as `None` (the driver refuses such a request with `ENOENT`).
    pub fn encode_request(
        &mut self,
        frame: &[u8],
        timestamp: u64,
        params: Option<&uapi::v4l2_ctrl_h264_encode_params>,
        rc: Option<&uapi::v4l2_ctrl_h264_encode_rc>,
    ) -> Result<Completed, Errno> {
        let params = params.map_or(std::ptr::null(), |p| p as *const _);
        let rc = rc.map_or(std::ptr::null(), |r| r as *const _);
        // Rows the H1 reads wider than the picture are padded, as a client
        // pads them in its source buffers.
        let padded;
        let frame = if read_width(self.width) != self.width
            && frame.len() == self.fmt.frame_len(self.width, self.height)
        {
            padded = padded_frame(frame, self.fmt, self.width, self.height);
            &padded[..]
        } else {
            frame
        };
        let mut out = std::mem::take(&mut self.out);
        out.resize(self.out_size as usize, 0);
        let mut res = uapi::vdev_result::default();
        // SAFETY: all pointers are valid for the sizes given; `params` and
        // `rc` may be null, which the shim takes as left out of the request.
        let ret = check(unsafe {
            uapi::vdev_encode(
                self.dev,
                frame.as_ptr(),
                frame.len() as u32,
                timestamp,
                params,
                rc,
                out.as_mut_ptr(),
                out.len() as u32,
                &mut res,
            )
        });
        let payload = out.get(..res.payload as usize).unwrap_or(&[]).to_vec();
        self.out = out;
        ret?;
        Ok(Completed {
            payload,
            flags: res.flags,
            error: res.error,
            feedback: res.feedback,
            stats: Some(res.stats),
            rec_slot: res.rec_slot,
        })
    }

    /// Returns the reconstruction of slot `slot` as I420 at the visible size.
    pub fn recon(&mut self, slot: u32) -> Result<Vec<u8>, Errno> {
        let mut out = vec![0u8; (self.width * self.height * 3 / 2) as usize];
        // SAFETY: `out` is writable for its length.
        check(unsafe {
            uapi::vdev_read_recon(self.dev, slot, out.as_mut_ptr(), out.len() as u32)
        })?;
        Ok(out)
    }

    /// Arms a hardware fault for the next frame (tests of the failure paths).
    pub fn inject(&mut self, fault: Fault) {
        self.host.fault = fault;
    }

    /// Messages the driver logged.
    pub fn log(&self) -> &[String] {
        &self.host.log
    }
}

impl Drop for VirtualDevice {
    fn drop(&mut self) {
        // SAFETY: `dev` came from vdev_create and is destroyed once.
        unsafe { uapi::vdev_destroy(self.dev) };
    }
}
