// Bounded memory (issue 13 item 4): the context's memory budget covers every block a computation
// holds and is enforced before allocating; task budgets bound plan materialization; running out of
// memory is CA_ENOMEM, never an abort.
#include <chunkarray/chunkarray.h>
#include "support/save_load.h"
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "capi_handles.hpp"
#include "core/block.hpp"
#include "core/memory.hpp"

#include "support/test_kernels.hpp"

// A pointer to a temporary options struct, valid for the full expression (C++ has no compound literals).
template <class T>
static const T *opt_ptr(const T &o) {
  return &o;
}


namespace {

using ca_test::k_ones;
using ca_test::k_sum;
using ca_test::sum_arg;

constexpr int64_t kMiB = 1024 * 1024;

ca_status_t k_throw_bad_alloc(ca_block_t **, const ca_arg_t *, size_t, ca_kernel_ctx_t *, void *) {
  throw std::bad_alloc();
}

ca_status_t k_report_enomem(ca_block_t **, const ca_arg_t *, size_t, ca_kernel_ctx_t *kc, void *) {
  ca_kernel_set_error(kc, "could not allocate the scratch buffer");
  return CA_ENOMEM;
}

struct Ctx {
  ca_context_t *ctx = nullptr;
  ca_graph_t *g = nullptr;
  Ctx(int32_t threads, const char *limit) {
    ca_context_options_t o = CA_CONTEXT_OPTIONS_INIT;
    o.num_threads = threads;
    EXPECT_EQ(ca_context_new(&ctx, &o), CA_OK);
    if (limit) {
      EXPECT_EQ(ca_context_set_config(ctx, "memory-limit", limit), CA_OK) << ca_last_error_message();
    }
    EXPECT_EQ(ca_context_register(ctx, "ones", k_ones, nullptr), CA_OK);
    EXPECT_EQ(ca_context_register(ctx, "sum", k_sum, nullptr), CA_OK);
    EXPECT_EQ(ca_graph_new(&g), CA_OK);
  }
  ~Ctx() {
    ca_graph_free(g);
    ca_context_free(ctx);
  }
  ca::MemoryBudget &budget() { return ca::capi::engine(ctx).budget(); }
  // n roots ("x", i) = ones(elems), each reduced by ("s", i) = sum(x_i), then "total" = sum(s_*).
  void reduction_graph(int64_t n, int64_t elems) {
    std::vector<int64_t> idx(static_cast<size_t>(n));
    std::vector<ca_arg_t> parts;
    for (int64_t i = 0; i < n; ++i) {
      idx[size_t(i)] = i;
      ca_key_t x{"x", &idx[size_t(i)], 1}, s{"s", &idx[size_t(i)], 1};
      ca_arg_t e = ca_arg_i64(elems);
      ASSERT_EQ(ca_graph_add_task(g, &x, "ones", &e, 1), CA_OK);
      ca_arg_t r = ca_arg_key("x", &idx[size_t(i)], 1);
      ASSERT_EQ(ca_graph_add_task(g, &s, "sum", &r, 1), CA_OK);
      parts.push_back(ca_arg_key("s", &idx[size_t(i)], 1));
    }
    ca_arg_t list = ca_arg_list(parts.data(), parts.size());
    ca_key_t t{"total", nullptr, 0};
    ASSERT_EQ(ca_graph_add_task(g, &t, "sum", &list, 1), CA_OK);
  }
  ca_status_t compute_total(double *v) {
    ca_key_t t{"total", nullptr, 0};
    ca_block_t *r = nullptr;
    ca_status_t st = ca_compute(&r, ctx, g, &t, 1, nullptr);
    if (st == CA_OK) {
      *v = *static_cast<double *>(ca_block_data(r));
      ca_block_free(r);
    }
    return st;
  }
};

class MemoryBudgetTest : public ::testing::TestWithParam<int> {};

TEST_P(MemoryBudgetTest, ComputeTenTimesTheLimitStaysUnderIt) {
  // 80 blocks of 1 MiB (80 MiB in all) reduced under an 8 MiB limit: roots wait for memory, the
  // computation completes, and the blocks held at once never exceed the limit.
  Ctx c(GetParam(), "8MiB");
  const int64_t n = 80, elems = kMiB / 8;
  c.reduction_graph(n, elems);
  c.budget().reset_peak();
  double v = 0;
  ASSERT_EQ(c.compute_total(&v), CA_OK) << ca_last_error_message();
  EXPECT_EQ(v, double(n * elems));
  EXPECT_GE(c.budget().peak(), kMiB) << "the 1 MiB blocks were not charged";
  EXPECT_LE(c.budget().peak(), 8 * kMiB);
  EXPECT_EQ(c.budget().held(), 0) << "bytes still charged after the run";
}

TEST_P(MemoryBudgetTest, BlockLargerThanTheLimitFailsBeforeAllocating) {
  Ctx c(GetParam(), "4MiB");
  c.reduction_graph(2, kMiB);  // 8 MiB blocks
  int64_t live = ca::block_live_bytes();
  double v = 0;
  EXPECT_EQ(c.compute_total(&v), CA_ENOMEM);
  std::string msg = ca_last_error_message();
  EXPECT_NE(msg.find("memory limit of 4194304 bytes"), std::string::npos) << msg;
  EXPECT_NE(msg.find("8388672 bytes"), std::string::npos) << msg;  // the block, header included
  EXPECT_EQ(ca::block_live_bytes(), live);
  EXPECT_EQ(c.budget().held(), 0);
}

TEST_P(MemoryBudgetTest, NothingCanFreeMemoryFailsWithENOMEM) {
  // 3 MiB held by results the caller keeps: a compute whose roots need 2 MiB each cannot start
  // under a 4 MiB limit, and nothing running can free memory, so it fails instead of waiting.
  Ctx c(GetParam(), "4MiB");
  std::vector<int64_t> idx = {0, 1, 2};
  ca_block_t *held[3] = {};
  for (int64_t i = 0; i < 3; ++i) {
    ca_key_t k{"h", &idx[size_t(i)], 1};
    ca_arg_t e = ca_arg_i64(kMiB / 8);
    ASSERT_EQ(ca_graph_add_task(c.g, &k, "ones", &e, 1), CA_OK);
    ASSERT_EQ(ca_compute(&held[i], c.ctx, c.g, &k, 1, nullptr), CA_OK) << ca_last_error_message();
  }
  EXPECT_GE(c.budget().held(), 3 * kMiB);
  c.reduction_graph(4, 2 * kMiB / 8);
  double v = 0;
  EXPECT_EQ(c.compute_total(&v), CA_ENOMEM);
  std::string msg = ca_last_error_message();
  EXPECT_NE(msg.find("nothing running can free any"), std::string::npos) << msg;
  EXPECT_NE(msg.find("memory limit of 4194304 bytes"), std::string::npos) << msg;
  // Freed results give their bytes back: the same compute now fits.
  for (auto *b : held) ca_block_free(b);
  EXPECT_EQ(c.budget().held(), 0);
  ASSERT_EQ(c.compute_total(&v), CA_OK) << ca_last_error_message();
  EXPECT_EQ(v, double(4 * 2 * kMiB / 8));
}

INSTANTIATE_TEST_SUITE_P(Threads, MemoryBudgetTest, ::testing::Values(0, 2));

ca_chunks_t chunks_1d(const int64_t *nb, const int64_t *sizes) { return ca_chunks_t{1, nb, sizes}; }

TEST(MemoryBudget, PersistedBlocksCountWhileTheyLive) {
  Ctx c(2, "4MiB");
  // 3 MiB persisted (6 blocks of 512 KiB) fits; a second 3 MiB persist does not while the first
  // lives, and fits once it is freed.
  int64_t shape = 6 * 65536, nb = 6;
  std::vector<int64_t> sizes(6, 65536);
  ca_chunks_t ch = chunks_1d(&nb, sizes.data());
  ca_array_t *x = nullptr, *y = nullptr, *px = nullptr, *py = nullptr;
  ASSERT_EQ(ca_array_random(&x, CA_RANDOM_UNIFORM, 1, &shape, &ch, CA_FLOAT64, opt_ptr(ca_random_options_t{sizeof(ca_random_options_t), 0u, 1, 0.0, 1.0, 0.0})), CA_OK);
  ASSERT_EQ(ca_array_random(&y, CA_RANDOM_UNIFORM, 1, &shape, &ch, CA_FLOAT64, opt_ptr(ca_random_options_t{sizeof(ca_random_options_t), 0u, 2, 0.0, 1.0, 0.0})), CA_OK);
  ASSERT_EQ(ca_array_persist(&px, c.ctx, x, nullptr), CA_OK) << ca_last_error_message();
  EXPECT_GE(c.budget().held(), 3 * kMiB);
  EXPECT_LE(c.budget().held(), 4 * kMiB);
  EXPECT_EQ(ca_array_persist(&py, c.ctx, y, nullptr), CA_ENOMEM);
  EXPECT_EQ(py, nullptr);
  std::string msg = ca_last_error_message();
  EXPECT_NE(msg.find("memory limit of 4194304 bytes"), std::string::npos) << msg;
  EXPECT_GE(c.budget().held(), 3 * kMiB);  // the failed persist released what it had made
  EXPECT_LE(c.budget().held(), 4 * kMiB);
  ca_array_free(px);
  EXPECT_EQ(c.budget().held(), 0);
  ASSERT_EQ(ca_array_persist(&py, c.ctx, y, nullptr), CA_OK) << ca_last_error_message();
  // The persisted values are y's.
  std::vector<double> a(static_cast<size_t>(shape)), b(static_cast<size_t>(shape));
  ASSERT_EQ(ca_array_compute_into(c.ctx, y, a.data(), a.size() * 8, nullptr), CA_OK);
  ASSERT_EQ(ca_array_compute_into(c.ctx, py, b.data(), b.size() * 8, nullptr), CA_OK);
  EXPECT_EQ(a, b);
  ca_array_free(py);
  ca_array_free(x);
  ca_array_free(y);
  EXPECT_EQ(c.budget().held(), 0);
}

TEST(MemoryBudget, ResultThatCannotFitFailsBeforeAllocating) {
  // ones(100 GB).compute() under the machine's default limit (or any limit below 100 GB).
  Ctx c(2, nullptr);
  if (!c.budget().limited() || c.budget().limit() >= int64_t(100e9)) GTEST_SKIP() << "machine limit >= 100 GB";
  int64_t shape = int64_t(100e9) / 8, nb = 100;
  std::vector<int64_t> sizes(100, shape / 100);
  ca_chunks_t ch = chunks_1d(&nb, sizes.data());
  ca_array_t *x = nullptr;
  ASSERT_EQ(ca_array_ones(&x, 1, &shape, &ch, CA_FLOAT64), CA_OK);
  int64_t live = ca::block_live_bytes();
  ca_block_t *r = nullptr;
  EXPECT_EQ(ca_array_compute(&r, c.ctx, x, nullptr), CA_ENOMEM);
  EXPECT_EQ(r, nullptr);
  std::string msg = ca_last_error_message();
  EXPECT_NE(msg.find("the result of ca_array_compute"), std::string::npos) << msg;
  EXPECT_NE(msg.find("100000000000 bytes"), std::string::npos) << msg;
  EXPECT_NE(msg.find("memory limit of"), std::string::npos) << msg;
  EXPECT_EQ(ca::block_live_bytes(), live);
  ca_array_free(x);
}

TEST(MemoryBudget, ConfigRoundTrip) {
  Ctx c(0, nullptr);
  const char *v = nullptr;
  EXPECT_EQ(c.budget().limit(), ca::default_memory_limit());
  ASSERT_EQ(ca_context_set_config(c.ctx, "memory-limit", "2GiB"), CA_OK);
  ASSERT_EQ(ca_context_get_config(&v, c.ctx, "memory-limit"), CA_OK);
  EXPECT_STREQ(v, "2147483648");
  ASSERT_EQ(ca_context_set_config(c.ctx, "memory-limit", "none"), CA_OK);
  ASSERT_EQ(ca_context_get_config(&v, c.ctx, "memory-limit"), CA_OK);
  EXPECT_STREQ(v, "none");
  ASSERT_EQ(ca_context_set_config(c.ctx, "memory-limit", "auto"), CA_OK);
  EXPECT_EQ(c.budget().limit(), ca::default_memory_limit());
  ASSERT_EQ(ca_context_set_config(c.ctx, "graph.max-tasks", "1000"), CA_OK);
  ASSERT_EQ(ca_context_get_config(&v, c.ctx, "graph.max-tasks"), CA_OK);
  EXPECT_STREQ(v, "1000");
  EXPECT_EQ(ca_context_set_config(c.ctx, "graph.max-tasks", "-3"), CA_EINVAL);
  ca_context_options_t o = CA_CONTEXT_OPTIONS_INIT;
  o.memory_limit = -2;
  ca_context_t *bad = nullptr;
  EXPECT_EQ(ca_context_new(&bad, &o), CA_EINVAL);
}

TEST(MemoryBudget, DefaultTaskBudgetAllowsMillionTaskGraphs) {
  // W8 loads a 1,000,000-task graph and W1 runs 666,670 tasks: the default budget must allow them
  // whatever the memory limit; it refuses 1e8.
  for (int64_t limit : {int64_t(0), 64 * kMiB, 2048 * kMiB}) {
    int64_t t = ca::default_max_tasks(limit);
    EXPECT_GE(t, std::min<int64_t>(4000000, ca::default_memory_limit() / ca::kPlanBytesPerTask)) << limit;
    if (ca::default_memory_limit() >= 1024 * kMiB) {
      EXPECT_GE(t, 4000000) << limit;
    }
    if (ca::default_memory_limit() < int64_t(100e9)) {
      EXPECT_LT(t, 100000000) << limit;
    }
  }
}

// ---- task budgets ---------------------------------------------------------------------------------

TEST(TaskBudget, SymbolicGraphFileTooLargeToMaterialize) {
  // A tiny graph file declaring 1e8 symbolic tasks: validate refuses it from the layers' counts,
  // before materializing anything (fast, and no memory growth).
  Ctx c(0, nullptr);
  ca_arg_t lit = ca_arg_i64(1);
  int64_t nb[2] = {10000, 10000};
  ca_blockwise_options_t bo = CA_BLOCKWISE_OPTIONS_INIT;
  bo.numblocks = nb;
  ASSERT_EQ(ca_graph_add_blockwise(c.g, "big", "ij", "ones", &lit, 1, &bo), CA_OK) << ca_last_error_message();
  if (!graph_files_supported()) GTEST_SKIP() << "built without Cap'n Proto (-Dcapnp=disabled): no graph files";
  char path[] = "/tmp/ca_membound_XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  ASSERT_EQ(save_to(nullptr, nullptr, path, c.g, nullptr, 0, nullptr), CA_OK) << ca_last_error_message();
  FILE *f = std::fopen(path, "rb");
  ASSERT_TRUE(f);
  std::fseek(f, 0, SEEK_END);
  long size = std::ftell(f);
  std::fclose(f);
  EXPECT_LT(size, 1024);
  ca_graph_t *loaded = nullptr;
  ASSERT_EQ(load_from(&loaded, nullptr, nullptr, path, nullptr, 0), CA_OK) << ca_last_error_message();
  std::remove(path);
  EXPECT_EQ(ca_graph_num_tasks(loaded), 100000000);
  int64_t before = ca::block_live_bytes();
  EXPECT_EQ(ca_graph_validate(loaded, c.ctx, nullptr, 0), CA_ENOMEM);
  std::string msg = ca_last_error_message();
  EXPECT_NE(msg.find("100000000 tasks"), std::string::npos) << msg;
  EXPECT_NE(msg.find("task budget of " + std::to_string(ca::capi::engine(c.ctx).task_budget())), std::string::npos) << msg;
  EXPECT_EQ(ca_graph_validate(loaded, nullptr, nullptr, 0), CA_ENOMEM);  // without a context: the default
  EXPECT_EQ(ca::block_live_bytes(), before);
  // One key of it is fine: only what a computation reaches is materialized.
  int64_t k0[2] = {9999, 9999};
  ca_key_t key{"big", k0, 2};
  EXPECT_EQ(ca_graph_validate(loaded, c.ctx, &key, 1), CA_OK) << ca_last_error_message();
  ca_block_t *r = nullptr;
  ASSERT_EQ(ca_compute(&r, c.ctx, loaded, &key, 1, nullptr), CA_OK) << ca_last_error_message();
  EXPECT_EQ(ca_block_size(r), 1);
  ca_block_free(r);
  ca_graph_free(loaded);
}

TEST(TaskBudget, ConfiguredBudgetLimitsComputations) {
  Ctx c(2, nullptr);
  c.reduction_graph(600, 4);  // 1201 tasks
  ASSERT_EQ(ca_context_set_config(c.ctx, "graph.max-tasks", "1000"), CA_OK);
  double v = 0;
  EXPECT_EQ(c.compute_total(&v), CA_ENOMEM);
  std::string msg = ca_last_error_message();
  EXPECT_NE(msg.find("more than 1000 tasks"), std::string::npos) << msg;
  EXPECT_EQ(ca_graph_validate(c.g, c.ctx, nullptr, 0), CA_ENOMEM);
  ASSERT_EQ(ca_context_set_config(c.ctx, "graph.max-tasks", "1201"), CA_OK);
  ASSERT_EQ(c.compute_total(&v), CA_OK) << ca_last_error_message();
  EXPECT_EQ(v, 2400.0);
  EXPECT_EQ(ca_graph_validate(c.g, c.ctx, nullptr, 0), CA_OK) << ca_last_error_message();
}

// ---- out of memory in kernels ----------------------------------------------------------------------

TEST(OutOfMemory, KernelsRunningOutOfMemoryReportENOMEM) {
  for (int threads : {0, 2}) {
    Ctx c(threads, nullptr);
    ASSERT_EQ(ca_context_register(c.ctx, "throws", k_throw_bad_alloc, nullptr), CA_OK);
    ASSERT_EQ(ca_context_register(c.ctx, "enomem", k_report_enomem, nullptr), CA_OK);
    int64_t z = 0;
    ca_key_t a{"a", &z, 1}, b{"b", &z, 1};
    ASSERT_EQ(ca_graph_add_task(c.g, &a, "throws", nullptr, 0), CA_OK);
    ASSERT_EQ(ca_graph_add_task(c.g, &b, "enomem", nullptr, 0), CA_OK);
    ca_block_t *r = nullptr;
    EXPECT_EQ(ca_compute(&r, c.ctx, c.g, &a, 1, nullptr), CA_ENOMEM);
    EXPECT_NE(std::string(ca_last_error_message()).find("out of memory"), std::string::npos)
        << ca_last_error_message();
    EXPECT_EQ(ca_compute(&r, c.ctx, c.g, &b, 1, nullptr), CA_ENOMEM);
    EXPECT_NE(std::string(ca_last_error_message()).find("could not allocate the scratch buffer"), std::string::npos)
        << ca_last_error_message();
    EXPECT_EQ(c.budget().held(), 0);
  }
}

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
// In a child process limited to 1 GiB of address space (as `prlimit --as=`), computations larger than
// that fail with CA_ENOMEM instead of killing the process: once through the default limit (derived
// from RLIMIT_AS), once with no limit at all (the allocation itself fails: no abort()).
int child_under_rlimit_as() {
  struct rlimit rl = {size_t(1) << 30, size_t(1) << 30};
  if (setrlimit(RLIMIT_AS, &rl) != 0) return 10;
  for (const char *limit : {"auto", "none"}) {
    ca_context_t *ctx = nullptr;
    ca_context_options_t o = CA_CONTEXT_OPTIONS_INIT;
    o.num_threads = 2;
    if (ca_context_new(&ctx, &o) != CA_OK) return 11;
    if (ca_context_set_config(ctx, "memory-limit", limit) != CA_OK) return 12;
    if (ca_context_register(ctx, "ones", k_ones, nullptr) != CA_OK) return 13;
    // 4 GiB in one block: more than the address space.
    ca_graph_t *g = nullptr;
    if (ca_graph_new(&g) != CA_OK) return 14;
    int64_t z = 0;
    ca_key_t k{"x", &z, 1};
    ca_arg_t e = ca_arg_i64(int64_t(1) << 29);
    if (ca_graph_add_task(g, &k, "ones", &e, 1) != CA_OK) return 15;
    ca_block_t *r = nullptr;
    if (ca_compute(&r, ctx, g, &k, 1, nullptr) != CA_ENOMEM) return 16;
    // An array result of 4 GiB.
    int64_t shape = int64_t(1) << 29, nb = 4;
    int64_t sizes[4] = {shape / 4, shape / 4, shape / 4, shape / 4};
    ca_chunks_t ch = {1, &nb, sizes};
    ca_array_t *x = nullptr;
    if (ca_array_ones(&x, 1, &shape, &ch, CA_FLOAT64) != CA_OK) return 17;
    if (ca_array_compute(&r, ctx, x, nullptr) != CA_ENOMEM) return 18;
    ca_array_free(x);
    ca_graph_free(g);
    ca_context_free(ctx);
  }
  return 0;
}

TEST(OutOfMemory, ComputeLargerThanTheAddressSpaceFailsCleanly) {
  fflush(nullptr);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) _exit(child_under_rlimit_as());
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "child killed by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  EXPECT_EQ(WEXITSTATUS(status), 0) << "child step failed (see child_under_rlimit_as)";
}
#endif

}  // namespace

// ---- the big-buffer cache (core/big_buffer.hpp): large blocks reuse freed pages -------------------

#include "core/big_buffer.hpp"
#include "core/sanitizer.hpp"

namespace {

long minor_faults() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_minflt;
}

}  // namespace

TEST(BigBufferCache, ClassesCoverTheRequestWithinAQuarter) {
  for (size_t n : {size_t(1) << 20, (size_t(1) << 20) + 1, size_t(3) << 20, (size_t(32) << 20) + 64,
                   (size_t(5) << 30) + 12345}) {
    const size_t c = ca::detail::big_class(n);
    EXPECT_GE(c, n);
    EXPECT_LE(double(c), 1.25 * double(n) + 1.0) << n;
    EXPECT_EQ(c % 4096, 0u) << n;
    EXPECT_EQ(ca::detail::big_class(c), c);  // a class is its own class
  }
}

// Fresh buffers of a class whose smallest request covers a whole 2 MiB extent are 2 MiB-aligned
// (their extents advised as transparent huge pages, core/big_buffer.cpp); the rest 64-aligned; all
// writable over the whole request and given back to the cache or freed.
TEST(BigBufferCache, LargeClassesAreHugePageAligned) {
  const size_t mib = size_t(1) << 20;
  for (size_t n : {mib, 2 * mib, 2 * mib + 64, 5 * mib + 1, 33 * mib}) {
    const size_t c = ca::detail::big_class(n);
    std::vector<void *> ps;
    for (int k = 0; k < 3; ++k) {  // several: a cached one (if any) and fresh ones
      void *p = ca::detail::big_alloc(n);
      ASSERT_NE(p, nullptr) << n;
      std::memset(p, 0x33, n);
      ps.push_back(p);
      const uintptr_t a = reinterpret_cast<uintptr_t>(p);
      EXPECT_EQ(a % 64, 0u) << n;
#if defined(__linux__)
      // every request of these classes covers a whole 2 MiB extent
      if (c >= ca::detail::big_class(2 * mib + 1)) {
        EXPECT_EQ(a % (2 * mib), 0u) << n << " in class " << c;
      }
#endif
    }
    for (void *p : ps) ca::detail::big_free(p, n);
  }
}

TEST(BigBufferCache, ReusedBlocksAreZeroedWhenAskedAndFaultNoPages) {
  if (CA_ASAN) GTEST_SKIP() << "the cache is off under AddressSanitizer (reuse would hide use-after-free)";
  ca::detail::big_cache_set_limit(int64_t(40) << 20);  // room for one 32 MiB block, whatever is cached
  const int64_t shape[2] = {2048, 2048};                // 32 MiB of float64
  ca::Block *a = ca::block_new(CA_FLOAT64, 2, shape, false);
  std::memset(a->data, 0x5a, size_t(a->nbytes));  // fault every page in, leave garbage
  void *first = a;
  ca::block_release(a);
  EXPECT_GE(ca::detail::big_cache_bytes(), int64_t(32) << 20);
  const long before = minor_faults();
  ca::Block *b = ca::block_new(CA_FLOAT64, 2, shape, true);
  const long faults = minor_faults() - before;
  EXPECT_EQ(static_cast<void *>(b), first);  // the freed buffer came back
  const auto *d = static_cast<const unsigned char *>(b->data);
  size_t nonzero = 0;
  for (int64_t i = 0; i < b->nbytes; ++i) nonzero += d[i] != 0;
  EXPECT_EQ(nonzero, 0u) << "a reused block asked for zeros kept old bytes";
  // Zeroing 8,192 pages already mapped: no fault per page (a fresh mapping takes one each).
  EXPECT_LT(faults, 1000) << faults << " minor faults for a reused 32 MiB block";
  ca::block_release(b);
  ca::detail::big_cache_set_limit(-1);
}

// detail::prefault faults in exactly the pages of its range (checked with mincore on a fresh
// mapping without huge pages), unaligned edges included, and leaves the bytes around it alone.
TEST(BigBufferCache, PrefaultMakesTheRangesPagesResidentAndNothingElse) {
#if defined(__linux__)
  const size_t page = size_t(sysconf(_SC_PAGESIZE)), n = 64 * page;
  void *m = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(m, MAP_FAILED);
  (void)madvise(m, n, MADV_NOHUGEPAGE);
  auto *c = static_cast<unsigned char *>(m);
  auto resident = [&] {
    std::vector<unsigned char> v(64);
    EXPECT_EQ(mincore(m, n, v.data()), 0);
    std::string r;
    for (unsigned char b : v) r += (b & 1) ? 'x' : '.';
    return r;
  };
  EXPECT_EQ(resident(), std::string(64, '.'));
  ca::detail::prefault(nullptr, 100);  // no-ops
  ca::detail::prefault(c, 0);
  EXPECT_EQ(resident(), std::string(64, '.'));
  std::memset(c + page - 8, 0x77, 8);  // the end of page 0, just before the range
  // pages 1 (from its 10th byte) to 40 (up to its 20th byte): 1..40 resident, 41.. not
  ca::detail::prefault(c + page + 9, 39 * page - 9 + 20);
  EXPECT_EQ(resident(), "x" + std::string(40, 'x') + std::string(23, '.'));
  for (size_t i = page - 8; i < page; ++i) EXPECT_EQ(c[i], 0x77) << i;
  ca::detail::prefault(c + 50 * page + 4000 % page, 1);  // one byte: its page
  EXPECT_EQ(resident()[50], 'x');
  EXPECT_EQ(resident()[49], '.');
  EXPECT_EQ(resident()[51], '.');
  munmap(m, n);
#else
  GTEST_SKIP() << "mincore: Linux";
#endif
}

TEST(BigBufferCache, TheCapBoundsWhatIsKept) {
  if (CA_ASAN) GTEST_SKIP() << "the cache is off under AddressSanitizer";
  ca::detail::big_cache_set_limit(int64_t(9) << 20);  // room for one 5 MiB class (4 MiB + header)
  const int64_t shape[1] = {int64_t(4) << 17};       // 4 MiB of float64 (+ header: the 5 MiB class)
  std::vector<ca::Block *> v;
  for (int i = 0; i < 4; ++i) v.push_back(ca::block_new(CA_FLOAT64, 1, shape, false));
  for (ca::Block *b : v) ca::block_release(b);
  EXPECT_LE(ca::detail::big_cache_bytes(), int64_t(9) << 20);
  EXPECT_GT(ca::detail::big_cache_bytes(), 0);
  ca::detail::big_cache_set_limit(0);  // off: empties it
  EXPECT_EQ(ca::detail::big_cache_bytes(), 0);
  ca::Block *b = ca::block_new(CA_FLOAT64, 1, shape, false);
  ca::block_release(b);
  EXPECT_EQ(ca::detail::big_cache_bytes(), 0);
  ca::detail::big_cache_set_limit(-1);
  ca::block_release(ca::block_new(CA_FLOAT64, 1, shape, false));
  const int64_t held = ca::detail::big_cache_bytes();
  EXPECT_GT(held, 0);
  EXPECT_EQ(ca::detail::big_cache_trim(), held);
  EXPECT_EQ(ca::detail::big_cache_bytes(), 0);
}
