/*
 * C API test cases, C99, public API only (chunkarray/chunkarray.h).
 * Each capi_case_* returns NULL on success or a static message naming the first failed check
 * (file:line, the check, and ca_last_error_message() at that point).
 * Failing cases may leak: they stop at the first failed check.
 */
/* This file also tests the deprecated aliases (format.h, array.h, store.h: "Deprecated"). */
#define CA_DISABLE_DEPRECATE_WARNINGS
#include "capi_cases.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "chunkarray/chunkarray.h"
#include "../support/save_load.h"

static char g_msg[2048];

static const char *fail_at(int line, const char *what) {
  snprintf(g_msg, sizeof g_msg, "capi_cases.c:%d: %s (ca_last_error_message: \"%s\")", line, what,
           ca_last_error_message());
  return g_msg;
}

#define CHECK(cond)                                  \
  do {                                               \
    if (!(cond)) return fail_at(__LINE__, "check failed: " #cond); \
  } while (0)

/* CHECK_ST(expr, code): expr must return status code. */
#define CHECK_ST(expr, code)                                                                           \
  do {                                                                                                 \
    ca_status_t st_ = (expr);                                                                          \
    if (st_ != (code)) {                                                                               \
      snprintf(g_msg, sizeof g_msg, "capi_cases.c:%d: %s returned %s (%d), expected %s (message: \"%s\")", \
               __LINE__, #expr, ca_status_str(st_), (int)st_, #code, ca_last_error_message());          \
      return g_msg;                                                                                    \
    }                                                                                                  \
  } while (0)

#define CHECK_OK(expr) CHECK_ST(expr, CA_OK)

/* The last error message must contain sub. */
#define CHECK_MSG_HAS(sub)                                                                           \
  do {                                                                                               \
    const char *m_ = ca_last_error_message();                                                        \
    if (!m_ || !strstr(m_, (sub))) {                                                                 \
      snprintf(g_msg, sizeof g_msg, "capi_cases.c:%d: last error message \"%s\" does not contain \"%s\"", \
               __LINE__, m_ ? m_ : "(null)", (sub));                                                 \
      return g_msg;                                                                                  \
    }                                                                                                \
  } while (0)

#define CHECK_NEAR(a, b)                                                                              \
  do {                                                                                                \
    double a_ = (a), b_ = (b);                                                                        \
    if (!(fabs(a_ - b_) <= 1e-9 * (1.0 + fabs(b_)))) {                                                \
      snprintf(g_msg, sizeof g_msg, "capi_cases.c:%d: %s = %.17g, expected %s = %.17g", __LINE__, #a, a_, \
               #b, b_);                                                                               \
      return g_msg;                                                                                   \
    }                                                                                                 \
  } while (0)

/* Block indices 0..15, so a one-index key ('x', i) is {"x", &IDX[i], 1}. */
static const int64_t IDX[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

static ca_key_t key1(const char *name, int i) {
  ca_key_t k;
  k.name = name;
  k.index = &IDX[i];
  k.nindex = 1;
  return k;
}

/* A non-NULL pointer value used to check that failing calls reset *out to NULL. */
static int g_sentinel_storage;
#define SENTINEL ((void *)&g_sentinel_storage)

/* ------------------------------------------------------------------------------------------------ */
/* Test kernels                                                                                      */
/* ------------------------------------------------------------------------------------------------ */

/* fill(n, value): a 1-d float64 block of n copies of value. */
static ca_status_t k_fill(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx,
                          void *user_data) {
  int64_t n, i;
  double *d;
  ca_status_t st;
  (void)user_data;
  if (nargs != 2 || args[0].kind != CA_ARG_INT64 || args[1].kind != CA_ARG_FLOAT64) {
    ca_kernel_set_error(kctx, "fill: expected (int64, float64)");
    return CA_ETYPE;
  }
  n = args[0].u.i64;
  st = ca_block_new(out, CA_FLOAT64, 1, &n);
  if (st != CA_OK) return st;
  d = (double *)ca_block_data(*out);
  for (i = 0; i < n; ++i) d[i] = args[1].u.f64;
  return CA_OK;
}

/* Adds every element of every block (float64 or int64) and every numeric literal, through lists. */
static int sum_arg(const ca_arg_t *a, double *acc) {
  size_t i;
  switch (a->kind) {
    case CA_ARG_INT64: *acc += (double)a->u.i64; return 1;
    case CA_ARG_FLOAT64: *acc += a->u.f64; return 1;
    case CA_ARG_BLOCK: {
      int64_t n = ca_block_size(a->u.block), j;
      if (ca_block_dtype(a->u.block) == CA_FLOAT64) {
        const double *d = (const double *)ca_block_data(a->u.block);
        for (j = 0; j < n; ++j) *acc += d[j];
      } else if (ca_block_dtype(a->u.block) == CA_INT64) {
        const int64_t *d = (const int64_t *)ca_block_data(a->u.block);
        for (j = 0; j < n; ++j) *acc += (double)d[j];
      } else {
        return 0;
      }
      return 1;
    }
    case CA_ARG_LIST:
      for (i = 0; i < a->u.list.len; ++i)
        if (!sum_arg(&a->u.list.items[i], acc)) return 0;
      return 1;
    default: return 0;
  }
}

/* total(args...): a 0-d float64 block holding the sum of everything numeric in the arguments. */
static ca_status_t k_total(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx,
                           void *user_data) {
  double acc = 0;
  size_t i;
  ca_status_t st;
  (void)user_data;
  for (i = 0; i < nargs; ++i) {
    if (!sum_arg(&args[i], &acc)) {
      ca_kernel_set_error(kctx, "total: an argument is not numeric");
      return CA_ETYPE;
    }
  }
  st = ca_block_new(out, CA_FLOAT64, 0, NULL);
  if (st != CA_OK) return st;
  *(double *)ca_block_data(*out) = acc;
  return CA_OK;
}

/* scale(block, factor): a float64 block of the same shape, each element times factor. */
static ca_status_t k_scale(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx,
                           void *user_data) {
  const ca_block_t *b;
  const double *src;
  double *dst;
  int64_t i, n;
  ca_status_t st;
  (void)user_data;
  if (nargs != 2 || args[0].kind != CA_ARG_BLOCK || args[1].kind != CA_ARG_FLOAT64 ||
      ca_block_dtype(args[0].u.block) != CA_FLOAT64) {
    ca_kernel_set_error(kctx, "scale: expected (float64 block, float64)");
    return CA_ETYPE;
  }
  b = args[0].u.block;
  st = ca_block_new(out, CA_FLOAT64, ca_block_ndim(b), ca_block_shape(b));
  if (st != CA_OK) return st;
  src = (const double *)ca_block_data(b);
  dst = (double *)ca_block_data(*out);
  n = ca_block_size(b);
  for (i = 0; i < n; ++i) dst[i] = src[i] * args[1].u.f64;
  return CA_OK;
}

/* fail(...): always fails with a message. */
static ca_status_t k_fail(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx,
                          void *user_data) {
  (void)out;
  (void)args;
  (void)nargs;
  (void)user_data;
  ca_kernel_set_error(kctx, "deliberate failure from k_fail");
  return CA_EKERNEL;
}

/* keyinfo(): a 1-d int64 block: [name matches "ki" (1/0), index...]. */
static ca_status_t k_keyinfo(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx,
                             void *user_data) {
  int32_t nindex = -1, i;
  const int64_t *index = ca_kernel_key_index(kctx, &nindex);
  int64_t n;
  int64_t *d;
  ca_status_t st;
  (void)args;
  (void)nargs;
  (void)user_data;
  if (nindex < 0) nindex = 0;
  n = 1 + nindex;
  st = ca_block_new(out, CA_INT64, 1, &n);
  if (st != CA_OK) return st;
  d = (int64_t *)ca_block_data(*out);
  d[0] = strcmp(ca_kernel_key_name(kctx), "ki") == 0;
  for (i = 0; i < nindex; ++i) d[1 + i] = index ? index[i] : -1;
  return CA_OK;
}

/* cancel_self(): requests cancellation of the token in user_data, returns a 0-d float64 1.0. */
static ca_status_t k_cancel_self(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx,
                                 void *user_data) {
  ca_status_t st;
  (void)args;
  (void)nargs;
  (void)kctx;
  ca_cancel_request((ca_cancel_t *)user_data);
  st = ca_block_new(out, CA_FLOAT64, 0, NULL);
  if (st != CA_OK) return st;
  *(double *)ca_block_data(*out) = 1.0;
  return CA_OK;
}

/* The literal arguments graph_literals passes. */
static const unsigned char LIT_BYTES[3] = {1, 0, 255};
static const int64_t LIT_TUPLE[3] = {4, -5, 6};

#define LIT_FAIL(what)                 \
  do {                                 \
    ca_kernel_set_error(kctx, "literals: " what); \
    return CA_EKERNEL;                 \
  } while (0)

/* literals(None, 42, 2.5, "hello", b"\x01\x00\xff", (4, -5, 6), slice(1, None, 2), [7, x0]) -> int64 1 */
static ca_status_t k_literals(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx,
                              void *user_data) {
  ca_status_t st;
  (void)user_data;
  if (nargs != 8) LIT_FAIL("expected 8 arguments");
  if (args[0].kind != CA_ARG_NONE) LIT_FAIL("argument 0 is not None");
  if (args[1].kind != CA_ARG_INT64 || args[1].u.i64 != 42) LIT_FAIL("argument 1 is not int 42");
  if (args[2].kind != CA_ARG_FLOAT64 || args[2].u.f64 != 2.5) LIT_FAIL("argument 2 is not float 2.5");
  if (args[3].kind != CA_ARG_STRING || args[3].u.bytes.len != 5 ||
      memcmp(args[3].u.bytes.data, "hello", 5) != 0 || ((const char *)args[3].u.bytes.data)[5] != '\0')
    LIT_FAIL("argument 3 is not the NUL-terminated string 'hello'");
  if (args[4].kind != CA_ARG_BYTES || args[4].u.bytes.len != 3 || memcmp(args[4].u.bytes.data, LIT_BYTES, 3) != 0)
    LIT_FAIL("argument 4 is not bytes 01 00 ff");
  if (args[5].kind != CA_ARG_TUPLE || args[5].u.tuple.len != 3 || args[5].u.tuple.items[0] != 4 ||
      args[5].u.tuple.items[1] != -5 || args[5].u.tuple.items[2] != 6)
    LIT_FAIL("argument 5 is not the tuple (4, -5, 6)");
  if (args[6].kind != CA_ARG_SLICE || args[6].u.slice.flags != (CA_SLICE_START | CA_SLICE_STEP) ||
      args[6].u.slice.start != 1 || args[6].u.slice.step != 2)
    LIT_FAIL("argument 6 is not slice(1, None, 2)");
  if (args[7].kind != CA_ARG_LIST || args[7].u.list.len != 2 || args[7].u.list.items[0].kind != CA_ARG_INT64 ||
      args[7].u.list.items[0].u.i64 != 7 || args[7].u.list.items[1].kind != CA_ARG_BLOCK ||
      ca_block_size(args[7].u.list.items[1].u.block) != 3)
    LIT_FAIL("argument 7 is not the list [7, <block of 3>]");
  st = ca_block_new(out, CA_INT64, 0, NULL);
  if (st != CA_OK) return st;
  *(int64_t *)ca_block_data(*out) = 1;
  return CA_OK;
}

/* The ffi kernel: double f(double, int64_t). */
static double ffi_mul(double x, int64_t n) { return x * (double)n; }

static int g_free_count;
static void count_free(void *p) {
  (void)p;
  ++g_free_count;
}

static int g_release_count;
static void *g_release_arg;
static void count_release(void *p) {
  g_release_arg = p;
  ++g_release_count;
}

/* A context with the test kernels registered; NULL on failure. num_threads 0 = synchronous. */
static ca_context_t *new_ctx(int32_t num_threads) {
  ca_context_options_t opts = CA_CONTEXT_OPTIONS_INIT;
  ca_context_t *ctx = NULL;
  opts.num_threads = num_threads;
  if (ca_context_new(&ctx, &opts) != CA_OK) return NULL;
  if (ca_context_register(ctx, "fill", k_fill, NULL) != CA_OK ||
      ca_context_register(ctx, "total", k_total, NULL) != CA_OK ||
      ca_context_register(ctx, "scale", k_scale, NULL) != CA_OK ||
      ca_context_register(ctx, "fail", k_fail, NULL) != CA_OK ||
      ca_context_register(ctx, "keyinfo", k_keyinfo, NULL) != CA_OK ||
      ca_context_register(ctx, "literals", k_literals, NULL) != CA_OK) {
    ca_context_free(ctx);
    return NULL;
  }
  return ctx;
}

/* Adds ('name', i) = fill(n, value). */
static ca_status_t add_fill(ca_graph_t *g, const char *name, int i, int64_t n, double value) {
  ca_key_t k = key1(name, i);
  ca_arg_t a[2];
  a[0] = ca_arg_i64(n);
  a[1] = ca_arg_f64(value);
  return ca_graph_add_task(g, &k, "fill", a, 2);
}

/* Adds ('name', i) = kernel(('ref', j)). */
static ca_status_t add_ref(ca_graph_t *g, const char *name, int i, const char *kernel, const char *ref, int j) {
  ca_key_t k = key1(name, i);
  ca_arg_t a = ca_arg_key(ref, &IDX[j], 1);
  return ca_graph_add_task(g, &k, kernel, &a, 1);
}

static double scalar_f64(const ca_block_t *b) { return *(const double *)ca_block_data(b); }

/* ------------------------------------------------------------------------------------------------ */
/* Version, status, errors, dtypes                                                                   */
/* ------------------------------------------------------------------------------------------------ */

const char *capi_case_version(void) {
  char buf[64];
  CHECK(ca_version_number() == CA_VERSION_NUMBER);
  CHECK(CA_VERSION_NUMBER == CA_VERSION_MAJOR * 10000 + CA_VERSION_MINOR * 100 + CA_VERSION_PATCH);
  CHECK(ca_version_string() != NULL);
  CHECK(strcmp(ca_version_string(), CA_VERSION_STRING) == 0);
  snprintf(buf, sizeof buf, "%d.%d.%d", CA_VERSION_MAJOR, CA_VERSION_MINOR, CA_VERSION_PATCH);
  CHECK(strcmp(buf, CA_VERSION_STRING) == 0);
  CHECK(ca_abi_version() == CA_ABI_VERSION);
  CHECK(CA_ABI_VERSION == 1);
  return NULL;
}

const char *capi_case_status_str(void) {
  static const struct {
    ca_status_t code;
    const char *name;
  } table[] = {
      {CA_OK, "CA_OK"},
      {CA_EINVAL, "CA_EINVAL"},
      {CA_ENOMEM, "CA_ENOMEM"},
      {CA_ENOTFOUND, "CA_ENOTFOUND"},
      {CA_ECYCLE, "CA_ECYCLE"},
      {CA_EKERNEL, "CA_EKERNEL"},
      {CA_EIO, "CA_EIO"},
      {CA_EFORMAT, "CA_EFORMAT"},
      {CA_ECANCELED, "CA_ECANCELED"},
      {CA_EINTERNAL, "CA_EINTERNAL"},
      {CA_EEXISTS, "CA_EEXISTS"},
      {CA_ETYPE, "CA_ETYPE"},
      {CA_EVERSION, "CA_EVERSION"},
      {CA_EUNSUPPORTED, "CA_EUNSUPPORTED"},
  };
  size_t i;
  /* Codes are never renumbered. */
  CHECK(CA_OK == 0 && CA_EINVAL == -1 && CA_ENOMEM == -2 && CA_ENOTFOUND == -3 && CA_ECYCLE == -4);
  CHECK(CA_EKERNEL == -5 && CA_EIO == -6 && CA_EFORMAT == -7 && CA_ECANCELED == -8 && CA_EINTERNAL == -9);
  CHECK(CA_EEXISTS == -10 && CA_ETYPE == -11 && CA_EVERSION == -12 && CA_EUNSUPPORTED == -13);
  for (i = 0; i < sizeof table / sizeof table[0]; ++i) {
    const char *s = ca_status_str(table[i].code);
    if (!s || strcmp(s, table[i].name) != 0) {
      snprintf(g_msg, sizeof g_msg, "ca_status_str(%d) = \"%s\", expected \"%s\"", (int)table[i].code,
               s ? s : "(null)", table[i].name);
      return g_msg;
    }
  }
  CHECK(ca_status_str(1) && strcmp(ca_status_str(1), "CA_E?") == 0);
  CHECK(ca_status_str(-14) && strcmp(ca_status_str(-14), "CA_E?") == 0);
  CHECK(ca_status_str(INT32_MIN) && strcmp(ca_status_str(INT32_MIN), "CA_E?") == 0);
  return NULL;
}

const char *capi_case_last_error(void) {
  ca_dtype_t d = CA_FLOAT64;
  ca_clear_error();
  CHECK(ca_last_error_code() == CA_OK);
  CHECK(ca_last_error_message() && strcmp(ca_last_error_message(), "") == 0);
  CHECK_ST(ca_dtype_from_name(&d, "no-such-dtype"), CA_ETYPE);
  CHECK(d == CA_DTYPE_INVALID);
  CHECK(ca_last_error_code() == CA_ETYPE);
  CHECK_MSG_HAS("no-such-dtype");
  ca_clear_error();
  CHECK(ca_last_error_code() == CA_OK);
  CHECK(strcmp(ca_last_error_message(), "") == 0);
  return NULL;
}

const char *capi_case_dtype_names(void) {
  static const struct {
    const char *name;
    ca_dtype_t dtype;
  } table[] = {
      {"float64", CA_FLOAT64}, {"<f8", CA_FLOAT64},  {"|b1", CA_BOOL},       {"i4", CA_INT32},
      {"bool", CA_BOOL},       {"int8", CA_INT8},    {"uint16", CA_UINT16},  {"float32", CA_FLOAT32},
      {"complex128", CA_COMPLEX128}, {"double", CA_FLOAT64}, {"int64_t", CA_INT64},
  };
  static const size_t sizes[14] = {0, 1, 1, 2, 4, 8, 1, 2, 4, 8, 4, 8, 8, 16};
  size_t i;
  ca_dtype_t d;
  for (i = 0; i < sizeof table / sizeof table[0]; ++i) {
    d = CA_DTYPE_INVALID;
    if (ca_dtype_from_name(&d, table[i].name) != CA_OK || d != table[i].dtype) {
      snprintf(g_msg, sizeof g_msg, "ca_dtype_from_name(\"%s\") gave %d, expected %d (%s)", table[i].name, (int)d,
               (int)table[i].dtype, ca_last_error_message());
      return g_msg;
    }
  }
  d = CA_INT8;
  CHECK_ST(ca_dtype_from_name(&d, "float65"), CA_ETYPE);
  CHECK(d == CA_DTYPE_INVALID);
  CHECK_MSG_HAS("float65");
  CHECK_ST(ca_dtype_from_name(&d, ""), CA_ETYPE);
  CHECK_ST(ca_dtype_from_name(&d, NULL), CA_EINVAL);
  CHECK_ST(ca_dtype_from_name(NULL, "float64"), CA_EINVAL);
  for (d = CA_BOOL; d <= CA_COMPLEX128; ++d) {
    ca_dtype_t back = CA_DTYPE_INVALID;
    const char *name = ca_dtype_name(d);
    if (!name || ca_dtype_from_name(&back, name) != CA_OK || back != d || ca_dtype_size(d) != sizes[d]) {
      snprintf(g_msg, sizeof g_msg, "dtype %d: name \"%s\" round trip gave %d, size %zu (expected %zu)", (int)d,
               name ? name : "(null)", (int)back, ca_dtype_size(d), sizes[d]);
      return g_msg;
    }
  }
  CHECK(strcmp(ca_dtype_name(CA_FLOAT64), "float64") == 0);
  CHECK(strcmp(ca_dtype_name(CA_BOOL), "bool") == 0);
  CHECK(ca_dtype_name(CA_DTYPE_INVALID) == NULL);
  CHECK(ca_dtype_name(99) == NULL);
  CHECK(ca_dtype_size(CA_DTYPE_INVALID) == 0);
  CHECK(ca_dtype_size(99) == 0);
  CHECK(ca_dtype_size(CA_RAW) == 1);
  return NULL;
}

const char *capi_case_dtype_promote(void) {
  static const struct {
    ca_dtype_t a, b, r;
  } table[] = {
      {CA_INT8, CA_UINT8, CA_INT16},         {CA_INT64, CA_UINT64, CA_FLOAT64},
      {CA_INT32, CA_FLOAT32, CA_FLOAT64},    {CA_BOOL, CA_INT8, CA_INT8},
      {CA_FLOAT32, CA_COMPLEX64, CA_COMPLEX64}, {CA_BOOL, CA_BOOL, CA_BOOL},
      {CA_FLOAT64, CA_FLOAT64, CA_FLOAT64},  {CA_UINT8, CA_UINT16, CA_UINT16},
      {CA_INT16, CA_FLOAT32, CA_FLOAT32},    {CA_FLOAT64, CA_COMPLEX64, CA_COMPLEX128},
  };
  size_t i;
  ca_dtype_t r;
  for (i = 0; i < sizeof table / sizeof table[0]; ++i) {
    ca_dtype_t r1 = CA_DTYPE_INVALID, r2 = CA_DTYPE_INVALID;
    if (ca_dtype_promote(&r1, table[i].a, table[i].b) != CA_OK || r1 != table[i].r ||
        ca_dtype_promote(&r2, table[i].b, table[i].a) != CA_OK || r2 != table[i].r) {
      snprintf(g_msg, sizeof g_msg, "promote(%s, %s) = %s / reversed %s, expected %s", ca_dtype_name(table[i].a),
               ca_dtype_name(table[i].b), ca_dtype_name(r1) ? ca_dtype_name(r1) : "?",
               ca_dtype_name(r2) ? ca_dtype_name(r2) : "?", ca_dtype_name(table[i].r));
      return g_msg;
    }
  }
  CHECK_ST(ca_dtype_promote(&r, CA_RAW, CA_FLOAT64), CA_ETYPE);
  CHECK_ST(ca_dtype_promote(&r, CA_DTYPE_INVALID, CA_FLOAT64), CA_ETYPE);
  CHECK_ST(ca_dtype_promote(&r, CA_FLOAT64, 99), CA_ETYPE);
  CHECK_ST(ca_dtype_promote(NULL, CA_FLOAT64, CA_FLOAT64), CA_EINVAL);
  return NULL;
}

/* ------------------------------------------------------------------------------------------------ */
/* Blocks                                                                                            */
/* ------------------------------------------------------------------------------------------------ */

const char *capi_case_block_new(void) {
  int64_t shape[2] = {2, 3};
  ca_block_t *b = NULL, *z = NULL;
  double *d;
  const double *zd;
  int i;
  CHECK_OK(ca_block_new(&b, CA_FLOAT64, 2, shape));
  CHECK(b != NULL);
  CHECK(ca_block_dtype(b) == CA_FLOAT64);
  CHECK(ca_block_ndim(b) == 2);
  CHECK(ca_block_shape(b) != NULL && ca_block_shape(b)[0] == 2 && ca_block_shape(b)[1] == 3);
  CHECK(ca_block_shape(b) != shape); /* copied */
  CHECK(ca_block_size(b) == 6);
  CHECK(ca_block_nbytes(b) == 48);
  d = (double *)ca_block_data(b);
  CHECK(d != NULL);
  CHECK(((uintptr_t)d % 64) == 0);
  for (i = 0; i < 6; ++i) d[i] = i * 0.5;
  for (i = 0; i < 6; ++i) CHECK(((const double *)ca_block_data(b))[i] == i * 0.5);
  ca_block_free(b);

  CHECK_OK(ca_block_new_zeroed(&z, CA_INT16, 2, shape));
  CHECK(ca_block_dtype(z) == CA_INT16 && ca_block_nbytes(z) == 12);
  {
    const unsigned char *p = (const unsigned char *)ca_block_data(z);
    for (i = 0; i < 12; ++i) CHECK(p[i] == 0);
  }
  ca_block_free(z);
  CHECK_OK(ca_block_new_zeroed(&z, CA_FLOAT64, 2, shape));
  zd = (const double *)ca_block_data(z);
  for (i = 0; i < 6; ++i) CHECK(zd[i] == 0.0);
  ca_block_free(z);
  return NULL;
}

const char *capi_case_block_zero_d_and_empty(void) {
  ca_block_t *b = NULL;
  int64_t empty[2] = {0, 5};
  CHECK_OK(ca_block_new(&b, CA_FLOAT64, 0, NULL));
  CHECK(ca_block_ndim(b) == 0);
  CHECK(ca_block_shape(b) == NULL);
  CHECK(ca_block_size(b) == 1);
  CHECK(ca_block_nbytes(b) == 8);
  CHECK(ca_block_data(b) != NULL);
  *(double *)ca_block_data(b) = 3.25;
  CHECK(scalar_f64(b) == 3.25);
  ca_block_free(b);
  b = NULL;
  CHECK_OK(ca_block_new_zeroed(&b, CA_COMPLEX128, 2, empty));
  CHECK(ca_block_ndim(b) == 2);
  CHECK(ca_block_shape(b)[0] == 0 && ca_block_shape(b)[1] == 5);
  CHECK(ca_block_size(b) == 0);
  CHECK(ca_block_nbytes(b) == 0);
  ca_block_free(b);
  return NULL;
}

const char *capi_case_block_bad_args(void) {
  ca_block_t *b = (ca_block_t *)SENTINEL;
  int64_t neg[2] = {3, -1};
  int64_t big[CA_MAX_NDIM + 1];
  int i;
  for (i = 0; i <= CA_MAX_NDIM; ++i) big[i] = 1;
  CHECK_ST(ca_block_new(&b, CA_FLOAT64, 2, neg), CA_EINVAL);
  CHECK(b == NULL);
  CHECK_MSG_HAS("-1");
  b = (ca_block_t *)SENTINEL;
  CHECK_ST(ca_block_new_zeroed(&b, CA_FLOAT64, 2, neg), CA_EINVAL);
  CHECK(b == NULL);
  b = (ca_block_t *)SENTINEL;
  CHECK_ST(ca_block_new(&b, CA_FLOAT64, CA_MAX_NDIM + 1, big), CA_EINVAL);
  CHECK(b == NULL);
  b = (ca_block_t *)SENTINEL;
  CHECK_ST(ca_block_new(&b, CA_FLOAT64, -1, NULL), CA_EINVAL);
  CHECK(b == NULL);
  b = (ca_block_t *)SENTINEL;
  CHECK_ST(ca_block_new(&b, CA_FLOAT64, 2, NULL), CA_EINVAL);
  CHECK(b == NULL);
  b = (ca_block_t *)SENTINEL;
  CHECK_ST(ca_block_new(&b, 99, 1, big), CA_ETYPE);
  CHECK(b == NULL);
  b = (ca_block_t *)SENTINEL;
  CHECK_ST(ca_block_new(&b, CA_DTYPE_INVALID, 1, big), CA_ETYPE);
  CHECK(b == NULL);
  CHECK_ST(ca_block_new(NULL, CA_FLOAT64, 1, big), CA_EINVAL);
  /* CA_MAX_NDIM itself is fine */
  CHECK_OK(ca_block_new(&b, CA_UINT8, CA_MAX_NDIM, big));
  CHECK(ca_block_size(b) == 1 && ca_block_ndim(b) == CA_MAX_NDIM);
  ca_block_free(b);
  return NULL;
}

const char *capi_case_block_retain_free(void) {
  ca_block_t *b = NULL, *r;
  int64_t n = 4;
  CHECK_OK(ca_block_new(&b, CA_INT32, 1, &n));
  r = ca_block_retain(b);
  CHECK(r == b);
  ca_block_free(b);
  /* still alive through r */
  CHECK(ca_block_size(r) == 4 && ca_block_dtype(r) == CA_INT32);
  ca_block_free(r);
  CHECK(ca_block_retain(NULL) == NULL);
  ca_block_free(NULL);
  return NULL;
}

const char *capi_case_block_wrap(void) {
  double buf[6] = {1, 2, 3, 4, 5, 6};
  int64_t shape[2] = {3, 2};
  ca_block_t *b = NULL, *r;
  int tag = 0;
  g_release_count = 0;
  g_release_arg = NULL;
  CHECK_OK(ca_block_wrap(&b, CA_FLOAT64, 2, shape, buf, count_release, &tag));
  CHECK(ca_block_data(b) == (void *)buf);
  CHECK(ca_block_size(b) == 6 && ca_block_nbytes(b) == 48);
  CHECK(((const double *)ca_block_data(b))[5] == 6.0);
  r = ca_block_retain(b);
  ca_block_free(b);
  CHECK(g_release_count == 0);
  ca_block_free(r);
  CHECK(g_release_count == 1);
  CHECK(g_release_arg == &tag);
  /* release may be NULL */
  CHECK_OK(ca_block_wrap(&b, CA_FLOAT64, 2, shape, buf, NULL, NULL));
  ca_block_free(b);
  CHECK(g_release_count == 1);
  return NULL;
}

const char *capi_case_block_wrap_release_on_failure(void) {
  double buf[2] = {0, 0};
  int64_t neg = -2, one = 2;
  ca_block_t *b = (ca_block_t *)SENTINEL;
  g_release_count = 0;
  CHECK_ST(ca_block_wrap(&b, CA_FLOAT64, 1, &neg, buf, count_release, NULL), CA_EINVAL);
  CHECK(b == NULL);
  CHECK(g_release_count == 1);
  b = (ca_block_t *)SENTINEL;
  CHECK_ST(ca_block_wrap(&b, 99, 1, &one, buf, count_release, NULL), CA_ETYPE);
  CHECK(b == NULL);
  CHECK(g_release_count == 2);
  CHECK_ST(ca_block_wrap(NULL, CA_FLOAT64, 1, &one, buf, count_release, NULL), CA_EINVAL);
  CHECK(g_release_count == 3);
  return NULL;
}

/* ------------------------------------------------------------------------------------------------ */
/* Contexts and kernels                                                                              */
/* ------------------------------------------------------------------------------------------------ */

const char *capi_case_context_options(void) {
  ca_context_options_t opts = CA_CONTEXT_OPTIONS_INIT;
  ca_context_t *ctx = NULL;
  CHECK(opts.struct_size == sizeof(ca_context_options_t));
  CHECK(opts.num_threads == -1 && opts.builtin_kernels == 1);
  opts.num_threads = 0;
  CHECK_OK(ca_context_new(&ctx, &opts));
  CHECK(ca_context_num_threads(ctx) == 0);
  CHECK(ca_context_num_kernels(ctx) > 0); /* builtins */
  ca_context_free(ctx);
  opts.num_threads = 2;
  opts.builtin_kernels = 0;
  CHECK_OK(ca_context_new(&ctx, &opts));
  CHECK(ca_context_num_threads(ctx) == 2);
  CHECK(ca_context_num_kernels(ctx) == 0);
  ca_context_free(ctx);
  CHECK_OK(ca_context_new(&ctx, NULL));
  CHECK(ca_context_num_threads(ctx) >= 1);
  ca_context_free(ctx);
  ca_context_free(NULL);
  CHECK(ca_context_num_threads(NULL) == -1);
  opts.num_threads = -7;
  ctx = (ca_context_t *)SENTINEL;
  CHECK_ST(ca_context_new(&ctx, &opts), CA_EINVAL);
  CHECK(ctx == NULL);
  return NULL;
}

const char *capi_case_context_config(void) {
  ca_context_t *ctx = new_ctx(0);
  const char *v = NULL;
  ca_chunkset_t *cs = NULL;
  int64_t shape = (int64_t)1 << 24; /* 128 MiB of float64 */
  int64_t n = 0;
  const int64_t *sizes;
  CHECK(ctx != NULL);
  CHECK_OK(ca_context_set_config(ctx, "array.chunk-size", "64MiB"));
  CHECK_OK(ca_context_get_config(&v, ctx, "array.chunk-size"));
  CHECK(v != NULL);
  if (strcmp(v, "64MiB") != 0 && strcmp(v, "67108864") != 0) {
    snprintf(g_msg, sizeof g_msg, "array.chunk-size reads back as \"%s\", expected 64MiB", v);
    return g_msg;
  }
  /* "auto" chunks follow the context's chunk size: 128 MiB in 64 MiB blocks. */
  CHECK_OK(ca_normalize_chunks(&cs, ctx, NULL, 1, &shape, CA_FLOAT64, 0));
  sizes = ca_chunkset_sizes(cs, 0, &n);
  CHECK(n == 2 && sizes[0] == ((int64_t)1 << 23) && sizes[1] == ((int64_t)1 << 23));
  ca_chunkset_free(cs);

  CHECK_ST(ca_context_set_config(ctx, "no.such-key", "1"), CA_ENOTFOUND);
  CHECK_MSG_HAS("no.such-key");
  v = (const char *)SENTINEL;
  CHECK_ST(ca_context_get_config(&v, ctx, "no.such-key"), CA_ENOTFOUND);
  CHECK(v == NULL);
  CHECK_ST(ca_context_set_config(ctx, "array.chunk-size", "lots"), CA_EINVAL);
  CHECK_ST(ca_context_set_config(ctx, "array.chunk-size", NULL), CA_EINVAL);
  CHECK_ST(ca_context_set_config(ctx, NULL, "1"), CA_EINVAL);
  CHECK_OK(ca_context_set_config(ctx, "memory-limit", "2GiB"));
  CHECK_OK(ca_context_get_config(&v, ctx, "memory-limit"));
  CHECK(v != NULL);
  ca_context_free(ctx);
  return NULL;
}

const char *capi_case_kernel_register(void) {
  ca_context_options_t opts = CA_CONTEXT_OPTIONS_INIT;
  ca_kernel_options_t kopts = CA_KERNEL_OPTIONS_INIT;
  ca_context_t *ctx = NULL;
  ca_kernel_t *k = NULL, *got = NULL;
  opts.num_threads = 0;
  opts.builtin_kernels = 0;
  CHECK(kopts.struct_size == sizeof(ca_kernel_options_t) && kopts.version == 1);
  CHECK_OK(ca_context_new(&ctx, &opts));
  CHECK_OK(ca_context_register(ctx, "mykernel", k_fill, NULL));
  CHECK(ca_context_num_kernels(ctx) == 1);
  CHECK_ST(ca_context_register(ctx, "mykernel", k_total, NULL), CA_EEXISTS);
  CHECK_MSG_HAS("mykernel");
  CHECK(ca_context_num_kernels(ctx) == 1);
  CHECK_OK(ca_context_get_kernel(&got, ctx, "mykernel"));
  CHECK(strcmp(ca_kernel_name(got), "mykernel") == 0);
  CHECK(ca_kernel_version(got) == 1);
  ca_kernel_free(got);
  got = NULL;

  kopts.version = 7;
  CHECK_OK(ca_kernel_new(&k, "other", k_total, &kopts));
  CHECK(ca_kernel_version(k) == 7);
  CHECK_OK(ca_context_add_kernel(ctx, k, false));
  CHECK_ST(ca_context_add_kernel(ctx, k, false), CA_EEXISTS);
  CHECK_OK(ca_context_add_kernel(ctx, k, true));
  ca_kernel_free(k); /* the registry keeps its own reference */
  CHECK(ca_context_num_kernels(ctx) == 2);
  CHECK_OK(ca_context_get_kernel(&got, ctx, "other"));
  CHECK(ca_kernel_version(got) == 7);
  ca_kernel_free(got);

  CHECK_OK(ca_context_remove_kernel(ctx, "mykernel"));
  CHECK(ca_context_num_kernels(ctx) == 1);
  got = (ca_kernel_t *)SENTINEL;
  CHECK_ST(ca_context_get_kernel(&got, ctx, "mykernel"), CA_ENOTFOUND);
  CHECK(got == NULL);
  CHECK_MSG_HAS("mykernel");
  CHECK_ST(ca_context_remove_kernel(ctx, "mykernel"), CA_ENOTFOUND);
  /* invalid names */
  k = (ca_kernel_t *)SENTINEL;
  CHECK_ST(ca_kernel_new(&k, "", k_fill, NULL), CA_EINVAL);
  CHECK(k == NULL);
  k = (ca_kernel_t *)SENTINEL;
  CHECK_ST(ca_kernel_new(&k, "nofn", NULL, NULL), CA_EINVAL);
  CHECK(k == NULL);
  CHECK_ST(ca_context_register(ctx, NULL, k_fill, NULL), CA_EINVAL);
  ca_context_free(ctx);
  return NULL;
}

const char *capi_case_kernel_free_user_data_once(void) {
  ca_kernel_options_t kopts = CA_KERNEL_OPTIONS_INIT;
  ca_kernel_t *k = (ca_kernel_t *)SENTINEL;
  ca_context_t *ctx = new_ctx(0);
  CHECK(ctx != NULL);
  kopts.user_data = &g_free_count;
  kopts.free_user_data = count_free;

  /* ca_kernel_new fails with a NULL name: free_user_data runs once, *out is NULL. */
  g_free_count = 0;
  CHECK_ST(ca_kernel_new(&k, NULL, k_fill, &kopts), CA_EINVAL);
  /* *out == NULL here is checked by known_bug_kernel_new_out_on_null_name */
  CHECK(g_free_count == 1);
  /* NULL out */
  g_free_count = 0;
  CHECK_ST(ca_kernel_new(NULL, "x", k_fill, &kopts), CA_EINVAL);
  CHECK(g_free_count == 1);
  /* ffi with a bad signature */
  g_free_count = 0;
  k = (ca_kernel_t *)SENTINEL;
  CHECK(ca_kernel_new_ffi(&k, "bad", (void (*)(void))ffi_mul, "f64(nonsense)", &kopts) != CA_OK);
  CHECK(k == NULL);
  CHECK(g_free_count == 1);

  /* success: runs when the last reference goes */
  g_free_count = 0;
  CHECK_OK(ca_kernel_new(&k, "owned", k_fill, &kopts));
  CHECK(g_free_count == 0);
  ca_kernel_free(k);
  CHECK(g_free_count == 1);

  /* registered: the registry keeps it; the duplicate's user data is freed at once */
  g_free_count = 0;
  CHECK_OK(ca_context_register(ctx, "ud", k_fill, &kopts));
  CHECK(g_free_count == 0);
  CHECK_ST(ca_context_register(ctx, "ud", k_fill, &kopts), CA_EEXISTS);
  CHECK(g_free_count == 1);
  CHECK_ST(ca_context_register(ctx, NULL, k_fill, &kopts), CA_EINVAL);
  CHECK(g_free_count == 2);
  CHECK(ca_context_register_ffi(ctx, "ud_ffi", (void (*)(void))ffi_mul, "f64(f64,", &kopts) != CA_OK);
  CHECK(g_free_count == 3);
  CHECK_ST(ca_context_register(NULL, "ud2", k_fill, &kopts), CA_EINVAL);
  CHECK(g_free_count == 4);
  CHECK_OK(ca_context_remove_kernel(ctx, "ud"));
  CHECK(g_free_count == 5);
  CHECK_OK(ca_context_register(ctx, "ud", k_fill, &kopts));
  ca_context_free(ctx);
  CHECK(g_free_count == 6);
  return NULL;
}

const char *capi_case_kernel_call(void) {
  ca_kernel_t *k = NULL, *f = NULL;
  ca_block_t *b = NULL, *r = (ca_block_t *)SENTINEL;
  ca_arg_t args[3], list[2];
  int64_t n = 3;
  double *d;
  CHECK_OK(ca_kernel_new(&k, "total", k_total, NULL));
  CHECK_OK(ca_block_new(&b, CA_FLOAT64, 1, &n));
  d = (double *)ca_block_data(b);
  d[0] = 1;
  d[1] = 2;
  d[2] = 3;
  args[0].kind = CA_ARG_BLOCK;
  args[0].reserved = 0;
  args[0].u.block = b;
  args[1] = ca_arg_i64(10);
  list[0] = ca_arg_f64(0.5);
  list[1] = args[0];
  args[2] = ca_arg_list(list, 2);
  CHECK_OK(ca_kernel_call(&r, k, args, 3));
  CHECK(ca_block_ndim(r) == 0);
  CHECK_NEAR(scalar_f64(r), 6 + 10 + 0.5 + 6);
  ca_block_free(r);
  /* KEY arguments are not allowed outside a graph */
  args[1] = ca_arg_key("x", &IDX[0], 1);
  r = (ca_block_t *)SENTINEL;
  CHECK(ca_kernel_call(&r, k, args, 2) != CA_OK);
  CHECK(r == NULL);

  CHECK_OK(ca_kernel_new(&f, "fail", k_fail, NULL));
  r = (ca_block_t *)SENTINEL;
  CHECK_ST(ca_kernel_call(&r, f, args, 0), CA_EKERNEL);
  CHECK(r == NULL);
  CHECK_MSG_HAS("deliberate failure from k_fail");
  /* kctx-less helpers */
  ca_kernel_set_error(NULL, "ignored");
  CHECK(strcmp(ca_kernel_key_name(NULL), "") == 0);
  CHECK(!ca_kernel_cancelled(NULL));
  ca_kernel_free(f);
  ca_kernel_free(k);
  ca_block_free(b);
  ca_kernel_free(NULL);
  return NULL;
}

/* ------------------------------------------------------------------------------------------------ */
/* ffi kernels                                                                                       */
/* ------------------------------------------------------------------------------------------------ */

const char *capi_case_ffi_kernel(void) {
  ca_context_t *ctx = new_ctx(0);
  ca_graph_t *g = NULL;
  ca_key_t keys[2];
  ca_block_t *res[2] = {NULL, NULL};
  ca_arg_t a[2];
  ca_kernel_t *k = NULL;
  int i;
  CHECK(ctx != NULL);
  CHECK_OK(ca_context_register_ffi(ctx, "mul", (void (*)(void))ffi_mul, "f64(f64,i64)", NULL));
  CHECK_OK(ca_graph_new(&g));
  CHECK_OK(add_fill(g, "x", 0, 4, 1.5));
  keys[0] = key1("y", 0);
  a[0] = ca_arg_key("x", &IDX[0], 1);
  a[1] = ca_arg_i64(3);
  CHECK_OK(ca_graph_add_task(g, &keys[0], "mul", a, 2));
  keys[1] = key1("s", 0);
  a[0] = ca_arg_f64(2.0);
  a[1] = ca_arg_i64(5);
  CHECK_OK(ca_graph_add_task(g, &keys[1], "mul", a, 2));
  CHECK_OK(ca_compute(res, ctx, g, keys, 2, NULL));
  CHECK(ca_block_dtype(res[0]) == CA_FLOAT64 && ca_block_ndim(res[0]) == 1 && ca_block_size(res[0]) == 4);
  for (i = 0; i < 4; ++i) CHECK_NEAR(((const double *)ca_block_data(res[0]))[i], 4.5);
  CHECK(ca_block_dtype(res[1]) == CA_FLOAT64 && ca_block_ndim(res[1]) == 0);
  CHECK_NEAR(scalar_f64(res[1]), 10.0);
  ca_block_free(res[0]);
  ca_block_free(res[1]);

  /* directly */
  CHECK_OK(ca_kernel_new_ffi(&k, "mul2", (void (*)(void))ffi_mul, "f64(f64,i64)", NULL));
  a[0] = ca_arg_f64(-1.25);
  a[1] = ca_arg_i64(4);
  CHECK_OK(ca_kernel_call(&res[0], k, a, 2));
  CHECK_NEAR(scalar_f64(res[0]), -5.0);
  ca_block_free(res[0]);
  ca_kernel_free(k);
  ca_graph_free(g);
  ca_context_free(ctx);
  return NULL;
}

const char *capi_case_ffi_wrong_arguments(void) {
  ca_context_t *ctx = new_ctx(0);
  ca_graph_t *g = NULL;
  ca_key_t key;
  ca_block_t *res = (ca_block_t *)SENTINEL;
  ca_arg_t a[2];
  ca_kernel_t *k = (ca_kernel_t *)SENTINEL;
  ca_status_t st;
  CHECK(ctx != NULL);
  CHECK_OK(ca_context_register_ffi(ctx, "mul", (void (*)(void))ffi_mul, "f64(f64,i64)", NULL));
  CHECK_OK(ca_graph_new(&g));
  /* a string where an f64 belongs */
  key = key1("bad", 0);
  a[0] = ca_arg_str("not a number");
  a[1] = ca_arg_i64(3);
  CHECK_OK(ca_graph_add_task(g, &key, "mul", a, 2));
  st = ca_compute(&res, ctx, g, &key, 1, NULL);
  if (st != CA_ETYPE && st != CA_EKERNEL) {
    snprintf(g_msg, sizeof g_msg, "ffi with a string argument: %s, expected CA_ETYPE or CA_EKERNEL (%s)",
             ca_status_str(st), ca_last_error_message());
    return g_msg;
  }
  CHECK(res == NULL);
  CHECK_MSG_HAS("('bad', 0)");
  /* too few arguments */
  key = key1("few", 0);
  CHECK_OK(ca_graph_add_task(g, &key, "mul", a + 1, 1));
  res = (ca_block_t *)SENTINEL;
  CHECK(ca_compute(&res, ctx, g, &key, 1, NULL) != CA_OK);
  CHECK(res == NULL);
  /* directly */
  CHECK_OK(ca_context_get_kernel(&k, ctx, "mul"));
  res = (ca_block_t *)SENTINEL;
  st = ca_kernel_call(&res, k, a, 2);
  CHECK(st == CA_ETYPE || st == CA_EKERNEL);
  CHECK(res == NULL);
  ca_kernel_free(k);
  /* bad signatures */
  k = (ca_kernel_t *)SENTINEL;
  CHECK(ca_kernel_new_ffi(&k, "b", (void (*)(void))ffi_mul, "f64(q17)", NULL) != CA_OK);
  CHECK(k == NULL);
  k = (ca_kernel_t *)SENTINEL;
  CHECK(ca_kernel_new_ffi(&k, "b", (void (*)(void))ffi_mul, "", NULL) != CA_OK);
  CHECK(k == NULL);
  CHECK_ST(ca_kernel_new_ffi(&k, "b", NULL, "f64(f64)", NULL), CA_EINVAL);
  ca_graph_free(g);
  ca_context_free(ctx);
  return NULL;
}

/* ------------------------------------------------------------------------------------------------ */
/* Graphs                                                                                            */
/* ------------------------------------------------------------------------------------------------ */

const char *capi_case_graph_literals(void) {
  ca_context_t *ctx = new_ctx(0);
  ca_graph_t *g = NULL;
  ca_arg_t a[8], list[2];
  ca_key_t key = key1("lit", 0);
  ca_block_t *res = NULL;
  char str[8];
  CHECK(ctx != NULL);
  CHECK_OK(ca_graph_new(&g));
  CHECK_OK(add_fill(g, "x", 0, 3, 1.0));
  strcpy(str, "hello");
  a[0] = ca_arg_none();
  a[1] = ca_arg_i64(42);
  a[2] = ca_arg_f64(2.5);
  a[3] = ca_arg_bytes(str, 5); /* made a string below: no NUL guaranteed by the caller */
  a[3].kind = CA_ARG_STRING;
  a[4] = ca_arg_bytes(LIT_BYTES, 3);
  a[5] = ca_arg_tuple(LIT_TUPLE, 3);
  a[6] = ca_arg_none();
  a[6].kind = CA_ARG_SLICE;
  a[6].u.slice.start = 1;
  a[6].u.slice.stop = 0;
  a[6].u.slice.step = 2;
  a[6].u.slice.flags = CA_SLICE_START | CA_SLICE_STEP;
  list[0] = ca_arg_i64(7);
  list[1] = ca_arg_key("x", &IDX[0], 1);
  a[7] = ca_arg_list(list, 2);
  CHECK_OK(ca_graph_add_task(g, &key, "literals", a, 8));
  /* the graph copied everything it keeps */
  memset(str, 'z', sizeof str);
  CHECK_OK(ca_compute(&res, ctx, g, &key, 1, NULL));
  CHECK(ca_block_dtype(res) == CA_INT64 && *(const int64_t *)ca_block_data(res) == 1);
  ca_block_free(res);
  ca_graph_free(g);
  ca_context_free(ctx);
  return NULL;
}

const char *capi_case_graph_add_task_errors(void) {
  ca_graph_t *g = NULL;
  ca_key_t k = key1("x", 0), bad;
  int64_t two[2] = {0, 1};
  ca_arg_t a = ca_arg_i64(1);
  CHECK_OK(ca_graph_new(&g));
  CHECK_OK(add_fill(g, "x", 0, 1, 1.0));
  CHECK_ST(add_fill(g, "x", 0, 1, 2.0), CA_EEXISTS);
  CHECK_MSG_HAS("('x', 0)");
  CHECK(ca_graph_num_tasks(g) == 1);
  /* index count differs from the layer's */
  bad.name = "x";
  bad.index = two;
  bad.nindex = 2;
  CHECK_ST(ca_graph_add_task(g, &bad, "fill", &a, 1), CA_EINVAL);
  /* empty / NULL name */
  bad.name = "";
  bad.nindex = 1;
  CHECK_ST(ca_graph_add_task(g, &bad, "fill", &a, 1), CA_EINVAL);
  bad.name = NULL;
  CHECK_ST(ca_graph_add_task(g, &bad, "fill", &a, 1), CA_EINVAL);
  /* negative nindex, NULL index with nindex > 0 */
  bad.name = "y";
  bad.index = two;
  bad.nindex = -1;
  CHECK_ST(ca_graph_add_task(g, &bad, "fill", &a, 1), CA_EINVAL);
  bad.index = NULL;
  bad.nindex = 1;
  CHECK_ST(ca_graph_add_task(g, &bad, "fill", &a, 1), CA_EINVAL);
  /* NULL kernel name, NULL key, NULL args with nargs > 0 */
  k = key1("y", 0);
  CHECK_ST(ca_graph_add_task(g, &k, NULL, &a, 1), CA_EINVAL);
  CHECK_ST(ca_graph_add_task(g, NULL, "fill", &a, 1), CA_EINVAL);
  CHECK_ST(ca_graph_add_task(g, &k, "fill", NULL, 1), CA_EINVAL);
  /* bad argument kinds */
  a.kind = 99;
  CHECK_ST(ca_graph_add_task(g, &k, "fill", &a, 1), CA_EINVAL);
  a.kind = -1;
  CHECK_ST(ca_graph_add_task(g, &k, "fill", &a, 1), CA_EINVAL);
  /* a KEY argument with an empty name */
  a = ca_arg_key("", &IDX[0], 1);
  CHECK_ST(ca_graph_add_task(g, &k, "fill", &a, 1), CA_EINVAL);
  /* failed calls added nothing */
  CHECK(ca_graph_num_tasks(g) == 1);
  CHECK(!ca_graph_has_key(g, &k));
  /* a key without index */
  k.name = "scalar";
  k.index = NULL;
  k.nindex = 0;
  a = ca_arg_i64(1);
  CHECK_OK(ca_graph_add_task(g, &k, "fill", &a, 1));
  CHECK_ST(ca_graph_add_task(g, &k, "fill", &a, 1), CA_EEXISTS);
  CHECK(ca_graph_num_tasks(g) == 2);
  ca_graph_free(g);
  return NULL;
}

const char *capi_case_compute_simple(void) {
  ca_context_t *ctx = new_ctx(0);
  ca_graph_t *g = NULL;
  ca_key_t keys[2];
  ca_block_t *res[2] = {NULL, NULL};
  ca_arg_t a[2];
  CHECK(ctx != NULL);
  CHECK_OK(ca_graph_new(&g));
  CHECK_OK(add_fill(g, "x", 0, 3, 2.0));
  keys[0] = key1("y", 0);
  a[0] = ca_arg_key("x", &IDX[0], 1);
  a[1] = ca_arg_i64(1);
  CHECK_OK(ca_graph_add_task(g, &keys[0], "total", a, 2));
  keys[1] = key1("x", 0);
  CHECK_OK(ca_compute(res, ctx, g, keys, 2, NULL));
  CHECK_NEAR(scalar_f64(res[0]), 7.0);
  CHECK(ca_block_size(res[1]) == 3 && ((const double *)ca_block_data(res[1]))[2] == 2.0);
  ca_block_free(res[0]);
  ca_block_free(res[1]);
  /* the same key twice, and a key with its index from the kernel */
  keys[0] = key1("ki", 3);
  CHECK_OK(ca_graph_add_task(g, &keys[0], "keyinfo", NULL, 0));
  keys[1] = keys[0];
  CHECK_OK(ca_compute(res, ctx, g, keys, 2, NULL));
  CHECK(res[0] != NULL && res[1] != NULL);
  CHECK(ca_block_size(res[0]) == 2);
  CHECK(((const int64_t *)ca_block_data(res[0]))[0] == 1);
  CHECK(((const int64_t *)ca_block_data(res[0]))[1] == 3);
  ca_block_free(res[0]);
  ca_block_free(res[1]);
  /* nothing asked */
  CHECK_OK(ca_compute(NULL, ctx, g, NULL, 0, NULL));
  ca_graph_free(g);
  ca_context_free(ctx);
  return NULL;
}

const char *capi_case_compute_threaded(void) {
  enum { N = 16 };
  ca_context_t *ctx = new_ctx(2);
  ca_graph_t *g = NULL;
  ca_arg_t refs[N], list;
  ca_key_t key = key1("sum", 0);
  ca_block_t *res = NULL;
  int i, round;
  double expect = 0;
  CHECK(ctx != NULL);
  CHECK_OK(ca_graph_new(&g));
  for (i = 0; i < N; ++i) {
    CHECK_OK(add_fill(g, "x", i, 100, (double)i));
    refs[i] = ca_arg_key("x", &IDX[i], 1);
    expect += 100.0 * i;
  }
  list = ca_arg_list(refs, N);
  CHECK_OK(ca_graph_add_task(g, &key, "total", &list, 1));
  for (round = 0; round < 5; ++round) {
    CHECK_OK(ca_compute(&res, ctx, g, &key, 1, NULL));
    CHECK_NEAR(scalar_f64(res), expect);
    ca_block_free(res);
  }
  ca_graph_free(g);
  ca_context_free(ctx);
  return NULL;
}

const char *capi_case_compute_missing_key(void) {
  ca_context_t *ctx = new_ctx(0);
  ca_graph_t *g = NULL;
  ca_key_t keys[2];
  ca_block_t *res[2];
  CHECK(ctx != NULL);
  CHECK_OK(ca_graph_new(&g));
  CHECK_OK(add_fill(g, "x", 0, 2, 1.0));
  CHECK_OK(add_ref(g, "y", 0, "total", "x", 5)); /* ('x', 5) does not exist */
  keys[0] = key1("x", 0);
  keys[1] = key1("y", 0);
  res[0] = res[1] = (ca_block_t *)SENTINEL;
  CHECK_ST(ca_compute(res, ctx, g, keys, 2, NULL), CA_ENOTFOUND);
  CHECK_MSG_HAS("('x', 5)");
  CHECK(res[0] == NULL && res[1] == NULL);
  /* a requested key that is not in the graph */
  keys[1] = key1("nope", 2);
  res[0] = res[1] = (ca_block_t *)SENTINEL;
  CHECK_ST(ca_compute(res, ctx, g, keys, 2, NULL), CA_ENOTFOUND);
  CHECK_MSG_HAS("('nope', 2)");
  CHECK(res[0] == NULL && res[1] == NULL);
  /* validate names it too, with the task referencing it */
  CHECK_ST(ca_graph_validate(g, NULL, NULL, 0), CA_ENOTFOUND);
  CHECK_MSG_HAS("('x', 5)");
  CHECK_MSG_HAS("('y', 0)");
  ca_graph_free(g);
  ca_context_free(ctx);
  return NULL;
}

const char *capi_case_compute_cycle(void) {
  ca_context_t *ctx = new_ctx(0);
  ca_graph_t *g = NULL;
  ca_key_t key = key1("a", 0);
  ca_block_t *res = (ca_block_t *)SENTINEL;
  CHECK(ctx != NULL);
  CHECK_OK(ca_graph_new(&g));
  CHECK_OK(add_ref(g, "a", 0, "total", "b", 0));
  CHECK_OK(add_ref(g, "b", 0, "total", "c", 0));
  CHECK_OK(add_ref(g, "c", 0, "total", "a", 0));
  CHECK_ST(ca_compute(&res, ctx, g, &key, 1, NULL), CA_ECYCLE);
  CHECK(res == NULL);
  CHECK_MSG_HAS("('a', 0)");
  CHECK_MSG_HAS("('b', 0)");
  CHECK_MSG_HAS("('c', 0)");
  CHECK_ST(ca_graph_validate(g, ctx, NULL, 0), CA_ECYCLE);
  CHECK_MSG_HAS("('a', 0)");
  CHECK_MSG_HAS("('b', 0)");
  CHECK_MSG_HAS("('c', 0)");
  /* a task depending on itself, requested through an innocent key */
  CHECK_OK(add_ref(g, "self", 0, "total", "self", 0));
  CHECK_OK(add_ref(g, "top", 0, "total", "self", 0));
  key = key1("top", 0);
  res = (ca_block_t *)SENTINEL;
  CHECK_ST(ca_compute(&res, ctx, g, &key, 1, NULL), CA_ECYCLE);
  CHECK(res == NULL);
  CHECK_MSG_HAS("('self', 0)");
  ca_graph_free(g);
  ca_context_free(ctx);
  return NULL;
}

const char *capi_case_compute_unknown_kernel(void) {
  ca_context_t *ctx = new_ctx(0);
  ca_graph_t *g = NULL;
  ca_key_t key = key1("u", 0);
  ca_block_t *res = (ca_block_t *)SENTINEL;
  CHECK(ctx != NULL);
  CHECK_OK(ca_graph_new(&g));
  CHECK_OK(ca_graph_add_task(g, &key, "no_such_kernel", NULL, 0));
  CHECK_ST(ca_compute(&res, ctx, g, &key, 1, NULL), CA_ENOTFOUND);
  CHECK_MSG_HAS("no_such_kernel");
  CHECK(res == NULL);
  CHECK_OK(ca_graph_validate(g, NULL, NULL, 0)); /* no context: kernels not checked */
  CHECK_ST(ca_graph_validate(g, ctx, NULL, 0), CA_ENOTFOUND);
  CHECK_MSG_HAS("no_such_kernel");
  ca_graph_free(g);
  ca_context_free(ctx);
  return NULL;
}

static const char *kernel_error_with(int32_t threads) {
  ca_context_t *ctx = new_ctx(threads);
  ca_graph_t *g = NULL;
  ca_key_t keys[4];
  ca_block_t *res[4];
  int i;
  CHECK(ctx != NULL);
  CHECK_OK(ca_graph_new(&g));
  CHECK_OK(add_fill(g, "x", 0, 10, 1.0));
  CHECK_OK(add_ref(g, "f", 0, "fail", "x", 0));
  CHECK_OK(add_fill(g, "x", 1, 10, 1.0));
  CHECK_OK(add_ref(g, "after", 0, "total", "f", 0));
  keys[0] = key1("x", 0);
  keys[1] = key1("f", 0);
  keys[2] = key1("x", 1);
  keys[3] = key1("after", 0);
  for (i = 0; i < 4; ++i) res[i] = (ca_block_t *)SENTINEL;
  CHECK_ST(ca_compute(res, ctx, g, keys, 4, NULL), CA_EKERNEL);
  CHECK_MSG_HAS("deliberate failure from k_fail");
  for (i = 0; i < 4; ++i) {
    if (res[i] != NULL) {
      snprintf(g_msg, sizeof g_msg, "after CA_EKERNEL (threads %d), results[%d] is not NULL", (int)threads, i);
      return g_msg;
    }
  }
  /* the context still works */
  CHECK_OK(ca_compute(res, ctx, g, keys, 1, NULL));
  ca_block_free(res[0]);
  ca_graph_free(g);
  ca_context_free(ctx);
  return NULL;
}

const char *capi_case_compute_kernel_error(void) {
  const char *r = kernel_error_with(0);
  if (r) return r;
  return kernel_error_with(2);
}

const char *capi_case_blockwise_partial_reduce(void) {
  ca_context_t *ctx = new_ctx(2);
  ca_graph_t *g = NULL;
  ca_arg_t a[2];
  int64_t split = 2;
  ca_key_t key;
  ca_block_t *res = NULL;
  ca_keylist_t *kl = NULL;
  ca_key_t k;
  ca_blockwise_options_t bopts = CA_BLOCKWISE_OPTIONS_INIT;
  int i;
  CHECK(ctx != NULL);
  CHECK_OK(ca_graph_new(&g));
  for (i = 0; i < 4; ++i) CHECK_OK(add_fill(g, "x", i, 3, (double)(i + 1)));
  /* y[i] = scale(x[i], 2) */
  a[0] = ca_arg_indexed("x", "i");
  a[1] = ca_arg_f64(2.0);
  CHECK_OK(ca_graph_add_blockwise(g, "y", "i", "scale", a, 2, NULL));
  CHECK(ca_graph_num_tasks(g) == 8);
  CHECK_ST(ca_graph_add_blockwise(g, "y", "i", "scale", a, 2, NULL), CA_EEXISTS);
  for (i = 0; i < 4; ++i) {
    key = key1("y", i);
    CHECK(ca_graph_has_key(g, &key));
    CHECK_OK(ca_compute(&res, ctx, g, &key, 1, NULL));
    CHECK(ca_block_size(res) == 3);
    CHECK_NEAR(((const double *)ca_block_data(res))[1], 2.0 * (i + 1));
    ca_block_free(res);
  }
  key = key1("y", 4);
  CHECK(!ca_graph_has_key(g, &key));
  /* z[j] = total(y[2j], y[2j+1]) ; w[0] = total(z[0], z[1]) */
  CHECK_OK(ca_graph_add_partial_reduce(g, "z", "y", &split, 1, "total", NULL, 0));
  CHECK(ca_graph_num_tasks(g) == 10);
  CHECK_OK(ca_graph_add_partial_reduce(g, "w", "z", &split, 1, "total", NULL, 0));
  CHECK(ca_graph_num_tasks(g) == 11);
  key = key1("z", 1);
  CHECK_OK(ca_compute(&res, ctx, g, &key, 1, NULL));
  CHECK_NEAR(scalar_f64(res), 3 * 2.0 * 3 + 3 * 2.0 * 4);
  ca_block_free(res);
  key = key1("w", 0);
  CHECK_OK(ca_compute(&res, ctx, g, &key, 1, NULL));
  CHECK_NEAR(scalar_f64(res), 3 * 2.0 * (1 + 2 + 3 + 4));
  ca_block_free(res);
  /* extra literal arguments */
  a[0] = ca_arg_f64(100.0);
  CHECK_OK(ca_graph_add_partial_reduce(g, "z2", "y", &split, 1, "total", a, 1));
  key = key1("z2", 0);
  CHECK_OK(ca_compute(&res, ctx, g, &key, 1, NULL));
  CHECK_NEAR(scalar_f64(res), 3 * 2.0 * (1 + 2) + 100.0);
  ca_block_free(res);
  /* dependencies between layers */
  CHECK_OK(ca_graph_layer_dependencies(&kl, g, "w"));
  CHECK(ca_keylist_size(kl) == 1);
  CHECK_OK(ca_keylist_get(kl, 0, &k));
  CHECK(strcmp(k.name, "z") == 0 && k.nindex == 0);
  ca_keylist_free(kl);
  CHECK_OK(ca_graph_layer_keys(&kl, g, "z"));
  CHECK(ca_keylist_size(kl) == 2);
  CHECK_OK(ca_keylist_get(kl, 1, &k));
  CHECK(strcmp(k.name, "z") == 0 && k.nindex == 1 && k.index[0] == 1);
  ca_keylist_free(kl);
  /* contraction: s = total([x[0], ..., x[3]]) with out_index "" */
  a[0] = ca_arg_indexed("x", "i");
  CHECK_OK(ca_graph_add_blockwise(g, "s", "", "total", a, 1, &bopts));
  key.name = "s";
  key.index = NULL;
  key.nindex = 0;
  CHECK_OK(ca_compute(&res, ctx, g, &key, 1, NULL));
  CHECK_NEAR(scalar_f64(res), 3.0 * (1 + 2 + 3 + 4));
  ca_block_free(res);
  /* errors: unknown input layer, bad letters, bad split */
  a[0] = ca_arg_indexed("nolayer", "i");
  CHECK_ST(ca_graph_add_blockwise(g, "b1", "i", "scale", a, 2, NULL), CA_ENOTFOUND);
  CHECK_MSG_HAS("nolayer");
  a[0] = ca_arg_indexed("x", "ij"); /* x has one index */
  CHECK_ST(ca_graph_add_blockwise(g, "b2", "i", "scale", a, 2, NULL), CA_EINVAL);
  CHECK_ST(ca_graph_add_partial_reduce(g, "p1", "nolayer", &split, 1, "total", NULL, 0), CA_ENOTFOUND);
  split = 0;
  CHECK_ST(ca_graph_add_partial_reduce(g, "p2", "y", &split, 1, "total", NULL, 0), CA_EINVAL);
  split = 2;
  CHECK_ST(ca_graph_add_partial_reduce(g, "p3", "y", &split, 2, "total", NULL, 0), CA_EINVAL);
  CHECK_ST(ca_graph_add_partial_reduce(g, "z", "y", &split, 1, "total", NULL, 0), CA_EEXISTS);
  ca_graph_free(g);
  ca_context_free(ctx);
  return NULL;
}

const char *capi_case_graph_merge(void) {
  ca_context_t *ctx = new_ctx(0);
  ca_graph_t *g1 = NULL, *g2 = NULL, *g3 = NULL, *c1 = NULL;
  ca_key_t key = key1("y", 0);
  ca_block_t *res = NULL;
  CHECK(ctx != NULL);
  CHECK_OK(ca_graph_new(&g1));
  CHECK_OK(add_fill(g1, "x", 0, 4, 0.5));
  CHECK_OK(ca_graph_copy(&c1, g1));
  CHECK_OK(ca_graph_new(&g2));
  CHECK_OK(add_ref(g2, "y", 0, "total", "x", 0));
  CHECK_ST(ca_compute(&res, ctx, g2, &key, 1, NULL), CA_ENOTFOUND);
  CHECK_OK(ca_graph_merge(g2, g1));
  CHECK(ca_graph_num_layers(g2) == 2);
  CHECK(ca_graph_num_tasks(g2) == 2);
  CHECK_OK(ca_compute(&res, ctx, g2, &key, 1, NULL));
  CHECK_NEAR(scalar_f64(res), 2.0);
  ca_block_free(res);
  /* the same (shared) layer again is fine */
  CHECK_OK(ca_graph_merge(g2, c1));
  CHECK_OK(ca_graph_merge(g2, g1));
  CHECK(ca_graph_num_tasks(g2) == 2);
  /* a different layer of the same name is not */
  CHECK_OK(ca_graph_new(&g3));
  CHECK_OK(add_fill(g3, "x", 0, 4, 9.0));
  CHECK_ST(ca_graph_merge(g2, g3), CA_EEXISTS);
  CHECK_MSG_HAS("x");
  CHECK(ca_graph_num_tasks(g2) == 2);
  /* merging does not change the source */
  CHECK(ca_graph_num_tasks(g1) == 1);
  ca_graph_free(g1);
  ca_graph_free(g2);
  ca_graph_free(g3);
  ca_graph_free(c1);
  ca_context_free(ctx);
  return NULL;
}

const char *capi_case_graph_cull(void) {
  ca_context_t *ctx = new_ctx(0);
  ca_graph_t *g = NULL, *c = NULL;
  ca_key_t key = key1("y", 0), probe;
  ca_block_t *res = NULL;
  int i;
  CHECK(ctx != NULL);
  CHECK_OK(ca_graph_new(&g));
  for (i = 0; i < 4; ++i) CHECK_OK(add_fill(g, "x", i, 2, (double)i));
  CHECK_OK(add_ref(g, "y", 0, "total", "x", 1));
  CHECK_OK(add_ref(g, "y", 1, "total", "x", 2));
  CHECK(ca_graph_num_tasks(g) == 6);
  CHECK_OK(ca_graph_cull(&c, g, &key, 1));
  CHECK(ca_graph_num_tasks(c) == 2);
  probe = key1("x", 1);
  CHECK(ca_graph_has_key(c, &probe));
  probe = key1("x", 0);
  CHECK(!ca_graph_has_key(c, &probe));
  probe = key1("y", 1);
  CHECK(!ca_graph_has_key(c, &probe));
  CHECK(ca_graph_num_tasks(g) == 6); /* the original is unchanged */
  CHECK_OK(ca_compute(&res, ctx, c, &key, 1, NULL));
  CHECK_NEAR(scalar_f64(res), 2.0);
  ca_block_free(res);
  ca_graph_free(c);
  c = (ca_graph_t *)SENTINEL;
  probe = key1("nope", 0);
  CHECK_ST(ca_graph_cull(&c, g, &probe, 1), CA_ENOTFOUND);
  CHECK(c == NULL);
  CHECK_MSG_HAS("('nope', 0)");
  ca_graph_free(g);
  ca_context_free(ctx);
  return NULL;
}

const char *capi_case_graph_copy(void) {
  ca_context_t *ctx = new_ctx(0);
  ca_graph_t *g = NULL, *c = NULL;
  ca_key_t key = key1("y", 0);
  ca_block_t *res = NULL;
  CHECK(ctx != NULL);
  CHECK_OK(ca_graph_new(&g));
  CHECK_OK(add_fill(g, "x", 0, 2, 3.0));
  CHECK_OK(ca_graph_copy(&c, g));
  CHECK(ca_graph_num_tasks(c) == 1);
  CHECK_OK(add_ref(c, "y", 0, "total", "x", 0));
  CHECK_OK(add_fill(c, "x", 1, 2, 3.0));
  CHECK(ca_graph_num_tasks(c) == 3);
  CHECK(ca_graph_num_tasks(g) == 1);
  CHECK(!ca_graph_has_key(g, &key));
  ca_graph_free(g); /* the copy lives on */
  CHECK_OK(ca_compute(&res, ctx, c, &key, 1, NULL));
  CHECK_NEAR(scalar_f64(res), 6.0);
  ca_block_free(res);
  ca_graph_free(c);
  ca_context_free(ctx);
  return NULL;
}

const char *capi_case_graph_queries(void) {
  ca_graph_t *g = NULL;
  ca_keylist_t *kl = NULL;
  ca_key_t k = key1("y", 0), got;
  ca_arg_t a[3], list[2];
  int i;
  CHECK_OK(ca_graph_new(&g));
  CHECK(ca_graph_num_layers(g) == 0 && ca_graph_num_tasks(g) == 0);
  for (i = 0; i < 3; ++i) CHECK_OK(add_fill(g, "x", i, 1, 1.0));
  a[0] = ca_arg_key("x", &IDX[1], 1);
  list[0] = ca_arg_key("x", &IDX[2], 1);
  list[1] = ca_arg_key("x", &IDX[1], 1);
  a[1] = ca_arg_list(list, 2);
  a[2] = ca_arg_i64(5);
  CHECK_OK(ca_graph_add_task(g, &k, "total", a, 3));
  CHECK(ca_graph_num_layers(g) == 2);
  CHECK(ca_graph_num_tasks(g) == 4);
  CHECK(ca_graph_has_key(g, &k));
  CHECK_OK(ca_graph_layers(&kl, g));
  CHECK(ca_keylist_size(kl) == 2);
  CHECK_OK(ca_keylist_get(kl, 0, &got));
  CHECK(strcmp(got.name, "x") == 0 && got.nindex == 0);
  CHECK_OK(ca_keylist_get(kl, 1, &got));
  CHECK(strcmp(got.name, "y") == 0);
  CHECK_ST(ca_keylist_get(kl, 2, &got), CA_EINVAL);
  ca_keylist_free(kl);
  /* dependencies: argument order, no repeats */
  CHECK_OK(ca_graph_dependencies(&kl, g, &k));
  CHECK(ca_keylist_size(kl) == 2);
  CHECK_OK(ca_keylist_get(kl, 0, &got));
  CHECK(strcmp(got.name, "x") == 0 && got.nindex == 1 && got.index[0] == 1);
  CHECK_OK(ca_keylist_get(kl, 1, &got));
  CHECK(strcmp(got.name, "x") == 0 && got.nindex == 1 && got.index[0] == 2);
  ca_keylist_free(kl);
  kl = (ca_keylist_t *)SENTINEL;
  got = key1("zz", 0);
  CHECK_ST(ca_graph_dependencies(&kl, g, &got), CA_ENOTFOUND);
  CHECK(kl == NULL);
  CHECK_OK(ca_graph_layer_dependencies(&kl, g, "y"));
  CHECK(ca_keylist_size(kl) == 1);
  CHECK_OK(ca_keylist_get(kl, 0, &got));
  CHECK(strcmp(got.name, "x") == 0);
  ca_keylist_free(kl);
  CHECK_OK(ca_graph_layer_keys(&kl, g, "x"));
  CHECK(ca_keylist_size(kl) == 3);
  for (i = 0; i < 3; ++i) {
    CHECK_OK(ca_keylist_get(kl, (size_t)i, &got));
    CHECK(strcmp(got.name, "x") == 0 && got.nindex == 1 && got.index[0] == i);
  }
  ca_keylist_free(kl);
  kl = (ca_keylist_t *)SENTINEL;
  CHECK_ST(ca_graph_layer_keys(&kl, g, "nolayer"), CA_ENOTFOUND);
  CHECK(kl == NULL);
  kl = (ca_keylist_t *)SENTINEL;
  CHECK_ST(ca_graph_layer_dependencies(&kl, g, "nolayer"), CA_ENOTFOUND);
  CHECK(kl == NULL);
  ca_keylist_free(NULL);
  CHECK(ca_keylist_size(NULL) == 0);
  ca_graph_free(g);
  return NULL;
}

const char *capi_case_graph_validate(void) {
  ca_context_t *ctx = new_ctx(0);
  ca_graph_t *g = NULL;
  ca_key_t k;
  CHECK(ctx != NULL);
  CHECK_OK(ca_graph_new(&g));
  CHECK_OK(ca_graph_validate(g, ctx, NULL, 0));
  CHECK_OK(add_fill(g, "x", 0, 1, 1.0));
  CHECK_OK(add_ref(g, "y", 0, "total", "x", 0));
  CHECK_OK(ca_graph_validate(g, NULL, NULL, 0));
  CHECK_OK(ca_graph_validate(g, ctx, NULL, 0));
  /* a broken task the requested keys do not need */
  CHECK_OK(add_ref(g, "broken", 0, "total", "missing", 7));
  k = key1("y", 0);
  CHECK_OK(ca_graph_validate(g, ctx, &k, 1));
  CHECK_ST(ca_graph_validate(g, ctx, NULL, 0), CA_ENOTFOUND);
  CHECK_MSG_HAS("('missing', 7)");
  CHECK_MSG_HAS("('broken', 0)");
  k = key1("broken", 0);
  CHECK_ST(ca_graph_validate(g, ctx, &k, 1), CA_ENOTFOUND);
  k = key1("absent", 0);
  CHECK_ST(ca_graph_validate(g, ctx, &k, 1), CA_ENOTFOUND);
  CHECK_MSG_HAS("('absent', 0)");
  ca_graph_free(g);
  ca_context_free(ctx);
  return NULL;
}

/* Kernel versions recorded in saved graphs (format.h): the options struct, the save calls with a
 * context, ca_graph_kernel_version and CA_EVERSION at validate and compute. */
const char *capi_case_graph_kernel_versions(void) {
  ca_context_t *ctx = new_ctx(0), *v2 = NULL;
  ca_graph_t *g = NULL, *h = NULL;
  ca_save_options_t so = CA_SAVE_OPTIONS_INIT;
  ca_kernel_options_t ko = CA_KERNEL_OPTIONS_INIT;
  ca_key_t k;
  ca_block_t *b = NULL;
  void *data = SENTINEL;
  size_t size = 1;
  int32_t v = -1;
  ca_status_t st;
  CHECK(ctx != NULL);
  CHECK(so.struct_size == sizeof(ca_save_options_t) && so.context == NULL);
  CHECK_OK(ca_graph_new(&g));
  CHECK_OK(add_fill(g, "x", 0, 2, 1.5));
  CHECK_OK(add_ref(g, "y", 0, "total", "x", 0));
  CHECK_OK(ca_graph_kernel_version(&v, g, "fill"));
  CHECK(v == 0); /* built in memory: not recorded */
  v = -1;
  CHECK_ST(ca_graph_kernel_version(&v, g, "nope"), CA_ENOTFOUND);
  CHECK(v == 0);
  CHECK_MSG_HAS("'nope'");
  CHECK_ST(ca_graph_kernel_version(NULL, g, "fill"), CA_EINVAL);
  /* The save calls with and without options share their implementation; errors name the one called. */
  CHECK_ST(ca_graph_save(NULL, "unused.cagraph"), CA_EINVAL);
  CHECK_MSG_HAS("ca_graph_save: graph is NULL");
  CHECK_ST(ca_graph_save_opts(NULL, "unused.cagraph", &so), CA_EINVAL);
  CHECK_MSG_HAS("ca_graph_save_opts: graph is NULL");
  CHECK_ST(ca_arrays_save_buffer(NULL, 1, &data, &size), CA_EINVAL);
  CHECK_MSG_HAS("ca_arrays_save_buffer:");
  CHECK(data == NULL && size == 0);
  data = SENTINEL;
  size = 1;
  ko.version = 2;
  CHECK_OK(ca_context_new(&v2, NULL));
  CHECK_OK(ca_context_register(v2, "fill", k_fill, &ko));
  CHECK_OK(ca_context_register(v2, "total", k_total, &ko));
  so.context = v2;
  st = save_to(&data, &size, NULL, g, NULL, 0, &so);
  if (st == CA_EUNSUPPORTED) { /* built without Cap'n Proto */
    CHECK(data == NULL && size == 0);
    ca_graph_free(g);
    ca_context_free(v2);
    ca_context_free(ctx);
    return NULL;
  }
  CHECK_OK(st);
  CHECK_OK(ca_graph_load_buffer(&h, data, size));
  ca_buffer_free(data);
  CHECK_OK(ca_graph_kernel_version(&v, h, "fill"));
  CHECK(v == 2);
  CHECK_OK(ca_graph_validate(h, v2, NULL, 0));
  CHECK_ST(ca_graph_validate(h, ctx, NULL, 0), CA_EVERSION); /* fill is version 1 in ctx */
  CHECK_MSG_HAS("needs kernel 'fill' version 2 (recorded in the graph); the registered 'fill' is version 1");
  k = key1("y", 0);
  b = (ca_block_t *)SENTINEL;
  CHECK_ST(ca_compute(&b, ctx, h, &k, 1, NULL), CA_EVERSION);
  CHECK(b == NULL);
  CHECK_OK(ca_compute(&b, v2, h, &k, 1, NULL));
  CHECK(*(const double *)ca_block_data(b) == 3.0);
  ca_block_free(b);
  /* The original (unrecorded) graph computes in both. */
  CHECK_OK(ca_compute(&b, ctx, g, &k, 1, NULL));
  ca_block_free(b);
  /* A re-save with a context of another version fails; a struct_size of 0 is refused. */
  so.context = ctx;
  data = SENTINEL;
  CHECK_ST(save_to(&data, &size, NULL, h, NULL, 0, &so), CA_EVERSION);
  CHECK(data == NULL && size == 0);
  so.struct_size = 0;
  CHECK_ST(save_to(&data, &size, NULL, g, NULL, 0, &so), CA_EINVAL);
  ca_graph_free(h);
  ca_graph_free(g);
  ca_context_free(v2);
  ca_context_free(ctx);
  return NULL;
}

/* ------------------------------------------------------------------------------------------------ */
/* Compute options                                                                                   */
/* ------------------------------------------------------------------------------------------------ */

static int64_t g_prog_done, g_prog_total, g_prog_calls, g_prog_backwards;
static void on_progress(int64_t done, int64_t total, void *user_data) {
  if (done < g_prog_done) ++g_prog_backwards;
  g_prog_done = done;
  g_prog_total = total;
  ++g_prog_calls;
  ++*(int *)user_data;
}

const char *capi_case_compute_progress(void) {
  enum { N = 10 };
  ca_context_t *ctx = new_ctx(2);
  ca_graph_t *g = NULL;
  ca_arg_t refs[N], list;
  ca_key_t key = key1("sum", 0);
  ca_block_t *res = NULL;
  ca_compute_options_t opts = CA_COMPUTE_OPTIONS_INIT;
  int tag = 0, i;
  CHECK(ctx != NULL);
  CHECK(opts.struct_size == sizeof(ca_compute_options_t));
  CHECK_OK(ca_graph_new(&g));
  for (i = 0; i < N; ++i) {
    CHECK_OK(add_fill(g, "x", i, 10, 1.0));
    refs[i] = ca_arg_key("x", &IDX[i], 1);
  }
  list = ca_arg_list(refs, N);
  CHECK_OK(ca_graph_add_task(g, &key, "total", &list, 1));
  CHECK_OK(add_fill(g, "unneeded", 0, 10, 1.0));
  opts.progress = on_progress;
  opts.progress_user_data = &tag;
  opts.progress_interval_us = 1;
  g_prog_done = g_prog_total = g_prog_calls = g_prog_backwards = 0;
  CHECK_OK(ca_compute(&res, ctx, g, &key, 1, &opts));
  CHECK_NEAR(scalar_f64(res), 100.0);
  ca_block_free(res);
  CHECK(g_prog_calls >= 1);
  CHECK(tag == g_prog_calls);
  if (g_prog_total != N + 1 || g_prog_done != g_prog_total) {
    snprintf(g_msg, sizeof g_msg, "last progress call was (%lld, %lld), expected (%d, %d)", (long long)g_prog_done,
             (long long)g_prog_total, N + 1, N + 1);
    return g_msg;
  }
  CHECK(g_prog_backwards == 0);
  ca_graph_free(g);
  ca_context_free(ctx);
  return NULL;
}

static const char *cancel_with(int32_t threads) {
  ca_context_t *ctx = new_ctx(threads);
  ca_graph_t *g = NULL;
  ca_cancel_t *cancel = NULL;
  ca_key_t key = key1("y", 0);
  ca_block_t *res;
  ca_compute_options_t opts = CA_COMPUTE_OPTIONS_INIT;
  ca_arg_t a;
  ca_key_t ck = key1("c", 0);
  CHECK(ctx != NULL);
  CHECK_OK(ca_cancel_new(&cancel));
  CHECK(!ca_cancel_requested(cancel));
  CHECK_OK(ca_graph_new(&g));
  CHECK_OK(add_fill(g, "x", 0, 5, 1.0));
  CHECK_OK(add_ref(g, "y", 0, "total", "x", 0));
  opts.cancel = cancel;
  /* cancelled before it starts */
  ca_cancel_request(cancel);
  CHECK(ca_cancel_requested(cancel));
  res = (ca_block_t *)SENTINEL;
  CHECK_ST(ca_compute(&res, ctx, g, &key, 1, &opts), CA_ECANCELED);
  CHECK(res == NULL);
  /* reset: runs again */
  ca_cancel_reset(cancel);
  CHECK(!ca_cancel_requested(cancel));
  CHECK_OK(ca_compute(&res, ctx, g, &key, 1, &opts));
  CHECK_NEAR(scalar_f64(res), 5.0);
  ca_block_free(res);
  /* cancelled by a task while running: c -> d */
  {
    ca_kernel_options_t kopts = CA_KERNEL_OPTIONS_INIT;
    kopts.user_data = cancel;
    CHECK_OK(ca_context_register(ctx, "cancel_self", k_cancel_self, &kopts));
  }
  CHECK_OK(ca_graph_add_task(g, &ck, "cancel_self", NULL, 0));
  a = ca_arg_key("c", &IDX[0], 1);
  ck = key1("d", 0);
  CHECK_OK(ca_graph_add_task(g, &ck, "total", &a, 1));
  res = (ca_block_t *)SENTINEL;
  CHECK_ST(ca_compute(&res, ctx, g, &ck, 1, &opts), CA_ECANCELED);
  CHECK(res == NULL);
  CHECK(ca_cancel_requested(cancel));
  ca_graph_free(g);
  ca_context_free(ctx);
  ca_cancel_free(cancel);
  ca_cancel_free(NULL);
  return NULL;
}

const char *capi_case_compute_cancel(void) {
  const char *r = cancel_with(0);
  if (r) return r;
  return cancel_with(2);
}

/* ------------------------------------------------------------------------------------------------ */
/* NULL handles                                                                                      */
/* ------------------------------------------------------------------------------------------------ */

#define CHECK_NULL_EINVAL(expr)                                                                         \
  do {                                                                                                  \
    ca_status_t st_;                                                                                    \
    ca_clear_error();                                                                                   \
    st_ = (expr);                                                                                       \
    if (st_ != CA_EINVAL || strlen(ca_last_error_message()) == 0) {                                     \
      snprintf(g_msg, sizeof g_msg, "capi_cases.c:%d: %s returned %s with message \"%s\", expected CA_EINVAL " \
               "and a message", __LINE__, #expr, ca_status_str(st_), ca_last_error_message());          \
      return g_msg;                                                                                     \
    }                                                                                                   \
  } while (0)

const char *capi_case_null_handles(void) {
  ca_context_t *ctx = new_ctx(0);
  ca_graph_t *g = NULL, *og = (ca_graph_t *)SENTINEL;
  ca_block_t *b = (ca_block_t *)SENTINEL;
  ca_array_t *arr = (ca_array_t *)SENTINEL;
  ca_kernel_t *k = (ca_kernel_t *)SENTINEL;
  ca_keylist_t *kl = (ca_keylist_t *)SENTINEL;
  ca_chunkset_t *cs = (ca_chunkset_t *)SENTINEL;
  const char *s = (const char *)SENTINEL;
  ca_key_t key = key1("x", 0), got;
  ca_scalar_t sc;
  int64_t shape = 4, nb = 1, sizes = 4;
  ca_chunks_t chunks;
  double buf[4] = {0, 0, 0, 0};
  ca_arg_t a = ca_arg_i64(1);
  chunks.ndim = 1;
  chunks.numblocks = &nb;
  chunks.sizes = &sizes;
  memset(&sc, 0, sizeof sc);
  sc.kind = CA_FLOAT64;
  sc.re = 1.0;
  CHECK(ctx != NULL);
  CHECK_OK(ca_graph_new(&g));
  CHECK_OK(add_fill(g, "x", 0, 4, 1.0));

  CHECK_NULL_EINVAL(ca_context_new(NULL, NULL));
  CHECK_NULL_EINVAL(ca_context_set_config(NULL, "array.chunk-size", "1MiB"));
  CHECK_NULL_EINVAL(ca_context_get_config(&s, NULL, "array.chunk-size"));
  CHECK(s == NULL);
  CHECK_NULL_EINVAL(ca_context_get_config(NULL, ctx, "array.chunk-size"));
  CHECK_NULL_EINVAL(ca_context_register(NULL, "k", k_fill, NULL));
  CHECK_NULL_EINVAL(ca_context_register(ctx, "k", NULL, NULL));
  CHECK_NULL_EINVAL(ca_context_add_kernel(ctx, NULL, false));
  CHECK_NULL_EINVAL(ca_context_add_kernel(NULL, NULL, false));
  CHECK_NULL_EINVAL(ca_context_get_kernel(&k, NULL, "fill"));
  CHECK(k == NULL);
  CHECK_NULL_EINVAL(ca_context_get_kernel(&k, ctx, NULL));
  CHECK_NULL_EINVAL(ca_context_remove_kernel(NULL, "fill"));
  CHECK_NULL_EINVAL(ca_kernel_call(&b, NULL, &a, 1));
  CHECK(b == NULL);
  CHECK_NULL_EINVAL(ca_graph_new(NULL));
  CHECK_NULL_EINVAL(ca_graph_copy(&og, NULL));
  CHECK(og == NULL);
  CHECK_NULL_EINVAL(ca_graph_add_task(NULL, &key, "fill", &a, 1));
  CHECK_NULL_EINVAL(ca_graph_add_blockwise(NULL, "y", "i", "scale", &a, 1, NULL));
  CHECK_NULL_EINVAL(ca_graph_add_partial_reduce(NULL, "y", "x", &nb, 1, "total", NULL, 0));
  CHECK_NULL_EINVAL(ca_graph_merge(NULL, g));
  CHECK_NULL_EINVAL(ca_graph_merge(g, NULL));
  og = (ca_graph_t *)SENTINEL;
  CHECK_NULL_EINVAL(ca_graph_cull(&og, NULL, &key, 1));
  CHECK(og == NULL);
  CHECK_NULL_EINVAL(ca_graph_validate(NULL, ctx, NULL, 0));
  CHECK_NULL_EINVAL(ca_graph_layers(&kl, NULL));
  CHECK(kl == NULL);
  kl = (ca_keylist_t *)SENTINEL;
  CHECK_NULL_EINVAL(ca_graph_dependencies(&kl, g, NULL));
  CHECK(kl == NULL);
  CHECK_NULL_EINVAL(ca_graph_layer_keys(&kl, g, NULL));
  CHECK_NULL_EINVAL(ca_keylist_get(NULL, 0, &got));
  b = (ca_block_t *)SENTINEL;
  CHECK_NULL_EINVAL(ca_compute(&b, NULL, g, &key, 1, NULL));
  CHECK(b == NULL);
  b = (ca_block_t *)SENTINEL;
  CHECK_NULL_EINVAL(ca_compute(&b, ctx, NULL, &key, 1, NULL));
  CHECK(b == NULL);
  CHECK_NULL_EINVAL(ca_compute(&b, ctx, g, NULL, 1, NULL));
  CHECK_NULL_EINVAL(ca_compute(NULL, ctx, g, &key, 1, NULL));
  CHECK_NULL_EINVAL(ca_cancel_new(NULL));
  CHECK_NULL_EINVAL(ca_block_new(NULL, CA_FLOAT64, 1, &shape));
  CHECK_NULL_EINVAL(ca_dtype_promote(NULL, CA_FLOAT64, CA_FLOAT64));
  CHECK_NULL_EINVAL(ca_array_new(&arr, NULL, "x", &chunks, CA_FLOAT64));
  CHECK(arr == NULL);
  CHECK_NULL_EINVAL(ca_array_new(&arr, g, NULL, &chunks, CA_FLOAT64));
  CHECK_NULL_EINVAL(ca_array_new(&arr, g, "x", NULL, CA_FLOAT64));
  CHECK_NULL_EINVAL(ca_array_new(NULL, g, "x", &chunks, CA_FLOAT64));
  b = (ca_block_t *)SENTINEL;
  CHECK_NULL_EINVAL(ca_array_compute(&b, ctx, NULL, NULL));
  CHECK(b == NULL);
  CHECK_NULL_EINVAL(ca_array_compute_into(ctx, NULL, buf, sizeof buf, NULL));
  arr = (ca_array_t *)SENTINEL;
  CHECK_NULL_EINVAL(ca_array_persist(&arr, ctx, NULL, NULL));
  CHECK(arr == NULL);
  arr = (ca_array_t *)SENTINEL;
  CHECK_NULL_EINVAL(ca_array_reduce(&arr, CA_RED_SUM, NULL, NULL, 0, false, NULL));
  CHECK(arr == NULL);
  arr = (ca_array_t *)SENTINEL;
  CHECK_NULL_EINVAL(ca_array_binary_scalar(&arr, CA_OP_ADD, NULL, sc, false));
  CHECK(arr == NULL);
  CHECK_NULL_EINVAL(ca_array_keys(&kl, NULL));
  CHECK_NULL_EINVAL(ca_array_graph(&og, NULL));
  CHECK_NULL_EINVAL(ca_array_ones(NULL, 1, &shape, &chunks, CA_FLOAT64));
  CHECK_NULL_EINVAL(ca_array_from_buffer(&arr, NULL, CA_FLOAT64, 1, &shape, &chunks, NULL));
  CHECK_NULL_EINVAL(ca_normalize_chunks(NULL, ctx, NULL, 1, &shape, CA_FLOAT64, 0));
  CHECK_NULL_EINVAL(ca_normalize_chunks(&cs, ctx, NULL, 1, NULL, CA_FLOAT64, 0));
  CHECK(cs == NULL);
  CHECK_NULL_EINVAL(ca_normalize_chunks_spec(&cs, ctx, NULL, 1, &shape, CA_FLOAT64));

  /* getters and frees on NULL: no crash, documented sentinel values */
  CHECK(ca_graph_num_tasks(NULL) <= 0);
  CHECK(ca_graph_num_layers(NULL) <= 0);
  CHECK(!ca_graph_has_key(NULL, &key));
  CHECK(!ca_graph_has_key(g, NULL));
  CHECK(ca_array_ndim(NULL) == -1);
  CHECK(ca_array_shape(NULL) == NULL);
  CHECK(ca_array_name(NULL) == NULL);
  CHECK(ca_array_dtype(NULL) == CA_DTYPE_INVALID);
  CHECK(ca_array_chunks(NULL, 0, &shape) == NULL && shape == 0);
  CHECK(ca_array_retain(NULL) == NULL);
  CHECK(ca_block_data(NULL) == NULL);
  CHECK(ca_block_shape(NULL) == NULL);
  CHECK(ca_block_dtype(NULL) == CA_DTYPE_INVALID);
  CHECK(ca_kernel_name(NULL) == NULL);
  CHECK(ca_context_num_kernels(NULL) <= 0);
  CHECK(ca_chunkset_sizes(NULL, 0, NULL) == NULL);
  ca_array_free(NULL);
  ca_graph_free(NULL);
  ca_block_free(NULL);
  ca_kernel_free(NULL);
  ca_context_free(NULL);
  ca_keylist_free(NULL);
  ca_chunkset_free(NULL);
  ca_cancel_free(NULL);
  ca_string_free(NULL);
  ca_graph_free(g);
  ca_context_free(ctx);
  return NULL;
}

/* ------------------------------------------------------------------------------------------------ */
/* Arrays                                                                                            */
/* ------------------------------------------------------------------------------------------------ */

/* ('name', i) = fill(sizes[i], i) for each block of a 1-d chunking. */
static ca_status_t add_fill_blocks(ca_graph_t *g, const char *name, const int64_t *sizes, int n) {
  int i;
  ca_status_t st;
  for (i = 0; i < n; ++i)
    if ((st = add_fill(g, name, i, sizes[i], (double)i)) != CA_OK) return st;
  return CA_OK;
}

const char *capi_case_array_new(void) {
  ca_context_t *ctx = new_ctx(2);
  ca_graph_t *g = NULL, *ag = NULL;
  ca_array_t *a = NULL, *r;
  static const int64_t sizes[3] = {3, 3, 2};
  int64_t nb = 3, n = 0;
  ca_chunks_t chunks, view;
  ca_keylist_t *kl = NULL;
  ca_key_t k;
  ca_block_t *res = NULL;
  const int64_t *cs;
  const double *d;
  static const double expect[8] = {0, 0, 0, 1, 1, 1, 2, 2};
  int i;
  CHECK(ctx != NULL);
  CHECK_OK(ca_graph_new(&g));
  CHECK_OK(add_fill_blocks(g, "x", sizes, 3));
  chunks.ndim = 1;
  chunks.numblocks = &nb;
  chunks.sizes = sizes;
  CHECK_OK(ca_array_new(&a, g, "x", &chunks, CA_FLOAT64));
  /* later changes to the graph do not affect the array */
  CHECK_OK(add_fill(g, "x", 3, 1, 9.0));
  ca_graph_free(g);
  CHECK(ca_array_ndim(a) == 1);
  CHECK(ca_array_shape(a) != NULL && ca_array_shape(a)[0] == 8);
  CHECK(ca_array_size(a) == 8);
  CHECK(ca_array_nbytes(a) == 64);
  CHECK(ca_array_dtype(a) == CA_FLOAT64);
  CHECK(strcmp(ca_array_name(a), "x") == 0);
  CHECK(ca_array_numblocks(a) != NULL && ca_array_numblocks(a)[0] == 3);
  cs = ca_array_chunks(a, 0, &n);
  CHECK(cs != NULL && n == 3 && cs[0] == 3 && cs[1] == 3 && cs[2] == 2);
  CHECK(ca_array_chunks(a, 1, &n) == NULL && n == 0);
  CHECK(ca_array_chunks(a, -1, &n) == NULL);
  view = ca_array_chunks_view(a);
  CHECK(view.ndim == 1 && view.numblocks[0] == 3 && view.sizes[2] == 2);
  CHECK(ca_array_meta(a) != NULL);
  CHECK_OK(ca_array_keys(&kl, a));
  CHECK(ca_keylist_size(kl) == 3);
  for (i = 0; i < 3; ++i) {
    CHECK_OK(ca_keylist_get(kl, (size_t)i, &k));
    CHECK(strcmp(k.name, "x") == 0 && k.nindex == 1 && k.index[0] == i);
  }
  ca_keylist_free(kl);
  CHECK_OK(ca_array_graph(&ag, a));
  CHECK(ca_graph_num_tasks(ag) == 3);
  ca_graph_free(ag);
  r = ca_array_retain(a);
  CHECK(r == a);
  ca_array_free(r);
  CHECK_OK(ca_array_compute(&res, ctx, a, NULL));
  CHECK(ca_block_ndim(res) == 1 && ca_block_shape(res)[0] == 8 && ca_block_dtype(res) == CA_FLOAT64);
  d = (const double *)ca_block_data(res);
  for (i = 0; i < 8; ++i) CHECK(d[i] == expect[i]);
  ca_block_free(res);
  ca_array_free(a);
  ca_context_free(ctx);
  return NULL;
}

const char *capi_case_array_new_errors(void) {
  ca_context_t *ctx = new_ctx(0);
  ca_graph_t *g = NULL;
  ca_array_t *a = (ca_array_t *)SENTINEL;
  static const int64_t sizes[4] = {3, 3, 2, 2};
  int64_t nb = 4, nb2[2] = {3, 1}, sizes2[4] = {3, 3, 2, 8}, neg[3] = {3, -3, 8};
  ca_chunks_t chunks;
  ca_block_t *res = (ca_block_t *)SENTINEL;
  CHECK(ctx != NULL);
  CHECK_OK(ca_graph_new(&g));
  CHECK_OK(add_fill_blocks(g, "x", sizes, 3));
  /* four blocks, the graph has three: ('x', 3) is missing */
  chunks.ndim = 1;
  chunks.numblocks = &nb;
  chunks.sizes = sizes;
  CHECK_ST(ca_array_new(&a, g, "x", &chunks, CA_FLOAT64), CA_ENOTFOUND);
  CHECK(a == NULL);
  CHECK_MSG_HAS("('x', 3)");
  /* no layer of that name */
  a = (ca_array_t *)SENTINEL;
  nb = 3;
  CHECK_ST(ca_array_new(&a, g, "nope", &chunks, CA_FLOAT64), CA_ENOTFOUND);
  CHECK(a == NULL);
  CHECK_MSG_HAS("nope");
  /* chunks with two dimensions for a layer of one index */
  a = (ca_array_t *)SENTINEL;
  chunks.ndim = 2;
  chunks.numblocks = nb2;
  chunks.sizes = sizes2;
  CHECK(ca_array_new(&a, g, "x", &chunks, CA_FLOAT64) != CA_OK);
  CHECK(a == NULL);
  /* negative block size */
  a = (ca_array_t *)SENTINEL;
  chunks.ndim = 1;
  chunks.numblocks = &nb;
  chunks.sizes = neg;
  CHECK_ST(ca_array_new(&a, g, "x", &chunks, CA_FLOAT64), CA_EINVAL);
  CHECK(a == NULL);
  /* bad dtype */
  a = (ca_array_t *)SENTINEL;
  chunks.sizes = sizes;
  CHECK_ST(ca_array_new(&a, g, "x", &chunks, 99), CA_ETYPE);
  CHECK(a == NULL);
  /* chunks that disagree with the blocks the tasks produce: (4, 2, 2) over blocks of (3, 3, 2) */
  {
    static const int64_t wrong[3] = {4, 2, 2};
    chunks.sizes = wrong;
    CHECK_OK(ca_array_new(&a, g, "x", &chunks, CA_FLOAT64));
    CHECK(ca_array_compute(&res, ctx, a, NULL) != CA_OK);
    CHECK(res == NULL);
    CHECK_MSG_HAS("('x', 0)");
    ca_array_free(a);
  }
  ca_graph_free(g);
  ca_context_free(ctx);
  return NULL;
}

static const char *check_sizes(const ca_chunkset_t *cs, int32_t dim, const int64_t *expect, int64_t n, int line) {
  int64_t got_n = -1, i;
  const int64_t *got = ca_chunkset_sizes(cs, dim, &got_n);
  int ok = got != NULL && got_n == n;
  for (i = 0; ok && i < n; ++i) ok = got[i] == expect[i];
  if (!ok) {
    snprintf(g_msg, sizeof g_msg, "capi_cases.c:%d: chunks along dim %d: got %lld sizes, first %lld", line,
             (int)dim, (long long)got_n, got && got_n > 0 ? (long long)got[0] : -1LL);
    return g_msg;
  }
  return NULL;
}
#define CHECK_SIZES(cs, dim, ...)                                                         \
  do {                                                                                    \
    static const int64_t e_[] = {__VA_ARGS__};                                            \
    const char *r_ = check_sizes(cs, dim, e_, (int64_t)(sizeof e_ / sizeof e_[0]), __LINE__); \
    if (r_) return r_;                                                                    \
  } while (0)

const char *capi_case_normalize_chunks(void) {
  ca_chunkset_t *cs = NULL;
  ca_dimchunks_t spec[2];
  int64_t shape[3] = {5, 24, 0};
  int64_t bad[3] = {20, 3, 0};
  int64_t ok23[2] = {2, 3};
  ca_chunks_t v;
  memset(spec, 0, sizeof spec);
  spec[0].size = 2;
  spec[1].size = CA_CHUNKS_WHOLE;
  CHECK_OK(ca_normalize_chunks(&cs, NULL, spec, 2, shape, CA_FLOAT64, 0));
  CHECK(ca_chunkset_ndim(cs) == 2);
  CHECK_SIZES(cs, 0, 2, 2, 1);
  CHECK_SIZES(cs, 1, 24);
  CHECK(ca_chunkset_sizes(cs, 2, NULL) == NULL);
  v = ca_chunkset_view(cs);
  CHECK(v.ndim == 2 && v.numblocks[0] == 3 && v.numblocks[1] == 1 && v.sizes[3] == 24);
  ca_chunkset_free(cs);
  /* explicit */
  spec[0].size = CA_CHUNKS_EXPLICIT;
  spec[0].sizes = ok23;
  spec[0].nsizes = 2;
  spec[1].size = 10;
  CHECK_OK(ca_normalize_chunks(&cs, NULL, spec, 2, shape, CA_FLOAT64, 0));
  CHECK_SIZES(cs, 0, 2, 3);
  CHECK_SIZES(cs, 1, 10, 10, 4);
  ca_chunkset_free(cs);
  /* dask's "Chunks do not add up to shape": axis 1 sums to 23, shape 24 */
  spec[0].size = 5;
  spec[1].size = CA_CHUNKS_EXPLICIT;
  spec[1].sizes = bad;
  spec[1].nsizes = 2;
  cs = (ca_chunkset_t *)SENTINEL;
  CHECK(ca_normalize_chunks(&cs, NULL, spec, 2, shape, CA_FLOAT64, 0) != CA_OK);
  CHECK(cs == NULL);
  CHECK_MSG_HAS("axis 1");
  CHECK_MSG_HAS("23");
  CHECK_MSG_HAS("24");
  /* negative sizes */
  spec[1].size = -5;
  cs = (ca_chunkset_t *)SENTINEL;
  CHECK_ST(ca_normalize_chunks(&cs, NULL, spec, 2, shape, CA_FLOAT64, 0), CA_EINVAL);
  CHECK(cs == NULL);
  /* auto with a limit: 24 float64 = 192 bytes in blocks of 64 bytes */
  CHECK_OK(ca_normalize_chunks(&cs, NULL, NULL, 1, shape + 1, CA_FLOAT64, 64));
  CHECK_SIZES(cs, 0, 8, 8, 8);
  ca_chunkset_free(cs);
  /* zero extent */
  spec[0].size = 4;
  CHECK_OK(ca_normalize_chunks(&cs, NULL, spec, 1, shape + 2, CA_FLOAT64, 0));
  CHECK(ca_chunkset_ndim(cs) == 1);
  ca_chunkset_free(cs);

  /* strings */
  {
    int64_t s3[3] = {4, 6, 8}, s2[2] = {9, 10};
    CHECK_OK(ca_normalize_chunks_spec(&cs, NULL, "(2, 3, 4)", 3, s3, CA_FLOAT64));
    CHECK(ca_chunkset_ndim(cs) == 3);
    CHECK_SIZES(cs, 0, 2, 2);
    CHECK_SIZES(cs, 1, 3, 3);
    CHECK_SIZES(cs, 2, 4, 4);
    ca_chunkset_free(cs);
    CHECK_OK(ca_normalize_chunks_spec(&cs, NULL, "((2,3,4),(5,5))", 2, s2, CA_FLOAT64));
    CHECK_SIZES(cs, 0, 2, 3, 4);
    CHECK_SIZES(cs, 1, 5, 5);
    ca_chunkset_free(cs);
    /* "(2, 3, 4), -1" (documented in array.h): see known_bug_chunks_str_tuple_then_whole */
    CHECK_OK(ca_normalize_chunks_spec(&cs, NULL, "((2, 3, 4), -1)", 2, s2, CA_FLOAT64));
    CHECK_SIZES(cs, 0, 2, 3, 4);
    CHECK_SIZES(cs, 1, 10);
    ca_chunkset_free(cs);
    CHECK_OK(ca_normalize_chunks_spec(&cs, NULL, "(2, 3, 4)", 1, s2, CA_FLOAT64));
    CHECK_SIZES(cs, 0, 2, 3, 4);
    ca_chunkset_free(cs);
    CHECK_OK(ca_normalize_chunks_spec(&cs, NULL, "{0: 5}", 2, s2, CA_FLOAT64));
    CHECK_SIZES(cs, 0, 5, 4);
    CHECK_SIZES(cs, 1, 10);
    ca_chunkset_free(cs);
    CHECK_OK(ca_normalize_chunks_spec(&cs, NULL, "auto", 2, s2, CA_FLOAT64));
    CHECK_SIZES(cs, 0, 9);
    ca_chunkset_free(cs);
    cs = (ca_chunkset_t *)SENTINEL;
    CHECK(ca_normalize_chunks_spec(&cs, NULL, "((2,3,3),(5,5))", 2, s2, CA_FLOAT64) != CA_OK);
    CHECK(cs == NULL);
    CHECK_MSG_HAS("axis 0");
    cs = (ca_chunkset_t *)SENTINEL;
    CHECK(ca_normalize_chunks_spec(&cs, NULL, "((2,3", 2, s2, CA_FLOAT64) != CA_OK);
    CHECK(cs == NULL);
  }
  return NULL;
}

const char *capi_case_array_from_buffer_copy(void) {
  ca_context_t *ctx = new_ctx(2);
  double buf[12];
  int64_t shape[2] = {3, 4};
  ca_chunkset_t *cs = NULL;
  ca_array_t *a = NULL;
  ca_block_t *res = NULL;
  ca_chunks_t ch;
  const double *d;
  int i;
  CHECK(ctx != NULL);
  for (i = 0; i < 12; ++i) buf[i] = i * 1.5;
  CHECK_OK(ca_normalize_chunks_spec(&cs, ctx, "(2, 3)", 2, shape, CA_FLOAT64));
  ch = ca_chunkset_view(cs);
  g_release_count = 0;
  CHECK_OK(ca_array_from_buffer(&a, buf, CA_FLOAT64, 2, shape, &ch, &(ca_buffer_options_t){sizeof(ca_buffer_options_t), CA_BUFFER_COPY, NULL, count_release, NULL}));
  ca_chunkset_free(cs);
  for (i = 0; i < 12; ++i) buf[i] = -1; /* the array has its own copy */
  CHECK(ca_array_numblocks(a)[0] == 2 && ca_array_numblocks(a)[1] == 2);
  CHECK_OK(ca_array_compute(&res, ctx, a, NULL));
  CHECK(ca_block_ndim(res) == 2 && ca_block_shape(res)[0] == 3 && ca_block_shape(res)[1] == 4);
  d = (const double *)ca_block_data(res);
  for (i = 0; i < 12; ++i) CHECK(d[i] == i * 1.5);
  ca_block_free(res);
  ca_array_free(a);
  CHECK(g_release_count <= 1);
  /* strided (a transposed view): strides in bytes */
  {
    int64_t tshape[2] = {4, 3}, strides[2] = {8, 32}, nb[2] = {1, 1}, sizes[2] = {4, 3};
    ca_chunks_t one;
    for (i = 0; i < 12; ++i) buf[i] = i;
    one.ndim = 2;
    one.numblocks = nb;
    one.sizes = sizes;
    CHECK_OK(ca_array_from_buffer(&a, buf, CA_FLOAT64, 2, tshape, &one, &(ca_buffer_options_t){sizeof(ca_buffer_options_t), CA_BUFFER_COPY, strides, NULL, NULL}));
    CHECK_OK(ca_array_compute(&res, ctx, a, NULL));
    d = (const double *)ca_block_data(res);
    for (i = 0; i < 12; ++i) CHECK(d[i] == (double)((i % 3) * 4 + i / 3));
    ca_block_free(res);
    ca_array_free(a);
  }
  ca_context_free(ctx);
  return NULL;
}

const char *capi_case_array_from_buffer_borrow(void) {
  ca_context_t *ctx = new_ctx(2);
  double buf[10];
  int64_t shape = 10, nb = 2, sizes[2] = {5, 5}, badsizes[2] = {5, 4};
  ca_chunks_t ch;
  ca_array_t *a = NULL, *sum = NULL;
  ca_block_t *res = NULL, *blocks[2] = {NULL, NULL};
  ca_graph_t *g = NULL;
  ca_keylist_t *kl = NULL;
  ca_key_t keys[2];
  int tag = 0, i, views;
  CHECK(ctx != NULL);
  for (i = 0; i < 10; ++i) buf[i] = i + 1;
  ch.ndim = 1;
  ch.numblocks = &nb;
  ch.sizes = sizes;
  g_release_count = 0;
  g_release_arg = NULL;
  CHECK_OK(ca_array_from_buffer(&a, buf, CA_FLOAT64, 1, &shape, &ch, &(ca_buffer_options_t){sizeof(ca_buffer_options_t), CA_BUFFER_BORROW, NULL, count_release, &tag}));
  CHECK_OK(ca_array_reduce(&sum, CA_RED_SUM, a, NULL, 0, false, NULL));
  CHECK_OK(ca_array_compute(&res, ctx, sum, NULL));
  CHECK_NEAR(scalar_f64(res), 55.0);
  ca_block_free(res);
  CHECK_OK(ca_array_compute(&res, ctx, a, NULL));
  for (i = 0; i < 10; ++i) CHECK(((const double *)ca_block_data(res))[i] == i + 1);
  /* the blocks themselves, through the graph */
  CHECK_OK(ca_array_graph(&g, a));
  CHECK_OK(ca_array_keys(&kl, a));
  CHECK_OK(ca_keylist_get(kl, 0, &keys[0]));
  CHECK_OK(ca_keylist_get(kl, 1, &keys[1]));
  CHECK_OK(ca_compute(blocks, ctx, g, keys, 2, NULL));
  ca_keylist_free(kl);
  CHECK(ca_block_size(blocks[1]) == 5 && ((const double *)ca_block_data(blocks[1]))[0] == 6.0);
  views = 0;
  for (i = 0; i < 2; ++i) {
    const char *p = (const char *)ca_block_data(blocks[i]);
    if (p >= (const char *)buf && p < (const char *)(buf + 10)) ++views;
  }
  CHECK(g_release_count == 0);
  ca_array_free(sum);
  ca_array_free(a);
  ca_graph_free(g);
  CHECK(g_release_count <= 1);
  ca_block_free(res);
  if (views > 0) CHECK(g_release_count == 0); /* a result block still views the buffer */
  ca_block_free(blocks[0]);
  ca_block_free(blocks[1]);
  CHECK(g_release_count == 1);
  CHECK(g_release_arg == &tag);
  /* failure: release still runs exactly once */
  g_release_count = 0;
  a = (ca_array_t *)SENTINEL;
  ch.sizes = badsizes;
  CHECK(ca_array_from_buffer(&a, buf, CA_FLOAT64, 1, &shape, &ch, &(ca_buffer_options_t){sizeof(ca_buffer_options_t), CA_BUFFER_BORROW, NULL, count_release, &tag}) !=
        CA_OK);
  CHECK(a == NULL);
  CHECK(g_release_count == 1);
  ca_context_free(ctx);
  CHECK(g_release_count == 1);
  return NULL;
}

const char *capi_case_array_compute_into_persist(void) {
  ca_context_t *ctx = new_ctx(2);
  int64_t shape[2] = {5, 7};
  ca_chunkset_t *cs = NULL;
  ca_chunks_t ch;
  ca_array_t *a = NULL, *twice = NULL, *p = NULL;
  ca_graph_t *pg = NULL;
  ca_scalar_t s;
  double out[35];
  ca_block_t *res = NULL;
  int i;
  CHECK(ctx != NULL);
  CHECK_OK(ca_normalize_chunks_spec(&cs, ctx, "(2, 3)", 2, shape, CA_FLOAT64));
  ch = ca_chunkset_view(cs);
  CHECK_OK(ca_array_ones(&a, 2, shape, &ch, CA_FLOAT64));
  memset(&s, 0, sizeof s);
  s.kind = CA_FLOAT64;
  s.re = 3.0;
  CHECK_OK(ca_array_binary_scalar(&twice, CA_OP_MUL, a, s, false));
  CHECK(ca_array_nbytes(twice) == (int64_t)sizeof out);
  CHECK_ST(ca_array_compute_into(ctx, twice, out, sizeof out - 8, NULL), CA_EINVAL);
  CHECK_ST(ca_array_compute_into(ctx, twice, NULL, sizeof out, NULL), CA_EINVAL);
  for (i = 0; i < 35; ++i) out[i] = -1;
  CHECK_OK(ca_array_compute_into(ctx, twice, out, sizeof out, NULL));
  for (i = 0; i < 35; ++i) CHECK(out[i] == 3.0);
  CHECK_OK(ca_array_persist(&p, ctx, twice, NULL));
  CHECK(ca_array_ndim(p) == 2 && ca_array_shape(p)[0] == 5 && ca_array_shape(p)[1] == 7);
  CHECK(ca_array_numblocks(p)[0] == 3 && ca_array_numblocks(p)[1] == 3);
  CHECK(ca_array_dtype(p) == CA_FLOAT64);
  CHECK_OK(ca_array_graph(&pg, p));
  CHECK(ca_graph_num_tasks(pg) == 9);
  ca_graph_free(pg);
  ca_array_free(twice);
  ca_array_free(a);
  ca_chunkset_free(cs);
  CHECK_OK(ca_array_compute(&res, ctx, p, NULL));
  for (i = 0; i < 35; ++i) CHECK(((const double *)ca_block_data(res))[i] == 3.0);
  ca_block_free(res);
  ca_array_free(p);
  ca_context_free(ctx);
  return NULL;
}

const char *capi_case_array_ones_reduce_scalar(void) {
  ca_context_t *ctx = new_ctx(2);
  int64_t shape[2] = {10, 6};
  ca_chunkset_t *cs = NULL;
  ca_chunks_t ch;
  ca_array_t *a = NULL, *m = NULL, *r = NULL, *ai = NULL, *bi = NULL;
  ca_scalar_t s;
  ca_block_t *res = NULL;
  int32_t axis;
  double expect[60], acc;
  const double *d;
  int i, j;
  CHECK(ctx != NULL);
  CHECK_OK(ca_normalize_chunks_spec(&cs, ctx, "(3, 4)", 2, shape, CA_FLOAT64));
  ch = ca_chunkset_view(cs);
  CHECK_OK(ca_array_ones(&a, 2, shape, &ch, CA_FLOAT64));
  CHECK(ca_array_dtype(a) == CA_FLOAT64 && ca_array_size(a) == 60);
  memset(&s, 0, sizeof s);
  s.kind = CA_FLOAT64;
  s.re = 2.5;
  CHECK_OK(ca_array_binary_scalar(&m, CA_OP_MUL, a, s, false));
  CHECK_OK(ca_array_compute(&res, ctx, m, NULL));
  d = (const double *)ca_block_data(res);
  for (i = 0; i < 60; ++i) expect[i] = 1.0 * 2.5;
  for (i = 0; i < 60; ++i) CHECK(d[i] == expect[i]);
  ca_block_free(res);
  /* sum of everything */
  CHECK_OK(ca_array_reduce(&r, CA_RED_SUM, m, NULL, 0, false, NULL));
  CHECK(ca_array_ndim(r) == 0);
  CHECK_OK(ca_array_compute(&res, ctx, r, NULL));
  for (acc = 0, i = 0; i < 60; ++i) acc += expect[i];
  CHECK(ca_block_ndim(res) == 0);
  CHECK_NEAR(scalar_f64(res), acc);
  ca_block_free(res);
  ca_array_free(r);
  /* along axis 0 */
  axis = 0;
  CHECK_OK(ca_array_reduce(&r, CA_RED_SUM, m, &axis, 1, false, NULL));
  CHECK(ca_array_ndim(r) == 1 && ca_array_shape(r)[0] == 6);
  CHECK_OK(ca_array_compute(&res, ctx, r, NULL));
  d = (const double *)ca_block_data(res);
  for (j = 0; j < 6; ++j) {
    for (acc = 0, i = 0; i < 10; ++i) acc += expect[i * 6 + j];
    CHECK_NEAR(d[j], acc);
  }
  ca_block_free(res);
  ca_array_free(r);
  /* along axis -1 with keepdims */
  axis = -1;
  CHECK_OK(ca_array_reduce(&r, CA_RED_SUM, m, &axis, 1, true, NULL));
  CHECK(ca_array_ndim(r) == 2 && ca_array_shape(r)[0] == 10 && ca_array_shape(r)[1] == 1);
  CHECK_OK(ca_array_compute(&res, ctx, r, NULL));
  d = (const double *)ca_block_data(res);
  for (i = 0; i < 10; ++i) {
    for (acc = 0, j = 0; j < 6; ++j) acc += expect[i * 6 + j];
    CHECK_NEAR(d[i], acc);
  }
  ca_block_free(res);
  ca_array_free(r);
  /* bad axis */
  axis = 2;
  r = (ca_array_t *)SENTINEL;
  CHECK_ST(ca_array_reduce(&r, CA_RED_SUM, m, &axis, 1, false, NULL), CA_EINVAL);
  CHECK(r == NULL);
  /* scalar first: 1 - m */
  s.kind = CA_INT64;
  s.re = 1.0;
  s.i64 = 1;
  CHECK_OK(ca_array_binary_scalar(&r, CA_OP_SUB, m, s, true));
  CHECK_OK(ca_array_compute(&res, ctx, r, NULL));
  d = (const double *)ca_block_data(res);
  for (i = 0; i < 60; ++i) CHECK(d[i] == 1.0 - expect[i]);
  ca_block_free(res);
  ca_array_free(r);
  /* an int32 array plus a Python int stays int32 */
  CHECK_OK(ca_array_ones(&ai, 2, shape, &ch, CA_INT32));
  s.kind = CA_INT64;
  s.i64 = 3;
  s.re = 3.0;
  CHECK_OK(ca_array_binary_scalar(&bi, CA_OP_ADD, ai, s, false));
  CHECK(ca_array_dtype(bi) == CA_INT32);
  CHECK_OK(ca_array_compute(&res, ctx, bi, NULL));
  CHECK(ca_block_dtype(res) == CA_INT32);
  for (i = 0; i < 60; ++i) CHECK(((const int32_t *)ca_block_data(res))[i] == 4);
  ca_block_free(res);
  /* sum of an int32 array is int64 (NumPy) */
  CHECK_OK(ca_array_reduce(&r, CA_RED_SUM, bi, NULL, 0, false, NULL));
  CHECK(ca_array_dtype(r) == CA_INT64);
  CHECK_OK(ca_array_compute(&res, ctx, r, NULL));
  CHECK(*(const int64_t *)ca_block_data(res) == 240);
  ca_block_free(res);
  ca_array_free(r);
  ca_array_free(bi);
  ca_array_free(ai);
  ca_array_free(m);
  ca_array_free(a);
  ca_chunkset_free(cs);
  ca_context_free(ctx);
  return NULL;
}

/* identity(block): returns its input, retained (the "an input it retained" result path). */
static ca_status_t k_identity(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx,
                              void *user_data) {
  (void)user_data;
  if (nargs != 1 || args[0].kind != CA_ARG_BLOCK) {
    ca_kernel_set_error(kctx, "identity: expected one block");
    return CA_ETYPE;
  }
  *out = ca_block_retain(args[0].u.block);
  return CA_OK;
}

const char *capi_case_kernel_returns_input(void) {
  ca_context_t *ctx = new_ctx(2);
  ca_graph_t *g = NULL;
  ca_key_t keys[2];
  ca_block_t *res[2] = {NULL, NULL};
  CHECK(ctx != NULL);
  CHECK_OK(ca_context_register(ctx, "identity", k_identity, NULL));
  CHECK_OK(ca_graph_new(&g));
  CHECK_OK(add_fill(g, "x", 0, 6, 4.0));
  CHECK_OK(add_ref(g, "y", 0, "identity", "x", 0));
  CHECK_OK(add_ref(g, "z", 0, "identity", "y", 0));
  keys[0] = key1("z", 0);
  keys[1] = key1("y", 0);
  CHECK_OK(ca_compute(res, ctx, g, keys, 2, NULL));
  CHECK(ca_block_size(res[0]) == 6 && ((const double *)ca_block_data(res[0]))[5] == 4.0);
  CHECK(ca_block_size(res[1]) == 6);
  ca_block_free(res[0]);
  CHECK(((const double *)ca_block_data(res[1]))[0] == 4.0);
  ca_block_free(res[1]);
  ca_graph_free(g);
  ca_context_free(ctx);
  return NULL;
}

const char *capi_case_array_errors(void) {
  ca_context_t *ctx = new_ctx(0);
  int64_t shape[2] = {4, 6}, nb[2] = {2, 2}, sizes[4] = {2, 2, 3, 3}, badsizes[4] = {2, 1, 3, 3};
  ca_chunks_t ch, bad;
  ca_array_t *a = NULL, *r = (ca_array_t *)SENTINEL;
  ca_scalar_t s;
  double buf[24];
  char *text = NULL;
  CHECK(ctx != NULL);
  memset(buf, 0, sizeof buf);
  ch.ndim = 2;
  ch.numblocks = nb;
  ch.sizes = sizes;
  bad = ch;
  bad.sizes = badsizes;
  /* chunks that do not add up to the shape */
  CHECK(ca_array_ones(&r, 2, shape, &bad, CA_FLOAT64) != CA_OK);
  CHECK(r == NULL);
  CHECK_MSG_HAS("axis 0");
  r = (ca_array_t *)SENTINEL;
  CHECK(ca_array_from_buffer(&r, buf, CA_FLOAT64, 2, shape, &bad, NULL) != CA_OK);
  CHECK(r == NULL);
  /* chunks of another ndim */
  r = (ca_array_t *)SENTINEL;
  CHECK(ca_array_ones(&r, 1, shape, &ch, CA_FLOAT64) != CA_OK);
  CHECK(r == NULL);
  /* bad dtype */
  r = (ca_array_t *)SENTINEL;
  CHECK_ST(ca_array_ones(&r, 2, shape, &ch, 99), CA_ETYPE);
  CHECK(r == NULL);
  CHECK_OK(ca_array_ones(&a, 2, shape, &ch, CA_FLOAT64));
  /* unknown operators */
  memset(&s, 0, sizeof s);
  s.kind = CA_FLOAT64;
  s.re = 1;
  r = (ca_array_t *)SENTINEL;
  CHECK_ST(ca_array_binary_scalar(&r, 999, a, s, false), CA_EINVAL);
  CHECK(r == NULL);
  r = (ca_array_t *)SENTINEL;
  CHECK_ST(ca_array_reduce(&r, 999, a, NULL, 0, false, NULL), CA_EINVAL);
  CHECK(r == NULL);
  /* a scalar of a kind that is not a Python type */
  s.kind = CA_INT8;
  r = (ca_array_t *)SENTINEL;
  CHECK(ca_array_binary_scalar(&r, CA_OP_ADD, a, s, false) != CA_OK);
  CHECK(r == NULL);
  /* pictures */
  CHECK_OK(ca_array_to_svg(&text, a, 0));
  CHECK(text != NULL && strstr(text, "<svg") != NULL);
  ca_string_free(text);
  text = NULL;
  {
    ca_graph_t *g = NULL;
    CHECK_OK(ca_array_graph(&g, a));
    CHECK_OK(ca_graph_to_dot(&text, g, NULL, 0));
    CHECK(text != NULL && strstr(text, "digraph") != NULL);
    ca_string_free(text);
    ca_graph_free(g);
  }
  ca_array_free(a);
  ca_context_free(ctx);
  return NULL;
}

const char *capi_case_array_compute_many(void) {
  ca_context_t *ctx = new_ctx(2);
  int64_t shape = 7, nb = 3, sizes[3] = {3, 3, 1};
  ca_chunks_t ch;
  ca_array_t *a = NULL, *b = NULL, *s = NULL;
  const ca_array_t *arrs[3];
  ca_block_t *res[3] = {NULL, NULL, NULL};
  ca_scalar_t sc;
  int i;
  CHECK(ctx != NULL);
  ch.ndim = 1;
  ch.numblocks = &nb;
  ch.sizes = sizes;
  CHECK_OK(ca_array_ones(&a, 1, &shape, &ch, CA_FLOAT64));
  memset(&sc, 0, sizeof sc);
  sc.kind = CA_FLOAT64;
  sc.re = 0.5;
  CHECK_OK(ca_array_binary_scalar(&b, CA_OP_ADD, a, sc, false));
  CHECK_OK(ca_array_reduce(&s, CA_RED_SUM, b, NULL, 0, false, NULL));
  arrs[0] = a;
  arrs[1] = b;
  arrs[2] = s;
  CHECK_OK(ca_array_compute_many(res, ctx, arrs, 3, NULL));
  for (i = 0; i < 7; ++i) {
    CHECK(((const double *)ca_block_data(res[0]))[i] == 1.0);
    CHECK(((const double *)ca_block_data(res[1]))[i] == 1.5);
  }
  CHECK_NEAR(scalar_f64(res[2]), 10.5);
  for (i = 0; i < 3; ++i) ca_block_free(res[i]);
  ca_array_free(s);
  ca_array_free(b);
  ca_array_free(a);
  ca_context_free(ctx);
  return NULL;
}

/* Error messages are per OS thread; computes may run concurrently on one context. */
struct thread_job {
  ca_context_t *ctx;
  const ca_graph_t *g;
  ca_key_t key;
  double expect;
  int failures;
  char message[256];
};

static void *thread_fail_then_read(void *p) {
  struct thread_job *job = (struct thread_job *)p;
  ca_dtype_t d;
  if (ca_dtype_from_name(&d, "thread-only-name") != CA_ETYPE) job->failures++;
  snprintf(job->message, sizeof job->message, "%s", ca_last_error_message());
  return NULL;
}

static void *thread_compute(void *p) {
  struct thread_job *job = (struct thread_job *)p;
  int round;
  for (round = 0; round < 20; ++round) {
    ca_block_t *res = NULL;
    if (ca_compute(&res, job->ctx, job->g, &job->key, 1, NULL) != CA_OK) {
      job->failures++;
      snprintf(job->message, sizeof job->message, "%s", ca_last_error_message());
      continue;
    }
    if (fabs(scalar_f64(res) - job->expect) > 1e-9) job->failures++;
    ca_block_free(res);
  }
  return NULL;
}

const char *capi_case_threads(void) {
  ca_context_t *ctx = new_ctx(2);
  ca_graph_t *g = NULL;
  struct thread_job jobs[3];
  pthread_t th[3];
  ca_arg_t refs[8], list;
  ca_key_t key = key1("sum", 0);
  ca_dtype_t d;
  int i;
  CHECK(ctx != NULL);
  /* thread-local errors */
  CHECK_ST(ca_dtype_from_name(&d, "main-thread-name"), CA_ETYPE);
  memset(jobs, 0, sizeof jobs);
  CHECK(pthread_create(&th[0], NULL, thread_fail_then_read, &jobs[0]) == 0);
  CHECK(pthread_join(th[0], NULL) == 0);
  CHECK(jobs[0].failures == 0);
  CHECK(strstr(jobs[0].message, "thread-only-name") != NULL);
  CHECK_MSG_HAS("main-thread-name");
  CHECK(ca_last_error_code() == CA_ETYPE);
  /* three threads computing one graph on one context */
  CHECK_OK(ca_graph_new(&g));
  for (i = 0; i < 8; ++i) {
    CHECK_OK(add_fill(g, "x", i, 50, 1.0 + i));
    refs[i] = ca_arg_key("x", &IDX[i], 1);
  }
  list = ca_arg_list(refs, 8);
  CHECK_OK(ca_graph_add_task(g, &key, "total", &list, 1));
  for (i = 0; i < 3; ++i) {
    jobs[i].ctx = ctx;
    jobs[i].g = g;
    jobs[i].key = key;
    jobs[i].expect = 50.0 * 36;
    jobs[i].failures = 0;
    jobs[i].message[0] = 0;
    CHECK(pthread_create(&th[i], NULL, thread_compute, &jobs[i]) == 0);
  }
  for (i = 0; i < 3; ++i) CHECK(pthread_join(th[i], NULL) == 0);
  for (i = 0; i < 3; ++i) {
    if (jobs[i].failures) {
      snprintf(g_msg, sizeof g_msg, "concurrent compute thread %d: %d failures (%s)", i, jobs[i].failures,
               jobs[i].message);
      return g_msg;
    }
  }
  ca_graph_free(g);
  ca_context_free(ctx);
  return NULL;
}

/* ------------------------------------------------------------------------------------------------ */
/* Known library bugs: registered with should_fail, so a fix shows up as an unexpected pass.          */
/* ------------------------------------------------------------------------------------------------ */

/* capi/capi_kernel.cpp ca_kernel_new / ca_kernel_new_ffi: the early NULL-argument return leaves *out
 * unset, although failures must set *out to NULL (CONVENTIONS.md). */
const char *capi_known_bug_kernel_new_out_on_null_name(void) {
  ca_kernel_t *k = (ca_kernel_t *)SENTINEL;
  CHECK_ST(ca_kernel_new(&k, NULL, k_fill, NULL), CA_EINVAL);
  CHECK(k == NULL);
  k = (ca_kernel_t *)SENTINEL;
  CHECK_ST(ca_kernel_new_ffi(&k, NULL, (void (*)(void))ffi_mul, "f64(f64,i64)", NULL), CA_EINVAL);
  CHECK(k == NULL);
  k = (ca_kernel_t *)SENTINEL;
  CHECK_ST(ca_kernel_new_ffi(&k, "f", NULL, "f64(f64,i64)", NULL), CA_EINVAL);
  CHECK(k == NULL);
  k = (ca_kernel_t *)SENTINEL;
  CHECK_ST(ca_kernel_new_ffi(&k, "f", (void (*)(void))ffi_mul, NULL, NULL), CA_EINVAL);
  CHECK(k == NULL);
  return NULL;
}

/* src/array/array.cpp parse_chunks_spec: "(2, 3, 4), -1" (an example in array.h) is read as an outer
 * tuple "(2, 3, 4)" because ndim > 1, then ", -1" is "unexpected text". */
const char *capi_known_bug_chunks_str_tuple_then_whole(void) {
  int64_t s2[2] = {9, 10};
  ca_chunkset_t *cs = NULL;
  CHECK_OK(ca_normalize_chunks_spec(&cs, NULL, "(2, 3, 4), -1", 2, s2, CA_FLOAT64));
  CHECK_SIZES(cs, 0, 2, 3, 4);
  CHECK_SIZES(cs, 1, 10);
  ca_chunkset_free(cs);
  return NULL;
}

/* Typed scalars (CA_SCALAR_TYPED, issue 14): a scalar of any dtype promotes as an array of that dtype
 * (NEP 50), a Python int in [2**63, 2**64) is kind CA_UINT64, and bad kinds/flags/values fail. */
const char *capi_case_typed_scalar_operands(void) {
  ca_context_t *ctx = new_ctx(1);
  int64_t shape[1] = {3};
  const uint8_t u8[3] = {1, 2, 255};
  const uint64_t u64[3] = {1, 2, 3};
  ca_array_t *a = NULL, *b = NULL, *r = NULL;
  ca_scalar_t s;
  ca_block_t *res = NULL;
  const int64_t nb[1] = {2}, sizes[2] = {2, 1};
  ca_chunks_t ch;
  int i;
  ch.ndim = 1;
  ch.numblocks = nb;
  ch.sizes = sizes;
  CHECK(ctx != NULL);
  CHECK_OK(ca_array_from_buffer(&a, u8, CA_UINT8, 1, shape, &ch, NULL));
  /* uint8 + float32(1.5) is float32 (a Python float keeps the array's kind rule: float64) */
  memset(&s, 0, sizeof s);
  s.kind = CA_FLOAT32;
  s.flags = CA_SCALAR_TYPED;
  s.re = 1.5;
  CHECK_OK(ca_array_binary_scalar(&r, CA_OP_ADD, a, s, false));
  CHECK(ca_array_dtype(r) == CA_FLOAT32);
  CHECK_OK(ca_array_compute(&res, ctx, r, NULL));
  for (i = 0; i < 3; ++i) CHECK(((const float *)ca_block_data(res))[i] == (float)u8[i] + 1.5f);
  ca_block_free(res);
  ca_array_free(r);
  /* uint8 + int16(1000) scalar first: int16 */
  s.kind = CA_INT16;
  s.i64 = 1000;
  s.re = 1000;
  CHECK_OK(ca_array_binary_scalar(&r, CA_OP_SUB, a, s, true));
  CHECK(ca_array_dtype(r) == CA_INT16);
  CHECK_OK(ca_array_compute(&res, ctx, r, NULL));
  for (i = 0; i < 3; ++i) CHECK(((const int16_t *)ca_block_data(res))[i] == 1000 - u8[i]);
  ca_block_free(res);
  ca_array_free(r);
  /* a typed value outside its dtype, unknown flags, a non-numeric kind: errors */
  s.kind = CA_INT8;
  s.i64 = 300;
  r = (ca_array_t *)SENTINEL;
  CHECK_ST(ca_array_binary_scalar(&r, CA_OP_ADD, a, s, false), CA_EINVAL);
  CHECK(r == NULL);
  s.i64 = 1;
  s.flags = 6;
  CHECK_ST(ca_array_binary_scalar(&r, CA_OP_ADD, a, s, false), CA_EINVAL);
  s.flags = CA_SCALAR_TYPED;
  s.kind = CA_RAW;
  CHECK_ST(ca_array_binary_scalar(&r, CA_OP_ADD, a, s, false), CA_ETYPE);
  /* a Python int 2**64 - 1 (kind CA_UINT64, no flag) with a uint64 array: uint64, exact */
  CHECK_OK(ca_array_from_buffer(&b, u64, CA_UINT64, 1, shape, &ch, NULL));
  memset(&s, 0, sizeof s);
  s.kind = CA_UINT64;
  s.i64 = -1; /* the bits of 2**64 - 1 */
  s.re = 18446744073709551615.0;
  CHECK_OK(ca_array_binary_scalar(&r, CA_OP_ADD, b, s, false));
  CHECK(ca_array_dtype(r) == CA_UINT64);
  CHECK_OK(ca_array_compute(&res, ctx, r, NULL));
  for (i = 0; i < 3; ++i) CHECK(((const uint64_t *)ca_block_data(res))[i] == u64[i] - 1u);
  ca_block_free(res);
  ca_array_free(r);
  /* ... but below 2**63 it must be CA_INT64 */
  s.i64 = 5;
  CHECK_ST(ca_array_binary_scalar(&r, CA_OP_ADD, b, s, false), CA_EINVAL);
  ca_array_free(b);
  ca_array_free(a);
  ca_context_free(ctx);
  return NULL;
}

/* Every code set is a 32-bit enum (CA_ENUM32, common.h): checked at compile time in C99. */
#define CA_ASSERT_32(t) typedef char assert_##t##_is_32_bits[sizeof(t) == 4 && sizeof(t) == sizeof(int32_t) ? 1 : -1]
CA_ASSERT_32(ca_op_t);
CA_ASSERT_32(ca_reduction_t);
CA_ASSERT_32(ca_scan_t);
CA_ASSERT_32(ca_dtype_kind_t);
CA_ASSERT_32(ca_time_unit_t);
CA_ASSERT_32(ca_random_t);
CA_ASSERT_32(ca_arg_kind_t);
CA_ASSERT_32(ca_boundary_kind_t);
CA_ASSERT_32(ca_index_kind_t);
CA_ASSERT_32(ca_index_mode_t);
CA_ASSERT_32(ca_pad_mode_t);
CA_ASSERT_32(ca_layer_kind_t);
#undef CA_ASSERT_32

/* The typed code enums (issue 15): values pinned, unknown codes a C caller passes are rejected with
 * CA_EINVAL; the _spec calls and their deprecated _str aliases (docs/abi.md) give the same result. */
const char *capi_case_code_enums_and_spec_aliases(void) {
  ca_context_t *ctx = new_ctx(1);
  int64_t shape[2] = {6, 4};
  double buf[24];
  ca_array_t *a = NULL, *r = NULL, *r2 = NULL;
  ca_chunkset_t *cs = NULL, *cs2 = NULL;
  ca_dtype_t dt = CA_DTYPE_INVALID;
  ca_boundary_t bd = ca_boundary(CA_BOUNDARY_NEAREST);
  const int64_t *s1, *s2;
  const int64_t nb[2] = {2, 1}, sizes[3] = {3, 3, 4};
  ca_chunks_t ch;
  int64_t n1 = 0, n2 = 0, k;
  int i;
  CHECK(ctx != NULL);
  /* pinned values the bindings rely on */
  CHECK(CA_OP_ADD == 1 && CA_OP_NEG == 40 && CA_RED_SUM == 1 && CA_SCAN_CUMPROD == 2);
  CHECK(CA_FLOAT64 == 11 && CA_UNICODE == 19 && CA_UNIT_NS == 10 && CA_ARG_INDEXED == 10);
  CHECK(CA_BOUNDARY_CONSTANT == 4 && CA_IDX_INDEX_ARRAY == 7 && CA_LAYER_OVERLAP == 3 && CA_PAD_REFLECT == 2);
  CHECK(CA_LAYER_INDEX_MAP == 4);
  CHECK(CA_INDEX_OUTER == 2 && CA_RANDOM_INTEGERS == 2 && CA_OP__FORCE32 == 0x7fffffff);
  CHECK(bd.kind == CA_BOUNDARY_NEAREST);
  CHECK_OK(ca_dtype_make(&dt, CA_DATETIME64, CA_UNIT_NS));
  CHECK(dt == CA_DTYPE_MAKE(CA_DATETIME64, CA_UNIT_NS) && ca_dtype_kind(dt) == CA_DATETIME64);
  CHECK_ST(ca_dtype_make(&dt, (ca_dtype_kind_t)77, 0), CA_ETYPE);
  for (i = 0; i < 24; ++i) buf[i] = i;
  ch.ndim = 2;
  ch.numblocks = nb;
  ch.sizes = sizes;
  CHECK_OK(ca_array_from_buffer(&a, buf, CA_FLOAT64, 2, shape, &ch, NULL));
  /* unknown codes, also negative ones, are a clear error */
  r = (ca_array_t *)SENTINEL;
  CHECK_ST(ca_array_unary(&r, (ca_op_t)-1, a), CA_EINVAL);
  CHECK(r == NULL);
  CHECK_ST(ca_array_unary(&r, (ca_op_t)100000, a), CA_EINVAL);
  CHECK_ST(ca_array_binary(&r, (ca_op_t)-5, a, a), CA_EINVAL);
  CHECK_ST(ca_array_reduce(&r, (ca_reduction_t)-1, a, NULL, 0, 0, NULL), CA_EINVAL);
  CHECK_ST(ca_array_reduce(&r, (ca_reduction_t)0x7ffffffe, a, NULL, 0, 0, NULL), CA_EINVAL);
  CHECK_ST(ca_array_scan(&r, (ca_scan_t)-3, a, 0, NULL), CA_EINVAL);
  CHECK(r == NULL);
  /* the deprecated names are the new calls */
  CHECK_OK(ca_normalize_chunks_spec(&cs, ctx, "(4, 2), -1", 2, shape, CA_FLOAT64));
  CHECK_OK(ca_normalize_chunks_str(&cs2, ctx, "(4, 2), -1", 2, shape, CA_FLOAT64));
  for (i = 0; i < 2; ++i) {
    s1 = ca_chunkset_sizes(cs, i, &n1);
    s2 = ca_chunkset_sizes(cs2, i, &n2);
    CHECK(s1 && s2 && n1 == n2);
    for (k = 0; k < n1; ++k) CHECK(s1[k] == s2[k]);
  }
  CHECK(n1 == 1 && ca_chunkset_sizes(cs, 0, &n1)[1] == 2);
  ca_chunkset_free(cs);
  ca_chunkset_free(cs2);
  CHECK_ST(ca_normalize_chunks_str(&cs, ctx, "((4, 3), -1)", 2, shape, CA_FLOAT64), CA_EINVAL);
  CHECK_MSG_HAS("axis 0");
  CHECK_OK(ca_array_rechunk_spec(&r, ctx, a, "{0: 3}"));
  CHECK_OK(ca_array_rechunk_str(&r2, ctx, a, "{0: 3}"));
  for (i = 0; i < 2; ++i) {
    s1 = ca_array_chunks(r, i, &n1);
    s2 = ca_array_chunks(r2, i, &n2);
    CHECK(s1 && s2 && n1 == n2);
    for (k = 0; k < n1; ++k) CHECK(s1[k] == s2[k]);
  }
  CHECK(ca_array_chunks(r, 0, &n1)[0] == 3 && n1 == 2);
  ca_array_free(r2);
  ca_array_free(r);
  r = (ca_array_t *)SENTINEL;
  CHECK_ST(ca_array_rechunk_str(&r, ctx, a, "{7: 3}"), CA_EINVAL);
  CHECK(r == NULL);
  /* ca_graph_kernels (format.h) is ca_graph_kernel_names (graph.h); messages name the one called */
  {
    ca_graph_t *g = NULL;
    ca_keylist_t *l1 = NULL, *l2 = NULL;
    ca_key_t k1, k2;
    size_t j;
    CHECK_OK(ca_array_unary(&r, CA_OP_SQRT, a));
    CHECK_OK(ca_array_graph(&g, r));
    CHECK_OK(ca_graph_kernel_names(&l1, g));
    CHECK_OK(ca_graph_kernels(&l2, g));
    CHECK(ca_keylist_size(l1) >= 2 && ca_keylist_size(l1) == ca_keylist_size(l2));
    for (j = 0; j < ca_keylist_size(l1); ++j) {
      CHECK_OK(ca_keylist_get(l1, j, &k1));
      CHECK_OK(ca_keylist_get(l2, j, &k2));
      CHECK(strcmp(k1.name, k2.name) == 0 && k1.nindex == 0 && k2.nindex == 0);
      if (j) CHECK_OK(ca_keylist_get(l1, j - 1, &k2));
      if (j) CHECK(strcmp(k2.name, k1.name) < 0); /* sorted, no repeats */
    }
    CHECK_ST(ca_graph_kernels(NULL, g), CA_EINVAL);
    CHECK_MSG_HAS("ca_graph_kernels: out is NULL");
    ca_keylist_free(l1);
    ca_keylist_free(l2);
    ca_graph_free(g);
    ca_array_free(r);
  }
  ca_array_free(a);
  ca_context_free(ctx);
  return NULL;
}
