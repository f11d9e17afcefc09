/*
 * chunkarray/linalg.h through the public C API only, in C99: products, qr, solve, inv, cholesky,
 * lstsq, norm checked against plain loops on small ragged-chunked arrays; NULL handles, shape
 * mismatches and compute-time failures give the documented codes, messages and NULL outputs.
 * Exit status 0 when every check passes; failures are printed.
 */
#include <chunkarray/chunkarray.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define CHECK(cond)                                                              \
  do {                                                                           \
    if (!(cond)) {                                                               \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);   \
      ++failures;                                                                \
    }                                                                            \
  } while (0)
#define CHECK_OK(call)                                                                                 \
  do {                                                                                                 \
    ca_status_t st_ = (call);                                                                          \
    if (st_ != CA_OK) {                                                                                \
      fprintf(stderr, "%s:%d: %s -> %s: %s\n", __FILE__, __LINE__, #call, ca_status_str(st_),        \
              ca_last_error_message());                                                                \
      ++failures;                                                                                      \
    }                                                                                                  \
  } while (0)

/* A 2-d float64 array from a row-major buffer, with explicit chunks. */
static ca_array_t *mat(const double *data, int64_t rows, int64_t cols, const int64_t *nb, const int64_t *sizes) {
  int64_t shape[2] = {rows, cols};
  ca_chunks_t ch = {2, nb, sizes};
  ca_array_t *a = NULL;
  CHECK_OK(ca_array_from_buffer(&a, data, CA_FLOAT64, 2, shape, &ch, NULL));
  return a;
}

static double *compute(ca_context_t *ctx, const ca_array_t *a) {
  double *out = malloc((size_t)ca_array_nbytes(a) + 8);
  CHECK_OK(ca_array_compute_into(ctx, a, out, (size_t)ca_array_nbytes(a), NULL));
  return out;
}

static double maxdiff(const double *x, const double *y, int64_t n) {
  double m = 0;
  for (int64_t i = 0; i < n; ++i) m = fmax(m, fabs(x[i] - y[i]));
  return m;
}

int main(void) {
  ca_context_t *ctx = NULL;
  ca_context_options_t co = CA_CONTEXT_OPTIONS_INIT;
  co.num_threads = 2;
  CHECK_OK(ca_context_new(&ctx, &co));

  /* a (5, 4) chunks ((2, 3), (1, 3)); b (4, 3) chunks ((2, 2), (3,)): the contraction axis differs. */
  double a[20], b[12], ab[15];
  for (int i = 0; i < 20; ++i) a[i] = sin(i + 1.0) + (i % 5 == i / 4 ? 4.0 : 0.0);
  for (int i = 0; i < 12; ++i) b[i] = cos(i * 0.7);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 3; ++j) {
      ab[i * 3 + j] = 0;
      for (int k = 0; k < 4; ++k) ab[i * 3 + j] += a[i * 4 + k] * b[k * 3 + j];
    }
  int64_t anb[2] = {2, 2}, asz[4] = {2, 3, 1, 3}, bnb[2] = {2, 1}, bsz[3] = {2, 2, 3};
  ca_array_t *A = mat(a, 5, 4, anb, asz), *B = mat(b, 4, 3, bnb, bsz);

  ca_array_t *p = NULL;
  CHECK_OK(ca_linalg_matmul(&p, A, B));
  double *r = compute(ctx, p);
  CHECK(maxdiff(r, ab, 15) < 1e-12);
  free(r);
  ca_array_free(p);

  CHECK_OK(ca_linalg_dot(&p, A, B));
  r = compute(ctx, p);
  CHECK(maxdiff(r, ab, 15) < 1e-12);
  free(r);
  ca_array_free(p);

  /* tensordot(a, b^T-as-given): a (5, 4) with b (4, 3) over a's axis 1 and b's axis 0. */
  int32_t ax1 = 1, ax0 = 0;
  CHECK_OK(ca_linalg_tensordot(&p, A, B, &ax1, &ax0, 1, 2));
  r = compute(ctx, p);
  CHECK(maxdiff(r, ab, 15) < 1e-12);
  free(r);
  ca_array_free(p);

  /* qr: q @ r == a, q^T q == I. */
  int64_t qnb[2] = {2, 1}, qsz[3] = {2, 3, 4};
  ca_array_t *At = mat(a, 5, 4, qnb, qsz), *Q = NULL, *R = NULL;
  CHECK_OK(ca_linalg_qr(&Q, &R, At));
  double *q = compute(ctx, Q), *rr = compute(ctx, R), qr[20], qtq[16], eye[16];
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 4; ++j) {
      qr[i * 4 + j] = 0;
      for (int k = 0; k < 4; ++k) qr[i * 4 + j] += q[i * 4 + k] * rr[k * 4 + j];
    }
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      qtq[i * 4 + j] = 0;
      eye[i * 4 + j] = i == j;
      for (int k = 0; k < 5; ++k) qtq[i * 4 + j] += q[k * 4 + i] * q[k * 4 + j];
    }
  CHECK(maxdiff(qr, a, 20) < 1e-12);
  CHECK(maxdiff(qtq, eye, 16) < 1e-12);
  free(q);
  free(rr);
  ca_array_free(Q);
  ca_array_free(R);

  /* svd: s matches the norms (sum of s^2 == ||a||_F^2). */
  ca_array_t *U = NULL, *S = NULL, *V = NULL, *F = NULL;
  CHECK_OK(ca_linalg_svd(&U, &S, &V, At));
  CHECK_OK(ca_linalg_norm(&F, At, "fro", NULL, 0, false));
  double *s = compute(ctx, S), *f = compute(ctx, F), ss = 0, fro = 0;
  for (int i = 0; i < 4; ++i) ss += s[i] * s[i];
  for (int i = 0; i < 20; ++i) fro += a[i] * a[i];
  CHECK(fabs(ss - fro) < 1e-10 * fro);
  CHECK(fabs(f[0] - sqrt(fro)) < 1e-12 * sqrt(fro));
  free(s);
  free(f);
  ca_array_free(U);
  ca_array_free(S);
  ca_array_free(V);
  ca_array_free(F);

  /* solve / inv on the leading 4 x 4 block of a (diagonally dominant). */
  double sq[16], rhs[4] = {1, 2, 3, 4};
  memcpy(sq, a, sizeof sq);
  int64_t snb[2] = {2, 2}, ssz[4] = {1, 3, 2, 2};
  ca_array_t *Sq = mat(sq, 4, 4, snb, ssz), *X = NULL, *Inv = NULL, *Rhs = NULL;
  int64_t four = 4, rnb = 2, rsz[2] = {3, 1};
  ca_chunks_t rch = {1, &rnb, rsz};
  CHECK_OK(ca_array_from_buffer(&Rhs, rhs, CA_FLOAT64, 1, &four, &rch, NULL));
  CHECK_OK(ca_linalg_solve(&X, Sq, Rhs));
  CHECK_OK(ca_linalg_inv(&Inv, Sq));
  double *x = compute(ctx, X), *inv = compute(ctx, Inv), ax[4], ai[16];
  for (int i = 0; i < 4; ++i) {
    ax[i] = 0;
    for (int k = 0; k < 4; ++k) ax[i] += sq[i * 4 + k] * x[k];
    for (int j = 0; j < 4; ++j) {
      ai[i * 4 + j] = 0;
      for (int k = 0; k < 4; ++k) ai[i * 4 + j] += sq[i * 4 + k] * inv[k * 4 + j];
    }
  }
  CHECK(maxdiff(ax, rhs, 4) < 1e-12);
  CHECK(maxdiff(ai, eye, 16) < 1e-12);
  free(x);
  free(inv);
  ca_array_free(X);
  ca_array_free(Inv);

  /* solve_triangular reads only its triangle of Sq (tiles follow Rhs's chunks 3, 1). */
  for (int lower = 0; lower <= 1; ++lower) {
    CHECK_OK(ca_linalg_solve_triangular(&X, Sq, Rhs, lower));
    double *tx = compute(ctx, X), tb[4];
    for (int i = 0; i < 4; ++i) {
      tb[i] = 0;
      for (int k = lower ? 0 : i; k <= (lower ? i : 3); ++k) tb[i] += sq[i * 4 + k] * tx[k];
    }
    CHECK(maxdiff(tb, rhs, 4) < 1e-12);
    free(tx);
    ca_array_free(X);
  }
  p = (ca_array_t *)1;
  CHECK(ca_linalg_solve_triangular(&p, Sq, NULL, 1) == CA_EINVAL && p == NULL);
  CHECK(strstr(ca_last_error_message(), "ca_linalg_solve_triangular") != NULL);
  CHECK(ca_linalg_solve_triangular(&p, Sq, A, 1) == CA_EINVAL && p == NULL);
  CHECK(strstr(ca_last_error_message(), "incompatible") != NULL);

  /* lstsq: the normal equations hold (a^T (a x - b) == 0). */
  double col[5] = {1, -1, 2, 0.5, 3};
  int64_t five = 5, cnb = 2, csz[2] = {2, 3};
  ca_chunks_t cch = {1, &cnb, csz};
  ca_array_t *Col = NULL, *Lx = NULL, *Lres = NULL, *Lrank = NULL, *Ls = NULL;
  CHECK_OK(ca_array_from_buffer(&Col, col, CA_FLOAT64, 1, &five, &cch, NULL));
  CHECK_OK(ca_linalg_lstsq(&Lx, &Lres, &Lrank, &Ls, At, Col));
  double *lx = compute(ctx, Lx);
  ca_block_t *rank = NULL;
  CHECK_OK(ca_array_compute(&rank, ctx, Lrank, NULL));
  CHECK(rank && ca_block_dtype(rank) == CA_INT64 && *(const int64_t *)ca_block_data(rank) == 4);
  ca_block_free(rank);
  for (int j = 0; j < 4; ++j) {
    double g = 0;
    for (int i = 0; i < 5; ++i) {
      double resid = -col[i];
      for (int k = 0; k < 4; ++k) resid += a[i * 4 + k] * lx[k];
      g += a[i * 4 + j] * resid;
    }
    CHECK(fabs(g) < 1e-10);
  }
  free(lx);
  ca_array_free(Lx);
  ca_array_free(Lres);
  ca_array_free(Lrank);
  ca_array_free(Ls);
  /* NULL optional outputs are allowed. */
  CHECK_OK(ca_linalg_lstsq(&Lx, NULL, NULL, NULL, At, Col));
  ca_array_free(Lx);

  /* Errors: NULL handles, mismatched shapes (both named), several column blocks, non-square. */
  p = (ca_array_t *)1;
  CHECK(ca_linalg_matmul(&p, NULL, B) == CA_EINVAL && p == NULL);
  CHECK(ca_linalg_matmul(NULL, A, B) == CA_EINVAL);
  p = (ca_array_t *)1;
  CHECK(ca_linalg_matmul(&p, B, A) == CA_EINVAL && p == NULL);
  CHECK(strstr(ca_last_error_message(), "(4, 3)") && strstr(ca_last_error_message(), "(5, 4)"));
  Q = R = (ca_array_t *)1;
  CHECK(ca_linalg_qr(&Q, &R, A) == CA_EINVAL && Q == NULL && R == NULL);
  CHECK(strstr(ca_last_error_message(), "one column block") != NULL);
  CHECK(ca_linalg_inv(&p, A) == CA_EINVAL && p == NULL);
  CHECK(ca_linalg_tensordot(&p, A, B, NULL, NULL, 1, 0) == CA_EINVAL && p == NULL);
  CHECK(ca_linalg_norm(&p, A, "bogus", NULL, 0, false) == CA_EINVAL && p == NULL);
  CHECK(ca_linalg_outer(&p, A, B) == CA_EUNSUPPORTED && p == NULL);

  /* A singular matrix fails at compute with CA_EKERNEL "Singular matrix". */
  double ones[4] = {1, 1, 1, 1};
  int64_t onb[2] = {1, 1}, osz[2] = {2, 2};
  ca_array_t *One = mat(ones, 2, 2, onb, osz);
  CHECK_OK(ca_linalg_inv(&p, One));
  ca_block_t *blk = (ca_block_t *)1;
  CHECK(ca_array_compute(&blk, ctx, p, NULL) == CA_EKERNEL && blk == NULL);
  CHECK(strstr(ca_last_error_message(), "Singular matrix") != NULL);
  ca_array_free(p);
  ca_array_free(One);

  ca_array_free(Col);
  ca_array_free(Rhs);
  ca_array_free(Sq);
  ca_array_free(At);
  ca_array_free(A);
  ca_array_free(B);
  ca_context_free(ctx);
  if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
  return failures ? 1 : 0;
}
