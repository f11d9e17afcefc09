// Executor and graph end to end through the C API, with kernels defined here.
#include <chunkarray/chunkarray.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/block.hpp"
#include "exec/executor.hpp"

#include "support/test_kernels.hpp"

namespace {

using ca_test::k_ones;
constexpr auto k_add = ca_test::k_sum;
using ca_test::sum_arg;
using ca_test::scalar;

// ---- kernels -------------------------------------------------------------------------------------

// const(v): 0-d float64 block
ca_status_t k_const(ca_block_t **out, const ca_arg_t *a, size_t n, ca_kernel_ctx_t *kc, void *) {
  if (n != 1 || (a[0].kind != CA_ARG_FLOAT64 && a[0].kind != CA_ARG_INT64)) {
    ca_kernel_set_error(kc, "const takes one number");
    return CA_EINVAL;
  }
  ca_status_t st = ca_block_new(out, CA_FLOAT64, 0, nullptr);
  if (st) return st;
  *static_cast<double *>(ca_block_data(*out)) = a[0].kind == CA_ARG_FLOAT64 ? a[0].u.f64 : double(a[0].u.i64);
  return CA_OK;
}

// addc(block, c): block + c
ca_status_t k_addc(ca_block_t **out, const ca_arg_t *a, size_t, ca_kernel_ctx_t *, void *) {
  const ca_block_t *b = a[0].u.block;
  ca_status_t st = ca_block_new(out, CA_FLOAT64, ca_block_ndim(b), ca_block_shape(b));
  if (st) return st;
  const double *s = static_cast<const double *>(ca_block_data(b));
  double *d = static_cast<double *>(ca_block_data(*out));
  for (int64_t i = 0; i < ca_block_size(b); ++i) d[i] = s[i] + a[1].u.f64;
  return CA_OK;
}

// fail_if(x, bad): fails when its key index equals bad
ca_status_t k_fail_at(ca_block_t **out, const ca_arg_t *a, size_t n, ca_kernel_ctx_t *kc, void *ud) {
  auto *count = static_cast<std::atomic<int> *>(ud);
  if (count) count->fetch_add(1);
  int32_t ni = 0;
  const int64_t *idx = ca_kernel_key_index(kc, &ni);
  if (ni == 1 && idx[0] == a[n - 1].u.i64) {
    ca_kernel_set_error(kc, "deliberate failure at block 7");
    return CA_EKERNEL;
  }
  // Other blocks take a little time, so "no further task starts after the failure" is observable
  // whatever the scheduling (all 1000 would take >= 100 ms on 2 threads).
  std::this_thread::sleep_for(std::chrono::microseconds(200));
  return k_add(out, a, n - 1, kc, nullptr);
}

// slow(x): sleeps 2 ms, polls cancellation
// const, after a short pause: the roots of a run finish at different times.
ca_status_t k_slow_const(ca_block_t **out, const ca_arg_t *a, size_t n, ca_kernel_ctx_t *kc, void *) {
  std::this_thread::sleep_for(std::chrono::microseconds(50 + 97 * (int64_t(scalar(a[0])) % 7)));
  return k_const(out, a, n, kc, nullptr);
}

ca_status_t k_slow(ca_block_t **out, const ca_arg_t *a, size_t n, ca_kernel_ctx_t *kc, void *) {
  for (int i = 0; i < 20 && !ca_kernel_cancelled(kc); ++i) std::this_thread::sleep_for(std::chrono::microseconds(100));
  return k_add(out, a, n, kc, nullptr);
}

struct Env {
  ca_context_t *ctx = nullptr;
  ca_graph_t *g = nullptr;
  explicit Env(int threads) {
    ca_context_options_t o = CA_CONTEXT_OPTIONS_INIT;
    o.num_threads = threads;
    EXPECT_EQ(ca_context_new(&ctx, &o), CA_OK);
    EXPECT_EQ(ca_context_register(ctx, "const", k_const, nullptr), CA_OK);
    EXPECT_EQ(ca_context_register(ctx, "add", k_add, nullptr), CA_OK);
    EXPECT_EQ(ca_context_register(ctx, "ones", k_ones, nullptr), CA_OK);
    EXPECT_EQ(ca_context_register(ctx, "addc", k_addc, nullptr), CA_OK);
    EXPECT_EQ(ca_context_register(ctx, "slow", k_slow, nullptr), CA_OK);
    EXPECT_EQ(ca_context_register(ctx, "slow_const", k_slow_const, nullptr), CA_OK);
    EXPECT_EQ(ca_graph_new(&g), CA_OK);
  }
  ~Env() {
    ca_graph_free(g);
    ca_context_free(ctx);
  }
  double compute1(const char *name, std::vector<int64_t> idx, ca_status_t expect = CA_OK) {
    ca_key_t k{name, idx.data(), int32_t(idx.size())};
    ca_block_t *r = reinterpret_cast<ca_block_t *>(0x1);
    ca_status_t st = ca_compute(&r, ctx, g, &k, 1, nullptr);
    EXPECT_EQ(st, expect) << ca_last_error_message();
    if (st != CA_OK) {
      EXPECT_EQ(r, nullptr);
      return -1;
    }
    double v = *static_cast<double *>(ca_block_data(r));
    ca_block_free(r);
    return v;
  }
};

// Layers leaf, mid, top: nblocks blocks of kernel(arg), summed by `combine` in two levels of partial
// reductions (split1, then split2).
struct SumTree {
  const char *leaf, *mid, *top;
  const char *kernel, *combine;
  ca_arg_t arg;
};
void sum_tree(Env &e, const SumTree &t, int64_t nblocks, int64_t split1, int64_t split2) {
  int64_t nb[1] = {nblocks};
  ca_blockwise_options_t bo = CA_BLOCKWISE_OPTIONS_INIT;
  bo.numblocks = nb;
  ASSERT_EQ(ca_graph_add_blockwise(e.g, t.leaf, "i", t.kernel, &t.arg, 1, &bo), CA_OK);
  ASSERT_EQ(ca_graph_add_partial_reduce(e.g, t.mid, t.leaf, &split1, 1, t.combine, nullptr, 0), CA_OK);
  ASSERT_EQ(ca_graph_add_partial_reduce(e.g, t.top, t.mid, &split2, 1, t.combine, nullptr, 0), CA_OK);
}

// Layers ones (nblocks blocks of `len` ones), f = fail_at(ones, bad) (kernel "fail_at" must be
// registered: it fails at block `bad`) and total, a partial sum of f by `split`.
void failing_sum(Env &e, const char *ones, const char *total, int64_t nblocks, int64_t len, int64_t bad,
                 int64_t split) {
  ca_arg_t onesargs[1] = {ca_arg_i64(len)};
  int64_t nb[1] = {nblocks};
  ca_blockwise_options_t bo = CA_BLOCKWISE_OPTIONS_INIT;
  bo.numblocks = nb;
  ASSERT_EQ(ca_graph_add_blockwise(e.g, ones, "i", "ones", onesargs, 1, &bo), CA_OK);
  ca_arg_t fargs[2] = {ca_arg_indexed(ones, "i"), ca_arg_i64(bad)};
  ASSERT_EQ(ca_graph_add_blockwise(e.g, "f", "i", "fail_at", fargs, 2, nullptr), CA_OK);
  ASSERT_EQ(ca_graph_add_partial_reduce(e.g, total, "f", &split, 1, "add", nullptr, 0), CA_OK);
}


class ExecutorTest : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override { live_ = ca::block_live_count(); }
  void TearDown() override { EXPECT_EQ(ca::block_live_count(), live_) << "blocks leaked"; }
  int64_t live_ = 0;
};

TEST_P(ExecutorTest, Diamond) {
  Env e(GetParam());
  int64_t z = 0;
  ca_arg_t c = ca_arg_f64(2.0);
  ca_key_t a{"a", &z, 1}, b{"b", &z, 1}, cc{"c", &z, 1}, d{"d", &z, 1};
  ASSERT_EQ(ca_graph_add_task(e.g, &a, "const", &c, 1), CA_OK);
  ca_arg_t ra[2] = {ca_arg_key("a", &z, 1), ca_arg_f64(1.0)};
  ASSERT_EQ(ca_graph_add_task(e.g, &b, "add", ra, 2), CA_OK);   // 3
  ca_arg_t rb[2] = {ca_arg_key("a", &z, 1), ca_arg_key("a", &z, 1)};
  ASSERT_EQ(ca_graph_add_task(e.g, &cc, "add", rb, 2), CA_OK);  // 4 (same key twice)
  ca_arg_t rd[2] = {ca_arg_key("b", &z, 1), ca_arg_key("c", &z, 1)};
  ASSERT_EQ(ca_graph_add_task(e.g, &d, "add", rd, 2), CA_OK);   // 7
  EXPECT_DOUBLE_EQ(e.compute1("d", {0}), 7.0);
  EXPECT_DOUBLE_EQ(e.compute1("c", {0}), 4.0);
  // several keys at once, one repeated
  ca_key_t keys[3] = {d, b, d};
  ca_block_t *res[3];
  ASSERT_EQ(ca_compute(res, e.ctx, e.g, keys, 3, nullptr), CA_OK);
  EXPECT_DOUBLE_EQ(*static_cast<double *>(ca_block_data(res[0])), 7.0);
  EXPECT_DOUBLE_EQ(*static_cast<double *>(ca_block_data(res[1])), 3.0);
  EXPECT_DOUBLE_EQ(*static_cast<double *>(ca_block_data(res[2])), 7.0);
  for (auto *r : res) ca_block_free(r);
}

// Lists at the top level and nested, empty ones, and references inside them: the planner places
// each list's items after its task's arguments and turns their offsets into pointers at the end
// (from the positions it recorded). Every item must arrive, for every task.
TEST_P(ExecutorTest, NestedListArgumentsReachTheKernel) {
  Env e(GetParam());
  constexpr int64_t N = 200;
  double expect_total = 0;
  std::vector<ca_arg_t> finals;
  std::vector<int64_t> idx(N);
  for (int64_t i = 0; i < N; ++i) {
    idx[size_t(i)] = i;
    ca_key_t v{"v", &idx[size_t(i)], 1};
    ca_arg_t c = ca_arg_i64(i + 1);
    ASSERT_EQ(ca_graph_add_task(e.g, &v, "const", &c, 1), CA_OK);
  }
  for (int64_t i = 0; i < N; ++i) {
    int64_t next = (i + 1) % N;
    ca_arg_t empty[1] = {ca_arg_none()};
    ca_arg_t inner[3] = {ca_arg_f64(0.5), ca_arg_list(empty, 0), ca_arg_key("v", &idx[size_t(next)], 1)};
    ca_arg_t outer[3] = {ca_arg_key("v", &idx[size_t(i)], 1), ca_arg_list(inner, 3), ca_arg_f64(2.0)};
    ca_arg_t deep0[1] = {ca_arg_key("v", &idx[size_t(i)], 1)};
    ca_arg_t deep1[1] = {ca_arg_list(deep0, 1)};
    ca_arg_t deep2[1] = {ca_arg_list(deep1, 1)};
    ca_arg_t args[4] = {ca_arg_list(outer, 3), ca_arg_f64(1.0), ca_arg_list(deep2, 1), ca_arg_list(empty, 0)};
    ca_key_t t{"t", &idx[size_t(i)], 1};
    ASSERT_EQ(ca_graph_add_task(e.g, &t, "add", args, 4), CA_OK);
    double want = double(i + 1) + 0.5 + double(next + 1) + 2.0 + 1.0 + double(i + 1);
    EXPECT_DOUBLE_EQ(e.compute1("t", {i}), want) << "task " << i;
    expect_total += want;
    finals.push_back(ca_arg_key("t", &idx[size_t(i)], 1));
  }
  int64_t z = 0;
  ca_key_t s{"s", &z, 1};
  ca_arg_t all = ca_arg_list(finals.data(), finals.size());
  ASSERT_EQ(ca_graph_add_task(e.g, &s, "add", &all, 1), CA_OK);
  EXPECT_DOUBLE_EQ(e.compute1("s", {0}), expect_total);
}

TEST_P(ExecutorTest, DeepChainNoStackOverflow) {
  Env e(GetParam());
  const int64_t n = 100000;
  int64_t z = 0;
  ca_key_t k0{"x", &z, 1};
  ca_arg_t one = ca_arg_f64(1.0);
  ASSERT_EQ(ca_graph_add_task(e.g, &k0, "const", &one, 1), CA_OK);
  for (int64_t i = 1; i < n; ++i) {
    int64_t prev = i - 1;
    ca_key_t k{"x", &i, 1};
    ca_arg_t args[2] = {ca_arg_key("x", &prev, 1), ca_arg_f64(1.0)};
    ASSERT_EQ(ca_graph_add_task(e.g, &k, "add", args, 2), CA_OK);
  }
  EXPECT_DOUBLE_EQ(e.compute1("x", {n - 1}), double(n));
}

TEST_P(ExecutorTest, FanOutFanInMillion) {
  // 1e6 leaves from one source, summed by a symbolic tree: checks the count exactly.
  Env e(GetParam());
  int64_t z = 0;
  ca_key_t src{"src", &z, 1};
  ca_arg_t one = ca_arg_f64(1.0);
  ASSERT_EQ(ca_graph_add_task(e.g, &src, "const", &one, 1), CA_OK);
  int64_t nb[1] = {1000000};
  ca_blockwise_options_t bo = CA_BLOCKWISE_OPTIONS_INIT;
  bo.numblocks = nb;
  ca_arg_t bargs[2] = {ca_arg_indexed("src", "z"), ca_arg_f64(0.0)};
  // "z" is contracted? no: the source has one block, so broadcast over the new letter i.
  bargs[0] = ca_arg_indexed("src", "i");
  ASSERT_EQ(ca_graph_add_blockwise(e.g, "leaf", "i", "add", bargs, 2, &bo), CA_OK) << ca_last_error_message();
  const char *prev = "leaf";
  std::vector<std::string> names;
  names.reserve(64);  // prev points into it
  int64_t blocks = 1000000;
  int level = 0;
  while (blocks > 1) {
    names.push_back("tree-" + std::to_string(level++));
    int64_t split = 16;
    ASSERT_EQ(ca_graph_add_partial_reduce(e.g, names.back().c_str(), prev, &split, 1, "add", nullptr, 0), CA_OK);
    prev = names.back().c_str();
    blocks = (blocks + 15) / 16;
  }
  EXPECT_DOUBLE_EQ(e.compute1(prev, {0}), 1e6);
}

TEST_P(ExecutorTest, W1ShapedGraph) {
  // (ones(1000, chunks=5) + 1).sum() with a split_every=4 tree: 200 blocks.
  Env e(GetParam());
  ca_arg_t onesargs[1] = {ca_arg_i64(5)};
  int64_t nb[1] = {200};
  ca_blockwise_options_t bo = CA_BLOCKWISE_OPTIONS_INIT;
  bo.numblocks = nb;
  ASSERT_EQ(ca_graph_add_blockwise(e.g, "ones", "i", "ones", onesargs, 1, &bo), CA_OK);
  ca_arg_t addargs[2] = {ca_arg_indexed("ones", "i"), ca_arg_f64(1.0)};
  ASSERT_EQ(ca_graph_add_blockwise(e.g, "add", "i", "addc", addargs, 2, nullptr), CA_OK);
  ca_arg_t sumargs[1] = {ca_arg_indexed("add", "i")};
  ASSERT_EQ(ca_graph_add_blockwise(e.g, "chunk", "i", "add", sumargs, 1, nullptr), CA_OK);
  int64_t split = 4;
  ASSERT_EQ(ca_graph_add_partial_reduce(e.g, "p0", "chunk", &split, 1, "add", nullptr, 0), CA_OK);  // 50
  ASSERT_EQ(ca_graph_add_partial_reduce(e.g, "p1", "p0", &split, 1, "add", nullptr, 0), CA_OK);     // 13
  ASSERT_EQ(ca_graph_add_partial_reduce(e.g, "p2", "p1", &split, 1, "add", nullptr, 0), CA_OK);     // 4
  ASSERT_EQ(ca_graph_add_partial_reduce(e.g, "p3", "p2", &split, 1, "add", nullptr, 0), CA_OK);     // 1
  EXPECT_EQ(ca_graph_num_tasks(e.g), 200 * 3 + 50 + 13 + 4 + 1);
  EXPECT_DOUBLE_EQ(e.compute1("p3", {0}), 2000.0);
}

TEST_P(ExecutorTest, KernelFailureCancelsAndFreesEverything) {
  Env e(GetParam());
  std::atomic<int> calls{0};
  ca_kernel_options_t ko = CA_KERNEL_OPTIONS_INIT;
  ko.user_data = &calls;
  ASSERT_EQ(ca_context_register(e.ctx, "fail_at", k_fail_at, &ko), CA_OK);
  failing_sum(e, "ones", "total", 1000, 100, 7, 1000);
  e.compute1("total", {0}, CA_EKERNEL);
  std::string msg = ca_last_error_message();
  EXPECT_NE(msg.find("deliberate failure at block 7"), std::string::npos) << msg;
  EXPECT_NE(msg.find("('f', 7)"), std::string::npos) << msg;
  // Not every task ran: the failure stopped new ones (priority order runs block 7 early).
  EXPECT_LT(calls.load(), 1000);
}

TEST_P(ExecutorTest, CancelFromAnotherThread) {
  Env e(GetParam());
  ca_arg_t cargs[1] = {ca_arg_f64(1.0)};
  int64_t nb[1] = {20000};
  ca_blockwise_options_t bo = CA_BLOCKWISE_OPTIONS_INIT;
  bo.numblocks = nb;
  ASSERT_EQ(ca_graph_add_blockwise(e.g, "s", "i", "slow", cargs, 1, &bo), CA_OK);  // ~40 s if not cancelled
  int64_t split = 20000;
  ASSERT_EQ(ca_graph_add_partial_reduce(e.g, "total", "s", &split, 1, "add", nullptr, 0), CA_OK);
  ca_cancel_t *cancel;
  ASSERT_EQ(ca_cancel_new(&cancel), CA_OK);
  ca_compute_options_t co = CA_COMPUTE_OPTIONS_INIT;
  co.cancel = cancel;
  std::thread t([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    ca_cancel_request(cancel);
  });
  int64_t z = 0;
  ca_key_t k{"total", &z, 1};
  ca_block_t *r = nullptr;
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(ca_compute(&r, e.ctx, e.g, &k, 1, &co), CA_ECANCELED);
  auto secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  t.join();
  EXPECT_EQ(r, nullptr);
  EXPECT_LT(secs, 5.0);
  ca_cancel_free(cancel);
}

void progress_cb(int64_t done, int64_t total, void *ud) {
  auto *v = static_cast<std::vector<std::pair<int64_t, int64_t>> *>(ud);
  v->push_back({done, total});
}

TEST_P(ExecutorTest, ProgressReachesTotal) {
  Env e(GetParam());
  ca_arg_t cargs[1] = {ca_arg_f64(1.0)};
  int64_t nb[1] = {300};
  ca_blockwise_options_t bo = CA_BLOCKWISE_OPTIONS_INIT;
  bo.numblocks = nb;
  ASSERT_EQ(ca_graph_add_blockwise(e.g, "s", "i", "slow", cargs, 1, &bo), CA_OK);
  int64_t split = 300;
  ASSERT_EQ(ca_graph_add_partial_reduce(e.g, "total", "s", &split, 1, "add", nullptr, 0), CA_OK);
  std::vector<std::pair<int64_t, int64_t>> calls;
  ca_compute_options_t co = CA_COMPUTE_OPTIONS_INIT;
  co.progress = progress_cb;
  co.progress_user_data = &calls;
  co.progress_interval_us = 10000;
  int64_t z = 0;
  ca_key_t k{"total", &z, 1};
  ca_block_t *r = nullptr;
  ASSERT_EQ(ca_compute(&r, e.ctx, e.g, &k, 1, &co), CA_OK);
  EXPECT_DOUBLE_EQ(*static_cast<double *>(ca_block_data(r)), 300.0);
  ca_block_free(r);
  ASSERT_FALSE(calls.empty());
  EXPECT_EQ(calls.back().first, 301);
  EXPECT_EQ(calls.back().second, 301);
  for (size_t i = 1; i < calls.size(); ++i) EXPECT_LE(calls[i - 1].first, calls[i].first);
}

// Four threads computing p1 (a sum tree) `reps` times each: how many got the expected total.
int concurrent_computes(Env &e, int reps, double expected) {
  std::vector<std::thread> ts;
  std::atomic<int> ok{0};
  for (int i = 0; i < 4; ++i)
    ts.emplace_back([&] {
      for (int rep = 0; rep < reps; ++rep) {
        int64_t z = 0;
        ca_key_t k{"p1", &z, 1};
        ca_block_t *r = nullptr;
        if (ca_compute(&r, e.ctx, e.g, &k, 1, nullptr) == CA_OK && *static_cast<double *>(ca_block_data(r)) == expected)
          ok++;
        ca_block_free(r);
      }
    });
  for (auto &t : ts) t.join();
  return ok.load();
}

TEST_P(ExecutorTest, ConcurrentComputesShareThePool) {
  Env e(GetParam());
  sum_tree(e, {"ones", "p0", "p1", "ones", "add", ca_arg_i64(10)}, 5000, 8, 1000);
  EXPECT_EQ(concurrent_computes(e, 5, 50000.0), 20);
}

// Regression (a hang): a computation posted while every worker was asleep or lent to another
// computation's caller woke no thread (a lent worker does not count as wakeable), and the caller
// that had it gave it back without waking it when its own run ended: the posted run waited for
// ever. With one worker and four threads computing five times each (ConcurrentComputesShareThePool
// above), 4 of 150 runs hung under CA_PLAN_PARALLEL=1 beside a parallel build; 0 of 150 with the fix.
// A stress test of the same: one and two workers, four threads computing 60 times each (the window
// is narrow: it did not hang in 8 runs without the fix on this machine; a hang runs the suite into
// its timeout).
TEST(ExecutorStress, ConcurrentComputesOnASmallPoolAllFinish) {
  for (int threads : {1, 2}) {
    Env e(threads);
    sum_tree(e, {"ones", "p0", "p1", "ones", "add", ca_arg_i64(10)}, 500, 8, 100);
    EXPECT_EQ(concurrent_computes(e, 60, 5000.0), 240) << threads << " workers";
  }
}

// Regression: a run was declared complete by reading the in-flight count and then the root cursor.
// A worker claiming the last roots raises the count and then advances the cursor, so a finishing
// worker preempted between its two reads saw a zero count and an exhausted cursor while those roots
// were still to run: compute returned early and the plan was freed under the running task (ASan:
// heap-use-after-free in unit/reduce under parallel test load). A stress test: the probe sleeps
// between the two reads; with the old order this crashed in about 1 of 4 runs at 4 workers
// (0 of 60 runs fail with the fix).
TEST_P(ExecutorTest, CompletionWaitsForEveryClaimedRoot) {
  Env e(GetParam());
  constexpr int64_t kRoots = 202;  // tiny tasks: the workers are often all between claims at once
  std::vector<ca_arg_t> refs;
  std::vector<int64_t> idx(kRoots);
  for (int64_t i = 0; i < kRoots; ++i) {
    idx[size_t(i)] = i;
    ca_key_t k{"leaf", &idx[size_t(i)], 1};
    ca_arg_t c = ca_arg_f64(double(i + 1));
    ASSERT_EQ(ca_graph_add_task(e.g, &k, "const", &c, 1), CA_OK);
    refs.push_back(ca_arg_key("leaf", &idx[size_t(i)], 1));
  }
  int64_t z = 0;
  ca_key_t total{"total", &z, 1};
  ASSERT_EQ(ca_graph_add_task(e.g, &total, "add", refs.data(), refs.size()), CA_OK);
  static std::atomic<int> calls{0};
  struct Probe {
    Probe() {
      ca::detail::g_completion_probe = [] {
        std::this_thread::sleep_for(std::chrono::microseconds(5 + 37 * (calls.fetch_add(1) % 11)));
      };
    }
    ~Probe() { ca::detail::g_completion_probe = nullptr; }
  } probe;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(800);
  int bad = 0, runs = 0;
  while (std::chrono::steady_clock::now() < deadline && bad == 0) {
    ca_block_t *r = nullptr;
    if (ca_compute(&r, e.ctx, e.g, &total, 1, nullptr) != CA_OK || !r ||
        *static_cast<double *>(ca_block_data(r)) != double(kRoots * (kRoots + 1) / 2))
      ++bad;
    ca_block_free(r);
    ++runs;
  }
  EXPECT_EQ(bad, 0) << "a compute returned before its tasks ran (" << runs << " computes)";
}

// tid(x...): sum of its arguments; records the thread it ran on (ud: a ThreadLog).
struct ThreadLog {
  std::mutex mu;
  std::vector<std::thread::id> ids;
  int slow_ms = 0;
};
ca_status_t k_tid(ca_block_t **out, const ca_arg_t *a, size_t n, ca_kernel_ctx_t *kc, void *ud) {
  auto *log = static_cast<ThreadLog *>(ud);
  {
    std::lock_guard<std::mutex> lk(log->mu);
    log->ids.push_back(std::this_thread::get_id());
  }
  if (log->slow_ms) std::this_thread::sleep_for(std::chrono::milliseconds(log->slow_ms));
  return k_add(out, a, n, kc, nullptr);
}

// nested(x): computes key ("inner", 0) of the graph in ud (a NestedEnv) on the same context from
// inside the kernel, and returns x + that.
struct NestedEnv {
  ca_context_t *ctx;
  ca_graph_t *g;
};
ca_status_t k_nested(ca_block_t **out, const ca_arg_t *a, size_t n, ca_kernel_ctx_t *kc, void *ud) {
  auto *env = static_cast<NestedEnv *>(ud);
  int64_t z = 0;
  ca_key_t k{"inner", &z, 1};
  ca_block_t *r = nullptr;
  ca_status_t st = ca_compute(&r, env->ctx, env->g, &k, 1, nullptr);
  if (st) {
    ca_kernel_set_error(kc, "the nested compute failed");
    return st;
  }
  st = ca_block_new(out, CA_FLOAT64, 0, nullptr);
  if (!st) *static_cast<double *>(ca_block_data(*out)) = sum_arg(a[0]) + *static_cast<double *>(ca_block_data(r));
  ca_block_free(r);
  (void)n;
  return st;
}

// Kernel "tid" logging into `log`; blocks "a" (1.0 each) summed into "t" and "total" by "tid".
void tid_tree(Env &e, ThreadLog &log, int64_t nblocks, int64_t split1, int64_t split2) {
  ca_kernel_options_t ko = CA_KERNEL_OPTIONS_INIT;
  ko.user_data = &log;
  ASSERT_EQ(ca_context_register(e.ctx, "tid", k_tid, &ko), CA_OK);
  sum_tree(e, {"a", "t", "total", "tid", "tid", ca_arg_f64(1.0)}, nblocks, split1, split2);
}

// A one-worker context runs a computation on the calling thread while its worker is idle (no
// hand-off); a computation started from another thread while that one runs borrows the sleeping
// worker and runs on its own calling thread, never on the first one's, and both finish.
TEST(ExecutorOneWorker, AnIdleWorkersComputeRunsOnTheCaller) {
  const int64_t live = ca::block_live_count();
  {
    Env e(1);
    ThreadLog log;
    tid_tree(e, log, 40, 8, 5);
    EXPECT_DOUBLE_EQ(e.compute1("total", {0}), 40.0);
    ASSERT_EQ(log.ids.size(), 46u);
    for (auto id : log.ids) EXPECT_EQ(id, std::this_thread::get_id());
    // Thread A's compute is slow (it holds the caller slot); B's, started meanwhile, runs on B's
    // thread (the worker it borrowed sleeps), never on A's.
    log.ids.clear();
    log.slow_ms = 5;
    std::thread::id a_id, b_id;
    std::atomic<bool> a_started{false};
    std::vector<std::thread::id> b_ran;
    std::thread ta([&] {
      a_id = std::this_thread::get_id();
      a_started = true;
      EXPECT_DOUBLE_EQ(e.compute1("total", {0}), 40.0);
    });
    while (!a_started) std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    // B: its own graph and kernel on A's context.
    ca_graph_t *g2 = nullptr;
    ASSERT_EQ(ca_graph_new(&g2), CA_OK);
    ThreadLog log_b;
    ca_kernel_options_t ko = CA_KERNEL_OPTIONS_INIT;
    ko.user_data = &log_b;
    ASSERT_EQ(ca_context_register(e.ctx, "tid_b", k_tid, &ko), CA_OK);
    ca_arg_t c[1] = {ca_arg_f64(1.0)};
    int64_t nb[1] = {40};
    ca_blockwise_options_t bo = CA_BLOCKWISE_OPTIONS_INIT;
    bo.numblocks = nb;
    ASSERT_EQ(ca_graph_add_blockwise(g2, "b", "i", "tid_b", c, 1, &bo), CA_OK);
    int64_t split = 40;
    ASSERT_EQ(ca_graph_add_partial_reduce(g2, "btotal", "b", &split, 1, "tid_b", nullptr, 0), CA_OK);
    std::thread tb([&] {
      b_id = std::this_thread::get_id();
      int64_t z = 0;
      ca_key_t k{"btotal", &z, 1};
      ca_block_t *r = nullptr;
      EXPECT_EQ(ca_compute(&r, e.ctx, g2, &k, 1, nullptr), CA_OK);
      if (r) {
        EXPECT_DOUBLE_EQ(*static_cast<double *>(ca_block_data(r)), 40.0);
      }
      ca_block_free(r);
    });
    tb.join();
    ta.join();
    ASSERT_EQ(log_b.ids.size(), 41u);
    for (auto id : log_b.ids) {
      EXPECT_EQ(id, b_id);
      EXPECT_NE(id, a_id);
    }
    ca_graph_free(g2);
  }
  EXPECT_EQ(ca::block_live_count(), live) << "blocks leaked";
}

// (A computation started inside a kernel of the caller's own computation runs on that thread.)
TEST(ExecutorOneWorker, AComputeInsideAKernelOfTheCallersComputeFinishes) {
  Env e(1);
  NestedEnv env{e.ctx, e.g};
  ca_kernel_options_t ko = CA_KERNEL_OPTIONS_INIT;
  ko.user_data = &env;
  ASSERT_EQ(ca_context_register(e.ctx, "nested", k_nested, &ko), CA_OK);
  ca_arg_t c[1] = {ca_arg_f64(2.0)};
  int64_t z = 0;
  ca_key_t inner{"inner", &z, 1};
  ASSERT_EQ(ca_graph_add_task(e.g, &inner, "const", c, 1), CA_OK);
  ca_key_t x{"x", &z, 1};
  ca_arg_t c3[1] = {ca_arg_f64(3.0)};
  ASSERT_EQ(ca_graph_add_task(e.g, &x, "const", c3, 1), CA_OK);
  ca_arg_t rx[1] = {ca_arg_key("x", &z, 1)};
  ca_key_t outer{"outer", &z, 1};
  ASSERT_EQ(ca_graph_add_task(e.g, &outer, "nested", rx, 1), CA_OK);
  EXPECT_DOUBLE_EQ(e.compute1("outer", {0}), 5.0);
}

// With several workers asleep, a computation's calling thread borrows one and runs tasks itself
// (no thread has to be woken for its share); the others join as usual, and nothing is lost.
TEST(ExecutorBorrow, TheCallerRunsTasksOfItsComputeBesideTheWorkers) {
  const int64_t live = ca::block_live_count();
  for (int threads : {2, 4}) {
    Env e(threads);
    // No memory limit: under one, a run's first root runs alone to measure what a root allocates,
    // and a caller that finds nothing else to do meanwhile gives its worker back.
    ASSERT_EQ(ca_context_set_config(e.ctx, "memory-limit", "none"), CA_OK);
    ThreadLog log;
    log.slow_ms = 1;  // (so that no worker already awake runs every task before the caller starts)
    tid_tree(e, log, 100, 10, 10);
    EXPECT_DOUBLE_EQ(e.compute1("total", {0}), 100.0);  // (the first compute starts the pool)
    // Once its workers sleep, a compute runs some of its tasks on the caller. (Whether they all
    // sleep by the time it starts depends on the machine's load: a few tries.)
    bool seen = false;
    for (int rep = 0; rep < 10 && !seen; ++rep) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      log.ids.clear();
      EXPECT_DOUBLE_EQ(e.compute1("total", {0}), 100.0);
      ASSERT_EQ(log.ids.size(), 111u);
      for (auto id : log.ids) seen = seen || id == std::this_thread::get_id();
    }
    EXPECT_TRUE(seen) << threads << " threads: no task ran on the calling thread";
  }
  EXPECT_EQ(ca::block_live_count(), live) << "blocks leaked";
}

// Computations from several threads at once on one multi-worker context, each borrowing a worker
// (or none left to borrow), half of them failing in a kernel: every one ends with its own result
// or error, nothing leaks, and the pool is usable afterwards.
TEST(ExecutorBorrow, ConcurrentComputesAndFailures) {
  const int64_t live = ca::block_live_count();
  {
    Env e(2);
    ASSERT_EQ(ca_context_register(e.ctx, "fail_at", k_fail_at, nullptr), CA_OK);
    sum_tree(e, {"a", "t", "total", "ones", "add", ca_arg_i64(10)}, 2000, 8, 250);
    failing_sum(e, "b", "ftotal", 200, 10, 150, 200);
    std::vector<std::thread> ts;
    std::atomic<int> ok{0}, failed{0};
    for (int t = 0; t < 6; ++t)
      ts.emplace_back([&, t] {
        for (int rep = 0; rep < 4; ++rep) {
          ca_block_t *r = nullptr;
          int64_t z = 0;
          const bool fails = t % 2 == 1;
          ca_key_t k{fails ? "ftotal" : "total", &z, 1};
          ca_status_t st = ca_compute(&r, e.ctx, e.g, &k, 1, nullptr);
          if (fails) {
            if (st == CA_EKERNEL && r == nullptr) failed++;
          } else if (st == CA_OK && *static_cast<double *>(ca_block_data(r)) == 20000.0) {
            ok++;
          }
          ca_block_free(r);
        }
      });
    for (auto &t : ts) t.join();
    EXPECT_EQ(ok.load(), 12);
    EXPECT_EQ(failed.load(), 12);
    EXPECT_DOUBLE_EQ(e.compute1("total", {0}), 20000.0);
  }
  EXPECT_EQ(ca::block_live_count(), live) << "blocks leaked";
}

// A computation started inside a kernel runs on that kernel's thread: it never waits for a pool
// whose threads are all busy (or lent out). One worker: thread A's slow computation holds the
// caller slot, thread B's borrows the only worker, and B's kernel computes again on the same
// context (this hung: the nested run waited for the worker B itself was running). Two workers:
// eight kernels at once each compute again.
TEST(ExecutorNested, AComputeInsideAKernelNeverWaitsForABusyPool) {
  const int64_t live = ca::block_live_count();
  for (int threads : {1, 2}) {
    Env e(threads);
    NestedEnv env{e.ctx, e.g};
    ca_kernel_options_t ko = CA_KERNEL_OPTIONS_INIT;
    ko.user_data = &env;
    ASSERT_EQ(ca_context_register(e.ctx, "nested", k_nested, &ko), CA_OK);
    ThreadLog log;
    log.slow_ms = 5;
    ca_kernel_options_t kt = CA_KERNEL_OPTIONS_INIT;
    kt.user_data = &log;
    ASSERT_EQ(ca_context_register(e.ctx, "tid", k_tid, &kt), CA_OK);
    int64_t z = 0;
    ca_arg_t c2[1] = {ca_arg_f64(2.0)};
    ca_key_t inner{"inner", &z, 1};
    ASSERT_EQ(ca_graph_add_task(e.g, &inner, "const", c2, 1), CA_OK);
    ca_arg_t c3[1] = {ca_arg_f64(3.0)};
    int64_t nb[1] = {8};
    ca_blockwise_options_t bo = CA_BLOCKWISE_OPTIONS_INIT;
    bo.numblocks = nb;
    ASSERT_EQ(ca_graph_add_blockwise(e.g, "x", "i", "const", c3, 1, &bo), CA_OK);
    ca_arg_t rx[1] = {ca_arg_indexed("x", "i")};
    ASSERT_EQ(ca_graph_add_blockwise(e.g, "outer", "i", "nested", rx, 1, nullptr), CA_OK);
    int64_t split = 8;
    ASSERT_EQ(ca_graph_add_partial_reduce(e.g, "outer_total", "outer", &split, 1, "add", nullptr, 0), CA_OK);
    ca_arg_t c1[1] = {ca_arg_f64(1.0)};
    nb[0] = 40;
    ASSERT_EQ(ca_graph_add_blockwise(e.g, "a", "i", "tid", c1, 1, &bo), CA_OK);
    split = 40;
    ASSERT_EQ(ca_graph_add_partial_reduce(e.g, "slow_total", "a", &split, 1, "tid", nullptr, 0), CA_OK);
    std::atomic<bool> a_started{false};
    std::thread ta([&] {
      a_started = true;
      EXPECT_DOUBLE_EQ(e.compute1("slow_total", {0}), 40.0);
    });
    while (!a_started) std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::thread tb([&] { EXPECT_DOUBLE_EQ(e.compute1("outer_total", {0}), 40.0); });  // 8 x (3 + 2)
    tb.join();
    ta.join();
    EXPECT_DOUBLE_EQ(e.compute1("outer_total", {0}), 40.0) << threads << " threads";
  }
  EXPECT_EQ(ca::block_live_count(), live) << "blocks leaked";
}

INSTANTIATE_TEST_SUITE_P(Threads, ExecutorTest, ::testing::Values(0, 1, 2, 4),
                         [](const auto &info) {
                           std::string s = "t";
                           s += std::to_string(info.param);
                           return s;
                         });

}  // namespace
