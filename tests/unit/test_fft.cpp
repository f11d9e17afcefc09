// FFTs (src/fft, chunkarray/fft.h) against a plain O(n^2) DFT loop: the 1-d plans for every length
// up to 64 and for primes, Bluestein-sized and mixed-radix lengths (real and complex, both
// directions), then whole transforms through the C API on ragged chunks (n-d, truncation and
// padding, every norm, hfft/ihfft, the output chunks and dask's error). NumPy's values and dask's
// chunks are checked in bindings/python/tests/test_fft.py.
#include <gtest/gtest.h>

#include <chunkarray/chunkarray.h>

#include <cmath>
#include <complex>
#include <cstdlib>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "fft/plan.hpp"
#if CA_TEST_POCKETFFT
#include "array/vecmath.hpp"
#include "fft/pocketfft.hpp"
#endif

namespace {

using cd = std::complex<double>;

// The definition: X_k = Σ_j x_j exp(∓2πi jk/n), the angle's jk reduced mod n in integers (exact), the
// n roots computed once each by cos/sin.
std::vector<cd> dft(const std::vector<cd> &x, bool inverse) {
  const int64_t n = int64_t(x.size());
  std::vector<cd> root(x.size()), X(x.size());
  for (int64_t m = 0; m < n; ++m) {
    const double a = (inverse ? 2.0 : -2.0) * std::numbers::pi * double(m) / double(n);
    root[size_t(m)] = cd(std::cos(a), std::sin(a));
  }
  for (int64_t k = 0; k < n; ++k) {
    cd s = 0;
    int64_t jk = 0;  // j * k mod n
    for (int64_t j = 0; j < n; ++j) {
      s += x[size_t(j)] * root[size_t(jk)];
      jk += k;
      if (jk >= n) jk -= n;
    }
    X[size_t(k)] = s;
  }
  return X;
}

std::vector<cd> random_complex(int64_t n, unsigned seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<cd> v(static_cast<size_t>(n));
  for (cd &z : v) z = cd(u(g), u(g));
  return v;
}

double max_err(const std::vector<cd> &a, const std::vector<cd> &b) {
  double e = 0;
  for (size_t i = 0; i < a.size(); ++i) e = std::max(e, std::abs(a[i] - b[i]));
  return e;
}

// Lengths: 1..64 (every small radix mix), primes (KISS's generic butterfly and Bluestein), and
// composites with a large prime factor.
std::vector<int64_t> lengths() {
  std::vector<int64_t> n;
  for (int64_t i = 1; i <= 64; ++i) n.push_back(i);
  for (int64_t p : {97, 101, 127, 251, 257, 509, 1009, 2 * 499, 4 * 331, 3 * 5 * 7 * 11, 1024, 1000, 4099})
    n.push_back(p);
  return n;
}

}  // namespace

TEST(FftPlan, ComplexMatchesDft) {
  for (int64_t n : lengths())
    for (bool inv : {false, true}) {
      const std::vector<cd> x = random_complex(n, unsigned(n));
      std::vector<cd> y(static_cast<size_t>(n));
      ca::fft::c2c(n, inv, x.data(), y.data());
      const std::vector<cd> ref = dft(x, inv);
      EXPECT_LT(max_err(y, ref), 1e-12 * double(n) + 1e-13) << "n=" << n << " inverse=" << inv;
    }
}

TEST(FftPlan, RealMatchesDft) {
  for (int64_t n : lengths()) {
    std::vector<cd> z = random_complex(n, unsigned(n) + 7);
    std::vector<double> x(static_cast<size_t>(n));
    std::vector<cd> xc(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) xc[size_t(i)] = x[size_t(i)] = z[size_t(i)].real();
    std::vector<cd> y(static_cast<size_t>(n / 2 + 1));
    ca::fft::r2c(n, x.data(), y.data());
    std::vector<cd> ref = dft(xc, false);
    ref.resize(static_cast<size_t>(n / 2 + 1));
    EXPECT_LT(max_err(y, ref), 1e-12 * double(n) + 1e-13) << "r2c n=" << n;
    // Two rows at once (odd n: packed into one complex transform).
    std::vector<double> x2(static_cast<size_t>(n));
    std::vector<cd> x2c(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) x2c[size_t(i)] = x2[size_t(i)] = z[size_t(i)].imag();
    std::vector<cd> p0(static_cast<size_t>(n / 2 + 1)), p1(static_cast<size_t>(n / 2 + 1));
    ca::fft::r2c2(n, x.data(), x2.data(), p0.data(), p1.data());
    std::vector<cd> ref2 = dft(x2c, false);
    ref2.resize(size_t(n / 2 + 1));
    EXPECT_LT(max_err(p0, ref), 1e-12 * double(n) + 1e-13) << "r2c2 first n=" << n;
    EXPECT_LT(max_err(p1, ref2), 1e-12 * double(n) + 1e-13) << "r2c2 second n=" << n;

    // c2r: the Hermitian extension of the first n/2+1 values, imaginary parts of the first and (even
    // n) the middle one ignored as pocketfft does.
    std::vector<cd> h(z.begin(), z.begin() + n / 2 + 1);
    std::vector<cd> full(static_cast<size_t>(n));
    full[0] = h[0].real();
    for (int64_t k = 1; k <= n / 2; ++k) {
      full[size_t(k)] = h[size_t(k)];
      full[size_t(n - k)] = std::conj(h[size_t(k)]);
    }
    if (n % 2 == 0) full[size_t(n / 2)] = h[size_t(n / 2)].real();
    const std::vector<cd> want = dft(full, true);
    std::vector<double> out(static_cast<size_t>(n));
    ca::fft::c2r(n, h.data(), out.data());
    double e = 0;
    for (int64_t j = 0; j < n; ++j) e = std::max(e, std::abs(out[size_t(j)] - want[size_t(j)].real()));
    EXPECT_LT(e, 1e-12 * double(n) + 1e-13) << "c2r n=" << n;
  }
}

TEST(FftPlan, CacheClearedStillCorrect) {
  const std::vector<cd> x = random_complex(257, 3);
  std::vector<cd> a(257), b(257);
  ca::fft::c2c(257, false, x.data(), a.data());
  ca::fft::clear_plan_cache();
  ca::fft::c2c(257, false, x.data(), b.data());
  EXPECT_EQ(max_err(a, b), 0.0);
}

// ---- the C API ------------------------------------------------------------------------------------

namespace {

struct Ctx {
  ca_context_t *ctx = nullptr;
  Ctx() { EXPECT_EQ(ca_context_new(&ctx, nullptr), CA_OK); }
  ~Ctx() { ca_context_free(ctx); }
};

// A (rows, n) complex128 array with row chunks `rows` (one block along axis 1) from `v`.
ca_array_t *from(const std::vector<cd> &v, std::vector<int64_t> rows, int64_t n, ca_dtype_t dt = CA_COMPLEX128) {
  int64_t r = 0;
  for (int64_t x : rows) r += x;
  std::vector<int64_t> nb{int64_t(rows.size()), 1}, sizes = rows;
  sizes.push_back(n);
  ca_chunks_t c{2, nb.data(), sizes.data()};
  int64_t shape[2] = {r, n};
  std::vector<double> re(v.size());
  for (size_t i = 0; i < v.size(); ++i) re[i] = v[i].real();
  ca_array_t *a = nullptr;
  EXPECT_EQ(ca_array_from_buffer(&a, dt == CA_FLOAT64 ? static_cast<const void *>(re.data()) : v.data(), dt, 2, shape,
                                 &c, nullptr),
            CA_OK);
  return a;
}

template <class T>
std::vector<T> compute(Ctx &c, const ca_array_t *a) {
  ca_block_t *b = nullptr;
  EXPECT_EQ(ca_array_compute(&b, c.ctx, a, nullptr), CA_OK) << ca_last_error_message();
  if (!b) return {};
  const T *p = static_cast<const T *>(ca_block_data(b));
  std::vector<T> v(p, p + ca_block_size(b));
  ca_block_free(b);
  return v;
}

}  // namespace

TEST(FftCapi, RowsOfFftIfftAndNorms) {
  Ctx c;
  const int64_t rows = 5, n = 12;
  const std::vector<cd> x = random_complex(rows * n, 11);
  ca_array_t *a = from(x, {2, 3}, n);
  for (ca_fft_kind_t kind : {CA_FFT_FFT, CA_FFT_IFFT})
    for (ca_fft_norm_t norm : {CA_FFT_NORM_BACKWARD, CA_FFT_NORM_ORTHO, CA_FFT_NORM_FORWARD})
      for (int64_t len : {int64_t(7), n, int64_t(17)}) {
        int32_t axes[1] = {-1};
        ca_fft_options_t o = CA_FFT_OPTIONS_INIT;
        o.naxes = 1, o.axes = axes, o.ns = 1, o.s = &len, o.norm = norm;
        ca_array_t *f = nullptr;
        ASSERT_EQ(ca_fft_transform(&f, a, kind, &o), CA_OK) << ca_last_error_message();
        EXPECT_EQ(ca_array_dtype(f), CA_COMPLEX128);
        int64_t nb = 0;
        const int64_t *rc = ca_array_chunks(f, 0, &nb);
        ASSERT_EQ(nb, 2);
        EXPECT_EQ(rc[0], 2);
        EXPECT_EQ(rc[1], 3);
        EXPECT_EQ(ca_array_shape(f)[1], len);
        const std::vector<cd> got = compute<cd>(c, f);
        const bool inv = kind == CA_FFT_IFFT;
        const double scale = norm == CA_FFT_NORM_ORTHO ? 1 / std::sqrt(double(len))
                             : (norm == CA_FFT_NORM_FORWARD) != inv ? 1 / double(len) : 1.0;
        for (int64_t r = 0; r < rows; ++r) {
          std::vector<cd> line(size_t(len), cd(0, 0));
          for (int64_t j = 0; j < std::min(len, n); ++j) line[size_t(j)] = x[size_t(r * n + j)];
          std::vector<cd> ref = dft(line, inv);
          for (cd &v : ref) v *= scale;
          std::vector<cd> row(got.begin() + r * len, got.begin() + (r + 1) * len);
          EXPECT_LT(max_err(row, ref), 1e-12) << "kind " << kind << " norm " << norm << " len " << len;
        }
        ca_array_free(f);
      }
  ca_array_free(a);
}

TEST(FftCapi, Fft2OverRaggedLeadingAxis) {
  // fftn over axis 0 of a (6, 4) array chunked ((6,), (1, 3)): the 2-d DFT equals DFTs of columns
  // after DFTs of rows.
  Ctx c;
  const std::vector<cd> x = random_complex(24, 5);
  std::vector<int64_t> nb{1, 2}, sizes{6, 1, 3};
  ca_chunks_t ch{2, nb.data(), sizes.data()};
  int64_t shape[2] = {6, 4};
  ca_array_t *a = nullptr;
  ASSERT_EQ(ca_array_from_buffer(&a, x.data(), CA_COMPLEX128, 2, shape, &ch, nullptr), CA_OK);
  int32_t axes[1] = {0};
  ca_fft_options_t o = CA_FFT_OPTIONS_INIT;
  o.naxes = 1, o.axes = axes;
  ca_array_t *f = nullptr;
  ASSERT_EQ(ca_fft_transform(&f, a, CA_FFT_FFT, &o), CA_OK) << ca_last_error_message();
  const std::vector<cd> got = compute<cd>(c, f);
  for (int64_t col = 0; col < 4; ++col) {
    std::vector<cd> line(6);
    for (int64_t r = 0; r < 6; ++r) line[size_t(r)] = x[size_t(r * 4 + col)];
    const std::vector<cd> ref = dft(line, false);
    for (int64_t r = 0; r < 6; ++r) EXPECT_LT(std::abs(got[size_t(r * 4 + col)] - ref[size_t(r)]), 1e-12);
  }
  // Both axes: the default (every axis) is refused, axis 1 has two blocks, with dask's message.
  ca_array_t *g = (ca_array_t *)1;
  EXPECT_EQ(ca_fft_transform(&g, a, CA_FFT_FFT, nullptr), CA_EINVAL);
  EXPECT_EQ(g, nullptr);
  EXPECT_NE(std::string(ca_last_error_message()).find("An FFT operation was tried on axis 1 \nwhich has chunks (1, 3)"),
            std::string::npos)
      << ca_last_error_message();
  ca_array_free(f);
  ca_array_free(a);
}

TEST(FftCapi, RfftIrfftHfftIhfft) {
  Ctx c;
  for (int64_t n : {int64_t(1), int64_t(2), int64_t(9), int64_t(10), int64_t(13)}) {
    const std::vector<cd> z = random_complex(3 * n, unsigned(n));
    ca_array_t *a = from(z, {1, 2}, n, CA_FLOAT64);
    ca_array_t *f = nullptr;
    int32_t last_axis = -1;
    ca_fft_options_t o1 = CA_FFT_OPTIONS_INIT;
    o1.naxes = 1, o1.axes = &last_axis;
    ASSERT_EQ(ca_fft_transform(&f, a, CA_FFT_RFFT, &o1), CA_OK) << ca_last_error_message();
    const int64_t m = n / 2 + 1;
    EXPECT_EQ(ca_array_shape(f)[1], m);
    const std::vector<cd> got = compute<cd>(c, f);
    // ihfft = conj(rfft) / n (its default axis is the last).
    ca_array_t *ih = nullptr;
    ASSERT_EQ(ca_fft_transform(&ih, a, CA_FFT_IHFFT, nullptr), CA_OK);
    const std::vector<cd> goti = compute<cd>(c, ih);
    for (int64_t r = 0; r < 3; ++r) {
      std::vector<cd> line(static_cast<size_t>(n));
      for (int64_t j = 0; j < n; ++j) line[size_t(j)] = z[size_t(r * n + j)].real();
      const std::vector<cd> ref = dft(line, false);
      for (int64_t k = 0; k < m; ++k) {
        EXPECT_LT(std::abs(got[size_t(r * m + k)] - ref[size_t(k)]), 1e-12) << n;
        EXPECT_LT(std::abs(goti[size_t(r * m + k)] - std::conj(ref[size_t(k)]) / double(n)), 1e-12) << n;
      }
    }
    // irfft back to n points (s given: odd n too) recovers the input; hfft of the same input is
    // irfft(conj(X)) * n.
    ca_fft_options_t o = CA_FFT_OPTIONS_INIT;
    o.ns = 1, o.s = &n;
    int32_t ax = -1;
    o.naxes = 1, o.axes = &ax;
    ca_array_t *back = nullptr, *h = nullptr;
    ASSERT_EQ(ca_fft_transform(&back, f, CA_FFT_IRFFT, &o), CA_OK) << ca_last_error_message();
    EXPECT_EQ(ca_array_dtype(back), CA_FLOAT64);
    const std::vector<double> x = compute<double>(c, back);
    for (int64_t i = 0; i < 3 * n; ++i) EXPECT_NEAR(x[size_t(i)], z[size_t(i)].real(), 1e-12);
    ASSERT_EQ(ca_fft_transform(&h, ih, CA_FFT_HFFT, &o), CA_OK) << ca_last_error_message();
    const std::vector<double> xh = compute<double>(c, h);
    for (int64_t i = 0; i < 3 * n; ++i) EXPECT_NEAR(xh[size_t(i)], z[size_t(i)].real(), 1e-12);
    for (ca_array_t *p : {a, f, ih, back, h}) ca_array_free(p);
  }
}

TEST(FftCapi, FreqAndShift) {
  Ctx c;
  std::vector<int64_t> nb{2}, sizes{3, 4};
  ca_chunks_t ch{1, nb.data(), sizes.data()};
  ca_array_t *f = nullptr;
  ASSERT_EQ(ca_fft_fftfreq(&f, 7, 0.5, &ch), CA_OK) << ca_last_error_message();
  const std::vector<double> v = compute<double>(c, f);
  const double want[7] = {0, 1, 2, 3, -3, -2, -1};
  for (int i = 0; i < 7; ++i) EXPECT_DOUBLE_EQ(v[size_t(i)], want[i] / 3.5);
  ca_array_t *s = nullptr;
  ASSERT_EQ(ca_fft_fftshift(&s, f, nullptr, -1), CA_OK) << ca_last_error_message();
  const std::vector<double> sv = compute<double>(c, s);
  for (int i = 0; i < 7; ++i) EXPECT_DOUBLE_EQ(sv[size_t(i)], (i - 3) / 3.5);
  ca_array_t *u = nullptr;
  ASSERT_EQ(ca_fft_ifftshift(&u, s, nullptr, -1), CA_OK);
  const std::vector<double> uv = compute<double>(c, u);
  for (int i = 0; i < 7; ++i) EXPECT_DOUBLE_EQ(uv[size_t(i)], v[size_t(i)]);
  ca_array_t *r = nullptr;
  std::vector<int64_t> rs{4};
  std::vector<int64_t> one{1};
  ca_chunks_t rc{1, one.data(), rs.data()};
  ASSERT_EQ(ca_fft_rfftfreq(&r, 7, 0.5, &rc), CA_OK);
  const std::vector<double> rv = compute<double>(c, r);
  for (int i = 0; i < 4; ++i) EXPECT_DOUBLE_EQ(rv[size_t(i)], i / 3.5);
  ca_array_t *e = nullptr;
  EXPECT_EQ(ca_fft_fftfreq(&e, 0, 1.0, &rc), CA_EINVAL);
  EXPECT_EQ(e, nullptr);
  for (ca_array_t *p : {f, s, u, r}) ca_array_free(p);
  EXPECT_STRNE(ca_fft_backend(), "");
}

// The backend Meson chose (-Dfft, src/fft/meson.build) is the one compiled in: tests/unit/meson.build
// passes its name in CA_EXPECT_FFT_BACKEND.
TEST(FftCapi, Backend) {
  const char *want = std::getenv("CA_EXPECT_FFT_BACKEND");
  if (!want) GTEST_SKIP() << "CA_EXPECT_FFT_BACKEND not set (run through meson test)";
  EXPECT_STREQ(ca_fft_backend(), want);
  EXPECT_STREQ(ca::fft::backend_name(), want);
}

#if CA_TEST_POCKETFFT
// pocketfft runs at the fused interpreter's ISA level (CA_DISABLE_CPU_FEATURES lowers both; the
// suite runs again as fft_baseline with avx2 disabled: the SSE2 instantiation).
TEST(FftPlans, PocketfftIsaLevel) {
  const char *isa = ca::fft::pf::isa_name();
  switch (ca::vecmath::active_level()) {
    case ca::vecmath::Level::Avx512: EXPECT_STREQ(isa, "avx512f"); break;
    case ca::vecmath::Level::Avx2: EXPECT_STREQ(isa, "avx2"); break;
    default: EXPECT_TRUE(std::string(isa) == "sse2" || std::string(isa) == "generic") << isa;
  }
  const char *off = std::getenv("CA_DISABLE_CPU_FEATURES");
  if (off && std::string(off).find("avx2") != std::string::npos) {
    EXPECT_STRNE(isa, "avx2");
    EXPECT_STRNE(isa, "avx512f");
  }
}
#endif

TEST(FftCapi, Errors) {
  Ctx c;
  const std::vector<cd> x = random_complex(8, 1);
  ca_array_t *a = from(x, {2}, 4);
  ca_array_t *o = nullptr;
  ca_fft_options_t opt = CA_FFT_OPTIONS_INIT;
  EXPECT_EQ(ca_fft_transform(&o, a, ca_fft_kind_t(9), nullptr), CA_EINVAL);
  opt.norm = ca_fft_norm_t(7);
  EXPECT_EQ(ca_fft_transform(&o, a, CA_FFT_FFT, &opt), CA_EINVAL);
  opt = CA_FFT_OPTIONS_INIT;
  int32_t dup[2] = {1, -1};
  opt.naxes = 2, opt.axes = dup;
  EXPECT_EQ(ca_fft_transform(&o, a, CA_FFT_FFT, &opt), CA_EINVAL);
  EXPECT_NE(std::string(ca_last_error_message()).find("Duplicate axes"), std::string::npos);
  int32_t bad[1] = {2};
  opt.naxes = 1, opt.axes = bad;
  EXPECT_EQ(ca_fft_transform(&o, a, CA_FFT_FFT, &opt), CA_EINVAL);
  int32_t last[1] = {1};
  int64_t zero = 0, two[2] = {3, 3};
  opt.axes = last, opt.ns = 1, opt.s = &zero;
  EXPECT_EQ(ca_fft_transform(&o, a, CA_FFT_FFT, &opt), CA_EINVAL);
  EXPECT_NE(std::string(ca_last_error_message()).find("Invalid number of FFT data points (0)"), std::string::npos);
  opt.ns = 2, opt.s = two;
  EXPECT_EQ(ca_fft_transform(&o, a, CA_FFT_FFT, &opt), CA_EINVAL);
  opt.ns = 1, opt.s = nullptr;
  EXPECT_EQ(ca_fft_transform(&o, a, CA_FFT_FFT, &opt), CA_EINVAL);
  opt = CA_FFT_OPTIONS_INIT;
  opt.struct_size = 2;
  EXPECT_EQ(ca_fft_transform(&o, a, CA_FFT_FFT, &opt), CA_EINVAL);
  int32_t both[2] = {0, 1};
  opt = CA_FFT_OPTIONS_INIT;
  opt.naxes = 2, opt.axes = both;
  EXPECT_EQ(ca_fft_transform(&o, a, CA_FFT_HFFT, &opt), CA_EINVAL);
  EXPECT_EQ(o, nullptr);
  ca_array_free(a);
}
