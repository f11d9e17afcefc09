// NumPy .npy files: header parsing (format 1.0, 2.0, 3.0), lazy memory-mapped reads, and writes.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/block.hpp"

namespace ca::io {

struct NpyHeader {
  DType dtype = CA_DTYPE_INVALID;
  bool big_endian = false;     ///< items stored big-endian ('>' descr, items above 1 byte)
  bool fortran_order = false;  ///< items stored in F order
  std::vector<Index> shape;
  size_t data_offset = 0;      ///< byte offset of the first item
  int major = 1, minor = 0;    ///< format version
  size_t nbytes() const noexcept;
};

/// Parse the header at the start of `data` (at least the whole header). `where` names the file in
/// messages. Throws CA_EFORMAT (bad magic, truncated or malformed header), CA_EVERSION (format > 3),
/// CA_EUNSUPPORTED (structured, object, string, datetime or float16 dtypes).
NpyHeader parse_npy_header(const void *data, size_t size, const std::string &where = ".npy file");
/// Read and parse the header of the file at `path`. CA_ENOTFOUND, CA_EIO, or as parse_npy_header().
NpyHeader read_npy_header(const std::string &path);

/// A memory-mapped .npy file, read lazily: pages are touched only when a region is read. Immutable and
/// shareable between threads; blocks handed out keep the mapping alive. The file must not be truncated
/// while mapped.
class NpyFile : public std::enable_shared_from_this<NpyFile> {
 public:
  /// Map `path`. Throws as read_npy_header(), and CA_EFORMAT if the file is shorter than its header says.
  static std::shared_ptr<const NpyFile> open(const std::string &path);
  ~NpyFile();
  NpyFile(const NpyFile &) = delete;
  NpyFile &operator=(const NpyFile &) = delete;

  const NpyHeader &header() const noexcept { return header_; }
  const std::string &path() const noexcept { return path_; }
  int ndim() const noexcept { return int(header_.shape.size()); }
  DType dtype() const noexcept { return header_.dtype; }

  /// The box [start, stop) as a block (native byte order, C order). When the file is little-endian,
  /// C-ordered, the box is contiguous in it and 64-byte aligned, the block points into the mapping
  /// without a copy; otherwise the box is copied and converted. CA_EINVAL for a box outside the array.
  BlockRef read_region(std::span<const Index> start, std::span<const Index> stop) const;
  /// The whole array.
  BlockRef read() const;

 private:
  NpyFile() = default;
  std::string path_;
  NpyHeader header_;
  void *map_ = nullptr;
  size_t map_size_ = 0;
};

/// Read a whole .npy file (through NpyFile).
BlockRef read_npy(const std::string &path);

/// Write `block` as a format 1.0 .npy file (2.0 if the header needs it), little-endian C order, header
/// padded so the data starts at a multiple of 64 bytes, as NumPy does. Written atomically.
void write_npy(const std::string &path, const Block &block);

/// Writes a .npy file block by block with bounded memory (the array layer's to_npy): the file is created
/// at its full size under a temporary name, regions are written in place (pwrite; different regions may be
/// written concurrently from several threads), commit() renames it into place. Destroying an uncommitted
/// writer removes the temporary file.
class NpyWriter {
 public:
  NpyWriter(const std::string &path, DType dtype, std::vector<Index> shape);
  ~NpyWriter();
  NpyWriter(const NpyWriter &) = delete;
  NpyWriter &operator=(const NpyWriter &) = delete;

  /// Write `block` (dtype and ndim of the file) into the box starting at `start`.
  void write_region(std::span<const Index> start, const Block &block);
  /// Flush, close and rename into place. Throws CA_EIO.
  void commit();

 private:
  std::string path_, tmp_;
  DType dtype_;
  std::vector<Index> shape_;
  size_t data_offset_ = 0;
  int fd_ = -1;
};

}  // namespace ca::io
