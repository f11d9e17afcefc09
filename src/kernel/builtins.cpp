// The kernel layer's own builtin kernels (ca.identity, ca.data). The full builtin set, which also
// holds every upper layer's kernels, is assembled by register_builtin_kernels (builtins/builtins.cpp).
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
  if (nargs == 1 && args[0].kind == CA_ARG_BLOCK && !args[0].u.block) {
    if (kctx)
      kctx->error = "the block belongs to a distributed array held by another rank: compute it with a distributed "
                    "compute (ca_dist_* / ca_mpi_*) on every rank";
    return CA_EINVAL;
  }
  if (nargs != 1 || args[0].kind != CA_ARG_BLOCK || !args[0].u.block) {
    if (kctx) kctx->error = "ca.data takes one stored block";
    return CA_EINVAL;
  }
  *out = block_retain(args[0].u.block);
  return CA_OK;
}
}  // namespace

void register_core_kernels(KernelRegistry &reg) {
  reg.add(kernel_new("ca.identity", k_identity, 1, nullptr, nullptr), true);
  reg.add(kernel_new("ca.data", k_data, 1, nullptr, nullptr), true);
}

}  // namespace ca
