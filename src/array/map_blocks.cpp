// dask's map_blocks: the output index (drop_axis, new_axis) and arguments, then blockwise.
#include <algorithm>

#include "array/array.hpp"
#include "core/error.hpp"

namespace ca {

ArrayPtr map_blocks(const std::string &kernel, const std::vector<ArrayPtr> &arrays, const std::vector<ca_arg_t> &extra,
                    const MapBlocksOptions &o) {
  CA_CHECK(!arrays.empty(), CA_EINVAL, "map_blocks: at least one array is needed");
  // Output dimensions: the largest input's, minus drop_axis, plus new_axis (dask's rules).
  int32_t nd = 0;
  for (size_t i = 0; i < arrays.size(); ++i) {
    CA_CHECK(arrays[i], CA_EINVAL, "map_blocks: array ", i, " is NULL");
    nd = std::max(nd, arrays[i]->ndim());
  }
  static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  std::string in_index(letters, size_t(nd));
  std::vector<bool> drop(size_t(nd), false);
  for (int32_t a : o.drop_axis) {
    int32_t ax = a < 0 ? a + nd : a;
    CA_CHECK(ax >= 0 && ax < nd, CA_EINVAL, "map_blocks: drop_axis ", a, " is out of range for ", nd, " dimensions");
    drop[size_t(ax)] = true;
  }
  std::string out_index;
  for (int32_t d = 0; d < nd; ++d)
    if (!drop[size_t(d)]) out_index += in_index[size_t(d)];
  std::vector<std::pair<char, Index>> new_axes;
  std::vector<int32_t> nax = o.new_axis;
  std::sort(nax.begin(), nax.end());
  size_t next_letter = size_t(nd);
  for (int32_t ax : nax) {
    int32_t total = int32_t(out_index.size()) + 1;
    int32_t p = ax < 0 ? ax + total : ax;
    CA_CHECK(p >= 0 && p <= int32_t(out_index.size()), CA_EINVAL, "map_blocks: new_axis ", ax, " is out of range");
    CA_CHECK(next_letter < sizeof letters - 1, CA_EINVAL, "map_blocks: too many new axes");
    char c = letters[next_letter++];
    out_index.insert(out_index.begin() + p, c);
    new_axes.push_back({c, 1});
  }
  std::vector<ArrayArg> aa;
  for (const ArrayPtr &x : arrays) aa.push_back(ArrayArg::of(x, in_index.substr(size_t(nd - x->ndim()))));
  for (const ca_arg_t &e : extra) aa.push_back(ArrayArg::lit(e));
  if (o.block_info) {
    aa.push_back(ArrayArg::special(BlockwiseArg::BlockIndex));
    aa.push_back(ArrayArg::special(BlockwiseArg::BlockOrigin));
  }
  DType dt = o.dtype != CA_DTYPE_INVALID ? o.dtype : arrays[0]->dtype;
  CA_CHECK(dtype_valid(dt) && dt != CA_RAW, CA_ETYPE, "map_blocks: invalid dtype ", dt);
  // New axes get one block of size 1 unless chunks were given; dask's map_blocks uses
  // concatenate=True: a dropped axis arrives as one block.
  return blockwise(o.name.empty() ? kernel : o.name, kernel, out_index, std::move(aa), dt, new_axes, o.chunks, true);
}

}  // namespace ca
