//! The hardware side of the virtual device: registers, bus memory, the H1 model.

use hantro_h1_model::regs::{self, Registers};
use hantro_h1_model::{fault, BusError, CpuLevel, Memory, H1};
use std::ffi::{c_char, c_void, CStr};

pub use hantro_h1_model::fault::Fault;

/// One DMA buffer: stable heap storage the C side addresses by pointer.
struct Buffer {
    addr: u32,
    ptr: *mut u8,
    len: usize,
}

/// The host state behind the shim's callbacks.
#[derive(Default)]
pub struct Host {
    regs: Registers,
    buffers: Vec<Buffer>,
    next_addr: u32,
    h1: H1,
    pub fault: Fault,
    pub log: Vec<String>,
}

impl Host {
    /// Codes the frames that follow with `threads` threads ([`H1::set_threads`]).
    pub fn set_threads(&mut self, threads: usize) {
        self.h1.set_threads(threads);
    }

    /// A host whose H1 runs the functions of `level`.
    pub fn new(level: CpuLevel) -> Self {
        let mut host = Host::default();
        host.h1 = H1::new(level);
        host
    }

    fn locate(&self, addr: u32, len: usize) -> Result<(*mut u8, usize), BusError> {
        for b in &self.buffers {
            if addr >= b.addr && (addr - b.addr) as usize + len <= b.len {
                return Ok((b.ptr, (addr - b.addr) as usize));
            }
        }
        Err(BusError { addr })
    }

    fn run(&mut self) {
        let fault = std::mem::take(&mut self.fault);
        let mut regs = std::mem::take(&mut self.regs);
        let mut h1 = std::mem::take(&mut self.h1);
        fault::run_with_fault(&mut h1, &mut regs, &mut HostMemory(self), fault);
        self.h1 = h1;
        self.regs = regs;
    }
}

/// The bus view of the host's buffers for the model.
struct HostMemory<'a>(&'a mut Host);

impl Memory for HostMemory<'_> {
    fn read(&self, addr: u32, out: &mut [u8]) -> Result<(), BusError> {
        let (p, off) = self.0.locate(addr, out.len())?;
        // SAFETY: `locate` checked the range lies inside a live buffer.
        unsafe { std::ptr::copy_nonoverlapping(p.add(off), out.as_mut_ptr(), out.len()) };
        Ok(())
    }

    fn write(&mut self, addr: u32, data: &[u8]) -> Result<(), BusError> {
        let (p, off) = self.0.locate(addr, data.len())?;
        // SAFETY: `locate` checked the range lies inside a live buffer.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), p.add(off), data.len()) };
        Ok(())
    }
}

fn host<'a>(h: *mut c_void) -> &'a mut Host {
    // SAFETY: the shim passes back the pointer VirtualDevice gave it, which
    // outlives the C device; calls are not reentrant.
    unsafe { &mut *(h as *mut Host) }
}

#[no_mangle]
extern "C" fn vdev_host_dma_alloc(h: *mut c_void, size: usize, dma: *mut u64) -> *mut c_void {
    let h = host(h);
    let mem = vec![0u8; size.max(1)].into_boxed_slice();
    let len = mem.len();
    let ptr = Box::into_raw(mem) as *mut u8;
    if h.next_addr == 0 {
        h.next_addr = 0x1000_0000;
    }
    let addr = h.next_addr;
    // 64-byte aligned bus addresses with a guard gap, so overruns are bus errors.
    h.next_addr = addr + ((len as u32 + 0x1000 + 63) & !63);
    h.buffers.push(Buffer { addr, ptr, len });
    // SAFETY: `dma` is a valid out-pointer from the shim.
    unsafe { *dma = u64::from(addr) };
    ptr as *mut c_void
}

#[no_mangle]
extern "C" fn vdev_host_dma_free(h: *mut c_void, cpu: *mut c_void) {
    let h = host(h);
    if let Some(i) = h.buffers.iter().position(|b| b.ptr as *mut c_void == cpu) {
        let b = h.buffers.swap_remove(i);
        // SAFETY: the buffer came from Box::into_raw in vdev_host_dma_alloc.
        drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(b.ptr, b.len)) });
    }
}

#[no_mangle]
extern "C" fn vdev_host_reg_write(h: *mut c_void, reg: u32, val: u32) {
    let h = host(h);
    h.regs.write(reg as usize, val);
    if reg as usize == regs::ENC_CTRL && val & regs::ENC_CTRL_EN != 0 {
        h.run();
    }
}

#[no_mangle]
extern "C" fn vdev_host_reg_read(h: *mut c_void, reg: u32) -> u32 {
    host(h).regs.read(reg as usize)
}

#[no_mangle]
extern "C" fn vdev_host_log(h: *mut c_void, msg: *const c_char) {
    // SAFETY: the shim passes a NUL-terminated string.
    let s = unsafe { CStr::from_ptr(msg) }
        .to_string_lossy()
        .into_owned();
    host(h).log.push(s);
}

impl Drop for Host {
    fn drop(&mut self) {
        for b in self.buffers.drain(..) {
            // SAFETY: every buffer came from Box::into_raw in vdev_host_dma_alloc.
            drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(b.ptr, b.len)) });
        }
    }
}
