//! `h264enc verify`: independent decode, comparison with the reconstruction,
//! and the HRD check.

/// A CBR HRD to hold a stream that signals none to: bits/s, CPB bits,
/// pictures per second (`verify --assume-hrd`).
pub type AssumedHrd = (f64, f64, f64);

/// Checks a stream; returns a report, or what failed and where.
pub fn run(
    path: &str,
    recon: Option<&str>,
    hrd: bool,
    assumed: Option<AssumedHrd>,
) -> Result<String, String> {
    let stream = std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    let mut report = String::new();
    let (decoded, decoder) = if h264_reference_decode::have_ffmpeg() {
        (
            h264_reference_decode::ffmpeg_decode(&stream).map_err(|e| format!("{path}: {e}"))?,
            "ffmpeg (-err_detect explode+aggressive)",
        )
    } else {
        (
            h264_reference_decode::openh264_decode(&stream).map_err(|e| format!("{path}: {e}"))?,
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
        let h = match assumed {
            Some((rate, cpb, fps)) if !crate::hrd::signals(&stream) => {
                crate::hrd::check_assumed(&stream, rate, cpb, fps)
            }
            _ => crate::hrd::check(&stream).map_err(|e| format!("verify: {path}: HRD: {e}"))?,
        };
        let (rate, size, cbr) = h.signalled.unwrap_or_default();
        if !h.underflows.is_empty() || !h.overflows.is_empty() {
            return Err(format!(
                "verify: {path}: HRD ({} {:.0} b/s, CPB {:.0} bits) violated: underflow at {} access units {:?}, overflow at {} {:?}",
                if cbr { "CBR" } else { "VBR" },
                rate,
                size,
                h.underflows.len(),
                &h.underflows[..h.underflows.len().min(20)],
                h.overflows.len(),
                &h.overflows[..h.overflows.len().min(20)]
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

/// With temporal layers: each proper prefix of layers decodes on its own,
/// its pictures equal their frames of `recon`, and with `hrd` and a split
/// it meets its share of the HRD.
pub fn prefixes(
    path: &str,
    recon: Option<&str>,
    hrd: bool,
    layers: u8,
    split: Option<&[u32]>,
) -> Result<String, String> {
    if split.is_some_and(|s| s.len() != usize::from(layers) || s.iter().sum::<u32>() != 100) {
        return Err(format!(
            "--layer-split needs {layers} percentages that add up to 100"
        ));
    }
    if layers < 2 {
        return Ok(String::new());
    }
    let stream = std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    let rec = match recon {
        Some(r) => Some(std::fs::read(r).map_err(|e| format!("cannot read {r}: {e}"))?),
        None => None,
    };
    let layer_of = crate::layers::layer_of_access_units(&stream, layers);
    let mut report = String::new();
    for k in 0..layers - 1 {
        let (sub, kept) = crate::layers::prefix(&stream, &layer_of, k);
        let decoded = h264_reference_decode::ffmpeg_decode(&sub)
            .map_err(|e| format!("verify: {path}: layers 0..{k} alone: {e}"))?;
        report += &format!(
            "verify: layers 0..{k} alone ({} of {} access units) decode cleanly",
            kept.len(),
            layer_of.len()
        );
        if let Some(rec) = &rec {
            let frame = rec.len() / layer_of.len().max(1);
            let want: Vec<u8> = kept
                .iter()
                .flat_map(|&i| rec[i * frame..(i + 1) * frame].iter().copied())
                .collect();
            if want != decoded {
                return Err(format!(
                    "verify: {path}: layers 0..{k} alone decode to other pictures than their frames of the reconstruction"
                ));
            }
            report += " and equal their frames of the reconstruction";
        }
        report += "\n";
        if let (true, Some(split)) = (hrd, split) {
            let share = f64::from(split[..=usize::from(k)].iter().sum::<u32>()) / 100.0;
            let h = crate::hrd::check_share(&sub, share)
                .map_err(|e| format!("verify: {path}: layers 0..{k}: HRD: {e}"))?;
            let (rate, size, _) = h.signalled.unwrap_or_default();
            if !h.underflows.is_empty() || !h.overflows.is_empty() {
                return Err(format!(
                    "verify: {path}: layers 0..{k} break their HRD (VBR {rate:.0} b/s, CPB {size:.0} bits): underflow at their access units {:?}, overflow at {:?}",
                    &h.underflows[..h.underflows.len().min(10)],
                    &h.overflows[..h.overflows.len().min(10)]
                ));
            }
            report += &format!(
                "verify: layers 0..{k} meet their HRD: VBR {rate:.0} b/s, CPB {size:.0} bits ({:.0} % of the stream's)\n",
                share * 100.0
            );
        }
    }
    Ok(report)
}
