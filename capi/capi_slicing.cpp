// The indexing API (chunkarray/slicing.h): thin wrappers over src/array/slicing.
#include <chunkarray/slicing.h>

#include <algorithm>
#include <cstring>

#include "array/slicing.hpp"
#include "capi_internal.hpp"

namespace {

std::vector<ca::IndexItem> index_in(const ca_index_t *idx, size_t n, const char *what) {
  CA_CHECK(idx || n == 0, CA_EINVAL, what, ": idx is NULL with n ", n);
  std::vector<ca::IndexItem> out;
  for (size_t k = 0; k < n; ++k) {
    const ca_index_t &c = idx[k];
    ca::IndexItem it;
    switch (c.kind) {
      case CA_IDX_INT: it = ca::IndexItem::integer(c.i); break;
      case CA_IDX_SLICE:
        CA_CHECK((c.slice.flags & ~uint32_t(CA_SLICE_START | CA_SLICE_STOP | CA_SLICE_STEP)) == 0, CA_EINVAL, what,
                 ": index item ", k, " has unknown slice.flags bits in ", c.slice.flags,
                 " (only CA_SLICE_START | CA_SLICE_STOP | CA_SLICE_STEP)");
        it.has_start = (c.slice.flags & CA_SLICE_START) != 0;
        it.has_stop = (c.slice.flags & CA_SLICE_STOP) != 0;
        it.has_step = (c.slice.flags & CA_SLICE_STEP) != 0;
        it.start = c.slice.start, it.stop = c.slice.stop, it.step = it.has_step ? c.slice.step : 1;
        break;
      case CA_IDX_NEWAXIS: it = ca::IndexItem::newaxis(); break;
      case CA_IDX_ELLIPSIS: it = ca::IndexItem::ellipsis(); break;
      case CA_IDX_ARRAY:
      case CA_IDX_BOOL:
        CA_CHECK(c.nindices >= 0, CA_EINVAL, what, ": index item ", k, " has a negative count ", c.nindices);
        CA_CHECK(c.nindices == 0 || (c.kind == CA_IDX_ARRAY ? c.indices != nullptr : c.bools != nullptr), CA_EINVAL,
                 what, ": index item ", k, " has NULL ", c.kind == CA_IDX_ARRAY ? "indices" : "bools");
        it.kind = c.kind == CA_IDX_ARRAY ? ca::IndexItem::IntList : ca::IndexItem::BoolList;
        for (int64_t j = 0; j < c.nindices; ++j)
          it.list.push_back(c.kind == CA_IDX_ARRAY ? c.indices[j] : ca::Index(c.bools[j] ? 1 : 0));
        break;
      case CA_IDX_MASK:
        it.kind = ca::IndexItem::BoolArray;
        it.array = arr(c.array, what, "the mask array of an index item");
        break;
      case CA_IDX_INDEX_ARRAY:
        it.kind = ca::IndexItem::IntArray;
        it.array = arr(c.array, what, "the index array of an index item");
        break;
      default: ca::fail(CA_EINVAL, what, ": index item ", k, " has unknown kind ", c.kind);
    }
    out.push_back(std::move(it));
  }
  return out;
}

}  // namespace

extern "C" {

CA_API ca_status_t ca_array_getitem(ca_array_t **out, const ca_array_t *a, const ca_index_t *idx, size_t n) {
  OUT_INIT(out);
  CA_TRY
  auto x = arr(a, "ca_array_getitem");
  *out = ca::capi::wrap_array(ca::getitem(x, index_in(idx, n, "ca_array_getitem")));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_take(ca_array_t **out, const ca_array_t *a, const int64_t *indices, int64_t n,
                                 int32_t axis) {
  OUT_INIT(out);
  CA_TRY
  auto x = arr(a, "ca_array_take");
  CA_CHECK(n >= 0 && (indices || n == 0), CA_EINVAL, "ca_array_take: bad indices (n ", n, ")");
  *out = ca::capi::wrap_array(ca::take(x, std::vector<ca::Index>(indices, indices + n), axis));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_take_array(ca_array_t **out, const ca_array_t *a, const ca_array_t *indices,
                                       int32_t axis) {
  OUT_INIT(out);
  CA_TRY
  *out = ca::capi::wrap_array(
      ca::take_array(arr(a, "ca_array_take_array"), arr(indices, "ca_array_take_array", "indices"), axis));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_mask_select(ca_array_t **out, const ca_array_t *a, const ca_array_t *mask) {
  OUT_INIT(out);
  CA_TRY
  *out = ca::capi::wrap_array(
      ca::mask_select(arr(a, "ca_array_mask_select"), arr(mask, "ca_array_mask_select", "mask")));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_mask_select_axis(ca_array_t **out, const ca_array_t *a, const ca_array_t *mask,
                                             int32_t axis) {
  OUT_INIT(out);
  CA_TRY
  *out = ca::capi::wrap_array(ca::mask_select_axis(arr(a, "ca_array_mask_select_axis"),
                                                 arr(mask, "ca_array_mask_select_axis", "mask"), axis));
  return CA_OK;
  CA_CATCH
}

CA_API int ca_array_chunks_known(const ca_array_t *a) { return a && ca::chunks_known(ca::capi::unwrap(a)->chunks) ? 1 : 0; }

CA_API ca_status_t ca_array_compute_chunk_sizes(ca_array_t **out, ca_context_t *ctx, const ca_array_t *a,
                                                const ca_compute_options_t *opts) {
  OUT_INIT(out);
  CA_ARG_NOT_NULL(ctx);
  CA_TRY
  auto x = arr(a, "ca_array_compute_chunk_sizes");
  ca::RunOptions ro = ca::capi::run_options(ctx, opts, __func__);
  *out = ca::capi::wrap_array(ca::compute_chunk_sizes(*ctx->engine.executor(), ctx->engine.registry(), x, ro));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_vindex(ca_array_t **out, const ca_array_t *a, const int64_t *const *indices, int32_t nidx,
                                   int64_t n) {
  OUT_INIT(out);
  CA_TRY
  auto x = arr(a, "ca_array_vindex");
  CA_CHECK(nidx >= 0 && (indices || nidx == 0), CA_EINVAL, "ca_array_vindex: bad indices (nidx ", nidx, ")");
  CA_CHECK(n >= 0, CA_EINVAL, "ca_array_vindex: negative number of points ", n);
  // Before indices[0..nidx) is read: the caller's array has at most ndim entries.
  CA_CHECK(nidx <= x->ndim(), CA_EINVAL, "ca_array_vindex: too many indices for array: ", nidx,
           " index arrays for an array of ", x->ndim(), " dimensions");
  std::vector<std::vector<ca::Index>> store(static_cast<size_t>(nidx));
  std::vector<const std::vector<ca::Index> *> ptrs(static_cast<size_t>(nidx), nullptr);
  for (int32_t d = 0; d < nidx; ++d) {
    if (!indices[d]) continue;
    store[size_t(d)].assign(indices[d], indices[d] + n);
    ptrs[size_t(d)] = &store[size_t(d)];
  }
  *out = ca::capi::wrap_array(ca::vindex(x, ptrs));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_index(ca_array_t **out, const ca_array_t *a, const ca_index_t *idx, size_t n,
                                  const ca_index_options_t *opts) {
  OUT_INIT(out);
  CA_TRY
  auto x = arr(a, "ca_array_index");
  ca_index_options_t o = CA_INDEX_OPTIONS_INIT;
  if (opts) {
    CA_CHECK(opts->struct_size >= sizeof(uint32_t), CA_EINVAL, "ca_array_index: opts->struct_size is too small");
    std::memcpy(&o, opts, std::min<size_t>(opts->struct_size, sizeof(o)));
  }
  std::vector<ca::IndexItem> items = index_in(idx, n, "ca_array_index");
  if (o.ndims) {
    for (size_t k = 0; k < n; ++k) {
      if (idx[k].kind != CA_IDX_ARRAY && idx[k].kind != CA_IDX_BOOL) continue;
      const int32_t nd = o.ndims[k];
      CA_CHECK(nd >= 0 && nd <= 64, CA_EINVAL, "ca_array_index: index item ", k, " has ", nd, " dimensions");
      if (nd == 1) continue;
      CA_CHECK(nd == 0 || (o.shapes && o.shapes[k]), CA_EINVAL, "ca_array_index: opts->shapes[", k,
               "] is NULL for a ", nd, "-d index item");
      items[k].has_list_shape = true;
      items[k].list_shape.assign(o.shapes ? o.shapes[k] : nullptr, (o.shapes && o.shapes[k]) ? o.shapes[k] + nd : nullptr);
    }
  }
  *out = ca::capi::wrap_array(ca::getitem_advanced(x, items, ca::IndexMode(o.mode)));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_setitem(ca_array_t **out, const ca_array_t *a, const ca_index_t *idx, size_t n,
                                    const ca_array_t *value) {
  OUT_INIT(out);
  CA_TRY
  auto x = arr(a, "ca_array_setitem");
  auto v = arr(value, "ca_array_setitem", "value");
  *out = ca::capi::wrap_array(ca::setitem(x, index_in(idx, n, "ca_array_setitem"), v));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_setitem_scalar(ca_array_t **out, const ca_array_t *a, const ca_index_t *idx, size_t n,
                                           ca_scalar_t value) {
  OUT_INIT(out);
  CA_TRY
  auto x = arr(a, "ca_array_setitem_scalar");
  *out = ca::capi::wrap_array(ca::setitem_scalar(x, index_in(idx, n, "ca_array_setitem_scalar"), value));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_mask_set(ca_array_t **out, const ca_array_t *a, const ca_array_t *mask, ca_scalar_t value) {
  OUT_INIT(out);
  CA_TRY
  *out = ca::capi::wrap_array(
      ca::mask_set(arr(a, "ca_array_mask_set"), arr(mask, "ca_array_mask_set", "mask"), value));
  return CA_OK;
  CA_CATCH
}

}  // extern "C"
