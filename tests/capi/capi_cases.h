/*
 * The C API test cases (capi_cases.c), written in C99 over the public API only.
 * Each case returns NULL on success or a static message describing the first failed check.
 * CAPI_CASES(X) lists them once, for the C declarations and the GoogleTest driver (test_capi.cpp).
 */
#ifndef CHUNKARRAY_TESTS_CAPI_CASES_H
#define CHUNKARRAY_TESTS_CAPI_CASES_H

#ifdef __cplusplus
extern "C" {
#endif

#define CAPI_CASES(X)                 \
  X(typed_scalar_operands)             \
  X(code_enums_and_spec_aliases)       \
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
  X(kernel_free_user_data_once)       \
  X(kernel_call)                      \
  X(ffi_kernel)                       \
  X(ffi_wrong_arguments)              \
  X(graph_literals)                   \
  X(graph_add_task_errors)            \
  X(compute_simple)                   \
  X(compute_threaded)                 \
  X(compute_missing_key)              \
  X(compute_cycle)                    \
  X(compute_unknown_kernel)           \
  X(compute_kernel_error)             \
  X(blockwise_partial_reduce)         \
  X(graph_merge)                      \
  X(graph_cull)                       \
  X(graph_copy)                       \
  X(graph_queries)                    \
  X(graph_validate)                   \
  X(graph_kernel_versions)            \
  X(compute_progress)                 \
  X(compute_cancel)                   \
  X(null_handles)                     \
  X(array_new)                        \
  X(array_new_errors)                 \
  X(normalize_chunks)                 \
  X(array_from_buffer_copy)           \
  X(array_from_buffer_borrow)         \
  X(array_compute_into_persist)       \
  X(array_ones_reduce_scalar)         \
  X(kernel_returns_input)             \
  X(array_errors)                     \
  X(array_compute_many)               \
  X(threads)

/* Checks of documented behaviour the library gets wrong today (see the comments in capi_cases.c).
 * Each runs as its own meson test with should_fail: true. */
#define CAPI_KNOWN_BUGS(X)                  \
  X(kernel_new_out_on_null_name)            \
  X(chunks_str_tuple_then_whole)

#define CAPI_DECLARE_CASE(name) const char *capi_case_##name(void);
CAPI_CASES(CAPI_DECLARE_CASE)
#undef CAPI_DECLARE_CASE
#define CAPI_DECLARE_BUG(name) const char *capi_known_bug_##name(void);
CAPI_KNOWN_BUGS(CAPI_DECLARE_BUG)
#undef CAPI_DECLARE_BUG

#ifdef __cplusplus
}
#endif

#endif /* CHUNKARRAY_TESTS_CAPI_CASES_H */
