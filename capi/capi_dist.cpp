// C API: distributed compute over a transport (chunkarray/dist.h). The engine is src/dist/; the
// array-level calls (compute, persist, store, to_zarr) are here, above the array and io layers.
#define CA_EXPERIMENTAL 1  // implements chunkarray/dist.h (experimental.h)
#include <chunkarray/dist.h>

#include <atomic>
#include <cstring>
#include <mutex>

#include "array/array.hpp"
#include "capi_internal.hpp"
#include "core/block.hpp"
#include "dist/dist.hpp"
#include "dist/placement.hpp"
#include "graph/plan.hpp"
#include "io/array_io.hpp"
#include "io/zarr_array.hpp"

ca::io::ZarrWriteOptions ca_capi_zarr_write_options(const ca::Array &a, const ca_zarr_options_t *opts);

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
  CA_CHECK(!c.o.stats || c.o.stats->struct_size >= sizeof(ca_dist_stats_t), CA_EINVAL, what,
           ": stats struct_size must be sizeof(ca_dist_stats_t)");
  c.d.results = c.o.results;
  c.d.root = c.o.root;
  c.d.placement = c.o.placement;
  return c;
}

// Every block of an array: its keys (and the index storage they point into).
struct ArrayKeys {
  std::vector<std::vector<ca::Index>> idx;
  std::vector<ca::KeyRef> refs;
};

ArrayKeys array_keys(const ca::Array &a) {
  ArrayKeys k;
  const int32_t nd = a.ndim();
  std::vector<ca::Index> nb(static_cast<size_t>(nd)), cur(static_cast<size_t>(nd), 0);
  ca::Index total = 1;
  for (int32_t d = 0; d < nd; ++d) {
    nb[size_t(d)] = ca::Index(a.chunks[size_t(d)].size());
    total *= nb[size_t(d)];
  }
  k.idx.reserve(size_t(total));
  for (ca::Index i = 0; i < total; ++i) {
    k.idx.push_back(cur);
    for (int32_t d = nd - 1; d >= 0; --d) {
      if (++cur[size_t(d)] < nb[size_t(d)]) break;
      cur[size_t(d)] = 0;
    }
  }
  for (auto &i : k.idx) k.refs.push_back({a.name.c_str(), i.data(), nd});
  return k;
}

// Offsets of each block along each axis.
std::vector<std::vector<ca::Index>> origins(const ca::Array &a) {
  std::vector<std::vector<ca::Index>> o;
  for (const auto &c : a.chunks) {
    o.emplace_back(1, 0);
    for (ca::Index n : c) o.back().push_back(o.back().back() + n);
  }
  return o;
}

// Copy `b` into `dst` (the whole array, C order) at `start`.
void copy_into(ca::Block &dst, const ca::Block &b, const ca::Index *start) {
  const int32_t nd = b.ndim;
  const size_t item = size_t(ca::dtype_size(b.dtype));
  if (b.size == 0) return;
  if (nd == 0) {
    std::memcpy(dst.data, b.data, item);
    return;
  }
  // Rows along the last axis; iterate over the others.
  std::vector<ca::Index> i(static_cast<size_t>(nd), 0);
  const size_t row = size_t(b.shape[nd - 1]) * item;
  std::vector<ca::Index> dstride(static_cast<size_t>(nd)), sstride(static_cast<size_t>(nd));
  ca::Index ds = ca::Index(item), ss = ca::Index(item);
  for (int32_t d = nd - 1; d >= 0; --d) {
    dstride[size_t(d)] = ds;
    sstride[size_t(d)] = ss;
    ds *= dst.shape[d];
    ss *= b.shape[d];
  }
  while (true) {
    ca::Index doff = 0, soff = 0;
    for (int32_t d = 0; d < nd; ++d) {
      doff += (start[d] + (d == nd - 1 ? 0 : i[size_t(d)])) * dstride[size_t(d)];
      soff += (d == nd - 1 ? 0 : i[size_t(d)]) * sstride[size_t(d)];
    }
    std::memcpy(static_cast<char *>(dst.data) + doff, static_cast<const char *>(b.data) + soff, row);
    int32_t d = nd - 2;
    for (; d >= 0; --d) {
      if (++i[size_t(d)] < b.shape[d]) break;
      i[size_t(d)] = 0;
    }
    if (d < 0) break;
  }
}

// Run a distributed compute of every block of `a` (results per `c.d.results`, or streamed to
// `on_output`). Returns the blocks kept on this rank (in array_keys order; nullptr elsewhere).
std::vector<ca::Block *> run_array(ca_context_t *ctx, const ca::ArrayPtr &a, const ca::RunOptions &ro, const DistCall &c,
                                   const ArrayKeys &keys) {
  auto plan = ca::build_plan(*a->graph, keys.refs.data(), keys.refs.size(), &ctx->engine.registry(), ro.max_tasks);
  auto exec = ctx->engine.executor();
  return ca::dist::compute(*exec, *plan, ro, *c.o.transport, c.d, c.o.stats);
}

// Everyone learns rank `root`'s status and message (a failure there before anything runs).
void agree_on_root(const ca_transport_t &tr, int32_t root, ca_status_t code, const std::string &msg) {
  auto check = [&](int32_t rc) {
    if (rc != 0) ca::fail(CA_EIO, "distributed compute: transport call bcast failed on rank ", tr.rank, " (", rc, ")");
  };
  int64_t head[2] = {int64_t(code), int64_t(msg.size())};
  check(tr.bcast(tr.user_data, head, sizeof head, root));
  if (head[0] == CA_OK) return;
  std::string m = tr.rank == root ? msg : std::string(size_t(head[1]), '\0');
  if (head[1] > 0) check(tr.bcast(tr.user_data, m.data(), m.size(), root));
  throw ca::Error(ca_status_t(head[0]), m);
}

void check_block(const ca::Array &a, const std::vector<ca::Index> &idx, const ca::Block *b) {
  CA_CHECK(b->ndim == a.ndim() && b->dtype == a.dtype, CA_EKERNEL, "block ",
           ca::key_str(a.name, idx.data(), a.ndim()), " does not match the array's dtype or dimensions");
  for (int32_t d = 0; d < a.ndim(); ++d)
    CA_CHECK(b->shape[d] == a.chunks[size_t(d)][size_t(idx[size_t(d)])], CA_EKERNEL, "block ",
             ca::key_str(a.name, idx.data(), a.ndim()), " does not match the array's chunks");
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
  ca::RunOptions ro = ca::capi::run_options(ctx, opts);
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
  const size_t esize = o.rank_plan_size ? o.rank_plan_size : sizeof(ca_dist_rank_plan_t);
  CA_CHECK(esize >= offsetof(ca_dist_rank_plan_t, tasks), CA_EINVAL, "ca_dist_plan: rank_plan_size ", esize,
           " is too small");
  auto refs = key_refs(keys, nkeys);
  auto plan = ca::build_plan(graph->g, refs.data(), refs.size(), nullptr);
  auto owner = ca::dist::place(*plan, o.nranks, o.placement);
  auto per = ca::dist::summarize(*plan, owner, o.nranks, o.root, o.results);
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
  DistCall c = dist_call(dopts, "ca_dist_array_compute");
  c.d.results = CA_DIST_RESULTS_GATHER;
  ca::ArrayPtr x = ca::capi::unwrap(a);
  ca::require_known_chunks(*x, "ca_dist_array_compute");
  ca::RunOptions ro = ca::capi::run_options(ctx, opts);
  ArrayKeys keys = array_keys(*x);
  std::vector<ca::Block *> blocks = run_array(ctx, x, ro, c, keys);
  if (c.o.transport->rank != c.d.root) return CA_OK;
  struct Release {
    std::vector<ca::Block *> &v;
    ~Release() {
      for (ca::Block *b : v) ca::block_release(b);
    }
  } release{blocks};
  auto org = origins(*x);
  ca::BlockRef res;
  {
    ca::ChargeScope charge(&ctx->engine.budget());
    res = ca::BlockRef(ca::block_new(x->dtype, x->ndim(), x->shape.data()));
  }
  std::vector<ca::Index> start(static_cast<size_t>(x->ndim()));
  for (size_t i = 0; i < blocks.size(); ++i) {
    CA_CHECK(blocks[i], CA_EINTERNAL, "ca_dist_array_compute: block ", i, " did not reach the root");
    check_block(*x, keys.idx[i], blocks[i]);
    for (int32_t d = 0; d < x->ndim(); ++d) start[size_t(d)] = org[size_t(d)][size_t(keys.idx[i][size_t(d)])];
    copy_into(*res.get(), *blocks[i], start.data());
  }
  *out = res.release();
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
  DistCall c = dist_call(dopts, "ca_dist_array_persist");
  c.d.results = CA_DIST_RESULTS_LOCAL;
  ca::ArrayPtr x = ca::capi::unwrap(a);
  ca::require_known_chunks(*x, "ca_dist_array_persist");
  ca::RunOptions ro = ca::capi::run_options(ctx, opts);
  ArrayKeys keys = array_keys(*x);
  // Where each block stays: the placement every rank computes (the same one the compute uses).
  auto plan = ca::build_plan(*x->graph, keys.refs.data(), keys.refs.size(), &ctx->engine.registry(), ro.max_tasks);
  const auto owner = ca::dist::place(*plan, c.o.transport->size, c.d.placement);
  std::vector<int32_t> home;
  std::vector<int64_t> nbytes;
  const int64_t item = ca::dtype_size(x->dtype);
  for (size_t i = 0; i < keys.idx.size(); ++i) {
    home.push_back(owner[size_t(plan->outputs[i])]);
    int64_t n = item;
    for (int32_t d = 0; d < x->ndim(); ++d) n *= x->chunks[size_t(d)][size_t(keys.idx[i][size_t(d)])];
    nbytes.push_back(n);
  }
  auto exec = ctx->engine.executor();
  std::vector<ca::Block *> blocks = ca::dist::compute(*exec, *plan, ro, *c.o.transport, c.d, c.o.stats);
  std::vector<const ca::Block *> held(blocks.begin(), blocks.end());
  try {
    for (size_t i = 0; i < held.size(); ++i) {
      CA_CHECK((held[i] != nullptr) == (home[i] == c.o.transport->rank), CA_EINTERNAL,
               "ca_dist_array_persist: block ", i, " is not where the placement put it");
      if (held[i]) check_block(*x, keys.idx[i], held[i]);
    }
  } catch (...) {
    for (const ca::Block *b : held) ca::block_release(b);
    throw;
  }
  std::string name =
      ca::Tokenizer("dist-persist").add(*x).add(int64_t(c.o.transport->size)).add(int64_t(c.d.placement)).name();
  std::vector<ca::Index> nb;
  for (auto &ch : x->chunks) nb.push_back(ca::Index(ch.size()));
  auto g = std::make_shared<ca::Graph>();
  g->add_layer(std::make_shared<ca::DataLayer>(name, nb, std::move(held), std::move(home), c.o.transport->size,
                                               std::move(nbytes)));
  *out = ca::capi::wrap_array(ca::array_from_layer(g, name, x->chunks, x->dtype));
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
  DistCall c = dist_call(dopts, "ca_dist_array_store");
  c.d.results = CA_DIST_RESULTS_LOCAL;
  ca::ArrayPtr x = ca::capi::unwrap(a);
  ca::require_known_chunks(*x, "ca_dist_array_store");
  ca::RunOptions ro = ca::capi::run_options(ctx, opts);
  ArrayKeys keys = array_keys(*x);
  auto org = origins(*x);
  ro.on_output = [&](size_t i, const ca::Block *b) {
    check_block(*x, keys.idx[i], b);
    const int32_t nd = x->ndim();
    std::vector<ca::Index> start(static_cast<size_t>(nd)), stop(static_cast<size_t>(nd));
    for (int32_t d = 0; d < nd; ++d) {
      start[size_t(d)] = org[size_t(d)][size_t(keys.idx[i][size_t(d)])];
      stop[size_t(d)] = start[size_t(d)] + b->shape[d];
    }
    std::string msg;
    ca_store_region_t reg;
    reg.array = 0;
    reg.ndim = nd;
    reg.start = start.data();
    reg.stop = stop.data();
    reg.block_index = keys.idx[i].data();
    reg.reserved = &msg;
    ca_status_t s = sink(b, &reg, user_data);
    if (s != CA_OK) {
      if (msg.empty()) msg = std::string("the sink returned ") + ca_status_str(s);
      throw ca::Error(s < 0 ? s : CA_EKERNEL, msg);
    }
  };
  run_array(ctx, x, ro, c, keys);
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
  DistCall c = dist_call(dopts, "ca_dist_array_to_zarr");
  c.d.results = CA_DIST_RESULTS_LOCAL;
  ca::ArrayPtr x = ca::capi::unwrap(a);
  ca::require_known_chunks(*x, "ca_dist_array_to_zarr");
  ca::io::ZarrWriteOptions w = ca_capi_zarr_write_options(*x, zopts);
  ca::RunOptions ro = ca::capi::run_options(ctx, opts);
  // The layout of io::to_zarr: store chunks, metadata, a rechunk when block boundaries are off them.
  std::vector<ca::Index> sc = ca::io::zarr_store_chunks(*x, w);
  ca::io::ZarrMeta meta = ca::io::make_zarr_meta(x->dtype, x->shape, sc);
  meta.compressor = w.compressor;
  meta.fill_value = w.fill_value;
  meta.order = w.order;
  meta.dimension_separator = w.dimension_separator;
  ca::io::validate_zarr_meta(meta);
  bool aligned = true;
  for (size_t d = 0; d < sc.size() && aligned; ++d) {
    ca::Index off = 0;
    for (size_t b = 0; b + 1 < x->chunks[d].size(); ++b) {
      off += x->chunks[d][b];
      if (off % sc[d] != 0 && off != x->shape[d]) {
        aligned = false;
        break;
      }
    }
  }
  if (!aligned) {
    ca::Chunks target;
    for (size_t d = 0; d < sc.size(); ++d) target.push_back(ca::blocks_of(x->shape[d], sc[d]));
    x = ca::rechunk(x, target);
  }
  // The root creates the store; everyone learns whether it could before anything is computed.
  {
    ca_status_t code = CA_OK;
    std::string msg;
    if (c.o.transport->rank == c.d.root) {
      try {
        ca::io::create_zarr_array(path, meta, w.attrs_json, w.overwrite);
      } catch (const ca::Error &e) {
        code = e.code();
        msg = e.message();
      }
    }
    agree_on_root(*c.o.transport, c.d.root, code, msg);
  }
  ArrayKeys keys = array_keys(*x);
  auto org = origins(*x);
  const std::string p(path);
  ro.on_output = [&](size_t i, const ca::Block *b) {
    check_block(*x, keys.idx[i], b);
    if (b->size == 0) return;
    std::vector<ca::Index> start(static_cast<size_t>(x->ndim()));
    for (int32_t d = 0; d < x->ndim(); ++d) start[size_t(d)] = org[size_t(d)][size_t(keys.idx[i][size_t(d)])];
    ca::io::write_zarr_region(p, meta, start, *b);
  };
  run_array(ctx, x, ro, c, keys);
  return CA_OK;
  CA_CATCH
}

}  // extern "C"
