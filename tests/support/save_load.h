/* ca_save() / ca_load() with their options filled in from arguments: the tests' and tools'
 * shorthand for "save this graph or these arrays there" and "load that". C99 and C++. */
#ifndef CHUNKARRAY_TESTS_SUPPORT_SAVE_LOAD_H
#define CHUNKARRAY_TESTS_SUPPORT_SAVE_LOAD_H

#include <chunkarray/chunkarray.h>

/* Save @p graph, or @p narrays @p arrays, to @p path or (path NULL) into *data / *size. @p base,
 * if not NULL, gives struct_size and context (a caller's options, as the old *_opts calls took). */
static inline ca_status_t save_to(void **data, size_t *size, const char *path, const ca_graph_t *graph,
                                  const ca_array_t *const *arrays, size_t narrays, const ca_save_options_t *base) {
  ca_save_options_t o = CA_SAVE_OPTIONS_INIT;
  if (base) {
    o.struct_size = base->struct_size;
    o.context = base->context;
  }
  o.path = path;
  o.graph = graph;
  o.arrays = arrays;
  o.narrays = narrays;
  return ca_save(data, size, &o);
}

/* Load @p path, or (path NULL) @p size bytes at @p data: the graph and/or the arrays. */
static inline ca_status_t load_from(ca_graph_t **graph, ca_array_t ***arrays, size_t *narrays, const char *path,
                                    const void *data, size_t size) {
  ca_load_options_t o = CA_LOAD_OPTIONS_INIT;
  o.path = path;
  o.data = data;
  o.size = size;
  return ca_load(graph, arrays, narrays, &o);
}

/* 1 when this library reads and writes graph files, 0 when it was built without Cap'n Proto
 * (-Dcapnp=disabled: ca_save() says CA_EUNSUPPORTED). Tests whose subject needs a graph file skip
 * then (GoogleTest: GTEST_SKIP()), instead of failing on a build that cannot have them. */
static inline int graph_files_supported(void) {
  ca_graph_t *g = NULL;
  void *data = NULL;
  size_t size = 0;
  ca_status_t st;
  if (ca_graph_new(&g) != CA_OK) return 1;
  st = save_to(&data, &size, NULL, g, NULL, 0, NULL);
  if (data) ca_buffer_free(data);
  ca_graph_free(g);
  return st != CA_EUNSUPPORTED;
}

#endif
