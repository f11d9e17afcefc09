#include "exec/executor.hpp"

#include "core/alloc.hpp"
#include "core/sanitizer.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <new>

namespace ca {

namespace detail {
void (*g_completion_probe)() = nullptr;
}  // namespace detail

namespace {
constexpr size_t kCacheLine = 64;
// Roots a worker claims at once: at most kRootBatch, and fewer for runs with few roots (Run::root_batch).
// Consecutive roots' tasks write neighbouring Nodes and plan arguments: claimed 4 at a time, two
// workers shared those cache lines on every tiny task (W1: 2 threads ran 1.08x faster than one;
// with 64, 1.25x). 1024: the roots under a tree reduction's upper levels stay on one worker too
// (64 of W1's were one block of its fourth level, so the levels above read blocks and counters the
// other worker wrote): W1's 2-worker execute phase 39-45 -> 35 ms. Claimed roots are started in
// priority order by their worker (the other takes fresh roots from the cursor first and steals only
// when they run out), so the batch does not change what is held in memory; under a memory limit
// take_roots reserves for the batch and halves it until it fits.
constexpr int64_t kRootBatch = 1024;
constexpr int64_t kMinRootBatch = 4;
constexpr int kStealSpins = 128;
constexpr std::chrono::microseconds kSpinTime{50};
// The executor whose tasks this thread is running (its workers' threads; a caller while it runs
// its own computation or a borrowed worker's loop): a computation started from inside one of its
// kernels runs on that thread alone (see Executor::run).
thread_local const Executor *t_running = nullptr;
struct RunningOn {
  const Executor *saved;
  explicit RunningOn(const Executor *e) : saved(t_running) { t_running = e; }
  ~RunningOn() { t_running = saved; }
  RunningOn(const RunningOn &) = delete;
  RunningOn &operator=(const RunningOn &) = delete;
};
}  // namespace

// ------------------------------------------------------------------------------------------------
// Run state

struct Node {
  Run *run;
  std::atomic<int32_t> pending;    // unfinished dependencies
  std::atomic<int32_t> consumers;  // dependents not yet run (+ output references)
  Block *result;
  int64_t reserved;  // bytes reserved on the budget for this root before it was handed out
};

struct TaskItem {
  Node *node;
};

class Run : public std::enable_shared_from_this<Run> {
 public:
  Run(Plan &p, const RunOptions &o, int32_t nworkers_, Executor *ex)
      : plan(p), opts(o), n(p.size()), nworkers(nworkers_), exec(ex) {
    const PartialRun *part = opts.partial;
    // Node is trivially destructible; its memory comes from the library allocator (core/alloc.hpp;
    // mimalloc keeps it mapped between computes).
    const size_t node_bytes = sizeof(Node) * size_t(n ? n : 1);
    nodes = std::unique_ptr<Node[], MiFree>(
        static_cast<Node *>(node_bytes >= detail::kBigMin ? detail::big_alloc(node_bytes)
                                                          : detail::mem_alloc_aligned(node_bytes, alignof(Node))),
        MiFree{node_bytes});
    if (!nodes) throw std::bad_alloc();
    auto init = [&](int64_t from, int64_t to) {
      for (int64_t t = from; t < to; ++t) {
        Node &nd = *new (&nodes[size_t(t)]) Node;
        nd.run = this;
        nd.pending.store(plan.tasks[size_t(t)].dep_end - plan.tasks[size_t(t)].dep_begin, std::memory_order_relaxed);
        nd.consumers.store(part ? part->consumers[size_t(t)] : plan.nconsumers[size_t(t)], std::memory_order_relaxed);
        nd.result = nullptr;
        nd.reserved = 0;
      }
    };
    // A large plan's nodes are set up on the pool's idle threads too (run_helpers: the caller alone
    // when they are busy); the run is posted only afterwards, so no worker reads a node before.
    if (ex) ex->for_ranges(n, init);
    else init(0, n);
    if (part) {
      for (int32_t r : plan.roots)
        if (part->role[size_t(r)] == TaskRole::Local) local_roots.push_back(r);
      for (int32_t t = 0; t < n; ++t) {
        if (part->role[size_t(t)] == TaskRole::Local) ++total;
        else if (part->role[size_t(t)] == TaskRole::Remote) ++remote_waiting;
      }
      roots = local_roots.data();
      nroots = int64_t(local_roots.size());
      inflight.store(remote_waiting, std::memory_order_relaxed);  // each counts until provided
    } else {
      roots = plan.roots.data();
      nroots = int64_t(plan.roots.size());
      total = n;
    }
    // Eight batches per worker at least, so the last ones still balance.
    root_batch = std::clamp<int64_t>(nroots / (8 * std::max<int64_t>(nworkers, 1)), kMinRootBatch, kRootBatch);
    budget = opts.budget;
    if (budget) {
      budget->retain();
      budget->active_runs.fetch_add(1, std::memory_order_relaxed);
    }
    if (opts.on_output) {
      out_head.assign(size_t(n ? n : 1), -1);
      out_next.assign(plan.outputs.size(), -1);
      for (size_t i = plan.outputs.size(); i-- > 0;) {
        out_next[i] = out_head[size_t(plan.outputs[i])];
        out_head[size_t(plan.outputs[i])] = int32_t(i);
      }
    }
  }

  ~Run() {
    if (budget) {
      budget->active_runs.fetch_sub(1, std::memory_order_relaxed);
      budget->release();
    }
  }

  // Take up to `max` roots in priority order; returns how many were written to out. With a limited
  // budget, only as many as fit (see executor.hpp); 0 with `throttled` set when none does.
  int64_t take_roots(Node **out, int64_t max) {
    if (cancelled.load(std::memory_order_relaxed) || cursor.load(std::memory_order_relaxed) >= nroots) return 0;
    int64_t each = 0;  // bytes reserved per root
    bool probe = false;
    if (budget && budget->limited()) {
      int64_t est = root_est.load(std::memory_order_relaxed);
      if (est < 0) {
        // Nothing measured yet: one root alone, to learn what a root allocates.
        if (probing.exchange(true, std::memory_order_acq_rel)) {
          throttled.store(true, std::memory_order_relaxed);
          return 0;
        }
        probe = true;
        max = 1;
      } else if (est > 0) {
        int64_t limit = budget->limit();
        int64_t headroom = task_est.load(std::memory_order_relaxed) * nworkers;
        int64_t k = max;
        while (k > 0 && !budget->try_reserve(est * k, limit - headroom)) k >>= 1;
        // Nothing of this run in flight: whatever fits at all may start (else nothing ever would).
        if (k == 0 && inflight.load(std::memory_order_acquire) == 0 && budget->try_reserve(est, limit)) k = 1;
        if (k == 0) {
          throttled.store(true, std::memory_order_relaxed);
          return 0;
        }
        max = k;
        each = est;
      }
      if (throttled.load(std::memory_order_relaxed)) throttled.store(false, std::memory_order_relaxed);
    }
    inflight.fetch_add(max, std::memory_order_acq_rel);
    int64_t i = cursor.fetch_add(max, std::memory_order_acq_rel);
    int64_t got = std::max<int64_t>(0, std::min(max, nroots - i));
    if (cancelled.load(std::memory_order_acquire)) got = 0;
    for (int64_t k = 0; k < got; ++k) {
      out[k] = &nodes[size_t(roots[size_t(i + k)])];
      out[k]->reserved = each;
    }
    if (got < max) {
      if (each) budget->give_back(each * (max - got));
      if (probe) probing.store(false, std::memory_order_release);
      finish(max - got);
    }
    return got;
  }

  // A root finished its kernel having charged `bytes` (any task: `root` false).
  void measured(bool root, int64_t bytes) {
    int64_t t = task_est.load(std::memory_order_relaxed);
    while (bytes > t && !task_est.compare_exchange_weak(t, bytes, std::memory_order_relaxed)) {
    }
    if (!root) return;
    int64_t e = root_est.load(std::memory_order_relaxed);
    while (bytes > e && !root_est.compare_exchange_weak(e, bytes, std::memory_order_relaxed)) {
    }
  }

  // Called by the thread waiting for the run. A run held back for memory with nothing in flight can
  // only go on if memory is freed by another computation on the budget; with none, it fails.
  // Returns true if roots may fit again (the caller wakes workers).
  bool check_stuck() {
    if (!budget || !throttled.load(std::memory_order_acquire) || cancelled.load(std::memory_order_acquire)) return false;
    if (cursor.load(std::memory_order_acquire) >= nroots) return false;
    int64_t est = std::max<int64_t>(root_est.load(std::memory_order_relaxed), 0);
    int64_t limit = budget->limit();
    if (limit <= 0 || budget->held() + est <= limit) return true;
    if (inflight.load(std::memory_order_acquire) != 0) return false;
    if (budget->active_runs.load(std::memory_order_relaxed) > 1) return false;
    fail(CA_ENOMEM, str("out of memory: the next task needs about ", est, " bytes (", bytes_str(est),
                        ") and nothing running can free any: ", budget->describe(),
                        " (free persisted arrays or results, or raise memory-limit)"));
    check_complete();
    return false;
  }

  // `count` owned tasks are finished (or dropped).
  void finish(int64_t count) {
    if (inflight.fetch_sub(count, std::memory_order_acq_rel) == count) check_complete();
  }

  void check_complete() {
    // The roots first, then the in-flight count. A worker claims roots by raising `inflight` before
    // it advances `cursor`, so once every root is seen claimed, a zero count includes every claim.
    // (Read the other way round, a zero count could be followed by a claim of the last roots and then
    // an exhausted cursor: the run ended with those roots still to run, and its plan was freed under
    // them.)
    if (cursor.load(std::memory_order_acquire) < nroots && !cancelled.load(std::memory_order_acquire)) return;
    if (detail::g_completion_probe) detail::g_completion_probe();
    if (inflight.load(std::memory_order_acquire) != 0) return;
    if (signalled.exchange(true, std::memory_order_acq_rel)) return;
    std::lock_guard<std::mutex> lk(mu);
    complete = true;
    cv.notify_all();
  }

  void fail(ca_status_t code, std::string msg) {
    {
      std::lock_guard<std::mutex> lk(err_mu);
      if (err_code == CA_OK) {
        err_code = code;
        err_msg = std::move(msg);
      }
    }
    cancelled.store(true, std::memory_order_release);
  }

  // Ready tasks made so by provide() (from the waiting thread; workers take them like roots).
  int64_t take_injected(Node **out, int64_t max) {
    if (ninjected.load(std::memory_order_acquire) == 0) return 0;
    std::lock_guard<std::mutex> lk(inj_mu);
    int64_t got = 0;
    while (got < max && !injected.empty()) {
      out[got++] = injected.back();
      injected.pop_back();
    }
    ninjected.store(int64_t(injected.size()), std::memory_order_release);
    return got;
  }

  // Remote results not yet provided stop counting as in flight (cancellation; waiting thread only).
  void drop_remote() {
    if (remote_waiting == 0) return;
    int64_t k = remote_waiting;
    remote_waiting = 0;
    finish(k);
  }

  Plan &plan;
  RunOptions opts;
  int32_t n;
  int32_t nworkers;
  Executor *exec;
  const int32_t *roots = nullptr;
  std::vector<int32_t> local_roots;  // partial runs: the Local roots, in priority order
  int64_t total = 0;                 // tasks this run executes (progress)
  int64_t remote_waiting = 0;        // Remote tasks not yet provided (waiting thread only)
  std::mutex inj_mu;
  std::vector<Node *> injected;
  std::atomic<int64_t> ninjected{0};
  MemoryBudget *budget = nullptr;
  struct MiFree {  // (the large arrays of big plans come from the big-buffer cache, core/big_buffer.hpp)
    MiFree() noexcept : bytes(0) {}
    explicit MiFree(size_t b) noexcept : bytes(b) {}
    size_t bytes;
    void operator()(Node *p) const {
      if (bytes >= detail::kBigMin) detail::big_free(p, bytes);
      else detail::mem_free(p);
    }
  };
  std::unique_ptr<Node[], MiFree> nodes;
  std::vector<int32_t> out_head, out_next;  // streaming outputs: task -> output indices
  int64_t nroots = 0;
  int64_t root_batch = kMinRootBatch;  // roots claimed at once (kMinRootBatch..kRootBatch)
  bool track_memory = false;
  alignas(kCacheLine) std::atomic<int64_t> cursor{0};
  alignas(kCacheLine) std::atomic<int64_t> inflight{0};
  alignas(kCacheLine) std::atomic<int64_t> done{0};
  alignas(kCacheLine) std::atomic<int64_t> live_bytes{0};
  std::atomic<int64_t> peak_bytes{0};
  std::atomic<bool> cancelled{false};
  std::atomic<bool> signalled{false};
  // Memory admission (take_roots): most bytes one root / any task charged; -1 = not yet measured.
  alignas(kCacheLine) std::atomic<int64_t> root_est{-1};
  std::atomic<int64_t> task_est{0};
  std::atomic<bool> probing{false};
  std::atomic<bool> throttled{false};
  std::mutex mu;
  std::condition_variable cv;
  bool complete = false;
  mutable std::mutex err_mu;
  ca_status_t err_code = CA_OK;
  std::string err_msg;
};

// ------------------------------------------------------------------------------------------------
// Chase-Lev work-stealing deque (Lê, Pop, Cohen, Zappa Nardelli, PPoPP 2013).
//
// The paper's C11 version orders its accesses with standalone fences: a release fence in push
// before publishing `bottom` (the slot, and the task it points to, are visible to a thief that reads
// the new bottom), and seq_cst fences between pop's store of `bottom` and load of `top` and between
// steal's loads of `top` and `bottom` (the store-load order that stops the owner and a thief both
// taking the last task). ThreadSanitizer does not model standalone fences, so under TSan (CA_TSAN)
// the same orders are carried by the accesses themselves: every store of `bottom` is a release (push
// publishes with it; pop's restores keep the publication of the tasks below), and pop's store of
// `bottom` / load of `top` and steal's loads are seq_cst, which gives the store-load order through
// the single total order of seq_cst operations. Both versions are correct; normal builds keep the
// paper's fences and relaxed accesses (the fast path).

class WorkDeque {
#if CA_TSAN
  static constexpr std::memory_order kBottomStore = std::memory_order_seq_cst;
  static constexpr std::memory_order kSyncLoad = std::memory_order_seq_cst;
#else
  static constexpr std::memory_order kBottomStore = std::memory_order_relaxed;
  static constexpr std::memory_order kSyncLoad = std::memory_order_relaxed;
#endif
  static void fence_release() {
#if !CA_TSAN
    std::atomic_thread_fence(std::memory_order_release);
#endif
  }
  static void fence_seq_cst() {
#if !CA_TSAN
    std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
  }

 public:
  WorkDeque() : array_(new Array(1024)) { garbage_.emplace_back(array_.load(std::memory_order_relaxed)); }

  void push(Node *x) {
    int64_t b = bottom_.load(std::memory_order_relaxed);
    int64_t t = top_.load(std::memory_order_acquire);
    Array *a = array_.load(std::memory_order_relaxed);
    if (b - t > a->cap - 1) a = grow(a, b, t);
    a->put(b, x);
    fence_release();
    bottom_.store(b + 1, CA_TSAN ? std::memory_order_release : std::memory_order_relaxed);
  }

  Node *pop() {
    int64_t b = bottom_.load(std::memory_order_relaxed) - 1;
    Array *a = array_.load(std::memory_order_relaxed);
    bottom_.store(b, kBottomStore);
    fence_seq_cst();
    int64_t t = top_.load(kSyncLoad);
    Node *x = nullptr;
    if (t <= b) {
      x = a->get(b);
      if (t == b) {
        if (!top_.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst, std::memory_order_relaxed))
          x = nullptr;
        bottom_.store(b + 1, kBottomStore);
      }
    } else {
      bottom_.store(b + 1, kBottomStore);
    }
    return x;
  }

  Node *steal() {
    int64_t t = top_.load(CA_TSAN ? std::memory_order_seq_cst : std::memory_order_acquire);
    fence_seq_cst();
    int64_t b = bottom_.load(CA_TSAN ? std::memory_order_seq_cst : std::memory_order_acquire);
    if (t < b) {
      Array *a = array_.load(std::memory_order_acquire);
      Node *x = a->get(t);
      if (!top_.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst, std::memory_order_relaxed))
        return nullptr;
      return x;
    }
    return nullptr;
  }

  bool empty() const {
    return bottom_.load(std::memory_order_relaxed) <= top_.load(std::memory_order_relaxed);
  }

 private:
  struct Array {
    explicit Array(int64_t c) : cap(c), mask(c - 1), buf(new std::atomic<Node *>[size_t(c)]) {}
    int64_t cap, mask;
    std::unique_ptr<std::atomic<Node *>[]> buf;
    void put(int64_t i, Node *x) { buf[size_t(i & mask)].store(x, std::memory_order_relaxed); }
    Node *get(int64_t i) { return buf[size_t(i & mask)].load(std::memory_order_relaxed); }
  };
  Array *grow(Array *a, int64_t b, int64_t t) {
    Array *na = new Array(a->cap * 2);
    for (int64_t i = t; i < b; ++i) na->put(i, a->get(i));
    garbage_.emplace_back(na);  // old arrays stay alive: thieves may still read them
    array_.store(na, std::memory_order_release);
    return na;
  }
  alignas(kCacheLine) std::atomic<int64_t> top_{0};
  alignas(kCacheLine) std::atomic<int64_t> bottom_{0};
  alignas(kCacheLine) std::atomic<Array *> array_;
  std::vector<std::unique_ptr<Array>> garbage_;
};

// ------------------------------------------------------------------------------------------------
// Executing one task

// Batches progress counts per run (used only by its owner thread). It keeps the run alive, since a
// run may complete on another thread before this count is flushed. In namespace detail, not an
// anonymous one: Executor::Worker holds one.
namespace detail {
struct DoneCounter {
  // A worker's counts for its current run, published in batches: tasks done (progress) and tasks
  // finished without a successor to hand their in-flight count to. Both counters are shared by
  // every worker; one atomic add per task on them was a serial point of tiny-task graphs (W1).
  // Flushed every 256 tasks, on a change of run, and before the worker looks for work elsewhere or
  // sleeps, so a run completes as soon as its last worker runs out of its tasks.
  std::shared_ptr<Run> run;
  int64_t count = 0;
  int64_t finished = 0;
  void flush() {
    if (run && count) run->done.fetch_add(count, std::memory_order_relaxed);
    count = 0;
    if (run && finished) {
      const int64_t f = finished;
      finished = 0;
      run->finish(f);  // (may complete the run: `run` keeps it alive)
    }
  }
  void reset() {
    flush();
    run.reset();
  }
  void add(Run *r) {
    if (r != run.get()) {
      flush();
      run = r->shared_from_this();
    }
    if (++count >= 256) flush();
  }
  // The task just add()ed finished with no ready successor: its in-flight count ends.
  void finish_later() { ++finished; }
};
}  // namespace detail
using detail::DoneCounter;

namespace {

// Returns the most urgent successor this task made ready, which the caller runs next itself (not
// pushed and popped again: Taskflow's cached task; a deque pop costs a full fence), or nullptr.
template <class Push>
Node *execute(Node *node, Push &&push, DoneCounter &dc, detail::ChargeState &cs) {
  Run &r = *node->run;
  Plan &plan = r.plan;
  if (r.cancelled.load(std::memory_order_relaxed)) {
    if (node->reserved) r.budget->give_back(node->reserved);
    node->reserved = 0;
    dc.flush();
    r.finish(1);
    return nullptr;
  }
  int32_t t = int32_t(node - r.nodes.get());
  const PlanTask &pt = plan.tasks[size_t(t)];
  for (uint32_t i = pt.patch_begin; i < pt.patch_end; ++i) {
    const Patch &p = plan.patches[i];
    plan.args[p.pos].u.block = r.nodes[size_t(p.task)].result;
  }
  Index idx[65];
  pt.layer->key_at(pt.local, idx);
  ca_kernel_ctx kc;
  kc.key_name = pt.layer->name().c_str();
  kc.key_index = idx;
  kc.nindex = pt.layer->nindex();
  kc.cancelled = &r.cancelled;
  if (r.opts.out_dest && !r.out_head.empty() && r.out_head[size_t(t)] >= 0)
    kc.out_dest = r.opts.out_dest(size_t(r.out_head[size_t(t)]), &kc.out_dest_bytes);
  Block *out = nullptr;
  {
    // Blocks the kernel allocates are charged to the run's budget, the root's reservation first.
    ChargeScope scope(cs, r.budget, node->reserved);
    node->reserved = 0;
    try {
      out = kernel_invoke(pt.kernel, plan.args.data() + pt.arg_begin, pt.nargs, &kc);
      if (r.track_memory) {
        int64_t live = r.live_bytes.fetch_add(out->nbytes, std::memory_order_relaxed) + out->nbytes;
        int64_t peak = r.peak_bytes.load(std::memory_order_relaxed);
        while (live > peak && !r.peak_bytes.compare_exchange_weak(peak, live, std::memory_order_relaxed)) {
        }
      }
    } catch (const Error &e) {
      r.fail(e.code(), str("task ", key_str(pt.layer->name(), idx, pt.layer->nindex()), ": ", e.message()));
    } catch (const std::bad_alloc &) {
      r.fail(CA_ENOMEM, str("task ", key_str(pt.layer->name(), idx, pt.layer->nindex()), ": out of memory"));
    } catch (const std::exception &e) {
      r.fail(CA_EINTERNAL, str("task ", key_str(pt.layer->name(), idx, pt.layer->nindex()), ": ", e.what()));
    }
    if (r.budget) r.measured(pt.dep_begin == pt.dep_end, scope.charged());
  }
  node->result = out;  // released at the end of the run if the run failed
  if (!out || r.cancelled.load(std::memory_order_relaxed)) {
    dc.flush();
    r.finish(1);
    return nullptr;
  }
  if (!r.out_head.empty() && r.out_head[size_t(t)] >= 0) {
    int32_t handed = 0;
    try {
      for (int32_t i = r.out_head[size_t(t)]; i >= 0; i = r.out_next[size_t(i)], ++handed)
        r.opts.on_output(size_t(i), out);
    } catch (const Error &e) {
      r.fail(e.code(), str("storing ", key_str(pt.layer->name(), idx, pt.layer->nindex()), ": ", e.message()));
    } catch (const std::bad_alloc &) {
      r.fail(CA_ENOMEM, "out of memory storing a result");
    }
    if (r.cancelled.load(std::memory_order_relaxed)) {
      dc.flush();
      r.finish(1);
      return nullptr;
    }
    if (node->consumers.fetch_sub(handed, std::memory_order_acq_rel) == handed) {
      if (r.track_memory) r.live_bytes.fetch_sub(out->nbytes, std::memory_order_relaxed);
      block_release(out);
      node->result = nullptr;
    }
  }
  if (const PartialRun *part = r.opts.partial) {
    if (part->exported[size_t(t)]) {
      try {
        part->on_export(t, block_retain(out));
      } catch (const Error &e) {
        r.fail(e.code(), str("sending ", key_str(pt.layer->name(), idx, pt.layer->nindex()), ": ", e.message()));
      } catch (const std::bad_alloc &) {
        r.fail(CA_ENOMEM, "out of memory sending a result");
      }
    }
    if (node->result && node->consumers.load(std::memory_order_acquire) == 0) {  // needed elsewhere only
      if (r.track_memory) r.live_bytes.fetch_sub(out->nbytes, std::memory_order_relaxed);
      block_release(out);
      node->result = nullptr;
    }
  }
  // Release inputs whose last consumer this was.
  for (int32_t i = pt.dep_begin; i < pt.dep_end; ++i) {
    Node &d = r.nodes[size_t(plan.deps[size_t(i)])];
    if (d.consumers.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      if (r.track_memory) r.live_bytes.fetch_sub(d.result->nbytes, std::memory_order_relaxed);
      block_release(d.result);
      d.result = nullptr;
    }
  }
  // Successors that became ready. All are counted in `inflight` before any is published: once one
  // is pushed another thread may run it, and the run must not look complete while we still push.
  // Pushed lowest priority first so the most urgent is on top.
  dc.add(&r);
  Node *ready_small[16];
  std::vector<Node *> ready_big;
  int64_t nready = 0;
  const TaskRole *role = r.opts.partial ? r.opts.partial->role : nullptr;
  for (int32_t i = plan.dependents_off[size_t(t) + 1] - 1; i >= plan.dependents_off[size_t(t)]; --i) {
    if (role && role[size_t(plan.dependents[size_t(i)])] != TaskRole::Local) continue;
    Node &s = r.nodes[size_t(plan.dependents[size_t(i)])];
    if (s.pending.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      if (nready < 16) {
        ready_small[nready] = &s;
      } else {
        if (ready_big.empty()) ready_big.assign(ready_small, ready_small + 16);
        ready_big.push_back(&s);
      }
      ++nready;
    }
  }
  if (nready == 0) {
    dc.finish_later();  // this task's own count, published in a batch
    return nullptr;
  }
  if (nready > 1) r.inflight.fetch_add(nready - 1, std::memory_order_relaxed);  // the first inherits ours
  Node **ready = nready <= 16 ? ready_small : ready_big.data();
  for (int64_t i = 0; i + 1 < nready; ++i) push(ready[i]);
  return ready[nready - 1];
}

}  // namespace

// ------------------------------------------------------------------------------------------------
// Partial runs: the waiting thread's control

void RunControl::provide(int32_t task, Block *block) {
  Run &r = run_;
  if (r.remote_waiting == 0 || !r.opts.partial || task < 0 || task >= r.n ||
      r.opts.partial->role[size_t(task)] != TaskRole::Remote) {
    block_release(block);  // dropped after cancellation (or not a Remote task: ignored)
    return;
  }
  --r.remote_waiting;
  Node &nd = r.nodes[size_t(task)];
  if (r.cancelled.load(std::memory_order_acquire) || nd.result) {
    block_release(block);
    r.finish(1);
    return;
  }
  if (nd.consumers.load(std::memory_order_relaxed) == 0) {
    block_release(block);
  } else {
    nd.result = block;
    if (r.track_memory) {
      int64_t live = r.live_bytes.fetch_add(block->nbytes, std::memory_order_relaxed) + block->nbytes;
      int64_t peak = r.peak_bytes.load(std::memory_order_relaxed);
      while (live > peak && !r.peak_bytes.compare_exchange_weak(peak, live, std::memory_order_relaxed)) {
      }
    }
  }
  const Plan &plan = r.plan;
  const TaskRole *role = r.opts.partial->role;
  std::vector<Node *> ready;
  for (int32_t i = plan.dependents_off[size_t(task) + 1] - 1; i >= plan.dependents_off[size_t(task)]; --i) {
    int32_t d = plan.dependents[size_t(i)];
    if (role[size_t(d)] != TaskRole::Local) continue;
    Node &s = r.nodes[size_t(d)];
    if (s.pending.fetch_sub(1, std::memory_order_acq_rel) == 1) ready.push_back(&s);
  }
  if (ready.empty()) {
    r.finish(1);
    return;
  }
  if (ready.size() > 1) r.inflight.fetch_add(int64_t(ready.size()) - 1, std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lk(r.inj_mu);
    r.injected.insert(r.injected.end(), ready.begin(), ready.end());
    r.ninjected.store(int64_t(r.injected.size()), std::memory_order_release);
  }
  r.exec->notify_all();
}

void RunControl::fail(ca_status_t code, std::string message) { run_.fail(code, std::move(message)); }

bool RunControl::cancelled() const { return run_.cancelled.load(std::memory_order_acquire); }

int64_t RunControl::waiting() const { return run_.remote_waiting; }

ca_status_t RunControl::error(std::string *message) const {
  std::lock_guard<std::mutex> lk(run_.err_mu);
  if (message) *message = run_.err_msg;
  return run_.err_code;
}

// ------------------------------------------------------------------------------------------------
// Executor

struct Executor::Worker {
  // Who runs this worker's loop: its thread, or (while the thread sleeps) a computation's calling
  // thread that borrowed it (Executor::run: the caller works instead of waking a thread for it).
  enum : int { kRunning = 0, kSleeping = 1, kBorrowed = 2 };
  std::atomic<int> state{kRunning};
  std::mutex borrow_mu;  // the thread waits here while its worker is borrowed
  std::condition_variable borrow_cv;
  WorkDeque deque;
  std::shared_ptr<Run> cur;  // run we take roots from
  uint64_t rng = 0x9E3779B97F4A7C15ULL;
  DoneCounter dc;
  // Counts for CA_COMPUTE_PROFILE, written by the owner only (relaxed), read by the waiting thread.
  std::atomic<int64_t> n_tasks{0}, n_steals{0}, n_yields{0}, n_sleeps{0};
  // CA_COMPUTE_PROFILE: when this worker first took roots of the profiled run (steady_clock ticks; 0: not yet).
  std::atomic<int64_t> first_roots{0};
  static void bump(std::atomic<int64_t> &c) { c.store(c.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed); }
};

Executor::Executor(int32_t nthreads) {
  for (int32_t i = 0; i < nthreads; ++i) workers_.emplace_back(new Worker());
  for (int32_t i = 0; i < nthreads; ++i) {
    workers_[size_t(i)]->rng += uint64_t(i) * 0x632BE59BD9B4E019ULL;
    threads_.emplace_back([this, i] { worker_loop(size_t(i)); });
  }
}

Executor::~Executor() {
  stop_.store(true);
  {
    std::lock_guard<std::mutex> lk(sleep_mu_);
    epoch_.fetch_add(1);
  }
  sleep_cv_.notify_all();
  for (auto &t : threads_) t.join();
}

void Executor::notify_one() {
  // (Borrowed workers' threads count as sleepers until their worker is given back: not wakeable.)
  if (sleepers_.load(std::memory_order_seq_cst) - borrowed_.load(std::memory_order_seq_cst) <= 0) return;
  {
    std::lock_guard<std::mutex> lk(sleep_mu_);
    epoch_.fetch_add(1, std::memory_order_seq_cst);
  }
  sleep_cv_.notify_one();
}

void Executor::notify_all() {
  {
    std::lock_guard<std::mutex> lk(sleep_mu_);
    epoch_.fetch_add(1, std::memory_order_seq_cst);
  }
  sleep_cv_.notify_all();
}

struct Executor::Job {
  const std::function<void(int32_t)> *fn = nullptr;
  int32_t width = 1;
  int32_t next = 1;                // next index to hand out (job_mu_)
  std::atomic<int32_t> active{0};  // started calls not yet returned
};

// A pool thread joins the current job, if it has an index left.
bool Executor::try_job() {
  if (!job_open_.load(std::memory_order_acquire)) return false;
  Job *j;
  int32_t idx;
  {
    std::lock_guard<std::mutex> lk(job_mu_);
    j = job_.load(std::memory_order_relaxed);
    if (!j || j->next >= j->width) return false;
    idx = j->next++;
    if (j->next >= j->width) job_open_.store(false, std::memory_order_relaxed);
    j->active.fetch_add(1, std::memory_order_relaxed);
  }
  // A run posted while this worker spun counted on it: someone else takes it now.
  if (nruns_.load(std::memory_order_relaxed) > 0) notify_one();
  (*j->fn)(idx);
  j->active.fetch_sub(1, std::memory_order_release);  // (j may be gone after this)
  return true;
}

void Executor::run_helpers(const std::function<void(int32_t)> &fn) {
  Job j;
  j.fn = &fn;
  j.width = width();
  bool posted = false;
  if (j.width > 1) {
    std::lock_guard<std::mutex> lk(job_mu_);
    if (!job_.load(std::memory_order_relaxed)) {
      job_.store(&j, std::memory_order_release);
      job_open_.store(true, std::memory_order_seq_cst);
      posted = true;
    }
  }
  // As many workers as the job has indices, counting those spinning (they join it themselves): the
  // others sleep on (woken and finding no index left, they would spin beside the job's threads).
  if (posted)
    for (int32_t k = spinning_.load(std::memory_order_seq_cst); k < j.width - 1; ++k) notify_one();
  auto close = [&] {
    if (!posted) return;
    {
      std::lock_guard<std::mutex> lk(job_mu_);
      job_.store(nullptr, std::memory_order_relaxed);
      job_open_.store(false, std::memory_order_relaxed);
      j.next = j.width;  // no index starts any more
    }
    while (j.active.load(std::memory_order_acquire) != 0) std::this_thread::yield();
  };
  try {
    fn(0);
  } catch (...) {
    close();
    throw;
  }
  close();
}

void Executor::for_ranges(int64_t n, const std::function<void(int64_t, int64_t)> &fn) {
  constexpr int64_t kStep = 32768, kMin = 4 * kStep;
  if (n < kMin || width() < 2) {
    fn(0, n);
    return;
  }
  std::atomic<int64_t> next{0};
  run_helpers([&](int32_t) {
    for (int64_t s; (s = next.fetch_add(kStep, std::memory_order_relaxed)) < n;) fn(s, std::min(n, s + kStep));
  });
}

bool Executor::take_root(Worker &w, TaskItem &out) {
  Node *batch[kRootBatch];
  int64_t got = 0;
  if (w.cur) {
    got = w.cur->take_injected(batch, kRootBatch);
    if (got == 0) got = w.cur->take_roots(batch, w.cur->root_batch);
    if (got == 0) w.cur.reset();
  }
  if (got == 0) {
    // Every other active run, in order: one held back for memory must not starve the others.
    std::lock_guard<std::mutex> lk(runs_mu_);
    for (auto &r : runs_) {
      got = r->take_injected(batch, kRootBatch);
      if (got > 0) {
        w.cur = r;
        break;
      }
      if (r->cancelled.load(std::memory_order_relaxed) || r->cursor.load(std::memory_order_relaxed) >= r->nroots)
        continue;
      got = r->take_roots(batch, r->root_batch);
      if (got > 0) {
        w.cur = r;
        break;
      }
    }
  }
  if (got == 0) return false;
  if (w.first_roots.load(std::memory_order_relaxed) == 0)
    w.first_roots.store(std::chrono::steady_clock::now().time_since_epoch().count(), std::memory_order_relaxed);
  for (int64_t k = got - 1; k >= 1; --k) w.deque.push(batch[k]);
  if (got > 1) notify_one();
  out.node = batch[0];
  return true;
}

bool Executor::find_work(Worker &w, TaskItem &out) {
  if (Node *n = w.deque.pop()) {
    out.node = n;
    return true;
  }
  if (take_root(w, out)) return true;
  size_t nw = workers_.size();
  if (nw > 1) {
    w.rng ^= w.rng << 13;
    w.rng ^= w.rng >> 7;
    w.rng ^= w.rng << 17;
    size_t start = size_t(w.rng % nw);
    for (size_t k = 0; k < nw; ++k) {
      Worker &v = *workers_[(start + k) % nw];
      if (&v == &w) continue;
      if (Node *n = v.deque.steal()) {
        Worker::bump(w.n_steals);
        out.node = n;
        return true;
      }
    }
  }
  return false;
}

void Executor::worker_loop(size_t id) {
  Worker &w = *workers_[id];
  RunningOn on(this);
  detail::ChargeState &cs = detail::charge_state();
  auto push = [this, &w](Node *n) {
    w.deque.push(n);
    notify_one();
  };
  // A task, then the successor each one hands back (execute()).
  auto run_chain = [&](Node *n) {
    do {
      Worker::bump(w.n_tasks);
      n = execute(n, push, w.dc, cs);
    } while (n);
  };
  TaskItem item{};
  while (!stop_.load(std::memory_order_relaxed)) {
    if (try_job()) continue;  // (a plan being built: idle pool threads help)
    if (find_work(w, item)) {
      run_chain(item.node);
      continue;
    }
    w.dc.flush();  // out of work: what this worker finished counts now (completion, memory checks)
    // Spin a little as a thief before sleeping.
    spinning_.fetch_add(1, std::memory_order_seq_cst);
    const bool found = spin_for_work(w, item, job_open_);  // (a job is joined at the top of the loop)
    spinning_.fetch_sub(1, std::memory_order_seq_cst);
    if (found) {
      run_chain(item.node);
      continue;
    }
    w.dc.reset();
    w.cur.reset();
    sleepers_.fetch_add(1, std::memory_order_seq_cst);
    uint64_t e = epoch_.load(std::memory_order_seq_cst);
    if (job_open_.load(std::memory_order_seq_cst)) {
      sleepers_.fetch_sub(1, std::memory_order_seq_cst);
      continue;
    }
    if (find_work(w, item)) {
      sleepers_.fetch_sub(1, std::memory_order_seq_cst);
      run_chain(item.node);
      continue;
    }
    Worker::bump(w.n_sleeps);
    {
      std::unique_lock<std::mutex> lk(sleep_mu_);
      // From here until it is back, a computation's caller may borrow this worker (run()).
      w.state.store(Worker::kSleeping, std::memory_order_seq_cst);
      while (epoch_.load(std::memory_order_seq_cst) == e && !stop_.load()) sleep_cv_.wait(lk);
    }
    int st = Worker::kSleeping;
    if (!w.state.compare_exchange_strong(st, Worker::kRunning, std::memory_order_acq_rel)) {
      // Borrowed: the wake goes on to another sleeping worker (this thread is not waiting on the
      // eventcount now, and still counts as a sleeper, which notify_one() discounts), and this
      // thread waits until the caller gives the worker back.
      notify_one();
      std::unique_lock<std::mutex> lk(w.borrow_mu);
      while (true) {
        st = Worker::kSleeping;
        if (w.state.compare_exchange_strong(st, Worker::kRunning, std::memory_order_acq_rel)) break;
        if (stop_.load()) break;
        w.borrow_cv.wait(lk);
      }
    }
    sleepers_.fetch_sub(1, std::memory_order_seq_cst);
    if (w.state.load(std::memory_order_acquire) != Worker::kRunning) break;  // (stopping while borrowed)
  }
  w.dc.reset();
}

// A thread out of work spins a little as a thief before it sleeps or gives its worker back: up to
// kStealSpins yields, each followed by a look for work, until `until` is set or kSpinTime is over.
// Bounded in time too: with more runnable threads than CPUs (the calling thread and a helper
// building a plan), each yield can hand the CPU away for a whole time slice, and a spin of 128
// yields then lasted for tens of milliseconds, taking CPU time from the threads at work.
bool Executor::spin_for_work(Worker &w, TaskItem &item, const std::atomic<bool> &until) {
  const auto spin_end = std::chrono::steady_clock::now() + kSpinTime;
  for (int k = 0; k < kStealSpins; ++k) {
    if (until.load(std::memory_order_acquire)) return false;
    if (k > 0 && std::chrono::steady_clock::now() > spin_end) return false;
    std::this_thread::yield();
    Worker::bump(w.n_yields);
    if (find_work(w, item)) return true;
  }
  return false;
}

// The calling thread runs borrowed worker w's loop (run()) while `r` has work it can find: its
// roots first, then what it can steal; `tick` (cancellation, progress) every 64 tasks. It gives
// the worker back when it finds nothing after a short spin or the run is complete (anything left
// in w's deque is another run's: a woken worker steals it).
void Executor::lend(Worker &w, Run &r, const std::function<void()> &tick) {
  RunningOn on(this);
  detail::ChargeState &cs = detail::charge_state();
  auto push = [this, &w](Node *n) {
    w.deque.push(n);
    notify_one();
  };
  int64_t k = 0;
  TaskItem item{};
  while (!r.signalled.load(std::memory_order_acquire)) {
    if (!find_work(w, item)) {
      w.dc.flush();  // (completion and memory checks see what this thread finished)
      if (!spin_for_work(w, item, r.signalled)) break;
    }
    Node *n = item.node;
    do {
      Worker::bump(w.n_tasks);
      n = execute(n, push, w.dc, cs);
      if ((++k & 63) == 0) {
        w.dc.flush();
        tick();
      }
    } while (n);
  }
  w.dc.flush();
  w.dc.reset();
  w.cur.reset();
  const bool left = !w.deque.empty();
  borrowed_.fetch_sub(1, std::memory_order_seq_cst);
  {
    std::lock_guard<std::mutex> lk(w.borrow_mu);
    w.state.store(Worker::kSleeping, std::memory_order_seq_cst);
  }
  w.borrow_cv.notify_one();  // (its thread, if it woke meanwhile, takes it back)
  // Computations posted while this worker was lent found no thread to wake (notify_one discounts
  // borrowed workers): with any other run active, wake one now. Without this a run posted meanwhile
  // waited for ever when every worker was asleep or lent (one worker, concurrent computes: executor
  // test ConcurrentComputesShareThePool hung in about 3 % of runs).
  bool others = false;
  {
    std::lock_guard<std::mutex> lk(runs_mu_);
    for (auto &o : runs_) others = others || o.get() != &r;
  }
  if (left || others) notify_one();
}

std::vector<Block *> Executor::run(Plan &plan, const RunOptions &opts, RunStats *stats) {
  static const bool prof = std::getenv("CA_COMPUTE_PROFILE") != nullptr;
  auto clk = [] { return std::chrono::steady_clock::now(); };
  auto t0 = clk();
  auto counts = [this] {
    std::array<int64_t, 4> c{};
    for (auto &w : workers_) {
      c[0] += w->n_tasks.load(std::memory_order_relaxed);
      c[1] += w->n_steals.load(std::memory_order_relaxed);
      c[2] += w->n_yields.load(std::memory_order_relaxed);
      c[3] += w->n_sleeps.load(std::memory_order_relaxed);
    }
    return c;
  };
  std::array<int64_t, 4> c0{};
  if (prof) {
    c0 = counts();
    for (auto &w : workers_) w->first_roots.store(0, std::memory_order_relaxed);
  }
  auto run = std::make_shared<Run>(plan, opts, std::max<int32_t>(1, num_threads()), this);
  auto t1 = clk();
  const PartialRun *part = opts.partial;
  if (stats) run->track_memory = true;
  auto interval = std::chrono::microseconds(opts.progress_interval_us > 0 ? opts.progress_interval_us : 100000);
  auto poll = std::min<std::chrono::microseconds>(interval, std::chrono::microseconds(20000));
  auto last_progress = std::chrono::steady_clock::now();
  auto report = [&](bool force) {
    if (!opts.progress) return;
    auto now = std::chrono::steady_clock::now();
    if (!force && now - last_progress < interval) return;
    last_progress = now;
    opts.progress(std::min<int64_t>(run->done.load(std::memory_order_relaxed), run->total), run->total,
                  opts.progress_ud);
  };
  // One worker, idle: the caller runs this computation itself, as synchronous mode does, instead
  // of handing it to the worker and sleeping until it is done (the hand-off and wake-up cost tens
  // of microseconds per compute, and the worker runs wherever the scheduler wakes it). Computations
  // started meanwhile from other threads go to the worker as usual.
  // Started from inside a kernel of this executor (a nested computation): it runs on this thread
  // alone, as synchronous mode does. Handed to the pool, it would wait for a worker, and every
  // worker may be running (or lent to) the very kernels that wait for it: a one-worker pool whose
  // worker was lent to the outer computation's caller hung that way (dask runs a computation
  // started inside a task synchronously too).
  const bool nested = t_running == this && !part;
  bool solo = false;
  if (!nested && workers_.size() == 1 && !part && plan.size() > 0 && !solo_.exchange(true, std::memory_order_acquire)) {
    std::lock_guard<std::mutex> lk(runs_mu_);
    solo = runs_.empty();
    if (!solo) solo_.store(false, std::memory_order_release);
  }
  struct SoloEnd {
    std::atomic<bool> &flag;
    bool on;
    ~SoloEnd() {
      if (on) flag.store(false, std::memory_order_release);
    }
  } solo_end{solo_, solo};
  if (plan.size() > 0) {
    if (workers_.empty() || solo || nested) {
      // Synchronous mode (and a one-worker pool's idle caller, and a nested computation): the
      // caller runs every task in priority order.
      RunningOn on(this);
      std::vector<Node *> stack;
      DoneCounter dc;
      detail::ChargeState &cs = detail::charge_state();
      auto push = [&stack](Node *n) { stack.push_back(n); };
      int64_t k = 0;
      while (true) {
        Node *n = nullptr;
        if (!stack.empty()) {
          n = stack.back();
          stack.pop_back();
        } else if (run->take_injected(&n, 1) == 0 && run->take_roots(&n, 1) == 0) {
          dc.flush();  // finished tasks count before the checks below read `inflight`
          if (part && (run->remote_waiting > 0 || run->ninjected.load() > 0)) {
            // Waiting for results from elsewhere.
            if (opts.cancel && opts.cancel->load(std::memory_order_relaxed)) run->fail(CA_ECANCELED, "computation cancelled");
            if (run->cancelled.load()) {
              run->drop_remote();
              continue;
            }
            RunControl ctl(*run);
            part->on_poll(ctl);
            continue;
          }
          // Held back for memory: fails unless another computation can free some; then wait for it.
          if (run->throttled.load() && !run->cancelled.load() && run->cursor.load() < run->nroots) {
            if (!run->check_stuck() && !run->cancelled.load()) run->budget->wait_for_release(20);
            if (opts.cancel && opts.cancel->load(std::memory_order_relaxed)) run->fail(CA_ECANCELED, "computation cancelled");
            continue;
          }
          break;
        }
        if (Node *next = execute(n, push, dc, cs)) stack.push_back(next);
        if (opts.cancel && opts.cancel->load(std::memory_order_relaxed)) run->fail(CA_ECANCELED, "computation cancelled");
        if ((++k & 63) == 0) {
          dc.flush();
          report(false);
        }
        if (part && (k & 7) == 0 && run->remote_waiting > 0) {
          RunControl ctl(*run);
          part->on_poll(ctl);
        }
      }
      dc.flush();
    } else {
      // A sleeping worker is borrowed: this thread runs its loop for the computation (TBB's master
      // thread joining its arena) instead of waking the worker's thread and waiting. No thread has
      // to be woken and placed on a CPU (on this 2-CPU machine the scheduler queued a woken worker
      // behind a running one in about half of W1's computes, leaving the other CPU idle for a tick:
      // execute 33-37 ms instead of 28-30), and the caller sees the end itself.
      auto borrow = [&]() -> Worker * {
        if (part) return nullptr;
        for (auto &w : workers_) {
          int st = Worker::kSleeping;
          if (w->state.compare_exchange_strong(st, Worker::kBorrowed, std::memory_order_acq_rel)) {
            borrowed_.fetch_add(1, std::memory_order_seq_cst);
            w->cur = run;  // its own run's roots first
            return w.get();
          }
        }
        return nullptr;
      };
      auto tick = [&] {
        if (opts.cancel && opts.cancel->load(std::memory_order_relaxed) && !run->cancelled.load())
          run->fail(CA_ECANCELED, "computation cancelled");
        report(false);
      };
      Worker *borrowed = borrow();
      {
        std::lock_guard<std::mutex> lk(runs_mu_);
        runs_.push_back(run);
        nruns_.store(int32_t(runs_.size()), std::memory_order_relaxed);
      }
      // Wake one worker, and only if none is spinning (a spinning one finds the run itself); the
      // worker that takes the first roots wakes the next one (take_root), and so on. (Waking them
      // all from here, while this thread still ran, had the scheduler queue a woken worker behind a
      // running one on the same CPU in about half of W1's computes.)
      if (spinning_.load(std::memory_order_seq_cst) == 0) notify_one();
      if (borrowed) lend(*borrowed, *run, tick);
      if (part) run->check_complete();  // a partial run may have nothing to do here
      std::unique_lock<std::mutex> lk(run->mu);
      while (!run->complete) {
        if (part) {
          lk.unlock();
          RunControl ctl(*run);
          part->on_poll(ctl);
          if (run->cancelled.load(std::memory_order_acquire)) {
            // Cancelled from here (a failure elsewhere): with nothing in flight no worker would
            // look at the run again, so check for completion here.
            run->drop_remote();
            run->check_complete();
          }
          lk.lock();
        } else if (run->cv.wait_for(lk, poll) == std::cv_status::timeout && !run->complete) {
          // Still running after a poll: if a worker sleeps meanwhile, this thread works with it
          // (a run whose wake-up was lost, or one a sleeping pool could help, moves on).
          if (Worker *w = borrow()) {
            lk.unlock();
            lend(*w, *run, tick);
            lk.lock();
          }
        }
        if (run->complete) break;
        if (opts.cancel && opts.cancel->load(std::memory_order_relaxed) && !run->cancelled.load()) {
          run->fail(CA_ECANCELED, "computation cancelled");
          lk.unlock();
          if (part) run->drop_remote();
          run->check_complete();
          lk.lock();
        }
        if (run->throttled.load(std::memory_order_relaxed)) {
          lk.unlock();
          if (run->check_stuck()) notify_all();  // memory was freed: workers asleep may start roots
          lk.lock();
          if (run->complete) break;
        }
        lk.unlock();
        report(false);
        lk.lock();
      }
      lk.unlock();
      std::lock_guard<std::mutex> rl(runs_mu_);
      runs_.erase(std::find(runs_.begin(), runs_.end(), run));
      nruns_.store(int32_t(runs_.size()), std::memory_order_relaxed);
    }
  }
  auto t2 = clk();
  // Collect outputs, release everything else.
  std::vector<Block *> outs;
  bool ok = run->err_code == CA_OK;
  if (ok && opts.cancel && opts.cancel->load()) {
    ok = false;
    run->err_code = CA_ECANCELED;
    run->err_msg = "computation cancelled";
  }
  if (ok && !opts.on_output) {
    for (int32_t o : plan.outputs) {
      Block *b = run->nodes[size_t(o)].result;
      if (!b && part) {
        outs.push_back(nullptr);  // not kept here
        continue;
      }
      if (!b) {
        ok = false;
        run->err_code = CA_EINTERNAL;
        run->err_msg = str("output task ", plan.key_of(o), " produced no result");
        break;
      }
      outs.push_back(block_retain(b));
    }
  }
  for_ranges(plan.size(), [&](int64_t from, int64_t to) {
    for (int64_t t = from; t < to; ++t) {
      Block *b = run->nodes[size_t(t)].result;
      if (b) block_release(b);
      run->nodes[size_t(t)].result = nullptr;
    }
  });
  if (!ok) {
    for (Block *b : outs) block_release(b);
    throw Error(run->err_code, run->err_msg);
  }
  if (prof) {
    auto ms = [](auto x, auto y) { return std::chrono::duration<double, std::milli>(y - x).count(); };
    std::array<int64_t, 4> c1 = counts();
    std::string starts;  // each worker's first roots, after the run was posted
    for (auto &w : workers_) {
      const int64_t f = w->first_roots.load(std::memory_order_relaxed);
      starts += f ? " " + std::to_string(std::chrono::duration<double, std::milli>(
                                              std::chrono::steady_clock::duration(f) - t1.time_since_epoch())
                                              .count())
                             .substr(0, 5)
                  : std::string(" -");
    }
    std::fprintf(stderr,
                 "run profile: %d tasks, %zu workers: setup %.2f ms, execute %.2f ms, gather %.2f ms; pool: %lld tasks, "
                 "%lld steals, %lld spin yields, %lld sleeps; first roots (ms):%s\n",
                 plan.size(), workers_.size(), ms(t0, t1), ms(t1, t2), ms(t2, clk()), (long long)(c1[0] - c0[0]),
                 (long long)(c1[1] - c0[1]), (long long)(c1[2] - c0[2]), (long long)(c1[3] - c0[3]), starts.c_str());
  }
  if (opts.progress) opts.progress(run->total, run->total, opts.progress_ud);
  if (stats) {
    stats->tasks = run->total;
    stats->peak_bytes = run->peak_bytes.load();
  }
  return outs;
}

}  // namespace ca
