// Checked size arithmetic: every size, offset, block count, chunk sum, stride, byte count and index
// computed from input goes through these, so a value past 64 bits is a CA_EINVAL naming it
// ("shape (1099511627776, 1099511627776) has more than 2^63-1 elements") instead of a silent
// wraparound (signed overflow is undefined behaviour; unsigned wraps to a small, wrong size).
//
// Use them where sizes are computed (array construction, graph build, plan time, file headers), not in
// per-element loops: a block's extents are checked when it is made, so the loops over it cannot
// overflow. Values of data (sums, products of elements) are not sizes and do not belong here.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "core/error.hpp"

namespace ca {

/// At most this many blocks along one array axis (2^26: a chunk table of 512 MiB per axis). Checked
/// before chunk tables are allocated, so "chunks of 1 over 2^31 elements" is a CA_EINVAL naming the
/// count, not a process that grows until it is killed.
constexpr Index kMaxBlocksPerAxis = Index(1) << 26;

/// At most this many tasks in one symbolic graph layer (block indices are below it too): what a graph
/// file may declare (format's kMaxTasks), so a layer that can be built can be saved and loaded again.
constexpr int64_t kMaxLayerTasks = int64_t(1) << 62;

/// The one shape formatter: "(2, 3)", "(5,)", "()", a shape or block index as NumPy and dask print
/// it (Python's repr of a tuple). With `unknown_as_nan`, an extent not known yet (-1:
/// CA_CHUNK_UNKNOWN, array's kUnknownChunk) prints as dask's "nan", "(nan, 3)"; without it -1 is
/// a number (reshape's "infer this axis"). Every message and file header that shows a shape uses
/// it (tests/unit/test_overflow.cpp, ShapeStr).
inline std::string shape_str(const Index *s, size_t n, bool unknown_as_nan = false) {
  std::string r = "(";
  for (size_t i = 0; i < n; ++i) {
    if (i) r += ", ";
    r += unknown_as_nan && s[i] == -1 ? std::string("nan") : std::to_string(s[i]);
  }
  return r + (n == 1 ? ",)" : ")");
}
inline std::string shape_str(const std::vector<Index> &s, bool unknown_as_nan = false) {
  return shape_str(s.data(), s.size(), unknown_as_nan);
}

namespace detail {

template <class T>
constexpr const char *max_text() {
  if constexpr (std::is_signed_v<T>) return "2^63-1";
  else return "2^64-1";
}

template <class T>
[[noreturn]] void overflow(const char *what, T a, const char *op, T b, bool below) {
  if (below)
    fail(CA_EINVAL, what, ": ", a, op, b, " is less than ", std::is_signed_v<T> ? "-2^63" : "0",
         " (the result does not fit in 64 bits)");
  fail(CA_EINVAL, what, ": ", a, op, b, " is more than ", max_text<T>(), " (the result does not fit in 64 bits)");
}

}  // namespace detail

/// a + b, or CA_EINVAL "<what>: a + b is more than 2^63-1 (...)". T is int64_t (Index) or size_t.
template <class T>
T checked_add(T a, std::type_identity_t<T> b, const char *what) {
  static_assert(std::is_integral_v<T> && sizeof(T) == 8);
  T r;
  if (__builtin_add_overflow(a, b, &r)) [[unlikely]]
    detail::overflow<T>(what, a, " + ", b, std::is_signed_v<T> && a < 0);
  return r;
}

/// a - b, checked as checked_add.
template <class T>
T checked_sub(T a, std::type_identity_t<T> b, const char *what) {
  static_assert(std::is_integral_v<T> && sizeof(T) == 8);
  T r;
  if (__builtin_sub_overflow(a, b, &r)) [[unlikely]]
    detail::overflow<T>(what, a, " - ", b, !std::is_signed_v<T> || a < 0);
  return r;
}

/// a * b, checked as checked_add.
template <class T>
T checked_mul(T a, std::type_identity_t<T> b, const char *what) {
  static_assert(std::is_integral_v<T> && sizeof(T) == 8);
  T r;
  if (__builtin_mul_overflow(a, b, &r)) [[unlikely]]
    detail::overflow<T>(what, a, " * ", b, std::is_signed_v<T> && ((a < 0) != (b < 0)));
  return r;
}

/// The number of elements of a shape of non-negative extents, or CA_EINVAL
/// "shape (1099511627776, 1099511627776) has more than 2^63-1 elements". (A zero extent anywhere
/// makes 0 even when the other extents' product would overflow, as NumPy counts.)
inline Index shape_size(const Index *shape, size_t n) {
  Index r = 1;
  bool overflow = false;
  for (size_t d = 0; d < n; ++d) {
    if (shape[d] == 0) return 0;
    overflow |= __builtin_mul_overflow(r, shape[d], &r);
  }
  if (overflow) [[unlikely]]
    fail(CA_EINVAL, "shape ", shape_str(shape, n), " has more than 2^63-1 elements");
  return r;
}
inline Index shape_size(const std::vector<Index> &shape) { return shape_size(shape.data(), shape.size()); }

/// The byte size of a shape of `itemsize`-byte elements, or CA_EINVAL
/// "shape (2305843009213693952,) of 8-byte elements is more than 2^63-1 bytes".
inline Index shape_nbytes(const Index *shape, size_t n, size_t itemsize) {
  Index elems = shape_size(shape, n);
  Index r;
  if (__builtin_mul_overflow(elems, Index(itemsize), &r)) [[unlikely]]
    fail(CA_EINVAL, "shape ", shape_str(shape, n), " of ", itemsize, "-byte elements is more than 2^63-1 bytes");
  return r;
}
inline Index shape_nbytes(const std::vector<Index> &shape, size_t itemsize) {
  return shape_nbytes(shape.data(), shape.size(), itemsize);
}

/// The product of block counts (a layer's or an array's number of blocks), or CA_EINVAL
/// "<what>: numblocks (4611686018427387904, 4) make more than 2^63-1 blocks".
inline Index blocks_product(const Index *numblocks, size_t n, const char *what) {
  Index r = 1;
  bool overflow = false;
  for (size_t d = 0; d < n; ++d) {
    if (numblocks[d] == 0) return 0;
    overflow |= __builtin_mul_overflow(r, numblocks[d], &r);
  }
  if (overflow) [[unlikely]]
    fail(CA_EINVAL, what, ": numblocks ", shape_str(numblocks, n), " make more than 2^63-1 blocks");
  return r;
}

/// The sum of non-negative block sizes along one axis, or CA_EINVAL
/// "<what>: chunks along axis 0 sum to more than 2^63-1". Negative sizes are the caller's to reject.
inline Index chunks_sum(const std::vector<Index> &sizes, size_t axis, const char *what) {
  Index s = 0;
  for (Index c : sizes)
    if (__builtin_add_overflow(s, c, &s)) [[unlikely]]
      fail(CA_EINVAL, what, ": chunks along axis ", axis, " sum to more than 2^63-1");
  return s;
}

/// A double that names a count or a byte size (a configuration value, a parsed "1e6"): finite,
/// >= 0 and <= 2^63-1 after truncation, else CA_EINVAL "<what> 1e+300 is not a byte size in
/// 0..2^63-1".
inline Index checked_index_from_double(double v, const char *what) {
  // 2^63 is exactly representable; every double below it converts without overflow.
  if (!(std::isfinite(v) && v >= 0 && v < 9223372036854775808.0)) [[unlikely]]
    fail(CA_EINVAL, what, " ", v, " is not a finite value in 0..2^63-1");
  return Index(v);
}

/// A decimal integer (optional sign, digits only) that fits in int64, else CA_EINVAL
/// "<what> '99999999999999999999' does not fit in 64 bits (at most 2^63-1 in magnitude)".
/// The text is quoted in the message up to 40 bytes (then "...").
inline Index parse_index(const std::string &digits0, const char *what) {
  const std::string &text = digits0;
  const std::string digits = text.size() <= 40 ? text : text.substr(0, 40) + "...";  // for messages
  size_t i = 0;
  bool neg = false;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) neg = text[i++] == '-';
  CA_CHECK(i < text.size(), CA_EINVAL, what, " '", digits, "' is not a number");
  Index r = 0;
  for (; i < text.size(); ++i) {
    char c = text[i];
    CA_CHECK(c >= '0' && c <= '9', CA_EINVAL, what, " '", digits, "' is not a number");
    if (__builtin_mul_overflow(r, Index(10), &r) ||
        (neg ? __builtin_sub_overflow(r, Index(c - '0'), &r) : __builtin_add_overflow(r, Index(c - '0'), &r)))
      [[unlikely]]
      fail(CA_EINVAL, what, " '", digits, "' does not fit in 64 bits (-2^63..2^63-1)");
  }
  return r;
}

}  // namespace ca
