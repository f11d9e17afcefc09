// libffi adapter: kernels over plain C functions described by a signature string. See kernel.h
// ca_kernel_new_ffi for the rules; in short:
//  - all-scalar parameters: the function is applied element by element over broadcast blocks;
//  - pointer parameters: the function gets whole blocks (an i64 right after a pointer is its length).
#include <ffi.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include "core/checked.hpp"
#include "kernel/adapter.hpp"

namespace ca {

namespace {

static_assert(sizeof(bool) == 1, "ffi kernels map bool to a one-byte unsigned integer");

// ------------------------------------------------------------------------------------------------
// Signature types

struct TypeName {
  const char *name;
  DType dtype;
};
constexpr TypeName kTypeNames[] = {
    {"i8", CA_INT8},     {"i16", CA_INT16},   {"i32", CA_INT32},     {"i64", CA_INT64},
    {"u8", CA_UINT8},    {"u16", CA_UINT16},  {"u32", CA_UINT32},    {"u64", CA_UINT64},
    {"f32", CA_FLOAT32}, {"f64", CA_FLOAT64}, {"bool", CA_BOOL},
};
constexpr const char *kTypeList = "i8 i16 i32 i64 u8 u16 u32 u64 f32 f64 bool";

const char *type_token(DType t) {
  for (const auto &tn : kTypeNames)
    if (tn.dtype == t) return tn.name;
  return "?";
}

ffi_type *ffi_type_of(DType t) {
  switch (t) {
    case CA_BOOL: return &ffi_type_uint8;
    case CA_INT8: return &ffi_type_sint8;
    case CA_INT16: return &ffi_type_sint16;
    case CA_INT32: return &ffi_type_sint32;
    case CA_INT64: return &ffi_type_sint64;
    case CA_UINT8: return &ffi_type_uint8;
    case CA_UINT16: return &ffi_type_uint16;
    case CA_UINT32: return &ffi_type_uint32;
    case CA_UINT64: return &ffi_type_uint64;
    case CA_FLOAT32: return &ffi_type_float;
    case CA_FLOAT64: return &ffi_type_double;
    default: return nullptr;
  }
}

/// Call f(TypeTag<T>{}) for the eleven scalar types a signature can name (no complex, no raw).
template <class F>
decltype(auto) dispatch_scalar(DType t, F &&f) {
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
    default: fail(CA_ETYPE, "dtype ", dtype_name(t) ? dtype_name(t) : "?", " is not a bool, integer or float dtype");
  }
}

bool is_scalar_dtype(DType t) { return ffi_type_of(t) != nullptr; }

/// Value conversion as a C cast, except that float -> integer is defined everywhere: NaN gives 0 and
/// out-of-range values saturate (a plain cast would be undefined behaviour there).
template <class D, class S>
D convert(S v) {
  if constexpr (std::is_same_v<D, bool>) {
    return v != S(0);
  } else if constexpr (std::is_floating_point_v<S> && std::is_integral_v<D>) {
    if (std::isnan(v)) return D(0);
    if (v <= static_cast<S>(std::numeric_limits<D>::min())) return std::numeric_limits<D>::min();
    if (v >= static_cast<S>(std::numeric_limits<D>::max())) return std::numeric_limits<D>::max();
    return static_cast<D>(v);
  } else {
    return static_cast<D>(v);
  }
}

// ------------------------------------------------------------------------------------------------
// Signature parsing

struct Param {
  DType dtype = 0;
  bool pointer = false;
  bool count = false;  // an i64 right after a pointer (pointer mode): receives that block's size
};

struct Signature {
  DType ret = 0;  // 0 is void
  std::vector<Param> params;
  bool pointer_mode = false;
  size_t ntask_args = 0;  // task arguments a call takes
  std::string canonical;  // whitespace removed: "f64(f64*,i64)"
};

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

std::string trim(const std::string &s) {
  size_t b = 0, e = s.size();
  while (b < e && is_space(s[b])) ++b;
  while (e > b && is_space(s[e - 1])) --e;
  return s.substr(b, e - b);
}

[[noreturn]] void bad_signature(const std::string &sig, const std::string &why) {
  fail(CA_EINVAL, "ffi signature '", sig, "': ", why);
}

/// One type token: "f64", "f64*", "f64 *", "void". Returns {dtype (0 = void), pointer}.
Param parse_type(const std::string &sig, const std::string &tok0, bool is_ret, size_t pos) {
  const std::string where = is_ret ? std::string("return type") : str("parameter ", pos + 1);
  std::string tok = trim(tok0);
  if (tok.empty()) bad_signature(sig, str(where, " is empty"));
  Param p;
  int stars = 0;
  while (!tok.empty() && tok.back() == '*') {
    ++stars;
    tok = trim(tok.substr(0, tok.size() - 1));
  }
  if (stars > 1) bad_signature(sig, str(where, " '", trim(tok0), "': pointers to pointers are not supported"));
  p.pointer = stars == 1;
  if (tok == "void") {
    if (!is_ret) bad_signature(sig, str(where, " is 'void': void is only allowed as the return type"));
    if (p.pointer) bad_signature(sig, "return type 'void*' is not supported");
    return p;
  }
  for (const auto &tn : kTypeNames)
    if (tok == tn.name) {
      p.dtype = tn.dtype;
      if (is_ret && p.pointer)
        bad_signature(sig, str("return type '", tok, "*' is a pointer; return void and write through a pointer "
                                                  "parameter instead"));
      return p;
    }
  bad_signature(sig, str("unknown type '", tok, "' in ", where, " (types: ", kTypeList,
                         ", 'T*' for a pointer, 'void' for the return type)"));
}

Signature parse_signature(const std::string &sig0) {
  const std::string sig = trim(sig0);
  if (sig.empty()) fail(CA_EINVAL, "ffi signature is empty (expected 'RET(ARG,...)', e.g. 'f64(f64,i64)')");
  const size_t lp = sig.find('(');
  if (lp == std::string::npos)
    bad_signature(sig, "missing '(' (expected 'RET(ARG,...)', e.g. 'f64(f64,i64)')");
  const size_t rp = sig.find(')', lp + 1);
  if (rp == std::string::npos) bad_signature(sig, "missing ')' closing the parameter list");
  const std::string inner = sig.substr(lp + 1, rp - lp - 1);
  if (inner.find('(') != std::string::npos) bad_signature(sig, "unexpected '(' in the parameter list");
  const std::string rest = trim(sig.substr(rp + 1));
  if (!rest.empty()) bad_signature(sig, str("unexpected '", rest, "' after ')'"));

  Signature s;
  s.ret = parse_type(sig, sig.substr(0, lp), true, 0).dtype;
  if (!trim(inner).empty()) {
    size_t start = 0;
    for (;;) {
      size_t comma = inner.find(',', start);
      std::string tok = inner.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      s.params.push_back(parse_type(sig, tok, false, s.params.size()));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  for (size_t i = 0; i < s.params.size(); ++i) {
    Param &p = s.params[i];
    if (p.pointer) s.pointer_mode = true;
    if (!p.pointer && p.dtype == CA_INT64 && i > 0 && s.params[i - 1].pointer) p.count = true;
  }
  if (!s.pointer_mode && s.ret == 0)
    bad_signature(sig, "return type void needs at least one pointer parameter: a function of scalars is applied "
                       "element by element and must return a value");
  for (const Param &p : s.params)
    if (!p.count) ++s.ntask_args;

  s.canonical = s.ret ? type_token(s.ret) : "void";
  s.canonical += '(';
  for (size_t i = 0; i < s.params.size(); ++i) {
    if (i) s.canonical += ',';
    s.canonical += type_token(s.params[i].dtype);
    if (s.params[i].pointer) s.canonical += '*';
  }
  s.canonical += ')';
  return s;
}

// ------------------------------------------------------------------------------------------------
// The kernel's state

struct FfiKernel {
  Signature sig;
  void (*fn)(void) = nullptr;
  std::vector<ffi_type *> atypes;  // the cif points into it
  ffi_cif cif{};
  // The caller's user data: kept, never passed to the C function, freed exactly once with this object.
  void *user_data = nullptr;
  void (*free_user_data)(void *) = nullptr;

  FfiKernel(void *ud, void (*free_ud)(void *)) noexcept : user_data(ud), free_user_data(free_ud) {}
  FfiKernel(const FfiKernel &) = delete;
  FfiKernel &operator=(const FfiKernel &) = delete;
  ~FfiKernel() {
    if (free_user_data) free_user_data(user_data);
  }
};

/// Storage for one libffi return value: at least sizeof(ffi_arg), as libffi requires.
union RetVal {
  ffi_arg u;
  ffi_sarg s;
  float f32;
  double f64;
  int64_t i64;
  uint64_t u64;
};

/// Read a return value of type R. libffi widens integers narrower than ffi_arg to a full ffi_arg.
template <class R>
R read_ret(const RetVal &rv) {
  if constexpr (std::is_same_v<R, bool>) {
    return static_cast<uint8_t>(rv.u) != 0;
  } else if constexpr (std::is_same_v<R, float>) {
    return rv.f32;
  } else if constexpr (std::is_same_v<R, double>) {
    return rv.f64;
  } else if constexpr (sizeof(R) < sizeof(ffi_arg)) {
    if constexpr (std::is_signed_v<R>)
      return static_cast<R>(rv.s);
    else
      return static_cast<R>(rv.u);
  } else if constexpr (std::is_signed_v<R>) {
    return static_cast<R>(rv.i64);
  } else {
    return static_cast<R>(rv.u64);
  }
}

/// An 8-byte, suitably aligned slot holding one scalar argument for libffi.
union Slot {
  int64_t i64;
  uint64_t u64;
  double f64;
  void *ptr;
  unsigned char bytes[8];
};

/// Store a literal task argument, converted to dtype t, in a slot.
void literal_to_slot(const ca_arg_t &a, DType t, Slot &slot) {
  dispatch_scalar(t, [&](auto tag) {
    using D = typename decltype(tag)::type;
    D v = a.kind == CA_ARG_INT64 ? convert<D>(a.u.i64) : convert<D>(a.u.f64);
    std::memcpy(slot.bytes, &v, sizeof(D));
  });
}

const char *arg_kind_name(int32_t kind) {
  switch (kind) {
    case CA_ARG_NONE: return "None";
    case CA_ARG_INT64: return "an int64 literal";
    case CA_ARG_FLOAT64: return "a float64 literal";
    case CA_ARG_STRING: return "a string";
    case CA_ARG_BYTES: return "bytes";
    case CA_ARG_TUPLE: return "a tuple";
    case CA_ARG_SLICE: return "a slice";
    case CA_ARG_KEY: return "a key (unresolved)";
    case CA_ARG_BLOCK: return "a block";
    case CA_ARG_LIST: return "a list";
    case CA_ARG_INDEXED: return "an indexed input";
    default: return "an argument of unknown kind";
  }
}

std::string param_str(const Param &p) { return str(type_token(p.dtype), p.pointer ? "*" : ""); }

bool is_literal(const ca_arg_t &a) { return a.kind == CA_ARG_INT64 || a.kind == CA_ARG_FLOAT64; }

bool poll_cancelled(const ca_kernel_ctx_t *kctx) {
  return kctx && kctx->cancelled && kctx->cancelled->load(std::memory_order_relaxed);
}

void check_nargs(const FfiKernel &st, const ca_arg_t *args, size_t nargs) {
  if (nargs != st.sig.ntask_args)
    fail(CA_EKERNEL, "signature '", st.sig.canonical, "' takes ", st.sig.ntask_args, " argument",
         st.sig.ntask_args == 1 ? "" : "s", ", got ", nargs);
  CA_CHECK(nargs == 0 || args != nullptr, CA_EINVAL, "args is NULL with nargs ", nargs);
}

// ------------------------------------------------------------------------------------------------
// Elementwise mode

constexpr int64_t kCancelPollElements = int64_t(1) << 16;

Block *call_elementwise(const FfiKernel &st, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx) {
  check_nargs(st, args, nargs);
  const size_t np = st.sig.params.size();

  // Check kinds and dtypes, and compute the broadcast shape (NumPy rules: align on the right).
  int32_t ndim = 0;
  for (size_t i = 0; i < np; ++i) {
    const ca_arg_t &a = args[i];
    if (is_literal(a)) continue;
    if (a.kind != CA_ARG_BLOCK)
      fail(CA_ETYPE, "argument ", i + 1, " (parameter '", param_str(st.sig.params[i]), "') is ", arg_kind_name(a.kind),
           "; expected an int64 or float64 literal or a block");
    const Block *b = a.u.block;
    CA_CHECK(b != nullptr, CA_EINVAL, "argument ", i + 1, " is a NULL block");
    if (!is_scalar_dtype(b->dtype))
      fail(CA_ETYPE, "argument ", i + 1, " is a ", dtype_name(b->dtype) ? dtype_name(b->dtype) : "invalid-dtype",
           " block; parameter '", param_str(st.sig.params[i]), "' takes bool, integer or float blocks");
    if (b->ndim > ndim) ndim = b->ndim;
  }
  int64_t shape[CA_MAX_NDIM];
  for (int32_t d = 0; d < ndim; ++d) shape[d] = 1;
  size_t first_arg_of_dim[CA_MAX_NDIM] = {};
  for (size_t i = 0; i < np; ++i) {
    if (args[i].kind != CA_ARG_BLOCK) continue;
    const Block *b = args[i].u.block;
    for (int32_t d = 0; d < b->ndim; ++d) {
      int32_t od = ndim - b->ndim + d;
      int64_t e = b->shape[d];
      if (e == shape[od] || e == 1) continue;
      if (shape[od] != 1) {
        const Block *other = args[first_arg_of_dim[od]].u.block;
        fail(CA_EKERNEL, "arguments ", first_arg_of_dim[od] + 1, " and ", i + 1, " have shapes ",
             shape_str(other->shape, size_t(other->ndim)), " and ", shape_str(b->shape, size_t(b->ndim)),
             " that do not broadcast together (dimension ", od, " of the result: ", shape[od], " vs ", e, ")");
      }
      shape[od] = e;
      first_arg_of_dim[od] = i;
    }
  }

  BlockRef out(block_new(st.sig.ret, ndim, shape));
  if (out->size == 0) return out.release();

  // Operands: literals in slots, blocks of the parameter's dtype used in place, other blocks converted
  // once to the parameter's dtype. Element strides in bytes, 0 along broadcast dimensions.
  std::vector<Slot> slots(np);
  std::vector<BlockRef> converted(np);
  std::vector<const char *> base(np);
  std::vector<int64_t> strides(np * size_t(ndim > 0 ? ndim : 1), 0);
  for (size_t i = 0; i < np; ++i) {
    const ca_arg_t &a = args[i];
    const DType pt = st.sig.params[i].dtype;
    if (is_literal(a)) {
      literal_to_slot(a, pt, slots[i]);
      base[i] = reinterpret_cast<const char *>(slots[i].bytes);
      continue;
    }
    const Block *b = a.u.block;
    if (b->dtype == pt) {
      base[i] = static_cast<const char *>(b->data);
    } else {
      converted[i] = BlockRef(block_new(pt, b->ndim, b->shape));
      dispatch_scalar(b->dtype, [&](auto stag) {
        using S = typename decltype(stag)::type;
        dispatch_scalar(pt, [&](auto dtag) {
          using D = typename decltype(dtag)::type;
          const S *src = static_cast<const S *>(b->data);
          D *dst = converted[i].data<D>();
          for (int64_t k = 0; k < b->size; ++k) dst[k] = convert<D>(src[k]);
        });
      });
      base[i] = static_cast<const char *>(converted[i]->data);
    }
    const int64_t isz = int64_t(dtype_size(pt));
    int64_t stride = isz;
    for (int32_t d = b->ndim - 1; d >= 0; --d) {
      int32_t od = ndim - b->ndim + d;
      strides[i * size_t(ndim) + size_t(od)] = b->shape[d] == 1 ? 0 : stride;
      stride *= b->shape[d];
    }
  }

  // Walk the result in C order: the last dimension in the inner loop, an odometer over the others.
  const int64_t inner = ndim > 0 ? shape[ndim - 1] : 1;
  std::vector<const char *> row(base);
  std::vector<int64_t> inner_stride(np, 0);
  if (ndim > 0)
    for (size_t i = 0; i < np; ++i) inner_stride[i] = strides[i * size_t(ndim) + size_t(ndim - 1)];
  std::vector<void *> avalues(np);
  int64_t idx[CA_MAX_NDIM] = {};
  int64_t since_poll = 0;
  const int64_t rows = out->size / inner;

  bool cancelled = false;
  dispatch_scalar(st.sig.ret, [&](auto rtag) {
    using R = typename decltype(rtag)::type;
    R *dst = out.data<R>();
    RetVal rv;
    for (int64_t r = 0; r < rows; ++r) {
      // The row in pieces, so that a long row still polls for cancellation now and then.
      for (int64_t j0 = 0; j0 < inner;) {
        const int64_t j1 = std::min(inner, j0 + (kCancelPollElements - since_poll));
        for (int64_t j = j0; j < j1; ++j) {
          for (size_t i = 0; i < np; ++i) avalues[i] = const_cast<char *>(row[i] + j * inner_stride[i]);
          rv.u64 = 0;
          ffi_call(const_cast<ffi_cif *>(&st.cif), st.fn, &rv, avalues.data());
          *dst++ = read_ret<R>(rv);
        }
        since_poll += j1 - j0;
        j0 = j1;
        if (since_poll == kCancelPollElements) {
          since_poll = 0;
          if (poll_cancelled(kctx)) {
            cancelled = true;
            return;
          }
        }
      }
      // Advance the odometer over dimensions ndim-2 .. 0.
      for (int32_t d = ndim - 2; d >= 0; --d) {
        if (++idx[d] < shape[d]) {
          for (size_t i = 0; i < np; ++i) row[i] += strides[i * size_t(ndim) + size_t(d)];
          break;
        }
        idx[d] = 0;
        for (size_t i = 0; i < np; ++i) row[i] -= strides[i * size_t(ndim) + size_t(d)] * (shape[d] - 1);
      }
    }
  });
  if (cancelled) fail(CA_ECANCELED, "the compute was cancelled");
  return out.release();
}

// ------------------------------------------------------------------------------------------------
// Pointer mode

Block *call_pointers(const FfiKernel &st, const ca_arg_t *args, size_t nargs) {
  check_nargs(st, args, nargs);
  const size_t np = st.sig.params.size();
  std::vector<Slot> slots(np);
  std::vector<void *> avalues(np);
  BlockRef result;  // RET void: the private copy of the first pointer's block
  const Block *last_block = nullptr;
  size_t ai = 0;
  for (size_t pi = 0; pi < np; ++pi) {
    const Param &p = st.sig.params[pi];
    avalues[pi] = slots[pi].bytes;
    if (p.count) {
      slots[pi].i64 = last_block->size;
      continue;
    }
    const ca_arg_t &a = args[ai++];
    if (p.pointer) {
      if (a.kind != CA_ARG_BLOCK)
        fail(CA_ETYPE, "argument ", ai, " (parameter ", pi + 1, ", '", param_str(p), "') is ", arg_kind_name(a.kind),
             "; expected a ", dtype_name(p.dtype), " block");
      const Block *b = a.u.block;
      CA_CHECK(b != nullptr, CA_EINVAL, "argument ", ai, " is a NULL block");
      if (b->dtype != p.dtype)
        fail(CA_ETYPE, "argument ", ai, " (parameter ", pi + 1, ", '", param_str(p), "') must be a ",
             dtype_name(p.dtype), " block, got ", dtype_name(b->dtype) ? dtype_name(b->dtype) : "invalid-dtype",
             " ", shape_str(b->shape, size_t(b->ndim)));
      last_block = b;
      if (st.sig.ret == 0 && !result) {
        result = BlockRef(block_new(b->dtype, b->ndim, b->shape));
        if (b->nbytes > 0) std::memcpy(result->data, b->data, size_t(b->nbytes));
        slots[pi].ptr = result->data;
      } else {
        // Other blocks are passed as they are: the C function must not write through these pointers.
        slots[pi].ptr = b->data;
      }
      continue;
    }
    if (!is_literal(a))
      fail(CA_ETYPE, "argument ", ai, " (parameter ", pi + 1, ", '", param_str(p), "') is ", arg_kind_name(a.kind),
           "; expected an int64 or float64 literal");
    literal_to_slot(a, p.dtype, slots[pi]);
  }

  RetVal rv;
  rv.u64 = 0;
  ffi_call(const_cast<ffi_cif *>(&st.cif), st.fn, &rv, avalues.data());
  if (st.sig.ret == 0) return result.release();
  BlockRef out(block_new(st.sig.ret, 0, nullptr));
  dispatch_scalar(st.sig.ret, [&](auto rtag) {
    using R = typename decltype(rtag)::type;
    *out.data<R>() = read_ret<R>(rv);
  });
  return out.release();
}

// ------------------------------------------------------------------------------------------------
// The trampoline: a ca_kernel_fn. Never throws.

ca_status_t ffi_trampoline(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx,
                           void *user_data) {
  if (!out) return detail::kernel_failed(kctx, CA_EINVAL, "out is NULL");
  *out = nullptr;
  const FfiKernel &st = *static_cast<const FfiKernel *>(user_data);
  return kernel_boundary(out, kctx, [&] {
    return st.sig.pointer_mode ? call_pointers(st, args, nargs) : call_elementwise(st, args, nargs, kctx);
  });
}

}  // namespace

KernelPtr kernel_new_ffi(const std::string &name, void (*fn)(void), const std::string &signature, int32_t version,
                         void *ud, void (*free_ud)(void *)) {
  // From here on the state owns ud: any failure below frees it exactly once, with the state.
  std::shared_ptr<FfiKernel> st;
  try {
    st = std::make_shared<FfiKernel>(ud, free_ud);
  } catch (...) {
    if (free_ud) free_ud(ud);
    throw;
  }
  CA_CHECK(fn != nullptr, CA_EINVAL, "function pointer of ffi kernel '", name, "' is NULL");
  st->sig = parse_signature(signature);
  st->fn = fn;
  st->atypes.reserve(st->sig.params.size());
  for (const Param &p : st->sig.params) st->atypes.push_back(p.pointer ? &ffi_type_pointer : ffi_type_of(p.dtype));
  ffi_type *rtype = st->sig.ret ? ffi_type_of(st->sig.ret) : &ffi_type_void;
  ffi_status fs = ffi_prep_cif(&st->cif, FFI_DEFAULT_ABI, static_cast<unsigned>(st->atypes.size()), rtype,
                               st->atypes.empty() ? nullptr : st->atypes.data());
  if (fs != FFI_OK)
    fail(CA_EINVAL, "ffi signature '", st->sig.canonical, "': libffi cannot prepare the call (ffi_prep_cif status ",
         int(fs), ")");

  // The kernel's user_data is our state; the state (in impl) is destroyed with the kernel.
  KernelPtr k = kernel_new(name, &ffi_trampoline, version, st.get(), nullptr);
  k->signature = st->sig.canonical;
  k->impl = std::move(st);
  return k;
}

}  // namespace ca
