// One-dimensional FFT plans: the unnormalized complex DFT of any length (forward: exp(-2πi jk/n),
// inverse: exp(+2πi jk/n)) and the real-input (r2c, n/2+1 outputs) and real-output (c2r, from n/2+1
// inputs, NumPy's pocketfft rule: the imaginary parts of the first and, for even n, the last input
// are ignored) transforms, in double precision.
//
// Backends (one per build, src/fft/meson.build): pocketfft's C++ header (BSD-3-Clause; Debian ships
// it in python3-pythran) by default, whose n-d interface the kernels also call directly on whole
// blocks; KISS FFT's C++ template (Debian's libkissfft-dev, BSD-3-Clause; header-only here, in
// double) with -Dfft=kissfft or when pocketfft's header is missing; FFTW 3 (libfftw3-dev, GPL) with
// -Dfft=fftw / -Dfftw=enabled. On top of KISS FFT, lengths with a large prime factor (KISS's generic butterfly is O(n·p)) go through
// Bluestein's chirp-z algorithm over a 2^a·3^b·5^c length, and real transforms of even length use
// the half-length complex transform (odd lengths: the full complex transform).
//
// KISS FFT plans are cached per thread (KISS FFT's generic butterfly keeps scratch in the plan, so a plan is
// not shared between threads), keyed by length and direction: one plan per block shape and thread.
#pragma once

#include <complex>
#include <cstdint>

namespace ca::fft {

using cd = std::complex<double>;

/// The backend this library was built with: "pocketfft", "kissfft" or "fftw3".
const char *backend_name() noexcept;

/// out[k] = Σ_j in[j] · exp(∓2πi jk / n) (inverse: +). in and out may not overlap; n >= 1.
void c2c(int64_t n, bool inverse, const cd *in, cd *out);
/// out[k], k = 0 .. n/2: the forward DFT of n real values. in and out may not overlap.
void r2c(int64_t n, const double *in, cd *out);
/// Two r2c transforms of the same length at once (KISS FFT, odd n: both rows packed into one complex
/// transform, x + iy, and separated by symmetry; otherwise two r2c calls).
void r2c2(int64_t n, const double *in0, const double *in1, cd *out0, cd *out1);
/// out[j], j < n: the unnormalized inverse DFT of the Hermitian sequence whose first n/2+1 terms are
/// `in` (imaginary parts of in[0] and, for even n, in[n/2] ignored). `in` is used as scratch (its
/// contents are undefined afterwards).
void c2r(int64_t n, cd *in, double *out);

/// Drops this thread's cached plans (tests; the cache also resets itself past a size limit).
void clear_plan_cache() noexcept;

}  // namespace ca::fft
