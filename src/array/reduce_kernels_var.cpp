// The var and std family (and nanvar, nanstd) of the reduction kernels: see array/reduce_kernels.hpp.
#include "array/reduce_families.hpp"

namespace ca::red {

void run_var_std(RedCall &c) {
  const Spec &s = *c.spec;
  const RedFamily f = red_info(s.op).family;
  if (f != RedFamily::Var && f != RedFamily::Std) not_in_group(s, "var/std");
  const bool nan = skips_nan(s);
  dispatch_dtype(s.in, [&](auto tt) {
    using T = typename decltype(tt)::type;
    constexpr bool F = kFloaty<T>;
    using M = std::conditional_t<kCplx<T>, std::complex<double>, double>;
    if (nan && F) run_stage<VarFam<T, M, F>>(c);
    else run_stage<VarFam<T, M, false>>(c);
  });
}

}  // namespace ca::red
