//! Hardware faults: what a frame of a misbehaving H1 looks like to its driver.
//!
//! Every harness that plays the H1 for the real driver (the virtual device,
//! the emulated H1 of the VM tests) arms a [`Fault`] for a frame and runs that
//! frame through [`run_with_fault`], so the driver's failure paths meet the
//! same faults everywhere. A fault changes only what the driver can see: the
//! interrupt never comes, or a feedback register or a slice header the core
//! wrote is wrong.

use crate::memory::Memory;
use crate::regs::{self, Registers};
use crate::{RunReport, H1};
use core::fmt;
use core::str::FromStr;

/// A fault one frame of the hardware shows, to test the driver's failure paths.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Fault {
    /// Behave.
    #[default]
    None,
    /// Never raise the interrupt (the watchdog must fire): the core is stuck,
    /// nothing is written, EN stays set.
    Timeout,
    /// Pretend the output buffer is almost full (STR_BUF_LIMIT is 64 bytes
    /// when the frame starts): the frame ends with a buffer-full interrupt.
    BufferFull,
    /// A write the bus refuses (the output stream address moves off the
    /// memory): the frame ends with a bus-error interrupt.
    BusError,
    /// Report a QP sum the plan cannot have produced (MAD_CTRL after the frame).
    BadQpSum,
    /// Flip a bit of the first slice header the hardware wrote.
    CorruptSliceHeader,
    /// Report checkpoint results that go down (not cumulative).
    BadCheckpoints,
}

impl Fault {
    /// Every fault, [`Fault::None`] first.
    pub const ALL: [Fault; 7] = [
        Fault::None,
        Fault::Timeout,
        Fault::BufferFull,
        Fault::BusError,
        Fault::BadQpSum,
        Fault::CorruptSliceHeader,
        Fault::BadCheckpoints,
    ];

    /// The fault's name on command lines: `none`, `timeout`, `buffer-full`,
    /// `bus-error`, `bad-qp-sum`, `corrupt-slice-header`, `bad-checkpoints`.
    pub const fn name(self) -> &'static str {
        match self {
            Fault::None => "none",
            Fault::Timeout => "timeout",
            Fault::BufferFull => "buffer-full",
            Fault::BusError => "bus-error",
            Fault::BadQpSum => "bad-qp-sum",
            Fault::CorruptSliceHeader => "corrupt-slice-header",
            Fault::BadCheckpoints => "bad-checkpoints",
        }
    }

    /// Applies the part of the fault that precedes the frame, on the
    /// registers the driver programmed. Returns false when the core must not
    /// run at all ([`Fault::Timeout`]).
    pub fn before_run(self, regs: &mut Registers) -> bool {
        match self {
            Fault::Timeout => false,
            Fault::BufferFull => {
                regs.write(regs::STR_BUF_LIMIT, 64);
                true
            }
            Fault::BusError => {
                regs.write(regs::ADDR_OUTPUT_STREAM, 0xffff_fff0);
                true
            }
            _ => true,
        }
    }

    /// Applies the part of the fault that follows the frame, on the registers
    /// and memory the core left.
    pub fn after_run(self, regs: &mut Registers, mem: &mut dyn Memory) {
        match self {
            Fault::BadQpSum => regs.write(regs::MAD_CTRL, 0x1f_ffff),
            Fault::BadCheckpoints => {
                // Second result far above the third: not cumulative any more.
                let v = regs.read(regs::CHECKPOINT_BASE);
                regs.write(regs::CHECKPOINT_BASE, v | 0xfff0);
            }
            Fault::CorruptSliceHeader => {
                let out = regs.read(regs::ADDR_OUTPUT_STREAM);
                let rem = (regs.read(regs::RLC_CTRL) >> regs::RLC_STR_OFFS_SHIFT) & 0x3f;
                // Byte 6 of the slice NAL: inside frame_num / slice_qp_delta.
                let addr = out.wrapping_add(rem / 8 + 6);
                let mut b = [0u8];
                if mem.read(addr, &mut b).is_ok() {
                    b[0] ^= 0x10;
                    let _ = mem.write(addr, &b);
                }
            }
            Fault::None | Fault::Timeout | Fault::BufferFull | Fault::BusError => {}
        }
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is no [`Fault`]'s.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownFault(pub String);

impl fmt::Display for UnknownFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown fault `{}` (one of:", self.0)?;
        for k in Fault::ALL {
            write!(f, " {}", k.name())?;
        }
        f.write_str(")")
    }
}

impl std::error::Error for UnknownFault {}

impl FromStr for Fault {
    type Err = UnknownFault;

    /// Parses a [`Fault::name`].
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Fault::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| UnknownFault(s.to_owned()))
    }
}

/// Runs one frame as [`H1::run`] does, showing `fault`.
///
/// Returns what the core signalled, or `None` when the fault kept it from
/// running ([`Fault::Timeout`]: registers and memory untouched, EN still set,
/// no interrupt to raise).
pub fn run_with_fault(
    h1: &mut H1,
    regs: &mut Registers,
    mem: &mut dyn Memory,
    fault: Fault,
) -> Option<RunReport> {
    if !fault.before_run(regs) {
        return None;
    }
    let report = h1.run(regs, mem);
    fault.after_run(regs, mem);
    Some(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for k in Fault::ALL {
            assert_eq!(k.name().parse::<Fault>(), Ok(k));
            assert_eq!(k.to_string(), k.name());
        }
        let e = "Timeout".parse::<Fault>().unwrap_err();
        assert_eq!(e, UnknownFault("Timeout".into()));
        assert!(e.to_string().contains("corrupt-slice-header"));
    }

    #[test]
    fn a_timeout_leaves_the_core_stuck() {
        let mut regs = Registers::default();
        regs.write(regs::ENC_CTRL, regs::ENC_CTRL_EN);
        let before = regs.clone();
        let mut mem = crate::BufferMemory::new();
        let r = run_with_fault(&mut H1::default(), &mut regs, &mut mem, Fault::Timeout);
        assert!(r.is_none());
        assert_eq!(regs.0, before.0);
    }

    #[test]
    fn feedback_faults_change_the_registers_after_the_run() {
        // EN clear: the core does nothing, only the fault acts.
        let mut regs = Registers::default();
        let mut mem = crate::BufferMemory::new();
        let mut h1 = H1::default();
        regs.write(regs::CHECKPOINT_BASE, 0x0001_0002);
        run_with_fault(&mut h1, &mut regs, &mut mem, Fault::BadCheckpoints).unwrap();
        assert_eq!(regs.read(regs::CHECKPOINT_BASE), 0x0001_fff2);
        run_with_fault(&mut h1, &mut regs, &mut mem, Fault::BadQpSum).unwrap();
        assert_eq!(regs.read(regs::MAD_CTRL), 0x1f_ffff);
        assert!(Fault::BufferFull.before_run(&mut regs));
        assert_eq!(regs.read(regs::STR_BUF_LIMIT), 64);

        let out = mem.alloc(64);
        mem.write(out, &[0xaa; 64]).unwrap();
        regs.write(regs::ADDR_OUTPUT_STREAM, out);
        regs.write(regs::RLC_CTRL, 16 << regs::RLC_STR_OFFS_SHIFT);
        run_with_fault(&mut h1, &mut regs, &mut mem, Fault::CorruptSliceHeader).unwrap();
        let b = mem.buffer(out).unwrap();
        assert_eq!(b[8], 0xaa ^ 0x10);
        assert_eq!(b.iter().filter(|&&v| v != 0xaa).count(), 1);
    }
}
