/*
 * demo_graph.c: a real chunked computation through the public C API, with a progress bar.
 *
 * Monte-Carlo integration of f(x) = 4 / (1 + x^2) over [0, 1) (the exact value is pi), written the
 * way dask.array would build it: three symbolic blockwise layers and a partial-reduce tree.
 *
 *   samples[i] = uniform(n, seed)        n float64 draws of a PRNG seeded by (seed, i)
 *   f[i]       = integrand(samples[i])   4 / (1 + x^2), elementwise
 *   m[i]       = moments(f[i])           [count, sum, sum of squares]
 *   tree-0 ... = combine([m[32k] ... m[32k+31]]), repeated until one block is left
 *
 * Each block's draws depend only on the seed and the block index, and the reduction tree is fixed,
 * so the result is bit-for-bit the same whatever the number of threads. With --check the program
 * also recomputes in synchronous mode and with a plain loop, and fails if anything disagrees.
 *
 * Usage: demo [--blocks N] [--block-size N] [--split N] [--threads N] [--seed N] [--check] [--quiet]
 */
#define _POSIX_C_SOURCE 200809L

#include <chunkarray/chunkarray.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DEMO_PI 3.14159265358979323846

/* ---- PRNG: splitmix64, one independent stream per block ------------------------------------- */

static uint64_t splitmix64_next(uint64_t *state) {
  uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}

static uint64_t block_stream(uint64_t seed, int64_t block) {
  uint64_t s = seed ^ (UINT64_C(0xD1B54A32D192ED03) * (uint64_t)(block + 1));
  return splitmix64_next(&s); /* scramble so that neighbouring blocks start far apart */
}

/* A double in [0, 1) from the top 53 bits. */
static double to_unit(uint64_t x) { return (double)(x >> 11) * 0x1.0p-53; }

static double integrand(double x) { return 4.0 / (1.0 + x * x); }

/* ---- kernels (run concurrently on worker threads; they keep no state) ------------------------ */

/* uniform(n, seed) -> 1-d float64 block of n draws of the stream of this task's block index. */
static ca_status_t k_uniform(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx,
                             void *user_data) {
  (void)user_data;
  int32_t nindex = 0;
  const int64_t *index = ca_kernel_key_index(kctx, &nindex);
  if (nargs != 2 || args[0].kind != CA_ARG_INT64 || args[1].kind != CA_ARG_INT64 || args[0].u.i64 < 0) {
    ca_kernel_set_error(kctx, "demo.uniform takes (n >= 0, seed)");
    return CA_EINVAL;
  }
  if (nindex != 1) {
    ca_kernel_set_error(kctx, "demo.uniform must run as a task of a 1-d layer");
    return CA_EINVAL;
  }
  int64_t n = args[0].u.i64;
  ca_status_t st = ca_block_new(out, CA_FLOAT64, 1, &n);
  if (st != CA_OK) return st;
  double *d = (double *)ca_block_data(*out);
  uint64_t state = block_stream((uint64_t)args[1].u.i64, index[0]);
  for (int64_t i = 0; i < n; ++i) d[i] = to_unit(splitmix64_next(&state));
  return CA_OK;
}

/* integrand(x) -> 4 / (1 + x^2), same shape. */
static ca_status_t k_integrand(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx,
                               void *user_data) {
  (void)user_data;
  if (nargs != 1 || args[0].kind != CA_ARG_BLOCK || ca_block_dtype(args[0].u.block) != CA_FLOAT64) {
    ca_kernel_set_error(kctx, "demo.integrand takes one float64 block");
    return CA_EINVAL;
  }
  const ca_block_t *in = args[0].u.block;
  ca_status_t st = ca_block_new(out, CA_FLOAT64, ca_block_ndim(in), ca_block_shape(in));
  if (st != CA_OK) return st;
  const double *x = (const double *)ca_block_data(in);
  double *y = (double *)ca_block_data(*out);
  int64_t n = ca_block_size(in);
  for (int64_t i = 0; i < n; ++i) y[i] = integrand(x[i]);
  return CA_OK;
}

/* moments(y) -> [count, sum, sum of squares] as a 1-d float64 block of 3. */
static ca_status_t k_moments(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx,
                             void *user_data) {
  (void)user_data;
  if (nargs != 1 || args[0].kind != CA_ARG_BLOCK || ca_block_dtype(args[0].u.block) != CA_FLOAT64) {
    ca_kernel_set_error(kctx, "demo.moments takes one float64 block");
    return CA_EINVAL;
  }
  const double *y = (const double *)ca_block_data(args[0].u.block);
  int64_t n = ca_block_size(args[0].u.block);
  double s = 0.0, s2 = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    s += y[i];
    s2 += y[i] * y[i];
  }
  int64_t three = 3;
  ca_status_t st = ca_block_new(out, CA_FLOAT64, 1, &three);
  if (st != CA_OK) return st;
  double *m = (double *)ca_block_data(*out);
  m[0] = (double)n;
  m[1] = s;
  m[2] = s2;
  return CA_OK;
}

/* Adds every 3-moment block found in @p a (lists recursed, in order) into @p acc. */
static int add_moments(double acc[3], const ca_arg_t *a) {
  if (a->kind == CA_ARG_LIST) {
    for (size_t i = 0; i < a->u.list.len; ++i)
      if (add_moments(acc, &a->u.list.items[i]) != 0) return -1;
    return 0;
  }
  if (a->kind != CA_ARG_BLOCK || ca_block_dtype(a->u.block) != CA_FLOAT64 || ca_block_size(a->u.block) != 3)
    return -1;
  const double *m = (const double *)ca_block_data(a->u.block);
  for (int k = 0; k < 3; ++k) acc[k] += m[k];
  return 0;
}

/* combine([m...]) -> elementwise sum of moment blocks. */
static ca_status_t k_combine(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx,
                             void *user_data) {
  (void)user_data;
  double acc[3] = {0.0, 0.0, 0.0};
  for (size_t i = 0; i < nargs; ++i)
    if (add_moments(acc, &args[i]) != 0) {
      ca_kernel_set_error(kctx, "demo.combine takes lists of 3-element float64 moment blocks");
      return CA_EINVAL;
    }
  int64_t three = 3;
  ca_status_t st = ca_block_new(out, CA_FLOAT64, 1, &three);
  if (st != CA_OK) return st;
  memcpy(ca_block_data(*out), acc, sizeof acc);
  return CA_OK;
}

#include "progress.h"

/* ---- the graph -------------------------------------------------------------------------------- */

typedef struct demo_config {
  int64_t blocks;
  int64_t block_size;
  int64_t split;
  int64_t seed;
  int32_t threads;
  int check;
  int quiet;
} demo_config_t;

static int fail(const char *what, ca_status_t st) {
  fprintf(stderr, "demo: %s failed: %s: %s\n", what, ca_status_str(st), ca_last_error_message());
  return 1;
}

#define TRY(what, call)                    \
  do {                                     \
    ca_status_t st_ = (call);              \
    if (st_ != CA_OK) return fail(what, st_); \
  } while (0)

/* Builds the graph; names[*nlevels - 1] is the final (one-block) layer. */
static int build_graph(ca_graph_t *g, const demo_config_t *cfg, char names[][32], int *nlevels) {
  ca_blockwise_options_t bo = CA_BLOCKWISE_OPTIONS_INIT;
  int64_t nb[1] = {cfg->blocks};
  bo.numblocks = nb; /* "i" is a new axis: no input tells its length */
  ca_arg_t uargs[2] = {ca_arg_i64(cfg->block_size), ca_arg_i64(cfg->seed)};
  TRY("ca_graph_add_blockwise(samples)", ca_graph_add_blockwise(g, "samples", "i", "demo.uniform", uargs, 2, &bo));
  ca_arg_t fargs[1] = {ca_arg_indexed("samples", "i")};
  TRY("ca_graph_add_blockwise(f)", ca_graph_add_blockwise(g, "f", "i", "demo.integrand", fargs, 1, NULL));
  ca_arg_t margs[1] = {ca_arg_indexed("f", "i")};
  TRY("ca_graph_add_blockwise(m)", ca_graph_add_blockwise(g, "m", "i", "demo.moments", margs, 1, NULL));

  /* dask's split_every tree: always at least one combine level, so 1 block still goes through it. */
  const char *prev = "m";
  int64_t remaining = cfg->blocks;
  int level = 0;
  do {
    snprintf(names[level], 32, "tree-%d", level);
    TRY("ca_graph_add_partial_reduce", ca_graph_add_partial_reduce(g, names[level], prev, &cfg->split, 1,
                                                                   "demo.combine", NULL, 0));
    prev = names[level];
    remaining = (remaining + cfg->split - 1) / cfg->split;
    ++level;
  } while (remaining > 1);
  *nlevels = level;
  return 0;
}

/* Runs the graph on a context with @p threads workers; moments in m[3]. */
static int run(const demo_config_t *cfg, int32_t threads, int show_progress, double m[3], int64_t *ntasks,
               double *seconds) {
  ca_context_options_t co = CA_CONTEXT_OPTIONS_INIT;
  co.num_threads = threads;
  ca_context_t *ctx = NULL;
  TRY("ca_context_new", ca_context_new(&ctx, &co));
  int rc = 1;
  ca_graph_t *g = NULL;
  ca_block_t *result = NULL;
  char names[64][32];
  int nlevels = 0;
  ca_status_t st;
  if ((st = ca_context_register(ctx, "demo.uniform", k_uniform, NULL)) != CA_OK ||
      (st = ca_context_register(ctx, "demo.integrand", k_integrand, NULL)) != CA_OK ||
      (st = ca_context_register(ctx, "demo.moments", k_moments, NULL)) != CA_OK ||
      (st = ca_context_register(ctx, "demo.combine", k_combine, NULL)) != CA_OK) {
    fail("ca_context_register", st);
    goto done;
  }
  if ((st = ca_graph_new(&g)) != CA_OK) {
    fail("ca_graph_new", st);
    goto done;
  }
  if (build_graph(g, cfg, names, &nlevels) != 0) goto done;
  *ntasks = ca_graph_num_tasks(g);

  int64_t zero = 0;
  ca_key_t root = {names[nlevels - 1], &zero, 1};
  progress_state_t ps = {isatty(STDOUT_FILENO), !show_progress, now_seconds(), 0, 0};
  ca_compute_options_t opts = CA_COMPUTE_OPTIONS_INIT;
  opts.progress = on_progress;
  opts.progress_user_data = &ps;
  double t0 = now_seconds();
  st = ca_compute(&result, ctx, g, &root, 1, &opts);
  *seconds = now_seconds() - t0;
  if (ps.drawn) printf("\n");
  if (st != CA_OK) {
    fail("ca_compute", st);
    goto done;
  }
  if (ca_block_dtype(result) != CA_FLOAT64 || ca_block_size(result) != 3) {
    fprintf(stderr, "demo: the result is not a 3-element float64 block\n");
    goto done;
  }
  memcpy(m, ca_block_data(result), 3 * sizeof(double));
  rc = 0;
done:
  ca_block_free(result);
  ca_graph_free(g);
  ca_context_free(ctx);
  return rc;
}

/* The same sum with a plain loop on this thread, no library: an independent reference. */
static void reference(const demo_config_t *cfg, double m[3]) {
  m[0] = m[1] = m[2] = 0.0;
  for (int64_t b = 0; b < cfg->blocks; ++b) {
    uint64_t state = block_stream((uint64_t)cfg->seed, b);
    double s = 0.0, s2 = 0.0;
    for (int64_t i = 0; i < cfg->block_size; ++i) {
      double y = integrand(to_unit(splitmix64_next(&state)));
      s += y;
      s2 += y * y;
    }
    m[0] += (double)cfg->block_size;
    m[1] += s;
    m[2] += s2;
  }
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: demo [--blocks N] [--block-size N] [--split N] [--threads N] [--seed N] [--check] [--quiet]\n"
          "  Monte-Carlo integral of 4/(1+x^2) over [0,1) (= pi) as a chunkarray task graph.\n"
          "  --blocks N      number of blocks (default 2000)\n"
          "  --block-size N  float64 samples per block (default 1048576, 8 MiB)\n"
          "  --split N       blocks combined per reduction task (default 32)\n"
          "  --threads N     worker threads, -1 = one per core (default), 0 = synchronous\n"
          "  --seed N        PRNG seed (default 42)\n"
          "  --check         also compute synchronously and with a plain loop; fail on any mismatch\n"
          "  --quiet         no progress output\n");
}

static int parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out) {
  char *end = NULL;
  long long v = strtoll(s, &end, 0);
  if (!s[0] || *end || v < lo || v > hi) return -1;
  *out = v;
  return 0;
}

int main(int argc, char **argv) {
  demo_config_t cfg = {2000, 1 << 20, 32, 42, -1, 0, 0};
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    int64_t v = 0;
    int64_t *target = NULL, lo = 0, hi = 0;
    if (!strcmp(a, "--check")) { cfg.check = 1; continue; }
    if (!strcmp(a, "--quiet")) { cfg.quiet = 1; continue; }
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return 0; }
    if (!strcmp(a, "--blocks")) { target = &cfg.blocks; lo = 1; hi = INT64_C(1) << 40; }
    else if (!strcmp(a, "--block-size")) { target = &cfg.block_size; lo = 1; hi = INT64_C(1) << 32; }
    else if (!strcmp(a, "--split")) { target = &cfg.split; lo = 2; hi = INT64_C(1) << 20; }
    else if (!strcmp(a, "--seed")) { target = &cfg.seed; lo = INT64_MIN; hi = INT64_MAX; }
    else if (!strcmp(a, "--threads")) { target = &v; lo = -1; hi = 1024; }
    else { fprintf(stderr, "demo: unknown argument '%s'\n", a); usage(stderr); return 2; }
    if (i + 1 >= argc || parse_i64(argv[i + 1], lo, hi, target) != 0) {
      fprintf(stderr, "demo: %s needs an integer in [%lld, %lld]\n", a, (long long)lo, (long long)hi);
      return 2;
    }
    if (target == &v) cfg.threads = (int32_t)v;
    ++i;
  }

  if (ca_version_number() != CA_VERSION_NUMBER)
    fprintf(stderr, "demo: warning: built against chunkarray %s, running with %s\n", CA_VERSION_STRING,
            ca_version_string());

  double samples = (double)cfg.blocks * (double)cfg.block_size;
  double bytes = 2.0 * samples * 8.0; /* the samples layer and the integrand layer */
  if (!cfg.quiet)
    printf("chunkarray %s demo: Monte-Carlo integral of 4/(1+x^2) on [0,1) = pi\n"
           "  %lld blocks x %lld float64 (%.1f MiB each), %.3g samples, reduction split %lld\n",
           ca_version_string(), (long long)cfg.blocks, (long long)cfg.block_size,
           (double)cfg.block_size * 8.0 / (1 << 20), samples, (long long)cfg.split);

  double m[3];
  int64_t ntasks = 0;
  double secs = 0.0;
  if (run(&cfg, cfg.threads, !cfg.quiet, m, &ntasks, &secs) != 0) return 1;

  double n = m[0];
  double mean = m[1] / n;
  double var = n > 1 ? (m[2] - n * mean * mean) / (n - 1) : 0.0;
  double stderr_ = sqrt(var > 0 ? var / n : 0.0);
  double err = mean - DEMO_PI;
  double sigmas = stderr_ > 0 ? fabs(err) / stderr_ : 0.0;

  printf("tasks:     %lld (3 blockwise layers of %lld blocks + reduction tree)\n", (long long)ntasks,
         (long long)cfg.blocks);
  printf("data:      %.2f GB of float64 blocks produced and consumed (samples + integrand)\n", bytes / 1e9);
  printf("wall time: %.2f s  (%.2f GB/s, %.0f Msamples/s)\n", secs, secs > 0 ? bytes / 1e9 / secs : 0.0,
         secs > 0 ? samples / 1e6 / secs : 0.0);
  printf("result:    %.10f  analytic pi = %.10f  error %.2e  (%.1f standard errors)\n", mean, DEMO_PI, err,
         sigmas);

  int rc = 0;
  if (n != samples) {
    fprintf(stderr, "demo: FAILED: the reduction counted %.0f samples, expected %.0f\n", n, samples);
    rc = 1;
  }
  /* A correct estimate is within 6 standard errors of pi but for a 1-in-500-million chance. */
  if (!(sigmas < 6.0)) {
    fprintf(stderr, "demo: FAILED: the estimate is %.1f standard errors from pi\n", sigmas);
    rc = 1;
  }
  if (cfg.check) {
    double ms[3], mr[3];
    int64_t t2 = 0;
    double s2 = 0.0;
    if (run(&cfg, 0, 0, ms, &t2, &s2) != 0) return 1;
    if (memcmp(ms, m, sizeof ms) != 0) {
      fprintf(stderr, "demo: FAILED: synchronous mode gives %.17g, %d threads gave %.17g\n", ms[1] / ms[0],
              (int)cfg.threads, mean);
      rc = 1;
    }
    reference(&cfg, mr);
    double rel = fabs(mr[1] - m[1]) / fabs(mr[1]);
    if (mr[0] != m[0] || !(rel < 1e-12)) {
      fprintf(stderr, "demo: FAILED: the plain loop gives sum %.17g over %.0f, the graph %.17g over %.0f\n", mr[1],
              mr[0], m[1], m[0]);
      rc = 1;
    }
    printf("check:     %s (synchronous mode bit-identical, plain loop relative difference %.1e)\n",
           rc == 0 ? "ok" : "FAILED", rel);
  }
  return rc;
}
