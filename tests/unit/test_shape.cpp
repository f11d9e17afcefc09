// Shape operations against NumPy (values, dtype, shape) and dask.array (result chunks for the same
// call on the same input chunks), both run once per test through Debian's /usr/bin/python3.
#include <gtest/gtest.h>

#include <chunkarray/chunkarray.h>
#include <chunkarray/shape.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "array/array.hpp"
#include "array/shape.hpp"
#include "dask_batch.hpp"
#include "numpy_ref.hpp"

using namespace ca;
using ca::test::Batch;
using ca::test::Input;
using ca::test::make;
using ca::test::Npy;
using ca::test::expect_error;

namespace {

ArrayPtr arr(DType dt, std::vector<Index> shape, Chunks chunks) {
  return ca::test::array_from_npy(make(dt, std::move(shape)), chunks);
}

class Shape : public ::testing::Test {
 protected:
  void SetUp() override { live_ = block_live_count(); }
  void TearDown() override { EXPECT_EQ(block_live_count(), live_) << "blocks leaked"; }
  int64_t live_ = 0;
};

using V = std::vector<Index>;
using A = std::vector<ArrayPtr>;

}  // namespace

// ---- reshape ----------------------------------------------------------------------------------------

TEST_F(Shape, Reshape) {
  Batch b;
  struct R {
    std::vector<Index> in;
    Chunks chunks;
    std::vector<Index> out;
    DType dt;
  };
  std::vector<R> rs = {
      {{4, 6}, {{1, 3}, {2, 4}}, {24}, CA_FLOAT64},
      {{4, 6}, {{2, 2}, {3, 3}}, {2, 2, 6}, CA_INT32},
      {{24}, {{5, 5, 5, 9}}, {4, 6}, CA_INT16},
      {{24}, {{5, 5, 5, 9}}, {2, 3, 4}, CA_UINT8},
      {{6, 5, 4}, {{3, 3}, {2, 3}, {2, 2}}, {30, 4}, CA_FLOAT32},
      {{6, 5, 4}, {{3, 3}, {2, 3}, {2, 2}}, {3, 2, 5, 4}, CA_COMPLEX128},
      {{4, 4, 4}, {{1, 1, 1, 1}, {1, 1, 1, 1}, {2, 2}}, {64}, CA_INT64},  // blocks move (dask's special case)
      {{4, 1, 6}, {{2, 2}, {1}, {3, 3}}, {4, 6}, CA_BOOL},
      {{4, 6}, {{2, 2}, {3, 3}}, {4, 1, 6, 1}, CA_FLOAT64},
      {{1, 8}, {{1}, {3, 5}}, {8}, CA_FLOAT64},
      {{8}, {{3, 5}}, {1, 8}, CA_FLOAT64},
      {{3, 4}, {{3}, {4}}, {2, 6}, CA_FLOAT64},  // one block
      {{1}, {{1}}, {}, CA_FLOAT64},              // to 0-d
      {{}, {}, {1, 1}, CA_INT32},                // from 0-d
      {{12}, {{4, 4, 4}}, {3, -1}, CA_FLOAT64},  // -1
      {{6, 5, 4}, {{1, 5}, {2, 3}, {4}}, {30, 4}, CA_INT32},                 // expand_tuple
      {{7, 4}, {{7}, {1, 1, 2}}, {28}, CA_UINT16},                            // expand_tuple (7, 4) by 3
      {{2, 3, 4}, {{1, 1}, {1, 2}, {2, 2}}, {6, 4}, CA_FLOAT64},              // blocks move
      {{1, 4, 1, 6}, {{1}, {1, 3}, {1}, {2, 4}}, {4, 6, 1}, CA_INT8},        // size-1 dims
      {{48}, {{10, 6, 16, 16}}, {3, 4, 4}, CA_FLOAT32},                       // contract_tuple
      {{5, 6}, {{2, 2, 1}, {6}}, {5, 2, 3}, CA_COMPLEX64},
  };
  for (auto &r : rs) {
    std::string out = "(";
    for (Index s : r.out) out += std::to_string(s) + ",";
    out += ")";
    b.add("reshape " + out, {{make(r.dt, r.in), r.chunks}}, "a0.reshape(" + out + ")", "A0.reshape(" + out + ")",
          [&](const A &a) { return reshape(a[0], r.out); });
  }
  // Empty arrays: merged into one block (dask cannot reshape these multi-block), values as NumPy.
  b.add("reshape empty", {{make(CA_FLOAT64, {0, 4}), {{0}, {2, 2}}}}, "a0.reshape((4, 0))", "",
        [](const A &a) { return reshape(a[0], {4, 0}); });
  b.add("ravel", {{make(CA_INT32, {3, 4}), {{1, 2}, {4}}}}, "np.ravel(a0)", "da.ravel(A0)",
        [](const A &a) { return ravel(a[0]); });
  b.add("ravel 0-d", {{make(CA_INT32, {}), {}}}, "np.ravel(a0)", "da.ravel(A0)", [](const A &a) { return ravel(a[0]); });
  b.run();
}

TEST_F(Shape, ReshapeErrors) {
  auto a = arr(CA_FLOAT64, {4, 6}, {{2, 2}, {3, 3}});
  expect_error(CA_EINVAL, "cannot reshape array of size 24 into shape (5, 5)", [&] { reshape(a, {5, 5}); });
  expect_error(CA_EINVAL, "cannot reshape array of size 24 into shape (5, -1)", [&] { reshape(a, {5, -1}); });
  expect_error(CA_EINVAL, "only specify one unknown dimension", [&] { reshape(a, {-1, -1}); });
  expect_error(CA_EINVAL, "is negative", [&] { reshape(a, {-2, -12}); });
  expect_error(CA_EINVAL, "merge or split existing dimensions evenly", [&] { reshape(a, {3, 8}); });
  auto symbolic = reshape(a, {2, 2, 6});
  EXPECT_EQ(symbolic->graph->find(symbolic->name)->kind(), LayerKind::Blockwise);
}

// ---- transpose family --------------------------------------------------------------------------------

TEST_F(Shape, Transpose) {
  Batch b;
  Chunks c3 = {{1, 2}, {3, 1}, {2, 2, 1}};
  for (DType dt : {CA_FLOAT64, CA_INT8, CA_COMPLEX64, CA_BOOL}) {
    std::string n = dtype_name(dt);
    b.add("transpose default " + n, {{make(dt, {3, 4, 5}), c3}}, "np.transpose(a0)", "da.transpose(A0)",
          [](const A &a) { return transpose(a[0], {}); });
    b.add("transpose (1,2,0) " + n, {{make(dt, {3, 4, 5}), c3}}, "np.transpose(a0, (1, 2, 0))",
          "da.transpose(A0, (1, 2, 0))", [](const A &a) { return transpose(a[0], {1, 2, 0}); });
  }
  b.add("transpose negative axes", {{make(CA_INT32, {3, 4, 5}), c3}}, "np.transpose(a0, (-1, 0, 1))",
        "da.transpose(A0, (-1, 0, 1))", [](const A &a) { return transpose(a[0], {-1, 0, 1}); });
  b.add("transpose empty", {{make(CA_FLOAT32, {0, 3}), {{0}, {2, 1}}}}, "np.transpose(a0)", "da.transpose(A0)",
        [](const A &a) { return transpose(a[0], {}); });
  b.add("transpose 0-d", {{make(CA_FLOAT32, {}), {}}}, "np.transpose(a0)", "da.transpose(A0)",
        [](const A &a) { return transpose(a[0], {}); });
  b.add("moveaxis", {{make(CA_INT64, {3, 4, 5}), c3}}, "np.moveaxis(a0, 0, -1)", "da.moveaxis(A0, 0, -1)",
        [](const A &a) { return moveaxis(a[0], {0}, {-1}); });
  b.add("moveaxis 2", {{make(CA_INT64, {3, 4, 5}), c3}}, "np.moveaxis(a0, [0, 2], [2, 0])",
        "da.moveaxis(A0, [0, 2], [2, 0])", [](const A &a) { return moveaxis(a[0], {0, 2}, {2, 0}); });
  b.add("swapaxes", {{make(CA_UINT16, {3, 4, 5}), c3}}, "np.swapaxes(a0, 0, 2)", "da.swapaxes(A0, 0, 2)",
        [](const A &a) { return swapaxes(a[0], 0, 2); });
  b.add("swapaxes same", {{make(CA_UINT16, {3, 4}), {{1, 2}, {4}}}}, "np.swapaxes(a0, 1, -1)",
        "da.swapaxes(A0, 1, -1)", [](const A &a) { return swapaxes(a[0], 1, -1); });
  b.run();
  auto a = arr(CA_FLOAT64, {3, 4}, {{3}, {4}});
  expect_error(CA_EINVAL, "axes don't match array", [&] { transpose(a, {0}); });
  expect_error(CA_EINVAL, "repeated axis", [&] { transpose(a, {0, 0}); });
  expect_error(CA_EINVAL, "axis 2 is out of bounds for an array of dimension 2", [&] { transpose(a, {0, 2}); });
  expect_error(CA_EINVAL, "same number of elements", [&] { moveaxis(a, {0, 1}, {0}); });
  expect_error(CA_EINVAL, "out of bounds", [&] { swapaxes(a, 0, -3); });
}

// ---- squeeze / expand_dims / broadcast_to ------------------------------------------------------------

TEST_F(Shape, SqueezeExpandDims) {
  Batch b;
  Chunks c = {{1}, {2, 2}, {1}, {3}};
  b.add("squeeze all", {{make(CA_FLOAT64, {1, 4, 1, 3}), c}}, "np.squeeze(a0)", "da.squeeze(A0)",
        [](const A &a) { return squeeze(a[0], {}, true); });
  b.add("squeeze axis", {{make(CA_INT32, {1, 4, 1, 3}), c}}, "np.squeeze(a0, axis=2)", "da.squeeze(A0, axis=2)",
        [](const A &a) { return squeeze(a[0], {2}, false); });
  b.add("squeeze axes", {{make(CA_INT32, {1, 4, 1, 3}), c}}, "np.squeeze(a0, axis=(0, -2))",
        "da.squeeze(A0, axis=(0, -2))", [](const A &a) { return squeeze(a[0], {0, -2}, false); });
  b.add("squeeze to 0-d", {{make(CA_BOOL, {1, 1}), {{1}, {1}}}}, "np.squeeze(a0)", "da.squeeze(A0)",
        [](const A &a) { return squeeze(a[0], {}, true); });
  b.add("squeeze nothing", {{make(CA_BOOL, {2, 3}), {{1, 1}, {3}}}}, "np.squeeze(a0)", "da.squeeze(A0)",
        [](const A &a) { return squeeze(a[0], {}, true); });
  b.add("expand_dims 0", {{make(CA_UINT32, {4, 3}), {{1, 3}, {2, 1}}}}, "np.expand_dims(a0, 0)",
        "da.expand_dims(A0, 0)", [](const A &a) { return expand_dims(a[0], {0}); });
  b.add("expand_dims -1", {{make(CA_UINT32, {4, 3}), {{1, 3}, {2, 1}}}}, "np.expand_dims(a0, -1)",
        "da.expand_dims(A0, -1)", [](const A &a) { return expand_dims(a[0], {-1}); });
  b.add("expand_dims (0, 2)", {{make(CA_COMPLEX128, {4, 3}), {{1, 3}, {2, 1}}}}, "np.expand_dims(a0, (0, 2))",
        "da.expand_dims(A0, (0, 2))", [](const A &a) { return expand_dims(a[0], {0, 2}); });
  b.add("expand_dims 0-d", {{make(CA_FLOAT64, {}), {}}}, "np.expand_dims(a0, 0)", "da.expand_dims(A0, 0)",
        [](const A &a) { return expand_dims(a[0], {0}); });
  b.add("expand_dims empty", {{make(CA_FLOAT64, {0}), {{0}}}}, "np.expand_dims(a0, 1)", "da.expand_dims(A0, 1)",
        [](const A &a) { return expand_dims(a[0], {1}); });
  b.run();
  auto a = arr(CA_FLOAT64, {1, 4}, {{1}, {4}});
  expect_error(CA_EINVAL, "size not equal to one", [&] { squeeze(a, {1}, false); });
  expect_error(CA_EINVAL, "out of bounds", [&] { squeeze(a, {2}, false); });
  expect_error(CA_EINVAL, "repeated axis", [&] { expand_dims(a, {0, 0}); });
  expect_error(CA_EINVAL, "out of bounds", [&] { expand_dims(a, {3}); });
}

TEST_F(Shape, BroadcastTo) {
  Batch b;
  b.add("new leading dims", {{make(CA_FLOAT64, {4, 3}), {{1, 3}, {2, 1}}}}, "np.broadcast_to(a0, (2, 5, 4, 3))",
        "da.broadcast_to(A0, (2, 5, 4, 3))", [](const A &a) { return broadcast_to(a[0], {2, 5, 4, 3}, nullptr); });
  b.add("size-1 dims", {{make(CA_INT16, {4, 1}), {{2, 2}, {1}}}}, "np.broadcast_to(a0, (3, 4, 6))",
        "da.broadcast_to(A0, (3, 4, 6))", [](const A &a) { return broadcast_to(a[0], {3, 4, 6}, nullptr); });
  Chunks ch = {{1, 2}, {2, 2}, {4, 2}};
  b.add("explicit chunks", {{make(CA_INT16, {4, 1}), {{2, 2}, {1}}}}, "np.broadcast_to(a0, (3, 4, 6))",
        "da.broadcast_to(A0, (3, 4, 6), chunks=((1, 2), (2, 2), (4, 2)))",
        [&](const A &a) { return broadcast_to(a[0], {3, 4, 6}, &ch); });
  b.add("0-d", {{make(CA_BOOL, {}), {}}}, "np.broadcast_to(a0, (2, 3))", "da.broadcast_to(A0, (2, 3))",
        [](const A &a) { return broadcast_to(a[0], {2, 3}, nullptr); });
  b.add("to empty", {{make(CA_FLOAT32, {1, 3}), {{1}, {2, 1}}}}, "np.broadcast_to(a0, (0, 3))",
        "da.broadcast_to(A0, (0, 3))", [](const A &a) { return broadcast_to(a[0], {0, 3}, nullptr); });
  b.add("same", {{make(CA_FLOAT32, {2, 3}), {{1, 1}, {2, 1}}}}, "np.broadcast_to(a0, (2, 3))",
        "da.broadcast_to(A0, (2, 3))", [](const A &a) { return broadcast_to(a[0], {2, 3}, nullptr); });
  b.run();
  auto a = arr(CA_FLOAT64, {4, 3}, {{2, 2}, {3}});
  expect_error(CA_EINVAL, "cannot broadcast shape (4, 3) to shape (4, 4)", [&] { broadcast_to(a, {4, 4}, nullptr); });
  expect_error(CA_EINVAL, "cannot broadcast shape (4, 3) to shape (3,)", [&] { broadcast_to(a, {3}, nullptr); });
  Chunks bad = {{4}, {3}};
  expect_error(CA_EINVAL, "new chunks must either be along a new dimension", [&] { broadcast_to(a, {4, 3}, &bad); });
  auto r = broadcast_to(a, {5, 4, 3}, nullptr);
  EXPECT_EQ(r->graph->find(r->name)->kind(), LayerKind::Blockwise);
}

// ---- joining ------------------------------------------------------------------------------------------

TEST_F(Shape, Concatenate) {
  Batch b;
  b.add("axis 0 ragged", {{make(CA_FLOAT64, {3, 4}), {{1, 2}, {2, 2}}}, {make(CA_FLOAT64, {5, 4}), {{5}, {2, 2}}}},
        "np.concatenate([a0, a1], axis=0)", "da.concatenate([A0, A1], axis=0)",
        [](const A &a) { return concatenate(a, 0); });
  b.add("axis 1 unify", {{make(CA_INT32, {4, 3}), {{1, 3}, {3}}}, {make(CA_INT32, {4, 2}), {{2, 2}, {1, 1}}}},
        "np.concatenate([a0, a1], axis=1)", "da.concatenate([A0, A1], axis=1)",
        [](const A &a) { return concatenate(a, 1); });
  b.add("promotion", {{make(CA_INT8, {2, 3}), {{1, 1}, {3}}}, {make(CA_UINT8, {1, 3}), {{1}, {3}}},
                      {make(CA_FLOAT32, {2, 3}), {{2}, {1, 2}}}},
        "np.concatenate([a0, a1, a2], axis=0)", "da.concatenate([A0, A1, A2], axis=0)",
        [](const A &a) { return concatenate(a, 0); });
  b.add("negative axis bool", {{make(CA_BOOL, {2, 3}), {{1, 1}, {3}}}, {make(CA_BOOL, {2, 1}), {{2}, {1}}}},
        "np.concatenate([a0, a1], axis=-1)", "da.concatenate([A0, A1], axis=-1)",
        [](const A &a) { return concatenate(a, -1); });
  b.add("with empty", {{make(CA_FLOAT64, {0, 3}), {{0}, {3}}}, {make(CA_FLOAT64, {2, 3}), {{1, 1}, {2, 1}}}},
        "np.concatenate([a0, a1], axis=0)", "da.concatenate([A0, A1], axis=0)",
        [](const A &a) { return concatenate(a, 0); });
  b.add("all empty", {{make(CA_FLOAT64, {0, 3}), {{0}, {3}}}, {make(CA_FLOAT64, {0, 3}), {{0}, {1, 2}}}},
        "np.concatenate([a0, a1], axis=0)", "da.concatenate([A0, A1], axis=0)",
        [](const A &a) { return concatenate(a, 0); });
  b.add("single", {{make(CA_COMPLEX64, {3}), {{1, 2}}}}, "np.concatenate([a0])", "da.concatenate([A0])",
        [](const A &a) { return concatenate(a, 0); });
  b.add("unify three", {{make(CA_FLOAT64, {7, 2}), {{5, 2}, {2}}}, {make(CA_FLOAT64, {7, 1}), {{4, 3}, {1}}},
                        {make(CA_FLOAT64, {7, 3}), {{7}, {1, 2}}}},
        "np.concatenate([a0, a1, a2], axis=1)", "da.concatenate([A0, A1, A2], axis=1)",
        [](const A &a) { return concatenate(a, 1); });
  b.add("stack unify", {{make(CA_INT32, {5, 2}), {{2, 3}, {2}}}, {make(CA_INT32, {5, 2}), {{4, 1}, {1, 1}}}},
        "np.stack([a0, a1], axis=1)", "da.stack([A0, A1], axis=1)", [](const A &a) { return stack(a, 1); });
  b.add("size-1 dims", {{make(CA_INT64, {1, 2}), {{1}, {1, 1}}}, {make(CA_INT64, {1, 3}), {{1}, {3}}}},
        "np.concatenate([a0, a1], axis=1)", "da.concatenate([A0, A1], axis=1)",
        [](const A &a) { return concatenate(a, 1); });
  b.add("stack 0", {{make(CA_FLOAT64, {3, 4}), {{1, 2}, {4}}}, {make(CA_FLOAT64, {3, 4}), {{3}, {2, 2}}}},
        "np.stack([a0, a1])", "da.stack([A0, A1])", [](const A &a) { return stack(a, 0); });
  b.add("stack -1 promote", {{make(CA_INT16, {3, 4}), {{1, 2}, {4}}}, {make(CA_FLOAT32, {3, 4}), {{1, 2}, {4}}},
                             {make(CA_INT16, {3, 4}), {{1, 2}, {4}}}},
        "np.stack([a0, a1, a2], axis=-1)", "da.stack([A0, A1, A2], axis=-1)",
        [](const A &a) { return stack(a, -1); });
  b.add("stack 0-d", {{make(CA_INT32, {}), {}}, {make(CA_INT32, {}), {}}}, "np.stack([a0, a1])",
        "da.stack([A0, A1])", [](const A &a) { return stack(a, 0); });
  b.add("block 2x2", {{make(CA_FLOAT64, {2, 2}), {{1, 1}, {2}}}, {make(CA_FLOAT64, {2, 3}), {{2}, {1, 2}}},
                      {make(CA_FLOAT64, {1, 5}), {{1}, {5}}}},
        "np.block([[a0, a1], [a2]])", "da.block([[A0, A1], [A2]])",
        [](const A &a) { return block(a, 2, {2, 2, 1}); });
  b.add("block 1-d with scalars", {{make(CA_INT32, {3}), {{1, 2}}}, {make(CA_INT32, {}), {}}},
        "np.block([a0, a1])", "da.block([A0, A1])", [](const A &a) { return block(a, 1, {2}); });
  b.add("block depth 3", {{make(CA_INT8, {2}), {{2}}}, {make(CA_INT8, {2}), {{1, 1}}}},
        "np.block([[[a0]], [[a1]]])", "da.block([[[A0]], [[A1]]])", [](const A &a) { return block(a, 3, {2, 1, 1, 1, 1}); });
  b.run();
  auto x = arr(CA_FLOAT64, {3, 4}, {{3}, {4}});
  auto y = arr(CA_FLOAT64, {3, 5}, {{3}, {5}});
  auto z = arr(CA_FLOAT64, {3}, {{3}});
  expect_error(CA_EINVAL, "along dimension 1, the array at index 0 has size 4 and the array at index 1 has size 5",
               [&] { concatenate({x, y}, 0); });
  expect_error(CA_EINVAL, "same number of dimensions", [&] { concatenate({x, z}, 0); });
  expect_error(CA_EINVAL, "axis 2 is out of bounds", [&] { concatenate({x, x}, 2); });
  expect_error(CA_EINVAL, "need at least one array", [&] { concatenate({}, 0); });
  expect_error(CA_EINVAL, "zero-dimensional", [&] { concatenate({arr(CA_FLOAT64, {}, {})}, 0); });
  expect_error(CA_EINVAL, "same shape", [&] { stack({x, y}, 0); });
  expect_error(CA_EINVAL, "Lists cannot be empty", [&] { block({x}, 2, {1, 0}); });
  expect_error(CA_EINVAL, "arrays left over", [&] { block({x, x}, 1, {1}); });
}

TEST_F(Shape, ConcatenateManyBlocksIsLinear) {
  // 2 x 500k blocks and 5000 one-block arrays: graph building stays linear (well under a second per
  // 100k blocks at -O1).
  auto t0 = std::chrono::steady_clock::now();
  auto a = arr(CA_INT8, {500000}, {std::vector<Index>(500000, 1)});
  auto t1 = std::chrono::steady_clock::now();
  auto c = concatenate({a, a}, 0);
  auto t2 = std::chrono::steady_clock::now();
  EXPECT_EQ(c->numblocks[0], 1000000);
  double build = std::chrono::duration<double>(t2 - t1).count();
  EXPECT_LT(build, 20.0) << "1M-block concatenate took " << build << " s (from_buffer " 
                         << std::chrono::duration<double>(t1 - t0).count() << " s)";
  std::vector<ArrayPtr> many;
  for (int i = 0; i < 5000; ++i) many.push_back(arr(CA_INT16, {2}, {{2}}));
  auto t3 = std::chrono::steady_clock::now();
  auto m = concatenate(many, 0);
  double build2 = std::chrono::duration<double>(std::chrono::steady_clock::now() - t3).count();
  EXPECT_EQ(m->shape[0], 10000);
  EXPECT_EQ(m->numblocks[0], 5000);
  EXPECT_LT(build2, 10.0);
  Npy got = ca::test::compute_npy(m);
  for (Index i = 0; i < 10000; ++i) ASSERT_EQ(got.as<int16_t>()[i], int16_t(i % 2 == 0 ? -5 : 2)) << i;
}

// ---- repeat / tile / pad / flip ----------------------------------------------------------------------

TEST_F(Shape, RepeatTile) {
  Batch b;
  Chunks c = {{1, 3, 4}, {2, 1}};
  for (int r : {0, 1, 2, 3, 5}) {
    std::string rs = std::to_string(r);
    b.add("repeat " + rs, {{make(CA_FLOAT64, {8, 3}), c}}, "np.repeat(a0, " + rs + ", axis=0)",
          "da.repeat(A0, " + rs + ", axis=0)", [r](const A &a) { return repeat(a[0], r, 0); });
  }
  b.add("repeat axis -1 int", {{make(CA_INT32, {8, 3}), c}}, "np.repeat(a0, 4, axis=-1)", "da.repeat(A0, 4, axis=-1)",
        [](const A &a) { return repeat(a[0], 4, -1); });
  b.add("repeat empty other", {{make(CA_UINT8, {0, 3}), {{0}, {3}}}}, "np.repeat(a0, 2, axis=1)",
        "da.repeat(A0, 2, axis=1)", [](const A &a) { return repeat(a[0], 2, 1); });
  b.add("repeat bool", {{make(CA_BOOL, {5}), {{2, 3}}}}, "np.repeat(a0, 3, axis=0)", "da.repeat(A0, 3, axis=0)",
        [](const A &a) { return repeat(a[0], 3, 0); });
  b.add("tile 2", {{make(CA_FLOAT32, {2, 3}), {{1, 1}, {2, 1}}}}, "np.tile(a0, 2)", "da.tile(A0, 2)",
        [](const A &a) { return tile(a[0], {2}); });
  b.add("tile (2, 1, 3)", {{make(CA_INT64, {2, 3}), {{1, 1}, {2, 1}}}}, "np.tile(a0, (2, 1, 3))",
        "da.tile(A0, (2, 1, 3))", [](const A &a) { return tile(a[0], {2, 1, 3}); });
  b.add("tile zero", {{make(CA_INT64, {2, 3}), {{1, 1}, {2, 1}}}}, "np.tile(a0, (0, 2))", "da.tile(A0, (0, 2))",
        [](const A &a) { return tile(a[0], {0, 2}); });
  b.add("tile 0-d", {{make(CA_INT64, {}), {}}}, "np.tile(a0, 3)", "da.tile(A0, 3)",
        [](const A &a) { return tile(a[0], {3}); });
  b.add("tile empty reps", {{make(CA_INT64, {3}), {{1, 2}}}}, "np.tile(a0, ())", "da.tile(A0, ())",
        [](const A &a) { return tile(a[0], {}); });
  b.run();
  auto a = arr(CA_FLOAT64, {3}, {{3}});
  expect_error(CA_EINVAL, "repeats -1 is negative", [&] { repeat(a, -1, 0); });
  expect_error(CA_EINVAL, "out of bounds", [&] { repeat(a, 2, 1); });
  expect_error(CA_EINVAL, "Negative `reps`", [&] { tile(a, {-1}); });
}

TEST_F(Shape, PadFlip) {
  Batch b;
  Chunks c = {{2, 3}, {1, 3}};
  ca_scalar_t v{CA_FLOAT64, 0, 1.5, 0, 0};
  ca_scalar_t vi{CA_INT64, 0, 0, 0, 7};
  b.add("pad constant", {{make(CA_FLOAT64, {5, 4}), c}}, "np.pad(a0, ((1, 2), (0, 3)), constant_values=1.5)",
        "da.pad(A0, ((1, 2), (0, 3)), constant_values=1.5)",
        [&](const A &a) { return pad(a[0], {1, 0}, {2, 3}, kPadConstant, v); });
  b.add("pad constant int", {{make(CA_INT16, {5, 4}), c}}, "np.pad(a0, ((2, 2), (1, 1)), constant_values=7)",
        "da.pad(A0, ((2, 2), (1, 1)), constant_values=7)",
        [&](const A &a) { return pad(a[0], {2, 1}, {2, 1}, kPadConstant, vi); });
  b.add("pad edge", {{make(CA_INT32, {5, 4}), c}}, "np.pad(a0, ((1, 2), (3, 1)), mode='edge')",
        "da.pad(A0, ((1, 2), (3, 1)), mode='edge')",
        [&](const A &a) { return pad(a[0], {1, 3}, {2, 1}, kPadEdge, v); });
  b.add("pad reflect", {{make(CA_FLOAT32, {5, 4}), c}}, "np.pad(a0, ((3, 4), (2, 1)), mode='reflect')",
        "da.pad(A0, ((3, 4), (2, 1)), mode='reflect')",
        [&](const A &a) { return pad(a[0], {3, 2}, {4, 1}, kPadReflect, v); });
  b.add("pad reflect one side", {{make(CA_COMPLEX128, {5, 4}), c}}, "np.pad(a0, ((0, 2), (2, 0)), mode='reflect')",
        "da.pad(A0, ((0, 2), (2, 0)), mode='reflect')",
        [&](const A &a) { return pad(a[0], {0, 2}, {2, 0}, kPadReflect, v); });
  b.add("pad reflect many blocks", {{make(CA_INT64, {6, 3}), {{1, 1, 3, 1}, {1, 2}}}},
        "np.pad(a0, ((3, 5), (1, 2)), mode='reflect')", "da.pad(A0, ((3, 5), (1, 2)), mode='reflect')",
        [&](const A &a) { return pad(a[0], {3, 1}, {5, 2}, kPadReflect, v); });
  b.add("pad edge 3-d", {{make(CA_UINT8, {2, 3, 4}), {{1, 1}, {3}, {1, 3}}}},
        "np.pad(a0, ((1, 0), (2, 2), (0, 3)), mode='edge')", "da.pad(A0, ((1, 0), (2, 2), (0, 3)), mode='edge')",
        [&](const A &a) { return pad(a[0], {1, 2, 0}, {0, 2, 3}, kPadEdge, v); });
  b.add("pad constant float into int", {{make(CA_INT32, {3}), {{1, 2}}}}, "np.pad(a0, (1, 1), constant_values=1.5)",
        "da.pad(A0, (1, 1), constant_values=1.5)",
        [&](const A &a) { return pad(a[0], {1}, {1}, kPadConstant, v); });
  b.add("pad empty constant", {{make(CA_FLOAT64, {0, 3}), {{0}, {3}}}}, "np.pad(a0, ((1, 1), (0, 0)), constant_values=1.5)",
        "da.pad(A0, ((1, 1), (0, 0)), constant_values=1.5)", [&](const A &a) { return pad(a[0], {1, 0}, {1, 0}, kPadConstant, v); });
  b.add("pad bool", {{make(CA_BOOL, {4}), {{1, 3}}}}, "np.pad(a0, (2, 1), mode='edge')",
        "da.pad(A0, (2, 1), mode='edge')", [&](const A &a) { return pad(a[0], {2}, {1}, kPadEdge, v); });
  b.add("flip all", {{make(CA_FLOAT64, {5, 4}), c}}, "np.flip(a0)", "da.flip(A0)",
        [](const A &a) { return flip(a[0], {}, true); });
  b.add("flip axis", {{make(CA_UINT64, {5, 4, 3}), {{2, 3}, {1, 3}, {3}}}}, "np.flip(a0, 1)", "da.flip(A0, 1)",
        [](const A &a) { return flip(a[0], {1}, false); });
  b.add("flip -1", {{make(CA_INT8, {5, 4}), c}}, "np.flip(a0, -1)", "da.flip(A0, -1)",
        [](const A &a) { return flip(a[0], {-1}, false); });
  b.add("flip empty", {{make(CA_INT8, {0, 4}), {{0}, {1, 3}}}}, "np.flip(a0)", "da.flip(A0)",
        [](const A &a) { return flip(a[0], {}, true); });
  b.add("flip 0-d", {{make(CA_INT8, {}), {}}}, "np.flip(a0)", "da.flip(A0)",
        [](const A &a) { return flip(a[0], {}, true); });
  b.run();
  auto a = arr(CA_FLOAT64, {3, 4}, {{3}, {4}});
  expect_error(CA_EINVAL, "negative", [&] { pad(a, {-1, 0}, {0, 0}, kPadConstant, v); });
  expect_error(CA_EINVAL, "widths have 1 and 2 entries", [&] { pad(a, {1}, {0, 0}, kPadConstant, v); });
  expect_error(CA_EINVAL, "unknown mode", [&] { pad(a, {1, 0}, {0, 0}, 9, v); });
  expect_error(CA_EINVAL, "must be below its extent", [&] { pad(a, {3, 0}, {0, 0}, kPadReflect, v); });
  auto e = arr(CA_FLOAT64, {0, 4}, {{0}, {4}});
  expect_error(CA_EINVAL, "can't extend empty axis", [&] { pad(e, {1, 0}, {0, 0}, kPadEdge, v); });
  expect_error(CA_EINVAL, "out of bounds", [&] { flip(a, {2}, false); });
}

// ---- C API --------------------------------------------------------------------------------------------

namespace {
ca_array_t *c_iota(int32_t ndim, const int64_t *shape, const int64_t *numblocks, const int64_t *sizes,
                   std::vector<double> &data) {
  int64_t n = 1;
  for (int32_t d = 0; d < ndim; ++d) n *= shape[d];
  data.resize(size_t(n));
  for (int64_t i = 0; i < n; ++i) data[size_t(i)] = double(i);
  ca_chunks_t ch{ndim, numblocks, sizes};
  ca_array_t *a = nullptr;
  EXPECT_EQ(ca_array_from_buffer(&a, data.data(), CA_FLOAT64, ndim, shape, &ch, nullptr),
            CA_OK)
      << ca_last_error_message();
  return a;
}

std::vector<double> c_compute(ca_context_t *ctx, const ca_array_t *a) {
  std::vector<double> out(size_t(ca_array_size(a)));
  EXPECT_EQ(ca_array_compute_into(ctx, a, out.data(), out.size() * sizeof(double), nullptr), CA_OK)
      << ca_last_error_message();
  return out;
}
}  // namespace

TEST(ShapeCApi, Basics) {
  ca_context_t *ctx = nullptr;
  ASSERT_EQ(ca_context_new(&ctx, nullptr), CA_OK);
  std::vector<double> buf;
  int64_t shape[2] = {4, 6}, nb[2] = {2, 2}, sizes[4] = {1, 3, 2, 4};
  ca_array_t *a = c_iota(2, shape, nb, sizes, buf);
  ASSERT_TRUE(a);

  ca_array_t *r = nullptr;
  int64_t ns[3] = {2, -1, 6};
  ASSERT_EQ(ca_array_reshape(&r, a, 3, ns), CA_OK) << ca_last_error_message();
  EXPECT_EQ(ca_array_shape(r)[1], 2);
  auto v = c_compute(ctx, r);
  for (size_t i = 0; i < v.size(); ++i) EXPECT_EQ(v[i], double(i));
  ca_array_free(r);

  int32_t axes[2] = {1, 0};
  ca_array_t *t = nullptr;
  ASSERT_EQ(ca_array_transpose(&t, a, axes), CA_OK) << ca_last_error_message();
  v = c_compute(ctx, t);
  EXPECT_EQ(v[1], 6.0);
  int64_t n = 0;
  const int64_t *c0 = ca_array_chunks(t, 0, &n);
  ASSERT_EQ(n, 2);
  EXPECT_EQ(c0[0], 2);
  ca_array_free(t);

  const ca_array_t *pair[2] = {a, a};
  ca_array_t *cc = nullptr;
  ASSERT_EQ(ca_array_concatenate(&cc, pair, 2, 1), CA_OK) << ca_last_error_message();
  EXPECT_EQ(ca_array_shape(cc)[1], 12);
  ca_array_free(cc);

  ca_array_t *st = nullptr;
  ASSERT_EQ(ca_array_stack(&st, pair, 2, 0), CA_OK);
  EXPECT_EQ(ca_array_ndim(st), 3);
  ca_array_free(st);

  int64_t lists[3] = {2, 1, 1};
  ca_array_t *bl = nullptr;
  ASSERT_EQ(ca_array_block(&bl, pair, 2, 2, lists, 3), CA_OK) << ca_last_error_message();
  EXPECT_EQ(ca_array_shape(bl)[0], 8);
  ca_array_free(bl);

  int64_t before[2] = {1, 0}, after[2] = {0, 2};
  ca_scalar_t zero{CA_FLOAT64, 0, -1.0, 0, 0};
  ca_array_t *p = nullptr;
  ASSERT_EQ(ca_array_pad(&p, a, before, after, CA_PAD_CONSTANT, zero), CA_OK) << ca_last_error_message();
  v = c_compute(ctx, p);
  ASSERT_EQ(v.size(), 5u * 8u);
  EXPECT_EQ(v[0], -1.0);
  EXPECT_EQ(v[8], 0.0);
  EXPECT_EQ(v[8 + 6], -1.0);
  ca_array_free(p);

  ca_array_t *f = nullptr;
  ASSERT_EQ(ca_array_flip(&f, a, nullptr, 0), CA_OK);
  v = c_compute(ctx, f);
  EXPECT_EQ(v[0], 23.0);
  ca_array_free(f);

  ca_array_t *sq = nullptr, *ex = nullptr, *bc = nullptr, *rp = nullptr, *tl = nullptr, *rv = nullptr, *mv = nullptr,
             *sw = nullptr;
  int32_t ax0 = 0;
  ASSERT_EQ(ca_array_expand_dims(&ex, a, &ax0, 1), CA_OK);
  ASSERT_EQ(ca_array_squeeze(&sq, ex, nullptr, 0), CA_OK);
  EXPECT_EQ(ca_array_ndim(sq), 2);
  int64_t bshape[3] = {2, 4, 6};
  ASSERT_EQ(ca_array_broadcast_to(&bc, a, 3, bshape, nullptr), CA_OK);
  ASSERT_EQ(ca_array_repeat(&rp, a, 2, 1), CA_OK);
  EXPECT_EQ(ca_array_shape(rp)[1], 12);
  int64_t reps[2] = {2, 2};
  ASSERT_EQ(ca_array_tile(&tl, a, reps, 2), CA_OK);
  EXPECT_EQ(ca_array_shape(tl)[0], 8);
  ASSERT_EQ(ca_array_ravel(&rv, a), CA_OK);
  EXPECT_EQ(ca_array_ndim(rv), 1);
  int32_t src = 0, dst = -1;
  ASSERT_EQ(ca_array_moveaxis(&mv, a, &src, &dst, 1), CA_OK);
  ASSERT_EQ(ca_array_swapaxes(&sw, a, 0, 1), CA_OK);
  EXPECT_EQ(ca_array_shape(sw)[0], 6);
  for (ca_array_t *x : {sq, ex, bc, rp, tl, rv, mv, sw}) ca_array_free(x);

  // Errors: *out NULL, message names the problem.
  ca_array_t *bad = reinterpret_cast<ca_array_t *>(1);
  int64_t wrong[1] = {25};
  EXPECT_EQ(ca_array_reshape(&bad, a, 1, wrong), CA_EINVAL);
  EXPECT_EQ(bad, nullptr);
  EXPECT_NE(std::string(ca_last_error_message()).find("cannot reshape array of size 24"), std::string::npos);
  EXPECT_EQ(ca_array_transpose(&bad, nullptr, axes), CA_EINVAL);
  int32_t badax = 5;
  EXPECT_EQ(ca_array_squeeze(&bad, a, &badax, 1), CA_EINVAL);
  EXPECT_EQ(ca_array_repeat(&bad, a, -2, 0), CA_EINVAL);
  EXPECT_EQ(ca_array_concatenate(&bad, nullptr, 2, 0), CA_EINVAL);
  EXPECT_EQ(ca_array_pad(&bad, a, before, after, ca_pad_mode_t(7), zero), CA_EINVAL);
  int64_t three = 3;
  EXPECT_EQ(ca_array_block(&bad, pair, 2, 1, &three, 1), CA_EINVAL);
  EXPECT_NE(std::string(ca_last_error_message()).find("needs more than 2 arrays"), std::string::npos);
  EXPECT_EQ(bad, nullptr);

  ca_array_free(a);
  ca_context_free(ctx);
}
