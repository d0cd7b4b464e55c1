//! Tests of the device thread: frames in flight give the stream a device
//! gives one frame at a time, in order, and queueing does not wait for the
//! device.

use super::*;
use crate::device::{PixelFormat, VirtualDevice};
use crate::session::{configure, RcMode, StreamConfig};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use v4l2_h264enc_uapi::V4L2_H264_DPB_ENTRY_FLAG_VALID;

const W: usize = 176;
const H: usize = 144;

fn config() -> StreamConfig {
    StreamConfig {
        rc: Some(RcMode::Cbr),
        bitrate: Some(200_000),
        gop: 6,
        ..StreamConfig::new(W as u32, H as u32)
    }
}

fn ts(i: usize) -> u64 {
    (i as u64 + 1) * 33_333_000
}

/// The stream and reconstructions of the clip, one frame at a time.
fn one_at_a_time(frames: &[Vec<u8>]) -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let mut d = VirtualDevice::open();
    configure(&mut d, &config()).unwrap();
    let mut out = (Vec::new(), Vec::new());
    for (i, f) in frames.iter().enumerate() {
        let c = d
            .encode(f, ts(i), &Default::default(), &Default::default())
            .unwrap();
        out.1
            .push(Device::recon(&mut d, c.rec_slot).unwrap().unwrap());
        out.0.push(c.payload);
    }
    d.finish().unwrap();
    out
}

fn clip() -> Vec<Vec<u8>> {
    h264_oracle::clip("meadow", W, H, 10)
        .chunks(W * H * 3 / 2)
        .map(|f| f.to_vec())
        .collect()
}

#[test]
fn frames_in_flight_give_the_same_stream_in_order() {
    let frames = clip();
    let (payloads, recons) = one_at_a_time(&frames);
    for depth in [1, 2, 4] {
        let mut d = DeviceThread::spawn(depth, || Ok(Box::new(VirtualDevice::open()))).unwrap();
        configure(&mut d, &config()).unwrap();
        d.set_read_recon(true);
        let mut got = Vec::new();
        for (i, f) in frames.iter().enumerate() {
            if d.full() {
                got.push(d.dequeue().unwrap());
            }
            d.queue(
                f.clone(),
                ts(i),
                Some(Default::default()),
                Some(Default::default()),
            )
            .unwrap();
            assert!(d.in_flight() <= depth);
        }
        while d.in_flight() > 0 {
            got.push(d.dequeue().unwrap());
        }
        d.finish().unwrap();
        assert_eq!(got.len(), frames.len());
        for (i, g) in got.iter().enumerate() {
            assert!(
                g.completed.payload == payloads[i],
                "depth {depth}: frame {i} differs from one at a time"
            );
            assert!(
                g.recon.as_ref() == Some(&recons[i]),
                "depth {depth}: recon {i}"
            );
            // Each frame is a reference: the newest timestamp of its DPB is its own.
            let newest = g
                .completed
                .feedback
                .dpb
                .iter()
                .filter(|e| e.flags & V4L2_H264_DPB_ENTRY_FLAG_VALID != 0)
                .map(|e| e.reference_ts)
                .max();
            assert_eq!(newest, Some(ts(i)), "depth {depth}: frame {i}'s timestamp");
        }
    }
}

/// A device that completes a frame only when the test lets it.
struct Gated {
    gate: Arc<Mutex<std::sync::mpsc::Receiver<()>>>,
    started: Sender<u64>,
}

impl Device for Gated {
    fn set_format(&mut self, _: u32, _: u32, _: PixelFormat, _: u32, _: u32) -> Result<(), String> {
        Ok(())
    }
    fn set_ctrl(&mut self, _: u32, _: i32) -> Result<(), String> {
        Ok(())
    }
    fn set_compound(&mut self, _: u32, _: &[u8]) -> Result<(), String> {
        Ok(())
    }
    fn start(&mut self) -> Result<(), String> {
        Ok(())
    }
    fn encode_request(
        &mut self,
        frame: &[u8],
        timestamp: u64,
        _: Option<&v4l2_ctrl_h264_encode_params>,
        _: Option<&v4l2_ctrl_h264_encode_rc>,
    ) -> Result<Completed, String> {
        self.started.send(timestamp).unwrap();
        self.gate.lock().unwrap().recv().unwrap();
        Ok(Completed {
            payload: frame.to_vec(),
            flags: 0,
            error: 0,
            rec_slot: 0,
            feedback: Default::default(),
            stats: None,
        })
    }
    fn recon(&mut self, _: u32) -> Option<Result<Vec<u8>, String>> {
        None
    }
    fn last_log(&self) -> Option<String> {
        None
    }
    fn set_bitrate(&mut self, _: u32, _: u32) -> Result<(), String> {
        Ok(())
    }
    fn finish(&mut self) -> Result<(), String> {
        Ok(())
    }
}

#[test]
fn queueing_does_not_wait_for_the_device() {
    let (open_gate, gate) = channel();
    let (started_tx, started) = channel();
    let gate = Arc::new(Mutex::new(gate));
    let mut d = DeviceThread::spawn(2, move || {
        Ok(Box::new(Gated {
            gate,
            started: started_tx,
        }))
    })
    .unwrap();
    // Both frames are queued while the device holds the first.
    d.queue(vec![1], 10, None, None).unwrap();
    d.queue(vec![2], 20, None, None).unwrap();
    assert_eq!(started.recv().unwrap(), 10);
    assert!(d.full());
    // The device takes the second frame as soon as the first completes.
    open_gate.send(()).unwrap();
    assert_eq!(started.recv().unwrap(), 20);
    assert_eq!(d.dequeue().unwrap().completed.payload, vec![1]);
    open_gate.send(()).unwrap();
    assert_eq!(d.dequeue().unwrap().completed.payload, vec![2]);
    assert!(d.dequeue().is_err(), "nothing in flight");
    // One frame waited for, as a plain device: refused while others fly.
    d.queue(vec![3], 30, None, None).unwrap();
    assert!(d.encode_request(&[4], 40, None, None).is_err());
    open_gate.send(()).unwrap();
    assert_eq!(d.dequeue().unwrap().completed.payload, vec![3]);
}

#[test]
fn a_device_that_fails_to_open_gives_its_message() {
    let e = DeviceThread::spawn(2, || Err("cannot open /dev/video9: ENOENT".into()))
        .err()
        .unwrap();
    assert_eq!(e, "cannot open /dev/video9: ENOENT");
}

/// A device that takes two requests queued, and logs what the thread does.
struct TwoQueued {
    log: Arc<Mutex<Vec<String>>>,
    queued: VecDeque<u64>,
}

impl Device for TwoQueued {
    fn set_format(&mut self, _: u32, _: u32, _: PixelFormat, _: u32, _: u32) -> Result<(), String> {
        Ok(())
    }
    fn set_ctrl(&mut self, _: u32, _: i32) -> Result<(), String> {
        Ok(())
    }
    fn set_compound(&mut self, _: u32, _: &[u8]) -> Result<(), String> {
        Ok(())
    }
    fn start(&mut self) -> Result<(), String> {
        Ok(())
    }
    fn queue_depth(&self) -> usize {
        2
    }
    fn submit(
        &mut self,
        _: &[u8],
        timestamp: u64,
        _: Option<&v4l2_ctrl_h264_encode_params>,
        _: Option<&v4l2_ctrl_h264_encode_rc>,
    ) -> Result<(), String> {
        if timestamp == 30 {
            return Err("EINVAL (-22)".into());
        }
        self.log.lock().unwrap().push(format!("submit {timestamp}"));
        self.queued.push_back(timestamp);
        Ok(())
    }
    fn reap(&mut self) -> Result<Completed, String> {
        let ts = self.queued.pop_front().ok_or("nothing queued")?;
        self.log.lock().unwrap().push(format!("reap {ts}"));
        Ok(Completed {
            payload: ts.to_le_bytes().to_vec(),
            flags: 0,
            error: 0,
            rec_slot: 0,
            feedback: Default::default(),
            stats: None,
        })
    }
    fn encode_request(
        &mut self,
        _: &[u8],
        _: u64,
        _: Option<&v4l2_ctrl_h264_encode_params>,
        _: Option<&v4l2_ctrl_h264_encode_rc>,
    ) -> Result<Completed, String> {
        Err("the thread must submit to a device that takes requests queued".into())
    }
    fn recon(&mut self, _: u32) -> Option<Result<Vec<u8>, String>> {
        None
    }
    fn last_log(&self) -> Option<String> {
        None
    }
    fn set_bitrate(&mut self, bitrate: u32, _: u32) -> Result<(), String> {
        self.log.lock().unwrap().push(format!("bitrate {bitrate}"));
        Ok(())
    }
    fn finish(&mut self) -> Result<(), String> {
        Ok(())
    }
}

#[test]
fn a_control_waits_for_the_frames_queued_before_it() {
    // A driver would apply a bit rate set now to a request queued before
    // it that has not started: the thread completes those first.
    let log = Arc::new(Mutex::new(Vec::new()));
    let l = log.clone();
    let mut d = DeviceThread::spawn(3, move || {
        Ok(Box::new(TwoQueued {
            log: l,
            queued: VecDeque::new(),
        }))
    })
    .unwrap();
    d.queue(vec![0], 10, None, None).unwrap();
    d.queue(vec![0], 20, None, None).unwrap();
    d.set_bitrate(500_000, 500_000).unwrap();
    d.queue(vec![0], 40, None, None).unwrap();
    let got: Vec<Vec<u8>> = (0..3)
        .map(|_| d.dequeue().unwrap().completed.payload)
        .collect();
    assert_eq!(
        *log.lock().unwrap(),
        [
            "submit 10",
            "submit 20",
            "reap 10",
            "reap 20",
            "bitrate 500000",
            "submit 40",
            "reap 40"
        ]
    );
    assert_eq!(got, [10u64, 20, 40].map(|t| t.to_le_bytes().to_vec()));
}

#[test]
fn a_device_that_takes_requests_queued_has_them_queued_before_the_wait() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let l = log.clone();
    let mut d = DeviceThread::spawn(2, move || {
        Ok(Box::new(TwoQueued {
            log: l,
            queued: VecDeque::new(),
        }))
    })
    .unwrap();
    d.set_read_recon(true);
    let mut got = Vec::new();
    for ts in [10u64, 20, 30, 40] {
        d.queue(vec![0], ts, None, None).unwrap();
        while d.full() {
            got.push(d.dequeue().map(|q| q.completed.payload));
        }
    }
    while d.in_flight() > 0 {
        got.push(d.dequeue().map(|q| q.completed.payload));
    }
    // The second frame was on the device when the first was waited for;
    // the refused one comes back in its place with its message.
    assert_eq!(
        *log.lock().unwrap(),
        [
            "submit 10",
            "submit 20",
            "reap 10",
            "reap 20",
            "submit 40",
            "reap 40"
        ]
    );
    assert_eq!(
        got,
        [
            Ok(10u64.to_le_bytes().to_vec()),
            Ok(20u64.to_le_bytes().to_vec()),
            Err("EINVAL (-22)".to_string()),
            Ok(40u64.to_le_bytes().to_vec()),
        ]
    );
}

#[test]
fn a_device_with_fewer_requests_than_frames_in_flight_frees_the_oldest() {
    // A driver that gave two buffers where three frames fly: the third
    // waits for the first, and every frame comes back in order.
    let log = Arc::new(Mutex::new(Vec::new()));
    let l = log.clone();
    let mut d = DeviceThread::spawn(3, move || {
        Ok(Box::new(TwoQueued {
            log: l,
            queued: VecDeque::new(),
        }))
    })
    .unwrap();
    for ts in [10u64, 20, 40] {
        d.queue(vec![0], ts, None, None).unwrap();
    }
    let got: Vec<Vec<u8>> = (0..3)
        .map(|_| d.dequeue().unwrap().completed.payload)
        .collect();
    assert_eq!(
        *log.lock().unwrap(),
        [
            "submit 10",
            "submit 20",
            "reap 10",
            "submit 40",
            "reap 20",
            "reap 40"
        ]
    );
    assert_eq!(got, [10u64, 20, 40].map(|t| t.to_le_bytes().to_vec()));
}
