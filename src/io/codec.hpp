// Chunk compressors of zarr v2 (numcodecs ids): none, zlib, gzip, zstd and blosc.
// All functions are thread-safe (blosc through its context API, zstd with per-thread contexts).
// zlib and gzip go through libdeflate when the build has it (-DCA_LIBDEFLATE, Debian libdeflate-dev):
// the same formats (zarr-python reads them, we read zlib's), but not zlib's bytes. blosc's lz4 and
// lz4hc frames are written and read here block by block through liblz4 (-DCA_LZ4, io/blosc_frame.hpp),
// blosc with byte shuffle of 8-byte items shuffles here (AVX-512 VBMI, io/shuffle.hpp); every blosc
// chunk is c-blosc's bytes (docs/zarr.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/big_buffer.hpp"

namespace ca::io {

/// A compressor as written in .zarray's "compressor" (numcodecs config). An empty id means none (null).
struct Compressor {
  std::string id;             ///< "", "zlib", "gzip", "zstd" or "blosc"
  int level = 1;              ///< zlib, gzip (0..9) and zstd (-131072..22)
  std::string cname = "lz4";  ///< blosc: blosclz, lz4, lz4hc, zlib, zstd
  int clevel = 5;             ///< blosc: 0..9
  int shuffle = 1;            ///< blosc: -1 auto (bit for 1-byte items, else byte), 0 none, 1 byte, 2 bit
  int64_t blocksize = 0;      ///< blosc: 0 = automatic

  bool is_none() const noexcept { return id.empty(); }
  bool operator==(const Compressor &) const = default;

  static Compressor none() { return {}; }
  static Compressor zlib(int level = 1);
  static Compressor gzip(int level = 1);
  static Compressor zstd(int level = 1);
  static Compressor blosc(std::string cname = "lz4", int clevel = 5, int shuffle = 1, int64_t blocksize = 0);
};

/// Throws CA_EUNSUPPORTED for an unknown id or blosc compressor name (message lists what is supported),
/// CA_EINVAL for out-of-range levels or shuffle.
void check_compressor(const Compressor &c);

/// Compress `nbytes` bytes of items of `typesize` bytes (blosc's shuffle unit). Throws CA_EUNSUPPORTED,
/// CA_EINVAL (too large for blosc: 2 GiB) or CA_EINTERNAL if the library fails.
std::string encode_chunk(const Compressor &c, const void *src, size_t nbytes, size_t typesize);
/// The same, into a buffer of the big-buffer cache (core/big_buffer.hpp; its size() is the encoded
/// size): what the store path uses, so a chunk's compression scratch reuses mapped pages.
detail::BigBuffer encode_chunk_big(const Compressor &c, const void *src, size_t nbytes, size_t typesize);

/// The largest encoded chunk of `nbytes` decoded bytes a reader accepts: `nbytes` uncompressed, else
/// nbytes + nbytes/16 + 64 KiB, above the worst case of every codec here (zstd, zlib/gzip, blosc all
/// stay within nbytes + nbytes/256 + a few hundred bytes on incompressible data). A chunk file larger
/// than this is corrupt, and is refused before it is read.
size_t max_encoded_size(const Compressor &c, size_t nbytes) noexcept;

/// Decompress `srclen` bytes into exactly `nbytes` bytes at `dst`. Corrupt data, or data that decodes to a
/// different size, throws CA_EFORMAT with a message naming `what` (the chunk file), the expected and the
/// actual size where known. Never writes past dst + nbytes.
void decode_chunk(const Compressor &c, const void *src, size_t srclen, void *dst, size_t nbytes,
                  const std::string &what);
/// The same, allowed to change bytes of `src` for the time of the call (restored before it returns
/// or throws): what the store path uses on the chunk file it read, so that blosc's fast path
/// (codec.cpp) needs no copy of the compressed bytes. Not for buffers other threads read meanwhile.
void decode_chunk_mutable_src(const Compressor &c, void *src, size_t srclen, void *dst, size_t nbytes,
                              const std::string &what);

}  // namespace ca::io
