// HDF5 datasets (io/hdf5.hpp, from_hdf5 / to_hdf5) and npy stacks (io/npy_stack_info.hpp, to_npy_stack /
// from_npy_stack): round trips through our own writer and reader checked against the source buffers
// (every dtype, ragged and unaligned chunks, hyperslabs, 0-d, empty, size 1, contiguous and
// gzip+shuffle layouts), the errors (missing file / dataset, not HDF5, wrong block, corrupt files: an
// error, never a crash), and the info pickle's writer and strict reader. The h5py and dask interop is
// bindings/python/tests/test_hdf5.py. Without HDF5 (-Dhdf5=disabled) the HDF5 tests check
// CA_EUNSUPPORTED and skip.
#include <gtest/gtest.h>

#include <chunkarray/io.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <vector>

#include "array/array.hpp"
#include "builtins/builtins.hpp"
#include "core/error.hpp"
#include "exec/executor.hpp"
#include "interop_util.hpp"
#include "io/array_io.hpp"
#include "io/hdf5.hpp"
#include "io/npy_stack_info.hpp"
#include "kernel/kernel.hpp"

namespace {

using ca::Index;
using ca::test::TempDir;
namespace io = ca::io;

using ca::test::compute;
using ca::test::env;

// Distinct bytes per element (a plain pattern, independent of any library code).
std::vector<unsigned char> pattern(ca::DType t, Index n) {
  size_t isz = ca::dtype_size(t);
  std::vector<unsigned char> v(size_t(n) * isz);
  for (Index i = 0; i < n; ++i)
    for (size_t b = 0; b < isz; ++b) {
      unsigned char x = static_cast<unsigned char>((i * 7 + Index(b) * 13 + i / 256) & 0x7f);
      if (t == CA_BOOL) x &= 1;
      if (t == CA_FLOAT16 && b == 1) x &= 0x3b;  // a finite half (no NaN payloads to compare)
      if ((t == CA_FLOAT32 && b == 3) || ((t == CA_FLOAT64 || t == CA_COMPLEX128) && b % 8 == 7) ||
          (t == CA_COMPLEX64 && b % 4 == 3))
        x &= 0x3f;
      v[size_t(i) * isz + b] = x;
    }
  return v;
}

ca::ArrayPtr array_of(const std::vector<unsigned char> &data, ca::DType t, const std::vector<Index> &shape,
                      const ca::Chunks &chunks) {
  return ca::from_buffer(data.data(), t, shape, nullptr, chunks, false, nullptr, nullptr);
}

// The C-order box [lo, lo + ext) of `src` (shape `shape`), by a plain loop.
std::vector<unsigned char> box_of(const std::vector<unsigned char> &src, size_t isz, const std::vector<Index> &shape,
                                  const std::vector<Index> &lo, const std::vector<Index> &ext) {
  size_t nd = shape.size();
  Index n = 1;
  for (Index e : ext) n *= e;
  std::vector<unsigned char> out;
  std::vector<Index> idx(nd, 0);
  for (Index k = 0; k < n; ++k) {
    Index off = 0;
    for (size_t d = 0; d < nd; ++d) off = off * shape[d] + lo[d] + idx[d];
    out.insert(out.end(), src.begin() + long(size_t(off) * isz), src.begin() + long(size_t(off + 1) * isz));
    for (size_t d = nd; d-- > 0;) {
      if (++idx[d] < ext[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

#define SKIP_WITHOUT_HDF5()                                                     \
  if (!io::hdf5_available()) {                                                  \
    TempDir d_;                                                                 \
    try {                                                                       \
      io::read_h5_meta(d_ / "x.h5", "x");                                       \
      FAIL() << "expected CA_EUNSUPPORTED";                                     \
    } catch (const ca::Error &e) {                                              \
      EXPECT_EQ(e.code(), CA_EUNSUPPORTED);                                     \
      EXPECT_NE(std::string(e.what()).find("built without HDF5"), std::string::npos); \
    }                                                                           \
    GTEST_SKIP() << "built without HDF5";                                       \
  }

ca_status_t code_of(const std::function<void()> &f, std::string *msg = nullptr) {
  try {
    f();
  } catch (const ca::Error &e) {
    if (msg) *msg = e.what();
    return e.code();
  }
  return CA_OK;
}

const ca::DType kDtypes[] = {CA_BOOL,   CA_INT8,    CA_INT16,   CA_INT32,     CA_INT64,     CA_UINT8,
                             CA_UINT16, CA_UINT32,  CA_UINT64,  CA_FLOAT16,   CA_FLOAT32,   CA_FLOAT64,
                             CA_COMPLEX64, CA_COMPLEX128};

class Hdf5Paths : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    if (!GetParam()) ::setenv("CA_HDF5_DIRECT", "0", 1);
  }
  void TearDown() override { ::unsetenv("CA_HDF5_DIRECT"); }
};
INSTANTIATE_TEST_SUITE_P(DirectAndLocked, Hdf5Paths, ::testing::Bool(),
                         [](const auto &i) { return i.param ? "direct" : "hyperslab"; });

// Each round trip twice: the direct chunk / pread paths, and (CA_HDF5_DIRECT=0) H5Dread/H5Dwrite of
// hyperslabs under the lock, which must agree byte for byte.
TEST_P(Hdf5Paths, RoundTripEveryDtypeAndLayout) {
  SKIP_WITHOUT_HDF5();
  TempDir d;
  std::vector<Index> shape{23, 11};
  std::vector<ca::DType> dts(std::begin(kDtypes), std::end(kDtypes));
  dts.push_back(ca::dtype_make(CA_BYTES, 5));
  int k = 0;
  for (ca::DType t : dts) {
    auto data = pattern(t, 23 * 11);
    auto a = array_of(data, t, shape, {{10, 10, 3}, {4, 4, 3}});
    struct Layout {
      bool contiguous;
      int gzip;
      bool shuffle;
      std::vector<Index> chunks;
    } layouts[] = {{false, -1, false, {}}, {false, 6, true, {}}, {true, -1, false, {}}, {false, 1, false, {7, 5}},
                   {false, -1, true, {40, 40}}};
    for (const Layout &l : layouts) {
      std::string name = "g" + std::to_string(k % 3) + "/d" + std::to_string(k);
      ++k;
      io::Hdf5WriteOptions o;
      o.contiguous = l.contiguous;
      o.gzip_level = l.gzip;
      o.shuffle = l.shuffle;
      o.chunks = l.chunks;
      io::to_hdf5(env().ex, env().reg, a, d / "rt.h5", name, o);
      auto meta = io::read_h5_meta(d / "rt.h5", name);
      EXPECT_EQ(meta.dtype, t);
      EXPECT_EQ(meta.shape, shape);
      if (l.contiguous) EXPECT_TRUE(meta.chunks.empty());
      else if (l.chunks.empty()) EXPECT_EQ(meta.chunks, (std::vector<Index>{10, 4}));
      else EXPECT_EQ(meta.chunks, (std::vector<Index>{std::min<Index>(l.chunks[0], 23), std::min<Index>(l.chunks[1], 11)}));
      auto b = io::from_hdf5(d / "rt.h5", name);
      ASSERT_EQ(b->dtype, t);
      EXPECT_EQ(compute(b), data) << ca::dtype_name(t) << " " << name;
      // Boxes that cut through HDF5 chunks (ragged), read with the direct path or hyperslabs.
      auto c = io::from_hdf5(d / "rt.h5", name, "((5, 9, 9), (2, 6, 3))");
      EXPECT_EQ(compute(c), data) << ca::dtype_name(t) << " " << name;
    }
  }
}

TEST_P(Hdf5Paths, HyperslabsAtRaggedChunks) {
  SKIP_WITHOUT_HDF5();
  TempDir d;
  std::vector<Index> shape{17, 9, 6};
  auto data = pattern(CA_FLOAT64, 17 * 9 * 6);
  auto a = array_of(data, CA_FLOAT64, shape, {{17}, {9}, {6}});
  io::Hdf5WriteOptions o;
  o.chunks = {4, 4, 4};
  o.gzip_level = 3;
  o.shuffle = true;
  io::to_hdf5(env().ex, env().reg, a, d / "h.h5", "x", o);
  std::mt19937 rng(7);
  for (int it = 0; it < 40; ++it) {
    std::vector<Index> lo(3), ext(3);
    for (int dd = 0; dd < 3; ++dd) {
      lo[dd] = Index(rng() % uint32_t(shape[dd]));
      ext[dd] = Index(rng() % uint32_t(shape[dd] - lo[dd] + 1));
    }
    std::vector<Index> stop(3);
    for (int dd = 0; dd < 3; ++dd) stop[dd] = lo[dd] + ext[dd];
    ca::BlockRef b = io::read_h5_region(d / "h.h5", "x", CA_FLOAT64, lo, stop);
    auto want = box_of(data, 8, shape, lo, ext);
    ASSERT_EQ(size_t(b->nbytes), want.size());
    EXPECT_EQ(0, std::memcmp(b->data, want.data(), want.size())) << "box at " << lo[0] << "," << lo[1] << "," << lo[2];
  }
}

// Whether this directory's file system takes O_DIRECT (tmpfs does not): then the writer must use it.
bool odirect_works(const TempDir &d) {
  int fd = ::open((d / "probe").c_str(), O_CREAT | O_RDWR | O_DIRECT | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  void *p = nullptr;
  bool ok = ::posix_memalign(&p, 4096, 4096) == 0;
  if (ok) {
    std::memset(p, 1, 4096);
    ok = ::pwrite(fd, p, 4096, 0) == 4096;
  }
  std::free(p);
  ::close(fd);
  ::unlink((d / "probe").c_str());
  return ok;
}

// Big page-aligned unfiltered chunks and contiguous runs are written at their addresses with
// O_DIRECT (CA_HDF5_ODIRECT_MIN lowers the threshold to one page so small arrays take that path):
// ragged edge chunks, blocks of one chunk and of several, contiguous row blocks; read back by both
// read paths, and the same bytes with CA_HDF5_ODIRECT=0 (chunks through H5Dwrite_chunk, contiguous
// runs by buffered pwrite) and CA_HDF5_DIRECT=0 (H5Dwrite of hyperslabs under the lock).
TEST(Hdf5, ODirectWritesOfChunksAndRuns) {
  SKIP_WITHOUT_HDF5();
  TempDir d;
  struct Env {
    Env() { ::setenv("CA_HDF5_ODIRECT_MIN", "4096", 1); }
    ~Env() {
      ::unsetenv("CA_HDF5_ODIRECT_MIN");
      ::unsetenv("CA_HDF5_ODIRECT");
      ::unsetenv("CA_HDF5_DIRECT");
    }
  } env_;
  const bool dio = odirect_works(d);
  std::vector<Index> shape{150, 1100};
  auto data = pattern(CA_FLOAT64, 150 * 1100);
  std::vector<Index> rshape{150, 1024};
  auto rdata = pattern(CA_FLOAT64, 150 * 1024);
  struct Case {
    const char *name, *odirect, *direct;
    bool big_blocks;
  } cases[] = {{"dio", nullptr, nullptr, false}, {"dio_multi", nullptr, nullptr, true},
               {"buffered", "0", nullptr, false}, {"locked", nullptr, "0", true}};
  for (const Case &c : cases) {
    if (c.odirect) ::setenv("CA_HDF5_ODIRECT", c.odirect, 1);
    else ::unsetenv("CA_HDF5_ODIRECT");
    if (c.direct) ::setenv("CA_HDF5_DIRECT", c.direct, 1);
    else ::unsetenv("CA_HDF5_DIRECT");
    // HDF5 chunks of 64 x 512 float64 (256 KiB): edge chunks 22 and 76 wide; blocks of one chunk or
    // of 2 x 2 chunks (the writer splits them).
    ca::Chunks blocks = c.big_blocks ? ca::Chunks{{128, 22}, {1024, 76}} : ca::Chunks{{64, 64, 22}, {512, 512, 76}};
    io::Hdf5WriteOptions o;
    o.chunks = {64, 512};
    int64_t before = io::hdf5_direct_io_bytes();
    io::to_hdf5(env().ex, env().reg, array_of(data, CA_FLOAT64, shape, blocks), d / "o.h5", c.name, o);
    int64_t chunked = io::hdf5_direct_io_bytes() - before;
    io::Hdf5WriteOptions oc;
    oc.contiguous = true;  // row blocks of 64 x 1024 float64: 512 KiB runs at page-aligned offsets
    before = io::hdf5_direct_io_bytes();
    io::to_hdf5(env().ex, env().reg, array_of(rdata, CA_FLOAT64, rshape, {{64, 64, 22}, {1024}}), d / "o.h5",
                std::string(c.name) + "_c", oc);
    int64_t contiguous = io::hdf5_direct_io_bytes() - before;
    // Runs of 64 x 1100 float64 are no whole pages: buffered pwrite at the dataset's address.
    before = io::hdf5_direct_io_bytes();
    io::to_hdf5(env().ex, env().reg, array_of(data, CA_FLOAT64, shape, {{64, 64, 22}, {1100}}), d / "o.h5",
                std::string(c.name) + "_u", oc);
    EXPECT_EQ(io::hdf5_direct_io_bytes() - before, 0) << c.name;
    if (dio && !c.odirect && !c.direct) {
      EXPECT_EQ(chunked, 9 * 64 * 512 * 8) << c.name;  // every chunk, edge chunks whole
      EXPECT_EQ(contiguous, 150 * 1024 * 8) << c.name;
    } else {
      EXPECT_EQ(chunked, 0) << c.name;
      EXPECT_EQ(contiguous, 0) << c.name;
    }
    ::unsetenv("CA_HDF5_DIRECT");
    EXPECT_EQ(compute(io::from_hdf5(d / "o.h5", c.name)), data) << c.name;
    EXPECT_EQ(compute(io::from_hdf5(d / "o.h5", c.name, "((50, 100), (300, 800))")), data) << c.name;
    EXPECT_EQ(compute(io::from_hdf5(d / "o.h5", std::string(c.name) + "_c", "((70, 80), (1000, 24))")), rdata)
        << c.name;
    ::setenv("CA_HDF5_DIRECT", "0", 1);
    EXPECT_EQ(compute(io::from_hdf5(d / "o.h5", c.name)), data) << c.name;
    EXPECT_EQ(compute(io::from_hdf5(d / "o.h5", std::string(c.name) + "_c")), rdata) << c.name;
    EXPECT_EQ(compute(io::from_hdf5(d / "o.h5", std::string(c.name) + "_u")), data) << c.name;
  }
}

TEST(Hdf5, ZeroDEmptyAndSizeOne) {
  SKIP_WITHOUT_HDF5();
  TempDir d;
  std::vector<std::vector<Index>> shapes{{}, {0}, {3, 0}, {1}, {1, 1, 1}, {0, 0}};
  int k = 0;
  for (const auto &shape : shapes) {
    Index n = 1;
    for (Index e : shape) n *= e;
    auto data = pattern(CA_INT32, n);
    ca::Chunks ch;
    for (Index e : shape) ch.push_back({e});
    auto a = array_of(data, CA_INT32, shape, ch);
    std::string name = "s" + std::to_string(k++);
    io::Hdf5WriteOptions o;
    o.gzip_level = 4;  // ignored (stored contiguous) for 0-d and empty arrays
    io::to_hdf5(env().ex, env().reg, a, d / "z.h5", name, o);
    auto meta = io::read_h5_meta(d / "z.h5", name);
    EXPECT_EQ(meta.shape, shape);
    auto b = io::from_hdf5(d / "z.h5", name);
    EXPECT_EQ(b->shape, shape);
    EXPECT_EQ(compute(b), data);
  }
}

TEST(Hdf5, Errors) {
  SKIP_WITHOUT_HDF5();
  TempDir d;
  std::string msg;
  EXPECT_EQ(code_of([&] { io::from_hdf5(d / "missing.h5", "x"); }, &msg), CA_ENOTFOUND);
  EXPECT_NE(msg.find("missing.h5"), std::string::npos) << msg;
  {
    std::ofstream(d / "junk.h5") << std::string(4096, 'j');
  }
  EXPECT_EQ(code_of([&] { io::from_hdf5(d / "junk.h5", "x"); }, &msg), CA_EFORMAT);
  EXPECT_NE(msg.find("is not an HDF5 file"), std::string::npos) << msg;
  auto data = pattern(CA_INT16, 12);
  auto a = array_of(data, CA_INT16, {3, 4}, {{3}, {4}});
  io::to_hdf5(env().ex, env().reg, a, d / "e.h5", "/a/b", {});
  EXPECT_EQ(code_of([&] { io::from_hdf5(d / "e.h5", "/a/c"); }, &msg), CA_ENOTFOUND);
  EXPECT_NE(msg.find("has no dataset '/a/c'"), std::string::npos) << msg;
  EXPECT_EQ(code_of([&] { io::from_hdf5(d / "e.h5", "/q/r"); }, &msg), CA_ENOTFOUND);
  EXPECT_NE(msg.find("no group '/q'"), std::string::npos) << msg;
  EXPECT_EQ(code_of([&] { io::from_hdf5(d / "e.h5", "a"); }, &msg), CA_EINVAL);
  EXPECT_EQ(code_of([&] { io::from_hdf5(d / "e.h5", ""); }), CA_EINVAL);
  EXPECT_EQ(code_of([&] { io::from_hdf5(d / "e.h5", "a/b", "(2, 2, 2)"); }), CA_EINVAL);
  // Writing: exists, overwrite, the name is a group, bad options, wrong blocks.
  EXPECT_EQ(code_of([&] { io::to_hdf5(env().ex, env().reg, a, d / "e.h5", "/a/b", {}); }), CA_EEXISTS);
  io::Hdf5WriteOptions ow;
  ow.overwrite = true;
  EXPECT_EQ(code_of([&] { io::to_hdf5(env().ex, env().reg, a, d / "e.h5", "/a", ow); }), CA_EEXISTS);
  io::Hdf5WriteOptions bad;
  bad.gzip_level = 10;
  EXPECT_EQ(code_of([&] { io::to_hdf5(env().ex, env().reg, a, d / "e.h5", "g", bad); }), CA_EINVAL);
  bad = {};
  bad.contiguous = true;
  bad.shuffle = true;
  EXPECT_EQ(code_of([&] { io::to_hdf5(env().ex, env().reg, a, d / "e.h5", "g", bad); }), CA_EINVAL);
  bad = {};
  bad.chunks = {0, 2};
  EXPECT_EQ(code_of([&] { io::to_hdf5(env().ex, env().reg, a, d / "e.h5", "g", bad); }), CA_EINVAL);
  EXPECT_EQ(code_of([&] { io::to_hdf5(env().ex, env().reg, a, d / "junk.h5", "g", {}); }), CA_EFORMAT);
  {
    io::H5Writer w(d / "w.h5", "x", CA_INT16, {3, 4}, {});
    std::vector<Index> start{1, 0};
    ca::BlockRef blk(ca::block_new(CA_INT16, 2, std::vector<Index>{3, 4}.data(), true));
    EXPECT_EQ(code_of([&] { w.write_region(start, *blk); }, &msg), CA_EINVAL);  // past the extent
    EXPECT_NE(msg.find("outside the dataset's extent"), std::string::npos) << msg;
    ca::BlockRef b32(ca::block_new(CA_INT32, 2, std::vector<Index>{1, 1}.data(), true));
    EXPECT_EQ(code_of([&] { w.write_region(start, *b32); }), CA_ETYPE);
    w.close();
  }
  // A dataset changed after the array was made: an error at compute time, not wrong data.
  auto r = io::from_hdf5(d / "e.h5", "/a/b");
  io::to_hdf5(env().ex, env().reg, array_of(pattern(CA_INT16, 4), CA_INT16, {2, 2}, {{2}, {2}}), d / "e.h5", "/a/b", ow);
  EXPECT_NE(code_of([&] { compute(r); }), CA_OK);
}

// Corrupt files: every byte flip gives a value or an error, never a crash. Flips in the chunk data
// (the part our direct path decodes) and in the whole file's first kilobytes (HDF5's superblock and
// object headers).
TEST(Hdf5, CorruptFilesGiveErrors) {
  SKIP_WITHOUT_HDF5();
  TempDir d;
  auto data = pattern(CA_FLOAT64, 64 * 32);
  io::Hdf5WriteOptions o;
  o.chunks = {16, 16};
  o.gzip_level = 1;
  o.shuffle = true;
  io::to_hdf5(env().ex, env().reg, array_of(data, CA_FLOAT64, {64, 32}, {{64}, {32}}), d / "c.h5", "x", o);
  std::string orig;
  {
    std::ifstream f(d / "c.h5", std::ios::binary);
    orig.assign(std::istreambuf_iterator<char>(f), {});
  }
  std::mt19937 rng(1);
  int errors = 0, oks = 0;
  for (int it = 0; it < 60; ++it) {
    std::string bad = orig;
    size_t region = it < 20 ? std::min<size_t>(orig.size(), 1024) : orig.size();
    size_t lo = it < 20 ? 0 : orig.size() / 2;
    for (int f = 0; f < 4; ++f) {
      size_t pos = lo + rng() % (region - lo);
      bad[pos] = char(bad[pos] ^ (1 + rng() % 255));
    }
    std::string p = d / ("bad" + std::to_string(it) + ".h5");
    {
      std::ofstream f(p, std::ios::binary);
      f << bad;
    }
    std::string m;
    ca_status_t c = code_of([&] { compute(io::from_hdf5(p, "x")); }, &m);
    if (c != CA_OK) {
      EXPECT_NE(m.find("bad" + std::to_string(it) + ".h5"), std::string::npos) << m;
    }
    if (c == CA_OK) ++oks;
    else ++errors;
    EXPECT_TRUE(c == CA_OK || c == CA_EFORMAT || c == CA_EIO || c == CA_ENOTFOUND || c == CA_EUNSUPPORTED ||
                c == CA_EINVAL || c == CA_EKERNEL)
        << "flip round " << it << " gave " << c;
  }
  EXPECT_GT(errors, 0);
  // Truncated: the chunk data lies past the end.
  {
    std::ofstream f(d / "trunc.h5", std::ios::binary);
    f << orig.substr(0, orig.size() - 100);
  }
  std::string msg;
  EXPECT_NE(code_of([&] { compute(io::from_hdf5(d / "trunc.h5", "x")); }, &msg), CA_OK);
  EXPECT_NE(msg.find("trunc.h5"), std::string::npos) << msg;
}

// Unfiltered chunks (read by pread at the address HDF5 gives, no decoding to catch damage): a file
// cut short is an error naming it, never a read past the end or outside the block. Both writers'
// files: small chunks through H5Dwrite_chunk, big ones (CA_HDF5_ODIRECT_MIN lowered) allocated early
// on page boundaries. (Byte flips in the metadata can crash libhdf5 itself, inside H5Oopen: see
// docs/hdf5.md; CorruptFilesGiveErrors flips chunk data.)
TEST(Hdf5, UnfilteredTruncatedFiles) {
  SKIP_WITHOUT_HDF5();
  TempDir d;
  auto data = pattern(CA_FLOAT64, 96 * 1024);
  for (int big = 0; big < 2; ++big) {
    if (big) ::setenv("CA_HDF5_ODIRECT_MIN", "4096", 1);
    io::Hdf5WriteOptions o;
    o.chunks = big ? std::vector<Index>{32, 512} : std::vector<Index>{16, 16};
    std::string p0 = d / ("u" + std::to_string(big) + ".h5");
    io::to_hdf5(env().ex, env().reg, array_of(data, CA_FLOAT64, {96, 1024}, {{32, 32, 32}, {512, 512}}), p0, "x", o);
    ::unsetenv("CA_HDF5_ODIRECT_MIN");
    EXPECT_EQ(compute(io::from_hdf5(p0, "x")), data);
    std::string orig = ca::test::read_text(p0);
    for (size_t cut : {size_t(8), size_t(5000), orig.size() / 3}) {
      std::string p = d / ("cut" + std::to_string(big) + "_" + std::to_string(cut) + ".h5");
      ca::test::write_text(p, orig.substr(0, orig.size() - cut));
      std::string msg;
      ca_status_t c = code_of([&] { compute(io::from_hdf5(p, "x", "((50, 46), (1024,))")); }, &msg);
      EXPECT_TRUE(c == CA_EFORMAT || c == CA_EKERNEL || c == CA_EIO) << cut << ": " << c << " " << msg;
      EXPECT_NE(msg.find(p), std::string::npos) << msg;
    }
  }
}

TEST(Hdf5, LockIsTakenAndCounted) {
  SKIP_WITHOUT_HDF5();
  TempDir d;
  auto before = io::hdf5_lock_stats();
  auto data = pattern(CA_UINT8, 100);
  io::to_hdf5(env().ex, env().reg, array_of(data, CA_UINT8, {100}, {{30, 30, 40}}), d / "l.h5", "x", {});
  EXPECT_EQ(compute(io::from_hdf5(d / "l.h5", "x")), data);
  auto after = io::hdf5_lock_stats();
  EXPECT_GT(after.acquisitions, before.acquisitions + 4);
}

TEST(Hdf5, CApi) {
  TempDir d;
  ca_array_t *a = reinterpret_cast<ca_array_t *>(1);
  EXPECT_EQ(ca_array_from_hdf5(&a, nullptr, "x", nullptr), CA_EINVAL);
  EXPECT_EQ(a, nullptr);
  EXPECT_EQ(ca_array_from_hdf5(&a, "f.h5", nullptr, nullptr), CA_EINVAL);
  ca_status_t s = ca_array_from_hdf5(&a, (d / "nope.h5").c_str(), "x", nullptr);
  EXPECT_EQ(s, io::hdf5_available() ? CA_ENOTFOUND : CA_EUNSUPPORTED);
  EXPECT_NE(std::string(ca_last_error_message()).find("ca_array_from_hdf5"), std::string::npos);
  EXPECT_EQ(ca_array_to_hdf5(nullptr, nullptr, "f", "x", nullptr, nullptr), CA_EINVAL);
  EXPECT_EQ(ca_array_from_npy_stack(&a, nullptr), CA_EINVAL);
  EXPECT_EQ(ca_array_from_npy_stack(&a, (d / "none").c_str()), CA_ENOTFOUND);
}

// ---- npy stacks -------------------------------------------------------------------------------------

TEST(NpyStack, InfoPickleRoundTripAndRefusals) {
  io::NpyStackInfo info;
  info.chunks = {{3, 3, 1}, {5}, {70000, 1LL << 40, 0, 4}};
  info.axis = 0;
  for (ca::DType t : kDtypes) {
    info.dtype = t;
    auto back = io::parse_npy_stack_info(io::write_npy_stack_info(info), "info");
    EXPECT_EQ(back.chunks, info.chunks);
    EXPECT_EQ(back.dtype, t);
    EXPECT_EQ(back.axis, 0);
  }
  info.dtype = ca::dtype_make(CA_UNICODE, 3);
  EXPECT_EQ(io::parse_npy_stack_info(io::write_npy_stack_info(info), "info").dtype, info.dtype);
  info.dtype = ca::dtype_make(CA_DATETIME64, CA_UNIT_NS);
  EXPECT_EQ(code_of([&] { io::write_npy_stack_info(info); }), CA_EUNSUPPORTED);
  // What Python 3.11's pickle.dumps({'chunks': ((2, 3), (4,)), 'dtype': np.dtype('f8'), 'axis': 0})
  // (protocol 4) writes, byte for byte.
  const unsigned char p4[] = {
      0x80, 0x04, 0x95, 0x5b, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x7d, 0x94, 0x28, 0x8c, 0x06, 0x63, 0x68,
      0x75, 0x6e, 0x6b, 0x73, 0x94, 0x4b, 0x02, 0x4b, 0x03, 0x86, 0x94, 0x4b, 0x04, 0x85, 0x94, 0x86, 0x94, 0x8c,
      0x05, 0x64, 0x74, 0x79, 0x70, 0x65, 0x94, 0x8c, 0x05, 0x6e, 0x75, 0x6d, 0x70, 0x79, 0x94, 0x68, 0x05, 0x93,
      0x94, 0x8c, 0x02, 0x66, 0x38, 0x94, 0x89, 0x88, 0x87, 0x94, 0x52, 0x94, 0x28, 0x4b, 0x03, 0x8c, 0x01, 0x3c,
      0x94, 0x4e, 0x4e, 0x4e, 0x4a, 0xff, 0xff, 0xff, 0xff, 0x4a, 0xff, 0xff, 0xff, 0xff, 0x4b, 0x00, 0x74, 0x94,
      0x62, 0x8c, 0x04, 0x61, 0x78, 0x69, 0x73, 0x94, 0x4b, 0x00, 0x75, 0x2e};
  auto i4 = io::parse_npy_stack_info(std::string(reinterpret_cast<const char *>(p4), sizeof p4), "info");
  EXPECT_EQ(i4.chunks, (std::vector<std::vector<Index>>{{2, 3}, {4}}));
  EXPECT_EQ(i4.dtype, CA_FLOAT64);
  // Refused: another global (os.system), a list, trailing bytes, truncation, a missing key.
  static const char evil_bytes[] = "\x80\x02}(X\x06\x00\x00\x00" "chunks" "cos\nsystem\n.";
  std::string evil(evil_bytes, sizeof evil_bytes - 1);
  std::string msg;
  EXPECT_EQ(code_of([&] { io::parse_npy_stack_info(evil, "info"); }, &msg), CA_EFORMAT);
  EXPECT_NE(msg.find("os.system"), std::string::npos) << msg;
  static const char list_bytes[] = "\x80\x02]q\x00.";
  EXPECT_EQ(code_of([&] { io::parse_npy_stack_info(std::string(list_bytes, sizeof list_bytes - 1), "info"); }),
            CA_EFORMAT);
  info.dtype = CA_INT8;
  std::string good = io::write_npy_stack_info(info);
  EXPECT_EQ(code_of([&] { io::parse_npy_stack_info(good + "x", "info"); }), CA_EFORMAT);
  for (size_t n = 0; n < good.size(); ++n)
    EXPECT_EQ(code_of([&] { io::parse_npy_stack_info(good.substr(0, n), "info"); }), CA_EFORMAT) << n;
  static const char no_chunks[] = "\x80\x02}(X\x04\x00\x00\x00" "axis" "K\x00u.";
  EXPECT_EQ(code_of([&] { io::parse_npy_stack_info(std::string(no_chunks, sizeof no_chunks - 1), "info"); }, &msg),
            CA_EFORMAT);
  EXPECT_NE(msg.find("lacks 'chunks'"), std::string::npos) << msg;
  // Random bytes: an error, never a crash.
  std::mt19937 rng(5);
  for (int it = 0; it < 300; ++it) {
    std::string s = good;
    for (int f = 0; f < 3; ++f) s[rng() % s.size()] = char(rng());
    ca_status_t c = code_of([&] { io::parse_npy_stack_info(s, "info"); });
    EXPECT_TRUE(c == CA_OK || c == CA_EFORMAT || c == CA_EUNSUPPORTED) << c;
  }
}

TEST(NpyStack, RoundTripAlongEachAxis) {
  TempDir d;
  std::vector<Index> shape{7, 5, 3};
  for (ca::DType t : {CA_FLOAT64, CA_INT16, CA_BOOL, CA_COMPLEX64}) {
    auto data = pattern(t, 7 * 5 * 3);
    auto a = array_of(data, t, shape, {{3, 3, 1}, {2, 2, 1}, {3}});
    for (int axis : {0, 1, -1}) {
      std::string dir = d / ("s" + std::to_string(int(t)) + "_" + std::to_string(axis + 1));
      io::to_npy_stack(env().ex, env().reg, a, dir, axis);
      auto b = io::from_npy_stack(dir);
      int ax = axis < 0 ? axis + 3 : axis;
      for (int dd = 0; dd < 3; ++dd)
        EXPECT_EQ(b->chunks[dd], dd == ax ? a->chunks[dd] : std::vector<Index>{shape[dd]});
      EXPECT_EQ(b->dtype, t);
      EXPECT_EQ(compute(b), data);
    }
  }
  // Empty blocks along the axis, and a size-1 array.
  auto e = array_of({}, CA_FLOAT32, {0, 4}, {{0}, {2, 2}});
  io::to_npy_stack(env().ex, env().reg, e, d / "empty", 0);
  EXPECT_EQ(io::from_npy_stack(d / "empty")->shape, (std::vector<Index>{0, 4}));
  auto one = pattern(CA_INT64, 1);
  io::to_npy_stack(env().ex, env().reg, array_of(one, CA_INT64, {1}, {{1}}), d / "one", 0);
  EXPECT_EQ(compute(io::from_npy_stack(d / "one")), one);
  // Errors: 0-d, axis out of range, a file that disagrees with info.
  auto z = array_of(pattern(CA_INT8, 1), CA_INT8, {}, {});
  EXPECT_EQ(code_of([&] { io::to_npy_stack(env().ex, env().reg, z, d / "z", 0); }), CA_EINVAL);
  EXPECT_EQ(code_of([&] { io::to_npy_stack(env().ex, env().reg, e, d / "z", 2); }), CA_EINVAL);
  io::to_npy_stack(env().ex, env().reg, array_of(pattern(CA_INT8, 6), CA_INT8, {6}, {{2, 4}}), d / "m", 0);
  std::filesystem::copy_file(d / "m/0.npy", d / "m/1.npy", std::filesystem::copy_options::overwrite_existing);
  std::string msg;
  EXPECT_EQ(code_of([&] { io::from_npy_stack(d / "m"); }, &msg), CA_EFORMAT);
  EXPECT_NE(msg.find("1.npy"), std::string::npos) << msg;
}

}  // namespace
