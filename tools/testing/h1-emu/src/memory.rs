//! The guest's physical RAM as the H1's bus master sees it, mapped lazily.

use hantro_h1_model::{BusError, Memory};
use std::cell::RefCell;
use std::collections::HashMap;
use std::ptr::NonNull;

/// Bytes of one mapping window: accesses map the 1 MiB-aligned window around them.
pub const WINDOW: u64 = 1 << 20;
/// Bytes of a page: the unit of the fallback mappings of windows that are not all RAM.
pub const PAGE: u64 = 4096;

/// Maps ranges of physical RAM into this process.
///
/// # Safety
///
/// A pointer [`PhysMap::map`] returns must stay valid for reads and writes of
/// `len` bytes for as long as the mapper lives, and two calls must never hand
/// out overlapping ranges of the process's memory for different physical
/// addresses.
pub unsafe trait PhysMap {
    /// Maps the `len` bytes of RAM at physical address `phys` (both multiples
    /// of [`PAGE`]); `None` when any of them is not RAM.
    fn map(&self, phys: u64, len: usize) -> Option<NonNull<u8>>;
}

/// Mapped ranges, by window or page number; `None` for a range that could not be mapped.
#[derive(Default)]
struct Maps {
    windows: HashMap<u64, Option<NonNull<u8>>>,
    pages: HashMap<u64, Option<NonNull<u8>>>,
}

/// A [`Memory`] over physical RAM: bus address = physical address (no IOMMU).
///
/// An access maps the [`WINDOW`] it falls in on first use; when that window
/// is not all RAM (a hole, the end of RAM), it maps the single pages it
/// needs instead. Nothing is unmapped before the memory is dropped (and the
/// real device's mappings live until the process exits). An access that
/// reaches a page that is not RAM is a [`BusError`] at the first such address.
pub struct PhysMemory<M: PhysMap> {
    mapper: M,
    maps: RefCell<Maps>,
}

impl<M: PhysMap> PhysMemory<M> {
    /// A memory that maps through `mapper`.
    pub fn new(mapper: M) -> Self {
        PhysMemory {
            mapper,
            maps: RefCell::default(),
        }
    }

    /// The mapper.
    pub fn mapper(&self) -> &M {
        &self.mapper
    }

    /// Windows and pages mapped so far (successful mappings only).
    pub fn mapped(&self) -> (usize, usize) {
        let m = self.maps.borrow();
        let n = |h: &HashMap<u64, Option<NonNull<u8>>>| h.values().filter(|p| p.is_some()).count();
        (n(&m.windows), n(&m.pages))
    }

    /// The address of physical byte `phys` in this process and how many bytes
    /// from there are mapped contiguously.
    fn locate(&self, phys: u64) -> Option<(NonNull<u8>, usize)> {
        let mut maps = self.maps.borrow_mut();
        let w = phys / WINDOW;
        let window = *maps
            .windows
            .entry(w)
            .or_insert_with(|| self.mapper.map(w * WINDOW, WINDOW as usize));
        let (base, start, len) = match window {
            Some(p) => (p, w * WINDOW, WINDOW),
            None => {
                let pg = phys / PAGE;
                let page = *maps
                    .pages
                    .entry(pg)
                    .or_insert_with(|| self.mapper.map(pg * PAGE, PAGE as usize));
                (page?, pg * PAGE, PAGE)
            }
        };
        let off = phys - start;
        // SAFETY: `off` < `len`, the length of the mapping at `base`.
        let p = unsafe { NonNull::new_unchecked(base.as_ptr().add(off as usize)) };
        Some((p, (len - off) as usize))
    }

    /// Calls `f(host pointer, offset in the access, bytes)` for each mapped
    /// piece of the `len` bytes at bus address `addr`, in order.
    fn access(
        &self,
        addr: u32,
        len: usize,
        mut f: impl FnMut(*mut u8, usize, usize),
    ) -> Result<(), BusError> {
        let mut done = 0;
        while done < len {
            let phys = u64::from(addr) + done as u64;
            let Some((p, avail)) = self.locate(phys) else {
                return Err(BusError {
                    addr: u32::try_from(phys).unwrap_or(u32::MAX),
                });
            };
            let n = avail.min(len - done);
            f(p.as_ptr(), done, n);
            done += n;
        }
        Ok(())
    }
}

impl<M: PhysMap> Memory for PhysMemory<M> {
    fn read(&self, addr: u32, out: &mut [u8]) -> Result<(), BusError> {
        let dst = out.as_mut_ptr();
        self.access(addr, out.len(), |p, off, n| {
            // SAFETY: `p` is valid for `n` bytes (PhysMap's contract), and
            // `off + n` <= `out.len()`; guest RAM is no Rust allocation of ours.
            unsafe { std::ptr::copy_nonoverlapping(p, dst.add(off), n) }
        })
    }

    fn write(&mut self, addr: u32, data: &[u8]) -> Result<(), BusError> {
        self.access(addr, data.len(), |p, off, n| {
            // SAFETY: as in `read`, the other way round.
            unsafe { std::ptr::copy_nonoverlapping(data.as_ptr().add(off), p, n) }
        })
    }
}
