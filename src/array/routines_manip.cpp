// NumPy's insert, delete, choose, select and dask's coarsen (see routines.hpp), composed from the
// graph operations (slices, concatenate, broadcast, where, reshape, reductions); choose's per-element
// gather is the ca.choose kernel of routines_kernels.cpp.
#include <algorithm>
#include <limits>
#include <numeric>

#include "array/create.hpp"
#include "array/expr.hpp"
#include "array/reduce.hpp"
#include "array/routines.hpp"
#include "array/shape.hpp"
#include "array/slicing.hpp"
#include "graph/graph.hpp"
#include "graph/layer.hpp"

namespace ca {

// Helpers are prefixed rm_: unity builds join this file with others in one translation unit.
namespace {

const ArrayPtr &rm_need(const ArrayPtr &a, const char *what, const char *param) {
  CA_CHECK(a, CA_EINVAL, what, ": ", param, " is NULL");
  return a;
}

// a[..., start:stop] along `axis`.
ArrayPtr rm_slice(const ArrayPtr &a, int32_t axis, Index start, Index stop) {
  std::vector<IndexItem> idx(size_t(axis), IndexItem::all());
  idx.push_back(IndexItem::slice(start, stop, 1));
  return getitem(a, idx);
}

// Positions normalized as NumPy (negative from the end); `hi` is the largest allowed value.
std::vector<Index> rm_positions(const std::vector<Index> &obj, Index extent, Index hi, int32_t axis, const char *what) {
  std::vector<Index> r;
  r.reserve(obj.size());
  for (Index o : obj) {
    const Index p = o < 0 ? o + extent : o;
    CA_CHECK(p >= 0 && p <= hi, CA_EINVAL, what, ": index ", o, " is out of bounds for axis ", axis, " with size ",
             extent);
    r.push_back(p);
  }
  return r;
}

}  // namespace

ArrayPtr insert(const ArrayPtr &arr0, const std::vector<Index> &obj0, const ArrayPtr &values0, int64_t axis0) {
  const ArrayPtr &arr = rm_need(arr0, "insert", "arr");
  ArrayPtr values = rm_need(values0, "insert", "values");
  const int32_t axis = normalize_axis(axis0, arr->ndim(), "insert");
  require_known_chunks(*arr, "insert");
  const Index extent = arr->shape[size_t(axis)];
  std::vector<Index> obj = rm_positions(obj0, extent, extent, axis, "insert");
  const Index n = Index(obj.size());
  if (n == 0) return arr;
  // NumPy: the values go in the stable order of their positions.
  std::vector<Index> order(obj.size());
  std::iota(order.begin(), order.end(), Index(0));
  std::stable_sort(order.begin(), order.end(), [&](Index p, Index q) { return obj[size_t(p)] < obj[size_t(q)]; });
  if (values->dtype != arr->dtype) values = elementwise_astype(values, arr->dtype);
  std::vector<Index> vshape = arr->shape;
  vshape[size_t(axis)] = n;
  CA_CHECK(values->ndim() <= arr->ndim(), CA_EINVAL, "insert: values of shape ", shape_str(values->shape),
           " do not broadcast to ", shape_str(vshape));
  for (int32_t d = 0; d < values->ndim(); ++d) {
    const Index e = values->shape[size_t(d)], want = vshape[size_t(arr->ndim() - values->ndim() + d)];
    CA_CHECK(e == 1 || e == want, CA_EINVAL, "insert: values of shape ", shape_str(values->shape),
             " do not broadcast to ", shape_str(vshape));
  }
  if (values->shape != vshape) values = broadcast_to(values, vshape, nullptr);
  if (!std::is_sorted(obj.begin(), obj.end())) {
    values = take(values, order, axis);
    std::sort(obj.begin(), obj.end());
  }
  // dask's chunks: the values keep their own along the axis and take arr's along the others.
  require_known_chunks(*values, "insert");
  Chunks vchunks = arr->chunks;
  vchunks[size_t(axis)] = values->chunks[size_t(axis)];
  if (values->chunks != vchunks) values = rechunk(values, vchunks);
  // Interleave arr's pieces between the distinct positions with the values inserted at each.
  std::vector<ArrayPtr> pieces;
  Index prev = 0;
  size_t i = 0;
  while (i < obj.size()) {
    const Index p = obj[i];
    size_t j = i;
    while (j < obj.size() && obj[j] == p) ++j;
    pieces.push_back(rm_slice(arr, axis, prev, p));
    pieces.push_back(rm_slice(values, axis, Index(i), Index(j)));
    prev = p;
    i = j;
  }
  pieces.push_back(rm_slice(arr, axis, prev, extent));
  std::vector<ArrayPtr> kept;
  for (auto &p : pieces)
    if (shape_size(p->shape) > 0) kept.push_back(p);  // dask drops the empty pieces
  return concatenate(kept.empty() ? pieces : kept, axis);
}

ArrayPtr delete_at(const ArrayPtr &arr0, const std::vector<Index> &obj0, int64_t axis0) {
  const ArrayPtr &arr = rm_need(arr0, "delete", "arr");
  const int32_t axis = normalize_axis(axis0, arr->ndim(), "delete");
  require_known_chunks(*arr, "delete", axis);
  const Index extent = arr->shape[size_t(axis)];
  std::vector<Index> obj = rm_positions(obj0, extent, extent - 1, axis, "delete");
  std::sort(obj.begin(), obj.end());
  obj.erase(std::unique(obj.begin(), obj.end()), obj.end());
  if (obj.empty()) return arr;
  // dask: split at the positions, each piece after the first without its first element.
  std::vector<ArrayPtr> pieces{rm_slice(arr, axis, 0, obj[0])};
  for (size_t i = 0; i < obj.size(); ++i) {
    const Index stop = i + 1 < obj.size() ? obj[i + 1] : extent;
    ArrayPtr p = rm_slice(arr, axis, obj[i], stop);
    pieces.push_back(rm_slice(p, axis, 1, p->shape[size_t(axis)]));
  }
  return concatenate(pieces, axis);
}

ArrayPtr choose(const ArrayPtr &a0, const std::vector<ArrayPtr> &choices0, int32_t mode) {
  const ArrayPtr &a = rm_need(a0, "choose", "a");
  CA_CHECK(!choices0.empty(), CA_EINVAL, "choose: choices is empty");
  CA_CHECK(mode >= 0 && mode <= 2, CA_EINVAL, "choose: unknown mode ", mode);
  CA_CHECK(dtype_is_integer(a->dtype) || a->dtype == CA_BOOL, CA_ETYPE, "choose: a must be of an integer dtype (got ",
           dtype_name(a->dtype), ")");
  DType dt = rm_need(choices0[0], "choose", "a choice")->dtype;
  for (auto &c : choices0) dt = dtype_promote(dt, rm_need(c, "choose", "a choice")->dtype);
  std::vector<ArrayPtr> ops{a->dtype == CA_INT64 ? a : elementwise_astype(a, CA_INT64)};
  for (auto &c : choices0) ops.push_back(c->dtype == dt ? c : elementwise_astype(c, dt));
  ops = broadcast_arrays(ops);
  const std::string L = index_letters(size_t(ops[0]->ndim()));
  Tokenizer tok("choose");
  for (auto &o : ops) tok.add(*o);
  tok.add(int64_t(mode));
  std::vector<ArrayArg> args{ArrayArg::of(ops[0], L), ArrayArg::lit(ca_arg_i64(mode))};
  for (size_t i = 1; i < ops.size(); ++i) args.push_back(ArrayArg::of(ops[i], L));
  return blockwise_layer(tok.name(), "ca.choose", L, args, ops[0]->chunks, dt);
}

ArrayPtr select(const std::vector<ArrayPtr> &conds, const std::vector<ArrayPtr> &choices, const ca_scalar_t &dflt) {
  CA_CHECK(conds.size() == choices.size(), CA_EINVAL, "select: list of cases must be same length as list of conditions (",
           conds.size(), " conditions, ", choices.size(), " choices)");
  CA_CHECK(!conds.empty(), CA_EINVAL, "select: select with an empty condition list is not possible");
  DType dt = rm_need(choices[0], "select", "a choice")->dtype;
  for (size_t i = 0; i < conds.size(); ++i) {
    CA_CHECK(rm_need(conds[i], "select", "a condition")->dtype == CA_BOOL, CA_ETYPE, "select: invalid entry ", i,
             " in condlist: should be boolean ndarray (got ", dtype_name(conds[i]->dtype), ")");
    dt = dtype_promote(dt, rm_need(choices[i], "select", "a choice")->dtype);
  }
  dt = scalar_promote(dt, dflt);
  // NumPy's order: the first true condition wins, so the last one is the innermost where.
  ArrayPtr r = elementwise_where(conds.back(), choices.back(), nullptr, ca_scalar_t{}, dflt);
  for (size_t i = conds.size() - 1; i-- > 0;) r = elementwise_where(conds[i], choices[i], r, ca_scalar_t{}, ca_scalar_t{});
  return r->dtype == dt ? r : elementwise_astype(r, dt);
}

std::vector<Index> aligned_coarsen_chunks(const std::vector<Index> &chunks, Index multiple) {
  // dask.array.routines.aligned_coarsen_chunks
  const size_t n = chunks.size();
  std::vector<Index> out(n);
  Index excess = 0;
  std::vector<size_t> invalid, valid;
  for (size_t i = 0; i < n; ++i) {
    const Index over = chunks[i] % multiple;
    excess += over;
    out[i] = chunks[i] - over;
    (over ? invalid : valid).push_back(i);
  }
  auto by_size = [&](size_t p, size_t q) { return out[p] < out[q]; };
  std::stable_sort(invalid.begin(), invalid.end(), by_size);
  std::stable_sort(valid.begin(), valid.end(), by_size);
  invalid.insert(invalid.end(), valid.begin(), valid.end());
  for (Index k = 0; k < excess / multiple; ++k) out[invalid[size_t(k)]] += multiple;
  if (excess % multiple) out.push_back(excess % multiple);
  std::vector<Index> r;
  for (Index c : out)
    if (c > 0) r.push_back(c);
  return r;
}

ArrayPtr coarsen(int32_t op, const ArrayPtr &x0, const std::vector<Index> &factors, bool trim_excess) {
  ArrayPtr x = rm_need(x0, "coarsen", "x");
  const int32_t nd = x->ndim();
  CA_CHECK(int32_t(factors.size()) == nd, CA_EINVAL, "coarsen: ", factors.size(), " factors for ", nd, " dimensions");
  CA_CHECK(op != CA_RED_ARGMIN && op != CA_RED_ARGMAX && op != CA_RED_NANARGMIN && op != CA_RED_NANARGMAX, CA_EINVAL,
           "coarsen: arg-reductions reduce one axis and cannot coarsen");
  require_known_chunks(*x, "coarsen");
  std::string desc;
  bool aligned = true;
  for (int32_t d = 0; d < nd; ++d) {
    const Index f = factors[size_t(d)];
    CA_CHECK(f >= 1, CA_EINVAL, "coarsen: factor ", f, " for axis ", d, " (factors must be >= 1)");
    if (f == 1) continue;
    desc += (desc.empty() ? "" : ", ") + std::to_string(d) + ": " + std::to_string(f);
    aligned = aligned && x->shape[size_t(d)] % f == 0;
  }
  CA_CHECK(trim_excess || aligned, CA_EINVAL, "coarsen: Coarsening factors {", desc, "} do not align with array shape ",
           shape_str(x->shape), ".");
  Chunks ch = x->chunks;
  for (int32_t d = 0; d < nd; ++d)
    if (factors[size_t(d)] > 1) ch[size_t(d)] = aligned_coarsen_chunks(ch[size_t(d)], factors[size_t(d)]);
  if (ch != x->chunks) x = rechunk(x, ch);
  Chunks expected = ch;  // dask's: each block divided by the factor (a trimmed remainder block becomes 0)
  for (int32_t d = 0; d < nd; ++d)
    for (Index &c : expected[size_t(d)]) c /= factors[size_t(d)];
  std::vector<Index> newshape;
  std::vector<int32_t> axes;
  for (int32_t d = 0; d < nd; ++d) {
    const Index f = factors[size_t(d)], e = x->shape[size_t(d)];
    if (e % f) x = rm_slice(x, d, 0, e - e % f);
    newshape.push_back(e / f);
    newshape.push_back(f);
    axes.push_back(2 * d + 1);
  }
  ArrayPtr r = reduce(op, reshape(x, newshape), axes, false, 0, 0, CA_DTYPE_INVALID);
  return r->chunks == expected ? r : rechunk(r, expected);
}

ArrayPtr bincount(const ArrayPtr &x0, const ArrayPtr &weights0, Index length, int32_t split_every) {
  const ArrayPtr &x = rm_need(x0, "bincount", "x");
  CA_CHECK(x->ndim() == 1, CA_EINVAL, "bincount: x must be one dimensional (got ", x->ndim(), " dimensions)");
  // NumPy's rule: what casts safely to int64 (uint64 does not)
  CA_CHECK((dtype_is_integer(x->dtype) && x->dtype != CA_UINT64) || x->dtype == CA_BOOL, CA_ETYPE,
           "bincount: Cannot cast array data from dtype ",
           dtype_name(x->dtype), " to int64 according to the rule 'safe'");
  // CA_BINCOUNT_AT_LEAST(m) = -1 - m: max(max(x) + 1, m), found by the compute
  const bool autolen = length < 0;
  CA_CHECK(length > std::numeric_limits<Index>::min(), CA_EINVAL, "bincount: length ", length, " is out of range");
  const Index minlen = autolen ? -1 - length : length;
  require_known_chunks(*x, "bincount");
  ArrayPtr w = weights0;
  if (w) {
    CA_CHECK(w->shape == x->shape, CA_EINVAL, "bincount: The weights and list don't have the same length.");
    CA_CHECK(dtype_is_numeric(w->dtype) && !dtype_is_complex(w->dtype), CA_ETYPE, "bincount: weights of dtype ",
             dtype_name(w->dtype), " do not cast to float64 (NumPy's rule 'safe')");
    if (w->dtype != CA_FLOAT64) w = elementwise_astype(w, CA_FLOAT64);
    if (w->chunks != x->chunks) w = rechunk(w, x->chunks);
  }
  const DType dt = w ? CA_FLOAT64 : CA_INT64;
  const Index nb = x->numblocks[0];
  if (nb == 0 || x->shape[0] == 0) return zeros({minlen}, Chunks{{minlen}}, dt);
  // One (1, length) row of counts per block, summed by the tree reduction.
  std::vector<ArrayArg> args{ArrayArg::of(x, "a")};
  if (w) args.push_back(ArrayArg::of(w, "a"));
  args.push_back(ArrayArg::lit(ca_arg_i64(length)));
  if (!autolen) {
    const Chunks row_chunks{std::vector<Index>(size_t(nb), 1), {length}};
    ArrayPtr rows = blockwise("bincount", "ca.bincount", "ab", args, dt, {{'b', length}}, &row_chunks, false);
    return reduce(CA_RED_SUM, rows, {0}, false, split_every, 0, dt);
  }
  // Rows as long as each block's maximum + 1 (unknown sizes), padded and summed up the tree by
  // ca.bincount_merge; the last level drops the row axis. One pass over x, as dask.
  const Chunks row_chunks{std::vector<Index>(size_t(nb), 1), {kUnknownChunk}};
  ArrayPtr rows = blockwise("bincount", "ca.bincount", "ab", args, dt, {{'b', 1}}, &row_chunks, false);
  const std::string final_name = Tokenizer("bincount-agg").add(*rows).add(int64_t(split_every)).name();
  std::shared_ptr<Graph> g = merge_graphs({rows});
  TreeReduceSpec t;
  t.input = rows->name;
  t.numblocks = rows->numblocks;
  t.mask = 1;
  t.split = split_every_per_axis(split_every, 1);
  t.combine_kernel = "ca.bincount_merge";
  t.combine_extra = {blockwise_literal(ca_arg_i64(1))};
  t.level_prefix = "bincount-combine";
  t.hex = final_name.substr(final_name.rfind('-') + 1);
  t.agg_kernel = "ca.bincount_merge";
  t.agg_extra = {blockwise_literal(ca_arg_i64(0))};
  t.keepdims = false;
  t.name = final_name;
  t.chunks = Chunks{{kUnknownChunk}};
  tree_reduce(*g, t);
  return array_from_layer(g, final_name, t.chunks, dt);
}

namespace {

Index rm_dims_size(const std::vector<Index> &dims, const char *what) {
  Index total = 1;
  for (Index d : dims) {
    CA_CHECK(d >= 0, CA_EINVAL, what, ": dimensions must be non-negative (got ", d, ")");
    CA_CHECK(d == 0 || total <= std::numeric_limits<Index>::max() / d, CA_EINVAL, what,
             ": invalid dims: array size defined by dims is larger than the maximum possible size.");
    total *= d;
  }
  return total;
}

}  // namespace

ArrayPtr ravel_multi_index(const std::vector<ArrayPtr> &coords, const std::vector<Index> &dims,
                           const std::vector<int32_t> &modes, bool f_order) {
  CA_CHECK(!dims.empty(), CA_EINVAL, "ravel_multi_index: dims is empty");
  CA_CHECK(coords.size() == dims.size(), CA_EINVAL, "ravel_multi_index: parameter multi_index must be a sequence of length ",
           dims.size(), " (got ", coords.size(), ")");
  CA_CHECK(modes.size() == dims.size(), CA_EINVAL, "ravel_multi_index: ", modes.size(), " modes for ", dims.size(),
           " dimensions");
  for (int32_t m : modes) CA_CHECK(m >= 0 && m <= 2, CA_EINVAL, "ravel_multi_index: unknown mode ", m);
  (void)rm_dims_size(dims, "ravel_multi_index");
  std::vector<ArrayPtr> ops;
  for (auto &c : coords) {
    CA_CHECK(dtype_is_integer(rm_need(c, "ravel_multi_index", "a coordinate array")->dtype), CA_ETYPE,
             "ravel_multi_index: only int indices permitted (got ", dtype_name(c->dtype), ")");
    ops.push_back(c->dtype == CA_INT64 ? c : elementwise_astype(c, CA_INT64));
  }
  ops = broadcast_arrays(ops);
  const std::string L = index_letters(size_t(ops[0]->ndim()));
  std::vector<int64_t> m64(modes.begin(), modes.end());
  Tokenizer tok("ravel_multi_index");
  for (auto &o : ops) tok.add(*o);
  tok.add(dims).add(std::vector<Index>(m64.begin(), m64.end())).add(int64_t(f_order));
  std::vector<ArrayArg> args{ArrayArg::lit(ca_arg_tuple(dims.data(), dims.size())),
                             ArrayArg::lit(ca_arg_tuple(m64.data(), m64.size())), ArrayArg::lit(ca_arg_i64(f_order))};
  for (auto &o : ops) args.push_back(ArrayArg::of(o, L));
  return blockwise_layer(tok.name(), "ca.ravel_multi_index", L, args, ops[0]->chunks, CA_INT64);
}

std::vector<ArrayPtr> unravel_index(const ArrayPtr &indices0, const std::vector<Index> &dims, bool f_order) {
  const ArrayPtr &indices = rm_need(indices0, "unravel_index", "indices");
  CA_CHECK(!dims.empty(), CA_EINVAL, "unravel_index: dims is empty");
  CA_CHECK(dtype_is_integer(indices->dtype), CA_ETYPE, "unravel_index: only int indices permitted (got ",
           dtype_name(indices->dtype), ")");
  (void)rm_dims_size(dims, "unravel_index");
  ArrayPtr idx = indices->dtype == CA_INT64 ? indices : elementwise_astype(indices, CA_INT64);
  const std::string L = index_letters(size_t(idx->ndim()));
  std::vector<ArrayPtr> out;
  for (size_t k = 0; k < dims.size(); ++k) {
    std::string name = Tokenizer("unravel_index").add(*idx).add(dims).add(int64_t(k)).add(int64_t(f_order)).name();
    out.push_back(blockwise_layer(name, "ca.unravel_index", L,
                                  {ArrayArg::of(idx, L), ArrayArg::lit(ca_arg_tuple(dims.data(), dims.size())),
                                   ArrayArg::lit(ca_arg_i64(int64_t(k))), ArrayArg::lit(ca_arg_i64(f_order))},
                                  idx->chunks, CA_INT64));
  }
  return out;
}

}  // namespace ca
