/**
 * @file chunkarray/graph.h
 * @brief Task graphs (dask's HighLevelGraph) and computing them.
 *
 * A graph is a set of named layers. Every key `(name, i, j, ...)` belongs to the layer of its name;
 * all keys of a layer have the same number of indices. A layer is either materialized (tasks added one
 * by one with ca_graph_add_task()) or symbolic (ca_graph_add_blockwise(), ca_graph_add_partial_reduce():
 * a formula from output block index to input keys, a few hundred bytes whatever the block count).
 * Layers record the layers they depend on. Tasks are materialized into flat arrays only at compute
 * time, culled to what the requested keys need.
 *
 * Thread safety: a graph is built by one thread at a time. Computing a graph only reads it, so several
 * threads may compute one graph concurrently as long as nobody modifies it.
 *
 * Example: the dask graph {('x', 0): (np.full, 5, 1.0), ('x', 1): (np.full, 5, 2.0),
 * ('y', 0): (sum, [('x', 0), ('x', 1)])}, with builtin kernels (docs/kernels.md lists every ca.*
 * kernel and its arguments; ca_kernel_registry_list() returns them at run time):
 * @code
 *   ca_graph_t *g;  ca_graph_new(&g);
 *   int64_t i0 = 0, i1 = 1, shape[1] = {5};
 *   double one = 1.0, two = 2.0;
 *   ca_key_t x0 = {"x", &i0, 1}, x1 = {"x", &i1, 1}, y0 = {"y", &i0, 1};
 *   ca_arg_t f1[3] = {ca_arg_tuple(shape, 1), ca_arg_i64(CA_FLOAT64), ca_arg_bytes(&one, sizeof one)};
 *   ca_arg_t f2[3] = {ca_arg_tuple(shape, 1), ca_arg_i64(CA_FLOAT64), ca_arg_bytes(&two, sizeof two)};
 *   ca_graph_add_task(g, &x0, "ca.shape.fill", f1, 3);
 *   ca_graph_add_task(g, &x1, "ca.shape.fill", f2, 3);
 *   ca_arg_t refs[2] = {ca_arg_key("x", &i0, 1), ca_arg_key("x", &i1, 1)};
 *   ca_arg_t sum = ca_arg_list(refs, 2);
 *   ca_graph_add_task(g, &y0, "ca.linalg.sum", &sum, 1);
 *   ca_block_t *res;  ca_compute(&res, ctx, g, &y0, 1, NULL);
 *   ... ca_block_data(res): five 3.0 ...;  ca_block_free(res);  ca_graph_free(g);
 * @endcode
 */
#ifndef CHUNKARRAY_GRAPH_H
#define CHUNKARRAY_GRAPH_H

#include "chunkarray/context.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A task graph: named layers of tasks. Built by one thread at a time; computing only reads it. */
typedef struct ca_graph ca_graph_t;

/** A library-owned list of keys (or of plain names, nindex 0) returned by queries. */
typedef struct ca_keylist ca_keylist_t;
/** @return the number of keys in @p list (0 for NULL). */
CA_API size_t ca_keylist_size(const ca_keylist_t *list);
/** @param[out] out borrowed pointers, valid until ca_keylist_free(). @return CA_EINVAL if out of range. */
CA_API ca_status_t ca_keylist_get(const ca_keylist_t *list, size_t i, ca_key_t *out);
/** Free a key list. Accepts NULL. */
CA_API void ca_keylist_free(ca_keylist_t *list);

/**
 * @param[out] out an empty graph; free with ca_graph_free().
 * @return CA_OK; CA_EINVAL (NULL out); CA_ENOMEM. The caller owns *out (ca_graph_free()).
 */
CA_API ca_status_t ca_graph_new(ca_graph_t **out);
/**
 * A copy sharing the (immutable) layers: O(number of layers).
 * @return CA_OK; CA_EINVAL (NULL out or graph); CA_ENOMEM. The caller owns *out (ca_graph_free()).
 */
CA_API ca_status_t ca_graph_copy(ca_graph_t **out, const ca_graph_t *graph);
/** Free a graph (arrays built over it keep the layers they share). Accepts NULL. */
CA_API void ca_graph_free(ca_graph_t *graph);

/**
 * Add the task `key = (kernel, args...)` to the materialized layer named key->name.
 * Referenced keys need not exist yet; they are checked by ca_graph_validate() and at compute time.
 * @param kernel name of a kernel, resolved in the context's registry at compute time.
 * @return CA_OK, CA_EINVAL (NULL, empty name, bad argument kind, index count differs from the
 *         layer's), CA_EEXISTS (duplicate key, or the name belongs to a symbolic layer).
 */
CA_API ca_status_t ca_graph_add_task(ca_graph_t *graph, const ca_key_t *key, const char *kernel,
                                     const ca_arg_t *args, size_t nargs);

/** Options of ca_graph_add_blockwise() (NULL = defaults). */
typedef struct ca_blockwise_options {
  uint32_t struct_size; /**< sizeof(ca_blockwise_options_t) */
  /** Number of blocks per output index letter, needed for letters no input has (new axes);
   *  entries < 0 are taken from the inputs. NULL = all from the inputs. strlen(out_index) entries. */
  const int64_t *numblocks;
} ca_blockwise_options_t;

/** The defaults of ca_blockwise_options_t. */
#define CA_BLOCKWISE_OPTIONS_INIT {sizeof(ca_blockwise_options_t), NULL}

/**
 * A symbolic layer, dask's `blockwise(func, out_ind, *(arg, ind))` at graph level: the task of
 * output block (i, j, ...) calls @p kernel with @p args, where each CA_ARG_INDEXED argument
 * {name, "ji"} becomes the key (name, j, i). Letters of an input absent from @p out_index are
 * contracted: that argument becomes a list of keys over every block of the letter (nested lists for
 * several letters). An input with one block along a letter broadcasts. Other arguments are literals.
 * Inputs must be grid layers already in the graph.
 * @return CA_OK, CA_EINVAL (bad letters, mismatched block counts), CA_ENOTFOUND (unknown input layer),
 *         CA_EEXISTS (layer name taken).
 */
CA_API ca_status_t ca_graph_add_blockwise(ca_graph_t *graph, const char *name, const char *out_index,
                                          const char *kernel, const ca_arg_t *args, size_t nargs,
                                          const ca_blockwise_options_t *opts);

/**
 * A symbolic tree-reduction level (dask's partial_reduce): output block (i, j, ...) calls @p kernel
 * with one list argument holding the input blocks [i*split[0], (i+1)*split[0]) x ... (clipped), nested
 * one list level per dimension with split > 1, followed by @p extra literal arguments.
 * @param split per input dimension, >= 1; nindex of the input entries.
 * @return CA_OK; CA_EINVAL (NULL argument, nsplit other than the input's nindex, a split < 1); CA_EEXISTS (a layer of that name
 *         exists); CA_ENOMEM.
 */
CA_API ca_status_t ca_graph_add_partial_reduce(ca_graph_t *graph, const char *name, const char *input,
                                               const int64_t *split, int32_t nsplit, const char *kernel,
                                               const ca_arg_t *extra, size_t nextra);

/**
 * Add every layer of @p other to @p graph. Layers present in both must be the same layer (shared,
 * or identical content); otherwise CA_EEXISTS names the layer. Kernel versions recorded by a layer
 * (graphs loaded from files, format.h) are not part of its content: the copy that records more of
 * them is kept, and two copies recording different versions of one kernel are CA_EEXISTS (kernel and
 * both versions named). All or nothing: on failure @p graph is unchanged.
 */
CA_API ca_status_t ca_graph_merge(ca_graph_t *graph, const ca_graph_t *other);

/**
 * A new graph with only what @p keys need (materialized layers culled to the needed tasks).
 * @return CA_OK; CA_EINVAL (NULL out or graph, keys NULL with nkeys > 0); CA_ENOTFOUND (a key or a key it references
 *         is missing, named); CA_ENOMEM. The caller owns *out (ca_graph_free()).
 */
CA_API ca_status_t ca_graph_cull(ca_graph_t **out, const ca_graph_t *graph, const ca_key_t *keys,
                                 size_t nkeys);

/** @return total number of tasks over all layers (symbolic layers counted, not materialized). */
CA_API int64_t ca_graph_num_tasks(const ca_graph_t *graph);
/** @return number of layers. */
CA_API int64_t ca_graph_num_layers(const ca_graph_t *graph);
/** @return 1 if @p graph has the task @p key, else 0 (also for NULL arguments). */
CA_API int ca_graph_has_key(const ca_graph_t *graph, const ca_key_t *key);
/**
 * @param[out] out the layer names in insertion order (nindex 0).
 * @return CA_OK; CA_EINVAL (NULL out or graph); CA_ENOMEM. The caller owns *out (ca_keylist_free()).
 */
CA_API ca_status_t ca_graph_layers(ca_keylist_t **out, const ca_graph_t *graph);
/** The names of the kernels the graph's tasks call, sorted, without repeats (nindex 0): what a context
 *  must have registered to compute it (ca_graph_validate checks that), and what a binding that owns
 *  anonymous kernels (Python's map_blocks of a function) keeps alive.
 *  @param[out] out the names; caller owns it, free with ca_keylist_free. Set to NULL on failure.
 *  @return CA_OK; CA_EINVAL if @p out or @p graph is NULL; CA_ENOMEM. */
CA_API ca_status_t ca_graph_kernel_names(ca_keylist_t **out, const ca_graph_t *graph);
/**
 * @param[out] out names of the layers @p layer depends on (HighLevelGraph.dependencies).
 * @return CA_OK; CA_EINVAL (NULL argument); CA_ENOTFOUND (no such layer); CA_ENOMEM. The caller owns *out
 *         (ca_keylist_free()).
 */
CA_API ca_status_t ca_graph_layer_dependencies(ca_keylist_t **out, const ca_graph_t *graph,
                                               const char *layer);
/**
 * @param[out] out the keys the task @p key references, in argument order, without repeats.
 * @return CA_OK; CA_EINVAL (NULL argument); CA_ENOTFOUND (no such key); CA_ENOMEM. The caller owns *out
 *         (ca_keylist_free()).
 */
CA_API ca_status_t ca_graph_dependencies(ca_keylist_t **out, const ca_graph_t *graph, const ca_key_t *key);
/**
 * @param[out] out every key of a layer, in C order of the block index.
 * @return CA_OK; CA_EINVAL (NULL argument); CA_ENOTFOUND (no such layer); CA_ENOMEM (also more keys than the task
 *         budget). The caller owns *out (ca_keylist_free()).
 */
CA_API ca_status_t ca_graph_layer_keys(ca_keylist_t **out, const ca_graph_t *graph, const char *layer);

/**
 * Check what the keys need (all keys of the graph if @p keys is NULL): every referenced key exists
 * (CA_ENOTFOUND names the key and the task referencing it), no cycle (CA_ECYCLE names the keys on
 * it), every kernel exists in @p ctx's registry if ctx is not NULL (CA_ENOTFOUND), at the version the
 * graph records for it, if any (CA_EVERSION names the layer, the kernel and both versions).
 * With @p keys NULL, the graph's task count (symbolic layers counted, not materialized) is checked
 * first against the task budget of @p ctx (config "graph.max-tasks"; the default when ctx is NULL):
 * CA_ENOMEM "the graph has N tasks, more than the task budget of M ..." before anything is built.
 */
CA_API ca_status_t ca_graph_validate(const ca_graph_t *graph, const ca_context_t *ctx, const ca_key_t *keys,
                                     size_t nkeys);

/* ------------------------------------------------------------------------------------------------ */
/* Compute                                                                                           */
/* ------------------------------------------------------------------------------------------------ */

/** A cancellation token: ca_cancel_request() from any thread stops the computations watching it. */
typedef struct ca_cancel ca_cancel_t;
/**
 * @return CA_OK; CA_EINVAL (NULL out); CA_ENOMEM. The caller owns *out (ca_cancel_free()).
 */
CA_API ca_status_t ca_cancel_new(ca_cancel_t **out);
/** Ask the computations watching @p cancel to stop (they fail with CA_ECANCELED). Any thread; NULL is ignored. */
CA_API void ca_cancel_request(ca_cancel_t *cancel);
/** @return 1 once ca_cancel_request() was called (until ca_cancel_reset()), else 0. */
CA_API int ca_cancel_requested(const ca_cancel_t *cancel);
/** Clear a request, to reuse the token for another computation. */
CA_API void ca_cancel_reset(ca_cancel_t *cancel);
/** Free a token no computation watches any more. Accepts NULL. */
CA_API void ca_cancel_free(ca_cancel_t *cancel);

/** Progress callback: @p done of @p total tasks finished. Runs on the thread that called ca_compute. */
typedef void (*ca_progress_fn)(int64_t done, int64_t total, void *user_data);

/** Options of every compute (NULL = defaults): progress reporting and cancellation. */
typedef struct ca_compute_options {
  uint32_t struct_size;           /**< sizeof(ca_compute_options_t) */
  ca_progress_fn progress;        /**< may be NULL */
  void *progress_user_data; /**< passed to progress */
  int64_t progress_interval_us;   /**< minimum time between progress calls; 0 = 100 ms */
  const ca_cancel_t *cancel;      /**< borrowed, may be NULL */
} ca_compute_options_t;

/** The defaults of ca_compute_options_t. */
#define CA_COMPUTE_OPTIONS_INIT {sizeof(ca_compute_options_t), NULL, NULL, 0, NULL}

/**
 * Run what @p keys need and hand back their results.
 * @param[out] out caller's array of @p nkeys pointers; each receives an owned block (the caller
 *        frees each with ca_block_free()). On failure every entry is NULL and no intermediate
 *        result is left allocated. May be NULL only when @p nkeys is 0.
 * @param opts borrowed, may be NULL.
 * @return CA_OK; CA_ENOTFOUND (missing key or kernel, named), CA_ECYCLE (keys on the cycle named),
 *         CA_EVERSION (a kernel registered at another version than the graph records, format.h:
 *         layer, kernel and both versions named),
 *         CA_EKERNEL (the first failing kernel's message; no further task started),
 *         CA_ECANCELED, CA_EINVAL,
 *         CA_ENOMEM (out of memory in a kernel; a block larger than the context's memory limit; the
 *         next task does not fit beside the blocks still held and nothing running can free any; more
 *         tasks than the context's task budget, "graph.max-tasks"; the message names the budget).
 * Memory: every block of at least 16 KiB that the computation's kernels allocate is charged to the
 * context's memory limit (context.h) until it is freed, including results returned here; new root
 * tasks wait for memory rather than exceed it.
 * Blocks the calling thread (which runs tasks of the computation itself: context.h, num_threads);
 * may run concurrently with other computes on the same context. Called from inside a kernel that
 * runs on the same context, the computation runs on that kernel's thread alone (it never waits
 * for workers that may all be busy with the kernels waiting for it).
 */
CA_API ca_status_t ca_compute(ca_block_t **out, ca_context_t *ctx, const ca_graph_t *graph, const ca_key_t *keys,
                              size_t nkeys, const ca_compute_options_t *opts);

/**
 * The task graph of the given keys (all if NULL) in graphviz dot.
 * @param[out] out owned NUL-terminated text; free with ca_string_free(). NULL on failure.
 * @param g borrowed. @param keys borrowed, @p nkeys entries, or NULL for the whole graph (capped).
 * @return CA_OK; CA_EINVAL (out or g NULL); CA_ENOMEM.
 */
CA_API ca_status_t ca_graph_to_dot(char **out, const ca_graph_t *g, const ca_key_t *keys, size_t nkeys);

#ifdef __cplusplus
}
#endif

#endif /* CHUNKARRAY_GRAPH_H */
