//! `h264enc check-device`: does a device follow the rules of the stateless
//! encode uAPI (Documentation/userspace-api/media/v4l/dev-stateless-encoder.rst)
//! that a client relies on? Each rule is tried through the device's own
//! calls (ioctls on a V4L2 node) and reported on one line; the first broken
//! rule ends the check with what the device did instead.

use h264enc_client::device::{Completed, Device};
use h264enc_client::session::{configure, RcMode, StreamConfig};
use v4l2_h264enc_uapi::*;

const W: u32 = 176;
const H: u32 = 144;

/// A QCIF frame that moves with `i`: enough texture for P pictures to differ.
fn frame(i: u64) -> Vec<u8> {
    let (w, h) = (W as usize, H as usize);
    let mut f = vec![128u8; w * h * 3 / 2];
    for y in 0..h {
        for x in 0..w {
            f[y * w + x] = ((x + 2 * i as usize) ^ y) as u8;
        }
    }
    f
}

/// Timestamp of frame `i`, in whole microseconds as a V4L2 buffer keeps it.
fn ts(i: u64) -> u64 {
    i * 33_333_000
}

struct Checker<'a> {
    d: &'a mut dyn Device,
    next: u64,
    report: Vec<String>,
}

fn rule(ok: bool, what: &str, got: impl FnOnce() -> String) -> Result<String, String> {
    if ok {
        Ok(format!("ok: {what}"))
    } else {
        Err(format!("rule broken: {what}: {}", got()))
    }
}

/// The feedback's decisions in a line: what a broken rule shows.
fn summary(c: &Completed) -> String {
    let fb = &c.feedback;
    format!(
        "buffer flags {:#x}, error {}, slice_type {}, frame_num {}, flags {:#x}",
        c.flags, fb.error, fb.slice_type, fb.frame_num, fb.flags
    )
}

impl Checker<'_> {
    /// Encodes the next frame with `params` and no QP of its own.
    fn frame(&mut self, params: &v4l2_ctrl_h264_encode_params) -> Result<Completed, String> {
        self.frame_rc(params, &Default::default())
    }

    /// Encodes the next frame with `params` and `rc`.
    fn frame_rc(
        &mut self,
        params: &v4l2_ctrl_h264_encode_params,
        rc: &v4l2_ctrl_h264_encode_rc,
    ) -> Result<Completed, String> {
        let i = self.next;
        self.next += 1;
        self.d.encode(&frame(i), ts(i), params, rc)
    }

    fn plain(&mut self) -> Result<Completed, String> {
        self.frame(&Default::default())
    }

    fn note(&mut self, r: Result<String, String>) -> Result<(), String> {
        self.report.push(r?);
        Ok(())
    }

    fn incomplete_requests(&mut self) -> Result<(), String> {
        let (p, rc) = (
            v4l2_ctrl_h264_encode_params::default(),
            v4l2_ctrl_h264_encode_rc::default(),
        );
        for (what, params, rcc) in [
            ("ENCODE_RC", Some(&p), None),
            ("ENCODE_PARAMS", None, Some(&rc)),
        ] {
            let r = self.d.encode_request(&frame(0), ts(0), params, rcc);
            self.note(rule(
                matches!(&r, Err(e) if e.contains("ENOENT")),
                &format!("a request without {what} is refused with ENOENT when it is queued"),
                || format!("{:?}", r.as_ref().map(|c| c.feedback.error)),
            ))?;
        }
        let c = self.plain()?;
        self.note(rule(
            c.keyframe() && c.feedback.frame_num == 0 && c.feedback.error == 0,
            "nothing of a refused request reaches the encoder: the first frame coded is the IDR picture",
            || summary(&c),
        ))
    }

    fn busy_while_streaming(&mut self) -> Result<(), String> {
        for (id, name) in [
            (V4L2_CID_MPEG_VIDEO_H264_PROFILE, "H264_PROFILE"),
            (V4L2_CID_MPEG_VIDEO_H264_LEVEL, "H264_LEVEL"),
            (V4L2_CID_MPEG_VIDEO_H264_ENTROPY_MODE, "H264_ENTROPY_MODE"),
            (V4L2_CID_MPEG_VIDEO_GOP_SIZE, "GOP_SIZE"),
            (V4L2_CID_MPEG_VIDEO_BITRATE_MODE, "BITRATE_MODE"),
            (V4L2_CID_MPEG_VIDEO_FRAME_RC_ENABLE, "FRAME_RC_ENABLE"),
            (V4L2_CID_MPEG_VIDEO_AU_DELIMITER, "AU_DELIMITER"),
            (V4L2_CID_MPEG_VIDEO_LTR_COUNT, "LTR_COUNT"),
            (
                V4L2_CID_MPEG_VIDEO_H264_HIER_CODING_L0_BR,
                "H264_HIER_CODING_L0_BR",
            ),
        ] {
            let r = self.d.set_ctrl(id, 1);
            self.note(rule(
                matches!(&r, Err(e) if e.contains("EBUSY")),
                &format!("V4L2_CID_MPEG_VIDEO_{name} is busy (EBUSY) while streaming"),
                || format!("{r:?}"),
            ))?;
        }
        Ok(())
    }

    fn changes_while_streaming(&mut self) -> Result<(), String> {
        let r = self.d.set_bitrate(150_000, 150_000);
        let c = self.plain()?;
        self.note(rule(
            r.is_ok() && c.keyframe(),
            "the bit rate may change while streaming: the next frame is an IDR picture",
            || format!("{r:?}, then keyframe {}", c.keyframe()),
        ))?;
        let r = self.d.set_ctrl(V4L2_CID_MPEG_VIDEO_FORCE_KEY_FRAME, 1);
        let (a, b) = (self.plain()?, self.plain()?);
        self.note(rule(
            r.is_ok() && a.keyframe() && !b.keyframe(),
            "FORCE_KEY_FRAME makes the next frame an IDR picture, once",
            || format!("{r:?}, then keyframes {} {}", a.keyframe(), b.keyframe()),
        ))
    }

    fn per_request(&mut self) -> Result<(), String> {
        let p = self.plain()?;
        let idr = self.frame(&v4l2_ctrl_h264_encode_params {
            flags: V4L2_H264_ENCODE_FLAG_FORCE_IDR,
            ..Default::default()
        })?;
        let after = self.plain()?;
        self.note(rule(
            !p.keyframe() && idr.keyframe() && !after.keyframe(),
            "V4L2_H264_ENCODE_FLAG_FORCE_IDR applies to its request's frame only",
            || {
                format!(
                    "keyframes {} {} {}",
                    p.keyframe(),
                    idr.keyframe(),
                    after.keyframe()
                )
            },
        ))?;
        let fb = &after.feedback;
        // After its reference marking the DPB holds the frame itself.
        let own = ts(self.next - 1);
        let held = fb.dpb.iter().any(|e| e.flags != 0 && e.reference_ts == own);
        self.note(rule(
            fb.frame_bytes as usize == after.payload.len()
                && u32::from(fb.slice_type) == V4L2_H264_SLICE_TYPE_P
                && fb.frame_num == 1
                && fb.error == 0
                && held,
            "the feedback gives the frame's size, slice type and frame_num, and the DPB by timestamp",
            || {
                format!(
                    "frame_bytes {} for {} payload bytes, slice_type {}, frame_num {}, error {}, DPB holds the frame: {held}",
                    fb.frame_bytes,
                    after.payload.len(),
                    fb.slice_type,
                    fb.frame_num,
                    fb.error
                )
            },
        ))
    }

    fn failed_frames(&mut self) -> Result<(), String> {
        let before = self.plain()?;
        let c = self.frame(&v4l2_ctrl_h264_encode_params {
            reference_ts: 12_345_000,
            flags: V4L2_H264_ENCODE_FLAG_REFERENCE_TS,
            ..Default::default()
        })?;
        self.note(rule(
            c.flags & V4L2_BUF_FLAG_ERROR != 0 && c.feedback.error == 2,
            "a reference the encoder does not hold fails the frame: ERROR buffers, ENOENT in the feedback",
            || summary(&c),
        ))?;
        let qp = self.frame_rc(
            &Default::default(),
            &v4l2_ctrl_h264_encode_rc {
                flags: V4L2_H264_ENCODE_RC_FLAG_QP,
                qp: 30,
                ..Default::default()
            },
        )?;
        self.note(rule(
            qp.flags & V4L2_BUF_FLAG_ERROR != 0 && qp.feedback.error == 22,
            "a frame QP with frame-level rate control on fails the frame with EINVAL",
            || summary(&qp),
        ))?;
        let next = self.plain()?;
        self.note(rule(
            next.feedback.error == 0 && next.feedback.frame_num == before.feedback.frame_num + 1,
            "a failed frame leaves the stream as it was: the next frame_num follows the last coded one",
            || summary(&next),
        ))
    }
}

/// Checks the rules on `d`, a device not yet configured; returns the report.
pub fn check(d: &mut dyn Device, virtual_h1: bool) -> Result<String, String> {
    let cfg = StreamConfig {
        rc: Some(RcMode::Cbr),
        bitrate: Some(200_000),
        virtual_h1,
        ..StreamConfig::new(W, H)
    };
    configure(d, &cfg)?;
    let mut c = Checker {
        d,
        next: 0,
        report: Vec::new(),
    };
    let r = c
        .incomplete_requests()
        .and_then(|()| c.busy_while_streaming())
        .and_then(|()| c.per_request())
        .and_then(|()| c.changes_while_streaming())
        .and_then(|()| c.failed_frames());
    let _ = c.d.finish();
    let mut out = c.report.join("\n");
    match r {
        Ok(()) => {
            out.push_str(&format!(
                "\ncheck-device: all {} rules hold\n",
                c.report.len()
            ));
            Ok(out)
        }
        Err(e) => Err(format!("{out}\n{e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use h264enc_client::v4l2::fake::FakeKernel;
    use h264enc_client::v4l2::V4l2Encoder;

    #[test]
    fn the_virtual_device_follows_the_rules() {
        let mut d = hantro_vdev::VirtualDevice::open();
        let report = check(&mut d, true).unwrap();
        assert!(report.ends_with("rules hold\n"), "{report}");
    }

    #[test]
    fn the_modelled_kernel_follows_the_rules() {
        let mut d = V4l2Encoder::open(FakeKernel::new(), "/dev/video0").unwrap();
        let report = check(&mut d, false).unwrap();
        assert!(report.ends_with("rules hold\n"), "{report}");
    }
}
