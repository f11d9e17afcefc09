// The engine's context: a kernel registry, a lazily started executor, a memory budget and the
// configuration keys of ca_context_set_config (array.chunk-size, graph.max-tasks, memory-limit,
// num-threads). capi's ca_context_t is a handle around one; tests and tools in C++ use it directly.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "core/memory.hpp"
#include "exec/executor.hpp"
#include "kernel/kernel.hpp"

namespace ca {

/// What a context starts with (ca_context_options_t without its struct_size and builtin_kernels:
/// builtin registration belongs to the layer above, builtins/builtins.hpp).
struct ContextOptions {
  /// Worker threads: -1 = one per hardware thread, 0 = run on the calling thread, 1..4096.
  int32_t num_threads = -1;
  /// Bytes: 0 = the machine's default (default_memory_limit()), -1 = none, else the limit.
  int64_t memory_limit = 0;
  /// Default block size in bytes for automatic chunking: 0 = 128 MiB.
  int64_t chunk_size = 0;
};

/// Thread safety: every member may be called from any thread; configuration changes take effect for
/// computations started afterwards.
class Context {
 public:
  static constexpr int64_t kDefaultChunkSize = 128 * 1024 * 1024;

  /// Throws Error(CA_EINVAL) naming the option for a value out of range.
  explicit Context(const ContextOptions &opts = {});
  ~Context();
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;

  KernelRegistry &registry() { return registry_; }
  const KernelRegistry &registry() const { return registry_; }
  /// The executor for the current num-threads (started, or restarted after a change, on demand).
  std::shared_ptr<Executor> executor();
  /// Every block of this context's computations is charged here; its limit is memory-limit.
  MemoryBudget &budget() const { return *budget_; }
  int32_t num_threads() const;
  /// array.chunk-size: the default block size in bytes.
  int64_t chunk_size() const;
  /// Most tasks one plan may materialize: graph.max-tasks, or derived from the memory limit.
  int64_t task_budget() const;
  /// Run options with this context's budget and task budget (nothing else set).
  RunOptions run_options() const;

  /// Set a configuration key from text. Throws Error(CA_EINVAL) for a bad value (naming it) and
  /// Error(CA_ENOTFOUND) for an unknown key (listing the known ones).
  void set_config(const std::string &key, const std::string &value);
  /// A configuration key's current value as text (byte counts in bytes, "none" for no memory limit);
  /// Error(CA_ENOTFOUND) for an unknown key.
  std::string get_config(const std::string &key) const;

 private:
  KernelRegistry registry_;
  mutable std::mutex mu_;  // guards exec_ and the configuration below
  std::shared_ptr<Executor> exec_;
  int32_t num_threads_ = 0;
  MemoryBudget *budget_;  // owned reference
  int64_t max_tasks_ = 0;  // graph.max-tasks; 0 = derived from the memory limit
  int64_t chunk_size_ = kDefaultChunkSize;
};

}  // namespace ca
