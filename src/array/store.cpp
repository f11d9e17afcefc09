#include "array/store.hpp"

#include "graph/plan.hpp"

namespace ca {

namespace {
// &v[off], or null for an empty vector (0-d arrays only).
const Index *at(const std::vector<Index> &v, size_t off) { return v.empty() ? nullptr : v.data() + off; }
}  // namespace

void store(Executor &ex, const KernelRegistry &reg, const std::vector<ArrayPtr> &arrays, const StoreSink &sink,
           const RunOptions &opts0, RunStats *stats) {
  // Keys of every block, C order per array; region bounds precomputed so the sink gets stable pointers.
  struct Out {
    size_t array;
    size_t first;  // offset into idx/start/stop
  };
  std::vector<Out> outs;
  std::vector<Index> idx, start, stop;
  std::vector<KeyRef> refs;
  for (size_t ai = 0; ai < arrays.size(); ++ai) {
    CA_CHECK(arrays[ai], CA_EINVAL, "store: array ", ai, " is null");
    const Array &a = *arrays[ai];
    size_t nd = size_t(a.ndim());
    auto offs = chunk_offsets(a.chunks);
    Index n = a.nblocks();
    for (Index lin = 0; lin < n; ++lin) {
      outs.push_back({ai, idx.size()});
      size_t base = idx.size();
      idx.resize(base + nd);
      start.resize(base + nd);
      stop.resize(base + nd);
      Index r = lin;
      for (size_t d = nd; d-- > 0;) {
        Index b = r % a.numblocks[d];
        r /= a.numblocks[d];
        idx[base + d] = b;
        start[base + d] = offs[d][size_t(b)];
        stop[base + d] = offs[d][size_t(b)] + a.chunks[d][size_t(b)];
      }
    }
  }
  for (const Out &o : outs) {
    const Array &a = *arrays[o.array];
    refs.push_back({a.name.c_str(), a.ndim() ? at(idx, o.first) : nullptr, a.ndim()});
  }
  if (refs.empty()) return;
  auto g = merge_graphs(arrays);
  auto plan = build_plan(*g, refs.data(), refs.size(), &reg, opts0.max_tasks);
  RunOptions opts = opts0;
  opts.on_output = [&](size_t i, const Block *b) {
    const Out &o = outs[i];
    const Array &a = *arrays[o.array];
    const Index *bi = at(idx, o.first);
    if (b->ndim != a.ndim())
      fail(CA_EKERNEL, "block ", key_str(a.name, bi, a.ndim()), " has ", b->ndim, " dimensions, the array has ",
           a.ndim());
    if (b->dtype != a.dtype)
      fail(CA_EKERNEL, "block ", key_str(a.name, bi, a.ndim()), " has dtype ", dtype_name(b->dtype),
           ", the array has ", dtype_name(a.dtype));
    for (int32_t d = 0; d < a.ndim(); ++d) {
      Index want = stop[o.first + size_t(d)] - start[o.first + size_t(d)];
      if (b->shape[d] != want)
        fail(CA_EKERNEL, "block ", key_str(a.name, bi, a.ndim()), " has extent ", b->shape[d], " along axis ", d,
             ", its chunks say ", want);
    }
    StoreRegion r;
    r.array = o.array;
    r.ndim = a.ndim();
    r.start = at(start, o.first);
    r.stop = at(stop, o.first);
    r.block_index = bi;
    sink(r, b);
  };
  ex.run(*plan, opts, stats);
}

}  // namespace ca
