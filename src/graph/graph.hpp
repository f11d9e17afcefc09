// A graph: named layers in insertion order (dask's HighLevelGraph). Copies share layers.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "graph/layer.hpp"

namespace ca {

struct KeyRef {
  const char *name;
  const Index *idx;
  int32_t nidx;
};

class Graph {
 public:
  /// Add a layer; CA_EEXISTS if a different layer of that name exists (the same one is a no-op).
  void add_layer(LayerPtr layer);
  const Layer *find(const std::string &name) const;
  LayerPtr find_ptr(const std::string &name) const;
  /// Add a task to the materialized layer `key.name` (created on first use; copied if shared).
  void add_task(const KeyRef &key, const std::string &kernel, const ca_arg_t *args, size_t nargs);
  void merge(const Graph &other);
  const std::vector<LayerPtr> &layers() const { return layers_; }
  int64_t num_tasks() const;
  bool has_key(const KeyRef &key) const;
  /// The graph of only the tasks `keys` need (dask's cull): each layer some requested key reaches,
  /// materialized layers copied with only their reached tasks, symbolic layers shared whole, in
  /// this graph's order. CA_ENOTFOUND for a key that names no task, CA_ECYCLE for a cycle.
  Graph cull(const KeyRef *keys, size_t nkeys) const;

  /// The distinct kernel names the tasks of every layer call, sorted (ca.data for data layers).
  std::vector<std::string> kernel_names() const;
  /// The version of `kernel` the layers record (0 when none records one). CA_ENOTFOUND when no task
  /// calls it; CA_EVERSION naming both layers when two record different versions.
  int32_t kernel_version(const std::string &kernel) const;
  /// The distinct keys task `key` references, in the order its arguments first name them (dask's
  /// `get_dependencies`). CA_ENOTFOUND when no task has that key.
  std::vector<std::pair<std::string, std::vector<Index>>> dependencies(const KeyRef &key) const;
  /// The block indices of layer `name`'s tasks, sorted. CA_ENOTFOUND when there is no such layer.
  std::vector<std::vector<Index>> layer_keys(const std::string &name) const;

  /// Blockwise layer from dask-style index notation (see ca_graph_add_blockwise).
  void add_blockwise(const std::string &name, const std::string &out_index, const std::string &kernel,
                     const ca_arg_t *args, size_t nargs, const int64_t *numblocks);
  /// Partial reduction level (see ca_graph_add_partial_reduce).
  void add_partial_reduce(const std::string &name, const std::string &input, const std::vector<Index> &split,
                          const std::string &kernel, const ca_arg_t *extra, size_t nextra);

 private:
  std::vector<LayerPtr> layers_;
  std::unordered_map<std::string, size_t> index_;
};

/// Literal argument for a blockwise layer (payload copied into the BlockwiseArg).
BlockwiseArg blockwise_literal(const ca_arg_t &a);

}  // namespace ca
