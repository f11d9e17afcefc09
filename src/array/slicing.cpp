// Indexing operations (array/slicing.hpp): dask.array.slicing's plans, built as materialized layers
// whose tasks reference only the input blocks they read.
#include "array/slicing.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <map>
#include <unordered_map>

#include "array/expr.hpp"
#include "array/shape.hpp"
#include "exec/executor.hpp"
#include "graph/plan.hpp"
#include "kernel/kernel.hpp"
#include "core/checked.hpp"

namespace ca {

namespace {

/// Python's floor-division modulo (result has the divisor's sign).
Index pymod(Index a, Index b) {
  Index r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

/// ceil(a / b) for b != 0 (exact integers).
Index ceil_div(Index a, Index b) {
  Index q = a / b, r = a % b;
  if (r != 0 && ((r > 0) == (b > 0))) ++q;
  return q;
}

Index floor_div(Index a, Index b) {
  Index q = a / b, r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) --q;
  return q;
}

std::vector<Index> cumsum(const std::vector<Index> &v) {
  std::vector<Index> c;
  Index acc = 0;
  for (Index x : v) c.push_back(acc += x);
  return c;
}


/// A normalized slice (Python's slice.indices) and its length.
struct NSlice {
  Index start, stop, step, len;
};

NSlice normalize_slice(const IndexItem &it, Index dim) {
  Index step = it.has_step ? it.step : 1;
  CA_CHECK(step != 0, CA_EINVAL, "slice step cannot be zero");
  CA_CHECK(step != std::numeric_limits<Index>::min(), CA_EINVAL, "slice step ", step, " is out of range");
  const Index lower = step < 0 ? -1 : 0, upper = step < 0 ? dim - 1 : dim;
  auto fix = [&](bool has, Index v, Index dflt) {
    if (!has) return dflt;
    if (v < 0) {
      v += dim;
      if (v < lower) v = lower;
    } else if (v > upper) {
      v = upper;
    }
    return v;
  };
  NSlice s;
  s.step = step;
  s.start = fix(it.has_start, it.start, step < 0 ? upper : lower);
  s.stop = fix(it.has_stop, it.stop, step < 0 ? lower : upper);
  if (step > 0) s.len = s.stop > s.start ? ceil_div(s.stop - s.start, step) : 0;
  else s.len = s.start > s.stop ? ceil_div(s.stop - s.start, step) : 0;
  return s;
}

bool is_full(const NSlice &s, Index dim) { return s.step == 1 && s.start == 0 && s.stop >= dim; }

Index posify(Index i, Index dim, int32_t axis) {
  Index j = i < 0 ? i + dim : i;
  if (j < 0 || j >= dim)
    fail(CA_EINVAL, "index ", i, " is out of bounds for axis ", axis, " with size ", dim);
  return j;
}

/// Per-axis plan of basic indexing: the input blocks touched, in output order.
struct AxisPlan {
  bool integer = false;  // axis dropped
  bool full = false;     // whole axis, blocks unchanged
  std::vector<detail::BlockSlice> blocks;  // in output order
};

AxisPlan plan_axis(const IndexItem &it, Index dim, const std::vector<Index> &lengths, int32_t axis) {
  AxisPlan p;
  if (it.kind == IndexItem::Int) {
    CA_CHECK(dim != kUnknownChunk, CA_EINVAL, "integer index on axis ", axis,
             ": chunk sizes are unknown along axis ", axis, "; call ca_array_compute_chunk_sizes first");
    Index j = posify(it.i, dim, axis);
    std::vector<Index> bounds = cumsum(lengths);
    size_t b = size_t(std::upper_bound(bounds.begin(), bounds.end(), j) - bounds.begin());
    p.integer = true;
    p.blocks.push_back({Index(b), b > 0 ? j - bounds[b - 1] : j, 1, -1});
    return p;
  }
  bool colon = !it.has_start && !it.has_stop && (!it.has_step || it.step == 1);
  if (dim == kUnknownChunk) {
    CA_CHECK(colon, CA_EINVAL, "slicing axis ", axis, ": chunk sizes are unknown along axis ", axis,
             "; call ca_array_compute_chunk_sizes first (only ':' is allowed on such an axis)");
  }
  NSlice s = dim == kUnknownChunk ? NSlice{0, 0, 1, 0} : normalize_slice(it, dim);
  if (colon || (dim != kUnknownChunk && is_full(s, dim))) {
    p.full = true;
    for (size_t i = 0; i < lengths.size(); ++i) p.blocks.push_back({Index(i), 0, 1, lengths[i]});
    return p;
  }
  // An empty selection is the same whatever its direction (a negative step with start -1 would
  // otherwise read as "from the last element").
  if (s.len == 0) s = NSlice{0, 0, 1, 0};
  p.blocks = detail::slice_1d(dim, lengths, s.start, s.stop, s.step);
  if (s.step < 0) std::reverse(p.blocks.begin(), p.blocks.end());
  return p;
}

/// Expand Ellipsis, check counts; returns items with exactly ndim non-newaxis entries.
std::vector<IndexItem> expand_index(const std::vector<IndexItem> &index, int32_t ndim) {
  int32_t real = 0, ell = 0;
  for (auto &it : index) {
    if (it.kind == IndexItem::Ellipsis) ++ell;
    else if (it.kind != IndexItem::NewAxis) ++real;
    CA_CHECK(it.kind >= IndexItem::Int && it.kind <= IndexItem::IntArray, CA_EINVAL, "unknown index kind ", it.kind);
  }
  CA_CHECK(ell <= 1, CA_EINVAL, "an index can only have a single ellipsis ('...')");
  if (real > ndim)
    fail(CA_EINVAL, "too many indices for array: array is ", ndim, "-dimensional, but ", real, " were indexed");
  std::vector<IndexItem> out;
  for (auto &it : index) {
    if (it.kind == IndexItem::Ellipsis) {
      for (int32_t k = 0; k < ndim - real; ++k) out.push_back(IndexItem::all());
    } else {
      out.push_back(it);
    }
  }
  if (!ell)
    for (int32_t k = 0; k < ndim - real; ++k) out.push_back(IndexItem::all());
  return out;
}


/// Iterate the C-order product of per-axis counts.
template <class F>
void for_each_index(const std::vector<Index> &counts, F &&f) {
  const Index total = blocks_product(counts.data(), counts.size(), "the result");
  std::vector<Index> idx(counts.size(), 0);
  for (Index lin = 0; lin < total; ++lin) {
    Index r = lin;
    for (size_t d = counts.size(); d-- > 0;) {
      idx[d] = r % counts[d];
      r /= counts[d];
    }
    f(idx);
  }
}

/// Basic indexing over an expanded index of ints, slices and newaxes (no lists).
ArrayPtr basic_getitem(const ArrayPtr &a, const std::vector<IndexItem> &ex) {
  const int32_t nd = a->ndim();
  std::vector<AxisPlan> plans;
  std::vector<Index> newpos;  // output positions of new axes
  bool trivial = true;
  {
    int32_t d = 0, opos = 0;
    for (auto &it : ex) {
      if (it.kind == IndexItem::NewAxis) {
        newpos.push_back(opos++);
        trivial = false;
        continue;
      }
      plans.push_back(plan_axis(it, a->shape[size_t(d)], a->chunks[size_t(d)], d));
      if (!plans.back().integer) ++opos;
      trivial = trivial && plans.back().full;
      ++d;
    }
  }
  if (trivial) return a;

  Tokenizer tok("getitem");
  tok.add(*a).add(newpos);
  for (auto &p : plans) {
    tok.add(int64_t(p.integer)).add(int64_t(p.full));
    for (auto &b : p.blocks) tok.add(b.block).add(b.start).add(b.step).add(b.count);
  }
  const std::string name = tok.name();

  // Output chunks and the grid of tasks.
  Chunks out_chunks;
  std::vector<Index> counts;
  for (auto &p : plans) {
    counts.push_back(Index(p.blocks.size()));
    if (p.integer) continue;
    std::vector<Index> c;
    for (auto &b : p.blocks) c.push_back(b.count);
    out_chunks.push_back(c);
  }
  for (Index q : newpos) out_chunks.insert(out_chunks.begin() + long(q), std::vector<Index>{1});
  const int32_t ond = int32_t(out_chunks.size());
  CA_CHECK(ond <= CA_MAX_NDIM, CA_EINVAL, "indexing would give ", ond, " dimensions (at most ", CA_MAX_NDIM, ")");

  auto layer = std::make_shared<MaterializedLayer>(name, ond);
  std::vector<Index> in_idx(static_cast<size_t>(nd)), out_idx(static_cast<size_t>(ond));
  std::vector<int64_t> spec;
  for_each_index(counts, [&](const std::vector<Index> &pi) {
    spec.assign(1, nd);
    bool identity = newpos.empty();
    size_t o = 0;
    for (int32_t d = 0; d < nd; ++d) {
      const AxisPlan &p = plans[size_t(d)];
      const detail::BlockSlice &b = p.blocks[size_t(pi[size_t(d)])];
      in_idx[size_t(d)] = b.block;
      spec.push_back(b.start);
      spec.push_back(b.step);
      spec.push_back(p.full ? -2 : b.count);
      if (p.integer) {
        identity = false;
        continue;
      }
      Index len = a->chunks[size_t(d)][size_t(b.block)];
      if (!p.full && !(b.start == 0 && b.step == 1 && b.count == len)) identity = false;
      while (std::find(newpos.begin(), newpos.end(), Index(o)) != newpos.end()) out_idx[o++] = 0;
      out_idx[o++] = pi[size_t(d)];
    }
    while (o < size_t(ond)) out_idx[o++] = 0;  // trailing new axes
    ca_arg_t key = ca_arg_key(a->name.c_str(), in_idx.data(), nd);
    if (identity) {
      layer->add_task(out_idx.data(), "ca.identity", &key, 1);
      return;
    }
    spec.push_back(Index(newpos.size()));
    spec.insert(spec.end(), newpos.begin(), newpos.end());
    ca_arg_t args[2] = {key, ca_arg_tuple(spec.data(), spec.size())};
    layer->add_task(out_idx.data(), "ca.getitem", args, 2);
  });
  auto g = std::make_shared<Graph>(*a->graph);
  g->add_layer(layer);
  return array_from_layer(g, name, out_chunks, a->dtype);
}

std::vector<Index> bool_list_to_ints(const std::vector<Index> &mask, Index dim, int32_t axis) {
  if (Index(mask.size()) != dim)
    fail(CA_EINVAL, "boolean index did not match indexed array along axis ", axis, "; size of axis is ", dim,
         " but size of corresponding boolean axis is ", mask.size());
  std::vector<Index> r;
  for (size_t i = 0; i < mask.size(); ++i)
    if (mask[i]) r.push_back(Index(i));
  return r;
}

/// Scalar converted to dtype `dt` as NumPy's assignment does (truncation for integers).
std::vector<char> scalar_bytes(const ca_scalar_t &s, DType dt) {
  std::vector<char> out(dtype_size(dt));
  store_scalar(scalar_value(s), dt, out.data(), true);
  return out;
}


/// The chunks dask's ravel (reshape_rechunk to one dimension) gives the input: axes after the
/// first non-trivial one made whole and that axis' blocks split (expand_tuple) to keep their
/// number, unless every leading axis has blocks of 1 (then nothing moves).
Chunks ravel_input_chunks(const std::vector<Index> &shape, const Chunks &chunks) {
  const int32_t nd = int32_t(shape.size());
  Index total = 1;
  for (Index e : shape) total *= e;
  if (nd <= 1 || total == 0) return chunks;
  Chunks r = chunks;
  int32_t ii = nd - 1;
  while (ii >= 0 && shape[size_t(ii)] == 1) r[size_t(ii--)] = {1};
  if (ii < 0 || shape[size_t(ii)] == total) return r;
  int32_t ileft = ii - 1;
  auto prod = [&](int32_t lo) {
    Index p = 1;
    for (int32_t i = lo; i <= ii; ++i) p *= shape[size_t(i)];
    return p;
  };
  while (ileft >= 0 && prod(ileft) < total) --ileft;
  bool moving_blocks = true;
  for (int32_t i = 0; i < ii; ++i) moving_blocks = moving_blocks && Index(chunks[size_t(i)].size()) == shape[size_t(i)];
  if (moving_blocks) return r;
  Index reduction = 1;
  for (int32_t i = ileft + 1; i <= ii; ++i) {
    reduction *= Index(chunks[size_t(i)].size());
    r[size_t(i)] = {shape[size_t(i)]};
  }
  r[size_t(ileft)] = expand_tuple(chunks[size_t(ileft)], reduction);
  return r;
}

void check_mask(const ArrayPtr &m, const char *what) {
  CA_CHECK(m, CA_EINVAL, what, ": mask is NULL");
  CA_CHECK(m->dtype == CA_BOOL, CA_EINVAL, what, ": the mask must be a boolean array, got ", dtype_name(m->dtype));
}

}  // namespace

namespace detail {

std::vector<BlockSlice> slice_1d(Index dim, const std::vector<Index> &lengths, Index start, Index stop, Index step) {
  // dask's normalize_slice: None (has_* false) for the defaults.
  bool has_start = true, has_stop = true;
  if (step > 0) {
    if (start == 0) has_start = false;
    if (stop >= dim) has_stop = false;
    if (has_stop && has_start && stop < start) stop = start;
  } else {
    if (start >= dim - 1) has_start = false;
    if (stop < 0) has_stop = false;
  }
  // dask's _slice_1d.
  std::vector<Index> bounds = cumsum(lengths);
  const Index nb = Index(lengths.size());
  std::map<Index, BlockSlice> d;
  if (step > 0) {
    Index s = has_start ? start : 0, e = has_stop ? stop : dim;
    if (s < 0) s += dim;
    if (e < 0) e += dim;
    Index istart = Index(std::upper_bound(bounds.begin(), bounds.end(), s) - bounds.begin());
    Index istop = Index(std::lower_bound(bounds.begin(), bounds.end(), e) - bounds.begin());
    istop = std::min(istop + 1, nb);
    if (istart > 0) {
      s -= bounds[size_t(istart - 1)];
      e -= bounds[size_t(istart - 1)];
    }
    for (Index i = istart; i < istop; ++i) {
      Index length = lengths[size_t(i)];
      if (s < length && e > 0) {
        Index hi = std::min(e, length);
        d[i] = BlockSlice{i, s, step, std::max<Index>(0, ceil_div(hi - s, step))};
        s = pymod(s - length, step);
      } else {
        s = s - length;
      }
      e -= length;
    }
  } else {
    Index s = has_start ? start : dim - 1;
    if (s >= dim) s = dim - 1;
    Index e = has_stop ? stop : -(dim + 1);
    if (s < 0) s += dim;
    if (e < 0) e += dim;
    Index rstart = s;
    // The block holding s: the first whose end is past s (empty blocks at s are skipped).
    Index istart = Index(std::upper_bound(bounds.begin(), bounds.end(), s) - bounds.begin());
    Index istop = Index(std::upper_bound(bounds.begin(), bounds.end(), e) - bounds.begin());
    istart = std::min(istart, Index(bounds.size()) - 1);
    istop = std::max<Index>(istop - 1, -1);
    for (Index i = istart; i > istop; --i) {
      Index chunk_stop = bounds[size_t(i)];
      Index chunk_start = i == 0 ? 0 : bounds[size_t(i - 1)];
      if (chunk_start <= rstart && rstart < chunk_stop && rstart > e) {
        Index sl_start = rstart - chunk_stop;
        Index sl_stop = std::max(chunk_start - chunk_stop - 1, e - chunk_stop);
        d[i] = BlockSlice{i, rstart - chunk_start, step, std::max<Index>(0, ceil_div(sl_stop - sl_start, step))};
        Index offset = pymod(rstart - (chunk_start - 1), step);
        rstart = chunk_start + offset - 1;
      }
    }
  }
  std::vector<BlockSlice> out;
  for (auto &kv : d) out.push_back(kv.second);
  if (out.empty()) out.push_back(BlockSlice{0, 0, 1, 0});  // x[:0]
  return out;
}

}  // namespace detail

// ---- take ----------------------------------------------------------------------------------------

ArrayPtr take(const ArrayPtr &a, const std::vector<Index> &indices0, int32_t axis) {
  CA_CHECK(a, CA_EINVAL, "take: array is NULL");
  const int32_t nd = a->ndim();
  CA_CHECK(axis >= -nd && axis < nd, CA_EINVAL, "take: axis ", axis, " is out of bounds for array of dimension ", nd);
  if (axis < 0) axis += nd;
  require_known_chunks(*a, "take", axis);
  const Index dim = a->shape[size_t(axis)];
  std::vector<Index> idx;
  idx.reserve(indices0.size());
  for (Index i : indices0) idx.push_back(posify(i, dim, axis));
  const std::vector<Index> &lengths = a->chunks[size_t(axis)];
  std::vector<Index> bounds = cumsum(lengths);
  // dask's slicing_plan: runs of indices in the same block.
  std::vector<std::pair<Index, std::vector<Index>>> plan;
  for (Index j : idx) {
    Index b = Index(std::upper_bound(bounds.begin(), bounds.end(), j) - bounds.begin());
    Index local = b > 0 ? j - bounds[size_t(b - 1)] : j;
    if (plan.empty() || plan.back().first != b) plan.push_back({b, {}});
    plan.back().second.push_back(local);
  }
  if (plan.empty()) plan.push_back({0, {}});

  Tokenizer tok("take");
  tok.add(*a).add(axis).add(idx);
  const std::string name = tok.name();
  Chunks out_chunks = a->chunks;
  out_chunks[size_t(axis)].clear();
  for (auto &p : plan) out_chunks[size_t(axis)].push_back(Index(p.second.size()));

  auto layer = std::make_shared<MaterializedLayer>(name, nd);
  std::vector<Index> counts = numblocks_of(out_chunks);
  std::vector<Index> in_idx(static_cast<size_t>(nd));
  for_each_index(counts, [&](const std::vector<Index> &oi) {
    in_idx = oi;
    const auto &p = plan[size_t(oi[size_t(axis)])];
    in_idx[size_t(axis)] = p.first;
    ca_arg_t key = ca_arg_key(a->name.c_str(), in_idx.data(), nd);
    bool whole = Index(p.second.size()) == lengths[size_t(p.first)];
    for (size_t k = 0; whole && k < p.second.size(); ++k) whole = p.second[k] == Index(k);
    if (whole) {
      layer->add_task(oi.data(), "ca.identity", &key, 1);
      return;
    }
    ca_arg_t args[3] = {key, ca_arg_i64(axis), ca_arg_tuple(p.second.data(), p.second.size())};
    layer->add_task(oi.data(), "ca.take", args, 3);
  });
  auto g = std::make_shared<Graph>(*a->graph);
  g->add_layer(layer);
  return array_from_layer(g, name, out_chunks, a->dtype);
}

ArrayPtr take_array(const ArrayPtr &a, const ArrayPtr &indices, int32_t axis) {
  CA_CHECK(a, CA_EINVAL, "take: array is NULL");
  CA_CHECK(indices, CA_EINVAL, "take: the index array is NULL");
  const int32_t nd = a->ndim();
  CA_CHECK(axis >= -nd && axis < nd, CA_EINVAL, "take: axis ", axis, " is out of bounds for array of dimension ", nd);
  if (axis < 0) axis += nd;
  CA_CHECK(indices->ndim() == 1, CA_EINVAL, "take: the index array must be 1-d, got ", indices->ndim(),
           " dimensions");
  CA_CHECK(dtype_is_integer(indices->dtype), CA_EINVAL, "take: the index array must have an integer dtype, got ",
           dtype_name(indices->dtype));
  require_known_chunks(*a, "take", axis);
  std::vector<Index> bounds = cumsum(a->chunks[size_t(axis)]);
  const std::string name = Tokenizer("take-array").add(*a).add(*indices).add(axis).name();
  Chunks out_chunks = a->chunks;
  out_chunks[size_t(axis)] = indices->chunks[0];
  auto layer = std::make_shared<MaterializedLayer>(name, nd);
  const Index nax = a->numblocks[size_t(axis)];
  std::vector<std::vector<Index>> keys(static_cast<size_t>(nax));
  for_each_index(numblocks_of(out_chunks), [&](const std::vector<Index> &oi) {
    Index j = oi[size_t(axis)];
    std::vector<ca_arg_t> items;
    for (Index i = 0; i < nax; ++i) {
      keys[size_t(i)] = oi;
      keys[size_t(i)][size_t(axis)] = i;
      items.push_back(ca_arg_key(a->name.c_str(), keys[size_t(i)].data(), nd));
    }
    ca_arg_t args[4] = {ca_arg_key(indices->name.c_str(), &j, 1), ca_arg_i64(axis),
                        ca_arg_tuple(bounds.data(), bounds.size()), ca_arg_list(items.data(), items.size())};
    layer->add_task(oi.data(), "ca.take_dyn", args, 4);
  });
  auto g = merge_graphs({a, indices});
  g->add_layer(layer);
  return array_from_layer(g, name, out_chunks, a->dtype);
}

// ---- getitem -------------------------------------------------------------------------------------

ArrayPtr getitem(const ArrayPtr &a0, const std::vector<IndexItem> &index) {
  CA_CHECK(a0, CA_EINVAL, "getitem: array is NULL");
  ArrayPtr a = a0;
  // A boolean array of the array's own dimensions, alone: dask's x[mask].
  if (index.size() == 1 && index[0].kind == IndexItem::BoolArray && index[0].array &&
      (index[0].array->ndim() == a->ndim() && (a->ndim() != 1)))
    return mask_select(a, index[0].array);
  std::vector<IndexItem> ex = expand_index(index, a->ndim());
  // 1-d boolean arrays along axes first (the axes stay), then the rest on the masked array.
  {
    int32_t d = 0;
    for (auto &it : ex) {
      if (it.kind == IndexItem::NewAxis) continue;
      if (it.kind == IndexItem::BoolArray) {
        CA_CHECK(it.array, CA_EINVAL, "getitem: boolean index array of axis ", d, " is NULL");
        CA_CHECK(it.array->ndim() == 1, CA_EINVAL,
                 "slicing with a boolean array is only permitted when the mask has one dimension or the array's "
                 "dimensions (axis ", d, " got a mask of ", it.array->ndim(), " dimensions)");
        a = mask_select_axis(a, it.array, d);
        it = IndexItem::all();
      }
      ++d;
    }
  }
  // Boolean lists become integer lists; at most one integer list.
  int32_t list_axis = -1, list_out_axis = -1;
  std::vector<Index> list;
  ArrayPtr list_array;
  {
    int32_t d = 0, opos = 0;
    for (auto &it : ex) {
      if (it.kind == IndexItem::NewAxis) {
        ++opos;
        continue;
      }
      if (it.kind == IndexItem::BoolList || it.kind == IndexItem::IntList || it.kind == IndexItem::IntArray) {
        CA_CHECK(list_axis < 0, CA_EINVAL,
                 "indexing with more than one integer list is not supported (NumPy's broadcast fancy indexing); "
                 "use ca_array_vindex for pointwise selection");
        list_axis = d;
        list_out_axis = opos;
        if (it.kind == IndexItem::IntArray) {
          CA_CHECK(it.array, CA_EINVAL, "getitem: integer index array of axis ", d, " is NULL");
          list_array = it.array;
        } else if (it.kind == IndexItem::BoolList) {
          require_known_chunks(*a, "boolean list index", d);
          list = bool_list_to_ints(it.list, a->shape[size_t(d)], d);
        } else {
          list = it.list;
        }
        it = IndexItem::all();
      }
      if (it.kind != IndexItem::Int) ++opos;
      ++d;
    }
  }
  if (list_axis >= 0) {
    // Check the list against the original axis before slicing the rest (errors name that axis).
    require_known_chunks(*a, "integer list index", list_axis);
    for (Index i : list) posify(i, a->shape[size_t(list_axis)], list_axis);
  }
  ArrayPtr r = basic_getitem(a, ex);
  if (list_array) return take_array(r, list_array, list_out_axis);
  if (list_axis >= 0) r = take(r, list, list_out_axis);
  return r;
}

// ---- boolean masks -------------------------------------------------------------------------------

ArrayPtr mask_select(const ArrayPtr &a, const ArrayPtr &mask) {
  CA_CHECK(a, CA_EINVAL, "mask_select: array is NULL");
  check_mask(mask, "mask_select");
  const int32_t nd = a->ndim();
  if (mask->ndim() != nd || mask->shape != a->shape)
    fail(CA_EINVAL, "boolean index did not match indexed array: array shape ", shape_str(a->shape, true), ", mask shape ",
         shape_str(mask->shape, true));
  ArrayPtr x = a, m = mask;
  Chunks want;
  Index nb = 1;
  if (nd == 1) {
    want.push_back(common_blockdim({a->chunks[0], mask->chunks[0]}));
  } else if (nd > 1) {
    // dask ravels x and the mask (reshape_rechunk), then selects blockwise: every output block is
    // one box of x in C order. The common refinement of both ravel chunkings, per axis.
    require_known_chunks(*a, "mask_select");
    require_known_chunks(*mask, "mask_select");
    Chunks xa = ravel_input_chunks(a->shape, a->chunks), ma = ravel_input_chunks(a->shape, mask->chunks);
    for (int32_t d = 0; d < nd; ++d) want.push_back(common_blockdim({xa[size_t(d)], ma[size_t(d)]}));
  }
  if (nd > 0) {
    if (x->chunks != want) x = rechunk(x, want);
    if (m->chunks != want) m = rechunk(m, want);
    for (auto &c : want) nb *= Index(c.size());
  }
  std::string name = Tokenizer("getitem-mask").add(*x).add(*m).name();
  // One task per block of the (rechunked) grid, in C order of the blocks.
  auto layer = std::make_shared<MaterializedLayer>(name, 1);
  Index out = 0;
  std::vector<Index> grid = nd > 0 ? x->numblocks : std::vector<Index>{};
  for_each_index(grid, [&](const std::vector<Index> &bi) {
    ca_arg_t args[2] = {ca_arg_key(x->name.c_str(), bi.data(), nd), ca_arg_key(m->name.c_str(), bi.data(), nd)};
    layer->add_task(&out, "ca.mask_select", args, 2);
    ++out;
  });
  auto g = merge_graphs({x, m});
  g->add_layer(layer);
  return array_from_layer(g, name, Chunks{std::vector<Index>(size_t(nb), kUnknownChunk)}, a->dtype);
}

ArrayPtr mask_select_axis(const ArrayPtr &a, const ArrayPtr &mask, int32_t axis) {
  CA_CHECK(a, CA_EINVAL, "mask_select_axis: array is NULL");
  check_mask(mask, "mask_select_axis");
  const int32_t nd = a->ndim();
  CA_CHECK(axis >= -nd && axis < nd, CA_EINVAL, "mask_select_axis: axis ", axis,
           " is out of bounds for array of dimension ", nd);
  if (axis < 0) axis += nd;
  CA_CHECK(mask->ndim() == 1, CA_EINVAL, "mask_select_axis: the mask must be 1-d, got ", mask->ndim(), " dimensions");
  if (mask->shape[0] != a->shape[size_t(axis)])
    fail(CA_EINVAL, "boolean index did not match indexed array along axis ", axis, "; size of axis is ",
         a->shape[size_t(axis)] == kUnknownChunk ? std::string("nan") : std::to_string(a->shape[size_t(axis)]),
         " but size of corresponding boolean axis is ",
         mask->shape[0] == kUnknownChunk ? std::string("nan") : std::to_string(mask->shape[0]));
  std::string letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  std::string xi = letters.substr(0, size_t(nd));
  std::vector<ArrayPtr> u = unify_chunks({a, mask}, {xi, std::string(1, xi[size_t(axis)])});
  ArrayPtr x = u[0], m = u[1];
  std::string name = Tokenizer("getitem-mask-axis").add(*x).add(*m).add(axis).name();
  std::vector<std::string> deps{x->name};
  if (m->name != x->name) deps.push_back(m->name);
  std::vector<BlockwiseArg> args;
  {
    BlockwiseArg b;
    b.is_ref = true;
    b.dep_slot = 0;
    for (int32_t d = 0; d < nd; ++d) {
      DimMap dm;
      dm.kind = DimMap::Out;
      dm.out_dim = d;
      dm.extent = x->numblocks[size_t(d)];
      b.dims.push_back(dm);
    }
    args.push_back(std::move(b));
  }
  {
    BlockwiseArg b;
    b.is_ref = true;
    b.dep_slot = int32_t(deps.size() - 1);
    DimMap dm;
    dm.kind = DimMap::Out;
    dm.out_dim = axis;
    dm.extent = m->numblocks[0];
    b.dims.push_back(dm);
    args.push_back(std::move(b));
  }
  args.push_back(blockwise_literal(ca_arg_i64(axis)));
  auto g = merge_graphs({x, m});
  g->add_layer(std::make_shared<BlockwiseLayer>(name, x->numblocks, "ca.mask_axis", deps, std::move(args)));
  Chunks oc = x->chunks;
  for (auto &c : oc[size_t(axis)]) c = kUnknownChunk;
  return array_from_layer(g, name, oc, a->dtype);
}

ArrayPtr compute_chunk_sizes(Executor &ex, const KernelRegistry &reg, const ArrayPtr &a, const RunOptions &opts0) {
  CA_CHECK(a, CA_EINVAL, "compute_chunk_sizes: array is NULL");
  if (chunks_known(a->chunks)) return a;
  const int32_t nd = a->ndim();
  std::string name = Tokenizer("chunk-shapes").add(*a).name();
  BlockwiseArg b;
  b.is_ref = true;
  b.dep_slot = 0;
  for (int32_t d = 0; d < nd; ++d) {
    DimMap dm;
    dm.kind = DimMap::Out;
    dm.out_dim = d;
    dm.extent = a->numblocks[size_t(d)];
    b.dims.push_back(dm);
  }
  std::vector<BlockwiseArg> args;
  args.push_back(std::move(b));
  Graph g(*a->graph);
  g.add_layer(std::make_shared<BlockwiseLayer>(name, a->numblocks, "ca.block_shape", std::vector<std::string>{a->name},
                                               std::move(args)));
  std::vector<std::vector<Index>> keys;
  for_each_index(a->numblocks, [&](const std::vector<Index> &i) { keys.push_back(i); });
  std::vector<KeyRef> refs;
  for (auto &k : keys) refs.push_back({name.c_str(), k.data(), nd});
  auto plan = build_plan(g, refs.data(), refs.size(), &reg, opts0.max_tasks);
  std::vector<std::vector<Index>> shapes(keys.size());
  RunOptions opts = opts0;
  opts.on_output = [&](size_t i, const Block *blk) {
    CA_CHECK(blk->dtype == CA_INT64 && blk->ndim == 1 && blk->shape[0] == nd, CA_EKERNEL,
             "compute_chunk_sizes: a block has the wrong number of dimensions");
    const int64_t *p = static_cast<const int64_t *>(blk->data);
    shapes[i].assign(p, p + nd);
  };
  ex.run(*plan, opts);
  Chunks chunks = a->chunks;
  for (int32_t d = 0; d < nd; ++d)
    for (size_t i = 0; i < keys.size(); ++i) {
      size_t j = size_t(keys[i][size_t(d)]);
      Index got = shapes[i][size_t(d)];
      Index &c = chunks[size_t(d)][j];
      if (a->chunks[size_t(d)][j] == kUnknownChunk && c == kUnknownChunk) c = got;
      else if (c != got)
        fail(CA_EKERNEL, "compute_chunk_sizes: block ", key_str(a->name, keys[i].data(), nd), " has extent ", got,
             " along axis ", d, ", expected ", c);
    }
  return array_from_layer(a->graph, a->name, chunks, a->dtype);
}

// ---- vindex --------------------------------------------------------------------------------------

ArrayPtr vindex_points(const ArrayPtr &a, const std::vector<int32_t> &axes, const std::vector<std::vector<Index>> &coords,
                       Index n) {
  CA_CHECK(a, CA_EINVAL, "vindex: array is NULL");
  const int32_t nd = a->ndim();
  const size_t k = axes.size();
  CA_CHECK(k > 0 && coords.size() == k && n >= 0, CA_EINVAL, "vindex needs at least one index array");
  require_known_chunks(*a, "vindex");
  std::vector<bool> indexed(size_t(nd), false);
  for (size_t j = 0; j < k; ++j) {
    CA_CHECK(axes[j] >= 0 && axes[j] < nd && !indexed[size_t(axes[j])], CA_EINVAL, "vindex: bad axis ", axes[j]);
    CA_CHECK(Index(coords[j].size()) == n, CA_EINVAL, "vindex: axis ", axes[j], " has ", coords[j].size(),
             " coordinates, expected ", n);
    indexed[size_t(axes[j])] = true;
  }
  std::vector<int32_t> others;
  for (int32_t d = 0; d < nd; ++d)
    if (!indexed[size_t(d)]) others.push_back(d);
  // Points per output block: the largest input block's point count (dask's max_chunk_point_dimensions).
  Index per_block = 1;
  std::vector<std::vector<Index>> bounds;
  std::vector<Index> nblk;
  for (int32_t ax : axes) {
    const auto &c = a->chunks[size_t(ax)];
    per_block = checked_mul(per_block, std::max<Index>(1, *std::max_element(c.begin(), c.end())), "vindex block size");
    bounds.push_back(cumsum(c));
    nblk.push_back(Index(c.size()));
  }
  Tokenizer tok("vindex");
  tok.add(*a).add(n);
  for (size_t j = 0; j < k; ++j) tok.add(int64_t(axes[j])).add(coords[j]);
  const std::string token = tok.name();
  const std::string hex = token.substr(token.find('-') + 1);
  const std::string merge_name = "vindex-merge-" + hex, slice_name = "vindex-slice-" + hex;

  Chunks out_chunks(1);
  for (Index s = 0; s < n; s += per_block) out_chunks[0].push_back(std::min(per_block, n - s));
  if (n == 0) out_chunks[0].push_back(0);
  std::vector<Index> ocounts;
  for (int32_t d : others) {
    out_chunks.push_back(a->chunks[size_t(d)]);
    ocounts.push_back(a->numblocks[size_t(d)]);
  }
  const int32_t ond = int32_t(out_chunks.size());
  auto merge = std::make_shared<MaterializedLayer>(merge_name, ond);
  auto slices = std::make_shared<MaterializedLayer>(slice_name, ond);  // (group, other blocks...)
  std::vector<int64_t> axes_t(axes.begin(), axes.end());
  std::vector<Index> in_idx(static_cast<size_t>(nd)), okey(static_cast<size_t>(ond)), skey(static_cast<size_t>(ond));
  // Per point: the linear index of its input block over the indexed axes, and its local coordinates.
  std::vector<Index> lin(static_cast<size_t>(n));
  std::vector<Index> local(static_cast<size_t>(n) * k);
  for (Index p = 0; p < n; ++p) {
    Index l = 0;
    for (size_t j = 0; j < k; ++j) {
      const Index c = coords[j][size_t(p)];
      const auto &bd = bounds[j];
      CA_CHECK(c >= 0 && c < (bd.empty() ? 0 : bd.back()), CA_EINVAL, "index ", c, " is out of bounds for axis ",
               axes[j], " with size ", bd.empty() ? 0 : bd.back());
      const Index b = Index(std::upper_bound(bd.begin(), bd.end(), c) - bd.begin());
      local[size_t(p) * k + j] = b > 0 ? c - bd[size_t(b - 1)] : c;
      l = l * nblk[j] + b;
    }
    lin[size_t(p)] = l;
  }
  // Groups of each output block: points in the same input block, in order of first appearance.
  struct Group {
    Index block;                               // linear input block over the indexed axes
    std::vector<int64_t> pos, coords;          // positions within the output block, local coordinates
  };
  std::vector<std::vector<Group>> groups(out_chunks[0].size());
  std::unordered_map<Index, size_t> group_of;
  for (size_t ob = 0; ob < groups.size(); ++ob) {
    group_of.clear();
    const Index s = Index(ob) * per_block, e = std::min(n, s + per_block);
    for (Index p = s; p < e; ++p) {
      auto [it, fresh] = group_of.try_emplace(lin[size_t(p)], groups[ob].size());
      if (fresh) groups[ob].push_back(Group{lin[size_t(p)], {}, {}});
      Group &g = groups[ob][it->second];
      g.pos.push_back(p - s);
      g.coords.insert(g.coords.end(), local.begin() + p * Index(k), local.begin() + (p + 1) * Index(k));
    }
  }
  Index gcount = 0;
  for_each_index(ocounts, [&](const std::vector<Index> &oi) {
    for (size_t j = 0; j < others.size(); ++j) in_idx[size_t(others[j])] = oi[j];
    for (size_t ob = 0; ob < groups.size(); ++ob) {
      std::vector<int64_t> oshape{out_chunks[0][ob]};
      for (size_t j = 0; j < others.size(); ++j) oshape.push_back(a->chunks[size_t(others[j])][size_t(oi[j])]);
      std::vector<ca_arg_t> items;
      std::vector<std::vector<Index>> skeys;
      skeys.reserve(groups[ob].size());
      for (const Group &g : groups[ob]) {
        Index r = g.block;
        for (size_t j = k; j-- > 0;) {
          in_idx[size_t(axes[j])] = r % nblk[j];
          r /= nblk[j];
        }
        skey[0] = gcount++;
        std::copy(oi.begin(), oi.end(), skey.begin() + 1);
        skeys.push_back(skey);
        ca_arg_t sargs[3] = {ca_arg_key(a->name.c_str(), in_idx.data(), nd), ca_arg_tuple(axes_t.data(), axes_t.size()),
                             ca_arg_tuple(g.coords.data(), g.coords.size())};
        slices->add_task(skeys.back().data(), "ca.vindex_slice", sargs, 3);
      }
      for (size_t gi = 0; gi < groups[ob].size(); ++gi) {
        items.push_back(ca_arg_tuple(groups[ob][gi].pos.data(), groups[ob][gi].pos.size()));
        items.push_back(ca_arg_key(slice_name.c_str(), skeys[gi].data(), ond));
      }
      okey[0] = Index(ob);
      std::copy(oi.begin(), oi.end(), okey.begin() + 1);
      ca_arg_t margs[3] = {ca_arg_tuple(oshape.data(), oshape.size()), ca_arg_i64(a->dtype),
                           ca_arg_list(items.data(), items.size())};
      merge->add_task(okey.data(), "ca.vindex_merge", margs, 3);
    }
  });
  auto g = std::make_shared<Graph>(*a->graph);
  if (slices->num_tasks() > 0) g->add_layer(slices);
  g->add_layer(merge);
  return array_from_layer(g, merge_name, out_chunks, a->dtype);
}

ArrayPtr vindex(const ArrayPtr &a, const std::vector<const std::vector<Index> *> &indices) {
  CA_CHECK(a, CA_EINVAL, "vindex: array is NULL");
  const int32_t nd = a->ndim();
  CA_CHECK(Index(indices.size()) <= nd, CA_EINVAL, "too many indices for array: array is ", nd, "-dimensional, but ",
           indices.size(), " were indexed");
  require_known_chunks(*a, "vindex");
  std::vector<int32_t> axes;
  Index n = -1;
  for (size_t d = 0; d < indices.size(); ++d) {
    if (!indices[d]) continue;
    axes.push_back(int32_t(d));
    Index len = Index(indices[d]->size());
    if (n < 0 || n == 1) n = std::max(n, len);
    if (len != n && len != 1) {
      std::string shapes;
      for (auto *v : indices)
        if (v) shapes += " (" + std::to_string(v->size()) + ",)";
      fail(CA_EINVAL, "shape mismatch: indexing arrays could not be broadcast together with shapes", shapes);
    }
  }
  CA_CHECK(!axes.empty(), CA_EINVAL, "vindex needs at least one index array");
  std::vector<std::vector<Index>> coords;
  for (int32_t ax : axes) {
    const std::vector<Index> &v = *indices[size_t(ax)];
    std::vector<Index> c(static_cast<size_t>(n));
    for (Index p = 0; p < n; ++p) c[size_t(p)] = posify(v[v.size() == 1 ? 0 : size_t(p)], a->shape[size_t(ax)], ax);
    coords.push_back(std::move(c));
  }
  return vindex_points(a, axes, coords, n);
}

// ---- advanced indexing ---------------------------------------------------------------------------

namespace {

/// Checks an item's declared shape against its values; returns its shape.
std::vector<Index> item_shape(const IndexItem &it, size_t k) {
  if (!it.has_list_shape) return {Index(it.list.size())};
  Index size = 1;
  for (Index e : it.list_shape) {
    CA_CHECK(e >= 0, CA_EINVAL, "index item ", k, " has a negative extent in its shape ", shape_str(it.list_shape, true));
    size = checked_mul(size, e, "index array size");
  }
  CA_CHECK(size == Index(it.list.size()), CA_EINVAL, "index item ", k, " has shape ", shape_str(it.list_shape, true),
           " but ", it.list.size(), " values");
  return it.list_shape;
}

}  // namespace

ArrayPtr getitem_advanced(const ArrayPtr &a0, const std::vector<IndexItem> &index, IndexMode mode) {
  CA_CHECK(a0, CA_EINVAL, "getitem: array is NULL");
  CA_CHECK(mode == IndexMode::NumPy || mode == IndexMode::Vectorized || mode == IndexMode::Outer, CA_EINVAL,
           "unknown index mode ", int32_t(mode), " (0 NumPy, 1 vectorized, 2 outer)");
  const char *what = mode == IndexMode::Vectorized ? "vindex" : mode == IndexMode::Outer ? "oindex" : "getitem";
  const int32_t nd0 = a0->ndim();
  // Check the items; count the axes each consumes (a k-d boolean array consumes k).
  size_t narrays = 0;
  bool multi = false;  // an integer or boolean list of other than one dimension
  int32_t consumed = 0, ell = 0;
  std::vector<std::vector<Index>> shapes0(index.size());
  for (size_t k = 0; k < index.size(); ++k) {
    const IndexItem &it = index[k];
    CA_CHECK(it.kind >= IndexItem::Int && it.kind <= IndexItem::IntArray, CA_EINVAL, "unknown index kind ", it.kind);
    if (mode == IndexMode::Vectorized) {
      CA_CHECK(it.kind != IndexItem::NewAxis, CA_EINVAL, "vindex does not support indexing with None (np.newaxis)");
      CA_CHECK(it.kind != IndexItem::BoolList && it.kind != IndexItem::BoolArray, CA_EINVAL,
               "vindex does not support indexing with boolean arrays");
    }
    if (it.kind == IndexItem::Ellipsis) ++ell;
    else if (it.kind != IndexItem::NewAxis) ++consumed;
    if (it.kind == IndexItem::IntList || it.kind == IndexItem::BoolList) {
      shapes0[k] = item_shape(it, k);
      const size_t m = shapes0[k].size();
      CA_CHECK(mode != IndexMode::Outer || m == 1, CA_EINVAL, "oindex: index item ", k, " is a ", m,
               "-d array; outer indexing takes 1-d arrays");
      CA_CHECK(it.kind == IndexItem::IntList || m > 0, CA_EINVAL,
               "a 0-d boolean index (x[True]) is not supported; index item ", k);
      if (it.kind == IndexItem::BoolList) consumed += int32_t(m) - 1;
      multi = multi || m != 1;
      ++narrays;
    } else if (it.kind == IndexItem::IntArray || it.kind == IndexItem::BoolArray) {
      ++narrays;
    }
  }
  if (mode == IndexMode::NumPy && narrays <= 1 && !multi) {
    // One 1-d array: dask's take. NumPy puts its axis first when an integer (also advanced) is
    // separated from it by a slice, None or a non-empty Ellipsis (x[0, :, [1, 2]] has shape (2, d1)).
    const int32_t ell_axes = std::max(0, nd0 - consumed);
    int32_t last = -1, opos = 0, arr_out = -1;
    bool adjacent = true;
    for (size_t k = 0; k < index.size(); ++k) {
      const IndexItem &it = index[k];
      const bool is_arr = it.kind == IndexItem::IntList || it.kind == IndexItem::BoolList ||
                          it.kind == IndexItem::IntArray || it.kind == IndexItem::BoolArray;
      if (is_arr || it.kind == IndexItem::Int) {
        if (last >= 0 && last != int32_t(k) - 1) adjacent = false;
        last = int32_t(k);
        if (is_arr) arr_out = opos;
      }
      if (it.kind == IndexItem::Ellipsis && ell_axes == 0) last = last >= 0 ? int32_t(k) : last;  // no axes: no gap
      if (it.kind == IndexItem::Ellipsis) opos += ell_axes;
      else if (it.kind != IndexItem::Int) ++opos;
    }
    ArrayPtr r = getitem(a0, index);
    if (adjacent || arr_out <= 0) return r;
    std::vector<int64_t> perm{arr_out};
    for (int32_t q = 0; q < r->ndim(); ++q)
      if (q != arr_out) perm.push_back(q);
    return transpose(r, perm);
  }
  CA_CHECK(ell <= 1, CA_EINVAL, "an index can only have a single ellipsis ('...')");
  if (consumed > nd0)
    fail(CA_EINVAL, "too many indices for array: array is ", nd0, "-dimensional, but ", consumed, " were indexed");
  // Expand the Ellipsis (and the missing trailing axes) to ':' and a k-d boolean array to k integer
  // arrays of its nonzero positions, checking its shape against the axes it covers.
  std::vector<IndexItem> ex;
  {
    int32_t d = 0;
    for (size_t k = 0; k < index.size(); ++k) {
      const IndexItem &it = index[k];
      if (it.kind == IndexItem::Ellipsis) {
        for (int32_t q = 0; q < nd0 - consumed; ++q, ++d) ex.push_back(IndexItem::all());
        continue;
      }
      if (it.kind == IndexItem::BoolList) {
        const std::vector<Index> &shp = shapes0[k];
        for (size_t j = 0; j < shp.size(); ++j) {
          const Index dim = a0->shape[size_t(d) + j];
          require_known_chunks(*a0, what, d + int32_t(j));
          if (dim != shp[j])
            fail(CA_EINVAL, "boolean index did not match indexed array along axis ", d + int32_t(j),
                 "; size of axis is ", dim, " but size of corresponding boolean axis is ", shp[j]);
        }
        std::vector<IndexItem> per(shp.size());
        std::vector<Index> strides(shp.size(), 1);
        for (size_t j = shp.size() - 1; j-- > 0;) strides[j] = strides[j + 1] * shp[j + 1];
        for (size_t e = 0; e < it.list.size(); ++e)
          if (it.list[e])
            for (size_t j = 0; j < shp.size(); ++j) per[j].list.push_back((Index(e) / strides[j]) % shp[j]);
        for (auto &p : per) {
          p.kind = IndexItem::IntList;
          ex.push_back(std::move(p));
        }
        d += int32_t(shp.size());
        continue;
      }
      ex.push_back(it);
      if (it.kind != IndexItem::NewAxis) ++d;
    }
    for (; d < nd0; ++d) ex.push_back(IndexItem::all());
  }
  ArrayPtr a = a0;
  // Lazy boolean arrays along one axis: outer indexing applies them first (the axis stays).
  {
    int32_t d = 0;
    for (auto &it : ex) {
      if (it.kind == IndexItem::NewAxis) continue;
      if (it.kind == IndexItem::BoolArray) {
        CA_CHECK(mode == IndexMode::Outer, CA_EINVAL, what,
                 ": a boolean chunkarray array can only be combined with other index arrays in outer indexing");
        CA_CHECK(it.array && it.array->ndim() == 1, CA_EINVAL, "oindex: the boolean array of axis ", d,
                 " must be 1-d");
        a = mask_select_axis(a, it.array, d);
        it = IndexItem::all();
      } else if (it.kind == IndexItem::IntArray) {
        CA_CHECK(mode == IndexMode::Outer, CA_EINVAL, what,
                 ": an integer chunkarray array can only be combined with other index arrays in outer indexing");
        CA_CHECK(it.array, CA_EINVAL, "oindex: the index array of axis ", d, " is NULL");
      }
      ++d;
    }
  }
  // Basic part: ints drop their axis, slices and newaxes apply, arrays become ':'. Record, per
  // array item, its axis in the input and in the basic result, and whether the advanced items
  // (arrays, and ints once an array is present) are adjacent.
  struct Adv {
    int32_t in_axis, out_axis;
    const IndexItem *item;
  };
  std::vector<Adv> adv;
  std::vector<IndexItem> basic;
  int32_t first_adv_out = -1, last_adv_pos = -1;
  bool adjacent = true;
  {
    int32_t d = 0, opos = 0;
    for (size_t k = 0; k < ex.size(); ++k) {
      const IndexItem &it = ex[k];
      const bool is_array = it.kind == IndexItem::IntList || it.kind == IndexItem::IntArray;
      const bool is_adv = is_array || it.kind == IndexItem::Int;
      if (is_adv && mode == IndexMode::NumPy) {
        if (last_adv_pos >= 0 && last_adv_pos != int32_t(k) - 1) adjacent = false;
        if (first_adv_out < 0) first_adv_out = opos;
        last_adv_pos = int32_t(k);
      }
      if (is_array) {
        adv.push_back({d, opos, &it});
        basic.push_back(IndexItem::all());
        ++opos;
      } else {
        basic.push_back(it);
        if (it.kind != IndexItem::Int) ++opos;
      }
      if (it.kind != IndexItem::NewAxis) ++d;
    }
  }
  if (adv.empty()) {
    // dask's vindex: only slices (and ints) need something to vectorize over, unless they select all.
    bool only_slices = true;
    for (auto &it : ex) only_slices = only_slices && it.kind == IndexItem::Slice;
    if (mode == IndexMode::Vectorized && only_slices) {
      bool all_full = true;
      for (size_t d = 0; d < ex.size(); ++d)
        if (a->shape[d] == kUnknownChunk || !is_full(normalize_slice(ex[d], a->shape[d]), a->shape[d]))
          all_full = false;
      CA_CHECK(all_full, CA_EINVAL,
               "vindex requires at least one non-slice to vectorize over when the slices are not over the entire "
               "array (i.e, x[:]); use normal slicing instead");
      return a;
    }
    return basic_getitem(a, ex);
  }
  // Out-of-bounds and shape errors name the original axes: check before slicing.
  for (auto &v : adv)
    if (v.item->kind != IndexItem::IntArray) {
      require_known_chunks(*a, what, v.in_axis);
      const Index dim = a->shape[size_t(v.in_axis)];
      for (Index i : v.item->list) posify(i, dim, v.in_axis);
    }
  ArrayPtr y = basic_getitem(a, basic);
  if (mode == IndexMode::Outer) {
    for (auto &v : adv) {
      if (v.item->kind == IndexItem::IntArray) {
        y = take_array(y, v.item->array, v.out_axis);
      } else {
        y = take(y, v.item->list, v.out_axis);
      }
    }
    return y;
  }
  // Broadcast the index arrays (NumPy's rules) and flatten their points.
  std::vector<std::vector<Index>> shapes;
  std::vector<std::vector<Index>> lists;
  for (auto &v : adv) {
    lists.push_back(v.item->list);
    shapes.push_back(v.item->has_list_shape ? v.item->list_shape : std::vector<Index>{Index(v.item->list.size())});
  }
  size_t bnd = 0;
  for (auto &s : shapes) bnd = std::max(bnd, s.size());
  std::vector<Index> bshape(bnd, 1);
  for (auto &s : shapes)
    for (size_t j = 0; j < s.size(); ++j) {
      Index &b = bshape[bnd - s.size() + j];
      const Index e = s[j];
      if (b == 1) b = e;
      else if (e != 1 && e != b) {
        std::string txt;
        for (auto &t : shapes) txt += (txt.empty() ? "" : " ") + shape_str(t, true);
        fail(CA_EINVAL, "shape mismatch: indexing arrays could not be broadcast together with shapes ", txt);
      }
    }
  const Index n = shape_size(bshape);
  std::vector<int32_t> axes;
  std::vector<std::vector<Index>> coords;
  for (size_t j = 0; j < adv.size(); ++j) {
    const auto &s = shapes[j];
    // Strides of this array inside the broadcast shape (0 along broadcast axes).
    std::vector<Index> st(bnd, 0);
    Index acc = 1;
    for (size_t q = s.size(); q-- > 0;) {
      if (s[q] != 1) st[bnd - s.size() + q] = acc;
      acc *= s[q];
    }
    std::vector<Index> c(static_cast<size_t>(n));
    std::vector<Index> ix(bnd, 0);
    const Index dim = a->shape[size_t(adv[j].in_axis)];
    Index off = 0;
    for (Index p = 0; p < n; ++p) {
      c[size_t(p)] = posify(lists[j][size_t(off)], dim, adv[j].in_axis);
      for (size_t q = bnd; q-- > 0;) {  // odometer over the broadcast shape
        off += st[q];
        if (++ix[q] < bshape[q]) break;
        off -= st[q] * ix[q];
        ix[q] = 0;
      }
    }
    axes.push_back(adv[j].out_axis);
    coords.push_back(std::move(c));
  }
  ArrayPtr r = vindex_points(y, axes, coords, n);
  if (bnd != 1) {
    std::vector<Index> shp = bshape;
    shp.insert(shp.end(), r->shape.begin() + 1, r->shape.end());
    r = reshape(r, shp);
  }
  // NumPy: adjacent advanced indices put the broadcast dimensions where they stood.
  if (mode == IndexMode::NumPy && adjacent && first_adv_out > 0) {
    const int32_t rnd = r->ndim(), b = int32_t(bnd);
    std::vector<int64_t> perm;
    for (int32_t q = 0; q < first_adv_out; ++q) perm.push_back(b + q);
    for (int32_t q = 0; q < b; ++q) perm.push_back(q);
    for (int32_t q = b + first_adv_out; q < rnd; ++q) perm.push_back(q);
    r = transpose(r, perm);
  }
  return r;
}

// ---- setitem -------------------------------------------------------------------------------------

namespace {

struct SetPlan {
  std::vector<bool> integer;
  std::vector<NSlice> sl;     // per axis (integer: start = index)
  std::vector<Index> target;  // shape of x[index]
  int32_t list_axis = -1;     // an axis indexed by an integer list (NumPy: repeated indices, last wins)
  std::vector<Index> list;    // its positions (non-negative)
};

SetPlan plan_setitem(const ArrayPtr &a, const std::vector<IndexItem> &index) {
  require_known_chunks(*a, "setitem");
  std::vector<IndexItem> ex = expand_index(index, a->ndim());
  SetPlan p;
  int32_t d = 0;
  for (auto &it : ex) {
    CA_CHECK(it.kind == IndexItem::Int || it.kind == IndexItem::Slice || it.kind == IndexItem::IntList ||
                 it.kind == IndexItem::BoolList,
             CA_EINVAL,
             "setitem supports integers, slices, one integer or boolean list and Ellipsis; use ca_array_mask_set "
             "for boolean masks");
    Index dim = a->shape[size_t(d)];
    if (it.kind == IndexItem::Int) {
      p.integer.push_back(true);
      p.sl.push_back({posify(it.i, dim, d), 0, 1, 1});
    } else if (it.kind == IndexItem::Slice) {
      p.integer.push_back(false);
      p.sl.push_back(normalize_slice(it, dim));
      p.target.push_back(p.sl.back().len);
    } else {
      CA_CHECK(p.list_axis < 0, CA_EINVAL, "setitem supports one integer list per index");
      p.list_axis = d;
      std::vector<Index> v = it.kind == IndexItem::BoolList ? bool_list_to_ints(it.list, dim, d) : it.list;
      for (Index i : v) p.list.push_back(posify(i, dim, d));
      p.integer.push_back(false);
      p.sl.push_back({0, 1, 1, Index(p.list.size())});
      p.target.push_back(Index(p.list.size()));
    }
    ++d;
  }
  return p;
}

/// For block [b0, b1) of an axis: the selected k-range [k0, k1) and the local start.
void block_range(const NSlice &s, bool integer, Index b0, Index b1, Index &k0, Index &k1, Index &lstart) {
  if (integer) {
    bool in = s.start >= b0 && s.start < b1;
    k0 = 0;
    k1 = in ? 1 : 0;
    lstart = s.start - b0;
    return;
  }
  if (s.step > 0) {
    k0 = std::clamp<Index>(ceil_div(b0 - s.start, s.step), 0, s.len);
    k1 = std::clamp<Index>(ceil_div(b1 - s.start, s.step), 0, s.len);
  } else {
    Index m = -s.step;
    k0 = std::clamp<Index>(ceil_div(s.start - (b1 - 1), m), 0, s.len);
    k1 = std::clamp<Index>(floor_div(s.start - b0, m) + 1, 0, s.len);
  }
  lstart = k1 > k0 ? s.start + k0 * s.step - b0 : 0;  // (no overflow for huge steps when nothing is hit)
}

ArrayPtr setitem_impl(const ArrayPtr &a, const std::vector<IndexItem> &index, const ArrayPtr *value,
                      const ca_scalar_t *scalar) {
  CA_CHECK(a, CA_EINVAL, "setitem: array is NULL");
  SetPlan p = plan_setitem(a, index);
  const int32_t nd = a->ndim();
  ArrayPtr v;
  std::vector<char> sbytes;
  if (value) {
    CA_CHECK(*value, CA_EINVAL, "setitem: value is NULL");
    v = *value;
    require_known_chunks(*v, "setitem value");
    // NumPy drops the value's leading size-1 dimensions beyond the target's (x[1] = [[3]]).
    const int32_t nt = int32_t(p.target.size());
    std::vector<int64_t> lead;
    for (int32_t e = 0; e + nt < v->ndim() && v->shape[size_t(e)] == 1; ++e) lead.push_back(e);
    if (!lead.empty()) v = squeeze(v, lead, false);
    const int32_t nv = v->ndim();
    bool ok = nv <= nt;
    for (int32_t e = 0; ok && e < nv; ++e) {
      Index ve = v->shape[size_t(e)], te = p.target[size_t(e + nt - nv)];
      ok = ve == te || ve == 1;
    }
    if (!ok)
      fail(CA_EINVAL, "could not broadcast input array from shape ", shape_str(v->shape, true), " into shape ",
           shape_str(p.target, true));
    if (v->dtype != a->dtype) v = elementwise_astype(v, a->dtype);
  } else {
    sbytes = scalar_bytes(*scalar, a->dtype);
  }
  for (Index t : p.target)
    if (t == 0) return a;  // nothing selected

  Tokenizer tok("setitem");
  tok.add(*a);
  for (int32_t d = 0; d < nd; ++d) tok.add(int64_t(p.integer[size_t(d)])).add(p.sl[size_t(d)].start).add(p.sl[size_t(d)].step).add(p.sl[size_t(d)].len);
  tok.add(p.list_axis).add(p.list);
  if (v) tok.add(*v);
  else tok.add_bytes(sbytes.data(), sbytes.size());
  const std::string name = tok.name();

  auto offs = chunk_offsets(a->chunks);
  std::vector<std::vector<Index>> voffs;
  if (v) voffs = chunk_offsets(v->chunks);
  auto layer = std::make_shared<MaterializedLayer>(name, nd);
  const int32_t nt = int32_t(p.target.size());
  const int32_t nv = v ? v->ndim() : 0;
  std::vector<int64_t> spec;
  for_each_index(a->numblocks, [&](const std::vector<Index> &bi) {
    ca_arg_t key = ca_arg_key(a->name.c_str(), bi.data(), nd);
    spec.assign(1, nd);
    std::vector<Index> k0s, k1s;  // per target axis
    bool hit = true;
    std::vector<int64_t> listinfo;  // (axis, n, local positions..., box offsets...)
    for (int32_t d = 0; d < nd; ++d) {
      Index b0 = offs[size_t(d)][size_t(bi[size_t(d)])], b1 = b0 + a->chunks[size_t(d)][size_t(bi[size_t(d)])];
      Index k0, k1, ls;
      if (d == p.list_axis) {
        // the list entries inside this block; the value box spans their k-range
        std::vector<Index> pos, ks;
        for (size_t k = 0; k < p.list.size(); ++k)
          if (p.list[k] >= b0 && p.list[k] < b1) {
            pos.push_back(p.list[k] - b0);
            ks.push_back(Index(k));
          }
        k0 = ks.empty() ? 0 : ks.front();
        k1 = ks.empty() ? 0 : ks.back() + 1;
        listinfo = {d, Index(pos.size())};
        listinfo.insert(listinfo.end(), pos.begin(), pos.end());
        for (Index k : ks) listinfo.push_back(k - k0);
        if (ks.empty()) hit = false;
        spec.push_back(0);
        spec.push_back(1);
        spec.push_back(-3);
        k0s.push_back(k0);
        k1s.push_back(k1);
        continue;
      }
      block_range(p.sl[size_t(d)], p.integer[size_t(d)], b0, b1, k0, k1, ls);
      if (k1 <= k0) hit = false;
      spec.push_back(ls);
      spec.push_back(p.sl[size_t(d)].step);
      spec.push_back(p.integer[size_t(d)] ? -1 : k1 - k0);
      if (!p.integer[size_t(d)]) {
        k0s.push_back(k0);
        k1s.push_back(k1);
      }
    }
    if (!hit) {
      layer->add_task(bi.data(), "ca.identity", &key, 1);
      return;
    }
    const ca_arg_t list_arg = ca_arg_tuple(listinfo.data(), listinfo.size());
    if (!v) {
      ca_arg_t args[4] = {key, ca_arg_tuple(spec.data(), spec.size()), ca_arg_bytes(sbytes.data(), sbytes.size()),
                          list_arg};
      layer->add_task(bi.data(), "ca.setitem", args, listinfo.empty() ? 3 : 4);
      return;
    }
    // The value box for this block and the value blocks covering it.
    std::vector<Index> box(static_cast<size_t>(nv)), lo(static_cast<size_t>(nv)), hi(static_cast<size_t>(nv));
    std::vector<std::vector<Index>> vblocks(static_cast<size_t>(nv));
    for (int32_t e = 0; e < nv; ++e) {
      int32_t t = e + nt - nv;
      bool bc = v->shape[size_t(e)] == 1 && p.target[size_t(t)] != 1;
      lo[size_t(e)] = bc ? 0 : k0s[size_t(t)];
      hi[size_t(e)] = bc ? 1 : k1s[size_t(t)];
      box[size_t(e)] = hi[size_t(e)] - lo[size_t(e)];
      for (size_t j = 0; j < v->chunks[size_t(e)].size(); ++j) {
        Index s0 = voffs[size_t(e)][j], s1 = s0 + v->chunks[size_t(e)][j];
        if (s1 > lo[size_t(e)] && s0 < hi[size_t(e)]) vblocks[size_t(e)].push_back(Index(j));
      }
    }
    std::vector<Index> vcounts;
    for (auto &vb : vblocks) vcounts.push_back(Index(vb.size()));
    std::vector<std::vector<Index>> vkeys;
    std::vector<std::vector<int64_t>> geoms;
    for_each_index(vcounts, [&](const std::vector<Index> &vi) {
      std::vector<Index> vk(static_cast<size_t>(nv)), src(static_cast<size_t>(nv)), dst(static_cast<size_t>(nv)), len(static_cast<size_t>(nv));
      for (int32_t e = 0; e < nv; ++e) {
        Index j = vblocks[size_t(e)][size_t(vi[size_t(e)])];
        Index s0 = voffs[size_t(e)][size_t(j)], s1 = s0 + v->chunks[size_t(e)][size_t(j)];
        Index from = std::max(s0, lo[size_t(e)]), to = std::min(s1, hi[size_t(e)]);
        vk[size_t(e)] = j;
        src[size_t(e)] = from - s0;
        dst[size_t(e)] = from - lo[size_t(e)];
        len[size_t(e)] = to - from;
      }
      vkeys.push_back(vk);
      std::vector<int64_t> gm = src;
      gm.insert(gm.end(), dst.begin(), dst.end());
      gm.insert(gm.end(), len.begin(), len.end());
      geoms.push_back(gm);
    });
    std::vector<ca_arg_t> items;
    for (size_t i = 0; i < vkeys.size(); ++i) {
      items.push_back(ca_arg_key(v->name.c_str(), vkeys[i].data(), nv));
      items.push_back(ca_arg_tuple(geoms[i].data(), geoms[i].size()));
    }
    ca_arg_t args[5] = {key, ca_arg_tuple(spec.data(), spec.size()), ca_arg_tuple(box.data(), box.size()),
                        ca_arg_list(items.data(), items.size()), list_arg};
    layer->add_task(bi.data(), "ca.setitem", args, listinfo.empty() ? 4 : 5);
  });
  auto g = v ? merge_graphs({a, v}) : std::make_shared<Graph>(*a->graph);
  g->add_layer(layer);
  return array_from_layer(g, name, a->chunks, a->dtype);
}

}  // namespace

ArrayPtr setitem(const ArrayPtr &a, const std::vector<IndexItem> &index, const ArrayPtr &value) {
  return setitem_impl(a, index, &value, nullptr);
}

ArrayPtr setitem_scalar(const ArrayPtr &a, const std::vector<IndexItem> &index, const ca_scalar_t &value) {
  return setitem_impl(a, index, nullptr, &value);
}

ArrayPtr mask_set(const ArrayPtr &a, const ArrayPtr &mask, const ca_scalar_t &value) {
  CA_CHECK(a, CA_EINVAL, "mask_set: array is NULL");
  check_mask(mask, "mask_set");
  if (mask->ndim() != a->ndim() || mask->shape != a->shape)
    fail(CA_EINVAL, "boolean index did not match indexed array: array shape ", shape_str(a->shape, true), ", mask shape ",
         shape_str(mask->shape, true));
  scalar_bytes(value, a->dtype);  // NumPy's conversion errors (NaN into integers, ...)
  ArrayPtr r = elementwise_where(mask, nullptr, a, value, ca_scalar_t{});
  if (r->dtype != a->dtype) r = elementwise_astype(r, a->dtype);
  return r;
}

}  // namespace ca
