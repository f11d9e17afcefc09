// Building reductions and scans (graph side). Kernels: array/reduce_kernels.cpp.
#include "array/reduce.hpp"

#include <chunkarray/array.h>

#include <algorithm>
#include <cmath>

#include "array/expr.hpp"
#include "array/op_table.hpp"
#include "graph/graph.hpp"

namespace ca {

namespace {

const char *red_name(int32_t op) {
  const char *n = red_info(op).name;
  return n ? n : "reduce";
}

const char *scan_name(int32_t op) {
  const char *n = scan_info(op).name;
  return n ? n : "scan";
}

bool is_arg(int32_t op) { return is_arg_reduction(op); }

// nan-variants of integer/bool inputs are the plain reductions.
int32_t base_op(int32_t op) {
  const RedInfo r = red_info(op);
  return r.nan ? red_of_family(r.family) : op;
}

void check_numeric(DType t, const char *what) {
  CA_CHECK(dtype_valid(t), CA_ETYPE, what, " needs a numeric dtype, got invalid dtype ", t);
  CA_CHECK(t != CA_RAW, CA_ETYPE, what, " needs a numeric dtype, got ", dtype_name(t));
}

// Sum-like default: bool/ints -> int64, uints -> uint64, floats/complex keep.
DType sum_dtype(DType in) {
  switch (dtype_kind(in)) {
    case 'b':
    case 'i': return CA_INT64;
    case 'u': return CA_UINT64;
    default: return in;
  }
}

std::string hex_of(const std::string &token) {
  auto p = token.rfind('-');
  return p == std::string::npos ? token : token.substr(p + 1);
}

BlockwiseArg tuple_lit(const std::vector<int64_t> &t) { return blockwise_literal(ca_arg_tuple(t.data(), t.size())); }

Chunks reduced_chunks(const Chunks &c, uint64_t mask, bool keepdims) {
  Chunks out;
  for (size_t d = 0; d < c.size(); ++d) {
    if ((mask >> d) & 1) {
      if (keepdims) out.push_back({1});
    } else {
      out.push_back(c[d]);
    }
  }
  return out;
}

}  // namespace

std::vector<int32_t> normalize_axes(std::vector<int32_t> axes, int32_t ndim) {
  if (axes.empty()) {
    for (int32_t d = 0; d < ndim; ++d) axes.push_back(d);
    return axes;
  }
  const std::vector<int32_t> given = axes;
  for (int32_t &ax : axes) {
    CA_CHECK(ax >= -ndim && ax < ndim, CA_EINVAL, "axis ", ax, " is out of bounds for array of dimension ", ndim);
    if (ax < 0) ax += ndim;
  }
  for (size_t i = 0; i < axes.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (axes[i] == axes[j])
        fail(CA_EINVAL, "duplicate value in 'axis': axis ", axes[i], " is given twice (as ", given[j], " and ",
             given[i], ")");
  std::sort(axes.begin(), axes.end());
  return axes;
}

DType reduce_result_dtype(int32_t op, DType in, DType requested) {
  check_numeric(in, red_name(op));
  if (requested != 0) check_numeric(requested, "the requested reduction dtype");
  switch (base_op(op)) {
    case CA_RED_SUM:
    case CA_RED_PROD: return requested ? requested : sum_dtype(in);
    case CA_RED_MEAN:
      if (requested) return requested;
      return dtype_is_float(in) || dtype_is_complex(in) ? in : CA_FLOAT64;
    case CA_RED_VAR:
    case CA_RED_STD:
      if (requested) return requested;
      if (in == CA_FLOAT32 || in == CA_COMPLEX64) return CA_FLOAT32;
      return CA_FLOAT64;
    case CA_RED_MIN:
    case CA_RED_MAX: return in;
    case CA_RED_ARGMIN:
    case CA_RED_ARGMAX: return CA_INT64;
    case CA_RED_ANY:
    case CA_RED_ALL: return CA_BOOL;
    default: fail(CA_EINVAL, "unknown reduction op ", op);
  }
}

DType scan_result_dtype(int32_t op, DType in, DType requested) {
  CA_CHECK(scan_info(op).name != nullptr, CA_EINVAL, "unknown scan op ", op);
  check_numeric(in, scan_name(op));
  if (requested != 0) {
    check_numeric(requested, "the requested scan dtype");
    return requested;
  }
  return sum_dtype(in);
}

namespace {

/// The input of a sum/prod/mean with an integer `dtype=` over floats: NumPy casts each element to that
/// dtype (as astype) before it sums in it; the nan-variants replace NaN first. Fused into the chunk
/// step (no extra pass). Other combinations convert exactly, or modulo 2**bits, in the kernels.
ArrayPtr reduce_input(int32_t op, const ArrayPtr &a, DType requested) {
  const int32_t b = base_op(op);
  if (!requested || !(dtype_is_float(a->dtype) || dtype_is_complex(a->dtype))) return a;
  if (dtype_kind(requested) != 'i' && dtype_kind(requested) != 'u') return a;
  if (b != CA_RED_SUM && b != CA_RED_PROD && b != CA_RED_MEAN) return a;
  CA_CHECK(op != CA_RED_NANMEAN && op != CA_RED_NANVAR && op != CA_RED_NANSTD, CA_ETYPE, red_name(op),
           ": if the input is inexact, then dtype must be inexact, got ", dtype_name(requested));
  ArrayPtr x = a;
  if (op == CA_RED_NANSUM || op == CA_RED_NANPROD) {
    ca_scalar_t id{};
    id.kind = CA_INT64, id.i64 = op == CA_RED_NANPROD ? 1 : 0, id.re = double(id.i64);
    x = elementwise_where(elementwise_unary(CA_OP_ISNAN, a), nullptr, a, id, ca_scalar_t{});
  }
  return elementwise_astype(x, requested);
}

}  // namespace

Index split_every_per_axis(int32_t split_every, size_t naxes) {
  CA_CHECK(split_every >= 0, CA_EINVAL, "split_every must be >= 0, got ", split_every);
  const double n = split_every == 0 ? 16.0 : double(split_every);
  if (naxes == 0) return 2;
  Index s = Index(std::floor(std::pow(n, 1.0 / double(naxes)) + 1e-9));
  return std::max<Index>(2, s);
}

void tree_reduce(Graph &g, const TreeReduceSpec &t) {
  std::string cur = t.input;
  std::vector<Index> nb = t.numblocks;
  const size_t nd = nb.size();
  const Index split = t.split;
  auto reduced = [&](size_t d) { return ((t.mask >> d) & 1) != 0; };
  auto needs_level = [&] {
    for (size_t d = 0; d < nd; ++d)
      if (reduced(d) && nb[d] > split) return true;
    return false;
  };
  for (int level = 0; needs_level(); ++level) {
    BlockwiseArg in;
    in.is_ref = true;
    in.dep_slot = 0;
    std::vector<Index> out_nb(nd);
    for (size_t d = 0; d < nd; ++d) {
      DimMap m;
      m.out_dim = int32_t(d);
      m.extent = nb[d];
      if (reduced(d)) {
        m.kind = DimMap::Group;
        m.value = split;
        out_nb[d] = (nb[d] + split - 1) / split;
      } else {
        m.kind = DimMap::Out;
        out_nb[d] = nb[d];
      }
      in.dims.push_back(m);
    }
    std::vector<BlockwiseArg> args{std::move(in)};
    args.insert(args.end(), t.combine_extra.begin(), t.combine_extra.end());
    std::string name = str(t.level_prefix, level, "-", t.hex);
    g.add_layer(std::make_shared<BlockwiseLayer>(name, out_nb, t.combine_kernel, std::vector<std::string>{cur},
                                                 std::move(args)));
    cur = name;
    nb = out_nb;
  }
  BlockwiseArg in;
  in.is_ref = true;
  in.dep_slot = 0;
  int32_t od = 0;
  for (size_t d = 0; d < nd; ++d) {
    DimMap m;
    m.extent = nb[d];
    if (reduced(d)) {
      m.kind = t.keepdims ? DimMap::Group : DimMap::All;
      m.out_dim = t.keepdims ? od++ : 0;
      m.value = t.keepdims ? std::max<Index>(nb[d], 1) : 0;
    } else {
      m.kind = DimMap::Out;
      m.out_dim = od++;
    }
    in.dims.push_back(m);
  }
  std::vector<BlockwiseArg> args{std::move(in)};
  args.insert(args.end(), t.agg_extra.begin(), t.agg_extra.end());
  g.add_layer(std::make_shared<BlockwiseLayer>(t.name, t.chunks, t.agg_kernel, std::vector<std::string>{cur},
                                               std::move(args)));
}

ArrayPtr reduce(int32_t op, const ArrayPtr &a_in, std::vector<int32_t> axes, bool keepdims, int32_t split_every,
                int32_t ddof, DType dtype) {
  CA_CHECK(a_in, CA_EINVAL, "array is NULL");
  CA_CHECK(red_info(op).name != nullptr, CA_EINVAL, "unknown reduction op ", op);
  if (!dtype_is_numeric(a_in->dtype) && a_in->dtype != CA_RAW)
    if (ArrayPtr r = reduce_special(op, a_in, axes, keepdims, split_every, ddof, dtype)) return r;
  reduce_result_dtype(op, a_in->dtype, dtype);  // validates the dtypes first
  const ArrayPtr a = reduce_input(op, a_in, dtype);
  const DType in = a->dtype;
  const DType out = reduce_result_dtype(op, in, dtype);
  const int32_t nd = a->ndim();
  const bool flat = axes.empty();
  if (is_arg(op))
    CA_CHECK(axes.size() <= 1, CA_EINVAL, red_name(op), " takes one axis or all axes (axis=None), got ", axes.size(),
             " axes");
  axes = normalize_axes(std::move(axes), nd);
  CA_CHECK(nd < CA_MAX_NDIM, CA_EINVAL, "reductions support up to ", CA_MAX_NDIM - 1, " dimensions");
  // The kernels see the plain op for inputs without NaNs.
  const int32_t kop = (dtype_is_float(in) || dtype_is_complex(in)) ? op : base_op(op);
  uint64_t mask = 0;
  Index red_extent = 1;
  for (int32_t ax : axes) {
    mask |= uint64_t(1) << ax;
    red_extent *= a->shape[size_t(ax)] == kUnknownChunk ? 1 : a->shape[size_t(ax)];
  }
  // Unknown block sizes (after x[mask]): arg-reductions need the blocks' offsets.
  if (is_arg(op)) require_known_chunks(*a, red_name(op));
  if (red_extent == 0) {
    switch (base_op(op)) {
      case CA_RED_MIN: fail(CA_EINVAL, "zero-size array to reduction operation minimum which has no identity");
      case CA_RED_MAX: fail(CA_EINVAL, "zero-size array to reduction operation maximum which has no identity");
      case CA_RED_ARGMIN: fail(CA_EINVAL, "attempt to get argmin of an empty sequence");
      case CA_RED_ARGMAX: fail(CA_EINVAL, "attempt to get argmax of an empty sequence");
      default: break;
    }
  }
  const int32_t argaxis = is_arg(op) && !flat && nd > 0 ? axes[0] : -1;

  Tokenizer tk(red_name(op));
  tk.add(*a).add(int64_t(mask)).add(int64_t(keepdims)).add(split_every).add(ddof).add(int64_t(out)).add(argaxis);
  const std::string final_name = tk.name();
  const std::string hex = hex_of(final_name);
  const std::string prefix = red_name(op);

  const std::vector<int64_t> spec{kop, in, out, int64_t(mask), argaxis, ddof};
  FusedArgs fa = fused_args(a);
  std::shared_ptr<Graph> g = merge_graphs(fused_leaf_arrays(fa));

  // chunk layer: one task per input block, keys over a's grid
  std::vector<std::string> deps;
  std::vector<BlockwiseArg> bargs;
  bargs.push_back(blockwise_literal(ca_arg_bytes(fa.program.data(), fa.program.size())));
  bargs.push_back(tuple_lit(spec));
  bargs.push_back(tuple_lit(a->shape));
  bargs.push_back(blockwise_special(BlockwiseArg::BlockOrigin));
  bargs.push_back(blockwise_special(BlockwiseArg::BlockShape));
  fused_leaf_args(fa, deps, bargs);
  const std::string chunk_name = str(prefix, "-chunk-", hex);
  g->add_layer(std::make_shared<BlockwiseLayer>(chunk_name, a->chunks, "ca.reduce_chunk", deps, std::move(bargs)));

  const Chunks final_chunks = reduced_chunks(a->chunks, mask, keepdims);
  TreeReduceSpec t;
  t.input = chunk_name;
  t.numblocks = a->numblocks;
  t.mask = mask;
  t.split = split_every_per_axis(split_every, axes.size());
  t.combine_kernel = "ca.reduce_combine";
  t.combine_extra = {tuple_lit(spec)};
  t.level_prefix = prefix + "-combine";
  t.hex = hex;
  t.agg_kernel = "ca.reduce_agg";
  t.agg_extra = {tuple_lit(spec), blockwise_special(BlockwiseArg::BlockShape)};
  t.keepdims = keepdims;
  t.name = final_name;
  t.chunks = final_chunks;
  tree_reduce(*g, t);
  return array_from_layer(g, final_name, final_chunks, out);
}

ArrayPtr reduction(const ArrayPtr &a, const std::string &chunk, const std::string &combine,
                   const std::string &aggregate, std::vector<int32_t> axes, bool keepdims, int32_t split_every,
                   DType dtype) {
  CA_CHECK(a, CA_EINVAL, "array is NULL");
  CA_CHECK(!chunk.empty(), CA_EINVAL, "reduction: the chunk kernel name is empty");
  CA_CHECK(!aggregate.empty(), CA_EINVAL, "reduction: the aggregate kernel name is empty");
  const DType out = dtype ? dtype : a->dtype;
  CA_CHECK(dtype_valid(out), CA_ETYPE, "reduction: invalid dtype ", dtype);
  const int32_t nd = a->ndim();
  axes = normalize_axes(std::move(axes), nd);
  CA_CHECK(nd < CA_MAX_NDIM, CA_EINVAL, "reductions support up to ", CA_MAX_NDIM - 1, " dimensions");
  uint64_t mask = 0;
  for (int32_t ax : axes) mask |= uint64_t(1) << ax;
  for (int32_t d = 0; d < nd; ++d)
    if (!((mask >> d) & 1) && !keepdims) require_known_chunks(*a, "reduction", d);

  Tokenizer tk("reduction");
  tk.add(*a).add(chunk).add(combine).add(aggregate).add(int64_t(mask)).add(int64_t(keepdims)).add(split_every);
  tk.add(int64_t(out));
  const std::string hex = hex_of(tk.name());
  const std::string prefix = str(aggregate);
  std::shared_ptr<Graph> g = merge_graphs({a});

  BlockwiseArg in;
  in.is_ref = true;
  in.dep_slot = 0;
  for (int32_t d = 0; d < nd; ++d) {
    DimMap m;
    m.kind = DimMap::Out;
    m.out_dim = d;
    m.extent = a->numblocks[size_t(d)];
    in.dims.push_back(m);
  }
  const std::string chunk_name = str(prefix, "-chunk-", hex);
  std::vector<BlockwiseArg> cargs;
  cargs.push_back(std::move(in));
  g->add_layer(std::make_shared<BlockwiseLayer>(chunk_name, a->numblocks, chunk, std::vector<std::string>{a->name},
                                                std::move(cargs)));
  const Chunks kd_chunks = reduced_chunks(a->chunks, mask, true);
  const bool squeeze = !keepdims && mask != 0;
  const std::string agg_name = squeeze ? str(prefix, "-agg-", hex) : str(prefix, "-", hex);
  TreeReduceSpec t;
  t.input = chunk_name;
  t.numblocks = a->numblocks;
  t.mask = mask;
  t.split = split_every_per_axis(split_every, axes.size());
  t.combine_kernel = combine.empty() ? aggregate : combine;
  t.level_prefix = prefix + "-combine";
  t.hex = hex;
  t.agg_kernel = aggregate;
  t.keepdims = true;
  t.name = agg_name;
  t.chunks = kd_chunks;
  tree_reduce(*g, t);
  if (!squeeze) return array_from_layer(g, agg_name, kd_chunks, out);

  // Drop the reduced axes: a view of each aggregate block with the final shape.
  const Chunks final_chunks = reduced_chunks(a->chunks, mask, false);
  BlockwiseArg ref;
  ref.is_ref = true;
  ref.dep_slot = 0;
  int32_t od = 0;
  for (int32_t d = 0; d < nd; ++d) {
    DimMap m;
    m.extent = kd_chunks[size_t(d)].size();
    if ((mask >> d) & 1) {
      m.kind = DimMap::Const;
      m.value = 0;
    } else {
      m.kind = DimMap::Out;
      m.out_dim = od++;
    }
    ref.dims.push_back(m);
  }
  std::vector<BlockwiseArg> sargs;
  sargs.push_back(std::move(ref));
  sargs.push_back(blockwise_special(BlockwiseArg::BlockShape));
  const std::string final_name = str(prefix, "-", hex);
  g->add_layer(std::make_shared<BlockwiseLayer>(final_name, final_chunks, "ca.reduce_squeeze",
                                                std::vector<std::string>{agg_name}, std::move(sargs)));
  return array_from_layer(g, final_name, final_chunks, out);
}

ArrayPtr scan(int32_t op, const ArrayPtr &a, int32_t axis, DType dtype) {
  CA_CHECK(a, CA_EINVAL, "array is NULL");
  if (a->dtype == CA_FLOAT16 && (dtype == 0 || dtype == CA_FLOAT16))  // float32 inside, as reductions
    return elementwise_astype(scan(op, elementwise_astype(a, CA_FLOAT32), axis, 0), CA_FLOAT16);
  if (a->dtype == CA_FLOAT16)  // dtype= another type: every float16 value is exact in float32
    return scan(op, elementwise_astype(a, CA_FLOAT32), axis, dtype);
  CA_CHECK(dtype_is_numeric(a->dtype), CA_ETYPE, scan_name(op), " is not supported for ",
           dtype_name(a->dtype) ? dtype_name(a->dtype) : "an invalid dtype");
  const DType out = scan_result_dtype(op, a->dtype, dtype);
  const int32_t nd = a->ndim();
  CA_CHECK(axis >= -nd && axis < nd, CA_EINVAL, "axis ", axis, " is out of bounds for array of dimension ", nd);
  if (axis < 0) axis += nd;
  // nan-variants of NaN-free dtypes are the plain scans
  int32_t kop = op;
  if (!dtype_is_float(a->dtype) && !dtype_is_complex(a->dtype))
    kop = scan_base(op);

  Tokenizer tk(scan_name(op));
  tk.add(*a).add(axis).add(int64_t(out));
  const std::string final_name = tk.name();
  const std::string hex = hex_of(final_name);
  const std::string prefix = scan_name(op);
  const std::vector<int64_t> spec{kop, a->dtype, out, axis};

  FusedArgs fa = fused_args(a);
  // Unknown block sizes (after x[mask]) are fine, as in dask: the carry chain follows block indices
  // and each block's extent is its own. Only generated inputs need the blocks' origins.
  if (fa.coords) require_known_chunks(*a, scan_name(op));
  std::shared_ptr<Graph> g = merge_graphs(fused_leaf_arrays(fa));
  const bool single = a->numblocks[size_t(axis)] <= 1;
  const std::string block_name = single ? final_name : str(prefix, "-block-", hex);
  std::vector<std::string> deps;
  std::vector<BlockwiseArg> bargs;
  bargs.push_back(blockwise_literal(ca_arg_bytes(fa.program.data(), fa.program.size())));
  bargs.push_back(tuple_lit(spec));
  bargs.push_back(blockwise_special(BlockwiseArg::BlockShape));
  bargs.push_back(blockwise_special(BlockwiseArg::BlockOrigin));
  fused_leaf_args(fa, deps, bargs);
  g->add_layer(std::make_shared<BlockwiseLayer>(block_name, a->chunks, "ca.scan_block", deps, std::move(bargs)));
  if (single) return array_from_layer(g, final_name, a->chunks, out);

  // The carry chain (dask's cumreduction): carry(k) = carry(k-1) op last(block(k-1)), k >= 1, then
  // out(k) = block(k) op carry(k).
  const std::string carry_name = str(prefix, "-carry-", hex);
  const Index total = a->nblocks();
  std::vector<Index> idx(size_t(nd), 0);
  std::vector<Index> prev = idx;
  const ca_arg_t spec_arg = ca_arg_tuple(spec.data(), spec.size());
  for (Index t = 0; t < total; ++t) {
    Index r = t;
    for (int32_t d = nd - 1; d >= 0; --d) {
      idx[size_t(d)] = r % a->numblocks[size_t(d)];
      r /= a->numblocks[size_t(d)];
    }
    const Index k = idx[size_t(axis)];
    if (k == 0) {
      ca_arg_t ref = ca_arg_key(block_name.c_str(), idx.data(), nd);
      g->add_task(KeyRef{final_name.c_str(), idx.data(), nd}, "ca.identity", &ref, 1);
      continue;
    }
    prev = idx;
    prev[size_t(axis)] = k - 1;
    ca_arg_t cargs[3] = {spec_arg, k >= 2 ? ca_arg_key(carry_name.c_str(), prev.data(), nd) : ca_arg_none(),
                         ca_arg_key(block_name.c_str(), prev.data(), nd)};
    g->add_task(KeyRef{carry_name.c_str(), idx.data(), nd}, "ca.scan_carry", cargs, 3);
    ca_arg_t oargs[3] = {spec_arg, ca_arg_key(block_name.c_str(), idx.data(), nd),
                         ca_arg_key(carry_name.c_str(), idx.data(), nd)};
    g->add_task(KeyRef{final_name.c_str(), idx.data(), nd}, "ca.scan_apply", oargs, 3);
  }
  return array_from_layer(g, final_name, a->chunks, out);
}

}  // namespace ca
