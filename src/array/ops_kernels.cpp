// The interpreter of fused elementwise programs (array/expr.hpp) and the `ca.fused` kernel.
//
// A program is a register machine over tiles: the output (the broadcast shape of the inputs) is
// walked in C order in tiles of kTile elements; every register is one tile buffer. Inputs with the
// output's size are read in place, broadcast inputs are gathered per tile (stride 0 along broadcast
// dimensions), size-1 inputs and constants are filled once. Each instruction resolves once per
// program to a function pointer instantiated for its dtype (array/expr_instr.hpp: a plain typed loop
// over __restrict pointers, compiled for baseline x86-64 and for AVX2). Register buffers are reused
// once their value is dead, so a long chain needs only a few tiles of scratch memory.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>

#include "array/create.hpp"
#include "array/expr.hpp"
#include "array/expr_chain.hpp"
#include "array/expr_instr.hpp"
#include "kernel/adapter.hpp"

namespace ca {

using instr::Fn;

namespace {

#ifndef CA_FUSED_TILE
#define CA_FUSED_TILE 512
#endif
// Elements per tile: 4 KiB of float64 per register. Small tiles keep the reads of the inputs (from
// memory) close together between the passes over the tile (in L1), so the hardware prefetcher keeps
// streaming; 1024 measured ~15 % slower on W4 ((x + 1) * 2).sum(), 256 no faster than 512.
constexpr int64_t kTile = CA_FUSED_TILE;
constexpr size_t kMaxItem = 16;  // largest dtype (complex128)
// Register tiles start this far (modulo 4 KiB) after the first input read in place: a store to a
// tile whose address matches, modulo 4 KiB, a load just ahead of it in the input stalls the load
// (4K aliasing), and with tiles of 4 KiB that distance is the same for every tile of a block, so a
// bad one (0 to ~512 bytes) slowed whole computes by up to 2.5x at random (wherever malloc put the
// scratch). See docs/benchmarks.md (W4).
constexpr uintptr_t kPage = 4096;
constexpr uintptr_t kAnchorGap = 1024;

}  // namespace

/// A program resolved to functions, plus each register's last use (for buffer reuse).
struct PreparedProgram {
  const ExprProgram *p = nullptr;
  std::vector<Fn> fns;
  std::vector<Fn> fns_sa, fns_sb;  // binary ops with a scalar first / second operand
  std::vector<int32_t> last_use;  // per register: index of the last instruction reading it
  std::vector<GenSpec> gens;      // per instruction (kOpGen only)
  bool chain = false;             // chain_candidate (array/expr_chain.hpp)
};

namespace {

using Prepared = PreparedProgram;

/// The chain code of an input-dependent instruction of dtype T (array/expr_chain.hpp), or -1.
int chain_code(const ExprInstr &ins, DType t) {
  if (ins.dtype != t || ins.in_dtype != t) return -1;
  switch (ins.op) {
    case CA_OP_ADD: return instr::Chain::kAdd;
    case CA_OP_SUB: return instr::Chain::kSub;
    case CA_OP_MUL: return instr::Chain::kMul;
    case CA_OP_DIV: return instr::Chain::kDiv;
    case CA_OP_NEG: return instr::Chain::kNeg;
    case CA_OP_ABS:
    case CA_OP_FABS: return instr::Chain::kAbs;
    case CA_OP_SQUARE: return instr::Chain::kSquare;
    default: return -1;
  }
}

/// Whether a program may be a chain whatever its inputs (chain_candidate).
bool chain_shape(const ExprProgram &p) {
  const size_t nin = p.inputs.size();
  if (p.coords || nin == 0 || nin > size_t(instr::Chain::kMaxIn) || p.out < int32_t(nin)) return false;
  for (size_t i = 0; i < nin; ++i)
    if (p.is_transposed(i)) return false;
  const DType t = p.reg_dtype(p.out);
  if (t != CA_FLOAT32 && t != CA_FLOAT64) return false;
  std::vector<uint8_t> dep(nin + p.code.size(), 0);
  for (size_t i = 0; i < nin; ++i) dep[i] = 1;
  int32_t nops = 0;
  for (size_t k = 0; k < p.code.size(); ++k) {
    const ExprInstr &ins = p.code[k];
    if (ins.op == kOpGen) return false;
    for (int32_t o : {ins.a, ins.b, ins.c})
      if (o >= 0 && dep[size_t(o)]) dep[nin + k] = 1;
    if (!dep[nin + k]) continue;
    if (chain_code(ins, t) < 0 || ins.c >= 0 || ++nops > instr::Chain::kMaxOps) return false;
  }
  return dep[size_t(p.out)] != 0;
}

void prepare(Prepared &pp, const ExprProgram &p) {
  pp.p = &p;
  const int32_t nin = int32_t(p.inputs.size());
  const int32_t nreg = nin + int32_t(p.code.size());
  if (p.out < 0 || p.out >= nreg) fail(CA_EFORMAT, "fused program: result register ", p.out, " out of range");
  pp.fns.resize(p.code.size());
  pp.fns_sa.resize(p.code.size());
  pp.fns_sb.resize(p.code.size());
  pp.last_use.assign(size_t(nreg), -1);
  pp.gens.assign(p.code.size(), GenSpec{});
  for (size_t k = 0; k < p.code.size(); ++k) {
    const ExprInstr &ins = p.code[k];
    if (ins.op == kOpGen) {
      if (!p.coords) fail(CA_EFORMAT, "fused program: a generator without the array's shape");
      pp.gens[k] = gen_spec_of(ins);
      gen_check(pp.gens[k]);
    }
    pp.fns[k] = instr::resolve(ins, 0);
    pp.fns_sa[k] = instr::resolve(ins, 1);
    pp.fns_sb[k] = instr::resolve(ins, 2);
    for (int32_t r : {ins.a, ins.b, ins.c}) {
      if (r < -1 || r >= nin + int32_t(k)) fail(CA_EFORMAT, "fused program: instruction ", k, " reads register ", r);
      if (r >= 0) pp.last_use[size_t(r)] = int32_t(k);
    }
  }
  pp.last_use[size_t(p.out)] = std::numeric_limits<int32_t>::max();
  pp.chain = chain_shape(p);
}

struct AlignedFree {
  void operator()(void *p) const { std::free(p); }
};

/// Per-thread scratch memory for register tiles (reused across kernel calls).
struct Scratch {
  std::unique_ptr<char, AlignedFree> mem;
  size_t cap = 0;
  bool busy = false;
  char *get(size_t n) {
    if (n > cap) {
      size_t c = std::max(n, cap * 2);
      c = (c + 63) & ~size_t(63);
      void *m = std::aligned_alloc(64, c);
      if (!m) throw std::bad_alloc();
      mem.reset(static_cast<char *>(m));
      cap = c;
    }
    return mem.get();
  }
};
thread_local Scratch t_scratch;

struct InputView {
  const char *data = nullptr;
  size_t isz = 0;
  int mode = 0;  // 0 in place, 1 gathered per tile, 2 invariant (one element), 3 transposed (band)
  Index strides[CA_MAX_NDIM];  // elements, per output dimension (0 where broadcast)
};

// A transposed input (ExprProgram::transposed; the output is R x C, the block C x R): output rows
// [r0, r0 + rows) copied out of the block at once, so the block is read a cache line per source row
// (kBand consecutive elements) instead of one line per element, and the tiles (C-order runs of the
// output) then read the band contiguously. The band is kBand x C elements (64 KiB for 1024 float64
// columns: in L2).
struct Band {
  std::vector<char> buf;
  Index r0 = -1, rows = 0;
};

template <size_t N>
void load_band_n(const char *block, Index R, Index C, Index r0, Index rows, char *band) {
  for (Index j = 0; j < C; ++j) {
    const char *s = block + (j * R + r0) * Index(N);
    for (Index k = 0; k < rows; ++k) std::memcpy(band + (k * C + j) * Index(N), s + k * Index(N), N);
  }
}

void load_band(const InputView &v, Band &band, Index R, Index C, Index r) {
  const Index kBand = std::max<Index>(8, 64 / Index(v.isz));
  band.r0 = r;
  band.rows = std::min(kBand, R - r);
  band.buf.resize(size_t(kBand * C) * v.isz);
  char *b = band.buf.data();
  switch (v.isz) {
    case 1: load_band_n<1>(v.data, R, C, r, band.rows, b); break;
    case 2: load_band_n<2>(v.data, R, C, r, band.rows, b); break;
    case 4: load_band_n<4>(v.data, R, C, r, band.rows, b); break;
    case 8: load_band_n<8>(v.data, R, C, r, band.rows, b); break;
    case 16: load_band_n<16>(v.data, R, C, r, band.rows, b); break;
    default:
      for (Index j = 0; j < C; ++j)
        for (Index k = 0; k < band.rows; ++k)
          std::memcpy(b + size_t(k * C + j) * v.isz, v.data + size_t(j * R + r + k) * v.isz, v.isz);
  }
}

// Elements [off, off + n) of the transposed input: a pointer into the band when they lie in it,
// else copied into `slot` band by band.
const char *transposed_tile(const InputView &v, Band &band, Index R, Index C, Index off, Index n, char *slot) {
  Index r = off / C;
  if (r < band.r0 || r >= band.r0 + band.rows) load_band(v, band, R, C, r);
  if (off + n <= (band.r0 + band.rows) * C) return band.buf.data() + size_t(off - band.r0 * C) * v.isz;
  Index done = 0;
  while (done < n) {
    const Index o = off + done;
    r = o / C;
    if (r < band.r0 || r >= band.r0 + band.rows) load_band(v, band, R, C, r);
    const Index run = std::min(n - done, (band.r0 + band.rows) * C - o);
    std::memcpy(slot + size_t(done) * v.isz, band.buf.data() + size_t(o - band.r0 * C) * v.isz, size_t(run) * v.isz);
    done += run;
  }
  return slot;
}

void fill_elems(char *dst, const char *elem, size_t isz, int64_t n) {
  switch (isz) {
    case 1: std::memset(dst, *elem, size_t(n)); break;
    case 2: { uint16_t v; std::memcpy(&v, elem, 2); auto *d = reinterpret_cast<uint16_t *>(dst); for (int64_t i = 0; i < n; ++i) d[i] = v; break; }
    case 4: { uint32_t v; std::memcpy(&v, elem, 4); auto *d = reinterpret_cast<uint32_t *>(dst); for (int64_t i = 0; i < n; ++i) d[i] = v; break; }
    case 8: { uint64_t v; std::memcpy(&v, elem, 8); auto *d = reinterpret_cast<uint64_t *>(dst); for (int64_t i = 0; i < n; ++i) d[i] = v; break; }
    default:
      for (int64_t i = 0; i < n; ++i) std::memcpy(dst + size_t(i) * isz, elem, isz);
  }
}

/// Copy elements [off, off + n) of the broadcast view of `in` (C order over `shape`) into dst.
void gather(const InputView &in, const std::vector<Index> &shape, Index off, Index n, char *dst) {
  const int D = int(shape.size());
  const size_t isz = in.isz;
  if (D == 0) {
    std::memcpy(dst, in.data, isz);
    return;
  }
  Index idx[CA_MAX_NDIM];
  Index rem = off;
  for (int d = D - 1; d >= 0; --d) {
    idx[d] = rem % shape[size_t(d)];
    rem /= shape[size_t(d)];
  }
  const Index last = shape[size_t(D - 1)];
  const Index ls = in.strides[D - 1];
  Index done = 0;
  while (done < n) {
    Index src = 0;
    for (int d = 0; d < D; ++d) src += idx[d] * in.strides[d];
    Index run = std::min(last - idx[D - 1], n - done);
    const char *s = in.data + size_t(src) * isz;
    char *o = dst + size_t(done) * isz;
    if (ls == 0) fill_elems(o, s, isz, run);
    else std::memcpy(o, s, size_t(run) * isz);
    done += run;
    idx[D - 1] += run;
    for (int d = D - 1; d > 0 && idx[d] == shape[size_t(d)]; --d) {
      idx[d] = 0;
      ++idx[d - 1];
    }
  }
}

/// Validate the input blocks against the program and compute the broadcast output shape.
void broadcast_inputs(const ExprProgram &p, const Block *const *inputs, size_t ninputs, const GenCoords *coords,
                      std::vector<Index> &shape) {
  const size_t nin = p.inputs.size();
  if (ninputs != nin) fail(CA_EINVAL, "fused program takes ", nin, " input blocks, got ", ninputs);
  if (p.coords && !coords) fail(CA_EINVAL, "a generating fused program needs its block's origin and shape");
  int D = p.coords ? coords->ndim : 0;
  for (size_t i = 0; i < nin; ++i) {
    if (!inputs[i]) fail(CA_EINVAL, "fused program: input ", i, " is null");
    if (inputs[i]->dtype != p.inputs[i])
      fail(CA_ETYPE, "fused program: input ", i, " has dtype ",
           dtype_name(inputs[i]->dtype) ? dtype_name(inputs[i]->dtype) : "?", ", the program expects ",
           dtype_name(p.inputs[i]));
    D = std::max(D, int(inputs[i]->ndim));
  }
  for (size_t i = 0; i < nin; ++i)
    if (p.is_transposed(i) && inputs[i]->ndim != 2)
      fail(CA_EINVAL, "fused program: transposed input ", i, " has ", inputs[i]->ndim, " dimensions, not 2");
  shape.assign(size_t(D), 1);
  if (p.coords) {
    for (int d = 0; d < coords->ndim; ++d) shape[size_t(D - coords->ndim + d)] = coords->shape[d];
  }
  for (size_t i = 0; i < nin; ++i) {
    const Block *b = inputs[i];
    const bool tr = p.is_transposed(i);
    for (int k = 0; k < b->ndim; ++k) {
      Index e = tr ? b->shape[1 - k] : b->shape[k];
      Index &s = shape[size_t(D - b->ndim + k)];
      if (e == s || e == 1) continue;
      if (s == 1) s = e;
      else
        fail(CA_EINVAL, "fused program: input blocks do not broadcast (dimension ", D - b->ndim + k, ": ", s,
             " vs ", e, ")");
    }
  }
  // A transposed input is read whole (no broadcasting): the result is its transposed shape.
  for (size_t i = 0; i < nin; ++i)
    if (p.is_transposed(i) && (D != 2 || shape[0] != inputs[i]->shape[1] || shape[1] != inputs[i]->shape[0]))
      fail(CA_EINVAL, "fused program: transposed input ", i, " does not have the result's shape");
}

/// Evaluate over the broadcast `shape` (from broadcast_inputs): `out_data` receives the result in C
/// order, or (out_data null) each tile goes to `sink`.
/// Elements [off, off + n) (C order over the block's `shape`) of generator `g` into dst.
void gen_tile(const GenSpec &g, const GenCoords &c, const Index *gstride, const std::vector<Index> &shape, Index off,
              Index n, char *dst) {
  const int D = int(shape.size());
  const size_t isz = dtype_size(g.dtype);
  if (D == 0 || g.kind == GenSpec::Full) {
    gen_fill(g, 0, n, dst);
    return;
  }
  Index idx[CA_MAX_NDIM];
  Index rem = off;
  for (int d = D - 1; d >= 0; --d) {
    idx[d] = rem % shape[size_t(d)];
    rem /= shape[size_t(d)];
  }
  const Index last = shape[size_t(D - 1)];
  const int lead = D - c.ndim;  // the block may have leading broadcast dims the generator lacks
  Index done = 0;
  while (done < n) {
    Index glin = 0;
    for (int d = 0; d < c.ndim; ++d) glin += (c.origin[d] + idx[lead + d]) * gstride[d];
    Index run = std::min(last - idx[D - 1], n - done);
    gen_fill(g, glin, run, dst + size_t(done) * isz);
    done += run;
    idx[D - 1] += run;
    for (int d = D - 1; d > 0 && idx[d] == shape[size_t(d)]; --d) {
      idx[d] = 0;
      ++idx[d - 1];
    }
  }
}

void run(const Prepared &pp, const Block *const *inputs, const std::vector<Index> &shape, const GenCoords *coords,
         char *out_data, const std::function<void(const void *, int64_t, int64_t)> *sink, bool *columns = nullptr) {
  const ExprProgram &p = *pp.p;
  const size_t nin = p.inputs.size();
  const int D = int(shape.size());
  Index N = 1;
  for (Index s : shape) N *= s;
  if (N == 0) return;

  const int32_t nreg = int32_t(nin + p.code.size());
  const int64_t T = std::min<int64_t>(kTile, N);
  // Slots are staggered by 5 cache lines so that tiles of different registers do not alias modulo
  // 4 KiB (loads stalling behind stores to a different register: a large slowdown on x86).
  // Registers of bytes/unicode dtypes may be wider than any numeric dtype.
  size_t max_item = kMaxItem;
  for (int32_t r = 0; r < nreg; ++r) max_item = std::max(max_item, dtype_size(p.reg_dtype(r)));
  const size_t slot_bytes = ((size_t(T) * max_item + 63) & ~size_t(63)) + 320;

  // Register plan: which registers hold a slot, which are invariant (same in every tile).
  std::vector<InputView> views(nin);
  std::vector<int32_t> slot(size_t(nreg), -1);
  std::vector<uint8_t> inv(size_t(nreg), 0);
  std::vector<int32_t> free_slots;
  int32_t nslots = 0;
  for (size_t i = 0; i < nin; ++i) {
    const Block *b = inputs[i];
    InputView &v = views[i];
    v.data = static_cast<const char *>(b->data);
    v.isz = dtype_size(b->dtype);
    if (p.is_transposed(i)) {
      v.mode = 3;
      slot[i] = nslots++;
    } else if (b->size == N) {
      v.mode = 0;
    } else if (b->size == 1) {
      v.mode = 2;
      inv[i] = 1;
      slot[i] = nslots++;
    } else {
      v.mode = 1;
      slot[i] = nslots++;
      Index st = 1;
      for (int d = D - 1; d >= 0; --d) {
        int k = d - (D - b->ndim);
        if (k < 0 || b->shape[k] == 1) {
          v.strides[d] = 0;
        } else {
          v.strides[d] = st;
          st *= b->shape[k];
        }
      }
    }
  }
  for (size_t k = 0; k < p.code.size(); ++k) {
    const ExprInstr &ins = p.code[k];
    const int32_t r = int32_t(nin + k);
    bool all_inv = ins.op != kOpGen || pp.gens[k].kind == GenSpec::Full;
    for (int32_t o : {ins.a, ins.b, ins.c})
      if (o >= 0 && !inv[size_t(o)]) all_inv = false;
    inv[size_t(r)] = all_inv;
    if (!free_slots.empty() && !all_inv) {
      slot[size_t(r)] = free_slots.back();
      free_slots.pop_back();
    } else {
      slot[size_t(r)] = nslots++;
    }
    // Release operands whose value dies here (not inputs, not invariants).
    int32_t ops[3] = {ins.a, ins.b, ins.c};
    for (int j = 0; j < 3; ++j) {
      int32_t o = ops[j];
      if (o < int32_t(nin) || inv[size_t(o)] || pp.last_use[size_t(o)] != int32_t(k)) continue;
      bool dup = false;
      for (int q = 0; q < j; ++q) dup |= ops[q] == o;
      if (!dup) free_slots.push_back(slot[size_t(o)]);
    }
  }

  Scratch local;
  Scratch &scr = t_scratch.busy ? local : t_scratch;
  const bool was_busy = scr.busy;
  scr.busy = true;
  struct Unbusy {
    Scratch &s;
    bool v;
    ~Unbusy() { s.busy = v; }
  } unbusy{scr, was_busy};
  char *mem = scr.get(slot_bytes * size_t(std::max(nslots, 1)) + kPage);
  {
    const char *anchor = nullptr;
    for (size_t i = 0; i < nin && !anchor; ++i)
      if (views[i].mode == 0) anchor = views[i].data;
    if (anchor) mem += ((uintptr_t(anchor) + kAnchorGap - uintptr_t(mem)) % kPage) & ~uintptr_t(63);
  }
  auto slot_ptr = [&](int32_t r) { return mem + size_t(slot[size_t(r)]) * slot_bytes; };

  std::vector<const void *> regp(size_t(nreg), nullptr);
  auto operand = [&](int32_t o) -> const void * { return o >= 0 ? regp[size_t(o)] : nullptr; };
  // Invariants: computed once over a whole tile.
  for (size_t i = 0; i < nin; ++i)
    if (views[i].mode == 2) {
      fill_elems(slot_ptr(int32_t(i)), views[i].data, views[i].isz, T);
      regp[i] = slot_ptr(int32_t(i));
    }
  for (size_t k = 0; k < p.code.size(); ++k) {
    const int32_t r = int32_t(nin + k);
    if (!inv[size_t(r)]) continue;
    const ExprInstr &ins = p.code[k];
    if (ins.op == kOpGen) gen_fill(pp.gens[k], 0, T, slot_ptr(r));
    else pp.fns[k](ins, operand(ins.a), operand(ins.b), operand(ins.c), slot_ptr(r), T);
    regp[size_t(r)] = slot_ptr(r);
  }
  // Generators: the block's global strides.
  Index gstride[CA_MAX_NDIM] = {};
  if (p.coords) {
    Index st = 1;
    for (int d = int(p.gshape.size()) - 1; d >= 0; --d) {
      gstride[d] = st;
      st *= p.gshape[size_t(d)];
    }
  }

  // Per instruction: the scalar-operand version where one operand is invariant.
  std::vector<Fn> fn(pp.fns);
  for (size_t k = 0; k < p.code.size(); ++k) {
    const ExprInstr &ins = p.code[k];
    if (ins.a < 0 || ins.b < 0) continue;
    const bool ia = inv[size_t(ins.a)], ib = inv[size_t(ins.b)];
    if (ib && !ia && pp.fns_sb[k]) fn[k] = pp.fns_sb[k];
    else if (ia && !ib && pp.fns_sa[k]) fn[k] = pp.fns_sa[k];
  }
  const size_t osz = dtype_size(p.reg_dtype(p.out));
  const bool out_direct = out_data && p.out >= int32_t(nin) && !inv[size_t(p.out)];
  // One instruction over inputs read in place, straight into the output: nothing is reused between
  // tiles, so the whole block goes to the instruction's function in one call (no per-tile dispatch).
  if (out_direct && p.code.size() == 1 && p.out == int32_t(nin) && p.code[0].op != kOpGen) {
    bool in_place = true;
    for (size_t i = 0; i < nin; ++i) in_place = in_place && views[i].mode == 0;
    if (in_place) {
      const ExprInstr &ins = p.code[0];
      auto whole = [&](int32_t o) -> const void * { return o >= 0 ? views[size_t(o)].data : nullptr; };
      fn[0](ins, whole(ins.a), whole(ins.b), whole(ins.c), out_data, N);
      return;
    }
  }
  std::vector<Band> bands(nin);
  auto tile = [&](Index off, int64_t n) {
    for (size_t i = 0; i < nin; ++i) {
      const InputView &v = views[i];
      if (v.mode == 0) {
        regp[i] = v.data + size_t(off) * v.isz;
      } else if (v.mode == 3) {
        regp[i] = transposed_tile(v, bands[i], shape[0], shape[1], off, n, slot_ptr(int32_t(i)));
      } else if (v.mode == 1) {
        gather(v, shape, off, n, slot_ptr(int32_t(i)));
        regp[i] = slot_ptr(int32_t(i));
      }
    }
    for (size_t k = 0; k < p.code.size(); ++k) {
      const int32_t r = int32_t(nin + k);
      if (inv[size_t(r)]) continue;
      const ExprInstr &ins = p.code[k];
      void *dst = (out_direct && r == p.out) ? static_cast<void *>(out_data + size_t(off) * osz) : slot_ptr(r);
      if (ins.op == kOpGen) gen_tile(pp.gens[k], *coords, gstride, shape, off, n, static_cast<char *>(dst));
      else fn[k](ins, operand(ins.a), operand(ins.b), operand(ins.c), dst, n);
      regp[size_t(r)] = dst;
    }
    if (out_data) {
      if (!out_direct) std::memcpy(out_data + size_t(off) * osz, regp[size_t(p.out)], size_t(n) * osz);
    } else {
      (*sink)(regp[size_t(p.out)], n, off);
    }
  };
  // Column segments (eval_program_tiles): only over generated and broadcast inputs (gather and
  // gen_tile place any offset; in-place inputs would be read across rows, transposed ones keep
  // bands in C order), rows longer than one tile (else C order is already one segment).
  bool by_columns = columns && *columns && sink && !out_data && D >= 2 && shape[size_t(D - 1)] > T;
  for (size_t i = 0; i < nin && by_columns; ++i) by_columns = views[i].mode == 1 || views[i].mode == 2;
  if (columns) *columns = by_columns;
  if (by_columns) {
    const Index row = shape[size_t(D - 1)], rows = N / row;
    for (Index c0 = 0; c0 < row; c0 += T)
      for (Index r = 0; r < rows; ++r) tile(r * row + c0, std::min<int64_t>(T, row - c0));
    return;
  }
  for (Index off = 0; off < N; off += T) tile(off, std::min<int64_t>(T, N - off));
}

/// Whether [p, p + n) and block b's data overlap.
bool overlaps(const void *p, int64_t n, const Block *b) {
  if (!b || !b->data || n <= 0 || b->nbytes <= 0) return false;
  const auto lo = reinterpret_cast<uintptr_t>(p), blo = reinterpret_cast<uintptr_t>(b->data);
  return lo < blo + uintptr_t(b->nbytes) && blo < lo + uintptr_t(n);
}

/// dest (may be null): memory of dest_bytes bytes the result may be written to (compute_into's
/// region of the caller's buffer): used when the result has exactly that size and no input block
/// shares that memory; the block returned then wraps it (no copy, no fresh allocation).
Block *eval_prepared(const Prepared &pp, const Block *const *inputs, size_t ninputs, const GenCoords *coords,
                     void *dest = nullptr, int64_t dest_bytes = 0) {
  const ExprProgram &p = *pp.p;
  // Identity over an input of the output's shape: hand the block out without copying.
  if (p.out < int32_t(p.inputs.size()) && ninputs == 1 && p.inputs.size() == 1 && inputs[0] &&
      inputs[0]->dtype == p.inputs[0] && !p.is_transposed(0))
    return block_retain(inputs[0]);
  std::vector<Index> shape;
  broadcast_inputs(p, inputs, ninputs, coords, shape);
  const DType odt = p.reg_dtype(p.out);
  if (dest) {
    int64_t nb = int64_t(dtype_size(odt));
    for (Index s : shape) nb *= s;
    bool ok = nb == dest_bytes && nb > 0;
    for (size_t i = 0; ok && i < ninputs; ++i) ok = !overlaps(dest, nb, inputs[i]);
    if (!ok) dest = nullptr;
  }
  BlockRef out(dest ? block_wrap(odt, int32_t(shape.size()), shape.data(), dest, nullptr, nullptr)
                    : block_new(odt, int32_t(shape.size()), shape.data()));
  run(pp, inputs, shape, coords, static_cast<char *>(out->data), nullptr);
  return out.release();
}

// ---- the kernel ------------------------------------------------------------------------------------

/// Parsed and resolved programs, cached per thread by their bytes (tasks of one layer share one).
struct CacheEntry {
  std::string bytes;
  std::unique_ptr<ExprProgram> program;
  Prepared prepared;
};
struct ProgramCache {
  static constexpr size_t kSize = 16;
  CacheEntry entries[kSize];
  size_t next = 0;
  const Prepared &get(const void *data, size_t n) {
    for (auto &e : entries)
      if (e.program && e.bytes.size() == n && std::memcmp(e.bytes.data(), data, n) == 0) return e.prepared;
    CacheEntry &e = entries[next];
    next = (next + 1) % kSize;
    e.program.reset();
    auto prog = std::make_unique<ExprProgram>(ExprProgram::parse(data, n));
    prepare(e.prepared, *prog);
    e.bytes.assign(static_cast<const char *>(data), n);
    e.program = std::move(prog);
    e.prepared.p = e.program.get();
    return e.prepared;
  }
};
thread_local ProgramCache t_cache;

ca_status_t k_fused(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return kernel_boundary(out, kctx, [&] {
    if (nargs < 1 || args[0].kind != CA_ARG_BYTES)
      fail(CA_EINVAL, "ca.fused takes the program (bytes) and then its input blocks");
    const Prepared &pp = t_cache.get(args[0].u.bytes.data, args[0].u.bytes.len);
    GenCoords coords;
    size_t first = 1;
    if (pp.p->coords) {
      if (nargs < 3) fail(CA_EINVAL, "ca.fused: a generating program takes its block's origin and shape");
      coords = gen_coords_from_args(*pp.p, args[1], args[2]);
      first = 3;
    }
    const Block *small[16];
    std::vector<const Block *> big;
    const Block **in = small;
    const size_t nin = nargs - first;
    if (nin > 16) {
      big.resize(nin);
      in = big.data();
    }
    for (size_t i = 0; i < nin; ++i) {
      if (args[i + first].kind != CA_ARG_BLOCK || !args[i + first].u.block)
        fail(CA_EINVAL, "ca.fused: argument ", i + first, " is not a block");
      in[i] = args[i + first].u.block;
    }
    *out = eval_prepared(pp, in, nin, pp.p->coords ? &coords : nullptr, kctx ? kctx->out_dest : nullptr,
                         kctx ? kctx->out_dest_bytes : 0);
  });
}

}  // namespace

Block *eval_program(const ExprProgram &p, const Block *const *inputs, size_t ninputs, const GenCoords *coords) {
  Prepared pp;
  prepare(pp, p);
  return eval_prepared(pp, inputs, ninputs, coords);
}

Block *eval_prepared_program(const PreparedProgram &pp, const Block *const *inputs, size_t ninputs,
                             const GenCoords *coords, void *dest, int64_t dest_bytes) {
  return eval_prepared(pp, inputs, ninputs, coords, dest, dest_bytes);
}

const PreparedProgram &prepared_program(const void *bytes, size_t n) { return t_cache.get(bytes, n); }
bool is_builtin_fused_kernel(const ca_kernel_t *k) { return k && k->fn == k_fused; }
const ExprProgram &program_of(const PreparedProgram &pp) { return *pp.p; }

void eval_program_tiles(const PreparedProgram &pp, const Block *const *inputs, size_t ninputs,
                        const GenCoords *coords, std::vector<Index> &out_shape,
                        const std::function<void(const void *tile, int64_t n, int64_t offset)> &sink,
                        bool *columns) {
  broadcast_inputs(*pp.p, inputs, ninputs, coords, out_shape);
  run(pp, inputs, out_shape, coords, nullptr, &sink, columns);
}

bool chain_candidate(const PreparedProgram &pp) { return pp.chain; }

bool chain_of(const PreparedProgram &pp, const Block *const *inputs, size_t ninputs, int64_t N, instr::Chain &c) {
  using instr::Chain;
  if (!pp.chain || N <= 0) return false;
  const ExprProgram &p = *pp.p;
  const size_t nin = p.inputs.size();
  const size_t nreg = nin + p.code.size();
  const DType t = p.reg_dtype(p.out);
  constexpr size_t kMaxReg = 48, kSlot = 64;
  if (ninputs != nin || nreg > kMaxReg) return false;
  // Invariant registers' values (one element each), as the interpreter computes them.
  alignas(64) char val[kMaxReg][kSlot];
  bool inv[kMaxReg] = {};
  c = Chain{};
  c.dtype = t;
  c.nin = int32_t(nin);
  for (size_t i = 0; i < nin; ++i) {
    const Block *b = inputs[i];
    if (!b || b->dtype != p.inputs[i] || (b->size > 0 && !b->data)) return false;
    const size_t isz = dtype_size(b->dtype);
    if (b->size == N && N > 1) {
      if (b->dtype != t) return false;
      c.in[i] = b->data;
    } else if (b->size == 1) {
      if (isz > kSlot) return false;
      std::memcpy(val[i], b->data, isz);
      inv[i] = true;
    } else {
      return false;  // broadcast along some axis (gathered per tile), or N == 1
    }
  }
  int32_t nconst = 0, prev = -1;
  for (size_t k = 0; k < p.code.size(); ++k) {
    const ExprInstr &ins = p.code[k];
    const int32_t r = int32_t(nin + k);
    bool all_inv = true;
    for (int32_t o : {ins.a, ins.b, ins.c})
      if (o >= 0 && !inv[size_t(o)]) all_inv = false;
    if (all_inv) {
      if (dtype_size(ins.dtype) > kSlot) return false;
      auto opnd = [&](int32_t o) -> const void * { return o >= 0 ? val[size_t(o)] : nullptr; };
      pp.fns[k](ins, opnd(ins.a), opnd(ins.b), opnd(ins.c), val[size_t(r)], 1);
      inv[size_t(r)] = true;
      continue;
    }
    const int code = chain_code(ins, t);
    if (code < 0 || c.nops >= Chain::kMaxOps) return false;
    // The previous chain value must be read here and nowhere after.
    if (prev >= 0 && pp.last_use[size_t(prev)] != int32_t(k)) return false;
    Chain::Op &op = c.ops[c.nops++];
    uint8_t kind[2] = {0, 0}, idx[2] = {0, 0};
    const int32_t ops[2] = {ins.a, ins.b};
    const int arity = code <= Chain::kDiv ? 2 : 1;
    for (int j = 0; j < arity; ++j) {
      const int32_t o = ops[j];
      if (o < 0) return false;
      if (inv[size_t(o)]) {
        if (p.reg_dtype(o) != t || nconst >= Chain::kMaxConst) return false;
        if (t == CA_FLOAT32) std::memcpy(&c.kf[nconst], val[size_t(o)], sizeof(float));
        else std::memcpy(&c.kd[nconst], val[size_t(o)], sizeof(double));
        kind[j] = Chain::kConst, idx[j] = uint8_t(nconst++);
      } else if (o < int32_t(nin)) {
        kind[j] = Chain::kIn, idx[j] = uint8_t(o);
      } else if (o == prev) {
        kind[j] = Chain::kCur;
      } else {
        return false;  // an earlier value, not the previous one: the tiles keep registers
      }
    }
    op.key = uint8_t(code * 9 + kind[0] * 3 + kind[1]);
    op.a = idx[0], op.b = idx[1];
    prev = r;
  }
  return prev == p.out;
}

void register_ops_kernels(KernelRegistry &reg) { reg.add(kernel_new("ca.fused", k_fused, 1, nullptr, nullptr), true); }

}  // namespace ca
