// The argmin and argmax family (and nanargmin, nanargmax) of the reduction kernels: see
// array/reduce_kernels.hpp.
#include "array/reduce_families.hpp"

namespace ca::red {

void run_arg(RedCall &c) {
  const Spec &s = *c.spec;
  const RedFamily f = red_info(s.op).family;
  if (f != RedFamily::ArgMin && f != RedFamily::ArgMax) not_in_group(s, "argmin/argmax");
  const bool nan = skips_nan(s), mx = f == RedFamily::ArgMax;
  dispatch_dtype(s.in, [&](auto tt) {
    using T = typename decltype(tt)::type;
    constexpr bool F = kFloaty<T>;
    if (mx) {
      if (nan && F) run_stage<ArgFam<T, F, true>>(c);
      else run_stage<ArgFam<T, false, true>>(c);
    } else {
      if (nan && F) run_stage<ArgFam<T, F, false>>(c);
      else run_stage<ArgFam<T, false, false>>(c);
    }
  });
}

}  // namespace ca::red
