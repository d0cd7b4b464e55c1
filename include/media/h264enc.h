/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * C API of the Rust H.264 stateless encoder core (rust/kernel/media/h264enc).
 *
 * Generated from the Rust sources by cbindgen and the kernel-style pass of
 * rust/kernel/media/h264enc/tests/c_header.rs; do not edit: change the Rust
 * code and regenerate with
 * H264ENC_BLESS=1 cargo test -p h264enc --test c_header.
 */

#ifndef _MEDIA_H264ENC_H
#define _MEDIA_H264ENC_H

#include <linux/types.h>
#ifndef __KERNEL__
#include <stdbool.h>
#include <stddef.h>
#endif

/**
 * H264ENC_MAX_DPB - Most reference pictures h264enc_get_dpb_entry() reports
 * (V4L2_H264_NUM_DPB_ENTRIES).
 */
#define H264ENC_MAX_DPB 16

/**
 * H264ENC_CTX_SIZE - Size in bytes of the storage of an encoder context.
 */
#define H264ENC_CTX_SIZE 2048

/**
 * H264ENC_CTX_STORAGE_WORDS - 64-bit words of the private storage of a context,
 * &h264enc_ctx.storage.
 */
#define H264ENC_CTX_STORAGE_WORDS 255

/**
 * H264ENC_CABAC_CONTEXTS - Context variables in a table of
 * h264enc_cabac_init_states().
 */
#define H264ENC_CABAC_CONTEXTS 460

/**
 * H264ENC_MAX_HEADER_BYTES - Largest header block h264enc_write_headers()
 * writes.
 */
#define H264ENC_MAX_HEADER_BYTES 256

/**
 * H264ENC_RC_CQP - Rate control: constant QP.
 */
#define H264ENC_RC_CQP 0

/**
 * H264ENC_RC_CBR - Rate control: constant bit rate.
 */
#define H264ENC_RC_CBR 1

/**
 * H264ENC_RC_VBR - Rate control: variable bit rate.
 */
#define H264ENC_RC_VBR 2

/**
 * H264ENC_RC_CLIENT - Rate control: the client gives every picture's QP.
 */
#define H264ENC_RC_CLIENT 3

/**
 * H264ENC_RC_CQ - Rate control: constant quality, with a peak over any
 * one-second window.
 */
#define H264ENC_RC_CQ 4

/**
 * H264ENC_FRAME_FORCE_IDR - Frame flag: code an IDR picture.
 */
#define H264ENC_FRAME_FORCE_IDR 1

/**
 * H264ENC_FRAME_SCENE_CHANGE - Frame flag: the client saw a scene change.
 */
#define H264ENC_FRAME_SCENE_CHANGE 2

/**
 * H264ENC_FRAME_REFERENCE_TS - Frame flag: predict from the picture named by
 * &h264enc_frame_params.reference_ts.
 */
#define H264ENC_FRAME_REFERENCE_TS 4

/**
 * H264ENC_FRAME_QP - Frame flag: &h264enc_frame_params.qp holds the picture's
 * QP.
 */
#define H264ENC_FRAME_QP 8

/**
 * H264ENC_FRAME_MARK_LONG_TERM - Frame flag: mark the picture long-term, in
 * place of the one held.
 */
#define H264ENC_FRAME_MARK_LONG_TERM 16

/**
 * H264ENC_REPLAN_CODE_AGAIN - h264enc_replan_frame(): code the frame again with
 * the new plan.
 */
#define H264ENC_REPLAN_CODE_AGAIN 1

/**
 * H264ENC_REPLAN_SKIP - h264enc_replan_frame(): no coding fits; complete the
 * frame as a skipped picture with h264enc_complete_skipped().
 */
#define H264ENC_REPLAN_SKIP 2

/**
 * H264ENC_CHECKPOINTS - Number of H1 checkpoints.
 */
#define H264ENC_CHECKPOINTS 10

/**
 * H264ENC_HRD_UNDERFLOW - &h264enc_frame_status.hrd_flags: the picture had not
 * fully arrived in the CPB at its removal time (C.3.3).
 */
#define H264ENC_HRD_UNDERFLOW 1

/**
 * H264ENC_HRD_OVERFLOW - &h264enc_frame_status.hrd_flags: the CPB overflowed
 * while the picture arrived (C.3.2).
 */
#define H264ENC_HRD_OVERFLOW 2

/**
 * struct h264enc_ctx - Storage of one encoder, allocated and owned by the C
 * side.
 *
 * The driver allocates %H264ENC_CTX_SIZE bytes aligned to 8 (kzalloc() memory
 * is) and hands them to h264enc_init(). There is no release call: the core
 * keeps no pointer to the storage and holds no resource, so the driver frees it
 * when the stream ends. The core has no global state.
 *
 * Every call on a context uses it exclusively, the queries included: the caller
 * serializes all calls on one context. The hantro driver does so through
 * mem2mem, which runs one job at a time (plan, headers and abort in device_run;
 * complete and abort in the interrupt handler; abort in the watchdog, which
 * cancel_delayed_work() keeps apart from the handler), and through start and
 * stop streaming, which run under its queue lock with no job in flight. Calls
 * on distinct contexts may run concurrently.
 */
struct h264enc_ctx {
	/**
	 * @magic: Private to the core: set by h264enc_init(); other calls
	 * refuse a context without it.
	 */
	__aligned_u64 magic;
	/**
	 * @storage: Private to the core: the encoder state.
	 */
	__u64 storage[H264ENC_CTX_STORAGE_WORDS];
};

/**
 * struct h264enc_config - Stream configuration, set before the first frame.
 */
struct h264enc_config {
	/**
	 * @width: Visible width in luma samples (multiple of 2).
	 */
	__u16 width;
	/**
	 * @height: Visible height in luma samples (multiple of 2).
	 */
	__u16 height;
	/**
	 * @fps_num: Frame rate numerator (frames per fps_den seconds).
	 */
	__u32 fps_num;
	/**
	 * @fps_den: Frame rate denominator.
	 */
	__u32 fps_den;
	/**
	 * @profile_idc: profile_idc: 66 (constrained baseline), 77 (main) or
	 * 100 (high).
	 */
	__u8 profile_idc;
	/**
	 * @level_idc: level_idc, 0 to choose the lowest that fits.
	 */
	__u8 level_idc;
	/**
	 * @entropy_cabac: CABAC (main and high only).
	 */
	__u8 entropy_cabac;
	/**
	 * @transform_8x8: 8x8 transform (high only).
	 */
	__u8 transform_8x8;
	/**
	 * @constrained_intra_pred: constrained_intra_pred_flag.
	 */
	__u8 constrained_intra_pred;
	/**
	 * @chroma_qp_index_offset: chroma_qp_index_offset, -12..12.
	 */
	__s8 chroma_qp_index_offset;
	/**
	 * @disable_deblocking_filter_idc: disable_deblocking_filter_idc, 0..2.
	 */
	__u8 disable_deblocking_filter_idc;
	/**
	 * @slice_alpha_c0_offset_div2: slice_alpha_c0_offset_div2, -6..6.
	 */
	__s8 slice_alpha_c0_offset_div2;
	/**
	 * @slice_beta_offset_div2: slice_beta_offset_div2, -6..6.
	 */
	__s8 slice_beta_offset_div2;
	/**
	 * @cabac_init_idc: cabac_init_idc, 0..2.
	 */
	__u8 cabac_init_idc;
	/**
	 * @slice_mb_rows: Macroblock rows per slice, 0 for one slice per
	 * picture.
	 */
	__u16 slice_mb_rows;
	/**
	 * @poc_type: pic_order_cnt_type, 0 or 2.
	 */
	__u8 poc_type;
	/**
	 * @log2_max_frame_num_minus4: log2_max_frame_num_minus4, 0..12.
	 */
	__u8 log2_max_frame_num_minus4;
	/**
	 * @idr_period: Frames between IDR pictures, 0 for only the first.
	 */
	__u32 idr_period;
	/**
	 * @temporal_layers: Temporal layers, 1..3.
	 */
	__u8 temporal_layers;
	/**
	 * @rc_mode: Rate control mode: %H264ENC_RC_CQP, %H264ENC_RC_CBR,
	 * %H264ENC_RC_VBR, %H264ENC_RC_CLIENT or %H264ENC_RC_CQ.
	 */
	__u8 rc_mode;
	/**
	 * @filler: Append filler data to keep CBR streams exact.
	 */
	__u8 filler;
	/**
	 * @aud: Write an access unit delimiter before every picture.
	 */
	__u8 aud;
	/**
	 * @ltr_period: Every this many frames a P frame references the
	 * long-term picture, 0 for none.
	 */
	__u32 ltr_period;
	/**
	 * @bitrate: Target bit rate, bits/s (CBR, VBR).
	 */
	__u32 bitrate;
	/**
	 * @max_bitrate: Peak bit rate, bits/s (VBR; CBR uses @bitrate; CQ: the
	 * most any one-second window holds, 0 for no bound).
	 */
	__u32 max_bitrate;
	/**
	 * @cpb_size: CPB size in bits, 0 for one second at the peak rate.
	 */
	__u32 cpb_size;
	/**
	 * @qp_i: QP of intra pictures (CQP, and client mode when a frame brings
	 * none).
	 */
	__u8 qp_i;
	/**
	 * @qp_p: QP of P pictures (CQP).
	 */
	__u8 qp_p;
	/**
	 * @qp_min: Lowest QP rate control may choose.
	 */
	__u8 qp_min;
	/**
	 * @qp_max: Highest QP rate control may choose.
	 */
	__u8 qp_max;
	/**
	 * @max_qp_step: Largest QP change between pictures (0 for no limit).
	 */
	__u8 max_qp_step;
	/**
	 * @colour_primaries: colour_primaries, transfer_characteristics,
	 * matrix_coefficients; 0 for none signalled.
	 */
	__u8 colour_primaries;
	/**
	 * @transfer_characteristics: transfer_characteristics.
	 */
	__u8 transfer_characteristics;
	/**
	 * @matrix_coefficients: matrix_coefficients.
	 */
	__u8 matrix_coefficients;
	/**
	 * @full_range: video_full_range_flag.
	 */
	__u8 full_range;
	/**
	 * @max_refs_per_frame: Reference frames the hardware can use per P
	 * picture (the H1: 1).
	 */
	__u8 max_refs_per_frame;
	/**
	 * @ltr_count: Long-term references, 0 or 1: with 1 every IDR picture is
	 * marked long-term (``V4L2_CID_MPEG_VIDEO_LTR_COUNT``).
	 */
	__u8 ltr_count;
	/**
	 * @omit_param_sets: 1 to write the SPS and PPS only before the first
	 * IDR picture and before one whose SPS changed; 0 before every IDR
	 * picture (``V4L2_CID_MPEG_VIDEO_PREPEND_SPSPPS_TO_IDR`` = 1).
	 */
	__u8 omit_param_sets;
	/**
	 * @layer_bitrate: Bits/s of each temporal layer's own pictures, base
	 * layer first (``V4L2_CID_MPEG_VIDEO_H264_HIER_CODING_L0_BR`` ..); all
	 * zero for no split. With a split, layers below @temporal_layers have a
	 * rate, the others none, and the rates add up to @bitrate (CBR, VBR).
	 */
	__u32 layer_bitrate[3];
};

/**
 * struct h264enc_frame_params - Parameters of one frame, from the request's
 * controls.
 */
struct h264enc_frame_params {
	/**
	 * @timestamp: Timestamp of the source (OUTPUT) buffer, nanoseconds.
	 */
	__u64 timestamp;
	/**
	 * @reference_ts: Timestamp of the source buffer of the picture to
	 * predict from, with %H264ENC_FRAME_REFERENCE_TS.
	 */
	__u64 reference_ts;
	/**
	 * @flags: Frame flags: %H264ENC_FRAME_FORCE_IDR,
	 * %H264ENC_FRAME_SCENE_CHANGE, %H264ENC_FRAME_REFERENCE_TS,
	 * %H264ENC_FRAME_QP, %H264ENC_FRAME_MARK_LONG_TERM.
	 */
	__u32 flags;
	/**
	 * @qp: QP of this picture with %H264ENC_FRAME_QP, 0..51.
	 */
	__u8 qp;
	/**
	 * @reserved: Must be zero.
	 */
	__u8 reserved[3];
};

/**
 * struct h264enc_frame_plan - Everything the driver needs to program one frame.
 */
struct h264enc_frame_plan {
	/**
	 * @frame_index: Index of the frame in coding order.
	 */
	__u64 frame_index;
	/**
	 * @reference_ts: Timestamp of the source buffer of the reference, when
	 * @ref_slot is valid.
	 */
	__u64 reference_ts;
	/**
	 * @frame_num: frame_num.
	 */
	__u32 frame_num;
	/**
	 * @poc_lsb: pic_order_cnt_lsb (POC type 0).
	 */
	__u32 poc_lsb;
	/**
	 * @ref_mod_value: abs_diff_pic_num_minus1 or long_term_pic_num of the
	 * list modification.
	 */
	__u32 ref_mod_value;
	/**
	 * @target_bits: Bits the picture should take, 0 without a target.
	 */
	__u32 target_bits;
	/**
	 * @idr_pic_id: idr_pic_id.
	 */
	__u16 idr_pic_id;
	/**
	 * @slice_type: slice_type % 5: 0 for a P slice, 2 for an I slice.
	 */
	__u8 slice_type;
	/**
	 * @idr: 1 for an IDR picture.
	 */
	__u8 idr;
	/**
	 * @nal_ref_idc: nal_ref_idc of the slices.
	 */
	__u8 nal_ref_idc;
	/**
	 * @temporal_id: temporal_id.
	 */
	__u8 temporal_id;
	/**
	 * @mark_long_term: 1 to mark the picture long-term (IDR flag or MMCO
	 * 6).
	 */
	__u8 mark_long_term;
	/**
	 * @ref_mod_idc_plus1: modification_of_pic_nums_idc + 1 of the one list
	 * modification, 0 for none.
	 */
	__u8 ref_mod_idc_plus1;
	/**
	 * @rec_slot: Reconstruction slot to write.
	 */
	__u8 rec_slot;
	/**
	 * @ref_slot: Reconstruction slot to predict from, 0xff for intra
	 * pictures.
	 */
	__u8 ref_slot;
	/**
	 * @qp: Slice QP.
	 */
	__u8 qp;
	/**
	 * @qp_min: Lowest macroblock QP.
	 */
	__u8 qp_min;
	/**
	 * @qp_max: Highest macroblock QP.
	 */
	__u8 qp_max;
	/**
	 * @with_parameter_sets: 1 when the core writes SPS and PPS in front of
	 * this picture.
	 */
	__u8 with_parameter_sets;
	/**
	 * @mad_threshold: MAD threshold per sample of the in-frame control; 0
	 * for none.
	 */
	__u8 mad_threshold;
	/**
	 * @mad_qp_adjust: QP added to macroblocks under the MAD threshold.
	 */
	__s8 mad_qp_adjust;
	/**
	 * @max_mvs_per_2mb: MaxMvsPer2Mb of the stream's level (Table A-1), 0
	 * for no limit: the hardware may use sub-8x8 partitions (16 vectors per
	 * macroblock) only when this is 0 or at least 32.
	 */
	__u8 max_mvs_per_2mb;
	/**
	 * @checkpoint_distance: Macroblocks between checkpoints of the in-frame
	 * control; 0 for none.
	 */
	__u16 checkpoint_distance;
	/**
	 * @checkpoint_targets: Cumulative checkpoint targets, 32-bit words.
	 */
	__u16 checkpoint_targets[H264ENC_CHECKPOINTS];
	/**
	 * @checkpoint_word_err: Word-error thresholds of the QP-delta ladder,
	 * ascending.
	 */
	__s16 checkpoint_word_err[6];
	/**
	 * @checkpoint_delta_qp: QP deltas of the seven error ranges.
	 */
	__s8 checkpoint_delta_qp[7];
	/**
	 * @num_ref_idx_active: Entries of RefPicList0 the hardware may use
	 * (num_ref_idx_l0_active), 0 for intra.
	 */
	__u8 num_ref_idx_active;
	/**
	 * @reserved2: Must be zero.
	 */
	__u8 reserved2[2];
	/**
	 * @ref_list_slots: Reconstruction slots of RefPicList0 in list order
	 * (after the modification); entry 0 is @ref_slot.
	 */
	__u8 ref_list_slots[16];
};

/**
 * struct h264enc_hw_feedback - What the hardware reported for a frame (read
 * from its registers).
 */
struct h264enc_hw_feedback {
	/**
	 * @stream_bits: Bits of slice data the hardware wrote.
	 */
	__u32 stream_bits;
	/**
	 * @qp_sum: Sum of the macroblock QPs.
	 */
	__u32 qp_sum;
	/**
	 * @rlc_count: Non-zero coefficients coded.
	 */
	__u32 rlc_count;
	/**
	 * @mad_count: Macroblocks under the MAD threshold.
	 */
	__u32 mad_count;
	/**
	 * @slices: Slices the hardware completed.
	 */
	__u32 slices;
	/**
	 * @checkpoints: Checkpoint results, bits of macroblock data at each
	 * checkpoint reached.
	 */
	__u32 checkpoints[H264ENC_CHECKPOINTS];
};

/**
 * struct h264enc_frame_status - What the core reports for a completed frame.
 */
struct h264enc_frame_status {
	/**
	 * @au_bits: Bits of the access unit, headers and filler included.
	 */
	__u32 au_bits;
	/**
	 * @filler_bytes: Filler bytes the driver must append (a filler NAL unit
	 * of this size, or 0).
	 */
	__u32 filler_bytes;
	/**
	 * @cpb_fullness: CPB fullness before the next picture's removal, bits
	 * (0 without HRD).
	 */
	__u32 cpb_fullness;
	/**
	 * @target_bits: Bits the rate controller aimed for.
	 */
	__u32 target_bits;
	/**
	 * @qp_avg_q8: Average QP, Q8.
	 */
	__u32 qp_avg_q8;
	/**
	 * @frame_num: frame_num of the picture's slices.
	 */
	__u32 frame_num;
	/**
	 * @pic_order_cnt: PicOrderCnt of the picture (8.2.1).
	 */
	__s32 pic_order_cnt;
	/**
	 * @slice_type: slice_type % 5.
	 */
	__u8 slice_type;
	/**
	 * @idr: 1 for an IDR picture.
	 */
	__u8 idr;
	/**
	 * @nal_ref_idc: nal_ref_idc.
	 */
	__u8 nal_ref_idc;
	/**
	 * @temporal_id: temporal_id.
	 */
	__u8 temporal_id;
	/**
	 * @long_term: 1 when the picture is marked "used for long-term
	 * reference".
	 */
	__u8 long_term;
	/**
	 * @hrd_flags: ``H264ENC_HRD_*`` flags of this picture: the CPB model's
	 * verdict on it alone, not on the stream so far.
	 */
	__u8 hrd_flags;
	/**
	 * @passes: Hardware runs the picture took: 1, or more when it was coded
	 * again at a coarser QP (a coding would have underflowed the CPB) or as
	 * an IDR picture (a P picture was a scene cut).
	 */
	__u8 passes;
	/**
	 * @skipped: 1 when no coding fitted the CPB and the core wrote the
	 * picture as skipped: every macroblock P_Skip, a copy of its reference
	 * picture.
	 */
	__u8 skipped;
};

/**
 * struct h264enc_stats - Running totals, for the driver's statistics.
 */
struct h264enc_stats {
	/**
	 * @frames: Frames completed.
	 */
	__u64 frames;
	/**
	 * @bits: Bits of all completed access units.
	 */
	__u64 bits;
	/**
	 * @errors: Frames that failed and were dropped.
	 */
	__u64 errors;
};

/**
 * struct h264enc_dpb_entry - A reference picture as the driver reports it to
 * the client.
 */
struct h264enc_dpb_entry {
	/**
	 * @timestamp: Timestamp of the picture's source buffer (the uAPI's
	 * reference_ts).
	 */
	__u64 timestamp;
	/**
	 * @frame_num: FrameNum.
	 */
	__u32 frame_num;
	/**
	 * @pic_order_cnt: PicOrderCnt (8.2.1).
	 */
	__s32 pic_order_cnt;
	/**
	 * @long_term: 1 when marked "used for long-term reference".
	 */
	__u8 long_term;
	/**
	 * @long_term_frame_idx: LongTermFrameIdx when long-term.
	 */
	__u8 long_term_frame_idx;
	/**
	 * @temporal_id: temporal_id of the picture.
	 */
	__u8 temporal_id;
	/**
	 * @reserved: Zero.
	 */
	__u8 reserved;
	/**
	 * @reserved2: Zero.
	 */
	__u32 reserved2;
};

/**
 * h264enc_init() - Initializes a context for the stream configuration @cfg.
 * @ctx: storage of %H264ENC_CTX_SIZE bytes aligned to 8, allocated by the
 * caller; its contents are ignored, so a context may be initialized again.
 * @cfg: the configuration, read during the call only.
 *
 * Checks @cfg and writes the encoder state into @ctx, which the other calls
 * then accept. On failure @ctx is left uninitialized: the other calls refuse
 * it.
 *
 * Safety: @ctx must be null or point to such storage, writable and used by no
 * other call meanwhile; @cfg must be null or point to a readable
 * &struct h264enc_config.
 *
 * Context: Process context (hantro calls it when streaming starts): it does not
 * sleep or allocate, but it is the call with the large stack frame (it builds
 * the encoder state on the stack), so it is kept out of interrupt context. The
 * caller serializes it with every other call on @ctx; calls on distinct
 * contexts may run concurrently.
 *
 * Return: 0, or a negative errno: -EINVAL for a null pointer or a configuration
 * the core does not support.
 */
int h264enc_init(struct h264enc_ctx *ctx, const struct h264enc_config *cfg);

/**
 * h264enc_plan_frame() - Plans the next frame from its parameters @params into
 * @plan.
 * @ctx: an initialized context with no frame planned.
 * @params: the parameters of the frame, read during the call only.
 * @plan: filled on success with what the driver programs the hardware from.
 *
 * Decides the picture type, its references and its QP. The frame stays planned
 * until h264enc_complete_frame() or h264enc_abort_frame().
 *
 * Safety: @ctx must be null or a context passed to h264enc_init(), @params null
 * or readable and @plan null or writable, each used by no other call meanwhile.
 *
 * Context: Any context, hard IRQ included: it does not sleep, allocate or take
 * locks. hantro calls it from device_run. The caller serializes it with every
 * other call on @ctx; calls on distinct contexts may run concurrently.
 *
 * Return: 0, or a negative errno: -EINVAL for a null pointer, an uninitialized
 * context or bad parameters, -EBUSY if a frame is already planned, -ENOENT if
 * the reference @params names is not in the DPB, -EOVERFLOW if a counter would
 * wrap.
 */
int h264enc_plan_frame(struct h264enc_ctx *ctx,
		       const struct h264enc_frame_params *params,
		       struct h264enc_frame_plan *plan);

/**
 * h264enc_write_headers() - Writes the header NAL units of the planned frame
 * into @buf.
 * @ctx: a context with a planned frame.
 * @buf: where the access unit starts; the hardware's slices follow the headers.
 * @len: bytes of @buf; %H264ENC_MAX_HEADER_BYTES are always enough.
 *
 * The headers are, each with its start code: the access unit delimiter (with
 * &h264enc_config.aud), SPS and PPS (with
 * &h264enc_frame_plan.with_parameter_sets) and, in CBR and VBR streams, the SEI
 * of the HRD (buffering period on IDR pictures, picture timing).
 *
 * Safety: @ctx must be null or an initialized context, and @buf null or
 * writable for @len bytes, each used by no other call meanwhile.
 *
 * Context: Any context, hard IRQ included: it does not sleep, allocate or take
 * locks. hantro calls it from device_run. The caller serializes it with every
 * other call on @ctx; calls on distinct contexts may run concurrently.
 *
 * Return: The number of bytes written, or a negative errno: -EINVAL for a null
 * pointer or an uninitialized context, -EBUSY if no frame is planned, -ENOSPC
 * if @len is too small.
 */
int h264enc_write_headers(struct h264enc_ctx *ctx, __u8 *buf, size_t len);

/**
 * h264enc_replan_frame() - Decides whether to code the planned frame again,
 * from the feedback of a hardware run of it.
 * @ctx: a context with a planned frame.
 * @fb: the feedback the driver read from the hardware's registers.
 * @stream: the slice NAL units the hardware wrote, start codes included.
 * @stream_len: bytes of @stream.
 * @nal_sizes: the hardware's NAL size table, one entry per NAL unit.
 * @num_nals: entries of @nal_sizes, at most 1024.
 * @plan: on %H264ENC_REPLAN_CODE_AGAIN, the new plan to program in full,
 * headers (h264enc_write_headers()) included; on %H264ENC_REPLAN_SKIP, the plan
 * of the skipped picture.
 *
 * The coding is verified first, as h264enc_complete_frame() does: output that
 * disagrees with the plan drops the frame as it does there.
 *
 * A CBR or VBR picture that would underflow the CPB (a scene cut in a P picture
 * with a low-delay buffer) is coded again at a coarser QP, and a P picture that
 * was a scene cut is coded again as an IDR picture (new headers too: the driver
 * writes them again), up to three runs in all; &h264enc_frame_status.passes
 * reports the runs it took. A P picture (or a cut's IDR picture's P picture)
 * that no run fits is skipped: a copy of its reference.
 *
 * Safety: @ctx must be null or an initialized context, @fb null or readable,
 * @stream null or readable for @stream_len bytes, @nal_sizes null or readable
 * for @num_nals entries and @plan null or writable, each used by no other call
 * meanwhile.
 *
 * Context: Any context, hard IRQ included: it does not sleep, allocate or take
 * locks. hantro calls it from its done work item. The caller serializes it with
 * every other call on @ctx; calls on distinct contexts may run concurrently.
 *
 * Return: %H264ENC_REPLAN_CODE_AGAIN when the frame is to be coded again with
 * ``*plan``, %H264ENC_REPLAN_SKIP to complete it with
 * h264enc_complete_skipped(), 0 to complete it with h264enc_complete_frame(),
 * or a negative errno: -EINVAL for a null pointer, an uninitialized context or
 * more than 1024 NAL units, -EBUSY if no frame is planned, and for output that
 * disagrees with the plan (the frame is then dropped) -EPROTO, -EBADMSG,
 * -ENODATA or -EOVERFLOW.
 */
int h264enc_replan_frame(struct h264enc_ctx *ctx,
			 const struct h264enc_hw_feedback *fb,
			 const __u8 *stream, size_t stream_len,
			 const __u32 *nal_sizes, __u32 num_nals,
			 struct h264enc_frame_plan *plan);

/**
 * h264enc_complete_frame() - Completes the planned frame from what the hardware
 * wrote and reported.
 * @ctx: a context with a planned frame.
 * @fb: the feedback the driver read from the hardware's registers.
 * @stream: the slice NAL units the hardware wrote, start codes included.
 * @stream_len: bytes of @stream.
 * @nal_sizes: the hardware's NAL size table, one entry per NAL unit.
 * @num_nals: entries of @nal_sizes, at most 1024.
 * @status: filled on success with what the driver reports for the frame.
 *
 * Checks the slice headers against the plan and the NAL size table against the
 * stream, then updates the reference pictures, the rate control and the HRD
 * model. If the hardware's output is refused, the frame is dropped as by
 * h264enc_abort_frame(): the stream state stays as before it was planned.
 *
 * Safety: @ctx must be null or an initialized context, @fb null or readable,
 * @stream null or readable for @stream_len bytes, @nal_sizes null or readable
 * for @num_nals entries and @status null or writable, each used by no other
 * call meanwhile.
 *
 * Context: Any context, hard IRQ included: it does not sleep, allocate or take
 * locks. The caller serializes it with every other call on @ctx; calls on
 * distinct contexts may run concurrently.
 *
 * Return: 0, or a negative errno: -EINVAL for a null pointer, an uninitialized
 * context or more than 1024 NAL units, -EBUSY if no frame is planned, and for
 * output that disagrees with the plan -EPROTO, -EBADMSG, -ENODATA or
 * -EOVERFLOW.
 */
int h264enc_complete_frame(struct h264enc_ctx *ctx,
			   const struct h264enc_hw_feedback *fb,
			   const __u8 *stream, size_t stream_len,
			   const __u32 *nal_sizes, __u32 num_nals,
			   struct h264enc_frame_status *status);

/**
 * h264enc_complete_skipped() - Completes the planned frame as the skipped
 * picture that h264enc_replan_frame() chose.
 * @ctx: a context whose last replan returned %H264ENC_REPLAN_SKIP.
 * @buf: where the access unit goes: the start of the CAPTURE buffer.
 * @len: bytes of @buf.
 * @status: filled on success with what the driver reports for the frame.
 *
 * Writes the whole access unit again (the headers, then one slice of P_Skip
 * macroblocks) and moves the stream state on as h264enc_complete_frame() does.
 * The picture is a copy of the plan's ``ref_slot``: the driver copies that
 * reconstruction to ``rec_slot``. When the access unit does not fit @buf, the
 * frame is dropped as by h264enc_abort_frame(); a refused argument leaves it
 * planned.
 *
 * Safety: @ctx must be null or an initialized context, @buf null or writable
 * for @len bytes and @status null or writable, each used by no other call
 * meanwhile.
 *
 * Context: Any context, hard IRQ included: it does not sleep, allocate or take
 * locks. The caller serializes it with every other call on @ctx; calls on
 * distinct contexts may run concurrently.
 *
 * Return: The bytes written, without the filler of ``status->filler_bytes``, or
 * a negative errno: -EINVAL for a null pointer or an uninitialized context,
 * -EBUSY if no frame is planned as a skipped picture, -ENOSPC if @buf cannot
 * hold the access unit.
 */
int h264enc_complete_skipped(struct h264enc_ctx *ctx, __u8 *buf, size_t len,
			     struct h264enc_frame_status *status);

/**
 * h264enc_abort_frame() - Drops the planned frame after a hardware error or a
 * timeout.
 * @ctx: a context with a planned frame.
 *
 * The stream state stays as before the frame was planned; the frame counts
 * among the errors of h264enc_get_stats().
 *
 * Safety: @ctx must be null or an initialized context used by no other call
 * meanwhile.
 *
 * Context: Any context, hard IRQ included: it does not sleep, allocate or take
 * locks. hantro calls it from device_run, its interrupt handler and its
 * watchdog. The caller serializes it with every other call on @ctx; calls on
 * distinct contexts may run concurrently.
 *
 * Return: 0, or a negative errno: -EINVAL for a null pointer or an
 * uninitialized context, -EBUSY if no frame is planned.
 */
int h264enc_abort_frame(struct h264enc_ctx *ctx);

/**
 * h264enc_set_bitrate() - Changes the bit rate of a stream with HRD parameters
 * (CBR or VBR).
 * @ctx: an initialized context with no frame planned.
 * @bitrate: the new target bit rate, bits/s.
 * @max_bitrate: the new peak bit rate, bits/s (VBR; CBR uses @bitrate).
 *
 * The next picture is an IDR picture whose SPS carries the new HRD parameters.
 *
 * Safety: @ctx must be null or an initialized context used by no other call
 * meanwhile.
 *
 * Context: Any context, hard IRQ included: it does not sleep, allocate or take
 * locks. The caller serializes it with every other call on @ctx; calls on
 * distinct contexts may run concurrently.
 *
 * Return: 0, or a negative errno: -EINVAL for a null pointer, an uninitialized
 * context, a stream without HRD parameters or a bit rate the HRD cannot signal,
 * -EBUSY if a frame is planned.
 */
int h264enc_set_bitrate(struct h264enc_ctx *ctx, __u32 bitrate,
			__u32 max_bitrate);

/**
 * h264enc_num_rec_slots() - Returns the number of reconstruction buffers the
 * driver must provide.
 * @ctx: an initialized context.
 *
 * The plans name these buffers by slot, from 0 to the number minus 1.
 *
 * Safety: @ctx must be null or an initialized context used by no other call
 * meanwhile.
 *
 * Context: Any context, hard IRQ included: it does not sleep, allocate or take
 * locks. It only reads @ctx, but takes it exclusively like every call on
 * a context: the caller serializes it with every other call on @ctx; calls on
 * distinct contexts may run concurrently.
 *
 * Return: The number of buffers (at most 17), or -EINVAL for a null pointer or
 * an uninitialized context.
 */
int h264enc_num_rec_slots(struct h264enc_ctx *ctx);

/**
 * h264enc_slices_per_picture() - Returns the number of slices per picture the
 * hardware is expected to write.
 * @ctx: an initialized context.
 *
 * Safety: @ctx must be null or an initialized context used by no other call
 * meanwhile.
 *
 * Context: Any context, hard IRQ included: it does not sleep, allocate or take
 * locks. It only reads @ctx, but takes it exclusively like every call on
 * a context: the caller serializes it with every other call on @ctx; calls on
 * distinct contexts may run concurrently.
 *
 * Return: The number of slices (at least 1), or -EINVAL for a null pointer or
 * an uninitialized context.
 */
int h264enc_slices_per_picture(struct h264enc_ctx *ctx);

/**
 * h264enc_get_stats() - Copies the running totals of a context into @stats.
 * @ctx: an initialized context.
 * @stats: filled with the totals on success.
 *
 * Safety: @ctx must be null or an initialized context and @stats null or
 * writable, each used by no other call meanwhile.
 *
 * Context: Any context, hard IRQ included: it does not sleep, allocate or take
 * locks. It only reads @ctx, but takes it exclusively like every call on
 * a context: the caller serializes it with every other call on @ctx; calls on
 * distinct contexts may run concurrently.
 *
 * Return: 0, or -EINVAL for a null pointer or an uninitialized context.
 */
int h264enc_get_stats(struct h264enc_ctx *ctx, struct h264enc_stats *stats);

/**
 * h264enc_get_dpb_entry() - Copies the @index-th reference picture of the DPB
 * into @entry.
 * @ctx: an initialized context.
 * @index: 0 for the first; the entries end at the first index that returns
 * -ENOENT, at most %H264ENC_MAX_DPB.
 * @entry: filled with the picture on success.
 *
 * The DPB is the one after the marking of the last completed frame: the
 * pictures a client may name as the reference of the next ones.
 *
 * Safety: @ctx must be null or an initialized context and @entry null or
 * writable, each used by no other call meanwhile.
 *
 * Context: Any context, hard IRQ included: it does not sleep, allocate or take
 * locks. It only reads @ctx, but takes it exclusively like every call on
 * a context: the caller serializes it with every other call on @ctx; calls on
 * distinct contexts may run concurrently.
 *
 * Return: 0, or a negative errno: -EINVAL for a null pointer or an
 * uninitialized context, -ENOENT when the DPB holds no more pictures.
 */
int h264enc_get_dpb_entry(struct h264enc_ctx *ctx, __u32 index,
			  struct h264enc_dpb_entry *entry);

/**
 * h264enc_write_filler() - Writes a filler data NAL unit of exactly @size bytes
 * into @buf.
 * @buf: where to write, usually right after the access unit.
 * @len: bytes of @buf.
 * @size: bytes of the NAL unit, start code included, at least 6: the
 * &h264enc_frame_status.filler_bytes of a completed frame.
 *
 * The NAL unit is a start code, the NAL header of filler data, 0xff bytes and
 * the stop bit.
 *
 * Safety: @buf must be null or writable for @len bytes and used by no other
 * call meanwhile.
 *
 * Context: Any context, hard IRQ included: it does not sleep, allocate or take
 * locks. It uses no context and no state, so it may run concurrently with any
 * call.
 *
 * Return: @size, or a negative errno: -EINVAL for a null @buf or a @size under
 * 6, -ENOSPC if @len is less than @size.
 */
int h264enc_write_filler(__u8 *buf, size_t len, __u32 size);

/**
 * h264enc_cabac_init_states() - Writes the initial CABAC context states of a
 * slice into @states (9.3.1.1).
 * @intra: true for the states of I slices, false for those of P slices.
 * @cabac_init_idc: cabac_init_idc of P slices, 0 to 2.
 * @slice_qp: SliceQP_Y, 0 to 51.
 * @states: the table to fill, one byte per ctxIdx 0 to 459.
 * @len: bytes of @states, at least %H264ENC_CABAC_CONTEXTS.
 *
 * Each byte is ``pStateIdx << 1 | valMPS``, the form of hardware context
 * tables.
 *
 * Safety: @states must be null or writable for @len bytes and used by no other
 * call meanwhile.
 *
 * Context: Any context, hard IRQ included: it does not sleep, allocate or take
 * locks. It uses no context and no state, so it may run concurrently with any
 * call. hantro calls it when streaming starts.
 *
 * Return: 0, or -EINVAL for a null @states, an argument out of range or a @len
 * under %H264ENC_CABAC_CONTEXTS.
 */
int h264enc_cabac_init_states(bool intra, __u8 cabac_init_idc, __u8 slice_qp,
			      __u8 *states, size_t len);

#endif  /* _MEDIA_H264ENC_H */
