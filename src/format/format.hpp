// Graph files: a graph (and optionally arrays over it) saved as one Cap'n Proto message behind a
// 16-byte header (schema and rules: src/format/graph_file.capnp, docs/format.md).
//
// Layers are stored as they are in memory: symbolic layers stay formulas, materialized layers are
// their flat task arrays, data layers carry their block bytes. Kernels are stored by name, with the
// version each was saved against (0 = not recorded; checked when a plan is built). Loading
// treats the bytes as untrusted: every count, index and reference is checked and anything wrong is
// a ca::Error with CA_EFORMAT (or CA_EVERSION for a newer format) naming what is wrong.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "array/array.hpp"
#include "core/dtype.hpp"
#include "graph/graph.hpp"

namespace ca {
class KernelRegistry;
namespace ma {
struct Masked;
}
}

namespace ca::format {

/// The format version this library writes; it reads every version from 1 up to this one.
constexpr uint32_t kFormatVersion = 3;
constexpr size_t kHeaderSize = 16;
constexpr char kMagic[8] = {'C', 'H', 'U', 'N', 'K', 'A', 'R', 'R'};

/// One array of a file: the layer holding its blocks, its dtype and chunks.
struct ArrayEntry {
  std::string name;
  DType dtype = 0;
  std::vector<std::vector<Index>> chunks;
};

/// One masked array of a file (ca_masked_save): indices of its data and mask in the array list, and
/// its fill value as a ca_scalar_t's fields.
struct MaskedEntry {
  uint32_t data = 0, mask = 0;
  bool nomask = false, has_fill = false;
  int32_t fill_kind = 0, fill_flags = 0;
  double fill_re = 0, fill_im = 0;
  int64_t fill_i64 = 0;
};

struct FileContents {
  std::shared_ptr<Graph> graph;
  std::vector<ArrayEntry> arrays;
  std::vector<MaskedEntry> masked;
  uint32_t version = 0;
};

/// Limits applied to untrusted input (beyond Cap'n Proto's traversal and nesting limits).
constexpr int32_t kMaxNindex = 64;          // indices per key (as ca_graph_add_task)
constexpr int kMaxArgDepth = 64;            // nested argument lists (as ca_graph_add_task)
constexpr int64_t kMaxFanIn = int64_t(1) << 24;  // keys one blockwise task may reference
constexpr int64_t kMaxTasks = int64_t(1) << 62;  // tasks of one symbolic layer

/// Chooses the version a file records for one kernel of one layer. Called once per kernel slot of
/// every saved materialized or blockwise layer with the version the layer itself records (0 = none);
/// returns the version to write (>= 0; 0 = not recorded) or throws a ca::Error.
using KernelVersionFn = std::function<int32_t(const Layer &layer, const std::string &kernel, int32_t recorded)>;

/// The library's rule (ca_graph_save_opts): a layer's own recorded version is kept; with a registry
/// (a context's), every kernel must be registered there (CA_ENOTFOUND names kernel and layer) at the
/// recorded version if there is one (CA_EVERSION names both), and unrecorded kernels record the
/// registered version; without one, unrecorded "ca.*" kernels record their version in `builtins`
/// (the library's builtin registry, builtins/builtins.hpp: passed in because the format layer sits
/// below it; 0 if absent or null) and other kernels stay unrecorded.
KernelVersionFn kernel_version_resolver(const KernelRegistry *registry, const KernelRegistry *builtins);

/// Serialize: the header followed by the message (flat, unpacked). Without `versions`, the layers'
/// own recorded kernel versions are written.
std::vector<unsigned char> save_bytes(const Graph &g, const std::vector<ArrayEntry> &arrays,
                                      const KernelVersionFn &versions = {},
                                      const std::vector<MaskedEntry> &masked = {});
/// Write to `path` atomically (a temporary file renamed over it). CA_EIO names the path.
void save_file(const Graph &g, const std::vector<ArrayEntry> &arrays, const std::string &path,
               const KernelVersionFn &versions = {}, const std::vector<MaskedEntry> &masked = {});

/// Built with -Dcapnp=disabled, save_bytes, save_file, load_bytes and load_file throw
/// Error(CA_EUNSUPPORTED) (format/unsupported.cpp, the one stub set); everything else works.

/// Decode untrusted bytes (any alignment). CA_EFORMAT / CA_EVERSION with a message.
FileContents load_bytes(const void *data, size_t size);
/// Memory-map `path` and decode it. CA_ENOTFOUND (no file), CA_EIO, CA_EFORMAT, CA_EVERSION.
FileContents load_file(const std::string &path);

// ---- arrays over graph files (format/arrays.cpp) ---------------------------------------------------

/// What saving `arrays` writes: the union of their graphs (merge_graphs), with one entry per array
/// appended to `entries`. `what` names the caller in errors (CA_EINVAL for a null array).
std::shared_ptr<Graph> arrays_graph(const std::vector<ArrayPtr> &arrays, std::vector<ArrayEntry> &entries,
                                    const char *what);
/// The array a loaded file's entry names, over the file's graph. An array whose blocks are not all in
/// the graph is a corrupt file (CA_EFORMAT naming the array). Grid layers (blockwise, data) are
/// checked by their block counts (no walk over a possibly huge grid); materialized layers key by key,
/// after bounding the grid by the layer's task count.
ArrayPtr file_array(const FileContents &fc, const ArrayEntry &e);
/// file_array for every entry, in file order.
std::vector<ArrayPtr> file_arrays(const FileContents &fc);

/// What saving masked array `m` writes: its data and mask appended to `arrays` (to be saved after
/// them) and its entry to `masked`.
void add_masked(std::vector<ArrayPtr> &arrays, std::vector<MaskedEntry> &masked, const ma::Masked &m);
/// The masked arrays a loaded file lists, over its arrays (CA_EFORMAT for an invalid fill value).
std::vector<std::shared_ptr<const ma::Masked>> file_masked(const FileContents &fc);

}  // namespace ca::format
