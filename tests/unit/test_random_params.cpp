// ca_array_random_params (array/random_dists.cpp, ca.random_params): array-valued parameters.
// Constant parameter arrays give ca_array_random's values bit for bit; broadcasting, ragged chunks,
// 0-d / empty / size-1, per-element parameters (each element equals the scalar draw at its index),
// bad values at compute, bad shapes and dtypes at build, and the graph-file round trip.
#include <gtest/gtest.h>

#include <chunkarray/array.h>
#include <chunkarray/context.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "../support/save_load.h"
#include "array/array.hpp"
#include "array/create.hpp"
#include "builtins/builtins.hpp"
#include "exec/executor.hpp"
#include "kernel/kernel.hpp"
#include "support/expect_error.hpp"
#include "support/builtin_registry.hpp"

using namespace ca;
using ca::test::compute_bytes;
using ca::test::expect_error;

namespace {

ArrayPtr const_f64(const std::vector<Index> &shape, const Chunks &chunks, double v) {
  Index n = 1;
  for (Index e : shape) n *= e;
  std::vector<double> d(size_t(n), v);
  return from_buffer(d.data(), CA_FLOAT64, shape, nullptr, chunks, false, nullptr, nullptr);
}

template <class T>
ArrayPtr arr(const std::vector<T> &d, DType dt, const std::vector<Index> &shape, const Chunks &chunks) {
  return from_buffer(d.data(), dt, shape, nullptr, chunks, false, nullptr, nullptr);
}

struct Case {
  int32_t code;
  double p0, p1, p2;
  DType dt;
};

const Case kCases[] = {
    {CA_RANDOM_UNIFORM, -1, 3, 0, CA_FLOAT64},       {CA_RANDOM_UNIFORM, -1, 3, 0, CA_FLOAT32},
    {CA_RANDOM_NORMAL, 1, 2, 0, CA_FLOAT64},         {CA_RANDOM_NORMAL, 1, 2, 0, CA_FLOAT32},
    {CA_RANDOM_BETA, 2, 3, 0, CA_FLOAT64},           {CA_RANDOM_BETA, 0.5, 0.7, 0, CA_FLOAT32},
    {CA_RANDOM_BINOMIAL, 20, 0.3, 0, CA_INT64},      {CA_RANDOM_BINOMIAL, 200, 0.4, 0, CA_INT64},
    {CA_RANDOM_CHISQUARE, 3, 0, 0, CA_FLOAT64},      {CA_RANDOM_EXPONENTIAL, 2, 0, 0, CA_FLOAT64},
    {CA_RANDOM_F, 3, 5, 0, CA_FLOAT64},              {CA_RANDOM_GAMMA, 2.5, 2, 0, CA_FLOAT64},
    {CA_RANDOM_GAMMA, 0.5, 1, 0, CA_FLOAT32},        {CA_RANDOM_GEOMETRIC, 0.2, 0, 0, CA_INT64},
    {CA_RANDOM_GUMBEL, 1, 2, 0, CA_FLOAT64},         {CA_RANDOM_HYPERGEOMETRIC, 10, 7, 5, CA_INT64},
    {CA_RANDOM_LAPLACE, 1, 2, 0, CA_FLOAT64},        {CA_RANDOM_LOGISTIC, 1, 2, 0, CA_FLOAT64},
    {CA_RANDOM_LOGNORMAL, 0.5, 0.3, 0, CA_FLOAT64},  {CA_RANDOM_LOGSERIES, 0.6, 0, 0, CA_INT64},
    {CA_RANDOM_NEGATIVE_BINOMIAL, 3, 0.4, 0, CA_INT64}, {CA_RANDOM_NONCENTRAL_CHISQUARE, 3, 2, 0, CA_FLOAT64},
    {CA_RANDOM_NONCENTRAL_F, 3, 5, 2, CA_FLOAT64},   {CA_RANDOM_PARETO, 3, 0, 0, CA_FLOAT64},
    {CA_RANDOM_POISSON, 4, 0, 0, CA_INT64},          {CA_RANDOM_POISSON, 40, 0, 0, CA_INT64},
    {CA_RANDOM_POWER, 3, 0, 0, CA_FLOAT64},          {CA_RANDOM_RAYLEIGH, 2, 0, 0, CA_FLOAT64},
    {CA_RANDOM_STANDARD_GAMMA, 3, 0, 0, CA_FLOAT64}, {CA_RANDOM_STANDARD_T, 4, 0, 0, CA_FLOAT64},
    {CA_RANDOM_TRIANGULAR, -1, 0.5, 2, CA_FLOAT64},  {CA_RANDOM_VONMISES, 0.3, 2, 0, CA_FLOAT64},
    {CA_RANDOM_WALD, 1, 2, 0, CA_FLOAT64},           {CA_RANDOM_WEIBULL, 1.5, 0, 0, CA_FLOAT64},
    {CA_RANDOM_ZIPF, 2.5, 0, 0, CA_INT64},
    {CA_RANDOM_INTEGERS, -5, 17, 0, CA_INT64},       {CA_RANDOM_INTEGERS, 0, 256, 0, CA_UINT8},
    {CA_RANDOM_INTEGERS, -3e18, 6e18, 0, CA_INT64},  {CA_RANDOM_INTEGERS, 0, 2, 0, CA_BOOL},
    {CA_RANDOM_INTEGERS, -100, 100, 0, CA_INT8},     {CA_RANDOM_INTEGERS, 0, 1.8e19, 0, CA_UINT64},
};

int nparams_of(int32_t code) {
  switch (code) {
    case CA_RANDOM_HYPERGEOMETRIC:
    case CA_RANDOM_NONCENTRAL_F:
    case CA_RANDOM_TRIANGULAR: return 3;
    case CA_RANDOM_CHISQUARE:
    case CA_RANDOM_EXPONENTIAL:
    case CA_RANDOM_GEOMETRIC:
    case CA_RANDOM_LOGSERIES:
    case CA_RANDOM_PARETO:
    case CA_RANDOM_POISSON:
    case CA_RANDOM_POWER:
    case CA_RANDOM_RAYLEIGH:
    case CA_RANDOM_STANDARD_GAMMA:
    case CA_RANDOM_STANDARD_T:
    case CA_RANDOM_WEIBULL:
    case CA_RANDOM_ZIPF: return 1;
    default: return 2;
  }
}

// A constant parameter array of p (int64 for the integer parameters).
ArrayPtr const_param(int32_t code, int j, double p, const std::vector<Index> &shape, const Chunks &chunks) {
  const bool integer = (code == CA_RANDOM_BINOMIAL && j == 0) || code == CA_RANDOM_HYPERGEOMETRIC;
  if (!integer) return const_f64(shape, chunks, p);
  Index n = 1;
  for (Index e : shape) n *= e;
  return arr(std::vector<int64_t>(size_t(n), int64_t(p)), CA_INT64, shape, chunks);
}

}  // namespace

TEST(RandomParams, ConstantArraysEqualScalarBitForBit) {
  const std::vector<Index> shape{37, 29};
  const Chunks out_chunks{{10, 1, 26}, {29}};
  const Chunks param_chunks{{37}, {7, 22}};  // different: rechunked to the output's
  for (const Case &c : kCases) {
    SCOPED_TRACE(std::string(random_dist_name(c.code) ? random_dist_name(c.code) : "uniform/normal") + " dtype " +
                 std::to_string(c.dt));
    const double ps[3] = {c.p0, c.p1, c.p2};
    const std::vector<uint8_t> want = compute_bytes(random(c.code, 9, shape, out_chunks, c.dt, c.p0, c.p1, c.p2));
    // Every parameter an array, then each one alone.
    for (int which = -1; which < nparams_of(c.code); ++which) {
      std::vector<ArrayPtr> params(3);
      for (int j = 0; j < nparams_of(c.code); ++j)
        if (which < 0 || which == j) params[size_t(j)] = const_param(c.code, j, ps[j], shape, param_chunks);
      ArrayPtr a = random_params(c.code, 9, shape, out_chunks, c.dt, params, which < 0 ? -7.0 : c.p0,
                                 which < 0 ? -7.0 : c.p1, which < 0 ? -7.0 : c.p2);
      EXPECT_EQ(compute_bytes(a), want) << "parameter arrays: " << which;
    }
  }
}

TEST(RandomParams, BroadcastingAndPerElementParameters) {
  // gamma(shape (3, 1) array, scale 1) at size (3, 4): row i is the scalar gamma(shape_i) at those indices.
  const std::vector<double> sh{0.5, 2.0, 7.5};
  ArrayPtr p = arr(sh, CA_FLOAT64, {3, 1}, Chunks{{3}, {1}});
  const Chunks ch{{2, 1}, {1, 3}};
  ArrayPtr a = random_params(CA_RANDOM_GAMMA, 4, {3, 4}, ch, CA_FLOAT64, {p, nullptr}, 0, 1, 0);
  EXPECT_EQ(a->shape, (std::vector<Index>{3, 4}));
  const std::vector<uint8_t> got = compute_bytes(a);
  for (size_t i = 0; i < 3; ++i) {
    const std::vector<uint8_t> row = compute_bytes(random(CA_RANDOM_GAMMA, 4, {3, 4}, ch, CA_FLOAT64, sh[i], 1, 0));
    EXPECT_EQ(std::memcmp(got.data() + i * 32, row.data() + i * 32, 32), 0) << "row " << i;
  }
  // A 1-d parameter aligns with the last axis; a per-element grid of lam for poisson (int64 param).
  const std::vector<double> lam{0.0, 1.0, 30.0, 1000.0};
  ArrayPtr l = arr(lam, CA_FLOAT64, {4}, Chunks{{4}});
  const Chunks ch2{{1, 1, 1}, {3, 1}};
  const std::vector<uint8_t> pg = compute_bytes(random_params(CA_RANDOM_POISSON, 2, {3, 4}, ch2, CA_INT64, {l}, 0, 0, 0));
  for (size_t j = 0; j < 4; ++j) {
    const std::vector<uint8_t> col = compute_bytes(random(CA_RANDOM_POISSON, 2, {3, 4}, ch2, CA_INT64, lam[j], 0, 0));
    for (size_t i = 0; i < 3; ++i)
      EXPECT_EQ(std::memcmp(pg.data() + (i * 4 + j) * 8, col.data() + (i * 4 + j) * 8, 8), 0) << i << "," << j;
  }
  // Triangular with all three parameters of different shapes: (2, 1), (3,), 0-d.
  ArrayPtr left = arr(std::vector<double>{-1, 0}, CA_FLOAT64, {2, 1}, Chunks{{2}, {1}});
  ArrayPtr mode = arr(std::vector<double>{0.5, 0.75, 1}, CA_FLOAT64, {3}, Chunks{{2, 1}});
  ArrayPtr right = arr(std::vector<double>{3}, CA_FLOAT64, {}, Chunks{});
  std::vector<uint8_t> tb =
      compute_bytes(random_params(CA_RANDOM_TRIANGULAR, 5, {2, 3}, Chunks{{1, 1}, {3}}, CA_FLOAT64, {left, mode, right}, 0, 0, 0));
  for (size_t i = 0; i < 2; ++i)
    for (size_t j = 0; j < 3; ++j) {
      const double l0 = i == 0 ? -1 : 0, m0 = j == 0 ? 0.5 : j == 1 ? 0.75 : 1;
      std::vector<uint8_t> s = compute_bytes(random(CA_RANDOM_TRIANGULAR, 5, {2, 3}, Chunks{{2}, {3}}, CA_FLOAT64, l0, m0, 3));
      EXPECT_EQ(std::memcmp(tb.data() + (i * 3 + j) * 8, s.data() + (i * 3 + j) * 8, 8), 0) << i << "," << j;
    }
}

TEST(RandomParams, ZeroDEmptyAndSizeOne) {
  ArrayPtr p0d = arr(std::vector<double>{2.5}, CA_FLOAT64, {}, Chunks{});
  EXPECT_EQ(compute_bytes(random_params(CA_RANDOM_GAMMA, 1, {}, Chunks{}, CA_FLOAT64, {p0d}, 0, 2, 0)),
            compute_bytes(random(CA_RANDOM_GAMMA, 1, {}, Chunks{}, CA_FLOAT64, 2.5, 2, 0)));
  // Empty output: a size-1 parameter broadcasts to an extent of 0; an empty parameter to an empty output.
  ArrayPtr one = arr(std::vector<double>{3}, CA_FLOAT64, {1}, Chunks{{1}});
  EXPECT_EQ(random_params(CA_RANDOM_POISSON, 1, {0}, Chunks{{0}}, CA_INT64, {one}, 0, 0, 0)->size(), 0);
  EXPECT_EQ(compute_bytes(random_params(CA_RANDOM_POISSON, 1, {0}, Chunks{{0}}, CA_INT64, {one}, 0, 0, 0)).size(), 0u);
  ArrayPtr empty = arr(std::vector<double>{}, CA_FLOAT64, {0}, Chunks{{0}});
  EXPECT_EQ(compute_bytes(random_params(CA_RANDOM_BETA, 1, {4, 0}, Chunks{{2, 2}, {0}}, CA_FLOAT64, {empty}, 0, 1, 0))
                .size(),
            0u);
  // Size 1, float32.
  EXPECT_EQ(compute_bytes(random_params(CA_RANDOM_BETA, 3, {1}, Chunks{{1}}, CA_FLOAT32, {one, one}, 0, 0, 0)),
            compute_bytes(random(CA_RANDOM_BETA, 3, {1}, Chunks{{1}}, CA_FLOAT32, 3, 3, 0)));
  // No parameter array at all: the scalar version.
  EXPECT_EQ(random_params(CA_RANDOM_BETA, 3, {5}, Chunks{{5}}, CA_FLOAT64, {nullptr, nullptr}, 2, 3, 0)->name,
            random(CA_RANDOM_BETA, 3, {5}, Chunks{{5}}, CA_FLOAT64, 2, 3, 0)->name);
}

// The kernel fails with CA_EINVAL and NumPy's message; a compute reports a failed kernel as CA_EKERNEL
// with the kernel's message (graph.h).
TEST(RandomParams, BadValuesFailAtCompute) {
  // scale < 0 in one element of the second block.
  ArrayPtr sc = arr(std::vector<double>{1, 2, 3, -1, 5}, CA_FLOAT64, {5}, Chunks{{3, 2}});
  ArrayPtr g = random_params(CA_RANDOM_GAMMA, 1, {5}, Chunks{{3, 2}}, CA_FLOAT64, {nullptr, sc}, 2, 0, 0);
  expect_error(CA_EKERNEL, "gamma: scale < 0", [&] { compute_bytes(g); });
  ArrayPtr n = arr(std::vector<int64_t>{5, -2}, CA_INT64, {2}, Chunks{{2}});
  expect_error(CA_EKERNEL, "binomial: n < 0",
               [&] { compute_bytes(random_params(CA_RANDOM_BINOMIAL, 1, {2}, Chunks{{2}}, CA_INT64, {n}, 0, 0.5, 0)); });
  ArrayPtr ng = arr(std::vector<int64_t>{2, 3}, CA_INT64, {2}, Chunks{{1, 1}});
  expect_error(CA_EKERNEL, "hypergeometric: ngood + nbad < nsample", [&] {
    compute_bytes(random_params(CA_RANDOM_HYPERGEOMETRIC, 1, {2}, Chunks{{2}}, CA_INT64, {ng, nullptr, nullptr}, 0, 1, 4));
  });
  ArrayPtr nan = arr(std::vector<double>{0.5, NAN}, CA_FLOAT64, {2}, Chunks{{2}});
  expect_error(CA_EKERNEL, "binomial: p < 0, p > 1 or p is NaN", [&] {
    compute_bytes(random_params(CA_RANDOM_BINOMIAL, 1, {2}, Chunks{{2}}, CA_INT64, {nullptr, nan}, 4, 0, 0));
  });
  ArrayPtr mode = arr(std::vector<double>{0, 5}, CA_FLOAT64, {2}, Chunks{{2}});
  expect_error(CA_EKERNEL, "triangular: mode > right", [&] {
    compute_bytes(random_params(CA_RANDOM_TRIANGULAR, 1, {2}, Chunks{{2}}, CA_FLOAT64, {nullptr, mode}, -1, 0, 2));
  });
  expect_error(CA_EKERNEL, "normal: scale < 0", [&] {
    compute_bytes(random_params(CA_RANDOM_NORMAL, 1, {5}, Chunks{{5}}, CA_FLOAT64, {nullptr, sc}, 0, 0, 0));
  });
}

// integers(low array, high array): element g is the scalar integers(low_g, high_g) at g, for every
// integer dtype; float bounds truncate toward zero (NumPy force-casts them); bad bounds fail at compute.
TEST(RandomParams, IntegersWithArrayBounds) {
  const std::vector<double> lo{-5, 0, 2.9, -128, 7};
  const std::vector<double> hi{5, 1, 300.7, 127, 8};
  ArrayPtr l = arr(lo, CA_FLOAT64, {5}, Chunks{{2, 3}});
  ArrayPtr h = arr(hi, CA_FLOAT64, {5}, Chunks{{5}});
  const Chunks ch{{1, 2}, {3, 2}};
  for (DType dt : {DType(CA_INT16), DType(CA_INT32), DType(CA_INT64)}) {  // (uint16: the error case below)
    const size_t es = dtype_size(dt);
    const std::vector<uint8_t> got = compute_bytes(random_params(CA_RANDOM_INTEGERS, 11, {3, 5}, ch, dt, {l, h}, 0, 0, 0));
    ASSERT_EQ(got.size(), 15 * es);
    for (size_t j = 0; j < 5; ++j) {
      const std::vector<uint8_t> col =
          compute_bytes(random(CA_RANDOM_INTEGERS, 11, {3, 5}, ch, dt, std::trunc(lo[j]), std::trunc(hi[j]), 0));
      for (size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(std::memcmp(got.data() + (i * 5 + j) * es, col.data() + (i * 5 + j) * es, es), 0) << i << "," << j;
        int64_t v = 0;
        if (dt == CA_INT16) v = reinterpret_cast<const int16_t *>(got.data())[i * 5 + j];
        if (dt == CA_INT32) v = reinterpret_cast<const int32_t *>(got.data())[i * 5 + j];
        if (dt == CA_INT64) v = reinterpret_cast<const int64_t *>(got.data())[i * 5 + j];
        EXPECT_GE(v, int64_t(std::trunc(lo[j])));
        EXPECT_LT(v, int64_t(std::trunc(hi[j])));
      }
    }
  }
  // int64 bounds, high only an array (low the scalar 0), 0-d and empty outputs.
  ArrayPtr hi64 = arr(std::vector<int64_t>{1, 2, 1000000007}, CA_INT64, {3}, Chunks{{3}});
  EXPECT_EQ(compute_bytes(random_params(CA_RANDOM_INTEGERS, 3, {3}, Chunks{{2, 1}}, CA_INT64, {nullptr, hi64}, 0, 0, 0))[0], 0);
  ArrayPtr h0 = arr(std::vector<int64_t>{9}, CA_INT64, {}, Chunks{});
  EXPECT_EQ(compute_bytes(random_params(CA_RANDOM_INTEGERS, 3, {}, Chunks{}, CA_INT32, {nullptr, h0}, 4, 0, 0)),
            compute_bytes(random(CA_RANDOM_INTEGERS, 3, {}, Chunks{}, CA_INT32, 4, 9, 0)));
  EXPECT_EQ(compute_bytes(random_params(CA_RANDOM_INTEGERS, 3, {0}, Chunks{{0}}, CA_INT64, {nullptr, h0}, 4, 0, 0)).size(),
            0u);
  // Bad bounds: NumPy's messages, at compute.
  ArrayPtr eq = arr(std::vector<double>{3, 5}, CA_FLOAT64, {2}, Chunks{{1, 1}});
  expect_error(CA_EKERNEL, "integers: low >= high (low 5, high 5)", [&] {
    compute_bytes(random_params(CA_RANDOM_INTEGERS, 1, {2}, Chunks{{2}}, CA_INT64, {eq, nullptr}, 0, 5, 0));
  });
  expect_error(CA_EKERNEL, "integers: low -5 is out of bounds for uint16", [&] {
    compute_bytes(random_params(CA_RANDOM_INTEGERS, 1, {5}, Chunks{{5}}, CA_UINT16, {l, h}, 0, 0, 0));
  });
  expect_error(CA_EKERNEL, "integers: high 300.7 is out of bounds for int8", [&] {
    compute_bytes(random_params(CA_RANDOM_INTEGERS, 1, {5}, Chunks{{5}}, CA_INT8, {nullptr, h}, 0, 0, 0));
  });
  ArrayPtr nanb = arr(std::vector<double>{NAN}, CA_FLOAT64, {1}, Chunks{{1}});
  expect_error(CA_EKERNEL, "integers: low >= high", [&] {
    compute_bytes(random_params(CA_RANDOM_INTEGERS, 1, {1}, Chunks{{1}}, CA_INT64, {nanb, nullptr}, 0, 5, 0));
  });
}

TEST(RandomParams, BuildErrors) {
  ArrayPtr p32 = arr(std::vector<double>{1, 2, 3}, CA_FLOAT64, {3, 1}, Chunks{{3}, {1}});
  expect_error(CA_EINVAL, "shape mismatch: objects cannot be broadcast to a single shape",
               [&] { random_params(CA_RANDOM_GAMMA, 1, {2, 4}, Chunks{{2}, {4}}, CA_FLOAT64, {p32}, 0, 1, 0); });
  expect_error(CA_EINVAL, "is not compatible with broadcast dimensions",
               [&] { random_params(CA_RANDOM_GAMMA, 1, {4}, Chunks{{4}}, CA_FLOAT64, {p32}, 0, 1, 0); });
  ArrayPtr f = arr(std::vector<double>{2, 3, 4}, CA_FLOAT64, {3}, Chunks{{3}});
  expect_error(CA_ETYPE, "Cannot cast array data from dtype('float64') to dtype('int64')",
               [&] { random_params(CA_RANDOM_BINOMIAL, 1, {3}, Chunks{{3}}, CA_INT64, {f}, 0, 0.5, 0); });
  ArrayPtr u = arr(std::vector<uint64_t>{2, 3, 4}, CA_UINT64, {3}, Chunks{{3}});
  expect_error(CA_ETYPE, "Cannot cast array data from dtype('uint64')",
               [&] { random_params(CA_RANDOM_HYPERGEOMETRIC, 1, {3}, Chunks{{3}}, CA_INT64, {u}, 0, 1, 1); });
  expect_error(CA_EINVAL, "takes 1 parameter, got an array for p1",
               [&] { random_params(CA_RANDOM_POISSON, 1, {3}, Chunks{{3}}, CA_INT64, {nullptr, f}, 1, 0, 0); });
  expect_error(CA_ETYPE, "poisson: dtype must be int64",
               [&] { random_params(CA_RANDOM_POISSON, 1, {3}, Chunks{{3}}, CA_FLOAT64, {f}, 1, 0, 0); });
  expect_error(CA_ETYPE, "integers: dtype must be an integer dtype (got float64)",
               [&] { random_params(CA_RANDOM_INTEGERS, 1, {3}, Chunks{{3}}, CA_FLOAT64, {f}, 0, 5, 0); });
  expect_error(CA_EINVAL, "integers: takes 2 parameters, got an array for p2",
               [&] { random_params(CA_RANDOM_INTEGERS, 1, {3}, Chunks{{3}}, CA_INT64, {nullptr, nullptr, f}, 0, 5, 0); });
  expect_error(CA_EINVAL, "Chunks do not add up to shape",
               [&] { random_params(CA_RANDOM_GAMMA, 1, {3}, Chunks{{2}}, CA_FLOAT64, {f}, 0, 1, 0); });
}

TEST(RandomParams, CApiAndGraphFileRoundTrip) {
  ca_context_t *ctx = nullptr;
  ASSERT_EQ(ca_context_new(&ctx, nullptr), CA_OK);
  const int64_t shape[2] = {50, 8}, nb[2] = {2, 1}, sizes[3] = {20, 30, 8};
  const ca_chunks_t ch{2, nb, sizes};
  const int64_t pshape[1] = {8}, pnb = 1, psizes[1] = {8};
  const ca_chunks_t pch{1, &pnb, psizes};
  ca_array_t *shp = nullptr;
  ASSERT_EQ(ca_array_full(&shp, 1, pshape, &pch, CA_FLOAT64, 2.5, 0), CA_OK);
  ca_random_options_t o = CA_RANDOM_OPTIONS_INIT;
  o.seed = 11, o.p1 = 2.0;
  const ca_array_t *ps[2] = {shp, nullptr};
  ca_array_t *a = nullptr, *b = nullptr;
  ASSERT_EQ(ca_array_random_params(&a, CA_RANDOM_GAMMA, 2, shape, &ch, CA_FLOAT64, ps, 2, &o), CA_OK)
      << ca_last_error_message();
  o.p0 = 2.5;
  ASSERT_EQ(ca_array_random(&b, CA_RANDOM_GAMMA, 2, shape, &ch, CA_FLOAT64, &o), CA_OK);
  std::vector<double> va(400), vb(400);
  ASSERT_EQ(ca_array_compute_into(ctx, a, va.data(), 3200, nullptr), CA_OK) << ca_last_error_message();
  ASSERT_EQ(ca_array_compute_into(ctx, b, vb.data(), 3200, nullptr), CA_OK);
  EXPECT_EQ(std::memcmp(va.data(), vb.data(), 3200), 0);
  // Argument errors.
  ca_array_t *bad = nullptr;
  EXPECT_EQ(ca_array_random_params(&bad, CA_RANDOM_GAMMA, 2, shape, &ch, CA_FLOAT64, ps, 4, &o), CA_EINVAL);
  EXPECT_EQ(bad, nullptr);
  EXPECT_EQ(ca_array_random_params(&bad, CA_RANDOM_GAMMA, 2, shape, &ch, CA_FLOAT64, nullptr, 1, &o), CA_EINVAL);
  EXPECT_EQ(ca_array_random_params(&bad, CA_RANDOM_GAMMA, 2, shape, &ch, CA_FLOAT64, nullptr, 0, &o), CA_OK);
  ca_array_free(bad);
  if (graph_files_supported()) {
    void *data = nullptr;
    size_t size = 0;
    const ca_array_t *arrays[1] = {a};
    ASSERT_EQ(save_to(&data, &size, nullptr, nullptr, arrays, 1, nullptr), CA_OK) << ca_last_error_message();
    ca_array_t **loaded = nullptr;
    size_t n = 0;
    ASSERT_EQ(load_from(nullptr, &loaded, &n, nullptr, data, size), CA_OK) << ca_last_error_message();
    ca_buffer_free(data);
    ASSERT_EQ(n, 1u);
    std::vector<double> vl(400);
    ASSERT_EQ(ca_array_compute_into(ctx, loaded[0], vl.data(), 3200, nullptr), CA_OK) << ca_last_error_message();
    EXPECT_EQ(std::memcmp(va.data(), vl.data(), 3200), 0);
    ca_array_free_many(loaded, n);
  }
  ca_array_free(a);
  ca_array_free(b);
  ca_array_free(shp);
  ca_context_free(ctx);
}
