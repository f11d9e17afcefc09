// The index-map layer (LayerKind::IndexMap): the symbolic form of the structural operations flip,
// concatenate, stack, pad, repeat and tile (array/shape.cpp).
//
// Every output block is a piece of one input block (or a constant block). The map is separable:
// along each output axis d, output block i is described by one segment (segment(d, i)) saying which
// input block it comes from along d and how (whole, a strided run, constant, a repeated slab); the
// task of output block (i0, i1, ...) combines the segments of its index. The task of a block is, by
// the kinds of its segments:
//   any Fill           ca.shape.fill((count per axis), fill dtype, fill value bytes)
//   else any Repeat    ca.shape.repeat(key, axis, start, start + count, repeats)
//   else any Strided   ca.shape.strided(key, (start, step, count) per axis; Whole axes (0, 1, count))
//   else               ca.identity(key)
// where key is block (segment.block per axis) of dependency deps()[s], s = the select axis's segment
// input (concatenate), or 0 when the layer has no select axis (one input).
//
// The segments are not stored one per block: each axis holds a short list of RUNS (IndexMapRun), a
// run being a formula for a range of consecutive output blocks. A run's input block is affine in the
// output block (block + bstep * j for the run's j-th block, bstep in {-1, 0, 1}), modular (block +
// j mod bstep: tile) or the slabs of dask's repeat (Slabs); its start/step/count are literal, or
// derived from a chunk table (the input's chunks along the axis, spec.tables) when they depend on the
// block's size: Whole: (0, 1, len); Strided with step -1: (len - 1, -1, len), the reversed block
// (flip, reflect); Repeat/Slabs: the k-th slab of the block. So flip, concatenate/stack of k inputs,
// pad, repeat and tile store O(k) runs (O(1) for one input) whatever the number of blocks, in memory
// and in graph files. The chunk tables are copies of the input arrays' chunks along the axes (8 bytes
// per input block, one table per distinct chunk list, shared by the runs and axes that use it);
// they are what the file stores beyond the runs.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/dtype.hpp"
#include "graph/layer.hpp"

namespace ca {

/// One output block's segment along one axis (the derived, per-block view of a run).
struct IndexMapSeg {
  enum Kind : int32_t { Whole = 0, Strided = 1, Fill = 2, Repeat = 3 };
  int32_t kind = Whole;
  int32_t input = 0;  ///< dependency slot (read on the select axis only; 0 elsewhere)
  Index block = 0;    ///< the input block along this axis (not Fill)
  Index start = 0;    ///< Strided: first element; Repeat: slab start
  Index step = 1;     ///< Strided only
  Index count = 0;    ///< elements along the axis (Repeat: of the input slab; -1: unknown, Whole only)
  bool operator==(const IndexMapSeg &) const = default;
};

/// A formula for `n` consecutive output blocks along one axis (index_map.hpp's comment).
struct IndexMapRun {
  enum Rule : int32_t { Affine = 0, Modular = 1, Slabs = 2 };
  int32_t kind = IndexMapSeg::Whole;  ///< the segments' kind
  int32_t rule = Affine;              ///< how the input block follows the output block
  int32_t input = 0;                  ///< dependency slot (non-zero only on the select axis)
  int32_t table = -1;                 ///< spec.tables entry the sizes derive from; -1: literal fields
  Index n = 1;                        ///< output blocks (>= 1)
  Index block = 0;                    ///< the input block of the run's first output block (Slabs: 0)
  Index bstep = 1;                    ///< Affine: -1, 0 or 1; Modular: the period (>= 1); Slabs: 0
  Index start = 0;                    ///< literal fields (table < 0), as IndexMapSeg's; with a table
  Index step = 1;                     ///< start = count = 0 and step is 1 (Strided: 1 or -1, -1 the
  Index count = 0;                    ///< reversed block)
  bool operator==(const IndexMapRun &) const = default;
};

using IndexTable = std::shared_ptr<const std::vector<Index>>;

struct IndexMapSpec {
  std::vector<std::string> inputs;             ///< dependency slots (layer names), at least one
  std::vector<std::vector<IndexMapRun>> runs;  ///< per output axis: its runs, in output-block order
  std::vector<IndexTable> tables;              ///< chunk tables (input chunks along an axis; -1 unknown)
  /// The per-block form (one segment per output block per axis; graph files written before runs):
  /// make_index_map_layer turns it into literal runs. Empty when `runs` is given.
  std::vector<std::vector<IndexMapSeg>> axes;
  int32_t select_axis = -1;  ///< the axis whose segments pick the input, -1: none
  DType fill_dtype = 0;      ///< Fill segments: the block dtype (0 without Fill)
  std::string fill_value;    ///< Fill segments: one element's bytes
  int64_t repeats = 0;       ///< Repeat segments: the repeat count
};

/// Kernel names an index-map layer may use (its kernel slots are the subset it uses, in this order).
inline constexpr const char *kIndexMapKernels[4] = {"ca.identity", "ca.shape.strided", "ca.shape.fill",
                                                    "ca.shape.repeat"};

/// The slabs dask's repeat cuts a block of `c` elements at element offset `off` into, `repeats`
/// (>= 2) times: round(linspace(off, off + c, repeats)) without repeated points (repeats > c: the
/// single elements). repeat_slab_count is their number; repeat_slab the k-th as (start, count)
/// within the block. Exact (the float rounding of NumPy's linspace), O(1) unless consecutive points
/// could round alike.
Index repeat_slab_count(Index c, Index off, int64_t repeats);
void repeat_slab(Index c, Index off, int64_t repeats, Index k, Index *start, Index *count);

/// Appends output block `g`'s segment to an axis's runs, extending the last run when g continues it
/// (same fields, input block moving by -1, 0 or +1). With a chunk table (`table` its index in
/// spec.tables, `tab` its contents), a segment whose fields the table derives (Whole: the block;
/// Strided step -1: the reversed block) is stored as a table run, else literally. O(1).
void index_map_push_segment(std::vector<IndexMapRun> &runs, const IndexMapSeg &g, int32_t table,
                            const std::vector<Index> *tab);

/// The index-map layer `name` from its spec. Checks the spec (CA_EINVAL naming the problem): at most
/// CA_MAX_NDIM axes, at least one block per axis, a task count below 2^62, known kinds and rules,
/// runs of at least one block whose input blocks and table indices are in range, input slots in
/// range (non-zero only on the select axis; more than one input needs a select axis), non-negative
/// literal starts and counts (-1 allowed for a Whole count: an unknown size), tables whose entries
/// are >= -1 (known where a run strides or repeats), a valid fill dtype and value when a Fill
/// segment exists, repeats >= 0 (>= 2 for Slabs runs) and at most one Repeat axis. A spec in the
/// per-block form (`axes`) is turned into runs first.
std::shared_ptr<Layer> make_index_map_layer(std::string name, IndexMapSpec spec);
/// The spec of an index-map layer (l.kind() must be LayerKind::IndexMap; CA_EINTERNAL otherwise).
const IndexMapSpec &index_map_spec(const Layer &l);
/// Output block i's segment along axis d of an index-map layer (0 <= d < nindex, 0 <= i <
/// numblocks()[d]; CA_EINTERNAL otherwise, or when l is not one). O(log runs).
IndexMapSeg index_map_segment(const Layer &l, int32_t d, Index i);

}  // namespace ca
