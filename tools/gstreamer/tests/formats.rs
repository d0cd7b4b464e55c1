//! The element's source formats: NV12, packed 4:2:2 and RGB against I420,
//! and a width the H1 reads wider; every stream is decoded by ffmpeg.

mod common;

use common::*;
use std::process::Command;

#[test]
fn nv12_input_codes_the_same_pictures_as_i420() {
    let (w, h) = (176, 144);
    let clip = h264_oracle::clip("meadow", w, h, 10);
    let i420: Vec<Vec<u8>> = clip.chunks(w * h * 3 / 2).map(<[u8]>::to_vec).collect();
    let nv12: Vec<Vec<u8>> = i420
        .iter()
        .map(|f| {
            let (y, c) = f.split_at(w * h);
            let (u, v) = c.split_at(w * h / 4);
            let mut o = y.to_vec();
            for (a, b) in u.iter().zip(v) {
                o.extend_from_slice(&[*a, *b]);
            }
            o
        })
        .collect();
    let props = [("rate-control", "cqp"), ("quantizer", "28")];
    let a = stream(w, h, "I420", &i420, &props);
    let b = stream(w, h, "NV12", &nv12, &props);
    assert!(a == b, "NV12 and I420 streams differ");
    assert_eq!(
        h264_oracle::ffmpeg_decode(&a).unwrap().len(),
        w * h * 3 / 2 * 10
    );
}

#[test]
fn packed_422_input_codes_the_same_pictures_as_i420() {
    // YUY2 and UYVY frames whose chroma rows repeat the I420 clip's: the
    // H1 averages each pair of rows, so it codes the I420 pictures, and the
    // streams are the same bytes.
    let (w, h) = (176, 144);
    let clip = h264_oracle::clip("meadow", w, h, 6);
    let i420: Vec<Vec<u8>> = clip.chunks(w * h * 3 / 2).map(<[u8]>::to_vec).collect();
    let props = [("rate-control", "cqp"), ("quantizer", "28")];
    let a = stream(w, h, "I420", &i420, &props);
    for (format, uyvy) in [("YUY2", false), ("UYVY", true)] {
        let packed: Vec<Vec<u8>> = i420
            .iter()
            .map(|f| h264_oracle::i420_to_packed_422(f, w, h, uyvy))
            .collect();
        let b = stream(w, h, format, &packed, &props);
        assert!(a == b, "{format} and I420 streams differ");
    }
}

#[test]
fn rgb_input_is_converted_to_full_range_bt601() {
    // The same pictures in the four 32-bit orders give the same stream,
    // whose decode is ffmpeg's own full-range BT.601 conversion of them,
    // within coding noise; RGB16 (RGB565) codes those pictures too.
    let (w, h) = (176, 144);
    let clip = h264_oracle::clip("meadow", w, h, 4);
    let props = [("rate-control", "cqp"), ("quantizer", "16")];
    let frames = |ffmpeg: &str, bpp: usize| -> Vec<Vec<u8>> {
        let rgb = h264_oracle::i420_to_rgb(&clip, w, h, ffmpeg).unwrap();
        rgb.chunks(w * h * bpp).map(<[u8]>::to_vec).collect()
    };
    let bgrx_frames = frames("bgr0", 4);
    let bgrx = stream(w, h, "BGRx", &bgrx_frames, &props);
    // The other orders of the same pixels (ffmpeg's conversions to them
    // round differently, so they are made by moving the bytes).
    for (format, order) in [
        ("RGBx", [2, 1, 0, 3]),
        ("xRGB", [3, 2, 1, 0]),
        ("xBGR", [3, 0, 1, 2]),
    ] {
        let moved: Vec<Vec<u8>> = bgrx_frames
            .iter()
            .map(|f| f.chunks(4).flat_map(|p| order.map(|k| p[k])).collect())
            .collect();
        let other = stream(w, h, format, &moved, &props);
        assert!(other == bgrx, "{format} and BGRx streams differ");
    }
    let dec = h264_oracle::ffmpeg_decode(&bgrx).unwrap();
    let rgb = tmp("element-rgb.bgr0");
    std::fs::write(&rgb, bgrx_frames.concat()).unwrap();
    let out = Command::new("ffmpeg")
        .args([
            "-v", "error", "-f", "rawvideo", "-pix_fmt", "bgr0", "-s", "176x144", "-i",
        ])
        .arg(&rgb)
        .args(["-vf", "scale=out_color_matrix=bt601:out_range=full"])
        .args(["-pix_fmt", "yuvj420p", "-f", "rawvideo", "-"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let psnr = h264_oracle::psnr_y(&dec, &out.stdout, w, h);
    assert!(
        psnr > 40.0,
        "BGRx: PSNR-Y {psnr:.2} dB against ffmpeg's conversion"
    );
    let rgb16 = stream(w, h, "RGB16", &frames("rgb565le", 2), &props);
    let dec16 = h264_oracle::ffmpeg_decode(&rgb16).unwrap();
    let psnr = h264_oracle::psnr_y(&dec16, &dec, w, h);
    assert!(
        psnr > 35.0,
        "RGB16: PSNR-Y {psnr:.2} dB against the BGRx decode"
    );
}

#[test]
fn an_even_width_the_h1_reads_wider_decodes_to_that_size() {
    // 630x270: the H1 reads 632 columns (its overfill counts 4 pixels), the
    // element pads its rows, the SPS crops to 630. GStreamer's I420 rows
    // are 4-byte aligned (632 and 316 bytes): the frames are laid out so.
    init();
    let (w, h) = (630usize, 270usize);
    let clip = h264_oracle::clip("testsrc2", w, h, 3);
    let info = gst_video::VideoInfo::builder(gst_video::VideoFormat::I420, w as u32, h as u32)
        .build()
        .unwrap();
    let frames: Vec<Vec<u8>> = clip
        .chunks(w * h * 3 / 2)
        .map(|f| {
            let mut out = vec![0u8; info.size()];
            let mut src = f;
            for (p, (cw, ch)) in [(w, h), (w / 2, h / 2), (w / 2, h / 2)]
                .into_iter()
                .enumerate()
            {
                let (off, stride) = (info.offset()[p], info.stride()[p] as usize);
                for r in 0..ch {
                    out[off + r * stride..][..cw].copy_from_slice(&src[..cw]);
                    src = &src[cw..];
                }
            }
            out
        })
        .collect();
    let props = [("rate-control", "cqp"), ("quantizer", "30")];
    let coded = stream(w, h, "I420", &frames, &props);
    let dec = h264_oracle::ffmpeg_decode(&coded).unwrap();
    assert_eq!(dec.len(), w * h * 3 / 2 * 3);
    // The pictures are the clip's, coded well (PSNR-Y of a QP 30 stream).
    let psnr = h264_oracle::psnr_y(&clip, &dec, w, h);
    assert!(
        psnr > 35.0,
        "PSNR-Y {psnr} dB: the element read the rows wrong"
    );
}
