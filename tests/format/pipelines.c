/* Real array pipelines over the public API, shared by the format tests, the CLI test and the golden
 * file generator: fused expressions, reductions, creation routines, a zarr read, a persisted array. */
#include "pipelines.h"

#include <stdio.h>
#include <string.h>

#define TRY(x)                                                                             \
  do {                                                                                     \
    ca_status_t st_ = (x);                                                                 \
    if (st_ != CA_OK) {                                                                    \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, ca_last_error_message()); \
      goto fail;                                                                           \
    }                                                                                      \
  } while (0)

static ca_scalar_t f64(double v) {
  ca_scalar_t s;
  memset(&s, 0, sizeof s);
  s.kind = CA_FLOAT64;
  s.re = v;
  return s;
}

int pipelines_build(ca_context_t *ctx, const char *zarr_dir, ca_array_t **out, size_t *n) {
  size_t k = 0;
  ca_array_t *x = NULL, *t1 = NULL, *t2 = NULL, *t3 = NULL, *ar = NULL, *ey = NULL, *ls = NULL, *zr = NULL;
  ca_array_t *zs = NULL, *pe = NULL;
  /* x: 37 x 23 normal, ragged chunks ((10, 10, 10, 7), (5, 9, 9)) */
  int64_t shape[2] = {37, 23};
  int64_t nb[2] = {4, 3};
  int64_t sizes[7] = {10, 10, 10, 7, 5, 9, 9};
  ca_chunks_t ch = {2, nb, sizes};
  int32_t ax0 = 0, ax1 = 1;
  TRY(ca_array_random(&x, CA_RANDOM_NORMAL, 2, shape, &ch, CA_FLOAT64, &(ca_random_options_t){sizeof(ca_random_options_t), 0u, 42, 1.0, 2.0, 0.0}));
  /* 0: fused sqrt(abs(x) * 2 + 1) as float32 */
  TRY(ca_array_unary(&t1, CA_OP_ABS, x));
  TRY(ca_array_binary_scalar(&t2, CA_OP_MUL, t1, f64(2.0), false));
  ca_array_free(t1), t1 = NULL;
  TRY(ca_array_binary_scalar(&t1, CA_OP_ADD, t2, f64(1.0), false));
  ca_array_free(t2), t2 = NULL;
  TRY(ca_array_unary(&t2, CA_OP_SQRT, t1));
  ca_array_free(t1), t1 = NULL;
  TRY(ca_array_astype(&out[k++], t2, CA_FLOAT32));
  ca_array_free(t2), t2 = NULL;
  /* 1: column means of x - x.mean() (a reduction over a fused expression) */
  TRY(ca_array_reduce(&t1, CA_RED_MEAN, x, NULL, 0, false, NULL));
  TRY(ca_array_binary(&t2, CA_OP_SUB, x, t1));
  ca_array_free(t1), t1 = NULL;
  TRY(ca_array_reduce(&out[k++], CA_RED_MEAN, t2, &ax0, 1, false, NULL));
  ca_array_free(t2), t2 = NULL;
  /* 2: var along axis 1 with a tree reduction (split_every 2) */
  {
    ca_reduce_options_t ro = CA_REDUCE_OPTIONS_INIT;
    ro.split_every = 2;
    ro.ddof = 1;
    TRY(ca_array_reduce(&out[k++], CA_RED_VAR, x, &ax1, 1, true, &ro));
  }
  /* 3: cumsum along axis 0 of a rechunked x */
  {
    int64_t nb2[2] = {3, 2};
    int64_t sz2[5] = {12, 12, 13, 20, 3};
    ca_chunks_t ch2 = {2, nb2, sz2};
    TRY(ca_array_rechunk(&t1, x, &ch2));
    TRY(ca_array_scan(&out[k++], CA_SCAN_CUMSUM, t1, 0, NULL));
    ca_array_free(t1), t1 = NULL;
  }
  /* 4: creation: eye(9, 11, k=1) * 3 + arange reshaped by broadcasting over linspace */
  {
    int64_t enb[2] = {2, 3}, esz[5] = {4, 5, 4, 4, 3};
    ca_chunks_t ech = {2, enb, esz};
    int64_t anb[1] = {3}, asz[3] = {4, 4, 3};
    ca_chunks_t ach = {1, anb, asz};
    TRY(ca_array_eye(&ey, 9, 11, 1, &ech, CA_FLOAT64));
    TRY(ca_array_arange(&ar, 0, 11, 1, &ach, CA_INT64));
    TRY(ca_array_linspace(&ls, -1, 1, 11, true, &ach, CA_FLOAT64));
    TRY(ca_array_binary_scalar(&t1, CA_OP_MUL, ey, f64(3.0), false));
    TRY(ca_array_binary(&t2, CA_OP_ADD, t1, ar));
    ca_array_free(t1), t1 = NULL;
    TRY(ca_array_binary(&out[k++], CA_OP_MUL, t2, ls));
    ca_array_free(t2), t2 = NULL;
  }
  /* 5: a zarr read (when a directory is given): write x as int32 zarr, read it back with other
   *    chunks, add the persisted array below. */
  {
    int64_t pnb[2] = {2, 2}, psz[4] = {20, 17, 12, 11};
    ca_chunks_t pch = {2, pnb, psz};
    TRY(ca_array_random(&t1, CA_RANDOM_INTEGERS, 2, shape, &pch, CA_INT32, &(ca_random_options_t){sizeof(ca_random_options_t), 0u, 7, -50, 50, 0.0}));
    TRY(ca_array_persist(&pe, ctx, t1, NULL));
    ca_array_free(t1), t1 = NULL;
    if (zarr_dir) {
      int64_t znb[2] = {3, 1}, zsz[4] = {16, 16, 5, 23};
      ca_chunks_t zch = {2, znb, zsz};
      ca_zarr_options_t zo = CA_ZARR_OPTIONS_INIT;
      int64_t store_chunks[2] = {8, 8};
      zo.chunks = store_chunks;
      zo.compressor = "zlib";
      zo.overwrite = 1;
      TRY(ca_array_astype(&t1, x, CA_INT32));
      TRY(ca_array_to_zarr(ctx, t1, zarr_dir, &zo, NULL));
      ca_array_free(t1), t1 = NULL;
      TRY(ca_array_from_zarr(&zr, zarr_dir, &zch));
      TRY(ca_array_binary(&t2, CA_OP_MUL, zr, pe));
    } else {
      TRY(ca_array_binary_scalar(&t2, CA_OP_MUL, pe, f64(0.5), false));
    }
    TRY(ca_array_reduce(&out[k++], CA_RED_SUM, t2, &ax1, 1, false, NULL));
    ca_array_free(t2), t2 = NULL;
  }
  /* 6: the persisted array itself (a data layer) */
  out[k++] = ca_array_retain(pe);
  *n = k;
  ca_array_free(x);
  ca_array_free(ar);
  ca_array_free(ey);
  ca_array_free(ls);
  ca_array_free(zr);
  ca_array_free(zs);
  ca_array_free(pe);
  (void)t3;
  return 0;
fail:
  for (size_t i = 0; i < k; ++i) ca_array_free(out[i]);
  ca_array_free(x);
  ca_array_free(t1);
  ca_array_free(t2);
  ca_array_free(ar);
  ca_array_free(ey);
  ca_array_free(ls);
  ca_array_free(zr);
  ca_array_free(pe);
  *n = 0;
  return -1;
}
