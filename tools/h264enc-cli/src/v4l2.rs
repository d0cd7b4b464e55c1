//! V4L2 devices: finding the nodes that expose the stateless H.264 encode uAPI.

use crate::encode::EncodeArgs;
use crate::report::Summary;
use hantro_vdev::uapi::V4L2_CID_STATELESS_H264_ENCODE_PARAMS;

/// struct v4l2_queryctrl (videodev2.h), 68 bytes.
#[repr(C)]
struct QueryCtrl {
    id: u32,
    type_: u32,
    name: [u8; 32],
    minimum: i32,
    maximum: i32,
    step: i32,
    default_value: i32,
    flags: u32,
    reserved: [u32; 2],
}

/// VIDIOC_QUERYCTRL = _IOWR('V', 36, struct v4l2_queryctrl).
const VIDIOC_QUERYCTRL: u64 = 0xc044_5624;

/// What a node is, for `devices` and `--device`.
#[derive(Debug, PartialEq, Eq)]
pub enum Node {
    /// Exposes V4L2_CID_STATELESS_H264_ENCODE_PARAMS.
    Encoder,
    /// A V4L2 node without the stateless H.264 encode controls.
    Other,
}

/// Probes a device node.
pub fn probe(path: &str) -> Result<Node, String> {
    use std::os::fd::AsRawFd;
    let f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .map_err(|e| format!("cannot open {path}: {e}"))?;
    let mut q = QueryCtrl {
        id: V4L2_CID_STATELESS_H264_ENCODE_PARAMS,
        type_: 0,
        name: [0; 32],
        minimum: 0,
        maximum: 0,
        step: 0,
        default_value: 0,
        flags: 0,
        reserved: [0; 2],
    };
    // SAFETY: VIDIOC_QUERYCTRL reads and writes one struct v4l2_queryctrl, which `q` is.
    let r = unsafe {
        libc::ioctl(
            f.as_raw_fd(),
            VIDIOC_QUERYCTRL as _,
            &mut q as *mut QueryCtrl,
        )
    };
    Ok(if r == 0 { Node::Encoder } else { Node::Other })
}

/// Lists the encoders: the built-in virtual one and /dev/video* nodes with the uAPI.
pub fn list() -> String {
    let mut s = String::from(
        "virtual      software H1 (built in): the hantro H1 backend over a model of the H1\n",
    );
    let mut nodes: Vec<String> = std::fs::read_dir("/dev")
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.path().display().to_string())
                .filter(|p| p.starts_with("/dev/video"))
                .collect()
        })
        .unwrap_or_default();
    nodes.sort();
    let mut found = 0;
    for n in &nodes {
        match probe(n) {
            Ok(Node::Encoder) => {
                s += &format!("{n}  stateless H.264 encoder\n");
                found += 1;
            }
            Ok(Node::Other) => {}
            Err(e) => s += &format!("# {e}\n"),
        }
    }
    if found == 0 {
        s += &format!(
            "# no /dev/video* node exposes the stateless H.264 encode uAPI ({} nodes checked)\n",
            nodes.len()
        );
    }
    s
}

/// Encoding on a V4L2 node.
pub fn encode_on_device(a: &EncodeArgs) -> Result<Summary, String> {
    match probe(&a.device)? {
        Node::Other => Err(format!("{} does not expose the stateless H.264 encode uAPI (no V4L2_CID_STATELESS_H264_ENCODE_PARAMS)", a.device)),
        Node::Encoder => Err(format!(
            "{}: encoding through a V4L2 node (media requests) is not implemented yet; use --device virtual",
            a.device
        )),
    }
}
