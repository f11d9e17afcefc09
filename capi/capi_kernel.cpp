// Kernels: creation, the per-call context, direct calls.
#include "capi_internal.hpp"

extern "C" {

CA_API void ca_kernel_set_error(ca_kernel_ctx_t *kctx, const char *message) {
  if (!kctx) return;
  try {
    kctx->error = message ? message : "";
  } catch (...) {
  }
}

CA_API const char *ca_kernel_key_name(const ca_kernel_ctx_t *kctx) { return kctx ? kctx->key_name : ""; }

CA_API const int64_t *ca_kernel_key_index(const ca_kernel_ctx_t *kctx, int32_t *nindex) {
  if (nindex) *nindex = kctx ? kctx->nindex : 0;
  return kctx ? kctx->key_index : nullptr;
}

CA_API int ca_kernel_cancelled(const ca_kernel_ctx_t *kctx) {
  return kctx && kctx->cancelled && kctx->cancelled->load(std::memory_order_relaxed) ? 1 : 0;
}

CA_API ca_status_t ca_kernel_new(ca_kernel_t **out, const char *name, ca_kernel_fn fn, const ca_kernel_options_t *opts) {
  void *ud = opts ? opts->user_data : nullptr;
  void (*free_ud)(void *) = opts ? opts->free_user_data : nullptr;
  if (out) *out = nullptr;
  if (!out || !name) {
    if (free_ud) free_ud(ud);
    return set_error(CA_EINVAL, !out ? "ca_kernel_new: out is NULL" : "ca_kernel_new: name is NULL");
  }
  *out = nullptr;
  CA_TRY
  ca::KernelPtr k = ca::kernel_new(name, fn, opts ? opts->version : 1, ud, free_ud);
  *out = ca::kernel_retain(k.get());
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_kernel_new_ffi(ca_kernel_t **out, const char *name, void (*fn)(void), const char *signature,
                                     const ca_kernel_options_t *opts) {
  void *ud = opts ? opts->user_data : nullptr;
  void (*free_ud)(void *) = opts ? opts->free_user_data : nullptr;
  if (out) *out = nullptr;
  if (!out || !name || !signature || !fn) {
    if (free_ud) free_ud(ud);
    return set_error(CA_EINVAL, std::string("ca_kernel_new_ffi: ") +
                                    (!out ? "out" : !name ? "name" : !signature ? "signature" : "fn") + " is NULL");
  }
  *out = nullptr;
  CA_TRY
  ca::KernelPtr k = ca::kernel_new_ffi(name, fn, signature, opts ? opts->version : 1, ud, free_ud);
  *out = ca::kernel_retain(k.get());
  return CA_OK;
  CA_CATCH
}

CA_API void ca_kernel_free(ca_kernel_t *k) { ca::kernel_release(k); }
CA_API const char *ca_kernel_name(const ca_kernel_t *k) { return k ? k->name.c_str() : nullptr; }
CA_API int32_t ca_kernel_version(const ca_kernel_t *k) { return k ? k->version : -1; }

CA_API ca_status_t ca_kernel_call(ca_block_t **out, const ca_kernel_t *kernel, const ca_arg_t *args, size_t nargs) {
  CA_ARG_NOT_NULL(out);
  *out = nullptr;
  CA_ARG_NOT_NULL(kernel);
  if (!args && nargs) return set_error(CA_EINVAL, "ca_kernel_call: args is NULL with nargs > 0");
  for (size_t i = 0; i < nargs; ++i)
    if (args[i].kind == CA_ARG_KEY || args[i].kind == CA_ARG_INDEXED)
      return set_error(CA_EINVAL, "ca_kernel_call: argument " + std::to_string(i) +
                                      " is a key; pass blocks as CA_ARG_BLOCK outside a graph");
  CA_TRY
  ca_kernel_ctx kc;
  kc.key_name = "";
  *out = ca::kernel_invoke(kernel, args, nargs, &kc);
  return CA_OK;
  CA_CATCH
}

}  // extern "C"
