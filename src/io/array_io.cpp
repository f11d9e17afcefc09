// from_zarr / to_zarr / from_npy / to_npy: symbolic read layers and streaming writes.
#include "io/array_io.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <memory>
#include <mutex>
#include <new>
#include <type_traits>
#include <unordered_map>

#include "core/checked.hpp"
#include "core/error.hpp"
#include "graph/graph.hpp"
#include "graph/layer.hpp"
#include "graph/plan.hpp"
#include "io/fs.hpp"
#include "io/hdf5.hpp"
#include "io/npy.hpp"
#include "io/npy_stack_info.hpp"
#include "array/shape.hpp"
#include "array/rechunk.hpp"
#include "io/zarr_array.hpp"
#include "kernel/adapter.hpp"

namespace ca::io {

namespace {

BlockwiseArg special(int32_t which) {
  BlockwiseArg b;
  b.special = which;
  b.block_index = which == BlockwiseArg::BlockIndex;
  return b;
}

BlockwiseArg lit_str(const std::string &s) {
  ca_arg_t a = ca_arg_bytes(s.data(), s.size());
  a.kind = CA_ARG_STRING;
  return blockwise_literal(a);
}

// An array whose one layer is a blockwise layer without inputs over `chunks`.
ArrayPtr source_array(const std::string &name, const std::string &kernel, std::vector<BlockwiseArg> args,
                      const Chunks &chunks, DType dtype) {
  auto layer = std::make_shared<BlockwiseLayer>(name, chunks, kernel, std::vector<std::string>{}, std::move(args));
  auto g = std::make_shared<Graph>();
  g->add_layer(layer);
  return array_from_layer(g, name, chunks, dtype);
}

void check_chunks(const Chunks &chunks, const std::vector<Index> &shape, const char *what) {
  CA_CHECK(chunks.size() == shape.size(), CA_EINVAL, what, ": chunks have ", chunks.size(), " dimensions, the array ",
           shape.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    CA_CHECK(!chunks[d].empty(), CA_EINVAL, what, ": no blocks along axis ", d);
    for (Index c : chunks[d]) CA_CHECK(c >= 0, CA_EINVAL, what, ": negative block size ", c, " along axis ", d);
    const Index sum = chunks_sum(chunks[d], d, what);
    CA_CHECK(sum == shape[d], CA_EINVAL, what, ": chunks along axis ", d, " sum to ", sum, ", shape is ", shape[d]);
  }
}

// ---- ca.zarr_read(path, zarray_json, origin, shape) ------------------------------------------------

Block *k_zarr_read(const KernelArgs &a) {
  const char *k = a.kernel();
  a.expect(4);
  std::string path(a.bytes(0, "path"));
  ZarrMeta meta = parse_zarray(std::string(a.bytes(1, ".zarray")), path + "/.zarray");
  auto origin = a.tuple(2, "origin"), shape = a.tuple(3, "shape");
  CA_CHECK(int(origin.size()) == meta.ndim() && int(shape.size()) == meta.ndim(), CA_EINVAL, k,
           ": block has ", shape.size(), " dimensions, the store ", meta.ndim());
  std::vector<Index> stop(origin.begin(), origin.end());
  for (size_t d = 0; d < stop.size(); ++d) stop[d] += shape[d];
  return read_zarr_region(path, meta, origin, stop).release();
}

// ---- npy: shared mappings ---------------------------------------------------------------------------

struct FileId {
  std::string key;  // path + device/inode/size/mtime: a replaced file is a different file
};

FileId file_id(const std::string &path) {
  struct stat st{};
  CA_CHECK(::stat(path.c_str(), &st) == 0, CA_ENOTFOUND, "no such file: ", path);
  return {path + '\0' + std::to_string(st.st_dev) + ':' + std::to_string(st.st_ino) + ':' +
          std::to_string(st.st_size) + ':' + std::to_string(st.st_mtim.tv_sec) + '.' +
          std::to_string(st.st_mtim.tv_nsec)};
}

// Tasks of one compute share a mapping while any of its blocks lives (weak cache, keyed by file id).
std::shared_ptr<const NpyFile> open_npy_shared(const std::string &path) {
  static std::mutex mu;
  static std::unordered_map<std::string, std::weak_ptr<const NpyFile>> cache;
  FileId id = file_id(path);
  {
    std::lock_guard<std::mutex> lk(mu);
    auto it = cache.find(id.key);
    if (it != cache.end()) {
      if (auto f = it->second.lock()) return f;
    }
  }
  auto f = NpyFile::open(path);
  std::lock_guard<std::mutex> lk(mu);
  for (auto it = cache.begin(); it != cache.end();) it = it->second.expired() ? cache.erase(it) : std::next(it);
  cache[id.key] = f;
  return f;
}

// ---- ca.npy_read(path, dtype, file_shape, origin, shape) --------------------------------------------

Block *k_npy_read(const KernelArgs &a) {
  const char *k = a.kernel();
  CA_CHECK(a.size() == 5 && a[1].kind == CA_ARG_INT64, CA_EINVAL, k, ": expected (path, dtype, shape, origin, shape)");
  std::string path(a.bytes(0, "path"));
  DType dtype = DType(a.int64(1, "dtype"));
  auto fshape = a.tuple(2, "file shape"), origin = a.tuple(3, "origin"), shape = a.tuple(4, "shape");
  auto f = open_npy_shared(path);
  const NpyHeader &h = f->header();
  CA_CHECK(h.dtype == dtype && std::equal(h.shape.begin(), h.shape.end(), fshape.begin(), fshape.end()), CA_EFORMAT,
           k, ": ", path, " changed since the array was created (dtype ", dtype_name(h.dtype), ", ", h.shape.size(),
           " dimensions now)");
  CA_CHECK(origin.size() == fshape.size() && shape.size() == fshape.size(), CA_EINVAL, k, ": block has ",
           shape.size(), " dimensions, the file ", fshape.size());
  std::vector<Index> stop(origin.begin(), origin.end());
  for (size_t d = 0; d < stop.size(); ++d) stop[d] += shape[d];
  return f->read_region(origin, stop).release();
}

// ---- ca.hdf5_read(path, dataset, dtype, origin, shape) ----------------------------------------------

Block *k_hdf5_read(const KernelArgs &a) {
  const char *k = a.kernel();
  CA_CHECK(a.size() == 5 && a[2].kind == CA_ARG_INT64, CA_EINVAL, k, ": expected (path, dataset, dtype, origin, shape)");
  std::string path(a.bytes(0, "path")), dataset(a.bytes(1, "dataset"));
  DType dtype = DType(a.int64(2, "dtype"));
  auto origin = a.tuple(3, "origin"), shape = a.tuple(4, "shape");
  CA_CHECK(origin.size() == shape.size(), CA_EINVAL, k, ": origin and shape differ in length");
  std::vector<Index> stop(origin.begin(), origin.end());
  for (size_t d = 0; d < stop.size(); ++d) stop[d] += shape[d];
  return read_h5_region(path, dataset, dtype, origin, stop).release();
}

// ---- streaming computes -------------------------------------------------------------------------------

// Compute every block of `a`, calling write(origin, block) for each (concurrently, on worker threads).
template <class Fn>
void compute_blocks(Executor &ex, const KernelRegistry &reg, const ArrayPtr &a, const RunOptions &run0, Fn &&write) {
  const Index nb = a->nblocks();
  const size_t nd = size_t(a->ndim());
  std::vector<Index> idx(size_t(nb) * nd);
  std::vector<KeyRef> refs;
  refs.reserve(size_t(nb));
  for (Index lin = 0; lin < nb; ++lin) {
    Index r = lin;
    for (size_t d = nd; d-- > 0;) {
      idx[size_t(lin) * nd + d] = r % a->numblocks[d];
      r /= a->numblocks[d];
    }
    refs.push_back({a->name.c_str(), idx.data() + size_t(lin) * nd, a->ndim()});
  }
  auto offs = chunk_offsets(a->chunks);
  auto plan = build_plan(*a->graph, refs.data(), refs.size(), &reg, run0.max_tasks);
  RunOptions run = run0;
  run.on_output = [&](size_t i, const Block *b) {
    const Index *bi = idx.data() + i * nd;
    CA_CHECK(b->ndim == a->ndim() && b->dtype == a->dtype, CA_EKERNEL, "block ", i, " of ", a->name,
             " has the wrong dimensions or dtype");
    std::vector<Index> origin(nd);
    for (size_t d = 0; d < nd; ++d) {
      origin[d] = offs[d][size_t(bi[d])];
      CA_CHECK(b->shape[d] == a->chunks[d][size_t(bi[d])], CA_EKERNEL, "block ", i, " of ", a->name, " has extent ",
               b->shape[d], " along axis ", d, ", its chunks say ", a->chunks[d][size_t(bi[d])]);
    }
    if constexpr (std::is_invocable_v<Fn &, const std::vector<Index> &, const Block &, const Index *>)
      write(origin, *b, bi);
    else
      write(origin, *b);
  };
  ex.run(*plan, run);
}

}  // namespace

// ---- zarr ---------------------------------------------------------------------------------------------

ArrayPtr from_zarr(const std::string &path, const std::optional<Chunks> &chunks) {
  ZarrMeta meta = read_zarr_meta(path);
  std::string json = zarray_to_json(meta);
  Chunks ch;
  if (chunks) {
    check_chunks(*chunks, meta.shape, "from_zarr");
    ch = *chunks;
  } else {
    for (int d = 0; d < meta.ndim(); ++d) ch.push_back(blocks_of(meta.shape[size_t(d)], meta.chunks[size_t(d)]));
  }
  std::string name = Tokenizer("from-zarr").add(path).add(json).add(ch).name();
  std::vector<BlockwiseArg> args;
  args.push_back(lit_str(path));
  args.push_back(lit_str(json));
  args.push_back(special(BlockwiseArg::BlockOrigin));
  args.push_back(special(BlockwiseArg::BlockShape));
  return source_array(name, "ca.zarr_read", std::move(args), ch, meta.dtype);
}

ZarrWriteOptions zarr_write_options(const Array &a, const ca_zarr_options_t &o, const char *what) {
  ZarrWriteOptions w;
  if (o.chunks) w.chunks.assign(o.chunks, o.chunks + a.ndim());
  std::string comp = o.compressor ? o.compressor : "none";
  if (comp == "none" || comp.empty()) {
    w.compressor = Compressor::none();
  } else if (comp == "zlib") {
    w.compressor = Compressor::zlib(o.level < 0 ? 1 : o.level);
  } else if (comp == "gzip") {
    w.compressor = Compressor::gzip(o.level < 0 ? 1 : o.level);
  } else if (comp == "zstd") {
    w.compressor = Compressor::zstd(o.level < 0 ? 1 : o.level);
  } else if (comp == "blosc") {
    w.compressor = Compressor::blosc(o.blosc_cname ? o.blosc_cname : "lz4", o.level < 0 ? 5 : o.level, o.blosc_shuffle);
  } else {
    fail(CA_EUNSUPPORTED, what, ": unknown compressor \"", comp, "\" (supported: none, zlib, gzip, zstd, blosc)");
  }
  check_compressor(w.compressor);
  if (o.has_fill_value) {
    double v = o.fill_value;
    if (a.dtype == CA_BOOL) {
      w.fill_value = v != 0;
    } else if (dtype_is_integer(a.dtype) && std::isfinite(v) && v == std::trunc(v)) {
      if (v < 0) w.fill_value = int64_t(v);
      else w.fill_value = uint64_t(v);
    } else if (dtype_is_complex(a.dtype)) {
      w.fill_value = std::complex<double>(v, 0.0);
    } else {
      w.fill_value = v;
    }
  }
  w.order = o.order ? o.order : 'C';
  w.dimension_separator = o.dimension_separator ? o.dimension_separator : '.';
  if (o.attrs_json) w.attrs_json = o.attrs_json;
  w.overwrite = o.overwrite != 0;
  return w;
}

std::vector<Index> zarr_store_chunks(const Array &a, const ZarrWriteOptions &opts) {
  if (!opts.chunks.empty() || a.ndim() == 0) {
    CA_CHECK(int32_t(opts.chunks.size()) == a.ndim(), CA_EINVAL, "to_zarr: chunks have ", opts.chunks.size(),
             " dimensions, the array ", a.ndim());
    for (size_t d = 0; d < opts.chunks.size(); ++d)
      CA_CHECK(opts.chunks[d] >= 1, CA_EINVAL, "to_zarr: chunk size ", opts.chunks[d], " along axis ", d,
               " must be at least 1");
    return opts.chunks;
  }
  std::vector<Index> c;
  for (auto &dim : a.chunks) c.push_back(std::max<Index>(dim.empty() ? 1 : dim[0], 1));
  return c;
}

ZarrMeta to_zarr(Executor &ex, const KernelRegistry &reg, const ArrayPtr &a0, const std::string &path,
                 const ZarrWriteOptions &opts, const RunOptions &run) {
  CA_CHECK(a0, CA_EINVAL, "to_zarr: array is null");
  require_known_chunks(*a0, "to_zarr");
  std::vector<Index> sc = zarr_store_chunks(*a0, opts);
  ZarrMeta meta = make_zarr_meta(a0->dtype, a0->shape, sc);
  meta.compressor = opts.compressor;
  meta.fill_value = opts.fill_value;
  meta.order = opts.order;
  meta.dimension_separator = opts.dimension_separator;
  validate_zarr_meta(meta);

  // Every interior block boundary on a chunk boundary: each chunk file belongs to exactly one block.
  ArrayPtr a = a0;
  bool aligned = true;
  for (size_t d = 0; d < sc.size() && aligned; ++d) {
    Index off = 0;
    for (size_t b = 0; b + 1 < a->chunks[d].size(); ++b) {
      off += a->chunks[d][b];
      if (off % sc[d] != 0 && off != a->shape[d]) {
        aligned = false;
        break;
      }
    }
  }
  if (!aligned) {
    Chunks target;
    for (size_t d = 0; d < sc.size(); ++d) target.push_back(blocks_of(a->shape[d], sc[d]));
    a = rechunk(a, target);
  }

  create_zarr_array(path, meta, opts.attrs_json, opts.overwrite);
  compute_blocks(ex, reg, a, run, [&](const std::vector<Index> &origin, const Block &b) {
    if (b.size == 0) return;
    write_zarr_region(path, meta, origin, b);
  });
  return meta;
}

// ---- npy ----------------------------------------------------------------------------------------------

ArrayPtr from_npy(const std::string &path, const std::optional<Chunks> &chunks) {
  FileId id = file_id(path);
  NpyHeader h = read_npy_header(path);
  Chunks ch;
  if (chunks) {
    check_chunks(*chunks, h.shape, "from_npy");
    ch = *chunks;
  } else {
    ch = normalize_chunks({}, h.shape, h.dtype, Index(128) << 20);
  }
  std::string name = Tokenizer("from-npy").add(id.key).add(ch).add(int64_t(h.dtype)).name();
  std::vector<BlockwiseArg> args;
  args.push_back(lit_str(path));
  args.push_back(blockwise_literal(ca_arg_i64(h.dtype)));
  args.push_back(blockwise_literal(ca_arg_tuple(h.shape.data(), h.shape.size())));
  args.push_back(special(BlockwiseArg::BlockOrigin));
  args.push_back(special(BlockwiseArg::BlockShape));
  return source_array(name, "ca.npy_read", std::move(args), ch, h.dtype);
}

void to_npy(Executor &ex, const KernelRegistry &reg, const ArrayPtr &a, const std::string &path,
            const RunOptions &run) {
  CA_CHECK(a, CA_EINVAL, "to_npy: array is null");
  require_known_chunks(*a, "to_npy");
  CA_CHECK(a->dtype != CA_RAW, CA_EUNSUPPORTED, "to_npy: raw blocks have no NumPy dtype");
  NpyWriter w(path, a->dtype, a->shape);
  compute_blocks(ex, reg, a, run, [&](const std::vector<Index> &origin, const Block &b) {
    if (b.size == 0) return;
    w.write_region(origin, b);
  });
  w.commit();
}

// ---- HDF5 ---------------------------------------------------------------------------------------------

ArrayPtr from_hdf5(const std::string &path, const std::string &dataset, const std::string &chunks) {
  H5Meta m = read_h5_meta(path, dataset);
  const Index limit = Index(128) << 20;
  Chunks native;
  if (!m.chunks.empty()) {
    for (size_t d = 0; d < m.shape.size(); ++d) native.push_back(blocks_of(m.shape[d], m.chunks[d]));
  } else {
    native = normalize_chunks(std::vector<DimChunks>(m.shape.size()), m.shape, m.dtype, limit);
  }
  FileId id = file_id(path);
  auto make = [&](const Chunks &ch) {
    std::string name = Tokenizer("from-hdf5").add(id.key).add(dataset).add(ch).add(int64_t(m.dtype)).name();
    std::vector<BlockwiseArg> args;
    args.push_back(lit_str(path));
    args.push_back(lit_str(dataset));
    args.push_back(blockwise_literal(ca_arg_i64(m.dtype)));
    args.push_back(special(BlockwiseArg::BlockOrigin));
    args.push_back(special(BlockwiseArg::BlockShape));
    return source_array(name, "ca.hdf5_read", std::move(args), ch, m.dtype);
  };
  ArrayPtr a = make(native);
  if (chunks.empty()) return a;
  // dask: from_array(dset, chunks) resolves chunks with previous_chunks = dset.chunks; so does
  // rechunk_chunks against an array with the HDF5 chunks. The tasks then read the new boxes directly.
  Chunks want = rechunk_chunks(*a, chunks, limit);
  check_chunks(want, m.shape, "from_hdf5");
  return want == native ? a : make(want);
}

void to_hdf5(Executor &ex, const KernelRegistry &reg, const ArrayPtr &a0, const std::string &path,
             const std::string &dataset, const Hdf5WriteOptions &opts, const RunOptions &run) {
  CA_CHECK(a0, CA_EINVAL, "to_hdf5: array is null");
  require_known_chunks(*a0, "to_hdf5");
  CA_CHECK(!(opts.contiguous && (opts.gzip_level >= 0 || opts.shuffle || !opts.chunks.empty())), CA_EINVAL,
           "to_hdf5: a contiguous dataset has no chunks and no filters (gzip, shuffle)");
  H5WriteOptions w;
  w.gzip_level = opts.gzip_level;
  w.shuffle = opts.shuffle;
  w.overwrite = opts.overwrite;
  if (!opts.contiguous && a0->ndim() > 0) {
    if (!opts.chunks.empty()) {
      CA_CHECK(int(opts.chunks.size()) == a0->ndim(), CA_EINVAL, "to_hdf5: chunks have ", opts.chunks.size(),
               " dimensions, the array ", a0->ndim());
      w.chunks = opts.chunks;
    } else {
      for (auto &dim : a0->chunks) w.chunks.push_back(std::max<Index>(dim.empty() ? 1 : dim[0], 1));
    }
  }
  ArrayPtr a = a0;
  H5Writer writer(path, dataset, a0->dtype, a0->shape, w);
  // Every interior block boundary on an HDF5 chunk boundary: each block is whole chunks, written
  // directly (and no two tasks share a chunk).
  if (!w.chunks.empty()) {
    bool aligned = true;
    for (size_t d = 0; d < w.chunks.size() && aligned; ++d) {
      Index off = 0, c = std::min(w.chunks[d], std::max<Index>(a->shape[d], 1));
      for (size_t b = 0; b + 1 < a->chunks[d].size(); ++b) {
        off += a->chunks[d][b];
        if (off % c != 0 && off != a->shape[d]) {
          aligned = false;
          break;
        }
      }
    }
    if (!aligned) {
      Chunks target;
      for (size_t d = 0; d < w.chunks.size(); ++d)
        target.push_back(blocks_of(a->shape[d], std::min(w.chunks[d], std::max<Index>(a->shape[d], 1))));
      a = rechunk(a, target);
    }
  }
  compute_blocks(ex, reg, a, run, [&](const std::vector<Index> &origin, const Block &b) {
    writer.write_region(origin, b);
  });
  writer.close();
}

// ---- npy stacks -----------------------------------------------------------------------------------------

void to_npy_stack(Executor &ex, const KernelRegistry &reg, const ArrayPtr &a0, const std::string &dir, int axis,
                  const RunOptions &run) {
  CA_CHECK(a0, CA_EINVAL, "to_npy_stack: array is null");
  require_known_chunks(*a0, "to_npy_stack");
  const int nd = a0->ndim();
  CA_CHECK(nd > 0, CA_EINVAL, "to_npy_stack: a 0-d array has no axis to stack along");
  CA_CHECK(axis >= -nd && axis < nd, CA_EINVAL, "to_npy_stack: axis ", axis, " is out of range for ", nd,
           " dimensions");
  if (axis < 0) axis += nd;
  CA_CHECK(a0->dtype != CA_RAW, CA_EUNSUPPORTED, "to_npy_stack: raw blocks have no NumPy dtype");
  NpyStackInfo info;
  info.axis = axis;
  info.dtype = a0->dtype;
  Chunks target;
  for (int d = 0; d < nd; ++d) target.push_back(d == axis ? a0->chunks[d] : std::vector<Index>{a0->shape[d]});
  info.chunks = target;
  std::string pickle = write_npy_stack_info(info);  // before anything is written: an unnamable dtype fails here
  ArrayPtr a = rechunk(a0, target);
  CA_CHECK(!path_exists(dir) || is_directory(dir), CA_EEXISTS, "to_npy_stack: '", dir, "' exists and is not a directory");
  make_dirs(dir);
  write_file_atomic(join_path(dir, "info"), pickle.data(), pickle.size());
  compute_blocks(ex, reg, a, run, [&](const std::vector<Index> &, const Block &b, const Index *bi) {
    write_npy(join_path(dir, std::to_string(bi[axis]) + ".npy"), b);
  });
}

ArrayPtr from_npy_stack(const std::string &dir) {
  std::string info_path = join_path(dir, "info");
  CA_CHECK(path_exists(info_path), CA_ENOTFOUND, "from_npy_stack: no npy stack at '", dir, "' (no '", info_path, "')");
  auto bytes = read_file_if_exists(info_path, size_t(1) << 20, "npy stack info");
  CA_CHECK(bytes.has_value(), CA_ENOTFOUND, "from_npy_stack: no '", info_path, "'");
  NpyStackInfo info = parse_npy_stack_info(*bytes, "npy stack info '" + info_path + "'");
  const int nd = int(info.chunks.size());
  for (int d = 0; d < nd; ++d)
    CA_CHECK(d == info.axis || info.chunks[d].size() == 1, CA_EFORMAT, "'", info_path, "': chunks along axis ", d,
             " are ", info.chunks[d].size(), " blocks; an npy stack has one file per block along axis ", info.axis,
             " only");
  std::vector<ArrayPtr> parts;
  for (size_t i = 0; i < info.chunks[info.axis].size(); ++i) {
    std::string f = join_path(dir, std::to_string(i) + ".npy");
    NpyHeader h = read_npy_header(f);
    CA_CHECK(h.dtype == info.dtype, CA_EFORMAT, "from_npy_stack: '", f, "' has dtype ", dtype_name(h.dtype),
             ", the stack's info says ", dtype_name(info.dtype));
    CA_CHECK(int(h.shape.size()) == nd, CA_EFORMAT, "from_npy_stack: '", f, "' has ", h.shape.size(),
             " dimensions, the stack's info ", nd);
    Chunks one;
    for (int d = 0; d < nd; ++d) {
      Index want = d == info.axis ? info.chunks[d][i] : info.chunks[d][0];
      CA_CHECK(h.shape[d] == want, CA_EFORMAT, "from_npy_stack: '", f, "' has extent ", h.shape[d], " along axis ",
               d, ", the stack's info says ", want);
      one.push_back({want});
    }
    parts.push_back(from_npy(f, one));
  }
  return parts.size() == 1 ? parts[0] : concatenate(parts, info.axis);
}

}  // namespace ca::io

namespace ca {

void register_io_kernels(KernelRegistry &reg) {
  using namespace ca::io;
  register_builtin<k_zarr_read>(reg, "ca.zarr_read");
  register_builtin<k_npy_read>(reg, "ca.npy_read");
  register_builtin<k_hdf5_read>(reg, "ca.hdf5_read");
}

}  // namespace ca
