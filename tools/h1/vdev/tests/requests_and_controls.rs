//! The rules of the kernel's control framework and request API that the
//! driver relies on, as the VM showed them and the shim now follows: every
//! request sets both per-frame controls, the configuration's controls are
//! busy while streaming, and the controls that act while streaming (the key
//! frame button, the bit rate) take effect at the next frame only.

use h264_oracle::{clip, ffmpeg_decode, first_diff};
use hantro_vdev::uapi::*;
use hantro_vdev::{Completed, Errno, PixelFormat, VirtualDevice};

const ENOENT: Errno = Errno(-2);
const EBUSY: Errno = Errno(-16);
const W: u32 = 176;
const H: u32 = 144;

fn frames(n: usize) -> Vec<Vec<u8>> {
    clip("meadow", W as usize, H as usize, n)
        .chunks((W * H * 3 / 2) as usize)
        .map(<[u8]>::to_vec)
        .collect()
}

fn open() -> VirtualDevice {
    let mut d = VirtualDevice::open();
    d.set_format(W, H, PixelFormat::I420, 30, 1).unwrap();
    d
}

fn plain(d: &mut VirtualDevice, f: &[u8], i: usize) -> Completed {
    let c = d
        .encode(f, i as u64 * 1000, &Default::default(), &Default::default())
        .unwrap();
    assert_eq!(c.error, 0, "frame {i}");
    c
}

/// NAL unit types of an Annex B access unit.
fn nal_types(au: &[u8]) -> Vec<u8> {
    au.windows(4)
        .filter(|w| w[..3] == [0, 0, 1])
        .map(|w| w[3] & 0x1f)
        .collect()
}

#[test]
fn a_request_without_both_per_frame_controls_is_refused() {
    let f = frames(2);
    let mut d = open();
    d.start().unwrap();
    let (p, rc) = (
        v4l2_ctrl_h264_encode_params::default(),
        v4l2_ctrl_h264_encode_rc::default(),
    );
    for (what, params, rcc) in [
        ("neither", None, None),
        ("no ENCODE_PARAMS", None, Some(&rc)),
        ("no ENCODE_RC", Some(&p), None),
    ] {
        assert_eq!(
            d.encode_request(&f[0], 0, params, rcc).err(),
            Some(ENOENT),
            "{what}"
        );
    }
    // Nothing reached the hardware: the first frame coded is still the IDR picture.
    let c = plain(&mut d, &f[0], 0);
    assert!(c.keyframe() && c.feedback.frame_num == 0);
    assert!(!plain(&mut d, &f[1], 1).keyframe());
}

#[test]
fn the_configuration_is_busy_while_streaming() {
    let mut d = open();
    d.start().unwrap();
    for id in [
        V4L2_CID_MPEG_VIDEO_GOP_SIZE,
        V4L2_CID_MPEG_VIDEO_H264_LOOP_FILTER_ALPHA,
        V4L2_CID_MPEG_VIDEO_BITRATE_MODE,
        V4L2_CID_STATELESS_H264_ENCODE_CABAC_INIT_IDC,
        V4L2_CID_MPEG_VIDEO_H264_PROFILE,
        V4L2_CID_MPEG_VIDEO_H264_LEVEL,
        V4L2_CID_MPEG_VIDEO_H264_ENTROPY_MODE,
        V4L2_CID_MPEG_VIDEO_H264_8X8_TRANSFORM,
        V4L2_CID_MPEG_VIDEO_H264_CONSTRAINED_INTRA_PREDICTION,
        V4L2_CID_MPEG_VIDEO_H264_CHROMA_QP_INDEX_OFFSET,
        V4L2_CID_MPEG_VIDEO_AU_DELIMITER,
        V4L2_CID_MPEG_VIDEO_PREPEND_SPSPPS_TO_IDR,
        V4L2_CID_MPEG_VIDEO_LTR_COUNT,
        V4L2_CID_MPEG_VIDEO_CONSTANT_QUALITY,
        V4L2_CID_MPEG_VIDEO_H264_HIERARCHICAL_CODING,
        V4L2_CID_MPEG_VIDEO_H264_HIERARCHICAL_CODING_LAYER,
    ] {
        assert_eq!(d.set_ctrl(id, 1).err(), Some(EBUSY), "control {id:#x}");
    }
    // What acts while streaming stays settable.
    d.set_ctrl(V4L2_CID_MPEG_VIDEO_BITRATE, 500_000).unwrap();
    d.set_ctrl(V4L2_CID_MPEG_VIDEO_FORCE_KEY_FRAME, 1).unwrap();
    d.stop();
    d.set_ctrl(V4L2_CID_MPEG_VIDEO_GOP_SIZE, 1).unwrap();
}

#[test]
fn a_forced_idr_picture_is_that_frame_only() {
    let f = frames(6);
    let mut d = open();
    d.start().unwrap();
    let force = v4l2_ctrl_h264_encode_params {
        flags: V4L2_H264_ENCODE_FLAG_FORCE_IDR,
        ..Default::default()
    };
    let mut idr = Vec::new();
    for (i, fr) in f.iter().enumerate() {
        if i == 4 {
            // The button acts on the next frame planned, once.
            d.set_ctrl(V4L2_CID_MPEG_VIDEO_FORCE_KEY_FRAME, 1).unwrap();
        }
        let c = if i == 2 {
            d.encode(fr, i as u64 * 1000, &force, &Default::default())
                .unwrap()
        } else {
            plain(&mut d, fr, i)
        };
        idr.push(c.keyframe());
    }
    assert_eq!(idr, [true, false, true, false, true, false]);
}

#[test]
fn a_bit_rate_change_starts_an_idr_picture_with_the_new_hrd() {
    let f = frames(8);
    let mut d = open();
    d.set_ctrl(V4L2_CID_MPEG_VIDEO_BITRATE_MODE, 1).unwrap(); // CBR
    d.set_ctrl(V4L2_CID_MPEG_VIDEO_BITRATE, 300_000).unwrap();
    d.start().unwrap();
    let (mut stream, mut recon, mut sps) = (Vec::new(), Vec::new(), Vec::new());
    for (i, fr) in f.iter().enumerate() {
        if i == 5 {
            d.set_bitrate(150_000, 150_000).unwrap();
        }
        let c = plain(&mut d, fr, i);
        assert_eq!(c.keyframe(), i == 0 || i == 5, "frame {i}");
        if c.keyframe() {
            assert!(nal_types(&c.payload).contains(&7), "frame {i}: an SPS");
            sps.push(c.payload.clone());
        }
        stream.extend_from_slice(&c.payload);
        recon.extend_from_slice(&d.recon(c.rec_slot).unwrap());
    }
    assert_ne!(sps[0], sps[1], "the new HRD parameters are in the new SPS");
    let dec = ffmpeg_decode(&stream).unwrap();
    assert!(
        dec == recon,
        "{}",
        first_diff(&dec, &recon, (W * H * 3 / 2) as usize)
    );
}
