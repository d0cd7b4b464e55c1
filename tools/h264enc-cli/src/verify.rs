//! `h264enc verify`: independent decode, comparison with the reconstruction,
//! and the HRD check.

/// Checks a stream; returns a report, or what failed and where.
pub fn run(path: &str, recon: Option<&str>, hrd: bool) -> Result<String, String> {
    let stream = std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    let mut report = String::new();
    let (decoded, decoder) = if h264_oracle::have_ffmpeg() {
        (
            h264_oracle::ffmpeg_decode(&stream).map_err(|e| format!("{path}: {e}"))?,
            "ffmpeg (-err_detect explode+aggressive)",
        )
    } else {
        (
            h264_oracle::openh264_decode(&stream).map_err(|e| format!("{path}: {e}"))?,
            "openh264 (in process)",
        )
    };
    report += &format!(
        "verify: {path}: decodes cleanly with {decoder}, {} bytes of pictures\n",
        decoded.len()
    );
    if let Some(r) = recon {
        let rec = std::fs::read(r).map_err(|e| format!("cannot read {r}: {e}"))?;
        if rec != decoded {
            let at = rec.iter().zip(&decoded).position(|(a, b)| a != b);
            return Err(match at {
                Some(i) => format!("verify: {path}: decoded pictures differ from {r} at byte {i}"),
                None => format!(
                    "verify: {path}: {} decoded bytes, {} in {r}",
                    decoded.len(),
                    rec.len()
                ),
            });
        }
        report += &format!("verify: decoded pictures == {r}, byte for byte\n");
    }
    if hrd {
        let h = crate::hrd::check(&stream).map_err(|e| format!("verify: {path}: HRD: {e}"))?;
        let (rate, size, cbr) = h.signalled.unwrap_or_default();
        if !h.underflows.is_empty() || !h.overflows.is_empty() {
            return Err(format!(
                "verify: {path}: HRD ({} {:.0} b/s, CPB {:.0} bits) violated: underflow at access units {:?}, overflow at {:?}",
                if cbr { "CBR" } else { "VBR" },
                rate,
                size,
                &h.underflows[..h.underflows.len().min(10)],
                &h.overflows[..h.overflows.len().min(10)]
            ));
        }
        report += &format!(
            "verify: HRD conforms: {} access units, {} {:.0} b/s, CPB {:.0} bits, fullness {:.0}..{:.0} bits\n",
            h.access_units,
            if cbr { "CBR" } else { "VBR" },
            rate,
            size,
            h.fullness.iter().cloned().fold(f64::MAX, f64::min),
            h.fullness.iter().cloned().fold(0.0, f64::max)
        );
    }
    Ok(report)
}
