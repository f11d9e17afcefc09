// Kernels: creation, the per-call context, direct calls.
#include "capi_internal.hpp"

#include <cstddef>

#include "builtins/builtins.hpp"
#include "builtins/kernel_docs.hpp"

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

// ---- listing a registry -------------------------------------------------------------------------

struct ca_kernel_list {
  struct Entry {
    std::string name, signature, description;
    int32_t version = 0, builtin = 0, stable = 0;
  };
  std::vector<Entry> entries;
};

extern "C" {

CA_API ca_status_t ca_kernel_registry_list(ca_kernel_list_t **out, const ca_context_t *ctx) {
  OUT_INIT(out);
  CA_TRY
  const ca::KernelRegistry &builtins = ca::builtin_kernel_registry();
  const ca::KernelRegistry &reg = ctx ? ctx->engine.registry() : builtins;
  auto list = std::make_unique<ca_kernel_list>();
  std::vector<std::string> names = reg.names();
  std::sort(names.begin(), names.end());
  for (const std::string &n : names) {
    ca::KernelPtr k = reg.find(n);
    if (!k) continue;  // removed by another thread since names()
    ca_kernel_list::Entry e;
    e.name = n;
    e.version = k->version;
    ca::KernelPtr b = builtins.find(n);
    // The builtin itself (same function and version), not a caller's kernel under a builtin name.
    e.builtin = b && b->fn == k->fn && b->version == k->version && b->user_data == k->user_data;
    if (const ca::BuiltinKernelDoc *d = e.builtin ? ca::builtin_kernel_doc(n) : nullptr) {
      e.signature = d->signature;
      e.description = d->description;
      e.stable = d->stable;
    } else {
      e.signature = k->signature;  // a libffi kernel's C signature, else ""
    }
    list->entries.push_back(std::move(e));
  }
  *out = list.release();
  return CA_OK;
  CA_CATCH
}

CA_API size_t ca_kernel_list_size(const ca_kernel_list_t *list) { return list ? list->entries.size() : 0; }

CA_API ca_status_t ca_kernel_list_get(ca_kernel_info_t *out, const ca_kernel_list_t *list, size_t i) {
  CA_ARG_NOT_NULL(out);
  CA_ARG_NOT_NULL(list);
  const size_t min_size = offsetof(ca_kernel_info_t, name) + sizeof(const char *);
  if (out->struct_size < min_size)
    return set_error(CA_EINVAL, ca::str("ca_kernel_list_get: out->struct_size ", out->struct_size,
                                        " is too small (set it to sizeof(ca_kernel_info_t))"));
  if (i >= list->entries.size())
    return set_error(CA_EINVAL, ca::str("ca_kernel_list_get: index ", i, " is out of range (the list has ",
                                        list->entries.size(), " kernels)"));
  const ca_kernel_list::Entry &e = list->entries[i];
  ca_kernel_info_t info = CA_KERNEL_INFO_INIT;
  info.name = e.name.c_str();
  info.version = e.version;
  info.builtin = e.builtin;
  info.stable = e.stable;
  info.signature = e.signature.c_str();
  info.description = e.description.c_str();
  uint32_t size = std::min<uint32_t>(out->struct_size, sizeof info);
  std::memcpy(static_cast<void *>(out), &info, size);
  out->struct_size = size;
  return CA_OK;
}

CA_API void ca_kernel_list_free(ca_kernel_list_t *list) { delete list; }

}  // extern "C"
