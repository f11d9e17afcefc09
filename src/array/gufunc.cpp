#include "array/gufunc.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <set>

#include "kernel/adapter.hpp"

namespace ca {

// ------------------------------------------------------------------------------------------------
// signature

namespace {

struct SigParser {
  const std::string &s;
  size_t p = 0;
  void ws() {
    while (p < s.size() && std::isspace(static_cast<unsigned char>(s[p]))) ++p;
  }
  bool peek(char c) {
    ws();
    return p < s.size() && s[p] == c;
  }
  bool eat(char c) {
    if (!peek(c)) return false;
    ++p;
    return true;
  }
  [[noreturn]] void bad(const std::string &what) {
    ws();
    fail(CA_EINVAL, "bad gufunc signature '", s, "': ", what, " at offset ", p,
         p < s.size() ? std::string(" ('") + s[p] + "')" : std::string(" (end of text)"));
  }
  static bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
  std::vector<std::string> arg(const char *role, size_t n) {
    if (!eat('(')) bad(std::string("expected '(' to open ") + role + " " + std::to_string(n));
    std::vector<std::string> dims;
    while (true) {
      if (eat(')')) break;
      ws();
      size_t start = p;
      while (p < s.size() && name_char(s[p])) ++p;
      if (p == start) {
        if (p >= s.size()) bad(std::string("unclosed '(' of ") + role + " " + std::to_string(n));
        bad("expected a dimension name (letters, digits, '_') or ')'");
      }
      dims.push_back(s.substr(start, p - start));
      if (eat(',')) continue;
      if (eat(')')) break;
      bad("expected ',' or ')' after dimension '" + dims.back() + "'");
    }
    return dims;
  }
};

}  // namespace

GufuncSignature parse_gufunc_signature(const std::string &sig) {
  SigParser ps{sig};
  GufuncSignature r;
  ps.ws();
  if (sig.find("->") == std::string::npos)
    fail(CA_EINVAL, "bad gufunc signature '", sig, "': no '->' between inputs and outputs");
  if (!ps.peek('-')) {
    while (true) {
      r.inputs.push_back(ps.arg("input", r.inputs.size()));
      if (!ps.eat(',')) break;
      if (ps.peek('-')) break;  // trailing comma
    }
  }
  if (!(ps.eat('-') && ps.p < sig.size() && sig[ps.p] == '>')) ps.bad("expected ',' or '->' after the inputs");
  ++ps.p;
  do {
    r.outputs.push_back(ps.arg("output", r.outputs.size()));
  } while (ps.eat(','));
  ps.ws();
  if (ps.p != sig.size()) ps.bad("unexpected text after the outputs");
  return r;
}

// ------------------------------------------------------------------------------------------------
// helpers

namespace {


std::string tuple_str(const std::vector<std::string> &v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + v[i];
  return s + ")";
}

// Output axis k of the result takes axis perm[k] of `a`, or is a new axis of extent 1 (-1).
ArrayPtr permute_axes(const ArrayPtr &a, const std::vector<int32_t> &perm) {
  bool identity = int32_t(perm.size()) == a->ndim();
  for (size_t k = 0; k < perm.size() && identity; ++k) identity = perm[k] == int32_t(k);
  if (identity) return a;
  std::string in_index(kIndexLetters, size_t(a->ndim()));
  std::string out_index;
  Chunks out_chunks;
  size_t next = size_t(a->ndim());
  for (int32_t p : perm) {
    if (p >= 0) {
      out_index += in_index[size_t(p)];
      out_chunks.push_back(a->chunks[size_t(p)]);
    } else {
      CA_CHECK(next < kNumIndexLetters, CA_EINVAL, "apply_gufunc: too many dimensions");
      out_index += kIndexLetters[next++];
      out_chunks.push_back({1});
    }
  }
  std::vector<int64_t> p64(perm.begin(), perm.end());
  std::vector<ArrayArg> args{ArrayArg::of(a, in_index), ArrayArg::lit(ca_arg_tuple(p64.data(), p64.size()))};
  std::string name = Tokenizer("gufunc-transpose").add(*a).add(p64).name();
  return blockwise_layer(name, "ca.gufunc_transpose", out_index, args, out_chunks, a->dtype);
}

struct Axes {
  std::vector<std::vector<int32_t>> in, out;
};

// dask's _validate_normalize_axes.
Axes normalize_axes(const GufuncOptions &o, const GufuncSignature &sig) {
  size_t nin = sig.inputs.size(), nout = sig.outputs.size();
  CA_CHECK(!(o.has_axes && o.has_axis), CA_EINVAL, "apply_gufunc: only one of axes or axis may be given");
  std::vector<std::vector<std::string>> in_core = sig.inputs, out_core = sig.outputs;
  std::vector<std::vector<std::string>> filtered;
  for (auto &c : in_core)
    if (!c.empty()) filtered.push_back(c);
  size_t outs_with_core = 0;
  for (auto &c : out_core) outs_with_core += c.empty() ? 0 : 1;
  if (o.keepdims) {
    CA_CHECK(outs_with_core == 0, CA_EINVAL, "apply_gufunc: keepdims can only be used for scalar outputs");
    CA_CHECK(!filtered.empty(), CA_EINVAL, "apply_gufunc: keepdims needs an input with core dimensions");
    out_core.assign(nout, filtered[0]);
  }
  std::vector<std::vector<std::string>> core = in_core;
  core.insert(core.end(), out_core.begin(), out_core.end());
  if (o.has_axis && !filtered.empty()) {
    CA_CHECK(filtered[0].size() == 1, CA_EINVAL, "apply_gufunc: axis can be used only if one core dimension is present");
    for (auto &c : filtered)
      CA_CHECK(c == filtered[0], CA_EINVAL, "apply_gufunc: to use axis, all core dimensions have to be equal");
  }
  std::vector<std::vector<int32_t>> axes;
  if (!o.has_axes) {
    for (auto &c : core) {
      std::vector<int32_t> v;
      if (o.has_axis) {
        if (!c.empty()) v.push_back(o.axis);
      } else {
        for (int32_t k = -int32_t(c.size()); k < 0; ++k) v.push_back(k);
      }
      axes.push_back(v);
    }
  } else {
    axes = o.axes;
  }
  if ((outs_with_core == 0 && axes.size() != nin && axes.size() != nin + nout) ||
      (outs_with_core > 0 && axes.size() != nin + nout))
    fail(CA_EINVAL, "apply_gufunc: ", axes.size(), " axes entries for ", nin, " inputs and ", nout,
         " outputs: the number of axes entries must equal the number of input and output arguments");
  Axes r;
  r.in.assign(axes.begin(), axes.begin() + long(nin));
  r.out.assign(axes.begin() + long(nin), axes.end());
  if (r.out.empty())
    for (auto &c : out_core) {
      std::vector<int32_t> v;
      for (int32_t k = -int32_t(c.size()); k < 0; ++k) v.push_back(k);
      r.out.push_back(v);
    }
  for (size_t i = 0; i < nin; ++i)
    CA_CHECK(r.in[i].size() == in_core[i].size(), CA_EINVAL, "apply_gufunc: ", r.in[i].size(),
             " axes for input ", i, ", which has ", in_core[i].size(), " core dimensions ", tuple_str(in_core[i]));
  if (!o.keepdims) {
    for (size_t i = 0; i < nout; ++i)
      CA_CHECK(r.out[i].size() == out_core[i].size(), CA_EINVAL, "apply_gufunc: ", r.out[i].size(),
               " axes for output ", i, ", which has ", out_core[i].size(), " core dimensions ",
               tuple_str(out_core[i]));
  } else {
    CA_CHECK(in_core == out_core, CA_EINVAL, "apply_gufunc: to use keepdims, all core dimensions have to be equal");
    r.out.assign(nout, r.in[0]);
  }
  return r;
}

DType promoted(const std::vector<ArrayPtr> &args) {
  DType t = args[0]->dtype;
  for (size_t i = 1; i < args.size(); ++i) t = dtype_promote(t, args[i]->dtype);
  return t;
}

}  // namespace

// ------------------------------------------------------------------------------------------------
// apply_gufunc

std::vector<ArrayPtr> apply_gufunc(const std::string &kernel, const std::string &signature,
                                   const std::vector<ArrayPtr> &args0, const GufuncOptions &o) {
  CA_CHECK(!kernel.empty(), CA_EINVAL, "apply_gufunc: kernel name is empty");
  GufuncSignature sig = parse_gufunc_signature(signature);
  size_t nin = sig.inputs.size(), nout = sig.outputs.size();
  CA_CHECK(nin >= 1, CA_EINVAL, "apply_gufunc: signature '", signature, "' has no inputs");
  if (args0.size() != nin)
    fail(CA_EINVAL, "apply_gufunc: signature '", signature, "' takes ", nin, " input", nin == 1 ? "" : "s", ", got ",
         args0.size(), " array", args0.size() == 1 ? "" : "s");
  for (size_t i = 0; i < nin; ++i) CA_CHECK(args0[i], CA_EINVAL, "apply_gufunc: input ", i, " is NULL");
  std::vector<DType> dtypes = o.output_dtypes;
  if (dtypes.empty()) dtypes.assign(nout, promoted(args0));
  CA_CHECK(dtypes.size() == nout, CA_EINVAL, "apply_gufunc: ", dtypes.size(), " output dtypes for the ", nout,
           " outputs of '", signature, "'");
  for (size_t i = 0; i < nout; ++i)
    CA_CHECK(dtype_valid(dtypes[i]) && dtypes[i] != CA_RAW, CA_ETYPE, "apply_gufunc: output dtype ", dtypes[i],
             " of output ", i, " is not a numeric dtype");
  Axes axes = normalize_axes(o, sig);

  // Move each input's core dimensions to the end (dask's transpose by axes).
  std::vector<ArrayPtr> args;
  for (size_t i = 0; i < nin; ++i) {
    const ArrayPtr &a = args0[i];
    int32_t nd = a->ndim();
    int32_t ncore = int32_t(sig.inputs[i].size());
    if (nd < ncore)
      fail(CA_EINVAL, "apply_gufunc: input ", i, " has ", nd, " dimension", nd == 1 ? "" : "s", " but its core dimensions ",
           tuple_str(sig.inputs[i]), " need at least ", ncore);
    std::vector<int32_t> iax;
    for (int32_t ax : axes.in[i]) {
      int32_t n = ax < 0 ? ax : ax - nd;
      CA_CHECK(n >= -nd && n < 0, CA_EINVAL, "apply_gufunc: axis ", ax, " of input ", i, " is out of range for ", nd,
               " dimensions");
      CA_CHECK(std::find(iax.begin(), iax.end(), n) == iax.end(), CA_EINVAL, "apply_gufunc: axis ", ax,
               " is repeated in the axes of input ", i);
      iax.push_back(n);
    }
    std::vector<int32_t> perm;
    for (int32_t k = -nd; k < 0; ++k)
      if (std::find(iax.begin(), iax.end(), k) == iax.end()) perm.push_back(k + nd);
    for (int32_t k : iax) perm.push_back(k + nd);
    args.push_back(permute_axes(a, perm));
  }

  // Loop and core dimensions.
  std::vector<int32_t> nloop(nin);
  int32_t max_loop = 0;
  for (size_t i = 0; i < nin; ++i) {
    nloop[i] = args[i]->ndim() - int32_t(sig.inputs[i].size());
    max_loop = std::max(max_loop, nloop[i]);
  }
  std::map<std::string, Index> core_sizes;
  std::map<std::string, size_t> core_first;  // input that first gave the size
  for (size_t i = 0; i < nin; ++i)
    for (size_t k = 0; k < sig.inputs[i].size(); ++k) {
      const std::string &dim = sig.inputs[i][k];
      Index size = args[i]->shape[size_t(nloop[i]) + k];
      auto it = core_sizes.find(dim);
      if (it == core_sizes.end()) {
        core_sizes[dim] = size;
        core_first[dim] = i;
      } else if (it->second != size) {
        fail(CA_EINVAL, "apply_gufunc: core dimension '", dim, "' has size ", it->second, " in input ",
             core_first[dim], " but ", size, " in input ", i);
      }
    }
  std::map<std::string, Index> new_sizes;  // output core dims from output_sizes
  for (auto &kv : o.output_sizes) {
    CA_CHECK(kv.second >= 0, CA_EINVAL, "apply_gufunc: output size ", kv.second, " of dimension '", kv.first,
             "' is negative");
    auto it = core_sizes.find(kv.first);
    if (it != core_sizes.end()) {
      CA_CHECK(it->second == kv.second, CA_EINVAL, "apply_gufunc: output_sizes gives dimension '", kv.first,
               "' size ", kv.second, " but the inputs give ", it->second);
    } else {
      new_sizes[kv.first] = kv.second;
    }
  }
  // Loop dimensions: extents equal or 1 (NumPy broadcasting), chunks equal unless allow_rechunk.
  for (int32_t l = 0; l < max_loop; ++l) {
    Index extent = 1;
    for (size_t i = 0; i < nin; ++i) {
      int32_t d = l - (max_loop - nloop[i]);
      if (d < 0) continue;
      Index s = args[i]->shape[size_t(d)];
      if (s == 1) continue;
      if (extent != 1 && s != extent)
        fail(CA_EINVAL, "apply_gufunc: loop dimension ", l, " (of the broadcast loop shape) has extent ", extent,
             " and ", s, " in the inputs: they do not broadcast");
      extent = s;
    }
    if (!o.allow_rechunk) {
      const std::vector<Index> *first = nullptr;
      for (size_t i = 0; i < nin; ++i) {
        int32_t d = l - (max_loop - nloop[i]);
        if (d < 0 || args[i]->shape[size_t(d)] <= 1) continue;
        const auto &c = args[i]->chunks[size_t(d)];
        if (!first) first = &c;
        else if (c != *first)
          fail(CA_EINVAL, "apply_gufunc: loop dimension ", l, " is chunked differently in the inputs (",
               chunks_str({*first}), " and ", chunks_str({c}), "); rechunk them alike or set allow_rechunk");
      }
    }
  }
  // Core dimensions: one chunk each.
  for (size_t i = 0; i < nin; ++i) {
    Chunks want = args[i]->chunks;
    bool change = false;
    for (size_t k = 0; k < sig.inputs[i].size(); ++k) {
      size_t d = size_t(nloop[i]) + k;
      if (args[i]->numblocks[d] <= 1) continue;
      if (!o.allow_rechunk)
        fail(CA_EINVAL, "apply_gufunc: core dimension '", sig.inputs[i][k], "' of input ", i,
             " consists of multiple chunks ", chunks_str({args[i]->chunks[d]}),
             ". To fix, rechunk into a single chunk along this dimension or set allow_rechunk, but beware that this "
             "may increase memory usage significantly");
      want[d] = {args[i]->shape[d]};
      change = true;
    }
    if (change) args[i] = rechunk(args[i], want);
  }

  // Letters: loop dimensions first, then core dimension names.
  CA_CHECK(size_t(max_loop) <= kNumIndexLetters, CA_EINVAL, "apply_gufunc: too many loop dimensions");
  std::string loop_letters(kIndexLetters, size_t(max_loop));
  std::map<std::string, char> letter;
  size_t next = size_t(max_loop);
  auto letter_of = [&](const std::string &dim) {
    auto it = letter.find(dim);
    if (it != letter.end()) return it->second;
    CA_CHECK(next < kNumIndexLetters, CA_EINVAL, "apply_gufunc: too many dimensions (at most ", kNumIndexLetters, ")");
    return letter[dim] = kIndexLetters[next++];
  };
  std::vector<ArrayArg> in_args;
  for (size_t i = 0; i < nin; ++i) {
    std::string idx = loop_letters.substr(size_t(max_loop - nloop[i]));
    for (auto &dim : sig.inputs[i]) idx += letter_of(dim);
    in_args.push_back(ArrayArg::of(args[i], idx));
  }
  std::string prefix = o.name.empty() ? kernel : o.name;
  std::vector<ArrayPtr> results;
  for (size_t k = 0; k < nout; ++k) {
    std::string out_index = loop_letters;
    std::vector<std::pair<char, Index>> new_axes;
    for (auto &dim : sig.outputs[k]) {
      char c = letter_of(dim);
      CA_CHECK(out_index.find(c) == std::string::npos, CA_EINVAL, "apply_gufunc: dimension '", dim,
               "' is repeated in output ", k);
      out_index += c;
      if (core_sizes.count(dim)) continue;
      auto it = new_sizes.find(dim);
      if (it == new_sizes.end())
        fail(CA_EINVAL, "apply_gufunc: output core dimension '", dim, "' of output ", k,
             " is in no input: give its size in output_sizes");
      new_axes.push_back({c, it->second});
    }
    std::vector<ArrayArg> bargs = in_args;
    for (auto &e : o.extra) bargs.push_back(ArrayArg::lit(e));
    if (nout > 1) bargs.push_back(ArrayArg::lit(ca_arg_i64(int64_t(k))));
    ArrayPtr y = blockwise(prefix, kernel, out_index, std::move(bargs), dtypes[k], new_axes, nullptr, true);

    // Output axes (and keepdims): dask's tidcs.
    const std::vector<int32_t> &oax = axes.out[k];
    int32_t nd = y->ndim() + (o.keepdims ? int32_t(oax.size()) : 0);
    int32_t ncore = int32_t(oax.size());
    std::vector<int32_t> tidcs(size_t(nd), INT32_MIN);
    for (int32_t j = 0; j < ncore; ++j) {
      int32_t oa = oax[size_t(j)];
      int32_t pos = oa < 0 ? oa + nd : oa;
      CA_CHECK(pos >= 0 && pos < nd, CA_EINVAL, "apply_gufunc: axis ", oa, " of output ", k, " is out of range for ",
               nd, " dimensions");
      CA_CHECK(tidcs[size_t(pos)] == INT32_MIN, CA_EINVAL, "apply_gufunc: axis ", oa, " is repeated in the axes of output ",
               k);
      tidcs[size_t(pos)] = nd - ncore + j;
    }
    int32_t jj = 0;
    for (auto &t : tidcs)
      if (t == INT32_MIN) t = jj++;
    // Axes beyond y's own are the keepdims axes (new, extent 1).
    for (auto &t : tidcs)
      if (t >= y->ndim()) t = -1;
    results.push_back(permute_axes(y, tidcs));
  }
  return results;
}

// ------------------------------------------------------------------------------------------------
// kernel: ca.gufunc_transpose(block, perm)

namespace {

ca_status_t k_transpose(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return kernel_boundary(out, kctx, [&] {
    CA_CHECK(nargs == 2 && args[0].kind == CA_ARG_BLOCK && args[1].kind == CA_ARG_TUPLE, CA_EINVAL,
             "ca.gufunc_transpose takes (block, axes)");
    const Block *b = args[0].u.block;
    const int64_t *perm = args[1].u.tuple.items;
    int32_t ond = int32_t(args[1].u.tuple.len);
    CA_CHECK(ond <= CA_MAX_NDIM, CA_EINVAL, "ca.gufunc_transpose: too many axes");
    size_t isz = dtype_size(b->dtype);
    std::vector<int64_t> ist(size_t(b->ndim));
    int64_t acc = int64_t(isz);
    for (int32_t d = b->ndim - 1; d >= 0; --d) {
      ist[size_t(d)] = acc;
      acc *= b->shape[d];
    }
    std::vector<int64_t> oshape(static_cast<size_t>(ond)), ost(static_cast<size_t>(ond));
    for (int32_t k = 0; k < ond; ++k) {
      CA_CHECK(perm[k] >= -1 && perm[k] < b->ndim, CA_EINVAL, "ca.gufunc_transpose: axis ", perm[k], " out of range");
      oshape[size_t(k)] = perm[k] < 0 ? 1 : b->shape[perm[k]];
      ost[size_t(k)] = perm[k] < 0 ? 0 : ist[size_t(perm[k])];
    }
    BlockRef res(block_new(b->dtype, ond, oshape.data()));
    CA_CHECK(res->size == b->size, CA_EINVAL, "ca.gufunc_transpose: axes do not cover the block");
    if (res->size > 0) {
      if (ond == 0) {
        std::memcpy(res->data, b->data, isz);
      } else {
        int64_t inner = oshape[size_t(ond - 1)], step = ost[size_t(ond - 1)];
        int64_t rows = res->size / inner;
        std::vector<int64_t> pos(size_t(ond), 0);
        unsigned char *o = static_cast<unsigned char *>(res->data);
        for (int64_t r = 0; r < rows; ++r) {
          const unsigned char *s = static_cast<const unsigned char *>(b->data);
          for (int32_t d = 0; d < ond - 1; ++d) s += pos[size_t(d)] * ost[size_t(d)];
          if (step == int64_t(isz) || inner == 1) {
            std::memcpy(o, s, size_t(inner) * isz);
          } else {
            for (int64_t k = 0; k < inner; ++k) std::memcpy(o + k * int64_t(isz), s + k * step, isz);
          }
          o += inner * int64_t(isz);
          for (int32_t d = ond - 2; d >= 0; --d) {
            if (++pos[size_t(d)] < oshape[size_t(d)]) break;
            pos[size_t(d)] = 0;
          }
        }
      }
    }
    *out = res.release();
  });
}

}  // namespace

void register_gufunc_kernels(KernelRegistry &reg) {
  reg.add(kernel_new("ca.gufunc_transpose", k_transpose, 1, nullptr, nullptr), true);
}

}  // namespace ca
