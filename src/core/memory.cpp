#include "core/memory.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/error.hpp"

namespace ca {

// ------------------------------------------------------------------------------------------------
// MemoryBudget

MemoryBudget *MemoryBudget::create(int64_t limit) { return new MemoryBudget(limit); }

bool MemoryBudget::try_reserve(int64_t n, int64_t ceiling) noexcept {
  int64_t h = held_.load(std::memory_order_relaxed);
  do {
    if (h + n > ceiling) return false;
  } while (!held_.compare_exchange_weak(h, h + n, std::memory_order_relaxed));
  int64_t now = h + n, p = peak_.load(std::memory_order_relaxed);
  while (now > p && !peak_.compare_exchange_weak(p, now, std::memory_order_relaxed)) {
  }
  return true;
}

void MemoryBudget::force(int64_t n) noexcept {
  int64_t now = held_.fetch_add(n, std::memory_order_relaxed) + n;
  int64_t p = peak_.load(std::memory_order_relaxed);
  while (now > p && !peak_.compare_exchange_weak(p, now, std::memory_order_relaxed)) {
  }
}

void MemoryBudget::give_back(int64_t n) noexcept {
  held_.fetch_sub(n, std::memory_order_relaxed);
  // Only computations waiting for memory sleep here; they poll, so a missed wake-up costs a timeout.
  if (waiters_.load(std::memory_order_relaxed) > 0) {
    {
      std::lock_guard<std::mutex> lk(mu_);
      ++releases_;
    }
    cv_.notify_all();
  }
}

void MemoryBudget::wait_for_release(int64_t timeout_ms) {
  waiters_.fetch_add(1, std::memory_order_relaxed);
  {
    std::unique_lock<std::mutex> lk(mu_);
    uint64_t seen = releases_;
    cv_.wait_for(lk, std::chrono::milliseconds(timeout_ms), [&] { return releases_ != seen; });
  }
  waiters_.fetch_sub(1, std::memory_order_relaxed);
}

std::string bytes_str(int64_t n) {
  static const char *units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (n < 1024) return str(n, n == 1 ? " byte" : " bytes");
  double v = double(n);
  int u = -1;
  while (v >= 1024 && u < 5) v /= 1024, ++u;
  char buf[32];
  std::snprintf(buf, sizeof buf, v >= 100 || v == double(int64_t(v)) ? "%.0f %s" : "%.1f %s", v, units[u]);
  return buf;
}

std::string MemoryBudget::describe() const {
  int64_t l = limit();
  std::string s = l > 0 ? str("the memory limit of ", l, " bytes (", bytes_str(l), "; config memory-limit)")
                        : std::string("no memory limit");
  return str(s, ", ", held(), " bytes held by live blocks");
}

// ------------------------------------------------------------------------------------------------
// Charging allocations

namespace {
// The default TLS model: the library is dlopen()ed (Python's ctypes), where initial-exec TLS can fail
// to load ("cannot allocate memory in static TLS block"). The executor looks the state up once per
// worker, and block_new only for blocks of kChargeMin bytes or more, so the lookup is off the hot path.
thread_local detail::ChargeState t_charge;
}  // namespace

namespace {
thread_local std::string t_alloc_failure;
}  // namespace

namespace detail {

ChargeState &charge_state() noexcept { return t_charge; }

std::string take_alloc_failure() {
  std::string s;
  s.swap(t_alloc_failure);
  return s;
}

void fail_alloc(std::string message) {
  try {
    t_alloc_failure = message;
  } catch (...) {
    t_alloc_failure.clear();
  }
  throw Error(CA_ENOMEM, std::move(message));
}

MemoryBudget *charge_current(int64_t n) {
  if (n < kChargeMin) return nullptr;
  ChargeState &st = t_charge;
  MemoryBudget *b = st.budget;
  if (!b) return nullptr;
  int64_t limit = b->limit();
  if (limit > 0 && n > limit)
    fail_alloc(str("a block of ", n, " bytes (", bytes_str(n), ") cannot fit in ", b->describe()));
  int64_t from_reserve = n < st.reserved ? n : st.reserved;
  st.reserved -= from_reserve;
  if (n > from_reserve) b->force(n - from_reserve);
  st.charged += n;
  b->retain();
  return b;
}

}  // namespace detail

ChargeScope::ChargeScope(detail::ChargeState &st, MemoryBudget *b, int64_t reserved) noexcept : st_(st), prev_(st) {
  st.budget = b;
  st.reserved = reserved;
  st.charged = 0;
}

ChargeScope::~ChargeScope() {
  if (st_.reserved > 0 && st_.budget) st_.budget->give_back(st_.reserved);
  st_ = prev_;
}

void wait_to_fit(MemoryBudget &b, int64_t need, const std::string &what) {
  while (true) {
    int64_t limit = b.limit();
    if (limit <= 0 || b.held() + need <= limit) return;
    if (need > limit)
      fail(CA_ENOMEM, what, " needs ", need, " bytes (", bytes_str(need), "), more than ", b.describe());
    if (b.active_runs.load(std::memory_order_relaxed) == 0)
      fail(CA_ENOMEM, what, " needs ", need, " bytes (", bytes_str(need), "), which do not fit beside what is held: ",
           b.describe(), " (free persisted arrays or results, or raise memory-limit)");
    b.wait_for_release(20);
  }
}

// ------------------------------------------------------------------------------------------------
// The machine's default

namespace {

// A cgroup limit file: a byte count, or "max" / a huge v1 sentinel for none (-1).
int64_t read_limit_file(const std::string &path) {
  std::ifstream f(path);
  std::string s;
  if (!(f >> s) || s == "max") return -1;
  char *end = nullptr;
  unsigned long long v = std::strtoull(s.c_str(), &end, 10);
  if (end == s.c_str() || *end) return -1;
  if (v >= (1ULL << 62)) return -1;  // v1 reports "no limit" as ~2^63 rounded to pages
  return int64_t(v);
}

int64_t cgroup_limit() {
  // cgroup v2: "0::/path" in /proc/self/cgroup; the limit of the nearest limited ancestor counts.
  std::ifstream cg("/proc/self/cgroup");
  std::string line, v2path, v1path;
  while (std::getline(cg, line)) {
    if (line.rfind("0::", 0) == 0) v2path = line.substr(3);
    size_t a = line.find(':'), b = line.find(':', a + 1);
    if (a != std::string::npos && b != std::string::npos) {
      std::string ctrls = line.substr(a + 1, b - a - 1);
      std::stringstream ss(ctrls);
      std::string c;
      while (std::getline(ss, c, ','))
        if (c == "memory") v1path = line.substr(b + 1);
    }
  }
  int64_t best = -1;
  auto take = [&](int64_t v) {
    if (v > 0 && (best < 0 || v < best)) best = v;
  };
  if (!v2path.empty()) {
    std::string p = v2path;
    while (true) {
      take(read_limit_file("/sys/fs/cgroup" + (p == "/" ? std::string() : p) + "/memory.max"));
      if (p.empty() || p == "/") break;
      size_t s = p.rfind('/');
      p = s == 0 || s == std::string::npos ? "/" : p.substr(0, s);
    }
  }
  if (!v1path.empty()) {
    take(read_limit_file("/sys/fs/cgroup/memory" + v1path + "/memory.limit_in_bytes"));
    take(read_limit_file("/sys/fs/cgroup/memory/memory.limit_in_bytes"));
  }
  return best;
}

int64_t compute_default_limit() {
  if (const char *e = std::getenv("CA_MEMORY_LIMIT")) {
    char *end = nullptr;
    long long v = std::strtoll(e, &end, 10);
    if (end != e && *end == '\0' && v >= 0) return int64_t(v);
  }
  int64_t m = -1;
  auto take = [&](int64_t v) {
    if (v > 0 && (m < 0 || v < m)) m = v;
  };
  long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
  if (pages > 0 && psize > 0 && pages < (int64_t(1) << 62) / psize) take(int64_t(pages) * psize);
  take(cgroup_limit());
  for (int res : {RLIMIT_AS, RLIMIT_DATA}) {
    struct rlimit rl;
    if (getrlimit(res, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < (rlim_t(1) << 62))
      take(int64_t(rl.rlim_cur));
  }
  if (m < 0) return 0;  // nothing known: unlimited
  return m / 4 * 3;
}

}  // namespace

int64_t default_memory_limit() {
  static const int64_t v = compute_default_limit();
  return v;
}

}  // namespace ca
