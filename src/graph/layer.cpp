#include "graph/layer.hpp"

#include "core/block.hpp"
#include "core/checked.hpp"

#include <algorithm>
#include <cstring>
#include <sstream>

namespace ca {

// ------------------------------------------------------------------------------------------------
// Arena

void *Arena::alloc(size_t n, size_t align) {
  size_t pad = cur_ ? (align - reinterpret_cast<uintptr_t>(cur_) % align) % align : 0;
  if (!cur_ || checked_add(n, pad, "arena allocation (bytes)") > left_) {
    size_t size = std::max<size_t>(checked_add(n, align, "arena allocation (bytes)"), 64 * 1024);
    chunks_.emplace_back(new char[size]);
    cur_ = chunks_.back().get();
    left_ = size;
    pad = (align - reinterpret_cast<uintptr_t>(cur_) % align) % align;
  }
  char *p = cur_ + pad;
  cur_ = p + n;
  left_ -= n + pad;
  used_ += n + pad;
  return p;
}

const char *Arena::copy_bytes(const void *data, size_t n) {
  char *p = static_cast<char *>(alloc(checked_add(n, size_t(1), "string argument (bytes)"), 1));
  if (n) std::memcpy(p, data, n);
  p[n] = '\0';
  return p;
}

const int64_t *Arena::copy_i64(const int64_t *data, size_t n) {
  int64_t *p = static_cast<int64_t *>(alloc(checked_mul(sizeof(int64_t), n ? n : 1, "tuple argument (bytes)"), 8));
  if (n) std::memcpy(p, data, n * sizeof(int64_t));
  return p;
}

// ------------------------------------------------------------------------------------------------
// helpers

uint64_t hash_mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdULL;
}

uint64_t hash_bytes(uint64_t h, const void *p, size_t n) {
  const unsigned char *c = static_cast<const unsigned char *>(p);
  uint64_t x = 1469598103934665603ULL;
  for (size_t i = 0; i < n; ++i) x = (x ^ c[i]) * 1099511628211ULL;
  return hash_mix(h, x ^ n);
}

uint64_t hash_data(uint64_t h, const void *p, size_t n) {
  // Four independent 64-bit lanes of multiply-rotate rounds (xxHash64's round) over 32-byte stripes,
  // the tail through hash_bytes: ~10 GB/s, so hashing an array's contents for its name costs a
  // fraction of one pass over it.
  constexpr uint64_t P1 = 0x9E3779B185EBCA87ULL, P2 = 0xC2B2AE3D27D4EB4FULL;
  auto rotl = [](uint64_t x, int r) { return (x << r) | (x >> (64 - r)); };
  const unsigned char *c = static_cast<const unsigned char *>(p);
  uint64_t v[4] = {h + P1 + P2, h + P2, h, h - P1};
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    for (int k = 0; k < 4; ++k) {
      uint64_t w;
      std::memcpy(&w, c + i + 8 * size_t(k), 8);
      v[k] = rotl(v[k] + w * P2, 31) * P1;
    }
  }
  const uint64_t r = hash_mix(rotl(v[0], 1) + rotl(v[1], 7) + rotl(v[2], 12) + rotl(v[3], 18), uint64_t(n));
  return i < n ? hash_bytes(r, c + i, n - i) : r;  // p may be NULL when n is 0
}

std::string key_str(const std::string &name, const Index *idx, int32_t n) {
  std::ostringstream os;
  os << "('" << name << "'";
  for (int32_t i = 0; i < n; ++i) os << ", " << idx[i];
  os << ")";
  return os.str();
}

ca_arg_t copy_literal(const ca_arg_t &a, Arena &arena) {
  ca_arg_t r = a;
  switch (a.kind) {
    case CA_ARG_NONE:
    case CA_ARG_INT64:
    case CA_ARG_FLOAT64:
    case CA_ARG_SLICE:
      break;
    case CA_ARG_STRING:
    case CA_ARG_BYTES:
      CA_CHECK(a.u.bytes.data != nullptr || a.u.bytes.len == 0, CA_EINVAL, "string/bytes argument has NULL data");
      r.u.bytes.data = arena.copy_bytes(a.u.bytes.data, a.u.bytes.len);
      break;
    case CA_ARG_TUPLE:
      CA_CHECK(a.u.tuple.items != nullptr || a.u.tuple.len == 0, CA_EINVAL, "tuple argument has NULL items");
      r.u.tuple.items = arena.copy_i64(a.u.tuple.items, a.u.tuple.len);
      break;
    default:
      fail(CA_EINVAL, "argument kind ", a.kind, " is not a literal");
  }
  return r;
}

namespace {
uint64_t hash_literal(uint64_t h, const ca_arg_t &a) {
  h = hash_mix(h, uint64_t(a.kind));
  switch (a.kind) {
    case CA_ARG_INT64: return hash_mix(h, uint64_t(a.u.i64));
    case CA_ARG_FLOAT64: return hash_bytes(h, &a.u.f64, sizeof(double));
    case CA_ARG_STRING:
    case CA_ARG_BYTES: return hash_bytes(h, a.u.bytes.data, a.u.bytes.len);
    case CA_ARG_TUPLE: return hash_bytes(h, a.u.tuple.items, a.u.tuple.len * sizeof(int64_t));
    case CA_ARG_SLICE:
      h = hash_mix(h, uint64_t(a.u.slice.start));
      h = hash_mix(h, uint64_t(a.u.slice.stop));
      h = hash_mix(h, uint64_t(a.u.slice.step));
      return hash_mix(h, a.u.slice.flags);
    default: return h;
  }
}
}  // namespace

// ------------------------------------------------------------------------------------------------
// Layer: recorded kernel versions

int32_t Layer::kernel_version_of(const std::string &kernel) const {
  for (size_t i = 0; i < kernels_.size(); ++i)
    if (kernels_[i] == kernel) return kernel_version(i);
  return 0;
}

void Layer::set_kernel_versions(std::vector<int32_t> versions) {
  CA_CHECK(versions.size() == kernels_.size(), CA_EINVAL, "layer '", name_, "': ", versions.size(),
           " kernel versions for ", kernels_.size(), " kernels");
  for (size_t i = 0; i < versions.size(); ++i)
    CA_CHECK(versions[i] >= 0, CA_EINVAL, "layer '", name_, "': kernel '", kernels_[i], "' has negative version ",
             versions[i]);
  versions_ = std::move(versions);
}

bool Layer::records_kernel_versions() const {
  return std::any_of(versions_.begin(), versions_.end(), [](int32_t v) { return v != 0; });
}

// ------------------------------------------------------------------------------------------------
// MaterializedLayer

MaterializedLayer::MaterializedLayer(std::string name, int32_t nindex) {
  CA_CHECK(!name.empty(), CA_EINVAL, "layer name is empty");
  CA_CHECK(nindex >= 0 && nindex <= 64, CA_EINVAL, "key index count ", nindex, " is out of range 0..64");
  name_ = std::move(name);
  nindex_ = nindex;
  max_idx_.assign(size_t(nindex), -1);
  table_.assign(16, -1);
}

uint64_t MaterializedLayer::hash_idx(const Index *idx) const {
  uint64_t h = 0x12345;
  for (int32_t d = 0; d < nindex_; ++d) h = hash_mix(h, uint64_t(idx[d]));
  return h;
}

int64_t MaterializedLayer::find(const Index *idx) const {
  size_t mask = table_.size() - 1;
  for (size_t p = hash_idx(idx) & mask;; p = (p + 1) & mask) {
    int64_t t = table_[p];
    if (t < 0) return -1;
    if (std::equal(idx, idx + nindex_, keys_.begin() + t * nindex_)) return t;
  }
}

void MaterializedLayer::rehash(size_t cap) {
  table_.assign(cap, -1);
  size_t mask = cap - 1;
  int64_t n = num_tasks();
  for (int64_t t = 0; t < n; ++t) {
    size_t p = hash_idx(keys_.data() + t * nindex_) & mask;
    while (table_[p] >= 0) p = (p + 1) & mask;
    table_[p] = t;
  }
}

void MaterializedLayer::key_at(int64_t local, Index *idx) const {
  std::copy_n(keys_.begin() + local * nindex_, nindex_, idx);
}

std::vector<Index> MaterializedLayer::numblocks() const {
  std::vector<Index> nb(max_idx_.size());
  for (size_t d = 0; d < nb.size(); ++d) nb[d] = max_idx_[d] + 1;
  return nb;
}

int32_t MaterializedLayer::dep_slot(const char *name) {
  for (size_t i = 0; i < deps_.size(); ++i)
    if (deps_[i] == name) return int32_t(i);
  deps_.emplace_back(name);
  return int32_t(deps_.size() - 1);
}

void MaterializedLayer::store_arg(const ca_arg_t &a, int depth) {
  CA_CHECK(depth < 64, CA_EINVAL, "arguments nested more than 64 lists deep");
  Stored s{a.kind, 0, ca_arg_none()};
  switch (a.kind) {
    case CA_ARG_KEY: {
      const ca_key_t &k = a.u.key;
      CA_CHECK(k.name && k.name[0], CA_EINVAL, "a key argument has an empty or NULL name");
      CA_CHECK(k.nindex >= 0 && k.nindex <= 64, CA_EINVAL, "a key argument has ", k.nindex, " indices");
      CA_CHECK(k.nindex == 0 || k.index, CA_EINVAL, "key argument '", k.name, "' has NULL index");
      s.slot = dep_slot(k.name);
      s.arg.kind = CA_ARG_KEY;
      s.arg.u.key.name = nullptr;
      s.arg.u.key.index = arena_.copy_i64(k.index, size_t(k.nindex));
      s.arg.u.key.nindex = k.nindex;
      stored_.push_back(s);
      return;
    }
    case CA_ARG_LIST: {
      CA_CHECK(a.u.list.items || a.u.list.len == 0, CA_EINVAL, "list argument has NULL items");
      CA_CHECK(a.u.list.len < (1u << 31), CA_EINVAL, "list argument is too long");
      s.slot = int32_t(a.u.list.len);
      s.arg.kind = CA_ARG_LIST;
      stored_.push_back(s);
      for (size_t i = 0; i < a.u.list.len; ++i) store_arg(a.u.list.items[i], depth + 1);
      return;
    }
    case CA_ARG_BLOCK:
      fail(CA_EINVAL, "a block cannot be a graph argument: add a task producing it and reference its key");
    case CA_ARG_INDEXED:
      fail(CA_EINVAL, "indexed arguments are for ca_graph_add_blockwise only");
    default:
      s.arg = copy_literal(a, arena_);
      stored_.push_back(s);
  }
}

void MaterializedLayer::add_task(const Index *idx, const std::string &kernel, const ca_arg_t *args, size_t nargs) {
  CA_CHECK(!kernel.empty(), CA_EINVAL, "kernel name is empty for key ", key_str(name_, idx, nindex_));
  CA_CHECK(args || nargs == 0, CA_EINVAL, "args is NULL with nargs ", nargs);
  for (int32_t d = 0; d < nindex_; ++d)
    CA_CHECK(idx[d] < kMaxLayerTasks, CA_EINVAL, "key ", key_str(name_, idx, nindex_), " has index ", idx[d],
             " along dimension ", d, ": block indices are below 2^62");
  if (find(idx) >= 0) fail(CA_EEXISTS, "duplicate key ", key_str(name_, idx, nindex_));
  size_t stored_mark = stored_.size();
  size_t deps_mark = deps_.size();
  try {
    for (size_t i = 0; i < nargs; ++i) store_arg(args[i], 0);
  } catch (...) {
    stored_.resize(stored_mark);
    deps_.resize(deps_mark);
    throw;
  }
  int32_t ks = -1;
  for (size_t i = 0; i < kernels_.size(); ++i)
    if (kernels_[i] == kernel) ks = int32_t(i);
  if (ks < 0) {
    kernels_.push_back(kernel);
    ks = int32_t(kernels_.size() - 1);
  }
  int64_t t = num_tasks();
  keys_.insert(keys_.end(), idx, idx + nindex_);
  for (int32_t d = 0; d < nindex_; ++d) max_idx_[size_t(d)] = std::max(max_idx_[size_t(d)], idx[d]);
  task_kernel_.push_back(ks);
  task_nargs_.push_back(uint32_t(nargs));
  task_args_.push_back(stored_mark);
  if (size_t(t + 1) * 2 > table_.size()) {
    rehash(table_.size() * 2);
  } else {
    size_t mask = table_.size() - 1;
    size_t p = hash_idx(idx) & mask;
    while (table_[p] >= 0) p = (p + 1) & mask;
    table_[p] = t;
  }
}

size_t MaterializedLayer::skip(size_t pos) const {
  const Stored &s = stored_[pos++];
  if (s.kind == CA_ARG_LIST)
    for (int32_t i = 0; i < s.slot; ++i) pos = skip(pos);
  return pos;
}

void MaterializedLayer::emit_range(size_t &pos, size_t count, TaskEmitter &e) const {
  for (size_t i = 0; i < count; ++i) {
    const Stored &s = stored_[pos++];
    if (s.kind == CA_ARG_LIST) {
      e.begin_list(size_t(s.slot));
      emit_range(pos, size_t(s.slot), e);
      e.end_list();
    } else if (s.kind == CA_ARG_KEY) {
      e.ref(s.slot, s.arg.u.key.index, s.arg.u.key.nindex);
    } else {
      e.literal(s.arg);
    }
  }
}

void MaterializedLayer::emit(int64_t local, TaskEmitter &e) const {
  e.kernel(task_kernel_[size_t(local)]);
  size_t pos = task_args_[size_t(local)];
  emit_range(pos, task_nargs_[size_t(local)], e);
}

namespace {
// Re-adds tasks through the emitter interface: used to deep-copy a layer.
class CopyEmitter final : public TaskEmitter {
 public:
  std::vector<ca_arg_t> flat;
  std::vector<size_t> list_starts;
  const MaterializedLayer *src;
  explicit CopyEmitter(const MaterializedLayer *s) : src(s) {}
  int32_t kslot = 0;
  // Build a tree of ca_arg_t (lists own vectors) then add.
  struct Node {
    ca_arg_t a;
    std::vector<Node> kids;
  };
  std::vector<Node> top;
  std::vector<std::vector<Node> *> stack;
  void reset() {
    top.clear();
    stack.assign(1, &top);
  }
  void kernel(int32_t s) override { kslot = s; }
  void literal(const ca_arg_t &a) override { stack.back()->push_back({a, {}}); }
  void literal_copy(const ca_arg_t &a) override { literal(a); }
  void ref(int32_t slot, const Index *idx, int32_t n) override {
    stack.back()->push_back({ca_arg_key(src->deps()[size_t(slot)].c_str(), idx, n), {}});
  }
  void begin_list(size_t) override {
    stack.back()->push_back({ca_arg_list(nullptr, 0), {}});
    stack.push_back(&stack.back()->back().kids);
  }
  void end_list() override { stack.pop_back(); }
};

void finish_nodes(std::vector<CopyEmitter::Node> &nodes, std::vector<std::vector<ca_arg_t>> &store,
                  std::vector<ca_arg_t> &out) {
  for (auto &n : nodes) {
    if (n.a.kind == CA_ARG_LIST) {
      store.emplace_back();
      std::vector<ca_arg_t> items;
      finish_nodes(n.kids, store, items);
      store.back() = std::move(items);
      n.a.u.list.items = store.back().data();
      n.a.u.list.len = store.back().size();
    }
    out.push_back(n.a);
  }
}
}  // namespace

std::shared_ptr<MaterializedLayer> MaterializedLayer::clone(const std::vector<bool> *keep) const {
  auto c = std::make_shared<MaterializedLayer>(name_, nindex_);
  CopyEmitter ce(this);
  for (int64_t t = 0; t < num_tasks(); ++t) {
    if (keep && !(*keep)[size_t(t)]) continue;
    ce.reset();
    emit(t, ce);
    std::vector<std::vector<ca_arg_t>> store;
    store.reserve(4096);
    std::vector<ca_arg_t> args;
    finish_nodes(ce.top, store, args);
    c->add_task(keys_.data() + t * nindex_, kernels_[size_t(ce.kslot)], args.data(), args.size());
  }
  // The copy's kernel slots are in order of first use by the kept tasks: versions follow the names.
  if (records_kernel_versions()) {
    std::vector<int32_t> v(c->kernels_.size());
    for (size_t i = 0; i < v.size(); ++i) v[i] = kernel_version_of(c->kernels_[i]);
    c->versions_ = std::move(v);
  }
  return c;
}

uint64_t MaterializedLayer::fingerprint() const {
  uint64_t h = hash_bytes(1, name_.data(), name_.size());
  h = hash_bytes(h, keys_.data(), keys_.size() * sizeof(Index));
  for (auto &k : kernels_) h = hash_bytes(h, k.data(), k.size());
  for (auto &d : deps_) h = hash_bytes(h, d.data(), d.size());
  h = hash_bytes(h, task_kernel_.data(), task_kernel_.size() * sizeof(int32_t));
  h = hash_bytes(h, task_nargs_.data(), task_nargs_.size() * sizeof(uint32_t));
  for (const Stored &s : stored_) {
    h = hash_mix(h, uint64_t(s.kind) << 32 | uint32_t(s.slot));
    if (s.kind == CA_ARG_KEY)
      h = hash_bytes(h, s.arg.u.key.index, size_t(s.arg.u.key.nindex) * sizeof(Index));
    else if (s.kind != CA_ARG_LIST)
      h = hash_literal(h, s.arg);
  }
  return h;
}

// ------------------------------------------------------------------------------------------------
// BlockwiseLayer

BlockwiseLayer::BlockwiseLayer(std::string name, std::vector<Index> numblocks, std::string kernel,
                               std::vector<std::string> deps, std::vector<BlockwiseArg> args)
    : numblocks_(std::move(numblocks)), args_(std::move(args)) {
  CA_CHECK(!name.empty(), CA_EINVAL, "layer name is empty");
  CA_CHECK(!kernel.empty(), CA_EINVAL, "kernel name is empty for layer '", name, "'");
  name_ = std::move(name);
  deps_ = std::move(deps);
  kernels_ = {std::move(kernel)};
  init();
}

BlockwiseLayer::BlockwiseLayer(std::string name, std::vector<std::vector<Index>> chunks, std::string kernel,
                               std::vector<std::string> deps, std::vector<BlockwiseArg> args)
    : args_(std::move(args)), chunks_(std::move(chunks)) {
  CA_CHECK(!name.empty(), CA_EINVAL, "layer name is empty");
  CA_CHECK(!kernel.empty(), CA_EINVAL, "kernel name is empty for layer '", name, "'");
  name_ = std::move(name);
  deps_ = std::move(deps);
  kernels_ = {std::move(kernel)};
  for (auto &c : chunks_) {
    numblocks_.push_back(Index(c.size()));
    std::vector<Index> o(c.size());
    Index acc = 0;
    for (size_t i = 0; i < c.size(); ++i) {
      o[i] = acc;
      acc = (acc < 0 || c[i] < 0) ? -1 : checked_add(acc, c[i], "block offsets");  // -1: unknown (CA_CHUNK_UNKNOWN)
    }
    origins_.push_back(std::move(o));
  }
  init();
}

void BlockwiseLayer::init() {
  nindex_ = int32_t(numblocks_.size());
  CA_CHECK(nindex_ <= CA_MAX_NDIM, CA_EINVAL, "layer '", name_, "' has ", nindex_, " dimensions (max ", CA_MAX_NDIM, ")");
  for (Index n : numblocks_) CA_CHECK(n >= 0, CA_EINVAL, "layer '", name_, "' has a negative block count ", n);
  ntasks_ = blocks_product(numblocks_.data(), numblocks_.size(), str("layer '", name_, "'").c_str());
  // The same bound a graph file holds a layer to: what can be built can be saved and loaded.
  CA_CHECK(ntasks_ <= kMaxLayerTasks, CA_EINVAL, "layer '", name_, "': numblocks ", shape_str(numblocks_), " make ",
           ntasks_, " blocks, more than 2^62");
  for (auto &a : args_) {
    if (a.is_ref) {
      CA_CHECK(a.dep_slot >= 0 && size_t(a.dep_slot) < deps_.size(), CA_EINTERNAL, "bad dependency slot");
      for (auto &m : a.dims) {
        CA_CHECK((m.kind != DimMap::Out && m.kind != DimMap::Group) ||
                     (m.out_dim >= 0 && m.out_dim < nindex_),
                 CA_EINTERNAL, "blockwise dimension map refers to output dimension ", m.out_dim);
        CA_CHECK(m.kind != DimMap::Group || m.value >= 1, CA_EINVAL, "group size must be >= 1");
        Index top;  // emit_ref's last group ends at numblocks * value + value
        CA_CHECK(m.kind != DimMap::Group || (!__builtin_mul_overflow(numblocks_[size_t(m.out_dim)], m.value, &top) &&
                                             !__builtin_add_overflow(top, m.value, &top)),
                 CA_EINVAL, "layer '", name_, "': group size ", m.value, " over ", numblocks_[size_t(m.out_dim)],
                 " blocks is more than 2^63-1 blocks");
      }
    } else if (a.block_index) {
      a.special = BlockwiseArg::BlockIndex;
    } else if (a.special != BlockwiseArg::None) {
      CA_CHECK(!chunks_.empty() || nindex_ == 0, CA_EINTERNAL, "layer '", name_,
               "' uses block origin/shape literals without chunks");
    } else {
      // Re-point the payload at the layer's own storage.
      if (a.literal.kind == CA_ARG_STRING || a.literal.kind == CA_ARG_BYTES) {
        a.literal.u.bytes.data = a.payload.c_str();
        a.literal.u.bytes.len = a.payload.size();
      } else if (a.literal.kind == CA_ARG_TUPLE) {
        a.literal.u.tuple.items = a.tuple_payload.data();
        a.literal.u.tuple.len = a.tuple_payload.size();
      }
    }
  }
}

int64_t BlockwiseLayer::find(const Index *idx) const { return ntasks_ == 0 ? -1 : grid_find(numblocks_, idx); }

void BlockwiseLayer::key_at(int64_t local, Index *idx) const { grid_key_at(numblocks_, local, idx); }

void BlockwiseLayer::emit_ref(const BlockwiseArg &a, const Index *out, size_t d, Index *in, TaskEmitter &e) const {
  if (d == a.dims.size()) {
    e.ref(a.dep_slot, in, int32_t(a.dims.size()));
    return;
  }
  const DimMap &m = a.dims[d];
  switch (m.kind) {
    case DimMap::Out:
      in[d] = m.extent == 1 ? 0 : out[m.out_dim];
      emit_ref(a, out, d + 1, in, e);
      break;
    case DimMap::Const:
      in[d] = m.value;
      emit_ref(a, out, d + 1, in, e);
      break;
    case DimMap::Group:
    case DimMap::All: {
      Index lo = m.kind == DimMap::All ? 0 : out[m.out_dim] * m.value;
      Index hi = m.kind == DimMap::All ? m.extent : std::min(lo + m.value, m.extent);
      e.begin_list(size_t(std::max<Index>(hi - lo, 0)));
      for (Index i = lo; i < hi; ++i) {
        in[d] = i;
        emit_ref(a, out, d + 1, in, e);
      }
      e.end_list();
      break;
    }
  }
}

void BlockwiseLayer::emit(int64_t local, TaskEmitter &e) const {
  Index out[CA_MAX_NDIM + 1];
  Index in[CA_MAX_NDIM + 1];
  key_at(local, out);
  e.kernel(0);
  for (const BlockwiseArg &a : args_) {
    if (a.is_ref) {
      emit_ref(a, out, 0, in, e);
    } else if (a.special == BlockwiseArg::BlockIndex) {
      e.literal_copy(ca_arg_tuple(out, size_t(nindex_)));
    } else if (a.special == BlockwiseArg::BlockOrigin) {
      for (int32_t d = 0; d < nindex_; ++d) in[d] = origins_[size_t(d)][size_t(out[d])];
      e.literal_copy(ca_arg_tuple(in, size_t(nindex_)));
    } else if (a.special == BlockwiseArg::BlockShape) {
      for (int32_t d = 0; d < nindex_; ++d) in[d] = chunks_[size_t(d)][size_t(out[d])];
      e.literal_copy(ca_arg_tuple(in, size_t(nindex_)));
    } else {
      e.literal(a.literal);
    }
  }
}

uint64_t BlockwiseLayer::fingerprint() const {
  uint64_t h = hash_bytes(2, name_.data(), name_.size());
  h = hash_bytes(h, numblocks_.data(), numblocks_.size() * sizeof(Index));
  h = hash_bytes(h, kernels_[0].data(), kernels_[0].size());
  for (auto &d : deps_) h = hash_bytes(h, d.data(), d.size());
  for (auto &a : args_) {
    h = hash_mix(h, uint64_t(a.is_ref) | uint64_t(a.special) << 1 | uint64_t(uint32_t(a.dep_slot)) << 8);
    for (auto &m : a.dims) {
      h = hash_mix(h, uint64_t(m.kind));
      h = hash_mix(h, uint64_t(m.out_dim));
      h = hash_mix(h, uint64_t(m.value));
      h = hash_mix(h, uint64_t(m.extent));
    }
    if (!a.is_ref && a.special == BlockwiseArg::None) h = hash_literal(h, a.literal);
  }
  for (auto &c : chunks_) h = hash_bytes(h, c.data(), c.size() * sizeof(Index));
  return h;
}

// ------------------------------------------------------------------------------------------------
// DataLayer

DataLayer::DataLayer(std::string name, std::vector<Index> numblocks, std::vector<const Block *> blocks)
    : numblocks_(std::move(numblocks)), blocks_(std::move(blocks)) {
  name_ = std::move(name);
  nindex_ = int32_t(numblocks_.size());
  deps_ = {};
  kernels_ = {"ca.data"};
  Index n = 1;
  bool overflow = false;
  for (Index b : numblocks_) overflow |= b < 0 || __builtin_mul_overflow(n, b, &n);
  if (overflow || n != Index(blocks_.size())) {
    size_t have = blocks_.size();
    for (const Block *b : blocks_) block_release(b);
    blocks_.clear();
    fail(CA_EINTERNAL, "data layer '", name_, "' has ", have, " blocks for a grid of ", n);
  }
}

DataLayer::DataLayer(std::string name, std::vector<Index> numblocks, std::vector<const Block *> blocks,
                     std::vector<int32_t> home, int32_t nranks, std::vector<int64_t> nbytes)
    : DataLayer(std::move(name), std::move(numblocks), std::move(blocks)) {
  CA_CHECK(nranks >= 1 && home.size() == blocks_.size() && nbytes.size() == blocks_.size(), CA_EINTERNAL, "distributed data layer '", name_, "': ",
           home.size(), " homes for ", blocks_.size(), " blocks on ", nranks, " ranks");
  for (int32_t h : home) CA_CHECK(h >= 0 && h < nranks, CA_EINTERNAL, "distributed data layer '", name_, "': rank ", h);
  home_ = std::move(home);
  nbytes_ = std::move(nbytes);
  nranks_ = nranks;
}

int64_t DataLayer::block_bytes(int64_t local) const {
  return nranks_ > 0 ? nbytes_[size_t(local)] : blocks_[size_t(local)]->nbytes;
}

DataLayer::~DataLayer() {
  for (const Block *b : blocks_) block_release(b);
}

int64_t DataLayer::find(const Index *idx) const { return blocks_.empty() ? -1 : grid_find(numblocks_, idx); }

void DataLayer::key_at(int64_t local, Index *idx) const { grid_key_at(numblocks_, local, idx); }

void DataLayer::emit(int64_t local, TaskEmitter &e) const {
  e.kernel(0);
  ca_arg_t a = ca_arg_none();
  a.kind = CA_ARG_BLOCK;
  a.u.block = blocks_[size_t(local)];
  e.literal(a);
}

uint64_t DataLayer::fingerprint() const {
  // The name of a data layer is the token of its contents (from_buffer hashes the bytes, persist
  // names the expression it computed, a graph file keeps the saved name): as in dask, the same key
  // is the same value, so two such layers with the same name and block shapes are the same layer
  // (two arrays over equal buffers, an array persisted twice, a file loaded twice) whatever blocks
  // hold the values.
  uint64_t h = hash_bytes(3, name_.data(), name_.size());
  for (Index n : numblocks_) h = hash_mix(h, uint64_t(n));
  if (nranks_ > 0) {  // this rank holds only its own blocks: hash what every rank knows
    h = hash_mix(h, uint64_t(nranks_));
    for (int32_t r : home_) h = hash_mix(h, uint64_t(uint32_t(r)));
    return h;
  }
  for (const Block *b : blocks_) {
    h = hash_mix(h, uint64_t(uint32_t(b->dtype)));
    h = hash_bytes(h, b->shape, size_t(b->ndim) * sizeof(b->shape[0]));
  }
  return h;
}

namespace {
class KernelSlot final : public TaskEmitter {
 public:
  int32_t slot = -1;
  void kernel(int32_t s) override { slot = s; }
  void literal(const ca_arg_t &) override {}
  void literal_copy(const ca_arg_t &) override {}
  void ref(int32_t, const Index *, int32_t) override {}
  void begin_list(size_t) override {}
  void end_list() override {}
};
}  // namespace

const std::string &Layer::kernel_of(int64_t local) const {
  static const std::string unknown = "?";
  KernelSlot k;
  emit(local, k);
  return k.slot >= 0 && size_t(k.slot) < kernels_.size() ? kernels_[size_t(k.slot)] : unknown;
}

}  // namespace ca
