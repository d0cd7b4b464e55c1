// SPDX-License-Identifier: GPL-2.0-only
//! Rate control behind one interface, so algorithms can be compared on the same encoder.
//!
//! [`RateController`] is what the encoder calls; [`Rc`] is the enum the
//! fixed-size encoder state holds (no trait objects without `alloc`).

pub mod cq;
pub mod cqp;
pub mod frame;
pub mod hrd;
pub mod inframe;

use super::error::Result;

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

/// The rate controllers the encoder can run.
// The encoder's state is one fixed-size block the driver allocates once;
// boxing the larger variant would need `alloc`, which the core does without.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Copy, Debug)]
pub enum Rc {
    /// Constant QP per picture type, or the client's QP of each picture.
    Cqp(cqp::Cqp),
    /// Frame-level CBR or VBR with an HRD model.
    Frame(frame::FrameRc),
    /// Constant quality with a peak over any one-second window.
    Cq(cq::CappedCq),
}

impl RateController for Rc {
    fn plan(&mut self, f: &FrameInfo) -> QpPlan {
        match self {
            Rc::Cqp(c) => c.plan(f),
            Rc::Frame(c) => c.plan(f),
            Rc::Cq(c) => c.plan(f),
        }
    }

    fn replan(&mut self, r: &FrameResult, last: bool) -> Replan {
        match self {
            Rc::Cqp(c) => c.replan(r, last),
            Rc::Frame(c) => c.replan(r, last),
            Rc::Cq(c) => c.replan(r, last),
        }
    }

    fn skip(&mut self, bits: u32, temporal_id: u8) -> u32 {
        match self {
            Rc::Cqp(c) => c.skip(bits, temporal_id),
            Rc::Frame(c) => c.skip(bits, temporal_id),
            Rc::Cq(c) => c.skip(bits, temporal_id),
        }
    }

    fn complete(&mut self, r: &FrameResult) -> u32 {
        match self {
            Rc::Cqp(c) => c.complete(r),
            Rc::Frame(c) => c.complete(r),
            Rc::Cq(c) => c.complete(r),
        }
    }

    fn set_bitrate(&mut self, bitrate: u32, max_bitrate: u32) -> Result {
        match self {
            Rc::Cqp(c) => c.set_bitrate(bitrate, max_bitrate),
            Rc::Frame(c) => c.set_bitrate(bitrate, max_bitrate),
            Rc::Cq(c) => c.set_bitrate(bitrate, max_bitrate),
        }
    }
}
