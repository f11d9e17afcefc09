// Kernels of array/overlap.cpp: ca.overlap_block (build an extended block from its neighbours and the
// boundary conditions) and ca.overlap_trim (cut the overlap off again).
#include <cmath>
#include <cstring>
#include <vector>

#include "array/expr.hpp"
#include "array/overlap.hpp"
#include "kernel/adapter.hpp"

namespace ca {

namespace {

// The fill value of a constant boundary as one element of dtype `dt` (NumPy's np.full casting;
// non-finite values become 0 for integer dtypes instead of undefined behaviour).
void constant_bytes(DType dt, double v, unsigned char *dst) {
  ScalarValue sv;
  sv.dtype = CA_FLOAT64, sv.kind = 'f', sv.re = v;
  store_scalar(sv, dt, dst, false);
}

// Where output coordinate p along one axis reads from: the neighbour (0, 1, 2 for offsets -1, 0, +1)
// and the coordinate inside it, or a constant.
struct AxisMap {
  std::vector<int8_t> nb;    // -1: constant
  std::vector<int64_t> src;  // coordinate in the neighbour block
};

// ca.overlap_block([neighbours...], geometry, constants): see OverlapLayer::emit.
ca_status_t k_overlap_block(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return kernel_boundary(out, kctx, [&] {
    CA_CHECK(nargs == 3 && args[0].kind == CA_ARG_LIST && args[1].kind == CA_ARG_TUPLE && args[2].kind == CA_ARG_BYTES,
             CA_EINVAL, "ca.overlap_block takes ([neighbour blocks], geometry, constants)");
    const ca_arg_t *items = args[0].u.list.items;
    size_t nitems = args[0].u.list.len;
    const int64_t *geom = args[1].u.tuple.items;
    CA_CHECK(args[1].u.tuple.len % OverlapGeom::kPerDim == 0, CA_EINVAL, "ca.overlap_block: bad geometry");
    int32_t nd = int32_t(args[1].u.tuple.len / OverlapGeom::kPerDim);
    CA_CHECK(args[2].u.bytes.len == size_t(nd) * sizeof(double), CA_EINVAL, "ca.overlap_block: bad constants");
    std::vector<double> consts(static_cast<size_t>(nd));
    if (nd) std::memcpy(consts.data(), args[2].u.bytes.data, size_t(nd) * sizeof(double));
    // List strides over the active axes.
    std::vector<int64_t> lstride(size_t(nd), 0);
    int64_t acc = 1;
    for (int32_t d = nd - 1; d >= 0; --d)
      if (geom[OverlapGeom::kPerDim * d]) {
        lstride[size_t(d)] = acc;
        acc *= 3;
      }
    CA_CHECK(size_t(acc) == nitems, CA_EINVAL, "ca.overlap_block: ", nitems, " neighbours for ", acc, " slots");
    int64_t center = 0;
    for (int32_t d = 0; d < nd; ++d) center += lstride[size_t(d)];
    auto block_at = [&](int64_t slot) -> const Block * {
      const ca_arg_t &a = items[slot];
      return a.kind == CA_ARG_BLOCK ? a.u.block : nullptr;
    };
    const Block *c = block_at(center);
    CA_CHECK(c, CA_EINVAL, "ca.overlap_block: the centre block is missing");
    CA_CHECK(c->ndim == nd, CA_EINVAL, "ca.overlap_block: a block has ", c->ndim, " dimensions, expected ", nd);
    DType dt = c->dtype;
    size_t isz = dtype_size(dt);
    // Per-axis maps.
    std::vector<AxisMap> maps(static_cast<size_t>(nd));
    std::vector<int64_t> oshape(static_cast<size_t>(nd));
    for (int32_t d = 0; d < nd; ++d) {
      const int64_t *g = geom + OverlapGeom::kPerDim * d;
      int64_t lo = g[1], hi = g[2], ext = c->shape[d];
      int32_t lm = int32_t(g[3]), rm = int32_t(g[4]);
      // From a task's arguments (a graph file's): overlap() keeps every depth within every block.
      CA_CHECK(lo >= 0 && hi >= 0 && lo <= ext && hi <= ext, CA_EINVAL, "ca.overlap_block: depth (", lo, ", ", hi,
               ") along axis ", d, " is negative or larger than the block's extent ", ext);
      int64_t e = lo + ext + hi;
      oshape[size_t(d)] = e;
      AxisMap &m = maps[size_t(d)];
      m.nb.assign(size_t(e), 1);
      m.src.assign(size_t(e), 0);
      int64_t left_ext = 0;
      if (lo > 0 && lm == OverlapGeom::kNeighbour) {
        const Block *l = block_at(center - lstride[size_t(d)]);
        CA_CHECK(l && l->ndim == nd && l->dtype == dt, CA_EINVAL, "ca.overlap_block: left neighbour along axis ", d,
                 " is missing or differs in dtype");
        left_ext = l->shape[d];
        CA_CHECK(left_ext >= lo, CA_EINVAL, "ca.overlap_block: neighbour of extent ", left_ext, " along axis ", d,
                 " is smaller than the depth ", lo);
      }
      if (hi > 0 && rm == OverlapGeom::kNeighbour) {
        const Block *r = block_at(center + lstride[size_t(d)]);
        CA_CHECK(r && r->ndim == nd && r->dtype == dt, CA_EINVAL, "ca.overlap_block: right neighbour along axis ", d,
                 " is missing or differs in dtype");
        CA_CHECK(r->shape[d] >= hi, CA_EINVAL, "ca.overlap_block: neighbour of extent ", r->shape[d], " along axis ",
                 d, " is smaller than the depth ", hi);
      }
      if ((lo > 0 && (lm == OverlapGeom::kReflect)) || (hi > 0 && rm == OverlapGeom::kReflect))
        CA_CHECK(ext >= std::max(lo, hi), CA_EINVAL, "ca.overlap_block: block of extent ", ext, " along axis ", d,
                 " cannot reflect a depth of ", std::max(lo, hi));
      if ((lo > 0 && lm == OverlapGeom::kNearest) || (hi > 0 && rm == OverlapGeom::kNearest))
        CA_CHECK(ext >= 1, CA_EINVAL, "ca.overlap_block: empty block along axis ", d, " has no nearest value");
      for (int64_t p = 0; p < lo; ++p) {
        int64_t q = p - lo;  // -lo .. -1
        switch (lm) {
          case OverlapGeom::kNeighbour: m.nb[size_t(p)] = 0; m.src[size_t(p)] = left_ext + q; break;
          case OverlapGeom::kReflect: m.src[size_t(p)] = -q - 1; break;
          case OverlapGeom::kNearest: m.src[size_t(p)] = 0; break;
          default: m.nb[size_t(p)] = -1; break;
        }
      }
      for (int64_t p = 0; p < ext; ++p) m.src[size_t(lo + p)] = p;
      for (int64_t q = 0; q < hi; ++q) {
        size_t p = size_t(lo + ext + q);
        switch (rm) {
          case OverlapGeom::kNeighbour: m.nb[p] = 2; m.src[p] = q; break;
          case OverlapGeom::kReflect: m.src[p] = ext - 1 - q; break;
          case OverlapGeom::kNearest: m.src[p] = ext - 1; break;
          default: m.nb[p] = -1; break;
        }
      }
    }
    BlockRef res(block_new(dt, nd, oshape.data()));
    if (res->size == 0) {
      *out = res.release();
      return;
    }
    std::vector<unsigned char> cbytes(size_t(nd) * isz + 1);
    for (int32_t d = 0; d < nd; ++d) constant_bytes(dt, consts[size_t(d)], cbytes.data() + size_t(d) * isz);
    if (nd == 0) {
      std::memcpy(res->data, c->data, isz);
      *out = res.release();
      return;
    }
    // Element strides (in bytes) of every neighbour block.
    std::vector<std::vector<int64_t>> bstride(nitems);
    for (size_t s = 0; s < nitems; ++s) {
      const Block *b = block_at(int64_t(s));
      if (!b) continue;
      CA_CHECK(b->ndim == nd && b->dtype == dt, CA_EINVAL, "ca.overlap_block: neighbour blocks differ in dtype or dimensions");
      bstride[s].resize(static_cast<size_t>(nd));
      int64_t st = int64_t(isz);
      for (int32_t d = nd - 1; d >= 0; --d) {
        bstride[s][size_t(d)] = st;
        st *= b->shape[d];
      }
    }
    // Runs along the last axis: consecutive positions from the same neighbour with consecutive sources.
    struct Run {
      int64_t start, len;
      int8_t nb;
      int64_t src;
      int64_t step;  // +1 contiguous, else element by element with this step
    };
    std::vector<Run> runs;
    {
      const AxisMap &m = maps[size_t(nd - 1)];
      int64_t e = oshape[size_t(nd - 1)];
      for (int64_t p = 0; p < e;) {
        Run r{p, 1, m.nb[size_t(p)], m.src[size_t(p)], 0};
        if (p + 1 < e && m.nb[size_t(p + 1)] == r.nb) r.step = m.src[size_t(p + 1)] - r.src;
        while (p + r.len < e && m.nb[size_t(p + r.len)] == r.nb &&
               (r.nb < 0 || m.src[size_t(p + r.len)] == r.src + r.len * r.step))
          ++r.len;
        if (r.len == 1) r.step = 1;
        runs.push_back(r);
        p += r.len;
      }
    }
    unsigned char *dst = static_cast<unsigned char *>(res->data);
    int64_t inner = oshape[size_t(nd - 1)];
    int64_t rows = res->size / inner;
    std::vector<int64_t> pos(size_t(nd), 0);
    for (int64_t row = 0; row < rows; ++row) {
      // Prefix axes: the neighbour slot, the byte offset per slot is computed per run.
      int64_t slot = 0;
      int32_t const_dim = -1;
      for (int32_t d = 0; d < nd - 1; ++d) {
        int8_t nb = maps[size_t(d)].nb[size_t(pos[size_t(d)])];
        if (nb < 0) const_dim = d;
        else slot += int64_t(nb) * lstride[size_t(d)];
      }
      unsigned char *o = dst + row * inner * int64_t(isz);
      for (const Run &r : runs) {
        unsigned char *ro = o + r.start * int64_t(isz);
        int32_t cd = r.nb < 0 ? nd - 1 : const_dim;
        if (cd >= 0) {
          const unsigned char *v = cbytes.data() + size_t(cd) * isz;
          for (int64_t k = 0; k < r.len; ++k) std::memcpy(ro + k * int64_t(isz), v, isz);
          continue;
        }
        int64_t li = slot + int64_t(r.nb) * lstride[size_t(nd - 1)];  // list index of the neighbour
        const Block *b = block_at(li);
        CA_CHECK(b, CA_EINTERNAL, "ca.overlap_block: a needed neighbour is missing");
        const std::vector<int64_t> &bs = bstride[size_t(li)];
        const unsigned char *src = static_cast<const unsigned char *>(b->data);
        for (int32_t d = 0; d < nd - 1; ++d) src += maps[size_t(d)].src[size_t(pos[size_t(d)])] * bs[size_t(d)];
        src += r.src * int64_t(isz);
        if (r.step == 1) {
          std::memcpy(ro, src, size_t(r.len) * isz);
        } else {
          for (int64_t k = 0; k < r.len; ++k) std::memcpy(ro + k * int64_t(isz), src + k * r.step * int64_t(isz), isz);
        }
      }
      for (int32_t d = nd - 2; d >= 0; --d) {
        if (++pos[size_t(d)] < oshape[size_t(d)]) break;
        pos[size_t(d)] = 0;
      }
    }
    *out = res.release();
  });
}

// ca.overlap_trim(block, block_index, geometry): geometry per axis (lo, hi, numblocks, none).
ca_status_t k_overlap_trim(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return kernel_boundary(out, kctx, [&] {
    CA_CHECK(nargs == 3 && args[0].kind == CA_ARG_BLOCK && args[1].kind == CA_ARG_TUPLE && args[2].kind == CA_ARG_TUPLE,
             CA_EINVAL, "ca.overlap_trim takes (block, block index, geometry)");
    const Block *b = args[0].u.block;
    int32_t nd = b->ndim;
    CA_CHECK(args[1].u.tuple.len == size_t(nd) && args[2].u.tuple.len == size_t(4 * nd), CA_EINVAL,
             "ca.overlap_trim: geometry does not match the block's ", nd, " dimensions");
    const int64_t *idx = args[1].u.tuple.items, *g = args[2].u.tuple.items;
    std::vector<int64_t> start(static_cast<size_t>(nd)), len(static_cast<size_t>(nd));
    for (int32_t d = 0; d < nd; ++d) {
      int64_t lo = g[4 * d], hi = g[4 * d + 1], n = g[4 * d + 2];
      bool none = g[4 * d + 3] != 0;
      CA_CHECK(lo >= 0 && hi >= 0, CA_EINVAL, "ca.overlap_trim: negative depth (", lo, ", ", hi, ") along axis ", d);
      int64_t front = (idx[d] == 0 && none) ? 0 : lo;
      int64_t back = (n >= 1 && idx[d] == n - 1 && none) ? 0 : hi;
      CA_CHECK(front <= b->shape[d] && back <= b->shape[d] - front, CA_EINVAL, "ca.overlap_trim: block of extent ",
               b->shape[d], " along axis ", d, " is shorter than the trimmed ", front, " + ", back);
      len[size_t(d)] = b->shape[d] - front - back;
      start[size_t(d)] = front;
    }
    BlockRef res(block_new(b->dtype, nd, len.data()));
    size_t isz = dtype_size(b->dtype);
    if (res->size > 0) {
      if (nd == 0) {
        std::memcpy(res->data, b->data, isz);
      } else {
        std::vector<int64_t> st(static_cast<size_t>(nd));
        int64_t a = int64_t(isz);
        for (int32_t d = nd - 1; d >= 0; --d) {
          st[size_t(d)] = a;
          a *= b->shape[d];
        }
        int64_t inner = len[size_t(nd - 1)];
        int64_t rows = res->size / inner;
        std::vector<int64_t> pos(size_t(nd), 0);
        unsigned char *o = static_cast<unsigned char *>(res->data);
        for (int64_t r = 0; r < rows; ++r) {
          const unsigned char *s = static_cast<const unsigned char *>(b->data);
          for (int32_t d = 0; d < nd; ++d) s += (start[size_t(d)] + pos[size_t(d)]) * st[size_t(d)];
          std::memcpy(o, s, size_t(inner) * isz);
          o += inner * int64_t(isz);
          for (int32_t d = nd - 2; d >= 0; --d) {
            if (++pos[size_t(d)] < len[size_t(d)]) break;
            pos[size_t(d)] = 0;
          }
        }
      }
    }
    *out = res.release();
  });
}

// ca.sliding_window(block, window_shape, axes): NumPy's sliding_window_view of one overlapped block,
// copied out (a block owns its data): output (i..., j...) = block[i + sum of j_k over axes[k] == d].
ca_status_t k_sliding_window(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return kernel_boundary(out, kctx, [&] {
    CA_CHECK(nargs == 3 && args[0].kind == CA_ARG_BLOCK && args[1].kind == CA_ARG_TUPLE && args[2].kind == CA_ARG_TUPLE &&
                 args[1].u.tuple.len == args[2].u.tuple.len,
             CA_EINVAL, "ca.sliding_window takes (block, window shape, axes)");
    const Block *b = args[0].u.block;
    const int32_t nd = b->ndim;
    const size_t k = args[1].u.tuple.len;
    const int64_t *w = args[1].u.tuple.items, *ax = args[2].u.tuple.items;
    std::vector<int64_t> oshape(b->shape, b->shape + nd);
    const size_t isz = dtype_size(b->dtype);
    std::vector<int64_t> st(size_t(nd) + k);
    int64_t acc = int64_t(isz);
    for (int32_t d = nd - 1; d >= 0; --d) {
      st[size_t(d)] = acc;
      acc *= b->shape[d];
    }
    for (size_t j = 0; j < k; ++j) {
      CA_CHECK(ax[j] >= 0 && ax[j] < nd && w[j] >= 1, CA_EINVAL, "ca.sliding_window: bad window ", w[j], " on axis ",
               ax[j]);
      oshape[size_t(ax[j])] -= w[j] - 1;
      CA_CHECK(oshape[size_t(ax[j])] >= 0, CA_EINVAL, "ca.sliding_window: block of extent ", b->shape[ax[j]],
               " along axis ", ax[j], " is shorter than the window");
      oshape.push_back(w[j]);
      st[size_t(nd) + j] = st[size_t(ax[j])];
    }
    const int32_t ond = int32_t(oshape.size());
    BlockRef res(block_new(b->dtype, ond, oshape.data()));
    if (res->size > 0) {
      std::vector<int64_t> pos(size_t(ond), 0);
      unsigned char *o = static_cast<unsigned char *>(res->data);
      const unsigned char *base = static_cast<const unsigned char *>(b->data);
      const int64_t inner = oshape[size_t(ond - 1)], inner_st = st[size_t(ond - 1)];
      const int64_t rows = res->size / inner;
      for (int64_t r = 0; r < rows; ++r) {
        const unsigned char *s = base;
        for (int32_t d = 0; d < ond - 1; ++d) s += pos[size_t(d)] * st[size_t(d)];
        for (int64_t i = 0; i < inner; ++i, o += isz) std::memcpy(o, s + i * inner_st, isz);
        for (int32_t d = ond - 2; d >= 0; --d) {
          if (++pos[size_t(d)] < oshape[size_t(d)]) break;
          pos[size_t(d)] = 0;
        }
      }
    }
    *out = res.release();
  });
}

}  // namespace

void register_overlap_kernels(KernelRegistry &reg) {
  reg.add(kernel_new("ca.overlap_block", k_overlap_block, 1, nullptr, nullptr), true);
  reg.add(kernel_new("ca.overlap_trim", k_overlap_trim, 1, nullptr, nullptr), true);
  reg.add(kernel_new("ca.sliding_window", k_sliding_window, 1, nullptr, nullptr), true);
}

}  // namespace ca
