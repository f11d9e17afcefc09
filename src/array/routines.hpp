// NumPy routines over chunked arrays that dask.array implements in dask/array/routines.py and
// creation.py: *_like, indices, meshgrid, broadcast_arrays, tril/triu, tril/triu_indices, diagonal,
// sorting (sort/argsort along one axis), sets (unique, isin, union1d) and searching (searchsorted,
// digitize, nonzero, flatnonzero, argwhere), plus roll, rot90 and rollaxis.
//
// Values are NumPy's; output chunks are the ones dask computes for the same call on the same input
// chunks. Where dask has no rule (sort, argsort: dask has only topk) the axis being sorted is
// rechunked into one block and the other axes keep their chunks, as the Python array API's sort
// needs. Results whose size depends on the data (unique, nonzero, argwhere, tril_indices...) have
// unknown block sizes (kUnknownChunk, dask's NaN chunks): one block for unique's values, one per
// raveled input block for nonzero/argwhere.
//
// Most functions compose the existing graph operations (where, tri, expand_dims, broadcast_to,
// mask_select_axis, rechunk); the ones that need their own per-block work use the kernels of
// routines_kernels.cpp (ca.indices, ca.diagonal_nd, ca.sort, ca.unique, ca.searchsorted, ca.isin).
//
// Errors (ca::Error): CA_EINVAL naming the argument (axis out of range, arrays that do not broadcast,
// unknown chunk sizes where sizes are needed), CA_ETYPE for dtypes the routine does not take.
#pragma once

#include <chunkarray/array.h>

#include <complex>
#include <cstdint>
#include <vector>

#include "array/array.hpp"

namespace ca {

class KernelRegistry;

// ---- creation ------------------------------------------------------------------------------------

/// What to build in like(): empty, zeros, ones or full of a value.
enum class LikeKind : int32_t { Empty = 0, Zeros = 1, Ones = 2, Full = 3 };

/// dask's *_like(a, dtype=, shape=, chunks=): dtype CA_DTYPE_INVALID keeps a's; without `shape`,
/// a's shape and (unless `chunks`) a's chunks (which must be known); with `shape` and no chunks,
/// "auto" chunks (dask's rule) for `limit` bytes per block.
ArrayPtr like(LikeKind kind, const ArrayPtr &a, DType dtype, const std::vector<Index> *shape, const Chunks *chunks,
              std::complex<double> value, Index limit);

/// np.indices(dims, dtype): shape (n, *dims), chunks ((1,) * n, *chunks) as dask. One symbolic
/// layer (each block computed from its origin).
ArrayPtr indices(const std::vector<Index> &dims, const Chunks &chunks, DType dtype);

/// np.meshgrid(*xs, indexing, sparse) with dask's chunks: each input raveled, placed along its axis
/// (the first two swapped for xy indexing), then broadcast (unless sparse) keeping each input's
/// chunks along its axis.
std::vector<ArrayPtr> meshgrid(const std::vector<ArrayPtr> &xs, bool xy, bool sparse);

/// np.broadcast_arrays with dask's chunks: trailing axes unified, then broadcast_to the common
/// shape with dask's broadcast_chunks.
std::vector<ArrayPtr> broadcast_arrays(const std::vector<ArrayPtr> &arrays);

/// np.tril / np.triu(m, k) over the last two axes (dask: where with a tri mask chunked like m).
ArrayPtr tril(const ArrayPtr &m, Index k);
ArrayPtr triu(const ArrayPtr &m, Index k);

/// np.tril_indices(n, k, m) / np.triu_indices (dask: nonzero of a tri mask chunked by `chunks`):
/// two int64 arrays of unknown block sizes.
std::vector<ArrayPtr> tri_indices(Index n, Index k, Index m, const Chunks &chunks, bool upper);

/// np.diagonal(a, offset, axis1, axis2) with dask's chunks: the free axes keep their chunks, the
/// diagonal (last axis) gets one block per input block it crosses.
ArrayPtr diagonal(const ArrayPtr &a, Index offset, int64_t axis1, int64_t axis2);

// ---- sorting, sets, searching ----------------------------------------------------------------

/// Sort along `axis` (stable; NaNs last, as NumPy; descending: the stable descending order, NaNs
/// first, as numpy.array_api). The axis is made one block, the others keep their chunks.
/// `arg`: the int64 indices that sort (argsort) instead of the values.
ArrayPtr sort(const ArrayPtr &a, int64_t axis, bool descending, bool arg);

/// np.unique over the flattened array. Returns {values, index, inverse, counts}; entries not asked
/// for are null. values, index and counts: one block of unknown size; inverse: int64 with the
/// raveled input's chunks. equal_nan: NaNs collapse into one value (NumPy >= 1.21's default);
/// otherwise each NaN is its own value (the array API's rule).
struct UniqueResult {
  ArrayPtr values, index, inverse, counts;
};
UniqueResult unique(const ArrayPtr &a, bool want_index, bool want_inverse, bool want_counts, bool equal_nan);

/// np.isin(element, test_elements, invert): bool with element's chunks.
ArrayPtr isin(const ArrayPtr &element, const ArrayPtr &test, bool invert);
/// np.union1d(a, b): unique values of both, flattened.
ArrayPtr union1d(const ArrayPtr &a, const ArrayPtr &b);
/// np.searchsorted(a, v, side, sorter): a 1-d (sorter, may be null: indices that sort a); int64
/// with v's chunks.
ArrayPtr searchsorted(const ArrayPtr &a, const ArrayPtr &v, bool right, const ArrayPtr &sorter);
/// np.digitize(x, bins, right): bins 1-d and monotonic (checked at compute); int64 with x's chunks.
ArrayPtr digitize(const ArrayPtr &x, const ArrayPtr &bins, bool right);
/// np.argwhere(a) with dask's chunks: (unknown, ndim) int64, one block per raveled block of a.
ArrayPtr argwhere(const ArrayPtr &a);
/// np.nonzero(a): ndim int64 arrays of unknown block sizes (a must have at least one dimension).
std::vector<ArrayPtr> nonzero(const ArrayPtr &a);
/// np.flatnonzero(a).
ArrayPtr flatnonzero(const ArrayPtr &a);

// ---- manipulation ----------------------------------------------------------------------------

/// np.roll(a, shifts, axes) as dask (concatenate of two slices per axis); axes empty: the raveled
/// array rolled and reshaped back.
ArrayPtr roll(const ArrayPtr &a, const std::vector<Index> &shifts, const std::vector<int64_t> &axes);
/// np.rot90(m, k, axes) as dask (flip and transpose).
ArrayPtr rot90(const ArrayPtr &m, int64_t k, int64_t axis0, int64_t axis1);
/// np.rollaxis(a, axis, start).
ArrayPtr rollaxis(const ArrayPtr &a, int64_t axis, int64_t start);

// ---- insert, delete, choose, select, coarsen (routines_manip.cpp) ---------------------------------

/// np.insert(arr, obj, values, axis) with dask's chunks: arr split at the distinct positions, the
/// values (cast to arr's dtype, broadcast to arr's shape with `obj.size()` along the axis, put in the
/// stable order of their positions) between the pieces, empty pieces dropped, concatenated.
/// Positions are NumPy's (negative from the end, 0..extent).
ArrayPtr insert(const ArrayPtr &arr, const std::vector<Index> &obj, const ArrayPtr &values, int64_t axis);
/// np.delete(arr, obj, axis) with dask's chunks (arr split at the sorted distinct positions, each
/// piece after the first without its first element, concatenated).
ArrayPtr delete_at(const ArrayPtr &arr, const std::vector<Index> &obj, int64_t axis);
/// np.choose(a, choices, mode) (mode 0 raise, 1 wrap, 2 clip): a and the choices broadcast together
/// (dask's elemwise chunks), the choices in their common dtype; ca.choose gathers per element.
ArrayPtr choose(const ArrayPtr &a, const std::vector<ArrayPtr> &choices, int32_t mode);
/// np.select(condlist, choicelist, default): one fused chain of where (bool conditions only).
ArrayPtr select(const std::vector<ArrayPtr> &conds, const std::vector<ArrayPtr> &choices, const ca_scalar_t &dflt);
/// dask's aligned_coarsen_chunks(chunks, multiple).
std::vector<Index> aligned_coarsen_chunks(const std::vector<Index> &chunks, Index multiple);
/// dask's coarsen(reduction, x, {axis: factor}, trim_excess): chunks aligned to the factors, then
/// each block reduced over windows of `factors` (one per axis, 1 = untouched) as a reshape and a
/// builtin reduction (op = CA_RED_*, not the arg-reductions); dask's output chunks.
ArrayPtr coarsen(int32_t op, const ArrayPtr &x, const std::vector<Index> &factors, bool trim_excess);

/// np.bincount(x, weights) of a known result length (NumPy's max(max(x) + 1, minlength), which the
/// caller determines): each block counts into a (1, length) row (ca.bincount; int64, or float64 sums
/// of the weights), the rows are summed by the tree reduction. A value outside [0, length) fails
/// the compute.
ArrayPtr bincount(const ArrayPtr &x, const ArrayPtr &weights, Index length, int32_t split_every);

/// One dimension's bins of histogramdd(): nbins > 0 equal bins over [lo, hi], or (nbins 0) `edges`.
struct HistogramBins {
  Index nbins = 0;
  double lo = 0, hi = 0;
  ArrayPtr edges;
};
/// histogramdd()'s results: the histogram and one edges array per dimension.
struct HistogramResult {
  ArrayPtr hist;
  std::vector<ArrayPtr> edges;
};
/// np.histogram (dd false, one sample) / np.histogramdd (dd true) of samples of one shape (see
/// ca_array_histogramdd in chunkarray/routines.h for the semantics and errors). Graph: one
/// ca.histogram task per block of the samples (their fused expressions and the weights' evaluated in
/// the task) producing a (1, nbins) row, summed by the tree reduction with ca.bincount_merge, then
/// ca.histogram_finish shapes the sums (density, the final shape). The result is one block.
HistogramResult histogramdd(const std::vector<ArrayPtr> &samples, const std::vector<HistogramBins> &bins,
                            const ArrayPtr &weights, bool density, bool dd, int32_t split_every);
/// NumPy's linspace(lo, hi, n + 1) in float64 (the uniform edges of histogram and histogramdd).
std::vector<double> histogram_uniform_edges(double lo, double hi, Index n);
/// One dimension as the histogram kernels receive it (packed, in the `dims` bytes argument): nbins,
/// the outer edges of uniform bins (already widened when equal), whether the edges come as a block
/// (explicit), and the dtype the uniform edges are computed in (CA_FLOAT32: NumPy's float32 bin
/// type, compared in float; CA_FLOAT64).
struct HistogramDimSpec {
  int64_t nbins;
  double lo, hi;
  int64_t explicit_edges;
  int64_t edge_dtype;
};
/// ca.histogram, ca.histogram_finish (array/histogram_kernels.cpp).
void register_histogram_kernels(KernelRegistry &reg);

/// np.ravel_multi_index(coords, dims, mode, order): the coordinate arrays (integer) broadcast together
/// (dask's elementwise chunks), one mode per dimension (0 raise: fails the compute, 1 wrap, 2 clip);
/// ca.ravel_multi_index per block. int64.
ArrayPtr ravel_multi_index(const std::vector<ArrayPtr> &coords, const std::vector<Index> &dims,
                           const std::vector<int32_t> &modes, bool f_order);
/// np.unravel_index(indices, dims, order): one int64 array per dimension with the indices' chunks
/// (ca.unravel_index per block and dimension; an index out of bounds fails the compute).
std::vector<ArrayPtr> unravel_index(const ArrayPtr &indices, const std::vector<Index> &dims, bool f_order);

/// ca.indices, ca.diagonal_nd, ca.sort, ca.unique, ca.searchsorted, ca.isin, ca.choose, ca.bincount,
/// ca.ravel_multi_index, ca.unravel_index.
void register_routines_kernels(KernelRegistry &reg);

}  // namespace ca
