// Kernels of the creation functions (array/create.cpp). Each receives literal parameters plus its
// block's index, origin and/or shape, and computes every element from its global index.
#include <chunkarray/array.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <new>
#include <type_traits>

#include "array/create.hpp"
#include "kernel/kernel.hpp"

namespace ca {

namespace detail {

void philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]) {
  uint32_t x0 = ctr[0], x1 = ctr[1], x2 = ctr[2], x3 = ctr[3];
  uint32_t k0 = key[0], k1 = key[1];
  for (int r = 0; r < 10; ++r) {
    uint64_t p0 = uint64_t(0xD2511F53u) * x0;
    uint64_t p1 = uint64_t(0xCD9E8D57u) * x2;
    uint32_t y0 = uint32_t(p1 >> 32) ^ x1 ^ k0;
    uint32_t y1 = uint32_t(p1);
    uint32_t y2 = uint32_t(p0 >> 32) ^ x3 ^ k1;
    uint32_t y3 = uint32_t(p0);
    x0 = y0, x1 = y1, x2 = y2, x3 = y3;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  out[0] = x0, out[1] = x1, out[2] = x2, out[3] = x3;
}

}  // namespace detail

namespace {

// ---- argument access ----------------------------------------------------------------------------

struct Args {
  const ca_arg_t *a;
  size_t n;
  const char *kernel;

  const ca_arg_t &at(size_t i, int32_t kind) const {
    CA_CHECK(i < n, CA_EINVAL, kernel, ": expected at least ", i + 1, " arguments, got ", n);
    CA_CHECK(a[i].kind == kind, CA_EINVAL, kernel, ": argument ", i, " has kind ", a[i].kind, ", expected ", kind);
    return a[i];
  }
  int64_t i64(size_t i) const { return at(i, CA_ARG_INT64).u.i64; }
  double f64(size_t i) const {
    CA_CHECK(i < n, CA_EINVAL, kernel, ": expected at least ", i + 1, " arguments, got ", n);
    if (a[i].kind == CA_ARG_INT64) return double(a[i].u.i64);
    return at(i, CA_ARG_FLOAT64).u.f64;
  }
  const ca_arg_t &tuple(size_t i) const { return at(i, CA_ARG_TUPLE); }
  DType dtype(size_t i) const {
    DType t = DType(i64(i));
    CA_CHECK(dtype_valid(t) && t != CA_RAW, CA_ETYPE, kernel, ": bad dtype ", t);
    return t;
  }
};

Block *new_block(DType dtype, const ca_arg_t &shape, bool zero = false) {
  return block_new(dtype, int32_t(shape.u.tuple.len), shape.u.tuple.items, zero);
}

template <class T>
struct real_of {
  using type = T;
};
template <class T>
struct real_of<std::complex<T>> {
  using type = T;
};
template <class T>
struct is_complex : std::false_type {};
template <class T>
struct is_complex<std::complex<T>> : std::true_type {};

// NumPy's float -> integer astype for values in range (truncation; wraps modulo 2**bits as C does
// for the narrower types). Out-of-range and NaN give 0 here (NumPy: undefined, with a warning).
template <class T>
T cast_int(double x) {
  if (!std::isfinite(x)) return T(0);
  x = std::trunc(x);
  if (x >= -9223372036854775808.0 && x < 9223372036854775808.0) return T(int64_t(x));
  if (x >= 0 && x < 18446744073709551616.0) return T(uint64_t(x));
  return T(0);
}

// A double (or complex) value as T, NumPy's astype.
template <class T>
T convert(double re, double im = 0) {
  if constexpr (std::is_same_v<T, bool>) {
    return re != 0 || im != 0;
  } else if constexpr (is_complex<T>::value) {
    using R = typename T::value_type;
    return T(R(re), R(im));
  } else if constexpr (std::is_floating_point_v<T>) {
    return T(re);
  } else {
    return cast_int<T>(re);
  }
}

template <class T>
bool all_zero_bytes(const T &v) {
  unsigned char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  for (unsigned char c : b)
    if (c) return false;
  return true;
}

// ---- ca.full(re, im, dtype, shape) --------------------------------------------------------------

Block *k_full(const Args &A) {
  double re = A.f64(0), im = A.f64(1);
  DType dt = A.dtype(2);
  const ca_arg_t &shape = A.tuple(3);
  return dispatch_dtype(dt, [&](auto tag) -> Block * {
    using T = typename decltype(tag)::type;
    T v = convert<T>(re, im);
    bool zero = all_zero_bytes(v);
    BlockRef b(new_block(dt, shape, zero));
    if (!zero) std::fill_n(b.data<T>(), b->size, v);
    return b.release();
  });
}

// ---- ca.arange(dtype, start, step, origin, shape) -----------------------------------------------
// NumPy's arange: a0 = start, a1 = start + step (in dtype), then fill a0 + i * (a1 - a0).

Block *k_arange(const Args &A) {
  DType dt = A.dtype(0);
  double start = A.f64(1), step = A.f64(2);
  const ca_arg_t &origin = A.tuple(3), &shape = A.tuple(4);
  CA_CHECK(shape.u.tuple.len == 1 && origin.u.tuple.len == 1, CA_EINVAL, "ca.arange: blocks are 1-d");
  Index o = origin.u.tuple.items[0];
  BlockRef b(new_block(dt, shape));
  Index n = b->size;
  dispatch_dtype(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T *p = b.data<T>();
    if constexpr (std::is_same_v<T, bool>) {
      fail(CA_ETYPE, "ca.arange: no fill-function for data-type bool");
    } else if constexpr (std::is_integral_v<T>) {
      T a0 = cast_int<T>(start), a1 = cast_int<T>(start + step);
      T delta = T(a1 - a0);
      uint64_t ua0 = uint64_t(int64_t(a0)), ud = uint64_t(int64_t(delta));
      if constexpr (std::is_unsigned_v<T>) ua0 = uint64_t(a0), ud = uint64_t(delta);
      for (Index i = 0; i < n; ++i) p[i] = T(ua0 + uint64_t(o + i) * ud);
    } else {
      using R = typename real_of<T>::type;
      R a0 = R(start), a1 = R(start + step);
      R delta = a1 - a0;
      for (Index i = 0; i < n; ++i) {
        Index g = o + i;
        R v = g == 0 ? a0 : (g == 1 ? a1 : R(a0 + R(g) * delta));
        p[i] = T(v);
      }
    }
  });
  return b.release();
}

// ---- ca.linspace(dtype, start, stop, num, endpoint, origin, shape) ------------------------------

Block *k_linspace(const Args &A) {
  DType dt = A.dtype(0);
  double start = A.f64(1), stop = A.f64(2);
  Index num = A.i64(3);
  bool endpoint = A.i64(4) != 0;
  const ca_arg_t &origin = A.tuple(5), &shape = A.tuple(6);
  CA_CHECK(shape.u.tuple.len == 1 && origin.u.tuple.len == 1, CA_EINVAL, "ca.linspace: blocks are 1-d");
  Index o = origin.u.tuple.items[0];
  BlockRef b(new_block(dt, shape));
  Index n = b->size;
  Index div = endpoint ? num - 1 : num;
  double delta = stop - start;
  double step = div > 0 ? delta / double(div) : 0;
  bool step_zero = div > 0 && step == 0;
  auto value = [&](Index g) {
    double y = double(g);
    if (div > 0) y = step_zero ? (y / double(div)) * delta : y * step;
    else y = y * delta;
    y += start;
    if (endpoint && num > 1 && g == num - 1) y = stop;
    return y;
  };
  dispatch_dtype(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T *p = b.data<T>();
    for (Index i = 0; i < n; ++i) {
      double y = value(o + i);
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) y = std::floor(y);
      p[i] = convert<T>(y);
    }
  });
  return b.release();
}

// ---- ca.eye / ca.tri (dtype, k, origin, shape) --------------------------------------------------

Block *k_eye_tri(const Args &A, bool tri) {
  DType dt = A.dtype(0);
  Index k = A.i64(1);
  const ca_arg_t &origin = A.tuple(2), &shape = A.tuple(3);
  CA_CHECK(shape.u.tuple.len == 2 && origin.u.tuple.len == 2, CA_EINVAL, A.kernel, ": blocks are 2-d");
  Index o0 = origin.u.tuple.items[0], o1 = origin.u.tuple.items[1];
  Index h = shape.u.tuple.items[0], w = shape.u.tuple.items[1];
  BlockRef b(new_block(dt, shape, true));
  dispatch_dtype(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T *p = b.data<T>();
    T one = convert<T>(1.0);
    for (Index r = 0; r < h; ++r) {
      // column (global) of the diagonal in this row, relative to the block
      __int128 c = __int128(o0 + r) + k - o1;
      if (tri) {
        Index cnt = c < 0 ? 0 : (c >= w ? w : Index(c) + 1);
        std::fill_n(p + r * w, cnt, one);
      } else if (c >= 0 && c < w) {
        p[r * w + Index(c)] = one;
      }
    }
  });
  return b.release();
}

// ---- ca.diag_block([v block?], dtype, kind, index, shape) ---------------------------------------
// kind 0: diagonal blocks are (i, i); 1: (i, i + 1); -1: (i + 1, i).

Block *k_diag_block(const Args &A) {
  const ca_arg_t &lst = A.at(0, CA_ARG_LIST);
  DType dt = A.dtype(1);
  Index kind = A.i64(2);
  const ca_arg_t &index = A.tuple(3), &shape = A.tuple(4);
  CA_CHECK(shape.u.tuple.len == 2 && index.u.tuple.len == 2, CA_EINVAL, "ca.diag_block: blocks are 2-d");
  Index i = index.u.tuple.items[0], j = index.u.tuple.items[1];
  bool on = kind == 0 ? i == j : (kind > 0 ? j == i + 1 : i == j + 1);
  BlockRef b(new_block(dt, shape, true));
  if (!on || lst.u.list.len == 0) return b.release();
  const ca_arg_t &va = lst.u.list.items[0];
  CA_CHECK(va.kind == CA_ARG_BLOCK && va.u.block, CA_EINVAL, "ca.diag_block: expected a block");
  const Block *v = va.u.block;
  CA_CHECK(v->dtype == dt && v->ndim == 1, CA_ETYPE, "ca.diag_block: v block must be 1-d of the output dtype");
  Index n = v->shape[0], h = shape.u.tuple.items[0], w = shape.u.tuple.items[1];
  CA_CHECK(n == h && n == w, CA_EINVAL, "ca.diag_block: v block of ", n, " elements for a ", h, "x", w, " block");
  size_t isz = dtype_size(dt);
  const char *src = static_cast<const char *>(v->data);
  char *dst = static_cast<char *>(b->data);
  for (Index r = 0; r < n; ++r) std::memcpy(dst + size_t(r * w + r) * isz, src + size_t(r) * isz, isz);
  return b.release();
}

// ---- ca.diagonal(block, k) ----------------------------------------------------------------------

Block *k_diagonal(const Args &A) {
  const ca_arg_t &ba = A.at(0, CA_ARG_BLOCK);
  Index k = A.i64(1);
  const Block *in = ba.u.block;
  CA_CHECK(in && in->ndim == 2, CA_EINVAL, "ca.diagonal: expected a 2-d block");
  Index h = in->shape[0], w = in->shape[1];
  Index r0 = k < 0 ? -k : 0, c0 = k > 0 ? k : 0;
  Index len = std::max<Index>(0, std::min(h - r0, w - c0));
  if (k >= w || -k >= h) len = 0;
  Block *out = block_new(in->dtype, 1, &len);
  size_t isz = dtype_size(in->dtype);
  const char *src = static_cast<const char *>(in->data);
  char *dst = static_cast<char *>(out->data);
  for (Index t = 0; t < len; ++t) std::memcpy(dst + size_t(t) * isz, src + size_t((r0 + t) * w + c0 + t) * isz, isz);
  return out;
}

// ---- ca.random(dist, seed, p0, p1, lo, range, dtype, numblocks, index, shape) -------------------

// A block's stream: Philox4x32-10, key = seed, counter = (pair index 64 bits, block index 64 bits).
// Generated kBatch counters at a time in struct-of-arrays form so the rounds vectorize.
class Stream {
 public:
  static constexpr size_t kBatch = 64;  // counters per refill -> 2 * kBatch uint64 outputs
  Stream(uint64_t seed, uint64_t block) : k0_(uint32_t(seed)), k1_(uint32_t(seed >> 32)) {
    c2_ = uint32_t(block);
    c3_ = uint32_t(block >> 32);
  }
  // Fill out[0, 2*kBatch) with the next batch.
  void fill(uint64_t *out) {
    uint32_t x0[kBatch], x1[kBatch], x2[kBatch], x3[kBatch];
    for (size_t i = 0; i < kBatch; ++i) {
      uint64_t c = next_ + i;
      x0[i] = uint32_t(c);
      x1[i] = uint32_t(c >> 32);
      x2[i] = c2_;
      x3[i] = c3_;
    }
    next_ += kBatch;
    uint32_t ka = k0_, kb = k1_;
    for (int r = 0; r < 10; ++r) {
      for (size_t i = 0; i < kBatch; ++i) {
        uint64_t p0 = uint64_t(0xD2511F53u) * x0[i];
        uint64_t p1 = uint64_t(0xCD9E8D57u) * x2[i];
        uint32_t y0 = uint32_t(p1 >> 32) ^ x1[i] ^ ka;
        uint32_t y2 = uint32_t(p0 >> 32) ^ x3[i] ^ kb;
        x1[i] = uint32_t(p1);
        x3[i] = uint32_t(p0);
        x0[i] = y0;
        x2[i] = y2;
      }
      ka += 0x9E3779B9u;
      kb += 0xBB67AE85u;
    }
    for (size_t i = 0; i < kBatch; ++i) {
      out[2 * i] = uint64_t(x0[i]) | uint64_t(x1[i]) << 32;
      out[2 * i + 1] = uint64_t(x2[i]) | uint64_t(x3[i]) << 32;
    }
  }
  uint64_t next64() {
    if (pos_ == 2 * kBatch) {
      fill(buf_);
      pos_ = 0;
    }
    return buf_[pos_++];
  }
  uint32_t next32() {
    if (have_half_) {
      have_half_ = false;
      return half_;
    }
    uint64_t x = next64();
    half_ = uint32_t(x >> 32);
    have_half_ = true;
    return uint32_t(x);
  }

 private:
  uint32_t k0_, k1_, c2_, c3_;
  uint64_t next_ = 0;
  uint64_t buf_[2 * kBatch];
  size_t pos_ = 2 * kBatch;
  uint32_t half_ = 0;
  bool have_half_ = false;
};

constexpr double kTwoPi = 6.283185307179586476925286766559;

inline double u53(uint64_t x) { return double(x >> 11) * 0x1.0p-53; }          // [0, 1)
inline double u53_open0(uint64_t x) { return double((x >> 11) + 1) * 0x1.0p-53; }  // (0, 1]

template <class T>
void fill_uniform(T *p, Index n, Stream &s, double lo, double hi) {
  constexpr size_t B = 2 * Stream::kBatch;
  uint64_t buf[B];
  double scale = hi - lo;
  if constexpr (std::is_same_v<T, double>) {
    for (Index i = 0; i < n; i += Index(B)) {
      s.fill(buf);
      Index m = std::min<Index>(Index(B), n - i);
      for (Index t = 0; t < m; ++t) p[i + t] = lo + scale * u53(buf[t]);
    }
  } else {
    // float32: 24 random bits per value, two values per 64-bit output.
    const float flo = float(lo), fhi = float(hi);
    for (Index i = 0; i < n; i += Index(2 * B)) {
      s.fill(buf);
      Index m = std::min<Index>(Index(2 * B), n - i);
      for (Index t = 0; t < m; ++t) {
        uint32_t x = uint32_t(buf[t >> 1] >> ((t & 1) * 32));
        double u = double(x >> 8) * 0x1.0p-24;
        float v = float(lo + scale * u);
        if (fhi > flo && v >= fhi) v = std::nextafter(fhi, flo);
        p[i + t] = v;
      }
    }
  }
}

template <class T>
void fill_normal(T *p, Index n, Stream &s, double mean, double sd) {
  constexpr size_t B = 2 * Stream::kBatch;
  uint64_t buf[B];
  for (Index i = 0; i < n; i += Index(B)) {
    s.fill(buf);
    Index m = std::min<Index>(Index(B), n - i);
    for (Index t = 0; t < m; t += 2) {
      // Box-Muller: u1 in (0, 1] so the log is finite.
      double r = std::sqrt(-2.0 * std::log(u53_open0(buf[t])));
      double th = kTwoPi * u53(buf[t + 1]);
      p[i + t] = T(mean + sd * r * std::cos(th));
      if (t + 1 < m) p[i + t + 1] = T(mean + sd * r * std::sin(th));
    }
  }
}

// Lemire's nearly divisionless unbiased bounded integers; range 0 means 2**64.
inline uint64_t bounded(Stream &s, uint64_t range) {
  if (range == 0) return s.next64();
  if (range <= 0xFFFFFFFFull) {
    uint32_t r = uint32_t(range);
    uint64_t m = uint64_t(s.next32()) * r;
    uint32_t l = uint32_t(m);
    if (l < r) {
      uint32_t t = uint32_t(-r) % r;
      while (l < t) {
        m = uint64_t(s.next32()) * r;
        l = uint32_t(m);
      }
    }
    return m >> 32;
  }
  if (range == 0x100000000ull) return s.next32();
  unsigned __int128 m = (unsigned __int128)s.next64() * range;
  uint64_t l = uint64_t(m);
  if (l < range) {
    uint64_t t = (0 - range) % range;
    while (l < t) {
      m = (unsigned __int128)s.next64() * range;
      l = uint64_t(m);
    }
  }
  return uint64_t(m >> 64);
}

Block *k_random(const Args &A) {
  int64_t dist = A.i64(0);
  uint64_t seed = uint64_t(A.i64(1));
  double p0 = A.f64(2), p1 = A.f64(3);
  uint64_t lo = uint64_t(A.i64(4)), range = uint64_t(A.i64(5));
  DType dt = A.dtype(6);
  const ca_arg_t &nb = A.tuple(7), &index = A.tuple(8), &shape = A.tuple(9);
  CA_CHECK(nb.u.tuple.len == index.u.tuple.len && nb.u.tuple.len == shape.u.tuple.len, CA_EINVAL,
           "ca.random: numblocks, index and shape differ in length");
  uint64_t lin = 0;
  for (size_t d = 0; d < nb.u.tuple.len; ++d) lin = lin * uint64_t(nb.u.tuple.items[d]) + uint64_t(index.u.tuple.items[d]);
  Stream s(seed, lin);
  BlockRef b(new_block(dt, shape));
  Index n = b->size;
  switch (dist) {
    case CA_RANDOM_UNIFORM:
    case CA_RANDOM_NORMAL:
      if (dt == CA_FLOAT64) {
        if (dist == CA_RANDOM_UNIFORM) fill_uniform(b.data<double>(), n, s, p0, p1);
        else fill_normal(b.data<double>(), n, s, p0, p1);
      } else if (dt == CA_FLOAT32) {
        if (dist == CA_RANDOM_UNIFORM) fill_uniform(b.data<float>(), n, s, p0, p1);
        else fill_normal(b.data<float>(), n, s, p0, p1);
      } else {
        fail(CA_ETYPE, "ca.random: dtype ", dtype_name(dt), " for a float distribution");
      }
      break;
    case CA_RANDOM_INTEGERS:
      dispatch_dtype(dt, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (std::is_integral_v<T>) {
          T *p = b.data<T>();
          for (Index i = 0; i < n; ++i) p[i] = T(lo + bounded(s, range));
        } else {
          fail(CA_ETYPE, "ca.random: integers need an integer dtype");
        }
      });
      break;
    default: fail(CA_EINVAL, "ca.random: unknown distribution ", dist);
  }
  return b.release();
}

// ---- registration -------------------------------------------------------------------------------

template <Block *(*F)(const Args &)>
ca_status_t wrap(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *ud) {
  try {
    *out = F(Args{args, nargs, static_cast<const char *>(ud)});
    return CA_OK;
  } catch (const Error &e) {
    if (kctx) kctx->error = e.message();
    return e.code() ? e.code() : CA_EINTERNAL;
  } catch (const std::bad_alloc &) {
    if (kctx) kctx->error = std::string(static_cast<const char *>(ud)) + ": out of memory";
    return CA_ENOMEM;
  } catch (const std::exception &e) {
    if (kctx) kctx->error = e.what();
    return CA_EINTERNAL;
  }
}

Block *k_eye(const Args &A) { return k_eye_tri(A, false); }
Block *k_tri(const Args &A) { return k_eye_tri(A, true); }

}  // namespace

void register_creation_kernels(KernelRegistry &reg) {
  struct Entry {
    const char *name;
    ca_kernel_fn fn;
  };
  static const Entry entries[] = {
      {"ca.full", wrap<k_full>},         {"ca.arange", wrap<k_arange>}, {"ca.linspace", wrap<k_linspace>},
      {"ca.eye", wrap<k_eye>},           {"ca.tri", wrap<k_tri>},       {"ca.diag_block", wrap<k_diag_block>},
      {"ca.diagonal", wrap<k_diagonal>}, {"ca.random", wrap<k_random>},
  };
  for (const Entry &e : entries)
    reg.add(kernel_new(e.name, e.fn, 1, const_cast<char *>(e.name), nullptr), true);
}

}  // namespace ca
