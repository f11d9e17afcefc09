// Graph layers (dask's HighLevelGraph layers). A layer owns every key of one name.
//
// Materialized layers store tasks compactly (flat arrays + an arena); symbolic layers (blockwise,
// partial reduce) are formulas from a block index to a task and cost O(1) memory whatever their size.
// Layers are immutable once shared: a graph copies a materialized layer before modifying it.
#pragma once

#include <chunkarray/kernel.h>

struct ca_block;

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace ca {

/// Bump allocator whose allocations never move (pointers into it stay valid).
class Arena {
 public:
  Arena() = default;
  Arena(const Arena &) = delete;
  Arena &operator=(const Arena &) = delete;
  void *alloc(size_t n, size_t align = 8);
  /// Copy bytes, adding a NUL terminator after them.
  const char *copy_bytes(const void *data, size_t n);
  const int64_t *copy_i64(const int64_t *data, size_t n);
  size_t bytes_used() const { return used_; }

 private:
  std::vector<std::unique_ptr<char[]>> chunks_;
  char *cur_ = nullptr;
  size_t left_ = 0;
  size_t used_ = 0;
};

/// Receives one task from a layer (kernel, then arguments in order; lists bracket their items).
class TaskEmitter {
 public:
  virtual ~TaskEmitter() = default;
  /// Index into Layer::kernel_names(); called once, first.
  virtual void kernel(int32_t kernel_slot) = 0;
  /// A literal whose pointers stay valid while the layer lives (not copied).
  virtual void literal(const ca_arg_t &a) = 0;
  /// A literal with temporary pointers (copied by the receiver).
  virtual void literal_copy(const ca_arg_t &a) = 0;
  /// A reference to key (deps()[dep_slot], idx[0..nidx)).
  virtual void ref(int32_t dep_slot, const Index *idx, int32_t nidx) = 0;
  virtual void begin_list(size_t n) = 0;
  virtual void end_list() = 0;
};

// Overlap: array/overlap.cpp's OverlapLayer (neighbour references, symbolic). IndexMap:
// graph/index_map.hpp (flip, concatenate, stack, pad, repeat, tile; symbolic).
enum class LayerKind : int32_t { Materialized = 0, Blockwise = 1, Data = 2, Overlap = 3, IndexMap = 4 };

using Block = ::ca_block;

/// The position of block `idx` in C order over a grid of `numblocks` (-1 when outside it), and back:
/// the task numbering of every layer kind whose tasks are its grid's blocks.
inline int64_t grid_find(const std::vector<Index> &numblocks, const Index *idx) {
  int64_t lin = 0;
  for (size_t d = 0; d < numblocks.size(); ++d) {
    if (idx[d] < 0 || idx[d] >= numblocks[d]) return -1;
    lin = lin * numblocks[d] + idx[d];
  }
  return lin;
}
inline void grid_key_at(const std::vector<Index> &numblocks, int64_t local, Index *idx) {
  for (size_t d = numblocks.size(); d-- > 0;) {
    idx[d] = local % numblocks[d];
    local /= numblocks[d];
  }
}

class Layer {
 public:
  virtual ~Layer() = default;
  const std::string &name() const { return name_; }
  /// Number of indices of every key of this layer.
  int32_t nindex() const { return nindex_; }
  /// Names of the layers whose keys tasks reference (dependency slots).
  const std::vector<std::string> &deps() const { return deps_; }
  const std::vector<std::string> &kernel_names() const { return kernels_; }
  /// The kernel version recorded for kernel slot `slot` (from a graph file, or set when the layer was
  /// built): 0 = not recorded, any registered version is accepted.
  int32_t kernel_version(size_t slot) const { return slot < versions_.size() ? versions_[slot] : 0; }
  /// The recorded version of the kernel named `kernel` in this layer (0 if unrecorded or unused).
  int32_t kernel_version_of(const std::string &kernel) const;
  /// Record versions, one per kernel slot (parallel to kernel_names(); each >= 0). Only on a layer
  /// not yet shared (layers are immutable once in a graph). CA_EINVAL on a bad count or value.
  void set_kernel_versions(std::vector<int32_t> versions);
  /// True if any kernel slot has a recorded (non-zero) version.
  bool records_kernel_versions() const;
  virtual LayerKind kind() const = 0;
  virtual int64_t num_tasks() const = 0;
  /// Local task id of a key, or -1.
  virtual int64_t find(const Index *idx) const = 0;
  virtual void key_at(int64_t local, Index *idx) const = 0;
  virtual void emit(int64_t local, TaskEmitter &e) const = 0;
  /// The kernel name task `local` calls (its emitted kernel slot); "?" for a slot out of range.
  const std::string &kernel_of(int64_t local) const;
  /// Blocks per index: the grid for symbolic layers, the bounding box for materialized ones.
  virtual std::vector<Index> numblocks() const = 0;
  /// Content hash (same name + same hash = same layer when merging graphs).
  virtual uint64_t fingerprint() const = 0;

 protected:
  std::string name_;
  int32_t nindex_ = 0;
  std::vector<std::string> deps_;
  std::vector<std::string> kernels_;
  // Recorded kernel versions per kernel slot; may be shorter than kernels_ (missing = 0, unrecorded).
  std::vector<int32_t> versions_;
};

using LayerPtr = std::shared_ptr<const Layer>;

// ------------------------------------------------------------------------------------------------
// Materialized layer: tasks added one by one.

namespace format {
struct MaterializedAccess;  // src/format: builds the flat arrays of a loaded layer directly
}

class MaterializedLayer final : public Layer {
  friend struct format::MaterializedAccess;

 public:
  MaterializedLayer(std::string name, int32_t nindex);
  LayerKind kind() const override { return LayerKind::Materialized; }
  int64_t num_tasks() const override { return int64_t(task_args_.size()); }
  int64_t find(const Index *idx) const override;
  void key_at(int64_t local, Index *idx) const override;
  void emit(int64_t local, TaskEmitter &e) const override;
  std::vector<Index> numblocks() const override;
  uint64_t fingerprint() const override;

  /// Add a task. `args` may hold KEY (references) and LIST; throws CA_EEXISTS for a duplicate key,
  /// CA_EINVAL for bad arguments.
  void add_task(const Index *idx, const std::string &kernel, const ca_arg_t *args, size_t nargs);
  /// Deep copy (for copy-on-write), optionally keeping only the tasks with keep[local] true.
  std::shared_ptr<MaterializedLayer> clone(const std::vector<bool> *keep = nullptr) const;

 private:
  struct Stored {  // one argument; lists are followed by their items (preorder)
    int32_t kind;
    int32_t slot;  // KEY: dependency slot; LIST: item count (top level of this list)
    ca_arg_t arg;  // literal payload (pointers into arena_); KEY: u.key.index into arena_
  };
  void store_arg(const ca_arg_t &a, int depth);
  int32_t dep_slot(const char *name);
  void rehash(size_t cap);
  uint64_t hash_idx(const Index *idx) const;
  void emit_range(size_t &pos, size_t count, TaskEmitter &e) const;
  size_t skip(size_t pos) const;

  Arena arena_;
  std::vector<Index> keys_;           // num_tasks * nindex
  std::vector<int32_t> task_kernel_;  // per task: kernel slot
  std::vector<uint32_t> task_nargs_;  // per task: top-level arg count
  std::vector<size_t> task_args_;     // per task: first Stored index
  std::vector<Stored> stored_;
  std::vector<int64_t> table_;  // open addressing: local ids, -1 empty
  std::vector<Index> max_idx_;
};

// ------------------------------------------------------------------------------------------------
// Blockwise layer: out block (i, j, ...) -> kernel(args) with each input argument's block index a
// function of the output index.

struct DimMap {
  enum Kind : int32_t { Out = 0, Const = 1, Group = 2, All = 3 };
  int32_t kind = Out;
  int32_t out_dim = 0;  // Out, Group
  int64_t value = 0;    // Const: the index; Group: the group size
  int64_t extent = 1;   // the input's number of blocks along this dimension
};

struct BlockwiseArg {
  bool is_ref = false;
  int32_t dep_slot = -1;
  std::vector<DimMap> dims;  // is_ref: one per input index
  // literal (is_ref false): kind + payload owned by the layer
  ca_arg_t literal{};
  std::string payload;                 // STRING/BYTES
  std::vector<int64_t> tuple_payload;  // TUPLE
  // Special literals computed from the output block index (is_ref false):
  enum Special : int32_t { None = 0, BlockIndex = 1, BlockOrigin = 2, BlockShape = 3 };
  int32_t special = None;  // BlockOrigin/BlockShape need the layer's chunks
  bool block_index = false;  // == (special == BlockIndex); kept for readability at call sites
};

class BlockwiseLayer final : public Layer {
 public:
  BlockwiseLayer(std::string name, std::vector<Index> numblocks, std::string kernel, std::vector<std::string> deps,
                 std::vector<BlockwiseArg> args);
  /// With the output chunks (block sizes per dimension), for BlockOrigin/BlockShape literals.
  BlockwiseLayer(std::string name, std::vector<std::vector<Index>> chunks, std::string kernel,
                 std::vector<std::string> deps, std::vector<BlockwiseArg> args);
  const std::vector<std::vector<Index>> &chunks() const { return chunks_; }
  LayerKind kind() const override { return LayerKind::Blockwise; }
  int64_t num_tasks() const override { return ntasks_; }
  int64_t find(const Index *idx) const override;
  void key_at(int64_t local, Index *idx) const override;
  void emit(int64_t local, TaskEmitter &e) const override;
  std::vector<Index> numblocks() const override { return numblocks_; }
  uint64_t fingerprint() const override;

  const std::vector<BlockwiseArg> &args() const { return args_; }
  const std::string &kernel() const { return kernels_[0]; }

 private:
  void emit_ref(const BlockwiseArg &a, const Index *out, size_t d, Index *in, TaskEmitter &e) const;
  void init();
  std::vector<Index> numblocks_;
  int64_t ntasks_ = 1;
  std::vector<BlockwiseArg> args_;
  std::vector<std::vector<Index>> chunks_;   // optional
  std::vector<std::vector<Index>> origins_;  // cumulative offsets per dimension (with chunks_)
};

// ------------------------------------------------------------------------------------------------
// Data layer: blocks held in memory (from a caller's buffer, or persisted). Task (i, j) is
// `ca.data(<block>)`, which hands out the stored block without copying.

class DataLayer final : public Layer {
 public:
  DataLayer(std::string name, std::vector<Index> numblocks, std::vector<const Block *> blocks);  // adopts refs
  /// A distributed data layer (a distributed persist, dist/): block t lives on rank home[t] of
  /// `nranks`; blocks_ holds this rank's blocks and nullptr for the others' (never run here: the
  /// distributed placement puts each task on its home rank). The fingerprint covers name, grid and
  /// homes, so it is the same on every rank.
  DataLayer(std::string name, std::vector<Index> numblocks, std::vector<const Block *> blocks,
            std::vector<int32_t> home, int32_t nranks, std::vector<int64_t> nbytes);  // adopts refs
  ~DataLayer() override;
  LayerKind kind() const override { return LayerKind::Data; }
  int64_t num_tasks() const override { return int64_t(blocks_.size()); }
  int64_t find(const Index *idx) const override;
  void key_at(int64_t local, Index *idx) const override;
  void emit(int64_t local, TaskEmitter &e) const override;
  std::vector<Index> numblocks() const override { return numblocks_; }
  uint64_t fingerprint() const override;
  /// This process's block, nullptr for a block of a distributed layer held by another rank.
  const Block *block(int64_t local) const { return blocks_[size_t(local)]; }
  /// Distributed layers: the rank holding each block, and the number of ranks (0 when not distributed).
  bool distributed() const { return nranks_ > 0; }
  int32_t home(int64_t local) const { return home_[size_t(local)]; }
  int32_t nranks() const { return nranks_; }
  /// Bytes of block `local` (known on every rank, also for blocks held elsewhere).
  int64_t block_bytes(int64_t local) const;

 private:
  std::vector<Index> numblocks_;
  std::vector<const Block *> blocks_;
  std::vector<int32_t> home_;
  std::vector<int64_t> nbytes_;  // distributed layers: every block's bytes
  int32_t nranks_ = 0;
};

/// Deep-copy a literal argument's payload into an arena (STRING/BYTES/TUPLE; not KEY/LIST/BLOCK).
ca_arg_t copy_literal(const ca_arg_t &a, Arena &arena);
/// dask-style key text: ('x', 0, 1)
std::string key_str(const std::string &name, const Index *idx, int32_t n);
/// FNV-1a style mixing helpers for fingerprints.
uint64_t hash_mix(uint64_t h, uint64_t v);
uint64_t hash_bytes(uint64_t h, const void *p, size_t n);
/// A fast hash of a large buffer (content tokens of arrays: ~10 GB/s); not the same as hash_bytes.
uint64_t hash_data(uint64_t h, const void *p, size_t n);

}  // namespace ca
