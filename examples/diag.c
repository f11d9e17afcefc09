/*
 * diag.c: dask's diag(v) written by hand on top of a library array, in C.
 *
 * dask builds np.diag of a chunked 1-d array v like this (dask/array/creation.py):
 *
 *   name = 'diag-' + tokenize(v)
 *   blocks = v.__dask_keys__()
 *   dsk = {}
 *   for i, m in enumerate(v.chunks[0]):
 *       for j, n in enumerate(v.chunks[0]):
 *           if i == j:
 *               dsk[(name, i, j)] = (np.diag, blocks[i])
 *           else:
 *               dsk[(name, i, j)] = (np.zeros, (m, n))
 *   graph = HighLevelGraph.from_collections(name, dsk, dependencies=[v])
 *   return Array(graph, name, (v.chunks[0], v.chunks[0]), v.dtype)
 *
 * Here v = arange(9, chunks=(2, 3, 4)) comes from the library (ca_array_arange); diag is built with
 * ca_array_graph() (v's layers), ca_graph_add_task() for the new tasks referencing v's keys, and
 * ca_array_new(). Prints the chunks and the computed matrix exactly as NumPy prints
 * np.diag(np.arange(9)).
 */
#include <chunkarray/chunkarray.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                                    \
  do {                                                                                                 \
    ca_status_t st_ = (call);                                                                          \
    if (st_ != CA_OK) {                                                                                \
      fprintf(stderr, "%s failed: %s: %s\n", #call, ca_status_str(st_), ca_last_error_message());   \
      exit(1);                                                                                         \
    }                                                                                                  \
  } while (0)

/* np.diag(v): a square block with the 1-d int64 block v on its diagonal. Runs on any worker thread. */
static ca_status_t k_diag(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *ud) {
  (void)ud;
  if (nargs != 1 || args[0].kind != CA_ARG_BLOCK || ca_block_ndim(args[0].u.block) != 1 ||
      ca_block_dtype(args[0].u.block) != CA_INT64) {
    ca_kernel_set_error(kctx, "np.diag takes one 1-d int64 block");
    return CA_EINVAL;
  }
  const ca_block_t *v = args[0].u.block;
  int64_t n = ca_block_size(v), shape[2] = {n, n};
  ca_status_t st = ca_block_new_zeroed(out, CA_INT64, 2, shape);
  if (st != CA_OK) return st;
  const int64_t *src = (const int64_t *)ca_block_data(v);
  int64_t *dst = (int64_t *)ca_block_data(*out);
  for (int64_t i = 0; i < n; ++i) dst[i * n + i] = src[i];
  return CA_OK;
}

/* np.zeros(shape, dtype=int64). */
static ca_status_t k_zeros(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx,
                           void *ud) {
  (void)ud;
  if (nargs != 1 || args[0].kind != CA_ARG_TUPLE) {
    ca_kernel_set_error(kctx, "np.zeros takes one shape tuple");
    return CA_EINVAL;
  }
  return ca_block_new_zeroed(out, CA_INT64, (int32_t)args[0].u.tuple.len, args[0].u.tuple.items);
}

/* dask's diag(v) for a 1-d v, by hand. */
static ca_array_t *diag(const ca_array_t *v) {
  char name[512];
  snprintf(name, sizeof name, "diag-%s", ca_array_name(v)); /* v's name is already a token */

  int64_t nb;
  const int64_t *c = ca_array_chunks(v, 0, &nb);
  ca_graph_t *g;
  CHECK(ca_array_graph(&g, v)); /* a new graph holding v's layers (shared) */
  for (int64_t i = 0; i < nb; ++i) {
    for (int64_t j = 0; j < nb; ++j) {
      int64_t idx[2] = {i, j}, shape[2] = {c[i], c[j]};
      ca_key_t key = {name, idx, 2};
      if (i == j) {
        ca_arg_t ref = ca_arg_key(ca_array_name(v), &idx[0], 1); /* v's block i */
        CHECK(ca_graph_add_task(g, &key, "np.diag", &ref, 1));
      } else {
        ca_arg_t shp = ca_arg_tuple(shape, 2);
        CHECK(ca_graph_add_task(g, &key, "np.zeros", &shp, 1));
      }
    }
  }
  int64_t *sizes = malloc(sizeof(int64_t) * (size_t)(2 * nb + 1));
  memcpy(sizes, c, sizeof(int64_t) * (size_t)nb);
  memcpy(sizes + nb, c, sizeof(int64_t) * (size_t)nb);
  int64_t numblocks[2] = {nb, nb};
  ca_chunks_t chunks = {2, numblocks, sizes};
  ca_array_t *out;
  CHECK(ca_array_new(&out, g, name, &chunks, CA_INT64));
  free(sizes);
  ca_graph_free(g);
  return out;
}

static void print_chunks(const ca_array_t *a) {
  printf("(");
  for (int32_t d = 0; d < ca_array_ndim(a); ++d) {
    int64_t n;
    const int64_t *c = ca_array_chunks(a, d, &n);
    printf("%s(", d ? ", " : "");
    for (int64_t i = 0; i < n; ++i) printf("%s%lld", i ? ", " : "", (long long)c[i]);
    printf(n == 1 ? ",)" : ")");
  }
  printf(")\n");
}

/* A 2-d int64 matrix as NumPy's str(): every element right-aligned to the widest one. */
static void print_matrix(const int64_t *p, int64_t rows, int64_t cols) {
  int width = 1;
  char buf[32];
  for (int64_t i = 0; i < rows * cols; ++i) {
    int w = snprintf(buf, sizeof buf, "%lld", (long long)p[i]);
    if (w > width) width = w;
  }
  printf("[");
  for (int64_t i = 0; i < rows; ++i) {
    printf("%s[", i ? " " : "");
    for (int64_t j = 0; j < cols; ++j) printf("%s%*lld", j ? " " : "", width, (long long)p[i * cols + j]);
    printf("]%s", i + 1 < rows ? "\n" : "");
  }
  printf("]\n");
}

int main(void) {
  ca_context_t *ctx;
  CHECK(ca_context_new(&ctx, NULL));
  CHECK(ca_context_register(ctx, "np.diag", k_diag, NULL));
  CHECK(ca_context_register(ctx, "np.zeros", k_zeros, NULL));

  /* v = arange(9, chunks=(2, 3, 4)) */
  int64_t vnb = 3, vsizes[3] = {2, 3, 4};
  ca_chunks_t vchunks = {1, &vnb, vsizes};
  ca_array_t *v;
  CHECK(ca_array_arange(&v, 0, 9, 1, &vchunks, CA_INT64));

  ca_array_t *d = diag(v);
  print_chunks(d);

  ca_block_t *res;
  CHECK(ca_array_compute(&res, ctx, d, NULL));
  const int64_t *shape = ca_array_shape(d);
  print_matrix((const int64_t *)ca_block_data(res), shape[0], shape[1]);

  ca_block_free(res);
  ca_array_free(d);
  ca_array_free(v);
  ca_context_free(ctx);
  return 0;
}
