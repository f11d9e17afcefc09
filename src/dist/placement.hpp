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

/// The plan's tasks in a topological order (dependencies first; task ids are discovery order).
std::vector<int32_t> topo_order(const Plan &plan);

/// Name of a policy ("locality", "round-robin"), nullptr if unknown.
const char *policy_name(ca_placement_t policy);

/// What each rank does under `owner` with results gathered to `root` (ca_dist_plan()).
std::vector<ca_dist_rank_plan_t> summarize(const Plan &plan, const std::vector<int32_t> &owner, int32_t nranks,
                                           int32_t root);

/// A hash of what a plan computes (its layers' names and fingerprints, its task count and outputs):
/// equal on every rank given the same graph and keys.
uint64_t plan_hash(const Plan &plan);

}  // namespace ca::dist
