#include "core/dtype.hpp"

#include <cstring>

namespace ca {

namespace {
struct Info {
  const char *name;
  size_t size;
  char kind;
};
const Info kInfo[] = {
    {nullptr, 0, '?'},      {"bool", 1, 'b'},     {"int8", 1, 'i'},     {"int16", 2, 'i'},
    {"int32", 4, 'i'},      {"int64", 8, 'i'},    {"uint8", 1, 'u'},    {"uint16", 2, 'u'},
    {"uint32", 4, 'u'},     {"uint64", 8, 'u'},   {"float32", 4, 'f'},  {"float64", 8, 'f'},
    {"complex64", 8, 'c'},  {"complex128", 16, 'c'}, {"raw", 1, 'V'},
};
constexpr int kCount = sizeof(kInfo) / sizeof(kInfo[0]);
}  // namespace

bool dtype_valid(DType t) noexcept { return t > 0 && t < kCount; }
size_t dtype_size(DType t) noexcept { return dtype_valid(t) ? kInfo[t].size : 0; }
const char *dtype_name(DType t) noexcept { return dtype_valid(t) ? kInfo[t].name : nullptr; }
char dtype_kind(DType t) noexcept { return dtype_valid(t) ? kInfo[t].kind : '?'; }
bool dtype_is_integer(DType t) noexcept { return dtype_kind(t) == 'i' || dtype_kind(t) == 'u'; }
bool dtype_is_float(DType t) noexcept { return dtype_kind(t) == 'f'; }
bool dtype_is_complex(DType t) noexcept { return dtype_kind(t) == 'c'; }

std::string dtype_typestr(DType t) {
  if (!dtype_valid(t)) fail(CA_ETYPE, "invalid dtype ", t);
  char kind = dtype_kind(t);
  size_t sz = dtype_size(t);
  if (kind == 'V') return "|V1";
  const char order = sz == 1 ? '|' : '<';
  return str(order, kind, sz);
}

DType dtype_parse(const std::string &name0) {
  std::string name = name0;
  if (name.empty()) fail(CA_ETYPE, "empty dtype name");
  for (int t = 1; t < kCount; ++t)
    if (name == kInfo[t].name) return t;
  static const struct {
    const char *alias;
    DType t;
  } aliases[] = {{"double", CA_FLOAT64}, {"float", CA_FLOAT32}, {"f8", CA_FLOAT64}, {"f4", CA_FLOAT32},
                 {"int64_t", CA_INT64},  {"int32_t", CA_INT32}, {"int16_t", CA_INT16}, {"int8_t", CA_INT8},
                 {"uint64_t", CA_UINT64}, {"uint32_t", CA_UINT32}, {"uint16_t", CA_UINT16},
                 {"uint8_t", CA_UINT8},  {"bool_", CA_BOOL},   {"?", CA_BOOL},      {"complex", CA_COMPLEX128},
                 {"V1", CA_RAW}};
  for (auto &a : aliases)
    if (name == a.alias) return a.t;
  // NumPy typestr: optional byte order, kind letter, size.
  size_t p = 0;
  if (name[0] == '<' || name[0] == '>' || name[0] == '|' || name[0] == '=') {
    bool big = name[0] == '>';
    if (big) {
      // Big-endian typestrs describe storage; callers (zarr) handle byte swapping, the dtype is the same.
    }
    p = 1;
  }
  if (p < name.size()) {
    char kind = name[p];
    std::string digits = name.substr(p + 1);
    if (!digits.empty() && digits.find_first_not_of("0123456789") == std::string::npos) {
      size_t sz = std::stoul(digits);
      for (int t = 1; t < kCount; ++t)
        if (kInfo[t].kind == kind && kInfo[t].size == sz) return t;
    }
  }
  fail(CA_ETYPE, "unknown dtype '", name0, "'");
}

// NumPy promotion (np.result_type for two array dtypes).
DType dtype_promote(DType a, DType b) {
  if (!dtype_valid(a) || !dtype_valid(b)) fail(CA_ETYPE, "invalid dtype in promotion: ", a, ", ", b);
  if (a == b) return a;
  if (a == CA_RAW || b == CA_RAW) fail(CA_ETYPE, "raw dtype does not promote with ", dtype_name(a == CA_RAW ? b : a));
  char ka = dtype_kind(a), kb = dtype_kind(b);
  size_t sa = dtype_size(a), sb = dtype_size(b);
  auto rank = [](char k) { return k == 'b' ? 0 : (k == 'u' || k == 'i') ? 1 : k == 'f' ? 2 : 3; };
  if (ka == 'b') return b;
  if (kb == 'b') return a;
  auto float_for = [](size_t bytes) -> DType { return bytes <= 4 ? CA_FLOAT32 : CA_FLOAT64; };
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
  // Size of the float needed to hold an integer: int8/uint8/int16/uint16 -> float32, else float64.
  auto float_bytes_for_int = [](size_t s) -> size_t { return s <= 2 ? 4 : 8; };
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

}  // namespace ca
