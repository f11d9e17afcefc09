// Masked arrays (chunkarray/masked.h): thin wrappers over src/array/masked.cpp (and io for Zarr).
#include <chunkarray/masked.h>

#include <cmath>

#include "array/masked.hpp"
#include "capi_internal.hpp"
#include "io/array_io.hpp"
#include "io/zarr_meta.hpp"

struct ca_masked {
  std::atomic<int64_t> refs{1};
  ca::ma::MaskedPtr m;
};

namespace ca::capi {
ca_masked_t *wrap_masked(std::shared_ptr<const ma::Masked> m) {
  auto *w = new ca_masked();
  w->m = std::move(m);
  return w;
}
const std::shared_ptr<const ma::Masked> &masked_in(const ca_masked_t *m, const char *what, const char *param) {
  CA_CHECK(m, CA_EINVAL, what, ": ", param, " is NULL");
  return m->m;
}
}  // namespace ca::capi

using ca::capi::masked_in;
using ca::capi::wrap_masked;

namespace {

std::vector<int32_t> axes_in(const int32_t *axes, int32_t naxes, const char *fn) {
  CA_CHECK(naxes >= 0 && (naxes == 0 || axes), CA_EINVAL, fn, ": bad axes (naxes ", naxes,
           naxes > 0 ? " with axes NULL)" : ")");
  return std::vector<int32_t>(axes, axes + naxes);
}

}  // namespace

extern "C" {

CA_API ca_status_t ca_masked_new(ca_masked_t **out, const ca_array_t *data, const ca_array_t *mask,
                                 const ca_scalar_t *fill_value) {
  OUT_INIT(out);
  CA_TRY
  const ca::ArrayPtr &d = arr(data, __func__, "data");
  *out = wrap_masked(ca::ma::make(d, ca::capi::unwrap(mask), fill_value));
  return CA_OK;
  CA_CATCH
}

CA_API ca_masked_t *ca_masked_retain(const ca_masked_t *m) {
  if (m) const_cast<ca_masked_t *>(m)->refs.fetch_add(1);
  return const_cast<ca_masked_t *>(m);
}

CA_API void ca_masked_free(const ca_masked_t *m) {
  if (m && const_cast<ca_masked_t *>(m)->refs.fetch_sub(1) == 1) delete m;
}

CA_API ca_status_t ca_masked_data(ca_array_t **out, const ca_masked_t *m) {
  OUT_INIT(out);
  CA_TRY
  *out = ca::capi::wrap_array(masked_in(m, __func__, "m")->data);
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_masked_mask(ca_array_t **out, const ca_masked_t *m) {
  OUT_INIT(out);
  CA_TRY
  *out = ca::capi::wrap_array(masked_in(m, __func__, "m")->mask);
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_masked_fill_value(ca_scalar_t *out, const ca_masked_t *m) {
  CA_ARG_NOT_NULL(out);
  *out = ca_scalar_t{};
  CA_TRY
  *out = ca::ma::fill_value(*masked_in(m, __func__, "m"));
  return CA_OK;
  CA_CATCH
}

CA_API int ca_masked_is_nomask(const ca_masked_t *m) { return m && m->m->nomask ? 1 : 0; }

CA_API ca_status_t ca_masked_set_fill_value(ca_masked_t **out, const ca_masked_t *m, const ca_scalar_t *fill_value) {
  OUT_INIT(out);
  CA_TRY
  *out = wrap_masked(ca::ma::with_fill_value(*masked_in(m, __func__, "m"), fill_value));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_masked_filled(ca_array_t **out, const ca_masked_t *m, const ca_scalar_t *fill_value) {
  OUT_INIT(out);
  CA_TRY
  *out = ca::capi::wrap_array(ca::ma::filled(*masked_in(m, __func__, "m"), fill_value));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_masked_where(ca_masked_t **out, const ca_array_t *cond, const ca_masked_t *a) {
  OUT_INIT(out);
  CA_TRY
  const ca::ArrayPtr &c = arr(cond, __func__, "cond");
  *out = wrap_masked(ca::ma::masked_where(c, *masked_in(a, __func__)));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_masked_compare(ca_masked_t **out, const ca_masked_t *a, ca_mask_test_t test, ca_scalar_t v1,
                                     ca_scalar_t v2) {
  OUT_INIT(out);
  CA_TRY
  const auto &x = masked_in(a, __func__);
  CA_CHECK(int32_t(test) >= CA_MASK_EQUAL && int32_t(test) <= CA_MASK_OUTSIDE, CA_EINVAL, "ca_masked_compare: unknown test ",
           int32_t(test));
  *out = wrap_masked(ca::ma::masked_compare(*x, ca::ma::Test(int32_t(test)), v1, v2));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_masked_invalid(ca_masked_t **out, const ca_masked_t *a) {
  OUT_INIT(out);
  CA_TRY
  *out = wrap_masked(ca::ma::masked_invalid(*masked_in(a, __func__)));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_masked_values(ca_masked_t **out, const ca_masked_t *a, ca_scalar_t value, double rtol,
                                    double atol) {
  OUT_INIT(out);
  CA_TRY
  *out = wrap_masked(ca::ma::masked_values(*masked_in(a, __func__), value, rtol, atol));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_masked_fix_invalid(ca_masked_t **out, const ca_masked_t *a, const ca_scalar_t *fill_value) {
  OUT_INIT(out);
  CA_TRY
  *out = wrap_masked(ca::ma::fix_invalid(*masked_in(a, __func__), fill_value));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_masked_unary(ca_masked_t **out, ca_op_t op, const ca_masked_t *a) {
  OUT_INIT(out);
  CA_TRY
  *out = wrap_masked(ca::ma::unary(op, *masked_in(a, __func__)));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_masked_binary(ca_masked_t **out, ca_op_t op, const ca_masked_t *a, const ca_masked_t *b) {
  OUT_INIT(out);
  CA_TRY
  const auto &x = masked_in(a, __func__);
  const auto &y = masked_in(b, __func__, "b");
  *out = wrap_masked(ca::ma::binary(op, *x, *y));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_masked_binary_scalar(ca_masked_t **out, ca_op_t op, const ca_masked_t *a, ca_scalar_t s,
                                           int scalar_first) {
  OUT_INIT(out);
  CA_TRY
  *out = wrap_masked(ca::ma::binary_scalar(op, *masked_in(a, __func__), s, scalar_first != 0));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_masked_reduce(ca_masked_t **out, ca_reduction_t op, const ca_masked_t *a, const int32_t *axes,
                                    int32_t naxes, int keepdims, const ca_reduce_options_t *opts) {
  OUT_INIT(out);
  CA_TRY
  const auto &x = masked_in(a, __func__);
  std::vector<int32_t> ax = axes_in(axes, naxes, __func__);
  const ca_reduce_options_t o =
      ca::capi::options_in(opts, ca_reduce_options_t CA_REDUCE_OPTIONS_INIT, "ca_masked_reduce");
  *out = wrap_masked(ca::ma::reduce(op, *x, ax, keepdims != 0, o.split_every, o.ddof, o.dtype));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_masked_count(ca_array_t **out, const ca_masked_t *a, const int32_t *axes, int32_t naxes,
                                   int keepdims, int32_t split_every) {
  OUT_INIT(out);
  CA_TRY
  const auto &x = masked_in(a, __func__);
  *out = ca::capi::wrap_array(ca::ma::count(*x, axes_in(axes, naxes, __func__), keepdims != 0, split_every));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_masked_average(ca_masked_t **out, ca_masked_t **out_sum_of_weights, const ca_masked_t *a,
                                     const ca_masked_t *weights, const int32_t *axes, int32_t naxes, int keepdims) {
  OUT_INIT(out);
  if (out_sum_of_weights) *out_sum_of_weights = nullptr;
  CA_TRY
  const auto &x = masked_in(a, __func__);
  auto r = ca::ma::average(*x, weights ? weights->m.get() : nullptr, axes_in(axes, naxes, __func__), keepdims != 0);
  ca_masked_t *avg = wrap_masked(r.first);
  if (out_sum_of_weights) {
    try {
      *out_sum_of_weights = wrap_masked(r.second);
    } catch (...) {
      ca_masked_free(avg);
      throw;
    }
  }
  *out = avg;
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_masked_compute(ca_block_t **out_data, ca_block_t **out_mask, ca_context_t *ctx,
                                     const ca_masked_t *m, const ca_compute_options_t *opts) {
  CA_ARG_NOT_NULL(out_data);
  *out_data = nullptr;
  CA_ARG_NOT_NULL(out_mask);
  *out_mask = nullptr;
  CA_ARG_NOT_NULL(ctx);
  CA_TRY
  const auto &x = masked_in(m, __func__, "m");
  ca::RunOptions ro = ca::capi::run_options(ctx, opts, __func__);
  std::vector<ca::BlockRef> blocks = ca::compute_blocks(ca::capi::engine(ctx), {x->data, x->mask}, ro, __func__);
  *out_data = blocks[0].release();
  *out_mask = blocks[1].release();
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_masked_from_zarr(ca_masked_t **out, const char *path, const ca_chunks_t *chunks) {
  OUT_INIT(out);
  CA_ARG_NOT_NULL(path);
  CA_TRY
  std::optional<ca::Chunks> c;
  if (chunks) c = ca::capi::chunks_in(chunks, __func__);
  *out = wrap_masked(ca::io::masked_from_zarr(path, c));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_masked_to_zarr(ca_context_t *ctx, const ca_masked_t *m, const char *path,
                                     const ca_zarr_options_t *opts, const ca_compute_options_t *copts) {
  CA_ARG_NOT_NULL(ctx);
  CA_ARG_NOT_NULL(path);
  CA_TRY
  const auto &x = masked_in(m, __func__, "m");
  ca::ArrayPtr data = ca::ma::filled(*x, nullptr);
  ca::io::ZarrWriteOptions w = ca::capi::zarr_write_options(*data, opts);
  ca::io::set_masked_fill_value(w, *x);
  ca::RunOptions ro = ca::capi::run_options(ctx, copts, __func__);
  ca::io::to_zarr(*ctx->engine.executor(), ctx->engine.registry(), data, path, w, ro);
  return CA_OK;
  CA_CATCH
}

}  // extern "C"
