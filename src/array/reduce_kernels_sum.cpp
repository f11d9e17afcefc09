// The sum family (and nansum) of the reduction kernels: see array/reduce_kernels.hpp.
#include "array/reduce_families.hpp"

namespace ca::red {

void run_sum(RedCall &c) {
  const Spec &s = *c.spec;
  if (red_info(s.op).family != RedFamily::Sum) not_in_group(s, "sum");
  const bool nan = skips_nan(s);
  dispatch_dtype(s.in, [&](auto tt) {
    using T = typename decltype(tt)::type;
    constexpr bool F = kFloaty<T>;
    with_accumulator(s.out, [&](auto at) {
      using A = typename decltype(at)::type;
      if (nan && F) run_stage<SumFam<T, A, F, false>>(c);
      else run_stage<SumFam<T, A, false, false>>(c);
    });
  });
}

}  // namespace ca::red
