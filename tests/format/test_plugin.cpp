// ca_plugin_load with real shared objects: the example plugin, and objects that must be refused.
#include <gtest/gtest.h>

#include <chunkarray/chunkarray.h>

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
  ASSERT_EQ(ca_arrays_load(&arrays, &n, file.c_str()), CA_OK) << ca_last_error_message();
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
  ca_arrays_free(arrays, n);
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
  // Not a shared object (a text file) and no ABI symbol (libm has none).
  EXPECT_EQ(ca_plugin_load(c.ctx, env("CA_EXAMPLE_GRAPH").c_str()), CA_EIO);
  EXPECT_EQ(ca_plugin_load(c.ctx, "libm.so.6"), CA_ENOTFOUND);
  EXPECT_NE(std::string(ca_last_error_message()).find("ca_plugin_abi_version"), std::string::npos);
  EXPECT_EQ(ca_plugin_load(nullptr, "x"), CA_EINVAL);
  EXPECT_EQ(ca_plugin_load(c.ctx, nullptr), CA_EINVAL);
}
