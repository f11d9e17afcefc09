# chunkarray graph files (docs/format.md). A file is a 16-byte header
#   bytes 0..7   magic "CHUNKARR"  (43 48 55 4E 4B 41 52 52)
#   bytes 8..11  format version, little-endian uint32 (this schema: 3; a file records the oldest
#                version that holds its layers: 1 unless it has an overlap layer (2) or an
#                index-map layer (3))
#   bytes 12..15 flags, little-endian uint32 (0)
# followed by one unpacked Cap'n Proto message (segment table + segments) whose root is File.
#
# Compatibility rules: fields are only appended (Cap'n Proto's own evolution rules); a change old
# readers would misread bumps the format version, and readers refuse versions newer than theirs.
@0x81ee086d4ee1efb9;

$import "/capnp/c++.capnp".namespace("ca::format::schema");

struct File {
  version @0 :UInt32;        # = the header's version
  producer @1 :Text;         # "chunkarray 0.1.0"
  layers @2 :List(Layer);    # in graph insertion order; a layer's inputs come before it
  arrays @3 :List(ArrayInfo); # empty for ca_graph_save files
  masked @4 :List(MaskedInfo); # masked arrays over pairs of arrays (ca_masked_save); older readers skip it
}

# A masked array (numpy.ma): two entries of File.arrays and its fill value (a ca_scalar_t).
struct MaskedInfo {
  data @0 :UInt32;           # index into File.arrays: the data
  mask @1 :UInt32;           # index into File.arrays: the bool mask (the data's shape and chunks)
  nomask @2 :Bool;           # numpy's nomask (made without a mask)
  hasFill @3 :Bool;          # false: the dtype's default fill value
  fillKind @4 :Int32;        # ca_scalar_t.kind
  fillFlags @5 :Int32;       # ca_scalar_t.flags
  fillRe @6 :Float64;
  fillIm @7 :Float64;
  fillI64 @8 :Int64;
}

struct ArrayInfo {
  name @0 :Text;             # the layer holding the array's blocks
  dtype @1 :Int32;           # CA_* dtype code
  chunks @2 :List(List(Int64)); # block sizes per dimension
}

struct Layer {
  name @0 :Text;
  nindex @1 :Int32;          # indices per key
  deps @2 :List(Text);       # dependency slots (layer names referenced by tasks)
  union {
    materialized @3 :Materialized;
    blockwise @4 :Blockwise;
    data @5 :DataLayer;
    overlap @6 :Overlap;     # format version 2 (version 1 files hold overlap layers materialized)
    indexMap @7 :IndexMap;   # format version 3 (older files hold these layers materialized)
  }
}

# Tasks as flat arrays (the in-memory layout): task t has key keys[t*nindex, (t+1)*nindex), kernel
# kernels[taskKernel[t]] and taskNargs[t] top-level arguments. Arguments of all tasks are one
# preorder sequence (a LIST is followed by its items): argKind[i] is a CA_ARG_* kind and argA[i]
# its payload: INT64 the value, FLOAT64 the IEEE bits, KEY the dependency slot, LIST the item count,
# STRING/BYTES an index into blobs, TUPLE an index into tuples, SLICE an index into slices, NONE 0.
# A KEY's block index is the next argB[i] values of refIndex (argB is 0 for other kinds).
# kernelVersions (appended to format version 1, which it leaves unchanged) is parallel to kernels: the
# version of each kernel the graph was saved against, 0 = not recorded (any version accepted). Empty
# in files written before it existed (and by writers that record nothing); readers that predate the
# field ignore it.
struct Materialized {
  kernels @0 :List(Text);
  keys @1 :List(Int64);
  taskKernel @2 :List(UInt32);
  taskNargs @3 :List(UInt32);
  argKind @4 :List(UInt8);
  argA @5 :List(Int64);
  argB @6 :List(UInt8);
  refIndex @7 :List(Int64);
  blobs @8 :List(Data);
  tuples @9 :List(List(Int64));
  slices @10 :List(Slice);
  kernelVersions @11 :List(Int32);
}

struct Slice {
  start @0 :Int64;
  stop @1 :Int64;
  step @2 :Int64;
  flags @3 :UInt32;
}

# A symbolic blockwise (or partial-reduce) layer: a formula, whatever its number of blocks.
struct Blockwise {
  kernel @0 :Text;
  numblocks @1 :List(Int64);
  hasChunks @2 :Bool;        # chunks given (needed by BlockOrigin/BlockShape arguments)
  chunks @3 :List(List(Int64));
  args @4 :List(BlockwiseArg);
  kernelVersion @5 :Int32;   # the kernel's version when saved; 0 = not recorded (older files)
}

struct BlockwiseArg {
  union {
    ref @0 :BlockwiseRef;
    literal @1 :Literal;
    special @2 :UInt8;       # 1 BlockIndex, 2 BlockOrigin, 3 BlockShape
  }
}

struct BlockwiseRef {
  depSlot @0 :Int32;
  dims @1 :List(DimMap);
}

struct DimMap {
  kind @0 :UInt8;            # 0 Out, 1 Const, 2 Group, 3 All
  outDim @1 :Int32;
  value @2 :Int64;
  extent @3 :Int64;
}

struct Literal {
  union {
    none @0 :Void;
    i64 @1 :Int64;
    f64 @2 :Float64;
    string @3 :Data;
    bytes @4 :Data;
    tuple @5 :List(Int64);
    slice @6 :Slice;
  }
}

# Blocks held in memory (from a buffer, or persisted), stored whole.
struct DataLayer {
  numblocks @0 :List(Int64);
  blocks @1 :List(Block);    # C order of the block index
}

struct Block {
  dtype @0 :Int32;
  shape @1 :List(Int64);
  data @2 :List(Data);       # the C-order bytes, in pieces of at most 256 MiB
}

# An overlap layer (src/array/overlap.hpp, format version 2): task (i, j, ...) is ca.overlap_block
# over block (i, j, ...) of the layer's one dependency and its neighbours along the axes with a
# non-zero depth. The layer's block grid is the input's (chunks); nindex = len(chunks).
struct Overlap {
  chunks @0 :List(List(Int64));   # the input's chunks
  depthLo @1 :List(Int64);        # per axis: elements taken from the block before
  depthHi @2 :List(Int64);        # per axis: elements taken from the block after
  boundaryKind @3 :List(Int32);   # per axis: CA_BOUNDARY_*
  boundaryValue @4 :List(Float64); # per axis: the CA_BOUNDARY_CONSTANT value (0 otherwise)
  kernelVersion @5 :Int32;        # ca.overlap_block's version when saved; 0 = not recorded
}

# An index-map layer (src/graph/index_map.hpp, format version 3): flip, concatenate, stack, pad,
# repeat and tile as a formula. Along each output axis, output block i has one segment; a task
# combines the segments of its block index. deps are the inputs; nindex = the number of axes.
# Two forms of the segments:
#   run form (written now): runs[d] lists axis d's runs (IndexMapRun, graph/index_map.hpp), each a
#     formula for a range of output blocks, whose sizes may come from tables (the input chunks the
#     runs refer to); axes is empty. O(runs) whatever the number of blocks.
#   segment form (written before the runs, still read): axes[d] holds one segment per output block
#     (columns below, all of one length); runs and tables are empty.
# A 0-d layer has neither. Readers that predate the run form refuse run-form files (0 axes for
# nindex > 0: CA_EFORMAT), so the format version stays 3.
struct IndexMap {
  axes @0 :List(IndexMapAxis);
  selectAxis @1 :Int32;          # the axis whose segments pick the input (concatenate); -1: none
  fillDtype @2 :Int32;           # CA_* dtype of constant blocks (0 without Fill segments)
  fillValue @3 :Data;            # one element's bytes (empty without Fill segments)
  repeats @4 :Int64;             # Repeat segments: the repeat count
  kernelVersions @5 :List(Int32); # parallel to the kernels the layer uses (identity, strided, fill,
                                  # repeat: the used ones in this order), or empty (not recorded)
  runs @6 :List(IndexMapRuns);   # run form: per output axis
  tables @7 :List(List(Int64));  # run form: chunk tables (block sizes; -1 unknown) runs refer to
}

struct IndexMapAxis {
  kind @0 :List(UInt8);          # 0 Whole, 1 Strided, 2 Fill, 3 Repeat
  input @1 :List(Int32);         # dependency slot (non-zero only on the select axis)
  block @2 :List(Int64);         # the input block along this axis
  start @3 :List(Int64);
  step @4 :List(Int64);
  count @5 :List(Int64);         # -1: unknown (Whole only)
}

struct IndexMapRuns {
  runs @0 :List(IndexMapRun);    # in output-block order; their block counts add up to the axis's
}

# Output blocks i0 .. i0 + n - 1 (i0: the blocks of the runs before), j = i - i0:
#   input block: rule 0 (affine) block + bstep * j, bstep in {-1, 0, 1}; rule 1 (modular, tile)
#   block + j mod bstep; rule 2 (slabs, repeat) the block holding slab j of dask's repeat over the
#   whole table (block 0, bstep 0, kind 3).
#   start/step/count: table -1: the literal fields; else from len = tables[table][input block]:
#   kind 0 (0, 1, len); kind 1 with step -1 (max(len - 1, 0), -1, len); slabs: slab j's
#   (start, 1, count) (start and count 0 in the file).
struct IndexMapRun {
  kind @0 :UInt8;                # 0 Whole, 1 Strided, 2 Fill, 3 Repeat
  rule @1 :UInt8;                # 0 affine, 1 modular, 2 slabs
  input @2 :Int32;               # dependency slot (non-zero only on the select axis)
  table @3 :Int32;               # index into tables; -1: literal start/step/count
  n @4 :Int64;                   # output blocks (>= 1)
  block @5 :Int64;
  bstep @6 :Int64;
  start @7 :Int64;
  step @8 :Int64;
  count @9 :Int64;               # -1: unknown (Whole only)
}
