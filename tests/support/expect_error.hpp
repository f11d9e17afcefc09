// expect_error(code, needle, f): f() throws a ca::Error with status `code` whose message contains
// `needle` (a GoogleTest failure otherwise). The engine-level tests' one copy.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"

namespace ca::test {

template <class F>
void expect_error(ca_status_t code, const std::string &needle, F &&f) {
  try {
    f();
    ADD_FAILURE() << "no error, expected " << code << " (" << needle << ")";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), code) << e.message();
    EXPECT_NE(e.message().find(needle), std::string::npos) << "message: " << e.message();
  }
}

}  // namespace ca::test
