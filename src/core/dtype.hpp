// dtypes: sizes, names, NumPy promotion, and a compile-time dispatch over the numeric types.
#pragma once

#include <chunkarray/common.h>

#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.hpp"

namespace ca {

using DType = ca_dtype_t;

size_t dtype_size(DType t) noexcept;
const char *dtype_name(DType t) noexcept;  // nullptr if invalid
bool dtype_valid(DType t) noexcept;
DType dtype_parse(const std::string &name);  // throws CA_ETYPE
DType dtype_promote(DType a, DType b);       // throws CA_ETYPE
char dtype_kind(DType t) noexcept;           // NumPy kind: b i u f c V
bool dtype_is_integer(DType t) noexcept;
bool dtype_is_float(DType t) noexcept;
bool dtype_is_complex(DType t) noexcept;
/// NumPy's typestr for this machine: "<f8", "|b1", "<c16".
std::string dtype_typestr(DType t);

template <class T>
struct TypeTag {
  using type = T;
};

/// Call f(TypeTag<T>{}) with the C++ type of a numeric dtype. Throws CA_ETYPE for raw/invalid.
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
    default: fail(CA_ETYPE, "dtype ", t, " is not a numeric dtype");
  }
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

}  // namespace ca
