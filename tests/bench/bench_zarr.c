/*
 * Issue 7: Zarr v2 storage throughput through the public C API only (chunkarray/io.h), the counterpart
 * of tests/bench/dask_zarr.py (da.to_zarr / da.from_zarr):
 *
 *   x = a (16384, 16384) float64 array (2 GiB), x.flat[i] = (i % 1000) * 0.001, held in one buffer and
 *       wrapped zero-copy (ca_array_from_buffer, CA_BUFFER_BORROW), chunks (2048, 2048): 64 blocks of
 *       32 MiB. dask: da.from_array(np.resize(np.arange(1000) * 0.001, n).reshape(rows, cols), chunks).
 *   write  ca_array_to_zarr(ctx, x, DIR/chunkarray-<compressor>.zarr) into a fresh directory, store
 *          chunks = x's chunks (dask: da.to_zarr(x, path, compressor=...)).
 *   read   ca_array_from_zarr(path) -> sum -> ca_array_compute (dask: da.from_zarr(path).sum().compute()),
 *          the sum checked against the closed form (relative 1e-9).
 * for four compressors, identical on both sides:
 *   none       no compression (zarr compressor=None)
 *   blosc-lz4  blosc, cname lz4, clevel 5, byte shuffle: zarr's default Blosc(cname='lz4', clevel=5,
 *              shuffle=SHUFFLE)
 *   zlib, zstd numcodecs' Zlib() and Zstd(): level 1
 * Each rep deletes the store, times the write, then times the read of what it wrote (the read hits the
 * page cache, as dask's does: both sides measure the same thing; no fsync on either side).
 * GB/s = x's bytes (rows * cols * 8) / 1e9 / seconds, for writes and reads alike (uncompressed bytes).
 *
 * Output: one JSON object per line on stdout, one per measurement:
 *   {"bench":"zarr_write","compressor":"blosc-lz4","rows":16384,"cols":16384,"chunks":[2048,2048],
 *    "threads":2,"rep":0,"seconds":..,"gbps":..,"cpu_seconds":..,"nbytes":..,"store_bytes":..}
 *   {"bench":"zarr_read_sum",...same fields...,"sum":..,"expected":..,"ok":true}
 * and a summary (best and median per workload) on stderr. store_bytes = total size of the store's files.
 * --read-store PATH only reads an existing store (written by anyone, e.g. dask), sums it and prints
 *   {"bench":"zarr_read_store","path":..,"rows":..,"cols":..,"seconds":..,"sum":..,"expected":..,"ok":..}
 * where expected is the closed form for the store's shape (run_zarr.sh's cross-compatibility check).
 * Any failing call or wrong sum exits with status 1.
 *
 * Usage: bench_zarr [--reps N] [--dir PATH] [--rows R] [--cols C] [--chunk-rows R] [--chunk-cols C]
 *                   [--threads T] [--compressor none|blosc-lz4|zlib|zstd|all] [--no-compress] [--keep]
 *                   [--read-store PATH]
 *   --dir   where the stores go (created if missing; default: a fresh /var/tmp/bench_zarr.XXXXXX,
 *           removed at the end). Stores are DIR/chunkarray-<compressor>.zarr.
 *   --keep  leave the last rep's stores (and the default directory) in place; the path is on stderr.
 */
#define _POSIX_C_SOURCE 200809L
#include <chunkarray/chunkarray.h>

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define MAX_REPS 1000
#define NCOMP 4 /* none, blosc-lz4, zlib, zstd */

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double cpu_now(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
         (double)ru.ru_stime.tv_usec * 1e-6;
}

#define CHECK(call)                                                                                 \
  do {                                                                                              \
    ca_status_t st_ = (call);                                                                       \
    if (st_ != CA_OK) {                                                                             \
      fprintf(stderr, "bench_zarr: %s failed: %s: %s\n", #call, ca_status_str(st_), ca_last_error_message()); \
      exit(1);                                                                                      \
    }                                                                                               \
  } while (0)

/* Remove a file or a directory tree (lstat: symbolic links are removed, never followed). */
static int rm_rf(const char *path) {
  struct stat st;
  if (lstat(path, &st) != 0) return errno == ENOENT ? 0 : -1;
  if (!S_ISDIR(st.st_mode)) return unlink(path);
  DIR *d = opendir(path);
  if (!d) return -1;
  int rc = 0;
  struct dirent *e;
  size_t plen = strlen(path);
  while ((e = readdir(d)) != NULL) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    size_t len = plen + 1 + strlen(e->d_name) + 1;
    char *child = malloc(len);
    if (!child) { rc = -1; break; }
    snprintf(child, len, "%s/%s", path, e->d_name);
    if (rm_rf(child) != 0) rc = -1;
    free(child);
  }
  closedir(d);
  if (rmdir(path) != 0) rc = -1;
  return rc;
}

/* Total size of the regular files under path. */
static long long tree_bytes(const char *path) {
  struct stat st;
  if (lstat(path, &st) != 0) return 0;
  if (!S_ISDIR(st.st_mode)) return S_ISREG(st.st_mode) ? (long long)st.st_size : 0;
  DIR *d = opendir(path);
  if (!d) return 0;
  long long total = 0;
  struct dirent *e;
  size_t plen = strlen(path);
  while ((e = readdir(d)) != NULL) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    size_t len = plen + 1 + strlen(e->d_name) + 1;
    char *child = malloc(len);
    if (!child) break;
    snprintf(child, len, "%s/%s", path, e->d_name);
    total += tree_bytes(child);
    free(child);
  }
  closedir(d);
  return total;
}

/* sum over i < n of (i % 1000) * 0.001, exactly (as an integer count of thousandths), then scaled. */
static double expected_sum(int64_t n) {
  int64_t full = n / 1000, rem = n % 1000;
  int64_t thousandths = full * 499500 + rem * (rem - 1) / 2;
  return (double)thousandths * 0.001;
}

static int sum_ok(double sum, double expect) { return fabs(sum - expect) <= 1e-9 * fabs(expect); }

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof(double), cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Read the store at path, sum it; returns the sum, *seconds the wall time of open + sum + compute. */
static double read_sum(ca_context_t *ctx, const char *path, double *seconds, double *cpu, int64_t *rows,
                       int64_t *cols) {
  double c0 = cpu_now(), t0 = now_s();
  ca_array_t *a = NULL, *s = NULL;
  ca_block_t *b = NULL;
  CHECK(ca_array_from_zarr(&a, path, NULL));
  CHECK(ca_array_reduce(&s, CA_RED_SUM, a, NULL, 0, false, NULL));
  CHECK(ca_array_compute(&b, ctx, s, NULL));
  double sum = *(const double *)ca_block_data(b);
  *seconds = now_s() - t0;
  *cpu = cpu_now() - c0;
  if (ca_array_ndim(a) != 2 || ca_array_dtype(a) != CA_FLOAT64) {
    fprintf(stderr, "bench_zarr: %s is not a 2-d float64 array\n", path);
    exit(1);
  }
  *rows = ca_array_shape(a)[0];
  *cols = ca_array_shape(a)[1];
  ca_block_free(b);
  ca_array_free(s);
  ca_array_free(a);
  return sum;
}

static void usage(void) {
  fprintf(stderr, "usage: bench_zarr [--reps N] [--dir PATH] [--rows R] [--cols C] [--chunk-rows R] "
                  "[--chunk-cols C] [--threads T] [--compressor none|blosc-lz4|zlib|zstd|all] [--no-compress] [--keep] "
                  "[--read-store PATH]\n");
}

int main(int argc, char **argv) {
  int reps = 3;
  const char *dir = NULL;
  int64_t rows = 16384, cols = 16384, crows = 2048, ccols = 2048;
  int32_t threads = 2;
  const char *compressor = "all";
  int keep = 0;
  const char *read_store = NULL;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--dir") && i + 1 < argc) dir = argv[++i];
    else if (!strcmp(argv[i], "--rows") && i + 1 < argc) rows = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--cols") && i + 1 < argc) cols = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--chunk-rows") && i + 1 < argc) crows = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--chunk-cols") && i + 1 < argc) ccols = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc) threads = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--compressor") && i + 1 < argc) compressor = argv[++i];
    else if (!strcmp(argv[i], "--no-compress")) compressor = "none";
    else if (!strcmp(argv[i], "--keep")) keep = 1;
    else if (!strcmp(argv[i], "--read-store") && i + 1 < argc) read_store = argv[++i];
    else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) { usage(); return 0; }
    else { usage(); return 2; }
  }
  if (reps < 1 || reps > MAX_REPS || rows < 1 || cols < 1 || crows < 1 || ccols < 1 || threads < 0) {
    fprintf(stderr, "bench_zarr: bad option value\n");
    return 2;
  }
  static const char *names[NCOMP] = {"none", "blosc-lz4", "zlib", "zstd"};
  int enabled[NCOMP];
  int any = 0;
  for (int k = 0; k < NCOMP; ++k) any |= enabled[k] = !strcmp(compressor, names[k]) || !strcmp(compressor, "all");
  if (!any) {
    fprintf(stderr, "bench_zarr: unknown --compressor %s (none, blosc-lz4, zlib, zstd or all)\n", compressor);
    return 2;
  }

  ca_context_options_t co = CA_CONTEXT_OPTIONS_INIT;
  co.num_threads = threads;
  ca_context_t *ctx = NULL;
  CHECK(ca_context_new(&ctx, &co));

  if (read_store) {
    double secs, cpu;
    int64_t r, c;
    double sum = read_sum(ctx, read_store, &secs, &cpu, &r, &c);
    double expect = expected_sum(r * c);
    int ok = sum_ok(sum, expect);
    printf("{\"bench\":\"zarr_read_store\",\"path\":\"%s\",\"rows\":%lld,\"cols\":%lld,\"threads\":%d,"
           "\"seconds\":%.4f,\"cpu_seconds\":%.4f,\"sum\":%.17g,\"expected\":%.17g,\"ok\":%s}\n",
           read_store, (long long)r, (long long)c, threads, secs, cpu, sum, expect, ok ? "true" : "false");
    ca_context_free(ctx);
    if (!ok) fprintf(stderr, "bench_zarr: %s: wrong sum %.17g (expected %.17g)\n", read_store, sum, expect);
    return ok ? 0 : 1;
  }

  /* The working directory. */
  char tmpl[] = "/var/tmp/bench_zarr.XXXXXX";
  int own_dir = 0;
  if (!dir) {
    if (!mkdtemp(tmpl)) {
      perror("bench_zarr: mkdtemp /var/tmp/bench_zarr.XXXXXX");
      return 1;
    }
    dir = tmpl;
    own_dir = 1;
  } else if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
    fprintf(stderr, "bench_zarr: mkdir %s: %s\n", dir, strerror(errno));
    return 1;
  }

  /* x.flat[i] = (i % 1000) * 0.001, chunks (crows, ccols). */
  int64_t n = rows * cols;
  double nbytes = (double)n * (double)sizeof(double);
  double *buf = malloc((size_t)n * sizeof(double));
  if (!buf) {
    fprintf(stderr, "bench_zarr: cannot allocate %.0f bytes\n", nbytes);
    return 1;
  }
  for (int64_t i = 0; i < n; ++i) buf[i] = (double)(i % 1000) * 0.001;
  int64_t shape[2] = {rows, cols};
  ca_chunkset_t *cs = NULL;
  ca_dimchunks_t spec[2] = {{crows, NULL, 0}, {ccols, NULL, 0}};
  CHECK(ca_normalize_chunks(&cs, ctx, spec, 2, shape, CA_FLOAT64, 0));
  ca_chunks_t chunks = ca_chunkset_view(cs);
  ca_array_t *x = NULL;
  CHECK(ca_array_from_buffer(&x, buf, CA_FLOAT64, 2, shape, &chunks, &(ca_buffer_options_t){sizeof(ca_buffer_options_t), CA_BUFFER_BORROW, NULL, NULL, NULL}));
  double expect = expected_sum(n);

  int failed = 0;
  double wsec[NCOMP][MAX_REPS], rsec[NCOMP][MAX_REPS];
  for (int k = 0; k < NCOMP; ++k) {
    if (!enabled[k]) continue;
    size_t plen = strlen(dir) + 64;
    char *path = malloc(plen);
    snprintf(path, plen, "%s/chunkarray-%s.zarr", dir, names[k]);
    int64_t store_chunks[2] = {crows, ccols};
    ca_zarr_options_t zo = CA_ZARR_OPTIONS_INIT;
    zo.chunks = store_chunks;
    if (k == 0) {
      zo.compressor = "none";
    } else if (k == 1) {
      zo.compressor = "blosc";
      zo.blosc_cname = "lz4";
      zo.level = 5;
      zo.blosc_shuffle = 1; /* byte shuffle: numcodecs Blosc.SHUFFLE */
    } else {
      zo.compressor = names[k]; /* numcodecs Zlib() / Zstd(): level 1 */
      zo.level = 1;
    }
    for (int r = 0; r < reps; ++r) {
      if (rm_rf(path) != 0) {
        fprintf(stderr, "bench_zarr: cannot remove %s: %s\n", path, strerror(errno));
        return 1;
      }
      double c0 = cpu_now(), t0 = now_s();
      CHECK(ca_array_to_zarr(ctx, x, path, &zo, NULL));
      double ws = now_s() - t0, wc = cpu_now() - c0;
      long long sbytes = tree_bytes(path);
      wsec[k][r] = ws;
      printf("{\"bench\":\"zarr_write\",\"compressor\":\"%s\",\"rows\":%lld,\"cols\":%lld,\"chunks\":[%lld,%lld],"
             "\"threads\":%d,\"rep\":%d,\"seconds\":%.4f,\"gbps\":%.4f,\"cpu_seconds\":%.4f,\"nbytes\":%.0f,"
             "\"store_bytes\":%lld}\n",
             names[k], (long long)rows, (long long)cols, (long long)crows, (long long)ccols, threads, r, ws,
             nbytes / 1e9 / ws, wc, nbytes, sbytes);
      fflush(stdout);

      double rs, rc;
      int64_t rr, rcols;
      double sum = read_sum(ctx, path, &rs, &rc, &rr, &rcols);
      int ok = rr == rows && rcols == cols && sum_ok(sum, expect);
      rsec[k][r] = rs;
      printf("{\"bench\":\"zarr_read_sum\",\"compressor\":\"%s\",\"rows\":%lld,\"cols\":%lld,\"chunks\":[%lld,%lld],"
             "\"threads\":%d,\"rep\":%d,\"seconds\":%.4f,\"gbps\":%.4f,\"cpu_seconds\":%.4f,\"nbytes\":%.0f,"
             "\"store_bytes\":%lld,\"sum\":%.17g,\"expected\":%.17g,\"ok\":%s}\n",
             names[k], (long long)rows, (long long)cols, (long long)crows, (long long)ccols, threads, r, rs,
             nbytes / 1e9 / rs, rc, nbytes, sbytes, sum, expect, ok ? "true" : "false");
      fflush(stdout);
      if (!ok) {
        fprintf(stderr, "bench_zarr: %s: wrong sum %.17g (expected %.17g) or shape %lldx%lld\n", path, sum, expect,
                (long long)rr, (long long)rcols);
        failed = 1;
      }
    }
    if (!keep && rm_rf(path) != 0) fprintf(stderr, "bench_zarr: cannot remove %s\n", path);
    free(path);
  }

  fprintf(stderr, "bench_zarr: (%lld, %lld) float64 = %.3f GB, chunks (%lld, %lld), %d threads, %d reps, dir %s%s\n",
          (long long)rows, (long long)cols, nbytes / 1e9, (long long)crows, (long long)ccols, threads, reps, dir,
          keep ? " (kept)" : "");
  for (int k = 0; k < NCOMP; ++k) {
    if (!enabled[k]) continue;
    double best_w = wsec[k][0], best_r = rsec[k][0];
    for (int r = 1; r < reps; ++r) {
      if (wsec[k][r] < best_w) best_w = wsec[k][r];
      if (rsec[k][r] < best_r) best_r = rsec[k][r];
    }
    double med_w = median(wsec[k], reps), med_r = median(rsec[k], reps);
    fprintf(stderr, "  write %-9s best %.3f s (%.2f GB/s), median %.3f s (%.2f GB/s)\n", names[k], best_w,
            nbytes / 1e9 / best_w, med_w, nbytes / 1e9 / med_w);
    fprintf(stderr, "  read+sum %-9s best %.3f s (%.2f GB/s), median %.3f s (%.2f GB/s)\n", names[k], best_r,
            nbytes / 1e9 / best_r, med_r, nbytes / 1e9 / med_r);
  }

  ca_array_free(x); /* the buffer is borrowed with no release callback: freed below, after the array */
  ca_chunkset_free(cs);
  ca_context_free(ctx);
  free(buf);
  if (own_dir && !keep) rmdir(dir);
  return failed ? 1 : 0;
}
