// Linear algebra (linalg/linalg.hpp) against NumPy: matmul (batched, broadcast, 1-d operands), dot,
// tensordot (any axes, permuted blocks, outer), outer, over ragged and mismatched contraction chunks,
// tree sums, all float/complex dtypes plus integer and bool loops, 0-d / empty / size-1 shapes;
// tsqr qr and svd (reconstruction, orthonormality, |R| and s against NumPy), solve, inv, cholesky,
// lstsq, norm; errors; no leaked blocks.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "array/array.hpp"
#include "array/create.hpp"
#include "array/shape.hpp"
#include "graph/layer.hpp"
#include "core/block.hpp"
#include "exec/executor.hpp"
#include "kernel/kernel.hpp"
#include "linalg/linalg.hpp"
#include "numpy_ref.hpp"

namespace ca {
namespace {

using test::Npy;
using cd = std::complex<double>;

const DType kFloats[] = {CA_FLOAT32, CA_FLOAT64, CA_COMPLEX64, CA_COMPLEX128};

uint64_t lcg(uint64_t &s) {
  s = s * 6364136223846793005ULL + 1442695040888963407ULL;
  return s >> 33;
}

/// Deterministic values: floats in [-1, 1), complex with both parts, ints in [-4, 4], uints [0, 8].
Npy make(DType dt, std::vector<Index> shape, uint64_t seed) {
  Npy r;
  r.dtype = dt;
  r.shape = std::move(shape);
  r.data.resize(size_t(r.size()) * dtype_size(dt));
  uint64_t s = seed * 7919 + 17;
  dispatch_dtype(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T *p = reinterpret_cast<T *>(r.data.data());
    for (Index i = 0; i < r.size(); ++i) {
      double u = double(lcg(s) % 2000) / 1000.0 - 1.0, v = double(lcg(s) % 2000) / 1000.0 - 1.0;
      if constexpr (std::is_same_v<T, bool>) p[i] = u > 0;
      else if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>)
        p[i] = T(typename T::value_type(u), typename T::value_type(v));
      else if constexpr (std::is_floating_point_v<T>) p[i] = T(u);
      else if constexpr (std::is_signed_v<T>) p[i] = T(int(lcg(s) % 9) - 4);
      else p[i] = T(lcg(s) % 9);
    }
  });
  return r;
}

/// A well-conditioned square matrix (diagonally dominant) or a Hermitian positive-definite one.
Npy square(DType dt, Index n, uint64_t seed, bool hpd) {
  Npy m = make(CA_COMPLEX128, {n, n}, seed);
  const cd *x = m.as<cd>();
  std::vector<cd> a(size_t(n * n));
  for (Index i = 0; i < n; ++i)
    for (Index j = 0; j < n; ++j) {
      cd v = 0;
      if (hpd)
        for (Index k = 0; k < n; ++k) v += x[i * n + k] * std::conj(x[j * n + k]);
      else
        v = x[i * n + j];
      if (!dtype_is_complex(dt)) v = hpd ? cd(v.real(), 0) : cd(v.real(), 0);
      a[size_t(i * n + j)] = v + (i == j ? cd(double(n), 0) : cd(0, 0));
    }
  if (hpd && !dtype_is_complex(dt)) {  // real symmetric: use the real part (still PD: M M^T real part + nI)
    for (Index i = 0; i < n; ++i)
      for (Index j = 0; j < i; ++j) a[size_t(i * n + j)] = a[size_t(j * n + i)];
  }
  Npy r;
  r.dtype = dt;
  r.shape = {n, n};
  r.data.resize(size_t(n * n) * dtype_size(dt));
  dispatch_dtype(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T *p = reinterpret_cast<T *>(r.data.data());
    for (Index i = 0; i < n * n; ++i) {
      if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>)
        p[i] = T(typename T::value_type(a[size_t(i)].real()), typename T::value_type(a[size_t(i)].imag()));
      else if constexpr (std::is_floating_point_v<T>) p[i] = T(a[size_t(i)].real());
      else p[i] = T(a[size_t(i)].real());
    }
  });
  return r;
}

double rtol_of(DType dt) { return dt == CA_FLOAT32 || dt == CA_COMPLEX64 ? 2e-4 : 1e-10; }

/// Checks deferred to one NumPy run per test (NumPy's start-up dominates otherwise): each item is
/// (our array, a NumPy expression over its own inputs, label, tolerance scale).
struct Pending {
  struct Item {
    ArrayPtr got;
    std::string expr, label;
    std::map<std::string, Npy> in;
    double scale;
  };
  std::vector<Item> items;

  void run() {
    if (items.empty()) return;
    std::map<std::string, Npy> all;
    std::string code =
        "codes = {'bool': 1, 'int8': 2, 'int16': 3, 'int32': 4, 'int64': 5, 'uint8': 6, 'uint16': 7,\n"
        "  'uint32': 8, 'uint64': 9, 'float32': 10, 'float64': 11, 'complex64': 12, 'complex128': 13}\n"
        "vals = []\n";
    for (size_t i = 0; i < items.size(); ++i) {
      code += "env = {'np': np";
      for (auto &kv : items[i].in) {
        std::string var = "i" + std::to_string(i) + "_" + kv.first;
        all[var] = kv.second;
        code += ", '" + kv.first + "': " + var;
      }
      code += "}\nvals.append(np.asarray(eval(r\"\"\"" + items[i].expr + "\"\"\", env)))\n";
    }
    code += "result = np.concatenate([np.array([v.size for v in vals] + [codes[str(v.dtype)] for v in vals], "
            "dtype=np.complex128)] + [v.astype(np.complex128).ravel() for v in vals])";
    Npy want = test::run_numpy(code, all);
    const cd *w = want.as<cd>();
    const size_t n = items.size();
    ASSERT_GE(want.size(), Index(2 * n));
    size_t off = 2 * n;
    for (size_t i = 0; i < n; ++i) {
      const Item &it = items[i];
      Npy g = test::compute_npy(it.got);
      const Index size = Index(w[i].real());
      const DType dt = DType(w[n + i].real());
      EXPECT_EQ(g.size(), size) << it.label;
      EXPECT_EQ(g.dtype, dt) << it.label << ": got " << dtype_name(g.dtype) << ", want " << dtype_name(dt);
      const bool exact = !(dtype_is_float(dt) || dtype_is_complex(dt));
      const double rt = exact ? 0 : rtol_of(dt);
      int bad = 0;
      for (Index k = 0; k < std::min(size, g.size()) && bad < 5; ++k) {
        cd x = test::element(g, k), y = w[off + size_t(k)];
        if (std::abs(x - y) > rt * it.scale + rt * std::abs(y)) {
          ADD_FAILURE() << it.label << " element " << k << ": got " << x << ", want " << y;
          ++bad;
        }
      }
      off += size_t(size);
    }
    items.clear();
  }
};

Pending &pending() {
  static Pending p;
  return p;
}

/// `code` is "result = <expression>"; checked when the test ends (Pending::run).
void expect_like_numpy(const ArrayPtr &got, const std::string &code, const std::map<std::string, Npy> &in,
                       const std::string &what, double scale = 1.0) {
  const std::string prefix = "result = ";
  ASSERT_EQ(code.compare(0, prefix.size(), prefix), 0) << code;
  std::map<std::string, Npy> used;
  for (auto &kv : in)
    if (code.find(kv.first) != std::string::npos) used.insert(kv);
  pending().items.push_back({got, code.substr(prefix.size()), what, std::move(used), scale});
}

/// Many checks in one NumPy run: each (our array, NumPy expression, label); values and dtypes compared.
struct Batch {
  std::vector<ArrayPtr> got;
  std::vector<std::string> exprs, labels;
  void add(ArrayPtr a, std::string expr, std::string label) {
    got.push_back(std::move(a));
    exprs.push_back(std::move(expr));
    labels.push_back(std::move(label));
  }
  void run(const std::map<std::string, Npy> &in, double scale = 10) {
    std::string code = "codes = {'bool': 1, 'int8': 2, 'int16': 3, 'int32': 4, 'int64': 5, 'uint8': 6, 'uint16': 7,\n"
                       "  'uint32': 8, 'uint64': 9, 'float32': 10, 'float64': 11, 'complex64': 12, 'complex128': 13}\n"
                       "vals = []\n";
    for (auto &e : exprs) code += "vals.append(np.asarray(" + e + "))\n";
    code += "result = np.concatenate([np.array([v.size for v in vals] + [codes[str(v.dtype)] for v in vals], "
            "dtype=np.complex128)] + [v.astype(np.complex128).ravel() for v in vals])";
    Npy want = test::run_numpy(code, in);
    const cd *w = want.as<cd>();
    const size_t n = got.size();
    ASSERT_GE(want.size(), Index(2 * n));
    size_t off = 2 * n;
    for (size_t i = 0; i < n; ++i) {
      Npy g = test::compute_npy(got[i]);
      const Index size = Index(w[i].real());
      const DType dt = DType(w[n + i].real());
      EXPECT_EQ(g.size(), size) << labels[i];
      EXPECT_EQ(g.dtype, dt) << labels[i] << ": got " << dtype_name(g.dtype) << ", want " << dtype_name(dt);
      const double rt = rtol_of(dt);
      for (Index k = 0; k < std::min(size, g.size()); ++k) {
        cd x = test::element(g, k), y = w[off + size_t(k)];
        EXPECT_LE(std::abs(x - y), rt * scale + rt * std::abs(y)) << labels[i] << " element " << k << ": got " << x
                                                                   << ", want " << y;
      }
      off += size_t(size);
    }
  }
};

ArrayPtr arr(const Npy &n, const Chunks &c) { return test::array_from_npy(n, c); }

struct LinalgTest : ::testing::Test {
  int64_t live0 = 0;
  void SetUp() override { live0 = block_live_count(); }
  void TearDown() override {
    pending().run();
    pending().items.clear();
    EXPECT_EQ(block_live_count(), live0) << "leaked blocks";
  }
};

// ---- products --------------------------------------------------------------------------------------

TEST_F(LinalgTest, MatmulAllDtypesRaggedMismatchedChunks) {
  const DType dts[] = {CA_FLOAT32, CA_FLOAT64, CA_COMPLEX64, CA_COMPLEX128, CA_INT8,
                       CA_INT16, CA_INT32, CA_INT64,   CA_UINT8,     CA_UINT16,     CA_UINT64, CA_BOOL};
  for (DType dt : dts) {
    Npy a = make(dt, {7, 9}, 1), b = make(dt, {9, 5}, 2);
    // The contraction axis is chunked (2, 5, 2) in a and (4, 5) in b: unified like dask.
    ArrayPtr x = arr(a, {{3, 4}, {2, 5, 2}}), y = arr(b, {{4, 5}, {2, 3}});
    ArrayPtr r = linalg::matmul(x, y);
    EXPECT_EQ(r->chunks, (Chunks{{3, 4}, {2, 3}}));
    EXPECT_EQ(r->dtype, dt);
    expect_like_numpy(r, "result = a @ b", {{"a", a}, {"b", b}}, std::string("matmul ") + dtype_name(dt), 10);
  }
}

TEST_F(LinalgTest, MatmulMixedDtypesPromote) {
  Npy a = make(CA_INT32, {4, 6}, 3), b = make(CA_FLOAT32, {6, 3}, 4), c = make(CA_COMPLEX64, {6, 3}, 5);
  ArrayPtr x = arr(a, {{2, 2}, {3, 3}});
  expect_like_numpy(linalg::matmul(x, arr(b, {{2, 4}, {3}})), "result = a @ b", {{"a", a}, {"b", b}}, "i32@f32", 10);
  Npy f = make(CA_FLOAT64, {4, 6}, 6);
  expect_like_numpy(linalg::matmul(arr(f, {{4}, {6}}), arr(c, {{6}, {1, 2}})), "result = f @ c", {{"f", f}, {"c", c}},
                    "f64@c64", 10);
}

TEST_F(LinalgTest, MatmulBatchedBroadcastAndVectors) {
  for (DType dt : kFloats) {
    Npy a = make(dt, {2, 1, 4, 3}, 7), b = make(dt, {3, 3, 5}, 8);
    ArrayPtr x = arr(a, {{1, 1}, {1}, {3, 1}, {2, 1}}), y = arr(b, {{2, 1}, {1, 2}, {5}});
    ArrayPtr r = linalg::matmul(x, y);
    EXPECT_EQ(r->shape, (std::vector<Index>{2, 3, 4, 5}));
    expect_like_numpy(r, "result = a @ b", {{"a", a}, {"b", b}}, "batched", 10);
    Npy v = make(dt, {3}, 9), w = make(dt, {2, 3, 4}, 10), m = make(dt, {2, 4, 3}, 11);
    ArrayPtr vv = arr(v, {{1, 2}});
    expect_like_numpy(linalg::matmul(vv, arr(w, {{1, 1}, {2, 1}, {4}})), "result = v @ w", {{"v", v}, {"w", w}},
                      "vec@batch", 10);
    expect_like_numpy(linalg::matmul(arr(m, {{2}, {3, 1}, {3}}), vv), "result = m @ v", {{"m", m}, {"v", v}},
                      "batch@vec", 10);
    ArrayPtr s = linalg::matmul(vv, arr(v, {{2, 1}}));
    EXPECT_EQ(s->ndim(), 0);
    expect_like_numpy(s, "result = v @ v", {{"v", v}}, "vec@vec", 10);
  }
}

TEST_F(LinalgTest, TreeSumOverManyContractionBlocks) {
  for (DType dt : {CA_FLOAT64, CA_COMPLEX64, CA_INT64}) {
    Npy a = make(dt, {5, 41}, 12), b = make(dt, {41, 6}, 13);
    std::vector<Index> kc(21, 2);  // 20 blocks of 2 and a ragged last one of 1
    kc.back() = 1;
    for (int32_t se : {0, 2, 3, 4}) {
      ArrayPtr r = linalg::matmul(arr(a, {{2, 3}, kc}), arr(b, {kc, {6}}), se);
      expect_like_numpy(r, "result = a @ b", {{"a", a}, {"b", b}}, "tree split_every " + std::to_string(se), 40);
    }
    // tensordot with two contracted axes and a tree over both.
    Npy c = make(dt, {6, 5, 3}, 14), d = make(dt, {5, 6, 2}, 15);
    ArrayPtr t = linalg::tensordot(arr(c, {{1, 1, 1, 1, 2}, {2, 2, 1}, {3}}), arr(d, {{1, 4}, {3, 3}, {1, 1}}), {1, 0},
                                   {0, 1}, 2);
    expect_like_numpy(t, "result = np.tensordot(c, d, axes=([1, 0], [0, 1]))", {{"c", c}, {"d", d}}, "tensordot tree",
                      30);
  }
}

TEST_F(LinalgTest, TensordotAxesAndLayouts) {
  for (DType dt : kFloats) {
    Npy a = make(dt, {3, 4, 5}, 16), b = make(dt, {4, 3, 2}, 17), c = make(dt, {5, 2, 4}, 18);
    ArrayPtr x = arr(a, {{2, 1}, {3, 1}, {5}}), y = arr(b, {{2, 2}, {3}, {1, 1}}), z = arr(c, {{4, 1}, {2}, {1, 3}});
    std::map<std::string, Npy> in{{"a", a}, {"b", b}, {"c", c}};
    expect_like_numpy(linalg::tensordot(x, y, {1, 0}, {0, 1}), "result = np.tensordot(a, b, axes=([1, 0], [0, 1]))",
                      in, "leading pair", 10);
    // a's middle axis with c's last: both operands need a permuted copy.
    expect_like_numpy(linalg::tensordot(x, z, {1}, {-1}), "result = np.tensordot(a, c, axes=([1], [2]))", in,
                      "permuted", 10);
    // transposed layouts: a's first axis with b's second.
    expect_like_numpy(linalg::tensordot(x, y, {0}, {1}), "result = np.tensordot(a, b, axes=([0], [1]))", in,
                      "transposed", 10);
    expect_like_numpy(linalg::tensordot(x, z, {2}, {0}), "result = np.tensordot(a, c, axes=([2], [0]))", in,
                      "trailing", 10);
    expect_like_numpy(linalg::tensordot(x, y, {}, {}), "result = np.tensordot(a, b, axes=0)", in, "axes=0", 10);
    Npy d = make(dt, {4, 5, 2}, 19);
    expect_like_numpy(linalg::tensordot_n(x, arr(d, {{1, 3}, {2, 3}, {2}}), 2), "result = np.tensordot(a, d, axes=2)",
                      {{"a", a}, {"d", d}}, "axes=2", 10);
  }
  // x @ x.T as tensordot of an array with itself (W5's form).
  Npy a = make(CA_FLOAT64, {9, 7}, 20);
  ArrayPtr x = arr(a, {{4, 5}, {3, 4}});
  expect_like_numpy(linalg::tensordot(x, x, {1}, {1}), "result = a @ a.T", {{"a", a}}, "x x^T", 10);
}

// An array times its own transpose (x @ x.T, x.T @ x, tensordot(x, x), x.T.T @ x.T): the Gram
// path computes the blocks on and above the diagonal (syrk on it) and transposes the mirror ones;
// values as NumPy's, exactly symmetric, dask's chunks; the general product where it does not apply.
TEST_F(LinalgTest, GramProductsOfAnArrayWithItsTranspose) {
  auto kernels_of = [](const ArrayPtr &r) {
    std::map<std::string, int> n;
    const Layer *l = r->graph->find(r->name);
    for (int64_t t = 0; t < l->num_tasks(); ++t) n[l->kernel_of(t)]++;
    return n;
  };
  for (DType dt : {CA_FLOAT32, CA_FLOAT64}) {
    // Ragged blocks on both axes, a one-block axis, size 1, and an empty contraction (K = 0).
    struct Case {
      std::vector<Index> shape;
      Chunks chunks;
    };
    for (const Case &c : {Case{{9, 7}, {{4, 4, 1}, {3, 4}}}, Case{{5, 6}, {{5}, {2, 2, 2}}}, Case{{1, 1}, {{1}, {1}}},
                          Case{{4, 0}, {{3, 1}, {0}}}, Case{{0, 3}, {{0}, {2, 1}}}}) {
      Npy a = make(dt, c.shape, 31);
      ArrayPtr x = arr(a, c.chunks), xt = transpose(x, {});
      const std::string what = std::string(dtype_name(dt)) + " " + chunks_str(c.chunks);
      ArrayPtr aat = linalg::matmul(x, xt), ata = linalg::matmul(xt, x);
      expect_like_numpy(aat, "result = a @ a.T", {{"a", a}}, what + " x @ x.T", 10);
      expect_like_numpy(ata, "result = a.T @ a", {{"a", a}}, what + " x.T @ x", 10);
      expect_like_numpy(linalg::tensordot(x, x, {0}, {0}), "result = a.T @ a", {{"a", a}}, what + " tensordot 0", 10);
      expect_like_numpy(linalg::dot(x, xt), "result = a @ a.T", {{"a", a}}, what + " dot", 10);
      expect_like_numpy(linalg::matmul(transpose(xt, {}), xt), "result = a @ a.T", {{"a", a}}, what + " x.T.T", 10);
      EXPECT_EQ(aat->chunks, (Chunks{c.chunks[0], c.chunks[0]})) << what;
      EXPECT_EQ(ata->chunks, (Chunks{c.chunks[1], c.chunks[1]})) << what;
      // Exactly symmetric, and the structure: syrk on the diagonal, a gemm above, a transpose below.
      Npy g = test::compute_npy(aat);
      const Index n = c.shape[0];
      for (Index i = 0; i < n; ++i)
        for (Index j = 0; j < i; ++j) EXPECT_EQ(test::element(g, i * n + j), test::element(g, j * n + i)) << what;
      const Index nb = Index(c.chunks[0].size());
      auto k = kernels_of(aat);
      if (c.chunks[1].size() > 0 && c.shape[0] > 0) {
        EXPECT_EQ(k["ca.linalg.syrk"], nb) << what;
        EXPECT_EQ(k["ca.linalg.tensordot"], nb * (nb - 1) / 2) << what;
        EXPECT_EQ(k["ca.shape.transpose"], nb * (nb - 1) / 2) << what;
      }
    }
  }
  // Not a Gram product: other dtypes, two different arrays, more blocks along the contraction than
  // split_every (the tree sum) -- still right, through the general product.
  Npy i = make(CA_INT64, {5, 4}, 32), z = make(CA_COMPLEX128, {5, 4}, 33), w = make(CA_FLOAT64, {5, 40}, 34),
      v = make(CA_FLOAT64, {3, 40}, 35);
  ArrayPtr xi = arr(i, {{2, 3}, {2, 2}}), xz = arr(z, {{2, 3}, {2, 2}}), xw = arr(w, {{2, 3}, Chunks::value_type(20, 2)});
  ArrayPtr xv = arr(v, {{3}, {10, 30}});
  expect_like_numpy(linalg::matmul(xi, transpose(xi, {})), "result = i @ i.T", {{"i", i}}, "int64", 1);
  expect_like_numpy(linalg::matmul(xz, transpose(xz, {})), "result = z @ z.T", {{"z", z}}, "complex", 10);
  expect_like_numpy(linalg::matmul(xw, transpose(xw, {})), "result = w @ w.T", {{"w", w}}, "tree", 40);
  expect_like_numpy(linalg::matmul(xw, transpose(xv, {})), "result = w @ v.T", {{"w", w}, {"v", v}}, "w v^T", 40);
  expect_like_numpy(linalg::matmul(transpose(xv, {}), xv), "result = v.T @ v", {{"v", v}}, "v^T v", 40);
  EXPECT_EQ(kernels_of(linalg::matmul(xw, transpose(xw, {}))).count("ca.linalg.syrk"), 0u);
  EXPECT_EQ(kernels_of(linalg::matmul(xi, transpose(xi, {}))).count("ca.linalg.syrk"), 0u);
}

TEST_F(LinalgTest, DotAndOuter) {
  for (DType dt : {CA_FLOAT32, CA_COMPLEX128, CA_INT32}) {
    Npy a = make(dt, {4, 6}, 21), v = make(dt, {6}, 22), t = make(dt, {2, 3, 6}, 23), u = make(dt, {5, 6, 2}, 24);
    std::map<std::string, Npy> in{{"a", a}, {"v", v}, {"t", t}, {"u", u}};
    ArrayPtr A = arr(a, {{3, 1}, {4, 2}}), V = arr(v, {{1, 5}}), T = arr(t, {{2}, {1, 2}, {6}}),
             U = arr(u, {{5}, {3, 3}, {1, 1}});
    expect_like_numpy(linalg::dot(A, V), "result = np.dot(a, v)", in, "2d.1d", 10);
    expect_like_numpy(linalg::dot(V, V), "result = np.dot(v, v)", in, "1d.1d", 10);
    expect_like_numpy(linalg::dot(T, U), "result = np.dot(t, u)", in, "nd.md", 10);
    Npy s = make(dt, {}, 25);
    expect_like_numpy(linalg::dot(arr(s, {}), A), "result = np.dot(s, a)", {{"s", s}, {"a", a}}, "0d.2d", 10);
    Npy w = make(dt, {3}, 26);
    expect_like_numpy(linalg::outer(V, arr(w, {{2, 1}})), "result = np.outer(v, w)", {{"v", v}, {"w", w}}, "outer", 10);
  }
}

TEST_F(LinalgTest, EmptyAndSizeOne) {
  for (DType dt : {CA_FLOAT64, CA_COMPLEX64, CA_INT64}) {
    Npy a = make(dt, {0, 3}, 27), b = make(dt, {3, 4}, 28), c = make(dt, {3, 0}, 29), d = make(dt, {0, 4}, 30);
    std::map<std::string, Npy> in{{"a", a}, {"b", b}, {"c", c}, {"d", d}};
    expect_like_numpy(linalg::matmul(arr(a, {{0}, {3}}), arr(b, {{1, 2}, {4}})), "result = a @ b", in, "(0,3)@(3,4)");
    // An empty contraction gives zeros.
    expect_like_numpy(linalg::matmul(arr(c, {{2, 1}, {0}}), arr(d, {{0}, {2, 2}})), "result = c @ d", in,
                      "(3,0)@(0,4)");
    Npy e = make(dt, {1, 1}, 31), f = make(dt, {1}, 32);
    expect_like_numpy(linalg::matmul(arr(e, {{1}, {1}}), arr(e, {{1}, {1}})), "result = e @ e", {{"e", e}}, "1x1");
    expect_like_numpy(linalg::dot(arr(f, {{1}}), arr(f, {{1}})), "result = np.dot(f, f)", {{"f", f}}, "size-1 dot");
  }
}

// ---- tsqr ------------------------------------------------------------------------------------------

TEST_F(LinalgTest, QrReconstructsOrthonormalAndMatchesNumpyUpToSigns) {
  struct Case {
    std::vector<Index> shape;
    Chunks chunks;
  };
  const Case cases[] = {{{20, 4}, {{5, 7, 8}, {4}}},
                        {{10, 6}, {{2, 3, 5}, {6}}},  // blocks shorter than wide
                        {{3, 5}, {{1, 2}, {5}}},      // wide overall
                        {{6, 1}, {{6}, {1}}},
                        {{3, 8}, {{3}, {2, 3, 3}}},  // short-and-fat: one row block (dask's sfqr)
                        {{0, 3}, {{0}, {3}}},
                        // Multi-level tsqr (stacked R factors taller than the tallest block):
                        {{60, 4}, {{8, 8, 8, 8, 8, 8, 6, 6}, {4}}},
                        {{97, 3}, {{7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 6}, {3}}},
                        {{40, 5}, {{10, 3, 10, 10, 7}, {5}}}};  // a block shorter than wide
  for (DType dt : kFloats)
    for (const Case &c : cases) {
      Npy a = make(dt, c.shape, 33);
      auto f = linalg::qr(arr(a, c.chunks));
      EXPECT_EQ(f.q->chunks[0], c.chunks[0]);
      EXPECT_EQ(f.r->chunks[1], c.chunks[1]);
      Npy q = test::compute_npy(f.q), r = test::compute_npy(f.r);
      std::string what = std::string("qr ") + dtype_name(dt) + " " + chunks_str(c.chunks);
      Npy err = test::run_numpy(
          "k = min(a.shape)\n"
          "rn = np.linalg.qr(a, mode='reduced')[1]\n"
          "e = [np.abs(q @ r - a).max(initial=0), np.abs(q.conj().T @ q - np.eye(k)).max(initial=0),\n"
          "     np.abs(np.tril(r, -1)).max(initial=0), np.abs(np.abs(r) - np.abs(rn)).max(initial=0),\n"
          "     float(q.shape == (a.shape[0], k) and r.shape == (k, a.shape[1]) and q.dtype == a.dtype)]\n"
          "result = np.array(e, dtype=np.float64)",
          {{"a", a}, {"q", q}, {"r", r}});
      const double *e = err.as<double>();
      double tol = dt == CA_FLOAT32 || dt == CA_COMPLEX64 ? 1e-4 : 1e-12;
      EXPECT_LT(e[0], tol) << what << ": |QR - A|";
      EXPECT_LT(e[1], tol) << what << ": |Q^H Q - I|";
      EXPECT_EQ(e[2], 0.0) << what << ": R is not upper triangular";
      EXPECT_LT(e[3], tol * 10) << what << ": |R| differs from NumPy's";
      EXPECT_EQ(e[4], 1.0) << what << ": shapes/dtype";
    }
}

TEST_F(LinalgTest, SvdMatchesNumpy) {
  for (DType dt : kFloats)
    for (const Chunks &ch : {Chunks{{4, 6, 7}, {5}}, Chunks{{4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 1}, {2}}}) {
    // The second: 11 stacked R factors of 2 rows exceed the 4-row blocks: multi-level tsqr.
    Npy a = make(dt, {chunks_shape(ch)[0], chunks_shape(ch)[1]}, 34);
    auto f = linalg::svd(arr(a, ch));
    Npy u = test::compute_npy(f.u), s = test::compute_npy(f.s), v = test::compute_npy(f.v);
    EXPECT_EQ(s.dtype, dt == CA_COMPLEX64 || dt == CA_FLOAT32 ? CA_FLOAT32 : CA_FLOAT64);
    Npy err = test::run_numpy(
        "sn = np.linalg.svd(a, compute_uv=False)\n"
        "k = a.shape[1]\n"
        "e = [np.abs((u * s) @ v - a).max(), np.abs(u.conj().T @ u - np.eye(k)).max(),\n"
        "     np.abs(v @ v.conj().T - np.eye(k)).max(), np.abs(s - sn).max()]\n"
        "result = np.array(e, dtype=np.float64)",
        {{"a", a}, {"u", u}, {"s", s}, {"v", v}});
    const double *e = err.as<double>();
    double tol = dt == CA_FLOAT32 || dt == CA_COMPLEX64 ? 1e-4 : 1e-12;
    for (int i = 0; i < 4; ++i) EXPECT_LT(e[i], tol) << dtype_name(dt) << " " << chunks_str(ch) << " check " << i;
  }
  // Short-and-fat with several column blocks.
  Npy w = make(CA_FLOAT64, {3, 7}, 57);
  auto h = linalg::svd(arr(w, {{3}, {3, 4}}));
  EXPECT_EQ(h.v->chunks[1], (std::vector<Index>{3, 4}));
  expect_like_numpy(h.s, "result = np.linalg.svd(w, compute_uv=False)", {{"w", w}}, "short-fat svd", 10);
  expect_like_numpy(linalg::matmul(linalg::matmul(h.u, diag(h.s, 0)), h.v), "result = w", {{"w", w}},
                    "short-fat reconstruct", 10);
  // Integer input computes in float64.
  Npy b = make(CA_INT32, {6, 3}, 35);
  auto g = linalg::svd(arr(b, {{3, 3}, {3}}));
  EXPECT_EQ(g.s->dtype, CA_FLOAT64);
  expect_like_numpy(g.s, "result = np.linalg.svd(b, compute_uv=False)", {{"b", b}}, "int svd", 10);
}

TEST_F(LinalgTest, Lstsq) {
  for (DType dt : kFloats) {
    Npy a = make(dt, {15, 4}, 36), b = make(dt, {15, 3}, 37), v = make(dt, {15}, 38);
    ArrayPtr A = arr(a, {{5, 5, 5}, {4}});
    std::map<std::string, Npy> in{{"a", a}, {"b", b}, {"v", v}};
    auto r = linalg::lstsq(A, arr(b, {{7, 8}, {2, 1}}));
    EXPECT_EQ(r.x->chunks[1], (std::vector<Index>{2, 1}));
    expect_like_numpy(r.x, "result = np.linalg.lstsq(a, b, rcond=None)[0]", in, "x", 10);
    expect_like_numpy(r.residuals, "result = np.linalg.lstsq(a, b, rcond=None)[1]", in, "residuals", 10);
    expect_like_numpy(r.rank, "result = np.int64(np.linalg.lstsq(a, b, rcond=None)[2])", in, "rank");
    expect_like_numpy(r.s, "result = np.linalg.lstsq(a, b, rcond=None)[3]", in, "s", 10);
    auto r1 = linalg::lstsq(A, arr(v, {{15}}));
    expect_like_numpy(r1.x, "result = np.linalg.lstsq(a, v, rcond=None)[0]", in, "x 1-d", 10);
    expect_like_numpy(r1.residuals, "result = np.linalg.lstsq(a, v, rcond=None)[1]", in, "residuals 1-d", 10);
  }
  // Square: NumPy's residuals are empty.
  Npy a = square(CA_FLOAT64, 4, 39, false), b = make(CA_FLOAT64, {4}, 40);
  auto r = linalg::lstsq(arr(a, {{2, 2}, {4}}), arr(b, {{4}}));
  EXPECT_EQ(r.residuals->shape, (std::vector<Index>{0}));
  expect_like_numpy(r.x, "result = np.linalg.lstsq(a, b, rcond=None)[0]", {{"a", a}, {"b", b}}, "square x", 10);
}

// ---- square solvers --------------------------------------------------------------------------------

TEST_F(LinalgTest, SolveInvCholesky) {
  for (DType dt : kFloats) {
    Npy a = square(dt, 7, 41, false), b = make(dt, {7, 4}, 42), v = make(dt, {7}, 43), h = square(dt, 6, 44, true);
    std::map<std::string, Npy> in{{"a", a}, {"b", b}, {"v", v}, {"h", h}};
    ArrayPtr A = arr(a, {{3, 4}, {2, 5}});
    ArrayPtr x = linalg::solve(A, arr(b, {{4, 3}, {1, 3}}));
    EXPECT_EQ(x->chunks, (Chunks{{4, 3}, {1, 3}}));
    expect_like_numpy(x, "result = np.linalg.solve(a, b)", in, "solve", 10);
    expect_like_numpy(linalg::solve(A, arr(v, {{7}})), "result = np.linalg.solve(a, v)", in, "solve 1-d", 10);
    ArrayPtr ai = linalg::inv(A);
    EXPECT_EQ(ai->chunks, A->chunks);
    expect_like_numpy(ai, "result = np.linalg.inv(a)", in, "inv", 10);
    ArrayPtr H = arr(h, {{2, 4}, {3, 3}});
    expect_like_numpy(linalg::cholesky(H, true), "result = np.linalg.cholesky(h)", in, "cholesky lower", 10);
    expect_like_numpy(linalg::cholesky(H, false), "result = np.linalg.cholesky(h).conj().T", in, "cholesky upper", 10);
  }
  // Integers compute in float64; empty matrices work.
  Npy ai = square(CA_INT64, 5, 45, false);
  expect_like_numpy(linalg::inv(arr(ai, {{5}, {5}})), "result = np.linalg.inv(a)", {{"a", ai}}, "int inv", 10);
  Npy e = make(CA_FLOAT64, {0, 0}, 46);
  EXPECT_EQ(test::compute_npy(linalg::inv(arr(e, {{0}, {0}}))).shape, (std::vector<Index>{0, 0}));
}

TEST_F(LinalgTest, SingularAndNotPositiveDefiniteFailAtCompute) {
  std::vector<double> z(9, 1.0);  // rank 1
  Npy a = test::npy_of(CA_FLOAT64, {3, 3}, z.data());
  ArrayPtr A = arr(a, {{3}, {3}});
  for (ArrayPtr r : {linalg::inv(A), linalg::solve(A, arr(make(CA_FLOAT64, {3}, 1), {{3}}))}) {
    try {
      test::compute_npy(r);
      ADD_FAILURE() << "no error";
    } catch (const Error &e) {
      EXPECT_EQ(e.code(), CA_EKERNEL);
      EXPECT_NE(e.message().find("Singular matrix"), std::string::npos) << e.message();
    }
  }
  std::vector<double> m{1, 2, 2, 1};
  Npy b = test::npy_of(CA_FLOAT64, {2, 2}, m.data());
  try {
    test::compute_npy(linalg::cholesky(arr(b, {{2}, {2}}), true));
    ADD_FAILURE() << "no error";
  } catch (const Error &e) {
    EXPECT_NE(e.message().find("not positive definite"), std::string::npos) << e.message();
  }
}

// Tile algorithms over several tile grids: 1 x 1, even, ragged, axes chunked differently, size 1.
TEST_F(LinalgTest, TiledSolversOverTileGrids) {
  struct Grid {
    Index n;
    Chunks ac;                  // a's chunks
    std::vector<Index> bcols;   // b's column chunks
  };
  const std::vector<Grid> grids{{10, {{10}, {10}}, {3}},          {10, {{5, 5}, {5, 5}}, {2, 1}},
                                {10, {{3, 3, 3, 1}, {3, 3, 3, 1}}, {1, 1, 1}}, {10, {{4, 6}, {3, 7}}, {3}},
                                {9, {{2, 2, 2, 2, 1}, {9}}, {3}},  {1, {{1}, {1}}, {1}}};
  uint64_t seed = 300;
  for (DType dt : kFloats)
    for (const Grid &gr : grids) {
      const std::string w = std::string(" ") + dtype_name(dt) + " " + chunks_str(gr.ac);
      Index k = 0;
      for (Index c : gr.bcols) k += c;
      Npy a = square(dt, gr.n, seed++, false), h = square(dt, gr.n, seed++, true);
      Npy b = make(dt, {gr.n, k}, seed++), v = make(dt, {gr.n}, seed++);
      std::map<std::string, Npy> in{{"a", a}, {"h", h}, {"b", b}, {"v", v}};
      ArrayPtr A = arr(a, gr.ac), H = arr(h, gr.ac);
      ArrayPtr B = arr(b, {gr.ac[0], gr.bcols}), V = arr(v, {gr.ac[1]});
      ArrayPtr x = linalg::solve(A, B);
      EXPECT_EQ(x->chunks, B->chunks) << w;
      expect_like_numpy(x, "result = np.linalg.solve(a, b)", in, "tiled solve" + w, 10);
      expect_like_numpy(linalg::solve(A, V), "result = np.linalg.solve(a, v)", in, "tiled solve 1-d" + w, 10);
      ArrayPtr ai = linalg::inv(A);
      EXPECT_EQ(ai->chunks, A->chunks) << w;
      expect_like_numpy(ai, "result = np.linalg.inv(a)", in, "tiled inv" + w, 10);
      ArrayPtr L = linalg::cholesky(H, true), U = linalg::cholesky(H, false);
      EXPECT_EQ(L->chunks, H->chunks) << w;
      EXPECT_EQ(U->chunks, H->chunks) << w;
      expect_like_numpy(L, "result = np.linalg.cholesky(h)", in, "tiled cholesky lower" + w, 10);
      expect_like_numpy(U, "result = np.linalg.cholesky(h).conj().T", in, "tiled cholesky upper" + w, 10);
      // Only the selected triangle is read: the other one holds a's values, not zeros.
      ArrayPtr xl = linalg::solve_triangular(A, B, true), xu = linalg::solve_triangular(A, V, false);
      EXPECT_EQ(xl->chunks, B->chunks) << w;
      expect_like_numpy(xl, "result = np.linalg.solve(np.tril(a), b)", in, "solve_triangular lower" + w, 10);
      expect_like_numpy(xu, "result = np.linalg.solve(np.triu(a), v)", in, "solve_triangular upper" + w, 10);
    }
  // Mixed dtypes promote (NumPy's result type), integers compute in float64.
  Npy ai = square(CA_INT32, 6, 400, false), bf = make(CA_FLOAT32, {6}, 401);
  expect_like_numpy(linalg::solve(arr(ai, {{4, 2}, {4, 2}}), arr(bf, {{3, 3}})), "result = np.linalg.solve(a, b)",
                    {{"a", ai}, {"b", bf}}, "int32 a, float32 b", 10);
}

// dask's lu: a = p @ l @ u over the tile grid (ragged and non-square chunks rechunked to a's rows),
// p a permutation per diagonal tile, l unit lower, u upper; every float dtype and an integer input.
TEST_F(LinalgTest, TiledLuReconstructs) {
  for (DType dt : {CA_FLOAT32, CA_FLOAT64, CA_COMPLEX64, CA_COMPLEX128, CA_INT32}) {
    for (const Chunks &c : {Chunks{{3, 3, 3}, {3, 3, 3}}, Chunks{{4, 4, 1}, {2, 7}}, Chunks{{9}, {9}}}) {
      Npy a = square(dt, 9, 41, false);
      ArrayPtr x = arr(a, c);
      linalg::LU f = linalg::lu(x);
      const DType want = linalg::lapack_dtype(dt);
      for (const ArrayPtr &m : {f.p, f.l, f.u}) {
        EXPECT_EQ(m->chunks, c);
        EXPECT_EQ(m->dtype, want);
      }
      const std::string what = std::string(dtype_name(dt)) + " " + chunks_str(c);
      expect_like_numpy(linalg::matmul(linalg::matmul(f.p, f.l), f.u), "result = a.astype(np.result_type(a, 1.0))",
                        {{"a", a}}, what + " p @ l @ u", 40);
      Npy L = test::compute_npy(f.l), U = test::compute_npy(f.u), P = test::compute_npy(f.p);
      for (Index i = 0; i < 9; ++i)
        for (Index j = 0; j < 9; ++j) {
          if (j > i) {
            EXPECT_EQ(test::element(L, i * 9 + j), cd(0)) << what;
          } else if (j == i) {
            EXPECT_EQ(test::element(L, i * 9 + j), cd(1)) << what;
          } else {
            EXPECT_EQ(test::element(U, i * 9 + j), cd(0)) << what;
          }
          const cd pv = test::element(P, i * 9 + j);
          EXPECT_TRUE(pv == cd(0) || pv == cd(1)) << what;
          if (i / 3 != j / 3 && c[0].size() == 3) {
            EXPECT_EQ(pv, cd(0)) << what << ": p is block diagonal";
          }
        }
    }
  }
}

TEST_F(LinalgTest, TiledSingularAndNotPositiveDefinite) {
  auto expect_kernel_error = [](const ArrayPtr &r, const std::string &what, const char *label) {
    try {
      test::compute_npy(r);
      ADD_FAILURE() << label << ": no error";
    } catch (const Error &e) {
      EXPECT_EQ(e.code(), CA_EKERNEL) << label;
      EXPECT_NE(e.message().find(what), std::string::npos) << label << ": " << e.message();
    }
  };
  // Rank 2 of 4: the second diagonal tile's Schur complement is singular.
  std::vector<double> r2{1, 2, 3, 4, 2, 5, 1, 1, 3, 7, 4, 5, 4, 9, 5, 6};
  Npy s = test::npy_of(CA_FLOAT64, {4, 4}, r2.data());
  ArrayPtr S = arr(s, {{2, 2}, {2, 2}});
  expect_kernel_error(linalg::solve(S, arr(make(CA_FLOAT64, {4}, 402), {{2, 2}})), "Singular matrix", "solve");
  expect_kernel_error(linalg::inv(S), "Singular matrix", "inv");
  // Not positive definite only in the last tile: diag(1, 1, -1, 1).
  std::vector<double> d{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, -1, 0, 0, 0, 0, 1};
  ArrayPtr D = arr(test::npy_of(CA_FLOAT64, {4, 4}, d.data()), {{2, 2}, {2, 2}});
  expect_kernel_error(linalg::cholesky(D, true), "not positive definite", "cholesky");
  expect_kernel_error(linalg::cholesky(D, false), "not positive definite", "cholesky upper");
  // A zero on a triangular matrix's diagonal.
  std::vector<double> zd{1, 0, 0, 0, 1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 3};
  expect_kernel_error(linalg::solve_triangular(arr(test::npy_of(CA_FLOAT64, {4, 4}, zd.data()), {{2, 2}, {2, 2}}),
                                               arr(make(CA_FLOAT64, {4, 2}, 404), {{2, 2}, {2}}), true),
                      "Singular", "solve_triangular zero diagonal");
  // dask's lu pivots inside each diagonal tile only: a nonsingular matrix whose first tile is
  // singular fails as in dask (one tile: LAPACK's row exchanges solve it).
  std::vector<double> perm{0, 1, 1, 0};
  Npy p = test::npy_of(CA_FLOAT64, {2, 2}, perm.data());
  expect_kernel_error(linalg::solve(arr(p, {{1, 1}, {1, 1}}), arr(make(CA_FLOAT64, {2}, 405), {{1, 1}})),
                      "Singular matrix", "tile-local pivoting");
  Npy vb = make(CA_FLOAT64, {2}, 405);
  expect_like_numpy(linalg::solve(arr(p, {{2}, {2}}), arr(vb, {{2}})), "result = np.linalg.solve(p, v)",
                    {{"p", p}, {"v", vb}}, "one tile pivots", 10);
}

std::string py_ord(const std::string &o) {
  if (o.empty()) return "None";
  if (o == "fro" || o == "nuc") return "'" + o + "'";
  if (o == "inf") return "np.inf";
  if (o == "-inf") return "-np.inf";
  return o;
}

// ---- norm --------------------------------------------------------------------------------------------

TEST_F(LinalgTest, Norms) {
  for (DType dt : {CA_FLOAT32, CA_FLOAT64, CA_COMPLEX64, CA_COMPLEX128, CA_INT32}) {
    Npy m = make(dt, {6, 5}, 47), v = make(dt, {9}, 48), t = make(dt, {3, 4, 2}, 49);
    std::map<std::string, Npy> in{{"m", m}, {"v", v}, {"t", t}};
    ArrayPtr M = arr(m, {{2, 4}, {5}}), V = arr(v, {{4, 5}}), T = arr(t, {{1, 2}, {3, 1}, {2}});
    std::string w = std::string(" ") + dtype_name(dt);
    Batch batch;
    for (const char *o : {"", "inf", "-inf", "0", "1", "2", "-1", "3.5"}) {
      std::string po = py_ord(o);
      batch.add(linalg::norm(V, o, {}, false), "np.linalg.norm(v, " + po + ")", std::string("vector ord ") + o + w);
      batch.add(linalg::norm(T, o, {1}, false), "np.linalg.norm(t, " + po + ", axis=1)",
                std::string("axis 1 ord ") + o + w);
      batch.add(linalg::norm(T, o, {-1}, true), "np.linalg.norm(t, " + po + ", axis=-1, keepdims=True)",
                std::string("axis -1 keepdims ord ") + o + w);
    }
    for (const char *o : {"", "fro", "inf", "-inf", "1", "-1", "2", "-2", "nuc"}) {
      std::string so(o), po = py_ord(o);
      batch.add(linalg::norm(M, o, {}, false), "np.linalg.norm(m, " + po + ")", "matrix ord " + so + w);
      if (so != "2" && so != "-2" && so != "nuc") {
        batch.add(linalg::norm(T, o, {2, 0}, false), "np.linalg.norm(t, " + po + ", axis=(2, 0))",
                  "axes (2, 0) ord " + so + w);
        batch.add(linalg::norm(T, o, {0, 1}, true), "np.linalg.norm(t, " + po + ", axis=(0, 1), keepdims=True)",
                  "keepdims ord " + so + w);
        batch.add(linalg::norm(M, o, {1, 0}, false), "np.linalg.norm(m, " + po + ", axis=(1, 0))",
                  "axes (1, 0) ord " + so + w);
      }
    }
    batch.add(linalg::norm(T, "", {}, false), "np.linalg.norm(t)", "3-d None" + w);
    batch.add(linalg::norm(T, "", {}, true), "np.linalg.norm(t, keepdims=True)", "3-d keepdims" + w);
    batch.run(in);
  }
}

// ---- errors --------------------------------------------------------------------------------------------

template <class F>
void expect_error(F &&f, ca_status_t code, const std::vector<std::string> &parts) {
  try {
    f();
    ADD_FAILURE() << "no error (expected " << parts[0] << ")";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), code) << e.message();
    for (auto &p : parts) EXPECT_NE(e.message().find(p), std::string::npos) << "'" << p << "' not in: " << e.message();
  }
}

TEST_F(LinalgTest, Errors) {
  ArrayPtr a = arr(make(CA_FLOAT64, {3, 4}, 50), {{3}, {2, 2}});
  ArrayPtr b = arr(make(CA_FLOAT64, {5, 6}, 51), {{5}, {6}});
  ArrayPtr s = arr(make(CA_FLOAT64, {}, 52), {});
  ArrayPtr c = arr(make(CA_FLOAT64, {2, 3, 4}, 53), {{2}, {3}, {4}});
  ArrayPtr d = arr(make(CA_FLOAT64, {5, 4, 2}, 54), {{5}, {4}, {2}});
  expect_error([&] { linalg::matmul(a, b); }, CA_EINVAL, {"(3, 4)", "(5, 6)", "not aligned"});
  expect_error([&] { linalg::matmul(s, a); }, CA_EINVAL, {"Input operand 0", "does not have enough dimensions"});
  expect_error([&] { linalg::matmul(c, d); }, CA_EINVAL, {"(2, 3, 4)", "(5, 4, 2)", "do not broadcast"});
  expect_error([&] { linalg::dot(a, b); }, CA_EINVAL, {"(3, 4)", "(5, 6)", "not aligned"});
  expect_error([&] { linalg::tensordot(a, b, {1}, {0}); }, CA_EINVAL, {"(3, 4)", "(5, 6)", "shape-mismatch"});
  expect_error([&] { linalg::tensordot(a, b, {2}, {0}); }, CA_EINVAL, {"axis 2 is out of bounds", "(3, 4)"});
  expect_error([&] { linalg::tensordot(a, b, {0, 0}, {0, 1}); }, CA_EINVAL, {"repeated axis"});
  expect_error([&] { linalg::tensordot(a, b, {0}, {}); }, CA_EINVAL, {"different lengths"});
  expect_error([&] { linalg::tensordot_n(a, b, 3); }, CA_EINVAL, {"axes=3"});
  expect_error([&] { linalg::outer(a, b); }, CA_EUNSUPPORTED, {"1-d", "(3, 4)"});
  ArrayPtr grid = arr(make(CA_FLOAT64, {6, 4}, 56), {{3, 3}, {2, 2}});
  expect_error([&] { linalg::qr(grid); }, CA_EINVAL, {"tall-and-skinny", "one column block", "(6, 4)"});
  expect_error([&] { linalg::norm(grid, "2", {}, false); }, CA_EINVAL, {"one column block"});
  expect_error([&] { linalg::svd(c); }, CA_EINVAL, {"2-d", "(2, 3, 4)"});
  expect_error([&] { linalg::inv(a); }, CA_EINVAL, {"square", "(3, 4)"});
  expect_error([&] { linalg::cholesky(b, true); }, CA_EINVAL, {"square", "(5, 6)"});
  ArrayPtr sq = arr(make(CA_FLOAT64, {3, 3}, 55), {{3}, {3}});
  expect_error([&] { linalg::solve(sq, b); }, CA_EINVAL, {"(3, 3)", "(5, 6)", "incompatible"});
  expect_error([&] { linalg::lstsq(a, b); }, CA_EINVAL, {"(3, 4)", "(5, 6)"});
  expect_error([&] { linalg::norm(a, "fro", {0}, false); }, CA_EINVAL, {"Invalid norm order 'fro' for vectors"});
  expect_error([&] { linalg::norm(a, "3", {0, 1}, false); }, CA_EINVAL, {"for matrices"});
  expect_error([&] { linalg::norm(a, "x", {}, false); }, CA_EINVAL, {"invalid norm order 'x'"});
  expect_error([&] { linalg::norm(c, "1", {}, false); }, CA_EINVAL, {"Improper number of dimensions"});
  expect_error([&] { linalg::norm(a, "1", {0, 2}, false); }, CA_EINVAL, {"out of bounds"});
  expect_error([&] { linalg::matmul(nullptr, a); }, CA_EINVAL, {"NULL"});
}

TEST_F(LinalgTest, TiledErrors) {
  ArrayPtr a = arr(make(CA_FLOAT64, {3, 4}, 406), {{3}, {2, 2}});
  ArrayPtr sq = arr(make(CA_FLOAT64, {3, 3}, 407), {{3}, {3}});
  expect_error([&] { linalg::solve_triangular(a, sq, true); }, CA_EINVAL, {"solve_triangular", "square", "(3, 4)"});
  expect_error([&] { linalg::solve_triangular(sq, arr(make(CA_FLOAT64, {4}, 408), {{4}}), true); }, CA_EINVAL,
               {"solve_triangular", "(3, 3)", "(4,)", "incompatible"});
  expect_error([&] { linalg::solve_triangular(sq, nullptr, true); }, CA_EINVAL, {"solve_triangular", "b is NULL"});
  expect_error([&] { linalg::cholesky(arr(make(CA_FLOAT64, {3}, 409), {{3}}), true); }, CA_EINVAL,
               {"cholesky", "2-d"});
}

}  // namespace
}  // namespace ca
