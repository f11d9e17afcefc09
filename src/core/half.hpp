// IEEE 754 binary16 (NumPy's float16) as its 16-bit storage, with conversions that round to nearest
// even as NumPy's npy_float_to_half / npy_double_to_half do. Portable bit manipulation: no F16C or
// _Float16 needed, the same results on every compiler.
#pragma once

#include <cstdint>
#include <cstring>

namespace ca {

inline float half_to_float(uint16_t h) noexcept {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: normalize
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while ((mant & 0x400u) == 0);
      bits = sign | (uint32_t(127 - 15 - e) << 23) | ((mant & 0x3ffu) << 13);
    }
  } else if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);  // inf or nan (payload kept)
  } else {
    bits = sign | ((exp + (127 - 15)) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

/// Round a double to binary16 directly (one rounding, as NumPy's double -> half cast).
inline uint16_t double_to_half(double d) noexcept {
  uint64_t x;
  std::memcpy(&x, &d, 8);
  const uint16_t sign = uint16_t((x >> 48) & 0x8000u);
  const uint64_t absx = x & 0x7fffffffffffffffull;
  if (absx >= 0x7ff0000000000000ull) {  // inf or nan
    if (absx == 0x7ff0000000000000ull) return uint16_t(sign | 0x7c00u);
    uint16_t m = uint16_t((absx >> 42) & 0x3ffu);
    return uint16_t(sign | 0x7c00u | (m ? m : 0x200u));  // keep a quiet nan
  }
  const int exp = int(absx >> 52) - 1023;  // unbiased
  if (exp > 15) return uint16_t(sign | 0x7c00u);  // overflow to inf (65520 and up round there too)
  uint64_t mant = (absx & 0xfffffffffffffull) | (uint64_t(1) << 52);  // 53 bits with the implicit one
  int shift;                                                           // bits to drop from mant
  uint16_t hexp;
  if (exp >= -14) {
    shift = 52 - 10;
    hexp = uint16_t(exp + 15);
  } else {
    if (exp < -25) return sign;  // below half of the smallest subnormal: zero
    shift = 52 - 10 + (-14 - exp);
    hexp = 0;
  }
  if (absx == 0) return sign;
  uint64_t q = mant >> shift;
  const uint64_t rem = mant & ((uint64_t(1) << shift) - 1), half = uint64_t(1) << (shift - 1);
  if (rem > half || (rem == half && (q & 1))) ++q;
  // q holds 11 bits (with the implicit one) for normals; a carry moves into the exponent.
  if (hexp == 0) return uint16_t(sign | uint16_t(q));  // subnormal (q may round up to the smallest normal)
  uint32_t r = (uint32_t(hexp) << 10) + uint32_t(q - 0x400u);
  if (q == 0x800u) r = uint32_t(hexp + 1) << 10;
  if (r >= 0x7c00u) return uint16_t(sign | 0x7c00u);
  return uint16_t(sign | r);
}

/// float -> half: exact through double (a float is exactly a double), so one rounding.
inline uint16_t float_to_half(float f) noexcept { return double_to_half(double(f)); }

/// One float16 element as it is stored: for kernels that only build, move or compare values
/// (dispatch_dtype_f16). Arithmetic goes through float, as NumPy's half loops do.
struct Half {
  uint16_t bits = 0;
  Half() = default;
  explicit Half(double d) noexcept : bits(double_to_half(d)) {}
  explicit operator float() const noexcept { return half_to_float(bits); }
  explicit operator double() const noexcept { return double(half_to_float(bits)); }
};
static_assert(sizeof(Half) == 2, "Half is the 2-byte storage of a float16");

}  // namespace ca
