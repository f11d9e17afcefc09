// Graph files (chunkarray/format.h): thin wrappers over src/format.
#include <chunkarray/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <set>

#include "array/array.hpp"
#include "builtins/builtins.hpp"
#include "capi_internal.hpp"
#ifdef CA_HAVE_CAPNP
#include "format/format.hpp"
#endif

// Array handles are defined in capi_array.cpp.
ca_array_t *ca_capi_wrap_array(ca::ArrayPtr a);
ca::ArrayPtr ca_capi_unwrap(const ca_array_t *a);

using ca::capi::set_error;

namespace {

#ifdef CA_HAVE_CAPNP
namespace fmt = ca::format;

std::shared_ptr<ca::Graph> merged(const ca_array_t *const *arrays, size_t n, std::vector<fmt::ArrayEntry> &entries,
                                  const char *what) {
  CA_CHECK(arrays || n == 0, CA_EINVAL, what, ": arrays is NULL with n ", n);
  std::vector<ca::ArrayPtr> list;
  for (size_t i = 0; i < n; ++i) {
    ca::ArrayPtr a = ca_capi_unwrap(arrays[i]);
    CA_CHECK(a, CA_EINVAL, what, ": array ", i, " is NULL");
    list.push_back(a);
    entries.push_back({a->name, a->dtype, a->chunks});
  }
  return ca::merge_graphs(list);
}

// Arrays over a loaded graph; an array whose blocks are not all in the graph is a corrupt file.
// Grid layers (blockwise, data) hold every key inside their block counts, so those arrays are
// checked by their block counts (no walk over a possibly huge grid); materialized layers are
// checked key by key, after bounding the grid by the layer's task count.
ca::ArrayPtr make_array(const fmt::FileContents &fc, const fmt::ArrayEntry &e) {
  const ca::Layer *l = fc.graph->find(e.name);
  CA_CHECK(l && l->nindex() == int32_t(e.chunks.size()), CA_EFORMAT, "array '", e.name, "' has no matching layer");
  std::vector<ca::Index> nb = l->numblocks();
  int64_t blocks = 1;
  for (size_t d = 0; d < e.chunks.size(); ++d)
    CA_CHECK(!__builtin_mul_overflow(blocks, int64_t(e.chunks[d].size()), &blocks), CA_EFORMAT, "array '", e.name,
             "' has too many blocks");
  if (l->kind() != ca::LayerKind::Materialized) {
    for (size_t d = 0; d < e.chunks.size(); ++d)
      CA_CHECK(ca::Index(e.chunks[d].size()) <= nb[d], CA_EFORMAT, "array '", e.name, "' has ", e.chunks[d].size(),
               " blocks along axis ", d, " but its layer only ", nb[d]);
    return ca::array_from_layer(fc.graph, e.name, e.chunks, e.dtype);
  }
  CA_CHECK(blocks <= l->num_tasks(), CA_EFORMAT, "array '", e.name, "' has ", blocks, " blocks but its layer only ",
           l->num_tasks(), " tasks");
  try {
    return ca::array_new(fc.graph, e.name, e.chunks, e.dtype);
  } catch (const ca::Error &err) {
    if (err.code() == CA_ENOMEM) throw;
    ca::fail(CA_EFORMAT, "array '", e.name, "' does not match the file's graph: ", err.message());
  }
}

std::vector<ca_array_t *> make_arrays(const fmt::FileContents &fc) {
  std::vector<ca_array_t *> out;
  try {
    for (const fmt::ArrayEntry &e : fc.arrays) out.push_back(ca_capi_wrap_array(make_array(fc, e)));
  } catch (...) {
    for (ca_array_t *a : out) ca_array_free(a);
    throw;
  }
  return out;
}

ca_status_t hand_out(const fmt::FileContents &fc, ca_graph_t **graph, ca_array_t ***arrays, size_t *n) {
  std::vector<ca_array_t *> list;
  if (arrays) list = make_arrays(fc);
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
      ca_arrays_free(mem, list.size());
      throw;
    }
  }
  if (arrays) {
    *arrays = mem;
    *n = list.size();
  }
  return CA_OK;
}

// The kernel-version rule of the save options (NULL: the defaults, no context).
fmt::KernelVersionFn save_versions(const ca_save_options_t *opts, const char *what) {
  ca_save_options_t o = CA_SAVE_OPTIONS_INIT;
  if (opts) {
    CA_CHECK(opts->struct_size >= sizeof(uint32_t), CA_EINVAL, what, ": opts->struct_size ", opts->struct_size,
             " is too small");
    std::memcpy(&o, opts, std::min<size_t>(opts->struct_size, sizeof(o)));
  }
  return fmt::kernel_version_resolver(o.context ? &o.context->registry : nullptr, &ca::builtin_kernel_registry());
}

void *copy_out(const std::vector<unsigned char> &bytes) {
  void *p = std::malloc(bytes.size() ? bytes.size() : 1);
  if (!p) throw std::bad_alloc();
  std::memcpy(p, bytes.data(), bytes.size());
  return p;
}
#else
ca_status_t no_capnp(const char *what) {
  return set_error(CA_EUNSUPPORTED, std::string(what) + ": this chunkarray was built without Cap'n Proto (-Dcapnp=disabled)");
}
#endif

}  // namespace

extern "C" {

CA_API int32_t ca_format_version(void) { return CA_FORMAT_VERSION; }

CA_API void ca_buffer_free(void *data) { std::free(data); }

CA_API void ca_arrays_free(ca_array_t **arrays, size_t n) {
  if (!arrays) return;
  for (size_t i = 0; i < n; ++i) ca_array_free(arrays[i]);
  std::free(arrays);
}

CA_API ca_status_t ca_graph_layer_info(const ca_graph_t *graph, const char *layer, ca_layer_info_t *out) {
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

CA_API ca_status_t ca_graph_kernels(ca_keylist_t **out, const ca_graph_t *graph) {
  CA_ARG_NOT_NULL(out);
  *out = nullptr;
  CA_ARG_NOT_NULL(graph);
  CA_TRY
  std::set<std::string> names;
  for (const ca::LayerPtr &l : graph->g.layers()) names.insert(l->kernel_names().begin(), l->kernel_names().end());
  auto kl = std::make_unique<ca_keylist>();
  kl->names.assign(names.begin(), names.end());
  kl->idx.resize(kl->names.size());
  *out = kl.release();
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_graph_kernel_version(int32_t *out, const ca_graph_t *graph, const char *kernel) {
  CA_ARG_NOT_NULL(out);
  *out = 0;
  CA_ARG_NOT_NULL(graph);
  CA_ARG_NOT_NULL(kernel);
  CA_TRY
  bool used = false;
  int32_t version = 0;
  const ca::Layer *from = nullptr;
  for (const ca::LayerPtr &l : graph->g.layers()) {
    const auto &names = l->kernel_names();
    for (size_t k = 0; k < names.size(); ++k) {
      if (names[k] != kernel) continue;
      used = true;
      int32_t v = l->kernel_version(k);
      if (v == 0) continue;
      if (version != 0 && v != version)
        return set_error(CA_EVERSION, std::string("ca_graph_kernel_version: layer '") + from->name() +
                                          "' records kernel '" + kernel + "' version " + std::to_string(version) +
                                          " but layer '" + l->name() + "' records version " + std::to_string(v));
      version = v;
      from = l.get();
    }
  }
  if (!used)
    return set_error(CA_ENOTFOUND, std::string("ca_graph_kernel_version: no task of the graph calls kernel '") +
                                       kernel + "'");
  *out = version;
  return CA_OK;
  CA_CATCH
}

#ifdef CA_HAVE_CAPNP

}  // extern "C"

namespace {

// The save calls with and without options share these; `fn` is the public name errors give.
ca_status_t graph_save(const char *fn, const ca_graph_t *graph, const char *path, const ca_save_options_t *opts) {
  CA_ARG_NOT_NULL_IN(fn, graph);
  CA_ARG_NOT_NULL_IN(fn, path);
  CA_TRY
  fmt::save_file(graph->g, {}, path, save_versions(opts, fn));
  return CA_OK;
  CA_CATCH
}

ca_status_t graph_save_buffer(const char *fn, const ca_graph_t *graph, void **data, size_t *size,
                              const ca_save_options_t *opts) {
  CA_ARG_NOT_NULL_IN(fn, data);
  *data = nullptr;
  CA_ARG_NOT_NULL_IN(fn, size);
  *size = 0;
  CA_ARG_NOT_NULL_IN(fn, graph);
  CA_TRY
  auto bytes = fmt::save_bytes(graph->g, {}, save_versions(opts, fn));
  *data = copy_out(bytes);
  *size = bytes.size();
  return CA_OK;
  CA_CATCH
}

ca_status_t arrays_save(const char *fn, const ca_array_t *const *arrays, size_t n, const char *path,
                        const ca_save_options_t *opts) {
  CA_ARG_NOT_NULL_IN(fn, path);
  CA_TRY
  auto versions = save_versions(opts, fn);
  std::vector<fmt::ArrayEntry> entries;
  auto g = merged(arrays, n, entries, fn);
  fmt::save_file(*g, entries, path, versions);
  return CA_OK;
  CA_CATCH
}

ca_status_t arrays_save_buffer(const char *fn, const ca_array_t *const *arrays, size_t n, void **data, size_t *size,
                               const ca_save_options_t *opts) {
  CA_ARG_NOT_NULL_IN(fn, data);
  *data = nullptr;
  CA_ARG_NOT_NULL_IN(fn, size);
  *size = 0;
  CA_TRY
  auto versions = save_versions(opts, fn);
  std::vector<fmt::ArrayEntry> entries;
  auto g = merged(arrays, n, entries, fn);
  auto bytes = fmt::save_bytes(*g, entries, versions);
  *data = copy_out(bytes);
  *size = bytes.size();
  return CA_OK;
  CA_CATCH
}

}  // namespace

extern "C" {

CA_API ca_status_t ca_graph_save(const ca_graph_t *graph, const char *path) {
  return graph_save("ca_graph_save", graph, path, nullptr);
}
CA_API ca_status_t ca_graph_save_opts(const ca_graph_t *graph, const char *path, const ca_save_options_t *opts) {
  return graph_save("ca_graph_save_opts", graph, path, opts);
}

CA_API ca_status_t ca_graph_load(ca_graph_t **out, const char *path) {
  CA_ARG_NOT_NULL(out);
  *out = nullptr;
  CA_ARG_NOT_NULL(path);
  CA_TRY
  return hand_out(fmt::load_file(path), out, nullptr, nullptr);
  CA_CATCH
}

CA_API ca_status_t ca_graph_save_buffer(const ca_graph_t *graph, void **data, size_t *size) {
  return graph_save_buffer("ca_graph_save_buffer", graph, data, size, nullptr);
}
CA_API ca_status_t ca_graph_save_buffer_opts(const ca_graph_t *graph, void **data, size_t *size,
                                             const ca_save_options_t *opts) {
  return graph_save_buffer("ca_graph_save_buffer_opts", graph, data, size, opts);
}

CA_API ca_status_t ca_graph_load_buffer(ca_graph_t **out, const void *data, size_t size) {
  CA_ARG_NOT_NULL(out);
  *out = nullptr;
  CA_ARG_NOT_NULL(data);
  CA_TRY
  return hand_out(fmt::load_bytes(data, size), out, nullptr, nullptr);
  CA_CATCH
}

CA_API ca_status_t ca_arrays_save(const ca_array_t *const *arrays, size_t n, const char *path) {
  return arrays_save("ca_arrays_save", arrays, n, path, nullptr);
}
CA_API ca_status_t ca_arrays_save_opts(const ca_array_t *const *arrays, size_t n, const char *path,
                                       const ca_save_options_t *opts) {
  return arrays_save("ca_arrays_save_opts", arrays, n, path, opts);
}

CA_API ca_status_t ca_arrays_save_buffer(const ca_array_t *const *arrays, size_t n, void **data, size_t *size) {
  return arrays_save_buffer("ca_arrays_save_buffer", arrays, n, data, size, nullptr);
}
CA_API ca_status_t ca_arrays_save_buffer_opts(const ca_array_t *const *arrays, size_t n, void **data, size_t *size,
                                              const ca_save_options_t *opts) {
  return arrays_save_buffer("ca_arrays_save_buffer_opts", arrays, n, data, size, opts);
}

CA_API ca_status_t ca_arrays_load(ca_array_t ***out, size_t *n, const char *path) {
  CA_ARG_NOT_NULL(out);
  *out = nullptr;
  CA_ARG_NOT_NULL(n);
  *n = 0;
  CA_ARG_NOT_NULL(path);
  CA_TRY
  return hand_out(fmt::load_file(path), nullptr, out, n);
  CA_CATCH
}

CA_API ca_status_t ca_arrays_load_buffer(ca_array_t ***out, size_t *n, const void *data, size_t size) {
  CA_ARG_NOT_NULL(out);
  *out = nullptr;
  CA_ARG_NOT_NULL(n);
  *n = 0;
  CA_ARG_NOT_NULL(data);
  CA_TRY
  return hand_out(fmt::load_bytes(data, size), nullptr, out, n);
  CA_CATCH
}

CA_API ca_status_t ca_file_load(ca_graph_t **graph, ca_array_t ***arrays, size_t *n, const char *path) {
  if (graph) *graph = nullptr;
  if (arrays) {
    CA_ARG_NOT_NULL(n);
    *arrays = nullptr;
  }
  if (n) *n = 0;
  CA_ARG_NOT_NULL(path);
  CA_TRY
  auto fc = fmt::load_file(path);
  ca_array_t **list = nullptr;
  size_t count = 0;
  if (arrays) hand_out(fc, nullptr, &list, &count);
  if (graph) {
    try {
      hand_out(fc, graph, nullptr, nullptr);
    } catch (...) {
      ca_arrays_free(list, count);
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

#else  // !CA_HAVE_CAPNP

CA_API ca_status_t ca_graph_save(const ca_graph_t *, const char *) { return no_capnp("ca_graph_save"); }
CA_API ca_status_t ca_graph_save_opts(const ca_graph_t *, const char *, const ca_save_options_t *) {
  return no_capnp("ca_graph_save_opts");
}
CA_API ca_status_t ca_graph_save_buffer_opts(const ca_graph_t *, void **data, size_t *size, const ca_save_options_t *) {
  if (data) *data = nullptr;
  if (size) *size = 0;
  return no_capnp("ca_graph_save_buffer_opts");
}
CA_API ca_status_t ca_arrays_save_opts(const ca_array_t *const *, size_t, const char *, const ca_save_options_t *) {
  return no_capnp("ca_arrays_save_opts");
}
CA_API ca_status_t ca_arrays_save_buffer_opts(const ca_array_t *const *, size_t, void **data, size_t *size,
                                              const ca_save_options_t *) {
  if (data) *data = nullptr;
  if (size) *size = 0;
  return no_capnp("ca_arrays_save_buffer_opts");
}
CA_API ca_status_t ca_graph_load(ca_graph_t **out, const char *) {
  if (out) *out = nullptr;
  return no_capnp("ca_graph_load");
}
CA_API ca_status_t ca_graph_save_buffer(const ca_graph_t *, void **data, size_t *size) {
  if (data) *data = nullptr;
  if (size) *size = 0;
  return no_capnp("ca_graph_save_buffer");
}
CA_API ca_status_t ca_graph_load_buffer(ca_graph_t **out, const void *, size_t) {
  if (out) *out = nullptr;
  return no_capnp("ca_graph_load_buffer");
}
CA_API ca_status_t ca_arrays_save(const ca_array_t *const *, size_t, const char *) { return no_capnp("ca_arrays_save"); }
CA_API ca_status_t ca_arrays_save_buffer(const ca_array_t *const *, size_t, void **data, size_t *size) {
  if (data) *data = nullptr;
  if (size) *size = 0;
  return no_capnp("ca_arrays_save_buffer");
}
CA_API ca_status_t ca_arrays_load(ca_array_t ***out, size_t *n, const char *) {
  if (out) *out = nullptr;
  if (n) *n = 0;
  return no_capnp("ca_arrays_load");
}
CA_API ca_status_t ca_arrays_load_buffer(ca_array_t ***out, size_t *n, const void *, size_t) {
  if (out) *out = nullptr;
  if (n) *n = 0;
  return no_capnp("ca_arrays_load_buffer");
}
CA_API ca_status_t ca_file_load(ca_graph_t **graph, ca_array_t ***arrays, size_t *n, const char *) {
  if (graph) *graph = nullptr;
  if (arrays) *arrays = nullptr;
  if (n) *n = 0;
  return no_capnp("ca_file_load");
}

#endif

CA_API ca_status_t ca_array_save(const ca_array_t *a, const char *path) {
  CA_ARG_NOT_NULL(a);
  return ca_arrays_save(&a, 1, path);
}

CA_API ca_status_t ca_array_load(ca_array_t **out, const char *path) {
  CA_ARG_NOT_NULL(out);
  *out = nullptr;
  ca_array_t **list = nullptr;
  size_t n = 0;
  ca_status_t st = ca_arrays_load(&list, &n, path);
  if (st != CA_OK) return st;
  if (n != 1) {
    ca_arrays_free(list, n);
    if (n == 0)
      return set_error(CA_ENOTFOUND, std::string("ca_array_load: '") + path + "' holds no array (a graph file?)");
    return set_error(CA_EINVAL, std::string("ca_array_load: '") + path + "' holds " + std::to_string(n) +
                                    " arrays: use ca_arrays_load");
  }
  *out = list[0];
  std::free(list);
  return CA_OK;
}

}  // extern "C"
