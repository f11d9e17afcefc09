// The FFT API (chunkarray/fft.h): thin wrappers over src/fft.
#include <chunkarray/fft.h>

#include "capi_internal.hpp"
#include "fft/fft.hpp"
#include "fft/plan.hpp"

namespace {

// A counted list (count -1: absent) as a vector; CA_EINVAL for a NULL list with a positive count.
template <class T>
std::vector<int64_t> fft_list_in(const T *p, int32_t n, const char *fn, const char *which, const char *count) {
  CA_CHECK(n >= -1, CA_EINVAL, fn, ": ", count, " ", n, " is negative (-1: the default)");
  CA_CHECK(n <= 0 || p, CA_EINVAL, fn, ": ", which, " is NULL with ", count, " ", n);
  return n <= 0 ? std::vector<int64_t>() : std::vector<int64_t>(p, p + n);
}

ca_status_t fft_shift(ca_array_t **out, const ca_array_t *a, const int32_t *axes, int32_t naxes, bool inverse,
                      const char *fn) {
  CA_ARG_NOT_NULL_IN(fn, out);
  *out = nullptr;
  CA_TRY
  const ca::ArrayPtr &x = arr(a, fn);
  std::vector<int64_t> ax = fft_list_in(axes, naxes, fn, "axes", "naxes");
  *out = ca::capi::wrap_array(ca::fft::fftshift(x, naxes >= 0, ax, inverse));
  return CA_OK;
  CA_CATCH_IN(fn)
}

}  // namespace

extern "C" {

CA_API ca_status_t ca_fft_transform(ca_array_t **out, const ca_array_t *a, ca_fft_kind_t kind,
                                    const ca_fft_options_t *opts) {
  OUT_INIT(out);
  CA_TRY
  const ca::ArrayPtr &x = arr(a, "ca_fft_transform");
  const ca_fft_options_t o = ca::capi::options_in(opts, ca_fft_options_t CA_FFT_OPTIONS_INIT, "ca_fft_transform");
  CA_CHECK(int32_t(kind) >= 0 && int32_t(kind) <= 5, CA_EINVAL, "ca_fft_transform: unknown kind ", int32_t(kind));
  ca::fft::Options e;
  e.axes = fft_list_in(o.axes, o.naxes, "ca_fft_transform", "opts->axes", "opts->naxes");
  e.has_axes = o.naxes >= 0;
  e.s = fft_list_in(o.s, o.ns, "ca_fft_transform", "opts->s", "opts->ns");
  e.has_s = o.ns >= 0;
  e.norm = ca::fft::Norm(o.norm);
  static const char *const names[] = {"fft", "ifft", "rfft", "irfft", "hfft", "ihfft"};
  *out = ca::capi::wrap_array(ca::fft::transform(x, ca::fft::Kind(kind), e, names[kind]));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_fft_fftfreq(ca_array_t **out, int64_t n, double d, const ca_chunks_t *chunks) {
  OUT_INIT(out);
  CA_TRY
  *out = ca::capi::wrap_array(ca::fft::fftfreq(n, d, ca::capi::chunks_in(chunks, "ca_fft_fftfreq"), false));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_fft_rfftfreq(ca_array_t **out, int64_t n, double d, const ca_chunks_t *chunks) {
  OUT_INIT(out);
  CA_TRY
  *out = ca::capi::wrap_array(ca::fft::fftfreq(n, d, ca::capi::chunks_in(chunks, "ca_fft_rfftfreq"), true));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_fft_fftshift(ca_array_t **out, const ca_array_t *a, const int32_t *axes, int32_t naxes) {
  return fft_shift(out, a, axes, naxes, false, "ca_fft_fftshift");
}

CA_API ca_status_t ca_fft_ifftshift(ca_array_t **out, const ca_array_t *a, const int32_t *axes, int32_t naxes) {
  return fft_shift(out, a, axes, naxes, true, "ca_fft_ifftshift");
}

CA_API const char *ca_fft_backend(void) { return ca::fft::backend_name(); }

}  // extern "C"
