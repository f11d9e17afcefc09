// Exact quantiles along axes (np.quantile / percentile / median and their nan-skipping variants), as
// dask.array's median: the reduced axes are rechunked to one chunk each (only those axes; several
// are first moved last, next to each other), then one kernel per block selects the order statistics
// of each row (nth_element, or a sort for several quantiles) and interpolates them as NumPy 1.24's
// methods do.
#include "array/quantile.hpp"

#include "array/rechunk.hpp"
#include "array/shape.hpp"
#include "core/checked.hpp"
#include "core/half.hpp"
#include "kernel/adapter.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <type_traits>
#include <complex>
#include <vector>

namespace ca {

namespace {

bool interpolates(QuantileMethod m) { return m == QuantileMethod::Linear || m == QuantileMethod::Midpoint; }

/// The order statistic of row v[0..n) (n > 0) that a selecting method picks at q in [0, 1].
Index selected_index(Index n, double q, QuantileMethod method) {
  const double nm1 = double(n - 1);
  switch (method) {
    case QuantileMethod::Lower: return Index(std::floor(nm1 * q));
    case QuantileMethod::Higher: return Index(std::ceil(nm1 * q));
    default: return Index(std::nearbyint(nm1 * q));  // Nearest: np.around, half to even
  }
}

template <class T>
bool less_value(const T &x, const T &y) {
  if constexpr (std::is_same_v<T, Half>) return double(x) < double(y);
  else return x < y;
}

/// np.quantile's interpolated value (linear, midpoint) for row v[0..n) (n > 0): NumPy 1.24's
/// _quantile (its virtual index, neighbours and _lerp). `sorted`: v is sorted, else partitioned here.
template <class V>
double interpolated(std::vector<V> &v, Index n, double q, QuantileMethod method, bool sorted) {
  const double nm1 = double(n - 1);
  const double vi = method == QuantileMethod::Linear ? nm1 * q : 0.5 * (std::floor(nm1 * q) + std::ceil(nm1 * q));
  Index prev = Index(std::floor(vi)), next = prev + 1;
  if (vi >= nm1) prev = next = n - 1;  // NumPy's index -1: the largest
  if (vi < 0) prev = next = 0;
  const double gamma = method == QuantileMethod::Midpoint ? (std::fmod(vi, 1.0) == 0 ? 0.0 : 0.5) : vi - double(prev);
  if (!sorted) std::nth_element(v.begin(), v.begin() + prev, v.begin() + n, less_value<V>);
  const double a = double(v[size_t(prev)]);
  double b = a;
  if (next != prev) b = double(sorted ? v[size_t(next)] : *std::min_element(v.begin() + next, v.begin() + n, less_value<V>));
  const double d = b - a;
  return gamma >= 0.5 ? b - d * (1 - gamma) : a + d * gamma;
}

template <class T>
double as_double(T x) {
  return double(x);
}
template <class T>
bool is_nan_value(T x) {
  if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, Half>) return std::isnan(double(x));
  else return false;
}

// ca.quantile(block, q (float64 bytes), nred, method, skip_nan, q_ndim, out dtype, axis): the block's
// nred axes from `axis` on reduced; the result has q's axis first (q_ndim 1) and the block's other
// axes. Rows are gathered in tiles of kTile neighbouring rows (one pass over the block, in memory
// order). Selecting methods work in the block's own type (exact for int64); out dtype is then the
// block's or a float.
constexpr Index kTile = 32;

Block *k_quantile(const KernelArgs &A) {
  A.expect(8);
  const Block *in = A.block(0, "block");
  const std::string_view qb = A.bytes(1, "q");
  const int64_t nred = A.int64(2, "reduced axes"), method = A.int64(3, "method"), skip = A.int64(4, "skip_nan"),
                qnd = A.int64(5, "q ndim");
  const DType odt = DType(A.int64(6, "dtype"));
  const int64_t axis = A.int64(7, "axis");
  CA_CHECK(qb.size() % sizeof(double) == 0, CA_EINVAL, "ca.quantile: q is not a list of float64");
  CA_CHECK(nred >= 1 && axis >= 0 && axis + nred <= in->ndim, CA_EINVAL, "ca.quantile: ", nred,
           " reduced axes from axis ", axis, " of a ", in->ndim, "-d block");
  CA_CHECK(method >= 0 && method <= 4, CA_EINVAL, "ca.quantile: unknown method ", method);
  CA_CHECK(qnd == 0 || qnd == 1, CA_EINVAL, "ca.quantile: q must be 0-d or 1-d");
  CA_CHECK(odt == CA_FLOAT16 || odt == CA_FLOAT32 || odt == CA_FLOAT64 || odt == in->dtype, CA_ETYPE,
           "ca.quantile: results are float or of the block's dtype");
  const size_t nq = qb.size() / sizeof(double);
  CA_CHECK(qnd == 1 || nq == 1, CA_EINVAL, "ca.quantile: a 0-d q has one value");
  std::vector<double> q(nq);
  if (nq) std::memcpy(q.data(), qb.data(), qb.size());
  Index outer = 1, row = 1, inner = 1;
  for (int32_t d = 0; d < in->ndim; ++d) (d < axis ? outer : d < axis + nred ? row : inner) *= in->shape[d];
  const Index rows = outer * inner;
  std::vector<int64_t> oshape;
  if (qnd) oshape.push_back(int64_t(nq));
  for (int32_t d = 0; d < in->ndim; ++d)
    if (d < axis || d >= axis + nred) oshape.push_back(in->shape[d]);
  BlockRef out(block_new(odt, int32_t(oshape.size()), oshape.data()));
  const QuantileMethod m = QuantileMethod(method);
  dispatch_dtype_f16(in->dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>) {
      fail(CA_ETYPE, "ca.quantile: complex blocks are not supported");
    } else {
      using S = std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>;  // no std::vector<bool>
      const T *p = static_cast<const T *>(in->data);
      std::vector<S> buf(static_cast<size_t>(row));
      auto store = [&](size_t at, double v, const S *pick) {
        if (odt == in->dtype && pick) {
          static_cast<T *>(out->data)[at] = T(*pick);
        } else if (odt == CA_FLOAT64) {
          static_cast<double *>(out->data)[at] = pick ? double(*pick) : v;
        } else if (odt == CA_FLOAT32) {
          static_cast<float *>(out->data)[at] = float(pick ? double(*pick) : v);
        } else {
          static_cast<uint16_t *>(out->data)[at] = double_to_half(pick ? double(*pick) : v);
        }
      };
      const double nanv = std::numeric_limits<double>::quiet_NaN();
      std::vector<S> tile(static_cast<size_t>(row * std::min(inner, kTile)));
      auto do_row = [&](Index r, const S *src) {
        Index n = 0;
        bool nan = false;
        const S *nan_elem = nullptr;
        for (Index i = 0; i < row; ++i) {
          const S x = src[i];
          if (is_nan_value(x)) {
            nan = true;
            if (skip) continue;
          }
          buf[size_t(n++)] = x;
        }
        const bool sorted = nq > 2;
        const bool give_nan = (nan && !skip) || n == 0;
        for (Index i = 0; i < n && give_nan && !nan_elem; ++i)
          if (is_nan_value(buf[size_t(i)])) nan_elem = &buf[size_t(i)];
        if (sorted && !give_nan) std::sort(buf.begin(), buf.begin() + n, less_value<S>);
        for (size_t j = 0; j < nq; ++j) {
          const size_t at = j * size_t(rows) + size_t(r);
          if (give_nan) {
            // a nan row's value is nan (the row's own nan where the result keeps the dtype)
            if (odt == in->dtype && nan_elem) store(at, nanv, nan_elem);
            else store(at, nanv, nullptr);
          } else if (interpolates(m)) {
            store(at, interpolated(buf, n, q[j], m, sorted), nullptr);
          } else {
            const Index i = selected_index(n, q[j], m);
            if (!sorted) std::nth_element(buf.begin(), buf.begin() + i, buf.begin() + n, less_value<S>);
            store(at, 0.0, &buf[size_t(i)]);
          }
        }
      };
      // rows are the (outer, inner) positions; row r = o * inner + j reads p[(o * row + i) * inner + j]
      for (Index o = 0; o < outer; ++o) {
        for (Index j0 = 0; j0 < inner; j0 += kTile) {
          const Index w = std::min(kTile, inner - j0);
          for (Index i = 0; i < row; ++i) {
            const T *src = p + (o * row + i) * inner + j0;
            for (Index t = 0; t < w; ++t) tile[size_t(t * row + i)] = S(src[t]);
          }
          for (Index t = 0; t < w; ++t) do_row(o * inner + j0 + t, tile.data() + t * row);
        }
      }
    }
  });
  return out.release();
}

}  // namespace

DType quantile_result_dtype(DType t, QuantileMethod method) {
  if (dtype_is_complex(t) || (!dtype_is_numeric(t) && t != CA_FLOAT16))
    fail(CA_ETYPE, "quantile: ", dtype_name(t) ? dtype_name(t) : "this dtype",
         " is not supported (bool, integer and float dtypes)");
  if (!interpolates(method)) return t;  // NumPy takes the order statistics as they are
  if (t == CA_BOOL)
    fail(CA_ETYPE, "quantile: interpolating bool values is not supported (NumPy raises: boolean subtract); use "
         "lower/higher/nearest or a float result dtype");
  return CA_FLOAT64;  // np.quantile interpolates in float64, also for float16/float32 (np.median keeps those)
}

ArrayPtr quantile(const ArrayPtr &a, const std::vector<double> &q, bool q_scalar, std::vector<int32_t> axes,
                  const QuantileOptions &opts) {
  if (!a) fail(CA_EINVAL, "quantile: array is null");
  DType odt = opts.dtype;
  if (odt == CA_DTYPE_INVALID) {
    odt = quantile_result_dtype(a->dtype, opts.method);
  } else {
    (void)quantile_result_dtype(a->dtype, QuantileMethod::Lower);  // a supported input dtype
    if (!(odt == CA_FLOAT16 || odt == CA_FLOAT32 || odt == CA_FLOAT64 || (odt == a->dtype && !interpolates(opts.method))))
      fail(CA_ETYPE, "quantile: result dtype ", dtype_name(odt) ? dtype_name(odt) : "?",
           " is not float16/32/64 (or the input's for lower/higher/nearest)");
  }
  if (q_scalar && q.size() != 1) fail(CA_EINVAL, "quantile: a scalar q has one value, got ", q.size());
  for (double v : q)
    if (!(v >= 0.0 && v <= 1.0)) fail(CA_EINVAL, "quantile: quantiles must be in the range [0, 1], got ", v);
  const int32_t nd = a->ndim();
  if (axes.empty())
    for (int32_t d = 0; d < nd; ++d) axes.push_back(d);
  std::vector<bool> reduced(size_t(nd), false);
  for (int32_t &ax : axes) {
    if (ax < -nd || ax >= nd) fail(CA_EINVAL, "quantile: axis ", ax, " is out of bounds for array of dimension ", nd);
    if (ax < 0) ax += nd;
    if (reduced[size_t(ax)]) fail(CA_EINVAL, "quantile: repeated axis ", ax);
    reduced[size_t(ax)] = true;
  }
  if (nd == 0) fail(CA_EINVAL, "quantile: a 0-d array has no axis to reduce");
  // several reduced axes: moved last (the others keep their order); one stays where it is. Each
  // reduced axis in one chunk.
  std::vector<int32_t> sorted_axes = axes;
  std::sort(sorted_axes.begin(), sorted_axes.end());
  ArrayPtr b = a;
  int32_t first = sorted_axes[0];
  if (axes.size() > 1) {
    std::vector<int64_t> src, dst;
    int32_t next = nd - int32_t(axes.size());
    for (int32_t ax : sorted_axes) src.push_back(ax), dst.push_back(next++);
    b = moveaxis(a, src, dst);
    first = nd - int32_t(axes.size());
  }
  const int32_t last = first + int32_t(axes.size());
  Chunks ch = b->chunks;
  bool rechunk_needed = false;
  for (int32_t d = first; d < last; ++d) {
    if (ch[size_t(d)].size() != 1) {
      rechunk_needed = true;
      ch[size_t(d)] = {b->shape[size_t(d)]};
    }
  }
  if (rechunk_needed) b = rechunk(b, ch, RechunkOptions{});
  // output: q's axis first (1-d q), then the kept axes
  Chunks oc;
  if (!q_scalar) oc.push_back({Index(q.size())});
  for (int32_t d = 0; d < nd; ++d)
    if (d < first || d >= last) oc.push_back(b->chunks[size_t(d)]);
  MapBlocksOptions mo;
  mo.name = opts.skip_nan ? "nanquantile" : "quantile";
  mo.dtype = odt;
  for (int32_t d = first; d < last; ++d) mo.drop_axis.push_back(d);
  if (!q_scalar) mo.new_axis.push_back(0);
  mo.chunks = &oc;
  std::vector<ca_arg_t> extra = {ca_arg_bytes(q.data(), q.size() * sizeof(double)), ca_arg_i64(int64_t(axes.size())),
                                 ca_arg_i64(int64_t(opts.method)), ca_arg_i64(opts.skip_nan ? 1 : 0),
                                 ca_arg_i64(q_scalar ? 0 : 1), ca_arg_i64(int64_t(odt)), ca_arg_i64(first)};
  ArrayPtr r = map_blocks("ca.quantile", {b}, extra, mo);
  if (opts.keepdims) {
    std::vector<int64_t> at;
    for (int32_t ax : sorted_axes) at.push_back(int64_t(ax) + (q_scalar ? 0 : 1));
    r = expand_dims(r, at);
  }
  return r;
}

void register_quantile_kernels(KernelRegistry &reg) { register_builtin<k_quantile>(reg, "ca.quantile"); }

}  // namespace ca
