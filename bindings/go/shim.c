#include "shim.h"

#include <dlfcn.h>
#include <stdio.h>
#include <pthread.h>
#include <string.h>

#include "_cgo_export.h"

#define CAG_PTR(ret, name, params, args) static __typeof__(name) *p_##name;
#define CAG_PTR_VOID(name, params, args) static __typeof__(name) *p_##name;
#define CAG_PTR_OPT(ret, name, params, args) static ret(*p_##name) params;
CAG_FUNCS(CAG_PTR)
CAG_VOID_FUNCS(CAG_PTR_VOID)
CAG_OPTIONAL_FUNCS(CAG_PTR_OPT)
static __typeof__(ca_context_register) *p_ca_context_register;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static int g_loaded;
static char g_err[1024];

#define CAG_LOAD(ret, name, params, args) \
  if (!(*(void **)&p_##name = dlsym(h, #name))) { missing = #name; goto fail; }
#define CAG_LOAD_VOID(name, params, args) CAG_LOAD(void, name, params, args)
#define CAG_LOAD_OPT(ret, name, params, args) *(void **)&p_##name = dlsym(h, #name);

int cag_load(const char *path, const char **err) {
  pthread_mutex_lock(&g_lock);
  if (g_loaded) {
    pthread_mutex_unlock(&g_lock);
    return 0;
  }
  if (!path || !*path) path = getenv("CHUNKARRAY_LIB");
  if (!path || !*path) path = "libchunkarray.so.1";
  /* libchunkarray links libmimalloc (which exports operator new/delete) ahead of libstdc++: make
   * libstdc++'s global first so a process with its own libstdc++ does not mix allocators. */
  dlopen("libstdc++.so.6", RTLD_NOW | RTLD_GLOBAL);
  const char *missing = NULL;
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *e = dlerror();
    snprintf(g_err, sizeof g_err, "cannot load %s: %s", path, e ? e : "?");
    goto out;
  }
  CAG_FUNCS(CAG_LOAD)
  CAG_VOID_FUNCS(CAG_LOAD_VOID)
  CAG_LOAD(ca_status_t, ca_context_register, (), ())
  CAG_OPTIONAL_FUNCS(CAG_LOAD_OPT)
  g_loaded = 1;
  pthread_mutex_unlock(&g_lock);
  return 0;
fail:
  snprintf(g_err, sizeof g_err, "%s has no symbol %s", path, missing);
out:
  pthread_mutex_unlock(&g_lock);
  *err = g_err;
  return -1;
}

int cag_has(const char *name) {
#define CAG_HAS(ret, n, params, args) if (!strcmp(name, #n)) return p_##n != NULL;
  CAG_OPTIONAL_FUNCS(CAG_HAS)
  return 0;
}

#define CAG_DEF(ret, name, params, args) ret cag_##name params { return p_##name args; }
#define CAG_DEF_VOID(name, params, args) void cag_##name params { p_##name args; }
CAG_FUNCS(CAG_DEF)
CAG_VOID_FUNCS(CAG_DEF_VOID)

/* The optional ones report CA_EUNSUPPORTED through the kernel-less path: Go checks cag_has first. */
#define CAG_DEF_OPT(ret, name, params, args) \
  ret cag_##name params { return p_##name ? p_##name args : CA_EUNSUPPORTED; }
CAG_OPTIONAL_FUNCS(CAG_DEF_OPT)

int32_t cag_arg_kind(const ca_arg_t *args, size_t i) { return args[i].kind; }
int64_t cag_arg_i64(const ca_arg_t *args, size_t i) { return args[i].u.i64; }
double cag_arg_f64(const ca_arg_t *args, size_t i) { return args[i].u.f64; }
const ca_block_t *cag_arg_block(const ca_arg_t *args, size_t i) { return args[i].u.block; }
const char *cag_arg_bytes(const ca_arg_t *args, size_t i, size_t *len) {
  *len = args[i].u.bytes.len;
  return (const char *)args[i].u.bytes.data;
}
void cag_set_arg_i64(ca_arg_t *a, int64_t v) { *a = ca_arg_i64(v); }
void cag_set_arg_f64(ca_arg_t *a, double v) { *a = ca_arg_f64(v); }

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
  return p_ca_context_register(ctx, name, go_kernel, &o);
}
