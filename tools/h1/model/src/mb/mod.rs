//! The macroblock engine: codes one frame, macroblock by macroblock, in
//! three stages with one value between them.
//!
//! - [`decide`] chooses how a macroblock is coded (P_Skip, a partitioning
//!   and its vectors, an intra prediction) and quantizes its residual; it
//!   only reads the picture coded so far. Its result is an [`MbDecision`].
//! - [`reconstruct`] stores the decision in the picture: samples, motion and
//!   what the neighbours' syntax and the deblocking filter need, and derives
//!   the syntax values that depend on the neighbours (vector differences,
//!   mb_qp_delta, remaining intra modes).
//! - [`macroblock_layer`] writes the decision as the syntax of 7.3.5 through
//!   an [`EntropyWriter`]: [`cavlc_writer`] or [`cabac_writer`].
//!
//! [`frame`] runs the three stages over the slices of a frame, in one thread
//! or as a [`wavefront`] of several; [`slice_coder`] is the part that runs in
//! decoding order (slices, rate control checkpoints, QP_Y, entropy writing).

pub mod cabac_writer;
pub mod cavlc_writer;
pub mod decide;
pub mod decision;
pub mod frame;
pub mod intra_search;
pub mod macroblock_layer;
pub mod motion_search;
pub mod params;
pub mod partition;
pub mod reconstruct;
pub mod residual;
pub mod slice_coder;
pub mod state;
pub mod wavefront;

pub use decision::MbDecision;
pub use frame::{CoderBuffers, FrameCoder};
pub use macroblock_layer::EntropyWriter;
pub use params::{FrameParams, FrameStats};
pub use slice_coder::SliceData;
pub use state::{MbInfo, PictureState};
