// Linear algebra on chunked arrays (dask.array.linalg and dask.array's matmul/dot/tensordot/outer).
//
// Products (tensordot, matmul, dot, outer) are dask's blockwise contraction followed by a tree sum:
// the contracted axes are unified across both operands (rechunked like dask's unify_chunks), then
// one `ca.linalg.tensordot` / `ca.linalg.matmul` task per output block and group of `split` blocks
// along the contracted axes computes its partial product with one gemm per (A, B) block pair,
// accumulating in place (beta = 1) into the running sum. When a contracted axis has more than
// `split` blocks (split = split_every^(1/ncontracted), split_every default 16, as in reductions),
// the group partials are summed by `ca.linalg.sum` levels of a tree.
//
// Tall-and-skinny QR (dask's tsqr): `ca.linalg.qr_block` per row block (a QR pack of Q_i and
// R_i), `ca.linalg.qr_stack` over all packs (QR of the stacked R_i), then Q block i =
// Q_i @ Q2[rows of block i] (`ca.linalg.qr_q`) and R (`ca.linalg.qr_r`). When the stacked R_i
// would be taller than the tallest row block (blocks x n > rows), dask's recursion: the packs are
// stacked in groups of (tallest / n) per level until one stack fits, and Q comes back down the
// tree (`ca.linalg.qr_qe`: a node's Q times its rows of the parent's factor). The SVD is the SVD of R
// (`ca.linalg.svd_small`) with U = Q @ U_R. lstsq is R x = Q^H b on top of tsqr.
//
// solve, inv, cholesky and solve_triangular are tile algorithms (tiled.cpp: dask's lu and blocked
// substitutions, a right-looking tiled Cholesky). norm is built from elementwise operations and reductions (and tsqr's singular
// values for the 2 / -2 / nuc matrix norms).
#pragma once

#include <string>
#include <vector>

#include "array/array.hpp"

namespace ca {

class KernelRegistry;

namespace linalg {

/// NumPy's tensordot(a, b, axes=(a_axes, b_axes)). split_every: 0 = default (16).
ArrayPtr tensordot(const ArrayPtr &a, const ArrayPtr &b, std::vector<int32_t> a_axes, std::vector<int32_t> b_axes,
                   int32_t split_every = 0);
/// tensordot(a, b, axes=n): the last n axes of a with the first n of b.
ArrayPtr tensordot_n(const ArrayPtr &a, const ArrayPtr &b, int32_t n, int32_t split_every = 0);
/// NumPy's matmul: batched over broadcast leading dimensions; 1-d operands promoted and removed.
ArrayPtr matmul(const ArrayPtr &a, const ArrayPtr &b, int32_t split_every = 0);
/// einsum (dask.array.einsum's values and chunks) through tensordot (BLAS) when the subscripts are
/// a two-operand contraction of float or complex operands (each letter contracted or free, no batch
/// letters, no diagonals, no broadcasting); otherwise ca::einsum (array/einsum.hpp).
ArrayPtr einsum(const std::string &subscripts, const std::vector<ArrayPtr> &operands, DType dtype);
/// NumPy's dot.
ArrayPtr dot(const ArrayPtr &a, const ArrayPtr &b, int32_t split_every = 0);
/// NumPy's outer of two 1-d (or 0-d) arrays.
ArrayPtr outer(const ArrayPtr &a, const ArrayPtr &b);

struct QR {
  ArrayPtr q, r;
};
/// Reduced QR of a 2-d array with one column block (tsqr) or one row block (sfqr: columns gathered).
/// Q: a's row chunks x (min(m, n),); R: (min(m, n),) x a's column chunks.
QR qr(const ArrayPtr &a);

struct SVD {
  ArrayPtr u, s, v;  // v is V^H, as NumPy's vh
};
/// Thin SVD of a 2-d array with one column block or one row block (tsqr + SVD of R). s descending.
SVD svd(const ArrayPtr &a);

// Tile algorithms (tiled.cpp): task graphs over square tiles (a's row chunks on both axes).
/// solve(a, b): a square, b (n,) or (n, k); dask's blocked LU (pivoting inside diagonal tiles) and
/// two blocked substitutions. Result chunks: b's.
ArrayPtr solve(const ArrayPtr &a, const ArrayPtr &b);
struct LU {
  ArrayPtr p, l, u;
};
/// dask.array.linalg.lu(a): a = p @ l @ u over square tiles (a's row chunks on both axes), dask's
/// blocked LU: p block diagonal (each diagonal tile's pivoting), l lower with unit diagonal tiles'
/// diagonal, u upper. Result chunks: a's.
LU lu(const ArrayPtr &a);
/// inv(a) = solve(a, eye), a square. Result chunks: a's.
ArrayPtr inv(const ArrayPtr &a);
/// cholesky(a): lower (NumPy) or upper (dask's default) factor, tiled right-looking. Result chunks: a's.
ArrayPtr cholesky(const ArrayPtr &a, bool lower);
/// scipy's solve_triangular(a, b, lower): blocked substitution over b's row tiles; only the
/// selected triangle of a is read. Result chunks: b's.
ArrayPtr solve_triangular(const ArrayPtr &a, const ArrayPtr &b, bool lower);

struct Lstsq {
  ArrayPtr x, residuals, rank, s;
};
/// lstsq(a, b) through tsqr: a (m, n) with m >= n and one column block, b (m,) or (m, k).
Lstsq lstsq(const ArrayPtr &a, const ArrayPtr &b);

/// numpy.linalg.norm(a, ord, axis, keepdims). ord: "" (None), "fro", "nuc", "inf", "-inf" or a
/// number ("1", "2", "-1", "0", "3.5"). axes: empty = None.
ArrayPtr norm(const ArrayPtr &a, const std::string &ord, std::vector<int32_t> axes, bool keepdims);

/// Registers the ca.linalg.* kernels.
void register_linalg_kernels(KernelRegistry &reg);

/// The dtype LAPACK-based operations compute in: float/complex kept, others float64.
DType lapack_dtype(DType t);

}  // namespace linalg
}  // namespace ca
