// NumPy routines with dask's chunks (see routines.hpp); kernels in routines_kernels.cpp.
#include "array/routines.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

#include "array/create.hpp"
#include "array/expr.hpp"
#include "array/shape.hpp"
#include "array/slicing.hpp"
#include "core/checked.hpp"
#include "graph/graph.hpp"
#include "graph/layer.hpp"

namespace ca {

namespace {

constexpr Index rt_kDefaultChunkBytes = Index(128) << 20;  // dask's array.chunk-size

// The letter of a contracted one-block operand (never among an output's letters: CA_MAX_NDIM < 51).
const std::string rt_kWhole = "Z";

const ArrayPtr &rt_need(const ArrayPtr &a, const char *what, const char *param = "array") {
  CA_CHECK(a, CA_EINVAL, what, ": ", param, " is NULL");
  return a;
}

void rt_check_sortable(DType t, const char *what) {
  CA_CHECK(dtype_is_numeric(t), CA_ETYPE, what, ": dtype ", dtype_name(t),
           " is not supported (bool, integer, floating and complex dtypes are)");
}

// The array as one block (a rechunk unless it is one block already).
ArrayPtr rt_one_block(const ArrayPtr &a, const char *what) {
  bool single = true;
  for (Index n : a->numblocks) single = single && n == 1;
  if (single) return a;
  require_known_chunks(*a, what);
  Chunks c;
  for (Index s : a->shape) c.push_back({s});
  return rechunk(a, c);
}

// Both arrays cast to their common dtype (NumPy compares in the promoted type).
void rt_promote_pair(ArrayPtr &a, ArrayPtr &b) {
  DType t = dtype_promote(a->dtype, b->dtype);
  if (a->dtype != t) a = elementwise_astype(a, t);
  if (b->dtype != t) b = elementwise_astype(b, t);
}

ca_scalar_t rt_typed_zero(DType t) {
  ca_scalar_t s{};
  s.kind = t;
  s.flags = CA_SCALAR_TYPED;
  return s;
}

IndexItem rt_slice_from(Index start) {
  IndexItem r;
  r.has_start = true;
  r.start = start;
  return r;
}
IndexItem rt_slice_to(Index stop) {
  IndexItem r;
  r.has_stop = true;
  r.stop = stop;
  return r;
}

// An index that applies `item` along `axis` (whole axes before it).
std::vector<IndexItem> rt_at_axis(int32_t axis, IndexItem item) {
  std::vector<IndexItem> idx(size_t(axis), IndexItem::all());
  idx.push_back(std::move(item));
  return idx;
}

}  // namespace

// ---- creation ------------------------------------------------------------------------------------

ArrayPtr like(LikeKind kind, const ArrayPtr &a, DType dtype, const std::vector<Index> *shape, const Chunks *chunks,
              std::complex<double> value, Index limit) {
  rt_need(a, "like");
  const DType dt = dtype == CA_DTYPE_INVALID ? a->dtype : dtype;
  std::vector<Index> shp;
  Chunks ch;
  if (!shape) {
    require_known_chunks(*a, "*_like");
    shp = a->shape;
    ch = chunks ? *chunks : a->chunks;
  } else {
    shp = *shape;
    ch = chunks ? *chunks : normalize_chunks({}, shp, dt, limit > 0 ? limit : rt_kDefaultChunkBytes);
  }
  switch (kind) {
    case LikeKind::Empty: return empty(shp, ch, dt);
    case LikeKind::Zeros: return zeros(shp, ch, dt);
    case LikeKind::Ones: return ones(shp, ch, dt);
    case LikeKind::Full: return full(shp, ch, dt, value);
  }
  fail(CA_EINVAL, "like: unknown kind ", int32_t(kind));
}

ArrayPtr indices(const std::vector<Index> &dims, const Chunks &chunks, DType dtype) {
  CA_CHECK(dtype_is_numeric(dtype), CA_ETYPE, "indices: dtype ", dtype_name(dtype), " is not a numeric dtype");
  CA_CHECK(dims.size() < CA_MAX_NDIM, CA_EINVAL, "indices: ", dims.size(), " dimensions (max ", CA_MAX_NDIM - 1,
           ")");
  for (size_t d = 0; d < dims.size(); ++d)
    CA_CHECK(dims[d] >= 0, CA_EINVAL, "indices: negative dimensions are not allowed (dimensions[", d, "] = ", dims[d],
             ")");
  check_chunks_shape(chunks, dims, "indices");
  const Index n = Index(dims.size());
  Chunks out{n == 0 ? std::vector<Index>{0} : std::vector<Index>(size_t(n), 1)};
  out.insert(out.end(), chunks.begin(), chunks.end());
  (void)shape_size(chunks_shape(out));  // overflow check
  std::string name = Tokenizer("indices").add(dims).add(chunks).add(int64_t(dtype)).name();
  std::vector<BlockwiseArg> args;
  args.push_back(blockwise_literal(ca_arg_i64(dtype)));
  args.push_back(blockwise_special(BlockwiseArg::BlockOrigin));
  args.push_back(blockwise_special(BlockwiseArg::BlockShape));
  auto layer = std::make_shared<BlockwiseLayer>(name, out, "ca.indices", std::vector<std::string>{},
                                                std::move(args));
  auto g = std::make_shared<Graph>();
  g->add_layer(layer);
  return array_from_layer(g, name, out, dtype);
}

std::vector<ArrayPtr> broadcast_arrays(const std::vector<ArrayPtr> &arrays0) {
  if (arrays0.empty()) return {};
  for (auto &a : arrays0) rt_need(a, "broadcast_arrays", "an array");
  // dask: unify_chunks with the axes counted from the end, then broadcast_to(shape, chunks).
  std::vector<std::string> inds;
  int32_t nd = 0;
  for (auto &a : arrays0) {
    std::string s;
    for (int32_t d = 0; d < a->ndim(); ++d) s += kIndexLetters[a->ndim() - 1 - d];
    inds.push_back(s);
    nd = std::max(nd, a->ndim());
  }
  for (int32_t o = 0; o < nd; ++o) {  // NumPy's message before unify_chunks' own
    Index ext = 1;
    for (auto &a : arrays0) {
      const int32_t d = o - (nd - a->ndim());
      const Index e = d < 0 ? 1 : a->shape[size_t(d)];
      if (e == 1) continue;
      if (ext != 1 && ext != e) {
        std::string msg;
        for (size_t j = 0; j < arrays0.size(); ++j) msg += (j ? " " : "") + shape_str(arrays0[j]->shape);
        fail(CA_EINVAL, "shape mismatch: objects cannot be broadcast to a single shape: ", msg);
      }
      ext = e;
    }
  }
  std::vector<ArrayPtr> arrays = unify_chunks(arrays0, inds);
  std::vector<Index> shape(size_t(nd), 1);
  Chunks chunks(static_cast<size_t>(nd));
  for (int32_t o = 0; o < nd; ++o) {
    std::vector<const std::vector<Index> *> cs;
    const std::vector<Index> one{1};
    for (size_t i = 0; i < arrays.size(); ++i) {
      const Array &a = *arrays[i];
      int32_t d = o - (nd - a.ndim());
      const std::vector<Index> &c = d < 0 ? one : a.chunks[size_t(d)];
      Index ext = d < 0 ? 1 : a.shape[size_t(d)];
      if (ext != 1) {
        if (shape[size_t(o)] != 1 && shape[size_t(o)] != ext) {
          std::string msg;
          for (size_t j = 0; j < arrays0.size(); ++j) msg += (j ? " " : "") + shape_str(arrays0[j]->shape);
          fail(CA_EINVAL, "shape mismatch: objects cannot be broadcast to a single shape: ", msg);
        }
        shape[size_t(o)] = ext;
      }
      cs.push_back(&c);
    }
    // dask's broadcast_chunks: the chunks other than (1,) must agree (after unify_chunks they do).
    const std::vector<Index> *pick = nullptr;
    for (auto *c : cs) {
      if (*c == one) continue;
      CA_CHECK(!pick || *pick == *c, CA_EINVAL, "broadcast_arrays: chunks do not align along axis ", o, ": ",
               chunks_str(Chunks{*pick}), " and ", chunks_str(Chunks{*c}));
      pick = c;
    }
    chunks[size_t(o)] = pick ? *pick : one;
  }
  std::vector<ArrayPtr> out;
  for (auto &a : arrays) out.push_back(broadcast_to(a, shape, &chunks));
  return out;
}

std::vector<ArrayPtr> meshgrid(const std::vector<ArrayPtr> &xs, bool xy, bool sparse) {
  const size_t n = xs.size();
  CA_CHECK(n <= CA_MAX_NDIM, CA_EINVAL, "meshgrid: ", n, " arrays (max ", CA_MAX_NDIM, ")");
  std::vector<ArrayPtr> flat;
  for (auto &x : xs) flat.push_back(ravel(rt_need(x, "meshgrid", "an array")));
  if (xy && n > 1) std::swap(flat[0], flat[1]);
  std::vector<ArrayPtr> grid;
  for (size_t i = 0; i < n; ++i) {
    std::vector<int64_t> axes;
    for (size_t j = 0; j < n; ++j)
      if (j != i) axes.push_back(int64_t(j));
    grid.push_back(axes.empty() ? flat[i] : expand_dims(flat[i], axes));
  }
  if (!sparse) grid = broadcast_arrays(grid);
  if (xy && n > 1) std::swap(grid[0], grid[1]);
  return grid;
}

namespace {

// dask's tri(N, M, k, chunks=c) builds its mask from two aranges chunked by the first block size of
// each axis (creation.py: chunks[0][0], chunks[1][0]): uniform blocks, whatever the rest of c says.
// tril/triu/tril_indices inherit that; where() then unifies the mask's chunks with m's.
Chunks rt_dask_tri_chunks(const Chunks &c, Index n, Index m) {
  auto uniform = [](const std::vector<Index> &dim, Index extent) {
    const Index size = dim.empty() ? extent : dim[0];
    return size > 0 ? blocks_of(extent, size) : std::vector<Index>{extent};
  };
  return Chunks{uniform(c[0], n), uniform(c[1], m)};
}

ArrayPtr rt_tri_where(const ArrayPtr &m, Index k, bool upper) {
  const char *what = upper ? "triu" : "tril";
  rt_need(m, what);
  CA_CHECK(m->ndim() >= 2, CA_EINVAL, what, ": the array must have at least 2 dimensions, got ", m->ndim());
  const int32_t nd = m->ndim();
  require_known_chunks(*m, what, nd - 2);
  require_known_chunks(*m, what, nd - 1);
  CA_CHECK(k > std::numeric_limits<Index>::min(), CA_EINVAL, what, ": k = ", k, " is out of range");
  const Index rows = m->shape[size_t(nd - 2)], cols = m->shape[size_t(nd - 1)];
  Chunks c2 = rt_dask_tri_chunks(Chunks{m->chunks[size_t(nd - 2)], m->chunks[size_t(nd - 1)]}, rows, cols);
  ArrayPtr mask = tri(rows, cols, upper ? k - 1 : k, c2, CA_BOOL);
  ca_scalar_t zero = rt_typed_zero(m->dtype);
  // dask: where(mask, m, zeros_like(m, shape=(1,))) keeps m's dtype.
  return upper ? elementwise_where(mask, nullptr, m, zero, zero) : elementwise_where(mask, m, nullptr, zero, zero);
}

}  // namespace

ArrayPtr tril(const ArrayPtr &m, Index k) { return rt_tri_where(m, k, false); }
ArrayPtr triu(const ArrayPtr &m, Index k) { return rt_tri_where(m, k, true); }

std::vector<ArrayPtr> tri_indices(Index n, Index k, Index m, const Chunks &chunks, bool upper) {
  const char *what = upper ? "triu_indices" : "tril_indices";
  CA_CHECK(k > std::numeric_limits<Index>::min(), CA_EINVAL, what, ": k = ", k, " is out of range");
  CA_CHECK(chunks.size() == 2, CA_EINVAL, what, ": chunks have ", chunks.size(), " dimensions, (n, m) has 2");
  check_chunks_shape(chunks, {n, m}, what);
  ArrayPtr mask = tri(n, m, upper ? k - 1 : k, rt_dask_tri_chunks(chunks, n, m), CA_BOOL);
  if (upper) mask = elementwise_unary(CA_OP_NOT, mask);
  return nonzero(mask);
}

ArrayPtr diagonal(const ArrayPtr &a, Index offset, int64_t axis1, int64_t axis2) {
  rt_need(a, "diagonal");
  const int32_t nd = a->ndim();
  CA_CHECK(nd >= 2, CA_EINVAL, "diagonal: diag requires an array of at least two dimensions (got ", nd, ")");
  int32_t ax1 = normalize_axis(axis1, nd, "diagonal: axis1");
  int32_t ax2 = normalize_axis(axis2, nd, "diagonal: axis2");
  CA_CHECK(ax1 != ax2, CA_EINVAL, "diagonal: axis1 and axis2 cannot be the same");
  CA_CHECK(offset > std::numeric_limits<Index>::min(), CA_EINVAL, "diagonal: offset ", offset, " is out of range");
  Index k = offset;
  if (ax1 > ax2) {
    std::swap(ax1, ax2);
    k = -offset;
  }
  require_known_chunks(*a, "diagonal", ax1);
  require_known_chunks(*a, "diagonal", ax2);
  // The free axes first (their order kept), then axis1, axis2: the kernel takes the diagonal of the
  // last two axes of each block.
  std::vector<int64_t> perm;
  for (int32_t d = 0; d < nd; ++d)
    if (d != ax1 && d != ax2) perm.push_back(d);
  perm.push_back(ax1);
  perm.push_back(ax2);
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i) identity = identity && perm[i] == int64_t(i);
  ArrayPtr t = identity ? a : transpose(a, perm);
  Chunks free(t->chunks.begin(), t->chunks.end() - 2);
  const Index n = t->shape[size_t(nd - 2)], mcols = t->shape[size_t(nd - 1)];
  Index rs = 0, re = 0;  // rows r with 0 <= r < n and 0 <= r + k < mcols
  if (k < mcols && k > -n) {
    rs = std::max<Index>(0, -k);
    re = std::min<Index>(n, mcols - k);
  }
  std::vector<Index> free_shape(t->shape.begin(), t->shape.end() - 2);
  if (re <= rs) {
    Chunks oc = free;
    oc.push_back({0});
    std::vector<Index> os = free_shape;
    os.push_back(0);
    return zeros(os, oc, a->dtype);
  }
  // Walk the diagonal through the blocks (dask's loop): one segment per block it crosses.
  struct Seg {
    Index bi, bj, k;
  };
  std::vector<Seg> segs;
  std::vector<Index> seg_len;
  auto off = chunk_offsets(t->chunks);
  const std::vector<Index> &c0 = t->chunks[size_t(nd - 2)], &c1 = t->chunks[size_t(nd - 1)];
  const std::vector<Index> &o0 = off[size_t(nd - 2)], &o1 = off[size_t(nd - 1)];
  size_t bi = 0, bj = 0;
  for (Index r = rs; r < re;) {
    while (bi < c0.size() && o0[bi] + c0[bi] <= r) ++bi;
    while (bj < c1.size() && o1[bj] + c1[bj] <= r + k) ++bj;
    CA_CHECK(bi < c0.size() && bj < c1.size(), CA_EINTERNAL, "diagonal: the walk left the chunk grid");
    Index len = std::min({o0[bi] + c0[bi] - r, o1[bj] + c1[bj] - (r + k), re - r});
    segs.push_back({Index(bi), Index(bj), (r + k - o1[bj]) - (r - o0[bi])});
    seg_len.push_back(len);
    r += len;
  }
  Chunks oc = free;
  oc.push_back(seg_len);
  std::string name = Tokenizer("diagonal").add(*a).add(int64_t(offset)).add(int64_t(axis1)).add(int64_t(axis2)).name();
  const int32_t ond = nd - 1;
  auto layer = std::make_shared<MaterializedLayer>(name, ond);
  std::vector<Index> in(static_cast<size_t>(nd));
  const std::vector<Index> onb = numblocks_of(oc);
  const Index total = blocks_product(onb.data(), onb.size(), "diagonal");
  std::vector<Index> idx(size_t(ond), 0);
  for (Index lin = 0; lin < total; ++lin) {
    std::copy(idx.begin(), idx.end() - 1, in.begin());
    const Seg &s = segs[size_t(idx.back())];
    in[size_t(nd - 2)] = s.bi;
    in[size_t(nd - 1)] = s.bj;
    ca_arg_t args[2] = {ca_arg_key(t->name.c_str(), in.data(), nd), ca_arg_i64(s.k)};
    layer->add_task(idx.data(), "ca.diagonal_nd", args, 2);
    for (size_t d = size_t(ond); d-- > 0;) {
      if (++idx[d] < onb[d]) break;
      idx[d] = 0;
    }
  }
  auto g = merge_graphs({t});
  g->add_layer(layer);
  return array_from_layer(g, name, oc, a->dtype);
}

// ---- sorting, sets, searching ----------------------------------------------------------------

ArrayPtr sort(const ArrayPtr &a, int64_t axis, bool descending, bool arg) {
  const char *what = arg ? "argsort" : "sort";
  rt_need(a, what);
  rt_check_sortable(a->dtype, what);
  const int32_t ax = normalize_axis(axis, a->ndim(), what);
  require_known_chunks(*a, what, ax);
  Chunks c = a->chunks;
  c[size_t(ax)] = {a->shape[size_t(ax)]};
  ArrayPtr r = c == a->chunks ? a : rechunk(a, c);
  std::string name = Tokenizer(what).add(*a).add(int64_t(ax)).add(int64_t(descending)).name();
  const std::string L = index_letters(size_t(a->ndim()));
  return blockwise_layer(name, "ca.sort", L,
                         {ArrayArg::of(r, L), ArrayArg::lit(ca_arg_i64(ax)), ArrayArg::lit(ca_arg_i64(descending)),
                          ArrayArg::lit(ca_arg_i64(arg))},
                         c, arg ? CA_INT64 : a->dtype);
}

namespace {

// One task over every block of the 1-d `r`: ca.unique(which, equal_nan, [blocks...]).
ArrayPtr rt_unique_part(const ArrayPtr &r, int64_t which, bool equal_nan, DType dtype) {
  std::string name = Tokenizer("unique").add(*r).add(which).add(int64_t(equal_nan)).name();
  auto layer = std::make_shared<MaterializedLayer>(name, 1);
  std::vector<Index> bidx(size_t(r->numblocks[0]));
  std::vector<ca_arg_t> keys;
  for (Index b = 0; b < r->numblocks[0]; ++b) {
    bidx[size_t(b)] = b;
    keys.push_back(ca_arg_key(r->name.c_str(), &bidx[size_t(b)], 1));
  }
  ca_arg_t args[3] = {ca_arg_i64(which), ca_arg_i64(equal_nan), ca_arg_list(keys.data(), keys.size())};
  const Index zero = 0;
  layer->add_task(&zero, "ca.unique", args, 3);
  auto g = merge_graphs({r});
  g->add_layer(layer);
  return array_from_layer(g, name, Chunks{{kUnknownChunk}}, dtype);
}

// Each block of the 1-d `r` replaced by its unique values (ca.unique per block; unknown sizes).
ArrayPtr rt_unique_blocks(const ArrayPtr &r, bool equal_nan) {
  std::string name = Tokenizer("unique-block").add(*r).add(int64_t(equal_nan)).name();
  const Index nb = r->numblocks[0];
  auto layer = std::make_shared<MaterializedLayer>(name, 1);
  for (Index b = 0; b < nb; ++b) {
    ca_arg_t key = ca_arg_key(r->name.c_str(), &b, 1);
    ca_arg_t args[3] = {ca_arg_i64(0), ca_arg_i64(equal_nan), ca_arg_list(&key, 1)};
    layer->add_task(&b, "ca.unique", args, 3);
  }
  auto g = merge_graphs({r});
  g->add_layer(layer);
  return array_from_layer(g, name, Chunks{std::vector<Index>(size_t(nb), kUnknownChunk)}, r->dtype);
}

// ca.searchsorted over v's blocks with `sorted` as one block: mode 0 searchsorted (right: side),
// 1 digitize (right: NumPy's right=).
ArrayPtr rt_search_blocks(const char *prefix, const ArrayPtr &sorted, const ArrayPtr &v, bool right, int64_t mode) {
  std::string name = Tokenizer(prefix).add(*sorted).add(*v).add(int64_t(right)).add(mode).name();
  const std::string L = index_letters(size_t(v->ndim()));
  return blockwise_layer(name, "ca.searchsorted", L,
                         {ArrayArg::of(v, L), ArrayArg::of(sorted, rt_kWhole), ArrayArg::lit(ca_arg_i64(right)),
                          ArrayArg::lit(ca_arg_i64(mode))},
                         v->chunks, CA_INT64, true);
}

}  // namespace

UniqueResult unique(const ArrayPtr &a, bool want_index, bool want_inverse, bool want_counts, bool equal_nan) {
  rt_need(a, "unique");
  rt_check_sortable(a->dtype, "unique");
  ArrayPtr r = a->ndim() == 1 ? a : ravel(a);
  UniqueResult out;
  // The values as dask computes them: each block's unique values first (in parallel), then the
  // unique values of those (a small final task when values repeat across blocks).
  out.values = rt_unique_part(r->numblocks[0] > 1 ? rt_unique_blocks(r, equal_nan) : r, 0, equal_nan, a->dtype);
  if (want_index) out.index = rt_unique_part(r, 1, equal_nan, CA_INT64);
  if (want_counts) out.counts = rt_unique_part(r, 2, equal_nan, CA_INT64);
  // The inverse: each element's position among the values (a binary search per block, in
  // parallel), with the raveled input's chunks.
  if (want_inverse) out.inverse = rt_search_blocks("unique-inverse", out.values, r, false, 0);
  return out;
}

ArrayPtr isin(const ArrayPtr &element0, const ArrayPtr &test0, bool invert) {
  ArrayPtr e = rt_need(element0, "isin", "element");
  ArrayPtr t = rt_need(test0, "isin", "test_elements");
  rt_check_sortable(e->dtype, "isin");
  rt_check_sortable(t->dtype, "isin");
  rt_promote_pair(e, t);
  t = rt_one_block(t->ndim() == 1 ? t : ravel(t), "isin");
  std::string name = Tokenizer("isin").add(*e).add(*t).add(int64_t(invert)).name();
  const std::string L = index_letters(size_t(e->ndim()));
  return blockwise_layer(name, "ca.isin", L,
                         {ArrayArg::of(e, L), ArrayArg::of(t, rt_kWhole), ArrayArg::lit(ca_arg_i64(invert))}, e->chunks,
                         CA_BOOL, true);
}

ArrayPtr union1d(const ArrayPtr &a, const ArrayPtr &b) {
  rt_need(a, "union1d", "a");
  rt_need(b, "union1d", "b");
  ArrayPtr ra = a->ndim() == 1 ? a : ravel(a), rb = b->ndim() == 1 ? b : ravel(b);
  return unique(concatenate({ra, rb}, 0), false, false, false, true).values;
}

ArrayPtr searchsorted(const ArrayPtr &a0, const ArrayPtr &v0, bool right, const ArrayPtr &sorter) {
  ArrayPtr a = rt_need(a0, "searchsorted", "a");
  ArrayPtr v = rt_need(v0, "searchsorted", "v");
  CA_CHECK(a->ndim() == 1, CA_EINVAL, "searchsorted: a must be 1-d (got ", a->ndim(), " dimensions)");
  rt_check_sortable(a->dtype, "searchsorted");
  rt_check_sortable(v->dtype, "searchsorted");
  if (sorter) {
    CA_CHECK(sorter->ndim() == 1 && dtype_is_integer(sorter->dtype), CA_EINVAL,
             "searchsorted: sorter must be a 1-d integer array");
    CA_CHECK(sorter->shape[0] == a->shape[0] || !chunks_known(sorter->chunks) || !chunks_known(a->chunks), CA_EINVAL,
             "searchsorted: sorter has ", sorter->shape[0], " elements, a has ", a->shape[0]);
    a = take_array(a, sorter, 0);
  }
  rt_promote_pair(a, v);
  return rt_search_blocks("searchsorted", rt_one_block(a, "searchsorted"), v, right, 0);
}

ArrayPtr digitize(const ArrayPtr &x0, const ArrayPtr &bins0, bool right) {
  ArrayPtr x = rt_need(x0, "digitize", "x");
  ArrayPtr bins = rt_need(bins0, "digitize", "bins");
  CA_CHECK(bins->ndim() == 1, CA_EINVAL, "digitize: object too deep for desired array (bins must be 1-d, got ",
           bins->ndim(), " dimensions)");
  rt_check_sortable(x->dtype, "digitize");
  rt_check_sortable(bins->dtype, "digitize");
  CA_CHECK(!dtype_is_complex(x->dtype), CA_ETYPE, "digitize: x may not be complex");
  CA_CHECK(!dtype_is_complex(bins->dtype), CA_ETYPE, "digitize: bins may not be complex");
  rt_promote_pair(x, bins);
  return rt_search_blocks("digitize", rt_one_block(bins, "digitize"), x, right, 1);
}

ArrayPtr argwhere(const ArrayPtr &a) {
  rt_need(a, "argwhere");
  require_known_chunks(*a, "argwhere");
  ca_scalar_t zero{};
  zero.kind = CA_INT64;
  ArrayPtr nz = a->dtype == CA_BOOL ? a : elementwise_scalar(CA_OP_NE, a, zero, false);
  nz = nz->ndim() == 1 ? nz : ravel(nz);
  ArrayPtr ind;
  if (a->ndim() == 0) {
    ind = zeros({1, 0}, Chunks{{1}, {0}}, CA_INT64);
  } else {
    ArrayPtr grid = indices(a->shape, a->chunks, CA_INT64);
    std::vector<ArrayPtr> cols;
    for (int32_t i = 0; i < a->ndim(); ++i) {
      ArrayPtr c = getitem(grid, {IndexItem::integer(i)});
      cols.push_back(c->ndim() == 1 ? c : ravel(c));
    }
    ind = stack(cols, 1);
  }
  return mask_select_axis(ind, nz, 0);
}

std::vector<ArrayPtr> nonzero(const ArrayPtr &a) {
  rt_need(a, "nonzero");
  CA_CHECK(a->ndim() >= 1, CA_EINVAL, "nonzero: a 0-d array has no axes to index (use atleast_1d first, as NumPy asks)");
  ArrayPtr w = argwhere(a);
  std::vector<ArrayPtr> out;
  for (int32_t i = 0; i < a->ndim(); ++i) out.push_back(getitem(w, {IndexItem::all(), IndexItem::integer(i)}));
  return out;
}

ArrayPtr flatnonzero(const ArrayPtr &a) {
  rt_need(a, "flatnonzero");
  return getitem(argwhere(a->ndim() == 1 ? a : ravel(a)), {IndexItem::all(), IndexItem::integer(0)});
}

// ---- manipulation ----------------------------------------------------------------------------

ArrayPtr roll(const ArrayPtr &a, const std::vector<Index> &shifts, const std::vector<int64_t> &axes0) {
  rt_need(a, "roll");
  ArrayPtr r = a;
  std::vector<int64_t> axes = axes0;
  if (axes.empty()) {
    CA_CHECK(shifts.size() == 1, CA_EINVAL, "roll: one shift is needed when axis is None (got ", shifts.size(), ")");
    r = ravel(a);
    axes = {0};
  }
  CA_CHECK(shifts.size() == axes.size(), CA_EINVAL, "roll: Must have the same number of shifts as axes (",
           shifts.size(), " shifts, ", axes.size(), " axes)");
  for (size_t j = 0; j < axes.size(); ++j) {
    const int32_t i = normalize_axis(axes[j], r->ndim(), "roll");
    require_known_chunks(*r, "roll", i);
    const Index ext = r->shape[size_t(i)];
    // Python's -shift % extent, without overflowing for the most negative shift.
    const Index q = ext == 0 ? 0 : shifts[j] % ext;
    const Index s = ext == 0 ? 0 : ((-q) % ext + ext) % ext;
    ArrayPtr p1 = getitem(r, rt_at_axis(i, rt_slice_from(s)));
    ArrayPtr p2 = getitem(r, rt_at_axis(i, rt_slice_to(s)));
    r = concatenate({p1, p2}, i);
  }
  return r->shape == a->shape ? r : reshape(r, a->shape);
}

ArrayPtr rot90(const ArrayPtr &m, int64_t k, int64_t axis0, int64_t axis1) {
  rt_need(m, "rot90");
  const int32_t nd = m->ndim();
  CA_CHECK(nd >= 2, CA_EINVAL, "rot90: the array must have at least 2 dimensions, got ", nd);
  CA_CHECK(axis0 != axis1 && std::abs(axis0 - axis1) != nd, CA_EINVAL, "rot90: Axes must be different.");
  CA_CHECK(axis0 < nd && axis0 >= -nd && axis1 < nd && axis1 >= -nd, CA_EINVAL, "rot90: Axes=(", axis0, ", ", axis1,
           ") out of range for array of ndim=", nd, ".");
  const int32_t a0 = normalize_axis(axis0, nd, "rot90"), a1 = normalize_axis(axis1, nd, "rot90");
  k = ((k % 4) + 4) % 4;
  if (k == 0) return m;
  if (k == 2) return flip(flip(m, {a0}, false), {a1}, false);
  std::vector<int64_t> perm(static_cast<size_t>(nd));
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[size_t(a0)], perm[size_t(a1)]);
  if (k == 1) return transpose(flip(m, {a1}, false), perm);
  return flip(transpose(m, perm), {a1}, false);
}

ArrayPtr rollaxis(const ArrayPtr &a, int64_t axis, int64_t start) {
  rt_need(a, "rollaxis");
  const int32_t n = a->ndim();
  const int32_t ax = normalize_axis(axis, n, "rollaxis");
  if (start < 0) start += n;
  CA_CHECK(start >= 0 && start < n + 1, CA_EINVAL, "rollaxis: 'start' arg requires ", -n, " <= start < ", n + 1,
           ", but ", start < n ? start - n : start, " was passed in");
  if (ax < start) --start;
  if (ax == start) return a;
  std::vector<int64_t> axes(static_cast<size_t>(n));
  std::iota(axes.begin(), axes.end(), 0);
  axes.erase(axes.begin() + ax);
  axes.insert(axes.begin() + start, ax);
  return transpose(a, axes);
}

}  // namespace ca
