//! `/dev/hantro-h1-emu`: the emulated H1's kernel side, seen from its userspace.
//!
//! The test module that makes the emulated H1's platform device offers:
//! - `mmap` at offset 0, [`REG_WINDOW_LEN`] bytes: the register window the
//!   driver reads and writes with `readl`/`writel`;
//! - `mmap` at offset [`H1EMU_DMA_BASE`] + `phys`: the guest's RAM at bus
//!   (= physical) address `phys`, failing where it is not RAM;
//! - `ioctl(H1EMU_IOC_IRQ)`: raises the H1's interrupt line once.

use crate::memory::{PhysMap, PhysMemory};
use crate::Device;
use hantro_h1_model::Memory;
use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::path::Path;
use std::ptr::NonNull;

/// The device node the module creates.
pub const DEFAULT_DEVICE: &str = "/dev/hantro-h1-emu";
/// Bytes of the register window (mmap offset 0).
pub const REG_WINDOW_LEN: usize = 4096;
/// The mmap offset of physical address 0.
pub const H1EMU_DMA_BASE: u64 = 1 << 40;
/// `_IO('h', 0x01)`: raise the interrupt once.
pub const H1EMU_IOC_IRQ: u64 = 0x6801;

/// Maps guest RAM through the device's DMA mmap offsets.
pub struct DmaMap {
    fd: RawFd,
}

// SAFETY: each call makes a new MAP_SHARED mapping, never unmapped: it stays
// valid until the process exits, and new mappings never overlap live ones.
unsafe impl PhysMap for DmaMap {
    fn map(&self, phys: u64, len: usize) -> Option<NonNull<u8>> {
        let off = libc::off_t::try_from(H1EMU_DMA_BASE.checked_add(phys)?).ok()?;
        map_shared(self.fd, len, off)
    }
}

/// A new read-write MAP_SHARED mapping of `len` bytes of `fd` at `off`.
fn map_shared(fd: RawFd, len: usize, off: libc::off_t) -> Option<NonNull<u8>> {
    // SAFETY: a fresh mapping chosen by the kernel; no existing memory is affected.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED,
            fd,
            off,
        )
    };
    if p == libc::MAP_FAILED {
        return None;
    }
    NonNull::new(p.cast())
}

/// The opened device: register window mapped, RAM mapped on demand.
pub struct EmuDevice {
    regs: NonNull<u32>,
    mem: PhysMemory<DmaMap>,
    file: File,
}

fn context(what: String) -> impl FnOnce(io::Error) -> io::Error {
    move |e| io::Error::new(e.kind(), format!("{what}: {e}"))
}

impl EmuDevice {
    /// Opens `path` and maps its register window.
    pub fn open(path: &Path) -> io::Result<EmuDevice> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .map_err(context(format!("cannot open {}", path.display())))?;
        let regs = map_shared(file.as_raw_fd(), REG_WINDOW_LEN, 0)
            .ok_or_else(|| {
                context(format!(
                    "cannot map the register window of {}",
                    path.display()
                ))(io::Error::last_os_error())
            })?
            .cast();
        let mem = PhysMemory::new(DmaMap {
            fd: file.as_raw_fd(),
        });
        Ok(EmuDevice { regs, mem, file })
    }

    fn reg(&self, off: usize) -> *mut u32 {
        assert!(
            off.is_multiple_of(4) && off < REG_WINDOW_LEN,
            "register offset {off:#x}"
        );
        // SAFETY: in bounds of the window, checked above.
        unsafe { self.regs.as_ptr().add(off / 4) }
    }
}

impl Device for EmuDevice {
    fn read_reg(&self, off: usize) -> u32 {
        // SAFETY: an aligned word of the live register mapping; the kernel side
        // changes it concurrently, hence volatile.
        u32::from_le(unsafe { self.reg(off).read_volatile() })
    }

    fn write_reg(&mut self, off: usize, val: u32) {
        // SAFETY: as in `read_reg`.
        unsafe { self.reg(off).write_volatile(val.to_le()) }
    }

    fn memory(&mut self) -> &mut dyn Memory {
        &mut self.mem
    }

    fn raise_irq(&mut self) -> io::Result<()> {
        // SAFETY: an argument-less ioctl on our open descriptor.
        let r = unsafe { libc::ioctl(self.file.as_raw_fd(), H1EMU_IOC_IRQ as _) };
        if r < 0 {
            return Err(context("H1EMU_IOC_IRQ".into())(io::Error::last_os_error()));
        }
        Ok(())
    }
}

impl Drop for EmuDevice {
    fn drop(&mut self) {
        // SAFETY: the window was mapped in `open` with this length and is not used after.
        unsafe { libc::munmap(self.regs.as_ptr().cast(), REG_WINDOW_LEN) };
    }
}
