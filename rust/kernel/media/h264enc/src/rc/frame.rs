// SPDX-License-Identifier: GPL-2.0-only
//! Frame-level CBR/VBR rate control with a CPB model.
//!
//! Rate model per picture type: log2(bits) = log2C - QP / 6, with log2C learned
//! from every coded picture (Q8 fixed point: value x 256). The target of a
//! picture follows the CPB fullness towards a set point; the QP meeting the
//! target comes from the model, then is bounded by the QP limits and the
//! per-picture QP step. With a buffer of many pictures and a model that
//! predicts well, the QP is fractional: the in-frame control codes the
//! last part of the picture one QP up.

use super::controller::{FrameInfo, FrameResult, QpPlan, RateController, Replan, QP_MAX};
use super::hrd::Cpb;

use super::super::config::layer_split_total;
use super::super::error::{Error, Result};
use super::super::gop::pictures_per_period;
use super::super::math::{div_u64, exp2_q8, log2_q8, mul_div};

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
    /// Temporal layers of the picture pattern (gop::GopConfig), 1 to 3.
    pub temporal_layers: u8,
    /// Share of `bitrate` each temporal layer's own pictures take, in 1/65536;
    /// all zero for no split (every P picture then aims at the same size).
    pub layer_share_q16: [u32; 3],
}

/// Index of the rate model of intra pictures; P pictures of temporal layer
/// `t` use model `P + t`: a layer predicts from further back than the one
/// above it, so its pictures cost more at one QP.
const I: usize = 0;
const P: usize = 1;
const MODELS: usize = 4;

/// How much costlier (log2, Q8) than predicted a P picture is at a scene cut.
const CUT_Q8: i32 = 2 * 256;

/// P pictures in a row the model must predict within `WELL_PREDICTED_Q8`
/// (log2, Q8: within a factor of 1.4) before pictures are planned at a QP
/// between integers. A model that misses, at a cut or where the bits
/// change with the QP faster than it assumes, needs the in-frame control's
/// steering.
const WELL_PREDICTED: u8 = 8;
const WELL_PREDICTED_Q8: u32 = 128;

/// How far (Q8) the model's QP must move from the QP held before it changes,
/// with a buffer of eight pictures or more.
const QP_HOLD_Q8: u32 = 192;

/// The share of layers 0..=k together, in 1/65536.
fn prefix_share(shares: &[u32; 3], k: usize) -> u64 {
    shares
        .iter()
        .take(k.saturating_add(1))
        .fold(0u64, |a, &v| a.saturating_add(u64::from(v)))
}

/// Frame-level CBR/VBR controller.
#[derive(Clone, Copy, Debug)]
pub struct FrameRc {
    cfg: FrameRcConfig,
    /// The CPB as the HRD sees it (BitRate = max_bitrate).
    pub cpb: Cpb,
    /// log2C per model (intra, then P per temporal layer), Q8.
    log2c: [i32; MODELS],
    known: [bool; MODELS],
    last_qp: [u8; MODELS],
    /// The same in Q8, unrounded.
    last_q8: [u16; MODELS],
    /// P pictures in a row whose cost the model predicted within `WELL_PREDICTED_Q8`.
    well_predicted: u8,
    /// Slice QP of the last picture of each model, as coded.
    slice_qp: [u8; MODELS],
    /// The planned picture was planned again after a coding of it.
    replanned: bool,
    /// log2C its first coding measured, Q8.
    first_pass_log2c: Option<i32>,
    /// P pictures completed since the last intra picture.
    p_since_intra: u32,
    /// Planned picture, for learning when it completes.
    planned: QpPlan,
    planned_log2_bits: i32,
    planned_layer: usize,
    /// Average QP of the last picture, of any kind.
    last_any_qp: u8,
    /// Bits given to and spent by all pictures so far (VBR long-term balance).
    budget: u64,
    spent: u64,
    /// The same per temporal layer, when the rate is split between layers.
    layer_budget: [u64; 3],
    layer_spent: [u64; 3],
    /// With a split, the CPB of each proper prefix of layers (layers 0..=k),
    /// as a receiver of only those layers would run it: their share of the
    /// rate, and of the buffer the initial delay fills.
    prefix_cpb: [Cpb; 2],
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
            || !(1..=3).contains(&cfg.temporal_layers)
        {
            return Err(Error::InvalidParam);
        }
        if cfg.layer_share_q16 != [0; 3] {
            // The shares add up to the whole rate.
            let total = layer_split_total(&cfg.layer_share_q16, cfg.temporal_layers);
            if !total.is_some_and(|t| t.abs_diff(1 << 16) <= 3) {
                return Err(Error::InvalidParam);
            }
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
            log2c: [log2c_i, log2c_p, log2c_p, log2c_p],
            known: [false; MODELS],
            last_qp: [0; MODELS],
            last_q8: [0; MODELS],
            well_predicted: 0,
            slice_qp: [0; MODELS],
            replanned: false,
            first_pass_log2c: None,
            p_since_intra: 0,
            planned: QpPlan::default(),
            planned_log2_bits: 0,
            planned_layer: 0,
            last_any_qp: 0,
            budget: 0,
            spent: 0,
            layer_budget: [0; 3],
            layer_spent: [0; 3],
            prefix_cpb: [0, 1].map(|k| {
                let share = prefix_share(&cfg.layer_share_q16, k);
                // A receiver starts after the stream's initial delay and
                // holds what arrives in it: (size x fill) x share.
                let size = mul_div(initial, share, 1 << 16);
                let rate = mul_div(u64::from(cfg.max_bitrate), share, 1 << 16);
                Cpb::new(size, rate, cfg.fps_num, cfg.fps_den, false, size)
            }),
        })
    }

    /// The least a CPB of a proper prefix of layers holding a picture of
    /// temporal layer `layer` will hold at its removal; `None` without a split.
    fn prefix_fullness(&self, layer: usize) -> Option<u64> {
        let top = usize::from(self.cfg.temporal_layers).saturating_sub(1);
        self.prefix_cpb
            .iter()
            .zip(0usize..3)
            .filter(|&(_, k)| self.split() && k >= layer && k < top)
            .map(|(c, _)| c.fullness_bits())
            .min()
    }

    /// Bits a picture of temporal layer `layer` may take so that every
    /// proper prefix of layers holding it keeps its own HRD.
    fn prefix_room(&self, layer: usize) -> u64 {
        self.prefix_fullness(layer)
            .map_or(u64::MAX, |f| f.saturating_mul(7) / 8)
    }

    /// A P picture of model `t` that measured `log2c` is a scene cut: four
    /// times costlier than its model predicts, and at least half as costly
    /// as an intra picture of the scene, mostly intra macroblocks. Content
    /// that only grew costlier, whose P pictures stay far below its intra
    /// ones, is not a cut; nor are the first P pictures after an intra
    /// picture, which refine it and whose scene the P model has not seen.
    fn is_cut(&self, t: usize, log2c: i32) -> bool {
        t != I
            && self.p_since_intra >= 2
            && self.known[I]
            && log2c >= self.log2c[I].saturating_sub(256)
            && self.known.get(t).copied().unwrap_or(false)
            && self
                .log2c
                .get(t)
                .is_some_and(|&c| log2c > c.saturating_add(CUT_Q8))
    }

    /// Pictures the CPB holds at the rate.
    pub fn buffer_frames(&self) -> u32 {
        div_u64(self.cpb.size, self.bits_per_frame().max(1)).min(u64::from(u32::MAX)) as u32
    }

    /// The rate is split between temporal layers.
    fn split(&self) -> bool {
        self.cfg.layer_share_q16 != [0; 3]
    }

    /// Average bits per picture of temporal layer `t`: its share of the
    /// rate over its share of the pictures. Without a split, every layer's
    /// is the stream's.
    fn layer_bits_per_frame(&self, t: usize) -> u64 {
        let b = self.bits_per_frame();
        let (count, period) = pictures_per_period(self.cfg.temporal_layers);
        match (self.cfg.layer_share_q16.get(t), count.get(t)) {
            (Some(&share), Some(&c)) if self.split() && c != 0 => {
                // b * share * period / count: at most 2^32 * 2^16 * 4.
                div_u64(
                    b.saturating_mul(u64::from(share)).saturating_mul(period),
                    c << 16,
                )
            }
            _ => b,
        }
    }

    /// Average bits per picture at the target bit rate.
    fn bits_per_frame(&self) -> u64 {
        mul_div(
            u64::from(self.cfg.bitrate),
            u64::from(self.cfg.fps_den),
            u64::from(self.cfg.fps_num),
        )
    }

    /// The QP the model gives for `bits` in model `t`, Q8, unrounded.
    fn qp_q8_for(&self, t: usize, bits: u64) -> i32 {
        let log2c = self.log2c.get(t).copied().unwrap_or(0);
        // QP = 6 * (log2C - log2(bits)), both Q8.
        log2c.saturating_sub(log2_q8(bits.max(1))).saturating_mul(6)
    }

    /// Bits the model predicts for QP `qp_q8` (Q8) in model `t`, Q8 log2.
    fn log2_bits_at_q8(&self, t: usize, qp_q8: i32) -> i32 {
        self.log2c
            .get(t)
            .copied()
            .unwrap_or(0)
            .saturating_sub(qp_q8 / 6)
    }

    /// Removes a picture of `bits` (intra or of temporal layer `layer`)
    /// from the CPB and the CPBs of the prefixes of layers, and charges it
    /// to the long-term balances; returns the filler bits to append.
    fn account(&mut self, bits: u64, intra: bool, layer: usize) -> u32 {
        self.budget = self.budget.saturating_add(self.bits_per_frame());
        self.spent = self.spent.saturating_add(bits);
        let layer_b = self.layer_bits_per_frame(layer);
        let filler = self.cpb.remove(bits, self.cfg.filler);
        self.spent = self.spent.saturating_add(filler);
        for (c, k) in self.prefix_cpb.iter_mut().zip(0usize..3) {
            // A prefix without this layer sees only time pass.
            c.remove(if k >= layer { bits } else { 0 }, false);
        }
        let cost = bits.saturating_add(filler);
        if intra {
            // An intra picture is the whole stream's cost: every layer pays
            // its share, as every layer was given its share of the interval;
            // charged to the base layer alone it would starve that layer's
            // P pictures for a second after.
            let b = self.bits_per_frame();
            let shares = self.cfg.layer_share_q16;
            for ((g, s), &share) in self
                .layer_budget
                .iter_mut()
                .zip(self.layer_spent.iter_mut())
                .zip(&shares)
            {
                *g = g.saturating_add(mul_div(b, u64::from(share), 1 << 16));
                *s = s.saturating_add(mul_div(cost, u64::from(share), 1 << 16));
            }
        } else if let (Some(g), Some(s)) = (
            self.layer_budget.get_mut(layer),
            self.layer_spent.get_mut(layer),
        ) {
            *g = g.saturating_add(layer_b);
            *s = s.saturating_add(cost);
        }
        div_u64(filler, 1).min(u64::from(u32::MAX)) as u32
    }

    /// Plans a P picture whose buffer holds sixteen pictures or more at a
    /// QP between two integers: such a buffer can wait, so the picture
    /// need not meet its own target, and a picture's QP that follows the
    /// model in small steps is steadier than a whole QP held, then moved,
    /// with the in-frame control chasing each picture's target on top.
    /// `None` where the picture needs the integer plan: an intra picture,
    /// a cut, a model not seen yet, a small buffer, or a rate split
    /// between temporal layers.
    fn plan_fractional(
        &mut self,
        f: &FrameInfo,
        t: usize,
        layer: usize,
        qp_q8: i32,
        target: u64,
    ) -> Option<QpPlan> {
        if f.intra
            || f.scene_change
            || !self.settled()
            || !self.known.get(t).copied().unwrap_or(false)
            || self.buffer_frames() < 16
        {
            return None;
        }
        let (lo, hi) = (
            i32::from(self.cfg.qp_min) * 256,
            i32::from(self.cfg.qp_max) * 256,
        );
        let mut q = qp_q8;
        let step = self.qp_step() * 256;
        if step > 0 {
            // From the QP the last picture of the kind had; faster up only
            // when the buffer would otherwise underflow.
            let last = i32::from(self.last_q8.get(t).copied().unwrap_or(0));
            let up = self.up_step_q8(t, last, step, self.cpb.fullness_bits());
            q = super::super::math::clamp_i32(
                q,
                last.saturating_sub(step),
                last.saturating_add(up),
            );
        }
        let q = super::super::math::clamp_i32(q, lo, hi);
        let qp = (q / 256) as u8;
        let fraction = if qp >= self.cfg.qp_max {
            0
        } else {
            (q % 256) as u8
        };
        Some(self.commit_plan(t, layer, qp, Some(fraction), target))
    }

    /// The model has predicted the last P pictures well, and no split of
    /// the rate between temporal layers asks each layer to meet its share.
    fn settled(&self) -> bool {
        !self.split() && self.well_predicted >= WELL_PREDICTED
    }

    /// Largest QP change from one picture of a kind to the next (0 for no
    /// limit), read before the picture is planned. After a picture planned
    /// at a fractional QP, the end of a run of well predicted ones, it is
    /// one QP: a buffer of sixteen pictures or more rides out a single
    /// picture the model missed. If the next one misses too, the content
    /// has changed, and the whole configured step applies.
    fn qp_step(&self) -> i32 {
        let step = i32::from(self.cfg.max_qp_step);
        if self.buffer_frames() >= 16 && self.planned.fraction_q8.is_some() {
            step.min(1)
        } else {
            step
        }
    }

    /// How far up (Q8) the QP of model `t` may go from `last_q8`: `step_q8`,
    /// or without limit when a picture at `last_q8 + step_q8` would still
    /// take more than the `room` the buffer has.
    fn up_step_q8(&self, t: usize, last_q8: i32, step_q8: i32, room: u64) -> i32 {
        if self.log2_bits_at_q8(t, last_q8.saturating_add(step_q8)) > log2_q8(room.max(1)) {
            51 * 256
        } else {
            step_q8
        }
    }

    /// Records and returns the plan of the picture about to be coded.
    fn commit_plan(
        &mut self,
        t: usize,
        layer: usize,
        qp: u8,
        fraction_q8: Option<u8>,
        target: u64,
    ) -> QpPlan {
        self.replanned = false;
        self.first_pass_log2c = None;
        self.planned = QpPlan {
            qp,
            qp_min: self.cfg.qp_min,
            qp_max: self.cfg.qp_max,
            target_bits: target.min(u64::from(u32::MAX)) as u32,
            fraction_q8,
        };
        let q8 = i32::from(qp)
            .saturating_mul(256)
            .saturating_add(i32::from(fraction_q8.unwrap_or(0)));
        self.planned_log2_bits = self.log2_bits_at_q8(t, q8);
        self.planned_layer = layer;
        self.planned
    }
}

impl RateController for FrameRc {
    fn plan(&mut self, f: &FrameInfo) -> QpPlan {
        if f.scene_change {
            // The scene the model predicted well is gone.
            self.well_predicted = 0;
        }
        let layer = usize::from(f.temporal_id).min(2);
        let t = if f.intra { I } else { P.saturating_add(layer) };
        let total_b = self.bits_per_frame();
        let b = self.layer_bits_per_frame(layer);
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
            // A scene cut has no picture worth keeping bits for: it may
            // take the buffer (the room below); another intra picture half.
            if f.scene_change {
                want
            } else {
                want.min(fullness / 2)
            }
        } else {
            // Steer the fullness before the next removal towards 5/8 of the
            // buffer, or 7/8 with CBR filler: filler takes off any excess,
            // so the buffer may run nearly full, and a cut finds more room.
            let set_point = if self.cfg.filler && self.cfg.cbr {
                size.saturating_mul(7) / 8
            } else {
                size.saturating_mul(5) / 8
            };
            let error = i64::try_from(fullness)
                .unwrap_or(i64::MAX)
                .saturating_sub(i64::try_from(set_point).unwrap_or(i64::MAX));
            // The buffer's correction is spread over the layers as their
            // pictures' sizes are.
            let error = if self.split() {
                error.saturating_mul(b.min(1 << 40) as i64) / (total_b.max(1) as i64)
            } else {
                error
            };
            // With a split, each layer repays its own long-term balance
            // over four of its pictures (CBR; VBR, as its whole-stream balance,
            // over sixteen), so each keeps its share.
            let layer_balance = match (self.layer_budget.get(layer), self.layer_spent.get(layer)) {
                (Some(&g), Some(&s)) if self.split() => {
                    (g.min(i64::MAX as u64) as i64).saturating_sub(s.min(i64::MAX as u64) as i64)
                        / if self.cfg.cbr { 4 } else { 16 }
                }
                _ => 0,
            };
            // One picture repays at most half its budget, so that a layer
            // in debt after a costly picture is not starved.
            let half = (b / 2).min(i64::MAX as u64) as i64;
            let layer_balance = layer_balance.clamp(-half, half);
            // CBR repays the buffer's error over half the pictures the
            // buffer holds, at least four: a one-second buffer drained by a
            // cut refills over half a second, not in four crushed pictures.
            let repay = (size / b.max(1) / 2).clamp(8, 1 << 16) as i64;
            let t = if self.cfg.cbr {
                (b as i64)
                    .saturating_add(error / repay)
                    .saturating_add(layer_balance)
            } else if self.split() {
                (b as i64)
                    .saturating_add(layer_balance)
                    .saturating_add(error.min(0) / 4)
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
        // A model that has not seen a picture of this kind yet may be far
        // off: leave it room for twice what it plans.
        let unknown = !self.known.get(t).copied().unwrap_or(false);
        let room = (fullness.saturating_mul(7) / 8).min(self.prefix_room(layer));
        let target = target
            .min(if unknown && self.split() {
                room / 2
            } else {
                room
            })
            .max(u64::from(f.header_bits) + 256);
        let payload = target - u64::from(f.header_bits).min(target);
        let qp_q8 = self.qp_q8_for(t, payload.max(64));
        if let Some(plan) = self.plan_fractional(f, t, layer, qp_q8, target) {
            return plan;
        }
        let mut qp = qp_q8.saturating_add(128).div_euclid(256);
        let held = self.slice_qp.get(t).copied().unwrap_or(0);
        if self.known.get(t).copied().unwrap_or(false)
            && held != 0
            && !f.scene_change
            && self.buffer_frames() >= 8
            && qp_q8.abs_diff(i32::from(held) * 256) < QP_HOLD_Q8
        {
            // A buffer of many pictures can wait: the QP stays until the
            // model asks for most of a step more, instead of flipping
            // between two neighbours with every picture's noise.
            qp = i32::from(held);
        }
        let (lo, hi) = (i32::from(self.cfg.qp_min), i32::from(self.cfg.qp_max));
        let step = self.qp_step();
        let last = i32::from(self.last_qp.get(t).copied().unwrap_or(0));
        if step > 0 && self.known[t] && !f.scene_change {
            // Going up faster is allowed when the buffer would otherwise underflow.
            let room = fullness.min(self.prefix_room(layer));
            let up =
                self.up_step_q8(t, last.saturating_mul(256), step.saturating_mul(256), room) / 256;
            qp = super::super::math::clamp_i32(qp, last - step, last + up);
        } else if !f.intra && !self.known[t] && self.split() && self.known[I] {
            // A seeded model has seen other pictures only: it may not take
            // the QP more than a halving of the bits below the last picture's.
            qp = qp.max(i32::from(self.last_any_qp).saturating_sub(6));
        }
        if f.intra && self.known[P] && !f.scene_change {
            // Intra pictures stay close to the P quality.
            let p = i32::from(self.last_qp[P]);
            qp = super::super::math::clamp_i32(qp, p - 6, p + 3);
        }
        let qp = super::super::math::clamp_i32(qp, lo, hi) as u8;
        self.commit_plan(t, layer, qp, None, target)
    }

    fn replan(&mut self, r: &FrameResult, last: bool) -> Replan {
        let layer = self.planned_layer;
        let t = if r.intra { I } else { P.saturating_add(layer) };
        // What the CPB, and the CPB of every prefix of layers holding the
        // picture, will hold at its removal (C.3.3).
        let room = self
            .cpb
            .fullness_bits()
            .min(self.prefix_fullness(layer).unwrap_or(u64::MAX));
        let bits = u64::from(r.bits);
        // The coding measured the picture: log2C = log2(bits) + QP / 6, from
        // the QP its macroblocks had (from the hardware: bounded first).
        let qp_avg_q8 = r.qp_avg_q8.min(u32::from(QP_MAX) * 256);
        let log2c = log2_q8(bits).saturating_add(qp_avg_q8 as i32 / 6);
        if self.first_pass_log2c.is_none() {
            if self.is_cut(t, log2c) {
                // A scene cut coded as a P picture is intra macroblocks
                // spent at a P picture's QP: as an intra picture it gets an
                // intra budget from the CPB, and the P model stays the
                // scene's.
                return Replan::Intra;
            }
            self.first_pass_log2c = Some(log2c);
        }
        // A CPB that still owes bits underflows at this removal whatever
        // the picture's size: coding it again cannot help.
        if bits <= room || self.cpb.deficit > 0 {
            return Replan::Keep;
        }
        if last || self.planned.qp >= self.cfg.qp_max {
            // Skipping lets the buffer refill for the next picture, which
            // is as costly: worth it only if that one can fit at all, at
            // the highest QP in a buffer filled to the set point of CBR
            // with filler. Otherwise skipping would freeze the picture for
            // good; the stream underflows here instead.
            let at_qp_max = log2c.saturating_sub(i32::from(self.cfg.qp_max) * 256 / 6);
            let full = self.cpb.size.saturating_mul(7) / 8;
            return if exp2_q8(at_qp_max) <= full.min(self.prefix_room(layer)) {
                Replan::Skip
            } else {
                Replan::Keep
            };
        }
        // Aim at 3/4 of the room, and round the QP up: every miss costs
        // another hardware run.
        let aim = (room.saturating_mul(7) / 8).max(256);
        let want = log2c
            .saturating_sub(log2_q8(aim))
            .saturating_mul(6)
            .saturating_add(255)
            .div_euclid(256);
        let qp = super::super::math::clamp_i32(
            want.max(i32::from(self.planned.qp).saturating_add(1)),
            i32::from(self.cfg.qp_min),
            i32::from(self.cfg.qp_max),
        ) as u8;
        self.planned.qp = qp;
        self.planned.target_bits = aim.min(u64::from(u32::MAX)) as u32;
        self.planned.fraction_q8 = None;
        self.replanned = true;
        Replan::Coarser(self.planned)
    }

    fn complete(&mut self, r: &FrameResult) -> u32 {
        let layer = self.planned_layer;
        let t = if r.intra { I } else { P.saturating_add(layer) };
        let bits = u64::from(r.bits).max(1);
        // log2C = log2(bits) + QP / 6, from the QP the macroblocks really had.
        // qp_avg_q8 comes from the hardware: any u32, so nothing may overflow.
        let qp_avg_q8 = r.qp_avg_q8.min(u32::from(QP_MAX) * 256);
        // A picture coded again was coded last at the QP that fits a nearly
        // empty buffer, far above its kind's: there, headers and motion that
        // no QP shrinks are most of the bits. Its first coding, at the QP
        // the model chose, is what the model learns from.
        let measured = self
            .first_pass_log2c
            .unwrap_or(log2_q8(bits).saturating_add(qp_avg_q8 as i32 / 6));
        let slow = self.buffer_frames() >= 16;
        let mut cut = self.replanned;
        if let (Some(&c), Some(true), false) = (self.log2c.get(t), self.known.get(t), t == I) {
            self.well_predicted = if measured.abs_diff(c) <= WELL_PREDICTED_Q8 && !self.replanned {
                self.well_predicted.saturating_add(1)
            } else {
                0
            };
        }
        let settled = self.settled();
        if let (Some(c), Some(k)) = (self.log2c.get_mut(t), self.known.get_mut(t)) {
            if *k && t != I && measured > c.saturating_add(CUT_Q8) {
                cut = true;
                // A P picture four times costlier than predicted is a cut,
                // mostly intra macroblocks: the P pictures after it predict
                // from the new scene and cost far less. Believe it by a
                // doubling only; those pictures teach the rest.
                *c = c.saturating_add(256);
            } else if !*k || measured.abs_diff(*c) > 256 {
                // A picture twice as costly (or half) as predicted is a new
                // scene: take it as it is.
                *c = measured;
            } else if slow && settled {
                // A model that predicts well learns slowest: each
                // picture's noise moves the next one's QP less.
                *c = c.saturating_mul(15).saturating_add(measured) / 16;
            } else if slow {
                *c = c.saturating_mul(7).saturating_add(measured) / 8;
            } else {
                *c = c.saturating_mul(3).saturating_add(measured) / 4;
            }
            *k = true;
        }
        if self.split() {
            // P models of layers not seen yet start from what was: the
            // same as a P picture of another layer, or a quarter of an
            // intra picture, instead of the blind first guess.
            let seed = if t == I {
                measured.saturating_sub(2 * 256)
            } else {
                measured
            };
            for (c, k) in self.log2c.iter_mut().zip(&self.known).skip(P) {
                if !*k {
                    *c = seed;
                }
            }
        }
        self.p_since_intra = if r.intra {
            0
        } else {
            self.p_since_intra.saturating_add(1)
        };
        self.last_any_qp = ((qp_avg_q8 + 128) / 256) as u8;
        // A cut, or a picture coded again to fit, had a QP of its own: the
        // pictures after it step from the QP before it.
        if !cut {
            if let Some(q) = self.last_qp.get_mut(t) {
                *q = self.last_any_qp;
            }
            if let Some(q) = self.last_q8.get_mut(t) {
                // At most 51 x 256: fits.
                *q = qp_avg_q8 as u16;
            }
            if let Some(q) = self.slice_qp.get_mut(t) {
                *q = self.planned.qp;
            }
        }
        self.account(bits, r.intra, layer)
    }

    fn skip(&mut self, bits: u32, temporal_id: u8) -> u32 {
        // A copy of the reference says nothing of the scene's cost: the
        // models and QPs stay as they were, and the next picture is planned
        // from the buffer the skip let refill.
        self.replanned = false;
        self.first_pass_log2c = None;
        self.p_since_intra = self.p_since_intra.saturating_add(1);
        self.account(
            u64::from(bits).max(1),
            false,
            usize::from(temporal_id).min(2),
        )
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
        for (c, k) in self.prefix_cpb.iter_mut().zip(0usize..3) {
            let share = prefix_share(&self.cfg.layer_share_q16, k);
            c.bit_rate = mul_div(u64::from(max_bitrate), share, 1 << 16);
        }
        // A new rate moves the QP by more than one step a picture.
        self.well_predicted = 0;
        self.planned.fraction_q8 = None;
        // The long-term balance restarts at the new rate; the layers keep
        // their shares of it.
        self.budget = 0;
        self.spent = 0;
        self.layer_budget = [0; 3];
        self.layer_spent = [0; 3];
        Ok(())
    }
}
