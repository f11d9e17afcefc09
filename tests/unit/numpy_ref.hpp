// NumPy as the independent reference: run a Python snippet with Debian's python3-numpy on .npy
// inputs and read back `result`. Header-only, for the unit tests.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <chunkarray/chunkarray.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
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

struct Npy {
  DType dtype = CA_FLOAT64;
  std::vector<Index> shape;
  std::vector<uint8_t> data;
  Index size() const {
    Index n = 1;
    for (Index s : shape) n *= s;
    return n;
  }
  template <class T>
  const T *as() const {
    return reinterpret_cast<const T *>(data.data());
  }
};

inline std::string npy_descr(DType t) { return t == CA_BOOL ? "|b1" : dtype_typestr(t); }

inline void write_npy(const std::string &path, const Npy &a) {
  std::ostringstream h;
  h << "{'descr': '" << npy_descr(a.dtype) << "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < a.shape.size(); ++i) h << a.shape[i] << (a.shape.size() == 1 ? "," : i + 1 < a.shape.size() ? ", " : "");
  h << "), }";
  std::string hs = h.str();
  size_t total = 10 + hs.size() + 1;
  hs.append((64 - total % 64) % 64, ' ');
  hs += '\n';
  std::ofstream f(path, std::ios::binary);
  f.write("\x93NUMPY\x01\x00", 8);
  uint16_t hl = uint16_t(hs.size());
  f.write(reinterpret_cast<const char *>(&hl), 2);
  f.write(hs.data(), std::streamsize(hs.size()));
  f.write(reinterpret_cast<const char *>(a.data.data()), std::streamsize(a.data.size()));
}

inline Npy read_npy(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot open " + path);
  std::string all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (all.size() < 10 || all.compare(0, 6, "\x93NUMPY") != 0) throw std::runtime_error("not an npy file: " + path);
  int major = all[6];
  size_t hl, off;
  if (major == 1) {
    hl = uint8_t(all[8]) | size_t(uint8_t(all[9])) << 8;
    off = 10;
  } else {
    hl = uint8_t(all[8]) | size_t(uint8_t(all[9])) << 8 | size_t(uint8_t(all[10])) << 16 | size_t(uint8_t(all[11])) << 24;
    off = 12;
  }
  std::string h = all.substr(off, hl);
  Npy r;
  size_t d = h.find("'descr':");
  size_t q1 = h.find('\'', d + 8), q2 = h.find('\'', q1 + 1);
  std::string descr = h.substr(q1 + 1, q2 - q1 - 1);
  if (descr[0] == '>') throw std::runtime_error("big-endian npy not supported in tests");
  r.dtype = dtype_parse(descr == "|b1" ? "bool" : descr);
  if (h.find("'fortran_order': True") != std::string::npos) throw std::runtime_error("fortran npy in tests");
  size_t s0 = h.find('(', h.find("'shape':")), s1 = h.find(')', s0);
  std::string sh = h.substr(s0 + 1, s1 - s0 - 1);
  std::stringstream ss(sh);
  std::string tok;
  while (std::getline(ss, tok, ','))
    if (tok.find_first_not_of(" ") != std::string::npos) r.shape.push_back(std::stoll(tok));
  r.data.assign(all.begin() + long(off + hl), all.end());
  return r;
}

/// Run `code` (which must assign `result`) with `np` and the inputs loaded as numpy arrays.
inline Npy run_numpy(const std::string &code, const std::map<std::string, Npy> &inputs = {}) {
  char tmpl[] = "/tmp/ca_numpy_XXXXXX";
  char *dir = mkdtemp(tmpl);
  if (!dir) throw std::runtime_error("mkdtemp failed");
  std::string d(dir);
  std::ostringstream py;
  py << "import numpy as np, sys, warnings\nwarnings.simplefilter('ignore')\nnp.seterr(all='ignore')\n";
  for (auto &kv : inputs) {
    write_npy(d + "/" + kv.first + ".npy", kv.second);
    py << kv.first << " = np.load('" << d << "/" << kv.first << ".npy')\n";
  }
  py << code << "\nresult = np.ascontiguousarray(np.asarray(result))\nnp.save('" << d << "/result.npy', result)\n";
  {
    std::ofstream f(d + "/script.py");
    f << py.str();
  }
  int rc = python_run(d + "/script.py", {}, "", d + "/err.txt");
  if (rc != 0) {
    std::ifstream e(d + "/err.txt");
    std::string err((std::istreambuf_iterator<char>(e)), std::istreambuf_iterator<char>());
    std::error_code ec;
    std::filesystem::remove_all(d, ec);
    throw std::runtime_error("python failed: " + err + "\n--- script ---\n" + py.str());
  }
  Npy r = read_npy(d + "/result.npy");
  std::error_code ec;
  std::filesystem::remove_all(d, ec);
  return r;
}

/// A process-wide executor and registry with the builtin kernels, for tests of internals.
struct Runtime {
  KernelRegistry reg;
  Executor ex{2};
  Runtime() { register_builtin_kernels(reg); }
  static Runtime &get() {
    static Runtime r;
    return r;
  }
};

inline Npy compute_npy(const ArrayPtr &a, Executor *ex = nullptr) {
  Npy r;
  r.dtype = a->dtype;
  r.shape = a->shape;
  r.data.resize(size_t(a->nbytes()));
  RunOptions ro;
  compute_into(ex ? *ex : Runtime::get().ex, Runtime::get().reg, {a}, {r.data.data()}, ro);
  return r;
}

inline Npy npy_of(DType dt, std::vector<Index> shape, const void *data) {
  Npy r;
  r.dtype = dt;
  r.shape = std::move(shape);
  r.data.resize(size_t(r.size()) * dtype_size(dt));
  if (!r.data.empty()) std::memcpy(r.data.data(), data, r.data.size());
  return r;
}

inline ArrayPtr array_from_npy(const Npy &n, const Chunks &chunks) {
  return from_buffer(n.data.data(), n.dtype, n.shape, nullptr, chunks, false, nullptr, nullptr);
}

/// Element i as complex<double> (any dtype).
inline std::complex<double> element(const Npy &a, Index i) {
  return dispatch_dtype_f16(a.dtype, [&](auto tag) -> std::complex<double> {
    using T = typename decltype(tag)::type;
    T v = a.as<T>()[i];
    if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>)
      return {double(v.real()), double(v.imag())};
    else
      return {double(v), 0.0};
  });
}

inline void expect_close(const Npy &got, const Npy &want, double rtol = 1e-12, double atol = 0.0,
                         const std::string &what = "") {
  ASSERT_EQ(got.shape, want.shape) << what;
  ASSERT_EQ(got.dtype, want.dtype) << what << ": got " << dtype_name(got.dtype) << ", want " << dtype_name(want.dtype);
  Index n = got.size();
  int bad = 0;
  for (Index i = 0; i < n && bad < 5; ++i) {
    auto g = element(got, i), w = element(want, i);
    bool gn = std::isnan(g.real()) || std::isnan(g.imag()), wn = std::isnan(w.real()) || std::isnan(w.imag());
    if (gn || wn) {
      if (gn != wn) {
        ADD_FAILURE() << what << " element " << i << ": got " << g << ", want " << w;
        ++bad;
      }
      continue;
    }
    double tol = atol + rtol * std::abs(w);
    if (std::isinf(w.real()) || std::isinf(w.imag())) {
      if (g != w) {
        ADD_FAILURE() << what << " element " << i << ": got " << g << ", want " << w;
        ++bad;
      }
    } else if (std::abs(g - w) > tol) {
      ADD_FAILURE() << what << " element " << i << ": got " << g << ", want " << w;
      ++bad;
    }
  }
}

inline void expect_equal(const Npy &got, const Npy &want, const std::string &what = "") {
  ASSERT_EQ(got.shape, want.shape) << what;
  ASSERT_EQ(got.dtype, want.dtype) << what << ": got " << dtype_name(got.dtype) << ", want " << dtype_name(want.dtype);
  EXPECT_EQ(got.data, want.data) << what;
}

}  // namespace ca::test
