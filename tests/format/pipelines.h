/* Real array pipelines over the public API (see pipelines.c). */
#ifndef CHUNKARRAY_TESTS_PIPELINES_H
#define CHUNKARRAY_TESTS_PIPELINES_H

#include <chunkarray/chunkarray.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PIPELINES_MAX 16

/* Build the pipelines' output arrays into out (PIPELINES_MAX entries); zarr_dir (may be NULL: no
 * zarr pipeline) receives a zarr array the pipeline reads. @return 0, or -1 with a message on stderr. */
int pipelines_build(ca_context_t *ctx, const char *zarr_dir, ca_array_t **out, size_t *n);

#ifdef __cplusplus
}
#endif

#endif
