// Graphs of dask.array.fft (see fft.hpp).
#include "fft/fft.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "array/create.hpp"
#include "array/rechunk.hpp"
#include "array/shape.hpp"
#include "array/slicing.hpp"
#include "core/checked.hpp"
#include "core/error.hpp"

namespace ca::fft {

namespace {

const char *kind_name(Kind k) {
  switch (k) {
    case Kind::Fft: return "fft";
    case Kind::Ifft: return "ifft";
    case Kind::Rfft: return "rfft";
    case Kind::Irfft: return "irfft";
    case Kind::Hfft: return "hfft";
    case Kind::Ihfft: return "ihfft";
  }
  return "?";
}


}  // namespace

ArrayPtr transform(const ArrayPtr &a, Kind kind, const Options &o, const char *what) {
  CA_CHECK(a != nullptr, CA_EINVAL, what, ": array is NULL");
  CA_CHECK(int32_t(kind) >= 0 && int32_t(kind) <= 5, CA_EINVAL, what, ": unknown transform kind ", int32_t(kind));
  CA_CHECK(int32_t(o.norm) >= 0 && int32_t(o.norm) <= 2, CA_EINVAL, what, ": invalid norm value ", int32_t(o.norm),
           "; should be \"backward\", \"ortho\" or \"forward\"");
  CA_CHECK(dtype_is_numeric(a->dtype) || a->dtype == CA_FLOAT16, CA_ETYPE, what, ": dtype ",
           dtype_name(a->dtype) ? dtype_name(a->dtype) : "?", " is not supported (bool, integer, floating or complex)");
  const int32_t nd = a->ndim();
  const bool one_axis = kind == Kind::Hfft || kind == Kind::Ihfft;
  // dask's default axes (fft_wrap): the 1-d kinds the last axis; n-d kinds every axis, or the
  // first len(s) axes when s is given (NumPy would take the last len(s)).
  std::vector<int64_t> axes = o.axes;
  if (!o.has_axes) {
    axes.clear();
    if (one_axis) axes.push_back(-1);
    else if (o.has_s)
      for (size_t i = 0; i < o.s.size(); ++i) axes.push_back(int64_t(i));
    else
      for (int32_t i = 0; i < nd; ++i) axes.push_back(i);
  } else {
    for (size_t i = 0; i < axes.size(); ++i)
      for (size_t j = 0; j < i; ++j)
        CA_CHECK(axes[i] != axes[j], CA_EINVAL, what, ": Duplicate axes not allowed.");
  }
  CA_CHECK(!axes.empty(), CA_EINVAL, what, ": at least one axis to transform is needed");
  CA_CHECK(!one_axis || axes.size() == 1, CA_EINVAL, what, ": transforms one axis, ", axes.size(), " given");
  CA_CHECK(!o.has_s || o.s.size() == axes.size(), CA_EINVAL, what, ": Shape and axes have different lengths.");
  std::vector<int32_t> ax(axes.size());
  for (size_t i = 0; i < axes.size(); ++i) {
    ax[i] = normalize_axis(axes[i], nd, what);
    for (size_t j = 0; j < i; ++j)
      CA_CHECK(ax[i] != ax[j], CA_EINVAL, what, ": Duplicate axes not allowed.");
  }
  for (size_t i = 0; i < ax.size(); ++i) {
    const std::vector<Index> &c = a->chunks[size_t(ax[i])];
    // dask's chunk_error, verbatim (the axis as given).
    CA_CHECK(c.size() == 1, CA_EINVAL,
             "Dask array only supports taking an FFT along an axis that \nhas a single chunk. An FFT operation was "
             "tried on axis ", axes[i], " \nwhich has chunks ", shape_str(c, true),
             ". To change the array's chunks use dask.Array.rechunk.");
    require_known_chunks(*a, what, ax[i]);
  }
  // Lengths of the transform (the output's for c2c / c2r, the real input's for r2c).
  std::vector<int64_t> len(ax.size());
  for (size_t i = 0; i < ax.size(); ++i) {
    const Index m = a->shape[size_t(ax[i])];
    const bool last = i + 1 == ax.size();
    len[i] = o.has_s ? o.s[i] : (last && (kind == Kind::Irfft || kind == Kind::Hfft)) ? 2 * (m - 1) : m;
    CA_CHECK(len[i] >= 1, CA_EINVAL, what, ": Invalid number of FFT data points (", len[i], ") specified.");
  }
  // Normalization: fft, rfft and hfft scale like a forward transform, the others like an inverse one
  // (hfft is irfft with the direction swapped, ihfft rfft with it swapped).
  double total = 1;
  for (int64_t l : len) total *= double(l);
  const bool fwd_scale = kind == Kind::Fft || kind == Kind::Rfft || kind == Kind::Hfft;
  double fct = 1;
  if (o.norm == Norm::Ortho) fct = 1 / std::sqrt(total);
  else if ((o.norm == Norm::Forward) == fwd_scale) fct = 1 / total;

  Chunks oc = a->chunks;
  for (size_t i = 0; i < ax.size(); ++i) oc[size_t(ax[i])] = {len[i]};
  const char *kernel = "ca.fft.c2c";
  DType dt = CA_COMPLEX128;
  int64_t flag = kind == Kind::Ifft ? 1 : 0;
  if (kind == Kind::Rfft || kind == Kind::Ihfft) {
    kernel = "ca.fft.r2c";
    oc[size_t(ax.back())] = {len.back() / 2 + 1};
    flag = kind == Kind::Ihfft;  // conjugate the output
  } else if (kind == Kind::Irfft || kind == Kind::Hfft) {
    kernel = "ca.fft.c2r";
    dt = CA_FLOAT64;
    flag = kind == Kind::Hfft;  // conjugate the input
  }
  std::vector<int64_t> axes64(ax.begin(), ax.end());
  Tokenizer tok(kind_name(kind));
  tok.add(*a).add(axes64).add(len).add(int64_t(o.norm));
  const std::string L = index_letters(size_t(nd));
  return blockwise_layer(tok.name(), kernel, L,
                         {ArrayArg::of(a, L), ArrayArg::lit(ca_arg_tuple(axes64.data(), axes64.size())),
                          ArrayArg::lit(ca_arg_tuple(len.data(), len.size())), ArrayArg::lit(ca_arg_i64(flag)),
                          ArrayArg::lit(ca_arg_f64(fct))},
                         oc, dt);
}

ArrayPtr fftfreq(int64_t n, double d, const Chunks &chunks, bool rfft) {
  const char *what = rfft ? "rfftfreq" : "fftfreq";
  CA_CHECK(n >= 1, CA_EINVAL, what, ": n must be at least 1, got ", n);
  CA_CHECK(chunks.size() == 1, CA_EINVAL, what, ": chunks must be 1-d, got ", chunks.size(), " dimensions");
  const int64_t len = rfft ? n / 2 + 1 : n;
  ArrayPtr r = arange(0, double(len), 1, chunks, CA_FLOAT64);
  Tokenizer tok(what);
  tok.add(*r).add(n).add(d);
  return blockwise_layer(tok.name(), "ca.fft.freq", "i",
                         {ArrayArg::of(r, "i"), ArrayArg::lit(ca_arg_i64(n)), ArrayArg::lit(ca_arg_f64(d)),
                          ArrayArg::lit(ca_arg_i64(rfft))},
                         r->chunks, CA_FLOAT64);
}

ArrayPtr fftshift(const ArrayPtr &a, bool has_axes, const std::vector<int64_t> &axes_in, bool inverse) {
  const char *what = inverse ? "ifftshift" : "fftshift";
  CA_CHECK(a != nullptr, CA_EINVAL, what, ": array is NULL");
  const int32_t nd = a->ndim();
  std::vector<int64_t> axes = axes_in;
  if (!has_axes) {
    axes.clear();
    for (int32_t i = 0; i < nd; ++i) axes.push_back(i);
  }
  ArrayPtr y = a;
  for (int64_t axis : axes) {
    const int32_t i = normalize_axis(axis, nd, what);
    require_known_chunks(*y, what, i);
    const Index n = y->shape[size_t(i)];
    const Index n2 = (n + (inverse ? 0 : 1)) / 2;
    std::vector<IndexItem> l(size_t(nd), IndexItem::all()), r(size_t(nd), IndexItem::all());
    l[size_t(i)] = IndexItem::slice(0, n2);
    r[size_t(i)] = IndexItem::slice(n2, n);
    y = concatenate({getitem(y, r), getitem(y, l)}, i);
    if (a->chunks[size_t(i)].size() == 1) {
      Chunks c = y->chunks;
      c[size_t(i)] = a->chunks[size_t(i)];
      if (c != y->chunks) y = rechunk(y, c);
    }
  }
  return y;
}

}  // namespace ca::fft
