/* With --no-zarr the zarr pipeline is replaced by one over a persisted array only (the golden files
 * in tests/format/golden are made this way: make_graphs tests/format/golden --no-zarr).
 * Writes DIR/pipelines.cagraph (the arrays of pipelines.c, with a zarr input in DIR/x.zarr) and
 * DIR/expected/<name>.npy computed in this process, for the CLI test to compare against.
 *   usage: make_graphs DIR */
#include <chunkarray/chunkarray.h>

#include <stdio.h>
#include <string.h>

#include "pipelines.h"

int main(int argc, char **argv) {
  ca_context_t *ctx = NULL;
  ca_array_t *arrays[PIPELINES_MAX];
  size_t n = 0, i;
  char path[4096];
  int zarr = !(argc == 3 && strcmp(argv[2], "--no-zarr") == 0);
  if (argc != 2 && zarr) {
    fprintf(stderr, "usage: make_graphs DIR [--no-zarr]\n");
    return 2;
  }
  if (ca_context_new(&ctx, NULL) != CA_OK) return 1;
  snprintf(path, sizeof path, "%s/x.zarr", argv[1]);
  if (pipelines_build(ctx, zarr ? path : NULL, arrays, &n) != 0) return 1;
  snprintf(path, sizeof path, "%s/pipelines.cagraph", argv[1]);
  if (ca_arrays_save((const ca_array_t *const *)arrays, n, path) != CA_OK) {
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
