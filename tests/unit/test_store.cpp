// store: every block reaches the sink exactly once with its region (checked against NumPy by
// writing the blocks into a buffer), the sink's failure stops the compute with its status and
// message, several arrays at once, bounded memory under a memory limit, no leaks.
#include <chunkarray/chunkarray.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <numeric>
#include <vector>

#include "core/block.hpp"
#include "numpy_ref.hpp"

// A pointer to a temporary options struct, valid for the full expression (C++ has no compound literals).
template <class T>
static const T *opt_ptr(const T &o) {
  return &o;
}


namespace {

using ca::test::Npy;

struct Ctx {
  ca_context_t *ctx = nullptr;
  Ctx() { EXPECT_EQ(ca_context_new(&ctx, nullptr), CA_OK); }
  explicit Ctx(int32_t threads) {
    ca_context_options_t o = CA_CONTEXT_OPTIONS_INIT;
    o.num_threads = threads;
    EXPECT_EQ(ca_context_new(&ctx, &o), CA_OK);
  }
  ~Ctx() { ca_context_free(ctx); }
};

ca_chunks_t view(const std::vector<std::vector<int64_t>> &c, std::vector<int64_t> &nb, std::vector<int64_t> &sz) {
  nb.clear();
  sz.clear();
  for (auto &d : c) {
    nb.push_back(int64_t(d.size()));
    sz.insert(sz.end(), d.begin(), d.end());
  }
  return ca_chunks_t{int32_t(c.size()), nb.data(), sz.data()};
}

// A sink writing blocks into C-order buffers (one per array) and counting how often each element
// was written.
struct Target {
  std::vector<std::vector<int64_t>> shapes;
  std::vector<std::vector<uint8_t>> data;
  std::vector<std::vector<int>> hits;
  std::vector<size_t> itemsize;
  std::mutex mu;
  std::atomic<int64_t> calls{0};
  std::atomic<int64_t> bytes{0};
  int64_t fail_at = -1;         // call number that fails
  ca_status_t fail_with = CA_OK;
  const char *fail_msg = nullptr;

  void add(const ca_array_t *a) {
    shapes.emplace_back(ca_array_shape(a), ca_array_shape(a) + ca_array_ndim(a));
    int64_t n = ca_array_size(a);
    itemsize.push_back(size_t(ca_array_nbytes(a) / (n ? n : 1)));
    size_t isz = ca_dtype_size(ca_array_dtype(a));
    itemsize.back() = isz;
    data.emplace_back(size_t(n) * isz);
    hits.emplace_back(size_t(n), 0);
  }

  static ca_status_t sink(const ca_block_t *b, const ca_store_region_t *r, void *ud) {
    auto *t = static_cast<Target *>(ud);
    int64_t k = t->calls++;
    t->bytes += int64_t(ca_block_nbytes(b));
    if (k == t->fail_at) {
      if (t->fail_msg) ca_store_set_error(r, t->fail_msg);
      return t->fail_with;
    }
    const auto &shape = t->shapes[r->array];
    int32_t nd = r->ndim;
    if (nd != int32_t(shape.size()) || ca_block_ndim(b) != nd) return CA_EINVAL;
    for (int32_t d = 0; d < nd; ++d)
      if (r->stop[d] - r->start[d] != ca_block_shape(b)[d]) return CA_EINVAL;
    size_t isz = t->itemsize[r->array];
    std::lock_guard<std::mutex> lk(t->mu);
    // Walk the block's elements in C order.
    int64_t n = ca_block_size(b);
    std::vector<int64_t> pos(size_t(nd), 0);
    const uint8_t *src = static_cast<const uint8_t *>(ca_block_data(b));
    for (int64_t i = 0; i < n; ++i) {
      int64_t lin = 0;
      for (int32_t d = 0; d < nd; ++d) lin = lin * shape[size_t(d)] + r->start[d] + pos[size_t(d)];
      std::memcpy(t->data[r->array].data() + size_t(lin) * isz, src + size_t(i) * isz, isz);
      t->hits[r->array][size_t(lin)]++;
      for (int32_t d = nd - 1; d >= 0; --d) {
        if (++pos[size_t(d)] < ca_block_shape(b)[d]) break;
        pos[size_t(d)] = 0;
      }
    }
    return CA_OK;
  }
};

std::string shape_py(const std::vector<int64_t> &s) {
  std::string r = "(";
  for (int64_t v : s) r += std::to_string(v) + ",";
  return r + ")";
}

TEST(Store, RegionsCoverTheArrayExactlyOnce) {
  Ctx c;
  int64_t live0 = ca::block_live_count();
  struct Case {
    std::vector<int64_t> shape;
    std::vector<std::vector<int64_t>> chunks;
  };
  std::vector<Case> cases = {{{7, 9}, {{3, 0, 4}, {2, 5, 2}}},
                             {{5, 1, 6}, {{5}, {1}, {1, 2, 3}}},
                             {{0, 4}, {{0}, {2, 2}}},
                             {{}, {}},
                             {{13}, {{1, 1, 11}}}};
  for (ca_dtype_t dt : {CA_FLOAT64, CA_INT16, CA_UINT8, CA_COMPLEX64, CA_BOOL}) {
    for (auto &cs : cases) {
      Npy want = ca::test::run_numpy("result = (np.arange(int(np.prod(" + shape_py(cs.shape) + "))) % 97).astype('" +
                                     ca_dtype_name(dt) + "').reshape(" + shape_py(cs.shape) + ")");
      want.shape = cs.shape;
      std::vector<int64_t> nb, sz;
      ca_chunks_t ch = view(cs.chunks, nb, sz);
      ca_array_t *a = nullptr;
      ASSERT_EQ(ca_array_from_buffer(&a, want.data.data(), dt, int32_t(cs.shape.size()), cs.shape.data(), &ch, nullptr),
                CA_OK)
          << ca_last_error_message();
      // Store a computed expression of it (a + 0 keeps the values, makes real tasks).
      ca_array_t *e = nullptr;
      ASSERT_EQ(ca_array_rechunk_spec(&e, c.ctx, a, "1"), CA_OK) << ca_last_error_message();
      for (ca_array_t *x : {a, e}) {
        Target t;
        t.add(x);
        ASSERT_EQ(ca_array_store(c.ctx, x, Target::sink, &t, nullptr), CA_OK) << ca_last_error_message();
        int64_t nblocks = 1;
        for (int32_t d = 0; d < ca_array_ndim(x); ++d) nblocks *= ca_array_numblocks(x)[d];
        EXPECT_EQ(t.calls.load(), nblocks);
        for (int h : t.hits[0]) EXPECT_EQ(h, 1);
        EXPECT_EQ(t.data[0], want.data) << ca_dtype_name(dt);
      }
      ca_array_free(e);
      ca_array_free(a);
    }
  }
  EXPECT_EQ(ca::block_live_count(), live0);
}

TEST(Store, BlockIndexMatchesTheRegion) {
  Ctx c;
  std::vector<int64_t> shape = {10, 7};
  std::vector<std::vector<int64_t>> chunks = {{4, 6}, {3, 3, 1}};
  std::vector<int64_t> nb, sz;
  ca_chunks_t ch = view(chunks, nb, sz);
  ca_array_t *a = nullptr;
  ASSERT_EQ(ca_array_ones(&a, 2, shape.data(), &ch, CA_INT32), CA_OK);
  struct Seen {
    std::mutex mu;
    std::vector<std::vector<int64_t>> idx, start, stop;
  } seen;
  auto sink = [](const ca_block_t *, const ca_store_region_t *r, void *ud) -> ca_status_t {
    auto *s = static_cast<Seen *>(ud);
    std::lock_guard<std::mutex> lk(s->mu);
    s->idx.emplace_back(r->block_index, r->block_index + r->ndim);
    s->start.emplace_back(r->start, r->start + r->ndim);
    s->stop.emplace_back(r->stop, r->stop + r->ndim);
    return CA_OK;
  };
  ASSERT_EQ(ca_array_store(c.ctx, a, sink, &seen, nullptr), CA_OK) << ca_last_error_message();
  ASSERT_EQ(seen.idx.size(), 6u);
  for (size_t k = 0; k < seen.idx.size(); ++k) {
    for (int d = 0; d < 2; ++d) {
      int64_t off = 0;
      for (int64_t b = 0; b < seen.idx[k][size_t(d)]; ++b) off += chunks[size_t(d)][size_t(b)];
      EXPECT_EQ(seen.start[k][size_t(d)], off);
      EXPECT_EQ(seen.stop[k][size_t(d)], off + chunks[size_t(d)][size_t(seen.idx[k][size_t(d)])]);
    }
  }
  ca_array_free(a);
}

TEST(Store, SinkFailureStopsTheComputeWithItsMessage) {
  // One worker: the failing call cancels the run before another block is handed to the sink (with
  // several workers, a worker descheduled inside the failing call may let the others finish all).
  Ctx c(1);
  int64_t live0 = ca::block_live_count();
  std::vector<int64_t> shape = {400, 400};
  std::vector<std::vector<int64_t>> chunks = {std::vector<int64_t>(20, 20), std::vector<int64_t>(20, 20)};
  std::vector<int64_t> nb, sz;
  ca_chunks_t ch = view(chunks, nb, sz);
  ca_array_t *x = nullptr, *r = nullptr;
  ASSERT_EQ(ca_array_random(&x, CA_RANDOM_UNIFORM, 2, shape.data(), &ch, CA_FLOAT64, opt_ptr(ca_random_options_t{sizeof(ca_random_options_t), 0u, 3, 0.0, 1.0, 0.0})), CA_OK);
  ASSERT_EQ(ca_array_rechunk_spec(&r, c.ctx, x, "(1, -1)"), CA_OK) << ca_last_error_message();
  {
    Target t;
    t.add(r);
    t.fail_at = 10;
    t.fail_with = CA_EIO;
    t.fail_msg = "disk full";
    EXPECT_EQ(ca_array_store(c.ctx, r, Target::sink, &t, nullptr), CA_EIO);
    std::string msg = ca_last_error_message();
    EXPECT_NE(msg.find("disk full"), std::string::npos) << msg;
    EXPECT_NE(msg.find("('rechunk-"), std::string::npos) << msg;  // the block's key
    EXPECT_LT(t.calls.load(), 400);                                     // stopped early
  }
  {
    Target t;
    t.add(r);
    t.fail_at = 0;
    t.fail_with = 7;  // not a status code
    EXPECT_EQ(ca_array_store(c.ctx, r, Target::sink, &t, nullptr), CA_EKERNEL);
    EXPECT_NE(std::string(ca_last_error_message()).find("the sink returned"), std::string::npos);
  }
  EXPECT_EQ(ca::block_live_count(), live0);
  // Bad arguments.
  Target t;
  t.add(r);
  EXPECT_EQ(ca_array_store(nullptr, r, Target::sink, &t, nullptr), CA_EINVAL);
  EXPECT_EQ(ca_array_store(c.ctx, nullptr, Target::sink, &t, nullptr), CA_EINVAL);
  EXPECT_EQ(ca_array_store(c.ctx, r, nullptr, &t, nullptr), CA_EINVAL);
  const ca_array_t *arrs[2] = {r, nullptr};
  EXPECT_EQ(ca_array_store_many(c.ctx, arrs, 2, Target::sink, &t, nullptr), CA_EINVAL);
  EXPECT_EQ(ca_array_store_many(c.ctx, nullptr, 2, Target::sink, &t, nullptr), CA_EINVAL);
  EXPECT_EQ(ca_array_store_many(c.ctx, nullptr, 0, Target::sink, &t, nullptr), CA_OK);
  EXPECT_EQ(t.calls.load(), 0);
  ca_array_free(r);
  ca_array_free(x);
}

TEST(Store, ManyArraysInOneCompute) {
  Ctx c;
  std::vector<int64_t> shape = {30, 20};
  std::vector<std::vector<int64_t>> chunks = {{10, 10, 10}, {7, 13}};
  std::vector<int64_t> nb, sz;
  ca_chunks_t ch = view(chunks, nb, sz);
  ca_array_t *x = nullptr, *y = nullptr, *z = nullptr;
  ASSERT_EQ(ca_array_random(&x, CA_RANDOM_NORMAL, 2, shape.data(), &ch, CA_FLOAT64, opt_ptr(ca_random_options_t{sizeof(ca_random_options_t), 0u, 5, 0.0, 1.0, 0.0})), CA_OK);
  ASSERT_EQ(ca_array_rechunk_spec(&y, c.ctx, x, "{0: 6, 1: -1}"), CA_OK);
  ca_scalar_t two{};
  two.kind = CA_FLOAT64;
  two.re = 2.0;
  ASSERT_EQ(ca_array_binary_scalar(&z, CA_OP_MUL, x, two, false), CA_OK) << ca_last_error_message();
  Target t;
  t.add(x);
  t.add(y);
  t.add(z);
  const ca_array_t *arrs[3] = {x, y, z};
  ASSERT_EQ(ca_array_store_many(c.ctx, arrs, 3, Target::sink, &t, nullptr), CA_OK) << ca_last_error_message();
  EXPECT_EQ(t.calls.load(), 6 + 5 + 6);
  EXPECT_EQ(t.data[0], t.data[1]);
  const double *a = reinterpret_cast<const double *>(t.data[0].data());
  const double *b = reinterpret_cast<const double *>(t.data[2].data());
  for (size_t i = 0; i < 600; ++i) EXPECT_EQ(b[i], 2 * a[i]);
  for (auto &h : t.hits)
    for (int v : h) EXPECT_EQ(v, 1);
  ca_array_free(z);
  ca_array_free(y);
  ca_array_free(x);
}

TEST(Store, ArrayLargerThanTheMemoryLimit) {
  Ctx c;
  // 64 MiB generated in 256 KiB blocks, stored under a 4 MiB memory limit: blocks are freed as they are
  // stored, so the limit is never reached.
  ASSERT_EQ(ca_context_set_config(c.ctx, "memory-limit", "4MiB"), CA_OK) << ca_last_error_message();
  std::vector<int64_t> shape = {8192, 1024};
  std::vector<std::vector<int64_t>> chunks = {std::vector<int64_t>(256, 32), {1024}};
  std::vector<int64_t> nb, sz;
  ca_chunks_t ch = view(chunks, nb, sz);
  ca_array_t *x = nullptr;
  ASSERT_EQ(ca_array_random(&x, CA_RANDOM_UNIFORM, 2, shape.data(), &ch, CA_FLOAT64, opt_ptr(ca_random_options_t{sizeof(ca_random_options_t), 0u, 9, 0.0, 1.0, 0.0})), CA_OK);
  struct Sum {
    std::atomic<int64_t> bytes{0};
  } s;
  auto sink = [](const ca_block_t *b, const ca_store_region_t *, void *ud) -> ca_status_t {
    static_cast<Sum *>(ud)->bytes += int64_t(ca_block_nbytes(b));
    return CA_OK;
  };
  ASSERT_EQ(ca_array_store(c.ctx, x, sink, &s, nullptr), CA_OK) << ca_last_error_message();
  EXPECT_EQ(s.bytes.load(), ca_array_nbytes(x));
  // Holding every block instead exceeds the limit.
  ca_array_t *p = nullptr;
  ca_array_t *sum = nullptr;
  ASSERT_EQ(ca_array_rechunk_spec(&p, c.ctx, x, "(-1, 1024)"), CA_OK);  // one 64 MiB block
  EXPECT_EQ(ca_array_store(c.ctx, p, sink, &s, nullptr), CA_ENOMEM);
  ca_array_free(sum);
  ca_array_free(p);
  ca_array_free(x);
}

}  // namespace
