//! Compiles the real driver sources (hantro H1 H.264 backend, control
//! validation) with the harness shim, and generates the bindings of the
//! device's API (`shim/vdev.h`).

use std::path::PathBuf;

include!("../../lib/uapi/install_headers.rs");

fn main() {
    let here = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let top = here.join("../../..").canonicalize().unwrap();
    let sources = [
        top.join("drivers/media/platform/verisilicon/hantro_h1_h264_enc.c"),
        top.join("drivers/media/platform/verisilicon/hantro_h1_h264_enc_ctrls.c"),
        top.join("drivers/media/v4l2-core/v4l2-h264-enc-ctrls.c"),
        here.join("shim/kernel.c"),
        here.join("shim/harness.c"),
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

    // The device's own API; the uAPI types it takes come from the uAPI
    // crate, which generates them from the same headers.
    let installed = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("uapi");
    install_uapi_headers(&top, &installed);
    let bindings = bindgen::Builder::default()
        .header(here.join("shim/vdev.h").to_str().unwrap())
        .clang_arg(format!("-I{}", installed.display()))
        .clang_arg(format!("-I{}", top.join("include/uapi").display()))
        .allowlist_type("vdev_result")
        .allowlist_function("vdev_.*")
        .blocklist_function("vdev_host_.*")
        .blocklist_type("v4l2_.*")
        .derive_default(true)
        .generate()
        .expect("bindgen over shim/vdev.h");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("vdev.rs");
    bindings.write_to_file(out).unwrap();
}
