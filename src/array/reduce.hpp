// Reductions and scans (dask.array.reductions): tree reductions over one, several or all axes, and
// cumulative reductions along an axis.
//
// Tree reduction (dask's _tree_reduce):
//   chunk layer    one `ca.reduce_chunk` task per input block (symbolic blockwise layer). It takes the
//                  fused elementwise program of the input (fused_args) and its leaf blocks, evaluates
//                  the expression tile by tile and folds every tile into a partial, so a reduction of
//                  an expression never materializes the expression's blocks.
//   combine levels `ca.reduce_combine` over groups of split[d] partials along each reduced axis
//                  (symbolic, nested lists one level per reduced axis) until every reduced axis has at
//                  most split[d] blocks left.
//   aggregate      `ca.reduce_agg` over all remaining partials along the reduced axes: merges them,
//                  converts to the result dtype, and drops the reduced axes from keys and blocks
//                  unless keepdims.
//   split_every n (0 = dask's default 16) becomes a per-axis group size max(2, floor(n^(1/naxes))).
//
// Partials are CA_RAW blocks (itemsize 1) of shape keepdims_block_shape + (sizeof(P),): one struct P
// per output element, its layout fixed by (op, input dtype, result dtype):
//   sum/prod      P = accumulator (int64 | uint64 | double | complex<double>, from the result dtype)
//   mean          P = {double count; double|complex<double> sum}
//   var/std       P = {double count; double|complex<double> mean; double M2} (two-pass per block,
//                 Chan et al.'s pairwise merge across blocks)
//   min/max       P = {T value; int64 count}
//   argmin/argmax P = {T value; int64 index; int64 count} (index: along the axis, or the flat C-order
//                 index in the whole array for all axes; ties keep the lower index)
//   any/all       P = uint8
// Partial layers have the input's number of key indices (the byte axis has no block index).
//
// Scans (dask's cumreduction): `ca.scan_block` scans each block (fused input), a materialized chain
// `ca.scan_carry` per line of blocks holds the running total of the blocks before, and
// `ca.scan_apply` adds (multiplies) the carry into each block.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "array/array.hpp"

namespace ca {

class KernelRegistry;

/// A builtin reduction (op = CA_RED_*). axes: empty = all; negative axes count from the end.
/// split_every: 0 = default. dtype: 0 = NumPy's default result dtype (used by sum/prod/mean/var/std
/// and their nan-variants; ignored by the others).
ArrayPtr reduce(int32_t op, const ArrayPtr &a, std::vector<int32_t> axes, bool keepdims, int32_t split_every,
                int32_t ddof, DType dtype);

/// reduce() of float16, datetime64/timedelta64 and string arrays (array/reduce_dtypes.cpp), built from
/// numeric reductions; nullptr for the other dtypes.
ArrayPtr reduce_special(int32_t op, const ArrayPtr &a, const std::vector<int32_t> &axes, bool keepdims,
                        int32_t split_every, int32_t ddof, DType dtype);

/// Cumulative sum/product (op = CA_SCAN_*) along `axis` (negative counts from the end).
ArrayPtr scan(int32_t op, const ArrayPtr &a, int32_t axis, DType dtype);

/// dask's generic reduction with user kernels (looked up by name at compute). combine empty: the
/// aggregate kernel is used at every level. dtype 0: the input's dtype.
ArrayPtr reduction(const ArrayPtr &a, const std::string &chunk, const std::string &combine,
                   const std::string &aggregate, std::vector<int32_t> axes, bool keepdims, int32_t split_every,
                   DType dtype);

/// dask's split_every as a group size per reduced axis: max(2, floor(n^(1/naxes))) with n = 16 for
/// split_every 0 (2 when naxes is 0). CA_EINVAL for a negative split_every.
Index split_every_per_axis(int32_t split_every, size_t naxes);

/// The levels of a tree reduction (dask's _tree_reduce) above a layer of partials, shared by the
/// reductions here and linalg's contractions.
struct TreeReduceSpec {
  std::string input;             ///< the layer of partials
  std::vector<Index> numblocks;  ///< its number of blocks per dimension
  uint64_t mask = 0;             ///< bit d: dimension d is reduced
  Index split = 2;               ///< group size per reduced dimension (split_every_per_axis)
  /// Combine levels: `combine_kernel` over groups of `split` blocks along every reduced dimension
  /// (one nested list level per reduced dimension, then `combine_extra`), while a reduced dimension
  /// has more than `split` blocks. Level k is named level_prefix + k + "-" + hex.
  std::string combine_kernel;
  std::vector<BlockwiseArg> combine_extra;
  std::string level_prefix, hex;
  /// The final layer `name` (chunks `chunks`): `agg_kernel` over all remaining blocks along the
  /// reduced dimensions, then `agg_extra`. keepdims: the reduced dimensions stay (one block each);
  /// otherwise they are dropped from the keys.
  std::string agg_kernel;
  std::vector<BlockwiseArg> agg_extra;
  bool keepdims = false;
  std::string name;
  Chunks chunks;
};
/// Add the combine levels and the final layer of `spec` to g.
void tree_reduce(Graph &g, const TreeReduceSpec &spec);

/// NumPy's result dtype of a builtin reduction / scan (requested 0 = default).
DType reduce_result_dtype(int32_t op, DType in, DType requested);
DType scan_result_dtype(int32_t op, DType in, DType requested);

/// Normalize axes (negative, bounds "axis 3 is out of bounds for array of dimension 2", duplicates);
/// empty = all. Sorted.
std::vector<int32_t> normalize_axes(std::vector<int32_t> axes, int32_t ndim);

/// Registers ca.reduce_chunk, ca.reduce_combine, ca.reduce_agg, ca.reduce_squeeze, ca.scan_block,
/// ca.scan_carry, ca.scan_apply.
void register_reduce_kernels(KernelRegistry &reg);

}  // namespace ca
