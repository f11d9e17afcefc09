// Rechunk with dask's planner and store through a sink (chunkarray/store.h).
#include <chunkarray/store.h>

#include <cstring>

#include "array/rechunk.hpp"
#include "array/store.hpp"
#include "capi_internal.hpp"

// capi_array.cpp (hidden).

namespace {

ca::RechunkOptions rechunk_options(const ca_context_t *ctx, const ca_rechunk_options_t *opts, const char *what) {
  ca::RechunkOptions ro;
  if (ctx) {
    ro.block_size_limit = ctx->engine.chunk_size();
  }
  if (opts) {
    CA_CHECK(opts->struct_size >= sizeof(uint32_t), CA_EINVAL, what, ": options struct_size ", opts->struct_size,
             " is too small");
    ca_rechunk_options_t o = CA_RECHUNK_OPTIONS_INIT;
    std::memcpy(&o, opts, std::min<size_t>(opts->struct_size, sizeof(o)));
    CA_CHECK(o.block_size_limit >= 0, CA_EINVAL, what, ": block_size_limit ", o.block_size_limit, " is negative");
    CA_CHECK(o.threshold >= 0, CA_EINVAL, what, ": threshold ", o.threshold, " is negative");
    if (o.block_size_limit > 0) ro.block_size_limit = o.block_size_limit;
    if (o.threshold > 0) ro.threshold = o.threshold;
    ro.balance = o.balance != 0;
  }
  return ro;
}

const ca::ArrayPtr &require_array(const ca::ArrayPtr &p, const char *what, const char *param = "a") {
  CA_CHECK(p, CA_EINVAL, what, ": ", param, " is NULL");
  return p;
}

}  // namespace

extern "C" {

}  // extern "C"

// The rechunk entry points share this; `fn` is the one the caller called (named in every message).
static ca_status_t array_rechunk(const char *fn, ca_array_t **out, const ca_context_t *ctx, const ca_array_t *a,
                                 const ca_chunks_t *chunks, const char *spec, const ca_rechunk_options_t *opts) {
  CA_ARG_NOT_NULL_IN(fn, out);
  *out = nullptr;
  CA_TRY
  ca::ArrayPtr x = ca::capi::unwrap(a);
  require_array(x, fn);
  CA_CHECK((chunks != nullptr) != (spec != nullptr), CA_EINVAL, fn, ": give exactly one of chunks and spec");
  ca::RechunkOptions ro = rechunk_options(ctx, opts, fn);
  ca::ArrayPtr r = chunks ? ca::rechunk(x, ca::capi::chunks_in(chunks, fn), ro) : ca::rechunk(x, std::string(spec), ro);
  *out = ca::capi::wrap_array(std::move(r));
  return CA_OK;
  CA_CATCH_IN(fn)
}

extern "C" {

CA_API ca_status_t ca_array_rechunk_ex(ca_array_t **out, const ca_context_t *ctx, const ca_array_t *a,
                                       const ca_chunks_t *chunks, const char *spec,
                                       const ca_rechunk_options_t *opts) {
  return array_rechunk(__func__, out, ctx, a, chunks, spec, opts);
}

CA_API ca_status_t ca_array_rechunk_spec(ca_array_t **out, const ca_context_t *ctx, const ca_array_t *a,
                                         const char *chunks) {
  CA_ARG_NOT_NULL(out);
  *out = nullptr;
  CA_ARG_NOT_NULL(chunks);
  return array_rechunk(__func__, out, ctx, a, nullptr, chunks, nullptr);
}

CA_API ca_status_t ca_array_rechunk_str(ca_array_t **out, const ca_context_t *ctx, const ca_array_t *a,
                                        const char *chunks) {
  CA_ARG_NOT_NULL(out);
  *out = nullptr;
  CA_ARG_NOT_NULL(chunks);
  return array_rechunk(__func__, out, ctx, a, nullptr, chunks, nullptr);
}

CA_API ca_status_t ca_array_rechunk_nstages(int64_t *out, const ca_context_t *ctx, const ca_array_t *a,
                                            const ca_chunks_t *chunks, const ca_rechunk_options_t *opts) {
  CA_ARG_NOT_NULL(out);
  *out = 0;
  CA_TRY
  ca::ArrayPtr x = ca::capi::unwrap(a);
  require_array(x, "ca_array_rechunk_nstages");
  ca::RechunkOptions ro = rechunk_options(ctx, opts, "ca_array_rechunk_nstages");
  *out = int64_t(ca::rechunk_stages(*x, ca::capi::chunks_in(chunks, "ca_array_rechunk_nstages"), ro).size());
  return CA_OK;
  CA_CATCH
}

CA_API void ca_store_set_error(const ca_store_region_t *region, const char *message) {
  if (!region || !region->reserved) return;
  *static_cast<std::string *>(region->reserved) = message ? message : "";
}

}  // extern "C"

void ca::capi::call_sink(ca_store_fn sink, void *user_data, const ca_block_t *b, size_t array, int32_t ndim,
                         const int64_t *start, const int64_t *stop, const int64_t *block_index) {
  std::string msg;
  ca_store_region_t reg;
  reg.array = array;
  reg.ndim = ndim;
  reg.start = start;
  reg.stop = stop;
  reg.block_index = block_index;
  reg.reserved = &msg;  // ca_store_set_error writes here
  ca_status_t s = sink(b, &reg, user_data);
  if (s != CA_OK) {
    if (msg.empty()) msg = std::string("the sink returned ") + ca_status_str(s);
    throw ca::Error(s < 0 ? s : CA_EKERNEL, msg);
  }
}

extern "C" {

}  // extern "C"

// ca_array_store and ca_array_store_many; `fn` is the one the caller called.
static ca_status_t array_store_many(const char *fn, ca_context_t *ctx, const ca_array_t *const *arrays,
                                    size_t narrays, ca_store_fn sink, void *user_data,
                                    const ca_compute_options_t *opts) {
  CA_ARG_NOT_NULL_IN(fn, ctx);
  CA_ARG_NOT_NULL_IN(fn, sink);
  CA_TRY
  CA_CHECK(narrays == 0 || arrays, CA_EINVAL, fn, ": arrays is NULL");
  std::vector<ca::ArrayPtr> as;
  for (size_t i = 0; i < narrays; ++i) {
    as.push_back(ca::capi::unwrap(arrays[i]));
    CA_CHECK(as.back(), CA_EINVAL, fn, ": array ", i, " is NULL");
  }
  ca::RunOptions ro = ca::capi::run_options(ctx, opts, fn);
  ca::store(*ctx->engine.executor(), ctx->engine.registry(), as,
            [&](const ca::StoreRegion &r, const ca::Block *b) {
              ca::capi::call_sink(sink, user_data, b, r.array, r.ndim, r.start, r.stop, r.block_index);
            },
            ro);
  return CA_OK;
  CA_CATCH_IN(fn)
}

extern "C" {

CA_API ca_status_t ca_array_store_many(ca_context_t *ctx, const ca_array_t *const *arrays, size_t narrays,
                                       ca_store_fn sink, void *user_data, const ca_compute_options_t *opts) {
  return array_store_many(__func__, ctx, arrays, narrays, sink, user_data, opts);
}

CA_API ca_status_t ca_array_store(ca_context_t *ctx, const ca_array_t *a, ca_store_fn sink, void *user_data,
                                  const ca_compute_options_t *opts) {
  CA_ARG_NOT_NULL(a);
  return array_store_many(__func__, ctx, &a, 1, sink, user_data, opts);
}

}  // extern "C"
