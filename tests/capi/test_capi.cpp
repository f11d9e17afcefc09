// GoogleTest driver for the C API cases in capi_cases.c (C99, public API only).
#include <gtest/gtest.h>

#include "capi_cases.h"

#define CAPI_TEST(name)                                     \
  TEST(CApi, name) {                                        \
    const char *failure = capi_case_##name();               \
    EXPECT_EQ(failure, nullptr) << (failure ? failure : ""); \
  }
CAPI_CASES(CAPI_TEST)
#undef CAPI_TEST

#define CAPI_BUG_TEST(name)                                 \
  TEST(CApiKnownBug, name) {                                \
    const char *failure = capi_known_bug_##name();          \
    EXPECT_EQ(failure, nullptr) << (failure ? failure : ""); \
  }
CAPI_KNOWN_BUGS(CAPI_BUG_TEST)
#undef CAPI_BUG_TEST
