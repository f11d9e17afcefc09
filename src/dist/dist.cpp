#include "dist/dist.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <list>
#include <mutex>
#include <thread>

#include "core/block.hpp"
#include "dist/placement.hpp"

namespace ca::dist {

namespace {

constexpr int32_t kTagHeader = 1;
constexpr int32_t kTagData = 2;
constexpr int32_t kTagAbort = 3;
constexpr int32_t kTagCount = 4;

struct Sending {
  Block *block = nullptr;         // retained until every send of it completed
  std::vector<int64_t> header;    // {task, dtype, ndim, shape...}
  std::vector<int64_t> requests;  // outstanding
};

struct Receiving {
  int32_t source;
  int32_t task;
  int64_t request;
  Block *block;
};

class Session {
 public:
  Session(const ca_transport_t &tr, Plan &plan, const Options &o) : tr_(tr), plan_(plan), opts_(o) {
    rank_ = tr.rank;
    size_ = tr.size;
    sent_to_.assign(size_t(size_), 0);
    aborts_to_.assign(size_t(size_), 0);
    recv_from_.assign(size_t(size_), 0);
    aborts_from_.assign(size_t(size_), 0);
    count_from_.assign(size_t(size_), {-1, -1});
  }

  ~Session() {
    for (auto &q : queue_) block_release(q.second);
    for (auto &s : sending_) block_release(s.block);
    for (auto &r : receiving_) block_release(r.block);
  }

  // Placement, roles, consumer counts and destinations of this rank.
  void prepare() {
    const int32_t n = plan_.size();
    owner_ = place(plan_, size_, opts_.placement);
    role_.assign(size_t(n), TaskRole::Skip);
    consumers_.assign(size_t(n), 0);
    exported_.assign(size_t(n), 0);
    dest_off_.assign(size_t(n) + 1, 0);
    std::vector<int32_t> stamp(size_t(size_), -1);
    const bool gather = opts_.results == CA_DIST_RESULTS_GATHER;
    std::vector<int32_t> nout(size_t(n), 0);
    for (int32_t o : plan_.outputs) nout[size_t(o)]++;
    for (int32_t t = 0; t < n; ++t) {
      const int32_t own = owner_[size_t(t)];
      bool needed_here = false;
      int32_t local_consumers = 0;
      for (int32_t i = plan_.dependents_off[size_t(t)]; i < plan_.dependents_off[size_t(t) + 1]; ++i) {
        int32_t r = owner_[size_t(plan_.dependents[size_t(i)])];
        if (r == rank_) {
          ++local_consumers;
          needed_here = true;
        }
        if (own == rank_ && r != rank_ && stamp[size_t(r)] != t) {
          stamp[size_t(r)] = t;
          dests_.push_back(r);
        }
      }
      if (nout[size_t(t)]) {
        int32_t keeper = gather ? opts_.root : own;
        if (keeper == rank_) {
          local_consumers += nout[size_t(t)];
          needed_here = true;
        }
        if (own == rank_ && keeper != rank_ && stamp[size_t(keeper)] != t) {
          stamp[size_t(keeper)] = t;
          dests_.push_back(keeper);
        }
      }
      dest_off_[size_t(t) + 1] = int64_t(dests_.size());
      if (own == rank_) {
        role_[size_t(t)] = TaskRole::Local;
        ++tasks_;
        exported_[size_t(t)] = dest_off_[size_t(t) + 1] > dest_off_[size_t(t)];
      } else if (needed_here) {
        role_[size_t(t)] = TaskRole::Remote;
      }
      if (role_[size_t(t)] != TaskRole::Skip) consumers_[size_t(t)] = local_consumers;
    }
    part_.role = role_.data();
    part_.consumers = consumers_.data();
    part_.exported = exported_.data();
    part_.on_export = [this](int32_t t, Block *b) {
      {
        std::lock_guard<std::mutex> lk(q_mu_);
        queue_.push_back({t, b});
      }
      q_cv_.notify_one();
    };
    part_.on_poll = [this](RunControl &ctl) { poll(ctl); };
  }

  const PartialRun &partial() const { return part_; }

  // Called by the thread waiting for the run.
  void poll(RunControl &ctl) {
    if (!failed() && ctl.cancelled()) {
      std::string msg;
      ca_status_t code = ctl.error(&msg);
      if (code != CA_OK) local_failure(code, msg);
    }
    bool busy = post_sends(false);
    busy |= progress(&ctl);
    if (busy) {
      backoff_us_ = 0;
      return;
    }
    idle_wait();
  }

  // After the run: a local failure the loop did not see yet, then drain and agree.
  void finish(ca_status_t run_code, const std::string &run_msg) {
    if (run_code != CA_OK && !failed()) local_failure(run_code, run_msg);
    post_sends(failed());
    std::vector<std::vector<int64_t>> counts(static_cast<size_t>(size_));
    std::vector<int64_t> count_reqs;
    for (int32_t r = 0; r < size_; ++r) {
      if (r == rank_) continue;
      counts[size_t(r)] = {sent_to_[size_t(r)], aborts_to_[size_t(r)]};
      count_reqs.push_back(isend(r, kTagCount, counts[size_t(r)].data(), 2 * sizeof(int64_t)));
    }
    while (true) {
      bool busy = progress(nullptr);
      for (auto it = count_reqs.begin(); it != count_reqs.end();) {
        if (test(*it)) {
          it = count_reqs.erase(it);
          busy = true;
        } else {
          ++it;
        }
      }
      bool done = count_reqs.empty() && sending_.empty() && receiving_.empty();
      for (int32_t r = 0; r < size_ && done; ++r) {
        if (r == rank_) continue;
        const auto &c = count_from_[size_t(r)];
        done = c.first >= 0 && recv_from_[size_t(r)] == c.first && aborts_from_[size_t(r)] == c.second;
      }
      if (done) break;
      if (busy) backoff_us_ = 0;
      else idle_wait();
    }
    // Agreement: the lowest rank whose own failure it was speaks for all.
    int64_t v = failed() ? origin_ : size_;
    check(tr_.allreduce_min(tr_.user_data, &v, 1), "allreduce_min");
    if (v >= size_) return;
    int64_t head[2] = {int64_t(code_), int64_t(msg_.size())};
    check(tr_.bcast(tr_.user_data, head, sizeof(head), int32_t(v)), "bcast");
    std::string msg = v == rank_ ? msg_ : std::string(size_t(head[1]), '\0');  // the root sends its own
    if (head[1] > 0) check(tr_.bcast(tr_.user_data, msg.data(), msg.size(), int32_t(v)), "bcast");
    throw Error(ca_status_t(head[0]), msg);
  }

  void fill(ca_dist_stats_t *st) const {
    st->rank = rank_;
    st->tasks = tasks_;
    st->plan_tasks = plan_.size();
    st->blocks_sent = blocks_sent_;
    st->blocks_received = blocks_received_;
    st->bytes_sent = bytes_sent_;
    st->bytes_received = bytes_received_;
    st->wait_us = wait_us_;
  }

 private:
  bool failed() const { return origin_ >= 0; }

  void check(int32_t rc, const char *what) {
    if (rc != 0) fail(CA_EIO, "distributed compute: transport call ", what, " failed on rank ", rank_, " (", rc, ")");
  }
  int64_t isend(int32_t dest, int32_t tag, const void *data, size_t n) {
    int64_t req = -1;
    check(tr_.isend(tr_.user_data, dest, tag, data, n, &req), "isend");
    return req;
  }
  bool test(int64_t req) {
    int32_t done = 0;
    check(tr_.test(tr_.user_data, req, &done), "test");
    return done != 0;
  }
  // Receive a probed small message completely.
  void recv_now(int32_t source, int32_t tag, void *data, size_t n) {
    int64_t req = -1;
    check(tr_.irecv(tr_.user_data, source, tag, data, n, &req), "irecv");
    while (!test(req)) std::this_thread::yield();
  }

  void local_failure(ca_status_t code, const std::string &msg) {
    origin_ = rank_;
    code_ = code;
    msg_ = msg;
    // Tell every rank (they may be waiting for blocks this rank will not send).
    abort_msg_.resize(2 + (msg.size() + 7) / 8, 0);
    abort_msg_[0] = code;
    abort_msg_[1] = rank_;
    std::memcpy(abort_msg_.data() + 2, msg.data(), msg.size());
    abort_len_ = 2 * sizeof(int64_t) + msg.size();
    for (int32_t r = 0; r < size_; ++r) {
      if (r == rank_) continue;
      Sending s;
      s.requests.push_back(isend(r, kTagAbort, abort_msg_.data(), abort_len_));
      sending_.push_back(std::move(s));
      aborts_to_[size_t(r)]++;
    }
  }

  // Post sends for queued exports (or drop them). True if any.
  bool post_sends(bool discard) {
    std::vector<std::pair<int32_t, Block *>> q;
    {
      std::lock_guard<std::mutex> lk(q_mu_);
      q.swap(queue_);
    }
    for (auto &[t, b] : q) {
      if (discard || failed()) {
        block_release(b);
        continue;
      }
      Sending s;
      s.block = b;
      s.header = {t, int64_t(b->dtype), int64_t(b->ndim)};
      s.header.insert(s.header.end(), b->shape, b->shape + b->ndim);
      for (int64_t i = dest_off_[size_t(t)]; i < dest_off_[size_t(t) + 1]; ++i) {
        int32_t r = dests_[size_t(i)];
        s.requests.push_back(isend(r, kTagHeader, s.header.data(), s.header.size() * sizeof(int64_t)));
        s.requests.push_back(isend(r, kTagData, b->data, size_t(b->nbytes)));
        sent_to_[size_t(r)]++;
        blocks_sent_++;
        bytes_sent_ += b->nbytes;
      }
      sending_.push_back(std::move(s));
    }
    return !q.empty();
  }

  // Complete sends, receive headers/aborts/counts, complete receives. True if anything happened.
  bool progress(RunControl *ctl) {
    bool busy = false;
    for (auto it = sending_.begin(); it != sending_.end();) {
      auto &reqs = it->requests;
      for (size_t i = 0; i < reqs.size();) {
        if (test(reqs[i])) {
          reqs[i] = reqs.back();
          reqs.pop_back();
        } else {
          ++i;
        }
      }
      if (reqs.empty()) {
        block_release(it->block);
        it = sending_.erase(it);
        busy = true;
      } else {
        ++it;
      }
    }
    int32_t found = 0, source = -1;
    size_t nbytes = 0;
    // Aborts first: a failure elsewhere stops this rank's run.
    while (true) {
      check(tr_.iprobe(tr_.user_data, kTagAbort, &found, &source, &nbytes), "iprobe");
      if (!found) break;
      busy = true;
      std::vector<int64_t> buf((nbytes + 7) / 8 + 2, 0);
      recv_now(source, kTagAbort, buf.data(), nbytes);
      aborts_from_[size_t(source)]++;
      if (!failed() && nbytes >= 2 * sizeof(int64_t)) {
        std::string msg(reinterpret_cast<const char *>(buf.data() + 2), nbytes - 2 * sizeof(int64_t));
        // A failure of this rank's own not yet seen by the loop comes first.
        std::string own;
        ca_status_t own_code = ctl ? ctl->error(&own) : CA_OK;
        if (own_code != CA_OK) {
          local_failure(own_code, own);
        } else {
          origin_ = int32_t(buf[1]);
          code_ = ca_status_t(buf[0]);
          msg_ = msg;
          if (ctl) ctl->fail(code_, msg_);
        }
      }
    }
    while (true) {
      check(tr_.iprobe(tr_.user_data, kTagHeader, &found, &source, &nbytes), "iprobe");
      if (!found) break;
      busy = true;
      std::vector<int64_t> h(nbytes / sizeof(int64_t) + 1, 0);
      recv_now(source, kTagHeader, h.data(), nbytes);
      recv_from_[size_t(source)]++;
      int64_t task = h[0];
      int32_t ndim = int32_t(h[2]);
      if (nbytes < 3 * sizeof(int64_t) || ndim < 0 || ndim > CA_MAX_NDIM ||
          nbytes != size_t(3 + ndim) * sizeof(int64_t) || task < 0 || task >= plan_.size())
        fail(CA_EINTERNAL, "distributed compute: rank ", rank_, " received a malformed block header from rank ",
             source);
      // The block's bytes follow; allocate and post the receive now (also after a failure: the
      // sender's send must complete).
      Block *b = block_new(DType(h[1]), ndim, h.data() + 3);
      int64_t req = -1;
      int32_t rc = tr_.irecv(tr_.user_data, source, kTagData, b->data, size_t(b->nbytes), &req);
      if (rc != 0) {
        block_release(b);
        check(rc, "irecv");
      }
      receiving_.push_back({source, int32_t(task), req, b});
    }
    while (true) {
      check(tr_.iprobe(tr_.user_data, kTagCount, &found, &source, &nbytes), "iprobe");
      if (!found) break;
      busy = true;
      int64_t c[2] = {0, 0};
      recv_now(source, kTagCount, c, sizeof(c));
      count_from_[size_t(source)] = {c[0], c[1]};
    }
    for (size_t i = 0; i < receiving_.size();) {
      Receiving &r = receiving_[i];
      if (!test(r.request)) {
        ++i;
        continue;
      }
      busy = true;
      blocks_received_++;
      bytes_received_ += r.block->nbytes;
      Block *b = r.block;
      int32_t task = r.task;
      receiving_[i] = receiving_.back();
      receiving_.pop_back();
      if (ctl && !failed() && role_[size_t(task)] == TaskRole::Remote) ctl->provide(task, b);
      else block_release(b);
    }
    return busy;
  }

  // Sleep a little when nothing happened (woken early by an export), backing off to 1 ms.
  void idle_wait() {
    backoff_us_ = backoff_us_ == 0 ? 20 : std::min<int64_t>(backoff_us_ * 2, 1000);
    auto t0 = std::chrono::steady_clock::now();
    {
      std::unique_lock<std::mutex> lk(q_mu_);
      if (queue_.empty()) q_cv_.wait_for(lk, std::chrono::microseconds(backoff_us_));
    }
    wait_us_ += std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0).count();
  }

  const ca_transport_t &tr_;
  Plan &plan_;
  Options opts_;
  int32_t rank_ = 0, size_ = 1;
  std::vector<int32_t> owner_;
  std::vector<TaskRole> role_;
  std::vector<int32_t> consumers_;
  std::vector<uint8_t> exported_;
  std::vector<int64_t> dest_off_;
  std::vector<int32_t> dests_;
  PartialRun part_;

  std::mutex q_mu_;
  std::condition_variable q_cv_;
  std::vector<std::pair<int32_t, Block *>> queue_;
  std::list<Sending> sending_;
  std::vector<Receiving> receiving_;
  std::vector<int64_t> sent_to_, aborts_to_, recv_from_, aborts_from_;
  std::vector<std::pair<int64_t, int64_t>> count_from_;
  std::vector<int64_t> abort_msg_;
  size_t abort_len_ = 0;
  int64_t backoff_us_ = 0;

  int32_t origin_ = -1;  // rank whose failure this rank holds, -1 if none
  ca_status_t code_ = CA_OK;
  std::string msg_;

  int64_t tasks_ = 0, blocks_sent_ = 0, blocks_received_ = 0, bytes_sent_ = 0, bytes_received_ = 0, wait_us_ = 0;
};

}  // namespace

std::vector<Block *> compute(Executor &ex, Plan &plan, const RunOptions &base, const ca_transport_t &tr,
                             const Options &opts, ca_dist_stats_t *stats) {
  CA_CHECK(tr.size >= 1 && tr.rank >= 0 && tr.rank < tr.size, CA_EINVAL, "distributed compute: rank ", tr.rank,
           " of ", tr.size, " ranks");
  CA_CHECK(tr.isend && tr.irecv && tr.iprobe && tr.test && tr.allreduce_min && tr.bcast, CA_EINVAL,
           "distributed compute: the transport has a NULL callback");
  CA_CHECK(opts.results == CA_DIST_RESULTS_GATHER || opts.results == CA_DIST_RESULTS_LOCAL, CA_EINVAL,
           "distributed compute: unknown results mode ", opts.results);
  CA_CHECK(opts.root >= 0 && opts.root < tr.size, CA_EINVAL, "distributed compute: root rank ", opts.root,
           " is not one of the ", tr.size, " ranks");
  CA_CHECK(policy_name(opts.placement), CA_EINVAL, "distributed compute: unknown placement policy ", opts.placement);
  auto check = [&](int32_t rc, const char *what) {
    if (rc != 0) fail(CA_EIO, "distributed compute: transport call ", what, " failed on rank ", tr.rank, " (", rc, ")");
  };
  // Same graph, keys and options everywhere? (Rank 0's hash against each rank's.)
  uint64_t mine = plan_hash(plan);
  mine = hash_mix(mine, uint64_t(opts.results) * 1000003u + uint64_t(opts.root) * 7919u + uint64_t(opts.placement));
  uint64_t ref = mine;
  check(tr.bcast(tr.user_data, &ref, sizeof(ref), 0), "bcast");
  int64_t first_bad = ref == mine ? tr.size : tr.rank;
  check(tr.allreduce_min(tr.user_data, &first_bad, 1), "allreduce_min");
  if (first_bad < tr.size) {
    char hex[20];
    std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(ref));
    fail(CA_EINVAL, "distributed compute: the graph, keys or options given to rank ", first_bad,
         " differ from rank 0's (plan hash ", hex, " on rank 0); every rank must compute the same graph");
  }
  Session s(tr, plan, opts);
  s.prepare();
  RunOptions ro = base;
  ro.partial = &s.partial();
  std::vector<Block *> outs;
  ca_status_t code = CA_OK;
  std::string msg;
  try {
    outs = ex.run(plan, ro);
  } catch (const Error &e) {
    code = e.code();
    msg = e.message();
  } catch (const std::bad_alloc &) {
    code = CA_ENOMEM;
    msg = "out of memory";
  } catch (const std::exception &e) {
    // Whatever failed, the other ranks must hear of it (they may wait for this rank's blocks).
    code = CA_EINTERNAL;
    msg = e.what();
  }
  try {
    s.finish(code, msg);
  } catch (...) {
    for (Block *b : outs) block_release(b);
    if (stats) s.fill(stats);
    throw;
  }
  if (stats) s.fill(stats);
  return outs;
}

}  // namespace ca::dist
