// Masked arrays over zarr stores (io/array_io.hpp): the store's fill_value is the mask's source.
#include <cmath>

#include "array/expr.hpp"
#include "array/masked.hpp"
#include "core/error.hpp"
#include "io/array_io.hpp"

namespace ca::io {

std::shared_ptr<const ma::Masked> masked_from_zarr(const std::string &path, const std::optional<Chunks> &chunks) {
  ZarrMeta meta = read_zarr_meta(path);
  ArrayPtr data = from_zarr(path, chunks);
  ca_scalar_t s{};
  ArrayPtr cond;
  const FillValue &f = meta.fill_value;
  if (std::holds_alternative<std::monostate>(f)) return ma::make(data, nullptr, nullptr);
  if (const bool *b = std::get_if<bool>(&f)) {
    s = ca_scalar_t{CA_BOOL, 0, *b ? 1.0 : 0.0, 0.0, *b ? 1 : 0};
  } else if (const int64_t *i = std::get_if<int64_t>(&f)) {
    s = ca_scalar_t{CA_INT64, 0, double(*i), 0.0, *i};
  } else if (const uint64_t *u = std::get_if<uint64_t>(&f)) {
    s = *u >= (uint64_t(1) << 63) ? ca_scalar_t{CA_UINT64, 0, double(*u), 0.0, int64_t(*u)}
                                  : ca_scalar_t{CA_INT64, 0, double(*u), 0.0, int64_t(*u)};
  } else if (const double *d = std::get_if<double>(&f)) {
    s = ca_scalar_t{CA_FLOAT64, 0, *d, 0.0, 0};
    if (std::isnan(*d)) cond = elementwise_unary(CA_OP_ISNAN, data);
  } else if (const auto *c = std::get_if<std::complex<double>>(&f)) {
    s = ca_scalar_t{CA_COMPLEX128, 0, c->real(), c->imag(), 0};
    if (std::isnan(c->real()) || std::isnan(c->imag())) cond = elementwise_unary(CA_OP_ISNAN, data);
  } else {
    fail(CA_EUNSUPPORTED, "masked_from_zarr: ", path, " holds ", dtype_name(meta.dtype),
         " items: masked arrays are numeric");
  }
  ma::MaskedPtr m = ma::make(data, nullptr, &s);
  if (!cond) cond = elementwise_scalar(CA_OP_EQ, data, s, false);
  return ma::masked_where(cond, *m);
}

void set_masked_fill_value(ZarrWriteOptions &w, const ma::Masked &m) {
  DType dt = m.data->dtype;
  ca_scalar_t t = ma::cast_fill(ma::fill_value(m), dt);
  if (dt == CA_BOOL) w.fill_value = t.i64 != 0;
  else if (dtype_kind(dt) == 'i') w.fill_value = t.i64;
  else if (dtype_kind(dt) == 'u') w.fill_value = uint64_t(t.i64);
  else if (dtype_is_complex(dt)) w.fill_value = std::complex<double>(t.re, t.im);
  else w.fill_value = t.re;
}

}  // namespace ca::io
