// Linear algebra graphs (see linalg.hpp). Kernels: linalg_kernels.cpp.
#include "linalg/linalg.hpp"
#include "core/checked.hpp"

#include <chunkarray/array.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

#include "array/create.hpp"
#include "array/expr.hpp"
#include "array/reduce.hpp"
#include "graph/graph.hpp"

namespace ca::linalg {

namespace {

void check_array(const ArrayPtr &a, const char *what, const char *which) {
  CA_CHECK(a, CA_EINVAL, what, ": ", which, " is NULL");
  CA_CHECK(dtype_valid(a->dtype) && a->dtype != CA_RAW, CA_ETYPE, what, ": ", which, " has no numeric dtype");
}

// Index letters for internal blockwise layers (any distinct chars work).
char letter(int i) { return i < 26 ? char('a' + i) : char('A' + (i - 26)); }

struct Operand {
  ArrayPtr arr;
  std::string index;
};

/// dask's blockwise contraction + tree sum. `out_index` letters come from the operands (broadcast
/// dims of extent 1 allowed); `contracted` letters appear in both operands and not in out_index.
/// The kernel receives (A, B, literals...) with the contracted dims as nested lists.
ArrayPtr contract(const std::string &prefix, const std::string &kernel, Operand A, Operand B,
                  const std::string &out_index, const std::string &contracted, const std::vector<ca_arg_t> &literals,
                  DType dtype, int32_t split_every) {
  auto unified = unify_chunks({A.arr, B.arr}, {A.index, B.index});
  A.arr = unified[0];
  B.arr = unified[1];
  // Output chunks per letter (the non-broadcast operand's).
  Chunks out_chunks;
  for (char c : out_index) {
    std::vector<Index> ch;
    bool found = false;
    for (const Operand *op : {&A, &B}) {
      size_t d = op->index.find(c);
      if (d == std::string::npos) continue;
      bool broadcast = op->arr->shape[d] == 1 && op->arr->numblocks[d] == 1;
      if (!found || (ch.size() == 1 && ch[0] == 1 && !broadcast)) ch = op->arr->chunks[d];
      found = true;
    }
    CA_CHECK(found, CA_EINTERNAL, "contract: output letter '", c, "' in no operand");
    out_chunks.push_back(ch);
  }
  std::vector<Index> free_nb;
  for (auto &c : out_chunks) free_nb.push_back(Index(c.size()));
  std::vector<Index> nk;
  for (char c : contracted) nk.push_back(A.arr->numblocks[A.index.find(c)]);
  const Index split = split_every_per_axis(split_every, contracted.size());
  bool tree = false;
  for (Index n : nk) tree = tree || n > split;

  Tokenizer tok(prefix);
  tok.add(kernel).add(*A.arr).add(A.index).add(*B.arr).add(B.index).add(out_index).add(contracted).add(int64_t(dtype));
  for (auto &l : literals) tok.add_arg(l);
  tok.add(int64_t(split));
  const std::string name = tok.name();
  const std::string hex = name.substr(prefix.size() + 1);

  std::vector<std::string> deps;
  auto operand_arg = [&](const Operand &op) {
    BlockwiseArg b;
    b.is_ref = true;
    auto it = std::find(deps.begin(), deps.end(), op.arr->name);
    b.dep_slot = int32_t(it - deps.begin());
    if (it == deps.end()) deps.push_back(op.arr->name);
    for (size_t d = 0; d < op.index.size(); ++d) {
      DimMap m;
      m.extent = op.arr->numblocks[d];
      size_t od = out_index.find(op.index[d]);
      if (od != std::string::npos) {
        m.kind = DimMap::Out;
        m.out_dim = int32_t(od);
      } else {
        size_t p = contracted.find(op.index[d]);
        CA_CHECK(p != std::string::npos, CA_EINTERNAL, "contract: letter '", op.index[d], "' is neither kept nor contracted");
        if (tree) {
          m.kind = DimMap::Group;
          m.out_dim = int32_t(out_index.size() + p);
          m.value = split;
        } else {
          m.kind = DimMap::All;
        }
      }
      b.dims.push_back(m);
    }
    return b;
  };
  std::vector<BlockwiseArg> args{operand_arg(A), operand_arg(B)};
  for (auto &l : literals) args.push_back(blockwise_literal(l));
  auto g = merge_graphs({A.arr, B.arr});
  if (!tree) {
    g->add_layer(std::make_shared<BlockwiseLayer>(name, out_chunks, kernel, deps, std::move(args)));
    return array_from_layer(g, name, out_chunks, dtype);
  }
  // Level 0: partial products per group of `split` blocks along each contracted axis.
  std::vector<Index> nb = free_nb;
  for (Index n : nk) nb.push_back((n + split - 1) / split);
  std::string cur = prefix + "-partial-" + hex;
  g->add_layer(std::make_shared<BlockwiseLayer>(cur, nb, kernel, deps, std::move(args)));
  // Then sum the partials over the contracted dimensions (after the free ones), dropping them.
  CA_CHECK(nb.size() <= 64, CA_EINVAL, prefix, ": ", nb.size(), " free and contracted dimensions, at most 64");
  TreeReduceSpec t;
  t.input = cur;
  t.numblocks = nb;
  for (size_t d = free_nb.size(); d < nb.size(); ++d) t.mask |= uint64_t(1) << d;
  t.split = split;
  t.combine_kernel = t.agg_kernel = "ca.linalg.sum";
  t.level_prefix = prefix + "-sum";
  t.hex = hex;
  t.keepdims = false;
  t.name = name;
  t.chunks = out_chunks;
  tree_reduce(*g, t);
  return array_from_layer(g, name, out_chunks, dtype);
}

/// a @ a.T (at_a false) or a.T @ a (at_a true) of a 2-d float32/float64 array, as NumPy computes
/// them (its matmul calls BLAS syrk for an operand and its own transpose): the result is symmetric,
/// so only the blocks on and above the diagonal are computed (a gemm per pair of blocks along the
/// contracted axis, syrk on the diagonal); a block below it is its mirror's transpose, a task of
/// the same layer (so placement keeps it with its mirror). About half the multiplications of the
/// general product, and the result is exactly symmetric. Null when this does not apply (other
/// dtypes, unknown chunks, more than `split` blocks along the contracted axis: the general
/// product's tree sum runs then).
ArrayPtr gram(const ArrayPtr &a, bool at_a, int32_t split_every) {
  if (a->ndim() != 2 || (a->dtype != CA_FLOAT32 && a->dtype != CA_FLOAT64)) return nullptr;
  for (const auto &c : a->chunks)
    for (Index v : c)
      if (v == kUnknownChunk) return nullptr;
  const int c = at_a ? 0 : 1, f = 1 - c;
  const Index nk = a->numblocks[size_t(c)], nf = a->numblocks[size_t(f)];
  if (nk > split_every_per_axis(split_every, 1) || nk == 0) return nullptr;
  const std::string name = Tokenizer("gram").add(*a).add(int64_t(at_a)).name();
  auto g = merge_graphs({a});
  const int64_t dt = int64_t(a->dtype), cc = c;
  const int64_t spec[5] = {2, 2, 1, cc, cc}, perm[2] = {1, 0};
  std::vector<Index> ii(static_cast<size_t>(nk) * 2), jj(static_cast<size_t>(nk) * 2);
  std::vector<ca_arg_t> la(static_cast<size_t>(nk)), lb(static_cast<size_t>(nk));
  for (Index i = 0; i < nf; ++i)
    for (Index j = 0; j < nf; ++j) {
      const Index key[2] = {i, j};
      if (i > j) {
        const Index mirror[2] = {j, i};
        ca_arg_t args[2] = {ca_arg_key(name.c_str(), mirror, 2), ca_arg_tuple(perm, 2)};
        g->add_task(KeyRef{name.c_str(), key, 2}, "ca.shape.transpose", args, 2);
        continue;
      }
      for (Index k = 0; k < nk; ++k) {
        Index *pi = &ii[size_t(2 * k)], *pj = &jj[size_t(2 * k)];
        pi[c] = k;
        pi[f] = i;
        pj[c] = k;
        pj[f] = j;
        la[size_t(k)] = ca_arg_key(a->name.c_str(), pi, 2);
        lb[size_t(k)] = ca_arg_key(a->name.c_str(), pj, 2);
      }
      if (i == j) {
        ca_arg_t args[3] = {ca_arg_list(la.data(), la.size()), ca_arg_i64(at_a), ca_arg_i64(dt)};
        g->add_task(KeyRef{name.c_str(), key, 2}, "ca.linalg.syrk", args, 3);
      } else {
        ca_arg_t args[4] = {ca_arg_list(la.data(), la.size()), ca_arg_list(lb.data(), lb.size()),
                            ca_arg_tuple(spec, 5), ca_arg_i64(dt)};
        g->add_task(KeyRef{name.c_str(), key, 2}, "ca.linalg.tensordot", args, 4);
      }
    }
  return array_from_layer(g, name, Chunks{a->chunks[size_t(f)], a->chunks[size_t(f)]}, a->dtype);
}

DType product_dtype(const ArrayPtr &a, const ArrayPtr &b) { return dtype_promote(a->dtype, b->dtype); }

ArrayPtr cast(const ArrayPtr &a, DType dt) { return a->dtype == dt ? a : elementwise_astype(a, dt); }

DType real_dtype(DType t) {
  if (t == CA_COMPLEX64) return CA_FLOAT32;
  if (t == CA_COMPLEX128) return CA_FLOAT64;
  return t;
}

ca_scalar_t fscalar(double v) {
  ca_scalar_t s{};
  s.kind = CA_FLOAT64;
  s.re = v;
  return s;
}

/// The products' dtype rules beyond the BLAS types: float16 computes in float32 and rounds the result
/// once (NumPy's half matmul/dot loops accumulate in float); datetime/string operands are refused
/// when the graph is built, not when a kernel meets them. Returns the float16 result when it handled
/// the product, nullptr otherwise.
template <class F>
ArrayPtr product_special_dtypes(const char *what, const ArrayPtr &a, const ArrayPtr &b, F &&product) {
  for (const ArrayPtr &x : {a, b})
    if (dtype_is_time(x->dtype) || dtype_is_string(x->dtype) || x->dtype == CA_RAW)
      fail(CA_ETYPE, what, ": not supported for the dtype ", dtype_name(x->dtype));
  if (dtype_promote(a->dtype, b->dtype) != CA_FLOAT16) return nullptr;
  return elementwise_astype(product(elementwise_astype(a, CA_FLOAT32), elementwise_astype(b, CA_FLOAT32)), CA_FLOAT16);
}

}  // namespace

DType lapack_dtype(DType t) {
  if (t == CA_FLOAT32 || t == CA_FLOAT64 || t == CA_COMPLEX64 || t == CA_COMPLEX128) return t;
  return CA_FLOAT64;
}

// ---- products ------------------------------------------------------------------------------------

ArrayPtr tensordot(const ArrayPtr &a, const ArrayPtr &b, std::vector<int32_t> a_axes, std::vector<int32_t> b_axes,
                   int32_t split_every) {
  check_array(a, "tensordot", "a");
  check_array(b, "tensordot", "b");
  if (auto r = product_special_dtypes("tensordot", a, b, [&](const ArrayPtr &x, const ArrayPtr &y) {
        return tensordot(x, y, a_axes, b_axes, split_every);
      }))
    return r;
  CA_CHECK(a_axes.size() == b_axes.size(), CA_EINVAL, "tensordot: the axes lists have different lengths (",
           a_axes.size(), " and ", b_axes.size(), ")");
  const int32_t nda = a->ndim(), ndb = b->ndim();
  for (auto *ax : {&a_axes, &b_axes}) {
    const int32_t nd = ax == &a_axes ? nda : ndb;
    for (int32_t &v : *ax) {
      CA_CHECK(v >= -nd && v < nd, CA_EINVAL, "tensordot: axis ", v, " is out of bounds for ",
               ax == &a_axes ? "a" : "b", " of shape ", shape_str(ax == &a_axes ? a->shape : b->shape));
      if (v < 0) v += nd;
    }
    std::vector<int32_t> s = *ax;
    std::sort(s.begin(), s.end());
    CA_CHECK(std::adjacent_find(s.begin(), s.end()) == s.end(), CA_EINVAL, "tensordot: repeated axis in ",
             ax == &a_axes ? "a" : "b", "'s axes");
  }
  for (size_t p = 0; p < a_axes.size(); ++p)
    CA_CHECK(a->shape[size_t(a_axes[p])] == b->shape[size_t(b_axes[p])], CA_EINVAL, "tensordot: shape-mismatch for sum: ",
             "a of shape ", shape_str(a->shape), " has ", a->shape[size_t(a_axes[p])], " along axis ", a_axes[p],
             ", b of shape ", shape_str(b->shape), " has ", b->shape[size_t(b_axes[p])], " along axis ", b_axes[p]);
  const int32_t P = int32_t(a_axes.size());
  if (nda == 2 && ndb == 2 && P == 1) {
    // A 2-d operand that is a whole transpose (x.T) is read as the array it transposes, with the
    // contracted axis swapped: the product then transposes inside gemm instead of copying blocks.
    // An array times its own transpose is a Gram matrix (gram: symmetric, about half the work).
    ArrayPtr sa = transpose_source(a), sb = transpose_source(b);
    if (sa || sb) {
      ArrayPtr x = sa ? sa : a, y = sb ? sb : b;
      int32_t ax = sa ? 1 - a_axes[0] : a_axes[0], bx = sb ? 1 - b_axes[0] : b_axes[0];
      // x @ x.T: both operands are then x itself (with its own expression or generator, which the
      // source found through the transpose layer does not carry).
      if (sa && !sb && x->name == b->name) x = b;
      if (sb && !sa && y->name == a->name) y = a;
      return tensordot(x, y, {ax}, {bx}, split_every);
    }
    if (a->name == b->name && a_axes[0] == b_axes[0])
      if (ArrayPtr r = gram(a, a_axes[0] == 0, split_every)) return r;
  }
  CA_CHECK(nda + ndb - 2 * P <= CA_MAX_NDIM, CA_EINVAL, "tensordot: the result would have more than ", CA_MAX_NDIM,
           " dimensions");
  // Letters: a's free, b's free, then the contracted pairs.
  std::string ia(size_t(nda), ' '), ib(size_t(ndb), ' '), out, contracted;
  int next = 0;
  for (int32_t d = 0; d < nda; ++d)
    if (std::find(a_axes.begin(), a_axes.end(), d) == a_axes.end()) {
      ia[size_t(d)] = letter(next++);
      out += ia[size_t(d)];
    }
  for (int32_t d = 0; d < ndb; ++d)
    if (std::find(b_axes.begin(), b_axes.end(), d) == b_axes.end()) {
      ib[size_t(d)] = letter(next++);
      out += ib[size_t(d)];
    }
  for (int32_t p = 0; p < P; ++p) {
    char c = letter(next++);
    ia[size_t(a_axes[size_t(p)])] = c;
    ib[size_t(b_axes[size_t(p)])] = c;
    contracted += c;
  }
  std::vector<int64_t> spec{nda, ndb, P};
  spec.insert(spec.end(), a_axes.begin(), a_axes.end());
  spec.insert(spec.end(), b_axes.begin(), b_axes.end());
  DType dt = product_dtype(a, b);
  return contract("tensordot", "ca.linalg.tensordot", {a, ia}, {b, ib}, out, contracted,
                  {ca_arg_tuple(spec.data(), spec.size()), ca_arg_i64(dt)}, dt, split_every);
}

ArrayPtr tensordot_n(const ArrayPtr &a, const ArrayPtr &b, int32_t n, int32_t split_every) {
  check_array(a, "tensordot", "a");
  check_array(b, "tensordot", "b");
  CA_CHECK(n >= 0 && n <= a->ndim() && n <= b->ndim(), CA_EINVAL, "tensordot: axes=", n, " is invalid for shapes ",
           shape_str(a->shape), " and ", shape_str(b->shape));
  std::vector<int32_t> aa, bb;
  for (int32_t i = 0; i < n; ++i) {
    aa.push_back(a->ndim() - n + i);
    bb.push_back(i);
  }
  return tensordot(a, b, aa, bb, split_every);
}

ArrayPtr matmul(const ArrayPtr &a, const ArrayPtr &b, int32_t split_every) {
  check_array(a, "matmul", "a");
  check_array(b, "matmul", "b");
  if (auto r = product_special_dtypes("matmul", a, b, [&](const ArrayPtr &x, const ArrayPtr &y) {
        return matmul(x, y, split_every);
      }))
    return r;
  for (int i = 0; i < 2; ++i) {
    const ArrayPtr &x = i ? b : a;
    CA_CHECK(x->ndim() >= 1, CA_EINVAL, "matmul: Input operand ", i,
             " does not have enough dimensions (has 0, gufunc core with signature (n?,k),(k,m?)->(n?,m?) requires 1)");
  }
  const bool avec = a->ndim() == 1, bvec = b->ndim() == 1;
  const Index ka = a->shape.back(), kb = bvec ? b->shape[0] : b->shape[size_t(b->ndim() - 2)];
  CA_CHECK(ka == kb, CA_EINVAL, "matmul: shapes ", shape_str(a->shape), " and ", shape_str(b->shape),
           " are not aligned: ", ka, " (dim ", a->ndim() - 1, ") != ", kb, " (dim ", bvec ? 0 : b->ndim() - 2, ")");
  const int32_t nba = a->ndim() - (avec ? 1 : 2), nbb = b->ndim() - (bvec ? 1 : 2), nbo = std::max(nba, nbb);
  CA_CHECK(nbo + 2 <= CA_MAX_NDIM, CA_EINVAL, "matmul: too many dimensions");
  std::string ia, ib, out;
  for (int32_t d = 0; d < nbo; ++d) {
    int32_t da = d - (nbo - nba), db = d - (nbo - nbb);
    Index ea = da >= 0 ? a->shape[size_t(da)] : 1, eb = db >= 0 ? b->shape[size_t(db)] : 1;
    CA_CHECK(ea == eb || ea == 1 || eb == 1, CA_EINVAL, "matmul: the batch dimensions of shapes ", shape_str(a->shape),
             " and ", shape_str(b->shape), " do not broadcast (", ea, " and ", eb, " at batch axis ", d, ")");
    char c = letter(d);
    out += c;
    if (da >= 0) ia += c;
    if (db >= 0) ib += c;
  }
  const char m = letter(nbo), n = letter(nbo + 1), k = letter(nbo + 2);
  if (!avec) {
    ia += m;
    out += m;
  }
  ia += k;
  ib += k;
  if (!bvec) {
    ib += n;
    out += n;
  }
  // 2-d operands one of which is a whole transpose (x.T): tensordot reads the transposed array
  // without copying its blocks, and an array times its own transpose computes half of a symmetric
  // result (gram). The same values; dask's chunks.
  if (a->ndim() == 2 && b->ndim() == 2 && (transpose_source(a) || transpose_source(b)))
    return tensordot(a, b, {1}, {0}, split_every);
  // A batch dimension of extent 1 broadcasts: it must be one block (it is: extent 1).
  DType dt = product_dtype(a, b);
  int64_t flags[2] = {avec, bvec};
  return contract("matmul", "ca.linalg.matmul", {a, ia}, {b, ib}, out, std::string(1, k),
                  {ca_arg_tuple(flags, 2), ca_arg_i64(dt)}, dt, split_every);
}

ArrayPtr dot(const ArrayPtr &a, const ArrayPtr &b, int32_t split_every) {
  check_array(a, "dot", "a");
  check_array(b, "dot", "b");
  if (a->ndim() == 0 || b->ndim() == 0) return elementwise_binary(CA_OP_MUL, a, b);
  const int32_t ax = a->ndim() - 1, bx = b->ndim() == 1 ? 0 : b->ndim() - 2;
  CA_CHECK(a->shape[size_t(ax)] == b->shape[size_t(bx)], CA_EINVAL, "dot: shapes ", shape_str(a->shape), " and ",
           shape_str(b->shape), " not aligned: ", a->shape[size_t(ax)], " (dim ", ax, ") != ", b->shape[size_t(bx)],
           " (dim ", bx, ")");
  return tensordot(a, b, {ax}, {bx}, split_every);
}

ArrayPtr outer(const ArrayPtr &a, const ArrayPtr &b) {
  check_array(a, "outer", "a");
  check_array(b, "outer", "b");
  CA_CHECK(a->ndim() == 1 && b->ndim() == 1, CA_EUNSUPPORTED, "outer: operands must be 1-d (got shapes ",
           shape_str(a->shape), " and ", shape_str(b->shape), "); flatten them first");
  return tensordot(a, b, {}, {});
}

// ---- tsqr ------------------------------------------------------------------------------------------

namespace {

struct Tsqr {
  ArrayPtr packs;  // per row block: the QR pack (declared chunks: a's; blocks are packs)
  ArrayPtr stack;  // 0-d layer: the QR pack of the stacked R factors
  std::vector<int64_t> offsets;
  Index m = 0, n = 0, r = 0;
  DType dtype = CA_FLOAT64;
  Chunks row_chunks;
  std::vector<Index> col_chunks;  // the input's column chunks (R and V^H get them back)
  // Multi-level (dask's recursive tsqr): tree[l] for l >= 1 are groups of the nodes of level l - 1
  // (level 0: the row blocks' packs), each a QR pack of its children's stacked R factors; the top
  // (`stack`) stacks the last level. Empty: one level (the top stacks the row blocks' packs).
  struct Level {
    std::string name;             // the layer of this level's packs, keys (g)
    std::vector<int64_t> k;       // rows of each node's R
  };
  std::vector<Level> tree;
  std::vector<std::vector<Index>> parent;   // per level (0 = row blocks): each node's group
  std::vector<std::vector<int64_t>> offset; // per level: each node's first row in its group's stack
};

ArrayPtr with_cols(const ArrayPtr &x, const std::vector<Index> &cols) {
  return x->chunks[1] == cols ? x : rechunk(x, {x->chunks[0], cols});
}

Tsqr tsqr(const ArrayPtr &a0, const char *what) {
  check_array(a0, what, "a");
  CA_CHECK(a0->ndim() == 2, CA_EINVAL, what, ": the input must be 2-d, got shape ", shape_str(a0->shape));
  if (a0->numblocks[1] != 1 && a0->numblocks[0] != 1)
    fail(CA_EINVAL, what,
         ": tsqr needs a tall-and-skinny matrix with one column block (or a short-and-fat one with one row "
         "block); got shape ", shape_str(a0->shape), " with chunks ", chunks_str(a0->chunks), " (",
         a0->numblocks[0], " row blocks, ", a0->numblocks[1], " column blocks): rechunk to one block along axis 1");
  Tsqr t;
  t.dtype = lapack_dtype(a0->dtype);
  ArrayPtr a = cast(a0, t.dtype);
  // Short-and-fat (one row block, several column blocks; dask's sfqr): the row block is one task's
  // QR, so gather its columns; results that span the columns are rechunked back by the callers.
  if (a->numblocks[1] != 1) a = rechunk(a, {a->chunks[0], {a->shape[1]}});
  t.col_chunks = a0->chunks[1];
  t.m = a->shape[0];
  t.n = a->shape[1];
  t.r = std::min(t.m, t.n);
  t.row_chunks = {a->chunks[0]};
  Index off = 0;
  for (Index mi : a->chunks[0]) {
    t.offsets.push_back(off);
    off += std::min(mi, t.n);
  }
  std::string hex = Tokenizer("tsqr").add(*a).name().substr(5);
  t.packs = blockwise_layer("qr-blocks-" + hex, "ca.linalg.qr_block", "ik", {ArrayArg::of(a, "ik")}, a->chunks,
                            t.dtype);
  // dask's recursion: while the stacked R factors (nodes x n rows) would be taller than the tallest
  // row block, stack them in groups of (tallest block / n) first, so no task holds more than a block.
  const Index tallest = a->chunks[0].empty() ? 0 : *std::max_element(a->chunks[0].begin(), a->chunks[0].end());
  const Index group = t.n > 0 ? tallest / t.n : 0;
  std::vector<int64_t> k;
  for (Index mi : a->chunks[0]) k.push_back(std::min(mi, t.n));
  if (group < 2 || Index(k.size()) * t.n <= tallest) {
    t.stack = blockwise_layer("qr-stack-" + hex, "ca.linalg.qr_stack", "", {ArrayArg::of(t.packs, "ik")}, {}, t.dtype,
                              true);
    return t;
  }
  auto g = std::make_shared<Graph>(*t.packs->graph);
  std::string cur = t.packs->name;  // the current level's layer (level 0: the packs, keys (i, 0))
  auto key_of = [&](size_t level, Index i) {
    return level == 0 ? std::vector<Index>{i, 0} : std::vector<Index>{i};
  };
  size_t level = 0;
  while (Index(k.size()) * t.n > tallest && k.size() > 1) {
    Tsqr::Level lv;
    lv.name = "qr-stack-l" + std::to_string(level + 1) + "-" + hex;
    std::vector<Index> par;
    std::vector<int64_t> off;
    const Index ngroups = (Index(k.size()) + group - 1) / group;
    for (Index G = 0; G < ngroups; ++G) {
      std::vector<std::vector<Index>> idx;
      int64_t rows = 0;
      for (Index c = G * group; c < std::min<Index>(Index(k.size()), (G + 1) * group); ++c) {
        idx.push_back(key_of(level, c));
        par.push_back(G);
        off.push_back(rows);
        rows += k[size_t(c)];
      }
      std::vector<ca_arg_t> items;
      for (auto &i : idx) items.push_back(ca_arg_key(cur.c_str(), i.data(), int32_t(i.size())));
      ca_arg_t list = ca_arg_list(items.data(), items.size());
      g->add_task(KeyRef{lv.name.c_str(), &G, 1}, "ca.linalg.qr_stack", &list, 1);
      lv.k.push_back(std::min<int64_t>(rows, t.n));
    }
    t.parent.push_back(std::move(par));
    t.offset.push_back(std::move(off));
    k = lv.k;
    cur = lv.name;
    t.tree.push_back(std::move(lv));
    ++level;
  }
  // The top stacks the last level; offsets of its nodes replace the row blocks'.
  t.offsets.clear();
  int64_t rows = 0;
  std::vector<std::vector<Index>> idx;
  for (size_t c = 0; c < k.size(); ++c) {
    t.offsets.push_back(rows);
    rows += k[c];
    idx.push_back(key_of(level, Index(c)));
  }
  std::vector<ca_arg_t> items;
  for (auto &i : idx) items.push_back(ca_arg_key(cur.c_str(), i.data(), int32_t(i.size())));
  ca_arg_t list = ca_arg_list(items.data(), items.size());
  const std::string top = "qr-stack-" + hex;
  g->add_task(KeyRef{top.c_str(), nullptr, 0}, "ca.linalg.qr_stack", &list, 1);
  t.stack = array_from_layer(g, top, {}, t.dtype);
  return t;
}

ArrayPtr tsqr_q(const Tsqr &t, const ArrayPtr &svd_pack, const std::string &name) {
  if (!t.tree.empty()) {
    // Top-down: E(c) = Q_c @ Q_top[rows of c] (@ U_R) for the top's children (ca.linalg.qr_q), then
    // E(d) = Q_d @ E(parent)[rows of d] (ca.linalg.qr_qe) down to the row blocks (Q's blocks).
    auto g = merge_graphs({t.packs, t.stack, svd_pack});
    const size_t L = t.tree.size();
    std::string parent_layer;
    for (size_t l = L + 1; l-- > 0;) {
      const bool leaf = l == 0;
      const std::string layer = leaf ? name : name + "-e" + std::to_string(l);
      const std::string src = leaf ? t.packs->name : t.tree[l - 1].name;
      const Index count = leaf ? Index(t.row_chunks[0].size()) : Index(t.tree[l - 1].k.size());
      for (Index c = 0; c < count; ++c) {
        std::vector<Index> key = leaf ? std::vector<Index>{c, 0} : std::vector<Index>{c};
        ca_arg_t pack = ca_arg_key(src.c_str(), key.data(), int32_t(key.size()));
        if (l == L) {
          int64_t ci = c;
          ca_arg_t args[5] = {pack, ca_arg_key(t.stack->name.c_str(), nullptr, 0),
                              ca_arg_tuple(t.offsets.data(), t.offsets.size()), ca_arg_tuple(&ci, 1),
                              svd_pack ? ca_arg_key(svd_pack->name.c_str(), nullptr, 0) : ca_arg_none()};
          g->add_task(KeyRef{layer.c_str(), key.data(), int32_t(key.size())}, "ca.linalg.qr_q", args,
                      svd_pack ? 5 : 4);
        } else {
          Index p = t.parent[l][size_t(c)];
          ca_arg_t args[3] = {pack, ca_arg_key(parent_layer.c_str(), &p, 1), ca_arg_i64(t.offset[l][size_t(c)])};
          g->add_task(KeyRef{layer.c_str(), key.data(), int32_t(key.size())}, "ca.linalg.qr_qe", args, 3);
        }
      }
      parent_layer = layer;
    }
    return array_from_layer(g, name, {t.row_chunks[0], {t.r}}, t.dtype);
  }
  std::vector<ArrayArg> args{ArrayArg::of(t.packs, "ik"), ArrayArg::of(t.stack, ""),
                             ArrayArg::lit(ca_arg_tuple(t.offsets.data(), t.offsets.size())),
                             ArrayArg::special(BlockwiseArg::BlockIndex)};
  if (svd_pack) args.push_back(ArrayArg::of(svd_pack, ""));
  return blockwise_layer(name, "ca.linalg.qr_q", "ij", args, {t.row_chunks[0], {t.r}}, t.dtype, true);
}

ArrayPtr tsqr_svd_pack(const Tsqr &t) {
  return blockwise_layer("svd-small-" + t.stack->name, "ca.linalg.svd_small", "", {ArrayArg::of(t.stack, "")}, {},
                         t.dtype);
}

ArrayPtr tsqr_s(const Tsqr &t, const ArrayPtr &sv) {
  return blockwise_layer("svd-s-" + t.stack->name, "ca.linalg.svd_s", "i", {ArrayArg::of(sv, "")}, {{t.r}},
                         real_dtype(t.dtype));
}

}  // namespace

QR qr(const ArrayPtr &a) {
  Tsqr t = tsqr(a, "qr");
  QR res;
  res.q = tsqr_q(t, nullptr, "qr-q-" + t.stack->name);
  res.r = with_cols(blockwise_layer("qr-r-" + t.stack->name, "ca.linalg.qr_r", "ij", {ArrayArg::of(t.stack, "")},
                                    {{t.r}, {t.n}}, t.dtype),
                    t.col_chunks);
  return res;
}

SVD svd(const ArrayPtr &a) {
  Tsqr t = tsqr(a, "svd");
  ArrayPtr sv = tsqr_svd_pack(t);
  SVD res;
  res.u = tsqr_q(t, sv, "svd-u-" + t.stack->name);
  res.s = tsqr_s(t, sv);
  res.v = with_cols(blockwise_layer("svd-v-" + t.stack->name, "ca.linalg.svd_v", "ij", {ArrayArg::of(sv, "")},
                                    {{t.r}, {t.n}}, t.dtype),
                    t.col_chunks);
  return res;
}

// ---- lstsq ------------------------------------------------------------------------------------------

Lstsq lstsq(const ArrayPtr &a, const ArrayPtr &b) {
  check_array(a, "lstsq", "a");
  check_array(b, "lstsq", "b");
  CA_CHECK(a->ndim() == 2, CA_EINVAL, "lstsq: a must be 2-d, got shape ", shape_str(a->shape));
  CA_CHECK((b->ndim() == 1 || b->ndim() == 2) && b->shape[0] == a->shape[0], CA_EINVAL, "lstsq: shapes ",
           shape_str(a->shape), " and ", shape_str(b->shape), " are incompatible (b needs ", a->shape[0], " rows)");
  const Index M = a->shape[0], N = a->shape[1];
  CA_CHECK(M >= N, CA_EUNSUPPORTED, "lstsq: tsqr needs a tall matrix (rows >= columns), got shape ", shape_str(a->shape));
  DType dt = lapack_dtype(product_dtype(a, b));
  ArrayPtr ac = cast(a, dt), bc = cast(b, dt);
  Tsqr t = tsqr(ac, "lstsq");
  QR f;
  f.q = tsqr_q(t, nullptr, "qr-q-" + t.stack->name);
  f.r = blockwise_layer("qr-r-" + t.stack->name, "ca.linalg.qr_r", "ij", {ArrayArg::of(t.stack, "")}, {{t.r}, {t.n}},
                        t.dtype);
  ArrayPtr qh = dtype_is_complex(dt) ? elementwise_unary(CA_OP_CONJ, f.q) : f.q;
  ArrayPtr y = tensordot(qh, bc, {0}, {0});  // (N,) or (N, k), one row block
  y = rechunk(y, [&] {
    Chunks c = y->chunks;
    c[0] = {N};
    return c;
  }());
  Lstsq res;
  res.x = solve_triangular(f.r, y, false);  // as dask: R x = Q^H b
  const DType rdt = real_dtype(dt);
  if (M > N) {
    ArrayPtr ax = matmul(ac, res.x);
    ArrayPtr d = elementwise_unary(CA_OP_ABS, elementwise_binary(CA_OP_SUB, bc, ax));
    ArrayPtr sq = elementwise_binary(CA_OP_MUL, d, d);
    res.residuals = reduce(CA_RED_SUM, sq, {0}, b->ndim() == 1, 0, 0, 0);
  } else {
    res.residuals = zeros({0}, {{0}}, rdt);
  }
  ArrayPtr sv = tsqr_svd_pack(t);
  res.s = tsqr_s(t, sv);
  res.rank = blockwise_layer("lstsq-rank-" + t.stack->name, "ca.linalg.rank", "",
                             {ArrayArg::of(res.s, "i"), ArrayArg::lit(ca_arg_i64(M)), ArrayArg::lit(ca_arg_i64(N))}, {},
                             CA_INT64, true);
  return res;
}

// ---- norm ---------------------------------------------------------------------------------------------

ArrayPtr norm(const ArrayPtr &a0, const std::string &ord, std::vector<int32_t> axes, bool keepdims) {
  check_array(a0, "norm", "x");
  ArrayPtr a = dtype_is_float(a0->dtype) || dtype_is_complex(a0->dtype) ? a0 : cast(a0, CA_FLOAT64);
  const int32_t nd = a->ndim();
  // Parse ord.
  enum { None, Fro, Nuc, Inf, NegInf, Num } kind = None;
  double p = 0;
  if (ord.empty() || ord == "None") kind = None;
  else if (ord == "fro") kind = Fro;
  else if (ord == "nuc") kind = Nuc;
  else if (ord == "inf" || ord == "+inf") kind = Inf;
  else if (ord == "-inf") kind = NegInf;
  else {
    char *end = nullptr;
    p = std::strtod(ord.c_str(), &end);
    CA_CHECK(end && *end == 0 && std::isfinite(p), CA_EINVAL, "norm: invalid norm order '", ord, "'");
    kind = Num;
  }
  auto sumsq = [&](const ArrayPtr &x, std::vector<int32_t> ax, bool kd) {
    ArrayPtr ab = dtype_is_complex(x->dtype) ? elementwise_unary(CA_OP_ABS, x) : x;
    return elementwise_unary(CA_OP_SQRT, reduce(CA_RED_SUM, elementwise_binary(CA_OP_MUL, ab, ab), ax, kd, 0, 0, 0));
  };
  if (axes.empty()) {
    if (kind == None) {
      std::vector<int32_t> all;
      for (int32_t d = 0; d < nd; ++d) all.push_back(d);
      return sumsq(a, all, keepdims);
    }
    CA_CHECK(nd == 1 || nd == 2, CA_EINVAL, "norm: Improper number of dimensions to norm (shape ",
             shape_str(a->shape), ")");
    for (int32_t d = 0; d < nd; ++d) axes.push_back(d);
  }
  std::vector<int32_t> given = axes;  // the caller's order (row axis, column axis) for matrix norms
  axes = normalize_axes(axes, nd);     // validates; sorted
  for (int32_t &v : given)
    if (v < 0) v += nd;
  ArrayPtr ab = elementwise_unary(CA_OP_ABS, a);
  if (axes.size() == 1) {
    std::vector<int32_t> ax = axes;
    switch (kind) {
      case None: return sumsq(a, ax, keepdims);
      case Inf: return reduce(CA_RED_MAX, ab, ax, keepdims, 0, 0, 0);
      case NegInf: return reduce(CA_RED_MIN, ab, ax, keepdims, 0, 0, 0);
      case Fro:
      case Nuc: fail(CA_EINVAL, "norm: Invalid norm order '", ord, "' for vectors");
      case Num:
        if (p == 0) {
          ArrayPtr nz = cast(elementwise_scalar(CA_OP_NE, a, fscalar(0), false), real_dtype(a->dtype));
          return reduce(CA_RED_SUM, nz, ax, keepdims, 0, 0, 0);
        }
        if (p == 1) return reduce(CA_RED_SUM, ab, ax, keepdims, 0, 0, 0);
        if (p == 2) return sumsq(a, ax, keepdims);
        {
          ArrayPtr s = reduce(CA_RED_SUM, elementwise_scalar(CA_OP_POW, ab, fscalar(p), false), ax, keepdims, 0, 0, 0);
          return elementwise_scalar(CA_OP_POW, s, fscalar(1.0 / p), false);
        }
    }
  }
  CA_CHECK(axes.size() == 2, CA_EINVAL, "norm: Improper number of dimensions to norm (", axes.size(), " axes)");
  const int32_t row = given[0], col = given[1];
  switch (kind) {
    case None:
    case Fro: return sumsq(a, {row, col}, keepdims);
    case Num:
      if (p == 1 || p == -1) {
        ArrayPtr s = reduce(CA_RED_SUM, ab, {row}, keepdims, 0, 0, 0);
        return reduce(p > 0 ? CA_RED_MAX : CA_RED_MIN, s, {keepdims || col < row ? col : col - 1}, keepdims, 0, 0, 0);
      }
      if (p == 2 || p == -2) break;
      fail(CA_EINVAL, "norm: Invalid norm order '", ord, "' for matrices");
    case Inf:
    case NegInf: {
      ArrayPtr s = reduce(CA_RED_SUM, ab, {col}, keepdims, 0, 0, 0);
      return reduce(kind == Inf ? CA_RED_MAX : CA_RED_MIN, s, {keepdims || row < col ? row : row - 1}, keepdims, 0,
                    0, 0);
    }
    case Nuc: break;
  }
  // 2, -2, nuc: singular values through tsqr (2-d input only).
  CA_CHECK(nd == 2 && !keepdims, CA_EUNSUPPORTED, "norm: ord '", ord,
           "' is supported for 2-d arrays without keepdims (it needs the singular values)");
  ArrayPtr s = svd(a).s;
  if (kind == Nuc) return reduce(CA_RED_SUM, s, {0}, false, 0, 0, 0);
  return reduce(p > 0 ? CA_RED_MAX : CA_RED_MIN, s, {0}, false, 0, 0, 0);
}

}  // namespace ca::linalg
