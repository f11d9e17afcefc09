/* W8: loading a 1,000,000-task materialized graph file (target: <= 50 ms).
 *
 *   bench_format [--tasks N] [--reps R] [--file PATH] [--keep]
 *
 * Builds a materialized graph of N tasks with ca_graph_add_task (N/2 sources ('x', i) = (src, i)
 * and N/2 ('y', i) = (add, ('x', i), 2.5)), saves it with ca_save, then loads it R times with
 * ca_load (mmap + decode, from the page cache) and prints min / median load times, the save
 * time and the file size; also the CPU time of each load (on a shared machine the wall time
 * includes waiting for a core). Public C API only. */
#define _POSIX_C_SOURCE 200809L
#include <chunkarray/chunkarray.h>

#include "../support/save_load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static double cpu_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

#define CHECK(x)                                                            \
  do {                                                                      \
    if ((x) != CA_OK) {                                                     \
      fprintf(stderr, "bench_format: %s: %s\n", #x, ca_last_error_message()); \
      return 1;                                                             \
    }                                                                       \
  } while (0)

int main(int argc, char **argv) {
  long long ntasks = 1000000, i;
  int reps = 20, keep = 0, r;
  char path[512];
  const char *file = NULL;
  ca_graph_t *g = NULL, *h = NULL;
  double t0, c0, save_ms, *times, *cpu;
  FILE *f;
  long size;
  for (r = 1; r < argc; ++r) {
    if (!strcmp(argv[r], "--tasks") && r + 1 < argc) ntasks = atoll(argv[++r]);
    else if (!strcmp(argv[r], "--reps") && r + 1 < argc) reps = atoi(argv[++r]);
    else if (!strcmp(argv[r], "--file") && r + 1 < argc) file = argv[++r];
    else if (!strcmp(argv[r], "--keep")) keep = 1;
    else {
      fprintf(stderr, "usage: bench_format [--tasks N] [--reps R] [--file PATH] [--keep]\n");
      return 2;
    }
  }
  if (reps < 1 || ntasks < 2) return 2;
  if (file) snprintf(path, sizeof path, "%s", file);
  else snprintf(path, sizeof path, "/tmp/bench_format_%d.cagraph", (int)getpid());
  CHECK(ca_graph_new(&g));
  for (i = 0; i < ntasks / 2; ++i) {
    int64_t idx = i;
    ca_key_t k = {"x", &idx, 1};
    ca_arg_t a = ca_arg_i64(i);
    CHECK(ca_graph_add_task(g, &k, "src", &a, 1));
  }
  for (i = 0; i < ntasks - ntasks / 2; ++i) {
    int64_t idx = i, src = i % (ntasks / 2);
    ca_key_t k = {"y", &idx, 1};
    ca_arg_t a[2];
    a[0] = ca_arg_key("x", &src, 1);
    a[1] = ca_arg_f64(2.5);
    CHECK(ca_graph_add_task(g, &k, "add", a, 2));
  }
  t0 = now_ms();
  CHECK(save_to(NULL, NULL, path, g, NULL, 0, NULL));
  save_ms = now_ms() - t0;
  f = fopen(path, "rb");
  if (!f) return 1;
  fseek(f, 0, SEEK_END);
  size = ftell(f);
  fclose(f);
  times = (double *)malloc(sizeof(double) * (size_t)reps);
  cpu = (double *)malloc(sizeof(double) * (size_t)reps);
  for (r = 0; r < reps; ++r) {
    t0 = now_ms();
    c0 = cpu_ms();
    CHECK(load_from(&h, NULL, NULL, path, NULL, 0));
    times[r] = now_ms() - t0;
    cpu[r] = cpu_ms() - c0;
    if (ca_graph_num_tasks(h) != ntasks) {
      fprintf(stderr, "bench_format: loaded %lld tasks, want %lld\n", (long long)ca_graph_num_tasks(h), ntasks);
      return 1;
    }
    ca_graph_free(h);
  }
  qsort(times, (size_t)reps, sizeof(double), cmp);
  qsort(cpu, (size_t)reps, sizeof(double), cmp);
  printf("W8 graph file: %lld materialized tasks, %.1f MB file, save %.1f ms\n", ntasks, (double)size / 1e6, save_ms);
  printf("W8 load (ca_load, %d reps): min %.1f ms, median %.1f ms, max %.1f ms\n", reps, times[0],
         times[reps / 2], times[reps - 1]);
  printf("W8 load CPU time (this process): min %.1f ms, median %.1f ms\n", cpu[0], cpu[reps / 2]);
  free(times);
  free(cpu);
  ca_graph_free(g);
  if (!keep && !file) remove(path);
  return 0;
}
