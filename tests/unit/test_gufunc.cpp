// apply_gufunc through the C API with registered kernels, against NumPy (Debian's python3-numpy):
// inner product, mean, matmul, elementwise, two outputs, axes/axis/keepdims, output_sizes,
// allow_rechunk, and the errors.
#include <chunkarray/chunkarray.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "array/gufunc.hpp"
#include "numpy_ref.hpp"

namespace {

using ca::test::Npy;
using ChunkList = std::vector<std::vector<int64_t>>;

struct Ctx {
  ca_context_t *ctx = nullptr;
  Ctx();
  ~Ctx() { ca_context_free(ctx); }
};

Npy compute(ca_context_t *ctx, const ca_array_t *a) {
  ca_block_t *b = nullptr;
  EXPECT_EQ(ca_array_compute(&b, ctx, a, nullptr), CA_OK) << ca_last_error_message();
  Npy r;
  if (!b) return r;
  r.dtype = ca_block_dtype(b);
  r.shape.assign(ca_block_shape(b), ca_block_shape(b) + ca_block_ndim(b));
  r.data.resize(ca_block_nbytes(b));
  if (!r.data.empty()) std::memcpy(r.data.data(), ca_block_data(b), r.data.size());
  ca_block_free(b);
  return r;
}

ca_array_t *from_npy(const Npy &n, const ChunkList &chunks) {
  std::vector<int64_t> nb, sz;
  for (auto &d : chunks) {
    nb.push_back(int64_t(d.size()));
    sz.insert(sz.end(), d.begin(), d.end());
  }
  ca_chunks_t c{int32_t(chunks.size()), nb.data(), sz.data()};
  ca_array_t *a = nullptr;
  EXPECT_EQ(ca_array_from_buffer(&a, n.data.data(), n.dtype, int32_t(n.shape.size()), n.shape.data(), &c, nullptr),
            CA_OK)
      << ca_last_error_message();
  return a;
}

Npy data(std::vector<int64_t> shape, int seed = 1, ca_dtype_t dt = CA_FLOAT64) {
  Npy r;
  r.dtype = dt;
  r.shape = std::move(shape);
  r.data.resize(size_t(r.size()) * ca::dtype_size(dt));
  for (int64_t i = 0; i < r.size(); ++i) {
    double v = double((i * 37 + seed * 11) % 29) / 4.0 - 3.0;
    if (dt == CA_FLOAT64) reinterpret_cast<double *>(r.data.data())[i] = v;
    else if (dt == CA_INT32) reinterpret_cast<int32_t *>(r.data.data())[i] = int32_t(v * 4);
  }
  return r;
}

ChunkList chunks_of(const ca_array_t *a) {
  ChunkList c;
  for (int32_t d = 0; d < ca_array_ndim(a); ++d) {
    int64_t n = 0;
    const int64_t *s = ca_array_chunks(a, d, &n);
    c.emplace_back(s, s + n);
  }
  return c;
}

// ---- kernels: loop dimensions broadcast as a NumPy gufunc's ----------------------------------------

double get(const ca_block_t *b, int64_t i) {
  switch (ca_block_dtype(b)) {
    case CA_FLOAT64: return static_cast<const double *>(ca_block_data(b))[i];
    case CA_INT32: return double(static_cast<const int32_t *>(ca_block_data(b))[i]);
    default: return NAN;
  }
}

// The broadcast loop shape of the inputs (their leading ndim - ncore dimensions) and, for a loop
// position, each input's offset in units of its core block.
struct Loop {
  std::vector<int64_t> shape;
  int64_t count = 1;
  std::vector<std::vector<int64_t>> stride;  // per input, per broadcast loop dimension
  std::vector<int64_t> core;                 // elements per core block, per input
  bool ok = true;
  Loop(const std::vector<const ca_block_t *> &in, const std::vector<int> &ncore) {
    size_t L = 0;
    for (size_t k = 0; k < in.size(); ++k) L = std::max(L, size_t(ca_block_ndim(in[k]) - ncore[k]));
    shape.assign(L, 1);
    for (size_t k = 0; k < in.size(); ++k) {
      int32_t nl = ca_block_ndim(in[k]) - ncore[k];
      const int64_t *sh = ca_block_shape(in[k]);
      for (int32_t d = 0; d < nl; ++d) {
        int64_t &s = shape[L - size_t(nl) + size_t(d)];
        if (sh[d] != 1) {
          if (s != 1 && s != sh[d]) ok = false;
          s = sh[d];
        }
      }
      int64_t c = 1;
      for (int32_t d = nl; d < ca_block_ndim(in[k]); ++d) c *= sh[d];
      core.push_back(c);
      std::vector<int64_t> st(L, 0);
      int64_t acc = 1;
      for (int32_t d = nl - 1; d >= 0; --d) {
        st[L - size_t(nl) + size_t(d)] = sh[d] == 1 ? 0 : acc;
        acc *= sh[d];
      }
      stride.push_back(st);
    }
    for (int64_t s : shape) count *= s;
  }
  int64_t offset(size_t k, int64_t lin) const {
    int64_t off = 0;
    for (size_t d = shape.size(); d-- > 0;) {
      off += (lin % shape[d]) * stride[k][d];
      lin /= shape[d];
    }
    return off * core[k];
  }
  ca_status_t new_out(ca_block_t **out, const std::vector<int64_t> &core_shape) const {
    std::vector<int64_t> s = shape;
    s.insert(s.end(), core_shape.begin(), core_shape.end());
    return ca_block_new(out, CA_FLOAT64, int32_t(s.size()), s.data());
  }
};

bool blocks(const ca_arg_t *a, size_t n, size_t want, ca_kernel_ctx_t *kc, const char *who) {
  if (n < want) {
    ca_kernel_set_error(kc, (std::string(who) + ": too few arguments").c_str());
    return false;
  }
  for (size_t i = 0; i < want; ++i)
    if (a[i].kind != CA_ARG_BLOCK) {
      ca_kernel_set_error(kc, (std::string(who) + ": argument is not a block").c_str());
      return false;
    }
  return true;
}

// (i),(i)->()
ca_status_t k_inner(ca_block_t **out, const ca_arg_t *a, size_t n, ca_kernel_ctx_t *kc, void *) {
  if (!blocks(a, n, 2, kc, "inner")) return CA_EINVAL;
  const ca_block_t *x = a[0].u.block, *y = a[1].u.block;
  Loop L({x, y}, {1, 1});
  int64_t len = ca_block_shape(x)[ca_block_ndim(x) - 1];
  if (!L.ok || len != ca_block_shape(y)[ca_block_ndim(y) - 1]) {
    ca_kernel_set_error(kc, "inner: shapes do not match");
    return CA_EINVAL;
  }
  ca_status_t st = L.new_out(out, {});
  if (st) return st;
  double *o = static_cast<double *>(ca_block_data(*out));
  for (int64_t l = 0; l < L.count; ++l) {
    int64_t ox = L.offset(0, l), oy = L.offset(1, l);
    double s = 0;
    for (int64_t i = 0; i < len; ++i) s += get(x, ox + i) * get(y, oy + i);
    o[l] = s;
  }
  return CA_OK;
}

// (i)->()
ca_status_t k_mean(ca_block_t **out, const ca_arg_t *a, size_t n, ca_kernel_ctx_t *kc, void *) {
  if (!blocks(a, n, 1, kc, "mean")) return CA_EINVAL;
  const ca_block_t *x = a[0].u.block;
  Loop L({x}, {1});
  int64_t len = ca_block_shape(x)[ca_block_ndim(x) - 1];
  ca_status_t st = L.new_out(out, {});
  if (st) return st;
  double *o = static_cast<double *>(ca_block_data(*out));
  for (int64_t l = 0; l < L.count; ++l) {
    double s = 0;
    for (int64_t i = 0; i < len; ++i) s += get(x, L.offset(0, l) + i);
    o[l] = s / double(len);
  }
  return CA_OK;
}

// (m,n),(n,p)->(m,p)
ca_status_t k_matmul(ca_block_t **out, const ca_arg_t *a, size_t n, ca_kernel_ctx_t *kc, void *) {
  if (!blocks(a, n, 2, kc, "matmul")) return CA_EINVAL;
  const ca_block_t *x = a[0].u.block, *y = a[1].u.block;
  Loop L({x, y}, {2, 2});
  int64_t M = ca_block_shape(x)[ca_block_ndim(x) - 2], K = ca_block_shape(x)[ca_block_ndim(x) - 1];
  int64_t K2 = ca_block_shape(y)[ca_block_ndim(y) - 2], P = ca_block_shape(y)[ca_block_ndim(y) - 1];
  if (!L.ok || K != K2) {
    ca_kernel_set_error(kc, "matmul: shapes do not match");
    return CA_EINVAL;
  }
  ca_status_t st = L.new_out(out, {M, P});
  if (st) return st;
  double *o = static_cast<double *>(ca_block_data(*out));
  for (int64_t l = 0; l < L.count; ++l) {
    int64_t ox = L.offset(0, l), oy = L.offset(1, l);
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < P; ++j) {
        double s = 0;
        for (int64_t k = 0; k < K; ++k) s += get(x, ox + i * K + k) * get(y, oy + k * P + j);
        o[l * M * P + i * P + j] = s;
      }
  }
  return CA_OK;
}

// ()->(): x * x + 1 (float64 output)
ca_status_t k_square(ca_block_t **out, const ca_arg_t *a, size_t n, ca_kernel_ctx_t *kc, void *) {
  if (!blocks(a, n, 1, kc, "square") || n != 1) return CA_EINVAL;
  const ca_block_t *x = a[0].u.block;
  ca_status_t st = ca_block_new(out, CA_FLOAT64, ca_block_ndim(x), ca_block_shape(x));
  if (st) return st;
  double *o = static_cast<double *>(ca_block_data(*out));
  for (int64_t i = 0; i < ca_block_size(x); ++i) o[i] = get(x, i) * get(x, i) + 1;
  return CA_OK;
}

// (i)->(),(): output 0 the minimum, output 1 the maximum (the output index is the last argument).
ca_status_t k_minmax(ca_block_t **out, const ca_arg_t *a, size_t n, ca_kernel_ctx_t *kc, void *) {
  if (!blocks(a, n, 1, kc, "minmax") || n != 2 || a[1].kind != CA_ARG_INT64) {
    ca_kernel_set_error(kc, "minmax: (block, output index) expected");
    return CA_EINVAL;
  }
  const ca_block_t *x = a[0].u.block;
  bool want_max = a[1].u.i64 == 1;
  Loop L({x}, {1});
  int64_t len = ca_block_shape(x)[ca_block_ndim(x) - 1];
  ca_status_t st = L.new_out(out, {});
  if (st) return st;
  double *o = static_cast<double *>(ca_block_data(*out));
  for (int64_t l = 0; l < L.count; ++l) {
    double m = want_max ? -INFINITY : INFINITY;
    for (int64_t i = 0; i < len; ++i) {
      double v = get(x, L.offset(0, l) + i);
      m = want_max ? std::max(m, v) : std::min(m, v);
    }
    o[l] = m;
  }
  return CA_OK;
}

// ()->(k) with extra argument k: the powers x**0 .. x**(k-1).
ca_status_t k_powers(ca_block_t **out, const ca_arg_t *a, size_t n, ca_kernel_ctx_t *kc, void *) {
  if (!blocks(a, n, 1, kc, "powers") || n != 2 || a[1].kind != CA_ARG_INT64) {
    ca_kernel_set_error(kc, "powers: (block, k) expected");
    return CA_EINVAL;
  }
  const ca_block_t *x = a[0].u.block;
  int64_t k = a[1].u.i64;
  Loop L({x}, {0});
  ca_status_t st = L.new_out(out, {k});
  if (st) return st;
  double *o = static_cast<double *>(ca_block_data(*out));
  for (int64_t l = 0; l < L.count; ++l) {
    double v = get(x, L.offset(0, l)), p = 1;
    for (int64_t j = 0; j < k; ++j, p *= v) o[l * k + j] = p;
  }
  return CA_OK;
}

Ctx::Ctx() {
  EXPECT_EQ(ca_context_new(&ctx, nullptr), CA_OK);
  EXPECT_EQ(ca_context_register(ctx, "g.inner", k_inner, nullptr), CA_OK);
  EXPECT_EQ(ca_context_register(ctx, "g.mean", k_mean, nullptr), CA_OK);
  EXPECT_EQ(ca_context_register(ctx, "g.matmul", k_matmul, nullptr), CA_OK);
  EXPECT_EQ(ca_context_register(ctx, "g.square", k_square, nullptr), CA_OK);
  EXPECT_EQ(ca_context_register(ctx, "g.minmax", k_minmax, nullptr), CA_OK);
  EXPECT_EQ(ca_context_register(ctx, "g.powers", k_powers, nullptr), CA_OK);
}

// One output.
ca_array_t *gufunc1(const char *kernel, const char *sig, std::vector<const ca_array_t *> in,
                    const ca_gufunc_options_t *o = nullptr) {
  ca_array_t *r = nullptr;
  EXPECT_EQ(ca_array_apply_gufunc(&r, 1, kernel, sig, in.data(), in.size(), o), CA_OK) << ca_last_error_message();
  return r;
}

// ---- tests ------------------------------------------------------------------------------------------

TEST(Gufunc, SignatureParsing) {
  auto s = ca::parse_gufunc_signature(" (m, n),(n,p) -> (m,p)");
  ASSERT_EQ(s.inputs.size(), 2u);
  EXPECT_EQ(s.inputs[0], (std::vector<std::string>{"m", "n"}));
  EXPECT_EQ(s.outputs[0], (std::vector<std::string>{"m", "p"}));
  s = ca::parse_gufunc_signature("(i)->(),()");
  EXPECT_EQ(s.inputs.size(), 1u);
  EXPECT_EQ(s.outputs.size(), 2u);
  s = ca::parse_gufunc_signature("(),()->()");
  EXPECT_EQ(s.inputs.size(), 2u);
  s = ca::parse_gufunc_signature("(len_1,x2,)->(len_1)");
  EXPECT_EQ(s.inputs[0], (std::vector<std::string>{"len_1", "x2"}));
  int32_t nin = -1, nout = -1;
  EXPECT_EQ(ca_gufunc_signature_parse("(i),(i)->()", &nin, &nout), CA_OK);
  EXPECT_EQ(nin, 2);
  EXPECT_EQ(nout, 1);
  struct Bad {
    const char *sig, *msg;
  } bad[] = {
      {"(i),(i->()", "expected ',' or ')' after dimension 'i' at offset 6"},
      {"(i)", "no '->'"},
      {"(i)->", "expected '(' to open output 0"},
      {"(i)(j)->()", "expected ',' or '->' after the inputs at offset 3"},
      {"(i j)->()", "expected ',' or ')' after dimension 'i'"},
      {"(i)->()x", "unexpected text after the outputs"},
      {"(i)->(),", "expected '(' to open output 1"},
      {"(i,-)->()", "expected a dimension name"},
      {"(i", "no '->'"},
      {"(i->", "expected ',' or ')'"},
  };
  for (auto &b : bad) {
    EXPECT_EQ(ca_gufunc_signature_parse(b.sig, &nin, &nout), CA_EINVAL) << b.sig;
    std::string m = ca_last_error_message();
    EXPECT_NE(m.find(b.msg), std::string::npos) << b.sig << ": " << m;
    EXPECT_NE(m.find(b.sig), std::string::npos) << m;
  }
  EXPECT_EQ(ca_gufunc_signature_parse(nullptr, &nin, &nout), CA_EINVAL);
}

TEST(Gufunc, InnerProductBroadcastsLoopDims) {
  Ctx c;
  Npy x = data({3, 1, 5}, 1), y = data({4, 5}, 2);
  ca_array_t *a = from_npy(x, {{2, 1}, {1}, {5}}), *b = from_npy(y, {{2, 2}, {5}});
  int64_t live0 = ca::block_live_count();
  ca_array_t *r = gufunc1("g.inner", "(i),(i)->()", {a, b});
  ASSERT_TRUE(r);
  EXPECT_EQ(chunks_of(r), (ChunkList{{2, 1}, {2, 2}}));
  ca::test::expect_close(compute(c.ctx, r), ca::test::run_numpy("result = np.sum(x * y, axis=-1)", {{"x", x}, {"y", y}}),
                         1e-12, 1e-12, "inner");
  EXPECT_EQ(ca::block_live_count(), live0);
  ca_array_free(r);
  ca_array_free(a);
  ca_array_free(b);
}

TEST(Gufunc, MeanOverRaggedLoopChunksAndEmptyLoop) {
  Ctx c;
  Npy x = data({7, 3, 6});
  ca_array_t *a = from_npy(x, {{2, 4, 1}, {1, 2}, {6}});
  ca_array_t *r = gufunc1("g.mean", "(i)->()", {a});
  ASSERT_TRUE(r);
  EXPECT_EQ(chunks_of(r), (ChunkList{{2, 4, 1}, {1, 2}}));
  ca::test::expect_close(compute(c.ctx, r), ca::test::run_numpy("result = x.mean(axis=-1)", {{"x", x}}), 1e-12, 1e-12,
                         "mean");
  ca_array_free(r);
  ca_array_free(a);
  // a loop dimension of extent 0
  Npy e = data({0, 4});
  ca_array_t *ea = from_npy(e, {{0}, {4}});
  ca_array_t *er = gufunc1("g.mean", "(i)->()", {ea});
  ASSERT_TRUE(er);
  Npy got = compute(c.ctx, er);
  EXPECT_EQ(got.shape, (std::vector<int64_t>{0}));
  ca_array_free(er);
  ca_array_free(ea);
}

TEST(Gufunc, MatmulWithLoopDims) {
  Ctx c;
  Npy x = data({2, 3, 4}, 3), y = data({4, 5}, 4);
  ca_array_t *a = from_npy(x, {{1, 1}, {3}, {4}}), *b = from_npy(y, {{4}, {5}});
  ca_array_t *r = gufunc1("g.matmul", "(m,n),(n,p)->(m,p)", {a, b});
  ASSERT_TRUE(r);
  EXPECT_EQ(chunks_of(r), (ChunkList{{1, 1}, {3}, {5}}));
  ca::test::expect_close(compute(c.ctx, r), ca::test::run_numpy("result = np.matmul(x, y)", {{"x", x}, {"y", y}}), 1e-12,
                         1e-12, "matmul");
  ca_array_free(r);
  ca_array_free(a);
  ca_array_free(b);
}

TEST(Gufunc, ElementwiseRaggedZeroDAndDtypes) {
  Ctx c;
  Npy x = data({5, 7}, 5, CA_INT32);
  ca_array_t *a = from_npy(x, {{2, 3}, {4, 1, 2}});
  ca_dtype_t f8 = CA_FLOAT64;
  ca_gufunc_options_t o = CA_GUFUNC_OPTIONS_INIT;
  o.output_dtypes = &f8;
  ca_array_t *r = gufunc1("g.square", "()->()", {a}, &o);
  ASSERT_TRUE(r);
  EXPECT_EQ(ca_array_dtype(r), CA_FLOAT64);
  EXPECT_EQ(chunks_of(r), (ChunkList{{2, 3}, {4, 1, 2}}));
  ca::test::expect_close(compute(c.ctx, r), ca::test::run_numpy("result = x.astype(float) ** 2 + 1", {{"x", x}}), 0, 0,
                         "square");
  ca_array_free(r);
  // Without output_dtypes the output dtype is the inputs' (int32): the kernel's float64 block is
  // then reported at compute time.
  ca_array_t *ri = gufunc1("g.square", "()->()", {a});
  EXPECT_EQ(ca_array_dtype(ri), CA_INT32);
  ca_block_t *blk = nullptr;
  EXPECT_EQ(ca_array_compute(&blk, c.ctx, ri, nullptr), CA_EKERNEL);
  EXPECT_NE(std::string(ca_last_error_message()).find("dtype"), std::string::npos) << ca_last_error_message();
  ca_array_free(ri);
  ca_array_free(a);
  // 0-d
  Npy s = data({}, 2);
  ca_array_t *z = from_npy(s, {});
  ca_array_t *rz = gufunc1("g.square", "()->()", {z});
  ASSERT_TRUE(rz);
  EXPECT_EQ(ca_array_ndim(rz), 0);
  Npy gz = compute(c.ctx, rz);
  ASSERT_EQ(gz.shape, std::vector<int64_t>{});
  EXPECT_EQ(gz.as<double>()[0], s.as<double>()[0] * s.as<double>()[0] + 1);
  ca_array_free(rz);
  ca_array_free(z);
}

TEST(Gufunc, TwoOutputsMinMax) {
  Ctx c;
  Npy x = data({5, 8}, 7);
  ca_array_t *a = from_npy(x, {{3, 2}, {8}});
  ca_array_t *r[2] = {nullptr, nullptr};
  ca_dtype_t dts[2] = {CA_FLOAT64, CA_FLOAT64};
  ca_gufunc_options_t o = CA_GUFUNC_OPTIONS_INIT;
  o.output_dtypes = dts;
  const ca_array_t *in[1] = {a};
  ASSERT_EQ(ca_array_apply_gufunc(r, 2, "g.minmax", "(i)->(),()", in, 1, &o), CA_OK) << ca_last_error_message();
  ca::test::expect_close(compute(c.ctx, r[0]), ca::test::run_numpy("result = x.min(-1)", {{"x", x}}), 0, 0, "min");
  ca::test::expect_close(compute(c.ctx, r[1]), ca::test::run_numpy("result = x.max(-1)", {{"x", x}}), 0, 0, "max");
  EXPECT_STRNE(ca_array_name(r[0]), ca_array_name(r[1]));
  // computed together in one pass
  ca_block_t *both[2] = {nullptr, nullptr};
  const ca_array_t *outs[2] = {r[0], r[1]};
  ASSERT_EQ(ca_array_compute_many(both, c.ctx, outs, 2, nullptr), CA_OK) << ca_last_error_message();
  ca_block_free(both[0]);
  ca_block_free(both[1]);
  // nout must match the signature; every out is NULL on failure
  ca_array_t *r3[3] = {reinterpret_cast<ca_array_t *>(1), reinterpret_cast<ca_array_t *>(1),
                       reinterpret_cast<ca_array_t *>(1)};
  EXPECT_EQ(ca_array_apply_gufunc(r3, 3, "g.minmax", "(i)->(),()", in, 1, &o), CA_EINVAL);
  EXPECT_NE(std::string(ca_last_error_message()).find("has 2 outputs, nout is 3"), std::string::npos);
  EXPECT_EQ(r3[0], nullptr);
  EXPECT_EQ(r3[2], nullptr);
  // a bad output dtype
  ca_gufunc_options_t o1 = CA_GUFUNC_OPTIONS_INIT;
  ca_dtype_t badd[2] = {CA_FLOAT64, 99};
  o1.output_dtypes = badd;
  ca_array_t *rb[2] = {nullptr, nullptr};
  EXPECT_EQ(ca_array_apply_gufunc(rb, 2, "g.minmax", "(i)->(),()", in, 1, &o1), CA_ETYPE);
  EXPECT_EQ(rb[0], nullptr);
  ca_array_free(r[0]);
  ca_array_free(r[1]);
  ca_array_free(a);
}

TEST(Gufunc, AxesAxisAndKeepdims) {
  Ctx c;
  Npy x = data({5, 6}, 1), y = data({5, 6}, 2);
  ca_array_t *a = from_npy(x, {{5}, {2, 4}}), *b = from_npy(y, {{5}, {2, 4}});
  // inner product over axis 0: axes [(0,), (0,)] (outputs without core dimensions may be omitted)
  int32_t axes[2] = {0, 0}, counts[2] = {1, 1};
  ca_gufunc_options_t o = CA_GUFUNC_OPTIONS_INIT;
  o.axes = axes;
  o.axes_counts = counts;
  o.naxes_args = 2;
  ca_array_t *r = gufunc1("g.inner", "(i),(i)->()", {a, b}, &o);
  ASSERT_TRUE(r);
  EXPECT_EQ(chunks_of(r), (ChunkList{{2, 4}}));
  ca::test::expect_close(compute(c.ctx, r), ca::test::run_numpy("result = np.sum(x * y, axis=0)", {{"x", x}, {"y", y}}),
                         1e-12, 1e-12, "axes (0,),(0,)");
  ca_array_free(r);
  // axis=0 for the mean, with and without keepdims
  ca_gufunc_options_t oa = CA_GUFUNC_OPTIONS_INIT;
  oa.has_axis = 1;
  oa.axis = 0;
  r = gufunc1("g.mean", "(i)->()", {a}, &oa);
  ASSERT_TRUE(r);
  ca::test::expect_close(compute(c.ctx, r), ca::test::run_numpy("result = x.mean(axis=0)", {{"x", x}}), 1e-12, 1e-12,
                         "axis=0");
  ca_array_free(r);
  oa.keepdims = 1;
  r = gufunc1("g.mean", "(i)->()", {a}, &oa);
  ASSERT_TRUE(r);
  EXPECT_EQ(chunks_of(r), (ChunkList{{1}, {2, 4}}));
  ca::test::expect_close(compute(c.ctx, r), ca::test::run_numpy("result = x.mean(axis=0, keepdims=True)", {{"x", x}}),
                         1e-12, 1e-12, "axis=0 keepdims");
  ca_array_free(r);
  // keepdims over the last axis (default axes)
  ca_gufunc_options_t ok = CA_GUFUNC_OPTIONS_INIT;
  ok.keepdims = 1;
  ca_array_t *b1 = from_npy(y, {{2, 3}, {6}});
  r = gufunc1("g.mean", "(i)->()", {b1}, &ok);
  ca_array_free(b1);
  ASSERT_TRUE(r);
  ca::test::expect_close(compute(c.ctx, r), ca::test::run_numpy("result = y.mean(axis=-1, keepdims=True)", {{"y", y}}),
                         1e-12, 1e-12, "keepdims");
  ca_array_free(r);
  ca_array_free(a);
  ca_array_free(b);
  // matmul with NumPy's axes=[(-2, -1), (-2, -1), (-1, -2)] (transposed output), over a loop dim
  Npy m1 = data({2, 3, 4}, 3), m2 = data({2, 4, 5}, 4);
  ca_array_t *p = from_npy(m1, {{1, 1}, {3}, {4}}), *q = from_npy(m2, {{1, 1}, {4}, {5}});
  int32_t maxes[6] = {-2, -1, -2, -1, -1, -2}, mcounts[3] = {2, 2, 2};
  ca_gufunc_options_t om = CA_GUFUNC_OPTIONS_INIT;
  om.axes = maxes;
  om.axes_counts = mcounts;
  om.naxes_args = 3;
  r = gufunc1("g.matmul", "(m,n),(n,p)->(m,p)", {p, q}, &om);
  ASSERT_TRUE(r);
  EXPECT_EQ(chunks_of(r), (ChunkList{{1, 1}, {5}, {3}}));
  ca::test::expect_close(
      compute(c.ctx, r),
      ca::test::run_numpy("result = np.matmul(x, y, axes=[(-2, -1), (-2, -1), (-1, -2)])", {{"x", m1}, {"y", m2}}),
      1e-12, 1e-12, "matmul axes");
  ca_array_free(r);
  // inputs' core dimensions moved from the front: axes [(0, 1), (1, 2), (0, 1)] on shapes (3,4,2), (2,4,5)
  Npy t1 = data({3, 4, 2}, 5), t2 = data({2, 4, 5}, 6);
  ca_array_t *u = from_npy(t1, {{3}, {4}, {1, 1}}), *v = from_npy(t2, {{1, 1}, {4}, {5}});
  int32_t taxes[6] = {0, 1, 1, 2, 0, 1};
  om.axes = taxes;
  r = gufunc1("g.matmul", "(m,n),(n,p)->(m,p)", {u, v}, &om);
  ASSERT_TRUE(r);
  ca::test::expect_close(
      compute(c.ctx, r),
      ca::test::run_numpy("result = np.matmul(x, y, axes=[(0, 1), (1, 2), (0, 1)])", {{"x", t1}, {"y", t2}}), 1e-12,
      1e-12, "matmul axes (0, 1)");
  ca_array_free(r);
  // errors: both axes and axis, wrong count, axis out of range, repeated axis, keepdims with core outputs
  ca_array_t *bad = reinterpret_cast<ca_array_t *>(0x1);
  const ca_array_t *pq[2] = {p, q};
  om.axes = maxes;
  om.has_axis = 1;
  EXPECT_EQ(ca_array_apply_gufunc(&bad, 1, "g.matmul", "(m,n),(n,p)->(m,p)", pq, 2, &om), CA_EINVAL);
  EXPECT_NE(std::string(ca_last_error_message()).find("only one of axes or axis"), std::string::npos);
  EXPECT_EQ(bad, nullptr);
  om.has_axis = 0;
  om.naxes_args = 2;
  EXPECT_EQ(ca_array_apply_gufunc(&bad, 1, "g.matmul", "(m,n),(n,p)->(m,p)", pq, 2, &om), CA_EINVAL);
  EXPECT_NE(std::string(ca_last_error_message()).find("number of axes entries"), std::string::npos)
      << ca_last_error_message();
  int32_t oob[6] = {-2, 3, -2, -1, -1, -2};
  om.axes = oob;
  om.naxes_args = 3;
  EXPECT_EQ(ca_array_apply_gufunc(&bad, 1, "g.matmul", "(m,n),(n,p)->(m,p)", pq, 2, &om), CA_EINVAL);
  EXPECT_NE(std::string(ca_last_error_message()).find("axis 3 of input 0 is out of range for 3 dimensions"),
            std::string::npos)
      << ca_last_error_message();
  int32_t rep[6] = {-1, -1, -2, -1, -1, -2};
  om.axes = rep;
  EXPECT_EQ(ca_array_apply_gufunc(&bad, 1, "g.matmul", "(m,n),(n,p)->(m,p)", pq, 2, &om), CA_EINVAL);
  EXPECT_NE(std::string(ca_last_error_message()).find("repeated"), std::string::npos) << ca_last_error_message();
  ca_gufunc_options_t okd = CA_GUFUNC_OPTIONS_INIT;
  okd.keepdims = 1;
  EXPECT_EQ(ca_array_apply_gufunc(&bad, 1, "g.matmul", "(m,n),(n,p)->(m,p)", pq, 2, &okd), CA_EINVAL);
  EXPECT_NE(std::string(ca_last_error_message()).find("keepdims can only be used for scalar outputs"),
            std::string::npos);
  ca_array_free(p);
  ca_array_free(q);
  ca_array_free(u);
  ca_array_free(v);
}

TEST(Gufunc, OutputSizesForANewCoreDim) {
  Ctx c;
  Npy x = data({4, 3}, 8);
  ca_array_t *a = from_npy(x, {{1, 3}, {2, 1}});
  const char *names[1] = {"k"};
  int64_t sizes[1] = {3};
  ca_arg_t k = ca_arg_i64(3);
  ca_gufunc_options_t o = CA_GUFUNC_OPTIONS_INIT;
  o.output_size_names = names;
  o.output_sizes = sizes;
  o.noutput_sizes = 1;
  o.extra = &k;
  o.nextra = 1;
  ca_array_t *r = gufunc1("g.powers", "()->(k)", {a}, &o);
  ASSERT_TRUE(r);
  EXPECT_EQ(chunks_of(r), (ChunkList{{1, 3}, {2, 1}, {3}}));
  ca::test::expect_close(compute(c.ctx, r),
                         ca::test::run_numpy("result = np.stack([x ** 0, x ** 1, x ** 2], axis=-1)", {{"x", x}}), 1e-12,
                         1e-12, "powers");
  ca_array_free(r);
  // the new core dimension put first with output axes
  int32_t axes[2] = {0}, counts[2] = {0, 1};
  o.axes = axes;
  o.axes_counts = counts;
  o.naxes_args = 2;
  r = gufunc1("g.powers", "()->(k)", {a}, &o);
  ASSERT_TRUE(r);
  ca::test::expect_close(compute(c.ctx, r),
                         ca::test::run_numpy("result = np.stack([x ** 0, x ** 1, x ** 2], axis=0)", {{"x", x}}), 1e-12,
                         1e-12, "powers axis 0");
  ca_array_free(r);
  // without output_sizes the dimension has no size
  ca_gufunc_options_t o2 = CA_GUFUNC_OPTIONS_INIT;
  o2.extra = &k;
  o2.nextra = 1;
  ca_array_t *bad = reinterpret_cast<ca_array_t *>(0x1);
  const ca_array_t *in[1] = {a};
  EXPECT_EQ(ca_array_apply_gufunc(&bad, 1, "g.powers", "()->(k)", in, 1, &o2), CA_EINVAL);
  EXPECT_NE(std::string(ca_last_error_message()).find("output core dimension 'k' of output 0 is in no input"),
            std::string::npos)
      << ca_last_error_message();
  EXPECT_EQ(bad, nullptr);
  ca_array_free(a);
}

TEST(Gufunc, AllowRechunkBothWays) {
  Ctx c;
  Npy x = data({4, 9}, 1), y = data({4, 9}, 2);
  ca_array_t *a = from_npy(x, {{2, 2}, {4, 5}}), *b = from_npy(y, {{2, 2}, {9}});
  const ca_array_t *in[2] = {a, b};
  ca_array_t *r = reinterpret_cast<ca_array_t *>(0x1);
  // core dimension i of input 0 is chunked (4, 5)
  EXPECT_EQ(ca_array_apply_gufunc(&r, 1, "g.inner", "(i),(i)->()", in, 2, nullptr), CA_EINVAL);
  EXPECT_EQ(r, nullptr);
  std::string m = ca_last_error_message();
  EXPECT_NE(m.find("core dimension 'i' of input 0 consists of multiple chunks ((4, 5),)"), std::string::npos) << m;
  EXPECT_NE(m.find("allow_rechunk"), std::string::npos) << m;
  ca_gufunc_options_t o = CA_GUFUNC_OPTIONS_INIT;
  o.allow_rechunk = 1;
  ASSERT_EQ(ca_array_apply_gufunc(&r, 1, "g.inner", "(i),(i)->()", in, 2, &o), CA_OK) << ca_last_error_message();
  EXPECT_EQ(chunks_of(r), (ChunkList{{2, 2}}));
  ca::test::expect_close(compute(c.ctx, r), ca::test::run_numpy("result = np.sum(x * y, axis=-1)", {{"x", x}, {"y", y}}),
                         1e-12, 1e-12, "allow_rechunk");
  ca_array_free(r);
  // loop chunks differ (core dims single): an error without allow_rechunk
  ca_array_t *a1 = from_npy(x, {{2, 2}, {9}}), *b1 = from_npy(y, {{4}, {9}});
  const ca_array_t *in1[2] = {a1, b1};
  r = reinterpret_cast<ca_array_t *>(0x1);
  EXPECT_EQ(ca_array_apply_gufunc(&r, 1, "g.inner", "(i),(i)->()", in1, 2, nullptr), CA_EINVAL);
  EXPECT_NE(std::string(ca_last_error_message()).find("chunked differently"), std::string::npos)
      << ca_last_error_message();
  EXPECT_EQ(r, nullptr);
  ASSERT_EQ(ca_array_apply_gufunc(&r, 1, "g.inner", "(i),(i)->()", in1, 2, &o), CA_OK) << ca_last_error_message();
  // loop chunks unified: (2, 2) and (4,) -> (2, 2)
  EXPECT_EQ(chunks_of(r), (ChunkList{{2, 2}}));
  ca::test::expect_close(compute(c.ctx, r), ca::test::run_numpy("result = np.sum(x * y, axis=-1)", {{"x", x}, {"y", y}}),
                         1e-12, 1e-12, "allow_rechunk loop");
  ca_array_free(r);
  ca_array_free(a1);
  ca_array_free(b1);
  ca_array_free(a);
  ca_array_free(b);
}

TEST(Gufunc, Errors) {
  Npy x = data({4, 5}), y = data({4, 6}), z = data({3, 5});
  ca_array_t *a = from_npy(x, {{4}, {5}}), *b = from_npy(y, {{4}, {6}}), *d = from_npy(z, {{3}, {5}});
  ca_array_t *r = reinterpret_cast<ca_array_t *>(0x1);
  auto expect = [&](ca_status_t want, const char *sig, std::vector<const ca_array_t *> in, const char *msg) {
    r = reinterpret_cast<ca_array_t *>(0x1);
    EXPECT_EQ(ca_array_apply_gufunc(&r, 1, "g.inner", sig, in.data(), in.size(), nullptr), want) << sig;
    EXPECT_EQ(r, nullptr);
    std::string m = ca_last_error_message();
    EXPECT_NE(m.find(msg), std::string::npos) << sig << ": " << m;
  };
  expect(CA_EINVAL, "(i),(i->()", {a, a}, "bad gufunc signature");
  expect(CA_EINVAL, "(i),(i)->()", {a}, "takes 2 inputs, got 1 array");
  expect(CA_EINVAL, "(i),(i)->()", {a, a, a}, "takes 2 inputs, got 3 arrays");
  expect(CA_EINVAL, "(i),(i)->()", {a, b}, "core dimension 'i' has size 5 in input 0 but 6 in input 1");
  expect(CA_EINVAL, "(i),(i)->()", {a, d}, "do not broadcast");
  expect(CA_EINVAL, "(i,j,k)->()", {a}, "input 0 has 2 dimensions but its core dimensions (i,j,k) need at least 3");
  expect(CA_EINVAL, "->()", {}, "has no inputs");
  expect(CA_EINVAL, "(i)->(i,i)", {a}, "repeated in output 0");
  const ca_array_t *nul[1] = {nullptr};
  EXPECT_EQ(ca_array_apply_gufunc(&r, 1, "g.inner", "(i)->()", nul, 1, nullptr), CA_EINVAL);
  EXPECT_EQ(ca_array_apply_gufunc(&r, 1, nullptr, "(i)->()", nul, 1, nullptr), CA_EINVAL);
  EXPECT_EQ(ca_array_apply_gufunc(nullptr, 1, "g.inner", "(i)->()", nul, 1, nullptr), CA_EINVAL);
  // output_sizes that contradict the inputs
  const char *names[1] = {"i"};
  int64_t sizes[1] = {7};
  ca_gufunc_options_t o = CA_GUFUNC_OPTIONS_INIT;
  o.output_size_names = names;
  o.output_sizes = sizes;
  o.noutput_sizes = 1;
  const ca_array_t *in[1] = {a};
  EXPECT_EQ(ca_array_apply_gufunc(&r, 1, "g.mean", "(i)->(i)", in, 1, &o), CA_EINVAL);
  EXPECT_NE(std::string(ca_last_error_message()).find("output_sizes gives dimension 'i' size 7"), std::string::npos);
  ca_array_free(a);
  ca_array_free(b);
  ca_array_free(d);
}

}  // namespace
