// Byte sizes written as text (core/bytesize.hpp).
#include "core/bytesize.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>

#include "core/error.hpp"

namespace ca {

namespace {
// Messages quote at most 64 bytes of the text (it may come from a file or a fuzzer).
std::string excerpt(const std::string &text) {
  return text.size() <= 64 ? text : text.substr(0, 64) + "...(" + std::to_string(text.size()) + " bytes)";
}
}  // namespace

int64_t parse_bytes(const std::string &text) {
  std::string s;
  for (char c : text)
    if (c != ' ') s += c;
  if (std::none_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) s = "1" + s;
  size_t idx = s.size();
  while (idx > 0 && std::isalpha(static_cast<unsigned char>(s[idx - 1]))) --idx;
  std::string prefix = s.substr(0, idx), suffix = s.substr(idx);
  for (char &c : suffix) c = char(std::tolower(static_cast<unsigned char>(c)));
  char *end = nullptr;
  double n = std::strtod(prefix.c_str(), &end);
  if (prefix.empty() || !end || *end || prefix.find_first_of("xX") != std::string::npos)
    fail(CA_EINVAL, "could not interpret '", excerpt(prefix), "' as a number in the byte size '", excerpt(text), "'");
  static const std::map<std::string, double> units = {
      {"", 1},       {"b", 1},        {"kb", 1e3},     {"mb", 1e6},     {"gb", 1e9},        {"tb", 1e12},
      {"pb", 1e15},  {"kib", 1024.0}, {"mib", 1048576.0}, {"gib", 1073741824.0}, {"tib", 1099511627776.0},
      {"pib", 1125899906842624.0}, {"k", 1e3}, {"m", 1e6}, {"g", 1e9}, {"t", 1e12}, {"p", 1e15},
      {"ki", 1024.0}, {"mi", 1048576.0}, {"gi", 1073741824.0}, {"ti", 1099511627776.0}, {"pi", 1125899906842624.0}};
  if (suffix == "inf" || suffix == "infinity" || suffix == "nan")
    fail(CA_EINVAL, "'", excerpt(text), "' is not a byte size (a finite, non-negative number of bytes)");
  auto it = units.find(suffix);
  if (it == units.end())
    fail(CA_EINVAL, "could not interpret '", excerpt(suffix), "' as a byte unit in '", excerpt(text),
         "' (b, kB, MB, GB, TB, PB, KiB, MiB, GiB, TiB, PiB)");
  const double bytes = n * it->second;
  if (!std::isfinite(n) || !(bytes >= 0))
    fail(CA_EINVAL, "'", excerpt(text), "' is not a byte size (a finite, non-negative number of bytes)");
  if (!(bytes < 9223372036854775808.0))  // 2^63 is exact in a double
    fail(CA_EINVAL, "'", excerpt(text), "' is ", bytes, " bytes, more than 2^63-1");
  return int64_t(bytes);
}

}  // namespace ca
