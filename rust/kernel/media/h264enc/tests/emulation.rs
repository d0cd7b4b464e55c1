//! Emulation prevention against a plain model, over every 5-byte sequence of 00..04.

use h264enc::bitstream::emulation::{escape, escaped_len, unescape};

/// The plain model: scan the output for the forbidden three-byte patterns.
fn model_escape(rbsp: &[u8]) -> Vec<u8> {
    let mut out: Vec<u8> = Vec::new();
    for &b in rbsp {
        let n = out.len();
        if n >= 2 && out[n - 1] == 0 && out[n - 2] == 0 && b <= 3 {
            out.push(3);
        }
        out.push(b);
    }
    if out.last() == Some(&0) {
        out.push(3);
    }
    out
}

fn contains_forbidden(p: &[u8]) -> bool {
    p.windows(3).any(|w| w[0] == 0 && w[1] == 0 && w[2] <= 2)
}

#[test]
fn escape_matches_model_on_all_5_byte_sequences() {
    let mut checked = 0;
    for code in 0..5u32.pow(5) {
        let mut rbsp = [0u8; 5];
        let mut c = code;
        for b in rbsp.iter_mut() {
            *b = (c % 5) as u8;
            c /= 5;
        }
        let want = model_escape(&rbsp);
        let mut out = [0u8; 16];
        let n = escape(&rbsp, &mut out).unwrap();
        assert_eq!(&out[..n], &want[..], "rbsp {rbsp:02x?}");
        assert_eq!(escaped_len(&rbsp), n);
        assert!(
            !contains_forbidden(&out[..n]),
            "forbidden in {:02x?}",
            &out[..n]
        );
        let mut back = [0u8; 16];
        let m = unescape(&out[..n], &mut back).unwrap();
        if rbsp[4] != 0 {
            // Every real RBSP ends in rbsp_stop_one_bit, so it never ends in 0x00.
            assert_eq!(&back[..m], &rbsp[..]);
        } else {
            // Trailing zeros get a 0x03 that reads back as data unless it follows two zeros.
            assert!(back[..m] == rbsp[..] || back[..m] == [&rbsp[..], &[3]].concat());
        }
        checked += 1;
    }
    assert_eq!(checked, 3125);
}

#[test]
fn escape_reports_no_space() {
    let mut out = [0u8; 4];
    assert_eq!(
        escape(&[0, 0, 1, 0], &mut out),
        Err(h264enc::Error::NoSpace)
    );
}

#[test]
fn unescape_refuses_start_code_inside_payload() {
    let mut out = [0u8; 8];
    assert_eq!(
        unescape(&[5, 0, 0, 1, 7], &mut out),
        Err(h264enc::Error::InvalidSyntax)
    );
}
