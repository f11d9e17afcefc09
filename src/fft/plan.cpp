// 1-d FFT plans over pocketfft (default), KISS FFT (-Dfft=kissfft) or FFTW 3 (-Dfft=fftw); see plan.hpp.
#include "fft/plan.hpp"

#include <cmath>
#include <memory>
#include <numbers>
#include <unordered_map>
#include <vector>

#include "core/error.hpp"

#if CA_FFT_FFTW
#include <fftw3.h>

#include <mutex>
#elif CA_FFT_POCKETFFT
#include "fft/pocketfft.hpp"
#else
#include <kissfft/kissfft.hh>
#endif

namespace ca::fft {

#if CA_FFT_FFTW
// ---- FFTW 3 ----------------------------------------------------------------------------------------
// The planner is not thread-safe: plans are made under one mutex and kept for the process
// (FFTW_ESTIMATE), two per length and kind: one planned on SIMD-aligned arrays (fftw_malloc), used when
// both buffers are aligned like them (fftw_alignment_of), and one FFTW_UNALIGNED for other buffers. The
// new-array execute functions that run them are thread-safe.
namespace {

struct FwPlans {
  fftw_plan aligned, unaligned;
};
// The process's plans, destroyed with FFTW's planner state at exit (no leak reports).
struct FwStore {
  std::unordered_map<int64_t, FwPlans> plans;  // key: n * 4 + kind (0 fwd, 1 inv, 2 r2c, 3 c2r)
  ~FwStore() {
    for (auto &kv : plans) {
      fftw_destroy_plan(kv.second.aligned);
      fftw_destroy_plan(kv.second.unaligned);
    }
    fftw_cleanup();
  }
};
std::mutex fw_mutex;
FwStore fw_store;

fftw_plan fw_make(int64_t n, int kind, void *a, void *b, unsigned flags) {
  const int ni = int(n);
  auto *fa = static_cast<fftw_complex *>(a);
  auto *fb = static_cast<fftw_complex *>(b);
  fftw_plan p = kind == 0   ? fftw_plan_dft_1d(ni, fa, fb, FFTW_FORWARD, flags)
                : kind == 1 ? fftw_plan_dft_1d(ni, fa, fb, FFTW_BACKWARD, flags)
                : kind == 2 ? fftw_plan_dft_r2c_1d(ni, static_cast<double *>(a), fb, flags)
                            : fftw_plan_dft_c2r_1d(ni, fa, static_cast<double *>(b), flags);
  CA_CHECK(p != nullptr, CA_EINTERNAL, "fft: FFTW could not plan a transform of length ", n);
  return p;
}

fftw_plan fw_plan(int64_t n, int kind, const void *in, const void *out) {
  thread_local std::unordered_map<int64_t, FwPlans> local;
  const int64_t key = n * 4 + kind;
  auto lit = local.find(key);
  if (lit == local.end()) {
    std::lock_guard<std::mutex> lock(fw_mutex);
    auto it = fw_store.plans.find(key);
    if (it == fw_store.plans.end()) {
      CA_CHECK(n <= INT32_MAX, CA_EINVAL, "fft: length ", n, " is too long for FFTW");
      const size_t bytes = sizeof(fftw_complex) * size_t(n + 1);
      void *a = fftw_malloc(bytes), *b = fftw_malloc(bytes);
      if (!a || !b) {
        fftw_free(a);
        fftw_free(b);
        fail(CA_ENOMEM, "fft: out of memory planning a transform of length ", n);
      }
      FwPlans p{};
      try {
        p.aligned = fw_make(n, kind, a, b, FFTW_ESTIMATE);
        p.unaligned = fw_make(n, kind, a, b, FFTW_ESTIMATE | FFTW_UNALIGNED);
      } catch (...) {
        fftw_free(a);
        fftw_free(b);
        throw;
      }
      fftw_free(a);
      fftw_free(b);
      it = fw_store.plans.emplace(key, p).first;
    }
    lit = local.emplace(key, it->second).first;
  }
  const bool aligned = fftw_alignment_of(static_cast<double *>(const_cast<void *>(in))) == 0 &&
                       fftw_alignment_of(static_cast<double *>(const_cast<void *>(out))) == 0;
  return aligned ? lit->second.aligned : lit->second.unaligned;
}

}  // namespace

const char *backend_name() noexcept { return "fftw3"; }

void c2c(int64_t n, bool inverse, const cd *in, cd *out) {
  fftw_execute_dft(fw_plan(n, inverse ? 1 : 0, in, out), reinterpret_cast<fftw_complex *>(const_cast<cd *>(in)),
                   reinterpret_cast<fftw_complex *>(out));
}

void r2c(int64_t n, const double *in, cd *out) {
  fftw_execute_dft_r2c(fw_plan(n, 2, in, out), const_cast<double *>(in), reinterpret_cast<fftw_complex *>(out));
}

void r2c2(int64_t n, const double *in0, const double *in1, cd *out0, cd *out1) {
  r2c(n, in0, out0);
  r2c(n, in1, out1);
}

void c2r(int64_t n, cd *in, double *out) {
  in[0] = in[0].real();
  if (n % 2 == 0) in[n / 2] = in[n / 2].real();
  fftw_execute_dft_c2r(fw_plan(n, 3, in, out), reinterpret_cast<fftw_complex *>(in), out);
}

void clear_plan_cache() noexcept {}  // plans live for the process (FFTW keeps its own wisdom)

#elif CA_FFT_POCKETFFT
// ---- pocketfft -------------------------------------------------------------------------------------
// Its 1-d plans (pocketfft_c / pocketfft_r: radix 2..7 and 11 passes, Bluestein for large prime
// factors) come from its own process-wide cache. The kernels (fft_kernels.cpp) call its n-d interface
// (pocketfft.hpp) on whole blocks; these 1-d entry points are the same calls on one line.

const char *backend_name() noexcept { return "pocketfft"; }

void c2c(int64_t n, bool inverse, const cd *in, cd *out) {
  const pf::Strides st{ptrdiff_t(sizeof(cd))};
  pf::c2c({size_t(n)}, st, st, {0}, !inverse, in, out, 1.0);
}

void r2c(int64_t n, const double *in, cd *out) {
  pf::r2c({size_t(n)}, {ptrdiff_t(sizeof(double))}, {ptrdiff_t(sizeof(cd))}, {0}, true, in, out, 1.0);
}

void r2c2(int64_t n, const double *in0, const double *in1, cd *out0, cd *out1) {
  r2c(n, in0, out0);
  r2c(n, in1, out1);
}

void c2r(int64_t n, cd *in, double *out) {
  // pocketfft reads only the real parts of in[0] and (even n) in[n/2], as NumPy does.
  pf::c2r({size_t(n)}, {ptrdiff_t(sizeof(cd))}, {ptrdiff_t(sizeof(double))}, {0}, false, in, out, 1.0);
}

void clear_plan_cache() noexcept {}  // pocketfft's cache is its own (bounded: 16 plans)

#else
// ---- KISS FFT ----------------------------------------------------------------------------------------
namespace {

// Real-transform twiddles exp(-2πi k / n), k = 0 .. n/2, computed per k (no accumulated error).
std::vector<cd> real_twiddles(int64_t n) {
  std::vector<cd> tw(size_t(n / 2 + 1));
  for (int64_t k = 0; k <= n / 2; ++k) {
    const double a = -2.0 * std::numbers::pi * double(k) / double(n);
    tw[size_t(k)] = cd(std::cos(a), std::sin(a));
  }
  return tw;
}

// Per-thread scratch, grown on demand.
cd *scratch(std::vector<cd> &v, int64_t n) {
  if (v.size() < size_t(n)) v.resize(size_t(n));
  return v.data();
}


// KISS FFT's factorization: 4s, then 2s, then odd factors in increasing order.
std::vector<int64_t> kiss_factors(int64_t n) {
  std::vector<int64_t> f;
  int64_t p = 4;
  while (n > 1) {
    while (n % p) {
      p = p == 4 ? 2 : p == 2 ? 3 : p + 2;
      if (p * p > n) p = n;
    }
    n /= p;
    f.push_back(p);
  }
  return f;
}

// Operations per output of KISS FFT's butterflies (radix 2..5 specialized, others generic and slower).
double kiss_cost(int64_t n) {
  double c = 0;
  for (int64_t p : kiss_factors(n)) c += p <= 5 ? double(p) : 2.0 * double(p);
  return c * double(n);
}

// The smallest 2^a 3^b 5^c >= n.
int64_t good_size(int64_t n) {
  int64_t best = INT64_MAX;
  for (int64_t f5 = 1; f5 < 2 * n; f5 *= 5)
    for (int64_t f35 = f5; f35 < 2 * n; f35 *= 3) {
      int64_t x = f35;
      while (x < n) x *= 2;
      if (x < best) best = x;
    }
  return best;
}

using Kiss = kissfft<double>;

// A complex DFT of length n: KISS FFT directly (odd powers of two: one radix-2 step over KISS FFT's
// n/2), or Bluestein's algorithm when n has a large prime
// factor: X_j = w_j Σ_k (x_k w_k) conj(w_{j-k}), w_k = exp(∓πi k²/n), the convolution done by FFTs of
// length m >= 2n - 1.
class ComplexPlan {
 public:
  ComplexPlan(int64_t n, bool inverse) : n_(n) {
    const int64_t m = good_size(2 * n - 1);
    const double blue = 2.0 * kiss_cost(m) + 6.0 * double(m);
    if (n <= 16 || blue >= kiss_cost(n)) {
      // KISS FFT factors out 4s first, so an odd power of two leaves a radix-2 stage at the bottom of
      // its recursion, which runs at half the speed of the rest (n = 2048: 3x the time of 1024). One
      // decimation-in-time radix-2 step on top of the length n/2 (an even power of two) avoids it.
      int64_t e = 0;
      while (((n >> e) & 1) == 0) ++e;
      if (n >= 64 && e % 2 == 1 && e >= 3) {
        const int64_t h = n / 2;
        half_ = std::make_unique<Kiss>(size_t(h), inverse);
        split_.resize(size_t(h));
        const double sign = inverse ? 2.0 : -2.0;
        for (int64_t k = 0; k < h; ++k) {
          const double a = sign * std::numbers::pi * double(k) / double(n);
          split_[size_t(k)] = cd(std::cos(a), std::sin(a));
        }
        a_.resize(size_t(n));
        t_.resize(size_t(n));
        return;
      }
      direct_ = std::make_unique<Kiss>(size_t(n), inverse);
      return;
    }
    m_ = m;
    fwd_ = std::make_unique<Kiss>(size_t(m), false);
    inv_ = std::make_unique<Kiss>(size_t(m), true);
    chirp_.resize(size_t(n));
    // k² mod 2n, updated incrementally ((k+1)² = k² + 2k + 1) so the angle stays exact.
    int64_t k2 = 0;
    const double sign = inverse ? 1.0 : -1.0;
    for (int64_t k = 0; k < n; ++k) {
      const double a = sign * std::numbers::pi * double(k2) / double(n);
      chirp_[size_t(k)] = cd(std::cos(a), std::sin(a));
      k2 = (k2 + 2 * k + 1) % (2 * n);
    }
    std::vector<cd> b(size_t(m), cd(0, 0));
    b[0] = std::conj(chirp_[0]);
    for (int64_t k = 1; k < n; ++k) b[size_t(k)] = b[size_t(m - k)] = std::conj(chirp_[size_t(k)]);
    bhat_.resize(size_t(m));
    fwd_->transform(b.data(), bhat_.data());
    for (cd &v : bhat_) v /= double(m);
    a_.resize(size_t(m));
    t_.resize(size_t(m));
  }

  /// Approximate bytes held (twiddles, Bluestein spectra and scratch), for the cache's bound.
  size_t bytes() const {
    const size_t m = size_t(m_ > 0 ? m_ : n_);
    return sizeof(cd) * (size_t(n_) * 2 + (m_ > 0 ? 5 * m : 0));
  }

  void exec(const cd *in, cd *out) const {
    if (direct_) {
      direct_->transform(in, out);
      return;
    }
    if (half_) {
      const int64_t h = n_ / 2;
      for (int64_t k = 0; k < h; ++k) {
        a_[size_t(k)] = in[2 * k];
        a_[size_t(h + k)] = in[2 * k + 1];
      }
      half_->transform(a_.data(), t_.data());
      half_->transform(a_.data() + h, t_.data() + h);
      for (int64_t k = 0; k < h; ++k) {
        const cd e = t_[size_t(k)], o = t_[size_t(h + k)] * split_[size_t(k)];
        out[k] = e + o;
        out[h + k] = e - o;
      }
      return;
    }
    for (int64_t k = 0; k < n_; ++k) a_[size_t(k)] = in[k] * chirp_[size_t(k)];
    std::fill(a_.begin() + n_, a_.end(), cd(0, 0));
    fwd_->transform(a_.data(), t_.data());
    for (int64_t k = 0; k < m_; ++k) t_[size_t(k)] *= bhat_[size_t(k)];
    inv_->transform(t_.data(), a_.data());
    for (int64_t k = 0; k < n_; ++k) out[k] = a_[size_t(k)] * chirp_[size_t(k)];
  }

 private:
  int64_t n_, m_ = 0;
  std::unique_ptr<Kiss> direct_, fwd_, inv_, half_;
  std::vector<cd> chirp_, bhat_, split_;
  mutable std::vector<cd> a_, t_;
};

// Per thread: plans and real twiddles. Bounded: past kMaxPlans entries or kMaxPlanBytes the cache
// starts over (a Bluestein plan of a long prime length holds several arrays of 2n values).
constexpr size_t kMaxPlans = 64;
constexpr size_t kMaxPlanBytes = size_t(256) << 20;
struct Cache {
  std::unordered_map<int64_t, std::unique_ptr<ComplexPlan>> plans;  // key n * 2 + inverse
  size_t plan_bytes = 0;
  std::unordered_map<int64_t, std::vector<cd>> twiddles;            // key n
  std::vector<cd> s1, s2;
};
Cache &cache() {
  thread_local Cache c;
  return c;
}

const ComplexPlan &plan(int64_t n, bool inverse) {
  Cache &c = cache();
  const int64_t key = n * 2 + (inverse ? 1 : 0);
  auto it = c.plans.find(key);
  if (it != c.plans.end()) return *it->second;
  auto p = std::make_unique<ComplexPlan>(n, inverse);
  if (c.plans.size() >= kMaxPlans || c.plan_bytes + p->bytes() > kMaxPlanBytes) {
    c.plans.clear();
    c.plan_bytes = 0;
  }
  c.plan_bytes += p->bytes();
  return *c.plans.emplace(key, std::move(p)).first->second;
}

const std::vector<cd> &twiddles(int64_t n) {
  Cache &c = cache();
  auto it = c.twiddles.find(n);
  if (it != c.twiddles.end()) return it->second;
  if (c.twiddles.size() >= kMaxPlans) c.twiddles.clear();
  return c.twiddles.emplace(n, real_twiddles(n)).first->second;
}

}  // namespace

const char *backend_name() noexcept { return "kissfft"; }

void c2c(int64_t n, bool inverse, const cd *in, cd *out) {
  if (n == 1) {
    out[0] = in[0];
    return;
  }
  plan(n, inverse).exec(in, out);
}

void r2c(int64_t n, const double *in, cd *out) {
  Cache &c = cache();
  if (n % 2 == 1) {
    cd *full = scratch(c.s1, n), *res = scratch(c.s2, n);
    for (int64_t k = 0; k < n; ++k) full[k] = in[k];
    c2c(n, false, full, res);
    std::copy(res, res + n / 2 + 1, out);
    return;
  }
  // Even n = 2N: z_k = x_2k + i x_2k+1, Z = DFT_N(z); X_k = E_k + W^k O_k with
  // E_k = (Z_k + conj Z_{N-k}) / 2, O_k = -i (Z_k - conj Z_{N-k}) / 2, W = exp(-2πi/n).
  const int64_t N = n / 2;
  cd *Z = scratch(c.s2, N);
  c2c(N, false, reinterpret_cast<const cd *>(in), Z);
  const std::vector<cd> &tw = twiddles(n);
  for (int64_t k = 0; k <= N; ++k) {
    const cd zk = Z[k % N], zc = std::conj(Z[(N - k) % N]);
    const cd e = 0.5 * (zk + zc), o = cd(0, -0.5) * (zk - zc);
    out[k] = e + tw[size_t(k)] * o;
  }
}

void r2c2(int64_t n, const double *in0, const double *in1, cd *out0, cd *out1) {
  if (n % 2 == 0 || n == 1) {
    r2c(n, in0, out0);
    r2c(n, in1, out1);
    return;
  }
  // z = x + iy, Z = DFT(z): X_k = (Z_k + conj Z_{n-k}) / 2, Y_k = -i (Z_k - conj Z_{n-k}) / 2.
  Cache &c = cache();
  cd *z = scratch(c.s1, n), *Z = scratch(c.s2, n);
  for (int64_t j = 0; j < n; ++j) z[j] = cd(in0[j], in1[j]);
  c2c(n, false, z, Z);
  for (int64_t k = 0; k <= n / 2; ++k) {
    const cd zk = Z[k], zc = std::conj(Z[k == 0 ? 0 : n - k]);
    out0[k] = 0.5 * (zk + zc);
    out1[k] = cd(0, -0.5) * (zk - zc);
  }
}

void c2r(int64_t n, cd *in, double *out) {
  Cache &c = cache();
  in[0] = in[0].real();
  if (n == 1) {
    out[0] = in[0].real();
    return;
  }
  if (n % 2 == 1) {
    cd *full = scratch(c.s1, n), *res = scratch(c.s2, n);
    full[0] = in[0];
    for (int64_t k = 1; k <= n / 2; ++k) {
      full[k] = in[k];
      full[n - k] = std::conj(in[k]);
    }
    c2c(n, true, full, res);
    for (int64_t j = 0; j < n; ++j) out[j] = res[j].real();
    return;
  }
  // Even n = 2N: 2E_k = X_k + conj X_{N-k}, 2O_k = (X_k - conj X_{N-k}) conj(W^k); the unnormalized
  // inverse DFT_N of 2E + 2iO is y_even + i y_odd.
  const int64_t N = n / 2;
  in[N] = in[N].real();
  const std::vector<cd> &tw = twiddles(n);
  cd *t = scratch(c.s1, N);
  for (int64_t k = 0; k < N; ++k) {
    const cd xk = in[k], xc = std::conj(in[N - k]);
    t[k] = (xk + xc) + cd(0, 1) * ((xk - xc) * std::conj(tw[size_t(k)]));
  }
  c2c(N, true, t, reinterpret_cast<cd *>(out));
}

void clear_plan_cache() noexcept {
  Cache &c = cache();
  c.plans.clear();
  c.plan_bytes = 0;
  c.twiddles.clear();
}

#endif

}  // namespace ca::fft
