// GoogleTest driver for the C99 slicing cases (capi_slicing_cases.c).
#include <gtest/gtest.h>

#include "capi_slicing_cases.h"

#define CAPI_SLICING_TEST(name)                              \
  TEST(CApiSlicing, name) {                                  \
    const char *failure = capi_slicing_case_##name();        \
    EXPECT_EQ(failure, nullptr) << (failure ? failure : ""); \
  }
CAPI_SLICING_CASES(CAPI_SLICING_TEST)
#undef CAPI_SLICING_TEST
