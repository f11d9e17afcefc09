// Array creation (dask.array.creation / dask.array.random): full, arange, linspace, eye, tri, diag,
// random. Each function is one symbolic blockwise layer whose kernel receives literal parameters plus
// the block's index, origin and shape (BlockwiseArg specials): nothing per block is built at graph
// time, and every element is a function of its global index, so the chunking never changes values.
//
// Errors (ca::Error): CA_EINVAL for bad shapes/chunks/parameters ("Chunks do not add up to shape:
// chunks along axis 1 sum to 23, shape is 24"), CA_ETYPE for a dtype the operation cannot produce.
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <vector>

#include "array/array.hpp"

namespace ca {

class KernelRegistry;

/// A generated array: every element is a function of its global C-order linear index only (never of
/// the chunking). Such arrays are not read from blocks by the expressions and reductions built over
/// them: the fused program regenerates any region on demand (array/expr.hpp, kOpGen), so
/// `x - x.mean()` over a random x never holds x, and rechunking a generated array moves no data.
struct GenSpec {
  /// DistBase + c: the CA_RANDOM_* distribution c >= CA_RANDOM_BETA (array/random_dists.cpp), with
  /// parameters p0, p1 and p2 = the double whose bits are i0.
  enum Kind : int32_t { Full = 1, Arange = 2, Linspace = 3, Uniform = 4, Normal = 5, Integers = 6, DistBase = 100 };
  int32_t kind = Full;
  DType dtype = CA_FLOAT64;
  double p0 = 0, p1 = 0;    // full: re, im; arange: start, step; linspace: start, stop;
                            // uniform: low, high; normal: mean, std
  int64_t i0 = 0, i1 = 0;   // linspace: num, endpoint; integers: low (bits), range (0 = 2**64);
                            // full: i1 = kFullBits when i0 holds the element's bytes (exact integers)
  static constexpr int64_t kFullBits = 1;
  uint64_t seed = 0;        // random
};

/// Write elements [glin, glin + n) (global C-order linear indices) of a generated array to `out`
/// (n elements of spec.dtype). Throws CA_EFORMAT for a spec no generator supports.
void gen_fill(const GenSpec &spec, Index glin, Index n, void *out);
/// Check a spec read from untrusted bytes (kind, dtype, parameters): CA_EFORMAT naming the problem.
void gen_check(const GenSpec &spec);
/// An array over a generator: one `ca.fused` layer of a one-instruction program.
ArrayPtr gen_array(const std::string &name, const GenSpec &spec, const std::vector<Index> &shape, const Chunks &chunks);

/// np.full(shape, value, dtype): value converted as NumPy's astype (imaginary part dropped unless
/// complex, truncation for integers, != 0 for bool).
ArrayPtr full(std::vector<Index> shape, const Chunks &chunks, DType dtype, std::complex<double> value);
/// np.full with an exact 64-bit integer (`bits`: an int64, or a uint64 when `is_unsigned`): integer
/// and time dtypes get the value itself (CA_EINVAL when the dtype does not hold it), float dtypes its
/// nearest value, bool value != 0; string dtypes CA_ETYPE (ca_array_full).
ArrayPtr full_exact(std::vector<Index> shape, const Chunks &chunks, DType dtype, uint64_t bits, bool is_unsigned);
ArrayPtr zeros(std::vector<Index> shape, const Chunks &chunks, DType dtype);
ArrayPtr ones(std::vector<Index> shape, const Chunks &chunks, DType dtype);
/// Contents unspecified (zeros).
ArrayPtr empty(std::vector<Index> shape, const Chunks &chunks, DType dtype);

/// np.arange(start, stop, step, dtype): length max(ceil((stop - start) / step), 0); element i is
/// NumPy's fill rule a0 + i * (a1 - a0) with a0 = start, a1 = start + step (both in dtype).
/// chunks: 1-d, summing to that length. Bool dtype: CA_ETYPE; step 0: CA_EINVAL.
ArrayPtr arange(double start, double stop, double step, const Chunks &chunks, DType dtype);
/// Length of arange(start, stop, step) (throws CA_EINVAL for step 0 or non-finite bounds).
Index arange_length(double start, double stop, double step);

/// np.linspace(start, stop, num, endpoint, dtype) (integer dtypes floor, as NumPy).
ArrayPtr linspace(double start, double stop, Index num, bool endpoint, const Chunks &chunks, DType dtype);

/// np.eye(N, M, k): ones on the k-th diagonal.
ArrayPtr eye(Index n, Index m, Index k, const Chunks &chunks, DType dtype);
/// np.tri(N, M, k): ones at and below the k-th diagonal.
ArrayPtr tri(Index n, Index m, Index k, const Chunks &chunks, DType dtype);

/// np.diag(v, k). 1-d v: a 2-d array with v on the k-th diagonal, chunked like dask (v's chunks on
/// both axes, plus one block of |k| for the offset); off-diagonal blocks are zeros. 2-d v: its k-th
/// diagonal, one output block per input block the diagonal crosses (dask's diagonal).
ArrayPtr diag(const ArrayPtr &v, Index k);

/// Random arrays (CA_RANDOM_UNIFORM [p0, p1), CA_RANDOM_NORMAL mean p0 std p1, CA_RANDOM_INTEGERS
/// [p0, p1), and NumPy's Generator distributions CA_RANDOM_BETA ... with parameters p0, p1, p2).
/// Philox4x32-10 keyed by the seed: uniform/normal/integers use counter = global element index / 2
/// (two 64-bit words per counter); the others give each element its own substream (array.h).
/// Values depend only on (seed, element index), never on chunks, threads or execution order.
ArrayPtr random(int32_t distribution, uint64_t seed, std::vector<Index> shape, const Chunks &chunks, DType dtype,
                double p0, double p1, double p2 = 0);

/// multinomial(n, pvals, size): int64 of shape size + (k,), `chunks` over that shape with the last
/// axis one chunk; row r drawn from element r's substream (conditional binomials, NumPy's method).
ArrayPtr random_multinomial(uint64_t seed, int64_t n, const std::vector<double> &pvals, std::vector<Index> size,
                            const Chunks &chunks);
/// ca_array_random_params: `code` (UNIFORM, NORMAL or >= CA_RANDOM_BETA) with parameter arrays
/// params[j] (nullptr: the scalar pj), each broadcast against `shape` as NumPy broadcasts parameters
/// against size. One blockwise layer (ca.random_params) over the aligned parameter blocks; element g
/// draws from substream g with its own parameters, so constant arrays give the scalar version's
/// values. Parameter values are checked per element at compute (CA_EINVAL, NumPy's message).
ArrayPtr random_params(int32_t code, uint64_t seed, std::vector<Index> shape, const Chunks &chunks, DType dtype,
                       const std::vector<ArrayPtr> &params, double p0, double p1, double p2);
/// ca.random_multinomial, ca.random_params (array/random_dists.cpp).
void register_random_kernels(KernelRegistry &reg);

/// Whether CA_RANDOM_<code> makes int64 values (binomial, geometric, ...).
bool random_dist_is_discrete(int32_t code);
/// NumPy's name of CA_RANDOM_<code> >= CA_RANDOM_BETA, or nullptr.
const char *random_dist_name(int32_t code);
/// Check a distribution's dtype and parameters: `err` (CA_EINVAL from the API, CA_EFORMAT for specs
/// read from files; a wrong dtype is CA_ETYPE under CA_EINVAL) with NumPy's message ("gamma: scale < 0").
void random_dist_validate(int32_t code, DType dtype, double p0, double p1, double p2, ca_status_t err);
/// Elements [glin, glin + n) of a GenSpec of kind DistBase + code (array/random_dists.cpp).
void random_dist_fill(const GenSpec &spec, Index glin, Index n, void *out);

/// Check chunks against a shape (ndim, non-negative sizes, sums): CA_EINVAL naming the axis.
void check_chunks_shape(const Chunks &chunks, const std::vector<Index> &shape, const char *what);

/// ca.eye, ca.tri, ca.diag_block, ca.diagonal (full/arange/linspace/random are `ca.fused` programs).
void register_creation_kernels(KernelRegistry &reg);

/// Philox4x32-10's ten rounds keyed by `seed` on N counters in struct-of-arrays form, in place. Inlined
/// into its caller, compiled once per ISA (CA_ISA_CLONES), so the rounds vectorize 2, 4 or 8 counters
/// wide: the portable path of detail::philox_counters64 (create_kernels.cpp), which every fill and
/// distribution draws its batches from (AVX-512 has its own register version there).
template <size_t N>
[[gnu::always_inline]] inline void philox_rounds(uint32_t (&x0)[N], uint32_t (&x1)[N], uint32_t (&x2)[N],
                                                uint32_t (&x3)[N], uint64_t seed) {
  uint32_t ka = uint32_t(seed), kb = uint32_t(seed >> 32);
  for (int r = 0; r < 10; ++r) {
    for (size_t i = 0; i < N; ++i) {
      const uint64_t p0 = uint64_t(0xD2511F53u) * x0[i];
      const uint64_t p1 = uint64_t(0xCD9E8D57u) * x2[i];
      const uint32_t y0 = uint32_t(p1 >> 32) ^ x1[i] ^ ka;
      const uint32_t y2 = uint32_t(p0 >> 32) ^ x3[i] ^ kb;
      x1[i] = uint32_t(p1);
      x3[i] = uint32_t(p0);
      x0[i] = y0;
      x2[i] = y2;
    }
    ka += 0x9E3779B9u;
    kb += 0xBB67AE85u;
  }
}

/// Marsaglia and Tsang's ziggurat for the standard normal, 256 layers over 52-bit magnitudes (NumPy's
/// Generator layout: the layer from a word's low 8 bits, the sign from the next, the magnitude from
/// the next 52). x[255] = r, the base strip of area v; tables made once (normal_ziggurat()).
struct NormalZiggurat {
  static constexpr double kR = 3.6541528853610088, kV = 0.00492867323399;
  uint64_t k[256];
  double w[256], f[256];
  NormalZiggurat();
};
const NormalZiggurat &normal_ziggurat();

/// A standard normal from word `r`, with `next()` giving further words when it is rejected (1%).
template <class Next>
inline double ziggurat_normal(uint64_t r, Next &&next) {
  const NormalZiggurat &z = normal_ziggurat();
  for (;;) {
    const int idx = int(r & 0xff);
    r >>= 8;
    const bool neg = r & 1;
    const uint64_t rabs = (r >> 1) & 0x000fffffffffffffull;
    double x = double(rabs) * z.w[idx];
    if (neg) x = -x;
    if (rabs < z.k[idx]) return x;
    auto u = [&] { return double(next() >> 11) * 0x1.0p-53; };
    if (idx == 0) {  // the tail beyond r
      for (;;) {
        const double xx = -std::log1p(-u()) / NormalZiggurat::kR;
        const double yy = -std::log1p(-u());
        if (yy + yy > xx * xx) return neg ? -(NormalZiggurat::kR + xx) : NormalZiggurat::kR + xx;
      }
    }
    if ((z.f[idx - 1] - z.f[idx]) * u() + z.f[idx] < std::exp(-0.5 * x * x)) return x;
    r = next();
  }
}

/// integers(low, high) for `dtype` (an integer dtype or bool): checks NumPy's rules on the truncated
/// bounds (low < high, both within the dtype; `code` with NumPy's message otherwise) and returns the
/// first value's bits and the range high - low (0 meaning 2**64). The scalar ca_array_random and the
/// array-valued ca.random_params share it, so constant bound arrays draw the scalar version's values.
void integers_bounds(double low, double high, DType dtype, ca_status_t code, int64_t &lo_bits, uint64_t &range);

namespace detail {
/// Philox4x32-10 on one counter (for tests: Random123's known answers).
void philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]);
/// Philox4x32-10 keyed by `seed` of the 64 counters (c0 + i as two words, w2, w3), i = 0..63; counter
/// i's four output words at out[4i .. 4i + 3]: the values of philox_rounds. With AVX-512
/// (vecmath::active_level(), so CA_DISABLE_CPU_FEATURES=avx512f turns it off) the counters are built,
/// taken through the rounds and transposed in registers; elsewhere philox_rounds compiled per ISA.
void philox_counters64(uint64_t seed, uint64_t c0, uint32_t w2, uint32_t w3, uint32_t *out /* 256 */);
/// With AVX-512 (as philox_counters64): the 128 float64 uniform elements 2 c0 .. 2 c0 + 127 of
/// fma(scale, u, lo) (create_kernels.cpp's uniform_f64) straight from the rounds' registers, and
/// true; false (nothing written) without it.
bool philox_uniform128(uint64_t seed, uint64_t c0, double lo, double scale, double *out);
/// Element g's draw in [0, range) (range 0: 2**64) from its stream-0 word w: Lemire's multiply-shift,
/// a rejected word redrawn from streams 1, 2, ... at g's counter (so it depends on g alone).
uint64_t bounded_word(uint64_t seed, uint64_t g, uint64_t w, uint64_t range);
}  // namespace detail

}  // namespace ca
