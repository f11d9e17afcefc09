// Block kernels of dask.array.fft (graphs: fft.cpp; 1-d transforms: plan.hpp).
//
//   ca.fft.c2c(block, axes, lengths, inverse, fct)  fftn / ifftn
//   ca.fft.r2c(block, axes, lengths, conj, fct)     rfftn, ihfft (conj 1)
//   ca.fft.c2r(block, axes, lengths, conj, fct)     irfftn, hfft (conj 1)
//   ca.fft.freq(block, n, d, rfft)                  fftfreq / rfftfreq from an arange block
//
// pocketfft backend (the default, -Dfft=pocketfft): each kernel is one call of pocketfft's n-d
// interface (c2c / r2c / c2r with shape, byte strides, axes and fct) over the whole block, written
// straight into the output block: pocketfft batches the lines of each axis (SIMD over 2, 4 or 8
// neighbouring lines) itself. A complex128 (c2c, c2r) or float64 (r2c) block that needs no zero
// padding is read in place, truncation being a smaller shape over the block's strides; other dtypes
// or padding go through one conversion copy first (c2c: into the output block itself, then in
// place). The axes go in NumPy's order (its _raw_fftnd transforms the last given axis first; r2c and
// c2r the real axis first / last, as rfftn and irfftn do). ihfft's conjugated output is pocketfft's
// r2c with forward = false, hfft's conjugated input its c2r with forward = true.
//
// KISS FFT and FFTW backends: when the last axis of the block is transformed (first, for r2c; alone, for c2r), that pass reads
// the block's rows directly, converting, truncating or zero-padding each row (fk_rows). Otherwise the
// block is first copied into a double-precision buffer whose transformed axes have their target
// lengths (NumPy's truncation or zero padding; r2c: real parts, c2r: the last axis n/2+1). Then each
// remaining axis is transformed line by line: lines along the last axis in place, lines along an
// inner axis in batches of kBatch neighbouring lines gathered into contiguous scratch
// (cache-friendly column passes). `fct` scales the result once at the end.
#include <algorithm>
#include <complex>
#include <cstring>
#include <type_traits>
#include <vector>

#include "core/block.hpp"
#include "core/checked.hpp"
#include "fft/fft.hpp"
#include "fft/plan.hpp"
#include "kernel/adapter.hpp"

#include "fft/pocketfft.hpp"

namespace ca::fft {

namespace {

constexpr Index kBatch = 16;

template <class T>
struct fk_is_cplx : std::false_type {};
template <class T>
struct fk_is_cplx<std::complex<T>> : std::true_type {};

// One element of the input as U (double: the real part; cd: conjugated when asked).
template <class U, class T>
U fk_convert(const T &v, bool conj) {
  if constexpr (fk_is_cplx<T>::value) {
    if constexpr (std::is_same_v<U, double>) return double(v.real());
    else return U(double(v.real()), conj ? -double(v.imag()) : double(v.imag()));
  } else {
    return U(static_cast<double>(v));
  }
}

// dst (shape D, zeroed where D exceeds the input) = the input block over the common region.
template <class U>
void fk_resize_copy(const Block *in, U *dst, const std::vector<Index> &D, bool conj) {
  const size_t nd = D.size();
  const std::vector<Index> S(in->shape, in->shape + in->ndim);
  std::vector<Index> common(nd);
  bool pad = false;
  for (size_t d = 0; d < nd; ++d) {
    common[d] = std::min(S[d], D[d]);
    pad |= D[d] > S[d];
  }
  if (pad) std::fill(dst, dst + shape_size(D), U(0));
  if (shape_size(common) == 0) return;
  std::vector<Index> sstride(nd, 1), dstride(nd, 1);
  for (size_t d = nd - 1; d-- > 0;) {
    sstride[d] = sstride[d + 1] * S[d + 1];
    dstride[d] = dstride[d + 1] * D[d + 1];
  }
  dispatch_dtype_f16(DType(in->dtype), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T *src = static_cast<const T *>(in->data);
    std::vector<Index> idx(nd, 0);
    const Index run = common[nd - 1];
    for (;;) {
      Index so = 0, doff = 0;
      for (size_t d = 0; d + 1 < nd; ++d) {
        so += idx[d] * sstride[d];
        doff += idx[d] * dstride[d];
      }
      for (Index t = 0; t < run; ++t) dst[doff + t] = fk_convert<U>(src[so + t], conj);
      size_t d = nd - 1;
      while (d-- > 0) {
        if (++idx[d] < common[d]) break;
        idx[d] = 0;
      }
      if (d == size_t(-1)) break;
    }
  });
}

// f(in_line, out_line) for every line along `axis` of src (shape S) into dst (the same shape with
// line length lout). Lines are gathered into scratch first (f may overwrite its input); src and dst
// may be the same buffer when the line lengths agree.
template <class In, class Out, class F>
void fk_lines(const In *src, Out *dst, const std::vector<Index> &S, size_t axis, Index lout, F &&f) {
  Index outer = 1, inner = 1;
  for (size_t d = 0; d < axis; ++d) outer *= S[d];
  for (size_t d = axis + 1; d < S.size(); ++d) inner *= S[d];
  const Index lin = S[axis];
  if (outer == 0 || inner == 0 || lin == 0) return;
  const Index B = std::min(inner, kBatch);
  std::vector<In> gin(size_t(B * lin));
  std::vector<Out> gout(size_t(B * lout));
  for (Index o = 0; o < outer; ++o) {
    const In *s = src + o * lin * inner;
    Out *t = dst + o * lout * inner;
    if (inner == 1) {
      std::copy(s, s + lin, gin.data());
      f(gin.data(), t);
      continue;
    }
    for (Index i0 = 0; i0 < inner; i0 += B) {
      const Index b = std::min(B, inner - i0);
      for (Index k = 0; k < lin; ++k)
        for (Index j = 0; j < b; ++j) gin[size_t(j * lin + k)] = s[k * inner + i0 + j];
      for (Index j = 0; j < b; ++j) f(gin.data() + j * lin, gout.data() + j * lout);
      for (Index k = 0; k < lout; ++k)
        for (Index j = 0; j < b; ++j) t[k * inner + i0 + j] = gout[size_t(j * lout + k)];
    }
  }
}

// f(line, row) for every row (line along the last axis) of an output of shape O with rows of lout
// values: `line` is the input block's row converted to In, truncated or zero-padded to lin values
// (f may overwrite it); rows beyond the input (a zero-padded leading axis) are zero. The first pass
// of a transform over the last axis reads the block directly through this, with no full-size copy.
template <class In, class Out, class F>
void fk_rows(const Block *in, Out *dst, const std::vector<Index> &O, Index lin, Index lout, bool conj, F &&f) {
  const size_t nd = O.size();
  const Index *S = in->shape;
  Index rows = 1;
  for (size_t d = 0; d + 1 < nd; ++d) rows *= O[d];
  if (rows == 0 || lout == 0) return;
  const Index run = std::min(S[nd - 1], lin);
  std::vector<In> line(static_cast<size_t>(lin));
  std::vector<Index> idx(nd - 1, 0);
  dispatch_dtype_f16(DType(in->dtype), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T *src = static_cast<const T *>(in->data);
    for (Index r = 0; r < rows; ++r) {
      bool inside = true;
      Index so = 0;
      for (size_t d = 0; d + 1 < nd; ++d) {
        inside = inside && idx[d] < S[d];
        so = so * S[d] + idx[d];
      }
      Out *t = dst + r * lout;
      if (!inside) {
        std::fill(t, t + lout, Out(0));
      } else {
        const T *s = src + so * S[nd - 1];
        for (Index k = 0; k < run; ++k) line[size_t(k)] = fk_convert<In>(s[k], conj);
        std::fill(line.begin() + run, line.end(), In(0));
        f(line.data(), t);
      }
      for (size_t d = nd - 1; d-- > 0;) {
        if (++idx[d] < O[d]) break;
        idx[d] = 0;
      }
    }
  });
}

template <class U>
void fk_scale(U *p, Index n, double fct, bool conj) {
  if (fct == 1 && !conj) return;
  for (Index i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<U, cd>) p[i] = conj ? std::conj(p[i]) * fct : p[i] * fct;
    else p[i] *= fct;
  }
}

struct FkArgs {
  const Block *in;
  std::vector<size_t> axes;
  std::vector<int64_t> len;
  bool flag;
  double fct;
};

FkArgs fk_args(const KernelArgs &A) {
  A.expect(5);
  FkArgs r{A.block(0), {}, A.tuple_vec(2, "lengths"), A.int64(3, "flag") != 0, A.float64(4, "fct")};
  const std::span<const int64_t> ax = A.tuple(1, "axes");
  CA_CHECK(!ax.empty() && ax.size() == r.len.size(), CA_EINVAL, A.kernel(), ": ", ax.size(), " axes for ",
           r.len.size(), " lengths");
  CA_CHECK(dtype_is_numeric(DType(r.in->dtype)) || r.in->dtype == CA_FLOAT16, CA_ETYPE, A.kernel(),
           ": unsupported dtype ", r.in->dtype);
  for (size_t i = 0; i < ax.size(); ++i) {
    CA_CHECK(ax[i] >= 0 && ax[i] < r.in->ndim, CA_EINVAL, A.kernel(), ": axis ", ax[i], " out of range");
    CA_CHECK(r.len[i] >= 1, CA_EINVAL, A.kernel(), ": Invalid number of FFT data points (", r.len[i], ") specified.");
    for (size_t j = 0; j < i; ++j) CA_CHECK(ax[j] != ax[i], CA_EINVAL, A.kernel(), ": repeated axis ", ax[i]);
    r.axes.push_back(size_t(ax[i]));
  }
  return r;
}

#if CA_FFT_POCKETFFT
// ---- pocketfft: the whole block in one n-d call ---------------------------------------------------

pf::Shape pf_shape(const std::vector<Index> &S) { return pf::Shape(S.begin(), S.end()); }

// Byte strides of a C-contiguous array of shape S with elements of `elem` bytes.
pf::Strides pf_strides(const std::vector<Index> &S, size_t elem) {
  pf::Strides st(S.size());
  ptrdiff_t s = ptrdiff_t(elem);
  for (size_t d = S.size(); d-- > 0;) {
    st[d] = s;
    s *= ptrdiff_t(std::max<Index>(S[d], 1));
  }
  return st;
}

// The block can be read in place: its dtype is `dt` and no transformed axis needs zero padding (W:
// the lengths read from it).
bool pf_direct(const Block *in, DType dt, const std::vector<Index> &W) {
  if (in->dtype != dt) return false;
  for (size_t d = 0; d < W.size(); ++d)
    if (W[d] > in->shape[d]) return false;
  return true;
}

// NumPy's order: every axis but the last given one reversed, then that one (c2c: the whole reversal).
pf::Shape pf_axes(const std::vector<size_t> &axes, bool keep_last) {
  pf::Shape r(axes.rbegin() + (keep_last ? 1 : 0), axes.rend());
  if (keep_last) r.push_back(axes.back());
  return r;
}
#endif

// ---- ca.fft.c2c(block, axes, lengths, inverse, fct) ------------------------------------------------
Block *fk_c2c(const KernelArgs &A) {
  const FkArgs a = fk_args(A);
  std::vector<Index> D(a.in->shape, a.in->shape + a.in->ndim);
  for (size_t i = 0; i < a.axes.size(); ++i) D[a.axes[i]] = a.len[i];
  BlockRef out(block_new(CA_COMPLEX128, int32_t(D.size()), D.data()));
  cd *p = out.data<cd>();
  if (shape_size(D) == 0) return out.release();
#if CA_FFT_POCKETFFT
  const pf::Strides so = pf_strides(D, sizeof(cd));
  if (pf_direct(a.in, CA_COMPLEX128, D)) {
    const std::vector<Index> S(a.in->shape, a.in->shape + a.in->ndim);
    pf::c2c(pf_shape(D), pf_strides(S, sizeof(cd)), so, pf_axes(a.axes, false), !a.flag,
                           static_cast<const cd *>(a.in->data), p, a.fct);
  } else {
    fk_resize_copy(a.in, p, D, false);
    pf::c2c(pf_shape(D), so, so, pf_axes(a.axes, false), !a.flag, p, p, a.fct);
  }
  return out.release();
#else
  const size_t last = D.size() - 1;
  const bool rows = std::find(a.axes.begin(), a.axes.end(), last) != a.axes.end();
  if (rows)  // the last axis first, straight from the block
    fk_rows<cd>(a.in, p, D, D[last], D[last], false, [&](const cd *in, cd *o) { c2c(D[last], a.flag, in, o); });
  else
    fk_resize_copy(a.in, p, D, false);
  for (size_t ax : a.axes)
    if (!(rows && ax == last))
      fk_lines(p, p, D, ax, D[ax], [&](const cd *in, cd *o) { c2c(D[ax], a.flag, in, o); });
  fk_scale(p, shape_size(D), a.fct, false);
  return out.release();
#endif
}

// ---- ca.fft.r2c(block, axes, lengths, conj, fct) -----------------------------------------------------
Block *fk_r2c(const KernelArgs &A) {
  const FkArgs a = fk_args(A);
  std::vector<Index> D(a.in->shape, a.in->shape + a.in->ndim);
  for (size_t i = 0; i < a.axes.size(); ++i) D[a.axes[i]] = a.len[i];
  const size_t last = a.axes.back();
  const Index n = D[last];
  std::vector<Index> O = D;
  O[last] = n / 2 + 1;
  BlockRef out(block_new(CA_COMPLEX128, int32_t(O.size()), O.data()));
  cd *p = out.data<cd>();
  if (shape_size(O) == 0) return out.release();
#if CA_FFT_POCKETFFT
  const pf::Strides so = pf_strides(O, sizeof(cd));
  // ihfft: conj(rfft(x)) of real x is pocketfft's r2c with forward = false.
  if (pf_direct(a.in, CA_FLOAT64, D)) {
    const std::vector<Index> S(a.in->shape, a.in->shape + a.in->ndim);
    pf::r2c(pf_shape(D), pf_strides(S, sizeof(double)), so, pf_axes(a.axes, true), !a.flag,
                           static_cast<const double *>(a.in->data), p, a.fct);
  } else {
    std::vector<double> real(size_t(shape_size(D)));
    fk_resize_copy(a.in, real.data(), D, false);
    pf::r2c(pf_shape(D), pf_strides(D, sizeof(double)), so, pf_axes(a.axes, true), !a.flag,
                           real.data(), p, a.fct);
  }
  return out.release();
#else
  if (last + 1 == D.size()) {  // the real axis is the last: straight from the block, rows in pairs
    const double *held = nullptr;
    cd *held_out = nullptr;
    std::vector<double> keep(static_cast<size_t>(n));
    fk_rows<double>(a.in, p, O, n, O[last], false, [&](const double *in, cd *o) {
      if (!held) {
        std::copy(in, in + n, keep.data());
        held = keep.data(), held_out = o;
        return;
      }
      r2c2(n, held, in, held_out, o);
      held = nullptr;
    });
    if (held) r2c(n, held, held_out);
  } else {
    std::vector<double> real(size_t(shape_size(D)));
    fk_resize_copy(a.in, real.data(), D, false);
    fk_lines(real.data(), p, D, last, O[last], [&](const double *in, cd *o) { r2c(n, in, o); });
  }
  for (size_t i = 0; i + 1 < a.axes.size(); ++i) {
    const size_t ax = a.axes[i];
    fk_lines(p, p, O, ax, O[ax], [&](const cd *in, cd *o) { c2c(O[ax], false, in, o); });
  }
  fk_scale(p, shape_size(O), a.fct, a.flag);
  return out.release();
#endif
}

// ---- ca.fft.c2r(block, axes, lengths, conj, fct) -----------------------------------------------------
Block *fk_c2r(const KernelArgs &A) {
  const FkArgs a = fk_args(A);
  std::vector<Index> O(a.in->shape, a.in->shape + a.in->ndim);
  for (size_t i = 0; i < a.axes.size(); ++i) O[a.axes[i]] = a.len[i];
  const size_t last = a.axes.back();
  const Index n = O[last];
  std::vector<Index> C = O;
  C[last] = n / 2 + 1;
  BlockRef out(block_new(CA_FLOAT64, int32_t(O.size()), O.data()));
  if (shape_size(O) == 0) return out.release();
  double *p = out.data<double>();
#if CA_FFT_POCKETFFT
  // hfft: irfft of conj(x) is pocketfft's c2r with forward = true (its c2c passes over the other axes
  // too: c2c_fwd(x) = conj(c2c_bwd(conj x))). pocketfft reads only the real parts of the zero and (even
  // n) Nyquist terms, as NumPy does.
  const pf::Strides so = pf_strides(O, sizeof(double));
  if (pf_direct(a.in, CA_COMPLEX128, C)) {
    const std::vector<Index> S(a.in->shape, a.in->shape + a.in->ndim);
    pf::c2r(pf_shape(O), pf_strides(S, sizeof(cd)), so, pf_axes(a.axes, true), a.flag,
                           static_cast<const cd *>(a.in->data), p, a.fct);
  } else {
    std::vector<cd> c(size_t(shape_size(C)));
    fk_resize_copy(a.in, c.data(), C, false);
    pf::c2r(pf_shape(O), pf_strides(C, sizeof(cd)), so, pf_axes(a.axes, true), a.flag, c.data(), p,
                           a.fct);
  }
  return out.release();
#else
  if (a.axes.size() == 1 && last + 1 == O.size()) {  // irfft / hfft over the last axis: straight from the block
    fk_rows<cd>(a.in, p, O, C[last], n, a.flag, [&](const cd *in, double *o) { c2r(n, const_cast<cd *>(in), o); });
    fk_scale(p, shape_size(O), a.fct, false);
    return out.release();
  }
  std::vector<cd> c(size_t(shape_size(C)));
  fk_resize_copy(a.in, c.data(), C, a.flag);
  for (size_t i = 0; i + 1 < a.axes.size(); ++i) {
    const size_t ax = a.axes[i];
    fk_lines(c.data(), c.data(), C, ax, C[ax], [&](const cd *in, cd *o) { c2c(C[ax], true, in, o); });
  }
  // c2r uses its input line as scratch: fk_lines hands it the gathered copy.
  fk_lines(c.data(), p, C, last, n, [&](const cd *in, double *o) { c2r(n, const_cast<cd *>(in), o); });
  fk_scale(p, shape_size(O), a.fct, false);
  return out.release();
#endif
}

// ---- ca.fft.freq(block, n, d, rfft) -------------------------------------------------------------------
// dask's _fftfreq_block on a float64 arange block: values >= (n + 1) // 2 less n (fftfreq only), all
// divided by n * d.
Block *fk_freq(const KernelArgs &A) {
  A.expect(4);
  const Block *in = A.block(0);
  const int64_t n = A.int64(1, "n");
  const double d = A.float64(2, "d");
  const bool rfft = A.int64(3, "rfft") != 0;
  CA_CHECK(in->dtype == CA_FLOAT64, CA_ETYPE, A.kernel(), ": expects a float64 block");
  CA_CHECK(n >= 1, CA_EINVAL, A.kernel(), ": n must be at least 1");
  BlockRef out(block_new(CA_FLOAT64, in->ndim, in->shape));
  const Index total = shape_size(in->shape, size_t(in->ndim));
  const double *x = static_cast<const double *>(in->data);
  double *y = out.data<double>();
  const double h = double((n + 1) / 2), nd = double(n) * d;
  for (Index i = 0; i < total; ++i) {
    double r = x[i];
    if (!rfft && x[i] >= h) r -= double(n);
    y[i] = r / nd;
  }
  return out.release();
}

}  // namespace

void register_fft_kernels(KernelRegistry &reg) {
  register_builtin<fk_c2c>(reg, "ca.fft.c2c");
  register_builtin<fk_r2c>(reg, "ca.fft.r2c");
  register_builtin<fk_c2r>(reg, "ca.fft.c2r");
  register_builtin<fk_freq>(reg, "ca.fft.freq");
}

}  // namespace ca::fft
