// Shape operations (dask.array's reshape, transpose, squeeze, expand_dims, broadcast_to,
// concatenate, stack, block, repeat, tile, pad, flip): new chunks exactly as dask computes them,
// values as NumPy. Nothing is materialized at graph time: regular mappings are one symbolic
// BlockwiseLayer; irregular ones (concatenate, flip, pad, repeat, tile, reshapes that move blocks
// around) are one materialized layer with one small task per output block (references and
// geometry, never data), built in time linear in the number of output blocks.
//
// Errors (ca::Error): CA_EINVAL naming the problem ("concatenate: array 2 has extent 5 along axis 1,
// array 0 has 4"), CA_ETYPE for dtypes that cannot be promoted.
#pragma once

#include <chunkarray/array.h>

#include <cstdint>
#include <vector>

#include "array/array.hpp"

namespace ca {

class KernelRegistry;

/// Normalize an axis against ndim (negative counts from the end); CA_EINVAL naming `what` if out of range.
int32_t normalize_axis(int64_t axis, int32_t ndim, const char *what);

/// dask's reshape_rechunk: (input chunks to rechunk to, output chunks). Throws CA_EINVAL when the
/// reshape does not merge or split dimensions evenly (dask's NotImplementedError).
std::pair<Chunks, Chunks> reshape_rechunk(const std::vector<Index> &inshape, const std::vector<Index> &outshape,
                                          const Chunks &inchunks);

/// np.reshape (one -1 allowed), dask's merge_chunks rule.
ArrayPtr reshape(const ArrayPtr &a, std::vector<Index> shape);
/// reshape(a, (-1,)).
ArrayPtr ravel(const ArrayPtr &a);
/// np.transpose; empty axes: reversed.
ArrayPtr transpose(const ArrayPtr &a, std::vector<int64_t> axes);
ArrayPtr moveaxis(const ArrayPtr &a, std::vector<int64_t> source, std::vector<int64_t> destination);
ArrayPtr swapaxes(const ArrayPtr &a, int64_t axis1, int64_t axis2);
/// np.squeeze; all: every axis of extent 1, otherwise `axes` (each must have extent 1).
ArrayPtr squeeze(const ArrayPtr &a, std::vector<int64_t> axes, bool all);
/// np.expand_dims (axes index the result; duplicates are an error).
ArrayPtr expand_dims(const ArrayPtr &a, std::vector<int64_t> axes);
/// np.broadcast_to; chunks (may be null): dask's chunks= (may differ only along new axes and axes of
/// extent 1 in a).
ArrayPtr broadcast_to(const ArrayPtr &a, const std::vector<Index> &shape, const Chunks *chunks);
/// np.concatenate along `axis` (NumPy's dtype promotion; dask's chunks: ragged chunks kept, other axes
/// unified, empty inputs dropped).
ArrayPtr concatenate(std::vector<ArrayPtr> arrays, int64_t axis);
/// np.stack along a new axis.
ArrayPtr stack(std::vector<ArrayPtr> arrays, int64_t axis);
/// np.block over nested lists of uniform `depth`: `arrays` flat in order, `list_sizes` the lengths of
/// the lists in preorder (outermost first): [[a, b], [c]] is depth 2, list_sizes {2, 2, 1}. Depth 0:
/// one array, returned as is.
ArrayPtr block(const std::vector<ArrayPtr> &arrays, int32_t depth, const std::vector<int64_t> &list_sizes);
/// np.repeat with a scalar count along `axis` (dask's slab rule for chunks).
ArrayPtr repeat(const ArrayPtr &a, int64_t repeats, int64_t axis);
/// np.tile.
ArrayPtr tile(const ArrayPtr &a, std::vector<int64_t> reps);

constexpr int32_t kPadConstant = 0;
constexpr int32_t kPadEdge = 1;
constexpr int32_t kPadReflect = 2;
/// np.pad with per-axis widths (mode constant with `value`, edge, reflect).
ArrayPtr pad(const ArrayPtr &a, const std::vector<Index> &before, const std::vector<Index> &after, int32_t mode,
             const ca_scalar_t &value);
/// np.flip over `axes` (all when `all`): block order reversed and each block reversed.
ArrayPtr flip(const ArrayPtr &a, std::vector<int64_t> axes, bool all);

/// dask's expand_tuple (reshape.py): split each block of `chunks` into about `factor` parts.
std::vector<Index> expand_tuple(const std::vector<Index> &chunks, Index factor);

/// ca.shape.reshape, .transpose, .broadcast, .strided, .fill, .repeat.
void register_shape_kernels(KernelRegistry &reg);

}  // namespace ca
