#define _GNU_SOURCE 1 /* RTLD_DEFAULT */
#include "shim.h"

#include <dlfcn.h>
#include <string.h>

#include "_cgo_export.h"

int cag_has(const char *name) { return dlsym(RTLD_DEFAULT, name) != NULL; }

int32_t cag_arg_kind(const ca_arg_t *args, size_t i) { return args[i].kind; }
int64_t cag_arg_i64(const ca_arg_t *args, size_t i) { return args[i].u.i64; }
double cag_arg_f64(const ca_arg_t *args, size_t i) { return args[i].u.f64; }
const ca_block_t *cag_arg_block(const ca_arg_t *args, size_t i) { return args[i].u.block; }
const char *cag_arg_bytes(const ca_arg_t *args, size_t i, size_t *len) {
  *len = args[i].u.bytes.len;
  return (const char *)args[i].u.bytes.data;
}
const int64_t *cag_arg_tuple(const ca_arg_t *args, size_t i, size_t *len) {
  *len = args[i].u.tuple.len;
  return args[i].u.tuple.items;
}
const ca_arg_t *cag_arg_list(const ca_arg_t *args, size_t i, size_t *len) {
  *len = args[i].u.list.len;
  return args[i].u.list.items;
}
void cag_arg_slice(const ca_arg_t *args, size_t i, int64_t *start, int64_t *stop, int64_t *step, uint32_t *flags) {
  *start = args[i].u.slice.start;
  *stop = args[i].u.slice.stop;
  *step = args[i].u.slice.step;
  *flags = args[i].u.slice.flags;
}

void cag_set_arg_none(ca_arg_t *a) { *a = ca_arg_none(); }
void cag_set_arg_i64(ca_arg_t *a, int64_t v) { *a = ca_arg_i64(v); }
void cag_set_arg_f64(ca_arg_t *a, double v) { *a = ca_arg_f64(v); }
void cag_set_arg_str(ca_arg_t *a, const char *s, size_t len) {
  *a = ca_arg_bytes(s, len);
  a->kind = CA_ARG_STRING;
}
void cag_set_arg_bytes(ca_arg_t *a, const void *p, size_t len) { *a = ca_arg_bytes(p, len); }
void cag_set_arg_tuple(ca_arg_t *a, const int64_t *items, size_t len) { *a = ca_arg_tuple(items, len); }
void cag_set_arg_key(ca_arg_t *a, const char *name, const int64_t *index, int32_t nindex) {
  *a = ca_arg_key(name, index, nindex);
}
void cag_set_arg_list(ca_arg_t *a, const ca_arg_t *items, size_t len) { *a = ca_arg_list(items, len); }

ca_scalar_t cag_scalar_f64(double v) {
  ca_scalar_t s;
  memset(&s, 0, sizeof s);
  s.kind = CA_FLOAT64;
  s.re = v;
  return s;
}

ca_scalar_t cag_scalar_i64(int64_t v) {
  ca_scalar_t s;
  memset(&s, 0, sizeof s);
  s.kind = CA_INT64;
  s.i64 = v;
  s.re = (double)v;
  return s;
}

/* Kernel trampolines into Go (exported from kernel.go). */
static ca_status_t go_kernel(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx,
                             void *user_data) {
  return goKernelCall(out, (ca_arg_t *)args, nargs, kctx, *(uintptr_t *)user_data);
}

static void go_kernel_free(void *user_data) {
  goKernelFree(*(uintptr_t *)user_data);
  free(user_data);
}

ca_status_t cag_register_go_kernel(ca_context_t *ctx, const char *name, uintptr_t handle) {
  uintptr_t *ud = malloc(sizeof *ud);
  if (!ud) {
    goKernelFree(handle);
    return CA_ENOMEM;
  }
  *ud = handle;
  ca_kernel_options_t o = CA_KERNEL_OPTIONS_INIT;
  o.user_data = ud;
  o.free_user_data = go_kernel_free; /* runs exactly once, also on failure */
  return ca_context_register(ctx, name, go_kernel, &o);
}
