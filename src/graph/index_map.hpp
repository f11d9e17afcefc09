// The index-map layer (LayerKind::IndexMap): the symbolic form of the structural operations flip,
// concatenate, stack, pad, repeat and tile (array/shape.cpp).
//
// Every output block is a piece of one input block (or a constant block). The map is separable:
// along each output axis d, output block i is described by one segment (axes[d][i]) saying which
// input block it comes from along d and how (whole, a strided run, constant, a repeated slab); the
// task of output block (i0, i1, ...) combines the segments of its index. So the layer stores
// O(sum of blocks per axis) numbers whatever the number of blocks (their product), and emits tasks
// on demand like BlockwiseLayer. The task of a block is, by the kinds of its segments:
//   any Fill           ca.shape.fill((count per axis), fill dtype, fill value bytes)
//   else any Repeat    ca.shape.repeat(key, axis, start, start + count, repeats)
//   else any Strided   ca.shape.strided(key, (start, step, count) per axis; Whole axes (0, 1, count))
//   else               ca.identity(key)
// where key is block (segment.block per axis) of dependency deps()[s], s = the select axis's segment
// input (concatenate), or 0 when the layer has no select axis (one input).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/dtype.hpp"
#include "graph/layer.hpp"

namespace ca {

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

struct IndexMapSpec {
  std::vector<std::string> inputs;              ///< dependency slots (layer names), at least one
  std::vector<std::vector<IndexMapSeg>> axes;   ///< per output axis: one segment per output block
  int32_t select_axis = -1;                     ///< the axis whose segments pick the input, -1: none
  DType fill_dtype = 0;                         ///< Fill segments: the block dtype (0 without Fill)
  std::string fill_value;                       ///< Fill segments: one element's bytes
  int64_t repeats = 0;                          ///< Repeat segments: the repeat count
};

/// Kernel names an index-map layer may use (its kernel slots are the subset it uses, in this order).
inline constexpr const char *kIndexMapKernels[4] = {"ca.identity", "ca.shape.strided", "ca.shape.fill",
                                                    "ca.shape.repeat"};

/// The index-map layer `name` from its spec. Checks the spec (CA_EINVAL naming the problem): at most
/// CA_MAX_NDIM axes, at least one block per axis, a task count below 2^62, known segment kinds,
/// input slots in range (non-zero only on the select axis; more than one input needs a select axis),
/// non-negative blocks, starts and counts (-1 allowed for a Whole count: an unknown size), a valid
/// fill dtype and value when a Fill segment exists, repeats >= 0 and at most one Repeat axis.
std::shared_ptr<Layer> make_index_map_layer(std::string name, IndexMapSpec spec);
/// The spec of an index-map layer (l.kind() must be LayerKind::IndexMap; CA_EINTERNAL otherwise).
const IndexMapSpec &index_map_spec(const Layer &l);

}  // namespace ca
