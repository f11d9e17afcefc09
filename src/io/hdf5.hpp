// HDF5 datasets (Debian libhdf5-dev, the serial build): metadata, region reads and chunk-aligned writes.
//
// Thread safety: libhdf5 is thread-safe only when built with --enable-threadsafe (Debian 12's
// 1.10.8 serial flavour is: H5is_library_threadsafe() says true; upstream's default build and other
// distributions' are not), and even then it serializes every API call behind one global lock. So every
// HDF5 call of ours runs under one process-wide mutex (H5Lock in hdf5.cpp): correct on either build,
// and it keeps our multi-call sequences (open, query, close) atomic. What makes reads and writes parallel anyway: for datasets whose stored type equals
// the block's bytes and whose filters are at most shuffle + deflate, a task asks HDF5 (locked) only
// where a chunk lies in the file (H5Dget_chunk_info_by_coord) and then reads it with pread, inflates
// and unshuffles it on its own worker, unlocked; a write shuffles and deflates on the worker and
// hands the finished bytes to H5Dwrite_chunk (locked: only the copy into the file). Unfiltered
// chunks of 1 MiB or more are allocated at creation on page boundaries and written at their
// addresses by the workers, unlocked, with O_DIRECT (docs/hdf5.md: why, and CA_HDF5_ODIRECT=0).
// Contiguous datasets are read with pread at H5Dget_offset and written with (O_DIRECT) pwrite there. Everything else (type conversion, other filters,
// unaligned writes) goes through H5Dread/H5Dwrite of one hyperslab straight into or out of the
// block, locked. docs/hdf5.md measures it.
//
// Without HDF5 (-Dhdf5=disabled, or libhdf5-dev missing with auto) every function throws
// CA_EUNSUPPORTED saying so; hdf5_available() is false.
//
// Errors (ca::Error): CA_ENOTFOUND (no file, no dataset), CA_EFORMAT (not an HDF5 file, corrupt
// metadata or chunk: the message names the file, the dataset and HDF5's innermost message),
// CA_EUNSUPPORTED (a datatype or filter chunkarray cannot read, naming it), CA_EIO, CA_EINVAL,
// CA_EEXISTS (dataset exists without overwrite). HDF5's own error printing is switched off.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/block.hpp"

namespace ca::io {

/// True when this build reads and writes HDF5.
bool hdf5_available() noexcept;

/// What the array layer needs to know of a dataset (read once, at graph time; literal in the graph).
struct H5Meta {
  DType dtype = CA_DTYPE_INVALID;
  std::vector<Index> shape;
  std::vector<Index> chunks;  ///< the dataset's HDF5 chunk shape; empty when not chunked
};

/// The dataset `dataset` ("/group/name" or "name") of the file at `path`. CA_ENOTFOUND, CA_EFORMAT,
/// CA_EUNSUPPORTED (datatype), CA_EIO.
H5Meta read_h5_meta(const std::string &path, const std::string &dataset);

/// The box [start, stop) of the dataset as a new block of `dtype` (what read_h5_meta said; a dataset
/// changed since is CA_EFORMAT). The data goes straight into the block.
BlockRef read_h5_region(const std::string &path, const std::string &dataset, DType dtype,
                        std::span<const Index> start, std::span<const Index> stop);

struct H5WriteOptions {
  std::vector<Index> chunks;  ///< HDF5 chunk shape (each >= 1); empty = contiguous layout
  int gzip_level = -1;        ///< -1 none, 0..9 deflate
  bool shuffle = false;       ///< shuffle before deflate
  bool overwrite = false;     ///< replace an existing dataset of that name
};

/// A dataset being written block by block: the constructor creates it (and the file, and the
/// groups on the path); write_region() may run concurrently from several threads.
class H5Writer {
 public:
  H5Writer(const std::string &path, const std::string &dataset, DType dtype, std::vector<Index> shape,
           const H5WriteOptions &opts);
  ~H5Writer();
  H5Writer(const H5Writer &) = delete;
  H5Writer &operator=(const H5Writer &) = delete;
  /// Write `block` into the box at `start`. A box made of whole chunks (up to the dataset's edge) is
  /// compressed on the calling thread and stored with direct chunk writes.
  void write_region(std::span<const Index> start, const Block &block);
  /// Flush and close the dataset and file. CA_EIO.
  void close();

  struct State;

 private:
  std::unique_ptr<State> st_;
};

/// Microseconds spent waiting for and holding the HDF5 lock since the process started (for
/// docs/hdf5.md's measurements and tests).
struct H5LockStats {
  int64_t acquisitions = 0;
  int64_t wait_us = 0;
  int64_t held_us = 0;
};
H5LockStats hdf5_lock_stats() noexcept;

/// Bytes written with O_DIRECT since the process started (big page-aligned chunk and contiguous
/// writes; docs/hdf5.md). For the tests.
int64_t hdf5_direct_io_bytes() noexcept;

}  // namespace ca::io
