// Placement for distributed runs: an owner rank for every task of a plan, computed on every rank
// from the plan alone (deterministic, no communication), so all ranks agree on who runs what.
//
// Tasks without inputs (data sources) are split by block: each layer's blocks in contiguous ranges,
// one per rank, so a rank reads or generates its own blocks and neighbours stay together (when their
// first consumer is a smaller layer — a reduction level — that layer is split instead and sources
// follow their consumer). Every other task follows the policy. A policy is one function; add one by adding a case to place().
#pragma once

#ifndef CA_EXPERIMENTAL
#define CA_EXPERIMENTAL 1  // the engine implements the experimental API (chunkarray/experimental.h)
#endif
#include <chunkarray/dist.h>

#include <cstdint>
#include <vector>

#include "graph/plan.hpp"

namespace ca::dist {

/// The owner of each task of `plan` on `nranks` ranks under `policy` (CA_PLACEMENT_*).
/// CA_EINVAL for nranks < 1 or an unknown policy.
std::vector<int32_t> place(const Plan &plan, int32_t nranks, ca_placement_t policy);

/// One piece of a rechunk's assembly task (ca.assemble(out_shape, [key, geometry, ...])): the input
/// task and its geometry (src_start[ndim], dst_start[ndim], len[ndim], pointing into the plan).
struct AssemblyPiece {
  int32_t task;
  int32_t ndim;
  const int64_t *geom;
};
/// The pieces of task `t` if it is a rechunk's assembly, else false.
bool assembly_pieces(const Plan &plan, int32_t t, std::vector<AssemblyPiece> &out);

/// Bytes assumed per element where a layer's dtype is not known at plan time.
constexpr int64_t kAssumedItemBytes = 8;
/// Bytes assumed for a block of a source task whose size is not known at plan time.
constexpr int64_t kNominalBlockBytes = int64_t(1) << 20;

/// Estimated result bytes of every task, known on every rank without running anything: data layers
/// exactly; layers with chunk metadata (symbolic sources such as from_zarr and random, elementwise
/// and reduction layers; a reduction's first step without its reduced axes) as elements x
/// kAssumedItemBytes; a rechunk's assembly as the sum of its
/// pieces; a source without metadata as kNominalBlockBytes; anything else as its largest input.
std::vector<double> estimate_bytes(const Plan &plan);

/// The plan's tasks in a topological order (dependencies first; task ids are discovery order).
std::vector<int32_t> topo_order(const Plan &plan);

/// Name of a policy ("locality", "round-robin"), nullptr if unknown.
const char *policy_name(ca_placement_t policy);

/// What each rank does under `owner` with results gathered to `root` or kept where computed
/// (ca_dist_plan()); bytes from estimate_bytes().
std::vector<ca_dist_rank_plan_t> summarize(const Plan &plan, const std::vector<int32_t> &owner, int32_t nranks,
                                           int32_t root, ca_dist_results_t results);

/// A hash of what a plan computes (its layers' names and fingerprints, its task count and outputs):
/// equal on every rank given the same graph and keys.
uint64_t plan_hash(const Plan &plan);

}  // namespace ca::dist
