// Graph files: every layer kind round-trips, arrays compute the same after loading, and corrupt,
// truncated or newer files fail with CA_EFORMAT / CA_EVERSION and a message, never a crash.
/* This file also tests the deprecated save/load aliases (format.h, "Deprecated"). */
#define CA_DISABLE_DEPRECATE_WARNINGS
#include <gtest/gtest.h>
#include <unistd.h>

#include <chunkarray/chunkarray.h>
#include "../support/save_load.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "capi_handles.hpp"
#include "core/block.hpp"
#include "format/layer_codecs.hpp"
#include "pipelines.h"

// A pointer to a temporary options struct, valid for the full expression (C++ has no compound literals).
template <class T>
static const T *opt_ptr(const T &o) {
  return &o;
}


namespace {

struct Ctx {
  ca_context_t *ctx = nullptr;
  Ctx() {
    ca_context_options_t o = CA_CONTEXT_OPTIONS_INIT;
    o.num_threads = 2;
    EXPECT_EQ(ca_context_new(&ctx, &o), CA_OK);
  }
  ~Ctx() { ca_context_free(ctx); }
};

std::string tmpdir() {
  static std::string d = [] {
    char t[] = "/tmp/ca_format_XXXXXX";
    const char *p = mkdtemp(t);
    return std::string(p ? p : "/tmp");
  }();
  return d;
}

std::vector<unsigned char> save(const ca_graph_t *g) {
  void *data = nullptr;
  size_t size = 0;
  EXPECT_EQ(ca_graph_save_buffer(g, &data, &size), CA_OK) << ca_last_error_message();
  std::vector<unsigned char> v(static_cast<unsigned char *>(data), static_cast<unsigned char *>(data) + size);
  ca_buffer_free(data);
  return v;
}

// Every layer of b is the same as a's (same kind and content fingerprint; data layers: same bytes).
void expect_same_graph(const ca_graph_t *a, const ca_graph_t *b) {
  ASSERT_EQ(ca::capi::engine(a).layers().size(), ca::capi::engine(b).layers().size());
  for (size_t i = 0; i < ca::capi::engine(a).layers().size(); ++i) {
    const ca::Layer &la = *ca::capi::engine(a).layers()[i], &lb = *ca::capi::engine(b).layers()[i];
    EXPECT_EQ(la.name(), lb.name());
    EXPECT_EQ(la.kind(), lb.kind()) << la.name();
    EXPECT_EQ(la.nindex(), lb.nindex()) << la.name();
    EXPECT_EQ(la.num_tasks(), lb.num_tasks()) << la.name();
    EXPECT_EQ(la.deps(), lb.deps()) << la.name();
    EXPECT_EQ(la.kernel_names(), lb.kernel_names()) << la.name();
    if (la.kind() != ca::LayerKind::Data) {
      EXPECT_EQ(la.fingerprint(), lb.fingerprint()) << la.name();
    } else {
      auto &da = static_cast<const ca::DataLayer &>(la);
      auto &db = static_cast<const ca::DataLayer &>(lb);
      for (int64_t t = 0; t < da.num_tasks(); ++t) {
        const ca::Block *x = da.block(t), *y = db.block(t);
        ASSERT_EQ(x->dtype, y->dtype);
        ASSERT_EQ(x->ndim, y->ndim);
        ASSERT_EQ(0, std::memcmp(x->shape, y->shape, sizeof(int64_t) * size_t(x->ndim)));
        ASSERT_EQ(x->nbytes, y->nbytes);
        EXPECT_EQ(0, std::memcmp(x->data, y->data, size_t(x->nbytes)));
      }
    }
  }
}

// A graph with every argument kind, nesting, bytes with NULs, and symbolic layers.
ca_graph_t *rich_graph() {
  ca_graph_t *g = nullptr;
  EXPECT_EQ(ca_graph_new(&g), CA_OK);
  int64_t i0 = 0, i1 = 1, ij[2] = {1, 2};
  ca_key_t x0 = {"x", &i0, 1}, x1 = {"x", &i1, 1};
  ca_arg_t a5 = ca_arg_i64(5);
  EXPECT_EQ(ca_graph_add_task(g, &x0, "ca.ones", &a5, 1), CA_OK);
  ca_arg_t a6 = ca_arg_i64(6);
  EXPECT_EQ(ca_graph_add_task(g, &x1, "ca.ones", &a6, 1), CA_OK);
  const unsigned char bytes[] = {0, 1, 2, 0, 255};
  int64_t tup[3] = {3, -4, 1ll << 40};
  ca_arg_t slice = ca_arg_none();
  slice.kind = CA_ARG_SLICE;
  slice.u.slice = ca_slice_t{1, -1, 2, CA_SLICE_START | CA_SLICE_STEP};
  ca_arg_t inner[3] = {ca_arg_key("x", &i1, 1), ca_arg_str("héllo"), ca_arg_none()};
  ca_arg_t deeper[2] = {ca_arg_list(inner, 3), ca_arg_list(nullptr, 0)};
  ca_arg_t args[] = {ca_arg_key("x", &i0, 1), ca_arg_f64(-0.0), ca_arg_f64(1e300), ca_arg_i64(INT64_MIN),
                     ca_arg_bytes(bytes, sizeof bytes), ca_arg_bytes(nullptr, 0), ca_arg_tuple(tup, 3),
                     ca_arg_tuple(nullptr, 0), slice, ca_arg_list(deeper, 2), ca_arg_key("elsewhere", ij, 2),
                     ca_arg_str("")};
  ca_key_t y = {"y", ij, 2};
  EXPECT_EQ(ca_graph_add_task(g, &y, "user.kernel", args, sizeof args / sizeof args[0]), CA_OK)
      << ca_last_error_message();
  ca_key_t scalar = {"s", nullptr, 0};
  EXPECT_EQ(ca_graph_add_task(g, &scalar, "k2", nullptr, 0), CA_OK);
  // Symbolic: blockwise with a literal of each kind, and a partial reduce.
  ca_arg_t bw[] = {ca_arg_indexed("x", "i"), ca_arg_f64(2.5), ca_arg_str("lit"), ca_arg_tuple(tup, 2), slice,
                   ca_arg_bytes(bytes, 5), ca_arg_none(), ca_arg_i64(-7)};
  EXPECT_EQ(ca_graph_add_blockwise(g, "b", "i", "bw.kernel", bw, sizeof bw / sizeof bw[0], nullptr), CA_OK)
      << ca_last_error_message();
  int64_t split = 2;
  ca_arg_t extra = ca_arg_i64(3);
  EXPECT_EQ(ca_graph_add_partial_reduce(g, "pr", "b", &split, 1, "pr.kernel", &extra, 1), CA_OK);
  int64_t numblocks[2] = {-1, 4};
  ca_blockwise_options_t bo = CA_BLOCKWISE_OPTIONS_INIT;
  bo.numblocks = numblocks;
  ca_arg_t outer[] = {ca_arg_indexed("x", "i")};
  EXPECT_EQ(ca_graph_add_blockwise(g, "newaxis", "ij", "bw2", outer, 1, &bo), CA_OK) << ca_last_error_message();
  ca_arg_t contract[] = {ca_arg_indexed("newaxis", "ij")};
  EXPECT_EQ(ca_graph_add_blockwise(g, "contract", "i", "bw3", contract, 1, nullptr), CA_OK);
  return g;
}

}  // namespace

TEST(Format, MaterializedAndSymbolicRoundTrip) {
  ca_graph_t *g = rich_graph();
  auto bytes = save(g);
  ca_graph_t *h = nullptr;
  ASSERT_EQ(ca_graph_load_buffer(&h, bytes.data(), bytes.size()), CA_OK) << ca_last_error_message();
  expect_same_graph(g, h);
  EXPECT_EQ(ca_graph_num_tasks(g), ca_graph_num_tasks(h));
  // Saving the loaded graph gives the same bytes.
  EXPECT_EQ(save(h), bytes);
  // Dependencies of each key are the same.
  int64_t ij[2] = {1, 2};
  ca_key_t y = {"y", ij, 2};
  ca_keylist_t *da = nullptr, *db = nullptr;
  ASSERT_EQ(ca_graph_dependencies(&da, g, &y), CA_OK);
  ASSERT_EQ(ca_graph_dependencies(&db, h, &y), CA_OK);
  ASSERT_EQ(ca_keylist_size(da), ca_keylist_size(db));
  ca_keylist_free(da);
  ca_keylist_free(db);
  // A loaded materialized layer accepts more tasks, and finds its keys.
  int64_t i2 = 2;
  ca_key_t x2 = {"x", &i2, 1};
  ca_arg_t a = ca_arg_i64(1);
  EXPECT_EQ(ca_graph_add_task(h, &x2, "ca.ones", &a, 1), CA_OK);
  int64_t i0 = 0;
  ca_key_t x0 = {"x", &i0, 1};
  EXPECT_EQ(ca_graph_add_task(h, &x0, "ca.ones", &a, 1), CA_EEXISTS);
  EXPECT_TRUE(ca_graph_has_key(h, &x0));
  // Merging the loaded graph into the original: identical layers are accepted (same content).
  ca_graph_t *g2 = nullptr;
  ASSERT_EQ(ca_graph_load_buffer(&g2, bytes.data(), bytes.size()), CA_OK);
  EXPECT_EQ(ca_graph_merge(g, g2), CA_OK) << ca_last_error_message();
  ca_graph_free(g2);
  ca_graph_free(g);
  ca_graph_free(h);
}

// Every engine layer kind reports its public constant: an overlap array's layer is CA_LAYER_OVERLAP
// (the engine's value 3 used to leak through with no name).
TEST(Format, LayerInfoNamesOverlapLayers) {
  const int64_t shape[1] = {10}, nb[1] = {2}, sizes[2] = {5, 5}, depth[1] = {1};
  ca_chunks_t chunks{1, nb, sizes};
  ca_array_t *a = nullptr, *o = nullptr;
  ASSERT_EQ(ca_array_random(&a, CA_RANDOM_UNIFORM, 1, shape, &chunks, CA_FLOAT64, opt_ptr(ca_random_options_t{sizeof(ca_random_options_t), 0u, 1, 0.0, 1.0, 0.0})), CA_OK);
  ASSERT_EQ(ca_array_overlap(&o, a, depth, nullptr, nullptr), CA_OK) << ca_last_error_message();
  ca_graph_t *g = nullptr;
  ASSERT_EQ(ca_array_graph(&g, o), CA_OK);
  ca_layer_info_t info = CA_LAYER_INFO_INIT;
  ASSERT_EQ(ca_graph_layer_info(&info, g, ca_array_name(o)), CA_OK) << ca_last_error_message();
  EXPECT_EQ(info.kind, CA_LAYER_OVERLAP);
  EXPECT_EQ(info.num_tasks, 2);
  ASSERT_EQ(ca_graph_layer_info(&info, g, ca_array_name(a)), CA_OK);
  EXPECT_EQ(info.kind, CA_LAYER_BLOCKWISE);
  ca_graph_free(g);
  ca_array_free(o);
  ca_array_free(a);
}

TEST(Format, FileRoundTripAndInfo) {
  ca_graph_t *g = rich_graph();
  std::string path = tmpdir() + "/rich.cagraph";
  ASSERT_EQ(ca_graph_save(g, path.c_str()), CA_OK) << ca_last_error_message();
  ca_graph_t *h = nullptr;
  ASSERT_EQ(ca_graph_load(&h, path.c_str()), CA_OK) << ca_last_error_message();
  expect_same_graph(g, h);
  ca_layer_info_t info = CA_LAYER_INFO_INIT;
  ASSERT_EQ(ca_graph_layer_info(&info, h, "b"), CA_OK);
  EXPECT_EQ(info.kind, CA_LAYER_BLOCKWISE);
  EXPECT_EQ(info.num_tasks, 2);
  ASSERT_EQ(ca_graph_layer_info(&info, h, "y"), CA_OK);
  EXPECT_EQ(info.kind, CA_LAYER_MATERIALIZED);
  EXPECT_EQ(ca_graph_layer_info(&info, h, "nope"), CA_ENOTFOUND);
  ca_keylist_t *ks = nullptr;
  ASSERT_EQ(ca_graph_kernel_names(&ks, h), CA_OK);
  EXPECT_EQ(ca_keylist_size(ks), 7u);
  ca_keylist_free(ks);
  // Arrays API on a graph file: no arrays.
  ca_array_t **arrs = nullptr;
  size_t n = 99;
  EXPECT_EQ(load_from(NULL, &arrs, &n, path.c_str(), NULL, 0), CA_OK);
  EXPECT_EQ(n, 0u);
  EXPECT_EQ(arrs, nullptr);
  ca_array_t *one = nullptr;
  EXPECT_EQ(ca_array_load(&one, path.c_str()), CA_ENOTFOUND);
  EXPECT_NE(std::string(ca_last_error_message()).find("no array"), std::string::npos);
  ca_graph_free(g);
  ca_graph_free(h);
}

TEST(Format, SymbolicLayerStaysSmall) {
  // A million-block elementwise array: the file holds formulas, not tasks.
  Ctx c;
  int64_t shape[1] = {4000000};
  int64_t nb[1] = {1000000};
  std::vector<int64_t> sizes(1000000, 4);
  ca_chunks_t ch = {1, nb, sizes.data()};
  ca_array_t *x = nullptr, *y = nullptr;
  ASSERT_EQ(ca_array_ones(&x, 1, shape, &ch, CA_FLOAT64), CA_OK) << ca_last_error_message();
  ca_scalar_t two{};
  two.kind = CA_FLOAT64;
  two.re = 2;
  ASSERT_EQ(ca_array_binary_scalar(&y, CA_OP_MUL, x, two, false), CA_OK);
  ca_graph_t *g = nullptr;
  ASSERT_EQ(ca_array_graph(&g, y), CA_OK);
  auto bytes = save(g);
  // Chunks (8 bytes per block) dominate; the layers themselves are a few hundred bytes.
  EXPECT_LT(bytes.size(), 3 * 8u * 1000000u + 2048);
  ca_graph_t *h = nullptr;
  ASSERT_EQ(ca_graph_load_buffer(&h, bytes.data(), bytes.size()), CA_OK) << ca_last_error_message();
  EXPECT_EQ(ca_graph_num_tasks(h), ca_graph_num_tasks(g));
  expect_same_graph(g, h);
  // Without chunks (the numblocks form): tiny.
  ca_graph_t *s = nullptr;
  ASSERT_EQ(ca_graph_new(&s), CA_OK);
  int64_t numblocks[1] = {1000000};
  ca_blockwise_options_t bo = CA_BLOCKWISE_OPTIONS_INIT;
  bo.numblocks = numblocks;
  ca_arg_t lit = ca_arg_f64(1.0);
  ASSERT_EQ(ca_graph_add_blockwise(s, "src", "i", "ca.ones", &lit, 1, &bo), CA_OK);
  ca_arg_t in[2] = {ca_arg_indexed("src", "i"), ca_arg_f64(3.0)};
  ASSERT_EQ(ca_graph_add_blockwise(s, "ew", "i", "mul", in, 2, nullptr), CA_OK);
  auto small = save(s);
  EXPECT_LT(small.size(), 600u) << small.size();
  EXPECT_EQ(ca_graph_num_tasks(s), 2000000);
  ca_graph_free(s);
  ca_graph_free(g);
  ca_graph_free(h);
  ca_array_free(x);
  ca_array_free(y);
}

namespace {
std::vector<std::vector<unsigned char>> compute_all(ca_context_t *ctx, ca_array_t **arrays, size_t n) {
  std::vector<std::vector<unsigned char>> out;
  for (size_t i = 0; i < n; ++i) {
    std::vector<unsigned char> buf(size_t(ca_array_nbytes(arrays[i])));
    EXPECT_EQ(ca_array_compute_into(ctx, arrays[i], buf.data(), buf.size(), nullptr), CA_OK)
        << ca_last_error_message();
    out.push_back(std::move(buf));
  }
  return out;
}
}  // namespace

TEST(Format, ArrayPipelinesComputeTheSame) {
  Ctx c;
  int64_t live = ca::block_live_count();
  {
    ca_array_t *arrays[PIPELINES_MAX];
    size_t n = 0;
    std::string zarr = tmpdir() + "/x.zarr";
    ASSERT_EQ(pipelines_build(c.ctx, zarr.c_str(), arrays, &n), 0);
    auto want = compute_all(c.ctx, arrays, n);
    std::string path = tmpdir() + "/pipelines.cagraph";
    ASSERT_EQ(save_to(NULL, NULL, path.c_str(), NULL, arrays, n, NULL), CA_OK) << ca_last_error_message();
    ca_array_t **loaded = nullptr;
    size_t m = 0;
    ASSERT_EQ(load_from(NULL, &loaded, &m, path.c_str(), NULL, 0), CA_OK) << ca_last_error_message();
    ASSERT_EQ(m, n);
    for (size_t i = 0; i < n; ++i) {
      EXPECT_STREQ(ca_array_name(loaded[i]), ca_array_name(arrays[i]));
      EXPECT_EQ(ca_array_dtype(loaded[i]), ca_array_dtype(arrays[i]));
      ASSERT_EQ(ca_array_ndim(loaded[i]), ca_array_ndim(arrays[i]));
      for (int32_t d = 0; d < ca_array_ndim(arrays[i]); ++d) {
        int64_t na = 0, nb = 0;
        const int64_t *ca = ca_array_chunks(arrays[i], d, &na), *cb = ca_array_chunks(loaded[i], d, &nb);
        ASSERT_EQ(std::vector<int64_t>(ca, ca + na), std::vector<int64_t>(cb, cb + nb));
      }
    }
    auto got = compute_all(c.ctx, loaded, m);
    for (size_t i = 0; i < n; ++i) EXPECT_EQ(got[i], want[i]) << "pipeline " << i << " " << ca_array_name(arrays[i]);
    // One array per file; loading a multi-array file as one array is refused.
    ca_array_t *single = nullptr;
    EXPECT_EQ(ca_array_load(&single, path.c_str()), CA_EINVAL);
    EXPECT_EQ(single, nullptr);
    std::string one = tmpdir() + "/one.cagraph";
    ASSERT_EQ(ca_array_save(arrays[1], one.c_str()), CA_OK);
    ASSERT_EQ(ca_array_load(&single, one.c_str()), CA_OK) << ca_last_error_message();
    auto g1 = compute_all(c.ctx, &single, 1);
    EXPECT_EQ(g1[0], want[1]);
    ca_array_free(single);
    // Buffers too, also from an unaligned address.
    void *data = nullptr;
    size_t size = 0;
    ASSERT_EQ(ca_arrays_save_buffer(arrays, n, &data, &size), CA_OK);
    std::vector<unsigned char> shifted(size + 3);
    std::memcpy(shifted.data() + 3, data, size);
    ca_buffer_free(data);
    ca_array_t **fromb = nullptr;
    size_t k = 0;
    ASSERT_EQ(ca_arrays_load_buffer(&fromb, &k, shifted.data() + 3, size), CA_OK) << ca_last_error_message();
    ASSERT_EQ(k, n);
    auto got2 = compute_all(c.ctx, fromb, k);
    for (size_t i = 0; i < n; ++i) EXPECT_EQ(got2[i], want[i]) << "pipeline " << i;
    ca_arrays_free(fromb, k);
    ca_arrays_free(loaded, m);
    for (size_t i = 0; i < n; ++i) ca_array_free(arrays[i]);
  }
  EXPECT_EQ(ca::block_live_count(), live);
}

TEST(Format, BadFilesFailCleanly) {
  ca_graph_t *g = rich_graph();
  auto bytes = save(g);
  ca_graph_free(g);
  ca_graph_t *h = reinterpret_cast<ca_graph_t *>(1);
  // Magic, version, flags.
  auto bad = bytes;
  bad[0] = 'X';
  EXPECT_EQ(ca_graph_load_buffer(&h, bad.data(), bad.size()), CA_EFORMAT);
  EXPECT_EQ(h, nullptr);
  EXPECT_NE(std::string(ca_last_error_message()).find("magic"), std::string::npos);
  bad = bytes;
  bad[8] = CA_FORMAT_VERSION + 1;
  EXPECT_EQ(ca_graph_load_buffer(&h, bad.data(), bad.size()), CA_EVERSION);
  EXPECT_NE(std::string(ca_last_error_message()).find("version " + std::to_string(CA_FORMAT_VERSION + 1) + " is newer"),
            std::string::npos)
      << ca_last_error_message();
  bad = bytes;
  bad[8] = 0;
  EXPECT_EQ(ca_graph_load_buffer(&h, bad.data(), bad.size()), CA_EFORMAT);
  bad = bytes;
  bad[12] = 1;
  EXPECT_EQ(ca_graph_load_buffer(&h, bad.data(), bad.size()), CA_EFORMAT);
  // Our messages, never Cap'n Proto's internal text (its bounds checks and segment names).
  auto own_words = [](const char *msg) {
    for (const char *w : {"expected ", "segmentSize", "prematurely", "kj/", "capnp", "Message "})
      if (std::strstr(msg, w)) return false;
    return true;
  };
  // Every truncation fails with a message saying so.
  for (size_t len = 0; len < bytes.size(); ++len) {
    ASSERT_EQ(ca_graph_load_buffer(&h, bytes.data(), len), CA_EFORMAT) << len;
    ASSERT_EQ(h, nullptr);
    ASSERT_STRNE(ca_last_error_message(), "");
    ASSERT_TRUE(own_words(ca_last_error_message())) << ca_last_error_message();
    if (len > 16) {
      ASSERT_TRUE(std::strstr(ca_last_error_message(), "truncated")) << len << ": " << ca_last_error_message();
    }
  }
  // Trailing garbage.
  bad = bytes;
  bad.resize(bad.size() + 8, 0);
  EXPECT_EQ(ca_graph_load_buffer(&h, bad.data(), bad.size()), CA_EFORMAT);
  // Every single-byte corruption of the message either loads or fails cleanly (ASan watches).
  int failed = 0;
  for (size_t i = size_t(16); i < bytes.size(); ++i) {
    for (unsigned char v : {0x00, 0xff, 0x7f, 0x80}) {
      bad = bytes;
      bad[i] ^= v ? v : bad[i];
      ca_status_t st = ca_graph_load_buffer(&h, bad.data(), bad.size());
      if (st == CA_OK) {
        ca_graph_free(h);
      } else {
        ASSERT_TRUE(st == CA_EFORMAT || st == CA_ENOMEM) << st << " " << ca_last_error_message();
        ASSERT_TRUE(own_words(ca_last_error_message())) << ca_last_error_message();
        ++failed;
      }
    }
  }
  EXPECT_GT(failed, 0);
  // Files.
  EXPECT_EQ(ca_graph_load(&h, (tmpdir() + "/missing.cagraph").c_str()), CA_ENOTFOUND);
  std::string empty = tmpdir() + "/empty.cagraph";
  std::ofstream(empty).close();
  EXPECT_EQ(ca_graph_load(&h, empty.c_str()), CA_EFORMAT);
  EXPECT_EQ(ca_graph_load(&h, tmpdir().c_str()), CA_EIO);
  EXPECT_EQ(ca_graph_save(nullptr, "x"), CA_EINVAL);
  EXPECT_EQ(ca_graph_load(nullptr, "x"), CA_EINVAL);
  EXPECT_EQ(ca_graph_load_buffer(&h, nullptr, 3), CA_EINVAL);
  ca_graph_t *ok = nullptr;
  ASSERT_EQ(ca_graph_new(&ok), CA_OK);
  EXPECT_EQ(ca_graph_save(ok, "/nonexistent-dir/x.cagraph"), CA_EIO);
  EXPECT_NE(std::string(ca_last_error_message()).find("nonexistent-dir"), std::string::npos);
  ca_graph_free(ok);
}

// Files written by an earlier version of the library must keep loading and computing the same:
// tests/format/golden holds them (rich_graph.cagraph: every argument and layer kind;
// pipelines.cagraph + expected/*.npy: array pipelines and their results when the file was written).
// CA_WRITE_GOLDEN=1 rewrites rich_graph.cagraph (only when the format version changes).
TEST(Format, GoldenFiles) {
  const char *dir = std::getenv("CA_GOLDEN_DIR");
  if (!dir) GTEST_SKIP() << "CA_GOLDEN_DIR not set";
  std::string rich = std::string(dir) + "/rich_graph.cagraph";
  ca_graph_t *g = rich_graph();
  if (std::getenv("CA_WRITE_GOLDEN")) {
    ASSERT_EQ(ca_graph_save(g, rich.c_str()), CA_OK);
  }
  ca_graph_t *h = nullptr;
  ASSERT_EQ(ca_graph_load(&h, rich.c_str()), CA_OK) << ca_last_error_message();
  expect_same_graph(g, h);
  ca_graph_free(g);
  ca_graph_free(h);

  Ctx c;
  ca_array_t **arrays = nullptr;
  size_t n = 0;
  ASSERT_EQ(load_from(NULL, &arrays, &n, (std::string(dir) + "/pipelines.cagraph").c_str(), NULL, 0), CA_OK)
      << ca_last_error_message();
  ASSERT_EQ(n, 7u);
  auto got = compute_all(c.ctx, arrays, n);
  for (size_t i = 0; i < n; ++i) {
    std::string npy = std::string(dir) + "/expected/" + ca_array_name(arrays[i]) + ".npy";
    ca_array_t *e = nullptr;
    ASSERT_EQ(ca_array_from_npy(&e, npy.c_str(), nullptr), CA_OK) << ca_last_error_message();
    EXPECT_EQ(ca_array_dtype(e), ca_array_dtype(arrays[i]));
    auto want = compute_all(c.ctx, &e, 1);
    EXPECT_EQ(got[i], want[0]) << ca_array_name(arrays[i]);
    ca_array_free(e);
  }
  ca_arrays_free(arrays, n);
}

// Blockwise layers built directly: every dimension-map kind (Const is concatenate=True), every
// special literal, with and without chunks; they round-trip exactly and emit the same tasks.
TEST(Format, BlockwiseSpecialsAndDimMaps) {
  ca_graph_t *graph = nullptr;
  ASSERT_EQ(ca_graph_new(&graph), CA_OK);
  std::unique_ptr<ca_graph_t, void (*)(ca_graph_t *)> g(graph, ca_graph_free);
  std::vector<std::vector<ca::Index>> chunks = {{3, 3, 2}, {5, 1}};
  std::vector<ca::BlockwiseArg> src_args;
  src_args.push_back(ca::blockwise_literal(ca_arg_f64(1.5)));
  ca::capi::engine(g.get()).add_layer(std::make_shared<ca::BlockwiseLayer>("src", chunks, "ca.src", std::vector<std::string>{},
                                                      std::move(src_args)));
  std::vector<ca::BlockwiseArg> args;
  for (int32_t kind : {ca::DimMap::Out, ca::DimMap::Const, ca::DimMap::Group, ca::DimMap::All}) {
    ca::BlockwiseArg r;
    r.is_ref = true;
    r.dep_slot = 0;
    ca::DimMap m0;
    m0.kind = kind;
    m0.out_dim = 0;
    m0.value = kind == ca::DimMap::Group ? 2 : 0;
    m0.extent = 3;
    ca::DimMap m1;
    m1.kind = ca::DimMap::Out;
    m1.out_dim = 1;
    m1.extent = 2;
    r.dims = {m0, m1};
    args.push_back(std::move(r));
  }
  for (int32_t sp : {ca::BlockwiseArg::BlockIndex, ca::BlockwiseArg::BlockOrigin, ca::BlockwiseArg::BlockShape}) {
    ca::BlockwiseArg b;
    b.special = sp;
    b.block_index = sp == ca::BlockwiseArg::BlockIndex;
    args.push_back(std::move(b));
  }
  ca::capi::engine(g.get()).add_layer(std::make_shared<ca::BlockwiseLayer>("all", chunks, "k.all", std::vector<std::string>{"src"},
                                                      std::move(args)));
  auto bytes = save(g.get());
  ca_graph_t *h = nullptr;
  ASSERT_EQ(ca_graph_load_buffer(&h, bytes.data(), bytes.size()), CA_OK) << ca_last_error_message();
  expect_same_graph(g.get(), h);
  const auto &la = static_cast<const ca::BlockwiseLayer &>(*ca::capi::engine(g.get()).find("all"));
  const auto &lb = static_cast<const ca::BlockwiseLayer &>(*ca::capi::engine(h).find("all"));
  EXPECT_EQ(la.chunks(), lb.chunks());
  // The emitted tasks are the same (keys of every argument, literal values).
  for (int64_t t = 0; t < la.num_tasks(); ++t) {
    ca_keylist_t *da = nullptr, *db = nullptr;
    int64_t idx[2];
    la.key_at(t, idx);
    ca_key_t k = {"all", idx, 2};
    ASSERT_EQ(ca_graph_dependencies(&da, g.get(), &k), CA_OK);
    ASSERT_EQ(ca_graph_dependencies(&db, h, &k), CA_OK);
    ASSERT_EQ(ca_keylist_size(da), ca_keylist_size(db));
    for (size_t i = 0; i < ca_keylist_size(da); ++i) {
      ca_key_t ka, kb;
      ca_keylist_get(da, i, &ka);
      ca_keylist_get(db, i, &kb);
      EXPECT_STREQ(ka.name, kb.name);
      ASSERT_EQ(ka.nindex, kb.nindex);
      for (int32_t d = 0; d < ka.nindex; ++d) EXPECT_EQ(ka.index[d], kb.index[d]);
    }
    ca_keylist_free(da);
    ca_keylist_free(db);
  }
  ca_graph_free(h);
}

TEST(Format, FileLoadGivesGraphAndArrays) {
  Ctx c;
  ca_array_t *arrays[PIPELINES_MAX];
  size_t n = 0;
  ASSERT_EQ(pipelines_build(c.ctx, nullptr, arrays, &n), 0);
  std::string path = tmpdir() + "/both.cagraph";
  ASSERT_EQ(save_to(NULL, NULL, path.c_str(), NULL, arrays, n, NULL), CA_OK);
  ca_graph_t *g = nullptr;
  ca_array_t **loaded = nullptr;
  size_t m = 0;
  ASSERT_EQ(load_from(&g, &loaded, &m, path.c_str(), NULL, 0), CA_OK) << ca_last_error_message();
  ASSERT_EQ(m, n);
  // The graph holds every array's blocks.
  for (size_t i = 0; i < m; ++i) {
    ca_keylist_t *keys = nullptr;
    ASSERT_EQ(ca_array_keys(&keys, loaded[i]), CA_OK);
    for (size_t k = 0; k < ca_keylist_size(keys); ++k) {
      ca_key_t key;
      ca_keylist_get(keys, k, &key);
      EXPECT_TRUE(ca_graph_has_key(g, &key));
    }
    ca_keylist_free(keys);
  }
  ca_layer_info_t info = CA_LAYER_INFO_INIT;
  ASSERT_EQ(ca_graph_layer_info(&info, g, ca_array_name(loaded[n - 1])), CA_OK);
  EXPECT_EQ(info.kind, CA_LAYER_DATA);
  EXPECT_EQ(info.data_bytes, 37 * 23 * 4);
  info.struct_size = 4;
  EXPECT_EQ(ca_graph_layer_info(&info, g, ca_array_name(loaded[0])), CA_EINVAL);
  // Only the graph, or only the arrays.
  ca_graph_t *g2 = nullptr;
  ASSERT_EQ(load_from(&g2, nullptr, nullptr, path.c_str(), NULL, 0), CA_OK);
  EXPECT_EQ(ca_graph_num_tasks(g2), ca_graph_num_tasks(g));
  ca_array_t **only = nullptr;
  size_t k = 0;
  ASSERT_EQ(load_from(nullptr, &only, &k, path.c_str(), NULL, 0), CA_OK);
  EXPECT_EQ(k, n);
  ca_array_t **none = reinterpret_cast<ca_array_t **>(&k);  // a sentinel: set to NULL on failure
  EXPECT_EQ(load_from(nullptr, &none, nullptr, path.c_str(), NULL, 0), CA_EINVAL);
  EXPECT_EQ(none, nullptr);
  ca_array_free_many(only, k);
  ca_graph_free(g2);
  ca_arrays_free(loaded, m);
  ca_graph_free(g);
  for (size_t i = 0; i < n; ++i) ca_array_free(arrays[i]);
  EXPECT_EQ(ca_format_version(), CA_FORMAT_VERSION);
}

namespace {
uint32_t file_version(const std::vector<unsigned char> &bytes) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= uint32_t(bytes.at(size_t(8 + i))) << (8 * i);
  return v;
}
std::vector<unsigned char> array_bytes(const ca_array_t *a) {
  void *buf = nullptr;
  size_t n = 0;
  EXPECT_EQ(ca_arrays_save_buffer(&a, 1, &buf, &n), CA_OK) << ca_last_error_message();
  std::vector<unsigned char> v(static_cast<unsigned char *>(buf), static_cast<unsigned char *>(buf) + n);
  ca_buffer_free(buf);
  return v;
}
// The one array of a file's bytes (null on failure, with the status in *st).
ca_array_t *load_one(const std::vector<unsigned char> &bytes, ca_status_t *st) {
  ca_array_t **arrays = nullptr;
  size_t n = 0;
  *st = ca_arrays_load_buffer(&arrays, &n, bytes.data(), bytes.size());
  if (*st != CA_OK) return nullptr;
  EXPECT_EQ(n, 1u);
  ca_array_t *a = arrays[0];
  for (size_t i = 1; i < n; ++i) ca_array_free(arrays[i]);
  arrays[0] = nullptr;
  ca_arrays_free(arrays, 0);
  return a;
}
}  // namespace

// Overlap layers are stored symbolically (format version 2, the Overlap schema entry): the file holds
// the layer's spec, not one entry per task; it loads as an overlap layer with the same name, keys and
// tasks, and computes the same. A file without one stays version 1 (old readers load it).
TEST(Format, OverlapLayersRoundTripSymbolically) {
  Ctx c;
  int64_t live = ca::block_live_count();
  {
    const int64_t shape[2] = {11, 9};
    const int64_t numblocks[2] = {3, 2}, sizes[5] = {4, 4, 3, 3, 6};
    ca_chunks_t ch;
    ch.ndim = 2;
    ch.numblocks = numblocks;
    ch.sizes = sizes;
    ca_array_t *x = nullptr, *o = nullptr, *p = nullptr;
    ASSERT_EQ(ca_array_random(&x, CA_RANDOM_NORMAL, 2, shape, &ch, CA_FLOAT64, opt_ptr(ca_random_options_t{sizeof(ca_random_options_t), 0u, 5, 0.0, 1.0, 0.0})), CA_OK)
        << ca_last_error_message();
    EXPECT_EQ(file_version(array_bytes(x)), 1u);
    const int64_t depth[2] = {1, 2};
    const ca_boundary_t bnd[2] = {{CA_BOUNDARY_REFLECT, 0, 0.0}, {CA_BOUNDARY_CONSTANT, 0, 7.5}};
    ASSERT_EQ(ca_array_overlap(&o, x, depth, bnd, nullptr), CA_OK) << ca_last_error_message();
    const ca_boundary_t per[2] = {{CA_BOUNDARY_PERIODIC, 0, 0.0}, {CA_BOUNDARY_NONE, 0, 0.0}};
    const int64_t depth2[2] = {2, 0};
    ASSERT_EQ(ca_array_overlap(&p, x, depth2, per, nullptr), CA_OK) << ca_last_error_message();
    for (ca_array_t *a : {o, p}) {
      auto want = compute_all(c.ctx, &a, 1);
      std::vector<unsigned char> bytes = array_bytes(a);
      EXPECT_EQ(file_version(bytes), 2u);
      ca_status_t st = CA_OK;
      ca_array_t *l = load_one(bytes, &st);
      ASSERT_EQ(st, CA_OK) << ca_last_error_message();
      EXPECT_STREQ(ca_array_name(l), ca_array_name(a));
      ca_graph_t *g = nullptr, *g0 = nullptr;
      ASSERT_EQ(ca_array_graph(&g, l), CA_OK);
      ASSERT_EQ(ca_array_graph(&g0, a), CA_OK);
      ca_layer_info_t info = CA_LAYER_INFO_INIT;
      ASSERT_EQ(ca_graph_layer_info(&info, g, ca_array_name(l)), CA_OK) << ca_last_error_message();
      EXPECT_EQ(info.kind, CA_LAYER_OVERLAP);
      EXPECT_EQ(info.num_tasks, 6);
      expect_same_graph(g0, g);  // same layers, keys and tasks
      EXPECT_EQ(array_bytes(l), bytes);  // saving again writes the same file
      auto got = compute_all(c.ctx, &l, 1);
      EXPECT_EQ(got, want);
      ca_graph_free(g);
      ca_graph_free(g0);
      ca_array_free(l);
    }
    // A version-1 header on a file holding an overlap layer is refused.
    std::vector<unsigned char> bytes = array_bytes(o);
    bytes[8] = 1;
    ca_status_t st = CA_OK;
    EXPECT_EQ(load_one(bytes, &st), nullptr);
    EXPECT_EQ(st, CA_EFORMAT);
    ca_array_free(p);
    ca_array_free(o);
    ca_array_free(x);
  }
  EXPECT_EQ(ca::block_live_count(), live);
}

// Files of format version 1 stored overlap layers as their tasks (a materialized layer): they still
// load, as a materialized layer, and compute what they computed when written
// (golden/overlap_v1.cagraph: an 11x9 float64 buffer, chunks ((4, 4, 3), (3, 6)), depth {0: 1, 1: 2},
// boundary {0: reflect, 1: 7.5}; golden/expected/overlap_v1.npy its result then), which is also what
// the same overlap built now computes.
TEST(Format, OverlapLayersOfVersion1FilesLoadMaterialized) {
  const char *dir = std::getenv("CA_GOLDEN_DIR");
  if (!dir) GTEST_SKIP() << "CA_GOLDEN_DIR not set";
  Ctx c;
  ca_array_t *l = nullptr;
  ASSERT_EQ(ca_array_load(&l, (std::string(dir) + "/overlap_v1.cagraph").c_str()), CA_OK) << ca_last_error_message();
  ca_graph_t *g = nullptr;
  ASSERT_EQ(ca_array_graph(&g, l), CA_OK);
  ca_layer_info_t info = CA_LAYER_INFO_INIT;
  ASSERT_EQ(ca_graph_layer_info(&info, g, ca_array_name(l)), CA_OK) << ca_last_error_message();
  EXPECT_EQ(info.kind, CA_LAYER_MATERIALIZED);
  EXPECT_EQ(info.num_tasks, 6);
  ca_graph_free(g);
  auto got = compute_all(c.ctx, &l, 1);
  ca_array_t *e = nullptr;
  ASSERT_EQ(ca_array_from_npy(&e, (std::string(dir) + "/expected/overlap_v1.npy").c_str(), nullptr), CA_OK)
      << ca_last_error_message();
  EXPECT_EQ(got, compute_all(c.ctx, &e, 1));
  // The same overlap now: symbolic, same name, same result.
  std::vector<double> x(99);
  for (size_t i = 0; i < x.size(); ++i) x[i] = double(i) * 0.5 - 3;
  const int64_t shape[2] = {11, 9}, numblocks[2] = {3, 2}, sizes[5] = {4, 4, 3, 3, 6}, depth[2] = {1, 2};
  const ca_chunks_t ch{2, numblocks, sizes};
  ca_array_t *a = nullptr, *o = nullptr;
  ASSERT_EQ(ca_array_from_buffer(&a, x.data(), CA_FLOAT64, 2, shape, &ch, nullptr),
            CA_OK) << ca_last_error_message();
  const ca_boundary_t bnd[2] = {{CA_BOUNDARY_REFLECT, 0, 0.0}, {CA_BOUNDARY_CONSTANT, 0, 7.5}};
  ASSERT_EQ(ca_array_overlap(&o, a, depth, bnd, nullptr), CA_OK) << ca_last_error_message();
  EXPECT_EQ(compute_all(c.ctx, &o, 1), got);
  ca_array_free(o);
  ca_array_free(a);
  ca_array_free(e);
  ca_array_free(l);
}

// Every engine layer kind has a codec in the graph-file registry (none is saved in a form nobody
// chose), and each stored form maps back to its kind.
TEST(Format, EveryLayerKindHasACodec) {
  for (int32_t k = 0; k <= int32_t(ca::LayerKind::Overlap); ++k) {
    const ca::format::LayerCodec *c = ca::format::layer_codec(ca::LayerKind(k));
    ASSERT_NE(c, nullptr) << k;
    EXPECT_EQ(int32_t(c->kind), k);
    EXPECT_EQ(ca::format::layer_codec(c->tag), c);
    EXPECT_GE(c->since_version, 1u);
    EXPECT_LE(c->since_version, uint32_t(CA_FORMAT_VERSION));
  }
}

// Parametric dtypes (datetime64 with its unit, unicode with its length, float16) are stored as their
// 32-bit codes: arrays over them save, load and compute the same; a code of an unknown unit or kind
// in a file fails to load with CA_EFORMAT (never a crash).
TEST(Format, ParametricDtypesRoundTrip) {
  Ctx c;
  const ca_dtype_t m8ns = CA_DTYPE_MAKE(CA_DATETIME64, CA_UNIT_NS), u3 = CA_DTYPE_MAKE(CA_UNICODE, 3);
  const int64_t n = 6, numblocks[1] = {2}, sizes[2] = {4, 2};
  const ca_chunks_t ch{1, numblocks, sizes};
  std::vector<int64_t> t = {1000, 2000, INT64_MIN, 5000, 123456789, 77};
  std::vector<uint32_t> s(size_t(n) * 3, 0);
  for (int64_t i = 0; i < n; ++i) s[size_t(i) * 3] = uint32_t('a' + i);
  std::vector<uint16_t> h = {0x3c00, 0x4000, 0xbc00, 0x7c00, 0x0001, 0x3555};
  ca_array_t *x = nullptr, *y = nullptr, *z = nullptr, *d = nullptr, *e = nullptr;
  ASSERT_EQ(ca_array_from_buffer(&x, t.data(), m8ns, 1, &n, &ch, nullptr), CA_OK);
  ASSERT_EQ(ca_array_from_buffer(&y, s.data(), u3, 1, &n, &ch, nullptr), CA_OK);
  ASSERT_EQ(ca_array_from_buffer(&z, h.data(), CA_FLOAT16, 1, &n, &ch, nullptr),
            CA_OK);
  ASSERT_EQ(ca_array_binary(&d, CA_OP_SUB, x, x), CA_OK) << ca_last_error_message();  // timedelta64[ns], fused
  ASSERT_EQ(ca_array_binary(&e, CA_OP_EQ, y, y), CA_OK) << ca_last_error_message();
  EXPECT_EQ(ca_array_dtype(d), CA_DTYPE_MAKE(CA_TIMEDELTA64, CA_UNIT_NS));
  ca_array_t *arrays[] = {x, y, z, d, e};
  const std::string path = tmpdir() + "/dtypes.cagraph";
  ASSERT_EQ(save_to(NULL, NULL, path.c_str(), NULL, arrays, 5, NULL), CA_OK) << ca_last_error_message();
  ca_graph_t *g = nullptr;
  ca_array_t **loaded = nullptr;
  size_t m = 0;
  ASSERT_EQ(load_from(&g, &loaded, &m, path.c_str(), NULL, 0), CA_OK) << ca_last_error_message();
  ASSERT_EQ(m, 5u);
  for (size_t i = 0; i < m; ++i) {
    EXPECT_EQ(ca_array_dtype(loaded[i]), ca_array_dtype(arrays[i])) << i;
    std::vector<unsigned char> want(size_t(ca_array_nbytes(arrays[i]))), got(want.size());
    ASSERT_EQ(ca_array_compute_into(c.ctx, arrays[i], want.data(), want.size(), nullptr), CA_OK) << ca_last_error_message();
    ASSERT_EQ(ca_array_compute_into(c.ctx, loaded[i], got.data(), got.size(), nullptr), CA_OK) << ca_last_error_message();
    EXPECT_EQ(got, want) << i;
  }
  // NaT - NaT is NaT; the rest are zero.
  std::vector<int64_t> dv(static_cast<size_t>(n));
  ASSERT_EQ(ca_array_compute_into(c.ctx, loaded[3], dv.data(), dv.size() * 8, nullptr), CA_OK);
  EXPECT_EQ(dv, (std::vector<int64_t>{0, 0, INT64_MIN, 0, 0, 0}));
  ca_arrays_free(loaded, m);
  ca_graph_free(g);

  // The datetime64[ns] code with an unknown unit (14) instead: every occurrence in the file.
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const int32_t good = m8ns, bad = CA_DTYPE_MAKE(CA_DATETIME64, 14);
  size_t replaced = 0;
  for (size_t p = 0; p + 4 <= bytes.size(); ++p) {
    if (std::memcmp(bytes.data() + p, &good, 4) == 0) {
      std::memcpy(bytes.data() + p, &bad, 4);
      ++replaced;
    }
  }
  ASSERT_GT(replaced, 0u);
  const std::string badpath = tmpdir() + "/dtypes_bad.cagraph";
  std::ofstream(badpath, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
  g = nullptr;
  loaded = nullptr;
  EXPECT_EQ(load_from(&g, &loaded, &m, badpath.c_str(), NULL, 0), CA_EFORMAT);
  EXPECT_NE(std::string(ca_last_error_message()).find("dtype"), std::string::npos) << ca_last_error_message();
  for (ca_array_t *a : arrays) ca_array_free(a);
}

// ca_save / ca_load check their options (what, where) and hand back buffers; the deprecated aliases
// are the same code path (their bytes are the same).
TEST(Format, SaveLoadOptions) {
  ca_graph_t *g = rich_graph();
  Ctx c;
  ca_array_t *arrays[PIPELINES_MAX];
  size_t n = 0;
  ASSERT_EQ(pipelines_build(c.ctx, nullptr, arrays, &n), 0);
  void *data = reinterpret_cast<void *>(1);
  size_t size = 7;
  // No options, and options too small to hold a target.
  EXPECT_EQ(ca_save(&data, &size, nullptr), CA_EINVAL);
  EXPECT_EQ(data, nullptr);
  EXPECT_EQ(size, 0u);
  ca_save_options_t so = CA_SAVE_OPTIONS_INIT;
  EXPECT_EQ(so.struct_size, sizeof(ca_save_options_t));
  so.struct_size = offsetof(ca_save_options_t, path);
  so.graph = g;
  EXPECT_EQ(ca_save(&data, &size, &so), CA_EINVAL);
  EXPECT_NE(std::string(ca_last_error_message()).find("struct_size"), std::string::npos);
  // A graph and arrays at once; arrays NULL with a count; an empty path; no output for a buffer.
  so = ca_save_options_t CA_SAVE_OPTIONS_INIT;
  so.graph = g;
  so.arrays = arrays;
  so.narrays = n;
  EXPECT_EQ(ca_save(&data, &size, &so), CA_EINVAL);
  EXPECT_NE(std::string(ca_last_error_message()).find("both set"), std::string::npos);
  so.graph = nullptr;
  so.arrays = nullptr;
  EXPECT_EQ(ca_save(&data, &size, &so), CA_EINVAL);
  so.narrays = 0;
  so.graph = g;
  so.path = "";
  EXPECT_EQ(ca_save(nullptr, nullptr, &so), CA_EINVAL);
  so.path = nullptr;
  EXPECT_EQ(ca_save(nullptr, &size, &so), CA_EINVAL);
  // A graph into a buffer: the bytes the deprecated ca_graph_save_buffer writes, and they load back.
  ASSERT_EQ(ca_save(&data, &size, &so), CA_OK) << ca_last_error_message();
  std::vector<unsigned char> bytes(static_cast<unsigned char *>(data), static_cast<unsigned char *>(data) + size);
  EXPECT_EQ(bytes, save(g));
  ca_load_options_t lo = CA_LOAD_OPTIONS_INIT;
  ca_graph_t *h = nullptr;
  EXPECT_EQ(ca_load(&h, nullptr, nullptr, &lo), CA_EINVAL);  // neither path nor data
  lo.path = "x";
  lo.data = data;
  lo.size = size;
  EXPECT_EQ(ca_load(&h, nullptr, nullptr, &lo), CA_EINVAL);  // both
  lo.path = nullptr;
  EXPECT_EQ(ca_load(nullptr, nullptr, nullptr, &lo), CA_EINVAL);  // nothing asked for
  lo.struct_size = 4;
  EXPECT_EQ(ca_load(&h, nullptr, nullptr, &lo), CA_EINVAL);
  lo.struct_size = sizeof lo;
  ASSERT_EQ(ca_load(&h, nullptr, nullptr, &lo), CA_OK) << ca_last_error_message();
  expect_same_graph(g, h);
  ca_graph_free(h);
  ca_buffer_free(data);
  // Arrays to a file and back, with a context recording versions.
  std::string path = tmpdir() + "/saveload.cagraph";
  so = ca_save_options_t CA_SAVE_OPTIONS_INIT;
  so.context = c.ctx;
  so.path = path.c_str();
  so.arrays = arrays;
  so.narrays = n;
  ASSERT_EQ(ca_save(nullptr, nullptr, &so), CA_OK) << ca_last_error_message();
  lo = ca_load_options_t CA_LOAD_OPTIONS_INIT;
  lo.path = path.c_str();
  ca_array_t **loaded = nullptr;
  size_t m = 0;
  ASSERT_EQ(ca_load(nullptr, &loaded, &m, &lo), CA_OK) << ca_last_error_message();
  ASSERT_EQ(m, n);
  for (size_t i = 0; i < n; ++i) EXPECT_STREQ(ca_array_name(loaded[i]), ca_array_name(arrays[i]));
  ca_array_free_many(loaded, m);
  ca_array_free_many(nullptr, 0);
  // A missing file names the path.
  lo.path = "/nonexistent/dir/x.cagraph";
  EXPECT_EQ(ca_load(nullptr, &loaded, &m, &lo), CA_ENOTFOUND);
  EXPECT_EQ(loaded, nullptr);
  EXPECT_NE(std::string(ca_last_error_message()).find("/nonexistent/dir/x.cagraph"), std::string::npos);
  for (size_t i = 0; i < n; ++i) ca_array_free(arrays[i]);
  ca_graph_free(g);
}

// ------------------------------------------------------------------------------------------------
// Index-map layers (graph/index_map.hpp, format version 3): flip, concatenate, stack, pad, repeat and
// tile are formulas in memory and in files.

#include <capnp/message.h>
#include <capnp/serialize.h>

#include <functional>

#include "graph/index_map.hpp"

namespace {

// rows x cols float64 from a buffer (value r * 100 + c), chunked as given.
ca_array_t *grid_array(int64_t rows, int64_t cols, std::vector<int64_t> rch, std::vector<int64_t> cch,
                       ca_dtype_t dt = CA_FLOAT64) {
  std::vector<double> v(size_t(rows * cols));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) v[size_t(r * cols + c)] = double(r * 100 + c);
  int64_t shape[2] = {rows, cols}, nb[2] = {int64_t(rch.size()), int64_t(cch.size())};
  std::vector<int64_t> sizes = rch;
  sizes.insert(sizes.end(), cch.begin(), cch.end());
  ca_chunks_t ch = {2, nb, sizes.data()};
  ca_array_t *a = nullptr, *b = nullptr;
  EXPECT_EQ(ca_array_from_buffer(&a, v.data(), CA_FLOAT64, 2, shape, &ch, nullptr), CA_OK) << ca_last_error_message();
  if (dt == CA_FLOAT64) return a;
  EXPECT_EQ(ca_array_astype(&b, a, dt), CA_OK) << ca_last_error_message();
  ca_array_free(a);
  return b;
}

struct Op {
  std::string what;
  ca_array_t *a;
};

// Every structural operation over x (11x9, chunks ((4,4,3),(3,6))), z (11x4, other row chunks) and
// e (0x4): each result's top layer is an index-map layer.
std::vector<Op> index_map_ops(ca_array_t *x, ca_array_t *z, ca_array_t *e) {
  std::vector<Op> ops;
  ca_array_t *r = nullptr;
  // (r is read after the call: the operation's status is evaluated first.)
  auto add = [&](const char *what, ca_status_t st) {
    EXPECT_EQ(st, CA_OK) << what << ": " << ca_last_error_message();
    ops.push_back({what, r});
    r = nullptr;
  };
  const int32_t ax0[1] = {0}, ax1[1] = {1};
  add("flip axis 0", ca_array_flip(&r, x, ax0, 1));
  add("flip all", ca_array_flip(&r, x, nullptr, 0));
  const ca_array_t *xz[2] = {x, z}, *xx[2] = {x, x};
  add("concatenate axis 1 (rechunked rows)", ca_array_concatenate(&r, xz, 2, 1));
  add("concatenate x with itself", ca_array_concatenate(&r, xx, 2, 0));
  add("stack axis 1", ca_array_stack(&r, xx, 2, 1));
  add("stack axis 2", ca_array_stack(&r, xx, 2, 2));
  const int64_t b[2] = {1, 2}, f[2] = {0, 3};
  ca_scalar_t v{};
  v.kind = CA_FLOAT64;
  v.re = 7.5;
  add("pad constant", ca_array_pad(&r, x, b, f, CA_PAD_CONSTANT, v));
  add("pad edge", ca_array_pad(&r, x, b, f, CA_PAD_EDGE, v));
  add("pad reflect", ca_array_pad(&r, x, b, f, CA_PAD_REFLECT, v));
  add("repeat 3 axis 1", ca_array_repeat(&r, x, 3, 1));
  add("repeat 5 axis 0", ca_array_repeat(&r, x, 5, 0));
  add("repeat 0", ca_array_repeat(&r, x, 0, 0));
  const int64_t reps[2] = {2, 3};
  add("tile", ca_array_tile(&r, x, reps, 2));
  const int64_t reps3[3] = {2, 1, 2};
  add("tile adding an axis", ca_array_tile(&r, x, reps3, 3));
  add("flip empty", ca_array_flip(&r, e, ax1, 1));
  add("pad empty", ca_array_pad(&r, e, b, f, CA_PAD_CONSTANT, v));
  const int64_t reps2[2] = {2, 1};
  add("tile empty", ca_array_tile(&r, e, reps2, 2));
  add("repeat empty", ca_array_repeat(&r, e, 2, 1));
  return ops;
}

ca_layer_kind_t top_kind(const ca_array_t *a, int64_t *num_tasks = nullptr) {
  ca_graph_t *g = nullptr;
  EXPECT_EQ(ca_array_graph(&g, a), CA_OK);
  ca_layer_info_t info = CA_LAYER_INFO_INIT;
  EXPECT_EQ(ca_graph_layer_info(&info, g, ca_array_name(a)), CA_OK) << ca_last_error_message();
  ca_graph_free(g);
  if (num_tasks) *num_tasks = info.num_tasks;
  return info.kind;
}

}  // namespace

// Each operation's layer is an index-map layer; its file records version 3, loads as the same layer
// (name, keys, tasks), saves again to the same bytes and computes the same values (ragged chunks,
// repeated inputs, empty arrays, several dtypes).
TEST(Format, IndexMapLayersRoundTripSymbolically) {
  Ctx c;
  int64_t live = ca::block_live_count();
  for (ca_dtype_t dt : {CA_FLOAT64, CA_INT32, CA_FLOAT32}) {
    ca_array_t *x = grid_array(11, 9, {4, 4, 3}, {3, 6}, dt), *z = grid_array(11, 4, {5, 6}, {1, 3}, dt),
               *e = grid_array(0, 4, {0}, {2, 2}, dt);
    EXPECT_EQ(file_version(array_bytes(x)), 1u);
    for (Op &op : index_map_ops(x, z, e)) {
      SCOPED_TRACE(op.what);
      ca_array_t *a = op.a;
      EXPECT_EQ(top_kind(a), CA_LAYER_INDEX_MAP);
      auto want = compute_all(c.ctx, &a, 1);
      std::vector<unsigned char> bytes = array_bytes(a);
      EXPECT_EQ(file_version(bytes), 3u);
      ca_status_t st = CA_OK;
      ca_array_t *l = load_one(bytes, &st);
      ASSERT_EQ(st, CA_OK) << ca_last_error_message();
      EXPECT_STREQ(ca_array_name(l), ca_array_name(a));
      EXPECT_EQ(top_kind(l), CA_LAYER_INDEX_MAP);
      ca_graph_t *g = nullptr, *g0 = nullptr;
      ASSERT_EQ(ca_array_graph(&g, l), CA_OK);
      ASSERT_EQ(ca_array_graph(&g0, a), CA_OK);
      expect_same_graph(g0, g);
      EXPECT_EQ(array_bytes(l), bytes);
      EXPECT_EQ(compute_all(c.ctx, &l, 1), want);
      ca_graph_free(g);
      ca_graph_free(g0);
      ca_array_free(l);
      ca_array_free(a);
    }
    ca_array_free(x);
    ca_array_free(z);
    ca_array_free(e);
  }
  EXPECT_EQ(ca::block_live_count(), live);
}

// The graph of each operation grows with the blocks per axis, not with their product: 16x more
// blocks (4x per axis) make a file at most ~4x larger (a materialized layer would be 16x: ~35 bytes
// per task), and the layer is a formula (kind index-map, num_tasks the whole grid).
TEST(Format, IndexMapLayerSizeFollowsBlocksPerAxis) {
  auto sizes = [](int64_t n) {
    int64_t shape[2] = {2 * n, 2 * n}, nb[2] = {n, n};
    std::vector<int64_t> s(size_t(2 * n), 2);
    ca_chunks_t ch = {2, nb, s.data()};
    ca_array_t *x = nullptr;
    EXPECT_EQ(ca_array_ones(&x, 2, shape, &ch, CA_FLOAT64), CA_OK);
    ca_array_t *e = grid_array(0, 4, {0}, {2, 2});
    std::vector<Op> ops = index_map_ops(x, x, e);
    std::vector<std::pair<std::string, size_t>> out;
    for (Op &op : ops) {
      if (op.what.find("empty") == std::string::npos) {
        int64_t ntasks = 0;
        EXPECT_EQ(top_kind(op.a, &ntasks), CA_LAYER_INDEX_MAP) << op.what;
        if (op.what != "repeat 0") {
          EXPECT_GE(ntasks, n * n) << op.what;
        }
        out.push_back({op.what, array_bytes(op.a).size()});
      }
      ca_array_free(op.a);
    }
    ca_array_free(x);
    ca_array_free(e);
    return out;
  };
  auto small = sizes(16), large = sizes(64);
  ASSERT_EQ(small.size(), large.size());
  for (size_t i = 0; i < small.size(); ++i) {
    EXPECT_LT(double(large[i].second), 4.5 * double(small[i].second))
        << small[i].first << ": " << small[i].second << " -> " << large[i].second << " bytes";
    // 64x64 blocks (4096 tasks at least): well below one materialized entry per task.
    EXPECT_LT(large[i].second, 4096u * 35u / 2) << large[i].first;
  }
}

namespace {
namespace sch = ca::format::schema;
// The file `bytes` with its message changed by `edit` (header kept, version from `version` if > 0).
std::vector<unsigned char> edit_file(const std::vector<unsigned char> &bytes,
                                     const std::function<void(sch::File::Builder)> &edit, uint32_t version = 0) {
  std::vector<capnp::word> words((bytes.size() - 16) / sizeof(capnp::word));
  std::memcpy(words.data(), bytes.data() + 16, words.size() * sizeof(capnp::word));
  capnp::FlatArrayMessageReader reader(kj::arrayPtr(words.data(), words.size()));
  capnp::MallocMessageBuilder msg;
  msg.setRoot(reader.getRoot<sch::File>());
  auto f = msg.getRoot<sch::File>();
  edit(f);
  if (version) f.setVersion(version);
  auto flat = capnp::messageToFlatArray(msg);
  auto fb = flat.asBytes();
  std::vector<unsigned char> out(bytes.begin(), bytes.begin() + 16);
  if (version) out[8] = uint8_t(version);
  out.insert(out.end(), fb.begin(), fb.end());
  return out;
}
// The index-map layer named `name` of a file being edited.
sch::IndexMap::Builder index_map_of(sch::File::Builder f, const std::string &name) {
  for (auto l : f.getLayers())
    if (std::string(l.getName().cStr()) == name) return l.getIndexMap();
  ADD_FAILURE() << "no layer " << name;
  return f.getLayers()[0].getIndexMap();
}
// One corruption of an array's index-map layer (the file of `a`, edited in that layer).
struct IndexMapEdit {
  const char *what;
  ca_array_t *a;
  std::function<void(sch::IndexMap::Builder)> edit;
};

// The file `bytes` with its index-map layers in the per-block segment form graph files had before
// runs (one column entry per output block, from index_map_segment; runs and tables empty): the
// legacy writer, for tests of files written then.
std::vector<unsigned char> segment_form(const std::vector<unsigned char> &bytes) {
  auto fc = ca::format::load_bytes(bytes.data(), bytes.size());
  return edit_file(bytes, [&](sch::File::Builder f) {
    for (auto l : f.getLayers()) {
      if (!l.isIndexMap()) continue;
      const ca::Layer *layer = fc.graph->find(l.getName().cStr());
      ASSERT_NE(layer, nullptr);
      auto m = l.getIndexMap();
      m.initRuns(0);
      m.initTables(0);
      const std::vector<ca::Index> nb = layer->numblocks();
      auto axes = m.initAxes(unsigned(nb.size()));
      for (unsigned d = 0; d < nb.size(); ++d) {
        const unsigned n = unsigned(nb[d]);
        auto a = axes[d];
        auto kind = a.initKind(n);
        auto input = a.initInput(n);
        auto block = a.initBlock(n);
        auto start = a.initStart(n);
        auto step = a.initStep(n);
        auto count = a.initCount(n);
        for (unsigned i = 0; i < n; ++i) {
          const ca::IndexMapSeg g = ca::index_map_segment(*layer, int32_t(d), ca::Index(i));
          kind.set(i, uint8_t(g.kind));
          input.set(i, g.input);
          block.set(i, g.block);
          start.set(i, g.start);
          step.set(i, g.step);
          count.set(i, g.count);
        }
      }
    }
  });
}

// Each case's file loads as saved (in the segment form when `segments`), and with the case's edit
// is CA_EFORMAT naming the layer.
void expect_index_map_edits_refused(const std::vector<IndexMapEdit> &cases, bool segments) {
  for (const IndexMapEdit &cs : cases) {
    SCOPED_TRACE(cs.what);
    const std::string name = ca_array_name(cs.a);
    std::vector<unsigned char> bytes = segments ? segment_form(array_bytes(cs.a)) : array_bytes(cs.a);
    ca_status_t st = CA_OK;
    ca_array_t *ok = load_one(edit_file(bytes, [](sch::File::Builder) {}), &st);
    ASSERT_EQ(st, CA_OK) << ca_last_error_message();
    ca_array_free(ok);
    auto bad = edit_file(bytes, [&](sch::File::Builder fb) { cs.edit(index_map_of(fb, name)); });
    EXPECT_EQ(load_one(bad, &st), nullptr);
    EXPECT_EQ(st, CA_EFORMAT);
    EXPECT_NE(std::string(ca_last_error_message()).find("layer '" + name + "'"), std::string::npos)
        << ca_last_error_message();
  }
}
// Per index-map layer of a file: (per-block axes, axes of runs).
std::vector<std::pair<unsigned, unsigned>> index_map_forms(const std::vector<unsigned char> &bytes) {
  std::vector<std::pair<unsigned, unsigned>> out;
  edit_file(bytes, [&](sch::File::Builder f) {
    for (auto l : f.getLayers())
      if (l.isIndexMap()) out.push_back({l.getIndexMap().getAxes().size(), l.getIndexMap().getRuns().size()});
  });
  return out;
}
}  // namespace

// A corrupt or out-of-range index-map layer in a file is refused with CA_EFORMAT naming the layer,
// never a crash or a wrong graph; an unedited copy loads (the editing itself is sound). The edits are
// of the per-block segment form (files written before runs; BadIndexMapRunsFailToLoad: the runs).
TEST(Format, BadIndexMapLayersFailToLoad) {
  ca_array_t *x = grid_array(11, 9, {4, 4, 3}, {3, 6}), *z = grid_array(11, 4, {5, 6}, {1, 3}), *r = nullptr;
  const ca_array_t *xz[2] = {x, z};
  ASSERT_EQ(ca_array_concatenate(&r, xz, 2, 1), CA_OK);
  ca_array_t *p = nullptr, *rep = nullptr;
  const int64_t b[2] = {1, 2}, f[2] = {0, 3};
  ca_scalar_t v{};
  v.kind = CA_FLOAT64;
  ASSERT_EQ(ca_array_pad(&p, x, b, f, CA_PAD_CONSTANT, v), CA_OK);
  ASSERT_EQ(ca_array_repeat(&rep, x, 3, 1), CA_OK);
  using Case = IndexMapEdit;
  const std::vector<Case> cases = {
      {"unknown segment kind", r, [](sch::IndexMap::Builder m) { m.getAxes()[0].getKind().set(0, 9); }},
      {"negative input block", r, [](sch::IndexMap::Builder m) { m.getAxes()[1].getBlock().set(1, -1); }},
      {"input slot out of range", r, [](sch::IndexMap::Builder m) { m.getAxes()[1].getInput().set(0, 5); }},
      {"input picked off the select axis", r, [](sch::IndexMap::Builder m) { m.getAxes()[0].getInput().set(0, 1); }},
      {"select axis out of range", r, [](sch::IndexMap::Builder m) { m.setSelectAxis(7); }},
      {"two inputs, no select axis", r, [](sch::IndexMap::Builder m) { m.setSelectAxis(-1); }},
      {"columns of different lengths", r, [](sch::IndexMap::Builder m) { m.getAxes()[0].initStep(1); }},
      {"an axis without blocks", r, [](sch::IndexMap::Builder m) {
         auto a = m.getAxes()[0];
         a.initKind(0), a.initInput(0), a.initBlock(0), a.initStart(0), a.initStep(0), a.initCount(0);
       }},
      {"axes unlike the keys", r, [](sch::IndexMap::Builder m) { m.initAxes(1); }},
      {"negative count", r, [](sch::IndexMap::Builder m) { m.getAxes()[0].getCount().set(0, -5); }},
      {"kernel versions unlike the kernels", r, [](sch::IndexMap::Builder m) { m.initKernelVersions(3); }},
      {"negative kernel version", r, [](sch::IndexMap::Builder m) { m.initKernelVersions(1).set(0, -2); }},
      {"fill value of the wrong size", p, [](sch::IndexMap::Builder m) { m.setFillValue(capnp::Data::Reader()); }},
      {"invalid fill dtype", p, [](sch::IndexMap::Builder m) { m.setFillDtype(9999); }},
      {"negative repeats", rep, [](sch::IndexMap::Builder m) { m.setRepeats(-1); }},
      {"overflowing slab", rep, [](sch::IndexMap::Builder m) { m.getAxes()[1].getStart().set(0, INT64_MAX); }},
      {"repeat on two axes", rep, [](sch::IndexMap::Builder m) { m.getAxes()[0].getKind().set(0, 3); }},
  };
  expect_index_map_edits_refused(cases, true);
  // A file saying version 2 cannot hold one.
  ca_status_t st = CA_OK;
  EXPECT_EQ(load_one(edit_file(array_bytes(r), [](sch::File::Builder) {}, 2), &st), nullptr);
  EXPECT_EQ(st, CA_EFORMAT);
  EXPECT_NE(std::string(ca_last_error_message()).find("index-map layer, which format version 2 files cannot hold"),
            std::string::npos)
      << ca_last_error_message();
  if (const char *dir = std::getenv("CA_WRITE_FUZZ_SEED")) {
    // The fuzz corpus seed (tests/fuzz/corpus/index_map_v3_runs): concatenate, pad and repeat in the
    // run form (index_map_v3_symbolic, written before runs, holds them in the segment form).
    ca_array_t *three[3] = {r, p, rep};
    void *buf = nullptr;
    size_t n = 0;
    ASSERT_EQ(ca_arrays_save_buffer(three, 3, &buf, &n), CA_OK);
    std::ofstream(std::string(dir) + "/index_map_v3_runs", std::ios::binary)
        .write(static_cast<const char *>(buf), std::streamsize(n));
    ca_buffer_free(buf);
  }
  ca_array_free(rep);
  ca_array_free(p);
  ca_array_free(r);
  ca_array_free(z);
  ca_array_free(x);
}

// A 0-d index-map layer (no axes: one task, the input's one block whole) is a valid formula: it
// emits ca.identity of the input's key and round-trips through a file.
TEST(Format, ZeroDimensionalIndexMapLayer) {
  ca::IndexMapSpec sp;
  sp.inputs = {"x0"};
  auto layer = ca::make_index_map_layer("im0", sp);
  EXPECT_EQ(layer->num_tasks(), 1);
  EXPECT_EQ(layer->kernel_names(), std::vector<std::string>{"ca.identity"});
  ca::Graph g;
  int64_t none = 0;
  ca_arg_t one = ca_arg_i64(1);
  g.add_task(ca::KeyRef{"x0", &none, 0}, "ca.ones", &one, 1);
  g.add_layer(layer);
  auto bytes = ca::format::save_bytes(g, {});
  EXPECT_EQ(file_version(bytes), 3u);
  auto fc = ca::format::load_bytes(bytes.data(), bytes.size());
  const ca::Layer *l = fc.graph->find("im0");
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(l->kind(), ca::LayerKind::IndexMap);
  EXPECT_EQ(l->fingerprint(), layer->fingerprint());
  EXPECT_EQ(l->find(nullptr), 0);
  // Bad specs are CA_EINVAL when built in memory.
  ca::IndexMapSpec bad = sp;
  bad.axes = {{ca::IndexMapSeg{}}};
  bad.axes[0][0].kind = ca::IndexMapSeg::Fill;
  EXPECT_THROW(ca::make_index_map_layer("bad", bad), ca::Error);  // a Fill without a fill dtype
  bad = sp;
  bad.inputs.clear();
  EXPECT_THROW(ca::make_index_map_layer("bad", bad), ca::Error);
}

// Operations after a structural one still fuse and reduce: sums of (concatenate * 2), of a pad and
// of a tile equal a plain loop over the same values.
TEST(Format, ReductionsThroughIndexMapLayers) {
  Ctx c;
  ca_array_t *x = grid_array(11, 9, {4, 4, 3}, {3, 6}), *z = grid_array(11, 4, {5, 6}, {1, 3});
  double sx = 0, sz = 0;
  for (int r = 0; r < 11; ++r) {
    for (int col = 0; col < 9; ++col) sx += r * 100 + col;
    for (int col = 0; col < 4; ++col) sz += r * 100 + col;
  }
  auto sum_of = [&](ca_array_t *a) {
    ca_array_t *s = nullptr;
    EXPECT_EQ(ca_array_reduce(&s, CA_RED_SUM, a, nullptr, 0, 0, nullptr), CA_OK) << ca_last_error_message();
    double v = 0;
    EXPECT_EQ(ca_array_compute_into(c.ctx, s, &v, sizeof v, nullptr), CA_OK) << ca_last_error_message();
    ca_array_free(s);
    return v;
  };
  const ca_array_t *xz[2] = {x, z};
  ca_array_t *cat = nullptr, *two = nullptr, *p = nullptr, *t = nullptr;
  ASSERT_EQ(ca_array_concatenate(&cat, xz, 2, 1), CA_OK);
  EXPECT_EQ(sum_of(cat), sx + sz);
  ca_scalar_t k{};
  k.kind = CA_FLOAT64;
  k.re = 2;
  ASSERT_EQ(ca_array_binary_scalar(&two, CA_OP_MUL, cat, k, false), CA_OK);
  EXPECT_EQ(sum_of(two), 2 * (sx + sz));
  const int64_t b[2] = {1, 2}, f[2] = {0, 3};
  ASSERT_EQ(ca_array_pad(&p, x, b, f, CA_PAD_CONSTANT, k), CA_OK);
  EXPECT_EQ(sum_of(p), sx + 2.0 * double(12 * 14 - 11 * 9));  // (11 + 1 + 0) x (9 + 2 + 3)
  const int64_t reps[2] = {2, 3};
  ASSERT_EQ(ca_array_tile(&t, x, reps, 2), CA_OK);
  EXPECT_EQ(sum_of(t), 6 * sx);
  for (ca_array_t *a : {cat, two, p, t, x, z}) ca_array_free(a);
}

// ---- index-map runs (graph/index_map.hpp: O(runs) per layer, whatever the number of blocks) ----

namespace {
const ca::Layer &layer_named(const ca_graph_t *g, const std::string &name) {
  for (auto &l : ca::capi::engine(g).layers())
    if (l->name() == name) return *l;
  ADD_FAILURE() << "no layer " << name;
  return *ca::capi::engine(g).layers().front();
}
std::vector<unsigned char> read_bytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<unsigned char>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}
}  // namespace

// golden/index_map_v3_segments.cagraph was written by main before runs (c563231; the per-block
// segment form): its twelve arrays (flip, concatenate, stack, pad x3, repeat x2, tile, flip of a
// concatenate over ragged chunks) load, compute NumPy's results (expected/<name>.npy), save again in
// the run form and load from that as the same graph (same fingerprints: of the segments).
TEST(Format, IndexMapSegmentFormGoldenFileLoads) {
  const char *dir = std::getenv("CA_GOLDEN_DIR");
  if (!dir) GTEST_SKIP() << "CA_GOLDEN_DIR not set";
  Ctx c;
  std::vector<unsigned char> bytes = read_bytes(std::string(dir) + "/index_map_v3_segments.cagraph");
  ASSERT_FALSE(bytes.empty());
  EXPECT_EQ(file_version(bytes), 3u);
  auto forms = index_map_forms(bytes);
  ASSERT_GE(forms.size(), 12u);
  for (auto [axes, runs] : forms) {
    EXPECT_GT(axes, 0u);
    EXPECT_EQ(runs, 0u);
  }
  ca_array_t **arrays = nullptr, **again = nullptr;
  size_t n = 0, m = 0;
  ASSERT_EQ(ca_arrays_load_buffer(&arrays, &n, bytes.data(), bytes.size()), CA_OK) << ca_last_error_message();
  ASSERT_EQ(n, 12u);
  auto got = compute_all(c.ctx, arrays, n);
  for (size_t i = 0; i < n; ++i) {
    std::string npy = std::string(dir) + "/expected/" + ca_array_name(arrays[i]) + ".npy";
    ca_array_t *e = nullptr;
    ASSERT_EQ(ca_array_from_npy(&e, npy.c_str(), nullptr), CA_OK) << ca_last_error_message();
    EXPECT_EQ(ca_array_dtype(e), ca_array_dtype(arrays[i]));
    EXPECT_EQ(got[i], compute_all(c.ctx, &e, 1)[0]) << ca_array_name(arrays[i]);
    ca_array_free(e);
  }
  void *buf = nullptr;
  size_t nb = 0;
  ASSERT_EQ(ca_arrays_save_buffer(arrays, n, &buf, &nb), CA_OK) << ca_last_error_message();
  std::vector<unsigned char> runs(static_cast<unsigned char *>(buf), static_cast<unsigned char *>(buf) + nb);
  ca_buffer_free(buf);
  EXPECT_EQ(file_version(runs), 3u);
  for (auto [axes, r] : index_map_forms(runs)) {
    EXPECT_EQ(axes, 0u);
    EXPECT_GT(r, 0u);
  }
  ASSERT_EQ(ca_arrays_load_buffer(&again, &m, runs.data(), runs.size()), CA_OK) << ca_last_error_message();
  ASSERT_EQ(m, n);
  EXPECT_EQ(compute_all(c.ctx, again, m), got);
  for (size_t i = 0; i < n; ++i) {
    EXPECT_STREQ(ca_array_name(again[i]), ca_array_name(arrays[i]));
    ca_graph_t *g0 = nullptr, *g1 = nullptr;
    ASSERT_EQ(ca_array_graph(&g0, arrays[i]), CA_OK);
    ASSERT_EQ(ca_array_graph(&g1, again[i]), CA_OK);
    expect_same_graph(g0, g1);
    ca_graph_free(g0);
    ca_graph_free(g1);
  }
  ca_arrays_free(again, m);
  ca_arrays_free(arrays, n);
}

// 1-d arrays of 100,000 ragged blocks: each structural layer holds a few runs per axis and a
// chunk table or two (in memory), and its file grows with the chunks only (8 bytes per block of the
// output's and the tables' chunks), not with one 40-byte segment per block as before.
TEST(Format, IndexMapRunsDoNotGrowWithBlocks) {
  const int64_t nblocks = 100000;
  std::vector<int64_t> sizes(static_cast<size_t>(nblocks));
  int64_t total = 0;
  for (int64_t i = 0; i < nblocks; ++i) total += sizes[size_t(i)] = 1 + i % 3;
  int64_t shape[1] = {total}, nbs[1] = {nblocks};
  ca_chunks_t ch = {1, nbs, sizes.data()};
  ca_array_t *x = nullptr;
  ASSERT_EQ(ca_array_ones(&x, 1, shape, &ch, CA_FLOAT64), CA_OK) << ca_last_error_message();
  const size_t base = array_bytes(x).size();
  struct Want {
    const char *what;
    ca_array_t *a;
    size_t max_runs;  // per axis
  };
  std::vector<Want> ops;
  ca_array_t *r = nullptr;
  auto add = [&](const char *what, ca_status_t st, size_t max_runs) {
    EXPECT_EQ(st, CA_OK) << what << ": " << ca_last_error_message();
    ops.push_back({what, r, max_runs});
    r = nullptr;
  };
  const int32_t ax0[1] = {0};
  const ca_array_t *xx[2] = {x, x};
  ca_scalar_t v{};
  v.kind = CA_FLOAT64;
  v.re = 2;
  const int64_t b[1] = {3}, a[1] = {4}, wb[1] = {50}, wa[1] = {70}, reps[1] = {3};
  add("flip", ca_array_flip(&r, x, ax0, 1), 1);
  add("concatenate x with itself", ca_array_concatenate(&r, xx, 2, 0), 2);
  add("stack axis 1", ca_array_stack(&r, xx, 2, 1), 2);
  add("pad constant", ca_array_pad(&r, x, b, a, CA_PAD_CONSTANT, v), 3);
  add("pad edge", ca_array_pad(&r, x, b, a, CA_PAD_EDGE, v), 3);
  add("pad reflect", ca_array_pad(&r, x, wb, wa, CA_PAD_REFLECT, v), 7);
  add("repeat 2", ca_array_repeat(&r, x, 2, 0), 1);
  add("repeat 5", ca_array_repeat(&r, x, 5, 0), 1);
  add("tile", ca_array_tile(&r, x, reps, 1), 1);
  {
    ca_array_t *cat = nullptr;
    ASSERT_EQ(ca_array_concatenate(&cat, xx, 2, 0), CA_OK);
    add("flip of a concatenate", ca_array_flip(&r, cat, ax0, 1), 1);
    ca_array_free(cat);
  }
  for (Want &w : ops) {
    SCOPED_TRACE(w.what);
    ca_graph_t *g = nullptr;
    ASSERT_EQ(ca_array_graph(&g, w.a), CA_OK);
    const ca::Layer &l = layer_named(g, ca_array_name(w.a));
    ASSERT_EQ(l.kind(), ca::LayerKind::IndexMap);
    const ca::IndexMapSpec &sp = ca::index_map_spec(l);
    size_t table_entries = 0;
    for (auto &t : sp.tables) table_entries += t->size();
    for (auto &runs : sp.runs) EXPECT_LE(runs.size(), w.max_runs);
    EXPECT_LE(sp.tables.size(), 2u);
    EXPECT_TRUE(sp.axes.empty());
    size_t out_blocks = 0;
    for (ca::Index n : l.numblocks()) out_blocks += size_t(n);
    EXPECT_GE(out_blocks, size_t(nblocks));
    const size_t bytes = array_bytes(w.a).size();
    // The output's chunks and the tables, 8 bytes each, over the input's file, plus a constant.
    EXPECT_LE(bytes, base + 8 * (out_blocks + table_entries) + 4096)
        << bytes << " bytes; input " << base << ", " << out_blocks << " blocks, " << table_entries << " table entries";
    // The same layer in the per-block segment form (files written before runs) is ~40 bytes per
    // output block larger, and loads (its columns are read once each: the traversal budget).
    const std::vector<unsigned char> seg = segment_form(array_bytes(w.a));
    EXPECT_GT(seg.size(), bytes + 30 * out_blocks);
    ca_status_t st = CA_OK;
    ca_array_t *back = load_one(seg, &st);
    ASSERT_EQ(st, CA_OK) << ca_last_error_message();
    EXPECT_STREQ(ca_array_name(back), ca_array_name(w.a));
    ca_array_free(back);
    ca_graph_free(g);
    ca_array_free(w.a);
  }
  ca_array_free(x);
}

// Run-form files with corrupt runs or tables are refused with CA_EFORMAT naming the layer (never a
// crash, a hang or a wrong graph); an unedited copy loads.
TEST(Format, BadIndexMapRunsFailToLoad) {
  ca_array_t *x = grid_array(11, 9, {4, 4, 3}, {3, 6}), *z = grid_array(11, 4, {5, 6}, {1, 3});
  const ca_array_t *xz[2] = {x, z};
  ca_array_t *cat = nullptr, *fl = nullptr, *rep = nullptr, *til = nullptr, *pc = nullptr;
  ASSERT_EQ(ca_array_concatenate(&cat, xz, 2, 1), CA_OK);
  ASSERT_EQ(ca_array_flip(&fl, x, nullptr, 0), CA_OK);
  ASSERT_EQ(ca_array_repeat(&rep, x, 3, 1), CA_OK);
  const int64_t reps[2] = {2, 3}, b[2] = {1, 2}, f[2] = {0, 3};
  ASSERT_EQ(ca_array_tile(&til, x, reps, 2), CA_OK);
  ca_scalar_t v{};
  v.kind = CA_FLOAT64;
  ASSERT_EQ(ca_array_pad(&pc, x, b, f, CA_PAD_CONSTANT, v), CA_OK);
  using Case = IndexMapEdit;
  auto run = [](sch::IndexMap::Builder m, unsigned d, unsigned i) { return m.getRuns()[d].getRuns()[i]; };
  const std::vector<Case> cases = {
      {"unknown run kind", cat, [&](sch::IndexMap::Builder m) { run(m, 0, 0).setKind(9); }},
      {"unknown block rule", cat, [&](sch::IndexMap::Builder m) { run(m, 0, 0).setRule(7); }},
      {"run without blocks", cat, [&](sch::IndexMap::Builder m) { run(m, 1, 1).setN(0); }},
      {"block step out of range", cat, [&](sch::IndexMap::Builder m) { run(m, 0, 0).setBstep(2); }},
      {"chunk table out of range", cat, [&](sch::IndexMap::Builder m) { run(m, 0, 0).setTable(9); }},
      {"input block past its table", cat, [&](sch::IndexMap::Builder m) { run(m, 0, 0).setBlock(2); }},
      {"input slot out of range", cat, [&](sch::IndexMap::Builder m) { run(m, 1, 1).setInput(5); }},
      {"input picked off the select axis", cat, [&](sch::IndexMap::Builder m) { run(m, 0, 0).setInput(1); }},
      {"a run of 2^40 blocks", cat, [&](sch::IndexMap::Builder m) { run(m, 0, 0).setN(int64_t(1) << 40); }},
      {"negative table size", cat, [](sch::IndexMap::Builder m) { m.getTables()[0].set(0, -7); }},
      {"table run with a literal count", cat, [&](sch::IndexMap::Builder m) { run(m, 0, 0).setCount(4); }},
      {"both forms", cat, [](sch::IndexMap::Builder m) { m.initAxes(2); }},
      {"axes of runs unlike the keys", cat, [](sch::IndexMap::Builder m) { m.initRuns(1); }},
      {"negative input block", fl, [&](sch::IndexMap::Builder m) { run(m, 0, 0).setBlock(1); }},
      {"reversed run stepping by 2", fl, [&](sch::IndexMap::Builder m) { run(m, 0, 0).setStep(2); }},
      {"unknown size under a reversed run", fl, [](sch::IndexMap::Builder m) { m.getTables()[0].set(1, -1); }},
      {"slab run of the wrong length", rep, [&](sch::IndexMap::Builder m) { run(m, 1, 0).setN(3); }},
      {"slab run without a table", rep, [&](sch::IndexMap::Builder m) { run(m, 1, 0).setTable(-1); }},
      {"slab run with repeats 1", rep, [](sch::IndexMap::Builder m) { m.setRepeats(1); }},
      {"slabs of a huge block", rep,
       [](sch::IndexMap::Builder m) {
         m.setRepeats(int64_t(1) << 50);
         m.getTables()[1].set(1, (int64_t(1) << 50) + 1);
       }},
      {"slab rule on a whole run", rep, [&](sch::IndexMap::Builder m) { run(m, 0, 0).setRule(2); }},
      {"modular period 0", til, [&](sch::IndexMap::Builder m) { run(m, 0, 0).setBstep(0); }},
      {"constant run over a table", pc, [&](sch::IndexMap::Builder m) { run(m, 0, 0).setTable(0); }},
      {"constant run with a negative count", pc, [&](sch::IndexMap::Builder m) { run(m, 1, 0).setCount(-2); }},
  };
  expect_index_map_edits_refused(cases, false);
  for (ca_array_t *a : {cat, fl, rep, til, pc, x, z}) ca_array_free(a);
}

// The spec API: per-block segments become runs (a flip's 1000 reversed blocks: one run; alternating
// kinds: one run each), whose segments are the given ones; repeat_slab matches dask's
// round(linspace) slabs (distinct consecutive points) for small and huge offsets.
TEST(Format, IndexMapSegmentsBecomeRuns) {
  ca::IndexMapSpec sp;
  sp.inputs = {"x"};
  std::vector<ca::IndexMapSeg> segs;
  for (ca::Index i = 0; i < 1000; ++i) segs.push_back({ca::IndexMapSeg::Strided, 0, 999 - i, 4, -1, 5});
  sp.axes = {segs};
  auto l = ca::make_index_map_layer("flipped", sp);
  const ca::IndexMapSpec &got = ca::index_map_spec(*l);
  ASSERT_EQ(got.runs.size(), 1u);
  EXPECT_EQ(got.runs[0].size(), 1u);
  EXPECT_TRUE(got.axes.empty());
  for (ca::Index i = 0; i < 1000; ++i) EXPECT_EQ(ca::index_map_segment(*l, 0, i), segs[size_t(i)]);
  EXPECT_THROW(ca::index_map_segment(*l, 0, 1000), ca::Error);
  EXPECT_THROW(ca::index_map_segment(*l, 1, 0), ca::Error);
  segs.clear();
  for (ca::Index i = 0; i < 6; ++i)
    segs.push_back({i % 2 ? ca::IndexMapSeg::Whole : ca::IndexMapSeg::Strided, 0, i, i % 2 ? 0 : 1, 1, 3});
  sp.axes = {segs};
  l = ca::make_index_map_layer("alternating", sp);
  EXPECT_EQ(ca::index_map_spec(*l).runs[0].size(), 6u);
  for (ca::Index i = 0; i < 6; ++i) EXPECT_EQ(ca::index_map_segment(*l, 0, i), segs[size_t(i)]);
  // Both forms at once are refused.
  sp.runs = {{ca::IndexMapRun{}}};
  EXPECT_THROW(ca::make_index_map_layer("both", sp), ca::Error);

  auto slabs = [](ca::Index c, ca::Index off, int64_t r) {  // dask's rule, literally
    std::vector<std::pair<ca::Index, ca::Index>> out;
    if (r > c) {
      for (ca::Index i = 0; i < c; ++i) out.push_back({i, 1});
      return out;
    }
    std::vector<ca::Index> ls;
    const double step = double(c) / double(r - 1);
    for (int64_t k = 0; k < r; ++k)
      ls.push_back(ca::Index(std::nearbyint(k == r - 1 ? double(off + c) : double(k) * step + double(off))));
    for (size_t k = 0; k + 1 < ls.size(); ++k)
      if (ls[k] != ls[k + 1]) out.push_back({ls[k] - off, ls[k + 1] - ls[k]});
    return out;
  };
  for (ca::Index off : {ca::Index(0), ca::Index(1), ca::Index(7), (ca::Index(1) << 40) + 1, ca::Index(1) << 52})
    for (ca::Index c = 0; c < 40; ++c)
      for (int64_t r = 2; r < 45; ++r) {
        auto want = slabs(c, off, r);
        ASSERT_EQ(ca::repeat_slab_count(c, off, r), ca::Index(want.size())) << c << " " << off << " " << r;
        for (size_t k = 0; k < want.size(); ++k) {
          ca::Index s = -1, n = -1;
          ca::repeat_slab(c, off, r, ca::Index(k), &s, &n);
          EXPECT_EQ(std::make_pair(s, n), want[k]) << c << " " << off << " " << r << " " << k;
        }
      }
}
