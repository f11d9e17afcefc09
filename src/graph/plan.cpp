#include "graph/plan.hpp"

#include <algorithm>
#include <atomic>
#include <climits>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <sys/resource.h>
#include <mutex>
#include <set>
#include <type_traits>
#include <unordered_map>

#include "core/big_buffer.hpp"
#include "core/memory.hpp"

namespace ca {

int64_t default_max_tasks(int64_t memory_limit) {
  int64_t machine = default_memory_limit();
  int64_t base = memory_limit > 0 ? memory_limit : machine;
  int64_t cap = int64_t(INT32_MAX) - 1;
  if (base <= 0) return cap;
  int64_t floor = int64_t(1) << 22;
  if (machine > 0) floor = std::min(floor, machine / kPlanBytesPerTask);
  return std::min(cap, std::max(floor, base / 4 / kPlanBytesPerTask));
}

int64_t graph_num_tasks(const Graph &g) {
  int64_t total = 0;
  for (const LayerPtr &l : g.layers())
    if (__builtin_add_overflow(total, l->num_tasks(), &total)) return INT64_MAX;
  return total;
}

void check_task_budget(int64_t ntasks, int64_t max_tasks, const char *what) {
  if (max_tasks <= 0) max_tasks = default_max_tasks(0);
  if (ntasks > max_tasks)
    fail(CA_ENOMEM, what, " has ", ntasks, " tasks, more than the task budget of ", max_tasks,
         " (config graph.max-tasks; about ", kPlanBytesPerTask, " bytes of plan per task)");
}

std::string Plan::key_of(int32_t t) const {
  const PlanTask &pt = tasks[size_t(t)];
  Index idx[65];
  pt.layer->key_at(pt.local, idx);
  return key_str(pt.layer->name(), idx, pt.layer->nindex());
}

namespace detail {
namespace {
int initial_plan_mode() {
  const char *e = std::getenv("CA_PLAN_PARALLEL");
  if (!e || !*e) return 0;
  return e[0] == '0' ? 1 : 2;
}
}  // namespace
std::atomic<int> g_plan_mode{initial_plan_mode()};
std::atomic<int64_t> g_plan_parallel_built{0};
std::atomic<int64_t> g_plan_parallel_fallbacks{0};
std::atomic<int> g_plan_claim_clashes{0};
std::atomic<int> g_plan_prefault_slices{-1};
}  // namespace detail

namespace {

// The parallel planner's walk found a task another builder owns (or the top part does): the graph
// is not a set of disjoint subtrees below the cut, so the plan is built by the sequential walk.
struct Conflict {};

// Claims: per task of a layer the builder that discovered it (0 free, negative: node -(claim + 1)
// of the top part or a unit's root, else (builder + 1) << 32 | the builder's local task id).

struct ParallelState;

struct LayerState {
  const Layer *layer = nullptr;
  LayerPtr ptr;
  PlanVec<int32_t> ids;              // local -> task id, -1 if not yet
  std::unordered_map<int64_t, int32_t> sparse_ids;  // instead, for a layer larger than the task budget
  std::vector<int32_t> dep_states;   // per dependency slot: state index, -2 unresolved, -1 missing
  std::vector<Kernel *> kernels;     // per kernel slot, resolved lazily
  std::vector<bool> kernel_done;
  int64_t *claims = nullptr;         // parallel builders: the shared claims of this layer's tasks
};

struct UnitRec {  // one subtree (unit) a parallel builder walked: its ranges in the builder's arrays
  int32_t u;       // which unit
  int32_t t0, t1;  // tasks (t0: the unit's root)
  uint32_t a0, a1;  // args
  uint32_t p0, p1;  // patches
  int32_t d0, d1;   // deps
  uint32_t r0, r1;  // roots
  uint32_t l0, l1;  // list_pos_
};

struct TmpArg {
  ca_arg_t a;
  int32_t ref;      // task id, or -1
  uint32_t nkids;   // LIST
};

// Per task: the last task that listed it as a dependency (each dependency once per task), and how
// many tasks did (its dependents: the CSR offsets come from these counts, no second pass).
struct DepCount {
  int32_t stamp;
  int32_t ndependents;
};

// A helper builder's arrays, kept from one parallel plan to the next per helper index (the plan
// buffers reused across computes). Through the big-buffer cache alone a helper's arrays would come
// back as whichever cached buffers of their size classes come first, often ones the main builder's
// arrays or the executor's nodes used before: the helper's share of a plan varies from compute to
// compute and the main builder's arrays are reserved for every task, so each compute wrote into
// pages its buffers had never touched and faulted in fresh (huge) pages (W1 with two threads: 100-300
// page faults in the helper's walk every compute). Kept per index, the pages a role touched once stay
// its own.
struct HelperArrays {
  PlanVec<PlanTask> tasks;
  PlanVec<ca_arg_t> args;
  PlanVec<Patch> patches;
  PlanVec<int32_t> deps, roots, task_state;
  PlanVec<uint8_t> color;
  PlanVec<DepCount> dep_stamp;
  PlanVec<uint32_t> list_pos;
  // Bytes of each reserved array (Builder::for_each_reserved's order) faulted in by prefault_step,
  // and of all of them not faulted in yet (for tests).
  size_t faulted[7] = {};
  int64_t unfaulted = 0;
  int64_t bytes() const {
    return int64_t(tasks.capacity() * sizeof(PlanTask) + args.capacity() * sizeof(ca_arg_t) +
                   patches.capacity() * sizeof(Patch) +
                   (deps.capacity() + roots.capacity() + task_state.capacity()) * sizeof(int32_t) +
                   color.capacity() + dep_stamp.capacity() * sizeof(DepCount) + list_pos.capacity() * sizeof(uint32_t));
  }
};

// The kept arrays (process-wide, like the big-buffer cache they come from): at most kSlots helper
// indices, and no more bytes in all than the big-buffer cache's cap (so "block-cache" 0 keeps none);
// the cache's trim empties them too.
class HelperScratch {
 public:
  static constexpr size_t kSlots = 16;
  static HelperScratch &get() {
    static HelperScratch *h = [] {
      auto *p = new HelperScratch();  // never destroyed: plans may be built during static destruction
      detail::big_cache_add_trim_hook(&HelperScratch::trim_hook);
      return p;
    }();
    return *h;
  }
  // The arrays kept for helper `w` (empty ones when there are none, or another plan has them).
  std::unique_ptr<HelperArrays> take(int32_t w) {
    std::lock_guard<std::mutex> lk(mu_);
    if (w < 0 || size_t(w) >= kSlots || !slots_[size_t(w)]) return std::make_unique<HelperArrays>();
    bytes_ -= slots_[size_t(w)]->bytes();
    return std::move(slots_[size_t(w)]);
  }
  void give(int32_t w, std::unique_ptr<HelperArrays> a) {
    if (!a) return;
    const int64_t b = a->bytes();
    const int64_t cap = detail::big_cache_limit();
    std::lock_guard<std::mutex> lk(mu_);
    if (w < 0 || size_t(w) >= kSlots || slots_[size_t(w)] || bytes_ + b > cap) return;  // (freed here)
    bytes_ += b;
    slots_[size_t(w)] = std::move(a);
  }
  int64_t bytes() {
    std::lock_guard<std::mutex> lk(mu_);
    return bytes_;
  }
  const void *tasks(int32_t w) {
    std::lock_guard<std::mutex> lk(mu_);
    return w >= 0 && size_t(w) < kSlots && slots_[size_t(w)] ? slots_[size_t(w)]->tasks.data() : nullptr;
  }
  int64_t unfaulted(int32_t w) {
    std::lock_guard<std::mutex> lk(mu_);
    return w >= 0 && size_t(w) < kSlots && slots_[size_t(w)] ? slots_[size_t(w)]->unfaulted : -1;
  }

 private:
  static void trim_hook() {
    HelperScratch &h = get();
    std::unique_ptr<HelperArrays> drop[kSlots];  // (back to the big-buffer cache as `drop` ends)
    std::lock_guard<std::mutex> lk(h.mu_);
    for (size_t i = 0; i < kSlots; ++i) drop[i] = std::move(h.slots_[i]);
    h.bytes_ = 0;
  }
  std::mutex mu_;
  std::unique_ptr<HelperArrays> slots_[kSlots];
  int64_t bytes_ = 0;
};

// Builds the plan in one depth-first walk. Task ids are discovery order; the post-order (priority)
// decides the order roots are handed out.
class Builder final : public TaskEmitter {
 public:
  Builder(const Graph &g, const KernelRegistry *reg, int64_t max_tasks)
      : g_(g), reg_(reg), max_tasks_(max_tasks > 0 ? max_tasks : default_max_tasks(0)) {}

  std::unique_ptr<Plan> run(const KeyRef *keys, size_t nkeys);
  // The parallel planner (nullptr: shape not supported; throws on anything else: the caller falls
  // back to run() either way).
  std::unique_ptr<Plan> run_parallel(const KeyRef *keys, size_t nkeys, PlanHelpers &helpers, bool shallow);
  // The parallel planner's cut was below the first level of several subtrees (run_parallel).
  bool deep_cut() const { return deep_cut_; }

  // TaskEmitter
  void kernel(int32_t slot) override { kslot_ = slot; }
  void literal(const ca_arg_t &a) override { push_arg(a, -1); }
  void literal_copy(const ca_arg_t &a) override {
    push_arg(copy_literal(a, arena_ ? *arena_ : plan_->arena), -1);
  }
  void ref(int32_t slot, const Index *idx, int32_t nidx) override;
  void begin_list(size_t) override {
    if (depth_ == 0) {
      // Top-level placeholder; items are collected and placed after the task's top-level args.
      deferred_.push_back({uint32_t(plan_->args.size()), uint32_t(tmp_.size())});
      deferred_count_.push_back(0);
      ca_arg_t a = ca_arg_none();
      a.kind = CA_ARG_LIST;
      plan_->args.push_back(a);
    } else {
      count_child();
      tmp_.push_back({ca_arg_list(nullptr, 0), -1, 0});
    }
    list_stack_.push_back(depth_ == 0 ? SIZE_MAX : tmp_.size() - 1);
    ++depth_;
  }
  void end_list() override {
    list_stack_.pop_back();
    --depth_;
  }

 private:
  struct Deferred {
    uint32_t pos;        // the LIST placeholder in plan_->args
    uint32_t tmp_begin;  // its items start here in tmp_
  };
  void push_arg(const ca_arg_t &a, int32_t ref) {
    if (depth_ == 0) {
      uint32_t pos = uint32_t(plan_->args.size());
      if (ref >= 0) {
        ca_arg_t b = ca_arg_none();
        b.kind = CA_ARG_BLOCK;
        plan_->args.push_back(b);
        plan_->patches.push_back({pos, ref});
      } else {
        plan_->args.push_back(a);
      }
      return;
    }
    count_child();
    tmp_.push_back({a, ref, 0});
  }
  // One more item in the innermost open list.
  void count_child() {
    size_t top = list_stack_.back();
    if (top == SIZE_MAX) deferred_count_.back()++;
    else tmp_[top].nkids++;
  }
  int32_t state_of(const std::string &name);
  int32_t discover(int32_t state, int64_t local);
  int32_t discover_claimed(int32_t state, int64_t local);
  int32_t append_task(int32_t state, int64_t local);
  void visit(int32_t tid);
  void walk(int32_t root);
  void reserve_all(size_t n);
  int32_t first_output(const KeyRef *keys, size_t nkeys);
  void init_worker(const Builder &main, ParallelState &ps, int32_t wid);
  void keep_scratch(int32_t wid);
  void swap_scratch(HelperArrays &a);
  template <class F>
  void for_each_reserved(F f);
  bool prefault_step(size_t max_bytes);
  void run_units(ParallelState &ps);
  bool walk_top(ParallelState &ps, bool reserve);
  void reserve_unit(ParallelState &ps, int32_t u, int32_t root);
  bool peek_deps(int32_t state, int64_t local, std::vector<std::pair<int32_t, int64_t>> &out);
  void copy_unit(ParallelState &ps, int32_t u);
  void place(size_t &i, uint32_t count, uint32_t dest);
  std::string key_text(int32_t tid) const {
    const PlanTask &t = plan_->tasks[size_t(tid)];
    Index idx[65];
    t.layer->key_at(t.local, idx);
    return key_str(t.layer->name(), idx, t.layer->nindex());
  }

  const Graph &g_;
  const KernelRegistry *reg_;
  int64_t max_tasks_;
  std::unique_ptr<Plan> plan_;
  std::vector<LayerState> states_;
  std::unordered_map<const Layer *, int32_t> state_index_;
  // Plan-sized scratch in PlanVec too: the big-buffer cache keeps their pages between computes.
  PlanVec<int32_t> task_state_;
  PlanVec<uint8_t> color_;  // 0 white, 1 gray, 2 black
  PlanVec<DepCount> dep_stamp_;
  PlanVec<uint32_t> list_pos_;  // every LIST the builder placed in plan_->args (offsets until the end)
  size_t faulted_[7] = {};      // a helper's: HelperArrays::faulted
  bool prefault_ = false;       // a helper's arrays are kept for the next plan: fault them in first
  std::vector<TmpArg> tmp_;
  std::vector<size_t> list_stack_;
  std::vector<Deferred> deferred_;
  std::vector<uint32_t> deferred_count_;
  int32_t depth_ = 0;
  int32_t kslot_ = 0;
  int32_t cur_ = -1;
  struct Frame {
    int32_t tid;
    int32_t next;
  };
  PlanVec<Frame> stack_;
  // Parallel builders (run_units) only.
  ParallelState *ps_ = nullptr;
  int64_t mine_ = 0;             // this builder's claim tag
  int32_t unit_begin_ = 0;       // local id of the current unit's root
  std::vector<int32_t> first_seen_;  // per layer state: first local task id discovered (-1: none)
  std::vector<UnitRec> units_;
  std::unique_ptr<Arena> arena_;  // copied literals (moved to the final plan)
  // The main builder only: top tasks may be discovered (while visiting one), the cut was deep, its
  // DFS over the top part.
  bool top_ok_ = false;
  bool deep_cut_ = false;
  std::vector<Frame> top_stack_;
  std::vector<int64_t> claimed_;  // parallel builders: per layer state, the tasks this one claimed
  friend struct ParallelState;
  friend class PeekEmitter;
};

// A task's dependencies (each once, in the order of their first reference: the order of its deps
// in the plan), without recording the task: how the parallel planner looks at the top part.
class PeekEmitter final : public TaskEmitter {
 public:
  PeekEmitter(Builder &b, int32_t state, std::vector<std::pair<int32_t, int64_t>> &out)
      : b_(b), state_(state), out_(out) {}
  void kernel(int32_t) override {}
  void literal(const ca_arg_t &) override {}
  void literal_copy(const ca_arg_t &) override {}
  void begin_list(size_t) override {}
  void end_list() override {}
  void ref(int32_t slot, const Index *idx, int32_t nidx) override {
    LayerState &s = b_.states_[size_t(state_)];
    if (s.dep_states[size_t(slot)] == -2) {
      int32_t resolved = b_.state_of(s.layer->deps()[size_t(slot)]);
      b_.states_[size_t(state_)].dep_states[size_t(slot)] = resolved;
    }
    const int32_t ts = b_.states_[size_t(state_)].dep_states[size_t(slot)];
    const Layer *tl = ts >= 0 ? b_.states_[size_t(ts)].layer : nullptr;
    const int64_t local = tl && tl->nindex() == nidx ? tl->find(idx) : -1;
    if (local < 0) {
      bad = true;  // (the sequential walk reports the missing key)
      return;
    }
    // Each once: a scan while the list is short, a set once it is long (a task may list many).
    if (out_.size() < 64) {
      for (const auto &d : out_)
        if (d.first == ts && d.second == local) return;
      out_.push_back({ts, local});
      if (out_.size() == 64) many_.insert(out_.begin(), out_.end());
      return;
    }
    if (many_.insert({ts, local}).second) out_.push_back({ts, local});
  }
  bool bad = false;

 private:
  Builder &b_;
  int32_t state_;
  std::vector<std::pair<int32_t, int64_t>> &out_;
  std::set<std::pair<int32_t, int64_t>> many_;
};

// What the parallel builders share.
struct ParallelState {
  const Builder *main = nullptr;
  int32_t nunits = 0;
  // The top part (a tree the main builder visits) and the units' roots below it: per node its layer
  // state, local task, unit (-1: a top task) and task id once the main builder discovered it. Its
  // tasks' claims are -(node + 1).
  struct Node {
    int32_t state;
    int64_t local;
    int32_t unit;
    int32_t id;
  };
  std::vector<Node> nodes;
  std::vector<int32_t> unit_node;  // per unit (in the sequential walk's order): its node
  // Units not yet taken: [front, back). The calling thread (the main builder) takes them from the
  // front, helpers from the back: the main builder's units are a prefix, walked into the final plan
  // itself exactly as the sequential walk would; only the helpers' units are copied.
  std::mutex units_mu;
  int32_t front = 0, back = 0;
  std::atomic<bool> failed{false};
  int32_t take(bool from_front) {
    std::lock_guard<std::mutex> lk(units_mu);
    if (front >= back) return -1;
    return from_front ? front++ : --back;
  }
  // The main builder's next unit is u (its walk meets them in order): true if it takes it, false
  // if the helpers took it (and every later one).
  bool take_front(int32_t u) {
    std::lock_guard<std::mutex> lk(units_mu);
    if (front >= back) return false;
    if (front != u) throw Conflict{};
    ++front;
    return true;
  }
  // Claims per layer state, allocated on first use.
  std::mutex claims_mu;
  std::unique_ptr<std::atomic<int64_t *>[]> claims;
  std::vector<PlanVec<int64_t>> claim_store;
  std::vector<std::unique_ptr<Builder>> builders;  // per helper index (null: did not run)
  std::vector<std::pair<int32_t, int32_t>> where;  // per unit: builder, index in its units_
  int32_t nfront = 0;                              // units [0, nfront) are the main builder's
  // Taken before the walks start (the main builder then resolves dependency slots and kernels in
  // its own states and grows its arrays while the helpers start): the layer states without their
  // id maps, and each unit root's layer state and local id.
  std::vector<LayerState> states;
  std::vector<int32_t> root_state;
  std::vector<int64_t> root_local;
  // Merge: per unit its bases in the final arrays.
  std::vector<int32_t> tbase;
  std::vector<uint32_t> abase, pbase, rbase;
  std::vector<int32_t> dbase, doff;
  std::vector<int32_t> reserved;  // the helpers' units in the order the main builder placed them

  int64_t *claims_of(int32_t state, const Layer *l) {
    int64_t *c = claims[size_t(state)].load(std::memory_order_acquire);
    if (c) return c;
    std::lock_guard<std::mutex> lk(claims_mu);
    c = claims[size_t(state)].load(std::memory_order_relaxed);
    if (c) return c;
    PlanVec<int64_t> &v = claim_store[size_t(state)];
    v.assign(size_t(l->num_tasks()), 0);
    c = v.data();
    claims[size_t(state)].store(c, std::memory_order_release);
    return c;
  }
};

int32_t Builder::state_of(const std::string &name) {
  const Layer *l = g_.find(name);
  if (!l) return -1;
  auto it = state_index_.find(l);
  if (it != state_index_.end()) return it->second;
  if (ps_) throw Conflict{};  // (the main builder made a state for every layer before)
  LayerState s;
  s.layer = l;
  s.ptr = g_.find_ptr(name);
  s.dep_states.assign(l->deps().size(), -2);
  s.kernels.assign(l->kernel_names().size(), nullptr);
  s.kernel_done.assign(l->kernel_names().size(), false);
  states_.push_back(std::move(s));
  state_index_.emplace(l, int32_t(states_.size() - 1));
  return int32_t(states_.size() - 1);
}

// Parallel builders: the task's claim decides. Free: this builder takes it (a new local id); its
// own, from the current unit: that id; anything else (the top part's, another builder's, or an
// earlier unit's of this builder) is a task shared across the cut: Conflict.
int32_t Builder::discover_claimed(int32_t state, int64_t local) {
  LayerState &s = states_[size_t(state)];
  if (!s.claims) s.claims = ps_->claims_of(state, s.layer);
  std::atomic_ref<int64_t> c(s.claims[size_t(local)]);
  int64_t v = c.load(std::memory_order_relaxed);
  if (v < 0) {
    // A task of the top part or a unit's root: only the main builder's visits of top tasks may
    // reach it (from anywhere else the graph is not a tree above the cut). Its id: discovery order.
    if (!top_ok_) throw Conflict{};
    ParallelState::Node &nd = ps_->nodes[size_t(-v - 1)];
    if (nd.id < 0) {
      if (int64_t(plan_->tasks.size()) >= max_tasks_) throw Conflict{};
      nd.id = append_task(state, local);
    }
    return nd.id;
  }
  if (v == 0) {
    if (int64_t(plan_->tasks.size()) >= max_tasks_) throw Conflict{};  // the sequential walk reports it
    int32_t id = int32_t(plan_->tasks.size());
    // A plain store, not a compare-exchange (a locked instruction per task drains the store buffer
    // the walk keeps full): two builders that both saw the task free both store, and the one whose
    // value was overwritten is found out once every walk is done: each builder's claims still in
    // the claim arrays are counted (ParallelState::count_claims) against claimed_.
    c.store(mine_ | id, std::memory_order_relaxed);
    ++claimed_[size_t(state)];
    append_task(state, local);
    if (first_seen_[size_t(state)] < 0) first_seen_[size_t(state)] = id;
    return id;
  }
  if ((v & ~int64_t(0xffffffff)) != mine_) throw Conflict{};
  int32_t id = int32_t(v & 0xffffffff);
  if (id < unit_begin_) throw Conflict{};
  return id;
}

int32_t Builder::discover(int32_t state, int64_t local) {
  if (ps_) return discover_claimed(state, local);
  LayerState &s = states_[size_t(state)];
  // A dense map costs 4 bytes per task of the layer; one larger than the budget can only be used
  // partly (culled), so it gets a hash map of the tasks actually reached.
  int64_t layer_tasks = s.layer->num_tasks();
  int32_t *idp;
  if (layer_tasks > max_tasks_) {
    idp = &s.sparse_ids.try_emplace(local, -1).first->second;
  } else {
    if (s.ids.empty()) s.ids.assign(size_t(layer_tasks), -1);
    idp = &s.ids[size_t(local)];
  }
  int32_t &id = *idp;
  if (id < 0) {
    if (int64_t(plan_->tasks.size()) >= max_tasks_)
      fail(CA_ENOMEM, "the computation needs more than ", max_tasks_, " tasks, the task budget (config ",
           "graph.max-tasks; about ", kPlanBytesPerTask, " bytes of plan per task)");
    id = append_task(state, local);
  }
  return id;
}

// A new task of layer state `state` at the end of this builder's arrays; its id.
int32_t Builder::append_task(int32_t state, int64_t local) {
  const int32_t id = int32_t(plan_->tasks.size());
  PlanTask t{};
  t.layer = states_[size_t(state)].layer;
  t.local = local;
  plan_->tasks.push_back(t);
  task_state_.push_back(state);
  color_.push_back(0);
  dep_stamp_.push_back({-1, 0});
  return id;
}

void Builder::ref(int32_t slot, const Index *idx, int32_t nidx) {
  int32_t cur_state = task_state_[size_t(cur_)];
  if (states_[size_t(cur_state)].dep_states[size_t(slot)] == -2) {
    int32_t resolved = state_of(states_[size_t(cur_state)].layer->deps()[size_t(slot)]);
    states_[size_t(cur_state)].dep_states[size_t(slot)] = resolved;  // state_of may grow states_
  }
  int32_t target_state = states_[size_t(cur_state)].dep_states[size_t(slot)];
  const std::string &dep_name = states_[size_t(cur_state)].layer->deps()[size_t(slot)];
  if (target_state < 0)
    fail(CA_ENOTFOUND, "key ", key_str(dep_name, idx, nidx), " referenced by task ", key_text(cur_),
         " does not exist (no layer named '", dep_name, "')");
  const Layer *tl = states_[size_t(target_state)].layer;
  int64_t local = tl->nindex() == nidx ? tl->find(idx) : -1;
  if (local < 0)
    fail(CA_ENOTFOUND, "key ", key_str(dep_name, idx, nidx), " referenced by task ", key_text(cur_),
         " does not exist");
  int32_t id = discover(target_state, local);
  push_arg(ca_arg_none(), id);
  DepCount &dc = dep_stamp_[size_t(id)];
  if (dc.stamp != cur_) {
    dc.stamp = cur_;
    dc.ndependents++;
    plan_->deps.push_back(id);
  }
}

void Builder::place(size_t &i, uint32_t count, uint32_t dest) {
  auto &pool = plan_->args;
  for (uint32_t k = 0; k < count; ++k) {
    TmpArg node = tmp_[i++];
    uint32_t pos = dest + k;
    if (node.ref >= 0) {
      ca_arg_t a = ca_arg_none();
      a.kind = CA_ARG_BLOCK;
      pool[pos] = a;
      plan_->patches.push_back({pos, node.ref});
    } else if (node.a.kind == CA_ARG_LIST) {
      uint32_t child = uint32_t(pool.size());
      pool.resize(pool.size() + node.nkids);
      ca_arg_t a = ca_arg_none();
      a.kind = CA_ARG_LIST;
      a.u.list.len = node.nkids;
      a.u.list.items = reinterpret_cast<const ca_arg_t *>(uintptr_t(child));  // fixed up at the end
      pool[pos] = a;
      list_pos_.push_back(pos);
      place(i, node.nkids, child);
    } else {
      pool[pos] = node.a;
    }
  }
}

void Builder::visit(int32_t tid) {
  cur_ = tid;
  const Layer *layer = plan_->tasks[size_t(tid)].layer;
  int64_t local = plan_->tasks[size_t(tid)].local;
  tmp_.clear();
  deferred_.clear();
  deferred_count_.clear();
  list_stack_.clear();
  depth_ = 0;
  uint32_t arg_begin = uint32_t(plan_->args.size());
  uint32_t patch_begin = uint32_t(plan_->patches.size());
  int32_t dep_begin = int32_t(plan_->deps.size());
  layer->emit(local, *this);  // may grow tasks and states
  uint32_t nargs = uint32_t(plan_->args.size()) - arg_begin;
  for (size_t d = 0; d < deferred_.size(); ++d) {
    uint32_t count = deferred_count_[d];
    uint32_t child = uint32_t(plan_->args.size());
    plan_->args.resize(plan_->args.size() + count);
    ca_arg_t &a = plan_->args[deferred_[d].pos];
    a.u.list.len = count;
    a.u.list.items = reinterpret_cast<const ca_arg_t *>(uintptr_t(child));
    list_pos_.push_back(deferred_[d].pos);
    size_t i = deferred_[d].tmp_begin;
    place(i, count, child);
  }
  CA_CHECK(plan_->args.size() < size_t(UINT32_MAX), CA_ENOMEM, "too many task arguments");
  int32_t st = task_state_[size_t(tid)];
  LayerState &ls = states_[size_t(st)];
  PlanTask &t = plan_->tasks[size_t(tid)];
  if (reg_) {
    if (!ls.kernel_done[size_t(kslot_)]) {
      const std::string &kname = ls.layer->kernel_names()[size_t(kslot_)];
      KernelPtr k = reg_->find(kname);
      if (!k) fail(CA_ENOTFOUND, "task ", key_text(tid), " uses unknown kernel '", kname, "' (not registered)");
      // Once per layer kernel slot: a version recorded in the graph (from a file) must be the
      // registered one; 0 (not recorded) accepts any.
      int32_t want = ls.layer->kernel_version(size_t(kslot_));
      if (want != 0 && k->version != want)
        fail(CA_EVERSION, "layer '", ls.layer->name(), "' needs kernel '", kname, "' version ", want,
             " (recorded in the graph); the registered '", kname, "' is version ", k->version);
      ls.kernels[size_t(kslot_)] = k.get();
      ls.kernel_done[size_t(kslot_)] = true;
      plan_->kernels.push_back(std::move(k));
    }
    t.kernel = ls.kernels[size_t(kslot_)];
  }
  t.arg_begin = arg_begin;
  t.nargs = nargs;
  t.patch_begin = patch_begin;
  t.patch_end = uint32_t(plan_->patches.size());
  t.dep_begin = dep_begin;
  t.dep_end = int32_t(plan_->deps.size());
}

// The arrays reserve_all sizes (a helper faults them in ahead: prefault_step), with their index in
// faulted_.
template <class F>
void Builder::for_each_reserved(F f) {
  f(plan_->tasks, 0), f(plan_->args, 1), f(plan_->patches, 2), f(plan_->deps, 3);
  f(task_state_, 4), f(color_, 5), f(dep_stamp_, 6);
}

void Builder::reserve_all(size_t n) {
  // Reserve for every task of the graph (address space only: pages are touched when used), so
  // the arrays never move while a million tasks are added (two arguments per task).
  // Only a hint: with too little address space (RLIMIT_AS) the arrays grow as needed instead.
  try {
    for_each_reserved([&](auto &v, int i) { v.reserve(i == 1 ? n * 2 : n); });
  } catch (const std::bad_alloc &) {
    for_each_reserved([](auto &v, int) { v.shrink_to_fit(); });
  }
}

// Checks and discovers requested key k.
int32_t Builder::first_output(const KeyRef *keys, size_t k) {
  const KeyRef &key = keys[k];
  CA_CHECK(key.name && key.name[0], CA_EINVAL, "requested key ", k, " has an empty or NULL name");
  CA_CHECK(key.nidx >= 0 && key.nidx <= 64 && (key.nidx == 0 || key.idx), CA_EINVAL, "requested key '",
           key.name, "' has a bad index (", key.nidx, " indices)");
  int32_t st = state_of(key.name);
  if (st < 0) fail(CA_ENOTFOUND, "key ", key_str(key.name, key.idx, key.nidx), " is not in the graph");
  const Layer *l = states_[size_t(st)].layer;
  int64_t local = l->nindex() == key.nidx ? l->find(key.idx) : -1;
  if (local < 0) fail(CA_ENOTFOUND, "key ", key_str(key.name, key.idx, key.nidx), " is not in the graph");
  return discover(st, local);
}

// Iterative DFS from `root` (white): visits (materializes) each needed task once, detects cycles,
// and records the post-order of the roots (the order they are handed to workers).
void Builder::walk(int32_t root) {
  Plan &p = *plan_;
  PlanVec<Frame> &stack = stack_;
  color_[size_t(root)] = 1;
  visit(root);
  stack.push_back({root, p.tasks[size_t(root)].dep_begin});
  while (!stack.empty()) {
    Frame &f = stack.back();
    if (f.next < p.tasks[size_t(f.tid)].dep_end) {
      int32_t child = p.deps[size_t(f.next++)];
      if (color_[size_t(child)] == 0) {
        color_[size_t(child)] = 1;
        visit(child);
        stack.push_back({child, p.tasks[size_t(child)].dep_begin});
      } else if (color_[size_t(child)] == 1) {
        if (ps_) throw Conflict{};  // (the sequential walk names the cycle)
        std::string msg;
        size_t from = stack.size();
        while (from > 0 && stack[from - 1].tid != child) --from;
        for (size_t s = from - 1; s < stack.size(); ++s) msg += key_text(stack[s].tid) + " -> ";
        msg += key_text(child);
        fail(CA_ECYCLE, "the graph has a cycle: ", msg);
      }
    } else {
      color_[size_t(f.tid)] = 2;
      const PlanTask &t = p.tasks[size_t(f.tid)];
      if (t.dep_begin == t.dep_end) p.roots.push_back(f.tid);
      stack.pop_back();
    }
  }
}

std::unique_ptr<Plan> Builder::run(const KeyRef *keys, size_t nkeys) {
  static const bool prof = std::getenv("CA_COMPUTE_PROFILE") != nullptr;
  auto clk = [] { return std::chrono::steady_clock::now(); };
  auto t0 = clk();
  plan_ = std::make_unique<Plan>();
  // Never more than the task budget allows.
  reserve_all(size_t(std::min<int64_t>({graph_num_tasks(g_), max_tasks_, int64_t(1) << 27})));
  std::vector<int32_t> out_ids;
  for (size_t k = 0; k < nkeys; ++k) out_ids.push_back(first_output(keys, k));
  Plan &p = *plan_;
  for (int32_t root : out_ids)
    if (color_[size_t(root)] == 0) walk(root);
  auto t1 = clk();
  size_t n = p.tasks.size();
  // LIST offsets -> pointers (the pool no longer moves): only the lists placed above, not a scan of
  // every argument.
  for (uint32_t pos : list_pos_) {
    ca_arg_t &a = p.args[pos];
    a.u.list.items = p.args.data() + uintptr_t(a.u.list.items);
  }
  auto t2 = clk();
  // Dependents (CSR) and consumer counts.
  // One pass: offsets, consumer counts, and each task's fill cursor (in its no longer needed stamp).
  p.dependents_off.resize(n + 1);
  p.nconsumers.resize(n);
  p.dependents_off[0] = 0;
  for (size_t i = 0; i < n; ++i) {
    DepCount &dc = dep_stamp_[i];
    p.dependents_off[i + 1] = p.dependents_off[i] + dc.ndependents;
    p.nconsumers[i] = dc.ndependents;
    dc.stamp = p.dependents_off[i];
  }
  p.dependents.resize(p.deps.size());
  for (size_t t = 0; t < n; ++t)
    for (int32_t i = p.tasks[t].dep_begin; i < p.tasks[t].dep_end; ++i)
      p.dependents[size_t(dep_stamp_[size_t(p.deps[size_t(i)])].stamp++)] = int32_t(t);
  for (int32_t o : out_ids) {
    p.outputs.push_back(o);
    p.nconsumers[size_t(o)]++;
  }
  for (auto &s : states_) p.layers.push_back(s.ptr);
  if (prof) {
    auto t3 = clk();
    auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
    std::fprintf(stderr, "plan profile: %zu tasks: reserve+dfs %.2f ms, list fixup %.2f ms, csr %.2f ms\n", n,
                 ms(t0, t1), ms(t1, t2), ms(t2, t3));
  }
  return std::move(plan_);
}

// ------------------------------------------------------------------------------------------------
// The parallel planner.
//
// The sequential walk numbers tasks in discovery order and lays out arguments, patches and
// dependency lists in visit (pre-)order. Below the output's first branching task b (reached from
// the output through a chain of tasks with one dependency each: the top part), the walk visits b's
// children's subtrees (units) one after another; when they share no task, each unit's tasks other
// than its root get consecutive ids, and its visits consecutive ranges of every array. So builders
// on the pool's threads walk units (taken in order from a shared counter) into their own arrays,
// claiming each task they discover in per-layer claim arrays; then every array is sized and each
// unit's ranges are copied to their place, task ids mapped (root -> its id from the top part,
// local j -> base + j - 1), again in parallel, as are the unit's dependents (CSR) ranges: a unit's
// tasks are only referenced from inside the unit. A claim held by another builder, by the top
// part or by an earlier unit (a task shared across the cut), a cycle, an error, or a count over the
// task budget throws: the caller then builds the plan with the sequential walk, which reports errors
// with the same messages.

namespace {
constexpr int32_t kMaxChain = 64;  // top-part chain tasks before the planner gives up on the shape
}  // namespace

void Builder::init_worker(const Builder &main, ParallelState &ps, int32_t wid) {
  ps_ = &ps;
  mine_ = int64_t(wid + 1) << 32;
  state_index_ = main.state_index_;  // (not changed while the builders run: every layer has a state)
  states_ = ps.states;
  first_seen_.assign(states_.size(), -1);
  claimed_.assign(states_.size(), 0);
  plan_ = std::make_unique<Plan>();
  arena_ = std::make_unique<Arena>();
  // This helper index's arrays of the last parallel plan, if kept (HelperScratch); the fresh plan's
  // empty ones go back with `a` and are freed.
  std::unique_ptr<HelperArrays> a = HelperScratch::get().take(wid);
  swap_scratch(*a);
  plan_->tasks.clear(), plan_->args.clear(), plan_->patches.clear(), plan_->deps.clear(), plan_->roots.clear();
  task_state_.clear(), color_.clear(), dep_stamp_.clear(), list_pos_.clear();
  // Address space for an even share of the graph and a quarter more (the arrays grow beyond it as
  // needed); not the whole graph each: every builder's arrays count against the big-buffer cache.
  int64_t share = std::min<int64_t>({graph_num_tasks(g_), max_tasks_, int64_t(1) << 27});
  const void *old[7];
  for_each_reserved([&](auto &v, int i) { old[i] = v.data(); });
  reserve_all(size_t(share / std::max<int32_t>(1, int32_t(ps.builders.size())) * 5 / 4 + 1024));
  for_each_reserved([&](auto &v, int i) {
    if (v.data() != old[i]) faulted_[i] = 0;  // a new buffer (its pages may or may not be resident)
  });
  // (arrays that will not be kept, with the big-buffer cache off, gain nothing from it)
  prefault_ = size_t(wid) < HelperScratch::kSlots && detail::big_cache_limit() > 0;
}

// Faults in up to max_bytes more of a helper's reserved arrays, beyond what they hold (unused
// memory); false when all of it is. Touched only as the walk reaches them, a helper's fresh arrays
// would fault a little more in every plan while its share grows toward its steady one, each fault
// (4-16 us on this project's VMs) slowing the helper, which then takes fewer units: W1 with two
// threads took up to ten computes to settle (walk 20-30 ms instead of 12.5). A helper faults its
// arrays in before it takes a unit, a slice at a time while units remain (run_units), so a plan is
// never slower than the main builder's walk alone; what is left waits for the next plan (faulted_
// is kept with the arrays). Only arrays that will be kept are faulted in ahead (prefault_).
bool Builder::prefault_step(size_t max_bytes) {
  bool more = false;
  for_each_reserved([&](auto &v, int i) {
    using T = typename std::decay_t<decltype(v)>::value_type;
    const size_t cap = v.capacity() * sizeof(T), from = std::max(faulted_[i], v.size() * sizeof(T));
    if (max_bytes == 0 || from >= cap) {
      more = more || from < cap;
      return;
    }
    const size_t n = std::min(max_bytes, cap - from);
    detail::prefault(reinterpret_cast<char *>(v.data()) + from, n);
    faulted_[i] = from + n;
    max_bytes -= n;
    more = more || from + n < cap;
  });
  return more;
}

// A helper's arrays back to HelperScratch for the next parallel plan (after the copy phase: the
// final plan no longer reads them).
void Builder::keep_scratch(int32_t wid) {
  auto a = std::make_unique<HelperArrays>();
  for_each_reserved([&](auto &v, int i) {  // what the walk wrote is faulted in too
    faulted_[i] = std::max(faulted_[i], v.size() * sizeof(v[0]));
    a->unfaulted += int64_t(v.capacity() * sizeof(v[0]) - std::min(faulted_[i], v.capacity() * sizeof(v[0])));
  });
  swap_scratch(*a);
  HelperScratch::get().give(wid, std::move(a));
}

// The arrays a helper builder keeps between plans, exchanged with `a`'s.
void Builder::swap_scratch(HelperArrays &a) {
  a.tasks.swap(plan_->tasks);
  a.args.swap(plan_->args);
  a.patches.swap(plan_->patches);
  a.deps.swap(plan_->deps);
  a.roots.swap(plan_->roots);
  a.task_state.swap(task_state_);
  a.color.swap(color_);
  a.dep_stamp.swap(dep_stamp_);
  a.list_pos.swap(list_pos_);
  std::swap(a.faulted, faulted_);
}

void Builder::run_units(ParallelState &ps) {
  constexpr size_t kPrefaultSlice = size_t(256) << 10;
  for (int slices = prefault_ ? detail::g_plan_prefault_slices.load(std::memory_order_relaxed) : 0;
       slices-- != 0 && prefault_step(kPrefaultSlice) && !ps.failed.load(std::memory_order_relaxed);) {
    std::lock_guard<std::mutex> lk(ps.units_mu);
    if (ps.front >= ps.back) return;  // the main builder took the rest: finish next plan
  }
  while (!ps.failed.load(std::memory_order_relaxed)) {
    int32_t u = ps.take(false);
    if (u < 0) break;
    UnitRec r{};
    r.u = u;
    r.t0 = int32_t(plan_->tasks.size());
    r.a0 = uint32_t(plan_->args.size());
    r.p0 = uint32_t(plan_->patches.size());
    r.d0 = int32_t(plan_->deps.size());
    r.r0 = uint32_t(plan_->roots.size());
    r.l0 = uint32_t(list_pos_.size());
    unit_begin_ = r.t0;
    // The unit's root: numbered by the top part (claimed by it), materialized here.
    PlanTask t{};
    t.layer = ps.states[size_t(ps.root_state[size_t(u)])].layer;
    t.local = ps.root_local[size_t(u)];
    plan_->tasks.push_back(t);
    task_state_.push_back(ps.root_state[size_t(u)]);
    color_.push_back(0);
    dep_stamp_.push_back({-1, 0});
    walk(r.t0);
    if (dep_stamp_[size_t(r.t0)].ndependents != 0) throw Conflict{};  // (a cycle through the root)
    r.t1 = int32_t(plan_->tasks.size());
    r.a1 = uint32_t(plan_->args.size());
    r.p1 = uint32_t(plan_->patches.size());
    r.d1 = int32_t(plan_->deps.size());
    r.r1 = uint32_t(plan_->roots.size());
    r.l1 = uint32_t(list_pos_.size());
    ps.where[size_t(u)] = {int32_t(mine_ >> 32) - 1, int32_t(units_.size())};
    units_.push_back(r);
  }
}

// The main builder's walk over the top part, the sequential walk's own DFS: it visits top tasks in
// place and walks the units it takes (from the front: it meets them in order) in place too, claiming
// tasks as the helpers do, so a task shared with a helper's unit (or another unit) is seen. It stops
// (false) at the first unit the helpers took; all later ones are theirs too. Called again with
// `reserve` once every helper is done, it goes on from there, visiting the remaining top tasks and
// leaving room for each helper's unit where the sequential walk would have put it (true: done).
bool Builder::walk_top(ParallelState &ps, bool reserve) {
  Plan &p = *plan_;
  while (!top_stack_.empty()) {
    if (ps.failed.load(std::memory_order_relaxed)) throw Conflict{};
    Frame &f = top_stack_.back();
    if (f.next < p.tasks[size_t(f.tid)].dep_end) {
      const int32_t c = p.deps[size_t(f.next)];
      if (color_[size_t(c)] != 0) throw Conflict{};  // (shared, or a cycle: the sequential walk decides)
      const LayerState &cs = states_[size_t(task_state_[size_t(c)])];
      const int64_t claim = cs.claims ? std::atomic_ref<int64_t>(cs.claims[size_t(p.tasks[size_t(c)].local)])
                                            .load(std::memory_order_relaxed)
                                      : 0;
      if (claim >= 0) throw Conflict{};
      const int32_t u = ps.nodes[size_t(-claim - 1)].unit;
      if (u < 0) {  // a top task
        ++f.next;
        color_[size_t(c)] = 1;
        visit(c);
        top_stack_.push_back({c, p.tasks[size_t(c)].dep_begin});
        continue;
      }
      if (reserve) {
        ++f.next;
        reserve_unit(ps, u, c);
        continue;
      }
      if (!ps.take_front(u)) return false;
      ++f.next;
      top_ok_ = false;
      unit_begin_ = p.size();
      walk(c);
      top_ok_ = true;
      if (dep_stamp_[size_t(c)].ndependents != 1) throw Conflict{};  // (only its parent refers to it)
      ps.nfront = u + 1;
    } else {
      color_[size_t(f.tid)] = 2;
      const PlanTask &t = p.tasks[size_t(f.tid)];
      if (t.dep_begin == t.dep_end) p.roots.push_back(f.tid);
      top_stack_.pop_back();
    }
  }
  return true;
}

// Room for helper unit u (its root, task `root`, numbered by its parent's visit) at the end of the
// main builder's arrays: its other tasks get the next ids, its arguments, patches, dependencies and
// roots the next ranges; copy_unit fills them.
void Builder::reserve_unit(ParallelState &ps, int32_t u, int32_t root) {
  Plan &p = *plan_;
  auto [wi, ri] = ps.where[size_t(u)];
  if (wi < 0) throw Conflict{};
  const UnitRec &r = ps.builders[size_t(wi)]->units_[size_t(ri)];
  if (dep_stamp_[size_t(root)].ndependents != 1) throw Conflict{};
  const int64_t nt = int64_t(p.tasks.size()) + (r.t1 - r.t0 - 1), na = int64_t(p.args.size()) + (r.a1 - r.a0);
  const int64_t np = int64_t(p.patches.size()) + (r.p1 - r.p0), nd = int64_t(p.deps.size()) + (r.d1 - r.d0);
  if (nt > max_tasks_ || na >= int64_t(UINT32_MAX) || np >= int64_t(UINT32_MAX) || nd >= int64_t(INT32_MAX))
    throw Conflict{};  // the sequential walk reports the budget / size error
  ps.nodes[size_t(ps.unit_node[size_t(u)])].id = root;
  ps.tbase[size_t(u)] = p.size();
  ps.abase[size_t(u)] = uint32_t(p.args.size());
  ps.pbase[size_t(u)] = uint32_t(p.patches.size());
  ps.dbase[size_t(u)] = int32_t(p.deps.size());
  ps.rbase[size_t(u)] = uint32_t(p.roots.size());
  ps.reserved.push_back(u);
  // (Left uninitialized: PlanVec's resize default-initializes; every later pass skips these.)
  p.tasks.resize(size_t(nt));
  task_state_.resize(size_t(nt));
  color_.resize(size_t(nt));
  dep_stamp_.resize(size_t(nt));
  p.args.resize(size_t(na));
  p.patches.resize(size_t(np));
  p.deps.resize(size_t(nd));
  p.roots.resize(p.roots.size() + (r.r1 - r.r0));
  color_[size_t(root)] = 3;  // black, and its own task (arguments, dependencies) is the helper's
}

// The top part's look at a task: its dependencies (false: a missing one; the sequential walk
// reports it).
bool Builder::peek_deps(int32_t state, int64_t local, std::vector<std::pair<int32_t, int64_t>> &out) {
  out.clear();
  PeekEmitter pe(*this, state, out);
  states_[size_t(state)].layer->emit(local, pe);
  return !pe.bad;
}

// Unit u's ranges to their place in the final plan (the main builder's, already sized).
void Builder::copy_unit(ParallelState &ps, int32_t u) {
  Plan &p = *plan_;
  Builder &w = *ps.builders[size_t(ps.where[size_t(u)].first)];
  const UnitRec &r = w.units_[size_t(ps.where[size_t(u)].second)];
  const Plan &lp = *w.plan_;
  const int32_t root = ps.nodes[size_t(ps.unit_node[size_t(u)])].id;
  const int32_t base = ps.tbase[size_t(u)] - r.t0 - 1;  // local j > t0 -> base + j
  auto map = [&](int32_t j) { return j == r.t0 ? root : base + j; };
  const int64_t dA = int64_t(ps.abase[size_t(u)]) - r.a0;
  const int64_t dP = int64_t(ps.pbase[size_t(u)]) - r.p0;
  const int64_t dD = int64_t(ps.dbase[size_t(u)]) - r.d0;
  for (int32_t j = r.t0; j < r.t1; ++j) {
    PlanTask t = lp.tasks[size_t(j)];
    t.arg_begin = uint32_t(t.arg_begin + dA);
    t.patch_begin = uint32_t(t.patch_begin + dP);
    t.patch_end = uint32_t(t.patch_end + dP);
    t.dep_begin = int32_t(t.dep_begin + dD);
    t.dep_end = int32_t(t.dep_end + dD);
    p.tasks[size_t(map(j))] = t;
  }
  if (r.a1 > r.a0)
    std::copy(lp.args.begin() + r.a0, lp.args.begin() + r.a1, p.args.begin() + ps.abase[size_t(u)]);
  for (uint32_t k = r.l0; k < r.l1; ++k) {
    ca_arg_t &a = p.args[size_t(w.list_pos_[k] + dA)];
    a.u.list.items = p.args.data() + (int64_t(uintptr_t(a.u.list.items)) + dA);
  }
  for (uint32_t k = r.p0; k < r.p1; ++k) {
    const Patch &pt = lp.patches[k];
    p.patches[size_t(k + dP)] = {uint32_t(pt.pos + dA), map(pt.task)};
  }
  for (int32_t k = r.d0; k < r.d1; ++k) p.deps[size_t(k + dD)] = map(lp.deps[size_t(k)]);
  for (uint32_t k = r.r0; k < r.r1; ++k) p.roots[ps.rbase[size_t(u)] + (k - r.r0)] = map(lp.roots[k]);
  // Dependents of the unit's other tasks: all inside the unit, in id (= local) order.
  int32_t off = ps.doff[size_t(u)];
  for (int32_t j = r.t0 + 1; j < r.t1; ++j) {
    DepCount &dc = w.dep_stamp_[size_t(j)];
    p.nconsumers[size_t(base + j)] = dc.ndependents;
    dc.stamp = off;
    off += dc.ndependents;
    p.dependents_off[size_t(base + j + 1)] = off;
  }
  for (int32_t j = r.t0; j < r.t1; ++j) {
    const int32_t g = map(j);
    for (int32_t i = lp.tasks[size_t(j)].dep_begin; i < lp.tasks[size_t(j)].dep_end; ++i)
      p.dependents[size_t(w.dep_stamp_[size_t(lp.deps[size_t(i)])].stamp++)] = g;
  }
}

std::unique_ptr<Plan> Builder::run_parallel(const KeyRef *keys, size_t nkeys, PlanHelpers &helpers, bool shallow) {
  static const bool prof = std::getenv("CA_COMPUTE_PROFILE") != nullptr;
  auto clk = [] { return std::chrono::steady_clock::now(); };
  auto t0 = clk();
  if (nkeys != 1) return nullptr;
  plan_ = std::make_unique<Plan>();
  // A state for every layer first: the builders share the numbering (and never add states).
  for (const LayerPtr &l : g_.layers()) state_of(l->name());
  const KeyRef &key = keys[0];
  if (!key.name || !key.name[0] || key.nidx < 0 || key.nidx > 64 || (key.nidx > 0 && !key.idx)) return nullptr;
  const int32_t out_state = state_of(key.name);
  if (out_state < 0) return nullptr;
  const Layer *out_layer = states_[size_t(out_state)].layer;
  const int64_t out_local = out_layer->nindex() == key.nidx ? out_layer->find(key.idx) : -1;
  if (out_local < 0) return nullptr;  // (the sequential walk reports these)
  const int32_t W = helpers.width();
  ParallelState ps;
  // The cut: level by level below the output, each task of the frontier replaced by its
  // dependencies, until there are enough subtrees (units) for the builders to share evenly (a few
  // per builder: their sizes differ, e.g. a tree reduction's last group is short; `shallow`: the
  // first level of two or more). A level is a cut only if the level below it is made of distinct
  // tasks too (else its units share a task and the walks would find it only to fall back): then
  // the level above it is kept, or the graph is planned sequentially.
  const size_t want = shallow ? 2 : size_t(16) * size_t(W);
  constexpr size_t kMaxNodes = 65536;
  constexpr int kMaxLevels = 64 + 16;
  std::vector<ParallelState::Node> nodes{{out_state, out_local, 0, -1}};
  std::vector<int32_t> frontier{0};
  std::vector<std::vector<std::pair<int32_t, int64_t>>> kids;  // per frontier node, this level
  std::set<std::pair<int32_t, int64_t>> seen{{out_state, out_local}};
  struct Snap {
    size_t nnodes = 0;
    std::vector<int32_t> frontier, expanded;
  } snap;
  int level = 0, first_multi = -1;
  for (;; ++level) {
    if (first_multi < 0 && frontier.size() >= 2) first_multi = level;
    kids.assign(frontier.size(), {});
    size_t next = 0;
    bool grew = false;
    for (size_t i = 0; i < frontier.size(); ++i) {
      const ParallelState::Node &nd = nodes[size_t(frontier[i])];
      if (!peek_deps(nd.state, nd.local, kids[i])) return nullptr;
      next += kids[i].empty() ? 1 : kids[i].size();
      grew |= !kids[i].empty();
    }
    if (!grew) break;  // all leaves
    std::set<std::pair<int32_t, int64_t>> level_seen;
    bool distinct = true;
    for (size_t i = 0; i < frontier.size() && distinct; ++i)
      for (const auto &d : kids[i])
        if (seen.count(d) || !level_seen.insert(d).second) {
          distinct = false;
          break;
        }
    if (!distinct) {
      // This level's units would share a task: back to the level above, if that one has units.
      if (snap.frontier.size() < 2) return nullptr;
      nodes.resize(snap.nnodes);
      for (int32_t e : snap.expanded) nodes[size_t(e)].unit = 0;
      frontier = snap.frontier;
      --level;
      break;
    }
    if (frontier.size() >= want || level >= kMaxLevels || nodes.size() + next > kMaxNodes) break;
    seen.insert(level_seen.begin(), level_seen.end());
    snap.nnodes = nodes.size();
    snap.frontier = frontier;
    snap.expanded.clear();
    std::vector<int32_t> nf;
    nf.reserve(next);
    for (size_t i = 0; i < frontier.size(); ++i) {
      if (kids[i].empty()) {
        nf.push_back(frontier[i]);
        continue;
      }
      nodes[size_t(frontier[i])].unit = -1;  // expanded: a top task
      snap.expanded.push_back(frontier[i]);
      for (const auto &d : kids[i]) {
        nf.push_back(int32_t(nodes.size()));
        nodes.push_back({d.first, d.second, 0, -1});
      }
    }
    frontier.swap(nf);
  }
  deep_cut_ = first_multi >= 0 && level > first_multi;
  const int32_t nunits = int32_t(frontier.size());
  if (nunits < 2) return nullptr;
  nodes[0].unit = -1;  // (the output was expanded: nunits >= 2)
  for (int32_t u = 0; u < nunits; ++u) nodes[size_t(frontier[size_t(u)])].unit = u;
  ps.nodes = std::move(nodes);
  ps.unit_node = frontier;
  ps.main = this;
  ps.nunits = nunits;
  ps.back = nunits;
  ps.claims.reset(new std::atomic<int64_t *>[states_.size()]);
  for (size_t i = 0; i < states_.size(); ++i) ps.claims[i].store(nullptr, std::memory_order_relaxed);
  ps.claim_store.resize(states_.size());
  ps.builders.resize(size_t(W));
  ps.where.assign(size_t(nunits), {-1, -1});
  for (size_t i = 0; i < ps.nodes.size(); ++i) {
    const ParallelState::Node &nd = ps.nodes[i];
    ps.claims_of(nd.state, states_[size_t(nd.state)].layer)[size_t(nd.local)] = -int64_t(i) - 1;
  }
  for (LayerState &m : states_) {
    m.claims = ps.claims[size_t(&m - states_.data())].load(std::memory_order_relaxed);
    LayerState s;
    s.layer = m.layer;
    s.ptr = m.ptr;
    s.dep_states = m.dep_states;
    s.kernels = m.kernels;
    s.kernel_done = m.kernel_done;
    ps.states.push_back(std::move(s));
  }
  for (int32_t u = 0; u < nunits; ++u) {
    ps.root_state.push_back(ps.nodes[size_t(frontier[size_t(u)])].state);
    ps.root_local.push_back(ps.nodes[size_t(frontier[size_t(u)])].local);
  }
  ps.tbase.assign(size_t(nunits), 0);
  ps.abase.assign(size_t(nunits), 0);
  ps.pbase.assign(size_t(nunits), 0);
  ps.rbase.assign(size_t(nunits), 0);
  ps.dbase.assign(size_t(nunits), 0);
  ps.doff.assign(size_t(nunits), 0);
  // The main builder walks into its own (final) arrays: room for every task, as the sequential walk
  // reserves.
  reserve_all(size_t(std::min<int64_t>({graph_num_tasks(g_), max_tasks_, int64_t(1) << 27})));
  ps_ = &ps;
  mine_ = int64_t(W + 1) << 32;
  first_seen_.assign(states_.size(), -1);  // (unused: the main builder's ids are final)
  claimed_.assign(states_.size(), 0);
  top_ok_ = true;
  const int32_t out = discover(out_state, out_local);
  color_[size_t(out)] = 1;
  visit(out);
  top_stack_.push_back({out, plan_->tasks[size_t(out)].dep_begin});
  Plan &p = *plan_;
  auto t1 = clk();
  std::vector<double> cpu_ms(size_t(W), 0.0);  // (CA_COMPUTE_PROFILE: each thread's CPU time in the walk)
  auto thread_ms = [] {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    rusage ru{};
    getrusage(RUSAGE_THREAD, &ru);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) * 1e-6 + double(ru.ru_minflt) * 1e6;
  };
  bool done = false;
  helpers.run_helpers([&](int32_t w) {
    if (ps.failed.load(std::memory_order_relaxed)) return;
    const double c0 = prof ? thread_ms() : 0;
    struct Cpu {
      double &out, c0;
      bool on;
      decltype(thread_ms) &f;
      ~Cpu() {
        if (on) out = f() - c0;
      }
    } cpu{cpu_ms[size_t(w)], c0, prof, thread_ms};
    try {
      if (w == 0) {
        done = walk_top(ps, false);
        return;
      }
      {
        std::lock_guard<std::mutex> lk(ps.units_mu);
        if (ps.front >= ps.back) return;  // nothing left: no builder needed
      }
      auto bw = std::make_unique<Builder>(g_, reg_, max_tasks_);
      bw->init_worker(*this, ps, w);
      ps.builders[size_t(w)] = std::move(bw);
      ps.builders[size_t(w)]->run_units(ps);
    } catch (...) {
      ps.failed.store(true, std::memory_order_relaxed);
    }
  });
  if (ps.failed.load(std::memory_order_relaxed)) throw Conflict{};
  auto t2 = clk();
  // The rest of the top part, with room for the helpers' units where the sequential walk puts them.
  if (!done) walk_top(ps, true);
  top_ok_ = false;
  ps_ = nullptr;
  const int32_t k = ps.nfront;  // units [0, k) were walked in place, [k, nunits) by the helpers
  if (int32_t(ps.reserved.size()) != nunits - k) throw Conflict{};
  const int32_t N = p.size();
  p.dependents_off.resize(size_t(N) + 1);
  p.nconsumers.resize(size_t(N));
  p.dependents.resize(p.deps.size());
  // Dependents' offsets in task order: the main builder's tasks from its counts, each helper's unit
  // as one block of its dependency count (every dependency inside a unit is on one of its non-root
  // tasks; copy_unit fills in the offsets inside).
  auto unit_rec = [&](int32_t u) -> const UnitRec & {
    auto [wi, ri] = ps.where[size_t(u)];
    return ps.builders[size_t(wi)]->units_[size_t(ri)];
  };
  // The final task ids in order: the main builder's own tasks (on_task(t)) and the helpers' units'
  // reserved ranges (on_unit(u, its UnitRec)) between them.
  auto each_segment = [&](auto &&on_task, auto &&on_unit) {
    size_t ri = 0;
    for (int32_t t = 0; t < N || ri < ps.reserved.size();) {
      if (ri < ps.reserved.size() && t == ps.tbase[size_t(ps.reserved[ri])]) {
        const int32_t u = ps.reserved[ri++];
        const UnitRec &r = unit_rec(u);
        on_unit(u, r);
        t += r.t1 - r.t0 - 1;
        continue;
      }
      if (t >= N) throw Conflict{};  // (cannot happen: the ranges tile [0, N) with the main's tasks)
      on_task(t++);
    }
  };
  {
    int32_t off = 0;
    p.dependents_off[0] = 0;
    each_segment(
        [&](int32_t t) {
          DepCount &dc = dep_stamp_[size_t(t)];
          p.nconsumers[size_t(t)] = dc.ndependents;
          dc.stamp = off;
          off += dc.ndependents;
          p.dependents_off[size_t(t) + 1] = off;
        },
        [&](int32_t u, const UnitRec &r) {
          ps.doff[size_t(u)] = off;
          off += r.d1 - r.d0;
        });
  }
  auto t3 = clk();
  // Claims still held, per builder and layer, counted over the claim arrays in ranges by every
  // planning thread (a builder whose store another one overwrote has fewer than it claimed).
  const size_t S = states_.size();
  std::vector<std::pair<int32_t, int64_t>> scan;  // (state, first entry) per range
  constexpr int64_t kScan = 65536;
  for (size_t st = 0; st < S; ++st)
    for (int64_t i = 0; i < int64_t(ps.claim_store[st].size()); i += kScan) scan.push_back({int32_t(st), i});
  std::vector<std::vector<int64_t>> counted(size_t(W), std::vector<int64_t>(size_t(W + 1) * S, 0));
  std::atomic<size_t> next_scan{0};
  std::atomic<int32_t> next{k};
  helpers.run_helpers([&](int32_t w) {
    std::vector<int64_t> &cnt = counted[size_t(w)];
    for (size_t j; (j = next_scan.fetch_add(1, std::memory_order_relaxed)) < scan.size();) {
      const auto [st, from] = scan[j];
      const PlanVec<int64_t> &c = ps.claim_store[size_t(st)];
      const int64_t to = std::min<int64_t>(int64_t(c.size()), from + kScan);
      for (int64_t i = from; i < to; ++i) {
        const int64_t v = c[size_t(i)];
        if (v > 0) {
          const int64_t tag = (v >> 32) - 1;  // builder index; the main builder's is W
          if (tag >= 0 && tag <= W) cnt[size_t(tag) * S + size_t(st)]++;
        }
      }
    }
    if (w == 0) {
      int clash = detail::g_plan_claim_clashes.load();
      while (clash > 0 && !detail::g_plan_claim_clashes.compare_exchange_weak(clash, clash - 1)) {
      }
      if (clash > 0) ps.failed.store(true, std::memory_order_relaxed);
      // The main builder's part: LIST offsets and the dependents of its own tasks (a helper's unit
      // root's dependencies are inside its unit: copy_unit writes those).
      for (uint32_t pos : list_pos_) {
        ca_arg_t &a = p.args[pos];
        a.u.list.items = p.args.data() + uintptr_t(a.u.list.items);
      }
      each_segment(
          [&](int32_t t) {
            if (color_[size_t(t)] == 3) return;
            for (int32_t i = p.tasks[size_t(t)].dep_begin; i < p.tasks[size_t(t)].dep_end; ++i)
              p.dependents[size_t(dep_stamp_[size_t(p.deps[size_t(i)])].stamp++)] = t;
          },
          [](int32_t, const UnitRec &) {});
    }
    for (int32_t u; (u = next.fetch_add(1, std::memory_order_relaxed)) < nunits;) copy_unit(ps, u);
  });
  for (int32_t b = 0; b <= W; ++b) {
    const Builder *bw = b == W ? this : ps.builders[size_t(b)].get();
    for (size_t st = 0; st < S; ++st) {
      int64_t held = 0;
      for (const auto &c : counted) held += c[size_t(b) * S + st];
      if (held != (bw ? bw->claimed_[st] : 0)) ps.failed.store(true, std::memory_order_relaxed);
    }
  }
  if (ps.failed.load(std::memory_order_relaxed)) throw Conflict{};  // (a task two builders took)
  p.outputs.push_back(out);
  p.nconsumers[size_t(out)]++;
  // Layers in the order the sequential walk meets them (its first task of each: plan_hash reads it).
  std::vector<int64_t> first(states_.size(), INT64_MAX);
  each_segment(
      [&](int32_t t) {
        int64_t &f = first[size_t(task_state_[size_t(t)])];
        if (f == INT64_MAX) f = t;
      },
      [](int32_t, const UnitRec &) {});
  for (auto &bw : ps.builders) {
    if (!bw) continue;
    for (size_t st = 0; st < states_.size(); ++st) {
      int32_t j = bw->first_seen_[st];
      if (j < 0) continue;
      // The unit holding local task j (units_ are in increasing t0); j is not a unit root.
      auto it = std::upper_bound(bw->units_.begin(), bw->units_.end(), j,
                                 [](int32_t x, const UnitRec &r) { return x < r.t0; });
      const UnitRec &r = *(it - 1);
      first[st] = std::min<int64_t>(first[st], ps.tbase[size_t(r.u)] + (j - r.t0 - 1));
    }
    for (KernelPtr &kp : bw->plan_->kernels) p.kernels.push_back(std::move(kp));
    if (bw->arena_->bytes_used()) p.arenas.push_back(std::move(bw->arena_));
  }
  for (size_t w = 0; w < ps.builders.size(); ++w)
    if (ps.builders[w]) ps.builders[w]->keep_scratch(int32_t(w));
  std::vector<int32_t> order;
  for (size_t st = 0; st < states_.size(); ++st)
    if (first[st] != INT64_MAX) order.push_back(int32_t(st));
  std::sort(order.begin(), order.end(), [&](int32_t x, int32_t y) { return first[size_t(x)] < first[size_t(y)]; });
  for (int32_t st : order) p.layers.push_back(states_[size_t(st)].ptr);
  if (prof) {
    auto t4 = clk();
    auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
    std::string cpus;
    for (double c : cpu_ms) {
      const long long faults = (long long)(c / 1e6);
      cpus += " " + std::to_string(c - double(faults) * 1e6).substr(0, 5) + " (" + std::to_string(faults) + " faults)";
    }
    std::fprintf(stderr, "plan profile: walk CPU ms per thread:%s\n", cpus.c_str());
    std::fprintf(stderr,
                 "plan profile: %lld tasks, parallel (%d units, %d by the caller, width %d): top %.2f ms, walk %.2f "
                 "ms, rest of the top + offsets %.2f ms, copy+csr+list fixup %.2f ms\n",
                 (long long)N, nunits, k, W, ms(t0, t1), ms(t1, t2), ms(t2, t3), ms(t3, t4));
  }
  return std::move(plan_);
}

}  // namespace

std::unique_ptr<Plan> build_plan(const Graph &g, const KeyRef *keys, size_t nkeys, const KernelRegistry *registry,
                                 int64_t max_tasks, PlanHelpers *helpers) {
  if (helpers) {
    const int mode = detail::g_plan_mode.load(std::memory_order_relaxed);
    if (mode != 1 && helpers->width() > 1 && (mode == 2 || graph_num_tasks(g) >= kParallelPlanMinTasks)) {
      // A deep cut whose units turn out to share a task is tried once more at the first level of
      // several subtrees (which may not share); errors and everything else: the sequential walk
      // below reports or handles them.
      for (bool shallow : {false, true}) {
        Builder b(g, registry, max_tasks);
        try {
          if (auto p = b.run_parallel(keys, nkeys, *helpers, shallow)) {
            detail::g_plan_parallel_built.fetch_add(1, std::memory_order_relaxed);
            return p;
          }
          break;
        } catch (const Conflict &) {
          if (!b.deep_cut()) break;
        } catch (...) {
          break;
        }
      }
      detail::g_plan_parallel_fallbacks.fetch_add(1, std::memory_order_relaxed);
    }
  }
  Builder b(g, registry, max_tasks);
  return b.run(keys, nkeys);
}

namespace detail {
int64_t plan_scratch_bytes() { return HelperScratch::get().bytes(); }
const void *plan_scratch_tasks(int32_t w) { return HelperScratch::get().tasks(w); }
int64_t plan_scratch_unfaulted(int32_t w) { return HelperScratch::get().unfaulted(w); }
}  // namespace detail

// Graph::cull (graph.hpp) lives with the planner it walks the graph with; graph.cpp stays free of
// the planner (the loader fuzzer links graph.cpp without it).
Graph Graph::cull(const KeyRef *keys, size_t nkeys) const {
  auto plan = build_plan(*this, keys, nkeys, nullptr);
  // Needed tasks per layer.
  std::unordered_map<const Layer *, std::vector<bool>> keep;
  for (const PlanTask &t : plan->tasks) {
    auto &v = keep[t.layer];
    if (v.empty()) v.assign(size_t(t.layer->num_tasks()), false);
    v[size_t(t.local)] = true;
  }
  Graph res;
  for (const LayerPtr &l : layers_) {
    auto it = keep.find(l.get());
    if (it == keep.end()) continue;
    if (l->kind() == LayerKind::Materialized)
      res.add_layer(static_cast<const MaterializedLayer &>(*l).clone(&it->second));
    else
      res.add_layer(l);
  }
  return res;
}

void validate_graph(const Graph &g, const KeyRef *keys, size_t nkeys, const KernelRegistry *registry,
                    int64_t max_tasks) {
  if (keys) {
    build_plan(g, keys, nkeys, registry, max_tasks);
    return;
  }
  // Every task: the budget first, from the layers' counts (symbolic layers are not materialized for
  // it), since a small file may declare more tasks than memory can hold.
  check_task_budget(graph_num_tasks(g), max_tasks, "the graph");
  std::vector<std::vector<Index>> store;
  for (const LayerPtr &l : g.layers())
    for (int64_t t = 0; t < l->num_tasks(); ++t) {
      store.emplace_back(size_t(l->nindex()));
      l->key_at(t, store.back().data());
    }
  std::vector<KeyRef> refs;
  refs.reserve(store.size());
  size_t s = 0;
  for (const LayerPtr &l : g.layers())
    for (int64_t t = 0; t < l->num_tasks(); ++t, ++s) refs.push_back({l->name().c_str(), store[s].data(), l->nindex()});
  build_plan(g, refs.data(), refs.size(), registry, max_tasks);
}

}  // namespace ca
