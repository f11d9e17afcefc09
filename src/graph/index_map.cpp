// The index-map layer (index_map.hpp). In the graph layer (not the array layer) so the graph-file
// loader and its fuzz target (tests/fuzz/fuzz_load) build it.
#include "graph/index_map.hpp"

#include "core/checked.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>

namespace ca {

namespace {

constexpr int64_t kMaxIndexMapTasks = int64_t(1) << 62;

// np.linspace(start, stop, num)[k] rounded half to even (dask's repeat slab boundaries; the same
// arithmetic as NumPy's: start + k * step, the last point exactly stop).
Index linspace_point(Index start, Index stop, int64_t num, Index k) {
  if (num == 1) return start;
  const double step = double(stop - start) / double(num - 1);
  double y = step == 0 ? double(start) : double(k) * step + double(start);
  if (k == num - 1) y = double(stop);
  return Index(std::nearbyint(y));
}

// Consecutive points of linspace(off, off + c, repeats), repeats <= c, are more than 1 apart
// (c / (repeats - 1) > 1) up to the float error of values near off + c: then no two round alike and
// the block has repeats - 1 slabs, the k-th between points k and k + 1.
bool slabs_closed_form(Index c, Index off, int64_t repeats) {
  const double step = double(c) / double(repeats - 1);
  return step - 1 > std::ldexp(double(off) + double(c) + 1, -48);
}

}  // namespace

Index repeat_slab_count(Index c, Index off, int64_t repeats) {
  if (repeats > c) return c;
  if (repeats < 2) return 0;
  if (slabs_closed_form(c, off, repeats)) return Index(repeats - 1);
  Index n = 0, prev = linspace_point(off, off + c, repeats, 0);
  for (Index k = 1; k < repeats; ++k) {
    const Index y = linspace_point(off, off + c, repeats, k);
    n += y != prev;
    prev = y;
  }
  return n;
}

void repeat_slab(Index c, Index off, int64_t repeats, Index k, Index *start, Index *count) {
  if (repeats > c) {
    *start = k;
    *count = 1;
    return;
  }
  if (slabs_closed_form(c, off, repeats)) {
    const Index a = linspace_point(off, off + c, repeats, k), b = linspace_point(off, off + c, repeats, k + 1);
    *start = a - off;
    *count = b - a;
    return;
  }
  Index prev = linspace_point(off, off + c, repeats, 0), seen = 0;
  for (Index p = 1; p < repeats; ++p) {
    const Index y = linspace_point(off, off + c, repeats, p);
    if (y == prev) continue;
    if (seen++ == k) {
      *start = prev - off;
      *count = y - prev;
      return;
    }
    prev = y;
  }
  fail(CA_EINTERNAL, "repeat slab ", k, " of a block of ", c, " elements is out of range");
}

namespace {

// What a checked spec derives: where each run starts, and the slab tables of a Slabs axis.
struct Derived {
  std::vector<std::vector<Index>> run_first;  // per axis: first output block of each run, then the total
  std::vector<std::vector<Index>> slab_first;  // per axis (Slabs runs): first slab of each table block, then the total
  std::vector<std::vector<Index>> slab_off;    // per axis (Slabs runs): element offset of each table block
};

class IndexMapLayer final : public Layer {
 public:
  IndexMapLayer(std::string name, IndexMapSpec spec, Derived dv) : spec_(std::move(spec)), dv_(std::move(dv)) {
    name_ = std::move(name);
    nindex_ = int32_t(spec_.runs.size());
    deps_ = spec_.inputs;
    ntasks_ = 1;
    for (auto &rf : dv_.run_first) {
      numblocks_.push_back(rf.back());
      ntasks_ *= rf.back();
    }
    // Which kernels some task uses (see index_map.hpp's rule), from the kinds present per axis.
    std::array<bool, 4> any{};
    bool every_has_whole = true, every_has_nonfill = true, every_has_ws = true;
    int32_t repeat_axis = -1;
    bool strided_somewhere = false;
    for (size_t d = 0; d < spec_.runs.size(); ++d) {
      std::array<bool, 4> has{};
      for (auto &u : spec_.runs[d]) has[size_t(u.kind)] = true;
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
    // The fingerprint is of the segments (what the layer computes), not of their encoding: a layer
    // loaded from a per-block file equals the one built now. O(blocks per axis), once.
    uint64_t h = hash_bytes(5, name_.data(), name_.size());
    for (auto &dep : deps_) h = hash_bytes(hash_mix(h, dep.size()), dep.data(), dep.size());
    for (int32_t d = 0; d < nindex_; ++d) {
      h = hash_mix(h, uint64_t(numblocks_[size_t(d)]));
      const auto &runs = spec_.runs[size_t(d)];
      for (size_t r = 0; r < runs.size(); ++r)
        for (Index j = 0; j < runs[r].n; ++j) {
          const IndexMapSeg s = seg_in_run(d, r, j);
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
    fingerprint_ = hash_mix(h, uint64_t(spec_.repeats));
  }
  const IndexMapSpec &spec() const { return spec_; }
  LayerKind kind() const override { return LayerKind::IndexMap; }
  int64_t num_tasks() const override { return ntasks_; }
  int64_t find(const Index *idx) const override { return ntasks_ == 0 ? -1 : grid_find(numblocks_, idx); }
  void key_at(int64_t local, Index *idx) const override { grid_key_at(numblocks_, local, idx); }
  std::vector<Index> numblocks() const override { return numblocks_; }
  uint64_t fingerprint() const override { return fingerprint_; }

  // The j-th output block of run r of axis d.
  IndexMapSeg seg_in_run(int32_t d, size_t r, Index j) const {
    const IndexMapRun &u = spec_.runs[size_t(d)][r];
    IndexMapSeg s;
    s.kind = u.kind;
    s.input = u.input;
    switch (u.rule) {
      case IndexMapRun::Affine: s.block = u.block + u.bstep * j; break;
      case IndexMapRun::Modular: s.block = u.block + j % u.bstep; break;
      default: {
        const auto &sf = dv_.slab_first[size_t(d)];
        const size_t b = size_t(std::upper_bound(sf.begin(), sf.end(), j) - sf.begin()) - 1;
        s.block = Index(b);
        repeat_slab((*spec_.tables[size_t(u.table)])[b], dv_.slab_off[size_t(d)][b], spec_.repeats, j - sf[b],
                    &s.start, &s.count);
        return s;
      }
    }
    if (u.table < 0) {
      s.start = u.start;
      s.step = u.step;
      s.count = u.count;
      return s;
    }
    const Index len = (*spec_.tables[size_t(u.table)])[size_t(s.block)];
    s.step = u.step;
    s.start = u.step < 0 ? std::max<Index>(len - 1, 0) : 0;
    s.count = len;
    return s;
  }
  IndexMapSeg segment(int32_t d, Index i) const {
    CA_CHECK(d >= 0 && d < nindex_ && i >= 0 && i < numblocks_[size_t(d)], CA_EINTERNAL, "index-map layer '", name_,
             "': no block ", i, " along axis ", d);
    const auto &rf = dv_.run_first[size_t(d)];
    const size_t r = size_t(std::upper_bound(rf.begin(), rf.end() - 1, i) - rf.begin()) - 1;
    return seg_in_run(d, r, i - rf[r]);
  }

  void emit(int64_t local, TaskEmitter &e) const override {
    Index out[CA_MAX_NDIM + 1], in[CA_MAX_NDIM + 1];
    IndexMapSeg seg[CA_MAX_NDIM + 1];
    key_at(local, out);
    bool fill = false, strided = false;
    int32_t repeat_axis = -1;
    for (int32_t d = 0; d < nindex_; ++d) {
      seg[d] = segment(d, out[d]);
      in[d] = seg[d].block;
      fill = fill || seg[d].kind == IndexMapSeg::Fill;
      strided = strided || seg[d].kind == IndexMapSeg::Strided;
      if (seg[d].kind == IndexMapSeg::Repeat) repeat_axis = d;
    }
    int64_t t[3 * (CA_MAX_NDIM + 1)];
    if (fill) {
      e.kernel(slot_[IndexMapSeg::Fill]);
      for (int32_t d = 0; d < nindex_; ++d) t[d] = seg[d].count;
      e.literal_copy(ca_arg_tuple(t, size_t(nindex_)));
      e.literal(ca_arg_i64(spec_.fill_dtype));
      e.literal(ca_arg_bytes(spec_.fill_value.data(), spec_.fill_value.size()));
      return;
    }
    const int32_t dep = spec_.select_axis >= 0 && spec_.select_axis < nindex_ ? seg[spec_.select_axis].input : 0;
    if (repeat_axis >= 0) {
      const IndexMapSeg &s = seg[repeat_axis];
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
        const bool whole = seg[d].kind == IndexMapSeg::Whole;
        t[3 * d] = whole ? 0 : seg[d].start;
        t[3 * d + 1] = whole ? 1 : seg[d].step;
        t[3 * d + 2] = seg[d].count;
      }
      e.literal_copy(ca_arg_tuple(t, size_t(3 * nindex_)));
    } else {
      e.kernel(slot_[IndexMapSeg::Whole]);
      e.ref(dep, in, nindex_);
    }
  }

 private:
  IndexMapSpec spec_;
  Derived dv_;
  std::vector<Index> numblocks_;
  int64_t ntasks_ = 1;
  uint64_t fingerprint_ = 0;
  int32_t slot_[4] = {-1, -1, -1, -1};
};

}  // namespace

void index_map_push_segment(std::vector<IndexMapRun> &runs, const IndexMapSeg &g, int32_t table,
                            const std::vector<Index> *tab) {
  IndexMapRun u;
  u.kind = g.kind;
  u.input = g.input;
  u.block = g.block;
  u.start = g.start;
  u.step = g.step;
  u.count = g.count;
  if (table >= 0 && tab && g.block >= 0 && g.block < Index(tab->size())) {
    const Index len = (*tab)[size_t(g.block)];
    const bool whole = g.kind == IndexMapSeg::Whole && g.start == 0 && g.step == 1 && g.count == len;
    const bool reversed = g.kind == IndexMapSeg::Strided && g.step == -1 && len >= 0 && g.count == len &&
                          g.start == std::max<Index>(len - 1, 0);
    if (whole || reversed) u.table = table, u.start = 0, u.count = 0;
  }
  if (!runs.empty()) {
    IndexMapRun &p = runs.back();
    if (p.rule == IndexMapRun::Affine && p.kind == u.kind && p.input == u.input && p.table == u.table &&
        p.start == u.start && p.step == u.step && p.count == u.count) {
      Index diff = 0, next = 0;
      if (p.n == 1 && !__builtin_sub_overflow(u.block, p.block, &diff) && diff >= -1 && diff <= 1) {
        p.bstep = diff;
        p.n = 2;
        return;
      }
      if (p.n > 1 && !__builtin_add_overflow(p.block, p.bstep * p.n, &next) && next == u.block) {
        ++p.n;
        return;
      }
    }
  }
  runs.push_back(u);
}

std::shared_ptr<Layer> make_index_map_layer(std::string name, IndexMapSpec spec) {
  const std::string where = "index-map layer '" + name + "'";
  if (!spec.axes.empty()) {
    CA_CHECK(spec.runs.empty(), CA_EINVAL, where, ": both per-block segments and runs given");
    for (auto &ax : spec.axes) {
      spec.runs.emplace_back();
      for (const IndexMapSeg &g : ax) index_map_push_segment(spec.runs.back(), g, -1, nullptr);
    }
    spec.axes.clear();
    spec.axes.shrink_to_fit();
  }
  const size_t nd = spec.runs.size();
  CA_CHECK(nd <= CA_MAX_NDIM, CA_EINVAL, where, ": ", nd, " dimensions (at most ", CA_MAX_NDIM, ")");
  CA_CHECK(!spec.inputs.empty(), CA_EINVAL, where, ": no input layer");
  for (auto &in : spec.inputs) CA_CHECK(!in.empty(), CA_EINVAL, where, ": an input layer name is empty");
  CA_CHECK(spec.select_axis >= -1 && spec.select_axis < int32_t(nd), CA_EINVAL, where, ": select axis ",
           spec.select_axis, " is out of range for ", nd, " dimensions");
  CA_CHECK(spec.inputs.size() == 1 || spec.select_axis >= 0, CA_EINVAL, where, ": ", spec.inputs.size(),
           " inputs but no select axis");
  for (size_t t = 0; t < spec.tables.size(); ++t) {
    CA_CHECK(spec.tables[t] != nullptr, CA_EINVAL, where, ": chunk table ", t, " is missing");
    for (Index c : *spec.tables[t])
      CA_CHECK(c >= -1, CA_EINVAL, where, ": chunk table ", t, " holds the size ", c);
  }
  Derived dv;
  dv.run_first.resize(nd);
  dv.slab_first.resize(nd);
  dv.slab_off.resize(nd);
  int64_t ntasks = 1;
  bool has_fill = false;
  int32_t repeat_axis = -1;
  std::vector<bool> fill_axis(nd, false), unknown_axis(nd, false);
  for (size_t d = 0; d < nd; ++d) {
    const auto &runs = spec.runs[d];
    Index total = 0;
    for (size_t r = 0; r < runs.size(); ++r) {
      const IndexMapRun &u = runs[r];
      // (Formatted only on failure: a per-block file may hold a run per block.)
      auto at = [&] { return str(where, ": run ", r, " (output block ", total, ") of axis ", d); };
      CA_CHECK(u.kind >= IndexMapSeg::Whole && u.kind <= IndexMapSeg::Repeat, CA_EINVAL, at(), ": unknown segment kind ",
               u.kind);
      CA_CHECK(u.rule >= IndexMapRun::Affine && u.rule <= IndexMapRun::Slabs, CA_EINVAL, at(), ": unknown block rule ",
               u.rule);
      CA_CHECK(u.input >= 0 && size_t(u.input) < spec.inputs.size(), CA_EINVAL, at(), " reads input ", u.input, " of ",
               spec.inputs.size());
      CA_CHECK(u.input == 0 || int32_t(d) == spec.select_axis, CA_EINVAL, at(), " picks input ", u.input, " but axis ",
               d, " is not the select axis");
      CA_CHECK(u.n >= 1, CA_EINVAL, at(), " has ", u.n, " blocks");
      CA_CHECK(u.table >= -1 && u.table < int32_t(spec.tables.size()), CA_EINVAL, at(), ": chunk table ", u.table,
               " of ", spec.tables.size());
      const std::vector<Index> *tab = u.table >= 0 ? spec.tables[size_t(u.table)].get() : nullptr;
      const Index tb = tab ? Index(tab->size()) : std::numeric_limits<Index>::max();
      // The input blocks the run reads: [lo, hi] (Slabs: the whole table).
      Index lo = u.block, hi = u.block;
      if (u.rule == IndexMapRun::Affine) {
        CA_CHECK(u.bstep >= -1 && u.bstep <= 1, CA_EINVAL, at(), ": block step ", u.bstep, " (-1, 0 or 1)");
        Index last = 0;
        CA_CHECK(!__builtin_mul_overflow(u.bstep, u.n - 1, &last) && !__builtin_add_overflow(u.block, last, &last),
                 CA_EINVAL, at(), ": the input blocks overflow");
        lo = std::min(u.block, last), hi = std::max(u.block, last);
      } else if (u.rule == IndexMapRun::Modular) {
        CA_CHECK(u.bstep >= 1, CA_EINVAL, at(), ": period ", u.bstep, " (at least 1)");
        CA_CHECK(!__builtin_add_overflow(u.block, std::min(u.bstep, u.n) - 1, &hi), CA_EINVAL, at(),
                 ": the input blocks overflow");
      } else {
        CA_CHECK(u.kind == IndexMapSeg::Repeat && tab && u.block == 0 && u.bstep == 0 && u.start == 0 &&
                     u.count == 0 && u.step == 1,
                 CA_EINVAL, at(), ": a slab run must be a Repeat run over a chunk table (block 0, step 0)");
        CA_CHECK(spec.repeats >= 2, CA_EINVAL, at(), ": slab runs need repeats >= 2, not ", spec.repeats);
        CA_CHECK(!tab->empty(), CA_EINVAL, at(), ": slab run over an empty chunk table");
        lo = 0, hi = tb - 1;
      }
      CA_CHECK(lo >= 0, CA_EINVAL, at(), " has a negative input block");
      CA_CHECK(hi < tb, CA_EINVAL, at(), " reads input block ", hi, " of a chunk table of ", tb);
      if (tab) {
        CA_CHECK(u.kind != IndexMapSeg::Fill, CA_EINVAL, at(), ": constant blocks take no chunk table");
        CA_CHECK(u.kind != IndexMapSeg::Repeat || u.rule == IndexMapRun::Slabs, CA_EINVAL, at(),
                 ": a repeated slab over a chunk table must be a slab run");
        CA_CHECK(u.start == 0 && u.count == 0 && (u.step == 1 || (u.kind == IndexMapSeg::Strided && u.step == -1)),
                 CA_EINVAL, at(), ": sizes from a chunk table leave start 0, count 0 and step 1 (-1: reversed)");
        for (Index b = lo; b <= hi; ++b) {
          const Index c = (*tab)[size_t(b)];
          CA_CHECK(c >= 0 || u.kind == IndexMapSeg::Whole, CA_EINVAL, at(), ": input block ", b,
                   " has an unknown size");
          if (c < 0) unknown_axis[d] = true;
        }
      } else {
        CA_CHECK(u.start >= 0, CA_EINVAL, at(), " has a negative start");
        CA_CHECK(u.count >= 0 || (u.kind == IndexMapSeg::Whole && u.count == -1), CA_EINVAL, at(), " has count ",
                 u.count);
        if (u.count < 0) unknown_axis[d] = true;
        if (u.kind == IndexMapSeg::Repeat) {
          Index stop = 0;
          CA_CHECK(!__builtin_add_overflow(u.start, u.count, &stop), CA_EINVAL, at(), ": the slab end overflows");
        }
      }
      if (u.rule == IndexMapRun::Slabs) {
        CA_CHECK(dv.slab_first[d].empty(), CA_EINVAL, at(), ": a second slab run on the axis");
        auto &sf = dv.slab_first[d];
        auto &so = dv.slab_off[d];
        Index off = 0, first = 0;
        for (Index c : *tab) {
          sf.push_back(first);
          so.push_back(off);
          CA_CHECK(!__builtin_add_overflow(off, c, &off), CA_EINVAL, at(), ": the chunk table's extent overflows");
          // A block has at least (repeats - 1) / 2 slabs when repeats <= its size (consecutive
          // points are about 1 apart or more): checked first, so the count stays O(n).
          CA_CHECK(spec.repeats > c || spec.repeats - 1 <= 2 * (u.n - first) + 2, CA_EINVAL, at(), " has ", u.n,
                   " blocks, fewer than its chunk table's slabs");
          first += repeat_slab_count(c, so.back(), spec.repeats);
          CA_CHECK(first <= u.n, CA_EINVAL, at(), " has ", u.n, " blocks, fewer than its chunk table's slabs");
        }
        sf.push_back(first);
        CA_CHECK(first == u.n, CA_EINVAL, at(), " has ", u.n, " blocks but its chunk table makes ", first, " slabs");
      }
      if (u.kind == IndexMapSeg::Fill) has_fill = true, fill_axis[d] = true;
      if (u.kind == IndexMapSeg::Repeat) {
        CA_CHECK(repeat_axis < 0 || repeat_axis == int32_t(d), CA_EINVAL, where, ": Repeat segments on axes ",
                 repeat_axis, " and ", d, " (at most one repeated axis)");
        repeat_axis = int32_t(d);
      }
      dv.run_first[d].push_back(total);
      CA_CHECK(!__builtin_add_overflow(total, u.n, &total), CA_EINVAL, where, ": the number of blocks overflows");
    }
    dv.run_first[d].push_back(total);
    CA_CHECK(total > 0, CA_EINVAL, where, ": axis ", d, " has no blocks");
    CA_CHECK(total <= kMaxBlocksPerAxis, CA_EINVAL, where, ": axis ", d, " has ", total, " blocks (at most ",
             kMaxBlocksPerAxis, ")");
    CA_CHECK(!__builtin_mul_overflow(ntasks, total, &ntasks) && ntasks < kMaxIndexMapTasks, CA_EINVAL, where,
             ": the number of blocks overflows");
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
  return std::make_shared<IndexMapLayer>(std::move(name), std::move(spec), std::move(dv));
}

const IndexMapSpec &index_map_spec(const Layer &l) {
  CA_CHECK(l.kind() == LayerKind::IndexMap, CA_EINTERNAL, "layer '", l.name(), "' is not an index-map layer");
  return static_cast<const IndexMapLayer &>(l).spec();
}

IndexMapSeg index_map_segment(const Layer &l, int32_t d, Index i) {
  CA_CHECK(l.kind() == LayerKind::IndexMap, CA_EINTERNAL, "layer '", l.name(), "' is not an index-map layer");
  return static_cast<const IndexMapLayer &>(l).segment(d, i);
}

}  // namespace ca
