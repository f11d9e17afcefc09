// What the reduction kernels (array/reduce_kernels.cpp) share with the translation units that run
// the reduction families (array/reduce_kernels_<family>.cpp): the parsed spec and arguments of a
// kernel call and one entry point per family group. The groups are separate objects only so the
// build compiles them in parallel (each instantiates its families for every dtype); which group
// runs a reduction follows its BASE column in array/reductions.def.
#pragma once

#include <chunkarray/array.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "array/expr.hpp"
#include "core/block.hpp"

namespace ca::red {

/// spec (reductions) = (op, input dtype, result dtype, reduced-axes bit mask, arg axis (-1: flat), ddof)
struct Spec {
  int32_t op = 0;
  DType in = 0, out = 0;
  uint64_t mask = 0;
  int32_t argaxis = -1;
  int32_t ddof = 0;
};

/// ca.reduce_chunk's arguments, checked.
struct ChunkIn {
  const PreparedProgram *pp = nullptr;
  const ExprProgram *prog = nullptr;
  bool identity = false;
  std::vector<const Block *> leaves;
  std::vector<Index> gshape, origin, bshape;
  Spec spec;
};

/// One stage of a reduction for a family group to run: its inputs and, after the call, its result.
struct RedCall {
  enum Stage { Chunk, Combine, Agg, PartialSize };
  Stage stage = Chunk;
  const Spec *spec = nullptr;
  const ChunkIn *in = nullptr;                       // Chunk
  const std::vector<const Block *> *parts = nullptr;  // Combine, Agg: the partials (non-empty)
  const std::vector<Index> *oshape = nullptr;         // Agg: the output block's shape (known extents)
  Block *out = nullptr;                               // Chunk, Combine, Agg: the result (owned)
  size_t partial_size = 0;                            // PartialSize: sizeof the family's partial
};

// The family groups (array/reduce_kernels_<group>.cpp); each fails with CA_EINVAL for a reduction
// that is not its own.
void run_sum(RedCall &c);       // Sum
void run_prod(RedCall &c);      // Prod
void run_mean(RedCall &c);      // Mean
void run_var_std(RedCall &c);   // Var, Std
void run_min_max(RedCall &c);   // Min, Max, Any, All
void run_arg(RedCall &c);       // ArgMin, ArgMax

/// Runs the stage in the group of c.spec->op (CA_EINVAL for an unknown reduction).
void run_reduction(RedCall &c);

/// A new block of dtype `to` (always a private copy).
Block *cast_block(const Block *src, DType to);

/// Elements of a block shape from a task's arguments (a graph file's, so checked: CA_EINVAL for a
/// negative extent or a product past 2^63-1).
Index checked_size(const std::vector<Index> &v);

}  // namespace ca::red
