// libFuzzer target over .npy header parsing (src/io/npy.cpp parse_npy_header). Every input either fails
// with a ca::Error of a documented code and a short message, or gives a header whose data offset lies
// inside the input and whose byte size does not overflow.
// Built with clang++-14 -fsanitize=fuzzer,address,undefined (tests/fuzz/meson.build).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "core/error.hpp"
#include "io/npy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ca::io::NpyHeader h;
  try {
    h = ca::io::parse_npy_header(data, size, "fuzz.npy");
  } catch (const ca::Error &e) {
    if (e.code() != CA_EFORMAT && e.code() != CA_EVERSION && e.code() != CA_EUNSUPPORTED) {
      std::fprintf(stderr, "unexpected status %d: %s\n", int(e.code()), e.message().c_str());
      __builtin_trap();
    }
    if (e.message().empty() || e.message().size() > 2000) {
      std::fprintf(stderr, "message of %zu bytes\n", e.message().size());
      __builtin_trap();
    }
    return 0;
  }
  if (h.data_offset > size || h.shape.size() > size_t(CA_MAX_NDIM)) __builtin_trap();
  // The element count was checked against overflow: nbytes is exact.
  unsigned __int128 n = 1;
  for (ca::Index e : h.shape) {
    if (e < 0) __builtin_trap();
    n *= (unsigned __int128)e;
  }
  if (n * ca::dtype_size(h.dtype) != h.nbytes()) __builtin_trap();
  return 0;
}
