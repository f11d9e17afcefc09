/*
 * eye.c: dask's documentation example of writing your own array function, in C.
 *
 * dask (docs: "Array design" / custom collections):
 *
 *   def eye(n, blocksize):
 *       chunks = ((blocksize,) * (n // blocksize),
 *                 (blocksize,) * (n // blocksize))
 *       name = 'eye' + next(tokens)
 *       dsk = {(name, i, j): (np.eye, blocksize)
 *                            if i == j else
 *                            (np.zeros, (blocksize, blocksize))
 *              for i in range(n // blocksize)
 *              for j in range(n // blocksize)}
 *       dtype = np.eye(0).dtype
 *       return dask.array.Array(dsk, name, chunks, dtype)
 *
 * Here the graph is built task by task with ca_graph_add_task() and turned into an array with
 * ca_array_new(); the two kernels stand for np.eye and np.zeros. Prints the chunks and the computed
 * matrix the way NumPy prints it, and checks it is the identity.
 *
 * Usage: eye [n] [blocksize]   (default 6 2)
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

/* np.eye(blocksize): a float64 identity block. Runs on any worker thread. */
static ca_status_t k_eye(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *ud) {
  (void)ud;
  if (nargs != 1 || args[0].kind != CA_ARG_INT64 || args[0].u.i64 < 0) {
    ca_kernel_set_error(kctx, "np.eye takes one size >= 0");
    return CA_EINVAL;
  }
  int64_t n = args[0].u.i64, shape[2] = {n, n};
  ca_status_t st = ca_block_new_zeroed(out, CA_FLOAT64, 2, shape);
  if (st != CA_OK) return st;
  double *p = (double *)ca_block_data(*out);
  for (int64_t i = 0; i < n; ++i) p[i * n + i] = 1.0;
  return CA_OK;
}

/* np.zeros(shape): a float64 block of zeros. */
static ca_status_t k_zeros(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx,
                           void *ud) {
  (void)ud;
  if (nargs != 1 || args[0].kind != CA_ARG_TUPLE) {
    ca_kernel_set_error(kctx, "np.zeros takes one shape tuple");
    return CA_EINVAL;
  }
  return ca_block_new_zeroed(out, CA_FLOAT64, (int32_t)args[0].u.tuple.len, args[0].u.tuple.items);
}

/* dask's eye(n, blocksize) with the seed's constructor. */
static ca_array_t *eye(int64_t n, int64_t blocksize) {
  int64_t nb = n / blocksize;
  char name[64];
  snprintf(name, sizeof name, "eye-%lld-%lld", (long long)n, (long long)blocksize);

  ca_graph_t *g;
  CHECK(ca_graph_new(&g));
  int64_t block_shape[2] = {blocksize, blocksize};
  for (int64_t i = 0; i < nb; ++i) {
    for (int64_t j = 0; j < nb; ++j) {
      int64_t idx[2] = {i, j};
      ca_key_t key = {name, idx, 2};
      ca_arg_t arg = i == j ? ca_arg_i64(blocksize) : ca_arg_tuple(block_shape, 2);
      CHECK(ca_graph_add_task(g, &key, i == j ? "np.eye" : "np.zeros", &arg, 1));
    }
  }

  int64_t *sizes = malloc(sizeof(int64_t) * (size_t)(2 * nb + 1));
  for (int64_t i = 0; i < 2 * nb; ++i) sizes[i] = blocksize;
  int64_t numblocks[2] = {nb, nb};
  ca_chunks_t chunks = {2, numblocks, sizes};
  ca_array_t *a;
  CHECK(ca_array_new(&a, g, name, &chunks, CA_FLOAT64));
  free(sizes);
  ca_graph_free(g); /* the array shares the layers */
  return a;
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

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? atoll(argv[1]) : 6, blocksize = argc > 2 ? atoll(argv[2]) : 2;
  if (n < 0 || blocksize <= 0) {
    fprintf(stderr, "usage: eye [n >= 0] [blocksize > 0]\n");
    return 2;
  }
  ca_context_t *ctx;
  CHECK(ca_context_new(&ctx, NULL));
  CHECK(ca_context_register(ctx, "np.eye", k_eye, NULL));
  CHECK(ca_context_register(ctx, "np.zeros", k_zeros, NULL));

  ca_array_t *a = eye(n, blocksize);
  print_chunks(a);

  ca_block_t *res;
  CHECK(ca_array_compute(&res, ctx, a, NULL));
  const int64_t *shape = ca_array_shape(a);
  const double *p = (const double *)ca_block_data(res);
  int bad = 0;
  /* NumPy prints 0.0 and 1.0 as "0." and "1.". */
  printf("[");
  for (int64_t i = 0; i < shape[0]; ++i) {
    printf("%s[", i ? " " : "");
    for (int64_t j = 0; j < shape[1]; ++j) {
      double v = p[i * shape[1] + j];
      if (v != (i == j ? 1.0 : 0.0)) bad = 1;
      printf("%s%.0f.", j ? " " : "", v);
    }
    printf("]%s", i + 1 < shape[0] ? "\n" : "");
  }
  printf("]\n");

  ca_block_free(res);
  ca_array_free(a);
  ca_context_free(ctx);
  if (bad) fprintf(stderr, "eye: the result is not the identity\n");
  return bad;
}
