//! The committed C header is what cbindgen generates from the sources, and it compiles.

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
    let bindings = cbindgen::Builder::new()
        .with_crate(&dir)
        .with_config(config)
        .generate()
        .expect("cbindgen");
    let mut out = Vec::new();
    bindings.write(&mut out);
    String::from_utf8(out).unwrap()
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
fn header_compiles_with_gcc_wall_werror() {
    let dir = std::env::temp_dir().join(format!("h264enc-hdr-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let c = dir.join("t.c");
    std::fs::write(
        &c,
        "#include <media/h264enc.h>\n\
         _Static_assert(sizeof(struct h264enc_ctx) == H264ENC_CTX_SIZE, \"ctx size\");\n\
         _Static_assert(_Alignof(struct h264enc_ctx) == 8, \"ctx align\");\n\
         int use(struct h264enc_ctx *c, const struct h264enc_config *cfg) { return h264enc_init(c, cfg); }\n",
    )
    .unwrap();
    let include = header_path()
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .to_path_buf();
    for std in ["-std=gnu11", "-std=c99"] {
        let out = Command::new("gcc")
            .args([std, "-Wall", "-Wextra", "-Werror", "-c", "-o"])
            .arg(dir.join("t.o"))
            .arg("-I")
            .arg(&include)
            .arg(&c)
            .output()
            .expect("gcc");
        assert!(
            out.status.success(),
            "gcc {std}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let _ = std::fs::remove_dir_all(Path::new(&dir));
}
