// The layer-kind registry of graph files: for every LayerKind, how a file stores it (its member of
// the schema's Layer union, the first format version with that form) and the functions that save
// and load it. The writer and the reader only look kinds up here, so a layer kind cannot be saved
// in a form nobody chose: a kind without an entry fails to compile in layer_codecs.cpp (a switch
// with no default) and, should it get past that, fails to save with CA_EUNSUPPORTED.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "format/format.hpp"
#include "format/graph_file.capnp.h"
#include "graph/layer.hpp"

namespace ca::format {

/// What the reader knows of a layer before its kind's own fields (all checked already).
struct LayerHead {
  std::string name;
  int32_t nindex = 0;
  std::vector<std::string> deps;
};

struct LayerCodec {
  LayerKind kind;
  schema::Layer::Which tag;  ///< its member of the schema's Layer union
  const char *name;          ///< "materialized", "blockwise", ... (messages)
  uint32_t since_version;    ///< the first format version holding this form
  /// Fill b's union member from `layer` (of this codec's kind).
  void (*save)(const Layer &layer, schema::Layer::Builder b, const KernelVersionFn &versions);
  /// Build the layer from r's union member (untrusted: CA_EFORMAT naming what is wrong).
  LayerPtr (*load)(LayerHead head, schema::Layer::Reader r);
};

/// The codec of a layer kind (null only for a kind no entry covers, which the build prevents).
const LayerCodec *layer_codec(LayerKind kind) noexcept;
/// The codec of a stored layer's union member (null: a member this library does not know).
const LayerCodec *layer_codec(schema::Layer::Which tag) noexcept;

namespace detail {
/// Copy `v` into a capnp list builder of the same length (the writer and the codecs).
template <class T, class L>
void fill_list(L list, const std::vector<T> &v) {
  for (size_t i = 0; i < v.size(); ++i) list.set(unsigned(i), v[i]);
}

// The codecs' halves, next to the code they share (writer.cpp, reader.cpp).
void save_materialized_layer(const Layer &l, schema::Layer::Builder b, const KernelVersionFn &versions);
void save_blockwise_layer(const Layer &l, schema::Layer::Builder b, const KernelVersionFn &versions);
void save_data_layer(const Layer &l, schema::Layer::Builder b, const KernelVersionFn &versions);
LayerPtr load_materialized_layer(LayerHead head, schema::Layer::Reader r);
LayerPtr load_blockwise_layer(LayerHead head, schema::Layer::Reader r);
LayerPtr load_data_layer(LayerHead head, schema::Layer::Reader r);
/// The versions to record for kernels `names` of `src`: empty if none is recorded (writer.cpp).
std::vector<int32_t> versions_for(const Layer &src, const std::vector<std::string> &names, const KernelVersionFn &fn);
}  // namespace detail

}  // namespace ca::format
