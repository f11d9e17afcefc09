#include "core/block.hpp"

#include "core/alloc.hpp"
#include "core/big_buffer.hpp"
#include "core/memory.hpp"

#include <cstring>
#include <new>

namespace ca {

namespace {
// Live block counters, sharded by thread: every block_new/destroy updates them, and one shared
// cache line written by every worker per task was a serial point of tiny-task graphs (W1). A
// thread adds to its own shard (a block freed on another thread makes shards go negative; only
// the sum means anything).
struct alignas(64) LiveShard {
  std::atomic<int64_t> bytes{0};
  std::atomic<int64_t> count{0};
};
constexpr unsigned kLiveShards = 16;
LiveShard g_live[kLiveShards];
std::atomic<unsigned> g_next_shard{0};

LiveShard &live_shard() noexcept {
  static thread_local LiveShard *mine = &g_live[g_next_shard.fetch_add(1, std::memory_order_relaxed) % kLiveShards];
  return *mine;
}
void live_add(int64_t bytes, int64_t count) noexcept {
  LiveShard &s = live_shard();
  s.bytes.fetch_add(bytes, std::memory_order_relaxed);
  s.count.fetch_add(count, std::memory_order_relaxed);
}

size_t header_bytes(int32_t ndim) {
  size_t h = offsetof(Block, shape) + sizeof(int64_t) * static_cast<size_t>(ndim > 0 ? ndim : 1);
  return (h + kBlockAlign - 1) / kBlockAlign * kBlockAlign;
}

int64_t checked_size(DType dtype, int32_t ndim, const int64_t *shape) {
  CA_CHECK(dtype_valid(dtype), CA_ETYPE, "invalid dtype ", dtype);
  CA_CHECK(ndim >= 0 && ndim <= CA_MAX_NDIM, CA_EINVAL, "ndim ", ndim, " is out of range 0..", CA_MAX_NDIM);
  CA_CHECK(ndim == 0 || shape != nullptr, CA_EINVAL, "shape is NULL with ndim ", ndim);
  int64_t n = 1;
  for (int32_t d = 0; d < ndim; ++d) {
    CA_CHECK(shape[d] >= 0, CA_EINVAL, "extent ", shape[d], " of dimension ", d, " is negative");
    if (shape[d] != 0 && n > (int64_t(1) << 62) / shape[d]) fail(CA_ENOMEM, "block of that shape is too large");
    n *= shape[d];
  }
  if (n > (int64_t(1) << 62) / int64_t(dtype_size(dtype))) fail(CA_ENOMEM, "block of that shape is too large");
  return n;
}

void init_header(Block *b, DType dtype, int32_t ndim, const int64_t *shape, int64_t n) {
  new (&b->refs) std::atomic<int64_t>(1);
  b->dtype = dtype;
  b->ndim = ndim;
  b->size = n;
  b->nbytes = n * int64_t(dtype_size(dtype));
  b->release = nullptr;
  b->release_ud = nullptr;
  for (int32_t d = 0; d < ndim; ++d) b->shape[d] = shape[d];
}
}  // namespace

Block *block_new(DType dtype, int32_t ndim, const int64_t *shape, bool zero) {
  int64_t n = checked_size(dtype, ndim, shape);
  size_t hb = header_bytes(ndim);
  size_t total = hb + size_t(n) * dtype_size(dtype);
  MemoryBudget *budget = detail::charge_current(int64_t(total));  // before allocating
  // Large blocks reuse the pages of freed ones (core/big_buffer.hpp): no page faults per block.
  void *mem;
  if (total >= detail::kBigMin) {
    mem = detail::big_alloc(total);
    if (mem && zero) std::memset(mem, 0, total);
  } else {
    mem = zero ? detail::mem_zalloc_aligned(total, kBlockAlign) : detail::mem_alloc_aligned(total, kBlockAlign);
  }
  if (!mem) {
    if (budget) {
      budget->give_back(int64_t(total));
      budget->release();
    }
    detail::fail_alloc(
        str("out of memory allocating a block of ", total, " bytes (", bytes_str(int64_t(total)), ")"));
  }
  Block *b = static_cast<Block *>(mem);
  init_header(b, dtype, ndim, shape, n);
  b->release_ud = budget;  // owned block: release_ud holds its budget
  b->data = static_cast<char *>(mem) + hb;
  live_add(int64_t(total), 1);
  return b;
}

Block *block_wrap(DType dtype, int32_t ndim, const int64_t *shape, void *data, void (*release)(void *), void *ud) {
  try {
    int64_t n = checked_size(dtype, ndim, shape);
    CA_CHECK(data != nullptr || n == 0, CA_EINVAL, "data is NULL for a block of ", n, " elements");
    size_t hb = header_bytes(ndim);
    void *mem = detail::mem_alloc_aligned(hb, kBlockAlign);
    if (!mem) fail(CA_ENOMEM, "out of memory allocating a block header");
    Block *b = static_cast<Block *>(mem);
    init_header(b, dtype, ndim, shape, n);
    b->data = data;
    b->release = release;
    b->release_ud = release ? ud : nullptr;  // without release, release_ud would read as a budget
    live_add(int64_t(hb), 1);
    return b;
  } catch (...) {
    if (release) release(ud);
    throw;
  }
}

void block_destroy(Block *b) noexcept {
  size_t hb = header_bytes(b->ndim);
  int64_t total = int64_t(hb);
  const bool inside = b->data == reinterpret_cast<char *>(b) + hb;
  if (inside) {
    total += b->nbytes;  // data inside the allocation
  } else if (b->release) {
    b->release(b->release_ud);
  }
  live_add(-total, -1);
  if (b->release_ud && !b->release) {  // owned block charged to a budget
    MemoryBudget *budget = static_cast<MemoryBudget *>(b->release_ud);
    budget->give_back(total);
    budget->release();
  }
  if (inside && size_t(total) >= detail::kBigMin) detail::big_free(b, size_t(total));
  else detail::mem_free(b);
}

int64_t block_live_bytes() noexcept {
  int64_t n = 0;
  for (const LiveShard &s : g_live) n += s.bytes.load(std::memory_order_relaxed);
  return n;
}
int64_t block_live_count() noexcept {
  int64_t n = 0;
  for (const LiveShard &s : g_live) n += s.count.load(std::memory_order_relaxed);
  return n;
}

}  // namespace ca
