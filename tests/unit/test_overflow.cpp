// Sizes, offsets, block counts and indices past 64 bits (issue 13, items 2, 4 and 7): each case goes
// through the public C API and must fail with CA_EINVAL and a message naming the value, never wrap
// around into a small, wrong size (these run under UBSan in build-asan: a wraparound is a failure).
#include <gtest/gtest.h>

#include <chunkarray/chunkarray.h>
#include "../support/save_load.h"

#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "core/checked.hpp"
#include "builtins/builtins.hpp"
#include "format/format.hpp"
#include "core/block.hpp"
#include "graph/layer.hpp"
#include "kernel/kernel.hpp"

namespace {

constexpr int64_t k2_40 = int64_t(1) << 40;
constexpr int64_t k2_62 = int64_t(1) << 62;
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

std::string last_msg() { return ca_last_error_message(); }

#define EXPECT_EINVAL_MSG(call, needle)                                                          \
  do {                                                                                           \
    ca_status_t st_ = (call);                                                                    \
    EXPECT_EQ(st_, CA_EINVAL) << #call << ": " << ca_status_str(st_) << ": " << last_msg();      \
    EXPECT_NE(last_msg().find(needle), std::string::npos) << "message: " << last_msg();          \
  } while (0)

// One block per axis of the given extents.
struct OneBlock {
  std::vector<int64_t> nb, sizes;
  ca_chunks_t c{};
  explicit OneBlock(std::vector<int64_t> shape) : nb(shape.size(), 1), sizes(std::move(shape)) {
    c = {int32_t(sizes.size()), nb.data(), sizes.data()};
  }
};

ca_array_t *small_array(int64_t n = 10) {
  OneBlock ch({n});
  ca_array_t *a = nullptr;
  EXPECT_EQ(ca_array_ones(&a, 1, &n, &ch.c, CA_FLOAT64), CA_OK) << last_msg();
  return a;
}

// ---- the checked-math helper itself --------------------------------------------------------------

TEST(Overflow, CheckedHelpers) {
  EXPECT_EQ(ca::checked_add<int64_t>(kMax - 1, 1, "x"), kMax);
  EXPECT_EQ(ca::checked_mul<int64_t>(k2_62, 1, "x"), k2_62);
  EXPECT_EQ(ca::checked_sub<int64_t>(-kMax, 1, "x"), std::numeric_limits<int64_t>::min());
  try {
    ca::checked_add<int64_t>(kMax, 1, "pad width");
    ADD_FAILURE() << "no error";
  } catch (const ca::Error &e) {
    EXPECT_EQ(e.code(), CA_EINVAL);
    EXPECT_EQ(e.message(),
              "pad width: 9223372036854775807 + 1 is more than 2^63-1 (the result does not fit in 64 bits)");
  }
  EXPECT_THROW(ca::checked_sub<int64_t>(std::numeric_limits<int64_t>::min(), 1, "x"), ca::Error);
  EXPECT_THROW(ca::checked_mul<int64_t>(k2_62, -4, "x"), ca::Error);
  EXPECT_THROW(ca::checked_mul<size_t>(size_t(1) << 63, 2, "x"), ca::Error);
  EXPECT_THROW(ca::checked_sub<size_t>(0, 1, "x"), ca::Error);
  EXPECT_EQ(ca::shape_size({k2_40, k2_40, 0}), 0);  // a zero extent: empty, as NumPy counts
  EXPECT_EQ(ca::shape_size({}), 1);
  try {
    ca::shape_size({k2_40, k2_40});
    ADD_FAILURE() << "no error";
  } catch (const ca::Error &e) {
    EXPECT_EQ(e.message(), "shape (1099511627776, 1099511627776) has more than 2^63-1 elements");
  }
  try {
    ca::shape_nbytes({k2_62}, 8);
    ADD_FAILURE() << "no error";
  } catch (const ca::Error &e) {
    EXPECT_EQ(e.message(), "shape (4611686018427387904,) of 8-byte elements is more than 2^63-1 bytes");
  }
  EXPECT_EQ(ca::shape_nbytes({k2_62 / 8}, 8), k2_62 / 8 * 8);
  EXPECT_EQ(ca::parse_index("-9223372036854775808", "n"), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(ca::parse_index("9223372036854775807", "n"), kMax);
  EXPECT_THROW(ca::parse_index("9223372036854775808", "n"), ca::Error);
  EXPECT_THROW(ca::checked_index_from_double(1e300, "x"), ca::Error);
  EXPECT_THROW(ca::checked_index_from_double(-1, "x"), ca::Error);
  EXPECT_THROW(ca::checked_index_from_double(std::numeric_limits<double>::quiet_NaN(), "x"), ca::Error);
  EXPECT_THROW(ca::checked_index_from_double(9223372036854775808.0, "x"), ca::Error);
  EXPECT_EQ(ca::checked_index_from_double(9223372036854774784.0, "x"), 9223372036854774784);
  // A symbolic layer may have as many tasks as a graph file may declare.
  EXPECT_EQ(ca::kMaxLayerTasks, ca::format::kMaxTasks);
}

// ---- creation ------------------------------------------------------------------------------------

TEST(Overflow, OnesWithMoreThanInt64Elements) {
  int64_t shape[2] = {k2_40, k2_40};
  OneBlock ch({k2_40, k2_40});
  ca_array_t *a = nullptr;
  EXPECT_EINVAL_MSG(ca_array_ones(&a, 2, shape, &ch.c, CA_FLOAT64),
                    "shape (1099511627776, 1099511627776) has more than 2^63-1 elements");
  EXPECT_EQ(a, nullptr);
}

TEST(Overflow, ZerosWithMoreThanInt64Bytes) {
  int64_t shape[1] = {k2_62};
  OneBlock ch({k2_62});
  ca_array_t *a = nullptr;
  EXPECT_EINVAL_MSG(ca_array_zeros(&a, 1, shape, &ch.c, CA_FLOAT64),
                    "shape (4611686018427387904,) of 8-byte elements is more than 2^63-1 bytes");
  EXPECT_EQ(a, nullptr);
  // The same shape in 1-byte elements fits: nbytes is exact.
  ASSERT_EQ(ca_array_zeros(&a, 1, shape, &ch.c, CA_INT8), CA_OK) << last_msg();
  EXPECT_EQ(ca_array_nbytes(a), k2_62);
  EXPECT_EQ(ca_array_size(a), k2_62);
  ca_array_free(a);
}

TEST(Overflow, ChunksSummingPast64Bits) {
  // Four blocks of 2^62 along one axis: the sum wraps to 0 in 64 bits.
  int64_t shape[1] = {0};
  std::vector<int64_t> nb = {4}, sizes = {k2_62, k2_62, k2_62, k2_62};
  ca_chunks_t c{1, nb.data(), sizes.data()};
  ca_array_t *a = nullptr;
  EXPECT_EINVAL_MSG(ca_array_zeros(&a, 1, shape, &c, CA_INT8), "chunks along axis 0 sum to more than 2^63-1");
  EXPECT_EQ(a, nullptr);
  // normalize_chunks with explicit sizes, too.
  ca_dimchunks_t spec{CA_CHUNKS_EXPLICIT, sizes.data(), 4};
  ca_chunkset_t *cs = nullptr;
  EXPECT_EINVAL_MSG(ca_normalize_chunks(&cs, nullptr, &spec, 1, shape, CA_INT8, 0),
                    "chunks along axis 0 sum to more than 2^63-1");
  EXPECT_EQ(cs, nullptr);
}

// ---- normalize_chunks ----------------------------------------------------------------------------

TEST(Overflow, NormalizeChunksStrNumberPast64Bits) {
  int64_t shape[1] = {100};
  ca_chunkset_t *cs = nullptr;
  EXPECT_EINVAL_MSG(ca_normalize_chunks_spec(&cs, nullptr, "99999999999999999999", 1, shape, CA_FLOAT64),
                    "'99999999999999999999' does not fit in 64 bits");
  EXPECT_EQ(cs, nullptr);
  EXPECT_EINVAL_MSG(ca_normalize_chunks_spec(&cs, nullptr, "(50, 99999999999999999999)", 1, shape, CA_FLOAT64),
                    "'99999999999999999999' does not fit in 64 bits");
  EXPECT_EINVAL_MSG(ca_normalize_chunks_spec(&cs, nullptr, "1e300 MiB", 1, shape, CA_FLOAT64), "2^63-1");
  // In range: still works.
  ASSERT_EQ(ca_normalize_chunks_spec(&cs, nullptr, "30", 1, shape, CA_FLOAT64), CA_OK) << last_msg();
  int64_t n = 0;
  const int64_t *s = ca_chunkset_sizes(cs, 0, &n);
  ASSERT_EQ(n, 4);
  EXPECT_EQ(s[3], 10);
  ca_chunkset_free(cs);
}

TEST(Overflow, NormalizeChunksBlockCountIsCapped) {
  // (2^31, 2^31) in blocks of 1: 2^31 blocks per axis, a 16 GiB chunk table, refused before it is built.
  int64_t shape[2] = {int64_t(1) << 31, int64_t(1) << 31};
  ca_dimchunks_t spec[2] = {{1, nullptr, 0}, {1, nullptr, 0}};
  ca_chunkset_t *cs = nullptr;
  EXPECT_EINVAL_MSG(ca_normalize_chunks(&cs, nullptr, spec, 2, shape, CA_INT8, 0),
                    "make 2147483648 blocks, more than the 67108864 blocks per axis allowed");
  EXPECT_EQ(cs, nullptr);
  EXPECT_EINVAL_MSG(ca_normalize_chunks_spec(&cs, nullptr, "1", 2, shape, CA_INT8), "2147483648 blocks");
  // Blocks at an extent near 2^63-1: no overflow of the block starts.
  int64_t big[1] = {kMax};
  ca_dimchunks_t half{k2_62 + 1, nullptr, 0};
  ASSERT_EQ(ca_normalize_chunks(&cs, nullptr, &half, 1, big, CA_INT8, 0), CA_OK) << last_msg();
  int64_t n = 0;
  const int64_t *s = ca_chunkset_sizes(cs, 0, &n);
  ASSERT_EQ(n, 2);
  EXPECT_EQ(s[0], k2_62 + 1);
  EXPECT_EQ(s[1], kMax - (k2_62 + 1));
  ca_chunkset_free(cs);
  // "auto" over an enormous extent: CA_EINVAL naming the shape, not a loop or a wrapped count.
  int64_t huge[2] = {k2_40, k2_40};
  EXPECT_EINVAL_MSG(ca_normalize_chunks(&cs, nullptr, nullptr, 2, huge, CA_FLOAT64, 0),
                    "shape (1099511627776, 1099511627776) has more than 2^63-1 elements");
}

// ---- shape operations ----------------------------------------------------------------------------

TEST(Overflow, PadPast64Bits) {
  ca_array_t *a = small_array(10), *r = nullptr;
  ca_scalar_t zero{};
  zero.kind = CA_FLOAT64;
  int64_t before[1] = {k2_62}, after[1] = {k2_62};
  EXPECT_EINVAL_MSG(ca_array_pad(&r, a, before, after, CA_PAD_CONSTANT, zero),
                    "pad: the padded extent of axis 0: 4611686018427387914 + 4611686018427387904 is more than 2^63-1");
  EXPECT_EQ(r, nullptr);
  int64_t after0[1] = {0};
  EXPECT_EINVAL_MSG(ca_array_pad(&r, a, before, after0, CA_PAD_CONSTANT, zero),
                    "shape (4611686018427387914,) of 8-byte elements is more than 2^63-1 bytes");
  ca_array_free(a);
}

TEST(Overflow, TileRepeatReshapePast64Bits) {
  ca_array_t *a = small_array(10), *r = nullptr;
  int64_t reps[1] = {k2_62};
  EXPECT_EINVAL_MSG(ca_array_tile(&r, a, reps, 1), "tile: the tiled extent of axis 0: 10 * 4611686018427387904");
  int64_t reps2[1] = {int64_t(1) << 30};  // fits in int64, but 2^30 blocks
  EXPECT_EINVAL_MSG(ca_array_tile(&r, a, reps2, 1), "blocks per axis allowed");
  EXPECT_EINVAL_MSG(ca_array_repeat(&r, a, k2_62, 0), "repeat: the repeated extent: 10 * 4611686018427387904");
  int64_t shape[3] = {k2_40, k2_40, -1};
  EXPECT_EINVAL_MSG(ca_array_reshape(&r, a, 3, shape), "shape (1099511627776, 1099511627776, 1) has more than");
  EXPECT_EQ(r, nullptr);
  // repeat with more repeats than elements per block: unit slabs, as dask's linspace gives.
  ASSERT_EQ(ca_array_repeat(&r, a, 1000, 0), CA_OK) << last_msg();
  EXPECT_EQ(ca_array_size(r), 10000);
  ca_array_free(r);
  ca_array_free(a);
}

// ---- graphs --------------------------------------------------------------------------------------

TEST(Overflow, GraphBlockwiseNumblocksPast64Bits) {
  ca_graph_t *g = nullptr;
  ASSERT_EQ(ca_graph_new(&g), CA_OK);
  int64_t nb[2] = {k2_62, 4};
  ca_blockwise_options_t o = CA_BLOCKWISE_OPTIONS_INIT;
  o.numblocks = nb;
  EXPECT_EINVAL_MSG(ca_graph_add_blockwise(g, "big", "ij", "ca.identity", nullptr, 0, &o),
                    "numblocks (4611686018427387904, 4) make more than 2^63-1 blocks");
  // Past what a graph file can hold (2^62 tasks) but within int64: refused at add time too, so
  // nothing is saved that the loader then refuses.
  int64_t nb2[2] = {int64_t(1) << 61, 3};
  o.numblocks = nb2;
  EXPECT_EINVAL_MSG(ca_graph_add_blockwise(g, "big2", "ij", "ca.identity", nullptr, 0, &o),
                    "numblocks (2305843009213693952, 3) make 6917529027641081856 blocks, more than 2^62");
  int64_t nb3[2] = {k2_62, 1};
  o.numblocks = nb3;
  EXPECT_EQ(ca_graph_add_blockwise(g, "ok", "ij", "ca.identity", nullptr, 0, &o), CA_OK) << last_msg();
  ca_graph_free(g);
}

TEST(Overflow, MaterializedKeyIndexInt64Max) {
  ca_graph_t *g = nullptr;
  ASSERT_EQ(ca_graph_new(&g), CA_OK);
  int64_t idx[2] = {0, kMax};
  ca_key_t key{"x", idx, 2};
  ca_arg_t arg = ca_arg_i64(1);
  EXPECT_EINVAL_MSG(ca_graph_add_task(g, &key, "ca.identity", &arg, 1),
                    "has index 9223372036854775807 along dimension 1: block indices are below 2^62");
  int64_t ok[2] = {0, k2_62 - 1};
  key.index = ok;
  EXPECT_EQ(ca_graph_add_task(g, &key, "ca.identity", &arg, 1), CA_OK) << last_msg();
  ca_graph_free(g);
}

TEST(Overflow, GraphFileKeyIndexInt64Max) {
  // A saved graph whose one key index is patched to INT64_MAX (what libFuzzer found): the loader
  // refuses it with CA_EFORMAT instead of overflowing numblocks (max index + 1).
  if (!graph_files_supported()) GTEST_SKIP() << "built without Cap'n Proto (-Dcapnp=disabled): no graph files";
  const int64_t marker = 0x1122334455667788;  // below 2^62, found once in the file
  ca_graph_t *g = nullptr;
  ASSERT_EQ(ca_graph_new(&g), CA_OK);
  int64_t idx[1] = {marker};
  ca_key_t key{"x", idx, 1};
  ca_arg_t arg = ca_arg_i64(7);
  ASSERT_EQ(ca_graph_add_task(g, &key, "ca.identity", &arg, 1), CA_OK) << last_msg();
  const std::string path = ::testing::TempDir() + "overflow_key_index.cag";
  ASSERT_EQ(save_to(nullptr, nullptr, path.c_str(), g, nullptr, 0, nullptr), CA_OK) << last_msg();
  ca_graph_free(g);
  std::string bytes;
  {
    FILE *f = std::fopen(path.c_str(), "rb");
    ASSERT_NE(f, nullptr);
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) bytes.append(buf, n);
    std::fclose(f);
  }
  const std::string needle(reinterpret_cast<const char *>(&marker), sizeof marker);
  const size_t at = bytes.find(needle);
  ASSERT_NE(at, std::string::npos);
  ASSERT_EQ(bytes.find(needle, at + 1), std::string::npos);
  const int64_t patched = kMax;
  bytes.replace(at, sizeof patched, reinterpret_cast<const char *>(&patched), sizeof patched);
  {
    FILE *f = std::fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), f), bytes.size());
    std::fclose(f);
  }
  ca_graph_t *loaded = nullptr;
  ca_status_t st = load_from(&loaded, nullptr, nullptr, path.c_str(), nullptr, 0);
  EXPECT_EQ(st, CA_EFORMAT) << last_msg();
  EXPECT_NE(last_msg().find("key index 9223372036854775807 along dimension 0 is not below 2^62"), std::string::npos)
      << last_msg();
  EXPECT_EQ(loaded, nullptr);
  std::remove(path.c_str());
}

TEST(Overflow, ReduceAggChecksPartialsBeforeAllocating) {
  // A mutated graph file's ca.reduce_agg task: an output block shape of 2^40 elements over a partial
  // of 16 bytes. The partials are checked first: CA_EINVAL, no 2^40-element accumulator.
  ca::KernelRegistry reg;
  ca::register_builtin_kernels(reg);
  ca::KernelPtr k = reg.find("ca.reduce_agg");
  ASSERT_TRUE(k);
  const int64_t pshape[2] = {1, 16};
  ca::BlockRef part(ca::block_new(CA_RAW, 2, pshape, true));
  ca_arg_t items[1];
  items[0] = ca_arg_none();
  items[0].kind = CA_ARG_BLOCK;
  items[0].u.block = part.get();
  const int64_t spec[6] = {CA_RED_SUM, CA_FLOAT64, CA_FLOAT64, 1, -1, 0};
  for (int64_t extent : {k2_40, kMax}) {
    const int64_t oshape[1] = {extent};
    ca_arg_t args[3] = {ca_arg_list(items, 1), ca_arg_tuple(spec, 6), ca_arg_tuple(oshape, 1)};
    ca_kernel_ctx_t kctx;
    ca_block_t *out = nullptr;
    EXPECT_EQ(k->fn(&out, args, 3, &kctx, k->user_data), CA_EINVAL) << extent;
    EXPECT_EQ(out, nullptr);
    EXPECT_FALSE(kctx.error.empty());
  }
  ca_arg_t none[3] = {ca_arg_list(nullptr, 0), ca_arg_tuple(spec, 6), ca_arg_tuple(&k2_40, 1)};
  ca_kernel_ctx_t kctx;
  ca_block_t *out = nullptr;
  EXPECT_EQ(k->fn(&out, none, 3, &kctx, k->user_data), CA_EINVAL);
  EXPECT_NE(kctx.error.find("no partials"), std::string::npos) << kctx.error;
}

// ---- context configuration -----------------------------------------------------------------------

TEST(Overflow, ConfigByteSizesOutOfRange) {
  ca_context_t *ctx = nullptr;
  ASSERT_EQ(ca_context_new(&ctx, nullptr), CA_OK);
  const char *before = nullptr;
  ASSERT_EQ(ca_context_get_config(&before, ctx, "memory-limit"), CA_OK);
  const std::string limit0 = before;
  EXPECT_EINVAL_MSG(ca_context_set_config(ctx, "memory-limit", "1e300"), "'1e300' is 1e+300 bytes, more than 2^63-1");
  EXPECT_EINVAL_MSG(ca_context_set_config(ctx, "memory-limit", "9223372036854775808"), "more than 2^63-1");
  EXPECT_EINVAL_MSG(ca_context_set_config(ctx, "memory-limit", "1e7 TiB"), "more than 2^63-1");
  EXPECT_EINVAL_MSG(ca_context_set_config(ctx, "array.chunk-size", "inf"), "is not a byte size");
  EXPECT_EINVAL_MSG(ca_context_set_config(ctx, "memory-limit", "nan"), "is not a byte size");
  EXPECT_EINVAL_MSG(ca_context_set_config(ctx, "memory-limit", "-5"), "is not a byte size");
  const char *after = nullptr;
  ASSERT_EQ(ca_context_get_config(&after, ctx, "memory-limit"), CA_OK);
  EXPECT_EQ(limit0, after);  // unchanged by the refused values
  ASSERT_EQ(ca_context_set_config(ctx, "memory-limit", "2GiB"), CA_OK);
  ASSERT_EQ(ca_context_get_config(&after, ctx, "memory-limit"), CA_OK);
  EXPECT_STREQ(after, "2147483648");
  ca_context_free(ctx);
}

// ---- smaller checks (issue 13, item 7) -----------------------------------------------------------

ca_status_t wrong_rank_kernel(ca_block_t **out, const ca_arg_t *, size_t, ca_kernel_ctx_t *, void *) {
  // A 3-d block for a 1-d array: its shape[1], shape[2] must not be read as the array's.
  int64_t shape[3] = {10, 1, 1};
  return ca_block_new_zeroed(out, CA_FLOAT64, 3, shape);
}

ca_status_t wrong_rank_0d_kernel(ca_block_t **out, const ca_arg_t *, size_t, ca_kernel_ctx_t *, void *) {
  return ca_block_new_zeroed(out, CA_FLOAT64, 0, nullptr);  // 0-d: shape[0] does not exist
}

TEST(Overflow, KernelBlockOfWrongRankIsRejected) {
  ca_context_t *ctx = nullptr;
  ASSERT_EQ(ca_context_new(&ctx, nullptr), CA_OK);
  ASSERT_EQ(ca_context_register(ctx, "test.wrong_rank", wrong_rank_kernel, nullptr), CA_OK) << last_msg();
  ASSERT_EQ(ca_context_register(ctx, "test.wrong_rank0", wrong_rank_0d_kernel, nullptr), CA_OK) << last_msg();
  ca_array_t *a = small_array(10);
  for (const char *k : {"test.wrong_rank", "test.wrong_rank0"}) {
    ca_array_t *m = nullptr;
    ASSERT_EQ(ca_array_map_blocks(&m, k, &a, 1, nullptr, 0, nullptr), CA_OK) << last_msg();
    std::vector<double> buf(10);
    ca_status_t st = ca_array_compute_into(ctx, m, buf.data(), sizeof(double) * buf.size(), nullptr);
    EXPECT_EQ(st, CA_EKERNEL) << last_msg();
    EXPECT_NE(last_msg().find("dimensions, the array has 1"), std::string::npos) << last_msg();
    ca_array_free(m);
  }
  ca_array_free(a);
  ca_context_free(ctx);
}

TEST(Overflow, BlockwiseRepeatedOutputIndex) {
  ca_array_t *a = small_array(10), *r = nullptr;
  ca_array_arg_t arg{};
  arg.array = a;
  arg.index = "i";
  EXPECT_EINVAL_MSG(ca_array_blockwise(&r, "ca.identity", "ii", &arg, 1, CA_FLOAT64, nullptr),
                    "repeated elements not allowed in output index 'ii'");
  EXPECT_EQ(r, nullptr);
  ca_array_free(a);
}

TEST(Overflow, VindexChecksNidxBeforeReadingIndices) {
  ca_array_t *a = small_array(10), *r = nullptr;
  int64_t i0[2] = {1, 2};
  // Only one index array exists: nidx 3 must be refused before indices[1], indices[2] are read.
  const int64_t *indices[1] = {i0};
  EXPECT_EINVAL_MSG(ca_array_vindex(&r, a, indices, 3, 2), "too many indices for array: 3 index arrays");
  EXPECT_EQ(r, nullptr);
  ASSERT_EQ(ca_array_vindex(&r, a, indices, 1, 2), CA_OK) << last_msg();
  EXPECT_EQ(ca_array_size(r), 2);
  ca_array_free(r);
  ca_array_free(a);
}

}  // namespace

// The one shape formatter (core/checked.hpp): Python's repr of a shape tuple, dask's nan for an
// unknown extent when asked; every message and the .npy header use it.
TEST(ShapeStr, NumpyReprOfZeroOneAndNDimensionalShapes) {
  EXPECT_EQ(ca::shape_str(std::vector<ca::Index>{}), "()");
  EXPECT_EQ(ca::shape_str(std::vector<ca::Index>{5}), "(5,)");
  EXPECT_EQ(ca::shape_str(std::vector<ca::Index>{0}), "(0,)");
  EXPECT_EQ(ca::shape_str(std::vector<ca::Index>{4, 6}), "(4, 6)");
  EXPECT_EQ(ca::shape_str(std::vector<ca::Index>{2, 1, 3}), "(2, 1, 3)");
  EXPECT_EQ(ca::shape_str(std::vector<ca::Index>{-1, 3}, true), "(nan, 3)");
  EXPECT_EQ(ca::shape_str(std::vector<ca::Index>{-1}, true), "(nan,)");
  EXPECT_EQ(ca::shape_str(std::vector<ca::Index>{5, -1}), "(5, -1)");  // reshape's "infer this axis"
  const ca::Index big[2] = {std::numeric_limits<int64_t>::max(), 7};
  EXPECT_EQ(ca::shape_str(big, 2), "(9223372036854775807, 7)");
  EXPECT_EQ(ca::shape_str(big, 0), "()");
}
