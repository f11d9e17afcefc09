//! Named elementwise functions (NumPy's ufunc names) over [`Array::unary`] / [`Array::binary`], and
//! the elementwise calls with parameters: `isclose`, `allclose`, `nan_to_num`, `frexp`, `modf`,
//! `divmod`. Every one is lazy and fuses with the elementwise work around it into one pass.

use std::os::raw::c_int;
use std::ptr;

use crate::{lib, new_array, Array, BinaryOp, Reduction, Result, UnaryOp};

macro_rules! unary_fns {
    ($($name:ident => $op:ident, $doc:literal;)*) => {
        impl Array {
            $(
                #[doc = $doc]
                pub fn $name(&self) -> Result<Array> {
                    self.unary(UnaryOp::$op)
                }
            )*
        }
    };
}

macro_rules! binary_fns {
    ($($name:ident => $op:ident, $doc:literal;)*) => {
        impl Array {
            $(
                #[doc = $doc]
                pub fn $name(&self, other: &Array) -> Result<Array> {
                    self.binary(BinaryOp::$op, other)
                }
            )*
        }
    };
}

unary_fns! {
    negative => Neg, "`np.negative`: `-x`.";
    positive => Positive, "`np.positive`: `+x` (a copy; bool refused as NumPy does).";
    abs => Abs, "`np.absolute` (the magnitude for complex).";
    sign => Sign, "`np.sign`.";
    exp => Exp, "`np.exp`.";
    exp2 => Exp2, "`np.exp2`: `2**x`.";
    expm1 => Expm1, "`np.expm1`: `exp(x) - 1`.";
    log => Log, "`np.log`.";
    log2 => Log2, "`np.log2`.";
    log10 => Log10, "`np.log10`.";
    log1p => Log1p, "`np.log1p`: `log(1 + x)`.";
    cbrt => Cbrt, "`np.cbrt`: the real cube root.";
    square => Square, "`np.square`.";
    reciprocal => Reciprocal, "`np.reciprocal`: `1 / x` (integers: the float quotient truncated, as NumPy).";
    sin => Sin, "`np.sin`.";
    cos => Cos, "`np.cos`.";
    tan => Tan, "`np.tan`.";
    arcsin => Arcsin, "`np.arcsin`.";
    arccos => Arccos, "`np.arccos`.";
    arctan => Arctan, "`np.arctan`.";
    sinh => Sinh, "`np.sinh`.";
    cosh => Cosh, "`np.cosh`.";
    tanh => Tanh, "`np.tanh`.";
    arcsinh => Arcsinh, "`np.arcsinh`.";
    arccosh => Arccosh, "`np.arccosh`.";
    arctanh => Arctanh, "`np.arctanh`.";
    deg2rad => Deg2rad, "`np.deg2rad`: degrees to radians.";
    radians => Deg2rad, "`np.radians`: the same as `deg2rad`.";
    rad2deg => Rad2deg, "`np.rad2deg`: radians to degrees.";
    degrees => Rad2deg, "`np.degrees`: the same as `rad2deg`.";
    sinc => Sinc, "`np.sinc`: `sin(pi x) / (pi x)`, 1 at 0 (bool and integers give float64).";
    i0 => I0, "`np.i0`: the modified Bessel function of the first kind, order 0.";
    floor => Floor, "`np.floor`.";
    ceil => Ceil, "`np.ceil`.";
    trunc => Trunc, "`np.trunc`: rounds toward zero.";
    fix => Trunc, "`np.fix`: rounds toward zero (the same as `trunc`).";
    rint => Rint, "`np.rint`: round half to even (integers give a float dtype, as NumPy).";
    fabs => Fabs, "`np.fabs`: the absolute value as a float (complex refused).";
    spacing => Spacing, "`np.spacing`: the distance to the next value away from zero.";
    signbit => Signbit, "`np.signbit`: true where the sign bit is set (also for -0.0 and -nan).";
    isnan => IsNan, "`np.isnan`.";
    isinf => IsInf, "`np.isinf`.";
    isfinite => IsFinite, "`np.isfinite`.";
    isneginf => IsNegInf, "`np.isneginf`.";
    isposinf => IsPosInf, "`np.isposinf`.";
    iscomplex => IsComplex, "`np.iscomplex`: the imaginary part is not zero (false for real dtypes).";
    isreal => IsReal, "`np.isreal`: the imaginary part is zero (true for real dtypes).";
    logical_not => Not, "`np.logical_not`.";
    invert => Invert, "`np.invert`: bitwise not (logical not for bool).";
    bitwise_not => Invert, "`np.bitwise_not`: the same as `invert`.";
    conj => Conj, "`np.conjugate`.";
    real => Real, "`np.real`: the real part (the values themselves for real dtypes).";
    imag => Imag, "`np.imag`: the imaginary part (zeros for real dtypes).";
    angle => Angle, "`np.angle`: the argument in radians.";
}

binary_fns! {
    power => Pow, "`np.power`: `self ** other` with NumPy broadcasting.";
    float_power => FloatPower, "`np.float_power`: the power in float64 (complex128 for complex operands).";
    floor_divide => FloorDiv, "`np.floor_divide`: `self // other`.";
    remainder => Mod, "`np.remainder`: NumPy's `%` (the sign of the divisor).";
    fmod => Fmod, "`np.fmod`: C's remainder (the sign of the dividend).";
    maximum => Maximum, "`np.maximum` (nan propagates).";
    minimum => Minimum, "`np.minimum` (nan propagates).";
    fmax => Fmax, "`np.fmax`: the maximum ignoring nan.";
    fmin => Fmin, "`np.fmin`: the minimum ignoring nan.";
    hypot => Hypot, "`np.hypot`: `sqrt(self**2 + other**2)` without overflow.";
    arctan2 => Arctan2, "`np.arctan2(self, other)`: the angle of the point (other, self).";
    copysign => Copysign, "`np.copysign`: the magnitude of self with the sign of other.";
    ldexp => Ldexp, "`np.ldexp`: `self * 2**other` (other an integer array).";
    logaddexp => Logaddexp, "`np.logaddexp`: `log(exp(self) + exp(other))` without overflow.";
    logaddexp2 => Logaddexp2, "`np.logaddexp2`: `log2(2**self + 2**other)`.";
    nextafter => Nextafter, "`np.nextafter`: the next float after self toward other.";
    left_shift => LeftShift, "`np.left_shift` (shifts by the bit width or more give 0).";
    right_shift => RightShift, "`np.right_shift` (arithmetic for signed types).";
    bitwise_and => BitAnd, "`np.bitwise_and` (logical for bool).";
    bitwise_or => BitOr, "`np.bitwise_or`.";
    bitwise_xor => BitXor, "`np.bitwise_xor`.";
    logical_and => And, "`np.logical_and`.";
    logical_or => Or, "`np.logical_or`.";
    logical_xor => Xor, "`np.logical_xor`.";
    equal => Eq, "`np.equal`.";
    not_equal => Ne, "`np.not_equal`.";
    less => Lt, "`np.less`.";
    less_equal => Le, "`np.less_equal`.";
    greater => Gt, "`np.greater`.";
    greater_equal => Ge, "`np.greater_equal`.";
}

impl Array {
    /// `np.frexp`: (mantissa, exponent) with `self == mantissa * 2**exponent`, the mantissa in
    /// [0.5, 1) (self's float dtype), the exponent int32.
    pub fn frexp(&self) -> Result<(Array, Array)> {
        Ok((self.unary(UnaryOp::FrexpMantissa)?, self.unary(UnaryOp::FrexpExponent)?))
    }

    /// `np.modf`: (fractional part, integral part), both with self's sign.
    pub fn modf(&self) -> Result<(Array, Array)> {
        Ok((self.unary(UnaryOp::ModfFraction)?, self.unary(UnaryOp::Trunc)?))
    }

    /// `np.divmod`: (`self // other`, `self % other`), NumPy's floor division and remainder.
    pub fn divmod(&self, other: &Array) -> Result<(Array, Array)> {
        Ok((self.binary(BinaryOp::FloorDiv, other)?, self.binary(BinaryOp::Mod, other)?))
    }

    /// `np.isclose(self, other, rtol, atol, equal_nan)`: `|a - b| <= atol + rtol * |b|` where both
    /// are finite, `a == b` where one is not; nan against nan is true with `equal_nan`. A bool array
    /// of the broadcast shape (NumPy's defaults: rtol 1e-5, atol 1e-8).
    ///
    /// Errors: `InvalidArgument` (shapes that do not broadcast), `Type` (string or time dtypes).
    pub fn isclose(&self, other: &Array, rtol: f64, atol: f64, equal_nan: bool) -> Result<Array> {
        let l = lib()?;
        new_array(|h| unsafe { (l.ca_array_isclose)(h, self.h, other.h, rtol, atol, c_int::from(equal_nan)) })
    }

    /// `np.allclose` as dask: a lazy 0-d bool array, `isclose(...).all()`.
    pub fn allclose(&self, other: &Array, rtol: f64, atol: f64, equal_nan: bool) -> Result<Array> {
        self.isclose(other, rtol, atol, equal_nan)?.reduce(Reduction::All, &[], false, 0)
    }

    /// `np.nan_to_num(self, nan=nan, posinf=posinf, neginf=neginf)`: nan, +inf and -inf replaced
    /// (None: the dtype's largest / most negative finite value). Bool and integer arrays come back
    /// unchanged.
    ///
    /// Errors: `Type` (string or time dtypes), `Unsupported` (complex with values other than the
    /// defaults).
    pub fn nan_to_num(&self, nan: f64, posinf: Option<f64>, neginf: Option<f64>) -> Result<Array> {
        let l = lib()?;
        let pp = posinf.as_ref().map_or(ptr::null(), |v| v as *const f64);
        let np = neginf.as_ref().map_or(ptr::null(), |v| v as *const f64);
        new_array(|h| unsafe { (l.ca_array_nan_to_num)(h, self.h, nan, pp, np) })
    }
}
