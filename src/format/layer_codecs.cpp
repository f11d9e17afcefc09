// The layer-kind registry (layer_codecs.hpp) and the codecs of overlap and index-map layers.
#include "format/layer_codecs.hpp"

#include <chunkarray/overlap.h>

#include <array>
#include <cstring>

#include "array/overlap.hpp"
#include "graph/index_map.hpp"

namespace ca::format {

namespace s = schema;

namespace {

constexpr const char *kOverlapKernel = "ca.overlap_block";

template <class L>
std::vector<int64_t> to_vector(L list) {
  std::vector<int64_t> v;
  v.reserve(list.size());
  for (auto x : list) v.push_back(x);
  return v;
}

void save_overlap_layer(const Layer &l, s::Layer::Builder lb, const KernelVersionFn &versions) {
  const OverlapLayerSpec &sp = overlap_layer_spec(l);
  CA_CHECK(l.deps().size() == 1 && l.deps()[0] == sp.input, CA_EINTERNAL, "overlap layer '", l.name(),
           "' does not depend on its input alone");
  auto b = lb.initOverlap();
  std::vector<int32_t> kv = detail::versions_for(l, {kOverlapKernel}, versions);
  if (!kv.empty()) b.setKernelVersion(kv[0]);
  auto ch = b.initChunks(unsigned(sp.in_chunks.size()));
  for (size_t d = 0; d < sp.in_chunks.size(); ++d) {
    CA_CHECK(sp.in_chunks[d].size() < (size_t(1) << 29), CA_EUNSUPPORTED, "layer '", l.name(), "' has ",
             sp.in_chunks[d].size(), " blocks along one dimension: a graph file list holds at most 2^29 - 1");
    detail::fill_list(ch.init(unsigned(d), unsigned(sp.in_chunks[d].size())), sp.in_chunks[d]);
  }
  detail::fill_list(b.initDepthLo(unsigned(sp.depth.lo.size())), sp.depth.lo);
  detail::fill_list(b.initDepthHi(unsigned(sp.depth.hi.size())), sp.depth.hi);
  auto kinds = b.initBoundaryKind(unsigned(sp.boundary.size()));
  auto values = b.initBoundaryValue(unsigned(sp.boundary.size()));
  for (size_t d = 0; d < sp.boundary.size(); ++d) {
    kinds.set(unsigned(d), sp.boundary[d].kind);
    values.set(unsigned(d), sp.boundary[d].value);
  }
}

LayerPtr load_overlap_layer(LayerHead head, s::Layer::Reader lr) {
  const std::string where = "layer '" + head.name + "'";
  auto r = lr.getOverlap();
  CA_CHECK(head.deps.size() == 1, CA_EFORMAT, where, ": an overlap layer has ", head.deps.size(),
           " dependencies, not 1");
  const int32_t kernel_version = r.getKernelVersion();
  CA_CHECK(kernel_version >= 0, CA_EFORMAT, where, ": kernel '", kOverlapKernel, "' has negative version ",
           kernel_version);
  auto ch = r.getChunks();
  CA_CHECK(head.nindex <= CA_MAX_NDIM, CA_EFORMAT, where, ": ", head.nindex, " dimensions (at most ", CA_MAX_NDIM,
           ")");
  CA_CHECK(int32_t(ch.size()) == head.nindex, CA_EFORMAT, where, ": chunks have ", ch.size(), " dimensions, keys ",
           head.nindex);
  const size_t nd = ch.size();
  CA_CHECK(r.getDepthLo().size() == nd && r.getDepthHi().size() == nd && r.getBoundaryKind().size() == nd &&
               r.getBoundaryValue().size() == nd,
           CA_EFORMAT, where, ": depths and boundaries do not have one entry per dimension (", nd, ")");
  OverlapLayerSpec sp;
  sp.input = head.deps[0];
  int64_t ntasks = 1;
  for (unsigned d = 0; d < nd; ++d) {
    sp.in_chunks.push_back(to_vector(ch[d]));
    CA_CHECK(!__builtin_mul_overflow(ntasks, int64_t(sp.in_chunks.back().size()), &ntasks) && ntasks <= kMaxTasks,
             CA_EFORMAT, where, ": the number of blocks overflows");
  }
  sp.depth.lo = to_vector(r.getDepthLo());
  sp.depth.hi = to_vector(r.getDepthHi());
  for (unsigned d = 0; d < nd; ++d) {
    BoundarySpec b;
    b.kind = r.getBoundaryKind()[d];
    b.value = r.getBoundaryValue()[d];
    sp.boundary.push_back(b);
  }
  std::shared_ptr<Layer> layer;
  try {
    layer = make_overlap_layer(head.name, std::move(sp));
  } catch (const Error &e) {
    if (e.code() == CA_ENOMEM) throw;
    fail(CA_EFORMAT, where, ": ", e.message());
  }
  if (kernel_version != 0) layer->set_kernel_versions({kernel_version});
  return layer;
}

// ---- index-map layers (graph/index_map.hpp, format version 3) ----

void save_index_map_layer(const Layer &l, s::Layer::Builder lb, const KernelVersionFn &versions) {
  const IndexMapSpec &sp = index_map_spec(l);
  CA_CHECK(l.deps() == sp.inputs, CA_EINTERNAL, "index-map layer '", l.name(), "' does not depend on its inputs");
  auto b = lb.initIndexMap();
  std::vector<int32_t> kv = detail::versions_for(l, l.kernel_names(), versions);
  if (!kv.empty()) detail::fill_list(b.initKernelVersions(unsigned(kv.size())), kv);
  b.setSelectAxis(sp.select_axis);
  b.setFillDtype(sp.fill_dtype);
  b.setFillValue(capnp::Data::Reader(reinterpret_cast<const kj::byte *>(sp.fill_value.data()), sp.fill_value.size()));
  b.setRepeats(sp.repeats);
  // The run form (graph_file.capnp): O(runs) plus the chunk tables.
  CA_CHECK(sp.tables.size() < (size_t(1) << 29), CA_EUNSUPPORTED, "layer '", l.name(), "' has ", sp.tables.size(),
           " chunk tables: a graph file list holds at most 2^29 - 1");
  auto tables = b.initTables(unsigned(sp.tables.size()));
  for (size_t t = 0; t < sp.tables.size(); ++t) {
    const std::vector<Index> &tab = *sp.tables[t];
    CA_CHECK(tab.size() < (size_t(1) << 29), CA_EUNSUPPORTED, "layer '", l.name(), "' has ", tab.size(),
             " blocks along one dimension: a graph file list holds at most 2^29 - 1");
    detail::fill_list(tables.init(unsigned(t), unsigned(tab.size())), tab);
  }
  auto axes = b.initRuns(unsigned(sp.runs.size()));
  for (size_t d = 0; d < sp.runs.size(); ++d) {
    const auto &runs = sp.runs[d];
    CA_CHECK(runs.size() < (size_t(1) << 29), CA_EUNSUPPORTED, "layer '", l.name(), "' has ", runs.size(),
             " runs along one dimension: a graph file list holds at most 2^29 - 1");
    auto ra = axes[unsigned(d)].initRuns(unsigned(runs.size()));
    for (size_t r = 0; r < runs.size(); ++r) {
      const IndexMapRun &u = runs[r];
      auto w = ra[unsigned(r)];
      w.setKind(uint8_t(u.kind));
      w.setRule(uint8_t(u.rule));
      w.setInput(u.input);
      w.setTable(u.table);
      w.setN(u.n);
      w.setBlock(u.block);
      w.setBstep(u.bstep);
      w.setStart(u.start);
      w.setStep(u.step);
      w.setCount(u.count);
    }
  }
}

LayerPtr load_index_map_layer(LayerHead head, s::Layer::Reader lr) {
  const std::string where = "layer '" + head.name + "'";
  auto r = lr.getIndexMap();
  auto axes = r.getAxes();
  CA_CHECK(head.nindex <= CA_MAX_NDIM, CA_EFORMAT, where, ": ", head.nindex, " dimensions (at most ", CA_MAX_NDIM,
           ")");
  IndexMapSpec sp;
  sp.inputs = head.deps;
  sp.select_axis = r.getSelectAxis();
  sp.fill_dtype = r.getFillDtype();
  auto fv = r.getFillValue();
  sp.fill_value.assign(reinterpret_cast<const char *>(fv.begin()), fv.size());
  sp.repeats = r.getRepeats();
  auto runs = r.getRuns();
  auto tables = r.getTables();
  CA_CHECK(axes.size() == 0 || (runs.size() == 0 && tables.size() == 0), CA_EFORMAT, where,
           ": both per-block segments and runs");
  if (axes.size() == 0) {
    // The run form (or a 0-d layer, which has neither).
    CA_CHECK(int32_t(runs.size()) == head.nindex, CA_EFORMAT, where, ": ", runs.size(), " axes of runs, keys have ",
             head.nindex, " indices");
    for (unsigned t = 0; t < tables.size(); ++t) {
      auto tr = tables[t];
      auto tab = std::make_shared<std::vector<Index>>(tr.size());
      for (unsigned i = 0; i < tr.size(); ++i) (*tab)[i] = tr[i];
      sp.tables.push_back(std::move(tab));
    }
    for (unsigned d = 0; d < runs.size(); ++d) {
      auto ra = runs[d].getRuns();
      std::vector<IndexMapRun> rs(ra.size());
      for (unsigned i = 0; i < ra.size(); ++i) {
        auto w = ra[i];
        rs[i].kind = w.getKind();
        rs[i].rule = w.getRule();
        rs[i].input = w.getInput();
        rs[i].table = w.getTable();
        rs[i].n = w.getN();
        rs[i].block = w.getBlock();
        rs[i].bstep = w.getBstep();
        rs[i].start = w.getStart();
        rs[i].step = w.getStep();
        rs[i].count = w.getCount();
      }
      sp.runs.push_back(std::move(rs));
    }
  } else {
    CA_CHECK(int32_t(axes.size()) == head.nindex, CA_EFORMAT, where, ": ", axes.size(), " axes, keys have ",
             head.nindex, " indices");
  }
  for (unsigned d = 0; d < axes.size(); ++d) {
    // Each column's reader is taken once: Cap'n Proto charges a list's size to the traversal budget
    // (twice the message) at every get, so a get per element made files of ~100 blocks undecodable.
    auto a = axes[d];
    auto kind = a.getKind();
    auto input = a.getInput();
    auto block = a.getBlock();
    auto start = a.getStart();
    auto step = a.getStep();
    auto count = a.getCount();
    const unsigned n = kind.size();
    CA_CHECK(input.size() == n && block.size() == n && start.size() == n && step.size() == n && count.size() == n,
             CA_EFORMAT, where, ": the segment columns of axis ", d, " differ in length");
    std::vector<IndexMapSeg> segs(n);
    for (unsigned i = 0; i < n; ++i) {
      segs[i].kind = kind[i];
      segs[i].input = input[i];
      segs[i].block = block[i];
      segs[i].start = start[i];
      segs[i].step = step[i];
      segs[i].count = count[i];
    }
    sp.axes.push_back(std::move(segs));
  }
  std::shared_ptr<Layer> layer;
  try {
    layer = make_index_map_layer(head.name, std::move(sp));
  } catch (const Error &e) {
    if (e.code() == CA_ENOMEM) throw;
    fail(CA_EFORMAT, where, ": ", e.message());
  }
  auto kv = r.getKernelVersions();
  if (kv.size() > 0) {
    CA_CHECK(kv.size() == layer->kernel_names().size(), CA_EFORMAT, where, ": ", kv.size(),
             " kernel versions for ", layer->kernel_names().size(), " kernels");
    std::vector<int32_t> versions(kv.size());
    for (unsigned i = 0; i < kv.size(); ++i) {
      versions[i] = kv[i];
      CA_CHECK(versions[i] >= 0, CA_EFORMAT, where, ": kernel '", layer->kernel_names()[i], "' has negative version ",
               versions[i]);
    }
    layer->set_kernel_versions(std::move(versions));
  }
  return layer;
}

constexpr std::array<LayerCodec, 5> kCodecs = {{
    {LayerKind::Materialized, s::Layer::MATERIALIZED, "materialized", 1, detail::save_materialized_layer,
     detail::load_materialized_layer},
    {LayerKind::Blockwise, s::Layer::BLOCKWISE, "blockwise", 1, detail::save_blockwise_layer,
     detail::load_blockwise_layer},
    {LayerKind::Data, s::Layer::DATA, "data", 1, detail::save_data_layer, detail::load_data_layer},
    {LayerKind::Overlap, s::Layer::OVERLAP, "overlap", 2, save_overlap_layer, load_overlap_layer},
    {LayerKind::IndexMap, s::Layer::INDEX_MAP, "index-map", 3, save_index_map_layer, load_index_map_layer},
}};

// One case per kind and no default: a new LayerKind fails to compile here (-Wswitch, -Werror) until
// it has a codec, instead of being saved in a form nobody chose.
constexpr size_t codec_index(LayerKind k) {
  switch (k) {
    case LayerKind::Materialized: return 0;
    case LayerKind::Blockwise: return 1;
    case LayerKind::Data: return 2;
    case LayerKind::Overlap: return 3;
    case LayerKind::IndexMap: return 4;
  }
  return kCodecs.size();
}

constexpr bool table_consistent() {
  for (size_t i = 0; i < kCodecs.size(); ++i)
    if (codec_index(kCodecs[i].kind) != i || kCodecs[i].since_version < 1 || kCodecs[i].since_version > kFormatVersion)
      return false;
  return true;
}
static_assert(table_consistent(), "kCodecs must list every LayerKind at its codec_index, with a known version");

}  // namespace

const LayerCodec *layer_codec(LayerKind kind) noexcept {
  const size_t i = codec_index(kind);
  return i < kCodecs.size() ? &kCodecs[i] : nullptr;
}

const LayerCodec *layer_codec(s::Layer::Which tag) noexcept {
  for (const LayerCodec &c : kCodecs)
    if (c.tag == tag) return &c;
  return nullptr;
}

}  // namespace ca::format
