#include "graph/plan.hpp"

#include <algorithm>
#include <unordered_map>

namespace ca {

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
  std::vector<int32_t> ids;          // local -> discovery id, -1 if not yet
  std::vector<int32_t> dep_states;   // per dependency slot: state index, -2 unresolved, -1 missing
  std::vector<Kernel *> kernels;     // per kernel slot, resolved lazily
  std::vector<bool> kernel_done;
};

struct TmpTask {
  int32_t state;
  int64_t local;
  int32_t color = 0;  // 0 white, 1 gray, 2 black
  int32_t kernel_slot = 0;
  uint32_t arg_begin = 0, nargs = 0;
  uint32_t patch_begin = 0, patch_end = 0;
  uint32_t dep_begin = 0, dep_end = 0;
  int32_t post = -1;
};

struct TmpArg {
  ca_arg_t a;
  int32_t ref;      // discovery id, or -1
  uint32_t nkids;   // LIST
};

class Builder final : public TaskEmitter {
 public:
  Builder(const Graph &g, const KernelRegistry *reg) : g_(g), reg_(reg) {}

  std::unique_ptr<Plan> run(const KeyRef *keys, size_t nkeys);

  // TaskEmitter
  void kernel(int32_t slot) override { tasks_[size_t(cur_)].kernel_slot = slot; }
  void literal(const ca_arg_t &a) override { push({a, -1, 0}); }
  void literal_copy(const ca_arg_t &a) override { push({copy_literal(a, plan_->arena), -1, 0}); }
  void ref(int32_t slot, const Index *idx, int32_t nidx) override;
  void begin_list(size_t n) override {
    (void)n;
    push({ca_arg_list(nullptr, 0), -1, 0});
    list_stack_.push_back(tmp_.size() - 1);
  }
  void end_list() override { list_stack_.pop_back(); }

 private:
  void push(const TmpArg &t) {
    if (!list_stack_.empty()) tmp_[list_stack_.back()].nkids++;
    else top_count_++;
    tmp_.push_back(t);
  }
  int32_t state_of(const std::string &name);
  int32_t discover(int32_t state, int64_t local);
  void visit(int32_t tid);
  void place(size_t &i, uint32_t count, uint32_t dest);
  std::string key_text(int32_t tid) const {
    const TmpTask &t = tasks_[size_t(tid)];
    const Layer *l = states_[size_t(t.state)].layer;
    Index idx[65];
    l->key_at(t.local, idx);
    return key_str(l->name(), idx, l->nindex());
  }

  const Graph &g_;
  const KernelRegistry *reg_;
  std::unique_ptr<Plan> plan_;
  std::vector<LayerState> states_;
  std::unordered_map<const Layer *, int32_t> state_index_;
  std::vector<TmpTask> tasks_;
  std::vector<int32_t> tmp_deps_;
  std::vector<int32_t> dep_stamp_;
  std::vector<Patch> tmp_patches_;  // task = discovery id
  std::vector<TmpArg> tmp_;
  std::vector<size_t> list_stack_;
  uint32_t top_count_ = 0;
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
  if (s.ids.empty()) s.ids.assign(size_t(s.layer->num_tasks()), -1);
  int32_t &id = s.ids[size_t(local)];
  if (id < 0) {
    CA_CHECK(tasks_.size() < size_t(INT32_MAX), CA_ENOMEM, "more than 2^31 tasks in one compute");
    id = int32_t(tasks_.size());
    TmpTask t;
    t.state = state;
    t.local = local;
    tasks_.push_back(t);
    dep_stamp_.push_back(-1);
  }
  return id;
}

void Builder::ref(int32_t slot, const Index *idx, int32_t nidx) {
  const TmpTask &cur = tasks_[size_t(cur_)];
  int32_t cur_state = cur.state;
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
  push({ca_arg_none(), id, 0});
  if (dep_stamp_[size_t(id)] != cur_) {
    dep_stamp_[size_t(id)] = cur_;
    tmp_deps_.push_back(id);
  }
}

void Builder::place(size_t &i, uint32_t count, uint32_t dest) {
  std::vector<ca_arg_t> &pool = plan_->args;
  for (uint32_t k = 0; k < count; ++k) {
    TmpArg node = tmp_[i++];
    uint32_t pos = dest + k;
    if (node.ref >= 0) {
      ca_arg_t a = ca_arg_none();
      a.kind = CA_ARG_BLOCK;
      a.u.block = nullptr;
      pool[pos] = a;
      tmp_patches_.push_back({pos, node.ref});
    } else if (node.a.kind == CA_ARG_LIST) {
      uint32_t child = uint32_t(pool.size());
      pool.resize(pool.size() + node.nkids);
      ca_arg_t a = ca_arg_none();
      a.kind = CA_ARG_LIST;
      a.u.list.len = node.nkids;
      a.u.list.items = reinterpret_cast<const ca_arg_t *>(uintptr_t(child));  // fixed up at the end
      pool[pos] = a;
      place(i, node.nkids, child);
    } else {
      pool[pos] = node.a;
    }
  }
}

void Builder::visit(int32_t tid) {
  cur_ = tid;
  const Layer *layer = states_[size_t(tasks_[size_t(tid)].state)].layer;
  int64_t local = tasks_[size_t(tid)].local;
  tmp_.clear();
  list_stack_.clear();
  top_count_ = 0;
  uint32_t dep_begin = uint32_t(tmp_deps_.size());
  layer->emit(local, *this);  // may grow tasks_ and states_
  CA_CHECK(plan_->args.size() + tmp_.size() < size_t(UINT32_MAX), CA_ENOMEM, "too many task arguments");
  // Resolve the kernel.
  TmpTask &t = tasks_[size_t(tid)];
  LayerState &ls = states_[size_t(t.state)];
  if (reg_ && !ls.kernel_done[size_t(t.kernel_slot)]) {
    const std::string &kname = ls.layer->kernel_names()[size_t(t.kernel_slot)];
    KernelPtr k = reg_->find(kname);
    if (!k) fail(CA_ENOTFOUND, "task ", key_text(tid), " uses unknown kernel '", kname, "' (not registered)");
    ls.kernels[size_t(t.kernel_slot)] = k.get();
    ls.kernel_done[size_t(t.kernel_slot)] = true;
    plan_->kernels.push_back(std::move(k));
  }
  t.arg_begin = uint32_t(plan_->args.size());
  t.nargs = top_count_;
  plan_->args.resize(plan_->args.size() + top_count_);
  t.patch_begin = uint32_t(tmp_patches_.size());
  size_t i = 0;
  place(i, top_count_, t.arg_begin);
  t.patch_end = uint32_t(tmp_patches_.size());
  t.dep_begin = dep_begin;
  t.dep_end = uint32_t(tmp_deps_.size());
}

std::unique_ptr<Plan> Builder::run(const KeyRef *keys, size_t nkeys) {
  plan_ = std::make_unique<Plan>();
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
  // Iterative DFS, post-order numbering, cycle detection.
  struct Frame {
    int32_t tid;
    uint32_t next;
  };
  std::vector<Frame> stack;
  int32_t counter = 0;
  std::vector<int32_t> order;  // discovery ids in post-order
  for (int32_t root : out_ids) {
    if (tasks_[size_t(root)].color != 0) continue;
    tasks_[size_t(root)].color = 1;
    visit(root);
    stack.push_back({root, tasks_[size_t(root)].dep_begin});
    while (!stack.empty()) {
      Frame &f = stack.back();
      TmpTask &t = tasks_[size_t(f.tid)];
      if (f.next < t.dep_end) {
        int32_t child = tmp_deps_[f.next++];
        TmpTask &c = tasks_[size_t(child)];
        if (c.color == 0) {
          c.color = 1;
          visit(child);
          stack.push_back({child, tasks_[size_t(child)].dep_begin});
        } else if (c.color == 1) {
          std::string msg;
          size_t from = stack.size();
          while (from > 0 && stack[from - 1].tid != child) --from;
          for (size_t s = from - 1; s < stack.size(); ++s) msg += key_text(stack[s].tid) + " -> ";
          msg += key_text(child);
          fail(CA_ECYCLE, "the graph has a cycle: ", msg);
        }
      } else {
        t.color = 2;
        t.post = counter++;
        order.push_back(f.tid);
        stack.pop_back();
      }
    }
  }
  // Emit the plan in post-order.
  Plan &p = *plan_;
  size_t n = order.size();
  p.tasks.resize(n);
  p.deps.reserve(tmp_deps_.size());
  p.patches.reserve(tmp_patches_.size());
  for (size_t newid = 0; newid < n; ++newid) {
    const TmpTask &t = tasks_[size_t(order[newid])];
    const LayerState &ls = states_[size_t(t.state)];
    PlanTask &pt = p.tasks[newid];
    pt.kernel = reg_ ? ls.kernels[size_t(t.kernel_slot)] : nullptr;
    pt.layer = ls.layer;
    pt.local = t.local;
    pt.arg_begin = t.arg_begin;
    pt.nargs = t.nargs;
    pt.patch_begin = uint32_t(p.patches.size());
    for (uint32_t i = t.patch_begin; i < t.patch_end; ++i)
      p.patches.push_back({tmp_patches_[i].pos, tasks_[size_t(tmp_patches_[i].task)].post});
    pt.patch_end = uint32_t(p.patches.size());
    pt.dep_begin = int32_t(p.deps.size());
    for (uint32_t i = t.dep_begin; i < t.dep_end; ++i) p.deps.push_back(tasks_[size_t(tmp_deps_[i])].post);
    pt.dep_end = int32_t(p.deps.size());
    if (pt.dep_begin == pt.dep_end) p.roots.push_back(int32_t(newid));
  }
  // LIST offsets -> pointers (the pool no longer moves).
  for (ca_arg_t &a : p.args)
    if (a.kind == CA_ARG_LIST) a.u.list.items = p.args.data() + uintptr_t(a.u.list.items);
  // Dependents (CSR) and consumer counts.
  p.dependents_off.assign(n + 1, 0);
  for (int32_t d : p.deps) p.dependents_off[size_t(d) + 1]++;
  for (size_t i = 0; i < n; ++i) p.dependents_off[i + 1] += p.dependents_off[i];
  p.dependents.resize(p.deps.size());
  std::vector<int32_t> fill(p.dependents_off.begin(), p.dependents_off.end() - 1);
  for (size_t t = 0; t < n; ++t)
    for (int32_t i = p.tasks[t].dep_begin; i < p.tasks[t].dep_end; ++i)
      p.dependents[size_t(fill[size_t(p.deps[size_t(i)])]++)] = int32_t(t);
  p.nconsumers.resize(n);
  for (size_t t = 0; t < n; ++t) p.nconsumers[t] = p.dependents_off[t + 1] - p.dependents_off[t];
  for (int32_t o : out_ids) {
    int32_t t = tasks_[size_t(o)].post;
    p.outputs.push_back(t);
    p.nconsumers[size_t(t)]++;
  }
  for (auto &s : states_) p.layers.push_back(s.ptr);
  return std::move(plan_);
}

}  // namespace

std::unique_ptr<Plan> build_plan(const Graph &g, const KeyRef *keys, size_t nkeys, const KernelRegistry *registry) {
  Builder b(g, registry);
  return b.run(keys, nkeys);
}

}  // namespace ca
