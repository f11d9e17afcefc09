// rechunk: dask.array's rechunk (dask/array/rechunk.py) over this library's model.
//
// A rechunk from old to new chunks is planned the way dask plans it (plan_rechunk): when a direct
// rechunk would cross too many old and new blocks (the graph-size heuristic: estimate_graph_size
// against threshold * (old blocks + new blocks)), intermediate chunkings are chosen by merging
// (find_merge_rechunk, divide_to_width) and splitting (find_split_rechunk, merge_to_number) so that
// no intermediate block exceeds the block-size limit (the context's array.chunk-size). Each stage is
// one materialized layer whose task assembles one new block from the pieces of the old blocks it
// overlaps (`ca.assemble`): dask's split + concatenate, without a task per piece. A new block equal
// to an old block is that block, shared (`ca.identity`).
//
// The graph-size heuristic is dask's, measured in this library's costs. In dask every piece is a
// task (tens of microseconds, a Python tuple); here a piece is one entry of an assemble task's
// argument list (about 100 bytes, no scheduling), while every stage is one more pass over the data
// and holds its input and output blocks at once. So by default (threshold 0) a rechunk is direct
// unless it would have more than kMaxDirectPieces pieces, and only then planned by dask's
// plan_rechunk with dask's default threshold 4. An explicit threshold > 0 applies dask's heuristic
// exactly. Whatever the threshold, an input whose blocks are already held in memory (a data layer:
// persisted, or from a buffer) is rechunked directly up to kMaxDirectPieces pieces: its blocks are
// resident anyway, so one stage holds only the new blocks in flight, while intermediate stages
// would all be produced as soon as their (always ready) inputs are, the executor running ready
// tasks eagerly.
#pragma once

#include <string>
#include <vector>

#include "array/array.hpp"

namespace ca {

struct RechunkOptions {
  /// Largest intermediate block in bytes (dask's block_size_limit / array.chunk-size); also the
  /// target size of "auto" dimensions. Raised to the largest old or new block when smaller.
  Index block_size_limit = Index(128) << 20;
  /// dask's array.rechunk-threshold: the graph growth factor under which no intermediate stage is
  /// planned. 0: direct up to kMaxDirectPieces pieces, beyond that dask's plan with threshold 4.
  double threshold = 0.0;
  /// dask's balance=True: even out block sizes (drops small leftover blocks).
  bool balance = false;
};

/// Pieces above which a rechunk is planned in stages by default (about 25 MiB of graph).
constexpr Index kMaxDirectPieces = Index(1) << 18;

// ---- dask's planner (exact ports; sizes in elements) ------------------------------------------

/// Number of pieces (old-block x new-block intersections) of a direct rechunk.
double estimate_graph_size(const Chunks &old_chunks, const Chunks &new_chunks);
/// Minimally divide each chunk so none is wider than max_width.
std::vector<Index> divide_to_width(const std::vector<Index> &desired, Index max_width);
/// Minimally merge adjacent chunks to at most max_number, minimizing the widest.
std::vector<Index> merge_to_number(const std::vector<Index> &desired, Index max_number);
/// An intermediate that merges adjacent blocks towards new_chunks within block_size_limit
/// (elements); *memory_limit_hit tells whether the limit stopped a full merge.
Chunks find_merge_rechunk(const Chunks &old_chunks, const Chunks &new_chunks, double block_size_limit,
                          bool *memory_limit_hit);
/// An intermediate that splits blocks towards new_chunks within graph_size_limit.
Chunks find_split_rechunk(const Chunks &old_chunks, const Chunks &new_chunks, double graph_size_limit);
/// dask's plan_rechunk: the chunkings to go through, ending with new_chunks. block_size_limit in
/// bytes; threshold > 0.
std::vector<Chunks> plan_rechunk(const Chunks &old_chunks, const Chunks &new_chunks, Index itemsize,
                                 double threshold, Index block_size_limit);

/// The stages rechunk(a, chunks, opts) builds (empty when it returns `a` itself).
std::vector<Chunks> rechunk_stages(const Array &a, const Chunks &chunks, const RechunkOptions &opts);

// ---- chunk requests -----------------------------------------------------------------------------

/// dask's _balance_chunksizes for one dimension.
std::vector<Index> balance_chunksizes(const std::vector<Index> &chunks);

/// Resolve a dask-style rechunk request written as a Python literal, against the array's shape and
/// current chunks, exactly as dask's rechunk + normalize_chunks(previous_chunks=x.chunks) do:
///   "auto", "64MiB", "'1e6'" (auto with that limit), 5, -1 (whole), "(None, 5)" (None: keep the axis's chunks),
///   "(1000, -1)", "(None, 'auto')", "((2, 3, 4), 5)" (explicit), "{0: -1, 1: 'auto'}", "{-1: 10}".
/// `limit` (bytes) is the budget for auto dimensions unless the request gives a byte size.
/// Errors: CA_EINVAL naming the offending part (syntax, axis, size, sum).
Chunks rechunk_chunks(const Array &a, const std::string &spec, Index limit);

// ---- building -------------------------------------------------------------------------------------

/// Rechunk with dask's planning; returns `a` itself when nothing changes (also for an array whose
/// every dimension is empty, as dask does).
ArrayPtr rechunk(const ArrayPtr &a, const Chunks &chunks, const RechunkOptions &opts);
/// rechunk(a, rechunk_chunks(*a, spec, opts.block_size_limit), opts).
ArrayPtr rechunk(const ArrayPtr &a, const std::string &spec, const RechunkOptions &opts);
/// One stage: every new block assembled from the old blocks it overlaps.
ArrayPtr rechunk_stage(const ArrayPtr &a, const Chunks &chunks);

void register_rechunk_kernels(KernelRegistry &reg);

}  // namespace ca
