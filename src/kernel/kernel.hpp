// Kernels (the C type ca_kernel_t) and the registry a context keeps them in.
#pragma once

#include <chunkarray/kernel.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/block.hpp"
#include "core/intrusive.hpp"

struct ca_kernel_ctx {
  const char *key_name = "";
  const int64_t *key_index = nullptr;
  int32_t nindex = 0;
  const std::atomic<bool> *cancelled = nullptr;
  std::string error;  // set by ca_kernel_set_error
  // compute_into (RunOptions::out_dest): the caller's memory this task's result goes to, when that
  // region is one contiguous run of out_dest_bytes bytes; nullptr: none. A kernel that can (the
  // builtin `ca.fused`) returns a block wrapping it instead of a fresh one, saving the copy.
  void *out_dest = nullptr;
  int64_t out_dest_bytes = 0;
};

struct ca_kernel {
  std::atomic<int64_t> refs{1};
  std::string name;
  int32_t version = 1;
  ca_kernel_fn fn = nullptr;
  void *user_data = nullptr;
  void (*free_user_data)(void *) = nullptr;
  // Kernels that own an internal object (libffi adapters) keep it here; destroyed with the kernel.
  std::shared_ptr<void> impl;
  std::string signature;  // ffi kernels: the described C signature

  ~ca_kernel() {
    if (free_user_data) free_user_data(user_data);
  }
};

namespace ca {

using Kernel = ca_kernel;

inline Kernel *kernel_retain(const Kernel *k) noexcept {
  if (k) const_cast<Kernel *>(k)->refs.fetch_add(1, std::memory_order_relaxed);
  return const_cast<Kernel *>(k);
}
inline void kernel_release(const Kernel *k) noexcept {
  if (k && const_cast<Kernel *>(k)->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete k;
}

struct KernelTraits {
  static void retain(const Kernel *k) noexcept { kernel_retain(k); }
  static void release(const Kernel *k) noexcept { kernel_release(k); }
};
/// Owning pointer to a kernel (core/intrusive.hpp).
using KernelPtr = IntrusivePtr<Kernel, KernelTraits>;

/// Create a native kernel. user_data's free function runs exactly once, also if this throws.
KernelPtr kernel_new(const std::string &name, ca_kernel_fn fn, int32_t version, void *ud, void (*free_ud)(void *));
/// Create a kernel over a plain C function described by a signature string (libffi). See kernel.h.
KernelPtr kernel_new_ffi(const std::string &name, void (*fn)(void), const std::string &signature, int32_t version,
                         void *ud, void (*free_ud)(void *));

/// Call a kernel; returns its block or throws Error(CA_EKERNEL, message) — CA_ENOMEM when it ran out of
/// memory (returned CA_ENOMEM, threw std::bad_alloc or an out-of-memory Error).
Block *kernel_invoke(const Kernel *k, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx);

class KernelRegistry {
 public:
  void add(KernelPtr k, bool replace);  // CA_EEXISTS
  KernelPtr find(const std::string &name) const;  // empty if absent
  KernelPtr get(const std::string &name) const;   // CA_ENOTFOUND
  bool remove(const std::string &name);
  size_t size() const;
  std::vector<std::string> names() const;

  /// Every registration as it is now, and putting them back: a plugin whose init fails is rolled back
  /// with these (kernels it added removed, kernels it replaced restored). Registrations other threads
  /// make between the two are lost too: load plugins before sharing the context.
  using Snapshot = std::unordered_map<std::string, KernelPtr>;
  Snapshot snapshot() const;
  void restore(Snapshot s);

 private:
  mutable std::mutex mu_;
  std::unordered_map<std::string, KernelPtr> map_;
};

/// Register the kernel layer's own kernels (ca.identity, ca.data). The library's whole builtin set
/// is register_builtin_kernels (builtins/builtins.hpp), which calls this and every upper layer's
/// registration function.
void register_core_kernels(KernelRegistry &reg);

}  // namespace ca
