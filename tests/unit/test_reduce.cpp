// Reductions and scans (array/reduce.hpp) against NumPy: every op over dtype families, axes (None,
// single, several, negative), keepdims, ragged chunks, split_every and large trees, 0-d / empty /
// size-1 dims, NaNs, ddof, arg ties, fusion with elementwise expressions, scans, user-kernel
// reductions and errors. NumPy runs once per test over a batch of expressions.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "array/array.hpp"
#include "array/create.hpp"
#include "array/expr.hpp"
#include "array/reduce.hpp"
#include "exec/executor.hpp"
#include "kernel/kernel.hpp"
#include "numpy_ref.hpp"

namespace ca {
namespace {

using test::Npy;
using cd = std::complex<double>;

// ---- user kernels for the generic reduction: sum of squares over all axes of a 2-d array ----------

void collect(const ca_arg_t &a, std::vector<const ca_block_t *> &out) {
  if (a.kind == CA_ARG_LIST)
    for (size_t i = 0; i < a.u.list.len; ++i) collect(a.u.list.items[i], out);
  else if (a.kind == CA_ARG_BLOCK)
    out.push_back(a.u.block);
}

ca_block_t *scalar_block2d(double v) {
  int64_t shape[2] = {1, 1};
  Block *b = block_new(CA_FLOAT64, 2, shape);
  *static_cast<double *>(b->data) = v;
  return b;
}

ca_status_t k_sumsq_chunk(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *, void *) {
  if (nargs != 1 || args[0].kind != CA_ARG_BLOCK) return CA_EINVAL;
  const Block *b = args[0].u.block;
  const double *x = static_cast<const double *>(b->data);
  double s = 0;
  for (int64_t i = 0; i < b->size; ++i) s += x[i] * x[i];
  *out = scalar_block2d(s);
  return CA_OK;
}

ca_status_t k_sum_partials(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  if (nargs != 1 || args[0].kind != CA_ARG_LIST) {
    ca_kernel_set_error(kctx, "sum_partials takes one nested list");
    return CA_EINVAL;
  }
  // two reduced axes: lists nest two levels
  for (size_t i = 0; i < args[0].u.list.len; ++i)
    if (args[0].u.list.items[i].kind != CA_ARG_LIST) {
      ca_kernel_set_error(kctx, "expected a list of lists");
      return CA_EINVAL;
    }
  std::vector<const ca_block_t *> bs;
  collect(args[0], bs);
  double s = 0;
  for (auto *b : bs) s += *static_cast<const double *>(b->data);
  *out = scalar_block2d(s);
  return CA_OK;
}

// column sums (axis 0 of a 2-d float64 array): chunk keeps (1, n)
ca_status_t k_colsum_chunk(ca_block_t **out, const ca_arg_t *args, size_t, ca_kernel_ctx_t *, void *) {
  const Block *b = args[0].u.block;
  int64_t shape[2] = {1, b->shape[1]};
  Block *r = block_new(CA_FLOAT64, 2, shape, true);
  const double *x = static_cast<const double *>(b->data);
  double *o = static_cast<double *>(r->data);
  for (int64_t i = 0; i < b->shape[0]; ++i)
    for (int64_t j = 0; j < b->shape[1]; ++j) o[j] += x[i * b->shape[1] + j];
  *out = r;
  return CA_OK;
}

ca_status_t k_colsum_combine(ca_block_t **out, const ca_arg_t *args, size_t, ca_kernel_ctx_t *, void *) {
  std::vector<const ca_block_t *> bs;
  collect(args[0], bs);
  int64_t shape[2] = {1, bs[0]->shape[1]};
  Block *r = block_new(CA_FLOAT64, 2, shape, true);
  double *o = static_cast<double *>(r->data);
  for (auto *b : bs)
    for (int64_t j = 0; j < shape[1]; ++j) o[j] += static_cast<const double *>(b->data)[j];
  *out = r;
  return CA_OK;
}

// ---- computing -------------------------------------------------------------------------------------

KernelRegistry &registry() {
  static KernelRegistry *reg = [] {
    auto *r = new KernelRegistry;
    register_builtin_kernels(*r);
    register_reduce_kernels(*r);  // (also via builtins; explicit so the static archive member links)
    r->add(kernel_new("test.sumsq_chunk", k_sumsq_chunk, 1, nullptr, nullptr), true);
    r->add(kernel_new("test.sum_partials", k_sum_partials, 1, nullptr, nullptr), true);
    r->add(kernel_new("test.colsum_chunk", k_colsum_chunk, 1, nullptr, nullptr), true);
    r->add(kernel_new("test.colsum_combine", k_colsum_combine, 1, nullptr, nullptr), true);
    return r;
  }();
  return *reg;
}

Npy compute(const ArrayPtr &a) {
  static Executor ex(2);
  Npy out;
  out.dtype = a->dtype;
  out.shape = a->shape;
  out.data.resize(size_t(a->nbytes()));
  compute_into(ex, registry(), {a}, {out.data.data()}, RunOptions{});
  return out;
}

ArrayPtr make(const Npy &n, const Chunks &c) {
  return from_buffer(n.data.data(), n.dtype, n.shape, nullptr, c, false, nullptr, nullptr);
}

template <class T>
Npy npy_of(std::vector<Index> shape, const std::vector<T> &v) {
  Npy n;
  n.dtype = dtype_of<T>();
  n.shape = std::move(shape);
  n.data.resize(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(n.data.data(), v.data(), n.data.size());
  return n;
}

std::vector<cd> values(const Npy &n) {
  std::vector<cd> v;
  dispatch_dtype(n.dtype, [&](auto tt) {
    using T = typename decltype(tt)::type;
    const size_t count = n.data.size() / sizeof(T);
    for (size_t i = 0; i < count; ++i) {
      T x;
      std::memcpy(&x, n.data.data() + i * sizeof(T), sizeof(T));
      if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, cd>)
        v.emplace_back(double(x.real()), double(x.imag()));
      else
        v.emplace_back(double(x), 0.0);
    }
  });
  return v;
}

bool close(cd a, cd b, double rtol, double atol) {
  // NaNs compare equal (which NaN a complex min/max keeps depends on the visiting order)
  auto has_nan = [](cd z) { return std::isnan(z.real()) || std::isnan(z.imag()); };
  if (has_nan(a) || has_nan(b)) return has_nan(a) && has_nan(b);
  auto one = [&](double x, double y) {
    if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
    if (std::isinf(x) || std::isinf(y)) return x == y;
    return std::fabs(x - y) <= atol + rtol * std::fabs(y);
  };
  return one(a.real(), b.real()) && one(a.imag(), b.imag());
}

struct Case {
  std::string expr;                  // NumPy expression over the inputs
  std::function<ArrayPtr()> build;   // ours
  double rtol = 1e-9, atol = 1e-9;
};

// NumPy evaluates every expression in one run; a failing NumPy expression expects ours to fail too.
void run_cases(const std::vector<Case> &cases, const std::map<std::string, Npy> &inputs) {
  std::ostringstream py;
  py << "import numpy as np\nimport warnings\nwarnings.simplefilter('ignore')\n"
        "codes = {'bool':1,'int8':2,'int16':3,'int32':4,'int64':5,'uint8':6,'uint16':7,'uint32':8,"
        "'uint64':9,'float32':10,'float64':11,'complex64':12,'complex128':13}\n"
        "parts = []\nexprs = [\n";
  for (auto &c : cases) py << "  '" << c.expr << "',\n";
  py << "]\nfor expr_ in exprs:\n"
        "    try:\n"
        "        r_ = np.asarray(eval(expr_))\n"
        "        parts.append(np.array([0, codes[r_.dtype.name], r_.ndim] + list(r_.shape), dtype=np.complex128))\n"
        "        parts.append(r_.astype(np.complex128).ravel())\n"
        "    except Exception:\n"
        "        parts.append(np.array([1], dtype=np.complex128))\n"
        "result = np.concatenate(parts)\n";
  Npy ref = test::run_numpy(py.str(), inputs);
  std::vector<cd> rv = values(ref);
  size_t pos = 0;
  int failures = 0;
  for (auto &c : cases) {
    ASSERT_LT(pos, rv.size()) << c.expr;
    const bool np_err = rv[pos++].real() != 0;
    Npy got;
    std::string err;
    try {
      got = compute(c.build());
    } catch (const Error &e) {
      err = e.message();
    }
    if (np_err) {
      EXPECT_FALSE(err.empty()) << c.expr << ": NumPy fails, ours did not";
      continue;
    }
    const DType want_dt = DType(rv[pos++].real());
    const size_t nd = size_t(rv[pos++].real());
    std::vector<Index> want_shape;
    for (size_t d = 0; d < nd; ++d) want_shape.push_back(Index(rv[pos++].real()));
    Index count = 1;
    for (Index s : want_shape) count *= s;
    std::vector<cd> want(rv.begin() + std::ptrdiff_t(pos), rv.begin() + std::ptrdiff_t(pos + size_t(count)));
    pos += size_t(count);
    if (!err.empty()) {
      ADD_FAILURE() << c.expr << ": ours failed: " << err;
      if (++failures > 20) return;
      continue;
    }
    EXPECT_EQ(got.dtype, want_dt) << c.expr;
    EXPECT_EQ(got.shape, want_shape) << c.expr;
    std::vector<cd> gv = values(got);
    if (gv.size() != want.size()) {
      ADD_FAILURE() << c.expr << ": " << gv.size() << " values, want " << want.size();
      continue;
    }
    for (size_t i = 0; i < gv.size(); ++i)
      if (!close(gv[i], want[i], c.rtol, c.atol)) {
        ADD_FAILURE() << c.expr << " [" << i << "]: got " << gv[i] << ", want " << want[i];
        if (++failures > 20) return;
        break;
      }
  }
  EXPECT_EQ(pos, rv.size());
}

const char *kOpNames[] = {"",        "sum",    "prod",      "mean",     "var",       "std",    "min",
                          "max",     "argmin", "argmax",    "any",      "all",       "nansum", "nanprod",
                          "nanmean", "nanvar", "nanstd",    "nanmin",   "nanmax",    "nanargmin",
                          "nanargmax"};

bool arg_op(int32_t op) { return op == 8 || op == 9 || op == 19 || op == 20; }

std::string axes_py(const std::vector<int32_t> &axes) {
  if (axes.empty()) return "None";
  if (axes.size() == 1) return std::to_string(axes[0]);
  std::string s = "(";
  for (int32_t a : axes) s += std::to_string(a) + ",";
  return s + ")";
}

// Deterministic data for the (7, 5, 3) inputs.
uint64_t lcg(uint64_t &s) {
  s = s * 6364136223846793005ULL + 1442695040888963407ULL;
  return s >> 33;
}

std::map<std::string, Npy> family_inputs(const std::vector<Index> &shape) {
  Index n = 1;
  for (Index s : shape) n *= s;
  uint64_t s = 42;
  std::vector<bool> vb;
  std::vector<uint8_t> b;
  std::vector<int8_t> i8;
  std::vector<int32_t> i32;
  std::vector<int64_t> i64;
  std::vector<uint16_t> u16;
  std::vector<float> f32;
  std::vector<double> f64;
  std::vector<std::complex<float>> c64;
  std::vector<cd> c128;
  for (Index i = 0; i < n; ++i) {
    uint64_t r = lcg(s);
    b.push_back(r % 5 != 0);
    // products stay small: mostly +-1, a few 2s, a few 0s
    int v = int(r % 11) == 0 ? 2 : (r % 7 == 0 ? 0 : (r % 2 ? 1 : -1));
    i8.push_back(int8_t(v * (r % 13 == 1 ? 3 : 1)));
    i32.push_back(int32_t(v));
    i64.push_back(int64_t(r % 3 == 0 ? 1 : v));
    u16.push_back(uint16_t(r % 3 == 0 ? 2 : 1));
    double f = 0.5 + double(lcg(s) % 1000) / 1000.0;  // [0.5, 1.5): products stay finite
    bool nan = i % 7 == 3;                             // at most one NaN per slice along any axis
    f32.push_back(nan ? NAN : float(f));
    f64.push_back(nan ? NAN : f + 1e3);  // a large mean: var must be stable
    double g = 0.5 + double(lcg(s) % 1000) / 1000.0;
    c64.emplace_back(float(f), nan ? NAN : float(g));
    c128.emplace_back(i % 4 == 0 ? 1.0 : f, g);  // ties in the real part
  }
  std::map<std::string, Npy> m;
  m["x_b"] = npy_of<uint8_t>(shape, b);
  m["x_b"].dtype = CA_BOOL;
  m["x_i8"] = npy_of(shape, i8);
  m["x_i32"] = npy_of(shape, i32);
  m["x_i64"] = npy_of(shape, i64);
  m["x_u16"] = npy_of(shape, u16);
  m["x_f32"] = npy_of(shape, f32);
  m["x_f64"] = npy_of(shape, f64);
  m["x_c64"] = npy_of(shape, c64);
  m["x_c128"] = npy_of(shape, c128);
  return m;
}

bool low_precision(DType t) { return t == CA_FLOAT32 || t == CA_COMPLEX64; }

// ---- tests -------------------------------------------------------------------------------------------

TEST(Reduce, AllOpsDtypesAxesRaggedChunks) {
  const std::vector<Index> shape{7, 5, 3};
  const Chunks chunks{{3, 4}, {2, 2, 1}, {3}};
  auto inputs = family_inputs(shape);
  std::map<std::string, ArrayPtr> arrays;
  for (auto &[name, n] : inputs) arrays[name] = make(n, chunks);
  const std::vector<std::vector<int32_t>> axes_list{{}, {0}, {1}, {2}, {-1}, {0, 2}, {-1, 1}, {0, 1, 2}};
  std::vector<Case> cases;
  for (auto &[name, arr] : arrays) {
    for (int32_t op = 1; op <= 20; ++op) {
      for (size_t ai = 0; ai < axes_list.size(); ++ai) {
        const auto &axes = axes_list[ai];
        if (arg_op(op) && axes.size() > 1) continue;
        const bool keepdims = ai % 3 == 1;
        const int32_t ddof = (op == 4 || op == 5 || op == 15 || op == 16) && ai % 2 ? 1 : 0;
        Case c;
        c.expr = str("np.", kOpNames[op], "(", name, ", axis=", axes_py(axes), ", keepdims=", keepdims ? "True" : "False",
                     ddof ? ", ddof=1" : "", ")");
        ArrayPtr a = arr;
        c.build = [=] { return reduce(op, a, axes, keepdims, 0, ddof, 0); };
        if (low_precision(arr->dtype)) c.rtol = c.atol = 2e-5;
        cases.push_back(std::move(c));
      }
    }
  }
  // requested dtypes and ddof
  ArrayPtr xi = arrays["x_i32"], xf = arrays["x_f64"], xf32 = arrays["x_f32"];
  cases.push_back({"np.sum(x_i32, axis=0, dtype=np.float32)", [=] { return reduce(CA_RED_SUM, xi, {0}, false, 0, 0, CA_FLOAT32); }, 1e-6, 1e-6});
  cases.push_back({"np.sum(x_i32, dtype=np.int8)", [=] { return reduce(CA_RED_SUM, xi, {}, false, 0, 0, CA_INT8); }});
  cases.push_back({"np.mean(x_i32, axis=1, dtype=np.float32)", [=] { return reduce(CA_RED_MEAN, xi, {1}, false, 0, 0, CA_FLOAT32); }, 1e-6, 1e-6});
  cases.push_back({"np.prod(x_f32, axis=2, dtype=np.float64)", [=] { return reduce(CA_RED_PROD, xf32, {2}, false, 0, 0, CA_FLOAT64); }, 1e-6, 1e-6});
  cases.push_back({"np.nanvar(x_f64, axis=0, ddof=2)", [=] { return reduce(CA_RED_NANVAR, xf, {0}, false, 0, 2, 0); }});
  cases.push_back({"np.nanstd(x_f64, axis=(0,1), ddof=5)", [=] { return reduce(CA_RED_NANSTD, xf, {0, 1}, false, 0, 5, 0); }});
  cases.push_back({"np.var(x_i32, axis=2, ddof=3)", [=] { return reduce(CA_RED_VAR, xi, {2}, false, 0, 3, 0); }});
  cases.push_back({"np.var(x_i32, axis=2, ddof=4)", [=] { return reduce(CA_RED_VAR, xi, {2}, false, 0, 4, 0); }});
  run_cases(cases, inputs);
}

TEST(Reduce, SplitEveryAndLargeTrees) {
  std::vector<double> v1(10000), v2(100 * 100);
  uint64_t s = 7;
  for (auto &x : v1) x = double(lcg(s) % 100000) / 1000.0 - 50;
  for (auto &x : v2) x = double(lcg(s) % 100000) / 1000.0 + 1e6;
  std::map<std::string, Npy> in{{"a", npy_of<double>({10000}, v1)}, {"b", npy_of<double>({100, 100}, v2)}};
  ArrayPtr a = make(in["a"], {blocks_of(10000, 10)});  // 1000 blocks
  ArrayPtr b = make(in["b"], {blocks_of(100, 3), blocks_of(100, 7)});
  EXPECT_EQ(a->nblocks(), 1000);
  std::vector<Case> cases;
  for (int32_t se : {0, 2, 3, 100, 2000}) {
    for (int32_t op : {CA_RED_SUM, CA_RED_MEAN, CA_RED_VAR, CA_RED_MIN, CA_RED_ARGMIN, CA_RED_ARGMAX}) {
      cases.push_back({str("np.", kOpNames[op], "(a)"), [=] { return reduce(op, a, {}, false, se, 0, 0); }});
      cases.push_back({str("np.", kOpNames[op], "(b)"), [=] { return reduce(op, b, {}, false, se, 0, 0); }, 1e-9, 1e-6});
      cases.push_back({str("np.", kOpNames[op], "(b, axis=0)"), [=] { return reduce(op, b, {0}, false, se, 0, 0); }, 1e-9, 1e-6});
      cases.push_back({str("np.", kOpNames[op], "(b, axis=1, keepdims=True)"),
                       [=] { return reduce(op, b, {1}, true, se, 0, 0); }, 1e-9, 1e-6});
    }
    cases.push_back({"np.std(b, axis=(0,1), keepdims=True)", [=] { return reduce(CA_RED_STD, b, {0, 1}, true, se, 0, 0); }, 1e-7, 1e-9});
  }
  run_cases(cases, in);
  // the tree really has levels: split_every 2 over 1000 blocks
  ArrayPtr r = reduce(CA_RED_SUM, a, {}, false, 2, 0, 0);
  int combines = 0;
  for (auto &l : r->graph->layers()) combines += l->name().find("-combine") != std::string::npos;
  EXPECT_EQ(combines, 9);  // 1000 -> 500 -> ... -> 2, then the aggregate
}

TEST(Reduce, ZeroDimEmptyAndSizeOne) {
  std::map<std::string, Npy> in{{"s", npy_of<double>({}, {2.5})},
                                {"e", npy_of<double>({0, 3}, {})},
                                {"ei", npy_of<int32_t>({4, 0}, {})},
                                {"o", npy_of<double>({1, 4, 1}, {1, -2, 3, 0.5})}};
  ArrayPtr s = make(in["s"], {});
  ArrayPtr e = make(in["e"], {{0}, {3}});
  ArrayPtr ei = make(in["ei"], {{2, 2}, {0}});
  ArrayPtr o = make(in["o"], {{1}, {3, 1}, {1}});
  std::vector<Case> cases;
  for (int32_t op = 1; op <= 20; ++op) {
    const std::string n = kOpNames[op];
    cases.push_back({str("np.", n, "(s)"), [=] { return reduce(op, s, {}, false, 0, 0, 0); }});
    cases.push_back({str("np.", n, "(s, keepdims=True)"), [=] { return reduce(op, s, {}, true, 0, 0, 0); }});
    cases.push_back({str("np.", n, "(e)"), [=] { return reduce(op, e, {}, false, 0, 0, 0); }});
    cases.push_back({str("np.", n, "(e, axis=0)"), [=] { return reduce(op, e, {0}, false, 0, 0, 0); }});
    cases.push_back({str("np.", n, "(e, axis=1)"), [=] { return reduce(op, e, {1}, false, 0, 0, 0); }});
    cases.push_back({str("np.", n, "(ei, axis=0, keepdims=True)"), [=] { return reduce(op, ei, {0}, true, 0, 0, 0); }});
    cases.push_back({str("np.", n, "(ei, axis=-1)"), [=] { return reduce(op, ei, {-1}, false, 0, 0, 0); }});
    cases.push_back({str("np.", n, "(o)"), [=] { return reduce(op, o, {}, false, 0, 0, 0); }});
    cases.push_back({str("np.", n, "(o, axis=1, keepdims=True)"), [=] { return reduce(op, o, {1}, true, 0, 0, 0); }});
    cases.push_back({str("np.", n, "(o, axis=2)"), [=] { return reduce(op, o, {2}, false, 0, 0, 0); }});
  }
  run_cases(cases, in);
  try {
    reduce(CA_RED_MIN, e, {0}, false, 0, 0, 0);
    ADD_FAILURE() << "min over an empty axis must fail";
  } catch (const Error &err) {
    EXPECT_EQ(err.code(), CA_EINVAL);
    EXPECT_EQ(err.message(), "zero-size array to reduction operation minimum which has no identity");
  }
}

TEST(Reduce, ArgTiesAndNaNs) {
  std::map<std::string, Npy> in{
      {"t", npy_of<int32_t>({8}, {3, 1, 1, 0, 0, 5, 5, 0})},
      {"u", npy_of<double>({3, 4}, {2, 0, 0, 1, 0, 2, 2, 0, 1, 1, 0, 2})},
      {"n", npy_of<double>({6}, {1, NAN, 0, NAN, -1, 2})},
      {"nn", npy_of<double>({2, 3}, {NAN, NAN, 1, NAN, 2, 3})},
      {"an", npy_of<double>({2, 2}, {NAN, 1, NAN, 2})}};
  ArrayPtr t = make(in["t"], {{1, 2, 2, 1, 2}});
  ArrayPtr u = make(in["u"], {{1, 2}, {1, 1, 2}});
  ArrayPtr n = make(in["n"], {{2, 2, 2}});
  ArrayPtr nn = make(in["nn"], {{1, 1}, {2, 1}});
  ArrayPtr an = make(in["an"], {{1, 1}, {1, 1}});
  std::vector<Case> cases;
  for (int32_t op : {CA_RED_ARGMIN, CA_RED_ARGMAX, CA_RED_NANARGMIN, CA_RED_NANARGMAX, CA_RED_MIN, CA_RED_MAX,
                     CA_RED_NANMIN, CA_RED_NANMAX, CA_RED_SUM, CA_RED_NANSUM, CA_RED_NANMEAN, CA_RED_NANVAR,
                     CA_RED_NANPROD}) {
    const std::string f = kOpNames[op];
    cases.push_back({str("np.", f, "(t)"), [=] { return reduce(op, t, {}, false, 2, 0, 0); }});
    cases.push_back({str("np.", f, "(u)"), [=] { return reduce(op, u, {}, false, 2, 0, 0); }});
    cases.push_back({str("np.", f, "(u, axis=0)"), [=] { return reduce(op, u, {0}, false, 2, 0, 0); }});
    cases.push_back({str("np.", f, "(u, axis=1)"), [=] { return reduce(op, u, {1}, false, 2, 0, 0); }});
    cases.push_back({str("np.", f, "(n)"), [=] { return reduce(op, n, {}, false, 2, 0, 0); }});
    cases.push_back({str("np.", f, "(nn, axis=1)"), [=] { return reduce(op, nn, {1}, false, 2, 0, 0); }});
    cases.push_back({str("np.", f, "(an, axis=0)"), [=] { return reduce(op, an, {0}, false, 2, 0, 0); }});  // all-NaN column
  }
  run_cases(cases, in);
  try {
    compute(reduce(CA_RED_NANARGMIN, an, {0}, false, 0, 0, 0));
    ADD_FAILURE() << "nanargmin of an all-NaN slice must fail";
  } catch (const Error &err) {
    EXPECT_NE(err.message().find("All-NaN slice encountered"), std::string::npos) << err.message();
  }
}

TEST(Reduce, FusedWithElementwise) {
  std::vector<double> v(100 * 80);
  uint64_t s = 3;
  for (auto &x : v) x = double(lcg(s) % 1000) / 100.0 - 5;
  std::map<std::string, Npy> in{{"x", npy_of<double>({100, 80}, v)}};
  ArrayPtr x = make(in["x"], {{30, 30, 30, 10}, {25, 25, 25, 5}});
  ca_scalar_t one{CA_INT64, 0, 1.0, 0.0, 1}, two{CA_INT64, 0, 2.0, 0.0, 2};
  ArrayPtr y = elementwise_scalar(CA_OP_MUL, elementwise_scalar(CA_OP_ADD, x, one, false), two, false);
  ASSERT_TRUE(y->expr);
  std::vector<Case> cases;
  cases.push_back({"((x + 1) * 2).sum()", [=] { return reduce(CA_RED_SUM, y, {}, false, 0, 0, 0); }});
  cases.push_back({"((x + 1) * 2).sum(axis=0)", [=] { return reduce(CA_RED_SUM, y, {0}, false, 0, 0, 0); }});
  cases.push_back({"((x + 1) * 2).mean(axis=1)", [=] { return reduce(CA_RED_MEAN, y, {1}, false, 0, 0, 0); }});
  cases.push_back({"((x + 1) * 2).std(axis=0)", [=] { return reduce(CA_RED_STD, y, {0}, false, 0, 0, 0); }});
  cases.push_back({"((x + 1) * 2).argmax()", [=] { return reduce(CA_RED_ARGMAX, y, {}, false, 0, 0, 0); }});
  cases.push_back({"((x + 1) * 2).argmin(axis=1)", [=] { return reduce(CA_RED_ARGMIN, y, {1}, false, 0, 0, 0); }});
  cases.push_back({"((x + 1) * 2 > 3).any(axis=0)",
                   [=] { return reduce(CA_RED_ANY, elementwise_scalar(CA_OP_GT, y, ca_scalar_t{CA_INT64, 0, 3, 0, 3}, false), {0}, false, 0, 0, 0); }});
  cases.push_back({"np.cumsum((x + 1) * 2, axis=0)", [=] { return scan(CA_SCAN_CUMSUM, y, 0, 0); }});
  run_cases(cases, in);
  // The plan: the chunk layer reads x's blocks directly; y's elementwise layer is not in the graph.
  ArrayPtr r = reduce(CA_RED_SUM, y, {}, false, 0, 0, 0);
  EXPECT_EQ(r->graph->find(y->name), nullptr);
  const Layer *chunk = nullptr;
  for (auto &l : r->graph->layers())
    if (l->kernel_names().size() == 1 && l->kernel_names()[0] == "ca.reduce_chunk") chunk = l.get();
  ASSERT_NE(chunk, nullptr);
  EXPECT_EQ(chunk->deps(), std::vector<std::string>{x->name});
  for (auto &l : r->graph->layers())
    for (auto &k : l->kernel_names()) EXPECT_NE(k, "ca.fused") << l->name();
}

// Reductions over leading axes of generated chunks take their tiles column segment by column
// segment (array/expr.hpp eval_program_tiles): the same values bit for bit as the C-order walk over
// the same values read from memory (the persisted array), for sum, mean, var/std (W7's x - mean),
// float64 and float32, rows longer than a tile, ragged chunks, 2-d and 3-d.
TEST(Reduce, GeneratedChunksByColumnSegmentsEqualCOrder) {
  static Executor ex(2);
  struct Shape {
    std::vector<Index> shape;
    Chunks chunks;
    std::vector<int32_t> axes;
  };
  const std::vector<Shape> shapes = {
      {{300, 1300}, {{70, 70, 70, 70, 20}, {1300}}, {0}},
      {{300, 1300}, {{100, 100, 100}, {700, 600}}, {0}},
      {{6, 5, 1100}, {{4, 2}, {5}, {1100}}, {0, 1}},
      {{6, 5, 1100}, {{6}, {3, 2}, {1100}}, {0}},
  };
  for (DType dt : {CA_FLOAT64, CA_FLOAT32})
    for (const Shape &sh : shapes) {
      ArrayPtr g = random(CA_RANDOM_UNIFORM, 11, sh.shape, sh.chunks, dt, -1.0, 3.0);
      ArrayPtr m = persist(ex, registry(), g, RunOptions{});
      ASSERT_FALSE(m->expr) << "the persisted array is read from memory";
      for (int32_t op : {CA_RED_SUM, CA_RED_MEAN, CA_RED_VAR, CA_RED_STD}) {
        auto centered = [&](const ArrayPtr &x) {
          return elementwise_binary(CA_OP_SUB, x, reduce(CA_RED_MEAN, x, sh.axes, true, 0, 0, 0));
        };
        for (bool center : {false, true}) {
          Npy a = compute(reduce(op, center ? centered(g) : g, sh.axes, false, 0, 0, 0));
          Npy b = compute(reduce(op, center ? centered(m) : m, sh.axes, false, 0, 0, 0));
          EXPECT_TRUE(a.data == b.data) << "op " << op << " dtype " << dtype_name(dt) << " ndim " << sh.shape.size()
                                        << (center ? " centered" : "");
        }
      }
    }
}

// Sums and means of short arithmetic chains over arrays in memory run in one pass per run
// (array/expr_chain.hpp) and add the chain's values in the order the reduction adds a computed array
// (fold_run): equal bit for bit to the reduction of the persisted expression, and within rounding of a
// long-double loop. Every chain operation with each operand kind (the previous value, an input read in
// place, a constant, a size-1 input), float64 and float32, whole reductions and runs along the last
// axes (long ones: leaves split in halves; short ones: the scalar ends of a leaf), ragged chunks, NaN
// and inf; programs that are no chain (a value read twice later, two values live at once, a broadcast
// input, nansum) take the tiles and still give the right values. (Through the tiles, most of the
// chains here differ from the persisted expression's sums in the last bits.)
TEST(Reduce, FusedChainSumsEqualTheComputedExpression) {
  static Executor ex(2);
  struct Shape {
    std::vector<Index> shape;
    Chunks chunks;
    std::vector<std::vector<int32_t>> axes;
  };
  const std::vector<Shape> shapes = {
      {{20000}, {{4100, 4100, 9000, 2800}}, {{}}},
      {{37, 300}, {{20, 17}, {130, 170}}, {{}, {1}, {0, 1}}},
      {{2000, 3}, {{700, 1300}, {2, 1}}, {{1}, {}}},
      {{4, 9, 2100}, {{3, 1}, {9}, {2100}}, {{2}, {1, 2}, {}}},
      {{1}, {{1}}, {{}}},
  };
  auto sc = [](double v) { return ca_scalar_t{CA_FLOAT64, 0, v, 0.0, 0}; };
  using Fn = std::function<ArrayPtr(const ArrayPtr &, const ArrayPtr &, const ArrayPtr &, const ArrayPtr &)>;
  struct Expr {
    const char *name;
    Fn f;
    bool chain;  // expected to take the chain path (equal to the persisted expression bit for bit)
  };
  const std::vector<Expr> exprs = {
      {"(x + 1) * 2", [&](auto &x, auto &, auto &, auto &) { return elementwise_scalar(CA_OP_MUL, elementwise_scalar(CA_OP_ADD, x, sc(1), false), sc(2), false); }, true},
      {"1.5 - x", [&](auto &x, auto &, auto &, auto &) { return elementwise_scalar(CA_OP_SUB, x, sc(1.5), true); }, true},
      {"2 / (x + 5)", [&](auto &x, auto &, auto &, auto &) { return elementwise_scalar(CA_OP_DIV, elementwise_scalar(CA_OP_ADD, x, sc(5), false), sc(2), true); }, true},
      {"-x * y", [&](auto &x, auto &y, auto &, auto &) { return elementwise_binary(CA_OP_MUL, elementwise_unary(CA_OP_NEG, x), y); }, true},
      {"abs(x - 1) / y", [&](auto &x, auto &y, auto &, auto &) { return elementwise_binary(CA_OP_DIV, elementwise_unary(CA_OP_ABS, elementwise_scalar(CA_OP_SUB, x, sc(1), false)), y); }, true},
      {"y - square(x)", [&](auto &x, auto &y, auto &, auto &) { return elementwise_binary(CA_OP_SUB, y, elementwise_unary(CA_OP_SQUARE, x)); }, true},
      {"(x - m) * (x - m)", [&](auto &x, auto &, auto &m, auto &) { auto d = elementwise_binary(CA_OP_SUB, x, m); return elementwise_binary(CA_OP_MUL, d, d); }, true},
      {"x * y / (y + 4) + x", [&](auto &x, auto &y, auto &, auto &) { return elementwise_binary(CA_OP_ADD, elementwise_binary(CA_OP_DIV, elementwise_binary(CA_OP_MUL, x, y), elementwise_scalar(CA_OP_ADD, y, sc(4), false)), x); }, false},
      {"(x + 1) * (x + 2)", [&](auto &x, auto &, auto &, auto &) { return elementwise_binary(CA_OP_MUL, elementwise_scalar(CA_OP_ADD, x, sc(1), false), elementwise_scalar(CA_OP_ADD, x, sc(2), false)); }, false},
      {"x * row", [&](auto &x, auto &, auto &, auto &row) { return elementwise_binary(CA_OP_MUL, x, row); }, false},
  };
  for (DType dt : {CA_FLOAT64, CA_FLOAT32})
    for (const Shape &sh : shapes) {
      ArrayPtr x = persist(ex, registry(), random(CA_RANDOM_UNIFORM, 5, sh.shape, sh.chunks, dt, -1.0, 3.0), RunOptions{});
      ArrayPtr y = persist(ex, registry(), random(CA_RANDOM_UNIFORM, 6, sh.shape, sh.chunks, dt, 0.5, 2.0), RunOptions{});
      ASSERT_FALSE(x->expr);
      // A size-1 input (the mean, kept dims) and a row broadcast along the leading axes.
      std::vector<int32_t> all(sh.shape.size());
      for (size_t d = 0; d < all.size(); ++d) all[d] = int32_t(d);
      ArrayPtr m = persist(ex, registry(), reduce(CA_RED_MEAN, x, all, true, 0, 0, 0), RunOptions{});
      std::vector<Index> rshape(sh.shape.size(), 1);
      rshape.back() = sh.shape.back();
      Chunks rchunks(sh.shape.size(), std::vector<Index>{1});
      rchunks.back() = sh.chunks.back();
      ArrayPtr row = persist(ex, registry(), random(CA_RANDOM_UNIFORM, 7, rshape, rchunks, dt, 1.0, 2.0), RunOptions{});
      for (const Expr &e : exprs) {
        ArrayPtr v = e.f(x, y, m, row);
        ASSERT_TRUE(v->expr) << e.name;
        ArrayPtr vm = persist(ex, registry(), v, RunOptions{});
        const Npy vals = compute(vm);
        for (const auto &axes : sh.axes)
          for (int32_t op : {CA_RED_SUM, CA_RED_MEAN, CA_RED_NANSUM}) {
            const std::string what = std::string(e.name) + " op " + std::to_string(op) + " " + dtype_name(dt) +
                                     " ndim " + std::to_string(sh.shape.size()) + " axes " + std::to_string(axes.size());
            Npy a = compute(reduce(op, v, axes, false, 0, 0, 0));
            Npy b = compute(reduce(op, vm, axes, false, 0, 0, 0));
            if (e.chain && op != CA_RED_NANSUM) {
              EXPECT_TRUE(a.data == b.data) << what;
            }
            // A long-double loop over the computed values (C order; axes are trailing or all).
            Index inner = 1;
            for (int32_t d : axes) inner *= sh.shape[size_t(d)];
            if (axes.empty()) inner = vals.size();
            const Index outer = vals.size() / inner;
            ASSERT_EQ(a.size(), outer) << what;
            for (Index o = 0; o < outer; ++o) {
              long double ref = 0, mag = 0;
              for (Index i = 0; i < inner; ++i) {
                const long double t = dt == CA_FLOAT64 ? (long double)reinterpret_cast<const double *>(vals.data.data())[o * inner + i]
                                                       : (long double)reinterpret_cast<const float *>(vals.data.data())[o * inner + i];
                ref += t;
                mag += t < 0 ? -t : t;
              }
              if (op == CA_RED_MEAN) ref /= inner, mag /= inner;
              const double got = a.dtype == CA_FLOAT64 ? reinterpret_cast<const double *>(a.data.data())[o]
                                                       : double(reinterpret_cast<const float *>(a.data.data())[o]);
              const double tol = (dt == CA_FLOAT64 || a.dtype == CA_FLOAT64 ? 1e-12 : 1e-6) * double(mag) + 1e-300;
              EXPECT_NEAR(got, double(ref), tol) << what << " output " << o;
            }
          }
      }
    }
  // NaN and inf: the same values (and the same NaN) as the computed expression.
  {
    std::vector<double> v(9000);
    uint64_t s = 9;
    for (auto &t : v) t = double(lcg(s) % 1000) / 100.0 - 5;
    for (size_t i : {17u, 4500u, 8999u}) v[i] = std::numeric_limits<double>::infinity();
    Npy xs = npy_of<double>({9000}, v);
    ArrayPtr x = make(xs, {{5000, 4000}});
    ArrayPtr a = elementwise_scalar(CA_OP_MUL, elementwise_unary(CA_OP_ABS, elementwise_unary(CA_OP_NEG, x)), sc(-2), false);
    Npy got = compute(reduce(CA_RED_SUM, a, {}, false, 0, 0, 0));
    EXPECT_EQ(reinterpret_cast<const double *>(got.data.data())[0], -std::numeric_limits<double>::infinity());
    v[100] = std::numeric_limits<double>::quiet_NaN();
    Npy xn = npy_of<double>({9000}, v);
    ArrayPtr xnan = make(xn, {{5000, 4000}});
    ArrayPtr b = elementwise_scalar(CA_OP_SUB, xnan, sc(1), false);
    Npy g2 = compute(reduce(CA_RED_SUM, b, {}, false, 0, 0, 0));
    EXPECT_TRUE(std::isnan(reinterpret_cast<const double *>(g2.data.data())[0]));
    Npy g3 = compute(reduce(CA_RED_NANSUM, b, {}, false, 0, 0, 0));
    EXPECT_TRUE(std::isinf(reinterpret_cast<const double *>(g3.data.data())[0]));
  }
}

TEST(Reduce, Scans) {
  const std::vector<Index> shape{7, 5, 3};
  const Chunks chunks{{3, 1, 3}, {2, 2, 1}, {1, 2}};
  auto inputs = family_inputs(shape);
  std::vector<Case> cases;
  const char *names[] = {"", "cumsum", "cumprod", "nancumsum", "nancumprod"};
  for (const char *xn : {"x_b", "x_i8", "x_u16", "x_f32", "x_f64", "x_c128"}) {
    ArrayPtr a = make(inputs[xn], chunks);
    for (int32_t op = 1; op <= 4; ++op)
      for (int32_t axis : {0, 1, 2, -1}) {
        Case c{str("np.", names[op], "(", xn, ", axis=", axis, ")"), [=] { return scan(op, a, axis, 0); }};
        if (low_precision(a->dtype)) c.rtol = c.atol = 1e-5;
        cases.push_back(std::move(c));
      }
  }
  ArrayPtr ai = make(inputs["x_i32"], chunks);
  cases.push_back({"np.cumsum(x_i32, axis=1, dtype=np.float32)", [=] { return scan(CA_SCAN_CUMSUM, ai, 1, CA_FLOAT32); }});
  cases.push_back({"np.cumprod(x_i32, axis=0, dtype=np.int16)", [=] { return scan(CA_SCAN_CUMPROD, ai, 0, CA_INT16); }});
  // a long chain: 100 blocks along the axis
  std::vector<double> v(1000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = double(i % 17) - 8;
  inputs["l"] = npy_of<double>({1000}, v);
  ArrayPtr l = make(inputs["l"], {blocks_of(1000, 10)});
  cases.push_back({"np.cumsum(l)", [=] { return scan(CA_SCAN_CUMSUM, l, 0, 0); }});
  // empty chunks along the axis
  inputs["z"] = npy_of<int64_t>({5}, {1, 2, 3, 4, 5});
  ArrayPtr z = make(inputs["z"], {{2, 0, 3}});
  cases.push_back({"np.cumprod(z)", [=] { return scan(CA_SCAN_CUMPROD, z, 0, 0); }});
  run_cases(cases, inputs);
}

// Issue 14: integer sums/products/scans wrap like NumPy's without signed-overflow UB (UBSan checks
// this test in the sanitizer build), dtype= casts each element as astype, NaN is replaced before the
// cast in nancumsum/nancumprod, and nanvar/nanstd with ddof >= count are NaN.
TEST(Reduce, WrapAroundDtypeCastsAndDdof) {
  std::map<std::string, Npy> in;
  in["big"] = npy_of<int64_t>({5}, {int64_t(1) << 62, 4, 3, INT64_MAX, INT64_MIN + 1});
  in["i32"] = npy_of<int32_t>({4}, {INT32_MAX, 2, INT32_MAX, -7});
  in["u16"] = npy_of<uint16_t>({3}, {65535, 65535, 3});
  in["i8"] = npy_of<int8_t>({2}, {-6, 4});
  in["h"] = npy_of<int64_t>({3}, {100, 100, 100});
  in["f"] = npy_of<double>({4}, {-1.5, -2, 3.25, 1});
  in["fn"] = npy_of<double>({3}, {1, NAN, 2});
  in["w"] = npy_of<double>({2, 3}, {1, NAN, 3, NAN, NAN, 2});
  const Chunks c1{{2, 2, 1}};
  ArrayPtr big = make(in["big"], c1);
  ArrayPtr i32 = make(in["i32"], {{1, 3}});
  ArrayPtr u16 = make(in["u16"], {{2, 1}});
  ArrayPtr i8 = make(in["i8"], {{1, 1}});
  ArrayPtr h = make(in["h"], {{2, 1}});
  ArrayPtr f = make(in["f"], {{3, 1}});
  ArrayPtr fn = make(in["fn"], {{2, 1}});
  ArrayPtr w = make(in["w"], {{1, 1}, {2, 1}});
  std::vector<Case> cases;
  for (int32_t op : {CA_RED_SUM, CA_RED_PROD, CA_RED_NANSUM, CA_RED_NANPROD})
    for (auto [xn, x] : {std::pair{"big", big}, std::pair{"i32", i32}, std::pair{"u16", u16}}) {
      cases.push_back({str("np.", kOpNames[op], "(", xn, ")"), [=] { return reduce(op, x, {}, false, 0, 0, 0); }});
      cases.push_back({str("np.", kOpNames[op], "(", xn, ", dtype=", xn, ".dtype)"),
                       [=] { return reduce(op, x, {}, false, 0, 0, x->dtype); }});
    }
  const char *scans[] = {"", "cumsum", "cumprod", "nancumsum", "nancumprod"};
  for (int32_t op = 1; op <= 4; ++op)
    for (auto [xn, x] : {std::pair{"big", big}, std::pair{"i32", i32}, std::pair{"u16", u16}}) {
      cases.push_back({str("np.", scans[op], "(", xn, ")"), [=] { return scan(op, x, 0, 0); }});
      cases.push_back({str("np.", scans[op], "(", xn, ", dtype=", xn, ".dtype)"), [=] { return scan(op, x, 0, x->dtype); }});
    }
  cases.push_back({"i8.mean(dtype=np.uint32)", [=] { return reduce(CA_RED_MEAN, i8, {}, false, 0, 0, CA_UINT32); }});
  cases.push_back({"h.mean(dtype=np.int8)", [=] { return reduce(CA_RED_MEAN, h, {}, false, 0, 0, CA_INT8); }});
  cases.push_back({"f.sum(dtype=np.uint32)", [=] { return reduce(CA_RED_SUM, f, {}, false, 0, 0, CA_UINT32); }});
  cases.push_back({"f.prod(dtype=np.int16)", [=] { return reduce(CA_RED_PROD, f, {}, false, 0, 0, CA_INT16); }});
  cases.push_back({"f.mean(dtype=np.uint8)", [=] { return reduce(CA_RED_MEAN, f, {}, false, 0, 0, CA_UINT8); }});
  cases.push_back({"np.nansum(fn, dtype=np.int64)", [=] { return reduce(CA_RED_NANSUM, fn, {}, false, 0, 0, CA_INT64); }});
  cases.push_back({"np.nancumsum(fn, dtype=np.int16)", [=] { return scan(CA_SCAN_NANCUMSUM, fn, 0, CA_INT16); }});
  cases.push_back({"np.nancumprod(fn, dtype=np.uint8)", [=] { return scan(CA_SCAN_NANCUMPROD, fn, 0, CA_UINT8); }});
  cases.push_back({"np.cumsum(f, dtype=np.uint32)", [=] { return scan(CA_SCAN_CUMSUM, f, 0, CA_UINT32); }});
  for (int32_t ddof : {1, 2, 3})
    for (int32_t op : {CA_RED_NANVAR, CA_RED_NANSTD, CA_RED_VAR})
      for (int32_t ax : {-1, 0, 1}) {
        std::vector<int32_t> axes;
        if (ax >= 0) axes.push_back(ax);
        cases.push_back({str("np.", kOpNames[op], "(w, axis=", ax < 0 ? std::string("None") : std::to_string(ax),
                             ", ddof=", ddof, ")"),
                         [=] { return reduce(op, w, axes, false, 0, ddof, 0); }});
      }
  run_cases(cases, in);
}

TEST(Reduce, GenericReductionWithUserKernels) {
  std::vector<double> v(20 * 12);
  for (size_t i = 0; i < v.size(); ++i) v[i] = double(i % 13) * 0.5 - 2;
  std::map<std::string, Npy> in{{"x", npy_of<double>({20, 12}, v)}};
  ArrayPtr x = make(in["x"], {{5, 5, 5, 5}, {4, 4, 4}});
  std::vector<Case> cases;
  for (int32_t se : {0, 2, 4}) {
    cases.push_back({"(x**2).sum()", [=] {
                       return reduction(x, "test.sumsq_chunk", "test.sum_partials", "test.sum_partials", {}, false, se, CA_FLOAT64);
                     }});
    cases.push_back({"(x**2).sum(keepdims=True)", [=] {
                       return reduction(x, "test.sumsq_chunk", "", "test.sum_partials", {0, 1}, true, se, CA_FLOAT64);
                     }});
    cases.push_back({"x.sum(axis=0)", [=] {
                       return reduction(x, "test.colsum_chunk", "test.colsum_combine", "test.colsum_combine", {0}, false, se, 0);
                     }});
    cases.push_back({"x.sum(axis=0, keepdims=True)", [=] {
                       return reduction(x, "test.colsum_chunk", "", "test.colsum_combine", {-2}, true, se, 0);
                     }});
  }
  run_cases(cases, in);
}

TEST(Reduce, Errors) {
  Npy n = npy_of<double>({2, 3}, {1, 2, 3, 4, 5, 6});
  ArrayPtr a = make(n, {{1, 1}, {3}});
  auto expect_err = [](const std::function<void()> &f, ca_status_t code, const std::string &msg) {
    try {
      f();
      ADD_FAILURE() << "expected: " << msg;
    } catch (const Error &e) {
      EXPECT_EQ(e.code(), code) << e.message();
      EXPECT_EQ(e.message(), msg);
    }
  };
  expect_err([&] { reduce(CA_RED_SUM, a, {3}, false, 0, 0, 0); }, CA_EINVAL,
             "axis 3 is out of bounds for array of dimension 2");
  expect_err([&] { reduce(CA_RED_SUM, a, {-3}, false, 0, 0, 0); }, CA_EINVAL,
             "axis -3 is out of bounds for array of dimension 2");
  expect_err([&] { reduce(CA_RED_MEAN, a, {1, -1}, false, 0, 0, 0); }, CA_EINVAL,
             "duplicate value in 'axis': axis 1 is given twice (as 1 and -1)");
  expect_err([&] { reduce(CA_RED_ARGMIN, a, {0, 1}, false, 0, 0, 0); }, CA_EINVAL,
             "argmin takes one axis or all axes (axis=None), got 2 axes");
  expect_err([&] { reduce(99, a, {}, false, 0, 0, 0); }, CA_EINVAL, "unknown reduction op 99");
  expect_err([&] { scan(CA_SCAN_CUMSUM, a, 2, 0); }, CA_EINVAL, "axis 2 is out of bounds for array of dimension 2");
  expect_err([&] { scan(7, a, 0, 0); }, CA_EINVAL, "unknown scan op 7");
  expect_err([&] { reduction(a, "", "", "x", {}, false, 0, 0); }, CA_EINVAL, "reduction: the chunk kernel name is empty");
  // names are deterministic
  EXPECT_EQ(reduce(CA_RED_SUM, a, {0}, false, 0, 0, 0)->name, reduce(CA_RED_SUM, a, {0}, false, 0, 0, 0)->name);
  EXPECT_NE(reduce(CA_RED_SUM, a, {0}, false, 0, 0, 0)->name, reduce(CA_RED_SUM, a, {1}, false, 0, 0, 0)->name);
}

}  // namespace
}  // namespace ca
