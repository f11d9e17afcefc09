/*
 * W1 / W2 of /work/shared/WORKLOADS.md at the graph level, through the public C API only.
 *
 *   dask:  x = da.ones(1_000_000, chunks=5); y = (x + 1).sum(split_every=4)
 *
 * Graph (all layers symbolic):
 *   ones     blockwise "i", 200,000 blocks (new axis: ca_blockwise_options_t.numblocks)  ones(5)
 *   add      blockwise "i" over ones                                                      addc(block, 1.0)
 *   csum     blockwise "i" over add                                                       sum(block) -> 0-d
 *   tree1..9 partial reduce, split 4, until one block                                     combine([0-d, ...])
 *   = 200000*3 + 50000+12500+3125+782+196+49+13+4+1 = 666,670 tasks; the result is exactly 2,000,000.
 *
 * Measures:
 *   W2  graph build (ca_graph_new + the 12 layers), best and median of --build-reps.
 *   plan  ca_graph_validate() of the final key with the context (materializes the plan: culling, key
 *         resolution, CSR dependencies) -- for information, it is part of every ca_compute.
 *   W1  ca_compute() wall time / 666,670 per task, for each --threads value (2 is the target; 1 and
 *       0 = synchronous mode for information), best and median of --reps, after --warmup seconds
 *       of computes (default 2, at least one; see "warm-up" below).
 *   floor  the same kernels called directly in a plain loop (no graph, no scheduler): what the
 *          kernels and their block allocations alone cost per task, on one thread.
 *   paired  (--paired N, when --threads lists 1 and a count above 1) N pairs, each a 1-thread and a
 *          2-thread compute back to back, each pair after a host probe; the median and lowest ratio.
 *   warm-up  A process's first computes are slow for a while with two threads: the pool's helper
 *          builder faults its plan arrays in (~60 MB for W1's 666,670 tasks, kept from one plan to
 *          the next), a slice at a time while the caller walks. On the project's VMs a page the
 *          guest never used before costs the host a fault of its own: 4 MB took the helper ~37 ms
 *          (CA_COMPUTE_PROFILE: it then takes no units, and the plan walk is 37 ms instead of 13.5),
 *          so W1 with two threads read ~0.115 us per task for the first ~15 computes of some
 *          processes (1.1-1.2x one thread) and 0.075 after. One warm-up compute did not cover that.
 *   host   what two threads of plain independent work (a multiply chain and L2 reads, no sharing)
 *          get from this machine against one: 2.0 when the two vCPUs run on two physical cores. On
 *          the project's VMs it read 1.60-1.63 for stretches of a second or more after an idle
 *          spell (both vCPUs on one core's SMT siblings, it seems), where no two-thread figure can
 *          show its usual speedup. Before each multi-thread section the bench keeps both vCPUs
 *          busy with this probe until three probes in a row read >= 1.85 (at most --settle
 *          seconds) and prints what it read; every paired measurement records its probe.
 *
 * Output: a human-readable summary on stderr and one JSON object per line on stdout:
 *   {"bench":"w2_build", ...} {"bench":"plan", ...} {"bench":"host_probe", ...}
 *   {"bench":"w1_compute","threads":2, ...} {"bench":"w1_paired","threads":2, ...} {"bench":"kernel_floor", ...}
 * Any wrong task count, failing call or wrong result exits with status 1 and a message.
 *
 * Usage: bench_graph [--reps N] [--build-reps N] [--threads 2,1,0] [--no-floor] [--paired N]
 *                    [--settle SECONDS] [--warmup SECONDS]
 */
#define _POSIX_C_SOURCE 200809L
#include <chunkarray/chunkarray.h>

#include <pthread.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NBLOCKS 200000
#define CHUNK 5
#define SPLIT 4
#define EXPECTED_TASKS 666670
#define EXPECTED_RESULT 2000000.0
#define MAX_REPS 1000
#define MAX_LEVELS 64

/* ---------------------------------------------------------------------------------------------- */
/* helpers                                                                                          */
/* ---------------------------------------------------------------------------------------------- */

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what, ca_status_t st) {
  fprintf(stderr, "bench_graph: FAILED: %s: %s (%d): %s\n", what, ca_status_str(st), (int)st,
          ca_last_error_message());
  exit(1);
}

#define CHECK(call)                  \
  do {                               \
    ca_status_t st_ = (call);        \
    if (st_ != CA_OK) die(#call, st_); \
  } while (0)

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

typedef struct {
  double best, median, mean, worst;
} stats_t;

static stats_t summarize(double *v, int n) {
  stats_t s;
  double sum = 0;
  int i;
  qsort(v, (size_t)n, sizeof(double), cmp_double);
  for (i = 0; i < n; ++i) sum += v[i];
  s.best = v[0];
  s.worst = v[n - 1];
  s.median = (n % 2) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  s.mean = sum / n;
  return s;
}

/* ---------------------------------------------------------------------------------------------- */
/* host probe: two threads of independent work against one                                          */
/* ---------------------------------------------------------------------------------------------- */

#define PROBE_BUF (256 * 1024)
static unsigned char probe_buf[2][PROBE_BUF];
static volatile uint64_t probe_sink[2]; /* one per thread */

typedef struct {
  int id;
  long iters;
} probe_arg_t;

static void *probe_work(void *p) {
  const probe_arg_t *a = (const probe_arg_t *)p;
  const unsigned char *b = probe_buf[a->id];
  uint64_t x = (uint64_t)a->id + 1, s = 0;
  long i;
  for (i = 0; i < a->iters; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    s += b[(x >> 40) & (PROBE_BUF - 1)];
  }
  probe_sink[a->id] += s;
  return NULL;
}

/* 2 x (one thread's time for the work) / (two threads' time for twice the work, one share each). */
static double host_probe(void) {
  static long iters = 0;
  probe_arg_t a0 = {0, 0}, a1 = {1, 0};
  pthread_t th;
  double t0, t1, t2;
  if (!iters) { /* ~4 ms of work on one thread */
    a0.iters = 1L << 18;
    t0 = now_s();
    probe_work(&a0);
    t1 = now_s() - t0;
    iters = (long)((double)a0.iters * 0.004 / (t1 > 1e-6 ? t1 : 1e-6));
    if (iters < (1L << 16)) iters = 1L << 16;
  }
  a0.iters = a1.iters = iters;
  t0 = now_s();
  probe_work(&a0);
  t1 = now_s() - t0;
  t0 = now_s();
  if (pthread_create(&th, NULL, probe_work, &a1) != 0) return 0.0;
  probe_work(&a0);
  pthread_join(th, NULL);
  t2 = now_s() - t0;
  return 2.0 * t1 / t2;
}

/* Keeps both vCPUs busy with the probe until three in a row read >= 1.85 or `limit` seconds pass,
 * and prints the last reading and the seconds it took. */
static void settle_host(double limit) {
  double t0 = now_s(), c = 0.0, took;
  int good = 0;
  while (good < 3) {
    c = host_probe();
    good = c >= 1.85 ? good + 1 : 0;
    if (now_s() - t0 >= limit) break;
  }
  took = now_s() - t0;
  fprintf(stderr, "host: two threads of plain work ran %.2fx one (after %.2f s of settling)\n", c, took);
  printf("{\"bench\":\"host_probe\",\"capacity\":%.3f,\"settle_s\":%.3f}\n", c, took);
}

/* ---------------------------------------------------------------------------------------------- */
/* kernels (native signature)                                                                       */
/* ---------------------------------------------------------------------------------------------- */

static ca_status_t k_fail(ca_kernel_ctx_t *kctx, const char *msg) {
  ca_kernel_set_error(kctx, msg);
  return CA_ETYPE;
}

/* ones(n) -> float64 block of n ones */
static ca_status_t k_ones(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx,
                          void *ud) {
  int64_t n, i;
  double *p;
  ca_status_t st;
  (void)ud;
  if (nargs != 1 || args[0].kind != CA_ARG_INT64) return k_fail(kctx, "ones: expected (int64)");
  n = args[0].u.i64;
  st = ca_block_new(out, CA_FLOAT64, 1, &n);
  if (st != CA_OK) return st;
  p = (double *)ca_block_data(*out);
  for (i = 0; i < n; ++i) p[i] = 1.0;
  return CA_OK;
}

/* addc(block, c) -> block + c */
static ca_status_t k_addc(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx,
                          void *ud) {
  const ca_block_t *in;
  const double *a;
  double *p, c;
  int64_t n, i;
  ca_status_t st;
  (void)ud;
  if (nargs != 2 || args[0].kind != CA_ARG_BLOCK || args[1].kind != CA_ARG_FLOAT64)
    return k_fail(kctx, "addc: expected (block, float64)");
  in = args[0].u.block;
  if (ca_block_dtype(in) != CA_FLOAT64) return k_fail(kctx, "addc: block is not float64");
  c = args[1].u.f64;
  st = ca_block_new(out, CA_FLOAT64, ca_block_ndim(in), ca_block_shape(in));
  if (st != CA_OK) return st;
  n = ca_block_size(in);
  a = (const double *)ca_block_data(in);
  p = (double *)ca_block_data(*out);
  for (i = 0; i < n; ++i) p[i] = a[i] + c;
  return CA_OK;
}

static ca_status_t new_scalar(ca_block_t **out, double v) {
  ca_status_t st = ca_block_new(out, CA_FLOAT64, 0, NULL);
  if (st != CA_OK) return st;
  *(double *)ca_block_data(*out) = v;
  return CA_OK;
}

/* sum(block) -> 0-d */
static ca_status_t k_sum(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx,
                         void *ud) {
  const double *a;
  double s = 0;
  int64_t n, i;
  (void)ud;
  if (nargs != 1 || args[0].kind != CA_ARG_BLOCK) return k_fail(kctx, "sum: expected (block)");
  if (ca_block_dtype(args[0].u.block) != CA_FLOAT64) return k_fail(kctx, "sum: block is not float64");
  n = ca_block_size(args[0].u.block);
  a = (const double *)ca_block_data(args[0].u.block);
  for (i = 0; i < n; ++i) s += a[i];
  return new_scalar(out, s);
}

/* combine([0-d, ...]) -> 0-d sum */
static ca_status_t k_combine(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx,
                             void *ud) {
  double s = 0;
  size_t i;
  (void)ud;
  if (nargs != 1 || args[0].kind != CA_ARG_LIST) return k_fail(kctx, "combine: expected (list)");
  for (i = 0; i < args[0].u.list.len; ++i) {
    const ca_arg_t *it = &args[0].u.list.items[i];
    if (it->kind != CA_ARG_BLOCK || ca_block_dtype(it->u.block) != CA_FLOAT64 || ca_block_size(it->u.block) != 1)
      return k_fail(kctx, "combine: list items must be 0-d float64 blocks");
    s += *(const double *)ca_block_data(it->u.block);
  }
  return new_scalar(out, s);
}

/* ---------------------------------------------------------------------------------------------- */
/* graph                                                                                            */
/* ---------------------------------------------------------------------------------------------- */

typedef struct {
  ca_graph_t *g;
  char final_name[32];
  int nlevels;
} w1_graph_t;

/* Builds the W1 graph. Everything here is what W2 times. */
static void build_w1(w1_graph_t *w) {
  const int64_t numblocks[1] = {NBLOCKS};
  const int64_t split[1] = {SPLIT};
  ca_blockwise_options_t bo = CA_BLOCKWISE_OPTIONS_INIT;
  ca_arg_t a_ones[1], a_add[2], a_sum[1];
  char prev[32], cur[32];
  int64_t nb = NBLOCKS;
  int level = 0;

  CHECK(ca_graph_new(&w->g));
  bo.numblocks = numblocks;
  a_ones[0] = ca_arg_i64(CHUNK);
  CHECK(ca_graph_add_blockwise(w->g, "ones", "i", "ones", a_ones, 1, &bo));
  a_add[0] = ca_arg_indexed("ones", "i");
  a_add[1] = ca_arg_f64(1.0);
  CHECK(ca_graph_add_blockwise(w->g, "add", "i", "addc", a_add, 2, NULL));
  a_sum[0] = ca_arg_indexed("add", "i");
  CHECK(ca_graph_add_blockwise(w->g, "csum", "i", "sum", a_sum, 1, NULL));
  strcpy(prev, "csum");
  while (nb > 1) {
    ++level;
    snprintf(cur, sizeof cur, "tree%d", level);
    CHECK(ca_graph_add_partial_reduce(w->g, cur, prev, split, 1, "combine", NULL, 0));
    nb = (nb + SPLIT - 1) / SPLIT;
    strcpy(prev, cur);
  }
  strcpy(w->final_name, prev);
  w->nlevels = level;
}

static ca_context_t *make_context(int32_t threads) {
  ca_context_options_t co = CA_CONTEXT_OPTIONS_INIT;
  ca_context_t *ctx = NULL;
  co.num_threads = threads;
  co.builtin_kernels = 0; /* our own kernels only */
  CHECK(ca_context_new(&ctx, &co));
  CHECK(ca_context_register(ctx, "ones", k_ones, NULL));
  CHECK(ca_context_register(ctx, "addc", k_addc, NULL));
  CHECK(ca_context_register(ctx, "sum", k_sum, NULL));
  CHECK(ca_context_register(ctx, "combine", k_combine, NULL));
  return ctx;
}

static void check_result(const ca_block_t *res, const char *when) {
  double v;
  if (!res || ca_block_dtype(res) != CA_FLOAT64 || ca_block_ndim(res) != 0) {
    fprintf(stderr, "bench_graph: FAILED: %s: result is not a 0-d float64 block\n", when);
    exit(1);
  }
  v = *(const double *)ca_block_data(res);
  if (v != EXPECTED_RESULT) {
    fprintf(stderr, "bench_graph: FAILED: %s: result is %.17g, expected %.17g\n", when, v, EXPECTED_RESULT);
    exit(1);
  }
}

/* ---------------------------------------------------------------------------------------------- */
/* kernel floor: the same kernel calls with no graph and no scheduler                               */
/* ---------------------------------------------------------------------------------------------- */

static double kernel_floor(int64_t *ncalls) {
  ca_arg_t a1, a2[2], a3, items[SPLIT], lst;
  static ca_block_t *level_buf[2][NBLOCKS / SPLIT + SPLIT];
  ca_block_t *b1, *b2, *b3, *r;
  int64_t n = NBLOCKS, calls = 0, i, j;
  int cur = 0;
  double t0 = now_s(), total;
  static ca_block_t *scal[NBLOCKS];

  a1 = ca_arg_i64(CHUNK);
  for (i = 0; i < NBLOCKS; ++i) {
    CHECK(k_ones(&b1, &a1, 1, NULL, NULL));
    a2[0].kind = CA_ARG_BLOCK; a2[0].reserved = 0; a2[0].u.block = b1;
    a2[1] = ca_arg_f64(1.0);
    CHECK(k_addc(&b2, a2, 2, NULL, NULL));
    ca_block_free(b1);
    a3.kind = CA_ARG_BLOCK; a3.reserved = 0; a3.u.block = b2;
    CHECK(k_sum(&b3, &a3, 1, NULL, NULL));
    ca_block_free(b2);
    scal[i] = b3;
    calls += 3;
  }
  /* tree */
  {
    ca_block_t **in = scal, **out = level_buf[cur];
    while (n > 1) {
      int64_t m = (n + SPLIT - 1) / SPLIT;
      for (i = 0; i < m; ++i) {
        size_t k = 0;
        for (j = i * SPLIT; j < n && j < (i + 1) * SPLIT; ++j) {
          items[k].kind = CA_ARG_BLOCK; items[k].reserved = 0; items[k].u.block = in[j];
          ++k;
        }
        lst = ca_arg_list(items, k);
        CHECK(k_combine(&out[i], &lst, 1, NULL, NULL));
        for (j = i * SPLIT; j < n && j < (i + 1) * SPLIT; ++j) ca_block_free(in[j]);
        ++calls;
      }
      n = m;
      in = out;
      cur ^= 1;
      out = level_buf[cur];
    }
    r = in[0];
  }
  total = now_s() - t0;
  check_result(r, "kernel floor");
  ca_block_free(r);
  *ncalls = calls;
  return total;
}

/* ---------------------------------------------------------------------------------------------- */
/* main                                                                                             */
/* ---------------------------------------------------------------------------------------------- */

/* Computes until `seconds` have passed (at least once): see "warm-up" at the top. */
static void warm_up(ca_context_t *ctx, const w1_graph_t *w, const ca_key_t *key, double seconds, int32_t threads) {
  double t0 = now_s(), first = 0, last = 0;
  int n = 0;
  do {
    ca_block_t *res = NULL;
    double t = now_s();
    CHECK(ca_compute(&res, ctx, w->g, key, 1, NULL));
    last = now_s() - t;
    if (!n) first = last;
    check_result(res, "warm-up compute");
    ca_block_free(res);
    ++n;
  } while (now_s() - t0 < seconds);
  fprintf(stderr, "warm-up, %d thread(s): %d computes in %.2f s, the first %.1f ms, the last %.1f ms\n", (int)threads,
          n, now_s() - t0, first * 1e3, last * 1e3);
}

static void usage(void) {
  fprintf(stderr, "usage: bench_graph [--reps N] [--build-reps N] [--threads 2,1,0] [--no-floor] [--paired N] "
                  "[--settle SECONDS] [--warmup SECONDS]\n");
  exit(2);
}

int main(int argc, char **argv) {
  int reps = 7, build_reps = 20, do_floor = 1, paired = 0;
  double settle = 3.0, warmup = 2.0;
  int32_t threads[16];
  int nthreads = 0, i, r;
  const char *tlist = "2,1,0";
  double times[MAX_REPS];
  w1_graph_t w;
  int64_t ntasks, zero = 0;
  ca_key_t key;

  for (i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--build-reps") && i + 1 < argc) build_reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc) tlist = argv[++i];
    else if (!strcmp(argv[i], "--no-floor")) do_floor = 0;
    else if (!strcmp(argv[i], "--paired") && i + 1 < argc) paired = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--settle") && i + 1 < argc) settle = atof(argv[++i]);
    else if (!strcmp(argv[i], "--warmup") && i + 1 < argc) warmup = atof(argv[++i]);
    else usage();
  }
  if (reps < 1 || reps > MAX_REPS || build_reps < 1 || build_reps > MAX_REPS || paired < 0 || paired > MAX_REPS ||
      !(settle >= 0) || !(warmup >= 0))
    usage();
  {
    char buf[128], *tok, *save = NULL;
    snprintf(buf, sizeof buf, "%s", tlist);
    for (tok = strtok_r(buf, ",", &save); tok && nthreads < 16; tok = strtok_r(NULL, ",", &save))
      threads[nthreads++] = (int32_t)atoi(tok);
    if (!nthreads) usage();
  }
  if (ca_version_number() != CA_VERSION_NUMBER) {
    fprintf(stderr, "bench_graph: FAILED: header version %d, library %d\n", CA_VERSION_NUMBER,
            (int)ca_version_number());
    return 1;
  }

  /* ---- W2: graph build ---- */
  for (r = 0; r < build_reps; ++r) {
    double t0 = now_s(), t1;
    build_w1(&w);
    t1 = now_s();
    times[r] = t1 - t0;
    ntasks = ca_graph_num_tasks(w.g);
    if (ntasks != EXPECTED_TASKS) {
      fprintf(stderr, "bench_graph: FAILED: ca_graph_num_tasks = %lld, expected %d\n", (long long)ntasks,
              EXPECTED_TASKS);
      return 1;
    }
    ca_graph_free(w.g);
  }
  {
    stats_t s = summarize(times, build_reps);
    printf("{\"bench\":\"w2_build\",\"tasks\":%d,\"layers\":%d,\"reps\":%d,\"best_s\":%.9f,\"median_s\":%.9f,"
           "\"worst_s\":%.9f}\n",
           EXPECTED_TASKS, 3 + w.nlevels, build_reps, s.best, s.median, s.worst);
    fprintf(stderr, "W2 graph build: %d layers, %d tasks: best %.2f us, median %.2f us (%d reps)\n",
            3 + w.nlevels, EXPECTED_TASKS, s.best * 1e6, s.median * 1e6, build_reps);
  }

  /* The graph computed below. */
  build_w1(&w);
  key.name = w.final_name;
  key.index = &zero;
  key.nindex = 1;
  if (!ca_graph_has_key(w.g, &key)) {
    fprintf(stderr, "bench_graph: FAILED: final key (%s, 0) is not in the graph\n", w.final_name);
    return 1;
  }

  /* ---- plan materialization (ca_graph_validate with a context) ---- */
  {
    ca_context_t *ctx = make_context(0);
    int prep = reps < 3 ? 3 : reps;
    for (r = 0; r < prep; ++r) {
      double t0 = now_s();
      CHECK(ca_graph_validate(w.g, ctx, &key, 1));
      times[r] = now_s() - t0;
    }
    {
      stats_t s = summarize(times, prep);
      printf("{\"bench\":\"plan\",\"tasks\":%d,\"reps\":%d,\"best_s\":%.9f,\"median_s\":%.9f,"
             "\"best_us_per_task\":%.6f,\"median_us_per_task\":%.6f}\n",
             EXPECTED_TASKS, prep, s.best, s.median, s.best * 1e6 / EXPECTED_TASKS,
             s.median * 1e6 / EXPECTED_TASKS);
      fprintf(stderr, "plan (ca_graph_validate): best %.1f ms = %.3f us/task, median %.1f ms\n", s.best * 1e3,
              s.best * 1e6 / EXPECTED_TASKS, s.median * 1e3);
    }
    ca_context_free(ctx);
  }

  /* ---- W1: compute ---- */
  for (i = 0; i < nthreads; ++i) {
    ca_context_t *ctx = make_context(threads[i]);
    ca_block_t *res = NULL;
    int32_t actual = ca_context_num_threads(ctx);
    if (actual > 1) settle_host(settle);
    warm_up(ctx, &w, &key, warmup, actual);
    for (r = 0; r < reps; ++r) {
      double t0 = now_s(), t1;
      CHECK(ca_compute(&res, ctx, w.g, &key, 1, NULL));
      t1 = now_s();
      check_result(res, "compute");
      ca_block_free(res);
      times[r] = t1 - t0;
    }
    {
      stats_t s = summarize(times, reps);
      printf("{\"bench\":\"w1_compute\",\"threads\":%d,\"actual_threads\":%d,\"tasks\":%d,\"reps\":%d,"
             "\"best_s\":%.9f,\"median_s\":%.9f,\"worst_s\":%.9f,\"best_us_per_task\":%.6f,"
             "\"median_us_per_task\":%.6f,\"result\":%.1f}\n",
             (int)threads[i], (int)actual, EXPECTED_TASKS, reps, s.best, s.median, s.worst,
             s.best * 1e6 / EXPECTED_TASKS, s.median * 1e6 / EXPECTED_TASKS, EXPECTED_RESULT);
      fprintf(stderr, "W1 compute, num_threads=%d (%d workers): best %.1f ms = %.3f us/task, median %.3f us/task\n",
              (int)threads[i], (int)actual, s.best * 1e3, s.best * 1e6 / EXPECTED_TASKS,
              s.median * 1e6 / EXPECTED_TASKS);
    }
    ca_context_free(ctx);
  }
  /* ---- W1 paired: a 1-thread and a many-thread compute back to back, each pair after a probe ---- */
  if (paired > 0) {
    int32_t many = 0;
    int has1 = 0;
    for (i = 0; i < nthreads; ++i) {
      if (threads[i] == 1) has1 = 1;
      if (threads[i] > many) many = threads[i];
    }
    if (has1 && many > 1) {
      ca_context_t *c1 = make_context(1), *cm = make_context(many);
      ca_block_t *res = NULL;
      double ratio[MAX_REPS], cap[MAX_REPS];
      int lowcap = 0;
      warm_up(c1, &w, &key, warmup, 1);
      warm_up(cm, &w, &key, warmup, many);
      settle_host(settle);
      for (r = 0; r < paired; ++r) {
        double t0, ta, tb;
        cap[r] = host_probe();
        lowcap += cap[r] < 1.85;
        t0 = now_s();
        CHECK(ca_compute(&res, c1, w.g, &key, 1, NULL));
        ta = now_s() - t0;
        check_result(res, "paired compute, 1 thread");
        ca_block_free(res);
        t0 = now_s();
        CHECK(ca_compute(&res, cm, w.g, &key, 1, NULL));
        tb = now_s() - t0;
        check_result(res, "paired compute");
        ca_block_free(res);
        ratio[r] = ta / tb;
      }
      {
        stats_t sr = summarize(ratio, paired), sc = summarize(cap, paired);
        printf("{\"bench\":\"w1_paired\",\"threads\":%d,\"pairs\":%d,\"ratio_median\":%.4f,\"ratio_lowest\":%.4f,"
               "\"ratio_highest\":%.4f,\"host_median\":%.3f,\"host_lowest\":%.3f,\"host_below_1_85\":%d}\n",
               (int)many, paired, sr.median, sr.best, sr.worst, sc.median, sc.best, lowcap);
        fprintf(stderr,
                "W1 paired (%d pairs, 1 thread then %d back to back): %d threads %.2fx one (median; lowest %.2fx, "
                "highest %.2fx); host probe before each pair: median %.2fx, lowest %.2fx, %d below 1.85\n",
                paired, (int)many, (int)many, sr.median, sr.best, sr.worst, sc.median, sc.best, lowcap);
      }
      ca_context_free(c1);
      ca_context_free(cm);
    }
  }
  ca_graph_free(w.g);

  /* ---- kernel floor ---- */
  if (do_floor) {
    int64_t calls = 0;
    int fr = reps < 3 ? 3 : reps;
    for (r = 0; r < fr; ++r) times[r] = kernel_floor(&calls);
    if (calls != EXPECTED_TASKS) {
      fprintf(stderr, "bench_graph: FAILED: kernel floor made %lld calls, expected %d\n", (long long)calls,
              EXPECTED_TASKS);
      return 1;
    }
    {
      stats_t s = summarize(times, fr);
      printf("{\"bench\":\"kernel_floor\",\"tasks\":%d,\"reps\":%d,\"best_s\":%.9f,\"median_s\":%.9f,"
             "\"best_us_per_task\":%.6f,\"median_us_per_task\":%.6f}\n",
             EXPECTED_TASKS, fr, s.best, s.median, s.best * 1e6 / EXPECTED_TASKS, s.median * 1e6 / EXPECTED_TASKS);
      fprintf(stderr, "kernel floor (direct calls, 1 thread): best %.1f ms = %.3f us/task\n", s.best * 1e3,
              s.best * 1e6 / EXPECTED_TASKS);
    }
  }
  return 0;
}
