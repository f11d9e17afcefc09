// rechunk: dask's planner (plan_rechunk and helpers), chunk requests, the assemble stage and kernel.
#include "array/rechunk.hpp"
#include "core/bytesize.hpp"
#include "core/checked.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <numeric>
#include <queue>
#include <tuple>

#include "graph/layer.hpp"
#include "kernel/adapter.hpp"

namespace ca {

// ------------------------------------------------------------------------------------------------
// dask's planner

namespace {

double number_of_blocks(const Chunks &c) {
  double n = 1;
  for (auto &d : c) n *= double(d.size());
  return n;
}

double largest_block_size(const Chunks &c) {
  double n = 1;
  for (auto &d : c) n *= double(*std::max_element(d.begin(), d.end()));
  return n;
}

}  // namespace

double estimate_graph_size(const Chunks &old_chunks, const Chunks &new_chunks) {
  double n = 1;
  for (size_t d = 0; d < old_chunks.size(); ++d)
    n *= old_chunks[d] != new_chunks[d] ? double(old_chunks[d].size() + new_chunks[d].size() - 1)
                                        : double(old_chunks[d].size());
  return n;
}

std::vector<Index> divide_to_width(const std::vector<Index> &desired, Index max_width) {
  CA_CHECK(max_width >= 1, CA_EINTERNAL, "divide_to_width: width ", max_width);
  std::vector<Index> out;
  for (Index c : desired) {
    Index nb = Index(std::ceil(double(c) / double(max_width)));
    for (Index i = 0; i < nb; ++i) {
      Index n = c / (nb - i);
      out.push_back(n);
      c -= n;
    }
  }
  return out;
}

std::vector<Index> merge_to_number(const std::vector<Index> &desired, Index max_number) {
  if (Index(desired.size()) <= max_number) return desired;
  max_number = std::max<Index>(max_number, 1);
  bool uniform = std::all_of(desired.begin(), desired.end(), [&](Index v) { return v == desired[0]; });
  if (uniform) {
    // Fast path for a homogeneous target, also ensuring a regular result.
    Index w = desired[0], n = Index(desired.size());
    Index total = n * w;
    Index desired_width = total / max_number;
    Index width = w ? w * (desired_width / w) : 0;
    Index adjust = w ? (total - max_number * width) / w : 0;
    std::vector<Index> out(size_t(adjust), width + w);
    out.insert(out.end(), size_t(max_number - adjust), width);
    return out;
  }
  Index nmerges = Index(desired.size()) - max_number;
  using Item = std::tuple<Index, Index, Index>;  // (width, i, j): Python's heap order
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
  for (size_t i = 0; i + 1 < desired.size(); ++i) heap.push({desired[i] + desired[i + 1], Index(i), Index(i + 1)});
  std::vector<Index> chunks = desired;
  Index n = Index(chunks.size());
  while (nmerges > 0 && !heap.empty()) {
    auto [width, i, j] = heap.top();
    heap.pop();
    if (chunks[size_t(j)] == 0) {
      ++j;
      while (j < n && chunks[size_t(j)] == 0) ++j;
      if (j < n) heap.push({chunks[size_t(i)] + chunks[size_t(j)], i, j});
      continue;
    }
    if (chunks[size_t(i)] + chunks[size_t(j)] != width) {
      heap.push({chunks[size_t(i)] + chunks[size_t(j)], i, j});
      continue;
    }
    chunks[size_t(i)] = 0;  // merged into j
    chunks[size_t(j)] = width;
    --nmerges;
  }
  std::vector<Index> out;
  for (Index c : chunks)
    if (c) out.push_back(c);
  return out;
}

Chunks find_merge_rechunk(const Chunks &old_chunks, const Chunks &new_chunks, double block_size_limit,
                          bool *memory_limit_hit) {
  size_t nd = old_chunks.size();
  std::vector<Index> old_w(nd), new_w(nd);
  std::vector<double> gse(nd), bse(nd);
  for (size_t d = 0; d < nd; ++d) {
    old_w[d] = max_of(old_chunks[d]);
    new_w[d] = max_of(new_chunks[d]);
    gse[d] = double(new_chunks[d].size()) / double(old_chunks[d].size());
    bse[d] = double(new_w[d]) / double(old_w[d] ? old_w[d] : 1);
  }
  // Merging along a dimension shrinks the graph by a factor and grows the largest block by another:
  // greedily take dimensions in decreasing value / weight order (a multiplicative knapsack).
  std::vector<size_t> cand;
  for (size_t d = 0; d < nd; ++d)
    if (gse[d] <= 1.0) cand.push_back(d);
  auto key = [&](size_t k) {
    double g = gse[k], b = bse[k];
    if (b == 1) b = 1 + 1e-9;
    return b > 0 ? std::log(g) / std::log(b) : 0.0;
  };
  std::stable_sort(cand.begin(), cand.end(), [&](size_t x, size_t y) { return key(x) < key(y); });
  Index largest = 1;
  for (Index w : old_w) largest *= w;
  Chunks chunks = old_chunks;
  bool hit = false;
  for (size_t d : cand) {
    // In 128 bits: largest * new_w may pass 2^63 before the division brings it back.
    Index new_largest = Index(__int128(largest) * new_w[d] / (old_w[d] ? old_w[d] : 1));
    if (double(new_largest) <= block_size_limit) {
      chunks[d] = new_chunks[d];
      largest = new_largest;
    } else {
      // A partial merge: divide the new chunks into pieces that fit.
      Index lw = old_w[d];
      Index chunk_limit = Index(block_size_limit * double(lw) / double(largest));
      std::vector<Index> c = divide_to_width(new_chunks[d], std::max<Index>(chunk_limit, 1));
      if (c.size() <= old_chunks[d].size()) {
        chunks[d] = c;
        largest = Index(__int128(largest) * max_of(c) / (lw ? lw : 1));
      }
      hit = true;
    }
  }
  if (memory_limit_hit) *memory_limit_hit = hit;
  return chunks;
}

Chunks find_split_rechunk(const Chunks &old_chunks, const Chunks &new_chunks, double graph_size_limit) {
  Chunks chunks = old_chunks;
  for (size_t d = 0; d < old_chunks.size(); ++d) {
    double graph_size = estimate_graph_size(chunks, new_chunks);
    if (graph_size > graph_size_limit) break;
    if (old_chunks[d].size() > new_chunks[d].size()) continue;  // not interesting to split
    // Merge the new chunks so as to stay within the graph size budget.
    Index max_number = Index(std::min(double(old_chunks[d].size()) * graph_size_limit / graph_size, 0x1p62));
    std::vector<Index> c = merge_to_number(new_chunks[d], max_number);
    if (c.size() >= old_chunks[d].size() && max_of(c) <= max_of(old_chunks[d])) chunks[d] = c;
  }
  return chunks;
}

std::vector<Chunks> plan_rechunk(const Chunks &old_chunks, const Chunks &new_chunks, Index itemsize,
                                 double threshold, Index block_size_limit) {
  CA_CHECK(threshold > 0, CA_EINVAL, "rechunk threshold ", threshold, " must be positive");
  CA_CHECK(block_size_limit > 0, CA_EINVAL, "rechunk block size limit ", block_size_limit, " must be positive");
  std::vector<Chunks> steps;
  size_t nd = new_chunks.size();
  bool any_empty = false;
  for (auto &c : new_chunks)
    if (c.empty()) any_empty = true;
  if (nd <= 1 || any_empty) return {new_chunks};  // trivial array: no need for an intermediate
  // Sizes in elements from here on.
  double limit = double(block_size_limit) / double(std::max<Index>(itemsize, 1));
  limit = std::max({limit, largest_block_size(old_chunks), largest_block_size(new_chunks)});
  double graph_size_threshold = threshold * (number_of_blocks(old_chunks) + number_of_blocks(new_chunks));
  Chunks current = old_chunks;
  bool first_pass = true;
  for (int guard = 0; guard < 1000; ++guard) {
    double graph_size = estimate_graph_size(current, new_chunks);
    if (graph_size < graph_size_threshold) break;
    Chunks chunks;
    if (first_pass) {
      chunks = current;
    } else {
      // The limit stopped a merge: accept a larger graph to get nearer the goal and make room for
      // the next merge.
      chunks = find_split_rechunk(current, new_chunks, graph_size * threshold);
    }
    bool hit = false;
    chunks = find_merge_rechunk(chunks, new_chunks, limit, &hit);
    if ((chunks == current && !first_pass) || chunks == new_chunks) break;
    if (chunks != current) steps.push_back(chunks);
    current = chunks;
    if (!hit) break;
    first_pass = false;
  }
  steps.push_back(new_chunks);
  return steps;
}

// ------------------------------------------------------------------------------------------------
// chunk requests

std::vector<Index> balance_chunksizes(const std::vector<Index> &chunks) {
  if (chunks.empty()) return chunks;
  std::vector<Index> s = chunks;
  std::sort(s.begin(), s.end());
  double med = s.size() % 2 ? double(s[s.size() / 2]) : (double(s[s.size() / 2 - 1]) + double(s[s.size() / 2])) / 2;
  Index median_len = Index(med);  // numpy's astype(int): toward zero
  Index n_chunks = Index(chunks.size());
  Index eps = median_len / 2;
  Index mn = s.front(), mx = s.back();
  if (double(mn) <= 0.5 * double(mx)) --n_chunks;
  Index total = std::accumulate(chunks.begin(), chunks.end(), Index(0));
  std::vector<Index> best;
  Index best_diff = 0;
  for (Index len = median_len - eps; len <= median_len + eps; ++len) {
    if (len <= 0) continue;
    std::vector<Index> c(size_t(total / len), len);
    if (total % len) c.push_back(total % len);
    if (Index(c.size()) != n_chunks || c.empty()) continue;
    Index diff = max_of(c) - *std::min_element(c.begin(), c.end());
    if (best.empty() || diff < best_diff) {
      best = c;
      best_diff = diff;
    }
  }
  return best.empty() ? chunks : best;  // dask warns "chunk size balancing not possible"
}

// ------------------------------------------------------------------------------------------------
// building

namespace {

struct Piece {
  Index block;      // old block index along the dimension
  Index src_start;  // offset inside the old block
  Index dst_start;  // offset inside the new block
  Index len;
};

// dask's _intersect_chunks along one dimension: for each new block, the old pieces it takes. A new
// block of size 0 takes an empty piece of the old block at its position (for its dtype).
std::vector<std::vector<Piece>> intersect_1d(const std::vector<Index> &old_c, const std::vector<Index> &new_c) {
  std::vector<Index> off(old_c.size() + 1, 0);
  for (size_t i = 0; i < old_c.size(); ++i) off[i + 1] = off[i] + old_c[i];
  std::vector<std::vector<Piece>> res(new_c.size());
  Index o0 = 0;
  for (size_t nb = 0; nb < new_c.size(); ++nb) {
    Index o1 = o0 + new_c[nb];
    // First old block ending after o0.
    size_t j = size_t(std::upper_bound(off.begin() + 1, off.end(), o0) - (off.begin() + 1));
    for (size_t k = j; k < old_c.size() && off[k] < o1; ++k) {
      Index s = std::max(o0, off[k]), e = std::min(o1, off[k + 1]);
      if (e > s) res[nb].push_back({Index(k), s - off[k], s - o0, e - s});
    }
    if (res[nb].empty()) res[nb].push_back({Index(std::min(j, old_c.size() - 1)), 0, 0, 0});
    o0 = o1;
  }
  return res;
}

bool is_data(const Array &a) {
  const Layer *l = a.graph->find(a.name);
  return l && l->kind() == LayerKind::Data;
}

}  // namespace

ArrayPtr rechunk_stage(const ArrayPtr &a, const Chunks &chunks) {
  std::string name = Tokenizer("rechunk-merge").add(*a).add(chunks).name();
  int32_t nd = a->ndim();
  std::vector<std::vector<std::vector<Piece>>> per_dim;
  for (int32_t d = 0; d < nd; ++d) per_dim.push_back(intersect_1d(a->chunks[size_t(d)], chunks[size_t(d)]));
  auto layer = std::make_shared<MaterializedLayer>(name, nd);
  std::vector<Index> nb;
  for (auto &c : chunks) nb.push_back(Index(c.size()));
  const Index total = blocks_product(nb.data(), nb.size(), "rechunk");
  std::vector<Index> oidx(static_cast<size_t>(nd)), counts(static_cast<size_t>(nd)), pos(static_cast<size_t>(nd));
  std::vector<std::vector<Index>> keys;
  std::vector<std::vector<int64_t>> geoms;
  std::vector<ca_arg_t> items;
  for (Index lin = 0; lin < total; ++lin) {
    Index r = lin;
    for (int32_t d = nd - 1; d >= 0; --d) {
      oidx[size_t(d)] = r % nb[size_t(d)];
      r /= nb[size_t(d)];
    }
    Index npieces = 1;
    bool empty = false;
    for (int32_t d = 0; d < nd; ++d) {
      counts[size_t(d)] = Index(per_dim[size_t(d)][size_t(oidx[size_t(d)])].size());
      npieces *= counts[size_t(d)];
      if (chunks[size_t(d)][size_t(oidx[size_t(d)])] == 0) empty = true;
    }
    if (empty) npieces = 1;  // one empty piece gives the dtype
    // A new block that is exactly an old block: shared.
    if (npieces == 1 && !empty) {
      bool same = true;
      std::vector<Index> iidx(static_cast<size_t>(nd));
      for (int32_t d = 0; d < nd; ++d) {
        const Piece &p = per_dim[size_t(d)][size_t(oidx[size_t(d)])][0];
        iidx[size_t(d)] = p.block;
        same = same && p.src_start == 0 && p.len == a->chunks[size_t(d)][size_t(p.block)];
      }
      if (same) {
        ca_arg_t k = ca_arg_key(a->name.c_str(), iidx.data(), nd);
        layer->add_task(oidx.data(), "ca.identity", &k, 1);
        continue;
      }
    }
    keys.assign(size_t(npieces), std::vector<Index>(size_t(nd)));
    geoms.assign(size_t(npieces) + 1, {});
    for (int32_t d = 0; d < nd; ++d) geoms[0].push_back(chunks[size_t(d)][size_t(oidx[size_t(d)])]);
    items.clear();
    std::fill(pos.begin(), pos.end(), 0);
    for (Index pl = 0; pl < npieces; ++pl) {
      std::vector<int64_t> &g = geoms[size_t(pl) + 1];
      g.assign(size_t(3 * nd), 0);
      for (int32_t d = 0; d < nd; ++d) {
        const Piece &p = per_dim[size_t(d)][size_t(oidx[size_t(d)])][size_t(pos[size_t(d)])];
        keys[size_t(pl)][size_t(d)] = p.block;
        g[size_t(d)] = empty ? 0 : p.src_start;
        g[size_t(nd + d)] = empty ? 0 : p.dst_start;
        g[size_t(2 * nd + d)] = empty ? 0 : p.len;
      }
      for (int32_t d = nd - 1; d >= 0; --d) {  // next piece, C order
        if (++pos[size_t(d)] < counts[size_t(d)]) break;
        pos[size_t(d)] = 0;
      }
      items.push_back(ca_arg_key(a->name.c_str(), keys[size_t(pl)].data(), nd));
      items.push_back(ca_arg_tuple(g.data(), g.size()));
    }
    ca_arg_t args[2] = {ca_arg_tuple(geoms[0].data(), geoms[0].size()), ca_arg_list(items.data(), items.size())};
    layer->add_task(oidx.data(), "ca.assemble", args, 2);
  }
  auto g = std::make_shared<Graph>(*a->graph);
  g->add_layer(layer);
  return array_from_layer(g, name, chunks, a->dtype);
}

std::vector<Chunks> rechunk_stages(const Array &a, const Chunks &chunks0, const RechunkOptions &opts) {
  require_known_chunks(a, "rechunk");
  CA_CHECK(chunks_known(chunks0), CA_EINVAL, "rechunk: the target chunks ", chunks_str(chunks0), " have unknown sizes");
  std::vector<Index> shape = chunks_shape(chunks0);
  if (shape != a.shape) {
    std::string want, have;
    for (size_t d = 0; d < a.shape.size(); ++d) have += (d ? ", " : "") + std::to_string(a.shape[d]);
    for (size_t d = 0; d < shape.size(); ++d) want += (d ? ", " : "") + std::to_string(shape[d]);
    fail(CA_EINVAL, "rechunk: chunks ", chunks_str(chunks0), " describe shape (", want, "), '", a.name,
         "' has shape (", have, ")");
  }
  if (!opts.balance && chunks0 == a.chunks) return {};
  Chunks chunks = chunks0;
  if (opts.balance)
    for (auto &c : chunks) c = balance_chunksizes(c);
  if (chunks == a.chunks) return {};
  if (a.size() == 0) return {chunks};
  bool small = estimate_graph_size(a.chunks, chunks) <= double(kMaxDirectPieces);
  if (small && (opts.threshold <= 0 || is_data(a))) return {chunks};
  return plan_rechunk(a.chunks, chunks, Index(dtype_size(a.dtype)), opts.threshold > 0 ? opts.threshold : 4.0,
                      opts.block_size_limit);
}

ArrayPtr rechunk(const ArrayPtr &a, const Chunks &chunks, const RechunkOptions &opts) {
  CA_CHECK(a, CA_EINVAL, "rechunk: array is null");
  const std::vector<Chunks> stages = rechunk_stages(*a, chunks, opts);  // validates the request
  // A generated array (or an expression over generated arrays only) is regenerated on the new grid:
  // no data moves, whatever the grids.
  if (!stages.empty())
    if (ArrayPtr g = rechunk_generated(a, stages.back())) return g;
  ArrayPtr x = a;
  for (const Chunks &c : stages) x = rechunk_stage(x, c);
  return x;
}

ArrayPtr rechunk(const ArrayPtr &a, const Chunks &chunks) { return rechunk(a, chunks, RechunkOptions{}); }

ArrayPtr rechunk(const ArrayPtr &a, const std::string &spec, const RechunkOptions &opts) {
  CA_CHECK(a, CA_EINVAL, "rechunk: array is null");
  return rechunk(a, rechunk_chunks(*a, spec, opts.block_size_limit), opts);
}

// ------------------------------------------------------------------------------------------------
// ca.assemble(out_shape, [block, (src..., dst..., len...), block, geometry, ...]): a new block built
// from boxes of old blocks.

namespace {

void copy_box(const Block *b, Block *res, const int64_t *src, const int64_t *dst, const int64_t *len, int32_t nd,
              size_t isz) {
  // Strides in bytes; then merge trailing dimensions that are contiguous in both blocks.
  int64_t sst[CA_MAX_NDIM + 1], dstst[CA_MAX_NDIM + 1];
  int64_t sa = int64_t(isz), da = int64_t(isz);
  for (int32_t d = nd - 1; d >= 0; --d) {
    sst[d] = sa;
    dstst[d] = da;
    sa *= b->shape[d];
    da *= res->shape[d];
  }
  const char *s0 = static_cast<const char *>(b->data);
  char *o0 = static_cast<char *>(res->data);
  for (int32_t d = 0; d < nd; ++d) {
    s0 += src[d] * sst[d];
    o0 += dst[d] * dstst[d];
  }
  int32_t k = nd;  // dimensions [k, nd) form one run
  size_t run = isz;
  while (k > 0) {
    run *= size_t(len[k - 1]);
    --k;
    if (len[k] != b->shape[k] || len[k] != res->shape[k]) break;
  }
  if (nd == 0) {
    std::memcpy(o0, s0, isz);
    return;
  }
  Index rows = 1;
  for (int32_t d = 0; d < k; ++d) rows *= len[d];
  Index pos[CA_MAX_NDIM + 1] = {0};
  const char *s = s0;
  char *o = o0;
  for (Index r = 0; r < rows; ++r) {
    std::memcpy(o, s, run);
    for (int32_t d = k - 1; d >= 0; --d) {
      if (++pos[d] < len[d]) {
        s += sst[d];
        o += dstst[d];
        break;
      }
      s -= (len[d] - 1) * sst[d];
      o -= (len[d] - 1) * dstst[d];
      pos[d] = 0;
    }
  }
}

ca_status_t k_assemble(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return kernel_boundary(out, kctx, [&] {
    CA_CHECK(nargs == 2 && args[0].kind == CA_ARG_TUPLE && args[1].kind == CA_ARG_LIST, CA_EINVAL,
             "ca.assemble takes (out_shape, [block, geometry, ...])");
    const int64_t *oshape = args[0].u.tuple.items;
    int32_t nd = int32_t(args[0].u.tuple.len);
    CA_CHECK(nd <= CA_MAX_NDIM, CA_EINVAL, "ca.assemble: ", nd, " dimensions");
    const ca_arg_t *items = args[1].u.list.items;
    size_t n = args[1].u.list.len;
    CA_CHECK(n >= 2 && n % 2 == 0, CA_EINVAL, "ca.assemble: pieces must come as (block, geometry) pairs");
    CA_CHECK(items[0].kind == CA_ARG_BLOCK && items[0].u.block, CA_EINVAL, "ca.assemble: piece 0 is not a block");
    DType dt = items[0].u.block->dtype;
    BlockRef res(block_new(dt, nd, oshape));
    size_t isz = dtype_size(dt);
    for (size_t p = 0; p < n; p += 2) {
      const Block *b = items[p].u.block;
      const ca_arg_t &g = items[p + 1];
      CA_CHECK(items[p].kind == CA_ARG_BLOCK && b && g.kind == CA_ARG_TUPLE && g.u.tuple.len == size_t(3 * nd),
               CA_EINVAL, "ca.assemble: bad piece ", p / 2);
      CA_CHECK(b->dtype == dt && b->ndim == nd, CA_EINVAL, "ca.assemble: pieces differ in dtype or dimensions");
      const int64_t *src = g.u.tuple.items, *dst = src + nd, *len = src + 2 * nd;
      Index total = 1;
      for (int32_t d = 0; d < nd; ++d) {
        CA_CHECK(src[d] >= 0 && dst[d] >= 0 && len[d] >= 0 && src[d] + len[d] <= b->shape[d] &&
                     dst[d] + len[d] <= oshape[d],
                 CA_EINVAL, "ca.assemble: piece ", p / 2, " is out of bounds along axis ", d);
        total *= len[d];
      }
      if (total == 0 || isz == 0) continue;
      copy_box(b, res.get(), src, dst, len, nd, isz);
    }
    *out = res.release();
  });
}

}  // namespace

void register_rechunk_kernels(KernelRegistry &reg) {
  reg.add(kernel_new("ca.assemble", k_assemble, 1, nullptr, nullptr), true);
}

}  // namespace ca
