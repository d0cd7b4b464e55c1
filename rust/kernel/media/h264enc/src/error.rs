// SPDX-License-Identifier: GPL-2.0-only
//! Errors of the core and their errno values for the C API.

/// Everything that can go wrong in the core.
///
/// Each variant maps to one negative errno through [`Error::to_errno`]; the C
/// driver logs the variant name from [`Error::name`] so a failure says where it
/// came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Error {
    /// A caller buffer is too small for what must be written.
    NoSpace,
    /// Input data ended before the syntax element being read.
    Truncated,
    /// A configuration or per-frame parameter is out of range.
    InvalidParam,
    /// A value read from hardware output violates the syntax of the standard.
    InvalidSyntax,
    /// A slice header field written by the hardware disagrees with the plan.
    PlanMismatch,
    /// The NAL size table disagrees with the stream the hardware wrote.
    NalTableMismatch,
    /// A named reference picture is not in the DPB.
    NoReference,
    /// The call came in the wrong order (for example complete before plan).
    BadState,
    /// An arithmetic result would not fit its type.
    Overflow,
}

impl Error {
    /// Returns the negative errno the C API reports for this error.
    pub const fn to_errno(self) -> i32 {
        const EINVAL: i32 = 22;
        const ENOSPC: i32 = 28;
        const ENODATA: i32 = 61;
        const EBADMSG: i32 = 74;
        const EOVERFLOW: i32 = 75;
        const EPROTO: i32 = 71;
        const ENOENT: i32 = 2;
        const EBUSY: i32 = 16;
        match self {
            Error::NoSpace => -ENOSPC,
            Error::Truncated => -ENODATA,
            Error::InvalidParam => -EINVAL,
            Error::InvalidSyntax => -EBADMSG,
            Error::PlanMismatch => -EPROTO,
            Error::NalTableMismatch => -EPROTO,
            Error::NoReference => -ENOENT,
            Error::BadState => -EBUSY,
            Error::Overflow => -EOVERFLOW,
        }
    }

    /// Returns a short, stable name of the error for logs.
    pub const fn name(self) -> &'static str {
        match self {
            Error::NoSpace => "no space",
            Error::Truncated => "truncated",
            Error::InvalidParam => "invalid parameter",
            Error::InvalidSyntax => "invalid syntax",
            Error::PlanMismatch => "plan mismatch",
            Error::NalTableMismatch => "NAL table mismatch",
            Error::NoReference => "no reference",
            Error::BadState => "bad state",
            Error::Overflow => "overflow",
        }
    }
}

/// The result type of the core.
pub type Result<T = ()> = core::result::Result<T, Error>;
