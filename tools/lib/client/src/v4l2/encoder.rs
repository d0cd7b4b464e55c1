//! The V4L2 backend: the stateless encode interface of
//! `Documentation/userspace-api/media/v4l/dev-stateless-encoder.rst`, one
//! media request per frame, over any [`Kernel`].

use super::kernel::{errno_name, Errno, Kernel};
pub use super::source::fourcc_name;
use super::source::{format_name, memory_planes, source_formats, SourceLayout};
use super::sys::*;
use crate::device::{Completed, Device, PixelFormat};
use v4l2_h264enc_uapi::{
    v4l2_ctrl_h264_encode_feedback, v4l2_ctrl_h264_encode_params, v4l2_ctrl_h264_encode_rc,
    V4L2_CID_MPEG_VIDEO_BITRATE, V4L2_CID_MPEG_VIDEO_BITRATE_PEAK,
    V4L2_CID_STATELESS_H264_ENCODE_FEEDBACK, V4L2_CID_STATELESS_H264_ENCODE_PARAMS,
    V4L2_CID_STATELESS_H264_ENCODE_RC,
};

/// V4L2_PIX_FMT_H264: the CAPTURE format of a stateless H.264 encoder.
pub const PIX_FMT_H264: u32 = fourcc(b"H264");
const OUTPUT: u32 = V4L2_BUF_TYPE_VIDEO_OUTPUT_MPLANE;
const CAPTURE: u32 = V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE;
/// The most requests queued at once.
const MAX_QUEUED: usize = 16;
/// How long a request may take before the frame is declared lost.
const REQUEST_TIMEOUT_MS: i32 = 5000;

/// One mmapped buffer plane.
struct Mapping {
    ptr: *mut u8,
    len: usize,
}

/// A stateless H.264 encoder node.
pub struct V4l2Encoder<K: Kernel> {
    k: K,
    path: String,
    video: i32,
    media: i32,
    width: u32,
    height: u32,
    fmt: PixelFormat,
    src: SourceLayout,
    cap_size: u32,
    /// The planes of each source buffer, mapped, by buffer index.
    out_bufs: Vec<Vec<Mapping>>,
    /// Each CAPTURE buffer, mapped, by buffer index.
    cap_bufs: Vec<Mapping>,
    /// One media request per buffer index: source buffer N goes in request N.
    requests: Vec<i32>,
    /// How many requests to queue at once, asked for before streaming.
    want_queued: usize,
    /// The buffer indices of the requests queued, oldest first.
    queued: std::collections::VecDeque<usize>,
    /// The buffer index of the next request: the one after the newest queued.
    queued_next: usize,
    streaming: bool,
    last_error: Option<String>,
    /// The bit rate last set, to order a change of bit rate and peak.
    bitrate_now: i32,
}

fn fail(req: Req, e: Errno) -> String {
    format!("{}: {}", req.name(), errno_name(e))
}

impl<K: Kernel> V4l2Encoder<K> {
    /// Opens `path` and checks that it is a stateless H.264 encoder with requests.
    pub fn open(mut k: K, path: &str) -> Result<Self, String> {
        let video = k
            .open(path)
            .map_err(|e| format!("cannot open {path}: {}", errno_name(e)))?;
        let mut enc = V4l2Encoder {
            k,
            path: path.to_string(),
            video,
            media: -1,
            width: 0,
            height: 0,
            fmt: PixelFormat::I420,
            src: SourceLayout::default(),
            cap_size: 0,
            out_bufs: Vec::new(),
            cap_bufs: Vec::new(),
            requests: Vec::new(),
            want_queued: 1,
            queued: std::collections::VecDeque::new(),
            queued_next: 0,
            streaming: false,
            last_error: None,
            bitrate_now: 0,
        };
        enc.check_caps()?;
        let media = enc.k.media_node(path)?;
        enc.media = enc
            .k
            .open(&media)
            .map_err(|e| format!("cannot open {media}: {}", errno_name(e)))?;
        Ok(enc)
    }

    fn check_caps(&mut self) -> Result<(), String> {
        let mut cap = v4l2_capability::default();
        if let Err(e) = self.k.ioctl(self.video, Req::QueryCap, Arg::Cap(&mut cap)) {
            return Err(format!(
                "{} is not a V4L2 device, so it does not expose the stateless H.264 encode uAPI ({})",
                self.path,
                fail(Req::QueryCap, e)
            ));
        }
        let caps = if cap.capabilities & V4L2_CAP_DEVICE_CAPS != 0 {
            cap.device_caps
        } else {
            cap.capabilities
        };
        let need = V4L2_CAP_VIDEO_M2M_MPLANE | V4L2_CAP_STREAMING;
        if caps & need != need {
            return Err(format!(
                "{} is not a multiplanar memory-to-memory device with streaming I/O (device_caps {caps:#x}), so it does not expose the stateless H.264 encode uAPI",
                self.path
            ));
        }
        for (id, name) in [
            (V4L2_CID_STATELESS_H264_ENCODE_PARAMS, "PARAMS"),
            (V4L2_CID_STATELESS_H264_ENCODE_RC, "RC"),
            (V4L2_CID_STATELESS_H264_ENCODE_FEEDBACK, "FEEDBACK"),
        ] {
            let mut q = v4l2_query_ext_ctrl {
                id,
                ..Default::default()
            };
            if let Err(e) = self
                .k
                .ioctl(self.video, Req::QueryExtCtrl, Arg::QueryExtCtrl(&mut q))
            {
                return Err(format!(
                    "{} does not expose the stateless H.264 encode uAPI (no V4L2_CID_STATELESS_H264_ENCODE_{name}: {})",
                    self.path,
                    errno_name(e)
                ));
            }
        }
        Ok(())
    }

    fn call(&mut self, fd: i32, req: Req, arg: Arg) -> Result<(), String> {
        self.k.ioctl(fd, req, arg).map_err(|e| fail(req, e))
    }

    /// S_EXT_CTRLS or G_EXT_CTRLS of `ctrls` on the device, or in request
    /// `request` with V4L2_CTRL_WHICH_REQUEST_VAL.
    fn ext_ctrls(
        &mut self,
        req: Req,
        which: u32,
        request: i32,
        ctrls: &mut [v4l2_ext_control],
    ) -> Result<(), String> {
        let mut c = v4l2_ext_controls {
            count: ctrls.len() as u32,
            request_fd: if which == V4L2_CTRL_WHICH_REQUEST_VAL {
                request
            } else {
                0
            },
            controls: ctrls.as_mut_ptr(),
            ..Default::default()
        };
        c.__bindgen_anon_1.which = which;
        self.call(self.video, req, Arg::ExtCtrls(&mut c))
    }

    /// Allocates up to `count` buffers of queue `ty` and maps the
    /// `num_planes` planes of each; the driver may give fewer.
    fn map_buffers(
        &mut self,
        ty: u32,
        num_planes: usize,
        count: usize,
    ) -> Result<Vec<Vec<Mapping>>, String> {
        let mut rb = v4l2_requestbuffers {
            count: count as u32,
            type_: ty,
            memory: V4L2_MEMORY_MMAP,
            ..Default::default()
        };
        self.call(self.video, Req::ReqBufs, Arg::ReqBufs(&mut rb))?;
        if rb.count < 1 {
            return Err(format!("{}: VIDIOC_REQBUFS gave no buffer", self.path));
        }
        if ty == OUTPUT && rb.capabilities & V4L2_BUF_CAP_SUPPORTS_REQUESTS == 0 {
            return Err(format!(
                "{}: the OUTPUT queue does not support requests",
                self.path
            ));
        }
        let mut bufs: Vec<Vec<Mapping>> = Vec::new();
        for index in 0..rb.count.min(count as u32) {
            match self.map_one(ty, index, num_planes) {
                Ok(maps) => bufs.push(maps),
                Err(e) => {
                    for m in bufs.into_iter().flatten() {
                        self.k.munmap(m.ptr, m.len);
                    }
                    return Err(e);
                }
            }
        }
        Ok(bufs)
    }

    /// Maps the `num_planes` planes of buffer `index` of queue `ty`.
    fn map_one(&mut self, ty: u32, index: u32, num_planes: usize) -> Result<Vec<Mapping>, String> {
        let mut planes = [v4l2_plane::default(); VIDEO_MAX_PLANES as usize];
        let mut b = buffer(ty, index, &mut planes[..num_planes]);
        self.call(self.video, Req::QueryBuf, Arg::Buf(&mut b))?;
        if b.length as usize != num_planes {
            return Err(format!(
                "{}: the {} buffer has {} planes, its format {num_planes}",
                self.path,
                if ty == OUTPUT { "OUTPUT" } else { "CAPTURE" },
                b.length
            ));
        }
        let mut maps = Vec::new();
        for p in &planes[..num_planes] {
            let len = p.length as usize;
            // SAFETY: reading the mem_offset member the kernel filled for MMAP buffers.
            let offset = unsafe { p.m.mem_offset };
            match self.k.mmap(self.video, len, offset) {
                Ok(ptr) => maps.push(Mapping { ptr, len }),
                Err(e) => {
                    for m in maps {
                        self.k.munmap(m.ptr, m.len);
                    }
                    return Err(format!("{}: mmap: {}", self.path, errno_name(e)));
                }
            }
        }
        Ok(maps)
    }

    /// Copies a frame into the planes of source buffer `index` at the
    /// driver's strides; the bytes used of each plane.
    fn fill_source(&mut self, index: usize, frame: &[u8]) -> Result<Vec<u32>, String> {
        let l = &self.src;
        let need = l
            .components
            .iter()
            .map(|c| c.src + c.rows * c.row_bytes)
            .max()
            .unwrap_or(0);
        if frame.len() < need {
            return Err(format!(
                "a frame of {} bytes: the source format takes {need}",
                frame.len()
            ));
        }
        let bufs = self.out_bufs.get(index).ok_or("not streaming")?;
        if bufs.len() != l.sizeimage.len() {
            return Err("not streaming".into());
        }
        for (i, (m, &size)) in bufs.iter().zip(&l.sizeimage).enumerate() {
            if m.len < size as usize {
                return Err(format!(
                    "{}: plane {i} of the source buffer holds {} bytes, the format needs {size}",
                    self.path, m.len
                ));
            }
        }
        for c in &l.components {
            let m = &bufs[c.plane];
            // SAFETY: the mapping is live until munmap in stop() and `len`
            // bytes long; SourceLayout::new checked that every row fits
            // sizeimage, and sizeimage fits the mapping (above).
            let dst = unsafe { std::slice::from_raw_parts_mut(m.ptr, m.len) };
            for r in 0..c.rows {
                let row = &mut dst[c.offset + r * c.stride..][..c.read_bytes];
                row[..c.row_bytes]
                    .copy_from_slice(&frame[c.src + r * c.row_bytes..][..c.row_bytes]);
                hantro_vdev::pad_row(row, c.row_bytes, c.unit);
            }
        }
        Ok(l.sizeimage.clone())
    }

    /// Fills source buffer `index` and queues it in `request`, then the
    /// request: one the driver refuses (a per-frame control missing) fails
    /// here, and its source buffer returns.
    fn queue_source(
        &mut self,
        index: usize,
        request: i32,
        frame: &[u8],
        timestamp: u64,
    ) -> Result<(), String> {
        let used = self.fill_source(index, frame)?;
        let n = used.len();
        let mut planes = [v4l2_plane::default(); VIDEO_MAX_PLANES as usize];
        for ((p, u), m) in planes.iter_mut().zip(used).zip(&self.out_bufs[index]) {
            p.bytesused = u;
            p.length = m.len as u32;
        }
        let mut b = buffer(OUTPUT, index as u32, &mut planes[..n]);
        b.flags = V4L2_BUF_FLAG_REQUEST_FD;
        b.__bindgen_anon_1.request_fd = request;
        b.timestamp = timeval {
            tv_sec: (timestamp / 1_000_000_000) as _,
            tv_usec: (timestamp % 1_000_000_000 / 1000) as _,
        };
        self.call(self.video, Req::QBuf, Arg::Buf(&mut b))?;
        // The request before the CAPTURE buffer: no CAPTURE buffer waits in
        // the queue for a frame that never comes.
        self.call(request, Req::RequestQueue, Arg::None)
    }

    /// Sets the OUTPUT crop rectangle to the visible `width`x`height` of the
    /// `coded_w`x`coded_h` pictures the driver allocated.
    fn crop(&mut self, width: u32, height: u32, coded_w: u32, coded_h: u32) -> Result<(), String> {
        let mut sel = v4l2_selection {
            type_: OUTPUT,
            target: V4L2_SEL_TGT_CROP,
            r: v4l2_rect {
                left: 0,
                top: 0,
                width,
                height,
            },
            ..Default::default()
        };
        let r = self
            .k
            .ioctl(self.video, Req::SSelection, Arg::Sel(&mut sel));
        let v4l2_rect {
            left,
            top,
            width: cw,
            height: ch,
        } = sel.r;
        let why = match r {
            Err(e) => fail(Req::SSelection, e),
            Ok(()) if (left, top, cw, ch) == (0, 0, width, height) => return Ok(()),
            Ok(()) => format!("it crops to {cw}x{ch} at ({left}, {top})"),
        };
        Err(format!(
            "{}: the device codes {coded_w}x{coded_h} pictures and cannot show {width}x{height} of them ({why})",
            self.path
        ))
    }

    fn stop(&mut self) {
        if self.streaming {
            for ty in [OUTPUT, CAPTURE] {
                let mut t = ty as i32;
                let _ = self.k.ioctl(self.video, Req::StreamOff, Arg::Int(&mut t));
            }
            self.streaming = false;
        }
        let out = std::mem::take(&mut self.out_bufs);
        let cap = std::mem::take(&mut self.cap_bufs);
        for m in out.into_iter().flatten().chain(cap) {
            self.k.munmap(m.ptr, m.len);
        }
        for fd in std::mem::take(&mut self.requests) {
            self.k.close(fd);
        }
        self.queued.clear();
        self.queued_next = 0;
    }
}

impl<K: Kernel> Device for V4l2Encoder<K> {
    fn set_format(
        &mut self,
        width: u32,
        height: u32,
        fmt: PixelFormat,
        fps_num: u32,
        fps_den: u32,
    ) -> Result<(), String> {
        // CAPTURE first: its size is the visible size the SPS crops to.
        let mut f = v4l2_format {
            type_: CAPTURE,
            ..Default::default()
        };
        let mut pm = v4l2_pix_format_mplane {
            width,
            height,
            pixelformat: PIX_FMT_H264,
            num_planes: 1,
            ..Default::default()
        };
        // Worst case of the H1 plus headers; the driver may raise it.
        pm.plane_fmt[0].sizeimage = width.div_ceil(16) * height.div_ceil(16) * 512 + 65536;
        f.fmt.pix_mp = pm;
        self.call(self.video, Req::SFmt, Arg::Fmt(&mut f))?;
        // SAFETY: the kernel fills pix_mp for multiplanar types.
        let got = unsafe { f.fmt.pix_mp };
        let (gw, gh, gfmt, np) = (got.width, got.height, got.pixelformat, got.num_planes);
        // A driver that codes whole macroblocks may round the CAPTURE size up
        // (hantro does); the visible size is then the OUTPUT crop rectangle.
        if gfmt != PIX_FMT_H264 || np != 1 || gw < width || gh < height {
            return Err(format!(
                "{}: the device offers {gw}x{gh} {} in {np} plane(s) for CAPTURE, not {width}x{height} H264 in one",
                self.path,
                fourcc_name(gfmt)
            ));
        }
        let crop = (gw, gh) != (width, height);
        self.cap_size = got.plane_fmt[0].sizeimage;

        // OUTPUT: the format of the driver's choice among those that carry
        // the frames, at the strides and plane sizes it returns.
        let wanted = source_formats(fmt);
        let mut offered = Vec::new();
        let mut layout = None;
        for &want in &wanted {
            let mut f = v4l2_format {
                type_: OUTPUT,
                ..Default::default()
            };
            f.fmt.pix_mp = v4l2_pix_format_mplane {
                width,
                height,
                pixelformat: want,
                num_planes: memory_planes(want) as u8,
                ..Default::default()
            };
            self.call(self.video, Req::SFmt, Arg::Fmt(&mut f))?;
            // SAFETY: as above.
            let got = unsafe { f.fmt.pix_mp };
            let (gw, gh, gfmt, np) = (got.width, got.height, got.pixelformat, got.num_planes);
            if wanted.contains(&gfmt) {
                let l = SourceLayout::new(width, height, fmt, &got).map_err(|e| {
                    format!(
                        "{}: the device does not take {width}x{height} {} sources: {e}",
                        self.path,
                        format_name(fmt)
                    )
                })?;
                layout = Some(l);
                break;
            }
            offered.push(format!("{gw}x{gh} {} in {np} plane(s)", fourcc_name(gfmt)));
        }
        let Some(layout) = layout else {
            return Err(format!(
                "{}: the device does not take {width}x{height} {} sources (asked for {}, it offers {})",
                self.path,
                format_name(fmt),
                wanted
                    .iter()
                    .map(|&f| fourcc_name(f))
                    .collect::<Vec<_>>()
                    .join(" and "),
                offered.join(", then ")
            ));
        };
        self.src = layout;
        self.width = width;
        self.height = height;
        self.fmt = fmt;
        if crop {
            self.crop(width, height, gw, gh)?;
        }

        let mut p = v4l2_streamparm {
            type_: OUTPUT,
            ..Default::default()
        };
        p.parm.output.capability = V4L2_CAP_TIMEPERFRAME;
        p.parm.output.timeperframe = v4l2_fract {
            numerator: fps_den,
            denominator: fps_num,
        };
        // The rate is signalled in the VUI and drives the rate control: a
        // driver that cannot take it would code another stream.
        if let Err(e) = self.k.ioctl(self.video, Req::SParm, Arg::Parm(&mut p)) {
            return Err(format!(
                "{}: the device does not take the frame rate {fps_num}/{fps_den} ({})",
                self.path,
                fail(Req::SParm, e)
            ));
        }
        // SAFETY: OUTPUT stream parameters use the output member.
        let t = unsafe { p.parm.output.timeperframe };
        if t.numerator == 0
            || u64::from(t.numerator) * u64::from(fps_num)
                != u64::from(t.denominator) * u64::from(fps_den)
        {
            return Err(format!(
                "{}: the device sets {}/{} s per frame, not {fps_den}/{fps_num}",
                self.path, t.numerator, t.denominator
            ));
        }
        Ok(())
    }

    fn set_ctrl(&mut self, id: u32, value: i32) -> Result<(), String> {
        if id == V4L2_CID_MPEG_VIDEO_BITRATE {
            self.bitrate_now = value;
        }
        self.ext_ctrls(
            Req::SExtCtrls,
            V4L2_CTRL_WHICH_CUR_VAL,
            0,
            &mut [ctrl_int(id, value)],
        )
    }

    fn set_compound(&mut self, id: u32, payload: &[u8]) -> Result<(), String> {
        // S_EXT_CTRLS only reads the payload; the kernel's pointer is not const.
        let mut copy = payload.to_vec();
        self.ext_ctrls(
            Req::SExtCtrls,
            V4L2_CTRL_WHICH_CUR_VAL,
            0,
            &mut [ctrl_ptr(id, copy.as_mut_ptr(), copy.len())],
        )
    }

    fn start(&mut self) -> Result<(), String> {
        let planes = self.src.sizeimage.len();
        // As many CAPTURE buffers and requests as source buffers: source
        // buffer N always goes in request N.
        self.out_bufs = self.map_buffers(OUTPUT, planes, self.want_queued)?;
        let n = self.out_bufs.len();
        self.cap_bufs = self
            .map_buffers(CAPTURE, 1, n)?
            .into_iter()
            .flatten()
            .collect();
        for ty in [OUTPUT, CAPTURE] {
            let mut t = ty as i32;
            self.call(self.video, Req::StreamOn, Arg::Int(&mut t))?;
        }
        self.streaming = true;
        for _ in 0..n.min(self.cap_bufs.len()) {
            let mut fd = -1;
            self.call(self.media, Req::RequestAlloc, Arg::Int(&mut fd))?;
            self.requests.push(fd);
        }
        Ok(())
    }

    fn set_queue_depth(&mut self, n: usize) {
        self.want_queued = n.clamp(1, MAX_QUEUED);
    }

    fn queue_depth(&self) -> usize {
        self.requests.len().max(1)
    }

    fn submit(
        &mut self,
        frame: &[u8],
        timestamp: u64,
        params: Option<&v4l2_ctrl_h264_encode_params>,
        rc: Option<&v4l2_ctrl_h264_encode_rc>,
    ) -> Result<(), String> {
        if self.requests.is_empty() {
            return Err("not streaming".into());
        }
        if self.queued.len() >= self.requests.len() {
            return Err(format!(
                "{}: {} requests queued, as many as it has buffers",
                self.path,
                self.queued.len()
            ));
        }
        // Requests complete in the order they were queued, so the buffer
        // after the newest queued is the oldest free one.
        let index = self.queued_next;
        let request = self.requests[index];
        let (mut p, mut r) = (params.copied(), rc.copied());
        let mut ctrls = Vec::new();
        if let Some(p) = p.as_mut() {
            ctrls.push(ctrl_ptr(
                V4L2_CID_STATELESS_H264_ENCODE_PARAMS,
                p as *mut _ as *mut u8,
                std::mem::size_of_val(p),
            ));
        }
        if let Some(r) = r.as_mut() {
            ctrls.push(ctrl_ptr(
                V4L2_CID_STATELESS_H264_ENCODE_RC,
                r as *mut _ as *mut u8,
                std::mem::size_of_val(r),
            ));
        }
        if !ctrls.is_empty() {
            let set = self.ext_ctrls(
                Req::SExtCtrls,
                V4L2_CTRL_WHICH_REQUEST_VAL,
                request,
                &mut ctrls,
            );
            if set.is_err() {
                // One control may have been taken before the other failed.
                let _ = self.call(request, Req::RequestReinit, Arg::None);
                return set;
            }
        }
        // A request that is not queued in the end is reinitialized: the
        // controls set in it must not ride with the next frame.
        let queued = self.queue_source(index, request, frame, timestamp);
        if queued.is_err() {
            self.call(request, Req::RequestReinit, Arg::None)?;
            return queued;
        }
        let mut cplanes = [v4l2_plane {
            length: self.cap_bufs[index].len as u32,
            ..Default::default()
        }];
        let mut cb = buffer(CAPTURE, index as u32, &mut cplanes);
        // The request is queued whatever CAPTURE says: it stays counted, so
        // its index is not reused while the driver holds it.
        self.queued.push_back(index);
        self.queued_next = (index + 1) % self.requests.len();
        self.call(self.video, Req::QBuf, Arg::Buf(&mut cb))
    }

    fn reap(&mut self) -> Result<Completed, String> {
        let index = self.queued.pop_front().ok_or("no request queued")?;
        let request = self.requests[index];
        match self.k.poll_pri(request, REQUEST_TIMEOUT_MS) {
            Ok(true) => {}
            Ok(false) => {
                return Err(format!(
                    "{}: the request did not complete within {REQUEST_TIMEOUT_MS} ms",
                    self.path
                ))
            }
            Err(e) => return Err(format!("poll on the request: {}", errno_name(e))),
        }
        let n = self.src.sizeimage.len();
        let mut planes = [v4l2_plane::default(); VIDEO_MAX_PLANES as usize];
        let mut b = buffer(OUTPUT, 0, &mut planes[..n]);
        self.call(self.video, Req::DqBuf, Arg::Buf(&mut b))?;
        let mut cplanes = [v4l2_plane::default()];
        let mut cb = buffer(CAPTURE, 0, &mut cplanes);
        self.call(self.video, Req::DqBuf, Arg::Buf(&mut cb))?;
        if (b.index as usize, cb.index as usize) != (index, index) {
            return Err(format!(
                "{}: request {index} completed with source buffer {} and CAPTURE buffer {}",
                self.path, b.index, cb.index
            ));
        }
        let mut fb = v4l2_ctrl_h264_encode_feedback::default();
        self.ext_ctrls(
            Req::GExtCtrls,
            V4L2_CTRL_WHICH_REQUEST_VAL,
            request,
            &mut [ctrl_ptr(
                V4L2_CID_STATELESS_H264_ENCODE_FEEDBACK,
                &mut fb as *mut _ as *mut u8,
                std::mem::size_of_val(&fb),
            )],
        )?;
        self.call(request, Req::RequestReinit, Arg::None)?;

        let m = &self.cap_bufs[index];
        let (start, used) = (
            cplanes[0].data_offset as usize,
            cplanes[0].bytesused as usize,
        );
        if start > used || used > m.len {
            return Err(format!(
                "{}: the CAPTURE buffer claims bytes {start}..{used} of {}",
                self.path, m.len
            ));
        }
        // SAFETY: the mapping is live and `len` bytes long; the range is checked above.
        let payload = unsafe { std::slice::from_raw_parts(m.ptr, m.len) }[start..used].to_vec();
        // A failed frame's feedback gives the reason; a driver that leaves it 0 says EIO.
        let error = match (cb.flags & V4L2_BUF_FLAG_ERROR != 0, fb.error) {
            (false, _) => 0,
            (true, 0) => -libc::EIO,
            (true, e) => -(e.min(4095) as i32),
        };
        if error != 0 {
            let ts = (cb.timestamp.tv_sec as u64)
                .saturating_mul(1_000_000_000)
                .saturating_add((cb.timestamp.tv_usec as u64).saturating_mul(1000));
            self.last_error = Some(format!(
                "the CAPTURE buffer of timestamp {ts} came back with V4L2_BUF_FLAG_ERROR, feedback error {}",
                fb.error
            ));
        }
        Ok(Completed {
            payload,
            flags: cb.flags,
            error,
            feedback: fb,
            // The vendor statistics are hantro's alone; h264enc does not use them.
            stats: None,
            rec_slot: 0,
        })
    }

    fn encode_request(
        &mut self,
        frame: &[u8],
        timestamp: u64,
        params: Option<&v4l2_ctrl_h264_encode_params>,
        rc: Option<&v4l2_ctrl_h264_encode_rc>,
    ) -> Result<Completed, String> {
        if !self.queued.is_empty() {
            return Err(format!(
                "{}: requests are queued: reap them first",
                self.path
            ));
        }
        self.submit(frame, timestamp, params, rc)?;
        self.reap()
    }

    fn recon(&mut self, _slot: u32) -> Option<Result<Vec<u8>, String>> {
        None
    }

    fn last_log(&self) -> Option<String> {
        self.last_error.clone()
    }

    fn set_bitrate(&mut self, bitrate: u32, peak: u32) -> Result<(), String> {
        let (b, p) = (
            i32::try_from(bitrate).map_err(|_| "bit rate out of range".to_string())?,
            i32::try_from(peak).map_err(|_| "peak bit rate out of range".to_string())?,
        );
        // Peak first when raising, bit rate first when lowering: the pair stays valid.
        let order = if b > self.bitrate_now {
            [
                (V4L2_CID_MPEG_VIDEO_BITRATE_PEAK, p),
                (V4L2_CID_MPEG_VIDEO_BITRATE, b),
            ]
        } else {
            [
                (V4L2_CID_MPEG_VIDEO_BITRATE, b),
                (V4L2_CID_MPEG_VIDEO_BITRATE_PEAK, p),
            ]
        };
        for (id, v) in order {
            self.set_ctrl(id, v)?;
        }
        self.bitrate_now = b;
        Ok(())
    }

    fn finish(&mut self) -> Result<(), String> {
        // STREAMOFF would cancel the requests still queued: they complete first.
        while !self.queued.is_empty() {
            self.reap()?;
        }
        let mut cmd = v4l2_encoder_cmd {
            cmd: V4L2_ENC_CMD_STOP,
            ..Default::default()
        };
        let r = self.call(self.video, Req::EncoderCmd, Arg::EncCmd(&mut cmd));
        self.stop();
        r
    }
}

impl<K: Kernel> Drop for V4l2Encoder<K> {
    fn drop(&mut self) {
        self.stop();
        for fd in [self.media, self.video] {
            if fd >= 0 {
                self.k.close(fd);
            }
        }
    }
}
