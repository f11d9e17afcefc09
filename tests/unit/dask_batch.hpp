// A batch of comparisons against NumPy (values, dtype, shape) and dask.array (result chunks for the
// same call on the same input chunks), all run in one Debian /usr/bin/python3 process. Header-only,
// for the unit tests (test_shape.cpp, test_routines.cpp).
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "array/array.hpp"
#include "array/slicing.hpp"
#include "exec/executor.hpp"
#include "numpy_ref.hpp"
#include "support/expect_error.hpp"

namespace ca::test {

// Deterministic values of any dtype: element i is (i * 7) % 23 - 5 (bool: i % 3 == 0).
inline Npy make(DType dt, std::vector<Index> shape) {
  Npy n;
  n.dtype = dt;
  n.shape = std::move(shape);
  n.data.resize(size_t(n.size()) * dtype_size(dt));
  for (Index i = 0; i < n.size(); ++i) {
    int64_t v = (i * 7) % 23 - 5;
    dispatch_dtype(dt, [&](auto tag) {
      using T = typename decltype(tag)::type;
      T x{};
      if constexpr (std::is_same_v<T, bool>) x = i % 3 == 0;
      else if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>)
        x = T(typename T::value_type(v), typename T::value_type(i % 5));
      else if constexpr (std::is_unsigned_v<T>) x = T(v + 5);
      else x = T(v);
      std::memcpy(n.data.data() + size_t(i) * sizeof(T), &x, sizeof(T));
    });
  }
  return n;
}

struct Input {
  Npy data;
  Chunks chunks;
};

struct Case {
  std::string what;
  std::vector<Input> ins;
  std::string np_expr;  // over a0, a1, ...
  std::string da_expr;  // over A0, A1, ... (dask arrays with the same chunks); "" = no chunk check
  ArrayPtr got;
};

// Runs every case's NumPy and dask expressions in one python process and compares.
class Batch {
 public:
  std::vector<ArrayPtr> inputs(const std::vector<Input> &ins) {
    std::vector<ArrayPtr> r;
    for (auto &i : ins) r.push_back(ca::test::array_from_npy(i.data, i.chunks));
    return r;
  }
  // Build with `f` over the inputs and register the comparison.
  void add(const std::string &what, std::vector<Input> ins, const std::string &np_expr, const std::string &da_expr,
           const std::function<ArrayPtr(const std::vector<ArrayPtr> &)> &f) {
    Case c{what, ins, np_expr, da_expr, nullptr};
    c.got = f(inputs(ins));
    cases_.push_back(std::move(c));
  }
  void run() {
    if (cases_.empty()) return;
    char tmpl[] = "/tmp/ca_shape_XXXXXX";
    char *dir = mkdtemp(tmpl);
    ASSERT_TRUE(dir);
    std::string d(dir);
    std::ostringstream py;
    py << "import numpy as np, dask, dask.array as da, warnings\nwarnings.simplefilter('ignore')\n"
          "dask.config.set(scheduler='synchronous')\n"
          "out = open('" << d << "/chunks.txt', 'w')\n"
          "def norm(c):\n    return tuple(tuple(int(x) if x == x else x for x in dim) for dim in c)\n";
    for (size_t i = 0; i < cases_.size(); ++i) {
      const Case &c = cases_[i];
      for (size_t k = 0; k < c.ins.size(); ++k) {
        std::string f = d + "/in" + std::to_string(i) + "_" + std::to_string(k) + ".npy";
        ca::test::write_npy(f, c.ins[k].data);
        py << "a" << k << " = np.load('" << f << "')\n";
        py << "A" << k << " = da.from_array(a" << k << ", chunks=" << chunks_str(c.ins[k].chunks) << ")\n";
      }
      py << "np.save('" << d << "/r" << i << ".npy', np.array(" << c.np_expr << ", order='C'))\n";
      if (!c.da_expr.empty()) {
        py << "try:\n    x = " << c.da_expr << "\n    out.write(repr(norm(x.chunks)) + '\\n')\n"
           << "except Exception as e:\n    out.write('dask error: ' + type(e).__name__ + '\\n')\n";
      } else {
        py << "out.write('-\\n')\n";
      }
    }
    py << "out.close()\n";
    {
      std::ofstream f(d + "/script.py");
      f << py.str();
    }
    int rc = ca::test::python_run(d + "/script.py", {}, "", d + "/err.txt");
    if (rc != 0) {
      std::ifstream e(d + "/err.txt");
      std::string err((std::istreambuf_iterator<char>(e)), std::istreambuf_iterator<char>());
      ADD_FAILURE() << "python failed: " << err;
      std::error_code ec;
      std::filesystem::remove_all(d, ec);
      return;
    }
    std::ifstream cf(d + "/chunks.txt");
    for (size_t i = 0; i < cases_.size(); ++i) {
      const Case &c = cases_[i];
      std::string line;
      std::getline(cf, line);
      Npy want = ca::test::read_npy(d + "/r" + std::to_string(i) + ".npy");
      ArrayPtr sized = c.got;
      if (!chunks_known(sized->chunks))  // unknown block sizes (dask's NaN chunks): measure them first
        sized = compute_chunk_sizes(Runtime::get().ex, Runtime::get().reg, sized, RunOptions{});
      Npy got = ca::test::compute_npy(sized);
      ca::test::expect_equal(got, want, c.what + " [" + c.np_expr + "]");
      if (!c.da_expr.empty()) {
        EXPECT_EQ(chunks_str(c.got->chunks), line) << c.what << " [" << c.da_expr << "]";
      }
    }
    std::error_code ec;
    std::filesystem::remove_all(d, ec);
    cases_.clear();
  }

 private:
  std::vector<Case> cases_;
};


}  // namespace ca::test
