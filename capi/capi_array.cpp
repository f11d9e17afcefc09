// The array API (chunkarray/array.h): thin wrappers over src/array.
#include <chunkarray/array.h>

#include <cstring>

#include "array/array.hpp"
#include "array/create.hpp"
#include "array/expr.hpp"
#include "array/quantile.hpp"
#include "array/reduce.hpp"
#include "capi_internal.hpp"

struct ca_array {
  std::atomic<int64_t> refs{1};
  ca::ArrayPtr a;
  std::vector<int64_t> view_numblocks;  // for ca_array_chunks_view
  std::vector<int64_t> view_sizes;
};

struct ca_chunkset {
  ca::Chunks chunks;
  std::vector<int64_t> numblocks, sizes;
};

using ca::capi::chunks_in;
using ca::capi::dup_string;
using ca::capi::shape_in;

namespace {

ca_array *wrap_handle(ca::ArrayPtr a) {
  auto *w = new ca_array();
  w->a = std::move(a);
  for (auto &c : w->a->chunks) {
    w->view_numblocks.push_back(int64_t(c.size()));
    w->view_sizes.insert(w->view_sizes.end(), c.begin(), c.end());
  }
  return w;
}

}  // namespace

namespace ca::capi {
const ArrayPtr &arr(const ca_array_t *a, const char *what, const char *param) {
  CA_CHECK(a, CA_EINVAL, what, ": ", param, " is NULL");
  return a->a;
}
ca_array_t *wrap_array(ArrayPtr a) { return wrap_handle(std::move(a)); }
ArrayPtr unwrap(const ca_array_t *a) { return a ? a->a : nullptr; }
}  // namespace ca::capi

extern "C" {

// ---- chunksets ----------------------------------------------------------------------------------

CA_API int32_t ca_chunkset_ndim(const ca_chunkset_t *cs) { return cs ? int32_t(cs->chunks.size()) : -1; }
CA_API const int64_t *ca_chunkset_sizes(const ca_chunkset_t *cs, int32_t dim, int64_t *n) {
  if (n) *n = 0;
  if (!cs || dim < 0 || size_t(dim) >= cs->chunks.size()) return nullptr;
  if (n) *n = int64_t(cs->chunks[size_t(dim)].size());
  return cs->chunks[size_t(dim)].data();
}
CA_API ca_chunks_t ca_chunkset_view(const ca_chunkset_t *cs) {
  ca_chunks_t v{0, nullptr, nullptr};
  if (!cs) return v;
  v.ndim = int32_t(cs->chunks.size());
  v.numblocks = cs->numblocks.data();
  v.sizes = cs->sizes.data();
  return v;
}
CA_API void ca_chunkset_free(ca_chunkset_t *cs) { delete cs; }

static ca_chunkset *make_chunkset(ca::Chunks c) {
  auto cs = new ca_chunkset();
  cs->chunks = std::move(c);
  for (auto &d : cs->chunks) {
    cs->numblocks.push_back(int64_t(d.size()));
    cs->sizes.insert(cs->sizes.end(), d.begin(), d.end());
  }
  return cs;
}

static int64_t ctx_limit(const ca_context_t *ctx) {
  return ctx ? ctx->engine.chunk_size() : ca::Context::kDefaultChunkSize;
}

CA_API ca_status_t ca_normalize_chunks(ca_chunkset_t **out, const ca_context_t *ctx, const ca_dimchunks_t *spec,
                                       int32_t ndim, const int64_t *shape, ca_dtype_t dtype, int64_t limit) {
  OUT_INIT(out);
  CA_TRY
  auto sh = shape_in(ndim, shape, "ca_normalize_chunks");
  CA_CHECK(ca::dtype_valid(dtype), CA_ETYPE, "ca_normalize_chunks: invalid dtype ", dtype);
  std::vector<ca::DimChunks> sp;
  if (spec)
    for (int32_t d = 0; d < ndim; ++d) {
      ca::DimChunks dc;
      dc.size = spec[d].size;
      if (dc.size == CA_CHUNKS_EXPLICIT) {
        CA_CHECK(spec[d].sizes || spec[d].nsizes == 0, CA_EINVAL, "explicit chunks of axis ", d, " are NULL");
        CA_CHECK(spec[d].nsizes >= 0, CA_EINVAL, "explicit chunks of axis ", d, " have a negative count");
        dc.sizes.assign(spec[d].sizes, spec[d].sizes + spec[d].nsizes);
      }
      sp.push_back(dc);
    }
  *out = make_chunkset(ca::normalize_chunks(sp, sh, dtype, limit > 0 ? limit : ctx_limit(ctx)));
  return CA_OK;
  CA_CATCH
}

// Entry points that share an implementation pass their own name (`fn`) for its messages: an error
// names the function the caller called, never the one it delegates to.
static ca_status_t normalize_chunks_spec(const char *fn, ca_chunkset_t **out, const ca_context_t *ctx,
                                         const char *spec, int32_t ndim, const int64_t *shape, ca_dtype_t dtype) {
  CA_ARG_NOT_NULL_IN(fn, out);
  *out = nullptr;
  CA_ARG_NOT_NULL_IN(fn, spec);
  CA_TRY
  auto sh = shape_in(ndim, shape, fn);
  CA_CHECK(ca::dtype_valid(dtype), CA_ETYPE, fn, ": invalid dtype ", dtype);
  *out = make_chunkset(ca::normalize_chunks_spec(spec, sh, dtype, ctx_limit(ctx)));
  return CA_OK;
  CA_CATCH_IN(fn)
}

CA_API ca_status_t ca_normalize_chunks_spec(ca_chunkset_t **out, const ca_context_t *ctx, const char *spec,
                                            int32_t ndim, const int64_t *shape, ca_dtype_t dtype) {
  return normalize_chunks_spec(__func__, out, ctx, spec, ndim, shape, dtype);
}

CA_API ca_status_t ca_normalize_chunks_str(ca_chunkset_t **out, const ca_context_t *ctx, const char *spec,
                                           int32_t ndim, const int64_t *shape, ca_dtype_t dtype) {
  return normalize_chunks_spec(__func__, out, ctx, spec, ndim, shape, dtype);
}

// ---- the model ----------------------------------------------------------------------------------

CA_API ca_status_t ca_array_new(ca_array_t **out, const ca_graph_t *graph, const char *name, const ca_chunks_t *chunks,
                                ca_dtype_t dtype) {
  OUT_INIT(out);
  CA_ARG_NOT_NULL(graph);
  CA_ARG_NOT_NULL(name);
  CA_ARG_NOT_NULL(chunks);
  CA_TRY
  auto g = std::make_shared<ca::Graph>(graph->g);
  *out = wrap_handle(ca::array_new(g, name, chunks_in(chunks, "ca_array_new"), dtype));
  return CA_OK;
  CA_CATCH
}

CA_API ca_array_t *ca_array_retain(const ca_array_t *a) {
  if (a) const_cast<ca_array_t *>(a)->refs.fetch_add(1);
  return const_cast<ca_array_t *>(a);
}
CA_API void ca_array_free(const ca_array_t *a) {
  if (a && const_cast<ca_array_t *>(a)->refs.fetch_sub(1) == 1) delete a;
}

CA_API int32_t ca_array_ndim(const ca_array_t *a) { return a ? a->a->ndim() : -1; }
CA_API const int64_t *ca_array_shape(const ca_array_t *a) { return a && a->a->ndim() ? a->a->shape.data() : nullptr; }
CA_API int64_t ca_array_size(const ca_array_t *a) { return a ? a->a->size() : -1; }
CA_API int64_t ca_array_nbytes(const ca_array_t *a) { return a ? a->a->nbytes() : -1; }
CA_API ca_dtype_t ca_array_dtype(const ca_array_t *a) { return a ? a->a->dtype : CA_DTYPE_INVALID; }
CA_API const char *ca_array_name(const ca_array_t *a) { return a ? a->a->name.c_str() : nullptr; }
CA_API const int64_t *ca_array_numblocks(const ca_array_t *a) {
  return a && a->a->ndim() ? a->a->numblocks.data() : nullptr;
}
CA_API const int64_t *ca_array_chunks(const ca_array_t *a, int32_t dim, int64_t *n) {
  if (n) *n = 0;
  if (!a || dim < 0 || dim >= a->a->ndim()) return nullptr;
  if (n) *n = int64_t(a->a->chunks[size_t(dim)].size());
  return a->a->chunks[size_t(dim)].data();
}
CA_API ca_chunks_t ca_array_chunks_view(const ca_array_t *a) {
  ca_chunks_t v{0, nullptr, nullptr};
  if (!a) return v;
  v.ndim = a->a->ndim();
  v.numblocks = a->view_numblocks.data();
  v.sizes = a->view_sizes.data();
  return v;
}
CA_API ca_status_t ca_array_graph(ca_graph_t **out, const ca_array_t *a) {
  OUT_INIT(out);
  CA_ARG_NOT_NULL(a);
  CA_TRY
  auto g = new ca_graph();
  g->g = *a->a->graph;
  *out = g;
  return CA_OK;
  CA_CATCH
}
CA_API ca_status_t ca_array_keys(ca_keylist_t **out, const ca_array_t *a) {
  OUT_INIT(out);
  CA_ARG_NOT_NULL(a);
  CA_TRY
  auto kl = std::make_unique<ca_keylist>();
  const ca::Array &x = *a->a;
  ca::Index n = x.nblocks();
  for (ca::Index lin = 0; lin < n; ++lin) {
    std::vector<int64_t> idx(size_t(x.ndim()));
    ca::Index r = lin;
    for (int32_t d = x.ndim() - 1; d >= 0; --d) {
      idx[size_t(d)] = r % x.numblocks[size_t(d)];
      r /= x.numblocks[size_t(d)];
    }
    kl->names.push_back(x.name);
    kl->idx.push_back(std::move(idx));
  }
  *out = kl.release();
  return CA_OK;
  CA_CATCH
}
CA_API const char *ca_array_meta(const ca_array_t *a) { return a ? "ndarray" : nullptr; }

// ---- creation -----------------------------------------------------------------------------------

CA_API ca_status_t ca_array_from_buffer(ca_array_t **out, const void *data, ca_dtype_t dtype, int32_t ndim,
                                        const int64_t *shape, const ca_chunks_t *chunks,
                                        const ca_buffer_options_t *opts) {
  ca_buffer_options_t o = CA_BUFFER_OPTIONS_INIT;
  if (opts) {
    if (opts->struct_size < sizeof(uint32_t) * 2) {
      if (out) *out = nullptr;
      return set_error(CA_EINVAL, ca::str("ca_array_from_buffer: opts->struct_size ", opts->struct_size,
                                          " is too small (set it to sizeof(ca_buffer_options_t))"));
    }
    std::memcpy(&o, opts, std::min<size_t>(opts->struct_size, sizeof o));
  }
  const uint32_t flags = o.flags;
  const int64_t *strides = o.strides;
  void (*release)(void *) = o.release;
  void *ud = o.user_data;
  bool borrow = (flags & CA_BUFFER_BORROW) != 0;
  const uint32_t known = CA_BUFFER_BORROW | CA_BUFFER_UNIQUE_NAME;
  if (!out || !chunks || (ndim > 0 && !shape) || ndim < 0 || ndim > CA_MAX_NDIM || (flags & ~known)) {
    if (borrow && release) release(ud);
    if (out) *out = nullptr;
    if (out && chunks && (flags & ~known))
      return set_error(CA_EINVAL, ca::str("ca_array_from_buffer: unknown flags 0x", std::hex, flags & ~known,
                                          " (CA_BUFFER_BORROW and CA_BUFFER_UNIQUE_NAME are defined)"));
    if (!out) return set_error(CA_EINVAL, "ca_array_from_buffer: out is NULL");
    if (!chunks) return set_error(CA_EINVAL, "ca_array_from_buffer: chunks is NULL");
    if (ndim < 0 || ndim > CA_MAX_NDIM)
      return set_error(CA_EINVAL, ca::str("ca_array_from_buffer: ndim ", ndim, " is out of range 0..", CA_MAX_NDIM));
    return set_error(CA_EINVAL, ca::str("ca_array_from_buffer: shape is NULL with ndim ", ndim));
  }
  *out = nullptr;
  CA_TRY
  ca::Chunks ch;
  std::vector<ca::Index> sh;
  try {
    ch = chunks_in(chunks, "ca_array_from_buffer");
    sh = shape_in(ndim, shape, "ca_array_from_buffer");
    CA_CHECK(int32_t(ch.size()) == ndim, CA_EINVAL, "ca_array_from_buffer: chunks have ", ch.size(),
             " dimensions, shape has ", ndim);
  } catch (...) {
    if (borrow && release) release(ud);
    throw;
  }
  // from_buffer calls release itself on failure.
  *out = wrap_handle(ca::from_buffer(data, dtype, sh, strides, ch, borrow, release, ud, (flags & CA_BUFFER_UNIQUE_NAME) != 0));
  if (!borrow && release) release(ud);
  return CA_OK;
  CA_CATCH
}

static ca_status_t array_full(const char *fn, ca_array_t **out, int32_t ndim, const int64_t *shape,
                              const ca_chunks_t *chunks, ca_dtype_t dtype, double re, double im) {
  CA_ARG_NOT_NULL_IN(fn, out);
  *out = nullptr;
  CA_TRY
  *out = wrap_handle(ca::full(shape_in(ndim, shape, fn), chunks_in(chunks, fn), dtype, {re, im}));
  return CA_OK;
  CA_CATCH_IN(fn)
}
CA_API ca_status_t ca_array_full(ca_array_t **out, int32_t ndim, const int64_t *shape, const ca_chunks_t *chunks,
                                 ca_dtype_t dtype, double re, double im) {
  return array_full(__func__, out, ndim, shape, chunks, dtype, re, im);
}
CA_API ca_status_t ca_array_full_int64(ca_array_t **out, int32_t ndim, const int64_t *shape,
                                       const ca_chunks_t *chunks, ca_dtype_t dtype, int64_t value) {
  CA_ARG_NOT_NULL(out);
  *out = nullptr;
  CA_TRY
  *out = wrap_handle(ca::full_exact(shape_in(ndim, shape, __func__), chunks_in(chunks, __func__), dtype,
                                    uint64_t(value), false));
  return CA_OK;
  CA_CATCH
}
CA_API ca_status_t ca_array_full_uint64(ca_array_t **out, int32_t ndim, const int64_t *shape,
                                        const ca_chunks_t *chunks, ca_dtype_t dtype, uint64_t value) {
  CA_ARG_NOT_NULL(out);
  *out = nullptr;
  CA_TRY
  *out = wrap_handle(ca::full_exact(shape_in(ndim, shape, __func__), chunks_in(chunks, __func__), dtype, value, true));
  return CA_OK;
  CA_CATCH
}
CA_API ca_status_t ca_array_zeros(ca_array_t **out, int32_t ndim, const int64_t *shape, const ca_chunks_t *chunks,
                                  ca_dtype_t dtype) {
  return array_full(__func__, out, ndim, shape, chunks, dtype, 0.0, 0.0);
}
CA_API ca_status_t ca_array_ones(ca_array_t **out, int32_t ndim, const int64_t *shape, const ca_chunks_t *chunks,
                                 ca_dtype_t dtype) {
  return array_full(__func__, out, ndim, shape, chunks, dtype, 1.0, 0.0);
}
CA_API ca_status_t ca_array_empty(ca_array_t **out, int32_t ndim, const int64_t *shape, const ca_chunks_t *chunks,
                                  ca_dtype_t dtype) {
  OUT_INIT(out);
  CA_TRY
  *out = wrap_handle(ca::empty(shape_in(ndim, shape, "ca_array_empty"), chunks_in(chunks, "ca_array_empty"), dtype));
  return CA_OK;
  CA_CATCH
}
CA_API ca_status_t ca_array_arange(ca_array_t **out, double start, double stop, double step, const ca_chunks_t *chunks,
                                   ca_dtype_t dtype) {
  OUT_INIT(out);
  CA_TRY
  *out = wrap_handle(ca::arange(start, stop, step, chunks_in(chunks, "ca_array_arange"), dtype));
  return CA_OK;
  CA_CATCH
}
CA_API ca_status_t ca_array_linspace(ca_array_t **out, double start, double stop, int64_t num, int endpoint,
                                     const ca_chunks_t *chunks, ca_dtype_t dtype) {
  OUT_INIT(out);
  CA_TRY
  *out = wrap_handle(ca::linspace(start, stop, num, endpoint, chunks_in(chunks, "ca_array_linspace"), dtype));
  return CA_OK;
  CA_CATCH
}
CA_API ca_status_t ca_array_eye(ca_array_t **out, int64_t n, int64_t m, int64_t k, const ca_chunks_t *chunks,
                                ca_dtype_t dtype) {
  OUT_INIT(out);
  CA_TRY
  *out = wrap_handle(ca::eye(n, m, k, chunks_in(chunks, "ca_array_eye"), dtype));
  return CA_OK;
  CA_CATCH
}
CA_API ca_status_t ca_array_tri(ca_array_t **out, int64_t n, int64_t m, int64_t k, const ca_chunks_t *chunks,
                                ca_dtype_t dtype) {
  OUT_INIT(out);
  CA_TRY
  *out = wrap_handle(ca::tri(n, m, k, chunks_in(chunks, "ca_array_tri"), dtype));
  return CA_OK;
  CA_CATCH
}
CA_API ca_status_t ca_array_diag(ca_array_t **out, const ca_array_t *a, int64_t k) {
  OUT_INIT(out);
  CA_TRY
  *out = wrap_handle(ca::diag(arr(a, "ca_array_diag"), k));
  return CA_OK;
  CA_CATCH
}
CA_API ca_status_t ca_array_random(ca_array_t **out, ca_random_t distribution, int32_t ndim, const int64_t *shape,
                                   const ca_chunks_t *chunks, ca_dtype_t dtype, const ca_random_options_t *opts) {
  OUT_INIT(out);
  CA_TRY
  const ca_random_options_t o = ca::capi::options_in(opts, ca_random_options_t CA_RANDOM_OPTIONS_INIT, "ca_array_random");
  *out = wrap_handle(ca::random(distribution, o.seed, shape_in(ndim, shape, "ca_array_random"),
                         chunks_in(chunks, "ca_array_random"), dtype, o.p0, o.p1, o.p2));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_random_params(ca_array_t **out, ca_random_t distribution, int32_t ndim,
                                          const int64_t *shape, const ca_chunks_t *chunks, ca_dtype_t dtype,
                                          const ca_array_t *const *params, int32_t nparams,
                                          const ca_random_options_t *opts) {
  OUT_INIT(out);
  CA_TRY
  const ca_random_options_t o =
      ca::capi::options_in(opts, ca_random_options_t CA_RANDOM_OPTIONS_INIT, "ca_array_random_params");
  CA_CHECK(nparams >= 0 && nparams <= 3, CA_EINVAL, "ca_array_random_params: nparams = ", nparams,
           " (0 to 3: p0, p1, p2)");
  CA_CHECK(params || nparams == 0, CA_EINVAL, "ca_array_random_params: params is NULL with nparams = ", nparams);
  std::vector<ca::ArrayPtr> ps;
  for (int32_t j = 0; j < nparams; ++j) ps.push_back(ca::capi::unwrap(params[j]));
  *out = wrap_handle(ca::random_params(distribution, o.seed, shape_in(ndim, shape, "ca_array_random_params"),
                                       chunks_in(chunks, "ca_array_random_params"), dtype, ps, o.p0, o.p1, o.p2));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_random_multinomial(ca_array_t **out, int64_t n, const double *pvals, int64_t k,
                                               int32_t ndim, const int64_t *shape, const ca_chunks_t *chunks,
                                               uint64_t seed) {
  OUT_INIT(out);
  CA_TRY
  CA_CHECK(pvals, CA_EINVAL, "ca_array_random_multinomial: pvals is NULL");
  CA_CHECK(k >= 1 && k <= (int64_t(1) << 40), CA_EINVAL, "ca_array_random_multinomial: k = ", k,
           " categories (at least 1)");
  std::vector<double> pv(pvals, pvals + k);
  *out = wrap_handle(ca::random_multinomial(seed, n, pv, shape_in(ndim, shape, "ca_array_random_multinomial"),
                                            chunks_in(chunks, "ca_array_random_multinomial")));
  return CA_OK;
  CA_CATCH
}

// ---- elementwise --------------------------------------------------------------------------------

CA_API ca_status_t ca_array_unary(ca_array_t **out, ca_op_t op, const ca_array_t *a) {
  OUT_INIT(out);
  CA_TRY
  *out = wrap_handle(ca::elementwise_unary(op, arr(a, "ca_array_unary")));
  return CA_OK;
  CA_CATCH
}
CA_API ca_status_t ca_array_binary(ca_array_t **out, ca_op_t op, const ca_array_t *a, const ca_array_t *b) {
  OUT_INIT(out);
  CA_TRY
  *out = wrap_handle(ca::elementwise_binary(op, arr(a, "ca_array_binary"), arr(b, "ca_array_binary", "b")));
  return CA_OK;
  CA_CATCH
}
CA_API ca_status_t ca_array_binary_scalar(ca_array_t **out, ca_op_t op, const ca_array_t *a, ca_scalar_t s,
                                          int scalar_first) {
  OUT_INIT(out);
  CA_TRY
  *out = wrap_handle(ca::elementwise_scalar(op, arr(a, "ca_array_binary_scalar"), s, scalar_first));
  return CA_OK;
  CA_CATCH
}
CA_API ca_status_t ca_array_binary_std(ca_array_t **out, ca_op_t op, const ca_array_t *a, const ca_array_t *b) {
  OUT_INIT(out);
  CA_TRY
  *out = wrap_handle(ca::elementwise_binary_std(op, arr(a, "ca_array_binary_std"), arr(b, "ca_array_binary_std", "b")));
  return CA_OK;
  CA_CATCH
}
CA_API ca_status_t ca_array_binary_scalar_std(ca_array_t **out, ca_op_t op, const ca_array_t *a, ca_scalar_t s,
                                              int scalar_first) {
  OUT_INIT(out);
  CA_TRY
  *out = wrap_handle(ca::elementwise_scalar_std(op, arr(a, "ca_array_binary_scalar_std"), s, scalar_first));
  return CA_OK;
  CA_CATCH
}
CA_API ca_status_t ca_array_where(ca_array_t **out, const ca_array_t *cond, const ca_array_t *a, const ca_array_t *b,
                                  ca_scalar_t sa, ca_scalar_t sb) {
  OUT_INIT(out);
  CA_TRY
  *out = wrap_handle(ca::elementwise_where(arr(cond, "ca_array_where", "cond"), a ? a->a : nullptr, b ? b->a : nullptr, sa, sb));
  return CA_OK;
  CA_CATCH
}
CA_API ca_status_t ca_array_clip(ca_array_t **out, const ca_array_t *a, int has_lo, ca_scalar_t lo, int has_hi,
                                 ca_scalar_t hi) {
  OUT_INIT(out);
  CA_TRY
  *out = wrap_handle(ca::elementwise_clip(arr(a, "ca_array_clip"), has_lo ? &lo : nullptr, has_hi ? &hi : nullptr));
  return CA_OK;
  CA_CATCH
}
CA_API ca_status_t ca_array_astype(ca_array_t **out, const ca_array_t *a, ca_dtype_t dtype) {
  OUT_INIT(out);
  CA_TRY
  *out = wrap_handle(ca::elementwise_astype(arr(a, "ca_array_astype"), dtype));
  return CA_OK;
  CA_CATCH
}
CA_API ca_status_t ca_array_round(ca_array_t **out, const ca_array_t *a, int32_t decimals) {
  OUT_INIT(out);
  CA_TRY
  *out = wrap_handle(ca::elementwise_round(arr(a, "ca_array_round"), decimals));
  return CA_OK;
  CA_CATCH
}
CA_API ca_status_t ca_array_isclose(ca_array_t **out, const ca_array_t *a, const ca_array_t *b, double rtol,
                                    double atol, int equal_nan) {
  OUT_INIT(out);
  CA_TRY
  *out = wrap_handle(ca::elementwise_isclose(arr(a, "ca_array_isclose", "a"), arr(b, "ca_array_isclose", "b"), rtol,
                                             atol, equal_nan != 0));
  return CA_OK;
  CA_CATCH
}
CA_API ca_status_t ca_array_nan_to_num(ca_array_t **out, const ca_array_t *a, double nan, const double *posinf,
                                       const double *neginf) {
  OUT_INIT(out);
  CA_TRY
  *out = wrap_handle(ca::elementwise_nan_to_num(arr(a, "ca_array_nan_to_num"), nan, posinf, neginf));
  return CA_OK;
  CA_CATCH
}

// ---- reductions ---------------------------------------------------------------------------------

CA_API ca_status_t ca_array_reduce(ca_array_t **out, ca_reduction_t op, const ca_array_t *a, const int32_t *axes,
                                   int32_t naxes, int keepdims, const ca_reduce_options_t *opts) {
  OUT_INIT(out);
  CA_TRY
  CA_CHECK(naxes >= 0 && (naxes == 0 || axes), CA_EINVAL, "ca_array_reduce: bad axes (naxes ", naxes, ")");
  ca_reduce_options_t o = CA_REDUCE_OPTIONS_INIT;
  if (opts) {
    CA_CHECK(opts->struct_size >= sizeof(uint32_t), CA_EINVAL, "ca_array_reduce: opts->struct_size is too small");
    std::memcpy(&o, opts, std::min<size_t>(opts->struct_size, sizeof(o)));
  }
  std::vector<int32_t> ax(axes, axes + naxes);
  *out = wrap_handle(ca::reduce(op, arr(a, "ca_array_reduce"), ax, keepdims, o.split_every, o.ddof, o.dtype));
  return CA_OK;
  CA_CATCH
}
CA_API ca_status_t ca_array_quantile(ca_array_t **out, const ca_array_t *a, const double *q, size_t nq,
                                     int q_is_scalar, const int32_t *axes, int32_t naxes,
                                     const ca_quantile_options_t *opts) {
  OUT_INIT(out);
  CA_TRY
  CA_CHECK(q || nq == 0, CA_EINVAL, "ca_array_quantile: q is NULL");
  CA_CHECK(nq > 0, CA_EINVAL, "ca_array_quantile: no quantiles (nq 0)");
  CA_CHECK(naxes >= 0 && (naxes == 0 || axes), CA_EINVAL, "ca_array_quantile: bad axes (naxes ", naxes, ")");
  const ca_quantile_options_t o =
      ca::capi::options_in(opts, ca_quantile_options_t CA_QUANTILE_OPTIONS_INIT, "ca_array_quantile");
  CA_CHECK(o.method >= CA_QUANTILE_LINEAR && o.method <= CA_QUANTILE_MIDPOINT, CA_EINVAL,
           "ca_array_quantile: unknown method ", int32_t(o.method));
  ca::QuantileOptions qo;
  qo.method = ca::QuantileMethod(o.method);
  qo.keepdims = o.keepdims != 0;
  qo.skip_nan = o.skip_nan != 0;
  qo.dtype = o.dtype;
  *out = wrap_handle(ca::quantile(arr(a, "ca_array_quantile"), std::vector<double>(q, q + nq), q_is_scalar != 0,
                                  std::vector<int32_t>(axes, axes + naxes), qo));
  return CA_OK;
  CA_CATCH
}
CA_API ca_status_t ca_array_scan(ca_array_t **out, ca_scan_t op, const ca_array_t *a, int32_t axis,
                                 const ca_scan_options_t *opts) {
  OUT_INIT(out);
  CA_TRY
  const ca_scan_options_t o = ca::capi::options_in(opts, ca_scan_options_t CA_SCAN_OPTIONS_INIT, "ca_array_scan");
  *out = wrap_handle(ca::scan(op, arr(a, "ca_array_scan"), axis, o.dtype));
  return CA_OK;
  CA_CATCH
}
CA_API ca_status_t ca_array_reduction(ca_array_t **out, const ca_array_t *a, const char *chunk,
                                      const char *aggregate, const int32_t *axes, int32_t naxes, int keepdims,
                                      const ca_reduction_options_t *opts) {
  OUT_INIT(out);
  CA_ARG_NOT_NULL(chunk);
  CA_ARG_NOT_NULL(aggregate);
  CA_TRY
  CA_CHECK(naxes >= 0 && (naxes == 0 || axes), CA_EINVAL, "ca_array_reduction: bad axes (naxes ", naxes, ")");
  const ca_reduction_options_t o =
      ca::capi::options_in(opts, ca_reduction_options_t CA_REDUCTION_OPTIONS_INIT, "ca_array_reduction");
  std::vector<int32_t> ax(axes, axes + naxes);
  *out = wrap_handle(ca::reduction(arr(a, "ca_array_reduction"), chunk, o.combine ? o.combine : "", aggregate, ax,
                            keepdims != 0, o.split_every, o.dtype));
  return CA_OK;
  CA_CATCH
}

// ---- block primitives ---------------------------------------------------------------------------

CA_API ca_status_t ca_array_blockwise(ca_array_t **out, const char *kernel, const char *out_index,
                                      const ca_array_arg_t *args, size_t nargs, ca_dtype_t dtype,
                                      const ca_blockwise_array_options_t *opts) {
  OUT_INIT(out);
  CA_ARG_NOT_NULL(kernel);
  CA_ARG_NOT_NULL(out_index);
  CA_TRY
  CA_CHECK(args || nargs == 0, CA_EINVAL, "ca_array_blockwise: args is NULL with nargs ", nargs);
  CA_CHECK(ca::dtype_valid(dtype) && dtype != CA_RAW, CA_ETYPE, "ca_array_blockwise: invalid dtype ", dtype);
  ca_blockwise_array_options_t o = CA_BLOCKWISE_ARRAY_OPTIONS_INIT;
  if (opts) {
    CA_CHECK(opts->struct_size >= sizeof(uint32_t), CA_EINVAL, "blockwise options struct_size is too small");
    std::memcpy(&o, opts, std::min<size_t>(opts->struct_size, sizeof(o)));
  }
  std::vector<ca::ArrayArg> aa;
  for (size_t i = 0; i < nargs; ++i) {
    if (args[i].array) {
      CA_CHECK(args[i].index, CA_EINVAL, "ca_array_blockwise: argument ", i, " has no index letters");
      aa.push_back(ca::ArrayArg::of(args[i].array->a, args[i].index));
    } else {
      aa.push_back(ca::ArrayArg::lit(args[i].literal));
    }
  }
  std::vector<std::pair<char, ca::Index>> new_axes;
  if (o.new_axes) {
    size_t n = std::strlen(o.new_axes);
    CA_CHECK(n == 0 || o.new_axes_sizes, CA_EINVAL, "ca_array_blockwise: new_axes_sizes is NULL");
    for (size_t i = 0; i < n; ++i) new_axes.push_back({o.new_axes[i], o.new_axes_sizes[i]});
  }
  ca::Chunks explicit_chunks;
  if (o.chunks) explicit_chunks = chunks_in(o.chunks, "ca_array_blockwise");
  *out = wrap_handle(ca::blockwise(o.name ? o.name : kernel, kernel, out_index, std::move(aa), dtype, new_axes,
                            o.chunks ? &explicit_chunks : nullptr, o.concatenate != 0));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_map_blocks(ca_array_t **out, const char *kernel, const ca_array_t *const *arrays,
                                       size_t narrays, const ca_arg_t *extra, size_t nextra,
                                       const ca_map_blocks_options_t *opts) {
  OUT_INIT(out);
  CA_ARG_NOT_NULL(kernel);
  CA_TRY
  CA_CHECK(arrays || narrays == 0, CA_EINVAL, "ca_array_map_blocks: arrays is NULL with narrays ", narrays);
  CA_CHECK(narrays >= 1, CA_EINVAL, "ca_array_map_blocks: at least one array is needed");
  CA_CHECK(extra || nextra == 0, CA_EINVAL, "ca_array_map_blocks: extra is NULL with nextra ", nextra);
  ca_map_blocks_options_t o = CA_MAP_BLOCKS_OPTIONS_INIT;
  if (opts) {
    CA_CHECK(opts->struct_size >= sizeof(uint32_t), CA_EINVAL, "map_blocks options struct_size is too small");
    std::memcpy(&o, opts, std::min<size_t>(opts->struct_size, sizeof(o)));
  }
  std::vector<ca::ArrayPtr> as;
  for (size_t i = 0; i < narrays; ++i) {
    CA_CHECK(arrays[i], CA_EINVAL, "ca_array_map_blocks: array ", i, " is NULL");
    as.push_back(arrays[i]->a);
  }
  CA_CHECK(o.drop_axis || o.ndrop_axis <= 0, CA_EINVAL, "ca_array_map_blocks: drop_axis is NULL with ndrop_axis ",
           o.ndrop_axis);
  CA_CHECK(o.new_axis || o.nnew_axis <= 0, CA_EINVAL, "ca_array_map_blocks: new_axis is NULL with nnew_axis ",
           o.nnew_axis);
  ca::MapBlocksOptions mo;
  if (o.name) mo.name = o.name;
  mo.dtype = o.dtype;
  if (o.ndrop_axis > 0) mo.drop_axis.assign(o.drop_axis, o.drop_axis + o.ndrop_axis);
  if (o.nnew_axis > 0) mo.new_axis.assign(o.new_axis, o.new_axis + o.nnew_axis);
  ca::Chunks explicit_chunks;
  if (o.chunks) explicit_chunks = chunks_in(o.chunks, "ca_array_map_blocks");
  mo.chunks = o.chunks ? &explicit_chunks : nullptr;
  mo.block_info = o.block_info != 0;
  *out = wrap_handle(ca::map_blocks(kernel, as, std::vector<ca_arg_t>(extra, extra + nextra), mo));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_rechunk(ca_array_t **out, const ca_array_t *a, const ca_chunks_t *chunks) {
  OUT_INIT(out);
  CA_TRY
  *out = wrap_handle(ca::rechunk(arr(a, "ca_array_rechunk"), chunks_in(chunks, "ca_array_rechunk")));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_unify_chunks(ca_array_t **out, const ca_array_t *const *arrays, const char *const *indices,
                                   size_t narrays) {
  CA_ARG_NOT_NULL(out);
  for (size_t i = 0; i < narrays; ++i) out[i] = nullptr;
  CA_TRY
  CA_CHECK(narrays == 0 || (arrays && indices), CA_EINVAL, "ca_unify_chunks: arrays or indices is NULL");
  std::vector<ca::ArrayPtr> as;
  std::vector<std::string> is;
  for (size_t i = 0; i < narrays; ++i) {
    as.push_back(arr(arrays[i], "ca_unify_chunks"));
    CA_CHECK(indices[i], CA_EINVAL, "ca_unify_chunks: index ", i, " is NULL");
    is.push_back(indices[i]);
  }
  auto res = ca::unify_chunks(as, is);
  for (size_t i = 0; i < narrays; ++i) out[i] = wrap_handle(res[i]);
  return CA_OK;
  CA_CATCH
}

// ---- compute ------------------------------------------------------------------------------------

static ca_status_t array_compute_many(const char *fn, bool single, ca_block_t **out, ca_context_t *ctx,
                                      const ca_array_t *const *arrays, size_t narrays,
                                      const ca_compute_options_t *opts) {
  CA_ARG_NOT_NULL_IN(fn, out);
  for (size_t i = 0; i < narrays; ++i) out[i] = nullptr;
  CA_ARG_NOT_NULL_IN(fn, ctx);
  CA_TRY
  CA_CHECK(narrays == 0 || arrays, CA_EINVAL, fn, ": arrays is NULL");
  std::vector<ca::ArrayPtr> as;
  for (size_t i = 0; i < narrays; ++i) {
    // ca_array_compute's single array is its parameter `a`; ca_array_compute_many's are arrays[i]
    CA_CHECK(arrays[i], CA_EINVAL, fn, ": ", single ? "a" : ca::str("arrays[", i, "]").c_str(), " is NULL");
    as.push_back(arrays[i]->a);
  }
  ca::RunOptions ro = ca::capi::run_options(ctx, opts, fn);
  std::vector<ca::BlockRef> blocks = ca::compute_blocks(ctx->engine, std::move(as), ro, fn);
  for (size_t i = 0; i < narrays; ++i) out[i] = blocks[i].release();
  return CA_OK;
  CA_CATCH_IN(fn)
}

CA_API ca_status_t ca_array_compute_many(ca_block_t **out, ca_context_t *ctx, const ca_array_t *const *arrays,
                                         size_t narrays, const ca_compute_options_t *opts) {
  return array_compute_many(__func__, false, out, ctx, arrays, narrays, opts);
}

CA_API ca_status_t ca_array_compute(ca_block_t **out, ca_context_t *ctx, const ca_array_t *a,
                                    const ca_compute_options_t *opts) {
  OUT_INIT(out);
  CA_ARG_NOT_NULL(a);
  return array_compute_many(__func__, true, out, ctx, &a, 1, opts);
}

CA_API ca_status_t ca_array_compute_into(ca_context_t *ctx, const ca_array_t *a, void *buffer, size_t nbytes,
                                         const ca_compute_options_t *opts) {
  CA_ARG_NOT_NULL(ctx);
  CA_ARG_NOT_NULL(a);
  CA_TRY
  ca::require_known_chunks(*a->a, "ca_array_compute_into");
  CA_CHECK(nbytes == size_t(a->a->nbytes()), CA_EINVAL, "ca_array_compute_into: buffer has ", nbytes,
           " bytes, the array needs ", a->a->nbytes());
  CA_CHECK(buffer || nbytes == 0, CA_EINVAL, "ca_array_compute_into: buffer is NULL");
  ca::RunOptions ro = ca::capi::run_options(ctx, opts, __func__);
  ca::compute_into(*ctx->engine.executor(), ctx->engine.registry(), {a->a}, {buffer}, ro);
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_array_persist(ca_array_t **out, ca_context_t *ctx, const ca_array_t *a,
                                    const ca_compute_options_t *opts) {
  OUT_INIT(out);
  CA_ARG_NOT_NULL(ctx);
  CA_TRY
  ca::RunOptions ro = ca::capi::run_options(ctx, opts, __func__);
  *out = wrap_handle(ca::persist(*ctx->engine.executor(), ctx->engine.registry(), arr(a, "ca_array_persist"), ro));
  return CA_OK;
  CA_CATCH
}

// ---- pictures -----------------------------------------------------------------------------------

CA_API ca_status_t ca_array_to_svg(char **out, const ca_array_t *a, int32_t size) {
  OUT_INIT(out);
  CA_TRY
  *out = dup_string(ca::array_to_svg(*arr(a, "ca_array_to_svg"), size > 0 ? size : 120));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_graph_to_dot(char **out, const ca_graph_t *g, const ca_key_t *keys, size_t nkeys) {
  OUT_INIT(out);
  CA_ARG_NOT_NULL(g);
  CA_TRY
  std::vector<ca::KeyRef> refs;  // empty: graph_to_dot picks the graph's keys itself (capped)
  if (keys)
    for (size_t i = 0; i < nkeys; ++i) refs.push_back({keys[i].name, keys[i].index, keys[i].nindex});
  *out = dup_string(ca::graph_to_dot(g->g, refs));
  return CA_OK;
  CA_CATCH
}

}  // extern "C"
