// libFuzzer target over the graph file loader (src/format/reader.cpp) and what a loaded graph
// offers: every input either fails with a ca::Error or loads into a graph whose tasks can all be
// emitted, whose keys are found again, and which saves and reloads to the same layers.
// Built with clang++-14 -fsanitize=fuzzer,address,undefined from only the sources the loader needs
// (tests/fuzz/meson.build); run by tests/fuzz/run_fuzz.sh.
#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "format/format.hpp"

namespace {

// Walks a task without keeping anything (list nesting must balance).
class CountEmitter final : public ca::TaskEmitter {
 public:
  int64_t items = 0;
  int depth = 0;
  void kernel(int32_t) override {}
  void literal(const ca_arg_t &) override { ++items; }
  void literal_copy(const ca_arg_t &) override { ++items; }
  void ref(int32_t slot, const ca::Index *, int32_t) override {
    if (slot < 0) __builtin_trap();
    ++items;
  }
  void begin_list(size_t) override { ++depth; }
  void end_list() override {
    if (--depth < 0) __builtin_trap();
  }
};

// Keys one task of a blockwise layer references (the loader allows up to 2^24: too many to emit
// here for every input).
int64_t fan_in(const ca::Layer &l) {
  if (l.kind() != ca::LayerKind::Blockwise) return 1;
  int64_t total = 0;
  for (const ca::BlockwiseArg &a : static_cast<const ca::BlockwiseLayer &>(l).args()) {
    int64_t f = 1;
    for (const ca::DimMap &m : a.dims)
      if (m.kind == ca::DimMap::All || m.kind == ca::DimMap::Group)
        f *= std::max<int64_t>(1, m.kind == ca::DimMap::All ? m.extent : std::min(m.value, m.extent));
    total += f;
  }
  return total;
}

void exercise(const ca::Graph &g) {
  std::vector<ca::Index> idx;
  for (const ca::LayerPtr &l : g.layers()) {
    (void)l->fingerprint();
    (void)l->numblocks();
    int64_t n = l->num_tasks();
    if (fan_in(*l) > 4096) n = 0;
    idx.assign(size_t(l->nindex()) + 1, 0);
    // The first and last few tasks (symbolic layers may have 2^62).
    for (int64_t t = 0; t < n && t < 64; ++t) {
      for (int64_t local : {t, n - 1 - t}) {
        l->key_at(local, idx.data());
        if (l->find(idx.data()) != local) __builtin_trap();
        CountEmitter e;
        l->emit(local, e);
        if (e.depth != 0) __builtin_trap();
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ca::format::FileContents fc;
  try {
    fc = ca::format::load_bytes(data, size);
  } catch (const ca::Error &e) {
    if (e.code() != CA_EFORMAT && e.code() != CA_EVERSION && e.code() != CA_ENOMEM) __builtin_trap();
    return 0;
  }
  try {
    exercise(*fc.graph);
    // Saving what was loaded and loading it again gives the same layers.
    auto bytes = ca::format::save_bytes(*fc.graph, fc.arrays);
    auto again = ca::format::load_bytes(bytes.data(), bytes.size());
    if (again.graph->layers().size() != fc.graph->layers().size()) __builtin_trap();
    for (size_t i = 0; i < again.graph->layers().size(); ++i) {
      const ca::Layer &a = *fc.graph->layers()[i], &b = *again.graph->layers()[i];
      if (a.kind() != b.kind() || a.num_tasks() != b.num_tasks()) __builtin_trap();
      if (a.kind() != ca::LayerKind::Data && a.fingerprint() != b.fingerprint()) {
        std::fprintf(stderr, "layer '%s' (kind %d) changed on save + load\n", a.name().c_str(), int(a.kind()));
        __builtin_trap();
      }
      // Recorded kernel versions survive too (by kernel name: a layer saved in materialized form may
      // order its kernels differently).
      for (const std::string &k : a.kernel_names())
        if (a.kernel_version_of(k) != b.kernel_version_of(k)) {
          std::fprintf(stderr, "layer '%s': kernel '%s' version changed on save + load\n", a.name().c_str(), k.c_str());
          __builtin_trap();
        }
    }
  } catch (const ca::Error &e) {
    // Exercising may run out of memory on absurd but valid graphs; nothing else may fail.
    if (e.code() != CA_ENOMEM && e.code() != CA_EUNSUPPORTED) __builtin_trap();
  }
  return 0;
}
