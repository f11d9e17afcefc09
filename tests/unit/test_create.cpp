// Array creation (full, arange, linspace, eye, tri, diag, random) against NumPy, and the pictures
// (SVG chunk diagrams, graphviz dot).
#include <gtest/gtest.h>

#include <chunkarray/array.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <unistd.h>
#include <vector>

#include "array/array.hpp"
#include "support/expect_error.hpp"
#include "support/builtin_registry.hpp"
#include "array/create.hpp"
#include "array/expr.hpp"
#include "exec/executor.hpp"
#include "kernel/kernel.hpp"
#include "numpy_ref.hpp"

using namespace ca;
using ca::test::compute_bytes;
using ca::test::Npy;

namespace {

// ---- helpers --------------------------------------------------------------------------------------

template <class T>
std::vector<T> compute_as(const ArrayPtr &a, int32_t threads = 2) {
  EXPECT_EQ(a->dtype, dtype_of<T>());
  std::vector<uint8_t> b = compute_bytes(a, threads);
  std::vector<T> out(b.size() / sizeof(T));
  if (!b.empty()) std::memcpy(out.data(), b.data(), b.size());
  return out;
}

std::string dims(const std::vector<Index> &v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + (v.size() == 1 ? ",)" : ")");
}

// Exact comparison with NumPy expressions, batched into one python run (NumPy's import is the
// slow part): same dtype, shape and bytes for every case.
class NumpyBatch {
 public:
  void add(const ArrayPtr &a, const std::string &expr) { cases_.push_back({a, expr}); }
  void check() {
    if (cases_.empty()) return;
    std::string code =
        "rs = []\n"
        "def chk(i, r, dt, shape):\n"
        "    r = np.asarray(r)\n"
        "    if r.dtype != np.dtype(dt) or r.shape != shape:\n"
        "        raise SystemExit(f'case {i}: NumPy gives {r.dtype}{r.shape}, chunkarray {dt}{shape}')\n"
        "    rs.append(np.array(r, order='C').tobytes())\n";
    for (size_t i = 0; i < cases_.size(); ++i)
      code += "chk(" + std::to_string(i) + ", " + cases_[i].second + ", '" + dtype_name(cases_[i].first->dtype) +
              "', " + dims(cases_[i].first->shape) + ")\n";
    code += "result = np.frombuffer(b''.join(rs), dtype=np.uint8)\n";
    Npy want = ca::test::run_numpy(code, {});
    size_t off = 0;
    for (auto &[a, expr] : cases_) {
      Npy got = ca::test::compute_npy(a);
      ASSERT_LE(off + got.data.size(), want.data.size()) << expr;
      size_t isz = dtype_size(a->dtype);
      for (size_t i = 0; i < got.data.size(); i += isz) {
        if (std::memcmp(&got.data[i], &want.data[off + i], isz) != 0) {
          ADD_FAILURE() << expr << ": first difference at element " << i / isz << " (chunks "
                        << chunks_str(a->chunks) << ")";
          break;
        }
      }
      off += got.data.size();
    }
    EXPECT_EQ(off, want.data.size());
    cases_.clear();
  }
  ~NumpyBatch() { check(); }

 private:
  std::vector<std::pair<ArrayPtr, std::string>> cases_;
};

Chunks ch(std::initializer_list<std::vector<Index>> c) { return Chunks(c); }

using ca::test::expect_error;

// A 2-d int64 array 0..n*m-1 with the given chunks (via from_buffer).
ArrayPtr iota2d(Index n, Index m, const Chunks &chunks) {
  std::vector<int64_t> data(size_t(n * m));
  for (size_t i = 0; i < data.size(); ++i) data[i] = int64_t(i);
  return from_buffer(data.data(), CA_INT64, {n, m}, nullptr, chunks, false, nullptr, nullptr);
}

}  // namespace

// ---- full / zeros / ones ----------------------------------------------------------------------------

TEST(Create, FullMatchesNumpy) {
  struct Case {
    std::vector<Index> shape;
    Chunks chunks;
    DType dtype;
    double re, im;
    std::string np;
  };
  std::vector<Case> cases = {
      {{}, {}, CA_FLOAT64, 2.5, 0, "np.full((), 2.5)"},
      {{0}, ch({{0}}), CA_FLOAT64, 1, 0, "np.full((0,), 1.0)"},
      {{1}, ch({{1}}), CA_INT32, 7, 0, "np.full((1,), 7, dtype=np.int32)"},
      {{7}, ch({{2, 3, 2}}), CA_INT64, -3.9, 0, "np.full((7,), -3, dtype=np.int64)"},
      {{5, 4}, ch({{2, 3}, {1, 3}}), CA_FLOAT32, 0.1, 0, "np.full((5, 4), 0.1, dtype=np.float32)"},
      {{3, 0, 2}, ch({{3}, {0}, {1, 1}}), CA_UINT8, 255, 0, "np.full((3, 0, 2), 255, dtype=np.uint8)"},
      {{4, 3}, ch({{1, 1, 2}, {3}}), CA_BOOL, 2, 0, "np.full((4, 3), True)"},
      {{3, 2}, ch({{2, 1}, {1, 1}}), CA_COMPLEX128, 1.5, -2, "np.full((3, 2), 1.5-2j)"},
      {{5}, ch({{5}}), CA_COMPLEX64, 0, 1, "np.full((5,), 1j, dtype=np.complex64)"},
  };
  NumpyBatch nb;
  for (const Case &c : cases) nb.add(full(c.shape, c.chunks, c.dtype, {c.re, c.im}), c.np);
  nb.add(zeros({6, 5}, ch({{4, 2}, {2, 2, 1}}), CA_INT16), "np.zeros((6, 5), dtype=np.int16)");
  nb.add(ones({6, 5}, ch({{4, 2}, {2, 2, 1}}), CA_FLOAT64), "np.ones((6, 5))");
  nb.add(empty({2, 2}, ch({{1, 1}, {2}}), CA_FLOAT64), "np.zeros((2, 2))");
}

TEST(Create, OneSymbolicLayer) {
  // A million blocks: one blockwise layer, nothing materialized per block.
  std::vector<Index> c(1000000, 3);
  ArrayPtr a = full({3000000}, Chunks{c}, CA_FLOAT64, 1.0);
  ASSERT_EQ(a->graph->layers().size(), 1u);
  EXPECT_EQ(a->graph->layers()[0]->kind(), LayerKind::Blockwise);
  EXPECT_EQ(a->graph->layers()[0]->num_tasks(), 1000000);
  ArrayPtr r = random(CA_RANDOM_UNIFORM, 1, {3000000}, Chunks{c}, CA_FLOAT64, 0, 1);
  EXPECT_EQ(r->graph->layers().size(), 1u);
}

// ---- arange / linspace --------------------------------------------------------------------------------

TEST(Create, ArangeMatchesNumpy) {
  struct Case {
    double start, stop, step;
    std::vector<Index> chunks;
    DType dtype;
    std::string np;
  };
  std::vector<Case> cases = {
      {0, 9, 1, {2, 3, 4}, CA_INT64, "np.arange(9)"},
      {0.5, 10.3, 0.7, {5, 5, 5}, CA_FLOAT64, "np.arange(0.5, 10.3, 0.7)"},
      {10, 0, -3, {1, 3}, CA_INT32, "np.arange(10, 0, -3, dtype=np.int32)"},
      {1, 2, 0.1, {3, 3, 4}, CA_FLOAT32, "np.arange(1, 2, 0.1, dtype=np.float32)"},
      {0, 0, 1, {0}, CA_FLOAT64, "np.arange(0, 0, 1.0)"},
      {5, 0, 1, {0}, CA_INT64, "np.arange(5, 0, 1)"},
      {0.5, 5, 1.5, {2, 1}, CA_INT64, "np.arange(0.5, 5, 1.5, dtype=np.int64)"},
      {-7, 100, 13, {4, 5}, CA_INT16, "np.arange(-7, 100, 13, dtype=np.int16)"},
      {0, 5, 0.5, {4, 6}, CA_COMPLEX128, "np.arange(0, 5, 0.5, dtype=complex)"},
      {3, 4, 1, {1}, CA_UINT32, "np.arange(3, 4, 1, dtype=np.uint32)"},
      {0, 1e6, 1, {300000, 700000}, CA_FLOAT64, "np.arange(0, 1e6, 1.0)"},
      {-3.3, 7.1, 0.013, {100, 700}, CA_FLOAT64, "np.arange(-3.3, 7.1, 0.013)"},
  };
  NumpyBatch nb;
  for (const Case &c : cases) nb.add(arange(c.start, c.stop, c.step, Chunks{c.chunks}, c.dtype), c.np);
  EXPECT_EQ(arange_length(0, 10, 3), 4);
  EXPECT_EQ(arange_length(0, -10, 3), 0);
}

TEST(Create, ArangeChunkingNeverChangesValues) {
  ArrayPtr a = arange(-3.3, 7.1, 0.013, Chunks{{800}}, CA_FLOAT64);
  ArrayPtr b = arange(-3.3, 7.1, 0.013, Chunks{{1, 7, 100, 692}}, CA_FLOAT64);
  EXPECT_EQ(compute_bytes(a, 1), compute_bytes(b, 2));
}

TEST(Create, LinspaceMatchesNumpy) {
  struct Case {
    double start, stop;
    Index num;
    bool endpoint;
    std::vector<Index> chunks;
    DType dtype;
    std::string np;
  };
  std::vector<Case> cases = {
      {0, 1, 11, true, {3, 3, 5}, CA_FLOAT64, "np.linspace(0, 1, 11)"},
      {0, 1, 10, false, {4, 6}, CA_FLOAT64, "np.linspace(0, 1, 10, endpoint=False)"},
      {2, 3, 1, true, {1}, CA_FLOAT64, "np.linspace(2, 3, 1)"},
      {2, 3, 1, false, {1}, CA_FLOAT64, "np.linspace(2, 3, 1, endpoint=False)"},
      {0, 10, 0, true, {0}, CA_FLOAT64, "np.linspace(0, 10, 0)"},
      {-1, 1, 7, true, {2, 5}, CA_INT64, "np.linspace(-1, 1, 7, dtype=np.int64)"},
      {-10, 3.5, 9, true, {9}, CA_INT32, "np.linspace(-10, 3.5, 9, dtype=np.int32)"},
      {3, 3, 5, true, {2, 3}, CA_FLOAT64, "np.linspace(3, 3, 5)"},
      {1e-310, 2e-310, 4, true, {2, 2}, CA_FLOAT64, "np.linspace(1e-310, 2e-310, 4)"},
      {0.1, 0.7, 13, true, {6, 7}, CA_FLOAT32, "np.linspace(0.1, 0.7, 13, dtype=np.float32)"},
      {-2.5, 1e3, 100001, true, {50000, 50001}, CA_FLOAT64, "np.linspace(-2.5, 1e3, 100001)"},
  };
  NumpyBatch nb;
  for (const Case &c : cases) nb.add(linspace(c.start, c.stop, c.num, c.endpoint, Chunks{c.chunks}, c.dtype), c.np);
}

// ---- eye / tri ----------------------------------------------------------------------------------------

TEST(Create, EyeTriMatchNumpy) {
  struct Case {
    Index n, m, k;
    Chunks chunks;
    DType dtype;
  };
  std::vector<Case> cases = {
      {5, 5, 0, ch({{2, 3}, {2, 3}}), CA_FLOAT64},     {4, 7, 2, ch({{1, 3}, {3, 3, 1}}), CA_FLOAT64},
      {6, 3, -2, ch({{4, 2}, {1, 2}}), CA_INT32},      {3, 3, 5, ch({{3}, {3}}), CA_FLOAT64},
      {3, 3, -5, ch({{1, 2}, {2, 1}}), CA_INT64},      {0, 0, 0, ch({{0}, {0}}), CA_FLOAT64},
      {0, 4, 1, ch({{0}, {2, 2}}), CA_FLOAT64},        {1, 1, 0, ch({{1}, {1}}), CA_BOOL},
      {9, 9, 1, ch({{2, 3, 4}, {4, 3, 2}}), CA_UINT8}, {7, 11, -1, ch({{7}, {5, 6}}), CA_COMPLEX128},
  };
  NumpyBatch nb;
  for (const Case &c : cases) {
    std::string args = std::to_string(c.n) + ", " + std::to_string(c.m) + ", " + std::to_string(c.k) + ", dtype='" +
                       dtype_name(c.dtype) + "'";
    nb.add(eye(c.n, c.m, c.k, c.chunks, c.dtype), "np.eye(" + args + ")");
    nb.add(tri(c.n, c.m, c.k, c.chunks, c.dtype), "np.tri(" + args + ")");
  }
}

// ---- diag ---------------------------------------------------------------------------------------------

TEST(Create, Diag1dMatchesNumpyAndDask) {
  NumpyBatch nb;
  ArrayPtr v = arange(0, 9, 1, Chunks{{2, 3, 4}}, CA_INT64);
  ArrayPtr d = diag(v, 0);
  EXPECT_EQ(chunks_str(d->chunks), "((2, 3, 4), (2, 3, 4))");
  nb.add(d, "np.diag(np.arange(9))");
  for (Index k : {1, 2, 5, -1, -3, -9, 10}) {
    ArrayPtr dk = diag(v, k);
    Index a = k < 0 ? -k : k;
    Chunks want = k > 0 ? Chunks{{2, 3, 4, a}, {a, 2, 3, 4}} : Chunks{{a, 2, 3, 4}, {2, 3, 4, a}};
    EXPECT_EQ(chunks_str(dk->chunks), chunks_str(want)) << "k=" << k;
    nb.add(dk, "np.diag(np.arange(9), " + std::to_string(k) + ")");
  }
  // float, single block, empty, size 1
  nb.add(diag(linspace(0, 1, 5, true, Chunks{{5}}, CA_FLOAT64), 1), "np.diag(np.linspace(0, 1, 5), 1)");
  nb.add(diag(arange(0, 0, 1, Chunks{{0}}, CA_FLOAT64), 0), "np.diag(np.arange(0.0))");
  nb.add(diag(arange(0, 0, 1, Chunks{{0}}, CA_FLOAT64), 2), "np.diag(np.arange(0.0), 2)");
  nb.add(diag(arange(4, 5, 1, Chunks{{1}}, CA_INT32), -1), "np.diag(np.arange(4, 5, dtype=np.int32), -1)");
}

TEST(Create, Diag2dMatchesNumpy) {
  struct Case {
    Index n, m;
    Chunks chunks;
  };
  std::vector<Case> cases = {
      {6, 8, ch({{2, 3, 1}, {3, 1, 4}})},
      {9, 9, ch({{2, 3, 4}, {2, 3, 4}})},
      {5, 3, ch({{5}, {1, 1, 1}})},
      {4, 4, ch({{1, 0, 3}, {2, 0, 2}})},  // zero-size blocks
      {1, 1, ch({{1}, {1}})},
  };
  NumpyBatch nb;
  for (const Case &c : cases) {
    ArrayPtr x = iota2d(c.n, c.m, c.chunks);
    for (Index k = -c.n - 1; k <= c.m + 1; ++k) {
      std::string np = "np.diag(np.arange(" + std::to_string(c.n * c.m) + ").reshape(" + std::to_string(c.n) + ", " +
                       std::to_string(c.m) + "), " + std::to_string(k) + ")";
      ArrayPtr d = diag(x, k);
      ASSERT_EQ(d->ndim(), 1);
      nb.add(d, np);
    }
  }
  // dask: k == 0 with equal chunks keeps them.
  EXPECT_EQ(chunks_str(diag(iota2d(9, 9, ch({{2, 3, 4}, {2, 3, 4}})), 0)->chunks), "((2, 3, 4),)");
  // Round trip: diag(diag(v)) == v.
  ArrayPtr v = arange(0, 9, 1, Chunks{{2, 3, 4}}, CA_INT64);
  EXPECT_EQ(compute_as<int64_t>(diag(diag(v, 0), 0)), compute_as<int64_t>(v));
  EXPECT_EQ(compute_as<int64_t>(diag(diag(v, 3), 3)), compute_as<int64_t>(v));
  EXPECT_EQ(compute_as<int64_t>(diag(diag(v, -2), -2)), compute_as<int64_t>(v));
}

// ---- random -------------------------------------------------------------------------------------------

TEST(Create, PhiloxKnownAnswers) {
  // Random123's kat_vectors for philox4x32_10.
  uint32_t out[4];
  const uint32_t c0[4] = {0, 0, 0, 0}, k0[2] = {0, 0};
  detail::philox4x32_10(c0, k0, out);
  EXPECT_EQ(out[0], 0x6627e8d5u);
  EXPECT_EQ(out[1], 0xe169c58du);
  EXPECT_EQ(out[2], 0xbc57ac4cu);
  EXPECT_EQ(out[3], 0x9b00dbd8u);
  const uint32_t c1[4] = {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}, k1[2] = {0xffffffffu, 0xffffffffu};
  detail::philox4x32_10(c1, k1, out);
  EXPECT_EQ(out[0], 0x408f276du);
  EXPECT_EQ(out[1], 0x41c83b0eu);
  EXPECT_EQ(out[2], 0xa20bc7c6u);
  EXPECT_EQ(out[3], 0x6d5451fdu);
  const uint32_t c2[4] = {0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}, k2[2] = {0xa4093822u, 0x299f31d0u};
  detail::philox4x32_10(c2, k2, out);
  EXPECT_EQ(out[0], 0xd16cfe09u);
  EXPECT_EQ(out[1], 0x94fdccebu);
  EXPECT_EQ(out[2], 0x5001e420u);
  EXPECT_EQ(out[3], 0x24126ea1u);
}

TEST(Create, PhiloxBatchEqualsOneCounterAtATime) {
  // The 64-counter batches (AVX-512 where the CPU has it and CA_DISABLE_CPU_FEATURES allows it; this
  // suite runs again as create_baseline without) give Random123's values counter by counter, for
  // keys and counters whose words use all 32 bits.
  uint64_t state = 0x9E3779B97F4A7C15ull;
  auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return uint32_t(state >> 32);
  };
  for (int rep = 0; rep < 20; ++rep) {
    const uint64_t seed = uint64_t(next()) << 32 | next();
    // 64 consecutive counters from c0 (some crossing a 2^32 boundary: the carry into word 1), words
    // 2 and 3 given, each counter's four results together.
    const uint64_t c0 = rep % 3 == 0 ? 0xFFFFFFE0ull + (uint64_t(next()) << 32) : rep % 3 == 1 ? uint64_t(next()) : ~0ull - 40;
    const uint32_t w2 = next(), w3 = rep % 2 ? next() : 0u;
    uint32_t got[256];
    detail::philox_counters64(seed, c0, w2, w3, got);
    for (int i = 0; i < 64; ++i) {
      const uint64_t c = c0 + uint64_t(i);
      const uint32_t ctr[4] = {uint32_t(c), uint32_t(c >> 32), w2, w3}, key[2] = {uint32_t(seed), uint32_t(seed >> 32)};
      uint32_t o[4];
      detail::philox4x32_10(ctr, key, o);
      for (int w = 0; w < 4; ++w) ASSERT_EQ(got[4 * i + w], o[w]) << "rep " << rep << " counter " << i << " word " << w;
    }
  }
}

TEST(Create, UniformIsOneRoundingOfItsWord) {
  // Element g of uniform(lo, hi) is fma(hi - lo, u, lo), u = the 52-bit fraction of word g % 2 of
  // Philox counter g / 2 (stream 0): one rounding on every ISA (the vectorized clones fused it and the
  // baseline one did not, so CPUs disagreed in the last bit). Also for random_params' elements, and for
  // the 128-element batches made straight from the Philox registers (blocks from an even index).
  const uint64_t seed = 0x1234567890ABCDEFull;
  const double lo = 0.1, hi = 0.7;  // hi - lo not a power of two: the product rounds
  const Index n = 1000;
  std::vector<uint8_t> got = compute_bytes(random(CA_RANDOM_UNIFORM, seed, {n}, Chunks{{7, 1, 500, 492}}, CA_FLOAT64, lo, hi));
  const std::vector<double> grid(size_t(n), lo), top(size_t(n), hi);
  ArrayPtr pl = from_buffer(grid.data(), CA_FLOAT64, {n}, nullptr, Chunks{{n}}, false, nullptr, nullptr);
  ArrayPtr ph = from_buffer(top.data(), CA_FLOAT64, {n}, nullptr, Chunks{{n}}, false, nullptr, nullptr);
  std::vector<uint8_t> viap = compute_bytes(random_params(CA_RANDOM_UNIFORM, seed, {n}, Chunks{{n}}, CA_FLOAT64, {pl, ph}, 0, 0, 0));
  int rounded = 0;
  for (Index g = 0; g < n; ++g) {
    const uint32_t ctr[4] = {uint32_t(uint64_t(g) >> 1), 0, 0, 0}, key[2] = {uint32_t(seed), uint32_t(seed >> 32)};
    uint32_t o[4];
    detail::philox4x32_10(ctr, key, o);
    const uint64_t w = (g & 1) ? (uint64_t(o[2]) | uint64_t(o[3]) << 32) : (uint64_t(o[0]) | uint64_t(o[1]) << 32);
    const uint64_t b = (w >> 12) | 0x3FF0000000000000ull;
    double d;
    std::memcpy(&d, &b, 8);
    const double want = std::fma(hi - lo, d - 1.0, lo);
    volatile double prod = (hi - lo) * (d - 1.0);  // (volatile: no contraction here)
    rounded += (prod + lo) != want;
    double v, vp;
    std::memcpy(&v, got.data() + 8 * g, 8);
    std::memcpy(&vp, viap.data() + 8 * g, 8);
    ASSERT_EQ(v, want) << "element " << g;
    ASSERT_EQ(vp, want) << "random_params element " << g;
  }
  EXPECT_GT(rounded, 10);  // the inputs do tell one rounding from two
}

TEST(Create, RandomReproducibleAcrossThreads) {
  Chunks c{{1000, 3000, 17, 983}, {7, 13}};
  for (int32_t dist : {CA_RANDOM_UNIFORM, CA_RANDOM_NORMAL, CA_RANDOM_INTEGERS}) {
    DType dt = dist == CA_RANDOM_INTEGERS ? CA_INT32 : CA_FLOAT64;
    double p0 = dist == CA_RANDOM_INTEGERS ? -5 : 1, p1 = dist == CA_RANDOM_INTEGERS ? 1000 : 2;
    ArrayPtr a = random(dist, 42, {5000, 20}, c, dt, p0, p1);
    ArrayPtr b = random(dist, 42, {5000, 20}, c, dt, p0, p1);
    EXPECT_EQ(a->name, b->name);
    std::vector<uint8_t> r0 = compute_bytes(a, 0), r1 = compute_bytes(a, 1), r4 = compute_bytes(b, 4);
    EXPECT_EQ(r0, r1) << dist;
    EXPECT_EQ(r0, r4) << dist;
    ArrayPtr other = random(dist, 43, {5000, 20}, c, dt, p0, p1);
    EXPECT_NE(other->name, a->name);
    EXPECT_NE(compute_bytes(other, 2), r0);
  }
  // Values depend on (seed, global element index) only: any chunking, any extent, same values.
  for (int32_t dist : {CA_RANDOM_UNIFORM, CA_RANDOM_NORMAL, CA_RANDOM_INTEGERS}) {
    DType dt = dist == CA_RANDOM_INTEGERS ? CA_INT64 : CA_FLOAT64;
    std::vector<double> x = compute_as<double>(
        elementwise_astype(random(dist, 7, {301}, Chunks{{100, 201}}, dt, 0, 1000), CA_FLOAT64));
    std::vector<double> y = compute_as<double>(
        elementwise_astype(random(dist, 7, {201}, Chunks{{1, 50, 49, 3, 98}}, dt, 0, 1000), CA_FLOAT64));
    EXPECT_TRUE(std::equal(y.begin(), y.end(), x.begin())) << dist;
    std::vector<uint8_t> a2 = compute_bytes(random(dist, 9, {37, 41}, Chunks{{37}, {41}}, dt, 0, 1000), 2);
    std::vector<uint8_t> b2 = compute_bytes(random(dist, 9, {37, 41}, Chunks{{5, 32}, {1, 39, 1}}, dt, 0, 1000), 2);
    EXPECT_EQ(a2, b2) << dist;
  }
}

TEST(Create, RandomStatistics) {
  const Index n = 1000000;
  Chunks c{{250000, 250000, 250000, 250000}};
  {
    std::vector<double> u = compute_as<double>(random(CA_RANDOM_UNIFORM, 1, {n}, c, CA_FLOAT64, -2, 3));
    double s = 0, s2 = 0, mn = 1e9, mx = -1e9;
    for (double v : u) s += v, s2 += v * v, mn = std::min(mn, v), mx = std::max(mx, v);
    double mean = s / n, var = s2 / n - mean * mean;
    EXPECT_NEAR(mean, 0.5, 0.01);          // sd of the mean: 5 / sqrt(12e6) = 0.0014
    EXPECT_NEAR(var, 25.0 / 12, 0.02);
    EXPECT_GE(mn, -2.0);
    EXPECT_LT(mx, 3.0);
    EXPECT_LT(mn, -1.999);
    EXPECT_GT(mx, 2.999);
  }
  {
    std::vector<float> u = compute_as<float>(random(CA_RANDOM_UNIFORM, 2, {n}, c, CA_FLOAT32, 0, 1));
    double s = 0;
    for (float v : u) {
      s += v;
      ASSERT_TRUE(v >= 0.0f && v < 1.0f) << v;
    }
    EXPECT_NEAR(s / n, 0.5, 0.003);
  }
  for (DType dt : {CA_FLOAT64, CA_FLOAT32}) {
    ArrayPtr a = random(CA_RANDOM_NORMAL, 3, {n}, c, dt, 10, 2);
    std::vector<double> g;
    if (dt == CA_FLOAT64) g = compute_as<double>(a);
    else for (float f : compute_as<float>(a)) g.push_back(f);
    double s = 0, s2 = 0, s3 = 0, s4 = 0;
    for (double v : g) s += v;
    double mean = s / n;
    for (double v : g) {
      double d = v - mean;
      s2 += d * d, s3 += d * d * d, s4 += d * d * d * d;
    }
    double var = s2 / n, sd = std::sqrt(var);
    EXPECT_NEAR(mean, 10, 0.01);  // sd of the mean 0.002
    EXPECT_NEAR(sd, 2, 0.01);
    EXPECT_NEAR(s3 / n / (var * sd), 0, 0.02);     // skewness
    EXPECT_NEAR(s4 / n / (var * var), 3, 0.03);    // kurtosis
  }
  {
    std::vector<int8_t> v = compute_as<int8_t>(random(CA_RANDOM_INTEGERS, 4, {n}, c, CA_INT8, -128, 128));
    std::vector<int64_t> hist(256, 0);
    for (int8_t x : v) hist[size_t(int(x) + 128)]++;
    for (int64_t h : hist) EXPECT_NEAR(double(h), n / 256.0, 350);  // sd ~ 62
  }
  {
    std::vector<int64_t> v = compute_as<int64_t>(random(CA_RANDOM_INTEGERS, 5, {n}, c, CA_INT64, 3, 10));
    std::map<int64_t, int64_t> hist;
    for (int64_t x : v) hist[x]++;
    ASSERT_EQ(hist.size(), 7u);
    EXPECT_EQ(hist.begin()->first, 3);
    EXPECT_EQ(hist.rbegin()->first, 9);
    for (auto &[k, h] : hist) EXPECT_NEAR(double(h), n / 7.0, 2000) << k;
  }
  {
    // A range that is not a power of two and large (rejection path of the 64-bit method).
    std::vector<uint64_t> v = compute_as<uint64_t>(
        random(CA_RANDOM_INTEGERS, 6, {100000}, Chunks{{100000}}, CA_UINT64, 0, 12297829382473034752.0));
    uint64_t mx = 0;
    int64_t below_half = 0;
    for (uint64_t x : v) {
      mx = std::max(mx, x);
      below_half += x < 6148914691236517376ull;
    }
    EXPECT_LT(mx, 12297829382473034752ull);
    EXPECT_NEAR(double(below_half), 50000, 800);
    std::vector<uint8_t> b = compute_bytes(random(CA_RANDOM_INTEGERS, 7, {1000}, Chunks{{1000}}, CA_BOOL, 0, 2), 1);
    std::set<uint8_t> vals(b.begin(), b.end());
    EXPECT_EQ(vals, (std::set<uint8_t>{0, 1}));
  }
}

// ---- names and errors ---------------------------------------------------------------------------------

TEST(Create, NamesAreDeterministic) {
  Chunks c{{2, 3}};
  EXPECT_EQ(full({5}, c, CA_FLOAT64, 1.0)->name, full({5}, c, CA_FLOAT64, 1.0)->name);
  EXPECT_NE(full({5}, c, CA_FLOAT64, 1.0)->name, full({5}, c, CA_FLOAT64, 2.0)->name);
  EXPECT_NE(full({5}, c, CA_FLOAT64, 1.0)->name, full({5}, Chunks{{5}}, CA_FLOAT64, 1.0)->name);
  EXPECT_NE(full({5}, c, CA_FLOAT64, 1.0)->name, full({5}, c, CA_FLOAT32, 1.0)->name);
  EXPECT_EQ(full({5}, c, CA_FLOAT64, 1.0)->name.rfind("full-", 0), 0u);
  EXPECT_EQ(arange(0, 5, 1, c, CA_INT64)->name, arange(0, 5, 1, c, CA_INT64)->name);
  EXPECT_EQ(eye(5, 5, 0, Chunks{{5}, {5}}, CA_FLOAT64)->name, eye(5, 5, 0, Chunks{{5}, {5}}, CA_FLOAT64)->name);
  EXPECT_NE(eye(5, 5, 0, Chunks{{5}, {5}}, CA_FLOAT64)->name, tri(5, 5, 0, Chunks{{5}, {5}}, CA_FLOAT64)->name);
  ArrayPtr v = arange(0, 5, 1, c, CA_INT64);
  EXPECT_EQ(diag(v, 1)->name, diag(v, 1)->name);
  EXPECT_NE(diag(v, 1)->name, diag(v, 0)->name);
}

TEST(Create, Errors) {
  expect_error(CA_EINVAL, "negative", [] { full({-1}, Chunks{{1}}, CA_FLOAT64, 0.0); });
  expect_error(CA_EINVAL, "Chunks do not add up to shape", [] { full({24}, Chunks{{10, 13}}, CA_FLOAT64, 0.0); });
  expect_error(CA_EINVAL, "axis 1 sum to 23, shape is 24",
               [] { zeros({2, 24}, Chunks{{2}, {10, 13}}, CA_FLOAT64); });
  expect_error(CA_EINVAL, "dimensions", [] { ones({2, 2}, Chunks{{2}}, CA_FLOAT64); });
  expect_error(CA_ETYPE, "dtype", [] { full({2}, Chunks{{2}}, CA_RAW, 0.0); });
  expect_error(CA_ETYPE, "bool", [] { arange(0, 3, 1, Chunks{{3}}, CA_BOOL); });
  expect_error(CA_EINVAL, "step", [] { arange(0, 3, 0, Chunks{{3}}, CA_INT64); });
  expect_error(CA_EINVAL, "Chunks do not add up", [] { arange(0, 9, 1, Chunks{{2, 3}}, CA_INT64); });
  expect_error(CA_EINVAL, "non-negative", [] { linspace(0, 1, -1, true, Chunks{{0}}, CA_FLOAT64); });
  expect_error(CA_EINVAL, "negative", [] { eye(-1, 2, 0, Chunks{{0}, {2}}, CA_FLOAT64); });
  expect_error(CA_EINVAL, "1d or 2d",
               [] { diag(zeros({2, 2, 2}, Chunks{{2}, {2}, {2}}, CA_FLOAT64), 0); });
  expect_error(CA_EINVAL, "low >= high",
               [] { random(CA_RANDOM_INTEGERS, 1, {3}, Chunks{{3}}, CA_INT64, 5, 5); });
  expect_error(CA_ETYPE, "integer dtype",
               [] { random(CA_RANDOM_INTEGERS, 1, {3}, Chunks{{3}}, CA_FLOAT64, 0, 5); });
  expect_error(CA_EINVAL, "out of bounds",
               [] { random(CA_RANDOM_INTEGERS, 1, {3}, Chunks{{3}}, CA_INT8, 0, 129); });
  expect_error(CA_ETYPE, "float", [] { random(CA_RANDOM_UNIFORM, 1, {3}, Chunks{{3}}, CA_INT32, 0, 1); });
  expect_error(CA_EINVAL, "scale < 0", [] { random(CA_RANDOM_NORMAL, 1, {3}, Chunks{{3}}, CA_FLOAT64, 0, -1); });
  expect_error(CA_EINVAL, "distribution", [] { random(99, 1, {3}, Chunks{{3}}, CA_FLOAT64, 0, 1); });
  expect_error(CA_EINVAL, "finite", [] { random(CA_RANDOM_UNIFORM, 1, {3}, Chunks{{3}}, CA_FLOAT64, 0, INFINITY); });
}

// ---- pictures -----------------------------------------------------------------------------------------

namespace {

std::string tmp_path(const std::string &suffix) {
  static int counter = 0;
  return "/tmp/ca_test_create_" + std::to_string(getpid()) + "_" + std::to_string(counter++) + suffix;
}

void write_file(const std::string &path, const std::string &text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
}

// python3 xml.etree must parse it, with an <svg> root.
void expect_wellformed_svg(const std::string &svg) {
  std::string path = tmp_path(".svg");
  write_file(path, svg);
  std::string cmd = std::string(CA_PYTHON) +
                    " -c \"import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); "
                    "sys.exit(0 if r.tag.endswith('svg') else 3)\" " +
                    path;
  EXPECT_EQ(std::system(cmd.c_str()), 0) << svg;
  std::remove(path.c_str());
}

}  // namespace

TEST(Pictures, ArraySvg) {
  std::vector<ArrayPtr> arrays = {
      zeros({}, Chunks{}, CA_FLOAT64),
      zeros({10}, Chunks{{3, 3, 4}}, CA_FLOAT64),
      zeros({0}, Chunks{{0}}, CA_FLOAT64),
      zeros({100, 20}, Chunks{{50, 50}, {5, 5, 5, 5}}, CA_FLOAT64),
      zeros({4, 5, 6}, Chunks{{2, 2}, {5}, {1, 2, 3}}, CA_FLOAT64),
      zeros({2, 3, 4, 5}, Chunks{{1, 1}, {3}, {2, 2}, {5}}, CA_FLOAT64),
      zeros({2, 3, 4, 5, 6}, Chunks{{1, 1}, {3}, {2, 2}, {5}, {6}}, CA_FLOAT64),
      zeros({2, 3, 4, 5, 6, 7, 8}, Chunks{{2}, {3}, {4}, {5}, {6}, {7}, {8}}, CA_FLOAT64),
  };
  std::vector<Index> many(1000, 1);
  arrays.push_back(zeros({1000, 1000}, Chunks{many, many}, CA_FLOAT64));
  for (const ArrayPtr &a : arrays) {
    std::string svg = array_to_svg(*a, 0);
    SCOPED_TRACE(chunks_str(a->chunks));
    EXPECT_EQ(svg.rfind("<svg", 0), 0u);
    expect_wellformed_svg(svg);
    if (a->ndim() >= 1 && a->shape.back() > 0) {
      EXPECT_NE(svg.find(">" + std::to_string(a->shape.back()) + "</text>"), std::string::npos);
    }
  }
  // 2-d: one line per block boundary (3 horizontal, 5 vertical), dask's colours.
  std::string s2 = array_to_svg(*zeros({100, 20}, Chunks{{50, 50}, {5, 5, 5, 5}}, CA_FLOAT64), 120);
  size_t lines = 0;
  for (size_t p = s2.find("<line"); p != std::string::npos; p = s2.find("<line", p + 1)) ++lines;
  EXPECT_EQ(lines, 3u + 5u);
  EXPECT_NE(s2.find("ECB172"), std::string::npos);
  // 1000 x 1000 blocks: a solid fill with only the borders.
  std::string big = array_to_svg(*arrays.back(), 120);
  lines = 0;
  for (size_t p = big.find("<line"); p != std::string::npos; p = big.find("<line", p + 1)) ++lines;
  EXPECT_EQ(lines, 4u);
  EXPECT_NE(big.find("8B4903"), std::string::npos);
  expect_error(CA_EINVAL, "size", [&] { array_to_svg(*arrays[1], -5); });
}

TEST(Pictures, GraphDotAcceptedByGraphviz) {
  ArrayPtr v = arange(0, 9, 1, Chunks{{2, 3, 4}}, CA_INT64);
  ArrayPtr d = diag(v, 1);
  ArrayPtr dd = diag(d, 1);
  for (const ArrayPtr &a : {v, d, dd}) {
    std::string dot = graph_to_dot(*a->graph, {});
    EXPECT_NE(dot.find("digraph"), std::string::npos);
    EXPECT_NE(dot.find("ca.fused"), std::string::npos);
    std::string in = tmp_path(".dot"), out = tmp_path(".svg");
    write_file(in, dot);
    std::string cmd = "/usr/bin/dot -Tsvg " + in + " -o " + out;
    ASSERT_EQ(std::system(cmd.c_str()), 0) << dot;
    std::ifstream f(out);
    std::string svg((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    expect_wellformed_svg(svg);
    std::remove(in.c_str());
    std::remove(out.c_str());
  }
  // Edges from v's blocks to the diagonal blocks; the requested key only pulls what it needs.
  std::string dot = graph_to_dot(*dd->graph, {});
  EXPECT_NE(dot.find("->"), std::string::npos);
  EXPECT_NE(dot.find("ca.diagonal"), std::string::npos);
  Index i0 = 0;
  std::string one = graph_to_dot(*v->graph, {KeyRef{v->name.c_str(), &i0, 1}});
  size_t nodes = 0;
  for (size_t p = one.find("[label="); p != std::string::npos; p = one.find("[label=", p + 1)) ++nodes;
  EXPECT_EQ(nodes, 1u);
  // Big graphs are capped with a note.
  std::vector<Index> c(5000, 1);
  std::string capped = graph_to_dot(*zeros({5000}, Chunks{c}, CA_FLOAT64)->graph, {});
  EXPECT_NE(capped.find("not shown"), std::string::npos);
  std::string in = tmp_path(".dot");
  write_file(in, capped);
  EXPECT_EQ(std::system(("/usr/bin/dot -Tsvg " + in + " -o /dev/null").c_str()), 0);
  std::remove(in.c_str());
}

// full with an exact 64-bit integer (ca_array_full_int64/_uint64): values a double does not hold
// (2**53 + 1, the int64/uint64 extremes) come back exact, on ragged chunks, 0-d and empty, through a
// fused expression too; floats get the nearest value; values the dtype does not hold are refused.
TEST(Create, FullExactIntegers) {
  const int64_t big = (int64_t(1) << 53) + 1;
  for (int64_t v : {big, -big, INT64_MIN, INT64_MAX, int64_t(0), int64_t(-1)}) {
    ArrayPtr a = full_exact({7, 5}, Chunks{{3, 4}, {2, 2, 1}}, CA_INT64, uint64_t(v), false);
    for (int64_t g : compute_as<int64_t>(a)) ASSERT_EQ(g, v);
    // in an expression (the generator fused into the program): a + 0 is still exact
    ArrayPtr z = full_exact({7, 5}, Chunks{{3, 4}, {2, 2, 1}}, CA_INT64, 0, false);
    for (int64_t g : compute_as<int64_t>(elementwise_binary(CA_OP_ADD, a, z))) ASSERT_EQ(g, v);
  }
  for (uint64_t v : {UINT64_MAX, (uint64_t(1) << 63) + 1, (uint64_t(1) << 53) + 1}) {
    for (uint64_t g : compute_as<uint64_t>(full_exact({9}, Chunks{{4, 4, 1}}, CA_UINT64, v, true))) ASSERT_EQ(g, v);
  }
  EXPECT_EQ(compute_as<int64_t>(full_exact({}, Chunks{}, CA_INT64, uint64_t(INT64_MIN), false)),
            std::vector<int64_t>{INT64_MIN});
  EXPECT_TRUE(compute_as<int64_t>(full_exact({0, 3}, Chunks{{0}, {3}}, CA_INT64, 5, false)).empty());
  EXPECT_EQ(compute_as<int8_t>(full_exact({3}, Chunks{{2, 1}}, CA_INT8, uint64_t(int64_t(-128)), false)),
            (std::vector<int8_t>{-128, -128, -128}));
  EXPECT_EQ(compute_as<uint32_t>(full_exact({2}, Chunks{{2}}, CA_UINT32, UINT32_MAX, true)),
            (std::vector<uint32_t>{UINT32_MAX, UINT32_MAX}));
  // float dtypes: the nearest value (2**53 + 1 is not a float64), as np.full
  EXPECT_EQ(compute_as<double>(full_exact({2}, Chunks{{1, 1}}, CA_FLOAT64, uint64_t(big), false)),
            (std::vector<double>{9007199254740992.0, 9007199254740992.0}));
  EXPECT_EQ(compute_as<float>(full_exact({1}, Chunks{{1}}, CA_FLOAT32, 16777217, false)), std::vector<float>{16777216.f});
  EXPECT_EQ(compute_bytes(full_exact({2}, Chunks{{2}}, CA_BOOL, 2, false), 1), (std::vector<uint8_t>{1, 1}));
  // times take the value as ticks
  ArrayPtr t = full_exact({2}, Chunks{{2}}, CA_DTYPE_MAKE(CA_TIMEDELTA64, CA_UNIT_NS), uint64_t(big), false);
  std::vector<uint8_t> tb = compute_bytes(t, 1);
  int64_t t0;
  std::memcpy(&t0, tb.data(), 8);
  EXPECT_EQ(t0, big);
  // names: different exact values are different arrays
  EXPECT_NE(full_exact({2}, Chunks{{2}}, CA_INT64, uint64_t(big), false)->name,
            full_exact({2}, Chunks{{2}}, CA_INT64, uint64_t(big - 1), false)->name);
  expect_error(CA_EINVAL, "out of bounds for int8", [] { full_exact({2}, Chunks{{2}}, CA_INT8, 128, false); });
  expect_error(CA_EINVAL, "out of bounds for uint8", [] { full_exact({2}, Chunks{{2}}, CA_UINT8, uint64_t(-1), false); });
  expect_error(CA_EINVAL, "out of bounds for int64", [] { full_exact({2}, Chunks{{2}}, CA_INT64, UINT64_MAX, true); });
  expect_error(CA_ETYPE, "ca_array_full", [] { full_exact({2}, Chunks{{2}}, CA_DTYPE_MAKE(CA_UNICODE, 3), 1, false); });
  expect_error(CA_EINVAL, "Chunks do not add up", [] { full_exact({2}, Chunks{{3}}, CA_INT64, 1, false); });
}
