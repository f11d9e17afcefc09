#include "io/zarr_meta.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "io/fs.hpp"
#include "core/checked.hpp"
#include "io/layout.hpp"
#include "core/half.hpp"

namespace ca::io {

using json = nlohmann::json;

Index ZarrMeta::chunk_elems() const noexcept {
  Index n = 1;
  for (Index c : chunks) n *= c;
  return n;
}

std::vector<Index> ZarrMeta::chunk_grid() const {
  std::vector<Index> g(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) g[d] = chunks[d] > 0 ? (shape[d] + chunks[d] - 1) / chunks[d] : 0;
  return g;
}

std::string ZarrMeta::typestr() const {
  std::string s = dtype_typestr(dtype);  // "<f8" or "|b1"
  if (big_endian && s[0] == '<') s[0] = '>';
  return s;
}

ZarrMeta make_zarr_meta(DType dtype, std::vector<Index> shape, std::vector<Index> chunks) {
  ZarrMeta m;
  m.dtype = dtype;
  m.shape = std::move(shape);
  m.chunks = std::move(chunks);
  return m;
}

namespace {

// -- untrusted JSON ------------------------------------------------------------------------------------

// More chunks along one axis than any real store has (each needs a file): 2^26.
constexpr Index kMaxChunksPerAxis = Index(1) << 26;

// Deeper nesting than any zarr metadata needs; nlohmann's dump() and comparisons recurse per level.
constexpr int kMaxJsonDepth = 64;

// Nesting depth of JSON text (brackets outside strings), stopping at the first level past `limit`.
// Never recursive, so it is safe on any input; run before the parser sees the text.
int json_depth(const std::string &s, int limit) noexcept {
  int depth = 0, max = 0;
  bool in_str = false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (in_str) {
      if (c == '\\') ++i;
      else if (c == '"') in_str = false;
    } else if (c == '"') {
      in_str = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max && (max = depth) > limit) return max;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return max;
}

std::string clip(std::string s, size_t n = 120) {
  if (s.size() > n) {
    s.resize(n);
    s += "...";
  }
  return s;
}

// A bounded rendering of (untrusted) JSON for messages: two levels of containers at most (deeper ones as
// [...] / {...}), the first 8 items or keys of each, scalars clipped. Never follows the input's depth.
std::string brief(const json &v, int levels = 2) {
  if (!v.is_structured()) return clip(v.dump(-1, ' ', false, json::error_handler_t::replace), 60);
  if (v.empty()) return v.is_array() ? "[]" : "{}";
  if (levels == 0) return v.is_array() ? "[...]" : "{...}";
  std::string out = v.is_array() ? "[" : "{";
  size_t i = 0;
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (i == 8) {
      out += str(", ... (", v.size(), " items)");
      break;
    }
    out += i++ ? ", " : "";
    if (v.is_object()) out += clip(json(it.key()).dump(-1, ' ', false, json::error_handler_t::replace), 40) + ": ";
    out += brief(*it, levels - 1);
  }
  return out + (v.is_array() ? "]" : "}");
}

// Parse untrusted JSON text: at most kMaxMetadataBytes and kMaxJsonDepth levels, checked before parsing.
// Failures are `code` (CA_EFORMAT for files, CA_EINVAL for caller-given text) with `where` and a bounded
// message.
json parse_json_bounded(const std::string &text, const std::string &where, ca_status_t code, const char *what) {
  if (text.size() > kMaxMetadataBytes)
    fail(code, where, ": ", what, " of ", text.size(), " bytes is larger than the ", kMaxMetadataBytes,
         " bytes allowed");
  if (json_depth(text, kMaxJsonDepth) > kMaxJsonDepth)
    fail(code, where, ": ", what, " is nested deeper than ", kMaxJsonDepth, " levels");
  try {
    return json::parse(text);
  } catch (const json::exception &e) {
    fail(code, where, ": ", what, " is corrupt JSON (", clip(e.what(), 200), ")");
  }
}

// -- fill value ----------------------------------------------------------------------------------------

double special_float(const json &v, const std::string &where) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    const std::string &s = v.get_ref<const std::string &>();
    if (s == "NaN" || s == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (s == "Infinity" || s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-Infinity" || s == "-inf") return -std::numeric_limits<double>::infinity();
  }
  fail(CA_EFORMAT, where, ": fill_value ", brief(v), " is not a number");
}

// -- base64 (zarr-python's fill_value of bytes dtypes) and UTF-8 (of unicode dtypes) ------------------

const char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64_encode(const std::string &in) {
  std::string out;
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const uint32_t v = uint32_t(uint8_t(in[i])) << 16 | uint32_t(uint8_t(in[i + 1])) << 8 | uint8_t(in[i + 2]);
    for (int k = 3; k >= 0; --k) out.push_back(kB64[(v >> (6 * k)) & 63]);
  }
  if (i < in.size()) {
    uint32_t v = uint32_t(uint8_t(in[i])) << 16;
    if (i + 1 < in.size()) v |= uint32_t(uint8_t(in[i + 1])) << 8;
    out.push_back(kB64[(v >> 18) & 63]);
    out.push_back(kB64[(v >> 12) & 63]);
    out.push_back(i + 1 < in.size() ? kB64[(v >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

bool base64_decode(const std::string &in, std::string &out) {
  if (in.size() % 4 != 0) return false;
  out.clear();
  for (size_t i = 0; i < in.size(); i += 4) {
    uint32_t v = 0;
    int pad = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = in[i + size_t(k)];
      const char *p = c ? std::strchr(kB64, c) : nullptr;
      if (c == '=' && i + 4 == in.size() && k >= 2) {
        ++pad;
        v <<= 6;
        continue;
      }
      if (!p || pad) return false;
      v = (v << 6) | uint32_t(p - kB64);
    }
    out.push_back(char((v >> 16) & 0xff));
    if (pad < 2) out.push_back(char((v >> 8) & 0xff));
    if (pad < 1) out.push_back(char(v & 0xff));
  }
  return true;
}

std::vector<uint32_t> utf8_decode(const std::string &s, const std::string &where) {
  std::vector<uint32_t> out;
  for (size_t i = 0; i < s.size();) {
    const uint8_t c = uint8_t(s[i]);
    const int n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + size_t(n) > s.size()) fail(CA_EFORMAT, where, ": fill_value is not valid UTF-8");
    uint32_t cp = n == 1 ? c : n == 2 ? (c & 0x1f) : n == 3 ? (c & 0x0f) : (c & 0x07);
    for (int k = 1; k < n; ++k) {
      const uint8_t d = uint8_t(s[i + size_t(k)]);
      if ((d >> 6) != 2) fail(CA_EFORMAT, where, ": fill_value is not valid UTF-8");
      cp = (cp << 6) | (d & 0x3f);
    }
    out.push_back(cp);
    i += size_t(n);
  }
  return out;
}

std::string utf8_encode(const uint32_t *cp, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    const uint32_t c = cp[i];
    if (c < 0x80) {
      out.push_back(char(c));
    } else if (c < 0x800) {
      out.push_back(char(0xc0 | (c >> 6)));
      out.push_back(char(0x80 | (c & 0x3f)));
    } else if (c < 0x10000) {
      out.push_back(char(0xe0 | (c >> 12)));
      out.push_back(char(0x80 | ((c >> 6) & 0x3f)));
      out.push_back(char(0x80 | (c & 0x3f)));
    } else {
      out.push_back(char(0xf0 | ((c >> 18) & 0x07)));
      out.push_back(char(0x80 | ((c >> 12) & 0x3f)));
      out.push_back(char(0x80 | ((c >> 6) & 0x3f)));
      out.push_back(char(0x80 | (c & 0x3f)));
    }
  }
  return out;
}

FillValue parse_fill(const json &v, DType dtype, const std::string &where) {
  if (v.is_null()) return std::monostate{};
  switch (dtype_kind(dtype)) {
    case 'M':
    case 'm':
      // zarr-python writes the ticks (int(v.view('i8'))); "NaT" is accepted too.
      if (v.is_number_integer() && !v.is_number_unsigned()) return v.get<int64_t>();
      if (v.is_number_unsigned() && v.get<uint64_t>() <= uint64_t(INT64_MAX)) return int64_t(v.get<uint64_t>());
      if (v.is_string() && v.get_ref<const std::string &>() == "NaT") return int64_t(INT64_MIN);
      break;
    case 'S':
      if (v.is_string()) {
        const std::string &t = v.get_ref<const std::string &>();
        std::string raw;
        if (base64_decode(t, raw)) return raw;
        return t;  // zarr-python is lenient with older files: the text's bytes
      }
      // A number: zarr-python reads it through NumPy, np.array(0, 'S4') is b'0'.
      if (v.is_number_integer()) return v.is_number_unsigned() ? std::to_string(v.get<uint64_t>()) : std::to_string(v.get<int64_t>());
      break;
    case 'U':
      if (v.is_string()) return v.get<std::string>();
      if (v.is_number_integer()) return v.is_number_unsigned() ? std::to_string(v.get<uint64_t>()) : std::to_string(v.get<int64_t>());
      break;
    case 'b':
      if (v.is_boolean()) return v.get<bool>();
      if (v.is_number()) return v.get<double>() != 0;
      break;
    case 'i':
    case 'u':
      if (v.is_boolean()) return int64_t(v.get<bool>());
      if (v.is_number_unsigned()) return v.get<uint64_t>();
      if (v.is_number_integer()) return v.get<int64_t>();
      if (v.is_number_float()) return v.get<double>();
      break;
    case 'f':
      if (v.is_boolean()) return double(v.get<bool>());
      return special_float(v, where);
    case 'c':
      if (v.is_array() && v.size() == 2)
        return std::complex<double>(special_float(v[0], where), special_float(v[1], where));
      if (v.is_number() || v.is_string()) return std::complex<double>(special_float(v, where), 0.0);
      break;
  }
  fail(CA_EFORMAT, where, ": fill_value ", brief(v), " does not fit dtype ", dtype_name(dtype));
}

// Every alternative as double/complex, for float and complex dtypes.
std::complex<double> fill_complex(const FillValue &f) {
  return std::visit(
      [](auto &&x) -> std::complex<double> {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) return 0.0;
        else if constexpr (std::is_same_v<T, std::string>) fail(CA_EFORMAT, "fill_value '", x, "' is not a number");
        else if constexpr (std::is_same_v<T, std::complex<double>>) return x;
        else return double(x);
      },
      f);
}

template <class T>
T fill_integer(const FillValue &f, DType dtype) {
  auto bad = [&](const std::string &v) -> T { fail(CA_EFORMAT, "fill_value ", v, " does not fit dtype ", dtype_name(dtype)); };
  return std::visit(
      [&](auto &&x) -> T {
        using V = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<V, std::monostate>) {
          return T(0);
        } else if constexpr (std::is_same_v<V, std::string>) {
          return bad("'" + x + "'");
        } else if constexpr (std::is_same_v<V, bool>) {
          return T(x);
        } else if constexpr (std::is_same_v<V, int64_t>) {
          if (std::is_unsigned_v<T> ? (x < 0 || uint64_t(x) > uint64_t(std::numeric_limits<T>::max()))
                                    : (x < int64_t(std::numeric_limits<T>::min()) || x > int64_t(std::numeric_limits<T>::max())))
            return bad(std::to_string(x));
          return T(x);
        } else if constexpr (std::is_same_v<V, uint64_t>) {
          if (x > uint64_t(std::numeric_limits<T>::max())) return bad(std::to_string(x));
          return T(x);
        } else if constexpr (std::is_same_v<V, double>) {
          if (!std::isfinite(x) || x != std::floor(x) || x < double(std::numeric_limits<T>::min()) ||
              x >= double(std::numeric_limits<T>::max()) + 1.0)
            return bad(str(x));
          return T(x);
        } else {
          if (x.imag() != 0) return bad(str(x));
          return fill_integer<T>(FillValue(x.real()), dtype);
        }
      },
      f);
}

json fill_number_json(double x) {
  if (std::isnan(x)) return "NaN";
  if (std::isinf(x)) return x > 0 ? "Infinity" : "-Infinity";
  return x;
}

json fill_to_json(const ZarrMeta &m) {
  if (std::holds_alternative<std::monostate>(m.fill_value)) return nullptr;
  auto b = m.fill_bytes();  // validates, and gives the value as the dtype holds it
  const char kind = dtype_kind(m.dtype);
  if (kind == 'M' || kind == 'm') {
    int64_t v;
    std::memcpy(&v, b.data(), 8);
    return v;
  }
  if (m.dtype == CA_FLOAT16) {
    uint16_t h;
    std::memcpy(&h, b.data(), 2);
    return fill_number_json(double(half_to_float(h)));
  }
  if (kind == 'S' || kind == 'U') {
    // As NumPy's scalar holds it: trailing NULs dropped.
    const size_t n = size_t(dtype_length(m.dtype));
    if (kind == 'S') {
      std::string raw(reinterpret_cast<const char *>(b.data()), n);
      while (!raw.empty() && raw.back() == 0) raw.pop_back();
      return base64_encode(raw);
    }
    std::vector<uint32_t> cps(n);
    std::memcpy(cps.data(), b.data(), 4 * n);
    while (!cps.empty() && cps.back() == 0) cps.pop_back();
    return utf8_encode(cps.data(), cps.size());
  }
  return dispatch_dtype(m.dtype, [&](auto tag) -> json {
    using T = typename decltype(tag)::type;
    T v;
    std::memcpy(&v, b.data(), sizeof(T));
    if constexpr (std::is_same_v<T, bool>) return v;
    else if constexpr (std::is_integral_v<T>) return v;
    else if constexpr (std::is_floating_point_v<T>) return fill_number_json(double(v));
    else return json::array({fill_number_json(double(v.real())), fill_number_json(double(v.imag()))});
  });
}

// -- compressor ----------------------------------------------------------------------------------------

template <class T>
T get_or(const json &o, const char *key, T def, const std::string &where) {
  auto it = o.find(key);
  if (it == o.end() || it->is_null()) return def;
  if constexpr (std::is_same_v<T, std::string>) {
    if (!it->is_string()) fail(CA_EFORMAT, where, ": compressor key '", key, "' is ", brief(*it), ", expected a string");
  } else {
    if (!it->is_number_integer()) fail(CA_EFORMAT, where, ": compressor key '", key, "' is ", brief(*it), ", expected an integer");
  }
  return it->get<T>();
}

Compressor parse_compressor(const json &v, const std::string &where) {
  if (v.is_null()) return Compressor::none();
  if (!v.is_object() || !v.contains("id") || !v["id"].is_string())
    fail(CA_EFORMAT, where, ": compressor ", brief(v), " is neither null nor an object with a string 'id'");
  Compressor c;
  c.id = v["id"].get<std::string>();
  if (c.id == "zlib" || c.id == "gzip" || c.id == "zstd") {
    c.level = get_or<int>(v, "level", 1, where);
  } else if (c.id == "blosc") {
    c.cname = get_or<std::string>(v, "cname", "lz4", where);
    c.clevel = get_or<int>(v, "clevel", 5, where);
    c.shuffle = get_or<int>(v, "shuffle", 1, where);
    c.blocksize = get_or<int64_t>(v, "blocksize", 0, where);
  } else {
    fail(CA_EUNSUPPORTED, where, ": unknown compressor '", c.id, "' (supported: zlib, gzip, zstd, blosc)");
  }
  try {
    check_compressor(c);
  } catch (const Error &e) {
    // a value out of range in a file is a malformed file (CA_EFORMAT), not a caller's bad argument;
    // an unsupported blosc compressor stays CA_EUNSUPPORTED
    fail(e.code() == CA_EINVAL ? CA_EFORMAT : e.code(), where, ": ", e.message());
  }
  return c;
}

json compressor_to_json(const Compressor &c) {
  if (c.is_none()) return nullptr;
  json o;
  o["id"] = c.id;
  if (c.id == "blosc") {
    o["cname"] = c.cname;
    o["clevel"] = c.clevel;
    o["shuffle"] = c.shuffle;
    o["blocksize"] = c.blocksize;
  } else {
    o["level"] = c.level;
  }
  return o;
}

std::vector<Index> parse_extents(const json &o, const char *key, const std::string &where, Index min) {
  auto it = o.find(key);
  if (it == o.end()) fail(CA_EFORMAT, where, ": key '", key, "' is missing");
  if (!it->is_array()) fail(CA_EFORMAT, where, ": '", key, "' is ", brief(*it), ", expected a list of integers");
  std::vector<Index> v;
  for (const json &e : *it) {
    if (!e.is_number_integer() || e.get<int64_t>() < min)
      fail(CA_EFORMAT, where, ": '", key, "' is ", brief(*it), ", expected a list of integers >= ", min);
    v.push_back(e.get<int64_t>());
  }
  if (v.size() > size_t(CA_MAX_NDIM)) fail(CA_EUNSUPPORTED, where, ": ", v.size(), " dimensions, at most ", CA_MAX_NDIM);
  return v;
}

// Python's json module writes NaN, Infinity and -Infinity tokens; nlohmann does not read them. Replace them
// (outside strings) by null, for validation only.
std::string without_nan_tokens(const std::string &s) {
  std::string out;
  out.reserve(s.size());
  bool in_str = false;
  for (size_t i = 0; i < s.size(); ++i) {
    char ch = s[i];
    if (in_str) {
      out += ch;
      if (ch == '\\' && i + 1 < s.size()) out += s[++i];
      else if (ch == '"') in_str = false;
      continue;
    }
    if (ch == '"') in_str = true;
    if (s.compare(i, 3, "NaN") == 0) { out += "null"; i += 2; continue; }
    if (s.compare(i, 8, "Infinity") == 0) { out += "null"; i += 7; continue; }
    if (s.compare(i, 9, "-Infinity") == 0) { out += "null"; i += 8; continue; }
    out += ch;
  }
  return out;
}

}  // namespace

std::vector<unsigned char> ZarrMeta::fill_bytes() const {
  std::vector<unsigned char> out(std::max<size_t>(16, dtype_size(dtype)), 0);
  if (std::holds_alternative<std::monostate>(fill_value)) return out;
  const char kind = dtype_kind(dtype);
  const std::string *text = std::get_if<std::string>(&fill_value);
  if (kind == 'S' || kind == 'U') {
    if (!text) fail(CA_EFORMAT, "fill_value of dtype ", dtype_name(dtype), " is not a string");
    const size_t n = size_t(dtype_length(dtype));
    if (kind == 'S') {
      if (text->size() > n) fail(CA_EFORMAT, "fill_value of ", text->size(), " bytes does not fit dtype ", dtype_name(dtype));
      std::memcpy(out.data(), text->data(), text->size());
    } else {
      const std::vector<uint32_t> cps = utf8_decode(*text, "zarr metadata");
      if (cps.size() > n) fail(CA_EFORMAT, "fill_value of ", cps.size(), " characters does not fit dtype ", dtype_name(dtype));
      std::memcpy(out.data(), cps.data(), 4 * cps.size());
    }
    return out;
  }
  if (text) fail(CA_EFORMAT, "a string fill_value does not fit dtype ", dtype_name(dtype));
  if (kind == 'M' || kind == 'm') {
    const int64_t v = fill_integer<int64_t>(fill_value, dtype);
    std::memcpy(out.data(), &v, 8);
    return out;
  }
  if (dtype == CA_FLOAT16) {
    std::complex<double> c = fill_complex(fill_value);
    if (c.imag() != 0) fail(CA_EFORMAT, "fill_value ", c, " does not fit dtype ", dtype_name(dtype));
    const uint16_t h = double_to_half(c.real());
    std::memcpy(out.data(), &h, 2);
    return out;
  }
  dispatch_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T v;
    if constexpr (std::is_same_v<T, bool>) {
      v = std::visit(
          [](auto &&x) -> bool {
            using V = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<V, std::monostate>) return false;
            else if constexpr (std::is_same_v<V, std::string>) return !x.empty();
            else if constexpr (std::is_same_v<V, std::complex<double>>) return x != std::complex<double>(0.0);
            else return x != 0;
          },
          fill_value);
    } else if constexpr (std::is_integral_v<T>) {
      v = fill_integer<T>(fill_value, dtype);
    } else if constexpr (std::is_floating_point_v<T>) {
      std::complex<double> c = fill_complex(fill_value);
      if (c.imag() != 0) fail(CA_EFORMAT, "fill_value ", c, " does not fit dtype ", dtype_name(dtype));
      v = T(c.real());
    } else {
      std::complex<double> c = fill_complex(fill_value);
      v = T(typename T::value_type(c.real()), typename T::value_type(c.imag()));
    }
    std::memcpy(out.data(), &v, sizeof(T));
  });
  return out;
}

void validate_zarr_meta(const ZarrMeta &m) {
  CA_CHECK(dtype_valid(m.dtype) && m.dtype != CA_RAW, CA_EUNSUPPORTED, "dtype ", m.dtype, " cannot be stored in zarr");
  CA_CHECK(m.shape.size() == m.chunks.size(), CA_EINVAL, "chunks has ", m.chunks.size(), " entries, shape has ",
           m.shape.size());
  CA_CHECK(m.shape.size() <= size_t(CA_MAX_NDIM), CA_EINVAL, "ndim ", m.shape.size(), " is above ", CA_MAX_NDIM);
  Index elems = 1;
  for (size_t d = 0; d < m.shape.size(); ++d) {
    CA_CHECK(m.shape[d] >= 0, CA_EINVAL, "shape[", d, "] is ", m.shape[d], ", must be >= 0");
    CA_CHECK(m.chunks[d] >= 1, CA_EINVAL, "chunks[", d, "] is ", m.chunks[d], ", must be >= 1");
    CA_CHECK(elems <= (Index(1) << 50) / m.chunks[d], CA_EINVAL, "a chunk of ", m.chunks.size(),
             " dimensions has too many elements");
    elems *= m.chunks[d];
  }
  (void)shape_nbytes(m.shape, dtype_size(m.dtype));  // CA_EINVAL past 2^63-1 elements or bytes
  CA_CHECK(m.order == 'C' || m.order == 'F', CA_EINVAL, "order '", m.order, "' is neither 'C' nor 'F'");
  CA_CHECK(m.dimension_separator == '.' || m.dimension_separator == '/', CA_EINVAL, "dimension_separator '",
           m.dimension_separator, "' is neither '.' nor '/'");
  check_compressor(m.compressor);
  (void)m.fill_bytes();
}

ZarrMeta parse_zarray(const std::string &text, const std::string &where) {
  json o = parse_json_bounded(text, where, CA_EFORMAT, "zarr array metadata");
  if (!o.is_object()) fail(CA_EFORMAT, where, ": expected a JSON object, found ", o.type_name());
  auto fmt = o.find("zarr_format");
  if (fmt == o.end()) fail(CA_EFORMAT, where, ": key 'zarr_format' is missing");
  if (!fmt->is_number_integer() || fmt->get<int64_t>() != 2)
    fail(CA_EVERSION, where, ": zarr_format is ", brief(*fmt), ", only zarr v2 (2) is supported");
  ZarrMeta m;
  m.shape = parse_extents(o, "shape", where, 0);
  m.chunks = parse_extents(o, "chunks", where, 1);
  if (m.chunks.size() != m.shape.size())
    fail(CA_EFORMAT, where, ": 'chunks' has ", m.chunks.size(), " entries, 'shape' has ", m.shape.size());
  auto dt = o.find("dtype");
  if (dt == o.end()) fail(CA_EFORMAT, where, ": key 'dtype' is missing");
  if (!dt->is_string())
    fail(CA_EUNSUPPORTED, where, ": dtype ", brief(*dt), " is not supported (structured dtypes are not)");
  parse_numpy_typestr(dt->get<std::string>(), where, m.dtype, m.big_endian);
  auto ord = o.find("order");
  if (ord == o.end()) fail(CA_EFORMAT, where, ": key 'order' is missing");
  if (!ord->is_string() || (*ord != "C" && *ord != "F"))
    fail(CA_EFORMAT, where, ": order is ", brief(*ord), ", expected \"C\" or \"F\"");
  m.order = ord->get<std::string>()[0];
  auto fv = o.find("fill_value");
  m.fill_value = fv == o.end() ? FillValue{} : parse_fill(*fv, m.dtype, where);
  try {
    (void)m.fill_bytes();
  } catch (const Error &e) {
    fail(CA_EFORMAT, where, ": ", e.message());
  }
  auto flt = o.find("filters");
  if (flt != o.end() && !flt->is_null() && !(flt->is_array() && flt->empty()))
    fail(CA_EUNSUPPORTED, where, ": filters ", brief(*flt), " are not supported (only \"filters\": null)");
  auto comp = o.find("compressor");
  if (comp == o.end()) fail(CA_EFORMAT, where, ": key 'compressor' is missing");
  m.compressor = parse_compressor(*comp, where);
  auto sep = o.find("dimension_separator");
  if (sep != o.end() && !sep->is_null()) {
    if (!sep->is_string() || (*sep != "." && *sep != "/"))
      fail(CA_EFORMAT, where, ": dimension_separator is ", brief(*sep), ", expected \".\" or \"/\"");
    m.dimension_separator = sep->get<std::string>()[0];
  }
  Index elems = 1;
  for (Index c : m.chunks) {
    if (elems > (Index(1) << 50) / c) fail(CA_EFORMAT, where, ": chunks ", brief(o["chunks"]), " are too large");
    elems *= c;
  }
  try {
    (void)shape_nbytes(m.shape, dtype_size(m.dtype));
  } catch (const Error &e) {
    fail(CA_EFORMAT, where, ": ", e.message());
  }
  // The chunk grid must be small enough to list: at most kMaxChunksPerAxis chunks along an axis (a
  // store with more is not a real store).
  for (size_t d = 0; d < m.shape.size(); ++d) {
    Index grid = m.shape[d] / m.chunks[d] + (m.shape[d] % m.chunks[d] != 0);
    if (grid > kMaxChunksPerAxis)
      fail(CA_EFORMAT, where, ": shape ", brief(o["shape"]), " and chunks ", brief(o["chunks"]), " give ", grid,
           " chunks along axis ", d, ", more than the ", kMaxChunksPerAxis, " allowed");
  }
  return m;
}

std::string zarray_to_json(const ZarrMeta &m) {
  validate_zarr_meta(m);
  json o;
  o["zarr_format"] = 2;
  o["shape"] = m.shape;
  o["chunks"] = m.chunks;
  o["dtype"] = m.typestr();
  o["order"] = std::string(1, m.order);
  o["fill_value"] = fill_to_json(m);
  o["filters"] = nullptr;
  o["compressor"] = compressor_to_json(m.compressor);
  o["dimension_separator"] = std::string(1, m.dimension_separator);
  return o.dump(4);
}

ZarrMeta read_zarr_meta(const std::string &path) {
  std::string file = join_path(path, ".zarray");
  auto text = read_file_if_exists(file, kMaxMetadataBytes, "zarr metadata file");
  if (!text) {
    if (!path_exists(path)) fail(CA_ENOTFOUND, "zarr array '", path, "' does not exist");
    fail(CA_ENOTFOUND, "'", path, "' is not a zarr array: ", file, " is missing");
  }
  return parse_zarray(*text, file);
}

void write_zarr_meta(const std::string &path, const ZarrMeta &meta, const std::string &attrs_json) {
  std::string text = zarray_to_json(meta);
  std::string file = join_path(path, ".zarray");
  remove_stale_temporaries(file);
  write_file_atomic(file, text.data(), text.size());
  if (!attrs_json.empty()) write_zattrs(path, attrs_json);
}

std::string read_zattrs(const std::string &path) {
  std::string file = join_path(path, ".zattrs");
  auto text = read_file_if_exists(file, kMaxMetadataBytes, "zarr attributes file");
  if (!text) return "{}";
  // Returned raw, but only if it is a JSON object within the budgets (callers parse it).
  check_attrs_json(*text, file, CA_EFORMAT);
  return *text;
}

void check_attrs_json(const std::string &text, const std::string &where, ca_status_t code) {
  json o = parse_json_bounded(without_nan_tokens(text), where, code, "the text");
  if (!o.is_object()) fail(code, where, ": attributes must be a JSON object, got ", o.type_name());
}

void write_zattrs(const std::string &path, const std::string &attrs_json) {
  check_attrs_json(attrs_json, "attributes", CA_EINVAL);
  std::string file = join_path(path, ".zattrs");
  remove_stale_temporaries(file);
  write_file_atomic(file, attrs_json.data(), attrs_json.size());
}

bool is_zarr_array(const std::string &path) noexcept { return path_exists(join_path(path, ".zarray")); }
bool is_zarr_group(const std::string &path) noexcept { return path_exists(join_path(path, ".zgroup")); }

void create_group(const std::string &path, const std::string &attrs_json) {
  CA_CHECK(!is_zarr_array(path), CA_EEXISTS, "'", path, "' is a zarr array, cannot create a group there");
  if (!is_zarr_group(path)) {
    static const char kGroup[] = "{\n    \"zarr_format\": 2\n}";
    std::string file = join_path(path, ".zgroup");
    remove_stale_temporaries(file);
    write_file_atomic(file, kGroup, sizeof kGroup - 1);
  }
  if (!attrs_json.empty()) write_zattrs(path, attrs_json);
}

std::vector<ZarrMember> list_group(const std::string &path) {
  CA_CHECK(is_zarr_group(path), CA_ENOTFOUND, "'", path, "' is not a zarr group (no .zgroup)");
  std::vector<ZarrMember> out;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator(path, ec); !ec && it != std::filesystem::directory_iterator();
       it.increment(ec)) {
    std::string name = it->path().filename().string();
    // Hidden entries (metadata, temporaries) are no members; nor is a name that is no single path
    // component (a directory entry always is one, but the rule is the same everywhere).
    if (name.empty() || name[0] == '.' || path_component_problem(name)) continue;
    std::string sub = join_path(path, name);
    if (is_zarr_group(sub)) out.push_back({name, true});
    else if (is_zarr_array(sub)) out.push_back({name, false});
  }
  if (ec) fail(CA_EIO, "cannot list '", path, "': ", ec.message());
  std::sort(out.begin(), out.end(), [](const ZarrMember &a, const ZarrMember &b) { return a.name < b.name; });
  return out;
}

}  // namespace ca::io
