/**
 * @file chunkarray/format.h
 * @brief Graph files: save a task graph, or arrays with their graph, and load them in another process.
 *
 * A graph file is a 16-byte header (magic "CHUNKARR", format version, flags) followed by one
 * Cap'n Proto message (docs/format.md has the schema). Layers are stored as they are in memory:
 * a symbolic layer stays a formula (a million-block elementwise layer is a few hundred bytes),
 * a materialized layer is its flat task arrays, a data layer (from a buffer, or persisted) carries
 * its block bytes. Kernels are stored by name and resolved in the context's registry at compute
 * time, so loading needs no context; kernels from plugins (chunkarray/plugin.h) must be registered
 * before computing.
 *
 * Kernel versions: a file records, next to each kernel name, the version (ca_kernel_options_t.version)
 * the graph was saved against, or 0 for "not recorded" (files written before versions were recorded,
 * and user kernels saved without a context). What is recorded is chosen at save time (see
 * ca_save_options_t); a loaded graph keeps its versions in memory (through copy, merge and cull) and
 * re-saving writes them again. Computing or validating a graph against a context (ca_compute(),
 * ca_graph_validate(), the array compute calls) fails with CA_EVERSION when a recorded version is not
 * the registered kernel's, e.g. "layer 'scale-3f2a' needs kernel 'scale' version 2 (recorded in the
 * graph); the registered 'scale' is version 1". An unrecorded version accepts any registered one.
 * ca_graph_kernel_version() reports what a graph records.
 *
 * Loading treats the bytes as untrusted: Cap'n Proto's traversal and nesting limits apply and
 * every count, index and reference is checked; anything wrong is CA_EFORMAT with a message saying
 * what is wrong, never a crash. A file of a newer format version is refused with CA_EVERSION.
 *
 * Thread safety: saving only reads the graph or arrays (as ca_compute() does); loading creates new
 * objects. Both may run concurrently with anything else.
 *
 * Example: save an array, load it in another process and compute it.
 * @code
 *   ca_array_save(a, "x.cagraph");
 *   ...
 *   ca_array_t *b;  ca_array_load(&b, "x.cagraph");
 *   ca_array_compute_into(ctx, b, buffer, nbytes, NULL);  ca_array_free(b);
 * @endcode
 */
#ifndef CHUNKARRAY_FORMAT_H
#define CHUNKARRAY_FORMAT_H

#include "chunkarray/array.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The newest graph file format version this library writes (a file records the oldest version that
 *  holds its layers: 1, or 2 when it has an overlap layer); it reads versions 1 up to this one. */
#define CA_FORMAT_VERSION 2

/** @return CA_FORMAT_VERSION of the library actually loaded. */
CA_API int32_t ca_format_version(void);

/**
 * Save a graph to the file @p path, atomically (a temporary file renamed over @p path).
 * Records kernel versions as ca_graph_save_opts() with NULL options: the layers' own, else the
 * builtin versions of "ca.*" kernels; other kernels unrecorded.
 * @param graph borrowed. @param path borrowed.
 * @return CA_OK; CA_EINVAL (NULL argument, empty path); CA_EUNSUPPORTED (a layer too large for one
 *         file list, 2^29 entries); CA_EIO (the message names the path and the system error).
 */
CA_API ca_status_t ca_graph_save(const ca_graph_t *graph, const char *path);

/**
 * Options of the ca_*_save_opts() calls. Start from CA_SAVE_OPTIONS_INIT; fields are only appended.
 *
 * The version recorded for each kernel a saved layer uses is
 *  - the version the layer already records, if any (a graph loaded from a file, re-saved, keeps its
 *    versions); with a @p context whose registered kernel has another version, the save fails with
 *    CA_EVERSION naming both;
 *  - else, with a @p context, the version registered there; a kernel that is not registered in it
 *    fails the save with CA_ENOTFOUND naming the kernel and the layer;
 *  - else (no context) the library's builtin version for "ca.*" kernels, and 0 (not recorded) for
 *    other kernels.
 * Data layers record no kernel. The save calls without options behave as with NULL options.
 */
typedef struct ca_save_options {
  uint32_t struct_size;         /**< sizeof(ca_save_options_t) */
  const ca_context_t *context;  /**< borrowed, may be NULL: record the versions registered there */
} ca_save_options_t;

#define CA_SAVE_OPTIONS_INIT {sizeof(ca_save_options_t), NULL}

/**
 * ca_graph_save() with options.
 * @param graph borrowed. @param path borrowed.
 * @param opts borrowed, may be NULL for the defaults (as ca_graph_save()).
 * @return CA_OK; CA_EINVAL (NULL argument, empty path, opts->struct_size too small);
 *         CA_ENOTFOUND (with a context: a kernel the graph uses is not registered there; kernel and
 *         layer named); CA_EVERSION (with a context: a layer records another version of a kernel than
 *         the context's; both named); CA_EUNSUPPORTED; CA_EIO. Nothing is written on failure.
 */
CA_API ca_status_t ca_graph_save_opts(const ca_graph_t *graph, const char *path, const ca_save_options_t *opts);

/**
 * ca_graph_save_buffer() with options.
 * @param[out] data owned, free with ca_buffer_free(); NULL on failure.
 * @param[out] size its size in bytes; 0 on failure.
 * @param opts borrowed, may be NULL for the defaults.
 * @return CA_OK; CA_EINVAL; CA_ENOTFOUND; CA_EVERSION (as ca_graph_save_opts()); CA_EUNSUPPORTED;
 *         CA_ENOMEM.
 */
CA_API ca_status_t ca_graph_save_buffer_opts(const ca_graph_t *graph, void **data, size_t *size,
                                             const ca_save_options_t *opts);

/**
 * Load a graph saved by ca_graph_save() (or ca_arrays_save(): its graph). The file is memory-mapped
 * and decoded; nothing refers to the file afterwards.
 * @param[out] out owned, free with ca_graph_free(); NULL on failure.
 * @return CA_OK; CA_EINVAL; CA_ENOTFOUND (no such file); CA_EIO; CA_EFORMAT (not a graph file,
 *         corrupt or inconsistent: the message says what); CA_EVERSION (a newer format); CA_ENOMEM.
 */
CA_API ca_status_t ca_graph_load(ca_graph_t **out, const char *path);

/**
 * Save a graph into a new buffer (the same bytes ca_graph_save() writes).
 * @param[out] data owned, free with ca_buffer_free(); NULL on failure.
 * @param[out] size its size in bytes; 0 on failure.
 * @return CA_OK; CA_EINVAL; CA_EUNSUPPORTED; CA_ENOMEM.
 */
CA_API ca_status_t ca_graph_save_buffer(const ca_graph_t *graph, void **data, size_t *size);

/**
 * Load a graph from bytes (any alignment; unaligned bytes are copied once).
 * @param[out] out owned, free with ca_graph_free(); NULL on failure.
 * @param data borrowed, only during the call.
 * @return CA_OK; CA_EINVAL (NULL); CA_EFORMAT; CA_EVERSION; CA_ENOMEM.
 */
CA_API ca_status_t ca_graph_load_buffer(ca_graph_t **out, const void *data, size_t size);

/** Free a buffer from ca_graph_save_buffer() or ca_arrays_save_buffer(). Accepts NULL. */
CA_API void ca_buffer_free(void *data);

/**
 * Save arrays in one file: the union of their graphs (shared layers stored once) and each array's
 * name, chunks and dtype. Fused elementwise arrays are saved as their `ca.fused` layer (loaded
 * arrays compute the same values; further operations on them start a new fusion).
 * @param arrays borrowed, @p n non-NULL arrays (n may be 0). @param path borrowed.
 * @return CA_OK; CA_EINVAL (NULL, empty path); CA_EEXISTS (two arrays' graphs hold different
 *         layers of the same name); CA_EUNSUPPORTED; CA_EIO.
 */
CA_API ca_status_t ca_arrays_save(const ca_array_t *const *arrays, size_t n, const char *path);

/**
 * ca_arrays_save() with options (see ca_save_options_t for the kernel versions recorded).
 * @param arrays borrowed, @p n non-NULL arrays. @param path borrowed.
 * @param opts borrowed, may be NULL for the defaults (as ca_arrays_save()).
 * @return CA_OK; CA_EINVAL (NULL, empty path, opts->struct_size too small); CA_EEXISTS;
 *         CA_ENOTFOUND (with a context: a kernel is not registered there; kernel and layer named);
 *         CA_EVERSION (with a context: a recorded version differs from the context's; both named);
 *         CA_EUNSUPPORTED; CA_EIO. Nothing is written on failure.
 */
CA_API ca_status_t ca_arrays_save_opts(const ca_array_t *const *arrays, size_t n, const char *path,
                                       const ca_save_options_t *opts);

/**
 * Load the arrays of a file saved by ca_arrays_save(), sharing one graph, in the saved order.
 * @param[out] out an owned array of @p n owned arrays; free all with ca_arrays_free(). NULL (and
 *        *n 0) on failure, and for a file without arrays (a ca_graph_save() file).
 * @param[out] n the number of arrays.
 * @return CA_OK; CA_EINVAL; CA_ENOTFOUND (no such file); CA_EIO; CA_EFORMAT (also when an array's
 *         blocks are missing from the graph); CA_EVERSION; CA_ENOMEM.
 */
CA_API ca_status_t ca_arrays_load(ca_array_t ***out, size_t *n, const char *path);

/** Free what ca_arrays_load() returned: every array, then the list. Accepts NULL. */
CA_API void ca_arrays_free(ca_array_t **arrays, size_t n);

/** ca_arrays_save() of one array. */
CA_API ca_status_t ca_array_save(const ca_array_t *a, const char *path);

/**
 * Load the one array of a file saved by ca_array_save().
 * @param[out] out owned (ca_array_free()); NULL on failure.
 * @return as ca_arrays_load(); CA_ENOTFOUND if the file holds no array, CA_EINVAL if it holds several
 *         (use ca_arrays_load()).
 */
CA_API ca_status_t ca_array_load(ca_array_t **out, const char *path);

/** ca_arrays_save() into a new buffer (free with ca_buffer_free()). */
CA_API ca_status_t ca_arrays_save_buffer(const ca_array_t *const *arrays, size_t n, void **data, size_t *size);

/**
 * ca_arrays_save_opts() into a new buffer.
 * @param[out] data owned, free with ca_buffer_free(); NULL on failure.
 * @param[out] size its size in bytes; 0 on failure.
 * @param opts borrowed, may be NULL for the defaults.
 * @return as ca_arrays_save_opts(), CA_ENOMEM instead of CA_EIO.
 */
CA_API ca_status_t ca_arrays_save_buffer_opts(const ca_array_t *const *arrays, size_t n, void **data, size_t *size,
                                              const ca_save_options_t *opts);

/** ca_arrays_load() from bytes (borrowed during the call). */
CA_API ca_status_t ca_arrays_load_buffer(ca_array_t ***out, size_t *n, const void *data, size_t size);

/**
 * Load a file once and hand back both its graph and its arrays (tools that show or run any file).
 * @param[out] graph owned (ca_graph_free()), may be NULL if not wanted.
 * @param[out] arrays owned (ca_arrays_free()), may be NULL if not wanted; NULL when the file has none.
 * @param[out] n number of arrays; may be NULL only if @p arrays is NULL.
 * @return as ca_arrays_load().
 */
CA_API ca_status_t ca_file_load(ca_graph_t **graph, ca_array_t ***arrays, size_t *n, const char *path);

/* Layer kinds (ca_layer_info_t.kind). */
#define CA_LAYER_MATERIALIZED 0 /**< tasks stored one by one (ca_graph_add_task) */
#define CA_LAYER_BLOCKWISE 1    /**< symbolic: blockwise, partial reduce, array operations */
#define CA_LAYER_DATA 2         /**< blocks held in memory */
#define CA_LAYER_OVERLAP 3      /**< symbolic: blocks with their neighbours' margins (ca_array_overlap) */

/** What ca_graph_layer_info() reports about one layer. */
typedef struct ca_layer_info {
  uint32_t struct_size; /**< sizeof(ca_layer_info_t), set by the caller */
  int32_t kind;         /**< CA_LAYER_* */
  int32_t nindex;       /**< indices per key */
  int32_t nkernels;     /**< distinct kernels its tasks call */
  int64_t num_tasks;    /**< tasks (symbolic layers: counted, not materialized) */
  int64_t data_bytes;   /**< CA_LAYER_DATA: bytes of its blocks; else 0 */
} ca_layer_info_t;

#define CA_LAYER_INFO_INIT {sizeof(ca_layer_info_t), 0, 0, 0, 0, 0}

/**
 * Describe one layer of a graph.
 * @param[in,out] out caller's struct with struct_size set (fields beyond it are not written).
 * @return CA_OK; CA_EINVAL (NULL, struct_size too small); CA_ENOTFOUND (no such layer).
 */
CA_API ca_status_t ca_graph_layer_info(const ca_graph_t *graph, const char *layer, ca_layer_info_t *out);

/**
 * The distinct kernel names a graph's tasks call, sorted (ca.data for data layers included).
 * @param[out] out owned list of names (nindex 0); free with ca_keylist_free().
 */
CA_API ca_status_t ca_graph_kernels(ca_keylist_t **out, const ca_graph_t *graph);

/**
 * The version of @p kernel a graph records (from the file it was loaded from; see format.h's notes).
 * Layers that leave it unrecorded do not count; layers built in memory record none.
 * @param[out] out the recorded version, or 0 if no layer records one (any version is accepted);
 *        0 on failure.
 * @param graph borrowed. @param kernel borrowed, a kernel name.
 * @return CA_OK; CA_EINVAL (NULL argument); CA_ENOTFOUND (no task of the graph calls @p kernel);
 *         CA_EVERSION (two layers record different versions of it: both layers and versions are
 *         named; such a graph computes in no context).
 */
CA_API ca_status_t ca_graph_kernel_version(int32_t *out, const ca_graph_t *graph, const char *kernel);

#ifdef __cplusplus
}
#endif

#endif /* CHUNKARRAY_FORMAT_H */
