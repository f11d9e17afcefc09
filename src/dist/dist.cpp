#include "dist/dist.hpp"

#include <algorithm>
#include <climits>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
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
constexpr int32_t kTagProgress = 5;

struct Sending {
  Block *block = nullptr;         // retained until every send of it completed
  std::vector<int64_t> header;    // {task, dtype, ndim, shape...} (one per destination for pieces)
  std::vector<std::vector<int64_t>> piece_headers;
  std::vector<std::vector<char>> pieces;  // packed boxes (rechunk pieces) being sent
  std::vector<int64_t> requests;  // outstanding
};

struct Receiving {
  int32_t source;
  int32_t task;
  int64_t request;
  Block *block;
  // A box of the block (a rechunk's pieces): received packed, then copied in place.
  std::vector<int64_t> box;  // start[ndim], len[ndim]; empty: the whole block
  std::vector<char> packed;
};

// Copy the box `len` at `src_start` of a C-order array `src` (shape src_shape) to `dst_start` of
// `dst` (shape dst_shape); `item` bytes per element.
void copy_box(const char *src, const int64_t *src_shape, const int64_t *src_start, char *dst, const int64_t *dst_shape,
              const int64_t *dst_start, const int64_t *len, int32_t nd, size_t item) {
  if (nd == 0) {
    std::memcpy(dst, src, item);
    return;
  }
  for (int32_t d = 0; d < nd; ++d)
    if (len[d] == 0) return;
  std::vector<int64_t> ss(static_cast<size_t>(nd)), ds(static_cast<size_t>(nd)), i(static_cast<size_t>(nd), 0);
  int64_t a = int64_t(item), b = int64_t(item);
  for (int32_t d = nd - 1; d >= 0; --d) {
    ss[size_t(d)] = a;
    ds[size_t(d)] = b;
    a *= src_shape[d];
    b *= dst_shape[d];
  }
  const size_t row = size_t(len[nd - 1]) * item;
  while (true) {
    int64_t so = 0, dof = 0;
    for (int32_t d = 0; d < nd; ++d) {
      int64_t k = d == nd - 1 ? 0 : i[size_t(d)];
      so += (src_start[d] + k) * ss[size_t(d)];
      dof += (dst_start[d] + k) * ds[size_t(d)];
    }
    std::memcpy(dst + dof, src + so, row);
    int32_t d = nd - 2;
    for (; d >= 0; --d) {
      if (++i[size_t(d)] < len[d]) break;
      i[size_t(d)] = 0;
    }
    if (d < 0) return;
  }
}

class Session {
 public:
  Session(const ca_transport_t &tr, Plan &plan, const Options &o) : tr_(tr), plan_(plan), opts_(o) {
    const char *tv = std::getenv("CA_DIST_TRACE");
    trace_ = tv && *tv && std::strcmp(tv, "0") != 0;
    t0_ = std::chrono::steady_clock::now();
    rank_ = tr.rank;
    size_ = tr.size;
    sent_to_.assign(size_t(size_), 0);
    aborts_to_.assign(size_t(size_), 0);
    recv_from_.assign(size_t(size_), 0);
    aborts_from_.assign(size_t(size_), 0);
    count_from_.assign(size_t(size_), {-1, -1});
    progress_to_.assign(size_t(size_), 0);
    progress_from_.assign(size_t(size_), 0);
    progress_count_from_.assign(size_t(size_), -1);
    remote_done_.assign(size_t(size_), 0);
  }

  // Progress summed over ranks (RunOptions::progress of the run is this; the caller's callback is
  // called on the root with every rank's tasks done out of the whole plan's).
  void set_user_progress(void (*fn)(int64_t, int64_t, void *), void *ud, int64_t interval_us) {
    user_progress_ = fn;
    user_progress_ud_ = ud;
    progress_interval_ = std::chrono::microseconds(interval_us > 0 ? interval_us : 100000);
  }
  static void on_local_progress(int64_t done, int64_t total, void *ud) {
    auto *s = static_cast<Session *>(ud);
    s->local_done_ = done;
    if (s->rank_ == s->opts_.root) s->report_progress();
    else if (s->user_progress_) s->user_progress_(done, total, s->user_progress_ud_);  // its own tasks
  }

  ~Session() {
    for (auto &q : queue_) block_release(q.second);
    for (auto &s : sending_) block_release(s.block);
    for (auto &r : receiving_) block_release(r.block);
  }

  // Placement, roles, consumer counts and destinations of this rank.
  void prepare() {
    const int32_t n = plan_.size();
    // Generated blocks are made again on each rank needing them instead of being sent.
    const std::vector<uint8_t> rep = replicated(plan_, opts_.placement);
    owner_ = place(plan_, size_, opts_.placement, &rep);
    const bool gather = opts_.results == CA_DIST_RESULTS_GATHER;
    if (gather) transposed_outputs_at_root(plan_, owner_, opts_.root);
    const Runners runs(plan_, owner_, rep, opts_.root, opts_.results);
    progress_total_ = plan_.size() + runs.extra();
    role_.assign(size_t(n), TaskRole::Skip);
    consumers_.assign(size_t(n), 0);
    exported_.assign(size_t(n), 0);
    dest_off_.assign(size_t(n) + 1, 0);
    std::vector<int32_t> stamp(size_t(size_), -1);
    std::vector<int32_t> nout(size_t(n), 0);
    for (int32_t o : plan_.outputs) nout[size_t(o)]++;
    for (int32_t t = 0; t < n; ++t) {
      const int32_t own = owner_[size_t(t)];
      const bool rep = runs.is_replicated(t);
      bool needed_here = false;
      int32_t local_consumers = 0;
      for (int32_t i = plan_.dependents_off[size_t(t)]; i < plan_.dependents_off[size_t(t) + 1]; ++i) {
        const int32_t c = plan_.dependents[size_t(i)];
        if (runs.runs_on(c, rank_)) {
          ++local_consumers;
          needed_here = true;
        }
        // (A replicated task's dependents that run elsewhere make it there: nothing is sent. Its
        // other dependents are replicated too or not; a non-replicated task's are not replicated.)
        const int32_t r = owner_[size_t(c)];
        if (!rep && own == rank_ && r != rank_ && stamp[size_t(r)] != t) {
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
        if (!rep && own == rank_ && keeper != rank_ && stamp[size_t(keeper)] != t) {
          stamp[size_t(keeper)] = t;
          dests_.push_back(keeper);
        }
      }
      dest_off_[size_t(t) + 1] = int64_t(dests_.size());
      for (int64_t i = dest_off_[size_t(t)]; i < dest_off_[size_t(t) + 1]; ++i)
        dest_box_.push_back(piece_box(t, dests_[size_t(i)], nout[size_t(t)] > 0));
      if (rep ? needed_here : own == rank_) {
        role_[size_t(t)] = TaskRole::Local;
        ++tasks_;
        if (rep && runs.of(t).first[0] != rank_) ++tasks_replicated_;
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
        if (trace_) note("exported", t, b->nbytes);
      }
      q_cv_.notify_one();
    };
    part_.on_poll = [this](RunControl &ctl) { poll(ctl); };
  }

  const PartialRun &partial() const { return part_; }

  // When every consumer of task `t` on rank `r` is a rechunk's assembly, the part of t's block they
  // take: the bounding box of their pieces (start[nd], len[nd] into boxes_; the offset returned),
  // so only those bytes travel. -1: the whole block (another consumer, or t is an output there).
  int64_t piece_box(int32_t t, int32_t r, bool is_output) {
    if (is_output || !piece_bounds(plan_, owner_, t, r, pieces_, lo_, hi_)) return -1;
    int64_t off = int64_t(boxes_.size());
    boxes_.insert(boxes_.end(), lo_.begin(), lo_.end());
    for (size_t d = 0; d < lo_.size(); ++d) boxes_.push_back(hi_[d] - lo_[d]);
    return off;
  }

  // Called by the thread waiting for the run.
  void poll(RunControl &ctl) {
    if (!failed() && ctl.cancelled()) {
      std::string msg;
      ca_status_t code = ctl.error(&msg);
      if (code != CA_OK) local_failure(code, msg);
    }
    bool busy = post_sends(false);
    send_progress(false);
    busy |= progress(&ctl);
    if (busy) {
      backoff_us_ = 0;
      return;
    }
    idle_wait();
  }

  // CA_DIST_TRACE: a timeline of this rank's exchange on stderr after the compute (ms since the
  // session started): when each exported result was ready, when each block arrived, when the run
  // ended and how long the drain took, and how long the calling thread sat idle in each phase.
 public:
  bool tracing() const { return trace_; }
  void mark(const char *what) {
    std::lock_guard<std::mutex> lk(q_mu_);
    note(what, -1, 0);
    if (std::strcmp(what, "run returned") == 0) wait_us_at_run_end_ = wait_us_;
  }
  void print_trace() {
    std::lock_guard<std::mutex> lk(q_mu_);
    std::string out;
    char line[256];
    for (const TraceEvent &e : events_) {
      if (e.task < 0) {
        std::snprintf(line, sizeof line, "[ca-dist %d/%d] %9.3f ms  %s\n", rank_, size_, e.ms, e.what);
      } else {
        const PlanTask &pt = plan_.tasks[size_t(e.task)];
        std::snprintf(line, sizeof line, "[ca-dist %d/%d] %9.3f ms  %s task %d (%.60s #%lld) %lld bytes%s%s\n", rank_,
                      size_, e.ms, e.what, e.task, pt.layer->name().c_str(), static_cast<long long>(pt.local),
                      static_cast<long long>(e.bytes), e.peer >= 0 ? " from rank " : "",
                      e.peer >= 0 ? std::to_string(e.peer).c_str() : "");
      }
      out += line;
    }
    std::snprintf(line, sizeof line,
                  "[ca-dist %d/%d] tasks %lld (%lld replicated), calling thread idle %.3f ms during the run, "
                  "%.3f ms after it\n",
                  rank_, size_, static_cast<long long>(tasks_), static_cast<long long>(tasks_replicated_),
                  double(wait_us_at_run_end_) / 1e3, double(wait_us_ - wait_us_at_run_end_) / 1e3);
    out += line;
    std::fputs(out.c_str(), stderr);
    std::fflush(stderr);
  }

 private:
  struct TraceEvent {
    double ms;
    const char *what;
    int32_t task;
    int32_t peer;
    int64_t bytes;
  };
  // (q_mu_ held)
  void note(const char *what, int32_t task, int64_t bytes, int32_t peer = -1) {
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0_).count();
    events_.push_back({ms, what, task, peer, bytes});
  }
  bool trace_ = false;
  std::chrono::steady_clock::time_point t0_;
  std::vector<TraceEvent> events_;
  int64_t wait_us_at_run_end_ = 0;

 public:
  // After the run: a local failure the loop did not see yet, then drain and agree.
  void finish(ca_status_t run_code, const std::string &run_msg) {
    if (run_code != CA_OK && !failed()) local_failure(run_code, run_msg);
    post_sends(failed());
    send_progress(true);
    std::vector<std::vector<int64_t>> counts(static_cast<size_t>(size_));
    std::vector<int64_t> count_reqs;
    for (int32_t r = 0; r < size_; ++r) {
      if (r == rank_) continue;
      counts[size_t(r)] = {sent_to_[size_t(r)], aborts_to_[size_t(r)], progress_to_[size_t(r)]};
      count_reqs.push_back(isend(r, kTagCount, counts[size_t(r)].data(), 3 * sizeof(int64_t)));
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
        done = c.first >= 0 && recv_from_[size_t(r)] == c.first && aborts_from_[size_t(r)] == c.second &&
               progress_from_[size_t(r)] == progress_count_from_[size_t(r)];
      }
      if (done) break;
      if (busy) backoff_us_ = 0;
      else idle_wait();
    }
    if (!failed() && rank_ == opts_.root) report_progress();
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

  void fill(ca_dist_stats_t *out) const {
    ca_dist_stats_t v;
    std::memset(&v, 0, sizeof v);
    ca_dist_stats_t *st = &v;
    st->struct_size = out->struct_size;
    st->tasks_replicated = tasks_replicated_;
    st->peak_bytes = peak_bytes_;
    st->rank = rank_;
    st->tasks = tasks_;
    st->plan_tasks = plan_.size();
    st->blocks_sent = blocks_sent_;
    st->blocks_received = blocks_received_;
    st->bytes_sent = bytes_sent_;
    st->bytes_received = bytes_received_;
    st->wait_us = wait_us_;
    // (A 1.0 caller's struct ends before tasks_replicated: only what it has is written.)
    std::memcpy(out, &v, std::min<size_t>(out->struct_size, sizeof v));
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
      const size_t item = size_t(dtype_size(b->dtype));
      for (int64_t i = dest_off_[size_t(t)]; i < dest_off_[size_t(t) + 1]; ++i) {
        int32_t r = dests_[size_t(i)];
        int64_t box = dest_box_[size_t(i)];
        bool whole = box < 0;
        const int64_t *start = whole ? nullptr : boxes_.data() + box;
        const int64_t *len = whole ? nullptr : start + b->ndim;
        if (!whole) {  // the box is the whole block after all: send it as such
          whole = true;
          for (int32_t d = 0; d < b->ndim; ++d) whole = whole && start[d] == 0 && len[d] == b->shape[d];
        }
        if (whole) {
          s.requests.push_back(isend(r, kTagHeader, s.header.data(), s.header.size() * sizeof(int64_t)));
          s.requests.push_back(isend(r, kTagData, b->data, size_t(b->nbytes)));
          bytes_sent_ += b->nbytes;
        } else {
          // {task, dtype, ndim, shape[nd], start[nd], len[nd]} then the packed box.
          std::vector<int64_t> h = s.header;
          h.insert(h.end(), start, start + 2 * b->ndim);
          int64_t n = int64_t(item);
          for (int32_t d = 0; d < b->ndim; ++d) n *= len[d];
          std::vector<char> packed(static_cast<size_t>(n));
          std::vector<int64_t> zero(static_cast<size_t>(b->ndim), 0);
          copy_box(static_cast<const char *>(b->data), b->shape, start, packed.data(), len, zero.data(), len, b->ndim,
                   item);
          s.piece_headers.push_back(std::move(h));
          s.pieces.push_back(std::move(packed));
          // (vectors' buffers do not move when the outer vectors grow)
          s.requests.push_back(isend(r, kTagHeader, s.piece_headers.back().data(),
                                     s.piece_headers.back().size() * sizeof(int64_t)));
          s.requests.push_back(isend(r, kTagData, s.pieces.back().data(), s.pieces.back().size()));
          bytes_sent_ += n;
        }
        sent_to_[size_t(r)]++;
        blocks_sent_++;
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
      const bool boxed = nbytes == size_t(3 + 3 * ndim) * sizeof(int64_t) && ndim > 0;
      if (nbytes < 3 * sizeof(int64_t) || ndim < 0 || ndim > CA_MAX_NDIM ||
          (nbytes != size_t(3 + ndim) * sizeof(int64_t) && !boxed) || task < 0 || task >= plan_.size())
        fail(CA_EINTERNAL, "distributed compute: rank ", rank_, " received a malformed block header from rank ",
             source);
      // The block's bytes follow; allocate and post the receive now (also after a failure: the
      // sender's send must complete). A box (a rechunk's pieces) arrives packed; the rest of the
      // block is never read (the consumers here take only pieces inside the box).
      Block *b = block_new(DType(h[1]), ndim, h.data() + 3);
      Receiving rv{source, int32_t(task), -1, b, {}, {}};
      void *dst = b->data;
      size_t n = size_t(b->nbytes);
      if (boxed) {
        rv.box.assign(h.begin() + 3 + ndim, h.begin() + 3 + 3 * ndim);
        n = size_t(dtype_size(b->dtype));
        for (int32_t d = 0; d < ndim; ++d) n *= size_t(rv.box[size_t(ndim + d)]);
        rv.packed.resize(n);
        dst = rv.packed.data();
      }
      int64_t req = -1;
      int32_t rc = tr_.irecv(tr_.user_data, source, kTagData, dst, n, &req);
      if (rc != 0) {
        block_release(b);
        check(rc, "irecv");
      }
      rv.request = req;
      receiving_.push_back(std::move(rv));
    }
    while (true) {
      check(tr_.iprobe(tr_.user_data, kTagCount, &found, &source, &nbytes), "iprobe");
      if (!found) break;
      busy = true;
      int64_t c[3] = {0, 0, 0};
      recv_now(source, kTagCount, c, sizeof(c));
      count_from_[size_t(source)] = {c[0], c[1]};
      progress_count_from_[size_t(source)] = c[2];
    }
    while (true) {
      check(tr_.iprobe(tr_.user_data, kTagProgress, &found, &source, &nbytes), "iprobe");
      if (!found) break;
      busy = true;
      int64_t d = 0;
      recv_now(source, kTagProgress, &d, sizeof(d));
      progress_from_[size_t(source)]++;
      remote_done_[size_t(source)] = d;
      if (rank_ == opts_.root && !failed()) report_progress();
    }
    for (size_t i = 0; i < receiving_.size();) {
      Receiving &r = receiving_[i];
      if (!test(r.request)) {
        ++i;
        continue;
      }
      busy = true;
      blocks_received_++;
      Block *b = r.block;
      if (!r.box.empty()) {
        std::vector<int64_t> zero(static_cast<size_t>(b->ndim), 0);
        const int64_t *start = r.box.data(), *len = start + b->ndim;
        copy_box(r.packed.data(), len, zero.data(), static_cast<char *>(b->data), b->shape, start, len, b->ndim,
                 size_t(dtype_size(b->dtype)));
        bytes_received_ += int64_t(r.packed.size());
      } else {
        bytes_received_ += b->nbytes;
      }
      int32_t task = r.task;
      if (trace_) {
        std::lock_guard<std::mutex> lk(q_mu_);
        note("received", task, r.box.empty() ? b->nbytes : int64_t(r.packed.size()), r.source);
      }
      receiving_[i] = std::move(receiving_.back());
      receiving_.pop_back();
      if (ctl && !failed() && role_[size_t(task)] == TaskRole::Remote) ctl->provide(task, b);
      else block_release(b);
    }
    return busy;
  }

  // The root's view: every rank's tasks done, out of the plan's.
  void report_progress() {
    if (!user_progress_) return;
    int64_t sum = local_done_;
    for (int32_t r = 0; r < size_; ++r)
      if (r != rank_) sum += remote_done_[size_t(r)];
    user_progress_(std::min<int64_t>(sum, progress_total_), progress_total_, user_progress_ud_);
  }

  // Other ranks tell the root how many of their tasks are done, at most once per interval (and
  // once more at the end, `last`), only when the count changed and only if the root reports.
  void send_progress(bool last) {
    if (rank_ == opts_.root || !root_reports_ || local_done_ == sent_done_) return;
    auto now = std::chrono::steady_clock::now();
    if (!last && now - last_progress_sent_ < progress_interval_) return;
    last_progress_sent_ = now;
    sent_done_ = local_done_;
    Sending s;
    s.header = {local_done_};
    s.requests.push_back(isend(opts_.root, kTagProgress, s.header.data(), sizeof(int64_t)));
    sending_.push_back(std::move(s));
    progress_to_[size_t(opts_.root)]++;
  }

 public:
  bool root_reports_ = false;  // set when the root has a progress callback (agreed before the run)
  int64_t peak_bytes_ = 0;     // the executor's measure of the run (with stats only)

 private:
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
  std::vector<int64_t> dest_box_;  // per dests_ entry: offset into boxes_, or -1 (whole block)
  std::vector<int64_t> boxes_;
  std::vector<AssemblyPiece> pieces_;
  std::vector<int64_t> lo_, hi_;  // piece_box's scratch
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

  void (*user_progress_)(int64_t, int64_t, void *) = nullptr;
  void *user_progress_ud_ = nullptr;
  std::chrono::microseconds progress_interval_{100000};
  std::chrono::steady_clock::time_point last_progress_sent_{};
  int64_t local_done_ = 0, sent_done_ = 0;
  std::vector<int64_t> progress_to_, progress_from_, progress_count_from_, remote_done_;

  int64_t progress_total_ = 0;  // the plan's tasks plus the extra runs of replicated ones
  int64_t tasks_replicated_ = 0;
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
  if (s.tracing()) s.mark("placed");
  // Does the root report progress? (Then the others send it their counts.)
  int64_t root_reports = base.progress ? 1 : 0;
  check(tr.bcast(tr.user_data, &root_reports, sizeof(root_reports), opts.root), "bcast");
  s.root_reports_ = root_reports != 0;
  RunOptions ro = base;
  ro.partial = &s.partial();
  s.set_user_progress(base.progress, base.progress_ud, base.progress_interval_us);
  ro.progress = &Session::on_local_progress;
  ro.progress_ud = &s;
  std::vector<Block *> outs;
  ca_status_t code = CA_OK;
  std::string msg;
  try {
    RunStats rs;
    outs = ex.run(plan, ro, stats ? &rs : nullptr);
    s.peak_bytes_ = rs.peak_bytes;
    if (s.tracing()) s.mark("run returned");
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
    if (s.tracing()) s.print_trace();
    throw;
  }
  if (s.tracing()) {
    s.mark("drained and agreed");
    s.print_trace();
  }
  if (stats) s.fill(stats);
  return outs;
}

}  // namespace ca::dist
