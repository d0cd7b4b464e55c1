//! Generates the bindings from the overlay's uAPI headers, installed the way
//! `make headers_install` gives them to userspace (no `linux/compiler.h`, no
//! `__user`), ahead of the system's kernel headers for the rest.

use std::path::PathBuf;

include!("install_headers.rs");

fn main() {
    let here = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let top = here.join("../../..").canonicalize().unwrap();
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let installed = out.join("uapi");
    install_uapi_headers(&top, &installed);
    let hantro = top.join("include/uapi/linux/hantro-media.h");
    println!("cargo:rerun-if-changed={}", hantro.display());
    let header = here.join("uapi.h");
    println!("cargo:rerun-if-changed={}", header.display());
    // The kernel's own names: a client reads them beside the specification.
    let bindings = bindgen::Builder::default()
        .header(header.to_str().unwrap())
        .clang_arg(format!("-I{}", installed.display()))
        .clang_arg(format!("-I{}", top.join("include/uapi").display()))
        .allowlist_type(
            "v4l2_ctrl_type|v4l2_ctrl_h264_.*|v4l2_mpeg_video_.*|v4l2_colorspace|v4l2_xfer_func|v4l2_ycbcr_encoding|v4l2_quantization",
        )
        .allowlist_type(
            "v4l2_capability|v4l2_format|v4l2_streamparm|v4l2_selection|v4l2_requestbuffers|v4l2_buffer|v4l2_plane|v4l2_ext_controls|v4l2_ext_control|v4l2_query_ext_ctrl|v4l2_encoder_cmd|v4l2_buf_type|v4l2_memory",
        )
        .allowlist_var(
            "HANTRO_H1_.*|V4L2_CID_.*|V4L2_H264_.*|V4L2_PIX_FMT_.*|V4L2_BUF_FLAG_.*|V4L2_CTRL_TYPE_H264_.*|V4L2_MPEG_VIDEO_.*",
        )
        .allowlist_var(
            "V4L2_CAP_.*|V4L2_CTRL_WHICH_.*|V4L2_ENC_CMD_.*|V4L2_BUF_CAP_.*|V4L2_SEL_TGT_.*|VIDEO_MAX_PLANES",
        )
        .prepend_enum_name(false)
        .derive_default(true)
        .generate()
        .expect("bindgen over the series' uAPI headers");
    bindings.write_to_file(out.join("uapi.rs")).unwrap();
}
