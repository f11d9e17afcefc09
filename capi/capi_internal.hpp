// Shared by the capi/*.cpp files: the opaque handle structs and the exception boundary.
#pragma once

#include <chunkarray/chunkarray.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "capi_handles.hpp"
#include "core/block.hpp"
#include "core/error.hpp"
#include "exec/context.hpp"
#include "exec/executor.hpp"
#include "graph/graph.hpp"
#include "kernel/kernel.hpp"

/// A handle around the engine context (exec/context.hpp).
struct ca_context {
  explicit ca_context(const ca::ContextOptions &o) : engine(o) {}
  ca::Context engine;
};

struct ca_graph {
  ca::Graph g;
};

struct ca_keylist {
  std::vector<std::string> names;
  std::vector<std::vector<int64_t>> idx;
};

struct ca_cancel {
  std::atomic<bool> flag{false};
};

namespace ca::io {
struct ZarrWriteOptions;
}

namespace ca::capi {

/// Record the failure for ca_last_error_message() and return its code.
ca_status_t set_error(ca_status_t code, const std::string &msg) noexcept;
/// The exception boundary of public function `fn` (its name, __func__ of the entry point): maps the
/// current exception to a status and a message that names `fn` ("ca_array_zeros: chunks along axis
/// 0 sum to 6, shape is 10"). A message that already starts with a public function's name (an
/// argument check written as "fn: ...") is kept as it is; `fn` not a public name ("ca_" prefix) adds
/// nothing (a static helper: it passes its entry point's name with CA_CATCH_IN).
ca_status_t handle_exception(const char *fn) noexcept;

/// Compute options (nullable, versioned by struct_size) plus the context's memory limit; `fn` names
/// the public function called in errors.
ca::RunOptions run_options(ca_context_t *ctx, const ca_compute_options_t *opts, const char *fn);
/// A ca_chunks_t as chunks (tuple of tuples); `what` names the calling function in errors.
std::vector<std::vector<int64_t>> chunks_in(const ca_chunks_t *c, const char *what);
/// A shape: ndim in 0..CA_MAX_NDIM, shape non-NULL when ndim > 0, no negative extent (CA_EINVAL).
std::vector<ca::Index> shape_in(int32_t ndim, const int64_t *shape, const char *what);
/// The engine array behind public parameter `param` (the headers name a lone array `a`); CA_EINVAL
/// naming `what` and `param` when it is NULL. Defined in capi_array.cpp.
const ca::ArrayPtr &arr(const ca_array_t *a, const char *what, const char *param = "a");
/// The engine arrays behind a handle list (CA_EINVAL for a NULL list with n > 0 or a NULL entry).
std::vector<ca::ArrayPtr> arrays_in(const ca_array_t *const *arrays, size_t n, const char *what);
/// ca_zarr_options_t (nullable) as the io layer's options for `a` (capi_io.cpp; the distributed
/// to_zarr writes the same stores).
ca::io::ZarrWriteOptions zarr_write_options(const ca::Array &a, const ca_zarr_options_t *opts);
/// Hand one block and its region to a ca_store_fn; a failing sink becomes a ca::Error with the
/// message it set (ca_store_set_error) or its status's name (CA_EKERNEL for a positive status).
void call_sink(ca_store_fn sink, void *user_data, const ca_block_t *b, size_t array, int32_t ndim,
               const int64_t *start, const int64_t *stop, const int64_t *block_index);
/// A copy of `s` in malloc'd memory (freed with ca_string_free).
char *dup_string(const std::string &s);

/// An options struct as passed in (nullable, versioned by its leading `uint32_t struct_size`): the
/// defaults, overwritten by the caller's first struct_size bytes. `min_size` is the smallest size the
/// caller may pass (the fields every version has); a smaller one is CA_EINVAL naming `fn` and `name`.
template <class T>
T options_in(const T *opts, const T &defaults, const char *fn, const char *name = "opts",
             size_t min_size = sizeof(uint32_t)) {
  T o = defaults;
  if (!opts) return o;
  CA_CHECK(opts->struct_size >= min_size, CA_EINVAL, fn, ": ", name, "->struct_size ", opts->struct_size,
           " is too small (at least ", min_size, "; set it to sizeof of the options struct)");
  std::memcpy(static_cast<void *>(&o), opts, std::min<size_t>(opts->struct_size, sizeof(T)));
  o.struct_size = sizeof(T);
  return o;
}

}  // namespace ca::capi

using ca::capi::arr;
using ca::capi::set_error;

// Every exported function body: CA_TRY ... CA_CATCH  (maps exceptions to status codes; the message
// names the function). A static implementation shared by several entry points ends with
// CA_CATCH_IN(fn), fn being the name of the entry point that called it.
#define CA_TRY try {
#define CA_CATCH CA_CATCH_IN(__func__)
#define CA_CATCH_IN(fn)                      \
  }                                          \
  catch (...) {                              \
    return ::ca::capi::handle_exception(fn); \
  }

#define CA_ARG_NOT_NULL(p)                                                            \
  do {                                                                                \
    if (!(p)) return ::ca::capi::set_error(CA_EINVAL, std::string(__func__) + ": " #p " is NULL"); \
  } while (0)
/// The same, naming the public function `fn` (for implementations shared by several entry points).
#define CA_ARG_NOT_NULL_IN(fn, p)                                                                 \
  do {                                                                                           \
    if (!(p)) return ::ca::capi::set_error(CA_EINVAL, std::string(fn) + ": " #p " is NULL");     \
  } while (0)

/// Check a function's single output pointer and clear what it points to.
#define OUT_INIT(out)   \
  CA_ARG_NOT_NULL(out); \
  *out = nullptr
