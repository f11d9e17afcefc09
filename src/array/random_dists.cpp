// NumPy's Generator distributions over per-element Philox substreams (array.h, CA_RANDOM_BETA ...).
//
// Why substreams: a counter-based generator makes every element a function of (seed, index), which
// keeps values independent of chunking and lets fused programs regenerate any region. Rejection
// samplers need a variable number of uniforms per element, so element g owns a stream: its k-th
// Philox4x32-10 call uses counter (g lo, g hi, k, 1) (x3 = 1 keeps it apart from the stream-0 words
// of uniform/normal/integers, whose x3 is 0) and yields two 64-bit words. Nothing is shared between
// elements, so any subset of them is computed on its own, in any order.
//
// The algorithms are NumPy 1.24's (numpy/random/src/distributions/distributions.c) except where
// noted: binomial uses inversion for n*p < 10 and Hörmann's BTRS above it (NumPy: BTPE above 30);
// hypergeometric uses NumPy's sequential sampling for every nsample (NumPy: HRUA from 10 on), which
// costs min(nsample, total - nsample) draws per element. Both are exact samplers of the same law.
#include <chunkarray/array.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "array/create.hpp"
#include "core/isa.hpp"
#include "kernel/adapter.hpp"

namespace ca {

namespace {

constexpr double kPi = 3.14159265358979323846264338328;

// A non-negative integral double as int64, saturating (NumPy casts; beyond 2**63 that is undefined).
int64_t to_i64(double k) { return k >= 9.2233720368547758e18 ? std::numeric_limits<int64_t>::max() : int64_t(k); }

double bits_to_double(int64_t b) {
  double d;
  std::memcpy(&d, &b, 8);
  return d;
}

// Element g's own stream.
struct Stream {
  uint32_t key[2];
  uint32_t ctr[4];
  uint32_t buf[4];
  int avail = 0;  // 64-bit words left in buf (2, 1 or 0)

  Stream(uint64_t seed, uint64_t g) {
    key[0] = uint32_t(seed), key[1] = uint32_t(seed >> 32);
    ctr[0] = uint32_t(g), ctr[1] = uint32_t(g >> 32), ctr[2] = 0, ctr[3] = 1;
  }
  // With its first Philox call (k = 0) already made (first_calls).
  Stream(uint64_t seed, uint64_t g, const uint32_t first[4]) : Stream(seed, g) {
    std::memcpy(buf, first, sizeof buf);
    ctr[2] = 1;
    avail = 2;
  }
  uint64_t next_u64() {
    if (avail == 0) {
      detail::philox4x32_10(ctr, key, buf);
      ++ctr[2];
      avail = 2;
    }
    const int i = 2 - avail--;
    return uint64_t(buf[2 * i]) | uint64_t(buf[2 * i + 1]) << 32;
  }
  double next_double() { return double(next_u64() >> 11) * 0x1.0p-53; }  // [0, 1)
  // Uniform integer in [0, max] (Lemire's method, exact).
  uint64_t interval(uint64_t max) {
    if (max == 0) return 0;
    const uint64_t range = max + 1;
    if (range == 0) return next_u64();
    const uint64_t t = (0 - range) % range;
    for (;;) {
      unsigned __int128 m = (unsigned __int128)next_u64() * range;
      if (uint64_t(m) >= t) return uint64_t(m >> 64);
    }
  }
  double std_exponential() { return -std::log1p(-next_double()); }
  double std_normal() {  // Box-Muller, one value per pair of uniforms
    const double u = double((next_u64() >> 11) + 1) * 0x1.0p-53;  // (0, 1]
    const double v = next_double();
    return std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * kPi * v);
  }
  double std_gamma(double shape) {
    if (shape == 1.0) return std_exponential();
    if (shape == 0.0) return 0.0;
    if (shape < 1.0) {
      for (;;) {
        const double U = next_double(), V = std_exponential();
        if (U <= 1.0 - shape) {
          const double X = std::pow(U, 1.0 / shape);
          if (X <= V) return X;
        } else {
          const double Y = -std::log((1 - U) / shape);
          const double X = std::pow(1.0 - shape + shape * Y, 1.0 / shape);
          if (X <= V + Y) return X;
        }
      }
    }
    // Marsaglia and Tsang (2000).
    const double b = shape - 1.0 / 3.0, c = 1.0 / std::sqrt(9 * b);
    for (;;) {
      double X, V;
      do {
        X = std_normal();
        V = 1.0 + c * X;
      } while (V <= 0.0);
      V = V * V * V;
      const double U = next_double();
      if (U < 1.0 - 0.0331 * (X * X) * (X * X)) return b * V;
      if (std::log(U) < 0.5 * X * X + b * (1. - V + std::log(V))) return b * V;
    }
  }
  double chisquare(double df) { return 2.0 * std_gamma(df / 2.0); }
  int64_t poisson(double lam) {
    if (lam >= 10) {  // PTRS, Hörmann (1993)
      const double slam = std::sqrt(lam), loglam = std::log(lam);
      const double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
      const double invalpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2);
      for (;;) {
        const double U = next_double() - 0.5, V = next_double();
        const double us = 0.5 - std::fabs(U);
        const double k = std::floor((2 * a / us + b) * U + lam + 0.43);
        if (us >= 0.07 && V <= vr) return to_i64(k);
        if (k < 0 || (us < 0.013 && V > us)) continue;
        if (std::log(V) + std::log(invalpha) - std::log(a / (us * us) + b) <= -lam + k * loglam - std::lgamma(k + 1))
          return to_i64(k);
      }
    }
    if (lam == 0) return 0;
    const double enlam = std::exp(-lam);
    int64_t X = 0;
    double prod = 1.0;
    for (;;) {
      prod *= next_double();
      if (prod > enlam) ++X;
      else return X;
    }
  }
  int64_t binomial(int64_t n, double p) {
    if (n == 0 || p == 0.0) return 0;
    if (p > 0.5) return n - binomial(n, 1.0 - p);
    const double q = 1.0 - p, np = double(n) * p;
    if (np < 10) {  // inversion (NumPy's random_binomial_inversion)
      const double qn = std::exp(double(n) * std::log1p(-p));
      const double bound = std::min(double(n), np + 10.0 * std::sqrt(np * q + 1));
      int64_t X = 0;
      double px = qn, U = next_double();
      while (U > px) {
        ++X;
        if (double(X) > bound) {
          X = 0;
          px = qn;
          U = next_double();
        } else {
          U -= px;
          px = (double(n - X + 1) * p * px) / (double(X) * q);
        }
      }
      return X;
    }
    // BTRS, Hörmann (1993), "The generation of binomial random variates".
    const double spq = std::sqrt(np * q);
    const double b = 1.15 + 2.53 * spq, a = -0.0873 + 0.0248 * b + 0.01 * p, c = np + 0.5;
    const double vr = 0.92 - 4.2 / b, alpha = (2.83 + 5.1 / b) * spq, lpq = std::log(p / q);
    const double m = std::floor(double(n + 1) * p);
    const double h = std::lgamma(m + 1) + std::lgamma(double(n) - m + 1);
    for (;;) {
      const double U = next_double() - 0.5;
      double V = next_double();
      const double us = 0.5 - std::fabs(U);
      const double k = std::floor((2 * a / us + b) * U + c);
      if (k < 0 || k > double(n)) continue;
      if (us >= 0.07 && V <= vr) return int64_t(k);
      V = std::log(V * alpha / (a / (us * us) + b));
      if (V <= h - std::lgamma(k + 1) - std::lgamma(double(n) - k + 1) + (k - m) * lpq) return int64_t(k);
    }
  }
  double noncentral_chisquare(double df, double nonc) {
    if (std::isnan(nonc)) return NAN;
    if (nonc == 0) return chisquare(df);
    if (1 < df) {
      const double Chi2 = chisquare(df - 1);
      const double n = std_normal() + std::sqrt(nonc);
      return Chi2 + n * n;
    }
    const int64_t i = poisson(nonc / 2.0);
    return chisquare(df + 2 * double(i));
  }
};

// The first Philox call of kBatch consecutive elements' streams, counters (g, 0, 1) in
// struct-of-arrays form so the rounds vectorize (most samplers need no second call).
constexpr Index kBatch = 64;

CA_ISA_CLONES void first_calls(uint64_t seed, uint64_t g0, uint32_t (*out)[4] /* kBatch */) {
  uint32_t x0[kBatch], x1[kBatch], x2[kBatch], x3[kBatch];
  for (Index i = 0; i < kBatch; ++i) {
    const uint64_t g = g0 + uint64_t(i);
    x0[i] = uint32_t(g);
    x1[i] = uint32_t(g >> 32);
    x2[i] = 0;
    x3[i] = 1;
  }
  philox_rounds(x0, x1, x2, x3, seed);
  for (Index i = 0; i < kBatch; ++i) out[i][0] = x0[i], out[i][1] = x1[i], out[i][2] = x2[i], out[i][3] = x3[i];
}

// Calls f(i, stream) for the elements [glin, glin + n), each stream primed by first_calls.
template <class F>
void for_streams(uint64_t seed, Index glin, Index n, F &&f) {
  uint32_t first[kBatch][4];
  for (Index i0 = 0; i0 < n; i0 += kBatch) {
    first_calls(seed, uint64_t(glin + i0), first);
    const Index m = std::min(kBatch, n - i0);
    for (Index t = 0; t < m; ++t) {
      Stream s(seed, uint64_t(glin + i0 + t), first[t]);
      f(i0 + t, s);
    }
  }
}

// Parameters of one spec, read once per fill.
struct Params {
  double p0, p1, p2;
};

double sample_float(int32_t code, const Params &P, Stream &s) {
  const double p0 = P.p0, p1 = P.p1, p2 = P.p2;
  switch (code) {
    case CA_RANDOM_BETA: {
      const double a = p0, b = p1;
      if (a <= 1.0 && b <= 1.0) {  // Johnk
        for (;;) {
          const double U = s.next_double(), V = s.next_double();
          const double X = std::pow(U, 1.0 / a), Y = std::pow(V, 1.0 / b), XpY = X + Y;
          if (XpY <= 1.0 && U + V > 0.0) {
            if (XpY > 0) return X / XpY;
            double logX = std::log(U) / a, logY = std::log(V) / b;
            const double logM = std::max(logX, logY);
            logX -= logM;
            logY -= logM;
            return std::exp(logX - std::log(std::exp(logX) + std::exp(logY)));
          }
        }
      }
      const double Ga = s.std_gamma(a), Gb = s.std_gamma(b);
      return Ga / (Ga + Gb);
    }
    case CA_RANDOM_CHISQUARE: return s.chisquare(p0);
    case CA_RANDOM_EXPONENTIAL: return p0 * s.std_exponential();
    case CA_RANDOM_F: return (s.chisquare(p0) * p1) / (s.chisquare(p1) * p0);
    case CA_RANDOM_GAMMA: return p1 * s.std_gamma(p0);
    case CA_RANDOM_GUMBEL:
      for (;;) {
        const double U = 1.0 - s.next_double();
        if (U < 1.0) return p0 - p1 * std::log(-std::log(U));
      }
    case CA_RANDOM_LAPLACE:
      for (;;) {
        const double U = s.next_double();
        if (U >= 0.5) return p0 - p1 * std::log(2.0 - U - U);
        if (U > 0.0) return p0 + p1 * std::log(U + U);
      }
    case CA_RANDOM_LOGISTIC:
      for (;;) {
        const double U = s.next_double();
        if (U > 0.0) return p0 + p1 * std::log(U / (1.0 - U));
      }
    case CA_RANDOM_LOGNORMAL: return std::exp(p0 + p1 * s.std_normal());
    case CA_RANDOM_NONCENTRAL_CHISQUARE: return s.noncentral_chisquare(p0, p1);
    case CA_RANDOM_NONCENTRAL_F: {
      const double t = s.noncentral_chisquare(p0, p2) * p1;
      return t / (s.chisquare(p1) * p0);
    }
    case CA_RANDOM_PARETO: return std::expm1(s.std_exponential() / p0);
    case CA_RANDOM_POWER: return std::pow(-std::expm1(-s.std_exponential()), 1. / p0);
    case CA_RANDOM_RAYLEIGH: return p0 * std::sqrt(2.0 * s.std_exponential());
    case CA_RANDOM_STANDARD_CAUCHY: {
      const double a = s.std_normal();
      return a / s.std_normal();
    }
    case CA_RANDOM_STANDARD_EXPONENTIAL: return s.std_exponential();
    case CA_RANDOM_STANDARD_GAMMA: return s.std_gamma(p0);
    case CA_RANDOM_STANDARD_T: {
      const double num = s.std_normal();
      const double denom = s.std_gamma(p0 / 2);
      return std::sqrt(p0 / 2) * num / std::sqrt(denom);
    }
    case CA_RANDOM_TRIANGULAR: {
      const double left = p0, mode = p1, right = p2;
      const double base = right - left, leftbase = mode - left, ratio = leftbase / base;
      const double leftprod = leftbase * base, rightprod = (right - mode) * base;
      const double U = s.next_double();
      if (U <= ratio) return left + std::sqrt(U * leftprod);
      return right - std::sqrt((1.0 - U) * rightprod);
    }
    case CA_RANDOM_VONMISES: {
      const double mu = p0, kappa = p1;
      if (std::isnan(kappa)) return NAN;
      if (kappa < 1e-8) return kPi * (2 * s.next_double() - 1);
      double sv, W;
      if (kappa < 1e-5) {
        sv = 1. / kappa + kappa;
      } else if (kappa <= 1e6) {
        const double r = 1 + std::sqrt(1 + 4 * kappa * kappa);
        const double rho = (r - std::sqrt(2 * r)) / (2 * kappa);
        sv = (1 + rho * rho) / (2 * rho);
      } else {
        double result = mu + std::sqrt(1. / kappa) * s.std_normal();
        if (result < -kPi) result += 2 * kPi;
        if (result > kPi) result -= 2 * kPi;
        return result;
      }
      for (;;) {
        const double U = s.next_double(), Z = std::cos(kPi * U);
        W = (1 + sv * Z) / (sv + Z);
        const double Y = kappa * (sv - W), V = s.next_double();
        if ((Y * (2 - Y) - V >= 0) || (std::log(Y / V) + 1 - Y >= 0)) break;
      }
      const double U = s.next_double();
      double result = std::acos(W);
      if (U < 0.5) result = -result;
      result += mu;
      const bool neg = result < 0;
      double mod = std::fabs(result);
      mod = std::fmod(mod + kPi, 2 * kPi) - kPi;
      if (neg) mod *= -1;
      return mod;
    }
    case CA_RANDOM_WALD: {
      const double mean = p0, scale = p1, mu_2l = mean / (2 * scale);
      double Y = s.std_normal();
      Y = mean * Y * Y;
      const double X = mean + mu_2l * (Y - std::sqrt(4 * scale * Y + Y * Y));
      const double U = s.next_double();
      if (U <= mean / (mean + X)) return X;
      return mean * mean / X;
    }
    case CA_RANDOM_WEIBULL:
      if (p0 == 0.0) return 0.0;
      return std::pow(s.std_exponential(), 1. / p0);
    default: fail(CA_EFORMAT, "random: distribution ", code, " is not a float distribution");
  }
}

int64_t sample_int(int32_t code, const Params &P, Stream &s) {
  const double p0 = P.p0, p1 = P.p1, p2 = P.p2;
  switch (code) {
    case CA_RANDOM_BINOMIAL: return s.binomial(int64_t(p0), p1);
    case CA_RANDOM_GEOMETRIC: {
      const double p = p0;
      if (p >= 0.333333333333333333333333) {  // search
        int64_t X = 1;
        double sum = p, prod = p;
        const double U = s.next_double(), q = 1.0 - p;
        while (U > sum) {
          prod *= q;
          sum += prod;
          X++;
        }
        return X;
      }
      return to_i64(std::ceil(-s.std_exponential() / std::log1p(-p)));
    }
    case CA_RANDOM_HYPERGEOMETRIC: {
      const int64_t good = int64_t(p0), bad = int64_t(p1), sample = int64_t(p2);
      const int64_t total = good + bad;
      const int64_t computed = sample > total / 2 ? total - sample : sample;
      int64_t remaining_total = total, remaining_good = good, left = computed;
      while (left > 0 && remaining_good > 0 && remaining_total > remaining_good) {
        --remaining_total;
        if (int64_t(s.interval(uint64_t(remaining_total))) < remaining_good) --remaining_good;
        --left;
      }
      if (remaining_total == remaining_good) remaining_good -= left;
      return sample > total / 2 ? remaining_good : good - remaining_good;
    }
    case CA_RANDOM_LOGSERIES: {
      const double p = p0;
      const double r = std::log1p(-p);
      for (;;) {
        const double V = s.next_double();
        if (V >= p) return 1;
        const double U = s.next_double();
        const double q = -std::expm1(r * U);
        if (V <= q * q) {
          const double result = std::floor(1 + std::log(V) / std::log(q));
          if (result < 1 || V == 0.0) continue;
          return to_i64(result);
        }
        if (V >= q) return 1;
        return 2;
      }
    }
    case CA_RANDOM_NEGATIVE_BINOMIAL: {
      const double Y = s.std_gamma(p0) * ((1 - p1) / p1);
      return s.poisson(Y);
    }
    case CA_RANDOM_POISSON: return s.poisson(p0);
    case CA_RANDOM_ZIPF: {
      const double a = p0, am1 = a - 1.0, b = std::pow(2.0, am1);
      for (;;) {
        const double U = 1.0 - s.next_double(), V = s.next_double();
        const double X = std::floor(std::pow(U, -1.0 / am1));
        if (X >= 9.2233720368547758e18 || X < 1.0) continue;
        const double T = std::pow(1.0 + 1.0 / X, am1);
        if (V * X * (T - 1.0) / (b - 1.0) <= T / b) return int64_t(X);
      }
    }
    default: fail(CA_EFORMAT, "random: distribution ", code, " is not a discrete distribution");
  }
}

const char *dist_name(int32_t code) {
  switch (code) {
    case CA_RANDOM_BETA: return "beta";
    case CA_RANDOM_BINOMIAL: return "binomial";
    case CA_RANDOM_CHISQUARE: return "chisquare";
    case CA_RANDOM_EXPONENTIAL: return "exponential";
    case CA_RANDOM_F: return "f";
    case CA_RANDOM_GAMMA: return "gamma";
    case CA_RANDOM_GEOMETRIC: return "geometric";
    case CA_RANDOM_GUMBEL: return "gumbel";
    case CA_RANDOM_HYPERGEOMETRIC: return "hypergeometric";
    case CA_RANDOM_LAPLACE: return "laplace";
    case CA_RANDOM_LOGISTIC: return "logistic";
    case CA_RANDOM_LOGNORMAL: return "lognormal";
    case CA_RANDOM_LOGSERIES: return "logseries";
    case CA_RANDOM_NEGATIVE_BINOMIAL: return "negative_binomial";
    case CA_RANDOM_NONCENTRAL_CHISQUARE: return "noncentral_chisquare";
    case CA_RANDOM_NONCENTRAL_F: return "noncentral_f";
    case CA_RANDOM_PARETO: return "pareto";
    case CA_RANDOM_POISSON: return "poisson";
    case CA_RANDOM_POWER: return "power";
    case CA_RANDOM_RAYLEIGH: return "rayleigh";
    case CA_RANDOM_STANDARD_CAUCHY: return "standard_cauchy";
    case CA_RANDOM_STANDARD_EXPONENTIAL: return "standard_exponential";
    case CA_RANDOM_STANDARD_GAMMA: return "standard_gamma";
    case CA_RANDOM_STANDARD_T: return "standard_t";
    case CA_RANDOM_TRIANGULAR: return "triangular";
    case CA_RANDOM_VONMISES: return "vonmises";
    case CA_RANDOM_WALD: return "wald";
    case CA_RANDOM_WEIBULL: return "weibull";
    case CA_RANDOM_ZIPF: return "zipf";
    default: return nullptr;
  }
}

// The largest poisson lam NumPy accepts (POISSON_LAM_MAX: int64 max - 10 sigma).
constexpr double kPoissonLamMax = 9.2233720064847708e18;

}  // namespace

bool random_dist_is_discrete(int32_t code) {
  return code == CA_RANDOM_BINOMIAL || code == CA_RANDOM_GEOMETRIC || code == CA_RANDOM_HYPERGEOMETRIC ||
         code == CA_RANDOM_LOGSERIES || code == CA_RANDOM_NEGATIVE_BINOMIAL || code == CA_RANDOM_POISSON ||
         code == CA_RANDOM_ZIPF;
}

const char *random_dist_name(int32_t code) { return dist_name(code); }

void random_dist_validate(int32_t code, DType dtype, double p0, double p1, double p2, ca_status_t err) {
  const char *name = dist_name(code);
  if (!name) fail(err, "random: unknown distribution ", code);
  if (random_dist_is_discrete(code)) {
    CA_CHECK(dtype == CA_INT64, err == CA_EINVAL ? CA_ETYPE : err, name, ": dtype must be int64 (got ",
             dtype_name(dtype), ")");
  } else {
    CA_CHECK(dtype == CA_FLOAT32 || dtype == CA_FLOAT64, err == CA_EINVAL ? CA_ETYPE : err, name,
             ": dtype must be float32 or float64 (got ", dtype_name(dtype), ")");
  }
  auto need = [&](bool ok, const char *msg) { CA_CHECK(ok, err, name, ": ", msg, " (got ", p0, ", ", p1, ", ", p2, ")"); };
  auto integral = [](double v) { return std::isfinite(v) && v == std::trunc(v) && std::fabs(v) < 9007199254740992.0; };
  switch (code) {
    case CA_RANDOM_BETA:
      need(p0 > 0, "a <= 0");
      need(p1 > 0, "b <= 0");
      break;
    case CA_RANDOM_BINOMIAL:
      need(integral(p0), "n must be an integer below 2**53");
      need(p0 >= 0, "n < 0");
      need(p1 >= 0 && p1 <= 1, "p < 0, p > 1 or p is NaN");
      break;
    case CA_RANDOM_CHISQUARE: need(p0 > 0, "df <= 0"); break;
    case CA_RANDOM_EXPONENTIAL: need(p0 >= 0, "scale < 0"); break;
    case CA_RANDOM_F:
      need(p0 > 0, "dfnum <= 0");
      need(p1 > 0, "dfden <= 0");
      break;
    case CA_RANDOM_GAMMA:
      need(p0 >= 0, "shape < 0");
      need(p1 >= 0, "scale < 0");
      break;
    case CA_RANDOM_GEOMETRIC: need(p0 > 0 && p0 <= 1, "p <= 0, p > 1 or p contains NaNs"); break;
    case CA_RANDOM_GUMBEL:
    case CA_RANDOM_LAPLACE:
    case CA_RANDOM_LOGISTIC:
      need(std::isfinite(p0), "loc must be finite");
      need(p1 >= 0, "scale < 0");
      break;
    case CA_RANDOM_HYPERGEOMETRIC:
      need(integral(p0) && integral(p1) && integral(p2), "ngood, nbad and nsample must be integers");
      need(p0 >= 0, "ngood < 0");
      need(p1 >= 0, "nbad < 0");
      need(p2 >= 0, "nsample < 0");
      need(p0 + p1 < 1e9, "both ngood and nbad must be less than 1000000000");
      need(p0 + p1 >= p2, "ngood + nbad < nsample");
      break;
    case CA_RANDOM_LOGNORMAL:
      need(std::isfinite(p0), "mean must be finite");
      need(p1 >= 0, "sigma < 0");
      break;
    case CA_RANDOM_LOGSERIES: need(p0 >= 0 && p0 < 1, "p < 0, p >= 1 or p is NaN"); break;
    case CA_RANDOM_NEGATIVE_BINOMIAL:
      need(p0 > 0, "n <= 0");
      need(p1 > 0 && p1 <= 1, "p <= 0, p > 1 or p contains NaNs");
      break;
    case CA_RANDOM_NONCENTRAL_CHISQUARE:
      need(p0 > 0, "df <= 0");
      need(p1 >= 0, "nonc < 0");
      break;
    case CA_RANDOM_NONCENTRAL_F:
      need(p0 > 0, "dfnum <= 0");
      need(p1 > 0, "dfden <= 0");
      need(p2 >= 0, "nonc < 0");
      break;
    case CA_RANDOM_PARETO: need(p0 > 0, "a <= 0"); break;
    case CA_RANDOM_POISSON:
      need(p0 >= 0, "lam < 0");
      need(p0 <= kPoissonLamMax, "lam value too large");
      break;
    case CA_RANDOM_POWER: need(p0 > 0, "a <= 0"); break;
    case CA_RANDOM_RAYLEIGH: need(p0 >= 0, "scale < 0"); break;
    case CA_RANDOM_STANDARD_CAUCHY:
    case CA_RANDOM_STANDARD_EXPONENTIAL: break;
    case CA_RANDOM_STANDARD_GAMMA: need(p0 >= 0, "shape < 0"); break;
    case CA_RANDOM_STANDARD_T: need(p0 > 0, "df <= 0"); break;
    case CA_RANDOM_TRIANGULAR:
      need(std::isfinite(p0) && std::isfinite(p1) && std::isfinite(p2), "left, mode and right must be finite");
      need(p0 <= p1, "left > mode");
      need(p1 <= p2, "mode > right");
      need(p0 < p2, "left == right");
      break;
    case CA_RANDOM_VONMISES:
      need(std::isfinite(p0), "mu must be finite");
      need(p1 >= 0, "kappa < 0");
      break;
    case CA_RANDOM_WALD:
      need(p0 > 0, "mean <= 0");
      need(p1 > 0, "scale <= 0");
      break;
    case CA_RANDOM_WEIBULL: need(p0 >= 0, "a < 0"); break;
    case CA_RANDOM_ZIPF: need(p0 > 1, "a <= 1 or a is NaN"); break;
    default: fail(err, "random: unknown distribution ", code);
  }
  // Parameters NumPy accepts as +inf still make no sense here except where stated above.
  CA_CHECK(!std::isnan(p0) && !std::isnan(p1) && !std::isnan(p2), err, name, ": parameters must not be NaN");
}

void random_dist_fill(const GenSpec &spec, Index glin, Index n, void *out) {
  const int32_t code = spec.kind - GenSpec::DistBase;
  const Params P{spec.p0, spec.p1, bits_to_double(spec.i0)};
  if (random_dist_is_discrete(code)) {
    int64_t *p = static_cast<int64_t *>(out);
    for_streams(spec.seed, glin, n, [&](Index i, Stream &s) { p[i] = sample_int(code, P, s); });
  } else if (spec.dtype == CA_FLOAT64) {
    double *p = static_cast<double *>(out);
    for_streams(spec.seed, glin, n, [&](Index i, Stream &s) { p[i] = sample_float(code, P, s); });
  } else {
    float *p = static_cast<float *>(out);
    for_streams(spec.seed, glin, n, [&](Index i, Stream &s) { p[i] = float(sample_float(code, P, s)); });
  }
}

namespace {

// ca.random_multinomial(pvals: bytes, n: int, seed: int, size: tuple, origin: tuple, shape: tuple)
Block *k_multinomial(const KernelArgs &A) {
  const std::string_view pb = A.bytes(0, "pvals");
  const int64_t n = A.int64(1, "n");
  const uint64_t seed = uint64_t(A.int64(2, "seed"));
  const std::span<const int64_t> size = A.tuple(3, "size"), origin = A.tuple(4, "origin"), shape = A.tuple(5, "shape");
  const size_t k = pb.size() / sizeof(double);
  CA_CHECK(k >= 1 && pb.size() % sizeof(double) == 0 && n >= 0, CA_EINVAL, A.kernel(), ": bad pvals or n");
  const size_t nd = size.size();
  CA_CHECK(origin.size() == nd + 1 && shape.size() == nd + 1 && shape[nd] == int64_t(k) && origin[nd] == 0,
           CA_EINVAL, A.kernel(), ": blocks are ", nd + 1, "-d with the whole last axis of ", k);
  for (size_t d = 0; d < nd; ++d)
    CA_CHECK(origin[d] >= 0 && shape[d] >= 0 && origin[d] + shape[d] <= size[d], CA_EINVAL, A.kernel(),
             ": block outside the array along axis ", d);
  std::vector<double> pv(k);
  std::memcpy(pv.data(), pb.data(), pb.size());
  BlockRef b(block_new(CA_INT64, int32_t(nd + 1), shape.data(), false));
  int64_t *out = b.data<int64_t>();
  Index rows = 1;
  for (size_t d = 0; d < nd; ++d) rows *= shape[d];
  std::vector<int64_t> idx(nd, 0);  // local multi-index of the row
  for (Index r = 0; r < rows; ++r) {
    uint64_t g = 0;
    for (size_t d = 0; d < nd; ++d) g = g * uint64_t(size[d]) + uint64_t(origin[d] + idx[d]);
    Stream s(seed, g);
    int64_t *row = out + r * Index(k);
    int64_t remaining = n;
    double remaining_p = 1.0;
    for (size_t j = 0; j + 1 < k; ++j) {
      const double pj = remaining_p > 0 ? std::clamp(pv[j] / remaining_p, 0.0, 1.0) : 0.0;
      row[j] = remaining > 0 ? s.binomial(remaining, pj) : 0;
      remaining -= row[j];
      remaining_p -= pv[j];
    }
    row[k - 1] = remaining;
    for (size_t d = nd; d-- > 0;) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  return b.release();
}

}  // namespace

void register_random_kernels(KernelRegistry &reg) { register_builtin<k_multinomial>(reg, "ca.random_multinomial"); }

}  // namespace ca
