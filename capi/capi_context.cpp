// Contexts: options, configuration, the kernel registry, the lazily started executor.
#include <cstddef>
#include <cstring>

#include "capi_internal.hpp"

#include "builtins/builtins.hpp"

namespace {
thread_local std::string t_config_value;
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
  ca::ContextOptions eo;
  eo.num_threads = o.num_threads;
  eo.memory_limit = o.memory_limit;
  eo.chunk_size = o.chunk_size;
  auto ctx = std::make_unique<ca_context>(eo);
  if (o.builtin_kernels) ca::register_builtin_kernels(ctx->engine.registry());
  *out = ctx.release();
  return CA_OK;
  CA_CATCH
}

CA_API void ca_context_free(ca_context_t *ctx) { delete ctx; }

CA_API int32_t ca_context_num_threads(const ca_context_t *ctx) { return ctx ? ctx->engine.num_threads() : -1; }

CA_API ca_status_t ca_context_set_config(ca_context_t *ctx, const char *key, const char *value) {
  CA_ARG_NOT_NULL(ctx);
  CA_ARG_NOT_NULL(key);
  CA_ARG_NOT_NULL(value);
  CA_TRY
  ctx->engine.set_config(key, value);
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_context_get_config(const char **out, const ca_context_t *ctx, const char *key) {
  CA_ARG_NOT_NULL(out);
  *out = nullptr;
  CA_ARG_NOT_NULL(ctx);
  CA_ARG_NOT_NULL(key);
  CA_TRY
  t_config_value = ctx->engine.get_config(key);
  *out = t_config_value.c_str();
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_context_add_kernel(ca_context_t *ctx, ca_kernel_t *kernel, int replace) {
  CA_ARG_NOT_NULL(ctx);
  CA_ARG_NOT_NULL(kernel);
  CA_TRY
  ctx->engine.registry().add(ca::KernelPtr(ca::kernel_retain(kernel)), replace);
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_context_register(ca_context_t *ctx, const char *name, ca_kernel_fn fn,
                                       const ca_kernel_options_t *opts) {
  void *ud = opts ? opts->user_data : nullptr;
  void (*free_ud)(void *) = opts ? opts->free_user_data : nullptr;
  if (!ctx || !name) {
    if (free_ud) free_ud(ud);
    return set_error(CA_EINVAL, std::string("ca_context_register: ") + (!ctx ? "ctx" : "name") + " is NULL");
  }
  CA_TRY
  ctx->engine.registry().add(ca::kernel_new(name, fn, opts ? opts->version : 1, ud, free_ud), false);
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_context_register_ffi(ca_context_t *ctx, const char *name, void (*fn)(void), const char *signature,
                                           const ca_kernel_options_t *opts) {
  void *ud = opts ? opts->user_data : nullptr;
  void (*free_ud)(void *) = opts ? opts->free_user_data : nullptr;
  if (!ctx || !name || !signature || !fn) {
    if (free_ud) free_ud(ud);
    return set_error(CA_EINVAL, std::string("ca_context_register_ffi: ") +
                                    (!ctx ? "ctx" : !name ? "name" : !signature ? "signature" : "fn") + " is NULL");
  }
  CA_TRY
  ctx->engine.registry().add(ca::kernel_new_ffi(name, fn, signature, opts ? opts->version : 1, ud, free_ud), false);
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_context_get_kernel(ca_kernel_t **out, const ca_context_t *ctx, const char *name) {
  CA_ARG_NOT_NULL(out);
  *out = nullptr;
  CA_ARG_NOT_NULL(ctx);
  CA_ARG_NOT_NULL(name);
  CA_TRY
  ca::KernelPtr k = ctx->engine.registry().get(name);
  *out = ca::kernel_retain(k.get());
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_context_remove_kernel(ca_context_t *ctx, const char *name) {
  CA_ARG_NOT_NULL(ctx);
  CA_ARG_NOT_NULL(name);
  CA_TRY
  if (!ctx->engine.registry().remove(name)) ca::fail(CA_ENOTFOUND, "no kernel named '", name, "' is registered");
  return CA_OK;
  CA_CATCH
}

CA_API int64_t ca_context_num_kernels(const ca_context_t *ctx) { return ctx ? int64_t(ctx->engine.registry().size()) : -1; }

}  // extern "C"
