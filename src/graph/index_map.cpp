// The index-map layer (index_map.hpp). In the graph layer (not the array layer) so the graph-file
// loader and its fuzz target (tests/fuzz/fuzz_load) build it.
#include "graph/index_map.hpp"

#include <array>
#include <cstring>

namespace ca {

namespace {

constexpr int64_t kMaxIndexMapTasks = int64_t(1) << 62;

class IndexMapLayer final : public Layer {
 public:
  explicit IndexMapLayer(std::string name, IndexMapSpec spec) : spec_(std::move(spec)) {
    name_ = std::move(name);
    nindex_ = int32_t(spec_.axes.size());
    deps_ = spec_.inputs;
    ntasks_ = 1;
    for (auto &ax : spec_.axes) {
      numblocks_.push_back(Index(ax.size()));
      ntasks_ *= Index(ax.size());
    }
    // Which kernels some task uses (see index_map.hpp's rule), from the kinds present per axis.
    std::array<bool, 4> any{};
    bool every_has_whole = true, every_has_nonfill = true, every_has_ws = true;
    int32_t repeat_axis = -1;
    bool strided_somewhere = false;
    for (size_t d = 0; d < spec_.axes.size(); ++d) {
      std::array<bool, 4> has{};
      for (auto &s : spec_.axes[d]) has[size_t(s.kind)] = true;
      for (size_t k = 0; k < 4; ++k) any[k] = any[k] || has[k];
      every_has_whole = every_has_whole && has[IndexMapSeg::Whole];
      every_has_nonfill = every_has_nonfill && (has[IndexMapSeg::Whole] || has[IndexMapSeg::Strided] ||
                                                has[IndexMapSeg::Repeat]);
      every_has_ws = every_has_ws && (has[IndexMapSeg::Whole] || has[IndexMapSeg::Strided]);
      strided_somewhere = strided_somewhere || has[IndexMapSeg::Strided];
      if (has[IndexMapSeg::Repeat]) repeat_axis = int32_t(d);
    }
    std::array<bool, 4> used{};
    if (ntasks_ > 0) {
      used[IndexMapSeg::Fill] = any[IndexMapSeg::Fill];
      used[IndexMapSeg::Repeat] = repeat_axis >= 0 && every_has_nonfill;
      used[IndexMapSeg::Strided] = strided_somewhere && every_has_ws;
      used[IndexMapSeg::Whole] = every_has_whole;
    }
    for (size_t k = 0; k < 4; ++k) {
      slot_[k] = -1;
      if (used[k]) {
        slot_[k] = int32_t(kernels_.size());
        kernels_.push_back(kIndexMapKernels[k]);
      }
    }
  }
  const IndexMapSpec &spec() const { return spec_; }
  LayerKind kind() const override { return LayerKind::IndexMap; }
  int64_t num_tasks() const override { return ntasks_; }
  int64_t find(const Index *idx) const override { return ntasks_ == 0 ? -1 : grid_find(numblocks_, idx); }
  void key_at(int64_t local, Index *idx) const override { grid_key_at(numblocks_, local, idx); }
  std::vector<Index> numblocks() const override { return numblocks_; }
  uint64_t fingerprint() const override {
    uint64_t h = hash_bytes(5, name_.data(), name_.size());
    for (auto &dep : deps_) h = hash_bytes(hash_mix(h, dep.size()), dep.data(), dep.size());
    for (auto &ax : spec_.axes) {
      h = hash_mix(h, uint64_t(ax.size()));
      for (auto &s : ax) {
        h = hash_mix(h, uint64_t(s.kind));
        h = hash_mix(h, uint64_t(s.input));
        h = hash_mix(h, uint64_t(s.block));
        h = hash_mix(h, uint64_t(s.start));
        h = hash_mix(h, uint64_t(s.step));
        h = hash_mix(h, uint64_t(s.count));
      }
    }
    h = hash_mix(h, uint64_t(int64_t(spec_.select_axis)));
    h = hash_mix(h, uint64_t(spec_.fill_dtype));
    h = hash_bytes(h, spec_.fill_value.data(), spec_.fill_value.size());
    return hash_mix(h, uint64_t(spec_.repeats));
  }

  void emit(int64_t local, TaskEmitter &e) const override {
    Index out[CA_MAX_NDIM + 1], in[CA_MAX_NDIM + 1];
    const IndexMapSeg *seg[CA_MAX_NDIM + 1] = {};
    key_at(local, out);
    bool fill = false, strided = false;
    int32_t repeat_axis = -1;
    for (int32_t d = 0; d < nindex_; ++d) {
      seg[d] = &spec_.axes[size_t(d)][size_t(out[d])];
      in[d] = seg[d]->block;
      fill = fill || seg[d]->kind == IndexMapSeg::Fill;
      strided = strided || seg[d]->kind == IndexMapSeg::Strided;
      if (seg[d]->kind == IndexMapSeg::Repeat) repeat_axis = d;
    }
    int64_t t[3 * (CA_MAX_NDIM + 1)];
    if (fill) {
      e.kernel(slot_[IndexMapSeg::Fill]);
      for (int32_t d = 0; d < nindex_; ++d) t[d] = seg[d]->count;
      e.literal_copy(ca_arg_tuple(t, size_t(nindex_)));
      e.literal(ca_arg_i64(spec_.fill_dtype));
      e.literal(ca_arg_bytes(spec_.fill_value.data(), spec_.fill_value.size()));
      return;
    }
    const int32_t dep = spec_.select_axis >= 0 && spec_.select_axis < nindex_ ? seg[spec_.select_axis]->input : 0;
    if (repeat_axis >= 0) {
      const IndexMapSeg &s = *seg[repeat_axis];
      e.kernel(slot_[IndexMapSeg::Repeat]);
      e.ref(dep, in, nindex_);
      e.literal(ca_arg_i64(repeat_axis));
      e.literal(ca_arg_i64(s.start));
      e.literal(ca_arg_i64(s.start + s.count));
      e.literal(ca_arg_i64(spec_.repeats));
    } else if (strided) {
      e.kernel(slot_[IndexMapSeg::Strided]);
      e.ref(dep, in, nindex_);
      for (int32_t d = 0; d < nindex_; ++d) {
        const bool whole = seg[d]->kind == IndexMapSeg::Whole;
        t[3 * d] = whole ? 0 : seg[d]->start;
        t[3 * d + 1] = whole ? 1 : seg[d]->step;
        t[3 * d + 2] = seg[d]->count;
      }
      e.literal_copy(ca_arg_tuple(t, size_t(3 * nindex_)));
    } else {
      e.kernel(slot_[IndexMapSeg::Whole]);
      e.ref(dep, in, nindex_);
    }
  }

 private:
  IndexMapSpec spec_;
  std::vector<Index> numblocks_;
  int64_t ntasks_ = 1;
  int32_t slot_[4] = {-1, -1, -1, -1};
};

}  // namespace

std::shared_ptr<Layer> make_index_map_layer(std::string name, IndexMapSpec spec) {
  const std::string where = "index-map layer '" + name + "'";
  const size_t nd = spec.axes.size();
  CA_CHECK(nd <= CA_MAX_NDIM, CA_EINVAL, where, ": ", nd, " dimensions (at most ", CA_MAX_NDIM, ")");
  CA_CHECK(!spec.inputs.empty(), CA_EINVAL, where, ": no input layer");
  for (auto &in : spec.inputs) CA_CHECK(!in.empty(), CA_EINVAL, where, ": an input layer name is empty");
  CA_CHECK(spec.select_axis >= -1 && spec.select_axis < int32_t(nd), CA_EINVAL, where, ": select axis ",
           spec.select_axis, " is out of range for ", nd, " dimensions");
  CA_CHECK(spec.inputs.size() == 1 || spec.select_axis >= 0, CA_EINVAL, where, ": ", spec.inputs.size(),
           " inputs but no select axis");
  int64_t ntasks = 1;
  bool has_fill = false;
  int32_t repeat_axis = -1;
  std::vector<bool> fill_axis(nd, false), unknown_axis(nd, false);
  for (size_t d = 0; d < nd; ++d) {
    const auto &ax = spec.axes[d];
    CA_CHECK(!ax.empty(), CA_EINVAL, where, ": axis ", d, " has no blocks");
    CA_CHECK(!__builtin_mul_overflow(ntasks, int64_t(ax.size()), &ntasks) && ntasks < kMaxIndexMapTasks, CA_EINVAL,
             where, ": the number of blocks overflows");
    for (size_t i = 0; i < ax.size(); ++i) {
      const IndexMapSeg &s = ax[i];
      CA_CHECK(s.kind >= IndexMapSeg::Whole && s.kind <= IndexMapSeg::Repeat, CA_EINVAL, where,
               ": unknown segment kind ", s.kind, " (block ", i, " of axis ", d, ")");
      CA_CHECK(s.input >= 0 && size_t(s.input) < spec.inputs.size(), CA_EINVAL, where, ": block ", i, " of axis ", d,
               " reads input ", s.input, " of ", spec.inputs.size());
      CA_CHECK(s.input == 0 || int32_t(d) == spec.select_axis, CA_EINVAL, where, ": block ", i, " of axis ", d,
               " picks input ", s.input, " but axis ", d, " is not the select axis");
      CA_CHECK(s.block >= 0 && s.start >= 0, CA_EINVAL, where, ": block ", i, " of axis ", d,
               " has a negative input block or start");
      CA_CHECK(s.count >= 0 || (s.kind == IndexMapSeg::Whole && s.count == -1), CA_EINVAL, where, ": block ", i,
               " of axis ", d, " has count ", s.count);
      if (s.kind == IndexMapSeg::Fill) has_fill = true, fill_axis[d] = true;
      if (s.count < 0) unknown_axis[d] = true;
      if (s.kind == IndexMapSeg::Repeat) {
        CA_CHECK(repeat_axis < 0 || repeat_axis == int32_t(d), CA_EINVAL, where, ": Repeat segments on axes ",
                 repeat_axis, " and ", d, " (at most one repeated axis)");
        Index stop = 0;
        CA_CHECK(!__builtin_add_overflow(s.start, s.count, &stop), CA_EINVAL, where, ": block ", i, " of axis ", d,
                 ": the slab end overflows");
        repeat_axis = int32_t(d);
      }
    }
  }
  if (has_fill) {
    // A constant block's shape is its segments' counts: an unknown count may only sit on the axis
    // whose own segments are the constant ones (a constant pad of an axis of unknown size).
    for (size_t d = 0; d < nd; ++d)
      for (size_t e = 0; e < nd; ++e)
        CA_CHECK(!(unknown_axis[d] && fill_axis[e] && d != e), CA_EINVAL, where, ": axis ", d,
                 " has blocks of unknown size and axis ", e, " constant blocks");
    CA_CHECK(dtype_valid(spec.fill_dtype), CA_EINVAL, where, ": invalid fill dtype ", spec.fill_dtype);
    CA_CHECK(spec.fill_value.size() == dtype_size(spec.fill_dtype), CA_EINVAL, where, ": the fill value has ",
             spec.fill_value.size(), " bytes, an element of its dtype ", dtype_size(spec.fill_dtype));
  }
  CA_CHECK(repeat_axis < 0 || spec.repeats >= 0, CA_EINVAL, where, ": repeats ", spec.repeats, " is negative");
  return std::make_shared<IndexMapLayer>(std::move(name), std::move(spec));
}

const IndexMapSpec &index_map_spec(const Layer &l) {
  CA_CHECK(l.kind() == LayerKind::IndexMap, CA_EINTERNAL, "layer '", l.name(), "' is not an index-map layer");
  return static_cast<const IndexMapLayer &>(l).spec();
}

}  // namespace ca
