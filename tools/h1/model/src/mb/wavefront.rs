//! Several threads code a frame's macroblocks as a wavefront: each thread
//! takes macroblock rows in turn, and codes a macroblock once the macroblock
//! above and right of it is done, which its decision reads (8.3.1.2,
//! 8.4.1.3). Whichever thread finds the next macroblock in decoding order
//! decided writes it, so the stream is the one a single thread makes.
//!
//! The rate control orders one more thing: at a checkpoint the QP of the
//! macroblocks that follow depends on the bits written before it, so no
//! macroblock past a checkpoint is decided before every macroblock ahead of
//! the checkpoint is written.

use super::decide::Decider;
use super::decision::MbDecision;
use super::macroblock_layer::EntropyWriter;
use super::reconstruct::{self, Derived};
use super::slice_coder::{CodedFrame, SliceCoder};
use super::state::PicView;
use crate::ratectl::{InFrameRc, CHECKPOINTS};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, RwLock};

/// What the threads share while they code a frame.
struct Shared<'a, 'p, W, F> {
    decider: &'a Decider<'a>,
    pic: PicView<'p>,
    /// Macroblocks done in each row, from the left.
    progress: Vec<AtomicUsize>,
    /// Each macroblock decided and stored, until it is written.
    slots: Vec<Mutex<Option<(MbDecision, Derived)>>>,
    coder: Mutex<SliceCoder<'a, W, F>>,
    /// The rate control as of the last checkpoint passed, for the decisions.
    rc: RwLock<InFrameRc>,
    /// Macroblocks whose checkpoint test has run ([`SliceCoder::rc_done`]).
    rc_done: AtomicUsize,
    /// Macroblocks between checkpoints (0: none).
    distance: usize,
}

impl<W: EntropyWriter, F: Fn(bool) -> W> Shared<'_, '_, W, F> {
    /// The last checkpoint at or before macroblock `n` whose test must have
    /// run before `n` is decided.
    fn gate(&self, n: usize) -> Option<usize> {
        if self.distance == 0 {
            return None;
        }
        let k = (n / self.distance).min(CHECKPOINTS);
        (k > 0).then_some(k * self.distance)
    }

    /// Writes the macroblocks that are next in decoding order and decided,
    /// running the checkpoint test before each; returns when the next is not
    /// decided yet.
    fn write_ready(&self, coder: &mut SliceCoder<'_, W, F>) {
        while coder.cursor < self.slots.len() {
            let n = coder.cursor;
            if coder.rc_done == n {
                coder.before_mb(n);
                if self.gate(n) == Some(n) {
                    *self.rc.write().unwrap_or_else(|e| e.into_inner()) = coder.rc.clone();
                }
                self.rc_done.store(n + 1, Ordering::Release);
            }
            let Some((d, derived)) = self.slots[n]
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .take()
            else {
                return;
            };
            coder.write(&self.pic, n, &d, derived);
        }
    }

    /// Writes what is ready if no other thread is writing.
    fn try_write(&self) {
        if let Ok(mut coder) = self.coder.try_lock() {
            self.write_ready(&mut coder);
        }
    }

    /// Waits until `ready`, writing what it can meanwhile.
    fn wait(&self, ready: impl Fn() -> bool) {
        let mut spins = 0u32;
        while !ready() {
            self.try_write();
            spins += 1;
            if spins < 64 {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }

    /// Codes the rows `first, first + step, ...`.
    fn code_rows(&self, first: usize, step: usize) {
        let (mb_w, mb_h) = (self.pic.mb_w, self.pic.mb_h);
        for mby in (first..mb_h).step_by(step) {
            for mbx in 0..mb_w {
                let n = mby * mb_w + mbx;
                if mby > 0 {
                    let above = &self.progress[mby - 1];
                    let need = (mbx + 2).min(mb_w);
                    self.wait(|| above.load(Ordering::Acquire) >= need);
                }
                if let Some(c) = self.gate(n) {
                    self.wait(|| self.rc_done.load(Ordering::Acquire) > c);
                }
                let slice = ((n / mb_w) / self.rows_per_slice()) as i32;
                let d = {
                    let rc = self.rc.read().unwrap_or_else(|e| e.into_inner());
                    self.decider.decide(&self.pic, &rc, slice, mbx, mby)
                };
                // SAFETY: macroblock n is this thread's (its row is), coded
                // once, and published below, after it is stored.
                let derived = unsafe { reconstruct::store(&self.pic, slice, mbx, mby, &d) };
                *self.slots[n].lock().unwrap_or_else(|e| e.into_inner()) = Some((d, derived));
                self.progress[mby].store(mbx + 1, Ordering::Release);
                self.try_write();
            }
        }
    }

    fn rows_per_slice(&self) -> usize {
        match self.decider.p.slice_rows {
            0 => usize::MAX,
            r => r,
        }
    }
}

/// Codes the frame of `pic` with `threads` threads (this one among them),
/// writing through `coder`.
pub fn code<W, F>(
    decider: &Decider<'_>,
    pic: PicView<'_>,
    rc: &InFrameRc,
    coder: SliceCoder<'_, W, F>,
    threads: usize,
) -> CodedFrame
where
    W: EntropyWriter + Send,
    F: Fn(bool) -> W + Send + Sync,
{
    let total = pic.mb_w * pic.mb_h;
    let shared = Shared {
        decider,
        pic,
        progress: (0..pic.mb_h).map(|_| AtomicUsize::new(0)).collect(),
        slots: (0..total).map(|_| Mutex::new(None)).collect(),
        coder: Mutex::new(coder),
        rc: RwLock::new(rc.clone()),
        rc_done: AtomicUsize::new(0),
        distance: rc.distance as usize,
    };
    std::thread::scope(|s| {
        for t in 1..threads {
            let shared = &shared;
            s.spawn(move || shared.code_rows(t, threads));
        }
        shared.code_rows(0, threads);
    });
    // The last macroblocks may have been stored after the last write.
    let mut coder = shared.coder.lock().unwrap_or_else(|e| e.into_inner());
    shared.write_ready(&mut coder);
    drop(coder);
    let coder = shared.coder.into_inner().unwrap_or_else(|e| e.into_inner());
    coder.finish()
}
