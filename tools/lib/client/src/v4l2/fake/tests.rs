//! Tests of the modelled kernel side.

use super::*;
use crate::device::{Completed, Device, PixelFormat};
use crate::session::{configure, RcMode, StreamConfig};
use crate::v4l2::source::fourcc_name;
use crate::v4l2::V4l2Encoder;
use v4l2_h264enc_uapi::{v4l2_ctrl_h264_encode_params, V4L2_H264_ENCODE_RC_FLAG_QP};

pub(super) fn config(w: u32, h: u32, format: PixelFormat, client_rc: bool) -> StreamConfig {
    StreamConfig {
        format,
        rc: Some(RcMode::Cbr),
        bitrate: Some(300_000),
        gop: 8,
        client_rc,
        ..StreamConfig::new(w, h)
    }
}

/// A clip in `format`, frame by frame.
pub(super) fn frames(
    name: &str,
    w: usize,
    h: usize,
    n: usize,
    format: PixelFormat,
) -> Vec<Vec<u8>> {
    let i420 = h264_oracle::clip(name, w, h, n);
    if format.is_rgb() {
        let rgb = h264_oracle::i420_to_rgb(&i420, w, h, ffmpeg_name(format)).unwrap();
        return rgb
            .chunks(format.frame_len(w as u32, h as u32))
            .map(<[u8]>::to_vec)
            .collect();
    }
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
            PixelFormat::Yuyv => h264_oracle::i420_to_packed_422(f, w, h, false),
            PixelFormat::Uyvy => h264_oracle::i420_to_packed_422(f, w, h, true),
            _ => unreachable!("RGB is converted above"),
        })
        .collect()
}

/// ffmpeg's name of an RGB format.
pub(super) fn ffmpeg_name(format: PixelFormat) -> &'static str {
    match format {
        PixelFormat::Rgb565 => "rgb565le",
        PixelFormat::Bgrx => "bgr0",
        PixelFormat::Rgbx => "rgb0",
        PixelFormat::Xrgb => "0rgb",
        PixelFormat::Xbgr => "0bgr",
        _ => panic!("{format:?} is not RGB"),
    }
}

/// Configures `d` and encodes `clip`; client-driven streams get QP 30 on every frame.
pub(super) fn encode_all(
    d: &mut dyn Device,
    cfg: &StreamConfig,
    clip: &[Vec<u8>],
) -> Result<Vec<Completed>, String> {
    configure(d, cfg)?;
    let mut out = Vec::new();
    for (i, f) in clip.iter().enumerate() {
        let mut rc = v4l2_h264enc_uapi::v4l2_ctrl_h264_encode_rc::default();
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
fn both(cfg: &StreamConfig, clip: &[Vec<u8>], k: FakeKernel) -> (Vec<u8>, Vec<u8>, Vec<String>) {
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

pub(super) fn same_stream(got: &[u8], reference: &[u8]) {
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
    // 200x120: the driver codes 208x128 (whole macroblocks), its source
    // strides (208, 104) differ from the width, and the visible size is
    // the OUTPUT crop.
    for (format, (w, h)) in [
        (PixelFormat::I420, (176, 144)),
        (PixelFormat::Nv12, (200, 120)),
        (PixelFormat::I420, (200, 120)),
        (PixelFormat::Yuyv, (200, 120)),
        (PixelFormat::Uyvy, (176, 144)),
        // A width the H1 reads 2 pixels wider: the client pads its rows.
        (PixelFormat::I420, (202, 120)),
        (PixelFormat::Nv12, (202, 120)),
        (PixelFormat::Yuyv, (202, 120)),
        (PixelFormat::Rgb565, (202, 120)),
        (PixelFormat::Bgrx, (176, 144)),
        (PixelFormat::Xbgr, (200, 120)),
    ] {
        let clip = frames("meadow", w as usize, h as usize, 10, format);
        let (got, reference, calls) = both(&config(w, h, format, false), &clip, FakeKernel::new());
        same_stream(&got, &reference);
        let dec = h264_oracle::ffmpeg_decode(&got).unwrap();
        assert_eq!(dec.len(), (w * h * 3 / 2 * 10) as usize, "{format:?}");
        let (src, planes) = match format {
            PixelFormat::I420 => ("YM12".to_string(), 3),
            PixelFormat::Nv12 => ("NM12".to_string(), 2),
            f => (fourcc_name(f.fourcc()), 1),
        };
        let aligned = (w, h) != (176, 144);
        let want = [
            format!("VIDIOC_S_FMT CAPTURE H264 {w}x{h}")
                + if aligned {
                    " -> H264 208x128 1 planes"
                } else {
                    ""
                },
            format!("VIDIOC_S_FMT OUTPUT {src} {w}x{h}")
                + &if aligned {
                    format!(" -> {src} 208x128 {planes} planes")
                } else {
                    String::new()
                },
        ];
        let setup: Vec<&String> = calls
            .iter()
            .filter(|c| c.starts_with("VIDIOC_S_FMT") || c.starts_with("VIDIOC_S_SELECTION"))
            .collect();
        assert_eq!(setup[..2], [&want[0], &want[1]], "{format:?} {w}x{h}");
        if aligned {
            assert_eq!(
                setup[2..],
                [&format!(
                    "VIDIOC_S_SELECTION OUTPUT crop {w}x{h} -> {w}x{h}"
                )]
            );
        } else {
            assert_eq!(setup.len(), 2, "{setup:#?}");
        }
        assert!(calls.contains(&format!("VIDIOC_QUERYBUF OUTPUT {planes} planes")));
    }
}

/// The buffer of a v4l2_buffer call with `n` plane elements.
pub(super) fn raw_buffer(ty: u32, planes: &mut [v4l2_plane]) -> v4l2_buffer {
    let mut b = v4l2_buffer {
        type_: ty,
        memory: V4L2_MEMORY_MMAP,
        length: planes.len() as u32,
        ..Default::default()
    };
    b.m.planes = planes.as_mut_ptr();
    b
}

/// Sets both per-frame controls, all zero, in request `fd`.
pub(super) fn set_per_frame_ctrls(k: &mut FakeKernel, fd: i32) -> Result<(), Errno> {
    let mut p = v4l2_ctrl_h264_encode_params::default();
    let mut r = v4l2_h264enc_uapi::v4l2_ctrl_h264_encode_rc::default();
    let mut ctrls = [
        v4l2_ext_control {
            id: V4L2_CID_STATELESS_H264_ENCODE_PARAMS,
            size: std::mem::size_of_val(&p) as u32,
            __bindgen_anon_1: v4l2_ext_control__bindgen_ty_1 {
                p_u8: (&mut p as *mut v4l2_ctrl_h264_encode_params).cast(),
            },
            ..Default::default()
        },
        v4l2_ext_control {
            id: V4L2_CID_STATELESS_H264_ENCODE_RC,
            size: std::mem::size_of_val(&r) as u32,
            __bindgen_anon_1: v4l2_ext_control__bindgen_ty_1 {
                p_u8: (&mut r as *mut v4l2_h264enc_uapi::v4l2_ctrl_h264_encode_rc).cast(),
            },
            ..Default::default()
        },
    ];
    let mut c = v4l2_ext_controls {
        count: 2,
        request_fd: fd,
        controls: ctrls.as_mut_ptr(),
        ..Default::default()
    };
    c.__bindgen_anon_1.which = V4L2_CTRL_WHICH_REQUEST_VAL;
    k.ioctl(VIDEO_FD, Req::SExtCtrls, Arg::ExtCtrls(&mut c))
}

/// A client that knows only single-plane sources (the CLI before it
/// spoke hantro's formats) is refused at every step where the kernel
/// refuses it: the model cannot silently take one-plane buffers again.
#[test]
fn a_single_plane_client_is_refused() {
    for (asked, w, h) in [
        (b"YU12", 176, 144),
        (b"NV12", 176, 144),
        (b"YU12", 200, 120),
    ] {
        let mut k = FakeKernel::new();
        let mut f = v4l2_format {
            type_: CAPTURE,
            ..Default::default()
        };
        f.fmt.pix_mp = v4l2_pix_format_mplane {
            width: w,
            height: h,
            pixelformat: H264,
            num_planes: 1,
            ..Default::default()
        };
        k.ioctl(VIDEO_FD, Req::SFmt, Arg::Fmt(&mut f)).unwrap();
        let mut f = v4l2_format {
            type_: OUTPUT,
            ..Default::default()
        };
        f.fmt.pix_mp = v4l2_pix_format_mplane {
            width: w,
            height: h,
            pixelformat: fourcc(asked),
            num_planes: 1,
            ..Default::default()
        };
        // S_FMT adjusts rather than fails: hantro's first source format
        // (YM12 for NV12 too), three planes at its strides.
        k.ioctl(VIDEO_FD, Req::SFmt, Arg::Fmt(&mut f)).unwrap();
        // SAFETY: pix_mp is the member of multiplanar formats.
        let got = unsafe { f.fmt.pix_mp };
        let (gf, np, gw, gh) = (got.pixelformat, got.num_planes, got.width, got.height);
        let pf = got.plane_fmt;
        let (aw, ah) = (w.div_ceil(16) * 16, h.div_ceil(16) * 16);
        assert_eq!((gf, np, gw, gh), (YM12, 3, aw, ah));
        let layout: Vec<(u32, u32)> = pf[..3]
            .iter()
            .map(|p| (p.bytesperline, p.sizeimage))
            .collect();
        let c = (aw / 2, aw / 2 * ah / 2);
        assert_eq!(layout, [(aw, aw * ah), c, c]);

        let mut rb = v4l2_requestbuffers {
            count: 1,
            type_: OUTPUT,
            memory: V4L2_MEMORY_MMAP,
            ..Default::default()
        };
        k.ioctl(VIDEO_FD, Req::ReqBufs, Arg::ReqBufs(&mut rb))
            .unwrap();
        // One plane element: EINVAL on QUERYBUF and QBUF.
        for req in [Req::QueryBuf, Req::QBuf] {
            let mut one = [v4l2_plane::default()];
            let mut b = raw_buffer(OUTPUT, &mut one);
            assert_eq!(
                k.ioctl(VIDEO_FD, req, Arg::Buf(&mut b)),
                Err(libc::EINVAL),
                "{}",
                req.name()
            );
            // Nor a missing plane array.
            b.m.planes = std::ptr::null_mut();
            assert_eq!(k.ioctl(VIDEO_FD, req, Arg::Buf(&mut b)), Err(libc::EINVAL));
        }
        // The whole I420 picture in the first plane does not map.
        assert_eq!(
            k.mmap(VIDEO_FD, (aw * ah * 3 / 2) as usize, 0).err(),
            Some(libc::EINVAL)
        );
        // With three elements, QUERYBUF gives each plane its length and offset.
        let mut three = [v4l2_plane::default(); 3];
        let mut b = raw_buffer(OUTPUT, &mut three);
        k.ioctl(VIDEO_FD, Req::QueryBuf, Arg::Buf(&mut b)).unwrap();
        assert_eq!(b.length, 3);
        for (i, p) in three.iter().enumerate() {
            assert_eq!(p.length, layout[i].1);
            // SAFETY: mem_offset is the member of MMAP planes.
            let off = unsafe { p.m.mem_offset };
            assert_eq!(off, i as u32 * PAGE);
            assert!(k.mmap(VIDEO_FD, p.length as usize, off).is_ok());
        }
        // A plane that claims more bytes than it has is refused.
        let mut t = OUTPUT as i32;
        k.ioctl(VIDEO_FD, Req::StreamOn, Arg::Int(&mut t)).unwrap();
        let mut fd = 0;
        k.ioctl(MEDIA_FD, Req::RequestAlloc, Arg::Int(&mut fd))
            .unwrap();
        let mut three = [v4l2_plane::default(); 3];
        three[0].bytesused = layout[0].1 + 1;
        let mut b = raw_buffer(OUTPUT, &mut three);
        b.flags = V4L2_BUF_FLAG_REQUEST_FD;
        b.__bindgen_anon_1.request_fd = fd;
        assert_eq!(
            k.ioctl(VIDEO_FD, Req::QBuf, Arg::Buf(&mut b)),
            Err(libc::EINVAL)
        );
        // Nor one whose planes are not whole (the model is stricter here).
        three[0].bytesused = layout[0].1;
        assert_eq!(
            k.ioctl(VIDEO_FD, Req::QBuf, Arg::Buf(&mut b)),
            Err(libc::EINVAL)
        );

        // A frame that goes through: whole planes, then the CAPTURE side.
        for (p, l) in three.iter_mut().zip(&layout) {
            p.bytesused = l.1;
        }
        set_per_frame_ctrls(&mut k, fd).unwrap();
        k.ioctl(VIDEO_FD, Req::QBuf, Arg::Buf(&mut b)).unwrap();
        let mut rb = v4l2_requestbuffers {
            count: 1,
            type_: CAPTURE,
            memory: V4L2_MEMORY_MMAP,
            ..Default::default()
        };
        k.ioctl(VIDEO_FD, Req::ReqBufs, Arg::ReqBufs(&mut rb))
            .unwrap();
        let mut t = CAPTURE as i32;
        k.ioctl(VIDEO_FD, Req::StreamOn, Arg::Int(&mut t)).unwrap();
        let mut one = [v4l2_plane::default()];
        let mut cb = raw_buffer(CAPTURE, &mut one);
        k.ioctl(VIDEO_FD, Req::QBuf, Arg::Buf(&mut cb)).unwrap();
        k.ioctl(fd, Req::RequestQueue, Arg::None).unwrap();
        // The done OUTPUT buffer comes back only into an array of three.
        let mut one = [v4l2_plane::default()];
        let mut b = raw_buffer(OUTPUT, &mut one);
        assert_eq!(
            k.ioctl(VIDEO_FD, Req::DqBuf, Arg::Buf(&mut b)),
            Err(libc::EINVAL)
        );
        let mut three = [v4l2_plane::default(); 3];
        let mut b = raw_buffer(OUTPUT, &mut three);
        k.ioctl(VIDEO_FD, Req::DqBuf, Arg::Buf(&mut b)).unwrap();
        assert_eq!(b.length, 3);
    }
}

/// Sizes hantro cannot show are refused with a message that says why:
/// below its 96x48 minimum (it codes more than it can crop to).
#[test]
fn sizes_the_driver_cannot_crop_to_are_refused() {
    for ((w, h), shown) in [((64, 48), "96x48 pictures"), ((80, 64), "96x64 pictures")] {
        let mut d = V4l2Encoder::open(FakeKernel::new(), "/dev/video0").unwrap();
        let e = d.set_format(w, h, PixelFormat::I420, 30, 1).err().unwrap();
        assert!(
            e.contains(&format!("cannot show {w}x{h}")) && e.contains(shown),
            "{e}"
        );
    }
}

/// hantro of 6.12 has no VIDIOC_S_PARM: the CLI stops rather than code
/// the driver's default rate into the VUI and the rate control.
#[test]
fn a_driver_without_s_parm_is_refused() {
    let mut k = FakeKernel::new();
    k.s_parm = false;
    let mut d = V4l2Encoder::open(k, "/dev/video0").unwrap();
    let e = d
        .set_format(176, 144, PixelFormat::I420, 25, 1)
        .err()
        .unwrap();
    assert!(
        e.contains("does not take the frame rate 25/1 (VIDIOC_S_PARM: ENOTTY)"),
        "{e}"
    );
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
        "VIDIOC_S_FMT CAPTURE H264 176x144",
        "VIDIOC_S_FMT OUTPUT YM12 176x144",
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
            "VIDIOC_QUERYBUF OUTPUT 3 planes",
            "mmap OUTPUT plane 0",
            "mmap OUTPUT plane 1",
            "mmap OUTPUT plane 2",
            "VIDIOC_REQBUFS CAPTURE count=1",
            "VIDIOC_QUERYBUF CAPTURE 1 planes",
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
                "MEDIA_REQUEST_IOC_QUEUE",
                "VIDIOC_QBUF CAPTURE",
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
