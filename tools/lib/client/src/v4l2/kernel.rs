//! What the V4L2 backend needs of the kernel: open, ioctl, mmap, poll. The
//! system implementation makes the calls; tests put a model of the kernel's
//! side behind the same trait.

use super::sys::{Arg, Req};

/// A positive errno from a failed call.
pub type Errno = i32;

/// The kernel entry points of a V4L2 client.
pub trait Kernel {
    /// Opens a device node read-write.
    fn open(&mut self, path: &str) -> Result<i32, Errno>;
    /// Closes a file descriptor (devices and requests).
    fn close(&mut self, fd: i32);
    /// Issues an ioctl with its argument struct.
    fn ioctl(&mut self, fd: i32, req: Req, arg: Arg) -> Result<(), Errno>;
    /// Maps `len` bytes of buffer memory at `offset` (from VIDIOC_QUERYBUF) shared and writable.
    fn mmap(&mut self, fd: i32, len: usize, offset: u32) -> Result<*mut u8, Errno>;
    /// Undoes an [`Kernel::mmap`].
    fn munmap(&mut self, ptr: *mut u8, len: usize);
    /// Waits for POLLPRI on a request (completion) at most `timeout_ms`; false on timeout.
    fn poll_pri(&mut self, fd: i32, timeout_ms: i32) -> Result<bool, Errno>;
    /// The media controller node of a video node's device (`/dev/mediaN`).
    fn media_node(&mut self, video: &str) -> Result<String, String>;
}

/// The running kernel.
pub struct System;

fn last_errno() -> Errno {
    std::io::Error::last_os_error()
        .raw_os_error()
        .unwrap_or(libc::EIO)
}

impl Kernel for System {
    fn open(&mut self, path: &str) -> Result<i32, Errno> {
        let c = std::ffi::CString::new(path).map_err(|_| libc::EINVAL)?;
        // SAFETY: `c` is a NUL-terminated path that lives across the call.
        let fd = unsafe { libc::open(c.as_ptr(), libc::O_RDWR | libc::O_CLOEXEC) };
        if fd < 0 {
            Err(last_errno())
        } else {
            Ok(fd)
        }
    }

    fn close(&mut self, fd: i32) {
        // SAFETY: closing a descriptor this process opened; errors are irrelevant here.
        unsafe { libc::close(fd) };
    }

    fn ioctl(&mut self, fd: i32, req: Req, mut arg: Arg) -> Result<(), Errno> {
        let p = arg.as_ptr();
        loop {
            // SAFETY: `p` is null for argument-less requests, else points to the
            // struct `req` is defined with (Req::code encodes its size), and every
            // pointer inside it (planes, controls, payloads) is set by the caller
            // to memory that lives across the call.
            let r = unsafe { libc::ioctl(fd, req.code() as _, p) };
            if r >= 0 {
                return Ok(());
            }
            let e = last_errno();
            if e != libc::EINTR {
                return Err(e);
            }
        }
    }

    fn mmap(&mut self, fd: i32, len: usize, offset: u32) -> Result<*mut u8, Errno> {
        // SAFETY: a new shared mapping of the device's buffer; nothing is overwritten.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd,
                offset as libc::off_t,
            )
        };
        if p == libc::MAP_FAILED {
            Err(last_errno())
        } else {
            Ok(p as *mut u8)
        }
    }

    fn munmap(&mut self, ptr: *mut u8, len: usize) {
        // SAFETY: `ptr` and `len` come from a successful mmap the caller no longer uses.
        unsafe { libc::munmap(ptr as *mut libc::c_void, len) };
    }

    fn poll_pri(&mut self, fd: i32, timeout_ms: i32) -> Result<bool, Errno> {
        let mut p = libc::pollfd {
            fd,
            events: libc::POLLPRI,
            revents: 0,
        };
        loop {
            // SAFETY: one valid pollfd.
            let r = unsafe { libc::poll(&mut p, 1, timeout_ms) };
            // media_request_poll() answers POLLERR for a request that is
            // neither queued nor complete: that is no completion.
            if r > 0 && p.revents & libc::POLLERR != 0 {
                return Err(libc::EINVAL);
            }
            if r >= 0 {
                return Ok(r > 0 && p.revents & libc::POLLPRI != 0);
            }
            let e = last_errno();
            if e != libc::EINTR {
                return Err(e);
            }
        }
    }

    fn media_node(&mut self, video: &str) -> Result<String, String> {
        // /sys/class/video4linux/videoN/device/ holds the media device the
        // driver registered on the same parent (mediaM).
        let name = video.rsplit('/').next().unwrap_or(video);
        let dir = format!("/sys/class/video4linux/{name}/device");
        let found = std::fs::read_dir(&dir)
            .map_err(|e| format!("{dir}: {e}"))?
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .find(|n| n.starts_with("media") && n[5..].chars().all(|c| c.is_ascii_digit()));
        found
            .map(|m| format!("/dev/{m}"))
            .ok_or_else(|| format!("{video} has no media device in {dir}: requests need one"))
    }
}

/// The errno's name, as the kernel headers spell it.
pub fn errno_name(e: Errno) -> String {
    let n = match e {
        libc::EPERM => "EPERM",
        libc::ENOENT => "ENOENT",
        libc::EIO => "EIO",
        libc::EBADF => "EBADF",
        libc::EAGAIN => "EAGAIN",
        libc::ENOMEM => "ENOMEM",
        libc::EACCES => "EACCES",
        libc::EBUSY => "EBUSY",
        libc::ENODEV => "ENODEV",
        libc::EINVAL => "EINVAL",
        libc::ENOSPC => "ENOSPC",
        libc::ERANGE => "ERANGE",
        libc::ENOTTY => "ENOTTY",
        libc::EPROTO => "EPROTO",
        libc::ETIMEDOUT => "ETIMEDOUT",
        _ => return format!("errno {e}"),
    };
    n.to_string()
}
