// Kernels of the shape operations (array/shape.cpp). Each works on one block and never allocates
// more than its output; ca.reshape shares its input's buffer (zero copy).
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "array/shape.hpp"
#include "array/vecmath.hpp"
#include "core/checked.hpp"
#include "kernel/adapter.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#define CA_TR_X86 1
#else
#define CA_TR_X86 0
#endif

namespace ca {

namespace {

template <size_t N>
void copy_run(char *dst, const char *src, int64_t n, int64_t sstride) {
  for (int64_t k = 0; k < n; ++k, dst += N, src += sstride) std::memcpy(dst, src, N);
}

// dst (rows x cols, C order) [i][j] = src + i * s0 + j * s1 with |s0| < |s1| (a transpose: s0 the
// element size, s1 a whole source row), in tiles of TI x TJ elements: each output row of a tile
// reads one element from each of TJ source rows, and the next TI - 1 output rows read their
// neighbours, so the TJ source cache lines stay in L1 until they are used up (TI covers a 64-byte
// line) and the writes stay sequential. Copying row by row instead touches a new source line (and,
// for rows a power of two apart, the same cache set) for every element: ~8x slower for 1024²
// float64 blocks on this machine (tiles of 16 x 8 measured best among 4..64 x 4..64).
template <size_t N>
void tiled_copy(char *dst, int64_t rows, int64_t cols, const char *src, int64_t s0, int64_t s1) {
  constexpr int64_t TI = std::max<int64_t>(16, 64 / int64_t(N)), TJ = 8;
  const int64_t drow = cols * int64_t(N);
  for (int64_t i0 = 0; i0 < rows; i0 += TI) {
    const int64_t i1 = std::min(rows, i0 + TI);
    for (int64_t j0 = 0; j0 < cols; j0 += TJ) {
      const int64_t j1 = std::min(cols, j0 + TJ);
      for (int64_t i = i0; i < i1; ++i) {
        const char *sp = src + i * s0 + j0 * s1;
        char *d = dst + i * drow + j0 * int64_t(N);
        for (int64_t j = j0; j < j1; ++j, sp += s1, d += N) std::memcpy(d, sp, N);
      }
    }
  }
}

#if CA_TR_X86
// Transposes in registers, for sources whose rows of the output are contiguous (s0 == element
// size): dst[i][j] = src[j * ss + i] (ss in elements, > 0), tiles of W x W elements loaded as W
// source rows and stored as W output rows, in groups of 32 x 32 so a group's source lines stay in
// L1/L2. Only whole tiles; the edges are left to tiled_copy. Out of cache, for 1000 x 1000 float64
// blocks, 8 x 8 AVX-512 tiles run ~3.4x faster than tiled_copy's element copies (0.65 vs 2.2 ms).
constexpr int64_t kTrGroup = 32;

// GCC 12 flags the intrinsics' own _mm512_undefined_pd() operands (a known false positive).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

__attribute__((target("avx512f"))) inline void tile8_f64_avx512(double *d, int64_t ds, const double *s, int64_t ss) {
  const __m512d r0 = _mm512_loadu_pd(s), r1 = _mm512_loadu_pd(s + ss), r2 = _mm512_loadu_pd(s + 2 * ss),
                r3 = _mm512_loadu_pd(s + 3 * ss), r4 = _mm512_loadu_pd(s + 4 * ss), r5 = _mm512_loadu_pd(s + 5 * ss),
                r6 = _mm512_loadu_pd(s + 6 * ss), r7 = _mm512_loadu_pd(s + 7 * ss);
  // Pairs of rows interleaved, then 128-bit lanes gathered twice (shuffle_f64x2): row m of the
  // result holds element m of each source row.
  const __m512d t0 = _mm512_unpacklo_pd(r0, r1), t1 = _mm512_unpackhi_pd(r0, r1), t2 = _mm512_unpacklo_pd(r2, r3),
                t3 = _mm512_unpackhi_pd(r2, r3), t4 = _mm512_unpacklo_pd(r4, r5), t5 = _mm512_unpackhi_pd(r4, r5),
                t6 = _mm512_unpacklo_pd(r6, r7), t7 = _mm512_unpackhi_pd(r6, r7);
  const __m512d u0 = _mm512_shuffle_f64x2(t0, t2, 0x88), u1 = _mm512_shuffle_f64x2(t1, t3, 0x88),
                u2 = _mm512_shuffle_f64x2(t0, t2, 0xdd), u3 = _mm512_shuffle_f64x2(t1, t3, 0xdd),
                u4 = _mm512_shuffle_f64x2(t4, t6, 0x88), u5 = _mm512_shuffle_f64x2(t5, t7, 0x88),
                u6 = _mm512_shuffle_f64x2(t4, t6, 0xdd), u7 = _mm512_shuffle_f64x2(t5, t7, 0xdd);
  _mm512_storeu_pd(d, _mm512_shuffle_f64x2(u0, u4, 0x88));
  _mm512_storeu_pd(d + ds, _mm512_shuffle_f64x2(u1, u5, 0x88));
  _mm512_storeu_pd(d + 2 * ds, _mm512_shuffle_f64x2(u2, u6, 0x88));
  _mm512_storeu_pd(d + 3 * ds, _mm512_shuffle_f64x2(u3, u7, 0x88));
  _mm512_storeu_pd(d + 4 * ds, _mm512_shuffle_f64x2(u0, u4, 0xdd));
  _mm512_storeu_pd(d + 5 * ds, _mm512_shuffle_f64x2(u1, u5, 0xdd));
  _mm512_storeu_pd(d + 6 * ds, _mm512_shuffle_f64x2(u2, u6, 0xdd));
  _mm512_storeu_pd(d + 7 * ds, _mm512_shuffle_f64x2(u3, u7, 0xdd));
}

__attribute__((target("avx2"))) inline void tile4_f64_avx2(double *d, int64_t ds, const double *s, int64_t ss) {
  const __m256d r0 = _mm256_loadu_pd(s), r1 = _mm256_loadu_pd(s + ss), r2 = _mm256_loadu_pd(s + 2 * ss),
                r3 = _mm256_loadu_pd(s + 3 * ss);
  const __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1), t2 = _mm256_unpacklo_pd(r2, r3),
                t3 = _mm256_unpackhi_pd(r2, r3);
  _mm256_storeu_pd(d, _mm256_permute2f128_pd(t0, t2, 0x20));
  _mm256_storeu_pd(d + ds, _mm256_permute2f128_pd(t1, t3, 0x20));
  _mm256_storeu_pd(d + 2 * ds, _mm256_permute2f128_pd(t0, t2, 0x31));
  _mm256_storeu_pd(d + 3 * ds, _mm256_permute2f128_pd(t1, t3, 0x31));
}

__attribute__((target("avx2"))) inline void tile8_f32_avx2(float *d, int64_t ds, const float *s, int64_t ss) {
  const __m256 r0 = _mm256_loadu_ps(s), r1 = _mm256_loadu_ps(s + ss), r2 = _mm256_loadu_ps(s + 2 * ss),
               r3 = _mm256_loadu_ps(s + 3 * ss), r4 = _mm256_loadu_ps(s + 4 * ss), r5 = _mm256_loadu_ps(s + 5 * ss),
               r6 = _mm256_loadu_ps(s + 6 * ss), r7 = _mm256_loadu_ps(s + 7 * ss);
  const __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1), t2 = _mm256_unpacklo_ps(r2, r3),
               t3 = _mm256_unpackhi_ps(r2, r3), t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5),
               t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
  const __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xee),
               u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xee),
               u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xee),
               u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xee);
  _mm256_storeu_ps(d, _mm256_permute2f128_ps(u0, u4, 0x20));
  _mm256_storeu_ps(d + ds, _mm256_permute2f128_ps(u1, u5, 0x20));
  _mm256_storeu_ps(d + 2 * ds, _mm256_permute2f128_ps(u2, u6, 0x20));
  _mm256_storeu_ps(d + 3 * ds, _mm256_permute2f128_ps(u3, u7, 0x20));
  _mm256_storeu_ps(d + 4 * ds, _mm256_permute2f128_ps(u0, u4, 0x31));
  _mm256_storeu_ps(d + 5 * ds, _mm256_permute2f128_ps(u1, u5, 0x31));
  _mm256_storeu_ps(d + 6 * ds, _mm256_permute2f128_ps(u2, u6, 0x31));
  _mm256_storeu_ps(d + 7 * ds, _mm256_permute2f128_ps(u3, u7, 0x31));
}

// The whole W x W tiles of dst (rows x cols) by Tile (the edges are the caller's).
template <int64_t W, class T, class Tile>
inline void simd_tiles(T *dst, int64_t rows, int64_t cols, const T *src, int64_t ss, Tile tile) {
  const int64_t rw = rows / W * W, cw = cols / W * W;
  for (int64_t i0 = 0; i0 < rw; i0 += kTrGroup)
    for (int64_t j0 = 0; j0 < cw; j0 += kTrGroup) {
      const int64_t i1 = std::min(rw, i0 + kTrGroup), j1 = std::min(cw, j0 + kTrGroup);
      for (int64_t i = i0; i < i1; i += W)
        for (int64_t j = j0; j < j1; j += W) tile(dst + i * cols + j, cols, src + j * ss + i, ss);
    }
}

__attribute__((target("avx512f"))) void tiles_f64_avx512(double *d, int64_t r, int64_t c, const double *s, int64_t ss) {
  simd_tiles<8>(d, r, c, s, ss, tile8_f64_avx512);
}
__attribute__((target("avx2"))) void tiles_f64_avx2(double *d, int64_t r, int64_t c, const double *s, int64_t ss) {
  simd_tiles<4>(d, r, c, s, ss, tile4_f64_avx2);
}
__attribute__((target("avx2"))) void tiles_f32_avx2(float *d, int64_t r, int64_t c, const float *s, int64_t ss) {
  simd_tiles<8>(d, r, c, s, ss, tile8_f32_avx2);
}
#pragma GCC diagnostic pop
#endif

// A 2-d transpose plane (tiled_copy's arguments) with the whole tiles done in registers where the
// CPU and the layout allow (4- and 8-byte elements, rows of the output contiguous in the source,
// CA_DISABLE_CPU_FEATURES respected); the edges and everything else by tiled_copy.
template <size_t N>
void transpose_plane(char *dst, int64_t rows, int64_t cols, const char *src, int64_t s0, int64_t s1) {
#if CA_TR_X86
  if constexpr (N == 4 || N == 8) {
    const vecmath::Level level = vecmath::active_level();
    const int64_t W = N == 8 && level == vecmath::Level::Avx512 ? 8 : 32 / int64_t(N);  // AVX2: 4 doubles, 8 floats
    if (level >= vecmath::Level::Avx2 && s0 == int64_t(N) && s1 > 0 && s1 % int64_t(N) == 0 && rows >= W &&
        cols >= W) {
      const int64_t ss = s1 / int64_t(N);
      if constexpr (N == 8) {
        if (W == 8) tiles_f64_avx512(reinterpret_cast<double *>(dst), rows, cols, reinterpret_cast<const double *>(src), ss);
        else tiles_f64_avx2(reinterpret_cast<double *>(dst), rows, cols, reinterpret_cast<const double *>(src), ss);
      } else {
        tiles_f32_avx2(reinterpret_cast<float *>(dst), rows, cols, reinterpret_cast<const float *>(src), ss);
      }
      // The edges: the last rows % W rows in full, then the last cols % W columns of the others.
      const int64_t rw = rows / W * W, cw = cols / W * W, drow = cols * int64_t(N);
      if (rw < rows) tiled_copy<N>(dst + rw * drow, rows - rw, cols, src + rw * s0, s0, s1);
      if (cw < cols)
        for (int64_t i = 0; i < rw; ++i)
          copy_run<N>(dst + i * drow + cw * int64_t(N), src + i * s0 + cw * s1, cols - cw, s1);
      return;
    }
  }
#endif
  tiled_copy<N>(dst, rows, cols, src, s0, s1);
}

/// dst (C order, shape oshape) [k] = src + sum(k_d * sstrides[d]) (byte strides, may be 0 or negative).
void strided_copy(char *dst, const int64_t *oshape, int32_t nd, const char *src, const int64_t *sstrides, size_t isz) {
  int64_t total = 1;
  for (int32_t d = 0; d < nd; ++d) total *= oshape[d];
  if (total == 0) return;
  if (nd == 0) {
    std::memcpy(dst, src, isz);
    return;
  }
  // The last two output axes read with the next-to-last one more contiguous in the source than the
  // last (a transpose, as ca.shape.transpose of x.T): copied in tiles, plane by plane.
  if (nd >= 2 && (isz == 1 || isz == 2 || isz == 4 || isz == 8 || isz == 16) && oshape[nd - 1] > 1 &&
      oshape[nd - 2] > 1 && std::llabs(sstrides[nd - 2]) < std::llabs(sstrides[nd - 1])) {
    const int64_t rows = oshape[nd - 2], cols = oshape[nd - 1], s0 = sstrides[nd - 2], s1 = sstrides[nd - 1];
    const int64_t planes = total / (rows * cols), plane = rows * cols * int64_t(isz);
    std::vector<int64_t> pos(size_t(nd), 0);
    for (int64_t p = 0; p < planes; ++p, dst += plane) {
      const char *s = src;
      for (int32_t d = 0; d < nd - 2; ++d) s += pos[size_t(d)] * sstrides[d];
      switch (isz) {
        case 1: transpose_plane<1>(dst, rows, cols, s, s0, s1); break;
        case 2: transpose_plane<2>(dst, rows, cols, s, s0, s1); break;
        case 4: transpose_plane<4>(dst, rows, cols, s, s0, s1); break;
        case 8: transpose_plane<8>(dst, rows, cols, s, s0, s1); break;
        default: transpose_plane<16>(dst, rows, cols, s, s0, s1); break;
      }
      for (int32_t d = nd - 3; d >= 0; --d) {
        if (++pos[size_t(d)] < oshape[d]) break;
        pos[size_t(d)] = 0;
      }
    }
    return;
  }
  int64_t inner = oshape[nd - 1], istride = sstrides[nd - 1];
  int64_t rows = total / inner;
  std::vector<int64_t> pos(size_t(nd), 0);
  const size_t run = size_t(inner) * isz;
  for (int64_t r = 0; r < rows; ++r) {
    const char *s = src;
    for (int32_t d = 0; d < nd - 1; ++d) s += pos[size_t(d)] * sstrides[d];
    if (istride == int64_t(isz)) {
      std::memcpy(dst, s, run);
    } else {
      switch (isz) {
        case 1: copy_run<1>(dst, s, inner, istride); break;
        case 2: copy_run<2>(dst, s, inner, istride); break;
        case 4: copy_run<4>(dst, s, inner, istride); break;
        case 8: copy_run<8>(dst, s, inner, istride); break;
        case 16: copy_run<16>(dst, s, inner, istride); break;
        default:
          for (int64_t k = 0; k < inner; ++k) std::memcpy(dst + k * int64_t(isz), s + k * istride, isz);
      }
    }
    dst += run;
    for (int32_t d = nd - 2; d >= 0; --d) {
      if (++pos[size_t(d)] < oshape[d]) break;
      pos[size_t(d)] = 0;
    }
  }
}

std::vector<int64_t> c_strides(const Block *b) {
  std::vector<int64_t> st(static_cast<size_t>(b->ndim));
  int64_t acc = int64_t(dtype_size(b->dtype));
  for (int32_t d = b->ndim - 1; d >= 0; --d) {
    st[size_t(d)] = acc;
    acc *= b->shape[d];
  }
  return st;
}

void release_block_cb(void *p) { block_release(static_cast<const Block *>(p)); }

// ca.reshape(block, shape): the same elements in C order with a new shape, sharing the buffer.
Block *k_reshape(const KernelArgs &A) {
  CA_CHECK(A.size() == 2, CA_EINVAL, "takes (block, shape)");
  const Block *b = A.block(0);
  const std::span<const int64_t> t = A.tuple(1);
  CA_CHECK(t.size() <= CA_MAX_NDIM, CA_EINVAL, "shape has ", t.size(), " dimensions");
  std::vector<int64_t> shape(t.data(), t.data() + t.size());
  // Unknown extents (CA_CHUNK_UNKNOWN, a block of x[mask] under expand_dims/squeeze): the block's
  // extents other than 1, in order, fill the shape's entries other than 1.
  if (std::find(shape.begin(), shape.end(), int64_t(-1)) != shape.end()) {
    std::vector<int64_t> have;
    std::vector<size_t> want;
    for (int32_t d = 0; d < b->ndim; ++d)
      if (b->shape[d] != 1) have.push_back(b->shape[d]);
    for (size_t d = 0; d < shape.size(); ++d)
      if (shape[d] != 1) want.push_back(d);
    const auto nunknown = std::count(shape.begin(), shape.end(), int64_t(-1));
    if (have.size() == want.size()) {
      for (size_t k = 0; k < want.size(); ++k)
        if (shape[want[k]] == -1) shape[want[k]] = have[k];
    } else if (nunknown == 1) {  // the one unknown extent from the block's size
      int64_t known = 1;
      for (int64_t e : shape)
        if (e != -1) known = checked_mul(known, e, "reshape extent");
      for (auto &e : shape)
        if (e == -1) e = known ? b->size / known : 0;
    } else {  // unknown extents of 1: the block's other extents are the known ones
      for (auto &e : shape)
        if (e == -1) e = 1;
    }
  }
  for (size_t d = 0; d < shape.size(); ++d) CA_CHECK(shape[d] >= 0, CA_EINVAL, "negative extent in shape");
  const int64_t n = shape_size(shape);
  CA_CHECK(n == b->size, CA_EINVAL, "cannot reshape a block of ", b->size, " elements into ", n);
  if (b->size == 0) return block_new(b->dtype, int32_t(shape.size()), shape.data());
  block_retain(b);
  return block_wrap(b->dtype, int32_t(shape.size()), shape.data(), b->data, release_block_cb,
                    const_cast<Block *>(b));
}

// ca.transpose(block, axes): np.transpose(block, axes).
Block *k_transpose(const KernelArgs &A) {
  CA_CHECK(A.size() == 2, CA_EINVAL, "takes (block, axes)");
  const Block *b = A.block(0);
  const std::span<const int64_t> t = A.tuple(1);
  int32_t nd = b->ndim;
  CA_CHECK(int64_t(t.size()) == nd, CA_EINVAL, "axes have ", t.size(), " entries for a block of ", nd,
           " dimensions");
  std::vector<int64_t> st = c_strides(b), oshape(static_cast<size_t>(nd)), ost(static_cast<size_t>(nd));
  std::vector<bool> seen(size_t(nd), false);
  for (int32_t d = 0; d < nd; ++d) {
    int64_t ax = t.data()[d];
    CA_CHECK(ax >= 0 && ax < nd && !seen[size_t(ax)], CA_EINVAL, "axes are not a permutation");
    seen[size_t(ax)] = true;
    oshape[size_t(d)] = b->shape[ax];
    ost[size_t(d)] = st[size_t(ax)];
  }
  BlockRef r(block_new(b->dtype, nd, oshape.data()));
  strided_copy(static_cast<char *>(r->data), oshape.data(), nd, static_cast<const char *>(b->data), ost.data(),
               dtype_size(b->dtype));
  return r.release();
}

// ca.broadcast(block, shape): np.broadcast_to(block, shape) (a copy).
Block *k_broadcast(const KernelArgs &A) {
  CA_CHECK(A.size() == 2, CA_EINVAL, "takes (block, shape)");
  const Block *b = A.block(0);
  const std::span<const int64_t> t = A.tuple(1);
  int32_t nd = int32_t(t.size()), lead = nd - b->ndim;
  CA_CHECK(lead >= 0 && nd <= CA_MAX_NDIM, CA_EINVAL, "cannot broadcast a block of ", b->ndim, " dimensions to ", nd);
  std::vector<int64_t> st = c_strides(b), ost(size_t(nd), 0);
  const int64_t *oshape = t.data();
  for (int32_t d = lead; d < nd; ++d) {
    int64_t e = b->shape[d - lead];
    CA_CHECK(e == oshape[d] || e == 1, CA_EINVAL, "cannot broadcast extent ", e, " to ", oshape[d], " along axis ", d);
    ost[size_t(d)] = e == 1 ? 0 : st[size_t(d - lead)];
  }
  BlockRef r(block_new(b->dtype, nd, oshape));
  strided_copy(static_cast<char *>(r->data), oshape, nd, static_cast<const char *>(b->data), ost.data(),
               dtype_size(b->dtype));
  return r.release();
}

// ca.strided(block, (start0, step0, count0, start1, ...)): out[k] = block[start + k * step] per axis
// (step -1 reverses, 0 repeats one element).
Block *k_strided(const KernelArgs &A) {
  CA_CHECK(A.size() == 2, CA_EINVAL, "takes (block, geometry)");
  const Block *b = A.block(0);
  const std::span<const int64_t> t = A.tuple(1);
  int32_t nd = b->ndim;
  CA_CHECK(int64_t(t.size()) == 3 * int64_t(nd), CA_EINVAL, "geometry has ", t.size(),
           " entries for a block of ", nd, " dimensions");
  std::vector<int64_t> st = c_strides(b), oshape(static_cast<size_t>(nd)), ost(static_cast<size_t>(nd));
  const char *base = static_cast<const char *>(b->data);
  const int64_t *g = t.data();
  bool empty = false;
  for (int32_t d = 0; d < nd; ++d) {
    int64_t start = g[3 * d], step = g[3 * d + 1], count = g[3 * d + 2];
    CA_CHECK(count >= 0, CA_EINVAL, "negative count along axis ", d);
    if (count == 0) empty = true;
    oshape[size_t(d)] = count;
    ost[size_t(d)] = 0;
    if (count > 0) {
      // Checked: the geometry comes from a task's arguments (a graph file's).
      int64_t span = 0, last = 0;
      CA_CHECK(!__builtin_mul_overflow(count - 1, step, &span) && !__builtin_add_overflow(start, span, &last) &&
                   start >= 0 && start < b->shape[d] && last >= 0 && last < b->shape[d],
               CA_EINVAL, "geometry is out of bounds along axis ", d, " (extent ", b->shape[d], ")");
      // |step| * (count - 1) < extent, so the byte stride is within the block.
      if (count > 1) ost[size_t(d)] = step * st[size_t(d)];
    }
  }
  BlockRef r(block_new(b->dtype, nd, oshape.data()));
  if (!empty) {
    for (int32_t d = 0; d < nd; ++d) base += g[3 * d] * st[size_t(d)];
    strided_copy(static_cast<char *>(r->data), oshape.data(), nd, base, ost.data(), dtype_size(b->dtype));
  }
  return r.release();
}

// ca.fill(shape, dtype, value bytes): a block of one repeated element.
Block *k_fill(const KernelArgs &A) {
  CA_CHECK(A.size() == 3, CA_EINVAL, "takes (shape, dtype, value)");
  const std::span<const int64_t> t = A.tuple(0);
  DType dt = DType(A.int64(1));
  CA_CHECK(dtype_valid(dt), CA_ETYPE, "invalid dtype ", dt);
  CA_CHECK(A[2].kind == CA_ARG_BYTES && A[2].u.bytes.len == dtype_size(dt), CA_EINVAL,
           "value must be the bytes of one element");
  CA_CHECK(t.size() <= CA_MAX_NDIM, CA_EINVAL, "shape has too many dimensions");
  BlockRef r(block_new(dt, int32_t(t.size()), t.data()));
  size_t isz = dtype_size(dt);
  char *p = static_cast<char *>(r->data);
  for (int64_t i = 0; i < r->size; ++i, p += isz) std::memcpy(p, A[2].u.bytes.data, isz);
  return r.release();
}

// ca.repeat(block, axis, start, stop, repeats): np.repeat(block[start:stop along axis], repeats, axis).
Block *k_repeat(const KernelArgs &A) {
  CA_CHECK(A.size() == 5, CA_EINVAL, "takes (block, axis, start, stop, repeats)");
  const Block *b = A.block(0);
  int64_t axis = A.int64(1), start = A.int64(2), stop = A.int64(3),
          rep = A.int64(4);
  CA_CHECK(axis >= 0 && axis < b->ndim, CA_EINVAL, "axis ", axis, " is out of range");
  CA_CHECK(start >= 0 && start <= stop && stop <= b->shape[axis] && rep >= 0, CA_EINVAL, "bad range or repeats");
  std::vector<int64_t> oshape(b->shape, b->shape + b->ndim);
  oshape[size_t(axis)] = checked_mul(stop - start, rep, "ca.repeat: the repeated extent");
  BlockRef r(block_new(b->dtype, b->ndim, oshape.data()));
  if (r->size == 0) return r.release();
  size_t isz = dtype_size(b->dtype);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= b->shape[d];
  for (int32_t d = int32_t(axis) + 1; d < b->ndim; ++d) inner *= b->shape[d];
  size_t row = size_t(inner) * isz;
  const char *src = static_cast<const char *>(b->data);
  char *dst = static_cast<char *>(r->data);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k = start; k < stop; ++k) {
      const char *s = src + (o * b->shape[axis] + k) * int64_t(row);
      for (int64_t q = 0; q < rep; ++q, dst += row) std::memcpy(dst, s, row);
    }
  return r.release();
}

}  // namespace

void register_shape_kernels(KernelRegistry &reg) {
  register_builtin<k_reshape>(reg, "ca.shape.reshape");
  register_builtin<k_transpose>(reg, "ca.shape.transpose");
  register_builtin<k_broadcast>(reg, "ca.shape.broadcast");
  register_builtin<k_strided>(reg, "ca.shape.strided");
  register_builtin<k_fill>(reg, "ca.shape.fill");
  register_builtin<k_repeat>(reg, "ca.shape.repeat");
}

}  // namespace ca
