/**
 * @file chunkarray/experimental.h
 * @brief API that is not yet stable: declared only when CA_EXPERIMENTAL is defined.
 *
 * zstd's ZSTD_STATIC_LINKING_ONLY model. Functions here are exported by libchunkarray.so.1 like
 * every other, but their signatures, structs and behaviour may change in any minor version without
 * a deprecation period and without a soname change; the abidiff baseline (abi/) records them, and a
 * change to them updates the baseline deliberately (docs/abi.md). A program that uses them defines
 * CA_EXPERIMENTAL before including any chunkarray header and builds against the exact library
 * version it runs with:
 * @code
 *   #define CA_EXPERIMENTAL
 *   #include <chunkarray/chunkarray.h>
 * @endcode
 * Without CA_EXPERIMENTAL this header declares nothing, and including an experimental header
 * directly (chunkarray/dist.h) is an error.
 *
 * Experimental today:
 * - chunkarray/dist.h: distributed (SPMD) compute over a pluggable transport, ca_dist_compute() and
 *   ca_dist_plan() (issue 20: the transport table and the plan struct follow the MPI work), and
 *   what builds on it (chunkarray/mpi.h, libchunkarray_mpi).
 * An experimental function becomes stable by moving to its module's header (the ABI rules of
 * docs/abi.md apply from then on).
 */
#ifndef CHUNKARRAY_EXPERIMENTAL_H
#define CHUNKARRAY_EXPERIMENTAL_H

#include "chunkarray/common.h"

#endif /* CHUNKARRAY_EXPERIMENTAL_H */

/* Outside the include guard, as zstd does: a translation unit that included this header before
 * defining CA_EXPERIMENTAL still gets the experimental declarations when it includes it again. */
#if defined(CA_EXPERIMENTAL) && !defined(CHUNKARRAY_EXPERIMENTAL_H_DECLARED)
#define CHUNKARRAY_EXPERIMENTAL_H_DECLARED
#include "chunkarray/dist.h"
#endif
