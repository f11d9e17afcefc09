/* chunkarray: run, inspect, draw and validate graph files. Uses only the public C API. */
#define _POSIX_C_SOURCE 200809L
#include <chunkarray/chunkarray.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_PLUGINS 64

static const char *prog = "chunkarray";

static void usage_main(FILE *f) {
  fprintf(f,
          "usage: chunkarray COMMAND [OPTIONS] FILE\n"
          "\n"
          "Run and inspect chunkarray graph files (saved with ca_graph_save / ca_arrays_save).\n"
          "\n"
          "commands:\n"
          "  run FILE       compute the file's arrays (or every final task of a graph file)\n"
          "  info FILE      layers, tasks, arrays, kernels (with their recorded versions) and sizes\n"
          "  dot FILE       the graph in graphviz dot syntax\n"
          "  validate FILE  check references, cycles and (with --plugin) that every kernel exists\n"
          "                 at the version the file records\n"
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
          "  --quiet              no progress output\n");
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

static int fail_call(const char *what) {
  fprintf(stderr, "%s: %s: %s (%s)\n", prog, what, ca_last_error_message(), ca_status_str(ca_last_error_code()));
  return 1;
}

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
  if (n == 0 || n >= sizeof buf) return -1;
  memcpy(buf, dir, n + 1);
  for (i = 1; i <= n; ++i) {
    if (buf[i] == '/' || buf[i] == '\0') {
      char c = buf[i];
      buf[i] = '\0';
      if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
      buf[i] = c;
    }
  }
  return 0;
}

/* A file-name-safe copy of an array name. */
static void safe_name(char *dst, size_t cap, const char *name) {
  size_t i;
  for (i = 0; name[i] && i + 1 < cap; ++i) dst[i] = (name[i] == '/' || name[i] == '\\') ? '_' : name[i];
  dst[i] = '\0';
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

/* Keys of every task no other task depends on (the graph's results), for graph files. */
static int final_keys(const ca_graph_t *g, ca_keylist_t ***lists, size_t *nlists, ca_key_t **keys, size_t *nkeys) {
  ca_keylist_t *layers = NULL;
  size_t nl, i, j, k = 0;
  char *used;
  if (ca_graph_layers(&layers, g) != CA_OK) return -1;
  nl = ca_keylist_size(layers);
  used = (char *)calloc(nl ? nl : 1, 1);
  *lists = (ca_keylist_t **)calloc(nl ? nl : 1, sizeof(ca_keylist_t *));
  *nlists = 0;
  for (i = 0; i < nl; ++i) {
    ca_key_t li;
    ca_keylist_t *deps = NULL;
    ca_keylist_get(layers, i, &li);
    if (ca_graph_layer_dependencies(&deps, g, li.name) != CA_OK) continue;
    for (j = 0; j < ca_keylist_size(deps); ++j) {
      ca_key_t d;
      size_t m;
      ca_keylist_get(deps, j, &d);
      for (m = 0; m < nl; ++m) {
        ca_key_t lm;
        ca_keylist_get(layers, m, &lm);
        if (strcmp(lm.name, d.name) == 0) used[m] = 1;
      }
    }
    ca_keylist_free(deps);
  }
  *nkeys = 0;
  for (i = 0; i < nl; ++i) {
    ca_key_t li;
    ca_keylist_t *ks = NULL;
    if (used[i]) continue;
    ca_keylist_get(layers, i, &li);
    if (ca_graph_layer_keys(&ks, g, li.name) != CA_OK) continue;
    (*lists)[(*nlists)++] = ks;
    *nkeys += ca_keylist_size(ks);
  }
  *keys = (ca_key_t *)calloc(*nkeys ? *nkeys : 1, sizeof(ca_key_t));
  for (i = 0; i < *nlists; ++i)
    for (j = 0; j < ca_keylist_size((*lists)[i]); ++j) ca_keylist_get((*lists)[i], j, &(*keys)[k++]);
  free(used);
  ca_keylist_free(layers);
  return 0;
}

/* ---- run --------------------------------------------------------------------------------------- */

static int cmd_run(int argc, char **argv) {
  const char *file = NULL, *out = NULL, *format = "npy", *compressor = "none", *memlimit = NULL;
  const char *plugins[MAX_PLUGINS];
  int nplugins = 0, quiet = 0, i, rc = 0;
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

  copts.num_threads = (int32_t)threads;
  if (ca_context_new(&ctx, &copts) != CA_OK) return fail_call("cannot create a context");
  if (memlimit && ca_context_set_config(ctx, "memory-limit", memlimit) != CA_OK) {
    rc = fail_call("--memory-limit");
    goto done;
  }
  if (load_plugins(ctx, plugins, nplugins)) {
    rc = 1;
    goto done;
  }
  if (ca_file_load(&g, &arrays, &n, file) != CA_OK) {
    rc = fail_call(file);
    goto done;
  }
  prog_state.tty = isatty(2);
  prog_state.quiet = quiet;
  opts.progress = on_progress;
  opts.progress_user_data = &prog_state;
  opts.progress_interval_us = prog_state.tty ? 100000 : 500000;
  if (out) {
    if (mkdir_p(out) != 0) {
      fprintf(stderr, "%s: cannot create directory '%s': %s\n", prog, out, strerror(errno));
      rc = 1;
      goto done;
    }
    if (!strcmp(format, "zarr") && ca_zarr_create_group(out, NULL) != CA_OK) {
      rc = fail_call(out);
      goto done;
    }
  }
  if (n == 0) {
    ca_keylist_t **lists = NULL;
    size_t nlists = 0, nkeys = 0;
    ca_key_t *keys = NULL;
    ca_block_t **results;
    const char *budget_text = NULL;
    if (out) fprintf(stderr, "%s: note: %s holds a graph without arrays: nothing is written to %s\n", prog, file, out);
    /* More tasks than the context's task budget (a small file may declare 1e8 symbolic tasks): refused
       before its keys are listed; ca_graph_validate() checks the count first and names both. */
    if (ca_context_get_config(&budget_text, ctx, "graph.max-tasks") == CA_OK &&
        ca_graph_num_tasks(g) > atoll(budget_text) && ca_graph_validate(g, ctx, NULL, 0) != CA_OK) {
      rc = fail_call(file);
      goto done;
    }
    if (final_keys(g, &lists, &nlists, &keys, &nkeys) != 0) {
      rc = fail_call("listing the graph's keys");
      goto done;
    }
    results = (ca_block_t **)calloc(nkeys ? nkeys : 1, sizeof(ca_block_t *));
    progress_start(&prog_state, "graph");
    if (ca_compute(ctx, g, keys, nkeys, results, &opts) != CA_OK) {
      progress_end(&prog_state);
      rc = fail_call("compute");
    } else {
      progress_end(&prog_state);
      printf("computed %lld final task(s) of %lld\n", (long long)nkeys, (long long)ca_graph_num_tasks(g));
    }
    for (k = 0; k < nkeys; ++k) ca_block_free(results[k]);
    free(results);
    free(keys);
    for (k = 0; k < nlists; ++k) ca_keylist_free(lists[k]);
    free(lists);
    goto done;
  }
  for (k = 0; k < n && rc == 0; ++k) {
    const char *name = ca_array_name(arrays[k]);
    char safe[1024], path[4096 + 1100];
    double t0 = now_s();
    safe_name(safe, sizeof safe, name);
    progress_start(&prog_state, safe);
    if (out && !strcmp(format, "npy")) {
      snprintf(path, sizeof path, "%s/%s.npy", out, safe);
      if (ca_array_to_npy(ctx, arrays[k], path, &opts) != CA_OK) rc = fail_call(name);
    } else if (out) {
      snprintf(path, sizeof path, "%s/%s", out, safe);
      if (ca_array_to_zarr(ctx, arrays[k], path, &zo, &opts) != CA_OK) rc = fail_call(name);
    } else {
      ca_block_t *b = NULL;
      if (ca_array_compute(&b, ctx, arrays[k], &opts) != CA_OK) rc = fail_call(name);
      ca_block_free(b);
      path[0] = '\0';
    }
    progress_end(&prog_state);
    if (rc == 0) {
      printf("%s ", name);
      print_shape(stdout, arrays[k]);
      printf(" %s: %s%s(%.3f s)\n", ca_dtype_name(ca_array_dtype(arrays[k])), out ? path : "computed", out ? " " : " ",
             now_s() - t0);
    }
  }
done:
  ca_arrays_free(arrays, n);
  ca_graph_free(g);
  ca_context_free(ctx);
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
  return k == CA_LAYER_MATERIALIZED ? "materialized" : k == CA_LAYER_BLOCKWISE ? "blockwise" : k == CA_LAYER_DATA ? "data" : "?";
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
  if (ca_file_load(&g, &arrays, &n, file) != CA_OK) return fail_call(file);
  f = fopen(file, "rb");
  if (f && fread(hdr, 1, 16, f) == 16 && stat(file, &st) == 0)
    printf("file: %s\nformat version: %u\nsize: %lld bytes\n", file,
           (unsigned)(hdr[8] | hdr[9] << 8 | hdr[10] << 16 | (unsigned)hdr[11] << 24), (long long)st.st_size);
  if (f) fclose(f);
  printf("layers: %lld\ntasks: %lld\n", (long long)ca_graph_num_layers(g), (long long)ca_graph_num_tasks(g));
  if (ca_graph_layers(&layers, g) == CA_OK) {
    for (i = 0; i < ca_keylist_size(layers); ++i) {
      ca_key_t k;
      ca_layer_info_t li = CA_LAYER_INFO_INIT;
      ca_keylist_get(layers, i, &k);
      if (ca_graph_layer_info(g, k.name, &li) != CA_OK) continue;
      printf("  %-48s %-12s %10lld tasks  %d index(es)", k.name, kind_name(li.kind), (long long)li.num_tasks, li.nindex);
      if (li.kind == CA_LAYER_DATA) printf("  %lld bytes", (long long)li.data_bytes);
      printf("\n");
    }
    ca_keylist_free(layers);
  }
  printf("arrays: %zu\n", n);
  for (i = 0; i < n; ++i) {
    printf("  %s shape ", ca_array_name(arrays[i]));
    print_shape(stdout, arrays[i]);
    printf(" chunks ");
    print_chunks(stdout, arrays[i]);
    printf(" dtype %s (%lld bytes)\n", ca_dtype_name(ca_array_dtype(arrays[i])), (long long)ca_array_nbytes(arrays[i]));
  }
  if (ca_graph_kernels(&kernels, g) == CA_OK) {
    printf("kernels: %zu\n", ca_keylist_size(kernels));
    for (i = 0; i < ca_keylist_size(kernels); ++i) {
      ca_key_t k;
      int32_t version = 0;
      ca_keylist_get(kernels, i, &k);
      if (ca_graph_kernel_version(&version, g, k.name) != CA_OK)
        printf("  %s (%s)\n", k.name, ca_last_error_message());
      else if (version > 0)
        printf("  %s (version %d)\n", k.name, (int)version);
      else
        printf("  %s (version not recorded)\n", k.name);
    }
    ca_keylist_free(kernels);
  }
  ca_arrays_free(arrays, n);
  ca_graph_free(g);
  return 0;
}

static int cmd_dot(int argc, char **argv) {
  const char *file = NULL, *dot_out = NULL;
  int r = one_file(argc, argv, usage_dot, &file, NULL, NULL, &dot_out);
  ca_graph_t *g = NULL;
  char *dot = NULL;
  if (r) return r < 0 ? 0 : r;
  if (ca_graph_load(&g, file) != CA_OK) return fail_call(file);
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
  if (ca_file_load(&g, &arrays, &n, file) != CA_OK) {
    r = fail_call(file);
  } else if (ca_graph_validate(g, ctx, NULL, 0) != CA_OK) {
    r = fail_call("invalid graph");
  } else {
    printf("%s: valid (%lld layers, %lld tasks, %zu arrays)\n", file, (long long)ca_graph_num_layers(g),
           (long long)ca_graph_num_tasks(g), n);
  }
  ca_arrays_free(arrays, n);
  ca_graph_free(g);
  ca_context_free(ctx);
  return r;
}

int main(int argc, char **argv) {
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
  fprintf(stderr, "%s: unknown command '%s'\n\n", prog, cmd);
  usage_main(stderr);
  return 2;
}
