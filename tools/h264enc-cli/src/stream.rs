//! Splitting an Annex B byte stream into NAL units and access units.

/// One NAL unit: its type and bytes (start code excluded, still escaped).
pub struct Nal<'a> {
    pub nal_type: u8,
    pub data: &'a [u8],
    /// Offset of the start code in the stream.
    pub offset: usize,
}

/// Splits an Annex B stream at its start codes.
pub fn nal_units(s: &[u8]) -> Vec<Nal<'_>> {
    let mut starts = Vec::new();
    let mut i = 0;
    while i + 3 <= s.len() {
        if s[i] == 0 && s[i + 1] == 0 && s[i + 2] == 1 {
            let sc = if i > 0 && s[i - 1] == 0 { i - 1 } else { i };
            starts.push((sc, i + 3));
            i += 3;
        } else {
            i += 1;
        }
    }
    let mut out = Vec::new();
    for (k, &(sc, body)) in starts.iter().enumerate() {
        let end = starts.get(k + 1).map_or(s.len(), |n| n.0);
        let data = &s[body..end];
        if let Some(&h) = data.first() {
            out.push(Nal {
                nal_type: h & 0x1f,
                data,
                offset: sc,
            });
        }
    }
    out
}

/// An access unit: a range of NAL units and its size in bytes, start codes included.
pub struct AccessUnit {
    pub first: usize,
    pub end: usize,
    pub bytes: usize,
}

/// Groups NAL units into access units (7.4.1.2.3): a new one starts at an AUD,
/// SPS, PPS or SEI after a slice, or at a slice with first_mb_in_slice == 0.
pub fn access_units(stream: &[u8], nals: &[Nal]) -> Vec<AccessUnit> {
    let mut aus: Vec<AccessUnit> = Vec::new();
    let mut start = 0;
    let mut seen_vcl = false;
    for (i, n) in nals.iter().enumerate() {
        let vcl = n.nal_type == 1 || n.nal_type == 5;
        let first_mb_zero = vcl && n.data.get(1).is_some_and(|b| b & 0x80 != 0);
        let boundary = seen_vcl && (matches!(n.nal_type, 6..=9 | 14..=18) || first_mb_zero);
        if boundary {
            aus.push(AccessUnit {
                first: start,
                end: i,
                bytes: 0,
            });
            start = i;
            seen_vcl = false;
        }
        seen_vcl |= vcl;
    }
    if start < nals.len() {
        aus.push(AccessUnit {
            first: start,
            end: nals.len(),
            bytes: 0,
        });
    }
    for au in aus.iter_mut() {
        let from = nals[au.first].offset;
        let to = nals.get(au.end).map_or(stream.len(), |n| n.offset);
        au.bytes = to - from;
    }
    aus
}

/// Removes emulation prevention bytes.
pub fn rbsp(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0u8; data.len()];
    let n = h264enc::bitstream::emulation::unescape_prefix(data, &mut out).unwrap_or(0);
    out.truncate(n);
    out
}
