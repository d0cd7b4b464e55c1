//! Independent checks of H.264 streams: decoding with ffmpeg (strict error
//! detection) and with the openh264 decoder in process, and the test clips of
//! `tools/testing/content/make-clip.sh`.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Returns the path of a generated clip (I420 raw, or Y4M when `y4m`).
pub fn clip_with(
    name: &str,
    w: usize,
    h: usize,
    frames: usize,
    y4m: bool,
) -> Result<PathBuf, String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../content/make-clip.sh");
    let fmt = if y4m { "y4m" } else { "yuv" };
    let out = Command::new(script)
        .args([name, &format!("{w}x{h}"), &frames.to_string(), fmt])
        .output()
        .map_err(|e| format!("cannot run make-clip.sh: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "make-clip.sh {name} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
}

/// Returns the frames of a generated I420 clip.
pub fn clip(name: &str, w: usize, h: usize, frames: usize) -> Vec<u8> {
    let p = clip_with(name, w, h, frames, false).unwrap_or_else(|e| panic!("{e}"));
    std::fs::read(p).expect("read clip")
}

/// An I420 frame as packed 4:2:2 (YUYV, or UYVY with `uyvy`) whose two
/// rows of each chroma pair repeat the 4:2:0 row: a reader that averages
/// row pairs gets the I420 frame back.
pub fn i420_to_packed_422(frame: &[u8], w: usize, h: usize, uyvy: bool) -> Vec<u8> {
    let (y, c) = frame.split_at(w * h);
    let (cb, cr) = c.split_at(w * h / 4);
    let mut out = Vec::with_capacity(w * h * 2);
    for r in 0..h {
        for x in (0..w).step_by(2) {
            let k = (r / 2) * (w / 2) + x / 2;
            let (y0, y1) = (y[r * w + x], y[r * w + x + 1]);
            out.extend_from_slice(&if uyvy {
                [cb[k], y0, cr[k], y1]
            } else {
                [y0, cb[k], y1, cr[k]]
            });
        }
    }
    out
}

/// Writes `stream` to a temporary .h264 file, runs `f` on its path, removes it.
fn with_stream_file(
    stream: &[u8],
    f: impl FnOnce(&Path) -> std::io::Result<std::process::Output>,
) -> Result<std::process::Output, String> {
    let id = format!(
        "h264-oracle-{}-{:?}",
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
/// Returns the frames as I420 at the cropped size.
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
            .args(["-f", "rawvideo", "-pix_fmt", "yuv420p", "-"])
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

/// Describes where two frame sequences first differ, for messages.
pub fn first_diff(a: &[u8], b: &[u8], frame_len: usize) -> String {
    match a.iter().zip(b).position(|(x, y)| x != y) {
        Some(i) => format!(
            "first difference at byte {i} (frame {}, offset {})",
            i / frame_len.max(1),
            i % frame_len.max(1)
        ),
        None => format!("lengths differ: {} vs {} bytes", a.len(), b.len()),
    }
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

/// Syntax elements of a stream as ffmpeg's `trace_headers` bitstream filter
/// reads them: (name, value) in stream order, from an independent parser.
pub fn trace_headers(stream: &[u8]) -> Result<Vec<(String, i64)>, String> {
    let out = with_stream_file(stream, |f| {
        Command::new("ffmpeg")
            .args(["-nostdin", "-f", "h264", "-i"])
            .arg(f)
            .args(["-c", "copy", "-bsf:v", "trace_headers", "-f", "null", "-"])
            .output()
    })?;
    if !out.status.success() {
        return Err(format!(
            "ffmpeg trace_headers failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let mut v = Vec::new();
    for line in String::from_utf8_lossy(&out.stderr).lines() {
        // "[trace_headers @ 0x..] 24          level_idc        00001100 = 12"
        let Some(rest) = line
            .strip_prefix("[trace_headers @ ")
            .and_then(|l| l.split_once("] "))
            .map(|x| x.1)
        else {
            continue;
        };
        let mut words = rest.split_whitespace();
        let (Some(pos), Some(name)) = (words.next(), words.next()) else {
            continue;
        };
        if pos.parse::<u64>().is_err() {
            continue;
        }
        let Some(value) = rest
            .rsplit_once(" = ")
            .and_then(|(_, x)| x.trim().parse::<i64>().ok())
        else {
            continue;
        };
        v.push((name.to_string(), value));
    }
    Ok(v)
}
