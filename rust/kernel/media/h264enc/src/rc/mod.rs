// SPDX-License-Identifier: GPL-2.0-only
//! Rate control behind one interface, so algorithms can be compared on the same encoder.
//!
//! [`RateController`] is what the encoder calls; [`Rc`] is the enum the
//! fixed-size encoder state holds (no trait objects without `alloc`).

mod controller;
pub mod cq;
pub mod cqp;
pub mod frame;
pub mod hrd;
pub mod inframe;

pub use controller::{FrameInfo, FrameResult, QpPlan, RateController, Replan, QP_MAX};

use super::error::Result;

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
