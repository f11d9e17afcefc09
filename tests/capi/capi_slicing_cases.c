/*
 * C99 cases for chunkarray/slicing.h over the public API only (the INIT macros, index structs,
 * unknown chunk sizes). Each case returns NULL on success or a static message. Expected values come
 * from plain loops over the same data.
 */
#include <chunkarray/chunkarray.h>

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "capi_slicing_cases.h"

#define CHECK(cond, msg) \
  do {                   \
    if (!(cond)) {       \
      failure = (msg);   \
      goto done;         \
    }                    \
  } while (0)

/* x = arange(20.0).reshape(4, 5), chunks ((2, 2), (3, 2)) */
static ca_array_t *make_x(void) {
  static double data[20];
  int64_t shape[2] = {4, 5}, nb[2] = {2, 2}, sizes[4] = {2, 2, 3, 2};
  ca_chunks_t ch;
  ca_array_t *x = NULL;
  int i;
  for (i = 0; i < 20; ++i) data[i] = (double)i;
  ch.ndim = 2;
  ch.numblocks = nb;
  ch.sizes = sizes;
  if (ca_array_from_buffer(&x, data, CA_FLOAT64, 2, shape, &ch, NULL) != CA_OK) return NULL;
  return x;
}

static int values_equal(ca_context_t *ctx, const ca_array_t *a, const double *want, int64_t n) {
  ca_block_t *b = NULL;
  int ok;
  if (ca_array_compute(&b, ctx, a, NULL) != CA_OK) return 0;
  ok = ca_block_size(b) == n && (n == 0 || memcmp(ca_block_data(b), want, (size_t)n * sizeof(double)) == 0);
  ca_block_free(b);
  return ok;
}

const char *capi_slicing_case_basic(void) {
  const char *failure = NULL;
  ca_context_t *ctx = NULL;
  ca_array_t *x = make_x(), *r = NULL;
  ca_index_t idx[3] = {CA_INDEX_SLICE_INIT, CA_INDEX_SLICE_INIT, CA_INDEX_NEWAXIS_INIT};
  ca_index_t pt[2] = {CA_INDEX_INT_INIT(-1), CA_INDEX_INT_INIT(2)};
  ca_index_t ell[2] = {CA_INDEX_ELLIPSIS_INIT, CA_INDEX_INT_INIT(0)};
  double want[20];
  int64_t n = 0, i, j;
  const int64_t *shape;
  CHECK(x != NULL, "make_x failed");
  CHECK(ca_context_new(&ctx, NULL) == CA_OK, "context");
  /* x[1:, ::-2, None] */
  idx[0].slice.start = 1;
  idx[0].slice.flags |= CA_SLICE_START;
  idx[1].slice.step = -2;
  idx[1].slice.flags |= CA_SLICE_STEP;
  CHECK(ca_array_getitem(&r, x, idx, 3) == CA_OK, "getitem x[1:, ::-2, None]");
  CHECK(ca_array_ndim(r) == 3, "x[1:, ::-2, None] has 3 dimensions");
  shape = ca_array_shape(r);
  CHECK(shape[0] == 3 && shape[1] == 3 && shape[2] == 1, "x[1:, ::-2, None] has shape (3, 3, 1)");
  for (i = 1; i < 4; ++i)
    for (j = 4; j >= 0; j -= 2) want[n++] = (double)(i * 5 + j);
  CHECK(values_equal(ctx, r, want, n), "x[1:, ::-2, None] values");
  ca_array_free(r);
  r = NULL;
  /* x[-1, 2]: 0-d */
  CHECK(ca_array_getitem(&r, x, pt, 2) == CA_OK, "getitem x[-1, 2]");
  CHECK(ca_array_ndim(r) == 0, "x[-1, 2] is 0-d");
  want[0] = 17;
  CHECK(values_equal(ctx, r, want, 1), "x[-1, 2] == 17");
  ca_array_free(r);
  r = NULL;
  /* x[..., 0] */
  CHECK(ca_array_getitem(&r, x, ell, 2) == CA_OK, "getitem x[..., 0]");
  for (i = 0; i < 4; ++i) want[i] = (double)(i * 5);
  CHECK(values_equal(ctx, r, want, 4), "x[..., 0] values");
  ca_array_free(r);
  r = NULL;
  /* errors: out of bounds names axis and size; *out is NULL */
  pt[1].i = 5;
  r = x;
  CHECK(ca_array_getitem(&r, x, pt, 2) == CA_EINVAL && r == NULL, "x[-1, 5] fails with CA_EINVAL");
  CHECK(strstr(ca_last_error_message(), "index 5 is out of bounds for axis 1 with size 5") != NULL,
        "out-of-bounds message");
  CHECK(ca_array_getitem(&r, NULL, pt, 2) == CA_EINVAL, "NULL array");
  CHECK(ca_array_getitem(NULL, x, pt, 2) == CA_EINVAL, "NULL out");
done:
  ca_array_free(r);
  ca_array_free(x);
  ca_context_free(ctx);
  return failure;
}

const char *capi_slicing_case_mask_unknown(void) {
  const char *failure = NULL;
  ca_context_t *ctx = NULL;
  ca_array_t *x = make_x(), *m = NULL, *r = NULL, *s = NULL, *k = NULL;
  ca_scalar_t five;
  ca_block_t *b = NULL;
  double want[20], sum = 0;
  int64_t n = 0, nb = 0, i;
  const int64_t *c;
  memset(&five, 0, sizeof five);
  five.kind = CA_INT64;
  five.i64 = 5;
  five.re = 5;
  CHECK(x != NULL, "make_x failed");
  CHECK(ca_context_new(&ctx, NULL) == CA_OK, "context");
  CHECK(ca_array_binary_scalar(&m, CA_OP_GT, x, five, false) == CA_OK, "x > 5");
  CHECK(ca_array_mask_select(&r, x, m) == CA_OK, "x[x > 5]");
  c = ca_array_chunks(r, 0, &nb);
  /* dask's ravel splits the row blocks (2, 2) into (1, 1, 1, 1) and makes the columns whole */
  CHECK(nb == 4 && c[0] == CA_CHUNK_UNKNOWN && c[3] == CA_CHUNK_UNKNOWN, "x[x > 5] has chunks ((nan,) * 4,)");
  CHECK(ca_array_shape(r)[0] == CA_CHUNK_UNKNOWN && !ca_array_chunks_known(r), "x[x > 5] has an unknown shape");
  for (i = 6; i < 20; ++i) {
    want[n++] = (double)i;
    sum += (double)i;
  }
  CHECK(values_equal(ctx, r, want, n), "x[x > 5] values");
  CHECK(ca_array_reduce(&s, CA_RED_MEAN, r, NULL, 0, false, NULL) == CA_OK, "x[x > 5].mean()");
  CHECK(ca_array_compute(&b, ctx, s, NULL) == CA_OK, "compute the mean");
  CHECK(fabs(*(const double *)ca_block_data(b) - sum / (double)n) < 1e-12, "x[x > 5].mean() value");
  CHECK(ca_array_compute_chunk_sizes(&k, ctx, r, NULL) == CA_OK, "compute_chunk_sizes");
  c = ca_array_chunks(k, 0, &nb);
  CHECK(nb == 4 && c[0] == 0 && c[1] == 4 && c[2] == 5 && c[3] == 5, "computed chunks (0, 4, 5, 5)");
  CHECK(strcmp(ca_array_name(k), ca_array_name(r)) == 0, "compute_chunk_sizes keeps the name");
  {
    ca_array_t *t = NULL;
    int64_t zero = 0;
    CHECK(ca_array_take(&t, r, &zero, 1, 0) == CA_EINVAL && t == NULL, "take on unknown sizes fails");
    CHECK(strstr(ca_last_error_message(), "call ca_array_compute_chunk_sizes") != NULL, "unknown-size message");
  }
done:
  ca_block_free(b);
  ca_array_free(k);
  ca_array_free(s);
  ca_array_free(r);
  ca_array_free(m);
  ca_array_free(x);
  ca_context_free(ctx);
  return failure;
}

const char *capi_slicing_case_take_vindex_setitem(void) {
  const char *failure = NULL;
  ca_context_t *ctx = NULL;
  ca_array_t *x = make_x(), *r = NULL;
  int64_t rows[3] = {3, 0, -1}, i0[2] = {0, 3}, i1[2] = {4, 1};
  const int64_t *pts[2];
  uint8_t keep[5] = {1, 0, 0, 1, 1};
  ca_index_t bl[2] = {CA_INDEX_SLICE_INIT, CA_INDEX_SLICE_INIT};
  ca_index_t region[2] = {CA_INDEX_SLICE_INIT, CA_INDEX_INT_INIT(1)};
  ca_scalar_t v;
  double want[20];
  int64_t n = 0, i, j;
  pts[0] = i0;
  pts[1] = i1;
  memset(&v, 0, sizeof v);
  v.kind = CA_FLOAT64;
  v.re = -1;
  CHECK(x != NULL, "make_x failed");
  CHECK(ca_context_new(&ctx, NULL) == CA_OK, "context");
  /* take rows 3, 0, -1 */
  CHECK(ca_array_take(&r, x, rows, 3, 0) == CA_OK, "take");
  for (i = 0; i < 3; ++i)
    for (j = 0; j < 5; ++j) want[n++] = (double)((rows[i] < 0 ? rows[i] + 4 : rows[i]) * 5 + j);
  CHECK(values_equal(ctx, r, want, n), "take values");
  ca_array_free(r);
  r = NULL;
  /* x[:, [True, False, False, True, True]] */
  bl[1].kind = CA_IDX_BOOL;
  bl[1].bools = keep;
  bl[1].nindices = 5;
  CHECK(ca_array_getitem(&r, x, bl, 2) == CA_OK, "boolean list");
  n = 0;
  for (i = 0; i < 4; ++i)
    for (j = 0; j < 5; ++j)
      if (keep[j]) want[n++] = (double)(i * 5 + j);
  CHECK(values_equal(ctx, r, want, n), "boolean list values");
  ca_array_free(r);
  r = NULL;
  /* vindex: points (0, 4) and (3, 1) */
  CHECK(ca_array_vindex(&r, x, pts, 2, 2) == CA_OK, "vindex");
  want[0] = 4;
  want[1] = 16;
  CHECK(values_equal(ctx, r, want, 2), "vindex values");
  ca_array_free(r);
  r = NULL;
  /* x[::2, 1] = -1 */
  region[0].slice.step = 2;
  region[0].slice.flags |= CA_SLICE_STEP;
  CHECK(ca_array_setitem_scalar(&r, x, region, 2, v) == CA_OK, "setitem");
  for (i = 0; i < 20; ++i) want[i] = (i / 5) % 2 == 0 && i % 5 == 1 ? -1.0 : (double)i;
  CHECK(values_equal(ctx, r, want, 20), "setitem values");
  for (i = 0; i < 20; ++i) want[i] = (double)i;
  CHECK(values_equal(ctx, x, want, 20), "setitem leaves the input unchanged");
done:
  ca_array_free(r);
  ca_array_free(x);
  ca_context_free(ctx);
  return failure;
}

/* ca_array_index: NumPy mode with a 2-d and a 1-d array broadcasting (options with shapes), outer mode,
 * and an out-of-bounds error naming the axis. Expected values from plain loops. */
const char *capi_slicing_case_advanced_index(void) {
  const char *failure = NULL;
  ca_context_t *ctx = NULL;
  ca_array_t *x = make_x(), *r = NULL;
  int64_t rows[4] = {3, 0, 1, -1}, cols[2] = {4, 0}, bad[1] = {5};
  int64_t rshape[2] = {2, 2};
  const int64_t *shapes[2];
  int32_t ndims[2] = {2, 1};
  ca_index_t idx[2] = {CA_INDEX_SLICE_INIT, CA_INDEX_SLICE_INIT};
  ca_index_options_t opts = CA_INDEX_OPTIONS_INIT;
  double want[20];
  int64_t n = 0, i, j;
  const int64_t *shape;
  shapes[0] = rshape;
  shapes[1] = NULL;
  CHECK(x != NULL, "make_x failed");
  CHECK(ca_context_new(&ctx, NULL) == CA_OK, "context");
  idx[0].kind = CA_IDX_ARRAY;
  idx[0].indices = rows;
  idx[0].nindices = 4;
  idx[1].kind = CA_IDX_ARRAY;
  idx[1].indices = cols;
  idx[1].nindices = 2;
  /* x[[[3, 0], [1, -1]], [4, 0]]: shape (2, 2), element (i, j) = x[rows[2i+j], cols[j]] */
  opts.ndims = ndims;
  opts.shapes = shapes;
  CHECK(ca_array_index(&r, x, idx, 2, &opts) == CA_OK, "numpy mode");
  shape = ca_array_shape(r);
  CHECK(ca_array_ndim(r) == 2 && shape[0] == 2 && shape[1] == 2, "numpy mode shape");
  for (i = 0; i < 2; ++i)
    for (j = 0; j < 2; ++j) want[n++] = (double)(((rows[2 * i + j] + 4) % 4) * 5 + cols[j]);
  CHECK(values_equal(ctx, r, want, n), "numpy mode values");
  ca_array_free(r);
  r = NULL;
  /* outer: x.oindex[[3, 0, 1, -1], [4, 0]] has shape (4, 2) */
  opts.mode = CA_INDEX_OUTER;
  opts.ndims = NULL;
  opts.shapes = NULL;
  CHECK(ca_array_index(&r, x, idx, 2, &opts) == CA_OK, "outer mode");
  n = 0;
  for (i = 0; i < 4; ++i)
    for (j = 0; j < 2; ++j) want[n++] = (double)(((rows[i] + 4) % 4) * 5 + cols[j]);
  CHECK(values_equal(ctx, r, want, n), "outer mode values");
  ca_array_free(r);
  r = NULL;
  /* out of bounds names the axis */
  idx[1].indices = bad;
  idx[1].nindices = 1;
  CHECK(ca_array_index(&r, x, idx, 2, NULL) == CA_EINVAL && r == NULL, "out of bounds status");
  CHECK(strstr(ca_last_error_message(), "index 5 is out of bounds for axis 1 with size 5") != NULL,
        "out of bounds message");
done:
  ca_array_free(r);
  ca_array_free(x);
  ca_context_free(ctx);
  return failure;
}
