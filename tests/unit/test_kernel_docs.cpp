// The builtin kernels' reference (builtins/kernel_docs.hpp) and ca_kernel_registry_list(): every
// registered builtin has an entry and every entry a builtin, the list reports versions, builtin-ness
// and signatures (also for caller and libffi kernels), and the stable signatures are what the
// kernels take: a hand-built graph calling them as documented computes NumPy's values.
#include <chunkarray/chunkarray.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "builtins/builtins.hpp"
#include "builtins/kernel_docs.hpp"

namespace {

// A registry list and its entries (whose strings it owns).
struct Listed {
  explicit Listed(const ca_context_t *ctx) {
    EXPECT_EQ(ca_kernel_registry_list(&list, ctx), CA_OK) << ca_last_error_message();
    for (size_t i = 0; i < ca_kernel_list_size(list); ++i) {
      ca_kernel_info_t k = CA_KERNEL_INFO_INIT;
      EXPECT_EQ(ca_kernel_list_get(&k, list, i), CA_OK);
      all.push_back(k);
    }
  }
  ~Listed() { ca_kernel_list_free(list); }
  Listed(const Listed &) = delete;
  Listed &operator=(const Listed &) = delete;
  ca_kernel_list_t *list = nullptr;
  std::vector<ca_kernel_info_t> all;
};

TEST(KernelDocs, EveryBuiltinHasAnEntryAndEveryEntryABuiltin) {
  std::set<std::string> registered;
  for (const std::string &n : ca::builtin_kernel_registry().names()) registered.insert(n);
  std::set<std::string> documented;
  std::string prev;
  for (const ca::BuiltinKernelDoc &d : ca::builtin_kernel_docs()) {
    EXPECT_LT(prev, d.name) << "entries must be sorted by name, without repeats";
    prev = d.name;
    documented.insert(d.name);
    EXPECT_EQ(std::string(d.signature).rfind(std::string(d.name) + "(", 0), 0u) << d.name << ": " << d.signature;
    EXPECT_NE(std::string(d.signature).find(") -> block"), std::string::npos) << d.name;
    EXPECT_GT(std::strlen(d.description), 10u) << d.name;
    EXPECT_EQ(ca::builtin_kernel_doc(d.name), &d);
  }
  for (const std::string &n : registered) EXPECT_TRUE(documented.count(n)) << n << " is registered but has no entry in src/builtins/kernel_docs.cpp";
  for (const std::string &n : documented) EXPECT_TRUE(registered.count(n)) << n << " is documented but not registered";
  EXPECT_EQ(ca::builtin_kernel_doc("ca.nope"), nullptr);
}

TEST(KernelDocs, RegistryListOfTheBuiltins) {
  Listed listed(nullptr);
  const std::vector<ca_kernel_info_t> &all = listed.all;
  ASSERT_EQ(all.size(), ca::builtin_kernel_registry().size());
  for (size_t i = 0; i < all.size(); ++i) {
    const ca_kernel_info_t &k = all[i];
    if (i) {
      EXPECT_LT(std::strcmp(all[i - 1].name, k.name), 0);
    }
    EXPECT_EQ(k.builtin, 1) << k.name;
    EXPECT_EQ(k.version, ca::builtin_kernel_version(k.name));
    const ca::BuiltinKernelDoc *d = ca::builtin_kernel_doc(k.name);
    ASSERT_NE(d, nullptr) << k.name;
    EXPECT_STREQ(k.signature, d->signature);
    EXPECT_STREQ(k.description, d->description);
    EXPECT_EQ(k.stable, d->stable ? 1 : 0);
  }
}

ca_status_t twice(ca_block_t **out, const ca_arg_t *, size_t, ca_kernel_ctx_t *, void *) {
  int64_t n = 1;
  return ca_block_new(out, CA_FLOAT64, 1, &n);
}

TEST(KernelDocs, RegistryListOfAContext) {
  ca_context_t *ctx = nullptr;
  ca_context_options_t o = CA_CONTEXT_OPTIONS_INIT;
  o.num_threads = 0;
  ASSERT_EQ(ca_context_new(&ctx, &o), CA_OK);
  ca_kernel_options_t ko = CA_KERNEL_OPTIONS_INIT;
  ko.version = 7;
  ASSERT_EQ(ca_context_register(ctx, "my.twice", twice, &ko), CA_OK);
  // a caller's kernel under a builtin's name is not the builtin
  ASSERT_EQ(ca_context_remove_kernel(ctx, "ca.identity"), CA_OK);
  ASSERT_EQ(ca_context_register(ctx, "ca.identity", twice, nullptr), CA_OK);
  ASSERT_EQ(ca_context_register_ffi(ctx, "my.cbrt", reinterpret_cast<void (*)(void)>(&cbrt), "f64(f64)", nullptr),
            CA_OK);
  Listed listed(ctx);
  const std::vector<ca_kernel_info_t> &all = listed.all;
  EXPECT_EQ(int64_t(all.size()), ca_context_num_kernels(ctx));
  int seen = 0;
  for (const ca_kernel_info_t &k : all) {
    if (!std::strcmp(k.name, "my.twice")) {
      ++seen;
      EXPECT_EQ(k.version, 7);
      EXPECT_EQ(k.builtin, 0);
      EXPECT_EQ(k.stable, 0);
      EXPECT_STREQ(k.signature, "");
      EXPECT_STREQ(k.description, "");
    } else if (!std::strcmp(k.name, "ca.identity")) {
      ++seen;
      EXPECT_EQ(k.builtin, 0);
      EXPECT_STREQ(k.signature, "");
    } else if (!std::strcmp(k.name, "my.cbrt")) {
      ++seen;
      EXPECT_STREQ(k.signature, "f64(f64)");
    } else if (!std::strcmp(k.name, "ca.eye")) {
      ++seen;
      EXPECT_EQ(k.builtin, 1);
      EXPECT_EQ(k.stable, 1);
    }
  }
  EXPECT_EQ(seen, 4);
  ca_context_free(ctx);
}

TEST(KernelDocs, ListErrors) {
  ca_kernel_list_t *list = nullptr;
  EXPECT_EQ(ca_kernel_registry_list(nullptr, nullptr), CA_EINVAL);
  EXPECT_STREQ(ca_last_error_message(), "ca_kernel_registry_list: out is NULL");
  ASSERT_EQ(ca_kernel_registry_list(&list, nullptr), CA_OK);
  size_t n = ca_kernel_list_size(list);
  ca_kernel_info_t k = CA_KERNEL_INFO_INIT;
  EXPECT_EQ(ca_kernel_list_get(&k, list, n), CA_EINVAL);
  EXPECT_EQ(std::string(ca_last_error_message()),
            "ca_kernel_list_get: index " + std::to_string(n) + " is out of range (the list has " + std::to_string(n) +
                " kernels)");
  k.struct_size = 4;
  EXPECT_EQ(ca_kernel_list_get(&k, list, 0), CA_EINVAL);
  EXPECT_NE(std::strstr(ca_last_error_message(), "struct_size 4 is too small"), nullptr);
  // An older caller's shorter struct: only the fields it has are written.
  struct {
    ca_kernel_info_t info;
    char guard[8];
  } small{};
  std::memset(&small, 0x5a, sizeof small);
  small.info.struct_size = uint32_t(offsetof(ca_kernel_info_t, version) + sizeof(int32_t));
  ASSERT_EQ(ca_kernel_list_get(&small.info, list, 0), CA_OK);
  EXPECT_EQ(small.info.struct_size, offsetof(ca_kernel_info_t, version) + sizeof(int32_t));
  EXPECT_NE(small.info.name, nullptr);
  const unsigned char *after = reinterpret_cast<const unsigned char *>(&small.info) + small.info.struct_size;
  EXPECT_EQ(after[0], 0x5a);  // builtin not written
  EXPECT_EQ(ca_kernel_list_size(nullptr), 0u);
  ca_kernel_list_free(list);
  ca_kernel_list_free(nullptr);
}

// The stable signatures are the kernels' real arguments: ca.eye and ca.shape.transpose called as
// documented, in a hand-built graph, give numpy.eye(5, 4, 1)'s blocks and their transposes.
TEST(KernelDocs, StableSignaturesWorkInAHandBuiltGraph) {
  ca_context_t *ctx = nullptr;
  ASSERT_EQ(ca_context_new(&ctx, nullptr), CA_OK);
  ca_graph_t *g = nullptr;
  ASSERT_EQ(ca_graph_new(&g), CA_OK);
  const int64_t rows[2] = {3, 2}, cols[2] = {2, 2}, k = 1;
  int64_t r0 = 0;
  for (int64_t i = 0; i < 2; ++i) {
    int64_t c0 = 0;
    for (int64_t j = 0; j < 2; ++j) {
      int64_t idx[2] = {i, j}, origin[2] = {r0, c0}, shape[2] = {rows[i], cols[j]}, tidx[2] = {j, i};
      ca_arg_t args[4] = {ca_arg_i64(CA_FLOAT64), ca_arg_i64(k), ca_arg_tuple(origin, 2), ca_arg_tuple(shape, 2)};
      ca_key_t key = {"eye", idx, 2};
      ASSERT_EQ(ca_graph_add_task(g, &key, "ca.eye", args, 4), CA_OK) << ca_last_error_message();
      const int64_t perm[2] = {1, 0};
      ca_arg_t targs[2] = {ca_arg_key("eye", idx, 2), ca_arg_tuple(perm, 2)};
      ca_key_t tkey = {"eyeT", tidx, 2};
      ASSERT_EQ(ca_graph_add_task(g, &tkey, "ca.shape.transpose", targs, 2), CA_OK) << ca_last_error_message();
      c0 += cols[j];
    }
    r0 += rows[i];
  }
  const int64_t nb[2] = {2, 2}, sizes[4] = {3, 2, 2, 2}, sizesT[4] = {2, 2, 3, 2};
  ca_chunks_t ch = {2, nb, sizes}, chT = {2, nb, sizesT};
  ca_array_t *a = nullptr, *t = nullptr;
  ASSERT_EQ(ca_array_new(&a, g, "eye", &ch, CA_FLOAT64), CA_OK) << ca_last_error_message();
  ASSERT_EQ(ca_array_new(&t, g, "eyeT", &chT, CA_FLOAT64), CA_OK) << ca_last_error_message();
  double got[20], gotT[20];
  ASSERT_EQ(ca_array_compute_into(ctx, a, got, sizeof got, nullptr), CA_OK) << ca_last_error_message();
  ASSERT_EQ(ca_array_compute_into(ctx, t, gotT, sizeof gotT, nullptr), CA_OK) << ca_last_error_message();
  for (int r = 0; r < 5; ++r)
    for (int c = 0; c < 4; ++c) {
      double want = c - r == k ? 1.0 : 0.0;  // numpy.eye(5, 4, 1)
      EXPECT_EQ(got[r * 4 + c], want) << r << "," << c;
      EXPECT_EQ(gotT[c * 5 + r], want) << r << "," << c;
    }
  ca_array_free(a);
  ca_array_free(t);
  ca_graph_free(g);
  ca_context_free(ctx);
}

}  // namespace

namespace {

// graph.h's example, as written there (builtin kernels only): it computes five 3.0s.
TEST(KernelDocs, GraphHeaderExampleRuns) {
  ca_context_t *ctx = nullptr;
  ASSERT_EQ(ca_context_new(&ctx, nullptr), CA_OK);
  ca_graph_t *g;  ca_graph_new(&g);
  int64_t i0 = 0, i1 = 1, shape[1] = {5};
  double one = 1.0, two = 2.0;
  ca_key_t x0 = {"x", &i0, 1}, x1 = {"x", &i1, 1}, y0 = {"y", &i0, 1};
  ca_arg_t f1[3] = {ca_arg_tuple(shape, 1), ca_arg_i64(CA_FLOAT64), ca_arg_bytes(&one, sizeof one)};
  ca_arg_t f2[3] = {ca_arg_tuple(shape, 1), ca_arg_i64(CA_FLOAT64), ca_arg_bytes(&two, sizeof two)};
  ASSERT_EQ(ca_graph_add_task(g, &x0, "ca.shape.fill", f1, 3), CA_OK);
  ASSERT_EQ(ca_graph_add_task(g, &x1, "ca.shape.fill", f2, 3), CA_OK);
  ca_arg_t refs[2] = {ca_arg_key("x", &i0, 1), ca_arg_key("x", &i1, 1)};
  ca_arg_t sum = ca_arg_list(refs, 2);
  ASSERT_EQ(ca_graph_add_task(g, &y0, "ca.linalg.sum", &sum, 1), CA_OK);
  ca_block_t *res;
  ASSERT_EQ(ca_compute(&res, ctx, g, &y0, 1, NULL), CA_OK) << ca_last_error_message();
  ASSERT_EQ(ca_block_ndim(res), 1);
  ASSERT_EQ(ca_block_shape(res)[0], 5);
  const double *v = static_cast<const double *>(ca_block_data(res));
  for (int i = 0; i < 5; ++i) EXPECT_EQ(v[i], 3.0);
  ca_block_free(res);
  ca_graph_free(g);
  ca_context_free(ctx);
}

}  // namespace
