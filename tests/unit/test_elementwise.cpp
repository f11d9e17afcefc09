// Fused elementwise operations (array/expr.hpp, array/ops_kernels.cpp) against NumPy: every op over
// every dtype family, ragged chunks, broadcasting, 0-d and empty arrays, Python-scalar promotion,
// where/clip/astype/round, fusion (one layer per result), deterministic names, and errors.
#include <gtest/gtest.h>

#include <chunkarray/array.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "array/array.hpp"
#include "array/create.hpp"
#include "array/reduce.hpp"
#include "array/expr.hpp"
#include "array/expr_instr.hpp"
#include "array/op_table.hpp"
#include "exec/executor.hpp"
#include "kernel/kernel.hpp"
#include "numpy_ref.hpp"
#include "support/expect_error.hpp"

using namespace ca;
using ca::test::Npy;

namespace {

const std::vector<DType> kAll = {CA_BOOL,   CA_INT8,   CA_INT16,   CA_INT32,     CA_INT64,
                                 CA_UINT8,  CA_UINT16, CA_UINT32,  CA_UINT64,    CA_FLOAT32,
                                 CA_FLOAT64, CA_COMPLEX64, CA_COMPLEX128};

const char *np_name(DType t) { return dtype_name(t); }
/// NumPy's type object for a dtype ("np.bool_", "np.int8", ...).
std::string np_type(DType t) { return t == CA_BOOL ? "np.bool_" : std::string("np.") + dtype_name(t); }

/// Deterministic test values: `salt` picks a pattern; small magnitudes, zeros and negatives included.
Npy make(DType dt, std::vector<Index> shape, int salt, bool nonneg = false) {
  Npy r;
  r.dtype = dt;
  r.shape = std::move(shape);
  const Index n = r.size();
  r.data.resize(size_t(n) * dtype_size(dt));
  dispatch_dtype(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T *p = reinterpret_cast<T *>(r.data.data());
    for (Index i = 0; i < n; ++i) {
      const int64_t k = (i * (salt == 0 ? 37 : 23) + salt * 5) % (salt == 0 ? 19 : 13);
      const int64_t v = nonneg ? k % 4 : k - (salt == 0 ? 9 : 6);
      if constexpr (std::is_same_v<T, bool>) p[i] = (v % 3) == 0;
      else if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>)
        p[i] = T(typename T::value_type(v * 0.75), typename T::value_type(((i * 11 + salt) % 7 - 3) * 0.5));
      else if constexpr (std::is_floating_point_v<T>) p[i] = T(nonneg ? double(v) : v * 0.75);
      else if constexpr (std::is_unsigned_v<T>) p[i] = T(nonneg ? v : (v < 0 ? -v : v) + (salt == 0 ? 0 : 1));
      else p[i] = T(v);
    }
  });
  return r;
}

Chunks ragged75() { return {{3, 4}, {2, 2, 1}}; }

ArrayPtr arr(const Npy &n, const Chunks &c) { return ca::test::array_from_npy(n, c); }

/// Run Python `code` that assigns `results`, a list of arrays or None (None: NumPy raised). Returns
/// the arrays (empty optional = None), all from one interpreter start.
std::vector<std::unique_ptr<Npy>> run_numpy_many(const std::string &code, const std::map<std::string, Npy> &inputs,
                                                 size_t count) {
  char tmpl[] = "/tmp/ca_ew_XXXXXX";
  char *dir = mkdtemp(tmpl);
  if (!dir) throw std::runtime_error("mkdtemp failed");
  std::string d(dir);
  std::ostringstream py;
  py << "import numpy as np, warnings\nwarnings.simplefilter('ignore')\nnp.seterr(all='ignore')\n";
  for (auto &kv : inputs) {
    ca::test::write_npy(d + "/" + kv.first + ".npy", kv.second);
    py << kv.first << " = np.load('" << d << "/" << kv.first << ".npy')\n";
  }
  py << code << "\n";
  py << "assert len(results) == " << count << ", len(results)\n";
  py << "for i, r in enumerate(results):\n"
        "    if r is not None:\n"
        "        np.save('" << d << "/r%d.npy' % i, np.array(r, order='C'))\n";
  {
    std::ofstream f(d + "/script.py");
    f << py.str();
  }
  int rc = ca::test::python_run(d + "/script.py", {}, "", d + "/err.txt");
  if (rc != 0) {
    std::ifstream e(d + "/err.txt");
    std::string err((std::istreambuf_iterator<char>(e)), std::istreambuf_iterator<char>());
    std::error_code ec;
    std::filesystem::remove_all(d, ec);
    throw std::runtime_error("python failed: " + err + "\n--- script ---\n" + py.str());
  }
  std::vector<std::unique_ptr<Npy>> out(count);
  for (size_t i = 0; i < count; ++i) {
    std::string path = d + "/r" + std::to_string(i) + ".npy";
    if (std::ifstream(path).good()) out[i] = std::make_unique<Npy>(ca::test::read_npy(path));
  }
  std::error_code ec;
  std::filesystem::remove_all(d, ec);
  return out;
}

/// Tolerance by result dtype (NumPy's float32 loops are SIMD approximations within a few ulps).
void compare(const Npy &got, const Npy &want, const std::string &what, bool transcendental = false) {
  if (got.dtype == CA_FLOAT16)  // float32 math rounded once: NumPy's float32 SIMD loops may land on the other half
    ca::test::expect_close(got, want, 1e-3, 0, what);
  else if (got.dtype == CA_FLOAT32 || got.dtype == CA_COMPLEX64)
    ca::test::expect_close(got, want, transcendental ? 2e-5 : 1e-6, transcendental ? 1e-6 : 0, what);
  else if (got.dtype == CA_FLOAT64 || got.dtype == CA_COMPLEX128)
    ca::test::expect_close(got, want, transcendental ? 1e-12 : 1e-15, transcendental ? 1e-14 : 0, what);
  else
    ca::test::expect_equal(got, want, what);
}

// Python snippet: NumPy's result, or None where NumPy raises.
const char *kPyHelpers = R"(
def call(f, *args):
    try:
        r = f(*args)
    except Exception:
        return None
    return r
)";

struct NpOp {
  int32_t op;
  std::string np;  // numpy function (an expression)
  bool transcendental;
};

/// The NumPy expression for a row without a NumPy name (a part of a two-result function).
std::string np_part(int32_t op) {
  switch (op) {
    case CA_OP_FREXP_MANTISSA: return "(lambda x: np.frexp(x)[0])";
    case CA_OP_FREXP_EXPONENT: return "(lambda x: np.frexp(x)[1])";
    case CA_OP_MODF_FRACTION: return "(lambda x: np.modf(x)[0])";
    // the array API standard's floor_divide: NumPy's, but an infinity over a nonzero finite number is
    // the signed infinity
    case CA_OP_FLOORDIV_STD:
      return "(lambda a, b: (lambda q: np.where((np.isinf(a) & np.isfinite(b) & (b != 0)) | "
             "(np.isfinite(a) & np.isinf(b)), np.true_divide(a, b).astype(q.dtype), q) "
             "if q.dtype.kind == 'f' else q)(np.floor_divide(a, b)))";
    default: throw std::runtime_error("ops.def row " + std::to_string(op) + " has no NumPy name: add it to np_part");
  }
}

// Every op of array/ops.def against the NumPy ufunc its NUMPY column names (a new row is tested
// here over every dtype); math functions compared with a tolerance.
std::vector<NpOp> ops_of_arity(int arity) {
  std::vector<NpOp> v;
#define CA_OP(ENUM, CODE, ARITY, NAME, NUMPY, RESULT, COMPUTE, FUNCTOR, DOC)                           \
  if (ARITY == arity)                                                                                  \
    v.push_back({CA_OP_##ENUM, NUMPY[0] ? std::string("np." NUMPY) : np_part(CA_OP_##ENUM),            \
                 OpRule::RESULT == OpRule::Math || OpRule::RESULT == OpRule::FloatLoop ||              \
                     OpRule::RESULT == OpRule::Power || OpRule::RESULT == OpRule::FloatPower ||        \
                     OpRule::RESULT == OpRule::MathF64 || OpRule::RESULT == OpRule::RealMathF64});
#include "array/ops.def"
  return v;
}

const std::vector<NpOp> kBinary = ops_of_arity(2);
const std::vector<NpOp> kUnary = ops_of_arity(1);

/// Build an op; returns null when chunkarray rejects it (records the status).
ArrayPtr try_build(const std::function<ArrayPtr()> &f, ca_status_t *code = nullptr) {
  try {
    return f();
  } catch (const Error &e) {
    if (code) *code = e.code();
    return nullptr;
  }
}

ca_scalar_t py_int(int64_t v) {
  ca_scalar_t s{};
  s.kind = CA_INT64;
  s.i64 = v;
  s.re = double(v);
  return s;
}
ca_scalar_t py_float(double v) {
  ca_scalar_t s{};
  s.kind = CA_FLOAT64;
  s.re = v;
  return s;
}
ca_scalar_t py_complex(double re, double im) {
  ca_scalar_t s{};
  s.kind = CA_COMPLEX128;
  s.re = re;
  s.im = im;
  return s;
}
ca_scalar_t py_bool(bool v) {
  ca_scalar_t s{};
  s.kind = CA_BOOL;
  s.i64 = v;
  s.re = v;
  return s;
}
std::string py_repr(const ca_scalar_t &s) {
  std::ostringstream o;
  o.precision(17);
  switch (s.kind) {
    case CA_BOOL: return s.i64 ? "True" : "False";
    case CA_INT64: o << s.i64; return o.str();
    case CA_FLOAT64:
      if (std::isnan(s.re)) return "float('nan')";
      if (std::isinf(s.re)) return s.re > 0 ? "float('inf')" : "float('-inf')";
      o << s.re;
      return "float(" + o.str() + ")";
    default: o << "complex(" << s.re << ", " << s.im << ")"; return o.str();
  }
}

}  // namespace

// ---- every binary op over every dtype (same dtypes and mixed pairs), ragged chunks ------------------

TEST(Elementwise, BinaryOpsAllDtypesVsNumpy) {
  std::vector<std::pair<DType, DType>> pairs;
  for (DType t : kAll) pairs.push_back({t, t});
  const std::pair<DType, DType> mixed[] = {{CA_INT8, CA_UINT8},     {CA_INT32, CA_FLOAT32}, {CA_UINT64, CA_INT64},
                                           {CA_BOOL, CA_FLOAT32},   {CA_COMPLEX64, CA_FLOAT64},
                                           {CA_INT16, CA_COMPLEX64}, {CA_UINT16, CA_INT8},  {CA_BOOL, CA_INT32},
                                           {CA_UINT32, CA_FLOAT32}};
  for (auto &p : mixed) pairs.push_back(p);

  std::map<std::string, Npy> inputs;
  std::map<std::string, ArrayPtr> arrays;
  std::set<DType> used;
  for (auto &p : pairs) used.insert(p.first), used.insert(p.second);
  for (DType t : used) {
    inputs[std::string("a_") + np_name(t)] = make(t, {7, 5}, 0);
    inputs[std::string("b_") + np_name(t)] = make(t, {7, 5}, 1);
    inputs[std::string("e_") + np_name(t)] = make(t, {7, 5}, 1, /*nonneg=*/true);  // pow exponents
    arrays[std::string("a_") + np_name(t)] = arr(inputs[std::string("a_") + np_name(t)], ragged75());
    // b uses another chunking: unify_chunks must align them.
    arrays[std::string("b_") + np_name(t)] = arr(inputs[std::string("b_") + np_name(t)], {{2, 5}, {3, 2}});
    arrays[std::string("e_") + np_name(t)] = arr(inputs[std::string("e_") + np_name(t)], {{7}, {5}});
  }

  struct Case {
    std::string what;
    ArrayPtr got;
    ca_status_t code = CA_OK;
    bool transcendental;
  };
  std::vector<Case> cases;
  std::string py = std::string(kPyHelpers) + "results = []\n";
  for (auto &op : kBinary)
    for (auto &p : pairs) {
      const std::string an = std::string("a_") + np_name(p.first);
      const std::string bn = std::string(op.op == CA_OP_POW ? "e_" : "b_") + np_name(p.second);
      Case c;
      c.what = op.np + "(" + an + ", " + bn + ")";
      c.transcendental = op.transcendental || p.first != p.second;
      c.got = try_build([&] { return elementwise_binary(op.op, arrays[an], arrays[bn]); }, &c.code);
      py += "results.append(call(" + op.np + ", " + an + ", " + bn + "))\n";
      cases.push_back(std::move(c));
    }
  auto want = run_numpy_many(py, inputs, cases.size());
  int checked = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case &c = cases[i];
    if (!want[i]) {
      EXPECT_EQ(c.got, nullptr) << c.what << ": NumPy raises, chunkarray builds it";
      continue;
    }
    ASSERT_NE(c.got, nullptr) << c.what << ": chunkarray rejects (" << c.code << "), NumPy computes it";
    Npy got = ca::test::compute_npy(c.got);
    compare(got, *want[i], c.what, c.transcendental);
    ++checked;
  }
  EXPECT_GT(checked, 200);
}

// ---- every unary op over every dtype --------------------------------------------------------------

TEST(Elementwise, UnaryOpsAllDtypesVsNumpy) {
  std::map<std::string, Npy> inputs;
  std::map<std::string, ArrayPtr> arrays;
  for (DType t : kAll) {
    // Values in [-1, 1] too, for arcsin/arccos/arctanh, via a second input.
    inputs[std::string("a_") + np_name(t)] = make(t, {7, 5}, 0);
    arrays[std::string("a_") + np_name(t)] = arr(inputs[std::string("a_") + np_name(t)], ragged75());
  }
  struct Case {
    std::string what;
    ArrayPtr got;
    bool transcendental;
  };
  std::vector<Case> cases;
  std::string py = std::string(kPyHelpers) + "results = []\n";
  for (auto &op : kUnary)
    for (DType t : kAll) {
      const std::string an = std::string("a_") + np_name(t);
      Case c;
      c.what = op.np + "(" + an + ")";
      c.transcendental = op.transcendental;
      c.got = try_build([&] { return elementwise_unary(op.op, arrays[an]); });
      // np.sign/negative on bool raise in NumPy 1.24 (as here); np.rint of bool is float16 (as here).
      py += "results.append(call(" + op.np + ", " + an + "))\n";
      cases.push_back(std::move(c));
    }
  auto want = run_numpy_many(py, inputs, cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case &c = cases[i];
    if (!want[i]) {
      EXPECT_EQ(c.got, nullptr) << c.what << ": NumPy raises, chunkarray builds it";
      continue;
    }
    ASSERT_NE(c.got, nullptr) << c.what << ": chunkarray rejects, NumPy computes it";
    compare(ca::test::compute_npy(c.got), *want[i], c.what, c.transcendental);
  }
}

TEST(Elementwise, UnaryMathSpecialValues) {
  // NaN, infinities, signed zeros, values inside [-1, 1].
  const double vals[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.5, -2.5, 1e300, 3.5, 0.25};
  Npy x = ca::test::npy_of(CA_FLOAT64, {14}, vals);
  ArrayPtr a = arr(x, {{5, 5, 4}});
  std::string py = "results = [";
  std::vector<ArrayPtr> got;
  for (auto &op : kUnary) {
    if (op.op == CA_OP_INVERT) continue;
    got.push_back(elementwise_unary(op.op, a));
    py += op.np + "(x), ";
  }
  py += "]";
  auto want = run_numpy_many(py, {{"x", x}}, got.size());
  for (size_t i = 0; i < got.size(); ++i) compare(ca::test::compute_npy(got[i]), *want[i], "special " + std::to_string(i), true);
}

// ---- integer semantics ----------------------------------------------------------------------------

TEST(Elementwise, IntegerDivisionModAndOverflow) {
  const int8_t av[] = {-128, -7, 7, -7, 7, 0, 127, -128, 5, -5, 100, -100};
  const int8_t bv[] = {-1, 2, -2, 0, 0, 0, 1, 1, 3, 3, 100, 27};
  Npy a = ca::test::npy_of(CA_INT8, {12}, av), b = ca::test::npy_of(CA_INT8, {12}, bv);
  ArrayPtr A = arr(a, {{5, 7}}), B = arr(b, {{12}});
  std::vector<ArrayPtr> got = {elementwise_binary(CA_OP_FLOORDIV, A, B), elementwise_binary(CA_OP_MOD, A, B),
                               elementwise_binary(CA_OP_ADD, A, B),      elementwise_binary(CA_OP_MUL, A, B),
                               elementwise_binary(CA_OP_SUB, A, B),      elementwise_unary(CA_OP_NEG, A),
                               elementwise_unary(CA_OP_ABS, A),          elementwise_binary(CA_OP_DIV, A, B)};
  auto want = run_numpy_many("results = [a // b, a % b, a + b, a * b, a - b, -a, np.abs(a), a / b]",
                             {{"a", a}, {"b", b}}, got.size());
  for (size_t i = 0; i < got.size(); ++i) compare(ca::test::compute_npy(got[i]), *want[i], "int8 case " + std::to_string(i));

  // int64 extremes and float floor-division / modulo with Python's signs.
  const int64_t lv[] = {INT64_MIN, INT64_MIN, INT64_MAX, -9, 9, 0};
  const int64_t mv[] = {-1, 7, -7, 4, -4, 0};
  Npy l = ca::test::npy_of(CA_INT64, {6}, lv), m = ca::test::npy_of(CA_INT64, {6}, mv);
  const double fv[] = {-7.5, 7.5, -7.0, 7.0, 0.0, -0.0, INFINITY, NAN, 5.0};
  const double gv[] = {2.0, -2.0, 0.0, -0.0, 3.0, 3.0, 2.0, 1.0, INFINITY};
  Npy f = ca::test::npy_of(CA_FLOAT64, {9}, fv), g = ca::test::npy_of(CA_FLOAT64, {9}, gv);
  ArrayPtr L = arr(l, {{6}}), M = arr(m, {{6}}), F = arr(f, {{9}}), G = arr(g, {{4, 5}});
  std::vector<ArrayPtr> got2 = {elementwise_binary(CA_OP_FLOORDIV, L, M), elementwise_binary(CA_OP_MOD, L, M),
                                elementwise_binary(CA_OP_FLOORDIV, F, G), elementwise_binary(CA_OP_MOD, F, G)};
  auto want2 = run_numpy_many("results = [l // m, l % m, f // g, f % g]", {{"l", l}, {"m", m}, {"f", f}, {"g", g}}, 4);
  for (size_t i = 0; i < got2.size(); ++i) {
    Npy gn = ca::test::compute_npy(got2[i]);
    compare(gn, *want2[i], "extreme case " + std::to_string(i));
    if (gn.dtype == CA_FLOAT64) {  // signs of zeros too
      for (Index k = 0; k < gn.size(); ++k) {
        if (gn.as<double>()[k] == 0) {
          EXPECT_EQ(std::signbit(gn.as<double>()[k]), std::signbit(want2[i]->as<double>()[k])) << k;
        }
      }
    }
  }
}

// CA_OP_FLOORDIV_STD: the array API standard's floor_divide. An infinity over a nonzero finite number is
// the signed infinity (CA_OP_FLOORDIV gives NumPy's NaN), a finite number over an infinity the signed
// zero (NumPy: -1 for unlike signs); every other case is NumPy's floor_divide,
// signed zeros included; integers are CA_OP_FLOORDIV's.
TEST(Elementwise, FloorDivideStandardSpecialCases) {
  const double av[] = {INFINITY, INFINITY, -INFINITY, -INFINITY, INFINITY, -INFINITY, INFINITY, NAN,
                       7.0,      -7.0,     0.0,       -0.0,      1.0,      -1.0,      5.0,      -5.0, 0.0};
  const double bv[] = {2.0,  -2.0, 3.5, -0.5, INFINITY, 0.0, -0.0, 2.0,
                       -2.0, 2.0,  4.0, 4.0,  -INFINITY, INFINITY, 0.0, -0.0, 0.0};
  // the first four (infinity over finite) and items 12-13 (finite over infinity: -0.0 and -0.0) are the
  // standard's own; NumPy gives NaN and -1 there
  const double want[] = {INFINITY, -INFINITY, -INFINITY, INFINITY};
  Npy a = ca::test::npy_of(CA_FLOAT64, {17}, av), b = ca::test::npy_of(CA_FLOAT64, {17}, bv);
  ArrayPtr A = arr(a, {{5, 12}}), B = arr(b, {{17}});
  Npy got = ca::test::compute_npy(elementwise_binary(CA_OP_FLOORDIV_STD, A, B));
  auto np = run_numpy_many("results = [a // b]", {{"a", a}, {"b", b}}, 1);
  for (Index k = 0; k < 17; ++k) {
    double g = got.as<double>()[k];
    double w = k < 4 ? want[k] : (k == 12 || k == 13) ? -0.0 : np[0]->as<double>()[k];
    if (std::isnan(w)) {
      EXPECT_TRUE(std::isnan(g)) << k;
    } else {
      EXPECT_EQ(g, w) << k;
      EXPECT_EQ(std::signbit(g), std::signbit(w)) << k;
    }
  }
  // float32 and a scalar divisor; integers as CA_OP_FLOORDIV (NumPy's)
  const float fv[] = {-INFINITY, 3.0f, -3.0f};
  Npy f = ca::test::npy_of(CA_FLOAT32, {3}, fv);
  ca_scalar_t two{};
  two.kind = CA_FLOAT32;
  two.flags = CA_SCALAR_TYPED;
  two.re = 2.0;
  Npy gf = ca::test::compute_npy(elementwise_scalar(CA_OP_FLOORDIV_STD, arr(f, {{2, 1}}), two, false));
  EXPECT_EQ(gf.dtype, CA_FLOAT32);
  EXPECT_EQ(gf.as<float>()[0], -INFINITY);
  EXPECT_EQ(gf.as<float>()[1], 1.0f);
  EXPECT_EQ(gf.as<float>()[2], -2.0f);
  const int64_t iv[] = {INT64_MIN, -7, 7, 9007199254740993LL}, jv[] = {-1, 2, 0, 2};
  Npy i = ca::test::npy_of(CA_INT64, {4}, iv), j = ca::test::npy_of(CA_INT64, {4}, jv);
  compare(ca::test::compute_npy(elementwise_binary(CA_OP_FLOORDIV_STD, arr(i, {{3, 1}}), arr(j, {{4}}))),
          *run_numpy_many("results = [i // j]", {{"i", i}, {"j", j}}, 1)[0], "int64 floordiv_std");
}

TEST(Elementwise, IntegerPowerNegativeExponentFails) {
  const int32_t av[] = {2, 3, 4}, bv[] = {1, -1, 2};
  ArrayPtr A = arr(ca::test::npy_of(CA_INT32, {3}, av), {{3}}), B = arr(ca::test::npy_of(CA_INT32, {3}, bv), {{2, 1}});
  ArrayPtr p = elementwise_binary(CA_OP_POW, A, B);  // NumPy raises at compute time as well
  try {
    ca::test::compute_npy(p);
    FAIL() << "expected a kernel error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("negative integer powers"), std::string::npos) << e.what();
  }
  // With a scalar exponent the error comes at build time.
  try {
    elementwise_scalar(CA_OP_POW, A, py_int(-2), false);
    FAIL() << "expected CA_EINVAL";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), CA_EINVAL);
  }
}

// ---- Python scalars: NumPy 1.x value-based promotion ----------------------------------------------

TEST(Elementwise, ScalarPromotionMatchesNumpy) {
  const std::vector<ca_scalar_t> scalars = {
      py_int(1),        py_int(300),     py_int(-1),         py_int(-300),        py_int(70000),
      py_int(-70000),   py_int(127),     py_int(128),        py_int(2147483647),  py_int(4294967295LL),
      py_int(1LL << 40), py_int(INT64_MAX), py_int(-(1LL << 40)), py_float(1.5),    py_float(1e300),
      py_float(-2.0),   py_float(NAN),   py_float(INFINITY), py_complex(0, 1),    py_complex(1e300, 1),
      py_bool(true),    py_bool(false)};
  std::string py =
      "names = ['bool','int8','int16','int32','int64','uint8','uint16','uint32','uint64','float32','float64',"
      "'complex64','complex128','float16']\nresults = []\n";
  std::vector<std::pair<DType, ca_scalar_t>> cases;
  for (DType t : kAll)
    for (auto &s : scalars) {
      cases.push_back({t, s});
      py += "results.append(np.array(names.index(np.add(np.ones(1, " + np_type(t) + "), " + py_repr(s) +
            ").dtype.name)))\n";
    }
  auto want = run_numpy_many(py, {}, cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    const int64_t idx = want[i]->as<int64_t>()[0];
    const DType expect = idx == 13 ? CA_FLOAT32 : kAll[size_t(idx)];  // float16 -> float32 (documented)
    EXPECT_EQ(scalar_promote(cases[i].first, cases[i].second), expect)
        << np_name(cases[i].first) << " with " << py_repr(cases[i].second);
  }
}

TEST(Elementwise, ScalarOpsBothSidesVsNumpy) {
  std::map<std::string, Npy> inputs;
  const DType types[] = {CA_BOOL, CA_INT8, CA_UINT8, CA_INT64, CA_UINT64, CA_FLOAT32, CA_FLOAT64, CA_COMPLEX64};
  const std::vector<ca_scalar_t> scalars = {py_int(3), py_int(-2), py_int(300), py_float(1.5), py_complex(0.5, -1),
                                            py_bool(true)};
  const int32_t ops[] = {CA_OP_ADD, CA_OP_SUB, CA_OP_MUL, CA_OP_DIV, CA_OP_FLOORDIV, CA_OP_MOD, CA_OP_POW,
                         CA_OP_LT,  CA_OP_EQ,  CA_OP_MAXIMUM, CA_OP_BITAND, CA_OP_AND};
  const char *npops[] = {"np.add",  "np.subtract", "np.multiply", "np.true_divide", "np.floor_divide",
                         "np.remainder", "np.power", "np.less", "np.equal", "np.maximum", "np.bitwise_and",
                         "np.logical_and"};
  std::string py = std::string(kPyHelpers) + "results = []\n";
  struct Case {
    std::string what;
    ArrayPtr got;
  };
  std::vector<Case> cases;
  for (DType t : types) {
    std::string an = std::string("a_") + np_name(t);
    inputs[an] = make(t, {7, 5}, 0);
    ArrayPtr a = arr(inputs[an], ragged75());
    for (size_t o = 0; o < std::size(ops); ++o)
      for (auto &s : scalars)
        for (bool first : {false, true}) {
          // Negative integer exponents raise in NumPy (and here): exercised elsewhere.
          if (ops[o] == CA_OP_POW) {
            if (first || s.kind == CA_INT64) continue;
          }
          Case c;
          c.what = std::string(npops[o]) + (first ? "(s, " : "(") + an + (first ? ")" : ", s)") + " s=" + py_repr(s);
          c.got = try_build([&] { return elementwise_scalar(ops[o], a, s, first); });
          std::string sr = py_repr(s);
          py += "results.append(call(" + std::string(npops[o]) + ", " + (first ? sr + ", " + an : an + ", " + sr) + "))\n";
          cases.push_back(std::move(c));
        }
  }
  auto want = run_numpy_many(py, inputs, cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    if (!want[i]) {
      EXPECT_EQ(cases[i].got, nullptr) << cases[i].what << ": NumPy raises";
      continue;
    }
    ASSERT_NE(cases[i].got, nullptr) << cases[i].what << ": chunkarray rejects";
    compare(ca::test::compute_npy(cases[i].got), *want[i], cases[i].what, true);
  }
}

// ---- broadcasting, 0-d, empty ---------------------------------------------------------------------

TEST(Elementwise, BroadcastShapesAndErrors) {
  Npy a41 = make(CA_FLOAT64, {4, 1}, 0), b3 = make(CA_INT32, {3}, 1), s0 = make(CA_FLOAT32, {}, 1),
      c23 = make(CA_FLOAT64, {2, 3}, 0), d135 = make(CA_INT16, {1, 3, 5}, 0), e35 = make(CA_FLOAT64, {3, 5}, 1),
      g21 = make(CA_COMPLEX64, {2, 1, 1}, 1);
  ArrayPtr A = arr(a41, {{1, 3}, {1}}), B = arr(b3, {{2, 1}}), S = arr(s0, {}), C = arr(c23, {{1, 1}, {3}}),
           D = arr(d135, {{1}, {2, 1}, {5}}), E = arr(e35, {{1, 2}, {4, 1}}), G = arr(g21, {{1, 1}, {1}, {1}});
  std::vector<ArrayPtr> got = {
      elementwise_binary(CA_OP_ADD, A, B),      elementwise_binary(CA_OP_MUL, S, C),
      elementwise_binary(CA_OP_SUB, C, S),      elementwise_binary(CA_OP_MAXIMUM, D, E),
      elementwise_binary(CA_OP_ADD, G, D),      elementwise_unary(CA_OP_SQRT, S),
      elementwise_binary(CA_OP_GT, S, S),       elementwise_where(elementwise_binary(CA_OP_GT, A, B), A, B, {}, {}),
  };
  EXPECT_EQ(got[0]->shape, (std::vector<Index>{4, 3}));
  EXPECT_EQ(got[3]->shape, (std::vector<Index>{1, 3, 5}));
  EXPECT_EQ(got[4]->shape, (std::vector<Index>{2, 3, 5}));
  EXPECT_EQ(got[5]->ndim(), 0);
  auto want = run_numpy_many(
      "results = [a + b, s * c, c - s, np.maximum(d, e), g + d, np.sqrt(s), s > s, np.where(a > b, a, b)]",
      {{"a", a41}, {"b", b3}, {"s", s0}, {"c", c23}, {"d", d135}, {"e", e35}, {"g", g21}}, got.size());
  for (size_t i = 0; i < got.size(); ++i) {
    Npy w = *want[i];
    // Our 0-d arrays combine with NumPy's array promotion (dask's): s0 is float32, c float64 -> same.
    compare(ca::test::compute_npy(got[i]), w, "broadcast case " + std::to_string(i), true);
  }
  // Shape mismatch: NumPy's message.
  try {
    Npy x = make(CA_FLOAT64, {3, 4}, 0), y = make(CA_FLOAT64, {5}, 0);
    elementwise_binary(CA_OP_ADD, arr(x, {{3}, {4}}), arr(y, {{5}}));
    FAIL() << "expected a broadcast error";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), CA_EINVAL);
    EXPECT_NE(std::string(e.what()).find("operands could not be broadcast together with shapes (3, 4) (5,)"),
              std::string::npos)
        << e.what();
  }
}

TEST(Elementwise, EmptyArrays) {
  Npy e = make(CA_FLOAT64, {0, 3}, 0), r = make(CA_INT32, {3}, 0);
  ArrayPtr E = arr(e, {{0}, {2, 1}}), R = arr(r, {{3}});
  ArrayPtr s = elementwise_binary(CA_OP_ADD, E, R);
  EXPECT_EQ(s->shape, (std::vector<Index>{0, 3}));
  EXPECT_EQ(s->dtype, CA_FLOAT64);
  Npy g = ca::test::compute_npy(elementwise_unary(CA_OP_SQRT, s));
  EXPECT_EQ(g.shape, (std::vector<Index>{0, 3}));
  EXPECT_TRUE(g.data.empty());
  // Broadcasting against an extent-0 dimension.
  Npy one = make(CA_FLOAT64, {1, 3}, 0);
  ArrayPtr t = elementwise_binary(CA_OP_MUL, arr(one, {{1}, {3}}), E);
  EXPECT_EQ(t->shape, (std::vector<Index>{0, 3}));
  EXPECT_EQ(ca::test::compute_npy(t).data.size(), 0u);
}

// ---- where, clip, astype, round -------------------------------------------------------------------

TEST(Elementwise, WhereClipAstypeRoundVsNumpy) {
  Npy c = make(CA_INT16, {7, 5}, 1), a = make(CA_FLOAT32, {7, 5}, 0), b = make(CA_INT8, {5}, 1),
      f = make(CA_FLOAT64, {7, 5}, 0), i = make(CA_INT32, {7, 5}, 0), z = make(CA_COMPLEX128, {7, 5}, 1);
  ArrayPtr C = arr(c, ragged75()), A = arr(a, {{4, 3}, {5}}), B = arr(b, {{3, 2}}), F = arr(f, ragged75()),
           I = arr(i, {{7}, {1, 4}}), Z = arr(z, ragged75());
  for (Index k = 0; k < 35; ++k) reinterpret_cast<double *>(f.data.data())[k] += 0.125 * double(k % 5);
  F = arr(f, ragged75());
  const ca_scalar_t m2 = py_int(-2), p300 = py_int(300), f15 = py_float(1.5), i0 = py_int(0);
  std::vector<ArrayPtr> got = {
      elementwise_where(C, A, B, {}, {}),
      elementwise_where(C, A, nullptr, {}, py_int(300)),
      elementwise_where(C, nullptr, B, py_int(300), {}),
      elementwise_where(C, nullptr, nullptr, py_int(1), py_float(2.5)),
      elementwise_clip(I, &m2, &p300),
      elementwise_clip(F, nullptr, &f15),
      elementwise_clip(F, &i0, nullptr),
      elementwise_round(F, 1),
      elementwise_round(F, 0),
      elementwise_round(F, -1),
      elementwise_round(I, -1),
      elementwise_round(Z, 1),
      elementwise_astype(F, CA_INT8),
      elementwise_astype(Z, CA_FLOAT32),
      elementwise_astype(I, CA_BOOL),
  };
  auto want = run_numpy_many(
      "results = [np.where(c, a, b), np.where(c, a, 300), np.where(c, 300, b), np.where(c, 1, 2.5),\n"
      " np.clip(i, -2, 300), np.clip(f, None, 1.5), np.clip(f, 0, None), np.round(f, 1), np.round(f), np.round(f, -1),\n"
      " np.round(i, -1), np.round(z, 1), f.astype(np.int8), z.real.astype(np.float32), i.astype(bool)]",
      {{"c", c}, {"a", a}, {"b", b}, {"f", f}, {"i", i}, {"z", z}}, got.size());
  for (size_t k = 0; k < got.size(); ++k) compare(ca::test::compute_npy(got[k]), *want[k], "case " + std::to_string(k));
  // astype to the same dtype is the array itself; clip needs a bound.
  EXPECT_EQ(elementwise_astype(F, CA_FLOAT64), F);
  EXPECT_THROW(elementwise_clip(F, nullptr, nullptr), Error);
}

TEST(Elementwise, AstypeAllPairsVsNumpy) {
  std::map<std::string, Npy> inputs;
  std::map<DType, ArrayPtr> arrays;
  for (DType t : kAll) {
    inputs[std::string("a_") + np_name(t)] = make(t, {7, 5}, 0);
    arrays[t] = arr(inputs[std::string("a_") + np_name(t)], ragged75());
  }
  std::string py = "results = []\n";
  std::vector<std::pair<std::string, ArrayPtr>> cases;
  for (DType from : kAll)
    for (DType to : kAll) {
      cases.push_back({std::string(np_name(from)) + "->" + np_name(to), elementwise_astype(arrays[from], to)});
      py += "results.append(a_" + std::string(np_name(from)) + ".astype(" + np_type(to) + "))\n";
    }
  auto want = run_numpy_many(py, inputs, cases.size());
  for (size_t k = 0; k < cases.size(); ++k) compare(ca::test::compute_npy(cases[k].second), *want[k], cases[k].first);
}

TEST(Elementwise, FloatToIntCastsLikeNumpyOnX86) {
  const double v[] = {NAN, INFINITY, -INFINITY, 3e9, -3e9, 1e20, -1.5, 300.7, -0.9, 2.5, 1.8e19, 9.3e18};
  Npy x = ca::test::npy_of(CA_FLOAT64, {12}, v);
  ArrayPtr X = arr(x, {{12}});
  // uint32 is left out: NumPy's own results for out-of-range values differ between its SIMD
  // (AVX-512 vcvttpd2udq) and scalar paths, i.e. depend on the array length.
  const DType targets[] = {CA_INT8, CA_INT16, CA_INT32, CA_INT64, CA_UINT8, CA_UINT16, CA_UINT64, CA_BOOL};
  std::string py = "results = [";
  std::vector<ArrayPtr> got;
  for (DType t : targets) {
    got.push_back(elementwise_astype(X, t));
    py += "x.astype(" + np_type(t) + "), ";
  }
  py += "]";
  auto want = run_numpy_many(py, {{"x", x}}, got.size());
  for (size_t k = 0; k < got.size(); ++k)
    compare(ca::test::compute_npy(got[k]), *want[k], std::string("float64->") + np_name(targets[k]));
}

// ---- fusion, names, program format ----------------------------------------------------------------

TEST(Elementwise, ChainsFuseIntoOneLayer) {
  Npy x = make(CA_FLOAT64, {7, 5}, 0);
  ArrayPtr X = arr(x, ragged75());
  const size_t base_layers = X->graph->layers().size();
  ArrayPtr y = elementwise_scalar(CA_OP_ADD, X, py_int(1), false);
  ArrayPtr z = elementwise_scalar(CA_OP_MUL, y, py_int(2), false);
  ArrayPtr w = elementwise_scalar(CA_OP_SUB, z, py_int(3), false);
  ArrayPtr v = elementwise_unary(CA_OP_ABS, w);
  ArrayPtr u = elementwise_binary(CA_OP_MAXIMUM, v, X);
  for (const ArrayPtr &r : {y, z, w, v, u}) {
    EXPECT_EQ(r->graph->layers().size(), base_layers + 1) << r->name;  // x's layer and its own only
    ASSERT_TRUE(r->expr);
    EXPECT_EQ(r->graph->find(y->name) == nullptr, r != y);  // intermediates are not in later graphs
  }
  std::vector<ArrayPtr> leaves;
  ExprProgram p = compile_expr(u->expr, leaves);
  ASSERT_EQ(leaves.size(), 1u);  // X twice, deduplicated
  EXPECT_EQ(leaves[0]->name, X->name);
  // One task per output block: the final layer has exactly u's blocks.
  EXPECT_EQ(u->graph->find(u->name)->num_tasks(), u->nblocks());
  auto want = run_numpy_many("results = [np.maximum(np.abs((x + 1) * 2 - 3), x)]", {{"x", x}}, 1);
  compare(ca::test::compute_npy(u), *want[0], "chain");
  // fused_args: the program and its leaves over u's letters (what reductions use).
  FusedArgs fa = fused_args(u);
  EXPECT_EQ(fa.out_index, "ab");
  ASSERT_EQ(fa.inputs.size(), 1u);
  EXPECT_EQ(fa.inputs[0].index, "ab");
  ExprProgram q = ExprProgram::parse(fa.program.data(), fa.program.size());
  EXPECT_EQ(q.code.size(), p.code.size());
  FusedArgs fx = fused_args(X);
  ExprProgram id = ExprProgram::parse(fx.program.data(), fx.program.size());
  EXPECT_EQ(id.code.size(), 0u);
  EXPECT_EQ(id.out, 0);
}

// ---- issue 16's compositions: isclose and nan_to_num fuse into one layer of table ops ---------------

TEST(Elementwise, IsCloseAndNanToNumVsNumpy) {
  const double xv[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, 1.0, 1.0 + 1e-9, 2.0, -3.5, 1e300, NAN, 5.0};
  const double yv[] = {NAN, INFINITY, INFINITY, -0.0, 1e-9, 1.0, 1.0, 2.0 + 1e-4, -3.5, 1e300, 1.0, NAN};
  Npy x = ca::test::npy_of(CA_FLOAT64, {12}, xv), y = ca::test::npy_of(CA_FLOAT64, {12}, yv);
  Npy xf = make(CA_FLOAT32, {7, 5}, 0), yi = make(CA_INT16, {7, 5}, 1);
  ArrayPtr X = arr(x, {{5, 7}}), Y = arr(y, {{4, 4, 4}});
  ArrayPtr XF = arr(xf, ragged75()), YI = arr(yi, {{7}, {5}});
  // as many layers as one binary op over the same operands (their rechunks to common chunks, one fused layer)
  const size_t base = elementwise_binary(CA_OP_ADD, X, Y)->graph->layers().size();
  std::vector<ArrayPtr> got = {elementwise_isclose(X, Y, 1e-5, 1e-8, false), elementwise_isclose(X, Y, 1e-5, 1e-8, true),
                               elementwise_isclose(X, Y, 0.1, 0.0, false), elementwise_isclose(XF, YI, 1e-5, 1e-8, false),
                               elementwise_nan_to_num(X, 0.0, nullptr, nullptr)};
  EXPECT_EQ(got[1]->graph->layers().size(), base) << "isclose is one fused layer";
  const double pinf = 7.5, ninf = -1e10;
  got.push_back(elementwise_nan_to_num(X, -2.0, &pinf, &ninf));
  got.push_back(elementwise_nan_to_num(elementwise_astype(X, CA_FLOAT32), 3.0, nullptr, &ninf));
  got.push_back(elementwise_nan_to_num(YI, 1.0, &pinf, nullptr));  // integers: unchanged
  auto want = run_numpy_many(
      "results = [np.isclose(x, y), np.isclose(x, y, equal_nan=True), np.isclose(x, y, rtol=0.1, atol=0.0),\n"
      "           np.isclose(xf, yi), np.nan_to_num(x), np.nan_to_num(x, nan=-2.0, posinf=7.5, neginf=-1e10),\n"
      "           np.nan_to_num(x.astype(np.float32), nan=3.0, neginf=-1e10), np.nan_to_num(yi, nan=1.0, posinf=7.5)]",
      {{"x", x}, {"y", y}, {"xf", xf}, {"yi", yi}}, got.size());
  for (size_t i = 0; i < got.size(); ++i) compare(ca::test::compute_npy(got[i]), *want[i], "case " + std::to_string(i));
  // complex with values other than the defaults: refused, naming the dtype
  ArrayPtr C = elementwise_astype(X, CA_COMPLEX128);
  try {
    elementwise_nan_to_num(C, 1.0, nullptr, nullptr);
    ADD_FAILURE() << "complex nan_to_num with nan=1 built";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), CA_EUNSUPPORTED);
    EXPECT_NE(std::string(e.what()).find("complex128"), std::string::npos) << e.what();
  }
  compare(ca::test::compute_npy(elementwise_nan_to_num(C, 0.0, nullptr, nullptr)),
          *run_numpy_many("results = [np.nan_to_num(x.astype(complex))]", {{"x", x}}, 1)[0], "complex defaults");
}

TEST(Elementwise, Float16OwnPrecisionOps) {
  // spacing, nextafter and nan_to_num of float16 use float16's neighbours (dtype_kernels.cpp), the rest
  // of a chain computes in float32 and rounds back.
  const double hv[] = {1.0, -1.0, 0.0, -0.0, 65504.0, -65504.0, 6e-8, -2.0, INFINITY, NAN, 1e-5, -INFINITY};
  const double tv[] = {2.0, -INFINITY, 1.0, -1.0, INFINITY, 0.0, 0.0, -2.0, 0.0, 1.0, -1.0, 0.0};
  Npy h = ca::test::npy_of(CA_FLOAT64, {12}, hv), t = ca::test::npy_of(CA_FLOAT64, {12}, tv);
  ArrayPtr H = elementwise_astype(arr(h, {{5, 7}}), CA_FLOAT16), T = elementwise_astype(arr(t, {{12}}), CA_FLOAT16);
  std::vector<ArrayPtr> got = {elementwise_unary(CA_OP_SPACING, H), elementwise_binary(CA_OP_NEXTAFTER, H, T),
                               elementwise_unary(CA_OP_NAN_TO_NUM, H),
                               elementwise_unary(CA_OP_SQRT, elementwise_unary(CA_OP_SPACING, elementwise_unary(CA_OP_FABS, H))),
                               elementwise_unary(CA_OP_FREXP_EXPONENT, H), elementwise_unary(CA_OP_MODF_FRACTION, H)};
  auto want = run_numpy_many(
      "hh = h.astype(np.float16); tt = t.astype(np.float16)\n"
      "results = [np.spacing(hh), np.nextafter(hh, tt), np.nan_to_num(hh), np.sqrt(np.spacing(np.fabs(hh))),\n"
      "           np.frexp(hh)[1], np.modf(hh)[0]]",
      {{"h", h}, {"t", t}}, got.size());
  for (size_t i = 0; i < got.size(); ++i) ca::test::expect_equal(ca::test::compute_npy(got[i]), *want[i], "f16 " + std::to_string(i));
}

TEST(Elementwise, LongChainsStopFusing) {
  Npy x = make(CA_FLOAT64, {7, 5}, 0);
  ArrayPtr X = arr(x, ragged75());
  ArrayPtr r = X;
  for (int k = 0; k < 150; ++k) r = elementwise_scalar(k % 2 ? CA_OP_ADD : CA_OP_MUL, r, py_float(k % 2 ? 1.0 : 0.5), false);
  std::vector<ArrayPtr> leaves;
  EXPECT_LE(compile_expr(r->expr, leaves).code.size(), 64u + 4u);
  // The DAG r = y * y repeated stays linear (shared subexpressions compile once).
  ArrayPtr d = X;
  for (int k = 0; k < 40; ++k) d = elementwise_binary(CA_OP_ADD, d, d);
  EXPECT_LE(compile_expr(d->expr, leaves).code.size(), 64u);
  auto want = run_numpy_many(
      "r = x.copy()\nfor k in range(150):\n    r = r + 1.0 if k % 2 else r * 0.5\n"
      "d = x.copy()\nfor k in range(40):\n    d = d + d\nresults = [r, d]",
      {{"x", x}}, 2);
  compare(ca::test::compute_npy(r), *want[0], "long chain");
  compare(ca::test::compute_npy(d), *want[1], "doubling chain");
}

TEST(Elementwise, NamesAreDeterministic) {
  Npy x = make(CA_FLOAT64, {7, 5}, 0), y = make(CA_FLOAT64, {5}, 1);
  ArrayPtr X = arr(x, ragged75()), Y = arr(y, {{5}});
  auto build = [&](double c) {
    return elementwise_unary(CA_OP_EXP, elementwise_binary(CA_OP_ADD, elementwise_scalar(CA_OP_MUL, X, py_float(c), false), Y));
  };
  EXPECT_EQ(build(2.0)->name, build(2.0)->name);
  EXPECT_NE(build(2.0)->name, build(3.0)->name);
  EXPECT_EQ(build(2.0)->name.rfind("exp-", 0), 0u) << build(2.0)->name;
  EXPECT_NE(elementwise_binary(CA_OP_SUB, X, Y)->name, elementwise_binary(CA_OP_ADD, X, Y)->name);
}

TEST(Elementwise, TypeAndOpErrors) {
  Npy f = make(CA_FLOAT64, {3}, 0), b = make(CA_BOOL, {3}, 0), z = make(CA_COMPLEX64, {3}, 0);
  ArrayPtr F = arr(f, {{3}}), B = arr(b, {{3}}), Z = arr(z, {{3}});
  auto code_of = [](const std::function<void()> &fn) -> ca_status_t {
    try {
      fn();
    } catch (const Error &e) {
      return e.code();
    }
    return CA_OK;
  };
  EXPECT_EQ(code_of([&] { elementwise_binary(CA_OP_BITAND, F, F); }), CA_ETYPE);
  EXPECT_EQ(code_of([&] { elementwise_unary(CA_OP_INVERT, F); }), CA_ETYPE);
  EXPECT_EQ(code_of([&] { elementwise_binary(CA_OP_SUB, B, B); }), CA_ETYPE);
  EXPECT_EQ(code_of([&] { elementwise_binary(CA_OP_FLOORDIV, Z, Z); }), CA_ETYPE);
  EXPECT_EQ(code_of([&] { elementwise_unary(CA_OP_FLOOR, Z); }), CA_ETYPE);
  EXPECT_EQ(code_of([&] { elementwise_unary(CA_OP_NEG, B); }), CA_ETYPE);
  EXPECT_EQ(code_of([&] { elementwise_binary(999, F, F); }), CA_EINVAL);
  EXPECT_EQ(code_of([&] { elementwise_unary(CA_OP_ADD, F); }), CA_EINVAL);
  EXPECT_EQ(code_of([&] { elementwise_binary(CA_OP_SQRT, F, F); }), CA_EINVAL);
  EXPECT_EQ(code_of([&] { elementwise_astype(F, CA_RAW); }), CA_ETYPE);
  EXPECT_EQ(code_of([&] { elementwise_scalar(CA_OP_BITOR, arr(make(CA_INT32, {3}, 0), {{3}}), py_float(1.5), false); }),
            CA_ETYPE);
}

TEST(Elementwise, ProgramFormatRoundTripAndGarbage) {
  Npy x = make(CA_INT16, {7, 5}, 0), y = make(CA_FLOAT32, {5}, 1);
  ArrayPtr X = arr(x, ragged75()), Y = arr(y, {{5}});
  ArrayPtr r = elementwise_where(elementwise_binary(CA_OP_GT, X, Y), elementwise_unary(CA_OP_SIN, X),
                                 elementwise_scalar(CA_OP_POW, Y, py_float(2.0), false), {}, {});
  std::vector<ArrayPtr> leaves;
  ExprProgram p = compile_expr(r->expr, leaves);
  std::string bytes = p.serialize();
  ExprProgram q = ExprProgram::parse(bytes.data(), bytes.size());
  EXPECT_EQ(q.serialize(), bytes);
  EXPECT_EQ(q.inputs, p.inputs);
  auto code_of = [](const std::string &s) -> ca_status_t {
    try {
      ExprProgram::parse(s.data(), s.size());
    } catch (const Error &e) {
      return e.code();
    }
    return CA_OK;
  };
  EXPECT_EQ(code_of(""), CA_EFORMAT);
  EXPECT_EQ(code_of("garbage garbage garbage garbage"), CA_EFORMAT);
  EXPECT_EQ(code_of(bytes.substr(0, bytes.size() - 1)), CA_EFORMAT);
  EXPECT_EQ(code_of(bytes + "x"), CA_EFORMAT);
  // A register read before it is defined, an unknown op, a bad dtype.
  {
    ExprProgram bad = p;
    bad.code[0].a = int32_t(bad.inputs.size() + 3);
    if (bad.code[0].op == kOpConst) bad.code[0].op = CA_OP_NEG;
    EXPECT_EQ(code_of(bad.serialize()), CA_EFORMAT);
    bad = p;
    bad.code.back().op = 777;
    EXPECT_EQ(code_of(bad.serialize()), CA_EFORMAT);
    bad = p;
    bad.inputs[0] = 99;
    EXPECT_EQ(code_of(bad.serialize()), CA_EFORMAT);
  }
  // Random corruption never crashes: parse fails cleanly, or the program evaluates or fails cleanly.
  std::mt19937 rng(42);
  std::vector<Block *> blocks;
  for (size_t k = 0; k < leaves.size(); ++k) {
    int64_t shape[2] = {3, 5};
    Block *b = block_new(leaves[k]->dtype, leaves[k]->ndim() == 2 ? 2 : 1, leaves[k]->ndim() == 2 ? shape : shape + 1, true);
    blocks.push_back(b);
  }
  int parsed = 0;
  for (int it = 0; it < 3000; ++it) {
    std::string m = bytes;
    int flips = 1 + int(rng() % 4);
    for (int f = 0; f < flips; ++f) m[rng() % m.size()] = char(rng() % 3 == 0 ? 0xff : rng() % 256);
    try {
      ExprProgram g = ExprProgram::parse(m.data(), m.size());
      ++parsed;
      Block *out = eval_program(g, blocks.data(), blocks.size());
      block_release(out);
    } catch (const Error &) {
    }
  }
  for (Block *b : blocks) block_release(b);
  EXPECT_GT(parsed, 0);
}

TEST(Elementwise, FusedKernelDirectly) {
  // ca.fused through the registry: program bytes, then blocks; an identity program returns its input.
  KernelRegistry reg;
  register_builtin_kernels(reg);
  KernelPtr k = reg.get("ca.fused");
  ExprProgram id;
  id.inputs = {CA_INT32};
  id.out = 0;
  std::string bytes = id.serialize();
  int64_t shape[1] = {4};
  BlockRef in(block_new(CA_INT32, 1, shape, true));
  ca_arg_t args[2] = {ca_arg_bytes(bytes.data(), bytes.size()), ca_arg_none()};
  args[1].kind = CA_ARG_BLOCK;
  args[1].u.block = in.get();
  ca_kernel_ctx_t kctx;
  BlockRef out(kernel_invoke(k.get(), args, 2, &kctx));
  EXPECT_EQ(out.get(), in.get());
  // Wrong dtype of the input block: a clean error.
  id.inputs = {CA_FLOAT64};
  bytes = id.serialize();
  args[0] = ca_arg_bytes(bytes.data(), bytes.size());
  EXPECT_THROW(kernel_invoke(k.get(), args, 2, &kctx), Error);
}

// ---- generated arrays fuse into expressions and reductions -------------------------------------------

TEST(Elementwise, GeneratorsFuseAndRegenerate) {
  const Chunks gc{{10, 1, 26}, {23}}, xc{{5, 32}, {7, 7, 9}};
  ArrayPtr r = random(CA_RANDOM_UNIFORM, 11, {37, 23}, gc, CA_FLOAT64, -1, 1);
  ASSERT_TRUE(r->gen);
  Npy rn = ca::test::compute_npy(r);
  Npy x = make(CA_FLOAT64, {37, 23}, 3);
  ArrayPtr X = arr(x, xc);
  // r + X: r is generated inside the fused task on X's chunks, r's blocks are never computed.
  ArrayPtr s = elementwise_binary(CA_OP_ADD, r, X);
  EXPECT_EQ(s->chunks, X->chunks);
  EXPECT_EQ(s->graph->find(r->name), nullptr);
  EXPECT_EQ(s->graph->find(s->name)->num_tasks(), s->nblocks());
  // x - x.mean(axis=0) and its std: r is regenerated in both the mean's chunks and the difference.
  ArrayPtr m = reduce(CA_RED_MEAN, r, {0}, false, 0, 0, 0);
  ArrayPtr d = elementwise_binary(CA_OP_SUB, r, m);
  ArrayPtr sd = reduce(CA_RED_STD, d, {0}, false, 0, 0, 0);
  EXPECT_EQ(sd->graph->find(r->name), nullptr);
  // Only r's shape fuses: ones(23) broadcast against X is read as blocks.
  ArrayPtr o = arange(0, 23, 1, Chunks{{20, 3}}, CA_FLOAT64);
  ArrayPtr b = elementwise_binary(CA_OP_MUL, X, o);
  {  // o is read as blocks, regenerated on the unified column chunks (no rechunk of its data)
    bool regen = false;
    for (auto &l : b->graph->layers()) regen |= l->name().rfind("rechunk-gen-", 0) == 0;
    EXPECT_TRUE(regen);
  }
  // Generators alone: ((ones + 1) * r).sum() and cumsum over a generated expression.
  ArrayPtr one = ones({37, 23}, xc, CA_INT32);
  ArrayPtr t = reduce(CA_RED_SUM, elementwise_binary(CA_OP_MUL, elementwise_scalar(CA_OP_ADD, one, py_int(1), false), r),
                      {}, false, 0, 0, 0);
  EXPECT_EQ(t->graph->find(one->name), nullptr);
  ArrayPtr cs = scan(CA_SCAN_CUMSUM, elementwise_scalar(CA_OP_MUL, r, py_float(2.0), false), 0, 0);
  ArrayPtr ar = arange(3, 40, 1, Chunks{{4, 30, 3}}, CA_INT16);
  ArrayPtr lin = linspace(0, 1, 37, true, Chunks{{37}}, CA_FLOAT32);
  ArrayPtr al = elementwise_binary(CA_OP_ADD, elementwise_scalar(CA_OP_MUL, ar, py_int(3), false), lin);
  ArrayPtr alsum = reduce(CA_RED_SUM, al, {}, true, 0, 0, 0);
  auto want = run_numpy_many(
      "m = r.mean(axis=0)\n"
      "ar = np.arange(3, 40, 1, dtype=np.int16)\n"
      "lin = np.linspace(0, 1, 37, endpoint=True, dtype=np.float32)\n"
      "al = ar * 3 + lin\n"
      "results = [r + x, m, r - m, (r - m).std(axis=0), x * np.arange(23.0), ((np.ones((37, 23), np.int32) + 1) * r).sum(),\n"
      "           np.cumsum(r * 2.0, axis=0), al, al.sum(keepdims=True)]",
      {{"r", rn}, {"x", x}}, 9);
  compare(ca::test::compute_npy(s), *want[0], "r + x");
  compare(ca::test::compute_npy(m), *want[1], "mean", true);
  compare(ca::test::compute_npy(d), *want[2], "r - mean", true);
  compare(ca::test::compute_npy(sd), *want[3], "std", true);
  compare(ca::test::compute_npy(b), *want[4], "x * arange");
  compare(ca::test::compute_npy(t), *want[5], "sum", true);
  compare(ca::test::compute_npy(cs), *want[6], "cumsum", true);
  compare(ca::test::compute_npy(al), *want[7], "arange*3 + linspace");
  compare(ca::test::compute_npy(alsum), *want[8], "sum of it", true);
  // Rechunking a generated array, or an expression over generated arrays only, moves no data.
  const Chunks rc{{37}, {2, 20, 1}};
  ArrayPtr rr = rechunk(r, rc);
  EXPECT_EQ(rr->chunks, rc);
  EXPECT_EQ(rr->graph->layers().size(), 1u);
  EXPECT_EQ(ca::test::compute_npy(rr).data, rn.data);
  ArrayPtr e2 = elementwise_binary(CA_OP_ADD, elementwise_scalar(CA_OP_MUL, r, py_float(2.0), false), one);
  ArrayPtr e2r = rechunk(e2, rc);
  EXPECT_EQ(e2r->chunks, rc);
  EXPECT_EQ(e2r->graph->layers().size(), 1u);
  EXPECT_EQ(ca::test::compute_npy(e2r).data, ca::test::compute_npy(e2).data);
  ArrayPtr e3 = elementwise_scalar(CA_OP_SUB, e2r, py_int(1), false);  // keeps fusing on the new grid
  EXPECT_EQ(e3->chunks, rc);
  // An expression with a non-generated leaf rechunks its blocks as usual.
  EXPECT_EQ(rechunk_generated(s, rc), nullptr);
  // 0-d and empty generated arrays.
  ArrayPtr z0 = full({}, Chunks{}, CA_COMPLEX128, {1.5, -2});
  auto w0 = run_numpy_many("results = [np.full((), 1.5 - 2j) * 2, np.zeros((0, 3)) + 1]", {}, 2);
  compare(ca::test::compute_npy(elementwise_scalar(CA_OP_MUL, z0, py_int(2), false)), *w0[0], "0-d");
  compare(ca::test::compute_npy(elementwise_scalar(CA_OP_ADD, zeros({0, 3}, Chunks{{0}, {3}}, CA_FLOAT64), py_int(1), false)),
          *w0[1], "empty");
}

TEST(Elementwise, GeneratorProgramsRejectBadInput) {
  ArrayPtr r = random(CA_RANDOM_INTEGERS, 5, {4, 6}, Chunks{{4}, {6}}, CA_INT8, -3, 9);
  FusedArgs fa = fused_args(r);
  ASSERT_TRUE(fa.coords);
  ExprProgram p = ExprProgram::parse(fa.program.data(), fa.program.size());
  ASSERT_EQ(p.gshape, (std::vector<Index>{4, 6}));
  auto code_of = [](const ExprProgram &q) -> ca_status_t {
    try {
      std::string b = q.serialize();
      ExprProgram::parse(b.data(), b.size());
    } catch (const Error &e) {
      return e.code();
    }
    return CA_OK;
  };
  ExprProgram bad = p;
  bad.code[0].gen = 42;
  EXPECT_EQ(code_of(bad), CA_EFORMAT);
  bad = p;
  bad.code[0].dtype = bad.code[0].in_dtype = CA_FLOAT64;  // integers of a float dtype
  EXPECT_EQ(code_of(bad), CA_EFORMAT);
  bad = p;
  bad.coords = false;
  bad.gshape.clear();
  EXPECT_EQ(code_of(bad), CA_EFORMAT);
  // The kernel checks the block against the array: outside the array, wrong rank, no coordinates.
  KernelRegistry reg;
  register_builtin_kernels(reg);
  KernelPtr k = reg.get("ca.fused");
  ca_kernel_ctx_t kctx;
  int64_t org[2] = {2, 0}, shp[2] = {3, 6}, shp1[1] = {6};
  ca_arg_t args[3] = {ca_arg_bytes(fa.program.data(), fa.program.size()), ca_arg_tuple(org, 2), ca_arg_tuple(shp, 2)};
  EXPECT_THROW(kernel_invoke(k.get(), args, 3, &kctx), Error);
  args[2] = ca_arg_tuple(shp1, 1);
  EXPECT_THROW(kernel_invoke(k.get(), args, 3, &kctx), Error);
  EXPECT_THROW(kernel_invoke(k.get(), args, 1, &kctx), Error);
  org[0] = 1;
  args[2] = ca_arg_tuple(shp, 2);
  BlockRef ok(kernel_invoke(k.get(), args, 3, &kctx));
  EXPECT_EQ(ok->size, 18);
}

// ---- many tiles per block: the interpreter's tile loop, at every ISA level --------------------------
// The NumPy comparisons above use blocks smaller than one tile (512 elements). Here each block spans
// several tiles plus a remainder, with inputs read in place (one borrowed at an address that is not
// 64-byte aligned, which places the register tiles), gathered per tile (broadcast rows and columns)
// and invariant (size 1), and enough live registers to use several tile slots; results against
// plain loops. The `elementwise_baseline` and `elementwise_avx2` tests run this file again with
// CA_DISABLE_CPU_FEATURES=avx2 and =avx512.

TEST(Elementwise, InstructionIsaFollowsCpuAndEnvironment) {
  const char *env = std::getenv("CA_DISABLE_CPU_FEATURES");
  const bool disabled = env && std::strstr(env, "avx2") != nullptr;
  const bool no512 = disabled || (env && std::strstr(env, "avx512") != nullptr);
  instr::Isa want = instr::Isa::Baseline;
#if CA_INSTR_HAVE_AVX2
  if (!disabled && __builtin_cpu_supports("avx2")) want = instr::Isa::Avx2;
  if (!no512 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
    want = instr::Isa::Avx512;
#endif
  EXPECT_EQ(instr::active_isa(), want) << "running " << instr::isa_name(instr::active_isa()) << ", expected "
                                       << instr::isa_name(want);
  RecordProperty("fused_isa", instr::isa_name(instr::active_isa()));
  if (disabled) {
    EXPECT_EQ(instr::active_isa(), instr::Isa::Baseline);
  }
}

namespace {

constexpr Index kRows = 3, kCols = 1300;  // blocks of 2 x 1300 and 1 x 1300: 5 tiles + a remainder

template <class T>
std::vector<T> computed(const ArrayPtr &a) {
  Npy n = ca::test::compute_npy(a);
  EXPECT_EQ(n.dtype, dtype_of<T>());
  std::vector<T> v(size_t(n.size()));
  if (!v.empty()) std::memcpy(v.data(), n.data.data(), n.data.size());
  return v;
}

}  // namespace

TEST(Elementwise, ManyTilesPerBlockVsLoops) {
  const Chunks grid = {{2, 1}, {kCols}};
  const Index n = kRows * kCols;
  // a: float64 (3, 1300), borrowed one element past a 64-byte boundary.
  std::vector<double> abuf(static_cast<size_t>(n) + 1);
  double *a = abuf.data() + 1;
  for (Index i = 0; i < n; ++i) a[i] = double((i * 37) % 101) * 0.25 - 12.0;
  std::vector<double> row(kCols), col(kRows), one = {3.5};
  for (Index j = 0; j < kCols; ++j) row[size_t(j)] = double((j * 13) % 17) - 8.5;
  for (Index i = 0; i < kRows; ++i) col[size_t(i)] = double(i) * 2.0 - 1.0;
  ArrayPtr A = from_buffer(a, CA_FLOAT64, {kRows, kCols}, nullptr, grid, true, nullptr, nullptr);
  ArrayPtr R = from_buffer(row.data(), CA_FLOAT64, {kCols}, nullptr, {{kCols}}, false, nullptr, nullptr);
  ArrayPtr C = from_buffer(col.data(), CA_FLOAT64, {kRows, 1}, nullptr, {{2, 1}, {1}}, false, nullptr, nullptr);
  ArrayPtr S = from_buffer(one.data(), CA_FLOAT64, {1, 1}, nullptr, {{1}, {1}}, false, nullptr, nullptr);

  // e = ((a + 1.5) * row - col) / 2 + maximum(a, col) * s: five registers live at once.
  ArrayPtr t1 = elementwise_scalar(CA_OP_ADD, A, py_float(1.5), false);
  ArrayPtr t2 = elementwise_binary(CA_OP_SUB, elementwise_binary(CA_OP_MUL, t1, R), C);
  ArrayPtr t3 = elementwise_scalar(CA_OP_DIV, t2, py_float(2.0), false);
  ArrayPtr e = elementwise_binary(CA_OP_ADD, t3, elementwise_binary(CA_OP_MUL, elementwise_binary(CA_OP_MAXIMUM, A, C), S));
  std::vector<double> want(static_cast<size_t>(n));
  for (Index i = 0; i < kRows; ++i)
    for (Index j = 0; j < kCols; ++j) {
      const double x = a[i * kCols + j], c = col[size_t(i)];
      want[size_t(i * kCols + j)] = ((x + 1.5) * row[size_t(j)] - c) / 2.0 + (x > c ? x : c) * 3.5;
    }
  std::vector<double> got = computed<double>(e);
  ASSERT_EQ(got.size(), want.size());
  for (Index k = 0; k < n; ++k) {
    ASSERT_DOUBLE_EQ(got[size_t(k)], want[size_t(k)]) << "element " << k;
  }

  // The fused reduction (tiles into the sum): all axes and along the rows.
  std::vector<double> s_all = computed<double>(reduce(CA_RED_SUM, e, {}, false, 0, 0, 0));
  std::vector<double> s_ax1 = computed<double>(reduce(CA_RED_SUM, e, {1}, false, 0, 0, 0));
  double total = 0;
  for (Index i = 0; i < kRows; ++i) {
    double r = 0;
    for (Index j = 0; j < kCols; ++j) r += want[size_t(i * kCols + j)];
    EXPECT_NEAR(s_ax1[size_t(i)], r, 1e-12 * std::max(1.0, std::fabs(r))) << "row " << i;
    total += r;
  }
  EXPECT_NEAR(s_all[0], total, 1e-12 * std::max(1.0, std::fabs(total)));

  // float32: a * 3 - row (computed in float32, like NumPy).
  std::vector<float> a32(static_cast<size_t>(n)), row32(kCols);
  for (Index k = 0; k < n; ++k) a32[size_t(k)] = float(a[k]) * 0.5f;
  for (Index j = 0; j < kCols; ++j) row32[size_t(j)] = float(row[size_t(j)]);
  ArrayPtr A32 = from_buffer(a32.data(), CA_FLOAT32, {kRows, kCols}, nullptr, grid, false, nullptr, nullptr);
  ArrayPtr R32 = from_buffer(row32.data(), CA_FLOAT32, {kCols}, nullptr, {{kCols}}, false, nullptr, nullptr);
  std::vector<float> g32 = computed<float>(
      elementwise_binary(CA_OP_SUB, elementwise_binary(CA_OP_MUL, A32, elementwise_astype(S, CA_FLOAT32)), R32));
  for (Index k = 0; k < n; ++k) {
    ASSERT_EQ(g32[size_t(k)], a32[size_t(k)] * 3.5f - row32[size_t(k % kCols)]) << k;
  }
  // One instruction over an input read in place (the whole block in one call of its function, not
  // tile by tile): float32 log2 of |a| + 1 computed first, within 2 ULP of the long-double value.
  std::vector<float> p32(static_cast<size_t>(n));
  for (Index k = 0; k < n; ++k) p32[size_t(k)] = std::fabs(a32[size_t(k)]) + 1.0f + float(k) * 1e-3f;
  ArrayPtr P32 = from_buffer(p32.data(), CA_FLOAT32, {kRows, kCols}, nullptr, grid, false, nullptr, nullptr);
  std::vector<float> l32 = computed<float>(elementwise_unary(CA_OP_LOG2, P32));
  for (Index k = 0; k < n; ++k) {
    const long double w = log2l(p32[size_t(k)]);
    ASSERT_LE(std::fabs(double(l32[size_t(k)] - w)), 2.0 * std::ldexp(1.0, std::ilogb(double(w)) - 23)) << k;
  }

  // int8 wraps (NumPy's modular arithmetic), uint8, int32 and int64 with integer scalars and %.
  std::vector<int8_t> i8(static_cast<size_t>(n));
  std::vector<uint8_t> u8(static_cast<size_t>(n));
  std::vector<int32_t> i32(static_cast<size_t>(n));
  std::vector<int64_t> i64(static_cast<size_t>(n));
  for (Index k = 0; k < n; ++k) {
    i8[size_t(k)] = int8_t(k * 7 - 100);
    u8[size_t(k)] = uint8_t(k * 5);
    i32[size_t(k)] = int32_t(k * 7919 - 5000000);
    i64[size_t(k)] = int64_t(k) * 1000003 - 777;
  }
  ArrayPtr I8 = from_buffer(i8.data(), CA_INT8, {kRows, kCols}, nullptr, grid, false, nullptr, nullptr);
  ArrayPtr U8 = from_buffer(u8.data(), CA_UINT8, {kRows, kCols}, nullptr, grid, false, nullptr, nullptr);
  ArrayPtr I32 = from_buffer(i32.data(), CA_INT32, {kRows, kCols}, nullptr, grid, false, nullptr, nullptr);
  ArrayPtr I64 = from_buffer(i64.data(), CA_INT64, {kRows, kCols}, nullptr, grid, false, nullptr, nullptr);
  std::vector<int8_t> g8 = computed<int8_t>(elementwise_binary(CA_OP_ADD, elementwise_binary(CA_OP_MUL, I8, I8), I8));
  std::vector<uint8_t> gu8 = computed<uint8_t>(elementwise_binary(CA_OP_SUB, U8, elementwise_binary(CA_OP_MUL, U8, U8)));
  std::vector<int32_t> g32i = computed<int32_t>(elementwise_binary(CA_OP_MUL, I32, I32));
  std::vector<int64_t> g64 = computed<int64_t>(
      elementwise_scalar(CA_OP_MOD, elementwise_scalar(CA_OP_MUL, I64, py_int(3), false), py_int(1009), false));
  for (Index k = 0; k < n; ++k) {
    const size_t q = size_t(k);
    ASSERT_EQ(g8[q], int8_t(uint8_t(uint8_t(i8[q]) * uint8_t(i8[q]) + uint8_t(i8[q])))) << k;
    ASSERT_EQ(gu8[q], uint8_t(u8[q] - uint8_t(u8[q] * u8[q]))) << k;
    ASSERT_EQ(g32i[q], int32_t(uint32_t(i32[q]) * uint32_t(i32[q]))) << k;
    const int64_t m = (i64[q] * 3) % 1009;
    ASSERT_EQ(g64[q], m < 0 ? m + 1009 : m) << k;  // Python's modulo: the divisor's sign
  }

  // complex128 and bool: z * z + a, (a > row) & (a < col + 10).
  std::vector<std::complex<double>> z(static_cast<size_t>(n));
  for (Index k = 0; k < n; ++k) z[size_t(k)] = {a[k], double(k % 7) - 3.0};
  ArrayPtr Z = from_buffer(z.data(), CA_COMPLEX128, {kRows, kCols}, nullptr, grid, false, nullptr, nullptr);
  std::vector<std::complex<double>> gz =
      computed<std::complex<double>>(elementwise_binary(CA_OP_ADD, elementwise_binary(CA_OP_MUL, Z, Z), A));
  ArrayPtr mask = elementwise_binary(CA_OP_AND, elementwise_binary(CA_OP_GT, A, R),
                                     elementwise_binary(CA_OP_LT, A, elementwise_scalar(CA_OP_ADD, C, py_float(10), false)));
  std::vector<bool> wantb(static_cast<size_t>(n));
  std::vector<uint8_t> gb(static_cast<size_t>(n));
  {
    Npy nb = ca::test::compute_npy(mask);
    ASSERT_EQ(nb.dtype, CA_BOOL);
    ASSERT_EQ(nb.data.size(), size_t(n));
    std::memcpy(gb.data(), nb.data.data(), size_t(n));
  }
  for (Index i = 0; i < kRows; ++i)
    for (Index j = 0; j < kCols; ++j) {
      const size_t q = size_t(i * kCols + j);
      const std::complex<double> w = z[q] * z[q] + a[q];
      ASSERT_EQ(gz[q], w) << q;
      ASSERT_EQ(gb[q] != 0, a[q] > row[size_t(j)] && a[q] < col[size_t(i)] + 10) << q;
    }
}

// The array API standard's promotion (elementwise_binary_std / elementwise_scalar_std): mixed integer
// signedness promotes to the signed type holding both, values against a plain loop; the mixes the
// standard has no result for are refused; a Python scalar takes the array's dtype.
TEST(Elementwise, StdPromotionAndScalars) {
  Npy a8;
  a8.dtype = CA_INT8;
  a8.shape = {7};
  a8.data = {uint8_t(-128), uint8_t(-1), 0, 1, 5, 100, 127};
  Npy u8;
  u8.dtype = CA_UINT8;
  u8.shape = {7};
  u8.data = {255, 1, 0, 200, 7, 100, 128};
  ArrayPtr x = arr(a8, {{3, 4}}), y = arr(u8, {{2, 5}});
  ArrayPtr s = elementwise_binary_std(CA_OP_ADD, x, y);
  ASSERT_EQ(s->dtype, CA_INT16);
  Npy r = ca::test::compute_npy(s);
  for (size_t i = 0; i < 7; ++i) {
    int16_t g;
    std::memcpy(&g, r.data.data() + 2 * i, 2);
    EXPECT_EQ(g, int16_t(int8_t(a8.data[i]) + u8.data[i])) << i;
  }
  EXPECT_EQ(elementwise_binary_std(CA_OP_LT, x, y)->dtype, CA_BOOL);
  ArrayPtr f32 = full({7}, Chunks{{7}}, CA_FLOAT32, 1.5), b = full({7}, Chunks{{7}}, CA_BOOL, 1.0);
  ArrayPtr i64 = full({7}, Chunks{{7}}, CA_INT64, 1.0), u64 = full({7}, Chunks{{7}}, CA_UINT64, 1.0);
  ca::test::expect_error(CA_ETYPE, "int8 and float32", [&] { elementwise_binary_std(CA_OP_ADD, x, f32); });
  ca::test::expect_error(CA_ETYPE, "bool and int8", [&] { elementwise_binary_std(CA_OP_ADD, b, x); });
  ca::test::expect_error(CA_ETYPE, "int64 and uint64", [&] { elementwise_binary_std(CA_OP_MUL, i64, u64); });
  ca::test::expect_error(CA_ETYPE, "float16", [&] {
    elementwise_binary_std(CA_OP_ADD, full({7}, Chunks{{7}}, CA_FLOAT16, 1.0), f32);
  });
  // NumPy's value-based rule would make int8 + 200 int16; the standard keeps int8, and 200 does not fit
  ca_scalar_t one{};
  one.kind = CA_INT64;
  one.i64 = 1;
  one.re = 1;
  ArrayPtr xs = elementwise_scalar_std(CA_OP_ADD, x, one, false);
  EXPECT_EQ(xs->dtype, CA_INT8);
  Npy rs = ca::test::compute_npy(xs);
  for (size_t i = 0; i < 7; ++i) EXPECT_EQ(int8_t(rs.data[i]), int8_t(int8_t(a8.data[i]) + 1)) << i;
  ca_scalar_t big = one;
  big.i64 = 200;
  ca::test::expect_error(CA_EINVAL, "200 is out of bounds for int8", [&] { elementwise_scalar_std(CA_OP_ADD, x, big, true); });
  EXPECT_EQ(elementwise_scalar_std(CA_OP_ADD, y, big, true)->dtype, CA_UINT8);
  ca_scalar_t neg = one;
  neg.i64 = -1;
  ca::test::expect_error(CA_EINVAL, "-1 is out of bounds for uint8", [&] { elementwise_scalar_std(CA_OP_SUB, y, neg, false); });
  ca_scalar_t umax{};
  umax.kind = CA_UINT64;
  umax.i64 = -1;  // 2**64 - 1
  umax.re = 18446744073709551615.0;
  Npy ru = ca::test::compute_npy(elementwise_scalar_std(CA_OP_BITAND, u64, umax, false));
  uint64_t g0;
  std::memcpy(&g0, ru.data.data(), 8);
  EXPECT_EQ(g0, 1u);
  ca::test::expect_error(CA_EINVAL, "out of bounds for int64", [&] { elementwise_scalar_std(CA_OP_ADD, i64, umax, false); });
  ca_scalar_t half{};
  half.kind = CA_FLOAT64;
  half.re = 0.25;
  ArrayPtr fh = elementwise_scalar_std(CA_OP_MUL, f32, half, false);
  EXPECT_EQ(fh->dtype, CA_FLOAT32);  // NumPy 1.x agrees here; float64 array + float scalar stays float64 too
  ca::test::expect_error(CA_ETYPE, "float scalar does not combine with an array of dtype int8",
                         [&] { elementwise_scalar_std(CA_OP_ADD, x, half, false); });
  EXPECT_EQ(elementwise_scalar_std(CA_OP_ADD, f32, one, false)->dtype, CA_FLOAT32);  // int scalar, float array
  ca_scalar_t t{};
  t.kind = CA_BOOL;
  t.i64 = 1;
  EXPECT_EQ(elementwise_scalar_std(CA_OP_AND, b, t, false)->dtype, CA_BOOL);
  ca::test::expect_error(CA_ETYPE, "bool scalar", [&] { elementwise_scalar_std(CA_OP_ADD, x, t, false); });
  ca::test::expect_error(CA_ETYPE, "int scalar", [&] { elementwise_scalar_std(CA_OP_EQ, b, one, false); });
  // a typed scalar is an operand of its dtype: int16 scalar with int8 array is int16; float32 with int8 is refused
  ca_scalar_t i16 = one;
  i16.kind = CA_INT16;
  i16.flags = CA_SCALAR_TYPED;
  EXPECT_EQ(elementwise_scalar_std(CA_OP_ADD, x, i16, false)->dtype, CA_INT16);
  ca_scalar_t tf = half;
  tf.kind = CA_FLOAT32;
  tf.flags = CA_SCALAR_TYPED;
  ca::test::expect_error(CA_ETYPE, "int8 and float32", [&] { elementwise_scalar_std(CA_OP_ADD, x, tf, false); });
}

TEST(Elementwise, StdOperationCategories) {
  // numpy.array_api's operand checks, in the C library: each operation takes only its dtype category.
  auto f = [](ca_dtype_t dt) { return full({4}, Chunks{{2, 2}}, dt, 1.0); };
  ArrayPtr i32 = f(CA_INT32), f64 = f(CA_FLOAT64), b = f(CA_BOOL), c128 = f(CA_COMPLEX128);
  ca::test::expect_error(CA_ETYPE, "takes floating-point dtypes under the array API standard, not int32",
                         [&] { elementwise_binary_std(CA_OP_DIV, i32, i32); });
  EXPECT_EQ(elementwise_binary_std(CA_OP_DIV, f64, f64)->dtype, CA_FLOAT64);
  EXPECT_EQ(elementwise_binary_std(CA_OP_DIV, c128, c128)->dtype, CA_COMPLEX128);
  ca::test::expect_error(CA_ETYPE, "takes integer or boolean dtypes under the array API standard, not float64",
                         [&] { elementwise_binary_std(CA_OP_BITAND, f64, f64); });
  EXPECT_EQ(elementwise_binary_std(CA_OP_BITAND, b, b)->dtype, CA_BOOL);
  ca::test::expect_error(CA_ETYPE, "takes integer dtypes under the array API standard, not bool",
                         [&] { elementwise_binary_std(CA_OP_LEFT_SHIFT, b, b); });
  ca::test::expect_error(CA_ETYPE, "takes boolean dtypes under the array API standard, not int32",
                         [&] { elementwise_binary_std(CA_OP_AND, i32, i32); });
  ca::test::expect_error(CA_ETYPE, "takes real numeric dtypes under the array API standard, not complex128",
                         [&] { elementwise_binary_std(CA_OP_LT, c128, c128); });
  ca::test::expect_error(CA_ETYPE, "takes numeric dtypes under the array API standard, not bool",
                         [&] { elementwise_binary_std(CA_OP_ADD, b, b); });
  ca::test::expect_error(CA_ETYPE, "takes real floating-point dtypes under the array API standard, not int32",
                         [&] { elementwise_binary_std(CA_OP_ARCTAN2, i32, i32); });
  EXPECT_EQ(elementwise_binary_std(CA_OP_EQ, b, b)->dtype, CA_BOOL);  // equality takes every dtype
  ca_scalar_t two{};
  two.kind = CA_INT64;
  two.i64 = 2;
  two.re = 2;
  ca::test::expect_error(CA_ETYPE, "takes floating-point dtypes under the array API standard, not int32",
                         [&] { elementwise_scalar_std(CA_OP_DIV, i32, two, false); });
  EXPECT_EQ(elementwise_scalar_std(CA_OP_DIV, f64, two, true)->dtype, CA_FLOAT64);
}

// compute_into's single-block path (a fused layer over data blocks, evaluated without the graph merge,
// plan and executor) gives what the executor gives: 0-d, empty, size-1 broadcasting, generators mixed
// with data, several dtypes; a context whose `ca.fused` is not the builtin kernel is not bypassed.
TEST(Elementwise, SingleBlockPathMatchesExecutor) {
  auto both = [](const ArrayPtr &a) {
    std::vector<uint8_t> fast(size_t(a->nbytes())), slow(size_t(a->nbytes()));
    RunOptions ro;
    compute_into(ca::test::Runtime::get().ex, ca::test::Runtime::get().reg, {a}, {fast.data()}, ro);
    std::atomic<bool> never{false};
    RunOptions rs;
    rs.cancel = &never;  // a cancellable run takes the executor
    compute_into(ca::test::Runtime::get().ex, ca::test::Runtime::get().reg, {a}, {slow.data()}, rs);
    EXPECT_EQ(fast, slow) << a->name;
    return fast;
  };
  std::vector<double> v(12);
  for (size_t i = 0; i < v.size(); ++i) v[i] = double(i) * 0.5 - 2;
  Npy n = ca::test::npy_of(CA_FLOAT64, {3, 4}, v.data());
  ArrayPtr x = arr(n, {{3}, {4}});
  ca_scalar_t one{};
  one.kind = CA_FLOAT64;
  one.re = 1.0;
  std::vector<uint8_t> r = both(elementwise_scalar(CA_OP_ADD, x, one, false));
  for (size_t i = 0; i < v.size(); ++i) {
    double g;
    std::memcpy(&g, r.data() + 8 * i, 8);
    EXPECT_EQ(g, v[i] + 1.0);
  }
  Npy row = ca::test::npy_of(CA_FLOAT64, {1, 4}, v.data());
  both(elementwise_binary(CA_OP_MUL, x, arr(row, {{1}, {4}})));                        // broadcasting
  both(elementwise_binary(CA_OP_SUB, x, full({3, 4}, Chunks{{3}, {4}}, CA_FLOAT64, 2.5)));  // a generator
  both(elementwise_unary(CA_OP_SQRT, elementwise_unary(CA_OP_ABS, x)));                  // a chain
  both(elementwise_astype(elementwise_scalar(CA_OP_GT, x, one, false), CA_INT32));
  Npy z = ca::test::npy_of(CA_INT64, {}, std::vector<int64_t>{-7}.data());
  std::vector<uint8_t> r0 = both(elementwise_unary(CA_OP_NEG, arr(z, {})));
  int64_t g0;
  std::memcpy(&g0, r0.data(), 8);
  EXPECT_EQ(g0, 7);
  Npy e = ca::test::npy_of(CA_FLOAT32, {0, 3}, nullptr);
  EXPECT_TRUE(both(elementwise_unary(CA_OP_EXP, arr(e, {{0}, {3}}))).empty());
  // a registry whose ca.fused is another kernel: its results, not the builtin's
  KernelRegistry own;
  register_builtin_kernels(own);
  own.add(kernel_new("ca.fused", [](ca_block_t **out, const ca_arg_t *, size_t, ca_kernel_ctx_t *, void *) -> ca_status_t {
            const int64_t shape[2] = {3, 4};
            ca_status_t st = ca_block_new_zeroed(out, CA_FLOAT64, 2, shape);
            return st;
          }, 1, nullptr, nullptr), true);
  Executor ex(0);
  std::vector<double> got(12, -1.0);
  compute_into(ex, own, {elementwise_scalar(CA_OP_ADD, x, one, false)}, {got.data()}, RunOptions{});
  EXPECT_EQ(got, std::vector<double>(12, 0.0));
}
