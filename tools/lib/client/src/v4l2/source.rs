//! Where a client's frame goes in the source (OUTPUT) buffers of the format
//! a driver chose in VIDIOC_S_FMT: planes, offsets and strides of each
//! component, for the 4:2:0, packed 4:2:2 and RGB formats the H1 reads.

use super::sys::*;
use crate::device::PixelFormat;
use hantro_vdev::read_width;

/// Where one component of a picture (Y, U, V, or NV12's interleaved CbCr)
/// goes: from the client's packed frame into a plane of the source buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Component {
    /// Offset in the packed frame.
    pub(super) src: usize,
    /// Bytes per row and rows of picture.
    pub(super) row_bytes: usize,
    pub(super) rows: usize,
    /// Bytes per row the H1 reads (see [`read_width`]): the row is padded
    /// that far with its last `unit` bytes.
    pub(super) read_bytes: usize,
    pub(super) unit: usize,
    /// The buffer plane, the offset in it and its bytes per line.
    pub(super) plane: usize,
    pub(super) offset: usize,
    pub(super) stride: usize,
}

/// The source buffer layout the driver chose in VIDIOC_S_FMT.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct SourceLayout {
    /// The pixel format the driver took.
    pub(super) pixelformat: u32,
    /// The sizeimage of each buffer plane (num_planes of them).
    pub(super) sizeimage: Vec<u32>,
    pub(super) components: Vec<Component>,
}

/// V4L2_PIX_FMT_YUV420M ('YM12'): Y, Cb and Cr in three buffer planes.
pub const PIX_FMT_YUV420M: u32 = fourcc(b"YM12");
/// V4L2_PIX_FMT_NV12M ('NM12'): Y and interleaved CbCr in two buffer planes.
pub const PIX_FMT_NV12M: u32 = fourcc(b"NM12");
/// V4L2_PIX_FMT_YUV420 ('YU12') and V4L2_PIX_FMT_NV12: the same in one plane.
pub const PIX_FMT_YUV420: u32 = fourcc(b"YU12");
pub const PIX_FMT_NV12: u32 = fourcc(b"NV12");

/// The source formats that carry `fmt`, the driver's preferred first: hantro
/// (the H1) offers only the multi-planar 4:2:0 ones; a driver may answer with
/// the single-plane one instead.
pub(super) fn source_formats(fmt: PixelFormat) -> Vec<u32> {
    match fmt {
        PixelFormat::I420 => vec![PIX_FMT_YUV420M, PIX_FMT_YUV420],
        PixelFormat::Nv12 => vec![PIX_FMT_NV12M, PIX_FMT_NV12],
        // The packed formats have one V4L2 format each.
        _ => vec![fmt.fourcc()],
    }
}

/// The buffer planes of a source format.
pub(super) fn memory_planes(pixelformat: u32) -> usize {
    match pixelformat {
        PIX_FMT_YUV420M => 3,
        PIX_FMT_NV12M => 2,
        _ => 1,
    }
}

/// A fourcc for messages.
pub fn fourcc_name(f: u32) -> String {
    String::from_utf8_lossy(&f.to_le_bytes()).into_owned()
}

pub(super) fn format_name(fmt: PixelFormat) -> &'static str {
    match fmt {
        PixelFormat::I420 => "I420",
        PixelFormat::Nv12 => "NV12",
        PixelFormat::Yuyv => "YUYV",
        PixelFormat::Uyvy => "UYVY",
        PixelFormat::Rgb565 => "RGB565",
        PixelFormat::Bgrx => "BGRx",
        PixelFormat::Rgbx => "RGBx",
        PixelFormat::Xrgb => "xRGB",
        PixelFormat::Xbgr => "xBGR",
    }
}

impl SourceLayout {
    /// Where a `width`x`height` frame of `fmt` goes in the buffers of the
    /// format VIDIOC_S_FMT returned (`got`, one of [`source_formats`]), or
    /// why that format cannot hold it.
    pub(super) fn new(
        width: u32,
        height: u32,
        fmt: PixelFormat,
        got: &v4l2_pix_format_mplane,
    ) -> Result<Self, String> {
        let (w, h) = (width as usize, height as usize);
        let (pixelformat, num_planes) = (got.pixelformat, got.num_planes as usize);
        let name = fourcc_name(pixelformat);
        let planes = memory_planes(pixelformat);
        if num_planes != planes {
            return Err(format!(
                "its {name} format comes in {num_planes} plane(s), not {planes}"
            ));
        }
        let (gw, gh) = (got.width, got.height);
        if gw < width || gh < height {
            return Err(format!(
                "it allocates {gw}x{gh} {name} pictures for {width}x{height}"
            ));
        }
        let pf = got.plane_fmt;
        let read = fmt.components(read_width(width) as usize, h);
        // (offset in the packed frame, row bytes, rows, unit) of each component.
        let packed: Vec<(usize, usize, usize, usize)> = fmt
            .components(w, h)
            .into_iter()
            .scan(0, |at, (row, rows, unit)| {
                let src = *at;
                *at += row * rows;
                Some((src, row, rows, unit))
            })
            .collect();
        // (plane, offset, stride) of each component.
        let place: Vec<(usize, usize, usize)> = if planes > 1 {
            (0..packed.len())
                .map(|i| (i, 0, pf[i].bytesperline as usize))
                .collect()
        } else {
            // One plane: the chroma follows the allocated luma rows, at half
            // the luma stride for planar 4:2:0 (the V4L2 definition of YU12).
            let (bpl, ah) = (pf[0].bytesperline as usize, gh as usize);
            match fmt {
                PixelFormat::I420 => vec![
                    (0, 0, bpl),
                    (0, bpl * ah, bpl / 2),
                    (0, bpl * ah + bpl / 2 * (ah / 2), bpl / 2),
                ],
                PixelFormat::Nv12 => vec![(0, 0, bpl), (0, bpl * ah, bpl)],
                _ => vec![(0, 0, bpl)],
            }
        };
        let components: Vec<Component> = packed
            .iter()
            .zip(&place)
            .zip(&read)
            .map(
                |(
                    (&(src, row_bytes, rows, unit), &(plane, offset, stride)),
                    &(read_bytes, _, _),
                )| {
                    Component {
                        src,
                        row_bytes,
                        rows,
                        read_bytes,
                        unit,
                        plane,
                        offset,
                        stride,
                    }
                },
            )
            .collect();
        let sizeimage: Vec<u32> = (0..planes).map(|i| pf[i].sizeimage).collect();
        let names: &[&str] = match fmt {
            PixelFormat::I420 => &["Y", "Cb", "Cr"],
            PixelFormat::Nv12 => &["Y", "CbCr"],
            PixelFormat::Yuyv | PixelFormat::Uyvy => &["YCbCr"],
            _ => &["RGB"],
        };
        for (c, comp) in components.iter().zip(names) {
            if c.stride < c.read_bytes {
                return Err(format!(
                    "its {name} format has {} bytes per line for {} bytes of {comp} in plane {}",
                    c.stride, c.read_bytes, c.plane
                ));
            }
            let end = c.offset + c.stride * c.rows.saturating_sub(1) + c.read_bytes;
            let size = sizeimage[c.plane] as usize;
            if end > size {
                return Err(format!(
                    "its {name} format has {size} bytes in plane {} for {end} bytes of picture",
                    c.plane
                ));
            }
        }
        Ok(SourceLayout {
            pixelformat,
            sizeimage,
            components,
        })
    }
}

#[cfg(test)]
mod tests;
