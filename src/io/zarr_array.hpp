// Zarr v2 chunk and region I/O on a directory store. Blocks in and out are native little-endian C order;
// byte order and F order are converted while decoding and encoding.
//
// Thread safety: every function may run concurrently on any thread (as tasks of a compute do). Writes of
// different chunks never interfere; each chunk file is replaced atomically (temporary file + rename), so a
// concurrent reader sees the old chunk or the new one. write_region() on a box that covers a chunk only
// partly reads, modifies and rewrites that chunk: callers must not write the same chunk concurrently.
//
// How the array layer uses this: from_zarr(path) = read_zarr_meta() once, then one task per block calling
// read_region() (touching only the chunk files the block overlaps); to_zarr(array, path) =
// create_zarr_array() then one task per block calling write_region() (bounded memory: one block and one
// chunk buffer per task; chunk-aligned blocks never read).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "core/block.hpp"
#include "io/zarr_meta.hpp"

namespace ca::io {

/// "1.0.3" / "1/0/3" for chunk index (1, 0, 3); "0" for a 0-d array.
std::string zarr_chunk_key(const ZarrMeta &meta, std::span<const Index> chunk_index);

/// Create an array: write <path>/.zarray (and .zattrs unless attrs_json is empty). If <path> already
/// holds a zarr array: with overwrite its chunk files, metadata and stale temporaries are removed
/// first (nothing else: a directory holding anything more is CA_EEXISTS naming the entry, and nothing
/// is removed), otherwise CA_EEXISTS. A zarr group is never replaced (CA_EEXISTS, also with
/// overwrite: it would take its members with it), nor is a non-empty directory that is not zarr.
void create_zarr_array(const std::string &path, const ZarrMeta &meta, const std::string &attrs_json = "",
                       bool overwrite = false);

/// Read one chunk as a block of the full chunk shape (zarr stores edge chunks at full size; the caller
/// trims). A missing chunk file reads as fill_value (zeros for a null fill_value). Throws CA_EINVAL (index
/// outside the chunk grid), CA_EFORMAT (corrupt chunk or wrong decoded size: the message names the file,
/// the expected and the actual size), CA_EIO.
BlockRef read_zarr_chunk(const std::string &path, const ZarrMeta &meta, std::span<const Index> chunk_index);

/// Encode and write one chunk atomically. `block` has meta.dtype and either the full chunk shape or, for
/// an edge chunk, the part inside the array (min(chunk, shape - start)); the rest is padded with
/// fill_value.
void write_zarr_chunk(const std::string &path, const ZarrMeta &meta, std::span<const Index> chunk_index,
                      const Block &block);

/// The box [start, stop) of the array as a new block, reading only the chunk files it overlaps.
BlockRef read_zarr_region(const std::string &path, const ZarrMeta &meta, std::span<const Index> start,
                          std::span<const Index> stop);

/// Write `block` (meta.dtype) into the box that starts at `start`. Chunks the box covers entirely (up to
/// the array's edge) are written without reading; partly covered chunks are read, updated and rewritten.
void write_zarr_region(const std::string &path, const ZarrMeta &meta, std::span<const Index> start,
                       const Block &block);

}  // namespace ca::io
