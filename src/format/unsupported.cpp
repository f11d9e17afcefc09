// The format layer built with -Dcapnp=disabled: the one stub set. Saving and loading graph files
// need Cap'n Proto and fail with CA_EUNSUPPORTED; arrays.cpp and kernel_versions.cpp still build.
#include "core/error.hpp"
#include "format/format.hpp"

namespace ca::format {

namespace {
[[noreturn]] void unsupported(const char *what) {
  fail(CA_EUNSUPPORTED, what, ": this chunkarray was built without Cap'n Proto (-Dcapnp=disabled)");
}
}  // namespace

std::vector<unsigned char> save_bytes(const Graph &, const std::vector<ArrayEntry> &, const KernelVersionFn &,
                                      const std::vector<MaskedEntry> &) {
  unsupported("saving a graph file");
}
void save_file(const Graph &, const std::vector<ArrayEntry> &, const std::string &, const KernelVersionFn &,
               const std::vector<MaskedEntry> &) {
  unsupported("saving a graph file");
}
FileContents load_bytes(const void *, size_t) { unsupported("loading a graph file"); }
FileContents load_file(const std::string &) { unsupported("loading a graph file"); }

}  // namespace ca::format
