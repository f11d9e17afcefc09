// The kernel adapter: what every builtin kernel is written with.
//
//  * kernel_boundary(out, kctx, body): the one exception boundary between a kernel body written in
//    C++ (which reports errors by throwing) and the C kernel calling convention the executor sees
//    (a status and ca_kernel_ctx_t::error). Nothing escapes it:
//      ca::Error            -> its code (CA_EKERNEL if it carries CA_OK) and its message
//      std::bad_alloc       -> CA_ENOMEM, "out of memory"
//      other std::exception -> CA_EKERNEL and what()
//      anything else        -> CA_EINTERNAL, "unknown exception"
//    kernel_invoke (kernel.hpp) then prefixes the kernel's name ("kernel 'ca.take' failed: ...").
//    Messages therefore need not repeat the kernel's name, though many argument checks do.
//  * KernelArgs: the argument list with checked accessors that throw CA_EINVAL naming the kernel,
//    the argument's position and what it should have been.
//  * builtin_kernel<F>: a ca_kernel_fn made from `Block *F(const KernelArgs &)`, through the boundary.
#pragma once

#include <chunkarray/kernel.h>

#include <exception>
#include <new>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "kernel/kernel.hpp"

namespace ca {

namespace detail {
/// Record a kernel failure in kctx (if any) and return `code`. Never throws: a message that cannot
/// be stored is dropped (the status still reports the failure).
inline ca_status_t kernel_failed(ca_kernel_ctx_t *kctx, ca_status_t code, const char *msg) noexcept {
  if (kctx) {
    try {
      kctx->error = msg;
    } catch (...) {
      kctx->error.clear();
    }
  }
  return code;
}
}  // namespace detail

/// Run a kernel body at the C boundary. `body` either returns the result block (stored in *out) or
/// returns nothing and sets *out itself. See the file comment for the mapping of exceptions.
template <class F>
ca_status_t kernel_boundary(ca_block_t **out, ca_kernel_ctx_t *kctx, F &&body) noexcept {
  try {
    if constexpr (std::is_void_v<decltype(body())>) {
      body();
    } else {
      *out = body();
    }
    return CA_OK;
  } catch (const Error &e) {
    return detail::kernel_failed(kctx, e.code() == CA_OK ? CA_EKERNEL : e.code(), e.what());
  } catch (const std::bad_alloc &) {
    return detail::kernel_failed(kctx, CA_ENOMEM, "out of memory");
  } catch (const std::exception &e) {
    return detail::kernel_failed(kctx, CA_EKERNEL, e.what());
  } catch (...) {
    return detail::kernel_failed(kctx, CA_EINTERNAL, "unknown exception");
  }
}

/// The same for a body that returns nothing and stores its result itself.
template <class F>
ca_status_t kernel_boundary(ca_kernel_ctx_t *kctx, F &&body) noexcept {
  static_assert(std::is_void_v<decltype(body())>, "a body returning its block needs the `out` overload");
  ca_block_t *unused = nullptr;
  return kernel_boundary(&unused, kctx, std::forward<F>(body));
}

/// A kernel's arguments with checked accessors. Every accessor throws Error(CA_EINVAL,
/// "<kernel>: argument <i> (<what>) must be <kind>") when the argument is missing or of another kind.
class KernelArgs {
 public:
  KernelArgs(const char *kernel, const ca_arg_t *args, size_t n, ca_kernel_ctx_t *kctx = nullptr) noexcept
      : kernel_(kernel ? kernel : "kernel"), args_(args), n_(n), kctx_(kctx) {}

  const char *kernel() const noexcept { return kernel_; }
  size_t size() const noexcept { return n_; }
  const ca_arg_t *data() const noexcept { return args_; }
  const ca_arg_t &operator[](size_t i) const noexcept { return args_[i]; }
  ca_kernel_ctx_t *ctx() const noexcept { return kctx_; }

  /// Exactly n arguments.
  void expect(size_t n) const {
    CA_CHECK(n_ == n, CA_EINVAL, kernel_, ": expected ", n, " arguments, got ", n_);
  }
  /// A non-null block.
  const Block *block(size_t i, const char *what = nullptr) const {
    const ca_arg_t &a = at(i, what, "a block");
    if (a.kind != CA_ARG_BLOCK || !a.u.block) bad(i, what, "a block");
    return a.u.block;
  }
  int64_t int64(size_t i, const char *what = nullptr) const {
    const ca_arg_t &a = at(i, what, "an int64");
    if (a.kind != CA_ARG_INT64) bad(i, what, "an int64");
    return a.u.i64;
  }
  double float64(size_t i, const char *what = nullptr) const {
    const ca_arg_t &a = at(i, what, "a float64");
    if (a.kind != CA_ARG_FLOAT64) bad(i, what, "a float64");
    return a.u.f64;
  }
  /// A tuple of int64, borrowed from the argument list.
  std::span<const int64_t> tuple(size_t i, const char *what = nullptr) const {
    const ca_arg_t &a = at(i, what, "a tuple");
    if (a.kind != CA_ARG_TUPLE) bad(i, what, "a tuple");
    return {a.u.tuple.items, a.u.tuple.len};
  }
  std::vector<int64_t> tuple_vec(size_t i, const char *what = nullptr) const {
    std::span<const int64_t> t = tuple(i, what);
    return std::vector<int64_t>(t.begin(), t.end());
  }
  /// A string or bytes argument, borrowed.
  std::string_view bytes(size_t i, const char *what = nullptr) const {
    const ca_arg_t &a = at(i, what, "a string");
    if (a.kind != CA_ARG_STRING && a.kind != CA_ARG_BYTES) bad(i, what, "a string");
    return {static_cast<const char *>(a.u.bytes.data), a.u.bytes.len};
  }
  /// A list argument (its items).
  std::span<const ca_arg_t> list(size_t i, const char *what = nullptr) const {
    const ca_arg_t &a = at(i, what, "a list");
    if (a.kind != CA_ARG_LIST) bad(i, what, "a list");
    return {a.u.list.items, a.u.list.len};
  }

 private:
  const ca_arg_t &at(size_t i, const char *what, const char *kind) const {
    if (i >= n_) bad(i, what, kind);
    return args_[i];
  }
  [[noreturn]] void bad(size_t i, const char *what, const char *kind) const {
    if (what) fail(CA_EINVAL, kernel_, ": argument ", i, " (", what, ") must be ", kind);
    fail(CA_EINVAL, kernel_, ": argument ", i, " must be ", kind);
  }

  const char *kernel_;
  const ca_arg_t *args_;
  size_t n_;
  ca_kernel_ctx_t *kctx_;
};

/// The blocks of a (nested) list argument in order, a block argument itself as one: what tree
/// reductions pass their combine and aggregate kernels (one list level per reduced axis).
/// CA_EINVAL "<what> must be a block" for anything else.
inline void flatten_block_list(const ca_arg_t &a, std::vector<const Block *> &out, const char *what) {
  if (a.kind == CA_ARG_LIST) {
    for (size_t i = 0; i < a.u.list.len; ++i) flatten_block_list(a.u.list.items[i], out, what);
    return;
  }
  if (a.kind != CA_ARG_BLOCK || !a.u.block) fail(CA_EINVAL, what, " must be a block");
  out.push_back(a.u.block);
}

using BuiltinKernelFn = Block *(*)(const KernelArgs &);

/// The ca_kernel_fn of a builtin kernel body F; its user_data is the kernel's name (a static string,
/// as register_builtin passes it).
template <BuiltinKernelFn F>
ca_status_t builtin_kernel(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx,
                           void *ud) noexcept {
  return kernel_boundary(out, kctx,
                         [&] { return F(KernelArgs(static_cast<const char *>(ud), args, nargs, kctx)); });
}

/// Register builtin kernel F under `name` (a string literal: it is the kernel's user_data).
template <BuiltinKernelFn F>
void register_builtin(KernelRegistry &reg, const char *name, int32_t version = 1) {
  reg.add(kernel_new(name, builtin_kernel<F>, version, const_cast<char *>(name), nullptr), true);
}

}  // namespace ca
