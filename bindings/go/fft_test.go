package chunkarray

// The FFT functions against a plain O(n^2) DFT loop: every kind with n smaller and larger than the
// axis and every norm, ragged chunks along the other axis (kept; the transformed axis one block),
// the 2-d and n-d forms, FFTFreq/RFFTFreq/FFTShift/IFFTShift against NumPy's formulas, and dask's
// error when the transformed axis has several blocks.

import (
	"fmt"
	"math"
	"math/cmplx"
	"strings"
	"testing"
)

func fwdScale(norm FFTNorm, n int) float64 {
	switch norm {
	case NormOrtho:
		return 1 / math.Sqrt(float64(n))
	case NormForward:
		return 1 / float64(n)
	}
	return 1
}

func invScale(norm FFTNorm, n int) float64 {
	switch norm {
	case NormOrtho:
		return 1 / math.Sqrt(float64(n))
	case NormForward:
		return 1
	}
	return 1 / float64(n)
}

// dft is sum_j x[j] exp(sign 2 pi i jk/n) * scale over x truncated or zero-padded to n.
func dft(x []complex128, n int, sign, scale float64) []complex128 {
	out := make([]complex128, n)
	for k := 0; k < n; k++ {
		var s complex128
		for j := 0; j < n && j < len(x); j++ {
			s += x[j] * cmplx.Rect(1, sign*2*math.Pi*float64((j*k)%n)/float64(n))
		}
		out[k] = s * complex(scale, 0)
	}
	return out
}

// hermitian is the full spectrum of length n from its first half, as NumPy's irfft reads it.
func hermitian(x []complex128, n int) []complex128 {
	get := func(k int) complex128 {
		if k < len(x) {
			return x[k]
		}
		return 0
	}
	out := make([]complex128, n)
	for k := 0; k < n; k++ {
		switch {
		case k == 0 || (n%2 == 0 && k == n/2):
			out[k] = complex(real(get(k)), 0)
		case k <= n/2:
			out[k] = get(k)
		default:
			out[k] = cmplx.Conj(get(n - k))
		}
	}
	return out
}

func conjAll(x []complex128) []complex128 {
	out := make([]complex128, len(x))
	for i, v := range x {
		out[i] = cmplx.Conj(v)
	}
	return out
}

func realPart(x []complex128) []complex128 {
	out := make([]complex128, len(x))
	for i, v := range x {
		out[i] = complex(real(v), 0)
	}
	return out
}

// reference is the loop's result of kind on one row with transform length n.
func reference(kind FFTKind, row []complex128, n int, norm FFTNorm) []complex128 {
	switch kind {
	case KindFFT:
		return dft(row, n, -1, fwdScale(norm, n))
	case KindIFFT:
		return dft(row, n, 1, invScale(norm, n))
	case KindRFFT:
		return dft(realPart(row), n, -1, fwdScale(norm, n))[:n/2+1]
	case KindIRFFT:
		return realPart(dft(hermitian(row, n), n, 1, invScale(norm, n)))
	case KindHFFT:
		return realPart(dft(hermitian(conjAll(row), n), n, 1, fwdScale(norm, n)))
	default: // KindIHFFT
		return conjAll(dft(realPart(row), n, -1, invScale(norm, n))[:n/2+1])
	}
}

func complexes(t *testing.T, ctx *Context, a *Array) []complex128 {
	t.Helper()
	if a.DType() == Float64 {
		v := mk(a.ComputeFloat64s(ctx))
		out := make([]complex128, len(v))
		for i, x := range v {
			out[i] = complex(x, 0)
		}
		return out
	}
	if a.DType() != Complex128 {
		t.Fatalf("dtype %v, want complex128 or float64", a.DType())
	}
	re := mk(mk(a.Real()).ComputeFloat64s(ctx))
	im := mk(mk(a.Imag()).ComputeFloat64s(ctx))
	out := make([]complex128, len(re))
	for i := range re {
		out[i] = complex(re[i], im[i])
	}
	return out
}

func closeC(t *testing.T, what string, got, want []complex128) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	mag := 1.0
	for _, w := range want {
		mag = math.Max(mag, math.Max(math.Abs(real(w)), math.Abs(imag(w))))
	}
	for i := range got {
		if math.Abs(real(got[i])-real(want[i])) > 1e-10*mag || math.Abs(imag(got[i])-imag(want[i])) > 1e-10*mag {
			t.Fatalf("%s[%d]: %v, want %v", what, i, got[i], want[i])
		}
	}
}

const fftRows, fftCols = 5, 6

func fftSignal() []float64 {
	v := make([]float64, fftRows*fftCols)
	for i := range v {
		v[i] = float64(i*37%23)/3 - 2.5
	}
	return v
}

func checkKind(t *testing.T, ctx *Context, x *Array, rows [][]complex128, kind FFTKind, ns []int64) {
	t.Helper()
	m := len(rows[0])
	for _, norm := range []FFTNorm{NormBackward, NormOrtho, NormForward} {
		for _, n := range ns {
			length := m
			if kind == KindIRFFT || kind == KindHFFT {
				length = 2 * (m - 1)
			}
			if n != 0 {
				length = int(n)
			}
			outLen := length
			if kind == KindRFFT || kind == KindIHFFT {
				outLen = length/2 + 1
			}
			what := fmt.Sprintf("kind %d n=%d norm %d", kind, n, norm)
			o := &FFTOptions{Axes: []int32{-1}, Norm: norm}
			if n != 0 {
				o.S = []int64{n}
			}
			r := mk(FFTTransform(x, kind, o))
			eq(t, what+" chunks (dask's)", r.Chunks(), [][]int64{{2, 2, 1}, {int64(outLen)}})
			if (kind == KindIRFFT || kind == KindHFFT) != (r.DType() == Float64) {
				t.Fatalf("%s: dtype %v", what, r.DType())
			}
			var want []complex128
			for _, row := range rows {
				want = append(want, reference(kind, row, length, norm)...)
			}
			closeC(t, what, complexes(t, ctx, r), want)
		}
	}
}

func TestFFTOneAxisAgainstLoop(t *testing.T) {
	ctx := ctxT(t, 2)
	v := fftSignal()
	x := mk(FromFloat64s(v, []int64{fftRows, fftCols}, []int64{2, -1})) // rows (2, 2, 1): ragged
	var rows [][]complex128
	for i := 0; i < fftRows; i++ {
		rows = append(rows, complexesOf(v[i*fftCols:(i+1)*fftCols]))
	}
	for _, kind := range []FFTKind{KindFFT, KindIFFT, KindRFFT, KindIHFFT} {
		checkKind(t, ctx, x, rows, kind, []int64{0, 4, 9, 1})
	}
	spec := mk(FFT(x, 0, -1, NormBackward)) // complex input with the same ragged rows
	sv := complexes(t, ctx, spec)
	var srows [][]complex128
	for i := 0; i < fftRows; i++ {
		srows = append(srows, sv[i*fftCols:(i+1)*fftCols])
	}
	for _, kind := range []FFTKind{KindFFT, KindIFFT, KindIRFFT, KindHFFT} {
		checkKind(t, ctx, spec, srows, kind, []int64{0, 4, 9, 2})
	}
	closeC(t, "ifft(fft(x))", complexes(t, ctx, mk(IFFT(spec, 0, -1, NormBackward))), complexesOf(v))
	half := mk(RFFT(x, 0, 1, NormOrtho))
	closeC(t, "irfft(rfft(x))", complexes(t, ctx, mk(IRFFT(half, fftCols, 1, NormOrtho))), complexesOf(v))
	closeC(t, "hfft == transform", complexes(t, ctx, mk(HFFT(spec, 7, -1, NormForward))),
		complexes(t, ctx, mk(FFTTransform(spec, KindHFFT, &FFTOptions{S: []int64{7}, Norm: NormForward}))))
	eq(t, "ihfft shape", mk(IHFFT(x, 0, -1, NormBackward)).Shape(), []int64{fftRows, fftCols/2 + 1})
	// integer input is computed in double precision
	iv := make([]int32, 12)
	for i := range iv {
		iv[i] = int32(i*5%7 - 3)
	}
	xi := mk(FromInt32s(iv, []int64{3, 4}, []int64{1, 4}))
	ri := mk(FFT(xi, 0, -1, NormBackward))
	eq(t, "fft int32 dtype", ri.DType(), Complex128)
	var want []complex128
	for i := 0; i < 3; i++ {
		row := make([]complex128, 4)
		for j := range row {
			row[j] = complex(float64(iv[i*4+j]), 0)
		}
		want = append(want, reference(KindFFT, row, 4, NormBackward)...)
	}
	closeC(t, "fft int32", complexes(t, ctx, ri), want)
}

func complexesOf(v []float64) []complex128 {
	out := make([]complex128, len(v))
	for i, x := range v {
		out[i] = complex(x, 0)
	}
	return out
}

func TestFFTSeveralAxes(t *testing.T) {
	ctx := ctxT(t, 2)
	v := fftSignal()
	x := mk(FromFloat64s(v, []int64{fftRows, fftCols}, []int64{2, -1}))
	// axis 0 has three blocks: dask's error
	_, err := FFT2(x, nil, []int32{-2, -1}, NormBackward)
	status(t, err, StatusInvalidArgument)
	if !strings.Contains(err.Error(), "only supports taking an FFT along an axis that") {
		t.Fatalf("fft2 error: %v", err)
	}
	_, err = FFT(x, 0, 0, NormBackward)
	status(t, err, StatusInvalidArgument)
	one := mk(x.Rechunk([]int64{-1, -1}))
	s0, s1 := 4, 8
	r := mk(FFT2(one, []int64{int64(s0), int64(s1)}, []int32{-2, -1}, NormOrtho))
	eq(t, "fft2 shape", r.Shape(), []int64{int64(s0), int64(s1)})
	rows := make([][]complex128, s0)
	for i := 0; i < s0; i++ {
		rows[i] = reference(KindFFT, complexesOf(v[i*fftCols:(i+1)*fftCols]), s1, NormOrtho)
	}
	want := make([]complex128, s0*s1)
	for c := 0; c < s1; c++ {
		col := make([]complex128, s0)
		for i := range col {
			col[i] = rows[i][c]
		}
		for k, z := range reference(KindFFT, col, s0, NormOrtho) {
			want[k*s1+c] = z
		}
	}
	closeC(t, "fft2 s=(4, 8) ortho", complexes(t, ctx, r), want)
	n := mk(FFTN(one, nil, nil, NormBackward))
	closeC(t, "fftn vs fft2", complexes(t, ctx, n), complexes(t, ctx, mk(FFT2(one, nil, []int32{0, 1}, NormBackward))))
	closeC(t, "ifftn(fftn(x))", complexes(t, ctx, mk(IFFTN(n, nil, nil, NormBackward))), complexesOf(v))
	rn := mk(RFFTN(one, nil, nil, NormForward))
	eq(t, "rfftn shape", rn.Shape(), []int64{fftRows, fftCols/2 + 1})
	closeC(t, "irfftn(rfftn(x))", complexes(t, ctx, mk(IRFFTN(rn, []int64{fftRows, fftCols}, nil, NormForward))), complexesOf(v))
	r2 := mk(RFFT2(one, nil, []int32{0, 1}, NormBackward))
	closeC(t, "irfft2(rfft2(x))", complexes(t, ctx, mk(IRFFT2(r2, []int64{fftRows, fftCols}, []int32{0, 1}, NormBackward))), complexesOf(v))
	f2 := mk(FFT2(one, nil, []int32{0, 1}, NormForward))
	closeC(t, "ifft2(fft2(x))", complexes(t, ctx, mk(IFFT2(f2, nil, []int32{0, 1}, NormForward))), complexesOf(v))
	for _, c := range []struct {
		kind   FFTKind
		o      FFTOptions
		needle string
	}{
		{KindFFT, FFTOptions{Axes: []int32{0, 0}}, "Duplicate axes"},
		{KindFFT, FFTOptions{Axes: []int32{0, 1}, S: []int64{3}}, "different lengths"},
		{KindFFT, FFTOptions{Axes: []int32{1}, S: []int64{0}}, "Invalid number of FFT data points"},
		{KindHFFT, FFTOptions{Axes: []int32{0, 1}}, ""},
		{KindFFT, FFTOptions{Axes: []int32{2}}, ""},
		{KindFFT, FFTOptions{Axes: []int32{}}, ""},
		{KindFFT, FFTOptions{Norm: FFTNorm(7)}, ""},
	} {
		o := c.o
		_, err := FFTTransform(one, c.kind, &o)
		status(t, err, StatusInvalidArgument)
		if !strings.Contains(err.Error(), c.needle) {
			t.Fatalf("%+v: %v does not mention %q", c.o, err, c.needle)
		}
	}
}

func TestFFTFreqAndShift(t *testing.T) {
	ctx := ctxT(t, 2)
	for _, n := range []int64{1, 4, 7, 10} {
		d := 0.25
		want := make([]float64, n)
		for i := int64(0); i < n; i++ {
			k := i
			if i >= (n+1)/2 {
				k = i - n
			}
			want[i] = float64(k) / (float64(n) * d)
		}
		closeF(t, fmt.Sprintf("fftfreq(%d)", n), mk(mk(FFTFreq(n, d, 3)).ComputeFloat64s(ctx)), want)
		r := mk(RFFTFreq(n, d, -1))
		eq(t, "rfftfreq chunks", r.Chunks(), [][]int64{{n/2 + 1}})
		rw := make([]float64, n/2+1)
		for i := range rw {
			rw[i] = float64(i) / (float64(n) * d)
		}
		closeF(t, fmt.Sprintf("rfftfreq(%d)", n), mk(r.ComputeFloat64s(ctx)), rw)
	}
	eq(t, "fftfreq chunks", mk(FFTFreq(8, 1, 3)).Chunks(), [][]int64{{3, 3, 2}})
	_, err := FFTFreq(0, 1, 3)
	status(t, err, StatusInvalidArgument)
	v := make([]int64, 15)
	for i := range v {
		v[i] = int64(i)
	}
	x := mk(FromInt64s(v, []int64{3, 5}, []int64{2, 2}))
	roll := func(sh0, sh1 int64) []int64 {
		out := make([]int64, 15)
		for i := int64(0); i < 3; i++ {
			for j := int64(0); j < 5; j++ {
				out[((i+sh0+3)%3)*5+(j+sh1+5)%5] = v[i*5+j]
			}
		}
		return out
	}
	s := mk(FFTShift(x, nil))
	eq(t, "fftshift", mk(s.ComputeInt64s(ctx)), roll(1, 2))
	eq(t, "fftshift axis 1", mk(mk(FFTShift(x, []int32{1})).ComputeInt64s(ctx)), roll(0, 2))
	eq(t, "ifftshift", mk(mk(IFFTShift(x, nil)).ComputeInt64s(ctx)), roll(-1, -2))
	eq(t, "ifftshift(fftshift)", mk(mk(IFFTShift(s, nil)).ComputeInt64s(ctx)), v)
	_, err = FFTShift(x, []int32{2})
	status(t, err, StatusInvalidArgument)
	if b := FFTBackend(); b != "pocketfft" && b != "kissfft" && b != "fftw3" {
		t.Fatalf("backend %q", b)
	}
}

// Empty and size-1 inputs: the (0, 4) array keeps its empty axis (dask's ((0,), (4,))); one point.
func TestFFTEmptyAndOnePoint(t *testing.T) {
	ctx := ctxT(t, 2)
	e := mk(Zeros([]int64{0, 4}, []int64{2, 4}, Float64))
	r := mk(FFT(e, 0, 1, NormBackward))
	eq(t, "fft of (0, 4) shape", r.Shape(), []int64{0, 4})
	eq(t, "fft of (0, 4) dtype", r.DType(), Complex128)
	eq(t, "fft of (0, 4) values", len(complexes(t, ctx, r)), 0)
	one := mk(FromFloat64s([]float64{3.5}, []int64{1}, []int64{1}))
	closeC(t, "fft of one point", complexes(t, ctx, mk(FFT(one, 0, 0, NormBackward))), []complex128{3.5})
	closeC(t, "rfft of one point, n=3", complexes(t, ctx, mk(RFFT(one, 3, 0, NormBackward))), []complex128{3.5, 3.5})
}
