#include "dist/placement.hpp"

#include <algorithm>

namespace ca::dist {

namespace {

// Contiguous ranges of a layer's blocks, one per rank.
int32_t split_owner(const PlanTask &pt, int32_t nranks) {
  int64_t n = std::max<int64_t>(1, pt.layer->num_tasks());
  int64_t local = std::clamp<int64_t>(pt.local, 0, n - 1);
  return int32_t((__int128)local * nranks / n);
}

// Root of the placement: where a task without inputs goes. Its own layer's blocks are split in
// contiguous ranges; but when its first consumer belongs to a smaller layer (a contraction: a
// reduction level, a concatenation), the consumer's layer is split instead and the input follows
// its consumer, so every consumer finds its inputs local and only its result moves.
int32_t root_owner(const Plan &plan, int32_t t, int32_t nranks) {
  const PlanTask &pt = plan.tasks[size_t(t)];
  int32_t b = plan.dependents_off[size_t(t)], e = plan.dependents_off[size_t(t) + 1];
  if (b < e) {
    const PlanTask &c = plan.tasks[size_t(plan.dependents[size_t(b)])];
    if (c.layer->num_tasks() < pt.layer->num_tasks()) return split_owner(c, nranks);
  }
  return split_owner(pt, nranks);
}

}  // namespace

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
    default: return nullptr;
  }
}

std::vector<int32_t> place(const Plan &plan, int32_t nranks, ca_placement_t policy) {
  CA_CHECK(nranks >= 1, CA_EINVAL, "placement: ", nranks, " ranks (at least 1 needed)");
  CA_CHECK(policy_name(policy), CA_EINVAL, "placement: unknown policy ", policy,
           " (CA_PLACEMENT_LOCALITY 0 or CA_PLACEMENT_ROUND_ROBIN 1)");
  const int32_t n = plan.size();
  std::vector<int32_t> owner(size_t(n), 0);
  if (nranks == 1) return owner;
  // Scratch for the locality vote: inputs per rank, reset after each task.
  std::vector<int32_t> votes(size_t(nranks), 0);
  // In a topological order: every task after its dependencies.
  for (int32_t t : topo_order(plan)) {
    const PlanTask &pt = plan.tasks[size_t(t)];
    if (pt.dep_begin == pt.dep_end) {
      owner[size_t(t)] = root_owner(plan, t, nranks);
      continue;
    }
    if (policy == CA_PLACEMENT_ROUND_ROBIN) {
      owner[size_t(t)] = t % nranks;
      continue;
    }
    int32_t best = owner[size_t(plan.deps[size_t(pt.dep_begin)])];
    int32_t best_votes = 0;
    for (int32_t i = pt.dep_begin; i < pt.dep_end; ++i) {
      int32_t r = owner[size_t(plan.deps[size_t(i)])];
      int32_t v = ++votes[size_t(r)];
      if (v > best_votes) {  // strictly more: ties keep the first input's rank to get there
        best_votes = v;
        best = r;
      }
    }
    for (int32_t i = pt.dep_begin; i < pt.dep_end; ++i) votes[size_t(owner[size_t(plan.deps[size_t(i)])])] = 0;
    owner[size_t(t)] = best;
  }
  return owner;
}

std::vector<ca_dist_rank_plan_t> summarize(const Plan &plan, const std::vector<int32_t> &owner, int32_t nranks,
                                           int32_t root) {
  std::vector<ca_dist_rank_plan_t> out(size_t(nranks), ca_dist_rank_plan_t{0, 0, 0, 0});
  const int32_t n = plan.size();
  std::vector<int32_t> is_output(size_t(n), 0);
  for (int32_t o : plan.outputs) is_output[size_t(o)] = 1;
  // Destination ranks per task (deduplicated with a stamp per rank).
  std::vector<int32_t> stamp(size_t(nranks), -1);
  // Per rank: results held, walking the plan in order (each rank runs its tasks in plan order; a
  // result is held from its task (or arrival) until its last consumer on that rank ran).
  std::vector<int64_t> live(size_t(nranks), 0);
  // Per task: its consumers on each rank that still have to run.
  std::vector<std::vector<std::pair<int32_t, int32_t>>> pending(static_cast<size_t>(n));  // (rank, consumers left)
  for (int32_t t = 0; t < n; ++t) {
    int32_t o = owner[size_t(t)];
    out[size_t(o)].tasks++;
    auto &pv = pending[size_t(t)];
    for (int32_t i = plan.dependents_off[size_t(t)]; i < plan.dependents_off[size_t(t) + 1]; ++i) {
      int32_t r = owner[size_t(plan.dependents[size_t(i)])];
      auto it = std::find_if(pv.begin(), pv.end(), [r](auto &p) { return p.first == r; });
      if (it == pv.end()) pv.push_back({r, 1});
      else it->second++;
      if (r != o && stamp[size_t(r)] != t) {
        stamp[size_t(r)] = t;
        out[size_t(o)].blocks_out++;
        out[size_t(r)].blocks_in++;
      }
    }
    if (is_output[size_t(t)] && root != o && stamp[size_t(root)] != t) {
      stamp[size_t(root)] = t;
      out[size_t(o)].blocks_out++;
      out[size_t(root)].blocks_in++;
    }
  }
  // Peak blocks held per rank, running the tasks in a topological order.
  for (int32_t t : topo_order(plan)) {
    int32_t o = owner[size_t(t)];
    // The result appears on its owner and on every rank with consumers of it.
    std::vector<int32_t> holders{o};
    for (auto &p : pending[size_t(t)])
      if (p.first != o) holders.push_back(p.first);
    if (is_output[size_t(t)] && root != o && std::find(holders.begin(), holders.end(), root) == holders.end())
      holders.push_back(root);
    for (int32_t r : holders) {
      live[size_t(r)]++;
      out[size_t(r)].peak_blocks = std::max(out[size_t(r)].peak_blocks, live[size_t(r)]);
    }
    // Results nobody on a holder consumes (sent away, or an output) are dropped at once, except
    // outputs on the root, which stay.
    for (int32_t r : holders) {
      bool consumed = std::any_of(pending[size_t(t)].begin(), pending[size_t(t)].end(),
                                  [r](auto &p) { return p.first == r; });
      bool kept = is_output[size_t(t)] && r == root;
      if (!consumed && !kept) live[size_t(r)]--;
    }
    // This task consumed its inputs on its owner.
    for (int32_t i = plan.tasks[size_t(t)].dep_begin; i < plan.tasks[size_t(t)].dep_end; ++i) {
      int32_t d = plan.deps[size_t(i)];
      for (auto &p : pending[size_t(d)])
        if (p.first == o && --p.second == 0) {
          bool kept = is_output[size_t(d)] && o == root;
          if (!kept) live[size_t(o)]--;
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
