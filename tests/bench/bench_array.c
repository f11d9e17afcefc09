/*
 * W1-W4 of /work/shared/WORKLOADS.md at the array level, through the public C API only
 * (chunkarray/array.h: the same calls a binding makes for the dask expressions below).
 *
 *   W1/W2  dask: (da.ones(1_000_000, chunks=5) + 1).sum(split_every=4)
 *          here: ca_array_ones((1000000,), chunks 5) -> ca_array_binary_scalar(CA_OP_ADD, 1)
 *                -> ca_array_reduce(CA_RED_SUM, split_every 4) -> ca_array_compute; result == 2e6.
 *   W3     dask: x.sum(),             x = da.from_array(np_x, chunks=(2048, 2048))
 *   W4     dask: ((x + 1) * 2).sum()  on the same x
 *          here: x = a 2 GiB float64 buffer of shape (131072, 2048), x[i] = (i % 1000) * 0.001,
 *                wrapped zero-copy with ca_array_from_buffer(CA_BUFFER_BORROW), chunks (2048, 2048)
 *                (64 blocks of 32 MiB); results checked against a plain C loop (relative 1e-9).
 *
 * Measures:
 *   W2  array-level graph build (normalize_chunks + ones + add + sum: the array calls, no compute),
 *       best and median of --build-reps.
 *   W1  ca_array_compute wall time, per dask task (/ 666,670, dask's task count for this graph, as in
 *       WORKLOADS.md) and per chunkarray task (/ ca_graph_num_tasks of ca_array_graph(result): our
 *       graph is fused, elementwise chain + chunk sums are one layer, so it has far fewer tasks).
 *   W3/W4  ca_array_compute wall time; GB/s = 2 GiB (2^31 bytes, the bytes of x read) / time.
 *   ref  the plain C loops used for the checks, one thread, and the sum loop split over the first
 *        --threads value of pthreads (information: the machine's read bandwidth, the physical bound).
 * Each for every --threads value (2 is the compared one; 1 and 0 = synchronous for information),
 * best and median of --reps after one warm-up compute.
 *
 * Output: a summary on stderr and one JSON object per line on stdout:
 *   {"bench":"a_w2_build",...} {"bench":"a_w1_compute","threads":2,...}
 *   {"bench":"a_w3_sum","threads":2,...} {"bench":"a_w4_expr_sum","threads":2,...} {"bench":"a_ref",...}
 *   {"bench":"a_paired",...}: W3/W4 each timed right after a run of the C loop on as many threads,
 *   alternated (the compared thread count only): the median ratio of their bandwidths.
 * Any failing call or wrong result exits with status 1 and a message.
 *
 * Usage: bench_array [--reps N] [--build-reps N] [--threads 2,1,0] [--no-w1] [--no-big]
 */
#define _POSIX_C_SOURCE 200809L
#include <chunkarray/chunkarray.h>

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define W1_N 1000000
#define W1_CHUNK 5
#define W1_SPLIT 4
#define DASK_W1_TASKS 666670
#define W1_RESULT 2000000.0
#define BIG_ROWS 131072
#define BIG_COLS 2048
#define BIG_CHUNK 2048
#define BIG_NBYTES ((double)BIG_ROWS * BIG_COLS * sizeof(double)) /* 2 GiB */
#define MAX_REPS 1000

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what, ca_status_t st) {
  fprintf(stderr, "bench_array: FAILED: %s: %s (%d): %s\n", what, ca_status_str(st), (int)st,
          ca_last_error_message());
  exit(1);
}

#define CHECK(call)                    \
  do {                                 \
    ca_status_t st_ = (call);          \
    if (st_ != CA_OK) die(#call, st_); \
  } while (0)

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

typedef struct {
  double best, median, worst;
} stats_t;

static stats_t summarize(double *v, int n) {
  stats_t s;
  qsort(v, (size_t)n, sizeof(double), cmp_double);
  s.best = v[0];
  s.worst = v[n - 1];
  s.median = (n % 2) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  return s;
}

static ca_scalar_t f64_scalar(double v) {
  ca_scalar_t s;
  memset(&s, 0, sizeof s);
  s.kind = CA_FLOAT64;
  s.re = v;
  return s;
}

static double scalar_result(const ca_block_t *res, const char *when) {
  if (!res || ca_block_dtype(res) != CA_FLOAT64 || ca_block_size(res) != 1) {
    fprintf(stderr, "bench_array: FAILED: %s: result is not a one-element float64 block\n", when);
    exit(1);
  }
  return *(const double *)ca_block_data(res);
}

static int64_t count_tasks(const ca_array_t *a) {
  ca_graph_t *g = NULL;
  int64_t n;
  CHECK(ca_array_graph(&g, a));
  n = ca_graph_num_tasks(g);
  ca_graph_free(g);
  return n;
}

/* ---------------------------------------------------------------------------------------------- */
/* W1 / W2                                                                                          */
/* ---------------------------------------------------------------------------------------------- */

/* (ones(1_000_000, chunks=5) + 1).sum(split_every=4): everything W2 times. */
static ca_array_t *build_w1(void) {
  const int64_t shape[1] = {W1_N};
  ca_dimchunks_t spec[1];
  ca_chunkset_t *cs = NULL;
  ca_chunks_t ch;
  ca_array_t *x = NULL, *y = NULL, *s = NULL;
  ca_reduce_options_t ro = CA_REDUCE_OPTIONS_INIT;

  memset(spec, 0, sizeof spec);
  spec[0].size = W1_CHUNK;
  CHECK(ca_normalize_chunks(&cs, NULL, spec, 1, shape, CA_FLOAT64, 0));
  ch = ca_chunkset_view(cs);
  CHECK(ca_array_ones(&x, 1, shape, &ch, CA_FLOAT64));
  ca_chunkset_free(cs);
  CHECK(ca_array_binary_scalar(&y, CA_OP_ADD, x, f64_scalar(1.0), false));
  ca_array_free(x);
  ro.split_every = W1_SPLIT;
  CHECK(ca_array_reduce(&s, CA_RED_SUM, y, NULL, 0, false, &ro));
  ca_array_free(y);
  return s;
}

static ca_context_t *make_context(int32_t threads) {
  ca_context_options_t co = CA_CONTEXT_OPTIONS_INIT;
  ca_context_t *ctx = NULL;
  co.num_threads = threads;
  CHECK(ca_context_new(&ctx, &co));
  return ctx;
}

/* One ca_array_compute of a 0-d array, timed; the result checked (relative rtol), else exit 1. */
static double one_compute(ca_context_t *ctx, const ca_array_t *a, double expected, double rtol, const char *what) {
  ca_block_t *res = NULL;
  double t0 = now_s(), t1, v;
  CHECK(ca_array_compute(&res, ctx, a, NULL));
  t1 = now_s();
  v = scalar_result(res, what);
  ca_block_free(res);
  if (!(fabs(v - expected) <= rtol * fabs(expected))) {
    fprintf(stderr, "bench_array: FAILED: %s: result %.17g, expected %.17g (rtol %g)\n", what, v, expected, rtol);
    exit(1);
  }
  return t1 - t0;
}

/* Times ca_array_compute of a 0-d array: warm-up + reps; checks every result. */
static stats_t time_compute(ca_context_t *ctx, const ca_array_t *a, int reps, double expected, double rtol,
                            const char *what, double *times) {
  int r;
  for (r = -1; r < reps; ++r) {
    double t = one_compute(ctx, a, expected, rtol, what);
    if (r >= 0) times[r] = t;
  }
  return summarize(times, reps);
}

/* ---------------------------------------------------------------------------------------------- */
/* W3 / W4: the 2 GiB buffer                                                                        */
/* ---------------------------------------------------------------------------------------------- */

static double *alloc_x(void) {
  size_t n = (size_t)BIG_ROWS * BIG_COLS, i, j;
  double *p = NULL;
  if (posix_memalign((void **)&p, 64, n * sizeof(double)) != 0) {
    fprintf(stderr, "bench_array: FAILED: cannot allocate %.0f bytes\n", BIG_NBYTES);
    exit(1);
  }
  /* x[i] = (i % 1000) * 0.001, written in runs of 1000 (also the first touch of every page) */
  for (i = 0; i < n; i += 1000)
    for (j = 0; j < 1000 && i + j < n; ++j) p[i + j] = (double)j * 0.001;
  return p;
}

/* Plain C loops (4 accumulators, one thread): the references for the checks. */
static double ref_sum(const double *p, size_t n) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  size_t i;
  size_t n4 = n & ~(size_t)3;
  for (i = 0; i < n4; i += 4) {
    s0 += p[i];
    s1 += p[i + 1];
    s2 += p[i + 2];
    s3 += p[i + 3];
  }
  for (; i < n; ++i) s0 += p[i];
  return (s0 + s1) + (s2 + s3);
}

static double ref_expr_sum(const double *p, size_t n) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  size_t i;
  size_t n4 = n & ~(size_t)3;
  for (i = 0; i < n4; i += 4) {
    s0 += (p[i] + 1.0) * 2.0;
    s1 += (p[i + 1] + 1.0) * 2.0;
    s2 += (p[i + 2] + 1.0) * 2.0;
    s3 += (p[i + 3] + 1.0) * 2.0;
  }
  for (; i < n; ++i) s0 += (p[i] + 1.0) * 2.0;
  return (s0 + s1) + (s2 + s3);
}

/* The same sum loop split over T pthreads (information: what T cores read from this buffer). */
typedef struct {
  const double *p;
  size_t n;
  double s;
} ref_part_t;

static void *ref_part(void *arg) {
  ref_part_t *rp = (ref_part_t *)arg;
  rp->s = ref_sum(rp->p, rp->n);
  return NULL;
}

static double ref_sum_mt(const double *p, size_t n, int t) {
  pthread_t th[16];
  ref_part_t parts[16];
  double s = 0;
  size_t per = n / (size_t)t;
  int k;
  for (k = 0; k < t; ++k) {
    parts[k].p = p + (size_t)k * per;
    parts[k].n = k == t - 1 ? n - (size_t)k * per : per;
    if (pthread_create(&th[k], NULL, ref_part, &parts[k]) != 0) {
      fprintf(stderr, "bench_array: FAILED: pthread_create\n");
      exit(1);
    }
  }
  for (k = 0; k < t; ++k) {
    pthread_join(th[k], NULL);
    s += parts[k].s;
  }
  return s;
}

static void emit_big(const char *bench, int32_t threads, int32_t actual, int64_t tasks, int reps, stats_t s,
                     double result) {
  printf("{\"bench\":\"%s\",\"threads\":%d,\"actual_threads\":%d,\"tasks\":%lld,\"reps\":%d,\"bytes\":%.0f,"
         "\"best_s\":%.9f,\"median_s\":%.9f,\"worst_s\":%.9f,\"best_gbs\":%.4f,\"median_gbs\":%.4f,"
         "\"result\":%.17g}\n",
         bench, (int)threads, (int)actual, (long long)tasks, reps, BIG_NBYTES, s.best, s.median, s.worst,
         BIG_NBYTES / s.best * 1e-9, BIG_NBYTES / s.median * 1e-9, result);
  fprintf(stderr, "%s, num_threads=%d (%d workers), %lld tasks: best %.1f ms = %.2f GB/s, median %.2f GB/s\n",
          bench, (int)threads, (int)actual, (long long)tasks, s.best * 1e3, BIG_NBYTES / s.best * 1e-9,
          BIG_NBYTES / s.median * 1e-9);
}

/* ---------------------------------------------------------------------------------------------- */
/* main                                                                                             */
/* ---------------------------------------------------------------------------------------------- */

/* W3/W4 paired with the two-thread C loop, alternated: on these VMs the memory's bandwidth moves
 * between computes (45 and 75 GB/s in one process, a few hundred ms apart), so a reference timed
 * once before all the computes can land in another phase than they do. Each timed compute follows a
 * run of the C loop; ratio = C loop time / compute time, the median over reps. */
static void paired(ca_context_t *ctx, const ca_array_t *s3, const ca_array_t *s4, const double *buf, size_t n,
                   int mt, int reps, double ref3, double ref4) {
  double q3[MAX_REPS], q4[MAX_REPS], t0, tr;
  stats_t a, b;
  int r;
  for (r = 0; r < reps; ++r) {
    t0 = now_s();
    (void)ref_sum_mt(buf, n, mt);
    tr = now_s() - t0;
    q3[r] = tr / one_compute(ctx, s3, ref3, 1e-9, "W3 (paired)");
    t0 = now_s();
    (void)ref_sum_mt(buf, n, mt);
    tr = now_s() - t0;
    q4[r] = tr / one_compute(ctx, s4, ref4, 1e-9, "W4 (paired)");
  }
  a = summarize(q3, reps);
  b = summarize(q4, reps);
  printf("{\"bench\":\"a_paired\",\"threads\":%d,\"reps\":%d,\"w3_ratio_median\":%.4f,\"w3_ratio_worst\":%.4f,"
         "\"w4_ratio_median\":%.4f,\"w4_ratio_worst\":%.4f}\n",
         mt, reps, a.median, a.best, b.median, b.best);
  fprintf(stderr,
          "W3/W4 paired with the %d-thread C loop (alternated, %d pairs): W3 %.2fx the loop's bandwidth "
          "(median; lowest %.2fx), W4 %.2fx (lowest %.2fx)\n",
          mt, reps, a.median, a.best, b.median, b.best);
}

static void usage(void) {
  fprintf(stderr, "usage: bench_array [--reps N] [--build-reps N] [--threads 2,1,0] [--no-w1] [--no-big]\n");
  exit(2);
}

int main(int argc, char **argv) {
  int reps = 7, build_reps = 20, do_w1 = 1, do_big = 1;
  int32_t threads[16];
  int nthreads = 0, i, r;
  const char *tlist = "2,1,0";
  double times[MAX_REPS];

  for (i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--build-reps") && i + 1 < argc) build_reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc) tlist = argv[++i];
    else if (!strcmp(argv[i], "--no-w1")) do_w1 = 0;
    else if (!strcmp(argv[i], "--no-big")) do_big = 0;
    else usage();
  }
  if (reps < 1 || reps > MAX_REPS || build_reps < 1 || build_reps > MAX_REPS) usage();
  {
    char buf[128], *tok, *save = NULL;
    snprintf(buf, sizeof buf, "%s", tlist);
    for (tok = strtok_r(buf, ",", &save); tok && nthreads < 16; tok = strtok_r(NULL, ",", &save))
      threads[nthreads++] = (int32_t)atoi(tok);
    if (!nthreads) usage();
  }
  if (ca_version_number() != CA_VERSION_NUMBER) {
    fprintf(stderr, "bench_array: FAILED: header version %d, library %d\n", CA_VERSION_NUMBER,
            (int)ca_version_number());
    return 1;
  }

  if (do_w1) {
    ca_array_t *s;
    int64_t ca_tasks;
    /* ---- W2: array-level build ---- */
    for (r = 0; r < build_reps; ++r) {
      double t0 = now_s();
      s = build_w1();
      times[r] = now_s() - t0;
      ca_array_free(s);
    }
    s = build_w1();
    ca_tasks = count_tasks(s);
    {
      stats_t st = summarize(times, build_reps);
      printf("{\"bench\":\"a_w2_build\",\"ca_tasks\":%lld,\"reps\":%d,\"best_s\":%.9f,\"median_s\":%.9f,"
             "\"worst_s\":%.9f}\n",
             (long long)ca_tasks, build_reps, st.best, st.median, st.worst);
      fprintf(stderr, "W2 array build: best %.2f us, median %.2f us (%d reps); graph holds %lld tasks\n",
              st.best * 1e6, st.median * 1e6, build_reps, (long long)ca_tasks);
    }
    /* ---- W1: compute ---- */
    for (i = 0; i < nthreads; ++i) {
      ca_context_t *ctx = make_context(threads[i]);
      int32_t actual = ca_context_num_threads(ctx);
      stats_t st = time_compute(ctx, s, reps, W1_RESULT, 0.0, "W1 compute", times);
      printf("{\"bench\":\"a_w1_compute\",\"threads\":%d,\"actual_threads\":%d,\"dask_tasks\":%d,"
             "\"ca_tasks\":%lld,\"reps\":%d,\"best_s\":%.9f,\"median_s\":%.9f,\"worst_s\":%.9f,"
             "\"best_us_per_task\":%.6f,\"median_us_per_task\":%.6f,\"best_us_per_ca_task\":%.6f,"
             "\"median_us_per_ca_task\":%.6f,\"result\":%.1f}\n",
             (int)threads[i], (int)actual, DASK_W1_TASKS, (long long)ca_tasks, reps, st.best, st.median,
             st.worst, st.best * 1e6 / DASK_W1_TASKS, st.median * 1e6 / DASK_W1_TASKS,
             st.best * 1e6 / (double)ca_tasks, st.median * 1e6 / (double)ca_tasks, W1_RESULT);
      fprintf(stderr,
              "W1 array compute, num_threads=%d (%d workers): best %.2f ms = %.4f us per dask task "
              "(%.3f us per chunkarray task, %lld tasks), median %.4f us per dask task\n",
              (int)threads[i], (int)actual, st.best * 1e3, st.best * 1e6 / DASK_W1_TASKS,
              st.best * 1e6 / (double)ca_tasks, (long long)ca_tasks, st.median * 1e6 / DASK_W1_TASKS);
      ca_context_free(ctx);
    }
    ca_array_free(s);
  }

  if (do_big) {
    const int64_t shape[2] = {BIG_ROWS, BIG_COLS};
    size_t n = (size_t)BIG_ROWS * BIG_COLS;
    ca_dimchunks_t spec[2];
    ca_chunkset_t *cs = NULL;
    ca_chunks_t ch;
    ca_array_t *x = NULL, *x1 = NULL, *x2 = NULL, *s3 = NULL, *s4 = NULL;
    double *buf, ref3, ref4, refmt, t0, rt3[MAX_REPS], rt4[MAX_REPS], rtmt[MAX_REPS];
    int mt = threads[0] > 1 ? threads[0] : 2;
    int64_t tasks3, tasks4;
    int rr = reps < 3 ? 3 : reps;

    t0 = now_s();
    buf = alloc_x();
    fprintf(stderr, "W3/W4: allocated and filled 2 GiB in %.2f s\n", now_s() - t0);
    for (r = 0; r < rr; ++r) {
      t0 = now_s();
      ref3 = ref_sum(buf, n);
      rt3[r] = now_s() - t0;
      t0 = now_s();
      ref4 = ref_expr_sum(buf, n);
      rt4[r] = now_s() - t0;
      t0 = now_s();
      refmt = ref_sum_mt(buf, n, mt);
      rtmt[r] = now_s() - t0;
    }
    if (!(fabs(refmt - ref3) <= 1e-9 * fabs(ref3))) {
      fprintf(stderr, "bench_array: FAILED: threaded reference sum %.17g != %.17g\n", refmt, ref3);
      return 1;
    }
    {
      stats_t a = summarize(rt3, rr), b = summarize(rt4, rr), c = summarize(rtmt, rr);
      printf("{\"bench\":\"a_ref\",\"reps\":%d,\"sum_best_s\":%.9f,\"sum_best_gbs\":%.4f,\"expr_best_s\":%.9f,"
             "\"expr_best_gbs\":%.4f,\"mt_threads\":%d,\"sum_mt_best_s\":%.9f,\"sum_mt_best_gbs\":%.4f,"
             "\"sum\":%.17g,\"expr_sum\":%.17g}\n",
             rr, a.best, BIG_NBYTES / a.best * 1e-9, b.best, BIG_NBYTES / b.best * 1e-9, mt, c.best,
             BIG_NBYTES / c.best * 1e-9, ref3, ref4);
      fprintf(stderr, "reference C loops: 1 thread sum %.2f GB/s, ((x+1)*2).sum %.2f GB/s; %d threads sum %.2f GB/s\n",
              BIG_NBYTES / a.best * 1e-9, BIG_NBYTES / b.best * 1e-9, mt, BIG_NBYTES / c.best * 1e-9);
    }

    memset(spec, 0, sizeof spec);
    spec[0].size = BIG_CHUNK;
    spec[1].size = BIG_CHUNK;
    CHECK(ca_normalize_chunks(&cs, NULL, spec, 2, shape, CA_FLOAT64, 0));
    ch = ca_chunkset_view(cs);
    CHECK(ca_array_from_buffer(&x, buf, CA_FLOAT64, 2, shape, &ch, &(ca_buffer_options_t){sizeof(ca_buffer_options_t), CA_BUFFER_BORROW, NULL, NULL, NULL}));
    ca_chunkset_free(cs);
    CHECK(ca_array_reduce(&s3, CA_RED_SUM, x, NULL, 0, false, NULL));
    CHECK(ca_array_binary_scalar(&x1, CA_OP_ADD, x, f64_scalar(1.0), false));
    CHECK(ca_array_binary_scalar(&x2, CA_OP_MUL, x1, f64_scalar(2.0), false));
    CHECK(ca_array_reduce(&s4, CA_RED_SUM, x2, NULL, 0, false, NULL));
    ca_array_free(x1);
    ca_array_free(x2);
    tasks3 = count_tasks(s3);
    tasks4 = count_tasks(s4);

    for (i = 0; i < nthreads; ++i) {
      ca_context_t *ctx = make_context(threads[i]);
      int32_t actual = ca_context_num_threads(ctx);
      stats_t st = time_compute(ctx, s3, reps, ref3, 1e-9, "W3 x.sum()", times);
      emit_big("a_w3_sum", threads[i], actual, tasks3, reps, st, ref3);
      st = time_compute(ctx, s4, reps, ref4, 1e-9, "W4 ((x+1)*2).sum()", times);
      emit_big("a_w4_expr_sum", threads[i], actual, tasks4, reps, st, ref4);
      if (threads[i] == mt) paired(ctx, s3, s4, buf, n, mt, reps, ref3, ref4);
      ca_context_free(ctx);
    }
    ca_array_free(s3);
    ca_array_free(s4);
    ca_array_free(x); /* borrowed buffer: no array needs it any more */
    free(buf);
  }
  return 0;
}
