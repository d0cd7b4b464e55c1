//! An Annex C check of a stream against the HRD it signals: SPS VUI NAL HRD
//! parameters, buffering-period and picture-timing SEI, access unit sizes.

use crate::stream::{access_units, nal_units, rbsp};
use h264enc::bitstream::BitReader;

/// What the stream signals.
#[derive(Clone, Copy, Debug)]
pub struct Signalled {
    pub bit_rate: f64,
    pub cpb_size: f64,
    pub cbr: bool,
    /// Seconds per clock tick.
    pub tick: f64,
    /// Bits of initial_cpb_removal_delay (buffering period SEI).
    pub initial_len: u32,
    /// Bits of cpb_removal_delay (picture timing SEI).
    pub removal_len: u32,
}

/// Result of the check.
#[derive(Debug, Default)]
pub struct HrdReport {
    pub access_units: usize,
    pub underflows: Vec<usize>,
    pub overflows: Vec<usize>,
    /// Fullness just before each removal, bits.
    pub fullness: Vec<f64>,
    pub signalled: Option<(f64, f64, bool)>,
}

fn parse_hrd(sps_rbsp: &[u8]) -> Result<Option<Signalled>, String> {
    use h264_reader::nal::sps::SeqParameterSet;
    use h264_reader::rbsp::BitReader as HrBitReader;
    let sps = SeqParameterSet::from_bits(HrBitReader::new(sps_rbsp))
        .map_err(|e| format!("SPS does not parse: {e:?}"))?;
    let Some(vui) = sps.vui_parameters else {
        return Ok(None);
    };
    let (Some(timing), Some(hrd)) = (vui.timing_info, vui.nal_hrd_parameters) else {
        return Ok(None);
    };
    let cpb = hrd.cpb_specs.first().ok_or("NAL HRD without a CPB")?;
    let bit_rate = (u64::from(cpb.bit_rate_value_minus1) + 1) << (6 + hrd.bit_rate_scale);
    let cpb_size = (u64::from(cpb.cpb_size_value_minus1) + 1) << (4 + hrd.cpb_size_scale);
    Ok(Some(Signalled {
        bit_rate: bit_rate as f64,
        cpb_size: cpb_size as f64,
        cbr: cpb.cbr_flag,
        tick: f64::from(timing.num_units_in_tick) / f64::from(timing.time_scale),
        initial_len: u32::from(hrd.initial_cpb_removal_delay_length_minus1) + 1,
        removal_len: u32::from(hrd.cpb_removal_delay_length_minus1) + 1,
    }))
}

/// (initial_cpb_removal_delay, cpb_removal_delay) from an SEI NAL unit.
fn parse_sei(payload: &[u8], initial_len: u32, removal_len: u32) -> (Option<u32>, Option<u32>) {
    let mut bp = None;
    let mut pt = None;
    let mut i = 0;
    while i + 2 <= payload.len() && payload[i] != 0x80 {
        let mut t = 0u32;
        while payload.get(i) == Some(&0xff) {
            t += 255;
            i += 1;
        }
        t += u32::from(*payload.get(i).unwrap_or(&0));
        i += 1;
        let mut s = 0usize;
        while payload.get(i) == Some(&0xff) {
            s += 255;
            i += 1;
        }
        s += usize::from(*payload.get(i).unwrap_or(&0));
        i += 1;
        let body = payload.get(i..i + s).unwrap_or(&[]);
        let mut r = BitReader::new(body);
        match t {
            0 => {
                let _ = r.ue();
                bp = r.bits(initial_len).ok();
            }
            1 => pt = r.bits(removal_len).ok(),
            _ => {}
        }
        i += s;
    }
    (bp, pt)
}

/// The stream's SPS signals NAL HRD parameters.
pub fn signals(stream: &[u8]) -> bool {
    nal_units(stream)
        .iter()
        .find(|n| n.nal_type == 7)
        .is_some_and(|sps| matches!(parse_hrd(&rbsp(&sps.data[1..])), Ok(Some(_))))
}

/// Checks `stream` against the HRD it signals. Err when it signals none.
pub fn check(stream: &[u8]) -> Result<HrdReport, String> {
    check_share(stream, 1.0)
}

/// Checks `stream`, a prefix of temporal layers, against `share` of the HRD
/// it signals: that share of the bit rate and the CPB, variable rate (its
/// bits do not arrive at a constant rate), the removal times as signalled.
pub fn check_share(stream: &[u8], share: f64) -> Result<HrdReport, String> {
    let nals = nal_units(stream);
    let sps = nals
        .iter()
        .find(|n| n.nal_type == 7)
        .ok_or("no SPS in the stream")?;
    let mut sig = parse_hrd(&rbsp(&sps.data[1..]))?
        .ok_or("the SPS signals no NAL HRD (timing and nal_hrd_parameters)")?;
    if share < 1.0 {
        sig.bit_rate *= share;
        sig.cpb_size *= share;
        sig.cbr = false;
    }
    let aus = access_units(stream, &nals);
    let mut rep = HrdReport {
        access_units: aus.len(),
        signalled: Some((sig.bit_rate, sig.cpb_size, sig.cbr)),
        ..Default::default()
    };
    let (mut t_r_nb, mut t_af_prev) = (0f64, 0f64);
    let mut init_delay = 0f64;
    // First the removal time and arrival interval of every access unit (C.1.2, C.1.1)...
    let mut sched: Vec<(f64, f64, f64, f64)> = Vec::with_capacity(aus.len());
    for (n, au) in aus.iter().enumerate() {
        let mut bp = None;
        let mut pt = None;
        for nal in &nals[au.first..au.end] {
            if nal.nal_type == 6 {
                let (b, p) = parse_sei(&rbsp(&nal.data[1..]), sig.initial_len, sig.removal_len);
                bp = bp.or(b);
                pt = pt.or(p);
            }
        }
        if n == 0 && bp.is_none() {
            return Err("the first access unit has no buffering period SEI".into());
        }
        let bits = au.bytes as f64 * 8.0;
        let t_r = if n == 0 {
            f64::from(bp.unwrap_or(0)) / 90000.0
        } else {
            let d = pt.ok_or_else(|| format!("access unit {n} has no picture timing SEI"))?;
            t_r_nb + sig.tick * f64::from(d)
        };
        if let Some(d) = bp {
            init_delay = f64::from(d) / 90000.0;
            t_r_nb = t_r;
        }
        let t_ai = if n == 0 {
            0.0
        } else if sig.cbr {
            t_af_prev
        } else {
            t_af_prev.max(t_r - init_delay)
        };
        let t_af = t_ai + bits / sig.bit_rate;
        sched.push((t_ai, t_af, t_r, bits));
        t_af_prev = t_af;
    }
    judge(&mut rep, &sched, sig.cbr, sig.cpb_size);
    Ok(rep)
}

/// Checks `stream`, which signals no HRD, against a VBR HRD (`cbr_flag` 0)
/// of `bit_rate` and `cpb_size` that removes a picture every `1 / fps`
/// seconds from the time the CPB is first full: the buffer model (a VBV) of
/// an encoder that was told a rate and a buffer and signals neither. Arrival
/// pauses when the buffer is full, so only underflows break it.
pub fn check_assumed(stream: &[u8], bit_rate: f64, cpb_size: f64, fps: f64) -> HrdReport {
    let nals = nal_units(stream);
    let aus = access_units(stream, &nals);
    let mut rep = HrdReport {
        access_units: aus.len(),
        signalled: Some((bit_rate, cpb_size, false)),
        ..Default::default()
    };
    let init = cpb_size / bit_rate;
    let mut t_af_prev = 0f64;
    let sched: Vec<(f64, f64, f64, f64)> = aus
        .iter()
        .enumerate()
        .map(|(n, au)| {
            let bits = au.bytes as f64 * 8.0;
            let t_r = init + n as f64 / fps;
            // C.1.2 with cbr_flag 0: no earlier than the initial delay
            // before its removal.
            let t_ai = if n == 0 {
                0.0
            } else {
                t_af_prev.max(t_r - init)
            };
            let t_af = t_ai + bits / bit_rate;
            t_af_prev = t_af;
            (t_ai, t_af, t_r, bits)
        })
        .collect();
    judge(&mut rep, &sched, false, cpb_size);
    rep
}

/// The fullness just before each removal of `sched` (arrival start and end,
/// removal time, bits of each access unit), counting every unit that has
/// (partly) arrived by then, and the underflow and overflow conditions (C.3).
fn judge(rep: &mut HrdReport, sched: &[(f64, f64, f64, f64)], cbr: bool, cpb_size: f64) {
    let mut removed_bits = 0f64;
    for (n, &(_, t_af, t_r, bits)) in sched.iter().enumerate() {
        let arrived: f64 = sched
            .iter()
            .map(|&(a, f, _, b)| {
                if t_r >= f {
                    b
                } else if t_r <= a {
                    0.0
                } else {
                    b * (t_r - a) / (f - a)
                }
            })
            .sum();
        let fullness = arrived - removed_bits;
        rep.fullness.push(fullness);
        // A picture not entirely arrived at its removal time underflows.
        if t_af > t_r + 1e-9 {
            rep.underflows.push(n);
        }
        if cbr && fullness > cpb_size * (1.0 + 1e-9) {
            rep.overflows.push(n);
        }
        removed_bits += bits;
    }
}
