// Chunked arrays: dask.array's model. An Array is a graph + a name + chunks + a dtype (+ meta).
// Operations return new Arrays whose graph is the union of the inputs' graphs plus one new layer.
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "core/block.hpp"
#include "core/dtype.hpp"
#include "graph/graph.hpp"

namespace ca {

using Chunks = std::vector<std::vector<Index>>;

/// A block size not known until computed (dask's NaN chunks, e.g. after x[mask]); public as
/// CA_CHUNK_UNKNOWN (chunkarray/slicing.h). An axis with an unknown block has extent kUnknownChunk
/// in Array::shape, and Array::size()/nbytes() are then kUnknownChunk too.
constexpr Index kUnknownChunk = -1;
using GraphPtr = std::shared_ptr<const Graph>;

struct Expr;  // array/expr.hpp: a fused elementwise expression
using ExprPtr = std::shared_ptr<const Expr>;
struct GenSpec;  // array/create.hpp: an array generated from element indices
using GenPtr = std::shared_ptr<const GenSpec>;

struct Array {
  GraphPtr graph;
  std::string name;
  Chunks chunks;
  DType dtype = CA_FLOAT64;
  std::vector<Index> shape;      // derived from chunks
  std::vector<Index> numblocks;  // derived from chunks
  /// Non-null when this array is an elementwise expression over other arrays: further elementwise
  /// operations and reductions compose with it instead of reading its blocks (fusion).
  ExprPtr expr;
  /// Non-null when every element is a function of its global index (full, arange, random...):
  /// expressions and reductions over this array regenerate regions instead of reading blocks.
  GenPtr gen;

  int32_t ndim() const { return int32_t(chunks.size()); }
  Index size() const;
  Index nbytes() const { return size() == kUnknownChunk ? kUnknownChunk : size() * Index(dtype_size(dtype)); }
  Index nblocks() const;
};

using ArrayPtr = std::shared_ptr<const Array>;

// ---- the model ----------------------------------------------------------------------------------

/// dask's Array(graph, name, chunks, dtype): validates chunks and that every block key exists.
ArrayPtr array_new(GraphPtr graph, const std::string &name, Chunks chunks, DType dtype);
/// The same without the key check (for layers this library built itself).
ArrayPtr array_from_layer(GraphPtr graph, const std::string &name, Chunks chunks, DType dtype, ExprPtr expr = nullptr);
/// Validate chunks (non-negative sizes or kUnknownChunk) and return shape (kUnknownChunk for an axis
/// with an unknown block).
std::vector<Index> chunks_shape(const Chunks &chunks);
/// Block start offsets per dimension (cumulative sums; kUnknownChunk from the first unknown block on).
std::vector<std::vector<Index>> chunk_offsets(const Chunks &chunks);
/// "((2, 3, 4), (5,))"; unknown sizes print as "nan", as dask does.
std::string chunks_str(const Chunks &chunks);
/// The number of blocks along each axis of `chunks`.
inline std::vector<Index> numblocks_of(const Chunks &chunks) {
  std::vector<Index> nb;
  nb.reserve(chunks.size());
  for (const auto &d : chunks) nb.push_back(Index(d.size()));
  return nb;
}
/// The largest entry of a non-empty list of block sizes.
inline Index max_of(const std::vector<Index> &v) { return *std::max_element(v.begin(), v.end()); }
/// The index letters blockwise, einsum-like and gufunc index strings use, one per dimension.
inline constexpr char kIndexLetters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
inline constexpr size_t kNumIndexLetters = sizeof(kIndexLetters) - 1;
/// The first n index letters ("abc" for 3 dimensions): the one home of that string (blockwise,
/// fused, routine and FFT layers). CA_EINVAL beyond kNumIndexLetters dimensions.
inline std::string index_letters(size_t n) {
  CA_CHECK(n <= kNumIndexLetters, CA_EINVAL, n, " dimensions are more than the ", kNumIndexLetters, " index letters");
  return std::string(kIndexLetters, n);
}
/// True when every block size is known (no kUnknownChunk).
bool chunks_known(const Chunks &chunks);
/// Throws CA_EINVAL "<what>: chunk sizes are unknown along axis 0; call ca_array_compute_chunk_sizes"
/// when an axis of `a` (every axis, or only `axis` when >= 0) has unknown block sizes.
void require_known_chunks(const Array &a, const char *what, int32_t axis = -1);

/// A new graph: the union of the arrays' graphs (layers shared).
std::shared_ptr<Graph> merge_graphs(const std::vector<ArrayPtr> &arrays);

// ---- names --------------------------------------------------------------------------------------

/// Deterministic names, dask's tokenize: "prefix-<32 hex>" from everything that defines the result.
class Tokenizer {
 public:
  explicit Tokenizer(const std::string &prefix);
  Tokenizer &add(const std::string &s);
  Tokenizer &add(const char *s) { return add(std::string(s ? s : "<null>")); }
  Tokenizer &add(int64_t v);
  Tokenizer &add(int32_t v) { return add(int64_t(v)); }
  Tokenizer &add(uint64_t v) { return add(int64_t(v)); }
  Tokenizer &add(double v);
  Tokenizer &add(const Array &a);
  Tokenizer &add(const Chunks &c);
  Tokenizer &add(const std::vector<Index> &v);
  Tokenizer &add_bytes(const void *p, size_t n);
  /// The contents of a (large) buffer, with the fast hash_data.
  Tokenizer &add_data(const void *p, size_t n);
  Tokenizer &add_arg(const ca_arg_t &a);
  std::string name() const;

 private:
  std::string prefix_;
  uint64_t h1_, h2_;
};

// ---- normalize_chunks ---------------------------------------------------------------------------

struct DimChunks {
  Index size = 0;              // > 0 block size, -1 whole, 0 auto, -2 explicit
  std::vector<Index> sizes;    // explicit
};

/// dask's normalize_chunks. `limit` bytes per block for auto dims (dask's rounding: auto dims share
/// the budget equally and block sizes are rounded to divide the extent evenly where possible).
Chunks normalize_chunks(const std::vector<DimChunks> &spec, const std::vector<Index> &shape, DType dtype,
                        Index limit);
/// normalize_chunks of a chunk string, the Python literal a dask user passes as `chunks=`: "auto", "5",
/// "-1", "None", "(2, 3, 4), -1", "((2,3,4),(5,5))", "{0: 5, 1: -1}" (other axes whole), "64MiB" (auto with
/// that limit instead of `limit`), "(5, 'auto')". Read by the same parser as rechunk_chunks (rechunk.hpp).
/// Errors: CA_EINVAL naming the offending part (syntax, axis, size, sum).
Chunks normalize_chunks_spec(const std::string &spec, const std::vector<Index> &shape, DType dtype, Index limit);
/// Blocks of `size` along an extent (last one ragged).
std::vector<Index> blocks_of(Index extent, Index size);

// ---- building layers ----------------------------------------------------------------------------

/// An argument of a blockwise layer built over arrays.
/// A blockwise argument the layer fills per block (BlockwiseArg::BlockIndex, BlockOrigin, BlockShape).
inline BlockwiseArg blockwise_special(int32_t which) {
  BlockwiseArg b;
  b.special = which;
  b.block_index = which == BlockwiseArg::BlockIndex;
  return b;
}

struct ArrayArg {
  ArrayPtr array;          // null: literal / special
  std::string index;       // letters, one per dimension of array
  BlockwiseArg literal;    // literal or special (BlockIndex/BlockOrigin/BlockShape)
  static ArrayArg of(ArrayPtr a, std::string index) {
    ArrayArg r;
    r.array = std::move(a);
    r.index = std::move(index);
    return r;
  }
  static ArrayArg lit(const ca_arg_t &a);
  static ArrayArg special(int32_t which) {
    ArrayArg r;
    r.literal = blockwise_special(which);
    return r;
  }
};

/// Low-level: a blockwise layer with output chunks `out_chunks` (one entry per letter of out_index).
/// Array arguments must already have chunks matching out_chunks on shared letters (or one block to
/// broadcast); contracted letters become lists of blocks. Returns the new array (no expr).
/// `concatenate`: a contracted letter along which an input has one block passes that block itself,
/// not a one-element list (dask's concatenate=True after the blocks were merged).
ArrayPtr blockwise_layer(const std::string &name, const std::string &kernel, const std::string &out_index,
                         const std::vector<ArrayArg> &args, const Chunks &out_chunks, DType dtype,
                         bool concatenate = false);

/// High-level (dask's blockwise): unify chunks of letters across inputs (rechunking where they
/// differ), derive output chunks (new_axes: letter -> size, one block), then blockwise_layer.
ArrayPtr blockwise(const std::string &prefix, const std::string &kernel, const std::string &out_index,
                   std::vector<ArrayArg> args, DType dtype, const std::vector<std::pair<char, Index>> &new_axes,
                   const Chunks *explicit_chunks, bool concatenate);

/// dask's unify_chunks over arrays indexed by letters; returns the (possibly rechunked) arrays.
std::vector<ArrayPtr> unify_chunks(const std::vector<ArrayPtr> &arrays, const std::vector<std::string> &indices);
/// dask's map_blocks over `arrays` (at least one; the kernel gets one block of each, then `extra`).
struct MapBlocksOptions {
  std::string name;                    // output name prefix; "" = the kernel name
  DType dtype = CA_DTYPE_INVALID;      // CA_DTYPE_INVALID = the first input's
  std::vector<int32_t> drop_axis;      // input axes the output drops (may be negative)
  std::vector<int32_t> new_axis;       // output axes the output gains, size 1 (may be negative)
  const Chunks *chunks = nullptr;      // explicit output chunks (borrowed); nullptr = derived
  bool block_info = false;             // also pass the block index and origin (BlockIndex, BlockOrigin)
};
/// Output dimensions are the largest input's minus drop_axis plus new_axis; inputs are aligned on
/// their trailing dimensions (broadcast); a dropped axis arrives as one block (concatenate=True).
/// Throws Error(CA_EINVAL) for an empty `arrays`, a null array or an axis out of range, and
/// Error(CA_ETYPE) for an invalid output dtype.
ArrayPtr map_blocks(const std::string &kernel, const std::vector<ArrayPtr> &arrays, const std::vector<ca_arg_t> &extra,
                    const MapBlocksOptions &opts);

/// Common refinement of block boundaries (dask's common_blockdim); extent-1 dims broadcast.
std::vector<Index> common_blockdim(const std::vector<std::vector<Index>> &dims);


// ---- structure ----------------------------------------------------------------------------------

/// Rechunk to new chunks of the same shape (each output block assembled from the overlapping input
/// blocks; intermediate stages keep every task under the chunk-size limit).
ArrayPtr rechunk(const ArrayPtr &a, const Chunks &chunks);
/// The rechunk of a generated array, or of an expression whose leaves are all generated arrays of its
/// shape: the same generators (and expression) over the new chunks. nullptr for any other array.
ArrayPtr rechunk_generated(const ArrayPtr &a, const Chunks &chunks);

/// Materialize an array from blocks held in memory (adopts the block references).
ArrayPtr from_blocks(const std::string &name, Chunks chunks, DType dtype, std::vector<const Block *> blocks);
/// dask's from_array over a caller's buffer. borrow: blocks view contiguous regions (release once
/// when no block needs the buffer), others are copied. The name is a token of the contents (dtype,
/// chunks and the bytes of every block, as dask tokenizes a NumPy array), or with unique_name a
/// fresh one (dask's name=False: no pass over the data).
ArrayPtr from_buffer(const void *data, DType dtype, const std::vector<Index> &shape, const int64_t *strides,
                     const Chunks &chunks, bool borrow, void (*release)(void *), void *ud,
                     bool unique_name = false);

/// The fused expression of `a` as blockwise arguments over a's output grid: [program bytes, leaf
/// blocks...] (see array/expr.hpp). For an array without expr: the program is the identity on one
/// input, `a` itself.
struct FusedArgs {
  std::string program;            // serialized ExprProgram
  std::vector<ArrayArg> inputs;   // leaf arrays with index letters over a's dims
  std::string out_index;          // a's letters
  bool coords = false;            // the program generates: pass BlockOrigin and BlockShape
};
FusedArgs fused_args(const ArrayPtr &a);
/// The leaves of a fused expression as references of a BlockwiseLayer whose keys are the
/// expression's own block grid (fa.out_index): appended to `bargs`, their layers to `deps` (once
/// each); literal inputs are appended as they are.
void fused_leaf_args(const FusedArgs &fa, std::vector<std::string> &deps, std::vector<BlockwiseArg> &bargs);
/// The arrays among fa's inputs (for merge_graphs).
std::vector<ArrayPtr> fused_leaf_arrays(const FusedArgs &fa);

// ---- compute ------------------------------------------------------------------------------------

class Context;
class Executor;
class KernelRegistry;
struct RunOptions;

/// Compute into a C-order buffer of a->nbytes() bytes (blocks copied as they finish).
void compute_into(Executor &ex, const KernelRegistry &reg, const std::vector<ArrayPtr> &arrays,
                  const std::vector<void *> &buffers, const RunOptions &opts);
/// Compute and keep the blocks: a new array over a data layer with the same chunks.
ArrayPtr persist(Executor &ex, const KernelRegistry &reg, const ArrayPtr &a, const RunOptions &opts);
/// Compute arrays into new C-order blocks (ca_array_compute's policy): arrays with unknown block
/// sizes are persisted first, and each result is charged to the context's memory budget before it is
/// allocated (Error(CA_ENOMEM) naming `what` and the array's position when it cannot fit).
std::vector<BlockRef> compute_blocks(Context &ctx, std::vector<ArrayPtr> arrays, const RunOptions &opts,
                                     const char *what);
/// Copy a block into its place in a C-order array buffer (shape `shape`) at `origin`.
void copy_block_into(const Block *b, void *dst, const std::vector<Index> &shape, const Index *origin, size_t itemsize);
/// Where the box at `origin` of `extent` lies in a C-ordered buffer `dst` of `shape`, when it is one
/// contiguous run there (its size in *nbytes); nullptr otherwise (or for an empty box). A block whose
/// data already is that run (its kernel wrote it there: RunOptions::out_dest) is not copied again.
void *contiguous_region(void *dst, const std::vector<Index> &shape, const Index *origin, const Index *extent,
                        size_t itemsize, int64_t *nbytes);

// ---- pictures -----------------------------------------------------------------------------------

std::string array_to_svg(const Array &a, int32_t size);
std::string graph_to_dot(const Graph &g, const std::vector<KeyRef> &keys);

}  // namespace ca
