// The gufunc API (chunkarray/gufunc.h): thin wrappers over src/array/gufunc.
#include <chunkarray/gufunc.h>

#include <algorithm>
#include <cstring>

#include "array/gufunc.hpp"
#include "capi_internal.hpp"

// capi_array.cpp (hidden).

extern "C" {

CA_API ca_status_t ca_gufunc_signature_parse(const char *signature, int32_t *nin, int32_t *nout) {
  if (nin) *nin = 0;
  if (nout) *nout = 0;
  CA_ARG_NOT_NULL(signature);
  CA_TRY
  ca::GufuncSignature s = ca::parse_gufunc_signature(signature);
  if (nin) *nin = int32_t(s.inputs.size());
  if (nout) *nout = int32_t(s.outputs.size());
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_apply_gufunc(ca_array_t **out, size_t nout, const char *kernel, const char *signature,
                                         const ca_array_t *const *arrays, size_t narrays,
                                         const ca_gufunc_options_t *opts) {
  CA_ARG_NOT_NULL(out);
  for (size_t i = 0; i < nout; ++i) out[i] = nullptr;
  CA_ARG_NOT_NULL(kernel);
  CA_ARG_NOT_NULL(signature);
  CA_TRY
  CA_CHECK(arrays || narrays == 0, CA_EINVAL, "ca_array_apply_gufunc: arrays is NULL with narrays ", narrays);
  ca_gufunc_options_t o = CA_GUFUNC_OPTIONS_INIT;
  if (opts) {
    CA_CHECK(opts->struct_size >= sizeof(uint32_t), CA_EINVAL, "ca_array_apply_gufunc: opts->struct_size is too small");
    std::memcpy(&o, opts, std::min<size_t>(opts->struct_size, sizeof(o)));
  }
  ca::GufuncSignature sig = ca::parse_gufunc_signature(signature);
  if (nout != sig.outputs.size())
    ca::fail(CA_EINVAL, "ca_array_apply_gufunc: signature '", signature, "' has ", sig.outputs.size(), " output",
             sig.outputs.size() == 1 ? "" : "s", ", nout is ", nout);
  std::vector<ca::ArrayPtr> xs;
  for (size_t i = 0; i < narrays; ++i) {
    CA_CHECK(arrays[i], CA_EINVAL, "ca_array_apply_gufunc: array ", i, " is NULL");
    xs.push_back(ca::capi::unwrap(arrays[i]));
  }
  ca::GufuncOptions g;
  if (o.output_dtypes) g.output_dtypes.assign(o.output_dtypes, o.output_dtypes + nout);
  if (o.naxes_args != 0) {
    CA_CHECK(o.naxes_args > 0 && o.axes_counts, CA_EINVAL, "ca_array_apply_gufunc: naxes_args ", o.naxes_args,
             " needs axes_counts");
    g.has_axes = true;
    size_t pos = 0;
    for (int32_t i = 0; i < o.naxes_args; ++i) {
      int32_t n = o.axes_counts[i];
      CA_CHECK(n >= 0 && n <= CA_MAX_NDIM, CA_EINVAL, "ca_array_apply_gufunc: axes_counts[", i, "] is ", n);
      CA_CHECK(n == 0 || o.axes, CA_EINVAL, "ca_array_apply_gufunc: axes is NULL");
      g.axes.emplace_back(o.axes + pos, o.axes + pos + size_t(n));
      pos += size_t(n);
    }
  }
  g.has_axis = o.has_axis != 0;
  g.axis = o.axis;
  g.keepdims = o.keepdims != 0;
  CA_CHECK(o.noutput_sizes >= 0, CA_EINVAL, "ca_array_apply_gufunc: noutput_sizes is negative");
  CA_CHECK(o.noutput_sizes == 0 || (o.output_size_names && o.output_sizes), CA_EINVAL,
           "ca_array_apply_gufunc: output_size_names or output_sizes is NULL");
  for (int32_t i = 0; i < o.noutput_sizes; ++i) {
    CA_CHECK(o.output_size_names[i], CA_EINVAL, "ca_array_apply_gufunc: output_size_names[", i, "] is NULL");
    g.output_sizes[o.output_size_names[i]] = o.output_sizes[i];
  }
  g.allow_rechunk = o.allow_rechunk != 0;
  CA_CHECK(o.extra || o.nextra == 0, CA_EINVAL, "ca_array_apply_gufunc: extra is NULL with nextra ", o.nextra);
  g.extra.assign(o.extra, o.extra + o.nextra);
  if (o.name) g.name = o.name;
  std::vector<ca::ArrayPtr> res = ca::apply_gufunc(kernel, signature, xs, g);
  for (size_t i = 0; i < nout; ++i) out[i] = ca::capi::wrap_array(res[i]);
  return CA_OK;
  CA_CATCH
}

}  // extern "C"
