// Version, status codes, thread-local errors, dtypes, blocks; helpers shared by capi/*.cpp.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>

#include "array/array.hpp"
#include "core/checked.hpp"
#include "core/status.hpp"
#include "capi_internal.hpp"

namespace {
thread_local std::string t_error_msg;
thread_local ca_status_t t_error_code = CA_OK;
}  // namespace

namespace ca::capi {

ca_status_t set_error(ca_status_t code, const std::string &msg) noexcept {
  try {
    t_error_msg = msg;
  } catch (...) {
    t_error_msg.clear();
  }
  t_error_code = code;
  return code;
}

namespace {
// Whether msg starts with "ca_<name>:" (a message that already names a public function).
bool names_a_function(const std::string &msg) {
  if (msg.compare(0, 3, "ca_") != 0) return false;
  size_t i = 3;
  while (i < msg.size() && (std::isalnum(static_cast<unsigned char>(msg[i])) || msg[i] == '_')) ++i;
  return i > 3 && i < msg.size() && msg[i] == ':';
}

ca_status_t set_error_in(const char *fn, ca_status_t code, const std::string &msg) noexcept {
  if (!fn || std::strncmp(fn, "ca_", 3) != 0 || names_a_function(msg)) return set_error(code, msg);
  try {
    return set_error(code, std::string(fn) + ": " + msg);
  } catch (...) {
    return set_error(code, msg);
  }
}
}  // namespace

ca_status_t handle_exception(const char *fn) noexcept {
  try {
    throw;
  } catch (const ca::Error &e) {
    return set_error_in(fn, e.code(), e.message());
  } catch (const std::bad_alloc &) {
    return set_error_in(fn, CA_ENOMEM, "out of memory");
  } catch (const std::exception &e) {
    return set_error_in(fn, CA_EINTERNAL, std::string("internal error: ") + e.what());
  } catch (...) {
    return set_error_in(fn, CA_EINTERNAL, "internal error: unknown exception");
  }
}

ca::RunOptions run_options(ca_context_t *ctx, const ca_compute_options_t *opts, const char *fn) {
  ca::RunOptions ro;
  if (opts) {
    CA_CHECK(opts->struct_size >= sizeof(uint32_t), CA_EINVAL, fn, ": compute options struct_size ",
             opts->struct_size, " is too small");
    ca_compute_options_t o = CA_COMPUTE_OPTIONS_INIT;
    std::memcpy(&o, opts, std::min<size_t>(opts->struct_size, sizeof(o)));
    ro.progress = o.progress;
    ro.progress_ud = o.progress_user_data;
    if (o.progress_interval_us > 0) ro.progress_interval_us = o.progress_interval_us;
    ro.cancel = o.cancel ? &o.cancel->flag : nullptr;
  }
  ca::RunOptions cr = ctx->engine.run_options();
  ro.budget = cr.budget;
  ro.max_tasks = cr.max_tasks;
  return ro;
}

std::vector<std::vector<int64_t>> chunks_in(const ca_chunks_t *c, const char *what) {
  CA_CHECK(c, CA_EINVAL, what, ": chunks is NULL");
  CA_CHECK(c->ndim >= 0 && c->ndim <= CA_MAX_NDIM, CA_EINVAL, what, ": chunks have ", c->ndim, " dimensions");
  CA_CHECK(c->ndim == 0 || (c->numblocks && c->sizes), CA_EINVAL, what, ": chunks have NULL arrays");
  std::vector<std::vector<int64_t>> out(size_t(c->ndim));
  int64_t k = 0;
  for (int32_t d = 0; d < c->ndim; ++d) {
    CA_CHECK(c->numblocks[d] >= 1 && c->numblocks[d] <= ca::kMaxBlocksPerAxis, CA_EINVAL, what, ": axis ", d,
             " has ", c->numblocks[d], " blocks (1..", ca::kMaxBlocksPerAxis, " allowed)");
    out[size_t(d)].assign(c->sizes + k, c->sizes + k + c->numblocks[d]);
    k += c->numblocks[d];
  }
  return out;
}

std::vector<ca::Index> shape_in(int32_t ndim, const int64_t *shape, const char *what) {
  CA_CHECK(ndim >= 0 && ndim <= CA_MAX_NDIM, CA_EINVAL, what, ": ndim ", ndim, " is out of range");
  CA_CHECK(ndim == 0 || shape, CA_EINVAL, what, ": shape is NULL");
  for (int32_t d = 0; d < ndim; ++d) CA_CHECK(shape[d] >= 0, CA_EINVAL, what, ": extent ", shape[d], " of axis ", d, " is negative");
  return std::vector<ca::Index>(shape, shape + ndim);
}

std::vector<ca::ArrayPtr> arrays_in(const ca_array_t *const *arrays, size_t n, const char *what) {
  CA_CHECK(arrays || n == 0, CA_EINVAL, what, ": arrays is NULL");
  std::vector<ca::ArrayPtr> r;
  for (size_t i = 0; i < n; ++i) {
    CA_CHECK(arrays[i], CA_EINVAL, what, ": array ", i, " is NULL");
    r.push_back(unwrap(arrays[i]));
  }
  return r;
}

char *dup_string(const std::string &s) {
  char *p = static_cast<char *>(std::malloc(s.size() + 1));
  if (!p) throw std::bad_alloc();
  std::memcpy(p, s.c_str(), s.size() + 1);
  return p;
}

Context &engine(ca_context_t *ctx) { return ctx->engine; }
const Context &engine(const ca_context_t *ctx) { return ctx->engine; }
Graph &engine(ca_graph_t *g) { return g->g; }
const Graph &engine(const ca_graph_t *g) { return g->g; }

}  // namespace ca::capi


extern "C" {

CA_API int32_t ca_version_number(void) { return CA_VERSION_NUMBER; }
CA_API const char *ca_version_string(void) { return CA_VERSION_STRING; }
CA_API int32_t ca_abi_version(void) { return CA_ABI_VERSION; }

CA_API const char *ca_status_str(ca_status_t s) { return ca::status_name(s); }

CA_API void ca_string_free(char *s) { std::free(s); }

CA_API const char *ca_last_error_message(void) { return t_error_msg.c_str(); }
CA_API ca_status_t ca_last_error_code(void) { return t_error_code; }
CA_API void ca_clear_error(void) {
  t_error_msg.clear();
  t_error_code = CA_OK;
}

CA_API ca_status_t ca_set_error(ca_status_t code, const char *message) {
  if (code == CA_OK) {
    ca_clear_error();
    return CA_OK;
  }
  try {
    return ca::capi::set_error(code, message ? message : "");
  } catch (...) {
    return ca::capi::set_error(code, std::string());
  }
}

CA_API size_t ca_dtype_size(ca_dtype_t d) { return ca::dtype_size(d); }
CA_API const char *ca_dtype_name(ca_dtype_t d) { return ca::dtype_name(d); }

CA_API ca_status_t ca_dtype_from_name(ca_dtype_t *out, const char *name) {
  CA_ARG_NOT_NULL(out);
  *out = CA_DTYPE_INVALID;
  CA_ARG_NOT_NULL(name);
  CA_TRY
  *out = ca::dtype_parse(name);
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_dtype_make(ca_dtype_t *out, ca_dtype_kind_t kind, int64_t param) {
  CA_ARG_NOT_NULL(out);
  *out = CA_DTYPE_INVALID;
  CA_TRY
  *out = ca::dtype_make(kind, param);
  return CA_OK;
  CA_CATCH
}

CA_API ca_dtype_kind_t ca_dtype_kind(ca_dtype_t d) { return ca::dtype_valid(d) ? ca_dtype_kind_t(ca::dtype_base(d)) : CA_DTYPE_INVALID; }
CA_API int64_t ca_dtype_param(ca_dtype_t d) { return ca::dtype_valid(d) ? int64_t(d >> CA_DTYPE_KIND_BITS) : -1; }

CA_API ca_status_t ca_dtype_promote(ca_dtype_t *out, ca_dtype_t a, ca_dtype_t b) {
  CA_ARG_NOT_NULL(out);
  *out = CA_DTYPE_INVALID;
  CA_TRY
  *out = ca::dtype_promote(a, b);
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_dtype_promote_std(ca_dtype_t *out, ca_dtype_t a, ca_dtype_t b) {
  CA_ARG_NOT_NULL(out);
  *out = CA_DTYPE_INVALID;
  CA_TRY
  *out = ca::dtype_promote_std(a, b);
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_block_new(ca_block_t **out, ca_dtype_t dtype, int32_t ndim, const int64_t *shape) {
  CA_ARG_NOT_NULL(out);
  *out = nullptr;
  if (ndim != 0 && !shape) return set_error(CA_EINVAL, ca::str("ca_block_new: shape is NULL with ndim ", ndim));
  CA_TRY
  *out = ca::block_new(dtype, ndim, shape);
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_block_new_zeroed(ca_block_t **out, ca_dtype_t dtype, int32_t ndim, const int64_t *shape) {
  CA_ARG_NOT_NULL(out);
  *out = nullptr;
  if (ndim != 0 && !shape) return set_error(CA_EINVAL, ca::str("ca_block_new_zeroed: shape is NULL with ndim ", ndim));
  CA_TRY
  *out = ca::block_new(dtype, ndim, shape, true);
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_block_wrap(ca_block_t **out, ca_dtype_t dtype, int32_t ndim, const int64_t *shape, void *data,
                                 void (*release)(void *), void *ud) {
  if (!out) {
    if (release) release(ud);
    return set_error(CA_EINVAL, "ca_block_wrap: out is NULL");
  }
  *out = nullptr;
  CA_TRY
  *out = ca::block_wrap(dtype, ndim, shape, data, release, ud);
  return CA_OK;
  CA_CATCH
}

CA_API ca_block_t *ca_block_retain(const ca_block_t *b) { return ca::block_retain(b); }
CA_API void ca_block_free(const ca_block_t *b) { ca::block_release(b); }
CA_API ca_dtype_t ca_block_dtype(const ca_block_t *b) { return b ? b->dtype : CA_DTYPE_INVALID; }
CA_API int32_t ca_block_ndim(const ca_block_t *b) { return b ? b->ndim : -1; }
CA_API const int64_t *ca_block_shape(const ca_block_t *b) { return b && b->ndim > 0 ? b->shape : nullptr; }
CA_API int64_t ca_block_size(const ca_block_t *b) { return b ? b->size : 0; }
CA_API size_t ca_block_nbytes(const ca_block_t *b) { return b ? size_t(b->nbytes) : 0; }
CA_API void *ca_block_data(const ca_block_t *b) { return b ? b->data : nullptr; }

}  // extern "C"
