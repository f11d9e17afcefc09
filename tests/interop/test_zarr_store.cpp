// Zarr store internals without Python: codecs, metadata, bad stores, regions, concurrent chunk writes.
#include <gtest/gtest.h>
#include <blosc.h>
#include <zlib.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <random>
#include <thread>
#include <vector>

#include "interop_util.hpp"
#include "io/blosc_frame.hpp"
#include "io/codec.hpp"
#include "io/fs.hpp"
#include "io/shuffle.hpp"
#include "io/zarr_array.hpp"
#include "io/zarr_meta.hpp"

namespace {

using ca::Index;
using ca::test::TempDir;
namespace io = ca::io;

std::vector<io::Compressor> all_compressors() {
  return {io::Compressor::none(),           io::Compressor::zlib(1),           io::Compressor::gzip(9),
          io::Compressor::zstd(1),          io::Compressor::zstd(-3),          io::Compressor::blosc("lz4", 5, 0),
          io::Compressor::blosc("lz4", 5, 1), io::Compressor::blosc("lz4", 5, 2), io::Compressor::blosc("zstd", 3, 1),
          io::Compressor::blosc("blosclz", 5, 2), io::Compressor::blosc("lz4hc", 9, -1),
          io::Compressor::blosc("zlib", 1, 1), io::Compressor::blosc("lz4", 5, 1, 4096)};
}

// Expect `f` to throw ca::Error with `code` and a message containing every one of `parts`.
template <class F>
void expect_error(F &&f, ca_status_t code, std::initializer_list<std::string> parts) {
  try {
    f();
    ADD_FAILURE() << "no error thrown, expected code " << code;
  } catch (const ca::Error &e) {
    EXPECT_EQ(e.code(), code) << e.what();
    for (const std::string &p : parts) EXPECT_NE(e.message().find(p), std::string::npos) << "'" << p << "' not in: " << e.what();
  }
}

TEST(ZarrCodec, RoundTripEveryCompressor) {
  std::mt19937 rng(7);
  for (size_t n : {size_t(0), size_t(1), size_t(17), size_t(4096), size_t(300000)}) {
    std::vector<unsigned char> src(n);
    for (size_t i = 0; i < n; ++i) src[i] = (i % 7 == 0) ? rng() & 0xff : i & 0x3;  // compressible, not trivial
    for (const io::Compressor &c : all_compressors()) {
      SCOPED_TRACE(c.id + "/" + c.cname + " n=" + std::to_string(n));
      std::string enc = io::encode_chunk(c, src.data(), n, 8);
      std::vector<unsigned char> dec(n + 1, 0xAB);
      io::decode_chunk(c, enc.data(), enc.size(), dec.data(), n, "chunk");
      if (n) {
        EXPECT_EQ(std::memcmp(dec.data(), src.data(), n), 0);
      }
      EXPECT_EQ(dec[n], 0xAB);  // nothing past the end
      if (n > 0) {
        // Expecting another size is an error naming both sizes, not garbage.
        std::vector<unsigned char> big(n + 8);
        expect_error([&] { io::decode_chunk(c, enc.data(), enc.size(), big.data(), n + 8, "x/0.0"); }, CA_EFORMAT,
                     {"x/0.0", std::to_string(n + 8)});
      }
    }
  }
}

TEST(ZarrCodec, CorruptDataIsAFormatError) {
  std::vector<unsigned char> src(10000);
  for (size_t i = 0; i < src.size(); ++i) src[i] = (i * 31) & 0xff;
  for (const io::Compressor &c : all_compressors()) {
    SCOPED_TRACE(c.id + "/" + c.cname);
    std::string enc = io::encode_chunk(c, src.data(), src.size(), 4);
    std::vector<unsigned char> dst(src.size());
    // Truncated.
    expect_error([&] { io::decode_chunk(c, enc.data(), enc.size() / 2, dst.data(), dst.size(), "t/1"); }, CA_EFORMAT,
                 {"t/1"});
    // Random garbage of the same length.
    std::string junk(enc.size(), '\0');
    std::mt19937 rng(3);
    for (char &ch : junk) ch = char(rng());
    if (!c.is_none())
      expect_error([&] { io::decode_chunk(c, junk.data(), junk.size(), dst.data(), dst.size(), "g/2"); }, CA_EFORMAT,
                   {"g/2"});
  }
  expect_error([] { io::check_compressor(io::Compressor::blosc("snappyish")); }, CA_EUNSUPPORTED, {"snappyish"});
  io::Compressor lz;
  lz.id = "lzma";
  expect_error([&] { io::check_compressor(lz); }, CA_EUNSUPPORTED, {"lzma"});
}

// ---- the codec's own paths (codec.cpp): blosc's shuffle done here, zlib/gzip through libdeflate ------

// Chunk-sized data of both kinds: the benchmark's structured doubles and random bytes (incompressible).
std::vector<unsigned char> test_bytes(size_t n, bool random, unsigned seed) {
  std::vector<unsigned char> v(n);
  std::mt19937 rng(seed);
  if (random) {
    for (auto &b : v) b = static_cast<unsigned char>(rng());
  } else {
    for (size_t i = 0; i + 8 <= n; i += 8) {
      double x = double((i / 8 * 7 + seed) % 1000) * 0.001;
      std::memcpy(v.data() + i, &x, 8);
    }
    for (size_t i = n / 8 * 8; i < n; ++i) v[i] = static_cast<unsigned char>(i);
  }
  return v;
}

TEST(ZarrCodec, Shuffle8MatchesTheFormula) {
  std::mt19937 rng(11);
  for (size_t n : {size_t(0), size_t(5), size_t(8), size_t(504), size_t(512), size_t(519), size_t(4096 + 3),
                   size_t(131072), size_t(1048576 + 24)}) {
    SCOPED_TRACE(n);
    std::vector<unsigned char> src(n), a(n), b(n), back(n);
    for (auto &x : src) x = static_cast<unsigned char>(rng());
    io::shuffle8(a.data(), src.data(), n);
    io::shuffle_reference(b.data(), src.data(), n, 8);
    EXPECT_EQ(a, b);
    if (n >= 16) {  // byte 1 of item 0 is at plane 1's start
      EXPECT_EQ(a[n / 8], src[1]);
    }
    io::unshuffle8(back.data(), a.data(), n);
    EXPECT_EQ(back, src);
    io::unshuffle_reference(back.data(), a.data(), n, 8);
    EXPECT_EQ(back, src);
  }
}

TEST(ZarrCodec, BloscBytesAreCBloscs) {
  // Sizes above the fast path's 256 KiB: whole blocks only, a leftover block, a leftover of bytes.
  const size_t sizes[] = {size_t(4) << 20, (size_t(3) << 20) + 8 * 37, (size_t(1) << 20) + 8 * 4099 + 8,
                          size_t(300000)};
  const char *cnames[] = {"lz4", "blosclz", "zstd", "lz4hc", "zlib"};
  for (bool random : {false, true})
    for (size_t n : sizes)
      for (const char *cname : cnames) {
        SCOPED_TRACE(std::string(cname) + " n=" + std::to_string(n) + (random ? " random" : " structured"));
        io::Compressor c = io::Compressor::blosc(cname, 5, 1);
        auto src = test_bytes(n, random, unsigned(n));
        std::vector<char> ref(n + BLOSC_MAX_OVERHEAD);
        int r = blosc_compress_ctx(5, BLOSC_SHUFFLE, 8, n, src.data(), ref.data(), ref.size(), cname, 0, 1);
        ASSERT_GT(r, 0);
        ref.resize(size_t(r));
        // The first chunk of a size goes the plain way (the blocksize is learned), the next ones the fast way.
        for (int k = 0; k < 3; ++k) {
          std::string enc = io::encode_chunk(c, src.data(), n, 8);
          ASSERT_EQ(enc.size(), ref.size()) << "call " << k;
          EXPECT_EQ(std::memcmp(enc.data(), ref.data(), ref.size()), 0) << "call " << k;
        }
        // Our reader on c-blosc's bytes, both entry points; c-blosc's reader on ours is the identity above.
        std::vector<unsigned char> dec(n + 1, 0xAB);
        io::decode_chunk(c, ref.data(), ref.size(), dec.data(), n, "b/0");
        EXPECT_EQ(std::memcmp(dec.data(), src.data(), n), 0);
        EXPECT_EQ(dec[n], 0xAB);
        std::vector<char> copy = ref;
        std::fill(dec.begin(), dec.end(), 0xCD);
        io::decode_chunk_mutable_src(c, copy.data(), copy.size(), dec.data(), n, "b/0");
        EXPECT_EQ(std::memcmp(dec.data(), src.data(), n), 0);
        EXPECT_EQ(dec[n], 0xCD);
        EXPECT_EQ(copy, ref);  // the header bit flipped for the call is restored
      }
}

TEST(ZarrCodec, BloscFastPathCorruptInputIsAFormatError) {
  const size_t n = size_t(2) << 20;
  auto src = test_bytes(n, false, 5);
  io::Compressor c = io::Compressor::blosc("lz4", 5, 1);
  std::string enc = io::encode_chunk(c, src.data(), n, 8);
  std::vector<unsigned char> dst(n);
  std::mt19937 rng(9);
  int errors = 0;
  for (int trial = 0; trial < 60; ++trial) {
    std::string bad = enc;
    if (trial < 20) {
      bad.resize(16 + rng() % (enc.size() - 16));  // truncated
    } else {
      for (int k = 0; k < 1 + trial % 5; ++k) bad[16 + rng() % (bad.size() - 16)] ^= char(1 + rng() % 255);
    }
    for (bool mut : {false, true}) {
      try {
        if (mut)
          io::decode_chunk_mutable_src(c, bad.data(), bad.size(), dst.data(), n, "z/1");
        else
          io::decode_chunk(c, bad.data(), bad.size(), dst.data(), n, "z/1");
      } catch (const ca::Error &e) {
        EXPECT_EQ(e.code(), CA_EFORMAT) << e.what();
        EXPECT_NE(e.message().find("z/1"), std::string::npos) << e.what();
        ++errors;
      }
    }
  }
  EXPECT_GE(errors, 40);  // every truncation at least; a flipped literal byte may decode (to wrong values)
}

// ---- blosc frames written and read here (io/blosc_frame.hpp) against c-blosc's ------------------------

// The frame tests' data: 0 the benchmark's structured doubles, 1 random bytes (incompressible), 2 the
// first ~half zeros and the rest random (streams that compress, then streams stored as they are),
// 3 random but for a small zero run (the streams outgrow nbytes + 16 late: the whole chunk is stored).
std::vector<unsigned char> frame_bytes(size_t n, int kind, unsigned seed) {
  auto v = test_bytes(n, kind != 0, seed);
  if (kind == 2) std::fill(v.begin(), v.begin() + std::ptrdiff_t(n / 2 + n / 7), 0);
  if (kind == 3) std::fill(v.begin(), v.begin() + std::ptrdiff_t(std::min<size_t>(n, 40)), 0);
  return v;
}

void reference_shuffle(unsigned char *dst, const unsigned char *src, size_t n, size_t ts) noexcept {
  io::shuffle_reference(dst, src, n, ts);
}
void reference_unshuffle(unsigned char *dst, const unsigned char *src, size_t n, size_t ts) noexcept {
  io::unshuffle_reference(dst, src, n, ts);
}

std::vector<unsigned char> cblosc_frame(const std::vector<unsigned char> &src, const char *cname, int clevel,
                                        int shuffle, size_t ts, size_t forced) {
  std::vector<unsigned char> ref(src.size() + BLOSC_MAX_OVERHEAD);
  int r = blosc_compress_ctx(clevel, shuffle, ts, src.size(), src.data(), ref.data(), ref.size(), cname, forced, 1);
  EXPECT_GT(r, 0);
  ref.resize(size_t(std::max(r, 0)));
  return ref;
}

// c-blosc's reader on `frame`, and ours when it reads such frames: both give `src` back.
void expect_frame_decodes(const std::vector<unsigned char> &frame, const std::vector<unsigned char> &src) {
  const size_t n = src.size();
  std::vector<unsigned char> dec(n + 1, 0x5A);
  EXPECT_EQ(blosc_decompress_ctx(frame.data(), dec.data(), n, 1), int(n));
  EXPECT_EQ(std::memcmp(dec.data(), src.data(), n), 0);
  if (io::blosc_frame_reads(frame.data(), frame.size())) {
    std::fill(dec.begin(), dec.end(), 0xA5);
    io::blosc_frame_decompress(dec.data(), n, frame.data(), frame.size(), reference_unshuffle, "f/0");
    EXPECT_EQ(std::memcmp(dec.data(), src.data(), n), 0);
    EXPECT_EQ(dec[n], 0xA5);
  }
}

TEST(BloscFrame, BlocksizeIsCBloscs) {
  // The header's blocksize of c-blosc's frames (zeros compress fast with every codec), every codec and
  // level, typesizes that split and that do not, requested blocksizes clamped either way.
  const char *cnames[] = {"lz4", "lz4hc", "blosclz", "zstd", "zlib"};
  for (const char *cname : cnames)
    for (size_t n : {size_t(0), size_t(5), size_t(100), size_t(5000), size_t(40000), (size_t(3) << 19) + 8})
      for (size_t ts : {size_t(1), size_t(2), size_t(8), size_t(16), size_t(24), size_t(200)})
        for (int clevel = 0; clevel <= 9; ++clevel)
          for (size_t forced : {size_t(0), size_t(100), size_t(20000), size_t(1) << 21}) {
            if (forced && clevel != 5 && clevel != 0) continue;
            if (n > 100000 && (forced == 100 || (ts != 8 && ts != 24))) continue;  // 1.5 MiB: no 100-byte blocks
            SCOPED_TRACE(std::string(cname) + " n=" + std::to_string(n) + " ts=" + std::to_string(ts) +
                         " clevel=" + std::to_string(clevel) + " forced=" + std::to_string(forced));
            std::vector<unsigned char> zeros(n, 0);
            auto ref = cblosc_frame(zeros, cname, clevel, BLOSC_NOSHUFFLE, ts, forced);
            ASSERT_GE(ref.size(), size_t(BLOSC_MIN_HEADER_LENGTH));
            size_t nb = 0, cb = 0, bs = 0;
            blosc_cbuffer_sizes(ref.data(), &nb, &cb, &bs);
            EXPECT_EQ(io::blosc_blocksize(cname, clevel, ts, n, forced), bs);
          }
}

TEST(BloscFrame, FramesAreCBloscsByteForByte) {
  if (!io::blosc_frame_available()) GTEST_SKIP() << "built without liblz4: c-blosc writes every frame";
  EXPECT_TRUE(io::blosc_frame_handles("lz4", 1) && io::blosc_frame_handles("lz4hc", 0));
  EXPECT_FALSE(io::blosc_frame_handles("lz4", 2) || io::blosc_frame_handles("zstd", 1) ||
               io::blosc_frame_handles("blosclz", 0));
  // Sizes: empty, below c-blosc's 128-byte minimum, one block, a short last block, blocks of one
  // stream; typesizes that split into streams and that do not (17), a block of 1 byte (200 > 150).
  const size_t sizes[] = {0, 1, 7, 127, 128, 150, 1000, 32768 + 5, 3 * 65536 + 24, 200000};
  const size_t typesizes[] = {1, 2, 3, 4, 8, 16, 17, 200};
  int k = 0, stored_late = 0;
  for (const char *cname : {"lz4", "lz4hc"})
    for (int shuffle : {BLOSC_NOSHUFFLE, BLOSC_SHUFFLE})
      for (size_t ts : typesizes)
        for (size_t n : sizes)
          for (int kind = 0; kind < 4; ++kind, ++k) {
            // Levels 0..9 in turn (lz4hc's slow high levels on the smaller sizes only).
            int clevel = k % 10;
            if (std::string(cname) == "lz4hc" && n > 100000) clevel = 1 + k % 4;
            const size_t forced = k % 7 == 3 ? 4096 : 0;
            SCOPED_TRACE(std::string(cname) + " shuffle=" + std::to_string(shuffle) + " ts=" + std::to_string(ts) +
                         " n=" + std::to_string(n) + " kind=" + std::to_string(kind) +
                         " clevel=" + std::to_string(clevel) + " forced=" + std::to_string(forced));
            auto src = frame_bytes(n, kind, unsigned(k));
            auto ref = cblosc_frame(src, cname, clevel, shuffle, ts, forced);
            std::vector<unsigned char> ours(n + BLOSC_MAX_OVERHEAD + 1, 0xEE);
            size_t len = io::blosc_frame_compress(ours.data(), src.data(), n, ts, cname, clevel, shuffle, forced,
                                                  reference_shuffle);
            EXPECT_EQ(ours[n + BLOSC_MAX_OVERHEAD], 0xEE);  // within nbytes + 16
            ours.resize(len);
            ASSERT_EQ(ours.size(), ref.size());
            EXPECT_TRUE(ours == ref);
            expect_frame_decodes(ref, src);
            if (clevel > 0 && n >= 128 && (ref[2] & BLOSC_MEMCPYED)) ++stored_late;
            // The codec's entry points (its own frame where it writes one, else c-blosc's) agree.
            io::Compressor c = io::Compressor::blosc(cname, clevel, shuffle, int64_t(forced));
            std::string enc = io::encode_chunk(c, src.data(), n, ts);
            ASSERT_EQ(enc.size(), ref.size());
            EXPECT_EQ(std::memcmp(enc.data(), ref.data(), ref.size()), 0);
            std::vector<unsigned char> dec(n + 1, 0x33);
            io::decode_chunk(c, ref.data(), ref.size(), dec.data(), n, "f/1");
            EXPECT_EQ(std::memcmp(dec.data(), src.data(), n), 0);
            EXPECT_EQ(dec[n], 0x33);
          }
  EXPECT_GT(stored_late, 50);  // streams that outgrew nbytes + 16: the whole chunk stored after all
}

TEST(BloscFrame, EveryLevelOnChunkSizedDoubles) {
  if (!io::blosc_frame_available()) GTEST_SKIP() << "built without liblz4: c-blosc writes every frame";
  // The benchmark's case (8-byte items, byte shuffle through the vector shuffle) at every level, 4 MiB
  // plus a short last block, compressible and not.
  const size_t n = (size_t(4) << 20) + 8 * 1001;
  for (int kind : {0, 1, 2})
    for (int clevel = 0; clevel <= 9; ++clevel) {
      SCOPED_TRACE("kind=" + std::to_string(kind) + " clevel=" + std::to_string(clevel));
      auto src = frame_bytes(n, kind, unsigned(clevel));
      auto ref = cblosc_frame(src, "lz4", clevel, BLOSC_SHUFFLE, 8, 0);
      std::string enc = io::encode_chunk(io::Compressor::blosc("lz4", clevel, 1), src.data(), n, 8);
      ASSERT_EQ(enc.size(), ref.size());
      EXPECT_EQ(std::memcmp(enc.data(), ref.data(), ref.size()), 0);
      std::vector<unsigned char> dec(n);
      io::decode_chunk(io::Compressor::blosc("lz4", clevel, 1), ref.data(), ref.size(), dec.data(), n, "e/0");
      EXPECT_TRUE(dec == src);
    }
}

TEST(BloscFrame, LargeRequestedBlocks) {
  if (!io::blosc_frame_available()) GTEST_SKIP() << "built without liblz4";
  // Items of 24 bytes never split, so a requested 6 MiB block stays 6 MiB: the scratch beyond the
  // per-thread 4 MiB comes from the big-buffer cache for the call. A short last block of 1 MiB + 120.
  const size_t n = (size_t(7) << 20) + 5 * 24;
  for (int kind : {0, 2}) {
    auto src = frame_bytes(n, kind, 17);
    auto ref = cblosc_frame(src, "lz4", 3, BLOSC_SHUFFLE, 24, size_t(6) << 20);
    size_t nb = 0, cb = 0, bs = 0;
    blosc_cbuffer_sizes(ref.data(), &nb, &cb, &bs);
    EXPECT_EQ(bs, size_t(6) << 20);
    std::vector<unsigned char> ours(n + BLOSC_MAX_OVERHEAD);
    ours.resize(io::blosc_frame_compress(ours.data(), src.data(), n, 24, "lz4", 3, BLOSC_SHUFFLE, size_t(6) << 20,
                                         reference_shuffle));
    EXPECT_TRUE(ours == ref);
    expect_frame_decodes(ref, src);
  }
}

TEST(BloscFrame, CorruptFramesAreFormatErrors) {
  if (!io::blosc_frame_available()) GTEST_SKIP() << "built without liblz4";
  for (int shuffle : {BLOSC_NOSHUFFLE, BLOSC_SHUFFLE})
    for (size_t ts : {size_t(4), size_t(8)}) {
      const size_t n = (size_t(1) << 20) + 12;
      auto src = frame_bytes(n, 0, 3);
      auto ref = cblosc_frame(src, "lz4", 5, shuffle, ts, 0);
      ASSERT_TRUE(io::blosc_frame_reads(ref.data(), ref.size()));
      std::vector<unsigned char> dst(n);
      std::mt19937 rng(unsigned(shuffle * 10 + int(ts)));
      int errors = 0;
      for (int trial = 0; trial < 40; ++trial) {
        auto bad = ref;
        if (trial < 10) {
          bad.resize(16 + rng() % (ref.size() - 16));  // truncated: the header's cbytes disagrees
        } else if (trial < 20) {  // a block start or a stream size out of range
          size_t at = 16 + 4 * (rng() % 2);
          bad[at + 3] = 0x7F;
        } else {
          for (int j = 0; j < 1 + trial % 4; ++j) bad[16 + rng() % (bad.size() - 16)] ^= (unsigned char)(1 + rng() % 255);
        }
        try {
          io::blosc_frame_decompress(dst.data(), n, bad.data(), bad.size(), reference_unshuffle, "c/0");
        } catch (const ca::Error &e) {
          EXPECT_EQ(e.code(), CA_EFORMAT) << e.what();
          EXPECT_NE(e.message().find("c/0"), std::string::npos) << e.what();
          ++errors;
        }
      }
      EXPECT_GE(errors, 20);  // every truncation and table corruption at least
      // Not an lz4 frame, or one this reader leaves to c-blosc: refused by name.
      auto other = cblosc_frame(src, "blosclz", 5, shuffle, ts, 0);
      EXPECT_FALSE(io::blosc_frame_reads(other.data(), other.size()));
      expect_error([&] { io::blosc_frame_decompress(dst.data(), n, other.data(), other.size(), reference_unshuffle, "c/1"); },
                   CA_EFORMAT, {"c/1"});
    }
}

// A frame whose blocksize is not a whole number of items, split into typesize streams stored as
// they are (each the floor of blocksize / typesize bytes): every stream decodes, but together they
// would leave the block's last bytes unwritten. Refused instead of returning those bytes.
TEST(BloscFrame, BlocksizeNotWholeItemsIsAFormatError) {
  if (!io::blosc_frame_available()) GTEST_SKIP() << "built without liblz4";
  const size_t n = 1028, ts = 8, stream = n / ts;
  std::vector<unsigned char> f(16 + 4 + ts * (4 + stream), 0);
  auto le32 = [&](size_t at, size_t v) {
    for (int k = 0; k < 4; ++k) f[at + size_t(k)] = static_cast<unsigned char>(v >> (8 * k));
  };
  f[0] = BLOSC_VERSION_FORMAT;
  f[1] = BLOSC_LZ4_VERSION_FORMAT;
  f[2] = static_cast<unsigned char>(BLOSC_LZ4_FORMAT << 5);  // lz4, no shuffle, split streams
  f[3] = static_cast<unsigned char>(ts);
  le32(4, n);
  le32(8, n);  // one block of 1028 bytes: 128.5 items
  le32(12, f.size());
  le32(16, 20);
  for (size_t j = 0; j < ts; ++j) le32(20 + j * (4 + stream), stream);
  ASSERT_TRUE(io::blosc_frame_reads(f.data(), f.size()));
  std::vector<unsigned char> dst(n);
  expect_error([&] { io::blosc_frame_decompress(dst.data(), n, f.data(), f.size(), reference_unshuffle, "c/2"); },
               CA_EFORMAT, {"c/2", "blocksize"});
}

TEST(ZarrCodec, ZlibAndGzipInteroperateWithZlib) {
  for (bool random : {false, true})
    for (size_t n : {size_t(1), size_t(1000), size_t(1) << 20})
      for (int level : {-1, 1, 6, 9})
        for (bool gzip : {false, true}) {
          SCOPED_TRACE(std::to_string(n) + " level " + std::to_string(level) + (gzip ? " gzip" : " zlib"));
          auto src = test_bytes(n, random, unsigned(level + 7));
          io::Compressor c = gzip ? io::Compressor::gzip(level) : io::Compressor::zlib(level);
          // zlib reads ours.
          std::string enc = io::encode_chunk(c, src.data(), n, 8);
          z_stream zs{};
          ASSERT_EQ(inflateInit2(&zs, gzip ? 15 + 16 : 15), Z_OK);
          std::vector<unsigned char> dec(n + 1);
          zs.next_in = reinterpret_cast<Bytef *>(enc.data());
          zs.avail_in = uInt(enc.size());
          zs.next_out = dec.data();
          zs.avail_out = uInt(dec.size());
          EXPECT_EQ(inflate(&zs, Z_FINISH), Z_STREAM_END);
          EXPECT_EQ(zs.total_out, n);
          inflateEnd(&zs);
          EXPECT_EQ(std::memcmp(dec.data(), src.data(), n), 0);
          // We read zlib's.
          z_stream cs{};
          ASSERT_EQ(deflateInit2(&cs, level, Z_DEFLATED, gzip ? 15 + 16 : 15, 8, Z_DEFAULT_STRATEGY), Z_OK);
          std::string zenc(deflateBound(&cs, uLong(n)) + 32, '\0');
          cs.next_in = src.data();
          cs.avail_in = uInt(n);
          cs.next_out = reinterpret_cast<Bytef *>(zenc.data());
          cs.avail_out = uInt(zenc.size());
          ASSERT_EQ(deflate(&cs, Z_FINISH), Z_STREAM_END);
          zenc.resize(cs.total_out);
          deflateEnd(&cs);
          std::fill(dec.begin(), dec.end(), 0);
          io::decode_chunk(c, zenc.data(), zenc.size(), dec.data(), n, "zl/0");
          EXPECT_EQ(std::memcmp(dec.data(), src.data(), n), 0);
          // Truncated zlib output: a format error.
          expect_error([&] { io::decode_chunk(c, zenc.data(), zenc.size() - 1, dec.data(), n, "zl/1"); },
                       CA_EFORMAT, {"zl/1"});
        }
}

TEST(ZarrMeta, JsonRoundTripAndFillValues) {
  io::ZarrMeta m = io::make_zarr_meta(CA_COMPLEX64, {10, 3}, {4, 3});
  m.big_endian = true;
  m.order = 'F';
  m.fill_value = std::complex<double>(std::numeric_limits<double>::quiet_NaN(), -std::numeric_limits<double>::infinity());
  m.compressor = io::Compressor::blosc("zstd", 7, 2, 0);
  m.dimension_separator = '/';
  std::string text = io::zarray_to_json(m);
  EXPECT_NE(text.find("\"NaN\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"-Infinity\""), std::string::npos) << text;
  EXPECT_NE(text.find("\">c8\""), std::string::npos) << text;
  io::ZarrMeta r = io::parse_zarray(text);
  EXPECT_EQ(r.shape, m.shape);
  EXPECT_EQ(r.chunks, m.chunks);
  EXPECT_EQ(r.dtype, m.dtype);
  EXPECT_TRUE(r.big_endian);
  EXPECT_EQ(r.order, 'F');
  EXPECT_EQ(r.compressor, m.compressor);
  EXPECT_EQ(r.dimension_separator, '/');
  auto fb = r.fill_bytes();
  std::complex<float> f;
  std::memcpy(&f, fb.data(), sizeof f);
  EXPECT_TRUE(std::isnan(f.real()));
  EXPECT_EQ(f.imag(), -std::numeric_limits<float>::infinity());

  auto base = [](const std::string &dtype, const std::string &fill) {
    return "{\"zarr_format\": 2, \"shape\": [4], \"chunks\": [2], \"dtype\": \"" + dtype +
           "\", \"order\": \"C\", \"compressor\": null, \"filters\": null, \"fill_value\": " + fill + "}";
  };
  EXPECT_EQ(std::get<double>(io::parse_zarray(base("<f4", "\"Infinity\"")).fill_value),
            std::numeric_limits<double>::infinity());
  EXPECT_EQ(std::get<uint64_t>(io::parse_zarray(base("<u8", "18446744073709551615")).fill_value),
            std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(std::get<bool>(io::parse_zarray(base("|b1", "true")).fill_value), true);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(io::parse_zarray(base("<i2", "null")).fill_value));
  expect_error([&] { io::parse_zarray(base("<i4", "\"NaN\""), "a/.zarray"); }, CA_EFORMAT, {"a/.zarray", "fill_value"});
  expect_error([&] { io::parse_zarray(base("|u1", "300"), "a/.zarray"); }, CA_EFORMAT, {"300", "uint8"});
  // datetime64/timedelta64 (ticks, "NaT"), float16, bytes (base64; a number is its digits, as
  // zarr-python reads it through NumPy), unicode (the text); generic units and multipliers are not.
  auto fill_of = [&](const char *dt, const char *fill) {
    io::ZarrMeta m = io::parse_zarray(base(dt, fill), "a/.zarray");
    std::vector<unsigned char> b = m.fill_bytes();
    b.resize(ca::dtype_size(m.dtype));
    return std::make_pair(m.dtype, b);
  };
  auto i64_bytes = [](int64_t v) {
    std::vector<unsigned char> b(8);
    std::memcpy(b.data(), &v, 8);
    return b;
  };
  EXPECT_EQ(fill_of("<M8[ns]", "0"), std::make_pair(CA_DTYPE_MAKE(CA_DATETIME64, CA_UNIT_NS), i64_bytes(0)));
  EXPECT_EQ(fill_of("<m8[s]", "-9223372036854775808"), std::make_pair(CA_DTYPE_MAKE(CA_TIMEDELTA64, CA_UNIT_S), i64_bytes(INT64_MIN)));
  EXPECT_EQ(fill_of("<M8[D]", "\"NaT\""), std::make_pair(CA_DTYPE_MAKE(CA_DATETIME64, CA_UNIT_D), i64_bytes(INT64_MIN)));
  EXPECT_EQ(fill_of("<f2", "1.5"), std::make_pair(ca_dtype_t(CA_FLOAT16), std::vector<unsigned char>{0x00, 0x3e}));
  EXPECT_EQ(fill_of("|S4", "\"YWI=\""), std::make_pair(CA_DTYPE_MAKE(CA_BYTES, 4), std::vector<unsigned char>{'a', 'b', 0, 0}));
  EXPECT_EQ(fill_of("|S4", "0"), std::make_pair(CA_DTYPE_MAKE(CA_BYTES, 4), std::vector<unsigned char>{'0', 0, 0, 0}));
  EXPECT_EQ(fill_of("<U2", "\"\u00e9\""), std::make_pair(CA_DTYPE_MAKE(CA_UNICODE, 2),
                                                        std::vector<unsigned char>{0xe9, 0, 0, 0, 0, 0, 0, 0}));
  expect_error([&] { io::parse_zarray(base("|S1", "\"YWI=\""), "a/.zarray").fill_bytes(); }, CA_EFORMAT, {"S1"});
  expect_error([&] { io::parse_zarray(base("<M8", "0"), "a/.zarray"); }, CA_EUNSUPPORTED, {"M8"});
  expect_error([&] { io::parse_zarray(base("<M8[5s]", "0"), "a/.zarray"); }, CA_EUNSUPPORTED, {"multiplier"});
  expect_error([&] { io::parse_zarray(base("|V4", "0"), "a/.zarray"); }, CA_EUNSUPPORTED, {"V4"});
}

// Bad stores on disk: each gives the right code and a message naming the problem.
TEST(ZarrBadStore, MetadataErrors) {
  TempDir dir;
  auto store = [&](const std::string &name, const std::string &zarray) {
    std::string p = dir / name;
    std::filesystem::create_directories(p);
    ca::test::write_text(p + "/.zarray", zarray);
    return p;
  };
  const std::string good =
      R"({"zarr_format": 2, "shape": [4, 4], "chunks": [2, 2], "dtype": "<f8", "order": "C", "compressor": null, "filters": null, "fill_value": 0})";
  EXPECT_EQ(io::read_zarr_meta(store("good", good)).shape, (std::vector<Index>{4, 4}));
  expect_error([&] { io::read_zarr_meta(dir / "nothing"); }, CA_ENOTFOUND, {"nothing", "does not exist"});
  std::filesystem::create_directories(dir / "empty");
  expect_error([&] { io::read_zarr_meta(dir / "empty"); }, CA_ENOTFOUND, {".zarray", "is missing"});
  expect_error([&] { io::read_zarr_meta(store("corrupt", "{\"zarr_format\": 2, \"shape\": [4,")); }, CA_EFORMAT,
               {"corrupt/.zarray", "corrupt JSON"});
  expect_error([&] { io::read_zarr_meta(store("list", "[1, 2]")); }, CA_EFORMAT, {"list/.zarray", "object"});
  std::string s = good;
  s.replace(s.find("\"compressor\": null"), 18, R"("compressor": {"id": "lzma", "preset": 1})");
  expect_error([&] { io::read_zarr_meta(store("lzma", s)); }, CA_EUNSUPPORTED, {"lzma/.zarray", "unknown compressor 'lzma'"});
  s = good;
  s.replace(s.find("\"filters\": null"), 15, R"("filters": [{"id": "delta", "dtype": "<f8"}])");
  expect_error([&] { io::read_zarr_meta(store("filters", s)); }, CA_EUNSUPPORTED, {"filters", "delta"});
  s = good;
  s.replace(s.find("\"zarr_format\": 2"), 16, "\"zarr_format\": 3");
  expect_error([&] { io::read_zarr_meta(store("v3", s)); }, CA_EVERSION, {"zarr_format", "3"});
  s = good;
  s.replace(s.find("\"chunks\": [2, 2]"), 16, "\"chunks\": [2]");
  expect_error([&] { io::read_zarr_meta(store("rank", s)); }, CA_EFORMAT, {"'chunks' has 1", "'shape' has 2"});
  s = good;
  s.replace(s.find("\"chunks\": [2, 2]"), 16, "\"chunks\": [0, 2]");
  expect_error([&] { io::read_zarr_meta(store("zero", s)); }, CA_EFORMAT, {"chunks"});
  s = good;
  s.replace(s.find("\"order\": \"C\""), 12, "\"order\": \"X\"");
  expect_error([&] { io::read_zarr_meta(store("order", s)); }, CA_EFORMAT, {"order"});
  s = good;
  s.replace(s.find("\"shape\": [4, 4], "), 17, "");
  expect_error([&] { io::read_zarr_meta(store("noshape", s)); }, CA_EFORMAT, {"'shape' is missing"});
}

TEST(ZarrBadStore, ChunkErrors) {
  TempDir dir;
  for (const io::Compressor &c : all_compressors()) {
    std::string name = c.id.empty() ? "none" : c.id + c.cname + std::to_string(c.shuffle) + "_" + std::to_string(c.level) + "_" + std::to_string(c.blocksize);
    SCOPED_TRACE(name);
    std::string p = dir / name;
    io::ZarrMeta m = io::make_zarr_meta(CA_INT32, {6, 6}, {3, 3});
    m.compressor = c;
    io::create_zarr_array(p, m);
    ca::BlockRef b(ca::block_new(CA_INT32, 2, m.shape.data()));
    for (int i = 0; i < 36; ++i) b.data<int32_t>()[i] = i * 1000;
    io::write_zarr_region(p, m, std::vector<Index>{0, 0}, *b.get());
    // Truncate chunk 0.0 to half its size.
    std::string file = p + "/0.0";
    std::string bytes = ca::test::read_text(file);
    ca::test::write_text(file, bytes.substr(0, bytes.size() / 2));
    expect_error([&] { io::read_zarr_chunk(p, m, std::vector<Index>{0, 0}); }, CA_EFORMAT, {file});
    expect_error([&] { io::read_zarr_region(p, m, std::vector<Index>{0, 0}, std::vector<Index>{6, 6}); }, CA_EFORMAT,
                 {file});
    // The other chunks are fine.
    ca::BlockRef ok = io::read_zarr_chunk(p, m, std::vector<Index>{1, 1});
    EXPECT_EQ(ok.data<int32_t>()[0], (3 * 6 + 3) * 1000);
    // A valid chunk of the wrong size: the chunk of a (2, 3) array.
    io::ZarrMeta small = m;
    small.chunks = {2, 3};
    small.shape = {2, 3};
    std::string sp = p + "_small";
    io::create_zarr_array(sp, small);
    ca::BlockRef sb(ca::block_new(CA_INT32, 2, small.shape.data()));
    std::memset(sb->data, 1, size_t(sb->nbytes));
    io::write_zarr_chunk(sp, small, std::vector<Index>{0, 0}, *sb.get());
    std::filesystem::copy_file(sp + "/0.0", p + "/1.0", std::filesystem::copy_options::overwrite_existing);
    expect_error([&] { io::read_zarr_chunk(p, m, std::vector<Index>{1, 0}); }, CA_EFORMAT,
                 {p + "/1.0", "36"});  // expected 3*3*4 = 36 bytes
  }
  // An uncompressed chunk's message has both sizes.
  io::ZarrMeta m = io::make_zarr_meta(CA_FLOAT64, {4}, {4});
  io::create_zarr_array(dir / "raw", m);
  ca::test::write_text(dir / "raw/0", std::string(20, 'x'));
  expect_error([&] { io::read_zarr_chunk(dir / "raw", m, std::vector<Index>{0}); }, CA_EFORMAT,
               {"raw/0", "20 bytes", "expected 32"});
  // Outside the chunk grid.
  expect_error([&] { io::read_zarr_chunk(dir / "raw", m, std::vector<Index>{1}); }, CA_EINVAL, {"chunk grid"});
}

TEST(ZarrStore, OneChunkRegionWritesMatchChunkWrites) {
  // write_zarr_region with a block that is exactly one full chunk encodes the block itself (no chunk
  // buffer): its files are the same bytes as write_zarr_chunk's, for C/F order, both byte orders, and
  // the blosc lz4 frame path; an edge chunk (not full) and a misaligned one go the copying way.
  TempDir dir;
  int k = 0;
  for (char order : {'C', 'F'})
    for (bool big : {false, true})
      for (const io::Compressor &comp : {io::Compressor::blosc("lz4", 5, 1), io::Compressor::none(), io::Compressor::zstd(1)}) {
        SCOPED_TRACE(std::string(1, order) + (big ? " big" : " little") + " " + comp.id);
        io::ZarrMeta m = io::make_zarr_meta(CA_FLOAT64, {130, 70}, {64, 48});
        m.order = order;
        m.big_endian = big;
        m.compressor = comp;
        std::string a = dir / ("a" + std::to_string(k)), b = dir / ("b" + std::to_string(k++));
        io::create_zarr_array(a, m);
        io::create_zarr_array(b, m);
        std::vector<Index> ext{64, 48};
        ca::BlockRef blk(ca::block_new(CA_FLOAT64, 2, ext.data()));
        for (Index i = 0; i < blk->size; ++i) blk.data<double>()[i] = double(i % 977) * 0.5;
        io::write_zarr_region(a, m, std::vector<Index>{64, 0}, *blk.get());
        io::write_zarr_chunk(b, m, std::vector<Index>{1, 0}, *blk.get());
        auto fa = io::read_file_if_exists(a + "/1.0", size_t(1) << 24, "a");
        auto fb = io::read_file_if_exists(b + "/1.0", size_t(1) << 24, "b");
        ASSERT_TRUE(fa && fb);
        EXPECT_EQ(*fa, *fb);
        ca::BlockRef back = io::read_zarr_region(a, m, std::vector<Index>{64, 0}, std::vector<Index>{128, 48});
        EXPECT_EQ(std::memcmp(back->data, blk->data, size_t(blk->size) * 8), 0);
        // Misaligned by one row: two chunks read-modified-written, the values land one row down.
        io::write_zarr_region(a, m, std::vector<Index>{1, 0}, *blk.get());
        ca::BlockRef mis = io::read_zarr_region(a, m, std::vector<Index>{1, 0}, std::vector<Index>{65, 48});
        EXPECT_EQ(std::memcmp(mis->data, blk->data, size_t(blk->size) * 8), 0);
      }
}

TEST(ZarrStore, MissingChunksEdgesAndRegions) {
  TempDir dir;
  io::ZarrMeta m = io::make_zarr_meta(CA_FLOAT32, {5, 7}, {2, 3});
  m.fill_value = -1.5;
  m.order = 'F';
  m.big_endian = true;
  m.compressor = io::Compressor::zlib(3);
  m.dimension_separator = '/';
  std::string p = dir / "arr";
  io::create_zarr_array(p, m, R"({"NaNattr": NaN})");
  EXPECT_NE(io::read_zattrs(p).find("NaN"), std::string::npos);
  // Nothing written: all fill.
  ca::BlockRef all = io::read_zarr_region(p, m, std::vector<Index>{0, 0}, m.shape);
  for (Index i = 0; i < all->size; ++i) EXPECT_EQ(all.data<float>()[i], -1.5f);
  // The edge chunk (2, 2): rows 4..5, cols 6..8 -> a (1, 1) block, padded with fill in the file.
  ca::BlockRef e(ca::block_new(CA_FLOAT32, 2, std::vector<Index>{1, 1}.data()));
  e.data<float>()[0] = 42.f;
  io::write_zarr_chunk(p, m, std::vector<Index>{2, 2}, *e.get());
  EXPECT_TRUE(std::filesystem::exists(p + "/2/2"));
  ca::BlockRef full = io::read_zarr_chunk(p, m, std::vector<Index>{2, 2});
  EXPECT_EQ(full->shape[0], 2);
  EXPECT_EQ(full->shape[1], 3);
  EXPECT_EQ(full.data<float>()[0], 42.f);
  for (int i = 1; i < 6; ++i) EXPECT_EQ(full.data<float>()[i], -1.5f);
  // An unaligned region write (read-modify-write), then read back pieces.
  std::vector<Index> ext{3, 4};
  ca::BlockRef w(ca::block_new(CA_FLOAT32, 2, ext.data()));
  for (int i = 0; i < 12; ++i) w.data<float>()[i] = float(i);
  io::write_zarr_region(p, m, std::vector<Index>{1, 2}, *w.get());
  ca::BlockRef r = io::read_zarr_region(p, m, std::vector<Index>{0, 0}, m.shape);
  for (Index i = 0; i < 5; ++i)
    for (Index j = 0; j < 7; ++j) {
      float want = (i >= 1 && i < 4 && j >= 2 && j < 6) ? float((i - 1) * 4 + (j - 2)) : (i == 4 && j == 6) ? 42.f : -1.5f;
      EXPECT_EQ(r.data<float>()[i * 7 + j], want) << i << "," << j;
    }
  ca::BlockRef empty = io::read_zarr_region(p, m, std::vector<Index>{2, 3}, std::vector<Index>{2, 7});
  EXPECT_EQ(empty->size, 0);
  expect_error([&] { io::read_zarr_region(p, m, std::vector<Index>{0, 0}, std::vector<Index>{6, 7}); }, CA_EINVAL,
               {"axis 0"});
  ca::BlockRef wrong(ca::block_new(CA_FLOAT64, 2, ext.data()));
  expect_error([&] { io::write_zarr_region(p, m, std::vector<Index>{0, 0}, *wrong.get()); }, CA_ETYPE, {"float64"});
  // No temporary files are left behind.
  for (auto &entry : std::filesystem::recursive_directory_iterator(p))
    EXPECT_EQ(entry.path().string().find(".partial"), std::string::npos) << entry.path();
  // overwrite replaces; a foreign directory is never removed.
  EXPECT_THROW(io::create_zarr_array(p, m), ca::Error);
  io::create_zarr_array(p, m, "", true);
  EXPECT_FALSE(std::filesystem::exists(p + "/2/2"));
  std::filesystem::create_directories(dir / "foreign");
  ca::test::write_text(dir / "foreign/keep.txt", "x");
  expect_error([&] { io::create_zarr_array(dir / "foreign", m, "", true); }, CA_EEXISTS, {"not a zarr store"});
  EXPECT_TRUE(std::filesystem::exists(dir / "foreign/keep.txt"));
}

TEST(ZarrStore, ConcurrentChunkWritesAndReads) {
  TempDir dir;
  io::ZarrMeta m = io::make_zarr_meta(CA_INT64, {64, 48}, {8, 8});
  m.compressor = io::Compressor::blosc("lz4", 5, 1);
  std::string p = dir / "conc";
  io::create_zarr_array(p, m);
  auto grid = m.chunk_grid();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (Index ci = 0; ci < grid[0]; ++ci)
        for (Index cj = 0; cj < grid[1]; ++cj) {
          if ((ci * grid[1] + cj) % 4 != t) continue;
          ca::BlockRef b(ca::block_new(CA_INT64, 2, m.chunks.data()));
          for (Index i = 0; i < 8; ++i)
            for (Index j = 0; j < 8; ++j) b.data<int64_t>()[i * 8 + j] = (ci * 8 + i) * 1000 + cj * 8 + j;
          io::write_zarr_region(p, m, std::vector<Index>{ci * 8, cj * 8}, *b.get());
          ca::BlockRef back = io::read_zarr_chunk(p, m, std::vector<Index>{ci, cj});
          EXPECT_EQ(std::memcmp(back->data, b->data, size_t(b->nbytes)), 0);
        }
    });
  for (auto &t : threads) t.join();
  ca::BlockRef all = io::read_zarr_region(p, m, std::vector<Index>{0, 0}, m.shape);
  for (Index i = 0; i < 64; ++i)
    for (Index j = 0; j < 48; ++j) ASSERT_EQ(all.data<int64_t>()[i * 48 + j], i * 1000 + j);
}

}  // namespace
