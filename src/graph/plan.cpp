#include "graph/plan.hpp"

#include <algorithm>
#include <climits>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <unordered_map>

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

namespace {

struct LayerState {
  const Layer *layer = nullptr;
  LayerPtr ptr;
  PlanVec<int32_t> ids;              // local -> task id, -1 if not yet
  std::unordered_map<int64_t, int32_t> sparse_ids;  // instead, for a layer larger than the task budget
  std::vector<int32_t> dep_states;   // per dependency slot: state index, -2 unresolved, -1 missing
  std::vector<Kernel *> kernels;     // per kernel slot, resolved lazily
  std::vector<bool> kernel_done;
};

struct TmpArg {
  ca_arg_t a;
  int32_t ref;      // task id, or -1
  uint32_t nkids;   // LIST
};

// Builds the plan in one depth-first walk. Task ids are discovery order; the post-order (priority)
// decides the order roots are handed out.
class Builder final : public TaskEmitter {
 public:
  Builder(const Graph &g, const KernelRegistry *reg, int64_t max_tasks)
      : g_(g), reg_(reg), max_tasks_(max_tasks > 0 ? max_tasks : default_max_tasks(0)) {}

  std::unique_ptr<Plan> run(const KeyRef *keys, size_t nkeys);

  // TaskEmitter
  void kernel(int32_t slot) override { kslot_ = slot; }
  void literal(const ca_arg_t &a) override { push_arg(a, -1); }
  void literal_copy(const ca_arg_t &a) override { push_arg(copy_literal(a, plan_->arena), -1); }
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
  void visit(int32_t tid);
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
  // Per task: the last task that listed it as a dependency (each dependency once per task), and how
  // many tasks did (its dependents: the CSR offsets come from these counts, no second pass).
  struct DepCount {
    int32_t stamp;
    int32_t ndependents;
  };
  PlanVec<DepCount> dep_stamp_;
  PlanVec<uint32_t> list_pos_;  // every LIST the builder placed in plan_->args (offsets until the end)
  std::vector<TmpArg> tmp_;
  std::vector<size_t> list_stack_;
  std::vector<Deferred> deferred_;
  std::vector<uint32_t> deferred_count_;
  int32_t depth_ = 0;
  int32_t kslot_ = 0;
  int32_t cur_ = -1;
};

int32_t Builder::state_of(const std::string &name) {
  const Layer *l = g_.find(name);
  if (!l) return -1;
  auto it = state_index_.find(l);
  if (it != state_index_.end()) return it->second;
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

int32_t Builder::discover(int32_t state, int64_t local) {
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
    id = int32_t(plan_->tasks.size());
    PlanTask t{};
    t.layer = s.layer;
    t.local = local;
    plan_->tasks.push_back(t);
    task_state_.push_back(state);
    color_.push_back(0);
    dep_stamp_.push_back({-1, 0});
  }
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

std::unique_ptr<Plan> Builder::run(const KeyRef *keys, size_t nkeys) {
  static const bool prof = std::getenv("CA_COMPUTE_PROFILE") != nullptr;
  auto clk = [] { return std::chrono::steady_clock::now(); };
  auto t0 = clk();
  plan_ = std::make_unique<Plan>();
  {
    // Reserve for every task of the graph (address space only: pages are touched when used), so
    // the arrays never move while a million tasks are added.
    // Never more than the task budget allows; and only a hint: with too little address space
    // (RLIMIT_AS) the arrays grow as needed instead.
    int64_t total = graph_num_tasks(g_);
    size_t n = size_t(std::min<int64_t>({total, max_tasks_, int64_t(1) << 27}));
    Plan &p = *plan_;
    try {
      p.tasks.reserve(n);
      p.args.reserve(n * 2);
      p.patches.reserve(n);
      p.deps.reserve(n);
      task_state_.reserve(n);
      color_.reserve(n);
      dep_stamp_.reserve(n);
    } catch (const std::bad_alloc &) {
      p.tasks.shrink_to_fit();
      p.args.shrink_to_fit();
      p.patches.shrink_to_fit();
      p.deps.shrink_to_fit();
      task_state_.shrink_to_fit();
      color_.shrink_to_fit();
      dep_stamp_.shrink_to_fit();
    }
  }
  std::vector<int32_t> out_ids;
  for (size_t k = 0; k < nkeys; ++k) {
    const KeyRef &key = keys[k];
    CA_CHECK(key.name && key.name[0], CA_EINVAL, "requested key ", k, " has an empty or NULL name");
    CA_CHECK(key.nidx >= 0 && key.nidx <= 64 && (key.nidx == 0 || key.idx), CA_EINVAL, "requested key '",
             key.name, "' has a bad index (", key.nidx, " indices)");
    int32_t st = state_of(key.name);
    if (st < 0) fail(CA_ENOTFOUND, "key ", key_str(key.name, key.idx, key.nidx), " is not in the graph");
    const Layer *l = states_[size_t(st)].layer;
    int64_t local = l->nindex() == key.nidx ? l->find(key.idx) : -1;
    if (local < 0) fail(CA_ENOTFOUND, "key ", key_str(key.name, key.idx, key.nidx), " is not in the graph");
    out_ids.push_back(discover(st, local));
  }
  // Iterative DFS: visits (materializes) each needed task once, detects cycles, and records the
  // post-order of the roots (the order they are handed to workers).
  struct Frame {
    int32_t tid;
    int32_t next;
  };
  PlanVec<Frame> stack;
  Plan &p = *plan_;
  for (int32_t root : out_ids) {
    if (color_[size_t(root)] != 0) continue;
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

}  // namespace

std::unique_ptr<Plan> build_plan(const Graph &g, const KeyRef *keys, size_t nkeys, const KernelRegistry *registry,
                                 int64_t max_tasks) {
  Builder b(g, registry, max_tasks);
  return b.run(keys, nkeys);
}

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
