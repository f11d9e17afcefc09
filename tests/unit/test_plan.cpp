// The parallel planner (graph/plan.cpp) against the sequential walk: the same plan (task ids,
// arguments, patches, dependencies, dependents, roots, layers), the same errors, and fallbacks on
// shapes it does not split (shared tasks across the cut, several outputs).
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/big_buffer.hpp"
#include "core/error.hpp"
#include "exec/executor.hpp"
#include "graph/graph.hpp"
#include "graph/plan.hpp"
#include "kernel/kernel.hpp"

#include "support/test_kernels.hpp"

namespace {

using ca::Graph;
using ca::Index;
using ca::KeyRef;
using ca::Plan;

// Sets the planner mode for one scope.
struct Mode {
  int old;
  explicit Mode(int m) : old(ca::detail::g_plan_mode.exchange(m)) {}
  ~Mode() { ca::detail::g_plan_mode.store(old); }
};

void expect_same_arg(const Plan &a, const Plan &b, size_t i) {
  const ca_arg_t &x = a.args[i], &y = b.args[i];
  ASSERT_EQ(x.kind, y.kind) << "arg " << i;
  switch (x.kind) {
    case CA_ARG_LIST:
      ASSERT_EQ(x.u.list.len, y.u.list.len) << "arg " << i;
      EXPECT_EQ(x.u.list.items - a.args.data(), y.u.list.items - b.args.data()) << "arg " << i;
      break;
    case CA_ARG_STRING:
    case CA_ARG_BYTES:
      ASSERT_EQ(x.u.bytes.len, y.u.bytes.len) << "arg " << i;
      EXPECT_EQ(std::memcmp(x.u.bytes.data, y.u.bytes.data, x.u.bytes.len), 0) << "arg " << i;
      break;
    case CA_ARG_TUPLE:
      ASSERT_EQ(x.u.tuple.len, y.u.tuple.len) << "arg " << i;
      for (size_t k = 0; k < x.u.tuple.len; ++k) EXPECT_EQ(x.u.tuple.items[k], y.u.tuple.items[k]) << "arg " << i;
      break;
    case CA_ARG_BLOCK:
      break;  // (filled in by the executor)
    case CA_ARG_INT64:
      EXPECT_EQ(x.u.i64, y.u.i64) << "arg " << i;
      break;
    case CA_ARG_FLOAT64:
      EXPECT_EQ(x.u.f64, y.u.f64) << "arg " << i;
      break;
    default:
      break;
  }
}

void expect_same_plan(const Plan &a, const Plan &b) {
  ASSERT_EQ(a.size(), b.size());
  for (int32_t t = 0; t < a.size(); ++t) {
    const ca::PlanTask &x = a.tasks[size_t(t)], &y = b.tasks[size_t(t)];
    ASSERT_EQ(x.layer, y.layer) << "task " << t;
    ASSERT_EQ(x.local, y.local) << "task " << t;
    EXPECT_EQ(x.kernel, y.kernel) << "task " << t;
    EXPECT_EQ(x.arg_begin, y.arg_begin) << "task " << t;
    EXPECT_EQ(x.nargs, y.nargs) << "task " << t;
    EXPECT_EQ(x.patch_begin, y.patch_begin) << "task " << t;
    EXPECT_EQ(x.patch_end, y.patch_end) << "task " << t;
    EXPECT_EQ(x.dep_begin, y.dep_begin) << "task " << t;
    EXPECT_EQ(x.dep_end, y.dep_end) << "task " << t;
  }
  ASSERT_EQ(a.args.size(), b.args.size());
  for (size_t i = 0; i < a.args.size(); ++i) expect_same_arg(a, b, i);
  ASSERT_EQ(a.patches.size(), b.patches.size());
  for (size_t i = 0; i < a.patches.size(); ++i) {
    EXPECT_EQ(a.patches[i].pos, b.patches[i].pos) << "patch " << i;
    EXPECT_EQ(a.patches[i].task, b.patches[i].task) << "patch " << i;
  }
  auto vec = [](const ca::PlanVec<int32_t> &v) { return std::vector<int32_t>(v.begin(), v.end()); };
  EXPECT_EQ(vec(a.deps), vec(b.deps));
  EXPECT_EQ(vec(a.dependents_off), vec(b.dependents_off));
  EXPECT_EQ(vec(a.dependents), vec(b.dependents));
  EXPECT_EQ(vec(a.roots), vec(b.roots));
  EXPECT_EQ(vec(a.outputs), vec(b.outputs));
  EXPECT_EQ(vec(a.nconsumers), vec(b.nconsumers));
  ASSERT_EQ(a.layers.size(), b.layers.size());
  for (size_t i = 0; i < a.layers.size(); ++i) EXPECT_EQ(a.layers[i].get(), b.layers[i].get()) << "layer " << i;
  std::set<const ca::Kernel *> ka, kb;
  for (auto &k : a.kernels) ka.insert(k.get());
  for (auto &k : b.kernels) kb.insert(k.get());
  EXPECT_EQ(ka, kb);
}

struct Planner {
  ca::KernelRegistry reg;
  ca::Executor ex{2};
  Planner() {
    for (const char *k : {"ones", "add", "sum", "combine", "kb"})
      reg.add(ca::kernel_new(k, ca_test::k_sum, 1, nullptr, nullptr), false);
  }
  // Both planners; `parallel` says whether the parallel one must have built the plan itself.
  void same(const Graph &g, std::vector<KeyRef> keys, bool parallel, int64_t max_tasks = 0, bool with_reg = true,
            ca::PlanHelpers *helpers = nullptr) {
    std::unique_ptr<Plan> seq, par;
    {
      Mode m(1);
      seq = ca::build_plan(g, keys.data(), keys.size(), with_reg ? &reg : nullptr, max_tasks, &ex);
    }
    int64_t built = ca::detail::g_plan_parallel_built.load(), fell = ca::detail::g_plan_parallel_fallbacks.load();
    {
      Mode m(2);
      par = ca::build_plan(g, keys.data(), keys.size(), with_reg ? &reg : nullptr, max_tasks,
                           helpers ? helpers : &ex);
    }
    EXPECT_EQ(ca::detail::g_plan_parallel_built.load() - built, parallel ? 1 : 0);
    EXPECT_EQ(ca::detail::g_plan_parallel_fallbacks.load() - fell, parallel ? 0 : 1);
    expect_same_plan(*seq, *par);
  }
  // Both fail, with the same status and message.
  void same_error(const Graph &g, std::vector<KeyRef> keys, int64_t max_tasks = 0) {
    ca_status_t code[2];
    std::string msg[2];
    for (int mode : {1, 2}) {
      Mode m(mode);
      try {
        ca::build_plan(g, keys.data(), keys.size(), &reg, max_tasks, &ex);
        ADD_FAILURE() << "mode " << mode << ": no error";
      } catch (const ca::Error &e) {
        code[mode - 1] = e.code();
        msg[mode - 1] = e.what();
      }
    }
    EXPECT_EQ(code[0], code[1]);
    EXPECT_EQ(msg[0], msg[1]);
  }
};

// W1's shape: ones -> add -> csum (blockwise) -> partial reductions by `split` down to one block.
std::string w1_graph(Graph &g, int64_t nblocks, const char *prefix = "", int64_t split = 4) {
  std::string p = prefix;
  const int64_t nb[1] = {nblocks};
  ca_arg_t a1[1] = {ca_arg_i64(5)};
  g.add_blockwise(p + "ones", "i", "ones", a1, 1, nb);
  std::string ones = p + "ones", add = p + "add", csum = p + "csum";
  ca_arg_t a2[2] = {ca_arg_indexed(ones.c_str(), "i"), ca_arg_f64(1.0)};
  g.add_blockwise(add, "i", "add", a2, 2, nullptr);
  ca_arg_t a3[1] = {ca_arg_indexed(add.c_str(), "i")};
  g.add_blockwise(csum, "i", "sum", a3, 1, nullptr);
  std::string prev = csum;
  for (int level = 1; nblocks > 1; ++level) {
    std::string cur = p + "tree" + std::to_string(level);
    g.add_partial_reduce(cur, prev, {split}, "combine", nullptr, 0);
    nblocks = (nblocks + split - 1) / split;
    prev = cur;
  }
  return prev;
}

const Index kZero[1] = {0};

TEST(PlanParallel, W1ShapeIsBuiltInParallelAndIdentical) {
  Planner pl;
  for (int64_t n : {2, 5, 17, 1000, 20000}) {
    Graph g;
    std::string top = w1_graph(g, n);
    pl.same(g, {{top.c_str(), kZero, 1}}, true);
    pl.same(g, {{top.c_str(), kZero, 1}}, true, 0, false);  // no registry: kernels unresolved
  }
}

// r -> u0, u1, two units, each a diamond over its own task s_i: u_i -> a_i, b_i -> s_i, or with
// `deeper` u_i -> a_i -> c_i -> s_i and u_i -> b_i -> d_i -> s_i.
void two_diamonds(Graph &g, bool deeper) {
  ca_arg_t c[1] = {ca_arg_f64(1.0)};
  for (Index u = 0; u < 2; ++u) {
    Index ix[1] = {u};
    g.add_task({"s", ix, 1}, "add", c, 1);
    ca_arg_t rs[1] = {ca_arg_key("s", ix, 1)};
    const char *below_a = "s", *below_b = "s";
    if (deeper) {
      g.add_task({"c", ix, 1}, "add", rs, 1);
      g.add_task({"d", ix, 1}, "add", rs, 1);
      below_a = "c", below_b = "d";
    }
    ca_arg_t ra[1] = {ca_arg_key(below_a, ix, 1)}, rb[1] = {ca_arg_key(below_b, ix, 1)};
    g.add_task({"a", ix, 1}, "add", ra, 1);
    g.add_task({"b", ix, 1}, "add", rb, 1);
    ca_arg_t ru[2] = {ca_arg_key("a", ix, 1), ca_arg_key("b", ix, 1)};
    g.add_task({"u", ix, 1}, "add", ru, 2);
  }
  Index one[1] = {1};
  ca_arg_t rr[2] = {ca_arg_key("u", kZero, 1), ca_arg_key("u", one, 1)};
  g.add_task({"r", kZero, 1}, "add", rr, 2);
}

// Planning threads in a fixed order, one after the other: the builders' order decides which units
// the calling thread (index 0) walks in place and which ones a helper walks and the merge places.
struct SerialHelpers final : ca::PlanHelpers {
  std::vector<int32_t> order;
  explicit SerialHelpers(std::vector<int32_t> o) : order(std::move(o)) {}
  int32_t width() const override { return int32_t(order.size()); }
  void run_helpers(const std::function<void(int32_t)> &fn) override {
    for (int32_t i : order) fn(i);
  }
};

// The parallel plan equals the sequential one with the builders in either fixed order (helpers
// first: they take every unit; the caller first: it walks every unit in place) and on the pool.
void same_in_every_order(Planner &pl, const Graph &g, std::vector<KeyRef> keys) {
  SerialHelpers helpers_first({1, 2, 0}), caller_first({0, 1});
  pl.same(g, keys, true, 0, true, &helpers_first);
  pl.same(g, keys, true, 0, true, &caller_first);
  pl.same(g, keys, true);
}

TEST(PlanParallel, UnevenTreesAreCutDeepAndPlacedAsTheSequentialWalk) {
  // dask's tree reductions end in a short group (W1: 49 blocks by 16 = 16 + 16 + 16 + 1), so the
  // cut goes down until there are enough units to share; the helpers' units are placed between the
  // top tasks the caller visits after them. Helpers first (they take every unit, the caller visits
  // only top tasks), the caller first (it walks every unit in place), and the pool's own threads.
  Planner pl;
  for (int64_t split : {4, 16, 3}) {
    for (int64_t n : {2, 49, 50, 1000, 3001, 20000}) {
      Graph g;
      std::string top = w1_graph(g, n, "", split);
      SCOPED_TRACE("split " + std::to_string(split) + ", " + std::to_string(n) + " blocks");
      same_in_every_order(pl, g, {{top.c_str(), kZero, 1}});
    }
  }
}

TEST(PlanParallel, LeavesAndChainsBesideSubtreesInTheTopPart) {
  // r -> leaf, tree's top, chain -> leaf2: the frontier keeps tasks without dependencies as they
  // are (one-task units) while the subtree beside them is cut deeper.
  Planner pl;
  for (int64_t n : {3, 200, 5000}) {
    Graph g;
    std::string top = w1_graph(g, n);
    ca_arg_t c[1] = {ca_arg_f64(1.0)};
    g.add_task({"leaf", kZero, 1}, "add", c, 1);
    g.add_task({"leaf2", kZero, 1}, "add", c, 1);
    ca_arg_t rl[1] = {ca_arg_key("leaf2", kZero, 1)};
    g.add_task({"chain", kZero, 1}, "add", rl, 1);
    ca_arg_t rr[3] = {ca_arg_key("leaf", kZero, 1), ca_arg_key(top.c_str(), kZero, 1), ca_arg_key("chain", kZero, 1)};
    g.add_task({"r", kZero, 1}, "add", rr, 3);
    SCOPED_TRACE(std::to_string(n) + " blocks");
    same_in_every_order(pl, g, {{"r", kZero, 1}});
  }
}

TEST(PlanParallel, SharingBelowADeepCutRetriesTheFirstBranch) {
  // r -> u0, u1; u_i -> a_i, b_i; a_i -> c_i, b_i -> d_i; c_i and d_i -> s_i. The units of the
  // deepest distinct level (a_i, b_i) share s_i two levels down: that attempt falls back, and the
  // first branch (u0, u1: disjoint) is planned in parallel.
  Planner pl;
  Graph g;
  two_diamonds(g, true);
  int64_t fell = ca::detail::g_plan_parallel_fallbacks.load();
  SerialHelpers caller_first({0, 1});
  pl.same(g, {{"r", kZero, 1}}, true, 0, true, &caller_first);
  pl.same(g, {{"r", kZero, 1}}, true);
  EXPECT_EQ(ca::detail::g_plan_parallel_fallbacks.load(), fell);
}

TEST(PlanParallel, ATopTaskWithManyDependencies) {
  // The top part is looked at before it is walked: a task listing 100 subtrees, some of them twice
  // (before and after the 64th distinct one), has each once, in the order of first reference.
  Planner pl;
  Graph g;
  ca_arg_t c[1] = {ca_arg_f64(1.0)};
  std::vector<Index> ix(100);
  for (Index u = 0; u < 100; ++u) {
    ix[size_t(u)] = u;
    g.add_task({"leaf", &ix[size_t(u)], 1}, "add", c, 1);
    ca_arg_t rl[1] = {ca_arg_key("leaf", &ix[size_t(u)], 1)};
    g.add_task({"u", &ix[size_t(u)], 1}, "add", rl, 1);
  }
  std::vector<ca_arg_t> rr;
  for (Index u = 0; u < 100; ++u) {
    rr.push_back(ca_arg_key("u", &ix[size_t(u)], 1));
    if (u == 10 || u == 80) rr.push_back(ca_arg_key("u", &ix[3], 1));
    if (u == 90) rr.push_back(ca_arg_key("u", &ix[70], 1));
  }
  g.add_task({"r", kZero, 1}, "add", rr.data(), rr.size());
  same_in_every_order(pl, g, {{"r", kZero, 1}});
}

TEST(PlanParallel, ChainAboveTheBranch) {
  Planner pl;
  Graph g;
  std::string top = w1_graph(g, 300);
  // final2 <- final1 <- top: a chain of single-dependency tasks above the reduction.
  ca_arg_t r1[2] = {ca_arg_key(top.c_str(), kZero, 1), ca_arg_f64(2.0)};
  g.add_task({"final1", kZero, 1}, "add", r1, 2);
  ca_arg_t r2[3] = {ca_arg_key("final1", kZero, 1), ca_arg_key("final1", kZero, 1), ca_arg_str("s")};
  g.add_task({"final2", kZero, 1}, "add", r2, 3);
  pl.same(g, {{"final2", kZero, 1}}, true);
  // A request below the top: a culled graph (tree1's block 3 needs 4 blocks of each lower layer).
  Index i3[1] = {3};
  pl.same(g, {{"tree1", i3, 1}}, true);
  // A leaf: nothing to split.
  pl.same(g, {{"ones", i3, 1}}, false);
}

TEST(PlanParallel, CopiedLiteralsAndNestedListsSurviveTheBuilders) {
  Planner pl;
  Graph g;
  const int64_t n = 64;
  const int64_t nb[1] = {n};
  ca_arg_t a1[1] = {ca_arg_i64(3)};
  g.add_blockwise("ones", "i", "ones", a1, 1, nb);
  // Blockwise with the block index as a literal (copied into the plan's arena by the builder).
  ca::BlockwiseArg ref;
  ref.is_ref = true;
  ref.dep_slot = 0;
  ca::DimMap dm;
  dm.kind = ca::DimMap::Out;
  dm.out_dim = 0;
  dm.extent = n;
  ref.dims = {dm};
  ca::BlockwiseArg bi;
  bi.special = ca::BlockwiseArg::BlockIndex;
  bi.block_index = true;
  std::vector<ca::BlockwiseArg> args{ref, bi};
  g.add_layer(std::make_shared<ca::BlockwiseLayer>("bi", std::vector<Index>{n}, "kb", std::vector<std::string>{"ones"},
                                                   args));
  // Materialized tasks with nested lists mixing references and literals, two per group of 8.
  std::vector<Index> leaf(n);
  for (Index j = 0; j < n; ++j) leaf[size_t(j)] = j;
  for (Index j = 0; j < n / 8; ++j) {
    std::vector<ca_arg_t> inner;
    for (Index k = 0; k < 8; ++k) inner.push_back(ca_arg_key("bi", &leaf[size_t(j * 8 + k)], 1));
    ca_arg_t nested[3] = {ca_arg_list(inner.data(), 4), ca_arg_str("mid"), ca_arg_list(inner.data() + 4, 4)};
    ca_arg_t targs[2] = {ca_arg_list(nested, 3), ca_arg_i64(j)};
    Index ix[1] = {j};
    g.add_task({"grp", ix, 1}, "add", targs, 2);
  }
  std::vector<ca_arg_t> all;
  std::vector<Index> idx(n / 8);
  for (Index j = 0; j < n / 8; ++j) {
    idx[size_t(j)] = j;
    all.push_back(ca_arg_key("grp", &idx[size_t(j)], 1));
  }
  ca_arg_t fin[1] = {ca_arg_list(all.data(), all.size())};
  g.add_task({"fin", kZero, 1}, "sum", fin, 1);
  pl.same(g, {{"fin", kZero, 1}}, true);
  // The block-index tuples are readable after the builders are gone.
  std::unique_ptr<Plan> p;
  {
    Mode m(2);
    KeyRef k{"fin", kZero, 1};
    p = ca::build_plan(g, &k, 1, &pl.reg, 0, &pl.ex);
  }
  int found = 0;
  for (const ca::PlanTask &t : p->tasks)
    if (t.layer->name() == "bi") {
      ASSERT_EQ(t.nargs, 2u);
      const ca_arg_t &a = p->args[t.arg_begin + 1];
      ASSERT_EQ(a.kind, CA_ARG_TUPLE);
      ASSERT_EQ(a.u.tuple.len, 1u);
      EXPECT_EQ(a.u.tuple.items[0], t.local);
      ++found;
    }
  EXPECT_EQ(found, n);
}

TEST(PlanParallel, DiamondsInsideAUnitAreFine) {
  Planner pl;
  Graph g;
  two_diamonds(g, false);
  pl.same(g, {{"r", kZero, 1}}, true);
}

TEST(PlanParallel, SharedTasksAcrossUnitsFallBack) {
  Planner pl;
  {
    // A diamond across the cut: both units need s.
    Graph g;
    ca_arg_t c[1] = {ca_arg_f64(1.0)};
    g.add_task({"s", kZero, 1}, "add", c, 1);
    ca_arg_t rs[1] = {ca_arg_key("s", kZero, 1)};
    Index one[1] = {1};
    g.add_task({"a", kZero, 1}, "add", rs, 1);
    g.add_task({"a", one, 1}, "add", rs, 1);
    ca_arg_t rr[2] = {ca_arg_key("a", kZero, 1), ca_arg_key("a", one, 1)};
    g.add_task({"r", kZero, 1}, "add", rr, 2);
    pl.same(g, {{"r", kZero, 1}}, false);
  }
  {
    // Two reductions of the same blocks: every leaf is shared.
    Graph g;
    std::string t1 = w1_graph(g, 500);
    g.add_partial_reduce("other1", "csum", {8}, "combine", nullptr, 0);
    g.add_partial_reduce("other2", "other1", {100}, "combine", nullptr, 0);
    ca_arg_t rr[2] = {ca_arg_key(t1.c_str(), kZero, 1), ca_arg_key("other2", kZero, 1)};
    g.add_task({"r", kZero, 1}, "add", rr, 2);
    pl.same(g, {{"r", kZero, 1}}, false);
  }
  {
    // A unit reaching its sibling unit's root (sequentially, a task visited inside another's subtree).
    Graph g;
    ca_arg_t c[1] = {ca_arg_f64(1.0)};
    Index one[1] = {1};
    g.add_task({"a", one, 1}, "add", c, 1);
    ca_arg_t ra[1] = {ca_arg_key("a", one, 1)};
    g.add_task({"a", kZero, 1}, "add", ra, 1);
    ca_arg_t rr[2] = {ca_arg_key("a", kZero, 1), ca_arg_key("a", one, 1)};
    g.add_task({"r", kZero, 1}, "add", rr, 2);
    pl.same(g, {{"r", kZero, 1}}, false);
  }
}

TEST(PlanParallel, ATaskTwoBuildersTookFallsBack) {
  // Claims are plain stores checked after the walks: a clash found there (simulated) falls back.
  // W1's cut is deep (many units), so after a clash the planner tries once more at the first level
  // of several subtrees: one clash is survived, two fall back to the sequential walk.
  Planner pl;
  Graph g;
  std::string top = w1_graph(g, 3000);
  ca::detail::g_plan_claim_clashes.store(2);
  pl.same(g, {{top.c_str(), kZero, 1}}, false);
  EXPECT_EQ(ca::detail::g_plan_claim_clashes.load(), 0);
  ca::detail::g_plan_claim_clashes.store(1);
  pl.same(g, {{top.c_str(), kZero, 1}}, true);
  EXPECT_EQ(ca::detail::g_plan_claim_clashes.load(), 0);
  pl.same(g, {{top.c_str(), kZero, 1}}, true);
}

TEST(PlanParallel, SeveralOutputsUseTheSequentialWalk) {
  Planner pl;
  Graph g;
  std::string top = w1_graph(g, 100);
  Index i1[1] = {1};
  pl.same(g, {{top.c_str(), kZero, 1}, {"tree1", i1, 1}, {top.c_str(), kZero, 1}}, false);
}

TEST(PlanParallel, ErrorsInsideAUnitMatchTheSequentialWalk) {
  Planner pl;
  Index one[1] = {1}, two[1] = {2};
  ca_arg_t c[1] = {ca_arg_f64(1.0)};
  {
    // A cycle inside the second unit.
    Graph g;
    g.add_task({"a", kZero, 1}, "add", c, 1);
    ca_arg_t rx[1] = {ca_arg_key("y", kZero, 1)};
    ca_arg_t ry[1] = {ca_arg_key("x", kZero, 1)};
    g.add_task({"x", kZero, 1}, "add", rx, 1);
    g.add_task({"y", kZero, 1}, "add", ry, 1);
    ca_arg_t rb[1] = {ca_arg_key("x", kZero, 1)};
    g.add_task({"b", kZero, 1}, "add", rb, 1);
    ca_arg_t rr[2] = {ca_arg_key("a", kZero, 1), ca_arg_key("b", kZero, 1)};
    g.add_task({"r", kZero, 1}, "add", rr, 2);
    pl.same_error(g, {{"r", kZero, 1}});
  }
  {
    // A cycle through a unit's root, and one through the top part.
    Graph g;
    ca_arg_t ra[1] = {ca_arg_key("a", one, 1)};
    ca_arg_t ra1[1] = {ca_arg_key("a", kZero, 1)};
    g.add_task({"a", kZero, 1}, "add", ra, 1);
    g.add_task({"a", one, 1}, "add", ra1, 1);
    g.add_task({"a", two, 1}, "add", c, 1);
    ca_arg_t rr[2] = {ca_arg_key("a", kZero, 1), ca_arg_key("a", two, 1)};
    g.add_task({"r", kZero, 1}, "add", rr, 2);
    pl.same_error(g, {{"r", kZero, 1}});
  }
  {
    // A cycle back into the top part's chain.
    Graph g;
    ca_arg_t rc[1] = {ca_arg_key("mid", kZero, 1)};
    g.add_task({"a", kZero, 1}, "add", rc, 1);
    g.add_task({"a", one, 1}, "add", c, 1);
    ca_arg_t rm[2] = {ca_arg_key("a", kZero, 1), ca_arg_key("a", one, 1)};
    g.add_task({"mid", kZero, 1}, "add", rm, 2);
    ca_arg_t rt[1] = {ca_arg_key("mid", kZero, 1)};
    g.add_task({"top", kZero, 1}, "add", rt, 1);
    pl.same_error(g, {{"top", kZero, 1}});
  }
}

TEST(PlanParallel, MoreErrorsInsideAUnit) {
  Planner pl;
  ca_arg_t c[1] = {ca_arg_f64(1.0)};
  Index one[1] = {1};
  auto two_units = [&](Graph &g, const char *kernel_b, ca_arg_t *args_b, size_t nb) {
    g.add_task({"a", kZero, 1}, "add", c, 1);
    g.add_task({"b", kZero, 1}, kernel_b, args_b, nb);
    ca_arg_t rr[2] = {ca_arg_key("a", kZero, 1), ca_arg_key("b", kZero, 1)};
    g.add_task({"r", kZero, 1}, "add", rr, 2);
  };
  {
    Graph g;  // a missing key
    ca_arg_t rb[1] = {ca_arg_key("a", one, 1)};
    two_units(g, "add", rb, 1);
    pl.same_error(g, {{"r", kZero, 1}});
  }
  {
    Graph g;  // a missing layer
    ca_arg_t rb[1] = {ca_arg_key("nope", one, 1)};
    two_units(g, "add", rb, 1);
    pl.same_error(g, {{"r", kZero, 1}});
  }
  {
    Graph g;  // an unknown kernel
    two_units(g, "unregistered", c, 1);
    pl.same_error(g, {{"r", kZero, 1}});
  }
  {
    Graph g;  // a kernel version the registry does not have
    auto l = std::make_shared<ca::MaterializedLayer>("b", 1);
    l->add_task(kZero, "add", c, 1);
    l->set_kernel_versions({7});
    g.add_layer(l);
    g.add_task({"a", kZero, 1}, "add", c, 1);
    ca_arg_t rr[2] = {ca_arg_key("a", kZero, 1), ca_arg_key("b", kZero, 1)};
    g.add_task({"r", kZero, 1}, "add", rr, 2);
    pl.same_error(g, {{"r", kZero, 1}});
  }
  {
    Graph g;  // the task budget
    std::string top = w1_graph(g, 1000);
    pl.same_error(g, {{top.c_str(), kZero, 1}}, 2000);
    pl.same(g, {{top.c_str(), kZero, 1}}, true, 3334);  // exactly the budget (3,334 tasks)
    pl.same_error(g, {{top.c_str(), kZero, 1}}, 3333);
  }
}

TEST(PlanParallel, ComputeThroughThePool) {
  // The executor's own helpers; also several computes planning at once on one pool.
  ca::KernelRegistry reg;
  for (const char *k : {"ones", "add", "sum", "combine"})
    reg.add(ca::kernel_new(k, ca_test::k_sum, 1, nullptr, nullptr), false);
  Graph g;
  std::string top = w1_graph(g, 4000);
  Mode m(2);
  ca::Executor ex(2);
  int64_t built = ca::detail::g_plan_parallel_built.load();
  std::vector<std::thread> ts;
  std::atomic<int> ok{0};
  for (int i = 0; i < 3; ++i)
    ts.emplace_back([&] {
      for (int r = 0; r < 3; ++r) {
        KeyRef k{top.c_str(), kZero, 1};
        auto p = ca::build_plan(g, &k, 1, &reg, 0, &ex);
        ca::RunOptions o;
        auto outs = ex.run(*p, o);
        // k_sum sums its arguments: ones(5) -> 5, +1 -> 6 per block.
        if (outs.size() == 1 && *static_cast<double *>(ca_block_data(outs[0])) == 6.0 * 4000) ok++;
        for (auto *b : outs) ca_block_free(b);
      }
    });
  for (auto &t : ts) t.join();
  EXPECT_EQ(ok.load(), 9);
  EXPECT_EQ(ca::detail::g_plan_parallel_built.load() - built, 9);
}

TEST(PlanParallel, RunHelpersCallsEachIndexAtMostOnce) {
  for (int threads : {0, 1, 2, 3}) {
    ca::Executor ex(threads);
    EXPECT_EQ(ex.width(), std::max(1, threads));
    for (int rep = 0; rep < 50; ++rep) {
      std::vector<std::atomic<int>> calls(size_t(ex.width()));
      ex.run_helpers([&](int32_t i) {
        calls[size_t(i)].fetch_add(1);
        if (i == 0) std::this_thread::sleep_for(std::chrono::microseconds(rep % 5 == 0 ? 2000 : 0));
      });
      EXPECT_EQ(calls[0].load(), 1);
      for (auto &c : calls) EXPECT_LE(c.load(), 1);
    }
  }
}

}  // namespace

TEST(PlanParallel, AHelperFaultsItsArraysInBeforeItWalksASliceAtATime) {
  // A helper's fresh arrays are faulted in whole before it takes a unit (so the pages do not fault a
  // few at a time in every later plan), a slice at a time while units remain; what is left when the
  // slices run out (here: a test hook limits them, as the main builder taking every unit does) waits
  // for the next plan. The plans stay the sequential walk's.
  Planner pl;
  Graph g;
  std::string top = w1_graph(g, 40000);
  SerialHelpers helpers_first({1, 0});
  ca::detail::big_cache_set_limit(-1);  // the default cap (whatever CA_BLOCK_CACHE says)
  (void)ca::detail::big_cache_trim();
  EXPECT_EQ(ca::detail::plan_scratch_unfaulted(1), -1);  // nothing kept
  const bool kept = ca::detail::big_cache_limit() > 0;   // (ASan builds keep nothing)
  ca::detail::g_plan_prefault_slices = 1;
  pl.same(g, {{top.c_str(), kZero, 1}}, true, 0, true, &helpers_first);
  const int64_t left1 = ca::detail::plan_scratch_unfaulted(1);
  if (!kept) {
    EXPECT_EQ(left1, -1);
  } else {
    EXPECT_GT(left1, 0) << "one 256 KiB slice faulted in all of a 40,000-block W1 helper's arrays";
    pl.same(g, {{top.c_str(), kZero, 1}}, true, 0, true, &helpers_first);  // one more slice
    const int64_t left2 = ca::detail::plan_scratch_unfaulted(1);
    EXPECT_GE(left2, 0);
    EXPECT_LT(left2, left1);
    ca::detail::g_plan_prefault_slices = -1;
    pl.same(g, {{top.c_str(), kZero, 1}}, true, 0, true, &helpers_first);  // the rest
    EXPECT_EQ(ca::detail::plan_scratch_unfaulted(1), 0);
    pl.same(g, {{top.c_str(), kZero, 1}}, true, 0, true, &helpers_first);  // stays so
    EXPECT_EQ(ca::detail::plan_scratch_unfaulted(1), 0);
  }
  ca::detail::g_plan_prefault_slices = -1;
  (void)ca::detail::big_cache_trim();
  EXPECT_EQ(ca::detail::plan_scratch_unfaulted(1), -1);
}

TEST(PlanParallel, HelperArraysAreKeptForTheNextPlanAndTrimmed) {
  // A helper's arrays stay with its index from one parallel plan to the next (their pages already
  // faulted in), within the big-buffer cache's cap; a trim or "block-cache" 0 gives them back.
  Planner pl;
  Graph g;
  std::string top = w1_graph(g, 20000);
  SerialHelpers helpers_first({1, 0});  // index 1 walks every unit
  ca::detail::big_cache_set_limit(-1);  // the default cap (whatever CA_BLOCK_CACHE says)
  (void)ca::detail::big_cache_trim();
  EXPECT_EQ(ca::detail::plan_scratch_bytes(), 0);
  pl.same(g, {{top.c_str(), kZero, 1}}, true, 0, true, &helpers_first);
  const bool kept = ca::detail::big_cache_limit() > 0;  // (ASan builds keep nothing)
  const void *tasks = ca::detail::plan_scratch_tasks(1);
  const int64_t bytes = ca::detail::plan_scratch_bytes();
  EXPECT_EQ(tasks != nullptr, kept);
  EXPECT_EQ(bytes > 0, kept);
  pl.same(g, {{top.c_str(), kZero, 1}}, true, 0, true, &helpers_first);  // the same plan again
  EXPECT_EQ(ca::detail::plan_scratch_tasks(1), tasks);                     // on the same memory
  EXPECT_EQ(ca::detail::plan_scratch_bytes(), bytes);
  EXPECT_EQ(ca::detail::plan_scratch_tasks(0), nullptr);  // (the caller's arrays are the plan's)
  (void)ca::detail::big_cache_trim();
  EXPECT_EQ(ca::detail::plan_scratch_bytes(), 0);
  EXPECT_EQ(ca::detail::plan_scratch_tasks(1), nullptr);
  ca::detail::big_cache_set_limit(0);  // off: nothing is kept
  pl.same(g, {{top.c_str(), kZero, 1}}, true, 0, true, &helpers_first);
  EXPECT_EQ(ca::detail::plan_scratch_bytes(), 0);
  ca::detail::big_cache_set_limit(-1);
  pl.same(g, {{top.c_str(), kZero, 1}}, true, 0, true, &helpers_first);
  EXPECT_EQ(ca::detail::plan_scratch_bytes() > 0, kept);
  ca::detail::big_cache_set_limit(-1);  // (set_limit gives the kept arrays back too)
  EXPECT_EQ(ca::detail::plan_scratch_bytes(), 0);
}
