//! NAL assembly: each coded slice as a slice layer NAL unit (7.3.2.8), and
//! the cabac_zero_words that bound a picture's bins (7.4.2.10).

use crate::bitwriter::BitWriter;
use crate::mb::SliceData;
use crate::regs::IRQ_CONFIG_ERROR;
use crate::slice::SliceHeader;

/// The NAL units of `slices`: start code (byte stream), NAL header, and the
/// escaped slice_header() and slice_data(). Fails with the interrupt status
/// of a configuration error if a unit cannot be escaped.
pub fn slice_nals(
    header: &SliceHeader,
    slices: Vec<SliceData>,
    cabac: bool,
    byte_stream: bool,
) -> Result<Vec<Vec<u8>>, u32> {
    let mut nals: Vec<Vec<u8>> = Vec::with_capacity(slices.len());
    for s in slices {
        let mut rbsp = BitWriter::new();
        let mut h = header.clone();
        h.first_mb_in_slice = s.first_mb as u32;
        h.write(&mut rbsp);
        if cabac {
            // cabac_alignment_one_bit.
            while !rbsp.bit_len().is_multiple_of(8) {
                rbsp.put(1, 1);
            }
        }
        let data = s.data.into_bits();
        rbsp.append_bits(&data.0, data.1);
        if cabac {
            // The flush at end_of_slice_flag wrote the rbsp_stop_one_bit.
            rbsp.align_zero();
        } else {
            rbsp.trailing();
        }
        let rbsp = rbsp.into_bytes();
        let mut nal = Vec::with_capacity(rbsp.len() * 9 / 8 + 8);
        if byte_stream {
            nal.extend_from_slice(&[0, 0, 0, 1]);
        }
        nal.push(((header.nal_ref_idc << 5) | header.nal_unit_type()) as u8);
        let start = nal.len();
        nal.resize(start + h264enc::bitstream::emulation::escaped_len(&rbsp), 0);
        h264enc::bitstream::emulation::escape(&rbsp, &mut nal[start..])
            .map_err(|_| IRQ_CONFIG_ERROR)?;
        nals.push(nal);
    }
    Ok(nals)
}

/// Appends to the last NAL unit the cabac_zero_words a picture of `mbs`
/// macroblocks and `bins` bins needs; returns how many.
pub fn append_cabac_zero_words(
    nals: &mut [Vec<u8>],
    byte_stream: bool,
    mbs: usize,
    bins: u64,
) -> u32 {
    let words = cabac_zero_words(nals, byte_stream, mbs, bins);
    if let Some(last) = nals.last_mut() {
        for _ in 0..words {
            // A cabac_zero_word, 0x0000, escaped: 00 00 03.
            last.extend_from_slice(&[0, 0, 3]);
        }
    }
    words
}

/// The cabac_zero_words a picture needs so that its bins stay within
/// (32 / 3) x NumBytesInVclNALunits + (RawMbBits x PicSizeInMbs) / 32
/// (7.4.2.10; RawMbBits is 3072 for 8-bit 4:2:0), each adding three bytes.
fn cabac_zero_words(nals: &[Vec<u8>], byte_stream: bool, mbs: usize, bins: u64) -> u32 {
    let start_code = if byte_stream { 4 } else { 0 };
    let bytes: u64 = nals.iter().map(|n| (n.len() - start_code) as u64).sum();
    let slack = 3072 * mbs as u64 / 32;
    // bins <= 32 x (bytes + 3k) / 3 + slack  <=>  96k >= 3 (bins - slack) - 32 bytes.
    let need = (3 * bins.saturating_sub(slack)).saturating_sub(32 * bytes);
    need.div_ceil(96) as u32
}
