// dtypes that carry parameters (common.h): the 32-bit encoding (kind in bits 0..7, unit or length
// above), names that round-trip NumPy's strings, NumPy's promotion (np.result_type), the float16
// conversions (every binary16 value, against NumPy) and datetime64/timedelta64 unit conversion
// (every pair of units, against NumPy's astype).
#include <gtest/gtest.h>

#include <chunkarray/common.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "core/datetime.hpp"
#include "core/dtype.hpp"
#include "core/half.hpp"
#include "support/python.hpp"

#ifndef CA_PYTHON
#define CA_PYTHON "/usr/bin/python3"
#endif

using namespace ca;

namespace {

/// Run a Python program (NumPy as the reference) and return what it prints.
std::string python(const std::string &code) {
  std::string out, err;
  EXPECT_EQ(ca::test::python_code(code, {}, &out, &err), 0) << code << "\n" << err;
  return out;
}

const char *kUnitLetters[] = {nullptr, "Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as"};

}  // namespace

TEST(DType, EncodingIsStableAndChecked) {
  // Existing codes keep their values; parametric kinds put the parameter above bit 8.
  EXPECT_EQ(CA_FLOAT64, 11);
  EXPECT_EQ(CA_FLOAT16, 15);
  EXPECT_EQ(CA_DTYPE_MAKE(CA_DATETIME64, CA_UNIT_NS), 0xA10);
  EXPECT_EQ(CA_DTYPE_MAKE(CA_UNICODE, 8), 0x813);
  ca_dtype_t d = -1;
  ASSERT_EQ(ca_dtype_make(&d, CA_TIMEDELTA64, CA_UNIT_S), CA_OK);
  EXPECT_EQ(ca_dtype_kind(d), CA_TIMEDELTA64);
  EXPECT_EQ(ca_dtype_param(d), CA_UNIT_S);
  EXPECT_EQ(ca_dtype_size(d), 8u);
  ASSERT_EQ(ca_dtype_make(&d, CA_UNICODE, 8), CA_OK);
  EXPECT_EQ(ca_dtype_size(d), 32u);
  EXPECT_EQ(ca_dtype_param(d), 8);
  ASSERT_EQ(ca_dtype_make(&d, CA_BYTES, 5), CA_OK);
  EXPECT_EQ(ca_dtype_size(d), 5u);
  ASSERT_EQ(ca_dtype_make(&d, CA_FLOAT64, 0), CA_OK);
  EXPECT_EQ(d, CA_FLOAT64);
  EXPECT_EQ(ca_dtype_param(CA_FLOAT64), 0);
  // Bad kinds and parameters: CA_ETYPE with a message, out set to CA_DTYPE_INVALID.
  for (auto [kind, param] : std::vector<std::pair<int32_t, int64_t>>{{CA_DATETIME64, 0},
                                                                     {CA_DATETIME64, 14},
                                                                     {CA_TIMEDELTA64, -1},
                                                                     {CA_BYTES, 0},
                                                                     {CA_UNICODE, int64_t(CA_DTYPE_MAX_LENGTH) + 1},
                                                                     {CA_FLOAT64, 3},
                                                                     {20, 0},
                                                                     {0, 0},
                                                                     {-5, 0}}) {
    d = 77;
    EXPECT_EQ(ca_dtype_make(&d, ca_dtype_kind_t(kind), param), CA_ETYPE) << kind << " " << param;
    EXPECT_EQ(d, CA_DTYPE_INVALID);
    EXPECT_STRNE(ca_last_error_message(), "");
  }
  EXPECT_EQ(ca_dtype_make(nullptr, CA_FLOAT64, 0), CA_EINVAL);
  // Invalid raw values: bare parametric kinds, unknown units, reserved multiplier bits, bit 31.
  for (ca_dtype_t bad : {ca_dtype_t(CA_DATETIME64), ca_dtype_t(CA_BYTES), CA_DTYPE_MAKE(CA_DATETIME64, 14),
                         ca_dtype_t(CA_DTYPE_MAKE(CA_DATETIME64, CA_UNIT_S) | (1 << 16)), ca_dtype_t(CA_FLOAT64 | 0x100),
                         ca_dtype_t(INT32_MIN | CA_FLOAT64), ca_dtype_t(20), ca_dtype_t(255)}) {
    EXPECT_EQ(ca_dtype_size(bad), 0u) << bad;
    EXPECT_EQ(ca_dtype_name(bad), nullptr) << bad;
    EXPECT_EQ(ca_dtype_kind(bad), CA_DTYPE_INVALID) << bad;
    EXPECT_EQ(ca_dtype_param(bad), -1) << bad;
  }
}

TEST(DType, NamesRoundTripNumPy) {
  // Every unit, both kinds; lengths; float16. Our name, NumPy's name and NumPy's typestr parse back.
  std::ostringstream py;
  py << "import numpy as np\n";
  std::vector<ca_dtype_t> all;
  for (int32_t u = 1; u <= 13; ++u) {
    all.push_back(CA_DTYPE_MAKE(CA_DATETIME64, u));
    all.push_back(CA_DTYPE_MAKE(CA_TIMEDELTA64, u));
  }
  for (int64_t n : {1, 5, 8, 100}) {
    all.push_back(CA_DTYPE_MAKE(CA_BYTES, n));
    all.push_back(CA_DTYPE_MAKE(CA_UNICODE, n));
  }
  for (ca_dtype_t t = CA_BOOL; t <= CA_FLOAT16; ++t)
    if (t != CA_RAW) all.push_back(t);
  for (ca_dtype_t t : all) {
    const char *name = ca_dtype_name(t);
    ASSERT_NE(name, nullptr) << t;
    ca_dtype_t back = 0;
    ASSERT_EQ(ca_dtype_from_name(&back, name), CA_OK) << name;
    EXPECT_EQ(back, t) << name;
    const std::string ts = dtype_typestr(t);
    ASSERT_EQ(ca_dtype_from_name(&back, ts.c_str()), CA_OK) << ts;
    EXPECT_EQ(back, t) << ts;
    // NumPy agrees on the item size and reads our name and typestr as the same dtype.
    py << "d = np.dtype('" << name << "'); assert d == np.dtype('" << ts << "'), d; print(d.name, d.str, d.itemsize)\n";
  }
  std::istringstream out(python(py.str()));
  for (ca_dtype_t t : all) {
    std::string np_name, np_str;
    size_t itemsize = 0;
    out >> np_name >> np_str >> itemsize;
    EXPECT_EQ(itemsize, ca_dtype_size(t)) << ca_dtype_name(t);
    ca_dtype_t back = 0;
    ASSERT_EQ(ca_dtype_from_name(&back, np_name.c_str()), CA_OK) << np_name;  // "str256", "bytes40", ...
    EXPECT_EQ(back, t) << np_name;
    ASSERT_EQ(ca_dtype_from_name(&back, np_str.c_str()), CA_OK) << np_str;
    EXPECT_EQ(back, t) << np_str;
  }
  // Spellings NumPy accepts.
  const std::pair<const char *, ca_dtype_t> spellings[] = {
      {"datetime64[ns]", CA_DTYPE_MAKE(CA_DATETIME64, CA_UNIT_NS)}, {"<M8[ns]", CA_DTYPE_MAKE(CA_DATETIME64, CA_UNIT_NS)},
      {"m8[s]", CA_DTYPE_MAKE(CA_TIMEDELTA64, CA_UNIT_S)},          {"M8[1D]", CA_DTYPE_MAKE(CA_DATETIME64, CA_UNIT_D)},
      {"<U8", CA_DTYPE_MAKE(CA_UNICODE, 8)},                        {"|S5", CA_DTYPE_MAKE(CA_BYTES, 5)},
      {"S5", CA_DTYPE_MAKE(CA_BYTES, 5)},                           {"a3", CA_DTYPE_MAKE(CA_BYTES, 3)},
      {"float16", CA_FLOAT16},                                      {"<f2", CA_FLOAT16},
      {"half", CA_FLOAT16},                                         {"e", CA_FLOAT16}};
  for (auto &[s, t] : spellings) {
    ca_dtype_t back = 0;
    ASSERT_EQ(ca_dtype_from_name(&back, s), CA_OK) << s;
    EXPECT_EQ(back, t) << s;
  }
  // Clear errors for what NumPy has but chunkarray does not, and for nonsense.
  for (const char *bad : {"M8", "datetime64", "M8[5s]", "M8[2D]", "m8[fortnight]", "M8[ns", "S0", "U0", "U", "S",
                          "U99999999", "f3", "<M16[ns]", "str7"}) {
    ca_dtype_t back = 99;
    EXPECT_EQ(ca_dtype_from_name(&back, bad), CA_ETYPE) << bad;
    EXPECT_EQ(back, CA_DTYPE_INVALID);
    EXPECT_STRNE(ca_last_error_message(), "") << bad;
  }
  ca_dtype_t back = 0;
  ASSERT_EQ(ca_dtype_from_name(&back, "M8[5s]"), CA_ETYPE);
  EXPECT_NE(std::string(ca_last_error_message()).find("multiplier"), std::string::npos) << ca_last_error_message();
}

TEST(DType, PromotionMatchesNumPy) {
  std::vector<ca_dtype_t> ts;
  for (ca_dtype_t t = CA_BOOL; t <= CA_FLOAT16; ++t)
    if (t != CA_RAW) ts.push_back(t);
  for (int32_t u : {CA_UNIT_Y, CA_UNIT_M, CA_UNIT_W, CA_UNIT_D, CA_UNIT_S, CA_UNIT_NS}) {
    ts.push_back(CA_DTYPE_MAKE(CA_DATETIME64, u));
    ts.push_back(CA_DTYPE_MAKE(CA_TIMEDELTA64, u));
  }
  for (int64_t n : {3, 7}) {
    ts.push_back(CA_DTYPE_MAKE(CA_BYTES, n));
    ts.push_back(CA_DTYPE_MAKE(CA_UNICODE, n));
  }
  std::ostringstream py;
  py << "import numpy as np\nts = [";
  for (ca_dtype_t t : ts) py << "'" << dtype_typestr(t) << "',";
  py << "]\nfor a in ts:\n  for b in ts:\n    try:\n      r = np.result_type(a, b)\n"
        "      print('ERR' if (np.dtype(b).kind in 'SU') != (np.dtype(a).kind in 'SU') else r.str)\n"  // str with numbers: legacy
        "    except TypeError:\n      print('ERR')\n";
  std::istringstream out(python(py.str()));
  for (ca_dtype_t a : ts) {
    for (ca_dtype_t b : ts) {
      std::string want;
      out >> want;
      ca_dtype_t got = 0;
      const ca_status_t st = ca_dtype_promote(&got, a, b);
      if (want == "ERR") {
        EXPECT_EQ(st, CA_ETYPE) << dtype_name(a) << " + " << dtype_name(b) << " gave " << (st ? "?" : dtype_name(got));
      } else {
        ASSERT_EQ(st, CA_OK) << dtype_name(a) << " + " << dtype_name(b) << ": " << ca_last_error_message();
        EXPECT_EQ(dtype_typestr(got), want) << dtype_name(a) << " + " << dtype_name(b);
      }
    }
  }
}

TEST(DType, HalfConversionsMatchNumPy) {
  // Every binary16 value to float32, and a sweep of doubles (halfway cases included) to binary16.
  std::string out = python(
      "import numpy as np, sys\n"
      "h = np.arange(65536, dtype=np.uint16).view(np.float16)\n"
      "sys.stdout.write(h.astype(np.float32).view(np.uint32).tobytes().hex())\n"
      "print()\n"
      "d = np.concatenate([h.astype(np.float64)[np.isfinite(h)], (h.astype(np.float64)[:-1] + h.astype(np.float64)[1:])[:0]])\n"
      "x = np.linspace(-70000, 70000, 20011); y = np.geomspace(1e-9, 7e4, 20011)\n"
      "mid = (h[:31743].astype(np.float64) + h[1:31744].astype(np.float64)) / 2\n"
      "v = np.concatenate([x, y, -y, mid, -mid, [65504, 65519.99, 65520, 1e-8, 2.9802322387695312e-08, np.inf, -np.inf]])\n"
      "sys.stdout.write(v.tobytes().hex()); print()\n"
      "sys.stdout.write(v.astype(np.float16).view(np.uint16).tobytes().hex()); print()\n");
  std::istringstream lines(out);
  std::string l1, l2, l3;
  std::getline(lines, l1);
  std::getline(lines, l2);
  std::getline(lines, l3);
  auto unhex = [](const std::string &h) {
    std::vector<uint8_t> b(h.size() / 2);
    for (size_t i = 0; i < b.size(); ++i) b[i] = uint8_t(std::stoi(h.substr(2 * i, 2), nullptr, 16));
    return b;
  };
  auto f32 = unhex(l1);
  ASSERT_EQ(f32.size(), 65536u * 4);
  int bad = 0;
  for (uint32_t h = 0; h < 65536; ++h) {
    uint32_t want;
    std::memcpy(&want, f32.data() + 4 * h, 4);
    const float got = half_to_float(uint16_t(h));
    uint32_t gotb;
    std::memcpy(&gotb, &got, 4);
    if (std::isnan(got) ? ((want & 0x7f800000u) != 0x7f800000u || (want & 0x7fffffu) == 0) : gotb != want) ++bad;
    if (!std::isnan(got) && float_to_half(got) != h) ++bad;  // exact round trip
  }
  EXPECT_EQ(bad, 0);
  auto vb = unhex(l2), hb = unhex(l3);
  ASSERT_EQ(vb.size(), hb.size() * 4);
  for (size_t i = 0; i < hb.size() / 2; ++i) {
    double v;
    uint16_t want;
    std::memcpy(&v, vb.data() + 8 * i, 8);
    std::memcpy(&want, hb.data() + 2 * i, 2);
    if (double_to_half(v) != want && ++bad < 10) ADD_FAILURE() << v << ": " << double_to_half(v) << " != " << want;
  }
  EXPECT_EQ(bad, 0);
}

TEST(DType, TimeUnitConversionMatchesNumPy) {
  // Every pair of units, datetime and timedelta, on values around the epoch, far from it, and NaT.
  const std::vector<int64_t> vals = {0,          1,           -1,         7,        -7,       59,       -61,
                                     365,        -366,        1000000,    -999999,  1 << 30,  -(int64_t(1) << 40),
                                     2147483647, 86400000000, INT64_MIN};
  std::ostringstream py;
  py << "import numpy as np, warnings\nwarnings.simplefilter('ignore')\nv = np.array([";
  for (int64_t x : vals) py << x << ",";
  py << "], dtype=np.int64)\nU = ['Y','M','W','D','h','m','s','ms','us','ns','ps','fs','as']\n"
        "def conv(x, k, a, b):\n"
        "  try:\n    return str(np.array([x]).view(k + '8[' + a + ']').astype(k + '8[' + b + ']').view(np.int64)[0])\n"
        "  except (OverflowError, ValueError):\n    return 'X'\n"  // NumPy refuses far dates in fine units
        "for k in 'Mm':\n  for a in U:\n    for b in U:\n"
        "      print(' '.join(conv(x, k, a, b) for x in v))\n";
  std::istringstream out(python(py.str()));
  int bad = 0;
  for (bool dt : {true, false})
    for (int32_t a = 1; a <= 13; ++a)
      for (int32_t b = 1; b <= 13; ++b)
        for (int64_t x : vals) {
          std::string ws;
          out >> ws;
          if (ws == "X") continue;
          const int64_t want = std::stoll(ws);
          const int64_t got = time_convert(x, a, b, dt);
          // NumPy's own conversion overflows in its intermediates far from the epoch for the finest
          // units: compare where the exact result fits in int64 (NumPy then is exact too).
          const long double exact = (long double)x * (long double)detail::unit_attoseconds(a) /
                                    (long double)detail::unit_attoseconds(b);
          if (x != INT64_MIN && std::fabs((double)exact) > 9.0e18) continue;
          if (got != want && ++bad < 20)
            ADD_FAILURE() << (dt ? "M8[" : "m8[") << kUnitLetters[a] << "] -> [" << kUnitLetters[b] << "] of " << x
                          << ": " << got << ", NumPy " << want;
        }
  EXPECT_EQ(bad, 0);
}

// The array API standard's table (ca_dtype_promote_std) against numpy.array_api's result_type (NumPy
// 1.24, 2021.12: no complex) over its eleven dtypes, the 2022.12 complex rows by hand, and the dtypes
// outside the standard.
TEST(DType, StdPromotionMatchesNumPyArrayApi) {
  const std::vector<ca_dtype_t> ts = {CA_BOOL,   CA_INT8,   CA_INT16,  CA_INT32,  CA_INT64,  CA_UINT8,
                                      CA_UINT16, CA_UINT32, CA_UINT64, CA_FLOAT32, CA_FLOAT64};
  std::ostringstream py;
  py << "import warnings\nwarnings.simplefilter('ignore')\nimport numpy.array_api as xp\nts = [";
  for (ca_dtype_t t : ts) py << "xp." << dtype_name(t) << ",";
  py << "]\nfor a in ts:\n  for b in ts:\n    try:\n      print(xp.result_type(a, b))\n"
        "    except TypeError:\n      print('ERR')\n";
  std::istringstream out(python(py.str()));
  int n_err = 0;
  for (ca_dtype_t a : ts) {
    for (ca_dtype_t b : ts) {
      std::string want;
      out >> want;
      ca_dtype_t got = 0;
      const ca_status_t st = ca_dtype_promote_std(&got, a, b);
      if (want == "ERR") {
        ++n_err;
        EXPECT_EQ(st, CA_ETYPE) << dtype_name(a) << " + " << dtype_name(b);
        EXPECT_EQ(got, CA_DTYPE_INVALID);
        const std::string msg = ca_last_error_message();
        EXPECT_NE(msg.find(dtype_name(a)), std::string::npos) << msg;
        EXPECT_NE(msg.find(dtype_name(b)), std::string::npos) << msg;
      } else {
        ASSERT_EQ(st, CA_OK) << dtype_name(a) << " + " << dtype_name(b) << ": " << ca_last_error_message();
        EXPECT_STREQ(dtype_name(got), want.c_str()) << dtype_name(a) << " + " << dtype_name(b);
      }
    }
  }
  EXPECT_GT(n_err, 40);  // int with float, bool with numbers, int64 with uint64 (the reference did refuse)
  const struct {
    ca_dtype_t a, b, want;
  } complex_rows[] = {{CA_COMPLEX64, CA_FLOAT32, CA_COMPLEX64},   {CA_COMPLEX64, CA_FLOAT64, CA_COMPLEX128},
                      {CA_FLOAT64, CA_COMPLEX64, CA_COMPLEX128},  {CA_COMPLEX128, CA_COMPLEX64, CA_COMPLEX128},
                      {CA_COMPLEX64, CA_COMPLEX64, CA_COMPLEX64}, {CA_INT8, CA_COMPLEX64, CA_DTYPE_INVALID},
                      {CA_BOOL, CA_COMPLEX128, CA_DTYPE_INVALID}};
  for (const auto &r : complex_rows) {
    ca_dtype_t got = 0;
    EXPECT_EQ(ca_dtype_promote_std(&got, r.a, r.b), r.want ? CA_OK : CA_ETYPE) << dtype_name(r.a) << dtype_name(r.b);
    EXPECT_EQ(got, r.want);
  }
  ca_dtype_t got = 0;
  for (ca_dtype_t t : {ca_dtype_t(CA_FLOAT16), ca_dtype_t(CA_RAW), CA_DTYPE_MAKE(CA_DATETIME64, CA_UNIT_S),
                       CA_DTYPE_MAKE(CA_UNICODE, 3), ca_dtype_t(999)}) {
    EXPECT_EQ(ca_dtype_promote_std(&got, t, CA_FLOAT64), CA_ETYPE) << t;
    EXPECT_EQ(ca_dtype_promote_std(&got, CA_INT8, t), CA_ETYPE) << t;
    EXPECT_NE(std::string(ca_last_error_message()).find("not a dtype of the array API standard"), std::string::npos)
        << ca_last_error_message();
  }
  EXPECT_EQ(ca_dtype_promote_std(nullptr, CA_INT8, CA_INT8), CA_EINVAL);
}
