// Blosc1 frames written and read here, block by block, for the LZ4 codecs (liblz4, -DCA_LZ4): each
// blosc block is shuffled into a per-thread scratch that stays in L2 and LZ4-compressed from there
// straight into the frame (and the reverse when reading), instead of shuffling a whole chunk into a
// staging buffer and handing that to c-blosc (three passes over memory).
//
// The frame is c-blosc 1.21's, byte for byte, for the same bytes, clevel, shuffle, typesize and
// requested blocksize (numcodecs' destination capacity nbytes + 16): the header (version 2, the
// codec's format version, flags with the shuffle bits, "don't split" in bit 4 and the codec format
// in bits 5-7, typesize, nbytes, blocksize, cbytes), the table of block starts, and per block one
// stream (or one per byte of an item when blosc splits: typesize <= 16 and blocksize / typesize >=
// 128, every codec but zstd, never the last, short block), each behind its 4-byte compressed size and
// stored as it is when it does not compress; the whole chunk is stored after the header (the
// "memcpyed" flag) for clevel 0, fewer than 128 bytes, or when the streams outgrow nbytes + 16. The
// blocksize is c-blosc's (blosc.c's compute_blocksize in its default split mode).
// tests/interop/test_zarr_store.cpp compares these frames with c-blosc's for many sizes, typesizes,
// levels, both shuffles and incompressible data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace ca::io {

/// One block of `n` bytes of items of `typesize` bytes shuffled (or unshuffled) from src to dst, as
/// io/shuffle.hpp defines it.
using BlockShuffleFn = void (*)(unsigned char *dst, const unsigned char *src, size_t n, size_t typesize);

/// True when this build has liblz4 (the writer and reader below exist).
bool blosc_frame_available() noexcept;

/// c-blosc's blocksize for a chunk of `nbytes` bytes: `cname` "lz4", "lz4hc", "blosclz", "zlib" or
/// "zstd"; `forced` the requested blocksize (0: automatic); `typesize` 1..255.
size_t blosc_blocksize(const std::string &cname, int clevel, size_t typesize, size_t nbytes, size_t forced) noexcept;

/// Whether this writer handles (cname, shuffle): "lz4" or "lz4hc" with shuffle 0 (none) or 1 (byte),
/// and the build has liblz4. Everything else is c-blosc's.
bool blosc_frame_handles(const std::string &cname, int shuffle) noexcept;

/// Write c-blosc's frame of `nbytes` bytes at `src` into `dst`, which has room for nbytes + 16 bytes
/// (BLOSC_MAX_OVERHEAD; the frame never needs more); returns the frame's size. `typesize` 1..255,
/// `clevel` 0..9, `shuffle` 0 or 1, nbytes at most BLOSC_MAX_BUFFERSIZE; `shuf` shuffles one block
/// (called only for shuffle 1 and typesize > 1). Throws CA_EINTERNAL if liblz4 fails, CA_EUNSUPPORTED
/// for what blosc_frame_handles refuses (the caller checks first).
size_t blosc_frame_compress(unsigned char *dst, const unsigned char *src, size_t nbytes, size_t typesize,
                            const std::string &cname, int clevel, int shuffle, size_t forced_blocksize,
                            BlockShuffleFn shuf);

/// Whether blosc_frame_decompress reads this frame (its first 16 bytes at `h`): an LZ4 frame (lz4 or
/// lz4hc), byte shuffle or none, not stored whole.
bool blosc_frame_reads(const unsigned char *h, size_t srclen) noexcept;

/// Decode the frame `src` (`srclen` bytes, its header already checked by blosc_cbuffer_validate to
/// decode to `nbytes` and to say cbytes == srclen) into exactly `nbytes` bytes at `dst`, block by
/// block: each block's streams decompressed into a per-thread scratch and unshuffled by `unshuf`
/// into dst (or decompressed straight into dst when there is nothing to unshuffle). Corrupt data
/// throws CA_EFORMAT naming `what` (CA_EUNSUPPORTED in a build without liblz4); never reads past
/// src + srclen nor writes past dst + nbytes.
void blosc_frame_decompress(unsigned char *dst, size_t nbytes, const unsigned char *src, size_t srclen,
                            BlockShuffleFn unshuf, const std::string &what);

}  // namespace ca::io
