#include "array/array.hpp"

#include "core/bytesize.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "array/expr.hpp"
#include "core/checked.hpp"
#include "exec/executor.hpp"
#include "graph/plan.hpp"
#include "kernel/kernel.hpp"

namespace ca {

// ------------------------------------------------------------------------------------------------
// model

Index Array::size() const {
  for (Index s : shape)
    if (s == kUnknownChunk) return kUnknownChunk;
  return shape_size(shape);
}

Index Array::nblocks() const { return blocks_product(numblocks.data(), numblocks.size(), "array"); }

std::vector<Index> chunks_shape(const Chunks &chunks) {
  CA_CHECK(chunks.size() <= CA_MAX_NDIM, CA_EINVAL, "arrays have at most ", CA_MAX_NDIM, " dimensions, got ",
           chunks.size());
  std::vector<Index> shape;
  for (size_t d = 0; d < chunks.size(); ++d) {
    Index s = 0;
    CA_CHECK(!chunks[d].empty(), CA_EINVAL, "chunks along axis ", d, " are empty: every dimension has at least one block");
    CA_CHECK(Index(chunks[d].size()) <= kMaxBlocksPerAxis, CA_EINVAL, "chunks along axis ", d, " have ",
             chunks[d].size(), " blocks, more than the ", kMaxBlocksPerAxis, " blocks per axis allowed");
    bool unknown = false;
    for (Index c : chunks[d]) {
      if (c == kUnknownChunk) {
        unknown = true;
        continue;
      }
      CA_CHECK(c >= 0, CA_EINVAL, "chunk size ", c, " along axis ", d, " is negative");
      if (__builtin_add_overflow(s, c, &s)) fail(CA_EINVAL, "chunks along axis ", d, " sum to more than 2^63-1");
    }
    shape.push_back(unknown ? kUnknownChunk : s);
  }
  return shape;
}

bool chunks_known(const Chunks &chunks) {
  for (auto &c : chunks)
    for (Index v : c)
      if (v == kUnknownChunk) return false;
  return true;
}

void require_known_chunks(const Array &a, const char *what, int32_t axis) {
  for (int32_t d = 0; d < a.ndim(); ++d) {
    if (axis >= 0 && d != axis) continue;
    for (Index v : a.chunks[size_t(d)])
      if (v == kUnknownChunk)
        fail(CA_EINVAL, what, ": chunk sizes are unknown along axis ", d,
             "; call ca_array_compute_chunk_sizes (dask's compute_chunk_sizes) first");
  }
}

std::vector<std::vector<Index>> chunk_offsets(const Chunks &chunks) {
  std::vector<std::vector<Index>> off(chunks.size());
  for (size_t d = 0; d < chunks.size(); ++d) {
    Index acc = 0;
    for (Index c : chunks[d]) {
      off[d].push_back(acc);
      acc = (acc == kUnknownChunk || c == kUnknownChunk) ? kUnknownChunk : checked_add(acc, c, "chunk offsets");
    }
  }
  return off;
}

std::string chunks_str(const Chunks &chunks) {
  std::ostringstream os;
  os << "(";
  for (size_t d = 0; d < chunks.size(); ++d) {
    if (d) os << ", ";
    os << "(";
    for (size_t i = 0; i < chunks[d].size(); ++i) {
      os << (i ? ", " : "");
      if (chunks[d][i] == kUnknownChunk) os << "nan";
      else os << chunks[d][i];
    }
    if (chunks[d].size() == 1) os << ",";
    os << ")";
  }
  if (chunks.size() == 1) os << ",";
  os << ")";
  return os.str();
}

ArrayPtr array_from_layer(GraphPtr graph, const std::string &name, Chunks chunks, DType dtype, ExprPtr expr) {
  auto a = std::make_shared<Array>();
  a->shape = chunks_shape(chunks);
  for (auto &c : chunks) a->numblocks.push_back(Index(c.size()));
  // Sizes are checked once here, so size(), nbytes(), nblocks() and the offsets and strides
  // derived from them fit in int64 everywhere after (unknown extents count as 1).
  {
    std::vector<Index> known = a->shape;
    for (Index &e : known)
      if (e == kUnknownChunk) e = 1;
    (void)shape_nbytes(known, dtype_size(dtype));
    (void)blocks_product(a->numblocks.data(), a->numblocks.size(), "array");
  }
  a->graph = std::move(graph);
  a->name = name;
  a->chunks = std::move(chunks);
  a->dtype = dtype;
  a->expr = std::move(expr);
  return a;
}

ArrayPtr array_new(GraphPtr graph, const std::string &name, Chunks chunks, DType dtype) {
  CA_CHECK(graph, CA_EINVAL, "graph is NULL");
  CA_CHECK(!name.empty(), CA_EINVAL, "array name is empty");
  CA_CHECK(dtype_valid(dtype) && dtype != CA_RAW, CA_ETYPE, "invalid array dtype ", dtype);
  auto a = array_from_layer(graph, name, std::move(chunks), dtype);
  const Layer *l = graph->find(name);
  if (!l) fail(CA_ENOTFOUND, "the graph has no key named '", name, "' (no layer of that name)");
  CA_CHECK(l->nindex() == a->ndim(), CA_EINVAL, "keys of '", name, "' have ", l->nindex(),
           " indices but the chunks have ", a->ndim(), " dimensions");
  // Every key of the grid must exist.
  std::vector<Index> idx(size_t(a->ndim()), 0);
  Index n = a->nblocks();
  for (Index lin = 0; lin < n; ++lin) {
    Index r = lin;
    for (int32_t d = a->ndim() - 1; d >= 0; --d) {
      idx[size_t(d)] = r % a->numblocks[size_t(d)];
      r /= a->numblocks[size_t(d)];
    }
    if (l->find(idx.data()) < 0)
      fail(CA_ENOTFOUND, "the graph is missing key ", key_str(name, idx.data(), a->ndim()), " of the ",
           a->ndim() ? "chunk grid " : "array ", chunks_str(a->chunks));
  }
  return a;
}

std::shared_ptr<Graph> merge_graphs(const std::vector<ArrayPtr> &arrays) {
  auto g = std::make_shared<Graph>();
  for (auto &a : arrays)
    if (a) g->merge(*a->graph);
  return g;
}

// ------------------------------------------------------------------------------------------------
// tokenize

Tokenizer::Tokenizer(const std::string &prefix) : prefix_(prefix), h1_(0x243F6A8885A308D3ULL), h2_(0x13198A2E03707344ULL) {
  add(prefix);
}

Tokenizer &Tokenizer::add_bytes(const void *p, size_t n) {
  h1_ = hash_bytes(h1_, p, n);
  h2_ = hash_bytes(h2_ ^ 0x9E3779B97F4A7C15ULL, p, n) + (h1_ >> 7);
  return *this;
}
Tokenizer &Tokenizer::add_data(const void *p, size_t n) {
  uint64_t len = n;
  add_bytes(&len, sizeof len);
  const uint64_t d = hash_data(h1_ ^ h2_, p, n);
  return add_bytes(&d, sizeof d);
}
Tokenizer &Tokenizer::add(const std::string &s) {
  uint64_t n = s.size();
  add_bytes(&n, sizeof n);
  return add_bytes(s.data(), s.size());
}
Tokenizer &Tokenizer::add(int64_t v) { return add_bytes(&v, sizeof v); }
Tokenizer &Tokenizer::add(double v) { return add_bytes(&v, sizeof v); }
Tokenizer &Tokenizer::add(const Array &a) { return add(a.name); }
Tokenizer &Tokenizer::add(const Chunks &c) {
  add(int64_t(c.size()));
  for (auto &d : c) add(d);
  return *this;
}
Tokenizer &Tokenizer::add(const std::vector<Index> &v) {
  add(int64_t(v.size()));
  return add_bytes(v.data(), v.size() * sizeof(Index));
}
Tokenizer &Tokenizer::add_arg(const ca_arg_t &a) {
  add(int64_t(a.kind));
  switch (a.kind) {
    case CA_ARG_INT64: return add(a.u.i64);
    case CA_ARG_FLOAT64: return add(a.u.f64);
    case CA_ARG_STRING:
    case CA_ARG_BYTES: return add_bytes(a.u.bytes.data, a.u.bytes.len);
    case CA_ARG_TUPLE: return add_bytes(a.u.tuple.items, a.u.tuple.len * sizeof(int64_t));
    case CA_ARG_SLICE: return add_bytes(&a.u.slice, sizeof(a.u.slice));
    default: return *this;
  }
}
std::string Tokenizer::name() const {
  // prefix-<h1 as 16 hex digits><h2 as 16 hex digits> (what snprintf("%016llx%016llx") wrote, without
  // its format parsing: names are made on every operation)
  static const char kHex[] = "0123456789abcdef";
  std::string r;
  r.reserve(prefix_.size() + 33);
  r += prefix_;
  r += '-';
  for (uint64_t h : {h1_, h2_})
    for (int sh = 60; sh >= 0; sh -= 4) r += kHex[(h >> sh) & 0xf];
  return r;
}

// ------------------------------------------------------------------------------------------------
// blockwise

ArrayArg ArrayArg::lit(const ca_arg_t &a) {
  ArrayArg r;
  r.literal = blockwise_literal(a);
  return r;
}

ArrayPtr blockwise_layer(const std::string &name, const std::string &kernel, const std::string &out_index,
                         const std::vector<ArrayArg> &args, const Chunks &out_chunks, DType dtype, bool concatenate) {
  CA_CHECK(out_index.size() == out_chunks.size(), CA_EINTERNAL, "blockwise: ", out_index.size(), " letters for ",
           out_chunks.size(), " output dimensions");
  std::vector<std::string> deps;
  std::vector<BlockwiseArg> bargs;
  std::vector<ArrayPtr> inputs;
  for (const ArrayArg &aa : args) {
    if (!aa.array) {
      bargs.push_back(aa.literal);
      continue;
    }
    const Array &a = *aa.array;
    CA_CHECK(int32_t(aa.index.size()) == a.ndim(), CA_EINVAL, "blockwise: index '", aa.index, "' has ",
             aa.index.size(), " letters for array '", a.name, "' of ", a.ndim(), " dimensions");
    BlockwiseArg b;
    b.is_ref = true;
    auto it = std::find(deps.begin(), deps.end(), a.name);
    b.dep_slot = int32_t(it - deps.begin());
    if (it == deps.end()) deps.push_back(a.name);
    for (size_t d = 0; d < aa.index.size(); ++d) {
      DimMap m;
      m.extent = a.numblocks[d];
      size_t od = out_index.find(aa.index[d]);
      if (od == std::string::npos) {
        if (concatenate && a.numblocks[d] == 1) {
          m.kind = DimMap::Const;  // the one (concatenated) block itself
          m.value = 0;
        } else {
          m.kind = DimMap::All;
        }
      } else {
        m.kind = DimMap::Out;
        m.out_dim = int32_t(od);
        bool broadcast = a.numblocks[d] == 1 && (a.shape[d] == 1 || out_chunks[od].size() == 1);
        if (!broadcast && a.chunks[d] != out_chunks[od])
          fail(CA_EINVAL, "blockwise: chunks of '", a.name, "' along '", aa.index[d], "' are ",
               chunks_str({a.chunks[d]}), ", output has ", chunks_str({out_chunks[od]}));
      }
      b.dims.push_back(m);
    }
    bargs.push_back(std::move(b));
    inputs.push_back(aa.array);
  }
  auto g = merge_graphs(inputs);
  g->add_layer(std::make_shared<BlockwiseLayer>(name, out_chunks, kernel, deps, std::move(bargs)));
  return array_from_layer(g, name, out_chunks, dtype);
}

std::vector<Index> common_blockdim(const std::vector<std::vector<Index>> &dims) {
  // Ignore broadcasting dims (one block of extent 1); all others must have the same extent.
  std::vector<const std::vector<Index> *> real;
  for (auto &d : dims) {
    Index ext = 0;
    for (Index c : d) ext += c;
    if (!(d.size() == 1 && ext == 1)) real.push_back(&d);
  }
  if (real.empty()) return dims.empty() ? std::vector<Index>{} : dims[0];
  for (auto *d : real)
    if (std::find(d->begin(), d->end(), kUnknownChunk) != d->end()) {
      // Unknown sizes align only with the very same block structure (dask assumes they match).
      for (auto *e : real)
        if (*e != *d)
          fail(CA_EINVAL, "cannot unify chunks ", chunks_str({*d}), " and ", chunks_str({*e}),
               ": chunk sizes are unknown; call ca_array_compute_chunk_sizes first");
      return *d;
    }
  Index ext0 = 0;
  for (Index c : *real[0]) ext0 += c;
  std::set<Index> cuts;
  bool same = true;
  for (auto *d : real) {
    Index acc = 0;
    for (Index c : *d) {
      acc += c;
      cuts.insert(acc);
    }
    if (acc != ext0) fail(CA_EINVAL, "cannot unify chunks: extents ", acc, " and ", ext0, " differ");
    if (*d != *real[0]) same = false;
  }
  if (same) return *real[0];
  std::vector<Index> out;
  Index prev = 0;
  for (Index c : cuts) {
    if (c == prev) continue;
    out.push_back(c - prev);
    prev = c;
  }
  if (out.empty()) out.push_back(0);
  return out;
}

std::vector<ArrayPtr> unify_chunks(const std::vector<ArrayPtr> &arrays0, const std::vector<std::string> &indices) {
  CA_CHECK(arrays0.size() == indices.size(), CA_EINTERNAL, "unify_chunks: arrays and indices differ in count");
  // An extent-1 dimension split into several blocks (chunks (0, 1)) becomes one block first, so it
  // broadcasts like any extent-1 dimension.
  std::vector<ArrayPtr> arrays1 = arrays0;
  for (auto &a : arrays1) {
    Chunks c = a->chunks;
    bool change = false;
    for (size_t d = 0; d < c.size(); ++d)
      if (a->shape[d] == 1 && c[d].size() > 1) c[d] = {1}, change = true;
    if (change) a = rechunk(a, c);
  }
  const std::vector<ArrayPtr> &arrays = arrays1;
  std::map<char, std::vector<std::vector<Index>>> by_letter;
  for (size_t i = 0; i < arrays.size(); ++i) {
    CA_CHECK(int32_t(indices[i].size()) == arrays[i]->ndim(), CA_EINVAL, "unify_chunks: index '", indices[i],
             "' does not match the ", arrays[i]->ndim(), " dimensions of '", arrays[i]->name, "'");
    for (size_t d = 0; d < indices[i].size(); ++d) by_letter[indices[i][d]].push_back(arrays[i]->chunks[d]);
  }
  std::map<char, std::vector<Index>> common;
  for (auto &kv : by_letter) common[kv.first] = common_blockdim(kv.second);
  std::vector<ArrayPtr> out;
  for (size_t i = 0; i < arrays.size(); ++i) {
    const ArrayPtr &a = arrays[i];
    Chunks want = a->chunks;
    for (size_t d = 0; d < indices[i].size(); ++d) {
      bool broadcast = a->shape[d] == 1 && a->numblocks[d] == 1;
      if (!broadcast) want[d] = common[indices[i][d]];
    }
    out.push_back(want == a->chunks ? a : rechunk(a, want));
  }
  return out;
}

ArrayPtr blockwise(const std::string &prefix, const std::string &kernel, const std::string &out_index,
                   std::vector<ArrayArg> args, DType dtype, const std::vector<std::pair<char, Index>> &new_axes,
                   const Chunks *explicit_chunks, bool concatenate) {
  CA_CHECK(out_index.size() <= CA_MAX_NDIM, CA_EINVAL, "blockwise: output index '", out_index, "' has ",
           out_index.size(), " letters (at most ", CA_MAX_NDIM, ")");
  for (size_t i = 0; i < out_index.size(); ++i)
    CA_CHECK(out_index.find(out_index[i]) == i, CA_EINVAL, "blockwise: repeated elements not allowed in output index '",
             out_index, "' (letter '", out_index[i], "')");
  std::vector<ArrayPtr> arrs;
  std::vector<std::string> inds;
  for (auto &a : args)
    if (a.array) {
      arrs.push_back(a.array);
      inds.push_back(a.index);
    }
  std::vector<ArrayPtr> unified = unify_chunks(arrs, inds);
  size_t k = 0;
  for (auto &a : args)
    if (a.array) a.array = unified[k++];
  // Output chunks per letter.
  Chunks out_chunks;
  for (char c : out_index) {
    std::vector<Index> ch;
    bool found = false;
    for (auto &a : args) {
      if (!a.array) continue;
      size_t d = a.index.find(c);
      if (d == std::string::npos) continue;
      bool broadcast = a.array->shape[d] == 1 && a.array->numblocks[d] == 1;
      if (!found || (ch.size() == 1 && ch[0] == 1 && !broadcast)) ch = a.array->chunks[d];
      found = true;
    }
    if (!found) {
      for (auto &na : new_axes)
        if (na.first == c) {
          ch = {na.second};
          found = true;
        }
    }
    CA_CHECK(found, CA_EINVAL, "blockwise: output letter '", c, "' appears in no input and is not a new axis");
    out_chunks.push_back(ch);
  }
  if (explicit_chunks) {
    CA_CHECK(explicit_chunks->size() == out_chunks.size(), CA_EINVAL, "blockwise: explicit chunks have ",
             explicit_chunks->size(), " dimensions, the output has ", out_chunks.size());
    for (size_t d = 0; d < out_chunks.size(); ++d)
      CA_CHECK((*explicit_chunks)[d].size() == out_chunks[d].size(), CA_EINVAL,
               "blockwise: explicit chunks along axis ", d, " have ", (*explicit_chunks)[d].size(),
               " blocks but the inputs give ", out_chunks[d].size());
  }
  // Contracted letters with concatenate: concatenate those blocks first (one block per letter).
  if (concatenate) {
    for (auto &a : args) {
      if (!a.array) continue;
      std::vector<int32_t> axes;
      for (size_t d = 0; d < a.index.size(); ++d)
        if (out_index.find(a.index[d]) == std::string::npos && a.array->numblocks[d] > 1) axes.push_back(int32_t(d));
      if (axes.empty()) continue;
      Chunks ch = a.array->chunks;
      for (int32_t ax : axes) ch[size_t(ax)] = {a.array->shape[size_t(ax)]};
      a.array = rechunk(a.array, ch);
    }
  }
  Tokenizer tok(prefix);
  tok.add(kernel).add(out_index).add(int64_t(dtype));
  for (auto &a : args) {
    if (a.array) tok.add(*a.array).add(a.index);
    else tok.add(int64_t(a.literal.special)).add_arg(a.literal.literal);
  }
  if (explicit_chunks) tok.add(*explicit_chunks);
  tok.add(int64_t(concatenate));
  auto res = blockwise_layer(tok.name(), kernel, out_index, args, out_chunks, dtype, concatenate);
  if (explicit_chunks) {
    // Same grid, different block sizes: rebuild the layer with the declared chunks.
    auto g = std::make_shared<Graph>(*res->graph);
    const auto *bl = static_cast<const BlockwiseLayer *>(g->find(res->name));
    std::vector<BlockwiseArg> bargs = bl->args();
    auto g2 = std::make_shared<Graph>();
    for (auto &l : g->layers())
      if (l->name() != res->name) g2->add_layer(l);
    g2->add_layer(std::make_shared<BlockwiseLayer>(res->name, *explicit_chunks, kernel, bl->deps(), bargs));
    return array_from_layer(g2, res->name, *explicit_chunks, dtype);
  }
  return res;
}

// rechunk lives in array/rechunk.cpp.

// ------------------------------------------------------------------------------------------------
// in-memory data

ArrayPtr from_blocks(const std::string &name, Chunks chunks, DType dtype, std::vector<const Block *> blocks) {
  std::vector<Index> nb;
  for (auto &c : chunks) nb.push_back(Index(c.size()));
  auto g = std::make_shared<Graph>();
  g->add_layer(std::make_shared<DataLayer>(name, nb, std::move(blocks)));
  return array_from_layer(g, name, std::move(chunks), dtype);
}

namespace {
struct SharedRelease {
  std::atomic<int64_t> refs{1};
  void (*release)(void *) = nullptr;
  void *ud = nullptr;
  void drop() {
    if (refs.fetch_sub(1) == 1) {
      if (release) release(ud);
      delete this;
    }
  }
};
void shared_release_cb(void *p) { static_cast<SharedRelease *>(p)->drop(); }
}  // namespace

ArrayPtr from_buffer(const void *data, DType dtype, const std::vector<Index> &shape, const int64_t *strides,
                     const Chunks &chunks, bool borrow, void (*release)(void *), void *ud, bool unique_name) {
  SharedRelease *owner = nullptr;
  if (borrow) {
    owner = new SharedRelease();
    owner->release = release;
    owner->ud = ud;
  }
  std::vector<const Block *> blocks;
  try {
    CA_CHECK(dtype_valid(dtype) && dtype != CA_RAW, CA_ETYPE, "invalid dtype ", dtype);
    std::vector<Index> cs = chunks_shape(chunks);
    if (cs != shape)
      fail(CA_EINVAL, "Chunks do not add up to shape: chunks ", chunks_str(chunks), " for an array of ", shape.size(),
           " dimensions with shape (", [&] {
             std::string s;
             for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
             return s;
           }(), ")");
    (void)shape_nbytes(shape, dtype_size(dtype));  // checked once: the products below fit
    const Index total = shape_size(shape);
    CA_CHECK(data || total == 0, CA_EINVAL, "data is NULL for an array of ", total, " elements");
    size_t isz = dtype_size(dtype);
    int32_t nd = int32_t(shape.size());
    std::vector<int64_t> st(static_cast<size_t>(nd));
    bool c_contig = true;
    {
      int64_t acc = int64_t(isz);
      for (int32_t d = nd - 1; d >= 0; --d) {
        st[size_t(d)] = strides ? strides[d] : acc;
        if (shape[size_t(d)] > 1 && st[size_t(d)] != acc) c_contig = false;
        acc *= shape[size_t(d)];
      }
    }
    auto offs = chunk_offsets(chunks);
    std::vector<Index> nb;
    for (auto &c : chunks) nb.push_back(Index(c.size()));
    const Index nblocks = blocks_product(nb.data(), nb.size(), "from_buffer");
    std::vector<Index> bi(static_cast<size_t>(nd)), bshape(static_cast<size_t>(nd));
    for (Index lin = 0; lin < nblocks; ++lin) {
      Index r = lin;
      for (int32_t d = nd - 1; d >= 0; --d) {
        bi[size_t(d)] = r % nb[size_t(d)];
        r /= nb[size_t(d)];
      }
      const char *base = static_cast<const char *>(data);
      Index bsize = 1;
      for (int32_t d = 0; d < nd; ++d) {
        bshape[size_t(d)] = chunks[size_t(d)][size_t(bi[size_t(d)])];
        bsize *= bshape[size_t(d)];
        if (base) base += checked_mul(offs[size_t(d)][size_t(bi[size_t(d)])], st[size_t(d)], "from_buffer: a block's byte offset");
      }
      // In a C-contiguous buffer a block is one contiguous region iff, after its first dimension of
      // extent > 1, every dimension is whole.
      bool contiguous = c_contig;
      int32_t first = 0;
      while (first < nd && bshape[size_t(first)] == 1) ++first;
      for (int32_t d = first + 1; d < nd; ++d)
        if (bshape[size_t(d)] != shape[size_t(d)]) contiguous = false;
      if (borrow && contiguous && bsize > 0) {
        owner->refs.fetch_add(1);
        blocks.push_back(block_wrap(dtype, nd, bshape.data(), const_cast<char *>(base), shared_release_cb, owner));
      } else {
        Block *b = block_new(dtype, nd, bshape.data());
        blocks.push_back(b);
        if (bsize > 0) {
          // Strided copy, innermost dimension in runs.
          std::vector<Index> pos(size_t(nd), 0);
          char *dst = static_cast<char *>(b->data);
          Index inner = nd ? bshape[size_t(nd - 1)] : 1;
          int64_t inner_stride = nd ? st[size_t(nd - 1)] : int64_t(isz);
          Index rows = bsize / std::max<Index>(inner, 1);
          for (Index row = 0; row < rows; ++row) {
            const char *src = base;
            for (int32_t d = 0; d < nd - 1; ++d) src += pos[size_t(d)] * st[size_t(d)];
            if (inner_stride == int64_t(isz)) {
              std::memcpy(dst, src, size_t(inner) * isz);
              dst += size_t(inner) * isz;
            } else {
              for (Index k = 0; k < inner; ++k, dst += isz) std::memcpy(dst, src + k * inner_stride, isz);
            }
            for (int32_t d = nd - 2; d >= 0; --d) {
              if (++pos[size_t(d)] < bshape[size_t(d)]) break;
              pos[size_t(d)] = 0;
            }
          }
        }
      }
    }
    // The name: a token of the contents (copied or borrowed alike), or a fresh one.
    Tokenizer tok("array");
    tok.add(int64_t(dtype)).add(chunks);
    if (unique_name) {
      static std::atomic<uint64_t> counter{0};
      tok.add(counter.fetch_add(1, std::memory_order_relaxed)).add(reinterpret_cast<int64_t>(data));
    } else {
      for (const Block *b : blocks) tok.add_data(b->data, size_t(b->nbytes));
    }
    if (owner) owner->drop();  // the blocks hold their own references
    return from_blocks(tok.name(), chunks, dtype, std::move(blocks));
  } catch (...) {
    for (const Block *b : blocks) block_release(b);
    if (owner) owner->drop();
    else if (borrow && release) release(ud);
    throw;
  }
}

// ------------------------------------------------------------------------------------------------
// compute

void *contiguous_region(void *dst, const std::vector<Index> &shape, const Index *origin, const Index *extent,
                        size_t isz, int64_t *nbytes) {
  const int32_t nd = int32_t(shape.size());
  // C order: the region is one run when, below its outermost axis of extent > 1, every axis is whole.
  int32_t j = nd - 1;
  while (j >= 0 && extent[j] == shape[size_t(j)]) --j;
  for (int32_t d = 0; d < j; ++d)
    if (extent[d] != 1) return nullptr;
  int64_t off = 0, n = int64_t(isz);
  for (int32_t d = 0; d < nd; ++d) {
    if (origin[d] < 0 || extent[d] < 0 || origin[d] + extent[d] > shape[size_t(d)]) return nullptr;
    off = off * shape[size_t(d)] + origin[d];
    n *= extent[d];
  }
  if (n == 0) return nullptr;
  *nbytes = n;
  return static_cast<char *>(dst) + off * int64_t(isz);
}

void copy_block_into(const Block *b, void *dst, const std::vector<Index> &shape, const Index *origin, size_t isz) {
  int32_t nd = int32_t(shape.size());
  CA_CHECK(b->ndim == nd, CA_EKERNEL, "a block has ", b->ndim, " dimensions, the array has ", nd);
  if (b->size == 0) return;
  std::vector<int64_t> st(static_cast<size_t>(nd));
  int64_t acc = int64_t(isz);
  for (int32_t d = nd - 1; d >= 0; --d) {
    st[size_t(d)] = acc;
    acc *= shape[size_t(d)];
  }
  char *base = static_cast<char *>(dst);
  for (int32_t d = 0; d < nd; ++d) {
    CA_CHECK(b->shape[d] >= 0 && origin[d] >= 0 && origin[d] <= shape[size_t(d)] &&
                 b->shape[d] <= shape[size_t(d)] - origin[d],
             CA_EKERNEL, "a block of extent ", b->shape[d],
             " at offset ", origin[d], " overflows axis ", d, " of extent ", shape[size_t(d)]);
    base += origin[d] * st[size_t(d)];
  }
  // Merge trailing dimensions that are whole into one contiguous run.
  int32_t k = nd;
  size_t run = isz;
  while (k > 0) {
    run *= size_t(b->shape[k - 1]);
    --k;
    if (b->shape[k] != shape[size_t(k)]) break;
  }
  if (b->data == base) {  // written there by its kernel (RunOptions::out_dest) when the run is one region
    int64_t nb = 0;
    if (contiguous_region(dst, shape, origin, b->shape, isz, &nb) == base && nb == b->nbytes) return;
  }
  if (nd == 0) {
    std::memcpy(base, b->data, isz);
    return;
  }
  Index rows = 1;
  for (int32_t d = 0; d < k; ++d) rows *= b->shape[d];
  const char *src = static_cast<const char *>(b->data);
  std::vector<Index> pos(size_t(k), 0);
  for (Index r = 0; r < rows; ++r) {
    char *o = base;
    for (int32_t d = 0; d < k; ++d) o += pos[size_t(d)] * st[size_t(d)];
    std::memcpy(o, src, run);
    src += run;
    for (int32_t d = k - 1; d >= 0; --d) {
      if (++pos[size_t(d)] < b->shape[d]) break;
      pos[size_t(d)] = 0;
    }
  }
}

namespace {
struct KeySet {
  std::vector<std::vector<Index>> idx;
  std::vector<KeyRef> refs;
  std::vector<std::pair<size_t, size_t>> owner;  // (array, linear block)
};

void add_keys(KeySet &ks, const Array &a, size_t which) {
  Index n = a.nblocks();
  for (Index lin = 0; lin < n; ++lin) {
    std::vector<Index> idx(size_t(a.ndim()));
    Index r = lin;
    for (int32_t d = a.ndim() - 1; d >= 0; --d) {
      idx[size_t(d)] = r % a.numblocks[size_t(d)];
      r /= a.numblocks[size_t(d)];
    }
    ks.idx.push_back(std::move(idx));
    ks.owner.push_back({which, size_t(lin)});
  }
}
}  // namespace

namespace {

/// The arguments of one task of a layer, with its references resolved to the blocks of data layers
/// (from_buffer, persist); false for anything else (a list, a reference to a computed layer).
struct DataArgs final : TaskEmitter {
  const Graph &g;
  const Layer &layer;
  std::vector<ca_arg_t> args;
  std::vector<std::vector<int64_t>> tuples;  // storage of copied tuple literals
  bool ok = true;
  DataArgs(const Graph &graph, const Layer &l) : g(graph), layer(l) { tuples.reserve(4); }
  void kernel(int32_t slot) override { ok = ok && slot == 0; }
  void literal(const ca_arg_t &a) override { args.push_back(a); }
  void literal_copy(const ca_arg_t &a) override {
    if (a.kind != CA_ARG_TUPLE || tuples.size() == tuples.capacity()) {
      ok = false;
      return;
    }
    tuples.emplace_back(a.u.tuple.items, a.u.tuple.items + a.u.tuple.len);
    args.push_back(ca_arg_tuple(tuples.back().data(), tuples.back().size()));
  }
  void ref(int32_t slot, const Index *idx, int32_t) override {
    const Layer *dep = ok ? g.find(layer.deps()[size_t(slot)]) : nullptr;
    if (!dep || dep->kind() != LayerKind::Data) {
      ok = false;
      return;
    }
    const int64_t local = dep->find(idx);
    const Block *b = local >= 0 ? static_cast<const DataLayer *>(dep)->block(local) : nullptr;
    if (!b) {
      ok = false;
      return;
    }
    ca_arg_t a{};
    a.kind = CA_ARG_BLOCK;
    a.u.block = b;
    args.push_back(a);
  }
  void begin_list(size_t) override { ok = false; }
  void end_list() override { ok = false; }
};

/// compute_into's path for the commonest small computation: one array of one block that is a fused
/// element-wise layer (the builtin `ca.fused` kernel, no recorded kernel version) over blocks that are
/// already data. Its program is evaluated on the calling thread straight from the data blocks: no
/// graph merge, plan or executor, which cost more than the work for a small array. Runs with progress,
/// cancellation or a partial plan take the executor, and so do results over 1 MiB (a context's memory
/// budget then charges the block; a smaller transient block is not worth holding back). False: not
/// applicable (or the evaluation failed: the executor's path then reports the error as it always does).
bool compute_single_block(const KernelRegistry &reg, const Array &a, void *buffer, const RunOptions &o) {
  constexpr Index kSmall = Index(1) << 20;
  if (o.progress || o.cancel || o.partial || a.nblocks() != 1 || !a.expr || !a.graph) return false;
  if (o.budget && !(a.nbytes() >= 0 && a.nbytes() <= kSmall)) return false;
  const Layer *l = a.graph->find(a.name);
  if (!l || l->kind() != LayerKind::Blockwise || l->num_tasks() != 1 || l->records_kernel_versions()) return false;
  const auto *bl = static_cast<const BlockwiseLayer *>(l);
  if (bl->kernel() != "ca.fused") return false;
  const KernelPtr k = reg.find("ca.fused");
  if (!is_builtin_fused_kernel(k.get())) return false;
  DataArgs da(*a.graph, *l);
  l->emit(0, da);
  if (!da.ok || da.args.empty() || da.args[0].kind != CA_ARG_BYTES) return false;
  try {
    const PreparedProgram &pp = prepared_program(da.args[0].u.bytes.data, da.args[0].u.bytes.len);
    const ExprProgram &p = program_of(pp);
    GenCoords coords;
    size_t first = 1;
    if (p.coords) {
      if (da.args.size() < 3) return false;
      coords = gen_coords_from_args(p, da.args[1], da.args[2]);
      first = 3;
    }
    std::vector<const Block *> in;
    in.reserve(da.args.size() - first);
    for (size_t i = first; i < da.args.size(); ++i) {
      if (da.args[i].kind != CA_ARG_BLOCK) return false;
      in.push_back(da.args[i].u.block);
    }
    const Index origin[CA_MAX_NDIM + 1] = {};
    int64_t nb = 0;
    void *dest = contiguous_region(buffer, a.shape, origin, a.shape.data(), dtype_size(a.dtype), &nb);
    BlockRef b(eval_prepared_program(pp, in.data(), in.size(), p.coords ? &coords : nullptr, dest, nb));
    if (!b || b->dtype != a.dtype || b->ndim != a.ndim()) return false;
    for (int32_t d = 0; d < a.ndim(); ++d)
      if (b->shape[d] != a.shape[size_t(d)]) return false;
    copy_block_into(b.get(), buffer, a.shape, origin, dtype_size(a.dtype));
    return true;
  } catch (...) {
    return false;
  }
}

}  // namespace

void compute_into(Executor &ex, const KernelRegistry &reg, const std::vector<ArrayPtr> &arrays,
                  const std::vector<void *> &buffers, const RunOptions &opts0) {
  for (auto &a : arrays) require_known_chunks(*a, "compute");
  if (arrays.size() == 1 && compute_single_block(reg, *arrays[0], buffers[0], opts0)) return;
  KeySet ks;
  for (size_t i = 0; i < arrays.size(); ++i) add_keys(ks, *arrays[i], i);
  for (size_t k = 0; k < ks.idx.size(); ++k) {
    const Array &a = *arrays[ks.owner[k].first];
    ks.refs.push_back({a.name.c_str(), ks.idx[k].data(), a.ndim()});
  }
  auto g = merge_graphs(arrays);
  auto plan = build_plan(*g, ks.refs.data(), ks.refs.size(), &reg, opts0.max_tasks, &ex);
  std::vector<std::vector<std::vector<Index>>> offs;
  for (auto &a : arrays) offs.push_back(chunk_offsets(a->chunks));
  RunOptions opts = opts0;
  // Tasks whose block is one contiguous region of the buffer may write it there (ca.fused does).
  opts.out_dest = [&](size_t out_index, int64_t *nbytes) -> void * {
    const size_t ai = ks.owner[out_index].first;
    const Array &a = *arrays[ai];
    const std::vector<Index> &idx = ks.idx[out_index];
    Index origin[CA_MAX_NDIM + 1], extent[CA_MAX_NDIM + 1];
    for (int32_t d = 0; d < a.ndim(); ++d) {
      origin[d] = offs[ai][size_t(d)][size_t(idx[size_t(d)])];
      extent[d] = a.chunks[size_t(d)][size_t(idx[size_t(d)])];
    }
    return contiguous_region(buffers[ai], a.shape, origin, extent, dtype_size(a.dtype), nbytes);
  };
  opts.on_output = [&](size_t out_index, const Block *b) {
    size_t ai = ks.owner[out_index].first;
    const Array &a = *arrays[ai];
    const std::vector<Index> &idx = ks.idx[out_index];
    // The rank first: b->shape has b->ndim entries.
    if (b->ndim != a.ndim())
      fail(CA_EKERNEL, "block ", key_str(a.name, idx.data(), a.ndim()), " has ", b->ndim,
           " dimensions, the array has ", a.ndim());
    Index origin[CA_MAX_NDIM + 1];
    for (int32_t d = 0; d < a.ndim(); ++d) {
      origin[d] = offs[ai][size_t(d)][size_t(idx[size_t(d)])];
      Index want = a.chunks[size_t(d)][size_t(idx[size_t(d)])];
      if (b->shape[d] != want)
        fail(CA_EKERNEL, "block ", key_str(a.name, idx.data(), a.ndim()), " has extent ", b->shape[d], " along axis ",
             d, ", its chunks say ", want);
    }
    if (b->dtype != a.dtype)
      fail(CA_EKERNEL, "block ", key_str(a.name, idx.data(), a.ndim()), " has dtype ", dtype_name(b->dtype),
           ", the array has ", dtype_name(a.dtype));
    copy_block_into(b, buffers[ai], a.shape, origin, dtype_size(a.dtype));
  };
  ex.run(*plan, opts);
}

ArrayPtr persist(Executor &ex, const KernelRegistry &reg, const ArrayPtr &a, const RunOptions &opts0) {
  KeySet ks;
  add_keys(ks, *a, 0);
  for (auto &i : ks.idx) ks.refs.push_back({a->name.c_str(), i.data(), a->ndim()});
  auto plan = build_plan(*a->graph, ks.refs.data(), ks.refs.size(), &reg, opts0.max_tasks);
  std::vector<const Block *> blocks(ks.refs.size(), nullptr);
  RunOptions opts = opts0;
  opts.on_output = [&](size_t i, const Block *b) {
    if (b->ndim != a->ndim())
      fail(CA_EKERNEL, "block ", key_str(a->name, ks.idx[i].data(), a->ndim()), " has ", b->ndim,
           " dimensions, the array has ", a->ndim());
    for (int32_t d = 0; d < a->ndim(); ++d) {
      Index want = a->chunks[size_t(d)][size_t(ks.idx[i][size_t(d)])];
      if (want != kUnknownChunk && b->shape[d] != want)
        fail(CA_EKERNEL, "block ", key_str(a->name, ks.idx[i].data(), a->ndim()), " does not match the array's chunks");
    }
    if (b->dtype != a->dtype) fail(CA_EKERNEL, "a block's dtype does not match the array's");
    blocks[i] = block_retain(b);
  };
  Chunks chunks = a->chunks;
  try {
    ex.run(*plan, opts);
    // Unknown sizes (dask's NaN chunks) become the computed blocks' extents.
    for (int32_t d = 0; d < a->ndim(); ++d) {
      std::vector<Index> &c = chunks[size_t(d)];
      std::vector<bool> seen(c.size(), false);
      for (size_t i = 0; i < blocks.size(); ++i) {
        size_t j = size_t(ks.idx[i][size_t(d)]);
        Index got = blocks[i]->shape[d];
        if (a->chunks[size_t(d)][j] != kUnknownChunk) continue;
        if (!seen[j]) c[j] = got, seen[j] = true;
        else if (c[j] != got)
          fail(CA_EKERNEL, "blocks along axis ", d, " at block index ", j, " disagree on their extent (", c[j],
               " and ", got, ")");
      }
    }
  } catch (...) {
    for (const Block *b : blocks) block_release(b);
    throw;
  }
  return from_blocks(Tokenizer("persist").add(*a).name(), chunks, a->dtype, std::move(blocks));
}

}  // namespace ca
