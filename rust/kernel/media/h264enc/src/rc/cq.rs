// SPDX-License-Identifier: GPL-2.0-only
//! Constant quality with a peak: the QP of the quality asked for, raised only
//! when a picture would make the bits of the last second exceed the peak.
//!
//! The window is exact: the bits of the last `window` pictures are kept, so
//! that a picture may take what the peak leaves after the pictures before it
//! in its one-second window. A rate model (log2 bits = log2C - QP / 6, per
//! picture type, as in [`super::frame`]) says how far the QP must go up.

use super::controller::{FrameInfo, FrameResult, QpPlan, RateController, QP_MAX};

use super::super::error::{Error, Result};
use super::super::math::{clamp_i32, div_u64, log2_q8};

/// Pictures the window can hold: one second at up to 64 frames per second
/// (faster streams bound a window of 64 pictures instead, a shorter one).
pub const WINDOW_MAX: usize = 64;

/// Constant quality, with an optional peak over any one-second window.
#[derive(Clone, Copy, Debug)]
pub struct CappedCq {
    /// QP of intra pictures.
    qp_i: u8,
    /// QP of P pictures.
    qp_p: u8,
    /// Bits any window of `window` consecutive pictures may hold; 0 for no peak.
    window_bits: u64,
    /// Pictures in one second, at most [`WINDOW_MAX`].
    window: usize,
    /// Pictures in one second.
    per_second: u64,
    /// Bits of the last pictures, oldest at `next`.
    bits: [u32; WINDOW_MAX],
    next: usize,
    /// log2C of intra and P pictures, Q8: a first guess until one was seen.
    log2c: [i32; 2],
    known: [bool; 2],
    /// The costliest recent picture of each type, decaying by 1/16 bit a
    /// picture: content that alternates between cheap and costly pictures
    /// would otherwise have the model expect the cheap one every time.
    log2c_high: [i32; 2],
    /// QP of the last picture of each type that the peak held back (QP
    /// above the quality's), 0 when it was not: the next one comes down
    /// from it by at most [`QP_FALL`], as the model has seen little yet.
    held_qp: [u8; 2],
    planned_held: u8,
}

/// Largest QP fall from a held-back picture to the next of its type.
const QP_FALL: u8 = 4;

impl CappedCq {
    /// Creates the controller: `peak` bits/s over any second at
    /// `fps_num / fps_den` pictures per second (0 for no peak).
    pub fn new(
        qp_i: u8,
        qp_p: u8,
        peak: u32,
        (fps_num, fps_den): (u32, u32),
        pixels: u32,
    ) -> Result<CappedCq> {
        if qp_i > QP_MAX || qp_p > QP_MAX || fps_num == 0 || fps_den == 0 {
            return Err(Error::InvalidParam);
        }
        // The pictures whose removal times fall within one second.
        let per_second = div_u64(
            u64::from(fps_num).saturating_add(u64::from(fps_den).saturating_sub(1)),
            u64::from(fps_den),
        );
        let window = per_second.clamp(1, WINDOW_MAX as u64) as usize;
        // A window shorter than a second (above 64 fps) holds its share of the peak.
        let window_bits = div_u64(
            u64::from(peak).saturating_mul(window as u64),
            per_second.max(1),
        );
        // First guess, as the frame-level controller's: an intra picture at
        // QP 26 takes about 0.4 bit per luma sample, a P picture a quarter.
        let i_bits = u64::from(pixels.max(256)) * 2 / 5;
        let log2c_i = log2_q8(i_bits).saturating_add(26 * 256 / 6);
        Ok(CappedCq {
            qp_i,
            qp_p,
            window_bits,
            window,
            per_second,
            bits: [0; WINDOW_MAX],
            next: 0,
            log2c: [log2c_i, log2c_i.saturating_sub(2 * 256)],
            known: [false; 2],
            log2c_high: [i32::MIN; 2],
            held_qp: [0; 2],
            planned_held: 0,
        })
    }

    /// Bits of the last `window - 1` pictures: those sharing a window with the next.
    fn recent(&self) -> u64 {
        let oldest = self.next;
        self.bits
            .iter()
            .take(self.window)
            .zip(0usize..WINDOW_MAX)
            .filter(|&(_, k)| k != oldest)
            .fold(0u64, |a, (&b, _)| a.saturating_add(u64::from(b)))
    }
}

impl RateController for CappedCq {
    fn plan(&mut self, f: &FrameInfo) -> QpPlan {
        let t = usize::from(!f.intra);
        // Higher temporal layers one QP more per layer, as constant QP does.
        let base = if f.intra {
            self.qp_i
        } else {
            self.qp_p.saturating_add(f.temporal_id).min(QP_MAX)
        };
        let floor = self
            .held_qp
            .get(t)
            .copied()
            .unwrap_or(0)
            .saturating_sub(QP_FALL);
        let quality = base;
        let base = base.max(floor);
        self.planned_held = 0;
        let flat = QpPlan {
            qp: base,
            qp_min: base,
            qp_max: base,
            target_bits: 0,
            fraction_q8: None,
        };
        if self.window_bits == 0 {
            return flat;
        }
        // What the peak leaves this picture, less an eighth for the model's
        // error, and paced: an intra picture at most a third of the window,
        // a P picture twice its even share, so that one picture does not
        // leave the next ones of its window nothing.
        let room = self.window_bits.saturating_sub(self.recent());
        let pace = if f.intra {
            self.window_bits / 3
        } else {
            div_u64(self.window_bits.saturating_mul(2), self.window as u64)
        };
        let known = self.known.get(t).copied().unwrap_or(false);
        // A guessed model may be off by half.
        let margin = if known { room / 8 } else { room / 2 };
        let cap = room
            .saturating_sub(margin)
            .min(pace)
            .max(u64::from(f.header_bits).saturating_add(256));
        let log2c = self
            .log2c
            .get(t)
            .copied()
            .unwrap_or(0)
            .max(self.log2c_high.get(t).copied().unwrap_or(0));
        let predicted = log2c.saturating_sub(i32::from(base).saturating_mul(256) / 6);
        let target_bits = cap.min(u64::from(u32::MAX)) as u32;
        if predicted <= log2_q8(cap) {
            // The quality's QP, with the hardware's in-frame control armed
            // to raise it should the picture cost more than the model says.
            if base > quality {
                self.planned_held = base;
            }
            return QpPlan {
                qp_max: QP_MAX,
                target_bits,
                fraction_q8: None,
                ..flat
            };
        }
        // QP = 6 (log2C - log2 cap), rounded up, never below the quality's.
        let payload = cap.saturating_sub(u64::from(f.header_bits)).max(64);
        let need = log2c
            .saturating_sub(log2_q8(payload))
            .saturating_mul(6)
            .saturating_add(255)
            .div_euclid(256);
        let qp = clamp_i32(need, i32::from(base), i32::from(QP_MAX)) as u8;
        self.planned_held = qp;
        QpPlan {
            qp,
            qp_min: qp,
            qp_max: QP_MAX,
            target_bits,
            fraction_q8: None,
        }
    }

    fn complete(&mut self, r: &FrameResult) -> u32 {
        let qp_avg_q8 = r.qp_avg_q8.min(u32::from(QP_MAX) * 256);
        let measured = log2_q8(u64::from(r.bits).max(1)).saturating_add(qp_avg_q8 as i32 / 6);
        let t = usize::from(!r.intra);
        if let (Some(c), Some(k)) = (self.log2c.get_mut(t), self.known.get_mut(t)) {
            // A picture twice as costly as the model said: take it as it is.
            *c = if *k && measured.abs_diff(*c) <= 256 {
                c.saturating_mul(3).saturating_add(measured) / 4
            } else {
                measured
            };
            *k = true;
        }
        if let Some(h) = self.held_qp.get_mut(t) {
            *h = self.planned_held;
        }
        if let Some(h) = self.log2c_high.get_mut(t) {
            *h = measured.max(h.saturating_sub(16));
        }
        if r.intra && !self.known[1] {
            // P pictures start from a quarter of what the intra one cost.
            self.log2c[1] = measured.saturating_sub(2 * 256);
        }
        if let Some(b) = self.bits.get_mut(self.next) {
            *b = r.bits;
        }
        let n = self.next.saturating_add(1);
        self.next = if n >= self.window { 0 } else { n };
        0
    }

    /// Changes the peak (`max_bitrate`; 0 for none) from the next picture on.
    fn set_bitrate(&mut self, _bitrate: u32, max_bitrate: u32) -> Result {
        self.window_bits = div_u64(
            u64::from(max_bitrate).saturating_mul(self.window as u64),
            self.per_second.max(1),
        );
        Ok(())
    }
}
