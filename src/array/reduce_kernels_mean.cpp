// The mean family (and nanmean) of the reduction kernels: see array/reduce_kernels.hpp.
#include "array/reduce_families.hpp"

namespace ca::red {

void run_mean(RedCall &c) {
  const Spec &s = *c.spec;
  if (red_info(s.op).family != RedFamily::Mean) not_in_group(s, "mean");
  const bool nan = skips_nan(s);
  dispatch_dtype(s.in, [&](auto tt) {
    using T = typename decltype(tt)::type;
    constexpr bool F = kFloaty<T>;
    if (dtype_kind(s.out) == 'i' || dtype_kind(s.out) == 'u') {
      if constexpr (!kCplx<T>) {
        if (dtype_kind(s.out) == 'u') {
          if (nan && F) run_stage<MeanFam<T, uint64_t, F>>(c);
          else run_stage<MeanFam<T, uint64_t, false>>(c);
        } else {
          if (nan && F) run_stage<MeanFam<T, int64_t, F>>(c);
          else run_stage<MeanFam<T, int64_t, false>>(c);
        }
        return;
      }
    }
    if (dtype_is_complex(s.out)) {
      if (nan && F) run_stage<MeanFam<T, std::complex<double>, F>>(c);
      else run_stage<MeanFam<T, std::complex<double>, false>>(c);
    } else {
      if (nan && F) run_stage<MeanFam<T, double, F>>(c);
      else run_stage<MeanFam<T, double, false>>(c);
    }
  });
}

}  // namespace ca::red
