//! What the core writes back: the output stream (header remainder and NAL
//! units, never past STR_BUF_LIMIT), the NAL size table, and the status
//! and statistics registers.

use crate::mb::FrameStats;
use crate::memory::Memory;
use crate::ratectl::InFrameRc;
use crate::regs::*;

/// What reached the output buffer.
pub struct StreamWritten {
    /// IRQ_FRAME_RDY, or IRQ_BUFFER_FULL when a NAL unit did not fit.
    pub irq: u32,
    /// Size of each NAL unit written.
    pub nal_sizes: Vec<u32>,
    /// Bits written after the header remainder.
    pub coded_bits: u32,
}

/// Writes the header remainder and as many whole NAL units as fit at
/// ADDR_OUTPUT_STREAM, and the NAL size table at ADDR_OUTPUT_CTRL.
pub fn write_stream(
    regs: &Registers,
    mem: &mut dyn Memory,
    nals: &[Vec<u8>],
) -> Result<StreamWritten, u32> {
    let out = regs.read(ADDR_OUTPUT_STREAM);
    let limit = regs.read(STR_BUF_LIMIT) as usize;
    let first_free_bit = regs.field(RLC_CTRL, RLC_STR_OFFS_SHIFT, 6) as usize;
    if !out.is_multiple_of(8) || !first_free_bit.is_multiple_of(8) {
        return Err(IRQ_CONFIG_ERROR);
    }
    let rem_bytes = first_free_bit / 8;
    let rem = [
        regs.read(STR_HDR_REM_MSB).to_be_bytes(),
        regs.read(STR_HDR_REM_LSB).to_be_bytes(),
    ]
    .concat();
    let mut stream = rem[..rem_bytes].to_vec();
    let mut irq = IRQ_FRAME_RDY;
    let mut nal_sizes = Vec::new();
    for nal in nals {
        if stream.len() + nal.len() > limit {
            irq = IRQ_BUFFER_FULL;
            break;
        }
        stream.extend_from_slice(nal);
        nal_sizes.push(nal.len() as u32);
    }
    let written = stream.len().min(limit);
    let bus = |_| IRQ_BUS_ERROR;
    mem.write(out, &stream[..written]).map_err(bus)?;
    let mut table: Vec<u8> = nal_sizes.iter().flat_map(|s| s.to_le_bytes()).collect();
    table.extend_from_slice(&0u32.to_le_bytes());
    mem.write(regs.read(ADDR_OUTPUT_CTRL), &table)
        .map_err(bus)?;
    Ok(StreamWritten {
        irq,
        nal_sizes,
        coded_bits: (written - rem_bytes.min(written)) as u32 * 8,
    })
}

/// The status registers after a frame: bits written, QP and coefficient
/// sums, the checkpoints of the in-frame rate control, complete slices.
pub fn write_status(regs: &mut Registers, out: &StreamWritten, stats: &FrameStats, rc: &InFrameRc) {
    regs.write(STR_BUF_LIMIT, out.coded_bits);
    regs.write(
        MAD_CTRL,
        (regs.read(MAD_CTRL) & !MAD_QP_SUM_DIV2_MASK) | ((stats.qp_sum / 2) & MAD_QP_SUM_DIV2_MASK),
    );
    regs.write(
        RLC_CTRL,
        (regs.read(RLC_CTRL) & !RLC_SUM_MASK) | ((stats.rlc_count / 4) & RLC_SUM_MASK),
    );
    rc.write_back(regs);
    let c5 = regs.read(ENC_CTRL5) & !(0xff << CTRL5_COMPLETE_SLICES_SHIFT);
    regs.write(
        ENC_CTRL5,
        c5 | ((out.nal_sizes.len() as u32 & 0xff) << CTRL5_COMPLETE_SLICES_SHIFT),
    );
}
