//! The independent decoders a stream is checked with: ffmpeg with strict
//! error detection, or the openh264 decoder in process where there is no
//! ffmpeg; and the PSNR of decoded pictures. `h264enc verify` and the tests
//! use the same functions.

use std::path::Path;
use std::process::Command;

/// Writes `stream` to a temporary .h264 file, runs `f` on its path, removes it.
pub fn with_stream_file(
    stream: &[u8],
    f: impl FnOnce(&Path) -> std::io::Result<std::process::Output>,
) -> Result<std::process::Output, String> {
    let id = format!(
        "h264-reference-decode-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    );
    let dir = std::env::temp_dir().join(id);
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let path = dir.join("s.h264");
    std::fs::write(&path, stream).map_err(|e| e.to_string())?;
    let out = f(&path).map_err(|e| format!("cannot run ffmpeg: {e}"));
    let _ = std::fs::remove_dir_all(&dir);
    out
}

/// True when an ffmpeg binary is on the PATH.
pub fn have_ffmpeg() -> bool {
    Command::new("ffmpeg")
        .arg("-version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

/// Decodes with ffmpeg, `-err_detect explode+aggressive -xerror`; any message is a failure.
/// Returns the frames as I420 at the cropped size, the samples as decoded:
/// a full-range stream is yuvj420p to ffmpeg, which `-pix_fmt yuv420p`
/// would scale to limited range.
pub fn ffmpeg_decode(stream: &[u8]) -> Result<Vec<u8>, String> {
    let out = with_stream_file(stream, |f| {
        Command::new("ffmpeg")
            .args([
                "-nostdin",
                "-v",
                "error",
                "-err_detect",
                "explode+aggressive",
                "-xerror",
            ])
            .args(["-f", "h264", "-i"])
            .arg(f)
            .args(["-vf", "format=pix_fmts=yuv420p|yuvj420p"])
            .args(["-f", "rawvideo", "-"])
            .output()
    })?;
    if !out.status.success() || !out.stderr.is_empty() {
        return Err(format!(
            "ffmpeg rejected the stream (exit {:?}): {}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(out.stdout)
}

/// Decodes with the openh264 decoder in process. Returns I420 frames.
pub fn openh264_decode(stream: &[u8]) -> Result<Vec<u8>, String> {
    use openh264::decoder::Decoder;
    use openh264::formats::YUVSource;
    let mut dec = Decoder::new().map_err(|e| format!("openh264: {e}"))?;
    let mut out = Vec::new();
    let mut push = |y: &openh264::decoder::DecodedYUV| {
        let (w, h) = y.dimensions();
        let (sy, su, sv) = y.strides();
        for r in 0..h {
            out.extend_from_slice(&y.y()[r * sy..r * sy + w]);
        }
        for r in 0..h / 2 {
            out.extend_from_slice(&y.u()[r * su..r * su + w / 2]);
        }
        for r in 0..h / 2 {
            out.extend_from_slice(&y.v()[r * sv..r * sv + w / 2]);
        }
    };
    for nal in openh264::nal_units(stream) {
        match dec.decode(nal) {
            Ok(Some(yuv)) => push(&yuv),
            Ok(None) => {}
            Err(e) => return Err(format!("openh264 rejected a NAL unit: {e}")),
        }
    }
    for yuv in dec
        .flush_remaining()
        .map_err(|e| format!("openh264 flush: {e}"))?
    {
        push(&yuv);
    }
    Ok(out)
}

/// PSNR of the luma of two I420 frame sequences, in dB (99 when identical).
pub fn psnr_y(a: &[u8], b: &[u8], width: usize, height: usize) -> f64 {
    let fl = width * height * 3 / 2;
    let frames = (a.len() / fl).min(b.len() / fl);
    let mut se = 0f64;
    for f in 0..frames {
        let (x, y) = (
            &a[f * fl..f * fl + width * height],
            &b[f * fl..f * fl + width * height],
        );
        se += x
            .iter()
            .zip(y)
            .map(|(p, q)| ((*p as f64) - (*q as f64)).powi(2))
            .sum::<f64>();
    }
    let mse = se / (frames * width * height).max(1) as f64;
    if mse == 0.0 {
        99.0
    } else {
        10.0 * (255.0 * 255.0 / mse).log10()
    }
}
