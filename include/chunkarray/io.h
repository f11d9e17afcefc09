/**
 * @file chunkarray/io.h
 * @brief Storage: zarr v2 directory stores, NumPy .npy files and npy stacks, HDF5 datasets (dask's
 * from_zarr/to_zarr, from_npy, from_npy_stack/to_npy_stack, from_array(h5py dataset)/to_hdf5).
 *
 * Reading is lazy: ca_array_from_zarr() and ca_array_from_npy() read only metadata; each block reads its
 * own region (zarr chunk files, or a memory-mapped .npy file) when it is computed. Writing computes the
 * array and writes every block as soon as it is ready, then frees it: memory stays bounded by the blocks
 * in flight, not the array's size.
 *
 * Untrusted stores: reads accept regular files only (a FIFO, device, socket or directory in place of a
 * chunk, .zarray or .npy file is CA_EIO naming it; a symbolic link to one is followed and refused the
 * same way) and never read more than the file can hold: metadata files (.zarray, .zattrs) at most
 * 16 MiB and 64 levels of JSON nesting (CA_EFORMAT), a chunk file at most its decoded size (uncompressed)
 * or that plus 1/16 and 64 KiB (compressed), a .npy header at most 1 MiB. Error messages quote at most
 * a short excerpt of a file's content.
 *
 * Durable writes: every file (chunk, metadata, .npy) is written under a hidden temporary name in the
 * target's directory (".<name>.<pid>-<n>.partial"), fsync'ed, renamed over the target, and the
 * directory is fsync'ed, so after a crash or power loss the target is the old file or the new one, never
 * a torn one. Setting the environment variable CA_IO_NO_FSYNC=1 skips both fsyncs (faster; the rename
 * stays atomic for other processes but not durable across power loss). Temporaries that a killed
 * process left behind are removed by the next write of the same file (ca_array_to_npy()), or of the same
 * zarr array (ca_array_to_zarr() with overwrite) or metadata file.
 *
 * Thread safety: every function may be called from any thread. Writing the same store or file from
 * two calls at once is undefined; reading a store while it is written sees each chunk file either old or
 * new (chunk files are replaced atomically).
 *
 * Example:
 * @code
 *   ca_array_t *a = NULL;
 *   if (ca_array_from_zarr(&a, "data/x.zarr", NULL) == CA_OK) {
 *     ca_zarr_options_t o = CA_ZARR_OPTIONS_INIT;
 *     o.compressor = "zstd";
 *     ca_array_to_zarr(ctx, a, "data/copy.zarr", &o, NULL);
 *     ca_array_free(a);
 *   }
 * @endcode
 */
#ifndef CHUNKARRAY_IO_H
#define CHUNKARRAY_IO_H

#include "chunkarray/array.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------------ */
/* zarr v2                                                                                           */
/* ------------------------------------------------------------------------------------------------ */

/**
 * A lazy array over the zarr v2 array stored in directory @p path. Reads @p path/.zarray now; chunk files
 * are read when blocks are computed (missing chunk files read as the fill value).
 * @param[out] out owned (ca_array_free()); NULL on failure.
 * @param path borrowed, NUL-terminated directory of the array.
 * @param chunks borrowed, may be NULL: the array's blocks are then the store's chunks (edge blocks
 *        trimmed; each task reads one chunk file). Otherwise chunks for the store's shape; each task
 *        reads its box, touching only the chunk files it overlaps.
 * The array's dtype is the store's (native byte order; big-endian and F-order stores are converted).
 * @return CA_OK; CA_EINVAL (NULL argument, chunks that do not match the shape); CA_ENOTFOUND (no
 *         @p path/.zarray); CA_EFORMAT (corrupt .zarray, or one over the budgets above); CA_EVERSION
 *         (zarr_format other than 2); CA_EUNSUPPORTED (filters, unknown compressor or dtype); CA_EIO
 *         (.zarray is no regular file, or cannot be read); CA_ENOMEM.
 *         Computing may fail with CA_EKERNEL naming a corrupt chunk file.
 */
CA_API ca_status_t ca_array_from_zarr(ca_array_t **out, const char *path, const ca_chunks_t *chunks);

/** How ca_array_to_zarr() lays out the store. Initialize with CA_ZARR_OPTIONS_INIT; fields are only
 *  ever appended. */
typedef struct ca_zarr_options {
  uint32_t struct_size;        /**< sizeof(ca_zarr_options_t) */
  const int64_t *chunks;       /**< borrowed, one chunk size (>= 1) per dimension; NULL = the array's
                                    first block size along each dimension */
  const char *compressor;      /**< "none" (or NULL), "zlib", "gzip", "zstd", "blosc" */
  int32_t level;               /**< zlib/gzip 0..9, zstd level, blosc clevel 0..9; -1 = default
                                    (1 for zlib/gzip/zstd, 5 for blosc) */
  const char *blosc_cname;     /**< blosc: "lz4" (NULL), "lz4hc", "blosclz", "zlib", "zstd" */
  int32_t blosc_shuffle;       /**< blosc: -1 auto, 0 none, 1 byte (default), 2 bit */
  const char *attrs_json;      /**< borrowed, a JSON object written to .zattrs; NULL = none */
  int32_t overwrite;           /**< non-zero: replace an existing zarr array or group at path */
  char order;                  /**< 'C' (default) or 'F': item layout inside chunk files */
  char dimension_separator;    /**< '.' (default) or '/' in chunk file names */
  int32_t has_fill_value;      /**< non-zero: fill_value is written; 0: null fill value */
  double fill_value;           /**< converted to the dtype (must fit it) */
} ca_zarr_options_t;

/** The defaults of ca_zarr_options_t. */
#define CA_ZARR_OPTIONS_INIT {sizeof(ca_zarr_options_t), NULL, NULL, -1, NULL, 1, NULL, 0, 'C', '.', 0, 0.0}

/**
 * Compute @p a and write it as a zarr v2 array at directory @p path (.zarray, .zattrs, chunk files).
 * If a block boundary of @p a does not fall on a store chunk boundary, the array is first rechunked to
 * the store's chunks (as dask does), so no two tasks ever write the same chunk file; each chunk file is
 * written atomically (temporary file + rename). Blocks are written as they are computed and freed.
 * @param ctx borrowed: its executor and kernels run the compute.
 * @param a borrowed.
 * @param path borrowed; created (with parent directories) if missing.
 * @param opts borrowed, may be NULL (defaults).
 * @param copts borrowed, may be NULL: progress, cancellation.
 * With overwrite, an existing zarr array at @p path is replaced: exactly its metadata, chunk files and
 * temporaries are removed first. Nothing else is ever removed: a zarr group, a directory that holds
 * anything besides a zarr array's files, or a non-empty directory that is not zarr is CA_EEXISTS
 * (naming what is in the way), also with overwrite.
 * @return CA_OK; CA_EINVAL (NULL argument, bad option such as a chunk size < 1, order or separator);
 *         CA_EEXISTS (a store or a non-empty non-zarr directory exists at path and overwrite is 0; with
 *         overwrite, a group or a directory holding more than a zarr array; a file where a directory
 *         of the path should be);
 *         CA_EUNSUPPORTED (unknown compressor, dtype zarr cannot store); CA_EFORMAT (fill value does not
 *         fit the dtype); CA_EIO; CA_EKERNEL; CA_ECANCELED; CA_ENOMEM. On a compute failure the store
 *         exists with the chunks written so far.
 * Blocks the calling thread.
 */
CA_API ca_status_t ca_array_to_zarr(ca_context_t *ctx, const ca_array_t *a, const char *path,
                                    const ca_zarr_options_t *opts, const ca_compute_options_t *copts);

/**
 * Create a zarr group at directory @p path (.zgroup, and .zattrs unless @p attrs_json is NULL). An
 * existing group is kept (its attributes replaced if given). Arrays go inside with ca_array_to_zarr()
 * at "<path>/<name>".
 * @param path borrowed. @param attrs_json borrowed JSON object, may be NULL.
 * @return CA_OK; CA_EINVAL (NULL path, attrs not a JSON object); CA_EEXISTS (an array is there); CA_EIO.
 */
CA_API ca_status_t ca_zarr_create_group(const char *path, const char *attrs_json);

/**
 * Check that @p name can be used as one file name inside a directory, as everything that makes a path
 * from a name it did not choose must (the chunkarray CLI checks each array name of a graph file before
 * writing DIR/NAME.npy or the zarr array DIR/NAME). Refused: an empty name, "." and "..", a '/' or
 * '\', a control character (a byte below 0x20, or 0x7f), more than 255 bytes. A refused name is never
 * renamed into an allowed one (two names could then meet in one file).
 * @param name borrowed, NUL-terminated. @param what borrowed, may be NULL: what the name is, for the
 *        message ("array name"; NULL = "name").
 * @return CA_OK; CA_EINVAL (NULL name, or a name that is no single file name: the message quotes it,
 *         control bytes escaped, and gives the reason, e.g. "array name '..' cannot be used as a file
 *         name (it is '..', which names the parent directory)").
 */
CA_API ca_status_t ca_io_check_name(const char *name, const char *what);

/* ------------------------------------------------------------------------------------------------ */
/* .npy                                                                                              */
/* ------------------------------------------------------------------------------------------------ */

/**
 * A lazy array over the .npy file @p path (format 1.0-3.0), read through a memory map: blocks point
 * into the mapping without a copy when the file is little-endian, C order and the block is contiguous
 * and aligned, else they are copied and converted. The file must not change while the array is in
 * use (a changed shape or dtype fails the compute with CA_EKERNEL).
 * @param[out] out owned (ca_array_free()); NULL on failure.
 * @param path borrowed.
 * @param chunks borrowed, may be NULL: automatic chunks of about 128 MiB.
 * @return CA_OK; CA_EINVAL; CA_ENOTFOUND; CA_EFORMAT (bad header, header over 1 MiB, data shorter than
 *         the header says); CA_EVERSION; CA_EUNSUPPORTED (structured, object, string, float16 dtypes);
 *         CA_EIO (no regular file: a FIFO, device or directory; or a read error); CA_ENOMEM.
 */
CA_API ca_status_t ca_array_from_npy(ca_array_t **out, const char *path, const ca_chunks_t *chunks);

/**
 * Compute @p a and write it to @p path as a .npy file (little-endian, C order), block by block with
 * bounded memory. The file appears atomically (and durably, see above) once complete; on failure nothing
 * is left behind, and temporaries of an earlier write of @p path that was killed are removed.
 * @param ctx, a, path borrowed. @param copts borrowed, may be NULL.
 * @return CA_OK; CA_EINVAL; CA_EUNSUPPORTED (CA_RAW arrays); CA_EEXISTS (a file stands where a directory
 *         of @p path should be, e.g. "/dev/null/x.npy"; the message names it); CA_EIO; CA_EKERNEL;
 *         CA_ECANCELED; CA_ENOMEM.
 * Blocks the calling thread.
 */
CA_API ca_status_t ca_array_to_npy(ca_context_t *ctx, const ca_array_t *a, const char *path,
                                   const ca_compute_options_t *copts);

/* ------------------------------------------------------------------------------------------------ */
/* npy stacks (dask's to_npy_stack / from_npy_stack)                                                  */
/* ------------------------------------------------------------------------------------------------ */

/**
 * Compute @p a and write it as dask.array.to_npy_stack does: the array rechunked to one block along
 * every axis but @p axis, block i along @p axis written to "<dirname>/<i>.npy" (as ca_array_to_npy(),
 * each file atomically) and "<dirname>/info", the pickle dask writes ({'chunks': ..., 'dtype':
 * numpy.dtype, 'axis': ...}; protocol 2), so dask.array.from_npy_stack reads the directory.
 * @param ctx, a, dirname borrowed; @p dirname is created (with parents) if missing.
 * @param axis the axis the files follow; negative counts from the end.
 * @param copts borrowed, may be NULL.
 * @return CA_OK; CA_EINVAL (NULL argument, 0-d array, axis out of range); CA_EUNSUPPORTED (CA_RAW,
 *         datetime64/timedelta64: the info pickle has no writer for them); CA_EEXISTS (a file is at
 *         @p dirname); CA_EIO; CA_EKERNEL; CA_ECANCELED; CA_ENOMEM.
 * Blocks the calling thread.
 */
CA_API ca_status_t ca_array_to_npy_stack(ca_context_t *ctx, const ca_array_t *a, const char *dirname, int32_t axis,
                                         const ca_compute_options_t *copts);

/**
 * A lazy array over an npy stack written by ca_array_to_npy_stack() or dask.array.to_npy_stack: the
 * chunks are the ones "<dirname>/info" names, block i along its axis is the file "<dirname>/<i>.npy"
 * (read lazily, as ca_array_from_npy()). The info pickle is read by a strict parser that accepts only
 * the dict dask writes (protocols 2 to 5; no object but numpy.dtype is ever built), so an untrusted
 * directory cannot run code.
 * @param[out] out owned (ca_array_free()); NULL on failure.
 * @param dirname borrowed.
 * @return CA_OK; CA_EINVAL (NULL argument); CA_ENOTFOUND (no info file, a missing .npy file);
 *         CA_EFORMAT (info is not such a pickle, e.g. "pickle opcode 0x63 ... refers to os.system",
 *         or a file whose dtype or shape disagrees with info: the message names the file);
 *         CA_EUNSUPPORTED (a dtype chunkarray has no counterpart for); CA_EIO; CA_ENOMEM.
 */
CA_API ca_status_t ca_array_from_npy_stack(ca_array_t **out, const char *dirname);

/* ------------------------------------------------------------------------------------------------ */
/* HDF5                                                                                              */
/* ------------------------------------------------------------------------------------------------ */

/**
 * A lazy array over the HDF5 dataset @p dataset of the file at @p path (dask's
 * from_array(h5py.File(path)[dataset], chunks)). The file's metadata is read now; each block is
 * read when computed, as one hyperslab straight into the block, or, for datasets stored as the
 * block's bytes with at most the shuffle and deflate filters, chunk by chunk: HDF5 (under the lock,
 * see below) only says where the chunk lies, the task reads and inflates it itself, in parallel.
 *
 * dtypes: integers and floats of 1 to 8 bytes (and float16), h5py's complex ({r, i} compound), h5py's
 * bool (enum int8 FALSE/TRUE) and fixed-width strings (as bytes "S<n>"). Other HDF5 types
 * (variable-length strings, other compounds and enums, references, opaque) are CA_EUNSUPPORTED
 * naming the HDF5 type class.
 *
 * Thread safety: every HDF5 call of chunkarray runs under one process-wide mutex, so this is correct
 * with a libhdf5 built without --enable-threadsafe too (Debian 12's is thread-safe). With such a
 * non-thread-safe libhdf5, a host that also calls HDF5 itself (h5py in the same process) must not do
 * so while a chunkarray compute reads or writes HDF5. docs/hdf5.md.
 *
 * @param[out] out owned (ca_array_free()); NULL on failure.
 * @param path, dataset borrowed ("/group/name" or "name").
 * @param chunks borrowed, may be NULL: a chunk request as for ca_array_rechunk_spec ("auto", "64MiB",
 *        "(1000, -1)", "((2, 3), 5)"), resolved with the dataset's HDF5 chunks as previous chunks,
 *        as dask does with h5py datasets; NULL or "" = the dataset's HDF5 chunks (one task per HDF5
 *        chunk; for a contiguous dataset "auto").
 * @return CA_OK; CA_EINVAL (NULL argument, bad chunks, the name is a group); CA_ENOTFOUND (no such
 *         file, "HDF5 file 'f.h5' has no dataset '/g/x' (it has no group '/g')"); CA_EFORMAT (not an HDF5
 *         file, corrupt metadata: the message names the file, the dataset and HDF5's own message);
 *         CA_EUNSUPPORTED (datatype or filter, e.g. h5py's lzf; or a build without HDF5: "this
 *         chunkarray was built without HDF5"); CA_EIO; CA_ENOMEM. Computing may fail with CA_EFORMAT or
 *         CA_EIO naming a corrupt chunk.
 */
CA_API ca_status_t ca_array_from_hdf5(ca_array_t **out, const char *path, const char *dataset, const char *chunks);

/** How ca_array_to_hdf5() lays out the dataset. Initialize with CA_HDF5_OPTIONS_INIT; fields are only
 *  ever appended. */
typedef struct ca_hdf5_options {
  uint32_t struct_size;  /**< sizeof(ca_hdf5_options_t) */
  const int64_t *chunks; /**< borrowed, the HDF5 chunk shape (each >= 1, clamped to the extent); NULL =
                              the array's first block size along each dimension (dask's to_hdf5) */
  int32_t contiguous;    /**< non-zero: contiguous layout (no chunks, no filters) */
  int32_t gzip_level;    /**< -1 (default): no compression; 0..9: HDF5's deflate ("gzip") filter */
  int32_t shuffle;       /**< non-zero: HDF5's shuffle filter (before deflate, as h5py orders them) */
  int32_t overwrite;     /**< non-zero: an existing dataset of that name is replaced (unlinked; HDF5
                              does not give its space back to the file) */
} ca_hdf5_options_t;

/** The defaults of ca_hdf5_options_t. */
#define CA_HDF5_OPTIONS_INIT {sizeof(ca_hdf5_options_t), NULL, 0, -1, 0, 0}

/**
 * Compute @p a and write it to dataset @p dataset of the HDF5 file at @p path (dask's to_hdf5). The
 * file is created if missing (an existing HDF5 file is opened and its other objects kept), the groups
 * on the dataset's path too. 0-d and empty arrays are stored contiguous (HDF5 chunks need a nonzero
 * extent). Every block is written as it completes and freed (bounded memory): if a block boundary of @p
 * a is not on an HDF5 chunk boundary the array is first rechunked to the HDF5 chunks (as
 * ca_array_to_zarr() does), so each block is whole chunks, which the task shuffles and deflates itself
 * and hands to HDF5 with direct chunk writes; contiguous datasets are written with pwrite at the
 * dataset's address. HDF5 calls run under the process-wide lock (see ca_array_from_hdf5()).
 * @param ctx borrowed: its executor runs the compute. @param a, path, dataset borrowed.
 * @param opts borrowed, may be NULL (defaults). @param copts borrowed, may be NULL.
 * @return CA_OK; CA_EINVAL (NULL argument, chunk size < 1, gzip level outside -1..9, contiguous with
 *         chunks or filters, an HDF5 chunk over 4 GiB); CA_EEXISTS (the dataset exists and overwrite is
 *         0; the name is a group); CA_EFORMAT (@p path exists and is not an HDF5 file);
 *         CA_EUNSUPPORTED (a dtype HDF5 gets no type for: datetime64, unicode, raw; a build without
 *         HDF5); CA_EIO; CA_EKERNEL; CA_ECANCELED; CA_ENOMEM. On a compute failure the dataset exists
 *         with the blocks written so far.
 * Blocks the calling thread.
 */
CA_API ca_status_t ca_array_to_hdf5(ca_context_t *ctx, const ca_array_t *a, const char *path, const char *dataset,
                                    const ca_hdf5_options_t *opts, const ca_compute_options_t *copts);

#ifdef __cplusplus
}
#endif

#endif /* CHUNKARRAY_IO_H */
