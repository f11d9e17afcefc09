// einsum (dask.array.einsum): blockwise over the index letters with the contracted letters kept as
// extra output axes of extent 1 per block, then summed.
//
// Parsing follows numpy's: letters a-z A-Z, one '...' per operand (its dimensions are aligned from
// the right and broadcast), an explicit output after '->' or the implicit one (the ellipsis
// dimensions, then the letters that appear once, in ASCII order). Letters repeated within an
// operand take its diagonal. A letter's extents must agree across operands or be 1 (broadcast).
//
// Graph: the operands are rechunked so that every letter has one chunking (the common refinement of
// the operands' chunkings, dask's unify_chunks; extent-1 axes stay one block). Task (o..., c...)
// of the `einsum` layer runs `ca.einsum` on the operand blocks its letters select and gives the
// block einsum with a trailing extent-1 axis per contracted letter; a sum (any for bool) over those
// axes gives the result. The per-block kernel is a plain loop over all letters in the result dtype
// (NumPy's einsum without optimize): bool multiplies as AND and sums as OR, integers wrap.
#include "array/einsum.hpp"

#include <chunkarray/array.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <type_traits>

#include "array/expr.hpp"
#include "array/reduce.hpp"
#include "core/checked.hpp"
#include "graph/layer.hpp"
#include "kernel/adapter.hpp"

namespace ca {

namespace {

bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

}  // namespace

EinsumSpec parse_einsum(const std::string &subscripts0, const std::vector<int32_t> &ndims) {
  std::string s;
  for (char c : subscripts0)
    if (c != ' ') s += c;
  EinsumSpec spec;
  std::string lhs = s, rhs;
  const size_t arrow = s.find("->");
  spec.explicit_output = arrow != std::string::npos;
  if (spec.explicit_output) {
    lhs = s.substr(0, arrow);
    rhs = s.substr(arrow + 2);
    CA_CHECK(rhs.find("->") == std::string::npos, CA_EINVAL, "einsum: subscripts string contains more than one '->'");
  }
  std::vector<std::string> terms;
  {
    size_t p = 0;
    for (;;) {
      size_t q = lhs.find(',', p);
      terms.push_back(lhs.substr(p, q == std::string::npos ? std::string::npos : q - p));
      if (q == std::string::npos) break;
      p = q + 1;
    }
  }
  CA_CHECK(terms.size() == ndims.size(), CA_EINVAL, "einsum: ", terms.size(), " operand subscripts in '", subscripts0,
           "' but ", ndims.size(), " operands");
  // Letters used anywhere, to pick free ones for the ellipsis dimensions.
  std::array<bool, 128> used{};
  auto check_term = [&](const std::string &t, const char *where) {
    for (size_t i = 0; i < t.size(); ++i) {
      const char c = t[i];
      if (c == '.') {
        CA_CHECK(t.compare(i, 3, "...") == 0 && t.find("...", i + 3) == std::string::npos, CA_EINVAL, "einsum: ", where,
                 " subscripts '", t, "' have a '.' that is not part of one '...'");
        i += 2;
        continue;
      }
      CA_CHECK(is_letter(c), CA_EINVAL, "einsum: invalid subscript '", std::string(1, c), "' in ", where,
               " subscripts '", t, "' (only a-z, A-Z and '...')");
      used[size_t(c)] = true;
    }
  };
  for (auto &t : terms) check_term(t, "operand");
  if (spec.explicit_output) check_term(rhs, "output");
  int32_t ell = 0;
  std::vector<int32_t> ell_of(terms.size(), 0);
  for (size_t k = 0; k < terms.size(); ++k) {
    const std::string &t = terms[k];
    const bool has = t.find("...") != std::string::npos;
    const int32_t letters = int32_t(t.size()) - (has ? 3 : 0);
    if (has) {
      CA_CHECK(ndims[k] >= letters, CA_EINVAL, "einsum: operand ", k, " has ", ndims[k], " dimensions but subscripts '",
               t, "' name ", letters);
      ell_of[k] = ndims[k] - letters;
      ell = std::max(ell, ell_of[k]);
    } else {
      CA_CHECK(ndims[k] == letters, CA_EINVAL, "einsum: operand ", k, " has ", ndims[k], " dimensions but subscripts '",
               t, "' name ", letters, " (use '...' for broadcast dimensions)");
    }
  }
  std::string ell_letters;
  for (char c = 'A'; int32_t(ell_letters.size()) < ell && c <= 'z'; ++c)
    if (is_letter(c) && !used[size_t(c)]) ell_letters += c;
  CA_CHECK(int32_t(ell_letters.size()) == ell, CA_EINVAL, "einsum: too many dimensions for the 52 subscript letters");
  auto expand = [&](const std::string &t, int32_t n) {
    const size_t p = t.find("...");
    if (p == std::string::npos) return t;
    return t.substr(0, p) + ell_letters.substr(size_t(ell - n)) + t.substr(p + 3);
  };
  std::map<char, int32_t> count;
  for (size_t k = 0; k < terms.size(); ++k) {
    spec.inputs.push_back(expand(terms[k], ell_of[k]));
    for (char c : spec.inputs.back()) ++count[c];
  }
  if (spec.explicit_output) {
    CA_CHECK(rhs.find("...") != std::string::npos || ell == 0, CA_EINVAL,
             "einsum: output has more dimensions than subscripts given in einstein sum, but no '...' ellipsis "
             "provided to broadcast the extra dimensions.");
    spec.output = expand(rhs, ell);
    for (size_t i = 0; i < spec.output.size(); ++i) {
      const char c = spec.output[i];
      CA_CHECK(spec.output.find(c, i + 1) == std::string::npos, CA_EINVAL, "einsum: output subscript '",
               std::string(1, c), "' appears more than once");
      CA_CHECK(count.count(c), CA_EINVAL, "einsum: output subscript '", std::string(1, c),
               "' does not appear in the input subscripts");
    }
  } else {
    spec.output = ell_letters;
    for (auto &[c, n] : count)  // std::map: ASCII order, as NumPy's implicit mode
      if (n == 1 && ell_letters.find(c) == std::string::npos) spec.output += c;
  }
  for (auto &[c, n] : count)
    if (spec.output.find(c) == std::string::npos) spec.contracted += c;
  return spec;
}

namespace {

/// The compute type's arithmetic: bool is AND / OR, signed integers wrap through unsigned.
template <class T, bool = std::is_integral_v<T> && !std::is_same_v<T, bool>>
struct AccOf {
  using type = T;
};
template <class T>
struct AccOf<T, true> {
  using type = std::make_unsigned_t<T>;
};

template <class T>
struct Arith {
  using Acc = typename AccOf<T>::type;
  static Acc one() { return Acc(1); }
  static Acc mul(Acc a, Acc b) {
    if constexpr (std::is_same_v<T, bool>) return a && b;
    else return Acc(a * b);
  }
  static Acc add(Acc a, Acc b) {
    if constexpr (std::is_same_v<T, bool>) return a || b;
    else return Acc(a + b);
  }
};

template <class T, class S>
T cast_value(S v) {
  if constexpr (std::is_same_v<T, S>) {
    return v;
  } else if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>) {
    using R = typename T::value_type;
    if constexpr (std::is_same_v<S, std::complex<float>> || std::is_same_v<S, std::complex<double>>)
      return T(R(v.real()), R(v.imag()));
    else
      return T(R(v), R(0));
  } else if constexpr (std::is_same_v<T, bool>) {
    if constexpr (std::is_same_v<S, std::complex<float>> || std::is_same_v<S, std::complex<double>>)
      return v != S(0);
    else
      return v != S(0);
  } else {
    if constexpr (std::is_same_v<S, std::complex<float>> || std::is_same_v<S, std::complex<double>>)
      return T(v.real());
    else
      return T(v);
  }
}

/// A block converted to T (owned copy unless it already is T).
template <class T>
std::vector<T> as_type(const Block *b) {
  std::vector<T> r(size_t(b->size));
  dispatch_dtype(b->dtype, [&](auto tag) {
    using S = typename decltype(tag)::type;
    const S *p = static_cast<const S *>(b->data);
    for (Index i = 0; i < b->size; ++i) r[size_t(i)] = cast_value<T>(p[i]);
  });
  return r;
}

// ca.einsum(block..., spec): spec = (nops, nletters, nout, ncontracted, out letters..., then per
// operand: ndim, letters...). Output: the out letters' extents followed by ncontracted 1s.
ca_status_t k_einsum(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return kernel_boundary(out, kctx, [&] {
    const char *K = "ca.einsum";
    CA_CHECK(nargs >= 2 && args[nargs - 2].kind == CA_ARG_TUPLE && args[nargs - 1].kind == CA_ARG_INT64, CA_EINVAL, K,
             " takes (blocks..., spec, dtype)");
    const int64_t *sp = args[nargs - 2].u.tuple.items;
    const size_t splen = args[nargs - 2].u.tuple.len;
    const DType dt = DType(args[nargs - 1].u.i64);
    CA_CHECK(splen >= 4, CA_EINVAL, K, ": bad spec");
    const size_t nops = size_t(sp[0]), nl = size_t(sp[1]), nout = size_t(sp[2]), ncon = size_t(sp[3]);
    CA_CHECK(nops == nargs - 2 && nout + ncon == nl && nl <= 52, CA_EINVAL, K, ": spec does not match the ", nargs - 2,
             " blocks");
    size_t pos = 4;
    std::vector<int64_t> out_letters(sp + pos, sp + pos + nout);
    pos += nout;
    std::vector<std::vector<int64_t>> op_letters(nops);
    std::vector<const Block *> blocks(nops);
    std::vector<Index> extent(nl, 1);
    for (size_t k = 0; k < nops; ++k) {
      CA_CHECK(args[k].kind == CA_ARG_BLOCK && pos < splen, CA_EINVAL, K, ": argument ", k, " is not a block");
      blocks[k] = args[k].u.block;
      const size_t nd = size_t(sp[pos++]);
      CA_CHECK(pos + nd <= splen && int32_t(nd) == blocks[k]->ndim, CA_EINVAL, K, ": operand ", k, " has ",
               blocks[k]->ndim, " dimensions, the spec ", nd);
      op_letters[k].assign(sp + pos, sp + pos + nd);
      pos += nd;
      for (size_t d = 0; d < nd; ++d) {
        const int64_t l = op_letters[k][d];
        CA_CHECK(l >= 0 && size_t(l) < nl, CA_EINVAL, K, ": bad letter ", l);
        const Index e = blocks[k]->shape[d];
        if (e != 1) {
          CA_CHECK(extent[size_t(l)] == 1 || extent[size_t(l)] == e, CA_EINVAL, K, ": operand ", k, " axis ", d,
                   " has extent ", e, ", another operand ", extent[size_t(l)]);
          extent[size_t(l)] = e;
        }
      }
    }
    std::vector<int64_t> oshape;
    for (int64_t l : out_letters) oshape.push_back(extent[size_t(l)]);
    for (size_t q = 0; q < ncon; ++q) oshape.push_back(1);
    BlockRef res(block_new(dt, int32_t(oshape.size()), oshape.data()));
    dispatch_dtype(dt, [&](auto tag) {
      using T = typename decltype(tag)::type;
      using A = Arith<T>;
      using Acc = typename A::Acc;
      std::vector<std::vector<T>> data(nops);
      // Element strides per operand and letter (repeated letters add up: the diagonal; extent 1: 0).
      std::vector<std::vector<Index>> st(nops, std::vector<Index>(nl, 0));
      for (size_t k = 0; k < nops; ++k) {
        data[k] = as_type<T>(blocks[k]);
        Index acc = 1;
        for (size_t d = op_letters[k].size(); d-- > 0;) {
          if (blocks[k]->shape[d] != 1) st[k][size_t(op_letters[k][d])] += acc;
          acc *= blocks[k]->shape[d];
        }
      }
      // Letters in loop order: the output's, then the contracted ones (innermost).
      std::vector<size_t> order(out_letters.begin(), out_letters.end());
      std::vector<bool> is_out(nl, false);
      for (int64_t l : out_letters) is_out[size_t(l)] = true;
      for (size_t l = 0; l < nl; ++l)
        if (!is_out[l]) order.push_back(l);
      Index inner = 1;
      for (size_t q = nout; q < nl; ++q) inner *= extent[order[q]];
      T *o = static_cast<T *>(res->data);
      const Index nres = res->size;
      std::vector<Index> ix(nl, 0), off(nops, 0);
      bool any = false;
      for (size_t l = 0; l < nl; ++l) any = any || extent[l] == 0;
      if (any) {
        for (Index i = 0; i < nres; ++i) o[i] = T(0);
        return;
      }
      for (Index r = 0; r < nres; ++r) {
        Acc sum = Acc(0);
        for (Index c = 0; c < inner; ++c) {
          Acc prod = A::one();
          for (size_t k = 0; k < nops; ++k) prod = A::mul(prod, Acc(data[k][size_t(off[k])]));
          sum = A::add(sum, prod);
          // advance the odometer over all letters (contracted innermost)
          for (size_t q = nl; q-- > 0;) {
            const size_t l = order[q];
            for (size_t k = 0; k < nops; ++k) off[k] += st[k][l];
            if (++ix[l] < extent[l]) break;
            for (size_t k = 0; k < nops; ++k) off[k] -= st[k][l] * ix[l];
            ix[l] = 0;
          }
        }
        o[r] = T(sum);
      }
    });
    *out = res.release();
  });
}

}  // namespace

ArrayPtr einsum(const std::string &subscripts, const std::vector<ArrayPtr> &operands0, DType dtype) {
  CA_CHECK(!operands0.empty(), CA_EINVAL, "einsum: at least one operand is needed");
  std::vector<int32_t> ndims;
  for (size_t k = 0; k < operands0.size(); ++k) {
    CA_CHECK(operands0[k], CA_EINVAL, "einsum: operand ", k, " is NULL");
    require_known_chunks(*operands0[k], "einsum");
    ndims.push_back(operands0[k]->ndim());
  }
  const EinsumSpec spec = parse_einsum(subscripts, ndims);
  DType dt = dtype;
  if (dt == CA_DTYPE_INVALID) {
    dt = operands0[0]->dtype;
    for (size_t k = 1; k < operands0.size(); ++k) dt = dtype_promote(dt, operands0[k]->dtype);
  }
  for (size_t k = 0; k < operands0.size(); ++k) {
    const char kind = dtype_kind(operands0[k]->dtype);
    CA_CHECK(kind == 'b' || kind == 'i' || kind == 'u' || kind == 'f' || kind == 'c', CA_ETYPE, "einsum: operand ", k,
             " has dtype ", dtype_name(operands0[k]->dtype), ", not a number");
  }
  {
    const char kind = dtype_kind(dt);
    CA_CHECK(kind == 'b' || kind == 'i' || kind == 'u' || kind == 'f' || kind == 'c', CA_ETYPE,
             "einsum: result dtype ", dtype_name(dt) ? dtype_name(dt) : "?", " is not a number");
  }
  if (dt == CA_FLOAT16) {
    // NumPy's half loops: products summed in float32, the result rounded once to float16.
    std::vector<ArrayPtr> wide;
    for (const ArrayPtr &x : operands0) wide.push_back(elementwise_astype(x, CA_FLOAT32));
    return elementwise_astype(einsum(subscripts, wide, CA_FLOAT32), CA_FLOAT16);
  }
  // Letter ids: output letters first, then contracted ones.
  const std::string letters = spec.output + spec.contracted;
  auto id = [&](char c) { return int64_t(letters.find(c)); };
  const size_t nl = letters.size();
  // Extents and the unified chunking per letter (extent-1 axes broadcast and keep one block).
  std::vector<Index> extent(nl, 1);
  std::vector<std::vector<std::vector<Index>>> per_letter(nl);
  for (size_t k = 0; k < operands0.size(); ++k)
    for (size_t d = 0; d < spec.inputs[k].size(); ++d) {
      const size_t l = size_t(id(spec.inputs[k][d]));
      const Index e = operands0[k]->shape[d];
      if (e == 1) continue;
      if (extent[l] != 1 && extent[l] != e) {
        std::string shapes;
        for (size_t j = 0; j < operands0.size(); ++j)
          shapes += (j ? " " : "") + shape_str(operands0[j]->shape) + "->" + spec.inputs[j];
        fail(CA_EINVAL, "einsum: operands could not be broadcast together with remapped shapes: subscript '",
             std::string(1, letters[l]), "' has extents ", extent[l], " and ", e, " (", shapes, ")");
      }
      extent[l] = e;
      per_letter[l].push_back(operands0[k]->chunks[d]);
    }
  std::vector<std::vector<Index>> lchunks(nl);
  for (size_t l = 0; l < nl; ++l)
    lchunks[l] = per_letter[l].empty() ? std::vector<Index>{1} : common_blockdim(per_letter[l]);
  std::vector<ArrayPtr> ops;
  for (size_t k = 0; k < operands0.size(); ++k) {
    Chunks want = operands0[k]->chunks;
    for (size_t d = 0; d < spec.inputs[k].size(); ++d)
      if (operands0[k]->shape[d] != 1) want[d] = lchunks[size_t(id(spec.inputs[k][d]))];
    ops.push_back(want == operands0[k]->chunks ? operands0[k] : rechunk(operands0[k], want));
  }
  // The kernel's spec.
  std::vector<int64_t> ks{int64_t(ops.size()), int64_t(nl), int64_t(spec.output.size()),
                          int64_t(spec.contracted.size())};
  for (char c : spec.output) ks.push_back(id(c));
  for (size_t k = 0; k < ops.size(); ++k) {
    ks.push_back(int64_t(spec.inputs[k].size()));
    for (char c : spec.inputs[k]) ks.push_back(id(c));
  }
  Tokenizer tok("einsum");
  tok.add(spec.output + "<-" + [&] {
    std::string t;
    for (auto &s : spec.inputs) t += s + ",";
    return t;
  }()).add(int64_t(dt));
  for (auto &o : ops) tok.add(*o);
  const std::string name = tok.name();
  Chunks out_chunks;
  std::vector<Index> nblocks;
  for (size_t l = 0; l < nl; ++l) {
    nblocks.push_back(Index(lchunks[l].size()));
    if (l < spec.output.size()) out_chunks.push_back(lchunks[l]);
    else out_chunks.push_back(std::vector<Index>(lchunks[l].size(), 1));
  }
  const int32_t ond = int32_t(nl);
  auto layer = std::make_shared<MaterializedLayer>(name, ond);
  const Index total = blocks_product(nblocks.data(), nblocks.size(), "einsum");
  std::vector<Index> bi(nl, 0);
  std::vector<std::vector<Index>> keys(ops.size());
  for (Index lin = 0; lin < total; ++lin) {
    Index r = lin;
    for (size_t l = nl; l-- > 0;) {
      bi[l] = r % nblocks[l];
      r /= nblocks[l];
    }
    std::vector<ca_arg_t> args;
    for (size_t k = 0; k < ops.size(); ++k) {
      keys[k].assign(spec.inputs[k].size(), 0);
      for (size_t d = 0; d < spec.inputs[k].size(); ++d)
        keys[k][d] = ops[k]->shape[d] == 1 ? 0 : bi[size_t(id(spec.inputs[k][d]))];
      args.push_back(ca_arg_key(ops[k]->name.c_str(), keys[k].data(), int32_t(keys[k].size())));
    }
    args.push_back(ca_arg_tuple(ks.data(), ks.size()));
    args.push_back(ca_arg_i64(dt));
    layer->add_task(bi.data(), "ca.einsum", args.data(), args.size());
  }
  auto g = merge_graphs(ops);
  g->add_layer(layer);
  ArrayPtr y = array_from_layer(g, name, out_chunks, dt);
  if (spec.contracted.empty()) return y;
  std::vector<int32_t> axes;
  for (size_t q = spec.output.size(); q < nl; ++q) axes.push_back(int32_t(q));
  if (dt == CA_BOOL) return reduce(CA_RED_ANY, y, axes, false, 0, 0, CA_DTYPE_INVALID);
  return reduce(CA_RED_SUM, y, axes, false, 0, 0, dt);
}

void register_einsum_kernels(KernelRegistry &reg) {
  reg.add(kernel_new("ca.einsum", k_einsum, 1, nullptr, nullptr), true);
}

}  // namespace ca
