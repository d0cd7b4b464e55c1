//! V4L2 devices: finding the nodes that expose the stateless H.264 encode
//! uAPI, and encoding through them with media requests.

pub mod encoder;
#[cfg(any(test, feature = "fake-kernel"))]
pub mod fake;
pub mod kernel;
mod source;
pub mod sys;

pub use encoder::V4l2Encoder;
use kernel::System;

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
        match V4l2Encoder::open(System, n) {
            Ok(_) => {
                s += &format!("{n}  stateless H.264 encoder\n");
                found += 1;
            }
            Err(e) if e.contains("does not expose") => {}
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

/// Opens a V4L2 node for `encode`.
pub fn open(path: &str) -> Result<V4l2Encoder<System>, String> {
    V4l2Encoder::open(System, path)
}
