// dask.array.fft on chunked arrays: fft, ifft, rfft, irfft, hfft, ihfft and their 2-d / n-d forms,
// fftfreq, rfftfreq, fftshift, ifftshift.
//
// dask's rule: every transformed axis must be one block (dask's error text otherwise; rechunk
// first); the other axes keep their chunks, ragged or unknown. One task per block: a
// `ca.fft.c2c` / `ca.fft.r2c` / `ca.fft.c2r` kernel does the whole n-d transform of its block in
// double precision (NumPy 1.24's pocketfft computes every input dtype in double: complex128 results,
// float64 for irfft/hfft), with the 1-d plans of plan.hpp along each axis. hfft and ihfft are NumPy's
// compositions: irfft of the conjugate and the conjugate of rfft, with the normalization direction
// swapped. Output chunks are dask's (_fft_out_chunks and friends in dask/array/fft.py).
//
// fftfreq / rfftfreq are dask's arange + `ca.fft.freq` per block; fftshift / ifftshift are dask's
// concatenation of two slices per axis (rechunked back when the axis was one block).
#pragma once

#include <cstdint>
#include <vector>

#include "array/array.hpp"

namespace ca {

class KernelRegistry;

namespace fft {

/// The transform families; values are the C API's CA_FFT_* codes.
enum class Kind : int32_t { Fft = 0, Ifft = 1, Rfft = 2, Irfft = 3, Hfft = 4, Ihfft = 5 };
/// NumPy's norm= ("backward", "ortho", "forward"); values are CA_FFT_NORM_*.
enum class Norm : int32_t { Backward = 0, Ortho = 1, Forward = 2 };

struct Options {
  bool has_axes = false;      // false: the kind's default (dask's): hfft/ihfft the last axis, the others
  std::vector<int64_t> axes;  //   every axis, or the first len(s) axes when s is given
  bool has_s = false;         // false: the input's lengths (irfft/hfft: 2 * (m - 1) on the last axis)
  std::vector<int64_t> s;     // output lengths per transformed axis (n for the 1-d kinds)
  Norm norm = Norm::Backward;
};

/// The transform `kind` over opts' axes (NumPy's fftn/rfftn/irfftn semantics, one or more axes;
/// hfft/ihfft take one axis). `what` names the function in error messages.
/// Throws CA_EINVAL (axes out of range or repeated, s and axes of different lengths, a length < 1,
/// an unknown norm or kind, a transformed axis of several blocks or of unknown size) and CA_ETYPE
/// (a dtype that is not bool, integer, floating or complex).
ArrayPtr transform(const ArrayPtr &a, Kind kind, const Options &opts, const char *what);

/// numpy.fft.fftfreq(n, d) (rfft: rfftfreq), float64 with `chunks` (1-d, summing to n, or n/2+1).
ArrayPtr fftfreq(int64_t n, double d, const Chunks &chunks, bool rfft);

/// dask's fftshift (inverse: ifftshift) over `axes` (has_axes false: every axis).
ArrayPtr fftshift(const ArrayPtr &a, bool has_axes, const std::vector<int64_t> &axes, bool inverse);

/// Registers ca.fft.c2c, ca.fft.r2c, ca.fft.c2r and ca.fft.freq.
void register_fft_kernels(KernelRegistry &reg);

}  // namespace fft
}  // namespace ca
