// Arrays over graph files: what saving arrays writes, and the arrays a loaded file names.
#include "array/array.hpp"
#include "array/masked.hpp"
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

void add_masked(std::vector<ArrayPtr> &arrays, std::vector<MaskedEntry> &masked, const ma::Masked &m) {
  MaskedEntry e;
  e.data = uint32_t(arrays.size());
  arrays.push_back(m.data);
  e.mask = uint32_t(arrays.size());
  arrays.push_back(m.mask);
  e.nomask = m.nomask;
  e.has_fill = m.has_fill;
  e.fill_kind = m.fill.kind;
  e.fill_flags = m.fill.flags;
  e.fill_re = m.fill.re;
  e.fill_im = m.fill.im;
  e.fill_i64 = m.fill.i64;
  masked.push_back(e);
}

std::vector<std::shared_ptr<const ma::Masked>> file_masked(const FileContents &fc) {
  std::vector<std::shared_ptr<const ma::Masked>> out;
  for (size_t i = 0; i < fc.masked.size(); ++i) {
    const MaskedEntry &e = fc.masked[i];
    auto m = std::make_shared<ma::Masked>();
    m->data = file_array(fc, fc.arrays[e.data]);
    m->mask = file_array(fc, fc.arrays[e.mask]);
    m->nomask = e.nomask;
    m->has_fill = e.has_fill;
    m->fill = ca_scalar_t{e.fill_kind, e.fill_flags, e.fill_re, e.fill_im, e.fill_i64};
    if (e.has_fill) {
      try {
        ma::cast_fill(m->fill, m->data->dtype);
      } catch (const Error &err) {
        if (err.code() == CA_ENOMEM) throw;
        fail(CA_EFORMAT, "masked array ", i, " has an invalid fill value (", err.message(), ")");
      }
    }
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<ArrayPtr> file_arrays(const FileContents &fc) {
  std::vector<ArrayPtr> out;
  out.reserve(fc.arrays.size());
  for (const ArrayEntry &e : fc.arrays) out.push_back(file_array(fc, e));
  return out;
}

}  // namespace ca::format
