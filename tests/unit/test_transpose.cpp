// ca.shape.transpose's block kernel against a plain loop, byte for byte: every element size (1, 2,
// 4, 8, 16 bytes), 2-d and 3-d permutations, shapes that are and are not multiples of the register
// tiles (8 x 8 float64 with AVX-512, 4 x 4 float64 / 8 x 8 float32 with AVX2), ragged chunks, one
// element, empty. meson runs this suite three times: at the CPU's level, with AVX-512 off
// (CA_DISABLE_CPU_FEATURES=avx512: the AVX2 tiles) and with AVX2 off (the scalar tiles only).
#include <gtest/gtest.h>

#include <chunkarray/chunkarray.h>
#include <chunkarray/shape.h>

#include <cstring>
#include <numeric>
#include <string>
#include <vector>

namespace {

struct Case {
  ca_dtype_t dtype;
  size_t isz;
};

// Chunks of at most `step` along each axis (the last block ragged).
std::vector<std::vector<int64_t>> chunk_sizes(const std::vector<int64_t> &shape, int64_t step) {
  std::vector<std::vector<int64_t>> out;
  for (int64_t n : shape) {
    std::vector<int64_t> c;
    for (int64_t left = n; left > 0; left -= std::min(left, step)) c.push_back(std::min(left, step));
    if (c.empty()) c.push_back(0);
    out.push_back(c);
  }
  return out;
}

// np.transpose(a, axes) by a plain loop over the output's elements.
std::vector<unsigned char> reference(const std::vector<unsigned char> &a, const std::vector<int64_t> &shape,
                                     const std::vector<int32_t> &axes, size_t isz) {
  const size_t nd = shape.size();
  std::vector<int64_t> st(nd), oshape(nd);
  int64_t acc = 1, total = 1;
  for (size_t d = nd; d-- > 0;) {
    st[d] = acc;
    acc *= shape[d];
  }
  for (size_t d = 0; d < nd; ++d) {
    oshape[d] = shape[size_t(axes[d])];
    total *= oshape[d];
  }
  std::vector<unsigned char> out(size_t(total) * isz);
  std::vector<int64_t> pos(nd, 0);
  for (int64_t k = 0; k < total; ++k) {
    int64_t src = 0;
    for (size_t d = 0; d < nd; ++d) src += pos[d] * st[size_t(axes[d])];
    std::memcpy(&out[size_t(k) * isz], &a[size_t(src) * isz], isz);
    for (size_t d = nd; d-- > 0;) {
      if (++pos[d] < oshape[d]) break;
      pos[d] = 0;
    }
  }
  return out;
}

void check(const Case &c, const std::vector<int64_t> &shape, const std::vector<int32_t> &axes, int64_t step) {
  const std::string what = "dtype " + std::to_string(c.dtype) + " shape " + std::to_string(shape.size()) +
                           "-d [" + std::to_string(shape[0]) + (shape.size() > 1 ? "," + std::to_string(shape[1]) : "") +
                           (shape.size() > 2 ? "," + std::to_string(shape[2]) : "") + "] chunks " +
                           std::to_string(step);
  int64_t total = 1;
  for (int64_t n : shape) total *= n;
  std::vector<unsigned char> data(size_t(total) * c.isz);
  // Distinct bytes everywhere (a pattern that no wrong index reproduces).
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<unsigned char>((i * 2654435761u) >> 13);
  auto sizes = chunk_sizes(shape, step);
  std::vector<int64_t> nb, flat;
  for (auto &v : sizes) {
    nb.push_back(int64_t(v.size()));
    flat.insert(flat.end(), v.begin(), v.end());
  }
  ca_chunks_t ch{int32_t(shape.size()), nb.data(), flat.data()};
  ca_array_t *a = nullptr, *t = nullptr;
  ASSERT_EQ(ca_array_from_buffer(&a, data.data(), c.dtype, int32_t(shape.size()), shape.data(), &ch, nullptr), CA_OK)
      << ca_last_error_message();
  ASSERT_EQ(ca_array_transpose(&t, a, axes.data()), CA_OK) << ca_last_error_message();
  std::vector<unsigned char> got(data.size() + 1, 0xEE);  // one guard byte
  ca_context_t *ctx = nullptr;
  ASSERT_EQ(ca_context_new(&ctx, nullptr), CA_OK);
  ASSERT_EQ(ca_array_compute_into(ctx, t, got.data(), data.size(), nullptr), CA_OK) << ca_last_error_message();
  ca_context_free(ctx);
  ca_array_free(t);
  ca_array_free(a);
  EXPECT_EQ(got.back(), 0xEE) << what << ": wrote past the result";
  got.pop_back();
  EXPECT_TRUE(got == reference(data, shape, axes, c.isz)) << what;
}

const Case kCases[] = {{CA_UINT8, 1}, {CA_INT16, 2}, {CA_FLOAT32, 4}, {CA_INT32, 4},
                       {CA_FLOAT64, 8}, {CA_INT64, 8}, {CA_COMPLEX64, 8}, {CA_COMPLEX128, 16}};

}  // namespace

TEST(TransposeKernel, TwoDimensionsEveryElementSize) {
  const std::vector<std::vector<int64_t>> shapes = {{1, 1}, {1, 9},  {9, 1},  {3, 5},   {4, 4},    {7, 7},
                                                    {8, 8}, {8, 9},  {9, 8},  {13, 21}, {16, 16},  {33, 31},
                                                    {64, 40}, {0, 5}, {5, 0}, {100, 260}};
  for (const Case &c : kCases)
    for (const auto &s : shapes) {
      check(c, s, {1, 0}, 1 << 20);  // one block
      check(c, s, {1, 0}, 37);       // ragged blocks
    }
}

TEST(TransposeKernel, LargeBlocksAcrossTheTileGroups) {
  // Larger than a 32 x 32 group of tiles in both directions, with edges of every width.
  for (const Case &c : {Case{CA_FLOAT64, 8}, Case{CA_FLOAT32, 4}})
    for (const auto &s : std::vector<std::vector<int64_t>>{{1000, 1000}, {257, 1031}, {1031, 257}, {96, 64}})
      check(c, s, {1, 0}, 1 << 20);
}

TEST(TransposeKernel, ThreeDimensions) {
  const std::vector<std::vector<int32_t>> perms = {{0, 2, 1}, {2, 1, 0}, {1, 2, 0}, {2, 0, 1}, {1, 0, 2}};
  for (const Case &c : kCases)
    for (const auto &p : perms) {
      check(c, {3, 17, 33}, p, 1 << 20);
      check(c, {3, 17, 33}, p, 6);
      check(c, {2, 40, 24}, p, 1 << 20);
    }
}
