/*
 * W5 of /work/shared/WORKLOADS.md through the public C API only (chunkarray/linalg.h):
 *
 *   dask: x = da.random.random((4000, 4000), chunks=1000).persist(); (x @ x.T).compute()
 *   here: x = ca_array_random(uniform, (4000, 4000), chunks 1000) -> ca_array_persist;
 *         x @ x.T = ca_linalg_tensordot(x, x, axes ([1], [1])) (the same contraction: each output
 *         block (i, j) is sum_k x[i, k] @ x[j, k]^T, one dgemm per k with B transposed in BLAS,
 *         accumulating in place), computed into a 128 MB buffer with ca_array_compute_into.
 *   Also x @ y (ca_linalg_matmul, y another persisted random matrix) for information.
 *
 * Checks a few entries of the result against a plain dot product (relative 1e-12).
 * GFLOP/s = 2 n^3 / time. Best and median of --reps after one warm-up compute.
 *
 * Output: a summary on stderr and one JSON object per line on stdout:
 *   {"bench":"w5_xxt","threads":2,"n":4000,"chunk":1000,"best_s":...,"median_s":...,"gflops":...}
 *   {"bench":"w5_matmul",...}
 *
 * Usage: bench_linalg [--n 4000] [--chunk 1000] [--reps 5] [--threads 2]
 */
#define _POSIX_C_SOURCE 200809L
#include <chunkarray/chunkarray.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_REPS 100

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void check(ca_status_t st, const char *what) {
  if (st != CA_OK) {
    fprintf(stderr, "bench_linalg: %s failed: %s (%s)\n", what, ca_status_str(st), ca_last_error_message());
    exit(1);
  }
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static ca_array_t *random_persisted(ca_context_t *ctx, int64_t n, int64_t chunk, uint64_t seed) {
  int64_t shape[2] = {n, n};
  ca_chunkset_t *cs = NULL;
  ca_dimchunks_t spec[2] = {{chunk, NULL, 0}, {chunk, NULL, 0}};
  check(ca_normalize_chunks(&cs, ctx, spec, 2, shape, CA_FLOAT64, 0), "ca_normalize_chunks");
  ca_chunks_t ch = ca_chunkset_view(cs);
  ca_array_t *r = NULL, *p = NULL;
  check(ca_array_random(&r, CA_RANDOM_UNIFORM, 2, shape, &ch, CA_FLOAT64, &(ca_random_options_t){sizeof(ca_random_options_t), 0u, seed, 0.0, 1.0, 0.0}), "ca_array_random");
  check(ca_array_persist(&p, ctx, r, NULL), "ca_array_persist");
  ca_array_free(r);
  ca_chunkset_free(cs);
  return p;
}

/* Time `reps` computes of `a` into `out`; returns best, fills *median. */
static double time_compute(ca_context_t *ctx, const ca_array_t *a, double *out, int reps, double *median) {
  double t[MAX_REPS];
  size_t nbytes = (size_t)ca_array_nbytes(a);
  check(ca_array_compute_into(ctx, a, out, nbytes, NULL), "warm-up compute");
  for (int r = 0; r < reps; ++r) {
    double t0 = now_s();
    check(ca_array_compute_into(ctx, a, out, nbytes, NULL), "ca_array_compute_into");
    t[r] = now_s() - t0;
  }
  qsort(t, (size_t)reps, sizeof(double), cmp_double);
  *median = t[reps / 2];
  return t[0];
}

int main(int argc, char **argv) {
  int64_t n = 4000, chunk = 1000;
  int reps = 5, threads = 2;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--n") && i + 1 < argc) n = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--chunk") && i + 1 < argc) chunk = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc) threads = atoi(argv[++i]);
    else {
      fprintf(stderr, "usage: bench_linalg [--n 4000] [--chunk 1000] [--reps 5] [--threads 2]\n");
      return 2;
    }
  }
  if (reps < 1 || reps > MAX_REPS || n < 1 || chunk < 1) {
    fprintf(stderr, "bench_linalg: bad arguments\n");
    return 2;
  }
  ca_context_options_t co = CA_CONTEXT_OPTIONS_INIT;
  co.num_threads = threads;
  ca_context_t *ctx = NULL;
  check(ca_context_new(&ctx, &co), "ca_context_new");
  ca_array_t *x = random_persisted(ctx, n, chunk, 42), *y = random_persisted(ctx, n, chunk, 43);
  double *xb = malloc((size_t)(n * n) * sizeof(double)), *out = malloc((size_t)(n * n) * sizeof(double));
  if (!xb || !out) {
    fprintf(stderr, "bench_linalg: out of memory\n");
    return 1;
  }
  check(ca_array_compute_into(ctx, x, xb, (size_t)(n * n) * sizeof(double), NULL), "compute x");
  const double flops = 2.0 * (double)n * (double)n * (double)n;

  int32_t one = 1;
  ca_array_t *xxt = NULL;
  check(ca_linalg_tensordot(&xxt, x, x, &one, &one, 1, 0), "ca_linalg_tensordot");
  double med = 0, best = time_compute(ctx, xxt, out, reps, &med);
  /* Check entries against plain dot products of rows. */
  for (int s = 0; s < 16; ++s) {
    int64_t i = (s * 7919) % n, j = (s * 104729 + 3) % n;
    double ref = 0;
    for (int64_t k = 0; k < n; ++k) ref += xb[i * n + k] * xb[j * n + k];
    if (fabs(out[i * n + j] - ref) > 1e-12 * fabs(ref) * (double)n) {
      fprintf(stderr, "bench_linalg: wrong result at (%lld, %lld): %.17g vs %.17g\n", (long long)i, (long long)j,
              out[i * n + j], ref);
      return 1;
    }
  }
  fprintf(stderr, "W5 x @ x.T  n=%lld chunk=%lld threads=%d: best %.3f s (%.1f GFLOP/s), median %.3f s\n",
          (long long)n, (long long)chunk, threads, best, flops / best * 1e-9, med);
  printf("{\"bench\":\"w5_xxt\",\"threads\":%d,\"n\":%lld,\"chunk\":%lld,\"best_s\":%.6f,\"median_s\":%.6f,"
         "\"gflops\":%.2f}\n",
         threads, (long long)n, (long long)chunk, best, med, flops / best * 1e-9);

  ca_array_t *xy = NULL;
  check(ca_linalg_matmul(&xy, x, y), "ca_linalg_matmul");
  best = time_compute(ctx, xy, out, reps, &med);
  fprintf(stderr, "    x @ y    n=%lld chunk=%lld threads=%d: best %.3f s (%.1f GFLOP/s), median %.3f s\n",
          (long long)n, (long long)chunk, threads, best, flops / best * 1e-9, med);
  printf("{\"bench\":\"w5_matmul\",\"threads\":%d,\"n\":%lld,\"chunk\":%lld,\"best_s\":%.6f,\"median_s\":%.6f,"
         "\"gflops\":%.2f}\n",
         threads, (long long)n, (long long)chunk, best, med, flops / best * 1e-9);
  fflush(stdout);

  ca_array_free(xy);
  ca_array_free(xxt);
  ca_array_free(x);
  ca_array_free(y);
  free(xb);
  free(out);
  ca_context_free(ctx);
  return 0;
}
