//! The ioctl requests the backend issues, and their arguments: the kernel's
//! structs from the uAPI bindings, and how the backend fills them.

pub use v4l2_h264enc_uapi::*;

use std::mem::size_of;

/// _IOC() of asm-generic/ioctl.h: direction, type, number and argument size.
const fn ioc(dir: u64, ty: u8, nr: u8, size: usize) -> u64 {
    (dir << 30) | ((size as u64) << 16) | ((ty as u64) << 8) | nr as u64
}
const NONE: u64 = 0;
const WRITE: u64 = 1;
const READ: u64 = 2;

/// The ioctls of the stateless encode interface, in the order a client meets them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Req {
    QueryCap,
    QueryExtCtrl,
    SFmt,
    SParm,
    SSelection,
    SExtCtrls,
    GExtCtrls,
    ReqBufs,
    QueryBuf,
    StreamOn,
    StreamOff,
    QBuf,
    DqBuf,
    EncoderCmd,
    RequestAlloc,
    RequestQueue,
    RequestReinit,
}

impl Req {
    /// The request number, as the kernel headers' _IOR/_IOW/_IOWR macros give it.
    pub const fn code(self) -> u64 {
        let v = b'V';
        match self {
            Req::QueryCap => ioc(READ, v, 0, size_of::<v4l2_capability>()),
            Req::SFmt => ioc(READ | WRITE, v, 5, size_of::<v4l2_format>()),
            Req::ReqBufs => ioc(READ | WRITE, v, 8, size_of::<v4l2_requestbuffers>()),
            Req::QueryBuf => ioc(READ | WRITE, v, 9, size_of::<v4l2_buffer>()),
            Req::QBuf => ioc(READ | WRITE, v, 15, size_of::<v4l2_buffer>()),
            Req::DqBuf => ioc(READ | WRITE, v, 17, size_of::<v4l2_buffer>()),
            Req::StreamOn => ioc(WRITE, v, 18, size_of::<i32>()),
            Req::StreamOff => ioc(WRITE, v, 19, size_of::<i32>()),
            Req::SParm => ioc(READ | WRITE, v, 22, size_of::<v4l2_streamparm>()),
            Req::SSelection => ioc(READ | WRITE, v, 95, size_of::<v4l2_selection>()),
            Req::GExtCtrls => ioc(READ | WRITE, v, 71, size_of::<v4l2_ext_controls>()),
            Req::SExtCtrls => ioc(READ | WRITE, v, 72, size_of::<v4l2_ext_controls>()),
            Req::EncoderCmd => ioc(READ | WRITE, v, 77, size_of::<v4l2_encoder_cmd>()),
            Req::QueryExtCtrl => ioc(READ | WRITE, v, 103, size_of::<v4l2_query_ext_ctrl>()),
            Req::RequestAlloc => ioc(READ, b'|', 0x05, size_of::<i32>()),
            Req::RequestQueue => ioc(NONE, b'|', 0x80, 0),
            Req::RequestReinit => ioc(NONE, b'|', 0x81, 0),
        }
    }

    /// The name in the kernel headers, for messages.
    pub const fn name(self) -> &'static str {
        match self {
            Req::QueryCap => "VIDIOC_QUERYCAP",
            Req::QueryExtCtrl => "VIDIOC_QUERY_EXT_CTRL",
            Req::SFmt => "VIDIOC_S_FMT",
            Req::SParm => "VIDIOC_S_PARM",
            Req::SSelection => "VIDIOC_S_SELECTION",
            Req::SExtCtrls => "VIDIOC_S_EXT_CTRLS",
            Req::GExtCtrls => "VIDIOC_G_EXT_CTRLS",
            Req::ReqBufs => "VIDIOC_REQBUFS",
            Req::QueryBuf => "VIDIOC_QUERYBUF",
            Req::StreamOn => "VIDIOC_STREAMON",
            Req::StreamOff => "VIDIOC_STREAMOFF",
            Req::QBuf => "VIDIOC_QBUF",
            Req::DqBuf => "VIDIOC_DQBUF",
            Req::EncoderCmd => "VIDIOC_ENCODER_CMD",
            Req::RequestAlloc => "MEDIA_IOC_REQUEST_ALLOC",
            Req::RequestQueue => "MEDIA_REQUEST_IOC_QUEUE",
            Req::RequestReinit => "MEDIA_REQUEST_IOC_REINIT",
        }
    }
}

/// The argument of an ioctl: the kernel struct it reads and writes.
pub enum Arg<'a> {
    None,
    Int(&'a mut i32),
    Cap(&'a mut v4l2_capability),
    QueryExtCtrl(&'a mut v4l2_query_ext_ctrl),
    Fmt(&'a mut v4l2_format),
    Parm(&'a mut v4l2_streamparm),
    Sel(&'a mut v4l2_selection),
    ReqBufs(&'a mut v4l2_requestbuffers),
    /// `m.planes` points to the caller's plane array.
    Buf(&'a mut v4l2_buffer),
    /// `controls` points to the caller's array; compound controls point to their payload.
    ExtCtrls(&'a mut v4l2_ext_controls),
    EncCmd(&'a mut v4l2_encoder_cmd),
}

impl Arg<'_> {
    /// The pointer the ioctl system call takes.
    pub fn as_ptr(&mut self) -> *mut std::ffi::c_void {
        fn p<T>(r: &mut T) -> *mut std::ffi::c_void {
            r as *mut T as *mut std::ffi::c_void
        }
        match self {
            Arg::None => std::ptr::null_mut(),
            Arg::Int(r) => p(*r),
            Arg::Cap(r) => p(*r),
            Arg::QueryExtCtrl(r) => p(*r),
            Arg::Fmt(r) => p(*r),
            Arg::Parm(r) => p(*r),
            Arg::Sel(r) => p(*r),
            Arg::ReqBufs(r) => p(*r),
            Arg::Buf(r) => p(*r),
            Arg::ExtCtrls(r) => p(*r),
            Arg::EncCmd(r) => p(*r),
        }
    }
}

pub use v4l2_h264enc_uapi::v4l2_fourcc as fourcc;

/// A v4l2_buffer of queue `ty`, MMAP, with its plane array (one element
/// per plane of the queue's format).
pub(super) fn buffer(ty: u32, index: u32, planes: &mut [v4l2_plane]) -> v4l2_buffer {
    let mut b = v4l2_buffer {
        index,
        type_: ty,
        memory: V4L2_MEMORY_MMAP,
        length: planes.len() as u32,
        ..Default::default()
    };
    b.m.planes = planes.as_mut_ptr();
    b
}

/// An integer control.
pub(super) fn ctrl_int(id: u32, value: i32) -> v4l2_ext_control {
    let mut c = v4l2_ext_control {
        id,
        ..Default::default()
    };
    c.__bindgen_anon_1.value = value;
    c
}

/// A compound control pointing to `payload`, which must outlive the ioctl.
pub(super) fn ctrl_ptr(id: u32, payload: *mut u8, size: usize) -> v4l2_ext_control {
    let mut c = v4l2_ext_control {
        id,
        size: size as u32,
        ..Default::default()
    };
    c.__bindgen_anon_1.p_u8 = payload;
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Request numbers as the kernel headers define them on x86_64 (strace and
    /// v4l2-ctl print these): an independent check of the sizes and directions.
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn request_numbers_match_the_kernel_headers() {
        for (r, code) in [
            (Req::QueryCap, 0x8068_5600u64),
            (Req::SFmt, 0xc0d0_5605),
            (Req::ReqBufs, 0xc014_5608),
            (Req::QueryBuf, 0xc058_5609),
            (Req::QBuf, 0xc058_560f),
            (Req::DqBuf, 0xc058_5611),
            (Req::StreamOn, 0x4004_5612),
            (Req::StreamOff, 0x4004_5613),
            (Req::SParm, 0xc0cc_5616),
            (Req::SSelection, 0xc040_565f),
            (Req::GExtCtrls, 0xc020_5647),
            (Req::SExtCtrls, 0xc020_5648),
            (Req::EncoderCmd, 0xc028_564d),
            (Req::QueryExtCtrl, 0xc0e8_5667),
            (Req::RequestAlloc, 0x8004_7c05),
            (Req::RequestQueue, 0x7c80),
            (Req::RequestReinit, 0x7c81),
        ] {
            assert_eq!(r.code(), code, "{}", r.name());
        }
    }
}
