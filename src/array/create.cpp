// Array creation: one symbolic blockwise layer per array (kernels in create_kernels.cpp).
#include "array/create.hpp"

#include <chunkarray/array.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "array/expr.hpp"
#include "core/checked.hpp"
#include "graph/graph.hpp"
#include "graph/layer.hpp"

namespace ca {

namespace {

BlockwiseArg lit(const ca_arg_t &a) { return blockwise_literal(a); }
BlockwiseArg lit_i64(int64_t v) { return blockwise_literal(ca_arg_i64(v)); }

void check_dtype(DType dtype, const char *what) {
  CA_CHECK(dtype_valid(dtype) && dtype != CA_RAW, CA_ETYPE, what, ": dtype ", dtype, " is not a numeric dtype");
}

void check_shape(const std::vector<Index> &shape, const char *what) {
  CA_CHECK(shape.size() <= CA_MAX_NDIM, CA_EINVAL, what, ": ", shape.size(), " dimensions (max ", CA_MAX_NDIM, ")");
  for (size_t d = 0; d < shape.size(); ++d)
    CA_CHECK(shape[d] >= 0, CA_EINVAL, what, ": negative dimensions are not allowed (shape[", d, "] = ", shape[d],
             ")");
  (void)shape_size(shape);  // "shape (...) has more than 2^63-1 elements"
}

// An array whose one layer is a blockwise layer over `chunks` without inputs.
ArrayPtr creation_array(const std::string &name, const std::string &kernel, std::vector<BlockwiseArg> args,
                        const Chunks &chunks, DType dtype) {
  auto layer = std::make_shared<BlockwiseLayer>(name, chunks, kernel, std::vector<std::string>{}, std::move(args));
  auto g = std::make_shared<Graph>();
  g->add_layer(layer);
  return array_from_layer(g, name, chunks, dtype);
}

}  // namespace

ArrayPtr gen_array(const std::string &name, const GenSpec &spec, const std::vector<Index> &shape,
                   const Chunks &chunks) {
  gen_check(spec);
  ExprProgram p;
  p.code.push_back(gen_instr(spec));
  p.out = 0;
  p.gshape = shape;
  p.coords = true;
  const std::string bytes = p.serialize();
  std::vector<BlockwiseArg> args;
  args.push_back(lit(ca_arg_bytes(bytes.data(), bytes.size())));
  args.push_back(blockwise_special(BlockwiseArg::BlockOrigin));
  args.push_back(blockwise_special(BlockwiseArg::BlockShape));
  ArrayPtr base = creation_array(name, "ca.fused", std::move(args), chunks, spec.dtype);
  auto arr = std::make_shared<Array>(*base);
  arr->gen = std::make_shared<const GenSpec>(spec);
  return arr;
}

void check_chunks_shape(const Chunks &chunks, const std::vector<Index> &shape, const char *what) {
  CA_CHECK(chunks.size() == shape.size(), CA_EINVAL, what, ": chunks have ", chunks.size(),
           " dimensions, shape ", shape.size(), " (Chunks and shape must be of the same length/dimension)");
  for (size_t d = 0; d < shape.size(); ++d) {
    for (Index c : chunks[d]) CA_CHECK(c >= 0, CA_EINVAL, what, ": negative block size ", c, " along axis ", d);
    const Index sum = chunks_sum(chunks[d], d, what);
    CA_CHECK(sum == shape[d], CA_EINVAL, "Chunks do not add up to shape: chunks along axis ", d, " sum to ", sum,
             ", shape is ", shape[d], " (", what, ")");
  }
}

// ---- full ---------------------------------------------------------------------------------------

ArrayPtr full(std::vector<Index> shape, const Chunks &chunks, DType dtype, std::complex<double> value) {
  check_dtype(dtype, "full");
  check_shape(shape, "full");
  check_chunks_shape(chunks, shape, "full");
  std::string name = Tokenizer("full")
                         .add(shape)
                         .add(chunks)
                         .add(int64_t(dtype))
                         .add(value.real())
                         .add(value.imag())
                         .name();
  GenSpec g;
  g.kind = GenSpec::Full;
  g.dtype = dtype;
  g.p0 = value.real();
  g.p1 = value.imag();
  return gen_array(name, g, shape, chunks);
}

ArrayPtr full_exact(std::vector<Index> shape, const Chunks &chunks, DType dtype, uint64_t bits, bool is_unsigned) {
  const char *fn = is_unsigned ? "ca_array_full_uint64" : "ca_array_full_int64";
  check_dtype(dtype, fn);
  check_shape(shape, fn);
  check_chunks_shape(chunks, shape, fn);
  CA_CHECK(!dtype_is_string(dtype), CA_ETYPE, fn, ": a ", dtype_name(dtype),
           " array is filled by ca_array_full (an integer's digits), not from an exact integer");
  const int64_t sval = int64_t(bits);
  const bool neg = !is_unsigned && sval < 0;
  if (dtype_is_integer(dtype) || dtype_is_time(dtype)) {
    // exact: the value must be one the dtype holds (times: ticks, an int64)
    const size_t nbits = dtype_is_time(dtype) ? 64 : dtype_size(dtype) * 8;
    const bool is_u = dtype_kind(dtype) == 'u';
    const uint64_t mag = neg ? uint64_t(0) - bits : bits;
    const bool fits = is_u ? !neg && (nbits == 64 || mag < (uint64_t(1) << nbits))
                           : neg ? mag <= (uint64_t(1) << (nbits - 1)) : mag < (uint64_t(1) << (nbits - 1));
    if (!fits) {
      if (is_unsigned) fail(CA_EINVAL, fn, ": the value ", bits, " is out of bounds for ", dtype_name(dtype));
      fail(CA_EINVAL, fn, ": the value ", sval, " is out of bounds for ", dtype_name(dtype));
    }
  }
  const double approx = is_unsigned ? double(bits) : double(sval);
  if (dtype_is_complex(dtype)) return full(std::move(shape), chunks, dtype, approx);  // parts are floats anyway
  ScalarValue sv;
  sv.dtype = is_unsigned ? CA_UINT64 : CA_INT64;
  sv.kind = is_unsigned ? 'u' : 'i';
  sv.i = sval;
  sv.u = bits;
  sv.re = approx;
  uint64_t elem = 0;  // the element's bytes (dtype_size(dtype) <= 8 here)
  store_scalar(sv, dtype, &elem, false);
  std::string name = Tokenizer("full")
                         .add(shape)
                         .add(chunks)
                         .add(int64_t(dtype))
                         .add(int64_t(elem))
                         .name();
  GenSpec g;
  g.kind = GenSpec::Full;
  g.dtype = dtype;
  g.p0 = approx;
  g.i0 = int64_t(elem);
  g.i1 = GenSpec::kFullBits;
  return gen_array(name, g, shape, chunks);
}

ArrayPtr zeros(std::vector<Index> shape, const Chunks &chunks, DType dtype) {
  return full(std::move(shape), chunks, dtype, 0.0);
}
ArrayPtr ones(std::vector<Index> shape, const Chunks &chunks, DType dtype) {
  return full(std::move(shape), chunks, dtype, 1.0);
}
ArrayPtr empty(std::vector<Index> shape, const Chunks &chunks, DType dtype) {
  return full(std::move(shape), chunks, dtype, 0.0);
}

// ---- arange / linspace --------------------------------------------------------------------------

Index arange_length(double start, double stop, double step) {
  CA_CHECK(std::isfinite(start) && std::isfinite(stop) && std::isfinite(step), CA_EINVAL,
           "arange: start, stop and step must be finite (got ", start, ", ", stop, ", ", step, ")");
  CA_CHECK(step != 0, CA_EINVAL, "arange: step must not be zero");
  double n = std::ceil((stop - start) / step);
  if (!(n > 0)) return 0;
  CA_CHECK(n < 9.0e18, CA_EINVAL, "arange: length ", n, " is too large");
  return Index(n);
}

ArrayPtr arange(double start, double stop, double step, const Chunks &chunks, DType dtype) {
  check_dtype(dtype, "arange");
  CA_CHECK(dtype != CA_BOOL, CA_ETYPE, "arange: no fill-function for data-type bool");
  Index n = arange_length(start, stop, step);
  check_chunks_shape(chunks, {n}, "arange");
  std::string name =
      Tokenizer("arange").add(start).add(stop).add(step).add(chunks).add(int64_t(dtype)).name();
  GenSpec g;
  g.kind = GenSpec::Arange;
  g.dtype = dtype;
  g.p0 = start;
  g.p1 = step;
  return gen_array(name, g, {n}, chunks);
}

ArrayPtr linspace(double start, double stop, Index num, bool endpoint, const Chunks &chunks, DType dtype) {
  check_dtype(dtype, "linspace");
  CA_CHECK(num >= 0, CA_EINVAL, "Number of samples, ", num, ", must be non-negative.");
  check_chunks_shape(chunks, {num}, "linspace");
  std::string name = Tokenizer("linspace")
                         .add(start)
                         .add(stop)
                         .add(int64_t(num))
                         .add(int64_t(endpoint))
                         .add(chunks)
                         .add(int64_t(dtype))
                         .name();
  GenSpec g;
  g.kind = GenSpec::Linspace;
  g.dtype = dtype;
  g.p0 = start;
  g.p1 = stop;
  g.i0 = num;
  g.i1 = endpoint ? 1 : 0;
  return gen_array(name, g, {num}, chunks);
}

// ---- eye / tri ----------------------------------------------------------------------------------

namespace {
ArrayPtr diagonal_pattern(const char *what, const char *kernel, Index n, Index m, Index k, const Chunks &chunks,
                          DType dtype) {
  check_dtype(dtype, what);
  check_shape({n, m}, what);
  check_chunks_shape(chunks, {n, m}, what);
  std::string name =
      Tokenizer(what).add(int64_t(n)).add(int64_t(m)).add(int64_t(k)).add(chunks).add(int64_t(dtype)).name();
  std::vector<BlockwiseArg> args;
  args.push_back(lit_i64(dtype));
  args.push_back(lit_i64(k));
  args.push_back(blockwise_special(BlockwiseArg::BlockOrigin));
  args.push_back(blockwise_special(BlockwiseArg::BlockShape));
  return creation_array(name, kernel, std::move(args), chunks, dtype);
}
}  // namespace

ArrayPtr eye(Index n, Index m, Index k, const Chunks &chunks, DType dtype) {
  return diagonal_pattern("eye", "ca.eye", n, m, k, chunks, dtype);
}
ArrayPtr tri(Index n, Index m, Index k, const Chunks &chunks, DType dtype) {
  return diagonal_pattern("tri", "ca.tri", n, m, k, chunks, dtype);
}

// ---- diag ---------------------------------------------------------------------------------------

namespace {

// 1-d v -> 2-d: block (i, j) is np.diag(v block) when it sits on the k-th diagonal, zeros otherwise.
// dask's layout: v's chunks on both axes; k > 0 adds a block of k rows at the bottom and k columns
// at the left (dask's pad), k < 0 the mirror image. The diagonal blocks are then (i, i) shifted by
// one column (k > 0) or row (k < 0), and the v block of output block (i, j) is v[i] (k >= 0) or
// v[j] (k < 0): a Group(1) map clipped to v's block count gives an empty list on the padding.
ArrayPtr diag_1d(const ArrayPtr &v, Index k) {
  const std::vector<Index> &c = v->chunks[0];
  Index ak = k < 0 ? -k : k;
  CA_CHECK(k != std::numeric_limits<Index>::min() && ak <= std::numeric_limits<Index>::max() / 4 - v->shape[0],
           CA_EINVAL, "diag: offset k = ", k, " is too large");
  std::vector<Index> rows, cols;
  if (k == 0) {
    rows = cols = c;
  } else if (k > 0) {
    rows = c;
    rows.push_back(ak);
    cols.push_back(ak);
    cols.insert(cols.end(), c.begin(), c.end());
  } else {
    rows.push_back(ak);
    rows.insert(rows.end(), c.begin(), c.end());
    cols = c;
    cols.push_back(ak);
  }
  Chunks out_chunks{rows, cols};
  std::string name = Tokenizer("diag").add(*v).add(int64_t(k)).name();

  std::vector<BlockwiseArg> args;
  BlockwiseArg ref;
  ref.is_ref = true;
  ref.dep_slot = 0;
  DimMap m;
  m.kind = DimMap::Group;
  m.out_dim = k >= 0 ? 0 : 1;
  m.value = 1;
  m.extent = Index(c.size());
  ref.dims.push_back(m);
  args.push_back(std::move(ref));
  args.push_back(lit_i64(v->dtype));
  args.push_back(lit_i64(k > 0 ? 1 : (k < 0 ? -1 : 0)));
  args.push_back(blockwise_special(BlockwiseArg::BlockIndex));
  args.push_back(blockwise_special(BlockwiseArg::BlockShape));

  auto layer = std::make_shared<BlockwiseLayer>(name, out_chunks, "ca.diag_block", std::vector<std::string>{v->name},
                                                std::move(args));
  auto g = std::make_shared<Graph>(*v->graph);
  g->add_layer(layer);
  return array_from_layer(g, name, out_chunks, v->dtype);
}

// 2-d v -> its k-th diagonal: one output block per input block the diagonal crosses (dask's
// diagonal), each np.diagonal(block, local offset). O(blocks along the diagonal) tasks.
ArrayPtr diag_2d(const ArrayPtr &v, Index k) {
  Index n = v->shape[0], mcols = v->shape[1];
  Index rs, re;
  // Rows r with 0 <= r < n and 0 <= r + k < m.
  if (k >= mcols || k <= -n) {
    rs = re = 0;
  } else {
    rs = std::max<Index>(0, -k);
    re = std::min<Index>(n, mcols - k);
  }
  if (re <= rs) return full({0}, Chunks{{0}}, v->dtype, 0.0);

  std::vector<std::vector<Index>> off = chunk_offsets(v->chunks);
  const std::vector<Index> &c0 = v->chunks[0], &c1 = v->chunks[1];
  std::string name = Tokenizer("diag").add(*v).add(int64_t(k)).name();
  auto g = std::make_shared<Graph>(*v->graph);

  std::vector<Index> out_chunks;
  size_t bi = 0, bj = 0;
  Index r = rs;
  while (r < re) {
    while (bi < c0.size() && off[0][bi] + c0[bi] <= r) ++bi;
    while (bj < c1.size() && off[1][bj] + c1[bj] <= r + k) ++bj;
    CA_CHECK(bi < c0.size() && bj < c1.size(), CA_EINTERNAL, "diag: diagonal walk left the chunk grid");
    Index len = std::min({off[0][bi] + c0[bi] - r, off[1][bj] + c1[bj] - (r + k), re - r});
    Index vidx[2] = {Index(bi), Index(bj)};
    Index oidx[1] = {Index(out_chunks.size())};
    ca_arg_t args[2] = {ca_arg_key(v->name.c_str(), vidx, 2), ca_arg_i64(k - off[1][bj] + off[0][bi])};
    g->add_task(KeyRef{name.c_str(), oidx, 1}, "ca.diagonal", args, 2);
    out_chunks.push_back(len);
    r += len;
  }
  return array_from_layer(g, name, Chunks{out_chunks}, v->dtype);
}

}  // namespace

ArrayPtr diag(const ArrayPtr &v, Index k) {
  CA_CHECK(v, CA_EINVAL, "diag: array is NULL");
  CA_CHECK(v->ndim() == 1 || v->ndim() == 2, CA_EINVAL, "diag: Array must be 1d or 2d only (got ", v->ndim(),
           " dimensions)");
  return v->ndim() == 1 ? diag_1d(v, k) : diag_2d(v, k);
}

// ---- random -------------------------------------------------------------------------------------

void integers_bounds(double low, double high, DType dtype, ca_status_t code, int64_t &lo_bits, uint64_t &range) {
  const double lo = std::trunc(low), hi = std::trunc(high);
  CA_CHECK(lo < hi, code, "integers: low >= high (low ", low, ", high ", high, ")");
  double mn = 0, mx = 0;  // dtype range as doubles; mx is max + 1
  const size_t bits = dtype == CA_BOOL ? 1 : dtype_size(dtype) * 8;
  if (dtype == CA_BOOL || dtype_kind(dtype) == 'u') {
    mn = 0;
    mx = std::ldexp(1.0, int(bits));
  } else {
    mn = -std::ldexp(1.0, int(bits) - 1);
    mx = std::ldexp(1.0, int(bits) - 1);
  }
  CA_CHECK(lo >= mn, code, "integers: low ", low, " is out of bounds for ", dtype_name(dtype));
  CA_CHECK(hi <= mx, code, "integers: high ", high, " is out of bounds for ", dtype_name(dtype));
  const double r = hi - lo;  // exact: both are integers of at most 64 bits apart
  range = r >= 18446744073709551616.0 ? 0 : uint64_t(r);
  lo_bits = lo >= 0 ? int64_t(uint64_t(lo)) : int64_t(lo);
}

ArrayPtr random(int32_t distribution, uint64_t seed, std::vector<Index> shape, const Chunks &chunks, DType dtype,
                double p0, double p1, double p2) {
  check_dtype(dtype, "random");
  check_shape(shape, "random");
  check_chunks_shape(chunks, shape, "random");
  if (distribution >= CA_RANDOM_BETA && random_dist_name(distribution)) {
    const char *nm = random_dist_name(distribution);
    random_dist_validate(distribution, dtype, p0, p1, p2, CA_EINVAL);
    GenSpec g;
    g.kind = GenSpec::DistBase + distribution;
    g.dtype = dtype;
    g.p0 = p0;
    g.p1 = p1;
    std::memcpy(&g.i0, &p2, 8);
    g.seed = seed;
    std::string name = Tokenizer(nm)
                           .add(int64_t(distribution))
                           .add(seed)
                           .add(shape)
                           .add(chunks)
                           .add(int64_t(dtype))
                           .add(p0)
                           .add(p1)
                           .add(p2)
                           .name();
    return gen_array(name, g, shape, chunks);
  }
  CA_CHECK(std::isfinite(p0) && std::isfinite(p1), CA_EINVAL, "random: parameters must be finite (got ", p0, ", ",
           p1, ")");
  int64_t lo_bits = 0;
  uint64_t range = 0;  // integers: hi - lo; 0 means 2**64
  const char *prefix = "random";
  switch (distribution) {
    case CA_RANDOM_UNIFORM:
      prefix = "uniform";
      CA_CHECK(dtype == CA_FLOAT32 || dtype == CA_FLOAT64, CA_ETYPE,
               "uniform: dtype must be float32 or float64 (got ", dtype_name(dtype), ")");
      break;
    case CA_RANDOM_NORMAL:
      prefix = "normal";
      CA_CHECK(dtype == CA_FLOAT32 || dtype == CA_FLOAT64, CA_ETYPE,
               "normal: dtype must be float32 or float64 (got ", dtype_name(dtype), ")");
      CA_CHECK(p1 >= 0, CA_EINVAL, "normal: scale < 0 (standard deviation ", p1, ")");
      break;
    case CA_RANDOM_INTEGERS: {
      prefix = "integers";
      CA_CHECK(dtype_is_integer(dtype) || dtype == CA_BOOL, CA_ETYPE,
               "integers: dtype must be an integer dtype (got ", dtype_name(dtype), ")");
      integers_bounds(p0, p1, dtype, CA_EINVAL, lo_bits, range);
      break;
    }
    default: fail(CA_EINVAL, "random: unknown distribution ", distribution);
  }
  std::string name = Tokenizer(prefix)
                         .add(int64_t(distribution))
                         .add(seed)
                         .add(shape)
                         .add(chunks)
                         .add(int64_t(dtype))
                         .add(p0)
                         .add(p1)
                         .name();
  GenSpec g;
  g.kind = distribution == CA_RANDOM_UNIFORM ? GenSpec::Uniform
           : distribution == CA_RANDOM_NORMAL ? GenSpec::Normal
                                              : GenSpec::Integers;
  g.dtype = dtype;
  g.p0 = p0;
  g.p1 = p1;
  g.i0 = lo_bits;
  g.i1 = int64_t(range);
  g.seed = seed;
  return gen_array(name, g, shape, chunks);
}

// ---- multinomial --------------------------------------------------------------------------------

ArrayPtr random_multinomial(uint64_t seed, int64_t n, const std::vector<double> &pvals, std::vector<Index> size,
                            const Chunks &chunks) {
  const Index k = Index(pvals.size());
  CA_CHECK(k >= 1, CA_EINVAL, "multinomial: pvals must have at least one entry");
  CA_CHECK(n >= 0, CA_EINVAL, "multinomial: n < 0 (got ", n, ")");
  double head = 0;
  for (Index j = 0; j < k; ++j) {
    CA_CHECK(pvals[size_t(j)] >= 0 && pvals[size_t(j)] <= 1, CA_EINVAL,
             "multinomial: pvals < 0, pvals > 1 or pvals contains NaNs (pvals[", j, "] = ", pvals[size_t(j)], ")");
    if (j + 1 < k) head += pvals[size_t(j)];
  }
  CA_CHECK(head <= 1.0 + 1e-12, CA_EINVAL, "multinomial: sum(pvals[:-1]) > 1.0 (", head, ")");
  std::vector<Index> shape = size;
  shape.push_back(k);
  check_shape(shape, "multinomial");
  check_chunks_shape(chunks, shape, "multinomial");
  CA_CHECK(chunks.back().size() == 1, CA_EINVAL, "multinomial: the last axis (the ", k,
           " categories) must be one chunk, not ", chunks.back().size());
  const std::string name = Tokenizer("multinomial")
                               .add(seed)
                               .add(int64_t(n))
                               .add(std::string(reinterpret_cast<const char *>(pvals.data()), pvals.size() * 8))
                               .add(shape)
                               .add(chunks)
                               .name();
  std::vector<int64_t> sz(size.begin(), size.end());
  std::vector<BlockwiseArg> args;
  args.push_back(lit(ca_arg_bytes(pvals.data(), pvals.size() * sizeof(double))));
  args.push_back(lit_i64(n));
  args.push_back(lit_i64(int64_t(seed)));
  args.push_back(lit(ca_arg_tuple(sz.data(), sz.size())));
  args.push_back(blockwise_special(BlockwiseArg::BlockOrigin));
  args.push_back(blockwise_special(BlockwiseArg::BlockShape));
  return creation_array(name, "ca.random_multinomial", std::move(args), chunks, CA_INT64);
}

}  // namespace ca
