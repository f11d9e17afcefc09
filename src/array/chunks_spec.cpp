// Chunk specifications from text and their normalization (pure functions of their arguments, no
// graph or executor): dask's normalize_chunks (array.hpp) with its chunk strings ("auto", "5",
// "(2, 3, 4), -1", "{0: 5}", "64MiB"), and the target chunks of a rechunk string (rechunk.hpp:
// rechunk_chunks). Kept apart so the chunk-string fuzz target (tests/fuzz/fuzz_chunks_str.cpp) builds
// from this file alone.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "array/array.hpp"
#include "array/rechunk.hpp"
#include "chunkarray/array.h"
#include "core/bytesize.hpp"
#include "core/checked.hpp"

namespace ca {

namespace {

// Input text quoted in an error message: at most 120 bytes of it, so a message stays short whatever
// the caller passed.
std::string excerpt(const std::string &text) {
  constexpr size_t kMax = 120;
  if (text.size() <= kMax) return text;
  return text.substr(0, kMax) + "... (" + std::to_string(text.size()) + " bytes)";
}

}  // namespace

// ------------------------------------------------------------------------------------------------
// normalize_chunks

std::vector<Index> blocks_of(Index extent, Index size) {
  CA_CHECK(size > 0, CA_EINVAL, "block size ", size, " must be positive");
  CA_CHECK(extent >= 0, CA_EINVAL, "extent ", extent, " is negative");
  std::vector<Index> v;
  if (extent == 0) return {0};
  const Index n = extent / size + (extent % size != 0);
  CA_CHECK(n <= kMaxBlocksPerAxis, CA_EINVAL, "blocks of ", size, " over an extent of ", extent, " make ", n,
           " blocks, more than the ", kMaxBlocksPerAxis, " blocks per axis allowed");
  // One fill (up to kMaxBlocksPerAxis entries: a loop of push_backs took seconds), then the ragged end.
  v.assign(size_t(n), size);
  if (extent % size) v.back() = extent % size;
  return v;
}

Chunks normalize_chunks(const std::vector<DimChunks> &spec0, const std::vector<Index> &shape, DType dtype,
                        Index limit) {
  std::vector<DimChunks> spec = spec0;
  if (spec.empty()) spec.assign(shape.size(), DimChunks{});
  CA_CHECK(spec.size() == shape.size(), CA_EINVAL, "chunks have ", spec.size(), " dimensions but the shape has ",
           shape.size());
  for (size_t d = 0; d < shape.size(); ++d)
    CA_CHECK(shape[d] >= 0, CA_EINVAL, "extent ", shape[d], " of axis ", d, " is negative");
  (void)shape_nbytes(shape, std::max<size_t>(dtype_size(dtype), 1));  // no array of that shape could exist
  Chunks out(shape.size());
  std::vector<size_t> autos;
  // Bytes of one block over the non-auto dimensions (saturating: only a budget heuristic).
  Index fixed_bytes = Index(std::max<size_t>(dtype_size(dtype), 1));
  auto scale = [&fixed_bytes](Index f) {
    if (__builtin_mul_overflow(fixed_bytes, f, &fixed_bytes)) fixed_bytes = std::numeric_limits<Index>::max();
  };
  for (size_t d = 0; d < shape.size(); ++d) {
    const DimChunks &c = spec[d];
    if (c.size == CA_CHUNKS_EXPLICIT) {
      Index sum = 0;
      CA_CHECK(!c.sizes.empty(), CA_EINVAL, "explicit chunks along axis ", d, " are empty");
      for (Index s : c.sizes) {
        CA_CHECK(s >= 0, CA_EINVAL, "chunk size ", s, " along axis ", d, " is negative");
        if (__builtin_add_overflow(sum, s, &sum))
          fail(CA_EINVAL, "Chunks do not add up to shape: chunks along axis ", d, " sum to more than 2^63-1, shape is ",
               shape[d]);
      }
      if (sum != shape[d])
        fail(CA_EINVAL, "Chunks do not add up to shape: chunks along axis ", d, " sum to ", sum, ", shape is ",
             shape[d]);
      out[d] = c.sizes;
      scale(std::max<Index>(*std::max_element(c.sizes.begin(), c.sizes.end()), 1));
    } else if (c.size == CA_CHUNKS_WHOLE) {
      out[d] = {shape[d]};
      scale(std::max<Index>(shape[d], 1));
    } else if (c.size > 0) {
      out[d] = blocks_of(shape[d], c.size);
      scale(std::max<Index>(std::min(c.size, shape[d]), 1));
    } else if (c.size == CA_CHUNKS_AUTO) {
      autos.push_back(d);
    } else {
      fail(CA_EINVAL, "invalid chunk size ", c.size, " along axis ", d, " (use > 0, -1 whole, 0 auto)");
    }
  }
  if (!autos.empty()) {
    // dask's auto_chunks: split the byte budget evenly over the auto dimensions, then round block
    // sizes so they divide the extent into near-equal blocks.
    CA_CHECK(limit > 0, CA_EINVAL, "chunk-size limit must be positive, got ", limit);
    double budget = std::max(1.0, double(limit) / double(fixed_bytes));
    double per = std::pow(budget, 1.0 / double(autos.size()));
    // Dimensions smaller than their share take their whole extent and give the rest back.
    std::vector<size_t> left = autos;
    bool changed = true;
    while (changed && !left.empty()) {
      changed = false;
      per = std::pow(budget, 1.0 / double(left.size()));
      for (size_t k = 0; k < left.size(); ++k) {
        size_t d = left[k];
        if (double(shape[d]) <= per) {
          out[d] = {shape[d]};
          budget /= double(std::max<Index>(shape[d], 1));
          left.erase(left.begin() + long(k));
          changed = true;
          break;
        }
      }
    }
    for (size_t d : left) {
      Index size = per >= double(shape[d]) ? std::max<Index>(shape[d], 1) : std::max<Index>(1, Index(per));
      Index nblocks = shape[d] / size + (shape[d] % size != 0);
      CA_CHECK(nblocks <= kMaxBlocksPerAxis, CA_EINVAL, "automatic chunks of ", size, " along axis ", d,
               " of extent ", shape[d], " make ", nblocks, " blocks, more than the ", kMaxBlocksPerAxis,
               " blocks per axis allowed: give a larger chunk-size limit");
      Index even = nblocks == 0 ? 1 : shape[d] / nblocks + (shape[d] % nblocks != 0);  // equalize block sizes
      out[d] = blocks_of(shape[d], std::max<Index>(even, 1));
    }
  }
  return out;
}

namespace {

struct SpecParser {
  const std::string &s;
  size_t p = 0;
  void ws() {
    while (p < s.size() && std::isspace(static_cast<unsigned char>(s[p]))) ++p;
  }
  bool eat(char c) {
    ws();
    if (p < s.size() && s[p] == c) {
      ++p;
      return true;
    }
    return false;
  }
  [[noreturn]] void bad(const char *what) { fail(CA_EINVAL, "bad chunks specification '", excerpt(s), "': ", what, " at offset ", p); }
  Index number() {
    ws();
    size_t start = p;
    if (p < s.size() && (s[p] == '-' || s[p] == '+')) ++p;
    while (p < s.size() && std::isdigit(static_cast<unsigned char>(s[p]))) ++p;
    if (start == p || (p == start + 1 && !std::isdigit(static_cast<unsigned char>(s[start])))) bad("expected a number");
    return parse_index(s.substr(start, p - start), "chunks specification number");
  }
  bool word(const char *w) {
    ws();
    size_t n = std::strlen(w);
    if (s.compare(p, n, w) == 0) {
      p += n;
      return true;
    }
    return false;
  }
  DimChunks dim() {
    DimChunks d;
    ws();
    if (word("auto")) {
      d.size = CA_CHUNKS_AUTO;
    } else if (word("None")) {
      d.size = CA_CHUNKS_WHOLE;
    } else if (eat('(')) {
      d.size = CA_CHUNKS_EXPLICIT;
      while (!eat(')')) {
        d.sizes.push_back(number());
        if (!eat(',')) {
          if (!eat(')')) bad("expected ',' or ')'");
          break;
        }
      }
    } else {
      d.size = number();
    }
    return d;
  }
};

}  // namespace

std::vector<DimChunks> parse_chunks_spec(const std::string &spec, int32_t ndim, Index *limit_override) {
  std::string t = spec;
  // Byte sizes: "64MiB", "1e6", "100 kB", "1TB" (one word with a letter, not auto/None; dask reads any
  // such string with parse_bytes) -> auto with that limit.
  {
    std::string word;
    for (char c : t)
      if (!std::isspace(static_cast<unsigned char>(c))) word += c;
    const bool structured = word.find_first_of("({,:") != std::string::npos;
    const bool letters = std::any_of(word.begin(), word.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); });
    if (!structured && letters && word != "auto" && word != "None") {
      const int64_t bytes = parse_bytes(t);
      if (bytes <= 0) fail(CA_EINVAL, "bad chunks specification '", excerpt(spec), "': a byte size must be positive");
      if (limit_override) *limit_override = Index(bytes);
      return std::vector<DimChunks>(size_t(ndim));
    }
  }
  SpecParser ps{t};
  std::vector<DimChunks> dims;
  ps.ws();
  if (ps.eat('{')) {
    dims.assign(size_t(ndim), DimChunks{CA_CHUNKS_WHOLE, {}});
    while (!ps.eat('}')) {
      Index axis = ps.number();
      if (axis < 0) axis += ndim;
      CA_CHECK(axis >= 0 && axis < ndim, CA_EINVAL, "chunks dict has axis ", axis, " for ", ndim, " dimensions");
      if (!ps.eat(':')) ps.bad("expected ':'");
      dims[size_t(axis)] = ps.dim();
      if (!ps.eat(',')) {
        if (!ps.eat('}')) ps.bad("expected ',' or '}'");
        break;
      }
    }
    return dims;
  }
  // A tuple of per-dimension entries, with or without outer parentheses: "(2, 3, 4), -1" has none
  // (its first group closes before the end), "((2, 3, 4), -1)" and "(5, 5)" have them. For a 1-d
  // array, "(2, 3, 4)" is the explicit chunks of its only dimension.
  bool outer = false;
  ps.ws();
  if (ps.p < t.size() && t[ps.p] == '(') {
    int depth = 0;
    size_t close = std::string::npos;
    bool nested = false;
    for (size_t i = ps.p; i < t.size(); ++i) {
      if (t[i] == '(') {
        if (depth > 0) nested = true;
        ++depth;
      } else if (t[i] == ')' && --depth == 0) {
        close = i;
        break;
      }
    }
    if (close == std::string::npos) ps.bad("unbalanced parentheses");
    bool whole = t.find_first_not_of(" \t\n", close + 1) == std::string::npos;
    outer = whole && (nested || ndim > 1);
    if (outer) ps.eat('(');
  }
  while (true) {
    ps.ws();
    if (outer && ps.eat(')')) break;
    if (ps.p >= t.size()) break;
    dims.push_back(ps.dim());
    if (!ps.eat(',')) {
      if (outer && !ps.eat(')')) ps.bad("expected ')'");
      break;
    }
  }
  ps.ws();
  if (ps.p != t.size()) ps.bad("unexpected text");
  if (dims.size() == 1 && ndim > 1 && dims[0].size != CA_CHUNKS_EXPLICIT) dims.assign(size_t(ndim), dims[0]);
  CA_CHECK(int32_t(dims.size()) == ndim, CA_EINVAL, "chunks specification '", excerpt(spec), "' has ", dims.size(),
           " dimensions, the array has ", ndim);
  return dims;
}

// ------------------------------------------------------------------------------------------------
// rechunk strings

namespace {

// A Python literal: int, None, 'str' / bare word, (tuple) / [list], {int: literal}.
struct Lit {
  enum Kind { Int, None, Str, Seq, Dict } kind = None;
  Index i = 0;
  std::string s;
  std::vector<Lit> items;
  std::vector<Index> keys;  // Dict: keys[i] -> items[i] (std::pair<Index, Lit> would need Lit complete)
};

struct LitParser {
  // Deepest nesting of tuples, lists and dicts accepted (a rechunk request needs 2: a dict of tuples);
  // the parser recurses once per level, so input nested 100,000 deep must fail, not overflow the stack.
  static constexpr int kMaxDepth = 32;
  const std::string &src;
  size_t p = 0;
  int depth = 0;
  void enter() {
    if (++depth > kMaxDepth) bad("nested more than " + std::to_string(kMaxDepth) + " levels deep");
  }
  void ws() {
    while (p < src.size() && std::isspace(static_cast<unsigned char>(src[p]))) ++p;
  }
  [[noreturn]] void bad(const std::string &what) {
    fail(CA_EINVAL, "bad rechunk specification '", excerpt(src), "': ", what, " at offset ", p);
  }
  bool eat(char c) {
    ws();
    if (p < src.size() && src[p] == c) {
      ++p;
      return true;
    }
    return false;
  }
  Lit seq(char close) {
    Lit l;
    l.kind = Lit::Seq;
    while (!eat(close)) {
      l.items.push_back(value());
      if (!eat(',')) {
        if (!eat(close)) bad(std::string("expected ',' or '") + close + "'");
        break;
      }
    }
    return l;
  }
  Lit value() {
    ws();
    if (p >= src.size()) bad("unexpected end");
    char c = src[p];
    Lit l;
    if (c == '(' || c == '[') {
      enter();
      ++p;
      Lit r = seq(c == '(' ? ')' : ']');
      --depth;
      return r;
    }
    if (c == '{') {
      enter();
      ++p;
      l.kind = Lit::Dict;
      while (!eat('}')) {
        Lit k = value();
        if (k.kind != Lit::Int) bad("dict keys must be axes (integers)");
        if (!eat(':')) bad("expected ':'");
        l.keys.push_back(k.i);
        l.items.push_back(value());
        if (!eat(',')) {
          if (!eat('}')) bad("expected ',' or '}'");
          break;
        }
      }
      --depth;
      return l;
    }
    if (c == '\'' || c == '"') {
      size_t e = src.find(c, p + 1);
      if (e == std::string::npos) bad("unterminated string");
      l.kind = Lit::Str;
      l.s = src.substr(p + 1, e - p - 1);
      p = e + 1;
      return l;
    }
    // A number, a word (None, auto) or an unquoted byte size (64MiB, 1e6, 100 kB).
    size_t start = p;
    while (p < src.size() && (std::isalnum(static_cast<unsigned char>(src[p])) || src[p] == '-' || src[p] == '+' ||
                              src[p] == '.' || src[p] == '_' ||
                              (src[p] == ' ' && p + 1 < src.size() && std::isalpha(static_cast<unsigned char>(src[p + 1])) &&
                               p > start && std::isdigit(static_cast<unsigned char>(src[p - 1])))))
      ++p;
    std::string w = src.substr(start, p - start);
    if (w.empty()) bad("unexpected character");
    if (w == "None") return l;
    bool integer = true;
    for (size_t k = 0; k < w.size(); ++k)
      if (!(std::isdigit(static_cast<unsigned char>(w[k])) || (k == 0 && (w[k] == '-' || w[k] == '+') && w.size() > 1)))
        integer = false;
    if (integer) {
      l.kind = Lit::Int;
      l.i = parse_index(w, "rechunk: number");
      return l;
    }
    l.kind = Lit::Str;
    l.s = w;
    return l;
  }
};

// One dimension of a request after dask's rechunk() preprocessing.
struct Req {
  enum Kind { Size, Explicit, Auto } kind = Size;
  Index size = 0;
  std::vector<Index> sizes;
};

Req req_of(const Lit &l, size_t d, const Array &a, Index *limit, bool *limit_set) {
  Req r;
  switch (l.kind) {
    case Lit::None:  // rechunk keeps the current chunks
      r.kind = Req::Explicit;
      r.sizes = a.chunks[d];
      return r;
    case Lit::Int:
      r.size = l.i;
      return r;
    case Lit::Str:
      if (l.s != "auto") {
        Index b = Index(parse_bytes(l.s));
        CA_CHECK(b > 0, CA_EINVAL, "byte size '", excerpt(l.s), "' along axis ", d, " must be positive");
        if (*limit_set && b != *limit)
          fail(CA_EINVAL, "only one consistent value of limit or chunk is allowed: ", b, " != ", *limit);
        *limit = b;
        *limit_set = true;
      }
      r.kind = Req::Auto;
      return r;
    case Lit::Seq:
      r.kind = Req::Explicit;
      for (const Lit &x : l.items) {
        CA_CHECK(x.kind == Lit::Int, CA_EINVAL, "explicit chunks along axis ", d, " must be integers");
        r.sizes.push_back(x.i);
      }
      CA_CHECK(!r.sizes.empty(), CA_EINVAL,
               "empty tuples are not allowed in chunks: express zero length dimensions with 0(s), axis ", d);
      return r;
    case Lit::Dict:
      break;
  }
  fail(CA_EINVAL, "a dict is not a chunk size (axis ", d, ")");
}

// dask's round_to.
double round_to(double c, double s) {
  if (c <= s) return std::max(1.0, std::trunc(c));
  double mod = std::fmod(c, s);
  double div = (c - mod) / s;
  double fl = std::floor(div);
  if (div - fl > 0.5) fl += 1;
  return fl * s;
}

// dask's auto_chunks with previous_chunks (the rechunk path).
void auto_chunks(std::vector<Req> &req, std::vector<Index> &fixed_size, const Array &a, Index limit) {
  std::vector<size_t> autos;
  for (size_t d = 0; d < req.size(); ++d)
    if (req[d].kind == Req::Auto) autos.push_back(d);
  if (autos.empty()) return;
  CA_CHECK(limit > 0, CA_EINVAL, "chunk-size limit ", limit, " must be positive");
  double isz = double(std::max<size_t>(dtype_size(a.dtype), 1));
  double largest = 1;
  for (size_t d = 0; d < req.size(); ++d) {
    if (req[d].kind == Req::Auto) continue;
    largest *= req[d].kind == Req::Explicit ? double(max_of(req[d].sizes)) : double(fixed_size[d]);
  }
  if (largest == 0) largest = 1;  // (dask divides by zero here)
  std::map<size_t, double> result;
  std::vector<double> ideal(req.size());
  for (size_t d : autos) {
    std::vector<Index> s = a.chunks[d];
    std::sort(s.begin(), s.end());
    result[d] = s.size() % 2 ? double(s[s.size() / 2]) : (double(s[s.size() / 2 - 1]) + double(s[s.size() / 2])) / 2;
  }
  for (size_t d = 0; d < req.size(); ++d) {
    // The most frequent previous chunk (first seen wins ties), if it covers half of them.
    std::vector<std::pair<Index, Index>> freq;  // value, count, in first-seen order
    for (Index c : a.chunks[d]) {
      auto it = std::find_if(freq.begin(), freq.end(), [&](auto &f) { return f.first == c; });
      if (it == freq.end()) freq.push_back({c, 1});
      else ++it->second;
    }
    auto best = freq.begin();
    for (auto it = freq.begin(); it != freq.end(); ++it)
      if (it->second > best->second) best = it;
    ideal[d] = best->first > 1 && double(best->second) >= double(a.chunks[d].size()) / 2 ? double(best->first)
                                                                                          : double(a.shape[d]);
  }
  auto multiplier_of = [&] {
    double prod = 1;
    for (auto &[d, r] : result)
      if (r != 0) prod *= r;
    return double(limit) / isz / largest / prod;
  };
  double multiplier = multiplier_of();
  double last_multiplier = 0;
  std::vector<size_t> last_autos;
  for (int guard = 0; guard < 10000 && (multiplier != last_multiplier || autos != last_autos); ++guard) {
    last_multiplier = multiplier;
    last_autos = autos;
    for (size_t d : std::vector<size_t>(autos)) {
      if (ideal[d] == 0) {
        result[d] = 0;
        continue;
      }
      double proposed = result[d] * std::pow(multiplier, 1.0 / double(autos.size()));
      if (proposed > double(a.shape[d])) {  // hit the shape boundary
        autos.erase(std::find(autos.begin(), autos.end(), d));
        largest *= double(a.shape[d]);
        req[d].kind = Req::Size;
        fixed_size[d] = a.shape[d];
        result.erase(d);
      } else {
        result[d] = round_to(proposed, ideal[d]);
      }
    }
    multiplier = multiplier_of();
  }
  for (auto &[d, r] : result) {
    req[d].kind = Req::Size;
    fixed_size[d] = Index(r);
  }
}

}  // namespace

Chunks rechunk_chunks(const Array &a, const std::string &spec, Index limit) {
  LitParser ps{spec};
  ps.ws();
  Lit top;
  {
    // Top level: one literal, or a bare tuple "(2, 3), -1".
    Lit first = ps.value();
    if (ps.eat(',')) {
      top.kind = Lit::Seq;
      top.items.push_back(first);
      ps.ws();
      while (ps.p < spec.size()) {
        top.items.push_back(ps.value());
        if (!ps.eat(',')) break;
        ps.ws();
      }
    } else {
      top = first;
    }
    ps.ws();
    if (ps.p != spec.size()) ps.bad("unexpected text");
  }
  size_t nd = size_t(a.ndim());
  std::vector<Lit> per(nd);
  if (top.kind == Lit::Dict) {
    for (size_t k = 0; k < top.keys.size(); ++k) {
      const Index axis0 = top.keys[k];
      const Lit &v = top.items[k];
      Index axis = axis0 < 0 ? axis0 + Index(nd) : axis0;
      CA_CHECK(axis >= 0 && axis < Index(nd), CA_EINVAL, "axis ", axis0, " is out of bounds for an array of ", nd,
               " dimensions");
      per[size_t(axis)] = v;  // missing axes stay None: keep the current chunks
    }
  } else if (top.kind == Lit::Seq) {
    bool flat = std::all_of(top.items.begin(), top.items.end(),
                            [](const Lit &l) { return l.kind == Lit::Int || l.kind == Lit::Str; });
    if (nd == 1 && top.items.size() > 1 && flat) {
      per[0] = top;  // normalize_chunks: a 1-d array's explicit chunks
    } else {
      CA_CHECK(top.items.size() == nd, CA_EINVAL, "chunks and shape must be of the same length/dimension: '", excerpt(spec),
               "' has ", top.items.size(), " entries, the array has ", nd, " dimensions");
      per = top.items;
    }
  } else {
    per.assign(nd, top);  // a number or a string for every dimension
  }
  std::vector<Req> req;
  bool limit_set = false;
  for (size_t d = 0; d < nd; ++d) req.push_back(req_of(per[d], d, a, &limit, &limit_set));
  std::vector<Index> fixed(nd, 0);
  for (size_t d = 0; d < nd; ++d) {
    if (req[d].kind != Req::Size) continue;
    Index s = req[d].size;
    if (s == -1) s = a.shape[d];
    CA_CHECK(s > 0 || (s == 0 && a.shape[d] == 0), CA_EINVAL, "chunk size ", req[d].size, " along axis ", d,
             " must be positive, or -1 for the whole axis");
    fixed[d] = s;
  }
  auto_chunks(req, fixed, a, limit);
  Chunks out(nd);
  for (size_t d = 0; d < nd; ++d) {
    if (req[d].kind == Req::Explicit) {
      Index sum = 0;
      for (Index s : req[d].sizes) {
        CA_CHECK(s >= 0, CA_EINVAL, "chunk size ", s, " along axis ", d, " is negative");
        if (__builtin_add_overflow(sum, s, &sum))
          fail(CA_EINVAL, "Chunks do not add up to shape: chunks along axis ", d, " sum to more than 2^63-1, shape is ",
               a.shape[d]);
      }
      if (sum != a.shape[d])
        fail(CA_EINVAL, "Chunks do not add up to shape: chunks along axis ", d, " sum to ", sum, ", shape is ",
             a.shape[d]);
      out[d] = req[d].sizes;
    } else if (a.shape[d] == 0) {
      out[d] = {0};
    } else {
      out[d] = blocks_of(a.shape[d], std::max<Index>(fixed[d], 1));
    }
  }
  return out;
}

}  // namespace ca
