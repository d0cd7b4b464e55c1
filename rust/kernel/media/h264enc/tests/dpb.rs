//! DPB, reference lists and marking against worked examples of clauses 8.2.4 and 8.2.5.

use h264enc::dpb::{Dpb, ListModification, RefPic, MAX_LIST};

fn pic(frame_num: u32, decode_index: u64, slot: u32) -> RefPic {
    RefPic {
        in_use: true,
        frame_num,
        decode_index,
        slot,
        timestamp: decode_index * 1000,
        ..RefPic::default()
    }
}

fn list(d: &Dpb, curr: u32) -> Vec<u32> {
    let mut l = [0u8; MAX_LIST];
    let n = d.p_list(curr, &mut l);
    l[..n]
        .iter()
        .map(|&i| d.get(i as usize).unwrap().frame_num)
        .collect()
}

/// The decoder side of 8.2.4.3.1: which PicNum a modification command selects.
fn decoder_pic_num(m: ListModification, curr_pic_num: i64, max_pic_num: i64) -> i64 {
    let abs = i64::from(m.value) + 1;
    let mut no_wrap = if m.idc == 0 {
        curr_pic_num - abs
    } else {
        curr_pic_num + abs
    };
    if no_wrap < 0 {
        no_wrap += max_pic_num;
    } else if no_wrap >= max_pic_num {
        no_wrap -= max_pic_num;
    }
    if no_wrap > curr_pic_num {
        no_wrap - max_pic_num
    } else {
        no_wrap
    }
}

#[test]
fn sliding_window_drops_the_oldest_short_term_picture() {
    let mut d = Dpb::new(2, 4).unwrap();
    d.mark(pic(0, 0, 0), true, false).unwrap();
    d.mark(pic(1, 1, 1), false, false).unwrap();
    d.mark(pic(2, 2, 2), false, false).unwrap();
    assert_eq!(list(&d, 3), vec![2, 1]);
    assert!(!d.slot_in_use(0) && d.slot_in_use(1) && d.slot_in_use(2));
}

#[test]
fn p_list_orders_by_frame_num_wrap_across_the_wrap() {
    // MaxFrameNum 16: pictures 14, 15, 0 seen from frame_num 1 have
    // FrameNumWrap -2, -1, 0, so descending PicNum is 0, 15, 14 (8-27, 8.2.4.2.1).
    let mut d = Dpb::new(3, 4).unwrap();
    d.mark(pic(14, 0, 0), false, false).unwrap();
    d.mark(pic(15, 1, 1), false, false).unwrap();
    d.mark(pic(0, 2, 2), false, false).unwrap();
    assert_eq!(list(&d, 1), vec![0, 15, 14]);
    // The one command putting frame 14 first, replayed as a decoder would.
    let target = (0..16)
        .find(|&i| d.get(i).is_some_and(|p| p.frame_num == 14))
        .unwrap();
    let m = d.modification_for(target, 1).unwrap().unwrap();
    assert_eq!(m.idc, 0);
    assert_eq!(decoder_pic_num(m, 1, 16), -2);
    // The default first picture needs no command.
    let first = (0..16)
        .find(|&i| d.get(i).is_some_and(|p| p.frame_num == 0))
        .unwrap();
    assert_eq!(d.modification_for(first, 1).unwrap(), None);
}

#[test]
fn long_term_pictures_follow_short_term_ones_and_survive_the_window() {
    let mut d = Dpb::new(2, 4).unwrap();
    d.mark(pic(0, 0, 0), true, true).unwrap();
    for (i, fnum) in [1u32, 2, 3, 4].iter().enumerate() {
        d.mark(pic(*fnum, i as u64 + 1, (i as u32 % 2) + 1), false, false)
            .unwrap();
        // One short-term plus the long-term one: the window never takes the IDR.
        assert_eq!(d.len(), 2);
        assert_eq!(list(&d, fnum + 1), vec![*fnum, 0]);
    }
    let lt = d.long_term().unwrap();
    let m = d.modification_for(lt, 5).unwrap().unwrap();
    assert_eq!(m, ListModification { idc: 2, value: 0 });
}

#[test]
fn an_idr_empties_the_dpb_and_mmco6_replaces_the_long_term_picture() {
    let mut d = Dpb::new(3, 4).unwrap();
    d.mark(pic(0, 0, 0), true, true).unwrap();
    d.mark(pic(1, 1, 1), false, false).unwrap();
    d.mark(pic(2, 2, 2), false, true).unwrap();
    assert_eq!(d.len(), 2, "the new long-term picture replaced the old one");
    assert_eq!(d.get(d.long_term().unwrap()).unwrap().frame_num, 2);
    d.mark(pic(0, 3, 3), true, false).unwrap();
    assert_eq!(d.len(), 1);
    assert_eq!(d.long_term(), None);
    // Marking long-term without long-term indices (no LT on the IDR) is refused.
    assert!(d.mark(pic(1, 4, 0), false, true).is_err());
}

#[test]
fn temporal_layers_find_their_reference() {
    let mut d = Dpb::new(2, 4).unwrap();
    d.mark(
        RefPic {
            temporal_id: 0,
            ..pic(0, 0, 0)
        },
        true,
        false,
    )
    .unwrap();
    d.mark(
        RefPic {
            temporal_id: 1,
            ..pic(1, 2, 1)
        },
        false,
        false,
    )
    .unwrap();
    let t0 = d.latest_below(0).unwrap();
    assert_eq!(d.get(t0).unwrap().frame_num, 0);
    let below2 = d.latest_below(2).unwrap();
    assert_eq!(d.get(below2).unwrap().frame_num, 1);
    assert_eq!(
        d.by_timestamp(2000).map(|i| d.get(i).unwrap().frame_num),
        Some(1)
    );
    assert_eq!(d.by_timestamp(7), None);
}

#[test]
fn bad_parameters_are_refused() {
    assert!(Dpb::new(0, 4).is_err());
    assert!(Dpb::new(17, 4).is_err());
    assert!(Dpb::new(1, 3).is_err());
    assert!(Dpb::new(1, 17).is_err());
}
