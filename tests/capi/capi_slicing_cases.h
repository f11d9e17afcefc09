/* C99 cases for chunkarray/slicing.h (capi_slicing_cases.c), driven by test_capi_slicing.cpp. */
#ifndef CHUNKARRAY_TESTS_CAPI_SLICING_CASES_H
#define CHUNKARRAY_TESTS_CAPI_SLICING_CASES_H

#ifdef __cplusplus
extern "C" {
#endif

#define CAPI_SLICING_CASES(X) \
  X(basic)                    \
  X(mask_unknown)             \
  X(take_vindex_setitem)      \
  X(advanced_index)

#define CAPI_SLICING_DECLARE(name) const char *capi_slicing_case_##name(void);
CAPI_SLICING_CASES(CAPI_SLICING_DECLARE)
#undef CAPI_SLICING_DECLARE

#ifdef __cplusplus
}
#endif

#endif
