#include "core/dtype.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace ca {

namespace {
struct Info {
  const char *name;
  size_t size;
  char kind;
};
// Indexed by kind code (bits 0..7). The parametric kinds' names and sizes come from their parameter.
const Info kInfo[] = {
    {nullptr, 0, '?'},      {"bool", 1, 'b'},     {"int8", 1, 'i'},     {"int16", 2, 'i'},
    {"int32", 4, 'i'},      {"int64", 8, 'i'},    {"uint8", 1, 'u'},    {"uint16", 2, 'u'},
    {"uint32", 4, 'u'},     {"uint64", 8, 'u'},   {"float32", 4, 'f'},  {"float64", 8, 'f'},
    {"complex64", 8, 'c'},  {"complex128", 16, 'c'}, {"raw", 1, 'V'},   {"float16", 2, 'f'},
    {"datetime64", 8, 'M'}, {"timedelta64", 8, 'm'}, {"bytes", 1, 'S'}, {"str", 4, 'U'},
};
constexpr int kCount = sizeof(kInfo) / sizeof(kInfo[0]);

const char *const kUnits[] = {nullptr, "Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as"};
constexpr int32_t kUnitCount = sizeof(kUnits) / sizeof(kUnits[0]);

bool parametric(int32_t kind) { return kind >= CA_DATETIME64 && kind <= CA_UNICODE; }
bool is_time_kind(int32_t kind) { return kind == CA_DATETIME64 || kind == CA_TIMEDELTA64; }

// Names of parametric dtypes, made once per dtype and kept for the life of the process.
const char *intern_name(DType t) {
  static std::mutex mu;
  static std::unordered_map<DType, std::unique_ptr<std::string>> names;
  std::lock_guard<std::mutex> lock(mu);
  auto &slot = names[t];
  if (!slot) {
    const int32_t k = dtype_base(t);
    if (is_time_kind(k)) slot = std::make_unique<std::string>(str(kInfo[k].name, "[", kUnits[dtype_unit(t)], "]"));
    else slot = std::make_unique<std::string>(str(k == CA_BYTES ? "S" : "U", dtype_length(t)));
  }
  return slot->c_str();
}

int32_t parse_unit(const std::string &u, const std::string &whole) {
  // NumPy allows a multiplier ("5s"); only 1 is supported (the encoding reserves bits for it).
  size_t p = 0;
  while (p < u.size() && u[p] >= '0' && u[p] <= '9') ++p;
  if (p > 0) {
    const std::string count = u.substr(0, p);
    if (count.find_first_not_of('0') == std::string::npos || count.size() > 9 || std::stol(count) != 1)
      fail(CA_ETYPE, "dtype '", whole, "': unit multipliers other than 1 are not supported (got ", count, ")");
  }
  const std::string name = u.substr(p);
  for (int32_t i = 1; i < kUnitCount; ++i)
    if (name == kUnits[i]) return i;
  fail(CA_ETYPE, "dtype '", whole, "': unknown datetime unit '", name,
       "' (NumPy's units: Y M W D h m s ms us ns ps fs as)");
}

bool all_digits(const std::string &s) { return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos; }

int64_t parse_length(const std::string &digits, const std::string &whole, int64_t divisor) {
  if (digits.size() > 12) fail(CA_ETYPE, "dtype '", whole, "': length ", digits, " is too large");
  const int64_t n = std::stoll(digits);
  if (n % divisor != 0) fail(CA_ETYPE, "dtype '", whole, "': ", n, " bits is not a whole number of characters");
  return n / divisor;
}
}  // namespace

bool dtype_valid(DType t) noexcept {
  if (t <= 0) return false;
  const int32_t k = dtype_base(t);
  const int32_t param = t >> CA_DTYPE_KIND_BITS;
  if (k >= kCount || k == 0) return false;
  if (!parametric(k)) return param == 0;
  if (is_time_kind(k)) return param >= 1 && param < kUnitCount;  // bits 16..30 (multiplier) zero
  return param >= 1 && param <= CA_DTYPE_MAX_LENGTH;
}

int32_t dtype_unit(DType t) noexcept { return dtype_valid(t) && is_time_kind(dtype_base(t)) ? t >> CA_DTYPE_KIND_BITS : 0; }
int64_t dtype_length(DType t) noexcept {
  const int32_t k = dtype_base(t);
  return dtype_valid(t) && (k == CA_BYTES || k == CA_UNICODE) ? int64_t(t >> CA_DTYPE_KIND_BITS) : 0;
}

size_t dtype_size(DType t) noexcept {
  if (!dtype_valid(t)) return 0;
  const int32_t k = dtype_base(t);
  if (k == CA_BYTES || k == CA_UNICODE) return kInfo[k].size * size_t(dtype_length(t));
  return kInfo[k].size;
}

const char *dtype_name(DType t) noexcept {
  if (!dtype_valid(t)) return nullptr;
  const int32_t k = dtype_base(t);
  if (!parametric(k)) return kInfo[k].name;
  try {
    return intern_name(t);
  } catch (...) {
    return nullptr;  // out of memory
  }
}

const char *unit_name(int32_t unit) noexcept { return unit >= 1 && unit < kUnitCount ? kUnits[unit] : nullptr; }

char dtype_kind(DType t) noexcept { return dtype_valid(t) ? kInfo[dtype_base(t)].kind : '?'; }
bool dtype_is_integer(DType t) noexcept { return dtype_kind(t) == 'i' || dtype_kind(t) == 'u'; }
bool dtype_is_float(DType t) noexcept { return dtype_kind(t) == 'f'; }
bool dtype_is_complex(DType t) noexcept { return dtype_kind(t) == 'c'; }

DType dtype_make(int32_t kind, int64_t param) {
  if (kind <= 0 || kind >= kCount) fail(CA_ETYPE, "unknown dtype kind ", kind);
  if (!parametric(kind)) {
    if (param != 0) fail(CA_ETYPE, "dtype ", kInfo[kind].name, " takes no parameter (got ", param, ")");
    return kind;
  }
  if (is_time_kind(kind)) {
    if (param < 1 || param >= kUnitCount)
      fail(CA_ETYPE, kInfo[kind].name, ": unknown unit ", param, " (CA_UNIT_Y = 1 .. CA_UNIT_AS = 13)");
  } else if (param < 1 || param > CA_DTYPE_MAX_LENGTH) {
    fail(CA_ETYPE, kind == CA_BYTES ? "bytes" : "unicode", " dtype: length ", param, " is not in 1..",
         CA_DTYPE_MAX_LENGTH);
  }
  return CA_DTYPE_MAKE(kind, param);
}

std::string dtype_typestr(DType t) {
  if (!dtype_valid(t)) fail(CA_ETYPE, "invalid dtype ", t);
  const char kind = dtype_kind(t);
  if (kind == 'V') return "|V1";
  if (kind == 'M' || kind == 'm') return str('<', kind, "8[", kUnits[dtype_unit(t)], "]");
  if (kind == 'S') return str("|S", dtype_length(t));
  if (kind == 'U') return str("<U", dtype_length(t));
  const size_t sz = dtype_size(t);
  const char order = sz == 1 ? '|' : '<';
  return str(order, kind, sz);
}

DType dtype_parse(const std::string &name0) {
  std::string name = name0;
  if (name.empty()) fail(CA_ETYPE, "empty dtype name");
  for (int t = 1; t < kCount; ++t)
    if (!parametric(t) && name == kInfo[t].name) return t;
  static const struct {
    const char *alias;
    DType t;
  } aliases[] = {{"double", CA_FLOAT64}, {"float", CA_FLOAT32}, {"f8", CA_FLOAT64}, {"f4", CA_FLOAT32},
                 {"int64_t", CA_INT64},  {"int32_t", CA_INT32}, {"int16_t", CA_INT16}, {"int8_t", CA_INT8},
                 {"uint64_t", CA_UINT64}, {"uint32_t", CA_UINT32}, {"uint16_t", CA_UINT16},
                 {"uint8_t", CA_UINT8},  {"bool_", CA_BOOL},   {"?", CA_BOOL},      {"complex", CA_COMPLEX128},
                 {"V1", CA_RAW},         {"half", CA_FLOAT16}, {"e", CA_FLOAT16},   {"f2", CA_FLOAT16}};
  for (auto &a : aliases)
    if (name == a.alias) return a.t;
  // NumPy typestr: optional byte order, kind letter, size.
  size_t p = 0;
  if (name[0] == '<' || name[0] == '>' || name[0] == '|' || name[0] == '=') {
    // Big-endian typestrs describe storage; callers (zarr) handle byte swapping, the dtype is the same.
    p = 1;
  }
  const std::string body = name.substr(p);
  // datetime64 / timedelta64: "datetime64[ns]", "M8[ns]", "<m8[s]".
  for (int32_t k : {CA_DATETIME64, CA_TIMEDELTA64}) {
    const std::string longn = kInfo[k].name, shortn = k == CA_DATETIME64 ? "M8" : "m8";
    for (const std::string &stem : {longn, shortn}) {
      if (body.compare(0, stem.size(), stem) != 0) continue;
      const std::string rest = body.substr(stem.size());
      if (rest.empty())
        fail(CA_ETYPE, "dtype '", name0, "': ", longn, " needs a unit, as in ", stem, "[ns] (generic units are not supported)");
      if (rest.size() >= 3 && rest.front() == '[' && rest.back() == ']')
        return CA_DTYPE_MAKE(k, parse_unit(rest.substr(1, rest.size() - 2), name0));
    }
  }
  // bytes / unicode: "S5", "|S5", "a5", "<U8", "U8", NumPy's names "bytes40", "str256" (bits).
  if (!body.empty() && (body[0] == 'S' || body[0] == 'a' || body[0] == 'U')) {
    const std::string digits = body.substr(1);
    if (digits.empty() && p == 0 && body.size() == 1)
      fail(CA_ETYPE, "dtype '", name0, "' needs a length, as in ", body, "8");
    if (all_digits(digits)) {
      const int64_t n = parse_length(digits, name0, 1);
      return dtype_make(body[0] == 'U' ? CA_UNICODE : CA_BYTES, n);
    }
  }
  for (const char *stem : {"bytes", "str", "unicode"}) {
    const std::string s = stem;
    if (p == 0 && body.compare(0, s.size(), s) == 0 && all_digits(body.substr(s.size()))) {
      const bool bytes = s == "bytes";
      return dtype_make(bytes ? CA_BYTES : CA_UNICODE, parse_length(body.substr(s.size()), name0, bytes ? 8 : 32));
    }
  }
  if (p < name.size()) {
    char kind = name[p];
    std::string digits = name.substr(p + 1);
    if (all_digits(digits) && digits.size() < 4) {
      size_t sz = std::stoul(digits);
      for (int t = 1; t < kCount; ++t)
        if (!parametric(t) && kInfo[t].kind == kind && kInfo[t].size == sz) return t;
    }
  }
  fail(CA_ETYPE, "unknown dtype '", name0, "'");
}

namespace {

// Promotion of the parametric kinds (NumPy's np.result_type); nullopt-like 0 when neither is one.
DType promote_special(DType a, DType b) {
  const char ka = dtype_kind(a), kb = dtype_kind(b);
  auto special = [](char k) { return k == 'M' || k == 'm' || k == 'S' || k == 'U'; };
  if (!special(ka) && !special(kb)) return 0;
  auto cannot = [&]() -> DType {
    fail(CA_ETYPE, "dtypes ", dtype_name(a), " and ", dtype_name(b), " have no common dtype (NumPy raises TypeError)");
  };
  if ((ka == 'S' || ka == 'U') && (kb == 'S' || kb == 'U')) {
    const int64_t n = std::max(dtype_length(a), dtype_length(b));
    return CA_DTYPE_MAKE(ka == 'U' || kb == 'U' ? CA_UNICODE : CA_BYTES, n);
  }
  if (ka == 'S' || ka == 'U' || kb == 'S' || kb == 'U') return cannot();
  // Times: units Y and M are calendar units; a timedelta in them has no common unit with W..as.
  const int32_t ua = dtype_unit(a), ub = dtype_unit(b);
  auto nonlinear = [](int32_t u) { return u == CA_UNIT_Y || u == CA_UNIT_M; };
  auto finer = [&](int32_t kind) -> DType {
    // NumPy: timedeltas in a calendar unit (Y, M) and in a linear one (W .. as) have no common unit
    // (with a datetime they promote; arithmetic then refuses the cast, see array/expr.cpp).
    if (ua != ub && nonlinear(ua) != nonlinear(ub) && ka == 'm' && kb == 'm')
      fail(CA_ETYPE, "dtypes ", dtype_name(a), " and ", dtype_name(b),
           " have no common unit: years and months are calendar units (NumPy raises TypeError)");
    return CA_DTYPE_MAKE(kind, std::max(ua, ub));
  };
  if (ka == 'M' && (kb == 'M' || kb == 'm')) return finer(CA_DATETIME64);
  if (kb == 'M' && ka == 'm') return finer(CA_DATETIME64);
  if (ka == 'm' && kb == 'm') return finer(CA_TIMEDELTA64);
  // timedelta64 with bool, a signed integer or an unsigned one narrower than 64 bits: the timedelta.
  const DType td = ka == 'm' ? a : kb == 'm' ? b : 0;
  const DType other = ka == 'm' ? b : a;
  const char ko = dtype_kind(other);
  if (td && (ko == 'b' || ko == 'i' || (ko == 'u' && dtype_size(other) < 8))) return td;
  return cannot();
}

}  // namespace

// NumPy promotion (np.result_type for two array dtypes).
DType dtype_promote(DType a, DType b) {
  if (!dtype_valid(a) || !dtype_valid(b)) fail(CA_ETYPE, "invalid dtype in promotion: ", a, ", ", b);
  if (a == b) return a;
  if (a == CA_RAW || b == CA_RAW) fail(CA_ETYPE, "raw dtype does not promote with ", dtype_name(a == CA_RAW ? b : a));
  if (DType s = promote_special(a, b)) return s;
  char ka = dtype_kind(a), kb = dtype_kind(b);
  size_t sa = dtype_size(a), sb = dtype_size(b);
  auto rank = [](char k) { return k == 'b' ? 0 : (k == 'u' || k == 'i') ? 1 : k == 'f' ? 2 : 3; };
  if (ka == 'b') return b;
  if (kb == 'b') return a;
  auto float_for = [](size_t bytes) -> DType { return bytes <= 2 ? CA_FLOAT16 : bytes <= 4 ? CA_FLOAT32 : CA_FLOAT64; };
  auto int_of = [](size_t bytes) -> DType {
    return bytes == 1 ? CA_INT8 : bytes == 2 ? CA_INT16 : bytes == 4 ? CA_INT32 : CA_INT64;
  };
  if (rank(ka) == 1 && rank(kb) == 1) {
    if (ka == kb) return sa >= sb ? a : b;
    // signed with unsigned: smallest signed holding both
    size_t su = ka == 'u' ? sa : sb, ss = ka == 'i' ? sa : sb;
    if (ss > su) return int_of(ss);
    if (su < 8) return int_of(su * 2);
    return CA_FLOAT64;  // int64 with uint64
  }
  // Size of the float needed to hold an integer: 8-bit -> float16, 16-bit -> float32, else float64.
  auto float_bytes_for_int = [](size_t s) -> size_t { return s == 1 ? 2 : s == 2 ? 4 : 8; };
  if (rank(ka) <= 2 && rank(kb) <= 2) {
    size_t fa = ka == 'f' ? sa : float_bytes_for_int(sa);
    size_t fb = kb == 'f' ? sb : float_bytes_for_int(sb);
    return float_for(std::max(fa, fb));
  }
  // complex involved
  auto comp_bytes = [&](char k, size_t s) -> size_t {
    if (k == 'c') return s / 2;
    if (k == 'f') return s;
    return float_bytes_for_int(s);
  };
  size_t c = std::max(comp_bytes(ka, sa), comp_bytes(kb, sb));
  return c <= 4 ? CA_COMPLEX64 : CA_COMPLEX128;
}

// The Python array API standard's table (2021.12, with 2022.12's complex dtypes): bool only with bool;
// integers of one signedness the wider; signed with unsigned the smallest signed type holding both
// (none with uint64); floats the wider; complex with complex or float the complex of the wider
// precision; integer with floating-point none. No value-based casting anywhere.
DType dtype_promote_std(DType a, DType b) {
  auto std_dtype = [](DType t) { return t >= CA_BOOL && t <= CA_COMPLEX128; };
  for (DType t : {a, b})
    if (!std_dtype(t))
      fail(CA_ETYPE, "array API promotion: ", dtype_valid(t) ? dtype_name(t) : "an invalid dtype", " (", t,
           ") is not a dtype of the array API standard (bool, int8..int64, uint8..uint64, float32, float64, "
           "complex64, complex128)");
  if (a == b) return a;
  const char ka = dtype_kind(a), kb = dtype_kind(b);
  const size_t sa = dtype_size(a), sb = dtype_size(b);
  auto none = [&](const char *why) -> DType {
    fail(CA_ETYPE, "array API promotion: ", dtype_name(a), " and ", dtype_name(b),
         " have no promotion in the standard (", why, ")");
  };
  if (ka == 'b' || kb == 'b') return none("bool promotes only with bool");
  const bool ia = ka == 'i' || ka == 'u', ib = kb == 'i' || kb == 'u';
  if (ia != ib) return none("integer and floating-point dtypes do not mix");
  if (ia) {
    if (ka == kb) return sa >= sb ? a : b;
    const size_t su = ka == 'u' ? sa : sb, ss = ka == 'i' ? sa : sb;
    if (ss > su) return ss == 2 ? CA_INT16 : ss == 4 ? CA_INT32 : CA_INT64;
    if (su < 8) return su == 1 ? CA_INT16 : su == 2 ? CA_INT32 : CA_INT64;
    return none("no signed integer type holds both int64 and uint64");
  }
  // float32, float64, complex64, complex128: the precision of the wider, complex if either is.
  const size_t pa = ka == 'c' ? sa / 2 : sa, pb = kb == 'c' ? sb / 2 : sb;
  const size_t p = std::max(pa, pb);
  if (ka == 'c' || kb == 'c') return p <= 4 ? CA_COMPLEX64 : CA_COMPLEX128;
  return p <= 4 ? CA_FLOAT32 : CA_FLOAT64;
}

}  // namespace ca
