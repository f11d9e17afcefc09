// The distributed executor: one rank's part of an SPMD compute (chunkarray/dist.h).
//
// Every rank builds the same plan and placement (dist/placement.hpp) and runs only its own tasks
// as a partial run of the ordinary executor (exec/executor.hpp): the results of other ranks' tasks
// its tasks need are Remote tasks, provided as they arrive; its results other ranks need are
// exported the moment they exist. Workers never touch the transport: they queue exports, and the
// thread that called compute() (waiting for the run) posts non-blocking sends, receives, and
// provides, so computation and communication overlap.
//
// Protocol (per compute; tags): 1 header {task, dtype, ndim, shape} then 2 the block's bytes, in
// that order between two ranks; 3 abort {code, origin rank, message}; 4 count {headers, aborts,
// progress messages sent to you}, once at the end; 5 progress {tasks done} to the root, at most once
// per progress interval when the root's caller asked for progress (the root reports the sum over
// ranks of the whole plan). A local failure (kernel, cancellation) is sent to every rank as an
// abort, which fails their runs with the same status and message. At the end every rank drains:
// it sends each peer the counts of what it sent and receives until it got as much from every peer,
// so no message of this compute is left for the next one; then an allreduce picks the lowest rank
// whose own failure it was, and that rank's status and message are broadcast so every rank returns
// the same.
#pragma once

#ifndef CA_EXPERIMENTAL
#define CA_EXPERIMENTAL 1  // the engine implements the experimental API (chunkarray/experimental.h)
#endif
#include <chunkarray/dist.h>

#include <vector>

#include "exec/executor.hpp"

namespace ca::dist {

struct Options {
  ca_dist_results_t results = CA_DIST_RESULTS_GATHER;
  int32_t root = 0;
  ca_placement_t placement = CA_PLACEMENT_LOCALITY;
};

/// Run `plan` across the ranks of `tr` (collective). Returns one entry per plan output: an owned
/// block where the results mode keeps it on this rank, else nullptr. Throws Error with the same
/// code and message on every rank (see above). `stats` may be null.
std::vector<Block *> compute(Executor &ex, Plan &plan, const RunOptions &base, const ca_transport_t &tr,
                             const Options &opts, ca_dist_stats_t *stats);

}  // namespace ca::dist
