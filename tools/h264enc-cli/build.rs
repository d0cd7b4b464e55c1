//! Generates the V4L2 and media-controller uAPI types from the system's
//! kernel headers (linux-libc-dev), so the V4L2 backend uses the kernel's own
//! struct layouts.

use std::path::PathBuf;

fn main() {
    let here = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let header = here.join("src/v4l2/sys.h");
    println!("cargo:rerun-if-changed={}", header.display());
    let bindings = bindgen::Builder::default()
        .header(header.to_str().unwrap())
        .allowlist_type(
            "v4l2_capability|v4l2_format|v4l2_streamparm|v4l2_requestbuffers|v4l2_buffer|v4l2_plane|v4l2_ext_controls|v4l2_ext_control|v4l2_query_ext_ctrl|v4l2_encoder_cmd|v4l2_buf_type|v4l2_memory",
        )
        .allowlist_var(
            "V4L2_CAP_.*|V4L2_BUF_FLAG_.*|V4L2_CTRL_WHICH_.*|V4L2_ENC_CMD_.*|V4L2_BUF_CAP_.*|VIDEO_MAX_PLANES",
        )
        .prepend_enum_name(false)
        .derive_default(true)
        .layout_tests(false)
        .generate()
        .expect("bindgen over linux/videodev2.h and linux/media.h");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("v4l2.rs");
    bindings.write_to_file(out).unwrap();
}
