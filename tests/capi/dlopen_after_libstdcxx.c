/*
 * Regression test: a host that loaded libstdc++ privately before chunkarray (Python after `import
 * scipy`, Julia) must be able to dlopen libchunkarray.so with RTLD_LOCAL and use it. When
 * libmimalloc came before libstdc++ among the library's dependencies, our operator delete was
 * mimalloc's while libstdc++'s own code allocated with glibc: freeing a message string built by
 * libstdc++ crashed in mi_free. Links nothing of chunkarray; resolves what it needs with dlsym.
 *
 * Usage: dlopen_after_libstdcxx PATH/TO/libchunkarray.so.1
 */
#define _POSIX_C_SOURCE 200809L
#include <chunkarray/chunkarray.h>

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#define SYM(var, name)                                                                                 \
  do {                                                                                                 \
    *(void **)(&var) = dlsym(lib, name);                                                               \
    if (!var) {                                                                                        \
      fprintf(stderr, "missing symbol %s: %s\n", name, dlerror());                                     \
      return 1;                                                                                        \
    }                                                                                                  \
  } while (0)

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: dlopen_after_libstdcxx LIB\n");
    return 2;
  }
  void *cxx = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);
  if (!cxx) {
    fprintf(stderr, "cannot load libstdc++: %s\n", dlerror());
    return 1;
  }
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "cannot load %s: %s\n", argv[1], dlerror());
    return 1;
  }
  ca_status_t (*ones)(ca_array_t **, int32_t, const int64_t *, const ca_chunks_t *, ca_dtype_t);
  ca_status_t (*reduce)(ca_array_t **, int32_t, const ca_array_t *, const int32_t *, int32_t, bool,
                        const ca_reduce_options_t *);
  ca_status_t (*compute)(ca_block_t **, ca_context_t *, const ca_array_t *, const ca_compute_options_t *);
  ca_status_t (*chunks_str)(ca_chunkset_t **, const ca_context_t *, const char *, int32_t, const int64_t *,
                            ca_dtype_t);
  ca_chunks_t (*view)(const ca_chunkset_t *);
  void (*cs_free)(ca_chunkset_t *);
  const void *(*data)(const ca_block_t *);
  void (*block_free)(ca_block_t *);
  void (*array_free)(const ca_array_t *);
  const char *(*last_error)(void);
  ca_status_t (*ctx_new)(ca_context_t **, const ca_context_options_t *);
  void (*ctx_free)(ca_context_t *);
  SYM(ones, "ca_array_ones");
  SYM(reduce, "ca_array_reduce");
  SYM(compute, "ca_array_compute");
  SYM(chunks_str, "ca_normalize_chunks_spec");
  SYM(view, "ca_chunkset_view");
  SYM(cs_free, "ca_chunkset_free");
  SYM(data, "ca_block_data");
  SYM(block_free, "ca_block_free");
  SYM(array_free, "ca_array_free");
  SYM(last_error, "ca_last_error_message");
  SYM(ctx_new, "ca_context_new");
  SYM(ctx_free, "ca_context_free");
  ca_context_t *ctx = NULL;
  if (ctx_new(&ctx, NULL) != CA_OK) {
    fprintf(stderr, "context: %s\n", last_error());
    return 1;
  }

  int failures = 0, round;
  for (round = 0; round < 50; ++round) {
    const int64_t shape[2] = {300, 7};
    ca_chunkset_t *cs = NULL;
    ca_array_t *x = NULL, *s = NULL, *bad = NULL;
    ca_block_t *r = NULL;
    const int32_t axis = 5;
    if (chunks_str(&cs, NULL, "(64, -1)", 2, shape, CA_FLOAT64) != CA_OK) {
      fprintf(stderr, "normalize: %s\n", last_error());
      return 1;
    }
    ca_chunks_t ch = view(cs);
    if (ones(&x, 2, shape, &ch, CA_FLOAT64) != CA_OK || reduce(&s, CA_RED_SUM, x, NULL, 0, false, NULL) != CA_OK ||
        compute(&r, ctx, s, NULL) != CA_OK) {
      fprintf(stderr, "pipeline: %s\n", last_error());
      return 1;
    }
    if (*(const double *)data(r) != 2100.0) ++failures;
    /* Error paths build their messages with std::ostringstream inside libstdc++. */
    if (reduce(&bad, CA_RED_SUM, x, &axis, 1, false, NULL) != CA_EINVAL || bad != NULL ||
        strstr(last_error(), "axis") == NULL) {
      fprintf(stderr, "expected an axis error, got: %s\n", last_error());
      ++failures;
    }
    ca_chunkset_t *bad_cs = NULL;
    if (chunks_str(&bad_cs, NULL, "(3, 4", 2, shape, CA_FLOAT64) == CA_OK || bad_cs != NULL) ++failures;
    block_free(r);
    array_free(s);
    array_free(x);
    if (cs) cs_free(cs);
  }
  ctx_free(ctx);
  dlclose(lib);
  dlclose(cxx);
  if (failures) {
    fprintf(stderr, "%d failures\n", failures);
    return 1;
  }
  printf("ok\n");
  return 0;
}
