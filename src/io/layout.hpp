// Memory layout conversions shared by the zarr and npy code: byte order, C/F order, N-d box copies.
// Blocks are native little-endian and C-contiguous; files may be big-endian and/or Fortran-ordered.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include <chunkarray/block.h>

#include "core/block.hpp"
#include "core/dtype.hpp"

namespace ca::io {

/// Scratch memory for chunk codecs (zarr, HDF5): aligned like blocks, uninitialized.
struct AlignedFree {
  void operator()(unsigned char *p) const noexcept { ::operator delete[](p, std::align_val_t(kBlockAlign)); }
};
using AlignedBuffer = std::unique_ptr<unsigned char[], AlignedFree>;
inline AlignedBuffer make_aligned_buffer(size_t n) {
  return AlignedBuffer(static_cast<unsigned char *>(::operator new[](n ? n : 1, std::align_val_t(kBlockAlign))));
}

/// Reverse the byte order of `count` scalars of `scalar_size` bytes (1, 2, 4, 8 or 16), in place.
void byteswap_scalars(void *data, size_t count, size_t scalar_size) noexcept;
/// Reverse the byte order of `nelem` elements of `dtype` in place (each part of a complex separately).
void byteswap_elements(void *data, int64_t nelem, DType dtype) noexcept;

/// Byte strides of a C-ordered (fortran=false) or F-ordered array of `shape`.
std::vector<int64_t> byte_strides(int ndim, const Index *shape, size_t itemsize, bool fortran);

/// Copy an N-d box of `extent` elements: element i of the box moves from src + sum(i[d]*src_strides[d]) to
/// dst + sum(i[d]*dst_strides[d]). Strides are in bytes and non-negative; the regions must not overlap.
void copy_strided(void *dst, const int64_t *dst_strides, const void *src, const int64_t *src_strides,
                  int ndim, const Index *extent, size_t itemsize) noexcept;

/// Copy a box between two C-contiguous arrays: dst[dst_off + i] = src[src_off + i] for i in [0, extent).
void copy_box(void *dst, const Index *dst_shape, const Index *dst_off, const void *src, const Index *src_shape,
              const Index *src_off, const Index *extent, int ndim, size_t itemsize);

/// Set `nelem` elements of `itemsize` bytes to the element at `value`.
void fill_elements(void *dst, int64_t nelem, const void *value, size_t itemsize) noexcept;

/// True if C and F order lay out an array of this shape identically (at most one extent above 1).
bool order_is_irrelevant(int ndim, const Index *shape) noexcept;

/// Parse a NumPy typestr of a supported dtype ("<f8", ">i4", "|b1", "c16"). `where` names the file in
/// messages. Throws CA_EFORMAT (not a typestr) or CA_EUNSUPPORTED (datetime, strings, float16, ...).
void parse_numpy_typestr(const std::string &s, const std::string &where, DType &dtype, bool &big_endian);

/// Product of the extents (1 for 0-d).
Index element_count(int ndim, const Index *shape) noexcept;

}  // namespace ca::io
