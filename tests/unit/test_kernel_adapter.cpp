// The kernel adapter (kernel/adapter.hpp): the one exception boundary every builtin kernel runs
// behind, and its argument accessors. Each kind of exception a kernel body can throw gives its
// status and message at the C calling convention and through kernel_invoke (what the executor
// calls), and nothing escapes.
#include <gtest/gtest.h>

#include <new>
#include <stdexcept>
#include <string>

#include "builtins/builtins.hpp"
#include "core/block.hpp"
#include "kernel/adapter.hpp"

namespace {

using ca::Block;
using ca::BlockRef;
using ca::KernelArgs;

Block *throws_error(const KernelArgs &) { ca::fail(CA_EINVAL, "axis 7 is out of range"); }
Block *throws_error_ok(const KernelArgs &) { throw ca::Error(CA_OK, "an error without a code"); }
Block *throws_nomem_error(const KernelArgs &) { ca::fail(CA_ENOMEM, "block of 8 GiB exceeds the budget"); }
Block *throws_bad_alloc(const KernelArgs &) { throw std::bad_alloc(); }
Block *throws_std(const KernelArgs &) { throw std::runtime_error("vector::_M_range_check"); }
Block *throws_other(const KernelArgs &) { throw 42; }
Block *returns_block(const KernelArgs &A) {
  int64_t n = A.int64(0, "length");
  return ca::block_new(CA_FLOAT64, 1, &n, true);
}

struct Case {
  ca_kernel_fn fn;
  ca_status_t status;          // what the kernel function returns
  ca_status_t invoke_status;   // what kernel_invoke throws
  std::string message;         // ca_kernel_ctx_t::error
};

TEST(KernelAdapter, EachExceptionKindGivesItsStatusAndMessage) {
  const Case cases[] = {
      {ca::builtin_kernel<throws_error>, CA_EINVAL, CA_EKERNEL, "axis 7 is out of range"},
      {ca::builtin_kernel<throws_error_ok>, CA_EKERNEL, CA_EKERNEL, "an error without a code"},
      {ca::builtin_kernel<throws_nomem_error>, CA_ENOMEM, CA_ENOMEM, "block of 8 GiB exceeds the budget"},
      {ca::builtin_kernel<throws_bad_alloc>, CA_ENOMEM, CA_ENOMEM, "out of memory"},
      {ca::builtin_kernel<throws_std>, CA_EKERNEL, CA_EKERNEL, "vector::_M_range_check"},
      {ca::builtin_kernel<throws_other>, CA_EINTERNAL, CA_EKERNEL, "unknown exception"},
  };
  static const char kName[] = "test.thrower";
  for (const Case &c : cases) {
    ca_kernel_ctx_t kctx;
    ca_block_t *out = nullptr;
    ca_status_t st = c.fn(&out, nullptr, 0, &kctx, const_cast<char *>(kName));
    EXPECT_EQ(st, c.status) << c.message;
    EXPECT_EQ(kctx.error, c.message);
    EXPECT_EQ(out, nullptr);
    // A null context: the status alone, nothing thrown.
    EXPECT_EQ(c.fn(&out, nullptr, 0, nullptr, const_cast<char *>(kName)), c.status);

    ca::KernelPtr k = ca::kernel_new(kName, c.fn, 1, const_cast<char *>(kName), nullptr);
    ca_kernel_ctx_t kctx2;
    try {
      ca::kernel_invoke(k.get(), nullptr, 0, &kctx2);
      ADD_FAILURE() << "kernel_invoke did not fail for " << c.message;
    } catch (const ca::Error &e) {
      EXPECT_EQ(e.code(), c.invoke_status) << e.message();
      EXPECT_EQ(e.message(), "kernel 'test.thrower' failed: " + c.message);
    }
  }
}

TEST(KernelAdapter, ResultAndArgumentAccessors) {
  static const char kName[] = "test.zeros";
  ca::KernelPtr k = ca::kernel_new(kName, ca::builtin_kernel<returns_block>, 1, const_cast<char *>(kName), nullptr);
  ca_arg_t a = ca_arg_i64(5);
  BlockRef b(ca::kernel_invoke(k.get(), &a, 1, nullptr));
  ASSERT_TRUE(b);
  EXPECT_EQ(b->ndim, 1);
  EXPECT_EQ(b->shape[0], 5);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(b.data<double>()[i], 0.0);

  // A wrong kind and a missing argument: CA_EINVAL naming the kernel, the position and what it is.
  ca_arg_t f = ca_arg_f64(5.0);
  ca_kernel_ctx_t kctx;
  ca_block_t *out = nullptr;
  EXPECT_EQ(ca::builtin_kernel<returns_block>(&out, &f, 1, &kctx, const_cast<char *>(kName)), CA_EINVAL);
  EXPECT_EQ(kctx.error, "test.zeros: argument 0 (length) must be an int64");
  EXPECT_EQ(ca::builtin_kernel<returns_block>(&out, nullptr, 0, &kctx, const_cast<char *>(kName)), CA_EINVAL);
  EXPECT_EQ(kctx.error, "test.zeros: argument 0 (length) must be an int64");
  EXPECT_EQ(out, nullptr);
}

// Every registered builtin kernel, given arguments it cannot use, fails with a status and a message
// instead of throwing past its boundary (which would terminate: the kernel functions are noexcept).
TEST(KernelAdapter, EveryBuiltinKernelRejectsBadArgumentsWithoutThrowing) {
  ca::KernelRegistry reg;
  ca::register_builtin_kernels(reg);
  ASSERT_GT(reg.size(), 40u);
  const int64_t tup[2] = {-1, 3};
  // Padded past the 3 passed, so a kernel that reads beyond nargs reads defined memory.
  const ca_arg_t bad[8] = {ca_arg_f64(1.5), ca_arg_tuple(tup, 2), ca_arg_str("?"), ca_arg_none(),
                           ca_arg_none(),   ca_arg_none(),          ca_arg_none(),    ca_arg_none()};
  for (const std::string &name : reg.names()) {
    ca::KernelPtr k = reg.get(name);
    for (size_t n = 0; n <= 3; ++n) {
      ca_kernel_ctx_t kctx;
      ca_block_t *out = nullptr;
      ca_status_t st = k->fn(&out, bad, n, &kctx, k->user_data);
      if (st == CA_OK) {  // a kernel may accept these (none does today); it must then return a block
        EXPECT_NE(out, nullptr) << name;
        ca::block_release(out);
        continue;
      }
      EXPECT_NE(st, CA_EINTERNAL) << name << " with " << n << " arguments: " << kctx.error;
      EXPECT_FALSE(kctx.error.empty()) << name << " with " << n << " arguments";
    }
  }
}

}  // namespace
