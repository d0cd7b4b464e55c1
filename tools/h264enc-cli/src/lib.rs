//! The parts of `h264enc` other programs use: the encoder devices (the
//! virtual H1 and V4L2 nodes), stream configuration, the units parser and
//! the check of a device against the uAPI's rules.
//! The GStreamer element encodes through the same code as the command line.

pub mod device;
pub mod rules;
pub mod session;
pub mod units;
pub mod v4l2;
