// ca_plugin_load with real shared objects: the example plugin, and objects that must be refused.
#include <gtest/gtest.h>

#include <chunkarray/chunkarray.h>
#include "../support/save_load.h"

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

namespace {
std::string env(const char *k) {
  const char *v = std::getenv(k);
  return v ? v : "";
}
struct Ctx {
  ca_context_t *ctx = nullptr;
  Ctx() { EXPECT_EQ(ca_context_new(&ctx, nullptr), CA_OK); }
  ~Ctx() { ca_context_free(ctx); }
};
}  // namespace

TEST(Plugin, ExamplePluginRunsTheSavedGraph) {
  Ctx c;
  std::string file = env("CA_EXAMPLE_GRAPH");
  ca_array_t **arrays = nullptr;
  size_t n = 0;
  ASSERT_EQ(load_from(NULL, &arrays, &n, file.c_str(), NULL, 0), CA_OK) << ca_last_error_message();
  ASSERT_EQ(n, 2u);
  std::vector<double> out(60);
  // Without the plugin the kernels are unknown.
  EXPECT_EQ(ca_array_compute_into(c.ctx, arrays[0], out.data(), 480, nullptr), CA_ENOTFOUND);
  EXPECT_NE(std::string(ca_last_error_message()).find("example.affine"), std::string::npos);
  ASSERT_EQ(ca_plugin_load(c.ctx, env("CA_EXAMPLE_PLUGIN").c_str()), CA_OK) << ca_last_error_message();
  ASSERT_EQ(ca_array_compute_into(c.ctx, arrays[0], out.data(), 480, nullptr), CA_OK) << ca_last_error_message();
  for (int i = 0; i < 60; ++i) EXPECT_EQ(out[size_t(i)], 0.5 * i - 3.0);
  ASSERT_EQ(ca_array_compute_into(c.ctx, arrays[1], out.data(), 480, nullptr), CA_OK) << ca_last_error_message();
  for (int i = 0; i < 60; ++i) {
    double cl = i < 10 ? 10 : i > 40 ? 40 : i, af = 0.5 * i - 3.0;
    EXPECT_DOUBLE_EQ(out[size_t(i)], std::sqrt(cl * cl + af * af));
  }
  // Loading it again into the same context: its kernels exist already.
  EXPECT_EQ(ca_plugin_load(c.ctx, env("CA_EXAMPLE_PLUGIN").c_str()), CA_EEXISTS);
  EXPECT_NE(std::string(ca_last_error_message()).find("ca_plugin_init failed"), std::string::npos);
  // Into another context: fine.
  Ctx c2;
  EXPECT_EQ(ca_plugin_load(c2.ctx, env("CA_EXAMPLE_PLUGIN").c_str()), CA_OK) << ca_last_error_message();
  EXPECT_EQ(ca_plugin_abi(), CA_PLUGIN_ABI_VERSION);
  ca_array_free_many(arrays, n);
}

TEST(Plugin, ClearErrors) {
  Ctx c;
  std::string dir = env("CA_BAD_PLUGIN_DIR");
  EXPECT_EQ(ca_plugin_load(c.ctx, (dir + "/no-such-plugin.so").c_str()), CA_ENOTFOUND);
  EXPECT_NE(std::string(ca_last_error_message()).find("no-such-plugin.so"), std::string::npos);
  EXPECT_EQ(ca_plugin_load(c.ctx, (dir + "/libplugin_noinit.so").c_str()), CA_ENOTFOUND);
  EXPECT_NE(std::string(ca_last_error_message()).find("ca_plugin_init"), std::string::npos) << ca_last_error_message();
  EXPECT_EQ(ca_plugin_load(c.ctx, (dir + "/libplugin_badabi.so").c_str()), CA_EVERSION);
  EXPECT_NE(std::string(ca_last_error_message()).find("999"), std::string::npos) << ca_last_error_message();
  EXPECT_EQ(ca_plugin_load(c.ctx, (dir + "/libplugin_badinit.so").c_str()), CA_EINVAL);
  EXPECT_NE(std::string(ca_last_error_message()).find("ca_plugin_init failed"), std::string::npos);
  // An init returning 7 (no chunkarray status) is CA_EKERNEL, and the message gives the value.
  EXPECT_EQ(ca_plugin_load(c.ctx, (dir + "/libplugin_badraw.so").c_str()), CA_EKERNEL);
  EXPECT_NE(std::string(ca_last_error_message()).find("failed with 7"), std::string::npos) << ca_last_error_message();
  // Not a shared object (a text file) and no ABI symbol (libm has none).
  EXPECT_EQ(ca_plugin_load(c.ctx, env("CA_EXAMPLE_GRAPH").c_str()), CA_EIO);
  EXPECT_EQ(ca_plugin_load(c.ctx, "libm.so.6"), CA_ENOTFOUND);
  EXPECT_NE(std::string(ca_last_error_message()).find("ca_plugin_abi_version"), std::string::npos);
  EXPECT_EQ(ca_plugin_load(nullptr, "x"), CA_EINVAL);
  EXPECT_EQ(ca_plugin_load(c.ctx, nullptr), CA_EINVAL);
}

// An init that registers a kernel and replaces another, then fails: both are undone.
TEST(Plugin, FailedInitIsRolledBack) {
  Ctx c;
  std::string dir = env("CA_BAD_PLUGIN_DIR");
  int64_t before = ca_context_num_kernels(c.ctx);
  ca_kernel_t *identity = nullptr;
  ASSERT_EQ(ca_context_get_kernel(&identity, c.ctx, "ca.identity"), CA_OK);
  EXPECT_EQ(ca_plugin_load(c.ctx, (dir + "/libplugin_badhalf.so").c_str()), CA_EINVAL);
  std::string msg = ca_last_error_message();
  EXPECT_NE(msg.find("registrations were undone"), std::string::npos) << msg;
  EXPECT_EQ(ca_context_num_kernels(c.ctx), before);
  ca_kernel_t *k = nullptr;
  EXPECT_EQ(ca_context_get_kernel(&k, c.ctx, "half.new"), CA_ENOTFOUND);
  ASSERT_EQ(ca_context_get_kernel(&k, c.ctx, "ca.identity"), CA_OK);
  EXPECT_EQ(k, identity);  // the builtin, not the plugin's replacement
  ca_kernel_free(k);
  ca_kernel_free(identity);
  // The builtin still computes: a graph using ca.identity.
  int64_t nb[1] = {2}, sizes[2] = {3, 2};
  ca_chunks_t ch = {1, nb, sizes};
  ca_array_t *x = nullptr, *y = nullptr;
  ASSERT_EQ(ca_array_arange(&x, 0, 5, 1, &ch, CA_FLOAT64), CA_OK);
  ca_graph_t *g = nullptr;
  ASSERT_EQ(ca_array_graph(&g, x), CA_OK);
  ca_arg_t arg = ca_arg_indexed(ca_array_name(x), "i");
  ASSERT_EQ(ca_graph_add_blockwise(g, "copy", "i", "ca.identity", &arg, 1, nullptr), CA_OK) << ca_last_error_message();
  ASSERT_EQ(ca_array_new(&y, g, "copy", &ch, CA_FLOAT64), CA_OK) << ca_last_error_message();
  std::vector<double> out(5);
  ASSERT_EQ(ca_array_compute_into(c.ctx, y, out.data(), 40, nullptr), CA_OK) << ca_last_error_message();
  for (int i = 0; i < 5; ++i) EXPECT_EQ(out[size_t(i)], double(i));
  ca_array_free(y);
  ca_array_free(x);
  ca_graph_free(g);
}
