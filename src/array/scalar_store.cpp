// One home for writing a scalar operand into one element of a dtype (NumPy's assignment casting):
// setitem, mask assignment, pad's constant and map_overlap's constant boundary all go through it.
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <type_traits>

#include "array/expr.hpp"
#include "core/datetime.hpp"
#include "core/dtype.hpp"

namespace ca {

void store_scalar(const ScalarValue &sv, DType dt, void *dst, bool strict) {
  const bool is_int = sv.kind == 'b' || sv.kind == 'i' || sv.kind == 'u';
  const bool is_time = sv.kind == 'M' || sv.kind == 'm';
  if (dtype_is_time(dt)) {
    // NumPy: an integer is a number of ticks; a datetime64/timedelta64 converts its unit; NaT stays
    // NaT; a float is refused (no fractional ticks).
    int64_t ticks;
    if (is_time) {
      if (dtype_kind(dt) != sv.kind)
        fail(CA_ETYPE, "cannot assign a ", dtype_name(sv.dtype), " value to an array of dtype ", dtype_name(dt));
      ticks = sv.i == CA_NAT ? CA_NAT : time_convert(sv.i, dtype_unit(sv.dtype), dtype_unit(dt), sv.kind == 'M');
    } else if (is_int && sv.kind != 'b') {
      CA_CHECK(sv.kind != 'u' || sv.u <= uint64_t(std::numeric_limits<int64_t>::max()), CA_EINVAL, "value ", sv.u,
               " is out of bounds for ", dtype_name(dt));
      ticks = sv.kind == 'u' ? int64_t(sv.u) : sv.i;
    } else if (!strict && sv.kind == 'f') {
      // np.full's cast: a float's integer part as ticks; NaN and values beyond int64 are NaT.
      ticks = (std::isfinite(sv.re) && sv.re > -9223372036854775808.0 && sv.re < 9223372036854775808.0)
                  ? int64_t(sv.re)
                  : CA_NAT;
    } else {
      fail(CA_ETYPE, "cannot assign a ", sv.kind == 'b' ? "bool" : sv.kind == 'c' ? "complex" : "float",
           " value to an array of dtype ", dtype_name(dt), " (pass an integer number of ticks or a ", dtype_name(dt),
           " scalar)");
    }
    std::memcpy(dst, &ticks, sizeof ticks);
    return;
  }
  if (dtype_is_string(dt) && !strict && !is_time && sv.re == 0.0 && sv.im == 0.0) {
    std::memset(dst, 0, dtype_size(dt));  // np.full's zero: empty strings
    return;
  }
  if (is_time) fail(CA_ETYPE, "cannot assign a ", dtype_name(sv.dtype), " value to an array of dtype ", dtype_name(dt));
  const double re = sv.re, im = sv.im;
  dispatch_dtype_f16(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T v{};
    if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>) {
      v = T(typename T::value_type(re), typename T::value_type(im));
    } else if constexpr (std::is_same_v<T, bool>) {
      v = is_int ? (sv.i != 0 || sv.u != 0) : (re != 0.0 || im != 0.0);
    } else if constexpr (std::is_integral_v<T>) {
      if (is_int) {
        v = sv.kind == 'u' ? T(sv.u) : T(sv.i);  // NumPy wraps an integer that does not fit
      } else if (strict) {
        CA_CHECK(std::isfinite(re), CA_EINVAL, "cannot convert float ", re, " to integer");
        CA_CHECK(re > double(std::numeric_limits<T>::min()) - 1.0 && re < double(std::numeric_limits<T>::max()) + 1.0,
                 CA_EINVAL, "value ", re, " is out of bounds for ", dtype_name(dt));
        v = T(re);
      } else {
        // np.full's unsafe cast without its undefined behaviour: through int64 (wrapping), 0 beyond.
        v = (std::isfinite(re) && re > -9223372036854775808.0 && re < 9223372036854775808.0) ? T(int64_t(re)) : T(0);
      }
    } else {
      v = T(re);  // float32/float64, and float16 (ca::Half) rounded once from the double
    }
    std::memcpy(dst, &v, sizeof(T));
  });
}

}  // namespace ca
