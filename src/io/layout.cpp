#include "io/layout.hpp"

#include <cstring>

namespace ca::io {

void byteswap_scalars(void *data, size_t count, size_t scalar_size) noexcept {
  auto *p = static_cast<unsigned char *>(data);
  switch (scalar_size) {
    case 1: return;
    case 2:
      for (size_t i = 0; i < count; ++i, p += 2) {
        uint16_t v;
        std::memcpy(&v, p, 2);
        v = __builtin_bswap16(v);
        std::memcpy(p, &v, 2);
      }
      return;
    case 4:
      for (size_t i = 0; i < count; ++i, p += 4) {
        uint32_t v;
        std::memcpy(&v, p, 4);
        v = __builtin_bswap32(v);
        std::memcpy(p, &v, 4);
      }
      return;
    case 8:
      for (size_t i = 0; i < count; ++i, p += 8) {
        uint64_t v;
        std::memcpy(&v, p, 8);
        v = __builtin_bswap64(v);
        std::memcpy(p, &v, 8);
      }
      return;
    default:
      for (size_t i = 0; i < count; ++i, p += scalar_size)
        for (size_t a = 0, b = scalar_size - 1; a < b; ++a, --b) std::swap(p[a], p[b]);
  }
}

void byteswap_elements(void *data, int64_t nelem, DType dtype) noexcept {
  size_t sz = dtype_size(dtype);
  if (dtype_is_complex(dtype))
    byteswap_scalars(data, size_t(nelem) * 2, sz / 2);
  else if (dtype_kind(dtype) == 'S')
    return;  // bytes have no byte order
  else if (dtype_kind(dtype) == 'U')
    byteswap_scalars(data, size_t(nelem) * size_t(dtype_length(dtype)), 4);  // UCS4 code points
  else
    byteswap_scalars(data, size_t(nelem), sz);
}

std::vector<int64_t> byte_strides(int ndim, const Index *shape, size_t itemsize, bool fortran) {
  std::vector<int64_t> s(size_t(ndim > 0 ? ndim : 0));
  int64_t acc = int64_t(itemsize);
  if (fortran) {
    for (int d = 0; d < ndim; ++d) {
      s[d] = acc;
      acc *= shape[d] > 0 ? shape[d] : 1;
    }
  } else {
    for (int d = ndim - 1; d >= 0; --d) {
      s[d] = acc;
      acc *= shape[d] > 0 ? shape[d] : 1;
    }
  }
  return s;
}

namespace {
template <size_t N>
void inner_copy(unsigned char *dst, int64_t ds, const unsigned char *src, int64_t ss, Index n) noexcept {
  for (Index i = 0; i < n; ++i) std::memcpy(dst + i * ds, src + i * ss, N);
}
}  // namespace

void copy_strided(void *dst0, const int64_t *dst_strides, const void *src0, const int64_t *src_strides, int ndim,
                  const Index *extent, size_t itemsize) noexcept {
  auto *dst = static_cast<unsigned char *>(dst0);
  auto *src = static_cast<const unsigned char *>(src0);
  for (int d = 0; d < ndim; ++d)
    if (extent[d] <= 0) return;
  if (ndim == 0) {
    std::memcpy(dst, src, itemsize);
    return;
  }
  const int last = ndim - 1;
  const Index n = extent[last];
  const int64_t ds = dst_strides[last], ss = src_strides[last];
  const bool contiguous = ds == int64_t(itemsize) && ss == int64_t(itemsize);
  Index idx[CA_MAX_NDIM] = {};
  while (true) {
    if (contiguous) {
      std::memcpy(dst, src, size_t(n) * itemsize);
    } else {
      switch (itemsize) {
        case 1: inner_copy<1>(dst, ds, src, ss, n); break;
        case 2: inner_copy<2>(dst, ds, src, ss, n); break;
        case 4: inner_copy<4>(dst, ds, src, ss, n); break;
        case 8: inner_copy<8>(dst, ds, src, ss, n); break;
        case 16: inner_copy<16>(dst, ds, src, ss, n); break;
        default:
          for (Index i = 0; i < n; ++i) std::memcpy(dst + i * ds, src + i * ss, itemsize);
      }
    }
    int d = last - 1;
    for (; d >= 0; --d) {
      dst += dst_strides[d];
      src += src_strides[d];
      if (++idx[d] < extent[d]) break;
      dst -= dst_strides[d] * extent[d];
      src -= src_strides[d] * extent[d];
      idx[d] = 0;
    }
    if (d < 0) return;
  }
}

void copy_box(void *dst, const Index *dst_shape, const Index *dst_off, const void *src, const Index *src_shape,
              const Index *src_off, const Index *extent, int ndim, size_t itemsize) {
  auto ds = byte_strides(ndim, dst_shape, itemsize, false);
  auto ss = byte_strides(ndim, src_shape, itemsize, false);
  int64_t doff = 0, soff = 0;
  for (int d = 0; d < ndim; ++d) {
    doff += dst_off[d] * ds[d];
    soff += src_off[d] * ss[d];
  }
  copy_strided(static_cast<unsigned char *>(dst) + doff, ds.data(), static_cast<const unsigned char *>(src) + soff,
               ss.data(), ndim, extent, itemsize);
}

void fill_elements(void *dst0, int64_t nelem, const void *value, size_t itemsize) noexcept {
  auto *dst = static_cast<unsigned char *>(dst0);
  auto *v = static_cast<const unsigned char *>(value);
  bool all_same = true;
  for (size_t i = 1; i < itemsize; ++i) all_same = all_same && v[i] == v[0];
  if (all_same) {
    std::memset(dst, v[0], size_t(nelem) * itemsize);
    return;
  }
  if (nelem <= 0) return;
  std::memcpy(dst, v, itemsize);
  // Doubling copies: log2(n) memcpy calls.
  size_t done = itemsize, total = size_t(nelem) * itemsize;
  while (done < total) {
    size_t c = done < total - done ? done : total - done;
    std::memcpy(dst + done, dst, c);
    done += c;
  }
}

bool order_is_irrelevant(int ndim, const Index *shape) noexcept {
  int big = 0;
  for (int d = 0; d < ndim; ++d) big += shape[d] > 1;
  return big <= 1;
}

void parse_numpy_typestr(const std::string &s, const std::string &where, DType &dtype, bool &big) {
  size_t p = 0;
  char bo = '=';
  if (!s.empty() && (s[0] == '<' || s[0] == '>' || s[0] == '|' || s[0] == '=')) bo = s[p++];
  if (p >= s.size()) fail(CA_EFORMAT, where, ": dtype '", s, "' is not a NumPy typestr");
  char kind = s[p];
  std::string digits = s.substr(p + 1);
  bool numeric = !digits.empty() && digits.size() <= 3 && digits.find_first_not_of("0123456789") == std::string::npos;
  DType t = CA_DTYPE_INVALID;
  if (numeric && std::strchr("biufc", kind) != nullptr) {
    int size = std::stoi(digits);
    for (DType c = CA_BOOL; c <= CA_COMPLEX128; ++c)
      if (dtype_kind(c) == kind && int(dtype_size(c)) == size) t = c;
  }
  if (t == CA_DTYPE_INVALID && (std::strchr("fMmSU", kind) != nullptr)) {
    // float16, datetime64/timedelta64 ("<M8[ns]"), bytes ("|S5"), unicode ("<U8").
    try {
      t = dtype_parse(s.substr(p));
    } catch (const Error &e) {
      if (kind == 'M' || kind == 'm' || kind == 'S' || kind == 'U')
        fail(CA_EUNSUPPORTED, where, ": dtype '", s, "' is not supported: ", e.what());
    }
    if (t == CA_RAW) t = CA_DTYPE_INVALID;
  }
  if (t == CA_DTYPE_INVALID)
    fail(CA_EUNSUPPORTED, where, ": dtype '", s, "' is not supported (bool, int8..64, uint8..64, float16/32/64, ",
         "complex64/128, datetime64/timedelta64 with a unit, S<n>, U<n> only)");
  dtype = t;
  big = bo == '>' && dtype_size(t) > 1;
}

Index element_count(int ndim, const Index *shape) noexcept {
  Index n = 1;
  for (int d = 0; d < ndim; ++d) n *= shape[d];
  return n;
}

}  // namespace ca::io
