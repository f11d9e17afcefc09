// The shape API (chunkarray/shape.h): thin wrappers over src/array/shape.hpp.
#include <chunkarray/shape.h>

#include "array/shape.hpp"
#include "capi_internal.hpp"

namespace {

template <class T>
std::vector<int64_t> list(const T *p, int64_t n, const char *what, const char *name) {
  CA_CHECK(n >= 0, CA_EINVAL, what, ": negative count ", n, " of ", name);
  CA_CHECK(p || n == 0, CA_EINVAL, what, ": ", name, " is NULL");
  return std::vector<int64_t>(p, p + n);
}

}  // namespace

extern "C" {

CA_API ca_status_t ca_array_reshape(ca_array_t **out, const ca_array_t *a, int32_t ndim, const int64_t *shape) {
  OUT_INIT(out);
  CA_TRY
  CA_CHECK(ndim >= 0 && ndim <= CA_MAX_NDIM, CA_EINVAL, "ca_array_reshape: ndim ", ndim, " is out of range");
  auto s = list(shape, ndim, "ca_array_reshape", "shape");
  *out = ca::capi::wrap_array(ca::reshape(arr(a, "ca_array_reshape"), s));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_ravel(ca_array_t **out, const ca_array_t *a) {
  OUT_INIT(out);
  CA_TRY
  *out = ca::capi::wrap_array(ca::ravel(arr(a, "ca_array_ravel")));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_transpose(ca_array_t **out, const ca_array_t *a, const int32_t *axes) {
  OUT_INIT(out);
  CA_TRY
  auto x = arr(a, "ca_array_transpose");
  std::vector<int64_t> ax;
  if (axes) ax = list(axes, x->ndim(), "ca_array_transpose", "axes");
  *out = ca::capi::wrap_array(ca::transpose(x, ax));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_moveaxis(ca_array_t **out, const ca_array_t *a, const int32_t *source,
                                     const int32_t *destination, int32_t n) {
  OUT_INIT(out);
  CA_TRY
  auto s = list(source, n, "ca_array_moveaxis", "source");
  auto d = list(destination, n, "ca_array_moveaxis", "destination");
  *out = ca::capi::wrap_array(ca::moveaxis(arr(a, "ca_array_moveaxis"), s, d));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_swapaxes(ca_array_t **out, const ca_array_t *a, int32_t axis1, int32_t axis2) {
  OUT_INIT(out);
  CA_TRY
  *out = ca::capi::wrap_array(ca::swapaxes(arr(a, "ca_array_swapaxes"), axis1, axis2));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_squeeze(ca_array_t **out, const ca_array_t *a, const int32_t *axes, int32_t naxes) {
  OUT_INIT(out);
  CA_TRY
  auto x = arr(a, "ca_array_squeeze");
  std::vector<int64_t> ax;
  if (axes) ax = list(axes, naxes, "ca_array_squeeze", "axes");
  *out = ca::capi::wrap_array(ca::squeeze(x, ax, axes == nullptr));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_expand_dims(ca_array_t **out, const ca_array_t *a, const int32_t *axes, int32_t naxes) {
  OUT_INIT(out);
  CA_TRY
  auto ax = list(axes, naxes, "ca_array_expand_dims", "axes");
  *out = ca::capi::wrap_array(ca::expand_dims(arr(a, "ca_array_expand_dims"), ax));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_broadcast_to(ca_array_t **out, const ca_array_t *a, int32_t ndim, const int64_t *shape,
                                         const ca_chunks_t *chunks) {
  OUT_INIT(out);
  CA_TRY
  CA_CHECK(ndim >= 0 && ndim <= CA_MAX_NDIM, CA_EINVAL, "ca_array_broadcast_to: ndim ", ndim, " is out of range");
  auto s = list(shape, ndim, "ca_array_broadcast_to", "shape");
  ca::Chunks c;
  if (chunks) c = ca::capi::chunks_in(chunks, "ca_array_broadcast_to");
  *out = ca::capi::wrap_array(ca::broadcast_to(arr(a, "ca_array_broadcast_to"), s, chunks ? &c : nullptr));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_concatenate(ca_array_t **out, const ca_array_t *const *arrays, size_t n, int32_t axis) {
  OUT_INIT(out);
  CA_TRY
  *out = ca::capi::wrap_array(ca::concatenate(ca::capi::arrays_in(arrays, n, "ca_array_concatenate"), axis));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_stack(ca_array_t **out, const ca_array_t *const *arrays, size_t n, int32_t axis) {
  OUT_INIT(out);
  CA_TRY
  *out = ca::capi::wrap_array(ca::stack(ca::capi::arrays_in(arrays, n, "ca_array_stack"), axis));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_block(ca_array_t **out, const ca_array_t *const *arrays, size_t n, int32_t depth,
                                  const int64_t *list_sizes, size_t nlists) {
  OUT_INIT(out);
  CA_TRY
  auto ls = list(list_sizes, int64_t(nlists), "ca_array_block", "list_sizes");
  *out = ca::capi::wrap_array(ca::block(ca::capi::arrays_in(arrays, n, "ca_array_block"), depth, ls));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_repeat(ca_array_t **out, const ca_array_t *a, int64_t repeats, int32_t axis) {
  OUT_INIT(out);
  CA_TRY
  *out = ca::capi::wrap_array(ca::repeat(arr(a, "ca_array_repeat"), repeats, axis));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_tile(ca_array_t **out, const ca_array_t *a, const int64_t *reps, int32_t nreps) {
  OUT_INIT(out);
  CA_TRY
  auto r = list(reps, nreps, "ca_array_tile", "reps");
  *out = ca::capi::wrap_array(ca::tile(arr(a, "ca_array_tile"), r));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_pad(ca_array_t **out, const ca_array_t *a, const int64_t *before, const int64_t *after,
                                ca_pad_mode_t mode, ca_scalar_t value) {
  OUT_INIT(out);
  CA_TRY
  auto x = arr(a, "ca_array_pad");
  auto b = list(before, x->ndim(), "ca_array_pad", "before");
  auto e = list(after, x->ndim(), "ca_array_pad", "after");
  *out = ca::capi::wrap_array(ca::pad(x, b, e, mode, value));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_flip(ca_array_t **out, const ca_array_t *a, const int32_t *axes, int32_t naxes) {
  OUT_INIT(out);
  CA_TRY
  auto x = arr(a, "ca_array_flip");
  std::vector<int64_t> ax;
  if (axes) ax = list(axes, naxes, "ca_array_flip", "axes");
  *out = ca::capi::wrap_array(ca::flip(x, ax, axes == nullptr));
  return CA_OK;
  CA_CATCH
}

}  // extern "C"
