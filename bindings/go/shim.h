/* A small C shim: loads libchunkarray with dlopen and calls it through function pointers whose types
 * come from the public headers (so a signature change is a compile error here). Go calls the cag_*
 * wrappers; it never links libchunkarray. */
#ifndef CHUNKARRAY_GO_SHIM_H
#define CHUNKARRAY_GO_SHIM_H

#include <stdint.h>
#include <stdlib.h>

#include "chunkarray/chunkarray.h"

/* Load the library at @p path (NULL: $CHUNKARRAY_LIB, else libchunkarray.so.1). Returns 0, or -1 with
 * a static message in *err. Thread safe, idempotent. */
int cag_load(const char *path, const char **err);
/* 1 if the optional function @p name (ca_save, ...) was found. */
int cag_has(const char *name);

/* Argument accessors (ca_arg_t's union is opaque to cgo). */
int32_t cag_arg_kind(const ca_arg_t *args, size_t i);
int64_t cag_arg_i64(const ca_arg_t *args, size_t i);
double cag_arg_f64(const ca_arg_t *args, size_t i);
const ca_block_t *cag_arg_block(const ca_arg_t *args, size_t i);
const char *cag_arg_bytes(const ca_arg_t *args, size_t i, size_t *len);
void cag_set_arg_i64(ca_arg_t *a, int64_t v);
void cag_set_arg_f64(ca_arg_t *a, double v);
ca_scalar_t cag_scalar_f64(double v);
ca_scalar_t cag_scalar_i64(int64_t v);

/* Register a Go kernel: @p handle is a runtime/cgo.Handle; it is released (goKernelFree) exactly once. */
ca_status_t cag_register_go_kernel(ca_context_t *ctx, const char *name, uintptr_t handle);

#define CAG_DECL(ret, name, params, args) ret cag_##name params;
#define CAG_FUNCS(X) \
  X(ca_array_t *, ca_array_retain, (const ca_array_t *a), (a)) \
  X(int32_t, ca_version_number, (void), ()) \
  X(const char *, ca_version_string, (void), ()) \
  X(int32_t, ca_abi_version, (void), ()) \
  X(const char *, ca_last_error_message, (void), ()) \
  X(ca_status_t, ca_block_new, (ca_block_t **o, ca_dtype_t d, int32_t n, const int64_t *s), (o, d, n, s)) \
  X(ca_block_t *, ca_block_retain, (const ca_block_t *b), (b)) \
  X(ca_dtype_t, ca_block_dtype, (const ca_block_t *b), (b)) \
  X(int32_t, ca_block_ndim, (const ca_block_t *b), (b)) \
  X(const int64_t *, ca_block_shape, (const ca_block_t *b), (b)) \
  X(int64_t, ca_block_size, (const ca_block_t *b), (b)) \
  X(size_t, ca_block_nbytes, (const ca_block_t *b), (b)) \
  X(void *, ca_block_data, (const ca_block_t *b), (b)) \
  X(const int64_t *, ca_kernel_key_index, (const ca_kernel_ctx_t *k, int32_t *n), (k, n)) \
  X(ca_status_t, ca_context_new, (ca_context_t **o, const ca_context_options_t *op), (o, op)) \
  X(int32_t, ca_context_num_threads, (const ca_context_t *c), (c)) \
  X(ca_status_t, ca_context_set_config, (ca_context_t *c, const char *k, const char *v), (c, k, v)) \
  X(int64_t, ca_graph_num_tasks, (const ca_graph_t *g), (g)) \
  X(int64_t, ca_graph_num_layers, (const ca_graph_t *g), (g)) \
  X(ca_status_t, ca_graph_to_dot, (char **o, const ca_graph_t *g, const ca_key_t *k, size_t n), (o, g, k, n)) \
  X(int32_t, ca_chunkset_ndim, (const ca_chunkset_t *c), (c)) \
  X(const int64_t *, ca_chunkset_sizes, (const ca_chunkset_t *c, int32_t d, int64_t *n), (c, d, n)) \
  X(ca_status_t, ca_normalize_chunks, (ca_chunkset_t **o, const ca_context_t *c, const ca_dimchunks_t *s, \
      int32_t nd, const int64_t *sh, ca_dtype_t d, int64_t l), (o, c, s, nd, sh, d, l)) \
  X(int32_t, ca_array_ndim, (const ca_array_t *a), (a)) \
  X(const int64_t *, ca_array_shape, (const ca_array_t *a), (a)) \
  X(int64_t, ca_array_size, (const ca_array_t *a), (a)) \
  X(ca_dtype_t, ca_array_dtype, (const ca_array_t *a), (a)) \
  X(const char *, ca_array_name, (const ca_array_t *a), (a)) \
  X(const int64_t *, ca_array_chunks, (const ca_array_t *a, int32_t d, int64_t *n), (a, d, n)) \
  X(ca_status_t, ca_array_graph, (ca_graph_t **o, const ca_array_t *a), (o, a)) \
  X(ca_status_t, ca_array_from_buffer, (ca_array_t **o, const void *data, ca_dtype_t d, int32_t nd, \
      const int64_t *sh, const ca_chunks_t *c, const ca_buffer_options_t *op), (o, data, d, nd, sh, c, op)) \
  X(ca_status_t, ca_array_full, (ca_array_t **o, int32_t nd, const int64_t *sh, const ca_chunks_t *c, \
      ca_dtype_t d, double re, double im), (o, nd, sh, c, d, re, im)) \
  X(ca_status_t, ca_array_zeros, (ca_array_t **o, int32_t nd, const int64_t *sh, const ca_chunks_t *c, \
      ca_dtype_t d), (o, nd, sh, c, d)) \
  X(ca_status_t, ca_array_ones, (ca_array_t **o, int32_t nd, const int64_t *sh, const ca_chunks_t *c, \
      ca_dtype_t d), (o, nd, sh, c, d)) \
  X(ca_status_t, ca_array_arange, (ca_array_t **o, double a, double b, double s, const ca_chunks_t *c, \
      ca_dtype_t d), (o, a, b, s, c, d)) \
  X(ca_status_t, ca_array_random, (ca_array_t **o, ca_random_t dist, int32_t nd, const int64_t *sh, \
      const ca_chunks_t *c, ca_dtype_t d, const ca_random_options_t *op), (o, dist, nd, sh, c, d, op)) \
  X(ca_status_t, ca_array_unary, (ca_array_t **o, ca_op_t op, const ca_array_t *a), (o, op, a)) \
  X(ca_status_t, ca_array_binary, (ca_array_t **o, ca_op_t op, const ca_array_t *a, const ca_array_t *b), \
      (o, op, a, b)) \
  X(ca_status_t, ca_array_binary_scalar, (ca_array_t **o, ca_op_t op, const ca_array_t *a, ca_scalar_t s, \
      int f), (o, op, a, s, f)) \
  X(ca_status_t, ca_array_astype, (ca_array_t **o, const ca_array_t *a, ca_dtype_t d), (o, a, d)) \
  X(ca_status_t, ca_array_reduce, (ca_array_t **o, ca_reduction_t op, const ca_array_t *a, const int32_t *ax, \
      int32_t n, int k, const ca_reduce_options_t *op2), (o, op, a, ax, n, k, op2)) \
  X(ca_status_t, ca_array_scan, (ca_array_t **o, ca_scan_t op, const ca_array_t *a, int32_t ax, \
      const ca_scan_options_t *op2), (o, op, a, ax, op2)) \
  X(ca_status_t, ca_array_map_blocks, (ca_array_t **o, const char *k, const ca_array_t *const *as, size_t n, \
      const ca_arg_t *ex, size_t nex, const ca_map_blocks_options_t *op), (o, k, as, n, ex, nex, op)) \
  X(ca_status_t, ca_array_rechunk, (ca_array_t **o, const ca_array_t *a, const ca_chunks_t *c), (o, a, c)) \
  X(ca_status_t, ca_array_compute, (ca_block_t **o, ca_context_t *c, const ca_array_t *a, \
      const ca_compute_options_t *op), (o, c, a, op)) \
  X(ca_status_t, ca_array_compute_many, (ca_block_t **o, ca_context_t *c, const ca_array_t *const *as, \
      size_t n, const ca_compute_options_t *op), (o, c, as, n, op)) \
  X(ca_status_t, ca_array_persist, (ca_array_t **o, ca_context_t *c, const ca_array_t *a, \
      const ca_compute_options_t *op), (o, c, a, op)) \
  X(ca_status_t, ca_array_to_svg, (char **o, const ca_array_t *a, int32_t s), (o, a, s)) \
  X(ca_status_t, ca_array_to_npy, (ca_context_t *c, const ca_array_t *a, const char *p, \
      const ca_compute_options_t *op), (c, a, p, op)) \
  X(ca_status_t, ca_array_from_npy, (ca_array_t **o, const char *p, const ca_chunks_t *c), (o, p, c))

#define CAG_VOID_FUNCS(X) \
  X(ca_block_free, (const ca_block_t *b), (b)) \
  X(ca_kernel_set_error, (ca_kernel_ctx_t *k, const char *m), (k, m)) \
  X(ca_context_free, (ca_context_t *c), (c)) \
  X(ca_graph_free, (ca_graph_t *g), (g)) \
  X(ca_chunkset_free, (ca_chunkset_t *c), (c)) \
  X(ca_array_free, (const ca_array_t *a), (a)) \
  X(ca_array_free_many, (ca_array_t **a, size_t n), (a, n)) \
  X(ca_string_free, (char *s), (s))

/* Planned functions, not yet in every library: declared here with their planned signatures. */
#define CAG_OPTIONAL_FUNCS(X) \
  X(ca_status_t, ca_save, (void **o, size_t *n, const ca_save_options_t *op), (o, n, op)) \
  X(ca_status_t, ca_load, (ca_graph_t **g, ca_array_t ***a, size_t *n, const ca_load_options_t *op), \
      (g, a, n, op)) \
  X(ca_status_t, ca_graph_kernel_version, (int32_t *o, const ca_graph_t *g, const char *k), (o, g, k))

#define CAG_DECL_VOID(name, params, args) void cag_##name params;
CAG_FUNCS(CAG_DECL)
CAG_VOID_FUNCS(CAG_DECL_VOID)
/* Optional: return CA_EUNSUPPORTED with a message when the library lacks them. */
CAG_OPTIONAL_FUNCS(CAG_DECL)

#endif
