// The library's builtin kernels ("ca." prefix), assembled from every layer's registration function.
// This is the top of the engine (it may use every src/ folder); nothing in src/ below it calls it:
// the C API registers the builtins into each new context (capi/capi_context.cpp) and hands the
// process-wide registry to the format layer where saving needs builtin versions.
#pragma once

#include <cstdint>
#include <string>

#include "kernel/kernel.hpp"

namespace ca {

/// Register the library's builtin kernels: the kernel layer's (register_core_kernels), the array
/// layer's (register_array_kernels), io's (register_io_kernels) and linalg's (register_linalg_kernels).
void register_builtin_kernels(KernelRegistry &reg);
/// A process-wide registry of the builtin kernels, built on first use (read only).
const KernelRegistry &builtin_kernel_registry();
/// The version of the builtin kernel `name` in this library, or 0 if there is none of that name.
int32_t builtin_kernel_version(const std::string &name);

}  // namespace ca
