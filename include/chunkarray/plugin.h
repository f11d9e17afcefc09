/**
 * @file chunkarray/plugin.h
 * @brief Kernel plugins: shared objects that register kernels into a context.
 *
 * A saved graph names its kernels; a plugin brings kernels that are not built in, so a graph file
 * that uses them runs anywhere the plugin is loaded first (`chunkarray run --plugin my.so file`).
 *
 * The plugin contract (CA_PLUGIN_ABI_VERSION 1). A plugin is a shared object that exports, with
 * default visibility and C linkage:
 *
 *  - `const int32_t ca_plugin_abi_version;` equal to CA_PLUGIN_ABI_VERSION of the plugin.h it was
 *    built with (write `CA_PLUGIN_DECLARE_ABI;` once in the plugin);
 *  - `ca_status_t ca_plugin_init(ca_context_t *ctx, int32_t abi_version);` which registers the
 *    plugin's kernels into @p ctx through the public API (ca_context_register() and friends) and
 *    returns CA_OK, or an error status after ca-style cleanup. @p abi_version is the loading
 *    library's CA_PLUGIN_ABI_VERSION (always equal to the plugin's when init is called).
 *
 * The plugin links against libchunkarray.so.1 (the same library the host uses). ca_plugin_load()
 * checks the ABI symbol before calling init; a plugin is never unloaded once init succeeded (its
 * kernel functions stay in the registry), so loading is for the life of the process. Loading the
 * same plugin into another context calls init again for that context. init runs on the calling
 * thread; the kernels it registers run on any worker thread, concurrently.
 *
 * Minimal plugin:
 * @code
 *   #include <chunkarray/chunkarray.h>
 *   #include <chunkarray/plugin.h>
 *   static ca_status_t twice(ca_block_t **out, const ca_arg_t *args, size_t nargs,
 *                            ca_kernel_ctx_t *kctx, void *ud) { ... }
 *   CA_PLUGIN_DECLARE_ABI;
 *   CA_PLUGIN_EXPORT ca_status_t ca_plugin_init(ca_context_t *ctx, int32_t abi_version) {
 *     (void)abi_version;
 *     return ca_context_register(ctx, "myplugin.twice", twice, NULL);
 *   }
 * @endcode
 */
#ifndef CHUNKARRAY_PLUGIN_H
#define CHUNKARRAY_PLUGIN_H

#include "chunkarray/context.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The plugin ABI version: bumped when the contract above changes incompatibly. */
#define CA_PLUGIN_ABI_VERSION 1

/** @def CA_PLUGIN_EXPORT
 *  Exports a plugin's entry points (ca_plugin_init, ca_plugin_abi_version) from its shared object. */
#if defined(__GNUC__)
#define CA_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define CA_PLUGIN_EXPORT
#endif

/** Defines the ABI symbol a plugin must export (write it once, at file scope, in one source file). */
#define CA_PLUGIN_DECLARE_ABI CA_PLUGIN_EXPORT extern const int32_t ca_plugin_abi_version; \
  const int32_t ca_plugin_abi_version = CA_PLUGIN_ABI_VERSION

/** The entry point's type (the exported function is named ca_plugin_init). */
typedef ca_status_t (*ca_plugin_init_fn)(ca_context_t *ctx, int32_t abi_version);

/**
 * Load the plugin at @p path (dlopen with RTLD_NOW | RTLD_LOCAL), check its ABI version and call its
 * ca_plugin_init() to register its kernels into @p ctx.
 * @param ctx borrowed. @param path borrowed; a path with a '/' is used as is, a bare name is searched
 *        as dlopen() does.
 * @return CA_OK;
 *         CA_EINVAL (NULL argument);
 *         CA_ENOTFOUND (no file at @p path; or the object exports no ca_plugin_init or no
 *         ca_plugin_abi_version: the message names the missing symbol);
 *         CA_EIO (dlopen failed: not a shared object, missing dependency; dlerror()'s text);
 *         CA_EVERSION (the plugin was built for another plugin ABI version: both are named);
 *         otherwise the status ca_plugin_init() returned (e.g. CA_EEXISTS for a kernel name already
 *         registered), with the message prefixed by the plugin path; a return value that is no
 *         chunkarray status (a positive number such as 7, or an unknown negative one) is CA_EKERNEL,
 *         the message giving the value.
 * On any failure before init, the object is unloaded again. When init fails, every registration it
 * made in @p ctx is undone (kernels it added are removed, kernels it replaced are restored); the object
 * stays loaded. Do not register kernels into @p ctx from another thread while a plugin loads.
 */
CA_API ca_status_t ca_plugin_load(ca_context_t *ctx, const char *path);

/** @return CA_PLUGIN_ABI_VERSION of the library actually loaded. */
CA_API int32_t ca_plugin_abi(void);

#ifdef __cplusplus
}
#endif

#endif /* CHUNKARRAY_PLUGIN_H */
