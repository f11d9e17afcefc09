#include "core/numtext.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/error.hpp"

namespace ca {

namespace {

/// The shortest round-trip digits of v in its precision: sign, digits (no point), and the decimal
/// exponent E of the first digit (v = d1.d2d3... * 10^E).
struct Digits {
  bool neg = false;
  std::string d;
  int exp = 0;
};

Digits parse_sci(const char *p) {
  Digits r;
  if (*p == '-') r.neg = true, ++p;
  for (; *p && *p != 'e'; ++p)
    if (*p != '.') r.d.push_back(*p);
  if (*p == 'e') r.exp = std::atoi(p + 1);
  while (r.d.size() > 1 && r.d.back() == '0') r.d.pop_back();
  return r;
}

Digits shortest(double v, int bits) {
  char buf[64];
  if (bits == 64) {
    auto res = std::to_chars(buf, buf + sizeof buf - 1, v, std::chars_format::scientific);
    *res.ptr = '\0';
  } else if (bits == 32) {
    auto res = std::to_chars(buf, buf + sizeof buf - 1, float(v), std::chars_format::scientific);
    *res.ptr = '\0';
  } else {
    const uint16_t h = double_to_half(v);
    for (int p = 0; p < 17; ++p) {
      std::snprintf(buf, sizeof buf, "%.*e", p, double(half_to_float(h)));
      if (double_to_half(std::strtod(buf, nullptr)) == h) break;
    }
  }
  return parse_sci(buf);
}

}  // namespace

std::string float_text(double v, int bits, bool python_complex_part) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  const Digits s = shortest(v, bits);
  std::string out = s.neg ? "-" : "";
  const double a = std::fabs(v);
  if (a == 0 || (a >= 1e-4 && a < 1e16)) {
    if (s.exp >= 0) {
      const size_t ilen = size_t(s.exp) + 1;
      std::string ip = s.d.substr(0, std::min(ilen, s.d.size()));
      ip.append(ilen > s.d.size() ? ilen - s.d.size() : 0, '0');
      const std::string fp = s.d.size() > ilen ? s.d.substr(ilen) : "";
      out += ip;
      if (!fp.empty()) out += "." + fp;
      else if (!python_complex_part) out += ".0";
    } else {
      out += "0." + std::string(size_t(-s.exp - 1), '0') + s.d;
    }
    return out;
  }
  out += s.d.substr(0, 1);
  if (s.d.size() > 1) out += "." + s.d.substr(1);
  char e[16];
  std::snprintf(e, sizeof e, "e%c%02d", s.exp < 0 ? '-' : '+', std::abs(s.exp));
  return out + e;
}

std::string complex_text(std::complex<double> v, int bits) {
  const double re = v.real(), im = v.imag();
  std::string ims = float_text(std::fabs(im), bits, true);
  if (std::isnan(im)) ims = "nan";
  if (re == 0 && !std::signbit(re)) return (std::signbit(im) && !std::isnan(im) ? "-" : "") + ims + "j";
  return "(" + float_text(re, bits, true) + (std::signbit(im) && !std::isnan(im) ? "-" : "+") + ims + "j)";
}

std::string int_text(int64_t v) { return std::to_string(v); }
std::string uint_text(uint64_t v) { return std::to_string(v); }

namespace {

bool py_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

std::string strip(const std::string &s) {
  size_t b = 0, e = s.size();
  while (b < e && py_space(s[b])) ++b;
  while (e > b && py_space(s[e - 1])) --e;
  return s.substr(b, e - b);
}

/// Digits with single underscores between them (Python's literal rule); the underscores removed.
bool digits_with_underscores(const std::string &s, size_t b, size_t e, std::string &out) {
  if (b >= e) return false;
  for (size_t i = b; i < e; ++i) {
    const char c = s[i];
    if (c == '_') {
      if (i == b || i + 1 >= e || !std::isdigit(uint8_t(s[i - 1])) || !std::isdigit(uint8_t(s[i + 1]))) return false;
      continue;
    }
    if (!std::isdigit(uint8_t(c))) return false;
    out.push_back(c);
  }
  return true;
}

}  // namespace

__int128 parse_int_text(const std::string &s0) {
  const std::string s = strip(s0);
  size_t i = 0;
  bool neg = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
  std::string d;
  if (!digits_with_underscores(s, i, s.size(), d))
    fail(CA_EINVAL, "invalid literal for int() with base 10: '", s0, "'");
  unsigned __int128 v = 0;
  const unsigned __int128 limit = (unsigned __int128)1 << 64;
  for (char c : d) {
    v = v * 10 + unsigned(c - '0');
    if (v > limit) fail(CA_EINVAL, "int('", s0, "') is too large for a 64-bit integer");
  }
  if (!neg && v == limit) fail(CA_EINVAL, "int('", s0, "') is too large for a 64-bit integer");
  return neg ? -(__int128)v : (__int128)v;
}

double parse_float_text(const std::string &s0) {
  const std::string s = strip(s0);
  auto bad = [&]() -> double { fail(CA_EINVAL, "could not convert string to float: '", s0, "'"); };
  size_t i = 0;
  bool neg = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
  std::string rest;
  for (size_t k = i; k < s.size(); ++k) rest.push_back(char(std::tolower(uint8_t(s[k]))));
  if (rest == "nan") return neg ? -std::nan("") : std::nan("");
  if (rest == "inf" || rest == "infinity") return neg ? -HUGE_VAL : HUGE_VAL;
  // [digits][.digits][e[+-]digits], at least one digit in the mantissa, underscores between digits.
  std::string clean = neg ? "-" : "";
  size_t k = i, n = s.size();
  auto run = [&](bool required) {
    size_t b = k;
    while (k < n && (std::isdigit(uint8_t(s[k])) || s[k] == '_')) ++k;
    if (b == k) return !required;
    std::string d;
    if (!digits_with_underscores(s, b, k, d)) return false;
    clean += d;
    return true;
  };
  const size_t m0 = k;
  if (!run(false)) bad();
  bool mant = k > m0;
  if (k < n && s[k] == '.') {
    clean.push_back('.');
    ++k;
    const size_t f0 = k;
    if (!run(false)) bad();
    mant = mant || k > f0;
  }
  if (!mant) bad();
  if (k < n && (s[k] == 'e' || s[k] == 'E')) {
    clean.push_back('e');
    ++k;
    if (k < n && (s[k] == '+' || s[k] == '-')) clean.push_back(s[k++]);
    if (!run(true)) bad();
  }
  if (k != n) bad();
  return std::strtod(clean.c_str(), nullptr);
}

}  // namespace ca
