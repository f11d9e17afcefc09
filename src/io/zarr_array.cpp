#include "io/zarr_array.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string_view>

#include "core/error.hpp"
#include "io/fs.hpp"
#include "io/layout.hpp"

namespace ca::io {

namespace {

// Chunk-sized scratch from the big-buffer cache (core/big_buffer.hpp): reused pages, no zero fill.
struct Buffer {
  detail::BigBuffer b;
  unsigned char *get() const noexcept { return reinterpret_cast<unsigned char *>(b.data()); }
  void reset() noexcept { b.reset(); }
};
Buffer make_buffer(size_t n) { return Buffer{detail::BigBuffer(n)}; }

void check_chunk_index(const ZarrMeta &meta, std::span<const Index> idx) {
  CA_CHECK(int(idx.size()) == meta.ndim(), CA_EINVAL, "chunk index has ", idx.size(), " entries, the array has ",
           meta.ndim(), " dimensions");
  auto grid = meta.chunk_grid();
  for (int d = 0; d < meta.ndim(); ++d)
    CA_CHECK(idx[d] >= 0 && idx[d] < grid[d], CA_EINVAL, "chunk index ", idx[d], " along axis ", d,
             " is outside the chunk grid 0..", grid[d] - 1);
}

std::string chunk_file(const std::string &path, const ZarrMeta &meta, std::span<const Index> idx) {
  return join_path(path, zarr_chunk_key(meta, idx));
}

// Decode chunk `idx` into `dst` (full chunk, native C order). False if the chunk file is missing.
bool load_chunk(const std::string &path, const ZarrMeta &meta, std::span<const Index> idx, void *dst) {
  std::string file = chunk_file(path, meta, idx);
  const size_t nb = meta.chunk_nbytes();
  const int nd = meta.ndim();
  const bool fortran = meta.order == 'F' && !order_is_irrelevant(nd, meta.chunks.data());
  if (meta.compressor.id.empty() && !fortran) {  // uncompressed C order: straight into the block
    if (!read_exact_if_exists(file, dst, nb, file)) return false;
    if (meta.big_endian) byteswap_elements(dst, meta.chunk_elems(), meta.dtype);
    return true;
  }
  auto data = read_file_big_if_exists(file, max_encoded_size(meta.compressor, nb), "chunk file");
  if (!data) return false;
  if (!fortran) {
    decode_chunk_mutable_src(meta.compressor, data->data(), data->size(), dst, nb, file);
  } else {
    Buffer tmp = make_buffer(nb);
    decode_chunk_mutable_src(meta.compressor, data->data(), data->size(), tmp.get(), nb, file);
    data.reset();
    auto fs = byte_strides(nd, meta.chunks.data(), meta.itemsize(), true);
    auto cs = byte_strides(nd, meta.chunks.data(), meta.itemsize(), false);
    copy_strided(dst, cs.data(), tmp.get(), fs.data(), nd, meta.chunks.data(), meta.itemsize());
  }
  if (meta.big_endian) byteswap_elements(dst, meta.chunk_elems(), meta.dtype);
  return true;
}

// Encode `src` (full chunk, native C order) and write it atomically.
void store_chunk(const std::string &path, const ZarrMeta &meta, std::span<const Index> idx, const void *src) {
  const size_t nb = meta.chunk_nbytes();
  const int nd = meta.ndim();
  const bool fortran = meta.order == 'F' && !order_is_irrelevant(nd, meta.chunks.data());
  Buffer tmp;
  const void *enc = src;
  if (fortran || meta.big_endian) {
    tmp = make_buffer(nb);
    if (fortran) {
      auto fs = byte_strides(nd, meta.chunks.data(), meta.itemsize(), true);
      auto cs = byte_strides(nd, meta.chunks.data(), meta.itemsize(), false);
      copy_strided(tmp.get(), fs.data(), src, cs.data(), nd, meta.chunks.data(), meta.itemsize());
    } else {
      std::memcpy(tmp.get(), src, nb);
    }
    if (meta.big_endian) byteswap_elements(tmp.get(), meta.chunk_elems(), meta.dtype);
    enc = tmp.get();
  }
  if (meta.compressor.id.empty()) {  // uncompressed: write the bytes as they are, no copy
    write_file_atomic(chunk_file(path, meta, idx), enc, nb);
    return;
  }
  detail::BigBuffer bytes = encode_chunk_big(meta.compressor, enc, nb, meta.itemsize());
  tmp.reset();
  write_file_atomic(chunk_file(path, meta, idx), bytes.data(), bytes.size());
}

void fill_chunk(const ZarrMeta &meta, void *dst, Index nelem) {
  auto fb = meta.fill_bytes();
  fill_elements(dst, nelem, fb.data(), meta.itemsize());
}

void check_block(const ZarrMeta &meta, const Block &b, const char *what) {
  CA_CHECK(b.dtype == meta.dtype, CA_ETYPE, what, " has dtype ", dtype_name(b.dtype), ", the zarr array has ",
           dtype_name(meta.dtype));
  CA_CHECK(b.ndim == meta.ndim(), CA_EINVAL, what, " has ", b.ndim, " dimensions, the zarr array has ",
           meta.ndim());
}

// Calls f(chunk_index) for every chunk overlapping [lo, hi) (all extents > 0).
template <class F>
void for_each_chunk(const ZarrMeta &meta, const Index *lo, const Index *hi, F &&f) {
  const int nd = meta.ndim();
  std::vector<Index> first(nd), last(nd), idx(nd);
  for (int d = 0; d < nd; ++d) {
    first[d] = lo[d] / meta.chunks[d];
    last[d] = (hi[d] - 1) / meta.chunks[d];
    idx[d] = first[d];
  }
  while (true) {
    f(std::span<const Index>(idx));
    int d = nd - 1;
    for (; d >= 0; --d) {
      if (++idx[d] <= last[d]) break;
      idx[d] = first[d];
    }
    if (d < 0) return;
  }
}

}  // namespace

std::string zarr_chunk_key(const ZarrMeta &meta, std::span<const Index> idx) {
  if (idx.empty()) return "0";
  std::string key;
  for (size_t d = 0; d < idx.size(); ++d) {
    if (d) key += meta.dimension_separator;
    key += std::to_string(idx[d]);
  }
  return key;
}

namespace {

// A chunk key part: digits, or digits joined by '.' ("0", "12.3.0").
bool is_chunk_name(std::string_view n) noexcept {
  if (n.empty() || n.front() == '.' || n.back() == '.') return false;
  for (size_t i = 0; i < n.size(); ++i) {
    if (n[i] == '.' ? n[i - 1] == '.' : (n[i] < '0' || n[i] > '9')) return false;
  }
  return true;
}

// A temporary of write_file_atomic (".<name>.<pid>-<n>.partial").
bool is_temporary_name(std::string_view n) noexcept { return n.size() > 9 && n[0] == '.' && n.ends_with(".partial"); }

// Collects what overwriting the zarr array in `dir` removes: its metadata, chunk files (nested chunk
// directories for the '/' separator) and temporaries. Anything else is returned in `foreign` (and
// nothing is removed): overwrite only ever replaces a zarr array, never data that merely sits in it.
void collect_array_entries(const std::filesystem::path &dir, bool top, std::vector<std::filesystem::path> &files,
                           std::vector<std::filesystem::path> &dirs, std::string &foreign) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    std::string name = it->path().filename().string();
    fs::file_status st = it->symlink_status(ec);
    if (ec) break;
    bool is_dir = fs::is_directory(st);  // a symbolic link is never followed: it is removed as a file
    if (is_dir && is_chunk_name(name) && name.find('.') == std::string::npos) {
      collect_array_entries(it->path(), false, files, dirs, foreign);
      dirs.push_back(it->path());
    } else if (!is_dir && (is_chunk_name(name) || is_temporary_name(name) ||
                           (top && (name == ".zarray" || name == ".zattrs")))) {
      files.push_back(it->path());
    } else if (foreign.empty()) {
      foreign = it->path().string();
    }
    if (!foreign.empty()) return;
  }
  if (ec) fail(CA_EIO, "cannot list '", dir.string(), "': ", ec.message());
}

}  // namespace

void create_zarr_array(const std::string &path, const ZarrMeta &meta, const std::string &attrs_json,
                       bool overwrite) {
  validate_zarr_meta(meta);
  namespace fs = std::filesystem;
  std::error_code ec;
  if (is_zarr_array(path)) {
    CA_CHECK(overwrite, CA_EEXISTS, "'", path, "' already holds a zarr array (pass overwrite to replace it)");
    CA_CHECK(!fs::is_symlink(fs::symlink_status(path, ec)), CA_EEXISTS, "'", path,
             "' is a symbolic link to a zarr array: overwrite replaces an array only at the path itself");
    // Remove exactly the old array's files, and only if nothing else is there.
    std::vector<fs::path> files, dirs;
    std::string foreign;
    collect_array_entries(path, true, files, dirs, foreign);
    CA_CHECK(foreign.empty(), CA_EEXISTS, "'", path, "' holds a zarr array and also '", foreign,
             "', which is not part of a zarr array: not replaced (remove it yourself)");
    // Chunks first, metadata last: if a removal fails, the directory is still an array to retry on.
    std::stable_partition(files.begin(), files.end(), [](const fs::path &f) {
      return f.filename() != ".zarray" && f.filename() != ".zattrs";
    });
    for (const fs::path &f : files)
      if (!fs::remove(f, ec) && ec) fail(CA_EIO, "cannot remove '", f.string(), "': ", ec.message());
    for (const fs::path &d : dirs)
      if (!fs::remove(d, ec) && ec) fail(CA_EIO, "cannot remove '", d.string(), "': ", ec.message());
  } else if (is_zarr_group(path)) {
    fail(CA_EEXISTS, "'", path, "' is a zarr group; ", overwrite ? "overwrite replaces a zarr array only, never a "
         "group and its members" : "cannot create an array there");
  } else if (is_directory(path)) {
    bool empty = fs::is_empty(path, ec);
    CA_CHECK(!ec && empty, CA_EEXISTS, "'", path, "' is a non-empty directory that is not a zarr store");
  } else if (path_exists(path)) {
    fail(CA_EEXISTS, "'", path, "' exists and is not a directory");
  }
  make_dirs(path);
  write_zarr_meta(path, meta, attrs_json);
}

BlockRef read_zarr_chunk(const std::string &path, const ZarrMeta &meta, std::span<const Index> idx) {
  check_chunk_index(meta, idx);
  BlockRef out(block_new(meta.dtype, meta.ndim(), meta.chunks.data()));
  if (!load_chunk(path, meta, idx, out->data)) fill_chunk(meta, out->data, out->size);
  return out;
}

void write_zarr_chunk(const std::string &path, const ZarrMeta &meta, std::span<const Index> idx,
                      const Block &block) {
  check_chunk_index(meta, idx);
  check_block(meta, block, "chunk block");
  const int nd = meta.ndim();
  bool full = true;
  for (int d = 0; d < nd; ++d) {
    Index inside = std::min(meta.chunks[d], meta.shape[d] - idx[d] * meta.chunks[d]);
    CA_CHECK(block.shape[d] == meta.chunks[d] || block.shape[d] == inside, CA_EINVAL, "chunk block has extent ",
             block.shape[d], " along axis ", d, ", expected ", meta.chunks[d],
             inside != meta.chunks[d] ? str(" or ", inside) : std::string());
    full = full && block.shape[d] == meta.chunks[d];
  }
  if (full) {
    store_chunk(path, meta, idx, block.data);
    return;
  }
  Buffer buf = make_buffer(meta.chunk_nbytes());
  fill_chunk(meta, buf.get(), meta.chunk_elems());
  std::vector<Index> zero(nd, 0);
  copy_box(buf.get(), meta.chunks.data(), zero.data(), block.data, block.shape, zero.data(), block.shape, nd,
           meta.itemsize());
  store_chunk(path, meta, idx, buf.get());
}

BlockRef read_zarr_region(const std::string &path, const ZarrMeta &meta, std::span<const Index> start,
                          std::span<const Index> stop) {
  const int nd = meta.ndim();
  CA_CHECK(int(start.size()) == nd && int(stop.size()) == nd, CA_EINVAL, "region has ", start.size(), "/",
           stop.size(), " bounds, the zarr array has ", nd, " dimensions");
  std::vector<Index> ext(nd);
  for (int d = 0; d < nd; ++d) {
    CA_CHECK(0 <= start[d] && start[d] <= stop[d] && stop[d] <= meta.shape[d], CA_EINVAL, "region [", start[d],
             ", ", stop[d], ") along axis ", d, " is outside the array's extent ", meta.shape[d]);
    ext[d] = stop[d] - start[d];
  }
  // A region that is exactly one full chunk: decode straight into the result.
  bool one_chunk = true;
  for (int d = 0; d < nd; ++d) one_chunk = one_chunk && start[d] % meta.chunks[d] == 0 && ext[d] == meta.chunks[d];
  if (one_chunk) {
    std::vector<Index> idx(nd);
    for (int d = 0; d < nd; ++d) idx[d] = start[d] / meta.chunks[d];
    return read_zarr_chunk(path, meta, idx);
  }
  BlockRef out(block_new(meta.dtype, nd, ext.data()));
  if (out->size == 0) return out;
  Buffer chunk = make_buffer(meta.chunk_nbytes());
  std::vector<Index> lo(nd), src_off(nd), dst_off(nd), box(nd);
  auto fb = meta.fill_bytes();
  for_each_chunk(meta, start.data(), stop.data(), [&](std::span<const Index> idx) {
    for (int d = 0; d < nd; ++d) {
      Index c0 = idx[d] * meta.chunks[d];
      lo[d] = std::max(c0, start[d]);
      Index hi = std::min(c0 + meta.chunks[d], stop[d]);
      box[d] = hi - lo[d];
      src_off[d] = lo[d] - c0;
      dst_off[d] = lo[d] - start[d];
    }
    if (load_chunk(path, meta, idx, chunk.get())) {
      copy_box(out->data, out->shape, dst_off.data(), chunk.get(), meta.chunks.data(), src_off.data(), box.data(),
               nd, meta.itemsize());
    } else {
      // Missing chunk: fill just the overlap (through a one-chunk-sized fill, copied as a box).
      Index n = element_count(nd, box.data());
      fill_elements(chunk.get(), n, fb.data(), meta.itemsize());
      std::vector<Index> zero(nd, 0);
      copy_box(out->data, out->shape, dst_off.data(), chunk.get(), box.data(), zero.data(), box.data(), nd,
               meta.itemsize());
    }
  });
  return out;
}

void write_zarr_region(const std::string &path, const ZarrMeta &meta, std::span<const Index> start,
                       const Block &block) {
  check_block(meta, block, "block");
  const int nd = meta.ndim();
  CA_CHECK(int(start.size()) == nd, CA_EINVAL, "region start has ", start.size(), " entries, the zarr array has ",
           nd, " dimensions");
  std::vector<Index> stop(nd);
  for (int d = 0; d < nd; ++d) {
    stop[d] = start[d] + block.shape[d];
    CA_CHECK(start[d] >= 0 && stop[d] <= meta.shape[d], CA_EINVAL, "block [", start[d], ", ", stop[d],
             ") along axis ", d, " is outside the array's extent ", meta.shape[d]);
  }
  if (block.size == 0) return;
  // A block that is exactly one full chunk (to_zarr's usual case): encoded straight from the block,
  // without a copy into a chunk buffer first.
  bool one_chunk = true;
  for (int d = 0; d < nd; ++d)
    one_chunk = one_chunk && start[d] % meta.chunks[d] == 0 && block.shape[d] == meta.chunks[d];
  if (one_chunk) {
    std::vector<Index> idx(nd);
    for (int d = 0; d < nd; ++d) idx[d] = start[d] / meta.chunks[d];
    store_chunk(path, meta, idx, block.data);
    return;
  }
  Buffer chunk = make_buffer(meta.chunk_nbytes());
  std::vector<Index> lo(nd), src_off(nd), dst_off(nd), box(nd);
  for_each_chunk(meta, start.data(), stop.data(), [&](std::span<const Index> idx) {
    bool covers = true;
    for (int d = 0; d < nd; ++d) {
      Index c0 = idx[d] * meta.chunks[d];
      Index c1 = std::min(c0 + meta.chunks[d], meta.shape[d]);
      lo[d] = std::max(c0, start[d]);
      Index hi = std::min(c1, stop[d]);
      box[d] = hi - lo[d];
      src_off[d] = lo[d] - start[d];
      dst_off[d] = lo[d] - c0;
      covers = covers && lo[d] == c0 && hi == c1;
    }
    bool padded = false;
    for (int d = 0; d < nd; ++d) padded = padded || box[d] != meta.chunks[d];
    if (!covers) {
      if (!load_chunk(path, meta, idx, chunk.get())) fill_chunk(meta, chunk.get(), meta.chunk_elems());
    } else if (padded) {
      fill_chunk(meta, chunk.get(), meta.chunk_elems());
    }
    copy_box(chunk.get(), meta.chunks.data(), dst_off.data(), block.data, block.shape, src_off.data(), box.data(),
             nd, meta.itemsize());
    store_chunk(path, meta, idx, chunk.get());
  });
}

}  // namespace ca::io
