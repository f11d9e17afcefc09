// Helpers for the interop suites: scratch directories and running Debian's python3 (numpy, zarr).
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "array/array.hpp"
#include "builtins/builtins.hpp"
#include "core/block.hpp"
#include "exec/executor.hpp"
#include "kernel/kernel.hpp"
#include "support/python.hpp"

namespace ca::test {

/// A fresh directory under $TMPDIR, removed with the object.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "ca_interop_XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string &path() const { return path_; }
  std::string operator/(const std::string &name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

inline void write_text(const std::string &path, const std::string &text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
}

inline std::string read_text(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

/// Run `script` (Python source) with Debian's python3 and arguments; output goes to `log`. Returns the
/// exit status (or -1 if it did not exit normally).
inline int run_python(const TempDir &dir, const std::string &script, const std::string &args, std::string *log) {
  std::string file = dir / "script.py";
  write_text(file, script);
  std::string out = dir / "python.log";
  std::vector<std::string> argv;  // split on spaces, as the shell did (no caller quotes)
  std::istringstream ss(args);
  for (std::string a; ss >> a;) argv.push_back(a);
  int rc = python_run(file, argv, out, out);
  if (log) *log = read_text(out);
  return rc;
}

inline bool python_has_zarr() {
  static const bool has = python_code("import numpy, zarr, numcodecs") == 0;
  return has;
}

/// An engine for computing arrays in the tests: two workers and the builtin kernels.
struct Env {
  ca::Executor ex{2};
  ca::KernelRegistry reg;
  Env() { ca::register_builtin_kernels(reg); }
};
inline Env &env() {
  static Env e;
  return e;
}

/// The array's C-order bytes, computed on env().
inline std::vector<unsigned char> compute(const ca::ArrayPtr &a) {
  std::vector<unsigned char> buf(size_t(a->nbytes()));
  ca::compute_into(env().ex, env().reg, {a}, {buf.data()}, {});
  return buf;
}

}  // namespace ca::test
