//! Independent checks of H.264 streams for tests: the decoders and PSNR of
//! `h264-reference-decode`, ffmpeg's syntax trace, and the test clips of
//! `tools/testing/content/make-clip.sh`.

use h264_reference_decode::with_stream_file;
pub use h264_reference_decode::{ffmpeg_decode, have_ffmpeg, openh264_decode, psnr_y};
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

/// I420 frames as ffmpeg converts them to the RGB format `pix_fmt` (its
/// name: `rgb565le`, `bgr0`, ...): sources for the H1's RGB input that no
/// code under test made.
pub fn i420_to_rgb(frames: &[u8], w: usize, h: usize, pix_fmt: &str) -> Result<Vec<u8>, String> {
    use std::io::Write;
    let mut child = Command::new("ffmpeg")
        .args(["-v", "error", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s"])
        .arg(format!("{w}x{h}"))
        .args(["-i", "-", "-f", "rawvideo", "-pix_fmt", pix_fmt, "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run ffmpeg: {e}"))?;
    let mut stdin = child.stdin.take().ok_or("ffmpeg has no stdin")?;
    let input = frames.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    let _ = writer.join();
    if !out.status.success() {
        return Err(format!(
            "ffmpeg to {pix_fmt}: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(out.stdout)
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
