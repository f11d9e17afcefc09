/*
 * The NULL-argument catalogue: one case per (public function, pointer parameter), generated from the
 * headers by gen_null_catalogue.py; null_catalogue_main.c runs them. C99, public API only.
 */
#ifndef CA_TEST_NULL_CATALOGUE_H
#define CA_TEST_NULL_CATALOGUE_H

#include <stddef.h>
#include <stdint.h>

#include "chunkarray/chunkarray.h"

typedef struct null_case {
  const char *function;
  const char *param;
  const char *header;
  int kind;       /* 0: returns ca_status_t, 1: void, 2: returns a value */
  int documented; /* the header says what NULL means for this parameter */
  int has_out;    /* another parameter is a T **out whose failure contract is *out == NULL */
  ca_status_t (*run)(void);
  ca_status_t (*baseline)(void); /* the same call with no NULL argument */
} null_case_t;

extern const null_case_t NULL_CASES[];
extern const size_t NUM_NULL_CASES;

/* Valid objects of every parameter type, built fresh in each forked child. */
typedef struct fixtures {
  ca_context_t *ctx;
  ca_array_t *array;
  const ca_array_t *arrays[2];
  ca_graph_t *graph;
  const char *name;
  const char *names[2];
  char textbuf[256];
  int64_t i64[16];
  double f64[16];
  const int64_t *i64s[2];
  int64_t i64_out[16];
  int32_t i32[16];
  int32_t i32_out[16];
  size_t size_out[4];
  ca_chunks_t chunks;
  ca_dimchunks_t dimchunks[4];
  ca_chunkset_t *chunkset;
  ca_block_t *block;
  ca_key_t keys[2];
  ca_key_t key_out[2];
  ca_keylist_t *keylist;
  ca_kernel_list_t *kernel_list;
  ca_kernel_info_t kernel_info[1];
  ca_arg_t args[4];
  ca_kernel_t *kernel;
  ca_kernel_ctx_t *kctx; /* only exists inside a running kernel: NULL here */
  ca_cancel_t *cancel;
  ca_dtype_t dtype_out[4];
  void *buffer;
  ca_layer_info_t layer_info[1];
  ca_index_t index[2];
  ca_boundary_t boundary[2];
  ca_store_region_t region[1];
  ca_array_arg_t array_args[2];
  ca_masked_t *masked;
  const ca_masked_t *maskeds[2];
  ca_scalar_t scalars[2];
  ca_histogram_bins_t hist_bins[2];
  void *out_ptr; /* every T **out points here */
  /* room for functions that fill an array of outputs through `out` (ca_array_nonzero writes one per
   * axis of the 2-d fixture, ca_array_meshgrid one per input): they write past out_ptr into these. */
  void *out_more[8];
} fixtures_t;

extern fixtures_t F;

ca_status_t fixture_kernel_fn(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx,
                              void *user_data);
void fixture_progress_fn(int64_t done, int64_t total, void *user_data);
ca_status_t fixture_store_fn(const ca_block_t *block, const ca_store_region_t *region, void *user_data);
ca_status_t fixture_plugin_init_fn(ca_context_t *ctx, int32_t abi_version);
void fixture_void_fn(void);

#endif
