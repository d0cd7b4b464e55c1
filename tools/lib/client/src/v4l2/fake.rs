//! The kernel's side of a stateless encoder node, modelled for tests (public
//! so the command line's own tests can drive it too): every ioctl the
//! backend issues is checked as the V4L2 core (videobuf2, v4l2-ioctl) and
//! the hantro driver of Linux 6.12 with the H.264 backend would check it,
//! recorded, and carried out on the virtual device.
//!
//! The formats are hantro's for an H1 encoder (`stm32mp25_venc_fmts`; the
//! RK3288's `rk3288_vpu_enc_fmts` has the same source formats and H264 sizes,
//! other JPEG sizes), as `hantro_try_fmt` answers VIDIOC_S_FMT: it adjusts
//! and never fails. A node opens with JPEG at 96x96 and YM12 at that size.
//!
//! * CAPTURE (coded): `V4L2_PIX_FMT_H264` or, for any
//!   other fourcc, the first coded format of the list, JPEG; one plane; the
//!   size clamped to the format's `frmsize` and rounded up to it
//!   (H264: width 96..4080, height 48..4080, both multiples of 16;
//!   JPEG: 96..4096 x 96..2304, multiples of 16); the client's `sizeimage`,
//!   or the format's header size + width x height x 2 when it passes 0.
//!   Setting it resets the OUTPUT format to the default at the coded size,
//!   and the visible size to the coded size.
//! * OUTPUT (source): `V4L2_PIX_FMT_YUV420M` ('YM12', three planes),
//!   `V4L2_PIX_FMT_NV12M` ('NM12', two planes), YUYV and UYVY (one plane,
//!   packed 4:2:2, bytes per line twice the width), and while the CAPTURE
//!   format is H264 the RGB ones of the H.264 backend ('RGBP', 'XR24',
//!   'XB24', 'BX24', 'RX24'; one plane, 2 or 4 bytes a pixel); any other fourcc, the
//!   single-plane 'YU12' and 'NV12' included, becomes YM12. The size follows
//!   the CAPTURE format's `frmsize` (so it is whole macroblocks), and the
//!   planes are `v4l2_fill_pixfmt_mp`'s: bytes per line the width (half of
//!   it for YM12's chroma, the width for NM12's CbCr), no further alignment,
//!   `sizeimage` bytes per line x rows.
//! * VIDIOC_S_SELECTION (OUTPUT, CROP): the visible size the SPS crops to,
//!   taken only at (0, 0) and inside the last macroblock column and row of
//!   the OUTPUT size (else that whole size), its width and height rounded
//!   up to even for H.264 (to 4 for the width for JPEG).
//!
//! Buffers are videobuf2's: as many as VIDIOC_REQBUFS asks for (up to
//! 32), a plane array of at least the format's planes (and at most 8) on
//! VIDIOC_QUERYBUF, VIDIOC_QBUF and VIDIOC_DQBUF, each plane `sizeimage`
//! long, mapped at its own offset (plane P of buffer I at I x 8 + P pages,
//! CAPTURE buffers 1 << 30 further); an OUTPUT plane's `bytesused` no more
//! than its length. Stricter than the kernel, the model requires every
//! OUTPUT plane to be used whole (`bytesused` its length), which the H1
//! reads anyway. Media requests, one per source buffer, run as
//! v4l2-mem2mem schedules them (`fake/queues.rs`).
//!
//! VIDIOC_S_PARM on OUTPUT sets the frame interval, as the series adds it to
//! hantro (patch 5; 6.12 itself answers ENOTTY, and its H.264 backend would
//! code 30/1 into the VUI and its rate control): [`FakeKernel::s_parm`]
//! false models a kernel without it.

use super::encoder::fourcc_name;
use super::kernel::{Errno, Kernel};
use super::sys::*;
use crate::device::VirtualDevice;
use std::cell::RefCell;
use std::rc::Rc;
use v4l2_h264enc_uapi::{
    V4L2_CID_STATELESS_H264_ENCODE_FEEDBACK, V4L2_CID_STATELESS_H264_ENCODE_PARAMS,
    V4L2_CID_STATELESS_H264_ENCODE_RC,
};

const VIDEO_FD: i32 = 3;
const MEDIA_FD: i32 = 4;
/// V4L2_BUF_TYPE_VIDEO_OUTPUT, which v4l2-ioctl hands the driver's
/// selection handlers for the multiplanar type.
const OUTPUT_SINGLE: u32 = 2;

mod args;
mod format;
mod queues;
use args::*;
use format::*;
use queues::*;

/// The modelled kernel: one video node, its media node and its requests.
pub struct FakeKernel {
    /// Every call, one line each, shared with the test.
    pub log: Rc<RefCell<Vec<String>>>,
    /// Whether the node has the stateless H.264 encode controls.
    pub has_uapi: bool,
    /// Whether VIDIOC_S_PARM exists (hantro of 6.12 has none: ENOTTY).
    pub s_parm: bool,
    /// A hardware fault to arm before frame `.0` is encoded.
    pub fault_at: Option<(u32, hantro_vdev::Fault)>,
    dev: VirtualDevice,
    cap_fmt: CapFormat,
    out_fmt: OutFormat,
    /// Frame rate numerator and denominator from VIDIOC_S_PARM.
    fps: (u32, u32),
    q: Queues,
    /// Jobs run so far: the frame count a fault is armed at.
    frames: u32,
}

impl Default for FakeKernel {
    fn default() -> Self {
        Self::new()
    }
}

impl FakeKernel {
    /// A node with the uAPI, no fault armed, formats as hantro_reset_fmts()
    /// leaves them when the node is opened: the first coded format (JPEG)
    /// at its smallest size, YM12 at that size.
    pub fn new() -> Self {
        let (w, h) = (JPEG_FRMSIZE[0], JPEG_FRMSIZE[3]);
        let cap_fmt = CapFormat {
            pixelformat: JPEG,
            width: w,
            height: h,
            sizeimage: JPEG_HEADER_SIZE + w * h * 2,
            visible: (w, h),
        };
        FakeKernel {
            log: Rc::default(),
            has_uapi: true,
            s_parm: true,
            fault_at: None,
            dev: VirtualDevice::open(),
            out_fmt: OutFormat::try_fmt(YM12, w, h, &cap_fmt),
            cap_fmt,
            fps: (30, 1),
            q: Queues::default(),
            frames: 0,
        }
    }

    fn note(&self, s: String) {
        self.log.borrow_mut().push(s);
    }
}

impl FakeKernel {
    fn s_fmt(&mut self, f: &mut v4l2_format) -> Result<String, Errno> {
        // SAFETY: multiplanar formats use pix_mp.
        let mut pm = unsafe { f.fmt.pix_mp };
        let (asked, w, h) = (pm.pixelformat, pm.width, pm.height);
        let out_busy = self.q.out.allocated();
        let line = match f.type_ {
            CAPTURE => {
                // hantro_set_fmt_cap(), then hantro_try_fmt() for a coded format.
                let pixelformat = if asked == H264 || asked == JPEG {
                    asked
                } else {
                    JPEG
                };
                let mut cap = CapFormat {
                    pixelformat,
                    width: 0,
                    height: 0,
                    sizeimage: pm.plane_fmt[0].sizeimage,
                    visible: (0, 0),
                };
                (cap.width, cap.height) = frmsize(w, h, cap.frmsize());
                let c = self.cap_fmt;
                if out_busy
                    && (cap.pixelformat, cap.width, cap.height)
                        != (c.pixelformat, c.width, c.height)
                {
                    return Err(libc::EBUSY);
                }
                if cap.sizeimage == 0 {
                    // header_size + width x height x max_depth.
                    let header = if pixelformat == JPEG {
                        JPEG_HEADER_SIZE
                    } else {
                        0
                    };
                    cap.sizeimage = header + cap.width * cap.height * 2;
                }
                cap.visible = (cap.width, cap.height);
                pm.pixelformat = cap.pixelformat;
                pm.width = cap.width;
                pm.height = cap.height;
                pm.num_planes = 1;
                pm.plane_fmt[0].sizeimage = cap.sizeimage;
                self.cap_fmt = cap;
                // hantro_reset_raw_fmt(): the default source at the coded size.
                if !out_busy {
                    self.out_fmt = OutFormat::try_fmt(YM12, cap.width, cap.height, &cap);
                }
                format!("VIDIOC_S_FMT CAPTURE {} {w}x{h}", fourcc_name(asked))
            }
            OUTPUT => {
                if out_busy {
                    return Err(libc::EBUSY);
                }
                let o = OutFormat::try_fmt(asked, w, h, &self.cap_fmt);
                pm.pixelformat = o.pixelformat;
                pm.width = o.width;
                pm.height = o.height;
                pm.num_planes = o.planes.len() as u8;
                for (i, &(bpl, size)) in o.planes.iter().enumerate() {
                    pm.plane_fmt[i].bytesperline = bpl;
                    pm.plane_fmt[i].sizeimage = size;
                }
                self.out_fmt = o;
                format!("VIDIOC_S_FMT OUTPUT {} {w}x{h}", fourcc_name(asked))
            }
            _ => return Err(libc::EINVAL),
        };
        pm.field = 1; // V4L2_FIELD_NONE
        f.fmt.pix_mp = pm;
        let (gf, gw, gh, np) = (pm.pixelformat, pm.width, pm.height, pm.num_planes);
        Ok(if (gf, gw, gh) != (asked, w, h) {
            format!("{line} -> {} {gw}x{gh} {np} planes", fourcc_name(gf))
        } else {
            line
        })
    }

    /// vidioc_s_selection() of hantro_v4l2.c.
    fn s_selection(&mut self, s: &mut v4l2_selection) -> Result<String, Errno> {
        if !matches!(s.type_, OUTPUT | OUTPUT_SINGLE) {
            return Err(libc::EINVAL);
        }
        if self.q.out.streaming {
            return Err(libc::EBUSY);
        }
        if s.target != V4L2_SEL_TGT_CROP {
            return Err(libc::EINVAL);
        }
        let asked = s.r;
        let o = &self.out_fmt;
        let r = &mut s.r;
        if r.left != 0
            || r.top != 0
            || r.width.div_ceil(MB) * MB != o.width
            || r.height.div_ceil(MB) * MB != o.height
        {
            *r = v4l2_rect {
                left: 0,
                top: 0,
                width: o.width,
                height: o.height,
            };
        } else if self.cap_fmt.pixelformat == H264 {
            // H.264 crops in units of two samples.
            r.width = r.width.next_multiple_of(2);
            r.height = r.height.next_multiple_of(2);
        } else {
            r.width = r.width.div_ceil(4) * 4;
        }
        self.cap_fmt.visible = (r.width, r.height);
        Ok(format!(
            "VIDIOC_S_SELECTION OUTPUT crop {}x{} -> {}x{}",
            asked.width, asked.height, r.width, r.height
        ))
    }

    fn s_parm(&mut self, p: &mut v4l2_streamparm) -> Result<String, Errno> {
        if !self.s_parm {
            return Err(libc::ENOTTY);
        }
        if p.type_ != OUTPUT {
            return Err(libc::EINVAL);
        }
        // SAFETY: OUTPUT stream parameters use the output member.
        let t = unsafe { p.parm.output.timeperframe };
        if t.numerator == 0 || t.denominator == 0 {
            return Err(libc::EINVAL);
        }
        self.fps = (t.denominator, t.numerator);
        Ok(format!(
            "VIDIOC_S_PARM OUTPUT {}/{} s",
            t.numerator, t.denominator
        ))
    }

    fn ext_ctrls(&mut self, set: bool, c: &mut v4l2_ext_controls) -> Result<String, Errno> {
        // SAFETY: both members of the union are a u32.
        let which = unsafe { c.__bindgen_anon_1.which };
        let name = if set {
            "VIDIOC_S_EXT_CTRLS"
        } else {
            "VIDIOC_G_EXT_CTRLS"
        };
        if which == V4L2_CTRL_WHICH_REQUEST_VAL {
            let names = self.q.request_ctrls(set, c)?;
            return Ok(format!("{name} request {}", names.join(",")));
        }
        let ctrls = controls(c)?;
        let mut names = Vec::new();
        if which != V4L2_CTRL_WHICH_CUR_VAL || !set || c.request_fd != 0 {
            return Err(libc::EINVAL);
        }
        for (i, x) in ctrls.iter().enumerate() {
            c.error_idx = i as u32;
            let r = if x.size == 0 {
                // SAFETY: integer controls use the value member.
                self.dev.set_ctrl(x.id, unsafe { x.__bindgen_anon_1.value })
            } else {
                self.dev.set_ctrl_bytes(x.id, payload(x)?)
            };
            r.map_err(|e| -e.0)?;
            let id = x.id;
            names.push(format!("{id:#x}"));
        }
        c.error_idx = c.count;
        Ok(format!("{name} {}", names.join(",")))
    }

    /// The plane sizes of queue `ty`'s format (hantro_queue_setup).
    fn plane_sizes(&self, ty: u32) -> Vec<u32> {
        if ty == OUTPUT {
            self.out_fmt.planes.iter().map(|p| p.1).collect()
        } else {
            vec![self.cap_fmt.sizeimage]
        }
    }

    fn reqbufs(&mut self, rb: &mut v4l2_requestbuffers) -> Result<String, Errno> {
        let sizes = self.plane_sizes(rb.type_);
        self.q.reqbufs(rb, &sizes)
    }

    /// VIDIOC_STREAMON and VIDIOC_STREAMOFF; v4l2_m2m_streamon() then
    /// schedules the jobs that wait.
    fn stream(&mut self, req: Req, ty: u32) -> Result<String, Errno> {
        let on = req == Req::StreamOn;
        let q = self.q.queue(ty)?;
        if on && !q.allocated() {
            return Err(libc::EINVAL);
        }
        if on && ty == CAPTURE && !q.streaming {
            self.start_coding()?;
        }
        self.q.stream(ty, on);
        if on {
            self.run_jobs()?;
        }
        Ok(format!("{} {}", req.name(), queue_name(ty)))
    }

    /// VIDIOC_STREAMON of the CAPTURE (coded) queue: hantro_start_streaming()
    /// runs the H.264 backend's init, which takes the visible size, the
    /// source format and the frame rate.
    fn start_coding(&mut self) -> Result<(), Errno> {
        let c = self.cap_fmt;
        let Some(fmt) = self.out_fmt.layout() else {
            return Err(libc::EINVAL);
        };
        if c.pixelformat != H264 {
            return Err(libc::EINVAL);
        }
        let (w, h) = c.visible;
        self.dev
            .set_format(w, h, fmt, self.fps.0, self.fps.1)
            .map_err(|e| -e.0)?;
        self.dev.start().map_err(|e| -e.0)
    }

    /// Runs every job that can run, one at a time: the source planes at
    /// the driver's strides become a packed frame of the visible size for
    /// the virtual device, with the request's controls and timestamp.
    fn run_jobs(&mut self) -> Result<(), Errno> {
        let FakeKernel {
            q,
            dev,
            out_fmt,
            cap_fmt,
            fault_at,
            frames,
            ..
        } = self;
        q.run_jobs(|planes, r| {
            let frame = out_fmt.frame(cap_fmt.visible, planes).ok_or(libc::EINVAL)?;
            if let Some((n, f)) = *fault_at {
                if n == *frames {
                    dev.inject(f);
                }
            }
            *frames += 1;
            dev.encode_request(&frame, ts_ns(r.timestamp), r.params.as_ref(), r.rc.as_ref())
                .map_err(|e| -e.0)
        })
    }

    /// Carries out one ioctl on the right kind of fd; the line to log.
    fn call(&mut self, fd: i32, req: Req, arg: Arg) -> Result<String, Errno> {
        let right_fd = match req {
            Req::RequestAlloc => fd == MEDIA_FD,
            Req::RequestQueue | Req::RequestReinit => self.q.is_request(fd),
            _ => fd == VIDEO_FD,
        };
        if !right_fd {
            return Err(libc::ENOTTY);
        }
        match (req, arg) {
            (Req::QueryCap, Arg::Cap(c)) => {
                c.driver[..10].copy_from_slice(b"hantro-vpu");
                c.capabilities =
                    V4L2_CAP_VIDEO_M2M_MPLANE | V4L2_CAP_STREAMING | V4L2_CAP_DEVICE_CAPS;
                c.device_caps = V4L2_CAP_VIDEO_M2M_MPLANE | V4L2_CAP_STREAMING;
                Ok("VIDIOC_QUERYCAP".to_string())
            }
            (Req::QueryExtCtrl, Arg::QueryExtCtrl(q)) => {
                let known = [
                    V4L2_CID_STATELESS_H264_ENCODE_PARAMS,
                    V4L2_CID_STATELESS_H264_ENCODE_RC,
                    V4L2_CID_STATELESS_H264_ENCODE_FEEDBACK,
                ];
                if self.has_uapi && known.contains(&q.id) {
                    Ok(format!("VIDIOC_QUERY_EXT_CTRL {}", ctrl_name(q.id)))
                } else {
                    Err(libc::EINVAL)
                }
            }
            (Req::SFmt, Arg::Fmt(f)) => self.s_fmt(f),
            (Req::SSelection, Arg::Sel(s)) => self.s_selection(s),
            (Req::SParm, Arg::Parm(p)) => self.s_parm(p),
            (Req::SExtCtrls, Arg::ExtCtrls(c)) => self.ext_ctrls(true, c),
            (Req::GExtCtrls, Arg::ExtCtrls(c)) => self.ext_ctrls(false, c),
            (Req::ReqBufs, Arg::ReqBufs(rb)) => self.reqbufs(rb),
            (Req::QueryBuf | Req::QBuf | Req::DqBuf, Arg::Buf(b)) => {
                // v4l2_m2m_qbuf() schedules for a CAPTURE buffer; a
                // source buffer waits for its request to be queued.
                let line = self.q.buffer(req, b)?;
                if req == Req::QBuf && b.type_ == CAPTURE {
                    self.run_jobs()?;
                }
                Ok(line)
            }
            (Req::StreamOn | Req::StreamOff, Arg::Int(t)) => self.stream(req, *t as u32),
            (Req::EncoderCmd, Arg::EncCmd(c)) if c.cmd == V4L2_ENC_CMD_STOP => {
                Ok("VIDIOC_ENCODER_CMD STOP".into())
            }
            (Req::RequestAlloc, Arg::Int(fd)) => {
                *fd = self.q.alloc_request();
                Ok("MEDIA_IOC_REQUEST_ALLOC".into())
            }
            (Req::RequestQueue, Arg::None) => {
                // v4l2_m2m_request_queue() schedules once the request is in.
                self.q.queue_request(fd)?;
                self.run_jobs()?;
                Ok("MEDIA_REQUEST_IOC_QUEUE".into())
            }
            (Req::RequestReinit, Arg::None) => self
                .q
                .reinit_request(fd)
                .map(|()| "MEDIA_REQUEST_IOC_REINIT".into()),
            _ => Err(libc::EINVAL),
        }
    }
}

impl Kernel for FakeKernel {
    fn open(&mut self, path: &str) -> Result<i32, Errno> {
        self.note(format!("open {path}"));
        match path {
            "/dev/video0" => Ok(VIDEO_FD),
            "/dev/media0" => Ok(MEDIA_FD),
            _ => Err(libc::ENOENT),
        }
    }

    fn close(&mut self, fd: i32) {
        self.note(format!("close {fd}"));
        self.q.close_request(fd);
    }

    fn ioctl(&mut self, fd: i32, req: Req, arg: Arg) -> Result<(), Errno> {
        match self.call(fd, req, arg) {
            Ok(line) => {
                self.note(line);
                Ok(())
            }
            Err(e) => {
                self.note(format!("{} -> errno {e}", req.name()));
                Err(e)
            }
        }
    }

    /// vb2_mmap(): a shared mapping of one plane, found by its offset, no
    /// longer than the plane's page-aligned length.
    fn mmap(&mut self, fd: i32, len: usize, offset: u32) -> Result<*mut u8, Errno> {
        if fd != VIDEO_FD {
            return Err(libc::EINVAL);
        }
        let (mem, name) = self.q.plane_at(offset).ok_or(libc::EINVAL)?;
        // The kernel maps up to the page-aligned length; the model's planes
        // are exactly `sizeimage` long, and so must the mapping be at most.
        if len == 0 || len > mem.len() {
            return Err(libc::EINVAL);
        }
        let p = mem.as_mut_ptr();
        self.note(format!("mmap {name}"));
        Ok(p)
    }

    fn munmap(&mut self, _ptr: *mut u8, _len: usize) {
        self.note("munmap".into());
    }

    fn poll_pri(&mut self, fd: i32, _timeout_ms: i32) -> Result<bool, Errno> {
        self.note("poll request".into());
        Ok(self.q.completed(fd))
    }

    fn media_node(&mut self, _video: &str) -> Result<String, String> {
        Ok("/dev/media0".into())
    }
}

#[cfg(test)]
mod queue_tests;
#[cfg(test)]
mod tests;
