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
 *   ca_save_options_t so = CA_SAVE_OPTIONS_INIT;
 *   so.path = "x.cagraph";  so.arrays = (const ca_array_t *const *)&a;  so.narrays = 1;
 *   ca_save(NULL, NULL, &so);
 *   ...
 *   ca_load_options_t lo = CA_LOAD_OPTIONS_INIT;
 *   ca_array_t **list;  size_t n;  lo.path = "x.cagraph";
 *   ca_load(NULL, &list, &n, &lo);
 *   ca_array_compute_into(ctx, list[0], buffer, nbytes, NULL);  ca_array_free_many(list, n);
 * @endcode
 */
#ifndef CHUNKARRAY_FORMAT_H
#define CHUNKARRAY_FORMAT_H

#include "chunkarray/array.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The newest graph file format version this library writes (a file records the oldest version that
 *  holds its layers: 1, 2 when it has an overlap layer, 3 when it has an index-map layer); it reads
 *  versions 1 up to this one. */
#define CA_FORMAT_VERSION 3

/** @return CA_FORMAT_VERSION of the library actually loaded. */
CA_API int32_t ca_format_version(void);

/**
 * Options of ca_save(): what to save, where, and which kernel versions to record. Start from
 * CA_SAVE_OPTIONS_INIT; fields are only appended (the first two are all the deprecated
 * ca_*_save_opts() calls read).
 *
 * The version recorded for each kernel a saved layer uses is
 *  - the version the layer already records, if any (a graph loaded from a file, re-saved, keeps its
 *    versions); with a @p context whose registered kernel has another version, the save fails with
 *    CA_EVERSION naming both;
 *  - else, with a @p context, the version registered there; a kernel that is not registered in it
 *    fails the save with CA_ENOTFOUND naming the kernel and the layer;
 *  - else (no context) the library's builtin version for "ca.*" kernels, and 0 (not recorded) for
 *    other kernels.
 * Data layers record no kernel.
 */
typedef struct ca_save_options {
  uint32_t struct_size;            /**< sizeof(ca_save_options_t) */
  const ca_context_t *context;     /**< borrowed, may be NULL: record the versions registered there */
  /** The target: a file, written atomically (a temporary file renamed over it); NULL: a new buffer
   *  handed back by ca_save() */
  const char *path;
  /** What: a graph (borrowed; then arrays must be NULL and narrays 0) ... */
  const ca_graph_t *graph;
  /** ... or arrays (borrowed, narrays non-NULL arrays; narrays may be 0): the union of their graphs
   *  (shared layers stored once) and each array's name, chunks and dtype. Fused elementwise arrays
   *  are saved as their `ca.fused` layer (loaded arrays compute the same values; further operations
   *  on them start a new fusion). */
  const ca_array_t *const *arrays;
  size_t narrays; /**< entries in arrays */
} ca_save_options_t;

/** The defaults of ca_save_options_t. */
#define CA_SAVE_OPTIONS_INIT {sizeof(ca_save_options_t), NULL, NULL, NULL, NULL, 0}

/**
 * Save a graph or arrays into a file or a new buffer, as @p opts says.
 * @param[out] out with opts->path NULL: receives the bytes, owned by the caller, free with
 *        ca_buffer_free(); NULL on failure. With a path: may be NULL (set to NULL if not).
 * @param[out] out_size with opts->path NULL: the size in bytes; 0 on failure. With a path: may be NULL.
 * @param opts borrowed, not NULL.
 * @return CA_OK; CA_EINVAL (opts NULL, opts->struct_size too small, both graph and arrays set,
 *         arrays NULL with narrays > 0, a NULL array, an empty path, out or out_size NULL without a
 *         path); CA_EEXISTS (two arrays' graphs hold different layers of the same name);
 *         CA_ENOTFOUND (with a context: a kernel is not registered there; kernel and layer named);
 *         CA_EVERSION (with a context: a recorded version differs from the context's; both named);
 *         CA_EUNSUPPORTED (a layer too large for one file list, 2^29 entries; a build without
 *         Cap'n Proto); CA_EIO (the message names the path and the system error); CA_ENOMEM.
 *         Nothing is written on failure.
 *
 * Example: save an array to a file and a graph to a buffer.
 * @code
 *   ca_save_options_t so = CA_SAVE_OPTIONS_INIT;
 *   so.path = "x.cagraph";  so.arrays = (const ca_array_t *const *)&a;  so.narrays = 1;
 *   ca_save(NULL, NULL, &so);
 *   ca_save_options_t sg = CA_SAVE_OPTIONS_INIT;
 *   void *bytes;  size_t n;  sg.graph = g;
 *   ca_save(&bytes, &n, &sg);  ...  ca_buffer_free(bytes);
 * @endcode
 */
CA_API ca_status_t ca_save(void **out, size_t *out_size, const ca_save_options_t *opts);

/** Options of ca_load(): where to read from. Start from CA_LOAD_OPTIONS_INIT; fields are only appended. */
typedef struct ca_load_options {
  uint32_t struct_size; /**< sizeof(ca_load_options_t) */
  /** A file (borrowed): memory-mapped and decoded, nothing refers to it afterwards; or NULL ... */
  const char *path;
  const void *data;     /**< ... and bytes (borrowed during the call; any alignment) */
  size_t size;          /**< their size */
} ca_load_options_t;

/** The defaults of ca_load_options_t. */
#define CA_LOAD_OPTIONS_INIT {sizeof(ca_load_options_t), NULL, NULL, 0}

/**
 * Load a file or bytes saved by ca_save(): its graph, its arrays (sharing one graph, in the saved
 * order), or both.
 * @param[out] out_graph owned, free with ca_graph_free(); may be NULL if not wanted. NULL on failure.
 * @param[out] out_arrays an owned list of owned arrays, free all with ca_array_free_many(); may be
 *        NULL if not wanted. NULL (and *out_narrays 0) on failure and for a file without arrays (a
 *        saved graph).
 * @param[out] out_narrays the number of arrays; may be NULL only if @p out_arrays is NULL.
 * @param opts borrowed, not NULL: exactly one of path and data set.
 * @return CA_OK; CA_EINVAL (opts NULL or struct_size too small, both or neither of path and data,
 *         out_graph and out_arrays both NULL, out_narrays NULL with out_arrays); CA_ENOTFOUND (no
 *         such file); CA_EIO; CA_EFORMAT (not a graph file, corrupt or inconsistent, also when an
 *         array's blocks are missing from the graph: the message says what); CA_EVERSION (a newer
 *         format); CA_EUNSUPPORTED (a build without Cap'n Proto); CA_ENOMEM.
 */
CA_API ca_status_t ca_load(ca_graph_t **out_graph, ca_array_t ***out_arrays, size_t *out_narrays,
                           const ca_load_options_t *opts);

/** Free a buffer from ca_save(). Accepts NULL. */
CA_API void ca_buffer_free(void *data);

/** Free a list of arrays from ca_load(): every array, then the list. Accepts NULL. */
CA_API void ca_array_free_many(ca_array_t **arrays, size_t n);

/* ------------------------------------------------------------------------------------------------ */
/* Deprecated (0.2): the save/load calls before ca_save()/ca_load(). Each behaves as the ca_save() /  */
/* ca_load() call named in its CA_DEPRECATED note and is removed in 0.3 (docs/abi.md).              */
/* ------------------------------------------------------------------------------------------------ */

/** ca_save() of a graph to a file (so.graph, so.path). @return as ca_save(). */
CA_API CA_DEPRECATED("ca_save") ca_status_t ca_graph_save(const ca_graph_t *graph, const char *path);
/** ca_save() of a graph to a file with a context (so.context). @param opts may be NULL (no context).
 *  @return as ca_save(). */
CA_API CA_DEPRECATED("ca_save") ca_status_t ca_graph_save_opts(const ca_graph_t *graph, const char *path,
                                                               const ca_save_options_t *opts);
/** ca_save() of a graph into a buffer (@p data, @p size: outputs, free with ca_buffer_free()).
 *  @return as ca_save(). */
CA_API CA_DEPRECATED("ca_save") ca_status_t ca_graph_save_buffer(const ca_graph_t *graph, void **data, size_t *size);
/** ca_load() of a file's graph. @param[out] out owned (ca_graph_free()). @return as ca_load(). */
CA_API CA_DEPRECATED("ca_load") ca_status_t ca_graph_load(ca_graph_t **out, const char *path);
/** ca_load() of bytes' graph. @param[out] out owned (ca_graph_free()). @return as ca_load(). */
CA_API CA_DEPRECATED("ca_load") ca_status_t ca_graph_load_buffer(ca_graph_t **out, const void *data, size_t size);
/** ca_save() of arrays to a file with options. @param opts may be NULL (no context).
 *  @return as ca_save(). */
CA_API CA_DEPRECATED("ca_save") ca_status_t ca_arrays_save_opts(const ca_array_t *const *arrays, size_t n,
                                                                const char *path, const ca_save_options_t *opts);
/** ca_save() of arrays into a buffer (@p data, @p size: outputs, free with ca_buffer_free()).
 *  @return as ca_save(). */
CA_API CA_DEPRECATED("ca_save") ca_status_t ca_arrays_save_buffer(const ca_array_t *const *arrays, size_t n,
                                                                  void **data, size_t *size);
/** ca_load() of bytes' arrays. @param[out] out owned list (ca_array_free_many()). @return as ca_load(). */
CA_API CA_DEPRECATED("ca_load") ca_status_t ca_arrays_load_buffer(ca_array_t ***out, size_t *n, const void *data,
                                                                  size_t size);
/** ca_array_free_many(). */
CA_API CA_DEPRECATED("ca_array_free_many") void ca_arrays_free(ca_array_t **arrays, size_t n);
/** ca_save() of one array to a file. @return as ca_save(). */
CA_API CA_DEPRECATED("ca_save") ca_status_t ca_array_save(const ca_array_t *a, const char *path);
/**
 * ca_load() of a file holding exactly one array.
 * @param[out] out owned (ca_array_free()); NULL on failure.
 * @return as ca_load(); CA_ENOTFOUND if the file holds no array, CA_EINVAL if it holds several.
 */
CA_API CA_DEPRECATED("ca_load") ca_status_t ca_array_load(ca_array_t **out, const char *path);
/** ca_graph_kernel_names() (graph.h), the same list under its older name (deprecated in 0.2).
 *  @param[out] out owned list of names (nindex 0); free with ca_keylist_free().
 *  @return as ca_graph_kernel_names(). */
CA_API CA_DEPRECATED("ca_graph_kernel_names") ca_status_t ca_graph_kernels(ca_keylist_t **out,
                                                                          const ca_graph_t *graph);

/* Layer kinds (ca_layer_info_t.kind). */
/** What a graph layer is (ca_graph_layer_info()). */
typedef enum ca_layer_kind_t CA_ENUM32 {
  CA_LAYER_MATERIALIZED = 0, /**< tasks stored one by one (ca_graph_add_task) */
  CA_LAYER_BLOCKWISE = 1, /**< symbolic: blockwise, partial reduce, array operations */
  CA_LAYER_DATA = 2, /**< blocks held in memory */
  CA_LAYER_OVERLAP = 3, /**< symbolic: blocks with their neighbours' margins (ca_array_overlap) */
  CA_LAYER_INDEX_MAP = 4, /**< symbolic: flip, concatenate, stack, pad, repeat, tile (blocks picked and cut by formula) */
  CA_LAYER__FORCE32 = 0x7fffffff /**< makes the enum 32 bits wide; not a value */
} ca_layer_kind_t;

/** What ca_graph_layer_info() reports about one layer. */
typedef struct ca_layer_info {
  uint32_t struct_size; /**< sizeof(ca_layer_info_t), set by the caller */
  ca_layer_kind_t kind; /**< CA_LAYER_* */
  int32_t nindex;       /**< indices per key */
  int32_t nkernels;     /**< distinct kernels its tasks call */
  int64_t num_tasks;    /**< tasks (symbolic layers: counted, not materialized) */
  int64_t data_bytes;   /**< CA_LAYER_DATA: bytes of its blocks; else 0 */
} ca_layer_info_t;

/** An empty ca_layer_info_t with its struct_size set. */
#define CA_LAYER_INFO_INIT {sizeof(ca_layer_info_t), CA_LAYER_MATERIALIZED, 0, 0, 0, 0}

/**
 * Describe one layer of a graph.
 * @param[in,out] out caller's struct with struct_size set (fields beyond it are not written).
 * @param graph borrowed. @param layer borrowed, a layer name.
 * @return CA_OK; CA_EINVAL (NULL, struct_size too small); CA_ENOTFOUND (no such layer).
 */
CA_API ca_status_t ca_graph_layer_info(ca_layer_info_t *out, const ca_graph_t *graph, const char *layer);


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
