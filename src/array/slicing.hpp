// Indexing (dask.array.slicing): basic indexing, 1-d integer (take), boolean masks (unknown chunk
// sizes), pointwise vindex and item assignment producing new arrays.
//
// Basic indexing follows dask's slice_array / _slice_1d exactly: every output block is one
// `ca.getitem` task over the one input block it comes from, so the layer references only the
// blocks the index needs (culling then drops the rest), and output chunks are dask's (one block
// per input block the slice touches, in reverse order for negative steps).
// Integer lists follow dask's take / slicing_plan: consecutive indices falling in the same input
// block form one output block (unsorted or repeated indices give more, smaller blocks).
// Boolean masks give blocks of unknown size (kUnknownChunk, dask's NaN chunks): x[mask] with a mask
// of x's shape is 1-d, one block per block of x after the rechunk dask's ravel does; a 1-d mask
// along one axis keeps x's blocks. compute_chunk_sizes computes the
// sizes (dask's compute_chunk_sizes).
#pragma once

#include <chunkarray/array.h>

#include <cstdint>
#include <vector>

#include "array/array.hpp"

namespace ca {

class Executor;
class KernelRegistry;
struct RunOptions;

/// One item of an index (Python's x[...] tuple).
struct IndexItem {
  enum Kind : int32_t {
    Int = 0, Slice = 1, NewAxis = 2, Ellipsis = 3, IntList = 4, BoolList = 5, BoolArray = 6, IntArray = 7
  };
  int32_t kind = Slice;
  Index i = 0;  // Int
  bool has_start = false, has_stop = false, has_step = false;
  Index start = 0, stop = 0, step = 1;  // Slice
  std::vector<Index> list;              // IntList (may be negative), BoolList (0/1 per element)
  bool has_list_shape = false;          // IntList / BoolList of list_shape (C order) instead of 1-d
  std::vector<Index> list_shape;
  ArrayPtr array;                       // BoolArray: a 1-d boolean array along this axis;
                                        // IntArray: a 1-d integer array of indices (take_array)
  static IndexItem integer(Index v) {
    IndexItem r;
    r.kind = Int;
    r.i = v;
    return r;
  }
  static IndexItem all() { return IndexItem{}; }
  static IndexItem slice(Index start, Index stop, Index step = 1) {
    IndexItem r;
    r.has_start = r.has_stop = r.has_step = true;
    r.start = start, r.stop = stop, r.step = step;
    return r;
  }
  static IndexItem newaxis() {
    IndexItem r;
    r.kind = NewAxis;
    return r;
  }
  static IndexItem ellipsis() {
    IndexItem r;
    r.kind = Ellipsis;
    return r;
  }
  static IndexItem ints(std::vector<Index> v) {
    IndexItem r;
    r.kind = IntList;
    r.list = std::move(v);
    return r;
  }
};

/// x[index]: ints, slices (any step), newaxis, Ellipsis, at most one integer list (dask's take),
/// boolean list (converted to its nonzero positions) or integer array (take_array), and 1-d boolean
/// arrays along axes.
/// Errors (CA_EINVAL): too many indices, index out of bounds (naming axis and size), slice step 0,
/// several ellipses, several integer lists, unknown chunk sizes on an axis that is not taken whole.
ArrayPtr getitem(const ArrayPtr &a, const std::vector<IndexItem> &index);

/// dask's take: a[..., indices, ...] along `axis` (negative indices count from the end).
ArrayPtr take(const ArrayPtr &a, const std::vector<Index> &indices, int32_t axis);

/// dask's x[index_array] along `axis` with a 1-d integer array of indices (values known only at
/// compute time; negative count from the end, out of bounds fails the compute with CA_EKERNEL
/// naming the index). The output's chunks along `axis` are the index array's (unknown sizes pass
/// through); each output block gathers from all blocks of a along `axis` in its row.
ArrayPtr take_array(const ArrayPtr &a, const ArrayPtr &indices, int32_t axis);

/// a[mask] with a boolean mask of a's shape: 1-d result in C order with unknown block sizes, one
/// per block of a and the mask rechunked as dask's ravel (reshape_rechunk) does.
ArrayPtr mask_select(const ArrayPtr &a, const ArrayPtr &mask);
/// a[:, ..., mask, ...] with a 1-d boolean mask along `axis`: unknown block sizes along that axis.
ArrayPtr mask_select_axis(const ArrayPtr &a, const ArrayPtr &mask, int32_t axis);

/// dask's compute_chunk_sizes: run the graph, keep only each block's shape, and return the same
/// array (same graph and name) with known chunks. Arrays whose chunks are known are returned as is.
ArrayPtr compute_chunk_sizes(Executor &ex, const KernelRegistry &reg, const ArrayPtr &a, const RunOptions &opts);

/// How getitem_advanced combines integer arrays (ca_index_options_t.mode).
enum class IndexMode : int32_t {
  NumPy = 0,       ///< NumPy's x[...]: arrays (and ints among them) broadcast together; the broadcast
                   ///< dimensions replace the indexed axes when those are adjacent, else go first.
  Vectorized = 1,  ///< dask's x.vindex[...]: arrays broadcast, their dimensions always first; ints drop
                   ///< their axis, slices apply first; no None, no boolean arrays.
  Outer = 2,       ///< x.oindex[...] (zarr, xarray): every 1-d array indexes its own axis independently.
};

/// x[index] with NumPy's advanced indexing (any number of integer arrays of any shape, boolean arrays
/// of any dimension as their nonzero positions), dask's vindex or outer indexing. An index with at
/// most one 1-d array in NumPy mode is getitem() (dask's take chunks). Integer arrays broadcast as
/// NumPy; their points are gathered by vindex_points (dask's _vindex_array). Errors (CA_EINVAL) name
/// the offending index and axis: out of bounds ("index 10 is out of bounds for axis 0 with size 10"),
/// shapes that do not broadcast ("shape mismatch: indexing arrays could not be broadcast together
/// with shapes (2,) (3,)"), a boolean array of the wrong shape.
ArrayPtr getitem_advanced(const ArrayPtr &a, const std::vector<IndexItem> &index, IndexMode mode);

/// dask's _vindex_array over already-broadcast flat coordinates: `coords[j]` holds the n coordinates
/// (non-negative, in bounds) along axis `axes[j]`. The result has shape (n,) + the other axes'
/// extents. The point axis is split into blocks of prod(max chunk along the indexed axes) points
/// (dask >= 2024's rule, so no output block is larger than the largest input block); each output
/// block gathers its points from the input blocks they fall in (one slice task per touched block,
/// grouped in O(points)).
ArrayPtr vindex_points(const ArrayPtr &a, const std::vector<int32_t> &axes, const std::vector<std::vector<Index>> &coords,
                       Index n);

/// Pointwise indexing (dask's vindex): `indices[d]` is the point coordinates along axis d (all of
/// the same length n, negative counting from the end) or null for a whole axis. The result has shape
/// (n,) + the whole axes' extents; the point axis is chunked as vindex_points.
ArrayPtr vindex(const ArrayPtr &a, const std::vector<const std::vector<Index> *> &indices);

/// x[index] = value as a new array (dask's setitem: the input is unchanged). `index`: ints, slices,
/// one integer or boolean list (repeated positions: the last value wins) and Ellipsis. `value` is broadcast to the shape of x[index] and cast to x's dtype
/// (NumPy's assignment casting).
ArrayPtr setitem(const ArrayPtr &a, const std::vector<IndexItem> &index, const ArrayPtr &value);
ArrayPtr setitem_scalar(const ArrayPtr &a, const std::vector<IndexItem> &index, const ca_scalar_t &value);
/// x[mask] = value with a boolean mask of x's shape: where(mask, value, x), kept in x's dtype.
ArrayPtr mask_set(const ArrayPtr &a, const ArrayPtr &mask, const ca_scalar_t &value);

/// ca.getitem, ca.take, ca.take_dyn, ca.mask_select, ca.mask_axis, ca.block_shape, ca.vindex_slice,
/// ca.vindex_merge, ca.setitem.
void register_slicing_kernels(KernelRegistry &reg);

namespace detail {
/// dask's _slice_1d for a normalized slice: per touched input block (ascending), the local start,
/// step and element count. Exposed for tests.
struct BlockSlice {
  Index block, start, step, count;
};
std::vector<BlockSlice> slice_1d(Index dim, const std::vector<Index> &lengths, Index start, Index stop, Index step);
}  // namespace detail

}  // namespace ca
