// SPDX-License-Identifier: GPL-2.0-only
// Shared by the build scripts that bind the uAPI: this crate's and the
// virtual device's (`include!`d, so neither needs the other at build time).

/// Writes the series' `videodev2.h` and `v4l2-controls.h` under
/// `installed/linux/` as `make headers_install` gives them to userspace (no
/// `linux/compiler.h`, no `__user`), for an include path ahead of the
/// system's kernel headers.
fn install_uapi_headers(top: &std::path::Path, installed: &std::path::Path) {
    std::fs::create_dir_all(installed.join("linux")).unwrap();
    for h in ["videodev2.h", "v4l2-controls.h"] {
        let src = top.join("include/uapi/linux").join(h);
        println!("cargo:rerun-if-changed={}", src.display());
        let text = std::fs::read_to_string(&src).unwrap();
        let text: String = text
            .lines()
            .filter(|l| l.trim() != "#include <linux/compiler.h>")
            .map(|l| l.replace("__user ", "") + "\n")
            .collect();
        std::fs::write(installed.join("linux").join(h), text).unwrap();
    }
}
