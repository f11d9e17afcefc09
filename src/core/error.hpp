// Internal errors: exceptions carrying a ca_status_t and a message, caught at the C boundary (capi/).
#pragma once

#include <chunkarray/common.h>

#include <cstdint>
#include <exception>
#include <sstream>
#include <string>
#include <utility>

namespace ca {

using Index = int64_t;

class Error : public std::exception {
 public:
  Error(ca_status_t code, std::string message) : code_(code), message_(std::move(message)) {}
  ca_status_t code() const noexcept { return code_; }
  const char *what() const noexcept override { return message_.c_str(); }
  const std::string &message() const noexcept { return message_; }

 private:
  ca_status_t code_;
  std::string message_;
};

/// Concatenate anything streamable into a string: str("axis ", 3, " is out of range").
template <class... A>
std::string str(A &&...parts) {
  std::ostringstream os;
  (os << ... << std::forward<A>(parts));
  return os.str();
}

template <class... A>
[[noreturn]] void fail(ca_status_t code, A &&...parts) {
  throw Error(code, str(std::forward<A>(parts)...));
}

#define CA_CHECK(cond, code, ...)                  \
  do {                                             \
    if (!(cond)) ::ca::fail((code), __VA_ARGS__);  \
  } while (0)

}  // namespace ca
