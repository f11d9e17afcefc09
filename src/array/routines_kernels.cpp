// Kernels of the routines (array/routines.cpp). Orders follow NumPy's sort order: NaNs last, complex
// numbers lexicographically with NumPy's NaN rules (npysort's CLT); sorts are stable.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <numeric>
#include <type_traits>
#include <vector>

#include "array/routines.hpp"
#include "core/block.hpp"
#include "core/checked.hpp"
#include "kernel/adapter.hpp"

namespace ca {

// Helpers are prefixed rk_: unity builds join this file with others in one translation unit.
namespace {

template <class T>
struct rk_is_cplx : std::false_type {};
template <class T>
struct rk_is_cplx<std::complex<T>> : std::true_type {};

template <class T>
bool rk_has_nan(const T &v) {
  if constexpr (rk_is_cplx<T>::value) return std::isnan(v.real()) || std::isnan(v.imag());
  else if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
  else return false;
}

/// NumPy's sort order (a total order with NaNs last).
template <class T>
bool rk_less(const T &a, const T &b) {
  if constexpr (rk_is_cplx<T>::value) {
    const auto ar = a.real(), ai = a.imag(), br = b.real(), bi = b.imag();
    if (ar < br) return ai == ai || bi != bi;
    if (ar > br) return bi != bi && ai == ai;
    if (ar == br || (ar != ar && br != br)) return ai < bi || (bi != bi && ai == ai);
    return br != br;
  } else if constexpr (std::is_floating_point_v<T>) {
    return a < b || (b != b && a == a);
  } else {
    return a < b;
  }
}

/// Equal under the order; NaNs (any NaN part) equal each other only with equal_nan.
template <class T>
bool rk_same(const T &a, const T &b, bool equal_nan) {
  if (rk_has_nan(a) || rk_has_nan(b)) return equal_nan && rk_has_nan(a) && rk_has_nan(b);
  return !rk_less(a, b) && !rk_less(b, a);
}

Block *rk_new_block(DType dtype, const std::vector<Index> &shape) {
  return block_new(dtype, int32_t(shape.size()), shape.data());
}

std::vector<Index> rk_shape_of(const Block *b) { return std::vector<Index>(b->shape, b->shape + b->ndim); }

// ---- ca.indices(dtype, origin, shape) ----------------------------------------------------------
// Block of np.indices: axis 0 holds the component c (one per block); the value is the global index
// along axis c + 1.
Block *rk_k_indices(const KernelArgs &A) {
  const DType dt = DType(A.int64(0, "dtype"));
  CA_CHECK(dtype_is_numeric(dt), CA_ETYPE, A.kernel(), ": bad dtype ", dt);
  const std::span<const int64_t> origin = A.tuple(1), shape = A.tuple(2);
  CA_CHECK(origin.size() == shape.size() && !shape.empty(), CA_EINVAL, A.kernel(), ": bad block geometry");
  std::vector<Index> shp(shape.begin(), shape.end());
  BlockRef b(rk_new_block(dt, shp));
  const Index total = shape_size(shp);
  if (total == 0) return b.release();
  const size_t nd = shp.size();
  dispatch_dtype(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T *p = b.data<T>();
    for (Index c0 = 0; c0 < shp[0]; ++c0) {
      const size_t ax = size_t(origin[0] + c0) + 1;
      CA_CHECK(ax < nd, CA_EINVAL, "ca.indices: component ", ax - 1, " out of range");
      Index len = shp[ax], inner = 1, outer = 1;
      for (size_t d = ax + 1; d < nd; ++d) inner *= shp[d];
      for (size_t d = 1; d < ax; ++d) outer *= shp[d];
      T *q = p + c0 * (total / shp[0]);
      for (Index o = 0; o < outer; ++o)
        for (Index j = 0; j < len; ++j) {
          const T v = static_cast<T>(origin[ax] + j);
          std::fill_n(q, inner, v);
          q += inner;
        }
    }
  });
  return b.release();
}

// ---- ca.diagonal_nd(block, k): the k-th diagonal of the last two axes, appended as the last axis.
Block *rk_k_diagonal_nd(const KernelArgs &A) {
  const Block *in = A.block(0);
  const Index k = A.int64(1, "k");
  CA_CHECK(in->ndim >= 2, CA_EINVAL, "ca.diagonal_nd: expected a block of at least 2 dimensions");
  const int32_t nd = in->ndim;
  const Index h = in->shape[nd - 2], w = in->shape[nd - 1];
  const Index r0 = k < 0 ? -k : 0, c0 = k > 0 ? k : 0;
  Index len = (k >= w || -k >= h) ? 0 : std::max<Index>(0, std::min(h - r0, w - c0));
  std::vector<Index> oshape(in->shape, in->shape + nd - 2);
  Index lead = shape_size(oshape);
  oshape.push_back(len);
  Block *out = rk_new_block(in->dtype, oshape);
  const size_t isz = dtype_size(in->dtype);
  const char *src = static_cast<const char *>(in->data);
  char *dst = static_cast<char *>(out->data);
  for (Index l = 0; l < lead; ++l)
    for (Index t = 0; t < len; ++t)
      std::memcpy(dst + size_t(l * len + t) * isz, src + size_t(l * h * w + (r0 + t) * w + c0 + t) * isz, isz);
  return out;
}

// ---- ca.sort(block, axis, descending, arg) ---------------------------------------------------------
Block *rk_k_sort(const KernelArgs &A) {
  const Block *in = A.block(0);
  const int64_t axis = A.int64(1, "axis");
  const bool desc = A.int64(2, "descending") != 0, arg = A.int64(3, "arg") != 0;
  CA_CHECK(axis >= 0 && axis < in->ndim, CA_EINVAL, "ca.sort: axis ", axis, " out of range");
  const std::vector<Index> shp = rk_shape_of(in);
  BlockRef out(rk_new_block(arg ? CA_INT64 : DType(in->dtype), shp));
  const Index len = shp[size_t(axis)];
  Index inner = 1, outer = 1;
  for (size_t d = size_t(axis) + 1; d < shp.size(); ++d) inner *= shp[d];
  for (size_t d = 0; d < size_t(axis); ++d) outer *= shp[d];
  if (len == 0 || inner == 0 || outer == 0) return out.release();
  dispatch_dtype(DType(in->dtype), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T *x = static_cast<const T *>(in->data);
    std::vector<Index> perm(static_cast<size_t>(len));
    using S = std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>;  // no std::vector<bool>
    std::vector<S> lane(static_cast<size_t>(len));
    for (Index o = 0; o < outer; ++o)
      for (Index i = 0; i < inner; ++i) {
        const Index base = o * len * inner + i;
        for (Index j = 0; j < len; ++j) lane[size_t(j)] = S(x[base + j * inner]);
        std::iota(perm.begin(), perm.end(), Index(0));
        // Descending: the stable order of "greater" with NaNs first (numpy.array_api's
        // flip(sort(flip(x))) gives the rk_same).
        if (desc)
          std::stable_sort(perm.begin(), perm.end(),
                           [&](Index p, Index q) { return rk_less(lane[size_t(q)], lane[size_t(p)]); });
        else
          std::stable_sort(perm.begin(), perm.end(),
                           [&](Index p, Index q) { return rk_less(lane[size_t(p)], lane[size_t(q)]); });
        if (arg) {
          int64_t *y = out.data<int64_t>();
          for (Index j = 0; j < len; ++j) y[base + j * inner] = perm[size_t(j)];
        } else {
          T *y = out.data<T>();
          for (Index j = 0; j < len; ++j) y[base + j * inner] = T(lane[size_t(perm[size_t(j)])]);
        }
      }
  });
  return out.release();
}

// ---- ca.unique(which, equal_nan, [blocks...]): which 0 values, 1 first index, 2 counts -------------
Block *rk_k_unique(const KernelArgs &A) {
  const int64_t which = A.int64(0, "which");
  const bool equal_nan = A.int64(1, "equal_nan") != 0;
  const std::span<const ca_arg_t> blocks = A.list(2, "blocks");
  CA_CHECK(which >= 0 && which <= 2, CA_EINVAL, "ca.unique: unknown output ", which);
  CA_CHECK(!blocks.empty(), CA_EINVAL, "ca.unique: no blocks");
  DType dt = CA_DTYPE_INVALID;
  Index n = 0;
  for (auto &b : blocks) {
    CA_CHECK(b.kind == CA_ARG_BLOCK && b.u.block && b.u.block->ndim == 1, CA_EINVAL,
             "ca.unique: expected 1-d blocks");
    CA_CHECK(dt == CA_DTYPE_INVALID || dt == DType(b.u.block->dtype), CA_ETYPE, "ca.unique: blocks of mixed dtypes");
    dt = DType(b.u.block->dtype);
    n += b.u.block->shape[0];
  }
  Block *result = nullptr;
  dispatch_dtype(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using S = std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>;  // no std::vector<bool>
    std::vector<S> x;
    x.reserve(size_t(n));
    for (auto &b : blocks) {
      const T *p = static_cast<const T *>(b.u.block->data);
      x.insert(x.end(), p, p + b.u.block->shape[0]);
    }
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      // Integers of a small range: the values seen, marked in a table (linear time, sorted output).
      if (which == 0 && n > 0) {
        const auto [lo, hi] = std::minmax_element(x.begin(), x.end());
        const T vlo = *lo;
        const unsigned __int128 range = (unsigned __int128)((__int128)*hi - (__int128)vlo) + 1;
        if (range <= (unsigned __int128)(2 * n + 4096)) {
          std::vector<uint8_t> seen(size_t(range), 0);
          for (const S &v : x) seen[size_t((__int128)v - (__int128)vlo)] = 1;
          Index m = 0;
          for (uint8_t f : seen) m += f;
          BlockRef out(rk_new_block(dt, {m}));
          T *y = out.data<T>();
          for (size_t i = 0; i < seen.size(); ++i)
            if (seen[i]) *y++ = T((__int128)vlo + (__int128)i);
          result = out.release();
          return;
        }
      }
    }
    if (which == 0) {  // the values only: a direct sort (no permutation), then the distinct ones
      std::sort(x.begin(), x.end(), [](const S &p, const S &q) { return rk_less(T(p), T(q)); });
      Index m = 0;
      for (Index i = 0; i < n; ++i)
        if (i == 0 || !rk_same(T(x[size_t(m - 1)]), T(x[size_t(i)]), equal_nan)) x[size_t(m++)] = x[size_t(i)];
      BlockRef out(rk_new_block(dt, {m}));
      for (Index g = 0; g < m; ++g) out.data<T>()[g] = T(x[size_t(g)]);
      result = out.release();
      return;
    }
    std::vector<Index> perm(static_cast<size_t>(n));
    std::iota(perm.begin(), perm.end(), Index(0));
    std::stable_sort(perm.begin(), perm.end(), [&](Index p, Index q) { return rk_less(x[size_t(p)], x[size_t(q)]); });
    std::vector<Index> starts;  // group starts in perm
    for (Index i = 0; i < n; ++i)
      if (i == 0 || !rk_same(x[size_t(perm[size_t(i - 1)])], x[size_t(perm[size_t(i)])], equal_nan)) starts.push_back(i);
    const Index m = Index(starts.size());
    BlockRef out(rk_new_block(which == 0 ? dt : CA_INT64, {m}));
    for (Index g = 0; g < m; ++g) {
      const Index s = starts[size_t(g)], e = g + 1 < m ? starts[size_t(g + 1)] : n;
      if (which == 0) out.data<T>()[g] = T(x[size_t(perm[size_t(s)])]);
      else if (which == 1) out.data<int64_t>()[g] = perm[size_t(s)];  // stable: the first occurrence
      else out.data<int64_t>()[g] = e - s;
    }
    result = out.release();
  });
  return result;
}

// NumPy's check_array_monotonic (on doubles, as np.digitize): 1 increasing, -1 decreasing, 0 neither.
template <class T>
int rk_monotonicity(const T *a, Index n) {
  auto d = [&](Index i) { return double(a[i]); };
  if (n == 0) return 1;
  double last = d(0);
  Index i = 1;
  while (i < n && d(i) == last) ++i;
  if (i == n) return 1;
  double next = d(i);
  if (last < next) {
    for (++i; i < n; ++i) {
      last = next;
      next = d(i);
      if (last > next) return 0;
    }
    return 1;
  }
  for (++i; i < n; ++i) {
    last = next;
    next = d(i);
    if (last < next) return 0;
  }
  return -1;
}

// ---- ca.searchsorted(v block, sorted block, right, mode): mode 0 np.searchsorted(sorted, v, side),
// mode 1 np.digitize(v, bins=sorted, right).
Block *rk_k_searchsorted(const KernelArgs &A) {
  const Block *v = A.block(0, "v");
  const Block *s = A.block(1, "sorted");
  const bool right = A.int64(2, "right") != 0;
  const int64_t mode = A.int64(3, "mode");
  CA_CHECK(s->ndim == 1, CA_EINVAL, "ca.searchsorted: the sorted array must be 1-d");
  CA_CHECK(v->dtype == s->dtype, CA_ETYPE, "ca.searchsorted: dtypes differ");
  const std::vector<Index> shp = rk_shape_of(v);
  BlockRef out(rk_new_block(CA_INT64, shp));
  const Index nv = shape_size(shp), ns = s->shape[0];
  int64_t *y = out.data<int64_t>();
  dispatch_dtype(DType(v->dtype), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T *x = static_cast<const T *>(v->data);
    const T *a = static_cast<const T *>(s->data);
    auto cmp = [](const T &p, const T &q) { return rk_less(p, q); };
    if constexpr (!rk_is_cplx<T>::value) {
      if (mode == 1) {
        const int mono = rk_monotonicity(a, ns);
        CA_CHECK(mono != 0, CA_EINVAL, "digitize: bins must be monotonically increasing or decreasing");
        // NumPy: side = 'left' if right else 'right'; decreasing bins are searched reversed.
        const bool side_right = !right;
        if (mono == -1) {
          std::vector<T> rev(a, a + ns);
          std::reverse(rev.begin(), rev.end());
          for (Index i = 0; i < nv; ++i) {
            auto it = side_right ? std::upper_bound(rev.begin(), rev.end(), x[i], cmp)
                                 : std::lower_bound(rev.begin(), rev.end(), x[i], cmp);
            y[i] = ns - int64_t(it - rev.begin());
          }
        } else {
          for (Index i = 0; i < nv; ++i)
            y[i] = int64_t((side_right ? std::upper_bound(a, a + ns, x[i], cmp) : std::lower_bound(a, a + ns, x[i], cmp)) -
                           a);
        }
        return;
      }
    }
    CA_CHECK(mode == 0, CA_ETYPE, "digitize: x may not be complex");
    for (Index i = 0; i < nv; ++i)
      y[i] = int64_t((right ? std::upper_bound(a, a + ns, x[i], cmp) : std::lower_bound(a, a + ns, x[i], cmp)) - a);
  });
  return out.release();
}

// ---- ca.isin(element block, test block, invert) ----------------------------------------------------
Block *rk_k_isin(const KernelArgs &A) {
  const Block *e = A.block(0, "element");
  const Block *t = A.block(1, "test_elements");
  const bool invert = A.int64(2, "invert") != 0;
  CA_CHECK(e->dtype == t->dtype, CA_ETYPE, "ca.isin: dtypes differ");
  const std::vector<Index> shp = rk_shape_of(e);
  BlockRef out(rk_new_block(CA_BOOL, shp));
  const Index ne = shape_size(shp), nt = shape_size(rk_shape_of(t));
  bool *y = out.data<bool>();
  dispatch_dtype(DType(e->dtype), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T *x = static_cast<const T *>(e->data);
    using S = std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>;  // no std::vector<bool>
    const T *tp = static_cast<const T *>(t->data);
    std::vector<S> s(tp, tp + nt);
    auto lt = [](const S &p, const S &q) { return rk_less(p, q); };
    std::sort(s.begin(), s.end(), lt);
    for (Index i = 0; i < ne; ++i) {
      const S xi = S(x[i]);
      auto it = std::lower_bound(s.begin(), s.end(), xi, lt);
      const bool found = it != s.end() && rk_same(*it, xi, false);  // NaN is never in (NaN != NaN)
      y[i] = found != invert;
    }
  });
  return out.release();
}

// ---- ca.choose(index block (int64), mode, choice blocks...): np.choose per element; every block has
// the index block's shape, the choices one dtype (mode 0 raise, 1 wrap, 2 clip).
template <class T>
void rk_gather(const int64_t *k, const std::vector<const Block *> &ch, void *out, Index n) {
  T *y = static_cast<T *>(out);
  for (Index i = 0; i < n; ++i) y[i] = static_cast<const T *>(ch[size_t(k[i])]->data)[i];
}

Block *rk_k_choose(const KernelArgs &A) {
  const Block *idx = A.block(0, "a");
  const int64_t mode = A.int64(1, "mode");
  CA_CHECK(A.size() >= 3, CA_EINVAL, "ca.choose: no choices");
  CA_CHECK(idx->dtype == CA_INT64, CA_ETYPE, "ca.choose: the index block must be int64");
  std::vector<const Block *> ch;
  for (size_t i = 2; i < A.size(); ++i) {
    const Block *c = A.block(i, "choice");
    CA_CHECK(c->dtype == A.block(2)->dtype && c->size == idx->size, CA_EINVAL,
             "ca.choose: the choices differ from the index block in dtype or size");
    ch.push_back(c);
  }
  const Index n = idx->size, nc = Index(ch.size());
  std::vector<int64_t> k(static_cast<const int64_t *>(idx->data), static_cast<const int64_t *>(idx->data) + n);
  for (int64_t &v : k) {
    if (v >= 0 && v < nc) continue;
    CA_CHECK(mode != 0, CA_EINVAL, "choose: invalid entry in choice array (", v, " with ", nc, " choices)");
    v = mode == 1 ? ((v % nc) + nc) % nc : (v < 0 ? 0 : nc - 1);
  }
  BlockRef out(rk_new_block(DType(ch[0]->dtype), rk_shape_of(idx)));
  const size_t isz = dtype_size(DType(ch[0]->dtype));
  switch (isz) {
    case 1: rk_gather<uint8_t>(k.data(), ch, out->data, n); break;
    case 2: rk_gather<uint16_t>(k.data(), ch, out->data, n); break;
    case 4: rk_gather<uint32_t>(k.data(), ch, out->data, n); break;
    case 8: rk_gather<uint64_t>(k.data(), ch, out->data, n); break;
    default:
      for (Index i = 0; i < n; ++i)
        std::memcpy(static_cast<char *>(out->data) + size_t(i) * isz,
                    static_cast<const char *>(ch[size_t(k[size_t(i)])]->data) + size_t(i) * isz, isz);
  }
  return out.release();
}

// ---- ca.bincount(x block (bool/integer, 1-d), [weights block (float64)], length): a (1, length) row
// of counts (int64) or of the weights' sums (float64); a negative length -1 - m
// (CA_BINCOUNT_AT_LEAST(m)): max(the block's maximum + 1, m) (a negative value is NumPy's error). One
// pass over x either way: then the counts grow (doubling) when a larger value appears.
Block *rk_k_bincount(const KernelArgs &A) {
  const Block *x = A.block(0, "x");
  const bool weighted = A.size() == 3;
  const Block *w = weighted ? A.block(1, "weights") : nullptr;
  const Index length = A.int64(weighted ? 2 : 1, "length");
  CA_CHECK(x->ndim == 1, CA_EINVAL, "ca.bincount: x must be 1-d");
  CA_CHECK(!w || (w->dtype == CA_FLOAT64 && w->size == x->size), CA_EINVAL,
           "ca.bincount: weights must be float64 of x's size");
  CA_CHECK(length > std::numeric_limits<Index>::min(), CA_EINVAL, "ca.bincount: length ", length, " is out of range");
  CA_CHECK(dtype_is_integer(DType(x->dtype)) || x->dtype == CA_BOOL, CA_ETYPE,
           "ca.bincount: x must be of a bool or integer dtype");
  const bool autolen = length < 0;
  const Index minlen = autolen ? -1 - length : length;
  const Index n = x->size;
  const double *wt = w ? static_cast<const double *>(w->data) : nullptr;
  // counts (int64) or weight sums (double) in `acc`, `size` long; `used`: 1 + the largest value seen
  auto run = [&](auto *tag_acc) -> Block * {
    using Acc = std::remove_pointer_t<decltype(tag_acc)>;
    std::vector<Acc> acc(size_t(autolen ? std::max<Index>(minlen, 1024) : length), Acc(0));
    Index used = minlen;
    dispatch_dtype(DType(x->dtype), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_integral_v<T>) {
        const T *v = static_cast<const T *>(x->data);
        Acc *y = acc.data();
        uint64_t size = acc.size();
        for (Index i = 0; i < n; ++i) {
          const uint64_t k = uint64_t(v[i]);  // a negative value wraps to a huge one
          if (k >= size) [[unlikely]] {
            bool negative = false;
            if constexpr (std::is_signed_v<T>) negative = v[i] < 0;
            if (!autolen || negative || k >= uint64_t(INT64_MAX)) {
              if (autolen && negative) fail(CA_EINVAL, "bincount: 'list' argument must have no negative elements");
              fail(CA_EINVAL, "bincount: value ", int64_t(v[i]), " is outside [0, ", length,
                   ") (the length was determined before the compute)");
            }
            acc.resize(size_t(std::max<uint64_t>(2 * size, k + 1)), Acc(0));
            y = acc.data();
            size = acc.size();
          }
          if (autolen) used = std::max(used, Index(k) + 1);
          if constexpr (std::is_same_v<Acc, double>) y[k] += wt[i];
          else ++y[k];
        }
      }
    });
    BlockRef out(rk_new_block(std::is_same_v<Acc, double> ? CA_FLOAT64 : CA_INT64, {1, used}));
    if (used) std::memcpy(out->data, acc.data(), size_t(used) * sizeof(Acc));
    return out.release();
  };
  return w ? run(static_cast<double *>(nullptr)) : run(static_cast<int64_t *>(nullptr));
}

// ---- ca.bincount_merge([rows...], keep_rows): the element-wise sum of (1, n_i) rows of counts
// (int64) or sums (float64, complex128), each padded with zeros to the longest; keep_rows 1: a (1, n)
// row (a combine level), 0: the 1-d result (the last level). The rows may come as nested lists (one
// level per reduced axis: ca_array_histogramdd's partials over an N-d block grid).
Block *rk_k_bincount_merge(const KernelArgs &A) {
  std::vector<const Block *> rows;
  CA_CHECK(A.size() == 2, CA_EINVAL, "ca.bincount_merge takes rows and keep_rows");
  flatten_block_list(A[0], rows, "ca.bincount_merge: a row");
  const bool keep = A.int64(1, "keep_rows") != 0;
  CA_CHECK(!rows.empty(), CA_EINVAL, "ca.bincount_merge: no rows");
  DType dt = CA_DTYPE_INVALID;
  Index n = 0;
  for (const Block *r : rows) {
    CA_CHECK(r->ndim == 2 && r->shape[0] == 1, CA_EINVAL, "ca.bincount_merge: expected (1, n) rows");
    CA_CHECK(dt == CA_DTYPE_INVALID || dt == DType(r->dtype), CA_ETYPE, "ca.bincount_merge: rows of mixed dtypes");
    dt = DType(r->dtype);
    CA_CHECK(dt == CA_INT64 || dt == CA_FLOAT64 || dt == CA_COMPLEX128, CA_ETYPE,
             "ca.bincount_merge: rows must be int64, float64 or complex128");
    n = std::max(n, r->shape[1]);
  }
  BlockRef out(keep ? rk_new_block(dt, {1, n}) : rk_new_block(dt, {n}));
  std::memset(out->data, 0, size_t(out->nbytes));
  auto add = [&](auto *y) {
    using T = std::remove_pointer_t<decltype(y)>;
    for (const Block *r : rows) {
      const T *v = static_cast<const T *>(r->data);
      const Index m = r->shape[1];
      for (Index i = 0; i < m; ++i) y[i] += v[i];
    }
  };
  if (dt == CA_INT64) add(out.data<int64_t>());
  else if (dt == CA_FLOAT64) add(out.data<double>());
  else add(out.data<std::complex<double>>());
  return out.release();
}

// ---- ca.ravel_multi_index(dims: tuple, modes: tuple, f_order, coordinate blocks (int64, one shape)...)
Block *rk_k_ravel_multi_index(const KernelArgs &A) {
  const std::vector<int64_t> dims = A.tuple_vec(0, "dims"), modes = A.tuple_vec(1, "modes");
  const bool f_order = A.int64(2, "f_order") != 0;
  const size_t n = dims.size();
  CA_CHECK(n >= 1 && modes.size() == n && A.size() == 3 + n, CA_EINVAL,
           "ca.ravel_multi_index: one mode and one coordinate block per dimension");
  std::vector<const int64_t *> c;
  const Block *b0 = A.block(3, "coordinates");
  for (size_t k = 0; k < n; ++k) {
    const Block *b = A.block(3 + k, "coordinates");
    CA_CHECK(b->dtype == CA_INT64 && b->size == b0->size, CA_EINVAL, "ca.ravel_multi_index: coordinate blocks differ");
    c.push_back(static_cast<const int64_t *>(b->data));
  }
  std::vector<int64_t> stride(n, 1);
  if (f_order)
    for (size_t k = 1; k < n; ++k) stride[k] = stride[k - 1] * dims[k - 1];
  else
    for (size_t k = n - 1; k-- > 0;) stride[k] = stride[k + 1] * dims[k + 1];
  BlockRef out(rk_new_block(CA_INT64, rk_shape_of(b0)));
  int64_t *y = out.data<int64_t>();
  for (Index i = 0; i < b0->size; ++i) {
    int64_t flat = 0;
    for (size_t k = 0; k < n; ++k) {
      int64_t v = c[k][i];
      if (v < 0 || v >= dims[k]) {
        CA_CHECK(modes[k] != 0 && dims[k] > 0, CA_EINVAL, "ravel_multi_index: invalid entry in coordinates array (",
                 v, " for a dimension of ", dims[k], ")");
        v = modes[k] == 1 ? ((v % dims[k]) + dims[k]) % dims[k] : (v < 0 ? 0 : dims[k] - 1);
      }
      flat += v * stride[k];
    }
    y[i] = flat;
  }
  return out.release();
}

// ---- ca.unravel_index(indices block (int64), dims: tuple, k, f_order): coordinate k of each index.
Block *rk_k_unravel_index(const KernelArgs &A) {
  const Block *idx = A.block(0, "indices");
  const std::vector<int64_t> dims = A.tuple_vec(1, "dims");
  const int64_t k = A.int64(2, "k");
  const bool f_order = A.int64(3, "f_order") != 0;
  CA_CHECK(idx->dtype == CA_INT64, CA_ETYPE, "ca.unravel_index: the indices must be int64");
  CA_CHECK(k >= 0 && size_t(k) < dims.size(), CA_EINVAL, "ca.unravel_index: dimension ", k, " is out of range");
  int64_t total = 1, stride = 1;
  for (size_t d = 0; d < dims.size(); ++d) {
    total *= dims[d];
    if (f_order ? d < size_t(k) : d > size_t(k)) stride *= dims[d];
  }
  BlockRef out(rk_new_block(CA_INT64, rk_shape_of(idx)));
  const int64_t *v = static_cast<const int64_t *>(idx->data);
  int64_t *y = out.data<int64_t>();
  for (Index i = 0; i < idx->size; ++i) {
    CA_CHECK(v[i] >= 0 && v[i] < total, CA_EINVAL, "unravel_index: index ", v[i],
             " is out of bounds for array with size ", total);
    y[i] = (v[i] / stride) % dims[size_t(k)];
  }
  return out.release();
}

}  // namespace

void register_routines_kernels(KernelRegistry &reg) {
  register_builtin<rk_k_ravel_multi_index>(reg, "ca.ravel_multi_index");
  register_builtin<rk_k_unravel_index>(reg, "ca.unravel_index");
  register_builtin<rk_k_bincount>(reg, "ca.bincount");
  register_builtin<rk_k_bincount_merge>(reg, "ca.bincount_merge");
  register_builtin<rk_k_choose>(reg, "ca.choose");
  register_builtin<rk_k_indices>(reg, "ca.indices");
  register_builtin<rk_k_diagonal_nd>(reg, "ca.diagonal_nd");
  register_builtin<rk_k_sort>(reg, "ca.sort");
  register_builtin<rk_k_unique>(reg, "ca.unique");
  register_builtin<rk_k_searchsorted>(reg, "ca.searchsorted");
  register_builtin<rk_k_isin>(reg, "ca.isin");
}

}  // namespace ca
