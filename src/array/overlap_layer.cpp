// The overlap layer (OverlapLayer, LayerKind::Overlap) and the checks of its spec. Kept apart from
// overlap.cpp (the array operations) so the graph-file loader and its fuzz target
// (tests/fuzz/fuzz_load) build it without the array layer.
#include <chunkarray/overlap.h>

#include <algorithm>
#include <cstring>

#include "array/overlap.hpp"

namespace ca {

void check_overlap_spec(const Depth &depth, const std::vector<BoundarySpec> &boundary, int32_t ndim,
                        const char *what) {
  CA_CHECK(int32_t(depth.lo.size()) == ndim && int32_t(depth.hi.size()) == ndim &&
               int32_t(boundary.size()) == ndim,
           CA_EINTERNAL, what, ": depth/boundary do not have ", ndim, " entries");
  for (int32_t d = 0; d < ndim; ++d) {
    Index lo = depth.lo[size_t(d)], hi = depth.hi[size_t(d)];
    CA_CHECK(lo >= 0 && hi >= 0, CA_EINVAL, what, ": depth along axis ", d, " is negative (",
             lo < 0 ? lo : hi, ")");
    int32_t k = boundary[size_t(d)].kind;
    CA_CHECK(k >= CA_BOUNDARY_NONE && k <= CA_BOUNDARY_CONSTANT, CA_EINVAL, what, ": unknown boundary kind ", k,
             " for axis ", d, " (use CA_BOUNDARY_NONE, _REFLECT, _PERIODIC, _NEAREST or _CONSTANT)");
    if (lo != hi && k != CA_BOUNDARY_NONE)
      fail(CA_EUNSUPPORTED, what, ": asymmetric overlap (depth ", lo, " before, ", hi, " after) along axis ", d,
           " is only implemented for boundary none, axis ", d, " has boundary ", overlap_boundary_name(k));
  }
}

const char *overlap_boundary_name(int32_t kind) {
  switch (kind) {
    case CA_BOUNDARY_NONE: return "none";
    case CA_BOUNDARY_REFLECT: return "reflect";
    case CA_BOUNDARY_PERIODIC: return "periodic";
    case CA_BOUNDARY_NEAREST: return "nearest";
    case CA_BOUNDARY_CONSTANT: return "constant";
    default: return "unknown";
  }
}

// ------------------------------------------------------------------------------------------------
// OverlapLayer

namespace {

class OverlapLayer final : public Layer {
 public:
  OverlapLayer(std::string name, OverlapLayerSpec spec)
      : spec_(std::move(spec)), in_chunks_(spec_.in_chunks), depth_(spec_.depth), bnd_(spec_.boundary) {
    name_ = std::move(name);
    nindex_ = int32_t(in_chunks_.size());
    deps_ = {spec_.input};
    kernels_ = {"ca.overlap_block"};
    ntasks_ = 1;
    nlist_ = 1;
    for (size_t d = 0; d < in_chunks_.size(); ++d) {
      numblocks_.push_back(Index(in_chunks_[d].size()));
      ntasks_ *= numblocks_.back();
      active_.push_back(depth_.lo[d] > 0 || depth_.hi[d] > 0);
      if (active_.back()) nlist_ *= 3;
    }
    consts_.resize(in_chunks_.size());
    for (size_t d = 0; d < bnd_.size(); ++d) consts_[d] = bnd_[d].value;
  }
  OverlapLayer(const OverlapLayer &) = delete;  // the references below point into spec_
  OverlapLayer &operator=(const OverlapLayer &) = delete;
  const OverlapLayerSpec &spec() const { return spec_; }
  LayerKind kind() const override { return LayerKind::Overlap; }
  int64_t num_tasks() const override { return ntasks_; }
  int64_t find(const Index *idx) const override { return ntasks_ == 0 ? -1 : grid_find(numblocks_, idx); }
  void key_at(int64_t local, Index *idx) const override { grid_key_at(numblocks_, local, idx); }
  std::vector<Index> numblocks() const override { return numblocks_; }
  uint64_t fingerprint() const override {
    uint64_t h = hash_bytes(4, name_.data(), name_.size());
    h = hash_bytes(h, deps_[0].data(), deps_[0].size());
    for (auto &c : in_chunks_) h = hash_bytes(h, c.data(), c.size() * sizeof(Index));
    h = hash_bytes(h, depth_.lo.data(), depth_.lo.size() * sizeof(Index));
    h = hash_bytes(h, depth_.hi.data(), depth_.hi.size() * sizeof(Index));
    for (auto &b : bnd_) {
      h = hash_mix(h, uint64_t(b.kind));
      h = hash_bytes(h, &b.value, sizeof b.value);
    }
    return h;
  }

  void emit(int64_t local, TaskEmitter &e) const override {
    Index out[CA_MAX_NDIM + 1], in[CA_MAX_NDIM + 1];
    int32_t off[CA_MAX_NDIM + 1];
    key_at(local, out);
    e.kernel(0);
    // Neighbours: C order over the active axes, offsets -1, 0, +1.
    e.begin_list(static_cast<size_t>(nlist_));
    for (int32_t d = 0; d < nindex_; ++d) off[d] = active_[size_t(d)] ? -1 : 0;
    for (int64_t c = 0; c < nlist_; ++c) {
      bool valid = true;
      for (int32_t d = 0; d < nindex_ && valid; ++d) {
        in[d] = out[d] + off[d];
        if (off[d] < 0 && depth_.lo[size_t(d)] == 0) valid = false;
        if (off[d] > 0 && depth_.hi[size_t(d)] == 0) valid = false;
        if (in[d] < 0 || in[d] >= numblocks_[size_t(d)]) {
          if (bnd_[size_t(d)].kind == CA_BOUNDARY_PERIODIC)
            in[d] = (in[d] + numblocks_[size_t(d)]) % numblocks_[size_t(d)];
          else
            valid = false;
        }
      }
      if (valid)
        e.ref(0, in, nindex_);
      else
        e.literal(ca_arg_none());
      // next offset combination
      for (int32_t d = nindex_ - 1; d >= 0; --d) {
        if (!active_[size_t(d)]) continue;
        if (++off[d] <= 1) break;
        off[d] = -1;
      }
    }
    e.end_list();
    // Geometry: per axis (active, lo, hi, left mode, right mode).
    int64_t geom[OverlapGeom::kPerDim * (CA_MAX_NDIM + 1)];
    for (int32_t d = 0; d < nindex_; ++d) {
      int64_t *g = geom + OverlapGeom::kPerDim * d;
      Index lo = depth_.lo[size_t(d)], hi = depth_.hi[size_t(d)];
      bool first = out[d] == 0, last = out[d] == numblocks_[size_t(d)] - 1;
      int32_t edge_mode = OverlapGeom::mode_of(bnd_[size_t(d)].kind);
      int32_t lm = lo == 0 ? OverlapGeom::kNone : first ? edge_mode : OverlapGeom::kNeighbour;
      int32_t rm = hi == 0 ? OverlapGeom::kNone : last ? edge_mode : OverlapGeom::kNeighbour;
      g[0] = active_[size_t(d)] ? 1 : 0;
      g[1] = lm == OverlapGeom::kNone ? 0 : lo;
      g[2] = rm == OverlapGeom::kNone ? 0 : hi;
      g[3] = lm;
      g[4] = rm;
    }
    e.literal_copy(ca_arg_tuple(geom, size_t(OverlapGeom::kPerDim * nindex_)));
    e.literal(ca_arg_bytes(consts_.data(), consts_.size() * sizeof(double)));
  }

 private:
  OverlapLayerSpec spec_;
  const Chunks &in_chunks_;
  const Depth &depth_;
  const std::vector<BoundarySpec> &bnd_;
  std::vector<Index> numblocks_;
  std::vector<bool> active_;
  std::vector<double> consts_;
  int64_t ntasks_ = 1;
  int64_t nlist_ = 1;
};

}  // namespace

std::shared_ptr<Layer> make_overlap_layer(std::string name, OverlapLayerSpec spec) {
  const size_t nd = spec.in_chunks.size();
  CA_CHECK(nd <= CA_MAX_NDIM, CA_EINVAL, "overlap layer '", name, "': ", nd, " dimensions (at most ", CA_MAX_NDIM, ")");
  CA_CHECK(!spec.input.empty(), CA_EINVAL, "overlap layer '", name, "': no input layer");
  check_overlap_spec(spec.depth, spec.boundary, int32_t(nd), "overlap layer");
  int32_t active = 0;
  int64_t ntasks = 1;
  for (size_t d = 0; d < nd; ++d) {
    for (Index c : spec.in_chunks[d])
      CA_CHECK(c >= 0, CA_EINVAL, "overlap layer '", name, "': negative chunk size ", c, " along axis ", d);
    CA_CHECK(!__builtin_mul_overflow(ntasks, int64_t(spec.in_chunks[d].size()), &ntasks), CA_EINVAL,
             "overlap layer '", name, "': the number of blocks overflows");
    active += (spec.depth.lo[d] > 0 || spec.depth.hi[d] > 0) ? 1 : 0;
  }
  CA_CHECK(active <= kMaxOverlapAxes, CA_EINVAL, "overlap layer '", name, "': ", active,
           " overlapped axes (at most ", kMaxOverlapAxes, ")");
  return std::make_shared<OverlapLayer>(std::move(name), std::move(spec));
}

const OverlapLayerSpec &overlap_layer_spec(const Layer &l) {
  CA_CHECK(l.kind() == LayerKind::Overlap, CA_EINTERNAL, "layer '", l.name(), "' is not an overlap layer");
  return static_cast<const OverlapLayer &>(l).spec();
}

}  // namespace ca
