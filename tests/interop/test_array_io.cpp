// The array layer over storage (io/array_io.hpp, chunkarray/io.h) against Debian's python3-zarr and numpy:
// from_zarr of stores zarr-python wrote (ragged edges, missing chunks, F order, big-endian, blosc),
// to_zarr read back by zarr-python (aligned, multi-chunk and misaligned blocks), groups, .npy both ways,
// error cases, and the C API.
#include <gtest/gtest.h>

#include <chunkarray/io.h>

#include <cstring>
#include <numeric>
#include <vector>

#include "array/array.hpp"
#include "array/create.hpp"
#include "builtins/builtins.hpp"
#include "core/error.hpp"
#include "exec/executor.hpp"
#include "graph/graph.hpp"
#include "interop_util.hpp"
#include "io/array_io.hpp"
#include "io/npy.hpp"
#include "io/zarr_meta.hpp"
#include "kernel/kernel.hpp"

namespace {

using ca::Index;
using ca::test::TempDir;
namespace io = ca::io;

using ca::test::compute;
using ca::test::env;

// The bytes numpy saved in `path` (native order, C order), through the independent whole-file reader.
std::vector<unsigned char> npy_bytes(const std::string &path) {
  ca::BlockRef b = io::read_npy(path);
  auto *p = static_cast<const unsigned char *>(b->data);
  return std::vector<unsigned char>(p, p + b->nbytes);
}

#define SKIP_WITHOUT_ZARR() \
  if (!ca::test::python_has_zarr()) GTEST_SKIP() << "python3 zarr/numpy missing"

void python_ok(const TempDir &d, const std::string &script) {
  std::string log;
  int rc = ca::test::run_python(d, script, d.path(), &log);
  ASSERT_EQ(rc, 0) << log;
}

int error_code(const std::function<void()> &f) {
  try {
    f();
  } catch (const ca::Error &e) {
    return e.code();
  }
  return 0;
}

// ---- from_zarr --------------------------------------------------------------------------------------

TEST(FromZarr, StoresZarrPythonWrote) {
  SKIP_WITHOUT_ZARR();
  TempDir d;
  python_ok(d, R"PY(
import sys, numpy as np, zarr
from numcodecs import Blosc, Zlib
r = sys.argv[1]
a = np.arange(70, dtype='<f8').reshape(10, 7) * 1.5 - 3
z = zarr.open(r + '/a', mode='w', shape=a.shape, chunks=(4, 3), dtype='<f8', compressor=Zlib(1)); z[:] = a
np.save(r + '/a.npy', a)
b = (np.arange(45, dtype='>i4').reshape(9, 5) * 7919 - 100000).astype('>i4')
z = zarr.open(r + '/b', mode='w', shape=b.shape, chunks=(4, 2), dtype='>i4', order='F',
              compressor=Blosc('lz4', 5, Blosc.SHUFFLE)); z[:] = b
np.save(r + '/b.npy', b.astype('<i4'))
c = np.full((6, 6), -1, dtype='<i2'); c[0:4, 0:4] = np.arange(16).reshape(4, 4)
z = zarr.open(r + '/c', mode='w', shape=(6, 6), chunks=(4, 4), dtype='<i2', fill_value=-1)
z[0:4, 0:4] = c[0:4, 0:4]
np.save(r + '/c.npy', c)
e = np.float32(2.5)
z = zarr.open(r + '/e', mode='w', shape=(), dtype='<f4'); z[...] = e
np.save(r + '/e.npy', np.array(e))
)PY");
  // a: ragged edges along both axes.
  auto a = io::from_zarr(d / "a");
  EXPECT_EQ(a->dtype, CA_FLOAT64);
  EXPECT_EQ(a->chunks, (ca::Chunks{{4, 4, 2}, {3, 3, 1}}));
  EXPECT_EQ(compute(a), npy_bytes(d / "a.npy"));
  // One symbolic layer, not one entry per chunk.
  EXPECT_EQ(a->graph->layers().size(), 1u);
  // b: big-endian, F order, blosc.
  auto b = io::from_zarr(d / "b");
  EXPECT_EQ(b->dtype, CA_INT32);
  EXPECT_EQ(compute(b), npy_bytes(d / "b.npy"));
  // c: missing chunks read as fill_value.
  EXPECT_EQ(compute(io::from_zarr(d / "c")), npy_bytes(d / "c.npy"));
  // e: 0-d.
  auto e = io::from_zarr(d / "e");
  EXPECT_EQ(e->ndim(), 0);
  EXPECT_EQ(compute(e), npy_bytes(d / "e.npy"));
  // Other chunks: each block reads its box.
  ca::Chunks other{{5, 5}, {7}};
  auto a2 = io::from_zarr(d / "a", other);
  EXPECT_EQ(a2->chunks, other);
  EXPECT_EQ(compute(a2), npy_bytes(d / "a.npy"));
  EXPECT_EQ(compute(io::from_zarr(d / "b", ca::Chunks{{1, 8}, {5}})), npy_bytes(d / "b.npy"));
  // Deterministic names.
  EXPECT_EQ(io::from_zarr(d / "a")->name, a->name);
  EXPECT_NE(a2->name, a->name);
}

TEST(FromZarr, Errors) {
  TempDir d;
  EXPECT_EQ(error_code([&] { io::from_zarr(d / "nope"); }), CA_ENOTFOUND);
  ca::test::write_text(d / ".zarray", "{not json");
  EXPECT_EQ(error_code([&] { io::from_zarr(d.path()); }), CA_EFORMAT);
  // A corrupt chunk fails the compute, naming the file.
  TempDir s;
  io::ZarrMeta m = io::make_zarr_meta(CA_FLOAT64, {4}, {2});
  m.compressor = io::Compressor::zlib(1);
  io::write_zarr_meta(s.path(), m);
  ca::test::write_text(s / "1", "garbage");
  auto a = io::from_zarr(s.path());
  try {
    compute(a);
    FAIL() << "no error";
  } catch (const ca::Error &e) {
    EXPECT_EQ(e.code(), CA_EKERNEL);
    EXPECT_NE(e.message().find("1"), std::string::npos) << e.message();
  }
  // Chunks that do not match the store's shape.
  EXPECT_EQ(error_code([&] { io::from_zarr(s.path(), ca::Chunks{{3}}); }), CA_EINVAL);
}

// ---- to_zarr ----------------------------------------------------------------------------------------

ca::ArrayPtr iota2d(Index rows, Index cols, ca::Chunks chunks) {
  std::vector<int64_t> v(size_t(rows * cols));
  std::iota(v.begin(), v.end(), int64_t(-5));
  return ca::from_buffer(v.data(), CA_INT64, {rows, cols}, nullptr, chunks, false, nullptr, nullptr);
}

TEST(ToZarr, ZarrPythonReadsIt) {
  SKIP_WITHOUT_ZARR();
  TempDir d;
  // 1-d ragged, store chunks = the first block size (7).
  auto r = ca::arange(0, 50, 1, {ca::blocks_of(50, 7)}, CA_FLOAT64);
  auto m = io::to_zarr(env().ex, env().reg, r, d / "r");
  EXPECT_EQ(m.chunks, (std::vector<Index>{7}));
  // Blocks spanning several store chunks (aligned: written without rechunking), zstd, attrs.
  io::ZarrWriteOptions o;
  o.chunks = {4, 5};
  o.compressor = io::Compressor::zstd(3);
  o.attrs_json = R"({"units": "m", "n": 3})";
  io::to_zarr(env().ex, env().reg, iota2d(18, 10, {{8, 8, 2}, {10}}), d / "aligned", o);
  // Blocks not on chunk boundaries: rechunked first. Blosc, F order, '/' separator, fill value.
  io::ZarrWriteOptions o2;
  o2.chunks = {4, 4};
  o2.compressor = io::Compressor::blosc("zstd", 3, 2);
  o2.order = 'F';
  o2.dimension_separator = '/';
  o2.fill_value = int64_t(-7);
  io::to_zarr(env().ex, env().reg, iota2d(18, 10, {{3, 3, 5, 7}, {6, 4}}), d / "misaligned", o2);
  // ones (float32), 0-d, and empty.
  io::to_zarr(env().ex, env().reg, ca::ones({5, 3}, {{2, 3}, {3}}, CA_FLOAT32), d / "ones");
  io::to_zarr(env().ex, env().reg, ca::full({}, {}, CA_INT16, 9.0), d / "scalar");
  io::to_zarr(env().ex, env().reg, ca::zeros({0, 3}, {{0}, {3}}, CA_FLOAT64), d / "empty");
  python_ok(d, R"PY(
import sys, json, numpy as np, zarr
r = sys.argv[1]
z = zarr.open(r + '/r', mode='r'); assert z.chunks == (7,), z.chunks
assert np.array_equal(z[:], np.arange(50, dtype='f8'))
ref = np.arange(180, dtype='i8').reshape(18, 10) - 5
z = zarr.open(r + '/aligned', mode='r')
assert z.chunks == (4, 5) and z.compressor.codec_id == 'zstd', (z.chunks, z.compressor)
assert np.array_equal(z[:], ref)
assert dict(z.attrs) == {"units": "m", "n": 3}, dict(z.attrs)
z = zarr.open(r + '/misaligned', mode='r')
assert z.chunks == (4, 4) and z.order == 'F' and z.fill_value == -7, (z.chunks, z.order, z.fill_value)
assert np.array_equal(z[:], ref)
z = zarr.open(r + '/ones', mode='r'); assert z.dtype == np.float32 and z.chunks == (2, 3)
assert np.array_equal(z[:], np.ones((5, 3), 'f4'))
z = zarr.open(r + '/scalar', mode='r'); assert z.shape == () and z[...] == 9 and z.dtype == np.int16
z = zarr.open(r + '/empty', mode='r'); assert z.shape == (0, 3)
)PY");
  // Round trip through from_zarr.
  EXPECT_EQ(compute(io::from_zarr(d / "misaligned")), compute(iota2d(18, 10, {{18}, {10}})));
}

TEST(ToZarr, ExistingStoreAndGroups) {
  SKIP_WITHOUT_ZARR();
  TempDir d;
  auto a = iota2d(6, 4, {{3, 3}, {4}});
  io::to_zarr(env().ex, env().reg, a, d / "x");
  EXPECT_EQ(error_code([&] { io::to_zarr(env().ex, env().reg, a, d / "x"); }), CA_EEXISTS);
  io::ZarrWriteOptions ow;
  ow.overwrite = true;
  ow.chunks = {2, 2};
  io::to_zarr(env().ex, env().reg, ca::ones({6, 4}, {{6}, {4}}, CA_INT64), d / "x", ow);
  EXPECT_EQ(io::read_zarr_meta(d / "x").chunks, (std::vector<Index>{2, 2}));
  // Bad options fail before anything is computed or written.
  io::ZarrWriteOptions bad;
  bad.chunks = {0, 2};
  EXPECT_EQ(error_code([&] { io::to_zarr(env().ex, env().reg, a, d / "y", bad); }), CA_EINVAL);
  EXPECT_FALSE(io::is_zarr_array(d / "y"));

  io::create_group(d / "g", R"({"title": "two arrays"})");
  io::to_zarr(env().ex, env().reg, a, d / "g/first");
  io::to_zarr(env().ex, env().reg, ca::arange(0, 10, 2, {{3, 2}}, CA_INT32), d / "g/second");
  EXPECT_EQ(io::list_group(d / "g"), (std::vector<io::ZarrMember>{{"first", false}, {"second", false}}));
  python_ok(d, R"PY(
import sys, numpy as np, zarr
r = sys.argv[1]
z = zarr.open(r + '/x', mode='r'); assert np.array_equal(z[:], np.ones((6, 4), 'i8'))
g = zarr.open_group(r + '/g', mode='r')
assert g.attrs['title'] == 'two arrays'
assert sorted(g.array_keys()) == ['first', 'second'], list(g.array_keys())
assert np.array_equal(g['first'][:], np.arange(24).reshape(6, 4) - 5)
assert np.array_equal(g['second'][:], np.arange(0, 10, 2, dtype='i4'))
)PY");
}

// ---- npy --------------------------------------------------------------------------------------------

TEST(Npy, RoundTrips) {
  SKIP_WITHOUT_ZARR();
  TempDir d;
  python_ok(d, R"PY(
import sys, numpy as np
r = sys.argv[1]
a = (np.arange(3 * 50 * 7, dtype='<f4').reshape(3, 50, 7) / 3).astype('<f4'); np.save(r + '/a.npy', a)
b = np.arange(-20, 20, dtype='>i8').reshape(8, 5); np.save(r + '/b.npy', b)
np.save(r + '/b_native.npy', b.astype('<i8'))
c = np.asfortranarray(np.arange(12, dtype='<u2').reshape(3, 4)); np.save(r + '/c.npy', c)
np.save(r + '/c_c.npy', np.ascontiguousarray(c))
np.save(r + '/rows.npy', np.arange(128, dtype='<f8').reshape(16, 8))
)PY");
  // Zero-copy: a block of whole 64-byte rows points into the shared mapping (two reads, one address).
  {
    auto k = env().reg.get("ca.npy_read");
    std::string p = d / "rows.npy";
    int64_t fshape[2] = {16, 8}, origin[2] = {4, 0}, bshape[2] = {4, 8};
    ca_arg_t args[5] = {ca_arg_str(p.c_str()), ca_arg_i64(CA_FLOAT64), ca_arg_tuple(fshape, 2),
                        ca_arg_tuple(origin, 2), ca_arg_tuple(bshape, 2)};
    ca_kernel_ctx_t kctx;
    ca::BlockRef b1(ca::kernel_invoke(k.get(), args, 5, &kctx)), b2(ca::kernel_invoke(k.get(), args, 5, &kctx));
    EXPECT_EQ(b1->data, b2->data);
    EXPECT_EQ(static_cast<const double *>(b1->data)[0], 32.0);
  }
  auto a = io::from_npy(d / "a.npy", ca::Chunks{{1, 2}, {20, 20, 10}, {7}});
  EXPECT_EQ(a->dtype, CA_FLOAT32);
  EXPECT_EQ(compute(a), npy_bytes(d / "a.npy"));
  auto a_auto = io::from_npy(d / "a.npy");
  EXPECT_EQ(a_auto->shape, (std::vector<Index>{3, 50, 7}));
  EXPECT_EQ(compute(a_auto), npy_bytes(d / "a.npy"));
  EXPECT_EQ(compute(io::from_npy(d / "b.npy", ca::Chunks{{3, 5}, {2, 3}})), npy_bytes(d / "b_native.npy"));
  EXPECT_EQ(compute(io::from_npy(d / "c.npy", ca::Chunks{{2, 1}, {4}})), npy_bytes(d / "c_c.npy"));

  // Lazy: from_npy reads only the header; a changed file fails the compute instead of reading garbage.
  auto lazy = io::from_npy(d / "b_native.npy", ca::Chunks{{8}, {5}});
  int64_t three = 3;
  ca::BlockRef small(ca::block_new(CA_INT64, 1, &three, true));
  io::write_npy(d / "b_native.npy", *small.get());
  EXPECT_EQ(error_code([&] { compute(lazy); }), CA_EKERNEL);

  // to_npy: arange with ragged blocks, a 2-d expression, and a from_npy array copied.
  ca::io::to_npy(env().ex, env().reg, ca::arange(0, 1000, 1, {ca::blocks_of(1000, 77)}, CA_INT64), d / "r.npy");
  ca::io::to_npy(env().ex, env().reg, iota2d(18, 10, {{3, 3, 5, 7}, {6, 4}}), d / "m.npy");
  ca::io::to_npy(env().ex, env().reg, a, d / "a_copy.npy");
  python_ok(d, R"PY(
import sys, numpy as np
r = sys.argv[1]
assert np.array_equal(np.load(r + '/r.npy'), np.arange(1000, dtype='i8'))
assert np.array_equal(np.load(r + '/m.npy'), np.arange(180, dtype='i8').reshape(18, 10) - 5)
x = np.load(r + '/a_copy.npy'); assert x.dtype == np.float32
assert np.array_equal(x, np.load(r + '/a.npy'))
)PY");
  EXPECT_EQ(error_code([&] { io::from_npy(d / "missing.npy"); }), CA_ENOTFOUND);
  ca::test::write_text(d / "bad.npy", "not an npy file at all, sorry");
  EXPECT_EQ(error_code([&] { io::from_npy(d / "bad.npy"); }), CA_EFORMAT);
}

// ---- C API ------------------------------------------------------------------------------------------

TEST(CApiIo, RoundTrip) {
  TempDir d;
  ca_context_t *ctx = nullptr;
  ASSERT_EQ(ca_context_new(&ctx, nullptr), CA_OK);
  ca_array_t *a = reinterpret_cast<ca_array_t *>(1);
  EXPECT_EQ(ca_array_from_zarr(&a, (d / "missing").c_str(), nullptr), CA_ENOTFOUND);
  EXPECT_EQ(a, nullptr);
  EXPECT_NE(std::string(ca_last_error_message()).find("missing"), std::string::npos) << ca_last_error_message();

  int64_t shape[2] = {7, 5}, nb[2] = {2, 1}, sizes[3] = {4, 3, 5};
  ca_chunks_t ch{2, nb, sizes};
  ca_array_t *x = nullptr;
  ASSERT_EQ(ca_array_full(&x, 2, shape, &ch, CA_FLOAT64, 2.5, 0.0), CA_OK) << ca_last_error_message();

  ca_zarr_options_t o = CA_ZARR_OPTIONS_INIT;
  int64_t store_chunks[2] = {3, 5};  // misaligned with (4, 3): rechunked
  o.chunks = store_chunks;
  o.compressor = "blosc";
  o.has_fill_value = 1;
  o.fill_value = -1;
  o.attrs_json = "{\"k\": 1}";
  ASSERT_EQ(ca_zarr_create_group((d / "g").c_str(), nullptr), CA_OK) << ca_last_error_message();
  ASSERT_EQ(ca_array_to_zarr(ctx, x, (d / "g/x").c_str(), &o, nullptr), CA_OK) << ca_last_error_message();
  EXPECT_EQ(ca_array_to_zarr(ctx, x, (d / "g/x").c_str(), &o, nullptr), CA_EEXISTS);
  o.compressor = "lzma";
  o.overwrite = 1;
  EXPECT_EQ(ca_array_to_zarr(ctx, x, (d / "g/x").c_str(), &o, nullptr), CA_EUNSUPPORTED);

  ca_array_t *y = nullptr;
  ASSERT_EQ(ca_array_from_zarr(&y, (d / "g/x").c_str(), nullptr), CA_OK) << ca_last_error_message();
  EXPECT_EQ(ca_array_ndim(y), 2);
  int64_t n = 0;
  const int64_t *c0 = ca_array_chunks(y, 0, &n);
  ASSERT_EQ(n, 3);
  EXPECT_EQ(c0[2], 1);
  ASSERT_EQ(ca_array_to_npy(ctx, y, (d / "y.npy").c_str(), nullptr), CA_OK) << ca_last_error_message();
  ca_array_t *z = nullptr;
  ASSERT_EQ(ca_array_from_npy(&z, (d / "y.npy").c_str(), &ch), CA_OK) << ca_last_error_message();
  std::vector<double> out(35, 0.0);
  ASSERT_EQ(ca_array_compute_into(ctx, z, out.data(), out.size() * sizeof(double), nullptr), CA_OK)
      << ca_last_error_message();
  for (double v : out) EXPECT_EQ(v, 2.5);
  ca_array_free(z);
  ca_array_free(y);
  ca_array_free(x);
  ca_context_free(ctx);
}

}  // namespace
