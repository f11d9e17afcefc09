/*
 * chunkarray — distributed (SPMD) compute over a pluggable transport.
 *
 * Every process ("rank") calls ca_dist_compute() on the same graph and keys. Each rank builds the
 * same plan and computes the same deterministic placement (an owner rank for every task) without
 * communicating; it runs only the tasks it owns, receives the results of other ranks' tasks that
 * its own tasks need, and sends its results to the ranks that need them, overlapped with
 * computation: workers hand finished blocks to the calling thread, which alone talks to the
 * transport (so an MPI transport needs only MPI_THREAD_FUNNELED, or SERIALIZED when the calling
 * thread is not the main thread).
 *
 * libchunkarray itself knows no MPI: a transport is a table of non-blocking point-to-point calls
 * plus two collectives. libchunkarray_mpi (chunkarray/mpi.h) provides one over an MPI communicator.
 *
 * Experimental (chunkarray/experimental.h): declared only with CA_EXPERIMENTAL defined; may change
 * in any minor version.
 */
#ifndef CHUNKARRAY_DIST_H
#define CHUNKARRAY_DIST_H

#ifndef CA_EXPERIMENTAL
#error "chunkarray/dist.h is experimental API: define CA_EXPERIMENTAL before including chunkarray headers (chunkarray/experimental.h, docs/abi.md)"
#endif

#include <stddef.h>
#include <stdint.h>

#include "chunkarray/array.h"
#include "chunkarray/common.h"
#include "chunkarray/graph.h"
#include "chunkarray/io.h"
#include "chunkarray/store.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * A message transport between the ranks of one job. Every callback returns 0 on success and any
 * other value on failure (the compute then fails with CA_EIO naming the call). All callbacks are
 * called from the thread that called ca_dist_compute(), never concurrently.
 * Messages between two ranks with the same tag must arrive in the order they were sent (MPI's
 * non-overtaking rule). Tags used are 1..5.
 */
typedef struct ca_transport {
  uint32_t struct_size; /**< sizeof(ca_transport_t) */
  int32_t rank;         /**< this process, 0 <= rank < size */
  int32_t size;         /**< number of ranks, >= 1 */
  void *user_data;      /**< passed to every callback */
  /** Start sending data[0..nbytes) to rank @p dest; data stays valid until test() reports done. */
  int32_t (*isend)(void *user_data, int32_t dest, int32_t tag, const void *data, size_t nbytes, int64_t *request);
  /** Start receiving exactly @p nbytes from rank @p source into data. */
  int32_t (*irecv)(void *user_data, int32_t source, int32_t tag, void *data, size_t nbytes, int64_t *request);
  /** Is a message with @p tag from any rank waiting? *found = 1 with its *source and *nbytes, else 0. */
  int32_t (*iprobe)(void *user_data, int32_t tag, int32_t *found, int32_t *source, size_t *nbytes);
  /** *done = 1 once @p request completed (the request is then released), else 0. */
  int32_t (*test)(void *user_data, int64_t request, int32_t *done);
  /** Collective: values[i] becomes the minimum of values[i] over all ranks. */
  int32_t (*allreduce_min)(void *user_data, int64_t *values, int32_t n);
  /** Collective: rank @p root's data[0..nbytes) is copied to every rank's data. */
  int32_t (*bcast)(void *user_data, void *data, size_t nbytes, int32_t root);
} ca_transport_t;

/** Where results go (ca_dist_options_t.results). */
typedef enum ca_dist_results_t CA_ENUM32 {
  /** Every result is sent to rank `root`; other ranks get NULL. */
  CA_DIST_RESULTS_GATHER = 0,
  /** Each result stays on the rank that computed it (NULL elsewhere): for distributed sinks. */
  CA_DIST_RESULTS_LOCAL = 1,
  CA_DIST_RESULTS__FORCE32 = 0x7fffffff /**< makes the enum 32 bits wide; not a value */
} ca_dist_results_t;

/** Placement policies (ca_dist_options_t.placement). Both split tasks without inputs (data
 *  sources: from_zarr, random, creation, in-memory data) into contiguous ranges of each layer's
 *  blocks, one range per rank, so each rank reads or generates its own blocks. */
typedef enum ca_placement_t CA_ENUM32 {
  /** Every other task runs on the rank holding most of its input bytes (estimated at plan time the
   *  same way on every rank; for a rechunk's output block, the bytes of the pieces it takes from each
   *  input; ties: the first such input's rank). Reductions combine locally first, then across ranks
   *  along the tree. The default. */
  CA_PLACEMENT_LOCALITY = 0,
  /** Every other task goes to rank (task number mod size): a locality-blind baseline to measure
   *  the locality policy against. */
  CA_PLACEMENT_ROUND_ROBIN = 1,
  /** As CA_PLACEMENT_LOCALITY but counting inputs instead of weighing their bytes (the rank holding
   *  most inputs): the second baseline. */
  CA_PLACEMENT_LOCALITY_COUNT = 2,
  CA_PLACEMENT__FORCE32 = 0x7fffffff /**< makes the enum 32 bits wide; not a value */
} ca_placement_t;

/** What one rank did in a distributed compute (filled on return, also on failure). */
typedef struct ca_dist_stats {
  uint32_t struct_size;       /**< sizeof(ca_dist_stats_t), set by the caller */
  int32_t rank; /**< this rank */
  int64_t tasks;              /**< tasks this rank ran */
  int64_t plan_tasks;         /**< tasks of the whole plan (all ranks) */
  int64_t blocks_sent;        /**< blocks sent to other ranks (a block once per receiving rank) */
  int64_t blocks_received; /**< blocks received from other ranks */
  int64_t bytes_sent;         /**< block data bytes sent (headers not counted) */
  int64_t bytes_received; /**< bytes received from other ranks */
  int64_t wait_us;            /**< time the communication loop slept with nothing to do */
  /** Of `tasks`, those another rank also ran: generated blocks (random, creation) this rank made
   *  again rather than receive them (CA_PLACEMENT_LOCALITY). Summed over ranks, tasks minus
   *  tasks_replicated is plan_tasks. Added in 1.1: a caller whose struct_size ends before it
   *  does not get it. */
  int64_t tasks_replicated;
  /** Most bytes of results this rank held at once (its own and those received, until their last
   *  local consumer ran; outputs it keeps count to the end). Added in 1.1. */
  int64_t peak_bytes;
} ca_dist_stats_t;

/** Options of the distributed computes (ca_dist_compute(), ca_dist_array_*). */
typedef struct ca_dist_options {
  uint32_t struct_size;               /**< sizeof(ca_dist_options_t) */
  const ca_transport_t *transport;    /**< borrowed; required by ca_dist_compute() */
  ca_dist_results_t results;          /**< CA_DIST_RESULTS_GATHER (default) or _LOCAL */
  int32_t root;                       /**< GATHER: the receiving rank (default 0) */
  ca_placement_t placement;           /**< CA_PLACEMENT_LOCALITY (default) or _ROUND_ROBIN */
  ca_dist_stats_t *stats;             /**< borrowed, may be NULL: this rank's statistics */
} ca_dist_options_t;

#define CA_DIST_OPTIONS_INIT {sizeof(ca_dist_options_t), NULL, CA_DIST_RESULTS_GATHER, 0, CA_PLACEMENT_LOCALITY, NULL}

/**
 * Compute @p keys of @p graph across the ranks of @p transport. Collective: every rank calls it
 * with the same graph and keys (checked first: a plan hash is compared, and a rank whose graph or
 * keys differ makes every rank return CA_EINVAL "the graph or keys given to rank R differ from
 * rank 0's ...").
 * @param results caller's array of @p nkeys pointers; each receives an owned block (ca_block_free)
 *        where the results mode puts it (GATHER: all on the root, NULL elsewhere; LOCAL: on the
 *        rank that computed it), NULL otherwise. On failure every entry is NULL.
 * @param ctx this rank's context (its threads run this rank's tasks; its kernels must include
 *        every kernel the graph uses).
 * @param opts borrowed, may be NULL: progress and cancellation. On the root (dopts->root) progress
 *        counts every rank's tasks done out of the whole plan's (the other ranks send their counts
 *        at most once per progress interval); on the other ranks, their own tasks. Cancelling on
 *        any rank cancels every rank.
 * @param dopts borrowed, must not be NULL; dopts->transport must not be NULL.
 * @return CA_OK on every rank, or the same failure on every rank: a kernel failing on any rank
 *         makes every rank return that rank's status and message (the lowest such rank's when
 *         several fail); CA_ECANCELED; CA_EINVAL (NULL arguments, a bad option, different graphs);
 *         CA_EIO (a transport call failed: other ranks may then not return — an MPI transport's
 *         default error handler ends the job); plus everything ca_compute() returns.
 *         NULL ctx, graph, dopts or transport: CA_EINVAL (not collective: call it on every rank).
 */
CA_API ca_status_t ca_dist_compute(ca_block_t **results, ca_context_t *ctx, const ca_graph_t *graph,
                                   const ca_key_t *keys, size_t nkeys, const ca_compute_options_t *opts,
                                   const ca_dist_options_t *dopts);

/** What one rank would do (ca_dist_plan()). Bytes are plan-time estimates: exact for in-memory
 *  data, elements x 8 for layers with chunk metadata whose dtype the plan does not know, 1 MiB for
 *  a source block without metadata (see docs/distributed.md). */
typedef struct ca_dist_rank_plan {
  uint32_t struct_size;   /**< sizeof(ca_dist_rank_plan_t), set by the library */
  int32_t rank; /**< the rank this plan is for */
  int64_t tasks;          /**< tasks it runs */
  int64_t blocks_in;      /**< blocks it receives from other ranks */
  int64_t blocks_out;     /**< blocks it sends (once per receiving rank) */
  int64_t bytes_in;       /**< estimated bytes of the blocks it receives */
  int64_t bytes_out;      /**< estimated bytes of the blocks it sends */
  int64_t peak_blocks;    /**< most results it holds at once, running its tasks in a topological order */
  int64_t peak_bytes;     /**< estimated bytes of those results at their peak */
  /** Of `tasks`, those another rank also runs (generated blocks made again on each rank needing
   *  them instead of being sent; see ca_dist_stats_t.tasks_replicated). Added in 1.1. */
  int64_t tasks_replicated;
} ca_dist_rank_plan_t;

/** What ca_dist_plan() projects. */
typedef struct ca_dist_plan_options {
  uint32_t struct_size;       /**< sizeof(ca_dist_plan_options_t) */
  int32_t nranks;             /**< 1..1048576 */
  ca_placement_t placement;   /**< CA_PLACEMENT_* (default LOCALITY) */
  ca_dist_results_t results;  /**< where results go (default GATHER) */
  int32_t root;               /**< GATHER: the receiving rank (default 0) */
  uint32_t rank_plan_size;    /**< sizeof(ca_dist_rank_plan_t) as the caller knows it (0: the 1.0
                                   layout, which ends before tasks_replicated) */
} ca_dist_plan_options_t;

#define CA_DIST_PLAN_OPTIONS_INIT \
  {sizeof(ca_dist_plan_options_t), 1, CA_PLACEMENT_LOCALITY, CA_DIST_RESULTS_GATHER, 0, sizeof(ca_dist_rank_plan_t)}

/**
 * Plan a distributed compute on paper: the placement on popts->nranks ranks and what each rank
 * would do, without running anything or any transport.
 * @param out caller's array of popts->nranks entries of popts->rank_plan_size bytes each, filled;
 *        not NULL. @param popts not NULL (CA_EINVAL). @param keys may be NULL only with nkeys 0.
 * @return CA_OK; CA_EINVAL (NULL out/graph/popts, NULL keys with nkeys > 0, nranks outside
 *         1..1048576, unknown placement or results mode, root outside the ranks, a rank_plan_size
 *         smaller than the first two fields, a distributed array of another number of ranks);
 *         CA_ENOTFOUND / CA_ECYCLE / CA_ENOMEM as ca_compute() when building the plan.
 */
CA_API ca_status_t ca_dist_plan(ca_dist_rank_plan_t *out, const ca_graph_t *graph, const ca_key_t *keys,
                                size_t nkeys, const ca_dist_plan_options_t *popts);

/* ---- arrays ---------------------------------------------------------------------------------------
 * The array-level distributed calls. Each is collective (every rank calls it with the same array and
 * options) and returns the same status and message on every rank, as ca_dist_compute(). dopts may be
 * NULL only in libchunkarray_mpi's wrappers (ca_mpi_array_*), which supply the transport; here
 * dopts->transport is required. dopts->results is ignored (each call decides where results go). */

/**
 * The whole array, assembled on rank dopts->root (ca_array_compute() across ranks). The root
 * receives every block (only the root holds the result: bounded by one copy of the array there).
 * @param out receives the owned block on the root, NULL on the other ranks and on failure.
 * @param ctx this rank's context; @param a the array (borrowed; the same on every rank).
 * @param opts borrowed, may be NULL (defaults; progress and cancellation as ca_dist_compute()).
 * @param dopts borrowed, not NULL; dopts->transport must not be NULL (CA_EINVAL otherwise).
 * @return as ca_dist_compute(); CA_EINVAL also for NULL out or a, or unknown chunk sizes.
 */
CA_API ca_status_t ca_dist_array_compute(ca_block_t **out, ca_context_t *ctx, const ca_array_t *a,
                                         const ca_compute_options_t *opts, const ca_dist_options_t *dopts);

/**
 * Distributed persist: compute @p a and keep each block on the rank that computed it. The result
 * (the same array on every rank: same name, chunks, dtype) holds this rank's blocks only; a later
 * distributed compute over the same ranks and transport size uses them in place (each such block's
 * task runs on its home rank; no block moves unless a consumer elsewhere needs it). Computing it
 * without a distributed compute, or on another number of ranks, fails with CA_EINVAL naming the
 * array; it cannot be saved to a graph file (CA_EUNSUPPORTED).
 * @param out receives the array (owned, ca_array_free) on every rank; NULL on failure.
 * @param ctx this rank's context; @param a the array (borrowed; the same on every rank).
 * @param opts borrowed, may be NULL (defaults; progress and cancellation as ca_dist_compute()).
 * @param dopts borrowed, not NULL; dopts->transport must not be NULL (CA_EINVAL otherwise).
 * @return as ca_dist_compute(); CA_EINVAL also for NULL out or a, or unknown chunk sizes.
 */
CA_API ca_status_t ca_dist_array_persist(ca_array_t **out, ca_context_t *ctx, const ca_array_t *a,
                                         const ca_compute_options_t *opts, const ca_dist_options_t *dopts);

/**
 * Distributed store: every rank hands the blocks it computed to its own @p sink as soon as each is
 * computed (ca_array_store() semantics per rank: concurrently on worker threads, each block of
 * the array exactly once over all ranks, then released). Nothing is gathered.
 * @param sink not NULL (CA_EINVAL); @param user_data passed to @p sink, may be NULL.
 * @param ctx this rank's context; @param a the array (borrowed; the same on every rank).
 * @param opts borrowed, may be NULL (defaults; progress and cancellation as ca_dist_compute()).
 * @param dopts borrowed, not NULL; dopts->transport must not be NULL (CA_EINVAL otherwise).
 * @return as ca_dist_compute(); a sink's failure on one rank ends every rank with that status and
 *         message; CA_EINVAL also for NULL a or sink.
 */
CA_API ca_status_t ca_dist_array_store(ca_context_t *ctx, const ca_array_t *a, ca_store_fn sink, void *user_data,
                                       const ca_compute_options_t *opts, const ca_dist_options_t *dopts);

/**
 * Distributed to_zarr: rank dopts->root writes the metadata (.zarray, .zattrs) first, then every
 * rank writes the chunk files of the blocks it computed (no gather). Same store layout, options and
 * result as ca_array_to_zarr() (a block boundary off the store chunks is rechunked first). The path
 * must be on a file system every rank sees (a cluster's shared file system).
 * @param path not NULL (CA_EINVAL); @param zopts borrowed, may be NULL (ca_array_to_zarr()'s defaults).
 * @param ctx this rank's context; @param a the array (borrowed; the same on every rank).
 * @param opts borrowed, may be NULL (defaults; progress and cancellation as ca_dist_compute()).
 * @param dopts borrowed, not NULL; dopts->transport must not be NULL (CA_EINVAL otherwise).
 * @return as ca_array_to_zarr() and ca_dist_compute(): a failure to create the store on the root
 *         (CA_EEXISTS without overwrite, CA_EIO) is returned by every rank before anything runs.
 */
CA_API ca_status_t ca_dist_array_to_zarr(ca_context_t *ctx, const ca_array_t *a, const char *path,
                                         const ca_zarr_options_t *zopts, const ca_compute_options_t *opts,
                                         const ca_dist_options_t *dopts);

#ifdef __cplusplus
}
#endif

#endif /* CHUNKARRAY_DIST_H */
