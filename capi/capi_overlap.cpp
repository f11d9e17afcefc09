// The overlap API (chunkarray/overlap.h): thin wrappers over src/array/overlap.
#include <chunkarray/overlap.h>

#include <algorithm>
#include <cstring>

#include "array/overlap.hpp"
#include "capi_internal.hpp"

namespace {

ca::Depth depth_in(int32_t nd, const int64_t *depth, const int64_t *after) {
  ca::Depth d;
  for (int32_t k = 0; k < nd; ++k) {
    d.lo.push_back(depth ? depth[k] : 0);
    d.hi.push_back(after ? after[k] : (depth ? depth[k] : 0));
  }
  return d;
}

std::vector<ca::BoundarySpec> boundary_in(int32_t nd, const ca_boundary_t *b) {
  std::vector<ca::BoundarySpec> v(static_cast<size_t>(nd));
  if (b)
    for (int32_t k = 0; k < nd; ++k) v[size_t(k)] = ca::BoundarySpec{b[k].kind, b[k].value};
  return v;
}

}  // namespace

extern "C" {

CA_API ca_status_t ca_array_overlap(ca_array_t **out, const ca_array_t *a, const int64_t *depth,
                                    const ca_boundary_t *boundary, const ca_overlap_options_t *opts) {
  OUT_INIT(out);
  CA_ARG_NOT_NULL(a);
  CA_TRY
  ca_overlap_options_t o = ca::capi::options_in(opts, ca_overlap_options_t CA_OVERLAP_OPTIONS_INIT, "ca_array_overlap");
  ca::ArrayPtr x = ca::capi::unwrap(a);
  *out = ca::capi::wrap_array(ca::overlap(x, depth_in(x->ndim(), depth, o.depth_after),
                                        boundary_in(x->ndim(), boundary), o.allow_rechunk != 0));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_trim_internal(ca_array_t **out, const ca_array_t *a, const int64_t *depth,
                                          const ca_boundary_t *boundary, const ca_overlap_options_t *opts) {
  OUT_INIT(out);
  CA_ARG_NOT_NULL(a);
  CA_TRY
  ca_overlap_options_t o = ca::capi::options_in(opts, ca_overlap_options_t CA_OVERLAP_OPTIONS_INIT, "ca_array_trim_internal");
  ca::ArrayPtr x = ca::capi::unwrap(a);
  *out = ca::capi::wrap_array(
      ca::trim_internal(x, depth_in(x->ndim(), depth, o.depth_after), boundary_in(x->ndim(), boundary)));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_map_overlap(ca_array_t **out, const char *kernel, const ca_array_t *const *arrays,
                                        size_t narrays, const int64_t *depth, const ca_boundary_t *boundary,
                                        const ca_arg_t *extra, size_t nextra, const ca_map_overlap_options_t *opts) {
  OUT_INIT(out);
  CA_ARG_NOT_NULL(kernel);
  CA_TRY
  CA_CHECK(arrays || narrays == 0, CA_EINVAL, "ca_array_map_overlap: arrays is NULL with narrays ", narrays);
  CA_CHECK(narrays >= 1, CA_EINVAL, "ca_array_map_overlap: at least one array is needed");
  CA_CHECK(extra || nextra == 0, CA_EINVAL, "ca_array_map_overlap: extra is NULL with nextra ", nextra);
  ca_map_overlap_options_t o =
      ca::capi::options_in(opts, ca_map_overlap_options_t CA_MAP_OVERLAP_OPTIONS_INIT, "ca_array_map_overlap");
  std::vector<ca::ArrayPtr> xs;
  int32_t nd = 0;
  for (size_t i = 0; i < narrays; ++i) {
    CA_CHECK(arrays[i], CA_EINVAL, "ca_array_map_overlap: array ", i, " is NULL");
    xs.push_back(ca::capi::unwrap(arrays[i]));
    nd = std::max(nd, xs.back()->ndim());
  }
  ca::MapOverlapOptions mo;
  mo.dtype = o.dtype;
  mo.trim = o.trim != 0;
  ca::Chunks chunks;
  if (o.chunks) {
    chunks = ca::capi::chunks_in(o.chunks, "ca_array_map_overlap");
    mo.chunks = &chunks;
  }
  mo.allow_rechunk = o.allow_rechunk != 0;
  mo.align_arrays = o.align_arrays != 0;
  mo.block_info = o.block_info != 0;
  if (o.name) mo.name = o.name;
  std::vector<ca_arg_t> ex(extra, extra + nextra);
  *out = ca::capi::wrap_array(
      ca::map_overlap(kernel, xs, depth_in(nd, depth, o.depth_after), boundary_in(nd, boundary), ex, mo));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_sliding_window_view(ca_array_t **out, const ca_array_t *a, const int64_t *window_shape,
                                                size_t nwindow, const int32_t *axis) {
  OUT_INIT(out);
  CA_ARG_NOT_NULL(a);
  CA_TRY
  CA_CHECK(window_shape || nwindow == 0, CA_EINVAL, "ca_array_sliding_window_view: window_shape is NULL with nwindow ",
           nwindow);
  std::vector<ca::Index> w(window_shape, window_shape + nwindow);
  std::vector<int64_t> ax;
  if (axis) ax.assign(axis, axis + nwindow);
  ca::ArrayPtr x = ca::capi::unwrap(a);
  if (!axis)
    CA_CHECK(nwindow == size_t(x->ndim()), CA_EINVAL, "ca_array_sliding_window_view: since axis is NULL, window_shape "
             "must have one entry per dimension (", x->ndim(), "), got ", nwindow);
  *out = ca::capi::wrap_array(ca::sliding_window_view(x, w, ax));
  return CA_OK;
  CA_CATCH
}

}  // extern "C"
