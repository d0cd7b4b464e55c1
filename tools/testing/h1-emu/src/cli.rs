//! The command line of `h1-emu`.

use crate::{parse_fault_at, FaultPlan};
use clap::Parser;
use hantro_h1_model::fault::Fault;
use std::path::PathBuf;

/// Plays the Hantro H1 behind /dev/hantro-h1-emu with the software H1.
#[derive(Debug, Parser)]
#[command(name = "h1-emu", version)]
pub struct Args {
    /// The emulated H1's device node.
    #[arg(long, default_value = crate::chardev::DEFAULT_DEVICE)]
    pub device: PathBuf,
    /// Faults to show: frame index N (from 0, frames since the program started)
    /// and KIND, one of timeout, buffer-full, bad-qp-sum, corrupt-slice-header,
    /// bad-checkpoints. May be repeated.
    #[arg(
        long = "fault-at",
        value_name = "N:KIND[,N:KIND...]",
        value_delimiter = ',',
        value_parser = parse_fault_at
    )]
    pub fault_at: Vec<(u64, Fault)>,
    /// Exit after N frames.
    #[arg(long, value_name = "N")]
    pub frames: Option<u64>,
    /// Print one line per frame: index, size in MBs, interrupt status, stream bytes.
    #[arg(long, short)]
    pub verbose: bool,
}

impl Args {
    /// The faults of `--fault-at`.
    pub fn fault_plan(&self) -> Result<FaultPlan, String> {
        FaultPlan::new(self.fault_at.iter().copied())
    }
}
