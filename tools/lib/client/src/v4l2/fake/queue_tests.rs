//! Tests of the model with several buffers and requests: the backend and
//! the device thread keeping requests queued, and what videobuf2 and
//! v4l2-mem2mem answer to the ioctls one by one.

use super::tests::{config, encode_all, frames, raw_buffer, same_stream, set_per_frame_ctrls};
use super::*;
use crate::device::{Completed, Device, PixelFormat};
use crate::device_thread::DeviceThread;
use crate::session::{configure, StreamConfig};
use crate::v4l2::V4l2Encoder;
use std::sync::{Arc, Mutex};
use v4l2_h264enc_uapi::{v4l2_ctrl_h264_encode_params, v4l2_ctrl_h264_encode_rc};

fn ts(i: usize) -> u64 {
    i as u64 * 1_000_000_000 / 30 / 1000 * 1000
}

fn join(done: Vec<Completed>) -> Vec<u8> {
    done.into_iter().flat_map(|c| c.payload).collect()
}

/// The stream of the virtual device itself.
fn reference(cfg: &StreamConfig, clip: &[Vec<u8>]) -> Vec<u8> {
    let mut direct = cfg.clone();
    direct.virtual_h1 = true;
    join(encode_all(&mut VirtualDevice::open(), &direct, clip).unwrap())
}

/// Configures `d` to keep `n` requests queued and encodes `clip` through
/// submit and reap: `n` queued, then one reaped before each next, then the rest.
fn encode_queued(
    d: &mut dyn Device,
    cfg: &StreamConfig,
    clip: &[Vec<u8>],
    n: usize,
) -> Result<Vec<Completed>, String> {
    d.set_queue_depth(n);
    configure(d, cfg)?;
    assert_eq!(d.queue_depth(), n);
    let (params, rc) = (
        v4l2_ctrl_h264_encode_params::default(),
        v4l2_ctrl_h264_encode_rc::default(),
    );
    let mut out = Vec::new();
    let mut queued = 0;
    for (i, f) in clip.iter().enumerate() {
        if queued == n {
            out.push(d.reap()?);
            queued -= 1;
        }
        d.submit(f, ts(i), Some(&params), Some(&rc))?;
        queued += 1;
    }
    for _ in 0..queued {
        out.push(d.reap()?);
    }
    d.finish()?;
    Ok(out)
}

/// Buffers on both queues, `n` requests, all queued before the first wait.
fn queued_ahead(calls: &[String], n: usize) {
    for q in ["OUTPUT", "CAPTURE"] {
        let line = format!("VIDIOC_REQBUFS {q} count={n}");
        assert!(calls.contains(&line), "no {line}: {calls:#?}");
    }
    let count = |calls: &[String], what: &str| calls.iter().filter(|c| *c == what).count();
    assert_eq!(count(calls, "MEDIA_IOC_REQUEST_ALLOC"), n);
    assert_eq!(count(calls, "mmap CAPTURE"), n);
    let first_wait = calls.iter().position(|c| c == "poll request").unwrap();
    assert_eq!(
        count(&calls[..first_wait], "MEDIA_REQUEST_IOC_QUEUE"),
        n,
        "{calls:#?}"
    );
}

#[test]
fn the_backend_keeps_several_requests_queued() {
    for (format, (w, h)) in [
        (PixelFormat::I420, (176, 144)),
        (PixelFormat::Nv12, (200, 120)),
    ] {
        let clip = frames("meadow", w as usize, h as usize, 10, format);
        let cfg = config(w, h, format, false);
        let want = reference(&cfg, &clip);
        let mut one = Vec::new();
        for n in [1, 2, 3] {
            let k = FakeKernel::new();
            let log = k.log.clone();
            let mut d = V4l2Encoder::open(k, "/dev/video0").unwrap();
            let got = join(encode_queued(&mut d, &cfg, &clip, n).unwrap());
            drop(d);
            same_stream(&got, &want);
            if n == 1 {
                one = got;
            } else {
                same_stream(&got, &one);
            }
            let calls = log.borrow();
            queued_ahead(&calls, n);
            // Each request has its own fd, and each is closed.
            for fd in FIRST_REQUEST_FD..FIRST_REQUEST_FD + n as i32 {
                assert!(calls.contains(&format!("close {fd}")), "{format:?} {n}");
            }
        }
    }
}

/// The model's kernel with its log where another thread can read it: the
/// device thread owns the kernel, and FakeKernel's log is not Send.
struct Shared {
    k: FakeKernel,
    log: Arc<Mutex<Vec<String>>>,
}

impl Shared {
    fn pass<R>(&mut self, r: R) -> R {
        let lines = std::mem::take(&mut *self.k.log.borrow_mut());
        self.log.lock().unwrap().extend(lines);
        r
    }
}

impl Kernel for Shared {
    fn open(&mut self, path: &str) -> Result<i32, Errno> {
        let r = self.k.open(path);
        self.pass(r)
    }

    fn close(&mut self, fd: i32) {
        self.k.close(fd);
        self.pass(())
    }

    fn ioctl(&mut self, fd: i32, req: Req, arg: Arg) -> Result<(), Errno> {
        let r = self.k.ioctl(fd, req, arg);
        self.pass(r)
    }

    fn mmap(&mut self, fd: i32, len: usize, offset: u32) -> Result<*mut u8, Errno> {
        let r = self.k.mmap(fd, len, offset);
        self.pass(r)
    }

    fn munmap(&mut self, ptr: *mut u8, len: usize) {
        self.k.munmap(ptr, len);
        self.pass(())
    }

    fn poll_pri(&mut self, fd: i32, timeout_ms: i32) -> Result<bool, Errno> {
        let r = self.k.poll_pri(fd, timeout_ms);
        self.pass(r)
    }

    fn media_node(&mut self, video: &str) -> Result<String, String> {
        self.k.media_node(video)
    }
}

#[test]
fn the_device_thread_keeps_two_requests_queued() {
    let (w, h, format) = (176, 144, PixelFormat::I420);
    let clip = frames("meadow", w as usize, h as usize, 10, format);
    let cfg = config(w, h, format, false);
    let log = Arc::new(Mutex::new(Vec::new()));
    let shared = log.clone();
    let mut d = DeviceThread::spawn(2, move || {
        let k = Shared {
            k: FakeKernel::new(),
            log: shared,
        };
        Ok(Box::new(V4l2Encoder::open(k, "/dev/video0")?))
    })
    .unwrap();
    configure(&mut d, &cfg).unwrap();
    let mut got = Vec::new();
    for (i, f) in clip.iter().enumerate() {
        if d.full() {
            got.push(d.dequeue().unwrap().completed);
        }
        let params = v4l2_ctrl_h264_encode_params::default();
        let rc = v4l2_ctrl_h264_encode_rc::default();
        d.queue(f.clone(), ts(i), Some(params), Some(rc)).unwrap();
    }
    while d.in_flight() > 0 {
        got.push(d.dequeue().unwrap().completed);
    }
    d.finish().unwrap();
    drop(d);
    same_stream(&join(got), &reference(&cfg, &clip));
    queued_ahead(&log.lock().unwrap(), 2);
}

/// A node streaming 176x144 YM12 with `count` buffers on each queue.
fn streaming(count: u32) -> FakeKernel {
    let mut k = FakeKernel::new();
    for (ty, pixelformat, num_planes) in [(CAPTURE, H264, 1), (OUTPUT, YM12, 3)] {
        let mut f = v4l2_format {
            type_: ty,
            ..Default::default()
        };
        f.fmt.pix_mp = v4l2_pix_format_mplane {
            width: 176,
            height: 144,
            pixelformat,
            num_planes,
            ..Default::default()
        };
        k.ioctl(VIDEO_FD, Req::SFmt, Arg::Fmt(&mut f)).unwrap();
    }
    for ty in [OUTPUT, CAPTURE] {
        let mut rb = v4l2_requestbuffers {
            count,
            type_: ty,
            memory: V4L2_MEMORY_MMAP,
            ..Default::default()
        };
        k.ioctl(VIDEO_FD, Req::ReqBufs, Arg::ReqBufs(&mut rb))
            .unwrap();
        assert_eq!(rb.count, count);
        let mut t = ty as i32;
        k.ioctl(VIDEO_FD, Req::StreamOn, Arg::Int(&mut t)).unwrap();
    }
    k
}

fn alloc(k: &mut FakeKernel) -> i32 {
    let mut fd = -1;
    k.ioctl(MEDIA_FD, Req::RequestAlloc, Arg::Int(&mut fd))
        .unwrap();
    fd
}

/// Queues source buffer `index`, every plane used whole, in request `fd`
/// with a timestamp of `us` microseconds.
fn qbuf_source(k: &mut FakeKernel, index: u32, fd: i32, us: i64) -> Result<(), Errno> {
    let mut pl = [v4l2_plane::default(); 3];
    let mut b = raw_buffer(OUTPUT, &mut pl);
    b.index = index;
    k.ioctl(VIDEO_FD, Req::QueryBuf, Arg::Buf(&mut b))?;
    for p in &mut pl {
        p.bytesused = p.length;
    }
    b.flags = V4L2_BUF_FLAG_REQUEST_FD;
    b.__bindgen_anon_1.request_fd = fd;
    b.timestamp = timeval {
        tv_sec: 0,
        tv_usec: us,
    };
    k.ioctl(VIDEO_FD, Req::QBuf, Arg::Buf(&mut b))
}

fn qbuf_capture(k: &mut FakeKernel, index: u32) -> Result<(), Errno> {
    let mut pl = [v4l2_plane::default()];
    let mut b = raw_buffer(CAPTURE, &mut pl);
    b.index = index;
    k.ioctl(VIDEO_FD, Req::QBuf, Arg::Buf(&mut b))
}

/// DQBUF on queue `ty`: the buffer's index, timestamp (µs) and flags.
fn dqbuf(k: &mut FakeKernel, ty: u32) -> Result<(u32, i64, u32), Errno> {
    let mut pl = [v4l2_plane::default(); 3];
    let n = if ty == OUTPUT { 3 } else { 1 };
    let mut b = raw_buffer(ty, &mut pl[..n]);
    k.ioctl(VIDEO_FD, Req::DqBuf, Arg::Buf(&mut b))?;
    Ok((b.index, b.timestamp.tv_usec, b.flags))
}

fn request(k: &mut FakeKernel, fd: i32, req: Req) -> Result<(), Errno> {
    k.ioctl(fd, req, Arg::None)
}

fn completed(k: &mut FakeKernel, fd: i32) -> bool {
    k.poll_pri(fd, 0).unwrap()
}

#[test]
fn buffers_are_addressed_by_index_and_queued_once() {
    let mut k = streaming(2);
    let (a, b) = (alloc(&mut k), alloc(&mut k));
    assert_eq!((a, b), (FIRST_REQUEST_FD, FIRST_REQUEST_FD + 1));
    for fd in [a, b] {
        set_per_frame_ctrls(&mut k, fd).unwrap();
    }
    // An unknown request: its controls, its queueing.
    assert_eq!(set_per_frame_ctrls(&mut k, 9), Err(libc::EINVAL));
    assert_eq!(request(&mut k, 9, Req::RequestQueue), Err(libc::ENOTTY));

    // Buffer 1 has its own planes after buffer 0's (8 pages a buffer);
    // there is no buffer 2.
    for (ty, base) in [(OUTPUT, 0), (CAPTURE, CAPTURE_OFFSET)] {
        let n = if ty == OUTPUT { 3 } else { 1 };
        let mut pl = [v4l2_plane::default(); 3];
        let mut buf = raw_buffer(ty, &mut pl[..n]);
        buf.index = 1;
        k.ioctl(VIDEO_FD, Req::QueryBuf, Arg::Buf(&mut buf))
            .unwrap();
        for (p, plane) in pl[..n].iter().zip(0..) {
            // SAFETY: mem_offset is the member of MMAP planes.
            let off = unsafe { p.m.mem_offset };
            assert_eq!(off, base + (8 + plane) * PAGE);
            assert!(k.mmap(VIDEO_FD, p.length as usize, off).is_ok());
        }
        let mut pl = [v4l2_plane::default(); 3];
        let mut buf = raw_buffer(ty, &mut pl[..n]);
        buf.index = 2;
        for req in [Req::QueryBuf, Req::QBuf] {
            assert_eq!(
                k.ioctl(VIDEO_FD, req, Arg::Buf(&mut buf)),
                Err(libc::EINVAL)
            );
        }
        assert_eq!(k.mmap(VIDEO_FD, 4096, base + 16 * PAGE), Err(libc::EINVAL));
    }
    // Buffer 0 has no fourth plane.
    assert_eq!(k.mmap(VIDEO_FD, 4096, 3 * PAGE), Err(libc::EINVAL));

    qbuf_source(&mut k, 0, a, 0).unwrap();
    // Not again, in another request; nor a second buffer in the same one.
    assert_eq!(qbuf_source(&mut k, 0, b, 0), Err(libc::EINVAL));
    assert_eq!(qbuf_source(&mut k, 1, a, 0), Err(libc::EINVAL));
    // A request never queued gives its buffer back when reinitialized.
    request(&mut k, a, Req::RequestReinit).unwrap();
    qbuf_source(&mut k, 0, b, 0).unwrap();
    set_per_frame_ctrls(&mut k, a).unwrap();
    qbuf_source(&mut k, 1, a, 0).unwrap();
    request(&mut k, b, Req::RequestQueue).unwrap();
    // Closing a request never queued gives its buffer back too.
    k.close(a);
    let c = alloc(&mut k);
    assert_eq!(c, a, "the lowest free fd");
    set_per_frame_ctrls(&mut k, c).unwrap();
    qbuf_source(&mut k, 1, c, 0).unwrap();

    qbuf_capture(&mut k, 0).unwrap();
    assert!(completed(&mut k, b));
    // The buffer is done, not dequeued: it cannot be queued again.
    assert_eq!(qbuf_capture(&mut k, 0), Err(libc::EINVAL));
    assert_eq!(dqbuf(&mut k, CAPTURE).map(|d| d.0), Ok(0));
    qbuf_capture(&mut k, 0).unwrap();

    // REQBUFS gives the count asked, at most VB2_MAX_FRAME, not while streaming.
    let mut rb = v4l2_requestbuffers {
        count: 40,
        type_: CAPTURE,
        memory: V4L2_MEMORY_MMAP,
        ..Default::default()
    };
    assert_eq!(
        k.ioctl(VIDEO_FD, Req::ReqBufs, Arg::ReqBufs(&mut rb)),
        Err(libc::EBUSY)
    );
    let mut t = CAPTURE as i32;
    k.ioctl(VIDEO_FD, Req::StreamOff, Arg::Int(&mut t)).unwrap();
    k.ioctl(VIDEO_FD, Req::ReqBufs, Arg::ReqBufs(&mut rb))
        .unwrap();
    assert_eq!(rb.count, MAX_FRAME);
}

#[test]
fn jobs_run_in_request_order_as_capture_buffers_come() {
    let mut k = streaming(2);
    let (a, b) = (alloc(&mut k), alloc(&mut k));
    for fd in [a, b] {
        set_per_frame_ctrls(&mut k, fd).unwrap();
    }
    // Source buffer 0 goes in b first, buffer 1 in a; a is queued first.
    qbuf_source(&mut k, 0, b, 2000).unwrap();
    qbuf_source(&mut k, 1, a, 1000).unwrap();
    request(&mut k, a, Req::RequestQueue).unwrap();
    request(&mut k, b, Req::RequestQueue).unwrap();
    assert!(!completed(&mut k, a) && !completed(&mut k, b));
    assert_eq!(dqbuf(&mut k, OUTPUT), Err(libc::EAGAIN));

    // One CAPTURE buffer: only the first request runs.
    qbuf_capture(&mut k, 1).unwrap();
    assert!(completed(&mut k, a));
    assert!(!completed(&mut k, b));
    assert_eq!(request(&mut k, b, Req::RequestReinit), Err(libc::EBUSY));
    let mut fb = v4l2_ctrl_h264_encode_feedback::default();
    let mut ctrl = v4l2_ext_control {
        id: V4L2_CID_STATELESS_H264_ENCODE_FEEDBACK,
        size: std::mem::size_of_val(&fb) as u32,
        __bindgen_anon_1: v4l2_ext_control__bindgen_ty_1 {
            p_u8: (&mut fb as *mut v4l2_ctrl_h264_encode_feedback).cast(),
        },
        ..Default::default()
    };
    let mut get = |k: &mut FakeKernel, fd: i32| {
        let mut c = v4l2_ext_controls {
            count: 1,
            request_fd: fd,
            controls: &mut ctrl,
            ..Default::default()
        };
        c.__bindgen_anon_1.which = V4L2_CTRL_WHICH_REQUEST_VAL;
        k.ioctl(VIDEO_FD, Req::GExtCtrls, Arg::ExtCtrls(&mut c))
    };
    assert_eq!(get(&mut k, b), Err(libc::EACCES));
    get(&mut k, a).unwrap();

    // The second CAPTURE buffer lets the second run.
    qbuf_capture(&mut k, 0).unwrap();
    assert!(completed(&mut k, b));
    get(&mut k, b).unwrap();

    // Both queues give their buffers back in the order the jobs completed,
    // each with its request's timestamp.
    let key = V4L2_BUF_FLAG_KEYFRAME;
    assert_eq!(dqbuf(&mut k, OUTPUT).map(|d| (d.0, d.1)), Ok((1, 1000)));
    assert_eq!(dqbuf(&mut k, OUTPUT).map(|d| (d.0, d.1)), Ok((0, 2000)));
    assert_eq!(dqbuf(&mut k, OUTPUT), Err(libc::EAGAIN));
    let first = dqbuf(&mut k, CAPTURE).unwrap();
    assert_eq!((first.0, first.1, first.2 & key), (1, 1000, key));
    let second = dqbuf(&mut k, CAPTURE).unwrap();
    assert_eq!((second.0, second.1, second.2 & key), (0, 2000, 0));
    assert_eq!(dqbuf(&mut k, CAPTURE), Err(libc::EAGAIN));
    for fd in [a, b] {
        request(&mut k, fd, Req::RequestReinit).unwrap();
    }
}
