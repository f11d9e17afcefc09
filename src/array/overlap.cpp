#include "array/overlap.hpp"

#include <algorithm>
#include <cstring>

#include "core/checked.hpp"


namespace ca {

// ------------------------------------------------------------------------------------------------
// ensure_minimum_chunksize (dask's, line for line)

std::vector<Index> ensure_minimum_chunksize(Index size, const std::vector<Index> &chunks) {
  CA_CHECK(!chunks.empty(), CA_EINVAL, "ensure_minimum_chunksize: no chunks");
  if (size <= *std::min_element(chunks.begin(), chunks.end())) return chunks;
  std::vector<Index> output;
  Index nw = 0;
  for (Index c : chunks) {
    if (c < size) {
      if (nw > size + (size - c)) {
        output.push_back(nw - (size - c));
        nw = size;
      } else {
        nw += c;
      }
    }
    if (nw >= size) {
      output.push_back(nw);
      nw = 0;
    }
    if (c >= size) nw += c;
  }
  if (nw >= size) {
    output.push_back(nw);
  } else if (!output.empty()) {
    output.back() += nw;
  } else {
    Index total = 0;
    for (Index c : chunks) total += c;
    fail(CA_EINVAL, "The overlapping depth ", size, " is larger than your array ", total, ".");
  }
  return output;
}

namespace {

// Extended chunks along one axis (dask's _overlap_internal_chunks after the boundary trim).
std::vector<Index> extended_chunks(const std::vector<Index> &c, Index lo, Index hi, int32_t kind) {
  std::vector<Index> out(c.size());
  size_t n = c.size();
  for (size_t j = 0; j < n; ++j) {
    bool first = j == 0, last = j + 1 == n;
    Index l = (lo > 0 && (!first || kind != CA_BOUNDARY_NONE)) ? lo : 0;
    Index h = (hi > 0 && (!last || kind != CA_BOUNDARY_NONE)) ? hi : 0;
    out[j] = l + c[j] + h;
  }
  return out;
}

}  // namespace


// ------------------------------------------------------------------------------------------------
// overlap / trim_internal

ArrayPtr overlap(const ArrayPtr &x, const Depth &depth, const std::vector<BoundarySpec> &boundary,
                 bool allow_rechunk) {
  CA_CHECK(x, CA_EINVAL, "overlap: array is NULL");
  int32_t nd = x->ndim();
  check_overlap_spec(depth, boundary, nd, "overlap");
  Chunks want = x->chunks;
  bool any = false;
  for (int32_t d = 0; d < nd; ++d) {
    Index need = std::max(depth.lo[size_t(d)], depth.hi[size_t(d)]);
    any = any || need > 0;
    if (need == 0) continue;
    const auto &c = x->chunks[size_t(d)];
    if (need > x->shape[size_t(d)])
      fail(CA_EINVAL, "overlap: the overlapping depth ", need, " along axis ", d, " is larger than the array's extent ",
           x->shape[size_t(d)]);
    Index smallest = *std::min_element(c.begin(), c.end());
    if (allow_rechunk) {
      want[size_t(d)] = ensure_minimum_chunksize(need, c);
    } else if (smallest < need) {
      fail(CA_EINVAL, "overlap: depth ", need, " along axis ", d, " is larger than the smallest chunk ", smallest,
           " (chunks ", chunks_str({c}), "); rechunk, or allow rechunking (allow_rechunk)");
    }
  }
  int32_t active = 0;
  for (int32_t d = 0; d < nd; ++d) active += (depth.lo[size_t(d)] > 0 || depth.hi[size_t(d)] > 0) ? 1 : 0;
  // Each task references 3^active neighbours (dask's as well): keep that list bounded.
  CA_CHECK(active <= kMaxOverlapAxes, CA_EUNSUPPORTED, "overlap: ", active, " overlapped axes (each block would reference 3^",
           active, " neighbours); at most ", kMaxOverlapAxes, " are supported");
  ArrayPtr x1 = want == x->chunks ? x : rechunk(x, want);
  if (!any) return x1;
  Chunks out_chunks;
  for (int32_t d = 0; d < nd; ++d)
    out_chunks.push_back(extended_chunks(x1->chunks[size_t(d)], depth.lo[size_t(d)], depth.hi[size_t(d)],
                                         boundary[size_t(d)].kind));
  Tokenizer tok("overlap");
  tok.add(*x1).add(depth.lo).add(depth.hi);
  for (auto &b : boundary) tok.add(int64_t(b.kind)).add(b.value);
  std::string name = tok.name();
  auto g = std::make_shared<Graph>(*x1->graph);
  g->add_layer(make_overlap_layer(name, OverlapLayerSpec{x1->name, x1->chunks, depth, boundary}));
  return array_from_layer(g, name, out_chunks, x1->dtype);
}

ArrayPtr trim_internal(const ArrayPtr &x, const Depth &depth, const std::vector<BoundarySpec> &boundary) {
  CA_CHECK(x, CA_EINVAL, "trim_internal: array is NULL");
  int32_t nd = x->ndim();
  check_overlap_spec(depth, boundary, nd, "trim_internal");
  Chunks out_chunks;
  std::vector<int64_t> geom;  // per axis: lo, hi, numblocks, boundary is none
  bool any = false;
  for (int32_t d = 0; d < nd; ++d) {
    const auto &c = x->chunks[size_t(d)];
    Index lo = depth.lo[size_t(d)], hi = depth.hi[size_t(d)];
    bool none = boundary[size_t(d)].kind == CA_BOUNDARY_NONE;
    any = any || lo > 0 || hi > 0;
    std::vector<Index> oc;
    for (size_t j = 0; j < c.size(); ++j) {
      Index v = c[j];
      if (!none || j != 0) v -= lo;
      if (!none || j + 1 != c.size()) v -= hi;
      if (v < 0)
        fail(CA_EINVAL, "trim_internal: block ", j, " along axis ", d, " has extent ", c[j],
             ", less than the depth trimmed from it (", lo, " before, ", hi, " after)");
      oc.push_back(v);
    }
    out_chunks.push_back(std::move(oc));
    geom.insert(geom.end(), {lo, hi, Index(c.size()), none ? 1 : 0});
  }
  if (!any) return x;
  Tokenizer tok("trim");
  tok.add(*x).add(depth.lo).add(depth.hi);
  for (auto &b : boundary) tok.add(int64_t(b.kind));
  std::string name = tok.name();
  BlockwiseArg in;
  in.is_ref = true;
  in.dep_slot = 0;
  for (int32_t d = 0; d < nd; ++d) {
    DimMap m;
    m.kind = DimMap::Out;
    m.out_dim = d;
    m.extent = x->numblocks[size_t(d)];
    in.dims.push_back(m);
  }
  std::vector<BlockwiseArg> args;
  args.push_back(std::move(in));
  BlockwiseArg idx;
  idx.special = BlockwiseArg::BlockIndex;
  idx.block_index = true;
  args.push_back(idx);
  args.push_back(blockwise_literal(ca_arg_tuple(geom.data(), geom.size())));
  auto g = std::make_shared<Graph>(*x->graph);
  g->add_layer(std::make_shared<BlockwiseLayer>(name, out_chunks, "ca.overlap_trim", std::vector<std::string>{x->name},
                                                std::move(args)));
  return array_from_layer(g, name, out_chunks, x->dtype);
}

// ------------------------------------------------------------------------------------------------
// map_overlap

ArrayPtr map_overlap(const std::string &kernel, const std::vector<ArrayPtr> &arrays0, const Depth &depth,
                     const std::vector<BoundarySpec> &boundary, const std::vector<ca_arg_t> &extra,
                     const MapOverlapOptions &opts) {
  CA_CHECK(!kernel.empty(), CA_EINVAL, "map_overlap: kernel name is empty");
  CA_CHECK(!arrays0.empty(), CA_EINVAL, "map_overlap: at least one array is needed");
  int32_t nd = 0;
  for (size_t i = 0; i < arrays0.size(); ++i) {
    CA_CHECK(arrays0[i], CA_EINVAL, "map_overlap: array ", i, " is NULL");
    nd = std::max(nd, arrays0[i]->ndim());
  }
  check_overlap_spec(depth, boundary, nd, "map_overlap");
  static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  std::string all(letters, size_t(nd));
  std::vector<ArrayPtr> arrays = arrays0;
  std::vector<std::string> inds;
  for (auto &a : arrays) inds.push_back(all.substr(size_t(nd - a->ndim())));
  if (opts.align_arrays) arrays = unify_chunks(arrays, inds);
  // Each input's own depth/boundary: the trailing entries.
  auto sub = [&](const ArrayPtr &a, Depth &d, std::vector<BoundarySpec> &b) {
    size_t skip = size_t(nd - a->ndim());
    d.lo.assign(depth.lo.begin() + long(skip), depth.lo.end());
    d.hi.assign(depth.hi.begin() + long(skip), depth.hi.end());
    b.assign(boundary.begin() + long(skip), boundary.end());
  };
  bool any = false;  // the highest-rank input has every axis: any depth counts
  for (int32_t k = 0; k < nd; ++k) any = any || depth.lo[size_t(k)] > 0 || depth.hi[size_t(k)] > 0;
  DType dt = opts.dtype != CA_DTYPE_INVALID ? opts.dtype : arrays[0]->dtype;
  CA_CHECK(dtype_valid(dt) && dt != CA_RAW, CA_ETYPE, "map_overlap: invalid dtype ", dt);
  std::string prefix = opts.name.empty() ? kernel : opts.name;
  // The highest-rank input (first among equals) decides the trim and, without trim, the chunks.
  size_t top = 0;
  for (size_t i = 0; i < arrays.size(); ++i)
    if (arrays[i]->ndim() > arrays[top]->ndim()) top = i;
  std::vector<ArrayArg> args;
  Chunks chunks_holder;
  const Chunks *chunks = opts.chunks;
  for (size_t i = 0; i < arrays.size(); ++i) {
    Depth d;
    std::vector<BoundarySpec> b;
    sub(arrays[i], d, b);
    ArrayPtr x = arrays[i];
    if (any) {
      if (!opts.trim && !chunks && i == top) {
        // The kernel trims itself: its blocks are the (minimum-size rechunked) input blocks.
        ArrayPtr ov = overlap(x, d, b, opts.allow_rechunk);
        Chunks c = x->chunks;
        for (int32_t k = 0; k < x->ndim(); ++k) {
          Index need = std::max(d.lo[size_t(k)], d.hi[size_t(k)]);
          if (need > 0 && opts.allow_rechunk) c[size_t(k)] = ensure_minimum_chunksize(need, c[size_t(k)]);
        }
        chunks_holder = c;
        chunks = &chunks_holder;
        x = ov;
      } else {
        x = overlap(x, d, b, opts.allow_rechunk);
      }
    }
    args.push_back(ArrayArg::of(x, inds[i]));
  }
  for (auto &e : extra) args.push_back(ArrayArg::lit(e));
  if (opts.block_info) {
    args.push_back(ArrayArg::special(BlockwiseArg::BlockIndex));
    args.push_back(ArrayArg::special(BlockwiseArg::BlockOrigin));
  }
  ArrayPtr y = blockwise(prefix, kernel, all, std::move(args), dt, {}, chunks, true);
  if (!any || !opts.trim) return y;
  // The trim uses the highest-rank input's depth and boundary: all nd axes.
  return trim_internal(y, depth, boundary);
}


ArrayPtr sliding_window_view(const ArrayPtr &x0, const std::vector<Index> &window_shape,
                             const std::vector<int64_t> &axis0) {
  CA_CHECK(x0, CA_EINVAL, "sliding_window_view: array is NULL");
  const int32_t nd = x0->ndim();
  std::vector<int64_t> axis = axis0;
  if (axis.empty()) {
    CA_CHECK(Index(window_shape.size()) == nd, CA_EINVAL, "sliding_window_view: since axis is None, window_shape must ",
             "have the same length as the array's number of dimensions (", nd, "), got ", window_shape.size());
    for (int32_t d = 0; d < nd; ++d) axis.push_back(d);
  }
  CA_CHECK(axis.size() == window_shape.size(), CA_EINVAL, "sliding_window_view: must provide matching length ",
           "window_shape and axis; got ", window_shape.size(), " window_shape elements and ", axis.size(),
           " axes elements");
  require_known_chunks(*x0, "sliding_window_view");
  std::vector<Index> depth(size_t(nd), 0);
  for (size_t j = 0; j < axis.size(); ++j) {
    CA_CHECK(axis[j] >= -nd && axis[j] < nd, CA_EINVAL, "sliding_window_view: axis ", axis[j],
             " is out of bounds for array of dimension ", nd);
    if (axis[j] < 0) axis[j] += nd;
    CA_CHECK(window_shape[j] >= 0, CA_EINVAL, "sliding_window_view: `window_shape` cannot contain negative values");
    CA_CHECK(window_shape[j] >= 1, CA_EINVAL, "sliding_window_view: a window of extent 0 (axis ", axis[j],
             ") is not supported");
    depth[size_t(axis[j])] += window_shape[j] - 1;
  }
  for (int32_t d = 0; d < nd; ++d)
    CA_CHECK(depth[size_t(d)] < x0->shape[size_t(d)] || depth[size_t(d)] == 0, CA_EINVAL,
             "sliding_window_view: window shape cannot be larger than input array shape (axis ", d, ": windows of ",
             depth[size_t(d)] + 1, " elements over ", x0->shape[size_t(d)], ")");
  // dask: every block must leave at least one element after windowing.
  ArrayPtr x = x0;
  {
    Chunks safe = x->chunks;
    for (int32_t d = 0; d < nd; ++d)
      if (x->shape[size_t(d)] > 0) safe[size_t(d)] = ensure_minimum_chunksize(depth[size_t(d)] + 1, safe[size_t(d)]);
    if (safe != x->chunks) x = rechunk(x, safe);
  }
  Chunks out_chunks = x->chunks;
  for (int32_t d = 0; d < nd; ++d) out_chunks[size_t(d)].back() -= depth[size_t(d)];
  for (Index w : window_shape) out_chunks.push_back({w});
  Depth dp;
  dp.lo.assign(size_t(nd), 0);
  dp.hi = depth;
  std::vector<BoundarySpec> none(static_cast<size_t>(nd));
  bool any = false;
  for (Index v : depth) any = any || v > 0;
  ArrayPtr ov = any ? overlap(x, dp, none, false) : x;
  std::vector<int64_t> w(window_shape.begin(), window_shape.end());
  Tokenizer tok("sliding_window_view");
  tok.add(*ov).add(std::vector<Index>(w.begin(), w.end())).add(std::vector<Index>(axis.begin(), axis.end()));
  const std::string name = tok.name();
  // One task per block: its overlapped block's windows (the window axes have one block each).
  const int32_t ond = int32_t(out_chunks.size());
  auto layer = std::make_shared<MaterializedLayer>(name, ond);
  std::vector<Index> key(size_t(ond), 0), idx(size_t(nd), 0);
  const Index total = blocks_product(x->numblocks.data(), x->numblocks.size(), "sliding_window_view");
  for (Index lin = 0; lin < total; ++lin) {
    Index r = lin;
    for (int32_t d = nd - 1; d >= 0; --d) {
      idx[size_t(d)] = r % x->numblocks[size_t(d)];
      r /= x->numblocks[size_t(d)];
    }
    std::copy(idx.begin(), idx.end(), key.begin());
    ca_arg_t args[3] = {ca_arg_key(ov->name.c_str(), idx.data(), nd), ca_arg_tuple(w.data(), w.size()),
                        ca_arg_tuple(axis.data(), axis.size())};
    layer->add_task(key.data(), "ca.sliding_window", args, 3);
  }
  auto g = std::make_shared<Graph>(*ov->graph);
  g->add_layer(layer);
  return array_from_layer(g, name, out_chunks, x->dtype);
}

}  // namespace ca
