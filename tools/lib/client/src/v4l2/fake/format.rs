//! The formats hantro offers for an H1 encoder and how its VIDIOC_S_FMT
//! adjusts them (see the module above).

use super::super::sys::fourcc;
use crate::device::PixelFormat;

pub(super) const MB: u32 = 16;

pub(super) const H264: u32 = fourcc(b"H264");
pub(super) const JPEG: u32 = fourcc(b"JPEG");
pub(super) const YM12: u32 = fourcc(b"YM12");
pub(super) const NM12: u32 = fourcc(b"NM12");
pub(super) const YUYV: u32 = fourcc(b"YUYV");
pub(super) const UYVY: u32 = fourcc(b"UYVY");
/// The RGB formats the H.264 backend adds to the list; hantro offers them
/// only while the CAPTURE format is H.264 (the JPEG encoder does not program
/// the H1's colour conversion).
pub(super) const RGB: [PixelFormat; 5] = [
    PixelFormat::Rgb565,
    PixelFormat::Bgrx,
    PixelFormat::Rgbx,
    PixelFormat::Xrgb,
    PixelFormat::Xbgr,
];

/// The RGB format of `fourcc`, if it is one.
fn rgb(fourcc: u32) -> Option<PixelFormat> {
    RGB.into_iter().find(|f| f.fourcc() == fourcc)
}

/// The frame layout of an OUTPUT format hantro offers.
fn format_of(fourcc: u32) -> Option<PixelFormat> {
    match fourcc {
        YM12 => Some(PixelFormat::I420),
        NM12 => Some(PixelFormat::Nv12),
        YUYV => Some(PixelFormat::Yuyv),
        UYVY => Some(PixelFormat::Uyvy),
        f => rgb(f),
    }
}

/// struct v4l2_frmsize_stepwise of a coded format: min, max and step of
/// width, then of height.
pub(super) type FrmSize = [u32; 6];
/// V4L2_PIX_FMT_H264 in stm32mp25_venc_fmts and rk3288_vpu_enc_fmts.
pub(super) const H264_FRMSIZE: FrmSize = [96, 4080, MB, 48, 4080, MB];
/// V4L2_PIX_FMT_JPEG in stm32mp25_venc_fmts (FMT_4K_WIDTH x FMT_4K_HEIGHT).
pub(super) const JPEG_FRMSIZE: FrmSize = [96, 4096, MB, 96, 2304, MB];
/// JPEG_HEADER_SIZE of hantro_jpeg.h, the JPEG format's header_size.
pub(super) const JPEG_HEADER_SIZE: u32 = 624;

/// clamp_roundup() of v4l2-common.c.
pub(super) fn clamp_roundup(x: u32, min: u32, max: u32, step: u32) -> u32 {
    x.clamp(min, max).div_ceil(step) * step
}

/// v4l2_apply_frmsize_constraints().
pub(super) fn frmsize(w: u32, h: u32, f: &FrmSize) -> (u32, u32) {
    (
        clamp_roundup(w, f[0], f[1], f[2]),
        clamp_roundup(h, f[3], f[4], f[5]),
    )
}

/// The CAPTURE format the driver holds (its dst_fmt).
#[derive(Clone, Copy)]
pub(super) struct CapFormat {
    pub(super) pixelformat: u32,
    /// The coded size.
    pub(super) width: u32,
    pub(super) height: u32,
    pub(super) sizeimage: u32,
    /// The visible size (dst_fmt after VIDIOC_S_SELECTION).
    pub(super) visible: (u32, u32),
}

impl CapFormat {
    pub(super) fn frmsize(&self) -> &'static FrmSize {
        if self.pixelformat == H264 {
            &H264_FRMSIZE
        } else {
            &JPEG_FRMSIZE
        }
    }
}

/// The OUTPUT format the driver holds (its src_fmt).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct OutFormat {
    pub(super) pixelformat: u32,
    pub(super) width: u32,
    pub(super) height: u32,
    /// bytesperline and sizeimage of each plane.
    pub(super) planes: Vec<(u32, u32)>,
}

impl OutFormat {
    /// hantro_try_fmt() for OUTPUT then v4l2_fill_pixfmt_mp().
    pub(super) fn try_fmt(pixelformat: u32, w: u32, h: u32, cap: &CapFormat) -> Self {
        let pixelformat = match pixelformat {
            YM12 | NM12 | YUYV | UYVY => pixelformat,
            f if cap.pixelformat == H264 && rgb(f).is_some() => f,
            // hantro_get_default_fmt(): the first raw format of the list.
            _ => YM12,
        };
        let (w, h) = frmsize(w, h, cap.frmsize());
        let (cw, ch) = (w.div_ceil(2), h.div_ceil(2));
        // One-plane formats: packed 4:2:2 or RGB.
        let bpp = format_of(pixelformat)
            .and_then(PixelFormat::bytes_per_pixel)
            .unwrap_or(2) as u32;
        let planes = match pixelformat {
            YM12 => vec![(w, w * h), (cw, cw * ch), (cw, cw * ch)],
            NM12 => vec![(w, w * h), (2 * cw, 2 * cw * ch)],
            _ => vec![(bpp * w, bpp * w * h)],
        };
        OutFormat {
            pixelformat,
            width: w,
            height: h,
            planes,
        }
    }

    /// What the H.264 backend codes from (hantro_h264_enc_config).
    pub(super) fn layout(&self) -> Option<PixelFormat> {
        format_of(self.pixelformat)
    }

    /// The packed frame of the visible `w`x`h` the virtual device codes,
    /// read from the planes of a source buffer at this format's strides.
    pub(super) fn frame(&self, (w, h): (u32, u32), planes: &[Vec<u8>]) -> Option<Vec<u8>> {
        let fmt = self.layout()?;
        // The rows as wide as the H1 reads them, the client's padding
        // included: the virtual device takes them as they are.
        let (w4, h) = (hantro_vdev::read_width(w) as usize, h as usize);
        let mut frame = Vec::with_capacity(fmt.frame_len(w4 as u32, h as u32));
        // hantro's source formats hold component k in buffer plane k.
        for (p, (row, rows, _)) in fmt.components(w4, h).into_iter().enumerate() {
            let bpl = self.planes[p].0 as usize;
            for r in 0..rows {
                frame.extend_from_slice(&planes[p][r * bpl..][..row]);
            }
        }
        Some(frame)
    }
}
