// Graphs, key lists, cancellation tokens, compute.
#include "capi_internal.hpp"
#include "graph/plan.hpp"

#include <algorithm>
#include <cstring>
#include <set>
#include <string>
#include <vector>
#include <unordered_map>

namespace {

ca::KeyRef key_ref(const ca_key_t *k) { return {k->name, k->index, k->nindex}; }

ca_keylist *keylist_from_names(const std::vector<std::string> &names) {
  auto kl = new ca_keylist();
  kl->names = names;
  kl->idx.resize(names.size());
  return kl;
}

// ca_graph_kernel_names and its deprecated name ca_graph_kernels; messages name `fn`.
ca_status_t graph_kernel_names(const char *fn, ca_keylist_t **out, const ca_graph_t *graph) {
  CA_ARG_NOT_NULL_IN(fn, out);
  *out = nullptr;
  CA_ARG_NOT_NULL_IN(fn, graph);
  CA_TRY
  *out = keylist_from_names(graph->g.kernel_names());
  return CA_OK;
  CA_CATCH_IN(fn)
}

}  // namespace

extern "C" {

CA_API size_t ca_keylist_size(const ca_keylist_t *list) { return list ? list->names.size() : 0; }

CA_API ca_status_t ca_keylist_get(const ca_keylist_t *list, size_t i, ca_key_t *out) {
  CA_ARG_NOT_NULL(list);
  CA_ARG_NOT_NULL(out);
  if (i >= list->names.size())
    return set_error(CA_EINVAL, "ca_keylist_get: index " + std::to_string(i) + " is out of range (size " +
                                    std::to_string(list->names.size()) + ")");
  out->name = list->names[i].c_str();
  out->index = list->idx[i].empty() ? nullptr : list->idx[i].data();
  out->nindex = int32_t(list->idx[i].size());
  return CA_OK;
}

CA_API void ca_keylist_free(ca_keylist_t *list) { delete list; }

CA_API ca_status_t ca_graph_new(ca_graph_t **out) {
  CA_ARG_NOT_NULL(out);
  *out = nullptr;
  CA_TRY
  *out = new ca_graph();
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_graph_copy(ca_graph_t **out, const ca_graph_t *graph) {
  CA_ARG_NOT_NULL(out);
  *out = nullptr;
  CA_ARG_NOT_NULL(graph);
  CA_TRY
  *out = new ca_graph(*graph);
  return CA_OK;
  CA_CATCH
}

CA_API void ca_graph_free(ca_graph_t *graph) { delete graph; }

CA_API ca_status_t ca_graph_add_task(ca_graph_t *graph, const ca_key_t *key, const char *kernel, const ca_arg_t *args,
                                     size_t nargs) {
  CA_ARG_NOT_NULL(graph);
  CA_ARG_NOT_NULL(key);
  CA_ARG_NOT_NULL(kernel);
  if (!args && nargs) return set_error(CA_EINVAL, ca::str("ca_graph_add_task: args is NULL with nargs ", nargs));
  CA_TRY
  graph->g.add_task(key_ref(key), kernel, args, nargs);
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_graph_add_blockwise(ca_graph_t *graph, const char *name, const char *out_index, const char *kernel,
                                          const ca_arg_t *args, size_t nargs, const ca_blockwise_options_t *opts) {
  CA_ARG_NOT_NULL(graph);
  CA_ARG_NOT_NULL(name);
  CA_ARG_NOT_NULL(out_index);
  CA_ARG_NOT_NULL(kernel);
  if (!args && nargs) return set_error(CA_EINVAL, ca::str("ca_graph_add_blockwise: args is NULL with nargs ", nargs));
  CA_TRY
  const int64_t *nb = nullptr;
  if (opts) {
    CA_CHECK(opts->struct_size >= sizeof(uint32_t), CA_EINVAL, "ca_graph_add_blockwise: opts->struct_size ",
             opts->struct_size, " is too small");
    if (opts->struct_size >= offsetof(ca_blockwise_options_t, numblocks) + sizeof(void *)) nb = opts->numblocks;
  }
  graph->g.add_blockwise(name, out_index, kernel, args, nargs, nb);
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_graph_add_partial_reduce(ca_graph_t *graph, const char *name, const char *input, const int64_t *split,
                                               int32_t nsplit, const char *kernel, const ca_arg_t *extra,
                                               size_t nextra) {
  CA_ARG_NOT_NULL(graph);
  CA_ARG_NOT_NULL(name);
  CA_ARG_NOT_NULL(input);
  CA_ARG_NOT_NULL(kernel);
  if (nsplit < 0 || (nsplit > 0 && !split)) return set_error(CA_EINVAL, "ca_graph_add_partial_reduce: bad split");
  CA_TRY
  graph->g.add_partial_reduce(name, input, std::vector<int64_t>(split, split + nsplit), kernel, extra, nextra);
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_graph_merge(ca_graph_t *graph, const ca_graph_t *other) {
  CA_ARG_NOT_NULL(graph);
  CA_ARG_NOT_NULL(other);
  CA_TRY
  ca::Graph merged = graph->g;  // all or nothing
  merged.merge(other->g);
  graph->g = std::move(merged);
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_graph_cull(ca_graph_t **out, const ca_graph_t *graph, const ca_key_t *keys, size_t nkeys) {
  CA_ARG_NOT_NULL(out);
  *out = nullptr;
  CA_ARG_NOT_NULL(graph);
  if (!keys && nkeys) return set_error(CA_EINVAL, "ca_graph_cull: keys is NULL with nkeys > 0");
  CA_TRY
  std::vector<ca::KeyRef> refs;
  for (size_t i = 0; i < nkeys; ++i) refs.push_back(key_ref(&keys[i]));
  auto res = std::make_unique<ca_graph>();
  res->g = graph->g.cull(refs.data(), refs.size());
  *out = res.release();
  return CA_OK;
  CA_CATCH
}

CA_API int64_t ca_graph_num_tasks(const ca_graph_t *graph) { return graph ? graph->g.num_tasks() : -1; }
CA_API int64_t ca_graph_num_layers(const ca_graph_t *graph) { return graph ? int64_t(graph->g.layers().size()) : -1; }

CA_API int ca_graph_has_key(const ca_graph_t *graph, const ca_key_t *key) {
  if (!graph || !key) return 0;
  try {
    return graph->g.has_key(key_ref(key)) ? 1 : 0;
  } catch (...) {
    return 0;
  }
}

CA_API ca_status_t ca_graph_layers(ca_keylist_t **out, const ca_graph_t *graph) {
  CA_ARG_NOT_NULL(out);
  *out = nullptr;
  CA_ARG_NOT_NULL(graph);
  CA_TRY
  std::vector<std::string> names;
  for (auto &l : graph->g.layers()) names.push_back(l->name());
  *out = keylist_from_names(names);
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_graph_kernel_names(ca_keylist_t **out, const ca_graph_t *graph) {
  return graph_kernel_names(__func__, out, graph);
}
// Deprecated in 0.2 (format.h): ca_graph_kernel_names' older name.
CA_API ca_status_t ca_graph_kernels(ca_keylist_t **out, const ca_graph_t *graph) {
  return graph_kernel_names(__func__, out, graph);
}

CA_API ca_status_t ca_graph_layer_dependencies(ca_keylist_t **out, const ca_graph_t *graph, const char *layer) {
  CA_ARG_NOT_NULL(out);
  *out = nullptr;
  CA_ARG_NOT_NULL(graph);
  CA_ARG_NOT_NULL(layer);
  CA_TRY
  const ca::Layer *l = graph->g.find(layer);
  if (!l) ca::fail(CA_ENOTFOUND, "no layer named '", layer, "'");
  *out = keylist_from_names(l->deps());
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_graph_dependencies(ca_keylist_t **out, const ca_graph_t *graph, const ca_key_t *key) {
  CA_ARG_NOT_NULL(out);
  *out = nullptr;
  CA_ARG_NOT_NULL(graph);
  CA_ARG_NOT_NULL(key);
  CA_ARG_NOT_NULL(key->name);
  CA_TRY
  auto kl = std::make_unique<ca_keylist>();
  for (auto &d : graph->g.dependencies(key_ref(key))) {
    kl->names.push_back(std::move(d.first));
    kl->idx.push_back(std::move(d.second));
  }
  *out = kl.release();
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_graph_layer_keys(ca_keylist_t **out, const ca_graph_t *graph, const char *layer) {
  CA_ARG_NOT_NULL(out);
  *out = nullptr;
  CA_ARG_NOT_NULL(graph);
  CA_ARG_NOT_NULL(layer);
  CA_TRY
  auto kl = std::make_unique<ca_keylist>();
  kl->idx = graph->g.layer_keys(layer);
  kl->names.assign(kl->idx.size(), layer);
  *out = kl.release();
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_graph_validate(const ca_graph_t *graph, const ca_context_t *ctx, const ca_key_t *keys, size_t nkeys) {
  CA_ARG_NOT_NULL(graph);
  if (!keys && nkeys) return set_error(CA_EINVAL, "ca_graph_validate: keys is NULL with nkeys > 0");
  CA_TRY
  std::vector<ca::KeyRef> refs;
  for (size_t i = 0; keys && i < nkeys; ++i) refs.push_back(key_ref(&keys[i]));
  ca::validate_graph(graph->g, keys ? refs.data() : nullptr, refs.size(),
                     ctx ? &ctx->engine.registry() : nullptr, ctx ? ctx->engine.task_budget() : 0);
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_cancel_new(ca_cancel_t **out) {
  CA_ARG_NOT_NULL(out);
  *out = nullptr;
  CA_TRY
  *out = new ca_cancel();
  return CA_OK;
  CA_CATCH
}
CA_API void ca_cancel_request(ca_cancel_t *c) {
  if (c) c->flag.store(true);
}
CA_API int ca_cancel_requested(const ca_cancel_t *c) { return c && c->flag.load() ? 1 : 0; }
CA_API void ca_cancel_reset(ca_cancel_t *c) {
  if (c) c->flag.store(false);
}
CA_API void ca_cancel_free(ca_cancel_t *c) { delete c; }

CA_API ca_status_t ca_compute(ca_block_t **results, ca_context_t *ctx, const ca_graph_t *graph, const ca_key_t *keys,
                              size_t nkeys, const ca_compute_options_t *opts) {
  if (results)
    for (size_t i = 0; i < nkeys; ++i) results[i] = nullptr;
  CA_ARG_NOT_NULL(ctx);
  CA_ARG_NOT_NULL(graph);
  if (nkeys && !results) return set_error(CA_EINVAL, "ca_compute: out is NULL with nkeys > 0");
  if (nkeys && !keys) return set_error(CA_EINVAL, "ca_compute: keys is NULL with nkeys > 0");
  CA_TRY
  ca::RunOptions ro = ca::capi::run_options(ctx, opts, __func__);
  std::vector<ca::KeyRef> refs;
  refs.reserve(nkeys);
  for (size_t i = 0; i < nkeys; ++i) refs.push_back(key_ref(&keys[i]));
  auto exec = ctx->engine.executor();
  auto plan = ca::build_plan(graph->g, refs.data(), refs.size(), &ctx->engine.registry(), ro.max_tasks, exec.get());
  std::vector<ca::Block *> outs = exec->run(*plan, ro);
  for (size_t i = 0; i < nkeys; ++i) results[i] = outs[i];
  return CA_OK;
  CA_CATCH
}

}  // extern "C"
