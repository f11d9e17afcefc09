// C API: distributed compute over a transport (chunkarray/dist.h): argument checks and handles
// around src/dist (dist.hpp for graphs, dist_array.hpp for whole arrays).
#define CA_EXPERIMENTAL 1  // implements chunkarray/dist.h (experimental.h)
#include <chunkarray/dist.h>

#include <atomic>
#include <cstring>
#include <mutex>

#include "array/array.hpp"
#include "capi_internal.hpp"
#include "dist/dist.hpp"
#include "dist/dist_array.hpp"
#include "dist/placement.hpp"
#include "graph/plan.hpp"
#include "io/array_io.hpp"

namespace {

std::vector<ca::KeyRef> key_refs(const ca_key_t *keys, size_t nkeys) {
  std::vector<ca::KeyRef> refs;
  refs.reserve(nkeys);
  for (size_t i = 0; i < nkeys; ++i) refs.push_back({keys[i].name, keys[i].index, keys[i].nindex});
  return refs;
}

// Options of a distributed call, validated (struct_size-versioned copies).
struct DistCall {
  ca_dist_options_t o = CA_DIST_OPTIONS_INIT;
  ca::dist::Options d;
};

DistCall dist_call(const ca_dist_options_t *dopts, const char *what) {
  DistCall c;
  CA_CHECK(dopts->struct_size >= sizeof(uint32_t), CA_EINVAL, what, ": options struct_size ", dopts->struct_size,
           " is too small");
  std::memcpy(&c.o, dopts, std::min<size_t>(dopts->struct_size, sizeof(c.o)));
  c.o.struct_size = sizeof(c.o);
  CA_CHECK(c.o.transport, CA_EINVAL, what, ": dopts->transport is NULL");
  CA_CHECK(c.o.transport->struct_size >= sizeof(ca_transport_t), CA_EINVAL, what, ": transport struct_size ",
           c.o.transport->struct_size, " is smaller than ", sizeof(ca_transport_t));
  CA_CHECK(!c.o.stats || c.o.stats->struct_size >= offsetof(ca_dist_stats_t, tasks_replicated), CA_EINVAL, what,
           ": stats struct_size ", c.o.stats ? c.o.stats->struct_size : 0, " is smaller than ca_dist_stats_t's ",
           offsetof(ca_dist_stats_t, tasks_replicated), " bytes of version 1.0");
  c.d.results = c.o.results;
  c.d.root = c.o.root;
  c.d.placement = c.o.placement;
  return c;
}

// The prelude of every ca_dist_array_* call: options, the array, run options.
ca::dist::ArrayCall array_call(ca_context_t *ctx, const ca_array_t *a, const ca_compute_options_t *opts,
                               const ca_dist_options_t *dopts, const char *what) {
  DistCall c = dist_call(dopts, what);
  ca::dist::ArrayCall ac;
  ac.ctx = &ctx->engine;
  ac.array = ca::capi::unwrap(a);
  ac.run = ca::capi::run_options(ctx, opts, what);
  ac.transport = c.o.transport;
  ac.opts = c.d;
  ac.stats = c.o.stats;
  ac.what = what;
  return ac;
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
  DistCall c = dist_call(dopts, "ca_dist_compute");
  ca::RunOptions ro = ca::capi::run_options(ctx, opts, __func__);
  auto refs = key_refs(keys, nkeys);
  auto plan = ca::build_plan(graph->g, refs.data(), refs.size(), &ctx->engine.registry(), ro.max_tasks);
  auto exec = ctx->engine.executor();
  std::vector<ca::Block *> outs = ca::dist::compute(*exec, *plan, ro, *c.o.transport, c.d, c.o.stats);
  for (size_t i = 0; i < nkeys; ++i) results[i] = outs[i];
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_dist_plan(ca_dist_rank_plan_t *out, const ca_graph_t *graph, const ca_key_t *keys,
                                size_t nkeys, const ca_dist_plan_options_t *popts) {
  CA_ARG_NOT_NULL(out);
  CA_ARG_NOT_NULL(graph);
  CA_ARG_NOT_NULL(popts);
  if (nkeys && !keys) return ca::capi::set_error(CA_EINVAL, "ca_dist_plan: keys is NULL with nkeys > 0");
  CA_TRY
  CA_CHECK(popts->struct_size >= sizeof(uint32_t), CA_EINVAL, "ca_dist_plan: options struct_size ",
           popts->struct_size, " is too small");
  ca_dist_plan_options_t o = CA_DIST_PLAN_OPTIONS_INIT;
  std::memcpy(&o, popts, std::min<size_t>(popts->struct_size, sizeof(o)));
  CA_CHECK(o.nranks >= 1 && o.nranks <= (1 << 20), CA_EINVAL, "ca_dist_plan: nranks ", o.nranks,
           " is outside 1..1048576");
  CA_CHECK(o.results == CA_DIST_RESULTS_GATHER || o.results == CA_DIST_RESULTS_LOCAL, CA_EINVAL,
           "ca_dist_plan: unknown results mode ", o.results);
  CA_CHECK(o.root >= 0 && o.root < o.nranks, CA_EINVAL, "ca_dist_plan: root rank ", o.root, " is not one of the ",
           o.nranks, " ranks");
  // (0 is what 1.0's CA_DIST_PLAN_OPTIONS_INIT set: that caller's entries end before tasks_replicated.)
  const size_t esize = o.rank_plan_size ? o.rank_plan_size : offsetof(ca_dist_rank_plan_t, tasks_replicated);
  CA_CHECK(esize >= offsetof(ca_dist_rank_plan_t, tasks), CA_EINVAL, "ca_dist_plan: rank_plan_size ", esize,
           " is too small");
  auto refs = key_refs(keys, nkeys);
  auto plan = ca::build_plan(graph->g, refs.data(), refs.size(), nullptr);
  auto owner = ca::dist::place(*plan, o.nranks, o.placement);
  if (o.results == CA_DIST_RESULTS_GATHER) ca::dist::transposed_outputs_at_root(*plan, owner, o.root);
  auto per = ca::dist::summarize(*plan, owner, o.nranks, o.root, o.results, o.placement);
  for (size_t r = 0; r < per.size(); ++r) {
    per[r].struct_size = uint32_t(std::min(esize, sizeof(ca_dist_rank_plan_t)));
    std::memcpy(reinterpret_cast<char *>(out) + r * esize, &per[r], std::min(esize, sizeof(ca_dist_rank_plan_t)));
  }
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_dist_array_compute(ca_block_t **out, ca_context_t *ctx, const ca_array_t *a,
                                         const ca_compute_options_t *opts, const ca_dist_options_t *dopts) {
  CA_ARG_NOT_NULL(out);
  *out = nullptr;
  CA_ARG_NOT_NULL(ctx);
  CA_ARG_NOT_NULL(a);
  CA_ARG_NOT_NULL(dopts);
  CA_TRY
  *out = ca::dist::compute_array(array_call(ctx, a, opts, dopts, "ca_dist_array_compute")).release();
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_dist_array_persist(ca_array_t **out, ca_context_t *ctx, const ca_array_t *a,
                                         const ca_compute_options_t *opts, const ca_dist_options_t *dopts) {
  CA_ARG_NOT_NULL(out);
  *out = nullptr;
  CA_ARG_NOT_NULL(ctx);
  CA_ARG_NOT_NULL(a);
  CA_ARG_NOT_NULL(dopts);
  CA_TRY
  *out = ca::capi::wrap_array(ca::dist::persist_array(array_call(ctx, a, opts, dopts, "ca_dist_array_persist")));
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_dist_array_store(ca_context_t *ctx, const ca_array_t *a, ca_store_fn sink, void *user_data,
                                       const ca_compute_options_t *opts, const ca_dist_options_t *dopts) {
  CA_ARG_NOT_NULL(ctx);
  CA_ARG_NOT_NULL(a);
  CA_ARG_NOT_NULL(sink);
  CA_ARG_NOT_NULL(dopts);
  CA_TRY
  ca::dist::store_array(array_call(ctx, a, opts, dopts, "ca_dist_array_store"),
                        [&](const ca::Block &b, const std::vector<ca::Index> &start, const std::vector<ca::Index> &stop,
                            const std::vector<ca::Index> &block_index) {
                          ca::capi::call_sink(sink, user_data, &b, 0, int32_t(start.size()), start.data(), stop.data(),
                                              block_index.data());
                        });
  return CA_OK;
  CA_CATCH
}

CA_API ca_status_t ca_dist_array_to_zarr(ca_context_t *ctx, const ca_array_t *a, const char *path,
                                         const ca_zarr_options_t *zopts, const ca_compute_options_t *opts,
                                         const ca_dist_options_t *dopts) {
  CA_ARG_NOT_NULL(ctx);
  CA_ARG_NOT_NULL(a);
  CA_ARG_NOT_NULL(path);
  CA_ARG_NOT_NULL(dopts);
  CA_TRY
  ca::dist::ArrayCall c = array_call(ctx, a, opts, dopts, "ca_dist_array_to_zarr");
  ca::require_known_chunks(*c.array, c.what);
  ca::dist::array_to_zarr(c, path, ca::capi::zarr_write_options(*c.array, zopts));
  return CA_OK;
  CA_CATCH
}

}  // extern "C"
