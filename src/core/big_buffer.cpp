#include "core/big_buffer.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <new>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "core/alloc.hpp"
#include "core/sanitizer.hpp"

namespace ca::detail {

namespace {

constexpr int64_t kDefaultLimit = int64_t(256) << 20;
constexpr int kClassesPerDoubling = 4;
constexpr int kMinShift = 20;  // kBigMin
constexpr int kNumClasses = (63 - kMinShift) * kClassesPerDoubling;

// The class index of a capacity computed by big_class().
int class_index(size_t cap) noexcept {
  int p = 63 - __builtin_clzll(static_cast<unsigned long long>(cap));
  const size_t step = size_t(1) << (p - 2);
  int k = int((cap - (size_t(1) << p)) / step);  // 0..3 (exact multiples)
  return (p - kMinShift) * kClassesPerDoubling + k;
}

struct Cache {
  std::mutex mu;
  std::vector<void *> free[kNumClasses];
  int64_t bytes = 0;
  int64_t limit = -2;  // -2: not read from the environment yet
  std::atomic<bool> enabled{!CA_ASAN};

  int64_t limit_locked() {
    if (limit == -2) {
      limit = kDefaultLimit;
      if (const char *e = std::getenv("CA_BLOCK_CACHE")) {
        char *end = nullptr;
        long long v = std::strtoll(e, &end, 10);
        if (end != e && *end == '\0' && v >= 0) limit = v;
      }
      if (CA_ASAN) limit = 0;
      enabled.store(limit > 0, std::memory_order_relaxed);
    }
    return limit;
  }
  // Free cached buffers until at most `keep` bytes remain (largest classes first). Returns bytes freed.
  int64_t shrink_locked(int64_t keep) {
    int64_t freed = 0;
    for (int c = kNumClasses - 1; c >= 0 && bytes > keep; --c) {
      const size_t cap = (size_t(1) << (c / kClassesPerDoubling + kMinShift)) +
                         size_t(c % kClassesPerDoubling) * (size_t(1) << (c / kClassesPerDoubling + kMinShift - 2));
      while (!free[c].empty() && bytes > keep) {
        mem_free(free[c].back());
        free[c].pop_back();
        bytes -= int64_t(cap);
        freed += int64_t(cap);
      }
    }
    return freed;
  }
};

// A fresh buffer of class cap. From 2 MiB on: aligned to 2 MiB, with the whole 2 MiB extents below
// the class's smallest request advised as transparent huge pages (NumPy advises its arrays from 4 MiB
// on). A stream through the buffer then crosses no 4 KiB page boundary, where the hardware
// prefetchers stop and each new page costs a TLB walk: y = f(x) out of L2 (W9's per-function table,
// a kernel reading a 2 MiB block) measured 3-10 % faster. Only memory every request of the class
// writes is advised (a huge page is resident whole), so nothing more becomes resident; with THP in
// "madvise" mode (Debian's default) only advised memory gets huge pages, with "never" the advice is
// ignored.
void *fresh(size_t cap) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr size_t kHuge = size_t(2) << 20;
  // the class below cap (every request of class cap is larger): a step of a quarter of cap's power of
  // two, an eighth from a power of two itself
  const int p = 63 - __builtin_clzll(static_cast<unsigned long long>(cap));
  const size_t below = cap - (size_t(1) << (cap == size_t(1) << p ? p - 3 : p - 2));
  const size_t advised = below & ~(kHuge - 1);
  if (advised >= kHuge) {
    void *m = mem_alloc_aligned(cap, kHuge);
    if (m) (void)::madvise(m, advised, MADV_HUGEPAGE);  // advice only: a refusal is harmless
    return m;
  }
#endif
  return mem_alloc_aligned(cap, 64);
}

constexpr int kMaxHooks = 8;
std::atomic<void (*)()> g_hooks[kMaxHooks];
std::atomic<int> g_nhooks{0};

void run_hooks() noexcept {
  const int n = std::min(g_nhooks.load(std::memory_order_acquire), kMaxHooks);
  for (int i = 0; i < n; ++i)
    if (auto h = g_hooks[i].load(std::memory_order_acquire)) h();
}

Cache &cache() {
  static Cache *c = new Cache();  // never destroyed: blocks may be freed during static destruction
  return *c;
}

}  // namespace

size_t big_class(size_t bytes) noexcept {
  if (bytes <= kBigMin) return kBigMin;
  int p = 63 - __builtin_clzll(static_cast<unsigned long long>(bytes));
  const size_t step = size_t(1) << (p - 2);
  return (bytes + step - 1) / step * step;
}

void *big_alloc(size_t bytes) noexcept {
  if (bytes > (size_t(1) << 62)) return nullptr;
  const size_t cap = big_class(bytes);
  Cache &c = cache();
  if (c.enabled.load(std::memory_order_relaxed)) {
    std::lock_guard<std::mutex> lk(c.mu);
    auto &v = c.free[class_index(cap)];
    if (!v.empty()) {
      void *p = v.back();
      v.pop_back();
      c.bytes -= int64_t(cap);
      return p;
    }
  }
  return fresh(cap);
}

void big_free(void *p, size_t bytes) noexcept {
  if (!p) return;
  const size_t cap = big_class(bytes);
  Cache &c = cache();
  {
    std::lock_guard<std::mutex> lk(c.mu);
    const int64_t limit = c.limit_locked();
    // The buffer just freed is the likeliest to be asked for next (a pipeline's blocks repeat their
    // shapes): older ones make room for it.
    if (int64_t(cap) <= limit && c.bytes + int64_t(cap) > limit) c.shrink_locked(limit - int64_t(cap));
    if (c.bytes + int64_t(cap) <= limit) {
      try {
        c.free[class_index(cap)].push_back(p);
        c.bytes += int64_t(cap);
        return;
      } catch (...) {  // no memory for the list's slot: free the buffer instead
      }
    }
  }
  mem_free(p);
}

void prefault(void *p, size_t bytes) noexcept {
  if (!p || bytes == 0) return;
  constexpr uintptr_t kPage = 4096;  // (a multiple of it on larger-page systems: touches are cheap then)
  const uintptr_t lo = reinterpret_cast<uintptr_t>(p), hi = lo + bytes;
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
  // the page-aligned inside in one call (Linux 5.14 on; EINVAL before), the edges by touch
  const uintptr_t alo = (lo + kPage - 1) & ~(kPage - 1), ahi = hi & ~(kPage - 1);
  if (ahi > alo && ::madvise(reinterpret_cast<void *>(alo), ahi - alo, MADV_POPULATE_WRITE) == 0) {
    if (lo < alo) *static_cast<volatile char *>(p) = 0;
    if (ahi < hi) *reinterpret_cast<volatile char *>(ahi) = 0;
    return;
  }
#endif
  for (uintptr_t a = lo; a < hi; a = (a & ~(kPage - 1)) + kPage) *reinterpret_cast<volatile char *>(a) = 0;
}

void big_cache_add_trim_hook(void (*hook)()) noexcept {
  const int i = g_nhooks.fetch_add(1, std::memory_order_acq_rel);
  if (i < kMaxHooks) g_hooks[i].store(hook, std::memory_order_release);
}

void big_cache_set_limit(int64_t bytes) noexcept {
  run_hooks();
  Cache &c = cache();
  std::lock_guard<std::mutex> lk(c.mu);
  c.limit = CA_ASAN ? 0 : bytes < 0 ? kDefaultLimit : bytes;
  c.enabled.store(c.limit > 0, std::memory_order_relaxed);
  c.shrink_locked(c.limit);
}

int64_t big_cache_limit() noexcept {
  Cache &c = cache();
  std::lock_guard<std::mutex> lk(c.mu);
  return c.limit_locked();
}

int64_t big_cache_bytes() noexcept {
  Cache &c = cache();
  std::lock_guard<std::mutex> lk(c.mu);
  return c.bytes;
}

int64_t big_cache_trim() noexcept {
  run_hooks();
  Cache &c = cache();
  std::lock_guard<std::mutex> lk(c.mu);
  return c.shrink_locked(0);
}

BigBuffer::BigBuffer(size_t bytes) : n_(bytes) {
  if (bytes >= kBigMin) {
    p_ = big_alloc(bytes);
    cap_ = bytes;
  } else {
    p_ = mem_alloc_aligned(bytes ? bytes : 1, 64);
  }
  if (!p_) throw std::bad_alloc();
}

BigBuffer &BigBuffer::operator=(BigBuffer &&o) noexcept {
  if (this != &o) {
    reset();
    p_ = o.p_, n_ = o.n_, cap_ = o.cap_;
    o.p_ = nullptr, o.n_ = o.cap_ = 0;
  }
  return *this;
}

void BigBuffer::reset() noexcept {
  if (p_) {
    if (cap_) big_free(p_, cap_);
    else mem_free(p_);
  }
  p_ = nullptr;
  n_ = cap_ = 0;
}

}  // namespace ca::detail
