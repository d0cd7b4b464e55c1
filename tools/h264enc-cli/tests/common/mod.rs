//! Helpers the test files of h264enc share: the binary, a scratch
//! directory, test clips, and an encode that `verify` checks.
// Each test file uses some of them.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_h264enc")
}

pub fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("h264enc-cli-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

pub fn run(args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .output()
        .expect("run h264enc")
}

pub fn y4m(name: &str, w: usize, h: usize, frames: usize) -> String {
    h264_oracle::clip_with(name, w, h, frames, true)
        .unwrap()
        .display()
        .to_string()
}

/// Encodes with `extra` options, then verifies with the reconstruction (and HRD when rate-controlled).
pub fn encode_and_verify(tag: &str, input: &str, extra: &[&str], hrd: bool) -> String {
    let out = tmp(&format!("{tag}.h264"));
    let rec = tmp(&format!("{tag}.yuv"));
    let (o, r) = (out.display().to_string(), rec.display().to_string());
    let mut args = vec!["encode", input, "-o", &o, "--recon", &r];
    args.extend_from_slice(extra);
    let e = run(&args);
    assert!(
        e.status.success(),
        "{tag}: encode failed: {}",
        String::from_utf8_lossy(&e.stderr)
    );
    let summary = String::from_utf8_lossy(&e.stdout).into_owned();
    let mut v = vec!["verify", &o, "--recon", &r];
    if hrd {
        v.push("--hrd");
    }
    let vr = run(&v);
    assert!(
        vr.status.success(),
        "{tag}: verify failed: {}{}",
        String::from_utf8_lossy(&vr.stdout),
        String::from_utf8_lossy(&vr.stderr)
    );
    summary
}

/// Runs a command that must fail with `msg` in its error and leave no output file.
pub fn refuses(args: &[&str], msg: &str) {
    let out = args
        .iter()
        .position(|a| *a == "-o")
        .map(|i| args[i + 1].to_string());
    let r = run(args);
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(!r.status.success(), "{args:?} succeeded");
    assert!(err.contains(msg), "{args:?}: expected '{msg}' in: {err}");
    assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
    if let Some(o) = out {
        assert!(
            !std::path::Path::new(&o).exists(),
            "{args:?} left {o} behind"
        );
        assert!(
            !std::path::Path::new(&format!("{o}.part")).exists(),
            "{args:?} left a .part file"
        );
    }
}
