// The storage API (chunkarray/io.h): thin wrappers over src/io/array_io.
#include <chunkarray/io.h>

#include <cmath>
#include <cstring>
#include <optional>

#include "array/array.hpp"
#include "capi_internal.hpp"
#include "io/array_io.hpp"
#include "io/fs.hpp"

namespace {

std::optional<ca::Chunks> optional_chunks_in(const ca_chunks_t *c, const char *what) {
  if (!c) return std::nullopt;
  return ca::capi::chunks_in(c, what);
}

}  // namespace

// Shared with capi_dist.cpp (the distributed to_zarr writes the same stores).
ca::io::ZarrWriteOptions ca::capi::zarr_write_options(const ca::Array &a, const ca_zarr_options_t *opts) {
  ca_zarr_options_t o = CA_ZARR_OPTIONS_INIT;
  if (opts) {
    CA_CHECK(opts->struct_size >= sizeof(uint32_t), CA_EINVAL, "ca_array_to_zarr: options struct_size ",
             opts->struct_size, " is too small");
    std::memcpy(&o, opts, std::min<size_t>(opts->struct_size, sizeof(o)));
  }
  ca::io::ZarrWriteOptions w;
  if (o.chunks) w.chunks.assign(o.chunks, o.chunks + a.ndim());
  std::string comp = o.compressor ? o.compressor : "none";
  if (comp == "none" || comp.empty()) {
    w.compressor = ca::io::Compressor::none();
  } else if (comp == "zlib") {
    w.compressor = ca::io::Compressor::zlib(o.level < 0 ? 1 : o.level);
  } else if (comp == "gzip") {
    w.compressor = ca::io::Compressor::gzip(o.level < 0 ? 1 : o.level);
  } else if (comp == "zstd") {
    w.compressor = ca::io::Compressor::zstd(o.level < 0 ? 1 : o.level);
  } else if (comp == "blosc") {
    w.compressor = ca::io::Compressor::blosc(o.blosc_cname ? o.blosc_cname : "lz4", o.level < 0 ? 5 : o.level,
                                             o.blosc_shuffle);
  } else {
    ca::fail(CA_EUNSUPPORTED, "ca_array_to_zarr: unknown compressor \"", comp,
             "\" (supported: none, zlib, gzip, zstd, blosc)");
  }
  ca::io::check_compressor(w.compressor);
  if (o.has_fill_value) {
    double v = o.fill_value;
    if (a.dtype == CA_BOOL) {
      w.fill_value = v != 0;
    } else if (ca::dtype_is_integer(a.dtype) && std::isfinite(v) && v == std::trunc(v)) {
      if (v < 0) w.fill_value = int64_t(v);
      else w.fill_value = uint64_t(v);
    } else if (ca::dtype_is_complex(a.dtype)) {
      w.fill_value = std::complex<double>(v, 0.0);
    } else {
      w.fill_value = v;
    }
  }
  w.order = o.order ? o.order : 'C';
  w.dimension_separator = o.dimension_separator ? o.dimension_separator : '.';
  if (o.attrs_json) w.attrs_json = o.attrs_json;
  w.overwrite = o.overwrite != 0;
  return w;
}

extern "C" {

CA_API ca_status_t ca_array_from_zarr(ca_array_t **out, const char *path, const ca_chunks_t *chunks) {
  CA_ARG_NOT_NULL(out);
  *out = nullptr;
  CA_ARG_NOT_NULL(path);
  CA_TRY
  *out = ca::capi::wrap_array(ca::io::from_zarr(path, optional_chunks_in(chunks, "ca_array_from_zarr")));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_to_zarr(ca_context_t *ctx, const ca_array_t *a, const char *path,
                                    const ca_zarr_options_t *opts, const ca_compute_options_t *copts) {
  CA_ARG_NOT_NULL(ctx);
  CA_ARG_NOT_NULL(path);
  CA_TRY
  ca::ArrayPtr x = arr(a, "ca_array_to_zarr");
  ca::io::ZarrWriteOptions w = ca::capi::zarr_write_options(*x, opts);
  ca::RunOptions ro = ca::capi::run_options(ctx, copts);
  ca::io::to_zarr(*ctx->engine.executor(), ctx->engine.registry(), x, path, w, ro);
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_zarr_create_group(const char *path, const char *attrs_json) {
  CA_ARG_NOT_NULL(path);
  CA_TRY
  ca::io::create_group(path, attrs_json ? attrs_json : "");
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_io_check_name(const char *name, const char *what) {
  CA_ARG_NOT_NULL(name);
  CA_TRY
  ca::io::check_path_component(name, what && *what ? what : "name");
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_from_npy(ca_array_t **out, const char *path, const ca_chunks_t *chunks) {
  CA_ARG_NOT_NULL(out);
  *out = nullptr;
  CA_ARG_NOT_NULL(path);
  CA_TRY
  *out = ca::capi::wrap_array(ca::io::from_npy(path, optional_chunks_in(chunks, "ca_array_from_npy")));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_to_npy(ca_context_t *ctx, const ca_array_t *a, const char *path,
                                   const ca_compute_options_t *copts) {
  CA_ARG_NOT_NULL(ctx);
  CA_ARG_NOT_NULL(path);
  CA_TRY
  ca::ArrayPtr x = arr(a, "ca_array_to_npy");
  ca::RunOptions ro = ca::capi::run_options(ctx, copts);
  ca::io::to_npy(*ctx->engine.executor(), ctx->engine.registry(), x, path, ro);
  return CA_OK;
  CA_CATCH
}

}  // extern "C"
