// The routines API (chunkarray/routines.h): thin wrappers over src/array/routines.hpp.
#include <chunkarray/routines.h>

#include "array/expr.hpp"
#include "array/routines.hpp"
#include "capi_internal.hpp"

using ca::capi::wrap_array;

namespace {

ca_status_t like_call(const char *fn, ca::LikeKind kind, ca_array_t **out, const ca_array_t *a,
                      const ca_scalar_t *value, const ca_like_options_t *opts) {
  CA_ARG_NOT_NULL_IN(fn, out);
  *out = nullptr;
  CA_TRY
  const ca::ArrayPtr &x = arr(a, fn);
  const ca_like_options_t o = ca::capi::options_in(opts, ca_like_options_t CA_LIKE_OPTIONS_INIT, fn);
  std::vector<ca::Index> shape;
  const bool has_shape = o.ndim >= 0;
  if (has_shape) shape = ca::capi::shape_in(o.ndim, o.shape, fn);
  ca::Chunks chunks;
  if (o.chunks) chunks = ca::capi::chunks_in(o.chunks, fn);
  std::complex<double> v = 0.0;
  if (value) {
    const ca::ScalarValue sv = ca::scalar_value(*value);
    v = {sv.re, sv.im};
  }
  *out = wrap_array(ca::like(kind, x, o.dtype, has_shape ? &shape : nullptr, o.chunks ? &chunks : nullptr, v, o.limit));
  return CA_OK;
  CA_CATCH
}

std::vector<ca::ArrayPtr> arrays_or_empty(const ca_array_t *const *arrays, size_t n, const char *fn) {
  CA_CHECK(n == 0 || arrays, CA_EINVAL, fn, ": arrays is NULL");
  return ca::capi::arrays_in(arrays, n, fn);
}

}  // namespace

extern "C" {

CA_API ca_status_t ca_array_empty_like(ca_array_t **out, const ca_array_t *a, const ca_like_options_t *opts) {
  return like_call("ca_array_empty_like", ca::LikeKind::Empty, out, a, nullptr, opts);
}
CA_API ca_status_t ca_array_zeros_like(ca_array_t **out, const ca_array_t *a, const ca_like_options_t *opts) {
  return like_call("ca_array_zeros_like", ca::LikeKind::Zeros, out, a, nullptr, opts);
}
CA_API ca_status_t ca_array_ones_like(ca_array_t **out, const ca_array_t *a, const ca_like_options_t *opts) {
  return like_call("ca_array_ones_like", ca::LikeKind::Ones, out, a, nullptr, opts);
}
CA_API ca_status_t ca_array_full_like(ca_array_t **out, const ca_array_t *a, ca_scalar_t value,
                                      const ca_like_options_t *opts) {
  return like_call("ca_array_full_like", ca::LikeKind::Full, out, a, &value, opts);
}

CA_API ca_status_t ca_array_indices(ca_array_t **out, int32_t ndim, const int64_t *dims, const ca_chunks_t *chunks,
                                    ca_dtype_t dtype) {
  OUT_INIT(out);
  CA_ARG_NOT_NULL(chunks);
  CA_TRY
  CA_CHECK(ndim >= 0 && ndim < CA_MAX_NDIM, CA_EINVAL, "ca_array_indices: ndim ", ndim, " is out of range");
  CA_CHECK(ndim == 0 || dims, CA_EINVAL, "ca_array_indices: dims is NULL");
  std::vector<ca::Index> d(dims, dims + ndim);
  *out = wrap_array(ca::indices(d, ca::capi::chunks_in(chunks, "ca_array_indices"), dtype));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_meshgrid(ca_array_t **out, const ca_array_t *const *arrays, size_t n,
                                     ca_meshgrid_indexing_t indexing, int sparse) {
  CA_ARG_NOT_NULL(out);
  for (size_t i = 0; i < n; ++i) out[i] = nullptr;
  CA_TRY
  CA_CHECK(indexing == CA_MESHGRID_XY || indexing == CA_MESHGRID_IJ, CA_EINVAL,
           "ca_array_meshgrid: unknown indexing ", int32_t(indexing), " (CA_MESHGRID_XY or CA_MESHGRID_IJ)");
  auto res = ca::meshgrid(arrays_or_empty(arrays, n, "ca_array_meshgrid"), indexing == CA_MESHGRID_XY, sparse != 0);
  for (size_t i = 0; i < n; ++i) out[i] = wrap_array(res[i]);
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_broadcast_arrays(ca_array_t **out, const ca_array_t *const *arrays, size_t n) {
  CA_ARG_NOT_NULL(out);
  for (size_t i = 0; i < n; ++i) out[i] = nullptr;
  CA_TRY
  auto res = ca::broadcast_arrays(arrays_or_empty(arrays, n, "ca_array_broadcast_arrays"));
  for (size_t i = 0; i < n; ++i) out[i] = wrap_array(res[i]);
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_tril(ca_array_t **out, const ca_array_t *m, int64_t k) {
  OUT_INIT(out);
  CA_TRY
  *out = wrap_array(ca::tril(arr(m, "ca_array_tril", "m"), k));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_triu(ca_array_t **out, const ca_array_t *m, int64_t k) {
  OUT_INIT(out);
  CA_TRY
  *out = wrap_array(ca::triu(arr(m, "ca_array_triu", "m"), k));
  return CA_OK;
  CA_CATCH
}

namespace {
ca_status_t tri_indices_call(const char *fn, bool upper, ca_array_t **rows, ca_array_t **cols, int64_t n, int64_t k,
                             int64_t m, const ca_chunks_t *chunks) {
  CA_ARG_NOT_NULL_IN(fn, rows);
  *rows = nullptr;
  CA_ARG_NOT_NULL_IN(fn, cols);
  *cols = nullptr;
  CA_ARG_NOT_NULL_IN(fn, chunks);
  CA_TRY
  CA_CHECK(n >= 0, CA_EINVAL, fn, ": n = ", n, " is negative");
  auto res = ca::tri_indices(n, k, m < 0 ? n : m, ca::capi::chunks_in(chunks, fn), upper);
  ca_array_t *r = wrap_array(res[0]);
  *cols = wrap_array(res[1]);
  *rows = r;
  return CA_OK;
  CA_CATCH
}
}  // namespace

CA_API ca_status_t ca_array_tril_indices(ca_array_t **rows, ca_array_t **cols, int64_t n, int64_t k, int64_t m,
                                         const ca_chunks_t *chunks) {
  return tri_indices_call("ca_array_tril_indices", false, rows, cols, n, k, m, chunks);
}
CA_API ca_status_t ca_array_triu_indices(ca_array_t **rows, ca_array_t **cols, int64_t n, int64_t k, int64_t m,
                                         const ca_chunks_t *chunks) {
  return tri_indices_call("ca_array_triu_indices", true, rows, cols, n, k, m, chunks);
}

CA_API ca_status_t ca_array_diagonal(ca_array_t **out, const ca_array_t *a, int64_t offset, int32_t axis1,
                                     int32_t axis2) {
  OUT_INIT(out);
  CA_TRY
  *out = wrap_array(ca::diagonal(arr(a, "ca_array_diagonal"), offset, axis1, axis2));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_sort(ca_array_t **out, const ca_array_t *a, int32_t axis, int descending) {
  OUT_INIT(out);
  CA_TRY
  *out = wrap_array(ca::sort(arr(a, "ca_array_sort"), axis, descending != 0, false));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_argsort(ca_array_t **out, const ca_array_t *a, int32_t axis, int descending) {
  OUT_INIT(out);
  CA_TRY
  *out = wrap_array(ca::sort(arr(a, "ca_array_argsort"), axis, descending != 0, true));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_unique(ca_array_t **values, ca_array_t **index, ca_array_t **inverse,
                                   ca_array_t **counts, const ca_array_t *a, uint32_t flags) {
  for (ca_array_t **o : {values, index, inverse, counts})
    if (o) *o = nullptr;
  CA_ARG_NOT_NULL(values);
  CA_TRY
  CA_CHECK((flags & ~CA_UNIQUE_DISTINCT_NAN) == 0, CA_EINVAL, "ca_array_unique: unknown flag bits ", flags);
  ca::UniqueResult r = ca::unique(arr(a, "ca_array_unique"), index != nullptr, inverse != nullptr, counts != nullptr,
                                  (flags & CA_UNIQUE_DISTINCT_NAN) == 0);
  // Wrap all first (a failing allocation leaves every output NULL).
  std::vector<ca_array_t *> w;
  try {
    for (auto *p : {&r.values, &r.index, &r.inverse, &r.counts}) w.push_back(*p ? wrap_array(*p) : nullptr);
  } catch (...) {
    for (ca_array_t *h : w) ca_array_free(h);
    throw;
  }
  *values = w[0];
  if (index) *index = w[1];
  if (inverse) *inverse = w[2];
  if (counts) *counts = w[3];
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_isin(ca_array_t **out, const ca_array_t *element, const ca_array_t *test_elements,
                                 int invert) {
  OUT_INIT(out);
  CA_TRY
  *out = wrap_array(ca::isin(arr(element, "ca_array_isin", "element"), arr(test_elements, "ca_array_isin",
                                                                            "test_elements"), invert != 0));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_union1d(ca_array_t **out, const ca_array_t *a, const ca_array_t *b) {
  OUT_INIT(out);
  CA_TRY
  *out = wrap_array(ca::union1d(arr(a, "ca_array_union1d"), arr(b, "ca_array_union1d", "b")));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_searchsorted(ca_array_t **out, const ca_array_t *a, const ca_array_t *v, ca_side_t side,
                                         const ca_array_t *sorter) {
  OUT_INIT(out);
  CA_TRY
  CA_CHECK(side == CA_SIDE_LEFT || side == CA_SIDE_RIGHT, CA_EINVAL, "ca_array_searchsorted: unknown side ",
           int32_t(side), " (CA_SIDE_LEFT or CA_SIDE_RIGHT)");
  const ca::ArrayPtr &x = arr(a, "ca_array_searchsorted");
  const ca::ArrayPtr &y = arr(v, "ca_array_searchsorted", "v");
  ca::ArrayPtr s = sorter ? arr(sorter, "ca_array_searchsorted", "sorter") : nullptr;
  *out = wrap_array(ca::searchsorted(x, y, side == CA_SIDE_RIGHT, s));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_digitize(ca_array_t **out, const ca_array_t *x, const ca_array_t *bins, int right) {
  OUT_INIT(out);
  CA_TRY
  *out = wrap_array(ca::digitize(arr(x, "ca_array_digitize", "x"), arr(bins, "ca_array_digitize", "bins"), right != 0));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_argwhere(ca_array_t **out, const ca_array_t *a) {
  OUT_INIT(out);
  CA_TRY
  *out = wrap_array(ca::argwhere(arr(a, "ca_array_argwhere")));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_nonzero(ca_array_t **out, const ca_array_t *a) {
  CA_ARG_NOT_NULL(out);
  CA_ARG_NOT_NULL(a);
  const int32_t nd = ca_array_ndim(a);
  for (int32_t i = 0; i < nd; ++i) out[i] = nullptr;
  CA_TRY
  auto res = ca::nonzero(arr(a, "ca_array_nonzero"));
  for (int32_t i = 0; i < nd; ++i) out[i] = wrap_array(res[size_t(i)]);
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_flatnonzero(ca_array_t **out, const ca_array_t *a) {
  OUT_INIT(out);
  CA_TRY
  *out = wrap_array(ca::flatnonzero(arr(a, "ca_array_flatnonzero")));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_roll(ca_array_t **out, const ca_array_t *a, const int64_t *shifts, const int32_t *axes,
                                 int32_t n) {
  OUT_INIT(out);
  CA_ARG_NOT_NULL(shifts);
  CA_TRY
  CA_CHECK(n >= 1, CA_EINVAL, "ca_array_roll: n = ", n, " (at least one shift)");
  std::vector<ca::Index> s(shifts, shifts + n);
  std::vector<int64_t> ax;
  if (axes) ax.assign(axes, axes + n);
  *out = wrap_array(ca::roll(arr(a, "ca_array_roll"), s, ax));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_rot90(ca_array_t **out, const ca_array_t *m, int64_t k, int32_t axis0, int32_t axis1) {
  OUT_INIT(out);
  CA_TRY
  *out = wrap_array(ca::rot90(arr(m, "ca_array_rot90", "m"), k, axis0, axis1));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_rollaxis(ca_array_t **out, const ca_array_t *a, int32_t axis, int32_t start) {
  OUT_INIT(out);
  CA_TRY
  *out = wrap_array(ca::rollaxis(arr(a, "ca_array_rollaxis"), axis, start));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_insert(ca_array_t **out, const ca_array_t *arr_, const int64_t *positions, size_t n,
                                   const ca_array_t *values, int32_t axis) {
  OUT_INIT(out);
  CA_TRY
  CA_CHECK(n == 0 || positions, CA_EINVAL, "ca_array_insert: positions is NULL");
  std::vector<ca::Index> p(positions, positions + n);
  *out = wrap_array(ca::insert(arr(arr_, "ca_array_insert", "arr"), p, arr(values, "ca_array_insert", "values"), axis));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_delete(ca_array_t **out, const ca_array_t *arr_, const int64_t *positions, size_t n,
                                   int32_t axis) {
  OUT_INIT(out);
  CA_TRY
  CA_CHECK(n == 0 || positions, CA_EINVAL, "ca_array_delete: positions is NULL");
  std::vector<ca::Index> p(positions, positions + n);
  *out = wrap_array(ca::delete_at(arr(arr_, "ca_array_delete", "arr"), p, axis));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_choose(ca_array_t **out, const ca_array_t *a, const ca_array_t *const *choices, size_t n,
                                   ca_choose_mode_t mode) {
  OUT_INIT(out);
  CA_TRY
  CA_CHECK(choices && n > 0, CA_EINVAL, "ca_array_choose: no choices (choices NULL or n == 0)");
  CA_CHECK(mode == CA_CHOOSE_RAISE || mode == CA_CHOOSE_WRAP || mode == CA_CHOOSE_CLIP, CA_EINVAL,
           "ca_array_choose: unknown mode ", int32_t(mode), " (CA_CHOOSE_RAISE, CA_CHOOSE_WRAP or CA_CHOOSE_CLIP)");
  *out = wrap_array(ca::choose(arr(a, "ca_array_choose"), ca::capi::arrays_in(choices, n, "ca_array_choose"),
                               int32_t(mode)));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_select(ca_array_t **out, const ca_array_t *const *conditions,
                                   const ca_array_t *const *choices, size_t n, ca_scalar_t default_value) {
  OUT_INIT(out);
  CA_TRY
  CA_CHECK(conditions && choices, CA_EINVAL, "ca_array_select: conditions or choices is NULL");
  CA_CHECK(n > 0, CA_EINVAL, "ca_array_select: select with an empty condition list is not possible");
  (void)ca::scalar_value(default_value);  // checks the scalar's kind
  *out = wrap_array(ca::select(ca::capi::arrays_in(conditions, n, "ca_array_select"),
                               ca::capi::arrays_in(choices, n, "ca_array_select"), default_value));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_coarsen(ca_array_t **out, ca_reduction_t op, const ca_array_t *x, const int64_t *factors,
                                    int trim_excess) {
  OUT_INIT(out);
  CA_TRY
  const ca::ArrayPtr &a = arr(x, "ca_array_coarsen", "x");
  CA_CHECK(factors || a->ndim() == 0, CA_EINVAL, "ca_array_coarsen: factors is NULL");
  CA_CHECK(op >= CA_RED_SUM && op <= CA_RED_NANARGMAX, CA_EINVAL, "ca_array_coarsen: unknown reduction ", int32_t(op));
  std::vector<ca::Index> f;
  if (factors) f.assign(factors, factors + a->ndim());
  *out = wrap_array(ca::coarsen(int32_t(op), a, f, trim_excess != 0));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_bincount(ca_array_t **out, const ca_array_t *x, const ca_array_t *weights, int64_t length,
                                     int32_t split_every) {
  OUT_INIT(out);
  CA_TRY
  const ca::ArrayPtr &a = arr(x, "ca_array_bincount", "x");
  ca::ArrayPtr w = weights ? arr(weights, "ca_array_bincount", "weights") : nullptr;
  *out = wrap_array(ca::bincount(a, w, length, split_every));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_histogramdd(ca_array_t **out, ca_array_t **edges_out, const ca_array_t *const *samples,
                                        size_t d, const ca_histogram_bins_t *bins,
                                        const ca_histogram_options_t *opts) {
  constexpr const char *fn = "ca_array_histogramdd";
  OUT_INIT(out);
  if (edges_out)
    for (size_t i = 0; i < d; ++i) edges_out[i] = nullptr;
  CA_TRY
  CA_CHECK(samples, CA_EINVAL, fn, ": samples is NULL");
  CA_CHECK(bins, CA_EINVAL, fn, ": bins is NULL");
  CA_CHECK(d >= 1, CA_EINVAL, fn, ": d must be at least 1");
  const ca_histogram_options_t o = ca::capi::options_in(opts, ca_histogram_options_t CA_HISTOGRAM_OPTIONS_INIT, fn);
  CA_CHECK(o.mode == CA_HISTOGRAM_1D || o.mode == CA_HISTOGRAM_DD, CA_EINVAL, fn, ": unknown mode ", o.mode);
  std::vector<ca::ArrayPtr> s = ca::capi::arrays_in(samples, d, fn);
  std::vector<ca::HistogramBins> b(d);
  for (size_t i = 0; i < d; ++i) {
    b[i].nbins = bins[i].nbins;
    b[i].lo = bins[i].lo;
    b[i].hi = bins[i].hi;
    if (bins[i].edges) b[i].edges = arr(bins[i].edges, fn, "bins[].edges");
  }
  ca::ArrayPtr w = o.weights ? arr(o.weights, fn, "opts->weights") : nullptr;
  ca::HistogramResult r = ca::histogramdd(s, b, w, o.density != 0, o.mode == CA_HISTOGRAM_DD, o.split_every);
  std::vector<ca_array_t *> e;
  if (edges_out)
    for (auto &a : r.edges) e.push_back(wrap_array(a));
  *out = wrap_array(r.hist);
  for (size_t i = 0; i < e.size(); ++i) edges_out[i] = e[i];
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_ravel_multi_index(ca_array_t **out, const ca_array_t *const *coords, size_t n,
                                              const int64_t *dims, const int32_t *modes, int fortran_order) {
  OUT_INIT(out);
  CA_TRY
  CA_CHECK(coords, CA_EINVAL, "ca_array_ravel_multi_index: coords is NULL");
  CA_CHECK(dims, CA_EINVAL, "ca_array_ravel_multi_index: dims is NULL");
  CA_CHECK(n > 0, CA_EINVAL, "ca_array_ravel_multi_index: n is 0 (at least one dimension)");
  std::vector<int32_t> m(n, int32_t(CA_CHOOSE_RAISE));
  if (modes)
    for (size_t k = 0; k < n; ++k) m[k] = int32_t(modes[k]);
  *out = wrap_array(ca::ravel_multi_index(ca::capi::arrays_in(coords, n, "ca_array_ravel_multi_index"),
                                          std::vector<ca::Index>(dims, dims + n), m, fortran_order != 0));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_unravel_index(ca_array_t **out, const ca_array_t *indices, const int64_t *dims, size_t n,
                                          int fortran_order) {
  CA_ARG_NOT_NULL(out);
  for (size_t k = 0; k < n; ++k) out[k] = nullptr;
  CA_TRY
  CA_CHECK(dims, CA_EINVAL, "ca_array_unravel_index: dims is NULL");
  CA_CHECK(n > 0, CA_EINVAL, "ca_array_unravel_index: n is 0 (at least one dimension)");
  auto res = ca::unravel_index(arr(indices, "ca_array_unravel_index", "indices"), std::vector<ca::Index>(dims, dims + n),
                               fortran_order != 0);
  for (size_t k = 0; k < n; ++k) out[k] = wrap_array(res[k]);
  return CA_OK;
  CA_CATCH
}

}  // extern "C"
