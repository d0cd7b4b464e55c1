// SPDX-License-Identifier: GPL-2.0-only
//! Frame-level CBR/VBR rate control with a CPB model.
//!
//! Rate model per picture type: log2(bits) = log2C - QP / 6, with log2C learned
//! from every coded picture (Q8 fixed point: value x 256). The target of a
//! picture follows the CPB fullness towards a set point; the QP meeting the
//! target comes from the model, then is bounded by the QP limits and the
//! per-picture QP step.

use super::hrd::Cpb;
use super::{FrameInfo, FrameResult, QpPlan, RateController, QP_MAX};

use super::super::error::{Error, Result};
use super::super::math::{div_u64, log2_q8, mul_div};

/// Settings of the frame-level controller.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameRcConfig {
    /// Average bit rate, bits/s.
    pub bitrate: u32,
    /// Peak bit rate (VBR) or the bit rate again (CBR), bits/s; the HRD's BitRate.
    pub max_bitrate: u32,
    /// CpbSize in bits.
    pub cpb_size: u32,
    /// Frame rate numerator.
    pub fps_num: u32,
    /// Frame rate denominator.
    pub fps_den: u32,
    /// Constant bit rate.
    pub cbr: bool,
    /// Fill with filler data instead of overflowing (CBR).
    pub filler: bool,
    /// Lowest QP.
    pub qp_min: u8,
    /// Highest QP.
    pub qp_max: u8,
    /// Largest QP change between pictures of one type (0 for no limit).
    pub max_qp_step: u8,
    /// Luma samples per picture, for the first estimate.
    pub pixels: u32,
}

/// Index of the rate model of intra and P pictures.
const I: usize = 0;
const P: usize = 1;

/// Frame-level CBR/VBR controller.
#[derive(Clone, Copy, Debug)]
pub struct FrameRc {
    cfg: FrameRcConfig,
    /// The CPB as the HRD sees it (BitRate = max_bitrate).
    pub cpb: Cpb,
    /// log2C per picture type, Q8.
    log2c: [i32; 2],
    known: [bool; 2],
    last_qp: [u8; 2],
    /// Planned picture, for learning when it completes.
    planned: QpPlan,
    planned_log2_bits: i32,
    /// Bits given to and spent by all pictures so far (VBR long-term balance).
    budget: u64,
    spent: u64,
}

impl FrameRc {
    /// Creates the controller; the CPB starts filled to `initial_fill` in 1/256 of its size.
    pub fn new(cfg: FrameRcConfig, initial_fill_q8: u32) -> Result<FrameRc> {
        if cfg.bitrate == 0
            || cfg.max_bitrate < cfg.bitrate
            || cfg.fps_num == 0
            || cfg.fps_den == 0
            || cfg.qp_min > cfg.qp_max
            || cfg.qp_max > QP_MAX
        {
            return Err(Error::InvalidParam);
        }
        let per_frame = mul_div(
            u64::from(cfg.max_bitrate),
            u64::from(cfg.fps_den),
            u64::from(cfg.fps_num),
        );
        if u64::from(cfg.cpb_size) < per_frame {
            return Err(Error::InvalidParam);
        }
        let initial = mul_div(
            u64::from(cfg.cpb_size),
            u64::from(initial_fill_q8.min(256)),
            256,
        );
        let cpb = Cpb::new(
            u64::from(cfg.cpb_size),
            u64::from(cfg.max_bitrate),
            cfg.fps_num,
            cfg.fps_den,
            cfg.cbr,
            initial,
        );
        // First guess: an intra picture at QP 26 takes about 0.4 bit per luma
        // sample, a P picture a fifth.
        let i_bits = u64::from(cfg.pixels.max(256)) * 2 / 5;
        let log2c_i = log2_q8(i_bits).saturating_add(26 * 256 / 6);
        let log2c_p = log2c_i.saturating_sub(log2_q8(5));
        Ok(FrameRc {
            cfg,
            cpb,
            log2c: [log2c_i, log2c_p],
            known: [false, false],
            last_qp: [0, 0],
            planned: QpPlan::default(),
            planned_log2_bits: 0,
            budget: 0,
            spent: 0,
        })
    }

    /// Average bits per picture at the target bit rate.
    fn bits_per_frame(&self) -> u64 {
        mul_div(
            u64::from(self.cfg.bitrate),
            u64::from(self.cfg.fps_den),
            u64::from(self.cfg.fps_num),
        )
    }

    /// The QP the model gives for `bits` in model `t`.
    fn qp_for(&self, t: usize, bits: u64) -> i32 {
        let log2c = self.log2c.get(t).copied().unwrap_or(0);
        // QP = 6 * (log2C - log2(bits)), both Q8; rounded.
        let d = log2c.saturating_sub(log2_q8(bits.max(1)));
        d.saturating_mul(6).saturating_add(128).div_euclid(256)
    }

    /// Bits the model predicts for QP `qp` in model `t`, Q8 log2.
    fn log2_bits_at(&self, t: usize, qp: i32) -> i32 {
        self.log2c
            .get(t)
            .copied()
            .unwrap_or(0)
            .saturating_sub(qp.saturating_mul(256) / 6)
    }
}

impl RateController for FrameRc {
    fn plan(&mut self, f: &FrameInfo) -> QpPlan {
        let t = if f.intra { I } else { P };
        let b = self.bits_per_frame();
        let fullness = self.cpb.fullness_bits();
        let size = self.cpb.size;
        let target = if f.intra {
            // An intra picture takes what the model says it costs at the P QP
            // less three, within what the buffer can give.
            let ratio_q8: i64 = if self.known[I] && self.known[P] {
                i64::from(super::super::math::clamp_i32(
                    self.log2c[I].saturating_sub(self.log2c[P]),
                    0,
                    6 * 256,
                ))
            } else {
                log2_q8(4) as i64
            };
            let want = super::super::math::exp2_q8(log2_q8(b).saturating_add(ratio_q8 as i32));
            want.min(fullness / 2)
        } else {
            // Steer the fullness before the next removal towards 5/8 of the buffer.
            let set_point = size.saturating_mul(5) / 8;
            let error = i64::try_from(fullness)
                .unwrap_or(i64::MAX)
                .saturating_sub(i64::try_from(set_point).unwrap_or(i64::MAX));
            let t = if self.cfg.cbr {
                (b as i64).saturating_add(error / 4)
            } else {
                // VBR: the average comes from the long-term balance; the buffer,
                // filled at the peak rate, may only hold spending back.
                let balance = (self.budget as i64).saturating_sub(self.spent as i64);
                (b as i64)
                    .saturating_add(balance / 16)
                    .saturating_add(error.min(0) / 4)
            };
            t.max((b / 8) as i64) as u64
        };
        // Never plan more than 7/8 of what the buffer holds: the picture must fit.
        let target = target
            .min(fullness.saturating_mul(7) / 8)
            .max(u64::from(f.header_bits) + 256);
        let payload = target - u64::from(f.header_bits).min(target);
        let mut qp = self.qp_for(t, payload.max(64));
        let (lo, hi) = (i32::from(self.cfg.qp_min), i32::from(self.cfg.qp_max));
        let step = i32::from(self.cfg.max_qp_step);
        let last = i32::from(self.last_qp.get(t).copied().unwrap_or(0));
        if step > 0 && self.known[t] && !f.scene_change {
            // Going up faster is allowed when the buffer would otherwise underflow.
            let up = if self.log2_bits_at(t, last + step) > log2_q8(fullness.max(1)) {
                51
            } else {
                step
            };
            qp = super::super::math::clamp_i32(qp, last - step, last + up);
        }
        if f.intra && self.known[P] && !f.scene_change {
            // Intra pictures stay close to the P quality.
            let p = i32::from(self.last_qp[P]);
            qp = super::super::math::clamp_i32(qp, p - 6, p + 3);
        }
        let qp = super::super::math::clamp_i32(qp, lo, hi) as u8;
        self.planned = QpPlan {
            qp,
            qp_min: self.cfg.qp_min,
            qp_max: self.cfg.qp_max,
            target_bits: target.min(u64::from(u32::MAX)) as u32,
        };
        self.planned_log2_bits = self.log2_bits_at(t, i32::from(qp));
        self.planned
    }

    fn complete(&mut self, r: &FrameResult) -> u32 {
        let t = if r.intra { I } else { P };
        let bits = u64::from(r.bits).max(1);
        // log2C = log2(bits) + QP / 6, from the QP the macroblocks really had.
        // qp_avg_q8 comes from the hardware: any u32, so nothing may overflow.
        let qp_avg_q8 = r.qp_avg_q8.min(u32::from(QP_MAX) * 256);
        let measured = log2_q8(bits).saturating_add(qp_avg_q8 as i32 / 6);
        if let (Some(c), Some(k)) = (self.log2c.get_mut(t), self.known.get_mut(t)) {
            // A picture twice as costly as predicted is a new scene: take it as it is.
            if !*k || measured.abs_diff(*c) > 256 {
                *c = measured;
            } else {
                *c = c.saturating_mul(3).saturating_add(measured) / 4;
            }
            *k = true;
        }
        if let Some(q) = self.last_qp.get_mut(t) {
            *q = ((qp_avg_q8 + 128) / 256) as u8;
        }
        self.budget = self.budget.saturating_add(self.bits_per_frame());
        self.spent = self.spent.saturating_add(bits);
        let filler = self.cpb.remove(bits, self.cfg.filler);
        self.spent = self.spent.saturating_add(filler);
        div_u64(filler, 1).min(u64::from(u32::MAX)) as u32
    }

    fn set_bitrate(&mut self, bitrate: u32, max_bitrate: u32) -> Result {
        if bitrate == 0 || max_bitrate < bitrate {
            return Err(Error::InvalidParam);
        }
        let per_frame = mul_div(
            u64::from(max_bitrate),
            u64::from(self.cfg.fps_den),
            u64::from(self.cfg.fps_num),
        );
        if per_frame > self.cpb.size {
            return Err(Error::InvalidParam);
        }
        self.cfg.bitrate = bitrate;
        self.cfg.max_bitrate = max_bitrate;
        self.cpb.bit_rate = u64::from(max_bitrate);
        // The long-term balance restarts at the new rate.
        self.budget = 0;
        self.spent = 0;
        Ok(())
    }
}
