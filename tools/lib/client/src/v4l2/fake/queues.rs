//! The buffers of the two queues, the media requests and the jobs they make,
//! as videobuf2, the media request core and v4l2-mem2mem of Linux 6.12 keep
//! them for a stateless encoder.
//!
//! * VIDIOC_REQBUFS gives the count asked, 1 to VB2_MAX_FRAME (the core's
//!   limits, which the model takes hantro to keep); 0 frees them. Each buffer
//!   has its own planes, mapped at the offsets `__setup_offsets()` gives
//!   them: the buffer index above the plane index above the page offset,
//!   CAPTURE buffers at DST_QUEUE_OFF_BASE further.
//! * A source buffer is queued in a request and given to the driver when
//!   the request is; a CAPTURE buffer when it is queued. v4l2-mem2mem runs
//!   a job, one at a time, from the oldest source buffer of the requests
//!   queued and the oldest CAPTURE buffer, as soon as both are there; both
//!   buffers then wait on their queue's done list, dequeued oldest first.
//! * Each request holds its own per-frame controls, source buffer and
//!   result, and completes with its job.

use super::args::{controls, ctrl_name, payload, planes, read_struct};
use crate::device::Completed;
use crate::v4l2::kernel::Errno;
use crate::v4l2::sys::*;
use std::collections::{BTreeMap, VecDeque};
use v4l2_h264enc_uapi::{
    v4l2_ctrl_h264_encode_params, v4l2_ctrl_h264_encode_rc,
    V4L2_CID_STATELESS_H264_ENCODE_FEEDBACK, V4L2_CID_STATELESS_H264_ENCODE_PARAMS,
    V4L2_CID_STATELESS_H264_ENCODE_RC,
};

pub(super) const OUTPUT: u32 = V4L2_BUF_TYPE_VIDEO_OUTPUT_MPLANE;
pub(super) const CAPTURE: u32 = V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE;
/// The first request fd: the video and media nodes hold 3 and 4.
pub(super) const FIRST_REQUEST_FD: i32 = 5;
/// PAGE_SIZE of x86_64 and of arm64 with 4 KiB pages.
pub(super) const PAGE: u32 = 4096;
/// PLANE_INDEX_SHIFT of videobuf2-core.c: PAGE_SHIFT + PLANE_INDEX_BITS,
/// three bits for VIDEO_MAX_PLANES (8) planes.
const PLANE_INDEX_SHIFT: u32 = PAGE.trailing_zeros() + 3;
/// DST_QUEUE_OFF_BASE of v4l2-mem2mem: added to CAPTURE buffers' offsets.
pub(super) const CAPTURE_OFFSET: u32 = 1 << 30;
/// VB2_MAX_FRAME, the queues' max_num_buffers.
pub(super) const MAX_FRAME: u32 = 32;

/// The queue's name in the log.
pub(super) fn queue_name(ty: u32) -> &'static str {
    match ty {
        OUTPUT => "OUTPUT",
        CAPTURE => "CAPTURE",
        _ => "?",
    }
}

/// The mmap offset of plane `plane` of buffer `index` of queue `ty`.
pub(super) fn mem_offset(ty: u32, index: usize, plane: usize) -> u32 {
    let base = if ty == CAPTURE { CAPTURE_OFFSET } else { 0 };
    base + ((index as u32) << PLANE_INDEX_SHIFT) + plane as u32 * PAGE
}

/// Where a buffer is (enum vb2_buffer_state, as far as the client sees it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Dequeued,
    /// Queued in a request that is not queued yet.
    InRequest,
    /// Given to the driver, waiting for a job or in one.
    Queued,
    /// On the done list.
    Done,
}

/// One vb2 buffer: its memory, and what the last job left in it.
struct Buffer {
    planes: Vec<Vec<u8>>,
    state: State,
    /// The request it went in (source) or whose job filled it (CAPTURE).
    request: Option<usize>,
    timestamp: timeval,
    flags: u32,
    /// Payload bytes of a done CAPTURE buffer.
    used: u32,
}

/// One vb2 queue with v4l2-mem2mem's list of the buffers it holds.
#[derive(Default)]
pub(super) struct Queue {
    bufs: Vec<Buffer>,
    pub(super) streaming: bool,
    /// v4l2-mem2mem's rdy_queue: buffers given to the driver, oldest first.
    ready: VecDeque<usize>,
    /// videobuf2's done_list, oldest first.
    done: VecDeque<usize>,
}

impl Queue {
    pub(super) fn allocated(&self) -> bool {
        !self.bufs.is_empty()
    }

    /// The plane lengths, the same for every buffer of the queue.
    fn lengths(&self) -> Vec<u32> {
        self.bufs.first().map_or(Vec::new(), |b| {
            b.planes.iter().map(|p| p.len() as u32).collect()
        })
    }
}

/// What a media request holds.
#[derive(Default)]
pub(super) struct Request {
    pub(super) params: Option<v4l2_ctrl_h264_encode_params>,
    pub(super) rc: Option<v4l2_ctrl_h264_encode_rc>,
    /// Its source buffer's index.
    output: Option<usize>,
    /// MEDIA_REQUEST_IOC_QUEUE accepted it.
    queued: bool,
    pub(super) timestamp: timeval,
    done: Option<Completed>,
    out_dequeued: bool,
    cap_dequeued: bool,
}

/// The queues of the node and the requests of its media device.
#[derive(Default)]
pub(super) struct Queues {
    pub(super) out: Queue,
    pub(super) cap: Queue,
    /// Every request allocated: one closed while queued still completes.
    requests: Vec<Request>,
    /// The request each open request fd names.
    fds: BTreeMap<i32, usize>,
}

impl Queues {
    pub(super) fn queue(&mut self, ty: u32) -> Result<&mut Queue, Errno> {
        match ty {
            OUTPUT => Ok(&mut self.out),
            CAPTURE => Ok(&mut self.cap),
            _ => Err(libc::EINVAL),
        }
    }

    /// VIDIOC_REQBUFS of MMAP buffers of `sizes` planes (vb2_core_reqbufs).
    pub(super) fn reqbufs(
        &mut self,
        rb: &mut v4l2_requestbuffers,
        sizes: &[u32],
    ) -> Result<String, Errno> {
        let ty = rb.type_;
        if self.queue(ty)?.streaming {
            return Err(libc::EBUSY);
        }
        if rb.memory != V4L2_MEMORY_MMAP {
            return Err(libc::EINVAL);
        }
        self.cancel(ty);
        if ty == OUTPUT {
            // Freed buffers leave the requests they were queued in.
            for r in self.requests.iter_mut().filter(|r| r.done.is_none()) {
                r.output = None;
            }
        }
        rb.count = rb.count.min(MAX_FRAME);
        rb.capabilities = V4L2_BUF_CAP_SUPPORTS_MMAP
            | if ty == OUTPUT {
                V4L2_BUF_CAP_SUPPORTS_REQUESTS
            } else {
                0
            };
        let q = self.queue(ty)?;
        q.bufs = (0..rb.count)
            .map(|_| Buffer {
                planes: sizes.iter().map(|&s| vec![0u8; s as usize]).collect(),
                state: State::Dequeued,
                request: None,
                timestamp: timeval::default(),
                flags: 0,
                used: 0,
            })
            .collect();
        Ok(format!(
            "VIDIOC_REQBUFS {} count={}",
            queue_name(ty),
            rb.count
        ))
    }

    /// VIDIOC_STREAMON and VIDIOC_STREAMOFF: off returns every buffer.
    pub(super) fn stream(&mut self, ty: u32, on: bool) {
        if !on {
            self.cancel(ty);
        }
        if let Ok(q) = self.queue(ty) {
            q.streaming = on;
        }
    }

    /// __vb2_queue_cancel(): the buffers given to the driver or done come
    /// back to the application, and a request whose job never ran is no
    /// longer queued.
    fn cancel(&mut self, ty: u32) {
        let Ok(q) = self.queue(ty) else {
            return;
        };
        q.ready.clear();
        q.done.clear();
        let mut owners = Vec::new();
        for b in &mut q.bufs {
            if matches!(b.state, State::Queued | State::Done) {
                owners.extend(b.request.take());
                b.state = State::Dequeued;
            }
        }
        for id in owners {
            let r = &mut self.requests[id];
            if ty == OUTPUT {
                r.out_dequeued = true;
                if r.done.is_none() {
                    r.queued = false;
                    r.output = None;
                }
            } else {
                r.cap_dequeued = true;
            }
        }
    }

    /// VIDIOC_QUERYBUF, VIDIOC_QBUF and VIDIOC_DQBUF; the line to log. A
    /// CAPTURE buffer queued may make a job runnable: [`Queues::run_jobs`].
    pub(super) fn buffer(&mut self, req: Req, b: &mut v4l2_buffer) -> Result<String, Errno> {
        let ty = b.type_;
        if b.memory != V4L2_MEMORY_MMAP || !matches!(ty, OUTPUT | CAPTURE) {
            return Err(libc::EINVAL);
        }
        let q = self.queue(ty)?;
        let lens = q.lengths();
        let n = lens.len();
        let name = queue_name(ty);
        if req == Req::DqBuf {
            // __vb2_wait_for_done_vb(): nothing to wait for off streaming; a
            // done buffer before the array is looked at.
            if !q.streaming {
                return Err(libc::EINVAL);
            }
            let &i = q.done.front().ok_or(libc::EAGAIN)?;
            let pl = planes(b, n)?;
            return Ok(self.dqbuf(ty, i, b, pl));
        }
        let i = b.index as usize;
        if i >= q.bufs.len() {
            return Err(libc::EINVAL);
        }
        let pl = planes(b, n)?;
        if req == Req::QBuf && q.bufs[i].state != State::Dequeued {
            return Err(libc::EINVAL);
        }
        let with_req = b.flags & V4L2_BUF_FLAG_REQUEST_FD != 0;
        let line = match req {
            Req::QueryBuf => format!("VIDIOC_QUERYBUF {name} {n} planes"),
            Req::QBuf if ty == OUTPUT => {
                // __verify_length(): no plane claims more than its length.
                for (p, &len) in pl.iter().zip(&lens) {
                    if p.bytesused > len || (p.data_offset > 0 && p.data_offset >= p.bytesused) {
                        return Err(libc::EINVAL);
                    }
                }
                // The OUTPUT queue takes requests, one buffer each; the source must be whole.
                // SAFETY: request_fd is the member used with V4L2_BUF_FLAG_REQUEST_FD.
                let fd = unsafe { b.__bindgen_anon_1.request_fd };
                let id = match self.fds.get(&fd) {
                    Some(&id) if with_req && self.requests[id].output.is_none() => id,
                    _ => return Err(libc::EINVAL),
                };
                let whole = pl.iter().zip(&lens).all(|(p, &len)| p.bytesused == len);
                if !whole || !self.out.streaming {
                    return Err(libc::EINVAL);
                }
                let r = &mut self.requests[id];
                r.output = Some(i);
                r.timestamp = b.timestamp;
                let buf = &mut self.out.bufs[i];
                buf.state = State::InRequest;
                buf.request = Some(id);
                format!("VIDIOC_QBUF OUTPUT request ts={}", ts_ns(b.timestamp))
            }
            _ => {
                let q = &mut self.cap;
                if with_req || !q.streaming {
                    return Err(libc::EINVAL);
                }
                q.bufs[i].state = State::Queued;
                q.ready.push_back(i);
                "VIDIOC_QBUF CAPTURE".into()
            }
        };
        fill(ty, i, &lens, b, pl);
        Ok(line)
    }

    /// Takes done buffer `i` of queue `ty` off its done list into `b`.
    fn dqbuf(&mut self, ty: u32, i: usize, b: &mut v4l2_buffer, pl: &mut [v4l2_plane]) -> String {
        let q = if ty == OUTPUT {
            &mut self.out
        } else {
            &mut self.cap
        };
        q.done.pop_front();
        let lens = q.lengths();
        let buf = &mut q.bufs[i];
        buf.state = State::Dequeued;
        b.timestamp = buf.timestamp;
        b.flags = buf.flags;
        let (used, flags) = (buf.used, buf.flags);
        if let Some(id) = buf.request.take() {
            let r = &mut self.requests[id];
            if ty == OUTPUT {
                r.out_dequeued = true;
            } else {
                r.cap_dequeued = true;
            }
        }
        fill(ty, i, &lens, b, pl);
        for p in pl.iter_mut() {
            p.data_offset = 0;
        }
        if ty == OUTPUT {
            for (p, &len) in pl.iter_mut().zip(&lens) {
                p.bytesused = len;
            }
            "VIDIOC_DQBUF OUTPUT".into()
        } else {
            pl[0].bytesused = used;
            format!("VIDIOC_DQBUF CAPTURE {used} bytes flags={flags:#x}")
        }
    }

    /// v4l2_m2m_try_schedule() and v4l2_m2m_try_run(): while both queues
    /// stream and each has a buffer for the driver, the oldest source buffer
    /// (its request queued first) and the oldest CAPTURE buffer make the
    /// next job, which `encode` codes from the source planes and the request.
    pub(super) fn run_jobs(
        &mut self,
        mut encode: impl FnMut(&[Vec<u8>], &Request) -> Result<Completed, Errno>,
    ) -> Result<(), Errno> {
        while self.out.streaming && self.cap.streaming {
            let (Some(o), Some(c)) = (self.out.ready.front(), self.cap.ready.front()) else {
                break;
            };
            let (o, c) = (*o, *c);
            // A job that fails is lost with its buffers, as the hardware
            // would never return them.
            self.out.ready.pop_front();
            self.cap.ready.pop_front();
            let id = self.out.bufs[o].request.ok_or(libc::EINVAL)?;
            let r = &mut self.requests[id];
            let done = encode(&self.out.bufs[o].planes, r)?;
            let cap = &mut self.cap.bufs[c];
            let used = done.payload.len();
            if used > cap.planes[0].len() {
                return Err(libc::ENOSPC);
            }
            cap.planes[0][..used].copy_from_slice(&done.payload);
            // v4l2_m2m_buf_copy_metadata(): the CAPTURE buffer gets the source's timestamp.
            for (buf, flags) in [
                (cap, done.flags),
                (&mut self.out.bufs[o], done.flags & V4L2_BUF_FLAG_ERROR),
            ] {
                buf.state = State::Done;
                buf.request = Some(id);
                buf.timestamp = r.timestamp;
                buf.flags = flags;
                buf.used = used as u32;
            }
            self.cap.done.push_back(c);
            self.out.done.push_back(o);
            r.done = Some(done);
        }
        Ok(())
    }

    /// MEDIA_IOC_REQUEST_ALLOC: the lowest fd free.
    pub(super) fn alloc_request(&mut self) -> i32 {
        let fd = (FIRST_REQUEST_FD..)
            .find(|fd| !self.fds.contains_key(fd))
            .unwrap_or(FIRST_REQUEST_FD);
        self.requests.push(Request::default());
        self.fds.insert(fd, self.requests.len() - 1);
        fd
    }

    pub(super) fn is_request(&self, fd: i32) -> bool {
        self.fds.contains_key(&fd)
    }

    /// Closes request `fd`: one never queued gives its buffer back.
    pub(super) fn close_request(&mut self, fd: i32) {
        if let Some(id) = self.fds.remove(&fd) {
            self.unbind(id);
        }
    }

    /// Returns the source buffer of request `id`, queued in it and not yet
    /// given to the driver, to the application.
    fn unbind(&mut self, id: usize) {
        let Some(o) = self.requests[id].output else {
            return;
        };
        if let Some(b) = self.out.bufs.get_mut(o) {
            if b.state == State::InRequest && b.request == Some(id) {
                b.state = State::Dequeued;
                b.request = None;
            }
        }
    }

    fn request(&mut self, fd: i32) -> Result<(usize, &mut Request), Errno> {
        let &id = self.fds.get(&fd).ok_or(libc::EINVAL)?;
        Ok((id, &mut self.requests[id]))
    }

    /// Whether request `fd` completed (POLLPRI).
    pub(super) fn completed(&self, fd: i32) -> bool {
        self.fds
            .get(&fd)
            .is_some_and(|&id| self.requests[id].done.is_some())
    }

    /// MEDIA_REQUEST_IOC_QUEUE: hantro's request validation (a source
    /// buffer, both per-frame controls), then the source buffer goes to the
    /// driver; [`Queues::run_jobs`] runs the job once there is a CAPTURE buffer.
    pub(super) fn queue_request(&mut self, fd: i32) -> Result<(), Errno> {
        let (_, r) = self.request(fd)?;
        if r.queued || r.done.is_some() {
            return Err(libc::EBUSY);
        }
        let Some(o) = r.output else {
            return Err(libc::ENOENT);
        };
        if r.params.is_none() || r.rc.is_none() {
            return Err(libc::ENOENT);
        }
        r.queued = true;
        self.out.bufs[o].state = State::Queued;
        self.out.ready.push_back(o);
        Ok(())
    }

    /// MEDIA_REQUEST_IOC_REINIT: busy until the job ran and both its
    /// buffers are dequeued; a request never queued may be reinitialized at
    /// once, and its source buffer returns to the application.
    pub(super) fn reinit_request(&mut self, fd: i32) -> Result<(), Errno> {
        let (id, r) = self.request(fd)?;
        if r.queued && !(r.out_dequeued && r.cap_dequeued) {
            return Err(libc::EBUSY);
        }
        self.unbind(id);
        self.requests[id] = Request::default();
        Ok(())
    }

    /// The per-frame controls of request `c.request_fd`
    /// (V4L2_CTRL_WHICH_REQUEST_VAL); the names to log.
    pub(super) fn request_ctrls(
        &mut self,
        set: bool,
        c: &mut v4l2_ext_controls,
    ) -> Result<Vec<String>, Errno> {
        let ctrls = controls(c)?;
        let (_, r) = self.request(c.request_fd)?;
        let mut names = Vec::new();
        for (i, x) in ctrls.iter().enumerate() {
            c.error_idx = i as u32;
            let p = payload(x)?;
            match (set, x.id) {
                (true, V4L2_CID_STATELESS_H264_ENCODE_PARAMS) => {
                    if r.done.is_some() || r.output.is_some() {
                        return Err(libc::EBUSY);
                    }
                    r.params = Some(read_struct(p)?);
                }
                (true, V4L2_CID_STATELESS_H264_ENCODE_RC) => {
                    let rc: v4l2_ctrl_h264_encode_rc = read_struct(p)?;
                    names.push(format!("RC(flags={:#x},qp={})", rc.flags, rc.qp));
                    r.rc = Some(rc);
                    continue;
                }
                (false, V4L2_CID_STATELESS_H264_ENCODE_FEEDBACK) => {
                    let done = r.done.as_ref().ok_or(libc::EACCES)?;
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
        Ok(names)
    }

    /// __find_plane_by_offset() behind v4l2_m2m_mmap(): the plane mapped at
    /// `offset`, and its name.
    pub(super) fn plane_at(&mut self, offset: u32) -> Option<(&mut Vec<u8>, String)> {
        let (ty, off) = if offset >= CAPTURE_OFFSET {
            (CAPTURE, offset - CAPTURE_OFFSET)
        } else {
            (OUTPUT, offset)
        };
        let index = (off >> PLANE_INDEX_SHIFT) as usize;
        let plane = (off / PAGE % 8) as usize;
        if mem_offset(ty, index, plane) != offset {
            return None;
        }
        let q = self.queue(ty).ok()?;
        let mem = q.bufs.get_mut(index)?.planes.get_mut(plane)?;
        let name = if ty == OUTPUT {
            format!("OUTPUT plane {plane}")
        } else {
            "CAPTURE".to_string()
        };
        Some((mem, name))
    }
}

/// __fill_v4l2_buffer(): the index and the planes buffer `i` has.
fn fill(ty: u32, i: usize, lens: &[u32], b: &mut v4l2_buffer, pl: &mut [v4l2_plane]) {
    b.index = i as u32;
    b.length = lens.len() as u32;
    for (p, (&len, plane)) in pl.iter_mut().zip(lens.iter().zip(0..)) {
        p.length = len;
        p.m.mem_offset = mem_offset(ty, i, plane);
    }
}

pub(super) fn ts_ns(t: timeval) -> u64 {
    t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1000
}
