#include "io/codec.hpp"

#include <blosc.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <memory>
#include <vector>

#include "core/error.hpp"
#include "io/blosc_frame.hpp"
#include "io/shuffle.hpp"

#if CA_LIBDEFLATE
#include <libdeflate.h>
#endif

namespace ca::io {

Compressor Compressor::zlib(int level) {
  Compressor c;
  c.id = "zlib";
  c.level = level;
  return c;
}
Compressor Compressor::gzip(int level) {
  Compressor c;
  c.id = "gzip";
  c.level = level;
  return c;
}
Compressor Compressor::zstd(int level) {
  Compressor c;
  c.id = "zstd";
  c.level = level;
  return c;
}
Compressor Compressor::blosc(std::string cname, int clevel, int shuffle, int64_t blocksize) {
  Compressor c;
  c.id = "blosc";
  c.cname = std::move(cname);
  c.clevel = clevel;
  c.shuffle = shuffle;
  c.blocksize = blocksize;
  return c;
}

void check_compressor(const Compressor &c) {
  if (c.id.empty()) return;
  if (c.id == "zlib" || c.id == "gzip") {
    CA_CHECK(c.level >= -1 && c.level <= 9, CA_EINVAL, c.id, " level ", c.level, " is out of range -1..9");
    return;
  }
  if (c.id == "zstd") {
    CA_CHECK(c.level >= ZSTD_minCLevel() && c.level <= ZSTD_maxCLevel(), CA_EINVAL, "zstd level ", c.level,
             " is out of range ", ZSTD_minCLevel(), "..", ZSTD_maxCLevel());
    return;
  }
  if (c.id == "blosc") {
    int code = blosc_compname_to_compcode(c.cname.c_str());
    CA_CHECK(code >= 0, CA_EUNSUPPORTED, "blosc compressor '", c.cname, "' is not supported (this build has: ",
             blosc_list_compressors(), ")");
    CA_CHECK(c.clevel >= 0 && c.clevel <= 9, CA_EINVAL, "blosc clevel ", c.clevel, " is out of range 0..9");
    CA_CHECK(c.shuffle >= -1 && c.shuffle <= 2, CA_EINVAL, "blosc shuffle ", c.shuffle,
             " is not one of -1 (auto), 0 (none), 1 (byte), 2 (bit)");
    CA_CHECK(c.blocksize >= 0 && c.blocksize <= INT_MAX, CA_EINVAL, "blosc blocksize ", c.blocksize,
             " is out of range");
    return;
  }
  fail(CA_EUNSUPPORTED, "unknown compressor '", c.id, "' (supported: zlib, gzip, zstd, blosc)");
}

namespace {

struct ZstdCCtxFree {
  void operator()(ZSTD_CCtx *c) const noexcept { ZSTD_freeCCtx(c); }
};
struct ZstdDCtxFree {
  void operator()(ZSTD_DCtx *c) const noexcept { ZSTD_freeDCtx(c); }
};

ZSTD_CCtx *zstd_cctx() {
  thread_local std::unique_ptr<ZSTD_CCtx, ZstdCCtxFree> ctx(ZSTD_createCCtx());
  if (!ctx) fail(CA_ENOMEM, "cannot create a zstd compression context");
  return ctx.get();
}
ZSTD_DCtx *zstd_dctx() {
  thread_local std::unique_ptr<ZSTD_DCtx, ZstdDCtxFree> ctx(ZSTD_createDCtx());
  if (!ctx) fail(CA_ENOMEM, "cannot create a zstd decompression context");
  return ctx.get();
}

#if CA_LIBDEFLATE
// zlib/gzip through libdeflate (whole buffers, 2-3x zlib's speed both ways; same formats, so
// zarr-python reads what it writes, but a different encoder: the compressed bytes differ from zlib's).
// One compressor per thread and level, one decompressor per thread.
struct DeflateCFree {
  void operator()(libdeflate_compressor *c) const noexcept { libdeflate_free_compressor(c); }
};
struct DeflateDFree {
  void operator()(libdeflate_decompressor *d) const noexcept { libdeflate_free_decompressor(d); }
};

// zlib's level -1 is its default, 6; 1..9 keep their meaning (libdeflate's 1..9 follow zlib's: 1 the
// fastest, 9 the smallest; its 10..12 are slower still and never used here).
int libdeflate_level(int zlib_level) noexcept { return zlib_level < 0 ? 6 : zlib_level; }

libdeflate_compressor *deflate_compressor(int level) {
  thread_local std::unique_ptr<libdeflate_compressor, DeflateCFree> c[10];
  auto &slot = c[level];
  if (!slot) slot.reset(libdeflate_alloc_compressor(level));
  if (!slot) fail(CA_ENOMEM, "cannot allocate a deflate compressor (level ", level, ")");
  return slot.get();
}

detail::BigBuffer libdeflate_bytes(const void *src, size_t nbytes, int level, bool gzip) {
  libdeflate_compressor *c = deflate_compressor(libdeflate_level(level));
  size_t bound = gzip ? libdeflate_gzip_compress_bound(c, nbytes) : libdeflate_zlib_compress_bound(c, nbytes);
  detail::BigBuffer out(bound);
  size_t n = gzip ? libdeflate_gzip_compress(c, src, nbytes, out.data(), out.size())
                  : libdeflate_zlib_compress(c, src, nbytes, out.data(), out.size());
  if (n == 0) fail(CA_EINTERNAL, "libdeflate could not compress ", nbytes, " bytes into its bound of ", bound);
  out.resize_down(n);
  return out;
}

// A zlib or a gzip stream (by its first two bytes, as zlib's inflateInit2(15 + 32) decides), decoded
// to exactly nbytes; bytes after the stream are ignored (as zlib's inflate does).
void libinflate_bytes(const void *src, size_t srclen, void *dst, size_t nbytes, const std::string &what,
                      const char *name) {
  thread_local std::unique_ptr<libdeflate_decompressor, DeflateDFree> d(libdeflate_alloc_decompressor());
  if (!d) fail(CA_ENOMEM, "cannot allocate a deflate decompressor");
  const auto *b = static_cast<const unsigned char *>(src);
  const bool gz = srclen >= 2 && b[0] == 0x1f && b[1] == 0x8b;
  size_t in_used = 0, got = 0;
  libdeflate_result r = gz ? libdeflate_gzip_decompress_ex(d.get(), src, srclen, dst, nbytes, &in_used, &got)
                           : libdeflate_zlib_decompress_ex(d.get(), src, srclen, dst, nbytes, &in_used, &got);
  if (r == LIBDEFLATE_INSUFFICIENT_SPACE)
    fail(CA_EFORMAT, what, ": ", name, " data decodes to more than ", nbytes,
         " expected bytes (chunk of the wrong size)");
  if (r != LIBDEFLATE_SUCCESS)
    fail(CA_EFORMAT, what, ": corrupt or truncated ", name, " data (", srclen, " bytes)");
  if (got != nbytes)
    fail(CA_EFORMAT, what, ": ", name, " data decodes to ", got, " bytes, expected ", nbytes,
         " (chunk of the wrong size)");
}
#endif

// zlib/gzip compression into a buffer of the big-buffer cache (no zero fill, reused pages), grown
// only if deflateBound was not enough (it is an upper bound: never in practice).
detail::BigBuffer deflate_bytes(const void *src, size_t nbytes, int level, bool gzip) {
  z_stream zs{};
  int rc = deflateInit2(&zs, level, Z_DEFLATED, gzip ? 15 + 16 : 15, 8, Z_DEFAULT_STRATEGY);
  if (rc == Z_MEM_ERROR) fail(CA_ENOMEM, "zlib: out of memory");
  if (rc != Z_OK) fail(CA_EINTERNAL, "zlib deflateInit2 failed: ", rc);
  struct End {
    z_stream *z;
    ~End() { deflateEnd(z); }
  } end{&zs};
  detail::BigBuffer out(deflateBound(&zs, uLong(nbytes)) + 32);
  zs.next_in = static_cast<Bytef *>(const_cast<void *>(src));
  zs.avail_in = 0;
  zs.next_out = reinterpret_cast<Bytef *>(out.data());
  zs.avail_out = 0;
  size_t in_left = nbytes, out_left = out.size();
  do {
    // zlib counts in uInt: feed at most 1 GiB at a time.
    if (zs.avail_in == 0 && in_left > 0) {
      zs.avail_in = uInt(in_left < (1u << 30) ? in_left : (1u << 30));
      in_left -= zs.avail_in;
    }
    if (zs.avail_out == 0) {
      if (out_left == 0) {
        const size_t used = out.size();
        detail::BigBuffer bigger(used * 2);
        std::memcpy(bigger.data(), out.data(), used);
        out = std::move(bigger);
        zs.next_out = reinterpret_cast<Bytef *>(out.data() + used);
        out_left = out.size() - used;
      }
      zs.avail_out = uInt(out_left < (1u << 30) ? out_left : (1u << 30));
      out_left -= zs.avail_out;
    }
    rc = deflate(&zs, in_left == 0 ? Z_FINISH : Z_NO_FLUSH);
  } while (rc == Z_OK || rc == Z_BUF_ERROR);
  if (rc != Z_STREAM_END) fail(CA_EINTERNAL, "zlib deflate failed: ", rc);
  out.resize_down(size_t(zs.total_out));
  return out;
}

#if !CA_LIBDEFLATE
void inflate_bytes(const void *src, size_t srclen, void *dst, size_t nbytes, const std::string &what,
                   const char *name) {
  z_stream zs{};
  // 15 + 32: accept both zlib and gzip headers, as zlib.decompress and gzip readers would.
  int rc = inflateInit2(&zs, 15 + 32);
  if (rc == Z_MEM_ERROR) fail(CA_ENOMEM, "zlib: out of memory");
  if (rc != Z_OK) fail(CA_EINTERNAL, "zlib inflateInit2 failed: ", rc);
  zs.next_in = static_cast<Bytef *>(const_cast<void *>(src));
  zs.next_out = static_cast<Bytef *>(dst);
  size_t in_left = srclen, out_left = nbytes;
  unsigned char scratch[4096];
  bool overflow = false;
  size_t extra = 0;
  while (true) {
    if (zs.avail_in == 0 && in_left > 0) {
      zs.avail_in = uInt(in_left < (1u << 30) ? in_left : (1u << 30));
      in_left -= zs.avail_in;
    }
    if (zs.avail_out == 0) {
      if (out_left > 0) {
        zs.avail_out = uInt(out_left < (1u << 30) ? out_left : (1u << 30));
        out_left -= zs.avail_out;
      } else {
        // Output is full but the stream goes on: count the surplus into scratch for the message.
        if (overflow) extra += sizeof scratch;
        overflow = true;
        zs.next_out = scratch;
        zs.avail_out = sizeof scratch;
      }
    }
    rc = inflate(&zs, Z_NO_FLUSH);
    if (rc == Z_STREAM_END) break;
    if (rc == Z_OK) continue;
    if (rc == Z_BUF_ERROR && zs.avail_in == 0 && in_left == 0) {
      inflateEnd(&zs);
      fail(CA_EFORMAT, what, ": ", name, " data is truncated (", srclen, " bytes decode to less than ", nbytes,
           " expected bytes)");
    }
    if (rc == Z_BUF_ERROR) continue;
    std::string msg = zs.msg ? zs.msg : "error " + std::to_string(rc);
    inflateEnd(&zs);
    if (rc == Z_MEM_ERROR) fail(CA_ENOMEM, "zlib: out of memory");
    fail(CA_EFORMAT, what, ": corrupt ", name, " data (", msg, ")");
  }
  size_t produced = overflow ? nbytes + extra + (sizeof scratch - zs.avail_out) : nbytes - out_left - zs.avail_out;
  inflateEnd(&zs);
  if (produced != nbytes)
    fail(CA_EFORMAT, what, ": ", name, " data decodes to ", produced, " bytes, expected ", nbytes,
         " (chunk of the wrong size)");
}
#endif

// ---- blosc: lz4 frames written here, other byte shuffles of 8-byte items done here ------------------
// c-blosc 1.21 (Debian's) shuffles with SSE2, and for zarr's default Blosc(lz4, 5, SHUFFLE) on float64
// the shuffle and unshuffle cost as much as lz4 itself (unshuffle: ~3/4 of a decompression).
// - lz4 and lz4hc with liblz4 (-DCA_LZ4), no shuffle or byte shuffle of 8-byte items with the vector
//   shuffle (io/shuffle.hpp, AVX-512 VBMI): io/blosc_frame.hpp writes and reads the frame block by
//   block (shuffle one block into an L2-sized scratch, LZ4 it straight into the frame; reading, LZ4
//   each block's streams into the scratch and unshuffle into the destination). c-blosc's bytes.
// - other codecs inside blosc (blosclz, zstd, zlib) with byte shuffle of 8-byte items and VBMI: the
//   codec shuffles the chunk block by block into a staging buffer and lets blosc compress it without
//   shuffling, then sets the header's shuffle flag; reading, it clears the flag, lets blosc decompress
//   into a staging buffer and unshuffles each block from there. c-blosc splits a block into typesize
//   streams and picks its blocksize (blosc_blocksize) alike with or without shuffle, so the bytes are
//   c-blosc's; whatever that path cannot prove to match (blosc fell back to a plain copy, another
//   blocksize) is redone the plain way.
// - everything else: c-blosc as it is.
// tests/interop/test_zarr_store.cpp (ZarrCodec.*, BloscFrame.*) compares the bytes with c-blosc's.

// Header bytes of a blosc1 frame (c-blosc's README_HEADER): version, versionlz, flags, typesize,
// nbytes, blocksize, cbytes (little-endian uint32).
constexpr unsigned char kBloscDoShuffle = 0x1, kBloscMemcpyed = 0x2, kBloscDoBitshuffle = 0x4;
constexpr size_t kFastBloscMin = size_t(256) << 10;  // below this the plain path is as good

uint32_t load_le32(const unsigned char *p) noexcept {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

// io/shuffle.hpp's 8-byte shuffles as blosc_frame's block shufflers.
void shuffle8_block(unsigned char *dst, const unsigned char *src, size_t n, size_t) noexcept { shuffle8(dst, src, n); }
void unshuffle8_block(unsigned char *dst, const unsigned char *src, size_t n, size_t) noexcept {
  unshuffle8(dst, src, n);
}

// Whether the frame is written here (io/blosc_frame.hpp): lz4 or lz4hc with liblz4, and nothing to
// shuffle or 8-byte items with the vector shuffle (other byte shuffles stay with c-blosc's SSE2 ones).
bool blosc_frame_here(const Compressor &c, int shuffle, size_t ts) noexcept {
  return blosc_frame_handles(c.cname, shuffle) &&
         (shuffle == BLOSC_NOSHUFFLE || ts == 1 || (ts == 8 && fast_shuffle8_available()));
}

bool fast_blosc_compress(const Compressor &c, int shuffle, size_t ts, size_t nbytes) noexcept {
  return shuffle == BLOSC_SHUFFLE && ts == 8 && c.clevel > 0 && nbytes >= kFastBloscMin &&
         fast_shuffle8_available();
}

// The fast path: the frame in `buf` (its size the frame's), or false (then nothing is promised of buf).
bool blosc_compress_preshuffled(const Compressor &c, const unsigned char *src, size_t nbytes, size_t bs,
                                detail::BigBuffer &buf) {
  detail::BigBuffer staging(nbytes);
  auto *st = reinterpret_cast<unsigned char *>(staging.data());
  for (size_t off = 0; off < nbytes; off += bs) shuffle8(st + off, src + off, std::min(bs, nbytes - off));
  int r = blosc_compress_ctx(c.clevel, BLOSC_NOSHUFFLE, 8, nbytes, st, buf.data(), buf.size(), c.cname.c_str(),
                             size_t(c.blocksize), 1);
  auto *h = reinterpret_cast<unsigned char *>(buf.data());
  if (r < BLOSC_MIN_HEADER_LENGTH || (h[2] & (kBloscDoShuffle | kBloscMemcpyed | kBloscDoBitshuffle)) != 0 ||
      h[3] != 8 || load_le32(h + 8) != bs)
    return false;
  h[2] |= kBloscDoShuffle;
  buf.resize_down(size_t(r));
  return true;
}

}  // namespace

detail::BigBuffer encode_chunk_big(const Compressor &c, const void *src, size_t nbytes, size_t typesize) {
  check_compressor(c);
  auto copy_of = [](const void *p, size_t n) {
    detail::BigBuffer out(n);
    if (n) std::memcpy(out.data(), p, n);
    return out;
  };
  if (c.id.empty()) return copy_of(src, nbytes);
  if (c.id == "zlib" || c.id == "gzip") {
#if CA_LIBDEFLATE
    // Level 0 (stored blocks) stays with zlib: libdeflate 1.14's level 0 is not in every version.
    if (c.level != 0) return libdeflate_bytes(src, nbytes, c.level, c.id == "gzip");
#endif
    return deflate_bytes(src, nbytes, c.level, c.id == "gzip");
  }
  if (c.id == "zstd") {
    // Scratch of the bound from the big-buffer cache (no zero fill, no fresh pages per chunk);
    // the compressed bytes stay in it.
    detail::BigBuffer buf(ZSTD_compressBound(nbytes));
    size_t r = ZSTD_compressCCtx(zstd_cctx(), buf.data(), buf.size(), src, nbytes, c.level);
    if (ZSTD_isError(r)) fail(CA_EINTERNAL, "zstd compression failed: ", ZSTD_getErrorName(r));
    buf.resize_down(r);
    return buf;
  }
  // blosc
  CA_CHECK(nbytes <= size_t(BLOSC_MAX_BUFFERSIZE), CA_EINVAL, "chunk of ", nbytes,
           " bytes is too large for blosc (at most ", BLOSC_MAX_BUFFERSIZE, ")");
  int shuffle = c.shuffle;
  if (shuffle == -1) shuffle = typesize == 1 ? BLOSC_BITSHUFFLE : BLOSC_SHUFFLE;
  // blosc's typesize is one byte wide; larger items shuffle as bytes of 1 (numcodecs does the same).
  size_t ts = typesize > 0 && typesize <= BLOSC_MAX_TYPESIZE ? typesize : 1;
  detail::BigBuffer buf(nbytes + BLOSC_MAX_OVERHEAD);
  if (blosc_frame_here(c, shuffle, ts)) {
    // lz4 / lz4hc: the frame written here block by block (io/blosc_frame.hpp), c-blosc's bytes.
    size_t n = blosc_frame_compress(reinterpret_cast<unsigned char *>(buf.data()),
                                            static_cast<const unsigned char *>(src), nbytes, ts, c.cname, c.clevel,
                                            shuffle, size_t(c.blocksize), shuffle8_block);
    buf.resize_down(n);
    return buf;
  }
  if (fast_blosc_compress(c, shuffle, ts, nbytes)) {
    size_t bs = blosc_blocksize(c.cname, c.clevel, ts, nbytes, size_t(c.blocksize));
    if (blosc_compress_preshuffled(c, static_cast<const unsigned char *>(src), nbytes, bs, buf)) return buf;
  }
  int r = blosc_compress_ctx(c.clevel, shuffle, ts, nbytes, src, buf.data(), buf.size(), c.cname.c_str(),
                             size_t(c.blocksize), 1);
  if (r <= 0) fail(CA_EINTERNAL, "blosc compression (", c.cname, ") failed: ", r);
  buf.resize_down(size_t(r));
  return buf;
}

std::string encode_chunk(const Compressor &c, const void *src, size_t nbytes, size_t typesize) {
  detail::BigBuffer b = encode_chunk_big(c, src, nbytes, typesize);
  return std::string(b.data(), b.size());
}

size_t max_encoded_size(const Compressor &c, size_t nbytes) noexcept {
  if (c.id.empty()) return nbytes;
  return nbytes + nbytes / 16 + (size_t(64) << 10);
}

namespace {

// decode_chunk; `msrc` is src when the caller lets the blosc fast path flip a header bit in it for
// the time of the call, else null (the fast path then works on a copy of the compressed bytes).
void decode_impl(const Compressor &c, const void *src, size_t srclen, void *dst, size_t nbytes,
                 const std::string &what, unsigned char *msrc) {
  check_compressor(c);
  if (c.id.empty()) {
    if (srclen != nbytes)
      fail(CA_EFORMAT, what, ": uncompressed chunk has ", srclen, " bytes, expected ", nbytes,
           " (chunk of the wrong size)");
    std::memcpy(dst, src, nbytes);
    return;
  }
  if (c.id == "zlib" || c.id == "gzip") {
#if CA_LIBDEFLATE
    libinflate_bytes(src, srclen, dst, nbytes, what, c.id.c_str());
#else
    inflate_bytes(src, srclen, dst, nbytes, what, c.id.c_str());
#endif
    return;
  }
  if (c.id == "zstd") {
    unsigned long long known = ZSTD_getFrameContentSize(src, srclen);
    if (known == ZSTD_CONTENTSIZE_ERROR) fail(CA_EFORMAT, what, ": corrupt or truncated zstd data");
    // The first frame's size is the whole size when there is one frame (as numcodecs writes).
    bool one_frame = ZSTD_findFrameCompressedSize(src, srclen) == srclen;
    if (one_frame && known != ZSTD_CONTENTSIZE_UNKNOWN && known != nbytes)
      fail(CA_EFORMAT, what, ": zstd data decodes to ", known, " bytes, expected ", nbytes,
           " (chunk of the wrong size)");
    size_t r = ZSTD_decompressDCtx(zstd_dctx(), dst, nbytes, src, srclen);
    if (ZSTD_isError(r)) {
      if (ZSTD_getErrorCode(r) == ZSTD_error_dstSize_tooSmall)
        fail(CA_EFORMAT, what, ": zstd data decodes to more than ", nbytes, " expected bytes (chunk of the wrong size)");
      fail(CA_EFORMAT, what, ": corrupt zstd data (", ZSTD_getErrorName(r), ")");
    }
    if (r != nbytes)
      fail(CA_EFORMAT, what, ": zstd data decodes to ", r, " bytes, expected ", nbytes, " (chunk of the wrong size)");
    return;
  }
  // blosc: validate the header against the buffer before decompressing.
  size_t dec = 0;
  if (srclen < BLOSC_MIN_HEADER_LENGTH || blosc_cbuffer_validate(src, srclen, &dec) != 0)
    fail(CA_EFORMAT, what, ": corrupt or truncated blosc data (", srclen, " bytes)");
  if (dec != nbytes)
    fail(CA_EFORMAT, what, ": blosc data decodes to ", dec, " bytes, expected ", nbytes, " (chunk of the wrong size)");
  size_t nb = 0, cb = 0, bs = 0;
  blosc_cbuffer_sizes(src, &nb, &cb, &bs);
  if (cb != srclen) fail(CA_EFORMAT, what, ": blosc header says ", cb, " compressed bytes, the file has ", srclen);
  if (nbytes == 0) return;
  const auto *h = static_cast<const unsigned char *>(src);
  if (blosc_frame_reads(h, srclen) &&
      ((h[2] & kBloscDoShuffle) == 0 || h[3] == 1 || (h[3] == 8 && fast_shuffle8_available()))) {
    // An lz4 frame: decoded here block by block, each block unshuffled from an L2-sized scratch.
    blosc_frame_decompress(static_cast<unsigned char *>(dst), nbytes, h, srclen, unshuffle8_block, what);
    return;
  }
  if ((h[2] & (kBloscDoShuffle | kBloscMemcpyed | kBloscDoBitshuffle)) == kBloscDoShuffle && h[3] == 8 &&
      nbytes >= kFastBloscMin && bs >= 8 && bs <= nbytes && fast_shuffle8_available()) {
    // Decompress without blosc's unshuffle (the flag cleared for the call), then unshuffle each block.
    detail::BigBuffer copy;
    unsigned char *m = msrc;
    if (!m) {
      copy = detail::BigBuffer(srclen);
      std::memcpy(copy.data(), src, srclen);
      m = reinterpret_cast<unsigned char *>(copy.data());
    }
    detail::BigBuffer staging(nbytes);
    m[2] = static_cast<unsigned char>(m[2] & ~kBloscDoShuffle);
    int r = blosc_decompress_ctx(m, staging.data(), nbytes, 1);
    m[2] = static_cast<unsigned char>(m[2] | kBloscDoShuffle);
    if (r < 0 || size_t(r) != nbytes) fail(CA_EFORMAT, what, ": corrupt blosc data (blosc error ", r, ")");
    const auto *st = reinterpret_cast<const unsigned char *>(staging.data());
    auto *out = static_cast<unsigned char *>(dst);
    for (size_t off = 0; off < nbytes; off += bs) unshuffle8(out + off, st + off, std::min(bs, nbytes - off));
    return;
  }
  int r = blosc_decompress_ctx(src, dst, nbytes, 1);
  if (r < 0 || size_t(r) != nbytes) fail(CA_EFORMAT, what, ": corrupt blosc data (blosc error ", r, ")");
}

}  // namespace

void decode_chunk(const Compressor &c, const void *src, size_t srclen, void *dst, size_t nbytes,
                  const std::string &what) {
  decode_impl(c, src, srclen, dst, nbytes, what, nullptr);
}

void decode_chunk_mutable_src(const Compressor &c, void *src, size_t srclen, void *dst, size_t nbytes,
                              const std::string &what) {
  decode_impl(c, src, srclen, dst, nbytes, what, static_cast<unsigned char *>(src));
}

}  // namespace ca::io
