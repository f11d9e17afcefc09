// Typed wrappers over OpenBLAS's cblas and LAPACK (Fortran symbols). See lapack.hpp.
#include "linalg/lapack.hpp"

#include <cblas.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <mutex>
#include <type_traits>
#include <vector>

#include "core/error.hpp"

extern "C" {
// LAPACK's Fortran interface (32-bit integers, as Debian's OpenBLAS is built). Complex arguments
// are passed as pointers to interleaved (re, im) pairs: std::complex has that layout.
#define CA_LAPACK_GEQRF(p, T) void p##geqrf_(const int *, const int *, T *, const int *, T *, T *, const int *, int *);
CA_LAPACK_GEQRF(s, float)
CA_LAPACK_GEQRF(d, double)
CA_LAPACK_GEQRF(c, std::complex<float>)
CA_LAPACK_GEQRF(z, std::complex<double>)
void sorgqr_(const int *, const int *, const int *, float *, const int *, const float *, float *, const int *, int *);
void dorgqr_(const int *, const int *, const int *, double *, const int *, const double *, double *, const int *,
             int *);
void cungqr_(const int *, const int *, const int *, std::complex<float> *, const int *, const std::complex<float> *,
             std::complex<float> *, const int *, int *);
void zungqr_(const int *, const int *, const int *, std::complex<double> *, const int *,
             const std::complex<double> *, std::complex<double> *, const int *, int *);
void sgesdd_(const char *, const int *, const int *, float *, const int *, float *, float *, const int *, float *,
             const int *, float *, const int *, int *, int *);
void dgesdd_(const char *, const int *, const int *, double *, const int *, double *, double *, const int *,
             double *, const int *, double *, const int *, int *, int *);
void cgesdd_(const char *, const int *, const int *, std::complex<float> *, const int *, float *,
             std::complex<float> *, const int *, std::complex<float> *, const int *, std::complex<float> *,
             const int *, float *, int *, int *);
void zgesdd_(const char *, const int *, const int *, std::complex<double> *, const int *, double *,
             std::complex<double> *, const int *, std::complex<double> *, const int *, std::complex<double> *,
             const int *, double *, int *, int *);
#define CA_LAPACK_LU(p, T)                                                                                \
  void p##getrf_(const int *, const int *, T *, const int *, int *, int *);                               \
  void p##getrs_(const char *, const int *, const int *, const T *, const int *, const int *, T *, const int *, \
                 int *);                                                                                  \
  void p##getri_(const int *, T *, const int *, const int *, T *, const int *, int *);                    \
  void p##potrf_(const char *, const int *, T *, const int *, int *);                                     \
  void p##trtrs_(const char *, const char *, const char *, const int *, const int *, const T *, const int *, T *, \
                 const int *, int *);
CA_LAPACK_LU(s, float)
CA_LAPACK_LU(d, double)
CA_LAPACK_LU(c, std::complex<float>)
CA_LAPACK_LU(z, std::complex<double>)
}

namespace ca::linalg {

namespace {

int i32(int64_t v, const char *what) {
  CA_CHECK(v >= 0 && v <= INT_MAX, CA_EUNSUPPORTED, what, " ", v, " exceeds the 32-bit LAPACK/BLAS index range");
  return int(v);
}

template <class T>
constexpr bool is_blas_type = std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, cfloat> ||
                              std::is_same_v<T, cdouble>;

template <class T>
struct Acc {
  using type = std::make_unsigned_t<T>;
};
template <>
struct Acc<bool> {
  using type = bool;
};

// Plain loop for integer and bool types (NumPy wraps integer overflow; compute in unsigned).
template <class T>
void gemm_loop(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const T *A, int64_t lda, const T *B, int64_t ldb,
               T *C, int64_t ldc, bool accumulate) {
  using U = typename Acc<T>::type;
  // Products in at least `unsigned` width: narrower types promote to int, where they could overflow.
  using W = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;
  std::vector<U> row(static_cast<size_t>(N));
  for (int64_t i = 0; i < M; ++i) {
    T *c = C + i * ldc;
    for (int64_t j = 0; j < N; ++j) row[size_t(j)] = accumulate ? U(c[j]) : U(0);
    for (int64_t k = 0; k < K; ++k) {
      U a = U(ta ? A[k * lda + i] : A[i * lda + k]);
      if (!a) continue;
      if (tb) {
        for (int64_t j = 0; j < N; ++j) {
          if constexpr (std::is_same_v<T, bool>) row[size_t(j)] = row[size_t(j)] || B[j * ldb + k];
          else row[size_t(j)] = U(W(row[size_t(j)]) + W(a) * W(U(B[j * ldb + k])));
        }
      } else {
        const T *b = B + k * ldb;
        for (int64_t j = 0; j < N; ++j) {
          if constexpr (std::is_same_v<T, bool>) row[size_t(j)] = row[size_t(j)] || b[j];
          else row[size_t(j)] = U(W(row[size_t(j)]) + W(a) * W(U(b[j])));
        }
      }
    }
    for (int64_t j = 0; j < N; ++j) c[j] = T(row[size_t(j)]);
  }
}

/// C (+)= op(A) op(B) for complex T with NumPy's complex arithmetic: (a+bi)(c+di) = (ac-bd) + (ad+bc)i,
/// summed from zero. BLAS (and C's Annex G multiplication) differ where infinities meet zeros: zgemm
/// scales by alpha = 1+0i, so a -inf+infi entry becomes NaN; NumPy's outer, and matmul/dot over a
/// contracted extent of 1, use such a plain loop, giving -inf+infi.
template <class T>
void gemm_naive_complex(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const T *A, int64_t lda, const T *B,
                        int64_t ldb, T *C, int64_t ldc, bool accumulate) {
  using R = typename T::value_type;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      R re = 0, im = 0;
      for (int64_t k = 0; k < K; ++k) {
        const T a = ta ? A[k * lda + i] : A[i * lda + k];
        const T b = tb ? B[j * ldb + k] : B[k * ldb + j];
        re += a.real() * b.real() - a.imag() * b.imag();
        im += a.real() * b.imag() + a.imag() * b.real();
      }
      T &c = C[i * ldc + j];
      c = accumulate ? T(c.real() + re, c.imag() + im) : T(re, im);
    }
}

}  // namespace

void blas_init() noexcept {
  static std::once_flag once;
  std::call_once(once, [] { openblas_set_num_threads(1); });
}

template <class T>
void gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const T *A, int64_t lda, const T *B, int64_t ldb,
          T *C, int64_t ldc, bool accumulate) {
  if (M == 0 || N == 0) return;
  if (K == 0) {
    if (!accumulate)
      for (int64_t i = 0; i < M; ++i) std::fill(C + i * ldc, C + i * ldc + N, T{});
    return;
  }
  if constexpr (is_blas_type<T>) {
    blas_init();
    const int m = i32(M, "matrix extent"), n = i32(N, "matrix extent"), k = i32(K, "matrix extent");
    const int la = i32(std::max<int64_t>(lda, 1), "leading dimension");
    const int lb = i32(std::max<int64_t>(ldb, 1), "leading dimension");
    const int lc = i32(std::max<int64_t>(ldc, 1), "leading dimension");
    const CBLAS_TRANSPOSE TA = ta ? CblasTrans : CblasNoTrans, TB = tb ? CblasTrans : CblasNoTrans;
    if constexpr (std::is_same_v<T, float>) {
      cblas_sgemm(CblasRowMajor, TA, TB, m, n, k, 1.0f, A, la, B, lb, accumulate ? 1.0f : 0.0f, C, lc);
    } else if constexpr (std::is_same_v<T, double>) {
      cblas_dgemm(CblasRowMajor, TA, TB, m, n, k, 1.0, A, la, B, lb, accumulate ? 1.0 : 0.0, C, lc);
    } else {
      if (K == 1 || accumulate) {
        // NumPy's plain loop for K == 1 (outer products); and an accumulation C += AB without zgemm's
        // beta = 1+0i (which turns an infinite partial sum into NaN).
        if (K == 1) {
          gemm_naive_complex<T>(ta, tb, M, N, K, A, lda, B, ldb, C, ldc, accumulate);
          return;
        }
        std::vector<T> tmp(static_cast<size_t>(M) * static_cast<size_t>(N));
        gemm<T>(ta, tb, M, N, K, A, lda, B, ldb, tmp.data(), N, false);
        for (int64_t i = 0; i < M; ++i)
          for (int64_t j = 0; j < N; ++j) {
            T &c = C[i * ldc + j];
            const T &t = tmp[size_t(i * N + j)];
            c = T(c.real() + t.real(), c.imag() + t.imag());
          }
        return;
      }
      const T one(1), beta(0);
      if constexpr (std::is_same_v<T, cfloat>)
        cblas_cgemm(CblasRowMajor, TA, TB, m, n, k, &one, A, la, B, lb, &beta, C, lc);
      else
        cblas_zgemm(CblasRowMajor, TA, TB, m, n, k, &one, A, la, B, lb, &beta, C, lc);
    }
  } else {
    gemm_loop<T>(ta, tb, M, N, K, A, lda, B, ldb, C, ldc, accumulate);
  }
}

template <class T>
void syrk(bool trans, int64_t N, int64_t K, const T *A, int64_t lda, T *C, int64_t ldc, bool accumulate, bool mirror) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "syrk: float or double");
  if (N == 0) return;
  if (K == 0) {
    if (!accumulate)
      for (int64_t i = 0; i < N; ++i) std::fill(C + i * ldc + i, C + i * ldc + N, T{});
  } else {
    blas_init();
    const int n = i32(N, "matrix extent"), k = i32(K, "matrix extent");
    const int la = i32(std::max<int64_t>(lda, 1), "leading dimension");
    const int lc = i32(std::max<int64_t>(ldc, 1), "leading dimension");
    const CBLAS_TRANSPOSE t = trans ? CblasTrans : CblasNoTrans;
    if constexpr (std::is_same_v<T, float>)
      cblas_ssyrk(CblasRowMajor, CblasUpper, t, n, k, 1.0f, A, la, accumulate ? 1.0f : 0.0f, C, lc);
    else
      cblas_dsyrk(CblasRowMajor, CblasUpper, t, n, k, 1.0, A, la, accumulate ? 1.0 : 0.0, C, lc);
  }
  if (!mirror) return;
  constexpr int64_t B = 32;  // in tiles: the upper triangle is read down its columns
  for (int64_t i0 = 0; i0 < N; i0 += B)
    for (int64_t j0 = 0; j0 <= i0; j0 += B)
      for (int64_t i = i0; i < std::min(N, i0 + B); ++i)
        for (int64_t j = j0; j < std::min(i, j0 + B); ++j) C[i * ldc + j] = C[j * ldc + i];
}
template void syrk<float>(bool, int64_t, int64_t, const float *, int64_t, float *, int64_t, bool, bool);
template void syrk<double>(bool, int64_t, int64_t, const double *, int64_t, double *, int64_t, bool, bool);

namespace {
CBLAS_TRANSPOSE cblas_op(Op o) { return o == Op::N ? CblasNoTrans : o == Op::T ? CblasTrans : CblasConjTrans; }

template <class T>
void trsm_call(CBLAS_ORDER order, bool right, bool lower, CBLAS_TRANSPOSE ta, bool unit, int64_t M, int64_t N,
               const T *A, int64_t lda, T *B, int64_t ldb) {
  if (M == 0 || N == 0) return;
  blas_init();
  const int m = i32(M, "matrix extent"), n = i32(N, "matrix extent");
  const int la = i32(std::max<int64_t>(lda, 1), "leading dimension"), lb = i32(std::max<int64_t>(ldb, 1), "leading dimension");
  const CBLAS_SIDE side = right ? CblasRight : CblasLeft;
  const CBLAS_UPLO uplo = lower ? CblasLower : CblasUpper;
  const CBLAS_DIAG diag = unit ? CblasUnit : CblasNonUnit;
  if constexpr (std::is_same_v<T, float>) {
    cblas_strsm(order, side, uplo, ta, diag, m, n, 1.0f, A, la, B, lb);
  } else if constexpr (std::is_same_v<T, double>) {
    cblas_dtrsm(order, side, uplo, ta, diag, m, n, 1.0, A, la, B, lb);
  } else {
    const T one(1);
    if constexpr (std::is_same_v<T, cfloat>) cblas_ctrsm(order, side, uplo, ta, diag, m, n, &one, A, la, B, lb);
    else cblas_ztrsm(order, side, uplo, ta, diag, m, n, &one, A, la, B, lb);
  }
}
}  // namespace

template <class T>
void gemm_sub(Op ta, Op tb, int64_t M, int64_t N, int64_t K, const T *A, int64_t lda, const T *B, int64_t ldb, T *C,
              int64_t ldc) {
  if (M == 0 || N == 0 || K == 0) return;
  blas_init();
  const int m = i32(M, "matrix extent"), n = i32(N, "matrix extent"), k = i32(K, "matrix extent");
  const int la = i32(std::max<int64_t>(lda, 1), "leading dimension");
  const int lb = i32(std::max<int64_t>(ldb, 1), "leading dimension");
  const int lc = i32(std::max<int64_t>(ldc, 1), "leading dimension");
  if constexpr (std::is_same_v<T, float>) {
    cblas_sgemm(CblasRowMajor, cblas_op(ta), cblas_op(tb), m, n, k, -1.0f, A, la, B, lb, 1.0f, C, lc);
  } else if constexpr (std::is_same_v<T, double>) {
    cblas_dgemm(CblasRowMajor, cblas_op(ta), cblas_op(tb), m, n, k, -1.0, A, la, B, lb, 1.0, C, lc);
  } else {
    const T alpha(-1), beta(1);
    if constexpr (std::is_same_v<T, cfloat>)
      cblas_cgemm(CblasRowMajor, cblas_op(ta), cblas_op(tb), m, n, k, &alpha, A, la, B, lb, &beta, C, lc);
    else
      cblas_zgemm(CblasRowMajor, cblas_op(ta), cblas_op(tb), m, n, k, &alpha, A, la, B, lb, &beta, C, lc);
  }
}

template <class T>
void trsm_rowmajor(bool right, bool lower, Op ta, bool unit, int64_t M, int64_t N, const T *A, int64_t lda, T *B,
                   int64_t ldb) {
  trsm_call<T>(CblasRowMajor, right, lower, cblas_op(ta), unit, M, N, A, lda, B, ldb);
}

template <class T>
void trsm_colmajor_a(bool right, bool lower, bool unit, int64_t M, int64_t N, const T *A, int64_t lda, T *B,
                     int64_t ldb) {
  // B row-major M x N is B^T column-major N x M (ld ldb): op(A) X = B  <=>  X^T op(A)^T = B^T, and
  // X op(A) = B  <=>  op(A)^T X^T = B^T; A column-major, so the plain transpose (no conjugation).
  trsm_call<T>(CblasColMajor, !right, lower, CblasTrans, unit, N, M, A, lda, B, ldb);
}

#define CA_TILE_INST(T)                                                                                        \
  template void gemm_sub<T>(Op, Op, int64_t, int64_t, int64_t, const T *, int64_t, const T *, int64_t, T *, int64_t); \
  template void trsm_rowmajor<T>(bool, bool, Op, bool, int64_t, int64_t, const T *, int64_t, T *, int64_t);    \
  template void trsm_colmajor_a<T>(bool, bool, bool, int64_t, int64_t, const T *, int64_t, T *, int64_t);
CA_TILE_INST(float)
CA_TILE_INST(double)
CA_TILE_INST(cfloat)
CA_TILE_INST(cdouble)

#define CA_GEMM_INST(T)                                                                                     \
  template void gemm<T>(bool, bool, int64_t, int64_t, int64_t, const T *, int64_t, const T *, int64_t, T *, \
                        int64_t, bool);
CA_GEMM_INST(bool)
CA_GEMM_INST(int8_t)
CA_GEMM_INST(int16_t)
CA_GEMM_INST(int32_t)
CA_GEMM_INST(int64_t)
CA_GEMM_INST(uint8_t)
CA_GEMM_INST(uint16_t)
CA_GEMM_INST(uint32_t)
CA_GEMM_INST(uint64_t)
CA_GEMM_INST(float)
CA_GEMM_INST(double)
CA_GEMM_INST(cfloat)
CA_GEMM_INST(cdouble)

// ---- LAPACK ------------------------------------------------------------------------------------

namespace {
template <class T>
void geqrf(const int *m, const int *n, T *a, const int *lda, T *tau, T *work, const int *lwork, int *info) {
  if constexpr (std::is_same_v<T, float>) sgeqrf_(m, n, a, lda, tau, work, lwork, info);
  else if constexpr (std::is_same_v<T, double>) dgeqrf_(m, n, a, lda, tau, work, lwork, info);
  else if constexpr (std::is_same_v<T, cfloat>) cgeqrf_(m, n, a, lda, tau, work, lwork, info);
  else zgeqrf_(m, n, a, lda, tau, work, lwork, info);
}
template <class T>
void orgqr(const int *m, const int *n, const int *k, T *a, const int *lda, const T *tau, T *work, const int *lwork,
           int *info) {
  if constexpr (std::is_same_v<T, float>) sorgqr_(m, n, k, a, lda, tau, work, lwork, info);
  else if constexpr (std::is_same_v<T, double>) dorgqr_(m, n, k, a, lda, tau, work, lwork, info);
  else if constexpr (std::is_same_v<T, cfloat>) cungqr_(m, n, k, a, lda, tau, work, lwork, info);
  else zungqr_(m, n, k, a, lda, tau, work, lwork, info);
}
template <class T>
double work_size(const T &w) {
  if constexpr (std::is_same_v<T, cfloat> || std::is_same_v<T, cdouble>) return double(w.real());
  else return double(w);
}
}  // namespace

template <class T>
void qr_colmajor(int64_t m64, int64_t n64, T *a, T *r) {
  blas_init();
  const int m = i32(m64, "rows"), n = i32(n64, "columns"), k = std::min(m, n), lda = std::max(m, 1);
  if (k == 0) return;
  std::vector<T> tau(static_cast<size_t>(k));
  int info = 0, lwork = -1;
  T wq{};
  geqrf<T>(&m, &n, a, &lda, tau.data(), &wq, &lwork, &info);
  lwork = std::max(1, int(work_size(wq)));
  std::vector<T> work(static_cast<size_t>(lwork));
  geqrf<T>(&m, &n, a, &lda, tau.data(), work.data(), &lwork, &info);
  CA_CHECK(info == 0, CA_EINTERNAL, "LAPACK geqrf failed with info ", info);
  // R: the upper triangle of the first k rows.
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < k; ++i) r[size_t(j) * size_t(k) + size_t(i)] = i <= j ? a[size_t(j) * size_t(m) + size_t(i)] : T{};
  lwork = -1;
  orgqr<T>(&m, &k, &k, a, &lda, tau.data(), &wq, &lwork, &info);
  lwork = std::max(1, int(work_size(wq)));
  work.assign(size_t(lwork), T{});
  orgqr<T>(&m, &k, &k, a, &lda, tau.data(), work.data(), &lwork, &info);
  CA_CHECK(info == 0, CA_EINTERNAL, "LAPACK orgqr failed with info ", info);
}

template <class T, class R>
int64_t svd_colmajor(int64_t m64, int64_t n64, T *a, T *u, R *s, T *vt) {
  blas_init();
  const int m = i32(m64, "rows"), n = i32(n64, "columns"), k = std::min(m, n);
  if (k == 0) return 0;
  const int lda = std::max(m, 1), ldu = std::max(m, 1), ldvt = std::max(k, 1);
  const char jobz = 'S';
  std::vector<int> iwork(static_cast<size_t>(8) * size_t(k));
  int info = 0, lwork = -1;
  T wq{};
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    auto call = [&](T *w, const int *lw) {
      if constexpr (std::is_same_v<T, float>) sgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, w, lw, iwork.data(), &info);
      else dgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, w, lw, iwork.data(), &info);
    };
    call(&wq, &lwork);
    lwork = std::max(1, int(work_size(wq)));
    std::vector<T> work(static_cast<size_t>(lwork));
    call(work.data(), &lwork);
  } else {
    const int mx = std::max(m, n);
    std::vector<R> rwork(static_cast<size_t>(std::max(1, k * std::max(5 * k + 7, 2 * mx + 2 * k + 1))));
    auto call = [&](T *w, const int *lw) {
      if constexpr (std::is_same_v<T, cfloat>)
        cgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, w, lw, rwork.data(), iwork.data(), &info);
      else
        zgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, w, lw, rwork.data(), iwork.data(), &info);
    };
    call(&wq, &lwork);
    lwork = std::max(1, int(work_size(wq)));
    std::vector<T> work(static_cast<size_t>(lwork));
    call(work.data(), &lwork);
  }
  return info;
}

#define CA_LU_DISPATCH(fn, ...)                                        \
  do {                                                                 \
    if constexpr (std::is_same_v<T, float>) s##fn(__VA_ARGS__);       \
    else if constexpr (std::is_same_v<T, double>) d##fn(__VA_ARGS__); \
    else if constexpr (std::is_same_v<T, cfloat>) c##fn(__VA_ARGS__); \
    else z##fn(__VA_ARGS__);                                           \
  } while (0)

template <class T>
int64_t lu_colmajor(int64_t n64, T *a, int32_t *ipiv) {
  blas_init();
  const int n = i32(n64, "matrix order"), lda = std::max(n, 1);
  int info = 0;
  if (n == 0) return 0;
  CA_LU_DISPATCH(getrf_, &n, &n, a, &lda, ipiv, &info);
  return info;
}

template <class T>
void lu_solve_colmajor(int64_t n64, int64_t nrhs64, const T *lu, const int32_t *ipiv, T *b) {
  blas_init();
  const int n = i32(n64, "matrix order"), nrhs = i32(nrhs64, "right-hand sides"), lda = std::max(n, 1);
  if (n == 0 || nrhs == 0) return;
  const char tr = 'N';
  int info = 0;
  CA_LU_DISPATCH(getrs_, &tr, &n, &nrhs, lu, &lda, ipiv, b, &lda, &info);
  CA_CHECK(info == 0, CA_EINTERNAL, "LAPACK getrs failed with info ", info);
}

template <class T>
int64_t lu_inverse_colmajor(int64_t n64, T *lu, const int32_t *ipiv) {
  blas_init();
  const int n = i32(n64, "matrix order"), lda = std::max(n, 1);
  if (n == 0) return 0;
  int info = 0, lwork = -1;
  T wq{};
  CA_LU_DISPATCH(getri_, &n, lu, &lda, ipiv, &wq, &lwork, &info);
  lwork = std::max(1, int(work_size(wq)));
  std::vector<T> work(static_cast<size_t>(lwork));
  CA_LU_DISPATCH(getri_, &n, lu, &lda, ipiv, work.data(), &lwork, &info);
  return info;
}

template <class T>
int64_t cholesky_colmajor(int64_t n64, T *a, bool lower) {
  blas_init();
  const int n = i32(n64, "matrix order"), lda = std::max(n, 1);
  if (n == 0) return 0;
  const char uplo = lower ? 'L' : 'U';
  int info = 0;
  CA_LU_DISPATCH(potrf_, &uplo, &n, a, &lda, &info);
  if (info == 0) {
    // potrf leaves the other triangle untouched: zero it.
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i)
        if (lower ? i < j : i > j) a[size_t(j) * size_t(n) + size_t(i)] = T{};
  }
  return info;
}

template <class T>
int64_t trsolve_colmajor(int64_t n64, int64_t nrhs64, const T *a, bool lower, T *b) {
  blas_init();
  const int n = i32(n64, "matrix order"), nrhs = i32(nrhs64, "right-hand sides"), lda = std::max(n, 1);
  if (n == 0 || nrhs == 0) return 0;
  const char uplo = lower ? 'L' : 'U', tr = 'N', diag = 'N';
  int info = 0;
  CA_LU_DISPATCH(trtrs_, &uplo, &tr, &diag, &n, &nrhs, a, &lda, b, &lda, &info);
  return info;
}

template <class T>
void to_colmajor(int64_t rows, int64_t cols, const T *src, T *dst) {
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) dst[j * rows + i] = src[i * cols + j];
}
template <class T>
void from_colmajor(int64_t rows, int64_t cols, const T *src, T *dst) {
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) dst[i * cols + j] = src[j * rows + i];
}

#define CA_LAPACK_INST(T, R)                                                         \
  template void qr_colmajor<T>(int64_t, int64_t, T *, T *);                          \
  template int64_t svd_colmajor<T, R>(int64_t, int64_t, T *, T *, R *, T *);         \
  template int64_t lu_colmajor<T>(int64_t, T *, int32_t *);                          \
  template void lu_solve_colmajor<T>(int64_t, int64_t, const T *, const int32_t *, T *); \
  template int64_t lu_inverse_colmajor<T>(int64_t, T *, const int32_t *);            \
  template int64_t cholesky_colmajor<T>(int64_t, T *, bool);                         \
  template int64_t trsolve_colmajor<T>(int64_t, int64_t, const T *, bool, T *);      \
  template void to_colmajor<T>(int64_t, int64_t, const T *, T *);                    \
  template void from_colmajor<T>(int64_t, int64_t, const T *, T *);
CA_LAPACK_INST(float, float)
CA_LAPACK_INST(double, double)
CA_LAPACK_INST(cfloat, float)
CA_LAPACK_INST(cdouble, double)

}  // namespace ca::linalg
