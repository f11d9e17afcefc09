// Memory budgets: how many bytes of blocks a context may hold, and who is charged for them.
//
// - One MemoryBudget per context. Every block of at least kChargeMin bytes that is allocated while a
//   budget is current on the thread (the executor makes the run's budget current around each
//   kernel; the C API around a compute's result) is charged to it until the block is freed:
//   intermediates, results handed to the caller and persisted blocks alike. Smaller blocks are not
//   charged, so the W1-style hot path (millions of tiny blocks) never touches the shared counter;
//   their count is bounded by the task budget instead.
// - Charging never waits and fails only when one allocation alone exceeds the limit: keeping the
//   total under the limit is the scheduler's job (src/exec/executor.cpp admits a new root task only
//   when its estimated bytes fit beside what is held, reserved and in flight).
// - A budget is reference counted by its context and by every block charged to it, so a block
//   outliving its context still returns its bytes to a live object.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>

namespace ca {

/// Blocks smaller than this (header included) are not charged to a budget.
constexpr int64_t kChargeMin = 16 * 1024;

class MemoryBudget {
 public:
  /// limit <= 0: unlimited (bytes are still counted, so peak() stays meaningful).
  static MemoryBudget *create(int64_t limit);
  void retain() noexcept { refs_.fetch_add(1, std::memory_order_relaxed); }
  void release() noexcept {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }

  int64_t limit() const noexcept { return limit_.load(std::memory_order_relaxed); }
  void set_limit(int64_t limit) noexcept { limit_.store(limit > 0 ? limit : 0, std::memory_order_relaxed); }
  bool limited() const noexcept { return limit() > 0; }
  /// Bytes charged (live blocks) plus bytes reserved for tasks about to run.
  int64_t held() const noexcept { return held_.load(std::memory_order_relaxed); }
  /// The highest held() since creation or the last reset_peak().
  int64_t peak() const noexcept { return peak_.load(std::memory_order_relaxed); }
  void reset_peak() noexcept { peak_.store(held(), std::memory_order_relaxed); }

  /// Add n bytes if held() + n <= ceiling; true if added.
  bool try_reserve(int64_t n, int64_t ceiling) noexcept;
  /// Add n bytes unconditionally (an allocation that has to happen for work in flight to finish).
  void force(int64_t n) noexcept;
  /// Return n bytes and wake wait_for_release().
  void give_back(int64_t n) noexcept;
  /// Wait until some bytes are given back or `timeout_ms` passes.
  void wait_for_release(int64_t timeout_ms);

  /// Runs (computations) currently executing against this budget.
  std::atomic<int32_t> active_runs{0};

  /// "the memory limit of 2147483648 bytes (2 GiB; context option memory_limit / config
  /// memory-limit), 123 bytes held" — for CA_ENOMEM messages.
  std::string describe() const;

 private:
  explicit MemoryBudget(int64_t limit) : limit_(limit > 0 ? limit : 0) {}
  std::atomic<int64_t> refs_{1};
  std::atomic<int64_t> limit_;
  alignas(64) std::atomic<int64_t> held_{0};
  std::atomic<int64_t> peak_{0};
  std::atomic<int32_t> waiters_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  uint64_t releases_ = 0;
};

namespace detail {
/// Per-thread charging state: the budget block allocations are charged to, the bytes reserved ahead
/// for them (used before charging more) and the bytes charged in the current scope.
struct ChargeState {
  MemoryBudget *budget = nullptr;
  int64_t reserved = 0;
  int64_t charged = 0;
};
/// This thread's state (the executor looks it up once per worker, not once per task).
ChargeState &charge_state() noexcept;
/// Charge an allocation of n bytes to the current budget, using the reservation first. Throws
/// Error(CA_ENOMEM) naming the budget when n alone exceeds its limit. Returns the budget charged
/// (retained for the block), or nullptr when nothing was charged (no budget, or n < kChargeMin).
MemoryBudget *charge_current(int64_t n);
/// The message of the last block allocation on this thread that failed for memory ("" if none): a
/// C kernel that only passes CA_ENOMEM on still gets the reason reported (kernel_invoke takes it).
std::string take_alloc_failure();
/// Throw Error(CA_ENOMEM, message), remembering the message for take_alloc_failure().
[[noreturn]] void fail_alloc(std::string message);
}  // namespace detail

/// Makes `b` the budget that block allocations on this thread are charged to (nullptr: none), with
/// `reserved` bytes already added to it for them. On destruction, the unused reservation is given
/// back and the previous state restored. Not copyable.
class ChargeScope {
 public:
  ChargeScope(detail::ChargeState &st, MemoryBudget *b, int64_t reserved = 0) noexcept;
  explicit ChargeScope(MemoryBudget *b, int64_t reserved = 0) noexcept
      : ChargeScope(detail::charge_state(), b, reserved) {}
  ~ChargeScope();
  ChargeScope(const ChargeScope &) = delete;
  ChargeScope &operator=(const ChargeScope &) = delete;
  /// Bytes charged by allocations in this scope so far.
  int64_t charged() const noexcept { return st_.charged; }

 private:
  detail::ChargeState &st_;
  detail::ChargeState prev_;
};

/// Wait until `need` more bytes fit under the budget's limit (while other computations on it run and
/// may free memory); throws Error(CA_ENOMEM) naming `what`, the need and the budget when they cannot.
void wait_to_fit(MemoryBudget &b, int64_t need, const std::string &what);

/// The default memory limit of a new context: min(cgroup memory limit (v2 memory.max, else v1
/// memory.limit_in_bytes), physical RAM, RLIMIT_AS / RLIMIT_DATA) × 3/4. The quarter left over is for
/// what blocks do not account for (the caller's own buffers, plans, kernel temporaries, the C
/// library). The environment variable CA_MEMORY_LIMIT, when set to a plain byte count, replaces it
/// (for tests and deployments). Computed once.
int64_t default_memory_limit();

/// Human form of a byte count: "2 GiB", "1.5 MiB", "512 bytes".
std::string bytes_str(int64_t n);

}  // namespace ca
