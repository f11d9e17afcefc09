// einsum (array/einsum.hpp) and sliding_window_view (array/overlap.hpp) against NumPy run at test
// time: ragged chunks, diagonals, ellipsis, broadcasting, integer/bool dtypes, 0-d, empty, size-1,
// and the subscript errors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "array/create.hpp"
#include "array/einsum.hpp"
#include "array/overlap.hpp"
#include "numpy_ref.hpp"

namespace ca {
namespace {

using test::Npy;

Npy seq(const std::vector<Index> &shape, DType dt) {
  Npy n;
  n.dtype = dt;
  n.shape = shape;
  const Index size = n.size();
  n.data.resize(size_t(size) * dtype_size(dt));
  dispatch_dtype(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T *p = reinterpret_cast<T *>(n.data.data());
    for (Index i = 0; i < size; ++i) {
      if constexpr (std::is_same_v<T, bool>) p[i] = (i % 3) != 1;
      else p[i] = T(typename std::conditional_t<std::is_floating_point_v<T> || std::is_integral_v<T>, T, double>(
          (i * 7) % 11 - 3));
    }
  });
  return n;
}

struct Case {
  std::string sub;
  std::vector<std::vector<Index>> shapes;
  std::vector<Chunks> chunks;
  DType dt;
};

TEST(Einsum, MatchesNumPy) {
  const std::vector<Case> cases = {
      {"ij,jk->ik", {{7, 5}, {5, 6}}, {{{3, 4}, {2, 3}}, {{4, 1}, {6}}}, CA_FLOAT64},
      {"ij,jk", {{7, 5}, {5, 6}}, {{{7}, {1, 1, 3}}, {{2, 3}, {3, 3}}}, CA_INT32},
      {"ii->i", {{6, 6}}, {{{2, 4}, {3, 3}}}, CA_INT64},
      {"ij->", {{5, 4}}, {{{2, 3}, {4}}}, CA_FLOAT32},
      {"...ij,...jk->...ik", {{3, 4, 5}, {5, 2}}, {{{2, 1}, {4}, {2, 3}}, {{5}, {2}}}, CA_FLOAT64},
      {"ij,ij->ij", {{4, 1}, {4, 6}}, {{{2, 2}, {1}}, {{3, 1}, {4, 2}}}, CA_INT16},
      {"i,i->", {{9}, {9}}, {{{4, 5}}, {{9}}}, CA_BOOL},
      {",i->i", {{}, {5}}, {{}, {{2, 3}}}, CA_COMPLEX128},
      {"ij,jk->ik", {{3, 0}, {0, 3}}, {{{3}, {0}}, {{0}, {3}}}, CA_FLOAT64},
      {"ij,jk->ik", {{1, 1}, {1, 1}}, {{{1}, {1}}, {{1}, {1}}}, CA_UINT8},
  };
  for (const Case &c : cases) {
    std::vector<ArrayPtr> ops;
    std::map<std::string, Npy> inputs;
    std::string args;
    for (size_t k = 0; k < c.shapes.size(); ++k) {
      Npy n = seq(c.shapes[k], c.dt);
      ops.push_back(test::array_from_npy(n, c.chunks[k]));
      const std::string name = "x" + std::to_string(k);
      inputs[name] = n;
      args += ", " + name;
    }
    ArrayPtr r = einsum(c.sub, ops, CA_DTYPE_INVALID);
    Npy want = test::run_numpy("result = np.einsum('" + c.sub + "'" + args + ")", inputs);
    Npy got = test::compute_npy(r);
    if (got.shape.empty()) got.shape = {1};
    test::expect_close(got, want, 1e-6, 1e-6, c.sub);
  }
}

TEST(Einsum, SubscriptErrors) {
  ArrayPtr a = test::array_from_npy(seq({2, 3}, CA_FLOAT64), {{2}, {3}});
  ArrayPtr b = test::array_from_npy(seq({4, 5}, CA_FLOAT64), {{4}, {5}});
  auto msg = [](const std::function<void()> &f) -> std::string {
    try {
      f();
    } catch (const Error &e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_NE(msg([&] { einsum("ij,jk->ik", {a, b}, CA_DTYPE_INVALID); }).find("could not be broadcast"),
            std::string::npos);
  EXPECT_NE(msg([&] { einsum("ijk", {a}, CA_DTYPE_INVALID); }).find("operand 0 has 2 dimensions"), std::string::npos);
  EXPECT_NE(msg([&] { einsum("ij->iz", {a}, CA_DTYPE_INVALID); }).find("'z' does not appear"), std::string::npos);
  EXPECT_NE(msg([&] { einsum("i1", {a}, CA_DTYPE_INVALID); }).find("invalid subscript '1'"), std::string::npos);
  EXPECT_NE(msg([&] { einsum("...i->i", {a}, CA_DTYPE_INVALID); }).find("no '...' ellipsis"), std::string::npos);
}

TEST(SlidingWindow, MatchesNumPyOnRaggedChunks) {
  Npy x = seq({11, 8}, CA_FLOAT64);
  ArrayPtr a = test::array_from_npy(x, {{4, 4, 3}, {3, 0, 5}});
  struct W {
    std::vector<Index> w;
    std::vector<int64_t> ax;
    std::string py;
  };
  for (const W &c : {W{{3}, {0}, "3, axis=0"}, W{{2, 4}, {0, 1}, "(2, 4), axis=(0, 1)"},
                     W{{11, 8}, {}, "(11, 8)"}, W{{2, 3}, {1, 1}, "(2, 3), axis=(1, 1)"}}) {
    ArrayPtr r = sliding_window_view(a, c.w, c.ax);
    Npy want = test::run_numpy("result = np.lib.stride_tricks.sliding_window_view(x, " + c.py + ")", {{"x", x}});
    test::expect_equal(test::compute_npy(r), want, c.py);
  }
  EXPECT_THROW(sliding_window_view(a, {12}, {0}), Error);
  EXPECT_THROW(sliding_window_view(a, {0}, {0}), Error);
  EXPECT_THROW(sliding_window_view(a, {2}, {2}), Error);
}

}  // namespace
}  // namespace ca
