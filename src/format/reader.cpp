// Loading graphs from untrusted bytes. Every count, slot, index and size is checked before use; any
// inconsistency is CA_EFORMAT naming the layer and what is wrong. Materialized layers are rebuilt by
// filling their flat arrays directly (no per-task add_task), so a million-task layer loads in tens
// of milliseconds.
#include <capnp/any.h>
#include <capnp/message.h>
#include <capnp/serialize.h>
#include <fcntl.h>
#include <kj/exception.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <unordered_set>

#include "core/block.hpp"
#include "core/checked.hpp"
#include "format/format.hpp"
#include "format/layer_codecs.hpp"
#include "format/graph_file.capnp.h"

namespace ca::format {

namespace s = schema;

namespace {

bool mul_ok(int64_t a, int64_t b, int64_t *r) { return !__builtin_mul_overflow(a, b, r); }

std::string text(capnp::Text::Reader t) { return std::string(t.cStr(), t.size()); }

std::string layer_text(const std::string &name) { return "layer '" + name + "'"; }

// A name (layer, dependency, kernel): non-empty, without NUL bytes.
bool good_name(capnp::Text::Reader t) { return t.size() > 0 && std::strlen(t.cStr()) == t.size(); }

// The elements of a primitive list: a view of the message when they are stored as plain
// little-endian T (always for files this library writes), else a checked element-by-element copy.
template <class T>
const T *prim(typename capnp::List<T>::Reader r, std::vector<T> &holder) {
  constexpr capnp::ElementSize want = sizeof(T) == 1   ? capnp::ElementSize::BYTE
                                      : sizeof(T) == 4 ? capnp::ElementSize::FOUR_BYTES
                                                       : capnp::ElementSize::EIGHT_BYTES;
  capnp::AnyList::Reader any(r);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  if (any.getElementSize() == want) {
    auto raw = any.getRawBytes();
    if (raw.size() == size_t(r.size()) * sizeof(T) && reinterpret_cast<uintptr_t>(raw.begin()) % alignof(T) == 0)
      return reinterpret_cast<const T *>(raw.begin());
  }
#endif
  holder.resize(r.size());
  for (unsigned i = 0; i < r.size(); ++i) holder[i] = r[i];
  return holder.data();
}

// Big arrays of a loaded layer are written once, right away: on systems with transparent huge pages
// in "madvise" mode, asking for huge pages saves most of the page faults (the largest cost of
// loading a million-task layer). A hint only; harmless elsewhere.
void huge_hint(const void *p, size_t bytes) {
  constexpr uintptr_t kHuge = uintptr_t(2) << 20;
  static const bool off = std::getenv("CA_FORMAT_NO_HUGEPAGES") != nullptr;
  if (off || bytes < 2 * kHuge) return;
  uintptr_t b = reinterpret_cast<uintptr_t>(p), e = b + bytes;
  uintptr_t lo = (b + kHuge - 1) & ~(kHuge - 1), hi = e & ~(kHuge - 1);
  if (hi > lo) ::madvise(reinterpret_cast<void *>(lo), hi - lo, MADV_HUGEPAGE);
}

template <class V>
void reserve_huge(V &v, size_t n) {
  v.reserve(n);
  huge_hint(v.data(), n * sizeof(typename V::value_type));
}

}  // namespace

// The friend of MaterializedLayer that fills its private flat arrays.
struct MaterializedAccess {
  static std::shared_ptr<MaterializedLayer> build(const std::string &name, int32_t nindex,
                                                  std::vector<std::string> deps, s::Materialized::Reader m);
};

std::shared_ptr<MaterializedLayer> MaterializedAccess::build(const std::string &name, int32_t nindex,
                                                             std::vector<std::string> deps,
                                                             s::Materialized::Reader m) {
  const std::string where = layer_text(name);
  auto l = std::make_shared<MaterializedLayer>(name, nindex);
  l->deps_ = std::move(deps);
  auto kernels = m.getKernels();
  l->kernels_.reserve(kernels.size());
  for (auto k : kernels) {
    CA_CHECK(good_name(k), CA_EFORMAT, where, ": a kernel name is empty or has a NUL byte");
    l->kernels_.push_back(text(k));
  }
  // Recorded kernel versions: parallel to the kernels, or empty (files that record none).
  auto kv = m.getKernelVersions();
  CA_CHECK(kv.size() == 0 || kv.size() == kernels.size(), CA_EFORMAT, where, ": ", kv.size(),
           " kernel versions for ", kernels.size(), " kernels");
  if (kv.size() != 0) {
    std::vector<int32_t> versions(kv.size());
    for (unsigned i = 0; i < kv.size(); ++i) {
      versions[i] = kv[i];
      CA_CHECK(versions[i] >= 0, CA_EFORMAT, where, ": kernel '", l->kernels_[i], "' has negative version ",
               versions[i]);
    }
    l->set_kernel_versions(std::move(versions));
  }
  auto keys = m.getKeys();
  auto tk = m.getTaskKernel();
  auto tn = m.getTaskNargs();
  const size_t ntasks = tk.size();
  CA_CHECK(tn.size() == ntasks, CA_EFORMAT, where, ": ", ntasks, " task kernels but ", tn.size(), " argument counts");
  CA_CHECK(uint64_t(keys.size()) == uint64_t(ntasks) * uint64_t(nindex), CA_EFORMAT, where, ": ", keys.size(),
           " key indices for ", ntasks, " tasks of ", nindex, " indices");
  auto kind = m.getArgKind();
  auto arga = m.getArgA();
  auto argb = m.getArgB();
  auto refs = m.getRefIndex();
  auto blobs = m.getBlobs();
  auto tuples = m.getTuples();
  auto slices = m.getSlices();
  const size_t nargs_total = kind.size();
  CA_CHECK(arga.size() == nargs_total && argb.size() == nargs_total, CA_EFORMAT, where, ": argument lists differ in length (",
           kind.size(), ", ", arga.size(), ", ", argb.size(), ")");

  // Views of the big lists (no per-element accessor calls on the hot path).
  std::vector<int64_t> h_keys, h_arga, h_refs;
  std::vector<uint32_t> h_tk, h_tn;
  std::vector<uint8_t> h_kind, h_argb;
  const int64_t *keyp = prim<int64_t>(keys, h_keys);
  const uint32_t *tkp = prim<uint32_t>(tk, h_tk);
  const uint32_t *tnp = prim<uint32_t>(tn, h_tn);
  const uint8_t *kindp = prim<uint8_t>(kind, h_kind);
  const int64_t *argap = prim<int64_t>(arga, h_arga);
  const uint8_t *argbp = prim<uint8_t>(argb, h_argb);
  const int64_t *refp = prim<int64_t>(refs, h_refs);
  // Keys (and the bounding box).
  reserve_huge(l->keys_, keys.size());
  l->keys_.assign(keyp, keyp + keys.size());
  for (size_t t = 0; t < ntasks; ++t)
    for (int32_t d = 0; d < nindex; ++d) {
      Index v = keyp[t * size_t(nindex) + size_t(d)];
      // As MaterializedLayer::add_task: block indices below 2^62 (numblocks is max + 1).
      CA_CHECK(v < kMaxLayerTasks, CA_EFORMAT, where, ": key index ", v, " along dimension ", d,
               " is not below 2^62");
      if (v > l->max_idx_[size_t(d)]) l->max_idx_[size_t(d)] = v;
    }
  // Per-task kernel slots and argument counts.
  const uint32_t nkernels = kernels.size();
  reserve_huge(l->task_kernel_, ntasks);
  l->task_kernel_.resize(ntasks);
  for (size_t t = 0; t < ntasks; ++t) {
    uint32_t k = tkp[t];
    CA_CHECK(k < nkernels, CA_EFORMAT, where, ": task ", t, " uses kernel slot ", k, " of ", nkernels);
    l->task_kernel_[t] = int32_t(k);
  }
  reserve_huge(l->task_nargs_, ntasks);
  l->task_nargs_.assign(tnp, tnp + ntasks);
  reserve_huge(l->task_args_, ntasks);
  l->task_args_.resize(ntasks);
  // Arguments: one preorder pass. `pending` counts the items still owed to each open list.
  reserve_huge(l->stored_, nargs_total);  // filled by push_back: one pass over the memory, no zeroing
  const int64_t *refbase = nullptr;
  size_t nref = refs.size(), refpos = 0;
  if (nref) {
    int64_t *copy = static_cast<int64_t *>(l->arena_.alloc(nref * sizeof(int64_t), 8));
    huge_hint(copy, nref * sizeof(int64_t));
    std::memcpy(copy, refp, nref * sizeof(int64_t));
    refbase = copy;
  }
  const size_t ndeps = l->deps_.size();
  uint32_t pending[kMaxArgDepth + 1];
  size_t pos = 0;
  for (size_t t = 0; t < ntasks; ++t) {
    l->task_args_[t] = pos;
    int depth = 0;
    pending[0] = l->task_nargs_[t];
    while (depth > 0 || pending[0] > 0) {
      if (pending[depth] == 0) {
        --depth;
        continue;
      }
      --pending[depth];
      CA_CHECK(pos < nargs_total, CA_EFORMAT, where, ": the arguments of task ", t, " run past the ", nargs_total,
               " stored arguments");
      MaterializedLayer::Stored st;
      const unsigned p = unsigned(pos++);
      const int32_t k = kindp[p];
      const int64_t a = argap[p];
      st.kind = k;
      st.slot = 0;
      st.arg = ca_arg_none();
      st.arg.kind = ca_arg_kind_t(k);
      switch (k) {
        case CA_ARG_NONE: break;
        case CA_ARG_INT64: st.arg.u.i64 = a; break;
        case CA_ARG_FLOAT64: std::memcpy(&st.arg.u.f64, &a, sizeof(double)); break;
        case CA_ARG_STRING:
        case CA_ARG_BYTES: {
          CA_CHECK(a >= 0 && uint64_t(a) < blobs.size(), CA_EFORMAT, where, ": task ", t, " refers to blob ", a,
                   " of ", blobs.size());
          auto b = blobs[unsigned(a)];
          st.arg.u.bytes.data = l->arena_.copy_bytes(b.begin(), b.size());
          st.arg.u.bytes.len = b.size();
          break;
        }
        case CA_ARG_TUPLE: {
          CA_CHECK(a >= 0 && uint64_t(a) < tuples.size(), CA_EFORMAT, where, ": task ", t, " refers to tuple ", a,
                   " of ", tuples.size());
          auto tup = tuples[unsigned(a)];
          int64_t *items = static_cast<int64_t *>(l->arena_.alloc(sizeof(int64_t) * (tup.size() ? tup.size() : 1), 8));
          for (unsigned i = 0; i < tup.size(); ++i) items[i] = tup[i];
          st.arg.u.tuple.items = items;
          st.arg.u.tuple.len = tup.size();
          break;
        }
        case CA_ARG_SLICE: {
          CA_CHECK(a >= 0 && uint64_t(a) < slices.size(), CA_EFORMAT, where, ": task ", t, " refers to slice ", a,
                   " of ", slices.size());
          auto sl = slices[unsigned(a)];
          st.arg.u.slice = ca_slice_t{sl.getStart(), sl.getStop(), sl.getStep(), sl.getFlags()};
          break;
        }
        case CA_ARG_KEY: {
          const uint32_t n = argbp[p];
          CA_CHECK(a >= 0 && uint64_t(a) < ndeps, CA_EFORMAT, where, ": task ", t, " references dependency slot ",
                   a, " of ", ndeps);
          CA_CHECK(n <= uint32_t(kMaxNindex), CA_EFORMAT, where, ": task ", t, " references a key with ", n,
                   " indices");
          CA_CHECK(nref - refpos >= n, CA_EFORMAT, where, ": task ", t, " references key indices past the ", nref,
                   " stored");
          st.slot = int32_t(a);
          st.arg.u.key.name = nullptr;
          st.arg.u.key.index = refbase ? refbase + refpos : l->arena_.copy_i64(nullptr, 0);
          st.arg.u.key.nindex = int32_t(n);
          refpos += n;
          break;
        }
        case CA_ARG_LIST: {
          CA_CHECK(a >= 0 && a < (int64_t(1) << 31), CA_EFORMAT, where, ": task ", t, " has a list of ", a, " items");
          CA_CHECK(depth < kMaxArgDepth, CA_EFORMAT, where, ": task ", t, " nests lists more than ", kMaxArgDepth,
                   " deep");
          st.slot = int32_t(a);
          st.arg.u.list.items = nullptr;
          st.arg.u.list.len = size_t(a);
          pending[++depth] = uint32_t(a);
          break;
        }
        default: fail(CA_EFORMAT, where, ": task ", t, " has an argument of unknown kind ", k);
      }
      l->stored_.push_back(st);
    }
  }
  CA_CHECK(pos == nargs_total, CA_EFORMAT, where, ": ", nargs_total - pos, " stored arguments belong to no task");
  CA_CHECK(refpos == nref, CA_EFORMAT, where, ": ", nref - refpos, " key indices belong to no reference");
  // The key table (open addressing, as add_task keeps it); duplicates are an error. The inserts are
  // random accesses: each home slot is prefetched a few inserts ahead.
  size_t cap = 16;
  while (cap < 2 * ntasks) cap *= 2;
  std::vector<int64_t>().swap(l->table_);
  reserve_huge(l->table_, cap);
  l->table_.assign(cap, -1);
  const size_t mask = cap - 1;
  const Index *kd = l->keys_.data();
  int64_t *table = l->table_.data();
  constexpr size_t kAhead = 16;  // home slots are hashed and prefetched this many inserts ahead
  size_t ring[kAhead];
  for (size_t t = 0; t < std::min(kAhead, ntasks); ++t) ring[t] = l->hash_idx(kd + t * size_t(nindex)) & mask;
  for (size_t t = 0; t < ntasks; ++t) {
    size_t p = ring[t % kAhead];
    if (t + kAhead < ntasks) {
      size_t h = l->hash_idx(kd + (t + kAhead) * size_t(nindex)) & mask;
      ring[t % kAhead] = h;
      __builtin_prefetch(table + h, 1);
    }
    const Index *idx = kd + t * size_t(nindex);
    while (true) {
      int64_t o = table[p];
      if (o < 0) break;
      if (std::equal(idx, idx + nindex, kd + o * nindex))
        fail(CA_EFORMAT, where, ": duplicate key ", key_str(name, idx, nindex));
      p = (p + 1) & mask;
    }
    table[p] = int64_t(t);
  }
  return l;
}

namespace {

std::vector<Index> int_list(capnp::List<int64_t>::Reader r) {
  std::vector<Index> v(r.size());
  for (unsigned i = 0; i < r.size(); ++i) v[i] = r[i];
  return v;
}

ca_arg_t literal_arg(s::Literal::Reader lit, std::vector<int64_t> &tuple_tmp, const std::string &where) {
  ca_arg_t a = ca_arg_none();
  switch (lit.which()) {
    case s::Literal::NONE: break;
    case s::Literal::I64: a = ca_arg_i64(lit.getI64()); break;
    case s::Literal::F64: a = ca_arg_f64(lit.getF64()); break;
    case s::Literal::STRING: {
      auto d = lit.getString();
      a = ca_arg_bytes(d.begin(), d.size());
      a.kind = CA_ARG_STRING;
      break;
    }
    case s::Literal::BYTES: {
      auto d = lit.getBytes();
      a = ca_arg_bytes(d.begin(), d.size());
      break;
    }
    case s::Literal::TUPLE:
      tuple_tmp = int_list(lit.getTuple());
      a = ca_arg_tuple(tuple_tmp.data(), tuple_tmp.size());
      break;
    case s::Literal::SLICE: {
      auto sl = lit.getSlice();
      a.kind = CA_ARG_SLICE;
      a.u.slice = ca_slice_t{sl.getStart(), sl.getStop(), sl.getStep(), sl.getFlags()};
      break;
    }
    default: fail(CA_EFORMAT, where, ": a literal argument of unknown kind");
  }
  return a;
}

LayerPtr read_blockwise(const std::string &name, int32_t nindex, std::vector<std::string> deps,
                        s::Blockwise::Reader b) {
  const std::string where = layer_text(name);
  CA_CHECK(good_name(b.getKernel()), CA_EFORMAT, where, ": the kernel name is empty or has a NUL byte");
  std::string kernel = text(b.getKernel());
  const int32_t kernel_version = b.getKernelVersion();  // 0 in files that record none
  CA_CHECK(kernel_version >= 0, CA_EFORMAT, where, ": kernel '", kernel, "' has negative version ", kernel_version);
  std::vector<Index> nb = int_list(b.getNumblocks());
  CA_CHECK(int32_t(nb.size()) == nindex, CA_EFORMAT, where, ": ", nb.size(), " block counts for keys of ", nindex,
           " indices");
  CA_CHECK(nindex <= CA_MAX_NDIM, CA_EFORMAT, where, ": ", nindex, " dimensions (at most ", CA_MAX_NDIM, ")");
  int64_t ntasks = 1;
  for (size_t d = 0; d < nb.size(); ++d) {
    CA_CHECK(nb[d] >= 0, CA_EFORMAT, where, ": negative block count ", nb[d], " along dimension ", d);
    CA_CHECK(mul_ok(ntasks, nb[d], &ntasks) && ntasks <= kMaxTasks, CA_EFORMAT, where, ": the number of blocks overflows");
  }
  std::vector<std::vector<Index>> chunks;
  bool has_chunks = b.getHasChunks();
  if (has_chunks) {
    auto ch = b.getChunks();
    CA_CHECK(int32_t(ch.size()) == nindex, CA_EFORMAT, where, ": chunks have ", ch.size(), " dimensions, keys ", nindex);
    for (unsigned d = 0; d < ch.size(); ++d) {
      chunks.push_back(int_list(ch[d]));
      CA_CHECK(Index(chunks.back().size()) == nb[d], CA_EFORMAT, where, ": ", chunks.back().size(),
               " chunks along dimension ", d, " but ", nb[d], " blocks");
      Index sum = 0;
      for (Index c : chunks.back()) {
        // -1: an unknown size (dask's NaN chunks, after boolean indexing).
        CA_CHECK(c >= -1, CA_EFORMAT, where, ": negative chunk size ", c, " along dimension ", d);
        if (c < 0) continue;
        CA_CHECK(!__builtin_add_overflow(sum, c, &sum), CA_EFORMAT, where, ": chunk sizes overflow along dimension ", d);
      }
    }
  }
  std::vector<BlockwiseArg> args;
  auto ar = b.getArgs();
  args.reserve(ar.size());
  std::vector<int64_t> tuple_tmp;
  for (unsigned i = 0; i < ar.size(); ++i) {
    auto a = ar[i];
    switch (a.which()) {
      case s::BlockwiseArg::REF: {
        auto r = a.getRef();
        BlockwiseArg ba;
        ba.is_ref = true;
        ba.dep_slot = r.getDepSlot();
        CA_CHECK(ba.dep_slot >= 0 && size_t(ba.dep_slot) < deps.size(), CA_EFORMAT, where, ": argument ", i,
                 " uses dependency slot ", ba.dep_slot, " of ", deps.size());
        auto dims = r.getDims();
        CA_CHECK(dims.size() <= CA_MAX_NDIM, CA_EFORMAT, where, ": argument ", i, " has ", dims.size(),
                 " dimensions (at most ", CA_MAX_NDIM, ")");
        int64_t fan = 1;
        for (unsigned d = 0; d < dims.size(); ++d) {
          DimMap m;
          m.kind = dims[d].getKind();
          m.out_dim = dims[d].getOutDim();
          m.value = dims[d].getValue();
          m.extent = dims[d].getExtent();
          CA_CHECK(m.kind >= DimMap::Out && m.kind <= DimMap::All, CA_EFORMAT, where, ": argument ", i,
                   " dimension ", d, " has unknown map kind ", m.kind);
          CA_CHECK(m.extent >= 0, CA_EFORMAT, where, ": argument ", i, " dimension ", d, " has negative extent ",
                   m.extent);
          if (m.kind == DimMap::Out || m.kind == DimMap::Group)
            CA_CHECK(m.out_dim >= 0 && m.out_dim < nindex, CA_EFORMAT, where, ": argument ", i, " dimension ", d,
                     " maps to output dimension ", m.out_dim, " of ", nindex);
          if (m.kind == DimMap::Group) {
            CA_CHECK(m.value >= 1, CA_EFORMAT, where, ": argument ", i, " dimension ", d, " has group size ", m.value);
            int64_t top = 0;  // the input range of the last output block must be representable
            CA_CHECK(mul_ok(nb[size_t(m.out_dim)], m.value, &top) && !__builtin_add_overflow(top, m.value, &top),
                     CA_EFORMAT, where, ": argument ", i, " dimension ", d, " has group size ", m.value,
                     " too large for ", nb[size_t(m.out_dim)], " blocks");
            CA_CHECK(mul_ok(fan, std::min(m.value, std::max<int64_t>(m.extent, 1)), &fan), CA_EFORMAT, where,
                     ": argument ", i, " references too many blocks");
          } else if (m.kind == DimMap::All) {
            CA_CHECK(mul_ok(fan, std::max<int64_t>(m.extent, 1), &fan), CA_EFORMAT, where, ": argument ", i,
                     " references too many blocks");
          }
          CA_CHECK(fan <= kMaxFanIn, CA_EFORMAT, where, ": argument ", i, " references ", fan, " blocks per task");
          ba.dims.push_back(m);
        }
        args.push_back(std::move(ba));
        break;
      }
      case s::BlockwiseArg::LITERAL:
        args.push_back(blockwise_literal(literal_arg(a.getLiteral(), tuple_tmp, where)));
        break;
      case s::BlockwiseArg::SPECIAL: {
        int32_t sp = a.getSpecial();
        CA_CHECK(sp >= BlockwiseArg::BlockIndex && sp <= BlockwiseArg::BlockShape, CA_EFORMAT, where, ": argument ",
                 i, " is an unknown special literal ", sp);
        CA_CHECK(sp == BlockwiseArg::BlockIndex || has_chunks || nindex == 0, CA_EFORMAT, where, ": argument ", i,
                 " is a block origin/shape but the layer has no chunks");
        BlockwiseArg ba;
        ba.special = sp;
        ba.block_index = sp == BlockwiseArg::BlockIndex;
        args.push_back(std::move(ba));
        break;
      }
      default: fail(CA_EFORMAT, where, ": argument ", i, " is of an unknown kind");
    }
  }
  std::shared_ptr<BlockwiseLayer> layer =
      has_chunks
          ? std::make_shared<BlockwiseLayer>(name, std::move(chunks), std::move(kernel), std::move(deps), std::move(args))
          : std::make_shared<BlockwiseLayer>(name, std::move(nb), std::move(kernel), std::move(deps), std::move(args));
  if (kernel_version != 0) layer->set_kernel_versions({kernel_version});
  return layer;
}

LayerPtr read_data(const std::string &name, int32_t nindex, s::DataLayer::Reader r) {
  const std::string where = layer_text(name);
  std::vector<Index> nb = int_list(r.getNumblocks());
  CA_CHECK(int32_t(nb.size()) == nindex, CA_EFORMAT, where, ": ", nb.size(), " block counts for keys of ", nindex,
           " indices");
  CA_CHECK(nindex <= CA_MAX_NDIM, CA_EFORMAT, where, ": ", nindex, " dimensions (at most ", CA_MAX_NDIM, ")");
  auto blocks = r.getBlocks();
  int64_t n = 1;
  for (size_t d = 0; d < nb.size(); ++d) {
    CA_CHECK(nb[d] >= 0, CA_EFORMAT, where, ": negative block count ", nb[d]);
    CA_CHECK(mul_ok(n, nb[d], &n), CA_EFORMAT, where, ": the number of blocks overflows");
  }
  CA_CHECK(n == int64_t(blocks.size()), CA_EFORMAT, where, ": ", blocks.size(), " blocks for a grid of ", n);
  std::vector<const Block *> out;
  out.reserve(blocks.size());
  try {
    for (unsigned i = 0; i < blocks.size(); ++i) {
      auto b = blocks[i];
      DType dt = b.getDtype();
      CA_CHECK(dtype_valid(dt), CA_EFORMAT, where, ": block ", i, " has invalid dtype ", dt);
      auto sh = b.getShape();
      CA_CHECK(sh.size() <= CA_MAX_NDIM, CA_EFORMAT, where, ": block ", i, " has ", sh.size(), " dimensions");
      int64_t shape[CA_MAX_NDIM];
      int64_t bytes = int64_t(dtype_size(dt));
      for (unsigned d = 0; d < sh.size(); ++d) {
        shape[d] = sh[d];
        CA_CHECK(shape[d] >= 0, CA_EFORMAT, where, ": block ", i, " has negative extent ", shape[d]);
        CA_CHECK(mul_ok(bytes, shape[d], &bytes), CA_EFORMAT, where, ": block ", i, " size overflows");
      }
      auto pieces = b.getData();
      uint64_t have = 0;
      for (auto p : pieces) have += p.size();
      CA_CHECK(have == uint64_t(bytes), CA_EFORMAT, where, ": block ", i, " has ", have, " bytes of data, its shape needs ",
               bytes);
      Block *blk = block_new(dt, int32_t(sh.size()), shape);
      out.push_back(blk);
      char *dst = static_cast<char *>(blk->data);
      for (auto p : pieces) {
        if (p.size()) std::memcpy(dst, p.begin(), p.size());
        dst += p.size();
      }
    }
  } catch (...) {
    for (const Block *b : out) block_release(b);
    throw;
  }
  return std::make_shared<DataLayer>(name, std::move(nb), std::move(out));
}

FileContents decode(s::File::Reader f, uint32_t version) {
  CA_CHECK(f.getVersion() == version, CA_EFORMAT, "the message says format version ", f.getVersion(),
           " but the header says ", version);
  FileContents fc;
  fc.version = version;
  fc.graph = std::make_shared<Graph>();
  std::unordered_set<std::string> seen;
  auto layers = f.getLayers();
  for (unsigned i = 0; i < layers.size(); ++i) {
    auto l = layers[i];
    CA_CHECK(good_name(l.getName()), CA_EFORMAT, "layer ", i, " has an empty name or one with a NUL byte");
    std::string name = text(l.getName());
    CA_CHECK(seen.insert(name).second, CA_EFORMAT, "two layers are named '", name, "'");
    int32_t nindex = l.getNindex();
    CA_CHECK(nindex >= 0 && nindex <= kMaxNindex, CA_EFORMAT, layer_text(name), ": keys have ", nindex,
             " indices (0..", kMaxNindex, " allowed)");
    std::vector<std::string> deps;
    for (auto d : l.getDeps()) {
      CA_CHECK(good_name(d), CA_EFORMAT, layer_text(name),
               ": a dependency name is empty or has a NUL");
      deps.push_back(text(d));
    }
    // Every stored form has its codec (layer_codecs.hpp); a member this library does not know
    // comes from a newer writer.
    const LayerCodec *codec = layer_codec(l.which());
    if (!codec) fail(CA_EFORMAT, layer_text(name), " is of an unknown kind (a newer file?)");
    CA_CHECK(codec->since_version <= version, CA_EFORMAT, layer_text(name), " is stored as an ", codec->name,
             " layer, which format version ", version, " files cannot hold (from version ", codec->since_version, ")");
    LayerPtr lp = codec->load(LayerHead{name, nindex, std::move(deps)}, l);
    fc.graph->add_layer(std::move(lp));
  }
  auto arrays = f.getArrays();
  for (unsigned i = 0; i < arrays.size(); ++i) {
    auto a = arrays[i];
    ArrayEntry e;
    CA_CHECK(good_name(a.getName()), CA_EFORMAT, "array ", i, " has an empty name or one with a NUL byte");
    e.name = text(a.getName());
    const Layer *l = fc.graph->find(e.name);
    CA_CHECK(l, CA_EFORMAT, "array ", i, " ('", e.name, "') has no layer in the file");
    e.dtype = a.getDtype();
    CA_CHECK(dtype_valid(e.dtype) && e.dtype != CA_RAW, CA_EFORMAT, "array '", e.name, "' has invalid dtype ", e.dtype);
    auto ch = a.getChunks();
    CA_CHECK(ch.size() <= CA_MAX_NDIM, CA_EFORMAT, "array '", e.name, "' has ", ch.size(), " dimensions");
    CA_CHECK(int32_t(ch.size()) == l->nindex(), CA_EFORMAT, "array '", e.name, "' has ", ch.size(),
             " dimensions but its layer's keys have ", l->nindex(), " indices");
    for (unsigned d = 0; d < ch.size(); ++d) {
      e.chunks.push_back(int_list(ch[d]));
      Index sum = 0;
      for (Index c : e.chunks.back()) {
        // -1: an unknown size (dask's NaN chunks, after boolean indexing).
        CA_CHECK(c >= -1, CA_EFORMAT, "array '", e.name, "' has a negative chunk size along axis ", d);
        if (c < 0) continue;
        CA_CHECK(!__builtin_add_overflow(sum, c, &sum), CA_EFORMAT, "array '", e.name, "' chunk sizes overflow");
      }
    }
    fc.arrays.push_back(std::move(e));
  }
  auto masked = f.getMasked();
  for (unsigned i = 0; i < masked.size(); ++i) {
    auto m = masked[i];
    MaskedEntry e;
    e.data = m.getData();
    e.mask = m.getMask();
    CA_CHECK(e.data < fc.arrays.size() && e.mask < fc.arrays.size(), CA_EFORMAT, "masked array ", i,
             " names array ", std::max(e.data, e.mask), " of ", fc.arrays.size());
    const ArrayEntry &d = fc.arrays[e.data], &k = fc.arrays[e.mask];
    CA_CHECK(k.dtype == CA_BOOL && k.chunks == d.chunks, CA_EFORMAT, "masked array ", i, ": its mask '", k.name,
             "' is not a bool array of its data's chunks");
    e.nomask = m.getNomask();
    e.has_fill = m.getHasFill();
    e.fill_kind = m.getFillKind();
    e.fill_flags = m.getFillFlags();
    e.fill_re = m.getFillRe();
    e.fill_im = m.getFillIm();
    e.fill_i64 = m.getFillI64();
    fc.masked.push_back(e);
  }
  return fc;
}

}  // namespace

namespace detail {

LayerPtr load_materialized_layer(LayerHead h, s::Layer::Reader r) {
  return MaterializedAccess::build(h.name, h.nindex, std::move(h.deps), r.getMaterialized());
}
LayerPtr load_blockwise_layer(LayerHead h, s::Layer::Reader r) {
  return read_blockwise(h.name, h.nindex, std::move(h.deps), r.getBlockwise());
}
LayerPtr load_data_layer(LayerHead h, s::Layer::Reader r) {
  CA_CHECK(h.deps.empty(), CA_EFORMAT, layer_text(h.name), ": a data layer has dependencies");
  return read_data(h.name, h.nindex, r.getData());
}

}  // namespace detail

FileContents load_bytes(const void *data, size_t size) {
  CA_CHECK(data || size == 0, CA_EINVAL, "data is NULL");
  const unsigned char *p = static_cast<const unsigned char *>(data);
  CA_CHECK(size >= kHeaderSize, CA_EFORMAT, "not a chunkarray graph file: ", size, " bytes, shorter than the header");
  CA_CHECK(std::memcmp(p, kMagic, 8) == 0, CA_EFORMAT, "not a chunkarray graph file (bad magic)");
  uint32_t version = 0, flags = 0;
  for (int i = 0; i < 4; ++i) {
    version |= uint32_t(p[8 + i]) << (8 * i);
    flags |= uint32_t(p[12 + i]) << (8 * i);
  }
  CA_CHECK(version >= 1, CA_EFORMAT, "graph file format version 0 is invalid");
  if (version > kFormatVersion)
    fail(CA_EVERSION, "graph file format version ", version, " is newer than this library reads (up to ",
         kFormatVersion, "): upgrade chunkarray to load it");
  CA_CHECK(flags == 0, CA_EFORMAT, "graph file header has unknown flags 0x", std::hex, flags);
  size_t body = size - kHeaderSize;
  CA_CHECK(body > 0, CA_EFORMAT, "graph file has no message after the header");
  const unsigned char *msg = p + kHeaderSize;
  // The message's framing (Cap'n Proto's segment table: the segment count - 1, then each segment's
  // size in words, padded to a word) says how long the message is: a shorter file is truncated, told
  // in our words before Cap'n Proto sees it.
  auto le32 = [](const unsigned char *q) {
    return uint32_t(q[0]) | uint32_t(q[1]) << 8 | uint32_t(q[2]) << 16 | uint32_t(q[3]) << 24;
  };
  CA_CHECK(body >= 8, CA_EFORMAT, "graph file is truncated: ", body, " message bytes after the header, "
           "fewer than the message's segment table");
  uint64_t nseg = uint64_t(le32(msg)) + 1;
  CA_CHECK(nseg <= 512, CA_EFORMAT, "graph file is corrupt: its message claims ", nseg, " segments (at most 512)");
  uint64_t table = (4 + 4 * nseg + 7) / 8 * 8;
  CA_CHECK(body >= table, CA_EFORMAT, "graph file is truncated: ", body, " message bytes after the header, "
           "fewer than the ", table, "-byte segment table");
  uint64_t need = table;
  for (uint64_t i = 0; i < nseg; ++i) need += uint64_t(le32(msg + 4 + 4 * i)) * sizeof(capnp::word);
  CA_CHECK(body >= need, CA_EFORMAT, "graph file is truncated: its message needs ", need, " bytes after the header, the file has ", body);
  CA_CHECK(body % sizeof(capnp::word) == 0, CA_EFORMAT, "graph file is corrupt: ", body,
           " message bytes, not a whole number of 8-byte words");
  kj::Array<capnp::word> copy;
  if (reinterpret_cast<uintptr_t>(msg) % alignof(capnp::word) != 0) {
    copy = kj::heapArray<capnp::word>(body / sizeof(capnp::word));
    std::memcpy(copy.begin(), msg, body);
    msg = reinterpret_cast<const unsigned char *>(copy.begin());
  }
  kj::ArrayPtr<const capnp::word> words(reinterpret_cast<const capnp::word *>(msg), body / sizeof(capnp::word));
  try {
    capnp::ReaderOptions opts;
    // Every byte is read about once: a traversal budget of twice the message (plus slack for empty
    // lists) stops amplification through shared pointers; the schema nests fewer than 10 levels.
    opts.traversalLimitInWords = words.size() * 2 + 4096;
    opts.nestingLimit = 16;
    capnp::FlatArrayMessageReader reader(words, opts);
    CA_CHECK(reader.getEnd() == words.end(), CA_EFORMAT, "graph file has ",
             (words.end() - reader.getEnd()) * sizeof(capnp::word), " bytes of trailing garbage");
    return decode(reader.getRoot<s::File>(), version);
  } catch (const kj::Exception &) {
    // Cap'n Proto's own text names its internals (pointer and segment bounds): not ours to show.
    fail(CA_EFORMAT, "graph file is corrupt: its message does not decode (a pointer, list or struct lies outside "
                     "the message, or the structure nests too deep)");
  }
}

FileContents load_file(const std::string &path) {
  CA_CHECK(!path.empty(), CA_EINVAL, "the file path is empty");
  // O_NONBLOCK: a FIFO in place of the file must not block the open (it is then refused below).
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) {
    int err = errno;
    fail(err == ENOENT ? CA_ENOTFOUND : CA_EIO, "cannot open '", path, "': ", std::strerror(err));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    fail(CA_EIO, "'", path, "' is not a regular file", S_ISFIFO(st.st_mode) ? " (a FIFO)" : S_ISDIR(st.st_mode) ? " (a directory)" : "");
  }
  size_t size = size_t(st.st_size);
  if (size == 0) {
    ::close(fd);
    fail(CA_EFORMAT, "'", path, "' is empty, not a chunkarray graph file");
  }
  void *map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  int err = errno;
  ::close(fd);
  if (map == MAP_FAILED) fail(CA_EIO, "cannot map '", path, "': ", std::strerror(err));
  struct Unmap {
    void *p;
    size_t n;
    ~Unmap() { ::munmap(p, n); }
  } unmap{map, size};
  try {
    return load_bytes(map, size);
  } catch (const Error &e) {
    fail(e.code(), path, ": ", e.message());
  }
}

}  // namespace ca::format
