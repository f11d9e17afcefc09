// The executor: a work-stealing thread pool that runs plans (Taskflow's design).
//
// - Per-worker Chase-Lev deques: the owner pushes/pops at the bottom (LIFO: depth first), thieves
//   steal from the top.
// - Roots are not pushed up front: a worker takes the next root (in priority order) from a shared
//   cursor only when it has no local work, so what is started is finished first and a long reduction
//   holds few blocks per thread.
// - A task hands the most urgent successor it made ready straight back to its worker, which runs
//   it next (Taskflow's cached task): no deque push and pop for the common chain step.
// - A one-worker pool's caller runs its computation itself while the worker is idle (as synchronous
//   mode does): no hand-off and wake-up per compute; computations started meanwhile from other
//   threads go to the worker.
// - An eventcount notifier: a worker announces it is about to sleep, re-checks for work, then sleeps;
//   producers only take the lock when someone sleeps. No lost wake-ups.
// - The first failure wins: it cancels the run, no further task starts, and every intermediate
//   result is released.
// - Partial runs (RunOptions::partial, used by the distributed executor in dist/): a run may execute
//   only some tasks of a plan; others arrive from elsewhere (RunControl::provide, from the thread
//   waiting for the run) or are skipped, and local results other processes need are handed out as
//   soon as they exist. Received inputs count as in-flight work until provided (or dropped on
//   cancellation), so a run never looks complete while it still waits for one.
// - Memory is bounded by the run's budget (core/memory.hpp): blocks kernels allocate are charged to
//   it, and a root is started only when its estimated bytes (the most any root of this run charged
//   so far; the first root runs alone to measure it) fit under the limit minus a headroom of one
//   task's bytes per worker, which covers what tasks already in flight still allocate. Non-root
//   tasks are never held back: they finish what is started and free their inputs. A run that is
//   held back with nothing in flight fails with CA_ENOMEM naming the budget unless another
//   computation on the same budget can still free memory (then it waits).
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/memory.hpp"
#include "graph/plan.hpp"

namespace ca {

struct PartialRun;

struct RunOptions {
  void (*progress)(int64_t done, int64_t total, void *ud) = nullptr;
  void *progress_ud = nullptr;
  int64_t progress_interval_us = 100000;
  const std::atomic<bool> *cancel = nullptr;  // external cancellation flag
  /// Borrowed; the run retains it. Blocks allocated by its kernels are charged to it and new roots
  /// wait for memory under its limit. nullptr: nothing charged, nothing held back.
  MemoryBudget *budget = nullptr;
  /// Task budget for the plans built for this run (build_plan's max_tasks; 0 = default).
  int64_t max_tasks = 0;
  /// Streaming outputs: when set, each requested result is handed to this callback (on a worker
  /// thread, concurrently) as soon as its task finishes, then released; run() returns no blocks.
  /// The callback may throw ca::Error to fail the run.
  std::function<void(size_t output_index, const Block *block)> on_output;
  /// With on_output: the caller's memory for output `output_index` when its block fills one
  /// contiguous region there (`*nbytes` bytes), else nullptr. The task is offered it
  /// (ca_kernel_ctx::out_dest); a kernel that writes there hands on_output a block whose data is
  /// that pointer, so no copy is needed.
  std::function<void *(size_t output_index, int64_t *nbytes)> out_dest;
  /// Partial run (see above); nullptr: every task of the plan runs here. Outputs whose task is not
  /// kept here (role Skip, or Local/Remote without an output reference) come back as nullptr.
  const PartialRun *partial = nullptr;
};

/// What a partial run does with one task (RunOptions::partial).
enum class TaskRole : uint8_t {
  Local = 0,   // runs here
  Remote = 1,  // computed elsewhere; its result is provided (RunControl::provide) by the waiting thread
  Skip = 2,    // neither run here nor needed here
};

class Run;

/// The waiting thread's handle on a partial run (RunOptions::partial's on_poll).
class RunControl {
 public:
  explicit RunControl(Run &r) : run_(r) {}
  /// Hand in the result of a Remote task (adopts `block`). Wakes workers for tasks it makes ready.
  /// After cancellation the block is released and nothing else happens. Each Remote task once.
  void provide(int32_t task, Block *block);
  /// Fail the run (the first failure wins), as a kernel failure would.
  void fail(ca_status_t code, std::string message);
  bool cancelled() const;
  /// The run's first failure so far: CA_OK if none, else its code (and message in *message).
  ca_status_t error(std::string *message) const;
  /// Remote tasks not yet provided.
  int64_t waiting() const;

 private:
  Run &run_;
};

struct PartialRun {
  /// Per plan task (plan.size() entries).
  const TaskRole *role = nullptr;
  /// Per plan task: references the run holds on a Local or Remote task's result — its Local
  /// dependents plus the times it is kept as an output here. A task with 0 is released once exported.
  const int32_t *consumers = nullptr;
  /// Per plan task: nonzero for Local tasks whose result goes to other processes. on_export gets a
  /// new reference to the result (on a worker thread) as soon as the task finished.
  const uint8_t *exported = nullptr;
  std::function<void(int32_t task, Block *ref)> on_export;
  /// Called repeatedly by the thread waiting for the run (instead of sleeping): it paces itself
  /// (returns after at most a few ms) and provides Remote results through the control.
  std::function<void(RunControl &)> on_poll;
};

struct RunStats {
  int64_t tasks = 0;
  int64_t peak_bytes = 0;  // peak bytes of live results held by the run
};

/// Also the plan builder's helpers (graph/plan.hpp): while a compute's plan is built, its pool's
/// threads are idle, so run_helpers() lends them to the planner (fn(0) on the caller, fn(1) ..
/// fn(num_threads() - 1) on pool threads as they come by; one such job at a time per executor: a
/// second caller meanwhile runs only fn(0) itself).
class Executor final : public PlanHelpers {
 public:
  /// nthreads == 0: synchronous mode (the caller runs everything).
  explicit Executor(int32_t nthreads);
  ~Executor();
  Executor(const Executor &) = delete;
  Executor &operator=(const Executor &) = delete;

  int32_t num_threads() const { return int32_t(workers_.size()); }

  // PlanHelpers: at most num_threads() threads at once (the caller is one of them).
  int32_t width() const override { return std::max<int32_t>(1, num_threads()); }
  void run_helpers(const std::function<void(int32_t)> &fn) override;
  /// fn over [0, n) in ranges, on the caller and (for large n) the pool's idle threads
  /// (run_helpers); fn must not throw.
  void for_ranges(int64_t n, const std::function<void(int64_t, int64_t)> &fn);

  /// Run a plan; returns the requested results (owned refs, in plan.outputs order).
  /// Throws Error (CA_EKERNEL, CA_ECANCELED, CA_ENOMEM) after releasing every intermediate.
  std::vector<Block *> run(Plan &plan, const RunOptions &opts, RunStats *stats = nullptr);

 private:
  struct Worker;
  void worker_loop(size_t id);
  bool find_work(Worker &w, struct TaskItem &out);
  bool take_root(Worker &w, struct TaskItem &out);
  void lend(Worker &w, Run &r, const std::function<void()> &tick);
  bool spin_for_work(Worker &w, struct TaskItem &item, const std::atomic<bool> &until);
  void notify_one();
  void notify_all();
  struct Job;
  bool try_job();

  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<std::thread> threads_;
  std::atomic<bool> stop_{false};
  // Active runs (roots still to hand out).
  std::mutex runs_mu_;
  std::vector<std::shared_ptr<Run>> runs_;
  // Eventcount.
  std::mutex sleep_mu_;
  std::condition_variable sleep_cv_;
  std::atomic<uint64_t> epoch_{0};
  std::atomic<int32_t> sleepers_{0};
  // Workers in their spin before sleeping (they find new work themselves: posting it wakes a
  // sleeper only when none spins, and a worker that takes roots wakes the next; see run()).
  std::atomic<int32_t> spinning_{0};
  std::atomic<int32_t> borrowed_{0};  // sleeping workers a computation's caller runs (run())
  std::atomic<int32_t> nruns_{0};  // runs_.size(), read without the lock
  // A one-worker pool's caller runs its computation itself while the worker is idle (run()).
  std::atomic<bool> solo_{false};
  // The current run_helpers() job (nullptr: none); joining it takes job_mu_.
  std::mutex job_mu_;
  std::atomic<Job *> job_{nullptr};
  std::atomic<bool> job_open_{false};  // a job with indices left (what idle workers look at)
  friend class Run;
  friend class RunControl;
};

namespace detail {
/// Test hook (nullptr outside tests): called while a run checks whether it is complete, between its
/// read of the root cursor and its read of the in-flight count, so a test can widen that window.
extern void (*g_completion_probe)();
}  // namespace detail

}  // namespace ca
