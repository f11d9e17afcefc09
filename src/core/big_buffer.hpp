// Large buffers (>= kBigMin bytes: block data, codec scratch, chunk files read whole) from a cache
// of freed ones. A fresh large allocation is mapped anew by the kernel and every one of its pages
// faults on first touch (on this project's VMs ~0.5 ms per MiB under load: a 32 MiB block pays
// ~8,000 faults before the first useful byte). A pipeline that makes a block per task and frees it
// soon after would fault in its whole output stream; with the cache it reuses pages already mapped
// (glibc's malloc does the same for NumPy below its 32 MiB mmap threshold, which is how dask avoids
// the cost).
//
// Sizes are rounded up to classes of four per power of two (at most 25 % more address space; pages
// past the requested size are never touched, so never resident). Freed buffers wait in the cache up
// to a process-wide cap of cached bytes (default 256 MiB; the CA_BLOCK_CACHE environment variable,
// or the context key "block-cache", sets it in bytes, 0 turns the cache off and empties it); beyond
// the cap a buffer is freed at once. The cache is off in AddressSanitizer builds, where reuse would
// hide use-after-free.
//
// Fresh buffers of the classes from 2.5 MiB on are aligned to 2 MiB, and the whole 2 MiB extents that
// every request of their class writes are advised as transparent huge pages (madvise MADV_HUGEPAGE, as
// NumPy does for its arrays from 4 MiB): a kernel streaming a block crosses no 4 KiB page boundary.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ca::detail {

/// Buffers of at least this many bytes go through the cache.
constexpr size_t kBigMin = size_t(1) << 20;

/// The capacity big_alloc() gives for a request of `bytes` (>= kBigMin): its size class.
size_t big_class(size_t bytes) noexcept;

/// A buffer of at least `bytes` (>= kBigMin) bytes, aligned to 64 (2 MiB for classes from 2.5 MiB): a cached one of the same class
/// when there is one, else fresh. NULL when memory runs out.
void *big_alloc(size_t bytes) noexcept;

/// Give back a buffer of big_alloc(bytes) (the same `bytes`): cached up to the cap, else freed.
void big_free(void *p, size_t bytes) noexcept;

/// Set the cache's cap in bytes (< 0: the default); a smaller cap frees what is above it now.
void big_cache_set_limit(int64_t bytes) noexcept;
/// The cap, and the bytes cached now.
int64_t big_cache_limit() noexcept;
int64_t big_cache_bytes() noexcept;
/// Free every cached buffer; returns the bytes released.
int64_t big_cache_trim() noexcept;
/// Register a function that gives back buffers kept outside the cache (e.g. the parallel planner's
/// arrays kept per builder between computes). big_cache_trim() and big_cache_set_limit() call every
/// hook first (outside the cache's lock: a hook's buffers come back through big_free), so "off" and
/// a trim release those too. At most 8 hooks; never removed.
void big_cache_add_trim_hook(void (*hook)()) noexcept;

/// Fault in the pages of [p, p + bytes) for writing now (madvise MADV_POPULATE_WRITE, else a write
/// of zero to one byte per page): for memory that will be written piecemeal over several computes,
/// whose page faults would otherwise land a few at a time in each. The bytes must be unused (their
/// values may be overwritten with zeros).
void prefault(void *p, size_t bytes) noexcept;

/// An owned buffer from big_alloc (move-only); size() is what was asked for.
class BigBuffer {
 public:
  BigBuffer() = default;
  explicit BigBuffer(size_t bytes);  // throws std::bad_alloc
  BigBuffer(BigBuffer &&o) noexcept : p_(o.p_), n_(o.n_), cap_(o.cap_) { o.p_ = nullptr, o.n_ = o.cap_ = 0; }
  BigBuffer &operator=(BigBuffer &&o) noexcept;
  BigBuffer(const BigBuffer &) = delete;
  BigBuffer &operator=(const BigBuffer &) = delete;
  ~BigBuffer() { reset(); }
  char *data() const noexcept { return static_cast<char *>(p_); }
  size_t size() const noexcept { return n_; }
  /// Shrink the visible size (the memory stays).
  void resize_down(size_t n) noexcept { n_ = n < n_ ? n : n_; }
  void reset() noexcept;

 private:
  void *p_ = nullptr;
  size_t n_ = 0;    // asked for
  size_t cap_ = 0;  // the allocation's request size (for big_free), or 0 for a small one
};

}  // namespace ca::detail
