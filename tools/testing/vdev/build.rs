//! Compiles the real driver sources (hantro H1 H.264 backend, control
//! validation) with the harness shim, and generates the uAPI bindings.

use std::path::PathBuf;

fn main() {
    let here = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let top = here.join("../../..").canonicalize().unwrap();
    let sources = [
        top.join("drivers/media/platform/verisilicon/hantro_h1_h264_enc.c"),
        top.join("drivers/media/platform/verisilicon/hantro_h1_h264_enc_ctrls.c"),
        top.join("drivers/media/v4l2-core/v4l2-h264-enc-ctrls.c"),
        here.join("shim/shim.c"),
    ];
    let includes = [
        here.join("shim/include"),
        here.join("shim"),
        top.join("drivers/media/platform/verisilicon"),
        top.join("include"),
        top.join("include/uapi"),
    ];
    let mut b = cc::Build::new();
    b.files(&sources)
        .std("gnu11")
        .warnings(true)
        .extra_warnings(true)
        .warnings_into_errors(true);
    b.flag("-Wno-unused-parameter")
        .flag("-Wno-sign-compare")
        .flag("-Wno-missing-field-initializers");
    for i in &includes {
        b.include(i);
    }
    b.compile("hantro_vdev");
    for f in sources.iter().chain(
        [
            top.join("include/media/h264enc.h"),
            top.join("include/media/v4l2-h264-enc.h"),
            top.join("include/uapi/linux/v4l2-controls.h"),
            top.join("include/uapi/linux/videodev2.h"),
            top.join("include/uapi/linux/hantro-media.h"),
            top.join("drivers/media/platform/verisilicon/hantro_h1_h264_enc.h"),
            top.join("drivers/media/platform/verisilicon/hantro_h1_regs.h"),
        ]
        .iter(),
    ) {
        println!("cargo:rerun-if-changed={}", f.display());
    }
    println!("cargo:rerun-if-changed={}", here.join("shim").display());

    // The uAPI headers the series changes, as make headers_install gives
    // them to userspace (no linux/compiler.h, no __user), ahead of the rest.
    let installed = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("uapi");
    std::fs::create_dir_all(installed.join("linux")).unwrap();
    for h in ["videodev2.h", "v4l2-controls.h"] {
        let text = std::fs::read_to_string(top.join("include/uapi/linux").join(h)).unwrap();
        let text: String = text
            .lines()
            .filter(|l| l.trim() != "#include <linux/compiler.h>")
            .map(|l| l.replace("__user ", "") + "\n")
            .collect();
        std::fs::write(installed.join("linux").join(h), text).unwrap();
    }
    let bindings = bindgen::Builder::default()
        .header(here.join("shim/vdev.h").to_str().unwrap())
        .clang_arg(format!("-I{}", installed.display()))
        .clang_arg(format!("-I{}", top.join("include/uapi").display()))
        .allowlist_type(
            "vdev_result|v4l2_ctrl_type|v4l2_ctrl_h264_.*|v4l2_mpeg_video_.*|v4l2_colorspace|v4l2_xfer_func|v4l2_ycbcr_encoding|v4l2_quantization",
        )
        .prepend_enum_name(false)
        .allowlist_var("HANTRO_H1_.*|V4L2_CID_.*|V4L2_H264_.*|V4L2_PIX_FMT_.*|V4L2_BUF_FLAG_.*|V4L2_CTRL_TYPE_H264_.*|V4L2_MPEG_VIDEO_.*")
        .allowlist_function("vdev_.*")
        .blocklist_function("vdev_host_.*")
        .derive_default(true)
        .generate()
        .expect("bindgen over shim/vdev.h and the uAPI header");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("uapi.rs");
    bindings.write_to_file(out).unwrap();
}
