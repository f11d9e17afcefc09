// Blocks: reference-counted, 64-byte aligned, C-contiguous typed buffers (the C type ca_block_t).
// Header, shape and data live in one mimalloc allocation; wrapped blocks point at a caller's buffer.
#pragma once

#include <chunkarray/block.h>

#include <atomic>
#include <cstdint>

#include "core/dtype.hpp"
#include "core/intrusive.hpp"

namespace ca {
class MemoryBudget;
}

struct ca_block {
  std::atomic<int64_t> refs;
  ca_dtype_t dtype;
  int32_t ndim;
  int64_t size;    // elements
  int64_t nbytes;  // size * itemsize
  void *data;
  void (*release)(void *);  // wrapped blocks only
  // Wrapped blocks: release's argument. Owned blocks: the ca::MemoryBudget charged with this block's
  // allocation (core/memory.hpp), or null. (One field for both keeps the header in 64 bytes.)
  void *release_ud;
  int64_t shape[CA_MAX_NDIM > 0 ? 1 : 1];  // ndim entries follow in the same allocation
};

namespace ca {

using Block = ca_block;

/// Allocation granularity and alignment of block data.
constexpr size_t kBlockAlign = 64;

/// New block, uninitialized data. Throws CA_EINVAL / CA_ETYPE / CA_ENOMEM. Charged to the thread's
/// current memory budget (core/memory.hpp) until destroyed; CA_ENOMEM naming the budget when the
/// block alone exceeds its limit (checked before allocating).
Block *block_new(DType dtype, int32_t ndim, const int64_t *shape, bool zero = false);
/// Wrap caller memory; `release(ud)` runs once when the last reference goes (also if this throws).
Block *block_wrap(DType dtype, int32_t ndim, const int64_t *shape, void *data, void (*release)(void *), void *ud);

inline Block *block_retain(const Block *b) noexcept {
  if (b) const_cast<Block *>(b)->refs.fetch_add(1, std::memory_order_relaxed);
  return const_cast<Block *>(b);
}
void block_destroy(Block *b) noexcept;
inline void block_release(const Block *b) noexcept {
  if (b && const_cast<Block *>(b)->refs.fetch_sub(1, std::memory_order_acq_rel) == 1)
    block_destroy(const_cast<Block *>(b));
}

/// Bytes currently held by live blocks allocated by the library (for tests and memory accounting).
int64_t block_live_bytes() noexcept;
int64_t block_live_count() noexcept;

struct BlockRefTraits {
  static void retain(const Block *b) noexcept { block_retain(b); }
  static void release(const Block *b) noexcept { block_release(b); }
};
/// Owning pointer to a block (core/intrusive.hpp).
using BlockRef = IntrusivePtr<Block, BlockRefTraits>;

}  // namespace ca
