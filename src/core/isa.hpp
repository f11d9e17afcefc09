// Hot loops compiled for several x86-64 ISA levels, chosen once at load time (GCC's target_clones:
// an ifunc). The library is built for baseline x86-64 (SSE2, 2 doubles per instruction); the clones
// let the same loop run 4 (AVX2) or 8 (AVX-512) wide where the CPU has it.
//
// Not under sanitizers: an ifunc resolver runs during relocation, before the sanitizer runtime is
// initialized (under ThreadSanitizer every binary then crashes at load; ASan reports false errors).
#pragma once

#include "core/sanitizer.hpp"

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !CA_ASAN && !CA_TSAN
#define CA_ISA_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define CA_ISA_CLONES
#endif
