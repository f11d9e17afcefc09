// The pocketfft backend (-Dfft=pocketfft, the default; src/fft/meson.build): pocketfft's n-d
// transforms (c2c, r2c, c2r over any axes of a strided array, `fct` applied once), instantiated from
// Debian's copy of its header in double precision, once per x86-64 ISA level (baseline SSE2, AVX2 +
// FMA, AVX-512F: pocketfft transforms 2, 4 or 8 neighbouring lines at once in SIMD registers of that
// width), and the widest this CPU runs chosen once at first use (the fused interpreter's choice,
// ca::vecmath::active_level(): CA_DISABLE_CPU_FEATURES=avx2 or avx512f lowers it). Not compiled in
// other builds.
//
// Shapes are in elements, strides in bytes (may be those of a larger array: a truncated view). The
// input and output may be the same buffer (c2c, same strides) but may not otherwise overlap.
// pocketfft keeps its 1-d plans in its own process-wide cache (16 plans per kind and ISA level, LRU,
// under a mutex; plans are immutable and shared by threads). Runs on the calling thread
// (POCKETFFT_NO_MULTITHREADING). Errors are C++ exceptions (std::bad_alloc, std::runtime_error),
// which the kernel adapter turns into statuses.
#pragma once

#include <complex>
#include <cstddef>
#include <vector>

namespace ca::fft::pf {

using cd = std::complex<double>;
using Shape = std::vector<size_t>;
using Strides = std::vector<ptrdiff_t>;

/// The complex DFT over `axes` (in that order; forward: exp(-2πi jk/n)), every output value times fct.
void c2c(const Shape &shape, const Strides &sin, const Strides &sout, const Shape &axes, bool forward, const cd *in,
         cd *out, double fct);
/// The real-input DFT: axes.back() is the real axis (`shape` is the input's; the output has
/// shape[axes.back()]/2 + 1 there), then the other axes in order. forward = false: the conjugate.
void r2c(const Shape &shape, const Strides &sin, const Strides &sout, const Shape &axes, bool forward, const double *in,
         cd *out, double fct);
/// The real-output inverse: the other axes in order, then axes.back() (`shape` is the output's; the
/// input has shape[axes.back()]/2 + 1 there; the imaginary parts of its zero and, for even lengths,
/// Nyquist terms are ignored). forward = true: of the conjugated input.
void c2r(const Shape &shape, const Strides &sin, const Strides &sout, const Shape &axes, bool forward, const cd *in,
         double *out, double fct);

/// The ISA level in use: "sse2", "avx2" or "avx512f" (x86-64), else "generic".
const char *isa_name() noexcept;

}  // namespace ca::fft::pf
