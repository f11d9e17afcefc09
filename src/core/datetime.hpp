// datetime64 / timedelta64 values: NaT and unit conversion as NumPy's casts (floor towards -inf when
// converting to a coarser unit, wrap-around on overflow; datetimes in years and months convert
// through the proleptic Gregorian calendar, timedeltas in years and months use NumPy's average year
// of 365.2425 days).
#pragma once

#include <chunkarray/common.h>

#include <cstdint>

namespace ca {

constexpr int64_t kNaT = INT64_MIN;

namespace detail {

using u128 = unsigned __int128;
using i128 = __int128;

/// Attoseconds in one unit (CA_UNIT_*); years and months as NumPy's average (timedeltas only).
inline i128 unit_attoseconds(int32_t unit) noexcept {
  const i128 s = i128(1000000000000000000LL);
  switch (unit) {
    case CA_UNIT_Y: return s * 31556952;  // 365.2425 days
    case CA_UNIT_M: return s * 2629746;   // a twelfth of that
    case CA_UNIT_W: return s * 604800;
    case CA_UNIT_D: return s * 86400;
    case CA_UNIT_H: return s * 3600;
    case CA_UNIT_MIN: return s * 60;
    case CA_UNIT_S: return s;
    case CA_UNIT_MS: return s / 1000;
    case CA_UNIT_US: return s / 1000000;
    case CA_UNIT_NS: return s / 1000000000;
    case CA_UNIT_PS: return 1000000;
    case CA_UNIT_FS: return 1000;
    default: return 1;  // CA_UNIT_AS
  }
}

inline i128 floordiv128(i128 a, i128 b) noexcept {
  i128 q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

/// v * num / den floored, wrapping to int64 as NumPy's int64 arithmetic does (no UB).
inline int64_t scale(int64_t v, i128 num, i128 den) noexcept {
  const i128 g0 = num, g1 = den;
  i128 a = g0, b = g1;
  while (b != 0) {
    const i128 t = a % b;
    a = b;
    b = t;
  }
  num /= a, den /= a;
  const i128 prod = i128(u128(i128(v)) * u128(num));  // wraps for absurd products (as NumPy's)
  return int64_t(uint64_t(u128(floordiv128(prod, den))));
}

// Howard Hinnant's days_from_civil / civil_from_days (proleptic Gregorian, 1970-01-01 is day 0).
inline int64_t days_from_civil(int64_t y0, int64_t m, int64_t d) noexcept {
  // In 128 bits: far out-of-range years wrap (as NumPy's values do) instead of overflowing.
  i128 y = i128(y0) - (m <= 2);
  const i128 era = (y >= 0 ? y : y - 399) / 400;
  const i128 yoe = y - era * 400;
  const i128 doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const i128 doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return int64_t(uint64_t(u128(era * 146097 + doe - 719468)));
}
inline void civil_from_days(int64_t z0, int64_t &y, int64_t &m) noexcept {
  const int64_t z = int64_t(uint64_t(z0) + 719468u);  // wraps only for |days| near 2**63
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  y = yoe + era * 400;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  m = mp < 10 ? mp + 3 : mp - 9;
  y += m <= 2;
}

inline int64_t floordiv64(int64_t a, int64_t b) noexcept { return int64_t(floordiv128(a, b)); }

}  // namespace detail

/// Convert a datetime64 (datetime = true) or timedelta64 value between units; NaT stays NaT.
inline int64_t time_convert(int64_t v, int32_t from, int32_t to, bool datetime) noexcept {
  using namespace detail;
  if (v == kNaT || from == to) return v;
  const bool cal_from = from == CA_UNIT_Y || from == CA_UNIT_M, cal_to = to == CA_UNIT_Y || to == CA_UNIT_M;
  if (!datetime || (!cal_from && !cal_to)) return scale(v, unit_attoseconds(from), unit_attoseconds(to));
  if (cal_from && cal_to) return from == CA_UNIT_Y ? int64_t(uint64_t(v) * 12u) : floordiv64(v, 12);
  if (cal_from) {  // years/months since 1970 -> days -> the linear unit
    // Far out-of-range values wrap as NumPy's do; the calendar arithmetic stays in int64 range.
    const int64_t months = from == CA_UNIT_Y ? int64_t(uint64_t(v) * 12u) : v;
    const int64_t y = 1970 + floordiv64(months, 12), m = months - floordiv64(months, 12) * 12 + 1;
    const int64_t days = days_from_civil(y, m, 1);
    return scale(days, unit_attoseconds(CA_UNIT_D), unit_attoseconds(to));
  }
  const int64_t days = scale(v, unit_attoseconds(from), unit_attoseconds(CA_UNIT_D));
  int64_t y, m;
  civil_from_days(days, y, m);
  const int64_t months = (y - 1970) * 12 + (m - 1);
  return to == CA_UNIT_Y ? y - 1970 : months;
}

}  // namespace ca
