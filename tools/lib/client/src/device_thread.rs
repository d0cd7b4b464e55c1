//! A device on its own thread, with frames in flight.
//!
//! Hardware encodes while the CPU gets the next frame ready. A client that
//! waits for each frame before it reads the next keeps one of them idle, so
//! the device runs here on a thread of its own: [`DeviceThread::queue`] hands
//! it a frame and returns at once, [`DeviceThread::dequeue`] waits for the
//! oldest frame queued. Frames complete in the order they were queued, with
//! their timestamps. The thread owns the device (the virtual H1, or a V4L2
//! node with its buffer mappings) from its opening to its closing, so the
//! device needs no locking and the handle can move between threads.
//!
//! A device that takes several requests queued at once (a V4L2 node with
//! as many buffers and requests) gets them: the thread submits each frame
//! as it comes and waits for one only when the client asks for it, so the
//! hardware goes from one request to the next without waiting for the
//! client. Any other device codes each frame as it comes.
//!
//! The other calls of [`Device`] run on the thread too, in order with the
//! frames queued before them: a bit-rate change takes effect from the next
//! frame the device starts. A reconstruction is read on the thread as its
//! frame completes ([`DeviceThread::set_read_recon`]): once a later frame
//! has run, the slot may hold that frame's.

use crate::device::{Completed, Device};
use std::collections::VecDeque;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::thread::JoinHandle;
use v4l2_h264enc_uapi::{v4l2_ctrl_h264_encode_params, v4l2_ctrl_h264_encode_rc};

/// A frame submitted to a device that takes requests queued.
struct Submitted {
    /// The device's message when it refused the frame: its result.
    refused: Option<String>,
    read_recon: bool,
}

/// The device and what the thread knows of it.
struct Worker {
    dev: Box<dyn Device>,
    /// The frames submitted and not reaped, oldest first.
    submitted: VecDeque<Submitted>,
    /// Where completed frames go, in the order they were queued.
    done: Sender<Result<Dequeued, String>>,
}

impl Worker {
    /// Waits for the oldest frame submitted and sends its result.
    fn reap_oldest(&mut self) {
        let Some(s) = self.submitted.pop_front() else {
            return;
        };
        let start = std::time::Instant::now();
        let r = match s.refused {
            Some(e) => Err(e),
            None => self.dev.reap(),
        };
        let _ = self
            .done
            .send(finish(self.dev.as_mut(), r, s.read_recon, start));
    }

    /// Completes every frame submitted: a control set after them must not
    /// act on the frames queued before it, as it would on a driver that
    /// has not started them yet.
    fn drain(&mut self) {
        while !self.submitted.is_empty() {
            self.reap_oldest();
        }
    }
}

/// One call for the device's thread.
type Call = Box<dyn FnOnce(&mut Worker) + Send>;

/// A completed frame, with its reconstruction when the handle reads them.
pub struct Dequeued {
    /// What the device returned for the frame.
    pub completed: Completed,
    /// The frame's reconstruction (I420), read as the frame completed.
    pub recon: Option<Vec<u8>>,
    /// The device's message about the frame when it failed, read as it
    /// completed (a later frame's would replace it).
    pub log: Option<String>,
    /// The device's time for the frame, on its thread, without the
    /// client's work: its coding, for a device that codes each frame as it
    /// comes; the wait for it, for one that takes requests queued.
    pub seconds: f64,
}

/// The handle of a device running on its own thread.
pub struct DeviceThread {
    calls: Option<Sender<Call>>,
    completed: Receiver<Result<Dequeued, String>>,
    in_flight: usize,
    read_recon: bool,
    depth: usize,
    thread: Option<JoinHandle<()>>,
}

const GONE: &str = "the device's thread has ended";

impl DeviceThread {
    /// Opens a device on a new thread with `open`, to keep up to `depth`
    /// frames (at least 1) in flight; fails with `open`'s message.
    pub fn spawn<F>(depth: usize, open: F) -> Result<Self, String>
    where
        F: FnOnce() -> Result<Box<dyn Device>, String> + Send + 'static,
    {
        let (calls, todo) = channel::<Call>();
        let (opened_tx, opened) = channel();
        // The worker holds the only sender: a thread that ended closes it.
        let (done, completed) = channel();
        let thread = std::thread::Builder::new()
            .name("h264enc-device".into())
            .spawn(move || {
                let mut w = match open() {
                    Ok(mut dev) => {
                        dev.set_queue_depth(depth.max(1));
                        let _ = opened_tx.send(Ok(()));
                        Worker {
                            dev,
                            submitted: VecDeque::new(),
                            done,
                        }
                    }
                    Err(e) => {
                        let _ = opened_tx.send(Err(e));
                        return;
                    }
                };
                // Until the handle drops its sender.
                while let Ok(call) = todo.recv() {
                    call(&mut w);
                }
            })
            .map_err(|e| format!("cannot start the device's thread: {e}"))?;
        opened.recv().map_err(|_| GONE.to_string())??;
        Ok(DeviceThread {
            calls: Some(calls),
            completed,
            in_flight: 0,
            read_recon: false,
            depth: depth.max(1),
            thread: Some(thread),
        })
    }

    /// How many frames this handle keeps in flight at most.
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// How many frames are queued and not yet dequeued.
    pub fn in_flight(&self) -> usize {
        self.in_flight
    }

    /// Reads each frame queued from now on's reconstruction as it completes,
    /// where the device gives them.
    pub fn set_read_recon(&mut self, on: bool) {
        self.read_recon = on;
    }

    /// True when [`DeviceThread::dequeue`] should come before the next queue.
    pub fn full(&self) -> bool {
        self.in_flight >= self.depth
    }

    fn send(&self, call: Call) -> Result<(), String> {
        self.calls
            .as_ref()
            .ok_or_else(|| GONE.to_string())?
            .send(call)
            .map_err(|_| GONE.to_string())
    }

    /// Runs `f` on the device's thread, after every call sent before it and
    /// once the frames submitted before it completed, and waits for its
    /// answer.
    fn call<R, F>(&self, f: F) -> Result<R, String>
    where
        R: Send + 'static,
        F: FnOnce(&mut dyn Device) -> R + Send + 'static,
    {
        let (tx, rx) = channel();
        self.send(Box::new(move |w| {
            w.drain();
            let _ = tx.send(f(w.dev.as_mut()));
        }))?;
        rx.recv().map_err(|_| GONE.to_string())
    }

    /// Queues one frame (one request) and returns without waiting for it;
    /// the per-frame controls left out as `None`, as in
    /// [`Device::encode_request`]. The frame is any owned bytes, such as
    /// an `Arc` the caller keeps a clone of, so that the frame needs no copy.
    pub fn queue(
        &mut self,
        frame: impl std::ops::Deref<Target: AsRef<[u8]>> + Send + 'static,
        timestamp: u64,
        params: Option<v4l2_ctrl_h264_encode_params>,
        rc: Option<v4l2_ctrl_h264_encode_rc>,
    ) -> Result<(), String> {
        let read_recon = self.read_recon;
        self.send(Box::new(move |w| {
            if w.dev.queue_depth() > 1 {
                // A driver may have given fewer buffers than frames in
                // flight: the oldest completes to free one.
                while w.submitted.len() >= w.dev.queue_depth() {
                    w.reap_oldest();
                }
                let r = w
                    .dev
                    .submit((*frame).as_ref(), timestamp, params.as_ref(), rc.as_ref());
                w.submitted.push_back(Submitted {
                    refused: r.err(),
                    read_recon,
                });
                return;
            }
            let start = std::time::Instant::now();
            let r =
                w.dev
                    .encode_request((*frame).as_ref(), timestamp, params.as_ref(), rc.as_ref());
            let _ = w.done.send(finish(w.dev.as_mut(), r, read_recon, start));
        }))?;
        self.in_flight += 1;
        Ok(())
    }

    /// Waits for the oldest frame in flight.
    pub fn dequeue(&mut self) -> Result<Dequeued, String> {
        if self.in_flight == 0 {
            return Err("no frame in flight".into());
        }
        // A device that took the frame queued is waited for now; one that
        // coded it as it came, or whose frames a call drained, has its
        // result waiting.
        let r = self
            .send(Box::new(Worker::reap_oldest))
            .and_then(|()| self.completed.recv().map_err(|_| GONE.to_string()));
        match r {
            Ok(r) => {
                self.in_flight -= 1;
                r
            }
            // No frame in flight comes back from a thread that ended.
            Err(e) => {
                self.in_flight = 0;
                Err(e)
            }
        }
    }
}

/// A completed frame with its reconstruction (when asked for and the device
/// gives them) and the device's time since `start`.
fn finish(
    d: &mut dyn Device,
    r: Result<Completed, String>,
    read_recon: bool,
    start: std::time::Instant,
) -> Result<Dequeued, String> {
    let completed = r?;
    let recon = match (read_recon, completed.error) {
        (true, 0) => d.recon(completed.rec_slot).transpose()?,
        _ => None,
    };
    let log = (completed.error != 0).then(|| d.last_log()).flatten();
    Ok(Dequeued {
        completed,
        recon,
        log,
        seconds: start.elapsed().as_secs_f64(),
    })
}

impl Device for DeviceThread {
    fn set_format(
        &mut self,
        width: u32,
        height: u32,
        fmt: crate::device::PixelFormat,
        fps_num: u32,
        fps_den: u32,
    ) -> Result<(), String> {
        self.call(move |d| d.set_format(width, height, fmt, fps_num, fps_den))?
    }

    fn set_ctrl(&mut self, id: u32, value: i32) -> Result<(), String> {
        self.call(move |d| d.set_ctrl(id, value))?
    }

    fn set_compound(&mut self, id: u32, payload: &[u8]) -> Result<(), String> {
        let payload = payload.to_vec();
        self.call(move |d| d.set_compound(id, &payload))?
    }

    fn start(&mut self) -> Result<(), String> {
        self.call(|d| d.start())?
    }

    /// One frame, waited for: only when none is in flight, or the answer
    /// would be an earlier frame's.
    fn encode_request(
        &mut self,
        frame: &[u8],
        timestamp: u64,
        params: Option<&v4l2_ctrl_h264_encode_params>,
        rc: Option<&v4l2_ctrl_h264_encode_rc>,
    ) -> Result<Completed, String> {
        if self.in_flight != 0 {
            return Err(format!(
                "{} frames in flight: dequeue them first",
                self.in_flight
            ));
        }
        self.queue(frame.to_vec(), timestamp, params.copied(), rc.copied())?;
        self.dequeue().map(|d| d.completed)
    }

    fn recon(&mut self, slot: u32) -> Option<Result<Vec<u8>, String>> {
        self.call(move |d| d.recon(slot))
            .unwrap_or_else(|e| Some(Err(e)))
    }

    fn last_log(&self) -> Option<String> {
        self.call(|d| d.last_log()).unwrap_or_else(Some)
    }

    fn set_bitrate(&mut self, bitrate: u32, peak: u32) -> Result<(), String> {
        self.call(move |d| d.set_bitrate(bitrate, peak))?
    }

    /// Drains: the frames still in flight complete and are dropped; a
    /// client that wants them dequeues them first.
    fn finish(&mut self) -> Result<(), String> {
        while self.in_flight > 0 {
            let _ = self.dequeue();
        }
        self.call(|d| d.finish())?
    }
}

impl Drop for DeviceThread {
    fn drop(&mut self) {
        // The thread ends when its queue closes, after the calls in it; the
        // device closes there, on the thread that opened it.
        self.calls = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests;
