package chunkarray

// Issue 16's functions through the Go binding (named elementwise functions, IsClose, NanToNum,
// Median/Quantile/Percentile, the routines of routines.h) against plain loops and NumPy's values
// (written down from NumPy 1.24 / dask 2022.12), on ragged chunks, empty, 0-d and size-1 arrays
// and several dtypes.

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"
)

func sameF(a, b float64) bool {
	return (math.IsNaN(a) && math.IsNaN(b)) || a == b || math.Abs(a-b) <= 1e-12*(1+math.Abs(b))
}

func closeF(t *testing.T, what string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %v, want %v", what, got, want)
	}
	for i := range got {
		if !sameF(got[i], want[i]) {
			t.Fatalf("%s[%d]: %v, want %v (%v vs %v)", what, i, got[i], want[i], got, want)
		}
	}
}

func eq(t *testing.T, what string, got, want interface{}) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%s: %v, want %v", what, got, want)
	}
}

func status(t *testing.T, err error, want Status) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || e.Status != want {
		t.Fatalf("error %v, want status %v", err, want)
	}
}

func TestNamedUnaryFunctions(t *testing.T) {
	ctx := ctxT(t, 2)
	v := data(13)
	x := mk(FromFloat64s(v, []int64{13}, []int64{5}))
	spacing := func(a float64) float64 {
		d := math.Nextafter(math.Abs(a), math.Inf(1)) - math.Abs(a)
		if math.Signbit(a) {
			return -d
		}
		return d
	}
	cases := []struct {
		name string
		f    func() (*Array, error)
		ref  func(float64) float64
	}{
		{"Cbrt", x.Cbrt, math.Cbrt},
		{"Exp2", x.Exp2, math.Exp2},
		{"Expm1", x.Expm1, math.Expm1},
		{"Log1p", func() (*Array, error) { return mk(x.Fabs()).Log1p() }, func(a float64) float64 { return math.Log1p(math.Abs(a)) }},
		{"Fabs", x.Fabs, math.Abs},
		{"Trunc", x.Trunc, math.Trunc},
		{"Fix", x.Fix, math.Trunc},
		{"Deg2rad", x.Deg2rad, func(a float64) float64 { return a * math.Pi / 180 }},
		{"Radians", x.Radians, func(a float64) float64 { return a * math.Pi / 180 }},
		{"Rad2deg", x.Rad2deg, func(a float64) float64 { return a * 180 / math.Pi }},
		{"Degrees", x.Degrees, func(a float64) float64 { return a * 180 / math.Pi }},
		{"Reciprocal", x.Reciprocal, func(a float64) float64 { return 1 / a }},
		{"Positive", x.Positive, func(a float64) float64 { return a }},
		{"Negative", x.Negative, func(a float64) float64 { return -a }},
		{"Tan", x.Tan, math.Tan},
		{"Arctan", x.Arctan, math.Atan},
		{"Sinh", x.Sinh, math.Sinh},
		{"Arcsinh", x.Arcsinh, math.Asinh},
		{"Floor", x.Floor, math.Floor},
		{"Ceil", x.Ceil, math.Ceil},
		{"Rint", x.Rint, math.RoundToEven},
		{"Square", x.Square, func(a float64) float64 { return a * a }},
		{"Spacing", x.Spacing, spacing},
		{"Imag", x.Imag, func(float64) float64 { return 0 }},
	}
	for _, c := range cases {
		got := mk(c.f())
		if fmt.Sprint(got.Chunks()) != "[[5 5 3]]" {
			t.Fatalf("%s chunks %v", c.name, got.Chunks())
		}
		g := mk(got.ComputeFloat64s(ctx))
		for i, a := range v {
			if w := c.ref(a); math.Abs(g[i]-w) > 1e-13*(1+math.Abs(w)) {
				t.Fatalf("%s[%d]: %v, want %v", c.name, i, g[i], w)
			}
		}
	}
	// NumPy's values for i0 and sinc
	y := mk(FromFloat64s([]float64{0, 0.5, 1, -2, 3.5}, []int64{5}, []int64{2}))
	closeF(t, "I0", mk(mk(y.I0()).ComputeFloat64s(ctx)),
		[]float64{1.0, 1.0634833707413234, 1.2660658777520082, 2.279585302336067, 7.3782034322254795})
	s := mk(FromFloat64s([]float64{0, 0.5, -1.5, 0.25}, []int64{4}, []int64{3}))
	closeF(t, "Sinc", mk(mk(s.Sinc()).ComputeFloat64s(ctx)), []float64{1, 0.6366197723675814, -0.2122065907891938, 0.9003163161571062})
	// predicates
	p := mk(FromFloat64s([]float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 2}, []int64{5}, []int64{2}))
	for _, c := range []struct {
		name string
		f    func() (*Array, error)
		want string
	}{
		{"IsNaN", p.IsNaN, "[true false false false false]"},
		{"IsInf", p.IsInf, "[false true true false false]"},
		{"IsFinite", p.IsFinite, "[false false false true true]"},
		{"IsPosInf", p.IsPosInf, "[false true false false false]"},
		{"IsNegInf", p.IsNegInf, "[false false true false false]"},
		{"Signbit", p.Signbit, "[false false true true false]"},
		{"IsReal", p.IsReal, "[true true true true true]"},
		{"IsComplex", p.IsComplex, "[false false false false false]"},
	} {
		eq(t, c.name, mk(mk(c.f()).ComputeBools(ctx)), c.want)
	}
	// float32 keeps its dtype; integers: BitwiseNot, Reciprocal truncates, Sinc gives float64
	f := mk(FromFloat32s([]float32{8, -27, 0.125}, []int64{3}, []int64{2}))
	cf := mk(f.Cbrt())
	eq(t, "float32 cbrt dtype", cf.DType(), Float32)
	eq(t, "float32 cbrt", mk(cf.ComputeFloat32s(ctx)), "[2 -3 0.5]")
	i := mk(FromInt32s([]int32{0, 1, -7, 100}, []int64{4}, []int64{3}))
	eq(t, "BitwiseNot", mk(mk(i.BitwiseNot()).ComputeInt32s(ctx)), "[-1 -2 6 -101]")
	eq(t, "Invert", mk(mk(i.Invert()).ComputeInt32s(ctx)), "[-1 -2 6 -101]")
	r := mk(FromInt64s([]int64{1, 2, -1, 3}, []int64{4}, []int64{2}))
	eq(t, "int Reciprocal", mk(mk(r.Reciprocal()).ComputeInt64s(ctx)), "[1 0 -1 0]")
	eq(t, "int Sinc dtype", mk(i.Sinc()).DType(), Float64)
	// bool: LogicalNot, and Positive refused
	b := mk(FromBools([]bool{true, false, true}, []int64{3}, []int64{2}))
	eq(t, "LogicalNot", mk(mk(b.LogicalNot()).ComputeBools(ctx)), "[false true false]")
	// 0-d, empty, size-1
	z := mk(FromFloat64s([]float64{27}, []int64{}, []int64{}))
	zc := mk(z.Cbrt())
	eq(t, "0-d shape", zc.Shape(), "[]")
	closeF(t, "0-d cbrt", mk(zc.ComputeFloat64s(ctx)), []float64{3})
	e := mk(FromFloat64s(nil, []int64{0}, []int64{4}))
	eq(t, "empty exp2", mk(mk(e.Exp2()).ComputeFloat64s(ctx)), "[]")
	one := mk(FromFloat64s([]float64{-4}, []int64{1}, []int64{1}))
	closeF(t, "size-1 fabs", mk(mk(one.Fabs()).ComputeFloat64s(ctx)), []float64{4})
	_, err := x.BitwiseNot()
	status(t, err, StatusType)
}

func TestNamedBinaryFunctions(t *testing.T) {
	ctx := ctxT(t, 2)
	nan := math.NaN()
	a := []float64{1.5, -2, nan, 3, -0.5, 7.25, 0}
	b := []float64{-0.5, nan, 2, 4, 2.5, -3, -1}
	x := mk(FromFloat64s(a, []int64{7}, []int64{3}))
	y := mk(FromFloat64s(b, []int64{7}, []int64{4}))
	logaddexp := func(p, q float64) float64 {
		m := math.Max(p, q)
		return m + math.Log(math.Exp(p-m)+math.Exp(q-m))
	}
	logaddexp2 := func(p, q float64) float64 {
		m := math.Max(p, q)
		return m + math.Log2(math.Exp2(p-m)+math.Exp2(q-m))
	}
	fmax := func(p, q float64) float64 {
		if math.IsNaN(p) {
			return q
		}
		if math.IsNaN(q) || p >= q {
			return p
		}
		return q
	}
	fmin := func(p, q float64) float64 {
		if math.IsNaN(p) {
			return q
		}
		if math.IsNaN(q) || p <= q {
			return p
		}
		return q
	}
	cases := []struct {
		name string
		f    func(*Array) (*Array, error)
		ref  func(float64, float64) float64
	}{
		{"Hypot", x.Hypot, math.Hypot},
		{"Fmax", x.Fmax, fmax},
		{"Fmin", x.Fmin, fmin},
		{"Maximum", x.Maximum, math.Max},
		{"Minimum", x.Minimum, math.Min},
		{"Fmod", x.Fmod, math.Mod},
		{"Copysign", x.Copysign, math.Copysign},
		{"Arctan2", x.Arctan2, math.Atan2},
		{"Power", x.Power, math.Pow},
		{"FloatPower", x.FloatPower, math.Pow},
		{"Logaddexp", x.Logaddexp, logaddexp},
		{"Logaddexp2", x.Logaddexp2, logaddexp2},
		{"Nextafter", x.Nextafter, math.Nextafter},
	}
	for _, c := range cases {
		got := mk(c.f(y))
		eq(t, c.name+" chunks", got.Chunks(), "[[3 1 2 1]]")
		g := mk(got.ComputeFloat64s(ctx))
		for i := range a {
			w := c.ref(a[i], b[i])
			if !sameF(g[i], w) && math.Abs(g[i]-w) > 1e-14*(1+math.Abs(w)) {
				t.Fatalf("%s[%d]: %v, want %v", c.name, i, g[i], w)
			}
		}
	}
	// ldexp, frexp, modf: NumPy's values
	m := mk(FromFloat64s([]float64{0.5, -0.75, 0, 0.8}, []int64{4}, []int64{3}))
	ex := mk(FromInt32s([]int32{4, 2, 0, -3}, []int64{4}, []int64{2}))
	closeF(t, "Ldexp", mk(mk(m.Ldexp(ex)).ComputeFloat64s(ctx)), []float64{8, -3, 0, 0.1})
	fr := mk(FromFloat64s([]float64{8, -3, 0, 0.1}, []int64{4}, []int64{3}))
	mant, expo, err := fr.Frexp()
	ok(t, err)
	closeF(t, "Frexp mantissa", mk(mant.ComputeFloat64s(ctx)), []float64{0.5, -0.75, 0, 0.8})
	eq(t, "Frexp exponent", mk(expo.ComputeInt32s(ctx)), "[4 2 0 -3]")
	frac, integ, err := mk(FromFloat64s([]float64{-2.5, 3.25, 0}, []int64{3}, []int64{2})).Modf()
	ok(t, err)
	closeF(t, "Modf fraction", mk(frac.ComputeFloat64s(ctx)), []float64{-0.5, 0.25, 0})
	closeF(t, "Modf integral", mk(integ.ComputeFloat64s(ctx)), []float64{-2, 3, 0})
	// integers
	p := mk(FromInt64s([]int64{7, -7, 7, -7, 0}, []int64{5}, []int64{2}))
	q := mk(FromInt64s([]int64{2, 2, -2, -2, 3}, []int64{5}, []int64{3}))
	d, rem, err := p.Divmod(q)
	ok(t, err)
	eq(t, "Divmod quotient", mk(d.ComputeInt64s(ctx)), "[3 -4 -4 3 0]")
	eq(t, "Divmod remainder", mk(rem.ComputeInt64s(ctx)), "[1 1 -1 -1 0]")
	eq(t, "int Fmod", mk(mk(p.Fmod(q)).ComputeInt64s(ctx)), "[1 -1 1 -1 0]")
	sh := mk(FromInt64s([]int64{1, 2, 3, 70, -1}, []int64{5}, []int64{2}))
	eq(t, "LeftShift", mk(mk(p.LeftShift(sh)).ComputeInt64s(ctx)), "[14 -28 56 0 0]")
	eq(t, "RightShift", mk(mk(p.RightShift(sh)).ComputeInt64s(ctx)), "[3 -2 0 -1 0]")
	eq(t, "BitwiseAnd", mk(mk(p.BitwiseAnd(q)).ComputeInt64s(ctx)), "[2 0 6 -8 0]")
	eq(t, "GreaterEqual", mk(mk(p.GreaterEqual(q)).ComputeBools(ctx)), "[true false true false false]")
	fp := mk(p.FloatPower(q))
	eq(t, "FloatPower dtype", fp.DType(), Float64)
	closeF(t, "FloatPower", mk(fp.ComputeFloat64s(ctx)), []float64{49, 49, 1.0 / 49, 1.0 / 49, 0})
	// float32 with a 0-d operand; empty; mismatched shapes
	f := mk(FromFloat32s([]float32{3, 5}, []int64{2}, []int64{1}))
	g := mk(FromFloat32s([]float32{4}, []int64{}, []int64{}))
	h := mk(f.Hypot(g))
	eq(t, "float32 hypot dtype", h.DType(), Float32)
	eq(t, "float32 hypot", mk(h.ComputeFloat32s(ctx)), fmt.Sprint([]float32{5, float32(math.Sqrt(41))}))
	e := mk(FromFloat64s(nil, []int64{0, 3}, []int64{2, 2}))
	eq(t, "empty fmax shape", mk(e.Fmax(mk(FromFloat64s([]float64{1, 2, 3}, []int64{3}, []int64{3})))).Shape(), "[0 3]")
	_, err = x.Hypot(mk(FromFloat64s([]float64{1, 2}, []int64{2}, []int64{2})))
	status(t, err, StatusInvalidArgument)
}

func TestIsCloseNanToNum(t *testing.T) {
	ctx := ctxT(t, 2)
	nan, inf := math.NaN(), math.Inf(1)
	a := mk(FromFloat64s([]float64{1, 1e10, nan, inf, 1, 0}, []int64{6}, []int64{4}))
	b := mk(FromFloat64s([]float64{1 + 1e-6, 1.00001e10, nan, inf, 1.1, 1e-9}, []int64{6}, []int64{3}))
	eq(t, "IsClose", mk(mk(a.IsClose(b, 1e-5, 1e-8, false)).ComputeBools(ctx)), "[true true false true false true]")
	eq(t, "IsClose equal_nan", mk(mk(a.IsClose(b, 1e-5, 1e-8, true)).ComputeBools(ctx)), "[true true true true false true]")
	ac := mk(a.AllClose(b, 1e-5, 1e-8, true))
	eq(t, "AllClose shape", ac.Shape(), "[]")
	eq(t, "AllClose", mk(ac.ComputeBools(ctx)), "[false]")
	eq(t, "AllClose self", mk(mk(a.AllClose(a, 1e-5, 1e-8, true)).ComputeBools(ctx)), "[true]")
	i := mk(FromInt64s([]int64{3}, []int64{}, []int64{}))
	f := mk(FromFloat64s([]float64{3, 3.00001, 2}, []int64{3}, []int64{2}))
	eq(t, "IsClose int", mk(mk(f.IsClose(i, 1e-5, 1e-8, false)).ComputeBools(ctx)), "[true true false]")
	n := mk(FromFloat64s([]float64{nan, inf, -inf, -1.5}, []int64{4}, []int64{3}))
	closeF(t, "NanToNum", mk(mk(n.NanToNum(0, nil, nil)).ComputeFloat64s(ctx)), []float64{0, math.MaxFloat64, -math.MaxFloat64, -1.5})
	pi, ni := 1e3, -1e3
	closeF(t, "NanToNum values", mk(mk(n.NanToNum(-9, &pi, &ni)).ComputeFloat64s(ctx)), []float64{-9, 1e3, -1e3, -1.5})
	n32 := mk(FromFloat32s([]float32{float32(nan), float32(inf), 2}, []int64{3}, []int64{2}))
	eq(t, "NanToNum float32", mk(mk(n32.NanToNum(0, nil, nil)).ComputeFloat32s(ctx)), fmt.Sprint([]float32{0, math.MaxFloat32, 2}))
	ints := mk(FromInt32s([]int32{1, -2}, []int64{2}, []int64{1}))
	eq(t, "NanToNum ints", mk(mk(ints.NanToNum(5, nil, nil)).ComputeInt32s(ctx)), "[1 -2]")
}

// quantileLoop is NumPy's quantile of one row (the reference).
func quantileLoop(row []float64, q float64, method QuantileMethod, skipNaN bool) float64 {
	var v []float64
	for _, x := range row {
		if math.IsNaN(x) {
			if skipNaN {
				continue
			}
			return math.NaN()
		}
		v = append(v, x)
	}
	if len(v) == 0 {
		return math.NaN()
	}
	sort.Float64s(v)
	pos := q * float64(len(v)-1)
	lo, hi := int(math.Floor(pos)), int(math.Ceil(pos))
	frac := pos - float64(lo)
	switch method {
	case QuantileLower:
		return v[lo]
	case QuantileHigher:
		return v[hi]
	case QuantileMidpoint:
		return (v[lo] + v[hi]) / 2
	case QuantileNearest:
		return v[int(math.RoundToEven(pos))]
	}
	return v[lo] + (v[hi]-v[lo])*frac
}

func TestMedianQuantilePercentile(t *testing.T) {
	ctx := ctxT(t, 2)
	const r, c = 13, 17
	v := data(r * c)
	v[5] = math.NaN()
	x := mk(FromFloat64s(v, []int64{r, c}, []int64{5, 4}))
	rows := make([][]float64, r)
	for i := range rows {
		rows[i] = v[i*c : (i+1)*c]
	}
	cols := make([][]float64, c)
	for j := range cols {
		for i := 0; i < r; i++ {
			cols[j] = append(cols[j], v[i*c+j])
		}
	}
	med := mk(x.Median(false, 1))
	eq(t, "median chunks", med.Chunks(), "[[5 5 3]]")
	var want []float64
	for _, row := range rows {
		want = append(want, quantileLoop(row, 0.5, QuantileLinear, false))
	}
	closeF(t, "Median", mk(med.ComputeFloat64s(ctx)), want)
	nm := mk(x.NanMedian(true, 1))
	eq(t, "NanMedian keepdims", nm.Shape(), "[13 1]")
	want = want[:0]
	for _, row := range rows {
		want = append(want, quantileLoop(row, 0.5, QuantileLinear, true))
	}
	closeF(t, "NanMedian", mk(nm.ComputeFloat64s(ctx)), want)
	qs := []float64{0, 0.1, 0.37, 0.5, 0.95, 1}
	for _, method := range []QuantileMethod{QuantileLinear, QuantileLower, QuantileHigher, QuantileNearest, QuantileMidpoint} {
		o := &QuantileOptions{Method: method, SkipNaN: true}
		got := mk(x.Quantiles(qs, []int32{0}, o))
		eq(t, "Quantiles shape", got.Shape(), "[6 17]")
		eq(t, "Quantiles chunks", got.Chunks()[1], "[4 4 4 4 1]")
		want = want[:0]
		for _, q := range qs {
			for _, col := range cols {
				want = append(want, quantileLoop(col, q, method, true))
			}
		}
		closeF(t, fmt.Sprint("Quantiles method ", method), mk(got.ComputeFloat64s(ctx)), want)
		want = want[:0]
		for _, col := range cols {
			want = append(want, quantileLoop(col, 0.37, method, true))
		}
		closeF(t, "Percentile", mk(mk(x.Percentile(37, []int32{0}, o)).ComputeFloat64s(ctx)), want)
	}
	// NumPy's values
	ar := mk(Arange(0, 10, 1, 3, Float64))
	closeF(t, "Percentiles nearest", mk(mk(ar.Percentiles([]float64{10, 50, 95}, nil, &QuantileOptions{Method: QuantileNearest})).ComputeFloat64s(ctx)),
		[]float64{1, 4, 9})
	ints := mk(FromInt64s([]int64{4, 1, 3, 2}, []int64{4}, []int64{3}))
	mid := mk(ints.Quantile(0.4, nil, &QuantileOptions{Method: QuantileMidpoint}))
	eq(t, "midpoint dtype", mid.DType(), Float64)
	closeF(t, "midpoint", mk(mid.ComputeFloat64s(ctx)), []float64{2.5})
	big := mk(FromInt64s([]int64{math.MaxInt64, 1, math.MaxInt64 - 1}, []int64{3}, []int64{2}))
	lo := mk(big.Quantile(0.5, nil, &QuantileOptions{Method: QuantileLower}))
	eq(t, "lower dtype", lo.DType(), Int64)
	eq(t, "lower exact", mk(lo.ComputeInt64s(ctx)), []int64{math.MaxInt64 - 1})
	f := mk(FromFloat32s([]float32{3, 1, 2, 10}, []int64{2, 2}, []int64{1, 1}))
	fm := mk(f.Median(false))
	eq(t, "float32 median dtype", fm.DType(), Float32)
	eq(t, "float32 median", mk(fm.ComputeFloat32s(ctx)), "[2.5]")
	closeF(t, "int median", mk(mk(ints.Median(false, 0)).ComputeFloat64s(ctx)), []float64{2.5})
	closeF(t, "size-1 median", mk(mk(mk(FromFloat64s([]float64{7}, []int64{1}, []int64{1})).Median(false)).ComputeFloat64s(ctx)), []float64{7})
	e := mk(FromFloat64s(nil, []int64{3, 0}, []int64{2, 1}))
	em := mk(e.Median(false, 1))
	eq(t, "empty rows shape", em.Shape(), "[3]")
	closeF(t, "empty rows", mk(em.ComputeFloat64s(ctx)), []float64{math.NaN(), math.NaN(), math.NaN()})
	_, err := mk(FromFloat64s([]float64{1}, []int64{}, []int64{})).Median(false)
	status(t, err, StatusInvalidArgument)
	_, err = x.Quantile(1.5, nil, nil)
	status(t, err, StatusInvalidArgument)
	_, err = x.Median(false, 2)
	status(t, err, StatusInvalidArgument)
}

func TestLikeIndicesMeshgridBroadcast(t *testing.T) {
	ctx := ctxT(t, 2)
	x := mk(FromFloat64s(data(12), []int64{3, 4}, []int64{2, 3}))
	z := mk(x.ZerosLike(nil))
	eq(t, "ZerosLike", fmt.Sprint(z.Shape(), z.Chunks(), z.DType()), "[3 4] [[2 1] [3 1]] float64")
	closeF(t, "ZerosLike values", mk(z.ComputeFloat64s(ctx)), make([]float64, 12))
	o := mk(x.OnesLike(&LikeOptions{DType: Int32}))
	eq(t, "OnesLike", mk(o.ComputeInt32s(ctx)), "[1 1 1 1 1 1 1 1 1 1 1 1]")
	fl := mk(x.FullLike(2.7, &LikeOptions{DType: Int64, Shape: []int64{5}, Chunks: [][]int64{{2, 3}}}))
	eq(t, "FullLike", fmt.Sprint(fl.Shape(), fl.Chunks(), mk(fl.ComputeInt64s(ctx))), "[5] [[2 3]] [2 2 2 2 2]")
	eq(t, "EmptyLike shape", mk(x.EmptyLike(&LikeOptions{Shape: []int64{0, 2}})).Shape(), "[0 2]")
	_, err := x.ZerosLike(&LikeOptions{Shape: []int64{5}, Chunks: [][]int64{{2, 2}}})
	status(t, err, StatusInvalidArgument)
	ind := mk(Indices([]int64{3, 4}, []int64{2, 3}, Int64))
	eq(t, "Indices chunks", ind.Chunks(), "[[1 1] [2 1] [3 1]]")
	var want []int64
	for c := 0; c < 2; c++ {
		for i := int64(0); i < 3; i++ {
			for j := int64(0); j < 4; j++ {
				if c == 0 {
					want = append(want, i)
				} else {
					want = append(want, j)
				}
			}
		}
	}
	eq(t, "Indices", mk(ind.ComputeInt64s(ctx)), want)
	eq(t, "Indices 0-d", mk(Indices(nil, nil, Int32)).Shape(), "[0]")
	a := mk(Arange(0, 3, 1, 2, Int64))
	b := mk(Arange(10, 14, 1, 3, Int64))
	g := mk(Meshgrid(IndexingXY, false, a, b))
	eq(t, "Meshgrid", fmt.Sprint(len(g), g[0].Shape(), g[0].Chunks()), "2 [4 3] [[3 1] [2 1]]")
	eq(t, "Meshgrid x", mk(g[0].ComputeInt64s(ctx)), "[0 1 2 0 1 2 0 1 2 0 1 2]")
	eq(t, "Meshgrid y", mk(g[1].ComputeInt64s(ctx)), "[10 10 10 11 11 11 12 12 12 13 13 13]")
	s := mk(Meshgrid(IndexingIJ, true, a, b))
	eq(t, "sparse ij", fmt.Sprint(s[0].Shape(), s[0].Chunks(), s[1].Shape(), s[1].Chunks()), "[3 1] [[2 1] [1]] [1 4] [[1] [3 1]]")
	eq(t, "Meshgrid none", len(mk(Meshgrid(IndexingXY, false))), 0)
	p := mk(FromFloat64s([]float64{1, 2, 3}, []int64{3, 1}, []int64{2, 1}))
	q := mk(FromFloat64s([]float64{10, 20, 30, 40}, []int64{4}, []int64{3}))
	bc := mk(BroadcastArrays(p, q))
	for _, t2 := range bc {
		eq(t, "BroadcastArrays", fmt.Sprint(t2.Shape(), t2.Chunks()), "[3 4] [[2 1] [3 1]]")
	}
	eq(t, "BroadcastArrays p", mk(bc[0].ComputeFloat64s(ctx)), "[1 1 1 1 2 2 2 2 3 3 3 3]")
	eq(t, "BroadcastArrays q", mk(bc[1].ComputeFloat64s(ctx)), "[10 20 30 40 10 20 30 40 10 20 30 40]")
	_, err = BroadcastArrays(q, mk(FromFloat64s([]float64{1, 2}, []int64{2}, []int64{1})))
	status(t, err, StatusInvalidArgument)
	_, err = BroadcastArrays(q, nil)
	status(t, err, StatusInvalidArgument)
}

func TestTrianglesDiagonal(t *testing.T) {
	ctx := ctxT(t, 2)
	const r, c = 13, 17
	v := data(r * c)
	x := mk(FromFloat64s(v, []int64{r, c}, []int64{5, 4}))
	for _, k := range []int64{-3, 0, 2} {
		lo := mk(mk(x.Tril(k)).ComputeFloat64s(ctx))
		up := mk(mk(x.Triu(k)).ComputeFloat64s(ctx))
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				wl, wu := 0.0, 0.0
				if int64(j-i) <= k {
					wl = v[i*c+j]
				}
				if int64(j-i) >= k {
					wu = v[i*c+j]
				}
				if lo[i*c+j] != wl || up[i*c+j] != wu {
					t.Fatalf("k=%d [%d,%d]: tril %v/%v triu %v/%v", k, i, j, lo[i*c+j], wl, up[i*c+j], wu)
				}
			}
		}
	}
	eq(t, "Tril chunks", mk(x.Tril(0)).Chunks(), x.Chunks())
	ii := make([]int32, 12)
	for i := range ii {
		ii[i] = int32(i)
	}
	eq(t, "int32 Triu", mk(mk(mk(FromInt32s(ii, []int64{3, 4}, []int64{2, 2})).Triu(1)).ComputeInt32s(ctx)), "[0 1 2 3 0 0 6 7 0 0 0 11]")
	_, err := mk(FromFloat64s([]float64{1, 2}, []int64{2}, []int64{1})).Tril(0)
	status(t, err, StatusInvalidArgument)
	rr, cc, err := TrilIndices(4, 0, -1, []int64{2, 2})
	ok(t, err)
	eq(t, "TrilIndices rows", mk(rr.ComputeInt64s(ctx)), "[0 1 1 2 2 2 3 3 3 3]")
	eq(t, "TrilIndices cols", mk(cc.ComputeInt64s(ctx)), "[0 0 1 0 1 2 0 1 2 3]")
	rr, cc, err = TriuIndices(3, 1, 5, []int64{2, 3})
	ok(t, err)
	eq(t, "TriuIndices rows", mk(rr.ComputeInt64s(ctx)), "[0 0 0 0 1 1 1 2 2]")
	eq(t, "TriuIndices cols", mk(cc.ComputeInt64s(ctx)), "[1 2 3 4 2 3 4 3 4]")
	rr, cc, err = x.TrilIndicesFrom(-10)
	ok(t, err)
	var wr, wc []int64
	for i := int64(0); i < r; i++ {
		for j := int64(0); j < c; j++ {
			if j-i <= -10 {
				wr, wc = append(wr, i), append(wc, j)
			}
		}
	}
	eq(t, "TrilIndicesFrom rows", mk(rr.ComputeInt64s(ctx)), wr)
	eq(t, "TrilIndicesFrom cols", mk(cc.ComputeInt64s(ctx)), wc)
	rr, _, err = x.TriuIndicesFrom(100)
	ok(t, err)
	eq(t, "TriuIndicesFrom empty", mk(rr.ComputeInt64s(ctx)), "[]")
	d := mk(x.Diagonal(1, 0, 1))
	eq(t, "Diagonal chunks", d.Chunks(), "[[3 2 2 3 1 2]]")
	want := make([]float64, 0, r)
	for i := 0; i < r; i++ {
		want = append(want, v[i*c+i+1])
	}
	closeF(t, "Diagonal", mk(d.ComputeFloat64s(ctx)), want)
	d = mk(x.Diagonal(-2, 0, 1))
	eq(t, "Diagonal -2 chunks", d.Chunks(), "[[3 1 4 3]]")
	want = want[:0]
	for i := 2; i < r; i++ {
		want = append(want, v[i*c+i-2])
	}
	closeF(t, "Diagonal -2", mk(d.ComputeFloat64s(ctx)), want)
	_, err = x.Diagonal(0, 0, 0)
	status(t, err, StatusInvalidArgument)
}

func TestSortUniqueSearch(t *testing.T) {
	ctx := ctxT(t, 2)
	nan := math.NaN()
	x := mk(FromFloat64s([]float64{3, nan, -1, 3, 2.5, -1, 0, 7, 3}, []int64{9}, []int64{4}))
	s := mk(x.Sort(0, false))
	eq(t, "Sort chunks", s.Chunks(), "[[9]]")
	closeF(t, "Sort", mk(s.ComputeFloat64s(ctx)), []float64{-1, -1, 0, 2.5, 3, 3, 3, 7, nan})
	closeF(t, "Sort descending", mk(mk(x.Sort(0, true)).ComputeFloat64s(ctx)), []float64{nan, 7, 3, 3, 3, 2.5, 0, -1, -1})
	eq(t, "Argsort", mk(mk(x.Argsort(0, false)).ComputeInt64s(ctx)), "[2 5 6 4 0 3 8 7 1]")
	eq(t, "Argsort descending", mk(mk(x.Argsort(-1, true)).ComputeInt64s(ctx)), "[1 7 0 3 8 4 6 2 5]")
	m := mk(FromInt32s([]int32{5, 1, 4, 2, 8, 0, 9, 3, 7}, []int64{3, 3}, []int64{2, 2}))
	ms := mk(m.Sort(0, false))
	eq(t, "int32 Sort", fmt.Sprint(ms.Chunks(), mk(ms.ComputeInt32s(ctx))), "[[3] [2 1]] [2 1 0 5 3 4 9 8 7]")
	iv := make([]int64, 40)
	for i := range iv {
		iv[i] = int64(i*7%11) - 3
	}
	xi := mk(FromInt64s(iv, []int64{5, 8}, []int64{2, 3}))
	u := mk(xi.UniqueWith(UniqueOptions{Index: true, Inverse: true, Counts: true}))
	vals := append([]int64(nil), iv...)
	sort.Slice(vals, func(i, j int) bool { return vals[i] < vals[j] })
	uniq := vals[:0:0]
	for i, w := range vals {
		if i == 0 || w != vals[i-1] {
			uniq = append(uniq, w)
		}
	}
	eq(t, "Unique values", mk(u.Values.ComputeInt64s(ctx)), uniq)
	eq(t, "Unique chunks unknown", u.Values.Chunks(), "[[-1]]")
	var first, inv, counts []int64
	for _, w := range uniq {
		n, f := int64(0), int64(-1)
		for i, y := range iv {
			if y == w {
				n++
				if f < 0 {
					f = int64(i)
				}
			}
		}
		first, counts = append(first, f), append(counts, n)
	}
	for _, y := range iv {
		inv = append(inv, int64(sort.Search(len(uniq), func(i int) bool { return uniq[i] >= y })))
	}
	eq(t, "Unique index", mk(u.Index.ComputeInt64s(ctx)), first)
	eq(t, "Unique inverse", mk(u.Inverse.ComputeInt64s(ctx)), inv)
	eq(t, "Unique counts", mk(u.Counts.ComputeInt64s(ctx)), counts)
	if mk(xi.UniqueWith(UniqueOptions{})).Index != nil {
		t.Fatal("Index not asked for")
	}
	n := mk(FromFloat64s([]float64{nan, 1, nan}, []int64{3}, []int64{2}))
	eq(t, "Unique NaN collapse", len(mk(mk(n.Unique()).ComputeFloat64s(ctx))), 2)
	eq(t, "Unique NaN distinct", len(mk(mk(n.UniqueWith(UniqueOptions{DistinctNaN: true})).Values.ComputeFloat64s(ctx))), 3)
	eq(t, "Unique empty", mk(mk(mk(FromInt64s(nil, []int64{0}, []int64{1})).Unique()).ComputeInt64s(ctx)), "[]")
	test := mk(FromInt64s([]int64{3, -1, 100}, []int64{3}, []int64{2}))
	isin := mk(xi.IsIn(test, false))
	eq(t, "IsIn chunks", isin.Chunks(), xi.Chunks())
	var win, wout []bool
	for _, y := range iv {
		in := y == 3 || y == -1 || y == 100
		win, wout = append(win, in), append(wout, !in)
	}
	eq(t, "IsIn", mk(isin.ComputeBools(ctx)), win)
	eq(t, "IsIn invert", mk(mk(xi.IsIn(test, true)).ComputeBools(ctx)), wout)
	un := append(append([]int64(nil), uniq...), -50, 100)
	sort.Slice(un, func(i, j int) bool { return un[i] < un[j] })
	eq(t, "Union1d", mk(mk(xi.Union1d(mk(FromInt64s([]int64{100, -50, 3}, []int64{3}, []int64{1})))).ComputeInt64s(ctx)), un)
	sv := []float64{-2, 0, 0, 1.5, 4}
	sorted := mk(FromFloat64s(sv, []int64{5}, []int64{2}))
	q := []float64{-3, 0, 1, 4, 9, 1.5}
	qa := mk(FromFloat64s(q, []int64{2, 3}, []int64{1, 2}))
	count := func(xs []float64, pred func(float64) bool) (out []int64) {
		for range q {
			out = append(out, 0)
		}
		for i, w := range q {
			for _, s := range xs {
				if pred(s - w) {
					out[i]++
				}
			}
		}
		return out
	}
	left := mk(sorted.SearchSorted(qa, SideLeft, nil))
	eq(t, "SearchSorted chunks", left.Chunks(), qa.Chunks())
	eq(t, "SearchSorted left", mk(left.ComputeInt64s(ctx)), count(sv, func(d float64) bool { return d < 0 }))
	eq(t, "SearchSorted right", mk(mk(sorted.SearchSorted(qa, SideRight, nil)).ComputeInt64s(ctx)), count(sv, func(d float64) bool { return d <= 0 }))
	una := mk(FromFloat64s([]float64{4, -2, 1.5}, []int64{3}, []int64{2}))
	pos := mk(una.SearchSorted(mk(FromFloat64s([]float64{0, 5}, []int64{2}, []int64{1})), SideLeft, mk(una.Argsort(0, false))))
	eq(t, "SearchSorted sorter", mk(pos.ComputeInt64s(ctx)), "[1 3]")
	bv := []float64{0, 1, 2.5}
	bins := mk(FromFloat64s(bv, []int64{3}, []int64{2}))
	eq(t, "Digitize", mk(mk(qa.Digitize(bins, false)).ComputeInt64s(ctx)), count(bv, func(d float64) bool { return d <= 0 }))
	eq(t, "Digitize right", mk(mk(qa.Digitize(bins, true)).ComputeInt64s(ctx)), count(bv, func(d float64) bool { return d < 0 }))
	_, err := mk(qa.Digitize(mk(FromFloat64s([]float64{0, 2, 1}, []int64{3}, []int64{3})), false)).Compute(ctx)
	if err == nil || !strings.Contains(err.Error(), "monotonically") {
		t.Fatalf("digitize with unsorted bins: %v", err)
	}
	w := make([]int32, 20)
	var nzr, nzc, flat, aw []int64
	for i := range w {
		if i%3 != 0 && i != 7 {
			w[i] = int32(i)
			nzr, nzc, flat = append(nzr, int64(i/5)), append(nzc, int64(i%5)), append(flat, int64(i))
			aw = append(aw, int64(i/5), int64(i%5))
		}
	}
	wa := mk(FromInt32s(w, []int64{4, 5}, []int64{3, 2}))
	parts := mk(wa.Nonzero())
	eq(t, "Nonzero", fmt.Sprint(len(parts), mk(parts[0].ComputeInt64s(ctx)), mk(parts[1].ComputeInt64s(ctx))), fmt.Sprint(2, nzr, nzc))
	eq(t, "FlatNonzero", mk(mk(wa.FlatNonzero()).ComputeInt64s(ctx)), flat)
	awa := mk(wa.Argwhere())
	eq(t, "Argwhere", fmt.Sprint(awa.Shape()[1], mk(awa.ComputeInt64s(ctx))), fmt.Sprint(2, aw))
	z0 := mk(FromFloat64s([]float64{5}, []int64{}, []int64{}))
	_, err = z0.Nonzero()
	status(t, err, StatusInvalidArgument)
	eq(t, "FlatNonzero 0-d", mk(mk(z0.FlatNonzero()).ComputeInt64s(ctx)), "[0]")
	_, err = x.Sort(1, false)
	status(t, err, StatusInvalidArgument)
}

func TestRollRot90Rollaxis(t *testing.T) {
	ctx := ctxT(t, 2)
	const r, c = 13, 17
	v := data(r * c)
	x := mk(FromFloat64s(v, []int64{r, c}, []int64{5, 4}))
	grid := func(rows, cols int, f func(i, j int) float64) []float64 {
		out := make([]float64, 0, rows*cols)
		for i := 0; i < rows; i++ {
			for j := 0; j < cols; j++ {
				out = append(out, f(i, j))
			}
		}
		return out
	}
	at := func(i, j int) float64 { return v[i*c+j] }
	y := mk(x.Roll([]int64{3}, []int32{1}))
	eq(t, "Roll chunks", y.Chunks(), "[[5 5 3] [2 1 4 4 4 2]]")
	closeF(t, "Roll axis 1", mk(y.ComputeFloat64s(ctx)), grid(r, c, func(i, j int) float64 { return at(i, (j+c-3)%c) }))
	closeF(t, "Roll both", mk(mk(x.Roll([]int64{-2, 20}, []int32{0, 1})).ComputeFloat64s(ctx)),
		grid(r, c, func(i, j int) float64 { return at((i+2)%r, (j+c-3)%c) }))
	n := r * c
	closeF(t, "Roll flat", mk(mk(x.Roll([]int64{5}, nil)).ComputeFloat64s(ctx)),
		grid(r, c, func(i, j int) float64 { return v[(i*c+j+n-5)%n] }))
	_, err := x.Roll([]int64{1, 2}, []int32{0})
	status(t, err, StatusInvalidArgument)
	y = mk(x.Rot90(1, 0, 1))
	eq(t, "Rot90 chunks", y.Chunks(), "[[1 4 4 4 4] [5 5 3]]")
	closeF(t, "Rot90", mk(y.ComputeFloat64s(ctx)), grid(c, r, func(i, j int) float64 { return at(j, c-1-i) }))
	y = mk(x.Rot90(2, 0, 1))
	eq(t, "Rot90 2 chunks", y.Chunks(), "[[3 5 5] [1 4 4 4 4]]")
	closeF(t, "Rot90 2", mk(y.ComputeFloat64s(ctx)), grid(r, c, func(i, j int) float64 { return at(r-1-i, c-1-j) }))
	closeF(t, "Rot90 -1", mk(mk(x.Rot90(-1, 0, 1)).ComputeFloat64s(ctx)), grid(c, r, func(i, j int) float64 { return at(r-1-j, i) }))
	_, err = x.Rot90(1, 0, 0)
	status(t, err, StatusInvalidArgument)
	tv := make([]int64, 24)
	for i := range tv {
		tv[i] = int64(i)
	}
	ta := mk(FromInt64s(tv, []int64{2, 3, 4}, []int64{1, 2, 3}))
	y = mk(ta.Rollaxis(2, 0))
	eq(t, "Rollaxis", fmt.Sprint(y.Shape(), y.Chunks()), "[4 2 3] [[3 1] [1 1] [2 1]]")
	var want []int64
	for k := int64(0); k < 4; k++ {
		for i := int64(0); i < 2; i++ {
			for j := int64(0); j < 3; j++ {
				want = append(want, i*12+j*4+k)
			}
		}
	}
	eq(t, "Rollaxis values", mk(y.ComputeInt64s(ctx)), want)
	_, err = ta.Rollaxis(3, 0)
	status(t, err, StatusInvalidArgument)
}

func TestTakeEinsumUnknownChunks(t *testing.T) {
	ctx := ctxT(t, 2)
	const r, c = 7, 5
	v := data(r * c)
	x := mk(FromFloat64s(v, []int64{r, c}, []int64{3, 2}))
	tk := mk(x.Take([]int64{4, -1, 0, 4}, 0))
	eq(t, "Take shape", tk.Shape(), "[4 5]")
	var want []float64
	for _, i := range []int{4, 6, 0, 4} {
		want = append(want, v[i*c:(i+1)*c]...)
	}
	closeF(t, "Take axis 0", mk(tk.ComputeFloat64s(ctx)), want)
	want = want[:0]
	for i := 0; i < r; i++ {
		for _, j := range []int{2, 2, 0} {
			want = append(want, v[i*c+j])
		}
	}
	closeF(t, "Take axis 1", mk(mk(x.Take([]int64{2, 2, -5}, 1)).ComputeFloat64s(ctx)), want)
	eq(t, "Take none", mk(x.Take(nil, 1)).Shape(), "[7 0]")
	_, err := x.Take([]int64{5}, 1)
	status(t, err, StatusInvalidArgument)
	w := data(c * 3)
	y := mk(FromFloat64s(w, []int64{c, 3}, []int64{2, 2}))
	mm := mk(Einsum("ij,jk->ik", 0, x, y))
	eq(t, "Einsum shape", mm.Shape(), "[7 3]")
	want = want[:0]
	for i := 0; i < r; i++ {
		for k := 0; k < 3; k++ {
			s := 0.0
			for j := 0; j < c; j++ {
				s += v[i*c+j] * w[j*3+k]
			}
			want = append(want, s)
		}
	}
	closeF(t, "Einsum matmul", mk(mm.ComputeFloat64s(ctx)), want)
	a := mk(FromInt64s([]int64{1, 2, 3}, []int64{3}, []int64{2}))
	dot := mk(Einsum("i,i", 0, a, a))
	eq(t, "Einsum dot", fmt.Sprint(dot.Shape(), dot.DType(), mk(dot.ComputeInt64s(ctx))), "[] int64 [14]")
	_, err = Einsum("ij,jk->ik", 0, x, x)
	status(t, err, StatusInvalidArgument)
	u := mk(a.Unique())
	if !a.ChunksKnown() || u.ChunksKnown() {
		t.Fatal("ChunksKnown")
	}
	k := mk(u.ComputeChunkSizes(ctx))
	eq(t, "ComputeChunkSizes", fmt.Sprint(k.ChunksKnown(), k.Chunks()), "true [[3]]")
}

// uint8 and bool inputs (NumPy's values: uint8 shifts wrap, the median of uint8 is float64).
func TestUint8AndBoolInputs(t *testing.T) {
	ctx := ctxT(t, 2)
	u8 := func(v []int32, chunk int64) *Array {
		a := mk(FromInt32s(v, []int64{int64(len(v))}, []int64{chunk}))
		return mk(a.AsType(UInt8))
	}
	ints := func(a *Array) []int64 {
		eq(t, "dtype", a.DType(), UInt8)
		return mk(mk(a.AsType(Int64)).ComputeInt64s(ctx))
	}
	a := u8([]int32{200, 3, 77, 3, 255, 0}, 4)
	s := u8([]int32{1, 2, 0, 7, 1, 3}, 3)
	eq(t, "LeftShift", ints(mk(a.LeftShift(s))), "[144 12 77 128 254 0]")
	eq(t, "RightShift", ints(mk(a.RightShift(s))), "[100 0 77 0 127 0]")
	eq(t, "BitwiseNot", ints(mk(a.BitwiseNot())), "[55 252 178 252 0 255]")
	eq(t, "Fmax", ints(mk(a.Fmax(s))), "[200 3 77 7 255 3]")
	eq(t, "Sort descending", ints(mk(a.Sort(0, true))), "[255 200 77 3 3 0]")
	eq(t, "Argsort", mk(mk(a.Argsort(0, false)).ComputeInt64s(ctx)), "[5 1 3 2 0 4]")
	m := mk(a.Median(false))
	eq(t, "Median uint8", fmt.Sprint(m.DType(), mk(m.ComputeFloat64s(ctx))), "float64 [40]")
	b := mk(FromBools([]bool{true, false, true, true}, []int64{4}, []int64{3}))
	u := mk(b.UniqueWith(UniqueOptions{Counts: true}))
	eq(t, "Unique bool", fmt.Sprint(mk(u.Values.ComputeBools(ctx)), mk(u.Counts.ComputeInt64s(ctx))), "[false true] [1 3]")
	eq(t, "FlatNonzero bool", mk(mk(b.FlatNonzero()).ComputeInt64s(ctx)), "[0 2 3]")
	f := mk(FromBools([]bool{false}, []int64{1}, []int64{1}))
	eq(t, "IsIn bool", mk(mk(b.IsIn(f, false)).ComputeBools(ctx)), "[false true false false]")
	x := mk(FromInt32s([]int32{1, 5, 9}, []int64{3}, []int64{2}))
	bins := mk(FromInt32s([]int32{0, 4, 8}, []int64{3}, []int64{2}))
	eq(t, "Digitize int32", mk(mk(x.Digitize(bins, false)).ComputeInt64s(ctx)), "[1 2 3]")
}

// Empty and 0-d inputs of the routines (NumPy's shapes and values).
func TestEmptyAnd0dRoutines(t *testing.T) {
	ctx := ctxT(t, 2)
	e := mk(FromFloat64s(nil, []int64{0}, []int64{3}))
	z := mk(FromFloat64s([]float64{2.5}, []int64{}, []int64{}))
	v := mk(FromFloat64s([]float64{1, 2, 3}, []int64{3}, []int64{2}))
	eq(t, "Sort empty", mk(mk(e.Sort(0, false)).ComputeFloat64s(ctx)), "[]")
	eq(t, "Unique 0-d", mk(mk(z.Unique()).ComputeFloat64s(ctx)), "[2.5]")
	eq(t, "IsIn empty test", mk(mk(v.IsIn(e, false)).ComputeBools(ctx)), "[false false false]")
	eq(t, "SearchSorted empty a", mk(mk(e.SearchSorted(v, SideLeft, nil)).ComputeInt64s(ctx)), "[0 0 0]")
	p := mk(v.SearchSorted(z, SideLeft, nil))
	eq(t, "SearchSorted 0-d v", fmt.Sprint(p.Shape(), mk(p.ComputeInt64s(ctx))), "[] [2]")
	eq(t, "Union1d empty", mk(mk(e.Union1d(e)).ComputeFloat64s(ctx)), "[]")
	aw := mk(mk(z.Argwhere()).Compute(ctx))
	eq(t, "Argwhere 0-d", aw.Shape(), "[1 0]")
	r := mk(z.Roll([]int64{1}, nil))
	eq(t, "Roll 0-d", fmt.Sprint(r.Shape(), mk(r.ComputeFloat64s(ctx))), "[] [2.5]")
	e2 := mk(FromFloat64s(nil, []int64{0, 3}, []int64{1, 2}))
	eq(t, "Rot90 empty", mk(e2.Rot90(1, 0, 1)).Shape(), "[3 0]")
	nz := mk(e2.Nonzero())
	eq(t, "Nonzero empty", fmt.Sprint(len(nz), mk(nz[0].ComputeInt64s(ctx)), mk(nz[1].ComputeInt64s(ctx))), "2 [] []")
	m := mk(FromFloat64s(data(12), []int64{3, 4}, []int64{2, 3}))
	eq(t, "Diagonal beyond", mk(m.Diagonal(10, 0, 1)).Shape(), "[0]")
	rr, cc, err := TrilIndices(0, 0, -1, []int64{1, 1})
	ok(t, err)
	eq(t, "TrilIndices 0", fmt.Sprint(mk(rr.ComputeInt64s(ctx)), mk(cc.ComputeInt64s(ctx))), "[] []")
	eq(t, "Meshgrid 0-d", mk(Meshgrid(IndexingXY, false, z, v))[0].Shape(), "[3 1]")
	b := mk(BroadcastArrays(z, m))
	eq(t, "BroadcastArrays 0-d", fmt.Sprint(b[0].Shape(), b[0].Chunks()), fmt.Sprint(m.Shape(), m.Chunks()))
	closeF(t, "BroadcastArrays 0-d values", mk(b[0].ComputeFloat64s(ctx)), []float64{2.5, 2.5, 2.5, 2.5, 2.5, 2.5, 2.5, 2.5, 2.5, 2.5, 2.5, 2.5})
}

// Insert, Delete, Choose, Select, Coarsen, Bincount against NumPy 1.24's values and dask 2022.12's
// chunks (ragged inputs, several dtypes, empty position lists) and their errors.
func TestInsertDeleteChooseSelectCoarsenBincount(t *testing.T) {
	ctx := ctxT(t, 2)
	f64s := func(a *Array, err error) []float64 { t.Helper(); ok(t, err); return mk(a.ComputeFloat64s(ctx)) }
	i64s := func(a *Array, err error) []int64 { t.Helper(); ok(t, err); return mk(a.ComputeInt64s(ctx)) }
	seq := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(i)
		}
		return v
	}
	a := mk(Arange(0, 10, 1, 3, Float64))
	m := mk(FromInt64s([]int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, []int64{3, 4}, []int64{2, 3}))
	vals := mk(FromFloat64s([]float64{100, 200, 300, 400}, []int64{4}, []int64{3}))

	// Insert: np.insert(np.arange(10.), [2, 2, -1, 10], [100, 200, 300, 400])
	closeF(t, "insert", f64s(a.Insert([]int64{2, 2, -1, 10}, vals, 0)),
		[]float64{0, 1, 100, 200, 2, 3, 4, 5, 6, 7, 8, 300, 9, 400})
	v3 := mk(FromFloat64s([]float64{100, 200, 300}, []int64{3}, []int64{3}))
	r := mk(a.Insert([]int64{2, 5, 10}, v3, 0))
	eq(t, "insert chunks (dask's)", r.Chunks(), [][]int64{{2, 1, 1, 2, 1, 1, 3, 1, 1}})
	closeF(t, "insert 3", f64s(r, nil), []float64{0, 1, 100, 2, 3, 4, 200, 5, 6, 7, 8, 9, 300})
	col := mk(FromInt64s([]int64{-1, -2, -3}, []int64{3, 1}, []int64{2, 1}))
	r = mk(m.Insert([]int64{1}, col, 1))
	eq(t, "insert axis 1 chunks", r.Chunks(), [][]int64{{2, 1}, {1, 1, 2, 1}})
	eq(t, "insert axis 1", i64s(r, nil), []int64{0, -1, 1, 2, 3, 4, -2, 5, 6, 7, 8, -3, 9, 10, 11})
	fv := mk(FromFloat64s([]float64{2.75, -1.5, 9}, []int64{3, 1}, []int64{3, 1}))
	r = mk(m.Insert([]int64{4}, fv, 1))
	eq(t, "insert cast dtype", r.DType(), Int64)
	eq(t, "insert cast", i64s(r, nil), []int64{0, 1, 2, 3, 2, 4, 5, 6, 7, -1, 8, 9, 10, 11, 9})
	closeF(t, "insert nothing", f64s(a.Insert(nil, vals, 0)), seq(10))
	_, err := a.Insert([]int64{11}, vals, 0)
	status(t, err, StatusInvalidArgument)
	if !strings.Contains(err.Error(), "out of bounds") {
		t.Fatalf("insert error %v", err)
	}

	// Delete: np.delete(np.arange(10.), [0, 3, 3, -1]); dask's chunks for [0, 3, -1]
	closeF(t, "delete", f64s(a.Delete([]int64{0, 3, 3, -1}, 0)), []float64{1, 2, 4, 5, 6, 7, 8})
	eq(t, "delete chunks", mk(a.Delete([]int64{0, 3, -1}, 0)).Chunks(), [][]int64{{2, 2, 3}})
	d := mk(m.Delete([]int64{0, 2}, 1))
	eq(t, "delete axis 1 chunks", d.Chunks(), [][]int64{{2, 1}, {1, 1}})
	eq(t, "delete axis 1", i64s(d, nil), []int64{1, 3, 5, 7, 9, 11})
	closeF(t, "delete nothing", f64s(a.Delete(nil, 0)), seq(10))
	all := make([]int64, 10)
	for i := range all {
		all[i] = int64(i)
	}
	none := mk(a.Delete(all, 0))
	eq(t, "delete all shape", none.Shape(), []int64{0})
	eq(t, "delete all", len(f64s(none, nil)), 0)
	_, err = a.Delete([]int64{10}, 0)
	status(t, err, StatusInvalidArgument)
	_, err = a.Delete([]int64{0}, 1)
	status(t, err, StatusInvalidArgument)

	// Choose: np.choose([0, 2, 1, 3, -1], [arange(5) * s for s in (1, 10, 100)], mode)
	idx := mk(FromInt64s([]int64{0, 2, 1, 3, -1}, []int64{5}, []int64{2}))
	var ch []*Array
	for _, s := range []float64{1, 10, 100} {
		v := seq(5)
		for i := range v {
			v[i] *= s
		}
		ch = append(ch, mk(FromFloat64s(v, []int64{5}, []int64{3})))
	}
	w := mk(idx.Choose(ChooseWrap, ch...))
	eq(t, "choose chunks (dask's broadcast)", w.Chunks(), [][]int64{{2, 1, 1, 1}})
	closeF(t, "choose wrap", f64s(w, nil), []float64{0, 100, 20, 3, 400})
	closeF(t, "choose clip", f64s(idx.Choose(ChooseClip, ch...)), []float64{0, 100, 20, 300, 4})
	_, err = mk(idx.Choose(ChooseRaise, ch...)).ComputeFloat64s(ctx)
	if err == nil || !strings.Contains(err.Error(), "invalid entry") {
		t.Fatalf("choose raise: %v", err)
	}
	good := mk(FromInt64s([]int64{2, 0, 1, 1, 0}, []int64{5}, []int64{3}))
	closeF(t, "choose raise ok", f64s(good.Choose(ChooseRaise, ch...)), []float64{0, 1, 20, 30, 4})
	c0 := mk(FromInt32s([]int32{0, 7, 14, 21, 28}, []int64{5}, []int64{2}))
	c1 := mk(FromInt32s([]int32{1, 8, 15, 22, 29}, []int64{5}, []int64{2}))
	bidx := mk(FromBools([]bool{true, false, true, true, false}, []int64{5}, []int64{5}))
	r = mk(bidx.Choose(ChooseRaise, c0, c1))
	eq(t, "choose int32 dtype", r.DType(), Int32)
	eq(t, "choose int32", mk(r.ComputeInt32s(ctx)), []int32{1, 7, 15, 22, 28})
	_, err = idx.Choose(ChooseRaise)
	status(t, err, StatusInvalidArgument)
	_, err = vals.Choose(ChooseRaise, ch...)
	status(t, err, StatusType)

	// Select: np.select([x < 2, x > 3], [x, 10 * x], default)
	x := mk(FromInt64s([]int64{0, 1, 2, 3, 4, 5}, []int64{6}, []int64{4}))
	lt := mk(x.ScalarInt(OpLt, 2, false))
	gt := mk(x.ScalarInt(OpGt, 3, false))
	x10 := mk(x.ScalarInt(OpMul, 10, false))
	s := mk(SelectInt([]*Array{lt, gt}, []*Array{x, x10}, 0))
	eq(t, "select dtype", s.DType(), Int64)
	eq(t, "select chunks", s.Chunks(), [][]int64{{4, 2}})
	eq(t, "select", i64s(s, nil), []int64{0, 1, 0, 0, 40, 50})
	s = mk(Select([]*Array{lt, gt}, []*Array{x, x10}, -1.5))
	eq(t, "select float dtype", s.DType(), Float64)
	closeF(t, "select float", f64s(s, nil), []float64{0, 1, -1.5, -1.5, 40, 50})
	_, err = SelectInt([]*Array{x}, []*Array{x}, 0)
	status(t, err, StatusType)
	if !strings.Contains(err.Error(), "condlist") {
		t.Fatalf("select error %v", err)
	}
	_, err = SelectInt([]*Array{lt}, []*Array{x, x10}, 0)
	status(t, err, StatusInvalidArgument)
	_, err = SelectInt(nil, nil, 0)
	status(t, err, StatusInvalidArgument)

	// Coarsen: dask's aligned chunks and NumPy's reductions over windows
	c := mk(a.Coarsen(RedSum, []int64{2}, false))
	eq(t, "coarsen chunks (dask's aligned)", c.Chunks(), [][]int64{{2, 1, 1, 1}})
	closeF(t, "coarsen sum", f64s(c, nil), []float64{1, 5, 9, 13, 17})
	mx := mk(m.Coarsen(RedMax, []int64{1, 2}, false))
	eq(t, "coarsen 2-d chunks", mx.Chunks(), [][]int64{{2, 1}, {1, 1}})
	eq(t, "coarsen max", i64s(mx, nil), []int64{1, 3, 5, 7, 9, 11})
	b := mk(Arange(0, 10, 1, 4, Float64))
	closeF(t, "coarsen trim", f64s(b.Coarsen(RedMean, []int64{3}, true)), []float64{1, 4, 7})
	_, err = b.Coarsen(RedMean, []int64{3}, false)
	status(t, err, StatusInvalidArgument)
	if !strings.Contains(err.Error(), "do not align") {
		t.Fatalf("coarsen error %v", err)
	}
	iv := make([]int32, 12)
	for i := range iv {
		iv[i] = int32(i * 3 % 7)
	}
	ci := mk(mk(FromInt32s(iv, []int64{3, 4}, []int64{2, 3})).Coarsen(RedSum, []int64{3, 2}, false))
	eq(t, "coarsen int32 sum dtype (NumPy's int64)", ci.DType(), Int64)
	eq(t, "coarsen int32 sum", i64s(ci, nil), []int64{18, 19})
	_, err = a.Coarsen(RedSum, []int64{0}, false)
	status(t, err, StatusInvalidArgument)
	_, err = a.Coarsen(RedArgMax, []int64{2}, false)
	status(t, err, StatusInvalidArgument)
	_, err = a.Coarsen(RedSum, []int64{2, 2}, false)
	status(t, err, StatusInvalidArgument)

	// Bincount: np.bincount(x, minlength=7) and with weights; one block
	bx := mk(FromInt64s([]int64{0, 3, 1, 3, 3, 0, 5, 1, 2}, []int64{9}, []int64{4}))
	wv := make([]float64, 9)
	for i := range wv {
		wv[i] = float64(i) * 0.5
	}
	wt := mk(FromFloat64s(wv, []int64{9}, []int64{2}))
	n := mk(bx.Bincount(nil, 7, 0))
	eq(t, "bincount dtype", n.DType(), Int64)
	eq(t, "bincount chunks", n.Chunks(), [][]int64{{7}})
	eq(t, "bincount", i64s(n, nil), []int64{2, 2, 1, 3, 0, 1, 0})
	n = mk(bx.Bincount(wt, 7, 2))
	eq(t, "bincount weights dtype", n.DType(), Float64)
	closeF(t, "bincount weights", f64s(n, nil), []float64{2.5, 4.5, 4, 4, 0, 3, 0})
	_, err = mk(bx.Bincount(nil, 4, 0)).ComputeInt64s(ctx)
	if err == nil || !strings.Contains(err.Error(), "bincount") {
		t.Fatalf("bincount out of range: %v", err)
	}
	_, err = a.Bincount(nil, 7, 0)
	status(t, err, StatusType)
	_, err = m.Bincount(nil, 7, 0)
	status(t, err, StatusInvalidArgument)
}

// Insert, Delete, Choose, Select, Bincount on empty, size-1 and 0-d inputs (NumPy's values).
func TestInsertDeleteChooseSelectBincountEdgeCases(t *testing.T) {
	ctx := ctxT(t, 2)
	empty := mk(FromFloat64s(nil, []int64{0}, []int64{1}))
	vals := mk(FromFloat64s([]float64{5, 6}, []int64{2}, []int64{1}))
	r := mk(empty.Insert([]int64{0, 0}, vals, 0))
	closeF(t, "insert into empty", mk(r.ComputeFloat64s(ctx)), []float64{5, 6})
	one := mk(FromFloat64s([]float64{7}, []int64{1}, []int64{1}))
	d := mk(one.Delete([]int64{0}, 0))
	eq(t, "delete the only element", d.Shape(), []int64{0})
	_, err := empty.Delete([]int64{0}, 0)
	status(t, err, StatusInvalidArgument)
	i0 := mk(FromInt64s([]int64{1}, []int64{}, []int64{}))
	c10 := mk(FromFloat64s([]float64{10}, []int64{}, []int64{}))
	c20 := mk(FromFloat64s([]float64{20}, []int64{}, []int64{}))
	c := mk(i0.Choose(ChooseRaise, c10, c20))
	eq(t, "choose 0-d ndim", c.Ndim(), 0)
	closeF(t, "choose 0-d", mk(c.ComputeFloat64s(ctx)), []float64{20})
	eb := mk(FromBools(nil, []int64{0}, []int64{1}))
	s := mk(SelectInt([]*Array{eb}, []*Array{empty}, 0))
	eq(t, "select empty", s.Shape(), []int64{0})
	ex := mk(FromInt64s(nil, []int64{0}, []int64{1}))
	eq(t, "bincount of nothing", mk(mk(ex.Bincount(nil, 3, 0)).ComputeInt64s(ctx)), []int64{0, 0, 0})
}

// RavelMultiIndex / UnravelIndex against a plain loop (C and Fortran order, wrap/clip modes,
// ragged chunks, the raise-mode error) and BincountMinlength (NumPy's length, known after compute).
func TestRavelUnravelBincountMinlength(t *testing.T) {
	ctx := ctxT(t, 2)
	dims := []int64{4, 5}
	r := []int64{0, 3, 1, 2, 3, 0}
	c := []int64{4, 0, 2, 1, 3, 4}
	a0 := mk(FromInt64s(r, []int64{6}, []int64{2}))
	a1 := mk(FromInt64s(c, []int64{6}, []int64{4}))
	flat := mk(RavelMultiIndex([]*Array{a0, a1}, dims, nil, false))
	fl := mk(RavelMultiIndex([]*Array{a0, a1}, dims, nil, true))
	wantC, wantF := make([]int64, 6), make([]int64, 6)
	for i := range r {
		wantC[i] = r[i]*dims[1] + c[i]
		wantF[i] = r[i] + c[i]*dims[0]
	}
	eq(t, "ravel C", mk(flat.ComputeInt64s(ctx)), wantC)
	eq(t, "ravel F", mk(fl.ComputeInt64s(ctx)), wantF)
	br := mk(FromInt64s([]int64{5, -1, 9}, []int64{3}, []int64{2}))
	bc := mk(FromInt64s([]int64{7, -3, 2}, []int64{3}, []int64{3}))
	m := mk(RavelMultiIndex([]*Array{br, bc}, dims, []ChooseMode{ChooseWrap, ChooseClip}, false))
	eq(t, "ravel wrap/clip", mk(m.ComputeInt64s(ctx)), []int64{9, 15, 7})
	bad := mk(RavelMultiIndex([]*Array{br, bc}, dims, nil, false))
	if _, err := bad.ComputeInt64s(ctx); err == nil || !strings.Contains(err.Error(), "invalid entry in coordinates array") {
		t.Fatalf("raise mode: %v", err)
	}
	_, err := RavelMultiIndex([]*Array{a0}, dims, nil, false)
	status(t, err, StatusInvalidArgument)
	back := mk(flat.UnravelIndex(dims, false))
	eq(t, "unravel rows", mk(back[0].ComputeInt64s(ctx)), r)
	eq(t, "unravel cols", mk(back[1].ComputeInt64s(ctx)), c)
	backF := mk(fl.UnravelIndex(dims, true))
	eq(t, "unravel F rows", mk(backF[0].ComputeInt64s(ctx)), r)
	eq(t, "unravel F cols", mk(backF[1].ComputeInt64s(ctx)), c)
	out := mk(mk(FromInt64s([]int64{20}, []int64{1}, []int64{1})).UnravelIndex(dims, false))
	if _, err := out[0].ComputeInt64s(ctx); err == nil || !strings.Contains(err.Error(), "out of bounds") {
		t.Fatalf("unravel out of bounds: %v", err)
	}
	x := []int64{0, 3, 3, 7, 1, 0, 9}
	xa := mk(FromInt64s(x, []int64{7}, []int64{3}))
	for _, ml := range []int64{0, 4, 15} {
		b := mk(xa.BincountMinlength(nil, ml, 2))
		if b.ChunksKnown() {
			t.Fatalf("minlength %d: the length should be unknown before the compute", ml)
		}
		n := int64(10)
		if ml > n {
			n = ml
		}
		want := make([]int64, n)
		for _, v := range x {
			want[v]++
		}
		eq(t, fmt.Sprintf("bincount minlength %d", ml), mk(mk(b.ComputeChunkSizes(ctx)).ComputeInt64s(ctx)), want)
	}
	_, err = xa.BincountMinlength(nil, -1, 0)
	status(t, err, StatusInvalidArgument)
}

// TestHistograms: Histogram / Histogramdd (ca_array_histogramdd) against NumPy 1.24's values and
// dask 2022.12's chunks (one block).
func TestHistograms(t *testing.T) {
	ctx := ctxT(t, 2)
	f64s := func(a *Array) []float64 { t.Helper(); return mk(a.ComputeFloat64s(ctx)) }
	i64s := func(a *Array) []int64 { t.Helper(); return mk(a.ComputeInt64s(ctx)) }
	nan := math.NaN()
	// np.histogram([0, .1, .25, .5, .99, 1, 1.5, nan, -1], bins=4, range=(0, 1)) -> [2, 1, 1, 2]
	a := mk(FromFloat64s([]float64{0, 0.1, 0.25, 0.5, 0.99, 1, 1.5, nan, -1}, []int64{9}, []int64{4}))
	h, e, err := a.Histogram(HistogramBins{NBins: 4, Lo: 0, Hi: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "histogram dtype", h.DType(), Int64)
	eq(t, "histogram chunks", h.Chunks(), [][]int64{{4}})
	eq(t, "histogram", i64s(h), []int64{2, 1, 1, 2})
	closeF(t, "histogram edges", f64s(e), []float64{0, 0.25, 0.5, 0.75, 1})
	// weights and density with explicit edges: counts [6, 22], widths [.5, 1.5], total 28
	w := mk(FromFloat64s([]float64{1, 2, 3, 4, 5, 6, 7, 8, 9}, []int64{9}, []int64{9}))
	edges := mk(FromFloat64s([]float64{0, 0.5, 2}, []int64{3}, []int64{2}))
	h, _, err = a.Histogram(HistogramBins{Edges: edges}, &HistogramOptions{Weights: w, Density: true})
	if err != nil {
		t.Fatal(err)
	}
	closeF(t, "histogram density", f64s(h), []float64{6 / 0.5 / 28, 22 / 1.5 / 28})
	// histogram2d on a 2-d grid of blocks: y = 2x
	xs := make([]float64, 12)
	ys := make([]float64, 12)
	for i := range xs {
		xs[i], ys[i] = float64(i), 2*float64(i)
	}
	x := mk(FromFloat64s(xs, []int64{3, 4}, []int64{2, 3}))
	y := mk(FromFloat64s(ys, []int64{3, 4}, []int64{3, 2}))
	h, es, err := Histogramdd([]*Array{x, y}, []HistogramBins{{NBins: 2, Lo: 0, Hi: 12}, {Edges: edges}},
		&HistogramOptions{SplitEvery: 2})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "histogramdd dtype", h.DType(), Float64)
	eq(t, "histogramdd chunks", h.Chunks(), [][]int64{{2}, {2}})
	closeF(t, "histogramdd", f64s(h), []float64{1, 1, 0, 0})
	closeF(t, "histogramdd edges", f64s(es[0]), []float64{0, 6, 12})
	// errors
	if _, _, err := a.Histogram(HistogramBins{NBins: 2, Lo: 1, Hi: 0}, nil); err == nil ||
		!strings.Contains(err.Error(), "max must be larger than min") {
		t.Fatalf("histogram lo > hi: %v", err)
	}
	if _, _, err := Histogramdd([]*Array{x}, nil, nil); err == nil {
		t.Fatal("histogramdd without bins: no error")
	}
}
