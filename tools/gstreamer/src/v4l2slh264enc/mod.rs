//! The `v4l2slh264enc` element: its GObject type, declared here, what it
//! does (`imp`) and its settings (`settings`).
//!
//! The subclass is declared beside the wrapper it names as its `Type`, so
//! that `imp`, which implements the subclass, names nothing of this file.

use gst::glib;
use gst::prelude::*;
use gst::subclass::prelude::*;
// `#[glib::object_subclass]` takes the type as one identifier.
use imp::V4l2SlH264Enc as Imp;

mod imp;
mod settings;

glib::wrapper! {
    /// H.264 encoder over a stateless encoder device.
    pub struct V4l2SlH264Enc(ObjectSubclass<Imp>)
        @extends gst_video::VideoEncoder, gst::Element, gst::Object;
}

#[glib::object_subclass]
impl ObjectSubclass for Imp {
    const NAME: &'static str = "GstV4l2SlH264Enc";
    type Type = V4l2SlH264Enc;
    type ParentType = gst_video::VideoEncoder;
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
