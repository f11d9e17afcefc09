// The builtin kernels every context starts with (unless builtin_kernels = 0).
#include "kernel/kernel.hpp"

namespace ca {

namespace {
// ca.identity(x): returns its block argument unchanged (shared, not copied).
ca_status_t k_identity(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  if (nargs != 1 || args[0].kind != CA_ARG_BLOCK) {
    if (kctx) kctx->error = "ca.identity takes one block argument";
    return CA_EINVAL;
  }
  *out = block_retain(args[0].u.block);
  return CA_OK;
}
// ca.data(block): a block held by a data layer, handed out without copying.
ca_status_t k_data(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  if (nargs != 1 || args[0].kind != CA_ARG_BLOCK || !args[0].u.block) {
    if (kctx) kctx->error = "ca.data takes one stored block";
    return CA_EINVAL;
  }
  *out = block_retain(args[0].u.block);
  return CA_OK;
}
}  // namespace

void register_array_kernels(KernelRegistry &reg);

void register_builtin_kernels(KernelRegistry &reg) {
  reg.add(kernel_new("ca.identity", k_identity, 1, nullptr, nullptr), true);
  reg.add(kernel_new("ca.data", k_data, 1, nullptr, nullptr), true);
  register_array_kernels(reg);
}

}  // namespace ca

namespace ca {

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
