//! The arguments of the ioctls, read as the kernel reads them from userspace.

use crate::v4l2::kernel::Errno;
use crate::v4l2::sys::*;

/// VB2_MAX_PLANES.
pub(super) const MAX_PLANES: u32 = 8;

/// The name of a per-frame control in the log.
pub(super) fn ctrl_name(id: u32) -> String {
    match id {
        V4L2_CID_STATELESS_H264_ENCODE_PARAMS => "PARAMS".into(),
        V4L2_CID_STATELESS_H264_ENCODE_RC => "RC".into(),
        V4L2_CID_STATELESS_H264_ENCODE_FEEDBACK => "FEEDBACK".into(),
        _ => format!("{id:#x}"),
    }
}

/// The controls of a v4l2_ext_controls, as copy_from_user would read them.
pub(super) fn controls(c: &v4l2_ext_controls) -> Result<Vec<v4l2_ext_control>, Errno> {
    if c.count == 0 || c.count > 64 || c.controls.is_null() {
        return Err(libc::EINVAL);
    }
    // SAFETY: the backend points `controls` at `count` live elements for the call.
    Ok(unsafe { std::slice::from_raw_parts(c.controls, c.count as usize) }.to_vec())
}

/// The payload of a compound control.
pub(super) fn payload<'a>(c: &v4l2_ext_control) -> Result<&'a mut [u8], Errno> {
    // SAFETY: reading the pointer member of a compound control.
    let p = unsafe { c.__bindgen_anon_1.p_u8 };
    if p.is_null() || c.size == 0 {
        return Err(libc::EFAULT);
    }
    // SAFETY: the backend points compound controls at `size` live bytes.
    Ok(unsafe { std::slice::from_raw_parts_mut(p, c.size as usize) })
}

pub(super) fn read_struct<T: Copy + Default>(bytes: &[u8]) -> Result<T, Errno> {
    if bytes.len() != std::mem::size_of::<T>() {
        return Err(libc::EINVAL);
    }
    let mut v = T::default();
    // SAFETY: `v` is a plain C struct of exactly `bytes.len()` bytes.
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), &mut v as *mut T as *mut u8, bytes.len())
    };
    Ok(v)
}

/// The plane array of a multiplanar v4l2_buffer, checked as
/// __verify_planes_array() of videobuf2-v4l2 does: present, and `length`
/// (its elements) at least the buffer's `num_planes` and at most 8.
pub(super) fn planes<'a>(
    b: &v4l2_buffer,
    num_planes: usize,
) -> Result<&'a mut [v4l2_plane], Errno> {
    // SAFETY: reading the planes member, which multiplanar buffers use.
    let p = unsafe { b.m.planes };
    if p.is_null() || (b.length as usize) < num_planes || b.length > MAX_PLANES {
        return Err(libc::EINVAL);
    }
    // SAFETY: the backend points `planes` at `length` live elements.
    Ok(unsafe { std::slice::from_raw_parts_mut(p, b.length as usize) })
}
