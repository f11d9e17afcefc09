/* chunkarray: run, inspect, draw, validate and plan graph files. Uses only the public C API (and,
 * when built with MPI, libchunkarray_mpi's: `mpirun -np N chunkarray run ...` runs distributed). */
#define _POSIX_C_SOURCE 200809L
#define CA_EXPERIMENTAL 1 /* the distributed calls (chunkarray/dist.h) are experimental API */
#include <chunkarray/chunkarray.h>
#include <chunkarray/dist.h>
#ifdef CA_CLI_MPI
#include <chunkarray/mpi.h>
#endif

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* A graph file's graph and arrays (ca_load of a path). */
static ca_status_t load_file(ca_graph_t **g, ca_array_t ***arrays, size_t *n, const char *file) {
  ca_load_options_t lo = CA_LOAD_OPTIONS_INIT;
  lo.path = file;
  return ca_load(g, arrays, n, &lo);
}

#define MAX_PLUGINS 64

static const char *prog = "chunkarray";

static void usage_main(FILE *f) {
  fprintf(f,
          "usage: chunkarray COMMAND [OPTIONS] FILE\n"
          "\n"
          "Run and inspect chunkarray graph files (saved with ca_save).\n"
          "\n"
          "commands:\n"
          "  run FILE       compute the file's arrays (or every final task of a graph file)\n"
          "  info FILE      layers, tasks, arrays (and masked arrays), kernels (with their recorded versions) and sizes\n"
          "  dot FILE       the graph in graphviz dot syntax\n"
          "  validate FILE  check references, cycles and (with --plugin) that every kernel exists\n"
          "                 at the version the file records\n"
          "  plan FILE      what each of N ranks would do in a distributed run (--ranks N), on paper\n"
          "  kernels        the registered kernels (builtins, and --plugin's) with their arguments\n"
#ifdef CA_CLI_MPI
          "\n"
          "Under mpirun or srun, `run` is distributed over the job's ranks (same FILE on every rank).\n"
#endif

          "\n"
          "`chunkarray COMMAND --help` describes a command's options; `chunkarray --version`.\n");
}

static void usage_run(FILE *f) {
  fprintf(f,
          "usage: chunkarray run FILE [--plugin SO]... [--threads N] [--memory-limit BYTES]\n"
          "                           [--out DIR] [--format npy|zarr] [--compressor NAME] [--quiet]\n"
          "\n"
          "Compute the arrays saved in FILE. With --out, each array is written as DIR/<name>.npy\n"
          "(--format npy, the default) or as DIR/<name> inside a Zarr group DIR (--format zarr);\n"
          "without --out, each array is computed and summarized. A graph file without arrays computes\n"
          "every task no other task depends on. A kernel whose version the file records must be\n"
          "registered at that version (builtin or from a plugin), else the run fails (CA_EVERSION).\n"
          "\n"
          "  --plugin SO          load a kernel plugin first (repeatable)\n"
          "  --threads N          worker threads (0 = synchronous; default: one per core)\n"
          "  --memory-limit B     limit on the bytes of blocks held (\"2GiB\", \"500e6\", \"none\";\n"
          "                       default: 3/4 of RAM or of the cgroup limit)\n"
          "  --out DIR            output directory (created)\n"
          "  --format F           npy (default) or zarr\n"
          "  --compressor C       zarr: none, zlib, gzip, zstd, blosc, blosc-lz4, blosc-lz4hc,\n"
          "                       blosc-zstd, blosc-zlib, blosc-blosclz (default none)\n"
          "  --quiet              no progress output\n"
          "  --placement P        distributed runs: locality (default), locality-count, round-robin\n"
#ifdef CA_CLI_MPI
          "\n"
          "Distributed: launched by mpirun/srun (or with --mpi), every rank loads FILE and runs its share\n"
          "(docs/distributed.md). Progress comes from rank 0 (tasks of all ranks); --out zarr is written\n"
          "by every rank (its own chunks; DIR must be on a file system all ranks see), npy and summaries\n"
          "by rank 0. A per-rank summary (tasks, bytes sent and received, time waiting) follows.\n"
          "  --mpi                initialize MPI even if no launcher is detected\n"
#else
          "(this build has no MPI: distributed runs need chunkarray built with -Dmpi=enabled)\n"
#endif
          );
}

static void usage_plan(FILE *f) {
  fprintf(f,
          "usage: chunkarray plan FILE --ranks N [--placement P] [--results gather|local] [--all]\n"
          "\n"
          "Without running anything, print what each of N ranks (1..1048576) would do in a distributed\n"
          "run of FILE's arrays (or of every final task of a graph file): tasks, blocks and estimated\n"
          "bytes received and sent, and the peak of results held (blocks, estimated bytes). Bytes are\n"
          "plan-time estimates (docs/distributed.md). Results are gathered to rank 0 (--results gather,\n"
          "as `run` without --out or with npy) or stay where computed (local, as `run --format zarr`).\n"
          "More than 64 ranks: the first and last 16 and a summary unless --all.\n"
          "  --placement P        locality (default), locality-count or round-robin\n");
}

static void usage_info(FILE *f) {
  fprintf(f, "usage: chunkarray info FILE\n\nPrint the file's format version, layers (kind, tasks, kernels),\n"
             "arrays (shape, chunks, dtype), sizes, and the kernels with the version each was saved\n"
             "against: `scale (version 2)`, or `scale (version not recorded)` (older files, and kernels\n"
             "saved without a context; any version runs them).\n");
}
static void usage_dot(FILE *f) {
  fprintf(f, "usage: chunkarray dot FILE [--out FILE.dot]\n\nWrite the graph in graphviz dot syntax (stdout by "
             "default), e.g. `chunkarray dot g.cagraph | dot -Tsvg > g.svg`.\n");
}
static void usage_validate(FILE *f) {
  fprintf(f, "usage: chunkarray validate FILE [--plugin SO]...\n\nLoad FILE and check every reference and that the "
             "graph has no cycle; also that every\nkernel exists in the builtin registry plus the given plugins, at the "
             "version the file\nrecords for it (if any). Exit status 0 if valid, 1 with the library's message if not.\n");
}

static int fail_call(const char *what);

/* ---- distributed runs ----------------------------------------------------------------------------- */

static int parse_placement(const char *s, ca_placement_t *p) {
  if (!strcmp(s, "locality")) *p = CA_PLACEMENT_LOCALITY;
  else if (!strcmp(s, "round-robin")) *p = CA_PLACEMENT_ROUND_ROBIN;
  else if (!strcmp(s, "locality-count")) *p = CA_PLACEMENT_LOCALITY_COUNT;
  else return 0;
  return 1;
}

struct dist {
  int on;               /* a distributed run (more than one rank) */
  int32_t rank, size;
  ca_transport_t *tr;   /* over MPI_COMM_WORLD (libchunkarray_mpi) */
  ca_dist_options_t o;
  ca_dist_stats_t st;   /* this call's */
  int64_t sum[6];       /* this rank over all calls: tasks, blocks sent/received, bytes sent/received, wait_us */
};

static void dist_add(struct dist *d) {
  d->sum[0] += d->st.tasks;
  d->sum[1] += d->st.blocks_sent;
  d->sum[2] += d->st.blocks_received;
  d->sum[3] += d->st.bytes_sent;
  d->sum[4] += d->st.bytes_received;
  d->sum[5] += d->st.wait_us;
}

/* Collective: 1 on every rank if `ok` on every rank. */
static int dist_all_ok(struct dist *d, int ok) {
  int64_t v = ok ? 1 : 0;
  if (!d->on) return ok;
  if (d->tr->allreduce_min(d->tr->user_data, &v, 1) != 0) return 0;
  return v == 1;
}

/* Collective: rank 0 prints every rank's totals. */
static void dist_summary(struct dist *d) {
  int32_t r;
  int64_t tot[6] = {0, 0, 0, 0, 0, 0};
  if (!d->on) return;
  if (d->rank == 0)
    fprintf(stderr, "%-6s %10s %12s %12s %16s %16s %10s\n", "rank", "tasks", "blocks_sent", "blocks_recv",
            "bytes_sent", "bytes_received", "wait_s");
  for (r = 0; r < d->size; ++r) {
    int64_t v[6];
    int k;
    memcpy(v, d->sum, sizeof v);
    if (d->tr->bcast(d->tr->user_data, v, sizeof v, r) != 0) return;
    for (k = 0; k < 6; ++k) tot[k] += v[k];
    if (d->rank == 0)
      fprintf(stderr, "%-6d %10lld %12lld %12lld %16lld %16lld %10.3f\n", (int)r, (long long)v[0], (long long)v[1],
              (long long)v[2], (long long)v[3], (long long)v[4], (double)v[5] * 1e-6);
  }
  if (d->rank == 0)
    fprintf(stderr, "%-6s %10lld %12lld %12lld %16lld %16lld %10.3f\n", "total", (long long)tot[0], (long long)tot[1],
            (long long)tot[2], (long long)tot[3], (long long)tot[4], (double)tot[5] * 1e-6);
}

#ifdef CA_CLI_MPI
/* Started by an MPI launcher (Open MPI's mpirun, MPICH's hydra, SLURM's srun with PMI/PMIx)? */
static int launched_by_mpi(void) {
  return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK") || getenv("PMI_RANK");
}
#endif

/* Join the MPI job if there is one (else a single-process run). 0 on success. */
static int dist_start(struct dist *d, int force_mpi, ca_placement_t placement) {
  ca_dist_options_t init = CA_DIST_OPTIONS_INIT;
  memset(d, 0, sizeof *d);
  d->size = 1;
  d->o = init;
  d->o.placement = placement;
  d->st.struct_size = sizeof d->st;
  d->o.stats = &d->st;
#ifdef CA_CLI_MPI
  if (force_mpi || launched_by_mpi()) {
    if (ca_mpi_init(&d->rank, &d->size) != CA_OK) return fail_call("MPI");
    if (d->size > 1) {
      if (ca_mpi_transport_new(&d->tr, ca_mpi_comm_world()) != CA_OK) return fail_call("MPI");
      d->on = 1;
      d->o.transport = d->tr;
    }
  }
#else
  if (force_mpi) {
    fprintf(stderr, "%s: --mpi: this chunkarray was built without MPI (-Dmpi=enabled)\n", prog);
    return 1;
  }
#endif
  return 0;
}

static void dist_end(struct dist *d) {
#ifdef CA_CLI_MPI
  ca_mpi_transport_free(d->tr);
  d->tr = NULL;
  ca_mpi_finalize();
#else
  (void)d;
#endif
}

/* Rank 0 writes a gathered array as .npy: the block as an array (borrowed), then ca_array_to_npy. */
static ca_status_t write_npy_block(ca_context_t *ctx, const ca_block_t *b, const char *path,
                                   const ca_compute_options_t *opts) {
  int32_t nd = ca_block_ndim(b), d;
  const int64_t *shape = ca_block_shape(b);
  int64_t nb[CA_MAX_NDIM + 1], sizes[CA_MAX_NDIM + 1];
  ca_chunks_t ch;
  ca_array_t *a = NULL;
  ca_status_t st;
  for (d = 0; d < nd; ++d) {
    nb[d] = 1;
    sizes[d] = shape[d];
  }
  ch.ndim = nd;
  ch.numblocks = nb;
  ch.sizes = sizes;
  {
    ca_buffer_options_t bo = CA_BUFFER_OPTIONS_INIT;
    bo.flags = CA_BUFFER_BORROW | CA_BUFFER_UNIQUE_NAME;
    st = ca_array_from_buffer(&a, ca_block_data(b), ca_block_dtype(b), nd, shape, &ch, &bo);
  }
  if (st != CA_OK) return st;
  st = ca_array_to_npy(ctx, a, path, opts);
  ca_array_free(a);
  return st;
}

/* The library's last message without the C function it names ("ca_load: g.dot: ..." is "g.dot:
 * ..."): the tool's user called a command, not the function. */
static const char *user_message(void) {
  const char *msg = ca_last_error_message(), *p = msg;
  if (strncmp(p, "ca_", 3) != 0) return msg;
  p += 3;
  while (*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')) ++p;
  return p[0] == ':' && p[1] == ' ' ? p + 2 : msg;
}

static int fail_call(const char *what) {
  fprintf(stderr, "%s: %s: %s (%s)\n", prog, what, user_message(), ca_status_str(ca_last_error_code()));
  return 1;
}

/* A failed load_file: the library's message names the file itself ("g.dot: not a chunkarray graph
 * file ..."), so the path is added only when it does not. */
static int fail_load(const char *file) {
  const char *msg = user_message();
  if (strstr(msg, file)) {
    fprintf(stderr, "%s: %s (%s)\n", prog, msg, ca_status_str(ca_last_error_code()));
    return 1;
  }
  return fail_call(file);
}

/* "1 array", "2 arrays": the word for a count. */
static const char *plural(long long n, const char *one, const char *many) { return n == 1 ? one : many; }

static int bad_usage(void (*usage)(FILE *), const char *fmt, const char *arg) {
  fprintf(stderr, "%s: ", prog);
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n\n");
  usage(stderr);
  return 2;
}

/* ---- progress ---------------------------------------------------------------------------------- */

struct progress {
  int tty;
  int quiet;
  const char *label;
  double t0;
  int64_t last_line_done;
};

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void on_progress(int64_t done, int64_t total, void *ud) {
  struct progress *p = (struct progress *)ud;
  if (p->quiet || total <= 0) return;
  double frac = (double)done / (double)total;
  if (p->tty) {
    char bar[41];
    int fill = (int)(frac * 40.0 + 0.5), i;
    for (i = 0; i < 40; ++i) bar[i] = i < fill ? '#' : '.';
    bar[40] = '\0';
    fprintf(stderr, "\r%-24.24s [%s] %3d%% %lld/%lld %.1fs", p->label, bar, (int)(frac * 100.0), (long long)done,
            (long long)total, now_s() - p->t0);
    fflush(stderr);
  } else if (done == total || done - p->last_line_done >= total / 10 + 1) {
    fprintf(stderr, "progress: %s %lld/%lld tasks (%d%%)\n", p->label, (long long)done, (long long)total,
            (int)(frac * 100.0));
    p->last_line_done = done;
  }
}

static void progress_start(struct progress *p, const char *label) {
  p->label = label;
  p->t0 = now_s();
  p->last_line_done = -1;
}

static void progress_end(struct progress *p) {
  if (!p->quiet && p->tty) fprintf(stderr, "\n");
}

/* ---- shared ------------------------------------------------------------------------------------ */

static int parse_i64(const char *s, long long *out) {
  char *end = NULL;
  errno = 0;
  *out = strtoll(s, &end, 10);
  return errno == 0 && end != s && *end == '\0';
}

static int mkdir_p(const char *dir) {
  char buf[4096];
  size_t n = strlen(dir), i;
  if (n == 0 || n >= sizeof buf) {
    errno = n == 0 ? ENOENT : ENAMETOOLONG;
    return -1;
  }
  memcpy(buf, dir, n + 1);
  for (i = 1; i <= n; ++i) {
    if (buf[i] == '/' || buf[i] == '\0') {
      char c = buf[i];
      buf[i] = '\0';
      if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
      buf[i] = c;
    }
  }
  {
    struct stat st;
    if (stat(dir, &st) != 0) return -1;
    if (!S_ISDIR(st.st_mode)) {
      errno = ENOTDIR;
      return -1;
    }
  }
  return 0;
}

/* Every array name must be one file name (the library's rule: not "", ".", "..", no '/', '\\' or
 * control character) and names must differ, since each becomes DIR/<name>.npy or the zarr array
 * DIR/<name>. A name is never renamed into an allowed one: two names could then meet in one file.
 * Checked for all arrays before anything is created or written. */
static int check_output_names(ca_array_t **arrays, size_t n) {
  size_t i, j;
  for (i = 0; i < n; ++i) {
    const char *name = ca_array_name(arrays[i]);
    if (!name || ca_io_check_name(name, "array name") != CA_OK) {
      fprintf(stderr, "%s: refusing to write: %s (%s); nothing was written\n", prog,
              name ? user_message() : "an array has no name", name ? ca_status_str(ca_last_error_code()) : "");
      return 1;
    }
    for (j = 0; j < i; ++j)
      if (strcmp(name, ca_array_name(arrays[j])) == 0) {
        fprintf(stderr, "%s: refusing to write: two arrays are named '%s'; nothing was written\n", prog, name);
        return 1;
      }
  }
  return 0;
}

static void print_shape(FILE *f, const ca_array_t *a) {
  int32_t d, nd = ca_array_ndim(a);
  const int64_t *shape = ca_array_shape(a);
  fprintf(f, "(");
  for (d = 0; d < nd; ++d) fprintf(f, "%s%lld", d ? ", " : "", (long long)shape[d]);
  fprintf(f, nd == 1 ? ",)" : ")");
}

static void print_chunks(FILE *f, const ca_array_t *a) {
  int32_t d, nd = ca_array_ndim(a);
  fprintf(f, "(");
  for (d = 0; d < nd; ++d) {
    int64_t n = 0, i;
    const int64_t *c = ca_array_chunks(a, d, &n);
    fprintf(f, "%s(", d ? ", " : "");
    for (i = 0; i < n && i < 8; ++i) fprintf(f, "%s%lld", i ? ", " : "", (long long)c[i]);
    if (n > 8) fprintf(f, ", ... %lld blocks", (long long)n);
    fprintf(f, n == 1 ? ",)" : ")");
  }
  fprintf(f, nd == 1 ? ",)" : ")");
}

static int load_plugins(ca_context_t *ctx, const char **plugins, int nplugins) {
  int i;
  for (i = 0; i < nplugins; ++i)
    if (ca_plugin_load(ctx, plugins[i]) != CA_OK) return fail_call("--plugin");
  return 0;
}

/* Keys of every task no other task depends on (the graph's results), for graph files. Any failure
 * returns -1 with the library's error set (or errno for an allocation) and nothing allocated. */
static void free_lists(ca_keylist_t **lists, size_t nlists) {
  size_t i;
  for (i = 0; i < nlists; ++i) ca_keylist_free(lists[i]);
  free(lists);
}

static int final_keys(const ca_graph_t *g, ca_keylist_t ***lists, size_t *nlists, ca_key_t **keys, size_t *nkeys,
                      const char **what) {
  ca_keylist_t *layers = NULL;
  size_t nl, i, j, k = 0;
  char *used = NULL;
  int rc = -1;
  *lists = NULL;
  *nlists = 0;
  *keys = NULL;
  *nkeys = 0;
  *what = "listing the graph's layers";
  if (ca_graph_layers(&layers, g) != CA_OK) return -1;
  nl = ca_keylist_size(layers);
  used = (char *)calloc(nl ? nl : 1, 1);
  *lists = (ca_keylist_t **)calloc(nl ? nl : 1, sizeof(ca_keylist_t *));
  *what = "out of memory listing the graph's keys";
  if (!used || !*lists) goto done;
  for (i = 0; i < nl; ++i) {
    ca_key_t li;
    ca_keylist_t *deps = NULL;
    *what = "listing a layer's dependencies";
    if (ca_keylist_get(layers, i, &li) != CA_OK || ca_graph_layer_dependencies(&deps, g, li.name) != CA_OK) goto done;
    for (j = 0; j < ca_keylist_size(deps); ++j) {
      ca_key_t d;
      size_t m;
      if (ca_keylist_get(deps, j, &d) != CA_OK) {
        ca_keylist_free(deps);
        goto done;
      }
      for (m = 0; m < nl; ++m) {
        ca_key_t lm;
        if (ca_keylist_get(layers, m, &lm) == CA_OK && strcmp(lm.name, d.name) == 0) used[m] = 1;
      }
    }
    ca_keylist_free(deps);
  }
  for (i = 0; i < nl; ++i) {
    ca_key_t li;
    ca_keylist_t *ks = NULL;
    if (used[i]) continue;
    *what = "listing the keys of a final layer";
    if (ca_keylist_get(layers, i, &li) != CA_OK || ca_graph_layer_keys(&ks, g, li.name) != CA_OK) goto done;
    (*lists)[(*nlists)++] = ks;
    *nkeys += ca_keylist_size(ks);
  }
  *what = "out of memory listing the graph's keys";
  *keys = (ca_key_t *)calloc(*nkeys ? *nkeys : 1, sizeof(ca_key_t));
  if (!*keys) goto done;
  *what = "listing the graph's keys";
  for (i = 0; i < *nlists; ++i)
    for (j = 0; j < ca_keylist_size((*lists)[i]); ++j)
      if (ca_keylist_get((*lists)[i], j, &(*keys)[k++]) != CA_OK) goto done;
  rc = 0;
done:
  if (rc != 0) {
    free(*keys);
    *keys = NULL;
    free_lists(*lists, *nlists);
    *lists = NULL;
    *nlists = 0;
    *nkeys = 0;
  }
  free(used);
  ca_keylist_free(layers);
  return rc;
}

/* ---- run --------------------------------------------------------------------------------------- */

static int cmd_run(int argc, char **argv) {
  const char *file = NULL, *out = NULL, *format = "npy", *compressor = "none", *memlimit = NULL;
  const char *plugins[MAX_PLUGINS];
  int nplugins = 0, quiet = 0, i, rc = 0, force_mpi = 0;
  ca_placement_t placement = CA_PLACEMENT_LOCALITY;
  struct dist dist;
  long long threads = -1;
  ca_context_options_t copts = CA_CONTEXT_OPTIONS_INIT;
  ca_context_t *ctx = NULL;
  ca_graph_t *g = NULL;
  ca_array_t **arrays = NULL;
  size_t n = 0, k;
  struct progress prog_state;
  ca_compute_options_t opts = CA_COMPUTE_OPTIONS_INIT;
  ca_zarr_options_t zo = CA_ZARR_OPTIONS_INIT;

  for (i = 0; i < argc; ++i) {
    const char *a = argv[i];
    int has_next = i + 1 < argc;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage_run(stdout);
      return 0;
    } else if (!strcmp(a, "--plugin") && has_next) {
      if (nplugins == MAX_PLUGINS) return bad_usage(usage_run, "too many --plugin options%s", "");
      plugins[nplugins++] = argv[++i];
    } else if (!strcmp(a, "--threads") && has_next) {
      if (!parse_i64(argv[++i], &threads) || threads < 0 || threads > 4096)
        return bad_usage(usage_run, "--threads wants a count from 0 to 4096, not '%s'", argv[i]);
    } else if (!strcmp(a, "--memory-limit") && has_next) {
      memlimit = argv[++i];
    } else if (!strcmp(a, "--out") && has_next) {
      out = argv[++i];
    } else if (!strcmp(a, "--format") && has_next) {
      format = argv[++i];
      if (strcmp(format, "npy") && strcmp(format, "zarr"))
        return bad_usage(usage_run, "--format is npy or zarr, not '%s'", format);
    } else if (!strcmp(a, "--compressor") && has_next) {
      compressor = argv[++i];
    } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
      quiet = 1;
    } else if (!strcmp(a, "--mpi")) {
      force_mpi = 1;
    } else if (!strcmp(a, "--placement") && has_next) {
      if (!parse_placement(argv[++i], &placement))
        return bad_usage(usage_run, "--placement is locality, locality-count or round-robin, not '%s'", argv[i]);
    } else if (a[0] == '-') {
      return bad_usage(usage_run, "unknown option or missing value: '%s'", a);
    } else if (!file) {
      file = a;
    } else {
      return bad_usage(usage_run, "unexpected argument '%s'", a);
    }
  }
  if (!file) return bad_usage(usage_run, "no FILE given%s", "");
  /* compressor names */
  if (!strcmp(compressor, "none") || !strcmp(compressor, "zlib") || !strcmp(compressor, "gzip") ||
      !strcmp(compressor, "zstd") || !strcmp(compressor, "blosc")) {
    zo.compressor = compressor;
  } else if (!strncmp(compressor, "blosc-", 6)) {
    const char *cn = compressor + 6;
    if (strcmp(cn, "lz4") && strcmp(cn, "lz4hc") && strcmp(cn, "zstd") && strcmp(cn, "zlib") && strcmp(cn, "blosclz"))
      return bad_usage(usage_run, "unknown blosc compressor '%s'", compressor);
    zo.compressor = "blosc";
    zo.blosc_cname = cn;
  } else {
    return bad_usage(usage_run, "unknown compressor '%s'", compressor);
  }
  if (strcmp(format, "zarr") && strcmp(compressor, "none"))
    return bad_usage(usage_run, "--compressor applies to --format zarr only (got '%s' with npy)", compressor);
  zo.overwrite = 1;

  if (dist_start(&dist, force_mpi, placement) != 0) {
    dist_end(&dist);
    return 1;
  }
  if (dist.rank != 0) quiet = 1; /* progress and results come from rank 0 */
  /* Each step runs only if the ones before succeeded on this rank; the ranks then agree once, so a
     failure on one rank (a missing plugin, an unreadable file) stops every rank, none waits. */
  copts.num_threads = (int32_t)threads;
  if (ca_context_new(&ctx, &copts) != CA_OK) rc = fail_call("cannot create a context");
  if (rc == 0 && memlimit && ca_context_set_config(ctx, "memory-limit", memlimit) != CA_OK)
    rc = fail_call("--memory-limit");
  if (rc == 0 && load_plugins(ctx, plugins, nplugins)) rc = 1;
  if (rc == 0 && load_file(&g, &arrays, &n, file) != CA_OK) rc = fail_load(file);
  prog_state.tty = isatty(2);
  prog_state.quiet = quiet;
  opts.progress = dist.rank == 0 ? on_progress : NULL; /* rank 0 reports every rank's tasks */
  opts.progress_user_data = &prog_state;
  opts.progress_interval_us = prog_state.tty ? 100000 : 500000;
  if (rc == 0 && out && check_output_names(arrays, n) != 0) rc = 1;
  if (rc == 0 && out && dist.rank == 0) {
    if (mkdir_p(out) != 0) {
      fprintf(stderr, "%s: cannot create directory '%s': %s\n", prog, out, strerror(errno));
      rc = 1;
    } else if (!strcmp(format, "zarr") && ca_zarr_create_group(out, NULL) != CA_OK) {
      rc = fail_call(out);
    }
  }
  if (!dist_all_ok(&dist, rc == 0)) {
    rc = 1;
    goto done;
  }
  if (n == 0) {
    ca_keylist_t **lists = NULL;
    size_t nlists = 0, nkeys = 0;
    ca_key_t *keys = NULL;
    ca_block_t **results;
    const char *budget_text = NULL;
    const char *what = NULL;
    if (out) fprintf(stderr, "%s: note: %s holds a graph without arrays: nothing is written to %s\n", prog, file, out);
    /* More tasks than the context's task budget (a small file may declare 1e8 symbolic tasks): refused
       before its keys are listed; ca_graph_validate() checks the count first and names both. */
    if (ca_context_get_config(&budget_text, ctx, "graph.max-tasks") == CA_OK &&
        ca_graph_num_tasks(g) > atoll(budget_text) && ca_graph_validate(g, ctx, NULL, 0) != CA_OK) {
      rc = fail_call(file);
      goto done;
    }
    if (final_keys(g, &lists, &nlists, &keys, &nkeys, &what) != 0) {
      if (ca_last_error_code() != CA_OK && strncmp(what, "out of memory", 13) != 0)
        rc = fail_call(what);
      else {
        fprintf(stderr, "%s: %s\n", prog, what);
        rc = 1;
      }
      goto done;
    }
    results = (ca_block_t **)calloc(nkeys ? nkeys : 1, sizeof(ca_block_t *));
    if (!results) {
      fprintf(stderr, "%s: out of memory for %zu results\n", prog, nkeys);
      rc = 1;
    } else {
      progress_start(&prog_state, "graph");
      if ((dist.on ? ca_dist_compute(results, ctx, g, keys, nkeys, &opts, &dist.o)
                   : ca_compute(results, ctx, g, keys, nkeys, &opts)) != CA_OK) {
        progress_end(&prog_state);
        rc = dist.rank == 0 ? fail_call("compute") : 1;
      } else {
        progress_end(&prog_state);
        if (dist.rank == 0)
          printf("computed %lld final %s of %lld\n", (long long)nkeys, plural((long long)nkeys, "task", "tasks"),
                 (long long)ca_graph_num_tasks(g));
      }
      if (dist.on) dist_add(&dist);
      for (k = 0; k < nkeys; ++k) ca_block_free(results[k]);
      free(results);
    }
    free(keys);
    free_lists(lists, nlists);
    goto summary;
  }
  for (k = 0; k < n && rc == 0; ++k) {
    const char *name = ca_array_name(arrays[k]);
    char path[8192];
    double t0 = now_s();
    int len = 0;
    progress_start(&prog_state, name);
    if (out) {
      len = snprintf(path, sizeof path, !strcmp(format, "npy") ? "%s/%s.npy" : "%s/%s", out, name);
      if (len < 0 || (size_t)len >= sizeof path) {
        fprintf(stderr, "%s: output path for array '%s' is too long\n", prog, name);
        rc = 1;
        break;
      }
    }
    if (dist.on) {
      /* Every rank the same call; the same status everywhere (rank 0 reports it). */
      ca_status_t st;
      if (out && !strcmp(format, "zarr")) {
        st = ca_dist_array_to_zarr(ctx, arrays[k], path, &zo, &opts, &dist.o);
      } else {
        ca_block_t *b = NULL;
        st = ca_dist_array_compute(&b, ctx, arrays[k], &opts, &dist.o);
        if (st == CA_OK && out && b) st = write_npy_block(ctx, b, path, &opts);
        ca_block_free(b);
        if (!out) path[0] = '\0';
      }
      dist_add(&dist);
      if (st != CA_OK) rc = dist.rank == 0 ? fail_call(name) : 1;
      /* npy is written by rank 0 alone: its failure stops everyone. */
      if (!dist_all_ok(&dist, rc == 0)) rc = rc ? rc : 1;
    } else if (out && !strcmp(format, "npy")) {
      if (ca_array_to_npy(ctx, arrays[k], path, &opts) != CA_OK) rc = fail_call(name);
    } else if (out) {
      if (ca_array_to_zarr(ctx, arrays[k], path, &zo, &opts) != CA_OK) rc = fail_call(name);
    } else {
      ca_block_t *b = NULL;
      if (ca_array_compute(&b, ctx, arrays[k], &opts) != CA_OK) rc = fail_call(name);
      ca_block_free(b);
      path[0] = '\0';
    }
    progress_end(&prog_state);
    if (rc == 0 && dist.rank == 0) {
      printf("%s ", name);
      print_shape(stdout, arrays[k]);
      printf(" %s: %s%s(%.3f s)\n", ca_dtype_name(ca_array_dtype(arrays[k])), out ? path : "computed", out ? " " : " ",
             now_s() - t0);
    }
  }
summary:
  /* Every rank gets here after the same sequence of collective calls. */
  dist_summary(&dist);
done:
  ca_array_free_many(arrays, n);
  ca_graph_free(g);
  ca_context_free(ctx);
  dist_end(&dist);
  return rc;
}

/* ---- info / dot / validate --------------------------------------------------------------------- */

static int one_file(int argc, char **argv, void (*usage)(FILE *), const char **file, const char **plugins,
                    int *nplugins, const char **dot_out) {
  int i;
  for (i = 0; i < argc; ++i) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage(stdout);
      return -1;
    } else if (plugins && !strcmp(a, "--plugin") && i + 1 < argc) {
      if (*nplugins == MAX_PLUGINS) return bad_usage(usage, "too many --plugin options%s", "");
      plugins[(*nplugins)++] = argv[++i];
    } else if (dot_out && !strcmp(a, "--out") && i + 1 < argc) {
      *dot_out = argv[++i];
    } else if (a[0] == '-') {
      return bad_usage(usage, "unknown option or missing value: '%s'", a);
    } else if (!*file) {
      *file = a;
    } else {
      return bad_usage(usage, "unexpected argument '%s'", a);
    }
  }
  if (!*file) return bad_usage(usage, "no FILE given%s", "");
  return 0;
}

static const char *kind_name(int32_t k) {
  switch (k) {
    case CA_LAYER_MATERIALIZED: return "materialized";
    case CA_LAYER_BLOCKWISE: return "blockwise";
    case CA_LAYER_DATA: return "data";
    case CA_LAYER_OVERLAP: return "overlap";
    case CA_LAYER_INDEX_MAP: return "index-map";
    default: return "?";
  }
}

static int cmd_info(int argc, char **argv) {
  const char *file = NULL;
  int r = one_file(argc, argv, usage_info, &file, NULL, NULL, NULL);
  ca_graph_t *g = NULL;
  ca_array_t **arrays = NULL;
  size_t n = 0, i;
  ca_keylist_t *layers = NULL, *kernels = NULL;
  struct stat st;
  unsigned char hdr[16];
  FILE *f;
  if (r) return r < 0 ? 0 : r;
  if (load_file(&g, &arrays, &n, file) != CA_OK) return fail_load(file);
  f = fopen(file, "rb");
  if (!f || fread(hdr, 1, 16, f) != 16 || fstat(fileno(f), &st) != 0) {
    fprintf(stderr, "%s: cannot read the header of '%s': %s\n", prog, file, f && !ferror(f) ? "file too short" : strerror(errno));
    if (f) fclose(f);
    r = 1;
    goto done;
  }
  fclose(f);
  printf("file: %s\nformat version: %u\nsize: %lld bytes\n", file,
         (unsigned)(hdr[8] | hdr[9] << 8 | hdr[10] << 16 | (unsigned)hdr[11] << 24), (long long)st.st_size);
  printf("layers: %lld\ntasks: %lld\n", (long long)ca_graph_num_layers(g), (long long)ca_graph_num_tasks(g));
  if (ca_graph_layers(&layers, g) != CA_OK) {
    r = fail_call("listing the layers");
    goto done;
  }
  for (i = 0; i < ca_keylist_size(layers) && r == 0; ++i) {
    ca_key_t k;
    ca_layer_info_t li = CA_LAYER_INFO_INIT;
    if (ca_keylist_get(layers, i, &k) != CA_OK) {
      r = fail_call("listing the layers");
    } else if (ca_graph_layer_info(&li, g, k.name) != CA_OK) {
      r = fail_call(k.name);
    } else {
      printf("  %-48s %-12s %10lld tasks  %d index(es)", k.name, kind_name(li.kind), (long long)li.num_tasks, li.nindex);
      if (li.kind == CA_LAYER_DATA) printf("  %lld bytes", (long long)li.data_bytes);
      printf("\n");
    }
  }
  ca_keylist_free(layers);
  if (r) goto done;
  printf("arrays: %zu\n", n);
  for (i = 0; i < n; ++i) {
    printf("  %s shape ", ca_array_name(arrays[i]));
    print_shape(stdout, arrays[i]);
    printf(" chunks ");
    print_chunks(stdout, arrays[i]);
    printf(" dtype %s (%lld bytes)\n", ca_dtype_name(ca_array_dtype(arrays[i])), (long long)ca_array_nbytes(arrays[i]));
  }
  /* Masked arrays (ca_masked_save): which arrays above are a data/mask pair, and the fill value. */
  {
    ca_load_options_t lo = CA_LOAD_OPTIONS_INIT;
    ca_masked_t **masked = NULL;
    size_t nm = 0;
    lo.path = file;
    if (ca_masked_load(&masked, &nm, &lo) != CA_OK) {
      r = fail_call("listing the masked arrays");
      goto done;
    }
    if (nm > 0) printf("masked arrays: %zu\n", nm);
    for (i = 0; i < nm && r == 0; ++i) {
      ca_array_t *d = NULL, *m = NULL;
      ca_scalar_t fv;
      if (ca_masked_data(&d, masked[i]) != CA_OK || ca_masked_mask(&m, masked[i]) != CA_OK ||
          ca_masked_fill_value(&fv, masked[i]) != CA_OK) {
        r = fail_call("listing the masked arrays");
      } else {
        printf("  data %s, mask %s, fill_value ", ca_array_name(d),
               ca_masked_is_nomask(masked[i]) ? "(nomask)" : ca_array_name(m));
        if (fv.kind == CA_BOOL) printf("%s", fv.i64 ? "True" : "False");
        else if (fv.kind == CA_UINT64) printf("%llu", (unsigned long long)fv.i64);
        else if (fv.kind >= CA_INT8 && fv.kind <= CA_UINT32) printf("%lld", (long long)fv.i64);
        else if (fv.kind == CA_COMPLEX64 || fv.kind == CA_COMPLEX128) printf("(%.17g%+.17gj)", fv.re, fv.im);
        else printf("%.17g", fv.re);
        printf("\n");
      }
      ca_array_free(d);
      ca_array_free(m);
    }
    ca_masked_free_many(masked, nm);
    if (r) goto done;
  }
  if (ca_graph_kernel_names(&kernels, g) != CA_OK) {
    r = fail_call("listing the kernels");
    goto done;
  }
  printf("kernels: %zu\n", ca_keylist_size(kernels));
  for (i = 0; i < ca_keylist_size(kernels); ++i) {
    ca_key_t k;
    int32_t version = 0;
    if (ca_keylist_get(kernels, i, &k) != CA_OK) {
      r = fail_call("listing the kernels");
      break;
    }
    /* A kernel whose version cannot be read is shown with the reason, and fails the command. */
    if (ca_graph_kernel_version(&version, g, k.name) != CA_OK) {
      printf("  %s (%s)\n", k.name, user_message());
      r = fail_call(k.name);
    } else if (version > 0) {
      printf("  %s (version %d)\n", k.name, (int)version);
    } else {
      printf("  %s (version not recorded)\n", k.name);
    }
  }
  ca_keylist_free(kernels);
done:
  ca_array_free_many(arrays, n);
  ca_graph_free(g);
  return r;
}

static int cmd_dot(int argc, char **argv) {
  const char *file = NULL, *dot_out = NULL;
  int r = one_file(argc, argv, usage_dot, &file, NULL, NULL, &dot_out);
  ca_graph_t *g = NULL;
  char *dot = NULL;
  if (r) return r < 0 ? 0 : r;
  if (load_file(&g, NULL, NULL, file) != CA_OK) return fail_load(file);
  if (ca_graph_to_dot(&dot, g, NULL, 0) != CA_OK) {
    ca_graph_free(g);
    return fail_call("ca_graph_to_dot");
  }
  if (dot_out) {
    FILE *f = fopen(dot_out, "w");
    if (!f || fputs(dot, f) < 0 || fclose(f) != 0) {
      fprintf(stderr, "%s: cannot write '%s': %s\n", prog, dot_out, strerror(errno));
      r = 1;
    }
  } else {
    fputs(dot, stdout);
  }
  ca_string_free(dot);
  ca_graph_free(g);
  return r;
}

static void usage_kernels(FILE *f) {
  fprintf(f,
          "usage: chunkarray kernels [--plugin SO]... [--markdown]\n"
          "\n"
          "List the kernels a context has: the library's builtin ca.* kernels and those of each --plugin,\n"
          "with versions, argument lists and descriptions (ca_kernel_registry_list). --markdown writes\n"
          "the reference page docs/kernels.md is (a test checks the page against it).\n");
}

/* Markdown table cells: '|' would end the cell. */
static void md_cell(const char *text) {
  for (; *text; ++text) {
    if (*text == '|') fputs("\\|", stdout);
    else putchar(*text);
  }
}

static int cmd_kernels(int argc, char **argv) {
  const char *plugins[MAX_PLUGINS];
  int nplugins = 0, markdown = 0, i, r = 0, pass;
  ca_context_t *ctx = NULL;
  ca_kernel_list_t *list = NULL;
  ca_context_options_t copts = CA_CONTEXT_OPTIONS_INIT;
  size_t k, n;
  for (i = 0; i < argc; ++i) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      usage_kernels(stdout);
      return 0;
    } else if (!strcmp(argv[i], "--markdown")) {
      markdown = 1;
    } else if (!strcmp(argv[i], "--plugin") && i + 1 < argc) {
      if (nplugins == MAX_PLUGINS) return bad_usage(usage_kernels, "more than %s --plugin options", "64");
      plugins[nplugins++] = argv[++i];
    } else {
      return bad_usage(usage_kernels, "unexpected argument '%s'", argv[i]);
    }
  }
  copts.num_threads = 0;
  if (ca_context_new(&ctx, &copts) != CA_OK) return fail_call("cannot create a context");
  if (load_plugins(ctx, plugins, nplugins)) {
    ca_context_free(ctx);
    return 1;
  }
  if (ca_kernel_registry_list(&list, ctx) != CA_OK) {
    ca_context_free(ctx);
    return fail_call("listing the kernels");
  }
  n = ca_kernel_list_size(list);
  if (markdown) {
    printf("# Builtin kernels\n\n"
           "<!-- Generated by `chunkarray kernels --markdown` from ca_kernel_registry_list(); the test\n"
           "     kernels_reference checks this page against the library. Do not edit by hand. -->\n\n"
           "Every kernel the library registers in a new context (`ca_context_new` with builtin kernels on),\n"
           "by name. A task calls one as `ca_graph_add_task(g, &key, \"ca.eye\", args, nargs)`; an argument\n"
           "written `block` is a `CA_ARG_BLOCK` or, in a graph, a `CA_ARG_KEY` whose task's result is that\n"
           "block; `int` is `CA_ARG_INT64` (dtype arguments are `ca_dtype_t` codes), `tuple` a\n"
           "`CA_ARG_TUPLE`, `string`/`bytes` `CA_ARG_STRING`/`CA_ARG_BYTES`, `list` a `CA_ARG_LIST`.\n\n"
           "**Stable** kernels take the arguments shown, for hand-built graphs (the tutorial,\n"
           "docs/tutorial.md, builds one). The others are emitted by a library function with an internal\n"
           "encoding of their arguments, which may change between versions: build those graphs through\n"
           "the function named. `chunkarray kernels` lists a context's kernels, plugins' included, and\n"
           "`ca_kernel_registry_list()` returns this list at run time.\n");
    for (pass = 1; pass >= 0; --pass) {
      printf("\n## %s\n\n| kernel | version | arguments | what it computes |\n|---|---|---|---|\n",
             pass ? "Stable kernels" : "Internal kernels");
      for (k = 0; k < n; ++k) {
        ca_kernel_info_t info = CA_KERNEL_INFO_INIT;
        if (ca_kernel_list_get(&info, list, k) != CA_OK) {
          r = fail_call("listing the kernels");
          break;
        }
        if (info.stable != pass) continue;
        printf("| `%s` | %d | `", info.name, (int)info.version);
        md_cell(info.signature);
        printf("` | ");
        md_cell(info.description);
        printf(" |\n");
      }
    }
  } else {
    for (k = 0; k < n; ++k) {
      ca_kernel_info_t info = CA_KERNEL_INFO_INIT;
      if (ca_kernel_list_get(&info, list, k) != CA_OK) {
        r = fail_call("listing the kernels");
        break;
      }
      printf("%s (version %d%s%s)\n", info.name, (int)info.version, info.builtin ? ", builtin" : "",
             info.builtin && !info.stable ? ", internal" : "");
      if (*info.signature) printf("    %s\n", info.signature);
      if (*info.description) printf("    %s\n", info.description);
    }
    printf("%zu %s\n", n, plural((long long)n, "kernel", "kernels"));
  }
  ca_kernel_list_free(list);
  ca_context_free(ctx);
  return r;
}

static int cmd_validate(int argc, char **argv) {
  const char *file = NULL;
  const char *plugins[MAX_PLUGINS];
  int nplugins = 0;
  int r = one_file(argc, argv, usage_validate, &file, plugins, &nplugins, NULL);
  ca_context_t *ctx = NULL;
  ca_graph_t *g = NULL;
  ca_array_t **arrays = NULL;
  size_t n = 0;
  ca_context_options_t copts = CA_CONTEXT_OPTIONS_INIT;
  if (r) return r < 0 ? 0 : r;
  copts.num_threads = 0;
  if (ca_context_new(&ctx, &copts) != CA_OK) return fail_call("cannot create a context");
  if (load_plugins(ctx, plugins, nplugins)) {
    ca_context_free(ctx);
    return 1;
  }
  if (load_file(&g, &arrays, &n, file) != CA_OK) {
    r = fail_load(file);
  } else if (ca_graph_validate(g, ctx, NULL, 0) != CA_OK) {
    r = fail_call("invalid graph");
  } else {
    long long nl = (long long)ca_graph_num_layers(g), nt = (long long)ca_graph_num_tasks(g);
    printf("%s: valid (%lld %s, %lld %s, %zu %s)\n", file, nl, plural(nl, "layer", "layers"), nt,
           plural(nt, "task", "tasks"), n, plural((long long)n, "array", "arrays"));
  }
  ca_array_free_many(arrays, n);
  ca_graph_free(g);
  ca_context_free(ctx);
  return r;
}

/* ---- plan ---------------------------------------------------------------------------------------- */

static void print_rank_plan(const ca_dist_rank_plan_t *p) {
  printf("%-6d %10lld %10lld %14lld %10lld %14lld %10lld %14lld\n", (int)p->rank, (long long)p->tasks,
         (long long)p->blocks_in, (long long)p->bytes_in, (long long)p->blocks_out, (long long)p->bytes_out,
         (long long)p->peak_blocks, (long long)p->peak_bytes);
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

static int cmd_plan(int argc, char **argv) {
  const char *file = NULL;
  long long nranks = 0;
  int i, all = 0, rc = 0;
  ca_dist_plan_options_t po = CA_DIST_PLAN_OPTIONS_INIT;
  ca_graph_t *g = NULL;
  ca_array_t **arrays = NULL;
  size_t n = 0, nkeys = 0, k, nlists = 0;
  ca_key_t *keys = NULL;
  int64_t *idx = NULL;
  ca_keylist_t **lists = NULL;
  ca_dist_rank_plan_t *per = NULL;
  for (i = 0; i < argc; ++i) {
    const char *a = argv[i];
    int has_next = i + 1 < argc;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage_plan(stdout);
      return 0;
    } else if (!strcmp(a, "--ranks") && has_next) {
      if (!parse_i64(argv[++i], &nranks) || nranks < 1 || nranks > (1 << 20))
        return bad_usage(usage_plan, "--ranks wants a count from 1 to 1048576, not '%s'", argv[i]);
    } else if (!strcmp(a, "--placement") && has_next) {
      if (!parse_placement(argv[++i], &po.placement))
        return bad_usage(usage_plan, "--placement is locality, locality-count or round-robin, not '%s'", argv[i]);
    } else if (!strcmp(a, "--results") && has_next) {
      const char *r = argv[++i];
      if (!strcmp(r, "gather")) po.results = CA_DIST_RESULTS_GATHER;
      else if (!strcmp(r, "local")) po.results = CA_DIST_RESULTS_LOCAL;
      else return bad_usage(usage_plan, "--results is gather or local, not '%s'", r);
    } else if (!strcmp(a, "--all")) {
      all = 1;
    } else if (a[0] == '-') {
      return bad_usage(usage_plan, "unknown option or missing value: '%s'", a);
    } else if (!file) {
      file = a;
    } else {
      return bad_usage(usage_plan, "unexpected argument '%s'", a);
    }
  }
  if (!file) return bad_usage(usage_plan, "no FILE given%s", "");
  if (nranks == 0) return bad_usage(usage_plan, "--ranks N is required%s", "");
  po.nranks = (int32_t)nranks;
  if (load_file(&g, &arrays, &n, file) != CA_OK) return fail_load(file);
  if (n == 0) {
    const char *what = NULL;
    if (final_keys(g, &lists, &nlists, &keys, &nkeys, &what) != 0) {
      rc = ca_last_error_code() != CA_OK ? fail_call(what) : (fprintf(stderr, "%s: %s\n", prog, what), 1);
      goto done;
    }
  } else {
    /* Every block of every array. */
    size_t total = 0, nidx = 0, pos = 0;
    for (k = 0; k < n; ++k) {
      int32_t d, nd = ca_array_ndim(arrays[k]);
      size_t nb = 1;
      for (d = 0; d < nd; ++d) {
        int64_t m = 0;
        ca_array_chunks(arrays[k], d, &m);
        nb *= (size_t)m;
      }
      total += nb;
      nidx += nb * (size_t)(nd ? nd : 1);
    }
    keys = (ca_key_t *)calloc(total ? total : 1, sizeof *keys);
    idx = (int64_t *)calloc(nidx ? nidx : 1, sizeof *idx);
    if (!keys || !idx) {
      fprintf(stderr, "%s: out of memory for %zu keys\n", prog, total);
      rc = 1;
      goto done;
    }
    for (k = 0; k < n; ++k) {
      int32_t d, nd = ca_array_ndim(arrays[k]);
      int64_t cur[CA_MAX_NDIM + 1], nb[CA_MAX_NDIM + 1];
      size_t b, count = 1;
      for (d = 0; d < nd; ++d) {
        ca_array_chunks(arrays[k], d, &nb[d]);
        cur[d] = 0;
        count *= (size_t)nb[d];
      }
      for (b = 0; b < count; ++b) {
        keys[nkeys].name = ca_array_name(arrays[k]);
        keys[nkeys].index = idx + pos;
        keys[nkeys].nindex = nd;
        for (d = 0; d < nd; ++d) idx[pos++] = cur[d];
        nkeys++;
        for (d = nd - 1; d >= 0; --d) {
          if (++cur[d] < nb[d]) break;
          cur[d] = 0;
        }
      }
    }
  }
  per = (ca_dist_rank_plan_t *)calloc((size_t)nranks, sizeof *per);
  if (!per) {
    fprintf(stderr, "%s: out of memory for %lld ranks\n", prog, nranks);
    rc = 1;
    goto done;
  }
  po.rank_plan_size = sizeof *per;
  if (ca_dist_plan(per, g, keys, nkeys, &po) != CA_OK) {
    rc = fail_call("plan");
    goto done;
  }
  {
    int64_t tot[7] = {0, 0, 0, 0, 0, 0, 0}, again = 0;
    int64_t *tasks = (int64_t *)malloc((size_t)nranks * sizeof(int64_t));
    long long r;
    printf("plan of %s on %lld %s (placement %s, results %s): %zu result %s\n", file, nranks,
           plural(nranks, "rank", "ranks"),
           po.placement == CA_PLACEMENT_ROUND_ROBIN ? "round-robin"
           : po.placement == CA_PLACEMENT_LOCALITY_COUNT ? "locality-count" : "locality",
           po.results == CA_DIST_RESULTS_LOCAL ? "local" : "gathered to rank 0", nkeys,
           plural((long long)nkeys, "block", "blocks"));
    printf("%-6s %10s %10s %14s %10s %14s %10s %14s\n", "rank", "tasks", "blocks_in", "bytes_in", "blocks_out",
           "bytes_out", "peak_blk", "peak_bytes");
    for (r = 0; r < nranks; ++r) {
      const ca_dist_rank_plan_t *p = &per[r];
      tot[0] += p->tasks;
      again += p->tasks_replicated;
      tot[1] += p->blocks_in;
      tot[2] += p->bytes_in;
      tot[3] += p->blocks_out;
      tot[4] += p->bytes_out;
      if (p->peak_blocks > tot[5]) tot[5] = p->peak_blocks;
      if (p->peak_bytes > tot[6]) tot[6] = p->peak_bytes;
      if (tasks) tasks[r] = p->tasks;
      if (all || nranks <= 64 || r < 16 || r >= nranks - 16) print_rank_plan(p);
      else if (r == 16) printf("... %lld %s not shown (--all) ...\n", nranks - 32, plural(nranks - 32, "rank", "ranks"));
    }
    printf("%-6s %10lld %10lld %14lld %10lld %14lld %10lld %14lld\n", "total", (long long)tot[0], (long long)tot[1],
           (long long)tot[2], (long long)tot[3], (long long)tot[4], (long long)tot[5], (long long)tot[6]);
    if (tasks) {
      qsort(tasks, (size_t)nranks, sizeof(int64_t), cmp_i64);
      printf("tasks per rank: min %lld, median %lld, max %lld; peak columns of the total line are maxima\n",
             (long long)tasks[0], (long long)tasks[nranks / 2], (long long)tasks[nranks - 1]);
      free(tasks);
    }
    if (again > 0) {
      printf("%lld of the tasks are generated blocks made again on a rank that needs them instead of sent there\n",
             (long long)again);
    }
  }
done:
  free(per);
  free(idx);
  free(keys);
  free_lists(lists, nlists);
  ca_array_free_many(arrays, n);
  ca_graph_free(g);
  return rc;
}

/* Output that could not be written (a full disk, a closed pipe) is a failure too. */
static int finish(int rc) {
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "%s: cannot write the output: %s\n", prog, strerror(errno));
    return rc ? rc : 1;
  }
  return rc;
}

static int dispatch(int argc, char **argv);

int main(int argc, char **argv) { return finish(dispatch(argc, argv)); }

static int dispatch(int argc, char **argv) {
  const char *cmd;
  if (argc < 2) {
    usage_main(stderr);
    return 2;
  }
  cmd = argv[1];
  if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
    usage_main(stdout);
    return 0;
  }
  if (!strcmp(cmd, "--version")) {
    printf("chunkarray %s (graph file format %d)\n", ca_version_string(), (int)ca_format_version());
    return 0;
  }
  if (!strcmp(cmd, "run")) return cmd_run(argc - 2, argv + 2);
  if (!strcmp(cmd, "info")) return cmd_info(argc - 2, argv + 2);
  if (!strcmp(cmd, "dot")) return cmd_dot(argc - 2, argv + 2);
  if (!strcmp(cmd, "validate")) return cmd_validate(argc - 2, argv + 2);
  if (!strcmp(cmd, "plan")) return cmd_plan(argc - 2, argv + 2);
  if (!strcmp(cmd, "kernels")) return cmd_kernels(argc - 2, argv + 2);
  fprintf(stderr, "%s: unknown command '%s'\n\n", prog, cmd);
  usage_main(stderr);
  return 2;
}
