/* With --no-zarr the zarr pipeline is replaced by one over a persisted array only (the golden files
 * in tests/format/golden are made this way: make_graphs tests/format/golden --no-zarr).
 * Writes DIR/pipelines.cagraph (the arrays of pipelines.c, with a zarr input in DIR/x.zarr) and
 * DIR/expected/<name>.npy computed in this process, for the CLI test to compare against.
 * With --versioned, writes the example plugin's graph recording kernel version VERSION (below).
 * With --named, writes one array arange(5) (chunks (3, 2), float64) named NAME, whatever NAME is (the
 * CLI must refuse names such as ".." before writing anything). With --huge, a graph file without arrays
 * whose one blockwise layer has 2^40 tasks (listing its keys fails; the CLI must say so and exit 1).
 * With --masked, two masked arrays (ca_masked_save): masked_greater(arange(12) (chunks 5), 7.5) with
 * fill value -1, and arange(4) (int32) without a mask.
 *   usage: make_graphs DIR [--no-zarr] | make_graphs --versioned OUT.cagraph VERSION
 *          make_graphs --named OUT.cagraph NAME | make_graphs --huge OUT.cagraph
 *          make_graphs --masked OUT.cagraph */
#include <chunkarray/chunkarray.h>
#include "../support/save_load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipelines.h"

/* Stands in for the example plugin's kernels when saving: only its name and version matter. */
static ca_status_t stand_in(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *ud) {
  (void)out;
  (void)args;
  (void)nargs;
  (void)ud;
  ca_kernel_set_error(kctx, "make_graphs: a stand-in kernel is not meant to run");
  return CA_EINVAL;
}

/* make_graphs --versioned OUT.cagraph VERSION: the example plugin's graph (examples/plugin:
 * affine = example.affine(arange(60), 0.5, -3)) saved with a context where the example.* kernels
 * have version VERSION, so the file records it. */
static int versioned(const char *path, int version) {
  static const char *names[] = {"example.affine", "example.clamp", "example.hypot"};
  ca_context_t *ctx = NULL;
  ca_array_t *x = NULL, *aff = NULL;
  int64_t nb[1] = {4}, sizes[4] = {16, 16, 16, 12};
  ca_chunks_t ch = {1, nb, sizes};
  ca_arg_t ab[2];
  ca_kernel_options_t ko = CA_KERNEL_OPTIONS_INIT;
  ca_map_blocks_options_t mo = CA_MAP_BLOCKS_OPTIONS_INIT;
  ca_save_options_t so = CA_SAVE_OPTIONS_INIT;
  int i, rc = 1;
  ko.version = version;
  if (ca_context_new(&ctx, NULL) != CA_OK) goto done;
  for (i = 0; i < 3; ++i)
    if (ca_context_register(ctx, names[i], stand_in, &ko) != CA_OK) goto done;
  if (ca_array_arange(&x, 0, 60, 1, &ch, CA_FLOAT64) != CA_OK) goto done;
  ab[0] = ca_arg_f64(0.5);
  ab[1] = ca_arg_f64(-3.0);
  mo.dtype = CA_FLOAT64;
  mo.name = "affine";
  if (ca_array_map_blocks(&aff, "example.affine", (const ca_array_t *const *)&x, 1, ab, 2, &mo) != CA_OK) goto done;
  so.context = ctx;
  if (save_to(NULL, NULL, path, NULL, (const ca_array_t *const *)&aff, 1, &so) != CA_OK) goto done;
  rc = 0;
done:
  if (rc) fprintf(stderr, "make_graphs: %s\n", ca_last_error_message());
  ca_array_free(aff);
  ca_array_free(x);
  ca_context_free(ctx);
  return rc;
}

/* make_graphs --named OUT.cagraph NAME: NAME = ca.identity(arange(5)), saved as the file's array. */
static int named(const char *path, const char *name) {
  int64_t nb[1] = {2}, sizes[2] = {3, 2};
  ca_chunks_t ch = {1, nb, sizes};
  ca_array_t *x = NULL, *y = NULL;
  ca_graph_t *g = NULL;
  ca_arg_t arg;
  int rc = 1;
  if (ca_array_arange(&x, 0, 5, 1, &ch, CA_FLOAT64) != CA_OK || ca_array_graph(&g, x) != CA_OK) goto done;
  arg = ca_arg_indexed(ca_array_name(x), "i");
  if (ca_graph_add_blockwise(g, name, "i", "ca.identity", &arg, 1, NULL) != CA_OK) goto done;
  if (ca_array_new(&y, g, name, &ch, CA_FLOAT64) != CA_OK) goto done;
  if (save_to(NULL, NULL, path, NULL, (const ca_array_t *const *)&y, 1, NULL) != CA_OK) goto done;
  rc = 0;
done:
  if (rc) fprintf(stderr, "make_graphs --named: %s\n", ca_last_error_message());
  ca_array_free(y);
  ca_array_free(x);
  ca_graph_free(g);
  return rc;
}

/* make_graphs --huge OUT.cagraph: a graph (no arrays) with one symbolic layer of 2^40 tasks. */
static int huge(const char *path) {
  ca_graph_t *g = NULL;
  int64_t numblocks[2] = {1 << 20, 1 << 20};
  ca_blockwise_options_t bo = CA_BLOCKWISE_OPTIONS_INIT;
  ca_arg_t arg = ca_arg_i64(1);
  int rc = 1;
  bo.numblocks = numblocks;
  if (ca_graph_new(&g) != CA_OK) goto done;
  if (ca_graph_add_blockwise(g, "huge", "ij", "ca.identity", &arg, 1, &bo) != CA_OK) goto done;
  if (save_to(NULL, NULL, path, g, NULL, 0, NULL) != CA_OK) goto done;
  rc = 0;
done:
  if (rc) fprintf(stderr, "make_graphs --huge: %s\n", ca_last_error_message());
  ca_graph_free(g);
  return rc;
}

static int masked(const char *path) {
  ca_array_t *x = NULL, *y = NULL;
  ca_masked_t *m[2] = {NULL, NULL}, *g = NULL, *mx = NULL;
  int64_t nb[1] = {3}, sizes[3] = {5, 5, 2}, nb2[1] = {1}, sizes2[1] = {4};
  ca_chunks_t ch = {1, nb, sizes}, ch2 = {1, nb2, sizes2};
  ca_scalar_t thr = {CA_FLOAT64, 0, 7.5, 0.0, 0}, fill = {CA_FLOAT64, 0, -1.0, 0.0, 0};
  ca_save_options_t so = CA_SAVE_OPTIONS_INIT;
  int rc = 1;
  so.path = path;
  if (ca_array_arange(&x, 0, 12, 1, &ch, CA_FLOAT64) != CA_OK) goto done;
  if (ca_array_arange(&y, 0, 4, 1, &ch2, CA_INT32) != CA_OK) goto done;
  if (ca_masked_new(&mx, x, NULL, NULL) != CA_OK) goto done;
  if (ca_masked_compare(&g, mx, CA_MASK_GREATER, thr, thr) != CA_OK) goto done;
  if (ca_masked_set_fill_value(&m[0], g, &fill) != CA_OK) goto done;
  if (ca_masked_new(&m[1], y, NULL, NULL) != CA_OK) goto done;
  if (ca_masked_save(NULL, NULL, (const ca_masked_t *const *)m, 2, &so) != CA_OK) goto done;
  rc = 0;
done:
  if (rc) fprintf(stderr, "make_graphs: %s\n", ca_last_error_message());
  ca_masked_free(m[0]);
  ca_masked_free(m[1]);
  ca_masked_free(g);
  ca_masked_free(mx);
  ca_array_free(x);
  ca_array_free(y);
  return rc;
}

int main(int argc, char **argv) {
  ca_context_t *ctx = NULL;
  ca_array_t *arrays[PIPELINES_MAX];
  size_t n = 0, i;
  char path[4096];
  int zarr;
  if (argc == 4 && strcmp(argv[1], "--versioned") == 0) return versioned(argv[2], atoi(argv[3]));
  if (argc == 4 && strcmp(argv[1], "--named") == 0) return named(argv[2], argv[3]);
  if (argc == 3 && strcmp(argv[1], "--huge") == 0) return huge(argv[2]);
  if (argc == 3 && strcmp(argv[1], "--masked") == 0) return masked(argv[2]);
  zarr = !(argc == 3 && strcmp(argv[2], "--no-zarr") == 0);
  if (argc != 2 && zarr) {
    fprintf(stderr, "usage: make_graphs DIR [--no-zarr] | make_graphs --versioned OUT.cagraph VERSION\n");
    return 2;
  }
  if (ca_context_new(&ctx, NULL) != CA_OK) return 1;
  snprintf(path, sizeof path, "%s/x.zarr", argv[1]);
  if (pipelines_build(ctx, zarr ? path : NULL, arrays, &n) != 0) return 1;
  snprintf(path, sizeof path, "%s/pipelines.cagraph", argv[1]);
  if (save_to(NULL, NULL, path, NULL, (const ca_array_t *const *)arrays, n, NULL) != CA_OK) {
    fprintf(stderr, "make_graphs: %s\n", ca_last_error_message());
    return 1;
  }
  for (i = 0; i < n; ++i) {
    snprintf(path, sizeof path, "%s/expected/%s.npy", argv[1], ca_array_name(arrays[i]));
    if (ca_array_to_npy(ctx, arrays[i], path, NULL) != CA_OK) {
      fprintf(stderr, "make_graphs: %s\n", ca_last_error_message());
      return 1;
    }
    ca_array_free(arrays[i]);
  }
  ca_context_free(ctx);
  printf("%zu arrays\n", n);
  return 0;
}
