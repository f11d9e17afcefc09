#include "graph/graph.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

namespace ca {

void Graph::add_layer(LayerPtr layer) {
  CA_CHECK(layer, CA_EINVAL, "layer is NULL");
  auto it = index_.find(layer->name());
  if (it != index_.end()) {
    const LayerPtr &old = layers_[it->second];
    if (old == layer) return;
    if (old->kind() == layer->kind() && old->fingerprint() == layer->fingerprint()) {
      // The same layer; recorded kernel versions are not part of its content. Both may record a
      // version for a kernel only if it is the same one; the copy recording more versions is kept
      // (a graph loaded from a file merged with the in-memory graph it came from keeps the file's).
      size_t nk = std::min(old->kernel_names().size(), layer->kernel_names().size());
      size_t n_old = 0, n_new = 0;
      for (size_t k = 0; k < nk; ++k) {
        int32_t a = old->kernel_version(k), b = layer->kernel_version(k);
        if (a != 0 && b != 0 && a != b)
          fail(CA_EEXISTS, "layer '", layer->name(), "' is in both graphs but records kernel '",
               old->kernel_names()[k], "' at version ", a, " in one and version ", b, " in the other");
        n_old += a != 0;
        n_new += b != 0;
      }
      if (n_new > n_old) layers_[it->second] = std::move(layer);
      return;
    }
    fail(CA_EEXISTS, "a different layer named '", layer->name(), "' is already in the graph");
  }
  index_.emplace(layer->name(), layers_.size());
  layers_.push_back(std::move(layer));
}

const Layer *Graph::find(const std::string &name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : layers_[it->second].get();
}

LayerPtr Graph::find_ptr(const std::string &name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : layers_[it->second];
}

void Graph::add_task(const KeyRef &key, const std::string &kernel, const ca_arg_t *args, size_t nargs) {
  CA_CHECK(key.name && key.name[0], CA_EINVAL, "key name is NULL or empty");
  CA_CHECK(key.nidx >= 0 && key.nidx <= 64, CA_EINVAL, "key has ", key.nidx, " indices (0..64 allowed)");
  CA_CHECK(key.nidx == 0 || key.idx, CA_EINVAL, "key '", key.name, "' has a NULL index array");
  std::string name(key.name);
  auto it = index_.find(name);
  if (it == index_.end()) {
    auto layer = std::make_shared<MaterializedLayer>(name, key.nidx);
    layer->add_task(key.idx, kernel, args, nargs);
    index_.emplace(name, layers_.size());
    layers_.push_back(std::move(layer));
    return;
  }
  LayerPtr &slot = layers_[it->second];
  if (slot->kind() != LayerKind::Materialized)
    fail(CA_EEXISTS, "key ", key_str(name, key.idx, key.nidx), " belongs to the symbolic layer '", name,
         "': tasks cannot be added to it");
  if (slot->nindex() != key.nidx)
    fail(CA_EINVAL, "key ", key_str(name, key.idx, key.nidx), " has ", key.nidx, " indices but the keys of layer '",
         name, "' have ", slot->nindex());
  std::shared_ptr<MaterializedLayer> ml;
  if (slot.use_count() == 1) {
    ml = std::const_pointer_cast<MaterializedLayer>(std::static_pointer_cast<const MaterializedLayer>(slot));
  } else {
    ml = static_cast<const MaterializedLayer &>(*slot).clone();  // copy on write
    slot = ml;
  }
  ml->add_task(key.idx, kernel, args, nargs);
}

void Graph::merge(const Graph &other) {
  if (&other == this) return;
  for (const LayerPtr &l : other.layers_) add_layer(l);
}

int64_t Graph::num_tasks() const {
  int64_t n = 0;
  for (auto &l : layers_)  // saturating: each layer has at most 2^62 tasks, a graph may have more layers
    if (__builtin_add_overflow(n, l->num_tasks(), &n)) return std::numeric_limits<int64_t>::max();
  return n;
}

bool Graph::has_key(const KeyRef &key) const {
  if (!key.name) return false;
  const Layer *l = find(key.name);
  if (!l || l->nindex() != key.nidx) return false;
  return l->find(key.idx) >= 0;
}

BlockwiseArg blockwise_literal(const ca_arg_t &a) {
  BlockwiseArg b;
  b.literal = a;
  switch (a.kind) {
    case CA_ARG_NONE:
    case CA_ARG_INT64:
    case CA_ARG_FLOAT64:
    case CA_ARG_SLICE:
      break;
    case CA_ARG_STRING:
    case CA_ARG_BYTES:
      CA_CHECK(a.u.bytes.data || a.u.bytes.len == 0, CA_EINVAL, "string/bytes argument has NULL data");
      b.payload.assign(static_cast<const char *>(a.u.bytes.data), a.u.bytes.len);
      break;
    case CA_ARG_TUPLE:
      CA_CHECK(a.u.tuple.items || a.u.tuple.len == 0, CA_EINVAL, "tuple argument has NULL items");
      b.tuple_payload.assign(a.u.tuple.items, a.u.tuple.items + a.u.tuple.len);
      break;
    default:
      fail(CA_EINVAL, "argument kind ", a.kind, " cannot be a blockwise literal (use CA_ARG_INDEXED for inputs)");
  }
  return b;
}

void Graph::add_blockwise(const std::string &name, const std::string &out_index, const std::string &kernel,
                          const ca_arg_t *args, size_t nargs, const int64_t *numblocks) {
  CA_CHECK(!name.empty(), CA_EINVAL, "blockwise layer name is empty");
  CA_CHECK(!kernel.empty(), CA_EINVAL, "blockwise kernel name is empty");
  CA_CHECK(args || nargs == 0, CA_EINVAL, "args is NULL with nargs ", nargs);
  CA_CHECK(!find(name), CA_EEXISTS, "a layer named '", name, "' is already in the graph");
  CA_CHECK(out_index.size() <= CA_MAX_NDIM, CA_EINVAL, "output index '", out_index, "' has too many letters");
  for (size_t i = 0; i < out_index.size(); ++i) {
    CA_CHECK(std::isalpha(static_cast<unsigned char>(out_index[i])), CA_EINVAL, "output index '", out_index,
             "' has a character that is not a letter");
    CA_CHECK(out_index.find(out_index[i]) == i, CA_EINVAL, "output index '", out_index, "' repeats letter '",
             out_index[i], "'");
  }
  // Block counts per letter, from the inputs (1 broadcasts) and the explicit numblocks.
  std::unordered_map<char, Index> nb;
  if (numblocks)
    for (size_t i = 0; i < out_index.size(); ++i)
      if (numblocks[i] >= 0) nb[out_index[i]] = numblocks[i];
  std::vector<std::string> deps;
  std::vector<BlockwiseArg> bargs;
  struct Input {
    const Layer *layer;
    std::string ind;
    std::vector<Index> nb;
  };
  std::vector<Input> inputs(nargs);
  for (size_t a = 0; a < nargs; ++a) {
    if (args[a].kind != CA_ARG_INDEXED) continue;
    const char *iname = args[a].u.indexed.name;
    const char *iind = args[a].u.indexed.index;
    CA_CHECK(iname && iname[0], CA_EINVAL, "blockwise argument ", a, " has an empty layer name");
    CA_CHECK(iind, CA_EINVAL, "blockwise argument ", a, " ('", iname, "') has a NULL index string");
    const Layer *l = find(iname);
    CA_CHECK(l, CA_ENOTFOUND, "blockwise input layer '", iname, "' is not in the graph");
    std::string ind(iind);
    CA_CHECK(int32_t(ind.size()) == l->nindex(), CA_EINVAL, "blockwise input '", iname, "' has index '", ind,
             "' with ", ind.size(), " letters but its keys have ", l->nindex(), " indices");
    inputs[a] = {l, ind, l->numblocks()};
    for (size_t d = 0; d < ind.size(); ++d) {
      char c = ind[d];
      CA_CHECK(std::isalpha(static_cast<unsigned char>(c)), CA_EINVAL, "index '", ind, "' of input '", iname,
               "' has a character that is not a letter");
      Index n = inputs[a].nb[d];
      auto it = nb.find(c);
      if (it == nb.end() || it->second == 1) {
        if (it == nb.end() || n != 1) nb[c] = n;
      } else if (n != 1 && n != it->second) {
        fail(CA_EINVAL, "blockwise: letter '", c, "' has ", it->second, " blocks in one input but ", n,
             " in input '", iname, "'");
      }
    }
  }
  std::vector<Index> out_nb;
  for (char c : out_index) {
    auto it = nb.find(c);
    CA_CHECK(it != nb.end(), CA_EINVAL, "blockwise: output letter '", c,
             "' appears in no input: give its block count in numblocks");
    out_nb.push_back(it->second);
  }
  for (size_t a = 0; a < nargs; ++a) {
    if (args[a].kind != CA_ARG_INDEXED) {
      bargs.push_back(blockwise_literal(args[a]));
      continue;
    }
    BlockwiseArg b;
    b.is_ref = true;
    std::string dep = inputs[a].layer->name();
    auto dit = std::find(deps.begin(), deps.end(), dep);
    b.dep_slot = int32_t(dit - deps.begin());
    if (dit == deps.end()) deps.push_back(dep);
    for (size_t d = 0; d < inputs[a].ind.size(); ++d) {
      char c = inputs[a].ind[d];
      DimMap m;
      m.extent = inputs[a].nb[d];
      size_t od = out_index.find(c);
      if (od == std::string::npos) {
        m.kind = DimMap::All;  // contraction
      } else {
        m.kind = DimMap::Out;
        m.out_dim = int32_t(od);
        if (m.extent != 1 && m.extent != out_nb[od])
          fail(CA_EINVAL, "blockwise: input '", dep, "' has ", m.extent, " blocks along '", c, "', output has ",
               out_nb[od]);
      }
      b.dims.push_back(m);
    }
    bargs.push_back(std::move(b));
  }
  add_layer(std::make_shared<BlockwiseLayer>(name, out_nb, kernel, deps, std::move(bargs)));
}

void Graph::add_partial_reduce(const std::string &name, const std::string &input, const std::vector<Index> &split,
                               const std::string &kernel, const ca_arg_t *extra, size_t nextra) {
  CA_CHECK(!find(name), CA_EEXISTS, "a layer named '", name, "' is already in the graph");
  const Layer *l = find(input);
  CA_CHECK(l, CA_ENOTFOUND, "partial reduce input layer '", input, "' is not in the graph");
  CA_CHECK(int32_t(split.size()) == l->nindex(), CA_EINVAL, "partial reduce: split has ", split.size(),
           " entries but the keys of '", input, "' have ", l->nindex(), " indices");
  CA_CHECK(extra || nextra == 0, CA_EINVAL, "extra is NULL with nextra ", nextra);
  std::vector<Index> in_nb = l->numblocks(), out_nb;
  BlockwiseArg b;
  b.is_ref = true;
  b.dep_slot = 0;
  for (size_t d = 0; d < split.size(); ++d) {
    CA_CHECK(split[d] >= 1, CA_EINVAL, "partial reduce: split[", d, "] is ", split[d], ", must be >= 1");
    DimMap m;
    m.extent = in_nb[d];
    m.out_dim = int32_t(d);
    if (split[d] == 1) {
      m.kind = DimMap::Out;
    } else {
      m.kind = DimMap::Group;
      m.value = split[d];
    }
    out_nb.push_back(in_nb[d] / split[d] + (in_nb[d] % split[d] != 0));
    b.dims.push_back(m);
  }
  std::vector<BlockwiseArg> bargs;
  bargs.push_back(std::move(b));
  for (size_t i = 0; i < nextra; ++i) bargs.push_back(blockwise_literal(extra[i]));
  add_layer(std::make_shared<BlockwiseLayer>(name, out_nb, kernel, std::vector<std::string>{input}, std::move(bargs)));
}

std::vector<std::string> Graph::kernel_names() const {
  std::vector<std::string> names;
  for (const LayerPtr &l : layers_) names.insert(names.end(), l->kernel_names().begin(), l->kernel_names().end());
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

int32_t Graph::kernel_version(const std::string &kernel) const {
  bool used = false;
  int32_t version = 0;
  const Layer *from = nullptr;
  for (const LayerPtr &l : layers_) {
    const auto &names = l->kernel_names();
    for (size_t k = 0; k < names.size(); ++k) {
      if (names[k] != kernel) continue;
      used = true;
      int32_t v = l->kernel_version(k);
      if (v == 0) continue;
      if (version != 0 && v != version)
        fail(CA_EVERSION, "layer '", from->name(), "' records kernel '", kernel, "' version ", version,
             " but layer '", l->name(), "' records version ", v);
      version = v;
      from = l.get();
    }
  }
  if (!used) fail(CA_ENOTFOUND, "no task of the graph calls kernel '", kernel, "'");
  return version;
}

namespace {
// Collects the distinct references of one task, in first-reference order.
class DepCollector final : public TaskEmitter {
 public:
  DepCollector(const Layer &l, std::vector<std::pair<std::string, std::vector<Index>>> &out) : layer_(l), out_(out) {}
  void kernel(int32_t) override {}
  void literal(const ca_arg_t &) override {}
  void literal_copy(const ca_arg_t &) override {}
  void begin_list(size_t) override {}
  void end_list() override {}
  void ref(int32_t slot, const Index *idx, int32_t n) override {
    std::pair<std::string, std::vector<Index>> key(layer_.deps()[size_t(slot)], std::vector<Index>(idx, idx + n));
    if (std::find(out_.begin(), out_.end(), key) == out_.end()) out_.push_back(std::move(key));
  }

 private:
  const Layer &layer_;
  std::vector<std::pair<std::string, std::vector<Index>>> &out_;
};
}  // namespace

std::vector<std::pair<std::string, std::vector<Index>>> Graph::dependencies(const KeyRef &key) const {
  const Layer *l = find(key.name);
  int64_t local = l && l->nindex() == key.nidx ? l->find(key.idx) : -1;
  if (local < 0) fail(CA_ENOTFOUND, "key ", key_str(key.name, key.idx, key.nidx), " is not in the graph");
  std::vector<std::pair<std::string, std::vector<Index>>> out;
  DepCollector dc(*l, out);
  l->emit(local, dc);
  return out;
}

std::vector<std::vector<Index>> Graph::layer_keys(const std::string &name) const {
  const Layer *l = find(name);
  if (!l) fail(CA_ENOTFOUND, "no layer named '", name, "'");
  int64_t n = l->num_tasks();
  std::vector<std::vector<Index>> keys(size_t(n), std::vector<Index>(size_t(l->nindex())));
  for (int64_t t = 0; t < n; ++t) l->key_at(t, keys[size_t(t)].data());
  std::sort(keys.begin(), keys.end());
  return keys;
}

}  // namespace ca
