// Contexts: options, configuration, the kernel registry, the lazily started executor.
#include <cctype>
#include <cstddef>
#include <cstring>
#include <cmath>
#include <cstdlib>
#include <thread>

#include "capi_internal.hpp"

#include "builtins/builtins.hpp"
#include "core/bytesize.hpp"

using ca::capi::set_error;

std::shared_ptr<ca::Executor> ca_context::executor() {
  std::lock_guard<std::mutex> lk(mu);
  if (!exec || exec->num_threads() != num_threads) exec = std::make_shared<ca::Executor>(num_threads);
  return exec;
}

namespace {

int32_t resolve_threads(int32_t n) {
  if (n >= 0) return n;
  unsigned hc = std::thread::hardware_concurrency();
  return hc ? int32_t(hc) : 1;
}

thread_local std::string t_config_value;

// memory_limit / memory-limit: 0 = the machine's default (core/memory.hpp), -1 = none.
int64_t resolve_memory_limit(int64_t v) { return v == 0 ? ca::default_memory_limit() : v < 0 ? 0 : v; }

}  // namespace

extern "C" {

CA_API ca_status_t ca_context_new(ca_context_t **out, const ca_context_options_t *opts) {
  CA_ARG_NOT_NULL(out);
  *out = nullptr;
  CA_TRY
  ca_context_options_t o = CA_CONTEXT_OPTIONS_INIT;
  if (opts) {
    if (opts->struct_size < offsetof(ca_context_options_t, num_threads) + sizeof(int32_t))
      ca::fail(CA_EINVAL, "ca_context_new: opts->struct_size ", opts->struct_size, " is too small");
    size_t n = std::min<size_t>(opts->struct_size, sizeof(o));
    std::memcpy(&o, opts, n);
    o.struct_size = sizeof(o);
  }
  CA_CHECK(o.num_threads >= -1 && o.num_threads <= 4096, CA_EINVAL, "num_threads ", o.num_threads,
           " is out of range (-1..4096)");
  CA_CHECK(o.memory_limit >= -1, CA_EINVAL, "memory_limit ", o.memory_limit,
           " is out of range (bytes; 0 = the machine's default, -1 = none)");
  CA_CHECK(o.chunk_size >= 0, CA_EINVAL, "chunk_size ", o.chunk_size, " is negative");
  auto ctx = std::make_unique<ca_context>();
  ctx->opts = o;
  ctx->num_threads = resolve_threads(o.num_threads);
  ctx->budget->set_limit(resolve_memory_limit(o.memory_limit));
  if (o.chunk_size > 0) ctx->chunk_size = o.chunk_size;
  if (o.builtin_kernels) ca::register_builtin_kernels(ctx->registry);
  *out = ctx.release();
  return CA_OK;
  CA_CATCH
}

CA_API void ca_context_free(ca_context_t *ctx) { delete ctx; }

CA_API int32_t ca_context_num_threads(const ca_context_t *ctx) { return ctx ? ctx->num_threads : -1; }

CA_API ca_status_t ca_context_set_config(ca_context_t *ctx, const char *key, const char *value) {
  CA_ARG_NOT_NULL(ctx);
  CA_ARG_NOT_NULL(key);
  CA_ARG_NOT_NULL(value);
  CA_TRY
  std::string k(key), v(value);
  std::lock_guard<std::mutex> lk(ctx->mu);
  if (k == "array.chunk-size") {
    int64_t b = ca::parse_bytes(v);
    CA_CHECK(b > 0, CA_EINVAL, "array.chunk-size must be positive, got '", v, "'");
    ctx->chunk_size = b;
  } else if (k == "memory-limit") {
    if (v == "auto") ctx->budget->set_limit(ca::default_memory_limit());
    else if (v == "none" || v == "-1") ctx->budget->set_limit(0);
    else ctx->budget->set_limit(resolve_memory_limit(ca::parse_bytes(v)));
  } else if (k == "graph.max-tasks") {
    char *end = nullptr;
    long long n = std::strtoll(value, &end, 10);
    CA_CHECK(end != value && *end == '\0' && n >= 0 && n < INT32_MAX, CA_EINVAL, "graph.max-tasks '", v,
             "' is not an integer in 0..", INT32_MAX - 1, " (0 = derived from the memory limit)");
    ctx->max_tasks = n;
  } else if (k == "num-threads") {
    char *end = nullptr;
    long n = std::strtol(value, &end, 10);
    CA_CHECK(end != value && *end == '\0' && n >= -1 && n <= 4096, CA_EINVAL, "num-threads '", v,
             "' is not an integer in -1..4096");
    ctx->num_threads = resolve_threads(int32_t(n));
  } else {
    ca::fail(CA_ENOTFOUND, "unknown configuration key '", k,
             "' (known: array.chunk-size, graph.max-tasks, memory-limit, num-threads)");
  }
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_context_get_config(const char **out, const ca_context_t *ctx, const char *key) {
  CA_ARG_NOT_NULL(out);
  *out = nullptr;
  CA_ARG_NOT_NULL(ctx);
  CA_ARG_NOT_NULL(key);
  CA_TRY
  std::string k(key);
  auto *c = const_cast<ca_context_t *>(ctx);
  std::lock_guard<std::mutex> lk(c->mu);
  if (k == "array.chunk-size") t_config_value = std::to_string(c->chunk_size);
  else if (k == "memory-limit") t_config_value = c->budget->limited() ? std::to_string(c->budget->limit()) : "none";
  else if (k == "graph.max-tasks") t_config_value = std::to_string(c->task_budget());
  else if (k == "num-threads") t_config_value = std::to_string(c->num_threads);
  else ca::fail(CA_ENOTFOUND, "unknown configuration key '", k, "'");
  *out = t_config_value.c_str();
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_context_add_kernel(ca_context_t *ctx, ca_kernel_t *kernel, int replace) {
  CA_ARG_NOT_NULL(ctx);
  CA_ARG_NOT_NULL(kernel);
  CA_TRY
  ctx->registry.add(ca::KernelPtr(ca::kernel_retain(kernel)), replace);
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_context_register(ca_context_t *ctx, const char *name, ca_kernel_fn fn,
                                       const ca_kernel_options_t *opts) {
  ca_kernel_t *k = nullptr;
  if (!ctx) {
    if (opts && opts->free_user_data) opts->free_user_data(opts->user_data);
    return set_error(CA_EINVAL, "ca_context_register: ctx is NULL");
  }
  ca_status_t st = ca_kernel_new(&k, name, fn, opts);
  if (st != CA_OK) return st;
  st = ca_context_add_kernel(ctx, k, false);
  ca_kernel_free(k);
  return st;
}

CA_API ca_status_t ca_context_register_ffi(ca_context_t *ctx, const char *name, void (*fn)(void), const char *signature,
                                           const ca_kernel_options_t *opts) {
  ca_kernel_t *k = nullptr;
  if (!ctx) {
    if (opts && opts->free_user_data) opts->free_user_data(opts->user_data);
    return set_error(CA_EINVAL, "ca_context_register_ffi: ctx is NULL");
  }
  ca_status_t st = ca_kernel_new_ffi(&k, name, fn, signature, opts);
  if (st != CA_OK) return st;
  st = ca_context_add_kernel(ctx, k, false);
  ca_kernel_free(k);
  return st;
}

CA_API ca_status_t ca_context_get_kernel(ca_kernel_t **out, const ca_context_t *ctx, const char *name) {
  CA_ARG_NOT_NULL(out);
  *out = nullptr;
  CA_ARG_NOT_NULL(ctx);
  CA_ARG_NOT_NULL(name);
  CA_TRY
  ca::KernelPtr k = ctx->registry.get(name);
  *out = ca::kernel_retain(k.get());
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_context_remove_kernel(ca_context_t *ctx, const char *name) {
  CA_ARG_NOT_NULL(ctx);
  CA_ARG_NOT_NULL(name);
  CA_TRY
  if (!ctx->registry.remove(name)) ca::fail(CA_ENOTFOUND, "no kernel named '", name, "' is registered");
  return CA_OK;
  CA_CATCH
}

CA_API int64_t ca_context_num_kernels(const ca_context_t *ctx) { return ctx ? int64_t(ctx->registry.size()) : -1; }

}  // extern "C"
