/* Plugins that must be refused or fail (built three times with different -D flags):
 *   BAD_NOINIT  exports the ABI symbol but no ca_plugin_init
 *   BAD_ABI     exports ca_plugin_abi_version = 999
 *   BAD_INIT    ca_plugin_init fails with CA_EINVAL and a message
 *   BAD_RAW     ca_plugin_init returns 7, which is no chunkarray status
 *   BAD_HALF    ca_plugin_init registers "half.new", replaces "ca.identity", then fails (CA_EINVAL):
 *               both must be undone */
#include <chunkarray/chunkarray.h>
#include <chunkarray/plugin.h>

#if defined(BAD_ABI)
CA_PLUGIN_EXPORT extern const int32_t ca_plugin_abi_version;
const int32_t ca_plugin_abi_version = 999;
#else
CA_PLUGIN_DECLARE_ABI;
#endif

#if defined(BAD_HALF)
static ca_status_t half_kernel(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *ud) {
  (void)out;
  (void)args;
  (void)nargs;
  (void)ud;
  ca_kernel_set_error(kctx, "half.new must never run");
  return CA_EINVAL;
}
#endif

#if !defined(BAD_NOINIT)
CA_PLUGIN_EXPORT ca_status_t ca_plugin_init(ca_context_t *ctx, int32_t abi_version) {
  (void)abi_version;
#if defined(BAD_INIT)
  (void)ctx;
  return CA_EINVAL;
#elif defined(BAD_RAW)
  (void)ctx;
  return 7;
#elif defined(BAD_HALF)
  {
    ca_kernel_t *k = NULL;
    ca_status_t st;
    if (ca_context_register(ctx, "half.new", half_kernel, NULL) != CA_OK) return CA_EINTERNAL;
    if (ca_kernel_new(&k, "ca.identity", half_kernel, NULL) != CA_OK) return CA_EINTERNAL;
    st = ca_context_add_kernel(ctx, k, true);
    ca_kernel_free(k);
    if (st != CA_OK) return CA_EINTERNAL;
    return CA_EINVAL;
  }
#else
  (void)ctx;
  return CA_OK;
#endif
}
#endif
