// Indexing (array/slicing.hpp) against NumPy (values) and dask (output chunks): basic indexing with
// every kind of slice, integer lists (take), boolean masks with unknown chunk sizes and the
// operations on them, compute_chunk_sizes, vindex, setitem, culling (only needed blocks) and errors.
// NumPy/dask run once per batch of cases.
#include <gtest/gtest.h>

#include <chunkarray/chunkarray.h>

#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "array/array.hpp"
#include "array/create.hpp"
#include "array/expr.hpp"
#include "array/reduce.hpp"
#include "array/slicing.hpp"
#include "exec/executor.hpp"
#include "graph/plan.hpp"
#include "kernel/kernel.hpp"
#include "numpy_ref.hpp"

namespace ca {
namespace {

using test::Npy;

// ---- helpers -------------------------------------------------------------------------------------

/// Compute any array (unknown chunk sizes: persisted first, which fixes the sizes). 0-d results
/// get shape (1,), as run_numpy's np.ascontiguousarray gives.
Npy compute(ArrayPtr a) {
  auto &rt = test::Runtime::get();
  if (!chunks_known(a->chunks)) a = persist(rt.ex, rt.reg, a, RunOptions{});
  Npy r = test::compute_npy(a);
  if (r.shape.empty()) r.shape = {1};
  return r;
}

Npy iota(const std::vector<Index> &shape, DType dt = CA_INT64) {
  Npy n;
  n.dtype = dt;
  n.shape = shape;
  Index size = n.size();
  n.data.resize(size_t(size) * dtype_size(dt));
  dispatch_dtype(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T *p = reinterpret_cast<T *>(n.data.data());
    for (Index i = 0; i < size; ++i) {
      if constexpr (std::is_same_v<T, bool>) p[i] = (i % 3) == 1;
      else p[i] = T(typename std::conditional_t<std::is_floating_point_v<T> || std::is_integral_v<T>, T, double>(i));
    }
  });
  return n;
}

ArrayPtr make(const Npy &n, const Chunks &c) { return test::array_from_npy(n, c); }

std::string py_chunks(const Chunks &c) {
  std::string s = chunks_str(c);
  return s == "()" ? "()" : s;
}

std::string py_shape(const std::vector<Index> &s) {
  std::string r = "(";
  for (size_t i = 0; i < s.size(); ++i) r += std::to_string(s[i]) + ",";
  return r + ")";
}

/// Parse a Python index expression ("1, ::-2, None, ..., [0, 3]") into index items.
std::vector<IndexItem> parse_index(const std::string &src) {
  std::vector<std::string> parts;
  int depth = 0;
  std::string cur;
  for (char c : src) {
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (c == ',' && depth == 0) {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) parts.push_back(cur);
  auto trim = [](std::string s) {
    size_t a = s.find_first_not_of(' '), b = s.find_last_not_of(' ');
    return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
  };
  std::vector<IndexItem> out;
  for (auto p : parts) {
    p = trim(p);
    if (p.empty() || p == "()") continue;
    if (p == "...") {
      out.push_back(IndexItem::ellipsis());
    } else if (p == "None") {
      out.push_back(IndexItem::newaxis());
    } else if (p[0] == '[') {
      IndexItem it;
      it.kind = p.find("True") != std::string::npos || p.find("False") != std::string::npos ? IndexItem::BoolList
                                                                                               : IndexItem::IntList;
      std::stringstream ss(p.substr(1, p.size() - 2));
      std::string tok;
      while (std::getline(ss, tok, ',')) {
        tok = trim(tok);
        if (tok.empty()) continue;
        if (tok == "True") it.list.push_back(1);
        else if (tok == "False") it.list.push_back(0);
        else it.list.push_back(std::stoll(tok));
      }
      out.push_back(it);
    } else if (p.find(':') != std::string::npos) {
      IndexItem it;
      std::vector<std::string> f;
      std::stringstream ss(p);
      std::string tok;
      while (std::getline(ss, tok, ':')) f.push_back(trim(tok));
      while (f.size() < 3) f.push_back("");
      if (!f[0].empty()) it.has_start = true, it.start = std::stoll(f[0]);
      if (!f[1].empty()) it.has_stop = true, it.stop = std::stoll(f[1]);
      if (!f[2].empty()) it.has_step = true, it.step = std::stoll(f[2]);
      out.push_back(it);
    } else {
      out.push_back(IndexItem::integer(std::stoll(p)));
    }
  }
  return out;
}

struct Case {
  std::vector<Index> shape;
  Chunks chunks;
  std::string index;
  bool dask_chunks = true;  // false where dask 2022.12's chunks are wrong (values still vs NumPy)
};

/// NumPy values and dask chunks of x[index] for x = arange(prod(shape)).reshape(shape) (int64).
/// Per case: [ok, ndim, shape..., values..., ndim, numblocks..., sizes...] (ok 0: NumPy raised).
std::vector<std::vector<int64_t>> reference(const std::vector<Case> &cases) {
  std::ostringstream py;
  py << "import dask.array as da\ncases = [\n";
  for (auto &c : cases) py << "  (" << py_shape(c.shape) << ", " << py_chunks(c.chunks) << ", '" << c.index << "'),\n";
  py << "]\nout = []\nfor shape, chunks, idx in cases:\n"
        "    x = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)\n"
        "    idx = idx if idx else '()'\n"
        "    try:\n"
        "        r = eval('x[' + idx + ']')\n"
        "    except IndexError:\n"
        "        out.append([0]); continue\n"
        "    d = eval('da.from_array(x, chunks=chunks)[' + idx + ']')\n"
        "    row = [1, r.ndim] + list(r.shape) + [int(v) for v in np.ravel(r)]\n"
        "    row += [len(d.chunks)] + [len(c) for c in d.chunks] + [-1 if v != v else int(v) for c in d.chunks for v in c]\n"
        "    out.append(row)\n"
        "flat = []\nfor row in out:\n    flat += [len(row)] + row\n"
        "result = np.array(flat, dtype=np.int64)\n";
  Npy r = test::run_numpy(py.str());
  std::vector<std::vector<int64_t>> rows;
  const int64_t *p = r.as<int64_t>();
  Index n = r.size(), i = 0;
  while (i < n) {
    Index len = p[i++];
    rows.emplace_back(p + i, p + i + len);
    i += len;
  }
  return rows;
}

void check_getitem_cases(const std::vector<Case> &cases) {
  auto refs = reference(cases);
  ASSERT_EQ(refs.size(), cases.size());
  for (size_t k = 0; k < cases.size(); ++k) {
    const Case &c = cases[k];
    const auto &ref = refs[k];
    std::string what = "x" + py_shape(c.shape) + " chunks " + chunks_str(c.chunks) + " [" + c.index + "]";
    Npy x = iota(c.shape);
    ArrayPtr a = make(x, c.chunks);
    if (ref[0] == 0) {
      EXPECT_THROW(getitem(a, parse_index(c.index)), Error) << what;
      continue;
    }
    ArrayPtr r;
    try {
      r = getitem(a, parse_index(c.index));
    } catch (const Error &e) {
      ADD_FAILURE() << what << ": " << e.what();
      continue;
    }
    size_t i = 1;
    Index nd = ref[i++];
    std::vector<Index> shape(ref.begin() + long(i), ref.begin() + long(i + size_t(nd)));
    i += size_t(nd);
    Index size = 1;
    for (Index s : shape) size *= s;
    std::vector<int64_t> vals(ref.begin() + long(i), ref.begin() + long(i + size_t(size)));
    i += size_t(size);
    Index cnd = ref[i++];
    Chunks want(static_cast<size_t>(cnd));
    std::vector<Index> nbs(ref.begin() + long(i), ref.begin() + long(i + size_t(cnd)));
    i += size_t(cnd);
    for (Index d = 0; d < cnd; ++d)
      for (Index b = 0; b < nbs[size_t(d)]; ++b) want[size_t(d)].push_back(ref[i++]);
    EXPECT_EQ(r->shape, shape) << what;
    if (c.dask_chunks) {
      EXPECT_EQ(chunks_str(r->chunks), chunks_str(want)) << what << " (dask's chunks)";
    }
    Npy got = compute(r);
    ASSERT_EQ(got.size(), size) << what;
    std::vector<int64_t> gv(got.as<int64_t>(), got.as<int64_t>() + got.size());
    EXPECT_EQ(gv, vals) << what;
  }
}

/// Number of tasks the plan for all of a's blocks runs (culled).
int64_t plan_tasks(const ArrayPtr &a) {
  std::vector<std::vector<Index>> keys;
  Index n = a->nblocks();
  for (Index lin = 0; lin < n; ++lin) {
    std::vector<Index> idx(static_cast<size_t>(a->ndim()));
    Index r = lin;
    for (int32_t d = a->ndim() - 1; d >= 0; --d) {
      idx[size_t(d)] = r % a->numblocks[size_t(d)];
      r /= a->numblocks[size_t(d)];
    }
    keys.push_back(idx);
  }
  std::vector<KeyRef> refs;
  for (auto &k : keys) refs.push_back({a->name.c_str(), k.data(), a->ndim()});
  auto plan = build_plan(*a->graph, refs.data(), refs.size(), &test::Runtime::get().reg);
  return plan->size();
}

ca_scalar_t int_scalar(int64_t v) {
  ca_scalar_t s{};
  s.kind = CA_INT64;
  s.i64 = v;
  s.re = double(v);
  return s;
}
ca_scalar_t float_scalar(double v) {
  ca_scalar_t s{};
  s.kind = CA_FLOAT64;
  s.re = v;
  return s;
}

// ---- _slice_1d ---------------------------------------------------------------------------------

TEST(Slice1d, MatchesDaskExamples) {
  // dask's docstring examples of _slice_1d.
  auto r = detail::slice_1d(100, {20, 20, 20, 20, 20}, 10, 50, 1);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].block, 0);
  EXPECT_EQ(r[0].start, 10);
  EXPECT_EQ(r[0].count, 10);
  EXPECT_EQ(r[2].block, 2);
  EXPECT_EQ(r[2].count, 10);
  // x[::-3] over (20,)*5 touches every block, counts ceil'd per block
  auto n = detail::slice_1d(100, {20, 20, 20, 20, 20}, 99, -1, -3);
  Index total = 0;
  for (auto &b : n) total += b.count;
  EXPECT_EQ(total, 34);
  // empty: x[:0] -> one empty piece of block 0
  auto e = detail::slice_1d(100, {20, 20, 20, 20, 20}, 0, 0, 1);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].count, 0);
}

// ---- basic indexing ------------------------------------------------------------------------------

TEST(Getitem, SlicesOneDimension) {
  Chunks c{{3, 3, 3, 1}};
  std::vector<Case> cases;
  for (const char *ix : {":", "2:7", "::2", "1::3", "::-1", "8:1:-2", "::-3", "-3:", "-100:100", "5:2", "7:7",
                         "20:30", "-1:-11:-1", "::4", "3:9:2", "9:2:-3", "0", "-1", "9", "::-100", "4:4:-1",
                         "100:-100:-1", "3", "-10"})
    cases.push_back({{10}, c, ix});
  cases.push_back({{10}, {{4, 0, 6}}, "2:8"});  // an empty block in the middle
  cases.push_back({{10}, {{4, 0, 6}}, "::-1"});
  cases.push_back({{10}, {{10}}, "::-2"});
  cases.push_back({{0}, {{0}}, ":"});
  cases.push_back({{0}, {{0}}, "::-1"});
  cases.push_back({{1}, {{1}}, "0"});
  cases.push_back({{1}, {{1}}, "::-1"});
  // Regressions: a start below -n with a negative step selects nothing; a negative-step start on
  // the boundary of an empty block.
  // dask 2022.12 gets these chunks wrong (((3, 3, 3),) for an empty selection, ((0,),) for 5
  // elements); the values are checked against NumPy.
  cases.push_back({{9}, {{3, 3, 3}}, "-11::-1", false});
  cases.push_back({{9}, {{4, 0, 5}}, "4::-1", false});
  cases.push_back({{9}, {{4, 0, 5}}, "4:0:-2", false});
  check_getitem_cases(cases);
}

TEST(Getitem, MultiDimensionalEllipsisNewaxis) {
  std::vector<Case> cases;
  Chunks c2{{2, 3, 1}, {4, 1}};
  for (const char *ix : {"1", "1, 2", "-1, -1", ":, 0", "::-1, ::2", "1:5, 3:0:-1", "None", "None, :, None",
                         "..., None", "..., 0", "0, ...", "2, None, ::-1", "..., ::-2, None", "None, ..., None, 1",
                         ":, :", "...", "", "4:6, 4:", "0:0, :", "::-1, ::-1", "5, 4", "[True, False, True, True, "
                         "False, True], 1"})
    cases.push_back({{6, 5}, c2, ix});
  Chunks c3{{2, 2}, {1, 2, 2}, {3, 3, 1}};
  for (const char *ix : {"1, 2, 3", "..., 1", "1, ...", ":, None, ::-2, 4:", "::-1, 1:4, ::3", "0, ..., None",
                         "None, None, 1, 2", "-1, -1, -1", ":, 4, :", "..., 6:", "3, 0:3:2, -2:"})
    cases.push_back({{4, 5, 7}, c3, ix});
  cases.push_back({{}, {}, ""});
  cases.push_back({{}, {}, "None"});
  cases.push_back({{}, {}, "..."});
  check_getitem_cases(cases);
}

TEST(Getitem, IntegerLists) {
  std::vector<Case> cases;
  Chunks c{{3, 3, 3, 1}};
  for (const char *ix : {"[0, 5, 1]", "[9, 8, 7, 0]", "[1, 1, 1, 4, 4, 2]", "[-1, -10, 3]", "[]", "[0, 1, 2]",
                         "[3, 4, 5, 6, 7, 8, 9]", "[True, False, True, True, False, False, False, False, False, True]"})
    cases.push_back({{10}, c, ix});
  Chunks c2{{2, 3, 1}, {4, 1}};
  for (const char *ix : {"[5, 0, 2], :", ":, [4, 0, 0]", "1, [3, 1]", "::-1, [0, 4]", "None, [2, 2], 1:",
                         "..., [1, 0]", "[0, 2, 4], ::2"})
    cases.push_back({{6, 5}, c2, ix});
  check_getitem_cases(cases);
}

TEST(Getitem, OutOfBoundsAndErrorsMatchNumPy) {
  std::vector<Case> cases;
  for (const char *ix : {"10", "-11", "[0, 10]", "[-11]"}) cases.push_back({{10}, {{4, 6}}, ix});
  cases.push_back({{6, 5}, {{3, 3}, {5}}, "0, 5"});
  check_getitem_cases(cases);  // NumPy raises IndexError: so must we

  ArrayPtr a = make(iota({10}), {{4, 6}});
  try {
    getitem(a, {IndexItem::integer(10)});
    FAIL();
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), CA_EINVAL);
    EXPECT_NE(std::string(e.what()).find("index 10 is out of bounds for axis 0 with size 10"), std::string::npos)
        << e.what();
  }
  try {
    getitem(a, {IndexItem::integer(0), IndexItem::integer(0)});
    FAIL();
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("too many indices for array: array is 1-dimensional, but 2 were indexed"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(getitem(a, {IndexItem::ellipsis(), IndexItem::ellipsis()}), Error);
  EXPECT_THROW(getitem(a, {IndexItem::slice(0, 5, 0)}), Error);
  EXPECT_THROW(getitem(a, {IndexItem::slice(0, 5, INT64_MIN)}), Error);
  // extreme bounds clamp as in Python
  test::expect_equal(compute(getitem(a, {IndexItem::slice(INT64_MIN, INT64_MAX, INT64_MAX)})),
                     test::run_numpy("result = np.arange(10)[::2**63 - 1]"));
  test::expect_equal(compute(getitem(a, {IndexItem::slice(INT64_MAX, INT64_MIN, -INT64_MAX)})),
                     test::run_numpy("result = np.arange(10)[2**63-1:-2**63:-(2**63 - 1)]"));
  ArrayPtr b = make(iota({4, 4}), {{2, 2}, {2, 2}});
  try {
    getitem(b, {IndexItem::ints({0, 1}), IndexItem::ints({1, 2})});
    FAIL();
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("vindex"), std::string::npos) << e.what();
  }
  try {
    getitem(b, {IndexItem::all(), IndexItem::ints({0, 7})});
    FAIL();
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("index 7 is out of bounds for axis 1 with size 4"), std::string::npos)
        << e.what();
  }
}

TEST(Getitem, DtypesAndSharing) {
  for (DType dt : {CA_BOOL, CA_INT8, CA_UINT16, CA_FLOAT32, CA_FLOAT64, CA_COMPLEX128}) {
    Npy x = iota({7, 5}, dt);
    ArrayPtr a = make(x, {{3, 4}, {2, 3}});
    ArrayPtr r = getitem(a, parse_index("::-2, 1:4"));
    EXPECT_EQ(r->dtype, dt);
    Npy want = test::run_numpy("result = x[::-2, 1:4]", {{"x", x}});
    test::expect_equal(compute(r), want, std::string("dtype ") + dtype_name(dt));
  }
  // x[:] and x[...] are x itself; names are deterministic
  ArrayPtr a = make(iota({7, 5}), {{3, 4}, {2, 3}});
  EXPECT_EQ(getitem(a, parse_index(":"))->name, a->name);
  EXPECT_EQ(getitem(a, parse_index("..."))->name, a->name);
  EXPECT_EQ(getitem(a, parse_index("1:3"))->name, getitem(a, parse_index("1:3"))->name);
  EXPECT_NE(getitem(a, parse_index("1:3"))->name, getitem(a, parse_index("1:4"))->name);
}

TEST(Getitem, OnlyNeededBlocksAreComputed) {
  // 10 x 10 blocks of 10 x 10; x[15:25, 3] needs blocks (1, 0) and (2, 0) only.
  ArrayPtr a = make(iota({100, 100}), {std::vector<Index>(10, 10), std::vector<Index>(10, 10)});
  ArrayPtr r = getitem(a, parse_index("15:25, 3"));
  EXPECT_EQ(chunks_str(r->chunks), "((5, 5),)");
  EXPECT_EQ(plan_tasks(r), 4);  // 2 data blocks + 2 getitem tasks
  ArrayPtr e = getitem(a, parse_index("55, 55"));
  EXPECT_EQ(e->ndim(), 0);
  EXPECT_EQ(plan_tasks(e), 2);
  Npy v = compute(e);
  EXPECT_EQ(v.as<int64_t>()[0], 5555);
  // the layer's tasks reference only those blocks
  const Layer *l = r->graph->find(r->name);
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(l->num_tasks(), 2);
  // a reversed full slice touches every block once
  ArrayPtr rev = getitem(a, parse_index("::-1"));
  EXPECT_EQ(plan_tasks(rev), 200);
  // take touches only the blocks holding indices
  ArrayPtr t = take(a, {5, 95, 7}, 0);
  EXPECT_EQ(chunks_str(t->chunks).substr(0, 12), "((1, 1, 1), ");
  EXPECT_EQ(plan_tasks(t), 3 * 10 + 2 * 10);
}

TEST(Getitem, NoLeaks) {
  int64_t before = block_live_count();
  {
    ArrayPtr a = make(iota({20, 7}), {{6, 6, 8}, {3, 4}});
    Npy r1 = compute(getitem(a, parse_index("::-3, None, 2:")));
    Npy r2 = compute(take(a, {3, 19, 0, 0}, 0));
    std::vector<Index> pts{1, 19};
    Npy r3 = compute(vindex(a, {&pts, nullptr}));
  }
  EXPECT_EQ(block_live_count(), before);
}

TEST(Take, IndexArrays) {
  Npy x = iota({9, 4}, CA_FLOAT64);
  ArrayPtr a = make(x, {{2, 4, 3}, {3, 1}});
  Npy iv = test::run_numpy("result = np.array([8, 0, -1, 3, 3, 2, 7], dtype=np.int32)");
  ArrayPtr ia = make(iv, {{3, 4}});
  ArrayPtr r = take_array(a, ia, 0);
  EXPECT_EQ(chunks_str(r->chunks), "((3, 4), (3, 1))");
  test::expect_equal(compute(r), test::run_numpy("result = x[i]", {{"x", x}, {"i", iv}}));
  Npy jv = test::run_numpy("result = np.array([3, 0, 0], dtype=np.uint8)");
  test::expect_equal(compute(take_array(a, make(jv, {{1, 2}}), -1)),
                     test::run_numpy("result = x[:, j]", {{"x", x}, {"j", jv}}));
  // indices from a mask: unknown sizes pass through
  ArrayPtr big = make(iota({9}, CA_INT64), {{5, 4}});
  ArrayPtr sel = mask_select(big, elementwise_scalar(CA_OP_GT, big, int_scalar(5), false));
  ArrayPtr t = take_array(a, sel, 0);
  EXPECT_EQ(chunks_str(t->chunks), "((nan, nan), (3, 1))");
  test::expect_equal(compute(t), test::run_numpy("result = x[6:]", {{"x", x}}));
  // out of bounds fails the compute, naming the index
  Npy bad = test::run_numpy("result = np.array([1, 9])");
  try {
    compute(take_array(a, make(bad, {{2}}), 0));
    ADD_FAILURE() << "no error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("index 9 is out of bounds for axis 0 with size 9"), std::string::npos)
        << e.what();
  }
  // through getitem: x[1:, idx] with other axes sliced first
  IndexItem ii;
  ii.kind = IndexItem::IntArray;
  ii.array = make(jv, {{1, 2}});
  test::expect_equal(compute(getitem(a, {IndexItem::slice(1, 9, 2), ii})),
                     test::run_numpy("result = x[1:9:2, j]", {{"x", x}, {"j", jv}}));
  EXPECT_THROW(take_array(a, a, 0), Error);
  EXPECT_THROW(take_array(a, ia, 2), Error);
}

// ---- boolean masks and unknown chunk sizes -------------------------------------------------------

TEST(Mask, SelectMatchesNumPyAndDaskChunks) {
  Npy x = iota({7, 6}, CA_FLOAT64);
  ArrayPtr a = make(x, {{3, 4}, {2, 2, 2}});
  ArrayPtr m = elementwise_scalar(CA_OP_GT, elementwise_scalar(CA_OP_MOD, a, int_scalar(3), false), int_scalar(0),
                                  false);
  ArrayPtr r = getitem(a, {[&] {
    IndexItem it;
    it.kind = IndexItem::BoolArray;
    it.array = m;
    return it;
  }()});
  EXPECT_EQ(r->ndim(), 1);
  EXPECT_EQ(r->shape[0], kUnknownChunk);
  EXPECT_EQ(r->size(), kUnknownChunk);
  // dask's ravel rechunks to ((1, 1, 1, 1, 1, 2), (6,)): six blocks
  EXPECT_EQ(chunks_str(r->chunks), "((nan, nan, nan, nan, nan, nan),)");
  Npy want = test::run_numpy("result = x[x % 3 > 0]", {{"x", x}});
  test::expect_equal(compute(r), want);
  // masks producing empty blocks, and a mask chunked differently from x
  ArrayPtr m2 = make(test::run_numpy("result = np.arange(42).reshape(7, 6) >= 40"), {{7}, {6}});
  ArrayPtr r2 = mask_select(a, m2);
  EXPECT_EQ(r2->numblocks[0], 6);  // dask 2022.12 gives ((nan,) * 6,) too
  // 3-d: dask's ravel gives ((1, 1, 1), (4,), (5,)) for ((1, 2), (2, 2), (5,)); blocks of 1 move as they are
  Npy x3 = iota({3, 4, 5}, CA_INT16);
  ArrayPtr a3 = make(x3, {{1, 2}, {2, 2}, {5}});
  ArrayPtr r3 = mask_select(a3, elementwise_scalar(CA_OP_GT, elementwise_scalar(CA_OP_MOD, a3, int_scalar(7), false),
                                                   int_scalar(2), false));
  EXPECT_EQ(r3->numblocks[0], 3);
  test::expect_equal(compute(r3), test::run_numpy("result = x[x % 7 > 2]", {{"x", x3}}));
  for (auto &cs : {std::pair<Chunks, Index>{{{1, 1, 1}, {3, 1}, {2, 3}}, 3},
                   std::pair<Chunks, Index>{{{1, 1, 1}, {1, 1, 1, 1}, {2, 3}}, 24},  // blocks of 1: nothing moves
                   std::pair<Chunks, Index>{{{2, 1}, {1, 3}, {4, 1}}, 3}}) {       // numbers from dask 2022.12
    ArrayPtr a4 = make(x3, cs.first);
    ArrayPtr r4 = mask_select(a4, elementwise_scalar(CA_OP_GT, a4, int_scalar(30), false));
    EXPECT_EQ(r4->numblocks[0], cs.second) << chunks_str(cs.first);
    test::expect_equal(compute(r4), test::run_numpy("result = x[x > 30]", {{"x", x3}}));
  }
  test::expect_equal(compute(r2), test::run_numpy("result = x[np.arange(42).reshape(7, 6) >= 40]", {{"x", x}}));
  ArrayPtr none = mask_select(a, elementwise_scalar(CA_OP_GT, a, int_scalar(1000), false));
  Npy n = compute(none);
  EXPECT_EQ(n.shape, std::vector<Index>{0});
  // reductions of an empty selection: sum 0, mean NaN, min/max fail at compute as NumPy's
  EXPECT_EQ(compute(reduce(CA_RED_SUM, none, {}, false, 0, 0, 0)).as<double>()[0], 0.0);
  EXPECT_TRUE(std::isnan(compute(reduce(CA_RED_MEAN, none, {}, false, 0, 0, 0)).as<double>()[0]));
  try {
    compute(reduce(CA_RED_MIN, none, {}, false, 0, 0, 0));
    ADD_FAILURE() << "min of an empty selection did not fail";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("zero-size array to reduction operation minimum"), std::string::npos)
        << e.what();
  }
}

TEST(Mask, ReductionsAndElementwiseOnUnknownChunks) {
  Npy x = test::run_numpy("result = np.random.default_rng(1).normal(size=(9, 8))");
  ArrayPtr a = make(x, {{4, 4, 1}, {3, 5}});
  ArrayPtr pos = mask_select(a, elementwise_scalar(CA_OP_GT, a, int_scalar(0), false));
  auto sum = reduce(CA_RED_SUM, pos, {}, false, 0, 0, 0);
  auto mean = reduce(CA_RED_MEAN, pos, {}, false, 0, 0, 0);
  auto mx = reduce(CA_RED_MAX, pos, {}, false, 0, 0, 0);
  auto cnt = reduce(CA_RED_SUM, elementwise_astype(elementwise_scalar(CA_OP_GT, pos, int_scalar(1), false), CA_INT64),
                    {}, false, 0, 0, 0);
  test::expect_close(compute(sum), test::run_numpy("result = x[x > 0].sum()", {{"x", x}}), 1e-12);
  test::expect_close(compute(mean), test::run_numpy("result = x[x > 0].mean()", {{"x", x}}), 1e-12);
  test::expect_close(compute(mx), test::run_numpy("result = x[x > 0].max()", {{"x", x}}));
  test::expect_equal(compute(cnt), test::run_numpy("result = np.int64((x[x > 0] > 1).sum())", {{"x", x}}));
  // elementwise ops keep the unknown chunks and fuse
  ArrayPtr y = elementwise_unary(CA_OP_SQRT, elementwise_scalar(CA_OP_ADD, pos, float_scalar(1.0), false));
  EXPECT_EQ(chunks_str(y->chunks), chunks_str(pos->chunks));
  test::expect_close(compute(y), test::run_numpy("result = np.sqrt(x[x > 0] + 1)", {{"x", x}}), 1e-15);
  ArrayPtr z = elementwise_binary(CA_OP_MUL, pos, pos);
  test::expect_close(compute(z), test::run_numpy("result = x[x > 0] ** 2", {{"x", x}}), 1e-15);
  test::expect_close(compute(reduce(CA_RED_VAR, pos, {}, false, 0, 0, 0)),
                     test::run_numpy("result = x[x > 0].var()", {{"x", x}}), 1e-12);
  // a 1-d mask along an axis: unknown along that axis only, reductions over the other axis
  ArrayPtr col = make(test::run_numpy("result = np.array([True, False, True, True, False, True, False, True])"),
                      {{5, 3}});
  ArrayPtr sel = mask_select_axis(a, col, 1);
  EXPECT_EQ(chunks_str(sel->chunks), "((4, 4, 1), (nan, nan, nan))");  // mask (5, 3) unified with (3, 5)
  Npy xs = test::run_numpy("result = x[:, np.array([1,0,1,1,0,1,0,1], bool)]", {{"x", x}});
  test::expect_equal(compute(sel), xs);
  test::expect_close(compute(reduce(CA_RED_SUM, sel, {1}, false, 0, 0, 0)),
                     test::run_numpy("result = x[:, np.array([1,0,1,1,0,1,0,1], bool)].sum(axis=1)", {{"x", x}}),
                     1e-12);
  test::expect_close(compute(reduce(CA_RED_MEAN, sel, {0}, true, 0, 0, 0)),
                     test::run_numpy("result = x[:, np.array([1,0,1,1,0,1,0,1], bool)].mean(axis=0, keepdims=True)",
                                     {{"x", x}}),
                     1e-12);
  // slicing an unknown axis with ':' works; a full slice of the other axis too
  test::expect_equal(compute(getitem(sel, parse_index("1:3, :"))), test::run_numpy("result = xs[1:3]", {{"xs", xs}}));
}

TEST(Mask, UnknownChunkMisuseFailsClearly) {
  ArrayPtr a = make(iota({10}, CA_FLOAT64), {{4, 6}});
  ArrayPtr r = mask_select(a, elementwise_scalar(CA_OP_GT, a, int_scalar(3), false));
  auto expect_msg = [](const std::function<void()> &f, const std::string &needle) {
    try {
      f();
      ADD_FAILURE() << "no error, expected: " << needle;
    } catch (const Error &e) {
      EXPECT_EQ(e.code(), CA_EINVAL);
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  const std::string msg = "chunk sizes are unknown along axis 0; call ca_array_compute_chunk_sizes";
  expect_msg([&] { getitem(r, {IndexItem::integer(0)}); }, "chunk sizes are unknown along axis 0");
  expect_msg([&] { getitem(r, {IndexItem::slice(0, 2)}); }, "chunk sizes are unknown along axis 0");
  expect_msg([&] { take(r, {0}, 0); }, msg);
  expect_msg([&] { rechunk(r, {{3}}); }, msg);
  expect_msg([&] { reduce(CA_RED_ARGMAX, r, {}, false, 0, 0, 0); }, msg);
  // scans follow block indices: they work on unknown sizes, as in dask (issue 14)
  test::expect_equal(compute(scan(CA_SCAN_CUMSUM, r, 0, 0)),
                     test::run_numpy("result = np.cumsum(x[x > 3])", {{"x", iota({10}, CA_FLOAT64)}}));
  std::vector<Index> zero{0};
  expect_msg([&] { vindex(r, {&zero}); }, msg);
  expect_msg([&] { setitem_scalar(r, {IndexItem::slice(0, 1)}, int_scalar(1)); }, msg);
  expect_msg([&] { array_to_svg(*r, 100); }, msg);
  expect_msg([&] { elementwise_binary(CA_OP_ADD, r, a); }, "could not be broadcast");
  expect_msg(
      [&] {
        std::vector<double> buf(10);
        compute_into(test::Runtime::get().ex, test::Runtime::get().reg, {r}, {buf.data()}, RunOptions{});
      },
      msg);
  // mismatched masks
  ArrayPtr b = make(iota({4, 5}, CA_FLOAT64), {{2, 2}, {5}});
  expect_msg([&] { mask_select(b, make(iota({4, 4}, CA_BOOL), {{4}, {4}})); },
             "boolean index did not match indexed array: array shape (4, 5), mask shape (4, 4)");
  expect_msg([&] { mask_select(b, b); }, "must be a boolean array, got float64");
  expect_msg([&] { mask_select_axis(b, make(iota({4}, CA_BOOL), {{4}}), 1); },
             "size of axis is 5 but size of corresponding boolean axis is 4");
}

TEST(Mask, ComputeChunkSizesThenFurtherOps) {
  Npy x = iota({13}, CA_FLOAT64);
  ArrayPtr a = make(x, {{5, 5, 3}});
  ArrayPtr r = mask_select(a, elementwise_scalar(CA_OP_EQ, elementwise_scalar(CA_OP_MOD, a, int_scalar(4), false),
                                                 int_scalar(1), false));
  auto &rt = test::Runtime::get();
  int64_t before = block_live_count();
  ArrayPtr k = compute_chunk_sizes(rt.ex, rt.reg, r, RunOptions{});
  EXPECT_EQ(block_live_count(), before);  // only shapes were kept
  EXPECT_EQ(k->name, r->name);
  EXPECT_EQ(chunks_str(k->chunks), "((1, 2, 0),)");  // values 1 | 5, 9 | none
  EXPECT_EQ(k->shape, std::vector<Index>{3});
  Npy want = test::run_numpy("result = x[x % 4 == 1]", {{"x", x}});
  test::expect_equal(test::compute_npy(k), want);
  test::expect_equal(compute(getitem(k, parse_index("::-1"))), test::run_numpy("result = x[x % 4 == 1][::-1]", {{"x", x}}));
  test::expect_equal(compute(take(k, {2, 0}, 0)), test::run_numpy("result = x[x % 4 == 1][[2, 0]]", {{"x", x}}));
  test::expect_equal(compute(rechunk(k, {{3}})), want);
  // persist of an unknown-size array fixes its chunks too
  ArrayPtr p = persist(rt.ex, rt.reg, r, RunOptions{});
  EXPECT_EQ(chunks_str(p->chunks), chunks_str(k->chunks));
}

// ---- vindex --------------------------------------------------------------------------------------

TEST(Vindex, PointsMatchNumPy) {
  Npy x = iota({6, 7, 3}, CA_FLOAT32);
  ArrayPtr a = make(x, {{2, 4}, {3, 3, 1}, {2, 1}});
  std::vector<Index> i0{0, 5, 2, 2, -1}, i1{1, 6, 0, 3, 3}, i2{2, 0, 1, 1, -3};
  test::expect_equal(compute(vindex(a, {&i0, &i1, &i2})),
                     test::run_numpy("result = x[[0, 5, 2, 2, -1], [1, 6, 0, 3, 3], [2, 0, 1, 1, -3]]", {{"x", x}}));
  ArrayPtr v2 = vindex(a, {&i0, &i1});
  EXPECT_EQ(chunks_str(v2->chunks), "((5,), (2, 1))");
  test::expect_equal(compute(v2), test::run_numpy("result = x[[0, 5, 2, 2, -1], [1, 6, 0, 3, 3]]", {{"x", x}}));
  // a whole axis between indexed ones: dask puts the points first
  test::expect_equal(compute(vindex(a, {&i0, nullptr, &i2})),
                     test::run_numpy("result = np.moveaxis(x[[0, 5, 2, 2, -1], :, [2, 0, 1, 1, -3]], 0, 0)",
                                     {{"x", x}}));
  std::vector<Index> empty;
  Npy e = compute(vindex(a, {&empty, &empty, &empty}));
  EXPECT_EQ(e.shape, std::vector<Index>{0});
  std::vector<Index> bad{6};
  EXPECT_THROW(vindex(a, {&bad}), Error);
  std::vector<Index> two{0, 1};
  EXPECT_THROW(vindex(a, {&i0, &two}), Error);
}

// ---- advanced indexing (getitem_advanced) -------------------------------------------------------

IndexItem nd_ints(std::vector<Index> v, std::vector<Index> shape) {
  IndexItem r = IndexItem::ints(std::move(v));
  r.has_list_shape = true;
  r.list_shape = std::move(shape);
  return r;
}

TEST(AdvancedIndex, NumPyAxisOrderAndBroadcasting) {
  Npy x = iota({7, 9, 5}, CA_FLOAT64);
  ArrayPtr a = make(x, {{3, 1, 3}, {4, 0, 4, 1}, {2, 3}});
  // adjacent arrays after a slice: the broadcast dimension stays at position 1
  test::expect_equal(compute(getitem_advanced(a, {IndexItem::all(), IndexItem::ints({0, 3, 3, -1}),
                                                  IndexItem::ints({1, 0, 4, 2})}, IndexMode::NumPy)),
                     test::run_numpy("result = x[:, [0, 3, 3, -1], [1, 0, 4, 2]]", {{"x", x}}));
  // separated by a slice: the broadcast dimension goes first
  ArrayPtr sep = getitem_advanced(a, {IndexItem::ints({0, 6}), IndexItem::all(), IndexItem::ints({1, 4})},
                                  IndexMode::NumPy);
  EXPECT_EQ(sep->shape, (std::vector<Index>{2, 9}));
  test::expect_equal(compute(sep), test::run_numpy("result = x[[0, 6], :, [1, 4]]", {{"x", x}}));
  // an integer counts as advanced: x[0, :, [1, 4, 2]] has shape (3, 9)
  ArrayPtr ia = getitem_advanced(a, {IndexItem::integer(0), IndexItem::all(), IndexItem::ints({1, 4, 2})},
                                 IndexMode::NumPy);
  EXPECT_EQ(ia->shape, (std::vector<Index>{3, 9}));
  test::expect_equal(compute(ia), test::run_numpy("result = x[0, :, [1, 4, 2]]", {{"x", x}}));
  // 2-d arrays broadcasting to (2, 2), then a whole axis
  test::expect_equal(compute(getitem_advanced(a, {nd_ints({0, 1, 5, 6}, {2, 2}), nd_ints({2, 7}, {2, 1})},
                                              IndexMode::NumPy)),
                     test::run_numpy("result = x[[[0, 1], [5, 6]], [[2], [7]]]", {{"x", x}}));
  // a 2-d boolean mask over the first two axes
  IndexItem m;
  m.kind = IndexItem::BoolList;
  for (Index i = 0; i < 63; ++i) m.list.push_back((i * 7) % 3 == 0);
  m.has_list_shape = true;
  m.list_shape = {7, 9};
  test::expect_equal(compute(getitem_advanced(a, {m}, IndexMode::NumPy)),
                     test::run_numpy("result = x[(np.arange(63).reshape(7, 9) * 7) % 3 == 0]", {{"x", x}}));
  // empty broadcast
  Npy e = compute(getitem_advanced(a, {nd_ints({}, {0, 3}), IndexItem::all(), nd_ints({0, 1, 2}, {1, 3})},
                                   IndexMode::NumPy));
  EXPECT_EQ(e.shape, (std::vector<Index>{0, 3, 9}));
}

TEST(AdvancedIndex, VindexOindexAndErrors) {
  Npy x = iota({7, 9, 5}, CA_INT32);
  ArrayPtr a = make(x, {{3, 1, 3}, {4, 0, 4, 1}, {2, 3}});
  // vindex: the point dimensions always first
  test::expect_equal(compute(getitem_advanced(a, {IndexItem::all(), IndexItem::ints({0, 3, 8}),
                                                  IndexItem::ints({1, 0, 4})}, IndexMode::Vectorized)),
                     test::run_numpy("result = np.moveaxis(x[:, [0, 3, 8], [1, 0, 4]], 1, 0)", {{"x", x}}));
  // outer: each array on its own axis
  test::expect_equal(compute(getitem_advanced(a, {IndexItem::ints({6, 0, 0}), IndexItem::slice(1, 8, 3),
                                                  IndexItem::ints({4, 1})}, IndexMode::Outer)),
                     test::run_numpy("result = x[np.ix_([6, 0, 0], np.arange(1, 8, 3), [4, 1])]", {{"x", x}}));
  auto expect_msg = [](const std::function<void()> &f, const std::string &needle) {
    try {
      f();
      ADD_FAILURE() << "no error, expected " << needle;
    } catch (const Error &e) {
      EXPECT_EQ(e.code(), CA_EINVAL);
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_msg([&] { getitem_advanced(a, {IndexItem::ints({0, 7}), IndexItem::ints({1, 1})}, IndexMode::NumPy); },
             "index 7 is out of bounds for axis 0 with size 7");
  expect_msg([&] { getitem_advanced(a, {IndexItem::ints({0, 1}), IndexItem::all(), IndexItem::ints({1, -6})},
                                    IndexMode::NumPy); },
             "index -6 is out of bounds for axis 2 with size 5");
  expect_msg([&] { getitem_advanced(a, {IndexItem::ints({0, 1}), IndexItem::ints({1, 2, 3})}, IndexMode::NumPy); },
             "shape mismatch: indexing arrays could not be broadcast together with shapes (2,) (3,)");
  expect_msg([&] { getitem_advanced(a, {nd_ints({0, 1}, {1, 2})}, IndexMode::Outer); },
             "outer indexing takes 1-d arrays");
  expect_msg([&] { getitem_advanced(a, {IndexItem::newaxis(), IndexItem::ints({0})}, IndexMode::Vectorized); },
             "vindex does not support indexing with None");
  expect_msg([&] { getitem_advanced(a, {nd_ints({0, 1, 2}, {2, 2})}, IndexMode::NumPy); },
             "has shape (2, 2) but 3 values");
}

TEST(AdvancedIndex, PointBlocksAreBoundedAndGroupedPerInputBlock) {
  Npy x = iota({20, 10}, CA_INT64);
  ArrayPtr a = make(x, {{4, 4, 4, 4, 4}, {3, 3, 3, 1}});
  std::vector<Index> i, j;
  for (Index p = 0; p < 100; ++p) {
    i.push_back(p % 20);
    j.push_back((p * 7) % 10);
  }
  ArrayPtr r = vindex(a, {&i, &j});
  EXPECT_EQ(chunks_str(r->chunks), "((12, 12, 12, 12, 12, 12, 12, 12, 4),)");
  Npy got = compute(r);
  const int64_t *g = reinterpret_cast<const int64_t *>(got.data.data());
  for (size_t p = 0; p < 100; ++p) EXPECT_EQ(g[p], i[p] * 10 + j[p]);
}

// ---- setitem -------------------------------------------------------------------------------------

TEST(Setitem, RegionsScalarsAndArrays) {
  Npy x = iota({7, 6}, CA_FLOAT64);
  ArrayPtr a = make(x, {{3, 4}, {2, 2, 2}});
  struct SCase {
    const char *index;
    double value;
  };
  for (SCase c : {SCase{"2:5", -1.0}, SCase{"::-2, 1", -2.5}, SCase{"..., 5", 7.0}, SCase{"3", 0.0},
                  SCase{"-1, -1", 9.0}, SCase{"1:6:2, ::-3", 4.0}, SCase{"4:2", 1.0}}) {
    ArrayPtr r = setitem_scalar(a, parse_index(c.index), float_scalar(c.value));
    std::ostringstream py;
    py << "x = x.copy()\nx[" << c.index << "] = " << c.value << "\nresult = x";
    test::expect_equal(compute(r), test::run_numpy(py.str(), {{"x", x}}), c.index);
  }
  test::expect_equal(compute(setitem_scalar(a, {IndexItem::slice(1, INT64_MAX, INT64_MAX)}, float_scalar(-3))),
                     test::run_numpy("x = x.copy()\nx[1::2**63-1] = -3\nresult = x", {{"x", x}}));
  test::expect_equal(compute(setitem_scalar(a, {IndexItem::all(), IndexItem::slice(-1, INT64_MIN, -INT64_MAX)},
                                            float_scalar(-3))),
                     test::run_numpy("x = x.copy()\nx[:, -1::-(2**63-1)] = -3\nresult = x", {{"x", x}}));
  // input unchanged
  test::expect_equal(compute(a), x);
  // an array value, broadcast and chunked differently
  Npy y = test::run_numpy("result = -np.arange(12.0).reshape(3, 4)");
  ArrayPtr ya = make(y, {{1, 2}, {3, 1}});
  ArrayPtr r = setitem(a, parse_index("2:5, 1:5"), ya);
  test::expect_equal(compute(r), test::run_numpy("x = x.copy()\nx[2:5, 1:5] = y\nresult = x", {{"x", x}, {"y", y}}));
  ArrayPtr r2 = setitem(a, parse_index("::-2, 1:5"), getitem(ya, parse_index("1")));  // (4,) broadcast over rows
  test::expect_equal(compute(r2),
                     test::run_numpy("x = x.copy()\nx[::-2, 1:5] = y[1]\nresult = x", {{"x", x}, {"y", y}}));
  ArrayPtr col = getitem(ya, parse_index(":, 0:1"));  // (3, 1) broadcast along columns
  test::expect_equal(compute(setitem(a, parse_index("4:1:-1, :"), col)),
                     test::run_numpy("x = x.copy()\nx[4:1:-1, :] = y[:, 0:1]\nresult = x", {{"x", x}, {"y", y}}));
  // int values into a float array, float values into an int array (truncation, as NumPy)
  Npy xi = iota({7, 6});
  ArrayPtr ai = make(xi, {{3, 4}, {2, 2, 2}});
  test::expect_equal(compute(setitem(ai, parse_index("2:5, 1:5"), ya)),
                     test::run_numpy("x = x.copy()\nx[2:5, 1:5] = y\nresult = x", {{"x", xi}, {"y", y}}));
  test::expect_equal(compute(setitem_scalar(ai, parse_index("0"), float_scalar(2.7))),
                     test::run_numpy("x = x.copy()\nx[0] = 2.7\nresult = x", {{"x", xi}}));
  // one integer (or boolean) list: unsorted, negative, repeated (the last value wins, as NumPy)
  test::expect_equal(compute(setitem_scalar(a, parse_index("[5, 0, -1, 5]"), float_scalar(-4))),
                     test::run_numpy("x = x.copy()\nx[[5, 0, -1, 5]] = -4\nresult = x", {{"x", x}}));
  Npy w = test::run_numpy("result = -np.arange(1.0, 13.0).reshape(4, 3)");
  ArrayPtr wa = make(w, {{3, 1}, {2, 1}});
  test::expect_equal(compute(setitem(a, parse_index("[6, 1, 2, 1], 1:4"), wa)),
                     test::run_numpy("x = x.copy()\nx[[6, 1, 2, 1], 1:4] = w\nresult = x", {{"x", x}, {"w", w}}));
  test::expect_equal(compute(setitem(a, parse_index("::-3, [5, 0, 2]"), getitem(wa, parse_index("0")))),
                     test::run_numpy("x = x.copy()\nx[::-3, [5, 0, 2]] = w[0]\nresult = x", {{"x", x}, {"w", w}}));
  test::expect_equal(compute(setitem(a, parse_index("2, [True, False, True, True, False, False]"),
                                     getitem(wa, parse_index(":1, 0")))),
                     test::run_numpy("x = x.copy()\nx[2, [True, False, True, True, False, False]] = w[:1, 0]\n"
                                     "result = x",
                                     {{"x", x}, {"w", w}}));
  EXPECT_THROW(setitem_scalar(a, parse_index("[0, 7]"), float_scalar(1)), Error);
  EXPECT_THROW(setitem(a, parse_index("[0, 1]"), wa), Error);
  // only touched blocks are recomputed: untouched blocks are the input's (identity tasks)
  ArrayPtr one = setitem_scalar(a, parse_index("0, 0"), float_scalar(1));
  EXPECT_EQ(plan_tasks(one), 6 + 6);
  // errors
  EXPECT_THROW(setitem(a, parse_index("2:5, 1:5"), make(iota({3, 3}, CA_FLOAT64), {{3}, {3}})), Error);
  EXPECT_THROW(setitem_scalar(a, parse_index("7"), float_scalar(1)), Error);
  EXPECT_THROW(setitem_scalar(ai, parse_index("0"), float_scalar(NAN)), Error);
  EXPECT_THROW(setitem_scalar(a, parse_index("None"), float_scalar(1)), Error);
}

TEST(Setitem, MaskAssignment) {
  Npy x = iota({5, 6}, CA_INT32);
  ArrayPtr a = make(x, {{2, 3}, {4, 2}});
  ArrayPtr m = elementwise_scalar(CA_OP_EQ, elementwise_scalar(CA_OP_MOD, a, int_scalar(4), false), int_scalar(0),
                                  false);
  ArrayPtr r = mask_set(a, m, int_scalar(-7));
  EXPECT_EQ(r->dtype, CA_INT32);
  test::expect_equal(compute(r), test::run_numpy("x = x.copy()\nx[x % 4 == 0] = -7\nresult = x", {{"x", x}}));
  ArrayPtr rf = mask_set(a, m, float_scalar(2.9));
  EXPECT_EQ(rf->dtype, CA_INT32);
  test::expect_equal(compute(rf), test::run_numpy("x = x.copy()\nx[x % 4 == 0] = 2.9\nresult = x", {{"x", x}}));
  test::expect_equal(compute(a), x);
  EXPECT_THROW(mask_set(a, make(iota({5, 5}, CA_BOOL), {{5}, {5}}), int_scalar(1)), Error);
}

// ---- C API ---------------------------------------------------------------------------------------

struct CtxGuard {
  ca_context_t *ctx = nullptr;
  CtxGuard() { EXPECT_EQ(ca_context_new(&ctx, nullptr), CA_OK); }
  ~CtxGuard() { ca_context_free(ctx); }
};

ca_array_t *c_iota(int64_t n, int64_t block) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = double(i);
  ca_chunkset_t *cs = nullptr;
  ca_dimchunks_t spec{block, nullptr, 0};
  EXPECT_EQ(ca_normalize_chunks(&cs, nullptr, &spec, 1, &n, CA_FLOAT64, 0), CA_OK);
  ca_chunks_t view = ca_chunkset_view(cs);
  ca_array_t *a = nullptr;
  EXPECT_EQ(ca_array_from_buffer(&a, v.data(), CA_FLOAT64, 1, &n, &view, nullptr),
            CA_OK);
  ca_chunkset_free(cs);
  return a;
}

std::vector<double> c_values(ca_context_t *ctx, const ca_array_t *a) {
  ca_block_t *b = nullptr;
  EXPECT_EQ(ca_array_compute(&b, ctx, a, nullptr), CA_OK) << ca_last_error_message();
  if (!b) return {};
  const double *p = static_cast<const double *>(ca_block_data(b));
  std::vector<double> v(p, p + ca_block_size(b));
  ca_block_free(b);
  return v;
}

TEST(CApi, GetitemTakeMaskVindexSetitem) {
  CtxGuard g;
  ca_array_t *a = c_iota(10, 3);
  ca_index_t idx[1] = {CA_INDEX_SLICE_INIT};
  idx[0].slice.start = 8;
  idx[0].slice.flags |= CA_SLICE_START;
  idx[0].slice.step = -3;
  idx[0].slice.flags |= CA_SLICE_STEP;
  ca_array_t *r = nullptr;
  ASSERT_EQ(ca_array_getitem(&r, a, idx, 1), CA_OK) << ca_last_error_message();
  EXPECT_EQ(c_values(g.ctx, r), (std::vector<double>{8, 5, 2}));
  ca_array_free(r);

  int64_t ti[3] = {9, 0, -2};
  ASSERT_EQ(ca_array_take(&r, a, ti, 3, 0), CA_OK);
  EXPECT_EQ(c_values(g.ctx, r), (std::vector<double>{9, 0, 8}));
  ca_array_free(r);

  ca_array_t *mask = nullptr;
  ca_scalar_t five{};
  five.kind = CA_INT64;
  five.i64 = 5;
  five.re = 5;
  ASSERT_EQ(ca_array_binary_scalar(&mask, CA_OP_GE, a, five, false), CA_OK);
  ASSERT_EQ(ca_array_mask_select(&r, a, mask), CA_OK);
  int64_t n = 0;
  const int64_t *ch = ca_array_chunks(r, 0, &n);
  ASSERT_EQ(n, 4);
  EXPECT_EQ(ch[0], CA_CHUNK_UNKNOWN);
  EXPECT_EQ(ca_array_shape(r)[0], CA_CHUNK_UNKNOWN);
  EXPECT_EQ(ca_array_size(r), CA_CHUNK_UNKNOWN);
  EXPECT_EQ(ca_array_nbytes(r), CA_CHUNK_UNKNOWN);
  EXPECT_FALSE(ca_array_chunks_known(r));
  EXPECT_TRUE(ca_array_chunks_known(a));
  double buf[5];
  EXPECT_EQ(ca_array_compute_into(g.ctx, r, buf, sizeof buf, nullptr), CA_EINVAL);
  EXPECT_NE(std::string(ca_last_error_message()).find("chunk sizes are unknown along axis 0"), std::string::npos);
  char *svg = reinterpret_cast<char *>(1);
  EXPECT_EQ(ca_array_to_svg(&svg, r, 0), CA_EINVAL);
  EXPECT_EQ(svg, nullptr);
  EXPECT_EQ(c_values(g.ctx, r), (std::vector<double>{5, 6, 7, 8, 9}));  // compute works on unknown sizes
  ca_array_t *p = nullptr;
  ASSERT_EQ(ca_array_persist(&p, g.ctx, r, nullptr), CA_OK);
  EXPECT_TRUE(ca_array_chunks_known(p));
  ca_array_free(p);
  ca_array_t *ta = nullptr;
  EXPECT_EQ(ca_array_take_array(&ta, a, r, 0), CA_EINVAL);  // float indices
  EXPECT_NE(std::string(ca_last_error_message()).find("integer dtype, got float64"), std::string::npos);
  ca_array_t *s = nullptr;
  ASSERT_EQ(ca_array_reduce(&s, CA_RED_SUM, r, nullptr, 0, false, nullptr), CA_OK);
  EXPECT_EQ(c_values(g.ctx, s), (std::vector<double>{35}));
  ca_array_free(s);
  ca_array_t *k = nullptr;
  ASSERT_EQ(ca_array_compute_chunk_sizes(&k, g.ctx, r, nullptr), CA_OK);
  ch = ca_array_chunks(k, 0, &n);
  EXPECT_EQ(std::vector<int64_t>(ch, ch + n), (std::vector<int64_t>{0, 1, 3, 1}));
  ca_array_free(k);
  // misuse: a clear message
  ca_array_t *bad = reinterpret_cast<ca_array_t *>(1);
  ca_index_t one = CA_INDEX_INT_INIT(0);
  EXPECT_EQ(ca_array_getitem(&bad, r, &one, 1), CA_EINVAL);
  EXPECT_EQ(bad, nullptr);
  EXPECT_NE(std::string(ca_last_error_message()).find("ca_array_compute_chunk_sizes"), std::string::npos);
  ca_array_free(r);

  const int64_t pts[3] = {4, 0, 4};
  const int64_t *pp[1] = {pts};
  ASSERT_EQ(ca_array_vindex(&r, a, pp, 1, 3), CA_OK);
  EXPECT_EQ(c_values(g.ctx, r), (std::vector<double>{4, 0, 4}));
  ca_array_free(r);

  ca_index_t reg = CA_INDEX_SLICE_INIT;
  reg.slice.start = 2, reg.slice.flags |= CA_SLICE_START, reg.slice.stop = 5, reg.slice.flags |= CA_SLICE_STOP;
  ca_scalar_t neg{};
  neg.kind = CA_FLOAT64;
  neg.re = -1;
  ASSERT_EQ(ca_array_setitem_scalar(&r, a, &reg, 1, neg), CA_OK);
  EXPECT_EQ(c_values(g.ctx, r), (std::vector<double>{0, 1, -1, -1, -1, 5, 6, 7, 8, 9}));
  ca_array_free(r);
  ASSERT_EQ(ca_array_mask_set(&r, a, mask, neg), CA_OK);
  EXPECT_EQ(c_values(g.ctx, r), (std::vector<double>{0, 1, 2, 3, 4, -1, -1, -1, -1, -1}));
  ca_array_free(r);
  ca_array_t *val = c_iota(3, 2);
  ASSERT_EQ(ca_array_setitem(&r, a, &reg, 1, val), CA_OK);
  EXPECT_EQ(c_values(g.ctx, r), (std::vector<double>{0, 1, 0, 1, 2, 5, 6, 7, 8, 9}));
  ca_array_free(r);
  ca_array_free(val);

  // NULL handles and bad input
  EXPECT_EQ(ca_array_getitem(nullptr, a, idx, 1), CA_EINVAL);
  EXPECT_EQ(ca_array_getitem(&r, nullptr, idx, 1), CA_EINVAL);
  EXPECT_EQ(r, nullptr);
  EXPECT_EQ(ca_array_getitem(&r, a, nullptr, 1), CA_EINVAL);
  EXPECT_EQ(ca_array_take(&r, a, ti, 3, 1), CA_EINVAL);
  EXPECT_NE(std::string(ca_last_error_message()).find("axis 1 is out of bounds"), std::string::npos);
  int64_t oob = 10;
  EXPECT_EQ(ca_array_take(&r, a, &oob, 1, 0), CA_EINVAL);
  EXPECT_NE(std::string(ca_last_error_message()).find("index 10 is out of bounds for axis 0 with size 10"),
            std::string::npos);
  EXPECT_EQ(ca_array_mask_select(&r, a, a), CA_EINVAL);
  EXPECT_EQ(ca_array_compute_chunk_sizes(&r, nullptr, a, nullptr), CA_EINVAL);
  ca_index_t weird = CA_INDEX_SLICE_INIT;
  weird.kind = ca_index_kind_t(99);
  EXPECT_EQ(ca_array_getitem(&r, a, &weird, 1), CA_EINVAL);
  ca_array_free(mask);
  ca_array_free(a);
}

}  // namespace
}  // namespace ca
