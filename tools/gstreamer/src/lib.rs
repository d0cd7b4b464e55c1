//! GStreamer plugin `v4l2slh264enc` with the element of that name, which encodes
//! raw video to H.264 through this project's stack, the built-in virtual H1
//! by default or a V4L2 stateless encoder named by the `device` property.
//!
//! Install: `cargo build --release -p gst-v4l2slh264enc`, then point
//! `GST_PLUGIN_PATH` at `target/release` (or copy `libgstv4l2slh264enc.so`
//! to `~/.local/share/gstreamer-1.0/plugins/`); `gst-inspect-1.0
//! v4l2slh264enc` documents every property.

use gst::glib;

mod v4l2slh264enc;

fn plugin_init(plugin: &gst::Plugin) -> Result<(), glib::BoolError> {
    v4l2slh264enc::register(plugin)
}

gst::plugin_define!(
    v4l2slh264enc,
    env!("CARGO_PKG_DESCRIPTION"),
    plugin_init,
    env!("CARGO_PKG_VERSION"),
    "GPL",
    env!("CARGO_PKG_NAME"),
    env!("CARGO_PKG_NAME"),
    "https://www.kernel.org/doc/html/latest/userspace-api/media/v4l/dev-stateless-encoder.html",
    "2026-12-03"
);
