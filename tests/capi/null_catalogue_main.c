/*
 * Runs the NULL-argument catalogue (see gen_null_catalogue.py): every public function, every pointer
 * parameter, called with that parameter NULL and valid fixtures elsewhere. Each case runs in a forked
 * child with a time limit, so a crash or a hang is reported against its function and parameter.
 * A case passes when the child exits normally and
 *   - a status-returning function failed with a message that starts with its own name ("fn: ") and
 *     names the parameter, and left a T **out
 *     output NULL; or the header documents what NULL means for the parameter (any status, no crash);
 *   - a void or value-returning function returned (NULL must be harmless there).
 * Ends with "N passed, N failed" and exits non-zero on any failure. C99 + POSIX.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "null_catalogue.h"

fixtures_t F;
static int g_sentinel;
#define SENTINEL ((void *)&g_sentinel)

ca_status_t fixture_kernel_fn(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx,
                              void *user_data) {
  (void)args, (void)nargs, (void)kctx, (void)user_data;
  int64_t shape[1] = {1};
  return ca_block_new_zeroed(out, CA_FLOAT64, 1, shape);
}
void fixture_progress_fn(int64_t done, int64_t total, void *user_data) { (void)done, (void)total, (void)user_data; }
ca_status_t fixture_store_fn(const ca_block_t *block, const ca_store_region_t *region, void *user_data) {
  (void)block, (void)region, (void)user_data;
  return CA_OK;
}
ca_status_t fixture_plugin_init_fn(ca_context_t *ctx, int32_t abi_version) {
  (void)ctx, (void)abi_version;
  return CA_OK;
}
void fixture_void_fn(void) {}

#define MUST(expr)                                                                                 \
  do {                                                                                             \
    if ((expr) != CA_OK) {                                                                         \
      fprintf(stderr, "fixture setup failed: %s: %s\n", #expr, ca_last_error_message());           \
      _exit(3);                                                                                    \
    }                                                                                              \
  } while (0)

static void fixtures_make(void) {
  static const int64_t shape[2] = {4, 6}, numblocks[2] = {2, 2}, sizes[4] = {2, 2, 3, 3};
  memset(&F, 0, sizeof F);
  MUST(ca_context_new(&F.ctx, NULL));
  F.chunks.ndim = 2;
  F.chunks.numblocks = numblocks;
  F.chunks.sizes = sizes;
  MUST(ca_array_ones(&F.array, 2, shape, &F.chunks, CA_FLOAT64));
  F.arrays[0] = F.array;
  F.arrays[1] = F.array;
  MUST(ca_array_graph(&F.graph, F.array));
  F.name = ca_array_name(F.array);
  F.names[0] = F.name;
  F.names[1] = F.name;
  for (int i = 0; i < 16; i++) F.i64[i] = (i % 2) ? 6 : 4, F.i32[i] = i % 2, F.f64[i] = 1.5;
  F.i64[0] = 4, F.i64[1] = 6;
  F.i64s[0] = F.i64;
  F.i64s[1] = F.i64;
  for (int d = 0; d < 4; d++) F.dimchunks[d].size = 2;
  MUST(ca_normalize_chunks_spec(&F.chunkset, F.ctx, "2", 2, shape, CA_FLOAT64));
  MUST(ca_block_new_zeroed(&F.block, CA_FLOAT64, 2, shape));
  static const int64_t idx00[2] = {0, 0};
  F.keys[0].name = F.name;
  F.keys[0].index = idx00;
  F.keys[0].nindex = 2;
  F.keys[1] = F.keys[0];
  MUST(ca_array_keys(&F.keylist, F.array));
  MUST(ca_kernel_registry_list(&F.kernel_list, F.ctx));
  F.kernel_info[0].struct_size = sizeof(ca_kernel_info_t);
  for (int i = 0; i < 4; i++) F.args[i].kind = CA_ARG_INT64;
  MUST(ca_kernel_new(&F.kernel, "catalogue.kernel", fixture_kernel_fn, NULL));
  MUST(ca_cancel_new(&F.cancel));
  F.buffer = calloc(1, 1 << 16);
  F.layer_info[0].struct_size = sizeof(ca_layer_info_t);
  ca_index_t slice = CA_INDEX_SLICE_INIT;
  F.index[0] = slice;
  F.index[1] = slice;
  F.region[0].ndim = 2;
  F.region[0].start = idx00;
  F.region[0].stop = shape;
  F.region[0].block_index = idx00;
  F.array_args[0].array = F.array;
  F.array_args[0].index = "ij";
  F.array_args[1] = F.array_args[0];
  MUST(ca_masked_new(&F.masked, F.array, NULL, NULL));
  F.maskeds[0] = F.masked;
  F.maskeds[1] = F.masked;
  F.scalars[0].kind = CA_FLOAT64;
  F.scalars[1].kind = CA_FLOAT64;
  for (int d = 0; d < 2; d++) F.hist_bins[d].nbins = 2, F.hist_bins[d].lo = 0.0, F.hist_bins[d].hi = 1.0;
}

/* Whether msg names word as a whole identifier ("a is NULL" names 'a', "array" does not). */
static int names_word(const char *msg, const char *word) {
  size_t n = strlen(word);
  for (const char *p = strstr(msg, word); p; p = strstr(p + 1, word)) {
    int before = p > msg && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
    int after = isalnum((unsigned char)p[n]) || p[n] == '_';
    if (!before && !after) return 1;
  }
  return 0;
}

/* The baseline call's outcome (status and message). */
typedef struct outcome {
  ca_status_t status;
  char message[512];
} outcome_t;

static size_t g_not_exercised;

/* Runs case c in the child; exit codes: 0 pass, 1 failed check (printed), 3 fixture failure,
 * 4 passed but not exercised (the call fails the same way without the NULL). */
static void child(const null_case_t *c) {
  /* The same call without the NULL first, on fixtures of its own (one fork per case: under ASan a
   * fork of this process is most of a case's cost). */
  outcome_t base_outcome, *base = &base_outcome;
  int have_base = 0;
  memset(base, 0, sizeof *base);
  if (c->kind == 0 && !c->documented && c->baseline) {
    fixtures_make();
    F.out_ptr = SENTINEL;
    base->status = c->baseline();
    if (base->status != CA_OK) snprintf(base->message, sizeof base->message, "%s", ca_last_error_message());
    have_base = 1;
  }
  fixtures_make();
  F.out_ptr = SENTINEL;
  ca_status_t st = c->run();
  if (c->kind != 0 || c->documented) _exit(0);
  if (st != CA_OK && have_base && base->status == st && strncmp(base->message, ca_last_error_message(),
                                                                sizeof base->message - 1) == 0)
    _exit(4);
  if (st == CA_OK) {
    printf("  %s(%s = NULL) returned CA_OK; the header (%s) does not say what NULL means\n", c->function,
           c->param, c->header);
    fflush(stdout);
    _exit(1);
  }
  const char *msg = ca_last_error_message();
  if (!msg || !*msg) {
    printf("  %s(%s = NULL) returned %s with no message\n", c->function, c->param, ca_status_str(st));
    fflush(stdout);
    _exit(1);
  }
  if (!names_word(msg, c->param)) {
    printf("  %s(%s = NULL) returned %s, message \"%s\" does not name '%s'\n", c->function, c->param,
           ca_status_str(st), msg, c->param);
    fflush(stdout);
    _exit(1);
  }
  /* The message names what the caller called, not a function it delegates to ("ca_array_zeros: out
   * is NULL", never "ca_array_full: ..."): it starts with the function's name and a colon. */
  size_t fn_len = strlen(c->function);
  if (strncmp(msg, c->function, fn_len) != 0 || msg[fn_len] != ':') {
    printf("  %s(%s = NULL) returned %s, message \"%s\" does not start with \"%s:\"\n", c->function, c->param,
           ca_status_str(st), msg, c->function);
    fflush(stdout);
    _exit(1);
  }
  if (c->has_out && F.out_ptr != NULL) {
    printf("  %s(%s = NULL) failed but left *out set\n", c->function, c->param);
    fflush(stdout);
    _exit(1);
  }
  _exit(0);
}

int main(int argc, char **argv) {
  const char *only = argc > 1 ? argv[1] : NULL;
  char dir[] = "/tmp/ca_null_catalogue_XXXXXX";
  if (!mkdtemp(dir) || chdir(dir) != 0) {
    perror("mkdtemp");
    return 2;
  }
  size_t passed = 0, failed = 0;
  for (size_t i = 0; i < NUM_NULL_CASES; i++) {
    const null_case_t *c = &NULL_CASES[i];
    if (only && strcmp(only, c->function) != 0) continue;
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
      perror("fork");
      return 2;
    }
    if (pid == 0) {
      alarm(30);
      child(c);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 4)) {
      passed++;
      if (WEXITSTATUS(status) == 4) g_not_exercised++;
    } else {
      failed++;
      if (WIFSIGNALED(status))
        printf("FAIL %s(%s = NULL): killed by signal %d%s\n", c->function, c->param, WTERMSIG(status),
               WTERMSIG(status) == SIGALRM ? " (hung for 30 s)" : "");
      else if (WEXITSTATUS(status) == 3)
        printf("FAIL %s(%s = NULL): fixture setup failed\n", c->function, c->param);
      else
        printf("FAIL %s(%s = NULL)\n", c->function, c->param);
    }
  }
  /* Remove whatever the cases created in the scratch directory. */
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  printf("null catalogue: %zu cases over the public headers (%zu fail the same way without the NULL)\n",
         passed + failed, g_not_exercised);
  printf("%zu passed, %zu failed\n", passed, failed);
  return failed ? 1 : 0;
}
