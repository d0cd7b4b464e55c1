//! The emulated H1: the software H1 as the hardware behind a real hantro driver.
//!
//! In the VM tests the hantro driver binds to a platform device that a
//! test-only kernel module makes; the module exposes the device's register
//! window, the guest's RAM and the interrupt line through
//! `/dev/hantro-h1-emu` ([`chardev`]). This crate's program, `h1-emu`, plays
//! the silicon behind it with [`hantro_h1_model::H1`], the very code the
//! virtual device runs: it polls ENC_CTRL for EN, runs the frame with the
//! registers and the guest's memory, writes the registers back (ENC_CTRL,
//! then INTERRUPT last) and raises the interrupt ([`Emulator::step`]).
//! Faults of [`hantro_h1_model::fault`] can be armed for given frames.
//!
//! [`Device`] abstracts the device so that tests run a frame over ordinary
//! memory.

use hantro_h1_model::fault::{self, Fault};
use hantro_h1_model::regs::{self, Registers};
use hantro_h1_model::{CpuLevel, Memory, H1};
use std::collections::BTreeMap;
use std::fmt;
use std::io;
use std::sync::atomic::{fence, Ordering};

pub mod chardev;
pub mod cli;
pub mod memory;

/// The H1 as its hardware side sees it: the register window, the bus, the interrupt line.
pub trait Device {
    /// Reads the 32-bit register at byte offset `off` of the window.
    fn read_reg(&self, off: usize) -> u32;
    /// Writes the 32-bit register at byte offset `off` of the window.
    fn write_reg(&mut self, off: usize, val: u32);
    /// The memory the H1 reaches by bus address (the guest's RAM).
    fn memory(&mut self) -> &mut dyn Memory;
    /// Raises the interrupt line once.
    fn raise_irq(&mut self) -> io::Result<()>;
}

/// The faults to show, by frame index.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FaultPlan(BTreeMap<u64, Fault>);

impl FaultPlan {
    /// A plan of `(frame, fault)` pairs; two faults for one frame are refused.
    pub fn new(items: impl IntoIterator<Item = (u64, Fault)>) -> Result<Self, String> {
        let mut plan = BTreeMap::new();
        for (n, k) in items {
            if let Some(old) = plan.insert(n, k) {
                return Err(format!("two faults for frame {n}: {old} and {k}"));
            }
        }
        Ok(FaultPlan(plan))
    }

    /// The fault of frame `index` ([`Fault::None`] when none is armed).
    pub fn get(&self, index: u64) -> Fault {
        self.0.get(&index).copied().unwrap_or_default()
    }
}

/// Parses one `N:KIND` item of `--fault-at`.
pub fn parse_fault_at(s: &str) -> Result<(u64, Fault), String> {
    let (n, kind) = s
        .split_once(':')
        .ok_or_else(|| format!("`{s}`: expected N:KIND"))?;
    let n = n
        .trim()
        .parse::<u64>()
        .map_err(|e| format!("`{s}`: frame index `{n}`: {e}"))?;
    let kind = kind.trim().parse::<Fault>().map_err(|e| e.to_string())?;
    Ok((n, kind))
}

/// How a frame ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The registers were written back and the interrupt raised with this INTERRUPT value.
    Interrupt(u32),
    /// The core hung ([`Fault::Timeout`]): no interrupt, no register written
    /// but ENC_CTRL with EN cleared, as the reset after the driver's watchdog
    /// would (the emulated device has no reset line, so the driver's reset
    /// cannot), for the next frame to be seen.
    Hung,
    /// The driver rewrote ENC_CTRL while the frame ran (a reset): the frame is
    /// dropped, nothing written back, no interrupt.
    Reset,
}

/// One frame the emulator ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// Frames started before this one since the emulator was made.
    pub index: u64,
    /// The picture size, in macroblocks (ENC_CTRL's width and height fields).
    pub width_mbs: u32,
    /// See `width_mbs`.
    pub height_mbs: u32,
    /// The fault shown.
    pub fault: Fault,
    /// How it ended.
    pub outcome: Outcome,
    /// Bytes of slice NAL units written to the output stream.
    pub stream_bytes: u32,
}

impl fmt::Display for Frame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "frame {}: {}x{} = {} MBs, ",
            self.index,
            self.width_mbs,
            self.height_mbs,
            self.width_mbs * self.height_mbs
        )?;
        match self.outcome {
            Outcome::Interrupt(irq) => write!(f, "interrupt {irq:#x}")?,
            Outcome::Hung => f.write_str("no interrupt (hung)")?,
            Outcome::Reset => f.write_str("no interrupt (reset while running)")?,
        }
        write!(f, ", {} stream bytes", self.stream_bytes)?;
        if self.fault != Fault::None {
            write!(f, ", fault {}", self.fault)?;
        }
        Ok(())
    }
}

/// The H1 behind a [`Device`].
#[derive(Default)]
pub struct Emulator {
    h1: H1,
    faults: FaultPlan,
    frames: u64,
}

impl Emulator {
    /// An emulator that shows the faults of `faults`.
    pub fn new(faults: FaultPlan) -> Self {
        Emulator {
            faults,
            ..Default::default()
        }
    }

    /// An emulator that shows the faults of `faults`, whose H1 runs the
    /// functions of the CPU level `level` ([`H1::new`]).
    pub fn with_level(faults: FaultPlan, level: CpuLevel) -> Self {
        Emulator {
            h1: H1::new(level),
            ..Emulator::new(faults)
        }
    }

    /// Frames started so far.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// One poll: when ENC_CTRL has EN set, runs that frame and returns it.
    ///
    /// The frame runs on a copy of the register window, exactly as
    /// [`H1::run`] on the virtual device, with the fault armed for its index
    /// ([`fault::run_with_fault`]). Then every register is written back,
    /// ENC_CTRL (EN now clear) next to last and INTERRUPT last, and the
    /// interrupt is raised. If ENC_CTRL changed while the frame ran (the
    /// driver reset the core), nothing is written back ([`Outcome::Reset`]);
    /// a hung core ([`Outcome::Hung`]) only clears EN. The only error is a
    /// failure to raise the interrupt.
    pub fn step(&mut self, dev: &mut dyn Device) -> io::Result<Option<Frame>> {
        let ctrl = dev.read_reg(regs::ENC_CTRL);
        if ctrl & regs::ENC_CTRL_EN == 0 {
            return Ok(None);
        }
        // The driver writes ENC_CTRL last: its other registers are there.
        fence(Ordering::SeqCst);
        let index = self.frames;
        self.frames += 1;
        let fault = self.faults.get(index);
        let mut r = Registers::default();
        for (i, v) in r.0.iter_mut().enumerate() {
            *v = dev.read_reg(i * 4);
        }
        let mut frame = Frame {
            index,
            width_mbs: r.field(regs::ENC_CTRL, regs::ENC_CTRL_WIDTH_SHIFT, 9),
            height_mbs: r.field(regs::ENC_CTRL, regs::ENC_CTRL_HEIGHT_SHIFT, 9),
            fault,
            outcome: Outcome::Hung,
            stream_bytes: 0,
        };
        let report = fault::run_with_fault(&mut self.h1, &mut r, dev.memory(), fault);
        fence(Ordering::SeqCst);
        if dev.read_reg(regs::ENC_CTRL) != ctrl {
            frame.outcome = Outcome::Reset;
            return Ok(Some(frame));
        }
        let Some(report) = report else {
            // The driver waits for the interrupt or its watchdog: it does not
            // write ENC_CTRL meanwhile.
            dev.write_reg(regs::ENC_CTRL, ctrl & !regs::ENC_CTRL_EN);
            return Ok(Some(frame));
        };
        frame.stream_bytes = report.nal_sizes.iter().sum();
        for (i, &v) in r.0.iter().enumerate() {
            let off = i * 4;
            if off != regs::ENC_CTRL && off != regs::INTERRUPT {
                dev.write_reg(off, v);
            }
        }
        fence(Ordering::SeqCst);
        dev.write_reg(regs::ENC_CTRL, r.read(regs::ENC_CTRL));
        dev.write_reg(regs::INTERRUPT, r.read(regs::INTERRUPT));
        fence(Ordering::SeqCst);
        dev.raise_irq()?;
        frame.outcome = Outcome::Interrupt(r.read(regs::INTERRUPT));
        Ok(Some(frame))
    }
}
