// .npy interop with NumPy (Debian's python3-numpy): every dtype, both byte orders, C and F order, format
// versions 1.0/2.0/3.0, 0-d and empty arrays; lazy memory-mapped region reads; writes NumPy loads.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <vector>

#include "interop_util.hpp"
#include "io/layout.hpp"
#include "io/npy.hpp"

namespace {

using ca::Index;
using ca::test::TempDir;
using json = nlohmann::json;
namespace io = ca::io;

const char *kPythonWrites = R"PY(
import sys, os, json, numpy as np
root = sys.argv[1]
rng = np.random.default_rng(5)
types = ['|b1', '|i1', '|u1', '<i2', '>i2', '<u2', '>u2', '<i4', '>i4', '<u4', '>u4', '<i8', '>i8', '<u8', '>u8',
         '<f4', '>f4', '<f8', '>f8', '<c8', '>c8', '<c16', '>c16']
shapes = [(5, 7), (3, 4, 2), (9,), (), (0, 3)]
manifest = []
i = 0
for t in types:
    for fortran in (False, True):
        for shape in shapes[:3] if i % 4 else shapes:
            dt = np.dtype(t)
            n = int(np.prod(shape))
            raw = rng.integers(0, 256, n * dt.itemsize, dtype=np.uint8)
            a = raw.view(dt.newbyteorder('=')).reshape(shape) if dt.kind != 'b' else (raw % 2).astype(bool).reshape(shape)
            a = a.astype(dt)
            if fortran:
                a = np.asfortranarray(a)
            name = 'n%03d' % i
            version = [(1, 0), (2, 0), (3, 0)][i % 3]
            with open(os.path.join(root, name + '.npy'), 'wb') as f:
                np.lib.format.write_array(f, a, version=version)
            # reference: native byte order, C order, raw bytes
            open(os.path.join(root, name + '.bin'), 'wb').write(np.ascontiguousarray(a.astype(dt.newbyteorder('='))).tobytes())
            manifest.append(dict(name=name, dtype=t, fortran=fortran, shape=list(shape), version=list(version)))
            i += 1
json.dump(manifest, open(os.path.join(root, 'manifest.json'), 'w'))
)PY";

const char *kPythonChecks = R"PY(
import sys, os, json, numpy as np
root = sys.argv[1]
bad = 0
for c in json.load(open(os.path.join(root, 'manifest.json'))):
    try:
        path = os.path.join(root, c['name'] + '.npy')
        a = np.load(path)
        assert a.dtype == np.dtype(c['dtype']), (a.dtype, c['dtype'])
        assert a.shape == tuple(c['shape']), a.shape
        assert a.tobytes() == open(os.path.join(root, c['name'] + '.bin'), 'rb').read(), 'values'
        with open(path, 'rb') as f:
            version = np.lib.format.read_magic(f)
            np.lib.format._read_array_header(f, version)
            assert f.tell() % 64 == 0, ('data offset', f.tell())
        m = np.load(path, mmap_mode='r')
        assert np.array_equal(m, a, equal_nan=True)
    except Exception as ex:
        bad += 1
        print('FAIL', c['name'], repr(ex)[:1000])
sys.exit(1 if bad else 0)
)PY";

TEST(NpyInterop, ReadFilesWrittenByNumPy) {
  if (!ca::test::python_has_zarr()) GTEST_SKIP() << CA_PYTHON << " lacks numpy";
  TempDir dir;
  std::string log;
  ASSERT_EQ(ca::test::run_python(dir, kPythonWrites, dir.path(), &log), 0) << log;
  json manifest = json::parse(ca::test::read_text(dir / "manifest.json"));
  ASSERT_GT(manifest.size(), 100u);
  for (const json &c : manifest) {
    std::string name = c["name"];
    SCOPED_TRACE(name + " " + c["dtype"].get<std::string>());
    try {
      io::NpyHeader h = io::read_npy_header(dir / (name + ".npy"));
      // NumPy stores F order only where it differs from C order.
      if (c["fortran"].get<bool>() && !io::order_is_irrelevant(int(h.shape.size()), h.shape.data())) {
        EXPECT_TRUE(h.fortran_order);
      }
      EXPECT_EQ(h.shape, c["shape"].get<std::vector<Index>>());
      EXPECT_EQ(h.major, c["version"][0].get<int>());
      auto f = io::NpyFile::open(dir / (name + ".npy"));
      ca::BlockRef all = f->read();
      std::string ref = ca::test::read_text(dir / (name + ".bin"));
      ASSERT_EQ(size_t(all->nbytes), ref.size());
      if (!ref.empty()) {
        EXPECT_EQ(std::memcmp(all->data, ref.data(), ref.size()), 0);
      }
      // An inner region.
      const int nd = f->ndim();
      std::vector<Index> lo(nd), hi(nd), ext(nd), zero(nd, 0);
      for (int d = 0; d < nd; ++d) {
        lo[d] = h.shape[d] > 2 ? 1 : 0;
        hi[d] = h.shape[d] > 2 ? h.shape[d] - 1 : h.shape[d];
        ext[d] = hi[d] - lo[d];
      }
      ca::BlockRef sub = f->read_region(lo, hi);
      ca::BlockRef want(ca::block_new(all->dtype, nd, ext.data()));
      io::copy_box(want->data, ext.data(), zero.data(), all->data, all->shape, lo.data(), ext.data(), nd,
                   ca::dtype_size(all->dtype));
      if (want->nbytes) {
        EXPECT_EQ(std::memcmp(sub->data, want->data, size_t(want->nbytes)), 0);
      }
    } catch (const ca::Error &e) {
      ADD_FAILURE() << "code " << e.code() << ": " << e.what();
    }
  }
}

TEST(NpyInterop, MappedRegionsAreZeroCopyAndLazy) {
  TempDir dir;
  std::vector<Index> shape{100, 16};
  ca::BlockRef b(ca::block_new(CA_FLOAT64, 2, shape.data()));
  for (Index i = 0; i < b->size; ++i) b.data<double>()[i] = double(i) * 0.5;
  io::write_npy(dir / "m.npy", *b.get());
  auto f = io::NpyFile::open(dir / "m.npy");
  EXPECT_EQ(f->header().data_offset % 64, 0u);
  int64_t live = ca::block_live_bytes();
  {
    // Rows 8..40: contiguous, 64-byte aligned (8 rows of 16 doubles = 1 KiB) -> points into the mapping.
    ca::BlockRef r = f->read_region(std::vector<Index>{8, 0}, std::vector<Index>{40, 16});
    EXPECT_NE(r->release, nullptr);
    EXPECT_LT(ca::block_live_bytes() - live, 1024);  // only a header was allocated
    for (Index i = 0; i < r->size; ++i) ASSERT_EQ(r.data<double>()[i], double(8 * 16 + i) * 0.5);
    f.reset();  // the block keeps the mapping alive
    EXPECT_EQ(r.data<double>()[0], 64.0);
  }
  f = io::NpyFile::open(dir / "m.npy");
  // A column slice is copied.
  ca::BlockRef col = f->read_region(std::vector<Index>{3, 5}, std::vector<Index>{7, 6});
  EXPECT_EQ(col->release, nullptr);
  for (Index i = 0; i < 4; ++i) EXPECT_EQ(col.data<double>()[i], double((3 + i) * 16 + 5) * 0.5);
  EXPECT_THROW(f->read_region(std::vector<Index>{0, 0}, std::vector<Index>{101, 1}), ca::Error);
}

TEST(NpyInterop, BadFiles) {
  TempDir dir;
  auto code = [&](const std::string &name, const std::string &bytes) {
    ca::test::write_text(dir / name, bytes);
    try {
      io::NpyFile::open(dir / name);
    } catch (const ca::Error &e) {
      EXPECT_NE(e.message().find(name), std::string::npos) << e.what();
      return e.code();
    }
    return CA_OK;
  };
  EXPECT_EQ(code("magic.npy", "not a numpy file at all"), CA_EFORMAT);
  std::string hdr = "{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }";
  auto file = [](std::string h, int major = 1) {
    std::string s("\x93NUMPY", 6);
    s += char(major);
    s += char(0);
    s += char(h.size() & 0xff);
    s += char(h.size() >> 8);
    return s + h;
  };
  EXPECT_EQ(code("trunc.npy", file(hdr) + std::string(31, '\0')), CA_EFORMAT);  // 32 data bytes needed
  EXPECT_EQ(code("ok.npy", file(hdr) + std::string(32, '\0')), CA_OK);
  EXPECT_EQ(code("struct.npy", file("{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (1,), }") + std::string(8, '\0')),
            CA_EUNSUPPORTED);
  EXPECT_EQ(code("garbled.npy", file("{'descr': '<f8', 'fortran_order': Maybe, 'shape': (1,), }") + std::string(8, '\0')),
            CA_EFORMAT);
  EXPECT_EQ(code("version.npy", file(hdr, 9) + std::string(32, '\0')), CA_EVERSION);
  EXPECT_EQ(code("obj.npy", file("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }") + std::string(8, '\0')),
            CA_EUNSUPPORTED);
  try {
    io::NpyFile::open(dir / "absent.npy");
    ADD_FAILURE();
  } catch (const ca::Error &e) {
    EXPECT_EQ(e.code(), CA_ENOTFOUND);
  }
}

TEST(NpyInterop, FilesWeWriteLoadInNumPy) {
  if (!ca::test::python_has_zarr()) GTEST_SKIP() << CA_PYTHON << " lacks numpy";
  TempDir dir;
  json manifest = json::array();
  const std::vector<std::vector<Index>> shapes = {{5, 7}, {3, 4, 2}, {9}, {}, {0, 3}, {2, 1, 1, 3}};
  int i = 0;
  for (ca::DType t = CA_BOOL; t <= CA_COMPLEX128; ++t) {
    for (const auto &shape : shapes) {
      std::string name = "w" + std::to_string(i++);
      ca::BlockRef b(ca::block_new(t, int(shape.size()), shape.data()));
      auto *p = static_cast<unsigned char *>(b->data);
      for (Index k = 0; k < b->nbytes; ++k) p[k] = t == CA_BOOL ? (k * 7 % 3 == 0) : (unsigned char)(k * 131 + i);
      if (shape.size() == 3) {
        // Through NpyWriter, one row block at a time (the array layer's to_npy).
        io::NpyWriter w(dir / (name + ".npy"), t, shape);
        for (Index r = shape[0] - 1; r >= 0; --r) {
          std::vector<Index> ext{1, shape[1], shape[2]}, zero{0, 0, 0}, off{r, 0, 0};
          ca::BlockRef row(ca::block_new(t, 3, ext.data()));
          io::copy_box(row->data, ext.data(), zero.data(), b->data, b->shape, off.data(), ext.data(), 3, ca::dtype_size(t));
          w.write_region(off, *row.get());
        }
        w.commit();
      } else {
        io::write_npy(dir / (name + ".npy"), *b.get());
      }
      ca::test::write_text(dir / (name + ".bin"), std::string(static_cast<char *>(b->data), size_t(b->nbytes)));
      manifest.push_back({{"name", name}, {"dtype", ca::dtype_typestr(t)}, {"shape", shape}});
    }
  }
  {
    // An uncommitted writer leaves nothing behind.
    io::NpyWriter w(dir / "never.npy", CA_INT32, {4});
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "never.npy"));
  for (auto &e : std::filesystem::directory_iterator(dir.path()))
    EXPECT_EQ(e.path().string().find(".partial"), std::string::npos) << e.path();
  ca::test::write_text(dir / "manifest.json", manifest.dump());
  std::string log;
  EXPECT_EQ(ca::test::run_python(dir, kPythonChecks, dir.path(), &log), 0) << log;
}

}  // namespace
