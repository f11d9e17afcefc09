// Placement for distributed runs: an owner rank for every task of a plan, computed on every rank
// from the plan alone (deterministic, no communication), so all ranks agree on who runs what.
//
// Tasks without inputs (data sources) are split by block: each layer's blocks in contiguous ranges,
// one per rank, so a rank reads or generates its own blocks and neighbours stay together (when their
// first consumer is a smaller layer — a reduction level — that layer is split instead and sources
// follow their consumer, unless the source is itself a reduction's first step: those keep the even
// split). Every other task follows the policy. A policy is one function; add one by adding a case to place().
#pragma once

#ifndef CA_EXPERIMENTAL
#define CA_EXPERIMENTAL 1  // the engine implements the experimental API (chunkarray/experimental.h)
#endif
#include <chunkarray/dist.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "graph/plan.hpp"

namespace ca::dist {

/// The owner of each task of `plan` on `nranks` ranks under `policy` (CA_PLACEMENT_*).
/// CA_EINVAL for nranks < 1 or an unknown policy. `rep`: replicated(plan, policy) when the caller
/// has it already (computed here otherwise).
std::vector<int32_t> place(const Plan &plan, int32_t nranks, ca_placement_t policy,
                           const std::vector<uint8_t> *rep = nullptr);

/// Under CA_DIST_RESULTS_GATHER: an output that is a transpose of another output (a Gram product's
/// block below the diagonal, the mirror of one above it) runs on `root` from the copy of its input
/// the root receives anyway, instead of beside its input and sent as well (W5 `x @ x.T` on 2 ranks:
/// 40 MB sent instead of 64 MB). Changes `owner` in place.
void transposed_outputs_at_root(const Plan &plan, std::vector<int32_t> &owner, int32_t root);

/// Tasks that every rank needing them runs itself instead of receiving them (only under
/// CA_PLACEMENT_LOCALITY; all 0 otherwise): builtin generators without inputs (random and creation
/// layers: a pure function of the block's index, cheaper to make again than to ship) and
/// transposes whose inputs are all such tasks. Nothing is sent for a replicated task: each rank
/// that needs it makes it (the tasks consuming it are placed as before, by where its bytes would be).
std::vector<uint8_t> replicated(const Plan &plan, ca_placement_t policy);

/// The ranks that run each task: its owner, or for a replicated task every rank with a consumer of
/// it and the rank keeping it when it is an output (sorted, the first is its "primary" runner).
/// `runners(t)` is {owner[t]} for tasks that are not replicated.
class Runners {
 public:
  Runners(const Plan &plan, const std::vector<int32_t> &owner, const std::vector<uint8_t> &rep, int32_t root,
          ca_dist_results_t results);
  /// The ranks running task t (a pointer and a count, valid while this object lives).
  std::pair<const int32_t *, size_t> of(int32_t t) const {
    if (!rep_.empty() && rep_[size_t(t)]) return {sets_[size_t(t)].data(), sets_[size_t(t)].size()};
    return {&owner_[size_t(t)], 1};
  }
  bool is_replicated(int32_t t) const { return !rep_.empty() && rep_[size_t(t)]; }
  bool runs_on(int32_t t, int32_t rank) const {
    auto s = of(t);
    return std::find(s.first, s.first + s.second, rank) != s.first + s.second;
  }
  /// Runs of replicated tasks beyond their primary runner, over all ranks.
  int64_t extra() const { return extra_; }

 private:
  const std::vector<int32_t> &owner_;
  std::vector<uint8_t> rep_;
  std::vector<std::vector<int32_t>> sets_;
  int64_t extra_ = 0;
};

/// One piece of a rechunk's assembly task (ca.assemble(out_shape, [key, geometry, ...])): the input
/// task and its geometry (src_start[ndim], dst_start[ndim], len[ndim], pointing into the plan).
struct AssemblyPiece {
  int32_t task;
  int32_t ndim;
  const int64_t *geom;
};
/// The pieces of task `t` if it is a rechunk's assembly, else false.
bool assembly_pieces(const Plan &plan, int32_t t, std::vector<AssemblyPiece> &out);

/// When every consumer of task `t` placed on rank `r` (by `owner`) is a rechunk's assembly: the
/// bounding box of the pieces they take from t's block (lo[nd], hi[nd], in elements), so only those
/// bytes need to travel to r; false when one of them takes the whole block (or none runs there).
bool piece_bounds(const Plan &plan, const std::vector<int32_t> &owner, int32_t t, int32_t r,
                  std::vector<AssemblyPiece> &scratch, std::vector<int64_t> &lo, std::vector<int64_t> &hi);

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

/// What each rank does under `owner` (of `policy`, which says what is replicated) with results
/// gathered to `root` or kept where computed (ca_dist_plan()); bytes from estimate_bytes().
std::vector<ca_dist_rank_plan_t> summarize(const Plan &plan, const std::vector<int32_t> &owner, int32_t nranks,
                                           int32_t root, ca_dist_results_t results, ca_placement_t policy);

/// A hash of what a plan computes (its layers' names and fingerprints, its task count and outputs):
/// equal on every rank given the same graph and keys.
uint64_t plan_hash(const Plan &plan);

}  // namespace ca::dist
