// The storage API (chunkarray/io.h): thin wrappers over src/io/array_io.
#include <chunkarray/io.h>

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
  return ca::io::zarr_write_options(a, o, "ca_array_to_zarr");
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
  ca::RunOptions ro = ca::capi::run_options(ctx, copts, __func__);
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
  ca::RunOptions ro = ca::capi::run_options(ctx, copts, __func__);
  ca::io::to_npy(*ctx->engine.executor(), ctx->engine.registry(), x, path, ro);
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_to_npy_stack(ca_context_t *ctx, const ca_array_t *a, const char *dirname, int32_t axis,
                                         const ca_compute_options_t *copts) {
  CA_ARG_NOT_NULL(ctx);
  CA_ARG_NOT_NULL(dirname);
  CA_TRY
  ca::ArrayPtr x = arr(a, "ca_array_to_npy_stack");
  ca::RunOptions ro = ca::capi::run_options(ctx, copts, __func__);
  ca::io::to_npy_stack(*ctx->engine.executor(), ctx->engine.registry(), x, dirname, axis, ro);
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_from_npy_stack(ca_array_t **out, const char *dirname) {
  CA_ARG_NOT_NULL(out);
  *out = nullptr;
  CA_ARG_NOT_NULL(dirname);
  CA_TRY
  *out = ca::capi::wrap_array(ca::io::from_npy_stack(dirname));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_from_hdf5(ca_array_t **out, const char *path, const char *dataset, const char *chunks) {
  CA_ARG_NOT_NULL(out);
  *out = nullptr;
  CA_ARG_NOT_NULL(path);
  CA_ARG_NOT_NULL(dataset);
  CA_TRY
  *out = ca::capi::wrap_array(ca::io::from_hdf5(path, dataset, chunks ? chunks : ""));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_to_hdf5(ca_context_t *ctx, const ca_array_t *a, const char *path, const char *dataset,
                                    const ca_hdf5_options_t *opts, const ca_compute_options_t *copts) {
  CA_ARG_NOT_NULL(ctx);
  CA_ARG_NOT_NULL(path);
  CA_ARG_NOT_NULL(dataset);
  CA_TRY
  ca::ArrayPtr x = arr(a, "ca_array_to_hdf5");
  const ca_hdf5_options_t defaults = CA_HDF5_OPTIONS_INIT;
  ca_hdf5_options_t o = ca::capi::options_in(opts, defaults, __func__);
  ca::io::Hdf5WriteOptions w;
  if (o.chunks) w.chunks.assign(o.chunks, o.chunks + x->ndim());
  w.contiguous = o.contiguous != 0;
  w.gzip_level = o.gzip_level;
  w.shuffle = o.shuffle != 0;
  w.overwrite = o.overwrite != 0;
  ca::RunOptions ro = ca::capi::run_options(ctx, copts, __func__);
  ca::io::to_hdf5(*ctx->engine.executor(), ctx->engine.registry(), x, path, dataset, w, ro);
  return CA_OK;
  CA_CATCH
}

}  // extern "C"
