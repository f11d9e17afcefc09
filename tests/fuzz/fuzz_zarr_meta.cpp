// libFuzzer target over zarr metadata parsing (src/io/zarr_meta.cpp): .zarray text and .zattrs text.
// Every input either fails with a ca::Error of a documented code and a short message, or parses into
// metadata the writer accepts and that survives write + parse unchanged. Nothing may crash, recurse
// without bound (JSON nested 100,000 deep once overflowed the stack in an error message) or hang.
// Built with clang++-14 -fsanitize=fuzzer,address,undefined (tests/fuzz/meson.build).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "core/error.hpp"
#include "io/zarr_meta.hpp"

namespace {

void check_message(const ca::Error &e) {
  // Messages quote bounded excerpts only.
  if (e.message().empty() || e.message().size() > 2000) {
    std::fprintf(stderr, "message of %zu bytes: %.300s\n", e.message().size(), e.message().c_str());
    __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  // .zattrs: a JSON object or CA_EFORMAT.
  try {
    ca::io::check_attrs_json(text, ".zattrs", CA_EFORMAT);
  } catch (const ca::Error &e) {
    if (e.code() != CA_EFORMAT) __builtin_trap();
    check_message(e);
  }
  // .zarray.
  ca::io::ZarrMeta m;
  try {
    m = ca::io::parse_zarray(text, "fuzz/.zarray");
  } catch (const ca::Error &e) {
    if (e.code() != CA_EFORMAT && e.code() != CA_EVERSION && e.code() != CA_EUNSUPPORTED) {
      std::fprintf(stderr, "unexpected status %d: %s\n", int(e.code()), e.message().c_str());
      __builtin_trap();
    }
    check_message(e);
    return 0;
  }
  // Accepted metadata is valid metadata: the writer takes it and the parser reads it back the same.
  std::string again;
  try {
    again = ca::io::zarray_to_json(m);
  } catch (const ca::Error &e) {
    std::fprintf(stderr, "parsed metadata the writer refuses: %s\n", e.message().c_str());
    __builtin_trap();
  }
  ca::io::ZarrMeta back = ca::io::parse_zarray(again, "fuzz/.zarray (rewritten)");
  auto fa = m.fill_bytes(), fb = back.fill_bytes();
  if (back.shape != m.shape || back.chunks != m.chunks || back.dtype != m.dtype || back.order != m.order ||
      back.big_endian != m.big_endian || !(back.compressor == m.compressor) ||
      back.dimension_separator != m.dimension_separator || std::memcmp(fa.data(), fb.data(), fa.size()) != 0) {
    std::fprintf(stderr, "metadata changed on write + parse:\n%s\n", again.c_str());
    __builtin_trap();
  }
  return 0;
}
