//! The client side of a stateless H.264 encoder, shared by `h264enc` and the
//! GStreamer element: the devices behind one interface (the built-in virtual
//! H1 and V4L2 nodes, driven with media requests), a stream's configuration
//! in the order the specification gives, and the units parser of rates and
//! buffer sizes.

pub mod device;
pub mod device_thread;
pub mod session;
pub mod units;
pub mod v4l2;
