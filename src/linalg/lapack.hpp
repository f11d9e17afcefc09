// BLAS (through OpenBLAS's cblas.h) and the few LAPACK routines the linalg kernels use, as typed C++
// wrappers. LAPACK is called through its Fortran symbols (dgeqrf_, ...), which Debian's OpenBLAS
// exports; we declare the prototypes here instead of depending on LAPACKE (liblapacke-dev).
//
// LAPACK is column-major; callers convert row-major blocks with to_colmajor/from_colmajor.
//
// Threading: OpenBLAS would start its own thread pool for each call and fight the executor's
// workers. blas_init() sets OpenBLAS to one thread per call (openblas_set_num_threads(1), once per
// process) before the first BLAS/LAPACK call of any kernel; parallelism comes from our task graph.
#pragma once

#include <complex>
#include <cstdint>

namespace ca::linalg {

using cfloat = std::complex<float>;
using cdouble = std::complex<double>;

/// Set OpenBLAS to one thread per call (once per process). Called by every kernel that uses BLAS.
void blas_init() noexcept;

/// C = alpha * op(A) op(B) + beta * C, row-major. ta/tb: use the transpose of A/B as stored.
/// A stored (ta ? K x M : M x K) with leading dimension lda, B stored (tb ? N x K : K x N).
/// Integer and bool types use a plain loop (bool: OR of ANDs, as NumPy).
template <class T>
void gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const T *A, int64_t lda, const T *B, int64_t ldb,
          T *C, int64_t ldc, bool accumulate);

/// C = op(A) op(A)^T (+ C when accumulate), row-major, for float and double (BLAS syrk: half the
/// multiplications of the gemm). trans false: A stored N x K (C = A A^T); true: A stored K x N
/// (C = A^T A). Only the upper triangle is computed; `mirror` then copies it to the lower one, so
/// C is exactly symmetric (call it with the last accumulation).
template <class T>
void syrk(bool trans, int64_t N, int64_t K, const T *A, int64_t lda, T *C, int64_t ldc, bool accumulate, bool mirror);

/// QR (LAPACK geqrf + orgqr) of a column-major m x n matrix `a` (overwritten by Q, m x k with
/// k = min(m, n), leading dimension m). `r` receives R, k x n, column-major (ld k).
template <class T>
void qr_colmajor(int64_t m, int64_t n, T *a, T *r);

/// Thin SVD (gesdd, jobz 'S') of a column-major m x n matrix `a` (destroyed): u m x k (ld m),
/// s k real values (descending), vt k x n (ld k), k = min(m, n). Returns LAPACK's info.
template <class T, class R>
int64_t svd_colmajor(int64_t m, int64_t n, T *a, T *u, R *s, T *vt);

/// LU (getrf) of a column-major n x n matrix in place; ipiv n entries. Returns info (> 0: singular).
template <class T>
int64_t lu_colmajor(int64_t n, T *a, int32_t *ipiv);
/// Solve with an LU from lu_colmajor: b column-major n x nrhs (ld n), overwritten by x.
template <class T>
void lu_solve_colmajor(int64_t n, int64_t nrhs, const T *lu, const int32_t *ipiv, T *b);
/// Inverse from an LU in place (getri). Returns info.
template <class T>
int64_t lu_inverse_colmajor(int64_t n, T *lu, const int32_t *ipiv);
/// Cholesky (potrf) of a column-major Hermitian n x n matrix; lower or upper. Returns info.
template <class T>
int64_t cholesky_colmajor(int64_t n, T *a, bool lower);
/// Triangular solve (trtrs) with a column-major n x n upper/lower matrix; b n x nrhs (ld n).
/// Returns info (> 0: singular).
template <class T>
int64_t trsolve_colmajor(int64_t n, int64_t nrhs, const T *a, bool lower, T *b);

/// op(X) for the tile kernels: X itself, its transpose, or its conjugate transpose.
enum class Op : int { N = 0, T = 1, C = 2 };

/// C -= op(A) op(B), row-major (BLAS gemm with alpha = -1, beta = 1): op(A) M x K, op(B) K x N;
/// A stored (op(A) == A ? M x K : K x M) with leading dimension lda, B likewise.
template <class T>
void gemm_sub(Op ta, Op tb, int64_t M, int64_t N, int64_t K, const T *A, int64_t lda, const T *B, int64_t ldb, T *C,
              int64_t ldc);

/// Triangular solve in place, row-major (BLAS trsm, alpha = 1): B (M x N, ld ldb) becomes
/// op(A)^-1 B (left) or B op(A)^-1 (right); A is the n x n triangle (n = M left, N right, ld lda),
/// `lower` says which triangle is read, `unit` that its diagonal is taken as ones.
template <class T>
void trsm_rowmajor(bool right, bool lower, Op ta, bool unit, int64_t M, int64_t N, const T *A, int64_t lda, T *B,
                   int64_t ldb);
/// The same with A column-major (ld lda) and B row-major: used with LU packs (column-major).
template <class T>
void trsm_colmajor_a(bool right, bool lower, bool unit, int64_t M, int64_t N, const T *A, int64_t lda, T *B,
                     int64_t ldb);

/// Row-major rows x cols -> column-major (ld rows), and back.
template <class T>
void to_colmajor(int64_t rows, int64_t cols, const T *src, T *dst);
template <class T>
void from_colmajor(int64_t rows, int64_t cols, const T *src, T *dst);

}  // namespace ca::linalg
