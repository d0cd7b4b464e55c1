// SPDX-License-Identifier: GPL-2.0-only
//! What a rate controller is: the trait the encoder calls, what it tells a
//! controller of a picture and what a controller decides.

use super::super::error::Result;

/// QP limits of the standard.
pub const QP_MAX: u8 = 51;

/// What the rate controller knows of a picture before coding it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameInfo {
    /// Intra picture.
    pub intra: bool,
    /// The client hinted a scene change.
    pub scene_change: bool,
    /// temporal_id of the picture.
    pub temporal_id: u8,
    /// QP the client asked for (client-driven mode).
    pub client_qp: Option<u8>,
    /// Bits of the headers the core writes in front of the slices (AUD, SPS, PPS, SEI).
    pub header_bits: u32,
}

/// The controller's decision for a picture.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QpPlan {
    /// Slice QP.
    pub qp: u8,
    /// Lowest per-macroblock QP the hardware may use.
    pub qp_min: u8,
    /// Highest per-macroblock QP the hardware may use.
    pub qp_max: u8,
    /// Bits the picture should take, headers included (0 when there is no target).
    pub target_bits: u32,
    /// With `Some(f)`, the picture's QP lies between `qp` and `qp + 1`: the
    /// in-frame control codes its last `f`/256 at `qp + 1` and steers only
    /// a picture far from its target. With `None` it steers every picture
    /// towards `target_bits`.
    pub fraction_q8: Option<u8>,
}

/// What to do with a picture after a coding of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Replan {
    /// Keep the coding.
    Keep,
    /// Code it again with this plan: the coding would break the HRD.
    Coarser(QpPlan),
    /// Code it again as an intra picture: the P picture was a scene cut.
    Intra,
    /// No coding fits the CPB, and coding it again at a coarser QP cannot
    /// help (the last coding, or at the highest QP): skip the picture.
    Skip,
}

/// What a picture turned out to be.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameResult {
    /// Intra picture.
    pub intra: bool,
    /// Bits of the whole access unit before filler (headers and slices).
    pub bits: u32,
    /// Average QP over its macroblocks, Q8.
    pub qp_avg_q8: u32,
    /// Number of macroblocks.
    pub mbs: u32,
}

/// A rate control algorithm.
pub trait RateController {
    /// Plans the QP of the next picture.
    fn plan(&mut self, f: &FrameInfo) -> QpPlan;
    /// Plans the picture again from a coding of it that gave `r`; `last`
    /// when no more coding is allowed.
    fn replan(&mut self, _r: &FrameResult, _last: bool) -> Replan {
        Replan::Keep
    }
    /// Accounts for a skipped picture of `bits` in temporal layer
    /// `temporal_id` instead of the planned one, learning nothing from it;
    /// returns filler bits to append. Only controllers that return
    /// [`Replan::Skip`] are called.
    fn skip(&mut self, _bits: u32, _temporal_id: u8) -> u32 {
        0
    }
    /// Learns from the coded picture; returns filler bits to append (CBR).
    fn complete(&mut self, r: &FrameResult) -> u32;
    /// Changes the target bit rates (bits/s) while running.
    fn set_bitrate(&mut self, bitrate: u32, max_bitrate: u32) -> Result;
}
