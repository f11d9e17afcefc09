// Overlapping blocks (dask/array/overlap.py): overlap, trim_internal, map_overlap.
//
// overlap() is one symbolic layer (OverlapLayer): task (i, j, ...) references the neighbour blocks
// (i+di, j+dj, ...) for di, dj in {-1, 0, 1} along the overlapped axes (periodic edges wrap, other
// edges reference nothing) and `ca.overlap_block` builds the extended block in one pass, boundary
// conditions included. dask instead concatenates boundary blocks to the array and slices neighbours
// with getitem tasks; the computed blocks and chunks are the same.
#pragma once

#include <chunkarray/overlap.h>

#include <string>
#include <vector>

#include "array/array.hpp"

namespace ca {

struct BoundarySpec {
  int32_t kind = CA_BOUNDARY_NONE;
  double value = 0.0;  // CA_BOUNDARY_CONSTANT
};

/// Per-axis depth: elements taken from the block before (lo) and after (hi).
struct Depth {
  std::vector<Index> lo, hi;
};

/// The per-axis geometry `ca.overlap_block` receives (an int64 tuple of kPerDim entries per axis:
/// active, lo, hi, left mode, right mode; lo/hi are 0 on a side that is not extended).
struct OverlapGeom {
  static constexpr int32_t kPerDim = 5;
  enum Mode : int32_t { kNeighbour = 0, kNone = 1, kReflect = 2, kNearest = 3, kConstant = 4 };
  /// The mode at the array's edge for a boundary kind (periodic edges reference a wrapped neighbour).
  static int32_t mode_of(int32_t boundary_kind) {
    switch (boundary_kind) {
      case CA_BOUNDARY_REFLECT: return kReflect;
      case CA_BOUNDARY_NEAREST: return kNearest;
      case CA_BOUNDARY_CONSTANT: return kConstant;
      case CA_BOUNDARY_PERIODIC: return kNeighbour;
      default: return kNone;
    }
  }
};

/// "none", "reflect", ...
const char *overlap_boundary_name(int32_t kind);

/// dask's ensure_minimum_chunksize: merge blocks smaller than `size` into their neighbours.
/// Throws CA_EINVAL when `size` exceeds the extent.
std::vector<Index> ensure_minimum_chunksize(Index size, const std::vector<Index> &chunks);

/// Validate a depth/boundary pair for `ndim` axes (non-negative, known kinds, asymmetric only with
/// boundary none). `what` prefixes messages.
void check_overlap_spec(const Depth &depth, const std::vector<BoundarySpec> &boundary, int32_t ndim,
                        const char *what);

/// What an overlap layer is made of: its symbolic form (graph files store exactly this).
struct OverlapLayerSpec {
  std::string input;                   ///< the layer whose blocks are extended
  Chunks in_chunks;                    ///< the input's chunks (the layer has its block grid)
  Depth depth;                         ///< per axis
  std::vector<BoundarySpec> boundary;  ///< per axis
};

/// Each overlap task references 3^active neighbours (active: axes with a non-zero depth); at most
/// this many overlapped axes.
constexpr int32_t kMaxOverlapAxes = 10;

/// The overlap layer `name` (kernel ca.overlap_block, LayerKind::Overlap) from its spec. Checks the
/// spec as check_overlap_spec does, plus: at most CA_MAX_NDIM axes and kMaxOverlapAxes overlapped
/// ones, non-negative chunk sizes, a task count that fits int64 (CA_EINVAL naming what is wrong).
std::shared_ptr<Layer> make_overlap_layer(std::string name, OverlapLayerSpec spec);
/// The spec of an overlap layer (l.kind() must be LayerKind::Overlap; CA_EINTERNAL otherwise).
const OverlapLayerSpec &overlap_layer_spec(const Layer &l);

/// dask's overlap(x, depth, boundary, allow_rechunk).
ArrayPtr overlap(const ArrayPtr &x, const Depth &depth, const std::vector<BoundarySpec> &boundary,
                 bool allow_rechunk);

/// dask's trim_internal(x, depth, boundary).
ArrayPtr trim_internal(const ArrayPtr &x, const Depth &depth, const std::vector<BoundarySpec> &boundary);

struct MapOverlapOptions {
  DType dtype = CA_DTYPE_INVALID;  // invalid: the first input's
  bool trim = true;
  const Chunks *chunks = nullptr;  // explicit kernel output chunks
  bool allow_rechunk = true;
  bool align_arrays = true;
  bool block_info = false;
  std::string name;  // prefix; empty: the kernel name
};

/// dask's map_overlap(func, *arrays, depth, boundary, trim): depth/boundary over the highest-rank
/// input's axes; lower-rank inputs use the trailing entries.
ArrayPtr map_overlap(const std::string &kernel, const std::vector<ArrayPtr> &arrays, const Depth &depth,
                     const std::vector<BoundarySpec> &boundary, const std::vector<ca_arg_t> &extra,
                     const MapOverlapOptions &opts);

/// numpy.lib.stride_tricks.sliding_window_view as dask.array.overlap.sliding_window_view: blocks are
/// rechunked to hold at least a window, overlapped by window - 1 elements on their right (boundary
/// none) and each block gives its windows (`ca.sliding_window`, a copy). The result has x's axes
/// (shortened by window - 1 along each windowed axis) followed by one axis per window, one block
/// each. `axis` empty: every axis (window_shape then has one entry per axis); repeated axes compose.
ArrayPtr sliding_window_view(const ArrayPtr &x, const std::vector<Index> &window_shape, const std::vector<int64_t> &axis);

}  // namespace ca
