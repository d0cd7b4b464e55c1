//! Tests of the source layout.

use super::*;

fn pix(pixelformat: u32, w: u32, h: u32, planes: &[(u32, u32)]) -> v4l2_pix_format_mplane {
    let mut p = v4l2_pix_format_mplane {
        width: w,
        height: h,
        pixelformat,
        num_planes: planes.len() as u8,
        ..Default::default()
    };
    for (i, &(bpl, size)) in planes.iter().enumerate() {
        p.plane_fmt[i].bytesperline = bpl;
        p.plane_fmt[i].sizeimage = size;
    }
    p
}

fn places(l: &SourceLayout) -> Vec<(usize, usize, usize)> {
    l.components
        .iter()
        .map(|c| (c.plane, c.offset, c.stride))
        .collect()
}

/// hantro's multi-planar answers for 200x120 (coded 208x128): each
/// component in its own plane at that plane's bytes per line.
#[test]
fn multi_planar_sources_put_each_component_in_its_plane() {
    let ym12 = pix(
        PIX_FMT_YUV420M,
        208,
        128,
        &[(208, 208 * 128), (104, 104 * 64), (104, 104 * 64)],
    );
    let l = SourceLayout::new(200, 120, PixelFormat::I420, &ym12).unwrap();
    assert_eq!(places(&l), [(0, 0, 208), (1, 0, 104), (2, 0, 104)]);
    assert_eq!(l.sizeimage, [208 * 128, 104 * 64, 104 * 64]);
    let src: Vec<(usize, usize, usize)> = l
        .components
        .iter()
        .map(|c| (c.src, c.row_bytes, c.rows))
        .collect();
    assert_eq!(src, [(0, 200, 120), (24000, 100, 60), (30000, 100, 60)]);
    let nm12 = pix(
        PIX_FMT_NV12M,
        208,
        128,
        &[(208, 208 * 128), (208, 208 * 64)],
    );
    let l = SourceLayout::new(200, 120, PixelFormat::Nv12, &nm12).unwrap();
    assert_eq!(places(&l), [(0, 0, 208), (1, 0, 208)]);
}

/// A driver that answers with the single-plane format: the chroma
/// follows the allocated luma rows in the one plane.
#[test]
fn single_plane_sources_put_the_chroma_after_the_luma() {
    let yu12 = pix(PIX_FMT_YUV420, 208, 128, &[(208, 208 * 128 * 3 / 2)]);
    let l = SourceLayout::new(200, 120, PixelFormat::I420, &yu12).unwrap();
    let y = 208 * 128;
    assert_eq!(
        places(&l),
        [(0, 0, 208), (0, y, 104), (0, y + 104 * 64, 104)]
    );
    let nv12 = pix(PIX_FMT_NV12, 208, 128, &[(208, 208 * 128 * 3 / 2)]);
    let l = SourceLayout::new(200, 120, PixelFormat::Nv12, &nv12).unwrap();
    assert_eq!(places(&l), [(0, 0, 208), (0, y, 208)]);
}

/// Formats that cannot hold the frame are refused, saying why.
#[test]
fn unusable_source_formats_are_refused() {
    let full = [(176, 176 * 144), (88, 88 * 72), (88, 88 * 72)];
    for (p, why) in [
        (
            pix(PIX_FMT_YUV420M, 176, 144, &full[..1]),
            "YM12 format comes in 1 plane(s), not 3",
        ),
        (pix(PIX_FMT_YUV420M, 160, 144, &full), "allocates 160x144"),
        (
            pix(
                PIX_FMT_YUV420M,
                176,
                144,
                &[full[0], (80, 80 * 72), full[2]],
            ),
            "80 bytes per line for 88 bytes of Cb in plane 1",
        ),
        (
            pix(
                PIX_FMT_YUV420M,
                176,
                144,
                &[full[0], full[1], (88, 88 * 71)],
            ),
            "6248 bytes in plane 2 for 6336",
        ),
    ] {
        let e = SourceLayout::new(176, 144, PixelFormat::I420, &p).unwrap_err();
        assert!(e.contains(why), "{e}");
    }
}
