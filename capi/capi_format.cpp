// Graph files (chunkarray/format.h): thin wrappers over src/format.
#include <chunkarray/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstddef>
#include <cstring>
#include <set>

#include "array/array.hpp"
#include "array/masked.hpp"
#include "builtins/builtins.hpp"
#include "capi_internal.hpp"
#include "format/format.hpp"

// Array handles are defined in capi_array.cpp.

namespace {

namespace fmt = ca::format;

std::vector<ca_array_t *> wrap_arrays(const std::vector<ca::ArrayPtr> &arrays) {
  std::vector<ca_array_t *> out;
  try {
    for (const ca::ArrayPtr &a : arrays) out.push_back(ca::capi::wrap_array(a));
  } catch (...) {
    for (ca_array_t *a : out) ca_array_free(a);
    throw;
  }
  return out;
}

ca_status_t hand_out(const fmt::FileContents &fc, ca_graph_t **graph, ca_array_t ***arrays, size_t *n) {
  std::vector<ca_array_t *> list;
  if (arrays) list = wrap_arrays(fmt::file_arrays(fc));
  ca_array_t **mem = nullptr;
  if (!list.empty()) {
    mem = static_cast<ca_array_t **>(std::malloc(list.size() * sizeof(ca_array_t *)));
    if (!mem) {
      for (ca_array_t *a : list) ca_array_free(a);
      throw std::bad_alloc();
    }
    std::copy(list.begin(), list.end(), mem);
  }
  if (graph) {
    try {
      auto g = std::make_unique<ca_graph>();
      g->g = *fc.graph;
      *graph = g.release();
    } catch (...) {
      ca_array_free_many(mem, list.size());
      throw;
    }
  }
  if (arrays) {
    *arrays = mem;
    *n = list.size();
  }
  return CA_OK;
}

void *copy_out(const std::vector<unsigned char> &bytes) {
  void *p = std::malloc(bytes.size() ? bytes.size() : 1);
  if (!p) throw std::bad_alloc();
  std::memcpy(p, bytes.data(), bytes.size());
  return p;
}

}  // namespace

extern "C" {

CA_API int32_t ca_format_version(void) { return CA_FORMAT_VERSION; }

CA_API void ca_buffer_free(void *data) { std::free(data); }

CA_API void ca_array_free_many(ca_array_t **arrays, size_t n) {
  if (!arrays) return;
  for (size_t i = 0; i < n; ++i) ca_array_free(arrays[i]);
  std::free(arrays);
}

CA_API ca_status_t ca_graph_layer_info(ca_layer_info_t *out, const ca_graph_t *graph, const char *layer) {
  CA_ARG_NOT_NULL(graph);
  CA_ARG_NOT_NULL(layer);
  CA_ARG_NOT_NULL(out);
  if (out->struct_size < offsetof(ca_layer_info_t, num_tasks))
    return set_error(CA_EINVAL, "ca_graph_layer_info: out->struct_size " + std::to_string(out->struct_size) +
                                    " is too small (set it to sizeof(ca_layer_info_t))");
  CA_TRY
  const ca::Layer *l = graph->g.find(layer);
  if (!l) return set_error(CA_ENOTFOUND, std::string("ca_graph_layer_info: no layer named '") + layer + "'");
  ca_layer_info_t info{};
  info.struct_size = out->struct_size;
  switch (l->kind()) {  // every engine kind has its public constant (format.h)
    case ca::LayerKind::Materialized: info.kind = CA_LAYER_MATERIALIZED; break;
    case ca::LayerKind::Blockwise: info.kind = CA_LAYER_BLOCKWISE; break;
    case ca::LayerKind::Data: info.kind = CA_LAYER_DATA; break;
    case ca::LayerKind::Overlap: info.kind = CA_LAYER_OVERLAP; break;
    case ca::LayerKind::IndexMap: info.kind = CA_LAYER_INDEX_MAP; break;
    default:
      return set_error(CA_EINTERNAL, std::string("ca_graph_layer_info: layer '") + layer + "' has kind " +
                                         std::to_string(int(l->kind())) + ", which has no CA_LAYER_* constant");
  }
  info.nindex = l->nindex();
  info.nkernels = int32_t(l->kernel_names().size());
  info.num_tasks = l->num_tasks();
  if (l->kind() == ca::LayerKind::Data) {
    const auto &dl = static_cast<const ca::DataLayer &>(*l);
    for (int64_t t = 0; t < dl.num_tasks(); ++t)
      if (dl.block(t)) info.data_bytes += dl.block(t)->nbytes;  // a distributed layer: this rank's blocks
  }
  std::memcpy(out, &info, std::min<size_t>(out->struct_size, sizeof info));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_graph_kernel_version(int32_t *out, const ca_graph_t *graph, const char *kernel) {
  CA_ARG_NOT_NULL(out);
  *out = 0;
  CA_ARG_NOT_NULL(graph);
  CA_ARG_NOT_NULL(kernel);
  CA_TRY
  *out = graph->g.kernel_version(kernel);
  return CA_OK;
  CA_CATCH
}

}  // extern "C"

namespace {

// What one save writes (a graph, or arrays with the union of their graphs) and where (a file, or a
// new buffer). Every public save call comes here; `fn` is the public name errors give.
struct SaveRequest {
  const char *fn;
  const ca_graph_t *graph = nullptr;
  const ca_array_t *const *arrays = nullptr;
  size_t narrays = 0;
  const char *path = nullptr;  // NULL: into *data / *size
  const ca_context_t *context = nullptr;
  const ca_masked_t *const *masked = nullptr;  // ca_masked_save: saved after `arrays`
  size_t nmasked = 0;
};

ca_status_t do_save(const SaveRequest &r, void **data, size_t *size) {
  if (data) *data = nullptr;
  if (size) *size = 0;
  if (!r.path) {
    CA_ARG_NOT_NULL_IN(r.fn, data);
    CA_ARG_NOT_NULL_IN(r.fn, size);
  } else if (!*r.path) {
    return set_error(CA_EINVAL, std::string(r.fn) + ": path is empty");
  }
  CA_TRY
  auto versions = fmt::kernel_version_resolver(r.context ? &ca::capi::engine(r.context).registry() : nullptr,
                                               &ca::builtin_kernel_registry());
  std::vector<fmt::ArrayEntry> entries;
  std::vector<fmt::MaskedEntry> masked;
  std::shared_ptr<ca::Graph> g;
  const ca::Graph *what;
  if (r.graph) {
    what = &r.graph->g;
  } else {
    CA_CHECK(r.arrays || r.narrays == 0, CA_EINVAL, r.fn, ": arrays is NULL with n ", r.narrays);
    std::vector<ca::ArrayPtr> list;
    for (size_t i = 0; i < r.narrays; ++i) list.push_back(ca::capi::unwrap(r.arrays[i]));
    for (size_t i = 0; i < r.nmasked; ++i)
      fmt::add_masked(list, masked, *ca::capi::masked_in(r.masked[i], r.fn, ca::str("masked[", i, "]").c_str()));
    g = fmt::arrays_graph(list, entries, r.fn);
    what = g.get();
  }
  if (r.path) {
    fmt::save_file(*what, entries, r.path, versions, masked);
  } else {
    auto bytes = fmt::save_bytes(*what, entries, versions, masked);
    *data = copy_out(bytes);
    *size = bytes.size();
  }
  return CA_OK;
  CA_CATCH
}

// Load a file (path) or bytes (data, size) and hand out what is asked for. Every public load call
// comes here.
ca_status_t do_load(const char *fn, const char *path, const void *data, size_t size, ca_graph_t **graph,
                    ca_array_t ***arrays, size_t *n) {
  if (graph) *graph = nullptr;
  if (arrays) *arrays = nullptr;
  if (n) *n = 0;
  if (arrays) CA_ARG_NOT_NULL_IN(fn, n);
  if (!graph && !arrays) return set_error(CA_EINVAL, std::string(fn) + ": out_graph and out_arrays are both NULL");
  if (!path) CA_ARG_NOT_NULL_IN(fn, data);
  CA_TRY
  auto fc = path ? fmt::load_file(path) : fmt::load_bytes(data, size);
  ca_array_t **list = nullptr;
  size_t count = 0;
  if (arrays) hand_out(fc, nullptr, &list, &count);
  if (graph) {
    try {
      hand_out(fc, graph, nullptr, nullptr);
    } catch (...) {
      ca_array_free_many(list, count);
      throw;
    }
  }
  if (arrays) {
    *arrays = list;
    *n = count;
  }
  return CA_OK;
  CA_CATCH
}

ca_status_t save_with(SaveRequest r, const ca_save_options_t *opts, void **data, size_t *size) {
  if (opts) {
    // The 0.1 struct these calls took: {struct_size} or {struct_size, context}; no context when absent.
    if (opts->struct_size < sizeof(uint32_t)) {
      if (data) *data = nullptr;
      if (size) *size = 0;
      return set_error(CA_EINVAL, std::string(r.fn) + ": opts->struct_size " + std::to_string(opts->struct_size) +
                                      " is too small (set it to sizeof(ca_save_options_t))");
    }
    if (opts->struct_size >= offsetof(ca_save_options_t, context) + sizeof(opts->context)) r.context = opts->context;
  }
  return do_save(r, data, size);
}

}  // namespace

extern "C" {

CA_API ca_status_t ca_save(void **out, size_t *out_size, const ca_save_options_t *opts) {
  if (out) *out = nullptr;
  if (out_size) *out_size = 0;
  CA_ARG_NOT_NULL(opts);
  ca_save_options_t o = CA_SAVE_OPTIONS_INIT;
  if (opts->struct_size < offsetof(ca_save_options_t, path) + sizeof(o.path))
    return set_error(CA_EINVAL, "ca_save: opts->struct_size " + std::to_string(opts->struct_size) +
                                    " is too small for a target (set it to sizeof(ca_save_options_t))");
  std::memcpy(&o, opts, std::min<size_t>(opts->struct_size, sizeof o));
  if (o.graph && (o.arrays || o.narrays))
    return set_error(CA_EINVAL, "ca_save: opts->graph and opts->arrays are both set (save a graph or arrays)");
  if (!o.graph && !o.arrays && o.narrays)
    return set_error(CA_EINVAL, "ca_save: opts->arrays is NULL with opts->narrays " + std::to_string(o.narrays));
  SaveRequest r{"ca_save", o.graph, o.arrays, o.narrays, o.path, o.context};
  return do_save(r, out, out_size);
}

CA_API ca_status_t ca_load(ca_graph_t **out_graph, ca_array_t ***out_arrays, size_t *out_narrays,
                           const ca_load_options_t *opts) {
  if (out_graph) *out_graph = nullptr;
  if (out_arrays) *out_arrays = nullptr;
  if (out_narrays) *out_narrays = 0;
  CA_ARG_NOT_NULL(opts);
  ca_load_options_t o = CA_LOAD_OPTIONS_INIT;
  if (opts->struct_size < sizeof(ca_load_options_t))
    return set_error(CA_EINVAL, "ca_load: opts->struct_size " + std::to_string(opts->struct_size) +
                                    " is too small (set it to sizeof(ca_load_options_t))");
  std::memcpy(&o, opts, sizeof o);
  if (o.path && o.data)
    return set_error(CA_EINVAL, "ca_load: opts->path and opts->data are both set (load a file or a buffer)");
  if (!o.path && !o.data) return set_error(CA_EINVAL, "ca_load: opts->path and opts->data are both NULL");
  return do_load("ca_load", o.path, o.data, o.size, out_graph, out_arrays, out_narrays);
}

// ---- deprecated aliases (format.h, "Deprecated"): removed in 0.3 --------------------------------

CA_API ca_status_t ca_graph_save(const ca_graph_t *graph, const char *path) {
  CA_ARG_NOT_NULL(graph);
  CA_ARG_NOT_NULL(path);
  return do_save({"ca_graph_save", graph, nullptr, 0, path, nullptr}, nullptr, nullptr);
}
CA_API ca_status_t ca_graph_save_opts(const ca_graph_t *graph, const char *path, const ca_save_options_t *opts) {
  CA_ARG_NOT_NULL(graph);
  CA_ARG_NOT_NULL(path);
  return save_with({"ca_graph_save_opts", graph, nullptr, 0, path, nullptr}, opts, nullptr, nullptr);
}
CA_API ca_status_t ca_graph_save_buffer(const ca_graph_t *graph, void **data, size_t *size) {
  if (data) *data = nullptr;
  if (size) *size = 0;
  CA_ARG_NOT_NULL(graph);
  return do_save({"ca_graph_save_buffer", graph, nullptr, 0, nullptr, nullptr}, data, size);
}
CA_API ca_status_t ca_graph_load(ca_graph_t **out, const char *path) {
  if (out) *out = nullptr;
  CA_ARG_NOT_NULL(path);
  CA_ARG_NOT_NULL(out);
  return do_load("ca_graph_load", path, nullptr, 0, out, nullptr, nullptr);
}
CA_API ca_status_t ca_graph_load_buffer(ca_graph_t **out, const void *data, size_t size) {
  if (out) *out = nullptr;
  CA_ARG_NOT_NULL(out);
  return do_load("ca_graph_load_buffer", nullptr, data, size, out, nullptr, nullptr);
}
CA_API ca_status_t ca_arrays_save_opts(const ca_array_t *const *arrays, size_t n, const char *path,
                                       const ca_save_options_t *opts) {
  CA_ARG_NOT_NULL(path);
  return save_with({"ca_arrays_save_opts", nullptr, arrays, n, path, nullptr}, opts, nullptr, nullptr);
}
CA_API ca_status_t ca_arrays_save_buffer(const ca_array_t *const *arrays, size_t n, void **data, size_t *size) {
  return do_save({"ca_arrays_save_buffer", nullptr, arrays, n, nullptr, nullptr}, data, size);
}
CA_API ca_status_t ca_arrays_load_buffer(ca_array_t ***out, size_t *n, const void *data, size_t size) {
  if (out) *out = nullptr;
  if (n) *n = 0;
  CA_ARG_NOT_NULL(out);
  return do_load("ca_arrays_load_buffer", nullptr, data, size, nullptr, out, n);
}
CA_API void ca_arrays_free(ca_array_t **arrays, size_t n) { ca_array_free_many(arrays, n); }

CA_API ca_status_t ca_array_save(const ca_array_t *a, const char *path) {
  CA_ARG_NOT_NULL(a);
  CA_ARG_NOT_NULL(path);
  return do_save({"ca_array_save", nullptr, &a, 1, path, nullptr}, nullptr, nullptr);
}

CA_API ca_status_t ca_array_load(ca_array_t **out, const char *path) {
  CA_ARG_NOT_NULL(out);
  *out = nullptr;
  CA_ARG_NOT_NULL(path);
  ca_array_t **list = nullptr;
  size_t n = 0;
  ca_status_t st = do_load("ca_array_load", path, nullptr, 0, nullptr, &list, &n);
  if (st != CA_OK) return st;
  if (n != 1) {
    ca_array_free_many(list, n);
    if (n == 0)
      return set_error(CA_ENOTFOUND, std::string("ca_array_load: '") + path + "' holds no array (a graph file?)");
    return set_error(CA_EINVAL, std::string("ca_array_load: '") + path + "' holds " + std::to_string(n) +
                                    " arrays: use ca_load");
  }
  *out = list[0];
  std::free(list);
  return CA_OK;
}

}  // extern "C"

extern "C" {

CA_API ca_status_t ca_masked_save(void **out, size_t *out_size, const ca_masked_t *const *masked, size_t nmasked,
                                  const ca_save_options_t *opts) {
  if (out) *out = nullptr;
  if (out_size) *out_size = 0;
  CA_ARG_NOT_NULL(opts);
  CA_TRY
  const ca_save_options_t o = ca::capi::options_in(opts, ca_save_options_t CA_SAVE_OPTIONS_INIT, __func__, "opts",
                                                   offsetof(ca_save_options_t, path) + sizeof(opts->path));
  CA_CHECK(!o.graph, CA_EINVAL, "ca_masked_save: opts->graph is set (masked arrays are saved with arrays only)");
  CA_CHECK(o.arrays || !o.narrays, CA_EINVAL, "ca_masked_save: opts->arrays is NULL with opts->narrays ", o.narrays);
  CA_CHECK(masked || !nmasked, CA_EINVAL, "ca_masked_save: masked is NULL with nmasked ", nmasked);
  SaveRequest r{"ca_masked_save", nullptr, o.arrays, o.narrays, o.path, o.context, masked, nmasked};
  return do_save(r, out, out_size);
  CA_CATCH
}

CA_API ca_status_t ca_masked_load(ca_masked_t ***out, size_t *out_n, const ca_load_options_t *opts) {
  CA_ARG_NOT_NULL(out);
  *out = nullptr;
  CA_ARG_NOT_NULL(out_n);
  *out_n = 0;
  CA_ARG_NOT_NULL(opts);
  CA_TRY
  const ca_load_options_t o = ca::capi::options_in(opts, ca_load_options_t CA_LOAD_OPTIONS_INIT, __func__, "opts",
                                                   sizeof(ca_load_options_t));
  CA_CHECK(!(o.path && o.data), CA_EINVAL, "ca_masked_load: opts->path and opts->data are both set");
  CA_CHECK(o.path || o.data, CA_EINVAL, "ca_masked_load: opts->path and opts->data are both NULL");
  auto fc = o.path ? fmt::load_file(o.path) : fmt::load_bytes(o.data, o.size);
  std::vector<ca::ma::MaskedPtr> list = fmt::file_masked(fc);
  if (list.empty()) return CA_OK;
  auto **mem = static_cast<ca_masked_t **>(std::calloc(list.size(), sizeof(ca_masked_t *)));
  if (!mem) throw std::bad_alloc();
  try {
    for (size_t i = 0; i < list.size(); ++i) mem[i] = ca::capi::wrap_masked(list[i]);
  } catch (...) {
    ca_masked_free_many(mem, list.size());
    throw;
  }
  *out = mem;
  *out_n = list.size();
  return CA_OK;
  CA_CATCH
}

CA_API void ca_masked_free_many(ca_masked_t **masked, size_t n) {
  if (!masked) return;
  for (size_t i = 0; i < n; ++i) ca_masked_free(masked[i]);
  std::free(masked);
}

}  // extern "C"
