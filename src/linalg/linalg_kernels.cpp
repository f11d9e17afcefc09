// Block kernels of the linear algebra layers (graph side: linalg.cpp). Float and complex types call
// OpenBLAS / LAPACK (lapack.hpp: one OpenBLAS thread per call); integer and bool products use a
// plain loop.
//
// Packed intermediates (never returned to users; see linalg.cpp for the graphs):
//   QR pack   (m + k, n) with k = min(m, n): rows [0, m) hold Q (m x k, padded to n columns), rows
//             [m, m + k) hold R (k x n). m and k follow from the shape: rows >= 2n ? (rows - n, n)
//             : (rows / 2, rows / 2).
//   SVD pack  (2r + 1, n) of an r x n R: rows [0, r) U (r x r, padded), row r the singular values
//             (as T), rows [r + 1, 2r + 1) V^H (r x n).
//   LU pack   a CA_RAW block: int64 n, then the column-major LU (n * n T), then n int32 pivots.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "core/block.hpp"
#include "kernel/adapter.hpp"
#include "linalg/lapack.hpp"
#include "linalg/linalg.hpp"

namespace ca::linalg {

namespace {

template <class T>
struct RealOf {
  using type = T;
};
template <class T>
struct RealOf<std::complex<T>> {
  using type = T;
};
template <class T>
using real_t = typename RealOf<T>::type;

template <class T>
constexpr bool is_lapack_type = std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, cfloat> ||
                                std::is_same_v<T, cdouble>;

/// Call f(TypeTag<T>{}) for the four LAPACK dtypes.
template <class F>
decltype(auto) dispatch_float(DType t, const char *what, F &&f) {
  switch (t) {
    case CA_FLOAT32: return f(TypeTag<float>{});
    case CA_FLOAT64: return f(TypeTag<double>{});
    case CA_COMPLEX64: return f(TypeTag<cfloat>{});
    case CA_COMPLEX128: return f(TypeTag<cdouble>{});
    default: fail(CA_ETYPE, what, " needs a float32, float64, complex64 or complex128 block, got ", dtype_name(t));
  }
}

// Argument accessors of the kernel adapter (kernel/adapter.hpp), named by kernel and position.
const Block *block_arg(const ca_arg_t *args, size_t nargs, size_t i, const char *kernel) {
  return KernelArgs(kernel, args, nargs).block(i);
}
int64_t int_arg(const ca_arg_t *args, size_t nargs, size_t i, const char *kernel) {
  return KernelArgs(kernel, args, nargs).int64(i);
}
std::vector<int64_t> tuple_arg(const ca_arg_t *args, size_t nargs, size_t i, const char *kernel) {
  return KernelArgs(kernel, args, nargs).tuple_vec(i);
}

/// A nested list of blocks flattened: each block with its position per nesting level.
struct Entry {
  const Block *block;
  std::vector<int64_t> pos;
};
void flatten(const ca_arg_t &a, std::vector<int64_t> &pos, std::vector<int64_t> &extent, size_t depth,
             std::vector<Entry> &out) {
  if (a.kind == CA_ARG_BLOCK) {
    out.push_back({a.u.block, pos});
    return;
  }
  CA_CHECK(a.kind == CA_ARG_LIST, CA_EINVAL, "expected a block or a list of blocks");
  if (extent.size() <= depth) extent.resize(depth + 1, 0);
  extent[depth] = std::max<int64_t>(extent[depth], int64_t(a.u.list.len));
  pos.push_back(0);
  for (size_t i = 0; i < a.u.list.len; ++i) {
    pos.back() = int64_t(i);
    flatten(a.u.list.items[i], pos, extent, depth + 1, out);
  }
  pos.pop_back();
}

/// A scratch array of T (std::vector<bool> has no data()).
template <class T>
class Buf {
 public:
  void resize(size_t n) { v_.resize(n); }
  T *data() { return reinterpret_cast<T *>(v_.data()); }
  T &operator[](size_t i) { return data()[i]; }

 private:
  std::vector<std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>> v_;
};

/// The block's data as T (a view when it already is T, else a converted copy in `buf`).
template <class T>
const T *as_type(const Block *b, Buf<T> &buf) {
  if (b->dtype == dtype_of<T>()) return static_cast<const T *>(b->data);
  buf.resize(size_t(b->size));
  dispatch_dtype(b->dtype, [&](auto tag) {
    using S = typename decltype(tag)::type;
    const S *s = static_cast<const S *>(b->data);
    for (int64_t i = 0; i < b->size; ++i) {
      if constexpr (std::is_same_v<T, bool>) buf[size_t(i)] = s[i] != S{};
      else if constexpr ((std::is_same_v<S, cfloat> || std::is_same_v<S, cdouble>)&&!(
                             std::is_same_v<T, cfloat> || std::is_same_v<T, cdouble>))
        fail(CA_ETYPE, "cannot cast a complex block to ", dtype_name(dtype_of<T>()));
      else if constexpr (std::is_same_v<T, cfloat> || std::is_same_v<T, cdouble>)
        buf[size_t(i)] = T(s[i]);
      else
        buf[size_t(i)] = T(s[i]);
    }
  });
  return buf.data();
}

/// Copy an n-d row-major array `src` (shape) into dst with axes permuted: dst axis d = src axis perm[d].
template <class T>
void permute_copy(const T *src, const std::vector<int64_t> &shape, const std::vector<int32_t> &perm, T *dst) {
  const size_t nd = shape.size();
  std::vector<int64_t> sstride(nd, 1);
  for (size_t d = nd; d-- > 1;) sstride[d - 1] = sstride[d] * shape[d];
  std::vector<int64_t> dshape(nd), dst_stride_in_src(nd);
  int64_t total = 1;
  for (size_t d = 0; d < nd; ++d) {
    dshape[d] = shape[size_t(perm[d])];
    dst_stride_in_src[d] = sstride[size_t(perm[d])];
    total *= dshape[d];
  }
  if (total == 0) return;
  std::vector<int64_t> pos(nd, 0);
  int64_t off = 0;
  for (int64_t i = 0; i < total; ++i) {
    dst[i] = src[off];
    for (size_t d = nd; d-- > 0;) {
      off += dst_stride_in_src[d];
      if (++pos[d] < dshape[d]) break;
      off -= dst_stride_in_src[d] * dshape[d];
      pos[d] = 0;
    }
  }
}

// ---- tensordot ---------------------------------------------------------------------------------

// ca.linalg.tensordot(A, B, spec, out_dtype): A and B are blocks or nested lists of blocks along the
// contracted axes (nesting in each operand's axis order); spec = (nda, ndb, P, a_axes[P], b_axes[P])
// pairs the contracted axes. The result block is sum over matching (A, B) pairs of
// tensordot(A, B, (a_axes, b_axes)): one gemm per pair, accumulated in place.
template <class T>
Block *tensordot_impl(const ca_arg_t &aarg, const ca_arg_t &barg, const std::vector<int64_t> &spec, DType odt) {
  CA_CHECK(spec.size() >= 3, CA_EINVAL, "ca.linalg.tensordot: bad spec");
  const int32_t nda = int32_t(spec[0]), ndb = int32_t(spec[1]), P = int32_t(spec[2]);
  CA_CHECK(spec.size() == size_t(3 + 2 * P), CA_EINVAL, "ca.linalg.tensordot: bad spec");
  std::vector<int32_t> aax(static_cast<size_t>(P)), bax(static_cast<size_t>(P));
  for (int32_t p = 0; p < P; ++p) {
    aax[size_t(p)] = int32_t(spec[size_t(3 + p)]);
    bax[size_t(p)] = int32_t(spec[size_t(3 + P + p)]);
  }
  // Nesting level l of an operand is its l-th contracted axis in axis order; its pair index:
  auto level_pairs = [&](const std::vector<int32_t> &ax) {
    std::vector<int32_t> sorted = ax, pair;
    std::sort(sorted.begin(), sorted.end());
    for (int32_t s : sorted) pair.push_back(int32_t(std::find(ax.begin(), ax.end(), s) - ax.begin()));
    return pair;
  };
  const std::vector<int32_t> apair = level_pairs(aax), bpair = level_pairs(bax);
  std::vector<Entry> ea, eb;
  std::vector<int64_t> pos, exa, exb;
  flatten(aarg, pos, exa, 0, ea);
  flatten(barg, pos, exb, 0, eb);
  CA_CHECK(!ea.empty() && !eb.empty(), CA_EINVAL, "ca.linalg.tensordot: no blocks");
  // Pair-order extents and linear indices.
  std::vector<int64_t> ext(static_cast<size_t>(P), 1);
  for (size_t l = 0; l < exa.size() && l < apair.size(); ++l) ext[size_t(apair[l])] = exa[l];
  auto lin_of = [&](const Entry &e, const std::vector<int32_t> &pair) {
    std::vector<int64_t> pp(static_cast<size_t>(P), 0);
    for (size_t l = 0; l < e.pos.size() && l < pair.size(); ++l) pp[size_t(pair[l])] = e.pos[l];
    int64_t lin = 0;
    for (int32_t p = 0; p < P; ++p) lin = lin * ext[size_t(p)] + pp[size_t(p)];
    return lin;
  };
  int64_t nlin = 1;
  for (int64_t e : ext) nlin *= e;
  std::vector<const Block *> amap(size_t(nlin), nullptr), bmap(size_t(nlin), nullptr);
  for (auto &e : ea) amap[size_t(lin_of(e, apair))] = e.block;
  for (auto &e : eb) {
    int64_t l = lin_of(e, bpair);
    CA_CHECK(l < nlin, CA_EINVAL, "ca.linalg.tensordot: operand lists do not match");
    bmap[size_t(l)] = e.block;
  }
  // Free axes and the output shape.
  const Block *a0 = ea[0].block, *b0 = eb[0].block;
  CA_CHECK(a0->ndim == nda && b0->ndim == ndb, CA_EINVAL, "ca.linalg.tensordot: blocks have ", a0->ndim, " and ",
           b0->ndim, " dimensions, expected ", nda, " and ", ndb);
  std::vector<int32_t> afree, bfree;
  for (int32_t d = 0; d < nda; ++d)
    if (std::find(aax.begin(), aax.end(), d) == aax.end()) afree.push_back(d);
  for (int32_t d = 0; d < ndb; ++d)
    if (std::find(bax.begin(), bax.end(), d) == bax.end()) bfree.push_back(d);
  std::vector<int64_t> oshape;
  int64_t M = 1, N = 1;
  for (int32_t d : afree) {
    oshape.push_back(a0->shape[d]);
    M *= a0->shape[d];
  }
  for (int32_t d : bfree) {
    oshape.push_back(b0->shape[d]);
    N *= b0->shape[d];
  }
  BlockRef res(block_new(odt, int32_t(oshape.size()), oshape.data(), true));
  T *C = static_cast<T *>(res->data);
  // Matrix views: A as M x K (no transpose) when its contracted axes are trailing in pair order, as
  // K x M (transposed) when leading; otherwise a permuted copy. B likewise as K x N / N x K.
  std::vector<int32_t> a_nt = afree, a_t = aax, b_nt = bax, b_t = bfree;
  a_nt.insert(a_nt.end(), aax.begin(), aax.end());
  a_t.insert(a_t.end(), afree.begin(), afree.end());
  b_nt.insert(b_nt.end(), bfree.begin(), bfree.end());
  b_t.insert(b_t.end(), bax.begin(), bax.end());
  auto is_identity = [](const std::vector<int32_t> &p) {
    for (size_t i = 0; i < p.size(); ++i)
      if (p[i] != int32_t(i)) return false;
    return true;
  };
  Buf<T> abuf, bbuf, aperm, bperm;
  bool first = true;
  for (int64_t l = 0; l < nlin; ++l) {
    const Block *A = amap[size_t(l)], *B = bmap[size_t(l)];
    if (!A || !B) continue;
    CA_CHECK(A->ndim == nda && B->ndim == ndb, CA_EINVAL, "ca.linalg.tensordot: blocks differ in dimensions");
    int64_t K = 1, Kb = 1;
    for (int32_t p = 0; p < P; ++p) {
      K *= A->shape[aax[size_t(p)]];
      Kb *= B->shape[bax[size_t(p)]];
      CA_CHECK(A->shape[aax[size_t(p)]] == B->shape[bax[size_t(p)]], CA_EINVAL,
               "ca.linalg.tensordot: contracted block extents differ (", A->shape[aax[size_t(p)]], " and ",
               B->shape[bax[size_t(p)]], ")");
    }
    const T *Ad = as_type<T>(A, abuf), *Bd = as_type<T>(B, bbuf);
    bool ta = false, tb = false;
    std::vector<int64_t> ash(A->shape, A->shape + nda), bsh(B->shape, B->shape + ndb);
    if (is_identity(a_nt)) {
    } else if (is_identity(a_t)) {
      ta = true;
    } else {
      aperm.resize(size_t(A->size));
      permute_copy(Ad, ash, a_nt, aperm.data());
      Ad = aperm.data();
    }
    if (is_identity(b_nt)) {
    } else if (is_identity(b_t)) {
      tb = true;
    } else {
      bperm.resize(size_t(B->size));
      permute_copy(Bd, bsh, b_nt, bperm.data());
      Bd = bperm.data();
    }
    gemm<T>(ta, tb, M, N, K, Ad, ta ? M : K, Bd, tb ? K : N, C, N, !first);
    first = false;
  }
  return res.release();
}

ca_status_t k_tensordot(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return kernel_boundary(out, kctx, [&]() -> Block * {
    CA_CHECK(nargs == 4, CA_EINVAL, "ca.linalg.tensordot takes (A, B, spec, dtype)");
    auto spec = tuple_arg(args, nargs, 2, "ca.linalg.tensordot");
    DType odt = DType(int_arg(args, nargs, 3, "ca.linalg.tensordot"));
    return dispatch_dtype(odt, [&](auto tag) -> Block * {
      using T = typename decltype(tag)::type;
      return tensordot_impl<T>(args[0], args[1], spec, odt);
    });
  });
}

// ---- syrk (Gram diagonal blocks) ----------------------------------------------------------------

// ca.linalg.syrk(A, trans, dtype): A a 2-d block or a list of them along the contracted axis (all
// with the same free extent); the result is sum over the list of A A^T (trans 0) or A^T A
// (trans 1), float32 or float64, exactly symmetric: the diagonal blocks of a @ a.T / a.T @ a
// (linalg.cpp's gram), with half a gemm's multiplications.
template <class T>
Block *syrk_impl(const ca_arg_t &aarg, bool trans, DType odt) {
  std::vector<Entry> ea;
  std::vector<int64_t> pos, ext;
  flatten(aarg, pos, ext, 0, ea);
  CA_CHECK(!ea.empty(), CA_EINVAL, "ca.linalg.syrk: no blocks");
  const int64_t N = ea[0].block->ndim == 2 ? ea[0].block->shape[trans ? 1 : 0] : -1;
  for (const Entry &e : ea)
    CA_CHECK(e.block->ndim == 2 && e.block->shape[trans ? 1 : 0] == N, CA_EINVAL,
             "ca.linalg.syrk: blocks must be 2-d with the same ", trans ? "column" : "row", " count");
  int64_t oshape[2] = {N, N};
  BlockRef res(block_new(odt, 2, oshape, true));
  T *C = static_cast<T *>(res->data);
  Buf<T> buf;
  for (size_t i = 0; i < ea.size(); ++i) {
    const Block *A = ea[i].block;
    const int64_t K = A->shape[trans ? 0 : 1];
    syrk<T>(trans, N, K, as_type<T>(A, buf), A->shape[1], C, N, i > 0, i + 1 == ea.size());
  }
  return res.release();
}

ca_status_t k_syrk(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return kernel_boundary(out, kctx, [&]() -> Block * {
    CA_CHECK(nargs == 3, CA_EINVAL, "ca.linalg.syrk takes (A, trans, dtype)");
    const int64_t trans = int_arg(args, nargs, 1, "ca.linalg.syrk");
    CA_CHECK(trans == 0 || trans == 1, CA_EINVAL, "ca.linalg.syrk: trans must be 0 or 1, got ", trans);
    const DType odt = DType(int_arg(args, nargs, 2, "ca.linalg.syrk"));
    if (odt == CA_FLOAT32) return syrk_impl<float>(args[0], trans != 0, odt);
    CA_CHECK(odt == CA_FLOAT64, CA_ETYPE, "ca.linalg.syrk: dtype must be float32 or float64, got ",
             dtype_valid(odt) ? dtype_name(odt) : "an unknown dtype");
    return syrk_impl<double>(args[0], trans != 0, odt);
  });
}

// ---- matmul --------------------------------------------------------------------------------------

// ca.linalg.matmul(Alist, Blist, (a_vec, b_vec), dtype): lists of blocks along the contracted axis.
// A blocks (batch..., m, k) or (k) when a_vec; B blocks (batch..., k, n) or (k). Batch dimensions
// broadcast (NumPy). Result (batch..., m, n) without m / n for vectors.
template <class T>
Block *matmul_impl(const ca_arg_t &aarg, const ca_arg_t &barg, bool avec, bool bvec, DType odt) {
  std::vector<Entry> ea, eb;
  std::vector<int64_t> pos, exa, exb;
  flatten(aarg, pos, exa, 0, ea);
  flatten(barg, pos, exb, 0, eb);
  CA_CHECK(!ea.empty() && ea.size() == eb.size(), CA_EINVAL, "ca.linalg.matmul: operand lists differ in length (",
           ea.size(), " and ", eb.size(), ")");
  const Block *a0 = ea[0].block, *b0 = eb[0].block;
  const int32_t nba = a0->ndim - (avec ? 1 : 2), nbb = b0->ndim - (bvec ? 1 : 2);
  CA_CHECK(nba >= 0 && nbb >= 0, CA_EINVAL, "ca.linalg.matmul: blocks have too few dimensions");
  const int32_t nbo = std::max(nba, nbb);
  std::vector<int64_t> bshape(static_cast<size_t>(nbo));
  for (int32_t d = 0; d < nbo; ++d) {
    int32_t da = d - (nbo - nba), db = d - (nbo - nbb);
    int64_t ea_ = da >= 0 ? a0->shape[da] : 1, eb_ = db >= 0 ? b0->shape[db] : 1;
    CA_CHECK(ea_ == eb_ || ea_ == 1 || eb_ == 1, CA_EINVAL, "ca.linalg.matmul: batch extents ", ea_, " and ", eb_,
             " do not broadcast");
    bshape[size_t(d)] = ea_ == 1 ? eb_ : ea_;
  }
  const int64_t M = avec ? 1 : a0->shape[a0->ndim - 2];
  const int64_t N = bvec ? 1 : b0->shape[b0->ndim - 1];
  std::vector<int64_t> oshape = bshape;
  if (!avec) oshape.push_back(M);
  if (!bvec) oshape.push_back(N);
  BlockRef res(block_new(odt, int32_t(oshape.size()), oshape.data(), true));
  T *C = static_cast<T *>(res->data);
  int64_t nbatch = 1;
  for (int64_t e : bshape) nbatch *= e;
  Buf<T> abuf, bbuf;
  std::vector<int64_t> bpos(static_cast<size_t>(nbo));
  for (size_t t = 0; t < ea.size(); ++t) {
    const Block *A = ea[t].block, *B = eb[t].block;
    CA_CHECK(A->ndim == a0->ndim && B->ndim == b0->ndim, CA_EINVAL, "ca.linalg.matmul: blocks differ in dimensions");
    const int64_t K = A->shape[A->ndim - 1];
    CA_CHECK(B->shape[B->ndim - (bvec ? 1 : 2)] == K, CA_EINVAL, "ca.linalg.matmul: contracted block extents differ (",
             K, " and ", B->shape[B->ndim - (bvec ? 1 : 2)], ")");
    const T *Ad = as_type<T>(A, abuf), *Bd = as_type<T>(B, bbuf);
    std::fill(bpos.begin(), bpos.end(), 0);
    for (int64_t bi = 0; bi < nbatch; ++bi) {
      int64_t aoff = 0, boff = 0;
      for (int32_t d = 0; d < nbo; ++d) {
        int32_t da = d - (nbo - nba), db = d - (nbo - nbb);
        if (da >= 0) aoff = aoff * A->shape[da] + (A->shape[da] == 1 ? 0 : bpos[size_t(d)]);
        if (db >= 0) boff = boff * B->shape[db] + (B->shape[db] == 1 ? 0 : bpos[size_t(d)]);
      }
      gemm<T>(false, false, M, N, K, Ad + aoff * M * K, K, Bd + boff * K * N, N, C + bi * M * N, N, t > 0);
      for (int32_t d = nbo; d-- > 0;) {
        if (++bpos[size_t(d)] < bshape[size_t(d)]) break;
        bpos[size_t(d)] = 0;
      }
    }
  }
  return res.release();
}

ca_status_t k_matmul(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return kernel_boundary(out, kctx, [&]() -> Block * {
    CA_CHECK(nargs == 4, CA_EINVAL, "ca.linalg.matmul takes (A, B, (a_vec, b_vec), dtype)");
    auto flags = tuple_arg(args, nargs, 2, "ca.linalg.matmul");
    CA_CHECK(flags.size() == 2, CA_EINVAL, "ca.linalg.matmul: flags are (a_vec, b_vec)");
    DType odt = DType(int_arg(args, nargs, 3, "ca.linalg.matmul"));
    return dispatch_dtype(odt, [&](auto tag) -> Block * {
      using T = typename decltype(tag)::type;
      return matmul_impl<T>(args[0], args[1], flags[0] != 0, flags[1] != 0, odt);
    });
  });
}

// ca.linalg.sum(nested list of blocks): their elementwise sum (OR for bool): the tree levels above
// the partial products.
ca_status_t k_sum(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return kernel_boundary(out, kctx, [&]() -> Block * {
    CA_CHECK(nargs == 1, CA_EINVAL, "ca.linalg.sum takes one (nested) list of blocks");
    std::vector<Entry> e;
    std::vector<int64_t> pos, ext;
    flatten(args[0], pos, ext, 0, e);
    CA_CHECK(!e.empty(), CA_EINVAL, "ca.linalg.sum: no blocks");
    const Block *b0 = e[0].block;
    if (e.size() == 1) return block_retain(b0);
    BlockRef res(block_new(b0->dtype, b0->ndim, b0->shape));
    std::memcpy(res->data, b0->data, size_t(b0->nbytes));
    dispatch_dtype(b0->dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      T *r = static_cast<T *>(res->data);
      for (size_t i = 1; i < e.size(); ++i) {
        const Block *b = e[i].block;
        CA_CHECK(b->dtype == b0->dtype && b->size == b0->size, CA_EINVAL, "ca.linalg.sum: blocks differ");
        const T *x = static_cast<const T *>(b->data);
        for (int64_t j = 0; j < b->size; ++j) {
          if constexpr (std::is_same_v<T, bool>) r[j] = r[j] || x[j];
          else if constexpr (std::is_integral_v<T>) r[j] = T(std::make_unsigned_t<T>(r[j]) + std::make_unsigned_t<T>(x[j]));
          else r[j] += x[j];
        }
      }
    });
    return res.release();
  });
}

// ---- tsqr ------------------------------------------------------------------------------------------

struct QrView {
  int64_t m, k, n;
};
QrView qr_view(const Block *p) {
  CA_CHECK(p->ndim == 2, CA_EINVAL, "a QR pack must be 2-d");
  const int64_t rows = p->shape[0], n = p->shape[1];
  if (rows >= 2 * n) return {rows - n, n, n};
  return {rows / 2, rows / 2, n};
}

template <class T>
Block *pack_qr(int64_t m, int64_t n, const T *a_rowmajor, DType dt) {
  const int64_t k = std::min(m, n);
  std::vector<T> col(static_cast<size_t>(m * n)), r(static_cast<size_t>(k * n));
  to_colmajor(m, n, a_rowmajor, col.data());
  qr_colmajor(m, n, col.data(), r.data());
  int64_t shape[2] = {m + k, n};
  BlockRef res(block_new(dt, 2, shape, true));
  T *o = static_cast<T *>(res->data);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < k; ++j) o[i * n + j] = col[size_t(j * m + i)];
  for (int64_t i = 0; i < k; ++i)
    for (int64_t j = 0; j < n; ++j) o[(m + i) * n + j] = r[size_t(j * k + i)];
  return res.release();
}

// ca.linalg.qr_block(A): the QR pack of one row block.
ca_status_t k_qr_block(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return kernel_boundary(out, kctx, [&]() -> Block * {
    const Block *a = block_arg(args, nargs, 0, "ca.linalg.qr_block");
    CA_CHECK(a->ndim == 2, CA_EINVAL, "ca.linalg.qr_block: the block must be 2-d");
    return dispatch_float(a->dtype, "qr", [&](auto tag) -> Block * {
      using T = typename decltype(tag)::type;
      return pack_qr<T>(a->shape[0], a->shape[1], static_cast<const T *>(a->data), a->dtype);
    });
  });
}

// ca.linalg.qr_stack([packs]): the QR pack of the row blocks' stacked R factors.
ca_status_t k_qr_stack(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return kernel_boundary(out, kctx, [&]() -> Block * {
    CA_CHECK(nargs == 1, CA_EINVAL, "ca.linalg.qr_stack takes a list of QR packs");
    std::vector<Entry> e;
    std::vector<int64_t> pos, ext;
    flatten(args[0], pos, ext, 0, e);
    CA_CHECK(!e.empty(), CA_EINVAL, "ca.linalg.qr_stack: no blocks");
    const int64_t n = qr_view(e[0].block).n;
    int64_t K = 0;
    for (auto &x : e) {
      QrView v = qr_view(x.block);
      CA_CHECK(v.n == n && x.block->dtype == e[0].block->dtype, CA_EINVAL, "ca.linalg.qr_stack: packs differ");
      K += v.k;
    }
    DType dt = e[0].block->dtype;
    return dispatch_float(dt, "qr", [&](auto tag) -> Block * {
      using T = typename decltype(tag)::type;
      std::vector<T> stacked(static_cast<size_t>(K * n));
      int64_t row = 0;
      for (auto &x : e) {
        QrView v = qr_view(x.block);
        const T *p = static_cast<const T *>(x.block->data);
        if (v.k * n > 0) std::memcpy(stacked.data() + row * n, p + v.m * n, size_t(v.k * n) * sizeof(T));
        row += v.k;
      }
      return pack_qr<T>(K, n, stacked.data(), dt);
    });
  });
}

// ca.linalg.qr_q(pack_i, stack_pack, offsets, block_index): Q block i = Q_i @ Q2[off_i : off_i + k_i].
// With a fifth argument (an SVD pack), U block i = Q_i @ Q2_i @ U_r.
ca_status_t k_qr_q(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return kernel_boundary(out, kctx, [&]() -> Block * {
    CA_CHECK(nargs == 4 || nargs == 5, CA_EINVAL, "ca.linalg.qr_q takes (pack, stack, offsets, index[, svd])");
    const Block *p = block_arg(args, nargs, 0, "ca.linalg.qr_q"), *s = block_arg(args, nargs, 1, "ca.linalg.qr_q");
    auto offs = tuple_arg(args, nargs, 2, "ca.linalg.qr_q");
    auto idx = tuple_arg(args, nargs, 3, "ca.linalg.qr_q");
    CA_CHECK(!idx.empty() && idx[0] >= 0 && size_t(idx[0]) < offs.size(), CA_EINVAL, "ca.linalg.qr_q: bad block index");
    const Block *sv = nargs == 5 ? block_arg(args, nargs, 4, "ca.linalg.qr_q") : nullptr;
    QrView v = qr_view(p), w = qr_view(s);
    const int64_t off = offs[size_t(idx[0])], r = w.k, n = v.n;
    CA_CHECK(off + v.k <= w.m, CA_EINVAL, "ca.linalg.qr_q: offsets do not match the stacked R");
    return dispatch_float(p->dtype, "qr", [&](auto tag) -> Block * {
      using T = typename decltype(tag)::type;
      int64_t shape[2] = {v.m, r};
      BlockRef res(block_new(p->dtype, 2, shape, true));
      const T *Q = static_cast<const T *>(p->data), *Q2 = static_cast<const T *>(s->data) + off * n;
      T *C = static_cast<T *>(res->data);
      if (!sv) {
        gemm<T>(false, false, v.m, r, v.k, Q, n, Q2, n, C, r, false);
      } else {
        std::vector<T> tmp(static_cast<size_t>(v.m * r));
        gemm<T>(false, false, v.m, r, v.k, Q, n, Q2, n, tmp.data(), r, false);
        const T *U = static_cast<const T *>(sv->data);  // r x r, ld n
        gemm<T>(false, false, v.m, r, r, tmp.data(), r, U, sv->shape[1], C, r, false);
      }
      return res.release();
    });
  });
}

// ca.linalg.qr_qe(pack, e, offset): Q @ e[offset : offset + k] for the pack's Q (m x k) and e a
// plain matrix (rows x r): one step down the tree of a multi-level tsqr (e is the parent's factor).
ca_status_t k_qr_qe(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return kernel_boundary(out, kctx, [&]() -> Block * {
    const char *kn = "ca.linalg.qr_qe";
    CA_CHECK(nargs == 3, CA_EINVAL, kn, " takes (pack, e, offset)");
    const Block *p = block_arg(args, nargs, 0, kn), *e = block_arg(args, nargs, 1, kn);
    const int64_t off = int_arg(args, nargs, 2, kn);
    CA_CHECK(p->ndim == 2 && e->ndim == 2 && p->dtype == e->dtype, CA_EINVAL, kn, ": bad operands");
    QrView v = qr_view(p);
    const int64_t r = e->shape[1];
    CA_CHECK(off >= 0 && off + v.k <= e->shape[0], CA_EINVAL, kn, ": offset ", off, " does not fit the parent's ",
             e->shape[0], " rows");
    return dispatch_float(p->dtype, kn, [&](auto tag) -> Block * {
      using T = typename decltype(tag)::type;
      int64_t shape[2] = {v.m, r};
      BlockRef res(block_new(p->dtype, 2, shape, true));
      gemm<T>(false, false, v.m, r, v.k, static_cast<const T *>(p->data), v.n,
              static_cast<const T *>(e->data) + off * r, r, static_cast<T *>(res->data), r, false);
      return res.release();
    });
  });
}

// ca.linalg.qr_r(stack_pack): R (r x n).
ca_status_t k_qr_r(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return kernel_boundary(out, kctx, [&]() -> Block * {
    const Block *s = block_arg(args, nargs, 0, "ca.linalg.qr_r");
    QrView w = qr_view(s);
    int64_t shape[2] = {w.k, w.n};
    BlockRef res(block_new(s->dtype, 2, shape));
    size_t isz = dtype_size(s->dtype);
    std::memcpy(res->data, static_cast<const char *>(s->data) + size_t(w.m * w.n) * isz, size_t(w.k * w.n) * isz);
    return res.release();
  });
}

// ca.linalg.svd_small(stack_pack): the SVD pack of R.
ca_status_t k_svd_small(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return kernel_boundary(out, kctx, [&]() -> Block * {
    const Block *s = block_arg(args, nargs, 0, "ca.linalg.svd_small");
    QrView w = qr_view(s);
    const int64_t r = w.k, n = w.n;
    return dispatch_float(s->dtype, "svd", [&](auto tag) -> Block * {
      using T = typename decltype(tag)::type;
      using R = real_t<T>;
      std::vector<T> col(static_cast<size_t>(r * n)), u(static_cast<size_t>(r * r)), vt(static_cast<size_t>(r * n));
      std::vector<R> sv(static_cast<size_t>(r));
      to_colmajor(r, n, static_cast<const T *>(s->data) + w.m * n, col.data());
      int64_t info = svd_colmajor<T, R>(r, n, col.data(), u.data(), sv.data(), vt.data());
      CA_CHECK(info == 0, CA_EKERNEL, "SVD did not converge (LAPACK gesdd info ", info, ")");
      int64_t shape[2] = {2 * r + 1, n};
      BlockRef res(block_new(s->dtype, 2, shape, true));
      T *o = static_cast<T *>(res->data);
      for (int64_t i = 0; i < r; ++i)
        for (int64_t j = 0; j < r; ++j) o[i * n + j] = u[size_t(j * r + i)];
      for (int64_t j = 0; j < r; ++j) o[r * n + j] = T(sv[size_t(j)]);
      for (int64_t i = 0; i < r; ++i)
        for (int64_t j = 0; j < n; ++j) o[(r + 1 + i) * n + j] = vt[size_t(j * r + i)];
      return res.release();
    });
  });
}

// ca.linalg.svd_s(svd_pack): the singular values (real dtype). ca.linalg.svd_v(svd_pack): V^H.
ca_status_t k_svd_s(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return kernel_boundary(out, kctx, [&]() -> Block * {
    const Block *p = block_arg(args, nargs, 0, "ca.linalg.svd_s");
    const int64_t r = (p->shape[0] - 1) / 2, n = p->shape[1];
    return dispatch_float(p->dtype, "svd", [&](auto tag) -> Block * {
      using T = typename decltype(tag)::type;
      using R = real_t<T>;
      BlockRef res(block_new(dtype_of<R>(), 1, &r));
      const T *src = static_cast<const T *>(p->data) + r * n;
      for (int64_t j = 0; j < r; ++j) static_cast<R *>(res->data)[j] = std::real(src[j]);
      return res.release();
    });
  });
}
ca_status_t k_svd_v(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return kernel_boundary(out, kctx, [&]() -> Block * {
    const Block *p = block_arg(args, nargs, 0, "ca.linalg.svd_v");
    const int64_t r = (p->shape[0] - 1) / 2, n = p->shape[1];
    int64_t shape[2] = {r, n};
    BlockRef res(block_new(p->dtype, 2, shape));
    size_t isz = dtype_size(p->dtype);
    std::memcpy(res->data, static_cast<const char *>(p->data) + size_t((r + 1) * n) * isz, size_t(r * n) * isz);
    return res.release();
  });
}

// ca.linalg.rank(s, M, N): 0-d int64, NumPy's matrix_rank rule: s > s.max() * max(M, N) * eps.
ca_status_t k_rank(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return kernel_boundary(out, kctx, [&]() -> Block * {
    const Block *s = block_arg(args, nargs, 0, "ca.linalg.rank");
    int64_t mn = std::max(int_arg(args, nargs, 1, "ca.linalg.rank"), int_arg(args, nargs, 2, "ca.linalg.rank"));
    int64_t rank = 0;
    auto count = [&](auto *v, double eps) {
      double mx = 0;
      for (int64_t i = 0; i < s->size; ++i) mx = std::max(mx, double(v[i]));
      double tol = mx * double(mn) * eps;
      for (int64_t i = 0; i < s->size; ++i) rank += double(v[i]) > tol;
    };
    if (s->dtype == CA_FLOAT32) count(static_cast<const float *>(s->data), double(std::numeric_limits<float>::epsilon()));
    else if (s->dtype == CA_FLOAT64) count(static_cast<const double *>(s->data), std::numeric_limits<double>::epsilon());
    else fail(CA_ETYPE, "ca.linalg.rank needs real singular values");
    BlockRef res(block_new(CA_INT64, 0, nullptr));
    *static_cast<int64_t *>(res->data) = rank;
    return res.release();
  });
}

// ---- square solvers (one block) ----------------------------------------------------------------------

// ca.linalg.lu(A): the LU pack (CA_RAW) of a square block; "Singular matrix" if it is singular.
ca_status_t k_lu(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return kernel_boundary(out, kctx, [&]() -> Block * {
    const Block *a = block_arg(args, nargs, 0, "ca.linalg.lu");
    CA_CHECK(a->ndim == 2 && a->shape[0] == a->shape[1], CA_EINVAL, "ca.linalg.lu: the block must be square");
    const int64_t n = a->shape[0];
    return dispatch_float(a->dtype, "solve", [&](auto tag) -> Block * {
      using T = typename decltype(tag)::type;
      int64_t bytes = int64_t(sizeof(int64_t) + size_t(n * n) * sizeof(T) + size_t(n) * sizeof(int32_t));
      BlockRef res(block_new(CA_RAW, 1, &bytes));
      char *base = static_cast<char *>(res->data);
      std::memcpy(base, &n, sizeof n);
      T *lu = reinterpret_cast<T *>(base + sizeof(int64_t));
      int32_t *piv = reinterpret_cast<int32_t *>(base + sizeof(int64_t) + size_t(n * n) * sizeof(T));
      to_colmajor(n, n, static_cast<const T *>(a->data), lu);
      int64_t info = lu_colmajor(n, lu, piv);
      CA_CHECK(info == 0, CA_EKERNEL, "Singular matrix");
      return res.release();
    });
  });
}

// ca.linalg.lu_solve(lu_pack, b, dtype): x = A^-1 b for b (n) or (n, k).
ca_status_t k_lu_solve(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return kernel_boundary(out, kctx, [&]() -> Block * {
    const Block *f = block_arg(args, nargs, 0, "ca.linalg.lu_solve"), *b = block_arg(args, nargs, 1, "ca.linalg.lu_solve");
    DType dt = DType(int_arg(args, nargs, 2, "ca.linalg.lu_solve"));
    int64_t n;
    std::memcpy(&n, f->data, sizeof n);
    CA_CHECK(b->ndim >= 1 && b->ndim <= 2 && b->shape[0] == n, CA_EINVAL, "ca.linalg.lu_solve: b does not match A");
    const int64_t k = b->ndim == 2 ? b->shape[1] : 1;
    return dispatch_float(dt, "solve", [&](auto tag) -> Block * {
      using T = typename decltype(tag)::type;
      const char *base = static_cast<const char *>(f->data);
      const T *lu = reinterpret_cast<const T *>(base + sizeof(int64_t));
      const int32_t *piv = reinterpret_cast<const int32_t *>(base + sizeof(int64_t) + size_t(n * n) * sizeof(T));
      Buf<T> bbuf;
      std::vector<T> col(static_cast<size_t>(n * k));
      const T *bd = as_type<T>(b, bbuf);
      to_colmajor(n, k, bd, col.data());
      lu_solve_colmajor(n, k, lu, piv, col.data());
      BlockRef res(block_new(dt, b->ndim, b->shape));
      from_colmajor(n, k, col.data(), static_cast<T *>(res->data));
      return res.release();
    });
  });
}

// ca.linalg.inv(A): the inverse of a square block.
ca_status_t k_inv(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return kernel_boundary(out, kctx, [&]() -> Block * {
    const Block *a = block_arg(args, nargs, 0, "ca.linalg.inv");
    CA_CHECK(a->ndim == 2 && a->shape[0] == a->shape[1], CA_EINVAL, "ca.linalg.inv: the block must be square");
    const int64_t n = a->shape[0];
    return dispatch_float(a->dtype, "inv", [&](auto tag) -> Block * {
      using T = typename decltype(tag)::type;
      std::vector<T> col(static_cast<size_t>(n * n));
      std::vector<int32_t> piv(static_cast<size_t>(std::max<int64_t>(n, 1)));
      to_colmajor(n, n, static_cast<const T *>(a->data), col.data());
      CA_CHECK(lu_colmajor(n, col.data(), piv.data()) == 0, CA_EKERNEL, "Singular matrix");
      CA_CHECK(lu_inverse_colmajor(n, col.data(), piv.data()) == 0, CA_EKERNEL, "Singular matrix");
      BlockRef res(block_new(a->dtype, 2, a->shape));
      from_colmajor(n, n, col.data(), static_cast<T *>(res->data));
      return res.release();
    });
  });
}

// ca.linalg.cholesky(A, lower): L (A = L L^H) or U (A = U^H U) of a Hermitian positive-definite block.
ca_status_t k_cholesky(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return kernel_boundary(out, kctx, [&]() -> Block * {
    const Block *a = block_arg(args, nargs, 0, "ca.linalg.cholesky");
    bool lower = int_arg(args, nargs, 1, "ca.linalg.cholesky") != 0;
    CA_CHECK(a->ndim == 2 && a->shape[0] == a->shape[1], CA_EINVAL, "ca.linalg.cholesky: the block must be square");
    const int64_t n = a->shape[0];
    return dispatch_float(a->dtype, "cholesky", [&](auto tag) -> Block * {
      using T = typename decltype(tag)::type;
      std::vector<T> col(static_cast<size_t>(n * n));
      to_colmajor(n, n, static_cast<const T *>(a->data), col.data());
      CA_CHECK(cholesky_colmajor(n, col.data(), lower) == 0, CA_EKERNEL, "Matrix is not positive definite");
      BlockRef res(block_new(a->dtype, 2, a->shape));
      from_colmajor(n, n, col.data(), static_cast<T *>(res->data));
      return res.release();
    });
  });
}

// ca.linalg.trisolve(R, y, lower, dtype): x with R x = y, R square triangular, y (n) or (n, k).
ca_status_t k_trisolve(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return kernel_boundary(out, kctx, [&]() -> Block * {
    const Block *r = block_arg(args, nargs, 0, "ca.linalg.trisolve"), *y = block_arg(args, nargs, 1, "ca.linalg.trisolve");
    bool lower = int_arg(args, nargs, 2, "ca.linalg.trisolve") != 0;
    DType dt = DType(int_arg(args, nargs, 3, "ca.linalg.trisolve"));
    CA_CHECK(r->ndim == 2 && r->shape[0] == r->shape[1], CA_EINVAL, "ca.linalg.trisolve: the matrix must be square");
    const int64_t n = r->shape[0];
    CA_CHECK(y->ndim >= 1 && y->ndim <= 2 && y->shape[0] == n, CA_EINVAL, "ca.linalg.trisolve: b does not match");
    const int64_t k = y->ndim == 2 ? y->shape[1] : 1;
    return dispatch_float(dt, "lstsq", [&](auto tag) -> Block * {
      using T = typename decltype(tag)::type;
      Buf<T> rbuf, ybuf;
      std::vector<T> rc(static_cast<size_t>(n * n)), yc(static_cast<size_t>(n * k));
      to_colmajor(n, n, as_type<T>(r, rbuf), rc.data());
      to_colmajor(n, k, as_type<T>(y, ybuf), yc.data());
      CA_CHECK(trsolve_colmajor(n, k, rc.data(), lower, yc.data()) == 0, CA_EKERNEL,
               "Singular matrix: the triangular factor has a zero on its diagonal (rank-deficient input)");
      BlockRef res(block_new(dt, y->ndim, y->shape));
      from_colmajor(n, k, yc.data(), static_cast<T *>(res->data));
      return res.release();
    });
  });
}

// ---- tile kernels (blocked cholesky, LU, triangular solves: tiled.cpp) -------------------------------

/// A 1-d or 2-d block as a row-major matrix: rows x cols (a 1-d block is a column).
struct Mat {
  int64_t rows, cols;
};
Mat mat_of(const Block *b, const char *kernel) {
  CA_CHECK(b->ndim == 1 || b->ndim == 2, CA_EINVAL, kernel, ": blocks must be 1-d or 2-d, got ", b->ndim, "-d");
  return {b->shape[0], b->ndim == 2 ? b->shape[1] : 1};
}

Op op_arg(int64_t v, const char *kernel) {
  CA_CHECK(v >= 0 && v <= 2, CA_EINVAL, kernel, ": op must be 0 (none), 1 (transpose) or 2 (conjugate transpose), got ", v);
  return Op(v);
}

/// A copy of b converted to T (the result block's storage).
template <class T>
BlockRef copy_as(const Block *b, DType dt) {
  BlockRef res(block_new(dt, b->ndim, b->shape));
  Buf<T> buf;
  const T *src = as_type<T>(b, buf);
  if (b->size) std::memcpy(res->data, src, size_t(b->size) * sizeof(T));
  return res;
}

/// "Singular matrix" when a triangular tile (row- or column-major, ld n) has a zero on its diagonal
/// (scipy's solve_triangular raises there too; BLAS trsm would divide by zero silently).
template <class T>
void check_diagonal(int64_t n, const T *a) {
  for (int64_t i = 0; i < n; ++i)
    CA_CHECK(a[i * n + i] != T(0), CA_EKERNEL, "Singular matrix: the triangular factor is singular (zero at diagonal ",
             i, ")");
}

// ca.linalg.tile_gemm(c, a, b, (op_a, op_b)): c - op(a) op(b); c and b may be 1-d (columns).
ca_status_t k_tile_gemm(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return kernel_boundary(out, kctx, [&]() -> Block * {
    const char *kn = "ca.linalg.tile_gemm";
    CA_CHECK(nargs == 4, CA_EINVAL, kn, " takes (c, a, b, (op_a, op_b))");
    const Block *c = block_arg(args, nargs, 0, kn), *a = block_arg(args, nargs, 1, kn), *b = block_arg(args, nargs, 2, kn);
    auto ops = tuple_arg(args, nargs, 3, kn);
    CA_CHECK(ops.size() == 2, CA_EINVAL, kn, ": ops are (op_a, op_b)");
    const Op ta = op_arg(ops[0], kn), tb = op_arg(ops[1], kn);
    CA_CHECK(a->ndim == 2, CA_EINVAL, kn, ": a must be 2-d");
    const Mat mc = mat_of(c, kn), mb = mat_of(b, kn);
    CA_CHECK(b->ndim == 2 || tb == Op::N, CA_EINVAL, kn, ": a 1-d b cannot be transposed");
    const int64_t M = ta == Op::N ? a->shape[0] : a->shape[1], K = ta == Op::N ? a->shape[1] : a->shape[0];
    const int64_t KB = tb == Op::N ? mb.rows : mb.cols, N = tb == Op::N ? mb.cols : mb.rows;
    CA_CHECK(M == mc.rows && N == mc.cols && K == KB, CA_EINVAL, kn, ": tile shapes do not match");
    return dispatch_float(c->dtype, kn, [&](auto tag) -> Block * {
      using T = typename decltype(tag)::type;
      BlockRef res = copy_as<T>(c, c->dtype);
      Buf<T> abuf, bbuf;
      gemm_sub<T>(ta, tb, M, N, K, as_type<T>(a, abuf), a->shape[1], as_type<T>(b, bbuf), mb.cols,
                  static_cast<T *>(res->data), mc.cols);
      return res.release();
    });
  });
}

// ca.linalg.tile_trsm(a, b, (right, lower, op, unit)): op(a)^-1 b (left) or b op(a)^-1 (right), a a
// square triangular tile; b may be 1-d (a column, left only). "Singular matrix" on a zero diagonal.
ca_status_t k_tile_trsm(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return kernel_boundary(out, kctx, [&]() -> Block * {
    const char *kn = "ca.linalg.tile_trsm";
    CA_CHECK(nargs == 3, CA_EINVAL, kn, " takes (a, b, (right, lower, op, unit))");
    const Block *a = block_arg(args, nargs, 0, kn), *b = block_arg(args, nargs, 1, kn);
    auto f = tuple_arg(args, nargs, 2, kn);
    CA_CHECK(f.size() == 4, CA_EINVAL, kn, ": flags are (right, lower, op, unit)");
    const bool right = f[0] != 0, lower = f[1] != 0, unit = f[3] != 0;
    const Op op = op_arg(f[2], kn);
    CA_CHECK(a->ndim == 2 && a->shape[0] == a->shape[1], CA_EINVAL, kn, ": the triangular tile must be square");
    const Mat mb = mat_of(b, kn);
    CA_CHECK((right ? mb.cols : mb.rows) == a->shape[0] && (!right || b->ndim == 2), CA_EINVAL, kn,
             ": tile shapes do not match");
    return dispatch_float(b->dtype, kn, [&](auto tag) -> Block * {
      using T = typename decltype(tag)::type;
      Buf<T> abuf;
      const T *ad = as_type<T>(a, abuf);
      if (!unit) check_diagonal(a->shape[0], ad);
      BlockRef res = copy_as<T>(b, b->dtype);
      trsm_rowmajor<T>(right, lower, op, unit, mb.rows, mb.cols, ad, a->shape[0], static_cast<T *>(res->data), mb.cols);
      return res.release();
    });
  });
}

// ca.linalg.lu_tile(lu_pack, b, mode): with the diagonal tile's P L U (ca.linalg.lu's pack):
// mode 0: L^-1 P^T b; mode 1: b U^-1; mode 2: U^-1 b. b may be 1-d (a column) for modes 0 and 2.
ca_status_t k_lu_tile(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return kernel_boundary(out, kctx, [&]() -> Block * {
    const char *kn = "ca.linalg.lu_tile";
    CA_CHECK(nargs == 3, CA_EINVAL, kn, " takes (lu_pack, b, mode)");
    const Block *f = block_arg(args, nargs, 0, kn), *b = block_arg(args, nargs, 1, kn);
    const int64_t mode = int_arg(args, nargs, 2, kn);
    CA_CHECK(mode >= 0 && mode <= 2, CA_EINVAL, kn, ": mode must be 0, 1 or 2");
    CA_CHECK(f->dtype == CA_RAW && f->ndim == 1 && f->shape[0] >= int64_t(sizeof(int64_t)), CA_EINVAL, kn,
             ": the first argument is not an LU pack");
    int64_t n;
    std::memcpy(&n, f->data, sizeof n);
    const Mat mb = mat_of(b, kn);
    CA_CHECK((mode == 1 ? mb.cols : mb.rows) == n && (mode != 1 || b->ndim == 2), CA_EINVAL, kn,
             ": tile shapes do not match");
    return dispatch_float(b->dtype, kn, [&](auto tag) -> Block * {
      using T = typename decltype(tag)::type;
      CA_CHECK(f->shape[0] == int64_t(sizeof(int64_t) + size_t(n * n) * sizeof(T) + size_t(n) * sizeof(int32_t)),
               CA_EINVAL, kn, ": the LU pack does not match the dtype");
      const char *base = static_cast<const char *>(f->data);
      const T *lu = reinterpret_cast<const T *>(base + sizeof(int64_t));
      const int32_t *piv = reinterpret_cast<const int32_t *>(base + sizeof(int64_t) + size_t(n * n) * sizeof(T));
      BlockRef res = copy_as<T>(b, b->dtype);
      T *x = static_cast<T *>(res->data);
      if (mode == 0) {
        // P^T b: getrf's row interchanges in order.
        for (int64_t r = 0; r < n; ++r) {
          const int64_t p = int64_t(piv[r]) - 1;
          if (p != r) std::swap_ranges(x + r * mb.cols, x + (r + 1) * mb.cols, x + p * mb.cols);
        }
        trsm_colmajor_a<T>(false, true, true, mb.rows, mb.cols, lu, n, x, mb.cols);
      } else {
        // getrf succeeded (ca.linalg.lu fails on an exactly singular U), so U's diagonal is nonzero.
        trsm_colmajor_a<T>(mode == 1, false, false, mb.rows, mb.cols, lu, n, x, mb.cols);
      }
      return res.release();
    });
  });
}

// ca.linalg.lu_part(lu_pack, part, dtype[, b]): from a diagonal tile's A = P L U (ca.linalg.lu's
// pack): part 0 P, 1 L (unit lower), 2 U (upper), each n x n of `dtype`; part 3 P^T b (b's rows
// permuted as getrf exchanged them: dask's lower tiles P_i^T L'_ik).
ca_status_t k_lu_part(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return kernel_boundary(out, kctx, [&]() -> Block * {
    const char *kn = "ca.linalg.lu_part";
    CA_CHECK(nargs == 3 || nargs == 4, CA_EINVAL, kn, " takes (lu_pack, part, dtype[, b])");
    const Block *f = block_arg(args, nargs, 0, kn);
    const int64_t part = int_arg(args, nargs, 1, kn);
    const DType dt = DType(int_arg(args, nargs, 2, kn));
    CA_CHECK(part >= 0 && part <= 3, CA_EINVAL, kn, ": part must be 0 (P), 1 (L), 2 (U) or 3 (P^T b)");
    CA_CHECK((part == 3) == (nargs == 4), CA_EINVAL, kn, ": part 3 takes a tile b, parts 0-2 do not");
    CA_CHECK(f->dtype == CA_RAW && f->ndim == 1 && f->shape[0] >= int64_t(sizeof(int64_t)), CA_EINVAL, kn,
             ": the first argument is not an LU pack");
    int64_t n;
    std::memcpy(&n, f->data, sizeof n);
    return dispatch_float(dt, kn, [&](auto tag) -> Block * {
      using T = typename decltype(tag)::type;
      CA_CHECK(n >= 0 && f->shape[0] == int64_t(sizeof(int64_t) + size_t(n * n) * sizeof(T) + size_t(n) * sizeof(int32_t)),
               CA_EINVAL, kn, ": the LU pack does not match the dtype");
      const char *base = static_cast<const char *>(f->data);
      const T *lu = reinterpret_cast<const T *>(base + sizeof(int64_t));
      const int32_t *piv = reinterpret_cast<const int32_t *>(base + sizeof(int64_t) + size_t(n * n) * sizeof(T));
      for (int64_t r = 0; r < n; ++r)
        CA_CHECK(piv[r] >= 1 && piv[r] <= n, CA_EINVAL, kn, ": the LU pack has a bad pivot");
      if (part == 3) {
        const Block *b = block_arg(args, nargs, 3, kn);
        const Mat mb = mat_of(b, kn);
        CA_CHECK(mb.rows == n, CA_EINVAL, kn, ": tile shapes do not match");
        BlockRef res = copy_as<T>(b, dt);
        T *x = static_cast<T *>(res->data);
        for (int64_t r = 0; r < n; ++r) {
          const int64_t p = int64_t(piv[r]) - 1;
          if (p != r) std::swap_ranges(x + r * mb.cols, x + (r + 1) * mb.cols, x + p * mb.cols);
        }
        return res.release();
      }
      int64_t shape[2] = {n, n};
      BlockRef res(block_new(dt, 2, shape, true));
      T *x = static_cast<T *>(res->data);
      if (part == 0) {
        // P^T = the interchanges applied to the identity's rows in order; P is its transpose.
        std::vector<int64_t> rows(static_cast<size_t>(n));
        for (int64_t r = 0; r < n; ++r) rows[size_t(r)] = r;
        for (int64_t r = 0; r < n; ++r) std::swap(rows[size_t(r)], rows[size_t(piv[r] - 1)]);
        for (int64_t r = 0; r < n; ++r) x[rows[size_t(r)] * n + r] = T(1);  // (P^T)[r, rows[r]] = 1
      } else {
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = 0; j < n; ++j) {
            const T v = lu[j * n + i];  // column-major
            if (part == 1) x[i * n + j] = i > j ? v : i == j ? T(1) : T(0);
            else x[i * n + j] = i <= j ? v : T(0);
          }
      }
      return res.release();
    });
  });
}

}  // namespace

void register_linalg_kernels(KernelRegistry &reg) {
  reg.add(kernel_new("ca.linalg.tensordot", k_tensordot, 1, nullptr, nullptr), true);
  reg.add(kernel_new("ca.linalg.matmul", k_matmul, 1, nullptr, nullptr), true);
  reg.add(kernel_new("ca.linalg.syrk", k_syrk, 1, nullptr, nullptr), true);
  reg.add(kernel_new("ca.linalg.sum", k_sum, 1, nullptr, nullptr), true);
  reg.add(kernel_new("ca.linalg.qr_block", k_qr_block, 1, nullptr, nullptr), true);
  reg.add(kernel_new("ca.linalg.qr_stack", k_qr_stack, 1, nullptr, nullptr), true);
  reg.add(kernel_new("ca.linalg.qr_q", k_qr_q, 1, nullptr, nullptr), true);
  reg.add(kernel_new("ca.linalg.qr_qe", k_qr_qe, 1, nullptr, nullptr), true);
  reg.add(kernel_new("ca.linalg.qr_r", k_qr_r, 1, nullptr, nullptr), true);
  reg.add(kernel_new("ca.linalg.svd_small", k_svd_small, 1, nullptr, nullptr), true);
  reg.add(kernel_new("ca.linalg.svd_s", k_svd_s, 1, nullptr, nullptr), true);
  reg.add(kernel_new("ca.linalg.svd_v", k_svd_v, 1, nullptr, nullptr), true);
  reg.add(kernel_new("ca.linalg.rank", k_rank, 1, nullptr, nullptr), true);
  reg.add(kernel_new("ca.linalg.lu", k_lu, 1, nullptr, nullptr), true);
  reg.add(kernel_new("ca.linalg.lu_solve", k_lu_solve, 1, nullptr, nullptr), true);
  reg.add(kernel_new("ca.linalg.inv", k_inv, 1, nullptr, nullptr), true);
  reg.add(kernel_new("ca.linalg.cholesky", k_cholesky, 1, nullptr, nullptr), true);
  reg.add(kernel_new("ca.linalg.trisolve", k_trisolve, 1, nullptr, nullptr), true);
  reg.add(kernel_new("ca.linalg.tile_gemm", k_tile_gemm, 1, nullptr, nullptr), true);
  reg.add(kernel_new("ca.linalg.tile_trsm", k_tile_trsm, 1, nullptr, nullptr), true);
  reg.add(kernel_new("ca.linalg.lu_tile", k_lu_tile, 1, nullptr, nullptr), true);
  reg.add(kernel_new("ca.linalg.lu_part", k_lu_part, 1, nullptr, nullptr), true);
}

}  // namespace ca::linalg
