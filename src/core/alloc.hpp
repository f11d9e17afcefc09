// The library's own allocations (block buffers, plan arrays, executor nodes): mimalloc's mi_* API by
// default, or the C library's allocator when built with -Dallocator=system (CA_ALLOCATOR_SYSTEM).
// The system allocator is for ThreadSanitizer builds: TSan intercepts malloc/free and sees every
// reuse of memory, while mimalloc's pages are reused behind its back (reported as races between a
// block's previous and next owner).
//
// All functions return NULL when memory runs out (never abort); ca_mem_free accepts NULL.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <cstring>

#if defined(CA_ALLOCATOR_SYSTEM) && CA_ALLOCATOR_SYSTEM
#define CA_USE_MIMALLOC 0
#else
#define CA_USE_MIMALLOC 1
#include <mimalloc.h>
#endif

namespace ca::detail {

/// `bytes` bytes aligned for any fundamental type.
inline void *mem_alloc(size_t bytes) noexcept {
#if CA_USE_MIMALLOC
  return mi_malloc(bytes);
#else
  return std::malloc(bytes ? bytes : 1);
#endif
}

/// `bytes` bytes aligned to `align` (a power of two).
inline void *mem_alloc_aligned(size_t bytes, size_t align) noexcept {
#if CA_USE_MIMALLOC
  return mi_malloc_aligned(bytes, align);
#else
  void *p = nullptr;
  if (align < sizeof(void *)) align = sizeof(void *);
  return posix_memalign(&p, align, bytes ? bytes : 1) == 0 ? p : nullptr;
#endif
}

/// As mem_alloc_aligned, zero-filled.
inline void *mem_zalloc_aligned(size_t bytes, size_t align) noexcept {
#if CA_USE_MIMALLOC
  return mi_zalloc_aligned(bytes, align);
#else
  void *p = mem_alloc_aligned(bytes, align);
  if (p && bytes) std::memset(p, 0, bytes);
  return p;
#endif
}

/// Frees what the functions above returned; NULL is ignored.
inline void mem_free(void *p) noexcept {
#if CA_USE_MIMALLOC
  mi_free(p);
#else
  std::free(p);
#endif
}

}  // namespace ca::detail
