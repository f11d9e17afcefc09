// Kernel versions in graph files: what a save records (the layer's own, the context's, the builtin
// version of ca.* kernels), how loaded graphs keep them (copy, cull, merge, re-save), that computing or
// validating against a registry with another version fails with CA_EVERSION naming layer, kernel and
// both versions, that unrecorded versions accept any kernel, and that corrupt version lists are
// CA_EFORMAT. Files written before versions were recorded (tests/format/golden) load unrecorded.
/* This file also tests the deprecated save/load aliases (format.h, "Deprecated"). */
#define CA_DISABLE_DEPRECATE_WARNINGS
#include <capnp/message.h>
#include <capnp/serialize.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chunkarray/chunkarray.h>
#include "../support/save_load.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "capi_handles.hpp"
#include "builtins/builtins.hpp"
#include "core/block.hpp"
#include "format/graph_file.capnp.h"

namespace {

// make(n): a 0-d float64 block holding n.
ca_status_t k_make(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  if (nargs != 1 || args[0].kind != CA_ARG_INT64) {
    ca_kernel_set_error(kctx, "make takes one int64");
    return CA_EINVAL;
  }
  ca_status_t st = ca_block_new(out, CA_FLOAT64, 0, nullptr);
  if (st != CA_OK) return st;
  *static_cast<double *>(ca_block_data(*out)) = double(args[0].u.i64);
  return CA_OK;
}

// scale(x, f): x * f elementwise (float64 blocks of any shape).
ca_status_t k_scale(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  if (nargs != 2 || args[0].kind != CA_ARG_BLOCK || args[1].kind != CA_ARG_FLOAT64 ||
      ca_block_dtype(args[0].u.block) != CA_FLOAT64) {
    ca_kernel_set_error(kctx, "scale takes a float64 block and a float64");
    return CA_EINVAL;
  }
  const ca_block_t *x = args[0].u.block;
  ca_status_t st = ca_block_new(out, CA_FLOAT64, ca_block_ndim(x), ca_block_shape(x));
  if (st != CA_OK) return st;
  const double *src = static_cast<const double *>(ca_block_data(x));
  double *dst = static_cast<double *>(ca_block_data(*out));
  for (int64_t i = 0; i < ca_block_size(x); ++i) dst[i] = src[i] * args[1].u.f64;
  return CA_OK;
}

// total([x, y, ...]): the sum of 0-d float64 blocks.
ca_status_t k_total(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  if (nargs != 1 || args[0].kind != CA_ARG_LIST) {
    ca_kernel_set_error(kctx, "total takes one list");
    return CA_EINVAL;
  }
  double sum = 0;
  for (size_t i = 0; i < args[0].u.list.len; ++i)
    sum += *static_cast<const double *>(ca_block_data(args[0].u.list.items[i].u.block));
  ca_status_t st = ca_block_new(out, CA_FLOAT64, 0, nullptr);
  if (st != CA_OK) return st;
  *static_cast<double *>(ca_block_data(*out)) = sum;
  return CA_OK;
}

// A context with the builtins and make/scale/total at the given versions (a version < 0: not registered).
struct Ctx {
  ca_context_t *ctx = nullptr;
  Ctx(int32_t make_v, int32_t scale_v, int32_t total_v = 1) {
    ca_context_options_t o = CA_CONTEXT_OPTIONS_INIT;
    o.num_threads = 2;
    EXPECT_EQ(ca_context_new(&ctx, &o), CA_OK);
    add("make", k_make, make_v);
    add("scale", k_scale, scale_v);
    add("total", k_total, total_v);
  }
  void add(const char *name, ca_kernel_fn fn, int32_t version) {
    if (version < 0) return;
    ca_kernel_options_t ko = CA_KERNEL_OPTIONS_INIT;
    ko.version = version;
    EXPECT_EQ(ca_context_register(ctx, name, fn, &ko), CA_OK) << ca_last_error_message();
  }
  ~Ctx() { ca_context_free(ctx); }
  Ctx(const Ctx &) = delete;
  Ctx &operator=(const Ctx &) = delete;
};

std::string tmpdir() {
  static std::string d = [] {
    char t[] = "/tmp/ca_kver_XXXXXX";
    const char *p = mkdtemp(t);
    return std::string(p ? p : "/tmp");
  }();
  return d;
}

// ('m', i) = make(3 + i) materialized; ('c', 0) = ca.identity(('m', 1)), ('c', 1) = make(5) (a layer of
// two kernels); 'scale-3f2a' = blockwise scale(m_i, 2.0); 'pr' = partial reduce total over it.
ca_graph_t *versions_graph() {
  ca_graph_t *g = nullptr;
  EXPECT_EQ(ca_graph_new(&g), CA_OK);
  for (int64_t i = 0; i < 2; ++i) {
    ca_key_t k = {"m", &i, 1};
    ca_arg_t a = ca_arg_i64(3 + i);
    EXPECT_EQ(ca_graph_add_task(g, &k, "make", &a, 1), CA_OK);
  }
  int64_t i0 = 0, i1 = 1;
  ca_key_t c0 = {"c", &i0, 1}, c1 = {"c", &i1, 1};
  ca_arg_t ref = ca_arg_key("m", &i1, 1), five = ca_arg_i64(5);
  EXPECT_EQ(ca_graph_add_task(g, &c0, "ca.identity", &ref, 1), CA_OK);
  EXPECT_EQ(ca_graph_add_task(g, &c1, "make", &five, 1), CA_OK);
  ca_arg_t bw[] = {ca_arg_indexed("m", "i"), ca_arg_f64(2.0)};
  EXPECT_EQ(ca_graph_add_blockwise(g, "scale-3f2a", "i", "scale", bw, 2, nullptr), CA_OK) << ca_last_error_message();
  int64_t split = 2;
  EXPECT_EQ(ca_graph_add_partial_reduce(g, "pr", "scale-3f2a", &split, 1, "total", nullptr, 0), CA_OK)
      << ca_last_error_message();
  return g;
}

std::vector<unsigned char> save(const ca_graph_t *g, const ca_context_t *ctx) {
  ca_save_options_t o = CA_SAVE_OPTIONS_INIT;
  o.context = ctx;
  void *data = nullptr;
  size_t size = 0;
  EXPECT_EQ(save_to(&data, &size, NULL, g, NULL, 0, &o), CA_OK) << ca_last_error_message();
  std::vector<unsigned char> v(static_cast<unsigned char *>(data), static_cast<unsigned char *>(data) + size);
  ca_buffer_free(data);
  return v;
}

ca_graph_t *load(const std::vector<unsigned char> &bytes) {
  ca_graph_t *h = nullptr;
  EXPECT_EQ(ca_graph_load_buffer(&h, bytes.data(), bytes.size()), CA_OK) << ca_last_error_message();
  return h;
}

int32_t version_of(const ca_graph_t *g, const char *kernel) {
  int32_t v = -1;
  EXPECT_EQ(ca_graph_kernel_version(&v, g, kernel), CA_OK) << kernel << ": " << ca_last_error_message();
  return v;
}

int32_t slot_version(const ca_graph_t *g, const char *layer, size_t slot) {
  const ca::Layer *l = ca::capi::engine(g).find(layer);
  EXPECT_NE(l, nullptr) << layer;
  return l ? l->kernel_version(slot) : -1;
}

// The values of ('scale-3f2a', 0..1), ('pr', 0) and ('c', 0..1); status of the compute.
ca_status_t compute(ca_context_t *ctx, const ca_graph_t *g, std::vector<double> *values = nullptr) {
  int64_t i0 = 0, i1 = 1;
  ca_key_t keys[] = {{"scale-3f2a", &i0, 1}, {"scale-3f2a", &i1, 1}, {"pr", &i0, 1}, {"c", &i0, 1}, {"c", &i1, 1}};
  ca_block_t *res[5] = {};
  ca_status_t st = ca_compute(res, ctx, g, keys, 5, nullptr);
  for (ca_block_t *b : res) {
    if (b && values) values->push_back(*static_cast<const double *>(ca_block_data(b)));
    ca_block_free(b);
  }
  return st;
}

const std::vector<double> kWant = {6, 8, 14, 4, 5};

}  // namespace

TEST(KernelVersions, WithoutContextOnlyBuiltinsAreRecorded) {
  ca_graph_t *g = versions_graph();
  // Built in memory: nothing recorded.
  EXPECT_EQ(version_of(g, "scale"), 0);
  EXPECT_EQ(version_of(g, "ca.identity"), 0);
  ca_graph_t *h = load(save(g, nullptr));
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(version_of(h, "ca.identity"), ca::builtin_kernel_version("ca.identity"));
  EXPECT_EQ(version_of(h, "ca.identity"), 1);
  EXPECT_EQ(version_of(h, "make"), 0);
  EXPECT_EQ(version_of(h, "scale"), 0);
  EXPECT_EQ(version_of(h, "total"), 0);
  EXPECT_EQ(slot_version(h, "c", 0), 1);  // ca.identity
  EXPECT_EQ(slot_version(h, "c", 1), 0);  // make
  // The plain save calls are the NULL-options ones: the same bytes.
  void *data = nullptr;
  size_t size = 0;
  ASSERT_EQ(ca_graph_save_buffer(g, &data, &size), CA_OK);
  auto again = save(g, nullptr);
  EXPECT_EQ(std::vector<unsigned char>(static_cast<unsigned char *>(data), static_cast<unsigned char *>(data) + size),
            again);
  ca_buffer_free(data);
  ca_graph_free(h);
  ca_graph_free(g);
}

TEST(KernelVersions, WithContextRegisteredVersionsAreRecorded) {
  Ctx c(2, 3, 4);
  ca_graph_t *g = versions_graph();
  ca_graph_t *h = load(save(g, c.ctx));
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(version_of(h, "make"), 2);
  EXPECT_EQ(version_of(h, "scale"), 3);
  EXPECT_EQ(version_of(h, "total"), 4);
  EXPECT_EQ(version_of(h, "ca.identity"), 1);
  // Materialized slots (parallel to the kernel names) and blockwise / partial-reduce layers.
  EXPECT_EQ(slot_version(h, "m", 0), 2);
  EXPECT_EQ(slot_version(h, "c", 0), 1);
  EXPECT_EQ(slot_version(h, "c", 1), 2);
  EXPECT_EQ(slot_version(h, "scale-3f2a", 0), 3);
  EXPECT_EQ(slot_version(h, "pr", 0), 4);
  // Same content as the graph saved: versions are not part of a layer's fingerprint.
  for (const ca::LayerPtr &l : ca::capi::engine(g).layers()) EXPECT_EQ(l->fingerprint(), ca::capi::engine(h).find(l->name())->fingerprint());
  std::vector<double> got;
  EXPECT_EQ(compute(c.ctx, h, &got), CA_OK) << ca_last_error_message();
  EXPECT_EQ(got, kWant);
  EXPECT_EQ(ca_graph_validate(h, c.ctx, nullptr, 0), CA_OK) << ca_last_error_message();
  ca_graph_free(h);
  ca_graph_free(g);
}

TEST(KernelVersions, MismatchFailsComputeAndValidate) {
  Ctx saved(2, 3);
  ca_graph_t *g = versions_graph();
  ca_graph_t *h = load(save(g, saved.ctx));
  ASSERT_NE(h, nullptr);
  {
    Ctx other(2, 1);  // scale is version 1 here
    int64_t live = ca::block_live_count();
    std::vector<double> got;
    EXPECT_EQ(compute(other.ctx, h, &got), CA_EVERSION);
    EXPECT_STREQ(ca_last_error_message(),
                 "ca_compute: layer 'scale-3f2a' needs kernel 'scale' version 3 (recorded in the graph); the registered 'scale' "
                 "is version 1");
    EXPECT_TRUE(got.empty());
    EXPECT_EQ(ca::block_live_count(), live);
    EXPECT_EQ(ca_graph_validate(h, other.ctx, nullptr, 0), CA_EVERSION);
    EXPECT_STREQ(ca_last_error_message(),
                 "ca_graph_validate: layer 'scale-3f2a' needs kernel 'scale' version 3 (recorded in the graph); the registered 'scale' "
                 "is version 1");
    // Keys that do not need the layer still compute.
    int64_t i1 = 1;
    ca_key_t c1 = {"c", &i1, 1};
    ca_block_t *b = nullptr;
    EXPECT_EQ(ca_compute(&b, other.ctx, h, &c1, 1, nullptr), CA_OK) << ca_last_error_message();
    ca_block_free(b);
    // Validation without a context resolves no kernel, so checks no version.
    EXPECT_EQ(ca_graph_validate(h, nullptr, nullptr, 0), CA_OK);
  }
  {
    Ctx other(7, 3);  // a materialized layer's kernel
    int64_t i0 = 0;
    ca_key_t m0 = {"m", &i0, 1};
    ca_block_t *b = nullptr;
    EXPECT_EQ(ca_compute(&b, other.ctx, h, &m0, 1, nullptr), CA_EVERSION);
    EXPECT_EQ(b, nullptr);
    EXPECT_STREQ(ca_last_error_message(),
                 "ca_compute: layer 'm' needs kernel 'make' version 2 (recorded in the graph); the registered 'make' is version 7");
  }
  ca_graph_free(h);
  ca_graph_free(g);
}

TEST(KernelVersions, UnrecordedAcceptsAnyVersion) {
  ca_graph_t *g = versions_graph();
  ca_graph_t *h = load(save(g, nullptr));  // user kernels unrecorded
  ASSERT_NE(h, nullptr);
  for (int32_t v : {0, 1, 9}) {
    Ctx c(v, v, v);
    std::vector<double> got;
    EXPECT_EQ(compute(c.ctx, h, &got), CA_OK) << v << ": " << ca_last_error_message();
    EXPECT_EQ(got, kWant);
    got.clear();
    EXPECT_EQ(compute(c.ctx, g, &got), CA_OK) << v << ": " << ca_last_error_message();
    EXPECT_EQ(got, kWant);
  }
  ca_graph_free(h);
  ca_graph_free(g);
}

TEST(KernelVersions, SaveWithContextMissingKernelFails) {
  Ctx c(2, -1);  // scale not registered
  ca_graph_t *g = versions_graph();
  ca_save_options_t o = CA_SAVE_OPTIONS_INIT;
  o.context = c.ctx;
  void *data = reinterpret_cast<void *>(1);
  size_t size = 7;
  EXPECT_EQ(save_to(&data, &size, NULL, g, NULL, 0, &o), CA_ENOTFOUND);
  EXPECT_EQ(data, nullptr);
  EXPECT_EQ(size, 0u);
  std::string msg = ca_last_error_message();
  EXPECT_NE(msg.find("kernel 'scale'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("layer 'scale-3f2a'"), std::string::npos) << msg;
  std::string path = tmpdir() + "/missing_kernel.cagraph";
  EXPECT_EQ(ca_graph_save_opts(g, path.c_str(), &o), CA_ENOTFOUND);
  EXPECT_NE(access(path.c_str(), F_OK), 0) << "a file was written";
  // A context without the builtins cannot record ca.identity either.
  ca_context_options_t co = CA_CONTEXT_OPTIONS_INIT;
  co.builtin_kernels = 0;
  ca_context_t *empty = nullptr;
  ASSERT_EQ(ca_context_new(&empty, &co), CA_OK);
  ASSERT_EQ(ca_context_register(empty, "make", k_make, nullptr), CA_OK);
  ASSERT_EQ(ca_context_register(empty, "scale", k_scale, nullptr), CA_OK);
  ASSERT_EQ(ca_context_register(empty, "total", k_total, nullptr), CA_OK);
  o.context = empty;
  EXPECT_EQ(ca_graph_save_opts(g, path.c_str(), &o), CA_ENOTFOUND);
  EXPECT_NE(std::string(ca_last_error_message()).find("'ca.identity'"), std::string::npos) << ca_last_error_message();
  ca_context_free(empty);
  ca_graph_free(g);
}

TEST(KernelVersions, LoadedGraphResavedKeepsItsVersions) {
  Ctx saved(2, 3);
  ca_graph_t *g = versions_graph();
  ca_graph_t *h = load(save(g, saved.ctx));
  ASSERT_NE(h, nullptr);
  // Without a context (as ca_graph_save): the recorded versions, not the defaults.
  ca_graph_t *h2 = load(save(h, nullptr));
  ASSERT_NE(h2, nullptr);
  EXPECT_EQ(version_of(h2, "make"), 2);
  EXPECT_EQ(version_of(h2, "scale"), 3);
  EXPECT_EQ(slot_version(h2, "c", 1), 2);
  // Through a file as well.
  std::string path = tmpdir() + "/resaved.cagraph";
  ASSERT_EQ(ca_graph_save(h2, path.c_str()), CA_OK);
  ca_graph_t *h3 = nullptr;
  ASSERT_EQ(ca_graph_load(&h3, path.c_str()), CA_OK);
  EXPECT_EQ(version_of(h3, "scale"), 3);
  // With a context of the same versions: fine; of another version: CA_EVERSION naming both.
  ca_graph_t *h4 = load(save(h3, saved.ctx));
  EXPECT_EQ(version_of(h4, "scale"), 3);
  Ctx other(2, 5);
  ca_save_options_t o = CA_SAVE_OPTIONS_INIT;
  o.context = other.ctx;
  void *data = nullptr;
  size_t size = 0;
  EXPECT_EQ(save_to(&data, &size, NULL, h3, NULL, 0, &o), CA_EVERSION);
  EXPECT_EQ(data, nullptr);
  std::string msg = ca_last_error_message();
  EXPECT_NE(msg.find("layer 'scale-3f2a' records kernel 'scale' version 3"), std::string::npos) << msg;
  EXPECT_NE(msg.find("is version 5"), std::string::npos) << msg;
  ca_graph_free(h4);
  ca_graph_free(h3);
  ca_graph_free(h2);
  ca_graph_free(h);
  ca_graph_free(g);
}

TEST(KernelVersions, CopyCullAndMergeKeepVersions) {
  Ctx saved(2, 3);
  ca_graph_t *g = versions_graph();
  ca_graph_t *h = load(save(g, saved.ctx));
  ASSERT_NE(h, nullptr);
  ca_graph_t *cp = nullptr;
  ASSERT_EQ(ca_graph_copy(&cp, h), CA_OK);
  EXPECT_EQ(version_of(cp, "scale"), 3);
  // Adding a task to a shared (copied) materialized layer copies it: versions follow the names.
  int64_t i2 = 2;
  ca_key_t c2 = {"c", &i2, 1};
  ca_arg_t six = ca_arg_i64(6);
  ASSERT_EQ(ca_graph_add_task(cp, &c2, "total", &six, 0), CA_OK);
  EXPECT_EQ(slot_version(cp, "c", 0), 1);
  EXPECT_EQ(slot_version(cp, "c", 1), 2);
  EXPECT_EQ(slot_version(cp, "c", 2), 0);  // a new kernel slot: unrecorded
  EXPECT_EQ(slot_version(h, "c", 1), 2);
  // Cull keeps a subset of a materialized layer's kernels: ('c', 1) only calls make.
  int64_t i1 = 1;
  ca_key_t want = {"c", &i1, 1};
  ca_graph_t *cu = nullptr;
  ASSERT_EQ(ca_graph_cull(&cu, h, &want, 1), CA_OK);
  ASSERT_EQ(ca::capi::engine(cu).find("c")->kernel_names(), std::vector<std::string>{"make"});
  EXPECT_EQ(slot_version(cu, "c", 0), 2);
  // Merging the loaded graph with the in-memory one it came from (both orders): the same layers, and
  // the recorded versions win over the unrecorded ones.
  ca_graph_t *m1 = nullptr, *m2 = nullptr;
  ASSERT_EQ(ca_graph_copy(&m1, g), CA_OK);
  ASSERT_EQ(ca_graph_merge(m1, h), CA_OK) << ca_last_error_message();
  EXPECT_EQ(version_of(m1, "scale"), 3);
  EXPECT_EQ(version_of(m1, "make"), 2);
  ASSERT_EQ(ca_graph_copy(&m2, h), CA_OK);
  ASSERT_EQ(ca_graph_merge(m2, g), CA_OK) << ca_last_error_message();
  EXPECT_EQ(version_of(m2, "scale"), 3);
  // Two recordings of one layer at different versions do not merge.
  Ctx other(2, 4);
  ca_graph_t *h4 = load(save(g, other.ctx));
  EXPECT_EQ(ca_graph_merge(m2, h4), CA_EEXISTS);
  std::string msg = ca_last_error_message();
  EXPECT_NE(msg.find("layer 'scale-3f2a'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("version 3"), std::string::npos) << msg;
  EXPECT_NE(msg.find("version 4"), std::string::npos) << msg;
  EXPECT_EQ(version_of(m2, "scale"), 3);  // all or nothing
  for (ca_graph_t *x : {cp, cu, m1, m2, h4, h, g}) ca_graph_free(x);
}

TEST(KernelVersions, KernelVersionQuery) {
  ca_graph_t *g = versions_graph();
  int32_t v = 5;
  EXPECT_EQ(ca_graph_kernel_version(&v, g, "nope"), CA_ENOTFOUND);
  EXPECT_EQ(v, 0);
  EXPECT_NE(std::string(ca_last_error_message()).find("'nope'"), std::string::npos);
  EXPECT_EQ(ca_graph_kernel_version(nullptr, g, "make"), CA_EINVAL);
  EXPECT_EQ(ca_graph_kernel_version(&v, nullptr, "make"), CA_EINVAL);
  EXPECT_EQ(ca_graph_kernel_version(&v, g, nullptr), CA_EINVAL);
  // Two different layers recording different versions of one kernel: reported, and no context
  // computes both.
  Ctx v2(2, 2), v3(3, 3);
  ca_graph_t *a = load(save(g, v2.ctx));
  ca_graph_t *b = nullptr;
  ASSERT_EQ(ca_graph_new(&b), CA_OK);
  int64_t i0 = 0;
  ca_key_t k = {"other", &i0, 1};
  ca_arg_t one = ca_arg_i64(1);
  ASSERT_EQ(ca_graph_add_task(b, &k, "make", &one, 1), CA_OK);
  ca_graph_t *b3 = load(save(b, v3.ctx));
  ASSERT_EQ(ca_graph_merge(a, b3), CA_OK);
  EXPECT_EQ(ca_graph_kernel_version(&v, a, "make"), CA_EVERSION);
  EXPECT_EQ(v, 0);
  std::string msg = ca_last_error_message();
  EXPECT_EQ(msg, "ca_graph_kernel_version: layer 'c' records kernel 'make' version 2 but layer 'other' records "
                 "version 3");
  EXPECT_EQ(version_of(a, "scale"), 2);
  ca_block_t *res = nullptr;
  EXPECT_EQ(ca_compute(&res, v3.ctx, a, &k, 1, nullptr), CA_OK);
  ca_block_free(res);
  EXPECT_EQ(ca_graph_validate(a, v3.ctx, nullptr, 0), CA_EVERSION);
  EXPECT_EQ(ca_graph_validate(a, v2.ctx, nullptr, 0), CA_EVERSION);
  for (ca_graph_t *x : {a, b, b3, g}) ca_graph_free(x);
}

TEST(KernelVersions, SaveOptionsAndKernelVersionChecks) {
  ca_graph_t *g = versions_graph();
  ca_save_options_t o = CA_SAVE_OPTIONS_INIT;
  EXPECT_EQ(o.struct_size, sizeof(ca_save_options_t));
  EXPECT_EQ(o.context, nullptr);
  o.struct_size = 0;
  void *data = nullptr;
  size_t size = 0;
  EXPECT_EQ(save_to(&data, &size, NULL, g, NULL, 0, &o), CA_EINVAL);
  EXPECT_NE(std::string(ca_last_error_message()).find("struct_size"), std::string::npos);
  EXPECT_EQ(ca_graph_save_opts(g, (tmpdir() + "/x.cagraph").c_str(), &o), CA_EINVAL);
  // An older caller's struct (without the context field) means no context (the deprecated *_opts
  // calls, which took the 0.1 struct); ca_save needs the struct with its target fields.
  Ctx c(2, 3);
  o.context = c.ctx;
  o.struct_size = sizeof(uint32_t);
  EXPECT_EQ(save_to(&data, &size, NULL, g, NULL, 0, &o), CA_EINVAL);
  std::string old = tmpdir() + "/old-struct.cagraph";
  ASSERT_EQ(ca_graph_save_opts(g, old.c_str(), &o), CA_OK) << ca_last_error_message();
  ca_graph_t *h = nullptr;
  ASSERT_EQ(load_from(&h, NULL, NULL, old.c_str(), NULL, 0), CA_OK);
  EXPECT_EQ(version_of(h, "scale"), 0);
  ca_graph_free(h);
  // Kernels cannot have negative versions (files could not record them); 0 is "unversioned".
  static int freed = 0;
  ca_kernel_options_t ko = CA_KERNEL_OPTIONS_INIT;
  ko.version = -1;
  ko.user_data = &freed;
  ko.free_user_data = [](void *p) { ++*static_cast<int *>(p); };
  ca_kernel_t *k = reinterpret_cast<ca_kernel_t *>(1);
  EXPECT_EQ(ca_kernel_new(&k, "neg", k_make, &ko), CA_EINVAL);
  EXPECT_EQ(k, nullptr);
  EXPECT_EQ(freed, 1);
  EXPECT_NE(std::string(ca_last_error_message()).find("negative version -1"), std::string::npos);
  ko.version = 0;
  ko.user_data = nullptr;
  ko.free_user_data = nullptr;
  ASSERT_EQ(ca_kernel_new(&k, "zero", k_make, &ko), CA_OK);
  EXPECT_EQ(ca_kernel_version(k), 0);
  ca_kernel_free(k);
  ca_graph_free(g);
}

// Arrays: ca_arrays_save_opts records the context's versions of the kernels their layers call;
// computing the loaded array where the kernel has another version fails.
TEST(KernelVersions, ArraysSaveAndCompute) {
  Ctx saved(1, 2);
  int64_t nb[1] = {2}, sizes[2] = {3, 2};
  ca_chunks_t ch = {1, nb, sizes};
  ca_array_t *x = nullptr, *y = nullptr;
  ASSERT_EQ(ca_array_arange(&x, 0, 5, 1, &ch, CA_FLOAT64), CA_OK);
  ca_map_blocks_options_t mo = CA_MAP_BLOCKS_OPTIONS_INIT;
  mo.dtype = CA_FLOAT64;
  mo.name = "scaled";
  ca_arg_t f = ca_arg_f64(3.0);
  ASSERT_EQ(ca_array_map_blocks(&y, "scale", (const ca_array_t *const *)&x, 1, &f, 1, &mo), CA_OK)
      << ca_last_error_message();
  ca_save_options_t o = CA_SAVE_OPTIONS_INIT;
  o.context = saved.ctx;
  std::string path = tmpdir() + "/scaled.cagraph";
  ASSERT_EQ(ca_arrays_save_opts((const ca_array_t *const *)&y, 1, path.c_str(), &o), CA_OK) << ca_last_error_message();
  void *data = nullptr;
  size_t size = 0;
  ASSERT_EQ(save_to(&data, &size, NULL, NULL, (const ca_array_t *const *)&y, 1, &o), CA_OK);
  ca_array_t **list = nullptr;
  size_t n = 0;
  ASSERT_EQ(ca_arrays_load_buffer(&list, &n, data, size), CA_OK);
  ca_buffer_free(data);
  ca_arrays_free(list, n);
  ca_array_t *z = nullptr;
  ASSERT_EQ(ca_array_load(&z, path.c_str()), CA_OK) << ca_last_error_message();
  ca_graph_t *zg = nullptr;
  ASSERT_EQ(load_from(&zg, nullptr, nullptr, path.c_str(), NULL, 0), CA_OK);
  EXPECT_EQ(version_of(zg, "scale"), 2);
  ca_keylist_t *kernels = nullptr;
  ASSERT_EQ(ca_graph_kernel_names(&kernels, zg), CA_OK);
  for (size_t i = 0; i < ca_keylist_size(kernels); ++i) {
    ca_key_t k;
    ca_keylist_get(kernels, i, &k);
    if (std::strncmp(k.name, "ca.", 3) == 0 && std::strcmp(k.name, "ca.data") != 0) {
      EXPECT_EQ(version_of(zg, k.name), ca::builtin_kernel_version(k.name)) << k.name;
    }
  }
  ca_keylist_free(kernels);
  ca_graph_free(zg);
  double out[5] = {};
  EXPECT_EQ(ca_array_compute_into(saved.ctx, z, out, sizeof out, nullptr), CA_OK) << ca_last_error_message();
  EXPECT_EQ(out[4], 12.0);
  Ctx other(1, 1);
  ca_block_t *b = nullptr;
  EXPECT_EQ(ca_array_compute(&b, other.ctx, z, nullptr), CA_EVERSION);
  EXPECT_EQ(b, nullptr);
  EXPECT_EQ(std::string(ca_last_error_message()),
            std::string("ca_array_compute: layer '") + ca_array_name(y) +
                "' needs kernel 'scale' version 2 (recorded in the graph); the registered 'scale' is version 1");
  // Operations on the loaded array build new, unrecorded layers over the recorded one.
  ca_array_t *w = nullptr;
  ASSERT_EQ(ca_array_map_blocks(&w, "scale", (const ca_array_t *const *)&z, 1, &f, 1, nullptr), CA_OK);
  EXPECT_EQ(ca_array_compute(&b, other.ctx, w, nullptr), CA_EVERSION);
  EXPECT_EQ(ca_array_compute(&b, saved.ctx, w, nullptr), CA_OK) << ca_last_error_message();
  ca_block_free(b);
  for (ca_array_t *a : {x, y, z, w}) ca_array_free(a);
}

namespace {

// Re-encode a saved graph after changing its message.
template <class F>
std::vector<unsigned char> edit(const std::vector<unsigned char> &bytes, F &&change) {
  std::vector<capnp::word> words((bytes.size() - 16) / sizeof(capnp::word));
  std::memcpy(words.data(), bytes.data() + 16, bytes.size() - 16);
  capnp::FlatArrayMessageReader reader(kj::ArrayPtr<const capnp::word>(words.data(), words.size()));
  capnp::MallocMessageBuilder msg;
  msg.setRoot(reader.getRoot<ca::format::schema::File>());
  change(msg.getRoot<ca::format::schema::File>());
  auto flat = capnp::messageToFlatArray(msg);
  auto out = std::vector<unsigned char>(bytes.begin(), bytes.begin() + 16);
  out.insert(out.end(), flat.asBytes().begin(), flat.asBytes().end());
  return out;
}

ca::format::schema::Layer::Builder layer_named(ca::format::schema::File::Builder f, const char *name) {
  for (auto l : f.getLayers())
    if (std::string(l.getName().cStr()) == name) return l;
  ADD_FAILURE() << "no layer " << name;
  return f.getLayers()[0];
}

void expect_format_error(const std::vector<unsigned char> &bytes, const char *what) {
  ca_graph_t *h = reinterpret_cast<ca_graph_t *>(1);
  EXPECT_EQ(ca_graph_load_buffer(&h, bytes.data(), bytes.size()), CA_EFORMAT) << what;
  EXPECT_EQ(h, nullptr);
  EXPECT_NE(std::string(ca_last_error_message()).find(what), std::string::npos) << ca_last_error_message();
}

}  // namespace

TEST(KernelVersions, CorruptVersionsAreFormatErrors) {
  Ctx c(2, 3);
  ca_graph_t *g = versions_graph();
  auto bytes = save(g, c.ctx);
  ca_graph_free(g);
  // Unchanged: loads.
  ca_graph_t *h = load(edit(bytes, [](auto) {}));
  EXPECT_EQ(version_of(h, "make"), 2);
  ca_graph_free(h);
  // A list of another length than the kernels.
  expect_format_error(edit(bytes,
                           [](auto f) {
                             auto kv = layer_named(f, "c").getMaterialized().initKernelVersions(3);
                             for (unsigned i = 0; i < 3; ++i) kv.set(i, 1);
                           }),
                      "layer 'c': 3 kernel versions for 2 kernels");
  // Negative versions.
  expect_format_error(edit(bytes, [](auto f) { layer_named(f, "c").getMaterialized().getKernelVersions().set(1, -2); }),
                      "layer 'c': kernel 'make' has negative version -2");
  expect_format_error(edit(bytes, [](auto f) { layer_named(f, "scale-3f2a").getBlockwise().setKernelVersion(-1); }),
                      "layer 'scale-3f2a': kernel 'scale' has negative version -1");
  // An empty list is "not recorded" (as in files written before versions were).
  h = load(edit(bytes, [](auto f) { layer_named(f, "c").getMaterialized().initKernelVersions(0); }));
  EXPECT_EQ(slot_version(h, "c", 1), 0);
  EXPECT_EQ(slot_version(h, "m", 0), 2);
  ca_graph_free(h);
}

// Files written before kernel versions were recorded load with every version unrecorded (and their
// arrays compute: the GoldenFiles test of test_format); re-saving them records the builtin versions.
// versioned_graph.cagraph (written by this test with CA_WRITE_GOLDEN_VERSIONED=1) keeps its recorded
// versions and computes where the kernels have them.
TEST(KernelVersions, GoldenFiles) {
  const char *dir = std::getenv("CA_GOLDEN_DIR");
  if (!dir) GTEST_SKIP() << "CA_GOLDEN_DIR not set";
  for (const char *old : {"rich_graph.cagraph", "pipelines.cagraph"}) {
    ca_graph_t *h = nullptr;
    ASSERT_EQ(ca_graph_load(&h, (std::string(dir) + "/" + old).c_str()), CA_OK) << ca_last_error_message();
    size_t slots = 0;
    for (const ca::LayerPtr &l : ca::capi::engine(h).layers()) {
      EXPECT_FALSE(l->records_kernel_versions()) << old << ": " << l->name();
      for (size_t k = 0; k < l->kernel_names().size(); ++k, ++slots) EXPECT_EQ(l->kernel_version(k), 0);
    }
    EXPECT_GT(slots, 0u);
    ca_graph_t *again = load(save(h, nullptr));
    ca_keylist_t *kernels = nullptr;
    ASSERT_EQ(ca_graph_kernel_names(&kernels, again), CA_OK);
    for (size_t i = 0; i < ca_keylist_size(kernels); ++i) {
      ca_key_t k;
      ca_keylist_get(kernels, i, &k);
      EXPECT_EQ(version_of(h, k.name), 0) << k.name;
      bool builtin = std::strncmp(k.name, "ca.", 3) == 0 && std::strcmp(k.name, "ca.data") != 0;
      EXPECT_EQ(version_of(again, k.name), builtin ? ca::builtin_kernel_version(k.name) : 0) << k.name;
    }
    ca_keylist_free(kernels);
    ca_graph_free(again);
    ca_graph_free(h);
  }

  std::string path = std::string(dir) + "/versioned_graph.cagraph";
  if (std::getenv("CA_WRITE_GOLDEN_VERSIONED")) {
    Ctx c(2, 3, 4);
    ca_graph_t *g = versions_graph();
    ca_save_options_t o = CA_SAVE_OPTIONS_INIT;
    o.context = c.ctx;
    ASSERT_EQ(ca_graph_save_opts(g, path.c_str(), &o), CA_OK) << ca_last_error_message();
    ca_graph_free(g);
  }
  ca_graph_t *h = nullptr;
  ASSERT_EQ(ca_graph_load(&h, path.c_str()), CA_OK) << ca_last_error_message();
  EXPECT_EQ(version_of(h, "make"), 2);
  EXPECT_EQ(version_of(h, "scale"), 3);
  EXPECT_EQ(version_of(h, "total"), 4);
  EXPECT_EQ(version_of(h, "ca.identity"), 1);
  EXPECT_EQ(slot_version(h, "c", 0), 1);
  EXPECT_EQ(slot_version(h, "c", 1), 2);
  ca_graph_t *g = versions_graph();
  for (const ca::LayerPtr &l : ca::capi::engine(g).layers()) EXPECT_EQ(l->fingerprint(), ca::capi::engine(h).find(l->name())->fingerprint());
  ca_graph_free(g);
  Ctx right(2, 3, 4), wrong(2, 3, 1);
  std::vector<double> got;
  EXPECT_EQ(compute(right.ctx, h, &got), CA_OK) << ca_last_error_message();
  EXPECT_EQ(got, kWant);
  EXPECT_EQ(compute(wrong.ctx, h), CA_EVERSION);
  EXPECT_STREQ(ca_last_error_message(),
               "ca_compute: layer 'pr' needs kernel 'total' version 4 (recorded in the graph); the registered 'total' is version 1");
  ca_graph_free(h);
}
