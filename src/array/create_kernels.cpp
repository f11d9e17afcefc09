// Kernels of the creation functions (array/create.cpp). Each receives literal parameters plus its
// block's index, origin and/or shape, and computes every element from its global index.
#include <chunkarray/array.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "array/create.hpp"
#include "array/vecmath.hpp"
#include "core/half.hpp"
#include "core/isa.hpp"
#include "kernel/adapter.hpp"

namespace ca {

namespace detail {

void philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]) {
  uint32_t x0 = ctr[0], x1 = ctr[1], x2 = ctr[2], x3 = ctr[3];
  uint32_t k0 = key[0], k1 = key[1];
  for (int r = 0; r < 10; ++r) {
    uint64_t p0 = uint64_t(0xD2511F53u) * x0;
    uint64_t p1 = uint64_t(0xCD9E8D57u) * x2;
    uint32_t y0 = uint32_t(p1 >> 32) ^ x1 ^ k0;
    uint32_t y1 = uint32_t(p1);
    uint32_t y2 = uint32_t(p0 >> 32) ^ x3 ^ k1;
    uint32_t y3 = uint32_t(p0);
    x0 = y0, x1 = y1, x2 = y2, x3 = y3;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  out[0] = x0, out[1] = x1, out[2] = x2, out[3] = x3;
}

}  // namespace detail

namespace {

template <class T>
struct real_of {
  using type = T;
};
template <class T>
struct real_of<std::complex<T>> {
  using type = T;
};
template <class T>
struct is_complex : std::false_type {};
template <class T>
struct is_complex<std::complex<T>> : std::true_type {};

// NumPy's float -> integer astype for values in range (truncation; wraps modulo 2**bits as C does
// for the narrower types). Out-of-range and NaN give 0 here (NumPy: undefined, with a warning).
template <class T>
T cast_int(double x) {
  if (!std::isfinite(x)) return T(0);
  x = std::trunc(x);
  if (x >= -9223372036854775808.0 && x < 9223372036854775808.0) return T(int64_t(x));
  if (x >= 0 && x < 18446744073709551616.0) return T(uint64_t(x));
  return T(0);
}

// A double (or complex) value as T, NumPy's astype.
template <class T>
T convert(double re, double im = 0) {
  if constexpr (std::is_same_v<T, bool>) {
    return re != 0 || im != 0;
  } else if constexpr (is_complex<T>::value) {
    using R = typename T::value_type;
    return T(R(re), R(im));
  } else if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, Half>) {
    return T(re);
  } else {
    return cast_int<T>(re);
  }
}

template <class T>
bool all_zero_bytes(const T &v) {
  unsigned char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  for (unsigned char c : b)
    if (c) return false;
  return true;
}

// ---- generators (full, arange, linspace, random) -----------------------------------------------
// Elements are functions of their global C-order linear index g, so any region can be generated on
// its own: a block, a tile of a fused expression, or a rechunked block.

// Philox4x32-10 keyed by the seed: counter (c, stream) gives two 64-bit words; element g uses word
// g % 2 of counter g / 2 (stream 0; rejected bounded integers redraw from streams 1, 2, ...).
// kBatch counters at a time in struct-of-arrays form so the rounds vectorize.
constexpr size_t kBatch = 64;

// The rounds vectorize 2 (SSE2), 4 (AVX2) or 8 (AVX-512) counters wide: one clone per ISA, chosen
// at load time (GCC's target_clones: an ifunc).

void philox_batch(uint64_t seed, uint64_t c0, uint32_t stream, uint64_t *out /* 2 * kBatch */) {
  static_assert(kBatch == 64);
  uint32_t w[4 * kBatch];  // counter i's four words at 4i: (x0, x1) is word 2i, (x2, x3) word 2i + 1
  detail::philox_counters64(seed, c0, stream, 0, w);
  std::memcpy(out, w, sizeof w);  // (little-endian: x0 the low half)
}

uint64_t philox_word(uint64_t seed, uint64_t g, uint32_t stream) {
  const uint32_t ctr[4] = {uint32_t(g >> 1), uint32_t(g >> 33), stream, 0};
  const uint32_t key[2] = {uint32_t(seed), uint32_t(seed >> 32)};
  uint32_t o[4];
  detail::philox4x32_10(ctr, key, o);
  return (g & 1) ? (uint64_t(o[2]) | uint64_t(o[3]) << 32) : (uint64_t(o[0]) | uint64_t(o[1]) << 32);
}

/// Calls f(words, m, i) for consecutive runs: words[t] is the stream-0 word of element glin + i + t.
template <class F>
void for_words(uint64_t seed, Index glin, Index n, F &&f) {
  uint64_t buf[2 * kBatch];
  Index i = 0;
  while (i < n) {
    const uint64_t g = uint64_t(glin + i);
    const uint64_t c0 = g >> 1;
    philox_batch(seed, c0, 0, buf);
    const size_t skip = size_t(g & 1);
    const Index m = std::min<Index>(Index(2 * kBatch - skip), n - i);
    f(buf + skip, m, i);
    i += m;
  }
}

constexpr double kTwoPi = 6.283185307179586476925286766559;

inline double u53(uint64_t x) { return double(int64_t(x >> 11)) * 0x1.0p-53; }  // [0, 1)
// [0, 1) from 52 bits without an integer conversion: 1.m - 1 (vectorizes on every x86-64).
inline double u52(uint64_t x) {
  const uint64_t b = (x >> 12) | 0x3FF0000000000000ull;
  double d;
  std::memcpy(&d, &b, 8);
  return d - 1.0;
}
inline double u53_open0(uint64_t x) { return double((x >> 11) + 1) * 0x1.0p-53; }  // (0, 1]

// lo + scale * u rounded once (a fused multiply-add), on every ISA: the AVX2 and AVX-512 clones used to
// contract it into an FMA and the baseline one not, so uniform(lo, hi) differed in the last bit between
// CPUs. With lo = 0 (random()) the product alone is that value; otherwise the baseline clone calls libm's
// fma (only CPUs without AVX2 run it).
CA_ISA_CLONES void uniform_f64(const uint64_t *__restrict w, Index m, double lo, double scale,
                               double *__restrict p) {
  if (lo == 0.0)
    for (Index t = 0; t < m; ++t) p[t] = scale * u52(w[t]) + 0.0;  // (+ 0.0: fma's sign of a zero result)
  else
    for (Index t = 0; t < m; ++t) p[t] = std::fma(scale, u52(w[t]), lo);
}

template <class T>
void gen_uniform(const GenSpec &s, Index glin, Index n, T *p) {
  const double lo = s.p0, scale = s.p1 - s.p0;
  if constexpr (std::is_same_v<T, double>) {
    // Whole batches of 128 elements from an even index straight from the Philox registers (AVX-512);
    // the rest (and everything elsewhere) through the words.
    Index i = 0;
    while (n - i >= 128 && ((glin + i) & 1) == 0 &&
           detail::philox_uniform128(s.seed, uint64_t(glin + i) >> 1, lo, scale, p + i))
      i += 128;
    if (i > 0 || n == 0) {
      if (i < n) gen_uniform(s, glin + i, n - i, p + i);
      return;
    }
  }
  for_words(s.seed, glin, n, [&](const uint64_t *w, Index m, Index i) {
    if constexpr (std::is_same_v<T, double>) {
      uniform_f64(w, m, lo, scale, p + i);
    } else {
      const float flo = float(s.p0), fhi = float(s.p1);
      for (Index t = 0; t < m; ++t) {
        float v = float(lo + scale * (double(w[t] >> 40) * 0x1.0p-24));
        if (fhi > flo && v >= fhi) v = std::nextafter(fhi, flo);
        p[i + t] = v;
      }
    }
  });
}

// Box-Muller over the pair of words of one counter: element 2c is r cos(theta), element 2c+1 is
// r sin(theta). A run starting or ending mid-pair recomputes that pair's words.
template <class T>
void gen_normal(const GenSpec &s, Index glin, Index n, T *p) {
  const double mean = s.p0, sd = s.p1;
  Index i = 0;
  auto one = [&](Index g) {
    uint64_t w0 = philox_word(s.seed, uint64_t(g & ~Index(1)), 0), w1 = philox_word(s.seed, uint64_t(g | 1), 0);
    double r = std::sqrt(-2.0 * std::log(u53_open0(w0)));
    double th = kTwoPi * u53(w1);
    return T(mean + sd * r * ((g & 1) ? std::sin(th) : std::cos(th)));
  };
  if (n > 0 && (glin & 1)) p[i++] = one(glin);
  uint64_t buf[2 * kBatch];
  while (n - i >= 2) {
    const uint64_t c0 = uint64_t(glin + i) >> 1;
    philox_batch(s.seed, c0, 0, buf);
    const Index pairs = std::min<Index>(Index(kBatch), (n - i) / 2);
    for (Index t = 0; t < pairs; ++t) {
      double r = std::sqrt(-2.0 * std::log(u53_open0(buf[2 * t])));
      double th = kTwoPi * u53(buf[2 * t + 1]);
      p[i + 2 * t] = T(mean + sd * r * std::cos(th));
      p[i + 2 * t + 1] = T(mean + sd * r * std::sin(th));
    }
    i += 2 * pairs;
  }
  if (i < n) p[i] = one(glin + i);
}

// Lemire's multiply-shift on 64-bit words; a rejected word is redrawn from the next stream at the
// same counter, so every element stays a function of its index alone. range 0 means 2**64.
inline uint64_t bounded_draw(uint64_t seed, uint64_t g, uint64_t w, uint64_t range) {
  if (range == 0) return w;
  const uint64_t t = (0 - range) % range;
  for (uint32_t stream = 1;; ++stream) {
    unsigned __int128 m = (unsigned __int128)w * range;
    if (uint64_t(m) >= t) return uint64_t(m >> 64);
    w = philox_word(seed, g, stream);
  }
}

template <class T>
void gen_integers(const GenSpec &s, Index glin, Index n, T *p) {
  const uint64_t lo = uint64_t(s.i0), range = uint64_t(s.i1);
  for_words(s.seed, glin, n, [&](const uint64_t *w, Index m, Index i) {
    for (Index t = 0; t < m; ++t) {
      uint64_t v = lo + bounded_draw(s.seed, uint64_t(glin + i + t), w[t], range);
      if constexpr (std::is_same_v<T, bool>) p[i + t] = (v & 1) != 0;
      else p[i + t] = T(v);
    }
  });
}

template <class T>
void gen_arange(const GenSpec &s, Index glin, Index n, T *p) {
  const double start = s.p0, step = s.p1;
  if constexpr (std::is_same_v<T, bool>) {
    fail(CA_ETYPE, "arange: no fill-function for data-type bool");
  } else if constexpr (std::is_integral_v<T>) {
    // NumPy's arange: a0 = start, a1 = start + step (in dtype), then fill a0 + i * (a1 - a0).
    T a0 = cast_int<T>(start), a1 = cast_int<T>(start + step);
    T delta = T(a1 - a0);
    uint64_t ua0 = uint64_t(int64_t(a0)), ud = uint64_t(int64_t(delta));
    if constexpr (std::is_unsigned_v<T>) ua0 = uint64_t(a0), ud = uint64_t(delta);
    for (Index i = 0; i < n; ++i) p[i] = T(ua0 + uint64_t(glin + i) * ud);
  } else {
    using R = typename real_of<T>::type;
    R a0 = R(start), a1 = R(start + step);
    R delta = a1 - a0;
    for (Index i = 0; i < n; ++i) {
      Index g = glin + i;
      R v = g == 0 ? a0 : (g == 1 ? a1 : R(a0 + R(g) * delta));
      p[i] = T(v);
    }
  }
}

template <class T>
void gen_linspace(const GenSpec &s, Index glin, Index n, T *p) {
  const double start = s.p0, stop = s.p1;
  const Index num = s.i0;
  const bool endpoint = s.i1 != 0;
  const Index div = endpoint ? num - 1 : num;
  const double delta = stop - start;
  const double step = div > 0 ? delta / double(div) : 0;
  const bool step_zero = div > 0 && step == 0;
  for (Index i = 0; i < n; ++i) {
    const Index g = glin + i;
    double y = double(g);
    if (div > 0) y = step_zero ? (y / double(div)) * delta : y * step;
    else y = y * delta;
    y += start;
    if (endpoint && num > 1 && g == num - 1) y = stop;
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) y = std::floor(y);
    p[i] = convert<T>(y);
  }
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CA_PHILOX_AVX512 1
// (GCC 12's AVX-512 intrinsics start from _mm512_undefined_epi32(): a false -Wuninitialized.)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
// The 32 x 32 -> 64-bit products of 16 lanes: even lanes by vpmuludq directly, odd lanes shifted
// down first; low and high halves blended back into place.
__attribute__((target("avx512f"))) inline void mulhilo16(__m512i a, __m512i m, __m512i &lo, __m512i &hi) {
  const __m512i pe = _mm512_mul_epu32(a, m);
  const __m512i po = _mm512_mul_epu32(_mm512_srli_epi64(a, 32), m);
  lo = _mm512_mask_blend_epi32(0xAAAA, pe, _mm512_slli_epi64(po, 32));
  hi = _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64(pe, 32), po);
}

// philox_counters64 in registers: counters c0 + i built in the lanes (the carry into the high word
// by an unsigned compare); four vectors of 16 counters go through the ten rounds together (1.7x the
// auto-vectorized philox_rounds, which keep 64-bit lanes and reload the arrays every round), then a
// 4 x 16 transpose so each counter's four words are stored together.
// With `uniform` set, each 64-bit word w (x0 | x1 << 32, then x2 | x3 << 32) becomes the float64
// fma(scale, (w >> 12 as a fraction in [0, 1)), lo) stored at `uniform` (128 values), as uniform_f64.
__attribute__((target("avx512f"))) void philox_counters64_avx512(uint64_t seed, uint64_t c0, uint32_t w2, uint32_t w3,
                                                                 uint32_t *out, double *uniform = nullptr,
                                                                 double lo = 0, double scale = 1) {
  const __m512i m0 = _mm512_set1_epi32(int(0xD2511F53u)), m1 = _mm512_set1_epi32(int(0xCD9E8D57u));
  const __m512i iota = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  const __m512i lo0 = _mm512_set1_epi32(int(uint32_t(c0))), hi0 = _mm512_set1_epi32(int(uint32_t(c0 >> 32)));
  __m512i a0[4], a1[4], a2[4], a3[4];
  for (int v = 0; v < 4; ++v) {
    a0[v] = _mm512_add_epi32(lo0, _mm512_add_epi32(iota, _mm512_set1_epi32(16 * v)));
    const __mmask16 carry = _mm512_cmplt_epu32_mask(a0[v], lo0);
    a1[v] = _mm512_mask_add_epi32(hi0, carry, hi0, _mm512_set1_epi32(1));
    a2[v] = _mm512_set1_epi32(int(w2));
    a3[v] = _mm512_set1_epi32(int(w3));
  }
  uint32_t ka = uint32_t(seed), kb = uint32_t(seed >> 32);
  for (int r = 0; r < 10; ++r) {
    const __m512i vka = _mm512_set1_epi32(int(ka)), vkb = _mm512_set1_epi32(int(kb));
    for (int v = 0; v < 4; ++v) {
      __m512i lo0r, hi0r, lo1r, hi1r;
      mulhilo16(a0[v], m0, lo0r, hi0r);
      mulhilo16(a2[v], m1, lo1r, hi1r);
      a0[v] = _mm512_ternarylogic_epi32(hi1r, a1[v], vka, 0x96);
      a2[v] = _mm512_ternarylogic_epi32(hi0r, a3[v], vkb, 0x96);
      a1[v] = lo1r;
      a3[v] = lo0r;
    }
    ka += 0x9E3779B9u;
    kb += 0xBB67AE85u;
  }
  for (int v = 0; v < 4; ++v) {
    const __m512i a = _mm512_unpacklo_epi32(a0[v], a1[v]), b = _mm512_unpacklo_epi32(a2[v], a3[v]);
    const __m512i c = _mm512_unpackhi_epi32(a0[v], a1[v]), d = _mm512_unpackhi_epi32(a2[v], a3[v]);
    // e_k: counters k, 4 + k, 8 + k, 12 + k (one per 128-bit lane), each as its four words
    const __m512i e0 = _mm512_unpacklo_epi64(a, b), e1 = _mm512_unpackhi_epi64(a, b);
    const __m512i e2 = _mm512_unpacklo_epi64(c, d), e3 = _mm512_unpackhi_epi64(c, d);
    const __m512i t0 = _mm512_shuffle_i64x2(e0, e1, 0x44), t1 = _mm512_shuffle_i64x2(e2, e3, 0x44);
    const __m512i t2 = _mm512_shuffle_i64x2(e0, e1, 0xEE), t3 = _mm512_shuffle_i64x2(e2, e3, 0xEE);
    const __m512i q[4] = {_mm512_shuffle_i64x2(t0, t1, 0x88), _mm512_shuffle_i64x2(t0, t1, 0xDD),  // counters 0..3, 4..7
                          _mm512_shuffle_i64x2(t2, t3, 0x88), _mm512_shuffle_i64x2(t2, t3, 0xDD)};  // 8..11, 12..15
    if (uniform) {
      const __m512i one_bits = _mm512_set1_epi64(0x3FF0000000000000ll);
      const __m512d one = _mm512_set1_pd(1.0), vs = _mm512_set1_pd(scale), vl = _mm512_set1_pd(lo);
      for (int k = 0; k < 4; ++k) {
        const __m512d f = _mm512_sub_pd(_mm512_castsi512_pd(_mm512_or_si512(_mm512_srli_epi64(q[k], 12), one_bits)), one);
        _mm512_storeu_pd(uniform + 32 * v + 8 * k, _mm512_fmadd_pd(vs, f, vl));
      }
    } else {
      for (int k = 0; k < 4; ++k) _mm512_storeu_si512(out + 64 * v + 16 * k, q[k]);
    }
  }
}
#pragma GCC diagnostic pop
#else
#define CA_PHILOX_AVX512 0
#endif

}  // namespace

CA_ISA_CLONES void philox_counters64_portable(uint64_t seed, uint64_t c0, uint32_t w2, uint32_t w3,
                                               uint32_t *out) {
  uint32_t x0[64], x1[64], x2[64], x3[64];
  for (size_t i = 0; i < 64; ++i) {
    const uint64_t c = c0 + i;
    x0[i] = uint32_t(c);
    x1[i] = uint32_t(c >> 32);
    x2[i] = w2;
    x3[i] = w3;
  }
  philox_rounds(x0, x1, x2, x3, seed);
  for (size_t i = 0; i < 64; ++i) out[4 * i] = x0[i], out[4 * i + 1] = x1[i], out[4 * i + 2] = x2[i], out[4 * i + 3] = x3[i];
}

#if CA_PHILOX_AVX512
// Whether the AVX-512 batches run (read once; CA_DISABLE_CPU_FEATURES=avx512f turns them off).
static bool philox_wide() {
  static const bool wide = vecmath::active_level() == vecmath::Level::Avx512;
  return wide;
}
#endif

bool detail::philox_uniform128(uint64_t seed, uint64_t c0, double lo, double scale, double *out) {
#if CA_PHILOX_AVX512
  if (philox_wide()) {
    philox_counters64_avx512(seed, c0, 0, 0, nullptr, out, lo, scale);
    return true;
  }
#endif
  (void)seed, (void)c0, (void)lo, (void)scale, (void)out;
  return false;
}

void detail::philox_counters64(uint64_t seed, uint64_t c0, uint32_t w2, uint32_t w3, uint32_t *out) {
#if CA_PHILOX_AVX512
  if (philox_wide()) return philox_counters64_avx512(seed, c0, w2, w3, out);
#endif
  philox_counters64_portable(seed, c0, w2, w3, out);
}

uint64_t detail::bounded_word(uint64_t seed, uint64_t g, uint64_t w, uint64_t range) {
  return bounded_draw(seed, g, w, range);
}

void gen_check(const GenSpec &s) {
  if (!dtype_valid(s.dtype) || s.dtype == CA_RAW) fail(CA_EFORMAT, "generator: invalid dtype ", s.dtype);
  if (s.kind != GenSpec::Full && !dtype_is_numeric(s.dtype) &&
      !(s.dtype == CA_FLOAT16 && (s.kind == GenSpec::Arange || s.kind == GenSpec::Linspace)))
    fail(CA_ETYPE, "generator: only full/zeros/ones/empty", s.dtype == CA_FLOAT16 ? "/arange/linspace" : "",
         " make arrays of dtype ", dtype_name(s.dtype));
  if (s.kind == GenSpec::Full && dtype_is_string(s.dtype) &&
      !(s.p1 == 0 && s.p0 == std::trunc(s.p0) && std::fabs(s.p0) < 1e15))
    fail(CA_EUNSUPPORTED, "full: a ", dtype_name(s.dtype), " array is filled with an integer (written as its digits, as "
         "NumPy's np.full) or zero (empty strings), not ", s.p0, s.p1 != 0 ? " with an imaginary part" : "");
  if (s.kind == GenSpec::Full && dtype_is_time(s.dtype) &&
      !(s.p1 == 0 && s.p0 == std::trunc(s.p0) && s.p0 >= -9223372036854775808.0 && s.p0 < 9223372036854775808.0))
    fail(CA_EINVAL, "full: ", dtype_name(s.dtype), " is filled with an integer number of ticks (or NaT, -2**63), not ",
         s.p0);
  if (s.kind >= GenSpec::DistBase) {
    double p2;
    std::memcpy(&p2, &s.i0, 8);
    random_dist_validate(s.kind - GenSpec::DistBase, s.dtype, s.p0, s.p1, p2, CA_EFORMAT);
    return;
  }
  if (s.kind == GenSpec::Full && s.i1 != 0 &&
      (s.i1 != GenSpec::kFullBits || dtype_is_string(s.dtype) || dtype_is_complex(s.dtype)))
    fail(CA_EFORMAT, "generator: full of dtype ", dtype_name(s.dtype), " with an invalid exact-value flag ", s.i1);
  switch (s.kind) {
    case GenSpec::Full:
    case GenSpec::Linspace: return;
    case GenSpec::Arange:
      if (s.dtype == CA_BOOL) fail(CA_EFORMAT, "generator: arange of bool");
      return;
    case GenSpec::Uniform:
    case GenSpec::Normal:
      if (s.dtype != CA_FLOAT32 && s.dtype != CA_FLOAT64)
        fail(CA_EFORMAT, "generator: a float distribution of dtype ", dtype_name(s.dtype));
      return;
    case GenSpec::Integers:
      if (!dtype_is_integer(s.dtype) && s.dtype != CA_BOOL)
        fail(CA_EFORMAT, "generator: integers of dtype ", dtype_name(s.dtype));
      return;
    default: fail(CA_EFORMAT, "generator: unknown kind ", s.kind);
  }
}

void gen_fill(const GenSpec &s, Index glin, Index n, void *out) {
  if (n <= 0) return;
  if (s.kind >= GenSpec::DistBase) return random_dist_fill(s, glin, n, out);
  if (s.dtype == CA_FLOAT16 && s.kind == GenSpec::Arange) {
    // NumPy's HALF_fill: a0 = start, a1 = start + step in float16, then a0 + i * (a1 - a0) in float.
    const uint16_t a0 = double_to_half(s.p0), a1 = double_to_half(s.p0 + s.p1);
    const float f0 = half_to_float(a0), delta = half_to_float(a1) - f0;
    uint16_t *p = static_cast<uint16_t *>(out);
    for (Index i = 0; i < n; ++i) {
      const Index g = glin + i;
      p[i] = g == 0 ? a0 : g == 1 ? a1 : float_to_half(f0 + float(g) * delta);
    }
    return;
  }
  if (s.dtype == CA_FLOAT16 && s.kind == GenSpec::Linspace) {
    // NumPy's linspace computes in float64 and casts once.
    std::vector<double> tmp(static_cast<size_t>(n));
    gen_linspace(s, glin, n, tmp.data());
    uint16_t *p = static_cast<uint16_t *>(out);
    for (Index i = 0; i < n; ++i) p[i] = double_to_half(tmp[size_t(i)]);
    return;
  }
  if (s.kind == GenSpec::Full && s.i1 == GenSpec::kFullBits) {
    // an exact value: the element's bytes, made once by full_exact
    const size_t isz = dtype_size(s.dtype);
    char elem[8];
    std::memcpy(elem, &s.i0, 8);
    char *p = static_cast<char *>(out);
    for (Index i = 0; i < n; ++i) std::memcpy(p + size_t(i) * isz, elem, isz);
    return;
  }
  if (!dtype_is_numeric(s.dtype) && s.kind == GenSpec::Full) {
    // float16, datetime64/timedelta64 (ticks; -2**63 is NaT), bytes/unicode (an integer's digits).
    if (s.dtype == CA_FLOAT16) {
      std::fill_n(static_cast<uint16_t *>(out), n, double_to_half(s.p0));
    } else if (dtype_is_time(s.dtype)) {
      std::fill_n(static_cast<int64_t *>(out), n, int64_t(s.p0));
    } else {
      const size_t isz = dtype_size(s.dtype);
      const int64_t len = dtype_length(s.dtype);
      std::string digits = s.p0 == 0 ? std::string() : std::to_string(int64_t(s.p0));
      if (int64_t(digits.size()) > len) digits.resize(size_t(len));  // NumPy truncates too
      std::vector<char> elem(isz, 0);
      for (size_t k = 0; k < digits.size(); ++k) {
        if (dtype_kind(s.dtype) == 'S') elem[k] = digits[k];
        else {
          const uint32_t cp = uint32_t(uint8_t(digits[k]));
          std::memcpy(elem.data() + 4 * k, &cp, 4);
        }
      }
      char *p = static_cast<char *>(out);
      for (Index i = 0; i < n; ++i) std::memcpy(p + size_t(i) * isz, elem.data(), isz);
    }
    return;
  }
  dispatch_dtype(s.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T *p = static_cast<T *>(out);
    switch (s.kind) {
      case GenSpec::Full: std::fill_n(p, n, convert<T>(s.p0, s.p1)); break;
      case GenSpec::Arange: gen_arange(s, glin, n, p); break;
      case GenSpec::Linspace: gen_linspace(s, glin, n, p); break;
      case GenSpec::Uniform:
        if constexpr (std::is_same_v<T, double> || std::is_same_v<T, float>) gen_uniform(s, glin, n, p);
        else fail(CA_ETYPE, "uniform: dtype ", dtype_name(s.dtype));
        break;
      case GenSpec::Normal:
        if constexpr (std::is_same_v<T, double> || std::is_same_v<T, float>) gen_normal(s, glin, n, p);
        else fail(CA_ETYPE, "normal: dtype ", dtype_name(s.dtype));
        break;
      case GenSpec::Integers:
        if constexpr (std::is_integral_v<T>) gen_integers(s, glin, n, p);
        else fail(CA_ETYPE, "integers: dtype ", dtype_name(s.dtype));
        break;
      default: fail(CA_EFORMAT, "generator: unknown kind ", s.kind);
    }
  });
}

namespace {

// A dtype argument: a valid dtype other than raw.
DType dtype_arg(const KernelArgs &A, size_t i) {
  DType t = DType(A.int64(i, "dtype"));
  CA_CHECK(dtype_valid(t) && t != CA_RAW, CA_ETYPE, A.kernel(), ": bad dtype ", t);
  return t;
}

Block *new_block(DType dtype, std::span<const int64_t> shape, bool zero = false) {
  return block_new(dtype, int32_t(shape.size()), shape.data(), zero);
}

// ---- ca.eye / ca.tri (dtype, k, origin, shape) --------------------------------------------------

Block *k_eye_tri(const KernelArgs &A, bool tri) {
  DType dt = dtype_arg(A, 0);
  Index k = A.int64(1);
  const std::span<const int64_t> origin = A.tuple(2), shape = A.tuple(3);
  CA_CHECK(shape.size() == 2 && origin.size() == 2, CA_EINVAL, A.kernel(), ": blocks are 2-d");
  Index o0 = origin[0], o1 = origin[1];
  Index h = shape[0], w = shape[1];
  BlockRef b(new_block(dt, shape, true));
  dispatch_dtype_f16(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T *p = b.data<T>();
    T one = convert<T>(1.0);
    for (Index r = 0; r < h; ++r) {
      // column (global) of the diagonal in this row, relative to the block
      __int128 c = __int128(o0 + r) + k - o1;
      if (tri) {
        Index cnt = c < 0 ? 0 : (c >= w ? w : Index(c) + 1);
        std::fill_n(p + r * w, cnt, one);
      } else if (c >= 0 && c < w) {
        p[r * w + Index(c)] = one;
      }
    }
  });
  return b.release();
}

// ---- ca.diag_block([v block?], dtype, kind, index, shape) ---------------------------------------
// kind 0: diagonal blocks are (i, i); 1: (i, i + 1); -1: (i + 1, i).

Block *k_diag_block(const KernelArgs &A) {
  const std::span<const ca_arg_t> lst = A.list(0);
  DType dt = dtype_arg(A, 1);
  Index kind = A.int64(2);
  const std::span<const int64_t> index = A.tuple(3), shape = A.tuple(4);
  CA_CHECK(shape.size() == 2 && index.size() == 2, CA_EINVAL, "ca.diag_block: blocks are 2-d");
  Index i = index[0], j = index[1];
  bool on = kind == 0 ? i == j : (kind > 0 ? j == i + 1 : i == j + 1);
  BlockRef b(new_block(dt, shape, true));
  if (!on || lst.empty()) return b.release();
  const ca_arg_t &va = lst[0];
  CA_CHECK(va.kind == CA_ARG_BLOCK && va.u.block, CA_EINVAL, "ca.diag_block: expected a block");
  const Block *v = va.u.block;
  CA_CHECK(v->dtype == dt && v->ndim == 1, CA_ETYPE, "ca.diag_block: v block must be 1-d of the output dtype");
  Index n = v->shape[0], h = shape[0], w = shape[1];
  CA_CHECK(n == h && n == w, CA_EINVAL, "ca.diag_block: v block of ", n, " elements for a ", h, "x", w, " block");
  size_t isz = dtype_size(dt);
  const char *src = static_cast<const char *>(v->data);
  char *dst = static_cast<char *>(b->data);
  for (Index r = 0; r < n; ++r) std::memcpy(dst + size_t(r * w + r) * isz, src + size_t(r) * isz, isz);
  return b.release();
}

// ---- ca.diagonal(block, k) ----------------------------------------------------------------------

Block *k_diagonal(const KernelArgs &A) {
  const Block *in = A.block(0);
  Index k = A.int64(1);
  CA_CHECK(in->ndim == 2, CA_EINVAL, "ca.diagonal: expected a 2-d block");
  Index h = in->shape[0], w = in->shape[1];
  Index r0 = k < 0 ? -k : 0, c0 = k > 0 ? k : 0;
  Index len = std::max<Index>(0, std::min(h - r0, w - c0));
  if (k >= w || -k >= h) len = 0;
  Block *out = block_new(in->dtype, 1, &len);
  size_t isz = dtype_size(in->dtype);
  const char *src = static_cast<const char *>(in->data);
  char *dst = static_cast<char *>(out->data);
  for (Index t = 0; t < len; ++t) std::memcpy(dst + size_t(t) * isz, src + size_t((r0 + t) * w + c0 + t) * isz, isz);
  return out;
}

// ---- registration -------------------------------------------------------------------------------

Block *k_eye(const KernelArgs &A) { return k_eye_tri(A, false); }
Block *k_tri(const KernelArgs &A) { return k_eye_tri(A, true); }

}  // namespace

void register_creation_kernels(KernelRegistry &reg) {
  register_builtin<k_eye>(reg, "ca.eye");
  register_builtin<k_tri>(reg, "ca.tri");
  register_builtin<k_diag_block>(reg, "ca.diag_block");
  register_builtin<k_diagonal>(reg, "ca.diagonal");
  register_random_kernels(reg);
}

}  // namespace ca
