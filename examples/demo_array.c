/*
 * demo_array.c: `./dev demo`, a real chunked-array computation through the public C API.
 *
 * x = random uniform [0, 1) of shape (rows, cols), generated block by block (never stored whole),
 * then in ONE compute over the shared graph: mean(x), var(x), max(x), mean(sqrt(x)) (a reduction
 * fused with the elementwise expression feeding it) and the column means. Several GB are generated
 * and reduced while a progress bar runs; the summary compares each statistic with its exact value
 * for a uniform variable (1/2, 1/12, ->1, 2/3).
 */
#define _POSIX_C_SOURCE 200809L
#include <chunkarray/chunkarray.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CHECK(call)                                                                              \
  do {                                                                                           \
    ca_status_t st_ = (call);                                                                    \
    if (st_ != CA_OK) {                                                                          \
      fprintf(stderr, "demo: %s failed: %s: %s\n", #call, ca_status_str(st_), ca_last_error_message()); \
      exit(1);                                                                                   \
    }                                                                                            \
  } while (0)

#include "progress.h"

/* ---- the computation --------------------------------------------------------------------------- */

static double scalar_of(ca_block_t *b) { return *(const double *)ca_block_data(b); }

static void usage(FILE *f) {
  fprintf(f,
          "usage: demo [--rows N] [--cols N] [--chunk-rows N] [--threads N] [--seed N] [--quiet]\n"
          "  x = random((rows, cols), chunks=(chunk-rows, cols)); mean, var, max, mean(sqrt(x)) and\n"
          "  column means in one compute. Default 20000 x 25000 float64 (4 GB generated).\n");
}

int main(int argc, char **argv) {
  int64_t rows = 20000, cols = 25000, chunk_rows = 500, seed = 42;
  int32_t threads = -1;
  int quiet = 0;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--rows") && v) rows = atoll(argv[++i]);
    else if (!strcmp(a, "--cols") && v) cols = atoll(argv[++i]);
    else if (!strcmp(a, "--chunk-rows") && v) chunk_rows = atoll(argv[++i]);
    else if (!strcmp(a, "--threads") && v) threads = atoi(argv[++i]);
    else if (!strcmp(a, "--seed") && v) seed = atoll(argv[++i]);
    else if (!strcmp(a, "--quiet")) quiet = 1;
    else if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(stdout); return 0; }
    else { usage(stderr); return 2; }
  }
  if (rows <= 0 || cols <= 0 || chunk_rows <= 0) { usage(stderr); return 2; }

  ca_context_options_t co = CA_CONTEXT_OPTIONS_INIT;
  co.num_threads = threads;
  ca_context_t *ctx;
  CHECK(ca_context_new(&ctx, &co));

  int64_t shape[2] = {rows, cols};
  ca_dimchunks_t spec[2] = {{chunk_rows, NULL, 0}, {CA_CHUNKS_WHOLE, NULL, 0}};
  ca_chunkset_t *cs;
  CHECK(ca_normalize_chunks(&cs, ctx, spec, 2, shape, CA_FLOAT64, 0));
  ca_chunks_t chunks = ca_chunkset_view(cs);

  ca_array_t *x, *mean, *var, *mx, *sq, *sqmean, *colmean;
  CHECK(ca_array_random(&x, CA_RANDOM_UNIFORM, 2, shape, &chunks, CA_FLOAT64, &(ca_random_options_t){sizeof(ca_random_options_t), 0u, (uint64_t)seed, 0.0, 1.0, 0.0}));
  CHECK(ca_array_reduce(&mean, CA_RED_MEAN, x, NULL, 0, false, NULL));
  CHECK(ca_array_reduce(&var, CA_RED_VAR, x, NULL, 0, false, NULL));
  CHECK(ca_array_reduce(&mx, CA_RED_MAX, x, NULL, 0, false, NULL));
  CHECK(ca_array_unary(&sq, CA_OP_SQRT, x));
  CHECK(ca_array_reduce(&sqmean, CA_RED_MEAN, sq, NULL, 0, false, NULL)); /* fused: no sqrt(x) blocks */
  int32_t axis0 = 0;
  CHECK(ca_array_reduce(&colmean, CA_RED_MEAN, x, &axis0, 1, false, NULL));

  if (!quiet) {
    printf("chunkarray %s demo: x = random((%lld, %lld), chunks=(%lld, %lld)), %lld blocks, %.2f GB of float64\n",
           ca_version_string(), (long long)rows, (long long)cols, (long long)chunk_rows, (long long)cols,
           (long long)ca_array_numblocks(x)[0], (double)ca_array_nbytes(x) / 1e9);
    printf("computing mean, var, max, mean(sqrt(x)) and column means in one pass on %d threads\n",
           ca_context_num_threads(ctx));
  }
  const ca_array_t *outs[5] = {mean, var, mx, sqmean, colmean};
  ca_block_t *res[5];
  progress_state_t ps = {isatty(STDOUT_FILENO), quiet, now_seconds(), 0, 0};
  ca_compute_options_t opts = CA_COMPUTE_OPTIONS_INIT;
  opts.progress = on_progress;
  opts.progress_user_data = &ps;
  double t0 = now_seconds();
  CHECK(ca_array_compute_many(res, ctx, outs, 5, &opts));
  double secs = now_seconds() - t0;
  if (ps.drawn) printf("\n");

  double n = (double)rows * (double)cols;
  double m = scalar_of(res[0]), v = scalar_of(res[1]), mxv = scalar_of(res[2]), sm = scalar_of(res[3]);
  const double *cm = (const double *)ca_block_data(res[4]);
  double cmin = 1, cmax = 0;
  for (int64_t j = 0; j < cols; ++j) {
    if (cm[j] < cmin) cmin = cm[j];
    if (cm[j] > cmax) cmax = cm[j];
  }
  /* standard errors of the estimates for a uniform variable */
  double se_mean = sqrt(1.0 / 12.0 / n), se_var = sqrt(1.0 / 180.0 / n), se_sqrt = sqrt((0.5 - 4.0 / 9.0) / n);
  double z_mean = (m - 0.5) / se_mean, z_var = (v - 1.0 / 12.0) / se_var, z_sqrt = (sm - 2.0 / 3.0) / se_sqrt;
  int ok = fabs(z_mean) < 6 && fabs(z_var) < 6 && fabs(z_sqrt) < 6 && mxv < 1.0 && mxv > 1.0 - 100.0 / n;
  if (!quiet) {
    printf("generated and reduced %.2f GB in %.2f s (%.2f GB/s)\n", (double)ca_array_nbytes(x) / 1e9, secs,
           (double)ca_array_nbytes(x) / 1e9 / secs);
    printf("  mean(x)        = %.8f   exact 1/2     (%+.2f standard errors)\n", m, z_mean);
    printf("  var(x)         = %.8f   exact 1/12    (%+.2f standard errors)\n", v, z_var);
    printf("  mean(sqrt(x))  = %.8f   exact 2/3     (%+.2f standard errors)\n", sm, z_sqrt);
    printf("  max(x)         = %.10f\n", mxv);
    printf("  column means   in [%.5f, %.5f] over %lld columns\n", cmin, cmax, (long long)cols);
    printf("%s\n", ok ? "result: ok" : "result: OUT OF TOLERANCE");
  }
  for (int i = 0; i < 5; ++i) ca_block_free(res[i]);
  ca_array_free(x); ca_array_free(mean); ca_array_free(var); ca_array_free(mx);
  ca_array_free(sq); ca_array_free(sqmean); ca_array_free(colmean);
  ca_chunkset_free(cs);
  ca_context_free(ctx);
  return ok ? 0 : 1;
}
