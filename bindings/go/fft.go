package chunkarray

// numpy.fft / dask.array.fft over the C library's fft.h: FFT, IFFT, RFFT, IRFFT, HFFT, IHFFT along
// one axis, FFT2/IFFT2/RFFT2/IRFFT2 and FFTN/IFFTN/RFFTN/IRFFTN over several, the general
// FFTTransform with FFTOptions, FFTFreq, RFFTFreq, FFTShift, IFFTShift and FFTBackend.
//
// dask's rule: every transformed axis must be one block (StatusInvalidArgument with dask's message
// otherwise: rechunk it first); the other axes keep their chunks. Values are NumPy's, computed in
// double precision: complex128 results, float64 for the IRFFT kinds and HFFT.

/*
#include "shim.h"
*/
import "C"

import "unsafe"

// FFTKind is the transform family (ca_fft_kind_t); the 2-d and n-d forms are the same kind over
// more axes.
type FFTKind int32

// The transform families.
const (
	KindFFT   FFTKind = C.CA_FFT_FFT   // complex forward DFT (fft, fft2, fftn)
	KindIFFT  FFTKind = C.CA_FFT_IFFT  // complex inverse DFT (ifft, ifft2, ifftn)
	KindRFFT  FFTKind = C.CA_FFT_RFFT  // real-input forward DFT, n/2+1 outputs along the last axis
	KindIRFFT FFTKind = C.CA_FFT_IRFFT // inverse of RFFT: n real outputs along the last axis
	KindHFFT  FFTKind = C.CA_FFT_HFFT  // the real DFT of a Hermitian-symmetric signal (one axis)
	KindIHFFT FFTKind = C.CA_FFT_IHFFT // inverse of HFFT (one axis)
)

// FFTNorm is NumPy's norm= (ca_fft_norm_t): which direction is scaled, and by what.
type FFTNorm int32

// The normalizations.
const (
	NormBackward FFTNorm = C.CA_FFT_NORM_BACKWARD // NumPy's default: forward unscaled, inverse by 1/n
	NormOrtho    FFTNorm = C.CA_FFT_NORM_ORTHO    // both directions by 1/sqrt(n)
	NormForward  FFTNorm = C.CA_FFT_NORM_FORWARD  // forward by 1/n, inverse unscaled
)

// FFTOptions are the options of FFTTransform (ca_fft_options_t). The zero value is NumPy's
// defaults: dask's default axes, the input's lengths, norm "backward".
type FFTOptions struct {
	// Axes to transform (negative count from the end; for the R/IR kinds the last is the real
	// axis). nil: dask's default (the last axis for HFFT/IHFFT, otherwise every axis, or the first
	// len(S) axes when S is given).
	Axes []int32
	// S is the length per transformed axis (NumPy's s=, n= for one axis): each input axis truncated
	// or zero-padded to it. nil: the input's lengths (2*(m-1) on the last axis for IRFFT/HFFT).
	S    []int64
	Norm FFTNorm
}

// FFTTransform is the discrete Fourier transform kind of a over o.Axes (numpy.fft.fftn, ifftn,
// rfftn, irfftn, hfft, ihfft; o nil: the defaults) with dask's chunks: every transformed axis one
// block of its output length. Errors: StatusInvalidArgument (a transformed axis of several blocks
// or of unknown size, an axis out of range or repeated, S and Axes of different lengths, a length
// below 1, several axes for HFFT/IHFFT), StatusType (a dtype that is not bool, integer, floating
// or complex).
func FFTTransform(a *Array, kind FFTKind, o *FFTOptions) (*Array, error) {
	if a == nil || a.h == nil {
		return nil, newError(StatusInvalidArgument, "FFTTransform: array is nil or closed")
	}
	opts := (*C.ca_fft_options_t)(C.calloc(1, C.sizeof_ca_fft_options_t))
	defer C.free(unsafe.Pointer(opts))
	opts.struct_size = C.uint32_t(C.sizeof_ca_fft_options_t)
	opts.naxes = -1
	opts.ns = -1
	if o != nil {
		if o.Axes != nil {
			opts.naxes = C.int32_t(len(o.Axes))
			opts.axes = cInt32s(o.Axes)
			if opts.axes != nil {
				defer C.free(unsafe.Pointer(opts.axes))
			}
		}
		if o.S != nil {
			opts.ns = C.int32_t(len(o.S))
			opts.s = cInt64s(o.S)
			defer C.free(unsafe.Pointer(opts.s))
		}
		opts.norm = C.ca_fft_norm_t(o.Norm)
	}
	return newArray(func(out **C.ca_array_t) C.ca_status_t {
		return C.ca_fft_transform(out, a.h, C.ca_fft_kind_t(kind), opts)
	})
}

func fftOne(a *Array, kind FFTKind, n int64, axis int32, norm FFTNorm) (*Array, error) {
	o := &FFTOptions{Axes: []int32{axis}, Norm: norm}
	if n != 0 {
		o.S = []int64{n}
	}
	return FFTTransform(a, kind, o)
}

// FFT is np.fft.fft(a, n, axis, norm): the complex DFT along axis (n 0: the axis' length).
func FFT(a *Array, n int64, axis int32, norm FFTNorm) (*Array, error) {
	return fftOne(a, KindFFT, n, axis, norm)
}

// IFFT is np.fft.ifft(a, n, axis, norm): the inverse complex DFT along axis.
func IFFT(a *Array, n int64, axis int32, norm FFTNorm) (*Array, error) {
	return fftOne(a, KindIFFT, n, axis, norm)
}

// RFFT is np.fft.rfft(a, n, axis, norm): n/2+1 complex values of the DFT of real input (a complex
// input's imaginary part is discarded, as NumPy does).
func RFFT(a *Array, n int64, axis int32, norm FFTNorm) (*Array, error) {
	return fftOne(a, KindRFFT, n, axis, norm)
}

// IRFFT is np.fft.irfft(a, n, axis, norm): the inverse of RFFT, n float64 values (0: 2*(m-1)).
func IRFFT(a *Array, n int64, axis int32, norm FFTNorm) (*Array, error) {
	return fftOne(a, KindIRFFT, n, axis, norm)
}

// HFFT is np.fft.hfft(a, n, axis, norm): the real DFT of a Hermitian-symmetric signal given by its
// first half (n 0: 2*(m-1)).
func HFFT(a *Array, n int64, axis int32, norm FFTNorm) (*Array, error) {
	return fftOne(a, KindHFFT, n, axis, norm)
}

// IHFFT is np.fft.ihfft(a, n, axis, norm): the inverse of HFFT, n/2+1 complex values.
func IHFFT(a *Array, n int64, axis int32, norm FFTNorm) (*Array, error) {
	return fftOne(a, KindIHFFT, n, axis, norm)
}

// FFT2 is np.fft.fft2(a, s, axes, norm) (s nil: the input's lengths; NumPy's axes are {-2, -1}).
func FFT2(a *Array, s []int64, axes []int32, norm FFTNorm) (*Array, error) {
	return FFTTransform(a, KindFFT, &FFTOptions{Axes: axes, S: s, Norm: norm})
}

// IFFT2 is np.fft.ifft2(a, s, axes, norm).
func IFFT2(a *Array, s []int64, axes []int32, norm FFTNorm) (*Array, error) {
	return FFTTransform(a, KindIFFT, &FFTOptions{Axes: axes, S: s, Norm: norm})
}

// RFFT2 is np.fft.rfft2(a, s, axes, norm): the last of axes is the real one.
func RFFT2(a *Array, s []int64, axes []int32, norm FFTNorm) (*Array, error) {
	return FFTTransform(a, KindRFFT, &FFTOptions{Axes: axes, S: s, Norm: norm})
}

// IRFFT2 is np.fft.irfft2(a, s, axes, norm).
func IRFFT2(a *Array, s []int64, axes []int32, norm FFTNorm) (*Array, error) {
	return FFTTransform(a, KindIRFFT, &FFTOptions{Axes: axes, S: s, Norm: norm})
}

// FFTN is dask's fftn(a, s, axes, norm) (axes nil: every axis, or the first len(s) with s).
func FFTN(a *Array, s []int64, axes []int32, norm FFTNorm) (*Array, error) {
	return FFTTransform(a, KindFFT, &FFTOptions{Axes: axes, S: s, Norm: norm})
}

// IFFTN is dask's ifftn(a, s, axes, norm).
func IFFTN(a *Array, s []int64, axes []int32, norm FFTNorm) (*Array, error) {
	return FFTTransform(a, KindIFFT, &FFTOptions{Axes: axes, S: s, Norm: norm})
}

// RFFTN is dask's rfftn(a, s, axes, norm).
func RFFTN(a *Array, s []int64, axes []int32, norm FFTNorm) (*Array, error) {
	return FFTTransform(a, KindRFFT, &FFTOptions{Axes: axes, S: s, Norm: norm})
}

// IRFFTN is dask's irfftn(a, s, axes, norm).
func IRFFTN(a *Array, s []int64, axes []int32, norm FFTNorm) (*Array, error) {
	return FFTTransform(a, KindIRFFT, &FFTOptions{Axes: axes, S: s, Norm: norm})
}

func fftFreq(name string, n, length int64, d float64, chunk int64,
	f func(out **C.ca_array_t, cc *C.ca_chunks_t) C.ca_status_t) (*Array, error) {
	if n < 1 {
		return nil, newError(StatusInvalidArgument, "%s: n must be at least 1, got %d", name, n)
	}
	norm, err := NormalizeChunks([]int64{length}, []int64{chunk}, Float64)
	if err != nil {
		return nil, err
	}
	cc := newCChunks(norm)
	defer cc.free()
	return newArray(func(out **C.ca_array_t) C.ca_status_t { return f(out, &cc.c) })
}

// FFTFreq is np.fft.fftfreq(n, d): [0, 1, ..., (n-1)/2, -(n/2), ..., -1] / (n*d), float64, in blocks
// of chunk (-1: one block).
func FFTFreq(n int64, d float64, chunk int64) (*Array, error) {
	return fftFreq("FFTFreq", n, n, d, chunk, func(out **C.ca_array_t, cc *C.ca_chunks_t) C.ca_status_t {
		return C.ca_fft_fftfreq(out, C.int64_t(n), C.double(d), cc)
	})
}

// RFFTFreq is np.fft.rfftfreq(n, d): [0, 1, ..., n/2] / (n*d), float64 (n/2+1 values) in blocks of
// chunk (-1: one block).
func RFFTFreq(n int64, d float64, chunk int64) (*Array, error) {
	return fftFreq("RFFTFreq", n, n/2+1, d, chunk, func(out **C.ca_array_t, cc *C.ca_chunks_t) C.ca_status_t {
		return C.ca_fft_rfftfreq(out, C.int64_t(n), C.double(d), cc)
	})
}

func fftShift(a *Array, axes []int32, inverse bool) (*Array, error) {
	n := C.int32_t(-1)
	ap := cInt32s(axes)
	if axes != nil {
		n = C.int32_t(len(axes))
	}
	if ap != nil {
		defer C.free(unsafe.Pointer(ap))
	}
	return newArray(func(out **C.ca_array_t) C.ca_status_t {
		if inverse {
			return C.ca_fft_ifftshift(out, a.h, ap, n)
		}
		return C.ca_fft_fftshift(out, a.h, ap, n)
	})
}

// FFTShift is dask's fftshift(a, axes): the zero-frequency term moved to the centre of each axis
// in axes (nil: every axis; an axis listed twice is shifted twice).
func FFTShift(a *Array, axes []int32) (*Array, error) { return fftShift(a, axes, false) }

// IFFTShift is dask's ifftshift(a, axes): the inverse of FFTShift.
func IFFTShift(a *Array, axes []int32) (*Array, error) { return fftShift(a, axes, true) }

// FFTBackend is the FFT library the linked libchunkarray was built with: "pocketfft" (the
// default), "kissfft" (-Dfft=kissfft) or "fftw3" (-Dfft=fftw, -Dfftw=enabled).
func FFTBackend() string { return C.GoString(C.ca_fft_backend()) }
