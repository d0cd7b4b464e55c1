//! Threads an H1 keeps from frame to frame to code its frames with.
//!
//! A thread made for each frame starts wherever the scheduler puts it, often
//! on the CPU of the thread that made it, and stays there until the next load
//! balancing, which may be longer than the frame: the two then share one CPU
//! while the other idles. Threads kept from frame to frame wake where they
//! last ran.

use std::any::Any;
use std::panic::{self, AssertUnwindSafe};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::thread::JoinHandle;

/// A job a worker runs, its borrows extended by [`Workers::run`].
type Job = Box<dyn FnOnce() + Send + 'static>;

/// What a worker sends back when a job is over: a panic's payload, if it panicked.
type Outcome = Result<(), Box<dyn Any + Send>>;

/// Threads that run jobs beside the thread that owns them.
pub struct Workers {
    jobs: Vec<Sender<Job>>,
    done: Receiver<Outcome>,
    handles: Vec<JoinHandle<()>>,
}

impl Workers {
    /// `n` threads, waiting for jobs.
    pub fn new(n: usize) -> Self {
        let (done_tx, done) = channel();
        let mut jobs = Vec::with_capacity(n);
        let mut handles = Vec::with_capacity(n);
        for i in 0..n {
            let (tx, rx) = channel::<Job>();
            let done_tx = done_tx.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("h1-worker-{i}"))
                .spawn(move || {
                    for job in rx {
                        // The job and what it borrows are dropped before the
                        // owner hears that it is over.
                        let outcome = panic::catch_unwind(AssertUnwindSafe(job));
                        if done_tx.send(outcome).is_err() {
                            break;
                        }
                    }
                });
            // A thread that cannot be made leaves fewer workers; the frames
            // are then coded by fewer threads, with the same result.
            let Ok(handle) = spawned else { break };
            jobs.push(tx);
            handles.push(handle);
        }
        Workers {
            jobs,
            done,
            handles,
        }
    }

    /// How many threads there are besides the owner's.
    pub fn len(&self) -> usize {
        self.jobs.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty()
    }

    /// Runs each of `jobs` on a worker of its own and `here` on this thread,
    /// all at once, and returns when every one of them has finished. A panic
    /// in any of them is raised again here, once all have finished.
    ///
    /// # Panics
    ///
    /// If there are more jobs than workers, or as said above.
    pub fn run<'a>(&mut self, jobs: Vec<Box<dyn FnOnce() + Send + 'a>>, here: impl FnOnce()) {
        assert!(jobs.len() <= self.jobs.len(), "more jobs than workers");
        let mut sent = 0;
        for (job, tx) in jobs.into_iter().zip(&self.jobs) {
            // SAFETY: only the lifetime changes. This function returns or
            // unwinds only after every job sent has finished and been
            // dropped (below: a worker reports a job after dropping it, and
            // every report is awaited whatever `here` did), so nothing a job
            // borrows for 'a ends while the job can still reach it.
            let job: Job =
                unsafe { core::mem::transmute::<Box<dyn FnOnce() + Send + 'a>, Job>(job) };
            // A worker's loop ends only when its sender is dropped, which
            // `Drop` does: the send cannot fail while `self` lives.
            if tx.send(job).is_ok() {
                sent += 1;
            }
        }
        let mine = panic::catch_unwind(AssertUnwindSafe(here));
        let mut theirs = None;
        for _ in 0..sent {
            match self.done.recv() {
                Ok(Ok(())) => {}
                Ok(Err(payload)) => theirs = theirs.or(Some(payload)),
                // Every worker holds a sender of `done` until it ends, and
                // none ends while its jobs are pending: unreachable, but
                // returning then could free what a job still borrows.
                Err(_) => std::process::abort(),
            }
        }
        if let Err(payload) = mine {
            panic::resume_unwind(payload);
        }
        if let Some(payload) = theirs {
            panic::resume_unwind(payload);
        }
    }
}

impl Drop for Workers {
    fn drop(&mut self) {
        // Without their senders the workers' loops end.
        self.jobs.clear();
        for handle in self.handles.drain(..) {
            let _ = handle.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn runs_every_job_at_once_with_borrowed_data() {
        let mut w = Workers::new(3);
        assert_eq!(w.len(), 3);
        let mut out = [0usize; 4];
        let (first, rest) = out.split_at_mut(1);
        // All four must run at once: each waits until all have started.
        let started = AtomicUsize::new(0);
        let jobs: Vec<Box<dyn FnOnce() + Send + '_>> = rest
            .iter_mut()
            .enumerate()
            .map(|(i, slot)| {
                let started = &started;
                Box::new(move || {
                    started.fetch_add(1, Ordering::SeqCst);
                    while started.load(Ordering::SeqCst) < 4 {
                        std::hint::spin_loop();
                    }
                    *slot = i + 1;
                }) as Box<dyn FnOnce() + Send + '_>
            })
            .collect();
        w.run(jobs, || {
            started.fetch_add(1, Ordering::SeqCst);
            while started.load(Ordering::SeqCst) < 4 {
                std::hint::spin_loop();
            }
            first[0] = 10;
        });
        assert_eq!(out, [10, 1, 2, 3]);
        // And again, on the same threads.
        let mut n = 0;
        w.run(Vec::new(), || n += 1);
        assert_eq!(n, 1);
    }

    #[test]
    fn a_panic_in_a_job_is_raised_once_all_are_done() {
        let mut w = Workers::new(2);
        let finished = AtomicUsize::new(0);
        let r = panic::catch_unwind(AssertUnwindSafe(|| {
            let jobs: Vec<Box<dyn FnOnce() + Send + '_>> = vec![
                Box::new(|| panic!("job failed")),
                Box::new(|| {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                    finished.fetch_add(1, Ordering::SeqCst);
                }),
            ];
            w.run(jobs, || {});
        }));
        assert!(r.is_err());
        // The slow job had finished before the panic was raised.
        assert_eq!(finished.load(Ordering::SeqCst), 1);
        // The workers survive it.
        let mut n = 0;
        w.run(vec![Box::new(|| {})], || n += 1);
        assert_eq!(n, 1);
    }
}
