//! Run-time CPU dispatch: hot loops compiled a second time for AVX2 and
//! chosen when the processor has it. The code is the same portable Rust
//! (integer arithmetic), so results are identical on every machine; tests
//! compare each fast path with its plain version.

/// Defines `fn $name(args) -> ret` that runs `$body(args)` compiled with AVX2
/// enabled when the CPU supports it, else the portable build of `$body`.
/// `$body` should be `#[inline(always)]` so it is compiled into both.
macro_rules! avx2_dispatch {
    ($(#[$m:meta])* $vis:vis fn $name:ident($($a:ident: $t:ty),* $(,)?) -> $r:ty => $body:path) => {
        $(#[$m])*
        $vis fn $name($($a: $t),*) -> $r {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx2")]
                fn avx2($($a: $t),*) -> $r {
                    $body($($a),*)
                }
                if std::is_x86_feature_detected!("avx2") {
                    // SAFETY: the CPU supports AVX2, checked just above.
                    return unsafe { avx2($($a),*) };
                }
            }
            $body($($a),*)
        }
    };
}

pub(crate) use avx2_dispatch;
