// Exact quantiles along axes (array/quantile.hpp) against NumPy: every method, nan handling, ragged
// chunks, several axes, keepdims, dtypes, and the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "array/expr.hpp"
#include "array/quantile.hpp"
#include "numpy_ref.hpp"

using namespace ca;
using ca::test::Npy;

namespace {

Npy values(DType dt, std::vector<Index> shape) {
  Npy r;
  r.dtype = CA_FLOAT64;
  r.shape = shape;
  std::vector<double> v(size_t(r.size()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = double((i * 37 + 11) % 23) * 0.5 - 4.0;
  r = ca::test::npy_of(CA_FLOAT64, shape, v.data());
  if (dt == CA_FLOAT64) return r;
  ArrayPtr a = ca::test::array_from_npy(r, {{shape[0]}, {shape[1]}});
  return ca::test::compute_npy(elementwise_astype(a, dt));
}

const char *kMethods[] = {"linear", "lower", "higher", "nearest", "midpoint"};

}  // namespace

TEST(Quantile, MethodsAxesAndDtypesVsNumpy) {
  for (DType dt : {CA_FLOAT64, CA_FLOAT32, CA_INT32, CA_UINT8, CA_FLOAT16}) {
    Npy x = values(dt, {7, 9});
    ArrayPtr a = ca::test::array_from_npy(x, {{3, 4}, {2, 5, 2}});
    for (int m = 0; m < 5; ++m) {
      QuantileOptions o;
      o.method = QuantileMethod(m);
      const std::vector<double> q = {0.0, 0.1, 0.25, 0.5, 0.95, 1.0};
      struct Case {
        std::vector<int32_t> axes;
        bool keepdims;
        std::string np_axis;
      };
      for (const Case &c : {Case{{0}, false, "0"}, Case{{1}, true, "1"}, Case{{}, false, "None"},
                            Case{{-1, 0}, false, "(0, 1)"}}) {
        o.keepdims = c.keepdims;
        ArrayPtr r = quantile(a, q, false, c.axes, o);
        const std::string code = std::string("result = np.quantile(x, [0.0, 0.1, 0.25, 0.5, 0.95, 1.0], axis=") +
                                 c.np_axis + ", method='" + kMethods[m] + "', keepdims=" +
                                 (c.keepdims ? "True" : "False") + ")";
        Npy want = ca::test::run_numpy(code, {{"x", x}});
        Npy got = ca::test::compute_npy(r);
        const double rtol = dt == CA_FLOAT16 ? 1e-3 : dt == CA_FLOAT32 ? 1e-6 : 1e-13;
        ca::test::expect_close(got, want, rtol, rtol, code + " " + dtype_name(dt));
        // the kept axes keep their chunks; the reduced ones are whole
        if (c.axes.size() == 1 && c.axes[0] == 0) {
          EXPECT_EQ(r->chunks[1], (std::vector<Index>{2, 5, 2}));
        }
      }
    }
  }
}

TEST(Quantile, NanRowsScalarQAndErrors) {
  const double v[] = {1.0, NAN, 3.0, 2.0, 5.0, 4.0, NAN, NAN, NAN, 0.5, -1.0, 7.0};
  Npy x = ca::test::npy_of(CA_FLOAT64, {4, 3}, v);
  ArrayPtr a = ca::test::array_from_npy(x, {{1, 3}, {2, 1}});
  QuantileOptions o;
  Npy got = ca::test::compute_npy(quantile(a, {0.5}, true, {1}, o));
  ca::test::expect_close(got, ca::test::run_numpy("result = np.median(x, axis=1)", {{"x", x}}), 1e-15, 0, "median");
  o.skip_nan = true;
  got = ca::test::compute_npy(quantile(a, {0.3}, true, {1}, o));
  ca::test::expect_close(got, ca::test::run_numpy("result = np.nanquantile(x, 0.3, axis=1)", {{"x", x}}), 1e-15, 0,
                         "nanquantile (an all-nan row: nan)");
  EXPECT_EQ(quantile(a, {0.5}, true, {1}, o)->dtype, CA_FLOAT64);
  auto code_of = [&](const std::function<void()> &f) {
    try {
      f();
    } catch (const Error &e) {
      return e.code();
    }
    return CA_OK;
  };
  EXPECT_EQ(code_of([&] { quantile(a, {1.5}, true, {0}, o); }), CA_EINVAL);
  EXPECT_EQ(code_of([&] { quantile(a, {NAN}, true, {0}, o); }), CA_EINVAL);
  EXPECT_EQ(code_of([&] { quantile(a, {0.1, 0.2}, true, {0}, o); }), CA_EINVAL);
  EXPECT_EQ(code_of([&] { quantile(a, {0.5}, true, {2}, o); }), CA_EINVAL);
  EXPECT_EQ(code_of([&] { quantile(a, {0.5}, true, {0, -2}, o); }), CA_EINVAL);
  EXPECT_EQ(code_of([&] { quantile(elementwise_astype(a, CA_COMPLEX128), {0.5}, true, {0}, o); }), CA_ETYPE);
}
