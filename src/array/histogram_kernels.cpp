// Kernels of histogram / histogramdd (array/histogram.cpp builds the graph; routines.hpp's
// histogramdd and chunkarray/routines.h's ca_array_histogramdd give the semantics):
//
//   ca.histogram(spec TUPLE, dims BYTES, block_origin TUPLE, block_shape TUPLE, edge blocks...,
//                (program BYTES, leaf blocks...) per sample, then per weights)  -> (1, nbins) row
//   ca.histogram_finish(sums (nbins,), spec TUPLE, dims BYTES, edge blocks...)  -> the histogram
//
// spec (ca.histogram)        = (D, dd, weighted, accumulator dtype, sample dtype)
// spec (ca.histogram_finish) = (D, dd, density, accumulator dtype, sample dtype, result dtype)
// dims: D packed HistogramDimSpec; one edge block (1-d, any real dtype) per dimension with explicit
// edges, in order. The samples arrive in the sample dtype (float32 or float64), the weights in the
// accumulator dtype (int64, float64, complex128), both as fused programs evaluated here.
//
// Placement (NumPy 1.24): numpy.histogram's uniform bins (dd 0, explicit 0) keep lo <= x <= hi and
// compute the index as NumPy does ((x - lo) * norm in the sample dtype, then one correction step
// against the edges in that dtype); every other case is numpy.histogramdd's searchsorted(edges, x,
// 'right') - 1 in float64 with the last edge counted in the last bin, which is also what
// numpy.histogram's sorted search gives for explicit edges. NaNs are never placed.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <type_traits>
#include <vector>

#include "array/expr.hpp"
#include "array/routines.hpp"
#include "core/block.hpp"
#include "core/checked.hpp"
#include "core/half.hpp"
#include "kernel/adapter.hpp"

namespace ca {

// Helpers are prefixed hgk_: unity builds join this file with others in one translation unit.
namespace {

std::vector<HistogramDimSpec> hgk_dims(std::string_view bytes, size_t D) {
  CA_CHECK(bytes.size() == D * sizeof(HistogramDimSpec), CA_EINVAL, "histogram: ", bytes.size(),
           " bytes of dimensions for ", D, " dimensions");
  std::vector<HistogramDimSpec> dims(D);
  std::memcpy(dims.data(), bytes.data(), bytes.size());
  for (auto &d : dims) CA_CHECK(d.nbins >= 0, CA_EINVAL, "histogram: negative number of bins");
  return dims;
}

// The values of an explicit edges block as float64, checked to increase (NumPy's messages).
std::vector<double> hgk_edges(const Block *e, const HistogramDimSpec &ds, bool dd, size_t d) {
  CA_CHECK(e->ndim == 1 && e->shape[0] == ds.nbins + 1, CA_EINVAL, "histogram: edges block of ",
           e->ndim == 1 ? e->shape[0] : -1, " values for ", ds.nbins, " bins");
  std::vector<double> v(size_t(ds.nbins) + 1);
  dispatch_dtype(DType(e->dtype), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_arithmetic_v<T>) {
      const T *p = static_cast<const T *>(e->data);
      for (size_t i = 0; i < v.size(); ++i) v[i] = double(p[i]);
    } else {
      fail(CA_ETYPE, "histogram: complex edges");
    }
  });
  for (size_t i = 0; i + 1 < v.size(); ++i)
    if (v[i] > v[i + 1]) {
      if (dd) fail(CA_EINVAL, "histogramdd: `bins[", d, "]` must be monotonically increasing, when an array");
      fail(CA_EINVAL, "histogram: `bins` must increase monotonically, when an array");
    }
  return v;
}

// np.diff(edges) in the edges' dtype, as float64 (NumPy's bin widths for density).
std::vector<double> hgk_widths(const Block *e, const HistogramDimSpec &ds, DType sample_dtype, bool dd) {
  std::vector<double> w(size_t(ds.nbins));
  if (!ds.explicit_edges) {
    const std::vector<double> v = histogram_uniform_edges(ds.lo, ds.hi, ds.nbins);
    const bool f32 = !dd && sample_dtype == CA_FLOAT32;
    for (size_t i = 0; i < w.size(); ++i)
      w[i] = f32 ? double(float(v[i + 1]) - float(v[i])) : v[i + 1] - v[i];
    return w;
  }
  dispatch_dtype(DType(e->dtype), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_arithmetic_v<T>) {
      const T *p = static_cast<const T *>(e->data);
      for (size_t i = 0; i < w.size(); ++i) w[i] = double(static_cast<T>(p[i + 1] - p[i]));
    }
  });
  return w;
}

// How one dimension places values: numpy.histogram's uniform formula (in T) or a search of the edges.
struct HgkDim {
  Index n = 0;
  bool formula = false;
  double lo = 0, hi = 0, norm = 0;
  std::vector<double> edges;  // the search's edges; the formula's edges in T, stored as double
};

// numpy.histogram's uniform bins: keep lo <= x <= hi, index (x - lo) * norm in T, one correction
// step against the edges (rounded to T). -1: not placed.
template <class T>
inline Index hgk_uniform(T x, T lo, T hi, T norm, const T *e, Index n) {
  if (!(x >= lo && x <= hi)) return -1;
  Index i = Index(T(x - lo) * norm);
  if (i >= n) i = n - 1;
  if (x < e[i]) --i;
  else if (i != n - 1 && x >= e[i + 1]) ++i;
  return i;
}

// searchsorted(edges, x, 'right') - 1, the last edge in the last bin. -1: not placed (NaN too).
inline Index hgk_search(double x, const double *e, Index ne) {
  Index k = Index(std::upper_bound(e, e + ne, x) - e);
  if (x == e[ne - 1]) --k;
  const Index b = k - 1;
  return b >= 0 && b < ne - 1 ? b : -1;
}

// The flat bin of each of m values (-1: not placed), dimension by dimension.
template <class T>
void hgk_place(const T *x, Index m, const HgkDim &dim, bool first, Index *idx, std::vector<T> &typed_edges) {
  if (dim.formula) {
    const T lo = T(dim.lo), hi = T(dim.hi), norm = T(dim.norm);
    const T *e = typed_edges.data();
    for (Index i = 0; i < m; ++i) {
      const Index b = hgk_uniform<T>(x[i], lo, hi, norm, e, dim.n);
      if (first) idx[i] = b;
      else idx[i] = (idx[i] < 0 || b < 0) ? -1 : idx[i] * dim.n + b;
    }
    return;
  }
  const double *e = dim.edges.data();
  const Index ne = dim.n + 1;
  for (Index i = 0; i < m; ++i) {
    const Index b = hgk_search(double(x[i]), e, ne);
    if (first) idx[i] = b;
    else idx[i] = (idx[i] < 0 || b < 0) ? -1 : idx[i] * dim.n + b;
  }
}

Block *hgk_new_block(DType dtype, const std::vector<Index> &shape) {
  return block_new(dtype, int32_t(shape.size()), shape.data());
}

Block *hgk_k_histogram(const KernelArgs &A) {
  const std::vector<int64_t> spec = A.tuple_vec(0, "spec");
  CA_CHECK(spec.size() == 5 && spec[0] >= 1, CA_EINVAL, "ca.histogram: bad spec");
  const size_t D = size_t(spec[0]);
  const bool dd = spec[1] != 0, weighted = spec[2] != 0;
  const DType acc = DType(spec[3]), T = DType(spec[4]);
  CA_CHECK(acc == CA_INT64 || acc == CA_FLOAT64 || acc == CA_COMPLEX128, CA_ETYPE, "ca.histogram: bad accumulator");
  CA_CHECK(T == CA_FLOAT32 || T == CA_FLOAT64, CA_ETYPE, "ca.histogram: samples must be float32 or float64");
  const std::vector<HistogramDimSpec> dims = hgk_dims(A.bytes(1, "dims"), D);
  const ca_arg_t &origin = A[2], &bshape = A[3];
  size_t pos = 4;
  std::vector<HgkDim> dim(D);
  Index total = 1;
  for (size_t d = 0; d < D; ++d) {
    const HistogramDimSpec &ds = dims[d];
    HgkDim &h = dim[d];
    h.n = ds.nbins;
    total *= ds.nbins;
    if (ds.explicit_edges) {
      h.edges = hgk_edges(A.block(pos++, "edges"), ds, dd, d);
    } else {
      h.formula = !dd;
      h.lo = ds.lo;
      h.hi = ds.hi;
      h.norm = double(ds.nbins) / (ds.hi - ds.lo);
      h.edges = histogram_uniform_edges(ds.lo, ds.hi, ds.nbins);
    }
  }
  // The operands: D samples, then the weights, each a fused program over leaf blocks.
  const size_t nops = D + (weighted ? 1 : 0);
  std::vector<BlockRef> owned;
  std::vector<const Block *> ops;
  for (size_t k = 0; k < nops; ++k) {
    const std::string_view prog_bytes = A.bytes(pos++, "program");
    const PreparedProgram &pp = prepared_program(prog_bytes.data(), prog_bytes.size());
    const ExprProgram &prog = program_of(pp);
    std::vector<const Block *> leaves;
    for (size_t j = 0; j < prog.inputs.size(); ++j) leaves.push_back(A.block(pos++, "leaf"));
    const bool identity = prog.code.empty() && prog.inputs.size() == 1 && prog.out == 0;
    if (identity) {
      ops.push_back(leaves[0]);
      continue;
    }
    GenCoords gc;
    if (prog.coords) gc = gen_coords_from_args(prog, origin, bshape);
    owned.emplace_back(eval_prepared_program(pp, leaves.data(), leaves.size(), prog.coords ? &gc : nullptr));
    ops.push_back(owned.back().get());
  }
  CA_CHECK(pos == A.size(), CA_EINVAL, "ca.histogram: ", A.size() - pos, " arguments too many");
  const Index n = ops[0]->size;
  for (size_t k = 0; k < nops; ++k) {
    CA_CHECK(ops[k]->size == n, CA_EINVAL, "ca.histogram: operands of different sizes");
    CA_CHECK(DType(ops[k]->dtype) == (k < D ? T : acc), CA_ETYPE, "ca.histogram: operand ", k, " has dtype ",
             dtype_name(DType(ops[k]->dtype)));
  }
  BlockRef out(hgk_new_block(acc, {1, total}));
  std::memset(out->data, 0, size_t(out->nbytes));
  constexpr Index kTile = 1024;
  Index idx[kTile];
  auto run = [&](auto *xtag, auto *ytag) {
    using X = std::remove_pointer_t<decltype(xtag)>;
    using Y = std::remove_pointer_t<decltype(ytag)>;
    std::vector<std::vector<X>> typed(D);
    for (size_t d = 0; d < D; ++d)
      if (dim[d].formula)
        for (double e : dim[d].edges) typed[d].push_back(X(e));
    Y *y = out.data<Y>();
    const Y *wt = weighted ? static_cast<const Y *>(ops[D]->data) : nullptr;
    for (Index start = 0; start < n; start += kTile) {
      const Index m = std::min(kTile, n - start);
      for (size_t d = 0; d < D; ++d)
        hgk_place<X>(static_cast<const X *>(ops[d]->data) + start, m, dim[d], d == 0, idx, typed[d]);
      if (wt) {
        for (Index i = 0; i < m; ++i)
          if (idx[i] >= 0) y[idx[i]] += wt[start + i];
      } else if constexpr (std::is_same_v<Y, int64_t>) {
        for (Index i = 0; i < m; ++i)
          if (idx[i] >= 0) ++y[idx[i]];
      }
    }
  };
  auto with_acc = [&](auto *xtag) {
    if (acc == CA_INT64) run(xtag, static_cast<int64_t *>(nullptr));
    else if (acc == CA_FLOAT64) run(xtag, static_cast<double *>(nullptr));
    else run(xtag, static_cast<std::complex<double> *>(nullptr));
  };
  if (T == CA_FLOAT32) with_acc(static_cast<float *>(nullptr));
  else with_acc(static_cast<double *>(nullptr));
  return out.release();
}

Block *hgk_k_histogram_finish(const KernelArgs &A) {
  const Block *sums = A.block(0, "sums");
  const std::vector<int64_t> spec = A.tuple_vec(1, "spec");
  CA_CHECK(spec.size() == 6 && spec[0] >= 1, CA_EINVAL, "ca.histogram_finish: bad spec");
  const size_t D = size_t(spec[0]);
  const bool dd = spec[1] != 0, density = spec[2] != 0;
  const DType acc = DType(spec[3]), T = DType(spec[4]), counts_dtype = DType(spec[5]);
  const std::vector<HistogramDimSpec> dims = hgk_dims(A.bytes(2, "dims"), D);
  std::vector<Index> shape;
  Index total = 1;
  for (auto &ds : dims) {
    shape.push_back(ds.nbins);
    total *= ds.nbins;
  }
  CA_CHECK(DType(sums->dtype) == acc && sums->size == total, CA_EINVAL, "ca.histogram_finish: sums of ",
           sums->size, " elements for ", total, " bins");
  size_t pos = 3;
  std::vector<const Block *> edge_blocks(D, nullptr);
  for (size_t d = 0; d < D; ++d)
    if (dims[d].explicit_edges) {
      edge_blocks[d] = A.block(pos++, "edges");
      (void)hgk_edges(edge_blocks[d], dims[d], dd, d);  // the monotonic check, also without samples
    }
  if (!density) {
    BlockRef out(hgk_new_block(acc, shape));
    if (total) std::memcpy(out->data, sums->data, size_t(out->nbytes));
    return out.release();
  }
  std::vector<std::vector<double>> widths(D);
  for (size_t d = 0; d < D; ++d) widths[d] = hgk_widths(edge_blocks[d], dims[d], T, dd);
  auto run = [&](auto *vtag) -> Block * {
    using V = std::remove_pointer_t<decltype(vtag)>;  // double or complex<double>
    BlockRef out(hgk_new_block(std::is_same_v<V, double> ? CA_FLOAT64 : CA_COMPLEX128, shape));
    V *h = out.data<V>();
    V s = 0;
    for (Index i = 0; i < total; ++i) {
      if (acc == CA_INT64) h[i] = V(double(static_cast<const int64_t *>(sums->data)[i]));
      else if (acc == CA_FLOAT64) h[i] = V(static_cast<const double *>(sums->data)[i]);
      else if constexpr (!std::is_same_v<V, double>) h[i] = static_cast<const std::complex<double> *>(sums->data)[i];
    }
    // numpy.histogram's counts are in the weights' dtype before the density: round them through it
    if (counts_dtype != acc)
      dispatch_dtype_f16(counts_dtype, [&](auto tag) {
        using C = typename decltype(tag)::type;
        for (Index i = 0; i < total; ++i) {
          if constexpr (std::is_same_v<C, Half>) {
            if constexpr (std::is_same_v<V, double>) h[i] = double(Half(h[i]));
          } else if constexpr (std::is_arithmetic_v<C>) {
            if constexpr (std::is_same_v<V, double>) h[i] = double(static_cast<C>(h[i]));
          } else if constexpr (!std::is_same_v<V, double>) {
            h[i] = V(C(h[i]));
          }
        }
      });
    // n.sum() in that dtype (float32 and complex64 sums stay single precision, as NumPy's)
    if (counts_dtype == CA_FLOAT32 || counts_dtype == CA_COMPLEX64) {
      std::complex<float> sf = 0;
      for (Index i = 0; i < total; ++i) sf += std::complex<float>(std::complex<double>(h[i]));
      if constexpr (std::is_same_v<V, double>) s = double(sf.real());
      else s = V(sf);
    } else {
      for (Index i = 0; i < total; ++i) s += h[i];
    }
    if (!dd) {
      // numpy.histogram: n / db / n.sum()
      for (Index i = 0; i < total; ++i) h[i] = h[i] / widths[0][size_t(i)] / s;
      return out.release();
    }
    // numpy.histogramdd: divided by each dimension's widths in turn, then by the sum
    Index inner = total;
    for (size_t d = 0; d < D; ++d) {
      const Index nd = dims[d].nbins;
      inner = nd ? inner / nd : 0;
      for (Index i = 0; i < total; ++i) h[i] /= widths[d][size_t((i / inner) % nd)];
    }
    for (Index i = 0; i < total; ++i) h[i] /= s;
    return out.release();
  };
  if (acc == CA_COMPLEX128) return run(static_cast<std::complex<double> *>(nullptr));
  return run(static_cast<double *>(nullptr));
}

}  // namespace

void register_histogram_kernels(KernelRegistry &reg) {
  register_builtin<hgk_k_histogram>(reg, "ca.histogram");
  register_builtin<hgk_k_histogram_finish>(reg, "ca.histogram_finish");
}

}  // namespace ca
