/**
 * @file chunkarray/context.h
 * @brief The context: worker threads, memory limit, kernel registry and configuration.
 *
 * Thread safety: a context may be shared by threads. Registering kernels and setting configuration
 * are serialized internally; ca_compute() may run concurrently on one context (computations share its
 * worker threads).
 */
#ifndef CHUNKARRAY_CONTEXT_H
#define CHUNKARRAY_CONTEXT_H

#include "chunkarray/kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Worker threads, configuration and a kernel registry. Thread safe: one context serves many threads. */
typedef struct ca_context ca_context_t;

/** Options of ca_context_new() (NULL = defaults). */
typedef struct ca_context_options {
  uint32_t struct_size; /**< sizeof(ca_context_options_t) */
  /** Worker threads: -1 = one per core; 0 = synchronous mode (everything runs on the calling
   *  thread, in priority order: for debugging); N > 0 = N workers. The calling thread takes part
   *  in its computation: it runs the share of a worker that is asleep (that worker's thread stays
   *  asleep), so N threads run a computation and none has to be woken for the caller's share. With
   *  1 worker, a computation started while the worker is idle runs wholly on the calling thread;
   *  one started from another thread meanwhile runs on that thread too. */
  int32_t num_threads;
  /** Limit on the bytes of blocks this context's computations hold at once — intermediates, results
   *  and persisted arrays, every block of at least 16 KiB a kernel allocates, until it is freed.
   *  Enforced before allocating: new root tasks wait for memory to be freed; a computation fails
   *  with CA_ENOMEM (naming the limit) only when one block alone exceeds it, or when the next task
   *  does not fit beside what is held and nothing running can free any.
   *  0 = the machine's default: 3/4 of the smallest of physical RAM, the cgroup memory limit (v2
   *  memory.max / v1 memory.limit_in_bytes) and RLIMIT_AS/RLIMIT_DATA (the environment variable
   *  CA_MEMORY_LIMIT, a byte count, replaces it); -1 = no limit. */
  int64_t memory_limit;
  /** Target chunk size in bytes for "auto" chunking (dask's array.chunk-size); 0 = 128 MiB. */
  int64_t chunk_size;
  /** 1 = register the builtin kernels (default); 0 = start with an empty registry. */
  int32_t builtin_kernels;
} ca_context_options_t;

/** The defaults of ca_context_options_t: a thread per core, no memory limit, builtin kernels. */
#define CA_CONTEXT_OPTIONS_INIT {sizeof(ca_context_options_t), -1, 0, 0, 1}

/**
 * @param[out] out owned; free with ca_context_free().
 * @param opts borrowed, may be NULL for defaults.
 * @return CA_OK; CA_EINVAL (NULL out, opts->struct_size too small, a negative thread count or memory limit);
 *         CA_ENOMEM (also when the worker threads cannot start).
 */
CA_API ca_status_t ca_context_new(ca_context_t **out, const ca_context_options_t *opts);
/** Stops and joins the worker threads (after running computations end). Accepts NULL. */
CA_API void ca_context_free(ca_context_t *ctx);
/** @return the number of worker threads (0 in synchronous mode), or -1 for NULL. */
CA_API int32_t ca_context_num_threads(const ca_context_t *ctx);

/**
 * Set a configuration value by name (dask's config keys): "array.chunk-size" ("128MiB", "64e6"),
 * "memory-limit" (bytes or "2GiB"; "auto" or 0 = the machine's default, "none" or -1 = no limit;
 * see ca_context_options_t.memory_limit; ca_context_get_config() reports the bytes or "none"),
 * "graph.max-tasks" (most tasks one computation or ca_graph_validate() may materialize; 0 = the
 * default: a quarter of the memory limit at ~256 bytes per task, at least 4,194,304),
 * "num-threads" (applies to the next compute), "block-cache" (process-wide, not per context: bytes of
 * freed large blocks and buffers (>= 1 MiB) kept for reuse so that a pipeline does not page-fault
 * fresh memory for every block; the parallel planner's arrays kept for the next plan may take as
 * many bytes again; default "256MiB" or the CA_BLOCK_CACHE environment variable in bytes; 0 = off,
 * which also frees what is kept; "auto" = the default).
 * @return CA_OK, CA_EINVAL (bad value), CA_ENOTFOUND (unknown key).
 */
CA_API ca_status_t ca_context_set_config(ca_context_t *ctx, const char *key, const char *value);
/**
 * @param[out] out the value as text (library-owned, valid until the next call on this thread).
 * @return CA_OK; CA_EINVAL (NULL out, ctx or key); CA_ENOTFOUND (unknown key).
 */
CA_API ca_status_t ca_context_get_config(const char **out, const ca_context_t *ctx, const char *key);

/**
 * Add a kernel to the registry under its name. The registry keeps its own reference; the caller
 * still frees its handle.
 * @return CA_OK, CA_EEXISTS (a kernel of that name is registered; use @p replace), CA_EINVAL.
 */
CA_API ca_status_t ca_context_add_kernel(ca_context_t *ctx, ca_kernel_t *kernel, int replace);
/** Convenience: ca_kernel_new() + ca_context_add_kernel(). free_user_data runs once, also on failure.
 *  @param opts borrowed, may be NULL (version 1, no user data), as in ca_kernel_new().
 *  @return as ca_kernel_new() and ca_context_add_kernel(): CA_OK; CA_EINVAL (NULL ctx, name or fn; an invalid name or
 *          version); CA_EEXISTS (a kernel of that name is registered); CA_ENOMEM. */
CA_API ca_status_t ca_context_register(ca_context_t *ctx, const char *name, ca_kernel_fn fn,
                                       const ca_kernel_options_t *opts);
/**
 * Convenience: ca_kernel_new_ffi() + ca_context_add_kernel().
 * @return as ca_kernel_new_ffi() and ca_context_add_kernel(): CA_OK; CA_EINVAL (NULL argument, a signature that does
 *         not parse); CA_EEXISTS; CA_EUNSUPPORTED (a build without libffi); CA_ENOMEM.
 */
CA_API ca_status_t ca_context_register_ffi(ca_context_t *ctx, const char *name, void (*fn)(void),
                                           const char *signature, const ca_kernel_options_t *opts);
/** @param[out] out a new reference to the registered kernel (free it); CA_ENOTFOUND if none. */
CA_API ca_status_t ca_context_get_kernel(ca_kernel_t **out, const ca_context_t *ctx, const char *name);
/**
 * Remove a kernel from the registry. Running computations keep theirs.
 * @return CA_OK; CA_EINVAL (NULL ctx or name); CA_ENOTFOUND (no kernel of that name).
 */
CA_API ca_status_t ca_context_remove_kernel(ca_context_t *ctx, const char *name);
/** @return the number of registered kernels. */
CA_API int64_t ca_context_num_kernels(const ca_context_t *ctx);

/* ------------------------------------------------------------------------------------------------ */
/* Listing kernels                                                                                   */
/* ------------------------------------------------------------------------------------------------ */

/** One kernel as ca_kernel_list_get() describes it. The strings are borrowed from the list. */
typedef struct ca_kernel_info {
  uint32_t struct_size;    /**< set by the caller: sizeof(ca_kernel_info_t); fields are only appended */
  const char *name;        /**< the registered name, e.g. "ca.eye" */
  int32_t version;         /**< the kernel's version (ca_kernel_version()) */
  /** 1: the library's builtin kernel of that name (as ca_context_new() registers it); 0: a kernel
   *  registered by the caller or a plugin, also one that replaced a builtin name. */
  int32_t builtin;
  /** 1: the arguments in @c signature are a stable interface for hand-built graphs
   *  (ca_graph_add_task()); 0: an internal encoding a library function emits (it may change between
   *  versions), or a kernel the library knows nothing about. */
  int32_t stable;
  /** The argument list, "ca.eye(dtype: int, k: int, origin: tuple, shape: tuple) -> block" for a
   *  builtin; a libffi kernel's C signature ("f64(f64)"); "" when unknown. */
  const char *signature;
  const char *description; /**< what the kernel computes; "" when unknown */
} ca_kernel_info_t;

/** An empty ca_kernel_info_t with its struct_size set. */
#define CA_KERNEL_INFO_INIT {sizeof(ca_kernel_info_t), NULL, 0, 0, 0, NULL, NULL}

/** A library-owned snapshot of a registry: ca_kernel_registry_list(). */
typedef struct ca_kernel_list ca_kernel_list_t;

/**
 * The kernels of @p ctx's registry, sorted by name, with their versions and, for the library's
 * builtin kernels, their argument lists and descriptions (the reference docs/kernels.md is generated
 * from this list). A snapshot: later registrations do not change it.
 *
 * @code
 *   ca_kernel_list_t *list;
 *   if (ca_kernel_registry_list(&list, NULL) == CA_OK) {       // the builtin kernels
 *     for (size_t i = 0; i < ca_kernel_list_size(list); ++i) {
 *       ca_kernel_info_t k = CA_KERNEL_INFO_INIT;
 *       ca_kernel_list_get(&k, list, i);
 *       printf("%s v%d: %s\n", k.name, k.version, k.signature);
 *     }
 *     ca_kernel_list_free(list);
 *   }
 * @endcode
 * @param[out] out the list; the caller owns it and frees it with ca_kernel_list_free(). NULL on failure.
 * @param ctx borrowed; may be NULL: then the library's builtin kernels (what ca_context_new()
 *        registers with builtin kernels on), without a context.
 * @return CA_OK; CA_EINVAL (NULL out); CA_ENOMEM.
 * Thread safety: safe while other threads register kernels in @p ctx (the list is a snapshot).
 */
CA_API ca_status_t ca_kernel_registry_list(ca_kernel_list_t **out, const ca_context_t *ctx);
/** @return the number of kernels in @p list (0 for NULL). */
CA_API size_t ca_kernel_list_size(const ca_kernel_list_t *list);
/**
 * Describe kernel @p i of @p list.
 * @param[out] out set its struct_size first (CA_KERNEL_INFO_INIT); the library fills that many bytes.
 *        Its strings are borrowed from @p list: valid until ca_kernel_list_free().
 * @param list borrowed.
 * @return CA_OK; CA_EINVAL (NULL out or list, out->struct_size smaller than the fields up to name,
 *         @p i out of range: the message names it and the size).
 */
CA_API ca_status_t ca_kernel_list_get(ca_kernel_info_t *out, const ca_kernel_list_t *list, size_t i);
/** Free a list from ca_kernel_registry_list(). Accepts NULL. */
CA_API void ca_kernel_list_free(ca_kernel_list_t *list);

#ifdef __cplusplus
}
#endif

#endif /* CHUNKARRAY_CONTEXT_H */
