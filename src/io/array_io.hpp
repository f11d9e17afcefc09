// The array layer over storage: dask's from_zarr / to_zarr / from_npy / to_npy.
//
// from_zarr / from_npy build ONE symbolic blockwise layer (nothing per block at graph time): each task
// receives literal store parameters plus its block's origin and shape (BlockOrigin / BlockShape
// specials) and reads exactly that box. to_zarr / to_npy compute with RunOptions::on_output, writing
// each block as soon as it is computed (it is released right after): memory stays bounded by the
// executor's live blocks, never the whole array.
//
// Errors (ca::Error): CA_ENOTFOUND (no .zarray / no file), CA_EFORMAT, CA_EUNSUPPORTED, CA_EINVAL,
// CA_EEXISTS (store exists without overwrite), CA_EIO, plus compute errors (CA_EKERNEL, CA_ECANCELED).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <chunkarray/io.h>

#include "array/array.hpp"
#include "exec/executor.hpp"
#include "io/zarr_meta.hpp"

namespace ca {
class KernelRegistry;
namespace ma {
struct Masked;
}
}

namespace ca::io {

// ---- zarr -------------------------------------------------------------------------------------------

/// A lazy array over the zarr v2 array at `path`. The metadata is read now (CA_ENOTFOUND if <path>/.zarray
/// is missing); chunk files are read when blocks are computed. Without `chunks` the array's blocks are
/// the store's chunks (edge blocks trimmed) and each task reads one chunk file; with `chunks` (same shape)
/// each task reads its box, touching only the chunk files it overlaps (dask's from_array(zarr, chunks)).
/// dtype = the store's dtype in native byte order.
ArrayPtr from_zarr(const std::string &path, const std::optional<Chunks> &chunks = std::nullopt);

struct ZarrWriteOptions {
  std::vector<Index> chunks;          ///< store chunk shape; empty = the array's first block size per dim
  Compressor compressor;              ///< none by default
  FillValue fill_value;               ///< null by default
  char order = 'C';
  char dimension_separator = '.';
  std::string attrs_json;             ///< written to .zattrs unless empty
  bool overwrite = false;
};

/// ca_zarr_options_t's fields as write options for `a`: the compressor by name (none, zlib, gzip, zstd,
/// blosc; level < 0 = its default; CA_EUNSUPPORTED naming `what` for another name), the fill value in
/// `a`'s kind (bool, integer when integral, complex, else float) when has_fill_value.
ZarrWriteOptions zarr_write_options(const Array &a, const ca_zarr_options_t &o, const char *what);

/// The store chunk shape to_zarr() uses for `a` (options.chunks or the array's first block sizes).
std::vector<Index> zarr_store_chunks(const Array &a, const ZarrWriteOptions &opts);

/// Compute `a` and write it as a zarr v2 array at `path` (.zarray, .zattrs, chunk files; each chunk file
/// replaced atomically). If a block boundary of `a` is not on a store chunk boundary, `a` is first
/// rechunked to the store chunks (dask's approach), so no two tasks ever write the same chunk file.
/// Blocks are written as they finish and freed (bounded memory). Returns the metadata written.
ZarrMeta to_zarr(Executor &ex, const KernelRegistry &reg, const ArrayPtr &a, const std::string &path,
                 const ZarrWriteOptions &opts = {}, const RunOptions &run = {});

// ---- masked arrays (io/masked_zarr.cpp) -------------------------------------------------------------

/// A masked array over the zarr array at `path` (from_zarr): elements equal to .zarray's fill_value
/// masked (nan: the nan elements), which becomes the fill value; a null fill_value gives nomask.
std::shared_ptr<const ma::Masked> masked_from_zarr(const std::string &path,
                                                   const std::optional<Chunks> &chunks = std::nullopt);
/// Write options for a masked array's filled data: `m`'s fill value (cast to its dtype) as the
/// store's fill_value.
void set_masked_fill_value(ZarrWriteOptions &w, const ma::Masked &m);

// ---- npy --------------------------------------------------------------------------------------------

/// A lazy array over the .npy file at `path`, read through a memory map (blocks point into the mapping
/// without a copy when the file is little-endian, C order and the block is contiguous and aligned). The
/// header is read now (CA_ENOTFOUND, CA_EFORMAT, CA_EUNSUPPORTED). Without `chunks`: automatic chunks of
/// at most 128 MiB (dask's "auto"). The file must not change while the array is in use (a changed shape or
/// dtype fails the task with CA_EFORMAT).
ArrayPtr from_npy(const std::string &path, const std::optional<Chunks> &chunks = std::nullopt);

/// Compute `a` and write it to `path` as a .npy file, block by block (NpyWriter: the file appears
/// atomically when every block is written; nothing is left behind on failure).
void to_npy(Executor &ex, const KernelRegistry &reg, const ArrayPtr &a, const std::string &path,
            const RunOptions &run = {});

// ---- HDF5 -------------------------------------------------------------------------------------------

/// A lazy array over HDF5 dataset `dataset` of the file at `path` (metadata read now). `chunks` is a
/// chunk request as for rechunk ("auto", "(1000, -1)", "64MiB", ...), resolved against the dataset's
/// own HDF5 chunks as dask's from_array(dataset, chunks) does with dataset.chunks; empty = the
/// dataset's HDF5 chunks (contiguous datasets: "auto"). Each task reads its box (io/hdf5.hpp).
ArrayPtr from_hdf5(const std::string &path, const std::string &dataset, const std::string &chunks = "");

struct Hdf5WriteOptions {
  std::vector<Index> chunks;  ///< HDF5 chunk shape; empty = the array's first block sizes
  bool contiguous = false;    ///< contiguous layout (no chunks, no filters)
  int gzip_level = -1;        ///< -1 none, 0..9
  bool shuffle = false;
  bool overwrite = false;
};

/// Compute `a` and write it to dataset `dataset` of the HDF5 file at `path` (created with its groups),
/// each block as it completes (bounded memory). If a block boundary does not fall on an HDF5 chunk
/// boundary, `a` is first rechunked to the HDF5 chunks (as to_zarr does), so every block is whole
/// chunks and goes through direct chunk writes.
void to_hdf5(Executor &ex, const KernelRegistry &reg, const ArrayPtr &a, const std::string &path,
             const std::string &dataset, const Hdf5WriteOptions &opts = {}, const RunOptions &run = {});

// ---- npy stacks (dask's to_npy_stack / from_npy_stack) ------------------------------------------------

/// Compute `a` and write it as dask does: the array rechunked to whole blocks along every axis but
/// `axis`, block i of `axis` to <dir>/<i>.npy, and <dir>/info, a pickle of {'chunks': ..., 'dtype':
/// numpy.dtype, 'axis': ...}. CA_EINVAL (axis), CA_EUNSUPPORTED (a dtype the pickle writer cannot
/// name), CA_EIO.
void to_npy_stack(Executor &ex, const KernelRegistry &reg, const ArrayPtr &a, const std::string &dir, int axis,
                  const RunOptions &run = {});

/// A lazy array over a directory written by to_npy_stack (or dask's): chunks as <dir>/info says, each
/// file read lazily (from_npy). CA_ENOTFOUND, CA_EFORMAT (an info pickle of another shape, or files
/// that disagree with it).
ArrayPtr from_npy_stack(const std::string &dir);

}  // namespace ca::io

namespace ca {
/// "ca.zarr_read", "ca.npy_read", "ca.hdf5_read" (called by register_array_kernels()).
void register_io_kernels(KernelRegistry &reg);
}  // namespace ca
