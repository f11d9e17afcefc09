// Shape operations: dask.array's chunk rules, NumPy's values. See shape.hpp.
#include "array/shape.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>

#include "array/create.hpp"
#include "array/expr.hpp"
#include "core/checked.hpp"
#include "graph/index_map.hpp"

namespace ca {

namespace {

char letter(size_t i) { return i < 26 ? char('a' + i) : char('A' + (i - 26)); }

std::string letters(size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i) s += letter(i);
  return s;
}

const ArrayPtr &not_null(const ArrayPtr &a, const char *what) {
  CA_CHECK(a, CA_EINVAL, what, ": array is NULL");
  return a;
}

Index prod(const std::vector<Index> &v, size_t lo, size_t hi) {
  Index p = 1;
  for (size_t i = lo; i < hi; ++i) p *= v[i];
  return p;
}

template <class F>
void for_each_block(const std::vector<Index> &nb, F &&f) {
  const Index total = blocks_product(nb.data(), nb.size(), "the result");
  std::vector<Index> idx(nb.size(), 0);
  for (Index lin = 0; lin < total; ++lin) {
    f(idx.data());
    for (size_t d = nb.size(); d-- > 0;) {
      if (++idx[d] < nb[d]) break;
      idx[d] = 0;
    }
  }
}


ArrayPtr finish(const std::vector<ArrayPtr> &inputs, LayerPtr layer, const std::string &name, Chunks chunks,
                DType dtype) {
  auto g = merge_graphs(inputs);
  g->add_layer(std::move(layer));
  return array_from_layer(g, name, std::move(chunks), dtype);
}

std::vector<int32_t> normalize_axes(const std::vector<int64_t> &axes, int32_t ndim, const char *what) {
  std::vector<int32_t> r;
  std::vector<bool> seen(size_t(ndim), false);
  for (int64_t ax : axes) {
    int32_t a = normalize_axis(ax, ndim, what);
    CA_CHECK(!seen[size_t(a)], CA_EINVAL, what, ": repeated axis ", ax);
    seen[size_t(a)] = true;
    r.push_back(a);
  }
  return r;
}

// The array of an index-map layer (graph/index_map.hpp) over `inputs` (repeated names share a
// dependency slot; a segment's `input` is the position in `inputs`, remapped here).
ArrayPtr index_map_array(const std::string &name, const std::vector<ArrayPtr> &inputs, IndexMapSpec spec,
                         Chunks chunks, DType dtype) {
  std::vector<int32_t> slot(inputs.size());
  for (size_t k = 0; k < inputs.size(); ++k) {
    auto it = std::find(spec.inputs.begin(), spec.inputs.end(), inputs[k]->name);
    slot[k] = int32_t(it - spec.inputs.begin());
    if (it == spec.inputs.end()) spec.inputs.push_back(inputs[k]->name);
  }
  if (spec.select_axis >= 0)
    for (auto &u : spec.runs[size_t(spec.select_axis)]) u.input = slot[size_t(u.input)];
  LayerPtr layer = make_index_map_layer(name, std::move(spec));
  return finish(inputs, layer, name, std::move(chunks), dtype);
}

// The index of chunk table `chunks` in sp.tables (an equal table already there is shared).
int32_t table_of(IndexMapSpec &sp, const std::vector<Index> &chunks) {
  for (size_t t = 0; t < sp.tables.size(); ++t)
    if (*sp.tables[t] == chunks) return int32_t(t);
  sp.tables.push_back(std::make_shared<const std::vector<Index>>(chunks));
  return int32_t(sp.tables.size() - 1);
}

// One run of whole blocks along an axis with these chunks (output block j: input block j, count
// chunks[j], from the chunk table).
IndexMapRun whole_run(IndexMapSpec &sp, const std::vector<Index> &chunks) {
  IndexMapRun u;
  u.table = table_of(sp, chunks);
  u.n = Index(chunks.size());
  return u;
}

// A blockwise layer whose kernel gets the input block and the output block's shape.
ArrayPtr reshape_blockwise(const std::string &name, const ArrayPtr &a, const std::vector<DimMap> &maps,
                           const Chunks &out_chunks) {
  BlockwiseArg ref;
  ref.is_ref = true;
  ref.dep_slot = 0;
  ref.dims = maps;
  BlockwiseArg shp;
  shp.special = BlockwiseArg::BlockShape;
  std::vector<BlockwiseArg> args{ref, shp};
  auto layer = std::make_shared<BlockwiseLayer>(name, out_chunks, "ca.shape.reshape", std::vector<std::string>{a->name},
                                                std::move(args));
  return finish({a}, layer, name, out_chunks, a->dtype);
}

// ---- Python-slice helpers for the reshape_rechunk port ----
Index py_index(Index i, size_t n) { return i < 0 ? i + Index(n) : i; }
// reduce(mul, v[lo:hi]) with Python slice semantics; false if the slice is empty (reduce raises).
bool py_slice_prod(const std::vector<Index> &v, Index lo, Index hi, Index *out) {
  Index n = Index(v.size());
  auto norm = [n](Index x) { return x < 0 ? std::max<Index>(x + n, 0) : std::min(x, n); };
  lo = norm(lo);
  hi = norm(hi);
  if (hi <= lo) return false;
  Index p = 1;
  for (Index i = lo; i < hi; ++i) p *= v[size_t(i)];
  *out = p;
  return true;
}

}  // namespace

std::vector<Index> expand_tuple(const std::vector<Index> &chunks, Index factor) {
  if (factor == 1) return chunks;
  std::vector<Index> out;
  for (Index c : chunks) {
    Index x = c;
    double part = std::max(double(x) / double(factor), 1.0);
    while (double(x) >= 2 * part) {
      out.push_back(Index(part));
      x -= Index(part);
    }
    if (x) out.push_back(x);
  }
  return out;
}

namespace {

std::vector<Index> contract_tuple(const std::vector<Index> &chunks, Index factor) {
  std::vector<Index> out;
  Index residual = 0;
  for (Index c : chunks) {
    c += residual;
    Index div = c / factor;
    residual = c % factor;
    if (factor * div != 0) out.push_back(factor * div);
  }
  return out;
}

[[noreturn]] void reshape_unsupported(const std::vector<Index> &in, const std::vector<Index> &out) {
  fail(CA_EINVAL, "reshape from ", shape_str(in), " to ", shape_str(out),
       " is not supported: only reshapes that merge or split existing dimensions evenly are (dask's rule); "
       "reshape in several steps");
}

Chunks concat_chunks_of(const std::vector<ArrayPtr> &seq, int32_t axis) {
  Chunks c = seq[0]->chunks;
  c[size_t(axis)].clear();
  for (auto &a : seq) c[size_t(axis)].insert(c[size_t(axis)].end(), a->chunks[size_t(axis)].begin(),
                                             a->chunks[size_t(axis)].end());
  return c;
}

// One index-map layer: output block along the axis -> (input k, its block), whole blocks. Inputs
// already unified on the other axes. At most kGroup inputs per layer (a layer's dependency list
// stays short).
constexpr size_t kGroup = 64;

ArrayPtr concat_layer(const std::vector<ArrayPtr> &seq, int32_t axis) {
  if (seq.size() == 1) return seq[0];
  if (seq.size() > kGroup) {
    std::vector<ArrayPtr> groups;
    for (size_t i = 0; i < seq.size(); i += kGroup)
      groups.push_back(concat_layer(std::vector<ArrayPtr>(seq.begin() + long(i),
                                                          seq.begin() + long(std::min(seq.size(), i + kGroup))),
                                    axis));
    return concat_layer(groups, axis);
  }
  Tokenizer tok("concatenate");
  for (auto &a : seq) tok.add(*a);
  tok.add(int64_t(axis));
  std::string name = tok.name();
  Chunks chunks = concat_chunks_of(seq, axis);
  (void)blocks_product(numblocks_of(chunks).data(), chunks.size(), "concatenate: the result");
  IndexMapSpec sp;
  sp.select_axis = axis;
  for (size_t d = 0; d < chunks.size(); ++d) {
    if (int32_t(d) != axis) {
      sp.runs.push_back({whole_run(sp, chunks[d])});
      continue;
    }
    // One run per input: its whole blocks in order.
    std::vector<IndexMapRun> runs;
    for (size_t k = 0; k < seq.size(); ++k) {
      runs.push_back(whole_run(sp, seq[k]->chunks[d]));
      runs.back().input = int32_t(k);
    }
    sp.runs.push_back(std::move(runs));
  }
  return index_map_array(name, seq, std::move(sp), chunks, seq[0]->dtype);
}

// dask's unify_chunks for arrays of one shape on the axes other than `skip` (-1: none).
std::vector<ArrayPtr> unify_except(std::vector<ArrayPtr> seq, int32_t skip) {
  int32_t nd = seq[0]->ndim();
  for (int32_t d = 0; d < nd; ++d) {
    if (d == skip) continue;
    std::vector<std::vector<Index>> dims;
    bool same = true;
    for (auto &a : seq) {
      dims.push_back(a->chunks[size_t(d)]);
      same = same && dims.back() == dims.front();
    }
    if (same) continue;  // nothing to unify (also for unknown sizes: dask stacks x[m] with itself)
    Index ext = seq[0]->shape[size_t(d)];
    std::vector<Index> common = ext <= 1 ? std::vector<Index>{ext} : common_blockdim(dims);
    for (auto &a : seq)
      if (a->chunks[size_t(d)] != common) {
        Chunks c = a->chunks;
        c[size_t(d)] = common;
        a = rechunk(a, c);
      }
  }
  return seq;
}

DType promote_all(const std::vector<ArrayPtr> &seq) {
  DType dt = seq[0]->dtype;
  for (size_t i = 1; i < seq.size(); ++i) dt = dtype_promote(dt, seq[i]->dtype);
  return dt;
}

std::string scalar_bytes(DType dt, const ca_scalar_t &v) {
  std::string out(dtype_size(dt), '\0');
  store_scalar(scalar_value(v), dt, out.data(), true);
  return out;
}

}  // namespace

int32_t normalize_axis(int64_t axis, int32_t ndim, const char *what) {
  CA_CHECK(axis >= -int64_t(ndim) && axis < int64_t(ndim), CA_EINVAL, what, ": axis ", axis,
           " is out of bounds for an array of dimension ", ndim);
  return int32_t(axis < 0 ? axis + ndim : axis);
}

// ------------------------------------------------------------------------------------------------
// reshape

std::pair<Chunks, Chunks> reshape_rechunk(const std::vector<Index> &inshape, const std::vector<Index> &outshape,
                                          const Chunks &inchunks) {
  Index ii = Index(inshape.size()) - 1, oi = Index(outshape.size()) - 1;
  size_t nin = inshape.size(), nout = outshape.size();
  std::vector<std::vector<Index>> rin(nin), rout(nout);
  std::vector<bool> in_set(nin, false), out_set(nout, false);
  auto set_in = [&](Index i, std::vector<Index> v) {
    size_t k = size_t(py_index(i, nin));
    rin[k] = std::move(v);
    in_set[k] = true;
  };
  auto set_out = [&](Index i, std::vector<Index> v) {
    size_t k = size_t(py_index(i, nout));
    rout[k] = std::move(v);
    out_set[k] = true;
  };
  while (ii >= 0 || oi >= 0) {
    if ((ii < 0 && nin == 0) || (oi < 0 && nout == 0)) reshape_unsupported(inshape, outshape);
    Index din = inshape[size_t(py_index(ii, nin))], dout = outshape[size_t(py_index(oi, nout))];
    if (din == dout) {
      set_in(ii, inchunks[size_t(py_index(ii, nin))]);
      set_out(oi, inchunks[size_t(py_index(ii, nin))]);
      --ii;
      --oi;
      continue;
    }
    if (din == 1) {
      set_in(ii, {1});
      --ii;
    } else if (dout == 1) {
      set_out(oi, {1});
      --oi;
    } else if (din < dout) {
      Index ileft = ii - 1, p = 0;
      while (ileft >= 0 && py_slice_prod(inshape, ileft, ii + 1, &p) && p < dout) --ileft;
      if (!py_slice_prod(inshape, ileft, ii + 1, &p) || p != dout) reshape_unsupported(inshape, outshape);
      bool moving = true;
      for (Index i = 0; i < ii; ++i) moving = moving && Index(inchunks[size_t(i)].size()) == inshape[size_t(i)];
      if (moving) {
        for (Index i = 0; i <= ii; ++i) set_in(i, inchunks[size_t(i)]);
        Index reps = 1;
        {
          Index n = Index(nin);
          Index lo = ileft < 0 ? std::max<Index>(ileft + n, 0) : ileft, hi = ii;
          for (Index i = lo; i < hi; ++i) reps *= Index(inchunks[size_t(i)].size());
        }
        std::vector<Index> oc;
        for (Index r = 0; r < reps; ++r)
          oc.insert(oc.end(), inchunks[size_t(ii)].begin(), inchunks[size_t(ii)].end());
        set_out(oi, oc);
      } else {
        if (ileft < 0) reshape_unsupported(inshape, outshape);
        for (Index i = ileft + 1; i <= ii; ++i) set_in(i, {inshape[size_t(i)]});
        Index reduction = 1;
        for (Index i = ileft + 1; i <= ii; ++i) reduction *= Index(inchunks[size_t(i)].size());
        std::vector<Index> left = expand_tuple(inchunks[size_t(ileft)], reduction);
        set_in(ileft, left);
        Index pr = prod(inshape, size_t(ileft + 1), size_t(ii + 1));
        std::vector<Index> oc;
        for (Index c : left) oc.push_back(pr * c);
        set_out(oi, oc);
      }
      --oi;
      ii = ileft - 1;
    } else {
      Index oleft = oi - 1, p = 0;
      while (oleft >= 0 && py_slice_prod(outshape, oleft, oi + 1, &p) && p < din) --oleft;
      if (!py_slice_prod(outshape, oleft, oi + 1, &p) || p != din || oleft < 0) reshape_unsupported(inshape, outshape);
      Index cs = prod(outshape, size_t(oleft + 1), size_t(oi + 1));
      std::vector<Index> ic = contract_tuple(inchunks[size_t(py_index(ii, nin))], cs);
      set_in(ii, ic);
      for (Index i = oleft + 1; i <= oi; ++i) set_out(i, {outshape[size_t(i)]});
      std::vector<Index> oc;
      for (Index c : ic) oc.push_back(c / cs);
      set_out(oleft, oc);
      oi = oleft - 1;
      --ii;
    }
  }
  for (size_t i = 0; i < nin; ++i)
    if (!in_set[i]) reshape_unsupported(inshape, outshape);
  for (size_t i = 0; i < nout; ++i)
    if (!out_set[i]) reshape_unsupported(inshape, outshape);
  return {rin, rout};
}

ArrayPtr reshape(const ArrayPtr &a, std::vector<Index> shape) {
  not_null(a, "reshape");
  CA_CHECK(shape.size() <= CA_MAX_NDIM, CA_EINVAL, "reshape: ", shape.size(), " dimensions (at most ", CA_MAX_NDIM,
           ")");
  int unknown = -1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == -1) {
      CA_CHECK(unknown < 0, CA_EINVAL, "reshape: can only specify one unknown dimension");
      unknown = int(d);
    } else {
      CA_CHECK(shape[d] >= 0, CA_EINVAL, "reshape: extent ", shape[d], " of axis ", d, " is negative");
    }
  }
  Index known;  // the product of the given extents (checked: CA_EINVAL past 2^63-1)
  {
    std::vector<Index> given = shape;
    if (unknown >= 0) given[size_t(unknown)] = 1;
    known = shape_size(given);
  }
  Index size = a->size();
  if (unknown >= 0) {
    if (known == 0 || size % known != 0)
      fail(CA_EINVAL, "reshape: cannot reshape array of size ", size, " into shape ", shape_str(shape));
    shape[size_t(unknown)] = size / known;
    known *= shape[size_t(unknown)];
  }
  if (known != size) fail(CA_EINVAL, "reshape: cannot reshape array of size ", size, " into shape ", shape_str(shape));
  if (shape == a->shape) return a;
  std::string name = Tokenizer("reshape").add(*a).add(shape).name();
  if (a->nblocks() == 1 || size == 0) {
    // One block (dask's npartitions == 1 path; an empty array is merged into one block first).
    ArrayPtr a1 = a;
    if (a->nblocks() != 1) {
      Chunks one;
      for (Index s : a->shape) one.push_back({s});
      a1 = rechunk(a, one);
    }
    Chunks out;
    for (Index s : shape) out.push_back({s});
    std::vector<DimMap> maps(size_t(a1->ndim()));
    for (auto &m : maps) m.kind = DimMap::Const, m.value = 0, m.extent = 1;
    return reshape_blockwise(name, a1, maps, out);
  }
  require_known_chunks(*a, "reshape");  // as dask (one block of unknown size is fine: above)
  // Empty blocks (chunks (0, 1) after slicing) carry nothing: drop them so the block plan sees only
  // blocks with elements.
  Chunks nz = a->chunks;
  for (auto &c : nz)
    if (c.size() > 1) {
      c.erase(std::remove(c.begin(), c.end(), Index(0)), c.end());
      if (c.empty()) c.push_back(0);
    }
  auto [inchunks, outchunks] = reshape_rechunk(a->shape, shape, nz);
  ArrayPtr a2 = rechunk(a, inchunks);
  std::vector<Index> in_multi, out_multi;
  for (Index n : a2->numblocks)
    if (n > 1) in_multi.push_back(n);
  for (auto &c : outchunks)
    if (c.size() > 1) out_multi.push_back(Index(c.size()));
  if (in_multi == out_multi) {
    // Blocks keep their order dimension by dimension: one symbolic layer.
    std::vector<DimMap> maps;
    size_t od = 0;
    for (int32_t d = 0; d < a2->ndim(); ++d) {
      DimMap m;
      m.extent = a2->numblocks[size_t(d)];
      if (m.extent == 1) {
        m.kind = DimMap::Const;
        m.value = 0;
      } else {
        while (outchunks[od].size() == 1) ++od;
        m.kind = DimMap::Out;
        m.out_dim = int32_t(od++);
      }
      maps.push_back(m);
    }
    return reshape_blockwise(name, a2, maps, outchunks);
  }
  // Blocks move between dimensions (dask's special case): block k of the output in C order is block
  // k of the input.
  Index nout = 1;
  for (auto &c : outchunks) nout *= Index(c.size());
  CA_CHECK(nout == a2->nblocks(), CA_EINTERNAL, "reshape: ", nout, " output blocks for ", a2->nblocks(),
           " input blocks");
  auto layer = std::make_shared<MaterializedLayer>(name, int32_t(shape.size()));
  std::vector<Index> in(size_t(a2->ndim()), 0);
  std::vector<Index> bshape(shape.size());
  for_each_block(numblocks_of(outchunks), [&](const Index *idx) {
    for (size_t d = 0; d < shape.size(); ++d) bshape[d] = outchunks[d][size_t(idx[d])];
    ca_arg_t args[2] = {ca_arg_key(a2->name.c_str(), in.data(), a2->ndim()), ca_arg_tuple(bshape.data(), bshape.size())};
    layer->add_task(idx, "ca.shape.reshape", args, 2);
    for (size_t d = in.size(); d-- > 0;) {
      if (++in[d] < a2->numblocks[d]) break;
      in[d] = 0;
    }
  });
  return finish({a2}, layer, name, outchunks, a->dtype);
}

ArrayPtr ravel(const ArrayPtr &a) { return reshape(not_null(a, "ravel"), {-1}); }

// ------------------------------------------------------------------------------------------------
// transpose family

ArrayPtr transpose(const ArrayPtr &a, std::vector<int64_t> axes) {
  not_null(a, "transpose");
  int32_t nd = a->ndim();
  if (axes.empty())
    for (int32_t d = nd - 1; d >= 0; --d) axes.push_back(d);
  CA_CHECK(int32_t(axes.size()) == nd, CA_EINVAL, "transpose: axes don't match array: ", axes.size(),
           " axes for an array of dimension ", nd);
  std::vector<int32_t> ax = normalize_axes(axes, nd, "transpose");
  bool identity = true;
  for (int32_t d = 0; d < nd; ++d) identity = identity && ax[size_t(d)] == d;
  if (identity) return a;
  std::vector<int64_t> perm(ax.begin(), ax.end());
  std::string in_index = letters(static_cast<size_t>(nd)), out_index;
  Chunks chunks;
  for (int32_t d = 0; d < nd; ++d) {
    out_index += in_index[size_t(ax[size_t(d)])];
    chunks.push_back(a->chunks[size_t(ax[size_t(d)])]);
  }
  std::string name = Tokenizer("transpose").add(*a).add(std::vector<Index>(perm.begin(), perm.end())).name();
  return blockwise_layer(name, "ca.shape.transpose", out_index,
                         {ArrayArg::of(a, in_index), ArrayArg::lit(ca_arg_tuple(perm.data(), perm.size()))}, chunks,
                         a->dtype);
}

ArrayPtr moveaxis(const ArrayPtr &a, std::vector<int64_t> source, std::vector<int64_t> destination) {
  not_null(a, "moveaxis");
  int32_t nd = a->ndim();
  std::vector<int32_t> src = normalize_axes(source, nd, "moveaxis source");
  std::vector<int32_t> dst = normalize_axes(destination, nd, "moveaxis destination");
  CA_CHECK(src.size() == dst.size(), CA_EINVAL,
           "moveaxis: `source` and `destination` arguments must have the same number of elements (", src.size(),
           " and ", dst.size(), ")");
  std::vector<int64_t> order;
  for (int32_t n = 0; n < nd; ++n)
    if (std::find(src.begin(), src.end(), n) == src.end()) order.push_back(n);
  std::vector<std::pair<int32_t, int32_t>> pairs;
  for (size_t i = 0; i < src.size(); ++i) pairs.push_back({dst[i], src[i]});
  std::sort(pairs.begin(), pairs.end());
  for (auto &[d, s] : pairs) order.insert(order.begin() + d, s);
  return transpose(a, order);
}

ArrayPtr swapaxes(const ArrayPtr &a, int64_t axis1, int64_t axis2) {
  not_null(a, "swapaxes");
  int32_t nd = a->ndim();
  int32_t i = normalize_axis(axis1, nd, "swapaxes"), j = normalize_axis(axis2, nd, "swapaxes");
  if (i == j) return a;
  std::vector<int64_t> order(static_cast<size_t>(nd));
  std::iota(order.begin(), order.end(), 0);
  std::swap(order[size_t(i)], order[size_t(j)]);
  return transpose(a, order);
}

ArrayPtr squeeze(const ArrayPtr &a, std::vector<int64_t> axes, bool all) {
  not_null(a, "squeeze");
  int32_t nd = a->ndim();
  std::vector<bool> drop(size_t(nd), false);
  if (all) {
    for (int32_t d = 0; d < nd; ++d) drop[size_t(d)] = a->shape[size_t(d)] == 1;
  } else {
    for (int32_t d : normalize_axes(axes, nd, "squeeze")) {
      CA_CHECK(a->shape[size_t(d)] == 1, CA_EINVAL, "squeeze: cannot select an axis to squeeze out which has size "
               "not equal to one (axis ", d, " has extent ", a->shape[size_t(d)], ")");
      drop[size_t(d)] = true;
    }
  }
  if (std::find(drop.begin(), drop.end(), true) == drop.end()) return a;
  ArrayPtr a1 = a;
  {
    // Only the dropped axes may need a rechunk (a size-1 axis split as (0, 1, 0)); the others may be
    // of unknown size (dask squeezes x[mask][None]).
    Chunks c = a->chunks;
    bool change = false;
    for (int32_t d = 0; d < nd; ++d)
      if (drop[size_t(d)] && c[size_t(d)] != std::vector<Index>{1}) c[size_t(d)] = {1}, change = true;
    if (change) a1 = rechunk(a, c);
  }
  std::vector<DimMap> maps;
  Chunks out;
  for (int32_t d = 0; d < nd; ++d) {
    DimMap m;
    m.extent = a1->numblocks[size_t(d)];
    if (drop[size_t(d)]) {
      m.kind = DimMap::Const;
      m.value = 0;
    } else {
      m.kind = DimMap::Out;
      m.out_dim = int32_t(out.size());
      out.push_back(a1->chunks[size_t(d)]);
    }
    maps.push_back(m);
  }
  std::vector<Index> dropped;
  for (int32_t d = 0; d < nd; ++d)
    if (drop[size_t(d)]) dropped.push_back(d);
  return reshape_blockwise(Tokenizer("squeeze").add(*a1).add(dropped).name(), a1, maps, out);
}

ArrayPtr expand_dims(const ArrayPtr &a, std::vector<int64_t> axes) {
  not_null(a, "expand_dims");
  int32_t out_nd = a->ndim() + int32_t(axes.size());
  CA_CHECK(out_nd <= CA_MAX_NDIM, CA_EINVAL, "expand_dims: the result would have ", out_nd, " dimensions (at most ",
           CA_MAX_NDIM, ")");
  std::vector<int32_t> ax = normalize_axes(axes, out_nd, "expand_dims");
  if (ax.empty()) return a;
  std::vector<bool> is_new(size_t(out_nd), false);
  for (int32_t d : ax) is_new[size_t(d)] = true;
  Chunks out;
  std::vector<DimMap> maps;
  for (int32_t d = 0, k = 0; d < out_nd; ++d) {
    if (is_new[size_t(d)]) {
      out.push_back({1});
    } else {
      DimMap m;
      m.kind = DimMap::Out;
      m.out_dim = d;
      m.extent = a->numblocks[size_t(k)];
      maps.push_back(m);
      out.push_back(a->chunks[size_t(k++)]);
    }
  }
  std::vector<Index> axv(ax.begin(), ax.end());
  return reshape_blockwise(Tokenizer("expand_dims").add(*a).add(axv).name(), a, maps, out);
}

ArrayPtr broadcast_to(const ArrayPtr &a0, const std::vector<Index> &shape, const Chunks *chunks) {
  not_null(a0, "broadcast_to");
  ArrayPtr a = a0;
  if (a->shape == shape && (!chunks || *chunks == a->chunks)) return a;
  int32_t nd = int32_t(shape.size()), lead = nd - a->ndim();
  CA_CHECK(nd <= CA_MAX_NDIM, CA_EINVAL, "broadcast_to: ", nd, " dimensions (at most ", CA_MAX_NDIM, ")");
  bool ok = lead >= 0;
  for (Index s : shape) ok = ok && s >= 0;
  for (int32_t d = 0; ok && d < a->ndim(); ++d)
    ok = a->shape[size_t(d)] == 1 || a->shape[size_t(d)] == shape[size_t(d + lead)];
  if (!ok) fail(CA_EINVAL, "broadcast_to: cannot broadcast shape ", shape_str(a->shape), " to shape ", shape_str(shape));
  // Extent-1 dimensions as one block (they broadcast).
  {
    Chunks c = a->chunks;
    for (int32_t d = 0; d < a->ndim(); ++d)
      if (a->shape[size_t(d)] == 1) c[size_t(d)] = {1};
    a = rechunk(a, c);
  }
  Chunks out;
  if (!chunks) {
    for (int32_t d = 0; d < lead; ++d) out.push_back({shape[size_t(d)]});
    for (int32_t d = 0; d < a->ndim(); ++d)
      out.push_back(a->shape[size_t(d)] > 1 ? a->chunks[size_t(d)] : std::vector<Index>{shape[size_t(d + lead)]});
  } else {
    out = *chunks;
    CA_CHECK(int32_t(out.size()) == nd, CA_EINVAL, "broadcast_to: chunks have ", out.size(),
             " dimensions, the shape has ", nd);
    std::vector<Index> cs = chunks_shape(out);
    for (int32_t d = 0; d < nd; ++d)
      CA_CHECK(cs[size_t(d)] == shape[size_t(d)], CA_EINVAL, "broadcast_to: chunks along axis ", d, " sum to ",
               cs[size_t(d)], ", shape is ", shape[size_t(d)]);
    for (int32_t d = 0; d < a->ndim(); ++d)
      if (a->chunks[size_t(d)] != out[size_t(d + lead)] && a->chunks[size_t(d)] != std::vector<Index>{1})
        fail(CA_EINVAL, "broadcast_to: cannot broadcast chunks ", chunks_str(a->chunks), " to chunks ",
             chunks_str(out), ": new chunks must either be along a new dimension or a dimension of size 1");
  }
  std::string in_index, out_index = letters(static_cast<size_t>(nd));
  for (int32_t d = 0; d < a->ndim(); ++d) in_index += letter(static_cast<size_t>(d + lead));
  std::string name = Tokenizer("broadcast_to").add(*a).add(shape).add(out).name();
  return blockwise_layer(name, "ca.shape.broadcast", out_index,
                         {ArrayArg::of(a, in_index), ArrayArg::special(BlockwiseArg::BlockShape)}, out, a->dtype);
}

// ------------------------------------------------------------------------------------------------
// joining

ArrayPtr concatenate(std::vector<ArrayPtr> seq, int64_t axis0) {
  CA_CHECK(!seq.empty(), CA_EINVAL, "concatenate: need at least one array to concatenate");
  for (size_t i = 0; i < seq.size(); ++i) CA_CHECK(seq[i], CA_EINVAL, "concatenate: array ", i, " is NULL");
  int32_t nd = seq[0]->ndim();
  CA_CHECK(nd > 0, CA_EINVAL, "concatenate: zero-dimensional arrays cannot be concatenated");
  for (size_t i = 1; i < seq.size(); ++i)
    CA_CHECK(seq[i]->ndim() == nd, CA_EINVAL,
             "concatenate: all the input arrays must have same number of dimensions, but the array at index 0 has ",
             nd, " dimension(s) and the array at index ", i, " has ", seq[i]->ndim(), " dimension(s)");
  int32_t axis = normalize_axis(axis0, nd, "concatenate");
  for (size_t i = 1; i < seq.size(); ++i)
    for (int32_t d = 0; d < nd; ++d)
      if (d != axis && seq[i]->shape[size_t(d)] != seq[0]->shape[size_t(d)])
        fail(CA_EINVAL, "concatenate: all the input array dimensions except for the concatenation axis must match "
             "exactly, but along dimension ", d, ", the array at index 0 has size ", seq[0]->shape[size_t(d)],
             " and the array at index ", i, " has size ", seq[i]->shape[size_t(d)]);
  DType dt = promote_all(seq);
  for (auto &a : seq) a = elementwise_astype(a, dt);
  std::vector<ArrayPtr> seq2;
  for (auto &a : seq)
    if (a->size() > 0) seq2.push_back(a);
  if (seq2.empty()) seq2 = seq;
  if (seq2.size() == 1) return seq2[0];
  seq2 = unify_except(std::move(seq2), axis);
  return concat_layer(seq2, axis);
}

ArrayPtr stack(std::vector<ArrayPtr> seq, int64_t axis0) {
  CA_CHECK(!seq.empty(), CA_EINVAL, "stack: need at least one array to stack");
  for (size_t i = 0; i < seq.size(); ++i) CA_CHECK(seq[i], CA_EINVAL, "stack: array ", i, " is NULL");
  for (size_t i = 1; i < seq.size(); ++i)
    if (seq[i]->shape != seq[0]->shape)
      fail(CA_EINVAL, "stack: all input arrays must have the same shape: array 0 has shape ", shape_str(seq[0]->shape),
           ", array ", i, " has shape ", shape_str(seq[i]->shape));
  int32_t nd = seq[0]->ndim();
  CA_CHECK(nd + 1 <= CA_MAX_NDIM, CA_EINVAL, "stack: the result would have too many dimensions");
  int32_t axis = normalize_axis(axis0, nd + 1, "stack");
  DType dt = promote_all(seq);
  for (auto &a : seq) a = elementwise_astype(a, dt);
  seq = unify_except(std::move(seq), -1);
  // Each input with a new axis of extent 1 (a blockwise reshape), then one concatenate.
  std::vector<ArrayPtr> ex;
  for (auto &a : seq) ex.push_back(expand_dims(a, {axis}));
  if (ex.size() == 1) return ex[0];
  return concat_layer(ex, axis);
}

ArrayPtr block(const std::vector<ArrayPtr> &arrays, int32_t depth, const std::vector<int64_t> &list_sizes) {
  for (size_t i = 0; i < arrays.size(); ++i) CA_CHECK(arrays[i], CA_EINVAL, "block: array ", i, " is NULL");
  CA_CHECK(depth >= 0 && depth <= CA_MAX_NDIM, CA_EINVAL, "block: nesting depth ", depth, " is out of range");
  if (depth == 0) {
    CA_CHECK(arrays.size() == 1 && list_sizes.empty(), CA_EINVAL,
             "block: depth 0 takes exactly one array and no list sizes, got ", arrays.size(), " arrays");
    return arrays[0];
  }
  int32_t ndim = depth;
  for (auto &a : arrays) ndim = std::max(ndim, a->ndim());
  int32_t first_axis = ndim - depth;
  size_t pos = 0, next = 0;
  std::function<ArrayPtr(int32_t)> rec = [&](int32_t level) -> ArrayPtr {
    CA_CHECK(pos < list_sizes.size(), CA_EINVAL, "block: the nesting description has too few list sizes");
    int64_t len = list_sizes[pos++];
    CA_CHECK(len > 0, CA_EINVAL, "block: Lists cannot be empty (list ", pos - 1, " has length ", len, ")");
    std::vector<ArrayPtr> parts;
    for (int64_t i = 0; i < len; ++i) {
      if (level == depth - 1) {
        CA_CHECK(next < arrays.size(), CA_EINVAL, "block: the nesting description needs more than ", arrays.size(),
                 " arrays");
        ArrayPtr a = arrays[next++];
        if (a->ndim() < ndim) {
          std::vector<int64_t> lead(size_t(ndim - a->ndim()));
          std::iota(lead.begin(), lead.end(), 0);
          a = expand_dims(a, lead);
        }
        parts.push_back(a);
      } else {
        parts.push_back(rec(level + 1));
      }
    }
    return concatenate(parts, first_axis + level);
  };
  ArrayPtr r = rec(0);
  CA_CHECK(pos == list_sizes.size(), CA_EINVAL, "block: ", list_sizes.size() - pos,
           " list sizes left over after a nesting of depth ", depth);
  CA_CHECK(next == arrays.size(), CA_EINVAL, "block: ", arrays.size() - next, " arrays left over (the nesting uses ",
           next, ")");
  return r;
}

// ------------------------------------------------------------------------------------------------
// repeat, tile

ArrayPtr repeat(const ArrayPtr &a, int64_t repeats, int64_t axis0) {
  not_null(a, "repeat");
  CA_CHECK(repeats >= 0, CA_EINVAL, "repeat: repeats ", repeats, " is negative");
  int32_t nd = a->ndim();
  int32_t axis = normalize_axis(axis0, nd, "repeat");
  if (repeats == 1) return a;
  require_known_chunks(*a, "repeat", axis);
  {
    // The result's extent along the axis, and at most min(repeats, extent) slabs per block, checked
    // before the slab tables are built.
    std::vector<Index> shape = a->shape;
    for (Index &e : shape)
      if (e == kUnknownChunk) e = 1;
    shape[size_t(axis)] = checked_mul(shape[size_t(axis)], repeats, "repeat: the repeated extent");
    (void)shape_nbytes(shape, dtype_size(a->dtype));
    // At most repeats - 1 slabs per block, and at most one per element.
    Index slabs;
    if (__builtin_mul_overflow(a->numblocks[size_t(axis)], std::max<Index>(repeats - 1, 1), &slabs))
      slabs = std::numeric_limits<Index>::max();
    slabs = std::min(slabs, a->shape[size_t(axis)]);
    CA_CHECK(slabs <= kMaxBlocksPerAxis, CA_EINVAL, "repeat: ", repeats, " repeats of ", a->numblocks[size_t(axis)],
             " blocks of extent ", a->shape[size_t(axis)], " along axis ", axis, " make ", slabs,
             " blocks, more than the ", kMaxBlocksPerAxis, " blocks per axis allowed");
  }
  // dask: each block is cut into slabs at round(linspace(start, stop, repeats)); each slab repeated
  // is one output block (graph/index_map.hpp's repeat_slab). repeats == 0: one empty block along the
  // axis.
  Chunks chunks = a->chunks;
  std::vector<Index> &out = chunks[size_t(axis)];
  out.clear();
  if (repeats > 0) {
    Index off = 0;
    for (Index c : a->chunks[size_t(axis)]) {
      const Index n = repeat_slab_count(c, off, repeats);
      for (Index k = 0; k < n; ++k) {
        Index start = 0, count = 0;
        repeat_slab(c, off, repeats, k, &start, &count);
        out.push_back(count * repeats);
      }
      off += c;
    }
  }
  const bool slabs = !out.empty();
  if (!slabs) out.push_back(0);
  std::string name = Tokenizer("repeat").add(*a).add(int64_t(repeats)).add(int64_t(axis)).name();
  (void)blocks_product(numblocks_of(chunks).data(), chunks.size(), "repeat: the result");
  IndexMapSpec sp;
  sp.repeats = repeats;
  for (int32_t d = 0; d < nd; ++d) {
    if (d != axis) {
      sp.runs.push_back({whole_run(sp, a->chunks[size_t(d)])});
      continue;
    }
    // One slab run over the input's chunks (or one empty literal slab).
    IndexMapRun u;
    u.kind = IndexMapSeg::Repeat;
    if (slabs) {
      u.rule = IndexMapRun::Slabs;
      u.table = table_of(sp, a->chunks[size_t(d)]);
      u.n = Index(out.size());
      u.bstep = 0;
    }
    sp.runs.push_back({u});
  }
  return index_map_array(name, {a}, std::move(sp), chunks, a->dtype);
}

ArrayPtr tile(const ArrayPtr &a0, std::vector<int64_t> reps) {
  not_null(a0, "tile");
  for (int64_t r : reps) CA_CHECK(r >= 0, CA_EINVAL, "tile: Negative `reps` are not allowed (got ", r, ")");
  int32_t nd = std::max<int32_t>(a0->ndim(), int32_t(reps.size()));
  CA_CHECK(nd <= CA_MAX_NDIM, CA_EINVAL, "tile: the result would have ", nd, " dimensions");
  ArrayPtr a = a0;
  if (a->ndim() < nd) {
    std::vector<int64_t> lead(size_t(nd - a->ndim()));
    std::iota(lead.begin(), lead.end(), 0);
    a = expand_dims(a, lead);
  }
  std::vector<int64_t> r(static_cast<size_t>(nd) - reps.size(), 1);
  r.insert(r.end(), reps.begin(), reps.end());
  {
    // The tiled shape, and the chunk tables (numblocks * reps entries per axis), checked before
    // either is built.
    std::vector<Index> shape(static_cast<size_t>(nd));
    for (int32_t d = 0; d < nd; ++d) {
      const Index e = a->shape[size_t(d)] == kUnknownChunk ? 1 : a->shape[size_t(d)];
      shape[size_t(d)] = checked_mul(e, r[size_t(d)], str("tile: the tiled extent of axis ", d).c_str());
      Index nb;
      CA_CHECK(!__builtin_mul_overflow(a->numblocks[size_t(d)], r[size_t(d)], &nb) && nb <= kMaxBlocksPerAxis,
               CA_EINVAL, "tile: ", r[size_t(d)], " repeats of ", a->numblocks[size_t(d)], " blocks along axis ", d,
               " make more than the ", kMaxBlocksPerAxis, " blocks per axis allowed");
    }
    (void)shape_nbytes(shape, dtype_size(a->dtype));
  }
  bool all_nonzero = std::find(reps.begin(), reps.end(), 0) == reps.end();
  if (!all_nonzero) {
    // dask: empty(shape) with automatic chunks.
    std::vector<Index> shape(static_cast<size_t>(nd));
    for (int32_t d = 0; d < nd; ++d) shape[size_t(d)] = a->shape[size_t(d)] * r[size_t(d)];
    return empty(shape, normalize_chunks({}, shape, a->dtype, 128 * 1024 * 1024), a->dtype);
  }
  bool identity = true;
  for (int64_t x : r) identity = identity && x == 1;
  if (identity) return a;
  Chunks chunks(static_cast<size_t>(nd));
  for (int32_t d = 0; d < nd; ++d)
    for (int64_t k = 0; k < r[size_t(d)]; ++k)
      chunks[size_t(d)].insert(chunks[size_t(d)].end(), a->chunks[size_t(d)].begin(), a->chunks[size_t(d)].end());
  std::string name = Tokenizer("tile").add(*a).add(std::vector<Index>(r.begin(), r.end())).name();
  (void)blocks_product(numblocks_of(chunks).data(), chunks.size(), "tile: the result");
  // Per axis one run: output block i is input block i mod numblocks, whole.
  IndexMapSpec sp;
  for (int32_t d = 0; d < nd; ++d) {
    IndexMapRun u = whole_run(sp, a->chunks[size_t(d)]);
    if (r[size_t(d)] > 1) {
      u.rule = IndexMapRun::Modular;
      u.bstep = u.n;
      u.n = Index(chunks[size_t(d)].size());
    }
    sp.runs.push_back({u});
  }
  return index_map_array(name, {a}, std::move(sp), chunks, a->dtype);
}

// ------------------------------------------------------------------------------------------------
// pad, flip

namespace {
// One output block along one dimension: a constant run, or elements start, start+step, ... of
// input block `block`.
struct Seg {
  bool constant = false;
  Index block = 0, start = 0, step = 1, count = 0;
};

// The pieces of the input range [lo, hi) along a dimension, one per block it crosses (dask's slice
// chunks), each reversed and in reversed order (the reflected pad).
std::vector<Seg> reflected(const std::vector<Index> &chunks, Index lo, Index hi) {
  std::vector<Seg> out;
  Index off = 0;
  for (size_t j = 0; j < chunks.size(); ++j) {
    Index s = std::max(lo, off), e = std::min(hi, off + chunks[j]);
    if (e > s) out.push_back({false, Index(j), e - 1 - off, -1, e - s});
    off += chunks[j];
  }
  if (out.empty()) out.push_back({false, 0, 0, 1, 0});
  std::reverse(out.begin(), out.end());
  return out;
}
}  // namespace

ArrayPtr pad(const ArrayPtr &a, const std::vector<Index> &before, const std::vector<Index> &after, int32_t mode,
             const ca_scalar_t &value) {
  not_null(a, "pad");
  int32_t nd = a->ndim();
  CA_CHECK(mode == kPadConstant || mode == kPadEdge || mode == kPadReflect, CA_EINVAL, "pad: unknown mode ", mode,
           " (constant 0, edge 1, reflect 2)");
  CA_CHECK(int32_t(before.size()) == nd && int32_t(after.size()) == nd, CA_EINVAL, "pad: widths have ",
           before.size(), " and ", after.size(), " entries for an array of dimension ", nd);
  for (int32_t d = 0; d < nd; ++d) {
    CA_CHECK(before[size_t(d)] >= 0 && after[size_t(d)] >= 0, CA_EINVAL, "pad: widths (", before[size_t(d)], ", ",
             after[size_t(d)], ") of axis ", d, " are negative (index can't contain negative values)");
    Index s = a->shape[size_t(d)];
    bool padded = before[size_t(d)] > 0 || after[size_t(d)] > 0;
    // Unknown block sizes (after x[mask]), as dask: a constant pad of the unknown axes themselves works
    // (the padding blocks' shapes are known); edge/reflect, and padding blocks that span an unknown
    // axis, need the sizes.
    if (padded) {
      for (int32_t e = 0; e < nd; ++e)
        if (e != d || mode != kPadConstant) require_known_chunks(*a, "pad", e);
    }
    if (mode != kPadConstant && padded)
      CA_CHECK(s > 0, CA_EINVAL, "pad: can't extend empty axis ", d, " using modes other than 'constant'");
    if (mode == kPadReflect && padded)
      CA_CHECK(before[size_t(d)] < s && after[size_t(d)] < s, CA_EINVAL, "pad: reflect widths (", before[size_t(d)],
               ", ", after[size_t(d)], ") of axis ", d, " must be below its extent ", s,
               " (wider reflections are not supported)");
  }
  bool any = false;
  for (int32_t d = 0; d < nd; ++d) any = any || before[size_t(d)] > 0 || after[size_t(d)] > 0;
  if (!any) return a;
  {
    // The padded shape fits in int64 (and its bytes too), so the products below cannot overflow.
    std::vector<Index> padded = a->shape;
    for (int32_t d = 0; d < nd; ++d) {
      Index &e = padded[size_t(d)];
      if (e == kUnknownChunk) e = 0;
      const std::string what = str("pad: the padded extent of axis ", d);
      e = checked_add(checked_add(e, before[size_t(d)], what.c_str()), after[size_t(d)], what.c_str());
    }
    (void)shape_nbytes(padded, dtype_size(a->dtype));
  }
  // Per dimension, in order, dask's concatenate([before, x, after], axis=d) with empty parts dropped.
  std::vector<std::vector<Seg>> segs(static_cast<size_t>(nd));
  std::vector<Index> cur = a->shape;
  for (int32_t d = 0; d < nd; ++d) {
    // The number of elements across the other axes is 0, positive, or unknown (taken as positive:
    // dask keeps parts of unknown size).
    bool others_empty = false;
    for (int32_t e = 0; e < nd; ++e)
      if (e != d && cur[size_t(e)] == 0) others_empty = true;
    const std::vector<Index> &ch = a->chunks[size_t(d)];
    Index s = a->shape[size_t(d)], bw = before[size_t(d)], aw = after[size_t(d)];
    bool keep_b = !others_empty && bw > 0, keep_c = !others_empty && s != 0, keep_a = !others_empty && aw > 0;
    if (!keep_b && !keep_c && !keep_a) keep_b = keep_c = keep_a = true;
    auto side = [&](bool left, Index w) {
      std::vector<Seg> r;
      if (mode == kPadConstant) {
        r.push_back({true, 0, 0, 0, w});
      } else if (mode == kPadEdge) {
        if (left) {
          size_t j = 0;
          while (j + 1 < ch.size() && ch[j] == 0) ++j;
          r.push_back({false, Index(j), 0, 0, w});
        } else {
          size_t j = ch.size() - 1;
          while (j > 0 && ch[j] == 0) --j;
          r.push_back({false, Index(j), std::max<Index>(ch[j] - 1, 0), 0, w});
        }
      } else {
        r = left ? reflected(ch, 1, w + 1) : reflected(ch, s - w - 1, s - 1);
      }
      return r;
    };
    if (keep_b) segs[size_t(d)] = side(true, bw);
    if (keep_c)
      for (size_t j = 0; j < ch.size(); ++j) segs[size_t(d)].push_back({false, Index(j), 0, 1, ch[j]});
    if (keep_a) {
      auto r = side(false, aw);
      segs[size_t(d)].insert(segs[size_t(d)].end(), r.begin(), r.end());
    }
    cur[size_t(d)] = s == kUnknownChunk ? s : s + bw + aw;
  }
  Chunks chunks(static_cast<size_t>(nd));
  for (int32_t d = 0; d < nd; ++d)
    for (auto &g : segs[size_t(d)]) chunks[size_t(d)].push_back(g.count);
  std::string vbytes = scalar_bytes(a->dtype, value);
  Tokenizer tok("pad");
  tok.add(*a).add(before).add(after).add(int64_t(mode));
  if (mode == kPadConstant) tok.add_bytes(vbytes.data(), vbytes.size());
  std::string name = tok.name();
  (void)blocks_product(numblocks_of(chunks).data(), chunks.size(), "pad: the result");
  // A block is constant if any of its segments is, else the input block itself if every segment
  // takes its block whole, else a strided copy (graph/index_map.hpp's rule).
  IndexMapSpec sp;
  if (mode == kPadConstant) {
    sp.fill_dtype = a->dtype;
    sp.fill_value = vbytes;
  }
  for (int32_t d = 0; d < nd; ++d) {
    // Runs of the segments: the whole and reversed blocks from the input's chunk table, the partial
    // and constant pieces literal (graph/index_map.hpp: O(1) runs per side, whatever the blocks).
    const int32_t t = table_of(sp, a->chunks[size_t(d)]);
    std::vector<IndexMapRun> out;
    for (const Seg &g : segs[size_t(d)]) {
      IndexMapSeg m;
      m.count = g.count;
      if (g.constant) {
        m.kind = IndexMapSeg::Fill;
      } else {
        m.block = g.block;
        const bool whole = g.start == 0 && g.step == 1 && g.count == a->chunks[size_t(d)][size_t(g.block)];
        if (!whole) {
          m.kind = IndexMapSeg::Strided;
          m.start = g.start;
          m.step = g.step;
        }
      }
      index_map_push_segment(out, m, t, sp.tables[size_t(t)].get());
    }
    sp.runs.push_back(std::move(out));
  }
  return index_map_array(name, {a}, std::move(sp), chunks, a->dtype);
}

ArrayPtr flip(const ArrayPtr &a, std::vector<int64_t> axes, bool all) {
  not_null(a, "flip");
  int32_t nd = a->ndim();
  std::vector<bool> fl(size_t(nd), false);
  if (all) {
    std::fill(fl.begin(), fl.end(), true);
  } else {
    for (int32_t d : normalize_axes(axes, nd, "flip")) fl[size_t(d)] = true;
  }
  if (std::find(fl.begin(), fl.end(), true) == fl.end()) return a;
  Chunks chunks = a->chunks;
  std::vector<Index> flipped;
  for (int32_t d = 0; d < nd; ++d)
    if (fl[size_t(d)]) {
      std::reverse(chunks[size_t(d)].begin(), chunks[size_t(d)].end());
      flipped.push_back(d);
    }
  std::string name = Tokenizer("flip").add(*a).add(flipped).name();
  // Every block is a strided copy of its mirror block (reversed along the flipped axes).
  IndexMapSpec sp;
  for (int32_t d = 0; d < nd; ++d) {
    IndexMapRun u = whole_run(sp, a->chunks[size_t(d)]);
    if (fl[size_t(d)]) {
      // Output block i: input block nb - 1 - i reversed.
      require_known_chunks(*a, "flip", d);
      u.kind = IndexMapSeg::Strided;
      u.block = u.n - 1;
      u.bstep = -1;
      u.step = -1;
    }
    sp.runs.push_back({u});
  }
  return index_map_array(name, {a}, std::move(sp), chunks, a->dtype);
}

}  // namespace ca
