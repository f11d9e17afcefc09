// Arrays over graph files: what saving arrays writes, and the arrays a loaded file names.
#include "array/array.hpp"
#include "core/error.hpp"
#include "format/format.hpp"

namespace ca::format {

std::shared_ptr<Graph> arrays_graph(const std::vector<ArrayPtr> &arrays, std::vector<ArrayEntry> &entries,
                                    const char *what) {
  for (size_t i = 0; i < arrays.size(); ++i) {
    const ArrayPtr &a = arrays[i];
    CA_CHECK(a, CA_EINVAL, what, ": array ", i, " is NULL");
    entries.push_back({a->name, a->dtype, a->chunks});
  }
  return merge_graphs(arrays);
}

ArrayPtr file_array(const FileContents &fc, const ArrayEntry &e) {
  const Layer *l = fc.graph->find(e.name);
  CA_CHECK(l && l->nindex() == int32_t(e.chunks.size()), CA_EFORMAT, "array '", e.name, "' has no matching layer");
  std::vector<Index> nb = l->numblocks();
  int64_t blocks = 1;
  for (size_t d = 0; d < e.chunks.size(); ++d)
    CA_CHECK(!__builtin_mul_overflow(blocks, int64_t(e.chunks[d].size()), &blocks), CA_EFORMAT, "array '", e.name,
             "' has too many blocks");
  if (l->kind() != LayerKind::Materialized) {
    for (size_t d = 0; d < e.chunks.size(); ++d)
      CA_CHECK(Index(e.chunks[d].size()) <= nb[d], CA_EFORMAT, "array '", e.name, "' has ", e.chunks[d].size(),
               " blocks along axis ", d, " but its layer only ", nb[d]);
    return array_from_layer(fc.graph, e.name, e.chunks, e.dtype);
  }
  CA_CHECK(blocks <= l->num_tasks(), CA_EFORMAT, "array '", e.name, "' has ", blocks, " blocks but its layer only ",
           l->num_tasks(), " tasks");
  try {
    return array_new(fc.graph, e.name, e.chunks, e.dtype);
  } catch (const Error &err) {
    if (err.code() == CA_ENOMEM) throw;
    fail(CA_EFORMAT, "array '", e.name, "' does not match the file's graph: ", err.message());
  }
}

std::vector<ArrayPtr> file_arrays(const FileContents &fc) {
  std::vector<ArrayPtr> out;
  out.reserve(fc.arrays.size());
  for (const ArrayEntry &e : fc.arrays) out.push_back(file_array(fc, e));
  return out;
}

}  // namespace ca::format
