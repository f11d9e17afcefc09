// Kernels of the indexing operations (array/slicing.hpp). Every kernel copies from C-contiguous
// blocks into a new C-contiguous block; nothing is modified in place (setitem copies the block).
//
//   ca.getitem(block, spec)                 spec = (nd, (start, step, count) * nd, nnew, newpos...):
//                                           count -1 = an integer index (axis dropped), -2 = the
//                                           whole axis, newpos =
//                                           output positions of new axes of extent 1
//   ca.take(block, axis, indices)           gather along one axis (local indices)
//   ca.take_dyn(index block, axis, bounds, [blocks along the axis])  gather with computed indices
//   ca.mask_select(block, mask)             elements where mask (same shape) is true, 1-d, C order
//   ca.mask_axis(block, mask, axis)         positions along `axis` where the 1-d mask is true
//   ca.block_shape(block)                   int64 block (ndim,) holding the block's shape
//   ca.vindex_slice(block, axes, coords)    points (m x len(axes) local coordinates): (m,) + others
//   ca.vindex_merge(out_shape, dtype, [positions, block, ...])  rows of pieces to their positions
//   ca.setitem(block, spec, value[, list])  copy of the block with the region (start, step, count
//                                           per axis, count -1 = integer, -3 = the list axis: list =
//                                           (axis, n, local positions..., value box offsets...)) set
//                                           from `value`: a
//                                           scalar (BYTES of the block's itemsize) or a box shape
//                                           tuple plus [value block, (src..., dst..., len...), ...]
//                                           pieces assembling the value box, broadcast on scatter
#include <algorithm>
#include <cstring>
#include <new>
#include <type_traits>
#include <vector>

#include "array/slicing.hpp"
#include "kernel/adapter.hpp"

namespace ca {
namespace {

const Block *block_arg(const ca_arg_t &a, const char *kernel, const char *what) {
  CA_CHECK(a.kind == CA_ARG_BLOCK && a.u.block, CA_EINVAL, kernel, ": ", what, " is not a block");
  return a.u.block;
}

std::vector<Index> tuple_arg(const ca_arg_t &a, const char *kernel, const char *what) {
  CA_CHECK(a.kind == CA_ARG_TUPLE, CA_EINVAL, kernel, ": ", what, " is not a tuple");
  return std::vector<Index>(a.u.tuple.items, a.u.tuple.items + a.u.tuple.len);
}

std::vector<int64_t> c_strides(const int64_t *shape, int32_t nd, size_t isz) {
  std::vector<int64_t> st(size_t(nd) + 1);
  int64_t acc = int64_t(isz);
  for (int32_t d = nd - 1; d >= 0; --d) {
    st[size_t(d)] = acc;
    acc *= shape[d];
  }
  return st;
}

template <size_t N>
void copy_run(char *dst, int64_t dst_st, const char *src, int64_t src_st, Index n) {
  for (Index k = 0; k < n; ++k, dst += dst_st, src += src_st) std::memcpy(dst, src, N);
}

/// dst[i...] = src[i...] over `shape` with byte strides (any sign, 0 = broadcast).
void strided_copy(char *dst, const int64_t *dst_st, const char *src, const int64_t *src_st, const Index *shape,
                  int32_t nd, size_t isz) {
  for (int32_t d = 0; d < nd; ++d)
    if (shape[d] <= 0) return;
  if (nd == 0) {
    std::memcpy(dst, src, isz);
    return;
  }
  const Index inner = shape[nd - 1];
  const int64_t ds = dst_st[nd - 1], ss = src_st[nd - 1];
  std::vector<Index> pos(size_t(nd), 0);
  Index rows = 1;
  for (int32_t d = 0; d < nd - 1; ++d) rows *= shape[d];
  for (Index r = 0; r < rows; ++r) {
    char *o = dst;
    const char *s = src;
    for (int32_t d = 0; d < nd - 1; ++d) {
      o += pos[size_t(d)] * dst_st[d];
      s += pos[size_t(d)] * src_st[d];
    }
    if (ds == int64_t(isz) && ss == int64_t(isz)) {
      std::memcpy(o, s, size_t(inner) * isz);
    } else {
      switch (isz) {
        case 1: copy_run<1>(o, ds, s, ss, inner); break;
        case 2: copy_run<2>(o, ds, s, ss, inner); break;
        case 4: copy_run<4>(o, ds, s, ss, inner); break;
        case 8: copy_run<8>(o, ds, s, ss, inner); break;
        case 16: copy_run<16>(o, ds, s, ss, inner); break;
        default:
          for (Index k = 0; k < inner; ++k) std::memcpy(o + k * ds, s + k * ss, isz);
      }
    }
    for (int32_t d = nd - 2; d >= 0; --d) {
      if (++pos[size_t(d)] < shape[d]) break;
      pos[size_t(d)] = 0;
    }
  }
}

struct AxisSel {
  Index start, step, count;  // count -1: integer index `start`
};

std::vector<AxisSel> parse_sel(const std::vector<Index> &spec, size_t &pos, const Block *b, const char *kernel) {
  CA_CHECK(!spec.empty(), CA_EINVAL, kernel, ": empty spec");
  Index nd = spec[0];
  CA_CHECK(nd == b->ndim && spec.size() >= size_t(1 + 3 * nd), CA_EINVAL, kernel, ": spec for ", nd,
           " dimensions, the block has ", b->ndim);
  std::vector<AxisSel> sel(static_cast<size_t>(nd));
  for (Index d = 0; d < nd; ++d) {
    AxisSel s{spec[size_t(1 + 3 * d)], spec[size_t(2 + 3 * d)], spec[size_t(3 + 3 * d)]};
    Index ext = b->shape[d];
    if (s.count == -2) s = AxisSel{0, 1, ext};  // the whole axis (its extent may be unknown at graph time)
    if (s.count == -3) {                        // an integer list (ca.setitem's list argument)
      sel[size_t(d)] = s;
      continue;
    }
    if (s.count < 0) {
      CA_CHECK(s.start >= 0 && s.start < ext, CA_EINVAL, kernel, ": index ", s.start, " is out of bounds for a block of ",
               ext, " along axis ", d);
    } else if (s.count > 0) {
      Index span = 0, last = 0;  // checked: the spec comes from a task's arguments (a graph file's)
      const bool fits = !__builtin_mul_overflow(s.count - 1, s.step, &span) && !__builtin_add_overflow(s.start, span, &last);
      CA_CHECK(fits && s.step != 0 && s.start >= 0 && s.start < ext && last >= 0 && last < ext, CA_EINVAL, kernel,
               ": selection out of bounds for a block of ", ext, " along axis ", d);
    }
    sel[size_t(d)] = s;
  }
  pos = size_t(1 + 3 * nd);
  return sel;
}

ca_status_t k_getitem(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return kernel_boundary(out, kctx, [&] {
    const char *K = "ca.getitem";
    CA_CHECK(nargs == 2, CA_EINVAL, K, " takes (block, spec)");
    const Block *b = block_arg(args[0], K, "argument 0");
    std::vector<Index> spec = tuple_arg(args[1], K, "spec");
    size_t pos = 0;
    std::vector<AxisSel> sel = parse_sel(spec, pos, b, K);
    for (auto &q : sel) CA_CHECK(q.count != -3, CA_EINVAL, K, ": list axes are not supported here");
    CA_CHECK(pos < spec.size() && spec.size() == pos + 1 + size_t(spec[pos]), CA_EINVAL, K, ": bad new-axis list");
    std::vector<Index> newpos(spec.begin() + long(pos) + 1, spec.end());
    const size_t isz = dtype_size(b->dtype);
    std::vector<int64_t> st = c_strides(b->shape, b->ndim, isz);
    std::vector<Index> kept;
    std::vector<int64_t> sst;
    const char *src = static_cast<const char *>(b->data);
    for (size_t d = 0; d < sel.size(); ++d) {
      if (sel[d].count < 0) {
        src += sel[d].start * st[d];
        continue;
      }
      if (sel[d].count > 0) src += sel[d].start * st[d];
      kept.push_back(sel[d].count);
      // With 0 or 1 elements the step is never applied (and may be huge, e.g. INT64_MAX).
      sst.push_back(sel[d].count > 1 ? sel[d].step * st[d] : 0);
    }
    std::vector<Index> oshape = kept;
    for (Index p : newpos) {
      CA_CHECK(p >= 0 && p <= Index(oshape.size()), CA_EINVAL, K, ": new axis position ", p, " out of range");
      oshape.insert(oshape.begin() + long(p), 1);
    }
    CA_CHECK(oshape.size() <= CA_MAX_NDIM, CA_EINVAL, K, ": result would have ", oshape.size(), " dimensions");
    BlockRef r(block_new(b->dtype, int32_t(oshape.size()), oshape.data()));
    std::vector<int64_t> dst_st = c_strides(kept.data(), int32_t(kept.size()), isz);
    if (r->size > 0)
      strided_copy(static_cast<char *>(r->data), dst_st.data(), src, sst.data(), kept.data(), int32_t(kept.size()), isz);
    *out = r.release();
  });
}

ca_status_t k_take(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return kernel_boundary(out, kctx, [&] {
    const char *K = "ca.take";
    CA_CHECK(nargs == 3 && args[1].kind == CA_ARG_INT64, CA_EINVAL, K, " takes (block, axis, indices)");
    const Block *b = block_arg(args[0], K, "argument 0");
    Index axis = args[1].u.i64;
    std::vector<Index> idx = tuple_arg(args[2], K, "indices");
    CA_CHECK(axis >= 0 && axis < b->ndim, CA_EINVAL, K, ": axis ", axis, " out of range");
    const Index ext = b->shape[axis];
    for (Index i : idx)
      CA_CHECK(i >= 0 && i < ext, CA_EINVAL, K, ": index ", i, " is out of bounds for a block of ", ext);
    std::vector<Index> oshape(b->shape, b->shape + b->ndim);
    oshape[size_t(axis)] = Index(idx.size());
    BlockRef r(block_new(b->dtype, b->ndim, oshape.data()));
    const size_t isz = dtype_size(b->dtype);
    Index outer = 1, inner = 1;
    for (Index d = 0; d < axis; ++d) outer *= b->shape[d];
    for (Index d = axis + 1; d < b->ndim; ++d) inner *= b->shape[d];
    const size_t run = size_t(inner) * isz;
    const char *s = static_cast<const char *>(b->data);
    char *o = static_cast<char *>(r->data);
    if (run > 0)
      for (Index p = 0; p < outer; ++p)
        for (Index i : idx) {
          std::memcpy(o, s + (p * ext + i) * Index(run), run);
          o += run;
        }
    *out = r.release();
  });
}

ca_status_t k_take_dyn(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return kernel_boundary(out, kctx, [&] {
    const char *K = "ca.take_dyn";
    CA_CHECK(nargs == 4 && args[1].kind == CA_ARG_INT64 && args[3].kind == CA_ARG_LIST, CA_EINVAL, K,
             " takes (indices, axis, bounds, [blocks along the axis])");
    const Block *ib = block_arg(args[0], K, "the index block");
    CA_CHECK(ib->ndim == 1 && dtype_is_integer(ib->dtype), CA_EINVAL, K, ": the index block is not a 1-d integer block");
    const Index axis = args[1].u.i64;
    std::vector<Index> bounds = tuple_arg(args[2], K, "bounds");
    const size_t nb = args[3].u.list.len;
    CA_CHECK(nb == bounds.size() && nb > 0, CA_EINVAL, K, ": ", nb, " blocks for ", bounds.size(), " bounds");
    std::vector<const Block *> blocks;
    for (size_t i = 0; i < nb; ++i) blocks.push_back(block_arg(args[3].u.list.items[i], K, "an input block"));
    const Block *b0 = blocks[0];
    CA_CHECK(axis >= 0 && axis < b0->ndim, CA_EINVAL, K, ": axis ", axis, " out of range");
    const Index dim = bounds.back();
    std::vector<Index> idx(static_cast<size_t>(ib->size));
    dispatch_dtype(ib->dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_integral_v<T>) {
        const T *p = static_cast<const T *>(ib->data);
        for (Index k = 0; k < ib->size; ++k) {
          if constexpr (std::is_unsigned_v<T>)
            CA_CHECK(uint64_t(p[k]) < uint64_t(dim), CA_EINVAL, "index ", uint64_t(p[k]),
                     " is out of bounds for axis ", axis, " with size ", dim);
          Index v = Index(p[k]);
          Index w = v < 0 ? v + dim : v;
          CA_CHECK(w >= 0 && w < dim, CA_EINVAL, "index ", v, " is out of bounds for axis ", axis, " with size ", dim);
          idx[size_t(k)] = w;
        }
      }
    });
    std::vector<Index> oshape(b0->shape, b0->shape + b0->ndim);
    oshape[size_t(axis)] = ib->size;
    BlockRef r(block_new(b0->dtype, b0->ndim, oshape.data()));
    const size_t isz = dtype_size(b0->dtype);
    Index outer = 1, inner = 1;
    for (Index d = 0; d < axis; ++d) outer *= b0->shape[d];
    for (Index d = axis + 1; d < b0->ndim; ++d) inner *= b0->shape[d];
    const size_t run = size_t(inner) * isz;
    for (size_t i = 0; i < nb; ++i) {
      const Block *b = blocks[i];
      Index want = bounds[i] - (i ? bounds[i - 1] : 0);
      CA_CHECK(b->dtype == b0->dtype && b->ndim == b0->ndim && b->shape[axis] == want, CA_EINVAL, K,
               ": input block ", i, " does not match the bounds");
    }
    char *o = static_cast<char *>(r->data);
    if (run > 0)
      for (Index p = 0; p < outer; ++p)
        for (Index w : idx) {
          size_t bi = size_t(std::upper_bound(bounds.begin(), bounds.end(), w) - bounds.begin());
          const Block *b = blocks[bi];
          Index local = w - (bi ? bounds[bi - 1] : 0);
          std::memcpy(o, static_cast<const char *>(b->data) + (p * b->shape[axis] + local) * Index(run), run);
          o += run;
        }
    *out = r.release();
  });
}

ca_status_t k_mask_select(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return kernel_boundary(out, kctx, [&] {
    const char *K = "ca.mask_select";
    CA_CHECK(nargs == 2, CA_EINVAL, K, " takes (block, mask)");
    const Block *b = block_arg(args[0], K, "argument 0");
    const Block *m = block_arg(args[1], K, "the mask");
    CA_CHECK(m->dtype == CA_BOOL, CA_EINVAL, K, ": the mask block is not boolean");
    CA_CHECK(m->ndim == b->ndim && std::equal(b->shape, b->shape + b->ndim, m->shape), CA_EINVAL, K,
             ": the mask block's shape differs from the block's");
    const uint8_t *mk = static_cast<const uint8_t *>(m->data);
    Index n = 0;
    for (Index i = 0; i < m->size; ++i) n += mk[i] != 0;
    BlockRef r(block_new(b->dtype, 1, &n));
    const size_t isz = dtype_size(b->dtype);
    const char *s = static_cast<const char *>(b->data);
    char *o = static_cast<char *>(r->data);
    for (Index i = 0; i < m->size; ++i)
      if (mk[i]) {
        std::memcpy(o, s + size_t(i) * isz, isz);
        o += isz;
      }
    *out = r.release();
  });
}

ca_status_t k_mask_axis(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return kernel_boundary(out, kctx, [&] {
    const char *K = "ca.mask_axis";
    CA_CHECK(nargs == 3 && args[2].kind == CA_ARG_INT64, CA_EINVAL, K, " takes (block, mask, axis)");
    const Block *b = block_arg(args[0], K, "argument 0");
    const Block *m = block_arg(args[1], K, "the mask");
    Index axis = args[2].u.i64;
    CA_CHECK(axis >= 0 && axis < b->ndim, CA_EINVAL, K, ": axis ", axis, " out of range");
    CA_CHECK(m->dtype == CA_BOOL && m->ndim == 1 && m->shape[0] == b->shape[axis], CA_EINVAL, K,
             ": the mask block is not a boolean vector of the block's extent ", b->shape[axis]);
    const uint8_t *mk = static_cast<const uint8_t *>(m->data);
    std::vector<Index> idx;
    for (Index i = 0; i < m->size; ++i)
      if (mk[i]) idx.push_back(i);
    std::vector<int64_t> tup(idx.begin(), idx.end());
    ca_arg_t targs[3] = {args[0], ca_arg_i64(axis), ca_arg_tuple(tup.data(), tup.size())};
    ca_status_t st = k_take(out, targs, 3, kctx, nullptr);
    if (st != CA_OK) fail(st, kctx ? kctx->error : std::string("ca.take failed"));
  });
}

ca_status_t k_block_shape(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return kernel_boundary(out, kctx, [&] {
    CA_CHECK(nargs == 1, CA_EINVAL, "ca.block_shape takes one block");
    const Block *b = block_arg(args[0], "ca.block_shape", "argument 0");
    int64_t n = b->ndim;
    BlockRef r(block_new(CA_INT64, 1, &n));
    for (int32_t d = 0; d < b->ndim; ++d) static_cast<int64_t *>(r->data)[d] = b->shape[d];
    *out = r.release();
  });
}

ca_status_t k_vindex_slice(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return kernel_boundary(out, kctx, [&] {
    const char *K = "ca.vindex_slice";
    CA_CHECK(nargs == 3, CA_EINVAL, K, " takes (block, axes, coordinates)");
    const Block *b = block_arg(args[0], K, "argument 0");
    std::vector<Index> axes = tuple_arg(args[1], K, "axes");
    std::vector<Index> coords = tuple_arg(args[2], K, "coordinates");
    const size_t k = axes.size();
    CA_CHECK(k > 0 && coords.size() % k == 0, CA_EINVAL, K, ": coordinates do not match the axes");
    const Index m = Index(coords.size() / k);
    std::vector<bool> indexed(size_t(b->ndim), false);
    for (Index a : axes) {
      CA_CHECK(a >= 0 && a < b->ndim, CA_EINVAL, K, ": axis ", a, " out of range");
      indexed[size_t(a)] = true;
    }
    const size_t isz = dtype_size(b->dtype);
    std::vector<int64_t> st = c_strides(b->shape, b->ndim, isz);
    std::vector<Index> oshape{m}, other;
    std::vector<int64_t> ost;
    for (int32_t d = 0; d < b->ndim; ++d)
      if (!indexed[size_t(d)]) {
        oshape.push_back(b->shape[d]);
        other.push_back(b->shape[d]);
        ost.push_back(st[size_t(d)]);
      }
    BlockRef r(block_new(b->dtype, int32_t(oshape.size()), oshape.data()));
    std::vector<int64_t> dst_st = c_strides(other.data(), int32_t(other.size()), isz);
    Index row = 1;
    for (Index e : other) row *= e;
    for (Index p = 0; p < m; ++p) {
      const char *s = static_cast<const char *>(b->data);
      for (size_t j = 0; j < k; ++j) {
        Index c = coords[size_t(p) * k + j];
        CA_CHECK(c >= 0 && c < b->shape[axes[j]], CA_EINVAL, K, ": coordinate ", c, " out of bounds");
        s += c * st[size_t(axes[j])];
      }
      if (row > 0)
        strided_copy(static_cast<char *>(r->data) + p * row * Index(isz), dst_st.data(), s, ost.data(), other.data(),
                     int32_t(other.size()), isz);
    }
    *out = r.release();
  });
}

ca_status_t k_vindex_merge(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return kernel_boundary(out, kctx, [&] {
    const char *K = "ca.vindex_merge";
    CA_CHECK(nargs == 3 && args[1].kind == CA_ARG_INT64 && args[2].kind == CA_ARG_LIST, CA_EINVAL, K,
             " takes (out_shape, dtype, [positions, block, ...])");
    std::vector<Index> oshape = tuple_arg(args[0], K, "output shape");
    DType dt = DType(args[1].u.i64);
    CA_CHECK(!oshape.empty() && dtype_valid(dt), CA_EINVAL, K, ": bad output shape or dtype");
    BlockRef r(block_new(dt, int32_t(oshape.size()), oshape.data(), true));
    const size_t isz = dtype_size(dt);
    Index row = 1;
    for (size_t d = 1; d < oshape.size(); ++d) row *= oshape[d];
    const size_t run = size_t(row) * isz;
    const ca_arg_t *items = args[2].u.list.items;
    const size_t n = args[2].u.list.len;
    CA_CHECK(n % 2 == 0, CA_EINVAL, K, ": pieces come as (positions, block) pairs");
    for (size_t i = 0; i < n; i += 2) {
      std::vector<Index> posv = tuple_arg(items[i], K, "positions");
      const Block *b = block_arg(items[i + 1], K, "a piece");
      CA_CHECK(b->dtype == dt && b->ndim == int32_t(oshape.size()) && b->shape[0] == Index(posv.size()) &&
                   std::equal(oshape.begin() + 1, oshape.end(), b->shape + 1),
               CA_EINVAL, K, ": a piece does not match the output");
      for (size_t j = 0; j < posv.size(); ++j) {
        CA_CHECK(posv[j] >= 0 && posv[j] < oshape[0], CA_EINVAL, K, ": position ", posv[j], " out of range");
        if (run) std::memcpy(static_cast<char *>(r->data) + size_t(posv[j]) * run,
                             static_cast<const char *>(b->data) + j * run, run);
      }
    }
    *out = r.release();
  });
}

ca_status_t k_setitem(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return kernel_boundary(out, kctx, [&] {
    const char *K = "ca.setitem";
    CA_CHECK(nargs >= 3 && nargs <= 5, CA_EINVAL, K,
             " takes (block, spec, scalar[, list]) or (block, spec, box, pieces[, list])");
    const Block *b = block_arg(args[0], K, "argument 0");
    std::vector<Index> spec = tuple_arg(args[1], K, "spec");
    size_t pos = 0;
    std::vector<AxisSel> sel = parse_sel(spec, pos, b, K);
    const bool scalar = args[2].kind == CA_ARG_BYTES;
    const size_t nfixed = scalar ? 3 : 4;
    CA_CHECK(nargs == nfixed || nargs == nfixed + 1, CA_EINVAL, K, ": bad argument count ", nargs);
    // An integer-list axis: (axis, n, local positions..., value box offsets...).
    Index list_axis = -1;
    std::vector<Index> lpos, loff;
    if (nargs == nfixed + 1) {
      std::vector<Index> li = tuple_arg(args[nfixed], K, "list");
      CA_CHECK(li.size() >= 2 && li.size() == size_t(2 + 2 * li[1]), CA_EINVAL, K, ": bad list argument");
      list_axis = li[0];
      CA_CHECK(list_axis >= 0 && list_axis < b->ndim && sel[size_t(list_axis)].count == -3, CA_EINVAL, K,
               ": bad list axis ", list_axis);
      lpos.assign(li.begin() + 2, li.begin() + 2 + li[1]);
      loff.assign(li.begin() + 2 + li[1], li.end());
      for (Index q : lpos)
        CA_CHECK(q >= 0 && q < b->shape[list_axis], CA_EINVAL, K, ": list position ", q, " out of bounds");
      sel[size_t(list_axis)].count = Index(lpos.size());
      sel[size_t(list_axis)].start = 0;
      sel[size_t(list_axis)].step = 0;  // positions come from the list
    }
    for (auto &q : sel) CA_CHECK(q.count != -3, CA_EINVAL, K, ": a list axis without its list");
    const size_t isz = dtype_size(b->dtype);
    BlockRef r(block_new(b->dtype, b->ndim, b->shape));
    if (b->nbytes) std::memcpy(r->data, b->data, size_t(b->nbytes));
    std::vector<int64_t> st = c_strides(b->shape, b->ndim, isz);
    char *dst = static_cast<char *>(r->data);
    std::vector<Index> tshape;
    std::vector<int64_t> dst_st;
    int32_t list_t = -1;  // the list axis' position among the target axes
    for (size_t d = 0; d < sel.size(); ++d) {
      if (sel[d].count != 0) dst += sel[d].start * st[d];
      if (sel[d].count < 0) continue;
      if (Index(d) == list_axis) list_t = int32_t(tshape.size());
      tshape.push_back(sel[d].count);
      dst_st.push_back(sel[d].count > 1 ? sel[d].step * st[d] : 0);  // a huge step never applied
    }
    const int32_t nt = int32_t(tshape.size());
    std::vector<int64_t> src_st(size_t(nt), 0);
    BlockRef box;
    const char *src = nullptr;
    if (scalar) {
      CA_CHECK(args[2].u.bytes.len == isz, CA_EINVAL, K,
               ": the scalar value is not ", isz, " bytes");
      src = static_cast<const char *>(args[2].u.bytes.data);
    } else {
      std::vector<Index> bshape = tuple_arg(args[2], K, "value box shape");
      CA_CHECK(args[3].kind == CA_ARG_LIST, CA_EINVAL, K, ": value pieces are not a list");
      const int32_t nv = int32_t(bshape.size());
      CA_CHECK(nv <= nt, CA_EINVAL, K, ": the value has more dimensions than the target");
      box = BlockRef(block_new(b->dtype, nv, bshape.data()));
      std::vector<int64_t> bst = c_strides(bshape.data(), nv, isz);
      const ca_arg_t *items = args[3].u.list.items;
      const size_t n = args[3].u.list.len;
      CA_CHECK(n % 2 == 0, CA_EINVAL, K, ": pieces come as (block, geometry) pairs");
      for (size_t i = 0; i < n; i += 2) {
        const Block *v = block_arg(items[i], K, "a value piece");
        std::vector<Index> g = tuple_arg(items[i + 1], K, "piece geometry");
        CA_CHECK(v->dtype == b->dtype && v->ndim == nv && g.size() == size_t(3 * nv), CA_EINVAL, K,
                 ": a value piece does not match the value box");
        const Index *vs = g.data(), *vd = vs + nv, *vl = vs + 2 * nv;
        std::vector<int64_t> vst = c_strides(v->shape, nv, isz);
        const char *s = static_cast<const char *>(v->data);
        char *o = static_cast<char *>(box->data);
        for (int32_t d = 0; d < nv; ++d) {
          CA_CHECK(vs[d] >= 0 && vl[d] >= 0 && vs[d] + vl[d] <= v->shape[d] && vd[d] + vl[d] <= bshape[size_t(d)],
                   CA_EINVAL, K, ": a value piece is out of bounds along axis ", d);
          s += vs[d] * vst[size_t(d)];
          o += vd[d] * bst[size_t(d)];
        }
        strided_copy(o, bst.data(), s, vst.data(), vl, nv, isz);
      }
      for (int32_t j = 0; j < nt; ++j) {
        int32_t e = j - (nt - nv);
        if (e < 0) continue;
        if (j == list_t) {
          for (Index o : loff)
            CA_CHECK(bshape[size_t(e)] == 1 || (o >= 0 && o < bshape[size_t(e)]), CA_EINVAL, K,
                     ": a list offset is outside the value box");
        } else {
          CA_CHECK(bshape[size_t(e)] == 1 || bshape[size_t(e)] == tshape[size_t(j)], CA_EINVAL, K,
                   ": the value box does not broadcast to the region");
        }
        src_st[size_t(j)] = bshape[size_t(e)] == 1 ? 0 : bst[size_t(e)];
      }
      src = static_cast<const char *>(box->data);
    }
    if (list_t < 0) {
      strided_copy(dst, dst_st.data(), src, src_st.data(), tshape.data(), nt, isz);
    } else {
      // One strided copy per list entry, in order (a repeated position keeps the last value).
      const int64_t lst = st[size_t(list_axis)], vst = src_st[size_t(list_t)];
      std::vector<Index> sub = tshape;
      std::vector<int64_t> dsub = dst_st, ssub = src_st;
      sub.erase(sub.begin() + list_t);
      dsub.erase(dsub.begin() + list_t);
      ssub.erase(ssub.begin() + list_t);
      for (size_t e = 0; e < lpos.size(); ++e)
        strided_copy(dst + lpos[e] * lst, dsub.data(), src + loff[e] * vst, ssub.data(), sub.data(), nt - 1, isz);
    }
    *out = r.release();
  });
}

}  // namespace

void register_slicing_kernels(KernelRegistry &reg) {
  reg.add(kernel_new("ca.getitem", k_getitem, 1, nullptr, nullptr), true);
  reg.add(kernel_new("ca.take", k_take, 1, nullptr, nullptr), true);
  reg.add(kernel_new("ca.take_dyn", k_take_dyn, 1, nullptr, nullptr), true);
  reg.add(kernel_new("ca.mask_select", k_mask_select, 1, nullptr, nullptr), true);
  reg.add(kernel_new("ca.mask_axis", k_mask_axis, 1, nullptr, nullptr), true);
  reg.add(kernel_new("ca.block_shape", k_block_shape, 1, nullptr, nullptr), true);
  reg.add(kernel_new("ca.vindex_slice", k_vindex_slice, 1, nullptr, nullptr), true);
  reg.add(kernel_new("ca.vindex_merge", k_vindex_merge, 1, nullptr, nullptr), true);
  reg.add(kernel_new("ca.setitem", k_setitem, 1, nullptr, nullptr), true);
}

}  // namespace ca
