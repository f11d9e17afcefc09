// The engine context: configuration parsing, the lazily started executor.
#include "exec/context.hpp"

#include "core/big_buffer.hpp"

#include <climits>
#include <cstdlib>
#include <thread>

#include "core/bytesize.hpp"
#include "core/error.hpp"
#include "graph/plan.hpp"

namespace ca {

namespace {

int32_t resolve_threads(int32_t n) {
  if (n >= 0) return n;
  unsigned hc = std::thread::hardware_concurrency();
  return hc ? int32_t(hc) : 1;
}

// memory_limit / memory-limit: 0 = the machine's default (core/memory.hpp), -1 = none.
int64_t resolve_memory_limit(int64_t v) { return v == 0 ? default_memory_limit() : v < 0 ? 0 : v; }

}  // namespace

Context::Context(const ContextOptions &o) : budget_(nullptr) {
  CA_CHECK(o.num_threads >= -1 && o.num_threads <= 4096, CA_EINVAL, "num_threads ", o.num_threads,
           " is out of range (-1..4096)");
  CA_CHECK(o.memory_limit >= -1, CA_EINVAL, "memory_limit ", o.memory_limit,
           " is out of range (bytes; 0 = the machine's default, -1 = none)");
  CA_CHECK(o.chunk_size >= 0, CA_EINVAL, "chunk_size ", o.chunk_size, " is negative");
  num_threads_ = resolve_threads(o.num_threads);
  if (o.chunk_size > 0) chunk_size_ = o.chunk_size;
  budget_ = MemoryBudget::create(resolve_memory_limit(o.memory_limit));
}

Context::~Context() { budget_->release(); }

std::shared_ptr<Executor> Context::executor() {
  std::lock_guard<std::mutex> lk(mu_);
  if (!exec_ || exec_->num_threads() != num_threads_) exec_ = std::make_shared<Executor>(num_threads_);
  return exec_;
}

int32_t Context::num_threads() const {
  std::lock_guard<std::mutex> lk(mu_);
  return num_threads_;
}

int64_t Context::chunk_size() const {
  std::lock_guard<std::mutex> lk(mu_);
  return chunk_size_;
}

int64_t Context::task_budget() const {
  std::lock_guard<std::mutex> lk(mu_);
  return max_tasks_ > 0 ? max_tasks_ : default_max_tasks(budget_->limit());
}

RunOptions Context::run_options() const {
  RunOptions ro;
  ro.budget = budget_;
  ro.max_tasks = task_budget();
  return ro;
}

void Context::set_config(const std::string &k, const std::string &v) {
  std::lock_guard<std::mutex> lk(mu_);
  if (k == "array.chunk-size") {
    int64_t b = parse_bytes(v);
    CA_CHECK(b > 0, CA_EINVAL, "array.chunk-size must be positive, got '", v, "'");
    chunk_size_ = b;
  } else if (k == "memory-limit") {
    if (v == "auto") budget_->set_limit(default_memory_limit());
    else if (v == "none" || v == "-1") budget_->set_limit(0);
    else budget_->set_limit(resolve_memory_limit(parse_bytes(v)));
  } else if (k == "graph.max-tasks") {
    char *end = nullptr;
    long long n = std::strtoll(v.c_str(), &end, 10);
    CA_CHECK(end != v.c_str() && *end == '\0' && n >= 0 && n < INT32_MAX, CA_EINVAL, "graph.max-tasks '", v,
             "' is not an integer in 0..", INT32_MAX - 1, " (0 = derived from the memory limit)");
    max_tasks_ = n;
  } else if (k == "num-threads") {
    char *end = nullptr;
    long n = std::strtol(v.c_str(), &end, 10);
    CA_CHECK(end != v.c_str() && *end == '\0' && n >= -1 && n <= 4096, CA_EINVAL, "num-threads '", v,
             "' is not an integer in -1..4096");
    num_threads_ = resolve_threads(int32_t(n));
  } else if (k == "block-cache") {
    // Process-wide (core/big_buffer.hpp): freed large buffers kept for reuse, in bytes; 0 = off.
    int64_t b = v == "auto" ? -1 : parse_bytes(v);
    CA_CHECK(b >= -1, CA_EINVAL, "block-cache must be bytes (\"256MiB\"), 0 (off) or \"auto\", got '", v, "'");
    detail::big_cache_set_limit(b);
  } else {
    fail(CA_ENOTFOUND, "unknown configuration key '", k,
         "' (known: array.chunk-size, block-cache, graph.max-tasks, memory-limit, num-threads)");
  }
}

std::string Context::get_config(const std::string &k) const {
  std::lock_guard<std::mutex> lk(mu_);
  if (k == "array.chunk-size") return std::to_string(chunk_size_);
  if (k == "memory-limit") return budget_->limited() ? std::to_string(budget_->limit()) : "none";
  if (k == "graph.max-tasks") return std::to_string(max_tasks_ > 0 ? max_tasks_ : default_max_tasks(budget_->limit()));
  if (k == "num-threads") return std::to_string(num_threads_);
  if (k == "block-cache") return std::to_string(detail::big_cache_limit());
  fail(CA_ENOTFOUND, "unknown configuration key '", k, "'");
}

}  // namespace ca
