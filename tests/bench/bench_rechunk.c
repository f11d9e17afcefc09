/*
 * W6 of /work/shared/WORKLOADS.md through the public C API only:
 *
 *   random((N, N), chunks=(N, N/100)).rechunk((N/100, N)).sum()        --variant gen
 *   the same over an input held in memory (the random array persisted     --variant mem
 *   first with ca_array_persist: dask's x.persist())
 *
 * The "mem" variant is the honest measure of the rechunk planner's memory: the input is resident,
 * everything the compute holds beyond it is rechunk intermediates and blocks in flight.
 *
 * Output: one JSON line on stdout:
 *   {"bench":"w6_gen","n":16000,"threads":2,"seconds":..,"peak_rss":..,"base_rss":..,"stages":..,
 *    "cpu_seconds":..,"sum":..}
 * peak_rss = getrusage maximum resident set size (bytes) of the process, base_rss = resident set
 * just before the timed compute (the persisted input for "mem"), cpu_seconds = user + system time of
 * the process during the compute (a fairer figure than wall time on a shared machine). Exit status 1
 * on any failure or a wrong sum (checked against x.sum() computed without the rechunk).
 *
 * Usage: bench_rechunk [--variant gen|mem] [--n N] [--threads T] [--chunk-size BYTES] [--threshold X]
 *   --threshold  dask's array.rechunk-threshold for the planner (default 4, as dask); a large value
 *                gives a direct, one-stage rechunk.
 */
#define _POSIX_C_SOURCE 200809L
#include <chunkarray/chunkarray.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long long rss_now(void) {
  long long pages = 0, resident = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  if (!f) return -1;
  if (fscanf(f, "%lld %lld", &pages, &resident) != 2) resident = -1;
  fclose(f);
  return resident * (long long)sysconf(_SC_PAGESIZE);
}

static double cpu_now(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
         (double)ru.ru_stime.tv_usec * 1e-6;
}

static long long rss_peak(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (long long)ru.ru_maxrss * 1024;
}

#define CHECK(call)                                                                          \
  do {                                                                                       \
    ca_status_t st_ = (call);                                                                \
    if (st_ != CA_OK) {                                                                      \
      fprintf(stderr, "%s failed: %s: %s\n", #call, ca_status_str(st_), ca_last_error_message()); \
      exit(1);                                                                               \
    }                                                                                        \
  } while (0)

int main(int argc, char **argv) {
  const char *variant = "gen";
  int64_t n = 16000;
  int32_t threads = 2;
  const char *chunk_size = NULL;
  double threshold = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--variant") && i + 1 < argc) variant = argv[++i];
    else if (!strcmp(argv[i], "--n") && i + 1 < argc) n = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc) threads = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--chunk-size") && i + 1 < argc) chunk_size = argv[++i];
    else if (!strcmp(argv[i], "--threshold") && i + 1 < argc) threshold = atof(argv[++i]);
    else {
      fprintf(stderr, "usage: bench_rechunk [--variant gen|mem] [--n N] [--threads T] [--chunk-size BYTES] "
                      "[--threshold X]\n");
      return 2;
    }
  }
  int mem = !strcmp(variant, "mem");
  if (!mem && strcmp(variant, "gen")) {
    fprintf(stderr, "bench_rechunk: unknown variant %s\n", variant);
    return 2;
  }
  int64_t w = n / 100;
  if (w < 1 || n % 100) {
    fprintf(stderr, "bench_rechunk: --n must be a positive multiple of 100\n");
    return 2;
  }
  ca_context_options_t co = CA_CONTEXT_OPTIONS_INIT;
  co.num_threads = threads;
  ca_context_t *ctx = NULL;
  CHECK(ca_context_new(&ctx, &co));
  if (chunk_size) CHECK(ca_context_set_config(ctx, "array.chunk-size", chunk_size));

  int64_t shape[2] = {n, n};
  int64_t nb[2] = {1, 100};
  int64_t *sizes = malloc(sizeof(int64_t) * 101);
  sizes[0] = n;
  for (int i = 0; i < 100; ++i) sizes[1 + i] = w;
  ca_chunks_t in_chunks = {2, nb, sizes};

  double expect = 0;
  ca_array_t *x = NULL;
  CHECK(ca_array_random(&x, CA_RANDOM_UNIFORM, 2, shape, &in_chunks, CA_FLOAT64, &(ca_random_options_t){sizeof(ca_random_options_t), 0u, 42, 0.0, 1.0, 0.0}));
  if (mem) {
    ca_array_t *p = NULL, *xs = NULL;
    ca_block_t *b = NULL;
    CHECK(ca_array_persist(&p, ctx, x, NULL));
    ca_array_free(x);
    x = p;
    CHECK(ca_array_reduce(&xs, CA_RED_SUM, x, NULL, 0, false, NULL));
    CHECK(ca_array_compute(&b, ctx, xs, NULL));
    expect = *(const double *)ca_block_data(b);
    ca_block_free(b);
    ca_array_free(xs);
  }
  char spec[64];
  snprintf(spec, sizeof spec, "(%lld, %lld)", (long long)w, (long long)n);

  long long base = rss_now();
  double c0 = cpu_now();
  double t0 = now();
  ca_array_t *r = NULL, *s = NULL;
  ca_rechunk_options_t ro = CA_RECHUNK_OPTIONS_INIT;
  ro.threshold = threshold;
  CHECK(ca_array_rechunk_ex(&r, ctx, x, NULL, spec, &ro));
  CHECK(ca_array_reduce(&s, CA_RED_SUM, r, NULL, 0, false, NULL));
  ca_block_t *out = NULL;
  CHECK(ca_array_compute(&out, ctx, s, NULL));
  double t1 = now();
  double c1 = cpu_now();
  double sum = *(const double *)ca_block_data(out);
  long long peak = rss_peak();

  /* Stages the planner chose. */
  int64_t stages = 0;
  {
    int64_t onb[2] = {100, 1};
    int64_t osz[101];
    for (int i = 0; i < 100; ++i) osz[i] = w;
    osz[100] = n;
    ca_chunks_t oc = {2, onb, osz};
    CHECK(ca_array_rechunk_nstages(&stages, ctx, x, &oc, &ro));
  }
  int ok = 1;
  if (mem) ok = fabs(sum - expect) <= 1e-9 * fabs(expect);
  else ok = fabs(sum / ((double)n * (double)n) - 0.5) < 0.01;
  printf("{\"bench\":\"w6_%s\",\"n\":%lld,\"threads\":%d,\"seconds\":%.4f,\"peak_rss\":%lld,\"base_rss\":%lld,"
         "\"stages\":%lld,\"cpu_seconds\":%.4f,\"sum\":%.17g,\"ok\":%s}\n",
         variant, (long long)n, threads, t1 - t0, peak, base, (long long)stages, c1 - c0, sum, ok ? "true" : "false");
  ca_block_free(out);
  ca_array_free(s);
  ca_array_free(r);
  ca_array_free(x);
  ca_context_free(ctx);
  free(sizes);
  if (!ok) {
    fprintf(stderr, "bench_rechunk: wrong sum %.17g (expected %.17g)\n", sum, expect);
    return 1;
  }
  return 0;
}
