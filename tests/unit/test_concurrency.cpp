// Concurrency stress over the public C API: 16 threads run many computations at once on one shared
// context (elementwise chains, reductions along an axis, rechunk, persist, compute_many,
// compute_into) on ragged chunks, while another thread registers kernels and changes configuration
// on the same context. Every result is checked against a plain loop. Run by the ThreadSanitizer stage
// of ./dev test as well as by the ordinary suites.
#include <chunkarray/chunkarray.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/sanitizer.hpp"

namespace {

constexpr int kThreads = 16;
// Under ThreadSanitizer everything runs 5-15 times slower; the interleavings are what matters.
constexpr int kIters = CA_TSAN ? 40 : 200;

struct Holder {
  ca_array_t *a = nullptr;
  ~Holder() { ca_array_free(a); }
  ca_array_t **operator&() { return &a; }
  operator ca_array_t *() const { return a; }
};

struct BlockHolder {
  ca_block_t *b = nullptr;
  ~BlockHolder() { ca_block_free(b); }
};

// Splits n into ragged chunk sizes (at least one chunk, empty dimension -> one chunk of 0).
std::vector<int64_t> ragged(std::mt19937 &rng, int64_t n) {
  std::vector<int64_t> s;
  if (n == 0) return {0};
  while (n > 0) {
    int64_t c = std::min<int64_t>(n, 1 + int64_t(rng() % 9));
    s.push_back(c);
    n -= c;
  }
  return s;
}

struct Chunks2 {
  int64_t nb[2];
  std::vector<int64_t> sizes;
  ca_chunks_t view() const { return ca_chunks_t{2, nb, sizes.data()}; }
};

Chunks2 make_chunks(std::mt19937 &rng, const int64_t shape[2]) {
  Chunks2 c;
  std::vector<int64_t> r = ragged(rng, shape[0]), k = ragged(rng, shape[1]);
  c.nb[0] = int64_t(r.size());
  c.nb[1] = int64_t(k.size());
  c.sizes = r;
  c.sizes.insert(c.sizes.end(), k.begin(), k.end());
  return c;
}

ca_scalar_t f64(double v) {
  ca_scalar_t s{};
  s.kind = CA_FLOAT64;
  s.re = v;
  return s;
}

// One thread's work; returns "" or a description of the first mismatch / failure.
std::string worker(ca_context_t *ctx, int id) {
  std::mt19937 rng(uint32_t(1234 + id));
  for (int it = 0; it < kIters; ++it) {
    const int64_t shape[2] = {int64_t(rng() % 23), 1 + int64_t(rng() % 17)};
    const int64_t n = shape[0] * shape[1];
    std::vector<double> x(static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k) x[size_t(k)] = double((k * 7 + id * 13 + it) % 29) - 14.0;
    Chunks2 c1 = make_chunks(rng, shape), c2 = make_chunks(rng, shape);
    ca_chunks_t v1 = c1.view(), v2 = c2.view();
    auto where = [&](const char *what) {
      return "thread " + std::to_string(id) + " iteration " + std::to_string(it) + ": " + what + " (" +
             std::string(ca_last_error_message()) + ")";
    };

    Holder a, b, c, s0, r, s1, p, m;
    if (ca_array_from_buffer(&a, x.data(), CA_FLOAT64, 2, shape, &v1, nullptr))
      return where("from_buffer");
    // b = 2a + 1, c = b * a
    if (ca_array_binary_scalar(&b, CA_OP_MUL, a, f64(2.0), false)) return where("mul");
    Holder b1;
    if (ca_array_binary_scalar(&b1, CA_OP_ADD, b, f64(1.0), false)) return where("add");
    if (ca_array_binary(&c, CA_OP_MUL, b1, a)) return where("binary");
    int32_t ax0 = 0, ax1 = 1;
    if (ca_array_reduce(&s0, CA_RED_SUM, c, &ax0, 1, false, nullptr)) return where("sum axis 0");
    if (ca_array_rechunk(&r, c, &v2)) return where("rechunk");
    if (ca_array_reduce(&s1, CA_RED_MAX, r, &ax1, 1, false, nullptr)) return where("max axis 1");

    // Reference: c[i, j] = (2 x + 1) x.
    std::vector<double> ref_c(static_cast<size_t>(n)), ref_s0(static_cast<size_t>(shape[1]), 0.0),
        ref_s1(static_cast<size_t>(shape[0]), -INFINITY);
    for (int64_t i = 0; i < shape[0]; ++i)
      for (int64_t j = 0; j < shape[1]; ++j) {
        double xv = x[size_t(i * shape[1] + j)], cv = (2 * xv + 1) * xv;
        ref_c[size_t(i * shape[1] + j)] = cv;
        ref_s0[size_t(j)] += cv;
        ref_s1[size_t(i)] = std::max(ref_s1[size_t(i)], cv);
      }

    // compute_many: both reductions from one merged graph.
    const ca_array_t *both[2] = {s0, s1};
    BlockHolder out[2];
    ca_block_t *outs[2] = {nullptr, nullptr};
    if (ca_array_compute_many(outs, ctx, both, 2, nullptr)) return where("compute_many");
    out[0].b = outs[0];
    out[1].b = outs[1];
    if (ca_block_size(outs[0]) != shape[1] || ca_block_size(outs[1]) != shape[0]) return where("result sizes");
    const double *g0 = static_cast<const double *>(ca_block_data(outs[0]));
    const double *g1 = static_cast<const double *>(ca_block_data(outs[1]));
    for (int64_t j = 0; j < shape[1]; ++j)
      if (g0[j] != ref_s0[size_t(j)]) return where(("sum axis 0 differs at " + std::to_string(j)).c_str());
    for (int64_t i = 0; i < shape[0]; ++i)
      if (g1[i] != ref_s1[size_t(i)]) return where(("max axis 1 differs at " + std::to_string(i)).c_str());

    // persist, then a compute over the persisted blocks into a caller's buffer.
    if (ca_array_persist(&p, ctx, r, nullptr)) return where("persist");
    if (ca_array_binary_scalar(&m, CA_OP_SUB, p, f64(3.0), false)) return where("sub");
    std::vector<double> got(static_cast<size_t>(n), NAN);
    if (ca_array_compute_into(ctx, m, got.data(), got.size() * sizeof(double), nullptr))
      return where("compute_into");
    for (int64_t k = 0; k < n; ++k)
      if (got[size_t(k)] != ref_c[size_t(k)] - 3.0) return where(("persisted - 3 differs at " + std::to_string(k)).c_str());
  }
  return "";
}

ca_status_t k_twice(ca_block_t **out, const ca_arg_t *a, size_t n, ca_kernel_ctx_t *kc, void *) {
  if (n != 1 || a[0].kind != CA_ARG_FLOAT64) {
    ca_kernel_set_error(kc, "twice takes one float");
    return CA_EINVAL;
  }
  ca_status_t st = ca_block_new(out, CA_FLOAT64, 0, nullptr);
  if (st) return st;
  *static_cast<double *>(ca_block_data(*out)) = 2 * a[0].u.f64;
  return CA_OK;
}

void run_stress(ca_context_t *ctx) {
  std::vector<std::string> errors(kThreads);
  std::atomic<bool> stop{false};
  std::string config_error;
  // Registration and configuration are serialized with computations (context.h): one more thread
  // changes them throughout.
  std::thread config([&] {
    const char *sizes[] = {"1MiB", "64KiB", "128MiB"};
    for (int k = 0; !stop.load(); ++k) {
      std::string name = "stress_twice_" + std::to_string(k);
      if (ca_context_register(ctx, name.c_str(), k_twice, nullptr) != CA_OK ||
          ca_context_set_config(ctx, "array.chunk-size", sizes[k % 3]) != CA_OK) {
        config_error = std::string("config thread: ") + ca_last_error_message();
        return;
      }
      if (k % 2 && ca_context_remove_kernel(ctx, name.c_str()) != CA_OK) {
        config_error = std::string("remove_kernel: ") + ca_last_error_message();
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  std::vector<std::thread> ts;
  for (int t = 0; t < kThreads; ++t) ts.emplace_back([&, t] { errors[size_t(t)] = worker(ctx, t); });
  for (auto &t : ts) t.join();
  stop.store(true);
  config.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(errors[size_t(t)], "") << "thread " << t;
  EXPECT_EQ(config_error, "");
}

TEST(Concurrency, SixteenThreadsShareOneContext) {
  ca_context_options_t o = CA_CONTEXT_OPTIONS_INIT;
  o.num_threads = 4;
  ca_context_t *ctx = nullptr;
  ASSERT_EQ(ca_context_new(&ctx, &o), CA_OK);
  run_stress(ctx);
  ca_context_free(ctx);
}

// The same under a memory limit, so admission control (throttled roots, reservations given back)
// runs concurrently too. Every computation here holds well under the limit.
TEST(Concurrency, SixteenThreadsUnderAMemoryLimit) {
  ca_context_options_t o = CA_CONTEXT_OPTIONS_INIT;
  o.num_threads = 3;
  o.memory_limit = 64 << 20;
  ca_context_t *ctx = nullptr;
  ASSERT_EQ(ca_context_new(&ctx, &o), CA_OK);
  run_stress(ctx);
  ca_context_free(ctx);
}

// Synchronous contexts (num_threads 0) used from many threads: each compute runs on its caller.
TEST(Concurrency, SixteenThreadsSynchronousContext) {
  ca_context_options_t o = CA_CONTEXT_OPTIONS_INIT;
  o.num_threads = 0;
  ca_context_t *ctx = nullptr;
  ASSERT_EQ(ca_context_new(&ctx, &o), CA_OK);
  run_stress(ctx);
  ca_context_free(ctx);
}

}  // namespace
