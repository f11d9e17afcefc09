// The library's builtin kernels, registered layer by layer from the top (see builtins.hpp).
#include "builtins/builtins.hpp"

#include "array/kernels.hpp"
#include "fft/fft.hpp"
#include "io/array_io.hpp"
#include "linalg/linalg.hpp"

namespace ca {

void register_builtin_kernels(KernelRegistry &reg) {
  register_core_kernels(reg);
  register_array_kernels(reg);
  register_io_kernels(reg);
  linalg::register_linalg_kernels(reg);
  fft::register_fft_kernels(reg);
}

const KernelRegistry &builtin_kernel_registry() {
  // Built once per process (thread-safe static initialization); never destroyed, so it outlives
  // every saver that may run during exit.
  static const KernelRegistry *reg = [] {
    auto *r = new KernelRegistry();
    register_builtin_kernels(*r);
    return r;
  }();
  return *reg;
}

int32_t builtin_kernel_version(const std::string &name) {
  KernelPtr k = builtin_kernel_registry().find(name);
  return k ? k->version : 0;
}

}  // namespace ca
