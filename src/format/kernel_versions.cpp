// Which kernel versions a saved graph file records (format.hpp's kernel_version_resolver). Kept out
// of writer.cpp so the loader fuzzer (tests/fuzz) builds without the kernel registry.
#include "format/format.hpp"
#include "kernel/kernel.hpp"

namespace ca::format {

KernelVersionFn kernel_version_resolver(const KernelRegistry *registry, const KernelRegistry *builtins) {
  return [registry, builtins](const Layer &layer, const std::string &kernel, int32_t recorded) -> int32_t {
    if (registry) {
      KernelPtr k = registry->find(kernel);
      if (!k)
        fail(CA_ENOTFOUND, "layer '", layer.name(), "' uses kernel '", kernel,
             "', which is not registered in the context given to save (its version cannot be recorded)");
      if (recorded != 0 && k->version != recorded)
        fail(CA_EVERSION, "layer '", layer.name(), "' records kernel '", kernel, "' version ", recorded,
             "; the '", kernel, "' registered in the context given to save is version ", k->version);
      return k->version;
    }
    if (recorded != 0) return recorded;
    if (builtins && kernel.compare(0, 3, "ca.") == 0) {
      KernelPtr k = builtins->find(kernel);
      return k ? k->version : 0;
    }
    return 0;
  };
}

}  // namespace ca::format
