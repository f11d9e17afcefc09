// libFuzzer target over chunk strings (src/array/chunks_spec.cpp): dask-style chunks specifications
// as ca_normalize_chunks_spec parses them ("auto", "5", "(2, 3, 4), -1", "{0: 5}", "64MiB") and
// rechunk requests as ca_array_rechunk_spec parses them (Python literals: "(None, 'auto')",
// "{-1: 10}", "'1e6'", "((2, 3), 5)").
//
// Input: byte 0 picks ndim (0..4) and the dtype, then 2 bytes per dimension give its extent (up to
// 32767, or a power of two up to 2^21 when the high bit is set), then 8 bytes give the chunk-size
// limit; the rest is the string.
// Every input either fails with CA_EINVAL / CA_ETYPE and a short message, or gives chunks that sum to
// the shape with non-negative sizes, no more than the allowed blocks per axis. Nothing may crash,
// overflow, recurse without bound or allocate without bound.
// Built with clang++-14 -fsanitize=fuzzer,address,undefined (tests/fuzz/meson.build).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "array/array.hpp"
#include "array/rechunk.hpp"
#include "core/checked.hpp"
#include "core/error.hpp"

namespace {

void check_message(const ca::Error &e, const char *what) {
  if (e.code() != CA_EINVAL && e.code() != CA_ETYPE) {
    std::fprintf(stderr, "%s: unexpected status %d: %.500s\n", what, int(e.code()), e.message().c_str());
    __builtin_trap();
  }
  if (e.message().empty() || e.message().size() > 1000) {
    std::fprintf(stderr, "%s: message of %zu bytes: %.300s\n", what, e.message().size(), e.message().c_str());
    __builtin_trap();
  }
}

// Not instrumented for coverage (up to 2^21 blocks per axis here; a comparison callback per element
// is slow).
__attribute__((no_sanitize("coverage"))) void check_chunks(const ca::Chunks &c, const std::vector<ca::Index> &shape,
                                                            const char *what) {
  bool ok = c.size() == shape.size();
  for (size_t d = 0; ok && d < c.size(); ++d) {
    ca::Index sum = 0, bad = 0;
    const ca::Index *p = c[d].data(), n = ca::Index(c[d].size());
    ok = n > 0 && n <= ca::kMaxBlocksPerAxis;
    for (ca::Index i = 0; ok && i < n; ++i) {
      bad |= p[i] < 0;
      bad |= __builtin_add_overflow(sum, p[i], &sum);
    }
    ok = ok && !bad && sum == shape[d];
  }
  if (!ok) {
    std::fprintf(stderr, "%s: chunks that do not describe the shape\n", what);
    __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  const int32_t ndim = int32_t(data[0] % 5);
  static const ca::DType dtypes[] = {CA_FLOAT64, CA_INT8, CA_COMPLEX128, CA_BOOL};
  const ca::DType dtype = dtypes[(data[0] >> 4) & 3];
  size_t p = 1;
  std::vector<ca::Index> shape;
  for (int32_t d = 0; d < ndim; ++d) {
    if (p + 2 > size) return 0;
    uint16_t v = uint16_t(data[p] | (data[p + 1] << 8));
    p += 2;
    // High bit: a large extent 2^11..2^21; four of them overflow int64 in the element and byte counts.
    // (Not larger: an axis of 2^26 or more elements may legitimately get up to kMaxBlocksPerAxis = 2^26
    // blocks, a 512 MiB chunk table that takes seconds to fill under ASan and made the fuzzer time
    // out on valid requests. Single huge extents up to 2^62 are in unit_overflow.)
    shape.push_back(v & 0x8000 ? ca::Index(1) << (11 + (v & 0xff) % 11) : ca::Index(v & 0x7fff));
  }
  if (p + 8 > size) return 0;
  uint64_t lim = 0;
  std::memcpy(&lim, data + p, 8);
  p += 8;
  const ca::Index limit = ca::Index(lim >> 1);  // 0..2^63-1; 0 is a bad limit for auto dimensions
  const std::string spec(reinterpret_cast<const char *>(data + p), size - p);

  // ca_normalize_chunks_spec's path.
  try {
    ca::Chunks c = ca::normalize_chunks_spec(spec, shape, dtype, limit);
    check_chunks(c, shape, "normalize_chunks");
  } catch (const ca::Error &e) {
    check_message(e, "normalize_chunks");
  }

  // ca_array_rechunk_spec's path, against an array of that shape in blocks of (at most) 7.
  ca::Array a;
  a.dtype = dtype;
  a.shape = shape;
  for (int32_t d = 0; d < ndim; ++d) {
    ca::Index s = shape[size_t(d)];
    // Large extents: one block.
    a.chunks.push_back(s > 4096 ? std::vector<ca::Index>{s} : ca::blocks_of(s, 7));
    a.numblocks.push_back(ca::Index(a.chunks.back().size()));
  }
  try {
    ca::Chunks c = ca::rechunk_chunks(a, spec, limit);
    check_chunks(c, shape, "rechunk_chunks");
  } catch (const ca::Error &e) {
    check_message(e, "rechunk_chunks");
  }
  return 0;
}
