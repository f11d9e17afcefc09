// Array block primitives through the C API: the seed's model, map_blocks (block_info, drop/new axes),
// blockwise with contraction, rechunk, unify_chunks, strided and borrowed buffers, persist.
// NumPy (Debian's python3-numpy) is the reference.
#include <chunkarray/chunkarray.h>
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <vector>

#include "numpy_ref.hpp"

// A pointer to a temporary options struct, valid for the full expression (C++ has no compound literals).
template <class T>
static const T *opt_ptr(const T &o) {
  return &o;
}


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

ca_chunks_t view(const std::vector<std::vector<int64_t>> &c, std::vector<int64_t> &nb, std::vector<int64_t> &sz) {
  nb.clear();
  sz.clear();
  for (auto &d : c) {
    nb.push_back(int64_t(d.size()));
    sz.insert(sz.end(), d.begin(), d.end());
  }
  return ca_chunks_t{int32_t(c.size()), nb.data(), sz.data()};
}

ca_array_t *from_vec(const std::vector<double> &v, std::vector<int64_t> shape, const std::vector<std::vector<int64_t>> &chunks) {
  std::vector<int64_t> nb, sz;
  ca_chunks_t c = view(chunks, nb, sz);
  ca_array_t *a = nullptr;
  EXPECT_EQ(ca_array_from_buffer(&a, v.data(), CA_FLOAT64, int32_t(shape.size()), shape.data(), &c, nullptr),
            CA_OK)
      << ca_last_error_message();
  return a;
}

std::vector<double> iota(size_t n, double start = 0) {
  std::vector<double> v(n);
  std::iota(v.begin(), v.end(), start);
  return v;
}

// ---- kernels ----------------------------------------------------------------------------------

// scale(block, factor, block_index, block_origin): block * factor + origin[0] * 1000 (checks block_info)
ca_status_t k_scale_info(ca_block_t **out, const ca_arg_t *a, size_t n, ca_kernel_ctx_t *kc, void *) {
  if (n != 4 || a[0].kind != CA_ARG_BLOCK || a[1].kind != CA_ARG_FLOAT64 || a[2].kind != CA_ARG_TUPLE ||
      a[3].kind != CA_ARG_TUPLE) {
    ca_kernel_set_error(kc, "scale_info: bad arguments");
    return CA_EINVAL;
  }
  const ca_block_t *b = a[0].u.block;
  ca_status_t st = ca_block_new(out, CA_FLOAT64, ca_block_ndim(b), ca_block_shape(b));
  if (st) return st;
  const double *s = static_cast<const double *>(ca_block_data(b));
  double *d = static_cast<double *>(ca_block_data(*out));
  for (int64_t i = 0; i < ca_block_size(b); ++i) d[i] = s[i] * a[1].u.f64 + double(a[3].u.tuple.items[0]) * 1000.0;
  return CA_OK;
}

// rowsum(block): sums along axis 1 -> 1-d block (drop_axis=1)
ca_status_t k_rowsum(ca_block_t **out, const ca_arg_t *a, size_t, ca_kernel_ctx_t *, void *) {
  const ca_block_t *b = a[0].u.block;
  int64_t r = ca_block_shape(b)[0], c = ca_block_shape(b)[1];
  ca_status_t st = ca_block_new(out, CA_FLOAT64, 1, &r);
  if (st) return st;
  const double *s = static_cast<const double *>(ca_block_data(b));
  double *d = static_cast<double *>(ca_block_data(*out));
  for (int64_t i = 0; i < r; ++i) {
    d[i] = 0;
    for (int64_t j = 0; j < c; ++j) d[i] += s[i * c + j];
  }
  return CA_OK;
}

// matmul_blocks([A_i0, A_i1, ...], [B_0k, B_1k, ...]): sum_j A_ij @ B_jk (blockwise 'ik' from 'ij','jk')
ca_status_t k_matmul_lists(ca_block_t **out, const ca_arg_t *a, size_t n, ca_kernel_ctx_t *kc, void *) {
  if (n != 2 || a[0].kind != CA_ARG_LIST || a[1].kind != CA_ARG_LIST || a[0].u.list.len != a[1].u.list.len) {
    ca_kernel_set_error(kc, "matmul_lists: two lists of equal length expected");
    return CA_EINVAL;
  }
  const ca_block_t *a0 = a[0].u.list.items[0].u.block, *b0 = a[1].u.list.items[0].u.block;
  int64_t shape[2] = {ca_block_shape(a0)[0], ca_block_shape(b0)[1]};
  ca_status_t st = ca_block_new_zeroed(out, CA_FLOAT64, 2, shape);
  if (st) return st;
  double *d = static_cast<double *>(ca_block_data(*out));
  for (size_t p = 0; p < a[0].u.list.len; ++p) {
    const ca_block_t *A = a[0].u.list.items[p].u.block, *B = a[1].u.list.items[p].u.block;
    int64_t m = ca_block_shape(A)[0], kk = ca_block_shape(A)[1], nn = ca_block_shape(B)[1];
    const double *x = static_cast<const double *>(ca_block_data(A)), *y = static_cast<const double *>(ca_block_data(B));
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < kk; ++j)
        for (int64_t k = 0; k < nn; ++k) d[i * nn + k] += x[i * kk + j] * y[j * nn + k];
  }
  return CA_OK;
}

// add2(x, y): x + y for equal-shape blocks
ca_status_t k_add2(ca_block_t **out, const ca_arg_t *a, size_t, ca_kernel_ctx_t *, void *) {
  const ca_block_t *x = a[0].u.block, *y = a[1].u.block;
  ca_status_t st = ca_block_new(out, CA_FLOAT64, ca_block_ndim(x), ca_block_shape(x));
  if (st) return st;
  const double *p = static_cast<const double *>(ca_block_data(x)), *q = static_cast<const double *>(ca_block_data(y));
  double *d = static_cast<double *>(ca_block_data(*out));
  for (int64_t i = 0; i < ca_block_size(x); ++i) d[i] = p[i] + q[i];
  return CA_OK;
}

TEST(Blockwise, SeedModelArrayNewValidates) {
  Ctx c;
  ca_graph_t *g;
  ASSERT_EQ(ca_graph_new(&g), CA_OK);
  ASSERT_EQ(ca_context_register(c.ctx, "scale_info", k_scale_info, nullptr), CA_OK);
  // x = 3 blocks of a 1-d array built by hand with ones blocks via ca.identity over data arrays
  std::vector<double> v = iota(9);
  ca_array_t *src = from_vec(v, {9}, {{2, 3, 4}});
  ca_graph_t *sg;
  ASSERT_EQ(ca_array_graph(&sg, src), CA_OK);
  for (int64_t i = 0; i < 3; ++i) {
    ca_key_t k{"mine", &i, 1};
    ca_arg_t args[4] = {ca_arg_key(ca_array_name(src), &i, 1), ca_arg_f64(2.0), ca_arg_tuple(&i, 1),
                        ca_arg_tuple(&i, 1)};
    ASSERT_EQ(ca_graph_add_task(sg, &k, "scale_info", args, 4), CA_OK);
  }
  int64_t nb[1] = {3}, sz[3] = {2, 3, 4};
  ca_chunks_t ch{1, nb, sz};
  ca_array_t *a = nullptr;
  ASSERT_EQ(ca_array_new(&a, sg, "mine", &ch, CA_FLOAT64), CA_OK) << ca_last_error_message();
  EXPECT_EQ(ca_array_ndim(a), 1);
  EXPECT_EQ(ca_array_shape(a)[0], 9);
  Npy r = compute(c.ctx, a);
  std::vector<double> want = {0, 2, 4 + 1000, 6 + 1000, 8 + 1000, 10 + 2000, 12 + 2000, 14 + 2000, 16 + 2000};
  ASSERT_EQ(r.size(), 9);
  for (int i = 0; i < 9; ++i) EXPECT_DOUBLE_EQ(r.as<double>()[i], want[size_t(i)]);
  // a chunk grid larger than the graph's keys names the missing key
  int64_t nb4[1] = {4}, sz4[4] = {2, 3, 2, 2};
  ca_chunks_t ch4{1, nb4, sz4};
  ca_array_t *bad = reinterpret_cast<ca_array_t *>(0x1);
  EXPECT_EQ(ca_array_new(&bad, sg, "mine", &ch4, CA_FLOAT64), CA_ENOTFOUND);
  EXPECT_EQ(bad, nullptr);
  EXPECT_NE(std::string(ca_last_error_message()).find("('mine', 3)"), std::string::npos) << ca_last_error_message();
  // negative chunk
  int64_t szn[3] = {2, -3, 4};
  ca_chunks_t chn{1, nb, szn};
  EXPECT_EQ(ca_array_new(&bad, sg, "mine", &chn, CA_FLOAT64), CA_EINVAL);
  ca_array_free(a);
  ca_array_free(src);
  ca_graph_free(sg);
  ca_graph_free(g);
}

TEST(Blockwise, MapBlocksBlockInfoAndDropAxis) {
  Ctx c;
  ASSERT_EQ(ca_context_register(c.ctx, "scale_info", k_scale_info, nullptr), CA_OK);
  ASSERT_EQ(ca_context_register(c.ctx, "rowsum", k_rowsum, nullptr), CA_OK);
  std::vector<double> v = iota(7 * 5);
  ca_array_t *x = from_vec(v, {7, 5}, {{3, 4}, {2, 2, 1}});
  ca_arg_t extra = ca_arg_f64(3.0);
  ca_map_blocks_options_t mo = CA_MAP_BLOCKS_OPTIONS_INIT;
  mo.block_info = 1;
  ca_array_t *y = nullptr;
  ASSERT_EQ(ca_array_map_blocks(&y, "scale_info", &x, 1, &extra, 1, &mo), CA_OK) << ca_last_error_message();
  Npy got = compute(c.ctx, y);
  Npy want = ca::test::run_numpy(
      "result = np.arange(35.0).reshape(7, 5) * 3\nresult[3:] += 3000", {});
  ca::test::expect_close(got, want, 0, 0, "map_blocks with block_info");
  // drop_axis: per-block row sums -> the 1-d array of row sums of each column block summed by blocks
  ca_map_blocks_options_t md = CA_MAP_BLOCKS_OPTIONS_INIT;
  int32_t drop = 1;
  md.drop_axis = &drop;
  md.ndrop_axis = 1;
  // rowsum over a whole-row chunking: rechunk columns to one block first
  int64_t nbr[2] = {2, 1}, szr[3] = {3, 4, 5};
  ca_chunks_t rc{2, nbr, szr};
  ca_array_t *xr = nullptr, *rs = nullptr;
  ASSERT_EQ(ca_array_rechunk(&xr, x, &rc), CA_OK) << ca_last_error_message();
  ASSERT_EQ(ca_array_map_blocks(&rs, "rowsum", &xr, 1, nullptr, 0, &md), CA_OK) << ca_last_error_message();
  EXPECT_EQ(ca_array_ndim(rs), 1);
  Npy g2 = compute(c.ctx, rs);
  ca::test::expect_close(g2, ca::test::run_numpy("result = np.arange(35.0).reshape(7, 5).sum(axis=1)"), 0, 0,
                         "map_blocks drop_axis");
  // unknown kernel: a clear error at compute
  ca_array_t *u = nullptr;
  ASSERT_EQ(ca_array_map_blocks(&u, "no_such_kernel", &x, 1, nullptr, 0, nullptr), CA_OK);
  ca_block_t *b = nullptr;
  EXPECT_EQ(ca_array_compute(&b, c.ctx, u, nullptr), CA_ENOTFOUND);
  EXPECT_NE(std::string(ca_last_error_message()).find("no_such_kernel"), std::string::npos);
  ca_array_free(u);
  ca_array_free(rs);
  ca_array_free(xr);
  ca_array_free(y);
  ca_array_free(x);
}

TEST(Blockwise, ContractionIsMatmulAndChunksUnify) {
  Ctx c;
  ASSERT_EQ(ca_context_register(c.ctx, "matmul_lists", k_matmul_lists, nullptr), CA_OK);
  // A (5x6) chunks ((2,3),(4,2)); B (6x4) chunks ((3,3),(1,3)): j chunks differ -> unified to (3,1,2)
  ca_array_t *A = from_vec(iota(30), {5, 6}, {{2, 3}, {4, 2}});
  ca_array_t *B = from_vec(iota(24, 1), {6, 4}, {{3, 3}, {1, 3}});
  ca_array_arg_t args[2] = {{A, "ij", ca_arg_none()}, {B, "jk", ca_arg_none()}};
  ca_array_t *C = nullptr;
  ASSERT_EQ(ca_array_blockwise(&C, "matmul_lists", "ik", args, 2, CA_FLOAT64, nullptr), CA_OK)
      << ca_last_error_message();
  EXPECT_EQ(ca_array_shape(C)[0], 5);
  EXPECT_EQ(ca_array_shape(C)[1], 4);
  Npy got = compute(c.ctx, C);
  Npy want = ca::test::run_numpy(
      "result = np.arange(30.0).reshape(5, 6) @ np.arange(1.0, 25.0).reshape(6, 4)");
  ca::test::expect_close(got, want, 1e-12, 0, "blockwise contraction");
  // unify_chunks explicitly
  const ca_array_t *ins[2] = {A, B};
  const char *inds[2] = {"ij", "jk"};
  ca_array_t *outs[2] = {nullptr, nullptr};
  ASSERT_EQ(ca_unify_chunks(outs, ins, inds, 2), CA_OK) << ca_last_error_message();
  int64_t n1 = 0, n2 = 0;
  const int64_t *c1 = ca_array_chunks(outs[0], 1, &n1), *c2 = ca_array_chunks(outs[1], 0, &n2);
  ASSERT_EQ(n1, 3);
  ASSERT_EQ(n2, 3);
  EXPECT_EQ(std::vector<int64_t>(c1, c1 + 3), (std::vector<int64_t>{3, 1, 2}));
  EXPECT_EQ(std::vector<int64_t>(c2, c2 + 3), (std::vector<int64_t>{3, 1, 2}));
  // mismatched extents are an error
  ca_array_t *Bbad = from_vec(iota(20), {5, 4}, {{5}, {4}});
  ca_array_arg_t bad[2] = {{A, "ij", ca_arg_none()}, {Bbad, "jk", ca_arg_none()}};
  ca_array_t *Cbad = reinterpret_cast<ca_array_t *>(0x1);
  EXPECT_NE(ca_array_blockwise(&Cbad, "matmul_lists", "ik", bad, 2, CA_FLOAT64, nullptr), CA_OK);
  EXPECT_EQ(Cbad, nullptr);
  ca_array_free(Bbad);
  ca_array_free(outs[0]);
  ca_array_free(outs[1]);
  ca_array_free(C);
  ca_array_free(A);
  ca_array_free(B);
}

TEST(Blockwise, BroadcastBlockwiseAndNewAxis) {
  Ctx c;
  ASSERT_EQ(ca_context_register(c.ctx, "add2", k_add2, nullptr), CA_OK);
  ca_array_t *x = from_vec(iota(12), {3, 4}, {{1, 2}, {3, 1}});
  ca_array_t *y = from_vec(iota(12, 100), {3, 4}, {{2, 1}, {2, 2}});
  ca_array_arg_t args[2] = {{x, "ij", ca_arg_none()}, {y, "ij", ca_arg_none()}};
  ca_array_t *z = nullptr;
  ASSERT_EQ(ca_array_blockwise(&z, "add2", "ij", args, 2, CA_FLOAT64, nullptr), CA_OK) << ca_last_error_message();
  ca::test::expect_close(compute(c.ctx, z),
                         ca::test::run_numpy("result = np.arange(12.0).reshape(3,4) + np.arange(100.0, 112.0).reshape(3,4)"),
                         0, 0, "aligned blockwise");
  // deterministic names: the same expression twice
  ca_array_t *z2 = nullptr;
  ASSERT_EQ(ca_array_blockwise(&z2, "add2", "ij", args, 2, CA_FLOAT64, nullptr), CA_OK);
  EXPECT_STREQ(ca_array_name(z), ca_array_name(z2));
  ca_array_free(z2);
  ca_array_free(z);
  ca_array_free(x);
  ca_array_free(y);
}

TEST(Blockwise, RechunkMatchesNumpyAcrossShapes) {
  Ctx c;
  std::vector<double> v = iota(6 * 7 * 5);
  ca_array_t *x = from_vec(v, {6, 7, 5}, {{1, 5}, {3, 3, 1}, {2, 3}});
  std::vector<std::vector<std::vector<int64_t>>> targets = {
      {{6}, {7}, {5}}, {{2, 2, 2}, {1, 1, 1, 1, 1, 1, 1}, {5}}, {{4, 2}, {2, 5}, {1, 4}}, {{1, 5}, {3, 3, 1}, {2, 3}}};
  Npy want = ca::test::run_numpy("result = np.arange(210.0).reshape(6, 7, 5)");
  for (auto &t : targets) {
    std::vector<int64_t> nb, sz;
    ca_chunks_t ch = view(t, nb, sz);
    ca_array_t *r = nullptr;
    ASSERT_EQ(ca_array_rechunk(&r, x, &ch), CA_OK) << ca_last_error_message();
    for (int d = 0; d < 3; ++d) {
      int64_t n = 0;
      const int64_t *cs = ca_array_chunks(r, d, &n);
      EXPECT_EQ(std::vector<int64_t>(cs, cs + n), t[size_t(d)]);
    }
    ca::test::expect_equal(compute(c.ctx, r), want, "rechunk");
    ca_array_free(r);
  }
  // wrong shape
  std::vector<int64_t> nb{1, 1, 1}, sz{6, 7, 4};
  ca_chunks_t bad{3, nb.data(), sz.data()};
  ca_array_t *r = reinterpret_cast<ca_array_t *>(0x1);
  EXPECT_EQ(ca_array_rechunk(&r, x, &bad), CA_EINVAL);
  EXPECT_EQ(r, nullptr);
  ca_array_free(x);
}

int g_released = 0;
void on_release(void *) { ++g_released; }

TEST(Blockwise, StridedAndBorrowedBuffers) {
  Ctx c;
  // A Fortran-ordered 4x6 buffer (strides 8, 32), chunks ((3, 1), (4, 2)), copied.
  std::vector<double> f(24);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 6; ++j) f[size_t(j * 4 + i)] = i * 10 + j;
  int64_t shape[2] = {4, 6}, strides[2] = {8, 32};
  std::vector<int64_t> nb, sz;
  ca_chunks_t ch = view({{3, 1}, {4, 2}}, nb, sz);
  ca_array_t *a = nullptr;
  ASSERT_EQ(ca_array_from_buffer(&a, f.data(), CA_FLOAT64, 2, shape, &ch, opt_ptr(ca_buffer_options_t{sizeof(ca_buffer_options_t), CA_BUFFER_COPY, strides, nullptr, nullptr})),
            CA_OK);
  ca::test::expect_equal(compute(c.ctx, a),
                         ca::test::run_numpy("result = np.add.outer(np.arange(4.0) * 10, np.arange(6.0))"), "strided");
  ca_array_free(a);
  // Borrowed C-contiguous: row blocks are zero-copy views; release runs once, after the last use.
  std::vector<double> v = iota(24);
  g_released = 0;
  ca_chunks_t rows = view({{1, 3}, {6}}, nb, sz);
  ASSERT_EQ(ca_array_from_buffer(&a, v.data(), CA_FLOAT64, 2, shape, &rows, opt_ptr(ca_buffer_options_t{sizeof(ca_buffer_options_t), CA_BUFFER_BORROW, nullptr, on_release, nullptr})),
            CA_OK);
  ca_array_t *p = nullptr;
  ASSERT_EQ(ca_array_persist(&p, c.ctx, a, nullptr), CA_OK);
  ca_array_free(a);
  EXPECT_EQ(g_released, 0);  // the persisted blocks are the buffer's views, still alive
  ca::test::expect_equal(compute(c.ctx, p), ca::test::run_numpy("result = np.arange(24.0).reshape(4, 6)"), "borrowed");
  ca_array_free(p);
  EXPECT_EQ(g_released, 1);
  // Borrow with a failure: release still runs once.
  g_released = 0;
  std::vector<int64_t> nb2{1}, sz2{5};
  ca_chunks_t badc{1, nb2.data(), sz2.data()};
  EXPECT_EQ(ca_array_from_buffer(&a, v.data(), CA_FLOAT64, 2, shape, &badc, opt_ptr(ca_buffer_options_t{sizeof(ca_buffer_options_t), CA_BUFFER_BORROW, nullptr, on_release, nullptr})),
            CA_EINVAL);
  EXPECT_EQ(g_released, 1);
}

TEST(Blockwise, ZeroDEmptyAndSizeOne) {
  Ctx c;
  double one = 7.5;
  ca_chunks_t none{0, nullptr, nullptr};
  ca_array_t *s = nullptr;
  ASSERT_EQ(ca_array_from_buffer(&s, &one, CA_FLOAT64, 0, nullptr, &none, nullptr),
            CA_OK)
      << ca_last_error_message();
  Npy r = compute(c.ctx, s);
  EXPECT_TRUE(r.shape.empty());
  EXPECT_DOUBLE_EQ(r.as<double>()[0], 7.5);
  ca_array_free(s);
  int64_t shape[2] = {0, 3};
  std::vector<int64_t> nb, sz;
  ca_chunks_t ch = view({{0}, {2, 1}}, nb, sz);
  ca_array_t *e = nullptr;
  ASSERT_EQ(ca_array_from_buffer(&e, nullptr, CA_FLOAT64, 2, shape, &ch, nullptr),
            CA_OK)
      << ca_last_error_message();
  std::vector<int64_t> nb2, sz2;
  ca_chunks_t ch2 = view({{0}, {3}}, nb2, sz2);
  ca_array_t *er = nullptr;
  ASSERT_EQ(ca_array_rechunk(&er, e, &ch2), CA_OK) << ca_last_error_message();
  Npy re = compute(c.ctx, er);
  EXPECT_EQ(re.shape, (std::vector<int64_t>{0, 3}));
  ca_array_free(er);
  ca_array_free(e);
}

}  // namespace

// dask's from_array names a NumPy array by a token of its contents: the same data gives the same
// name (copied or borrowed), other data, chunks, dtype or shape another; name=False (here
// CA_BUFFER_UNIQUE_NAME) a fresh one. Equal-named arrays combine, and so do arrays persisted twice.
TEST(Blockwise, FromBufferNamesAreContentTokens) {
  Ctx c;
  std::vector<double> v = iota(24, 0.5), w = v;
  std::vector<int64_t> nb, sz;
  int64_t shape[2] = {4, 6}, shape2[2] = {6, 4}, shape1[1] = {24};
  ca_chunks_t ch = view({{1, 3}, {6}}, nb, sz);
  auto make = [&](const void *data, ca_dtype_t dt, int64_t *sh, int32_t nd, const ca_chunks_t *chunks, uint32_t flags) {
    ca_array_t *a = nullptr;
    EXPECT_EQ(ca_array_from_buffer(&a, data, dt, nd, sh, chunks, opt_ptr(ca_buffer_options_t{sizeof(ca_buffer_options_t), flags, nullptr, nullptr, nullptr})), CA_OK)
        << ca_last_error_message();
    return a;
  };
  auto name = [](const ca_array_t *a) { return std::string(ca_array_name(a)); };
  ca_array_t *a = make(v.data(), CA_FLOAT64, shape, 2, &ch, CA_BUFFER_COPY);
  ca_array_t *b = make(w.data(), CA_FLOAT64, shape, 2, &ch, CA_BUFFER_COPY);      // equal data elsewhere
  ca_array_t *bb = make(w.data(), CA_FLOAT64, shape, 2, &ch, CA_BUFFER_BORROW);   // borrowed, same values
  EXPECT_EQ(name(a), name(b));
  EXPECT_EQ(name(a), name(bb));
  EXPECT_EQ(name(a).rfind("array-", 0), 0u) << name(a);
  // Other values (one element), other chunks, dtype (the same bytes as int64), shape: other names.
  w[23] += 1;
  ca_array_t *d1 = make(w.data(), CA_FLOAT64, shape, 2, &ch, CA_BUFFER_COPY);
  w[23] -= 1;
  std::vector<int64_t> nb2, sz2;
  ca_chunks_t ch2 = view({{2, 2}, {6}}, nb2, sz2);
  ca_array_t *d2 = make(v.data(), CA_FLOAT64, shape, 2, &ch2, CA_BUFFER_COPY);
  ca_array_t *d3 = make(v.data(), CA_INT64, shape, 2, &ch, CA_BUFFER_COPY);
  std::vector<int64_t> nb3, sz3, nb4, sz4;
  ca_chunks_t ch3 = view({{6}, {4}}, nb3, sz3), ch4 = view({{24}}, nb4, sz4);
  ca_array_t *d4 = make(v.data(), CA_FLOAT64, shape2, 2, &ch3, CA_BUFFER_COPY);
  ca_array_t *d5 = make(v.data(), CA_FLOAT64, shape1, 1, &ch4, CA_BUFFER_COPY);
  for (ca_array_t *d : {d1, d2, d3, d4, d5}) EXPECT_NE(name(a), name(d));
  EXPECT_NE(name(d4), name(d5));
  // A fresh name per call with CA_BUFFER_UNIQUE_NAME (copied or borrowed).
  ca_array_t *u1 = make(v.data(), CA_FLOAT64, shape, 2, &ch, CA_BUFFER_COPY | CA_BUFFER_UNIQUE_NAME);
  ca_array_t *u2 = make(v.data(), CA_FLOAT64, shape, 2, &ch, CA_BUFFER_COPY | CA_BUFFER_UNIQUE_NAME);
  ca_array_t *u3 = make(v.data(), CA_FLOAT64, shape, 2, &ch, CA_BUFFER_BORROW | CA_BUFFER_UNIQUE_NAME);
  EXPECT_NE(name(u1), name(u2));
  EXPECT_NE(name(u1), name(u3));
  EXPECT_NE(name(u1), name(a));
  // Unknown flag bits: a clear error (release still runs once for a borrow).
  g_released = 0;
  ca_array_t *bad = reinterpret_cast<ca_array_t *>(0x1);
  EXPECT_EQ(ca_array_from_buffer(&bad, v.data(), CA_FLOAT64, 2, shape, &ch, opt_ptr(ca_buffer_options_t{sizeof(ca_buffer_options_t), CA_BUFFER_BORROW | 8u, nullptr, on_release, nullptr})),
            CA_EINVAL);
  EXPECT_EQ(bad, nullptr);
  EXPECT_EQ(g_released, 1);
  EXPECT_NE(std::string(ca_last_error_message()).find("unknown flags 0x8"), std::string::npos)
      << ca_last_error_message();

  // Equal-named arrays combine: their graphs merge (one shared layer), computed together or
  // concatenated; so do two persists of the same array.
  {
    ca_graph_t *ga = nullptr, *gb = nullptr;
    ASSERT_EQ(ca_array_graph(&ga, a), CA_OK);
    ASSERT_EQ(ca_array_graph(&gb, bb), CA_OK);
    EXPECT_EQ(ca_graph_merge(ga, gb), CA_OK) << ca_last_error_message();
    EXPECT_EQ(ca_graph_num_layers(ga), 1);
    ca_graph_free(ga);
    ca_graph_free(gb);
    const ca_array_t *pair[2] = {a, bb};
    ca_block_t *outs[2] = {nullptr, nullptr};
    ASSERT_EQ(ca_array_compute_many(outs, c.ctx, pair, 2, nullptr), CA_OK) << ca_last_error_message();
    for (ca_block_t *o : outs) {
      ASSERT_NE(o, nullptr);
      EXPECT_EQ(std::memcmp(ca_block_data(o), v.data(), 24 * sizeof(double)), 0);
      ca_block_free(o);
    }
    ca_array_t *cat = nullptr;
    ASSERT_EQ(ca_array_concatenate(&cat, pair, 2, 0), CA_OK) << ca_last_error_message();
    std::vector<double> vv(v);
    vv.insert(vv.end(), v.begin(), v.end());
    ca::test::expect_equal(compute(c.ctx, cat), ca::test::npy_of(CA_FLOAT64, {8, 6}, vv.data()), "concatenate");
    ca_array_free(cat);
  }
  std::vector<double> twice(24), thrice(24);
  for (size_t i = 0; i < 24; ++i) twice[i] = 2 * v[i], thrice[i] = 3 * v[i];
  ca_array_t *s = nullptr, *p1 = nullptr, *p2 = nullptr, *s2 = nullptr, *s3 = nullptr;
  ASSERT_EQ(ca_array_binary(&s, CA_OP_ADD, a, b), CA_OK) << ca_last_error_message();
  ca::test::expect_equal(compute(c.ctx, s), ca::test::npy_of(CA_FLOAT64, {4, 6}, twice.data()), "a + b over equal buffers");
  ASSERT_EQ(ca_array_binary(&s2, CA_OP_ADD, s, bb), CA_OK) << ca_last_error_message();
  ca::test::expect_equal(compute(c.ctx, s2), ca::test::npy_of(CA_FLOAT64, {4, 6}, thrice.data()), "a + b + borrowed");
  ASSERT_EQ(ca_array_persist(&p1, c.ctx, a, nullptr), CA_OK);
  ASSERT_EQ(ca_array_persist(&p2, c.ctx, a, nullptr), CA_OK);
  EXPECT_EQ(name(p1), name(p2));
  const ca_array_t *pp[2] = {p1, p2};
  ASSERT_EQ(ca_array_concatenate(&s3, pp, 2, 1), CA_OK) << ca_last_error_message();
  {
    std::vector<double> side(48);
    for (size_t i = 0; i < 4; ++i)
      for (size_t j = 0; j < 12; ++j) side[i * 12 + j] = v[i * 6 + j % 6];
    ca::test::expect_equal(compute(c.ctx, s3), ca::test::npy_of(CA_FLOAT64, {4, 12}, side.data()), "persisted twice");
  }
  // 0-d and empty arrays are named by their contents too.
  double x0 = 7, y0 = 7;
  ca_chunks_t c0{0, nullptr, nullptr};
  ca_array_t *z1 = make(&x0, CA_FLOAT64, nullptr, 0, &c0, CA_BUFFER_COPY);
  ca_array_t *z2 = make(&y0, CA_FLOAT64, nullptr, 0, &c0, CA_BUFFER_COPY);
  EXPECT_EQ(name(z1), name(z2));
  int64_t eshape[1] = {0};
  std::vector<int64_t> nb5, sz5;
  ca_chunks_t ce = view({{0}}, nb5, sz5);
  ca_array_t *e1 = make(nullptr, CA_FLOAT64, eshape, 1, &ce, CA_BUFFER_COPY);
  ca_array_t *e2 = make(nullptr, CA_FLOAT64, eshape, 1, &ce, CA_BUFFER_COPY);
  EXPECT_EQ(name(e1), name(e2));
  EXPECT_NE(name(e1), name(z1));
  for (ca_array_t *x : {a, b, bb, d1, d2, d3, d4, d5, u1, u2, u3, s, s2, s3, p1, p2, z1, z2, e1, e2}) ca_array_free(x);
}
