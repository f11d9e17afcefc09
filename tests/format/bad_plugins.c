/* Plugins that must be refused or fail (built three times with different -D flags):
 *   BAD_NOINIT  exports the ABI symbol but no ca_plugin_init
 *   BAD_ABI     exports ca_plugin_abi_version = 999
 *   BAD_INIT    ca_plugin_init fails with CA_EINVAL and a message */
#include <chunkarray/chunkarray.h>
#include <chunkarray/plugin.h>

#if defined(BAD_ABI)
CA_PLUGIN_EXPORT extern const int32_t ca_plugin_abi_version;
const int32_t ca_plugin_abi_version = 999;
#else
CA_PLUGIN_DECLARE_ABI;
#endif

#if !defined(BAD_NOINIT)
CA_PLUGIN_EXPORT ca_status_t ca_plugin_init(ca_context_t *ctx, int32_t abi_version) {
  (void)abi_version;
#if defined(BAD_INIT)
  (void)ctx;
  return CA_EINVAL;
#else
  (void)ctx;
  return CA_OK;
#endif
}
#endif
