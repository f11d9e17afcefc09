/* A host that links nothing of chunkarray: it dlopens libchunkarray.so with RTLD_LOCAL, looks up
 * what it needs with dlsym, then builds a graph (materialized + blockwise layers over its own
 * kernels), saves it to a buffer and a file, loads both back and computes the result.
 *   usage: dlopen_host PATH/libchunkarray.so TMPDIR */
#define _POSIX_C_SOURCE 200809L
#include <chunkarray/chunkarray.h> /* types and constants only: no symbol of it is linked */

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static struct {
  const char *(*last_error)(void);
  ca_status_t (*context_new)(ca_context_t **, const ca_context_options_t *);
  void (*context_free)(ca_context_t *);
  ca_status_t (*context_register)(ca_context_t *, const char *, ca_kernel_fn, const ca_kernel_options_t *);
  ca_status_t (*graph_new)(ca_graph_t **);
  void (*graph_free)(ca_graph_t *);
  ca_status_t (*add_task)(ca_graph_t *, const ca_key_t *, const char *, const ca_arg_t *, size_t);
  ca_status_t (*add_blockwise)(ca_graph_t *, const char *, const char *, const char *, const ca_arg_t *, size_t,
                               const ca_blockwise_options_t *);
  ca_status_t (*save_buffer)(const ca_graph_t *, void **, size_t *);
  ca_status_t (*load_buffer)(ca_graph_t **, const void *, size_t);
  void (*buffer_free)(void *);
  ca_status_t (*save)(const ca_graph_t *, const char *);
  ca_status_t (*load)(ca_graph_t **, const char *);
  __typeof__(ca_compute) *compute; /* the header's own type: a signature change cannot drift here */
  ca_status_t (*block_new)(ca_block_t **, ca_dtype_t, int32_t, const int64_t *);
  void *(*block_data)(const ca_block_t *);
  int64_t (*block_size)(const ca_block_t *);
  void (*block_free)(const ca_block_t *);
} api;

/* host.fill(n, v): n float64 values v */
static ca_status_t k_fill(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *ud) {
  int64_t n, i;
  double *d;
  (void)kctx, (void)ud;
  if (nargs != 2) return CA_EINVAL;
  n = args[0].u.i64;
  if (api.block_new(out, CA_FLOAT64, 1, &n) != CA_OK) return CA_ENOMEM;
  d = (double *)api.block_data(*out);
  for (i = 0; i < n; ++i) d[i] = args[1].u.f64;
  return CA_OK;
}

/* host.twice(block) */
static ca_status_t k_twice(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *ud) {
  int64_t n, i;
  const double *s;
  double *d;
  (void)kctx, (void)ud;
  if (nargs != 1 || args[0].kind != CA_ARG_BLOCK) return CA_EINVAL;
  n = api.block_size(args[0].u.block);
  if (api.block_new(out, CA_FLOAT64, 1, &n) != CA_OK) return CA_ENOMEM;
  s = (const double *)api.block_data(args[0].u.block);
  d = (double *)api.block_data(*out);
  for (i = 0; i < n; ++i) d[i] = 2 * s[i];
  return CA_OK;
}

/* host.sum([blocks...]): 0-d total */
static ca_status_t k_sum(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *ud) {
  double t = 0;
  size_t j;
  int64_t i;
  (void)kctx, (void)ud;
  if (nargs != 1 || args[0].kind != CA_ARG_LIST) return CA_EINVAL;
  for (j = 0; j < args[0].u.list.len; ++j) {
    const ca_block_t *b = args[0].u.list.items[j].u.block;
    const double *d = (const double *)api.block_data(b);
    for (i = 0; i < api.block_size(b); ++i) t += d[i];
  }
  if (api.block_new(out, CA_FLOAT64, 0, NULL) != CA_OK) return CA_ENOMEM;
  *(double *)api.block_data(*out) = t;
  return CA_OK;
}

#define SYM(field, name)                                                  \
  do {                                                                    \
    void *p_ = dlsym(lib, name);                                          \
    if (!p_) {                                                            \
      fprintf(stderr, "dlopen_host: no symbol %s: %s\n", name, dlerror()); \
      return 1;                                                           \
    }                                                                     \
    memcpy(&api.field, &p_, sizeof p_);                                   \
  } while (0)

#define CHECK(x)                                                                     \
  do {                                                                               \
    if ((x) != CA_OK) {                                                              \
      fprintf(stderr, "dlopen_host: %s failed: %s\n", #x, api.last_error());         \
      return 1;                                                                      \
    }                                                                                \
  } while (0)

static int compute_total(ca_context_t *ctx, const ca_graph_t *g, double *total) {
  ca_key_t key = {"total", NULL, 0};
  ca_block_t *res = NULL;
  CHECK(api.compute(&res, ctx, g, &key, 1, NULL));
  *total = *(const double *)api.block_data(res);
  api.block_free(res);
  return 0;
}

int main(int argc, char **argv) {
  void *lib, *buf = NULL;
  size_t size = 0;
  ca_context_t *ctx = NULL;
  ca_graph_t *g = NULL, *h = NULL, *f = NULL;
  int64_t i, idx[4] = {0, 1, 2, 3};
  ca_arg_t refs[4], list, bw;
  double want = 0, got = 0;
  char path[4096];
  if (argc != 3) {
    fprintf(stderr, "usage: dlopen_host LIBCHUNKARRAY TMPDIR\n");
    return 2;
  }
  lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "dlopen_host: %s\n", dlerror());
    return 1;
  }
  SYM(last_error, "ca_last_error_message");
  SYM(context_new, "ca_context_new");
  SYM(context_free, "ca_context_free");
  SYM(context_register, "ca_context_register");
  SYM(graph_new, "ca_graph_new");
  SYM(graph_free, "ca_graph_free");
  SYM(add_task, "ca_graph_add_task");
  SYM(add_blockwise, "ca_graph_add_blockwise");
  SYM(save_buffer, "ca_graph_save_buffer");
  SYM(load_buffer, "ca_graph_load_buffer");
  SYM(buffer_free, "ca_buffer_free");
  SYM(save, "ca_graph_save");
  SYM(load, "ca_graph_load");
  SYM(compute, "ca_compute");
  SYM(block_new, "ca_block_new");
  SYM(block_data, "ca_block_data");
  SYM(block_size, "ca_block_size");
  SYM(block_free, "ca_block_free");

  CHECK(api.context_new(&ctx, NULL));
  CHECK(api.context_register(ctx, "host.fill", k_fill, NULL));
  CHECK(api.context_register(ctx, "host.twice", k_twice, NULL));
  CHECK(api.context_register(ctx, "host.sum", k_sum, NULL));
  CHECK(api.graph_new(&g));
  for (i = 0; i < 4; ++i) {
    ca_key_t k = {"a", &idx[i], 1};
    ca_arg_t a[2];
    a[0] = ca_arg_i64(i + 1);
    a[1] = ca_arg_f64(0.5 * (double)i);
    CHECK(api.add_task(g, &k, "host.fill", a, 2));
    want += 2 * (double)(i + 1) * 0.5 * (double)i;
    refs[i] = ca_arg_key("b", &idx[i], 1);
  }
  bw = ca_arg_indexed("a", "i");
  CHECK(api.add_blockwise(g, "b", "i", "host.twice", &bw, 1, NULL));
  list = ca_arg_list(refs, 4);
  {
    ca_key_t total = {"total", NULL, 0};
    CHECK(api.add_task(g, &total, "host.sum", &list, 1));
  }
  /* buffer round trip, then the original graph is gone */
  CHECK(api.save_buffer(g, &buf, &size));
  snprintf(path, sizeof path, "%s/dlopen_host.cagraph", argv[2]);
  CHECK(api.save(g, path));
  api.graph_free(g);
  CHECK(api.load_buffer(&h, buf, size));
  api.buffer_free(buf);
  if (compute_total(ctx, h, &got)) return 1;
  if (got != want) {
    fprintf(stderr, "dlopen_host: buffer graph computed %g, want %g\n", got, want);
    return 1;
  }
  CHECK(api.load(&f, path));
  if (compute_total(ctx, f, &got)) return 1;
  if (got != want) {
    fprintf(stderr, "dlopen_host: file graph computed %g, want %g\n", got, want);
    return 1;
  }
  api.graph_free(h);
  api.graph_free(f);
  api.context_free(ctx);
  remove(path);
  printf("dlopen_host: total %g (ok)\n", got);
  return 0;
}
