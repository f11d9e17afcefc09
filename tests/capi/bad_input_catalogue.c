/*
 * The bad-input catalogue beyond NULL (the NULL cases are generated: gen_null_catalogue.py): for every
 * public function family that takes sizes, shapes, axes, dtypes, chunks, indices or names, calls with
 * values that overflow, have the wrong rank or dtype, are out of range, or describe bad chunks. Each
 * case states the status it must return and words the message must contain — the offending value
 * itself ("axis 5", "-3", "1099511627776"), so a caller can tell what was wrong.
 *
 * Every case runs in a forked child with a time limit, so a crash or a hang is reported by name.
 * Ends with "N passed, N failed" and exits non-zero on any failure. C99 + POSIX.
 */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chunkarray/chunkarray.h>

/* ---- fixtures ----------------------------------------------------------------------------------- */

static ca_context_t *ctx;
static ca_array_t *A;   /* 4 x 6 float64, chunks ((2, 2), (3, 3)) */
static ca_array_t *AT;  /* 6 x 4 float64 (A transposed) */
static ca_array_t *V;   /* 1-d int64 of 5, chunks (2, 2, 1) */
static ca_array_t *S;   /* 0-d float64 */
static ca_array_t *R;   /* a result slot (freed by the child's exit) */
static const int64_t shape46[2] = {4, 6}, nb46[2] = {2, 2}, sz46[4] = {2, 2, 3, 3};
static ca_chunks_t ch46 = {2, nb46, sz46};
static char tmpdir[256];

#define MUST(expr)                                                                                 \
  do {                                                                                             \
    if ((expr) != CA_OK) {                                                                         \
      fprintf(stderr, "fixture setup failed: %s: %s\n", #expr, ca_last_error_message());           \
      exit(3);                                                                                     \
    }                                                                                              \
  } while (0)

static void fixtures_make(void) {
  static const int64_t nb5[1] = {3}, sz5[3] = {2, 2, 1}, nb64[2] = {2, 2}, sz64[4] = {3, 3, 2, 2};
  ca_chunks_t ch5 = {1, nb5, sz5}, ch64 = {2, nb64, sz64}, ch0 = {0, NULL, NULL};
  int64_t shape5 = 5, shape64[2] = {6, 4};
  ca_context_options_t o = CA_CONTEXT_OPTIONS_INIT;
  o.num_threads = 2;
  MUST(ca_context_new(&ctx, &o));
  MUST(ca_array_ones(&A, 2, shape46, &ch46, CA_FLOAT64));
  MUST(ca_array_ones(&AT, 2, shape64, &ch64, CA_FLOAT64));
  MUST(ca_array_ones(&V, 1, &shape5, &ch5, CA_INT64));
  MUST(ca_array_full(&S, 0, NULL, &ch0, CA_FLOAT64, 2.0, 0.0));
  snprintf(tmpdir, sizeof tmpdir, "/tmp/ca_bad_input_%ld", (long)getpid());
}

static ca_scalar_t f64(double v) {
  ca_scalar_t s;
  memset(&s, 0, sizeof s);
  s.kind = CA_FLOAT64;
  s.re = v;
  return s;
}

/* ---- cases -------------------------------------------------------------------------------------- */

/* creation */
static ca_status_t c_ones_overflow(void) {
  static const int64_t shape[2] = {(int64_t)1 << 40, (int64_t)1 << 40}, nb[2] = {1, 1};
  ca_chunks_t ch = {2, nb, shape};
  return ca_array_ones(&R, 2, shape, &ch, CA_FLOAT64);
}
static ca_status_t c_zeros_negative_extent(void) {
  static const int64_t shape[1] = {-3}, nb[1] = {1};
  ca_chunks_t ch = {1, nb, shape};
  return ca_array_zeros(&R, 1, shape, &ch, CA_FLOAT64);
}
static ca_status_t c_ones_bad_dtype(void) { return ca_array_ones(&R, 2, shape46, &ch46, 999); }
static ca_status_t c_ones_chunks_sum(void) {
  static const int64_t shape[1] = {10}, nb[1] = {2}, sz[2] = {3, 3};
  ca_chunks_t ch = {1, nb, sz};
  return ca_array_ones(&R, 1, shape, &ch, CA_FLOAT64);
}
static ca_status_t c_ones_chunks_rank(void) {
  static const int64_t shape[1] = {10};
  return ca_array_ones(&R, 1, shape, &ch46, CA_FLOAT64);
}
static ca_status_t c_ones_ndim_range(void) {
  static int64_t shape[70];
  return ca_array_ones(&R, 70, shape, &ch46, CA_FLOAT64);
}
static ca_status_t c_diag_rank(void) { return ca_array_diag(&R, S, 0); }
static ca_status_t c_arange_step0(void) {
  static const int64_t nb[1] = {1}, sz[1] = {5};
  ca_chunks_t ch = {1, nb, sz};
  return ca_array_arange(&R, 0, 5, 0, &ch, CA_FLOAT64);
}
static ca_status_t c_linspace_negative(void) {
  static const int64_t nb[1] = {1}, sz[1] = {5};
  ca_chunks_t ch = {1, nb, sz};
  return ca_array_linspace(&R, 0, 1, -7, true, &ch, CA_FLOAT64);
}
static ca_status_t c_eye_negative(void) {
  static const int64_t nb[2] = {1, 1}, sz[2] = {3, 3};
  ca_chunks_t ch = {2, nb, sz};
  return ca_array_eye(&R, -2, 3, 0, &ch, CA_FLOAT64);
}
static ca_status_t c_random_distribution(void) {
  return ca_array_random(&R, 99, 2, shape46, &ch46, CA_FLOAT64, &(ca_random_options_t){sizeof(ca_random_options_t), 0u, 1, 0, 1, 0.0});
}
static ca_status_t c_random_integers_float(void) {
  return ca_array_random(&R, CA_RANDOM_INTEGERS, 2, shape46, &ch46, CA_FLOAT64, &(ca_random_options_t){sizeof(ca_random_options_t), 0u, 1, 0, 10, 0.0});
}
static ca_status_t c_from_buffer_flags(void) {
  static double data[24];
  return ca_array_from_buffer(&R, data, CA_FLOAT64, 2, shape46, &ch46, &(ca_buffer_options_t){sizeof(ca_buffer_options_t), 0x80u, NULL, NULL, NULL});
}
static ca_status_t c_from_buffer_ndim(void) {
  static double data[24];
  return ca_array_from_buffer(&R, data, CA_FLOAT64, -4, shape46, &ch46, NULL);
}
static ca_status_t c_block_new_ndim(void) {
  ca_block_t *b = NULL;
  static int64_t shape[80];
  ca_status_t st = ca_block_new(&b, CA_FLOAT64, 80, shape);
  ca_block_free(b);
  return st;
}
static ca_status_t c_block_new_overflow(void) {
  ca_block_t *b = NULL;
  static const int64_t shape[2] = {(int64_t)1 << 62, 8};
  ca_status_t st = ca_block_new(&b, CA_FLOAT64, 2, shape);
  ca_block_free(b);
  return st;
}

/* Messages name the function the caller called, also where entry points share an implementation
 * (ca_array_zeros/ones/full, the rechunk, compute and store families): "ca_array_zeros: ...", never
 * the name of the function it delegates to. */
static ca_status_t c_name_zeros_ndim(void) {
  static int64_t shape[70];
  return ca_array_zeros(&R, 70, shape, &ch46, CA_FLOAT64);
}
static ca_status_t c_name_zeros_chunks(void) {  /* an engine check: the boundary adds the name */
  static const int64_t shape[1] = {10}, nb[1] = {2}, sz[2] = {3, 3};
  ca_chunks_t ch = {1, nb, sz};
  return ca_array_zeros(&R, 1, shape, &ch, CA_FLOAT64);
}
static ca_status_t c_name_ones_ndim(void) {
  static int64_t shape[70];
  return ca_array_ones(&R, 70, shape, &ch46, CA_FLOAT64);
}
static ca_status_t c_name_full_ndim(void) {
  static int64_t shape[70];
  return ca_array_full(&R, 70, shape, &ch46, CA_FLOAT64, 1.0, 0.0);
}
static ca_status_t c_name_rechunk_spec_null_array(void) { return ca_array_rechunk_spec(&R, ctx, NULL, "2"); }
static ca_status_t c_name_rechunk_ex_both(void) {
  return ca_array_rechunk_ex(&R, ctx, A, &ch46, "2", NULL);
}
static ca_status_t c_name_compute_many_null_entry(void) {
  ca_block_t *out[2] = {NULL, NULL};
  const ca_array_t *arrays[2] = {A, NULL};
  return ca_array_compute_many(out, ctx, arrays, 2, NULL);
}
static ca_status_t c_name_compute_struct_size(void) {
  ca_block_t *out = NULL;
  ca_compute_options_t o = CA_COMPUTE_OPTIONS_INIT;
  o.struct_size = 1;
  ca_status_t st = ca_array_compute(&out, ctx, A, &o);
  ca_block_free(out);
  return st;
}
static ca_status_t dummy_sink(const ca_block_t *b, const ca_store_region_t *r, void *ud) {
  (void)b, (void)r, (void)ud;
  return CA_OK;
}
static ca_status_t c_name_store_many_null_entry(void) {
  const ca_array_t *arrays[2] = {A, NULL};
  return ca_array_store_many(ctx, arrays, 2, dummy_sink, NULL, NULL);
}
static ca_status_t c_name_store_many_null_list(void) { return ca_array_store_many(ctx, NULL, 2, dummy_sink, NULL, NULL); }
static ca_status_t c_name_register_ffi_null_signature(void) {
  return ca_context_register_ffi(ctx, "k", (void (*)(void))dummy_sink, NULL, NULL);
}
static ca_status_t c_name_add_blockwise_struct_size(void) {
  ca_graph_t *g = NULL;
  ca_blockwise_options_t o = CA_BLOCKWISE_OPTIONS_INIT;
  ca_status_t st;
  o.struct_size = 1;
  MUST(ca_graph_new(&g));
  st = ca_graph_add_blockwise(g, "y", "i", "ca.add", NULL, 0, &o);
  ca_graph_free(g);
  return st;
}

/* chunk specifications */
static ca_status_t c_normalize_str_overflow(void) {
  ca_chunkset_t *cs = NULL;
  ca_status_t st = ca_normalize_chunks_spec(&cs, ctx, "99999999999999999999", 2, shape46, CA_FLOAT64);
  ca_chunkset_free(cs);
  return st;
}
static ca_status_t c_normalize_str_rank(void) {
  ca_chunkset_t *cs = NULL;
  ca_status_t st = ca_normalize_chunks_spec(&cs, ctx, "(2, 3), -1, 4", 2, shape46, CA_FLOAT64);
  ca_chunkset_free(cs);
  return st;
}
static ca_status_t c_normalize_size(void) {
  ca_chunkset_t *cs = NULL;
  ca_dimchunks_t spec[2];
  ca_status_t st;
  memset(spec, 0, sizeof spec);
  spec[0].size = 2;
  spec[1].size = -7;
  st = ca_normalize_chunks(&cs, ctx, spec, 2, shape46, CA_FLOAT64, 0);
  ca_chunkset_free(cs);
  return st;
}
static ca_status_t c_normalize_explicit_sum(void) {
  ca_chunkset_t *cs = NULL;
  static const int64_t sizes[2] = {1, 2};
  ca_dimchunks_t spec[2];
  ca_status_t st;
  memset(spec, 0, sizeof spec);
  spec[0].size = CA_CHUNKS_EXPLICIT;
  spec[0].sizes = sizes;
  spec[0].nsizes = 2;
  spec[1].size = 3;
  st = ca_normalize_chunks(&cs, ctx, spec, 2, shape46, CA_FLOAT64, 0);
  ca_chunkset_free(cs);
  return st;
}
static ca_status_t c_normalize_too_many_blocks(void) {
  ca_chunkset_t *cs = NULL;
  static const int64_t shape[2] = {(int64_t)1 << 31, (int64_t)1 << 31};
  ca_status_t st = ca_normalize_chunks_spec(&cs, ctx, "1", 2, shape, CA_FLOAT64);
  ca_chunkset_free(cs);
  return st;
}

/* the array model */
static ca_status_t c_array_new_blocks(void) {
  ca_graph_t *g = NULL;
  static const int64_t nb[2] = {(int64_t)1 << 62, 4}, sz[1] = {1};
  ca_chunks_t ch = {2, nb, sz};
  ca_status_t st = ca_graph_new(&g);
  if (st) return st;
  st = ca_array_new(&R, g, "x", &ch, CA_FLOAT64);
  ca_graph_free(g);
  return st;
}

/* shape manipulation */
static ca_status_t c_reshape_size(void) {
  static const int64_t shape[2] = {5, 5};
  return ca_array_reshape(&R, A, 2, shape);
}
static ca_status_t c_reshape_overflow(void) {
  static const int64_t shape[2] = {(int64_t)1 << 62, 4};
  return ca_array_reshape(&R, A, 2, shape);
}
static ca_status_t c_reshape_negative(void) {
  static const int64_t shape[2] = {-2, -12};
  return ca_array_reshape(&R, A, 2, shape);
}
static ca_status_t c_transpose_repeated(void) {
  static const int32_t axes[2] = {1, 1};
  return ca_array_transpose(&R, A, axes);
}
static ca_status_t c_transpose_range(void) {
  static const int32_t axes[2] = {0, 5};
  return ca_array_transpose(&R, A, axes);
}
static ca_status_t c_moveaxis_range(void) {
  static const int32_t src[1] = {7}, dst[1] = {0};
  return ca_array_moveaxis(&R, A, src, dst, 1);
}
static ca_status_t c_swapaxes_range(void) { return ca_array_swapaxes(&R, A, 0, -3); }
static ca_status_t c_squeeze_not_one(void) {
  static const int32_t axes[1] = {1};
  return ca_array_squeeze(&R, A, axes, 1);
}
static ca_status_t c_expand_dims_range(void) {
  static const int32_t axes[1] = {9};
  return ca_array_expand_dims(&R, A, axes, 1);
}
static ca_status_t c_broadcast_to_incompatible(void) {
  static const int64_t shape[2] = {4, 7}, nb[2] = {1, 1};
  ca_chunks_t ch = {2, nb, shape};
  return ca_array_broadcast_to(&R, A, 2, shape, &ch);
}
static ca_status_t c_concatenate_rank(void) {
  const ca_array_t *xs[2];
  xs[0] = A, xs[1] = V;
  return ca_array_concatenate(&R, xs, 2, 0);
}
static ca_status_t c_concatenate_axis(void) {
  const ca_array_t *xs[2];
  xs[0] = A, xs[1] = A;
  return ca_array_concatenate(&R, xs, 2, 3);
}
static ca_status_t c_concatenate_shape(void) {
  const ca_array_t *xs[2];
  xs[0] = A, xs[1] = AT;
  return ca_array_concatenate(&R, xs, 2, 0);
}
static ca_status_t c_stack_shape(void) {
  const ca_array_t *xs[2];
  xs[0] = A, xs[1] = AT;
  return ca_array_stack(&R, xs, 2, 0);
}
static ca_status_t c_stack_axis(void) {
  const ca_array_t *xs[2];
  xs[0] = A, xs[1] = A;
  return ca_array_stack(&R, xs, 2, 4);
}
static ca_status_t c_repeat_negative(void) { return ca_array_repeat(&R, A, -1, 0); }
static ca_status_t c_repeat_overflow(void) { return ca_array_repeat(&R, A, (int64_t)1 << 62, 0); }
static ca_status_t c_tile_negative(void) {
  static const int64_t reps[2] = {1, -2};
  return ca_array_tile(&R, A, reps, 2);
}
static ca_status_t c_pad_overflow(void) {
  static const int64_t before[2] = {(int64_t)1 << 62, 0}, after[2] = {(int64_t)1 << 62, 0};
  return ca_array_pad(&R, A, before, after, CA_PAD_CONSTANT, f64(0));
}
static ca_status_t c_pad_negative(void) {
  static const int64_t before[2] = {0, -1}, after[2] = {0, 0};
  return ca_array_pad(&R, A, before, after, CA_PAD_CONSTANT, f64(0));
}
static ca_status_t c_pad_mode(void) {
  static const int64_t before[2] = {1, 1}, after[2] = {1, 1};
  return ca_array_pad(&R, A, before, after, 9, f64(0));
}
static ca_status_t c_flip_axis(void) {
  static const int32_t axes[1] = {4};
  return ca_array_flip(&R, A, axes, 1);
}

/* indexing */
static ca_status_t c_getitem_range(void) {
  ca_index_t idx[1] = {CA_INDEX_INT_INIT(10)};
  return ca_array_getitem(&R, A, idx, 1);
}
static ca_status_t c_getitem_too_many(void) {
  ca_index_t idx[3] = {CA_INDEX_INT_INIT(0), CA_INDEX_INT_INIT(0), CA_INDEX_INT_INIT(0)};
  return ca_array_getitem(&R, A, idx, 3);
}
static ca_status_t c_getitem_step0(void) {
  ca_index_t idx[1] = {CA_INDEX_SLICE_INIT};
  idx[0].slice.step = 0;
  idx[0].slice.flags |= CA_SLICE_STEP;
  return ca_array_getitem(&R, A, idx, 1);
}
static ca_status_t c_take_range(void) {
  static const int64_t ind[2] = {1, 99};
  return ca_array_take(&R, A, ind, 2, 0);
}
static ca_status_t c_take_axis(void) {
  static const int64_t ind[1] = {0};
  return ca_array_take(&R, A, ind, 1, 5);
}
static ca_status_t c_vindex_nidx(void) {
  static const int64_t i0[1] = {0};
  const int64_t *ind[3];
  ind[0] = i0, ind[1] = i0, ind[2] = i0;
  return ca_array_vindex(&R, A, ind, 3, 1);
}
static ca_status_t c_vindex_range(void) {
  static const int64_t i0[2] = {0, 100}, i1[2] = {0, 0};
  const int64_t *ind[2];
  ind[0] = i0, ind[1] = i1;
  return ca_array_vindex(&R, A, ind, 2, 2);
}

/* elementwise */
static ca_status_t c_binary_op(void) { return ca_array_binary(&R, 999, A, A); }
static ca_status_t c_unary_op(void) { return ca_array_unary(&R, 9999, A); }
static ca_status_t c_binary_broadcast(void) { return ca_array_binary(&R, CA_OP_ADD, A, V); }
static ca_status_t c_astype_dtype(void) { return ca_array_astype(&R, A, 1234); }
static ca_status_t c_bitand_float(void) { return ca_array_binary(&R, CA_OP_BITAND, A, A); }

static ca_status_t c_blockwise_index_rank(void) {
  ca_array_arg_t arg;
  memset(&arg, 0, sizeof arg);
  arg.array = A;
  arg.index = "ijk";
  return ca_array_blockwise(&R, "add", "ij", &arg, 1, CA_FLOAT64, NULL);
}
static ca_status_t c_blockwise_dtype(void) {
  ca_array_arg_t arg;
  memset(&arg, 0, sizeof arg);
  arg.array = A;
  arg.index = "ij";
  return ca_array_blockwise(&R, "add", "ij", &arg, 1, 5555, NULL);
}

/* reductions and scans */
static ca_status_t c_reduce_axis(void) {
  static const int32_t axes[1] = {2};
  return ca_array_reduce(&R, CA_RED_SUM, A, axes, 1, false, NULL);
}
static ca_status_t c_reduce_repeated(void) {
  static const int32_t axes[2] = {0, -2};
  return ca_array_reduce(&R, CA_RED_SUM, A, axes, 2, false, NULL);
}
static ca_status_t c_reduce_op(void) { return ca_array_reduce(&R, 999, A, NULL, 0, false, NULL); }
static ca_status_t c_reduce_dtype(void) {
  ca_reduce_options_t o = CA_REDUCE_OPTIONS_INIT;
  o.dtype = 777;
  return ca_array_reduce(&R, CA_RED_SUM, A, NULL, 0, false, &o);
}
static ca_status_t c_reduce_split_every(void) {
  ca_reduce_options_t o = CA_REDUCE_OPTIONS_INIT;
  o.split_every = -5;
  return ca_array_reduce(&R, CA_RED_SUM, A, NULL, 0, false, &o);
}
static ca_status_t c_argmax_two_axes(void) {
  static const int32_t axes[2] = {0, 1};
  return ca_array_reduce(&R, CA_RED_ARGMAX, A, axes, 2, false, NULL);
}
static ca_status_t c_scan_axis(void) { return ca_array_scan(&R, CA_SCAN_CUMSUM, A, -3, NULL); }
static ca_status_t c_scan_op(void) { return ca_array_scan(&R, 77, A, 0, NULL); }

/* rechunk */
static ca_status_t c_rechunk_sum(void) {
  static const int64_t nb[2] = {2, 2}, sz[4] = {3, 3, 3, 3};
  ca_chunks_t ch = {2, nb, sz};
  return ca_array_rechunk(&R, A, &ch);
}
static ca_status_t c_rechunk_rank(void) {
  static const int64_t nb[1] = {2}, sz[2] = {2, 2};
  ca_chunks_t ch = {1, nb, sz};
  return ca_array_rechunk(&R, A, &ch);
}
static ca_status_t c_rechunk_str_axis(void) { return ca_array_rechunk_spec(&R, ctx, A, "{5: 2}"); }
static ca_status_t c_rechunk_str_overflow(void) {
  return ca_array_rechunk_spec(&R, ctx, A, "(99999999999999999999, -1)");
}
static ca_status_t c_rechunk_limit(void) {
  ca_rechunk_options_t o = CA_RECHUNK_OPTIONS_INIT;
  o.block_size_limit = -1;
  return ca_array_rechunk_ex(&R, ctx, A, NULL, "auto", &o);
}

/* linear algebra */
static ca_status_t c_matmul_shapes(void) { return ca_linalg_matmul(&R, A, A); }
static ca_status_t c_matmul_0d(void) { return ca_linalg_matmul(&R, S, A); }
static ca_status_t c_tensordot_axes(void) {
  static const int32_t ax[1] = {3}, bx[1] = {0};
  return ca_linalg_tensordot(&R, A, AT, ax, bx, 1, 0);
}
static ca_status_t c_inv_square(void) { return ca_linalg_inv(&R, A); }
static ca_status_t c_solve_rank(void) { return ca_linalg_solve(&R, S, V); }
static ca_status_t c_solve_triangular_square(void) { return ca_linalg_solve_triangular(&R, A, V, 1); }
static ca_status_t c_norm_ord(void) { return ca_linalg_norm(&R, A, "fro3", NULL, 0, false); }
static ca_status_t c_norm_axis(void) {
  static const int32_t axes[1] = {6};
  return ca_linalg_norm(&R, A, NULL, axes, 1, false);
}

/* FFTs */
static ca_status_t c_fft_chunks(void) {
  static const int32_t ax[1] = {-1};
  ca_fft_options_t o = CA_FFT_OPTIONS_INIT;
  o.naxes = 1, o.axes = ax;
  return ca_fft_transform(&R, A, CA_FFT_FFT, &o);
}
static ca_status_t c_fft_axis(void) {
  static const int32_t ax[1] = {5};
  ca_fft_options_t o = CA_FFT_OPTIONS_INIT;
  o.naxes = 1, o.axes = ax;
  return ca_fft_transform(&R, A, CA_FFT_RFFT, &o);
}
static ca_status_t c_fft_kind(void) { return ca_fft_transform(&R, A, (ca_fft_kind_t)77, NULL); }
static ca_status_t c_fft_norm(void) {
  ca_fft_options_t o = CA_FFT_OPTIONS_INIT;
  o.norm = (ca_fft_norm_t)9;
  return ca_fft_transform(&R, A, CA_FFT_FFT, &o);
}
static ca_status_t c_fft_naxes(void) {
  ca_fft_options_t o = CA_FFT_OPTIONS_INIT;
  o.naxes = -5;
  return ca_fft_transform(&R, A, CA_FFT_FFT, &o);
}
static ca_status_t c_fft_length(void) {
  static const int64_t s[1] = {0}, shape[1] = {4}, nb[1] = {1};
  ca_chunks_t c = {1, nb, shape};
  ca_array_t *one = NULL;  /* one block: the length is checked after dask's chunk rule */
  ca_status_t st = ca_array_ones(&one, 1, shape, &c, CA_FLOAT64);
  if (st != CA_OK) return st;
  ca_fft_options_t o = CA_FFT_OPTIONS_INIT;
  o.ns = 1, o.s = s;
  return ca_fft_transform(&R, one, CA_FFT_FFT, &o);
}
static ca_status_t c_fftfreq_n(void) {
  static const int64_t nb[1] = {1}, sz[1] = {4};
  ca_chunks_t c = {1, nb, sz};
  return ca_fft_fftfreq(&R, -4, 1.0, &c);
}
static ca_status_t c_fftshift_axis(void) {
  static const int32_t ax[1] = {7};
  return ca_fft_fftshift(&R, A, ax, 1);
}

/* overlap */
static ca_status_t c_overlap_negative(void) {
  static const int64_t depth[2] = {1, -1};
  return ca_array_overlap(&R, A, depth, NULL, NULL);
}
static ca_status_t c_overlap_too_deep(void) {
  static const int64_t depth[2] = {1, 7};
  return ca_array_overlap(&R, A, depth, NULL, NULL);
}

/* store / io */
static ca_status_t c_to_npy_not_a_dir(void) { return ca_array_to_npy(ctx, A, "/dev/null/x.npy", NULL); }
static ca_status_t c_from_npy_missing(void) {
  char path[400];
  snprintf(path, sizeof path, "%s/missing.npy", tmpdir);
  return ca_array_from_npy(&R, path, NULL);
}
static ca_status_t c_from_zarr_missing(void) {
  char path[400];
  snprintf(path, sizeof path, "%s/missing.zarr", tmpdir);
  return ca_array_from_zarr(&R, path, NULL);
}
static ca_status_t c_to_zarr_compressor(void) {
  char path[400];
  ca_zarr_options_t o = CA_ZARR_OPTIONS_INIT;
  o.compressor = "lzma9";
  snprintf(path, sizeof path, "%s/c.zarr", tmpdir);
  return ca_array_to_zarr(ctx, A, path, &o, NULL);
}
static ca_status_t c_to_zarr_chunks(void) {
  char path[400];
  static const int64_t chunks[2] = {2, 0};
  ca_zarr_options_t o = CA_ZARR_OPTIONS_INIT;
  o.chunks = chunks;
  snprintf(path, sizeof path, "%s/d.zarr", tmpdir);
  return ca_array_to_zarr(ctx, A, path, &o, NULL);
}
static ca_status_t c_to_zarr_level(void) {
  char path[400];
  ca_zarr_options_t o = CA_ZARR_OPTIONS_INIT;
  o.compressor = "zlib";
  o.level = 42;
  snprintf(path, sizeof path, "%s/e.zarr", tmpdir);
  return ca_array_to_zarr(ctx, A, path, &o, NULL);
}
static ca_status_t c_check_name_dotdot(void) { return ca_io_check_name("..", "array name"); }
static ca_status_t c_check_name_slash(void) { return ca_io_check_name("a/b", "array name"); }
static ca_status_t c_compute_into_nbytes(void) {
  static double buf[24];
  return ca_array_compute_into(ctx, A, buf, 7, NULL);
}

/* graphs */
static ca_status_t c_graph_blockwise_numblocks(void) {
  ca_graph_t *g = NULL;
  static const int64_t nb[2] = {(int64_t)1 << 62, 4};
  ca_blockwise_options_t o = CA_BLOCKWISE_OPTIONS_INIT;
  ca_status_t st = ca_graph_new(&g);
  if (st) return st;
  o.numblocks = nb;
  st = ca_graph_add_blockwise(g, "big", "ij", "ones", NULL, 0, &o);
  ca_graph_free(g);
  return st;
}
static ca_status_t c_graph_blockwise_repeated_index(void) {
  ca_graph_t *g = NULL;
  static const int64_t nb[2] = {2, 2};
  ca_blockwise_options_t o = CA_BLOCKWISE_OPTIONS_INIT;
  ca_status_t st = ca_graph_new(&g);
  if (st) return st;
  o.numblocks = nb;
  st = ca_graph_add_blockwise(g, "rep", "ii", "ones", NULL, 0, &o);
  ca_graph_free(g);
  return st;
}
static ca_status_t c_graph_task_nindex(void) {
  ca_graph_t *g = NULL;
  static const int64_t idx[1] = {0};
  ca_key_t k;
  ca_status_t st = ca_graph_new(&g);
  if (st) return st;
  k.name = "t";
  k.index = idx;
  k.nindex = -3;
  st = ca_graph_add_task(g, &k, "ones", NULL, 0);
  ca_graph_free(g);
  return st;
}
static ca_status_t c_graph_partial_reduce_split(void) {
  ca_graph_t *g = NULL;
  static const int64_t split[1] = {0};
  ca_status_t st = ca_array_graph(&g, V);
  if (st) return st;
  st = ca_graph_add_partial_reduce(g, "p", ca_array_name(V), split, 1, "sum", NULL, 0);
  ca_graph_free(g);
  return st;
}

/* context */
static ca_status_t c_config_memory_limit(void) { return ca_context_set_config(ctx, "memory-limit", "1e300"); }
static ca_status_t c_config_threads(void) { return ca_context_set_config(ctx, "num-threads", "-5"); }
static ca_status_t c_config_key(void) { return ca_context_set_config(ctx, "no.such.key", "1"); }
static ca_status_t c_config_max_tasks(void) { return ca_context_set_config(ctx, "graph.max-tasks", "12abc"); }
static ca_status_t c_config_chunk_size(void) { return ca_context_set_config(ctx, "array.chunk-size", "-64MiB"); }
static ca_status_t c_context_struct_size(void) {
  ca_context_t *c = NULL;
  ca_context_options_t o = CA_CONTEXT_OPTIONS_INIT;
  ca_status_t st;
  o.struct_size = 3;
  st = ca_context_new(&c, &o);
  ca_context_free(c);
  return st;
}
static ca_status_t c_context_threads(void) {
  ca_context_t *c = NULL;
  ca_context_options_t o = CA_CONTEXT_OPTIONS_INIT;
  ca_status_t st;
  o.num_threads = -9;
  st = ca_context_new(&c, &o);
  ca_context_free(c);
  return st;
}
static ca_status_t c_dtype_name(void) {
  ca_dtype_t d;
  return ca_dtype_from_name(&d, "float65");
}
static ca_status_t c_dtype_promote(void) {
  ca_dtype_t d;
  return ca_dtype_promote(&d, CA_FLOAT64, 4242);
}

/* ---- the table ---------------------------------------------------------------------------------- */

typedef struct bad_case {
  const char *name;
  ca_status_t (*call)(void);
  ca_status_t status;  /* the status it must return */
  const char *word1;   /* must appear in the message (the offending value) */
  const char *word2;   /* and this too, unless NULL */
} bad_case_t;

#define CASE(fn, st, w1, w2) {#fn, fn, st, w1, w2}

static const bad_case_t cases[] = {
    /* creation */
    CASE(c_ones_overflow, CA_EINVAL, "1099511627776", NULL),
    CASE(c_zeros_negative_extent, CA_EINVAL, "-3", NULL),
    CASE(c_ones_bad_dtype, CA_ETYPE, "999", NULL),
    CASE(c_ones_chunks_sum, CA_EINVAL, "6", "10"),
    CASE(c_ones_chunks_rank, CA_EINVAL, "2", "1"),
    CASE(c_ones_ndim_range, CA_EINVAL, "70", NULL),
    CASE(c_diag_rank, CA_EINVAL, "0", NULL),
    CASE(c_arange_step0, CA_EINVAL, "step must not be zero", NULL),
    CASE(c_linspace_negative, CA_EINVAL, "-7", NULL),
    CASE(c_eye_negative, CA_EINVAL, "-2", NULL),
    CASE(c_random_distribution, CA_EINVAL, "99", NULL),
    CASE(c_random_integers_float, CA_ETYPE, "float64", NULL),
    CASE(c_from_buffer_flags, CA_EINVAL, "flags", NULL),
    CASE(c_from_buffer_ndim, CA_EINVAL, "-4", NULL),
    CASE(c_block_new_ndim, CA_EINVAL, "80", NULL),
    CASE(c_block_new_overflow, CA_ENOMEM, "too large", NULL),
    /* messages name the function called */
    CASE(c_name_zeros_ndim, CA_EINVAL, "ca_array_zeros:", "70"),
    CASE(c_name_zeros_chunks, CA_EINVAL, "ca_array_zeros: ", "sum to 6, shape is 10"),
    CASE(c_name_ones_ndim, CA_EINVAL, "ca_array_ones:", "70"),
    CASE(c_name_full_ndim, CA_EINVAL, "ca_array_full:", "70"),
    CASE(c_name_rechunk_spec_null_array, CA_EINVAL, "ca_array_rechunk_spec: a is NULL", NULL),
    CASE(c_name_rechunk_ex_both, CA_EINVAL, "ca_array_rechunk_ex:", "exactly one"),
    CASE(c_name_compute_many_null_entry, CA_EINVAL, "ca_array_compute_many: arrays[1] is NULL", NULL),
    CASE(c_name_compute_struct_size, CA_EINVAL, "ca_array_compute: compute options struct_size 1", NULL),
    CASE(c_name_store_many_null_entry, CA_EINVAL, "ca_array_store_many: array 1 is NULL", NULL),
    CASE(c_name_store_many_null_list, CA_EINVAL, "ca_array_store_many: arrays is NULL", NULL),
    CASE(c_name_register_ffi_null_signature, CA_EINVAL, "ca_context_register_ffi: signature is NULL", NULL),
    CASE(c_name_add_blockwise_struct_size, CA_EINVAL, "ca_graph_add_blockwise: opts->struct_size 1", NULL),
    /* chunk specifications */
    CASE(c_normalize_str_overflow, CA_EINVAL, "99999999999999999999", NULL),
    CASE(c_normalize_str_rank, CA_EINVAL, "3", "2"),
    CASE(c_normalize_size, CA_EINVAL, "-7", "axis 1"),
    CASE(c_normalize_explicit_sum, CA_EINVAL, "sum to 3", "4"),
    CASE(c_normalize_too_many_blocks, CA_EINVAL, "2147483648", NULL),
    CASE(c_array_new_blocks, CA_EINVAL, "4611686018427387904", NULL),
    /* shape manipulation */
    CASE(c_reshape_size, CA_EINVAL, "(5, 5)", "24"),
    CASE(c_reshape_overflow, CA_EINVAL, "4611686018427387904", NULL),
    CASE(c_reshape_negative, CA_EINVAL, "-2", NULL),
    CASE(c_transpose_repeated, CA_EINVAL, "1", "repeat"),
    CASE(c_transpose_range, CA_EINVAL, "5", NULL),
    CASE(c_moveaxis_range, CA_EINVAL, "7", NULL),
    CASE(c_swapaxes_range, CA_EINVAL, "-3", NULL),
    CASE(c_squeeze_not_one, CA_EINVAL, "axis 1", "6"),
    CASE(c_expand_dims_range, CA_EINVAL, "9", NULL),
    CASE(c_broadcast_to_incompatible, CA_EINVAL, "7", "6"),
    CASE(c_concatenate_rank, CA_EINVAL, "1", "2"),
    CASE(c_concatenate_axis, CA_EINVAL, "3", NULL),
    CASE(c_concatenate_shape, CA_EINVAL, "4", "6"),
    CASE(c_stack_shape, CA_EINVAL, "4", "6"),
    CASE(c_stack_axis, CA_EINVAL, "4", NULL),
    CASE(c_repeat_negative, CA_EINVAL, "-1", NULL),
    CASE(c_repeat_overflow, CA_EINVAL, "4611686018427387904", NULL),
    CASE(c_tile_negative, CA_EINVAL, "-2", NULL),
    CASE(c_pad_overflow, CA_EINVAL, "4611686018427387904", NULL),
    CASE(c_pad_negative, CA_EINVAL, "-1", NULL),
    CASE(c_pad_mode, CA_EINVAL, "9", NULL),
    CASE(c_flip_axis, CA_EINVAL, "4", NULL),
    /* indexing */
    CASE(c_getitem_range, CA_EINVAL, "10", "4"),
    CASE(c_getitem_too_many, CA_EINVAL, "3", "2"),
    CASE(c_getitem_step0, CA_EINVAL, "step cannot be zero", NULL),
    CASE(c_take_range, CA_EINVAL, "99", NULL),
    CASE(c_take_axis, CA_EINVAL, "5", NULL),
    CASE(c_vindex_nidx, CA_EINVAL, "3", "2"),
    CASE(c_vindex_range, CA_EINVAL, "100", NULL),
    /* elementwise */
    CASE(c_binary_op, CA_EINVAL, "999", NULL),
    CASE(c_unary_op, CA_EINVAL, "9999", NULL),
    CASE(c_binary_broadcast, CA_EINVAL, "5", "6"),
    CASE(c_astype_dtype, CA_ETYPE, "1234", NULL),
    CASE(c_bitand_float, CA_ETYPE, "float64", NULL),
    CASE(c_blockwise_index_rank, CA_EINVAL, "ijk", "2"),
    CASE(c_blockwise_dtype, CA_ETYPE, "5555", NULL),
    /* reductions and scans */
    CASE(c_reduce_axis, CA_EINVAL, "2", NULL),
    CASE(c_reduce_repeated, CA_EINVAL, "axis 0 is given twice", "-2"),
    CASE(c_reduce_op, CA_EINVAL, "999", NULL),
    CASE(c_reduce_dtype, CA_ETYPE, "777", NULL),
    CASE(c_reduce_split_every, CA_EINVAL, "-5", NULL),
    CASE(c_argmax_two_axes, CA_EINVAL, "2", NULL),
    CASE(c_scan_axis, CA_EINVAL, "-3", NULL),
    CASE(c_scan_op, CA_EINVAL, "77", NULL),
    /* rechunk */
    CASE(c_rechunk_sum, CA_EINVAL, "6", "4"),
    CASE(c_rechunk_rank, CA_EINVAL, "1", "2"),
    CASE(c_rechunk_str_axis, CA_EINVAL, "axis 5", NULL),
    CASE(c_rechunk_str_overflow, CA_EINVAL, "99999999999999999999", NULL),
    CASE(c_rechunk_limit, CA_EINVAL, "-1", NULL),
    /* linear algebra */
    CASE(c_matmul_shapes, CA_EINVAL, "6", "4"),
    CASE(c_matmul_0d, CA_EINVAL, "0", NULL),
    CASE(c_tensordot_axes, CA_EINVAL, "3", NULL),
    CASE(c_fft_chunks, CA_EINVAL, "axis -1", "(3, 3)"),
    CASE(c_fft_axis, CA_EINVAL, "5", NULL),
    CASE(c_fft_kind, CA_EINVAL, "77", NULL),
    CASE(c_fft_norm, CA_EINVAL, "9", NULL),
    CASE(c_fft_naxes, CA_EINVAL, "-5", NULL),
    CASE(c_fft_length, CA_EINVAL, "Invalid number of FFT data points (0)", NULL),
    CASE(c_fftfreq_n, CA_EINVAL, "-4", NULL),
    CASE(c_fftshift_axis, CA_EINVAL, "7", NULL),
    CASE(c_inv_square, CA_EINVAL, "4", "6"),
    CASE(c_solve_rank, CA_EINVAL, "2-d", "shape ()"),
    CASE(c_solve_triangular_square, CA_EINVAL, "solve_triangular", "square"),
    CASE(c_norm_ord, CA_EINVAL, "fro3", NULL),
    CASE(c_norm_axis, CA_EINVAL, "6", NULL),
    /* overlap */
    CASE(c_overlap_negative, CA_EINVAL, "-1", NULL),
    CASE(c_overlap_too_deep, CA_EINVAL, "7", "6"),
    /* store / io */
    CASE(c_to_npy_not_a_dir, CA_EEXISTS, "'/dev/null' exists and is not a directory", NULL),
    CASE(c_from_npy_missing, CA_ENOTFOUND, "missing.npy", NULL),
    CASE(c_from_zarr_missing, CA_ENOTFOUND, "missing.zarr", NULL),
    CASE(c_to_zarr_compressor, CA_EUNSUPPORTED, "lzma9", NULL),
    CASE(c_to_zarr_chunks, CA_EINVAL, "0", NULL),
    CASE(c_to_zarr_level, CA_EINVAL, "42", NULL),
    CASE(c_check_name_dotdot, CA_EINVAL, "'..'", NULL),
    CASE(c_check_name_slash, CA_EINVAL, "'a/b'", NULL),
    CASE(c_compute_into_nbytes, CA_EINVAL, "7", "192"),
    /* graphs */
    CASE(c_graph_blockwise_numblocks, CA_EINVAL, "4611686018427387904", NULL),
    CASE(c_graph_blockwise_repeated_index, CA_EINVAL, "ii", NULL),
    CASE(c_graph_task_nindex, CA_EINVAL, "-3", NULL),
    CASE(c_graph_partial_reduce_split, CA_EINVAL, "0", NULL),
    /* context and dtypes */
    CASE(c_config_memory_limit, CA_EINVAL, "1e", NULL),
    CASE(c_config_threads, CA_EINVAL, "-5", NULL),
    CASE(c_config_key, CA_ENOTFOUND, "no.such.key", NULL),
    CASE(c_config_max_tasks, CA_EINVAL, "12abc", NULL),
    CASE(c_config_chunk_size, CA_EINVAL, "-64MiB", NULL),
    CASE(c_context_struct_size, CA_EINVAL, "struct_size", "3"),
    CASE(c_context_threads, CA_EINVAL, "-9", NULL),
    CASE(c_dtype_name, CA_ETYPE, "float65", NULL),
    CASE(c_dtype_promote, CA_ETYPE, "4242", NULL),
};

/* ---- the runner --------------------------------------------------------------------------------- */

typedef struct outcome {
  ca_status_t status;
  int out_was_null; /* R stayed NULL (every failing call leaves *out NULL) */
  char message[1024];
} outcome_t;

/* Runs one case in a child; returns 0 and fills *res, or 1 with why in `why` (crash, hang). */
static int run_case(const bad_case_t *c, outcome_t *res, char *why, size_t nwhy) {
  int fds[2], wstatus = 0;
  ssize_t got = 0;
  memset(res, 0, sizeof *res);
  if (pipe(fds) != 0) {
    snprintf(why, nwhy, "pipe failed");
    return 1;
  }
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    snprintf(why, nwhy, "fork failed");
    return 1;
  }
  if (pid == 0) {
    outcome_t o;
    close(fds[0]);
    alarm(60);
    memset(&o, 0, sizeof o);
    R = NULL;
    o.status = c->call();
    o.out_was_null = R == NULL;
    snprintf(o.message, sizeof o.message, "%s", ca_last_error_message());
    if (write(fds[1], &o, sizeof o) != (ssize_t)sizeof o) _exit(4);
    _exit(0);
  }
  close(fds[1]);
  while (got < (ssize_t)sizeof *res) {
    ssize_t n = read(fds[0], (char *)res + got, sizeof *res - (size_t)got);
    if (n <= 0) break;
    got += n;
  }
  close(fds[0]);
  waitpid(pid, &wstatus, 0);
  if (WIFSIGNALED(wstatus)) {
    snprintf(why, nwhy, "killed by signal %d%s", WTERMSIG(wstatus), WTERMSIG(wstatus) == SIGALRM ? " (hang)" : "");
    return 1;
  }
  if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0 || got != (ssize_t)sizeof *res) {
    snprintf(why, nwhy, "child exited with status %d", WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1);
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  size_t i, n = sizeof cases / sizeof cases[0];
  int passed = 0, failed = 0;
  const char *only = argc > 1 ? argv[1] : NULL;
  fixtures_make();
  for (i = 0; i < n; i++) {
    const bad_case_t *c = &cases[i];
    outcome_t o;
    char why[256];
    if (only && strcmp(only, c->name) != 0) continue;
    if (run_case(c, &o, why, sizeof why)) {
      printf("FAIL %s: %s\n", c->name, why);
      failed++;
      continue;
    }
    if (o.status != c->status || !o.out_was_null || !strstr(o.message, c->word1) ||
        (c->word2 && !strstr(o.message, c->word2))) {
      printf("FAIL %s: got %s (%d)%s, message \"%s\"; want %s naming \"%s\"%s%s%s\n", c->name,
             ca_status_str(o.status), (int)o.status, o.out_was_null ? "" : " with *out set", o.message,
             ca_status_str(c->status), c->word1, c->word2 ? " and \"" : "", c->word2 ? c->word2 : "",
             c->word2 ? "\"" : "");
      failed++;
      continue;
    }
    printf("ok   %s: %s \"%s\"\n", c->name, ca_status_str(o.status), o.message);
    passed++;
  }
  printf("%d passed, %d failed\n", passed, failed);
  ca_array_free(A);
  ca_array_free(AT);
  ca_array_free(V);
  ca_array_free(S);
  ca_context_free(ctx);
  return failed ? 1 : 0;
}
