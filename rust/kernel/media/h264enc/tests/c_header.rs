//! The committed C header is what cbindgen generates from the sources, put in
//! kernel style, and it compiles as C (32 and 64 bits) and C++.
//!
//! cbindgen writes C, not kernel C: `uint8_t`, spaces for indentation,
//! `struct __aligned(8) name`, and doc comments copied verbatim from Rust.
//! [`kernel_style`] rewrites its output into a header that passes
//! `checkpatch.pl --strict` and `kernel-doc -Wall` (rules in cbindgen.toml and
//! on each function below). The pass is a function of cbindgen's text and
//! cbindgen.toml only, so the header stays reproducible: `H264ENC_BLESS=1 cargo test -p h264enc --test
//! c_header` writes it, and without `H264ENC_BLESS` the test fails if it is stale.
//!
//! `H264ENC_LINUX_SRC=<kernel tree>` also runs that tree's checkpatch.pl and
//! kernel-doc on the header.

#[path = "support/kernel_style.rs"]
mod kernel_style;

use kernel_style::{kernel_style, width, TYPES, WIDTH};
use std::path::{Path, PathBuf};
use std::process::Command;

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn header_path() -> PathBuf {
    crate_dir().join("../../../../include/media/h264enc.h")
}

fn generate() -> String {
    let dir = crate_dir();
    let config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("cbindgen.toml");
    let rename = config.export.rename.clone();
    let bindings = cbindgen::Builder::new()
        .with_crate(&dir)
        .with_config(config)
        .generate()
        .expect("cbindgen");
    let mut out = Vec::new();
    bindings.write(&mut out);
    kernel_style(&String::from_utf8(out).unwrap(), &rename)
}

#[test]
fn header_is_fresh() {
    let want = generate();
    let path = header_path();
    if std::env::var_os("H264ENC_BLESS").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(have == want, "include/media/h264enc.h is stale: regenerate with H264ENC_BLESS=1 cargo test -p h264enc --test c_header");
}

#[test]
fn header_is_kernel_style() {
    let header = generate();
    for (n, line) in header.lines().enumerate() {
        let n = n + 1;
        assert!(
            width(line) <= WIDTH,
            "line {n} is over {WIDTH} columns: {line}"
        );
        assert!(line.trim_end() == line, "line {n} ends with white space");
        // Tabs, then fewer than 8 spaces of alignment; a line starts with a
        // space only in a comment.
        let code = line.trim_start_matches('\t');
        let spaces = code.len() - code.trim_start_matches(' ').len();
        assert!(
            spaces < 8 && (spaces == 0 || code.starts_with(" *") || code.len() < line.len()),
            "line {n} is indented with spaces: {line}"
        );
        for (c, _) in TYPES {
            assert!(!line.contains(c), "line {n} uses {c}: {line}");
        }
    }
}

/// Compiles a test of the header with `compiler` and `args`.
fn compile(dir: &Path, compiler: &str, args: &[&str], source: &str, ext: &str) {
    let src = dir.join(format!("t{ext}"));
    std::fs::write(&src, source).unwrap();
    let include = header_path()
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .to_path_buf();
    let out = Command::new(compiler)
        .args(["-Wall", "-Wextra", "-Werror", "-c", "-o"])
        .arg(dir.join("t.o"))
        .args(args)
        .arg("-I")
        .arg(&include)
        .arg(&src)
        .output()
        .unwrap_or_else(|e| panic!("{compiler}: {e}"));
    assert!(
        out.status.success(),
        "{compiler} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

const C_TEST: &str = "#include <media/h264enc.h>\n\
    _Static_assert(sizeof(struct h264enc_ctx) == H264ENC_CTX_SIZE, \"ctx size\");\n\
    _Static_assert(_Alignof(struct h264enc_ctx) == 8, \"ctx align\");\n\
    int use(struct h264enc_ctx *c, const struct h264enc_config *cfg) { return h264enc_init(c, cfg); }\n";

/// Asserts that each struct of the header has the size and alignment of its
/// Rust type on this machine.
fn layout_asserts() -> String {
    use std::mem::{align_of, size_of};
    let layouts = [
        (
            "h264enc_ctx",
            size_of::<h264enc::capi::Ctx>(),
            align_of::<h264enc::capi::Ctx>(),
        ),
        (
            "h264enc_config",
            size_of::<h264enc::config::Config>(),
            align_of::<h264enc::config::Config>(),
        ),
        (
            "h264enc_frame_params",
            size_of::<h264enc::config::FrameParams>(),
            align_of::<h264enc::config::FrameParams>(),
        ),
        (
            "h264enc_frame_plan",
            size_of::<h264enc::plan::FramePlan>(),
            align_of::<h264enc::plan::FramePlan>(),
        ),
        (
            "h264enc_hw_feedback",
            size_of::<h264enc::plan::HwFeedback>(),
            align_of::<h264enc::plan::HwFeedback>(),
        ),
        (
            "h264enc_frame_status",
            size_of::<h264enc::plan::FrameStatus>(),
            align_of::<h264enc::plan::FrameStatus>(),
        ),
        (
            "h264enc_dpb_entry",
            size_of::<h264enc::dpb::DpbEntry>(),
            align_of::<h264enc::dpb::DpbEntry>(),
        ),
        (
            "h264enc_stats",
            size_of::<h264enc::encoder::Stats>(),
            align_of::<h264enc::encoder::Stats>(),
        ),
    ];
    layouts
        .iter()
        .map(|(name, size, align)| {
            format!(
                "_Static_assert(sizeof(struct {name}) == {size} && _Alignof(struct {name}) == {align}, \"{name}\");\n"
            )
        })
        .collect()
}

#[test]
fn header_compiles_as_c() {
    let dir = std::env::temp_dir().join(format!("h264enc-hdr-c-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let host = format!("{C_TEST}{}", layout_asserts());
    for std in ["-std=gnu11", "-std=c99"] {
        compile(&dir, "gcc", &[std], &host, ".c");
    }
    // 32-bit x86 aligns u64 members to 4: the context must still be aligned to 8.
    // scripts/setup.sh installs gcc-multilib for -m32.
    compile(&dir, "gcc", &["-m32", "-std=gnu11"], C_TEST, ".c");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn header_compiles_as_cpp() {
    let dir = std::env::temp_dir().join(format!("h264enc-hdr-cpp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let test = "extern \"C\" {\n#include <media/h264enc.h>\n}\n\
        static_assert(sizeof(h264enc_ctx) == H264ENC_CTX_SIZE, \"ctx size\");\n\
        static_assert(alignof(h264enc_ctx) == 8, \"ctx align\");\n\
        int use(h264enc_ctx *c, const h264enc_config *cfg) { return h264enc_init(c, cfg); }\n";
    compile(&dir, "g++", &["-std=c++11"], test, ".cpp");
    let _ = std::fs::remove_dir_all(&dir);
}

/// With `H264ENC_LINUX_SRC` set to a kernel tree: its checkpatch.pl --strict
/// (on the file and on a patch adding it) and kernel-doc -Wall accept the header.
#[test]
fn kernel_tools_accept_the_header() {
    let tree = match std::env::var_os("H264ENC_LINUX_SRC") {
        Some(t) => PathBuf::from(t),
        None => {
            eprintln!("H264ENC_LINUX_SRC unset: checkpatch.pl and kernel-doc not run");
            return;
        }
    };
    let header = header_path().canonicalize().unwrap();
    let top = header.parent().unwrap().parent().unwrap().parent().unwrap();
    let run = |cmd: &mut Command| {
        let out = cmd.current_dir(top).output().expect("kernel script");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "{cmd:?}:\n{text}");
        text
    };
    let checkpatch = tree.join("scripts/checkpatch.pl");
    let strict = ["--strict", "--no-tree", "--show-types"];
    run(Command::new(&checkpatch)
        .args(strict)
        .args(["-f", "include/media/h264enc.h"]));
    let diff = Command::new("git")
        .args([
            "diff",
            "--no-index",
            "--",
            "/dev/null",
            "include/media/h264enc.h",
        ])
        .current_dir(top)
        .output()
        .expect("git diff");
    let patch = std::env::temp_dir().join(format!("h264enc-hdr-{}.patch", std::process::id()));
    std::fs::write(&patch, &diff.stdout).unwrap();
    // A patch that adds a file without touching MAINTAINERS gets
    // FILE_PATH_CHANGES ("does MAINTAINERS need updating?"): the series adds
    // the MAINTAINERS entry in a patch of its own.
    run(Command::new(&checkpatch)
        .args(strict)
        .args(["--ignore", "FILE_PATH_CHANGES"])
        .arg(&patch));
    let _ = std::fs::remove_file(&patch);
    let doc = run(Command::new(tree.join("scripts/kernel-doc")).args([
        "-none",
        "-Wall",
        "include/media/h264enc.h",
    ]));
    assert!(doc.trim().is_empty(), "kernel-doc:\n{doc}");
}
