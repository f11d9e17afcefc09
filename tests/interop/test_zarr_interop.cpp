// Zarr v2 interop with Debian's python3-zarr 2.13, both directions, every dtype x byte order x order x
// compressor, both dimension separators, ragged edge chunks, fill values (NaN, infinities), missing chunks.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <vector>

#include "interop_util.hpp"
#include "io/layout.hpp"
#include "io/npy.hpp"
#include "io/zarr_array.hpp"
#include "io/zarr_meta.hpp"

namespace {

using ca::Index;
using ca::test::TempDir;
using json = nlohmann::json;
namespace io = ca::io;

// Python writes one store per case plus the expected values as <name>.npy, and a manifest.
const char *kPythonWrites = R"PY(
import sys, os, json, numpy as np, zarr, numcodecs
from numcodecs import Blosc, Zlib, GZip, Zstd
root = sys.argv[1]
rng = np.random.default_rng(1234)
types = ['|b1', '|i1', '|u1', '<i2', '>i2', '<u2', '>u2', '<i4', '>i4', '<u4', '>u4', '<i8', '>i8', '<u8', '>u8',
         '<f4', '>f4', '<f8', '>f8', '<c8', '>c8', '<c16', '>c16']
comps = [('none', None), ('zlib', Zlib(level=1)), ('gzip', GZip(level=5)), ('zstd', Zstd(level=3)),
         ('blosc-lz4-0', Blosc('lz4', 5, 0)), ('blosc-lz4-1', Blosc('lz4', 5, 1)), ('blosc-lz4-2', Blosc('lz4', 5, 2)),
         ('blosc-zstd-0', Blosc('zstd', 3, 0)), ('blosc-zstd-1', Blosc('zstd', 3, 1)), ('blosc-zstd-2', Blosc('zstd', 3, 2)),
         ('blosc-blosclz-0', Blosc('blosclz', 5, 0)), ('blosc-blosclz-1', Blosc('blosclz', 5, 1)),
         ('blosc-blosclz-2', Blosc('blosclz', 5, 2)), ('blosc-lz4hc-1', Blosc('lz4hc', 4, 1)),
         ('blosc-zlib-1', Blosc('zlib', 1, 1))]
geoms = [((7, 5), (3, 2)), ((5, 4, 3), (2, 3, 2)), ((10,), (4,)), ((6, 7), (6, 7))]
fills = {'b': [True, None, False], 'i': [0, -1, None, 42], 'u': [0, 7, None, 255],
         'f': [float('nan'), float('inf'), float('-inf'), None, 0.5, 0.0],
         'c': [complex(1, 2), None, complex(float('nan'), float('inf')), 0j]}

def values(dt, shape):
    n = int(np.prod(shape))
    if dt.kind == 'b':
        a = rng.integers(0, 2, n).astype(bool)
    elif dt.kind in 'iu':
        info = np.iinfo(dt)
        a = rng.integers(info.min, info.max, n, dtype=dt.newbyteorder('='), endpoint=True)
    else:
        part = dt.newbyteorder('=').type(0).real.dtype
        def f():
            x = (rng.standard_normal(n) * 1000).astype(part)
            specials = np.array([np.nan, np.inf, -np.inf, -0.0], dtype=part)
            k = min(n, 4)
            x[rng.choice(n, k, replace=False)] = specials[:k]
            return x
        a = f() if dt.kind == 'f' else (f() + 1j * f()).astype(dt.newbyteorder('='))
    return a.reshape(shape)

manifest = []
def case(name, typestr, order, comp, shape, chunks, sep, fill, partial):
    dt = np.dtype(typestr)
    native = dt.newbyteorder('=')
    data = values(dt, shape)
    z = zarr.open_array(os.path.join(root, name), mode='w', shape=shape, chunks=chunks, dtype=dt,
                        compressor=comp, fill_value=fill, order=order, dimension_separator=sep)
    expect = data.copy()
    if partial is None:
        z[...] = data
    else:
        # rows >= partial stay unwritten: missing chunks and the unwritten part of a partly written chunk
        z[:partial] = data[:partial]
        expect[partial:] = 0 if fill is None else fill
        if fill is not None:
            assert np.array_equal(z[...], expect, equal_nan=True), name
    np.save(os.path.join(root, name + '.npy'), np.ascontiguousarray(expect.astype(native)))
    manifest.append(dict(name=name, dtype=typestr, order=order, compressor=z.compressor.codec_id if z.compressor is not None else '',
                         shape=list(shape), sep=sep, fill=repr(fill)))

i = 0
for t in types:
    kind = np.dtype(t).kind
    for order in 'CF':
        for cname, comp in comps:
            shape, chunks = geoms[i % len(geoms)]
            fl = fills[kind][i % len(fills[kind])]
            partial = shape[0] // 2 + 1 if i % 3 == 0 else None
            case('c%04d_%s_%s_%s' % (i, t.replace('<', 'L').replace('>', 'B').replace('|', 'N'), order, cname),
                 t, order, comp, shape, chunks, '.' if i % 2 == 0 else '/', fl, partial)
            i += 1
# special shapes
case('s_0d', '<f8', 'C', Zlib(1), (), (), '.', 1.5, None)
case('s_empty', '<i4', 'C', None, (0, 4), (2, 2), '.', 0, None)
case('s_bigchunk', '>i2', 'F', Blosc('lz4', 5, 2), (3, 2), (10, 10), '/', -5, None)
case('s_allmissing', '<f4', 'F', Zstd(1), (5, 5), (2, 2), '.', float('nan'), 0)
case('s_4d', '>f8', 'F', Blosc('zstd', 5, 1), (3, 4, 5, 2), (2, 3, 2, 2), '/', float('-inf'), 2)
with open(os.path.join(root, 'manifest.json'), 'w') as f:
    json.dump(manifest, f)
print('wrote', len(manifest), 'stores')
)PY";

// Python opens the stores we wrote and compares them with the .npy files we wrote beside them.
const char *kPythonChecks = R"PY(
import sys, os, json, math, numpy as np, zarr
root = sys.argv[1]
manifest = json.load(open(os.path.join(root, 'manifest.json')))
bad = 0
def same(a, e):
    a = a.astype(e.dtype)
    if a.dtype.kind == 'c':
        return same(a.real, e.real) and same(a.imag, e.imag)
    if a.dtype.kind == 'f':  # exact, with any NaN equal to any NaN
        na, ne = np.isnan(a), np.isnan(e)
        return bool((na == ne).all()) and a[~na].tobytes() == e[~ne].tobytes()
    return a.tobytes() == e.tobytes()
def same_fill(a, b):
    if a is None or b is None:
        return a is None and b is None
    def to_c(v):
        if isinstance(v, list):
            return complex(float(v[0]), float(v[1]))
        return complex(float(v)) if isinstance(v, str) else complex(v)
    a, b = to_c(a), to_c(b)
    eq = lambda x, y: (math.isnan(x) and math.isnan(y)) or x == y
    return eq(a.real, b.real) and eq(a.imag, b.imag)
for c in manifest:
    name = c['name']
    try:
        z = zarr.open_array(os.path.join(root, name), mode='r')
        e = np.load(os.path.join(root, name + '.npy'))
        assert z.dtype == np.dtype(c['dtype']), ('dtype', z.dtype, c['dtype'])
        assert z.order == c['order'], ('order', z.order)
        assert z.shape == tuple(c['shape']), ('shape', z.shape)
        assert z.chunks == tuple(c['chunks']), ('chunks', z.chunks)
        comp = z.compressor.get_config() if z.compressor is not None else {}
        for k, v in c['compressor'].items():
            assert comp.get(k) == v, ('compressor', comp, c['compressor'])
        assert same_fill(z.fill_value, c['fill']), ('fill_value', z.fill_value, c['fill'])
        a = z[...]
        assert a.shape == e.shape, ('value shape', a.shape, e.shape)
        if 'rows' in c and c['fill'] is None:
            # zarr-python 2.13 reads missing chunks of a null fill_value as uninitialized memory
            a, e = a[:c['rows']], e[:c['rows']]
        if not same(a, e):
            raise AssertionError(('values differ', a, e))
        if 'attrs' in c:
            assert z.attrs.asdict() == c['attrs'], ('attrs', z.attrs.asdict())
        if 'missing' in c:
            for key in c['missing']:
                assert not os.path.exists(os.path.join(root, name, key)), ('chunk should be missing', key)
    except Exception as ex:
        bad += 1
        print('FAIL', name, repr(ex)[:2000])
print('checked', len(manifest), 'stores,', bad, 'failed')
sys.exit(1 if bad else 0)
)PY";

// Exact comparison, except that any NaN equals any NaN (zarr-python turns a NaN fill_value into a NaN of
// either sign). "" if equal, else where the first difference is.
std::string compare_blocks(const ca::Block &a, const ca::Block &b) {
  if (a.dtype != b.dtype || a.nbytes != b.nbytes) return ca::str("dtype/size differ: ", a.nbytes, " vs ", b.nbytes);
  const size_t isz = ca::dtype_size(a.dtype);
  const bool fp = ca::dtype_is_float(a.dtype) || ca::dtype_is_complex(a.dtype);
  const size_t part = ca::dtype_is_complex(a.dtype) ? isz / 2 : isz;
  auto *x = static_cast<const unsigned char *>(a.data);
  auto *y = static_cast<const unsigned char *>(b.data);
  for (size_t off = 0; off < size_t(a.nbytes); off += part) {
    if (std::memcmp(x + off, y + off, part) == 0) continue;
    if (fp) {
      bool nx, ny;
      if (part == 4) {
        float u, v;
        std::memcpy(&u, x + off, 4);
        std::memcpy(&v, y + off, 4);
        nx = std::isnan(u), ny = std::isnan(v);
      } else {
        double u, v;
        std::memcpy(&u, x + off, 8);
        std::memcpy(&v, y + off, 8);
        nx = std::isnan(u), ny = std::isnan(v);
      }
      if (nx && ny) continue;
    }
    return ca::str("first difference at element ", off / isz, " (byte ", off, ")");
  }
  return "";
}

TEST(ZarrInterop, ReadStoresWrittenByZarrPython) {
  if (!ca::test::python_has_zarr()) GTEST_SKIP() << CA_PYTHON << " lacks numpy/zarr";
  TempDir dir;
  std::string log;
  ASSERT_EQ(ca::test::run_python(dir, kPythonWrites, dir.path(), &log), 0) << log;
  json manifest = json::parse(ca::test::read_text(dir / "manifest.json"));
  ASSERT_GT(manifest.size(), 600u);
  int checked = 0;
  for (const json &c : manifest) {
    std::string name = c["name"];
    SCOPED_TRACE(name);
    try {
      std::string path = dir / name;
      io::ZarrMeta meta = io::read_zarr_meta(path);
      EXPECT_EQ(meta.typestr(), c["dtype"].get<std::string>() == "|b1" ? "|b1" : c["dtype"].get<std::string>());
      EXPECT_EQ(std::string(1, meta.order), c["order"].get<std::string>());
      EXPECT_EQ(meta.compressor.id, c["compressor"].get<std::string>());
      EXPECT_EQ(std::string(1, meta.dimension_separator), c["sep"].get<std::string>());
      EXPECT_EQ(meta.shape, c["shape"].get<std::vector<Index>>());
      ca::BlockRef expect = io::read_npy(dir / (name + ".npy"));
      ASSERT_EQ(expect->dtype, meta.dtype);
      std::vector<Index> zero(meta.ndim(), 0);
      ca::BlockRef got = io::read_zarr_region(path, meta, zero, meta.shape);
      EXPECT_EQ(compare_blocks(*got.get(), *expect.get()), "");
      // An inner region that cuts through chunks: [1, n-1) along each axis.
      std::vector<Index> lo(meta.ndim()), hi(meta.ndim()), ext(meta.ndim());
      bool nonempty = true;
      for (int d = 0; d < meta.ndim(); ++d) {
        lo[d] = meta.shape[d] > 2 ? 1 : 0;
        hi[d] = meta.shape[d] > 2 ? meta.shape[d] - 1 : meta.shape[d];
        ext[d] = hi[d] - lo[d];
        nonempty = nonempty && ext[d] > 0;
      }
      if (nonempty) {
        ca::BlockRef sub = io::read_zarr_region(path, meta, lo, hi);
        ca::BlockRef ref(ca::block_new(meta.dtype, meta.ndim(), ext.data()));
        io::copy_box(ref->data, ext.data(), zero.data(), expect->data, expect->shape, lo.data(), ext.data(),
                     meta.ndim(), meta.itemsize());
        EXPECT_EQ(compare_blocks(*sub.get(), *ref.get()), "") << "inner region";
      }
      ++checked;
    } catch (const ca::Error &e) {
      ADD_FAILURE() << "code " << e.code() << ": " << e.what();
    }
  }
  EXPECT_EQ(checked, int(manifest.size()));
}

// Deterministic test values of every dtype, with NaN, infinities and -0.0 among the floats.
void fill_values(ca::Block &b, uint64_t seed) {
  std::mt19937_64 rng(seed);
  ca::dispatch_dtype(b.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T *p = static_cast<T *>(b.data);
    for (Index i = 0; i < b.size; ++i) {
      uint64_t r = rng();
      if constexpr (std::is_same_v<T, bool>) {
        p[i] = r & 1;
      } else if constexpr (std::is_integral_v<T>) {
        p[i] = T(r);
      } else {
        auto one = [&](uint64_t s) {
          using R = std::conditional_t<std::is_floating_point_v<T>, T, typename std::conditional_t<
                                                                           std::is_floating_point_v<T>, std::complex<float>, T>::value_type>;
          switch (s % 11) {
            case 0: return std::numeric_limits<R>::quiet_NaN();
            case 1: return std::numeric_limits<R>::infinity();
            case 2: return -std::numeric_limits<R>::infinity();
            case 3: return R(-0.0);
            default: return R(double(int64_t(s >> 8) % 2000001) / 997.0);
          }
        };
        if constexpr (std::is_floating_point_v<T>) p[i] = one(r);
        else p[i] = T(one(r), one(rng()));
      }
    }
  });
}

struct WriteCase {
  std::string name;
  io::ZarrMeta meta;
  std::vector<Index> block;  // write in blocks of this shape
  Index missing_from = -1;   // leave rows >= this (rounded up to chunk rows) unwritten
};

TEST(ZarrInterop, StoresWeWriteOpenInZarrPython) {
  if (!ca::test::python_has_zarr()) GTEST_SKIP() << CA_PYTHON << " lacks numpy/zarr";
  TempDir dir;
  const ca::DType dtypes[] = {CA_BOOL,   CA_INT8,    CA_INT16,   CA_INT32,     CA_INT64,     CA_UINT8,   CA_UINT16,
                              CA_UINT32, CA_UINT64,  CA_FLOAT32, CA_FLOAT64, CA_COMPLEX64, CA_COMPLEX128};
  const io::Compressor comps[] = {
      io::Compressor::none(),          io::Compressor::zlib(1),         io::Compressor::gzip(6),
      io::Compressor::zstd(3),         io::Compressor::blosc("lz4", 5, 0), io::Compressor::blosc("lz4", 5, 1),
      io::Compressor::blosc("lz4", 5, 2), io::Compressor::blosc("zstd", 3, 0), io::Compressor::blosc("zstd", 3, 1),
      io::Compressor::blosc("zstd", 3, 2), io::Compressor::blosc("blosclz", 5, 0),
      io::Compressor::blosc("blosclz", 5, 1), io::Compressor::blosc("blosclz", 5, 2),
      io::Compressor::blosc("lz4hc", 4, 1), io::Compressor::blosc("zlib", 1, 1), io::Compressor::blosc("lz4", 5, -1)};
  struct Geom {
    std::vector<Index> shape, chunks, block;
  };
  const Geom geoms[] = {{{7, 5}, {3, 2}, {6, 4}},          // chunk-aligned blocks, ragged edges
                        {{5, 4, 3}, {2, 3, 2}, {3, 4, 3}},  // blocks cutting chunks: read-modify-write
                        {{10}, {4}, {10}},
                        {{6, 7}, {6, 7}, {4, 5}}};
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  std::vector<WriteCase> cases;
  int i = 0;
  for (ca::DType t : dtypes) {
    for (bool big : {false, true}) {
      if (big && ca::dtype_size(t) == 1) continue;
      for (char order : {'C', 'F'}) {
        for (const io::Compressor &comp : comps) {
          const Geom &g = geoms[i % 4];
          WriteCase c;
          c.meta = io::make_zarr_meta(t, g.shape, g.chunks);
          c.meta.big_endian = big;
          c.meta.order = order;
          c.meta.compressor = comp;
          c.meta.dimension_separator = i % 2 ? '/' : '.';
          switch (ca::dtype_kind(t)) {
            case 'b': c.meta.fill_value = i % 3 == 0 ? io::FillValue{} : io::FillValue{i % 3 == 1}; break;
            case 'i': c.meta.fill_value = i % 3 == 0 ? io::FillValue{} : io::FillValue{int64_t(i % 3 == 1 ? -1 : 5)}; break;
            case 'u':
              c.meta.fill_value = i % 3 == 0 ? io::FillValue{}
                                             : io::FillValue{t == CA_UINT64 && i % 3 == 2 ? std::numeric_limits<uint64_t>::max() : uint64_t(7)};
              break;
            case 'f': {
              const io::FillValue f[] = {nan, inf, -inf, {}, 0.25};
              c.meta.fill_value = f[i % 5];
              break;
            }
            default: {
              const io::FillValue f[] = {std::complex<double>(nan, inf), {}, std::complex<double>(1, -2), 0.0};
              c.meta.fill_value = f[i % 4];
            }
          }
          c.block = g.block;
          if (i % 3 == 1) c.missing_from = g.shape[0] - 1;
          c.name = ca::str("w", i, "_", ca::dtype_name(t), big ? "_be_" : "_le_", order, "_",
                           comp.is_none() ? "none" : comp.id + (comp.id == "blosc" ? "-" + comp.cname + std::to_string(comp.shuffle) : ""));
          cases.push_back(std::move(c));
          ++i;
        }
      }
    }
  }
  {
    WriteCase c;  // 0-d
    c.name = "w_0d";
    c.meta = io::make_zarr_meta(CA_COMPLEX128, {}, {});
    c.meta.big_endian = true;
    c.meta.compressor = io::Compressor::zstd(1);
    cases.push_back(c);
    c.name = "w_empty";  // no chunks at all
    c.meta = io::make_zarr_meta(CA_FLOAT32, {4, 0}, {2, 3});
    c.block = {4, 0};
    cases.push_back(c);
  }
  json manifest = json::array();
  for (WriteCase &c : cases) {
    SCOPED_TRACE(c.name);
    std::string path = dir / c.name;
    const int nd = c.meta.ndim();
    ca::BlockRef data(ca::block_new(c.meta.dtype, nd, c.meta.shape.data()));
    fill_values(*data.get(), std::hash<std::string>{}(c.name));
    // Expected values: data, with unwritten rows at fill_value (zero for a null fill).
    Index first_missing_row = -1;
    if (c.missing_from >= 0) {
      first_missing_row = (c.missing_from + c.meta.chunks[0] - 1) / c.meta.chunks[0] * c.meta.chunks[0];
      if (first_missing_row >= c.meta.shape[0]) first_missing_row = -1;
    }
    ca::BlockRef expect(ca::block_new(c.meta.dtype, nd, c.meta.shape.data()));
    std::memcpy(expect->data, data->data, size_t(data->nbytes));
    std::string attrs;
    if (c.meta.dtype == CA_FLOAT64) attrs = ca::str("{\"case\": \"", c.name, "\", \"n\": [1, 2.5, null]}");
    try {
      io::create_zarr_array(path, c.meta, attrs);
      if (nd == 0) {
        io::write_zarr_region(path, c.meta, {}, *data.get());
      } else {
        // Blocks of c.block over the array; rows >= first_missing_row left out.
        Index rows = first_missing_row >= 0 ? first_missing_row : c.meta.shape[0];
        std::vector<Index> start(nd, 0);
        while (true) {
          std::vector<Index> ext(nd);
          for (int d = 0; d < nd; ++d) ext[d] = std::min(c.block[d], (d == 0 ? rows : c.meta.shape[d]) - start[d]);
          ca::BlockRef b(ca::block_new(c.meta.dtype, nd, ext.data()));
          std::vector<Index> zero(nd, 0);
          io::copy_box(b->data, ext.data(), zero.data(), data->data, data->shape, start.data(), ext.data(), nd,
                       c.meta.itemsize());
          io::write_zarr_region(path, c.meta, start, *b.get());
          int d = nd - 1;
          for (; d >= 0; --d) {
            start[d] += c.block[d];
            if (start[d] < (d == 0 ? rows : c.meta.shape[d])) break;
            start[d] = 0;
          }
          if (d < 0 || rows == 0) break;
        }
        if (first_missing_row >= 0) {
          Index row_elems = expect->size / c.meta.shape[0];
          auto fb = c.meta.fill_bytes();
          io::fill_elements(static_cast<char *>(expect->data) + first_missing_row * row_elems * c.meta.itemsize(),
                            (c.meta.shape[0] - first_missing_row) * row_elems, fb.data(), c.meta.itemsize());
        }
      }
      io::write_npy(path + ".npy", *expect.get());
    } catch (const ca::Error &e) {
      ADD_FAILURE() << "code " << e.code() << ": " << e.what();
      continue;
    }
    json m;
    m["name"] = c.name;
    m["dtype"] = c.meta.typestr();
    m["order"] = std::string(1, c.meta.order);
    m["shape"] = c.meta.shape;
    m["chunks"] = c.meta.chunks;
    json comp = json::object();
    if (!c.meta.compressor.is_none()) {
      comp["id"] = c.meta.compressor.id;
      if (c.meta.compressor.id == "blosc") {
        comp["cname"] = c.meta.compressor.cname;
        comp["shuffle"] = c.meta.compressor.shuffle;
      }
    }
    m["compressor"] = comp;
    // The fill value as Python's complex() or None will compare it.
    std::visit(
        [&](auto &&x) {
          using V = std::decay_t<decltype(x)>;
          auto num = [](double v) -> json {
            if (std::isnan(v)) return "nan";
            if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
            return v;
          };
          if constexpr (std::is_same_v<V, std::monostate>) m["fill"] = nullptr;
          else if constexpr (std::is_same_v<V, std::complex<double>>)
            m["fill"] = json::array({num(x.real()), num(x.imag())});
          else if constexpr (std::is_same_v<V, double>) m["fill"] = num(x);
          else if constexpr (std::is_same_v<V, bool>) m["fill"] = int(x);
          else m["fill"] = x;
        },
        c.meta.fill_value);
    if (!attrs.empty()) m["attrs"] = json::parse(attrs);
    if (first_missing_row >= 0) {
      std::vector<Index> idx(nd, 0);
      idx[0] = c.meta.chunk_grid()[0] - 1;
      m["missing"] = json::array({io::zarr_chunk_key(c.meta, idx)});
      m["rows"] = first_missing_row;
    }
    manifest.push_back(m);
  }
  ca::test::write_text(dir / "manifest.json", manifest.dump());
  std::string checks = kPythonChecks;
  std::string log;
  EXPECT_EQ(ca::test::run_python(dir, checks, dir.path(), &log), 0) << log;
  EXPECT_GT(manifest.size(), 700u);
}

// Groups: python builds a hierarchy, we list it; we build one, python walks it.
TEST(ZarrInterop, Groups) {
  if (!ca::test::python_has_zarr()) GTEST_SKIP() << CA_PYTHON << " lacks numpy/zarr";
  TempDir dir;
  const char *py_writes = R"PY(
import sys, os, zarr, numpy as np
g = zarr.open_group(os.path.join(sys.argv[1], 'pyg'), mode='w')
g.attrs['title'] = 'from python'
g.create_group('sub').create_dataset('inner', data=np.arange(6, dtype='<i4').reshape(2, 3), chunks=(1, 2))
g.create_dataset('a', data=np.linspace(0, 1, 9), chunks=(4,))
g.create_group('b')
)PY";
  std::string log;
  ASSERT_EQ(ca::test::run_python(dir, py_writes, dir.path(), &log), 0) << log;
  std::string pyg = dir / "pyg";
  EXPECT_TRUE(io::is_zarr_group(pyg));
  EXPECT_EQ(io::list_group(pyg), (std::vector<io::ZarrMember>{{"a", false}, {"b", true}, {"sub", true}}));
  EXPECT_EQ(io::list_group(pyg + "/sub"), (std::vector<io::ZarrMember>{{"inner", false}}));
  EXPECT_NE(io::read_zattrs(pyg).find("from python"), std::string::npos);
  io::ZarrMeta inner = io::read_zarr_meta(pyg + "/sub/inner");
  ca::BlockRef v = io::read_zarr_region(pyg + "/sub/inner", inner, std::vector<Index>{0, 0}, inner.shape);
  for (int k = 0; k < 6; ++k) EXPECT_EQ(v.data<int32_t>()[k], k);

  std::string ours = dir / "ours";
  io::create_group(ours, R"({"title": "from chunkarray", "version": 1})");
  io::create_group(ours + "/nested");
  io::ZarrMeta m = io::make_zarr_meta(CA_INT64, {5}, {2});
  m.compressor = io::Compressor::blosc("zstd", 5, 1);
  io::create_zarr_array(ours + "/nested/x", m, R"({"units": "m"})");
  ca::BlockRef b(ca::block_new(CA_INT64, 1, m.shape.data()));
  for (int k = 0; k < 5; ++k) b.data<int64_t>()[k] = k * 10;
  io::write_zarr_region(ours + "/nested/x", m, std::vector<Index>{0}, *b.get());
  EXPECT_THROW(io::create_zarr_array(ours + "/nested/x", m), ca::Error);  // exists, no overwrite
  EXPECT_THROW(io::create_group(ours + "/nested/x"), ca::Error);         // an array is there
  const char *py_checks = R"PY(
import sys, os, zarr, numpy as np
g = zarr.open_group(os.path.join(sys.argv[1], 'ours'), mode='r')
assert g.attrs.asdict() == {'title': 'from chunkarray', 'version': 1}, g.attrs.asdict()
assert list(g.group_keys()) == ['nested'], list(g.group_keys())
x = g['nested/x']
assert x.attrs['units'] == 'm'
assert (x[:] == np.arange(5) * 10).all(), x[:]
assert x.compressor.cname == 'zstd'
print('ok')
)PY";
  EXPECT_EQ(ca::test::run_python(dir, py_checks, dir.path(), &log), 0) << log;
}

}  // namespace
