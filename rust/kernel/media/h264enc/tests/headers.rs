//! SPS, PPS and SEI the core writes, read back by an independent parser (h264-reader).

use h264_reader::nal::pps::PicParameterSet;
use h264_reader::nal::sps::SeqParameterSet;
use h264_reader::rbsp::BitReader;
use h264enc::bitstream::emulation::unescape;
use h264enc::pps::PicParams;
use h264enc::sps::{Colour, Crop, Hrd, SeqParams};

fn sps(profile_idc: u8) -> SeqParams {
    SeqParams {
        profile_idc,
        constraint_flags: if profile_idc == 66 { 0xc0 } else { 0 },
        level_idc: 31,
        sps_id: 0,
        log2_max_frame_num_minus4: 12,
        pic_order_cnt_type: 0,
        log2_max_poc_lsb_minus4: 6,
        max_num_ref_frames: 3,
        gaps_in_frame_num_allowed: false,
        width_mbs: 80,
        height_mbs: 45,
        crop: Crop {
            right: 0,
            bottom: 8,
        },
        num_units_in_tick: 1001,
        time_scale: 60000,
        colour: Some(Colour {
            full_range: false,
            primaries: 1,
            transfer: 1,
            matrix: 1,
        }),
        nal_hrd: Some(Hrd::new(2_000_000, 3_000_000, true).unwrap()),
        max_dec_frame_buffering: Some(3),
    }
}

fn rbsp_of(nal: &[u8]) -> Vec<u8> {
    assert_eq!(&nal[..4], &[0, 0, 0, 1]);
    let mut out = vec![0u8; nal.len()];
    let n = unescape(&nal[5..], &mut out).unwrap();
    out.truncate(n);
    out
}

#[test]
fn sps_round_trips_through_h264_reader() {
    for profile in [66u8, 77, 100] {
        let s = sps(profile);
        let mut buf = [0u8; 256];
        let n = s.write_nal(&mut buf).unwrap();
        assert_eq!(buf[4] & 0x1f, 7);
        let parsed = SeqParameterSet::from_bits(BitReader::new(&rbsp_of(&buf[..n])[..])).unwrap();
        assert_eq!(parsed.profile_idc, profile.into());
        assert_eq!(parsed.level_idc, 31);
        assert_eq!(parsed.log2_max_frame_num(), 16);
        assert_eq!(parsed.max_num_ref_frames, 3);
        assert_eq!(parsed.pic_width_in_mbs_minus1, 79);
        assert_eq!(parsed.pic_height_in_map_units_minus1, 44);
        // 1280x720 from 1280x720+8 lines of cropping.
        assert_eq!(parsed.pixel_dimensions().unwrap(), (1280, 712));
        let vui = parsed.vui_parameters.expect("VUI");
        let t = vui.timing_info.expect("timing");
        assert_eq!(
            (t.num_units_in_tick, t.time_scale, t.fixed_frame_rate_flag),
            (1001, 60000, true)
        );
        let hrd = vui.nal_hrd_parameters.expect("NAL HRD");
        let cpb = &hrd.cpb_specs[0];
        let rate = (u64::from(cpb.bit_rate_value_minus1) + 1) << (6 + hrd.bit_rate_scale);
        let size = (u64::from(cpb.cpb_size_value_minus1) + 1) << (4 + hrd.cpb_size_scale);
        assert_eq!((rate, size, cpb.cbr_flag), (2_000_000, 3_000_000, true));
        let vs = vui.video_signal_type.expect("video signal type");
        let cd = vs.colour_description.expect("colour description");
        assert_eq!(
            (
                cd.colour_primaries,
                cd.transfer_characteristics,
                cd.matrix_coefficients
            ),
            (1, 1, 1)
        );
        let br = vui.bitstream_restrictions.expect("bitstream restriction");
        assert_eq!(
            (br.max_num_reorder_frames, br.max_dec_frame_buffering),
            (0, 3)
        );
    }
}

#[test]
fn hrd_values_are_the_requested_ones_to_the_syntax_precision() {
    for (rate, size) in [
        (64_000u32, 64_000u32),
        (299_999, 500_000),
        (20_000_000, 25_000_000),
        (u32::MAX, u32::MAX),
    ] {
        let h = Hrd::new(rate, size, false).unwrap();
        assert!(
            h.bit_rate() <= u64::from(rate)
                && u64::from(rate) - h.bit_rate() < 64 << h.bit_rate_scale,
            "{rate}"
        );
        assert!(
            h.cpb_size() <= u64::from(size)
                && u64::from(size) - h.cpb_size() < 16 << h.cpb_size_scale,
            "{size}"
        );
    }
    assert!(Hrd::new(10, 1000, true).is_err());
}

#[test]
fn pps_round_trips_through_h264_reader() {
    let s = sps(100);
    let mut buf = [0u8; 256];
    let n = s.write_nal(&mut buf).unwrap();
    let parsed_sps = SeqParameterSet::from_bits(BitReader::new(&rbsp_of(&buf[..n])[..])).unwrap();
    let mut ctx = h264_reader::Context::default();
    ctx.put_seq_param_set(parsed_sps);
    for (cabac, t8, cip, cqo) in [
        (false, false, false, 0i8),
        (true, true, true, -3),
        (true, false, false, 12),
    ] {
        let p = PicParams {
            pps_id: 0,
            sps_id: 0,
            entropy_coding_mode_flag: cabac,
            pic_init_qp_minus26: -4,
            chroma_qp_index_offset: cqo,
            constrained_intra_pred_flag: cip,
            transform_8x8_mode_flag: t8,
        };
        let n = p.write_nal(&mut buf).unwrap();
        assert_eq!(buf[4] & 0x1f, 8);
        let pps =
            PicParameterSet::from_bits(&ctx, BitReader::new(&rbsp_of(&buf[..n])[..])).unwrap();
        assert_eq!(pps.entropy_coding_mode_flag, cabac);
        assert_eq!(pps.pic_init_qp_minus26, -4);
        assert_eq!(pps.chroma_qp_index_offset, i32::from(cqo));
        assert!(pps.deblocking_filter_control_present_flag);
        assert_eq!(pps.constrained_intra_pred_flag, cip);
        assert_eq!(
            pps.extension
                .map(|e| e.transform_8x8_mode_flag)
                .unwrap_or(false),
            t8
        );
    }
    let bad = PicParams {
        pps_id: 0,
        sps_id: 0,
        entropy_coding_mode_flag: false,
        pic_init_qp_minus26: 30,
        chroma_qp_index_offset: 0,
        constrained_intra_pred_flag: false,
        transform_8x8_mode_flag: false,
    };
    assert!(bad.write_nal(&mut buf).is_err());
}

#[test]
fn writers_report_a_full_buffer_instead_of_overrunning() {
    let s = sps(77);
    let mut small = [0u8; 12];
    assert_eq!(s.write_nal(&mut small), Err(h264enc::Error::NoSpace));
    assert_eq!(
        h264enc::sei::write_filler(&mut small, 20),
        Err(h264enc::Error::NoSpace)
    );
    let mut buf = [0u8; 20];
    assert_eq!(h264enc::sei::write_filler(&mut buf, 20), Ok(20));
    assert_eq!(&buf[..5], &[0, 0, 0, 1, 12]);
    assert!(buf[5..19].iter().all(|&b| b == 0xff) && buf[19] == 0x80);
}
