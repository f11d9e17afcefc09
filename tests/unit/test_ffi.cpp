// libffi kernels (kernel_new_ffi): signature parsing, elementwise and pointer modes, errors, ownership.
#include <chunkarray/kernel.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "core/block.hpp"
#include "kernel/kernel.hpp"

namespace {

using ca::Block;
using ca::BlockRef;
using ca::KernelPtr;

// ------------------------------------------------------------------------------------------------
// Plain C functions the kernels wrap

std::atomic<int> g_calls{0};

double axpn(double x, int64_t n) {
  g_calls.fetch_add(1, std::memory_order_relaxed);
  return x * double(n) + 0.5;
}
int8_t neg8(int8_t x) { return int8_t(-x); }
int16_t twice16(int16_t x) { return int16_t(x * 2); }
int32_t neg32(int32_t x) { return -x; }
uint8_t inc8(uint8_t x) { return uint8_t(x + 1); }
uint16_t inc16(uint16_t x) { return uint16_t(x + 1); }
uint32_t big32(uint32_t x) { return x + 0x80000000u; }
uint64_t big64(uint64_t x) { return x + (uint64_t(1) << 63); }
float half32(float x) { return x * 0.5f; }
int64_t id64(int64_t x) { return x; }
bool is_pos(double x) { return x > 0; }
bool is_odd(int32_t x) { return (x & 1) != 0; }
double three(void) { return 3.0; }

void scale2(double *x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) x[i] *= 2.0;
}
double sum(const double *x, int64_t n) {
  double s = 0;
  for (int64_t i = 0; i < n; ++i) s += x[i];
  return s;
}
double dot(const double *x, int64_t n, const double *y, int64_t m) {
  double s = 0;
  for (int64_t i = 0; i < n && i < m; ++i) s += x[i] * y[i];
  return s;
}
void axpy(double *y, int64_t n, const double *x, double a) {
  for (int64_t i = 0; i < n; ++i) y[i] += a * x[i];
}
void add_i32(int32_t *x, int64_t n, int32_t k, int64_t extra) {
  for (int64_t i = 0; i < n; ++i) x[i] += k + int32_t(extra);
}
int64_t count_true(const bool *b, int64_t n) {
  int64_t c = 0;
  for (int64_t i = 0; i < n; ++i) c += b[i];
  return c;
}

template <class F>
void (*as_fn(F *f))(void) {
  return reinterpret_cast<void (*)(void)>(f);
}

// ------------------------------------------------------------------------------------------------
// Helpers

template <class T>
BlockRef make_block(std::vector<int64_t> shape, const std::vector<T> &values) {
  BlockRef b(ca::block_new(ca::dtype_of<T>(), int32_t(shape.size()), shape.data()));
  EXPECT_EQ(size_t(b->size), values.size());
  for (size_t i = 0; i < values.size(); ++i) b.data<T>()[i] = values[i];  // also for std::vector<bool>
  return b;
}

template <class T>
std::vector<T> values_of(const BlockRef &b) {
  const T *p = b.data<T>();
  return std::vector<T>(p, p + b->size);
}

std::vector<int64_t> shape_of(const BlockRef &b) { return std::vector<int64_t>(b->shape, b->shape + b->ndim); }

ca_arg_t blk(const BlockRef &b) {
  ca_arg_t a = ca_arg_none();
  a.kind = CA_ARG_BLOCK;
  a.u.block = b.get();
  return a;
}

BlockRef invoke(const KernelPtr &k, std::vector<ca_arg_t> args) {
  ca_kernel_ctx_t kctx;
  return BlockRef(ca::kernel_invoke(k.get(), args.data(), args.size(), &kctx));
}

/// Invoke expecting failure; returns the message (and checks nothing leaked).
std::string invoke_error(const KernelPtr &k, std::vector<ca_arg_t> args, ca_kernel_ctx_t *kctx = nullptr) {
  ca_kernel_ctx_t local;
  if (!kctx) kctx = &local;
  const int64_t live = ca::block_live_count();
  try {
    BlockRef r(ca::kernel_invoke(k.get(), args.data(), args.size(), kctx));
    ADD_FAILURE() << "expected the call to fail";
    return "";
  } catch (const ca::Error &e) {
    EXPECT_EQ(e.code(), CA_EKERNEL);
    EXPECT_EQ(ca::block_live_count(), live) << "a failing call leaked a block";
    return e.message();
  }
}

std::string creation_error(const std::string &sig, ca_status_t expect = CA_EINVAL) {
  try {
    KernelPtr k = ca::kernel_new_ffi("bad", as_fn(&axpn), sig, 1, nullptr, nullptr);
    ADD_FAILURE() << "signature '" << sig << "' was accepted";
    return "";
  } catch (const ca::Error &e) {
    EXPECT_EQ(e.code(), expect) << e.message();
    return e.message();
  }
}

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "message: " << (haystack)

// ------------------------------------------------------------------------------------------------
// Elementwise mode

TEST(Ffi, ElementwiseLiteralsGiveZeroD) {
  KernelPtr k = ca::kernel_new_ffi("axpn", as_fn(&axpn), "f64(f64,i64)", 3, nullptr, nullptr);
  EXPECT_EQ(k->signature, "f64(f64,i64)");
  EXPECT_EQ(k->name, "axpn");
  EXPECT_EQ(k->version, 3);
  BlockRef r = invoke(k, {ca_arg_f64(2.5), ca_arg_i64(3)});
  EXPECT_EQ(r->dtype, CA_FLOAT64);
  EXPECT_EQ(r->ndim, 0);
  EXPECT_EQ(r->size, 1);
  EXPECT_DOUBLE_EQ(r.data<double>()[0], 2.5 * 3 + 0.5);

  // Literals are converted to the parameter's type: int -> f64, float -> i64 truncates.
  r = invoke(k, {ca_arg_i64(4), ca_arg_f64(2.9)});
  EXPECT_DOUBLE_EQ(r.data<double>()[0], 4.0 * 2 + 0.5);
  r = invoke(k, {ca_arg_i64(4), ca_arg_f64(-2.9)});
  EXPECT_DOUBLE_EQ(r.data<double>()[0], 4.0 * -2 + 0.5);
}

TEST(Ffi, ElementwiseNoParameters) {
  KernelPtr k = ca::kernel_new_ffi("three", as_fn(&three), "f64()", 1, nullptr, nullptr);
  BlockRef r = invoke(k, {});
  EXPECT_EQ(r->ndim, 0);
  EXPECT_DOUBLE_EQ(r.data<double>()[0], 3.0);
}

TEST(Ffi, ElementwiseBroadcast) {
  KernelPtr k = ca::kernel_new_ffi("axpn", as_fn(&axpn), "f64(f64,i64)", 1, nullptr, nullptr);
  BlockRef x = make_block<double>({3, 1}, {1.0, -2.0, 0.25});
  BlockRef n = make_block<int32_t>({4}, {0, 1, 2, -7});  // int32 block -> i64 parameter
  BlockRef r = invoke(k, {blk(x), blk(n)});
  EXPECT_EQ(r->dtype, CA_FLOAT64);
  ASSERT_EQ(shape_of(r), (std::vector<int64_t>{3, 4}));
  const double *xv = x.data<double>();
  const int32_t *nv = n.data<int32_t>();
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_DOUBLE_EQ(r.data<double>()[i * 4 + j], xv[i] * nv[j] + 0.5) << i << "," << j;

  // Block with a literal keeps the block's shape.
  r = invoke(k, {blk(x), ca_arg_i64(10)});
  ASSERT_EQ(shape_of(r), (std::vector<int64_t>{3, 1}));
  for (int i = 0; i < 3; ++i) EXPECT_DOUBLE_EQ(r.data<double>()[i], xv[i] * 10 + 0.5);
  r = invoke(k, {ca_arg_f64(1.5), blk(n)});
  ASSERT_EQ(shape_of(r), (std::vector<int64_t>{4}));
  for (int j = 0; j < 4; ++j) EXPECT_DOUBLE_EQ(r.data<double>()[j], 1.5 * nv[j] + 0.5);
}

TEST(Ffi, ElementwiseBroadcastThreeDims) {
  KernelPtr k = ca::kernel_new_ffi("axpn", as_fn(&axpn), " f64 ( f64 , i64 ) ", 1, nullptr, nullptr);
  std::vector<double> xs(2 * 3);
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = double(i) * 1.25 - 2;
  std::vector<int64_t> ns(4 * 1 * 5);
  for (size_t i = 0; i < ns.size(); ++i) ns[i] = int64_t(i) - 7;
  BlockRef x = make_block<double>({2, 1, 1, 3}, xs);  // (2,1,1,3)
  BlockRef n = make_block<int64_t>({4, 5, 1}, ns);    //   (4,5,1)
  BlockRef r = invoke(k, {blk(x), blk(n)});
  ASSERT_EQ(shape_of(r), (std::vector<int64_t>{2, 4, 5, 3}));
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 4; ++b)
      for (int c = 0; c < 5; ++c)
        for (int d = 0; d < 3; ++d) {
          double want = xs[size_t(a * 3 + d)] * double(ns[size_t(b * 5 + c)]) + 0.5;
          EXPECT_DOUBLE_EQ(r.data<double>()[((a * 4 + b) * 5 + c) * 3 + d], want);
        }
}

TEST(Ffi, ElementwiseShapesThatDoNotBroadcast) {
  KernelPtr k = ca::kernel_new_ffi("axpn", as_fn(&axpn), "f64(f64,i64)", 1, nullptr, nullptr);
  BlockRef x = make_block<double>({3}, {1, 2, 3});
  BlockRef n = make_block<int64_t>({4}, {1, 2, 3, 4});
  std::string msg = invoke_error(k, {blk(x), blk(n)});
  EXPECT_CONTAINS(msg, "axpn");
  EXPECT_CONTAINS(msg, "(3,)");
  EXPECT_CONTAINS(msg, "(4,)");
  EXPECT_CONTAINS(msg, "broadcast");
}

TEST(Ffi, ElementwiseIntegerConversionsAndReturns) {
  BlockRef i32 = make_block<int32_t>({5}, {-3, 0, 5, 127, 300});
  {  // int32 block -> i8 parameter wraps like a C cast; i8 return is sign-extended correctly.
    KernelPtr k = ca::kernel_new_ffi("neg8", as_fn(&neg8), "i8(i8)", 1, nullptr, nullptr);
    BlockRef r = invoke(k, {blk(i32)});
    EXPECT_EQ(r->dtype, CA_INT8);
    for (int i = 0; i < 5; ++i) EXPECT_EQ(r.data<int8_t>()[i], int8_t(-int8_t(i32.data<int32_t>()[i]))) << i;
  }
  {
    KernelPtr k = ca::kernel_new_ffi("twice16", as_fn(&twice16), "i16(i16)", 1, nullptr, nullptr);
    BlockRef r = invoke(k, {blk(i32)});
    EXPECT_EQ(r->dtype, CA_INT16);
    for (int i = 0; i < 5; ++i) EXPECT_EQ(r.data<int16_t>()[i], int16_t(int16_t(i32.data<int32_t>()[i]) * 2));
  }
  {  // uint16 block -> i32 parameter.
    BlockRef u16 = make_block<uint16_t>({3}, {0, 7, 65535});
    KernelPtr k = ca::kernel_new_ffi("neg32", as_fn(&neg32), "i32(i32)", 1, nullptr, nullptr);
    BlockRef r = invoke(k, {blk(u16)});
    EXPECT_EQ(r->dtype, CA_INT32);
    EXPECT_EQ(values_of<int32_t>(r), (std::vector<int32_t>{0, -7, -65535}));
  }
  {  // u8 wraps.
    KernelPtr k = ca::kernel_new_ffi("inc8", as_fn(&inc8), "u8(u8)", 1, nullptr, nullptr);
    BlockRef r = invoke(k, {blk(i32)});
    EXPECT_EQ(r->dtype, CA_UINT8);
    for (int i = 0; i < 5; ++i) EXPECT_EQ(r.data<uint8_t>()[i], uint8_t(uint8_t(i32.data<int32_t>()[i]) + 1)) << i;
  }
  {
    KernelPtr k = ca::kernel_new_ffi("inc16", as_fn(&inc16), "u16(u16)", 1, nullptr, nullptr);
    BlockRef r = invoke(k, {ca_arg_i64(65535)});
    EXPECT_EQ(r.data<uint16_t>()[0], 0);
  }
  {  // Unsigned returns above the signed range are not sign-extended.
    KernelPtr k = ca::kernel_new_ffi("big32", as_fn(&big32), "u32(u32)", 1, nullptr, nullptr);
    BlockRef r = invoke(k, {ca_arg_i64(5)});
    EXPECT_EQ(r->dtype, CA_UINT32);
    EXPECT_EQ(r.data<uint32_t>()[0], 0x80000005u);
    KernelPtr k64 = ca::kernel_new_ffi("big64", as_fn(&big64), "u64(u64)", 1, nullptr, nullptr);
    BlockRef u = make_block<uint64_t>({2}, {1, 2});
    r = invoke(k64, {blk(u)});
    EXPECT_EQ(r->dtype, CA_UINT64);
    EXPECT_EQ(values_of<uint64_t>(r), (std::vector<uint64_t>{(uint64_t(1) << 63) + 1, (uint64_t(1) << 63) + 2}));
  }
  {  // bool block -> i64 parameter.
    BlockRef b = make_block<bool>({3}, {true, false, true});
    KernelPtr k = ca::kernel_new_ffi("id64", as_fn(&id64), "i64(i64)", 1, nullptr, nullptr);
    BlockRef r = invoke(k, {blk(b)});
    EXPECT_EQ(values_of<int64_t>(r), (std::vector<int64_t>{1, 0, 1}));
  }
}

TEST(Ffi, ElementwiseFloatConversions) {
  {  // float64 block -> f32 parameter and result.
    BlockRef x = make_block<double>({4}, {1.0, -3.0, 0.1, 1e10});
    KernelPtr k = ca::kernel_new_ffi("half32", as_fn(&half32), "f32(f32)", 1, nullptr, nullptr);
    BlockRef r = invoke(k, {blk(x)});
    EXPECT_EQ(r->dtype, CA_FLOAT32);
    for (int i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(r.data<float>()[i], float(x.data<double>()[i]) * 0.5f);
    BlockRef f = make_block<float>({2}, {2.0f, -8.0f});  // f32 block used in place
    r = invoke(k, {blk(f)});
    EXPECT_EQ(values_of<float>(r), (std::vector<float>{1.0f, -4.0f}));
  }
  {  // float -> integer: truncation, NaN gives 0, out of range saturates.
    const double inf = std::numeric_limits<double>::infinity();
    BlockRef x = make_block<double>({6}, {2.7, -2.7, std::nan(""), 1e30, -1e30, inf});
    KernelPtr k = ca::kernel_new_ffi("id64", as_fn(&id64), "i64(i64)", 1, nullptr, nullptr);
    BlockRef r = invoke(k, {blk(x)});
    const int64_t mx = std::numeric_limits<int64_t>::max(), mn = std::numeric_limits<int64_t>::min();
    EXPECT_EQ(values_of<int64_t>(r), (std::vector<int64_t>{2, -2, 0, mx, mn, mx}));
    KernelPtr k8 = ca::kernel_new_ffi("inc8", as_fn(&inc8), "u8(u8)", 1, nullptr, nullptr);
    BlockRef y = make_block<float>({3}, {-5.0f, 254.9f, 1000.0f});
    r = invoke(k8, {blk(y)});
    EXPECT_EQ(values_of<uint8_t>(r), (std::vector<uint8_t>{1, 255, 0}));  // 0+1, 254+1, 255+1 wraps in the C function
  }
}

TEST(Ffi, ElementwiseBoolReturnAndParameter) {
  KernelPtr k = ca::kernel_new_ffi("is_pos", as_fn(&is_pos), "bool(f64)", 1, nullptr, nullptr);
  BlockRef x = make_block<int16_t>({2, 3}, {-1, 0, 1, 2, -30000, 30000});
  BlockRef r = invoke(k, {blk(x)});
  EXPECT_EQ(r->dtype, CA_BOOL);
  ASSERT_EQ(shape_of(r), (std::vector<int64_t>{2, 3}));
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(r.data<bool>()[i], x.data<int16_t>()[i] > 0) << i;
    uint8_t byte;
    std::memcpy(&byte, r.data<bool>() + i, 1);
    EXPECT_LE(byte, 1);  // a valid bool: 0 or 1
  }
  KernelPtr odd = ca::kernel_new_ffi("is_odd", as_fn(&is_odd), "bool(i32)", 1, nullptr, nullptr);
  r = invoke(odd, {ca_arg_i64(7)});
  EXPECT_TRUE(r.data<bool>()[0]);
  r = invoke(odd, {ca_arg_i64(-4)});
  EXPECT_FALSE(r.data<bool>()[0]);
}

TEST(Ffi, ElementwiseEmptyAndZeroDBlocks) {
  KernelPtr k = ca::kernel_new_ffi("axpn", as_fn(&axpn), "f64(f64,i64)", 1, nullptr, nullptr);
  BlockRef empty = make_block<double>({0, 3}, {});
  BlockRef n = make_block<int64_t>({3}, {1, 2, 3});
  const int before = g_calls.load();
  BlockRef r = invoke(k, {blk(empty), blk(n)});
  EXPECT_EQ(r->dtype, CA_FLOAT64);
  EXPECT_EQ(shape_of(r), (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(r->size, 0);
  EXPECT_EQ(g_calls.load(), before);  // the function is not called

  // A (1,) block against (0,) broadcasts to (0,).
  BlockRef e1 = make_block<int64_t>({0}, {});
  BlockRef one = make_block<double>({1}, {4.0});
  r = invoke(k, {blk(one), blk(e1)});
  EXPECT_EQ(shape_of(r), (std::vector<int64_t>{0}));

  BlockRef zd = make_block<double>({}, {4.0});
  r = invoke(k, {blk(zd), ca_arg_i64(2)});
  EXPECT_EQ(r->ndim, 0);
  EXPECT_DOUBLE_EQ(r.data<double>()[0], 8.5);
  r = invoke(k, {blk(zd), blk(n)});  // 0-d with (3,) -> (3,)
  EXPECT_EQ(shape_of(r), (std::vector<int64_t>{3}));
  EXPECT_EQ(values_of<double>(r), (std::vector<double>{4.5, 8.5, 12.5}));
}

TEST(Ffi, ElementwiseLargeBlock) {
  // Many elements, several rows: exercises the odometer and the cancellation poll.
  KernelPtr k = ca::kernel_new_ffi("axpn", as_fn(&axpn), "f64(f64,i64)", 1, nullptr, nullptr);
  const int64_t rows = 300, cols = 517;
  std::vector<double> xs(size_t(rows * cols));
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = double(i % 97) - 40;
  BlockRef x = make_block<double>({rows, cols}, xs);
  BlockRef n = make_block<int64_t>({rows, 1}, std::vector<int64_t>(size_t(rows), 3));
  BlockRef r = invoke(k, {blk(x), blk(n)});
  for (size_t i = 0; i < xs.size(); ++i) ASSERT_DOUBLE_EQ(r.data<double>()[i], xs[i] * 3 + 0.5) << i;
}

TEST(Ffi, ElementwiseCancelled) {
  KernelPtr k = ca::kernel_new_ffi("axpn", as_fn(&axpn), "f64(f64,i64)", 1, nullptr, nullptr);
  BlockRef x = make_block<double>({1 << 17}, std::vector<double>(1 << 17, 1.0));
  std::atomic<bool> cancelled{true};
  ca_kernel_ctx_t kctx;
  kctx.cancelled = &cancelled;
  const int before = g_calls.load();
  std::string msg = invoke_error(k, {blk(x), ca_arg_i64(1)}, &kctx);
  EXPECT_CONTAINS(msg, "cancel");
  EXPECT_EQ(g_calls.load() - before, 1 << 16);  // stopped at the first poll, within the row

  // Not cancelled: the whole block, also across many short rows.
  cancelled = false;
  BlockRef r(ca::kernel_invoke(k.get(), std::vector<ca_arg_t>{blk(x), ca_arg_i64(2)}.data(), 2, &kctx));
  for (int64_t i = 0; i < r->size; ++i) ASSERT_EQ(r.data<double>()[i], 2.5);
  BlockRef y = make_block<double>({1 << 12, 33}, std::vector<double>(33 << 12, 1.0));
  r = BlockRef(ca::kernel_invoke(k.get(), std::vector<ca_arg_t>{blk(y), ca_arg_i64(3)}.data(), 2, &kctx));
  for (int64_t i = 0; i < r->size; ++i) ASSERT_EQ(r.data<double>()[i], 3.5);
}

// ------------------------------------------------------------------------------------------------
// Pointer mode

TEST(Ffi, PointerInPlaceTransform) {
  KernelPtr k = ca::kernel_new_ffi("scale2", as_fn(&scale2), "void(f64*,i64)", 1, nullptr, nullptr);
  BlockRef x = make_block<double>({2, 3}, {1, 2, 3, 4, 5, -6});
  BlockRef r = invoke(k, {blk(x)});  // the i64 after the pointer is the element count: one task argument
  ASSERT_NE(r.get(), x.get());
  EXPECT_EQ(r->dtype, CA_FLOAT64);
  EXPECT_EQ(shape_of(r), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(values_of<double>(r), (std::vector<double>{2, 4, 6, 8, 10, -12}));
  EXPECT_EQ(values_of<double>(x), (std::vector<double>{1, 2, 3, 4, 5, -6}));  // input untouched
}

TEST(Ffi, PointerScalarReturn) {
  KernelPtr k = ca::kernel_new_ffi("sum", as_fn(&sum), "f64(f64*,i64)", 1, nullptr, nullptr);
  std::vector<double> xs = {0.5, 1.5, -3, 10, 2.25};
  BlockRef x = make_block<double>({5}, xs);
  BlockRef r = invoke(k, {blk(x)});
  EXPECT_EQ(r->dtype, CA_FLOAT64);
  EXPECT_EQ(r->ndim, 0);
  double want = 0;
  for (double v : xs) want += v;
  EXPECT_DOUBLE_EQ(r.data<double>()[0], want);

  KernelPtr c = ca::kernel_new_ffi("count_true", as_fn(&count_true), "i64(bool*,i64)", 1, nullptr, nullptr);
  BlockRef b = make_block<bool>({2, 2}, {true, false, true, true});
  r = invoke(c, {blk(b)});
  EXPECT_EQ(r->dtype, CA_INT64);
  EXPECT_EQ(r.data<int64_t>()[0], 3);
}

TEST(Ffi, PointerTwoBlocks) {
  KernelPtr k = ca::kernel_new_ffi("dot", as_fn(&dot), "f64(f64*,i64,f64*,i64)", 1, nullptr, nullptr);
  BlockRef x = make_block<double>({3}, {1, 2, 3});
  BlockRef y = make_block<double>({3}, {4, -5, 6});
  BlockRef r = invoke(k, {blk(x), blk(y)});
  EXPECT_DOUBLE_EQ(r.data<double>()[0], 1 * 4 - 2 * 5 + 3 * 6);

  // In place on the first block, reading the second, with a literal scalar at the end.
  KernelPtr a = ca::kernel_new_ffi("axpy", as_fn(&axpy), "void(f64*,i64,f64*,f64)", 1, nullptr, nullptr);
  r = invoke(a, {blk(y), blk(x), ca_arg_f64(0.5)});
  EXPECT_EQ(values_of<double>(r), (std::vector<double>{4.5, -4, 7.5}));
  r = invoke(a, {blk(y), blk(x), ca_arg_i64(2)});  // int literal to an f64 parameter
  EXPECT_EQ(values_of<double>(r), (std::vector<double>{6, -1, 12}));
  EXPECT_EQ(values_of<double>(y), (std::vector<double>{4, -5, 6}));
  EXPECT_EQ(values_of<double>(x), (std::vector<double>{1, 2, 3}));
}

TEST(Ffi, PointerLiteralScalars) {
  // i32 takes a literal; the trailing i64 is not right after a pointer, so it takes a literal too.
  KernelPtr k = ca::kernel_new_ffi("add_i32", as_fn(&add_i32), "void(i32*,i64,i32,i64)", 1, nullptr, nullptr);
  BlockRef x = make_block<int32_t>({4}, {1, 2, 3, 4});
  BlockRef r = invoke(k, {blk(x), ca_arg_i64(10), ca_arg_f64(100.9)});
  EXPECT_EQ(r->dtype, CA_INT32);
  EXPECT_EQ(values_of<int32_t>(r), (std::vector<int32_t>{111, 112, 113, 114}));
}

TEST(Ffi, PointerEmptyAndZeroDBlocks) {
  KernelPtr s = ca::kernel_new_ffi("sum", as_fn(&sum), "f64(f64*,i64)", 1, nullptr, nullptr);
  KernelPtr t = ca::kernel_new_ffi("scale2", as_fn(&scale2), "void(f64*,i64)", 1, nullptr, nullptr);
  BlockRef empty = make_block<double>({0, 4}, {});
  BlockRef r = invoke(s, {blk(empty)});
  EXPECT_EQ(r->ndim, 0);
  EXPECT_DOUBLE_EQ(r.data<double>()[0], 0.0);
  r = invoke(t, {blk(empty)});
  EXPECT_EQ(shape_of(r), (std::vector<int64_t>{0, 4}));
  EXPECT_EQ(r->size, 0);

  // An empty wrapped block may have a NULL data pointer.
  int64_t zero = 0;
  BlockRef wrapped(ca::block_wrap(CA_FLOAT64, 1, &zero, nullptr, nullptr, nullptr));
  r = invoke(s, {blk(wrapped)});
  EXPECT_DOUBLE_EQ(r.data<double>()[0], 0.0);
  r = invoke(t, {blk(wrapped)});
  EXPECT_EQ(shape_of(r), (std::vector<int64_t>{0}));

  BlockRef zd = make_block<double>({}, {21.0});
  r = invoke(s, {blk(zd)});  // a 0-d block has one element
  EXPECT_DOUBLE_EQ(r.data<double>()[0], 21.0);
  r = invoke(t, {blk(zd)});
  EXPECT_EQ(r->ndim, 0);
  EXPECT_DOUBLE_EQ(r.data<double>()[0], 42.0);
  EXPECT_DOUBLE_EQ(zd.data<double>()[0], 21.0);
}

// ------------------------------------------------------------------------------------------------
// Errors at call time

TEST(Ffi, WrongDtype) {
  KernelPtr k = ca::kernel_new_ffi("sum", as_fn(&sum), "f64(f64*,i64)", 1, nullptr, nullptr);
  BlockRef f = make_block<float>({2}, {1, 2});
  std::string msg = invoke_error(k, {blk(f)});
  EXPECT_CONTAINS(msg, "sum");
  EXPECT_CONTAINS(msg, "argument 1");
  EXPECT_CONTAINS(msg, "float64");
  EXPECT_CONTAINS(msg, "float32");

  KernelPtr d = ca::kernel_new_ffi("dot", as_fn(&dot), "f64(f64*,i64,f64*,i64)", 1, nullptr, nullptr);
  BlockRef x = make_block<double>({2}, {1, 2});
  BlockRef i = make_block<int64_t>({2}, {1, 2});
  msg = invoke_error(d, {blk(x), blk(i)});
  EXPECT_CONTAINS(msg, "argument 2");
  EXPECT_CONTAINS(msg, "parameter 3");
  EXPECT_CONTAINS(msg, "int64");

  // Elementwise: complex blocks cannot be converted to a C scalar.
  KernelPtr e = ca::kernel_new_ffi("axpn", as_fn(&axpn), "f64(f64,i64)", 1, nullptr, nullptr);
  int64_t two = 2;
  BlockRef c(ca::block_new(CA_COMPLEX128, 1, &two, true));
  msg = invoke_error(e, {blk(c), ca_arg_i64(1)});
  EXPECT_CONTAINS(msg, "complex128");
  EXPECT_CONTAINS(msg, "argument 1");
}

TEST(Ffi, WrongArgumentKind) {
  KernelPtr e = ca::kernel_new_ffi("axpn", as_fn(&axpn), "f64(f64,i64)", 1, nullptr, nullptr);
  std::string msg = invoke_error(e, {ca_arg_f64(1), ca_arg_str("x")});
  EXPECT_CONTAINS(msg, "argument 2");
  EXPECT_CONTAINS(msg, "string");

  KernelPtr s = ca::kernel_new_ffi("sum", as_fn(&sum), "f64(f64*,i64)", 1, nullptr, nullptr);
  msg = invoke_error(s, {ca_arg_f64(1)});
  EXPECT_CONTAINS(msg, "argument 1");
  EXPECT_CONTAINS(msg, "float64 block");

  KernelPtr a = ca::kernel_new_ffi("axpy", as_fn(&axpy), "void(f64*,i64,f64*,f64)", 1, nullptr, nullptr);
  BlockRef x = make_block<double>({2}, {1, 2});
  msg = invoke_error(a, {blk(x), blk(x), blk(x)});  // a block where the f64 literal goes
  EXPECT_CONTAINS(msg, "argument 3");
  EXPECT_CONTAINS(msg, "literal");
}

TEST(Ffi, WrongArgumentCount) {
  KernelPtr e = ca::kernel_new_ffi("axpn", as_fn(&axpn), "f64(f64,i64)", 1, nullptr, nullptr);
  std::string msg = invoke_error(e, {ca_arg_f64(1)});
  EXPECT_CONTAINS(msg, "axpn");
  EXPECT_CONTAINS(msg, "f64(f64,i64)");
  EXPECT_CONTAINS(msg, "takes 2 arguments, got 1");
  msg = invoke_error(e, {ca_arg_f64(1), ca_arg_i64(1), ca_arg_i64(1)});
  EXPECT_CONTAINS(msg, "got 3");

  KernelPtr s = ca::kernel_new_ffi("sum", as_fn(&sum), "f64(f64*,i64)", 1, nullptr, nullptr);
  BlockRef x = make_block<double>({2}, {1, 2});
  msg = invoke_error(s, {blk(x), ca_arg_i64(2)});  // the count is implicit
  EXPECT_CONTAINS(msg, "takes 1 argument, got 2");
  msg = invoke_error(s, {});
  EXPECT_CONTAINS(msg, "got 0");
}

TEST(Ffi, ErrorsWithoutContext) {
  // kctx may be NULL: the call still fails cleanly (with a generic message).
  KernelPtr e = ca::kernel_new_ffi("axpn", as_fn(&axpn), "f64(f64,i64)", 1, nullptr, nullptr);
  ca_arg_t one = ca_arg_f64(1);
  EXPECT_THROW(BlockRef(ca::kernel_invoke(e.get(), &one, 1, nullptr)), ca::Error);
  ca_block_t *out = reinterpret_cast<ca_block_t *>(&one);  // garbage: the kernel must reset it
  EXPECT_NE(e->fn(&out, &one, 1, nullptr, e->user_data), CA_OK);
  EXPECT_EQ(out, nullptr);
}

// ------------------------------------------------------------------------------------------------
// Signatures

TEST(Ffi, BadSignatures) {
  std::string msg = creation_error("f64(");
  EXPECT_CONTAINS(msg, "'f64('");
  EXPECT_CONTAINS(msg, "')'");

  msg = creation_error("q32(f64)");
  EXPECT_CONTAINS(msg, "'q32(f64)'");
  EXPECT_CONTAINS(msg, "unknown type 'q32'");
  EXPECT_CONTAINS(msg, "return type");

  msg = creation_error("f64(f64,float)");
  EXPECT_CONTAINS(msg, "unknown type 'float'");
  EXPECT_CONTAINS(msg, "parameter 2");

  msg = creation_error("void(f64)");
  EXPECT_CONTAINS(msg, "'void(f64)'");
  EXPECT_CONTAINS(msg, "void");
  EXPECT_CONTAINS(msg, "pointer");

  msg = creation_error("");
  EXPECT_CONTAINS(msg, "empty");
  msg = creation_error("   ");
  EXPECT_CONTAINS(msg, "empty");

  EXPECT_CONTAINS(creation_error("f64"), "missing '('");
  EXPECT_CONTAINS(creation_error("f64(f64,)"), "parameter 2 is empty");
  EXPECT_CONTAINS(creation_error("f64(,f64)"), "parameter 1 is empty");
  EXPECT_CONTAINS(creation_error("f64(f64))"), "unexpected ')' after ')'");
  EXPECT_CONTAINS(creation_error("f64(f64) x"), "unexpected 'x'");
  EXPECT_CONTAINS(creation_error("f64((f64))"), "unexpected '('");
  EXPECT_CONTAINS(creation_error("f64(void)"), "only allowed as the return type");
  EXPECT_CONTAINS(creation_error("f64(f64**,i64)"), "pointers to pointers");
  EXPECT_CONTAINS(creation_error("f64*(f64*,i64)"), "is a pointer");
  EXPECT_CONTAINS(creation_error("void*(f64*)"), "void*");
  EXPECT_CONTAINS(creation_error("f 64(f64)"), "unknown type 'f 64'");
  EXPECT_CONTAINS(creation_error("(f64)"), "return type is empty");
  EXPECT_CONTAINS(creation_error("void()"), "pointer");
}

TEST(Ffi, SignatureWhitespaceAndCanonicalForm) {
  KernelPtr k = ca::kernel_new_ffi("sum", as_fn(&sum), " \tf64 ( f64 * ,\n i64 ) ", 1, nullptr, nullptr);
  EXPECT_EQ(k->signature, "f64(f64*,i64)");
  BlockRef x = make_block<double>({2}, {1, 2});
  EXPECT_DOUBLE_EQ(invoke(k, {blk(x)}).data<double>()[0], 3.0);
  KernelPtr v = ca::kernel_new_ffi("scale2", as_fn(&scale2), "void (f64*, i64)", 1, nullptr, nullptr);
  EXPECT_EQ(v->signature, "void(f64*,i64)");
  KernelPtr all = ca::kernel_new_ffi("x", as_fn(&axpn), "bool(i8,i16,i32,i64,u8,u16,u32,u64,f32,f64,bool)", 1,
                                     nullptr, nullptr);
  EXPECT_EQ(all->signature, "bool(i8,i16,i32,i64,u8,u16,u32,u64,f32,f64,bool)");
}

TEST(Ffi, NullFunctionAndBadName) {
  std::string sig = "f64(f64)";
  EXPECT_THROW(ca::kernel_new_ffi("f", nullptr, sig, 1, nullptr, nullptr), ca::Error);
  EXPECT_THROW(ca::kernel_new_ffi("", as_fn(&axpn), "f64(f64,i64)", 1, nullptr, nullptr), ca::Error);
}

// ------------------------------------------------------------------------------------------------
// Ownership of user data

struct Counter {
  int freed = 0;
};
void free_counter(void *p) { static_cast<Counter *>(p)->freed++; }

TEST(Ffi, FreeUserDataOnceAfterRelease) {
  Counter c;
  {
    KernelPtr k = ca::kernel_new_ffi("axpn", as_fn(&axpn), "f64(f64,i64)", 1, &c, free_counter);
    EXPECT_EQ(c.freed, 0);
    KernelPtr k2 = k;  // a second reference
    BlockRef r = invoke(k, {ca_arg_f64(1), ca_arg_i64(2)});
    std::string msg = invoke_error(k, {ca_arg_f64(1)});
    EXPECT_EQ(c.freed, 0);
    k = KernelPtr();
    EXPECT_EQ(c.freed, 0);
    r = invoke(k2, {ca_arg_f64(1), ca_arg_i64(2)});  // still usable
    EXPECT_DOUBLE_EQ(r.data<double>()[0], 2.5);
  }
  EXPECT_EQ(c.freed, 1);
}

TEST(Ffi, FreeUserDataOnceOnCreationFailure) {
  const char *bad[] = {"f64(", "q32(f64)", "void(f64)", "", "f64(f64**)"};
  for (const char *sig : bad) {
    Counter c;
    EXPECT_THROW(ca::kernel_new_ffi("k", as_fn(&axpn), sig, 1, &c, free_counter), ca::Error) << sig;
    EXPECT_EQ(c.freed, 1) << sig;
  }
  Counter c1;
  EXPECT_THROW(ca::kernel_new_ffi("k", nullptr, "f64(f64)", 1, &c1, free_counter), ca::Error);
  EXPECT_EQ(c1.freed, 1);
  Counter c2;  // the name is checked by kernel_new, after the signature was parsed
  EXPECT_THROW(ca::kernel_new_ffi("", as_fn(&axpn), "f64(f64,i64)", 1, &c2, free_counter), ca::Error);
  EXPECT_EQ(c2.freed, 1);
  // NULL free function: nothing to call, no crash.
  EXPECT_THROW(ca::kernel_new_ffi("k", as_fn(&axpn), "f64(", 1, &c2, nullptr), ca::Error);
  EXPECT_EQ(c2.freed, 1);
}

// ------------------------------------------------------------------------------------------------
// Concurrency: kernels run on any worker thread.

TEST(Ffi, ConcurrentCalls) {
  KernelPtr e = ca::kernel_new_ffi("axpn", as_fn(&axpn), "f64(f64,i64)", 1, nullptr, nullptr);
  KernelPtr t = ca::kernel_new_ffi("scale2", as_fn(&scale2), "void(f64*,i64)", 1, nullptr, nullptr);
  BlockRef x = make_block<double>({64}, std::vector<double>(64, 1.5));
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < 4; ++w)
    threads.emplace_back([&, w] {
      for (int it = 0; it < 200; ++it) {
        ca_kernel_ctx_t kctx;
        ca_arg_t args[2] = {blk(x), ca_arg_i64(w)};
        BlockRef r(ca::kernel_invoke(e.get(), args, 2, &kctx));
        for (int i = 0; i < 64; ++i)
          if (r.data<double>()[i] != 1.5 * w + 0.5) bad++;
        BlockRef s(ca::kernel_invoke(t.get(), args, 1, &kctx));
        for (int i = 0; i < 64; ++i)
          if (s.data<double>()[i] != 3.0) bad++;
      }
    });
  for (auto &th : threads) th.join();
  EXPECT_EQ(bad.load(), 0);
}

}  // namespace
