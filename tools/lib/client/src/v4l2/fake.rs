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
//!   packed 4:2:2, bytes per line twice the width); any other fourcc, the
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
//! Buffers are videobuf2's: a plane array of at least the format's planes
//! (and at most 8) on VIDIOC_QUERYBUF, VIDIOC_QBUF and VIDIOC_DQBUF, each
//! plane `sizeimage` long, mapped at its own offset (plane N of the OUTPUT
//! buffer at N pages, the CAPTURE buffer at 1 << 30); an OUTPUT plane's
//! `bytesused` no more than its length. Stricter than the kernel, the model
//! requires every OUTPUT plane to be used whole (`bytesused` its length),
//! which the H1 reads anyway.
//!
//! VIDIOC_S_PARM on OUTPUT sets the frame interval, as the series adds it to
//! hantro (patch 5; 6.12 itself answers ENOTTY, and its H.264 backend would
//! code 30/1 into the VUI and its rate control): [`FakeKernel::s_parm`]
//! false models a kernel without it.

use super::encoder::fourcc_name;
use super::kernel::{Errno, Kernel};
use super::sys::*;
use crate::device::{Completed, VirtualDevice};
use std::cell::RefCell;
use std::rc::Rc;
use v4l2_h264enc_uapi::{
    v4l2_ctrl_h264_encode_params, v4l2_ctrl_h264_encode_rc,
    V4L2_CID_STATELESS_H264_ENCODE_FEEDBACK, V4L2_CID_STATELESS_H264_ENCODE_PARAMS,
    V4L2_CID_STATELESS_H264_ENCODE_RC,
};

const VIDEO_FD: i32 = 3;
const MEDIA_FD: i32 = 4;
const REQUEST_FD: i32 = 5;
const OUTPUT: u32 = V4L2_BUF_TYPE_VIDEO_OUTPUT_MPLANE;
const CAPTURE: u32 = V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE;
/// V4L2_BUF_TYPE_VIDEO_OUTPUT, which v4l2-ioctl hands the driver's
/// selection handlers for the multiplanar type.
const OUTPUT_SINGLE: u32 = 2;
/// DST_QUEUE_OFF_BASE of v4l2-mem2mem: CAPTURE buffers' mmap offsets.
const CAPTURE_OFFSET: u32 = 1 << 30;
/// PAGE_SIZE of x86_64 and of arm64 with 4 KiB pages.
const PAGE: usize = 4096;
/// VB2_MAX_PLANES.
const MAX_PLANES: u32 = 8;

mod args;
mod format;
use args::*;
use format::*;

/// The state of the one request the backend uses.
#[derive(Default)]
struct Request {
    allocated: bool,
    params: Option<v4l2_ctrl_h264_encode_params>,
    rc: Option<v4l2_ctrl_h264_encode_rc>,
    has_output: bool,
    /// MEDIA_REQUEST_IOC_QUEUE accepted it; it runs once CAPTURE has a buffer.
    queued: bool,
    timestamp: timeval,
    done: Option<Completed>,
    out_dequeued: bool,
    cap_dequeued: bool,
}

/// The modelled kernel: one video node, its media node, one request.
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
    /// The planes of the OUTPUT buffer and the CAPTURE buffer, once allocated.
    out_mem: Vec<Vec<u8>>,
    cap_mem: Vec<u8>,
    streaming: [bool; 2],
    cap_queued: bool,
    req: Request,
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
            out_mem: Vec::new(),
            cap_mem: Vec::new(),
            streaming: [false; 2],
            cap_queued: false,
            req: Request::default(),
            frames: 0,
        }
    }

    fn note(&self, s: String) {
        self.log.borrow_mut().push(s);
    }
}

fn queue_name(ty: u32) -> &'static str {
    match ty {
        OUTPUT => "OUTPUT",
        CAPTURE => "CAPTURE",
        _ => "?",
    }
}

fn ctrl_name(id: u32) -> String {
    match id {
        V4L2_CID_STATELESS_H264_ENCODE_PARAMS => "PARAMS".into(),
        V4L2_CID_STATELESS_H264_ENCODE_RC => "RC".into(),
        V4L2_CID_STATELESS_H264_ENCODE_FEEDBACK => "FEEDBACK".into(),
        _ => format!("{id:#x}"),
    }
}

impl FakeKernel {
    fn s_fmt(&mut self, f: &mut v4l2_format) -> Result<String, Errno> {
        // SAFETY: multiplanar formats use pix_mp.
        let mut pm = unsafe { f.fmt.pix_mp };
        let (asked, w, h) = (pm.pixelformat, pm.width, pm.height);
        let out_busy = !self.out_mem.is_empty();
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
        if self.streaming[0] {
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
        let ctrls = controls(c)?;
        let name = if set {
            "VIDIOC_S_EXT_CTRLS"
        } else {
            "VIDIOC_G_EXT_CTRLS"
        };
        let mut names = Vec::new();
        if which == V4L2_CTRL_WHICH_REQUEST_VAL {
            if c.request_fd != REQUEST_FD || !self.req.allocated {
                return Err(libc::EINVAL);
            }
            for (i, x) in ctrls.iter().enumerate() {
                c.error_idx = i as u32;
                let p = payload(x)?;
                match (set, x.id) {
                    (true, V4L2_CID_STATELESS_H264_ENCODE_PARAMS) => {
                        if self.req.done.is_some() || self.req.has_output {
                            return Err(libc::EBUSY);
                        }
                        self.req.params = Some(read_struct(p)?);
                    }
                    (true, V4L2_CID_STATELESS_H264_ENCODE_RC) => {
                        let rc: v4l2_ctrl_h264_encode_rc = read_struct(p)?;
                        names.push(format!("RC(flags={:#x},qp={})", rc.flags, rc.qp));
                        self.req.rc = Some(rc);
                        continue;
                    }
                    (false, V4L2_CID_STATELESS_H264_ENCODE_FEEDBACK) => {
                        let done = self.req.done.as_ref().ok_or(libc::EACCES)?;
                        let fb = crate::device::bytes_of(&done.feedback);
                        if p.len() != fb.len() {
                            return Err(libc::ENOSPC);
                        }
                        p.copy_from_slice(fb);
                    }
                    _ => return Err(libc::EINVAL),
                }
                names.push(ctrl_name(x.id));
            }
            c.error_idx = c.count;
            return Ok(format!("{name} request {}", names.join(",")));
        }
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
        let i = match rb.type_ {
            OUTPUT => 0,
            CAPTURE => 1,
            _ => return Err(libc::EINVAL),
        };
        if rb.memory != V4L2_MEMORY_MMAP {
            return Err(libc::EINVAL);
        }
        if self.streaming[i] {
            return Err(libc::EBUSY);
        }
        let sizes = self.plane_sizes(rb.type_);
        // The model has one buffer; count 0 frees it.
        rb.count = rb.count.min(1);
        let alloc = rb.count == 1;
        rb.capabilities = V4L2_BUF_CAP_SUPPORTS_MMAP
            | if rb.type_ == OUTPUT {
                V4L2_BUF_CAP_SUPPORTS_REQUESTS
            } else {
                0
            };
        if rb.type_ == OUTPUT {
            self.out_mem = if alloc {
                sizes.iter().map(|&s| vec![0u8; s as usize]).collect()
            } else {
                Vec::new()
            };
        } else {
            self.cap_mem = if alloc {
                vec![0u8; sizes[0] as usize]
            } else {
                Vec::new()
            };
        }
        Ok(format!(
            "VIDIOC_REQBUFS {} count={}",
            queue_name(rb.type_),
            rb.count
        ))
    }

    /// The mmap offset of plane `i` of queue `ty`'s buffer (__setup_offsets).
    fn mem_offset(ty: u32, i: usize) -> u32 {
        (i * PAGE) as u32 + if ty == CAPTURE { CAPTURE_OFFSET } else { 0 }
    }

    fn buffer(&mut self, req: Req, b: &mut v4l2_buffer) -> Result<String, Errno> {
        if b.index != 0 || b.memory != V4L2_MEMORY_MMAP || !matches!(b.type_, OUTPUT | CAPTURE) {
            return Err(libc::EINVAL);
        }
        let out = b.type_ == OUTPUT;
        let lens: Vec<u32> = if out {
            self.out_mem.iter().map(|m| m.len() as u32).collect()
        } else if self.cap_mem.is_empty() {
            Vec::new()
        } else {
            vec![self.cap_mem.len() as u32]
        };
        if lens.is_empty() {
            return Err(libc::EINVAL);
        }
        let n = lens.len();
        // vb2_core_dqbuf() waits for a done buffer before it looks at the array.
        let done = self.req.done.is_some()
            && !(if out {
                self.req.out_dequeued
            } else {
                self.req.cap_dequeued
            });
        if req == Req::DqBuf && !done {
            return Err(libc::EAGAIN);
        }
        let pl = planes(b, n)?;
        let q = queue_name(b.type_);
        // __fill_v4l2_buffer(): the planes the buffer has.
        let fill = |b: &mut v4l2_buffer, pl: &mut [v4l2_plane]| {
            b.length = n as u32;
            for (i, (p, &len)) in pl.iter_mut().zip(&lens).enumerate() {
                p.length = len;
                p.m.mem_offset = Self::mem_offset(b.type_, i);
            }
        };
        match req {
            Req::QueryBuf => {
                fill(b, pl);
                Ok(format!("VIDIOC_QUERYBUF {q} {n} planes"))
            }
            Req::QBuf if out => {
                // __verify_length(): no plane claims more than its length.
                for (p, &len) in pl.iter().zip(&lens) {
                    if p.bytesused > len || (p.data_offset > 0 && p.data_offset >= p.bytesused) {
                        return Err(libc::EINVAL);
                    }
                }
                // The OUTPUT queue takes requests; the source must be whole.
                let with_req = b.flags & V4L2_BUF_FLAG_REQUEST_FD != 0;
                // SAFETY: request_fd is the member used with V4L2_BUF_FLAG_REQUEST_FD.
                let fd = unsafe { b.__bindgen_anon_1.request_fd };
                if !with_req || fd != REQUEST_FD || !self.req.allocated || self.req.has_output {
                    return Err(libc::EINVAL);
                }
                if pl.iter().zip(&lens).any(|(p, &len)| p.bytesused != len) || !self.streaming[0] {
                    return Err(libc::EINVAL);
                }
                self.req.has_output = true;
                self.req.timestamp = b.timestamp;
                fill(b, pl);
                Ok(format!(
                    "VIDIOC_QBUF OUTPUT request ts={}",
                    ts_ns(b.timestamp)
                ))
            }
            Req::QBuf => {
                if b.flags & V4L2_BUF_FLAG_REQUEST_FD != 0 || self.cap_queued || !self.streaming[1]
                {
                    return Err(libc::EINVAL);
                }
                self.cap_queued = true;
                fill(b, pl);
                // v4l2_m2m_try_schedule(): a queued request waited for it.
                if self.req.queued && self.req.done.is_none() {
                    self.run_request()?;
                }
                Ok("VIDIOC_QBUF CAPTURE".into())
            }
            _ => {
                let done = self.req.done.as_ref().ok_or(libc::EAGAIN)?;
                b.timestamp = self.req.timestamp;
                if out {
                    if self.req.out_dequeued {
                        return Err(libc::EAGAIN);
                    }
                    self.req.out_dequeued = true;
                    b.flags = done.flags & V4L2_BUF_FLAG_ERROR;
                    fill(b, pl);
                    for (p, &len) in pl.iter_mut().zip(&lens) {
                        p.bytesused = len;
                        p.data_offset = 0;
                    }
                    Ok("VIDIOC_DQBUF OUTPUT".into())
                } else {
                    if self.req.cap_dequeued {
                        return Err(libc::EAGAIN);
                    }
                    self.req.cap_dequeued = true;
                    b.flags = done.flags;
                    let used = done.payload.len() as u32;
                    fill(b, pl);
                    pl[0].bytesused = used;
                    pl[0].data_offset = 0;
                    Ok(format!(
                        "VIDIOC_DQBUF CAPTURE {used} bytes flags={:#x}",
                        done.flags
                    ))
                }
            }
        }
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

    /// MEDIA_REQUEST_IOC_QUEUE: hantro's request validation (an OUTPUT
    /// buffer, both per-frame controls), then the job runs when CAPTURE has
    /// a buffer.
    fn queue_request(&mut self) -> Result<(), Errno> {
        if self.req.queued || self.req.done.is_some() {
            return Err(libc::EBUSY);
        }
        if !self.req.has_output || self.req.params.is_none() || self.req.rc.is_none() {
            return Err(libc::ENOENT);
        }
        self.req.queued = true;
        if self.cap_queued {
            self.run_request()?;
        }
        Ok(())
    }

    /// Runs the queued request: the source planes at the driver's strides
    /// become a packed frame of the visible size for the virtual device.
    fn run_request(&mut self) -> Result<(), Errno> {
        let Some(fmt) = self.out_fmt.layout() else {
            return Err(libc::EINVAL);
        };
        let (w, h) = (
            self.cap_fmt.visible.0 as usize,
            self.cap_fmt.visible.1 as usize,
        );
        let bpl = |i: usize| self.out_fmt.planes[i].0 as usize;
        // The rows as wide as the H1 reads them, the client's padding
        // included: the virtual device takes them as they are.
        let w4 = hantro_vdev::read_width(w as u32) as usize;
        // hantro's source formats hold component k in buffer plane k.
        let mut frame = Vec::with_capacity(fmt.frame_len(w4 as u32, h as u32));
        for (p, (row, rows, _)) in fmt.components(w4, h).into_iter().enumerate() {
            for r in 0..rows {
                frame.extend_from_slice(&self.out_mem[p][r * bpl(p)..][..row]);
            }
        }
        if let Some((n, f)) = self.fault_at {
            if n == self.frames {
                self.dev.inject(f);
            }
        }
        self.frames += 1;
        let done = self
            .dev
            .encode_request(
                &frame,
                ts_ns(self.req.timestamp),
                self.req.params.as_ref(),
                self.req.rc.as_ref(),
            )
            .map_err(|e| -e.0)?;
        if done.payload.len() > self.cap_mem.len() {
            return Err(libc::ENOSPC);
        }
        self.cap_mem[..done.payload.len()].copy_from_slice(&done.payload);
        self.cap_queued = false;
        self.req.done = Some(done);
        Ok(())
    }
}

fn ts_ns(t: timeval) -> u64 {
    t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1000
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
        if fd == REQUEST_FD {
            self.req = Request::default();
        }
    }

    fn ioctl(&mut self, fd: i32, req: Req, arg: Arg) -> Result<(), Errno> {
        let want_fd = match req {
            Req::RequestAlloc => MEDIA_FD,
            Req::RequestQueue | Req::RequestReinit => REQUEST_FD,
            _ => VIDEO_FD,
        };
        let r = if fd != want_fd {
            Err(libc::ENOTTY)
        } else {
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
                (Req::QueryBuf | Req::QBuf | Req::DqBuf, Arg::Buf(b)) => self.buffer(req, b),
                (Req::StreamOn | Req::StreamOff, Arg::Int(t)) => {
                    let ty = *t as u32;
                    let i = match ty {
                        OUTPUT => 0,
                        CAPTURE => 1,
                        _ => return Err(libc::EINVAL),
                    };
                    let on = req == Req::StreamOn;
                    let allocated = if i == 0 {
                        !self.out_mem.is_empty()
                    } else {
                        !self.cap_mem.is_empty()
                    };
                    if on && !allocated {
                        Err(libc::EINVAL)
                    } else if on && i == 1 && !self.streaming[1] {
                        self.start_coding().map(|()| {
                            self.streaming[1] = true;
                            format!("{} {}", req.name(), queue_name(ty))
                        })
                    } else {
                        self.streaming[i] = on;
                        Ok(format!("{} {}", req.name(), queue_name(ty)))
                    }
                }
                (Req::EncoderCmd, Arg::EncCmd(c)) if c.cmd == V4L2_ENC_CMD_STOP => {
                    Ok("VIDIOC_ENCODER_CMD STOP".into())
                }
                (Req::RequestAlloc, Arg::Int(fd)) if !self.req.allocated => {
                    self.req.allocated = true;
                    *fd = REQUEST_FD;
                    Ok("MEDIA_IOC_REQUEST_ALLOC".into())
                }
                (Req::RequestQueue, Arg::None) => self
                    .queue_request()
                    .map(|()| "MEDIA_REQUEST_IOC_QUEUE".into()),
                (Req::RequestReinit, Arg::None) => {
                    // A request never queued may be reinitialized at once:
                    // its OUTPUT buffer returns to the application.
                    if self.req.queued && !(self.req.out_dequeued && self.req.cap_dequeued) {
                        Err(libc::EBUSY)
                    } else {
                        self.req = Request {
                            allocated: true,
                            ..Default::default()
                        };
                        Ok("MEDIA_REQUEST_IOC_REINIT".into())
                    }
                }
                _ => Err(libc::EINVAL),
            }
        };
        match r {
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
        let out_planes = self.out_mem.len();
        let (mem, name) = match (0..out_planes).find(|&i| Self::mem_offset(OUTPUT, i) == offset) {
            Some(i) => (&mut self.out_mem[i], format!("OUTPUT plane {i}")),
            None if offset == CAPTURE_OFFSET && !self.cap_mem.is_empty() => {
                (&mut self.cap_mem, "CAPTURE".to_string())
            }
            None => return Err(libc::EINVAL),
        };
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
        Ok(fd == REQUEST_FD && self.req.done.is_some())
    }

    fn media_node(&mut self, _video: &str) -> Result<String, String> {
        Ok("/dev/media0".into())
    }
}

#[cfg(test)]
mod tests;
