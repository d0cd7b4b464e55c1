//! Several threads code a frame's macroblocks as a wavefront: each thread
//! takes macroblock rows in turn, and codes a macroblock once the macroblock
//! above and right of it is done, which its decision reads (8.3.1.2,
//! 8.4.1.3). A thread that waits writes the macroblocks that are next in
//! decoding order and decided, so the stream is the one a single thread
//! makes, and the writing fills time the thread would otherwise wait.
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
use crate::workers::Workers;
use std::cell::UnsafeCell;
use std::sync::atomic::{fence, AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, RwLock};
use std::time::Duration;

/// Iterations a waiting thread spins before it sleeps (some microseconds):
/// most waits of the wavefront end within a macroblock's decision.
const SPINS: u32 = 2000;

/// A counter on a cache line of its own: neighbouring rows' counters are
/// written by different threads at every macroblock.
#[repr(align(128))]
struct Padded(AtomicUsize);

/// The decisions between a thread that made them and the one that writes
/// them: a ring of macroblock rows, as many as threads can be ahead of the
/// writer. A slot is the deciding thread's until its row's progress says it
/// is done, then the writer's until the written count passes it.
struct Slots {
    cells: Vec<UnsafeCell<Option<(MbDecision, Derived)>>>,
    rows: usize,
    mb_w: usize,
}

// SAFETY: a slot is reached by one thread at a time, handed over by the
// release and acquire of the progress and written counts ([`Slots`]).
unsafe impl Sync for Slots {}

impl Slots {
    fn cell(&self, n: usize) -> *mut Option<(MbDecision, Derived)> {
        let (x, y) = (n % self.mb_w, n / self.mb_w);
        self.cells[(y % self.rows) * self.mb_w + x].get()
    }
}

/// What the threads share while they code a frame.
struct Shared<'a, 'p, W, F> {
    decider: &'a Decider<'a>,
    pic: PicView<'p>,
    /// Macroblocks done in each row, from the left.
    progress: Vec<Padded>,
    slots: Slots,
    coder: Mutex<SliceCoder<'a, W, F>>,
    /// Macroblocks written ([`SliceCoder::cursor`]).
    written: Padded,
    /// The rate control as of the last checkpoint passed, for the decisions.
    rc: RwLock<InFrameRc>,
    /// Macroblocks whose checkpoint test has run ([`SliceCoder::rc_done`]).
    rc_done: Padded,
    /// Macroblocks between checkpoints (0: none).
    distance: usize,
    /// Threads asleep in [`Shared::wait`], and what wakes them: a thread
    /// that spins while the one it waits for has no core would slow both.
    sleepers: Padded,
    wake: (Mutex<()>, Condvar),
    /// A thread panicked: the others stop waiting for it and panic too.
    failed: AtomicBool,
}

/// Sets [`Shared::failed`] when the thread holding it unwinds.
struct FailGuard<'a>(&'a AtomicBool);

impl Drop for FailGuard<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.store(true, Ordering::SeqCst);
        }
    }
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
        let mb_w = self.pic.mb_w();
        let total = self.progress.len() * mb_w;
        while coder.cursor < total {
            let n = coder.cursor;
            if coder.rc_done == n {
                coder.before_mb(n);
                if self.gate(n) == Some(n) {
                    *self.rc.write().unwrap_or_else(|e| e.into_inner()) = coder.rc.clone();
                }
                self.rc_done.0.store(n + 1, Ordering::Release);
            }
            if !self.decided(n) {
                return;
            }
            // SAFETY: macroblock n is done (its row's progress, acquired
            // above) and not yet written: its slot is the writer's, which
            // this thread is while it holds the coder, until the written
            // count below passes it. Read in place: a decision is kilobytes.
            let (d, derived) = unsafe { &*self.slots.cell(n) }
                .as_ref()
                .expect("a done macroblock has its decision");
            coder.write(&self.pic, n, d, *derived);
            self.written.0.store(n + 1, Ordering::Release);
        }
    }

    /// Whether macroblock `n` is decided and stored (acquiring it).
    fn decided(&self, n: usize) -> bool {
        let mb_w = self.pic.mb_w();
        self.progress[n / mb_w].0.load(Ordering::Acquire) > n % mb_w
    }

    /// Writes the macroblocks that are ready if no other thread is writing.
    /// Only a waiting thread writes: the thread a row waits for is then never
    /// the one that writes, and the writing fills the waits.
    fn try_write(&self) {
        loop {
            let Ok(mut coder) = self.coder.try_lock() else {
                return;
            };
            let before = (coder.cursor, coder.rc_done);
            self.write_ready(&mut coder);
            let (cursor, rc_done) = (coder.cursor, coder.rc_done);
            drop(coder);
            if (cursor, rc_done) != before {
                self.notify();
            }
            // The next macroblock may have been stored while this thread
            // wrote: look again before going back to waiting, whose next
            // attempt is many spins away (the fence pairs with the one in
            // `notify` after the store).
            fence(Ordering::SeqCst);
            let total = self.progress.len() * self.pic.mb_w();
            if cursor >= total || !self.decided(cursor) {
                return;
            }
        }
    }

    /// Wakes the threads asleep in [`Shared::wait`] after some progress.
    fn notify(&self) {
        // Orders the progress just stored before the look at the sleepers
        // (as `wait` orders its count before its look at the progress), so
        // that one of the two sees the other: else the waiter sleeps out
        // its timeout.
        fence(Ordering::SeqCst);
        if self.sleepers.0.load(Ordering::SeqCst) > 0 {
            let _lock = self.wake.0.lock().unwrap_or_else(|e| e.into_inner());
            self.wake.1.notify_all();
        }
    }

    /// Waits until `ready`, writing what it can meanwhile: a spin, since the
    /// wavefront's waits are mostly one macroblock long, then asleep.
    fn wait(&self, ready: impl Fn() -> bool) {
        for i in 0..SPINS {
            if ready() {
                return;
            }
            self.check_failed();
            if i % 64 == 0 {
                self.try_write();
            }
            std::hint::spin_loop();
        }
        while !ready() {
            self.check_failed();
            self.try_write();
            let lock = self.wake.0.lock().unwrap_or_else(|e| e.into_inner());
            self.sleepers.0.fetch_add(1, Ordering::SeqCst);
            fence(Ordering::SeqCst);
            // Progress published before the count went up was missed by its
            // notify: look once more before sleeping. A notify after this
            // look waits for the lock, which the wait releases.
            if !ready() {
                let _ = self.wake.1.wait_timeout(lock, Duration::from_millis(5));
            }
            self.sleepers.0.fetch_sub(1, Ordering::SeqCst);
        }
    }

    /// Panics if another thread did: what it was to do will never be done.
    fn check_failed(&self) {
        if self.failed.load(Ordering::Relaxed) {
            panic!("another thread coding the frame panicked");
        }
    }

    /// Codes the rows `first, first + step, ...`.
    fn code_rows(&self, first: usize, step: usize) {
        let _guard = FailGuard(&self.failed);
        let (mb_w, mb_h) = (self.pic.mb_w(), self.pic.mb_h());
        // The rate control changes only at checkpoints: a copy, taken again
        // after each checkpoint passed, spares a lock per macroblock.
        let mut rc = self.rc.read().unwrap_or_else(|e| e.into_inner()).clone();
        let mut rc_as_of = None;
        for mby in (first..mb_h).step_by(step) {
            for mbx in 0..mb_w {
                let n = mby * mb_w + mbx;
                if mby > 0 {
                    let above = &self.progress[mby - 1].0;
                    let need = (mbx + 2).min(mb_w);
                    self.wait(|| above.load(Ordering::Acquire) >= need);
                }
                if let Some(c) = self.gate(n) {
                    self.wait(|| self.rc_done.0.load(Ordering::Acquire) > c);
                    if rc_as_of != Some(c) {
                        rc = self.rc.read().unwrap_or_else(|e| e.into_inner()).clone();
                        rc_as_of = Some(c);
                    }
                }
                if mby >= self.slots.rows {
                    // The slot's last macroblock, a ring's turn back, is written.
                    let old = n - self.slots.rows * mb_w;
                    self.wait(|| self.written.0.load(Ordering::Acquire) > old);
                }
                let slice = self.decider.p.slice_of_row(mby) as i32;
                let d = self.decider.decide(&self.pic, &rc, slice, mbx, mby);
                // SAFETY: macroblock n is this thread's (its row is), coded
                // once, and published below, after it is stored.
                let derived = unsafe { reconstruct::store(&self.pic, slice, mbx, mby, &d) };
                // SAFETY: the slot is this thread's: its last macroblock is
                // written (waited for above) and n is not published yet.
                unsafe { *self.slots.cell(n) = Some((d, derived)) };
                self.progress[mby].0.store(mbx + 1, Ordering::Release);
                self.notify();
            }
        }
        // This thread's rows are done: it writes what the others decide,
        // instead of leaving the last rows to be written after them.
        let total = mb_w * mb_h;
        self.wait(|| self.written.0.load(Ordering::Acquire) >= total);
    }
}

/// Codes the frame of `pic` with `threads` threads, this one and
/// `threads - 1` of `workers`, writing through `coder`.
pub fn code<W, F>(
    decider: &Decider<'_>,
    pic: PicView<'_>,
    rc: &InFrameRc,
    coder: SliceCoder<'_, W, F>,
    workers: &mut Workers,
    threads: usize,
) -> CodedFrame
where
    W: EntropyWriter + Send,
    F: Fn(bool) -> W + Send + Sync,
{
    let threads = threads.clamp(1, workers.len() + 1);
    let (mb_w, mb_h) = (pic.mb_w(), pic.mb_h());
    // Threads are at most `threads` rows ahead of the writer, and one more
    // row lets the leading thread run on while the writer finishes a row.
    let ring = (threads + 1).min(mb_h);
    let shared = Shared {
        decider,
        pic,
        progress: (0..mb_h).map(|_| Padded(AtomicUsize::new(0))).collect(),
        slots: Slots {
            cells: (0..ring * mb_w).map(|_| UnsafeCell::new(None)).collect(),
            rows: ring,
            mb_w,
        },
        coder: Mutex::new(coder),
        written: Padded(AtomicUsize::new(0)),
        rc: RwLock::new(rc.clone()),
        rc_done: Padded(AtomicUsize::new(0)),
        distance: rc.distance as usize,
        sleepers: Padded(AtomicUsize::new(0)),
        wake: (Mutex::new(()), Condvar::new()),
        failed: AtomicBool::new(false),
    };
    {
        let s = &shared;
        let jobs: Vec<Box<dyn FnOnce() + Send + '_>> = (1..threads)
            .map(|t| Box::new(move || s.code_rows(t, threads)) as Box<dyn FnOnce() + Send + '_>)
            .collect();
        workers.run(jobs, || s.code_rows(0, threads));
    }
    // Every thread waited for the last macroblock to be written.
    let coder = shared.coder.into_inner().unwrap_or_else(|e| e.into_inner());
    debug_assert_eq!(coder.cursor, mb_w * mb_h);
    coder.finish(&shared.pic)
}
