// The prod family (and nanprod) of the reduction kernels: see array/reduce_kernels.hpp.
#include "array/reduce_families.hpp"

namespace ca::red {

void run_prod(RedCall &c) {
  const Spec &s = *c.spec;
  if (red_info(s.op).family != RedFamily::Prod) not_in_group(s, "prod");
  const bool nan = skips_nan(s);
  dispatch_dtype(s.in, [&](auto tt) {
    using T = typename decltype(tt)::type;
    constexpr bool F = kFloaty<T>;
    with_accumulator(s.out, [&](auto at) {
      using A = typename decltype(at)::type;
      if (nan && F) run_stage<SumFam<T, A, F, true>>(c);
      else run_stage<SumFam<T, A, false, true>>(c);
    });
  });
}

}  // namespace ca::red
