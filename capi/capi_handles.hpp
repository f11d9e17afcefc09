// The engine objects behind the C API's opaque handles, as declared functions instead of the
// handles' layouts: for capi/*.cpp and for C++ tests linked with chunkarray_static_dep.
#pragma once

#include <chunkarray/chunkarray.h>

#include "array/array.hpp"
#include "exec/context.hpp"
#include "graph/graph.hpp"

namespace ca::capi {

/// A new array handle (reference count 1) around `a`.
ca_array_t *wrap_array(ArrayPtr a);
/// The engine array behind a handle; nullptr for NULL.
ArrayPtr unwrap(const ca_array_t *a);
/// The engine context behind a context handle (non-NULL).
Context &engine(ca_context_t *ctx);
const Context &engine(const ca_context_t *ctx);
/// The engine graph behind a graph handle (non-NULL).
Graph &engine(ca_graph_t *g);
const Graph &engine(const ca_graph_t *g);

}  // namespace ca::capi

namespace ca::ma {
struct Masked;
}

namespace ca::capi {
/// A new masked-array handle (reference count 1) around `m` (capi_masked.cpp).
ca_masked_t *wrap_masked(std::shared_ptr<const ma::Masked> m);
/// The engine masked array behind a handle; CA_EINVAL naming `what` and `param` for NULL.
const std::shared_ptr<const ma::Masked> &masked_in(const ca_masked_t *m, const char *what, const char *param = "a");
}  // namespace ca::capi
