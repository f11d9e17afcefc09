// pocketfft's n-d transforms once per x86-64 ISA level; see pocketfft.hpp.
//
// The header (CA_POCKETFFT_HEADER, Debian's copy: src/fft/meson.build) is included here only, three
// times, each inside its own anonymous namespace (internal linkage: the three instantiations of its
// templates never meet at link time) and under a `#pragma GCC target`, with __AVX__ / __AVX512F__
// defined by hand (the pragma does not define them), which its SIMD width (VLEN) follows. Its include guards are reset between the copies;
// the standard headers it includes are included first, at global scope, so its own #includes of them
// are no-ops inside the namespaces. Templates of the standard library it instantiates are defined
// before the pragmas and so compiled for baseline x86-64.
#include "fft/pocketfft.hpp"

#if CA_FFT_POCKETFFT

// Every standard header the pocketfft header includes (with POCKETFFT_NO_MULTITHREADING).
#include <array>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "array/vecmath.hpp"

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define CA_PF_X86 1
#else
#define CA_PF_X86 0
#endif

// The three entry points over one copy of pocketfft (namespace pocketfft in the enclosing namespace).
#define CA_PF_ENTRY_POINTS                                                                                    \
  void c2c(const Shape &shape, const Strides &si, const Strides &so, const Shape &axes, bool fwd, const cd *in, \
           cd *out, double fct) {                                                                             \
    pocketfft::c2c<double>(shape, si, so, axes, fwd, in, out, fct);                                           \
  }                                                                                                           \
  void r2c(const Shape &shape, const Strides &si, const Strides &so, const Shape &axes, bool fwd,             \
           const double *in, cd *out, double fct) {                                                           \
    pocketfft::r2c<double>(shape, si, so, axes, fwd, in, out, fct);                                           \
  }                                                                                                           \
  void c2r(const Shape &shape, const Strides &si, const Strides &so, const Shape &axes, bool fwd, const cd *in, \
           double *out, double fct) {                                                                         \
    pocketfft::c2r<double>(shape, si, so, axes, fwd, in, out, fct);                                           \
  }

// The header is an -isystem include, but GCC's middle-end warnings on code inlined from it are not
// always attributed to it: at -O1/-Og (the sanitizer builds) -Wstringop-overflow flags its Bluestein
// memcpy of (n - 1) elements on a path where n == 0 (that path never runs: plans have n >= 1).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#pragma GCC diagnostic ignored "-Wstringop-overread"
#pragma GCC diagnostic ignored "-Warray-bounds"

namespace ca::fft::pf {

// pocketfft allocates its scratch with aligned_alloc(64, bytes) for any byte count, but C11 (and
// AddressSanitizer, which aborts on it) require the size to be a multiple of the alignment. Its
// unqualified call finds this one first (an enclosing namespace), which rounds the size up.
[[maybe_unused]] inline void *aligned_alloc(size_t align, size_t bytes) {
  if (bytes > SIZE_MAX - align) return nullptr;
  return std::aligned_alloc(align, (bytes + align - 1) / align * align);
}

namespace isa_baseline {
namespace {
#include CA_POCKETFFT_HEADER
#if CA_PF_X86
static_assert(pocketfft::detail::VLEN<double>::val == 2, "pocketfft: SSE2 lines in pairs");
#endif
CA_PF_ENTRY_POINTS
}  // namespace
}  // namespace isa_baseline

#if CA_PF_X86
#undef POCKETFFT_HDRONLY_H
#undef PYTHONIC_INCLUDE_NUMPY_FFT_POCKETFFT_HPP
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#ifndef __AVX__  // the pragma does not set it; pocketfft's VLEN<double> follows it (4)
#define __AVX__ 1
#define CA_PF_UNDEF_AVX
#endif
namespace isa_avx2 {
namespace {
#include CA_POCKETFFT_HEADER
static_assert(pocketfft::detail::VLEN<double>::val == 4, "pocketfft: AVX2 lines by 4");
CA_PF_ENTRY_POINTS
}  // namespace
}  // namespace isa_avx2
#pragma GCC pop_options

#undef POCKETFFT_HDRONLY_H
#undef PYTHONIC_INCLUDE_NUMPY_FFT_POCKETFFT_HPP
#pragma GCC push_options
#pragma GCC target("avx512f,avx2,fma")
#ifndef __AVX512F__  // as __AVX__ above: VLEN<double> 8
#define __AVX512F__ 1
#define CA_PF_UNDEF_AVX512F
#endif
namespace isa_avx512 {
namespace {
#include CA_POCKETFFT_HEADER
static_assert(pocketfft::detail::VLEN<double>::val == 8, "pocketfft: AVX-512 lines by 8");
CA_PF_ENTRY_POINTS
}  // namespace
}  // namespace isa_avx512
#pragma GCC pop_options
#ifdef CA_PF_UNDEF_AVX512F
#undef __AVX512F__
#undef CA_PF_UNDEF_AVX512F
#endif
#ifdef CA_PF_UNDEF_AVX
#undef __AVX__
#undef CA_PF_UNDEF_AVX
#endif
#endif

#pragma GCC diagnostic pop

namespace {

struct Isa {
  decltype(&isa_baseline::c2c) c2c;
  decltype(&isa_baseline::r2c) r2c;
  decltype(&isa_baseline::c2r) c2r;
  const char *name;
};

Isa pick() {
#if CA_PF_X86
  switch (vecmath::active_level()) {
    case vecmath::Level::Avx512: return {isa_avx512::c2c, isa_avx512::r2c, isa_avx512::c2r, "avx512f"};
    case vecmath::Level::Avx2: return {isa_avx2::c2c, isa_avx2::r2c, isa_avx2::c2r, "avx2"};
    default: return {isa_baseline::c2c, isa_baseline::r2c, isa_baseline::c2r, "sse2"};
  }
#else
  return {isa_baseline::c2c, isa_baseline::r2c, isa_baseline::c2r, "generic"};
#endif
}

const Isa &isa() {
  static const Isa chosen = pick();
  return chosen;
}

}  // namespace

void c2c(const Shape &shape, const Strides &sin, const Strides &sout, const Shape &axes, bool forward, const cd *in,
         cd *out, double fct) {
  isa().c2c(shape, sin, sout, axes, forward, in, out, fct);
}

void r2c(const Shape &shape, const Strides &sin, const Strides &sout, const Shape &axes, bool forward, const double *in,
         cd *out, double fct) {
  isa().r2c(shape, sin, sout, axes, forward, in, out, fct);
}

void c2r(const Shape &shape, const Strides &sin, const Strides &sout, const Shape &axes, bool forward, const cd *in,
         double *out, double fct) {
  isa().c2r(shape, sin, sout, axes, forward, in, out, fct);
}

const char *isa_name() noexcept { return isa().name; }

}  // namespace ca::fft::pf

#undef CA_PF_ENTRY_POINTS
#undef CA_PF_X86

#endif  // CA_FFT_POCKETFFT
