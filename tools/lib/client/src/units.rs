//! Parsing of command-line quantities.

/// Parses a bit rate: a number with an optional k or M suffix (bits/s).
pub fn parse_bitrate(s: &str) -> Result<u64, String> {
    let (num, mul) = match s.strip_suffix(['k', 'K']) {
        Some(n) => (n, 1_000.0),
        None => match s.strip_suffix('M') {
            Some(n) => (n, 1_000_000.0),
            None => (s, 1.0),
        },
    };
    let v: f64 = num
        .parse()
        .map_err(|_| format!("'{s}' is not a bit rate (examples: 800000, 800k, 2.5M)"))?;
    let bits = (v * mul).round();
    if !(1000.0..=400e6).contains(&bits) {
        return Err(format!("bit rate {s} is outside 1k..400M"));
    }
    Ok(bits as u64)
}

/// Parses --bitrate-at N:RATE: a frame number and a bit rate.
pub fn parse_bitrate_at(s: &str) -> Result<(u64, u64), String> {
    let (n, rate) = s
        .split_once(':')
        .ok_or_else(|| format!("'{s}' is not N:RATE (example: 30:500k)"))?;
    let n = n
        .parse()
        .map_err(|_| format!("'{n}' in '{s}' is not a frame number"))?;
    Ok((n, parse_bitrate(rate)?))
}

/// CPB size: milliseconds at the peak rate, or bits with a k/M suffix.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CpbSize {
    Millis(u64),
    Bits(u64),
}

impl CpbSize {
    /// Size in bits for a peak bit rate.
    pub fn bits(self, peak: u64) -> u64 {
        match self {
            CpbSize::Millis(ms) => peak * ms / 1000,
            CpbSize::Bits(b) => b,
        }
    }
}

/// Parses --cpb-size: a bare number is milliseconds, a k/M suffix means bits.
pub fn parse_cpb(s: &str) -> Result<CpbSize, String> {
    if s.ends_with(['k', 'K', 'M']) {
        let (num, mul) = match s.strip_suffix('M') {
            Some(n) => (n, 1_000_000.0),
            None => (&s[..s.len() - 1], 1_000.0),
        };
        let v: f64 = num
            .parse()
            .map_err(|_| format!("'{s}' is not a CPB size"))?;
        return Ok(CpbSize::Bits((v * mul).round() as u64));
    }
    let ms: u64 = s
        .parse()
        .map_err(|_| format!("'{s}' is not a CPB size (milliseconds, or bits with k/M)"))?;
    if ms == 0 || ms > 60_000 {
        return Err(format!("CPB size {ms} ms is outside 1..60000"));
    }
    Ok(CpbSize::Millis(ms))
}

/// Parses WxH.
pub fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("'{s}' is not a size WxH"))?;
    let w: u32 = w.parse().map_err(|_| format!("'{s}' is not a size WxH"))?;
    let h: u32 = h.parse().map_err(|_| format!("'{s}' is not a size WxH"))?;
    if w == 0 || h == 0 {
        return Err(format!("size {s} has a zero side"));
    }
    Ok((w, h))
}

/// Parses N or N/D frames per second.
pub fn parse_fps(s: &str) -> Result<(u32, u32), String> {
    let (n, d) = s.split_once('/').unwrap_or((s, "1"));
    let n: u32 = n
        .parse()
        .map_err(|_| format!("'{s}' is not a frame rate (N or N/D)"))?;
    let d: u32 = d
        .parse()
        .map_err(|_| format!("'{s}' is not a frame rate (N or N/D)"))?;
    if n == 0 || d == 0 {
        return Err(format!("frame rate {s} is zero"));
    }
    Ok((n, d))
}
