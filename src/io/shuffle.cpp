#include "io/shuffle.hpp"

#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define CA_SHUFFLE_X86 1
#else
#define CA_SHUFFLE_X86 0
#endif

namespace ca::io {

void shuffle_reference(unsigned char *dst, const unsigned char *src, size_t n, size_t typesize) noexcept {
  if (typesize <= 1) {
    if (n) std::memcpy(dst, src, n);
    return;
  }
  const size_t m = n / typesize;
  for (size_t j = 0; j < typesize; ++j)
    for (size_t i = 0; i < m; ++i) dst[j * m + i] = src[i * typesize + j];
  if (n > m * typesize) std::memcpy(dst + m * typesize, src + m * typesize, n - m * typesize);
}

void unshuffle_reference(unsigned char *dst, const unsigned char *src, size_t n, size_t typesize) noexcept {
  if (typesize <= 1) {
    if (n) std::memcpy(dst, src, n);
    return;
  }
  const size_t m = n / typesize;
  for (size_t j = 0; j < typesize; ++j)
    for (size_t i = 0; i < m; ++i) dst[i * typesize + j] = src[j * m + i];
  if (n > m * typesize) std::memcpy(dst + m * typesize, src + m * typesize, n - m * typesize);
}

namespace {

// Items [i0, m) of a block of m 8-byte items, by the formula (the vector loops' remainder).
void shuffle8_tail(unsigned char *dst, const unsigned char *src, size_t m, size_t i0) noexcept {
  for (size_t j = 0; j < 8; ++j)
    for (size_t i = i0; i < m; ++i) dst[j * m + i] = src[i * 8 + j];
}
void unshuffle8_tail(unsigned char *dst, const unsigned char *src, size_t m, size_t i0) noexcept {
  for (size_t i = i0; i < m; ++i)
    for (size_t j = 0; j < 8; ++j) dst[i * 8 + j] = src[j * m + i];
}

#if CA_SHUFFLE_X86
// GCC 12's AVX-512 intrinsics start from _mm512_undefined_*(), which -Wmaybe-uninitialized reports
// (as in src/array/vecmath.cpp).
#if !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#define CA_VBMI __attribute__((target("avx512f,avx512bw,avx512vbmi")))

// 64 items = 8 registers of 8 items. Within a register, vpermb with the 8x8 byte transpose puts byte b
// of its 8 items into quadword b; an 8x8 transpose of quadwords across the 8 registers then gives
// register b = byte b of all 64 items (64 consecutive bytes of plane b). Both steps are their own
// inverse, so unshuffle runs them in the opposite order.
CA_VBMI inline __m512i byte_transpose_index() {
  alignas(64) unsigned char idx[64];
  for (int b = 0; b < 8; ++b)
    for (int e = 0; e < 8; ++e) idx[b * 8 + e] = static_cast<unsigned char>(e * 8 + b);
  return _mm512_load_si512(idx);
}

// Written out (no arrays, no loops): everything stays in registers.
#define CA_QT(t0, t1, t2, t3, t4, t5, t6, t7)                                                     \
  do {                                                                                            \
    const __m512i lo2 = _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13);                              \
    const __m512i hi2 = _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15);                           \
    const __m512i lo4 = _mm512_setr_epi64(0, 1, 2, 3, 8, 9, 10, 11);                              \
    const __m512i hi4 = _mm512_setr_epi64(4, 5, 6, 7, 12, 13, 14, 15);                           \
    __m512i a0 = _mm512_unpacklo_epi64(t0, t1), a1 = _mm512_unpackhi_epi64(t0, t1);               \
    __m512i a2 = _mm512_unpacklo_epi64(t2, t3), a3 = _mm512_unpackhi_epi64(t2, t3);               \
    __m512i a4 = _mm512_unpacklo_epi64(t4, t5), a5 = _mm512_unpackhi_epi64(t4, t5);               \
    __m512i a6 = _mm512_unpacklo_epi64(t6, t7), a7 = _mm512_unpackhi_epi64(t6, t7);               \
    __m512i b0 = _mm512_permutex2var_epi64(a0, lo2, a2), b2 = _mm512_permutex2var_epi64(a0, hi2, a2); \
    __m512i b1 = _mm512_permutex2var_epi64(a1, lo2, a3), b3 = _mm512_permutex2var_epi64(a1, hi2, a3); \
    __m512i b4 = _mm512_permutex2var_epi64(a4, lo2, a6), b6 = _mm512_permutex2var_epi64(a4, hi2, a6); \
    __m512i b5 = _mm512_permutex2var_epi64(a5, lo2, a7), b7 = _mm512_permutex2var_epi64(a5, hi2, a7); \
    t0 = _mm512_permutex2var_epi64(b0, lo4, b4);                                                  \
    t4 = _mm512_permutex2var_epi64(b0, hi4, b4);                                                  \
    t1 = _mm512_permutex2var_epi64(b1, lo4, b5);                                                  \
    t5 = _mm512_permutex2var_epi64(b1, hi4, b5);                                                  \
    t2 = _mm512_permutex2var_epi64(b2, lo4, b6);                                                  \
    t6 = _mm512_permutex2var_epi64(b2, hi4, b6);                                                  \
    t3 = _mm512_permutex2var_epi64(b3, lo4, b7);                                                  \
    t7 = _mm512_permutex2var_epi64(b3, hi4, b7);                                                  \
  } while (0)

CA_VBMI void shuffle8_vbmi(unsigned char *dst, const unsigned char *src, size_t m) noexcept {
  const __m512i idx = byte_transpose_index();
  size_t i = 0;
  for (; i + 64 <= m; i += 64) {
    const unsigned char *s = src + i * 8;
    __m512i t0 = _mm512_permutexvar_epi8(idx, _mm512_loadu_si512(s));
    __m512i t1 = _mm512_permutexvar_epi8(idx, _mm512_loadu_si512(s + 64));
    __m512i t2 = _mm512_permutexvar_epi8(idx, _mm512_loadu_si512(s + 128));
    __m512i t3 = _mm512_permutexvar_epi8(idx, _mm512_loadu_si512(s + 192));
    __m512i t4 = _mm512_permutexvar_epi8(idx, _mm512_loadu_si512(s + 256));
    __m512i t5 = _mm512_permutexvar_epi8(idx, _mm512_loadu_si512(s + 320));
    __m512i t6 = _mm512_permutexvar_epi8(idx, _mm512_loadu_si512(s + 384));
    __m512i t7 = _mm512_permutexvar_epi8(idx, _mm512_loadu_si512(s + 448));
    CA_QT(t0, t1, t2, t3, t4, t5, t6, t7);
    unsigned char *d = dst + i;
    _mm512_storeu_si512(d, t0);
    _mm512_storeu_si512(d + m, t1);
    _mm512_storeu_si512(d + 2 * m, t2);
    _mm512_storeu_si512(d + 3 * m, t3);
    _mm512_storeu_si512(d + 4 * m, t4);
    _mm512_storeu_si512(d + 5 * m, t5);
    _mm512_storeu_si512(d + 6 * m, t6);
    _mm512_storeu_si512(d + 7 * m, t7);
  }
  shuffle8_tail(dst, src, m, i);
}

CA_VBMI void unshuffle8_vbmi(unsigned char *dst, const unsigned char *src, size_t m) noexcept {
  const __m512i idx = byte_transpose_index();
  size_t i = 0;
  for (; i + 64 <= m; i += 64) {
    const unsigned char *s = src + i;
    __m512i t0 = _mm512_loadu_si512(s);
    __m512i t1 = _mm512_loadu_si512(s + m);
    __m512i t2 = _mm512_loadu_si512(s + 2 * m);
    __m512i t3 = _mm512_loadu_si512(s + 3 * m);
    __m512i t4 = _mm512_loadu_si512(s + 4 * m);
    __m512i t5 = _mm512_loadu_si512(s + 5 * m);
    __m512i t6 = _mm512_loadu_si512(s + 6 * m);
    __m512i t7 = _mm512_loadu_si512(s + 7 * m);
    CA_QT(t0, t1, t2, t3, t4, t5, t6, t7);
    unsigned char *d = dst + i * 8;
    _mm512_storeu_si512(d, _mm512_permutexvar_epi8(idx, t0));
    _mm512_storeu_si512(d + 64, _mm512_permutexvar_epi8(idx, t1));
    _mm512_storeu_si512(d + 128, _mm512_permutexvar_epi8(idx, t2));
    _mm512_storeu_si512(d + 192, _mm512_permutexvar_epi8(idx, t3));
    _mm512_storeu_si512(d + 256, _mm512_permutexvar_epi8(idx, t4));
    _mm512_storeu_si512(d + 320, _mm512_permutexvar_epi8(idx, t5));
    _mm512_storeu_si512(d + 384, _mm512_permutexvar_epi8(idx, t6));
    _mm512_storeu_si512(d + 448, _mm512_permutexvar_epi8(idx, t7));
  }
  unshuffle8_tail(dst, src, m, i);
}
#undef CA_QT
#if !defined(__clang__)
#pragma GCC diagnostic pop
#endif

bool detect_vbmi() noexcept {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vbmi");
}
#endif

}  // namespace

bool fast_shuffle8_available() noexcept {
#if CA_SHUFFLE_X86
  static const bool ok = detect_vbmi();
  return ok;
#else
  return false;
#endif
}

void shuffle8(unsigned char *dst, const unsigned char *src, size_t n) noexcept {
  const size_t m = n / 8;
#if CA_SHUFFLE_X86
  if (fast_shuffle8_available())
    shuffle8_vbmi(dst, src, m);
  else
#endif
    shuffle8_tail(dst, src, m, 0);
  if (n > m * 8) std::memcpy(dst + m * 8, src + m * 8, n - m * 8);
}

void unshuffle8(unsigned char *dst, const unsigned char *src, size_t n) noexcept {
  const size_t m = n / 8;
#if CA_SHUFFLE_X86
  if (fast_shuffle8_available())
    unshuffle8_vbmi(dst, src, m);
  else
#endif
    unshuffle8_tail(dst, src, m, 0);
  if (n > m * 8) std::memcpy(dst + m * 8, src + m * 8, n - m * 8);
}

}  // namespace ca::io
