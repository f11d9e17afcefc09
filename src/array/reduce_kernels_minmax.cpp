// The min, max, any and all families (and nanmin, nanmax) of the reduction kernels: see
// array/reduce_kernels.hpp.
#include "array/reduce_families.hpp"

namespace ca::red {

void run_min_max(RedCall &c) {
  const Spec &s = *c.spec;
  const RedFamily f = red_info(s.op).family;
  if (f != RedFamily::Min && f != RedFamily::Max && f != RedFamily::Any && f != RedFamily::All)
    not_in_group(s, "min/max/any/all");
  const bool nan = skips_nan(s);
  dispatch_dtype(s.in, [&](auto tt) {
    using T = typename decltype(tt)::type;
    constexpr bool F = kFloaty<T>;
    switch (f) {
      case RedFamily::Min:
        if (nan && F) run_stage<MinMaxFam<T, F, false>>(c);
        else run_stage<MinMaxFam<T, false, false>>(c);
        return;
      case RedFamily::Max:
        if (nan && F) run_stage<MinMaxFam<T, F, true>>(c);
        else run_stage<MinMaxFam<T, false, true>>(c);
        return;
      case RedFamily::Any: run_stage<AnyAllFam<T, false>>(c); return;
      default: run_stage<AnyAllFam<T, true>>(c); return;
    }
  });
}

}  // namespace ca::red
