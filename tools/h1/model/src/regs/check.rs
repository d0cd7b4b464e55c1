//! What the C driver's register map must say of each constant of the model,
//! the claims [`super::c_header`] checks.

/// What the C header must say of a constant of the model.
#[derive(Clone, Copy, Debug)]
pub enum Check {
    /// The C expression (an offset, a bit, a mask) has the constant's value.
    Is(&'static str),
    /// The constant is the shift of the field macro `F(x)`: `F(1)` is `1 << shift`.
    Shift(&'static str),
    /// The constant is the lowest bit of the C expression's value.
    LowBit(&'static str),
    /// The constant, a value of a field at the given shift, is the C expression.
    ValueAt(&'static str, u32),
    /// The constant is the mask of the field macro `F(x)`: `F(~0)` is the mask.
    Mask(&'static str),
    /// The constant is the mask of a field whose macro `F(x)` does not mask
    /// (`((x) << n)`, so the header gives no width): only its lowest bit is
    /// checked, and that `F` really does not mask.
    Unmasked(&'static str),
    /// Not in the C header, for the reason given.
    Model(&'static str),
}
