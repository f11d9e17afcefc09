// The builtin kernels' reference (see kernel_docs.hpp). Argument kinds: block (a ca_block_t, or a
// key whose result is one), int (CA_ARG_INT64), float (CA_ARG_FLOAT64), tuple (CA_ARG_TUPLE of
// int64), bytes/string, list (CA_ARG_LIST), none. dtype arguments are ca_dtype_t codes as ints.
#include "builtins/kernel_docs.hpp"

#include <algorithm>

namespace ca {

namespace {

constexpr BuiltinKernelDoc kDocs[] = {
    {"ca.assemble", "ca.assemble(out_shape: tuple, pieces: list) -> block",
     "A new block assembled from pieces of input blocks: `pieces` alternates a block and its geometry tuple "
     "(source start per axis, destination start per axis, length per axis). Emitted by rechunk.",
     false},
    {"ca.bincount", "ca.bincount(x: block, [weights: block,] length: int) -> block",
     "A (1, length) row: numpy.bincount of a 1-d bool or integer block (int64 counts), or the sums of the float64 "
     "weights per value; a value outside [0, length) fails; length -1: the block's maximum + 1 (a negative value "
     "fails). Emitted by ca_array_bincount.",
     false},
    {"ca.bincount_merge", "ca.bincount_merge(rows: list, keep_rows: int) -> block",
     "The element-wise sum of (1, n) rows of counts (int64) or sums (float64, complex128) of different lengths, "
     "each padded with zeros to the longest; rows may come as nested lists (one level per reduced axis); keep_rows "
     "1 gives a (1, n) row, 0 the 1-d result. Emitted by ca_array_bincount with CA_BINCOUNT_AUTO and by "
     "ca_array_histogramdd.",
     false},
    {"ca.block_shape", "ca.block_shape(block) -> block", "An int64 block of shape (ndim,) holding the block's shape.",
     true},
    {"ca.choose", "ca.choose(a: block, mode: int, choices: block...) -> block",
     "numpy.choose per element: element i of the choice block a[i] (a int64; every block of a's shape, "
     "the choices of one dtype; mode 0 fails on an index out of range, 1 wraps, 2 clips). Emitted by "
     "ca_array_choose.",
     false},
    {"ca.data", "ca.data(block) -> block",
     "A block stored in the graph (a data layer), handed out without copying. Emitted by from_buffer and persist.",
     false},
    {"ca.diag_block", "ca.diag_block(v: list, dtype: int, kind: int, index: tuple, shape: tuple) -> block",
     "Block `index` (i, j) of diag(v): a zero block of `shape`, with the 1-d block in `v` (a list of zero or one "
     "blocks) on its diagonal when the block is on the diagonal (kind 0: i == j; 1: j == i + 1; -1: i == j + 1).",
     true},
    {"ca.diagonal", "ca.diagonal(block, k: int) -> block",
     "The k-th diagonal of a 2-d block as a 1-d block (numpy.diagonal(block, k)).", true},
    {"ca.diagonal_nd", "ca.diagonal_nd(block, k: int) -> block",
     "The k-th diagonal of the last two axes of a block of 2 or more dimensions, appended as the "
     "last axis (numpy.diagonal(block, k, -2, -1)). Emitted by ca_array_diagonal.",
     false},
    {"ca.einsum", "ca.einsum(block..., spec: tuple) -> block",
     "One block of an einsum: the operand blocks, then the letter spec (operand count, letters, output letters, "
     "contracted letters). Emitted by ca_linalg_einsum.",
     false},
    {"ca.eye", "ca.eye(dtype: int, k: int, origin: tuple, shape: tuple) -> block",
     "The block of numpy.eye(N, M, k) at `origin` (the block's first row and column in the array) with `shape` "
     "(2-d): ones where column - row == k, zeros elsewhere.",
     true},
    {"ca.fft.c2c", "ca.fft.c2c(block, axes: tuple, lengths: tuple, inverse: int, fct: float) -> block",
     "The complex DFT of a block over `axes` (NumPy's fftn / ifftn with inverse 1): each axis truncated or zero-padded to its length, computed in double precision (complex128 result), scaled by `fct` (the norm). Emitted by ca_fft_transform (CA_FFT_FFT, CA_FFT_IFFT).",
     false},
    {"ca.fft.c2r", "ca.fft.c2r(block, axes: tuple, lengths: tuple, conj: int, fct: float) -> block",
     "NumPy's irfftn of a block: inverse complex DFTs over all but the last axis, then the real-output inverse DFT of length lengths[-1] over the last (its first n/2+1 inputs; float64 result), scaled by `fct`; conj 1 conjugates the input first (hfft). Emitted by ca_fft_transform (CA_FFT_IRFFT, CA_FFT_HFFT).",
     false},
    {"ca.fft.freq", "ca.fft.freq(block, n: int, d: float, rfft: int) -> block",
     "dask's fftfreq block from a float64 arange block: values >= (n + 1) // 2 less n (rfft 0 only), divided by n * d. Emitted by ca_fft_fftfreq and ca_fft_rfftfreq.",
     false},
    {"ca.fft.r2c", "ca.fft.r2c(block, axes: tuple, lengths: tuple, conj: int, fct: float) -> block",
     "NumPy's rfftn of a block: the real-input DFT over the last of `axes` (n/2+1 outputs; complex input: its real part), then complex DFTs over the others, scaled by `fct`; conj 1 conjugates the result (ihfft). Emitted by ca_fft_transform (CA_FFT_RFFT, CA_FFT_IHFFT).",
     false},
    {"ca.fused", "ca.fused(program: bytes, [origin: tuple, shape: tuple,] block...) -> block",
     "A fused elementwise program (the array layer's instruction encoding) over its input blocks; generating "
     "programs (arange, random) take the block's origin and shape first; a program may read a 2-D input "
     "transposed (x + x.T). Emitted by every elementwise operation.",
     false},
    {"ca.getitem", "ca.getitem(block, spec: tuple) -> block",
     "Basic indexing of one block: spec = (ndim, (start, step, count) per axis, nnew, new axis positions...); "
     "count -1 is an integer index (axis dropped), -2 the whole axis. Emitted by slicing.",
     false},
    {"ca.gufunc_transpose", "ca.gufunc_transpose(block, perm: tuple) -> block",
     "numpy.transpose(block, perm) for apply_gufunc's core axes. Emitted by ca_array_apply_gufunc.", false},
    {"ca.hdf5_read", "ca.hdf5_read(path: string, dataset: string, dtype: int, origin: tuple, shape: tuple) -> block",
     "The block at `origin` with `shape` of the HDF5 dataset `dataset` (of `dtype`) in the file at `path`, read as one "
     "hyperslab (or chunk by chunk with direct chunk reads).",
     true},
    {"ca.histogram",
     "ca.histogram(spec: tuple, dims: bytes, block_origin: tuple, block_shape: tuple, edges: block..., "
     "(program: bytes, leaves: block...)...) -> block",
     "A (1, nbins) row: the partial histogram of one block of D samples (numpy.histogram's rules with spec[1] 0, "
     "numpy.histogramdd's with 1), each sample and the optional weights given as a fused elementwise program over "
     "its leaf blocks (evaluated here); spec = (D, dd, weighted, accumulator dtype, sample dtype), dims = D packed "
     "(nbins, lo, hi, explicit, edge dtype), one edges block per dimension with explicit edges (a decreasing "
     "one fails). Emitted by ca_array_histogramdd.",
     false},
    {"ca.histogram_finish", "ca.histogram_finish(sums: block, spec: tuple, dims: bytes, edges: block...) -> block",
     "The summed (nbins,) counts shaped (nbins_0, ..., nbins_{D-1}); with density, NumPy's counts / width / total "
     "(histogramdd: divided by each dimension's widths, then the total); spec = (D, dd, density, accumulator "
     "dtype, sample dtype, counts dtype). Emitted by ca_array_histogramdd.",
     false},
    {"ca.identity", "ca.identity(block) -> block", "Its block argument, unchanged (shared, not copied).", true},
    {"ca.indices", "ca.indices(dtype: int, origin: tuple, shape: tuple) -> block",
     "The block of numpy.indices at `origin` with `shape`: axis 0 holds the components, each value "
     "the global index along axis c + 1. Emitted by ca_array_indices.",
     false},
    {"ca.isin", "ca.isin(element: block, test_elements: block, invert: int) -> block",
     "A bool block: whether each element is in test_elements (numpy.isin; invert 1 negates). The two "
     "blocks have one dtype. Emitted by ca_array_isin.",
     false},
    {"ca.linalg.cholesky", "ca.linalg.cholesky(a: block, lower: int) -> block",
     "The Cholesky factor of a Hermitian positive-definite square block: L (a = L L^H) when lower is 1, "
     "else U (a = U^H U).",
     true},
    {"ca.linalg.inv", "ca.linalg.inv(a: block) -> block", "The inverse of a square block (LAPACK getrf/getri).", true},
    {"ca.linalg.lu", "ca.linalg.lu(a: block) -> block",
     "The LU factorization of a square block as an opaque pack (raw bytes) for ca.linalg.lu_solve; fails with "
     "\"Singular matrix\".",
     true},
    {"ca.linalg.lu_part", "ca.linalg.lu_part(lu: block, part: int, dtype: int[, b: block]) -> block",
     "From a diagonal tile's LU pack (A = P L U): part 0 P, 1 L (unit lower), 2 U (upper), each n x n of `dtype`; "
     "part 3 P^T b (b's rows permuted as the factorization exchanged them). Emitted by ca_linalg_lu.",
     false},
    {"ca.linalg.lu_solve", "ca.linalg.lu_solve(lu: block, b: block, dtype: int) -> block",
     "x = a^-1 b from ca.linalg.lu's pack, for b of shape (n,) or (n, k).", true},
    {"ca.linalg.lu_tile", "ca.linalg.lu_tile(lu: block, b: block, mode: int) -> block",
     "With ca.linalg.lu's pack of a diagonal tile (P L U): mode 0 gives L^-1 P^T b, mode 1 b U^-1, mode 2 "
     "U^-1 b (b of shape (n,) or (n, k); (m, n) for mode 1). A step of the blocked LU and solve.",
     true},
    {"ca.linalg.matmul", "ca.linalg.matmul(a: list, b: list, vec: tuple, dtype: int) -> block",
     "One block of a matrix product: the blocks of a and b along the contracted axis, vec = (a is a vector, b is "
     "a vector). Emitted by ca_linalg_matmul.",
     false},
    {"ca.linalg.qr_block", "ca.linalg.qr_block(a: block) -> block",
     "The QR pack of one row block (tall-and-skinny QR, first level). Emitted by ca_linalg_qr.", false},
    {"ca.linalg.qr_q", "ca.linalg.qr_q(pack: block, stack_pack: block, offsets: tuple, index: tuple) -> block",
     "Q's block i: Q_i times the matching rows of the stacked factor's Q. Emitted by ca_linalg_qr.", false},
    {"ca.linalg.qr_qe", "ca.linalg.qr_qe(pack: block, e: block, offset: int) -> block",
     "Q @ e[offset : offset + k] for a QR pack's Q (m x k) and its parent's factor e: one step down the tree of "
     "a multi-level tsqr. Emitted by ca_linalg_qr.",
     false},
    {"ca.linalg.qr_r", "ca.linalg.qr_r(stack_pack: block) -> block", "R from the stacked QR pack. Emitted by ca_linalg_qr.",
     false},
    {"ca.linalg.qr_stack", "ca.linalg.qr_stack(packs: list) -> block",
     "The QR pack of the row blocks' stacked R factors. Emitted by ca_linalg_qr.", false},
    {"ca.linalg.rank", "ca.linalg.rank(s: block, m: int, n: int) -> block",
     "A 0-d int64 block: the number of singular values in `s` above s.max() * max(m, n) * eps (numpy's "
     "matrix_rank rule).",
     true},
    {"ca.linalg.sum", "ca.linalg.sum(blocks: list) -> block",
     "The elementwise sum of a (nested) list of equally shaped blocks (logical or for bool).", true},
    {"ca.linalg.svd_s", "ca.linalg.svd_s(svd_pack: block) -> block", "The singular values from an SVD pack. Emitted by ca_linalg_svd.",
     false},
    {"ca.linalg.svd_small", "ca.linalg.svd_small(stack_pack: block) -> block",
     "The SVD pack of the stacked R factor. Emitted by ca_linalg_svd.", false},
    {"ca.linalg.svd_v", "ca.linalg.svd_v(svd_pack: block) -> block", "V^H from an SVD pack. Emitted by ca_linalg_svd.", false},
    {"ca.linalg.syrk", "ca.linalg.syrk(a: block | list, trans: int, dtype: int) -> block",
     "A diagonal block of a @ a.T (trans 0) or a.T @ a (trans 1): the sum over the list of a a^T (a^T a) by BLAS "
     "syrk, float32 or float64, exactly symmetric. Emitted by ca_linalg_tensordot and ca_linalg_matmul for a "
     "product of an array with its own transpose.",
     false},
    {"ca.linalg.tensordot", "ca.linalg.tensordot(a: block | list, b: block | list, spec: tuple, dtype: int) -> block",
     "One block of a tensordot: blocks (or nested lists of blocks along the contracted axes) of a and b, and the "
     "contraction spec. Emitted by ca_linalg_tensordot.",
     false},
    {"ca.linalg.tile_gemm", "ca.linalg.tile_gemm(c: block, a: block, b: block, ops: tuple) -> block",
     "c - op(a) op(b) (BLAS gemm) with ops = (op_a, op_b), each 0 (as is), 1 (transpose) or 2 (conjugate "
     "transpose); c and b may be 1-d (columns). The trailing update of the blocked factorizations and solves.",
     true},
    {"ca.linalg.tile_trsm", "ca.linalg.tile_trsm(a: block, b: block, flags: tuple) -> block",
     "op(a)^-1 b, or b op(a)^-1 when right, for a square triangular tile a (BLAS trsm); flags = (right, lower, "
     "op, unit), op as in ca.linalg.tile_gemm; fails with \"Singular matrix\" on a zero diagonal.",
     true},
    {"ca.linalg.trisolve", "ca.linalg.trisolve(r: block, y: block, lower: int, dtype: int) -> block",
     "x with r x = y for a square triangular block r (lower when `lower` is 1) and y of shape (n,) or (n, k).", true},
    {"ca.mask_axis", "ca.mask_axis(block, mask: block, axis: int) -> block",
     "The positions along `axis` where the 1-d boolean `mask` is true (block[..., mask, ...]).", true},
    {"ca.mask_select", "ca.mask_select(block, mask: block) -> block",
     "The elements where the boolean `mask` (same shape) is true, as a 1-d block in C order (block[mask]).", true},
    {"ca.npy_read", "ca.npy_read(path: string, dtype: int, file_shape: tuple, origin: tuple, shape: tuple) -> block",
     "The block at `origin` with `shape` of the .npy file at `path` (whose array has `file_shape` and `dtype`), read "
     "from the file.",
     true},
    {"ca.overlap_block", "ca.overlap_block(neighbours: list, geometry: tuple, constants: bytes) -> block",
     "A block extended by its neighbours' edges (with boundary handling). Emitted by ca_array_overlap.", false},
    {"ca.overlap_trim", "ca.overlap_trim(block, index: tuple, geometry: tuple) -> block",
     "A block with its overlap removed (per axis: lo, hi, numblocks, none). Emitted by ca_array_trim_internal.", false},
    {"ca.quantile", "ca.quantile(block, q: bytes, nreduced: int, method: int, skip_nan: int, q_ndim: int, dtype: "
     "int, axis: int) -> block",
     "Exact quantiles (q: float64 values in [0, 1]) over `nreduced` axes from `axis` of a block that "
     "holds those axes whole, with a ca_quantile_method_t; skip_nan 1 is nanquantile. Emitted by "
     "ca_array_quantile.",
     false},
    {"ca.random_multinomial",
     "ca.random_multinomial(pvals: bytes, n: int, seed: int, size: tuple, origin: tuple, shape: tuple) -> block",
     "An int64 block of multinomial(n, pvals) counts (pvals: float64 values; the block covers the whole last "
     "axis): the row at C-order index r of `size` draws from Philox substream r of `seed` (array.h).",
     true},
    {"ca.random_params",
     "ca.random_params(distribution: int, seed: int, dtype: int, scalars: bytes, size: tuple, origin: tuple, "
     "shape: tuple, mask: int, params: block...) -> block",
     "A block of CA_RANDOM_<distribution> draws with per-element parameters: parameter j is the next block "
     "argument when bit j of `mask` is set (aligned with the trailing axes of the output block, extent-1 axes "
     "broadcast), else float64 j of `scalars`. Element g of `size` draws from the stream ca_array_random uses "
     "for it; a bad parameter value fails with NumPy's message. Emitted by ca_array_random_params.",
     false},
    {"ca.ravel_multi_index", "ca.ravel_multi_index(dims: tuple, modes: tuple, f_order: int, coords: block...) -> block",
     "numpy.ravel_multi_index per element: int64 flat indices of the int64 coordinate blocks (one per dimension, one "
     "shape) into `dims`, C or Fortran order; per dimension mode 0 fails on a coordinate out of range, 1 wraps, 2 "
     "clips. Emitted by ca_array_ravel_multi_index.",
     false},
    {"ca.reduce_agg", "ca.reduce_agg(partials: list, spec: tuple, out_shape: tuple) -> block",
     "The final step of a builtin reduction: partial results to the result block. Emitted by ca_array_reduce.", false},
    {"ca.reduce_chunk",
     "ca.reduce_chunk(program: bytes, spec: tuple, array_shape: tuple, origin: tuple, shape: tuple, block...) -> block",
     "The first step of a builtin reduction (fused with the elementwise program feeding it): a partial result. "
     "Emitted by ca_array_reduce.",
     false},
    {"ca.reduce_combine", "ca.reduce_combine(partials: list, spec: tuple) -> block",
     "An intermediate step of a builtin reduction tree. Emitted by ca_array_reduce.", false},
    {"ca.reduce_squeeze", "ca.reduce_squeeze(block, shape: tuple) -> block",
     "The block viewed with another shape (keepdims=False). Emitted by ca_array_reduce.", false},
    {"ca.scan_apply", "ca.scan_apply(spec: tuple, scanned: block, carry: block) -> block",
     "A scanned block combined with the carry of the blocks before it. Emitted by ca_array_scan.", false},
    {"ca.scan_block", "ca.scan_block(program: bytes, spec: tuple, shape: tuple, block...) -> block",
     "The scan of one block. Emitted by ca_array_scan.", false},
    {"ca.scan_carry", "ca.scan_carry(spec: tuple, previous: block | none, scanned: block) -> block",
     "The running total carried to the next block. Emitted by ca_array_scan.", false},
    {"ca.searchsorted", "ca.searchsorted(v: block, sorted: block, right: int, mode: int) -> block",
     "int64 positions of v in a sorted 1-d block: mode 0 numpy.searchsorted(sorted, v, side), mode 1 "
     "numpy.digitize(v, bins=sorted, right). Emitted by ca_array_searchsorted and ca_array_digitize.",
     false},
    {"ca.setitem", "ca.setitem(block, spec: tuple, value: block | bytes[, list: tuple]) -> block",
     "A copy of the block with a region (start, step, count per axis) set from `value`. Emitted by "
     "ca_array_setitem.",
     false},
    {"ca.shape.broadcast", "ca.shape.broadcast(block, shape: tuple) -> block",
     "numpy.broadcast_to(block, shape), as a new block.", true},
    {"ca.shape.fill", "ca.shape.fill(shape: tuple, dtype: int, value: bytes) -> block",
     "A block of `shape` holding one repeated element (`value`: its bytes in the dtype's layout).", true},
    {"ca.shape.repeat", "ca.shape.repeat(block, axis: int, start: int, stop: int, repeats: int) -> block",
     "numpy.repeat(block[start:stop along axis], repeats, axis).", true},
    {"ca.shape.reshape", "ca.shape.reshape(block, shape: tuple) -> block",
     "The same elements in C order with a new shape (sharing the buffer).", true},
    {"ca.shape.strided", "ca.shape.strided(block, spec: tuple) -> block",
     "out[k] = block[start + k * step] per axis; spec = (start, step, count) per axis.", true},
    {"ca.shape.transpose", "ca.shape.transpose(block, axes: tuple) -> block", "numpy.transpose(block, axes).", true},
    {"ca.sliding_window", "ca.sliding_window(block, window_shape: tuple, axes: tuple) -> block",
     "numpy's sliding_window_view of one overlapped block. Emitted by ca_array_sliding_window_view.", false},
    {"ca.sort", "ca.sort(block, axis: int, descending: int, arg: int) -> block",
     "A stable sort of a block along `axis` (NaNs last; descending 1 reverses the order, NaNs "
     "first); arg 1 gives the int64 indices instead (argsort). Emitted by ca_array_sort and "
     "ca_array_argsort.",
     false},
    {"ca.take", "ca.take(block, axis: int, indices: tuple) -> block",
     "numpy.take(block, indices, axis) with indices local to the block.", true},
    {"ca.take_dyn", "ca.take_dyn(indices: block, axis: int, bounds: tuple, blocks: list) -> block",
     "A gather along `axis` with indices computed at run time, from the blocks along that axis. Emitted by "
     "indexing with an array.",
     false},
    {"ca.tri", "ca.tri(dtype: int, k: int, origin: tuple, shape: tuple) -> block",
     "The block of numpy.tri(N, M, k) at `origin` with `shape` (2-d): ones where column - row <= k.", true},
    {"ca.unique", "ca.unique(which: int, equal_nan: int, blocks: list) -> block",
     "The sorted distinct values of the blocks in `blocks` flattened together (which 0), the index "
     "of each one's first occurrence (1) or its count (2); equal_nan 0 keeps every NaN apart. "
     "Emitted by ca_array_unique.",
     false},
    {"ca.unravel_index", "ca.unravel_index(indices: block, dims: tuple, k: int, f_order: int) -> block",
     "Coordinate k (int64) of each int64 flat index into `dims` (numpy.unravel_index, C or Fortran order); an index "
     "out of bounds fails. Emitted by ca_array_unravel_index.",
     false},
    {"ca.vindex_merge", "ca.vindex_merge(out_shape: tuple, dtype: int, pieces: list) -> block",
     "Rows of point-indexing pieces put at their positions (pieces alternate a positions block and a values "
     "block). Emitted by vindex.",
     false},
    {"ca.vindex_slice", "ca.vindex_slice(block, axes: tuple, coords: block) -> block",
     "The points at `coords` (m x len(axes) local coordinates) of one block. Emitted by vindex.", false},
    {"ca.zarr_read", "ca.zarr_read(path: string, zarray: string, origin: tuple, shape: tuple) -> block",
     "The block at `origin` with `shape` of the Zarr v2 array at `path`, whose .zarray metadata is `zarray` "
     "(JSON text), read from its chunk files.",
     true},
};

}  // namespace

std::span<const BuiltinKernelDoc> builtin_kernel_docs() { return kDocs; }

const BuiltinKernelDoc *builtin_kernel_doc(std::string_view name) {
  auto it = std::lower_bound(std::begin(kDocs), std::end(kDocs), name,
                             [](const BuiltinKernelDoc &d, std::string_view n) { return std::string_view(d.name) < n; });
  return it != std::end(kDocs) && it->name == name ? it : nullptr;
}

}  // namespace ca
