#include "dist/placement.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace ca::dist {

namespace {

// The elements task `t` takes from each of its dependencies when it is a rechunk's assembly.
bool assemble_pieces(const Plan &plan, int32_t t, std::vector<std::pair<int32_t, double>> &out) {
  static thread_local std::vector<AssemblyPiece> pieces;
  if (!assembly_pieces(plan, t, pieces)) return false;
  out.clear();
  for (const AssemblyPiece &p : pieces) {
    double e = 1;
    for (int32_t d = 0; d < p.ndim; ++d) e *= double(p.geom[2 * p.ndim + d]);
    out.push_back({p.task, e});
  }
  return true;
}

// Contiguous ranges of a layer's blocks, one per rank.
int32_t split_owner(const PlanTask &pt, int32_t nranks) {
  int64_t n = std::max<int64_t>(1, pt.layer->num_tasks());
  int64_t local = std::clamp<int64_t>(pt.local, 0, n - 1);
  return int32_t((__int128)local * nranks / n);
}

// A reduction's first step (ca.reduce_chunk with reduced axes): its result keeps one element per
// reduced line, far smaller than the block it reads or generates.
bool reduction_step(const Plan &plan, const PlanTask &pt) {
  const auto &names = pt.layer->kernel_names();
  if (names.size() != 1 || names[0] != "ca.reduce_chunk" || pt.nargs < 2) return false;
  const ca_arg_t &spec = plan.args[pt.arg_begin + 1];
  return spec.kind == CA_ARG_TUPLE && spec.u.tuple.len >= 4 && spec.u.tuple.items[3] != 0;
}

// Root of the placement: where a task without inputs goes. Its own layer's blocks are split in
// contiguous ranges; but when its first consumer belongs to a smaller layer (a contraction: a
// reduction level, a concatenation), the consumer's layer is split instead and the input follows
// its consumer, so every consumer finds its inputs local and only its result moves. Not when the
// source is itself a reduction's first step (a generated or read block reduced in the same task,
// W7's `x.mean(axis=0)` over random x): its work is the whole block and its result a small
// partial, so an even share of the blocks per rank matters more than the few partials that cross
// a range boundary (40 blocks in combine groups of 16 on 2 ranks: 20/20 and 4 partials sent,
// where following the groups gave 32/8).
int32_t root_owner(const Plan &plan, int32_t t, int32_t nranks) {
  const PlanTask &pt = plan.tasks[size_t(t)];
  int32_t b = plan.dependents_off[size_t(t)], e = plan.dependents_off[size_t(t) + 1];
  if (b < e && !reduction_step(plan, pt)) {
    const PlanTask &c = plan.tasks[size_t(plan.dependents[size_t(b)])];
    // (Not when the consumer's layer has fewer tasks than ranks: a reduction to one block would
    // put every source on rank 0.)
    if (c.layer->num_tasks() < pt.layer->num_tasks() && c.layer->num_tasks() >= nranks)
      return split_owner(c, nranks);
  }
  return split_owner(pt, nranks);
}

// Builtin kernels of layers without inputs whose blocks are a pure function of their index and
// arguments (create.cpp, routines.cpp): generated again on a rank rather than shipped to it.
bool generator_layer(const Layer &l) {
  static const char *const kGenerators[] = {"ca.fused", "ca.eye", "ca.tri", "ca.indices", "ca.random_multinomial"};
  if (l.kind() != LayerKind::Blockwise) return false;
  const auto &names = l.kernel_names();
  if (names.empty()) return false;
  for (const std::string &k : names)
    if (std::none_of(std::begin(kGenerators), std::end(kGenerators), [&](const char *g) { return k == g; }))
      return false;
  return true;
}

}  // namespace

std::vector<uint8_t> replicated(const Plan &plan, ca_placement_t policy) {
  const int32_t n = plan.size();
  std::vector<uint8_t> rep(size_t(n), 0);
  if (policy != CA_PLACEMENT_LOCALITY) return rep;
  std::vector<AssemblyPiece> pieces;
  for (int32_t t : topo_order(plan)) {
    const PlanTask &pt = plan.tasks[size_t(t)];
    // Not when a rechunk takes pieces of it: a piece is cheaper to send than the block to make.
    bool pieces_only = false;
    for (int32_t i = plan.dependents_off[size_t(t)]; i < plan.dependents_off[size_t(t) + 1] && !pieces_only; ++i)
      pieces_only = assembly_pieces(plan, plan.dependents[size_t(i)], pieces);
    if (pieces_only) continue;
    if (pt.dep_begin == pt.dep_end) {
      rep[size_t(t)] = generator_layer(*pt.layer);
      continue;
    }
    // A transpose of generated blocks: a copy as cheap as the bytes it would receive.
    const auto &names = pt.layer->kernel_names();
    if (pt.layer->kind() != LayerKind::Blockwise || names.size() != 1 || names[0] != "ca.shape.transpose") continue;
    bool all = true;
    for (int32_t i = pt.dep_begin; i < pt.dep_end && all; ++i) all = rep[size_t(plan.deps[size_t(i)])] != 0;
    rep[size_t(t)] = all;
  }
  return rep;
}

Runners::Runners(const Plan &plan, const std::vector<int32_t> &owner, const std::vector<uint8_t> &rep, int32_t root,
                 ca_dist_results_t results)
    : owner_(owner) {
  if (std::none_of(rep.begin(), rep.end(), [](uint8_t r) { return r != 0; })) return;
  rep_ = rep;
  const int32_t n = plan.size();
  sets_.resize(size_t(n));
  std::vector<int32_t> is_output(size_t(n), 0);
  for (int32_t o : plan.outputs) is_output[size_t(o)] = 1;
  // Consumers before producers: a replicated task runs wherever any of its consumers runs.
  std::vector<int32_t> order = topo_order(plan);
  for (size_t k = order.size(); k-- > 0;) {
    const int32_t t = order[k];
    if (!rep_[size_t(t)]) continue;
    auto &set = sets_[size_t(t)];
    for (int32_t i = plan.dependents_off[size_t(t)]; i < plan.dependents_off[size_t(t) + 1]; ++i) {
      auto s = of(plan.dependents[size_t(i)]);
      set.insert(set.end(), s.first, s.first + s.second);
    }
    if (is_output[size_t(t)]) set.push_back(results == CA_DIST_RESULTS_GATHER ? root : owner[size_t(t)]);
    if (set.empty()) set.push_back(owner[size_t(t)]);
    std::sort(set.begin(), set.end());
    set.erase(std::unique(set.begin(), set.end()), set.end());
    extra_ += int64_t(set.size()) - 1;
  }
}

std::vector<int32_t> topo_order(const Plan &plan) {
  // Kahn's algorithm from the roots in priority order (FIFO): deterministic for a given plan.
  const int32_t n = plan.size();
  std::vector<int32_t> pending(static_cast<size_t>(n)), order;
  order.reserve(size_t(n));
  for (int32_t t = 0; t < n; ++t) pending[size_t(t)] = plan.tasks[size_t(t)].dep_end - plan.tasks[size_t(t)].dep_begin;
  for (int32_t r : plan.roots) order.push_back(r);
  for (size_t i = 0; i < order.size(); ++i) {
    int32_t t = order[i];
    for (int32_t k = plan.dependents_off[size_t(t)]; k < plan.dependents_off[size_t(t) + 1]; ++k) {
      int32_t d = plan.dependents[size_t(k)];
      if (--pending[size_t(d)] == 0) order.push_back(d);
    }
  }
  return order;
}

const char *policy_name(ca_placement_t policy) {
  switch (policy) {
    case CA_PLACEMENT_LOCALITY: return "locality";
    case CA_PLACEMENT_ROUND_ROBIN: return "round-robin";
    case CA_PLACEMENT_LOCALITY_COUNT: return "locality-count";
    default: return nullptr;
  }
}

bool assembly_pieces(const Plan &plan, int32_t t, std::vector<AssemblyPiece> &out) {
  const PlanTask &pt = plan.tasks[size_t(t)];
  if (pt.nargs != 2) return false;
  const auto &names = pt.layer->kernel_names();
  if (std::find(names.begin(), names.end(), "ca.assemble") == names.end()) return false;
  const ca_arg_t &shape = plan.args[pt.arg_begin];
  const ca_arg_t &list = plan.args[pt.arg_begin + 1];
  if (shape.kind != CA_ARG_TUPLE || list.kind != CA_ARG_LIST) return false;
  const size_t nd = shape.u.tuple.len;
  out.clear();
  for (uint32_t p = pt.patch_begin; p < pt.patch_end; ++p) {
    const Patch &pa = plan.patches[p];
    if (size_t(pa.pos) + 1 >= plan.args.size()) return false;
    const ca_arg_t &g = plan.args[pa.pos + 1];
    if (g.kind != CA_ARG_TUPLE || g.u.tuple.len != 3 * nd) return false;
    out.push_back({pa.task, int32_t(nd), g.u.tuple.items});
  }
  return true;
}

bool piece_bounds(const Plan &plan, const std::vector<int32_t> &owner, int32_t t, int32_t r,
                  std::vector<AssemblyPiece> &scratch, std::vector<int64_t> &lo, std::vector<int64_t> &hi) {
  int32_t nd = -1;
  for (int32_t i = plan.dependents_off[size_t(t)]; i < plan.dependents_off[size_t(t) + 1]; ++i) {
    int32_t c = plan.dependents[size_t(i)];
    if (owner[size_t(c)] != r) continue;
    if (!assembly_pieces(plan, c, scratch)) return false;
    for (const AssemblyPiece &p : scratch) {
      if (p.task != t) continue;
      if (nd < 0) {
        nd = p.ndim;
        lo.assign(size_t(nd), INT64_MAX);
        hi.assign(size_t(nd), INT64_MIN);
      }
      if (p.ndim != nd) return false;
      for (int32_t d = 0; d < nd; ++d) {
        lo[size_t(d)] = std::min(lo[size_t(d)], p.geom[d]);
        hi[size_t(d)] = std::max(hi[size_t(d)], p.geom[d] + p.geom[2 * nd + d]);
      }
    }
  }
  return nd >= 0;
}

std::vector<double> estimate_bytes(const Plan &plan) {
  const int32_t n = plan.size();
  std::vector<double> est(size_t(n), 0.0);
  std::vector<std::pair<int32_t, double>> pieces;
  for (int32_t t : topo_order(plan)) {
    const PlanTask &pt = plan.tasks[size_t(t)];
    double e = -1;
    if (pt.layer->kind() == LayerKind::Data) {
      e = double(static_cast<const DataLayer *>(pt.layer)->block_bytes(pt.local));
    } else if (pt.layer->kind() == LayerKind::Blockwise) {
      const auto &ch = static_cast<const BlockwiseLayer *>(pt.layer)->chunks();
      // (A 0-d layer's one block is a scalar: e.g. a reduction over every axis.)
      if (ch.size() == size_t(pt.layer->nindex())) {
        Index idx[65];
        pt.layer->key_at(pt.local, idx);
        // A reduction's first step (ca.reduce_chunk(program, spec, ...), spec = {op, in dtype,
        // out dtype, axes mask, ...}) carries its input's chunks but keeps one element per
        // reduced line: the reduced axes do not count.
        uint64_t mask = 0;
        const auto &names = pt.layer->kernel_names();
        if (names.size() == 1 && names[0] == "ca.reduce_chunk" && pt.nargs >= 2 &&
            plan.args[pt.arg_begin + 1].kind == CA_ARG_TUPLE && plan.args[pt.arg_begin + 1].u.tuple.len >= 4)
          mask = uint64_t(plan.args[pt.arg_begin + 1].u.tuple.items[3]);
        e = double(kAssumedItemBytes);
        for (size_t d = 0; d < ch.size(); ++d)
          if (d >= 64 || !(mask >> d & 1)) e *= double(ch[d][size_t(idx[d])]);
      }
    }
    if (e < 0 && assemble_pieces(plan, t, pieces)) {
      e = 0;
      for (auto &p : pieces) e += p.second * double(kAssumedItemBytes);
    }
    if (e < 0) {
      if (pt.dep_begin == pt.dep_end) {
        e = double(kNominalBlockBytes);
      } else {
        e = 0;
        for (int32_t i = pt.dep_begin; i < pt.dep_end; ++i) e = std::max(e, est[size_t(plan.deps[size_t(i)])]);
      }
    }
    est[size_t(t)] = e;
  }
  return est;
}

namespace {

// Tasks whose inputs are all replicated (generated again on whichever rank needs them) are pinned
// nowhere by bytes: the vote would follow their generators' nominal owners (W5's Gram product
// `x @ x.T` of a random x put 12 of its 16 cost units on rank 0). When such tasks of one layer differ
// in cost (the Gram product's syrk blocks on the diagonal read one row block of x, its gemm blocks
// two, and do half the flops), the layer's free tasks are split into contiguous ranges of equal
// estimated cost instead — the cost of a task being the bytes of its distinct inputs. Layers whose
// free tasks all cost the same keep the vote (which already splits them evenly). Returns the tasks
// it placed (1) in `owner`.
std::vector<uint8_t> split_free_by_cost(const Plan &plan, int32_t nranks, const std::vector<double> &est,
                                        const std::vector<uint8_t> &rep, std::vector<int32_t> &owner) {
  const int32_t n = plan.size();
  std::vector<uint8_t> fixed(size_t(n), 0);
  struct Free {
    const Layer *layer;
    int64_t local;
    int32_t task;
    double cost;
  };
  std::vector<Free> free;
  std::vector<int32_t> deps;
  for (int32_t t = 0; t < n; ++t) {
    const PlanTask &pt = plan.tasks[size_t(t)];
    if (pt.dep_begin == pt.dep_end || rep[size_t(t)]) continue;
    deps.assign(plan.deps.begin() + pt.dep_begin, plan.deps.begin() + pt.dep_end);
    if (!std::all_of(deps.begin(), deps.end(), [&](int32_t d) { return rep[size_t(d)] != 0; })) continue;
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    double c = 0;
    for (int32_t d : deps) c += std::max(est[size_t(d)], 1.0);
    free.push_back({pt.layer, pt.local, t, c});
  }
  std::stable_sort(free.begin(), free.end(), [](const Free &a, const Free &b) {
    return a.layer != b.layer ? std::less<const Layer *>()(a.layer, b.layer) : a.local < b.local;
  });
  for (size_t b = 0; b < free.size();) {
    size_t e = b;
    double total = 0;
    bool uniform = true;
    while (e < free.size() && free[e].layer == free[b].layer) {
      total += free[e].cost;
      uniform = uniform && free[e].cost == free[b].cost;
      ++e;
    }
    if (!uniform && int64_t(e - b) >= nranks) {
      double before = 0;  // each task goes to the rank whose share holds the middle of its cost
      for (size_t i = b; i < e; ++i) {
        const double mid = before + free[i].cost / 2;
        owner[size_t(free[i].task)] = std::clamp(int32_t(mid * nranks / total), 0, nranks - 1);
        fixed[size_t(free[i].task)] = 1;
        before += free[i].cost;
      }
    }
    b = e;
  }
  return fixed;
}

}  // namespace

void transposed_outputs_at_root(const Plan &plan, std::vector<int32_t> &owner, int32_t root) {
  std::vector<uint8_t> is_output(owner.size(), 0);
  for (int32_t o : plan.outputs) is_output[size_t(o)] = 1;
  for (int32_t o : plan.outputs) {
    const PlanTask &pt = plan.tasks[size_t(o)];
    if (pt.dep_end - pt.dep_begin != 1 || !is_output[size_t(plan.deps[size_t(pt.dep_begin)])]) continue;
    if (pt.layer->kernel_of(pt.local) != "ca.shape.transpose") continue;
    owner[size_t(o)] = root;
  }
}

std::vector<int32_t> place(const Plan &plan, int32_t nranks, ca_placement_t policy,
                           const std::vector<uint8_t> *rep) {
  CA_CHECK(nranks >= 1, CA_EINVAL, "placement: ", nranks, " ranks (at least 1 needed)");
  CA_CHECK(policy_name(policy), CA_EINVAL, "placement: unknown policy ", policy,
           " (CA_PLACEMENT_LOCALITY 0, CA_PLACEMENT_ROUND_ROBIN 1 or CA_PLACEMENT_LOCALITY_COUNT 2)");
  const int32_t n = plan.size();
  std::vector<int32_t> owner(size_t(n), 0);
  // Blocks of a distributed array (a distributed persist) stay where they are: on as many ranks.
  for (const LayerPtr &l : plan.layers)
    if (l->kind() == LayerKind::Data) {
      const auto &dl = static_cast<const DataLayer &>(*l);
      CA_CHECK(!dl.distributed() || dl.nranks() == nranks, CA_EINVAL, "placement: array '", dl.name(),
               "' is distributed over ", dl.nranks(), " ranks and cannot be computed on ", nranks);
    }
  if (nranks == 1) return owner;
  const bool by_bytes = policy == CA_PLACEMENT_LOCALITY;
  std::vector<double> est;
  if (by_bytes) est = estimate_bytes(plan);
  // Scratch for the locality vote: weight per rank, reset after each task.
  std::vector<double> votes(size_t(nranks), 0.0);
  std::vector<std::pair<int32_t, double>> pieces;
  std::vector<uint8_t> fixed;
  if (by_bytes) {
    std::vector<uint8_t> own;
    if (!rep) own = replicated(plan, policy);
    fixed = split_free_by_cost(plan, nranks, est, rep ? *rep : own, owner);
  }
  // In a topological order: every task after its dependencies.
  for (int32_t t : topo_order(plan)) {
    const PlanTask &pt = plan.tasks[size_t(t)];
    if (!fixed.empty() && fixed[size_t(t)]) continue;
    if (pt.dep_begin == pt.dep_end) {
      if (pt.layer->kind() == LayerKind::Data && static_cast<const DataLayer *>(pt.layer)->distributed())
        owner[size_t(t)] = static_cast<const DataLayer *>(pt.layer)->home(pt.local);
      else
        owner[size_t(t)] = root_owner(plan, t, nranks);
      continue;
    }
    if (policy == CA_PLACEMENT_ROUND_ROBIN) {
      owner[size_t(t)] = t % nranks;
      continue;
    }
    // Inputs that are all broadcast (each from a layer with fewer tasks than this one: a mean
    // subtracted from every block, a reduction's result fused into the next elementwise pass) do
    // not attract: such a task is split by its own layer like a source, or every block of a wide
    // layer would follow one small input to one rank.
    bool broadcast_only = !by_bytes ? false : pt.layer->num_tasks() >= nranks;
    for (int32_t i = pt.dep_begin; i < pt.dep_end && broadcast_only; ++i)
      broadcast_only = plan.tasks[size_t(plan.deps[size_t(i)])].layer->num_tasks() < pt.layer->num_tasks();
    if (broadcast_only && !assemble_pieces(plan, t, pieces)) {
      owner[size_t(t)] = split_owner(pt, nranks);
      continue;
    }
    // Each input's weight: its estimated bytes (for a rechunk's assembly, the bytes of the piece it
    // takes from it), or 1 (CA_PLACEMENT_LOCALITY_COUNT). The rank with most weight wins.
    const bool assembly = by_bytes && assemble_pieces(plan, t, pieces);
    if (assembly)
      for (auto &p : pieces) votes[size_t(owner[size_t(p.first)])] += p.second;
    else
      for (int32_t i = pt.dep_begin; i < pt.dep_end; ++i) {
        int32_t d = plan.deps[size_t(i)];
        votes[size_t(owner[size_t(d)])] += by_bytes ? std::max(est[size_t(d)], 1.0) : 1.0;
      }
    int32_t best = owner[size_t(plan.deps[size_t(pt.dep_begin)])];
    for (int32_t i = pt.dep_begin; i < pt.dep_end; ++i) {  // in input order: ties go to the first
      int32_t r = owner[size_t(plan.deps[size_t(i)])];
      if (votes[size_t(r)] > votes[size_t(best)]) best = r;
    }
    // A rechunk's output block whose pieces weigh the same on several ranks (an all-to-all
    // rechunk): the tied rank nearest to its own block range, so the assemblies spread over the
    // ranks as evenly as the output's blocks instead of piling up on the first input's rank, and
    // each rank's output blocks stay contiguous (the pieces sent to it form one box per input).
    if (assembly) {  // the tied rank nearest to the output block's own range (lower on equal distance)
      const int32_t mine = split_owner(pt, nranks);
      const double top = votes[size_t(best)];
      for (int32_t i = pt.dep_begin; i < pt.dep_end; ++i) {
        int32_t r = owner[size_t(plan.deps[size_t(i)])];
        if (votes[size_t(r)] != top) continue;
        int32_t dr = std::abs(r - mine), db = std::abs(best - mine);
        if (dr < db || (dr == db && r < best)) best = r;
      }
    }
    for (int32_t i = pt.dep_begin; i < pt.dep_end; ++i) votes[size_t(owner[size_t(plan.deps[size_t(i)])])] = 0;
    owner[size_t(t)] = best;
  }
  return owner;
}

std::vector<ca_dist_rank_plan_t> summarize(const Plan &plan, const std::vector<int32_t> &owner, int32_t nranks,
                                           int32_t root, ca_dist_results_t results, ca_placement_t policy) {
  ca_dist_rank_plan_t zero;
  std::memset(&zero, 0, sizeof zero);
  zero.struct_size = sizeof zero;
  std::vector<ca_dist_rank_plan_t> out(size_t(nranks), zero);
  for (int32_t r = 0; r < nranks; ++r) out[size_t(r)].rank = r;
  const int32_t n = plan.size();
  const std::vector<double> est = estimate_bytes(plan);
  const bool gather = results == CA_DIST_RESULTS_GATHER;
  const Runners runs(plan, owner, replicated(plan, policy), root, results);
  std::vector<int32_t> is_output(size_t(n), 0);
  for (int32_t o : plan.outputs) is_output[size_t(o)] = 1;
  auto is_output_of = [&](int32_t t) { return is_output[size_t(t)] != 0; };
  auto keeper = [&](int32_t t) { return gather ? root : owner[size_t(t)]; };
  // Bytes a send of t to r carries: the whole block, or the box of it a rechunk's pieces take there
  // (as the compute sends it: its element count times the element size, known for in-memory data).
  std::vector<AssemblyPiece> scratch;
  std::vector<int64_t> lo, hi;
  auto send_bytes = [&](int32_t t, int32_t r) {
    if (is_output_of(t) || !piece_bounds(plan, owner, t, r, scratch, lo, hi)) return int64_t(est[size_t(t)]);
    int64_t e = 1;
    for (size_t d = 0; d < lo.size(); ++d) e *= hi[d] - lo[d];
    const PlanTask &pt = plan.tasks[size_t(t)];
    int64_t item = kAssumedItemBytes;
    if (pt.layer->kind() == LayerKind::Data) {
      if (const Block *b = static_cast<const DataLayer *>(pt.layer)->block(pt.local)) item = int64_t(dtype_size(b->dtype));
    }
    return e * item;
  };
  // Destination ranks per task (deduplicated with a stamp per rank).
  std::vector<int32_t> stamp(size_t(nranks), -1);
  // Per task: its consumers on each rank that still have to run.
  std::vector<std::vector<std::pair<int32_t, int32_t>>> pending(static_cast<size_t>(n));  // (rank, consumers left)
  for (int32_t t = 0; t < n; ++t) {
    const int32_t o = owner[size_t(t)];
    const bool rep = runs.is_replicated(t);
    auto rs = runs.of(t);
    for (size_t k = 0; k < rs.second; ++k) {
      out[size_t(rs.first[k])].tasks++;
      if (k > 0) out[size_t(rs.first[k])].tasks_replicated++;
    }
    auto &pv = pending[size_t(t)];
    auto send = [&](int32_t r) {
      stamp[size_t(r)] = t;
      const int64_t bytes = send_bytes(t, r);
      out[size_t(o)].blocks_out++;
      out[size_t(r)].blocks_in++;
      out[size_t(o)].bytes_out += bytes;
      out[size_t(r)].bytes_in += bytes;
    };
    for (int32_t i = plan.dependents_off[size_t(t)]; i < plan.dependents_off[size_t(t) + 1]; ++i) {
      auto cs = runs.of(plan.dependents[size_t(i)]);
      for (size_t k = 0; k < cs.second; ++k) {
        const int32_t r = cs.first[k];
        auto it = std::find_if(pv.begin(), pv.end(), [r](auto &p) { return p.first == r; });
        if (it == pv.end()) pv.push_back({r, 1});
        else it->second++;
        // (A replicated task is made on each rank needing it: nothing is sent.)
        if (!rep && r != o && stamp[size_t(r)] != t) send(r);
      }
    }
    if (!rep && is_output[size_t(t)] && keeper(t) != o && stamp[size_t(keeper(t))] != t) send(keeper(t));
  }
  // Peak held per rank, running the tasks in a topological order: a result is held from its task
  // (or arrival) until its last consumer on that rank ran; outputs stay on their keeper.
  std::vector<int64_t> live(size_t(nranks), 0);
  std::vector<double> live_bytes(size_t(nranks), 0.0);
  auto hold = [&](int32_t r, int32_t t, int sign) {
    live[size_t(r)] += sign;
    live_bytes[size_t(r)] += sign * est[size_t(t)];
    if (sign > 0) {
      out[size_t(r)].peak_blocks = std::max(out[size_t(r)].peak_blocks, live[size_t(r)]);
      out[size_t(r)].peak_bytes = std::max(out[size_t(r)].peak_bytes, int64_t(live_bytes[size_t(r)]));
    }
  };
  std::vector<int32_t> holders;
  for (int32_t t : topo_order(plan)) {
    // The result appears on the ranks running it and on every rank with consumers of it.
    auto rs = runs.of(t);
    holders.assign(rs.first, rs.first + rs.second);
    for (auto &p : pending[size_t(t)])
      if (std::find(holders.begin(), holders.end(), p.first) == holders.end()) holders.push_back(p.first);
    if (is_output[size_t(t)] && std::find(holders.begin(), holders.end(), keeper(t)) == holders.end())
      holders.push_back(keeper(t));
    for (int32_t r : holders) hold(r, t, +1);
    // Results nobody on a holder consumes (sent away, or an output kept elsewhere) are dropped.
    for (int32_t r : holders) {
      bool consumed = std::any_of(pending[size_t(t)].begin(), pending[size_t(t)].end(),
                                  [r](auto &p) { return p.first == r; });
      bool kept = is_output[size_t(t)] && r == keeper(t);
      if (!consumed && !kept) hold(r, t, -1);
    }
    // This task consumed its inputs on each rank running it.
    for (size_t k = 0; k < rs.second; ++k) {
      const int32_t o = rs.first[k];
      for (int32_t i = plan.tasks[size_t(t)].dep_begin; i < plan.tasks[size_t(t)].dep_end; ++i) {
        int32_t d = plan.deps[size_t(i)];
        for (auto &p : pending[size_t(d)])
          if (p.first == o && --p.second == 0) {
            bool kept = is_output[size_t(d)] && o == keeper(d);
            if (!kept) hold(o, d, -1);
          }
      }
    }
  }
  return out;
}

uint64_t plan_hash(const Plan &plan) {
  uint64_t h = hash_mix(0x6361646973747231ULL, uint64_t(plan.size()));
  for (const LayerPtr &l : plan.layers) {
    h = hash_bytes(h, l->name().data(), l->name().size());
    h = hash_mix(h, l->fingerprint());
  }
  for (int32_t o : plan.outputs) h = hash_mix(h, uint64_t(uint32_t(o)));
  for (const PlanTask &pt : plan.tasks) h = hash_mix(h, uint64_t(pt.local));
  return h;
}

}  // namespace ca::dist
