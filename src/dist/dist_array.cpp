// Distributed computes of whole arrays (dist_array.hpp).
#include "dist/dist_array.hpp"

#include <cstring>

#include "core/block.hpp"
#include "core/error.hpp"
#include "core/memory.hpp"
#include "dist/placement.hpp"
#include "graph/plan.hpp"
#include "io/zarr_array.hpp"

namespace ca::dist {

namespace {

// Every block of an array: its keys (and the index storage they point into), in C order of the
// block grid, and each block's offset along each axis.
struct ArrayKeys {
  std::vector<std::vector<Index>> idx;
  std::vector<KeyRef> refs;
  std::vector<std::vector<Index>> origins;
  std::vector<Index> start(size_t i) const {
    std::vector<Index> s(idx[i].size());
    for (size_t d = 0; d < s.size(); ++d) s[d] = origins[d][size_t(idx[i][d])];
    return s;
  }
};

ArrayKeys array_keys(const Array &a) {
  ArrayKeys k;
  const int32_t nd = a.ndim();
  std::vector<Index> nb(static_cast<size_t>(nd)), cur(static_cast<size_t>(nd), 0);
  Index total = 1;
  for (int32_t d = 0; d < nd; ++d) {
    nb[size_t(d)] = Index(a.chunks[size_t(d)].size());
    total *= nb[size_t(d)];
  }
  k.idx.reserve(size_t(total));
  for (Index i = 0; i < total; ++i) {
    k.idx.push_back(cur);
    for (int32_t d = nd - 1; d >= 0; --d) {
      if (++cur[size_t(d)] < nb[size_t(d)]) break;
      cur[size_t(d)] = 0;
    }
  }
  for (auto &i : k.idx) k.refs.push_back({a.name.c_str(), i.data(), nd});
  for (const auto &c : a.chunks) {
    k.origins.emplace_back(1, 0);
    for (Index n : c) k.origins.back().push_back(k.origins.back().back() + n);
  }
  return k;
}

// The prelude every call shares: the array (known chunks), the results mode, keys and run options.
struct Prepared {
  ArrayPtr x;
  Options opts;
  RunOptions run;
  ArrayKeys keys;
};

Prepared prepare(const ArrayCall &c, ca_dist_results_t results, ArrayPtr x = nullptr) {
  Prepared p;
  p.x = x ? std::move(x) : c.array;
  CA_CHECK(p.x && c.ctx && c.transport, CA_EINVAL, c.what, ": no array, context or transport");
  require_known_chunks(*p.x, c.what);
  p.opts = c.opts;
  p.opts.results = results;
  p.run = c.run;
  p.keys = array_keys(*p.x);
  return p;
}

std::unique_ptr<Plan> plan_of(const ArrayCall &c, const Prepared &p) {
  return build_plan(*p.x->graph, p.keys.refs.data(), p.keys.refs.size(), &c.ctx->registry(), p.run.max_tasks);
}

// Run a distributed compute of every block (results per p.opts.results, or streamed to
// p.run.on_output). Returns the blocks kept on this rank (in key order; nullptr elsewhere).
std::vector<Block *> run_array(const ArrayCall &c, const Prepared &p) {
  auto plan = plan_of(c, p);
  auto exec = c.ctx->executor();
  return compute(*exec, *plan, p.run, *c.transport, p.opts, c.stats);
}

// Copy `b` into `dst` (the whole array, C order) at `start`.
void copy_into(Block &dst, const Block &b, const Index *start) {
  const int32_t nd = b.ndim;
  const size_t item = size_t(dtype_size(b.dtype));
  if (b.size == 0) return;
  if (nd == 0) {
    std::memcpy(dst.data, b.data, item);
    return;
  }
  // Rows along the last axis; iterate over the others.
  std::vector<Index> i(static_cast<size_t>(nd), 0);
  const size_t row = size_t(b.shape[nd - 1]) * item;
  std::vector<Index> dstride(static_cast<size_t>(nd)), sstride(static_cast<size_t>(nd));
  Index ds = Index(item), ss = Index(item);
  for (int32_t d = nd - 1; d >= 0; --d) {
    dstride[size_t(d)] = ds;
    sstride[size_t(d)] = ss;
    ds *= dst.shape[d];
    ss *= b.shape[d];
  }
  while (true) {
    Index doff = 0, soff = 0;
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

// Everyone learns rank `root`'s status and message (a failure there before anything runs).
void agree_on_root(const ca_transport_t &tr, int32_t root, ca_status_t code, const std::string &msg) {
  auto check = [&](int32_t rc) {
    if (rc != 0) fail(CA_EIO, "distributed compute: transport call bcast failed on rank ", tr.rank, " (", rc, ")");
  };
  int64_t head[2] = {int64_t(code), int64_t(msg.size())};
  check(tr.bcast(tr.user_data, head, sizeof head, root));
  if (head[0] == CA_OK) return;
  std::string m = tr.rank == root ? msg : std::string(size_t(head[1]), '\0');
  if (head[1] > 0) check(tr.bcast(tr.user_data, m.data(), m.size(), root));
  throw Error(ca_status_t(head[0]), m);
}

void check_block(const Array &a, const std::vector<Index> &idx, const Block *b) {
  CA_CHECK(b->ndim == a.ndim() && b->dtype == a.dtype, CA_EKERNEL, "block ", key_str(a.name, idx.data(), a.ndim()),
           " does not match the array's dtype or dimensions");
  for (int32_t d = 0; d < a.ndim(); ++d)
    CA_CHECK(b->shape[d] == a.chunks[size_t(d)][size_t(idx[size_t(d)])], CA_EKERNEL, "block ",
             key_str(a.name, idx.data(), a.ndim()), " does not match the array's chunks");
}

}  // namespace

BlockRef compute_array(const ArrayCall &c) {
  Prepared p = prepare(c, CA_DIST_RESULTS_GATHER);
  const Array &x = *p.x;
  std::vector<Block *> blocks = run_array(c, p);
  if (c.transport->rank != p.opts.root) return BlockRef();
  struct Release {
    std::vector<Block *> &v;
    ~Release() {
      for (Block *b : v) block_release(b);
    }
  } release{blocks};
  BlockRef res;
  {
    ChargeScope charge(&c.ctx->budget());
    res = BlockRef(block_new(x.dtype, x.ndim(), x.shape.data()));
  }
  for (size_t i = 0; i < blocks.size(); ++i) {
    CA_CHECK(blocks[i], CA_EINTERNAL, c.what, ": block ", i, " did not reach the root");
    check_block(x, p.keys.idx[i], blocks[i]);
    copy_into(*res.get(), *blocks[i], p.keys.start(i).data());
  }
  return res;
}

ArrayPtr persist_array(const ArrayCall &c) {
  Prepared p = prepare(c, CA_DIST_RESULTS_LOCAL);
  const Array &x = *p.x;
  const int32_t size = c.transport->size;
  // Where each block stays: the placement every rank computes (the same one the compute uses).
  auto plan = plan_of(c, p);
  const auto owner = place(*plan, size, p.opts.placement);
  std::vector<int32_t> home;
  std::vector<int64_t> nbytes;
  const int64_t item = dtype_size(x.dtype);
  for (size_t i = 0; i < p.keys.idx.size(); ++i) {
    home.push_back(owner[size_t(plan->outputs[i])]);
    int64_t n = item;
    for (int32_t d = 0; d < x.ndim(); ++d) n *= x.chunks[size_t(d)][size_t(p.keys.idx[i][size_t(d)])];
    nbytes.push_back(n);
  }
  auto exec = c.ctx->executor();
  std::vector<Block *> blocks = compute(*exec, *plan, p.run, *c.transport, p.opts, c.stats);
  std::vector<const Block *> held(blocks.begin(), blocks.end());
  try {
    for (size_t i = 0; i < held.size(); ++i) {
      CA_CHECK((held[i] != nullptr) == (home[i] == c.transport->rank), CA_EINTERNAL, c.what, ": block ", i,
               " is not where the placement put it");
      if (held[i]) check_block(x, p.keys.idx[i], held[i]);
    }
  } catch (...) {
    for (const Block *b : held) block_release(b);
    throw;
  }
  std::string name = Tokenizer("dist-persist").add(x).add(int64_t(size)).add(int64_t(p.opts.placement)).name();
  std::vector<Index> nb;
  for (auto &ch : x.chunks) nb.push_back(Index(ch.size()));
  auto g = std::make_shared<Graph>();
  g->add_layer(std::make_shared<DataLayer>(name, nb, std::move(held), std::move(home), size, std::move(nbytes)));
  return array_from_layer(g, name, x.chunks, x.dtype);
}

void store_array(const ArrayCall &c, const BlockSink &sink) {
  Prepared p = prepare(c, CA_DIST_RESULTS_LOCAL);
  const Array &x = *p.x;
  p.run.on_output = [&](size_t i, const Block *b) {
    check_block(x, p.keys.idx[i], b);
    std::vector<Index> start = p.keys.start(i), stop(start.size());
    for (size_t d = 0; d < start.size(); ++d) stop[d] = start[d] + b->shape[d];
    sink(*b, start, stop, p.keys.idx[i]);
  };
  run_array(c, p);
}

void array_to_zarr(const ArrayCall &c, const std::string &path, const io::ZarrWriteOptions &w) {
  ArrayPtr x = c.array;
  CA_CHECK(x && c.transport, CA_EINVAL, c.what, ": no array or transport");
  require_known_chunks(*x, c.what);
  // The layout of io::to_zarr: store chunks, metadata, a rechunk when block boundaries are off them.
  std::vector<Index> sc = io::zarr_store_chunks(*x, w);
  io::ZarrMeta meta = io::make_zarr_meta(x->dtype, x->shape, sc);
  meta.compressor = w.compressor;
  meta.fill_value = w.fill_value;
  meta.order = w.order;
  meta.dimension_separator = w.dimension_separator;
  io::validate_zarr_meta(meta);
  bool aligned = true;
  for (size_t d = 0; d < sc.size() && aligned; ++d) {
    Index off = 0;
    for (size_t b = 0; b + 1 < x->chunks[d].size(); ++b) {
      off += x->chunks[d][b];
      if (off % sc[d] != 0 && off != x->shape[d]) {
        aligned = false;
        break;
      }
    }
  }
  if (!aligned) {
    Chunks target;
    for (size_t d = 0; d < sc.size(); ++d) target.push_back(blocks_of(x->shape[d], sc[d]));
    x = rechunk(x, target);
  }
  // The root creates the store; everyone learns whether it could before anything is computed.
  {
    ca_status_t code = CA_OK;
    std::string msg;
    if (c.transport->rank == c.opts.root) {
      try {
        io::create_zarr_array(path, meta, w.attrs_json, w.overwrite);
      } catch (const Error &e) {
        code = e.code();
        msg = e.message();
      }
    }
    agree_on_root(*c.transport, c.opts.root, code, msg);
  }
  Prepared p = prepare(c, CA_DIST_RESULTS_LOCAL, x);
  p.run.on_output = [&](size_t i, const Block *b) {
    check_block(*p.x, p.keys.idx[i], b);
    if (b->size == 0) return;
    io::write_zarr_region(path, meta, p.keys.start(i), *b);
  };
  run_array(c, p);
}

}  // namespace ca::dist
