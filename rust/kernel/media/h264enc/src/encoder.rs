// SPDX-License-Identifier: GPL-2.0-only
//! The encoder state machine: plan a frame, write its headers, complete it
//! from the hardware's output.
//!
//! All stream state changes happen in [`Encoder::complete_frame`] after the
//! hardware output has been verified, so a frame that fails (timeout, buffer
//! full, mismatch) leaves the stream exactly as it was for the next one.

use super::access_unit::{headers_len, measure_param_sets, write_headers, AuHeaders};
use super::config::{frame_flags, rc_mode, Config, FrameParams};
use super::dpb::{Dpb, DpbEntry, RefPic};
use super::error::{Error, Result};
use super::gop::{Decision, GopConfig, RefChoice};
use super::level;
use super::math::{div_u64, mul_div};
use super::plan::{
    slice_type, FramePlan, FrameStatus, HwFeedback, Replanned, H264ENC_HRD_OVERFLOW,
    H264ENC_HRD_UNDERFLOW,
};
use super::poc;
use super::pps::PicParams;
use super::rc::inframe::{InFrameLearner, InFramePlan};
use super::rc::{FrameInfo, FrameResult, QpPlan, RateController, Rc, Replan};
use super::sei::SeiTiming;
use super::skip::{write_skipped_slice, SkippedSlice};
use super::sps::{Hrd, SeqParams};
pub use super::stream::level_needs;
use super::stream::{gop_of, hrd_of, param_sets, rate_controller};
use super::verify::{check_frame, StreamParams};

/// Largest header block the core writes in front of a picture (AUD, SPS, PPS, SEI).
pub const MAX_HEADER_BYTES: usize = 256;

/// The frame between plan and completion.
#[derive(Clone, Copy, Debug)]
struct Pending {
    plan: FramePlan,
    decision: Decision,
    timestamp: u64,
    /// FrameNumOffset + frame_num (8.2.1.3).
    abs_frame_num: u64,
    /// PicOrderCnt (8.2.1).
    pic_order_cnt: i32,
    header_bits: u32,
    inframe: InFramePlan,
    /// Hardware runs so far (the frame is coded again when the first would
    /// break the HRD).
    passes: u8,
    /// The request's parameters, to plan the picture again as an IDR one.
    params: FrameParams,
    /// No coding fitted: the core writes the picture as skipped.
    skipped: bool,
}

/// Most hardware runs of one frame: a coarser QP from a measured picture
/// nearly always fits at the second; the third is the last resort.
const MAX_PASSES: u8 = 3;

/// Running totals, for the driver's statistics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct Stats {
    /// Frames completed.
    pub frames: u64,
    /// Bits of all completed access units.
    pub bits: u64,
    /// Frames that failed and were dropped.
    pub errors: u64,
}

/// Encoder state; fixed size, no allocation.
#[derive(Clone, Copy, Debug)]
pub struct Encoder {
    cfg: Config,
    sps: SeqParams,
    pps: PicParams,
    gop: GopConfig,
    dpb: Dpb,
    rc: Rc,
    num_slots: u8,
    frames_since_idr: u64,
    frame_index: u64,
    prev_ref_frame_num: u32,
    /// FrameNumOffset + frame_num of the previous reference picture (8.2.1.3).
    prev_ref_abs_frame_num: u64,
    next_idr_pic_id: u16,
    frames_since_bp: u32,
    pending: Option<Pending>,
    /// The P picture a pending IDR picture was planned from at a scene cut,
    /// to skip if no coding of the IDR picture fits.
    cut_from: Option<Pending>,
    /// The SPS changed (new HRD): the next picture must be an IDR.
    force_idr: bool,
    /// The hardware's in-frame control, learned from its statistics.
    inframe: InFrameLearner,
    /// Bytes of the SPS and PPS NAL units.
    param_sets_bytes: u16,
    /// The SPS or PPS changed since a frame last carried them (or none has).
    param_sets_changed: bool,
    stats: Stats,
}

impl Encoder {
    /// Creates an encoder for `cfg`.
    pub fn new(cfg: &Config) -> Result<Encoder> {
        cfg.validate()?;
        let gop = gop_of(cfg);
        let num_ref_frames = gop.num_ref_frames(cfg.max_refs_per_frame);
        let hrd = hrd_of(cfg)?;
        let needs = level_needs(cfg)?;
        // A level the client chose must hold the stream (Annex A): the SPS
        // would otherwise promise decoders less than the stream needs.
        let level_idc = if cfg.level_idc != 0 {
            let l = level::limits(cfg.level_idc).ok_or(Error::InvalidParam)?;
            if !level::fits(l, &needs) {
                return Err(Error::InvalidParam);
            }
            l.level_idc
        } else {
            level::choose(&needs).ok_or(Error::InvalidParam)?
        };
        let (sps, pps) = param_sets(cfg, level_idc, hrd, num_ref_frames)?;
        let rc = rate_controller(cfg, hrd)?;
        Ok(Encoder {
            cfg: *cfg,
            sps,
            pps,
            gop,
            dpb: Dpb::new(num_ref_frames, u32::from(cfg.log2_max_frame_num_minus4) + 4)?,
            rc,
            num_slots: num_ref_frames as u8 + 1,
            frames_since_idr: 0,
            frame_index: 0,
            prev_ref_frame_num: 0,
            prev_ref_abs_frame_num: 0,
            next_idr_pic_id: 0,
            frames_since_bp: 0,
            pending: None,
            cut_from: None,
            force_idr: false,
            inframe: InFrameLearner::default(),
            param_sets_bytes: measure_param_sets(&sps, &pps)?,
            param_sets_changed: true,
            stats: Stats::default(),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.cfg
    }

    /// The sequence parameter set the core writes.
    pub fn sps(&self) -> &SeqParams {
        &self.sps
    }

    /// Reconstruction buffers the driver must provide.
    pub fn num_slots(&self) -> u8 {
        self.num_slots
    }

    /// Running totals.
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// The DPB, for inspection.
    pub fn dpb(&self) -> &Dpb {
        &self.dpb
    }

    /// Slices per picture.
    pub fn slices_per_picture(&self) -> u32 {
        match u32::from(self.cfg.slice_mb_rows) {
            0 => 1,
            rows => (self.cfg.height_mbs() + rows - 1)
                .checked_div(rows)
                .unwrap_or(1),
        }
    }

    /// Plans the next frame.
    pub fn plan_frame(&mut self, p: &FrameParams) -> Result<FramePlan> {
        if self.pending.is_some() {
            return Err(Error::BadState);
        }
        p.validate()?;
        let force = p.flags & (frame_flags::FORCE_IDR | frame_flags::SCENE_CHANGE) != 0
            || self.dpb.is_empty()
            || self.force_idr;
        let mut decision = self.gop.decide(self.frames_since_idr, force);
        let mut plan = FramePlan {
            frame_index: self.frame_index,
            ref_slot: 0xff,
            max_mvs_per_2mb: level::max_mvs_per_2mb(self.sps.level_idc),
            ..FramePlan::default()
        };
        if !decision.idr {
            // MaxFrameNum is a power of two: frame_num counts modulo it.
            plan.frame_num =
                self.prev_ref_frame_num.wrapping_add(1) & self.dpb.max_frame_num.wrapping_sub(1);
            let target = if p.flags & frame_flags::REFERENCE_TS != 0 {
                self.dpb
                    .by_timestamp(p.reference_ts)
                    .ok_or(Error::NoReference)?
            } else {
                let ltr = match decision.ref_choice {
                    RefChoice::LongTerm => self.dpb.long_term(),
                    RefChoice::Previous => None,
                };
                // Right after an IDR marked long-term, that picture is also the previous one.
                match ltr
                    .or_else(|| self.dpb.latest_below(decision.temporal_id))
                    .or_else(|| self.dpb.long_term())
                {
                    Some(i) => i,
                    None => {
                        decision.ref_choice = RefChoice::Previous;
                        self.dpb.latest_below(0).ok_or(Error::NoReference)?
                    }
                }
            };
            let r = self.dpb.get(target).ok_or(Error::NoReference)?;
            plan.ref_slot = r.slot as u8;
            plan.reference_ts = r.timestamp;
            // RefPicList0 after the modification (8.2.4.3): the target first,
            // then the default order without it, as far as the hardware reads.
            let mut list = [0u8; super::dpb::MAX_LIST];
            let n = self.dpb.p_list(plan.frame_num, &mut list);
            let list = list.get(..n).unwrap_or(&[]);
            if let Some(m) = self.dpb.modification_in(list, target, plan.frame_num)? {
                plan.ref_mod_idc_plus1 = m.idc + 1;
                plan.ref_mod_value = m.value;
            }
            let mut k = 0usize;
            let max = usize::from(self.cfg.max_refs_per_frame).min(plan.ref_list_slots.len());
            let order = core::iter::once(target).chain(
                list.iter()
                    .take(n)
                    .map(|&i| usize::from(i))
                    .filter(|&i| i != target),
            );
            for idx in order.take(max) {
                let slot = self.dpb.get(idx).ok_or(Error::NoReference)?.slot as u8;
                if let Some(s) = plan.ref_list_slots.get_mut(k) {
                    *s = slot;
                    k += 1;
                }
            }
            plan.num_ref_idx_active = k as u8;
        } else {
            plan.idr_pic_id = self.next_idr_pic_id;
        }
        plan.slice_type = if decision.idr {
            slice_type::I
        } else {
            slice_type::P
        };
        plan.idr = decision.idr as u8;
        plan.nal_ref_idc = match (decision.idr, decision.reference, decision.temporal_id) {
            (true, _, _) => 3,
            (false, false, _) => 0,
            (false, true, 0) => 2,
            _ => 1,
        };
        plan.temporal_id = decision.temporal_id;
        if p.flags & frame_flags::MARK_LONG_TERM != 0 {
            // MMCO 6 needs MaxLongTermFrameIdx 0, which every IDR picture
            // sets when long-term references are on (8.2.5.4.6); a
            // non-reference picture cannot be marked.
            if self.cfg.ltr_count == 0 || !decision.reference {
                return Err(Error::InvalidParam);
            }
            decision.mark_long_term = true;
        }
        plan.mark_long_term = decision.mark_long_term as u8;
        let frames_since_idr = if decision.idr {
            0
        } else {
            self.frames_since_idr
        };
        // POC type 0: two per frame in output (= coding) order (8.2.1.1).
        // The lsb counts modulo MaxPicOrderCntLsb, so the product may wrap.
        // log2_max_pic_order_cnt_lsb_minus4 is 0..=12 (7.4.2.1.1).
        let max_poc_lsb = 1u64 << (u32::from(self.sps.log2_max_poc_lsb_minus4.min(12)) + 4);
        plan.poc_lsb = (frames_since_idr.wrapping_mul(2) & max_poc_lsb.wrapping_sub(1)) as u32;
        let abs_frame_num = if decision.idr {
            0
        } else {
            self.prev_ref_abs_frame_num.saturating_add(1)
        };
        let pic_order_cnt = poc::pic_order_cnt(
            self.sps.pic_order_cnt_type,
            frames_since_idr,
            abs_frame_num,
            plan.nal_ref_idc != 0,
        );
        plan.rec_slot = (0..self.num_slots)
            .find(|s| !self.dpb.slot_in_use(u32::from(*s)))
            .ok_or(Error::Overflow)?;
        plan.with_parameter_sets =
            (decision.idr && (self.cfg.omit_param_sets == 0 || self.param_sets_changed)) as u8;

        self.pending = Some(Pending {
            plan,
            decision,
            timestamp: p.timestamp,
            abs_frame_num,
            pic_order_cnt,
            header_bits: 0,
            inframe: InFramePlan::default(),
            passes: 1,
            params: *p,
            skipped: false,
        });
        self.cut_from = None;
        let header_bits =
            (headers_len(&self.au_headers()?, self.param_sets_bytes)? as u32).saturating_mul(8);
        let info = FrameInfo {
            intra: decision.idr,
            scene_change: p.flags & frame_flags::SCENE_CHANGE != 0,
            temporal_id: decision.temporal_id,
            client_qp: if p.flags & frame_flags::QP != 0 {
                Some(p.qp)
            } else {
                None
            },
            header_bits,
        };
        // Only client mode takes a frame's QP: the rate controller of the
        // other modes would ignore it, and a request must never be half applied.
        if self.cfg.rc_mode != rc_mode::CLIENT && info.client_qp.is_some() {
            self.pending = None;
            return Err(Error::InvalidParam);
        }
        let q = self.rc.plan(&info);
        let inframe = self.plan_rate(&mut plan, &q, header_bits, !decision.idr);
        let pending = self.pending.as_mut().ok_or(Error::BadState)?;
        pending.plan = plan;
        pending.header_bits = header_bits;
        pending.inframe = inframe;
        Ok(plan)
    }

    /// Plans the pending P picture again as an IDR picture, as a scene
    /// change hint would have; `None` (and the P picture kept) where the
    /// client chose the picture's type, reference, marking or QP, or where
    /// no IDR picture can be planned.
    fn replan_as_idr(&mut self, pending: Pending) -> Option<FramePlan> {
        let client = frame_flags::REFERENCE_TS | frame_flags::MARK_LONG_TERM | frame_flags::QP;
        if self.cfg.rc_mode == rc_mode::CLIENT || pending.params.flags & client != 0 {
            return None;
        }
        let rc = self.rc;
        let mut params = pending.params;
        params.flags |= frame_flags::SCENE_CHANGE;
        self.pending = None;
        match self.plan_frame(&params) {
            Ok(plan) => {
                if let Some(p) = self.pending.as_mut() {
                    p.passes = pending.passes.saturating_add(1);
                }
                self.cut_from = Some(pending);
                Some(plan)
            }
            Err(_) => {
                self.rc = rc;
                self.pending = Some(pending);
                None
            }
        }
    }

    /// Sets the rate controller's decision `q` in `plan`, with the
    /// hardware's in-frame rate control for its target (or its fractional
    /// QP, in an inter picture).
    fn plan_rate(
        &self,
        plan: &mut FramePlan,
        q: &QpPlan,
        header_bits: u32,
        inter: bool,
    ) -> InFramePlan {
        plan.qp = q.qp;
        plan.qp_min = q.qp_min;
        plan.qp_max = q.qp_max;
        plan.target_bits = q.target_bits;
        let mut inframe = InFramePlan::default();
        // The hardware's in-frame control runs wherever a picture has a
        // target: always with CBR and VBR, and in constant quality where the
        // peak holds a picture back.
        if matches!(self.rc, Rc::Frame(_)) || (matches!(self.rc, Rc::Cq(_)) && plan.target_bits > 0)
        {
            let mbs = self.cfg.width_mbs() * self.cfg.height_mbs();
            let target = plan.target_bits.saturating_sub(header_bits);
            inframe = match q.fraction_q8 {
                Some(f) if inter => self.inframe.plan_fraction(target, mbs, f),
                _ => self.inframe.plan(target, mbs, inter),
            };
        }
        inframe.program(plan);
        inframe
    }

    /// The planned frame, once the hardware's output for it is verified
    /// against its plan; on error the frame is dropped.
    fn check_pending(
        &mut self,
        fb: &HwFeedback,
        stream: &[u8],
        nal_sizes: &[u32],
    ) -> Result<Pending> {
        let pending = self.pending.ok_or(Error::BadState)?;
        let params = StreamParams {
            cfg: &self.cfg,
            sps: &self.sps,
            pps: &self.pps,
            slices: self.slices_per_picture(),
        };
        if let Err(e) = check_frame(
            &params,
            &pending.plan,
            &pending.inframe,
            fb,
            stream,
            nal_sizes,
        ) {
            self.pending = None;
            self.stats.errors = self.stats.errors.saturating_add(1);
            return Err(e);
        }
        Ok(pending)
    }

    /// Decides, from the feedback of a hardware run of the planned frame,
    /// whether to code it again: at a coarser QP (new in-frame targets too)
    /// when the picture would underflow the CPB and a pass is left, as an
    /// IDR picture when a P picture was a scene cut, or not at all but as a
    /// skipped P picture when no coding fits.
    ///
    /// This is what keeps a low-delay CPB whole across a scene cut, where a
    /// P picture can take many times its budget. Nothing of the stream
    /// state changes but the plan's rate control.
    ///
    /// The coding is verified first, as [`Encoder::complete_frame`] does: a
    /// refused one drops the frame, and its statistics decide nothing.
    pub fn replan_frame(
        &mut self,
        fb: &HwFeedback,
        stream: &[u8],
        nal_sizes: &[u32],
    ) -> Result<Replanned> {
        let mut pending = self.check_pending(fb, stream, nal_sizes)?;
        let mbs = self.cfg.width_mbs() * self.cfg.height_mbs();
        let result = FrameResult {
            intra: pending.decision.idr,
            bits: pending.header_bits.saturating_add(fb.stream_bits),
            qp_avg_q8: div_u64(u64::from(fb.qp_sum) * 256, u64::from(mbs)) as u32,
            mbs,
        };
        let q = match self.rc.replan(&result, pending.passes >= MAX_PASSES) {
            Replan::Keep => return Ok(Replanned::Complete),
            Replan::Coarser(q) => q,
            Replan::Intra => {
                return Ok(self
                    .replan_as_idr(pending)
                    .map_or(Replanned::Complete, Replanned::CodeAgain))
            }
            Replan::Skip => return Ok(self.replan_as_skipped(pending)),
        };
        let inter = !pending.decision.idr;
        pending.inframe = self.plan_rate(&mut pending.plan, &q, pending.header_bits, inter);
        pending.passes = pending.passes.saturating_add(1);
        self.pending = Some(pending);
        Ok(Replanned::CodeAgain(pending.plan))
    }

    /// Plans the pending picture as a skipped P picture: the P picture
    /// itself, or the one an IDR picture at a scene cut was planned from.
    /// An IDR picture of its own (the first, a periodic or a requested one)
    /// cannot be skipped: it is completed as coded.
    fn replan_as_skipped(&mut self, pending: Pending) -> Replanned {
        let mut p = if !pending.decision.idr {
            pending
        } else if let Some(p) = self.cut_from.take() {
            p
        } else {
            return Replanned::Complete;
        };
        p.passes = pending.passes;
        p.skipped = true;
        self.pending = Some(p);
        Replanned::Skip(p.plan)
    }

    /// What goes in front of the planned frame's slices.
    fn au_headers(&self) -> Result<AuHeaders<'_>> {
        let plan = &self.pending.as_ref().ok_or(Error::BadState)?.plan;
        Ok(AuHeaders {
            aud: (self.cfg.aud != 0).then_some(plan.idr != 0),
            param_sets: (plan.with_parameter_sets != 0).then_some((&self.sps, &self.pps)),
            timing: self.sei_timing(plan),
        })
    }

    /// The HRD timing SEI of a picture, when the stream signals an HRD.
    fn sei_timing(&self, plan: &FramePlan) -> Option<SeiTiming> {
        match &self.rc {
            Rc::Frame(f) => Some(SeiTiming {
                sps_id: 0,
                buffering_period: if plan.idr != 0 {
                    Some((f.cpb.initial_removal_delay(), 0))
                } else {
                    None
                },
                cpb_removal_delay: if self.stats.frames == 0 {
                    0
                } else {
                    self.frames_since_bp.saturating_mul(2)
                },
                dpb_output_delay: 0,
            }),
            _ => None,
        }
    }

    /// Writes the NAL units the core puts before the planned frame's slices:
    /// AUD, SPS and PPS on IDR pictures, and the HRD SEI. Returns the bytes written.
    pub fn write_headers(&self, out: &mut [u8]) -> Result<usize> {
        write_headers(out, &self.au_headers()?)
    }

    /// Drops the planned frame (hardware error, timeout): the stream state stays
    /// as before it was planned.
    pub fn abort_frame(&mut self) -> Result {
        if self.pending.take().is_none() {
            return Err(Error::BadState);
        }
        self.stats.errors = self.stats.errors.saturating_add(1);
        Ok(())
    }

    /// Completes the planned frame from the hardware's feedback, its slice NAL
    /// units (`stream`, as written, start codes included) and NAL size table.
    /// On error the frame is dropped and the stream state is unchanged.
    pub fn complete_frame(
        &mut self,
        fb: &HwFeedback,
        stream: &[u8],
        nal_sizes: &[u32],
    ) -> Result<FrameStatus> {
        let pending = self.check_pending(fb, stream, nal_sizes)?;
        if pending.skipped {
            return Err(Error::BadState);
        }
        self.pending = None;
        self.mark(&pending)?;
        let mbs = self.cfg.width_mbs() * self.cfg.height_mbs();
        let payload_target = pending.plan.target_bits.saturating_sub(pending.header_bits);
        self.inframe.learn(
            &pending.inframe,
            payload_target,
            fb.stream_bits,
            fb.mad_count,
            mbs,
        );
        let au_bits = pending.header_bits.saturating_add(fb.stream_bits);
        let qp_avg_q8 = div_u64(u64::from(fb.qp_sum) * 256, u64::from(mbs)) as u32;
        let hrd_before = self.hrd_violations();
        let filler_bits = self.rc.complete(&FrameResult {
            intra: pending.decision.idr,
            bits: au_bits,
            qp_avg_q8,
            mbs,
        });
        Ok(self.commit(&pending, au_bits, filler_bits, qp_avg_q8, hrd_before))
    }

    /// Completes the planned frame as the skipped picture that
    /// [`Encoder::replan_frame`] chose: writes its whole access unit (the
    /// headers again, then one slice of P_Skip macroblocks) into `out`, and
    /// returns its bytes, filler not included, with the frame's status.
    /// On error the frame is dropped and the stream state is unchanged.
    pub fn complete_skipped(&mut self, out: &mut [u8]) -> Result<(usize, FrameStatus)> {
        let pending = self.pending.ok_or(Error::BadState)?;
        if !pending.skipped {
            return Err(Error::BadState);
        }
        let plan = pending.plan;
        let slice = SkippedSlice {
            nal_ref_idc: plan.nal_ref_idc,
            frame_num: plan.frame_num,
            log2_max_frame_num: u32::from(self.sps.log2_max_frame_num_minus4) + 4,
            poc_lsb: plan.poc_lsb,
            log2_max_poc_lsb: if self.sps.pic_order_cnt_type == 0 {
                u32::from(self.sps.log2_max_poc_lsb_minus4.min(12)) + 4
            } else {
                0
            },
            ref_mod_idc_plus1: plan.ref_mod_idc_plus1,
            ref_mod_value: plan.ref_mod_value,
            mark_long_term: plan.mark_long_term != 0,
            cabac_init_idc: if self.pps.entropy_coding_mode_flag {
                Some(self.cfg.cabac_init_idc)
            } else {
                None
            },
            slice_qp: plan.qp,
            pic_size_in_mbs: self.cfg.width_mbs() * self.cfg.height_mbs(),
        };
        let written = self.write_headers(out).and_then(|n| {
            let m = write_skipped_slice(out.get_mut(n..).ok_or(Error::NoSpace)?, &slice)?;
            let len = u32::try_from(n.saturating_add(m)).map_err(|_| Error::Overflow)?;
            len.checked_mul(8)
                .map(|bits| (len, bits))
                .ok_or(Error::Overflow)
        });
        self.pending = None;
        let (len, au_bits) = written.inspect_err(|_| {
            self.stats.errors = self.stats.errors.saturating_add(1);
        })?;
        self.mark(&pending)?;
        let hrd_before = self.hrd_violations();
        let filler_bits = self.rc.skip(au_bits, plan.temporal_id);
        let status = self.commit(
            &pending,
            au_bits,
            filler_bits,
            u32::from(plan.qp) * 256,
            hrd_before,
        );
        Ok((len as usize, status))
    }

    /// Marks a completed reference picture in the DPB (8.2.5), before
    /// anything else moves on: a marking refused drops the frame, uncounted
    /// by the rate control.
    fn mark(&mut self, pending: &Pending) -> Result {
        let plan = pending.plan;
        let d = pending.decision;
        if d.reference {
            let pic = RefPic {
                in_use: true,
                long_term: false,
                temporal_id: d.temporal_id,
                long_term_frame_idx: 0,
                frame_num: plan.frame_num,
                pic_order_cnt: pending.pic_order_cnt,
                slot: u32::from(plan.rec_slot),
                decode_index: self.frame_index,
                timestamp: pending.timestamp,
            };
            if let Err(e) = self.dpb.mark(pic, d.idr, plan.mark_long_term != 0) {
                self.stats.errors = self.stats.errors.saturating_add(1);
                return Err(e);
            }
            self.prev_ref_frame_num = plan.frame_num;
            self.prev_ref_abs_frame_num = pending.abs_frame_num;
        }
        Ok(())
    }

    /// Moves the stream state on past a completed and marked picture: the
    /// counters and the statistics; returns its status.
    fn commit(
        &mut self,
        pending: &Pending,
        au_bits: u32,
        filler_bits: u32,
        qp_avg_q8: u32,
        hrd_before: (u32, u32),
    ) -> FrameStatus {
        let plan = pending.plan;
        let d = pending.decision;
        if plan.with_parameter_sets != 0 {
            self.param_sets_changed = false;
        }
        if d.idr {
            self.force_idr = false;
            self.frames_since_idr = 1;
            self.next_idr_pic_id = (self.next_idr_pic_id ^ 1) & 1;
            self.frames_since_bp = 1;
        } else {
            self.frames_since_idr = self.frames_since_idr.saturating_add(1);
            self.frames_since_bp = self.frames_since_bp.saturating_add(1);
        }
        // A filler NAL unit has at least 6 bytes: start code, header, trailing bits.
        let filler_bytes = if filler_bits == 0 {
            0
        } else {
            (filler_bits / 8).max(6)
        };
        // The u64 frame index never wraps (2^64 frames); it only tells
        // frames apart, so wrapping is its meaning. The statistics saturate.
        self.frame_index = self.frame_index.wrapping_add(1);
        self.stats.frames = self.stats.frames.saturating_add(1);
        self.stats.bits = self
            .stats
            .bits
            .saturating_add(u64::from(au_bits) + u64::from(filler_bytes) * 8);
        let fullness = match &self.rc {
            Rc::Frame(f) => f.cpb.fullness_bits().min(u64::from(u32::MAX)) as u32,
            _ => 0,
        };
        // The model counts violations since the stream began; the feedback
        // reports this picture's alone.
        let hrd_after = self.hrd_violations();
        let hrd_flags = if hrd_after.0 != hrd_before.0 {
            H264ENC_HRD_UNDERFLOW
        } else {
            0
        } | if hrd_after.1 != hrd_before.1 {
            H264ENC_HRD_OVERFLOW
        } else {
            0
        };
        FrameStatus {
            au_bits: au_bits.saturating_add(filler_bytes.saturating_mul(8)),
            filler_bytes,
            cpb_fullness: fullness,
            target_bits: plan.target_bits,
            qp_avg_q8,
            frame_num: plan.frame_num,
            pic_order_cnt: pending.pic_order_cnt,
            slice_type: plan.slice_type,
            idr: plan.idr,
            nal_ref_idc: plan.nal_ref_idc,
            temporal_id: plan.temporal_id,
            long_term: plan.mark_long_term,
            hrd_flags,
            passes: pending.passes,
            skipped: pending.skipped as u8,
        }
    }

    /// Underflows and overflows of the CPB model since the stream began.
    fn hrd_violations(&self) -> (u32, u32) {
        match &self.rc {
            Rc::Frame(f) => (f.cpb.underflows, f.cpb.overflows),
            _ => (0, 0),
        }
    }

    /// Returns the `n`-th reference picture of the DPB, after the marking of
    /// the last completed frame.
    pub fn dpb_entry(&self, n: usize) -> Option<DpbEntry> {
        self.dpb.entry(n)
    }

    /// Changes the bit rate while streaming (CBR and VBR: the next picture
    /// is an IDR picture with the new HRD), or constant quality's peak.
    pub fn set_bitrate(&mut self, bitrate: u32, max_bitrate: u32) -> Result {
        if self.cfg.rc_mode == rc_mode::CQ {
            // Constant quality signals no HRD: the new peak bounds the
            // windows from the next picture on, with no IDR picture.
            if self.pending.is_some() {
                return Err(Error::BadState);
            }
            self.rc.set_bitrate(bitrate, max_bitrate)?;
            self.cfg.max_bitrate = max_bitrate;
            return Ok(());
        }
        let peak = if self.cfg.rc_mode == rc_mode::VBR {
            max_bitrate
        } else {
            bitrate
        };
        if self.pending.is_some() {
            return Err(Error::BadState);
        }
        let hrd = match self.sps.nal_hrd {
            Some(h) => Hrd::new(peak, h.cpb_size().min(u64::from(u32::MAX)) as u32, h.cbr)?,
            None => return Err(Error::InvalidParam),
        };
        let signalled = hrd.bit_rate().min(u64::from(u32::MAX)) as u32;
        self.rc.set_bitrate(bitrate.min(signalled), signalled)?;
        self.sps.nal_hrd = Some(hrd);
        self.param_sets_bytes = measure_param_sets(&self.sps, &self.pps)?;
        self.param_sets_changed = true;
        self.cfg.bitrate = bitrate;
        self.cfg.max_bitrate = peak;
        // New HRD parameters mean a new SPS, which only an IDR picture may activate.
        self.force_idr = true;
        Ok(())
    }

    /// Bits per frame at the configured rate (for reports).
    pub fn bits_per_frame(&self) -> u64 {
        mul_div(
            u64::from(self.cfg.bitrate),
            u64::from(self.cfg.fps_den),
            u64::from(self.cfg.fps_num),
        )
    }
}
