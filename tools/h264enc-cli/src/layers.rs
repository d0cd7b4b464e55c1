//! Temporal layer prefixes of a stream: what a receiver of only the lower
//! layers gets, to decode and check on its own.
//!
//! Plain H.264 does not carry temporal_id in the NAL unit header, so the
//! layer of each access unit comes from the pattern the encoder follows
//! (the core's `gop`, L1T2 0,1 and L1T3 0,2,1,2), restarting at every IDR
//! picture.

use crate::stream::{access_units, nal_units};

/// Temporal layer of each access unit of `stream`, coded with `layers` layers.
pub fn layer_of_access_units(stream: &[u8], layers: u8) -> Vec<u8> {
    let nals = nal_units(stream);
    let mut since_idr = 0u64;
    access_units(stream, &nals)
        .iter()
        .map(|au| {
            if nals[au.first..au.end].iter().any(|n| n.nal_type == 5) {
                since_idr = 0;
            }
            let gop = h264enc::gop::GopConfig {
                temporal_layers: layers,
                ..Default::default()
            };
            let layer = gop.decide(since_idr, false).temporal_id;
            since_idr += 1;
            layer
        })
        .collect()
}

/// The access units of layers 0..=`k`, and which access units they were.
pub fn prefix(stream: &[u8], layer_of: &[u8], k: u8) -> (Vec<u8>, Vec<usize>) {
    let nals = nal_units(stream);
    let mut out = Vec::new();
    let mut kept = Vec::new();
    for (i, au) in access_units(stream, &nals).iter().enumerate() {
        if layer_of.get(i).is_some_and(|&l| l <= k) {
            let from = nals[au.first].offset;
            out.extend_from_slice(&stream[from..from + au.bytes]);
            kept.push(i);
        }
    }
    (out, kept)
}
