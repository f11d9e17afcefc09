// Distributed computes of whole arrays (ca_dist_array_compute / persist / store / to_zarr): every
// block of an array computed across the ranks of a transport (dist.hpp), then gathered on the root,
// kept where the placement put it, handed to a sink or written to a zarr store. Collective: every
// rank makes the same call with the same array.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "array/array.hpp"
#include "dist/dist.hpp"
#include "exec/context.hpp"
#include "io/array_io.hpp"

namespace ca::dist {

/// What every distributed array call takes (validated by the caller: a non-null array and transport).
struct ArrayCall {
  Context *ctx = nullptr;
  ArrayPtr array;
  RunOptions run;  // the context's budget and task budget plus the caller's progress/cancellation
  const ca_transport_t *transport = nullptr;
  Options opts;  // results is set by each call
  ca_dist_stats_t *stats = nullptr;
  const char *what = "";  // the public name errors give
};

/// The whole array, C order, on the root rank (charged to the context's budget); empty elsewhere.
BlockRef compute_array(const ArrayCall &c);
/// A new array over a distributed data layer: each rank holds the blocks the placement gave it.
ArrayPtr persist_array(const ArrayCall &c);
/// Each block with its region of the array (start, stop, block index), on the rank that computed it,
/// on a worker thread, concurrently. A ca::Error thrown by the sink fails the compute on every rank.
using BlockSink = std::function<void(const Block &b, const std::vector<Index> &start, const std::vector<Index> &stop,
                                     const std::vector<Index> &block_index)>;
void store_array(const ArrayCall &c, const BlockSink &sink);
/// io::to_zarr's layout across ranks: the root creates the store (every rank learns whether it
/// could before anything is computed), each rank writes the regions of the blocks it computed.
void array_to_zarr(const ArrayCall &c, const std::string &path, const io::ZarrWriteOptions &w);

}  // namespace ca::dist
