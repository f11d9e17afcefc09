#include "kernel/kernel.hpp"

#include <algorithm>

#include "core/memory.hpp"
#include "core/status.hpp"
#include "kernel/adapter.hpp"

namespace ca {

KernelPtr kernel_new(const std::string &name, ca_kernel_fn fn, int32_t version, void *ud, void (*free_ud)(void *)) {
  try {
    CA_CHECK(!name.empty(), CA_EINVAL, "kernel name is empty");
    CA_CHECK(name.find('\0') == std::string::npos, CA_EINVAL, "kernel name contains a NUL byte");
    CA_CHECK(fn != nullptr, CA_EINVAL, "fn (the kernel function of '", name, "') is NULL");
    // Graph files record versions as non-negative numbers (0: not recorded).
    CA_CHECK(version >= 0, CA_EINVAL, "kernel '", name, "' has negative version ", version);
  } catch (...) {
    if (free_ud) free_ud(ud);
    throw;
  }
  Kernel *k;
  try {
    k = new Kernel();
  } catch (...) {
    if (free_ud) free_ud(ud);
    throw;
  }
  k->name = name;
  k->version = version;
  k->fn = fn;
  k->user_data = ud;
  k->free_user_data = free_ud;
  return KernelPtr(k);
}

Block *kernel_invoke(const Kernel *k, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx) {
  ca_kernel_ctx_t local;
  if (!kctx) kctx = &local;
  ca_block_t *out = nullptr;
  ca_status_t st = CA_OK;
  // Builtin kernels never throw (kernel_boundary); a user kernel written in C++ that does is held by
  // the same boundary, so nothing escapes into the executor.
  const ca_status_t thrown = kernel_boundary(&out, kctx, [&] { st = k->fn(&out, args, nargs, kctx, k->user_data); });
  if (thrown != CA_OK) st = thrown;
  if (st != CA_OK) {
    block_release(out);
    std::string msg = !kctx->error.empty() ? kctx->error : std::string(status_name(st));
    if (st == CA_ENOMEM && kctx->error.empty()) {
      std::string why = detail::take_alloc_failure();  // e.g. ca_block_new's CA_ENOMEM passed on
      if (!why.empty()) msg = why;
    }
    // A kernel reporting CA_ENOMEM (e.g. passing on ca_block_new's status) ran out of memory.
    fail(st == CA_ENOMEM ? CA_ENOMEM : CA_EKERNEL, "kernel '", k->name, "' failed: ", msg);
  }
  if (!out) fail(CA_EKERNEL, "kernel '", k->name, "' returned success but no result block");
  return out;
}

void KernelRegistry::add(KernelPtr k, bool replace) {
  CA_CHECK(k, CA_EINVAL, "kernel is NULL");
  std::lock_guard<std::mutex> lk(mu_);
  auto it = map_.find(k->name);
  if (it != map_.end() && !replace) fail(CA_EEXISTS, "a kernel named '", k->name, "' is already registered");
  std::string name = k->name;
  map_[name] = std::move(k);
}

KernelPtr KernelRegistry::find(const std::string &name) const {
  std::lock_guard<std::mutex> lk(mu_);
  auto it = map_.find(name);
  return it == map_.end() ? KernelPtr() : it->second;
}

KernelPtr KernelRegistry::get(const std::string &name) const {
  KernelPtr k = find(name);
  if (!k) fail(CA_ENOTFOUND, "unknown kernel '", name, "' (not registered in this context)");
  return k;
}

bool KernelRegistry::remove(const std::string &name) {
  std::lock_guard<std::mutex> lk(mu_);
  return map_.erase(name) > 0;
}

size_t KernelRegistry::size() const {
  std::lock_guard<std::mutex> lk(mu_);
  return map_.size();
}

KernelRegistry::Snapshot KernelRegistry::snapshot() const {
  std::lock_guard<std::mutex> lk(mu_);
  return map_;
}

void KernelRegistry::restore(Snapshot s) {
  Snapshot old;
  {
    std::lock_guard<std::mutex> lk(mu_);
    old.swap(map_);
    map_.swap(s);
  }
  // `old` releases the dropped kernels here, outside the lock (their free_user_data may call back).
}

std::vector<std::string> KernelRegistry::names() const {
  std::lock_guard<std::mutex> lk(mu_);
  std::vector<std::string> v;
  for (auto &kv : map_) v.push_back(kv.first);
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace ca
