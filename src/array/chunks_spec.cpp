// Chunk specifications from text and their normalization (pure functions of their arguments, no
// graph or executor): dask's normalize_chunks (array.hpp) with its chunk strings ("auto", "5",
// "(2, 3, 4), -1", "{0: 5}", "64MiB"), and the target chunks of a rechunk string (rechunk.hpp:
// rechunk_chunks), both read by one parser. Kept apart so the chunk-string fuzz target (tests/fuzz/fuzz_chunks_str.cpp) builds
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
  // dask's largest_block: elements of one block over the non-auto dimensions (a double, as dask's
  // division makes it; empty axes count as 1 where dask would divide by zero).
  double largest = 1;
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
      largest *= double(std::max<Index>(*std::max_element(c.sizes.begin(), c.sizes.end()), 1));
    } else if (c.size == CA_CHUNKS_WHOLE) {
      out[d] = {shape[d]};
      largest *= double(std::max<Index>(shape[d], 1));
    } else if (c.size > 0) {
      out[d] = blocks_of(shape[d], c.size);
      largest *= double(std::max<Index>(c.size, 1));  // dask: the requested size, even beyond the extent
    } else if (c.size == CA_CHUNKS_AUTO) {
      autos.push_back(d);
    } else {
      fail(CA_EINVAL, "invalid chunk size ", c.size, " along axis ", d, " (use > 0, -1 whole, 0 auto)");
    }
  }
  if (!autos.empty()) {
    // dask's auto_chunks without previous chunks: every auto dimension gets the same block size, the
    // root of the element budget left by the other dimensions; a dimension shorter than that size is
    // one block, and the budget is shared again among the rest. No rounding to even blocks (that is
    // the rechunk path's, with previous chunks).
    CA_CHECK(limit > 0, CA_EINVAL, "chunk-size limit must be positive, got ", limit);
    const double itemsize = double(std::max<size_t>(dtype_size(dtype), 1));
    std::vector<size_t> left = autos;
    double size = 0;
    while (!left.empty()) {
      size = std::pow(double(limit) / itemsize / largest, 1.0 / double(left.size()));
      std::vector<size_t> rest;
      for (size_t d : left) {
        if (double(shape[d]) < size) {
          out[d] = {shape[d]};
          largest *= double(std::max<Index>(shape[d], 1));
        } else {
          rest.push_back(d);
        }
      }
      if (rest.size() == left.size()) break;
      left = rest;
    }
    for (size_t d : left) {
      // dask's round_to(size, shape[d]) with size <= shape[d]: max(1, int(size)).
      const Index block = std::max<Index>(1, Index(std::min(size, double(shape[d]))));
      const Index nblocks = shape[d] / block + (shape[d] % block != 0);
      CA_CHECK(nblocks <= kMaxBlocksPerAxis, CA_EINVAL, "automatic chunks of ", block, " along axis ", d,
               " of extent ", shape[d], " make ", nblocks, " blocks, more than the ", kMaxBlocksPerAxis,
               " blocks per axis allowed: give a larger chunk-size limit");
      out[d] = blocks_of(shape[d], block);
    }
  }
  return out;
}

// ------------------------------------------------------------------------------------------------
// Chunk strings: one parser for ca_normalize_chunks_spec and ca_array_rechunk_spec
//
// A chunk string is the Python literal a dask user would pass as `chunks=` (dask reads both with the
// same normalize_chunks): it is parsed once into per-dimension entries (ChunkRequest, below), and the
// two callers differ only in what they do with them: normalize_chunks_spec resolves None to the whole
// axis and "auto" against the byte budget; rechunk_chunks resolves None to the current chunks and
// "auto" against them (dask's previous_chunks).

namespace {

// A Python literal: int, None, 'str' / bare word, (tuple) / [list], {int: literal}. As in Python,
// "(5)" is the number 5 and "(5,)" a one-element tuple.
struct Lit {
  enum Kind { Int, None, Str, Seq, Dict } kind = None;
  Index i = 0;
  std::string s;
  std::vector<Lit> items;
  std::vector<Index> keys;  // Dict: keys[i] -> items[i] (std::pair<Index, Lit> would need Lit complete)
};

struct LitParser {
  // Deepest nesting of tuples, lists and dicts accepted (a chunk request needs 2: a dict of tuples);
  // the parser recurses once per level, so input nested 100,000 deep must fail, not overflow the stack.
  static constexpr int kMaxDepth = 32;
  const std::string &src;
  const char *what;  // "chunks" or "rechunk": which request an error message is about
  size_t p = 0;
  int depth = 0;
  void enter() {
    if (++depth > kMaxDepth) bad("nested more than " + std::to_string(kMaxDepth) + " levels deep");
  }
  void ws() {
    while (p < src.size() && std::isspace(static_cast<unsigned char>(src[p]))) ++p;
  }
  [[noreturn]] void bad(const std::string &what) {
    fail(CA_EINVAL, "bad ", this->what, " specification '", excerpt(src), "': ", what, " at offset ", p);
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
    bool comma = false;
    while (!eat(close)) {
      l.items.push_back(value());
      if (!eat(',')) {
        if (!eat(close)) bad(std::string("expected ',' or '") + close + "'");
        break;
      }
      comma = true;
    }
    // Python: parentheses around one item without a comma only group it.
    if (close == ')' && l.items.size() == 1 && !comma) return l.items[0];
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
      l.i = parse_index(w, "chunk size");
      return l;
    }
    // Any other bare word must be a name (auto) or a byte size (64MiB, 1e6): "1.5" is neither.
    if (!std::any_of(w.begin(), w.end(), [](char ch) { return std::isalpha(static_cast<unsigned char>(ch)); }))
      bad("'" + excerpt(w) + "' is not an integer chunk size");
    l.kind = Lit::Str;
    l.s = w;
    return l;
  }
};

// One dimension of a request, after the preprocessing dask's normalize_chunks applies to every chunks
// argument: None (normalize: the whole axis; rechunk: the current chunks), a block size (-1: the whole
// axis), explicit sizes, or auto (a byte size string is auto with that limit, and all byte sizes of one
// request must agree).
struct Req {
  enum Kind { Size, Explicit, Auto, None } kind = Size;
  Index size = 0;
  std::vector<Index> sizes;
};

Req req_of(const Lit &l, size_t d, Index *limit, bool *limit_set) {
  Req r;
  switch (l.kind) {
    case Lit::None:
      r.kind = Req::None;
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
        CA_CHECK(x.i >= 0, CA_EINVAL, "chunk size ", x.i, " along axis ", d, " is negative");
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

// The per-dimension entries of a chunk string for an array of `nd` dimensions, with dask's
// normalize_chunks rules for the request's structure: a number or string applies to every axis; a
// dict names axes (negative from the end) and leaves the others None; a tuple has one entry per axis,
// except that a 1-d array's flat tuple of numbers "(2, 3, 4)" is that axis's explicit chunks; the outer
// parentheses may be left out ("(2, 3, 4), -1"). `*limit` becomes the request's byte size if it has one.
std::vector<Req> parse_request(const std::string &spec, size_t nd, const std::vector<Index> &shape, const char *what,
                               Index *limit) {
  LitParser ps{spec, what};
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
  // dask: "You must specify a chunks= keyword argument" (None is a dimension's entry, not a request).
  if (top.kind == Lit::None)
    fail(CA_EINVAL, "bad ", what, " specification 'None': give chunks (a block size, -1, 'auto', a byte size, a tuple "
         "per axis or a dict of axes)");
  std::vector<Lit> per(nd);
  if (top.kind == Lit::Dict) {
    for (size_t k = 0; k < top.keys.size(); ++k) {
      const Index axis0 = top.keys[k];
      Index axis = axis0 < 0 ? axis0 + Index(nd) : axis0;
      CA_CHECK(axis >= 0 && axis < Index(nd), CA_EINVAL, "axis ", axis0, " is out of bounds for an array of ", nd,
               " dimensions");
      per[size_t(axis)] = top.items[k];  // the axes it leaves out stay None
    }
  } else if (top.kind == Lit::Seq) {
    const bool flat = std::all_of(top.items.begin(), top.items.end(),
                                  [](const Lit &l) { return l.kind == Lit::Int || l.kind == Lit::Str; });
    const bool all_empty = !shape.empty() && std::all_of(shape.begin(), shape.end(), [](Index s) { return s == 0; });
    if (top.items.empty() && all_empty) {
      // dask: "()" for an array whose every axis is empty gives ((0,),) * ndim.
      Lit zero;
      zero.kind = Lit::Int;
      for (Lit &l : per) {
        l.kind = Lit::Seq;
        l.items.assign(1, zero);
      }
    } else if (nd == 1 && top.items.size() > 1 && flat) {
      per[0] = top;  // a 1-d array's explicit chunks
    } else {
      CA_CHECK(top.items.size() == nd, CA_EINVAL, "chunks and shape must be of the same length/dimension: '",
               excerpt(spec), "' has ", top.items.size(), " entries, the array has ", nd, " dimensions");
      per = top.items;
    }
  } else {
    per.assign(nd, top);  // a number, a string or None for every dimension
  }
  std::vector<Req> req;
  bool limit_set = false;
  for (size_t d = 0; d < nd; ++d) req.push_back(req_of(per[d], d, limit, &limit_set));
  // Block sizes: -1 is the whole axis; 0 only fits an empty axis (dask divides by it otherwise).
  for (size_t d = 0; d < nd; ++d) {
    Req &r = req[d];
    if (r.kind != Req::Size) continue;
    if (r.size == -1) r.size = shape[d];
    CA_CHECK(r.size > 0 || (r.size == 0 && shape[d] == 0), CA_EINVAL, "chunk size ", r.size, " along axis ", d,
             " must be positive, or -1 for the whole axis");
  }
  return req;
}

// Explicit chunk sizes must add up to the extent (dask's message).
void check_sum(const std::vector<Index> &sizes, size_t d, Index extent) {
  Index sum = 0;
  for (Index s : sizes)
    if (__builtin_add_overflow(sum, s, &sum))
      fail(CA_EINVAL, "Chunks do not add up to shape: chunks along axis ", d, " sum to more than 2^63-1, shape is ",
           extent);
  if (sum != extent)
    fail(CA_EINVAL, "Chunks do not add up to shape: chunks along axis ", d, " sum to ", sum, ", shape is ", extent);
}

}  // namespace

Chunks normalize_chunks_spec(const std::string &spec, const std::vector<Index> &shape, DType dtype, Index limit) {
  for (size_t d = 0; d < shape.size(); ++d)
    CA_CHECK(shape[d] >= 0, CA_EINVAL, "extent ", shape[d], " of axis ", d, " is negative");
  const std::vector<Req> req = parse_request(spec, shape.size(), shape, "chunks", &limit);
  std::vector<DimChunks> dims(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    const Req &r = req[d];
    switch (r.kind) {
      case Req::None:
        dims[d].size = CA_CHUNKS_WHOLE;
        break;
      case Req::Auto:
        dims[d].size = CA_CHUNKS_AUTO;
        break;
      case Req::Explicit:
        dims[d].size = CA_CHUNKS_EXPLICIT;
        dims[d].sizes = r.sizes;
        break;
      case Req::Size:  // 0 only on an empty axis (parse_request), whose one block is empty
        dims[d].size = r.size > 0 ? r.size : CA_CHUNKS_WHOLE;
        break;
    }
  }
  return normalize_chunks(dims, shape, dtype, limit);
}

Chunks rechunk_chunks(const Array &a, const std::string &spec, Index limit) {
  const size_t nd = size_t(a.ndim());
  std::vector<Req> req = parse_request(spec, nd, a.shape, "rechunk", &limit);
  std::vector<Index> fixed(nd, 0);
  for (size_t d = 0; d < nd; ++d) {
    if (req[d].kind == Req::None) {  // rechunk keeps the current chunks
      req[d].kind = Req::Explicit;
      req[d].sizes = a.chunks[d];
    }
    if (req[d].kind == Req::Size) fixed[d] = req[d].size;
  }
  auto_chunks(req, fixed, a, limit);
  Chunks out(nd);
  for (size_t d = 0; d < nd; ++d) {
    if (req[d].kind == Req::Explicit) {
      check_sum(req[d].sizes, d, a.shape[d]);
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
