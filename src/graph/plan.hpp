// A plan: the tasks some keys need, materialized into flat arrays for the executor.
//
// Built by one depth-first walk from the requested keys: it culls (only reachable tasks), resolves
// references to compact task ids, detects cycles (naming the keys on them), and numbers tasks in
// post-order, which is the static priority (dask.order's idea: finish what is started before
// starting new roots, so a reduction holds few blocks). With a compute's pool the subtrees below the
// output's first branching task are walked in parallel and merged into exactly that plan (plan.cpp).
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/alloc.hpp"
#include "core/big_buffer.hpp"
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

/// The library allocator (core/alloc.hpp: mimalloc, or the system allocator in -Dallocator=system
/// builds) as an STL allocator that throws std::bad_alloc when memory runs out. (mimalloc's own
/// mi_stl_allocator calls mi_new_n, whose C build — Debian's libmimalloc — abort()s instead.)
template <class T>
struct MiAllocator {
  using value_type = T;
  MiAllocator() noexcept = default;
  template <class U>
  MiAllocator(const MiAllocator<U> &) noexcept {}
  T *allocate(size_t n) {
    size_t bytes;
    if (__builtin_mul_overflow(n, sizeof(T), &bytes)) throw std::bad_alloc();
    static_assert(alignof(T) <= 64, "big_alloc aligns to 64");
    void *p = bytes >= detail::kBigMin                   ? detail::big_alloc(bytes)
              : alignof(T) > alignof(std::max_align_t) ? detail::mem_alloc_aligned(bytes, alignof(T))
                                                       : detail::mem_alloc(bytes);
    if (!p) throw std::bad_alloc();
    return static_cast<T *>(p);
  }
  void deallocate(T *p, size_t n) noexcept {
    if (n * sizeof(T) >= detail::kBigMin) detail::big_free(p, n * sizeof(T));
    else detail::mem_free(p);
  }
  // resize() default-initializes (no zero fill of arrays that are written whole right after: the
  // parallel planner sizes the plan's arrays before its helpers fill them).
  template <class U>
  void construct(U *p) noexcept(std::is_nothrow_default_constructible<U>::value) {
    ::new (static_cast<void *>(p)) U;
  }
  template <class U, class... A>
  void construct(U *p, A &&...a) {
    ::new (static_cast<void *>(p)) U(std::forward<A>(a)...);
  }
  template <class U>
  bool operator==(const MiAllocator<U> &) const noexcept {
    return true;
  }
};

/// Plan arrays live in mimalloc, the large ones in the big-buffer cache (core/big_buffer.hpp): freed
/// pages stay mapped for the next compute instead of being returned to the OS and faulted in again
/// (glibc unmaps large vectors on free, and so does mimalloc for its huge allocations).
template <class T>
using PlanVec = std::vector<T, MiAllocator<T>>;

/// What one materialized task costs in a plan and its run, roughly (PlanTask, arguments, patches,
/// dependency lists, the builder's per-task state, the executor's Node): for task budgets.
constexpr int64_t kPlanBytesPerTask = 256;

/// The default task budget of a plan under a memory limit (0 = the machine's default limit): a plan
/// may take a quarter of the limit (limit / 4 / kPlanBytesPerTask), and never fewer than 4,194,304
/// tasks (1 GiB of plan, so a small block limit still allows million-task graphs) unless the machine
/// itself has less memory. At most INT32_MAX - 1 (task ids are int32).
int64_t default_max_tasks(int64_t memory_limit);

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
  std::vector<std::unique_ptr<Arena>> arenas;  // the parallel planner's builders' arenas (copied literals)

  int32_t size() const { return int32_t(tasks.size()); }
  std::string key_of(int32_t t) const;
};

/// Threads a plan may be built on: the compute's own pool, idle while its plan is built. run() calls
/// fn(0) on the calling thread and fn(1) .. fn(width() - 1) on other threads as far as they are free
/// (each index at most once; an index not started by the time fn(0) returned is never called) and
/// returns when every started call has returned. fn must not throw.
class PlanHelpers {
 public:
  virtual ~PlanHelpers() = default;
  virtual int32_t width() const = 0;
  virtual void run_helpers(const std::function<void(int32_t)> &fn) = 0;
};

/// Build the plan for `keys`. Kernels are resolved in `registry` (may be null: then kernels are not
/// resolved, for validation without a context), once per layer kernel slot, checking the version a
/// layer records (CA_EVERSION names layer, kernel and both versions). At most `max_tasks` tasks are
/// materialized (0: default_max_tasks(0)); more is CA_ENOMEM naming the count and the budget.
/// Throws CA_ENOTFOUND / CA_ECYCLE / CA_EINVAL / CA_EVERSION / CA_ENOMEM.
///
/// With `helpers` (width() > 1) and a large graph, the plan is built in parallel (see plan.cpp: the
/// subtrees below the output's first branching task are walked by separate builders and merged into
/// the sequential walk's order); the plan is identical to the sequential one, and any shared task,
/// error or unsupported shape falls back to the sequential walk (which reports errors).
std::unique_ptr<Plan> build_plan(const Graph &g, const KeyRef *keys, size_t nkeys, const KernelRegistry *registry,
                                 int64_t max_tasks = 0, PlanHelpers *helpers = nullptr);

namespace detail {
/// Planner mode (tests): 0 auto (parallel for graphs of at least kParallelPlanMinTasks tasks when
/// helpers are given; the environment variable CA_PLAN_PARALLEL=0 / 1 sets 1 / 2 at start-up),
/// 1 always sequential, 2 parallel whenever helpers are given and the shape allows (no size limit).
extern std::atomic<int> g_plan_mode;
/// Plans built by the parallel planner (not fallen back), and parallel attempts that fell back.
extern std::atomic<int64_t> g_plan_parallel_built;
extern std::atomic<int64_t> g_plan_parallel_fallbacks;
/// Test hook: while positive, a parallel plan's claim check reports a task taken by two builders
/// (as when both stored their claim at once) and counts it down.
extern std::atomic<int> g_plan_claim_clashes;
/// Bytes (capacity) of the parallel builders' arrays kept for the next parallel plan, and the task
/// array kept for helper index `w` (nullptr: none), for tests.
int64_t plan_scratch_bytes();
const void *plan_scratch_tasks(int32_t w);
/// Bytes of helper `w`'s kept arrays not faulted in yet (-1: none kept), for tests; and a test hook:
/// a helper faults in at most this many slices of its arrays per plan before it walks (< 0: all).
int64_t plan_scratch_unfaulted(int32_t w);
extern std::atomic<int> g_plan_prefault_slices;
}  // namespace detail
constexpr int64_t kParallelPlanMinTasks = 16384;

/// Check that `keys` (all of `g`'s tasks when `keys` is null) can be planned: every reference
/// resolves, no cycle, kernels resolve in `registry` (when given) at the versions the layers record,
/// and the task budget `max_tasks` holds (checked from the layers' counts before any materializing).
/// Throws as build_plan does.
void validate_graph(const Graph &g, const KeyRef *keys, size_t nkeys, const KernelRegistry *registry,
                    int64_t max_tasks);

/// Tasks of every layer of `g` (symbolic layers counted, not materialized), saturating at INT64_MAX.
int64_t graph_num_tasks(const Graph &g);
/// CA_ENOMEM naming `what`, the count and the budget when `ntasks` > `max_tasks` (0: the default).
void check_task_budget(int64_t ntasks, int64_t max_tasks, const char *what);

}  // namespace ca
