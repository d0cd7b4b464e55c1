//! The bus the model reaches buffers through, as the silicon reaches DMA memory.

/// An access outside any buffer: the silicon raises a bus error interrupt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BusError {
    /// The first address that could not be accessed.
    pub addr: u32,
}

/// Memory as seen from the encoder's bus master, addressed by 32-bit bus addresses.
pub trait Memory {
    /// Reads `out.len()` bytes at `addr`.
    fn read(&self, addr: u32, out: &mut [u8]) -> Result<(), BusError>;
    /// Writes `data` at `addr`.
    fn write(&mut self, addr: u32, data: &[u8]) -> Result<(), BusError>;
}

/// A simple memory of separately allocated buffers, each at a bus address.
///
/// Accesses must fall inside one buffer; anything else is a [`BusError`], so a
/// driver that programs a wrong address or size is caught.
#[derive(Default)]
pub struct BufferMemory {
    buffers: Vec<(u32, Vec<u8>)>,
    next: u32,
}

impl BufferMemory {
    /// Creates an empty memory; buffers are placed from bus address 0x1000_0000.
    pub fn new() -> Self {
        BufferMemory {
            buffers: Vec::new(),
            next: 0x1000_0000,
        }
    }

    /// Allocates a zeroed buffer of `len` bytes, 64-byte aligned, and returns its bus address.
    pub fn alloc(&mut self, len: usize) -> u32 {
        let addr = self.next;
        self.buffers.push((addr, vec![0; len]));
        // Leave a gap so an overrun is a bus error rather than a write into the next buffer.
        self.next = addr + ((len as u32 + 0x1000 + 63) & !63);
        addr
    }

    /// Returns the buffer that starts at `addr`.
    pub fn buffer(&self, addr: u32) -> Option<&[u8]> {
        self.buffers
            .iter()
            .find(|(a, _)| *a == addr)
            .map(|(_, b)| b.as_slice())
    }

    /// Returns the buffer that starts at `addr`, mutably.
    pub fn buffer_mut(&mut self, addr: u32) -> Option<&mut Vec<u8>> {
        self.buffers
            .iter_mut()
            .find(|(a, _)| *a == addr)
            .map(|(_, b)| b)
    }

    fn locate(&self, addr: u32, len: usize) -> Result<(usize, usize), BusError> {
        for (i, (a, b)) in self.buffers.iter().enumerate() {
            if addr >= *a && (addr - a) as usize + len <= b.len() {
                return Ok((i, (addr - a) as usize));
            }
        }
        Err(BusError { addr })
    }
}

impl Memory for BufferMemory {
    fn read(&self, addr: u32, out: &mut [u8]) -> Result<(), BusError> {
        let (i, off) = self.locate(addr, out.len())?;
        out.copy_from_slice(&self.buffers[i].1[off..off + out.len()]);
        Ok(())
    }

    fn write(&mut self, addr: u32, data: &[u8]) -> Result<(), BusError> {
        let (i, off) = self.locate(addr, data.len())?;
        self.buffers[i].1[off..off + data.len()].copy_from_slice(data);
        Ok(())
    }
}
