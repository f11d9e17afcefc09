// The linear algebra API (chunkarray/linalg.h): thin wrappers over src/linalg.
#include <chunkarray/linalg.h>

#include "capi_internal.hpp"
#include "array/einsum.hpp"
#include "linalg/linalg.hpp"

namespace {

std::vector<int32_t> axes_in(const int32_t *axes, int32_t n, const char *what, const char *which) {
  CA_CHECK(n >= 0 && (n == 0 || axes), CA_EINVAL, what, ": ", which, " is NULL for ", n, " axes");
  return std::vector<int32_t>(axes, axes + n);
}

}  // namespace

extern "C" {

CA_API ca_status_t ca_linalg_matmul(ca_array_t **out, const ca_array_t *a, const ca_array_t *b) {
  OUT_INIT(out);
  CA_TRY
  *out = ca::capi::wrap_array(ca::linalg::matmul(arr(a, "ca_linalg_matmul", "a"), arr(b, "ca_linalg_matmul", "b")));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_linalg_dot(ca_array_t **out, const ca_array_t *a, const ca_array_t *b) {
  OUT_INIT(out);
  CA_TRY
  *out = ca::capi::wrap_array(ca::linalg::dot(arr(a, "ca_linalg_dot", "a"), arr(b, "ca_linalg_dot", "b")));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_linalg_tensordot(ca_array_t **out, const ca_array_t *a, const ca_array_t *b,
                                       const int32_t *a_axes, const int32_t *b_axes, int32_t naxes,
                                       int32_t split_every) {
  OUT_INIT(out);
  CA_TRY
  auto aa = axes_in(a_axes, naxes, "ca_linalg_tensordot", "a_axes");
  auto bb = axes_in(b_axes, naxes, "ca_linalg_tensordot", "b_axes");
  *out = ca::capi::wrap_array(ca::linalg::tensordot(arr(a, "ca_linalg_tensordot", "a"),
                                                  arr(b, "ca_linalg_tensordot", "b"), aa, bb, split_every));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_linalg_outer(ca_array_t **out, const ca_array_t *a, const ca_array_t *b) {
  OUT_INIT(out);
  CA_TRY
  *out = ca::capi::wrap_array(ca::linalg::outer(arr(a, "ca_linalg_outer", "a"), arr(b, "ca_linalg_outer", "b")));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_linalg_einsum(ca_array_t **out, const char *subscripts, const ca_array_t *const *operands,
                                    size_t noperands, ca_dtype_t dtype) {
  OUT_INIT(out);
  CA_ARG_NOT_NULL(subscripts);
  CA_TRY
  CA_CHECK(operands || noperands == 0, CA_EINVAL, "ca_linalg_einsum: operands is NULL with noperands ", noperands);
  std::vector<ca::ArrayPtr> ops;
  for (size_t k = 0; k < noperands; ++k) {
    CA_CHECK(operands[k], CA_EINVAL, "ca_linalg_einsum: operands[", k, "] is NULL");
    ops.push_back(ca::capi::unwrap(operands[k]));
  }
  *out = ca::capi::wrap_array(ca::linalg::einsum(subscripts, ops, dtype));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_linalg_qr(ca_array_t **q, ca_array_t **r, const ca_array_t *a) {
  // Every output is NULL on failure, also when another output pointer is the NULL argument.
  if (r) *r = nullptr;
  OUT_INIT(q);
  OUT_INIT(r);
  CA_TRY
  ca::linalg::QR f = ca::linalg::qr(arr(a, "ca_linalg_qr", "a"));
  ca_array_t *wq = ca::capi::wrap_array(f.q);
  try {
    *r = ca::capi::wrap_array(f.r);
  } catch (...) {
    ca_array_free(wq);
    throw;
  }
  *q = wq;
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_linalg_svd(ca_array_t **u, ca_array_t **s, ca_array_t **v, const ca_array_t *a) {
  if (s) *s = nullptr;
  if (v) *v = nullptr;
  OUT_INIT(u);
  OUT_INIT(s);
  OUT_INIT(v);
  CA_TRY
  ca::linalg::SVD f = ca::linalg::svd(arr(a, "ca_linalg_svd", "a"));
  ca_array_t *wu = nullptr, *ws = nullptr;
  try {
    wu = ca::capi::wrap_array(f.u);
    ws = ca::capi::wrap_array(f.s);
    *v = ca::capi::wrap_array(f.v);
  } catch (...) {
    ca_array_free(wu);
    ca_array_free(ws);
    throw;
  }
  *u = wu;
  *s = ws;
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_linalg_solve(ca_array_t **out, const ca_array_t *a, const ca_array_t *b) {
  OUT_INIT(out);
  CA_TRY
  *out = ca::capi::wrap_array(ca::linalg::solve(arr(a, "ca_linalg_solve", "a"), arr(b, "ca_linalg_solve", "b")));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_linalg_lu(ca_array_t **p, ca_array_t **l, ca_array_t **u, const ca_array_t *a) {
  if (l) *l = nullptr;
  if (u) *u = nullptr;
  OUT_INIT(p);
  OUT_INIT(l);
  OUT_INIT(u);
  CA_TRY
  ca::linalg::LU f = ca::linalg::lu(arr(a, "ca_linalg_lu", "a"));
  ca_array_t *wp = nullptr, *wl = nullptr;
  try {
    wp = ca::capi::wrap_array(f.p);
    wl = ca::capi::wrap_array(f.l);
    *u = ca::capi::wrap_array(f.u);
  } catch (...) {
    ca_array_free(wp);
    ca_array_free(wl);
    throw;
  }
  *p = wp;
  *l = wl;
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_linalg_inv(ca_array_t **out, const ca_array_t *a) {
  OUT_INIT(out);
  CA_TRY
  *out = ca::capi::wrap_array(ca::linalg::inv(arr(a, "ca_linalg_inv", "a")));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_linalg_cholesky(ca_array_t **out, const ca_array_t *a, int lower) {
  OUT_INIT(out);
  CA_TRY
  *out = ca::capi::wrap_array(ca::linalg::cholesky(arr(a, "ca_linalg_cholesky", "a"), lower));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_linalg_solve_triangular(ca_array_t **out, const ca_array_t *a, const ca_array_t *b, int lower) {
  OUT_INIT(out);
  CA_TRY
  *out = ca::capi::wrap_array(ca::linalg::solve_triangular(arr(a, "ca_linalg_solve_triangular", "a"),
                                                           arr(b, "ca_linalg_solve_triangular", "b"), lower != 0));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_linalg_lstsq(ca_array_t **x, ca_array_t **residuals, ca_array_t **rank, ca_array_t **s,
                                   const ca_array_t *a, const ca_array_t *b) {
  if (residuals) *residuals = nullptr;
  if (rank) *rank = nullptr;
  if (s) *s = nullptr;
  OUT_INIT(x);
  CA_TRY
  ca::linalg::Lstsq f = ca::linalg::lstsq(arr(a, "ca_linalg_lstsq", "a"), arr(b, "ca_linalg_lstsq", "b"));
  ca_array_t *w[4] = {nullptr, nullptr, nullptr, nullptr};
  ca_array_t **dst[4] = {x, residuals, rank, s};
  const ca::ArrayPtr *src[4] = {&f.x, &f.residuals, &f.rank, &f.s};
  try {
    for (int i = 0; i < 4; ++i)
      if (dst[i]) w[i] = ca::capi::wrap_array(*src[i]);
  } catch (...) {
    for (auto *p : w) ca_array_free(p);
    throw;
  }
  for (int i = 0; i < 4; ++i)
    if (dst[i]) *dst[i] = w[i];
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_linalg_norm(ca_array_t **out, const ca_array_t *x, const char *ord, const int32_t *axes,
                                  int32_t naxes, int keepdims) {
  OUT_INIT(out);
  CA_TRY
  auto ax = axes_in(axes, naxes, "ca_linalg_norm", "axes");
  *out = ca::capi::wrap_array(ca::linalg::norm(arr(x, "ca_linalg_norm", "x"), ord ? ord : "", ax, keepdims));
  return CA_OK;
  CA_CATCH
}

}  // extern "C"
