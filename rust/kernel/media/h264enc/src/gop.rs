// SPDX-License-Identifier: GPL-2.0-only
//! Picture type and reference policy: IDR period, forced key frames, temporal
//! layer patterns L1T1/L1T2/L1T3 and long-term reference use.

/// Temporal layer of each position of the L1T2 and L1T3 patterns.
const L1T2: [u8; 2] = [0, 1];
const L1T3: [u8; 4] = [0, 2, 1, 2];

/// The pattern of `temporal_layers` layers: the layer of each position.
fn pattern(temporal_layers: u8) -> &'static [u8] {
    match temporal_layers {
        2 => &L1T2,
        3 => &L1T3,
        _ => &[0],
    }
}

/// Pictures of each temporal layer in one period of the pattern of
/// `temporal_layers` layers, and the period: a layer's share of the pictures.
pub fn pictures_per_period(temporal_layers: u8) -> ([u64; 3], u64) {
    let p = pattern(temporal_layers);
    let mut count = [0u64; 3];
    for &t in p {
        if let Some(c) = count.get_mut(usize::from(t)) {
            *c = c.saturating_add(1);
        }
    }
    (count, p.len() as u64)
}

/// The GOP settings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct GopConfig {
    /// Frames between IDR pictures; 0 for only the first.
    pub idr_period: u32,
    /// Number of temporal layers, 1 to 3.
    pub temporal_layers: u8,
    /// Every IDR picture is marked long-term.
    pub long_term: bool,
    /// Every this many frames a P frame references the long-term picture; 0 for
    /// only when the client names it.
    pub ltr_period: u32,
}

/// Which picture a P frame predicts from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefChoice {
    /// The most recent picture of a lower temporal layer (layer 0: the previous layer-0 picture).
    Previous,
    /// The long-term reference.
    LongTerm,
}

/// The policy's decision for one picture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decision {
    /// Code an IDR picture.
    pub idr: bool,
    /// temporal_id.
    pub temporal_id: u8,
    /// The picture is used for reference (nal_ref_idc != 0).
    pub reference: bool,
    /// Mark the picture long-term (on IDRs when long-term references are on).
    pub mark_long_term: bool,
    /// Reference of a P picture.
    pub ref_choice: RefChoice,
}

impl GopConfig {
    /// max_num_ref_frames the pattern needs, keeping at least `max_refs`
    /// pictures for hardware that predicts from several.
    pub fn num_ref_frames(&self, max_refs: u8) -> u32 {
        let short = if self.temporal_layers >= 3 { 2 } else { 1 };
        (short + u32::from(self.long_term))
            .max(u32::from(max_refs))
            .min(16)
    }

    /// Decides picture `frames_since_idr` (0 for the picture after a forced or periodic IDR).
    pub fn decide(&self, frames_since_idr: u64, force_idr: bool) -> Decision {
        let period = u64::from(self.idr_period);
        let idr =
            force_idr || frames_since_idr == 0 || frames_since_idr.checked_rem(period) == Some(0);
        if idr {
            return Decision {
                idr,
                temporal_id: 0,
                reference: true,
                mark_long_term: self.long_term,
                ref_choice: RefChoice::Previous,
            };
        }
        let p = pattern(self.temporal_layers);
        let temporal_id = p
            .get(frames_since_idr.checked_rem(p.len() as u64).unwrap_or(0) as usize)
            .copied()
            .unwrap_or(0);
        let top = self.temporal_layers.max(1) - 1;
        let reference = temporal_id == 0 || temporal_id < top;
        let ltr = self.long_term
            && temporal_id == 0
            && frames_since_idr.checked_rem(u64::from(self.ltr_period)) == Some(0);
        Decision {
            idr,
            temporal_id,
            reference,
            mark_long_term: false,
            ref_choice: if ltr {
                RefChoice::LongTerm
            } else {
                RefChoice::Previous
            },
        }
    }
}
