//! `h1-emu`: the software H1 behind the emulated H1 device of the VM tests.

use clap::Parser;
use hantro_h1_emu::chardev::EmuDevice;
use hantro_h1_emu::cli::Args;
use hantro_h1_emu::Emulator;
use hantro_h1_model::CpuLevel;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Time between two polls of ENC_CTRL.
const POLL: Duration = Duration::from_micros(200);

/// Set by SIGTERM and SIGINT.
static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    // An atomic store is async-signal-safe.
    STOP.store(true, Ordering::SeqCst);
}

fn install_signal_handlers() -> std::io::Result<()> {
    for sig in [libc::SIGTERM, libc::SIGINT] {
        // SAFETY: a zeroed sigaction is valid; the handler only stores to an atomic.
        let r = unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, std::ptr::null_mut())
        };
        if r != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let args = Args::parse();
    let plan = match args.fault_plan() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("h1-emu: --fault-at: {e}");
            return ExitCode::from(2);
        }
    };
    // The CPU level of the software H1, as the virtual device takes it.
    let level = match CpuLevel::from_env() {
        Ok(l) => l,
        Err(e) => {
            eprintln!("h1-emu: {e}");
            return ExitCode::from(2);
        }
    };
    if let Err(e) = install_signal_handlers() {
        eprintln!("h1-emu: cannot install the signal handlers: {e}");
        return ExitCode::FAILURE;
    }
    let mut dev = match EmuDevice::open(&args.device) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("h1-emu: {e}");
            return ExitCode::FAILURE;
        }
    };
    if args.verbose {
        eprintln!(
            "h1-emu: serving {} (CPU level {level})",
            args.device.display()
        );
    }
    let mut emu = Emulator::with_level(plan, level);
    let done = |emu: &Emulator| args.frames.is_some_and(|n| emu.frames() >= n);
    while !STOP.load(Ordering::SeqCst) && !done(&emu) {
        match emu.step(&mut dev) {
            Ok(Some(frame)) => {
                if args.verbose {
                    println!("{frame}");
                }
            }
            Ok(None) => std::thread::sleep(POLL),
            Err(e) => {
                eprintln!("h1-emu: frame {}: {e}", emu.frames() - 1);
                return ExitCode::FAILURE;
            }
        }
    }
    if args.verbose {
        eprintln!("h1-emu: {} frames, exiting", emu.frames());
    }
    ExitCode::SUCCESS
}
