/*
 * chunkarray over MPI: libchunkarray_mpi (pkg-config chunkarray-mpi), a separate library so that
 * libchunkarray itself never loads libmpi. It provides a transport (chunkarray/dist.h) over an MPI
 * communicator; the distributed engine itself is in libchunkarray (ca_dist_*).
 *
 * This header does not include <mpi.h>: a communicator crosses the ABI as its Fortran handle,
 * MPI_Comm_c2f(comm) widened to int64_t (mpi4py: comm.py2f(); C: (ca_mpi_comm_t)MPI_Comm_c2f(c)).
 *
 * Threads: every MPI call is made by the thread that called the ca_mpi_ / ca_dist_ function, never
 * by the context's workers, so MPI_THREAD_FUNNELED suffices when that is the main thread
 * (MPI_THREAD_SERIALIZED otherwise).
 *
 * Example (every rank runs the same program):
 * @code
 *   int32_t rank, size;
 *   ca_mpi_init(&rank, &size);
 *   ca_graph_t *g; ca_load_options_t lo = CA_LOAD_OPTIONS_INIT; lo.path = "pipeline.cagraph"; ca_load(&g, NULL, NULL, &lo);
 *   ca_block_t *out[1];
 *   ca_mpi_compute(out, ctx, ca_mpi_comm_world(), g, &key, 1, NULL, NULL);  // out[0] on rank 0
 *   ca_mpi_finalize();
 * @endcode
 */
#ifndef CHUNKARRAY_MPI_H
#define CHUNKARRAY_MPI_H

#include <stddef.h>
#include <stdint.h>

/* libchunkarray_mpi is built on the experimental distributed API (chunkarray/experimental.h): this
 * header opts in for its users. */
#ifndef CA_EXPERIMENTAL
#define CA_EXPERIMENTAL 1
#endif
#include "chunkarray/dist.h"

#ifdef __cplusplus
extern "C" {
#endif

/** An MPI communicator as its Fortran handle (MPI_Comm_c2f), widened. */
typedef int64_t ca_mpi_comm_t;

/**
 * Initialize MPI (MPI_Init_thread asking for MPI_THREAD_FUNNELED) unless it already is; report this
 * process's rank and the size of MPI_COMM_WORLD.
 * @param rank, size out, may be NULL.
 * @return CA_OK; CA_EIO (MPI_Init_thread failed, or MPI was already finalized).
 */
CA_API ca_status_t ca_mpi_init(int32_t *rank, int32_t *size);

/** Finalize MPI if ca_mpi_init() initialized it (else nothing). @return CA_OK; CA_EIO. */
CA_API ca_status_t ca_mpi_finalize(void);

/** MPI_COMM_WORLD's handle (valid once MPI is initialized). */
CA_API ca_mpi_comm_t ca_mpi_comm_world(void);

/**
 * A transport over (a duplicate of) @p comm: collective over @p comm. The duplicate keeps
 * chunkarray's messages apart from the caller's. Free with ca_mpi_transport_free() (collective).
 * @param out receives the transport (owned); NULL on failure.
 * @return CA_OK; CA_EINVAL (NULL out, or a handle that is not a communicator); CA_EIO (MPI not
 *         initialized, or an MPI call failed).
 */
CA_API ca_status_t ca_mpi_transport_new(ca_transport_t **out, ca_mpi_comm_t comm);

/** Free a transport (collective over its communicator). NULL is a no-op. */
CA_API void ca_mpi_transport_free(ca_transport_t *transport);

/**
 * ca_dist_compute() over @p comm: collective; every rank passes the same graph and keys.
 * @param dopts borrowed, may be NULL (results gathered to rank 0, locality placement); its transport
 *        field is ignored (a transport over @p comm is used).
 * @return as ca_dist_compute(), plus CA_EIO when MPI is not initialized.
 */
CA_API ca_status_t ca_mpi_compute(ca_block_t **results, ca_context_t *ctx, ca_mpi_comm_t comm,
                                  const ca_graph_t *graph, const ca_key_t *keys, size_t nkeys,
                                  const ca_compute_options_t *opts, const ca_dist_options_t *dopts);

/* ---- arrays ---------------------------------------------------------------------------------------
 * ca_dist_array_*() over @p comm (collective: every rank passes the same array and options). dopts
 * may be NULL (locality placement, root 0); its transport field is ignored. Each returns what its
 * ca_dist_array_ counterpart returns, plus CA_EIO when MPI is not initialized, and CA_EINVAL for a
 * NULL ctx, a, out, sink or path (not collective: then call it on no rank). */

/** The whole array on rank dopts->root (default 0), NULL elsewhere (ca_dist_array_compute()). */
CA_API ca_status_t ca_mpi_array_compute(ca_block_t **out, ca_context_t *ctx, ca_mpi_comm_t comm, const ca_array_t *a,
                                        const ca_compute_options_t *opts, const ca_dist_options_t *dopts);

/** Distributed persist: each block stays on the rank that computed it (ca_dist_array_persist()).
 *  @param out receives the array (owned) on every rank. */
CA_API ca_status_t ca_mpi_array_persist(ca_array_t **out, ca_context_t *ctx, ca_mpi_comm_t comm, const ca_array_t *a,
                                        const ca_compute_options_t *opts, const ca_dist_options_t *dopts);

/** Every rank hands the blocks it computed to its own sink (ca_dist_array_store()). */
CA_API ca_status_t ca_mpi_array_store(ca_context_t *ctx, ca_mpi_comm_t comm, const ca_array_t *a, ca_store_fn sink,
                                      void *user_data, const ca_compute_options_t *opts,
                                      const ca_dist_options_t *dopts);

/** Every rank writes the chunks of the blocks it computed; the root writes the metadata first
 *  (ca_dist_array_to_zarr()). @p path must be on a file system every rank sees. */
CA_API ca_status_t ca_mpi_array_to_zarr(ca_context_t *ctx, ca_mpi_comm_t comm, const ca_array_t *a, const char *path,
                                        const ca_zarr_options_t *zopts, const ca_compute_options_t *opts,
                                        const ca_dist_options_t *dopts);

#ifdef __cplusplus
}
#endif

#endif /* CHUNKARRAY_MPI_H */
