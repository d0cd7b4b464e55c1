//! The `v4l2slh264enc` element.

use gst::glib;
use gst::prelude::*;

mod imp;

glib::wrapper! {
    /// H.264 encoder over a stateless encoder device.
    pub struct V4l2SlH264Enc(ObjectSubclass<imp::V4l2SlH264Enc>)
        @extends gst_video::VideoEncoder, gst::Element, gst::Object;
}

/// Rate-control modes (the `rate-control` property).
#[derive(Debug, Eq, PartialEq, Ord, PartialOrd, Hash, Clone, Copy, glib::Enum)]
#[repr(u32)]
#[enum_type(name = "GstV4l2SlH264EncRateControl")]
pub enum RateControl {
    /// Constant QP (`quantizer`).
    #[enum_value(name = "Constant QP", nick = "cqp")]
    Cqp = 0,
    /// Constant bit rate with an HRD (`bitrate`, `cpb-size`, `filler`).
    #[enum_value(name = "Constant bit rate", nick = "cbr")]
    Cbr = 1,
    /// Variable bit rate: average `bitrate`, peak 1.5 x.
    #[enum_value(name = "Variable bit rate", nick = "vbr")]
    Vbr = 2,
    /// Constant quality (`quality`), which the device maps to a QP.
    #[enum_value(name = "Constant quality", nick = "cq")]
    Cq = 3,
}

/// Registers the element.
pub fn register(plugin: &gst::Plugin) -> Result<(), glib::BoolError> {
    gst::Element::register(
        Some(plugin),
        "v4l2slh264enc",
        gst::Rank::NONE,
        V4l2SlH264Enc::static_type(),
    )
}
