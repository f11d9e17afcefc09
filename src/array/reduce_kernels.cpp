// Kernels of reductions and scans (see array/reduce.hpp for the partial layouts and the graph shape).
//
//   ca.reduce_chunk(program BYTES, spec TUPLE, array_shape TUPLE, block_origin TUPLE, block_shape TUPLE,
//                   leaf blocks...)                        -> partial (RAW, keepdims shape + (sizeof P,))
//   ca.reduce_combine(partials (nested lists), spec)      -> partial
//   ca.reduce_agg(partials (nested lists), spec, out_block_shape TUPLE) -> result block
//   ca.reduce_squeeze(block, shape TUPLE)                 -> the block viewed with another shape
//   ca.scan_block(program, spec, block_shape, leaves...)  -> per-block scan (result dtype)
//   ca.scan_carry(spec, previous carry | None, scanned)   -> running total (axis extent 1)
//   ca.scan_apply(spec, scanned, carry)                   -> scanned op carry
// spec (reductions) = (op, input dtype, result dtype, reduced-axes bit mask, arg axis (-1: flat), ddof)
// spec (scans)      = (op, input dtype, result dtype, axis)
//
// The families run in their own objects (array/reduce_kernels_<group>.cpp, array/reduce_families.hpp)
// so the build compiles them in parallel; run_reduction picks the group from array/reductions.def.
#include "array/reduce_kernels.hpp"

#include <chunkarray/array.h>

#include <cstring>
#include <functional>
#include <new>
#include <vector>

#include "array/expr.hpp"
#include "array/op_table.hpp"
#include "array/reduce.hpp"
#include "array/reduce_families.hpp"
#include "core/block.hpp"
#include "core/checked.hpp"
#include "kernel/adapter.hpp"

namespace ca {

namespace red {

void run_reduction(RedCall &c) {
  switch (red_info(c.spec->op).family) {
    case RedFamily::Sum: return run_sum(c);
    case RedFamily::Prod: return run_prod(c);
    case RedFamily::Mean: return run_mean(c);
    case RedFamily::Var:
    case RedFamily::Std: return run_var_std(c);
    case RedFamily::Min:
    case RedFamily::Max:
    case RedFamily::Any:
    case RedFamily::All: return run_min_max(c);
    case RedFamily::ArgMin:
    case RedFamily::ArgMax: return run_arg(c);
    case RedFamily::None: break;
  }
  fail(CA_EINVAL, "unknown reduction op ", c.spec->op);
}

Index checked_size(const std::vector<Index> &v) {
  for (Index x : v) CA_CHECK(x >= 0, CA_EINVAL, "block shape ", shape_str(v), " has a negative extent");
  return shape_size(v);
}

/// A new block of dtype `to` (always a private copy).
Block *cast_block(const Block *src, DType to) {
  BlockRef out(block_new(to, src->ndim, src->shape));
  if (src->dtype == to) {
    if (src->nbytes) std::memcpy(out->data, src->data, size_t(src->nbytes));
  } else {
    dispatch_dtype(src->dtype, [&](auto tt) {
      using F = typename decltype(tt)::type;
      cast_into(static_cast<const F *>(src->data), src->size, to, out->data);
    });
  }
  return out.release();
}

namespace {

Spec parse_spec(const ca_arg_t &a) {
  CA_CHECK(a.kind == CA_ARG_TUPLE && a.u.tuple.len >= 6, CA_EINVAL, "reduction spec must be a 6-tuple");
  const int64_t *t = a.u.tuple.items;
  Spec s;
  s.op = int32_t(t[0]);
  s.in = DType(t[1]);
  s.out = DType(t[2]);
  s.mask = uint64_t(t[3]);
  s.argaxis = int32_t(t[4]);
  s.ddof = int32_t(t[5]);
  return s;
}

std::vector<Index> tuple_of(const ca_arg_t &a, const char *what) {
  CA_CHECK(a.kind == CA_ARG_TUPLE, CA_EINVAL, what, " must be a tuple");
  return std::vector<Index>(a.u.tuple.items, a.u.tuple.items + a.u.tuple.len);
}

const Block *block_arg(const ca_arg_t &a, const char *what) {
  CA_CHECK(a.kind == CA_ARG_BLOCK && a.u.block, CA_EINVAL, what, " must be a block");
  return a.u.block;
}

void flatten_blocks(const ca_arg_t &a, std::vector<const Block *> &out) { flatten_block_list(a, out, "a partial"); }

// ---- kernels --------------------------------------------------------------------------------------

// The kernel adapter's exception boundary (kernel/adapter.hpp); the body sets *out.
template <class F>
ca_status_t guard(ca_kernel_ctx_t *kctx, const char *, F &&f) {
  return kernel_boundary(kctx, std::forward<F>(f));
}

const PreparedProgram &parse_program(const ca_arg_t &a, bool &identity) {
  CA_CHECK(a.kind == CA_ARG_BYTES || a.kind == CA_ARG_STRING, CA_EINVAL, "program must be bytes");
  const PreparedProgram &pp = prepared_program(a.u.bytes.data, a.u.bytes.len);
  const ExprProgram &p = program_of(pp);
  identity = p.code.empty() && p.inputs.size() == 1 && p.out == 0 && !p.is_transposed(0);
  return pp;
}

ca_status_t k_reduce_chunk(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return guard(kctx, "ca.reduce_chunk", [&] {
    CA_CHECK(nargs >= 5, CA_EINVAL, "ca.reduce_chunk takes a program, 4 tuples and leaf blocks");
    ChunkIn in;
    in.pp = &parse_program(args[0], in.identity);
    in.prog = &program_of(*in.pp);
    in.spec = parse_spec(args[1]);
    in.gshape = tuple_of(args[2], "array shape");
    in.origin = tuple_of(args[3], "block origin");
    in.bshape = tuple_of(args[4], "block shape");
    for (size_t i = 5; i < nargs; ++i) in.leaves.push_back(block_arg(args[i], "a leaf"));
    CA_CHECK(in.leaves.size() == in.prog->inputs.size(), CA_EINVAL, "ca.reduce_chunk: program takes ",
             in.prog->inputs.size(), " inputs, got ", in.leaves.size());
    // Unknown block sizes (dask's NaN chunks, kUnknownChunk): the block's extents are the broadcast
    // extents of its leaves.
    for (size_t d = 0; d < in.bshape.size(); ++d) {
      if (in.bshape[d] >= 0) continue;
      Index e = 1;
      for (const Block *l : in.leaves) {
        int32_t k = int32_t(d) - int32_t(in.bshape.size()) + l->ndim;
        if (k >= 0 && l->shape[k] != 1) e = l->shape[k];
      }
      in.bshape[d] = e;
    }
    if (in.prog->coords) {
      const ca_arg_t o = ca_arg_tuple(in.origin.data(), in.origin.size());
      const ca_arg_t b = ca_arg_tuple(in.bshape.data(), in.bshape.size());
      gen_coords_from_args(*in.prog, o, b);  // validates origin and shape against the program
      CA_CHECK(in.gshape == in.prog->gshape, CA_EINVAL, "ca.reduce_chunk: array shape differs from the program's");
    }
    if (in.identity) {
      const Block *b = in.leaves[0];
      CA_CHECK(b->dtype == in.spec.in && b->size == checked_size(in.bshape), CA_EINVAL,
               "ca.reduce_chunk: block does not match its shape/dtype");
    }
    CA_CHECK(in.prog->reg_dtype(in.prog->out) == in.spec.in, CA_EINVAL, "ca.reduce_chunk: program dtype mismatch");
    RedCall c;
    c.stage = RedCall::Chunk;
    c.spec = &in.spec;
    c.in = &in;
    run_reduction(c);
    *out = c.out;
  });
}

ca_status_t k_reduce_combine(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return guard(kctx, "ca.reduce_combine", [&] {
    CA_CHECK(nargs == 2, CA_EINVAL, "ca.reduce_combine takes partials and a spec");
    std::vector<const Block *> parts;
    flatten_blocks(args[0], parts);
    CA_CHECK(!parts.empty(), CA_EINVAL, "ca.reduce_combine: no partials");
    Spec s = parse_spec(args[1]);
    RedCall c;
    c.stage = RedCall::Combine;
    c.spec = &s;
    c.parts = &parts;
    run_reduction(c);
    *out = c.out;
  });
}

ca_status_t k_reduce_agg(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return guard(kctx, "ca.reduce_agg", [&] {
    CA_CHECK(nargs == 3, CA_EINVAL, "ca.reduce_agg takes partials, a spec and the output block shape");
    std::vector<const Block *> parts;
    flatten_blocks(args[0], parts);
    Spec s = parse_spec(args[1]);
    std::vector<Index> oshape = tuple_of(args[2], "output block shape");
    // Unknown extents (kept axes of unknown size): from the partials, whose shape is the keepdims
    // block shape plus the byte axis.
    if (!parts.empty()) {
      size_t od = 0;
      bool kd = size_t(parts[0]->ndim) == oshape.size() + 1;
      for (int32_t d = 0; d + 1 < parts[0]->ndim && od < oshape.size(); ++d) {
        if (!kd && ((s.mask >> d) & 1)) continue;
        if (oshape[od] < 0) oshape[od] = parts[0]->shape[d];
        ++od;
      }
    }
    CA_CHECK(!parts.empty(), CA_EINVAL, "ca.reduce_agg: no partials");
    (void)checked_size(oshape);  // checked before the partials are read
    RedCall c;
    c.stage = RedCall::Agg;
    c.spec = &s;
    c.parts = &parts;
    c.oshape = &oshape;
    run_reduction(c);
    *out = c.out;
  });
}

void release_block_ud(void *p) { block_release(static_cast<const Block *>(p)); }

ca_status_t k_reduce_squeeze(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return guard(kctx, "ca.reduce_squeeze", [&] {
    CA_CHECK(nargs == 2, CA_EINVAL, "ca.reduce_squeeze takes a block and a shape");
    const Block *b = block_arg(args[0], "ca.reduce_squeeze's input");
    std::vector<Index> shape = tuple_of(args[1], "shape");
    CA_CHECK(checked_size(shape) == b->size, CA_EINVAL, "ca.reduce_squeeze: the aggregate returned ", b->size,
             " elements for a block of ", checked_size(shape));
    Block *src = block_retain(b);
    *out = block_wrap(b->dtype, int32_t(shape.size()), shape.data(), b->data, release_block_ud, src);
  });
}

// ---- scans ----------------------------------------------------------------------------------------

struct ScanSpec {
  int32_t op;
  DType in, out;
  int32_t axis;
};

ScanSpec parse_scan_spec(const ca_arg_t &a) {
  CA_CHECK(a.kind == CA_ARG_TUPLE && a.u.tuple.len >= 4, CA_EINVAL, "scan spec must be a 4-tuple");
  const int64_t *t = a.u.tuple.items;
  return ScanSpec{int32_t(t[0]), DType(t[1]), DType(t[2]), int32_t(t[3])};
}

bool scan_is_prod(int32_t op) { return scan_info(op).prod; }
bool scan_is_nan(int32_t op) { return scan_info(op).nan; }

// (outer, n, inner) around the axis
void split_axis(const Block *b, int32_t axis, Index &outer, Index &n, Index &inner) {
  CA_CHECK(axis >= 0 && axis < b->ndim, CA_EINVAL, "scan axis ", axis, " out of range for a block of ", b->ndim,
           " dimensions");
  outer = 1, inner = 1;
  for (int32_t d = 0; d < axis; ++d) outer *= b->shape[d];
  n = b->shape[axis];
  for (int32_t d = axis + 1; d < b->ndim; ++d) inner *= b->shape[d];
}

template <class R, bool PROD>
void scan_inplace(R *x, Index outer, Index n, Index inner) {
  for (Index o = 0; o < outer; ++o) {
    R *base = x + o * n * inner;
    for (Index k = 1; k < n; ++k) {
      const R *prev = base + (k - 1) * inner;
      R *cur = base + k * inner;
      for (Index i = 0; i < inner; ++i) {
        if constexpr (std::is_same_v<R, bool>)
          cur[i] = PROD ? (prev[i] && cur[i]) : (prev[i] || cur[i]);
        else
          cur[i] = op2<R, PROD>(prev[i], cur[i]);
      }
    }
  }
}

ca_status_t k_scan_block(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return guard(kctx, "ca.scan_block", [&] {
    CA_CHECK(nargs >= 4, CA_EINVAL, "ca.scan_block takes a program, a spec, the block's shape and origin and leaf blocks");
    bool identity = false;
    const PreparedProgram &pp = parse_program(args[0], identity);
    const ExprProgram &prog = program_of(pp);
    ScanSpec s = parse_scan_spec(args[1]);
    std::vector<const Block *> leaves;
    for (size_t i = 4; i < nargs; ++i) leaves.push_back(block_arg(args[i], "a leaf"));
    CA_CHECK(leaves.size() == prog.inputs.size(), CA_EINVAL, "ca.scan_block: wrong number of leaves");
    GenCoords coords;
    if (prog.coords) coords = gen_coords_from_args(prog, args[3], args[2]);
    BlockRef val;
    if (identity)
      val = BlockRef(block_retain(leaves[0]));
    else
      val = BlockRef(eval_prepared_program(pp, leaves.data(), leaves.size(), prog.coords ? &coords : nullptr));
    const bool prodop = scan_is_prod(s.op);
    // nancumsum/nancumprod replace NaN by the identity before the cast to the result dtype (NumPy's
    // order: nancumsum([1., nan], dtype='int16') is [1, 1]).
    BlockRef r;
    if (scan_is_nan(s.op) && (dtype_is_float(val->dtype) || dtype_is_complex(val->dtype))) {
      r = BlockRef(cast_block(val.get(), val->dtype));  // a private copy
      dispatch_dtype(r->dtype, [&](auto tt) {
        using V = typename decltype(tt)::type;
        if constexpr (kFloaty<V>) {
          V *x = static_cast<V *>(r->data);
          const V id = prodop ? V(1) : V(0);
          for (Index i = 0; i < r->size; ++i) x[i] = is_nan(x[i]) ? id : x[i];
        }
      });
      if (s.out != r->dtype) r = BlockRef(cast_block(r.get(), s.out));
    } else {
      r = BlockRef(cast_block(val.get(), s.out));
    }
    val = BlockRef();
    Index outer, n, inner;
    split_axis(r.get(), s.axis, outer, n, inner);
    dispatch_dtype(s.out, [&](auto tt) {
      using R = typename decltype(tt)::type;
      R *x = static_cast<R *>(r->data);
      if (prodop)
        scan_inplace<R, true>(x, outer, n, inner);
      else
        scan_inplace<R, false>(x, outer, n, inner);
    });
    *out = r.release();
  });
}

template <class R, bool PROD>
inline R combine2(R a, R b) {
  if constexpr (std::is_same_v<R, bool>)
    return PROD ? (a && b) : (a || b);
  else
    return op2<R, PROD>(a, b);
}

ca_status_t k_scan_carry(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return guard(kctx, "ca.scan_carry", [&] {
    CA_CHECK(nargs == 3, CA_EINVAL, "ca.scan_carry takes a spec, the previous carry and a scanned block");
    ScanSpec s = parse_scan_spec(args[0]);
    const Block *prev = args[1].kind == CA_ARG_NONE ? nullptr : block_arg(args[1], "previous carry");
    const Block *m = block_arg(args[2], "scanned block");
    CA_CHECK(m->dtype == s.out, CA_EINVAL, "ca.scan_carry: dtype mismatch");
    Index outer, n, inner;
    split_axis(m, s.axis, outer, n, inner);
    std::vector<int64_t> shape(m->shape, m->shape + m->ndim);
    shape[size_t(s.axis)] = 1;
    BlockRef r(block_new(s.out, m->ndim, shape.data()));
    if (prev) CA_CHECK(prev->size == r->size && prev->dtype == s.out, CA_EINVAL, "ca.scan_carry: bad carry");
    const bool prodop = scan_is_prod(s.op);
    dispatch_dtype(s.out, [&](auto tt) {
      using R = typename decltype(tt)::type;
      R *o = static_cast<R *>(r->data);
      const R *x = static_cast<const R *>(m->data);
      const R *p = prev ? static_cast<const R *>(prev->data) : nullptr;
      const R id = prodop ? R(1) : R(0);
      for (Index a = 0; a < outer; ++a)
        for (Index i = 0; i < inner; ++i) {
          R last = n > 0 ? x[(a * n + n - 1) * inner + i] : id;
          R c = p ? p[a * inner + i] : id;
          o[a * inner + i] = prodop ? combine2<R, true>(c, last) : combine2<R, false>(c, last);
        }
    });
    *out = r.release();
  });
}

ca_status_t k_scan_apply(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return guard(kctx, "ca.scan_apply", [&] {
    CA_CHECK(nargs == 3, CA_EINVAL, "ca.scan_apply takes a spec, a scanned block and a carry");
    ScanSpec s = parse_scan_spec(args[0]);
    const Block *m = block_arg(args[1], "scanned block");
    const Block *c = block_arg(args[2], "carry");
    Index outer, n, inner;
    split_axis(m, s.axis, outer, n, inner);
    CA_CHECK(m->dtype == s.out && c->dtype == s.out && c->size == outer * inner, CA_EINVAL,
             "ca.scan_apply: carry does not match the block");
    BlockRef r(cast_block(m, s.out));
    const bool prodop = scan_is_prod(s.op);
    dispatch_dtype(s.out, [&](auto tt) {
      using R = typename decltype(tt)::type;
      R *x = static_cast<R *>(r->data);
      const R *cv = static_cast<const R *>(c->data);
      for (Index a = 0; a < outer; ++a)
        for (Index k = 0; k < n; ++k) {
          R *row = x + (a * n + k) * inner;
          const R *cr = cv + a * inner;
          if (prodop)
            for (Index i = 0; i < inner; ++i) row[i] = combine2<R, true>(cr[i], row[i]);
          else
            for (Index i = 0; i < inner; ++i) row[i] = combine2<R, false>(cr[i], row[i]);
        }
    });
    *out = r.release();
  });
}

}  // namespace

}  // namespace red

void register_reduce_kernels(KernelRegistry &reg) {
  using namespace red;
  reg.add(kernel_new("ca.reduce_chunk", k_reduce_chunk, 1, nullptr, nullptr), true);
  reg.add(kernel_new("ca.reduce_combine", k_reduce_combine, 1, nullptr, nullptr), true);
  reg.add(kernel_new("ca.reduce_agg", k_reduce_agg, 1, nullptr, nullptr), true);
  reg.add(kernel_new("ca.reduce_squeeze", k_reduce_squeeze, 1, nullptr, nullptr), true);
  reg.add(kernel_new("ca.scan_block", k_scan_block, 1, nullptr, nullptr), true);
  reg.add(kernel_new("ca.scan_carry", k_scan_carry, 1, nullptr, nullptr), true);
  reg.add(kernel_new("ca.scan_apply", k_scan_apply, 1, nullptr, nullptr), true);
}

}  // namespace ca
