/**
 * @file chunkarray/linalg.h
 * @brief Linear algebra on chunked arrays: dask.array's matmul/dot/tensordot/outer and
 *        dask.array.linalg (tsqr-based qr/svd/lstsq; tiled solve, inv, cholesky and
 *        solve_triangular; norm), NumPy's results.
 *
 * Products are dask's blockwise contraction followed by a tree sum: the contracted axes of both
 * operands are unified (rechunked to common block boundaries, as dask's unify_chunks), each output
 * block's partial products over a group of contracted blocks run as one task calling BLAS gemm once
 * per block pair, accumulating in place, and groups are summed by a tree (split_every, default 16).
 * Float32/64 and complex64/128 use OpenBLAS; integer and bool operands use a plain loop (NumPy's
 * wrap-around integer arithmetic; bool is OR of ANDs). The result dtype is NumPy's promotion of the
 * operands' dtypes.
 *
 * Factorizations compute in float64 for integer/bool input, otherwise in the input's dtype, and fail
 * at compute time with CA_EKERNEL ("Singular matrix", "Matrix is not positive definite") when
 * LAPACK does.
 *
 * Threading: the kernels set OpenBLAS to one thread per call (openblas_set_num_threads(1), once per
 * process, at the first linear-algebra kernel) so BLAS does not compete with the context's worker
 * threads; parallelism comes from the task graph. This setting is process-wide.
 *
 * All functions build graphs only (nothing runs until a compute). Inputs are borrowed; every
 * `out` array is owned by the caller (free with ca_array_free()) and is NULL on failure.
 */
#ifndef CHUNKARRAY_LINALG_H
#define CHUNKARRAY_LINALG_H

#include "chunkarray/array.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * NumPy's matmul (the @ operator): 2-d matrix products, batched over broadcast leading dimensions;
 * a 1-d first operand is a row vector and a 1-d second operand a column vector, their dimension
 * removed from the result.
 * @return CA_OK; CA_EINVAL for NULL or 0-d operands and for shapes that do not align or whose batch
 *         dimensions do not broadcast (the message names both shapes); CA_ETYPE for non-numeric dtypes.
 */
CA_API ca_status_t ca_linalg_matmul(ca_array_t **out, const ca_array_t *a, const ca_array_t *b);

/**
 * NumPy's dot: a scalar operand multiplies; otherwise the sum over the last axis of @p a and the
 * second-to-last (for 1-d: only) axis of @p b.
 * @return CA_OK, CA_EINVAL (NULL, shapes not aligned), CA_ETYPE.
 */
CA_API ca_status_t ca_linalg_dot(ca_array_t **out, const ca_array_t *a, const ca_array_t *b);

/**
 * NumPy's tensordot(a, b, axes=(a_axes, b_axes)): the sum over the @p naxes paired axes; the result
 * has a's remaining axes, then b's. Negative axes count from the end.
 * @param a_axes, b_axes borrowed, naxes entries each (may be NULL when naxes is 0: outer product).
 * @param split_every blocks per tree node along the contracted axes (0: 16).
 * @return CA_OK; CA_EINVAL for NULL, out-of-range or repeated axes, or paired axes of different
 *         extents (the message names both shapes).
 */
CA_API ca_status_t ca_linalg_tensordot(ca_array_t **out, const ca_array_t *a, const ca_array_t *b,
                                       const int32_t *a_axes, const int32_t *b_axes, int32_t naxes,
                                       int32_t split_every);

/**
 * NumPy's outer of two 1-d arrays: out[i, j] = a[i] * b[j].
 * @return CA_OK, CA_EINVAL (NULL), CA_EUNSUPPORTED (an operand that is not 1-d: flatten it first).
 */
CA_API ca_status_t ca_linalg_outer(ca_array_t **out, const ca_array_t *a, const ca_array_t *b);

/**
 * numpy.einsum(subscripts, *operands), lazily, as dask.array.einsum: blockwise over the subscript
 * letters (the operands rechunked to one chunking per letter), a per-block einsum kernel, and a sum
 * over the blocks of the contracted letters. Subscripts are NumPy's: letters a-z A-Z, ',' between
 * operands, an optional explicit output after '->' (otherwise the letters that appear once, in
 * ASCII order), '...' for broadcast dimensions, a repeated letter within an operand for its diagonal
 * ('ii->i'); extents 1 broadcast. The result dtype is NumPy's promotion of the operands' dtypes unless
 * @p dtype is given; bool operands multiply as AND and sum as OR, integers wrap.
 * @param[out] out the result (NULL on failure).
 * @param subscripts NUL-terminated, borrowed.
 * @param operands @p noperands arrays (>= 1), borrowed.
 * @param dtype the result dtype; CA_DTYPE_INVALID (0): promotion of the operands' dtypes.
 * @return CA_OK; CA_EINVAL for NULL @p out, @p subscripts or @p operands (or an entry), no operand,
 *         bad subscripts (an invalid character, a count that does not match the operands or their
 *         dimensions, an output letter repeated or absent from the inputs, an output without '...'
 *         while operands have broadcast dimensions), extents that do not broadcast ("einsum: operands
 *         could not be broadcast together with remapped shapes ..."), or unknown chunk sizes;
 *         CA_ETYPE for an operand or @p dtype that is not a number.
 */
CA_API ca_status_t ca_linalg_einsum(ca_array_t **out, const char *subscripts, const ca_array_t *const *operands,
                                    size_t noperands, ca_dtype_t dtype);

/**
 * Reduced QR of a 2-d array with one column block (dask's tsqr) or one row block (short-and-fat,
 * dask's sfqr: the row block's columns are gathered into one task): a = q @ r, q (m, k) with a's row
 * chunks and orthonormal columns, r (k, n) upper triangular with a's column chunks, k = min(m, n).
 * Signs follow LAPACK (as NumPy's, not necessarily equal to them). With more row blocks than one
 * stack of their R factors fits in the tallest block (blocks x n > rows), the R factors are
 * stacked in a tree of groups as dask's recursive tsqr, so no task holds more than a block.
 * @param[out] q, r owned results.
 * @return CA_OK; CA_EINVAL for NULL, non-2-d input, or more than one column block ("tsqr needs a
 *         tall-and-skinny matrix with one column block": neither one column block nor one row block;
 *         rechunk first).
 */
CA_API ca_status_t ca_linalg_qr(ca_array_t **q, ca_array_t **r, const ca_array_t *a);

/**
 * Thin SVD of a 2-d array with one column block or one row block (tsqr, then the SVD of R):
 * a = u @ diag(s) @ v, u (m, k) with a's row chunks, s (k,) descending and real, v (k, n) (NumPy's
 * vh) with a's column chunks, k = min(m, n).
 * @return as ca_linalg_qr().
 */
CA_API ca_status_t ca_linalg_svd(ca_array_t **u, ca_array_t **s, ca_array_t **v, const ca_array_t *a);

/**
 * solve(a, b): x with a @ x = b, a square (n, n), b (n,) or (n, k), as dask.array.linalg.solve: a
 * blocked LU of a as a task graph (dask's `lu`: each diagonal tile factored with partial pivoting
 * inside the tile, the row and column panels solved against it, the trailing tiles updated, one task
 * per tile operation, LAPACK/BLAS per tile), then blocked forward and back substitution over b's
 * tiles. Tiles are square: a's row chunks on both axes (a is rechunked when its column chunks
 * differ; dask instead requires all chunks equal). Like dask, rows are exchanged only inside a
 * diagonal tile, so a nonsingular a whose diagonal tile (or its Schur complement) is singular fails.
 * x has b's chunks; the dtype is NumPy's promotion of a's and b's (float64 for integers).
 * @return CA_OK; CA_EINVAL for NULL, non-2-d or non-square a, unknown chunk sizes, or a b that does
 *         not match (the message names both shapes); CA_ETYPE for non-numeric dtypes. A singular
 *         diagonal tile fails at compute with CA_EKERNEL "Singular matrix".
 */
CA_API ca_status_t ca_linalg_solve(ca_array_t **out, const ca_array_t *a, const ca_array_t *b);

/**
 * dask.array.linalg.lu(a): a = p @ l @ u of a square matrix by dask's blocked LU over square tiles
 * (a's row chunks on both axes; a is rechunked when its column chunks differ, where dask refuses):
 * each diagonal tile factored with partial pivoting inside the tile, so p is block diagonal (a
 * permutation per diagonal tile), l lower triangular with unit diagonal and u upper triangular, as
 * dask builds them (l's tile (i, k) below the diagonal is P_i^T L'_ik). Like dask, rows are never
 * exchanged between tiles. All three have a's chunks and NumPy's float dtype of a (float64 for
 * integers and bool).
 * @param[out] p, l, u owned results; all NULL on failure.
 * @return CA_OK; CA_EINVAL for NULL, non-2-d or non-square a, unknown chunk sizes; CA_ETYPE for a
 *         non-numeric dtype. A singular diagonal tile fails at compute with CA_EKERNEL
 *         "Singular matrix".
 */
CA_API ca_status_t ca_linalg_lu(ca_array_t **p, ca_array_t **l, ca_array_t **u, const ca_array_t *a);

/**
 * inv(a) of a square matrix: ca_linalg_solve() with the identity (dask's inv); the result has a's
 * chunks. @return as ca_linalg_solve() (CA_EINVAL for non-square a; CA_EKERNEL "Singular matrix"
 * at compute).
 */
CA_API ca_status_t ca_linalg_inv(ca_array_t **out, const ca_array_t *a);

/**
 * Cholesky factor of a Hermitian positive-definite matrix as a tiled task graph (right-looking:
 * potrf on the diagonal tile, trsm on the panel below it, gemm updates of the trailing tiles; tiles
 * are a's row chunks on both axes): @p lower true gives L with a = L @ L^H (NumPy's result), false
 * gives U with a = U^H @ U (dask's default). Only the selected triangle of a is read. The result
 * has a's chunks.
 * @return CA_OK, CA_EINVAL (NULL, non-2-d, non-square, unknown chunk sizes), CA_ETYPE (non-numeric);
 *         CA_EKERNEL "Matrix is not positive definite" at compute.
 */
CA_API ca_status_t ca_linalg_cholesky(ca_array_t **out, const ca_array_t *a, int lower);

/**
 * scipy.linalg.solve_triangular(a, b, lower) as dask.array.linalg.solve_triangular: x with
 * a @ x = b for a square triangular a, by blocked forward (@p lower) or back substitution over
 * tiles (a trsm per diagonal tile, a gemm per off-diagonal tile). Only the selected triangle of a is
 * read. Tiles follow b's row chunks (a is rechunked to them; dask requires a.chunks[1] ==
 * b.chunks[0]). x has b's chunks; the dtype is NumPy's promotion of a's and b's (float64 for
 * integers).
 * @param[out] out the solution (NULL on failure), owned.
 * @param a (n, n), borrowed. @param b (n,) or (n, k), borrowed.
 * @param lower nonzero: a is lower triangular; 0: upper.
 * @return CA_OK; CA_EINVAL for NULL @p out, @p a or @p b, non-2-d or non-square a, unknown chunk
 *         sizes, or a b that does not match ("solve_triangular: shapes (3, 3) and (4,) are
 *         incompatible ..."); CA_ETYPE for non-numeric dtypes. A zero on a's diagonal fails at
 *         compute with CA_EKERNEL "Singular matrix".
 */
CA_API ca_status_t ca_linalg_solve_triangular(ca_array_t **out, const ca_array_t *a, const ca_array_t *b, int lower);

/**
 * Least squares through tsqr (dask's lstsq): a (m, n), m >= n, one column block; b (m,) or (m, k).
 * @param[out] x solution (n,) or (n, k).
 * @param[out] residuals squared 2-norms of b - a @ x per column: (k,), or (1,) for 1-d b; (0,)
 *             when m == n (NumPy's empty residuals). Unlike NumPy they are returned even when a is
 *             rank-deficient (the rank is only known at compute).
 * @param[out] rank 0-d int64: singular values above s.max() * max(m, n) * eps.
 * @param[out] s singular values of a (n,), descending.
 * Any of residuals, rank, s may be NULL if not wanted. A rank-deficient a fails at compute with
 * CA_EKERNEL (the triangular factor is singular).
 * @return CA_OK; CA_EINVAL for NULL, shape mismatch, several column blocks; CA_EUNSUPPORTED for
 *         m < n.
 */
CA_API ca_status_t ca_linalg_lstsq(ca_array_t **x, ca_array_t **residuals, ca_array_t **rank, ca_array_t **s,
                                   const ca_array_t *a, const ca_array_t *b);

/**
 * numpy.linalg.norm(x, ord, axis, keepdims) built from elementwise operations and reductions.
 * @param ord NULL or "" (None: 2-norm of vectors, Frobenius of matrices, 2-norm of the flattened
 *        array without axes), "fro", "nuc", "inf", "-inf", or a number ("1", "2", "-1", "-2", "0",
 *        "3.5"). Matrix orders 2, -2 and "nuc" use the singular values (tsqr: a 2-d array with one
 *        column block or one row block, keepdims false).
 * @param axes borrowed, naxes entries (0 with NULL: None); 1 axis = vector norm, 2 = matrix norm.
 * The result is real: float32 for float32/complex64 input, float64 otherwise.
 * @return CA_OK; CA_EINVAL for NULL, invalid ord (for vectors/matrices), bad or repeated axes, more
 *         than 2 axes, or no axes with ord given on a >2-d array; CA_EUNSUPPORTED as noted.
 */
CA_API ca_status_t ca_linalg_norm(ca_array_t **out, const ca_array_t *x, const char *ord, const int32_t *axes,
                                  int32_t naxes, int keepdims);

#ifdef __cplusplus
}
#endif

#endif /* CHUNKARRAY_LINALG_H */
