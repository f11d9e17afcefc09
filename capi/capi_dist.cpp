// C API: distributed compute over a transport (chunkarray/dist.h). The engine is src/dist/.
#define CA_EXPERIMENTAL 1  // implements chunkarray/dist.h (experimental.h)
#include <chunkarray/dist.h>

#include <cstring>

#include "capi_internal.hpp"
#include "dist/dist.hpp"
#include "dist/placement.hpp"
#include "graph/plan.hpp"

namespace {

std::vector<ca::KeyRef> key_refs(const ca_key_t *keys, size_t nkeys) {
  std::vector<ca::KeyRef> refs;
  refs.reserve(nkeys);
  for (size_t i = 0; i < nkeys; ++i) refs.push_back({keys[i].name, keys[i].index, keys[i].nindex});
  return refs;
}

}  // namespace

extern "C" {

CA_API ca_status_t ca_dist_compute(ca_block_t **results, ca_context_t *ctx, const ca_graph_t *graph,
                                   const ca_key_t *keys, size_t nkeys, const ca_compute_options_t *opts,
                                   const ca_dist_options_t *dopts) {
  if (results)
    for (size_t i = 0; i < nkeys; ++i) results[i] = nullptr;
  CA_ARG_NOT_NULL(ctx);
  CA_ARG_NOT_NULL(graph);
  CA_ARG_NOT_NULL(dopts);
  if (nkeys && (!keys || !results))
    return ca::capi::set_error(CA_EINVAL, "ca_dist_compute: keys or results is NULL with nkeys > 0");
  CA_TRY
  CA_CHECK(dopts->struct_size >= sizeof(uint32_t), CA_EINVAL, "ca_dist_compute: options struct_size ",
           dopts->struct_size, " is too small");
  ca_dist_options_t o = CA_DIST_OPTIONS_INIT;
  std::memcpy(&o, dopts, std::min<size_t>(dopts->struct_size, sizeof(o)));
  o.struct_size = sizeof(o);
  CA_CHECK(o.transport, CA_EINVAL, "ca_dist_compute: dopts->transport is NULL");
  CA_CHECK(o.transport->struct_size >= sizeof(ca_transport_t), CA_EINVAL, "ca_dist_compute: transport struct_size ",
           o.transport->struct_size, " is smaller than ", sizeof(ca_transport_t));
  CA_CHECK(!o.stats || o.stats->struct_size >= sizeof(ca_dist_stats_t), CA_EINVAL,
           "ca_dist_compute: stats struct_size must be sizeof(ca_dist_stats_t)");
  ca::RunOptions ro = ca::capi::run_options(ctx, opts);
  auto refs = key_refs(keys, nkeys);
  auto plan = ca::build_plan(graph->g, refs.data(), refs.size(), &ctx->registry, ro.max_tasks);
  auto exec = ctx->executor();
  ca::dist::Options d;
  d.results = o.results;
  d.root = o.root;
  d.placement = o.placement;
  std::vector<ca::Block *> outs = ca::dist::compute(*exec, *plan, ro, *o.transport, d, o.stats);
  for (size_t i = 0; i < nkeys; ++i) results[i] = outs[i];
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_dist_plan(ca_dist_rank_plan_t *out, const ca_graph_t *graph, const ca_key_t *keys,
                                size_t nkeys, int32_t nranks, ca_placement_t placement) {
  CA_ARG_NOT_NULL(out);
  CA_ARG_NOT_NULL(graph);
  if (nkeys && !keys) return ca::capi::set_error(CA_EINVAL, "ca_dist_plan: keys is NULL with nkeys > 0");
  if (nranks < 1 || nranks > (1 << 20))
    return ca::capi::set_error(CA_EINVAL, "ca_dist_plan: nranks " + std::to_string(nranks) +
                                              " is outside 1..1048576");
  CA_TRY
  auto refs = key_refs(keys, nkeys);
  auto plan = ca::build_plan(graph->g, refs.data(), refs.size(), nullptr);
  auto owner = ca::dist::place(*plan, nranks, placement);
  auto per = ca::dist::summarize(*plan, owner, nranks, 0);
  std::copy(per.begin(), per.end(), out);
  return CA_OK;
  CA_CATCH
}

}  // extern "C"
