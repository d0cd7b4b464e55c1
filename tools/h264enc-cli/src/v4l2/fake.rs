//! The kernel's side of a stateless encoder node, modelled for tests (public
//! so the command line's own tests can drive it too): every
//! ioctl the backend issues is checked as the V4L2 core and the driver would
//! check it, recorded, and carried out on the virtual device. The source
//! buffer has the hantro stride (width aligned to 16), so the backend's copy
//! at the driver's stride is exercised.

use super::kernel::{Errno, Kernel};
use super::sys::*;
use crate::device::{Completed, PixelFormat, VirtualDevice};
use hantro_vdev::uapi::{
    v4l2_ctrl_h264_encode_params, v4l2_ctrl_h264_encode_rc,
    V4L2_CID_STATELESS_H264_ENCODE_FEEDBACK, V4L2_CID_STATELESS_H264_ENCODE_PARAMS,
    V4L2_CID_STATELESS_H264_ENCODE_RC,
};
use std::cell::RefCell;
use std::rc::Rc;

const VIDEO_FD: i32 = 3;
const MEDIA_FD: i32 = 4;
const REQUEST_FD: i32 = 5;
const OUTPUT: u32 = V4L2_BUF_TYPE_VIDEO_OUTPUT_MPLANE;
const CAPTURE: u32 = V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE;
const CAPTURE_OFFSET: u32 = 0x4000_0000;

/// The state of the one request the backend uses.
#[derive(Default)]
struct Request {
    allocated: bool,
    params: Option<v4l2_ctrl_h264_encode_params>,
    rc: Option<v4l2_ctrl_h264_encode_rc>,
    has_output: bool,
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
    /// A hardware fault to arm before frame `.0` is encoded.
    pub fault_at: Option<(u32, hantro_vdev::Fault)>,
    dev: VirtualDevice,
    cap_fmt: Option<(u32, u32, u32)>,
    /// Visible width, height, pixel format; allocated height; bytes per line.
    out_fmt: Option<(u32, u32, PixelFormat, u32, u32)>,
    out_mem: Vec<u8>,
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
    /// A node with the uAPI, no fault armed.
    pub fn new() -> Self {
        FakeKernel {
            log: Rc::default(),
            has_uapi: true,
            fault_at: None,
            dev: VirtualDevice::open(),
            cap_fmt: None,
            out_fmt: None,
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

/// The controls of a v4l2_ext_controls, as copy_from_user would read them.
fn controls(c: &v4l2_ext_controls) -> Result<Vec<v4l2_ext_control>, Errno> {
    if c.count == 0 || c.count > 64 || c.controls.is_null() {
        return Err(libc::EINVAL);
    }
    // SAFETY: the backend points `controls` at `count` live elements for the call.
    Ok(unsafe { std::slice::from_raw_parts(c.controls, c.count as usize) }.to_vec())
}

/// The payload of a compound control.
fn payload<'a>(c: &v4l2_ext_control) -> Result<&'a mut [u8], Errno> {
    // SAFETY: reading the pointer member of a compound control.
    let p = unsafe { c.__bindgen_anon_1.p_u8 };
    if p.is_null() || c.size == 0 {
        return Err(libc::EFAULT);
    }
    // SAFETY: the backend points compound controls at `size` live bytes.
    Ok(unsafe { std::slice::from_raw_parts_mut(p, c.size as usize) })
}

fn read_struct<T: Copy + Default>(bytes: &[u8]) -> Result<T, Errno> {
    if bytes.len() != std::mem::size_of::<T>() {
        return Err(libc::EINVAL);
    }
    let mut v = T::default();
    // SAFETY: `v` is a plain C struct of exactly `bytes.len()` bytes.
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), &mut v as *mut T as *mut u8, bytes.len())
    };
    Ok(v)
}

/// The plane array of a multiplanar v4l2_buffer (its `m.planes` and `length`).
fn planes<'a>(b: &v4l2_buffer) -> Result<&'a mut [v4l2_plane], Errno> {
    // SAFETY: reading the planes member, which multiplanar buffers use.
    let p = unsafe { b.m.planes };
    if p.is_null() || b.length != 1 {
        return Err(libc::EINVAL);
    }
    // SAFETY: the backend points `planes` at `length` live elements.
    Ok(unsafe { std::slice::from_raw_parts_mut(p, b.length as usize) })
}

impl FakeKernel {
    fn s_fmt(&mut self, f: &mut v4l2_format) -> Result<String, Errno> {
        // SAFETY: multiplanar formats use pix_mp.
        let mut pm = unsafe { f.fmt.pix_mp };
        let (w, h) = (pm.width, pm.height);
        if !(16..=1920).contains(&w) || !(16..=1088).contains(&h) || w % 4 != 0 {
            return Err(libc::EINVAL);
        }
        let line = match f.type_ {
            CAPTURE => {
                pm.pixelformat = fourcc(b"S26E");
                pm.plane_fmt[0].sizeimage = pm.plane_fmt[0].sizeimage.max(w * h * 3 / 2);
                pm.plane_fmt[0].bytesperline = 0;
                self.cap_fmt = Some((w, h, pm.plane_fmt[0].sizeimage));
                format!("VIDIOC_S_FMT CAPTURE S26E {w}x{h}")
            }
            OUTPUT => {
                let fmt = if pm.pixelformat == fourcc(b"NV12") {
                    PixelFormat::Nv12
                } else {
                    pm.pixelformat = fourcc(b"YU12");
                    PixelFormat::I420
                };
                // The hantro driver aligns the source to whole macroblocks.
                let (bpl, ah) = (w.div_ceil(16) * 16, h.div_ceil(16) * 16);
                pm.plane_fmt[0].bytesperline = bpl;
                pm.plane_fmt[0].sizeimage = bpl * ah * 3 / 2;
                pm.width = bpl;
                pm.height = ah;
                self.out_fmt = Some((w, h, fmt, ah, bpl));
                format!(
                    "VIDIOC_S_FMT OUTPUT {} {w}x{h}",
                    String::from_utf8_lossy(&pm.pixelformat.to_le_bytes())
                )
            }
            _ => return Err(libc::EINVAL),
        };
        pm.num_planes = 1;
        f.fmt.pix_mp = pm;
        Ok(line)
    }

    fn s_parm(&mut self, p: &mut v4l2_streamparm) -> Result<String, Errno> {
        let (Some((w, h, fmt, _, _)), OUTPUT) = (self.out_fmt, p.type_) else {
            return Err(libc::EINVAL);
        };
        // SAFETY: OUTPUT stream parameters use the output member.
        let t = unsafe { p.parm.output.timeperframe };
        if t.numerator == 0 || t.denominator == 0 {
            return Err(libc::EINVAL);
        }
        self.dev
            .set_format(w, h, fmt, t.denominator, t.numerator)
            .map_err(|e| -e.0)?;
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

    fn reqbufs(&mut self, rb: &mut v4l2_requestbuffers) -> Result<String, Errno> {
        if rb.memory != V4L2_MEMORY_MMAP || self.streaming.contains(&true) {
            return Err(libc::EINVAL);
        }
        let size = match (rb.type_, self.cap_fmt, self.out_fmt) {
            (CAPTURE, Some((_, _, s)), _) => s,
            (OUTPUT, _, Some((_, _, _, ah, bpl))) => bpl * ah * 3 / 2,
            _ => return Err(libc::EINVAL),
        };
        let mem = vec![0u8; size as usize];
        rb.count = rb.count.min(1);
        rb.capabilities = V4L2_BUF_CAP_SUPPORTS_MMAP
            | if rb.type_ == OUTPUT {
                V4L2_BUF_CAP_SUPPORTS_REQUESTS
            } else {
                0
            };
        if rb.type_ == OUTPUT {
            self.out_mem = mem;
        } else {
            self.cap_mem = mem;
        }
        Ok(format!(
            "VIDIOC_REQBUFS {} count={}",
            queue_name(rb.type_),
            rb.count
        ))
    }

    fn buffer(&mut self, req: Req, b: &mut v4l2_buffer) -> Result<String, Errno> {
        if b.index != 0 || b.memory != V4L2_MEMORY_MMAP || !matches!(b.type_, OUTPUT | CAPTURE) {
            return Err(libc::EINVAL);
        }
        let out = b.type_ == OUTPUT;
        let mem_len = if out {
            self.out_mem.len()
        } else {
            self.cap_mem.len()
        } as u32;
        if mem_len == 0 {
            return Err(libc::EINVAL);
        }
        let pl = planes(b)?;
        let q = queue_name(b.type_);
        match req {
            Req::QueryBuf => {
                pl[0].length = mem_len;
                pl[0].m.mem_offset = if out { 0 } else { CAPTURE_OFFSET };
                Ok(format!("VIDIOC_QUERYBUF {q}"))
            }
            Req::QBuf if out => {
                // The OUTPUT queue requires requests; the source must be whole.
                let with_req = b.flags & V4L2_BUF_FLAG_REQUEST_FD != 0;
                // SAFETY: request_fd is the member used with V4L2_BUF_FLAG_REQUEST_FD.
                let fd = unsafe { b.__bindgen_anon_1.request_fd };
                if !with_req || fd != REQUEST_FD || !self.req.allocated || self.req.has_output {
                    return Err(libc::EINVAL);
                }
                if pl[0].bytesused != mem_len || !self.streaming[0] {
                    return Err(libc::EINVAL);
                }
                self.req.has_output = true;
                self.req.timestamp = b.timestamp;
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
                if pl[0].length != mem_len {
                    return Err(libc::EINVAL);
                }
                self.cap_queued = true;
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
                    Ok("VIDIOC_DQBUF OUTPUT".into())
                } else {
                    if self.req.cap_dequeued {
                        return Err(libc::EAGAIN);
                    }
                    self.req.cap_dequeued = true;
                    b.flags = done.flags;
                    pl[0].bytesused = done.payload.len() as u32;
                    pl[0].data_offset = 0;
                    Ok(format!(
                        "VIDIOC_DQBUF CAPTURE {} bytes flags={:#x}",
                        done.payload.len(),
                        done.flags
                    ))
                }
            }
        }
    }

    /// Runs the queued request: the source at the driver's stride becomes a
    /// packed frame for the virtual device.
    fn run_request(&mut self) -> Result<(), Errno> {
        let Some((w, h, fmt, ah, bpl)) = self.out_fmt else {
            return Err(libc::EINVAL);
        };
        if !self.req.has_output || self.req.done.is_some() {
            return Err(libc::ENOENT);
        }
        if !self.cap_queued {
            return Err(libc::EINVAL);
        }
        let (w, h, ah, bpl) = (w as usize, h as usize, ah as usize, bpl as usize);
        let mut frame = Vec::with_capacity(w * h * 3 / 2);
        for r in 0..h {
            frame.extend_from_slice(&self.out_mem[r * bpl..][..w]);
        }
        let c0 = bpl * ah;
        match fmt {
            PixelFormat::I420 => {
                let cb = bpl / 2;
                for base in [c0, c0 + cb * ah / 2] {
                    for r in 0..h / 2 {
                        frame.extend_from_slice(&self.out_mem[base + r * cb..][..w / 2]);
                    }
                }
            }
            PixelFormat::Nv12 => {
                for r in 0..h / 2 {
                    frame.extend_from_slice(&self.out_mem[c0 + r * bpl..][..w]);
                }
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
            .encode(
                &frame,
                ts_ns(self.req.timestamp),
                &self.req.params.unwrap_or_default(),
                &self.req.rc.unwrap_or_default(),
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
                    c.driver[..6].copy_from_slice(b"hantro");
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
                (Req::SParm, Arg::Parm(p)) => self.s_parm(p),
                (Req::SExtCtrls, Arg::ExtCtrls(c)) => self.ext_ctrls(true, c),
                (Req::GExtCtrls, Arg::ExtCtrls(c)) => self.ext_ctrls(false, c),
                (Req::ReqBufs, Arg::ReqBufs(rb)) => self.reqbufs(rb),
                (Req::QueryBuf | Req::QBuf | Req::DqBuf, Arg::Buf(b)) => self.buffer(req, b),
                (Req::StreamOn | Req::StreamOff, Arg::Int(t)) => {
                    let i = match *t as u32 {
                        OUTPUT => 0,
                        CAPTURE => 1,
                        _ => return Err(libc::EINVAL),
                    };
                    let on = req == Req::StreamOn;
                    self.streaming[i] = on;
                    if on && self.streaming == [true, true] {
                        self.dev.start().map_err(|e| -e.0)?;
                    }
                    Ok(format!("{} {}", req.name(), queue_name(*t as u32)))
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
                    .run_request()
                    .map(|()| "MEDIA_REQUEST_IOC_QUEUE".into()),
                (Req::RequestReinit, Arg::None) => {
                    if !(self.req.out_dequeued && self.req.cap_dequeued) {
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

    fn mmap(&mut self, fd: i32, len: usize, offset: u32) -> Result<*mut u8, Errno> {
        let mem = match (fd, offset) {
            (VIDEO_FD, 0) => &mut self.out_mem,
            (VIDEO_FD, CAPTURE_OFFSET) => &mut self.cap_mem,
            _ => return Err(libc::EINVAL),
        };
        if len == 0 || len > mem.len() {
            return Err(libc::EINVAL);
        }
        let p = mem.as_mut_ptr();
        self.note(format!(
            "mmap {}",
            if offset == 0 { "OUTPUT" } else { "CAPTURE" }
        ));
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
mod tests {
    use super::*;
    use crate::device::Device;
    use crate::session::{configure, Profile, RcMode, StreamConfig};
    use crate::v4l2::V4l2Encoder;
    use hantro_vdev::uapi::{v4l2_ctrl_h264_encode_params, V4L2_H264_ENCODE_RC_FLAG_QP};

    fn config(w: u32, h: u32, format: PixelFormat, client_rc: bool) -> StreamConfig {
        StreamConfig {
            width: w,
            height: h,
            fps_num: 30,
            fps_den: 1,
            format,
            rc: Some(RcMode::Cbr),
            bitrate: Some(300_000),
            max_bitrate: None,
            cpb_size: None,
            filler: false,
            qp: None,
            qp_min: 10,
            qp_max: 51,
            gop: 8,
            profile: Profile::Baseline,
            cabac: None,
            cabac_init_idc: 0,
            transform_8x8: None,
            slices: 1,
            ltr_period: 0,
            temporal_layers: 1,
            client_rc,
            virtual_h1: false,
        }
    }

    /// A clip in `format`, frame by frame.
    fn frames(name: &str, w: usize, h: usize, n: usize, format: PixelFormat) -> Vec<Vec<u8>> {
        let i420 = h264_oracle::clip(name, w, h, n);
        i420.chunks(w * h * 3 / 2)
            .map(|f| match format {
                PixelFormat::I420 => f.to_vec(),
                PixelFormat::Nv12 => {
                    let (y, c) = f.split_at(w * h);
                    let (u, v) = c.split_at(w * h / 4);
                    let mut out = y.to_vec();
                    for (a, b) in u.iter().zip(v) {
                        out.extend_from_slice(&[*a, *b]);
                    }
                    out
                }
            })
            .collect()
    }

    /// Configures `d` and encodes `clip`; client-driven streams get QP 30 on every frame.
    fn encode_all(
        d: &mut dyn Device,
        cfg: &StreamConfig,
        clip: &[Vec<u8>],
    ) -> Result<Vec<Completed>, String> {
        configure(d, cfg)?;
        let mut out = Vec::new();
        for (i, f) in clip.iter().enumerate() {
            let mut rc = hantro_vdev::uapi::v4l2_ctrl_h264_encode_rc::default();
            if cfg.client_rc {
                rc.flags = V4L2_H264_ENCODE_RC_FLAG_QP;
                rc.qp = 30;
            }
            let ts = i as u64 * 1_000_000_000 / 30 / 1000 * 1000;
            let params = v4l2_ctrl_h264_encode_params::default();
            out.push(d.encode(f, ts, &params, &rc)?);
        }
        d.finish()?;
        Ok(out)
    }

    /// The stream through the modelled kernel and the one from the virtual device directly.
    fn both(
        cfg: &StreamConfig,
        clip: &[Vec<u8>],
        k: FakeKernel,
    ) -> (Vec<u8>, Vec<u8>, Vec<String>) {
        let log = k.log.clone();
        let mut dev = V4l2Encoder::open(k, "/dev/video0").unwrap();
        let got = encode_all(&mut dev, cfg, clip).unwrap();
        drop(dev);
        let mut direct = cfg.clone();
        direct.virtual_h1 = true;
        let want = encode_all(&mut VirtualDevice::open(), &direct, clip).unwrap();
        let join = |v: Vec<Completed>| v.into_iter().flat_map(|c| c.payload).collect::<Vec<u8>>();
        let calls = log.borrow().clone();
        (join(got), join(want), calls)
    }

    fn same_stream(got: &[u8], reference: &[u8]) {
        let at = got.iter().zip(reference).position(|(a, b)| a != b);
        assert!(
            got == reference,
            "streams differ: {} and {} bytes, first difference at {at:?}",
            got.len(),
            reference.len()
        );
    }

    #[test]
    fn the_v4l2_path_produces_the_virtual_devices_stream() {
        // 200x120: the driver's source stride (208) differs from the width.
        for (format, (w, h)) in [
            (PixelFormat::I420, (176, 144)),
            (PixelFormat::Nv12, (200, 120)),
        ] {
            let clip = frames("meadow", w as usize, h as usize, 10, format);
            let (got, reference, _) = both(&config(w, h, format, false), &clip, FakeKernel::new());
            same_stream(&got, &reference);
            let dec = h264_oracle::ffmpeg_decode(&got).unwrap();
            assert_eq!(dec.len(), (w * h * 3 / 2 * 10) as usize, "{format:?}");
        }
    }

    #[test]
    fn the_ioctl_sequence_follows_the_specification() {
        let clip = frames("meadow", 176, 144, 3, PixelFormat::I420);
        let cfg = config(176, 144, PixelFormat::I420, true);
        let (got, reference, calls) = both(&cfg, &clip, FakeKernel::new());
        same_stream(&got, &reference);
        let setup: Vec<&str> = calls
            .iter()
            .take_while(|c| !c.starts_with("VIDIOC_S_EXT_CTRLS request"))
            .map(String::as_str)
            .collect();
        // Capabilities, then formats, rate and controls, then buffers and streaming.
        let order = [
            "open /dev/video0",
            "VIDIOC_QUERYCAP",
            "VIDIOC_QUERY_EXT_CTRL PARAMS",
            "VIDIOC_QUERY_EXT_CTRL RC",
            "VIDIOC_QUERY_EXT_CTRL FEEDBACK",
            "open /dev/media0",
            "VIDIOC_S_FMT CAPTURE S26E 176x144",
            "VIDIOC_S_FMT OUTPUT YU12 176x144",
            "VIDIOC_S_PARM OUTPUT 1/30 s",
        ];
        assert_eq!(&setup[..order.len()], &order, "{setup:#?}");
        let tail = &setup[order.len()..];
        let ctrls = tail
            .iter()
            .take_while(|c| c.starts_with("VIDIOC_S_EXT_CTRLS 0x"))
            .count();
        assert!(
            ctrls >= 8,
            "controls set one by one before streaming: {tail:#?}"
        );
        assert_eq!(
            &tail[ctrls..],
            &[
                "VIDIOC_REQBUFS OUTPUT count=1",
                "VIDIOC_QUERYBUF OUTPUT",
                "mmap OUTPUT",
                "VIDIOC_REQBUFS CAPTURE count=1",
                "VIDIOC_QUERYBUF CAPTURE",
                "mmap CAPTURE",
                "VIDIOC_STREAMON OUTPUT",
                "VIDIOC_STREAMON CAPTURE",
                "MEDIA_IOC_REQUEST_ALLOC",
            ]
        );
        // Every frame: one request, the client's QP in its RC control.
        let frames: Vec<&[String]> = calls[setup.len()..].chunks(9).take(3).collect();
        for (i, f) in frames.iter().enumerate() {
            let ts = i as u64 * 1_000_000_000 / 30 / 1000 * 1000;
            assert_eq!(
                f[0], "VIDIOC_S_EXT_CTRLS request PARAMS,RC(flags=0x1,qp=30)",
                "{f:#?}"
            );
            assert_eq!(f[1], format!("VIDIOC_QBUF OUTPUT request ts={ts}"));
            assert_eq!(
                f[2..5],
                [
                    "VIDIOC_QBUF CAPTURE",
                    "MEDIA_REQUEST_IOC_QUEUE",
                    "poll request"
                ]
            );
            assert_eq!(f[5], "VIDIOC_DQBUF OUTPUT");
            let key = if i == 0 { "0x8" } else { "0x10" };
            assert!(
                f[6].starts_with("VIDIOC_DQBUF CAPTURE") && f[6].ends_with(&format!("flags={key}")),
                "{f:#?}"
            );
            assert_eq!(
                f[7..9],
                [
                    "VIDIOC_G_EXT_CTRLS request FEEDBACK",
                    "MEDIA_REQUEST_IOC_REINIT"
                ]
            );
        }
        let end: Vec<&str> = calls[setup.len() + 27..]
            .iter()
            .map(String::as_str)
            .collect();
        assert_eq!(
            end,
            [
                "VIDIOC_ENCODER_CMD STOP",
                "VIDIOC_STREAMOFF OUTPUT",
                "VIDIOC_STREAMOFF CAPTURE",
                "munmap",
                "munmap",
                "close 5",
                "close 4",
                "close 3",
            ]
        );
    }

    #[test]
    fn a_node_without_the_uapi_is_refused() {
        let mut k = FakeKernel::new();
        k.has_uapi = false;
        let e = V4l2Encoder::open(k, "/dev/video0").err().unwrap();
        assert!(
            e.contains("does not expose the stateless H.264 encode uAPI") && e.contains("PARAMS"),
            "{e}"
        );
        let e = V4l2Encoder::open(FakeKernel::new(), "/dev/video7")
            .err()
            .unwrap();
        assert!(e.contains("cannot open /dev/video7: ENOENT"), "{e}");
    }

    #[test]
    fn a_failed_frame_comes_back_with_the_error_flag() {
        let clip = frames("meadow", 176, 144, 4, PixelFormat::I420);
        let mut k = FakeKernel::new();
        k.fault_at = Some((2, hantro_vdev::Fault::Timeout));
        let mut d = V4l2Encoder::open(k, "/dev/video0").unwrap();
        let done = encode_all(&mut d, &config(176, 144, PixelFormat::I420, false), &clip).unwrap();
        for (i, c) in done.iter().enumerate() {
            assert_eq!(c.error != 0, i == 2, "frame {i}");
            assert_eq!(c.flags & V4L2_BUF_FLAG_ERROR != 0, i == 2, "frame {i}");
        }
        assert!(d.last_log().unwrap().contains("V4L2_BUF_FLAG_ERROR"));
    }
}
