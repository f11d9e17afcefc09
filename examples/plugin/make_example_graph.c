/* Writes the example graph file: arrays that call the example plugin's kernels.
 *   usage: make_example_graph OUT.cagraph
 * x = arange(0, 60).reshape-free 1-d float64 in ragged chunks; outputs
 *   affine = example.affine(x, 0.5, -3)
 *   hypot  = example.hypot(clamp(x, 10, 40), affine)
 * (NumPy: 0.5*x - 3 and hypot(clip(x, 10, 40), 0.5*x - 3)). */
#include <chunkarray/chunkarray.h>

#include <stdio.h>

#define CHECK(x)                                                                 \
  do {                                                                           \
    if ((x) != CA_OK) {                                                          \
      fprintf(stderr, "make_example_graph: %s: %s\n", #x, ca_last_error_message()); \
      return 1;                                                                  \
    }                                                                            \
  } while (0)

int main(int argc, char **argv) {
  ca_array_t *x, *aff, *cl, *hy;
  int64_t nb[1] = {4}, sizes[4] = {16, 16, 16, 12};
  ca_chunks_t ch = {1, nb, sizes};
  ca_arg_t ab[2], lohi[2];
  const ca_array_t *pair[2];
  const ca_array_t *outs[2];
  ca_map_blocks_options_t mo = CA_MAP_BLOCKS_OPTIONS_INIT;
  ca_save_options_t so = CA_SAVE_OPTIONS_INIT;
  if (argc != 2) {
    fprintf(stderr, "usage: make_example_graph OUT.cagraph\n");
    return 2;
  }
  CHECK(ca_array_arange(&x, 0, 60, 1, &ch, CA_FLOAT64));
  ab[0] = ca_arg_f64(0.5);
  ab[1] = ca_arg_f64(-3.0);
  mo.dtype = CA_FLOAT64;
  mo.name = "affine";
  CHECK(ca_array_map_blocks(&aff, "example.affine", (const ca_array_t *const *)&x, 1, ab, 2, &mo));
  lohi[0] = ca_arg_i64(10);
  lohi[1] = ca_arg_i64(40);
  mo.name = "clamp";
  CHECK(ca_array_map_blocks(&cl, "example.clamp", (const ca_array_t *const *)&x, 1, lohi, 2, &mo));
  pair[0] = cl;
  pair[1] = aff;
  mo.name = "hypot";
  CHECK(ca_array_map_blocks(&hy, "example.hypot", pair, 2, NULL, 0, &mo));
  outs[0] = aff;
  outs[1] = hy;
  so.path = argv[1];
  so.arrays = (const ca_array_t *const *)outs;
  so.narrays = 2;
  CHECK(ca_save(NULL, NULL, &so));
  ca_array_free(x);
  ca_array_free(aff);
  ca_array_free(cl);
  ca_array_free(hy);
  return 0;
}
