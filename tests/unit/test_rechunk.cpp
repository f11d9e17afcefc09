// rechunk: dask's planner (checked against dask's own plan_rechunk), dask's chunk requests (checked
// against dask's rechunk), values against NumPy over ragged chunks, dtypes, 0-d, empty and size-1
// dimensions, the block-size limit of every stage, and bounded memory over an input held in memory.
#include <chunkarray/chunkarray.h>
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <sstream>
#include <vector>

#include "array/array.hpp"
#include "array/create.hpp"
#include "array/rechunk.hpp"
#include "array/reduce.hpp"
#include "array/store.hpp"
#include "core/bytesize.hpp"
#include "numpy_ref.hpp"

// A pointer to a temporary options struct, valid for the full expression (C++ has no compound literals).
template <class T>
static const T *opt_ptr(const T &o) {
  return &o;
}


namespace {

using ca::Chunks;
using ca::Index;
using ca::test::Npy;

std::string py_chunks(const Chunks &c) {
  std::string s = "(";
  for (auto &d : c) {
    s += "(";
    for (Index v : d) s += std::to_string(v) + ",";
    s += "),";
  }
  return s + ")";
}

Chunks uniform(const std::vector<Index> &shape, const std::vector<Index> &size) {
  Chunks c;
  for (size_t d = 0; d < shape.size(); ++d) c.push_back(ca::blocks_of(shape[d], size[d]));
  return c;
}

// Read chunkings back from a flat int64 result: [ndim, n0, sizes..., n1, sizes...].
Chunks read_chunks(const Npy &r, size_t &p) {
  const int64_t *v = r.as<int64_t>();
  Index nd = v[p++];
  Chunks c(static_cast<size_t>(nd));
  for (Index d = 0; d < nd; ++d) {
    Index n = v[p++];
    for (Index k = 0; k < n; ++k) c[size_t(d)].push_back(v[p++]);
  }
  return c;
}

Chunks whole(const std::vector<Index> &shape) {
  Chunks c;
  for (Index s : shape) c.push_back({s});
  return c;
}

const char *kFlatten =
    "def flat(c):\n"
    "    out = [len(c)]\n"
    "    for d in c: out += [len(d)] + [int(x) for x in d]\n"
    "    return out\n";

struct Ctx {
  ca_context_t *ctx = nullptr;
  Ctx() { EXPECT_EQ(ca_context_new(&ctx, nullptr), CA_OK); }
  ~Ctx() { ca_context_free(ctx); }
};

// ---- the planner against dask ---------------------------------------------------------------------

struct PlanCase {
  Chunks old_c, new_c;
  Index itemsize;
  double threshold;
  Index limit;
};

TEST(Rechunk, PlannerMatchesDask) {
  std::vector<PlanCase> cases = {
      // W6: columns to rows under the default 128 MiB.
      {uniform({16000, 16000}, {16000, 160}), uniform({16000, 16000}, {160, 16000}), 8, 4, Index(128) << 20},
      {uniform({16000, 16000}, {160, 16000}), uniform({16000, 16000}, {16000, 160}), 8, 4, Index(128) << 20},
      // A tiny limit: several split and merge passes, ragged intermediates.
      {uniform({16000, 16000}, {16000, 160}), uniform({16000, 16000}, {160, 16000}), 8, 4, Index(1) << 20},
      {uniform({10000, 10000}, {1000, 10}), uniform({10000, 10000}, {10, 1000}), 8, 4, Index(8) << 20},
      {uniform({1000, 1000, 100}, {100, 100, 1}), uniform({1000, 1000, 100}, {1, 1000, 100}), 8, 4, Index(1) << 20},
      {uniform({1000, 1000}, {10, 1000}), uniform({1000, 1000}, {1000, 10}), 8, 4, 80000},
      {uniform({1000, 1000}, {10, 1000}), uniform({1000, 1000}, {1000, 10}), 4, 2, 40000},
      // Ragged, few blocks: direct.
      {{{3, 5, 2}, {4, 4}}, {{10}, {1, 2, 5}}, 8, 4, 1000},
      // Many to many.
      {uniform({600, 600}, {7, 60}), uniform({600, 600}, {60, 7}), 2, 3, 4000},
      {uniform({300, 300, 30}, {300, 3, 30}), uniform({300, 300, 30}, {3, 300, 3}), 8, 4, 300000},
      // 1-d: never staged.
      {uniform({1000}, {1}), uniform({1000}, {1000}), 8, 4, 8},
  };
  std::ostringstream py;
  py << "from dask.array.rechunk import plan_rechunk\n" << kFlatten << "out = []\n";
  for (auto &c : cases) {
    py << "p = plan_rechunk(" << py_chunks(c.old_c) << ", " << py_chunks(c.new_c) << ", " << c.itemsize << ", "
       << c.threshold << ", " << c.limit << ")\n"
       << "out.append(len(p))\nfor s in p: out += flat(s)\n";
  }
  py << "result = np.array(out, dtype=np.int64)\n";
  Npy want = ca::test::run_numpy(py.str());
  size_t p = 0;
  bool some_staged = false;
  for (size_t i = 0; i < cases.size(); ++i) {
    auto &c = cases[i];
    Index n = want.as<int64_t>()[p++];
    std::vector<Chunks> dask_plan;
    for (Index k = 0; k < n; ++k) dask_plan.push_back(read_chunks(want, p));
    std::vector<Chunks> ours = ca::plan_rechunk(c.old_c, c.new_c, c.itemsize, c.threshold, c.limit);
    EXPECT_EQ(ours, dask_plan) << "case " << i;
    if (ours.size() > 1) some_staged = true;
    // Every intermediate within the limit (raised to the largest old or new block, as dask does).
    double lim = double(c.limit) / double(c.itemsize);
    auto largest = [](const Chunks &ch) {
      double v = 1;
      for (auto &d : ch) v *= double(*std::max_element(d.begin(), d.end()));
      return v;
    };
    lim = std::max({lim, largest(c.old_c), largest(c.new_c)});
    for (auto &s : ours) EXPECT_LE(largest(s), lim) << "case " << i;
  }
  EXPECT_TRUE(some_staged);
  // W6 needs intermediates under 128 MiB.
  EXPECT_EQ(ca::plan_rechunk(cases[0].old_c, cases[0].new_c, 8, 4, Index(128) << 20).size(), 3u);
}

TEST(Rechunk, HelpersMatchDask) {
  std::vector<std::pair<std::vector<Index>, Index>> divide = {{{10, 10, 10}, 4}, {{16000}, 1048}, {{7, 1, 13}, 3}};
  std::vector<std::pair<std::vector<Index>, Index>> merge = {
      {std::vector<Index>(100, 160), 4}, {{1, 2, 3, 4, 5, 6, 7}, 3}, {{3, 3, 3}, 5}};
  std::ostringstream py;
  py << "from dask.array.rechunk import divide_to_width, merge_to_number\nout = []\n";
  auto lst = [](const std::vector<Index> &v) {
    std::string s = "(";
    for (Index x : v) s += std::to_string(x) + ",";
    return s + ")";
  };
  for (auto &[v, w] : divide) py << "r = divide_to_width(" << lst(v) << ", " << w << "); out += [len(r)] + list(r)\n";
  for (auto &[v, w] : merge) py << "r = merge_to_number(" << lst(v) << ", " << w << "); out += [len(r)] + list(r)\n";
  py << "result = np.array(out, dtype=np.int64)\n";
  Npy want = ca::test::run_numpy(py.str());
  const int64_t *r = want.as<int64_t>();
  size_t p = 0;
  auto next = [&] {
    Index n = r[p++];
    std::vector<Index> v(r + p, r + p + n);
    p += size_t(n);
    return v;
  };
  for (auto &[v, w] : divide) EXPECT_EQ(ca::divide_to_width(v, w), next());
  for (auto &[v, w] : merge) EXPECT_EQ(ca::merge_to_number(v, w), next());
}

// ---- chunk requests against dask --------------------------------------------------------------------

struct SpecCase {
  std::vector<Index> shape;
  Chunks old_c;
  ca_dtype_t dtype;
  std::string spec;
  Index limit;
};

TEST(Rechunk, RequestsMatchDask) {
  std::vector<SpecCase> cases = {
      {{1000, 1000}, uniform({1000, 1000}, {100, 250}), CA_FLOAT64, "{0: -1, 1: 'auto'}", 1000000},
      {{1000, 1000}, uniform({1000, 1000}, {100, 250}), CA_FLOAT64, "'auto'", 1000000},
      {{1000, 1000}, uniform({1000, 1000}, {100, 250}), CA_FLOAT64, "'1MiB'", 0},
      {{1000, 1000}, uniform({1000, 1000}, {100, 250}), CA_FLOAT64, "(None, 'auto')", 1000000},
      {{1000, 1000}, uniform({1000, 1000}, {100, 250}), CA_FLOAT64, "{-1: 100}", 1000000},
      {{1000, 1000}, uniform({1000, 1000}, {100, 250}), CA_FLOAT64, "(300, -1)", 1000000},
      {{1000, 1000}, uniform({1000, 1000}, {100, 250}), CA_FLOAT64, "77", 1000000},
      {{1000, 1000}, uniform({1000, 1000}, {100, 250}), CA_FLOAT64, "-1", 1000000},
      {{1000, 1000}, uniform({1000, 1000}, {100, 250}), CA_INT16, "('auto', 'auto')", 50000},
      {{1000, 1000}, uniform({1000, 1000}, {100, 250}), CA_FLOAT32, "{1: '64kB', 0: 'auto'}", 0},
      {{1000, 1000}, uniform({1000, 1000}, {100, 250}), CA_FLOAT64, "((500, 500), None)", 1000000},
      {{1000, 1000}, uniform({1000, 1000}, {100, 250}), CA_FLOAT64, "[(600, 400), 1000]", 1000000},
      {{37, 1000, 3}, {{10, 27}, ca::blocks_of(1000, 33), {1, 1, 1}}, CA_FLOAT64, "{1: 'auto'}", 4000},
      {{37, 1000, 3}, {{10, 27}, ca::blocks_of(1000, 33), {1, 1, 1}}, CA_UINT8, "'auto'", 4000},
      {{37, 1000, 3}, {{10, 27}, ca::blocks_of(1000, 33), {1, 1, 1}}, CA_COMPLEX128, "('auto', 7, None)", 4000},
      {{5000}, {ca::blocks_of(5000, 10)}, CA_FLOAT64, "'auto'", 8000},
      {{5000}, {ca::blocks_of(5000, 10)}, CA_FLOAT64, "'100 kB'", 0},
      {{4, 10}, {{0, 4}, {5, 5}}, CA_FLOAT64, "{1: 'auto'}", 80},
      {{0, 10}, {{0}, {5, 5}}, CA_FLOAT64, "(3, 2)", 8000},
  };
  std::ostringstream py;
  py << "import dask, dask.array as da\n" << kFlatten << "out = []\n";
  for (auto &c : cases) {
    std::string shp = "(";
    for (Index s : c.shape) shp += std::to_string(s) + ",";
    shp += ")";
    py << "x = da.ones(" << shp << ", chunks=" << py_chunks(c.old_c) << ", dtype='" << ca_dtype_name(c.dtype)
       << "')\n"
       << "out += flat(x.rechunk(" << c.spec << (c.limit ? ", block_size_limit=" + std::to_string(c.limit) : "")
       << ").chunks)\n";
  }
  py << "result = np.array(out, dtype=np.int64)\n";
  Npy want = ca::test::run_numpy(py.str());
  size_t p = 0;
  for (auto &c : cases) {
    ca::ArrayPtr x = ca::ones(c.shape, c.old_c, c.dtype);
    Chunks d = read_chunks(want, p);
    // Python-quoted strings and bare words are the same request.
    Chunks got = ca::rechunk_chunks(*x, c.spec, c.limit ? c.limit : Index(128) << 20);
    EXPECT_EQ(got, d) << c.spec;
    ca::RechunkOptions o;
    o.block_size_limit = c.limit ? c.limit : Index(128) << 20;
    EXPECT_EQ(ca::rechunk(x, c.spec, o)->chunks, d) << c.spec;
  }
}

TEST(Rechunk, BalanceMatchesDask) {
  std::vector<std::vector<Index>> cs = {ca::blocks_of(1000, 400), ca::blocks_of(1000, 300), ca::blocks_of(10, 3),
                                        {5}, {7, 7, 7, 1}, ca::blocks_of(100, 1)};
  std::ostringstream py;
  py << "from dask.array.rechunk import _balance_chunksizes\nimport warnings\nwarnings.simplefilter('ignore')\n"
     << "out = []\n";
  for (auto &c : cs) {
    py << "r = _balance_chunksizes((";
    for (Index v : c) py << v << ",";
    py << ")); out += [len(r)] + list(r)\n";
  }
  py << "result = np.array(out, dtype=np.int64)\n";
  Npy want = ca::test::run_numpy(py.str());
  const int64_t *r = want.as<int64_t>();
  size_t p = 0;
  for (auto &c : cs) {
    Index n = r[p++];
    EXPECT_EQ(ca::balance_chunksizes(c), std::vector<Index>(r + p, r + p + n));
    p += size_t(n);
  }
  // rechunk(chunks=(400, -1), balance=True) gives two blocks of 500, as dask's docstring says.
  ca::ArrayPtr x = ca::ones({1000, 1000}, uniform({1000, 1000}, {100, 100}), CA_FLOAT64);
  ca::RechunkOptions o;
  o.balance = true;
  EXPECT_EQ(ca::rechunk(x, "(400, -1)", o)->chunks, (Chunks{{500, 500}, {1000}}));
}

TEST(Rechunk, RequestErrors) {
  Ctx c;
  ca::ArrayPtr x = ca::ones({10, 20}, uniform({10, 20}, {5, 5}), CA_FLOAT64);
  for (const char *bad : {"{2: 5}", "{-3: 5}", "(5,)", "(5, 5, 5)", "((3, 3), 5)", "0", "-2", "(5, 'x1')",
                          "{0: 5", "(5, 5))", "'auto", "5 junk", "{'a': 5}", "(( ), 5)", "((11, -1), 5)", "{0: {1: 2}}",
                          "('1MB', '2MB')"}) {
    try {
      ca::rechunk(x, bad, ca::RechunkOptions{});
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const ca::Error &e) {
      EXPECT_EQ(e.code(), CA_EINVAL) << bad;
      EXPECT_FALSE(e.message().empty());
    }
  }
  // Through the C API: messages name the problem, *out is NULL.
  ca_array_t *a = nullptr;
  std::vector<int64_t> shape = {10, 20}, nb0 = {2, 4}, sz0 = {5, 5, 5, 5, 5, 5};
  ca_chunks_t ch0{2, nb0.data(), sz0.data()};
  ASSERT_EQ(ca_array_ones(&a, 2, shape.data(), &ch0, CA_FLOAT64), CA_OK) << ca_last_error_message();
  ca_array_t *r = reinterpret_cast<ca_array_t *>(0x1);
  EXPECT_EQ(ca_array_rechunk_spec(&r, c.ctx, a, "{5: 2}"), CA_EINVAL);
  EXPECT_EQ(r, nullptr);
  EXPECT_NE(std::string(ca_last_error_message()).find("axis 5"), std::string::npos) << ca_last_error_message();
  EXPECT_EQ(ca_array_rechunk_spec(&r, c.ctx, a, "((3, 3), 5)"), CA_EINVAL);
  EXPECT_NE(std::string(ca_last_error_message()).find("sum to 6, shape is 10"), std::string::npos)
      << ca_last_error_message();
  EXPECT_EQ(ca_array_rechunk_spec(&r, c.ctx, a, nullptr), CA_EINVAL);
  EXPECT_EQ(ca_array_rechunk_spec(&r, c.ctx, nullptr, "5"), CA_EINVAL);
  EXPECT_EQ(ca_array_rechunk_spec(nullptr, c.ctx, a, "5"), CA_EINVAL);
  std::vector<int64_t> nb = {1, 1}, sz = {10, 20};
  ca_chunks_t ch{2, nb.data(), sz.data()};
  EXPECT_EQ(ca_array_rechunk_ex(&r, c.ctx, a, &ch, "5", nullptr), CA_EINVAL);
  EXPECT_EQ(ca_array_rechunk_ex(&r, c.ctx, a, nullptr, nullptr, nullptr), CA_EINVAL);
  ca_rechunk_options_t o = CA_RECHUNK_OPTIONS_INIT;
  o.block_size_limit = -1;
  EXPECT_EQ(ca_array_rechunk_ex(&r, c.ctx, a, &ch, nullptr, &o), CA_EINVAL);
  o = CA_RECHUNK_OPTIONS_INIT;
  o.struct_size = 0;
  EXPECT_EQ(ca_array_rechunk_ex(&r, c.ctx, a, &ch, nullptr, &o), CA_EINVAL);
  sz = {10, 21};
  EXPECT_EQ(ca_array_rechunk_ex(&r, c.ctx, a, &ch, nullptr, nullptr), CA_EINVAL);
  EXPECT_NE(std::string(ca_last_error_message()).find("shape (10, 21)"), std::string::npos) << ca_last_error_message();
  EXPECT_EQ(r, nullptr);
  ca_array_free(a);
}

// Found by fuzz_chunks_str: the literal parser recursed once per nesting level ("((((...": a stack
// overflow at ~100,000 levels), and messages quoted the whole request (a 1 MB string gave a 1 MB
// message). Both kinds of chunk string now fail with CA_EINVAL and a short message.
TEST(Rechunk, DeepOrHugeRequestsFailWithShortMessages) {
  Ctx c;
  ca::ArrayPtr x = ca::ones({10, 20}, uniform({10, 20}, {5, 5}), CA_FLOAT64);
  const std::string deep = std::string(200000, '(') + "5" + std::string(200000, ')');
  const std::string deep_dict = [] {
    std::string s;
    for (int i = 0; i < 100000; ++i) s += "{0: ";
    return s + "5" + std::string(100000, '}');
  }();
  const std::string digits(1 << 20, '9');
  const std::string junk = "(5, " + std::string(1 << 20, 'x') + ")";
  for (const std::string *spec : {&deep, &deep_dict, &digits, &junk}) {
    try {
      ca::rechunk(x, *spec, ca::RechunkOptions{});
      ADD_FAILURE() << "accepted a request of " << spec->size() << " bytes";
    } catch (const ca::Error &e) {
      EXPECT_EQ(e.code(), CA_EINVAL);
      EXPECT_LT(e.message().size(), 400u) << e.message().substr(0, 400);
    }
    // normalize_chunks_spec's parser too.
    ca_chunkset_t *cs = nullptr;
    const int64_t shape[2] = {10, 20};
    EXPECT_EQ(ca_normalize_chunks_spec(&cs, c.ctx, spec->c_str(), 2, shape, CA_FLOAT64), CA_EINVAL);
    EXPECT_EQ(cs, nullptr);
    EXPECT_LT(std::strlen(ca_last_error_message()), 400u);
  }
  try {
    ca::rechunk(x, deep, ca::RechunkOptions{});
  } catch (const ca::Error &e) {
    EXPECT_NE(e.message().find("nested more than 32 levels deep"), std::string::npos) << e.message().substr(0, 400);
  }
  // 32 levels are still parsed (and then refused for what they say, not for their depth). Lists:
  // parentheses around one item only group it, as in Python.
  const std::string ok_depth = std::string(31, '[') + "5" + std::string(31, ']');
  try {
    ca::rechunk(x, ok_depth, ca::RechunkOptions{});
    ADD_FAILURE() << "accepted " << ok_depth;
  } catch (const ca::Error &e) {
    EXPECT_EQ(e.message().find("nested"), std::string::npos) << e.message();
  }
}

// ---- values against NumPy -----------------------------------------------------------------------

// x = arange(size) cast to dtype and reshaped, in memory or computed (arange blocks).
Npy reference(ca_dtype_t dt, const std::vector<Index> &shape) {
  std::string shp = "(";
  for (Index s : shape) shp += std::to_string(s) + ",";
  shp += ")";
  Npy r = ca::test::run_numpy("result = (np.arange(int(np.prod(" + shp + "))) % 251).astype('" +
                               std::string(ca_dtype_name(dt)) + "').reshape(" + shp + ")");
  r.shape = shape;  // (NumPy saves a 0-d result as 1-d)
  return r;
}

TEST(Rechunk, ValuesMatchNumpy) {
  struct Case {
    std::vector<Index> shape;
    Chunks old_c;
    std::vector<Chunks> targets;
  };
  std::vector<Case> cases = {
      {{6, 7, 5},
       {{1, 5}, {3, 3, 1}, {2, 3}},
       {{{6}, {7}, {5}}, {{2, 2, 2}, {1, 1, 1, 1, 1, 1, 1}, {5}}, {{4, 2}, {2, 5}, {1, 4}}, {{3, 0, 3}, {7}, {0, 5, 0}}}},
      {{64, 48}, uniform({64, 48}, {64, 1}), {uniform({64, 48}, {1, 48}), uniform({64, 48}, {5, 7})}},
      {{48, 64}, uniform({48, 64}, {3, 5}), {uniform({48, 64}, {7, 3}), {{10, 1, 37}, {64}}, uniform({48, 64}, {48, 1})}},
      {{1, 1, 9}, {{1}, {1}, {4, 5}}, {{{1}, {1}, {1, 1, 1, 1, 1, 1, 1, 1, 1}}, {{1}, {1}, {9}}}},
      {{0, 4}, {{0}, {2, 2}}, {{{0}, {4}}, {{0, 0}, {1, 3}}}},
      {{0, 0}, {{0}, {0}}, {{{0, 0}, {0}}}},
      {{}, {}, {{}}},
      {{30}, {{7, 0, 23}}, {{{30}}, {{1, 29}}, {ca::blocks_of(30, 4)}}},
  };
  for (ca_dtype_t dt : {CA_FLOAT64, CA_INT32, CA_UINT8, CA_COMPLEX128, CA_BOOL, CA_INT64}) {
    for (auto &c : cases) {
      Npy want = reference(dt, c.shape);
      for (bool in_memory : {true, false}) {
        ca::ArrayPtr x = in_memory ? ca::test::array_from_npy(want, c.old_c)
                                   : ca::rechunk(ca::test::array_from_npy(want, whole(c.shape)), c.old_c);
        for (auto &t : c.targets) {
          for (Index limit : {Index(128) << 20, Index(16)}) {
            ca::RechunkOptions o;
            o.block_size_limit = limit;
            o.threshold = limit == 16 ? 1.0 : 4.0;
            ca::ArrayPtr r = ca::rechunk(x, t, o);
            EXPECT_EQ(r->chunks, t);  // also for an all-empty array: the requested chunks, so it unifies
            ca::test::expect_equal(ca::test::compute_npy(r), want,
                                   std::string(ca_dtype_name(dt)) + " " + ca::chunks_str(x->chunks) + " -> " +
                                       ca::chunks_str(t));
          }
        }
      }
    }
  }
}

TEST(Rechunk, NoOpReturnsTheInput) {
  Ctx c;
  ca::ArrayPtr x = ca::ones({10, 20}, uniform({10, 20}, {5, 5}), CA_FLOAT64);
  EXPECT_EQ(ca::rechunk(x, x->chunks, ca::RechunkOptions{}), x);
  EXPECT_EQ(ca::rechunk(x, "{0: 5}", ca::RechunkOptions{}), x);
  EXPECT_EQ(ca::rechunk(x, "(None, None)", ca::RechunkOptions{}), x);
  EXPECT_TRUE(ca::rechunk_stages(*x, x->chunks, {}).empty());
  ca::ArrayPtr e = ca::ones({0, 0}, {{0}, {0}}, CA_FLOAT64);
  // an all-empty array takes the requested chunks too (it must unify with arrays chunked like that)
  EXPECT_EQ(ca::rechunk(e, Chunks{{0, 0}, {0}}, ca::RechunkOptions{})->chunks, (Chunks{{0, 0}, {0}}));
  EXPECT_EQ(ca::rechunk(e, e->chunks, ca::RechunkOptions{}), e);
  ca::ArrayPtr s = ca::ones({}, {}, CA_INT8);
  EXPECT_EQ(ca::rechunk(s, "'auto'", ca::RechunkOptions{}), s);
  // C API: the same array (same name), a new handle.
  ca_array_t *a = nullptr, *r = nullptr;
  std::vector<int64_t> shape = {10, 20}, nb0 = {1, 1}, sz0 = {10, 20};
  ca_chunks_t ch0{2, nb0.data(), sz0.data()};
  ASSERT_EQ(ca_array_ones(&a, 2, shape.data(), &ch0, CA_FLOAT64), CA_OK);
  ASSERT_EQ(ca_array_rechunk_spec(&r, c.ctx, a, "{}"), CA_OK) << ca_last_error_message();
  EXPECT_STREQ(ca_array_name(r), ca_array_name(a));
  int64_t n = -1;
  ca_chunks_t v = ca_array_chunks_view(a);
  ASSERT_EQ(ca_array_rechunk_nstages(&n, c.ctx, a, &v, nullptr), CA_OK);
  EXPECT_EQ(n, 0);
  ca_array_free(r);
  ca_array_free(a);
}

// ---- stages and the block-size limit ----------------------------------------------------------------

// Collects the output shape of every task of a rechunk layer.
struct ShapeCollector : ca::TaskEmitter {
  std::vector<Index> shape;
  bool first = true;
  void kernel(int32_t) override {}
  void literal(const ca_arg_t &a) override { take(a); }
  void literal_copy(const ca_arg_t &a) override { take(a); }
  void ref(int32_t, const Index *, int32_t) override {}
  void begin_list(size_t) override { first = false; }
  void end_list() override {}
  void take(const ca_arg_t &a) {
    if (first && a.kind == CA_ARG_TUPLE) shape.assign(a.u.tuple.items, a.u.tuple.items + a.u.tuple.len);
    first = false;
  }
};

TEST(Rechunk, StagesKeepEveryTaskUnderTheLimit) {
  // W6 in small: columns to rows, computed input (not held in memory).
  std::vector<Index> shape = {1600, 1600};
  ca::ArrayPtr gen = ca::random(CA_RANDOM_UNIFORM, 7, shape, uniform(shape, {1600, 16}), CA_FLOAT64, 0.0, 1.0);
  Chunks target = uniform(shape, {16, 1600});
  // A generated array is regenerated on the new grid (one layer, no data moved)...
  EXPECT_EQ(ca::rechunk(gen, target)->graph->layers().size(), 1u);
  // ... so the planner is tested over its blocks computed by another layer.
  ca::ArrayPtr x = ca::blockwise_layer("computed-" + gen->name, "ca.identity", "ab", {ca::ArrayArg::of(gen, "ab")},
                                       gen->chunks, gen->dtype);
  ca::RechunkOptions o;
  o.block_size_limit = Index(1600) * 160 * 8;  // 10 old blocks
  // By default 100 x 100 pieces are done directly; dask's threshold plans stages.
  EXPECT_EQ(ca::rechunk_stages(*x, target, o).size(), 1u);
  o.threshold = 4;
  auto stages = ca::rechunk_stages(*x, target, o);
  ASSERT_GT(stages.size(), 1u);
  EXPECT_EQ(stages, ca::plan_rechunk(x->chunks, target, 8, 4.0, o.block_size_limit));
  ca::ArrayPtr r = ca::rechunk(x, target, o);
  EXPECT_EQ(r->chunks, target);
  // Inspect the layers: one per stage, every task's block within the limit.
  size_t nlayers = 0;
  Index old_block = 1600 * 16 * 8;
  for (const ca::LayerPtr &l : r->graph->layers()) {
    if (l->name().rfind("rechunk-merge-", 0) != 0) continue;
    ++nlayers;
    for (int64_t t = 0; t < l->num_tasks(); ++t) {
      if (l->kernel_names().size() == 1 && l->kernel_names()[0] == "ca.identity") continue;
      ShapeCollector sc;
      l->emit(t, sc);
      if (sc.shape.empty()) continue;  // ca.identity task
      Index bytes = 8;
      for (Index s : sc.shape) bytes *= s;
      EXPECT_LE(bytes, std::max(o.block_size_limit, old_block)) << l->name();
    }
  }
  EXPECT_EQ(nlayers, stages.size());
  // Values: the same as the direct rechunk's and NumPy's transpose-free check via the in-memory copy.
  Npy direct = ca::test::compute_npy(x);
  ca::test::expect_equal(ca::test::compute_npy(r), direct, "staged rechunk");
}

TEST(Rechunk, ManyPiecesArePlannedInStagesByDefault) {
  // 600 x 600 pieces (more than kMaxDirectPieces): staged with dask's plan even by default.
  std::vector<Index> shape = {600, 600};
  ca::ArrayPtr x = ca::random(CA_RANDOM_UNIFORM, 3, shape, uniform(shape, {600, 1}), CA_FLOAT64, 0.0, 1.0);
  Chunks target = uniform(shape, {1, 600});
  ca::RechunkOptions o;
  o.block_size_limit = 600 * 8 * 8;
  auto stages = ca::rechunk_stages(*x, target, o);
  ASSERT_GT(stages.size(), 1u);
  EXPECT_EQ(stages, ca::plan_rechunk(x->chunks, target, 8, 4.0, o.block_size_limit));
  ca::ArrayPtr r = ca::rechunk(x, target, o);
  Npy want = ca::test::compute_npy(x);
  ca::test::expect_equal(ca::test::compute_npy(r), want, "staged 600 x 600");
  // The C API counts the same stages.
  Ctx c;
  ASSERT_EQ(ca_context_set_config(c.ctx, "array.chunk-size", "38400"), CA_OK);
  ca_array_t *a = nullptr;
  std::vector<int64_t> nb = {1, 600}, sz(601, 1);
  sz[0] = 600;
  ca_chunks_t in{2, nb.data(), sz.data()};
  ASSERT_EQ(ca_array_random(&a, CA_RANDOM_UNIFORM, 2, shape.data(), &in, CA_FLOAT64, opt_ptr(ca_random_options_t{sizeof(ca_random_options_t), 0u, 3, 0.0, 1.0, 0.0})), CA_OK);
  std::vector<int64_t> nb2 = {600, 1}, sz2(601, 1);
  sz2[600] = 600;
  ca_chunks_t out{2, nb2.data(), sz2.data()};
  int64_t n = 0;
  ASSERT_EQ(ca_array_rechunk_nstages(&n, c.ctx, a, &out, nullptr), CA_OK) << ca_last_error_message();
  EXPECT_EQ(n, int64_t(stages.size()));
  ca_array_free(a);
}

// ---- bounded memory ---------------------------------------------------------------------------------

// Bytes of live blocks beyond those live before, sampled every time a block of `a` is streamed out
// (each is released after use): intermediates and blocks in flight.
Index peak_beyond_streaming(const ca::ArrayPtr &a) {
  int64_t base = ca::block_live_bytes();
  std::atomic<int64_t> peak{0};
  ca::store(ca::test::Runtime::get().ex, ca::test::Runtime::get().reg, {a},
            [&](const ca::StoreRegion &, const ca::Block *) {
              int64_t v = ca::block_live_bytes() - base;
              int64_t p = peak.load();
              while (v > p && !peak.compare_exchange_weak(p, v)) {
              }
            },
            ca::RunOptions{});
  return peak.load();
}

TEST(Rechunk, MemoryStaysBoundedOverAnInputInMemory) {
  int64_t live0 = ca::block_live_count();
  {
    // 16 MiB held in memory, columns to rows, with a 256 KiB chunk-size limit (64 limits of data).
    std::vector<Index> shape = {1024, 2048};
    std::vector<double> v(size_t(shape[0] * shape[1]));
    std::iota(v.begin(), v.end(), 0.0);
    ca::ArrayPtr x = ca::from_buffer(v.data(), CA_FLOAT64, shape, nullptr, uniform(shape, {1024, 32}), false,
                                     nullptr, nullptr);
    Index limit = 256 * 1024;
    ca::RechunkOptions o;
    o.block_size_limit = limit;
    ca::ArrayPtr r = ca::rechunk(x, uniform(shape, {32, 1024}), o);
    // Beyond the input (held by the data layer anyway) only a few new blocks are in flight. Planned in
    // dask's stages instead, every intermediate would be produced before the first new block (their
    // inputs are always ready): about 16 MiB here.
    Index beyond = peak_beyond_streaming(r);
    EXPECT_LE(beyond, 4 * limit) << "bytes held beyond the input: " << beyond;
    // And the sum is right.
    ca::ArrayPtr s = ca::reduce(CA_RED_SUM, r, {}, false, 0, 0, 0);
    Npy got = ca::test::compute_npy(s);
    double n = double(shape[0] * shape[1]);
    EXPECT_EQ(got.as<double>()[0], n * (n - 1) / 2);
  }
  EXPECT_EQ(ca::block_live_count(), live0);
}

TEST(Rechunk, NoLeaksOnFailure) {
  int64_t live0 = ca::block_live_count();
  {
    std::vector<Index> shape = {64, 64};
    ca::ArrayPtr x = ca::random(CA_RANDOM_UNIFORM, 1, shape, uniform(shape, {64, 2}), CA_FLOAT64, 0.0, 1.0);
    ca::RechunkOptions o;
    o.block_size_limit = 64 * 8 * 4;
    ca::ArrayPtr r = ca::rechunk(x, uniform(shape, {2, 64}), o);
    std::atomic<int> n{0};
    EXPECT_THROW(ca::store(ca::test::Runtime::get().ex, ca::test::Runtime::get().reg, {r},
                           [&](const ca::StoreRegion &, const ca::Block *) {
                             if (++n == 5) ca::fail(CA_EIO, "disk full");
                           },
                           ca::RunOptions{}),
                 ca::Error);
  }
  EXPECT_EQ(ca::block_live_count(), live0);
}

// ---- byte sizes: one parser (core/bytesize.hpp) behind set_config, chunk specs and rechunk ----------

// Every byte-size string, against dask.utils.parse_bytes.
TEST(ByteSizes, ParseMatchesDask) {
  const std::vector<std::string> ok = {"0",     "1000",   "1B",    "1 b",   "100 kB", "100k",  "64MiB", "64Mi",
                                       "64 mib", "2GB",   "2g",    "2 GiB", "1TB",    "1t",    "3TiB",  "1PB",
                                       "1 PiB", "1e6",    "1.5e3 MB", "2.5kB", "MiB",   "kB",    "0.5 B"};
  std::ostringstream py;
  py << "from dask.utils import parse_bytes\nresult = np.array([";
  for (auto &t : ok) py << "parse_bytes('" << t << "'),";
  py << "], dtype=np.int64)\n";
  Npy want = ca::test::run_numpy(py.str());
  ASSERT_EQ(want.size(), ok.size());
  for (size_t i = 0; i < ok.size(); ++i) EXPECT_EQ(ca::parse_bytes(ok[i]), want.as<int64_t>()[i]) << ok[i];
  // dask raises ValueError for each of these but "-1" and "1e30 PB", which it returns as they are; a
  // byte size here is one in 0..2^63-1, so those are errors too, naming the text.
  for (const char *bad : {"lots", "1 XB", "1e", "0x10", "-1", "1e30 PB", "inf", "nan", "1..2 MB"}) {
    try {
      ca::parse_bytes(bad);
      ADD_FAILURE() << "'" << bad << "' parsed";
    } catch (const ca::Error &e) {
      EXPECT_EQ(e.code(), CA_EINVAL) << bad;
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    }
  }
}

// The same units through the C API: a chunk specification string (dask's normalize_chunks reads any
// string but "auto" as a byte limit) is "auto" under that many bytes (dask.utils.parse_bytes), and a
// context's chunk-size and memory-limit take it too.
TEST(ByteSizes, EveryEntryPointTakesTheSameUnits) {
  const std::vector<std::string> specs = {"1TB", "100k", "64Mi", "1e6", "100 kB", "2 GiB", "64MiB", "1PB", "3 kib"};
  std::ostringstream py;
  py << "from dask.utils import parse_bytes\nresult = np.array([";
  for (auto &s : specs) py << "parse_bytes('" << s << "'),";
  py << "], dtype=np.int64)\n";
  Npy want = ca::test::run_numpy(py.str());
  ASSERT_EQ(want.size(), specs.size());
  auto chunks_of = [](ca_context_t *ctx, const char *spec) {
    const int64_t shape[2] = {10000000, 3};
    ca_chunkset_t *cs = nullptr;
    Chunks got;
    EXPECT_EQ(ca_normalize_chunks_spec(&cs, ctx, spec, 2, shape, CA_FLOAT64), CA_OK) << spec << ": "
                                                                                  << ca_last_error_message();
    for (int32_t k = 0; cs && k < ca_chunkset_ndim(cs); ++k) {
      int64_t n = 0;
      const int64_t *v = ca_chunkset_sizes(cs, k, &n);
      got.emplace_back(v, v + n);
    }
    ca_chunkset_free(cs);
    return got;
  };
  Ctx c;
  for (size_t i = 0; i < specs.size(); ++i) {
    const std::string &s = specs[i];
    Ctx limited;
    const std::string bytes = std::to_string(want.as<int64_t>()[i]);
    ASSERT_EQ(ca_context_set_config(limited.ctx, "array.chunk-size", bytes.c_str()), CA_OK) << bytes;
    EXPECT_EQ(chunks_of(c.ctx, s.c_str()), chunks_of(limited.ctx, "auto")) << s;
    Ctx named;
    EXPECT_EQ(ca_context_set_config(named.ctx, "array.chunk-size", s.c_str()), CA_OK) << s << ": " << ca_last_error_message();
    EXPECT_EQ(chunks_of(named.ctx, "auto"), chunks_of(limited.ctx, "auto")) << s;
    EXPECT_EQ(ca_context_set_config(c.ctx, "memory-limit", s.c_str()), CA_OK) << s << ": " << ca_last_error_message();
  }
  const int64_t shape[2] = {10000000, 3};
  ca_chunkset_t *cs = nullptr;
  EXPECT_EQ(ca_normalize_chunks_spec(&cs, c.ctx, "1 XB", 2, shape, CA_FLOAT64), CA_EINVAL);
  EXPECT_NE(std::string(ca_last_error_message()).find("XB"), std::string::npos) << ca_last_error_message();
  EXPECT_EQ(ca_normalize_chunks_spec(&cs, c.ctx, "0 MB", 2, shape, CA_FLOAT64), CA_EINVAL);
  EXPECT_EQ(ca_context_set_config(c.ctx, "array.chunk-size", "1 XB"), CA_EINVAL);
  // rechunk requests parse the same way.
  ca::ArrayPtr x = ca::ones({100000}, {ca::blocks_of(100000, 1000)}, CA_FLOAT64);
  EXPECT_EQ(ca::rechunk_chunks(*x, "'1TB'", Index(128) << 20), Chunks{{100000}});
  EXPECT_EQ(ca::rechunk_chunks(*x, "'80k'", Index(128) << 20), Chunks{ca::blocks_of(100000, 10000)});
}

}  // namespace

// Chunk strings of ca_normalize_chunks_spec (array/chunks_spec.cpp, normalize_chunks_spec): dask's
// chunks= literals, read by the same parser as rechunk strings, against dask.array.normalize_chunks.
TEST(ChunkSpec, NormalizesDaskChunkStrings) {
  auto norm = [](const char *spec, std::vector<ca::Index> shape, ca::Index limit = ca::Index(128) << 20) {
    return ca::normalize_chunks_spec(spec, shape, CA_FLOAT64, limit);
  };
  EXPECT_EQ(norm("5", {12, 5}), (Chunks{{5, 5, 2}, {5}}));
  EXPECT_EQ(norm("(5)", {12, 5}), (Chunks{{5, 5, 2}, {5}}));  // Python: (5) is 5
  EXPECT_EQ(norm("(5,)", {12}), (Chunks{{5, 5, 2}}));
  EXPECT_THROW(norm("(5,)", {12, 5}), ca::Error);  // dask: chunks and shape must be of the same length
  EXPECT_EQ(norm("auto", {10}), (Chunks{{10}}));
  EXPECT_EQ(norm("(3, -1)", {7, 4}), (Chunks{{3, 3, 1}, {4}}));
  EXPECT_EQ(norm("(None, 4)", {7, 9}), (Chunks{{7}, {4, 4, 1}}));
  EXPECT_THROW(norm("None", {7, 9}), ca::Error);  // dask: "You must specify a chunks= keyword argument"
  EXPECT_EQ(norm("{1: 4}", {2, 9, 3}), (Chunks{{2}, {4, 4, 1}, {3}}));
  EXPECT_EQ(norm("{-1: 4}", {2, 9}), (Chunks{{2}, {4, 4, 1}}));
  EXPECT_EQ(norm("((2, 3, 4), -1)", {9, 10}), (Chunks{{2, 3, 4}, {10}}));
  EXPECT_EQ(norm("(2, 3, 4), -1", {9, 10}), (Chunks{{2, 3, 4}, {10}}));
  EXPECT_EQ(norm("[(2, 3, 4), 5]", {9, 10}), (Chunks{{2, 3, 4}, {5, 5}}));
  EXPECT_EQ(norm("(2, 3, 4)", {9}), (Chunks{{2, 3, 4}}));  // 1-d: explicit sizes of the one axis
  EXPECT_EQ(norm("()", {0, 0}), (Chunks{{0}, {0}}));
  EXPECT_EQ(norm("0", {0}), (Chunks{{0}}));
  // Byte sizes: the request's limit (8 float64 per block here), in any dimension or for all.
  EXPECT_EQ(norm("64B", {20}), (Chunks{{8, 8, 4}}));  // dask: no rounding to even blocks
  EXPECT_EQ(norm("'64B'", {20}), norm("64B", {20}));
  EXPECT_EQ(norm("(2, '64B')", {4, 20}), norm("(2, 'auto')", {4, 20}, 64));
  EXPECT_EQ(norm("(2, '64B')", {4, 20}), (Chunks{{2, 2}, {4, 4, 4, 4, 4}}));  // dask's values
  EXPECT_EQ(norm("auto", {4096, 4096}, ca::Index(64) << 20), (Chunks{{2896, 1200}, {2896, 1200}}));
  EXPECT_EQ(norm("64MiB", {4096, 4096}), norm("auto", {4096, 4096}, ca::Index(64) << 20));
  for (const char *bad : {"(3, 4", "{0 4}", "5 6", "{2: 4}", "(1, 2, 3)", "0 MB", "abc(", "(x)", "0", "-2", "1.5",
                          "((1, 1), 4)", "((3, 3), 4)", "((), 4)", "((1, -1), 4)", "({0: 1}, 4)", "('1kB', '2kB')",
                          "(((1,),),)", ""}) {
    EXPECT_THROW(norm(bad, {3, 4}), ca::Error) << bad;
  }
}
