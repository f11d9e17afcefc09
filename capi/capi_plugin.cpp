// Kernel plugins (chunkarray/plugin.h): dlopen, check the ABI symbol, call ca_plugin_init.
#include <chunkarray/plugin.h>
#include <dlfcn.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "capi_internal.hpp"

extern "C" {

CA_API int32_t ca_plugin_abi(void) { return CA_PLUGIN_ABI_VERSION; }

CA_API ca_status_t ca_plugin_load(ca_context_t *ctx, const char *path) {
  CA_ARG_NOT_NULL(ctx);
  CA_ARG_NOT_NULL(path);
  CA_TRY
  std::string p(path);
  if (p.empty()) return set_error(CA_EINVAL, "ca_plugin_load: the plugin path is empty");
  if (p.find('/') != std::string::npos) {
    struct stat st {};
    if (::stat(path, &st) != 0)
      return set_error(errno == ENOENT ? CA_ENOTFOUND : CA_EIO,
                       "plugin '" + p + "': " + std::strerror(errno));
    if (!S_ISREG(st.st_mode)) return set_error(CA_EIO, "plugin '" + p + "' is not a regular file");
  }
  ::dlerror();
  void *h = ::dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *e = ::dlerror();
    std::string msg = e ? e : "dlopen failed";
    bool missing = p.find('/') == std::string::npos && msg.find("No such file") != std::string::npos;
    return set_error(missing ? CA_ENOTFOUND : CA_EIO, "plugin '" + p + "' cannot be loaded: " + msg);
  }
  auto *abi = static_cast<const int32_t *>(::dlsym(h, "ca_plugin_abi_version"));
  if (!abi) {
    ::dlclose(h);
    return set_error(CA_ENOTFOUND, "plugin '" + p +
                                       "' exports no ca_plugin_abi_version (write CA_PLUGIN_DECLARE_ABI; in it, "
                                       "see chunkarray/plugin.h)");
  }
  if (*abi != CA_PLUGIN_ABI_VERSION) {
    int32_t v = *abi;
    ::dlclose(h);
    return set_error(CA_EVERSION, "plugin '" + p + "' was built for plugin ABI version " + std::to_string(v) +
                                      ", this chunkarray has version " + std::to_string(CA_PLUGIN_ABI_VERSION) +
                                      ": rebuild the plugin against this chunkarray");
  }
  void *sym = ::dlsym(h, "ca_plugin_init");
  if (!sym) {
    ::dlclose(h);
    return set_error(CA_ENOTFOUND, "plugin '" + p + "' exports no ca_plugin_init entry point (see chunkarray/plugin.h)");
  }
  ca_plugin_init_fn init;
  static_assert(sizeof init == sizeof sym);
  std::memcpy(&init, &sym, sizeof init);
  ca_clear_error();
  // A failed init is rolled back: the registry is put back as it was before (kernels the plugin added
  // are removed, kernels it replaced are restored).
  ca::KernelRegistry::Snapshot before = ctx->engine.registry().snapshot();
  ca_status_t st = init(ctx, CA_PLUGIN_ABI_VERSION);
  // Never dlclose after init ran: kernels it registered may still be referenced (graphs, computes
  // already holding them), and they point into the object.
  if (st != CA_OK) {
    std::string why = ca_last_error_message();
    ctx->engine.registry().restore(std::move(before));
    bool known = std::strcmp(ca_status_str(st), "CA_E?") != 0;
    if (!known)  // not a chunkarray status (a plugin returning 7, -1000, ...): the plugin's code failed
      return set_error(CA_EKERNEL, "plugin '" + p + "': ca_plugin_init failed with " + std::to_string(st) +
                                       ", which is not a chunkarray status (reported as CA_EKERNEL)" +
                                       (why.empty() ? std::string() : ": " + why) +
                                       "; its registrations were undone");
    return set_error(st, "plugin '" + p + "': ca_plugin_init failed with " + ca_status_str(st) +
                             (why.empty() ? std::string() : ": " + why) + "; its registrations were undone");
  }
  return CA_OK;
  CA_CATCH
}

}  // extern "C"
