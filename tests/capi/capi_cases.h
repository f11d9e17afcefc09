/*
 * The C API test cases (capi_cases.c), written in C99 over the public API only.
 * Each case returns NULL on success or a static message describing the first failed check.
 * CAPI_CASES(X) lists them once, for the C definitions and the GoogleTest driver (test_capi.cpp).
 */
#ifndef CHUNKARRAY_TESTS_CAPI_CASES_H
#define CHUNKARRAY_TESTS_CAPI_CASES_H

#ifdef __cplusplus
extern "C" {
#endif

#define CAPI_CASES(X)                 \
  X(version)                          \
  X(status_str)                       \
  X(last_error)                       \
  X(dtype_names)                      \
  X(dtype_promote)                    \
  X(block_new)                        \
  X(block_zero_d_and_empty)           \
  X(block_bad_args)                   \
  X(block_retain_free)                \
  X(block_wrap)                       \
  X(block_wrap_release_on_failure)    \
  X(context_options)                  \
  X(context_config)                   \
  X(kernel_register)                  \
  X(kernel_replace_and_remove)        \
  X(kernel_free_user_data_once)       \
  X(kernel_call)                      \
  X(kernel_ctx_null)                  \
  X(ffi_kernel)                       \
  X(ffi_wrong_arguments)              \
  X(graph_literals)                   \
  X(graph_add_task_errors)            \
  X(compute_simple)                   \
  X(compute_missing_key)              \
  X(compute_cycle)                    \
  X(compute_unknown_kernel)           \
  X(compute_kernel_error)             \
  X(compute_results_null_on_failure)  \
  X(compute_key_info)                 \
  X(compute_threaded_fan_in)          \
  X(blockwise_broadcast)              \
  X(blockwise_contraction)            \
  X(blockwise_new_axis)               \
  X(blockwise_errors)                 \
  X(partial_reduce)                   \
  X(partial_reduce_errors)            \
  X(graph_merge)                      \
  X(graph_cull)                       \
  X(graph_copy)                       \
  X(graph_queries)                    \
  X(graph_validate)                   \
  X(compute_progress)                 \
  X(compute_cancel)                   \
  X(null_handles)                     \
  X(null_handles_keys)

#define CAPI_DECLARE_CASE(name) const char *capi_case_##name(void);
CAPI_CASES(CAPI_DECLARE_CASE)
#undef CAPI_DECLARE_CASE

#ifdef __cplusplus
}
#endif

#endif /* CHUNKARRAY_TESTS_CAPI_CASES_H */
