// SPDX-License-Identifier: GPL-2.0-only
//! Constant QP, and client-driven QP (a picture's own QP wins when given).

use super::controller::{FrameInfo, FrameResult, QpPlan, RateController, QP_MAX};

use super::super::error::{Error, Result};

/// Constant QP per picture type; higher temporal layers get `layer_offset` more per layer.
#[derive(Clone, Copy, Debug)]
pub struct Cqp {
    /// QP of intra pictures.
    pub qp_i: u8,
    /// QP of P pictures of temporal layer 0.
    pub qp_p: u8,
    /// QP added per temporal layer above 0.
    pub layer_offset: u8,
}

impl RateController for Cqp {
    fn plan(&mut self, f: &FrameInfo) -> QpPlan {
        let qp = if let Some(q) = f.client_qp {
            q.min(QP_MAX)
        } else if f.intra {
            self.qp_i
        } else {
            self.qp_p
                .saturating_add(f.temporal_id.saturating_mul(self.layer_offset))
                .min(QP_MAX)
        };
        QpPlan {
            qp,
            qp_min: qp,
            qp_max: qp,
            target_bits: 0,
            fraction_q8: None,
        }
    }

    fn complete(&mut self, _r: &FrameResult) -> u32 {
        0
    }

    fn set_bitrate(&mut self, _bitrate: u32, _max_bitrate: u32) -> Result {
        Err(Error::InvalidParam)
    }
}
