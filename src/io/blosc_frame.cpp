#include "io/blosc_frame.hpp"

#include <blosc.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/big_buffer.hpp"
#include "core/error.hpp"

#if CA_LZ4
#include <lz4.h>
#include <lz4hc.h>
#endif

namespace ca::io {

namespace {

// c-blosc 1.21's constants (blosc.c): the smallest buffer it compresses (smaller ones are stored),
// the largest typesize it splits into streams, the L1 size its automatic blocksize starts from.
constexpr size_t kFrameMinBuffer = 128;
constexpr size_t kFrameMaxSplits = 16;
constexpr size_t kFrameL1 = size_t(32) << 10;

enum class FrameCodec { blosclz, lz4, lz4hc, zlib, zstd, other };

FrameCodec frame_codec(const std::string &cname) noexcept {
  if (cname == "lz4") return FrameCodec::lz4;
  if (cname == "lz4hc") return FrameCodec::lz4hc;
  if (cname == "blosclz") return FrameCodec::blosclz;
  if (cname == "zlib") return FrameCodec::zlib;
  if (cname == "zstd") return FrameCodec::zstd;
  return FrameCodec::other;
}

// The codecs c-blosc gives larger blocks (meant for high compression ratios).
bool frame_high_ratio(FrameCodec c) noexcept { return c == FrameCodec::lz4hc || c == FrameCodec::zlib || c == FrameCodec::zstd; }

// c-blosc's default split mode ("forward compatible"): every codec but zstd splits a block into
// typesize streams when items are at most 16 bytes and the block has at least 128 of them.
bool frame_splits(FrameCodec c, size_t typesize, size_t blocksize) noexcept {
  return c != FrameCodec::zstd && typesize <= kFrameMaxSplits && blocksize / typesize >= kFrameMinBuffer;
}

void frame_put_le32(unsigned char *p, uint32_t v) noexcept {
  p[0] = static_cast<unsigned char>(v);
  p[1] = static_cast<unsigned char>(v >> 8);
  p[2] = static_cast<unsigned char>(v >> 16);
  p[3] = static_cast<unsigned char>(v >> 24);
}
uint32_t frame_le32(const unsigned char *p) noexcept {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

// One block's shuffled bytes (or decoded streams) between the caller's memory and the frame: a
// per-thread buffer up to 4 MiB (c-blosc's automatic blocks are at most 1 MiB); a larger requested
// blocksize gets a buffer of the big-buffer cache for the call, so no thread keeps one for good.
constexpr size_t kFrameScratchKeep = size_t(4) << 20;
struct FrameScratch {
  ca::detail::BigBuffer big;
  unsigned char *p = nullptr;
  explicit FrameScratch(size_t n) {
    if (n > kFrameScratchKeep) {
      big = ca::detail::BigBuffer(n);
      p = reinterpret_cast<unsigned char *>(big.data());
      return;
    }
    thread_local std::vector<unsigned char> buf;
    if (buf.size() < n) buf.resize(n);
    p = buf.data();
  }
};

}  // namespace

bool blosc_frame_available() noexcept { return CA_LZ4 != 0; }

size_t blosc_blocksize(const std::string &cname, int clevel, size_t typesize, size_t nbytes, size_t forced) noexcept {
  const FrameCodec codec = frame_codec(cname);
  if (nbytes < typesize) return 1;
  size_t bs = nbytes;
  if (forced) {
    bs = std::clamp(forced, kFrameMinBuffer, size_t(BLOSC_MAX_BLOCKSIZE));
  } else if (nbytes >= kFrameL1) {
    bs = kFrameL1;
    if (frame_high_ratio(codec)) bs *= 2;
    // Larger blocks for higher levels: clevel 0 a quarter, 1 a half, 2 one, 3 two, 4-5 four,
    // 6-8 eight, 9 eight (sixteen for the high-ratio codecs) times L1.
    static constexpr unsigned kTimesQuarter[10] = {1, 2, 4, 8, 16, 16, 32, 32, 32, 32};
    bs = bs * kTimesQuarter[std::clamp(clevel, 0, 9)] / 4;
    if (clevel == 9 && frame_high_ratio(codec)) bs *= 2;
  }
  if (clevel > 0 && frame_splits(codec, typesize, bs)) {
    // A split stream is at most 256 KiB, a block 64 KiB .. 1 MiB.
    bs = std::clamp(std::min(bs, size_t(1) << 18) * typesize, size_t(1) << 16, size_t(1) << 20);
  }
  bs = std::min(bs, nbytes);
  if (bs > typesize) bs = bs / typesize * typesize;
  return bs;
}

bool blosc_frame_handles(const std::string &cname, int shuffle) noexcept {
  return CA_LZ4 && (cname == "lz4" || cname == "lz4hc") && (shuffle == BLOSC_NOSHUFFLE || shuffle == BLOSC_SHUFFLE);
}

size_t blosc_frame_compress(unsigned char *dst, const unsigned char *src, size_t nbytes, size_t typesize,
                            const std::string &cname, int clevel, int shuffle, size_t forced_blocksize,
                            BlockShuffleFn shuf) {
  CA_CHECK(blosc_frame_handles(cname, shuffle), CA_EUNSUPPORTED, "blosc_frame_compress: compressor '", cname,
           "' with shuffle ", shuffle, " is not written here");
  CA_CHECK(typesize >= 1 && typesize <= BLOSC_MAX_TYPESIZE && clevel >= 0 && clevel <= 9 &&
               nbytes <= size_t(BLOSC_MAX_BUFFERSIZE),
           CA_EINVAL, "blosc_frame_compress: typesize ", typesize, ", clevel ", clevel, " or size ", nbytes,
           " out of range");
  const FrameCodec codec = frame_codec(cname);
  const size_t bs = blosc_blocksize(cname, clevel, typesize, nbytes, forced_blocksize);
  const size_t nblocks = nbytes / bs + (nbytes % bs != 0);
  const size_t leftover = nbytes % bs;
  const size_t cap = nbytes + BLOSC_MAX_OVERHEAD;  // numcodecs' destination size: c-blosc's limit

  dst[0] = BLOSC_VERSION_FORMAT;
  dst[1] = codec == FrameCodec::lz4 ? BLOSC_LZ4_VERSION_FORMAT : BLOSC_LZ4HC_VERSION_FORMAT;
  unsigned flags = shuffle == BLOSC_SHUFFLE ? BLOSC_DOSHUFFLE : 0;
  const bool split = frame_splits(codec, typesize, bs);
  flags |= unsigned(!split) << 4;
  flags |= unsigned(BLOSC_LZ4_FORMAT) << 5;  // lz4hc writes the lz4 format
  dst[3] = static_cast<unsigned char>(typesize);
  frame_put_le32(dst + 4, uint32_t(nbytes));
  frame_put_le32(dst + 8, uint32_t(bs));

  // Stored whole: clevel 0, a tiny chunk, or a block table beyond the capacity (c-blosc's first
  // stream would not fit then either: 128 .. 254 bytes of items larger than the chunk, blocks of 1).
  bool stored = clevel == 0 || nbytes < kFrameMinBuffer || BLOSC_MAX_OVERHEAD + 4 * nblocks >= cap;
  size_t pos = BLOSC_MAX_OVERHEAD;
  if (!stored) {
    const bool doshuffle = shuffle == BLOSC_SHUFFLE && typesize > 1;
    FrameScratch scratch(doshuffle ? bs : 0);
    unsigned char *tmp = scratch.p;
    pos += 4 * nblocks;
    for (size_t b = 0; b < nblocks && !stored; ++b) {
      frame_put_le32(dst + BLOSC_MAX_OVERHEAD + 4 * b, uint32_t(pos));
      const bool last_short = b == nblocks - 1 && leftover > 0;
      const size_t bsize = last_short ? leftover : bs;
      const unsigned char *block = src + b * bs;
      if (doshuffle) {
        shuf(tmp, block, bsize, typesize);
        block = tmp;
      }
      const size_t nsplits = split && !last_short ? typesize : 1;
      const size_t neblock = bsize / nsplits;
      for (size_t j = 0; j < nsplits; ++j) {
        pos += 4;
        size_t maxout = neblock;
        if (pos + maxout > cap) {
          if (pos >= cap) {
            stored = true;
            break;
          }
          maxout = cap - pos;
        }
        const char *in = reinterpret_cast<const char *>(block + j * neblock);
        char *out = reinterpret_cast<char *>(dst + pos);
        int cb = 0;
#if CA_LZ4
        if (codec == FrameCodec::lz4)
          cb = LZ4_compress_fast(in, out, int(neblock), int(maxout), 10 - clevel);
        else
          cb = LZ4_compress_HC(in, out, int(neblock), int(maxout), clevel);
#endif
        if (cb < 0 || size_t(cb) > maxout)
          fail(CA_EINTERNAL, "blosc_frame_compress: ", cname, " failed on a stream of ", neblock, " bytes (", cb, ")");
        if (cb == 0 || size_t(cb) == neblock) {  // does not compress: stored as it is, if it fits
          if (pos + neblock > cap) {
            stored = true;
            break;
          }
          std::memcpy(out, in, neblock);
          cb = int(neblock);
        }
        frame_put_le32(dst + pos - 4, uint32_t(cb));
        pos += size_t(cb);
      }
    }
  }
  if (stored) {
    flags |= BLOSC_MEMCPYED;
    if (nbytes) std::memcpy(dst + BLOSC_MAX_OVERHEAD, src, nbytes);
    pos = BLOSC_MAX_OVERHEAD + nbytes;
  }
  dst[2] = static_cast<unsigned char>(flags);
  frame_put_le32(dst + 12, uint32_t(pos));
  return pos;
}

bool blosc_frame_reads(const unsigned char *h, size_t srclen) noexcept {
  if (!CA_LZ4 || srclen < BLOSC_MIN_HEADER_LENGTH) return false;
  const unsigned flags = h[2];
  return h[0] == BLOSC_VERSION_FORMAT && h[1] == BLOSC_LZ4_VERSION_FORMAT && (flags >> 5) == BLOSC_LZ4_FORMAT &&
         (flags & (BLOSC_MEMCPYED | BLOSC_DOBITSHUFFLE)) == 0 && h[3] >= 1;
}

void blosc_frame_decompress(unsigned char *dst, size_t nbytes, const unsigned char *src, size_t srclen,
                            BlockShuffleFn unshuf, const std::string &what) {
#if !CA_LZ4
  (void)dst, (void)nbytes, (void)src, (void)srclen, (void)unshuf;
  fail(CA_EUNSUPPORTED, what, ": blosc lz4 frames are read by c-blosc in this build (no liblz4)");
#else
  auto corrupt = [&](const char *why) { fail(CA_EFORMAT, what, ": corrupt blosc data (", why, ")"); };
  if (!blosc_frame_reads(src, srclen)) corrupt("not an lz4 frame");
  const size_t typesize = src[3];
  const size_t bs = frame_le32(src + 8);
  if (frame_le32(src + 4) != nbytes || frame_le32(src + 12) != srclen) corrupt("header sizes");
  if (nbytes == 0) return;
  if (bs == 0 || bs > nbytes) corrupt("blocksize");
  const size_t nblocks = nbytes / bs + (nbytes % bs != 0);
  const size_t leftover = nbytes % bs;
  if (BLOSC_MAX_OVERHEAD + 4 * nblocks > srclen) corrupt("block table");
  const bool doshuffle = (src[2] & BLOSC_DOSHUFFLE) && typesize > 1;
  const bool dont_split = (src[2] >> 4) & 1;
  FrameScratch scratch(doshuffle ? bs : 0);
  unsigned char *tmp = scratch.p;
  for (size_t b = 0; b < nblocks; ++b) {
    const bool last_short = b == nblocks - 1 && leftover > 0;
    const size_t bsize = last_short ? leftover : bs;
    // c-blosc's reader splits by the flag and, for frames older than it, by the same size rule.
    const size_t nsplits =
        !dont_split && typesize <= kFrameMaxSplits && bsize / typesize >= kFrameMinBuffer && !last_short ? typesize : 1;
    if (bsize % nsplits != 0) corrupt("blocksize not a multiple of the typesize");
    const size_t neblock = bsize / nsplits;
    unsigned char *out = doshuffle ? tmp : dst + b * bs;
    size_t off = frame_le32(src + BLOSC_MAX_OVERHEAD + 4 * b);
    for (size_t j = 0; j < nsplits; ++j) {
      if (off < BLOSC_MAX_OVERHEAD || off + 4 > srclen) corrupt("block start");
      const size_t cb = frame_le32(src + off);
      off += 4;
      if (cb > srclen - off) corrupt("stream size");
      if (cb == neblock) {
        std::memcpy(out + j * neblock, src + off, neblock);
      } else {
        int got = LZ4_decompress_safe(reinterpret_cast<const char *>(src + off),
                                      reinterpret_cast<char *>(out + j * neblock), int(cb), int(neblock));
        if (got < 0 || size_t(got) != neblock) corrupt("lz4 stream");
      }
      off += cb;
    }
    if (doshuffle) unshuf(dst + b * bs, tmp, bsize, typesize);
  }
#endif
}

}  // namespace ca::io
