// A plan: the tasks some keys need, materialized into flat arrays for the executor.
//
// Built by one depth-first walk from the requested keys: it culls (only reachable tasks), resolves
// references to compact task ids, detects cycles (naming the keys on them), and numbers tasks in
// post-order, which is the static priority (dask.order's idea: finish what is started before
// starting new roots, so a reduction holds few blocks).
#pragma once

#include <mimalloc.h>

#include <memory>
#include <string>
#include <vector>

#include "graph/graph.hpp"
#include "kernel/kernel.hpp"

namespace ca {

struct PlanTask {
  Kernel *kernel;
  const Layer *layer;
  int64_t local;        // task id inside its layer
  uint32_t arg_begin;   // top-level args: args[arg_begin, arg_begin + nargs)
  uint32_t nargs;
  uint32_t patch_begin; // patches[patch_begin, patch_end)
  uint32_t patch_end;
  int32_t dep_begin;    // deps[dep_begin, dep_end)
  int32_t dep_end;
};

struct Patch {
  uint32_t pos;  // index into Plan::args of a CA_ARG_BLOCK argument
  int32_t task;  // whose result goes there
};

/// Plan arrays live in mimalloc: freed pages stay mapped for the next compute instead of being
/// returned to the OS and faulted in again (glibc unmaps large vectors on free).
template <class T>
using PlanVec = std::vector<T, mi_stl_allocator<T>>;

struct Plan {
  PlanVec<PlanTask> tasks;  // in post-order (= priority: lower runs first)
  PlanVec<ca_arg_t> args;   // argument pool; LIST items point into it
  PlanVec<Patch> patches;
  PlanVec<int32_t> deps;            // unique dependencies per task (CSR via PlanTask)
  PlanVec<int32_t> dependents_off;  // CSR: dependents of t are dependents[off[t], off[t+1])
  PlanVec<int32_t> dependents;
  PlanVec<int32_t> roots;    // tasks without dependencies, in priority order
  PlanVec<int32_t> outputs;  // task id per requested key
  PlanVec<int32_t> nconsumers;  // dependents + times requested as output
  // Keep what tasks point into alive.
  std::vector<LayerPtr> layers;
  std::vector<KernelPtr> kernels;
  Arena arena;

  int32_t size() const { return int32_t(tasks.size()); }
  std::string key_of(int32_t t) const;
};

/// Build the plan for `keys`. Kernels are resolved in `registry` (may be null: then kernels are not
/// resolved, for validation without a context), once per layer kernel slot, checking the version a
/// layer records (CA_EVERSION names layer, kernel and both versions). Throws CA_ENOTFOUND / CA_ECYCLE /
/// CA_EINVAL / CA_EVERSION.
std::unique_ptr<Plan> build_plan(const Graph &g, const KeyRef *keys, size_t nkeys, const KernelRegistry *registry);

}  // namespace ca
