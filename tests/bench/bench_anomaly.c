/*
 * W7 of /work/shared/WORKLOADS.md through the public C API:
 *
 *     x = random((40000, 10000), chunks=(1000, 10000))     3.2 GB of float64, uniform [0, 1)
 *     y = x - x.mean(axis=0)
 *     y.std(axis=0)                                         10,000 values
 *
 * x is never held: random is counter-based (each element a function of its index), so the mean's
 * chunk tasks and the std's chunk tasks each regenerate the rows they read, tile by tile, fused with
 * the subtraction and the reduction. The peak memory is a few tiles per worker plus the partials.
 *
 * Prints one JSON line per compute ({"bench":"w7",...}) and a summary on stderr; the process's peak
 * RSS (getrusage) is in the last line. The result is checked: std of uniform [0,1) is 1/sqrt(12)
 * within 7 standard errors per column, and against a second compute through a materialized path on a
 * small size in tests (unit/elementwise GeneratorsFuseAndRegenerate).
 *
 * Usage: bench_anomaly [--reps N] [--threads N] [--rows R]
 */
#define _POSIX_C_SOURCE 200809L
#include <chunkarray/chunkarray.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define CHECK(call)                                                                                    \
  do {                                                                                                 \
    ca_status_t st_ = (call);                                                                          \
    if (st_ != CA_OK) {                                                                                \
      fprintf(stderr, "bench_anomaly: FAILED: %s: %s\n", #call, ca_last_error_message());              \
      exit(1);                                                                                         \
    }                                                                                                  \
  } while (0)

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
  int reps = 3, threads = 2, i;
  int64_t rows = 40000, cols = 10000, chunk = 1000;
  for (i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc) threads = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--rows") && i + 1 < argc) rows = atoll(argv[++i]);
    else {
      fprintf(stderr, "usage: bench_anomaly [--reps N] [--threads N] [--rows R]\n");
      return 2;
    }
  }
  ca_context_options_t co = CA_CONTEXT_OPTIONS_INIT;
  co.num_threads = threads;
  ca_context_t *ctx = NULL;
  CHECK(ca_context_new(&ctx, &co));

  const int64_t shape[2] = {rows, cols};
  ca_dimchunks_t spec[2];
  memset(spec, 0, sizeof spec);
  spec[0].size = chunk;
  spec[1].size = cols;
  ca_chunkset_t *cs = NULL;
  CHECK(ca_normalize_chunks(&cs, NULL, spec, 2, shape, CA_FLOAT64, 0));
  ca_chunks_t ch = ca_chunkset_view(cs);

  double best = 1e30;
  for (i = 0; i < reps; ++i) {
    double t0 = now();
    ca_array_t *x = NULL, *m = NULL, *y = NULL, *s = NULL;
    const int32_t ax0 = 0;
    CHECK(ca_array_random(&x, CA_RANDOM_UNIFORM, 2, shape, &ch, CA_FLOAT64, &(ca_random_options_t){sizeof(ca_random_options_t), 0u, 42, 0.0, 1.0, 0.0}));
    CHECK(ca_array_reduce(&m, CA_RED_MEAN, x, &ax0, 1, false, NULL));
    CHECK(ca_array_binary(&y, CA_OP_SUB, x, m));
    CHECK(ca_array_reduce(&s, CA_RED_STD, y, &ax0, 1, false, NULL));
    ca_block_t *res = NULL;
    CHECK(ca_array_compute(&res, ctx, s, NULL));
    double t = now() - t0;
    const double *v = (const double *)ca_block_data(res);
    int64_t j;
    /* The sample std of n uniform [0, 1) draws has a standard error of sigma * sqrt(0.8 / (4 n))
     * (kurtosis 1.8): allow 7 of them per column, so that 10,000 columns do not fail by chance
     * (a fixed 1 % bound is 4.5 errors at 40,000 rows: one column in ~150,000 crosses it). */
    double want = 1.0 / sqrt(12.0), tol = 7.0 * want * sqrt(0.8 / (4.0 * (double)rows));
    for (j = 0; j < cols; ++j) {
      if (!(fabs(v[j] - want) < tol)) {
        fprintf(stderr, "bench_anomaly: FAILED: std[%lld] = %.6f, expected ~%.6f\n", (long long)j, v[j], want);
        return 1;
      }
    }
    if (t < best) best = t;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("{\"bench\":\"w7\",\"threads\":%d,\"rows\":%lld,\"seconds\":%.6f,\"peak_rss_bytes\":%.0f,\"std0\":%.9f}\n",
           threads, (long long)rows, t, (double)ru.ru_maxrss * 1024.0, v[0]);
    fflush(stdout);
    ca_block_free(res);
    ca_array_free(s);
    ca_array_free(y);
    ca_array_free(m);
    ca_array_free(x);
  }
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  fprintf(stderr, "W7 anomaly (%lld x %lld, chunks %lld rows, %d threads): best %.3f s, peak RSS %.1f MB\n",
          (long long)rows, (long long)cols, (long long)chunk, threads, best, (double)ru.ru_maxrss / 1024.0);
  ca_chunkset_free(cs);
  ca_context_free(ctx);
  return 0;
}
