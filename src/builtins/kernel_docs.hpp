// The reference of the builtin kernels: each "ca.*" kernel's argument list and what it computes,
// for ca_kernel_registry_list() and docs/kernels.md (generated from it). One entry per builtin
// kernel: tests/unit/test_kernel_docs.cpp fails when a registered builtin has none (or an entry
// names no builtin), so a new kernel is documented where it is added to the library.
#pragma once

#include <span>
#include <string_view>

namespace ca {

struct BuiltinKernelDoc {
  const char *name;
  /// The argument list, "ca.eye(dtype: int, k: int, origin: tuple, shape: tuple) -> block".
  const char *signature;
  /// What it computes, and who emits it.
  const char *description;
  /// true: the arguments are a stable interface for hand-built graphs (ca_graph_add_task);
  /// false: an internal encoding a library function emits, which may change between versions.
  bool stable;
};

/// Every builtin kernel's entry, sorted by name.
std::span<const BuiltinKernelDoc> builtin_kernel_docs();
/// The entry of builtin kernel `name`, or nullptr.
const BuiltinKernelDoc *builtin_kernel_doc(std::string_view name);

}  // namespace ca
