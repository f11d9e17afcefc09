package chunkarray

// Named elementwise functions (NumPy's ufunc names) over Array.Unary and Array.Binary, and the
// elementwise calls with parameters (IsClose, AllClose, NanToNum, Frexp, Modf, Divmod). All are
// lazy and fuse with the elementwise work around them into one pass over each block.

/*
#include "shim.h"
*/
import "C"

import "unsafe"

// Negative is np.negative: -a.
func (a *Array) Negative() (*Array, error) { return a.Unary(OpNeg) }

// Positive is np.positive: +a (a copy; bool is refused as NumPy does).
func (a *Array) Positive() (*Array, error) { return a.Unary(OpPositive) }

// Abs is np.absolute (the magnitude for complex).
func (a *Array) Abs() (*Array, error) { return a.Unary(OpAbs) }

// Sign is np.sign.
func (a *Array) Sign() (*Array, error) { return a.Unary(OpSign) }

// Sqrt is np.sqrt.
func (a *Array) Sqrt() (*Array, error) { return a.Unary(OpSqrt) }

// Exp is np.exp.
func (a *Array) Exp() (*Array, error) { return a.Unary(OpExp) }

// Exp2 is np.exp2: 2**a.
func (a *Array) Exp2() (*Array, error) { return a.Unary(OpExp2) }

// Expm1 is np.expm1: exp(a) - 1.
func (a *Array) Expm1() (*Array, error) { return a.Unary(OpExpm1) }

// Log is np.log.
func (a *Array) Log() (*Array, error) { return a.Unary(OpLog) }

// Log2 is np.log2.
func (a *Array) Log2() (*Array, error) { return a.Unary(OpLog2) }

// Log10 is np.log10.
func (a *Array) Log10() (*Array, error) { return a.Unary(OpLog10) }

// Log1p is np.log1p: log(1 + a).
func (a *Array) Log1p() (*Array, error) { return a.Unary(OpLog1p) }

// Cbrt is np.cbrt: the real cube root.
func (a *Array) Cbrt() (*Array, error) { return a.Unary(OpCbrt) }

// Square is np.square.
func (a *Array) Square() (*Array, error) { return a.Unary(OpSquare) }

// Reciprocal is np.reciprocal: 1 / a (integers: the float quotient truncated, as NumPy).
func (a *Array) Reciprocal() (*Array, error) { return a.Unary(OpReciprocal) }

// Sin is np.sin.
func (a *Array) Sin() (*Array, error) { return a.Unary(OpSin) }

// Cos is np.cos.
func (a *Array) Cos() (*Array, error) { return a.Unary(OpCos) }

// Tan is np.tan.
func (a *Array) Tan() (*Array, error) { return a.Unary(OpTan) }

// Arcsin is np.arcsin.
func (a *Array) Arcsin() (*Array, error) { return a.Unary(OpArcsin) }

// Arccos is np.arccos.
func (a *Array) Arccos() (*Array, error) { return a.Unary(OpArccos) }

// Arctan is np.arctan.
func (a *Array) Arctan() (*Array, error) { return a.Unary(OpArctan) }

// Sinh is np.sinh.
func (a *Array) Sinh() (*Array, error) { return a.Unary(OpSinh) }

// Cosh is np.cosh.
func (a *Array) Cosh() (*Array, error) { return a.Unary(OpCosh) }

// Tanh is np.tanh.
func (a *Array) Tanh() (*Array, error) { return a.Unary(OpTanh) }

// Arcsinh is np.arcsinh.
func (a *Array) Arcsinh() (*Array, error) { return a.Unary(OpArcsinh) }

// Arccosh is np.arccosh.
func (a *Array) Arccosh() (*Array, error) { return a.Unary(OpArccosh) }

// Arctanh is np.arctanh.
func (a *Array) Arctanh() (*Array, error) { return a.Unary(OpArctanh) }

// Deg2rad is np.deg2rad: degrees to radians.
func (a *Array) Deg2rad() (*Array, error) { return a.Unary(OpDeg2rad) }

// Radians is np.radians: the same as Deg2rad.
func (a *Array) Radians() (*Array, error) { return a.Unary(OpDeg2rad) }

// Rad2deg is np.rad2deg: radians to degrees.
func (a *Array) Rad2deg() (*Array, error) { return a.Unary(OpRad2deg) }

// Degrees is np.degrees: the same as Rad2deg.
func (a *Array) Degrees() (*Array, error) { return a.Unary(OpRad2deg) }

// Sinc is np.sinc: sin(pi a) / (pi a), 1 at 0 (bool and integers give float64).
func (a *Array) Sinc() (*Array, error) { return a.Unary(OpSinc) }

// I0 is np.i0: the modified Bessel function of the first kind, order 0.
func (a *Array) I0() (*Array, error) { return a.Unary(OpI0) }

// Floor is np.floor.
func (a *Array) Floor() (*Array, error) { return a.Unary(OpFloor) }

// Ceil is np.ceil.
func (a *Array) Ceil() (*Array, error) { return a.Unary(OpCeil) }

// Trunc is np.trunc: rounds toward zero.
func (a *Array) Trunc() (*Array, error) { return a.Unary(OpTrunc) }

// Fix is np.fix: rounds toward zero (the same as Trunc).
func (a *Array) Fix() (*Array, error) { return a.Unary(OpTrunc) }

// Rint is np.rint: round half to even (integers give a float dtype, as NumPy).
func (a *Array) Rint() (*Array, error) { return a.Unary(OpRound) }

// Fabs is np.fabs: the absolute value as a float (complex refused).
func (a *Array) Fabs() (*Array, error) { return a.Unary(OpFabs) }

// Spacing is np.spacing: the distance to the next value away from zero.
func (a *Array) Spacing() (*Array, error) { return a.Unary(OpSpacing) }

// Signbit is np.signbit: true where the sign bit is set (also -0.0).
func (a *Array) Signbit() (*Array, error) { return a.Unary(OpSignbit) }

// IsNaN is np.isnan.
func (a *Array) IsNaN() (*Array, error) { return a.Unary(OpIsNan) }

// IsInf is np.isinf.
func (a *Array) IsInf() (*Array, error) { return a.Unary(OpIsInf) }

// IsFinite is np.isfinite.
func (a *Array) IsFinite() (*Array, error) { return a.Unary(OpIsFinite) }

// IsNegInf is np.isneginf.
func (a *Array) IsNegInf() (*Array, error) { return a.Unary(OpIsNeginf) }

// IsPosInf is np.isposinf.
func (a *Array) IsPosInf() (*Array, error) { return a.Unary(OpIsPosinf) }

// IsComplex is np.iscomplex: the imaginary part is not zero (false for real dtypes).
func (a *Array) IsComplex() (*Array, error) { return a.Unary(OpIsComplex) }

// IsReal is np.isreal: the imaginary part is zero (true for real dtypes).
func (a *Array) IsReal() (*Array, error) { return a.Unary(OpIsReal) }

// LogicalNot is np.logical_not.
func (a *Array) LogicalNot() (*Array, error) { return a.Unary(OpNot) }

// Invert is np.invert: bitwise not (logical not for bool).
func (a *Array) Invert() (*Array, error) { return a.Unary(OpInvert) }

// BitwiseNot is np.bitwise_not: the same as Invert.
func (a *Array) BitwiseNot() (*Array, error) { return a.Unary(OpInvert) }

// Conj is np.conjugate.
func (a *Array) Conj() (*Array, error) { return a.Unary(OpConj) }

// Real is np.real: the real part (the values themselves for real dtypes).
func (a *Array) Real() (*Array, error) { return a.Unary(OpReal) }

// Imag is np.imag: the imaginary part (zeros for real dtypes).
func (a *Array) Imag() (*Array, error) { return a.Unary(OpImag) }

// Angle is np.angle: the argument in radians.
func (a *Array) Angle() (*Array, error) { return a.Unary(OpAngle) }

// Power is np.power: a ** b with NumPy broadcasting.
func (a *Array) Power(b *Array) (*Array, error) { return a.Binary(OpPow, b) }

// FloatPower is np.float_power: the power in float64 (complex128 for complex operands).
func (a *Array) FloatPower(b *Array) (*Array, error) { return a.Binary(OpFloat_power, b) }

// FloorDivide is np.floor_divide: a // b.
func (a *Array) FloorDivide(b *Array) (*Array, error) { return a.Binary(OpFloorDiv, b) }

// Remainder is np.remainder: NumPy's % (the sign of the divisor).
func (a *Array) Remainder(b *Array) (*Array, error) { return a.Binary(OpMod, b) }

// Fmod is np.fmod: C's remainder (the sign of the dividend).
func (a *Array) Fmod(b *Array) (*Array, error) { return a.Binary(OpFmod, b) }

// Maximum is np.maximum (nan propagates).
func (a *Array) Maximum(b *Array) (*Array, error) { return a.Binary(OpMaximum, b) }

// Minimum is np.minimum (nan propagates).
func (a *Array) Minimum(b *Array) (*Array, error) { return a.Binary(OpMinimum, b) }

// Fmax is np.fmax: the maximum ignoring nan.
func (a *Array) Fmax(b *Array) (*Array, error) { return a.Binary(OpFmax, b) }

// Fmin is np.fmin: the minimum ignoring nan.
func (a *Array) Fmin(b *Array) (*Array, error) { return a.Binary(OpFmin, b) }

// Hypot is np.hypot: sqrt(a**2 + b**2) without overflow.
func (a *Array) Hypot(b *Array) (*Array, error) { return a.Binary(OpHypot, b) }

// Arctan2 is np.arctan2(a, b): the angle of the point (b, a).
func (a *Array) Arctan2(b *Array) (*Array, error) { return a.Binary(OpArctan2, b) }

// Copysign is np.copysign: the magnitude of a with the sign of b.
func (a *Array) Copysign(b *Array) (*Array, error) { return a.Binary(OpCopysign, b) }

// Ldexp is np.ldexp: a * 2**b (b an integer array).
func (a *Array) Ldexp(b *Array) (*Array, error) { return a.Binary(OpLdexp, b) }

// Logaddexp is np.logaddexp: log(exp(a) + exp(b)) without overflow.
func (a *Array) Logaddexp(b *Array) (*Array, error) { return a.Binary(OpLogaddexp, b) }

// Logaddexp2 is np.logaddexp2: log2(2**a + 2**b).
func (a *Array) Logaddexp2(b *Array) (*Array, error) { return a.Binary(OpLogaddexp2, b) }

// Nextafter is np.nextafter: the next float after a toward b.
func (a *Array) Nextafter(b *Array) (*Array, error) { return a.Binary(OpNextafter, b) }

// LeftShift is np.left_shift (shifts by the bit width or more give 0).
func (a *Array) LeftShift(b *Array) (*Array, error) { return a.Binary(OpLeft_shift, b) }

// RightShift is np.right_shift (arithmetic for signed types).
func (a *Array) RightShift(b *Array) (*Array, error) { return a.Binary(OpRight_shift, b) }

// BitwiseAnd is np.bitwise_and.
func (a *Array) BitwiseAnd(b *Array) (*Array, error) { return a.Binary(OpBitAnd, b) }

// BitwiseOr is np.bitwise_or.
func (a *Array) BitwiseOr(b *Array) (*Array, error) { return a.Binary(OpBitOr, b) }

// BitwiseXor is np.bitwise_xor.
func (a *Array) BitwiseXor(b *Array) (*Array, error) { return a.Binary(OpBitXor, b) }

// LogicalAnd is np.logical_and.
func (a *Array) LogicalAnd(b *Array) (*Array, error) { return a.Binary(OpAnd, b) }

// LogicalOr is np.logical_or.
func (a *Array) LogicalOr(b *Array) (*Array, error) { return a.Binary(OpOr, b) }

// LogicalXor is np.logical_xor.
func (a *Array) LogicalXor(b *Array) (*Array, error) { return a.Binary(OpXor, b) }

// Equal is np.equal.
func (a *Array) Equal(b *Array) (*Array, error) { return a.Binary(OpEq, b) }

// NotEqual is np.not_equal.
func (a *Array) NotEqual(b *Array) (*Array, error) { return a.Binary(OpNe, b) }

// Less is np.less.
func (a *Array) Less(b *Array) (*Array, error) { return a.Binary(OpLt, b) }

// LessEqual is np.less_equal.
func (a *Array) LessEqual(b *Array) (*Array, error) { return a.Binary(OpLe, b) }

// Greater is np.greater.
func (a *Array) Greater(b *Array) (*Array, error) { return a.Binary(OpGt, b) }

// GreaterEqual is np.greater_equal.
func (a *Array) GreaterEqual(b *Array) (*Array, error) { return a.Binary(OpGe, b) }

// Frexp is np.frexp: (mantissa, exponent) with a == mantissa * 2**exponent, the mantissa in
// [0.5, 1) in a's float dtype, the exponent int32.
func (a *Array) Frexp() (*Array, *Array, error) {
	m, err := a.Unary(OpFrexp_mantissa)
	if err != nil {
		return nil, nil, err
	}
	e, err := a.Unary(OpFrexp_exponent)
	if err != nil {
		m.Close()
		return nil, nil, err
	}
	return m, e, nil
}

// Modf is np.modf: (fractional part, integral part), both with a's sign.
func (a *Array) Modf() (*Array, *Array, error) {
	f, err := a.Unary(OpModf_fraction)
	if err != nil {
		return nil, nil, err
	}
	i, err := a.Unary(OpTrunc)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, i, nil
}

// Divmod is np.divmod: (a // b, a % b), NumPy's floor division and remainder.
func (a *Array) Divmod(b *Array) (*Array, *Array, error) {
	q, err := a.Binary(OpFloorDiv, b)
	if err != nil {
		return nil, nil, err
	}
	r, err := a.Binary(OpMod, b)
	if err != nil {
		q.Close()
		return nil, nil, err
	}
	return q, r, nil
}

// IsClose is np.isclose(a, b, rtol, atol, equal_nan): |a - b| <= atol + rtol * |b| where both are
// finite, a == b where one is not; nan against nan is true with equalNaN. A bool array of the
// broadcast shape (NumPy's defaults: rtol 1e-5, atol 1e-8). Errors: StatusInvalidArgument (shapes
// that do not broadcast), StatusType (string or time dtypes).
func (a *Array) IsClose(b *Array, rtol, atol float64, equalNaN bool) (*Array, error) {
	return newArray(func(o **C.ca_array_t) C.ca_status_t {
		return C.ca_array_isclose(o, a.h, b.h, C.double(rtol), C.double(atol), cbool(equalNaN))
	})
}

// AllClose is np.allclose as dask has it: a lazy 0-d bool array, IsClose(...).all().
func (a *Array) AllClose(b *Array, rtol, atol float64, equalNaN bool) (*Array, error) {
	c, err := a.IsClose(b, rtol, atol, equalNaN)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return c.Reduce(RedAll, nil, false)
}

// NanToNum is np.nan_to_num(a, nan=nan, posinf=*posinf, neginf=*neginf): nan, +inf and -inf
// replaced (a nil posinf/neginf: the dtype's largest / most negative finite value). Bool and
// integer arrays come back unchanged. Errors: StatusType (string or time dtypes),
// StatusUnsupported (complex with values other than the defaults).
func (a *Array) NanToNum(nan float64, posinf, neginf *float64) (*Array, error) {
	p := (*C.double)(C.malloc(16))
	defer C.free(unsafe.Pointer(p))
	vals := unsafe.Slice(p, 2)
	var pp, np *C.double
	if posinf != nil {
		vals[0] = C.double(*posinf)
		pp = &vals[0]
	}
	if neginf != nil {
		vals[1] = C.double(*neginf)
		np = &vals[1]
	}
	return newArray(func(o **C.ca_array_t) C.ca_status_t { return C.ca_array_nan_to_num(o, a.h, C.double(nan), pp, np) })
}
