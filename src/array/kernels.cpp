// Registration of the array kernels, and the structural kernels of array.cpp (ca.assemble).
#include <cstring>

#include "array/array.hpp"
#include "kernel/kernel.hpp"

namespace ca {

// Implemented by the ops, reductions and creation parts.
void register_ops_kernels(KernelRegistry &reg);
void register_reduce_kernels(KernelRegistry &reg);
void register_creation_kernels(KernelRegistry &reg);

namespace {

// ca.assemble(out_shape, [block, (src..., dst..., len...), block, geom, ...]): an output block built
// from pieces of input blocks (rechunk).
ca_status_t k_assemble(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  try {
    CA_CHECK(nargs == 2 && args[0].kind == CA_ARG_TUPLE && args[1].kind == CA_ARG_LIST, CA_EINVAL,
             "ca.assemble takes (out_shape, [block, geometry, ...])");
    const int64_t *oshape = args[0].u.tuple.items;
    int32_t nd = int32_t(args[0].u.tuple.len);
    const ca_arg_t *items = args[1].u.list.items;
    size_t n = args[1].u.list.len;
    CA_CHECK(n >= 2 && n % 2 == 0, CA_EINVAL, "ca.assemble: pieces must come as (block, geometry) pairs");
    CA_CHECK(items[0].kind == CA_ARG_BLOCK, CA_EINVAL, "ca.assemble: piece 0 is not a block");
    DType dt = items[0].u.block->dtype;
    BlockRef res(block_new(dt, nd, oshape));
    size_t isz = dtype_size(dt);
    std::vector<Index> dshape(oshape, oshape + nd);
    for (size_t p = 0; p < n; p += 2) {
      const Block *b = items[p].u.block;
      const ca_arg_t &g = items[p + 1];
      CA_CHECK(items[p].kind == CA_ARG_BLOCK && g.kind == CA_ARG_TUPLE && g.u.tuple.len == size_t(3 * nd), CA_EINVAL,
               "ca.assemble: bad piece ", p / 2);
      CA_CHECK(b->dtype == dt && b->ndim == nd, CA_EINVAL, "ca.assemble: pieces differ in dtype or dimensions");
      const int64_t *src = g.u.tuple.items, *dst = src + nd, *len = src + 2 * nd;
      Index total = 1;
      for (int32_t d = 0; d < nd; ++d) {
        CA_CHECK(src[d] >= 0 && len[d] >= 0 && src[d] + len[d] <= b->shape[d] && dst[d] + len[d] <= oshape[d], CA_EINVAL,
                 "ca.assemble: piece ", p / 2, " is out of bounds along axis ", d);
        total *= len[d];
      }
      if (total == 0) continue;
      // Copy the sub-box row by row (innermost dimension contiguous).
      std::vector<int64_t> sst(static_cast<size_t>(nd)), dstst(static_cast<size_t>(nd));
      int64_t sa = int64_t(isz), da = int64_t(isz);
      for (int32_t d = nd - 1; d >= 0; --d) {
        sst[size_t(d)] = sa;
        dstst[size_t(d)] = da;
        sa *= b->shape[d];
        da *= oshape[d];
      }
      if (nd == 0) {
        std::memcpy(res->data, b->data, isz);
        continue;
      }
      std::vector<Index> pos(size_t(nd), 0);
      Index rows = total / len[nd - 1];
      size_t run = size_t(len[nd - 1]) * isz;
      for (Index r = 0; r < rows; ++r) {
        const char *s = static_cast<const char *>(b->data);
        char *o = static_cast<char *>(res->data);
        for (int32_t d = 0; d < nd; ++d) {
          s += (src[d] + pos[size_t(d)]) * sst[size_t(d)];
          o += (dst[d] + pos[size_t(d)]) * dstst[size_t(d)];
        }
        std::memcpy(o, s, run);
        for (int32_t d = nd - 2; d >= 0; --d) {
          if (++pos[size_t(d)] < len[d]) break;
          pos[size_t(d)] = 0;
        }
      }
    }
    *out = res.release();
    return CA_OK;
  } catch (const Error &e) {
    if (kctx) kctx->error = e.message();
    return e.code();
  } catch (const std::bad_alloc &) {
    if (kctx) kctx->error = "out of memory";
    return CA_ENOMEM;
  }
}

}  // namespace

void register_array_kernels(KernelRegistry &reg) {
  reg.add(kernel_new("ca.assemble", k_assemble, 1, nullptr, nullptr), true);
  register_ops_kernels(reg);
  register_reduce_kernels(reg);
  register_creation_kernels(reg);
  void register_io_kernels(KernelRegistry &);  // io/array_io.cpp
  register_io_kernels(reg);
  void register_slicing_kernels(KernelRegistry &);  // array/slicing_kernels.cpp
  register_slicing_kernels(reg);
}

}  // namespace ca
