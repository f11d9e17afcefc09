// The routines (array/routines.hpp, chunkarray/routines.h) against NumPy (values, dtype, shape) and
// dask.array (result chunks for the same call on the same input chunks; "nan" for unknown sizes),
// on ragged chunks, empty, 0-d and size-1 inputs and several dtypes; then the C API path.
#include <gtest/gtest.h>

#include <chunkarray/chunkarray.h>
#include <chunkarray/routines.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "array/array.hpp"
#include "array/create.hpp"
#include "array/expr.hpp"
#include "array/slicing.hpp"
#include "array/routines.hpp"
#include "dask_batch.hpp"
#include "numpy_ref.hpp"

using namespace ca;
using ca::test::Batch;
using ca::test::expect_error;
using ca::test::Input;
using ca::test::make;
using ca::test::Npy;

namespace {

using A = std::vector<ArrayPtr>;
using V = std::vector<Index>;

// Floats with NaNs at every `every`-th element (and a repeated value), for sort/unique/search.
Npy with_nans(DType dt, V shape, Index every) {
  Npy n = make(dt, std::move(shape));
  for (Index i = 0; i < n.size(); i += every) {
    if (dt == CA_FLOAT64) reinterpret_cast<double *>(n.data.data())[i] = NAN;
    else reinterpret_cast<float *>(n.data.data())[i] = NAN;
  }
  return n;
}

Npy vec_f64(std::vector<double> v) { return ca::test::npy_of(CA_FLOAT64, {Index(v.size())}, v.data()); }
Npy vec_i64(std::vector<int64_t> v) { return ca::test::npy_of(CA_INT64, {Index(v.size())}, v.data()); }

class Routines : public ::testing::Test {
 protected:
  void SetUp() override { live_ = block_live_count(); }
  void TearDown() override { EXPECT_EQ(block_live_count(), live_) << "blocks leaked"; }
  int64_t live_ = 0;
};

const Chunks kRagged2{{1, 3}, {2, 1, 3}};  // a (4, 6) array
const std::vector<DType> kDtypes{CA_FLOAT64, CA_INT32, CA_BOOL, CA_COMPLEX64, CA_UINT8, CA_FLOAT32};

}  // namespace

// ---- creation -------------------------------------------------------------------------------------

TEST_F(Routines, Like) {
  Batch b;
  for (DType dt : kDtypes) {
    std::string n = dtype_name(dt);
    b.add("zeros_like " + n, {{make(dt, {4, 6}), kRagged2}}, "np.zeros_like(a0)", "da.zeros_like(A0)",
          [](const A &a) { return like(LikeKind::Zeros, a[0], CA_DTYPE_INVALID, nullptr, nullptr, 0.0, 0); });
    b.add("ones_like " + n, {{make(dt, {4, 6}), kRagged2}}, "np.ones_like(a0)", "da.ones_like(A0)",
          [](const A &a) { return like(LikeKind::Ones, a[0], CA_DTYPE_INVALID, nullptr, nullptr, 0.0, 0); });
    b.add("full_like 2.5 " + n, {{make(dt, {4, 6}), kRagged2}}, "np.full_like(a0, 2.5)", "da.full_like(A0, 2.5)",
          [](const A &a) { return like(LikeKind::Full, a[0], CA_DTYPE_INVALID, nullptr, nullptr, 2.5, 0); });
  }
  // empty_like: contents unspecified; chunkarray's are zeros (the values compared are that promise).
  b.add("empty_like", {{make(CA_INT16, {4, 6}), kRagged2}}, "np.zeros_like(a0)", "da.empty_like(A0)",
        [](const A &a) { return like(LikeKind::Empty, a[0], CA_DTYPE_INVALID, nullptr, nullptr, 0.0, 0); });
  b.add("full_like dtype", {{make(CA_FLOAT64, {4, 6}), kRagged2}}, "np.full_like(a0, -3.7, dtype=np.int32)",
        "da.full_like(A0, -3.7, dtype=np.int32)",
        [](const A &a) { return like(LikeKind::Full, a[0], CA_INT32, nullptr, nullptr, -3.7, 0); });
  b.add("ones_like shape (auto chunks)", {{make(CA_FLOAT64, {4, 6}), kRagged2}}, "np.ones_like(a0, shape=(5, 3))",
        "da.ones_like(A0, shape=(5, 3))", [](const A &a) {
          V s{5, 3};
          return like(LikeKind::Ones, a[0], CA_DTYPE_INVALID, &s, nullptr, 0.0, 0);
        });
  b.add("zeros_like chunks", {{make(CA_FLOAT64, {4, 6}), kRagged2}}, "np.zeros_like(a0)",
        "da.zeros_like(A0, chunks=((2, 2), (6,)))", [](const A &a) {
          Chunks c{{2, 2}, {6}};
          return like(LikeKind::Zeros, a[0], CA_DTYPE_INVALID, nullptr, &c, 0.0, 0);
        });
  b.add("zeros_like 0-d", {{make(CA_FLOAT32, {}), {}}}, "np.zeros_like(a0)", "da.zeros_like(A0)",
        [](const A &a) { return like(LikeKind::Zeros, a[0], CA_DTYPE_INVALID, nullptr, nullptr, 0.0, 0); });
  b.add("ones_like empty", {{make(CA_INT64, {0, 3}), {{0}, {2, 1}}}}, "np.ones_like(a0)", "da.ones_like(A0)",
        [](const A &a) { return like(LikeKind::Ones, a[0], CA_DTYPE_INVALID, nullptr, nullptr, 0.0, 0); });
  b.run();
}

TEST_F(Routines, Indices) {
  Batch b;
  b.add("indices (3, 4) by 2", {}, "np.indices((3, 4))", "da.indices((3, 4), chunks=2)",
        [](const A &) { return indices({3, 4}, Chunks{{2, 1}, {2, 2}}, CA_INT64); });
  b.add("indices ragged float", {}, "np.indices((5, 2, 3), dtype=np.float32)",
        "da.indices((5, 2, 3), dtype=np.float32, chunks=((1, 4), (2,), (2, 1)))",
        [](const A &) { return indices({5, 2, 3}, Chunks{{1, 4}, {2}, {2, 1}}, CA_FLOAT32); });
  b.add("indices 1-d", {}, "np.indices((7,), dtype=np.int16)", "da.indices((7,), dtype=np.int16, chunks=3)",
        [](const A &) { return indices({7}, Chunks{{3, 3, 1}}, CA_INT16); });
  b.add("indices empty", {}, "np.indices((0, 3))", "da.indices((0, 3), chunks=(1, 2))",
        [](const A &) { return indices({0, 3}, Chunks{{0}, {2, 1}}, CA_INT64); });
  b.run();
  expect_error(CA_EINVAL, "negative dimensions", [] { indices({-1}, Chunks{{1}}, CA_INT64); });
  expect_error(CA_ETYPE, "not a numeric dtype", [] { indices({2}, Chunks{{2}}, CA_BYTES | (4 << 8)); });
}

TEST_F(Routines, MeshgridBroadcastArrays) {
  Batch b;
  Input x{make(CA_FLOAT64, {5}), {{2, 3}}}, y{make(CA_INT32, {3}), {{1, 1, 1}}}, z{make(CA_INT8, {2, 2}), {{1, 1}, {2}}};
  for (int xy = 0; xy < 2; ++xy)
    for (int sparse = 0; sparse < 2; ++sparse)
      for (int i = 0; i < 3; ++i) {
        std::string args = std::string("indexing='") + (xy ? "xy" : "ij") + "', sparse=" + (sparse ? "True" : "False");
        b.add("meshgrid " + args + " [" + std::to_string(i) + "]", {x, y, z},
              "np.meshgrid(a0, a1, a2, " + args + ")[" + std::to_string(i) + "]",
              "da.meshgrid(A0, A1, A2, " + args + ")[" + std::to_string(i) + "]",
              [=](const A &a) { return meshgrid(a, xy != 0, sparse != 0)[size_t(i)]; });
      }
  b.add("meshgrid one", {x}, "np.meshgrid(a0)[0]", "da.meshgrid(A0)[0]", [](const A &a) { return meshgrid(a, true, false)[0]; });
  // broadcast_arrays: trailing axes unified (rechunked), extent-1 axes take the others' chunks.
  Input p{make(CA_FLOAT64, {4, 1}), {{1, 3}, {1}}}, q{make(CA_INT16, {6}), {{4, 2}}}, r{make(CA_FLOAT32, {3, 4, 6}),
                                                                                   {{1, 2}, {2, 2}, {3, 3}}};
  for (int i = 0; i < 3; ++i)
    b.add("broadcast_arrays [" + std::to_string(i) + "]", {p, q, r}, "np.broadcast_arrays(a0, a1, a2)[" + std::to_string(i) + "]",
          "da.broadcast_arrays(A0, A1, A2)[" + std::to_string(i) + "]",
          [=](const A &a) { return broadcast_arrays(a)[size_t(i)]; });
  Input s0{make(CA_FLOAT64, {}), {}};
  b.add("broadcast_arrays 0-d", {s0, q}, "np.broadcast_arrays(a0, a1)[0]", "da.broadcast_arrays(A0, A1)[0]",
        [](const A &a) { return broadcast_arrays(a)[0]; });
  b.run();
  auto p3 = ca::test::array_from_npy(make(CA_FLOAT64, {3}), {{3}});
  auto p4 = ca::test::array_from_npy(make(CA_FLOAT64, {4}), {{4}});
  expect_error(CA_EINVAL, "shape mismatch: objects cannot be broadcast to a single shape: (3,) (4,)",
               [&] { broadcast_arrays({p3, p4}); });
}

TEST_F(Routines, TrilTriu) {
  Batch b;
  for (DType dt : kDtypes)
    for (Index k : {-2, 0, 1, 7}) {
      std::string n = std::string(dtype_name(dt)) + " k=" + std::to_string(k);
      b.add("tril " + n, {{make(dt, {4, 6}), kRagged2}}, "np.tril(a0, " + std::to_string(k) + ")",
            "da.tril(A0, " + std::to_string(k) + ")", [=](const A &a) { return tril(a[0], k); });
      b.add("triu " + n, {{make(dt, {4, 6}), kRagged2}}, "np.triu(a0, " + std::to_string(k) + ")",
            "da.triu(A0, " + std::to_string(k) + ")", [=](const A &a) { return triu(a[0], k); });
    }
  b.add("tril 3-d", {{make(CA_INT64, {2, 3, 5}), {{1, 1}, {2, 1}, {3, 2}}}}, "np.tril(a0, -1)", "da.tril(A0, -1)",
        [](const A &a) { return tril(a[0], -1); });
  b.add("triu empty", {{make(CA_FLOAT64, {0, 3}), {{0}, {3}}}}, "np.triu(a0)", "da.triu(A0)",
        [](const A &a) { return triu(a[0], 0); });
  b.run();
  auto v = ca::test::array_from_npy(make(CA_FLOAT64, {3}), {{3}});
  expect_error(CA_EINVAL, "at least 2 dimensions", [&] { tril(v, 0); });
}

TEST_F(Routines, TriIndices) {
  Batch b;
  for (int upper = 0; upper < 2; ++upper)
    for (Index k : {-1, 0, 2}) {
      std::string f = upper ? "triu_indices" : "tril_indices";
      for (int i = 0; i < 2; ++i) {
        std::string call = "(5, " + std::to_string(k) + ", 4";
        b.add(f + call + ")[" + std::to_string(i) + "]", {}, "np." + f + call + ")[" + std::to_string(i) + "]",
              "da." + f + call + ", chunks=((2, 3), (1, 3)))[" + std::to_string(i) + "]",
              [=](const A &) { return tri_indices(5, k, 4, Chunks{{2, 3}, {1, 3}}, upper != 0)[size_t(i)]; });
      }
    }
  b.add("tril_indices_from", {{make(CA_FLOAT64, {4, 6}), kRagged2}}, "np.tril_indices_from(a0)[1]",
        "da.tril_indices_from(A0)[1]",
        [](const A &a) { return tri_indices(a[0]->shape[0], 0, a[0]->shape[1], a[0]->chunks, false)[1]; });
  b.add("triu_indices n=0", {}, "np.triu_indices(0)[0]", "da.triu_indices(0, chunks=1)[0]",
        [](const A &) { return tri_indices(0, 0, 0, Chunks{{0}, {0}}, true)[0]; });
  b.run();
}

TEST_F(Routines, Diagonal) {
  Batch b;
  for (Index off : {-3, -1, 0, 1, 2, 5, 6, -4})
    for (DType dt : {CA_FLOAT64, CA_INT16, CA_BOOL, CA_COMPLEX128}) {
      std::string o = std::to_string(off);
      b.add("diagonal 2-d " + o + " " + dtype_name(dt), {{make(dt, {4, 6}), kRagged2}}, "np.diagonal(a0, " + o + ")",
            "da.diagonal(A0, " + o + ")", [=](const A &a) { return diagonal(a[0], off, 0, 1); });
    }
  Input x3{make(CA_FLOAT64, {3, 4, 5}), {{1, 2}, {2, 2}, {2, 3}}};
  struct Ax {
    int64_t off, a1, a2;
  };
  for (Ax ax : std::vector<Ax>{{0, 0, 2}, {1, 2, 0}, {-1, 1, 2}, {2, -1, -3}, {0, 1, 0}, {3, 0, 1}}) {
    std::string args = std::to_string(ax.off) + ", " + std::to_string(ax.a1) + ", " + std::to_string(ax.a2);
    b.add("diagonal 3-d " + args, {x3}, "np.diagonal(a0, " + args + ")", "da.diagonal(A0, " + args + ")",
          [=](const A &a) { return diagonal(a[0], ax.off, ax.a1, ax.a2); });
  }
  b.add("diagonal square one block", {{make(CA_INT32, {3, 3}), {{3}, {3}}}}, "np.diagonal(a0)", "da.diagonal(A0)",
        [](const A &a) { return diagonal(a[0], 0, 0, 1); });
  b.add("diagonal empty", {{make(CA_INT32, {0, 3}), {{0}, {3}}}}, "np.diagonal(a0)", "da.diagonal(A0)",
        [](const A &a) { return diagonal(a[0], 0, 0, 1); });
  b.run();
  auto v = ca::test::array_from_npy(make(CA_FLOAT64, {4, 6}), kRagged2);
  expect_error(CA_EINVAL, "axis1 and axis2 cannot be the same", [&] { diagonal(v, 0, 1, -1); });
  expect_error(CA_EINVAL, "axis1", [&] { diagonal(v, 0, 2, 1); });
}

// ---- sorting, sets, searching ------------------------------------------------------------------

TEST_F(Routines, SortArgsort) {
  Batch b;
  std::vector<Input> ins{{make(CA_INT32, {4, 6}), kRagged2},
                         {with_nans(CA_FLOAT64, {4, 6}, 5), kRagged2},
                         {with_nans(CA_FLOAT32, {4, 6}, 7), kRagged2},
                         {make(CA_BOOL, {4, 6}), kRagged2},
                         {make(CA_COMPLEX128, {4, 6}), kRagged2},
                         {make(CA_UINT8, {4, 6}), kRagged2}};
  for (auto &in : ins)
    for (int64_t axis : {0, 1, -1}) {
      std::string n = std::string(dtype_name(in.data.dtype)) + " axis " + std::to_string(axis), ax = std::to_string(axis);
      b.add("sort " + n, {in}, "np.sort(a0, axis=" + ax + ")", "", [=](const A &a) {
        ArrayPtr r = sort(a[0], axis, false, false);
        Chunks want = a[0]->chunks;
        want[size_t(axis < 0 ? axis + 2 : axis)] = {a[0]->shape[size_t(axis < 0 ? axis + 2 : axis)]};
        EXPECT_EQ(r->chunks, want) << "sort keeps the other axes' chunks";
        return r;
      });
      b.add("argsort " + n, {in}, "np.argsort(a0, axis=" + ax + ", kind='stable')", "",
            [=](const A &a) { return sort(a[0], axis, false, true); });
      // numpy.array_api's descending: flip(sort(flip(x))); argsort: n - 1 - flip(argsort(flip(x))).
      b.add("sort descending " + n, {in}, "np.flip(np.sort(np.flip(a0, " + ax + "), axis=" + ax + "), " + ax + ")", "",
            [=](const A &a) { return sort(a[0], axis, true, false); });
      b.add("argsort descending " + n, {in},
            "a0.shape[" + ax + "] - 1 - np.flip(np.argsort(np.flip(a0, " + ax + "), axis=" + ax + ", kind='stable'), " +
                ax + ")",
            "", [=](const A &a) { return sort(a[0], axis, true, true); });
    }
  b.add("sort 1-d empty", {{make(CA_FLOAT64, {0}), {{0}}}}, "np.sort(a0)", "", [](const A &a) { return sort(a[0], 0, false, false); });
  b.add("sort size 1", {{make(CA_INT64, {1}), {{1}}}}, "np.sort(a0)", "", [](const A &a) { return sort(a[0], 0, false, false); });
  b.run();
  auto s = ca::test::array_from_npy(make(CA_FLOAT64, {}), {});
  expect_error(CA_EINVAL, "out of bounds", [&] { sort(s, -1, false, false); });
}

TEST_F(Routines, Unique) {
  Batch b;
  std::vector<Input> ins{{make(CA_INT32, {4, 6}), kRagged2},
                         {with_nans(CA_FLOAT64, {4, 6}, 5), kRagged2},
                         {make(CA_BOOL, {7}), {{3, 4}}},
                         {make(CA_COMPLEX64, {9}), {{2, 7}}},
                         {make(CA_INT64, {0}), {{0}}},
                         {make(CA_FLOAT32, {}), {}}};
  const char *names[4] = {"values", "index", "inverse", "counts"};
  for (auto &in : ins)
    for (int i = 0; i < 4; ++i) {
      std::string n = std::string(dtype_name(in.data.dtype)) + " " + names[i] + " ndim " + std::to_string(in.data.shape.size());
      b.add("unique " + n, {in}, "np.unique(a0, True, True, True)[" + std::to_string(i) + "]",
            // dask's chunks for the same outputs (dask's inverse follows the raveled input)
            "da.unique(A0, True, True, True)[" + std::to_string(i) + "]", [=](const A &a) {
              UniqueResult r = unique(a[0], true, true, true, true);
              return i == 0 ? r.values : i == 1 ? r.index : i == 2 ? r.inverse : r.counts;
            });
    }
  // Distinct NaNs (the array API's unique_values): every NaN kept.
  b.add("unique distinct NaN", {{with_nans(CA_FLOAT64, {4, 6}, 5), kRagged2}}, "np.unique(a0, equal_nan=False)", "",
        [](const A &a) { return unique(a[0], false, false, false, false).values; });
  b.add("union1d", {{make(CA_INT16, {3, 4}), {{1, 2}, {4}}}, {with_nans(CA_FLOAT32, {5}, 3), {{2, 3}}}},
        "np.union1d(a0, a1)", "da.union1d(A0, A1)", [](const A &a) { return union1d(a[0], a[1]); });
  b.run();
  auto only = unique(ca::test::array_from_npy(make(CA_INT32, {5}), {{5}}), false, false, false, true);
  EXPECT_FALSE(only.index || only.inverse || only.counts);
  expect_error(CA_ETYPE, "is not supported", [] {
    unique(full({2}, Chunks{{2}}, CA_BYTES | (3 << 8), 0.0), false, false, false, true);
  });
}

TEST_F(Routines, IsinSearchsortedDigitize) {
  Batch b;
  Input e{with_nans(CA_FLOAT64, {4, 6}, 5), kRagged2};
  Input t{vec_f64({3.0, NAN, -5.0, 17.0, 2.0, 3.0}), {{4, 2}}};
  Input ti{vec_i64({0, 2, 9, 2, -1}), {{2, 3}}};
  for (int inv = 0; inv < 2; ++inv) {
    std::string iv = inv ? "True" : "False";
    b.add("isin float invert=" + iv, {e, t}, "np.isin(a0, a1, invert=" + iv + ")", "da.isin(A0, A1, invert=" + iv + ")",
          [=](const A &a) { return isin(a[0], a[1], inv != 0); });
    b.add("isin int/float", {{make(CA_INT8, {4, 6}), kRagged2}, t}, "np.isin(a0, a1, invert=" + iv + ")",
          "da.isin(A0, A1, invert=" + iv + ")", [=](const A &a) { return isin(a[0], a[1], inv != 0); });
  }
  b.add("isin 2-d test", {{make(CA_UINT8, {9}), {{4, 5}}}, {make(CA_INT32, {2, 3}), {{1, 1}, {3}}}}, "np.isin(a0, a1)",
        "da.isin(A0, A1)", [](const A &a) { return isin(a[0], a[1], false); });
  b.add("isin complex", {{make(CA_COMPLEX128, {6}), {{2, 4}}}, {make(CA_COMPLEX128, {3}), {{3}}}}, "np.isin(a0, a1)",
        "da.isin(A0, A1)", [](const A &a) { return isin(a[0], a[1], false); });
  // searchsorted: a sorted with repeats and a NaN at the end (NumPy's order), v 2-d ragged.
  Input sa{vec_f64({-5.0, 0.0, 0.0, 3.0, 3.0, 3.0, 10.0, NAN}), {{3, 5}}};
  for (int right = 0; right < 2; ++right) {
    std::string side = right ? "'right'" : "'left'";
    b.add("searchsorted " + side, {sa, e}, "np.searchsorted(a0, a1, side=" + side + ")",
          "da.searchsorted(A0, A1, side=" + side + ")", [=](const A &a) { return searchsorted(a[0], a[1], right != 0, nullptr); });
    b.add("searchsorted int v " + side, {sa, {make(CA_INT32, {4, 6}), kRagged2}}, "np.searchsorted(a0, a1, side=" + side + ")",
          "da.searchsorted(A0, A1, side=" + side + ")", [=](const A &a) { return searchsorted(a[0], a[1], right != 0, nullptr); });
  }
  b.add("searchsorted 0-d v", {sa, {make(CA_FLOAT64, {}), {}}}, "np.searchsorted(a0, a1)", "da.searchsorted(A0, A1)",
        [](const A &a) { return searchsorted(a[0], a[1], false, nullptr); });
  b.add("searchsorted sorter", {{vec_f64({4.0, -1.0, 9.0, 2.0, 2.5}), {{2, 3}}}, e, {vec_i64({1, 3, 4, 0, 2}), {{5}}}},
        "np.searchsorted(a0, a1, sorter=a2)", "", [](const A &a) { return searchsorted(a[0], a[1], false, a[2]); });
  b.add("searchsorted empty a", {{vec_f64({}), {{0}}}, e}, "np.searchsorted(a0, a1)", "",
        [](const A &a) { return searchsorted(a[0], a[1], false, nullptr); });
  // digitize: increasing and decreasing bins, right or not (dask: map_blocks with NumPy bins).
  Input inc{vec_f64({-2.0, 0.0, 0.0, 4.0, 11.0}), {{2, 3}}}, dec{vec_f64({11.0, 4.0, 0.0, 0.0, -2.0}), {{5}}};
  for (int right = 0; right < 2; ++right) {
    std::string r = right ? "True" : "False";
    b.add("digitize inc right=" + r, {e, inc}, "np.digitize(a0, a1, right=" + r + ")", "da.digitize(A0, a1, right=" + r + ")",
          [=](const A &a) { return digitize(a[0], a[1], right != 0); });
    b.add("digitize dec right=" + r, {{make(CA_INT64, {4, 6}), kRagged2}, dec}, "np.digitize(a0, a1, right=" + r + ")",
          "da.digitize(A0, a1, right=" + r + ")", [=](const A &a) { return digitize(a[0], a[1], right != 0); });
  }
  b.run();
  auto x = ca::test::array_from_npy(make(CA_FLOAT64, {4}), {{4}});
  auto bad = ca::test::array_from_npy(vec_f64({1.0, 3.0, 2.0}), {{3}});
  auto d = digitize(x, bad, false);
  try {
    ca::test::compute_npy(d);
    ADD_FAILURE() << "digitize with non-monotonic bins computed";
  } catch (const Error &err) {
    EXPECT_NE(std::string(err.what()).find("monotonically"), std::string::npos) << err.what();
  }
  expect_error(CA_EINVAL, "a must be 1-d", [&] { searchsorted(ca::test::array_from_npy(make(CA_FLOAT64, {2, 2}), {{2}, {2}}), x, false, nullptr); });
  expect_error(CA_ETYPE, "may not be complex",
               [&] { digitize(ca::test::array_from_npy(make(CA_COMPLEX64, {2}), {{2}}), x, false); });
}

TEST_F(Routines, NonzeroArgwhere) {
  Batch b;
  std::vector<Input> ins{{make(CA_INT32, {4, 6}), kRagged2},
                         {make(CA_BOOL, {4, 6}), kRagged2},
                         {make(CA_FLOAT64, {3, 4, 5}), {{1, 2}, {2, 2}, {5}}},
                         {make(CA_COMPLEX64, {9}), {{4, 5}}},
                         {make(CA_INT16, {0, 3}), {{0}, {2, 1}}}};
  for (auto &in : ins) {
    std::string n = std::string(dtype_name(in.data.dtype)) + " ndim " + std::to_string(in.data.shape.size());
    // dask cannot ravel an empty multi-block array (NotImplementedError): no chunks to compare then.
    auto da_ = [&](const std::string &e) { return in.data.size() == 0 ? std::string() : e; };
    b.add("argwhere " + n, {in}, "np.argwhere(a0)", da_("da.argwhere(A0)"), [](const A &a) { return argwhere(a[0]); });
    b.add("flatnonzero " + n, {in}, "np.flatnonzero(a0)", da_("da.flatnonzero(A0)"),
          [](const A &a) { return flatnonzero(a[0]); });
    for (size_t i = 0; i < in.data.shape.size(); ++i)
      b.add("nonzero " + n + " [" + std::to_string(i) + "]", {in}, "np.nonzero(a0)[" + std::to_string(i) + "]",
            da_("da.nonzero(A0)[" + std::to_string(i) + "]"), [=](const A &a) { return nonzero(a[0])[i]; });
  }
  b.add("argwhere 0-d", {{make(CA_FLOAT64, {}), {}}}, "np.argwhere(a0)", "", [](const A &a) { return argwhere(a[0]); });
  b.run();
  expect_error(CA_EINVAL, "0-d", [] { nonzero(ca::test::array_from_npy(make(CA_FLOAT64, {}), {})); });
}

// ---- manipulation --------------------------------------------------------------------------------

TEST_F(Routines, RollRot90Rollaxis) {
  Batch b;
  Input x{make(CA_FLOAT64, {4, 6}), kRagged2};
  struct R {
    std::vector<Index> shifts;
    std::vector<int64_t> axes;
    std::string np;
  };
  for (const R &r : std::vector<R>{{{2}, {}, "2"},
                                   {{-7}, {}, "-7"},
                                   {{3}, {1}, "3, 1"},
                                   {{-1}, {0}, "-1, 0"},
                                   {{13}, {-1}, "13, -1"},
                                   {{1, 2}, {0, 1}, "(1, 2), (0, 1)"},
                                   {{0}, {1}, "0, 1"},
                                   {{std::numeric_limits<Index>::min()}, {1}, "-2**63, 1"}})
    b.add("roll " + r.np, {x}, "np.roll(a0, " + r.np + ")", "da.roll(A0, " + r.np + ")",
          [=](const A &a) { return roll(a[0], r.shifts, r.axes); });
  b.add("roll empty", {{make(CA_INT32, {0, 3}), {{0}, {3}}}}, "np.roll(a0, 2, 1)", "da.roll(A0, 2, 1)",
        [](const A &a) { return roll(a[0], {2}, {1}); });
  for (int64_t k : {1, 2, 3, -1, 4})
    for (auto ax : std::vector<std::pair<int64_t, int64_t>>{{0, 1}, {1, 0}, {-1, 0}}) {
      std::string args = std::to_string(k) + ", (" + std::to_string(ax.first) + ", " + std::to_string(ax.second) + ")";
      b.add("rot90 " + args, {{make(CA_INT16, {3, 4, 5}), {{1, 2}, {4}, {2, 3}}}}, "np.rot90(a0, " + args + ")",
            "da.rot90(A0, " + args + ")", [=](const A &a) { return rot90(a[0], k, ax.first, ax.second); });
    }
  for (auto as : std::vector<std::pair<int64_t, int64_t>>{{2, 0}, {0, 3}, {1, 1}, {-1, -2}, {0, 2}}) {
    std::string args = std::to_string(as.first) + ", " + std::to_string(as.second);
    b.add("rollaxis " + args, {{make(CA_FLOAT32, {2, 3, 4}), {{1, 1}, {3}, {2, 2}}}}, "np.rollaxis(a0, " + args + ")",
          "da.rollaxis(A0, " + args + ")", [=](const A &a) { return rollaxis(a[0], as.first, as.second); });
  }
  b.run();
  auto a = ca::test::array_from_npy(make(CA_FLOAT64, {4, 6}), kRagged2);
  expect_error(CA_EINVAL, "Must have the same number of shifts as axes", [&] { roll(a, {1, 2}, {0}); });
  expect_error(CA_EINVAL, "Axes must be different", [&] { rot90(a, 1, 0, -2); });
  expect_error(CA_EINVAL, "'start' arg requires", [&] { rollaxis(a, 0, 3); });
}

// ---- the C API --------------------------------------------------------------------------------------

namespace {

ca_array_t *c_from(const std::vector<double> &data, std::vector<int64_t> shape, std::vector<int64_t> numblocks,
                   std::vector<int64_t> sizes) {
  ca_chunks_t ch{int32_t(shape.size()), numblocks.data(), sizes.data()};
  ca_array_t *a = nullptr;
  EXPECT_EQ(ca_array_from_buffer(&a, data.data(), CA_FLOAT64, int32_t(shape.size()), shape.data(), &ch, nullptr), CA_OK)
      << ca_last_error_message();
  return a;
}

template <class T>
std::vector<T> c_values(ca_context_t *ctx, const ca_array_t *a) {
  ca_block_t *blk = nullptr;
  EXPECT_EQ(ca_array_compute(&blk, ctx, a, nullptr), CA_OK) << ca_last_error_message();
  if (!blk) return {};
  const T *p = static_cast<const T *>(ca_block_data(blk));
  std::vector<T> v(p, p + ca_block_nbytes(blk) / sizeof(T));
  ca_block_free(blk);
  return v;
}

std::vector<int64_t> c_chunks(const ca_array_t *a, int32_t dim) {
  int64_t n = 0;
  const int64_t *c = ca_array_chunks(a, dim, &n);
  return std::vector<int64_t>(c, c + n);
}

}  // namespace

// ---- insert, delete, choose, select, coarsen, bincount (routines_manip.cpp) ------------------------

TEST_F(Routines, InsertDelete) {
  Batch b;
  for (DType dt : kDtypes) {
    const std::string n = dtype_name(dt);
    b.add("insert 1-d " + n, {{make(dt, {9}), {{3, 2, 4}}}},
          "np.insert(a0, [0, 2, 2, 9], np.arange(4))",
          "da.insert(A0, [0, 2, 2, 9], da.from_array(np.arange(4).astype(a0.dtype)), axis=0)",
          [dt](const A &a) { return insert(a[0], {0, 2, 2, 9}, elementwise_astype(arange(0, 4, 1, {{4}}, CA_INT64), dt), 0); });
    b.add("insert axis 1 scalar " + n, {{make(dt, {4, 6}), kRagged2}}, "np.insert(a0, [1, 6], 1, axis=1)",
          "da.insert(A0, [1, 6], 1, axis=1)",
          [dt](const A &a) { return insert(a[0], {1, 6}, full({}, {}, dt, 1.0), 1); });
    b.add("delete axis 1 " + n, {{make(dt, {4, 6}), kRagged2}}, "np.delete(a0, [0, 3, 3, -1], axis=1)",
          "da.delete(A0, [0, 3, 3, -1], axis=1)", [](const A &a) { return delete_at(a[0], {0, 3, 3, -1}, 1); });
  }
  b.add("insert unsorted (NumPy's order; dask needs sorted)", {{make(CA_INT32, {5}), {{2, 3}}}},
        "np.insert(a0, [4, 0, 4], [7, 8, 9])", "",
        [](const A &a) { return insert(a[0], {4, 0, 4}, arange(7, 10, 1, {{3}}, CA_INT32), 0); });
  b.add("insert into empty", {{make(CA_FLOAT64, {0}), {{0}}}}, "np.insert(a0, [0, 0], [1.0, 2.0])", "",
        [](const A &a) { return insert(a[0], {0, 0}, arange(1, 3, 1, {{2}}, CA_FLOAT64), 0); });
  b.add("delete everything", {{make(CA_FLOAT32, {3}), {{1, 2}}}}, "np.delete(a0, [0, 1, 2])",
        "da.delete(A0, [0, 1, 2], axis=0)", [](const A &a) { return delete_at(a[0], {0, 1, 2}, 0); });
  b.add("delete size 1", {{make(CA_INT8, {1, 2}), {{1}, {2}}}}, "np.delete(a0, 0, axis=0)",
        "da.delete(A0, 0, axis=0)", [](const A &a) { return delete_at(a[0], {0}, 0); });
  b.run();
  ArrayPtr x = ca::test::array_from_npy(make(CA_FLOAT64, {4, 6}), kRagged2);
  expect_error(CA_EINVAL, "index 7 is out of bounds for axis 1 with size 6", [&] { insert(x, {7}, x, 1); });
  expect_error(CA_EINVAL, "index -7 is out of bounds for axis 1 with size 6", [&] { delete_at(x, {-7}, 1); });
  expect_error(CA_EINVAL, "do not broadcast", [&] { insert(x, {1, 2}, x, 1); });
}

TEST_F(Routines, ChooseSelect) {
  Batch b;
  const Input idx{vec_i64({0, 1, 2, 1, 0, 2}), {{2, 4}}};
  for (DType dt : kDtypes) {
    const std::string n = dtype_name(dt);
    const Input c{make(dt, {6}), {{3, 3}}}, r{make(dt, {3, 6}), {{1, 2}, {6}}};
    b.add("choose " + n, {idx, c, r, c}, "np.choose(a0, [a1, a2, a3])", "da.choose(A0, [A1, A2, A3])",
          [](const A &a) { return choose(a[0], {a[1], a[2], a[3]}, 0); });
    const Input p{make(CA_BOOL, {6}), {{6}}}, q{make(CA_BOOL, {3, 6}), {{3}, {2, 4}}};
    // dask's select needs operands of one ndim: its chunks are compared where they have
    b.add("select same shape " + n, {p, p, c, c}, "np.select([a0, ~a1], [a2, a3 * 2], 5)",
          "da.select([A0, ~A1], [A2, A3 * 2], 5)", [](const A &a) {
            ca_scalar_t five{CA_INT64, 0, 5.0, 0, 5}, two{CA_INT64, 0, 2.0, 0, 2};
            return select({a[0], elementwise_unary(CA_OP_INVERT, a[1])}, {a[2], elementwise_scalar(CA_OP_MUL, a[3], two, false)},
                          five);
          });
    b.add("select broadcast " + n, {p, q, c, r}, "np.select([a0, a1], [a2, a3], 5)", "",
          [](const A &a) {
            ca_scalar_t five{CA_INT64, 0, 5.0, 0, 5};
            return select({a[0], a[1]}, {a[2], a[3]}, five);
          });
  }
  const Input big{vec_i64({-4, 7, 2, 3, -1, 0}), {{3, 3}}}, c{make(CA_FLOAT32, {6}), {{6}}};
  b.add("choose wrap", {big, c, c, c}, "np.choose(a0, [a1, a2 * 2, a3 * 3], mode='wrap')", "",
        [](const A &a) {
          ca_scalar_t two{CA_FLOAT64, 0, 2.0, 0, 0}, three{CA_FLOAT64, 0, 3.0, 0, 0};
          return choose(a[0], {a[1], elementwise_scalar(CA_OP_MUL, a[2], two, false),
                               elementwise_scalar(CA_OP_MUL, a[3], three, false)}, 1);
        });
  b.add("choose clip", {big, c, c}, "np.choose(a0, [a1, -a2], mode='clip')", "",
        [](const A &a) { return choose(a[0], {a[1], elementwise_unary(CA_OP_NEG, a[2])}, 2); });
  b.add("choose 0-d", {{vec_i64({1}), {{1}}}}, "np.choose(a0[0], [np.float64(5), np.float64(6)])", "",
        [](const A &a) {
          return choose(getitem(a[0], {IndexItem::integer(0)}), {full({}, {}, CA_FLOAT64, 5.0), full({}, {}, CA_FLOAT64, 6.0)}, 0);
        });
  b.run();
  ArrayPtr f = ca::test::array_from_npy(make(CA_FLOAT64, {4}), {{4}});
  expect_error(CA_ETYPE, "choose: a must be of an integer dtype", [&] { choose(f, {f}, 0); });
  const ca_scalar_t zero{CA_INT64, 0, 0.0, 0, 0};
  expect_error(CA_ETYPE, "invalid entry 0 in condlist", [&] { select({f}, {f}, zero); });
  expect_error(CA_EINVAL, "empty condition list", [&] { select({}, {}, zero); });
}

TEST_F(Routines, CoarsenBincount) {
  Batch b;
  for (DType dt : {CA_FLOAT64, CA_INT32, CA_UINT8, CA_FLOAT32}) {
    const std::string n = dtype_name(dt);
    const Input x{make(dt, {12, 6}), {{4, 5, 3}, {3, 3}}};
    b.add("coarsen sum " + n, {x}, "a0.reshape(6, 2, 2, 3).sum(axis=(1, 3))", "da.coarsen(np.sum, A0, {0: 2, 1: 3})",
          [](const A &a) { return coarsen(CA_RED_SUM, a[0], {2, 3}, false); });
    b.add("coarsen max " + n, {x}, "a0.reshape(3, 4, 6).max(axis=1)", "da.coarsen(np.max, A0, {0: 4})",
          [](const A &a) { return coarsen(CA_RED_MAX, a[0], {4, 1}, false); });
  }
  b.add("coarsen mean trim", {{make(CA_FLOAT64, {11, 7}), {{3, 5, 3}, {4, 3}}}},
        "a0[:9, :6].reshape(3, 3, 3, 2).mean(axis=(1, 3))", "da.coarsen(np.mean, A0, {0: 3, 1: 2}, trim_excess=True)",
        [](const A &a) { return coarsen(CA_RED_MEAN, a[0], {3, 2}, true); });
  b.add("coarsen empty", {{make(CA_FLOAT64, {0, 4}), {{0}, {2, 2}}}}, "a0.reshape(0, 2, 2).sum(axis=2)",
        "da.coarsen(np.sum, A0, {1: 2})", [](const A &a) { return coarsen(CA_RED_SUM, a[0], {1, 2}, false); });
  b.add("coarsen 0-d", {{make(CA_FLOAT64, {}), {}}}, "np.sum(a0)", "",
        [](const A &a) { return coarsen(CA_RED_SUM, a[0], {}, false); });
  const Input v{vec_i64({1, 4, 4, 0, 9, 1, 1, 3}), {{3, 1, 4}}};
  b.add("bincount", {v}, "np.bincount(a0, minlength=12)", "da.bincount(A0, minlength=12)",
        [](const A &a) { return bincount(a[0], nullptr, 12, 0); });
  b.add("bincount weights", {v, {make(CA_FLOAT32, {8}), {{3, 1, 4}}}}, "np.bincount(a0, a1)", "",
        [](const A &a) { return bincount(a[0], a[1], 10, 0); });
  b.add("bincount bool", {{make(CA_BOOL, {7}), {{2, 5}}}}, "np.bincount(a0)", "",
        [](const A &a) { return bincount(a[0], nullptr, 2, 0); });
  b.add("bincount empty", {{make(CA_INT64, {0}), {{0}}}}, "np.bincount(a0, minlength=3)", "",
        [](const A &a) { return bincount(a[0], nullptr, 3, 0); });
  // CA_BINCOUNT_AUTO: dask's unknown (nan) length, each block counting to its own maximum
  b.add("bincount auto", {v}, "np.bincount(a0)", "da.bincount(A0)",
        [](const A &a) { return bincount(a[0], nullptr, -1, 0); });
  const Input v2{vec_i64({0, 2, 1, 1, 0, 13, 2, 2, 5}), {{2, 2, 1, 3, 1}}};
  b.add("bincount auto tree", {v2}, "np.bincount(a0)", "da.bincount(A0, split_every=2)",
        [](const A &a) { return bincount(a[0], nullptr, -1, 2); });
  b.add("bincount auto weights", {v2, {make(CA_FLOAT64, {9}), {{4, 5}}}}, "np.bincount(a0, a1)", "",
        [](const A &a) { return bincount(a[0], a[1], -1, 3); });
  b.add("bincount auto uint8 size 1", {{make(CA_UINT8, {1}), {{1}}}}, "np.bincount(a0)", "",
        [](const A &a) { return bincount(a[0], nullptr, -1, 0); });
  b.add("bincount auto empty", {{make(CA_INT32, {0}), {{0}}}}, "np.bincount(a0)", "",
        [](const A &a) { return bincount(a[0], nullptr, -1, 0); });
  // CA_BINCOUNT_AT_LEAST(m) = -1 - m: NumPy's minlength, below and above the data's maximum
  b.add("bincount at least 3", {v2}, "np.bincount(a0, minlength=3)", "",
        [](const A &a) { return bincount(a[0], nullptr, -1 - 3, 2); });
  b.add("bincount at least 40 weights", {v2, {make(CA_FLOAT32, {9}), {{9}}}}, "np.bincount(a0, a1, minlength=40)", "",
        [](const A &a) { return bincount(a[0], a[1], -1 - 40, 0); });
  b.add("bincount at least 5 empty", {{make(CA_INT16, {0}), {{0}}}}, "np.bincount(a0, minlength=5)", "",
        [](const A &a) { return bincount(a[0], nullptr, -1 - 5, 0); });
  b.run();
  {
    ArrayPtr neg = ca::test::array_from_npy(vec_i64({3, 1, -2, 0}), {{2, 2}});
    ArrayPtr r = bincount(neg, nullptr, -1, 0);
    EXPECT_FALSE(chunks_known(r->chunks));
    expect_error(CA_EKERNEL, "'list' argument must have no negative elements", [&] { (void)compute_chunk_sizes(ca::test::Runtime::get().ex, ca::test::Runtime::get().reg, r, RunOptions{}); });
    expect_error(CA_EINVAL, "is out of range",
                 [&] { bincount(neg, nullptr, std::numeric_limits<Index>::min(), 0); });
  }
  ArrayPtr x = ca::test::array_from_npy(make(CA_FLOAT64, {10}), {{10}});
  expect_error(CA_EINVAL, "Coarsening factors {0: 3} do not align with array shape (10,).",
               [&] { coarsen(CA_RED_SUM, x, {3}, false); });
  expect_error(CA_EINVAL, "arg-reductions", [&] { coarsen(CA_RED_ARGMAX, x, {2}, false); });
  // dask's own results for these (dask.array.routines.aligned_coarsen_chunks)
  EXPECT_EQ(aligned_coarsen_chunks({4, 5, 3}, 2), (std::vector<Index>{4, 4, 4}));
  EXPECT_EQ(aligned_coarsen_chunks({3, 5, 3}, 3), (std::vector<Index>{3, 3, 3, 2}));
  expect_error(CA_ETYPE, "Cannot cast array data", [&] { bincount(x, nullptr, 3, 0); });
}

// ---- histogram, histogramdd (histogram.cpp) ----------------------------------------------------------

namespace {
HistogramBins uniform_bins(Index n, double lo, double hi) {
  HistogramBins b;
  b.nbins = n;
  b.lo = lo;
  b.hi = hi;
  return b;
}
HistogramBins edge_bins(const ArrayPtr &e) {
  HistogramBins b;
  b.edges = e;
  return b;
}
}  // namespace

TEST_F(Routines, Histogram) {
  Batch b;
  for (DType dt : {CA_FLOAT64, CA_INT32, CA_UINT8, CA_FLOAT32, CA_BOOL}) {
    const std::string n = dtype_name(dt);
    const Input x{make(dt, {4, 6}), kRagged2};
    b.add("histogram " + n, {x}, "np.histogram(a0, bins=6, range=(-3, 11.5))[0]",
          "da.histogram(A0, bins=6, range=(-3, 11.5))[0]", [](const A &a) {
            return histogramdd({a[0]}, {uniform_bins(6, -3, 11.5)}, nullptr, false, false, 2).hist;
          });
    b.add("histogram density " + n, {x}, "np.histogram(a0, bins=4, range=(0, 8), density=True)[0]",
          "da.histogram(A0, bins=4, range=(0, 8), density=True)[0]", [](const A &a) {
            return histogramdd({a[0]}, {uniform_bins(4, 0, 8)}, nullptr, true, false, 0).hist;
          });
    b.add("histogram edges " + n, {x, {vec_f64({-5, 0, 0.5, 3, 3, 17}), {{2, 4}}}}, "np.histogram(a0, bins=a1)[0]",
          "da.histogram(A0, bins=A1)[0]",
          [](const A &a) { return histogramdd({a[0]}, {edge_bins(a[1])}, nullptr, false, false, 0).hist; });
    b.add("histogram edges of " + n, {x}, "np.histogram(a0, bins=4, range=(0, 8))[1]",
          "",
          [](const A &a) { return histogramdd({a[0]}, {uniform_bins(4, 0, 8)}, nullptr, false, false, 0).edges[0]; });
  }
  const Input x{make(CA_FLOAT64, {4, 6}), kRagged2};
  for (DType wt : {CA_FLOAT32, CA_INT16, CA_COMPLEX128}) {
    b.add(std::string("histogram weights ") + dtype_name(wt), {x, {make(wt, {4, 6}), {{4}, {6}}}},
          "np.histogram(a0, bins=5, range=(-5, 5), weights=a1)[0]", "", [](const A &a) {
            return histogramdd({a[0]}, {uniform_bins(5, -5, 5)}, a[1], false, false, 0).hist;
          });
  }
  b.add("histogram expression", {x}, "np.histogram(np.sin(a0) * 3, bins=7, range=(-2, 2))[0]", "", [](const A &a) {
    return histogramdd({elementwise_binary(CA_OP_MUL, elementwise_unary(CA_OP_SIN, a[0]),
                                           full({}, {}, CA_FLOAT64, 3.0))},
                       {uniform_bins(7, -2, 2)}, nullptr, false, false, 0)
        .hist;
  });
  b.add("histogram empty", {{make(CA_FLOAT64, {0}), {{0}}}}, "np.histogram(a0, bins=3, range=(0, 1))[0]",
        "da.histogram(A0, bins=3, range=(0, 1))[0]",
        [](const A &a) { return histogramdd({a[0]}, {uniform_bins(3, 0, 1)}, nullptr, false, false, 0).hist; });
  b.add("histogram 0-d", {{make(CA_FLOAT64, {}), {}}}, "np.histogram(a0, bins=3, range=(-6, 1))[0]", "",
        [](const A &a) { return histogramdd({a[0]}, {uniform_bins(3, -6, 1)}, nullptr, false, false, 0).hist; });
  b.add("histogram2d", {{make(CA_FLOAT64, {9}), {{2, 3, 4}}}, {make(CA_INT32, {9}), {{2, 3, 4}}}},
        "np.histogram2d(a0, a1 % 4, bins=(3, 2), range=((-5, 17), (0, 4)))[0]",
        "da.histogram2d(A0, A1 % 4, bins=(3, 2), range=((-5, 17), (0, 4)))[0]", [](const A &a) {
          ArrayPtr y = elementwise_binary(CA_OP_MOD, a[1], full({}, {}, CA_INT32, 4.0));
          return histogramdd({a[0], y}, {uniform_bins(3, -5, 17), uniform_bins(2, 0, 4)}, nullptr, false, true, 2)
              .hist;
        });
  b.add("histogramdd density weights", {x, x, {make(CA_INT64, {4, 6}), kRagged2}},
        "np.histogramdd((a0.ravel(), a1.ravel() * 2), bins=(4, [-20, 0, 3, 40]), range=((-5, 17), None), "
        "weights=a2.ravel(), density=True)[0]",
        "", [](const A &a) {
          ArrayPtr e = ca::test::array_from_npy(vec_i64({-20, 0, 3, 40}), {{3, 1}});
          ArrayPtr y = elementwise_binary(CA_OP_MUL, a[1], full({}, {}, CA_FLOAT64, 2.0));
          return histogramdd({a[0], y}, {uniform_bins(4, -5, 17), edge_bins(e)}, a[2], true, true, 0).hist;
        });
  b.run();
  ArrayPtr v = ca::test::array_from_npy(make(CA_FLOAT64, {6}), {{6}});
  expect_error(CA_EINVAL, "max must be larger than min in range parameter.",
               [&] { histogramdd({v}, {uniform_bins(2, 1, 0)}, nullptr, false, false, 0); });
  expect_error(CA_EINVAL, "supplied range of [0, inf] is not finite",
               [&] { histogramdd({v}, {uniform_bins(2, 0, INFINITY)}, nullptr, false, false, 0); });
  expect_error(CA_EINVAL, "weights should have the same shape as a.",
               [&] { histogramdd({v}, {uniform_bins(2, 0, 1)}, ca::test::array_from_npy(make(CA_FLOAT64, {5}), {{5}}),
                                 false, false, 0); });
  expect_error(CA_ETYPE, "samples of dtype complex128",
               [&] { histogramdd({elementwise_astype(v, CA_COMPLEX128)}, {uniform_bins(2, 0, 1)}, nullptr, false, false, 0); });
  expect_error(CA_EINVAL, "one sample",
               [&] { histogramdd({v, v}, {uniform_bins(2, 0, 1), uniform_bins(2, 0, 1)}, nullptr, false, false, 0); });
}

TEST_F(Routines, RavelUnravelIndex) {
  Batch b;
  const Input i0{vec_i64({0, 3, 1, 2, 3, 0}), {{2, 4}}}, i1{vec_i64({4, 0, 2, 1, 3, 4}), {{3, 3}}};
  const Input j{vec_i64({1, 0}), {{2}}};
  b.add("ravel_multi_index C", {i0, i1}, "np.ravel_multi_index((a0, a1), (4, 5))",
        "da.ravel_multi_index((A0, A1), (4, 5))", [](const A &a) { return ravel_multi_index(a, {4, 5}, {0, 0}, false); });
  b.add("ravel_multi_index F", {i0, i1}, "np.ravel_multi_index((a0, a1), (4, 5), order='F')", "",
        [](const A &a) { return ravel_multi_index(a, {4, 5}, {0, 0}, true); });
  b.add("ravel_multi_index wrap/clip", {i0, i1}, "np.ravel_multi_index((a0 * 3 - 2, a1 + 3), (4, 5), mode=('wrap', 'clip'))", "",
        [](const A &a) {
          ca_scalar_t three{CA_INT64, 0, 3.0, 0, 3}, two{CA_INT64, 0, 2.0, 0, 2};
          ArrayPtr x = elementwise_scalar(CA_OP_SUB, elementwise_scalar(CA_OP_MUL, a[0], three, false), two, false);
          return ravel_multi_index({x, elementwise_scalar(CA_OP_ADD, a[1], three, false)}, {4, 5}, {1, 2}, false);
        });
  b.add("ravel_multi_index broadcast", {j, {make(CA_INT16, {3, 2}), {{1, 2}, {2}}}},
        "np.ravel_multi_index((a0, np.abs(a1) % 6), (2, 6))", "", [](const A &a) {
          ca_scalar_t six{CA_INT64, 0, 6.0, 0, 6};
          return ravel_multi_index({a[0], elementwise_scalar(CA_OP_MOD, elementwise_unary(CA_OP_ABS, a[1]), six, false)},
                                   {2, 6}, {0, 0}, false);
        });
  const Input flat{vec_i64({0, 19, 7, 12, 3, 8, 15}), {{3, 4}}};
  for (int k = 0; k < 3; ++k)
    for (int f = 0; f < 2; ++f) {
      const std::string ord = f ? "F" : "C";
      b.add("unravel_index " + ord + " [" + std::to_string(k) + "]", {flat},
            "np.unravel_index(a0, (2, 5, 2), order='" + ord + "')[" + std::to_string(k) + "]",
            f ? "" : "da.unravel_index(A0, (2, 5, 2))[" + std::to_string(k) + "]",
            [k, f](const A &a) { return unravel_index(a[0], {2, 5, 2}, f != 0)[size_t(k)]; });
    }
  b.add("unravel_index empty", {{vec_i64({}), {{0}}}}, "np.unravel_index(a0, (3, 4))[1]", "",
        [](const A &a) { return unravel_index(a[0], {3, 4}, false)[1]; });
  b.run();
  ArrayPtr bad = ca::test::array_from_npy(vec_i64({0, 20}), {{2}});
  ArrayPtr r = unravel_index(bad, {4, 5}, false)[0];
  expect_error(CA_EKERNEL, "is out of bounds for array with size 20", [&] { (void)ca::test::compute_npy(r); });
  ArrayPtr q = ravel_multi_index({bad, bad}, {4, 5}, {0, 0}, false);
  expect_error(CA_EKERNEL, "invalid entry in coordinates array", [&] { (void)ca::test::compute_npy(q); });
  ArrayPtr f = ca::test::array_from_npy(make(CA_FLOAT64, {2}), {{2}});
  expect_error(CA_ETYPE, "only int indices permitted", [&] { ravel_multi_index({f}, {3}, {0}, false); });
  expect_error(CA_EINVAL, "sequence of length 2", [&] { ravel_multi_index({bad}, {3, 4}, {0, 0}, false); });
}

TEST(RoutinesCApi, CreationAndTriangles) {
  ca_context_t *ctx = nullptr;
  ASSERT_EQ(ca_context_new(&ctx, nullptr), CA_OK);
  std::vector<double> data(12);
  for (size_t i = 0; i < data.size(); ++i) data[i] = double(i) - 3;
  ca_array_t *a = c_from(data, {3, 4}, {2, 2}, {1, 2, 3, 1});  // chunks ((1, 2), (3, 1))

  // zeros_like with a new shape and dtype: dask's auto chunks (one block here).
  ca_like_options_t o = CA_LIKE_OPTIONS_INIT;
  int64_t shp[1] = {5};
  o.dtype = CA_INT32;
  o.ndim = 1;
  o.shape = shp;
  ca_array_t *z = nullptr;
  ASSERT_EQ(ca_array_zeros_like(&z, a, &o), CA_OK) << ca_last_error_message();
  EXPECT_EQ(ca_array_dtype(z), CA_INT32);
  EXPECT_EQ(c_chunks(z, 0), (std::vector<int64_t>{5}));
  EXPECT_EQ(c_values<int32_t>(ctx, z), std::vector<int32_t>(5, 0));
  ca_array_free(z);
  ca_scalar_t v{CA_FLOAT64, 0, 2.75, 0, 0};
  ca_array_t *f = nullptr;
  ASSERT_EQ(ca_array_full_like(&f, a, v, nullptr), CA_OK);
  EXPECT_EQ(c_chunks(f, 1), (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(c_values<double>(ctx, f), std::vector<double>(12, 2.75));
  ca_array_free(f);
  o.struct_size = 2;
  f = reinterpret_cast<ca_array_t *>(&o);
  EXPECT_EQ(ca_array_ones_like(&f, a, &o), CA_EINVAL);
  EXPECT_EQ(f, nullptr);
  EXPECT_NE(std::string(ca_last_error_message()).find("struct_size"), std::string::npos);

  // indices
  int64_t dims[2] = {2, 3}, nb[2] = {1, 2}, sz[3] = {2, 2, 1};
  ca_chunks_t ich{2, nb, sz};
  ca_array_t *ind = nullptr;
  ASSERT_EQ(ca_array_indices(&ind, 2, dims, &ich, CA_INT64), CA_OK) << ca_last_error_message();
  EXPECT_EQ(c_values<int64_t>(ctx, ind), (std::vector<int64_t>{0, 0, 0, 1, 1, 1, 0, 1, 2, 0, 1, 2}));
  EXPECT_EQ(c_chunks(ind, 0), (std::vector<int64_t>{1, 1}));
  ca_array_free(ind);

  // meshgrid and broadcast_arrays: n outputs
  std::vector<double> xs{1, 2, 3}, ys{10, 20};
  ca_array_t *x = c_from(xs, {3}, {1}, {3}), *y = c_from(ys, {2}, {2}, {1, 1});
  const ca_array_t *xy[2] = {x, y};
  ca_array_t *g[2] = {nullptr, nullptr};
  ASSERT_EQ(ca_array_meshgrid(g, xy, 2, CA_MESHGRID_XY, 0), CA_OK) << ca_last_error_message();
  EXPECT_EQ(c_values<double>(ctx, g[0]), (std::vector<double>{1, 2, 3, 1, 2, 3}));
  EXPECT_EQ(c_values<double>(ctx, g[1]), (std::vector<double>{10, 10, 10, 20, 20, 20}));
  EXPECT_EQ(c_chunks(g[1], 0), (std::vector<int64_t>{1, 1}));
  ca_array_free(g[0]);
  ca_array_free(g[1]);
  EXPECT_EQ(ca_array_meshgrid(g, xy, 2, ca_meshgrid_indexing_t(7), 0), CA_EINVAL);
  EXPECT_EQ(g[0], nullptr);
  ASSERT_EQ(ca_array_broadcast_arrays(g, xy, 2), CA_EINVAL);
  EXPECT_NE(std::string(ca_last_error_message()).find("shape mismatch"), std::string::npos);
  EXPECT_EQ(g[0], nullptr);
  EXPECT_EQ(g[1], nullptr);

  // tril / triu / diagonal
  ca_array_t *t = nullptr;
  ASSERT_EQ(ca_array_tril(&t, a, 0), CA_OK);
  std::vector<double> tv = c_values<double>(ctx, t);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c) EXPECT_EQ(tv[size_t(r * 4 + c)], c <= r ? data[size_t(r * 4 + c)] : 0.0);
  ca_array_free(t);
  ASSERT_EQ(ca_array_triu(&t, a, 1), CA_OK);
  tv = c_values<double>(ctx, t);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c) EXPECT_EQ(tv[size_t(r * 4 + c)], c >= r + 1 ? data[size_t(r * 4 + c)] : 0.0);
  ca_array_free(t);
  EXPECT_EQ(ca_array_tril(&t, x, 0), CA_EINVAL);
  ASSERT_EQ(ca_array_diagonal(&t, a, 1, 1, 0), CA_OK);  // axes swapped: offset counts the other way
  EXPECT_EQ(c_values<double>(ctx, t), (std::vector<double>{1.0, 6.0}));
  ca_array_free(t);
  ASSERT_EQ(ca_array_diagonal(&t, a, 1, 0, 1), CA_OK);
  EXPECT_EQ(c_values<double>(ctx, t), (std::vector<double>{-2, 3, 8}));
  EXPECT_EQ(c_chunks(t, 0), (std::vector<int64_t>{1, 1, 1}));
  ca_array_free(t);

  // tril_indices: unknown sizes until computed
  int64_t tnb[2] = {2, 1}, tsz[3] = {2, 1, 3};
  ca_chunks_t tch{2, tnb, tsz};
  ca_array_t *rows = nullptr, *cols = nullptr;
  ASSERT_EQ(ca_array_tril_indices(&rows, &cols, 3, 0, -1, &tch), CA_OK) << ca_last_error_message();
  EXPECT_FALSE(ca_array_chunks_known(rows));
  EXPECT_EQ(c_values<int64_t>(ctx, rows), (std::vector<int64_t>{0, 1, 1, 2, 2, 2}));
  EXPECT_EQ(c_values<int64_t>(ctx, cols), (std::vector<int64_t>{0, 0, 1, 0, 1, 2}));
  ca_array_free(rows);
  ca_array_free(cols);
  EXPECT_EQ(ca_array_triu_indices(&rows, &cols, -1, 0, -1, &tch), CA_EINVAL);
  EXPECT_EQ(rows, nullptr);
  EXPECT_EQ(cols, nullptr);

  for (ca_array_t *h : {a, x, y}) ca_array_free(h);
  ca_context_free(ctx);
}

TEST(RoutinesCApi, SortSetsSearch) {
  ca_context_t *ctx = nullptr;
  ASSERT_EQ(ca_context_new(&ctx, nullptr), CA_OK);
  std::vector<double> data{3, NAN, 1, 3, -2, 0, 1, 3};
  ca_array_t *a = c_from(data, {8}, {3}, {3, 4, 1});

  ca_array_t *s = nullptr;
  ASSERT_EQ(ca_array_sort(&s, a, 0, 0), CA_OK) << ca_last_error_message();
  std::vector<double> sv = c_values<double>(ctx, s);
  EXPECT_EQ(std::vector<double>(sv.begin(), sv.end() - 1), (std::vector<double>{-2, 0, 1, 1, 3, 3, 3}));
  EXPECT_TRUE(std::isnan(sv.back()));
  EXPECT_EQ(c_chunks(s, 0), (std::vector<int64_t>{8}));
  ca_array_free(s);
  ASSERT_EQ(ca_array_argsort(&s, a, -1, 1), CA_OK);
  EXPECT_EQ(c_values<int64_t>(ctx, s), (std::vector<int64_t>{1, 0, 3, 7, 2, 6, 5, 4}));  // NaN first, ties stable
  ca_array_free(s);

  ca_array_t *values = nullptr, *counts = nullptr, *inverse = nullptr, *index = nullptr;
  ASSERT_EQ(ca_array_unique(&values, &index, &inverse, &counts, a, 0), CA_OK) << ca_last_error_message();
  EXPECT_FALSE(ca_array_chunks_known(values));
  sv = c_values<double>(ctx, values);
  ASSERT_EQ(sv.size(), 5u);
  EXPECT_TRUE(std::isnan(sv[4]));
  EXPECT_EQ(c_values<int64_t>(ctx, index), (std::vector<int64_t>{4, 5, 2, 0, 1}));
  EXPECT_EQ(c_values<int64_t>(ctx, counts), (std::vector<int64_t>{1, 1, 2, 3, 1}));
  EXPECT_EQ(c_values<int64_t>(ctx, inverse), (std::vector<int64_t>{3, 4, 2, 3, 0, 1, 2, 3}));
  EXPECT_EQ(c_chunks(inverse, 0), (std::vector<int64_t>{3, 4, 1}));
  for (ca_array_t *h : {values, index, inverse, counts}) ca_array_free(h);
  ASSERT_EQ(ca_array_unique(&values, nullptr, nullptr, nullptr, a, 5u), CA_EINVAL);
  EXPECT_EQ(values, nullptr);

  std::vector<double> tv{3, NAN, 7};
  ca_array_t *t = c_from(tv, {3}, {1}, {3});
  ASSERT_EQ(ca_array_isin(&s, a, t, 0), CA_OK);
  std::vector<uint8_t> in = c_values<uint8_t>(ctx, s);
  EXPECT_EQ(in, (std::vector<uint8_t>{1, 0, 0, 1, 0, 0, 0, 1}));
  ca_array_free(s);
  ASSERT_EQ(ca_array_union1d(&s, a, t), CA_OK);
  EXPECT_EQ(c_values<double>(ctx, s).size(), 6u);  // -2, 0, 1, 3, 7, nan
  ca_array_free(s);

  std::vector<double> bins{0, 1, 3};
  ca_array_t *bn = c_from(bins, {3}, {2}, {2, 1});
  ASSERT_EQ(ca_array_searchsorted(&s, bn, a, CA_SIDE_RIGHT, nullptr), CA_OK) << ca_last_error_message();
  EXPECT_EQ(c_values<int64_t>(ctx, s), (std::vector<int64_t>{3, 3, 2, 3, 0, 1, 2, 3}));
  EXPECT_EQ(c_chunks(s, 0), (std::vector<int64_t>{3, 4, 1}));
  ca_array_free(s);
  EXPECT_EQ(ca_array_searchsorted(&s, bn, a, ca_side_t(2), nullptr), CA_EINVAL);
  ASSERT_EQ(ca_array_digitize(&s, a, bn, 1), CA_OK);
  EXPECT_EQ(c_values<int64_t>(ctx, s), (std::vector<int64_t>{2, 3, 1, 2, 0, 0, 1, 2}));
  ca_array_free(s);

  ca_array_t *nz[1] = {nullptr};
  ASSERT_EQ(ca_array_nonzero(nz, a), CA_OK);
  EXPECT_EQ(c_values<int64_t>(ctx, nz[0]), (std::vector<int64_t>{0, 1, 2, 3, 4, 6, 7}));
  ca_array_free(nz[0]);
  ASSERT_EQ(ca_array_flatnonzero(&s, a), CA_OK);
  EXPECT_EQ(c_values<int64_t>(ctx, s).size(), 7u);
  ca_array_free(s);
  ASSERT_EQ(ca_array_argwhere(&s, a), CA_OK);
  EXPECT_EQ(ca_array_ndim(s), 2);
  ca_array_free(s);

  int64_t shift = -3;
  ASSERT_EQ(ca_array_roll(&s, a, &shift, nullptr, 1), CA_OK);
  sv = c_values<double>(ctx, s);
  EXPECT_EQ(sv[0], 3.0);
  EXPECT_EQ(sv[1], -2.0);
  ca_array_free(s);
  EXPECT_EQ(ca_array_roll(&s, a, &shift, nullptr, 0), CA_EINVAL);
  EXPECT_EQ(ca_array_rot90(&s, a, 1, 0, 1), CA_EINVAL);
  EXPECT_EQ(ca_array_rollaxis(&s, a, 0, 0), CA_OK);
  ca_array_free(s);

  for (ca_array_t *h : {a, t, bn}) ca_array_free(h);
  ca_context_free(ctx);
}

TEST(RoutinesCApi, Histogramdd) {
  // A plain loop is the reference: 2-d samples on a (3, 2)-block grid, tree groups of 2.
  ca_context_t *ctx = nullptr;
  ASSERT_EQ(ca_context_new(&ctx, nullptr), CA_OK);
  std::vector<double> xv(35), yv(35), wv(35);
  for (size_t i = 0; i < xv.size(); ++i) {
    xv[i] = double((i * 37) % 41) / 40.0 * 1.2 - 0.1;  // some outside [0, 1], some exactly on edges
    yv[i] = double((i * 11) % 7);
    wv[i] = 0.5 + double(i % 3);
  }
  xv[3] = NAN;
  ca_array_t *x = c_from(xv, {7, 5}, {3, 2}, {2, 4, 1, 3, 2});
  ca_array_t *y = c_from(yv, {7, 5}, {1, 1}, {7, 5});  // rechunked like x
  ca_array_t *w = c_from(wv, {7, 5}, {2, 1}, {3, 4, 5});
  std::vector<double> ev{0, 2, 3, 6.5};
  ca_array_t *e = c_from(ev, {4}, {2}, {1, 3});
  const ca_array_t *samples[2] = {x, y};
  ca_histogram_bins_t bins[2] = {{4, 0.0, 1.0, nullptr}, {0, 0, 0, e}};
  ca_histogram_options_t o = CA_HISTOGRAM_OPTIONS_INIT;
  o.mode = CA_HISTOGRAM_DD;
  o.weights = w;
  o.split_every = 2;
  ca_array_t *h = nullptr, *edges[2] = {nullptr, nullptr};
  ASSERT_EQ(ca_array_histogramdd(&h, edges, samples, 2, bins, &o), CA_OK) << ca_last_error_message();
  std::vector<double> expect(12, 0.0);
  for (size_t i = 0; i < xv.size(); ++i) {
    if (!(xv[i] >= 0 && xv[i] <= 1)) continue;
    const int bx = std::min(3, int(xv[i] / 0.25));  // the edges 0, 0.25, ... 1 are exact
    int by = -1;
    for (int k = 0; k < 3; ++k)
      if (yv[i] >= ev[size_t(k)] && (yv[i] < ev[size_t(k) + 1] || (k == 2 && yv[i] == ev[3]))) by = k;
    if (by >= 0) expect[size_t(bx * 3 + by)] += wv[i];
  }
  EXPECT_EQ(c_values<double>(ctx, h), expect);
  EXPECT_EQ(c_chunks(h, 0), (std::vector<int64_t>{4}));
  EXPECT_EQ(c_chunks(h, 1), (std::vector<int64_t>{3}));
  EXPECT_EQ(c_values<double>(ctx, edges[0]), (std::vector<double>{0, 0.25, 0.5, 0.75, 1}));
  EXPECT_EQ(c_values<double>(ctx, edges[1]), ev);
  for (ca_array_t *a : {h, edges[0], edges[1]}) ca_array_free(a);
  // errors: the histogram mode takes one sample; NULL outputs stay NULL
  o.mode = CA_HISTOGRAM_1D;
  h = x;
  EXPECT_EQ(ca_array_histogramdd(&h, edges, samples, 2, bins, &o), CA_EINVAL);
  EXPECT_EQ(h, nullptr);
  EXPECT_EQ(edges[0], nullptr);
  EXPECT_NE(std::string(ca_last_error_message()).find("one sample"), std::string::npos);
  o.mode = (ca_histogram_mode_t)7;
  EXPECT_EQ(ca_array_histogramdd(&h, nullptr, samples, 1, bins, &o), CA_EINVAL);
  for (ca_array_t *a : {x, y, w, e}) ca_array_free(a);
  ca_context_free(ctx);
}
