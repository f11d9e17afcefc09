// store: dask's da.store(sources, targets) with a callback as the target. Each computed block is
// handed to the sink with its region, on the worker that computed it, then released (unless another
// task still needs it): blocks stream through, so an array larger than memory can be stored.
#pragma once

#include <functional>
#include <vector>

#include "array/array.hpp"
#include "exec/executor.hpp"

namespace ca {

struct StoreRegion {
  size_t array = 0;               // which of the stored arrays
  int32_t ndim = 0;
  const Index *start = nullptr;   // ndim: first element of the block along each axis
  const Index *stop = nullptr;    // ndim: start + extent
  const Index *block_index = nullptr;
};

/// Called concurrently from worker threads; throws ca::Error to stop the compute (the message
/// reaches the caller prefixed with the block's key).
using StoreSink = std::function<void(const StoreRegion &, const Block *)>;

/// Compute every block of `arrays` (one plan: shared work is done once) and hand each to `sink`.
/// Every block of every array reaches the sink exactly once, including empty ones.
void store(Executor &ex, const KernelRegistry &reg, const std::vector<ArrayPtr> &arrays, const StoreSink &sink,
           const RunOptions &opts, RunStats *stats = nullptr);

}  // namespace ca
