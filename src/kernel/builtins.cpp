// The kernel layer's own builtin kernels (ca.identity, ca.data). The full builtin set, which also
// holds every upper layer's kernels, is assembled by register_builtin_kernels (builtins/builtins.cpp).
#include "kernel/adapter.hpp"

namespace ca {

namespace {
// ca.identity(x): returns its block argument unchanged (shared, not copied).
Block *k_identity(const KernelArgs &A) {
  CA_CHECK(A.size() == 1, CA_EINVAL, "ca.identity takes one block argument");
  return block_retain(A.block(0));
}
// ca.data(block): a block held by a data layer, handed out without copying.
Block *k_data(const KernelArgs &A) {
  if (A.size() == 1 && A[0].kind == CA_ARG_BLOCK && !A[0].u.block)
    fail(CA_EINVAL, "the block belongs to a distributed array held by another rank: compute it with a distributed "
                    "compute (ca_dist_* / ca_mpi_*) on every rank");
  CA_CHECK(A.size() == 1, CA_EINVAL, "ca.data takes one stored block");
  return block_retain(A.block(0));
}
}  // namespace

void register_core_kernels(KernelRegistry &reg) {
  register_builtin<k_identity>(reg, "ca.identity");
  register_builtin<k_data>(reg, "ca.data");
}

}  // namespace ca
