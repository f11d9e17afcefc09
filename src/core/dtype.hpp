// dtypes: sizes, names, NumPy promotion, and a compile-time dispatch over the numeric types.
// A dtype is a ca_dtype_t (common.h): bits 0..7 the kind code, bits 8..30 its parameter (the unit of
// datetime64/timedelta64, the length of bytes/unicode).
#pragma once

#include <chunkarray/common.h>

#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "core/error.hpp"
#include "core/half.hpp"

namespace ca {

using DType = ca_dtype_t;

size_t dtype_size(DType t) noexcept;
const char *dtype_name(DType t) noexcept;  // nullptr if invalid; static storage
bool dtype_valid(DType t) noexcept;
DType dtype_parse(const std::string &name);  // throws CA_ETYPE
DType dtype_promote(DType a, DType b);       // throws CA_ETYPE
/// The Python array API standard's promotion table (no value-based casting); CA_ETYPE naming both dtypes
/// where the standard defines none (int with float, bool with a number, int64 with uint64) or for a
/// dtype outside the standard's set.
DType dtype_promote_std(DType a, DType b);
/// A checked dtype from a kind code and its parameter (unit or length; 0 for the others). CA_ETYPE.
DType dtype_make(int32_t kind, int64_t param);
/// NumPy kind: b i u f c V, M (datetime64), m (timedelta64), S (bytes), U (unicode); '?' if invalid.
char dtype_kind(DType t) noexcept;
/// The kind code (bits 0..7): CA_DATETIME64 for every datetime64 unit. Not validated.
inline int32_t dtype_base(DType t) noexcept { return t & CA_DTYPE_KIND_MASK; }
/// The unit (CA_UNIT_*) of a datetime64/timedelta64; 0 for the others.
int32_t dtype_unit(DType t) noexcept;
/// The length in characters of a bytes/unicode dtype; 0 for the others.
int64_t dtype_length(DType t) noexcept;
bool dtype_is_integer(DType t) noexcept;
bool dtype_is_float(DType t) noexcept;  // float16, float32, float64
bool dtype_is_complex(DType t) noexcept;
inline bool dtype_is_datetime(DType t) noexcept { return dtype_kind(t) == 'M'; }
inline bool dtype_is_timedelta(DType t) noexcept { return dtype_kind(t) == 'm'; }
inline bool dtype_is_time(DType t) noexcept { return dtype_is_datetime(t) || dtype_is_timedelta(t); }
inline bool dtype_is_string(DType t) noexcept { return dtype_kind(t) == 'S' || dtype_kind(t) == 'U'; }
/// A dtype dispatch_dtype handles (bool .. complex128: not raw, float16, times or strings).
inline bool dtype_is_numeric(DType t) noexcept { return t >= CA_BOOL && t <= CA_COMPLEX128; }
/// NumPy's unit letters ("ns", "D", ...); nullptr for an unknown unit.
const char *unit_name(int32_t unit) noexcept;
/// NumPy's typestr for this machine: "<f8", "|b1", "<c16", "<f2", "<M8[ns]", "|S5", "<U8".
std::string dtype_typestr(DType t);

template <class T>
struct TypeTag {
  using type = T;
};

/// Call f(TypeTag<T>{}) with the C++ type of a numeric dtype. Throws CA_ETYPE for the others (raw,
/// float16, datetime64/timedelta64, strings, invalid): those have their own kernels.
template <class F>
decltype(auto) dispatch_dtype(DType t, F &&f) {
  switch (t) {
    case CA_BOOL: return f(TypeTag<bool>{});
    case CA_INT8: return f(TypeTag<int8_t>{});
    case CA_INT16: return f(TypeTag<int16_t>{});
    case CA_INT32: return f(TypeTag<int32_t>{});
    case CA_INT64: return f(TypeTag<int64_t>{});
    case CA_UINT8: return f(TypeTag<uint8_t>{});
    case CA_UINT16: return f(TypeTag<uint16_t>{});
    case CA_UINT32: return f(TypeTag<uint32_t>{});
    case CA_UINT64: return f(TypeTag<uint64_t>{});
    case CA_FLOAT32: return f(TypeTag<float>{});
    case CA_FLOAT64: return f(TypeTag<double>{});
    case CA_COMPLEX64: return f(TypeTag<std::complex<float>>{});
    case CA_COMPLEX128: return f(TypeTag<std::complex<double>>{});
    default: {
      const char *n = dtype_name(t);
      if (n) fail(CA_ETYPE, "this operation is not supported for dtype ", n);
      fail(CA_ETYPE, "dtype ", t, " is not a numeric dtype");
    }
  }
}

/// dispatch_dtype plus float16 as ca::Half (its storage, constructible from and convertible to
/// double): for kernels that build, move or compare values without arithmetic in the element type.
template <class F>
decltype(auto) dispatch_dtype_f16(DType t, F &&f) {
  if (t == CA_FLOAT16) return f(TypeTag<Half>{});
  return dispatch_dtype(t, std::forward<F>(f));
}

template <class T>
constexpr DType dtype_of();
template <> constexpr DType dtype_of<bool>() { return CA_BOOL; }
template <> constexpr DType dtype_of<int8_t>() { return CA_INT8; }
template <> constexpr DType dtype_of<int16_t>() { return CA_INT16; }
template <> constexpr DType dtype_of<int32_t>() { return CA_INT32; }
template <> constexpr DType dtype_of<int64_t>() { return CA_INT64; }
template <> constexpr DType dtype_of<uint8_t>() { return CA_UINT8; }
template <> constexpr DType dtype_of<uint16_t>() { return CA_UINT16; }
template <> constexpr DType dtype_of<uint32_t>() { return CA_UINT32; }
template <> constexpr DType dtype_of<uint64_t>() { return CA_UINT64; }
template <> constexpr DType dtype_of<float>() { return CA_FLOAT32; }
template <> constexpr DType dtype_of<double>() { return CA_FLOAT64; }
template <> constexpr DType dtype_of<std::complex<float>>() { return CA_COMPLEX64; }
template <> constexpr DType dtype_of<std::complex<double>>() { return CA_COMPLEX128; }
template <> constexpr DType dtype_of<Half>() { return CA_FLOAT16; }

}  // namespace ca
