//! The devices `encode` drives, behind one interface: the built-in virtual H1
//! or a V4L2 node. Errors are messages for the user ("EINVAL (-22)", or the
//! ioctl that failed and why).

pub use hantro_vdev::{Completed, PixelFormat, VirtualDevice};
use v4l2_h264enc_uapi::{v4l2_ctrl_h264_encode_params, v4l2_ctrl_h264_encode_rc};

/// A stateless H.264 encoder, driven as the uAPI specification describes.
pub trait Device {
    /// Sets the source format (visible size, pixel format) and the frame rate.
    fn set_format(
        &mut self,
        width: u32,
        height: u32,
        fmt: PixelFormat,
        fps_num: u32,
        fps_den: u32,
    ) -> Result<(), String>;
    /// Sets an integer control.
    fn set_ctrl(&mut self, id: u32, value: i32) -> Result<(), String>;
    /// Sets a compound control from the bytes of its C struct.
    fn set_compound(&mut self, id: u32, payload: &[u8]) -> Result<(), String>;
    /// Starts streaming.
    fn start(&mut self) -> Result<(), String>;
    /// Encodes one frame (one request); `Err` when the device refused it.
    fn encode(
        &mut self,
        frame: &[u8],
        timestamp: u64,
        params: &v4l2_ctrl_h264_encode_params,
        rc: &v4l2_ctrl_h264_encode_rc,
    ) -> Result<Completed, String> {
        self.encode_request(frame, timestamp, Some(params), Some(rc))
    }
    /// As [`Device::encode`], with the per-frame controls the request leaves
    /// out as `None`, which the uAPI refuses when the request is queued.
    fn encode_request(
        &mut self,
        frame: &[u8],
        timestamp: u64,
        params: Option<&v4l2_ctrl_h264_encode_params>,
        rc: Option<&v4l2_ctrl_h264_encode_rc>,
    ) -> Result<Completed, String>;
    /// Asks the device, before [`Device::start`], to take up to `n` requests
    /// queued at once; [`Device::queue_depth`] says how many it took.
    fn set_queue_depth(&mut self, n: usize) {
        let _ = n;
    }
    /// How many requests the device takes queued at once: above 1,
    /// [`Device::submit`] and [`Device::reap`] work; at 1 each request
    /// waits in [`Device::encode_request`].
    fn queue_depth(&self) -> usize {
        1
    }
    /// Queues a request without waiting for it, while fewer than
    /// [`Device::queue_depth`] are queued.
    fn submit(
        &mut self,
        frame: &[u8],
        timestamp: u64,
        params: Option<&v4l2_ctrl_h264_encode_params>,
        rc: Option<&v4l2_ctrl_h264_encode_rc>,
    ) -> Result<(), String> {
        let _ = (frame, timestamp, params, rc);
        Err("the device takes one request at a time".into())
    }
    /// Waits for the oldest request [`Device::submit`] queued.
    fn reap(&mut self) -> Result<Completed, String> {
        Err("the device takes one request at a time".into())
    }
    /// The reconstruction of a completed frame, when the device can give it.
    fn recon(&mut self, slot: u32) -> Option<Result<Vec<u8>, String>>;
    /// The driver's last message about a failed frame, when there is one.
    fn last_log(&self) -> Option<String>;
    /// Changes the bit rate (and peak) while streaming; the next picture is an IDR.
    fn set_bitrate(&mut self, bitrate: u32, peak: u32) -> Result<(), String>;
    /// Drains and stops.
    fn finish(&mut self) -> Result<(), String>;
}

/// The bytes of a uAPI control struct (plain C data without holes, which
/// `tools/testing/uapi/check-uapi.sh` checks for the project's structs).
pub fn bytes_of<T: Copy>(v: &T) -> &[u8] {
    // SAFETY: `v` is a live, initialised value of `size_of::<T>()` bytes and
    // the uAPI structs passed here have no padding.
    unsafe { std::slice::from_raw_parts(v as *const T as *const u8, std::mem::size_of::<T>()) }
}

impl Device for VirtualDevice {
    fn set_format(
        &mut self,
        width: u32,
        height: u32,
        fmt: PixelFormat,
        fps_num: u32,
        fps_den: u32,
    ) -> Result<(), String> {
        VirtualDevice::set_format(self, width, height, fmt, fps_num, fps_den)
            .map_err(|e| e.to_string())
    }

    fn set_ctrl(&mut self, id: u32, value: i32) -> Result<(), String> {
        VirtualDevice::set_ctrl(self, id, value).map_err(|e| e.to_string())
    }

    fn set_compound(&mut self, id: u32, payload: &[u8]) -> Result<(), String> {
        self.set_ctrl_bytes(id, payload).map_err(|e| e.to_string())
    }

    fn start(&mut self) -> Result<(), String> {
        VirtualDevice::start(self).map_err(|e| e.to_string())
    }

    fn encode_request(
        &mut self,
        frame: &[u8],
        timestamp: u64,
        params: Option<&v4l2_ctrl_h264_encode_params>,
        rc: Option<&v4l2_ctrl_h264_encode_rc>,
    ) -> Result<Completed, String> {
        VirtualDevice::encode_request(self, frame, timestamp, params, rc).map_err(|e| e.to_string())
    }

    fn recon(&mut self, slot: u32) -> Option<Result<Vec<u8>, String>> {
        Some(VirtualDevice::recon(self, slot).map_err(|e| e.to_string()))
    }

    fn last_log(&self) -> Option<String> {
        self.log().last().map(|m| m.trim().to_string())
    }

    fn set_bitrate(&mut self, bitrate: u32, peak: u32) -> Result<(), String> {
        VirtualDevice::set_bitrate(self, bitrate, peak).map_err(|e| e.to_string())
    }

    fn finish(&mut self) -> Result<(), String> {
        self.stop();
        Ok(())
    }
}
