// Tile algorithms as task graphs (dask.array.linalg's lu, solve_triangular, solve, inv, cholesky):
// one task per tile operation, LAPACK/BLAS per tile (kernels in linalg_kernels.cpp), so no task
// holds more than a few tiles and the graph runs in parallel.
//
// Tiles are square: the matrix's row chunks on both axes. dask refuses chunks that are not all
// equal ("All chunks must be a square matrix ..."); we rechunk the columns to the row chunks instead,
// so ragged tiles and chunks that differ between the axes work (the earlier one-block solvers
// accepted any chunks and callers rely on that).
//
// The factorizations are right-looking: step k factors the diagonal tile, solves the panel against
// it, and updates every trailing tile once (S(k+1)_ij = S(k)_ij - X_ik Y_kj, a `tile_gemm` per
// tile and step). An updated tile replaces the previous version, which is freed once consumed, so
// the live data is about the input plus the factor, whatever the executor's order.
//
// cholesky: L_kk = potrf(S_kk) (ca.linalg.cholesky, lower), L_ik = S_ik L_kk^-H (tile_trsm),
// S_ij -= L_ik L_jk^H for k < j <= i (only the lower triangle of the input is read).
//
// LU is dask's `lu` exactly: each diagonal tile is factored with partial pivoting inside the tile
// (S_kk = P_k L_kk U_kk, ca.linalg.lu), U_kj = L_kk^-1 P_k^T S_kj, and the permuted lower tiles
// L'_ik = S_ik U_kk^-1; then S_ij -= L'_ik U_kj. So A = P L U with P block diagonal and the lower
// tiles L_ik = P_i^T L'_ik, as dask builds them. Like dask (and unlike LAPACK's getrf), rows are
// never exchanged between tiles: a singular diagonal tile fails with "Singular matrix" even when
// the whole matrix is not singular. solve then runs the forward substitution L y = P^T b (block i:
// y_i = L_ii^-1 P_i^T (b_i - sum_k L'_ik y_k)) and the back substitution U x = y over b's tiles,
// without forming P, L or U as arrays.
#include <chunkarray/array.h>

#include "array/create.hpp"
#include "array/expr.hpp"
#include "array/shape.hpp"
#include "core/checked.hpp"
#include "graph/graph.hpp"
#include "linalg/lapack.hpp"
#include "linalg/linalg.hpp"

namespace ca::linalg {

namespace {

/// One task argument: a key (layer name and block index) or a literal.
struct Arg {
  std::string name;  // empty: literal
  std::vector<Index> idx;
  std::vector<int64_t> tuple;  // for a tuple literal
  ca_arg_t lit{};
  static Arg key(std::string n, std::vector<Index> i) {
    Arg a;
    a.name = std::move(n);
    a.idx = std::move(i);
    return a;
  }
  static Arg i64(int64_t v) {
    Arg a;
    a.lit = ca_arg_i64(v);
    return a;
  }
  static Arg tup(std::vector<int64_t> v) {
    Arg a;
    a.tuple = std::move(v);
    a.lit.kind = CA_ARG_TUPLE;
    return a;
  }
};

/// A graph under construction with materialized tile layers.
struct TileGraph {
  std::shared_ptr<Graph> g;
  void task(const std::string &name, const std::vector<Index> &idx, const char *kernel, const std::vector<Arg> &args) {
    std::vector<ca_arg_t> cargs;
    cargs.reserve(args.size());
    for (const Arg &a : args) {
      if (!a.name.empty()) cargs.push_back(ca_arg_key(a.name.c_str(), a.idx.data(), int32_t(a.idx.size())));
      else if (a.lit.kind == CA_ARG_TUPLE) cargs.push_back(ca_arg_tuple(a.tuple.data(), a.tuple.size()));
      else cargs.push_back(a.lit);
    }
    g->add_task(KeyRef{name.c_str(), idx.data(), int32_t(idx.size())}, kernel, cargs.data(), cargs.size());
  }
};

constexpr int64_t kOpN = int64_t(Op::N), kOpC = int64_t(Op::C);

ArrayPtr cast_to(const ArrayPtr &a, DType dt) { return a->dtype == dt ? a : elementwise_astype(a, dt); }

void check_operand(const ArrayPtr &a, const char *what, const char *which) {
  CA_CHECK(a, CA_EINVAL, what, ": ", which, " is NULL");
  CA_CHECK(dtype_valid(a->dtype) && a->dtype != CA_RAW && !dtype_is_time(a->dtype) && !dtype_is_string(a->dtype),
           CA_ETYPE, what, ": ", which, " has no numeric dtype");
}

Index check_square_matrix(const ArrayPtr &a, const char *what) {
  check_operand(a, what, "a");
  CA_CHECK(a->ndim() == 2, CA_EINVAL, what, ": a must be 2-d, got shape ", shape_str(a->shape));
  CA_CHECK(a->shape[0] == a->shape[1], CA_EINVAL, what, ": Last 2 dimensions of the array must be square, got shape ",
           shape_str(a->shape));
  for (const auto &c : a->chunks)
    for (Index v : c)
      CA_CHECK(v != kUnknownChunk, CA_EINVAL, what, ": a has unknown chunk sizes ", chunks_str(a->chunks),
               " (compute_chunk_sizes first)");
  return a->shape[0];
}

/// a in dtype dt with square tiles: its row chunks on both axes.
ArrayPtr square_tiles(const ArrayPtr &a, DType dt) {
  ArrayPtr c = cast_to(a, dt);
  if (c->chunks[1] != c->chunks[0]) c = rechunk(c, {c->chunks[0], c->chunks[0]});
  return c;
}

/// b (n,) or (n, k) checked against a (n, n); returns b in dtype dt with row chunks `rows`.
ArrayPtr rhs_tiles(const ArrayPtr &b, Index n, const std::vector<Index> &rows, DType dt, const char *what,
                   const ArrayPtr &a) {
  check_operand(b, what, "b");
  CA_CHECK((b->ndim() == 1 || b->ndim() == 2) && b->shape[0] == n, CA_EINVAL, what, ": shapes ", shape_str(a->shape),
           " and ", shape_str(b->shape), " are incompatible (b must be (", n, ",) or (", n, ", k))");
  for (const auto &c : b->chunks)
    for (Index v : c)
      CA_CHECK(v != kUnknownChunk, CA_EINVAL, what, ": b has unknown chunk sizes ", chunks_str(b->chunks));
  ArrayPtr c = cast_to(b, dt);
  if (c->chunks[0] != rows) {
    Chunks ch = c->chunks;
    ch[0] = rows;
    c = rechunk(c, ch);
  }
  return c;
}

/// The key of block (i, c) of a right-hand side (1-d: (i)).
std::vector<Index> rhs_idx(bool vec, Index i, Index c) { return vec ? std::vector<Index>{i} : std::vector<Index>{i, c}; }

/// Blocked substitution over b's tiles (dask's solve_triangular, right-looking): x_k = solve_kk(t_k)
/// with t_k = b_k - sum over the finished k' of A_kk' x_k'. `diag(k, rhs_key)` adds the task solving
/// block k into (out, k, c); `off(i, k)` is the key of the tile multiplying x_k in row i.
template <class Diag, class Off>
void substitute(TileGraph &tg, const ArrayPtr &b, const std::string &out, const std::string &upd, bool forward,
                Diag &&diag, Off &&off) {
  const Index nt = b->numblocks[0], nc = b->ndim() == 2 ? b->numblocks[1] : 1;
  const bool vec = b->ndim() == 1;
  for (Index c = 0; c < nc; ++c) {
    // cur[i]: the current version of row block i of the right-hand side.
    std::vector<Arg> cur;
    for (Index i = 0; i < nt; ++i) cur.push_back(Arg::key(b->name, rhs_idx(vec, i, c)));
    for (Index s = 0; s < nt; ++s) {
      const Index k = forward ? s : nt - 1 - s;
      diag(k, cur[size_t(k)], rhs_idx(vec, k, c));
      const Arg xk = Arg::key(out, rhs_idx(vec, k, c));
      const Index lo = forward ? k + 1 : 0, hi = forward ? nt : k;
      for (Index i = lo; i < hi; ++i) {
        std::vector<Index> key = vec ? std::vector<Index>{s, i} : std::vector<Index>{s, i, c};
        tg.task(upd, key, "ca.linalg.tile_gemm", {cur[size_t(i)], off(i, k), xk, Arg::tup({kOpN, kOpN})});
        cur[size_t(i)] = Arg::key(upd, key);
      }
    }
  }
}

/// dask's lu on square tiles: the diagonal packs ("<p>-f", (k)), U's tiles above the diagonal
/// ("<p>-u", (k, j)), the permuted lower tiles ("<p>-l", (i, k)).
struct TiledLU {
  std::string f, u, l;
  Index nt = 0;
};

TiledLU tiled_lu(TileGraph &tg, const ArrayPtr &a, const std::string &hex) {
  TiledLU r;
  r.f = "lu-f-" + hex;
  r.u = "lu-u-" + hex;
  r.l = "lu-l-" + hex;
  const std::string upd = "lu-s-" + hex;
  const Index nt = r.nt = a->numblocks[0];
  // cur[i * nt + j]: the current version of tile (i, j) of the trailing matrix.
  std::vector<Arg> cur;
  for (Index i = 0; i < nt; ++i)
    for (Index j = 0; j < nt; ++j) cur.push_back(Arg::key(a->name, {i, j}));
  auto at = [&](Index i, Index j) -> Arg & { return cur[size_t(i * nt + j)]; };
  for (Index k = 0; k < nt; ++k) {
    tg.task(r.f, {k}, "ca.linalg.lu", {at(k, k)});
    const Arg fk = Arg::key(r.f, {k});
    for (Index j = k + 1; j < nt; ++j) tg.task(r.u, {k, j}, "ca.linalg.lu_tile", {fk, at(k, j), Arg::i64(0)});
    for (Index i = k + 1; i < nt; ++i) tg.task(r.l, {i, k}, "ca.linalg.lu_tile", {fk, at(i, k), Arg::i64(1)});
    for (Index i = k + 1; i < nt; ++i)
      for (Index j = k + 1; j < nt; ++j) {
        tg.task(upd, {k, i, j}, "ca.linalg.tile_gemm",
                {at(i, j), Arg::key(r.l, {i, k}), Arg::key(r.u, {k, j}), Arg::tup({kOpN, kOpN})});
        at(i, j) = Arg::key(upd, {k, i, j});
      }
  }
  return r;
}

}  // namespace

ArrayPtr solve_triangular(const ArrayPtr &a0, const ArrayPtr &b0, bool lower) {
  const Index n = check_square_matrix(a0, "solve_triangular");
  check_operand(b0, "solve_triangular", "b");
  const DType dt = lapack_dtype(dtype_promote(a0->dtype, b0->dtype));
  // Tiles follow b's row chunks (dask requires a.chunks[1] == b.chunks[0]; we rechunk a instead).
  const std::vector<Index> rows = b0->ndim() >= 1 ? b0->chunks[0] : std::vector<Index>{};
  ArrayPtr b = rhs_tiles(b0, n, rows, dt, "solve_triangular", a0);
  ArrayPtr a = cast_to(a0, dt);
  if (a->chunks[0] != rows || a->chunks[1] != rows) a = rechunk(a, {rows, rows});
  const std::string name = Tokenizer("solve-triangular").add(*a).add(*b).add(int64_t(lower)).name();
  const std::string hex = name.substr(std::string("solve-triangular-").size());
  TileGraph tg{merge_graphs({a, b})};
  substitute(
      tg, b, name, "solve-tri-dot-" + hex, lower,
      [&](Index k, const Arg &rhs, const std::vector<Index> &key) {
        tg.task(name, key, "ca.linalg.tile_trsm",
                {Arg::key(a->name, {k, k}), rhs, Arg::tup({0, lower ? 1 : 0, kOpN, 0})});
      },
      [&](Index i, Index k) { return Arg::key(a->name, {i, k}); });
  ArrayPtr x = array_from_layer(tg.g, name, b->chunks, dt);
  return b0->chunks == x->chunks ? x : rechunk(x, b0->chunks);
}

ArrayPtr solve(const ArrayPtr &a0, const ArrayPtr &b0) {
  const Index n = check_square_matrix(a0, "solve");
  check_operand(b0, "solve", "b");
  const DType dt = lapack_dtype(dtype_promote(a0->dtype, b0->dtype));
  ArrayPtr a = square_tiles(a0, dt);
  ArrayPtr b = rhs_tiles(b0, n, a->chunks[0], dt, "solve", a0);
  const std::string name = Tokenizer("solve").add(*a).add(*b).name();
  const std::string hex = name.substr(std::string("solve-").size());
  TileGraph tg{merge_graphs({a, b})};
  const std::string ahex = Tokenizer("lu").add(*a).name().substr(3);
  TiledLU lu = tiled_lu(tg, a, ahex);
  // Forward: y = L^-1 P^T b, block k: L_kk^-1 P_k^T (b_k - sum L'_kk' y_k').
  const std::string y = "solve-y-" + hex;
  substitute(
      tg, b, y, "solve-y-dot-" + hex, true,
      [&](Index k, const Arg &rhs, const std::vector<Index> &key) {
        tg.task(y, key, "ca.linalg.lu_tile", {Arg::key(lu.f, {k}), rhs, Arg::i64(0)});
      },
      [&](Index i, Index k) { return Arg::key(lu.l, {i, k}); });
  // Back: U x = y.
  ArrayPtr ya = array_from_layer(tg.g, y, b->chunks, dt);
  substitute(
      tg, ya, name, "solve-x-dot-" + hex, false,
      [&](Index k, const Arg &rhs, const std::vector<Index> &key) {
        tg.task(name, key, "ca.linalg.lu_tile", {Arg::key(lu.f, {k}), rhs, Arg::i64(2)});
      },
      [&](Index i, Index k) { return Arg::key(lu.u, {i, k}); });
  ArrayPtr x = array_from_layer(tg.g, name, b->chunks, dt);
  return b0->chunks == x->chunks ? x : rechunk(x, b0->chunks);
}

LU lu(const ArrayPtr &a0) {
  check_square_matrix(a0, "lu");
  const DType dt = lapack_dtype(a0->dtype);
  ArrayPtr a = square_tiles(a0, dt);
  const std::string hex = Tokenizer("lu").add(*a).name().substr(3);
  TileGraph tg{merge_graphs({a})};
  TiledLU f = tiled_lu(tg, a, hex);
  ArrayPtr z = zeros(a->shape, a->chunks, dt);
  tg.g->merge(*z->graph);
  const std::string pn = "lu-p-" + hex, ln = "lu-lower-" + hex, un = "lu-upper-" + hex;
  const Index nt = f.nt;
  for (Index i = 0; i < nt; ++i)
    for (Index j = 0; j < nt; ++j) {
      const Arg zero = Arg::key(z->name, {i, j}), fi = Arg::key(f.f, {i});
      if (i == j) {
        tg.task(pn, {i, j}, "ca.linalg.lu_part", {fi, Arg::i64(0), Arg::i64(dt)});
        tg.task(ln, {i, j}, "ca.linalg.lu_part", {fi, Arg::i64(1), Arg::i64(dt)});
        tg.task(un, {i, j}, "ca.linalg.lu_part", {fi, Arg::i64(2), Arg::i64(dt)});
      } else if (i > j) {  // dask: l[i, j] = P_i^T L'_ij (the permuted lower tile in row block i's order)
        tg.task(pn, {i, j}, "ca.identity", {zero});
        tg.task(ln, {i, j}, "ca.linalg.lu_part", {fi, Arg::i64(3), Arg::i64(dt), Arg::key(f.l, {i, j})});
        tg.task(un, {i, j}, "ca.identity", {zero});
      } else {
        tg.task(pn, {i, j}, "ca.identity", {zero});
        tg.task(ln, {i, j}, "ca.identity", {zero});
        tg.task(un, {i, j}, "ca.identity", {Arg::key(f.u, {i, j})});
      }
    }
  LU r;
  for (auto [name, out] : {std::pair{&pn, &r.p}, {&ln, &r.l}, {&un, &r.u}}) {
    ArrayPtr x = array_from_layer(tg.g, *name, a->chunks, dt);
    *out = x->chunks == a0->chunks ? x : rechunk(x, a0->chunks);
  }
  return r;
}

ArrayPtr inv(const ArrayPtr &a0) {
  const Index n = check_square_matrix(a0, "inv");
  const DType dt = lapack_dtype(a0->dtype);
  // dask: solve(a, eye(n, chunks=a.chunks[0][0])); our identity takes a's row chunks on both axes.
  ArrayPtr id = eye(n, n, 0, {a0->chunks[0], a0->chunks[0]}, dt);
  ArrayPtr x = solve(a0, id);
  return x->chunks == a0->chunks ? x : rechunk(x, a0->chunks);
}

ArrayPtr cholesky(const ArrayPtr &a0, bool lower) {
  check_square_matrix(a0, "cholesky");
  const DType dt = lapack_dtype(a0->dtype);
  // The upper factor reads a's upper triangle: U = L^H with L the lower factor of a^H.
  auto herm = [&](const ArrayPtr &x) {
    ArrayPtr t = transpose(x, {1, 0});
    return dtype_is_complex(t->dtype) ? elementwise_unary(CA_OP_CONJ, t) : t;
  };
  ArrayPtr a = square_tiles(lower ? a0 : herm(cast_to(a0, dt)), dt);
  const std::string name = Tokenizer("cholesky").add(*a).name();
  const std::string hex = name.substr(std::string("cholesky-").size()), upd = "cholesky-s-" + hex;
  const Index nt = a->numblocks[0];
  TileGraph tg{merge_graphs({a})};
  ArrayPtr z = zeros(a->shape, a->chunks, dt);
  tg.g->merge(*z->graph);
  std::vector<Arg> cur;  // current version of the trailing tile (i, j), i >= j
  for (Index i = 0; i < nt; ++i)
    for (Index j = 0; j < nt; ++j) cur.push_back(Arg::key(a->name, {i, j}));
  auto at = [&](Index i, Index j) -> Arg & { return cur[size_t(i * nt + j)]; };
  for (Index k = 0; k < nt; ++k) {
    tg.task(name, {k, k}, "ca.linalg.cholesky", {at(k, k), Arg::i64(1)});
    for (Index i = k + 1; i < nt; ++i)
      tg.task(name, {i, k}, "ca.linalg.tile_trsm", {Arg::key(name, {k, k}), at(i, k), Arg::tup({1, 1, kOpC, 0})});
    for (Index i = k + 1; i < nt; ++i)
      for (Index j = k + 1; j <= i; ++j) {
        tg.task(upd, {k, i, j}, "ca.linalg.tile_gemm",
                {at(i, j), Arg::key(name, {i, k}), Arg::key(name, {j, k}), Arg::tup({kOpN, kOpC})});
        at(i, j) = Arg::key(upd, {k, i, j});
      }
    for (Index j = k + 1; j < nt; ++j) tg.task(name, {k, j}, "ca.identity", {Arg::key(z->name, {k, j})});
  }
  ArrayPtr l = array_from_layer(tg.g, name, a->chunks, dt);
  ArrayPtr res = lower ? l : herm(l);
  return res->chunks == a0->chunks ? res : rechunk(res, a0->chunks);
}

}  // namespace ca::linalg
