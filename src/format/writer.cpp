// Saving graphs: layers as they are in memory (see graph_file.capnp).
#include <capnp/message.h>
#include <capnp/serialize.h>
#include <fcntl.h>
#include <kj/exception.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include "core/block.hpp"
#include "graph/graph.hpp"
#include "format/format.hpp"
#include "format/layer_codecs.hpp"
#include "format/graph_file.capnp.h"
#include "io/fs.hpp"

namespace ca::format {

namespace {

namespace s = schema;

class FlatEmitter final : public TaskEmitter {
 public:
  std::vector<uint32_t> task_kernel, task_nargs;
  std::vector<uint8_t> kind, argb;
  std::vector<int64_t> arga, ref_index;
  std::vector<std::string> blobs;
  std::vector<std::vector<int64_t>> tuples;
  std::vector<ca_slice_t> slices;
  std::vector<size_t> list_pos;  // open lists: position of the LIST entry
  uint32_t top = 0;              // top-level arguments of the current task

  void begin_task() { top = 0; }
  void count_item() {
    if (list_pos.empty()) ++top;
  }
  void kernel(int32_t slot) override { task_kernel.push_back(uint32_t(slot)); }
  void literal(const ca_arg_t &a) override {
    count_item();
    int64_t v = 0;
    switch (a.kind) {
      case CA_ARG_NONE: break;
      case CA_ARG_INT64: v = a.u.i64; break;
      case CA_ARG_FLOAT64: std::memcpy(&v, &a.u.f64, sizeof v); break;
      case CA_ARG_STRING:
      case CA_ARG_BYTES:
        v = int64_t(blobs.size());
        blobs.emplace_back(static_cast<const char *>(a.u.bytes.data), a.u.bytes.len);
        break;
      case CA_ARG_TUPLE:
        v = int64_t(tuples.size());
        tuples.emplace_back(a.u.tuple.items, a.u.tuple.items + a.u.tuple.len);
        break;
      case CA_ARG_SLICE:
        v = int64_t(slices.size());
        slices.push_back(a.u.slice);
        break;
      default: fail(CA_EINVAL, "cannot save an argument of kind ", a.kind, " in a materialized layer");
    }
    kind.push_back(uint8_t(a.kind));
    arga.push_back(v);
    argb.push_back(0);
  }
  void literal_copy(const ca_arg_t &a) override { literal(a); }
  void ref(int32_t slot, const Index *idx, int32_t n) override {
    count_item();
    kind.push_back(CA_ARG_KEY);
    arga.push_back(slot);
    argb.push_back(uint8_t(n));
    ref_index.insert(ref_index.end(), idx, idx + n);
  }
  void begin_list(size_t n) override {
    count_item();
    list_pos.push_back(kind.size());
    kind.push_back(CA_ARG_LIST);
    arga.push_back(int64_t(n));
    argb.push_back(0);
  }
  void end_list() override { list_pos.pop_back(); }
};

capnp::Data::Reader data_of(const std::string &b) {
  return capnp::Data::Reader(reinterpret_cast<const kj::byte *>(b.data()), b.size());
}

void check_count(size_t n, const std::string &layer, const char *what) {
  // Cap'n Proto lists hold at most 2^29 - 1 elements.
  CA_CHECK(n < (size_t(1) << 29), CA_EUNSUPPORTED, "layer '", layer, "' has ", n, " ", what,
           ": a graph file list holds at most 2^29 - 1");
}

// `src` is the layer whose recorded kernel versions apply (the layer itself, or the layer `l` is the
// materialized form of).
void save_materialized(const MaterializedLayer &l, const Layer &src, const KernelVersionFn &versions,
                       s::Materialized::Builder b) {
  std::vector<int32_t> kv = detail::versions_for(src, l.kernel_names(), versions);
  FlatEmitter e;
  int64_t n = l.num_tasks();
  std::vector<int64_t> keys(size_t(n) * size_t(l.nindex()));
  for (int64_t t = 0; t < n; ++t) {
    l.key_at(t, keys.data() + t * l.nindex());
    e.begin_task();
    l.emit(t, e);
    e.task_nargs.push_back(e.top);
  }
  check_count(keys.size(), l.name(), "key indices");
  check_count(e.kind.size(), l.name(), "arguments");
  check_count(e.ref_index.size(), l.name(), "reference indices");
  auto ks = b.initKernels(unsigned(l.kernel_names().size()));
  for (size_t i = 0; i < l.kernel_names().size(); ++i) ks.set(unsigned(i), l.kernel_names()[i].c_str());
  if (!kv.empty()) detail::fill_list(b.initKernelVersions(unsigned(kv.size())), kv);
  detail::fill_list(b.initKeys(unsigned(keys.size())), keys);
  detail::fill_list(b.initTaskKernel(unsigned(e.task_kernel.size())), e.task_kernel);
  detail::fill_list(b.initTaskNargs(unsigned(e.task_nargs.size())), e.task_nargs);
  detail::fill_list(b.initArgKind(unsigned(e.kind.size())), e.kind);
  detail::fill_list(b.initArgA(unsigned(e.arga.size())), e.arga);
  detail::fill_list(b.initArgB(unsigned(e.argb.size())), e.argb);
  detail::fill_list(b.initRefIndex(unsigned(e.ref_index.size())), e.ref_index);
  auto bl = b.initBlobs(unsigned(e.blobs.size()));
  for (size_t i = 0; i < e.blobs.size(); ++i) bl.set(unsigned(i), data_of(e.blobs[i]));
  auto tl = b.initTuples(unsigned(e.tuples.size()));
  for (size_t i = 0; i < e.tuples.size(); ++i) detail::fill_list(tl.init(unsigned(i), unsigned(e.tuples[i].size())), e.tuples[i]);
  auto sl = b.initSlices(unsigned(e.slices.size()));
  for (size_t i = 0; i < e.slices.size(); ++i) {
    sl[unsigned(i)].setStart(e.slices[i].start);
    sl[unsigned(i)].setStop(e.slices[i].stop);
    sl[unsigned(i)].setStep(e.slices[i].step);
    sl[unsigned(i)].setFlags(e.slices[i].flags);
  }
}

void save_literal(const ca_arg_t &a, s::Literal::Builder b) {
  switch (a.kind) {
    case CA_ARG_NONE: b.setNone(); break;
    case CA_ARG_INT64: b.setI64(a.u.i64); break;
    case CA_ARG_FLOAT64: b.setF64(a.u.f64); break;
    case CA_ARG_STRING:
      b.setString(capnp::Data::Reader(static_cast<const kj::byte *>(a.u.bytes.data), a.u.bytes.len));
      break;
    case CA_ARG_BYTES:
      b.setBytes(capnp::Data::Reader(static_cast<const kj::byte *>(a.u.bytes.data), a.u.bytes.len));
      break;
    case CA_ARG_TUPLE: {
      auto t = b.initTuple(unsigned(a.u.tuple.len));
      for (size_t i = 0; i < a.u.tuple.len; ++i) t.set(unsigned(i), a.u.tuple.items[i]);
      break;
    }
    case CA_ARG_SLICE: {
      auto sl = b.initSlice();
      sl.setStart(a.u.slice.start);
      sl.setStop(a.u.slice.stop);
      sl.setStep(a.u.slice.step);
      sl.setFlags(a.u.slice.flags);
      break;
    }
    default: fail(CA_EINVAL, "cannot save a blockwise literal of kind ", a.kind);
  }
}

void save_blockwise(const BlockwiseLayer &l, const KernelVersionFn &versions, s::Blockwise::Builder b) {
  b.setKernel(l.kernel().c_str());
  std::vector<int32_t> kv = detail::versions_for(l, {l.kernel()}, versions);
  if (!kv.empty()) b.setKernelVersion(kv[0]);
  auto nb = l.numblocks();
  detail::fill_list(b.initNumblocks(unsigned(nb.size())), nb);
  b.setHasChunks(!l.chunks().empty());
  auto ch = b.initChunks(unsigned(l.chunks().size()));
  for (size_t d = 0; d < l.chunks().size(); ++d) {
    check_count(l.chunks()[d].size(), l.name(), "blocks along one dimension");
    detail::fill_list(ch.init(unsigned(d), unsigned(l.chunks()[d].size())), l.chunks()[d]);
  }
  auto args = b.initArgs(unsigned(l.args().size()));
  for (size_t i = 0; i < l.args().size(); ++i) {
    const BlockwiseArg &a = l.args()[i];
    auto ab = args[unsigned(i)];
    if (a.is_ref) {
      auto r = ab.initRef();
      r.setDepSlot(a.dep_slot);
      auto dims = r.initDims(unsigned(a.dims.size()));
      for (size_t d = 0; d < a.dims.size(); ++d) {
        // A map kind added to the engine later needs a format change first (readers refuse it).
        CA_CHECK(a.dims[d].kind >= DimMap::Out && a.dims[d].kind <= DimMap::All, CA_EUNSUPPORTED, "layer '",
                 l.name(), "' uses dimension map kind ", a.dims[d].kind, ", which graph files cannot hold");
        dims[unsigned(d)].setKind(uint8_t(a.dims[d].kind));
        dims[unsigned(d)].setOutDim(a.dims[d].out_dim);
        dims[unsigned(d)].setValue(a.dims[d].value);
        dims[unsigned(d)].setExtent(a.dims[d].extent);
      }
    } else if (a.special != BlockwiseArg::None || a.block_index) {
      CA_CHECK(a.block_index || (a.special >= BlockwiseArg::BlockIndex && a.special <= BlockwiseArg::BlockShape),
               CA_EUNSUPPORTED, "layer '", l.name(), "' uses special literal ", a.special,
               ", which graph files cannot hold");
      ab.setSpecial(uint8_t(a.block_index ? int32_t(BlockwiseArg::BlockIndex) : a.special));
    } else {
      save_literal(a.literal, ab.initLiteral());
    }
  }
}

constexpr size_t kPiece = size_t(1) << 28;  // bytes per Data piece of a block

void save_data(const DataLayer &l, s::DataLayer::Builder b) {
  CA_CHECK(!l.distributed(), CA_EUNSUPPORTED, "layer '", l.name(), "' is a distributed array (persisted across ",
           l.nranks(), " ranks): each rank holds only its own blocks, so it cannot be saved to one graph file "
           "(write it with the distributed to_zarr instead)");
  auto nb = l.numblocks();
  detail::fill_list(b.initNumblocks(unsigned(nb.size())), nb);
  check_count(size_t(l.num_tasks()), l.name(), "blocks");
  auto blocks = b.initBlocks(unsigned(l.num_tasks()));
  for (int64_t t = 0; t < l.num_tasks(); ++t) {
    const Block *blk = l.block(t);
    auto bb = blocks[unsigned(t)];
    bb.setDtype(blk->dtype);
    auto sh = bb.initShape(unsigned(blk->ndim));
    for (int32_t d = 0; d < blk->ndim; ++d) sh.set(unsigned(d), blk->shape[d]);
    size_t nbytes = size_t(blk->nbytes);
    size_t npieces = nbytes == 0 ? 0 : (nbytes + kPiece - 1) / kPiece;
    auto pieces = bb.initData(unsigned(npieces));
    for (size_t p = 0; p < npieces; ++p) {
      size_t off = p * kPiece, len = std::min(kPiece, nbytes - off);
      pieces.set(unsigned(p), capnp::Data::Reader(static_cast<const kj::byte *>(blk->data) + off, len));
    }
  }
}

// Builds the message; returns the format version it needs: the oldest that holds every layer's form.
uint32_t build(capnp::MallocMessageBuilder &msg, const Graph &g, const std::vector<ArrayEntry> &arrays,
               const KernelVersionFn &versions, const std::vector<MaskedEntry> &masked) {
  auto f = msg.initRoot<s::File>();
  f.setProducer("chunkarray " CA_VERSION_STRING);
  uint32_t version = 1;
  auto layers = f.initLayers(unsigned(g.layers().size()));
  for (size_t i = 0; i < g.layers().size(); ++i) {
    const Layer &l = *g.layers()[i];
    // Every kind has its codec (layer_codecs.cpp): none is ever saved in a form nobody chose.
    const LayerCodec *codec = layer_codec(l.kind());
    if (!codec)
      fail(CA_EUNSUPPORTED, "layer '", l.name(), "' has kind ", int(l.kind()), ", which graph files cannot store");
    auto lb = layers[unsigned(i)];
    lb.setName(l.name().c_str());
    lb.setNindex(l.nindex());
    auto deps = lb.initDeps(unsigned(l.deps().size()));
    for (size_t d = 0; d < l.deps().size(); ++d) deps.set(unsigned(d), l.deps()[d].c_str());
    codec->save(l, lb, versions);
    version = std::max(version, codec->since_version);
  }
  f.setVersion(version);
  auto ab = f.initArrays(unsigned(arrays.size()));
  for (size_t i = 0; i < arrays.size(); ++i) {
    const ArrayEntry &a = arrays[i];
    CA_CHECK(g.find(a.name), CA_EINVAL, "array '", a.name, "' has no layer in the graph");
    ab[unsigned(i)].setName(a.name.c_str());
    ab[unsigned(i)].setDtype(a.dtype);
    auto ch = ab[unsigned(i)].initChunks(unsigned(a.chunks.size()));
    for (size_t d = 0; d < a.chunks.size(); ++d) detail::fill_list(ch.init(unsigned(d), unsigned(a.chunks[d].size())), a.chunks[d]);
  }
  if (!masked.empty()) {
    auto mb = f.initMasked(unsigned(masked.size()));
    for (size_t i = 0; i < masked.size(); ++i) {
      const MaskedEntry &m = masked[i];
      CA_CHECK(m.data < arrays.size() && m.mask < arrays.size(), CA_EINTERNAL, "masked array ", i,
               " names an array beyond the ", arrays.size(), " saved");
      auto b = mb[unsigned(i)];
      b.setData(m.data);
      b.setMask(m.mask);
      b.setNomask(m.nomask);
      b.setHasFill(m.has_fill);
      b.setFillKind(m.fill_kind);
      b.setFillFlags(m.fill_flags);
      b.setFillRe(m.fill_re);
      b.setFillIm(m.fill_im);
      b.setFillI64(m.fill_i64);
    }
  }
  return version;
}

void header(unsigned char *h, uint32_t v) {
  std::memcpy(h, kMagic, 8);
  uint32_t flags = 0;
  for (int i = 0; i < 4; ++i) {
    h[8 + i] = uint8_t(v >> (8 * i));
    h[12 + i] = uint8_t(flags >> (8 * i));
  }
}

template <class F>
auto capnp_guard(F &&f) -> decltype(f()) {
  try {
    return f();
  } catch (const kj::Exception &e) {
    fail(CA_EINTERNAL, "saving the graph failed: ", e.getDescription().cStr());
  }
}

}  // namespace

namespace detail {

// The versions to record for `names` (kernels of `src`, or of its materialized form): empty if none
// is recorded.
std::vector<int32_t> versions_for(const Layer &src, const std::vector<std::string> &names, const KernelVersionFn &fn) {
  std::vector<int32_t> v(names.size());
  bool any = false;
  for (size_t i = 0; i < names.size(); ++i) {
    int32_t recorded = src.kernel_version_of(names[i]);
    v[i] = fn ? fn(src, names[i], recorded) : recorded;
    CA_CHECK(v[i] >= 0, CA_EINTERNAL, "layer '", src.name(), "': kernel '", names[i], "' would be saved with version ",
             v[i]);
    any = any || v[i] != 0;
  }
  if (!any) v.clear();
  return v;
}

void save_materialized_layer(const Layer &l, s::Layer::Builder b, const KernelVersionFn &versions) {
  save_materialized(static_cast<const MaterializedLayer &>(l), l, versions, b.initMaterialized());
}
void save_blockwise_layer(const Layer &l, s::Layer::Builder b, const KernelVersionFn &versions) {
  save_blockwise(static_cast<const BlockwiseLayer &>(l), versions, b.initBlockwise());
}
void save_data_layer(const Layer &l, s::Layer::Builder b, const KernelVersionFn &) {
  save_data(static_cast<const DataLayer &>(l), b.initData());
}

}  // namespace detail

std::vector<unsigned char> save_bytes(const Graph &g, const std::vector<ArrayEntry> &arrays,
                                      const KernelVersionFn &versions, const std::vector<MaskedEntry> &masked) {
  return capnp_guard([&] {
    capnp::MallocMessageBuilder msg;
    const uint32_t version = build(msg, g, arrays, versions, masked);
    kj::Array<capnp::word> words = capnp::messageToFlatArray(msg);
    auto bytes = words.asBytes();
    std::vector<unsigned char> out(kHeaderSize + bytes.size());
    header(out.data(), version);
    std::memcpy(out.data() + kHeaderSize, bytes.begin(), bytes.size());
    return out;
  });
}

void save_file(const Graph &g, const std::vector<ArrayEntry> &arrays, const std::string &path,
               const KernelVersionFn &versions, const std::vector<MaskedEntry> &masked) {
  CA_CHECK(!path.empty(), CA_EINVAL, "the file path is empty");
  capnp_guard([&] {
    capnp::MallocMessageBuilder msg;
    const uint32_t version = build(msg, g, arrays, versions, masked);
    // A hidden temporary next to the target (io::temp_path_for), fsync'ed before the rename and the
    // directory after it (io/fs.hpp: CA_IO_NO_FSYNC=1 skips); temporaries of killed savers are removed.
    io::remove_stale_temporaries(path);
    std::string tmp = io::temp_path_for(path);
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) fail(CA_EIO, "cannot create '", tmp, "': ", std::strerror(errno));
    unsigned char h[kHeaderSize];
    header(h, version);
    bool ok = ::write(fd, h, kHeaderSize) == ssize_t(kHeaderSize);
    std::string why;
    if (ok) {
      try {
        capnp::writeMessageToFd(fd, msg);
      } catch (const kj::Exception &e) {
        ok = false;
        why = e.getDescription().cStr();
      }
    } else {
      why = std::strerror(errno);
    }
    if (ok) {
      int e = io::sync_fd(fd);
      if (e != 0) {
        ok = false;
        why = std::strerror(e);
      }
    }
    if (::close(fd) != 0 && ok) {
      ok = false;
      why = std::strerror(errno);
    }
    if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
      if (ok) why = std::strerror(errno);
      ::unlink(tmp.c_str());
      fail(CA_EIO, "cannot write '", path, "': ", why);
    }
    io::sync_parent_dir(path);
    return 0;
  });
}

}  // namespace ca::format
