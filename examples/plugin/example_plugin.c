/* An example kernel plugin (see chunkarray/plugin.h): three float64 kernels a saved graph can use.
 *
 *   example.affine(block, a, b)   a * x + b
 *   example.clamp(block, lo, hi)  min(max(x, lo), hi)
 *   example.hypot(block, block)   sqrt(x * x + y * y), same shapes
 *
 * Build it as a shared object linked against libchunkarray.so; load it with ca_plugin_load() or
 * `chunkarray run --plugin libexample_plugin.so FILE`. */
#include <chunkarray/chunkarray.h>
#include <chunkarray/plugin.h>

#include <math.h>
#include <string.h>

static ca_status_t need(ca_kernel_ctx_t *kctx, int ok, const char *msg) {
  if (ok) return CA_OK;
  ca_kernel_set_error(kctx, msg);
  return CA_EINVAL;
}

static double num(const ca_arg_t *a) { return a->kind == CA_ARG_INT64 ? (double)a->u.i64 : a->u.f64; }
static int is_num(const ca_arg_t *a) { return a->kind == CA_ARG_INT64 || a->kind == CA_ARG_FLOAT64; }

static ca_status_t new_like(ca_block_t **out, const ca_block_t *in) {
  return ca_block_new(out, CA_FLOAT64, ca_block_ndim(in), ca_block_shape(in));
}

static ca_status_t affine(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *ud) {
  const ca_block_t *in;
  const double *x;
  double *y, a, b;
  int64_t i, n;
  ca_status_t st;
  (void)ud;
  st = need(kctx, nargs == 3 && args[0].kind == CA_ARG_BLOCK && is_num(&args[1]) && is_num(&args[2]),
            "example.affine wants (block, a, b)");
  if (st) return st;
  in = args[0].u.block;
  st = need(kctx, ca_block_dtype(in) == CA_FLOAT64, "example.affine wants a float64 block");
  if (st) return st;
  if ((st = new_like(out, in)) != CA_OK) return st;
  x = (const double *)ca_block_data(in);
  y = (double *)ca_block_data(*out);
  a = num(&args[1]);
  b = num(&args[2]);
  n = ca_block_size(in);
  for (i = 0; i < n; ++i) y[i] = a * x[i] + b;
  return CA_OK;
}

static ca_status_t clamp(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *ud) {
  const ca_block_t *in;
  const double *x;
  double *y, lo, hi;
  int64_t i, n;
  ca_status_t st;
  (void)ud;
  st = need(kctx, nargs == 3 && args[0].kind == CA_ARG_BLOCK && is_num(&args[1]) && is_num(&args[2]),
            "example.clamp wants (block, lo, hi)");
  if (st) return st;
  in = args[0].u.block;
  st = need(kctx, ca_block_dtype(in) == CA_FLOAT64, "example.clamp wants a float64 block");
  if (st) return st;
  if ((st = new_like(out, in)) != CA_OK) return st;
  x = (const double *)ca_block_data(in);
  y = (double *)ca_block_data(*out);
  lo = num(&args[1]);
  hi = num(&args[2]);
  n = ca_block_size(in);
  for (i = 0; i < n; ++i) y[i] = x[i] < lo ? lo : x[i] > hi ? hi : x[i];
  return CA_OK;
}

static ca_status_t hypot2(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *ud) {
  const ca_block_t *a, *b;
  const double *x, *z;
  double *y;
  int64_t i, n;
  ca_status_t st;
  (void)ud;
  st = need(kctx, nargs == 2 && args[0].kind == CA_ARG_BLOCK && args[1].kind == CA_ARG_BLOCK,
            "example.hypot wants (block, block)");
  if (st) return st;
  a = args[0].u.block;
  b = args[1].u.block;
  st = need(kctx,
            ca_block_dtype(a) == CA_FLOAT64 && ca_block_dtype(b) == CA_FLOAT64 && ca_block_size(a) == ca_block_size(b),
            "example.hypot wants two float64 blocks of one shape");
  if (st) return st;
  if ((st = new_like(out, a)) != CA_OK) return st;
  x = (const double *)ca_block_data(a);
  z = (const double *)ca_block_data(b);
  y = (double *)ca_block_data(*out);
  n = ca_block_size(a);
  for (i = 0; i < n; ++i) y[i] = sqrt(x[i] * x[i] + z[i] * z[i]);
  return CA_OK;
}

CA_PLUGIN_DECLARE_ABI;

CA_PLUGIN_EXPORT ca_status_t ca_plugin_init(ca_context_t *ctx, int32_t abi_version) {
  ca_status_t st;
  if (abi_version != CA_PLUGIN_ABI_VERSION) return CA_EVERSION;
  if ((st = ca_context_register(ctx, "example.affine", affine, NULL)) != CA_OK) return st;
  if ((st = ca_context_register(ctx, "example.clamp", clamp, NULL)) != CA_OK) return st;
  return ca_context_register(ctx, "example.hypot", hypot2, NULL);
}
