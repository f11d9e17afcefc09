// Computing arrays into new blocks under a context (ca_array_compute's policy).
#include "array/array.hpp"
#include "core/error.hpp"
#include "core/memory.hpp"
#include "exec/context.hpp"
#include "exec/executor.hpp"

namespace ca {

std::vector<BlockRef> compute_blocks(Context &ctx, std::vector<ArrayPtr> arrays, const RunOptions &ro,
                                     const char *what) {
  std::vector<BlockRef> blocks;
  std::vector<void *> bufs;
  for (size_t i = 0; i < arrays.size(); ++i) {
    ArrayPtr &a = arrays[i];
    // Unknown block sizes (dask's NaN chunks): compute the blocks first, then assemble them.
    if (!chunks_known(a->chunks)) a = persist(*ctx.executor(), ctx.registry(), a, ro);
    // The result is charged to the context's memory budget before it is allocated: one that cannot
    // fit fails here with CA_ENOMEM instead of being paged in until the process is killed.
    wait_to_fit(ctx.budget(), a->nbytes(), str("the result of ", what, " (array ", i, ")"));
    ChargeScope charge(&ctx.budget());
    blocks.emplace_back(block_new(a->dtype, a->ndim(), a->shape.data()));
    bufs.push_back(blocks.back()->data);
  }
  compute_into(*ctx.executor(), ctx.registry(), arrays, bufs, ro);
  return blocks;
}

}  // namespace ca
