// np.histogram / np.histogramdd as dask.array builds them (routines.hpp's histogramdd): one
// ca.histogram task per block of the samples counts into a (1, nbins) row, bincount's tree of
// ca.bincount_merge sums the rows, ca.histogram_finish gives the sums their shape (and the density).
// The samples and the weights reach the chunk task as their fused elementwise programs, so
// histogram(f(x)) reads x once and never stores f(x).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "array/create.hpp"
#include "array/expr.hpp"
#include "array/reduce.hpp"
#include "array/routines.hpp"
#include "array/shape.hpp"
#include "core/checked.hpp"
#include "graph/graph.hpp"
#include "graph/layer.hpp"

namespace ca {

// Helpers are prefixed hg_: unity builds join this file with others in one translation unit.
namespace {

// A reference to the one block of a one-block 1-d array (edges, the zeros of an empty histogram),
// whatever the consuming layer's block index.
BlockwiseArg hg_single_block_ref(const ArrayPtr &a, std::vector<std::string> &deps) {
  BlockwiseArg b;
  b.is_ref = true;
  auto it = std::find(deps.begin(), deps.end(), a->name);
  b.dep_slot = int32_t(it - deps.begin());
  if (it == deps.end()) deps.push_back(a->name);
  for (int32_t d = 0; d < a->ndim(); ++d) {
    DimMap m;
    m.kind = DimMap::Const;
    m.value = 0;
    m.extent = 1;
    b.dims.push_back(m);
  }
  return b;
}

// The accumulator of the sums: int64 counts or integer/bool weights, float64, complex128.
DType hg_acc_dtype(const ArrayPtr &w) {
  if (!w) return CA_INT64;
  if (dtype_is_complex(w->dtype)) return CA_COMPLEX128;
  if (dtype_is_integer(w->dtype) || w->dtype == CA_BOOL) return CA_INT64;
  return CA_FLOAT64;
}

}  // namespace

std::vector<double> histogram_uniform_edges(double lo, double hi, Index n) {
  // numpy.linspace(lo, hi, n + 1): step = (hi - lo) / n; y = arange(n + 1) * step + lo; y[-1] = hi.
  std::vector<double> e(size_t(n) + 1);
  const double delta = hi - lo, step = delta / double(n);
  for (Index i = 0; i <= n; ++i) {
    double y = double(i);
    if (step == 0) {
      y /= double(n);
      y = y * delta;
    } else {
      y = y * step;
    }
    y += lo;
    e[size_t(i)] = y;
  }
  e[size_t(n)] = hi;
  return e;
}

HistogramResult histogramdd(const std::vector<ArrayPtr> &samples0, const std::vector<HistogramBins> &bins,
                            const ArrayPtr &weights0, bool density, bool dd, int32_t split_every) {
  const char *fn = dd ? "histogramdd" : "histogram";
  CA_CHECK(!samples0.empty(), CA_EINVAL, fn, ": no samples");
  const size_t D = samples0.size();
  CA_CHECK(dd || D == 1, CA_EINVAL, "histogram: one sample, got ", D, " (histogramdd takes several)");
  CA_CHECK(bins.size() == D, CA_EINVAL, fn, ": The dimension of bins must be equal to the dimension of the sample x (",
           bins.size(), " bins for ", D, " dimensions).");
  std::vector<ArrayPtr> s;
  for (size_t k = 0; k < D; ++k) {
    const ArrayPtr &a = samples0[k];
    CA_CHECK(a, CA_EINVAL, fn, ": sample ", k, " is NULL");
    CA_CHECK((dtype_is_numeric(a->dtype) && !dtype_is_complex(a->dtype)) || a->dtype == CA_FLOAT16, CA_ETYPE, fn,
             ": samples of dtype ", dtype_name(a->dtype), " are not supported (bool, integer or floating)");
    CA_CHECK(a->shape == samples0[0]->shape, CA_EINVAL, fn, ": sample ", k, " has shape ", shape_str(a->shape),
             ", sample 0 ", shape_str(samples0[0]->shape));
    require_known_chunks(*a, fn);
    s.push_back(a->ndim() == 0 ? reshape(a, {1}) : a);
  }
  ArrayPtr w = weights0;
  if (w) {
    CA_CHECK(w->shape == samples0[0]->shape, CA_EINVAL, fn, ": weights should have the same shape as a.");
    CA_CHECK(dtype_is_numeric(w->dtype), CA_ETYPE, fn, ": weights of dtype ", dtype_name(w->dtype),
             " are not supported (bool, integer, floating or complex)");
    require_known_chunks(*w, fn);
    if (w->ndim() == 0) w = reshape(w, {1});
  }
  const DType sample_dtype = samples0[0]->dtype;
  // The dtype the samples are binned in: NumPy's histogram compares float32 samples with float32
  // edges (float16 too, here in float32); histogramdd and everything else compare in float64.
  const DType T = !dd && (sample_dtype == CA_FLOAT32 || sample_dtype == CA_FLOAT16) ? CA_FLOAT32 : CA_FLOAT64;
  const DType edge_out_dtype = dd ? CA_FLOAT64 : (sample_dtype == CA_FLOAT16 ? CA_FLOAT16 : T);
  const DType acc = hg_acc_dtype(w);
  for (size_t k = 0; k < D; ++k) {
    if (s[k]->chunks != s[0]->chunks) s[k] = rechunk(s[k], s[0]->chunks);
    if (s[k]->dtype != T) s[k] = elementwise_astype(s[k], T);
  }
  if (w) {
    if (w->chunks != s[0]->chunks) w = rechunk(w, s[0]->chunks);
    if (w->dtype != acc) w = elementwise_astype(w, acc);
  }

  // The bins of each dimension, and the edges the caller gets.
  HistogramResult r;
  std::vector<HistogramDimSpec> dims(D);
  std::vector<ArrayPtr> explicit_edges;
  Index total = 1;
  for (size_t d = 0; d < D; ++d) {
    const HistogramBins &b = bins[d];
    HistogramDimSpec &ds = dims[d];
    std::memset(&ds, 0, sizeof ds);
    CA_CHECK(b.nbins >= 0, CA_EINVAL, fn, ": `bins", dd ? str("[", d, "]") : std::string(),
             "` must be positive, when an integer (got ", b.nbins, ")");
    if (b.nbins > 0) {
      double lo = b.lo, hi = b.hi;
      CA_CHECK(!(lo > hi), CA_EINVAL, fn, ": max must be larger than min in range parameter.");
      CA_CHECK(std::isfinite(lo) && std::isfinite(hi), CA_EINVAL, fn, ": supplied range of [", lo, ", ", hi,
               "] is not finite");
      if (lo == hi) {
        lo -= 0.5;
        hi += 0.5;
      }
      ds.nbins = b.nbins;
      ds.lo = lo;
      ds.hi = hi;
      ds.edge_dtype = dd ? CA_FLOAT64 : T;
      CA_CHECK(b.nbins < std::numeric_limits<Index>::max(), CA_EINVAL, fn, ": too many bins");
      const Index ne = b.nbins + 1;
      std::vector<double> e = histogram_uniform_edges(lo, hi, b.nbins);
      ArrayPtr ea = from_buffer(e.data(), CA_FLOAT64, {ne}, nullptr, Chunks{{ne}}, false, nullptr, nullptr);
      r.edges.push_back(edge_out_dtype == CA_FLOAT64 ? ea : elementwise_astype(ea, edge_out_dtype));
    } else {
      const ArrayPtr &e = b.edges;
      CA_CHECK(e, CA_EINVAL, fn, ": bins[", d, "] has no number of bins and no edges");
      CA_CHECK(e->ndim() == 1, CA_EINVAL, fn, ": `bins", dd ? str("[", d, "]") : std::string(),
               "` must be 1d, when an array (got ", e->ndim(), " dimensions)");
      CA_CHECK(dtype_is_numeric(e->dtype) && !dtype_is_complex(e->dtype), CA_ETYPE, fn, ": edges of dtype ",
               dtype_name(e->dtype), " are not supported (bool, integer or floating)");
      require_known_chunks(*e, fn);
      CA_CHECK(e->shape[0] >= 1, CA_EINVAL, fn, ": bins[", d, "] has no edges");
      ds.nbins = e->shape[0] - 1;
      ds.explicit_edges = 1;
      ds.edge_dtype = e->dtype;
      explicit_edges.push_back(e->numblocks[0] == 1 ? e : rechunk(e, Chunks{{e->shape[0]}}));
      r.edges.push_back(e);
    }
    CA_CHECK(ds.nbins == 0 || total <= std::numeric_limits<Index>::max() / ds.nbins, CA_EINVAL, fn,
             ": the number of bins overflows int64");
    total *= ds.nbins;
  }
  const std::string dims_bytes(reinterpret_cast<const char *>(dims.data()), D * sizeof(HistogramDimSpec));

  Tokenizer tk(fn);
  for (auto &a : s) tk.add(*a);
  tk.add(w ? w->name : std::string("<no weights>"));
  tk.add_bytes(dims_bytes.data(), dims_bytes.size());
  for (auto &e : explicit_edges) tk.add(*e);
  tk.add(int64_t(density)).add(split_every);
  const std::string final_name = tk.name();
  const std::string hex = final_name.substr(final_name.rfind('-') + 1);
  const std::string prefix = dd ? "histogramdd" : "histogram";

  std::vector<ArrayPtr> graph_inputs = explicit_edges;
  const ArrayPtr &s0 = s[0];
  bool empty = s0->size() == 0;
  for (Index nb : s0->numblocks) empty = empty || nb == 0;
  ArrayPtr zero_sums;
  std::vector<FusedArgs> fused;
  if (empty) {
    zero_sums = zeros({total}, Chunks{{total}}, acc);
    graph_inputs.push_back(zero_sums);
  } else {
    for (auto &a : s) fused.push_back(fused_args(a));
    if (w) fused.push_back(fused_args(w));
    for (auto &fa : fused)
      for (auto &l : fused_leaf_arrays(fa)) graph_inputs.push_back(l);
  }
  std::shared_ptr<Graph> g = merge_graphs(graph_inputs);

  // The sums: one (total,) block under `sums_name`.
  std::string sums_name;
  bool sums_keyed = false;  // the sums' key has one index (the zeros array) or none (the tree's last level)
  if (empty) {
    sums_name = zero_sums->name;
    sums_keyed = true;
  } else {
    const std::vector<int64_t> spec{int64_t(D), int64_t(dd), int64_t(w != nullptr), int64_t(acc), int64_t(T)};
    std::vector<std::string> deps;
    std::vector<BlockwiseArg> bargs;
    bargs.push_back(blockwise_literal(ca_arg_tuple(spec.data(), spec.size())));
    bargs.push_back(blockwise_literal(ca_arg_bytes(dims_bytes.data(), dims_bytes.size())));
    bargs.push_back(blockwise_special(BlockwiseArg::BlockOrigin));
    bargs.push_back(blockwise_special(BlockwiseArg::BlockShape));
    for (auto &e : explicit_edges) bargs.push_back(hg_single_block_ref(e, deps));
    for (auto &fa : fused) {
      bargs.push_back(blockwise_literal(ca_arg_bytes(fa.program.data(), fa.program.size())));
      fused_leaf_args(fa, deps, bargs);
    }
    const std::string chunk_name = prefix + "-chunk-" + hex;
    g->add_layer(std::make_shared<BlockwiseLayer>(chunk_name, s0->chunks, "ca.histogram", deps, std::move(bargs)));
    TreeReduceSpec t;
    t.input = chunk_name;
    t.numblocks = s0->numblocks;
    t.mask = s0->ndim() >= 64 ? ~uint64_t(0) : (uint64_t(1) << s0->ndim()) - 1;
    t.split = split_every_per_axis(split_every, size_t(s0->ndim()));
    t.combine_kernel = "ca.bincount_merge";
    t.combine_extra = {blockwise_literal(ca_arg_i64(1))};
    t.level_prefix = prefix + "-combine";
    t.hex = hex;
    t.agg_kernel = "ca.bincount_merge";
    t.agg_extra = {blockwise_literal(ca_arg_i64(0))};
    t.keepdims = false;
    t.name = prefix + "-sum-" + hex;
    t.chunks = Chunks{};
    tree_reduce(*g, t);
    sums_name = t.name;
  }

  // The finish: the sums shaped (nbins_0, ..., nbins_{D-1}), with the density if asked.
  const DType out_acc = density ? (acc == CA_COMPLEX128 ? CA_COMPLEX128 : CA_FLOAT64) : acc;
  // numpy.histogram's counts have the weights' dtype before its density divides them
  const DType counts_dtype = !dd && w ? weights0->dtype : acc;
  {
    const std::vector<int64_t> spec{int64_t(D), int64_t(dd), int64_t(density), int64_t(acc), int64_t(T),
                                    int64_t(counts_dtype)};
    std::vector<std::string> deps{sums_name};
    std::vector<BlockwiseArg> bargs;
    BlockwiseArg sums;
    sums.is_ref = true;
    sums.dep_slot = 0;
    if (sums_keyed) {
      DimMap m;
      m.kind = DimMap::Const;
      m.value = 0;
      m.extent = 1;
      sums.dims.push_back(m);
    }
    bargs.push_back(sums);
    bargs.push_back(blockwise_literal(ca_arg_tuple(spec.data(), spec.size())));
    bargs.push_back(blockwise_literal(ca_arg_bytes(dims_bytes.data(), dims_bytes.size())));
    for (auto &e : explicit_edges) bargs.push_back(hg_single_block_ref(e, deps));
    Chunks out_chunks;
    for (auto &ds : dims) out_chunks.push_back({ds.nbins});
    g->add_layer(std::make_shared<BlockwiseLayer>(final_name, std::vector<Index>(D, 1), "ca.histogram_finish", deps,
                                                  std::move(bargs)));
    r.hist = array_from_layer(g, final_name, out_chunks, out_acc);
  }
  // The result dtype: numpy.histogram's the weights' (counts: int64), histogramdd's float64.
  DType out = out_acc;
  if (!density) {
    if (dd) out = acc == CA_COMPLEX128 ? CA_COMPLEX128 : CA_FLOAT64;
    else if (w) out = weights0->dtype;
  }
  if (out != out_acc) r.hist = elementwise_astype(r.hist, out);
  return r;
}

}  // namespace ca
