// overlap / trim_internal / map_overlap through the C API. References: dask.array.overlap.overlap and
// map_overlap computed by Debian's python3-dask at test time, and NumPy (np.pad + a stencil on the
// whole array).
#include <chunkarray/chunkarray.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <numeric>
#include <sstream>
#include <vector>

#include "array/create.hpp"
#include "array/overlap.hpp"
#include "numpy_ref.hpp"

namespace {

using ca::test::Npy;

struct Ctx {
  ca_context_t *ctx = nullptr;
  Ctx() { EXPECT_EQ(ca_context_new(&ctx, nullptr), CA_OK); }
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

using ChunkList = std::vector<std::vector<int64_t>>;

ca_chunks_t view(const ChunkList &c, std::vector<int64_t> &nb, std::vector<int64_t> &sz) {
  nb.clear();
  sz.clear();
  for (auto &d : c) {
    nb.push_back(int64_t(d.size()));
    sz.insert(sz.end(), d.begin(), d.end());
  }
  return ca_chunks_t{int32_t(c.size()), nb.data(), sz.data()};
}

ca_array_t *from_npy(const Npy &n, const ChunkList &chunks) {
  std::vector<int64_t> nb, sz;
  ca_chunks_t c = view(chunks, nb, sz);
  ca_array_t *a = nullptr;
  EXPECT_EQ(ca_array_from_buffer(&a, n.data.data(), n.dtype, int32_t(n.shape.size()), n.shape.data(), &c, nullptr),
            CA_OK)
      << ca_last_error_message();
  return a;
}

Npy arange_npy(std::vector<int64_t> shape, ca_dtype_t dt = CA_FLOAT64) {
  Npy r;
  r.dtype = dt;
  r.shape = std::move(shape);
  r.data.resize(size_t(r.size()) * ca::dtype_size(dt));
  ca::dispatch_dtype(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_arithmetic_v<T>) {
      T *p = reinterpret_cast<T *>(r.data.data());
      for (int64_t i = 0; i < r.size(); ++i) p[i] = T((i * 7 + 3) % 23) - T(dt == CA_UINT8 ? 0 : 5);
    }
  });
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

std::string py_chunks(const ChunkList &c) {
  std::ostringstream os;
  os << "(";
  for (auto &d : c) {
    os << "(";
    for (auto s : d) os << s << ",";
    os << "),";
  }
  os << ")";
  return os.str();
}

std::string py_boundary(const std::vector<ca_boundary_t> &b) {
  std::ostringstream os;
  os << "{";
  for (size_t d = 0; d < b.size(); ++d) {
    os << d << ": ";
    switch (b[d].kind) {
      case CA_BOUNDARY_NONE: os << "'none'"; break;
      case CA_BOUNDARY_REFLECT: os << "'reflect'"; break;
      case CA_BOUNDARY_PERIODIC: os << "'periodic'"; break;
      case CA_BOUNDARY_NEAREST: os << "'nearest'"; break;
      default: os << b[d].value; break;
    }
    os << ", ";
  }
  os << "}";
  return os.str();
}

std::string py_depth(const std::vector<int64_t> &lo, const std::vector<int64_t> &hi) {
  std::ostringstream os;
  os << "{";
  for (size_t d = 0; d < lo.size(); ++d) {
    os << d << ": ";
    if (lo[d] == hi[d]) os << lo[d];
    else os << "(" << lo[d] << ", " << hi[d] << ")";
    os << ", ";
  }
  os << "}";
  return os.str();
}

struct Case {
  std::vector<int64_t> lo, hi;
  std::vector<ca_boundary_t> bnd;
};

struct Packed {
  ChunkList chunks;
  std::vector<double> data;
};

// Run dask's overlap for every case over x (chunks `chunks`) in one Python process.
std::vector<Packed> dask_overlaps(const Npy &x, const ChunkList &chunks, const std::vector<Case> &cases) {
  std::ostringstream py;
  py << "import dask, dask.array as da\n"
        "dask.config.set(scheduler='synchronous')\n"
        "def pack(r):\n"
        "    c = r.chunks\n"
        "    v = np.asarray(r.compute(), dtype=float).ravel()\n"
        "    head = [len(c)] + [len(d) for d in c] + [s for d in c for s in d] + [v.size]\n"
        "    return np.concatenate([np.asarray(head, dtype=float), v])\n"
     << "X = da.from_array(x, chunks=" << py_chunks(chunks) << ")\n"
     << "cases = []\n";
  for (auto &c : cases)
    py << "cases.append(da.overlap.overlap(X, depth=" << py_depth(c.lo, c.hi) << ", boundary=" << py_boundary(c.bnd)
       << "))\n";
  py << "result = np.concatenate([pack(r) for r in cases])\n";
  Npy r = ca::test::run_numpy(py.str(), {{"x", x}});
  const double *p = r.as<double>();
  size_t pos = 0, n = size_t(r.size());
  std::vector<Packed> out;
  for (size_t k = 0; k < cases.size(); ++k) {
    Packed pk;
    EXPECT_LT(pos, n);
    size_t nd = size_t(p[pos++]);
    std::vector<size_t> nb;
    for (size_t d = 0; d < nd; ++d) nb.push_back(size_t(p[pos++]));
    for (size_t d = 0; d < nd; ++d) {
      std::vector<int64_t> c;
      for (size_t j = 0; j < nb[d]; ++j) c.push_back(int64_t(p[pos++]));
      pk.chunks.push_back(c);
    }
    size_t total = size_t(p[pos++]);
    pk.data.assign(p + pos, p + pos + total);
    pos += total;
    out.push_back(std::move(pk));
  }
  return out;
}

std::vector<double> as_doubles(const Npy &n) {
  std::vector<double> v;
  for (int64_t i = 0; i < n.size(); ++i) v.push_back(ca::test::element(n, i).real());
  return v;
}

// Compare ca_array_overlap with dask over every case.
void check_against_dask(ca_dtype_t dt, std::vector<int64_t> shape, const ChunkList &chunks,
                        const std::vector<Case> &cases) {
  Ctx c;
  Npy x = arange_npy(shape, dt);
  ca_array_t *a = from_npy(x, chunks);
  auto want = dask_overlaps(x, chunks, cases);
  ASSERT_EQ(want.size(), cases.size());
  for (size_t k = 0; k < cases.size(); ++k) {
    const Case &cs = cases[k];
    ca_overlap_options_t o = CA_OVERLAP_OPTIONS_INIT;
    o.depth_after = cs.hi.data();
    ca_array_t *y = nullptr;
    std::string what = "case " + std::to_string(k) + ": depth " + py_depth(cs.lo, cs.hi) + " boundary " +
                       py_boundary(cs.bnd) + " chunks " + py_chunks(chunks);
    ASSERT_EQ(ca_array_overlap(&y, a, cs.lo.data(), cs.bnd.data(), &o), CA_OK) << what << ": " << ca_last_error_message();
    EXPECT_EQ(chunks_of(y), want[k].chunks) << what;
    Npy got = compute(c.ctx, y);
    EXPECT_EQ(got.dtype, dt) << what;
    EXPECT_EQ(as_doubles(got), want[k].data) << what;
    ca_array_free(y);
  }
  ca_array_free(a);
}

const ca_boundary_t kNone = ca_boundary(CA_BOUNDARY_NONE), kReflect = ca_boundary(CA_BOUNDARY_REFLECT),
                    kPeriodic = ca_boundary(CA_BOUNDARY_PERIODIC), kNearest = ca_boundary(CA_BOUNDARY_NEAREST);

TEST(Overlap, EnsureMinimumChunksizeIsDasks) {
  EXPECT_EQ(ca::ensure_minimum_chunksize(10, {20, 20, 1}), (std::vector<int64_t>{20, 11, 10}));
  EXPECT_EQ(ca::ensure_minimum_chunksize(3, {1, 1, 3}), (std::vector<int64_t>{5}));
  EXPECT_THROW(ca::ensure_minimum_chunksize(5, {2, 2}), ca::Error);
  // Against dask itself on a few chunkings.
  std::vector<std::pair<int64_t, std::vector<int64_t>>> in = {
      {2, {5, 1, 5}}, {3, {1, 1, 1, 1, 1, 1, 1}}, {4, {4, 1, 1, 9, 2, 3}}, {2, {2, 3, 1}}, {1, {1, 1}}};
  std::ostringstream py;
  py << "from dask.array.overlap import ensure_minimum_chunksize as e\nout = []\n";
  for (auto &c : in) {
    py << "r = e(" << c.first << ", (";
    for (auto s : c.second) py << s << ",";
    py << "))\nout += [len(r)] + list(r)\n";
  }
  py << "result = np.asarray(out, dtype=np.int64)\n";
  Npy r = ca::test::run_numpy(py.str());
  size_t pos = 0;
  for (auto &c : in) {
    size_t n = size_t(r.as<int64_t>()[pos++]);
    std::vector<int64_t> want(r.as<int64_t>() + pos, r.as<int64_t>() + pos + n);
    pos += n;
    EXPECT_EQ(ca::ensure_minimum_chunksize(c.first, c.second), want) << "depth " << c.first;
  }
}

TEST(Overlap, EveryBoundary1DRaggedVsDask) {
  std::vector<Case> cases;
  for (ca_boundary_t b : {kNone, kReflect, kPeriodic, kNearest, ca_boundary_constant(-7.0)}) {
    cases.push_back({{2}, {2}, {b}});
    cases.push_back({{1}, {1}, {b}});
    cases.push_back({{3}, {3}, {b}});  // chunk 3 < ... rechunk of the 2-block
  }
  cases.push_back({{1}, {2}, {kNone}});  // asymmetric
  cases.push_back({{0}, {3}, {kNone}});
  check_against_dask(CA_FLOAT64, {17}, {{5, 3, 6, 2, 1}}, cases);
  // One block: the boundary alone extends it.
  std::vector<Case> one;
  for (ca_boundary_t b : {kNone, kReflect, kPeriodic, kNearest, ca_boundary_constant(2.5)}) one.push_back({{2}, {2}, {b}});
  check_against_dask(CA_FLOAT64, {6}, {{6}}, one);
}

TEST(Overlap, EveryBoundary2DRaggedVsDask) {
  std::vector<Case> cases;
  for (ca_boundary_t b : {kNone, kReflect, kPeriodic, kNearest, ca_boundary_constant(100.0)})
    cases.push_back({{2, 1}, {2, 1}, {b, b}});
  cases.push_back({{2, 1}, {2, 1}, {kReflect, ca_boundary_constant(100.0)}});
  cases.push_back({{1, 2}, {1, 2}, {ca_boundary_constant(-1.0), kPeriodic}});
  cases.push_back({{1, 2}, {1, 2}, {ca_boundary_constant(-1.0), ca_boundary_constant(9.0)}});
  cases.push_back({{1, 1}, {1, 1}, {kPeriodic, kNearest}});
  cases.push_back({{2, 0}, {2, 0}, {kNone, kPeriodic}});
  cases.push_back({{0, 3}, {0, 3}, {kNearest, kReflect}});
  cases.push_back({{1, 2}, {2, 1}, {kNone, kNone}});  // asymmetric on both axes
  check_against_dask(CA_FLOAT64, {9, 11}, {{2, 4, 3}, {5, 1, 5}}, cases);
}

TEST(Overlap, Boundaries3DAndIntegerDtypesVsDask) {
  std::vector<Case> cases = {
      {{1, 2, 1}, {1, 2, 1}, {kReflect, kPeriodic, ca_boundary_constant(3.0)}},
      {{1, 1, 1}, {1, 1, 1}, {kNearest, kNone, kReflect}},
      {{2, 1, 2}, {2, 1, 2}, {kPeriodic, kPeriodic, kPeriodic}},
      {{1, 1, 1}, {1, 1, 1}, {kNone, kNone, kNone}},
  };
  check_against_dask(CA_FLOAT64, {5, 6, 7}, {{2, 3}, {3, 3}, {4, 3}}, cases);
  std::vector<Case> ints = {{{2, 1}, {2, 1}, {ca_boundary_constant(100.0), kReflect}},
                            {{1, 1}, {1, 1}, {kPeriodic, kNearest}}};
  check_against_dask(CA_INT32, {8, 8}, {{4, 4}, {3, 5}}, ints);
  check_against_dask(CA_UINT8, {8, 8}, {{4, 4}, {3, 5}}, ints);
  check_against_dask(CA_FLOAT32, {7}, {{3, 4}}, {{{2}, {2}, {kReflect}}, {{2}, {2}, {ca_boundary_constant(0.5)}}});
}

TEST(Overlap, EmptyAndSizeOneDimsVsDask) {
  std::vector<Case> cases;
  for (ca_boundary_t b : {kNone, kReflect, kPeriodic, kNearest, ca_boundary_constant(8.0)})
    cases.push_back({{1, 2}, {1, 2}, {b, b}});
  check_against_dask(CA_FLOAT64, {1, 7}, {{1}, {3, 4}}, cases);
  check_against_dask(CA_FLOAT64, {0, 7}, {{0}, {3, 4}},
                     {{{0, 2}, {0, 2}, {kReflect, kReflect}}, {{0, 1}, {0, 1}, {kNone, kPeriodic}}});
  check_against_dask(CA_INT64, {3, 1, 4}, {{1, 2}, {1}, {2, 2}},
                     {{{1, 1, 1}, {1, 1, 1}, {kPeriodic, kReflect, kNearest}}});
}

TEST(Overlap, TrimInternalUndoesOverlap) {
  Ctx c;
  Npy x = arange_npy({9, 11});
  ChunkList ch = {{2, 4, 3}, {5, 2, 4}};
  ca_array_t *a = from_npy(x, ch);
  for (ca_boundary_t b : {kNone, kReflect, kPeriodic, kNearest, ca_boundary_constant(4.0)}) {
    int64_t depth[2] = {2, 1};
    ca_boundary_t bnd[2] = {b, b};
    ca_array_t *y = nullptr, *t = nullptr;
    ASSERT_EQ(ca_array_overlap(&y, a, depth, bnd, nullptr), CA_OK) << ca_last_error_message();
    ASSERT_EQ(ca_array_trim_internal(&t, y, depth, bnd, nullptr), CA_OK) << ca_last_error_message();
    EXPECT_EQ(chunks_of(t), ch);
    ca::test::expect_equal(compute(c.ctx, t), x, "trim_internal(overlap(x))");
    ca_array_free(y);
    ca_array_free(t);
  }
  // Trimming more than a block holds fails, naming the block.
  int64_t big[2] = {3, 0};
  ca_boundary_t bnd[2] = {kReflect, kReflect};
  ca_array_t *t = reinterpret_cast<ca_array_t *>(0x1);
  EXPECT_EQ(ca_array_trim_internal(&t, a, big, bnd, nullptr), CA_EINVAL);
  EXPECT_EQ(t, nullptr);
  EXPECT_NE(std::string(ca_last_error_message()).find("block 0 along axis 0"), std::string::npos)
      << ca_last_error_message();
  ca_array_free(a);
}

TEST(Overlap, Errors) {
  Npy x = arange_npy({10});
  ca_array_t *a = from_npy(x, {{4, 2, 4}});
  ca_array_t *y = reinterpret_cast<ca_array_t *>(0x1);
  int64_t d3[1] = {3};
  ca_boundary_t b[1] = {kReflect};
  // depth larger than a chunk without allow_rechunk
  ca_overlap_options_t o = CA_OVERLAP_OPTIONS_INIT;
  o.allow_rechunk = 0;
  EXPECT_EQ(ca_array_overlap(&y, a, d3, b, &o), CA_EINVAL);
  EXPECT_EQ(y, nullptr);
  std::string msg = ca_last_error_message();
  EXPECT_NE(msg.find("larger than the smallest chunk 2"), std::string::npos) << msg;
  EXPECT_NE(msg.find("axis 0"), std::string::npos) << msg;
  // ... which rechunks by default (dask's ensure_minimum_chunksize: (6, 4))
  ASSERT_EQ(ca_array_overlap(&y, a, d3, b, nullptr), CA_OK) << ca_last_error_message();
  EXPECT_EQ(chunks_of(y), (ChunkList{{6 + 6, 4 + 6}}));
  ca_array_free(y);
  // depth larger than the array
  int64_t d11[1] = {11};
  EXPECT_EQ(ca_array_overlap(&y, a, d11, b, nullptr), CA_EINVAL);
  EXPECT_NE(std::string(ca_last_error_message()).find("larger than the array's extent 10"), std::string::npos)
      << ca_last_error_message();
  // negative depth, unknown boundary, asymmetric with reflect, NULL array / out
  int64_t dneg[1] = {-1};
  EXPECT_EQ(ca_array_overlap(&y, a, dneg, b, nullptr), CA_EINVAL);
  EXPECT_NE(std::string(ca_last_error_message()).find("negative"), std::string::npos);
  ca_boundary_t weird[1] = {ca_boundary(ca_boundary_kind_t(9))};
  int64_t d1[1] = {1};
  EXPECT_EQ(ca_array_overlap(&y, a, d1, weird, nullptr), CA_EINVAL);
  EXPECT_NE(std::string(ca_last_error_message()).find("unknown boundary kind 9"), std::string::npos);
  int64_t after[1] = {2};
  o = CA_OVERLAP_OPTIONS_INIT;
  o.depth_after = after;
  EXPECT_EQ(ca_array_overlap(&y, a, d1, b, &o), CA_EUNSUPPORTED);
  EXPECT_NE(std::string(ca_last_error_message()).find("asymmetric"), std::string::npos);
  EXPECT_EQ(ca_array_overlap(&y, nullptr, d1, b, nullptr), CA_EINVAL);
  EXPECT_EQ(ca_array_overlap(nullptr, a, d1, b, nullptr), CA_EINVAL);
  EXPECT_EQ(ca_array_map_overlap(&y, "x", nullptr, 0, d1, b, nullptr, 0, nullptr), CA_EINVAL);
  EXPECT_EQ(y, nullptr);
  // more than 10 overlapped axes
  {
    std::vector<int64_t> shape(11, 1), d11s(11, 1);
    Npy one = arange_npy(shape);
    ca_array_t *a11 = from_npy(one, ChunkList(11, std::vector<int64_t>{1}));
    EXPECT_EQ(ca_array_overlap(&y, a11, d11s.data(), nullptr, nullptr), CA_EUNSUPPORTED);
    EXPECT_NE(std::string(ca_last_error_message()).find("11 overlapped axes"), std::string::npos);
    ca_array_free(a11);
  }
  // depth 0 / NULL depth: the input itself
  ASSERT_EQ(ca_array_overlap(&y, a, nullptr, nullptr, nullptr), CA_OK);
  EXPECT_STREQ(ca_array_name(y), ca_array_name(a));
  ca_array_free(y);
  ca_array_free(a);
}

// ---- stencil kernels ------------------------------------------------------------------------------

double get(const ca_block_t *b, int64_t i) {
  switch (ca_block_dtype(b)) {
    case CA_FLOAT64: return static_cast<const double *>(ca_block_data(b))[i];
    case CA_FLOAT32: return double(static_cast<const float *>(ca_block_data(b))[i]);
    case CA_INT32: return double(static_cast<const int32_t *>(ca_block_data(b))[i]);
    case CA_INT64: return double(static_cast<const int64_t *>(ca_block_data(b))[i]);
    default: return NAN;
  }
}

// laplace(block): the 2*ndim+1-point Laplacian at every point of the block, 0 on its outer ring
// (those points are trimmed away).
ca_status_t k_laplace(ca_block_t **out, const ca_arg_t *a, size_t n, ca_kernel_ctx_t *kc, void *) {
  if (n != 1 || a[0].kind != CA_ARG_BLOCK) {
    ca_kernel_set_error(kc, "laplace: one block expected");
    return CA_EINVAL;
  }
  const ca_block_t *b = a[0].u.block;
  int32_t nd = ca_block_ndim(b);
  const int64_t *sh = ca_block_shape(b);
  ca_status_t st = ca_block_new(out, CA_FLOAT64, nd, sh);
  if (st) return st;
  double *o = static_cast<double *>(ca_block_data(*out));
  std::vector<int64_t> stride(size_t(nd), 1);
  for (int32_t d = nd - 2; d >= 0; --d) stride[size_t(d)] = stride[size_t(d + 1)] * sh[d + 1];
  for (int64_t i = 0; i < ca_block_size(b); ++i) {
    bool edge = false;
    double v = -2.0 * nd * get(b, i);
    for (int32_t d = 0; d < nd; ++d) {
      int64_t p = (i / stride[size_t(d)]) % sh[d];
      if (p == 0 || p == sh[d] - 1) {
        edge = true;
        break;
      }
      v += get(b, i - stride[size_t(d)]) + get(b, i + stride[size_t(d)]);
    }
    o[i] = edge ? 0.0 : v;
  }
  return CA_OK;
}

// movavg(block, half): centred moving average of width 2*half+1 along the last axis (edges 0).
ca_status_t k_movavg(ca_block_t **out, const ca_arg_t *a, size_t n, ca_kernel_ctx_t *kc, void *) {
  if (n != 2 || a[0].kind != CA_ARG_BLOCK || a[1].kind != CA_ARG_INT64) {
    ca_kernel_set_error(kc, "movavg: (block, half) expected");
    return CA_EINVAL;
  }
  const ca_block_t *b = a[0].u.block;
  int64_t h = a[1].u.i64, nd = ca_block_ndim(b), len = ca_block_shape(b)[nd - 1];
  ca_status_t st = ca_block_new(out, CA_FLOAT64, int32_t(nd), ca_block_shape(b));
  if (st) return st;
  double *o = static_cast<double *>(ca_block_data(*out));
  for (int64_t i = 0; i < ca_block_size(b); ++i) {
    int64_t p = i % len;
    if (p < h || p >= len - h) {
      o[i] = 0;
      continue;
    }
    double s = 0;
    for (int64_t k = -h; k <= h; ++k) s += get(b, i + k);
    o[i] = s / double(2 * h + 1);
  }
  return CA_OK;
}

// laplace_trimmed(block): the 3-point Laplacian of a 1-d block's interior (trims depth 1 itself).
ca_status_t k_laplace_trimmed(ca_block_t **out, const ca_arg_t *a, size_t, ca_kernel_ctx_t *, void *) {
  const ca_block_t *b = a[0].u.block;
  int64_t len = ca_block_shape(b)[0] - 2;
  ca_status_t st = ca_block_new(out, CA_FLOAT64, 1, &len);
  if (st) return st;
  double *o = static_cast<double *>(ca_block_data(*out));
  for (int64_t i = 0; i < len; ++i) o[i] = get(b, i) - 2 * get(b, i + 1) + get(b, i + 2);
  return CA_OK;
}

// add_bcast(x, y): x + y, y broadcast along x's leading axes (y has x's trailing shape).
ca_status_t k_add_bcast(ca_block_t **out, const ca_arg_t *a, size_t, ca_kernel_ctx_t *kc, void *) {
  const ca_block_t *x = a[0].u.block, *y = a[1].u.block;
  int64_t ny = ca_block_size(y);
  if (ny == 0 || ca_block_size(x) % ny != 0) {
    ca_kernel_set_error(kc, "add_bcast: shapes do not broadcast");
    return CA_EINVAL;
  }
  ca_status_t st = ca_block_new(out, CA_FLOAT64, ca_block_ndim(x), ca_block_shape(x));
  if (st) return st;
  double *o = static_cast<double *>(ca_block_data(*out));
  for (int64_t i = 0; i < ca_block_size(x); ++i) o[i] = get(x, i) + get(y, i % ny);
  return CA_OK;
}

const char *np_mode(int32_t kind) {
  switch (kind) {
    case CA_BOUNDARY_REFLECT: return "symmetric";
    case CA_BOUNDARY_PERIODIC: return "wrap";
    case CA_BOUNDARY_NEAREST: return "edge";
    default: return "constant";
  }
}

// NumPy: pad each axis by 1 with its boundary's mode, apply the Laplacian on the whole array.
std::string np_laplace(const std::vector<ca_boundary_t> &b) {
  std::ostringstream py;
  py << "p = x.astype(float)\n";
  for (size_t d = 0; d < b.size(); ++d) {
    py << "w = [(0, 0)] * x.ndim\nw[" << d << "] = (1, 1)\n";
    if (b[d].kind == CA_BOUNDARY_CONSTANT)
      py << "p = np.pad(p, w, mode='constant', constant_values=" << b[d].value << ")\n";
    else
      py << "p = np.pad(p, w, mode='" << np_mode(b[d].kind) << "')\n";
  }
  py << "c = tuple(slice(1, -1) for _ in range(x.ndim))\n"
        "result = -2.0 * x.ndim * p[c]\n"
        "for d in range(x.ndim):\n"
        "    lo = list(c); lo[d] = slice(0, -2)\n"
        "    hi = list(c); hi[d] = slice(2, None)\n"
        "    result = result + p[tuple(lo)] + p[tuple(hi)]\n";
  return py.str();
}

TEST(MapOverlap, Laplacian1DEveryBoundaryVsNumpy) {
  Ctx c;
  ASSERT_EQ(ca_context_register(c.ctx, "t.laplace", k_laplace, nullptr), CA_OK);
  Npy x = arange_npy({23});
  ca_array_t *a = from_npy(x, {{5, 1, 6, 4, 7}});
  int64_t live0 = ca::block_live_count();
  for (ca_boundary_t b : {kReflect, kPeriodic, kNearest, ca_boundary_constant(0.0), ca_boundary_constant(-3.5)}) {
    int64_t depth[1] = {1};
    ca_array_t *y = nullptr;
    ASSERT_EQ(ca_array_map_overlap(&y, "t.laplace", &a, 1, depth, &b, nullptr, 0, nullptr), CA_OK)
        << ca_last_error_message();
    // dask's chunks: (5, 1, 6, 4, 7) after trimming (no rechunk needed for depth 1)
    EXPECT_EQ(chunks_of(y), (ChunkList{{5, 1, 6, 4, 7}}));
    Npy want = ca::test::run_numpy(np_laplace({b}), {{"x", x}});
    ca::test::expect_close(compute(c.ctx, y), want, 1e-12, 1e-12, std::string("boundary ") + ca::overlap_boundary_name(b.kind));
    ca_array_free(y);
  }
  EXPECT_EQ(ca::block_live_count(), live0);
  ca_array_free(a);
}

TEST(MapOverlap, Laplacian2DAnd3DMixedBoundariesVsNumpy) {
  Ctx c;
  ASSERT_EQ(ca_context_register(c.ctx, "t.laplace", k_laplace, nullptr), CA_OK);
  {
    Npy x = arange_npy({10, 13});
    ca_array_t *a = from_npy(x, {{3, 1, 6}, {4, 4, 5}});
    std::vector<std::vector<ca_boundary_t>> bs = {{kPeriodic, kReflect},
                                                  {ca_boundary_constant(1.0), kNearest},
                                                  {kNearest, kPeriodic},
                                                  {kReflect, kReflect}};
    for (auto &b : bs) {
      int64_t depth[2] = {1, 1};
      ca_array_t *y = nullptr;
      ASSERT_EQ(ca_array_map_overlap(&y, "t.laplace", &a, 1, depth, b.data(), nullptr, 0, nullptr), CA_OK)
          << ca_last_error_message();
      ca::test::expect_close(compute(c.ctx, y), ca::test::run_numpy(np_laplace(b), {{"x", x}}), 1e-12, 1e-12,
                             "2-d laplace");
      ca_array_free(y);
    }
    ca_array_free(a);
  }
  {
    Npy x = arange_npy({6, 5, 7});
    ca_array_t *a = from_npy(x, {{2, 4}, {5}, {3, 2, 2}});
    std::vector<ca_boundary_t> b = {kReflect, kPeriodic, ca_boundary_constant(2.0)};
    int64_t depth[3] = {1, 1, 1};
    ca_array_t *y = nullptr;
    ASSERT_EQ(ca_array_map_overlap(&y, "t.laplace", &a, 1, depth, b.data(), nullptr, 0, nullptr), CA_OK)
        << ca_last_error_message();
    EXPECT_EQ(chunks_of(y), (ChunkList{{2, 4}, {5}, {3, 2, 2}}));
    ca::test::expect_close(compute(c.ctx, y), ca::test::run_numpy(np_laplace(b), {{"x", x}}), 1e-12, 1e-12,
                           "3-d laplace");
    ca_array_free(y);
    ca_array_free(a);
  }
}

TEST(MapOverlap, MovingAverageRechunksSmallBlocks) {
  Ctx c;
  ASSERT_EQ(ca_context_register(c.ctx, "t.movavg", k_movavg, nullptr), CA_OK);
  Npy x = arange_npy({4, 19}, CA_FLOAT32);
  // blocks of 1 along the averaged axis are smaller than the depth 2: dask rechunks them
  ca_array_t *a = from_npy(x, {{2, 2}, {1, 1, 5, 3, 1, 8}});
  int64_t depth[2] = {0, 2};
  ca_boundary_t b[2] = {kNone, kNearest};
  ca_arg_t half = ca_arg_i64(2);
  ca_map_overlap_options_t mo = CA_MAP_OVERLAP_OPTIONS_INIT;
  mo.dtype = CA_FLOAT64;
  ca_array_t *y = nullptr;
  ASSERT_EQ(ca_array_map_overlap(&y, "t.movavg", &a, 1, depth, b, &half, 1, &mo), CA_OK) << ca_last_error_message();
  Npy want = ca::test::run_numpy(
      "p = np.pad(x.astype(float), [(0, 0), (2, 2)], mode='edge')\n"
      "result = sum(p[:, k:k + x.shape[1]] for k in range(5)) / 5.0",
      {{"x", x}});
  ca::test::expect_close(compute(c.ctx, y), want, 1e-6, 1e-6, "moving average");
  // the chunks are dask's
  Npy dchunks = ca::test::run_numpy(
      "import dask.array as da\n"
      "r = da.overlap.trim_internal(da.overlap.overlap(da.from_array(x, chunks=((2, 2), (1, 1, 5, 3, 1, 8))), "
      "depth={0: 0, 1: 2}, boundary={0: 'none', 1: 'nearest'}), {0: 0, 1: 2}, {0: 'none', 1: 'nearest'})\n"
      "result = np.asarray(r.chunks[1], dtype=np.int64)",
      {{"x", x}});
  EXPECT_EQ(chunks_of(y)[1], std::vector<int64_t>(dchunks.as<int64_t>(), dchunks.as<int64_t>() + dchunks.size()));
  // depth larger than a chunk without allow_rechunk fails
  mo.allow_rechunk = 0;
  ca_array_t *bad = reinterpret_cast<ca_array_t *>(0x1);
  EXPECT_EQ(ca_array_map_overlap(&bad, "t.movavg", &a, 1, depth, b, &half, 1, &mo), CA_EINVAL);
  EXPECT_EQ(bad, nullptr);
  EXPECT_NE(std::string(ca_last_error_message()).find("smallest chunk 1"), std::string::npos) << ca_last_error_message();
  ca_array_free(y);
  ca_array_free(a);
}

TEST(MapOverlap, NoTrimKernelTrimsItself) {
  Ctx c;
  ASSERT_EQ(ca_context_register(c.ctx, "t.lap_trimmed", k_laplace_trimmed, nullptr), CA_OK);
  Npy x = arange_npy({15});
  ca_array_t *a = from_npy(x, {{4, 4, 7}});
  int64_t depth[1] = {1};
  ca_boundary_t b[1] = {kPeriodic};
  ca_map_overlap_options_t mo = CA_MAP_OVERLAP_OPTIONS_INIT;
  mo.trim = 0;
  ca_array_t *y = nullptr;
  ASSERT_EQ(ca_array_map_overlap(&y, "t.lap_trimmed", &a, 1, depth, b, nullptr, 0, &mo), CA_OK)
      << ca_last_error_message();
  EXPECT_EQ(chunks_of(y), (ChunkList{{4, 4, 7}}));
  ca::test::expect_close(compute(c.ctx, y), ca::test::run_numpy(np_laplace({kPeriodic}), {{"x", x}}), 1e-12, 1e-12,
                         "trim=false");
  ca_array_free(y);
  ca_array_free(a);
}

TEST(MapOverlap, TwoArraysBroadcastAsDasksExample) {
  Ctx c;
  ASSERT_EQ(ca_context_register(c.ctx, "t.add", k_add_bcast, nullptr), CA_OK);
  // dask's docstring: x = arange(8).reshape(2, 4).rechunk((1, 2)); y = arange(4).rechunk(2)
  Npy xv = arange_npy({2, 4}), yv = arange_npy({4});
  double *px = reinterpret_cast<double *>(xv.data.data()), *py = reinterpret_cast<double *>(yv.data.data());
  for (int i = 0; i < 8; ++i) px[i] = i;
  for (int i = 0; i < 4; ++i) py[i] = i;
  ca_array_t *x = from_npy(xv, {{1, 1}, {2, 2}}), *y = from_npy(yv, {{2, 2}});
  const ca_array_t *in[2] = {x, y};
  int64_t depth[2] = {1, 1};
  ca_boundary_t b[2] = {kReflect, kReflect};
  ca_array_t *r = nullptr;
  ASSERT_EQ(ca_array_map_overlap(&r, "t.add", in, 2, depth, b, nullptr, 0, nullptr), CA_OK) << ca_last_error_message();
  Npy got = compute(c.ctx, r);
  std::vector<double> want = {0, 2, 4, 6, 4, 6, 8, 10};
  EXPECT_EQ(as_doubles(got), want);
  // depth 0 is map_blocks
  int64_t zero[2] = {0, 0};
  ca_array_t *r0 = nullptr;
  ASSERT_EQ(ca_array_map_overlap(&r0, "t.add", in, 2, zero, b, nullptr, 0, nullptr), CA_OK) << ca_last_error_message();
  EXPECT_EQ(as_doubles(compute(c.ctx, r0)), want);
  ca_array_free(r0);
  ca_array_free(r);
  ca_array_free(x);
  ca_array_free(y);
}

TEST(MapOverlap, MillionBlocksStaySymbolic) {
  // 1M blocks: the overlap, map and trim layers are formulas (O(1) memory), built in well under a second.
  std::vector<int64_t> shape = {1000000};
  ca::Chunks ch = {std::vector<int64_t>(1000000, 1)};
  auto x = ca::zeros(shape, ch, CA_FLOAT64);
  ca::Depth d{{1}, {1}};
  std::vector<ca::BoundarySpec> b = {{CA_BOUNDARY_PERIODIC, 0}};
  auto y = ca::overlap(x, d, b, true);
  ca::MapOverlapOptions mo;
  auto z = ca::map_overlap("ca.identity", {x}, d, b, {}, mo);
  // (No timing here: unit tests are not benchmarks. The structure below is what keeps it O(1).)
  EXPECT_EQ(y->graph->find(y->name)->kind(), ca::LayerKind::Overlap);
  EXPECT_EQ(y->graph->find(y->name)->num_tasks(), 1000000);
  EXPECT_EQ(y->chunks[0][0], 3);
  for (auto &l : z->graph->layers()) EXPECT_NE(l->kind(), ca::LayerKind::Materialized) << l->name();
  EXPECT_EQ(z->chunks, x->chunks);
}

TEST(MapOverlap, HundredThousandBlocksComputeVsNumpy) {
  Ctx c;
  ASSERT_EQ(ca_context_register(c.ctx, "t.movavg", k_movavg, nullptr), CA_OK);
  Npy x = arange_npy({200000});
  ca_array_t *a = from_npy(x, {std::vector<int64_t>(100000, 2)});
  int64_t depth[1] = {1};
  ca_boundary_t b[1] = {kPeriodic};
  ca_arg_t half = ca_arg_i64(1);
  ca_array_t *y = nullptr;
  ASSERT_EQ(ca_array_map_overlap(&y, "t.movavg", &a, 1, depth, b, &half, 1, nullptr), CA_OK) << ca_last_error_message();
  Npy want = ca::test::run_numpy("p = np.pad(x, 1, mode='wrap')\nresult = (p[:-2] + p[1:-1] + p[2:]) / 3.0",
                                 {{"x", x}});
  ca::test::expect_close(compute(c.ctx, y), want, 1e-12, 1e-12, "100k blocks");
  ca_array_free(y);
  ca_array_free(a);
}

}  // namespace
