// HDF5 datasets: see hdf5.hpp for the locking design and the parallel (direct chunk / pread) paths.
#include "io/hdf5.hpp"

#if CA_HDF5

#include <fcntl.h>
#include <hdf5.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>

#if CA_LIBDEFLATE
#include <libdeflate.h>
#endif

#include "core/error.hpp"
#include "io/codec.hpp"
#include "io/fs.hpp"
#include "io/layout.hpp"

namespace ca::io {

// Helpers of this file (a named namespace: H5Writer::State holds H5Id members).
namespace h5 {

// ---- the process-wide lock ----------------------------------------------------------------------

std::recursive_mutex g_h5_mutex;
std::atomic<int64_t> g_acq{0}, g_wait_ns{0}, g_held_ns{0};

// Every HDF5 call runs while one of these lives. Handles (H5Id) are declared after it, so they are
// closed before it unlocks.
class H5Lock {
 public:
  H5Lock() {
    auto t0 = std::chrono::steady_clock::now();
    g_h5_mutex.lock();
    t1_ = std::chrono::steady_clock::now();
    g_wait_ns.fetch_add((t1_ - t0).count(), std::memory_order_relaxed);
    g_acq.fetch_add(1, std::memory_order_relaxed);
    static std::once_flag once;
    std::call_once(once, [] { H5open(); });
    // No printing of HDF5's error stack. The thread-safe libhdf5 keeps that setting per thread (its
    // error stacks are per thread): every thread that calls HDF5 turns it off once.
    thread_local bool quiet = false;
    if (!quiet) {
      H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
      quiet = true;
    }
  }
  ~H5Lock() {
    g_held_ns.fetch_add((std::chrono::steady_clock::now() - t1_).count(), std::memory_order_relaxed);
    g_h5_mutex.unlock();
  }
  H5Lock(const H5Lock &) = delete;
  H5Lock &operator=(const H5Lock &) = delete;

 private:
  std::chrono::steady_clock::time_point t1_;
};

// An HDF5 identifier, released (H5Idec_ref) at scope end. Only ever touched under H5Lock.
class H5Id {
 public:
  H5Id() = default;
  explicit H5Id(hid_t id) : id_(id) {}
  ~H5Id() { reset(); }
  H5Id(H5Id &&o) noexcept : id_(o.id_) { o.id_ = -1; }
  H5Id &operator=(H5Id &&o) noexcept {
    if (this != &o) {
      reset();
      id_ = o.id_;
      o.id_ = -1;
    }
    return *this;
  }
  H5Id(const H5Id &) = delete;
  H5Id &operator=(const H5Id &) = delete;
  void reset() noexcept {
    if (id_ >= 0) H5Idec_ref(id_);
    id_ = -1;
  }
  hid_t get() const noexcept { return id_; }
  bool ok() const noexcept { return id_ >= 0; }
  operator hid_t() const noexcept { return id_; }

 private:
  hid_t id_ = -1;
};

// HDF5's messages for the failure just seen (innermost first, at most two), then the stack cleared.
std::string h5_error() {
  std::vector<std::string> descs;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_UPWARD,
      [](unsigned, const H5E_error2_t *e, void *ud) -> herr_t {
        auto *v = static_cast<std::vector<std::string> *>(ud);
        if (e && e->desc && *e->desc && v->size() < 8) v->push_back(e->desc);
        return 0;
      },
      &descs);
  H5Eclear2(H5E_DEFAULT);
  if (descs.empty()) return "HDF5 gave no reason";
  std::string m = descs.front();
  if (descs.size() > 1 && descs.back() != descs.front()) m += " (" + descs.back() + ")";
  return m;
}

// CA_HDF5_DIRECT=0 turns the direct paths off: every read and write is then one H5Dread/H5Dwrite of
// its hyperslab under the lock (docs/hdf5.md measures the difference; tests run both).
bool direct_enabled() {
  const char *e = std::getenv("CA_HDF5_DIRECT");
  return !(e && e[0] == '0' && e[1] == 0);
}

// Writes of finished chunks (and contiguous runs) that are big and page-aligned go to the file with
// O_DIRECT, past the page cache: on the VMs this project measures on, filling fresh page-cache pages
// runs at 0.2-0.3 GB/s (a plain buffered write of 2 GiB, from Python or dd, takes 5-7 s) while
// O_DIRECT writes of the same bytes run at about 2 GB/s (docs/hdf5.md). CA_HDF5_ODIRECT=0 turns this
// off (buffered pwrite instead); CA_HDF5_ODIRECT_MIN=<bytes> is the smallest write that goes direct
// (default 1 MiB: smaller ones wait on the device one at a time; the tests lower it).
constexpr size_t kDioAlign = 4096;           // file offset, length and memory alignment of an O_DIRECT write
constexpr size_t kDioBounce = size_t(8) << 20;  // per-thread page-aligned staging buffer
std::atomic<int64_t> g_dio_bytes{0};

size_t odirect_min() {
  const char *e = std::getenv("CA_HDF5_ODIRECT");
  if (e && e[0] == '0' && e[1] == 0) return SIZE_MAX;
  size_t m = size_t(1) << 20;
  if (const char *v = std::getenv("CA_HDF5_ODIRECT_MIN")) {
    char *end = nullptr;
    unsigned long long x = std::strtoull(v, &end, 10);
    if (end && end != v && *end == 0) m = size_t(x);
  }
  return std::max(m, kDioAlign);
}

std::string str_offsets(const std::vector<hsize_t> &v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + (v.size() == 1 ? ",)" : ")");
}

std::string where(const std::string &path, const std::string &dataset) {
  return str("dataset '", dataset, "' of HDF5 file '", path, "'");
}

// ---- dtypes -------------------------------------------------------------------------------------

// The memory type of a dtype, laid out as h5py stores it (bool: enum int8 FALSE/TRUE; complex: compound
// {r, i}; float16: IEEE half; bytes: fixed, NUL padded). CA_EUNSUPPORTED for the others.
H5Id mem_type(DType t, const char *what) {
  auto copy = [](hid_t base) { return H5Id(H5Tcopy(base)); };
  switch (t) {
    case CA_BOOL: {
      H5Id e(H5Tenum_create(H5T_NATIVE_INT8));
      int8_t f = 0, tr = 1;
      H5Tenum_insert(e, "FALSE", &f);
      H5Tenum_insert(e, "TRUE", &tr);
      return e;
    }
    case CA_INT8: return copy(H5T_NATIVE_INT8);
    case CA_INT16: return copy(H5T_NATIVE_INT16);
    case CA_INT32: return copy(H5T_NATIVE_INT32);
    case CA_INT64: return copy(H5T_NATIVE_INT64);
    case CA_UINT8: return copy(H5T_NATIVE_UINT8);
    case CA_UINT16: return copy(H5T_NATIVE_UINT16);
    case CA_UINT32: return copy(H5T_NATIVE_UINT32);
    case CA_UINT64: return copy(H5T_NATIVE_UINT64);
    case CA_FLOAT32: return copy(H5T_NATIVE_FLOAT);
    case CA_FLOAT64: return copy(H5T_NATIVE_DOUBLE);
    case CA_FLOAT16: {  // h5py's half: IEEE binary16 little-endian
      H5Id h(H5Tcopy(H5T_IEEE_F32LE));
      H5Tset_fields(h, 15, 10, 5, 0, 10);
      H5Tset_size(h, 2);
      H5Tset_ebias(h, 15);
      return h;
    }
    case CA_COMPLEX64:
    case CA_COMPLEX128: {
      size_t s = t == CA_COMPLEX64 ? 4 : 8;
      H5Id c(H5Tcreate(H5T_COMPOUND, 2 * s));
      H5Tinsert(c, "r", 0, s == 4 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE);
      H5Tinsert(c, "i", s, s == 4 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE);
      return c;
    }
    default: break;
  }
  if (dtype_base(t) == CA_BYTES) {
    H5Id s(H5Tcopy(H5T_C_S1));
    H5Tset_size(s, dtype_length(t));
    H5Tset_strpad(s, H5T_STR_NULLPAD);
    return s;
  }
  const char *n = dtype_name(t);
  fail(CA_EUNSUPPORTED, what, ": dtype ", n ? n : "invalid", " cannot be stored in HDF5 by chunkarray (numeric, bool "
       "and fixed-width bytes dtypes can)");
}

const char *class_name(H5T_class_t c) {
  switch (c) {
    case H5T_INTEGER: return "integer";
    case H5T_FLOAT: return "float";
    case H5T_TIME: return "time";
    case H5T_STRING: return "string";
    case H5T_BITFIELD: return "bitfield";
    case H5T_OPAQUE: return "opaque (h5py stores datetime64/timedelta64 so)";
    case H5T_COMPOUND: return "compound";
    case H5T_REFERENCE: return "reference";
    case H5T_ENUM: return "enum";
    case H5T_VLEN: return "variable-length";
    case H5T_ARRAY: return "array";
    default: return "unknown";
  }
}

// The dtype a file type reads as; CA_EUNSUPPORTED naming the HDF5 type otherwise.
DType dtype_of(hid_t ft, const std::string &w) {
  H5T_class_t cls = H5Tget_class(ft);
  size_t size = H5Tget_size(ft);
  auto unsupported = [&](const std::string &why) -> DType {
    fail(CA_EUNSUPPORTED, w, " has HDF5 type class ", class_name(cls), " (", size, " bytes)",
         why.empty() ? std::string() : ": " + why, ", which chunkarray cannot read");
  };
  switch (cls) {
    case H5T_INTEGER: {
      bool sig = H5Tget_sign(ft) == H5T_SGN_2;
      switch (size) {
        case 1: return sig ? CA_INT8 : CA_UINT8;
        case 2: return sig ? CA_INT16 : CA_UINT16;
        case 4: return sig ? CA_INT32 : CA_UINT32;
        case 8: return sig ? CA_INT64 : CA_UINT64;
        default: return unsupported("");
      }
    }
    case H5T_FLOAT:
      if (size == 2) return CA_FLOAT16;
      if (size == 4) return CA_FLOAT32;
      if (size == 8) return CA_FLOAT64;
      return unsupported("no float of that size");
    case H5T_ENUM: {
      H5Id base(H5Tget_super(ft));
      if (H5Tget_class(base) == H5T_INTEGER && H5Tget_size(base) == 1 && H5Tget_nmembers(ft) == 2) {
        int8_t v0 = -1, v1 = -1;
        char *n0 = H5Tget_member_name(ft, 0), *n1 = H5Tget_member_name(ft, 1);
        H5Tget_member_value(ft, 0, &v0);
        H5Tget_member_value(ft, 1, &v1);
        bool is_bool = n0 && n1 && std::strcmp(n0, "FALSE") == 0 && std::strcmp(n1, "TRUE") == 0 && v0 == 0 && v1 == 1;
        H5free_memory(n0);
        H5free_memory(n1);
        if (is_bool) return CA_BOOL;
      }
      return unsupported("only h5py's bool enum (int8 FALSE=0, TRUE=1) is read");
    }
    case H5T_COMPOUND: {
      if (H5Tget_nmembers(ft) == 2) {
        H5Id t0(H5Tget_member_type(ft, 0)), t1(H5Tget_member_type(ft, 1));
        char *n0 = H5Tget_member_name(ft, 0), *n1 = H5Tget_member_name(ft, 1);
        bool names = n0 && n1 && std::strcmp(n0, "r") == 0 && std::strcmp(n1, "i") == 0;
        H5free_memory(n0);
        H5free_memory(n1);
        size_t s0 = H5Tget_size(t0);
        if (names && H5Tget_class(t0) == H5T_FLOAT && H5Tget_class(t1) == H5T_FLOAT && s0 == H5Tget_size(t1) &&
            H5Tget_member_offset(ft, 0) == 0 && H5Tget_member_offset(ft, 1) == s0 && size == 2 * s0) {
          if (s0 == 4) return CA_COMPLEX64;
          if (s0 == 8) return CA_COMPLEX128;
        }
      }
      return unsupported("only h5py's complex compound {r, i} is read");
    }
    case H5T_STRING: {
      if (H5Tis_variable_str(ft) > 0) return unsupported("variable-length strings");
      if (size < 1 || size > size_t(CA_DTYPE_MAX_LENGTH)) return unsupported("");
      return dtype_make(CA_BYTES, int64_t(size));
    }
    default: return unsupported("");
  }
}

// ---- files and datasets -------------------------------------------------------------------------

bool file_exists(const std::string &path) {
  struct stat st{};
  return ::stat(path.c_str(), &st) == 0;
}

// Open `path` read-only or read-write. CA_ENOTFOUND / CA_EFORMAT (not HDF5) / CA_EIO.
H5Id open_file(const std::string &path, bool write, hid_t fapl = H5P_DEFAULT) {
  CA_CHECK(file_exists(path), CA_ENOTFOUND, "no such HDF5 file: '", path, "'");
  struct stat st{};
  ::stat(path.c_str(), &st);
  CA_CHECK(S_ISREG(st.st_mode), CA_EIO, "'", path, "' is not a regular file");
  htri_t is = H5Fis_hdf5(path.c_str());
  if (is <= 0) {
    std::string why = is < 0 ? h5_error() : "no HDF5 signature";
    if (::access(path.c_str(), write ? W_OK | R_OK : R_OK) != 0)
      fail(CA_EIO, "cannot open HDF5 file '", path, "': ", std::strerror(errno));
    fail(CA_EFORMAT, "'", path, "' is not an HDF5 file (", why, ")");
  }
  H5Id f(H5Fopen(path.c_str(), write ? H5F_ACC_RDWR : H5F_ACC_RDONLY, fapl));
  if (!f.ok()) fail(write ? CA_EIO : CA_EFORMAT, "cannot open HDF5 file '", path, "': ", h5_error());
  return f;
}

// Walk the links of `name` ("/a/b/c" or "a/b/c"): the first prefix that does not exist, or "" if all do.
// A prefix that exists but is no group (so the next link cannot be looked up) is CA_EEXISTS / returned.
std::string first_missing(hid_t file, const std::string &name, const std::string &path) {
  std::string prefix;
  size_t pos = 0;
  while (pos <= name.size()) {
    size_t next = name.find('/', pos);
    if (next == std::string::npos) next = name.size();
    if (next > pos) {
      prefix += '/';
      prefix += name.substr(pos, next - pos);
      htri_t e = H5Lexists(file, prefix.c_str(), H5P_DEFAULT);
      if (e < 0) fail(CA_EINVAL, "cannot look up '", prefix, "' in HDF5 file '", path, "' (is a part of the path "
                      "no group?): ", h5_error());
      if (e == 0) return prefix;
    }
    pos = next + 1;
  }
  return "";
}

// Open the dataset at `dataset`: CA_ENOTFOUND naming the first missing link, CA_EINVAL if it is no dataset.
H5Id open_dataset(hid_t file, const std::string &path, const std::string &dataset) {
  CA_CHECK(!dataset.empty(), CA_EINVAL, "empty dataset name for HDF5 file '", path, "'");
  std::string missing = first_missing(file, dataset, path);
  if (!missing.empty()) {
    std::string full = dataset[0] == '/' ? dataset : "/" + dataset;
    while (full.size() > 1 && full.back() == '/') full.pop_back();
    if (missing == full) fail(CA_ENOTFOUND, "HDF5 file '", path, "' has no dataset '", dataset, "'");
    fail(CA_ENOTFOUND, "HDF5 file '", path, "' has no dataset '", dataset, "' (it has no group '", missing, "')");
  }
  H5Id o(H5Oopen(file, dataset.c_str(), H5P_DEFAULT));
  if (!o.ok()) fail(CA_EFORMAT, "cannot open '", dataset, "' in HDF5 file '", path, "': ", h5_error());
  CA_CHECK(H5Iget_type(o) == H5I_DATASET, CA_EINVAL, "'", dataset, "' in HDF5 file '", path,
           "' is not a dataset (a group or a named datatype)");
  return o;
}

std::vector<Index> space_shape(hid_t space, const std::string &w) {
  H5S_class_t c = H5Sget_simple_extent_type(space);
  if (c == H5S_SCALAR) return {};
  CA_CHECK(c == H5S_SIMPLE, CA_EUNSUPPORTED, w, " has a null dataspace (no elements, no shape)");
  int nd = H5Sget_simple_extent_ndims(space);
  CA_CHECK(nd >= 0, CA_EFORMAT, w, ": cannot read its dataspace: ", h5_error());
  CA_CHECK(nd <= CA_MAX_NDIM, CA_EUNSUPPORTED, w, " has ", nd, " dimensions, more than ", CA_MAX_NDIM);
  std::vector<hsize_t> dims(size_t(nd) + 1);
  H5Sget_simple_extent_dims(space, dims.data(), nullptr);
  std::vector<Index> shape(static_cast<size_t>(nd));
  for (int d = 0; d < nd; ++d) {
    CA_CHECK(dims[d] <= hsize_t(INT64_MAX / 2), CA_EFORMAT, w, ": extent ", dims[d], " along axis ", d, " is too large");
    shape[d] = Index(dims[d]);
  }
  return shape;
}

int open_fd(const std::string &path, bool write) {
  int fd = ::open(path.c_str(), (write ? O_RDWR : O_RDONLY) | O_CLOEXEC);
  CA_CHECK(fd >= 0, CA_EIO, "cannot open '", path, "': ", std::strerror(errno));
  return fd;
}

void h5_pread_all(int fd, void *dst, size_t n, uint64_t off, const std::string &w) {
  auto *p = static_cast<unsigned char *>(dst);
  while (n) {
    ssize_t r = ::pread(fd, p, n, off_t(off));
    if (r < 0 && errno == EINTR) continue;
    CA_CHECK(r >= 0, CA_EIO, "reading ", w, ": ", std::strerror(errno));
    CA_CHECK(r > 0, CA_EFORMAT, w, " is truncated: its data at byte ", off, " lies past the end of the file");
    p += r;
    n -= size_t(r);
    off += uint64_t(r);
  }
}

void h5_pwrite_all(int fd, const void *src, size_t n, uint64_t off, const std::string &w) {
  auto *p = static_cast<const unsigned char *>(src);
  while (n) {
    ssize_t r = ::pwrite(fd, p, n, off_t(off));
    if (r < 0 && errno == EINTR) continue;
    CA_CHECK(r > 0, CA_EIO, "writing ", w, ": ", r < 0 ? std::strerror(errno) : "nothing written");
    p += r;
    n -= size_t(r);
    off += uint64_t(r);
  }
}

// A page-aligned buffer of kDioBounce bytes per thread, for O_DIRECT writes of memory that is not.
unsigned char *dio_bounce() {
  struct Free {
    void operator()(unsigned char *p) const noexcept { std::free(p); }
  };
  thread_local std::unique_ptr<unsigned char, Free> buf;
  if (!buf) {
    void *p = nullptr;
    CA_CHECK(::posix_memalign(&p, kDioAlign, kDioBounce) == 0, CA_ENOMEM, "cannot allocate ", kDioBounce,
             " bytes for O_DIRECT writes");
    buf.reset(static_cast<unsigned char *>(p));
  }
  return buf.get();
}

// Write n bytes at file offset `off`: with O_DIRECT through `dfd` when it is open (>= 0) and the range
// is page-aligned and at least `dio_min` bytes (staged through dio_bounce() unless `src` is
// page-aligned), else buffered through `fd`. A file system that refuses the O_DIRECT write (EINVAL)
// gets the rest buffered.
void h5_write_range(int fd, int dfd, size_t dio_min, const unsigned char *src, size_t n, uint64_t off,
                    const std::string &w) {
  if (dfd < 0 || n < dio_min || off % kDioAlign || n % kDioAlign) {
    h5_pwrite_all(fd, src, n, off, w);
    return;
  }
  const bool aligned = reinterpret_cast<uintptr_t>(src) % kDioAlign == 0;
  unsigned char *bb = aligned ? nullptr : dio_bounce();
  size_t done = 0;
  while (done < n) {
    size_t k = aligned ? n - done : std::min(kDioBounce, n - done);
    const unsigned char *p = src + done;
    if (!aligned) {
      std::memcpy(bb, p, k);
      p = bb;
    }
    ssize_t r = ::pwrite(dfd, p, k, off_t(off + done));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0 && errno == EINVAL) break;  // no O_DIRECT here after all: buffered below
    CA_CHECK(r > 0, CA_EIO, "writing ", w, ": ", r < 0 ? std::strerror(errno) : "nothing written");
    done += size_t(r);
    g_dio_bytes.fetch_add(r, std::memory_order_relaxed);
    if (size_t(r) % kDioAlign) break;  // a short write off the page grid: the rest buffered
  }
  if (done < n) h5_pwrite_all(fd, src + done, n - done, off + done, w);
}

// HDF5's byte shuffle (H5Z_FILTER_SHUFFLE): byte j of element i goes to j * n + i; a tail of fewer
// than one element's bytes stays in place.
void shuffle_bytes(unsigned char *dst, const unsigned char *src, size_t nbytes, size_t elsize) {
  if (elsize <= 1) {
    std::memcpy(dst, src, nbytes);
    return;
  }
  size_t n = nbytes / elsize;
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < elsize; ++j) dst[j * n + i] = src[i * elsize + j];
  std::memcpy(dst + n * elsize, src + n * elsize, nbytes - n * elsize);
}
void unshuffle_bytes(unsigned char *dst, const unsigned char *src, size_t nbytes, size_t elsize) {
  if (elsize <= 1) {
    std::memcpy(dst, src, nbytes);
    return;
  }
  size_t n = nbytes / elsize;
  for (size_t j = 0; j < elsize; ++j) {
    const unsigned char *s = src + j * n;
    for (size_t i = 0; i < n; ++i) dst[i * elsize + j] = s[i];
  }
  std::memcpy(dst + n * elsize, src + n * elsize, nbytes - n * elsize);
}

// Per-thread scratch for the direct paths (raw chunk bytes, inflate target; shuffled and deflated
// bytes when writing): kept between tasks
// so a worker does not page-fault a fresh 32 MiB buffer per chunk (glibc maps buffers above 32 MiB
// anew every time). Only buffers up to kMaxKept bytes are kept; larger ones are freed after use.
struct ThreadScratch {
  static constexpr size_t kMaxKept = size_t(64) << 20;
  AlignedBuffer buf;
  size_t cap = 0;
  unsigned char *get(size_t n) {
    if (cap < n) {
      buf.reset();
      cap = 0;
      buf = make_aligned_buffer(n);
      cap = n;
    }
    return buf.get();
  }
  void trim() {
    if (cap > kMaxKept) {
      buf.reset();
      cap = 0;
    }
  }
};
thread_local ThreadScratch tl_raw, tl_scratch, tl_out;

// Deflate (HDF5's H5Z_FILTER_DEFLATE: a zlib stream) on the calling worker: libdeflate when built with
// it (one compressor / decompressor per thread and level), else zlib through codec.hpp.
void inflate_zlib(const unsigned char *src, size_t len, unsigned char *dst, size_t nbytes, const std::string &what) {
#if CA_LIBDEFLATE
  struct Free {
    void operator()(libdeflate_decompressor *d) const noexcept { libdeflate_free_decompressor(d); }
  };
  thread_local std::unique_ptr<libdeflate_decompressor, Free> d(libdeflate_alloc_decompressor());
  CA_CHECK(d, CA_ENOMEM, "cannot allocate a deflate decompressor");
  size_t got = 0;
  libdeflate_result r = libdeflate_zlib_decompress(d.get(), src, len, dst, nbytes, &got);
  CA_CHECK(r != LIBDEFLATE_INSUFFICIENT_SPACE, CA_EFORMAT, what, ": the chunk inflates to more than its ", nbytes,
           " bytes");
  CA_CHECK(r == LIBDEFLATE_SUCCESS, CA_EFORMAT, what, ": corrupt deflate data (", len, " bytes)");
  CA_CHECK(got == nbytes, CA_EFORMAT, what, ": the chunk inflates to ", got, " bytes, expected ", nbytes);
#else
  decode_chunk(Compressor::zlib(1), src, len, dst, nbytes, what);
#endif
}

// Deflate `nbytes` at `src` into `out` (grown as needed); returns the stream's length.
size_t deflate_zlib(const unsigned char *src, size_t nbytes, int level, size_t itemsize, ThreadScratch &out) {
#if CA_LIBDEFLATE
  (void)itemsize;
  struct Free {
    void operator()(libdeflate_compressor *c) const noexcept { libdeflate_free_compressor(c); }
  };
  thread_local std::unique_ptr<libdeflate_compressor, Free> c;
  thread_local int c_level = -1;
  if (!c || c_level != level) {
    c.reset(libdeflate_alloc_compressor(level));
    c_level = level;
  }
  CA_CHECK(c, CA_ENOMEM, "cannot allocate a deflate compressor (level ", level, ")");
  size_t bound = libdeflate_zlib_compress_bound(c.get(), nbytes);
  size_t n = libdeflate_zlib_compress(c.get(), src, nbytes, out.get(bound), bound);
  CA_CHECK(n > 0, CA_EINTERNAL, "libdeflate could not compress ", nbytes, " bytes");
  return n;
#else
  std::string enc = encode_chunk(Compressor::zlib(level), src, nbytes, itemsize);
  std::memcpy(out.get(enc.size()), enc.data(), enc.size());
  return enc.size();
#endif
}

using H5Buffer = AlignedBuffer;
H5Buffer h5_buffer(size_t n) { return make_aligned_buffer(n); }


// Calls f(run_offset_in_array_elems, run_offset_in_box_elems, run_elems) for the C-order contiguous runs of
// the box [start, start + ext) inside an array of `shape` (every extent > 0).
template <class F>
void for_each_run(const std::vector<Index> &shape, std::span<const Index> start, const Index *ext, F &&f) {
  const int nd = int(shape.size());
  if (nd == 0) {
    f(Index(0), Index(0), Index(1));
    return;
  }
  // The trailing dims the box covers entirely merge into the run, plus the first partial one.
  int k = nd - 1;
  Index run = ext[k];
  while (k > 0 && ext[k] == shape[k]) {
    --k;
    run *= ext[k];
  }
  std::vector<Index> stride(size_t(nd), 1);
  for (int d = nd - 2; d >= 0; --d) stride[d] = stride[d + 1] * shape[d + 1];
  std::vector<Index> idx(size_t(k), 0);
  Index box_off = 0;
  while (true) {
    Index off = start[k] * stride[k];
    for (int d = k + 1; d < nd; ++d) off += start[d] * stride[d];
    for (int d = 0; d < k; ++d) off += (start[d] + idx[d]) * stride[d];
    f(off, box_off, run);
    box_off += run;
    int d = k - 1;
    for (; d >= 0; --d) {
      if (++idx[d] < ext[d]) break;
      idx[d] = 0;
    }
    if (d < 0) return;
  }
}

// Filters of a chunked dataset: the pipeline in order, whether all of it can run on our workers.
struct Pipeline {
  std::vector<H5Z_filter_t> ids;
  bool ours = true;  // only shuffle and deflate
};

Pipeline read_pipeline(hid_t dcpl, const std::string &w) {
  Pipeline p;
  int n = H5Pget_nfilters(dcpl);
  CA_CHECK(n >= 0, CA_EFORMAT, w, ": cannot read its filter pipeline: ", h5_error());
  for (int i = 0; i < n; ++i) {
    unsigned flags = 0, config = 0;
    size_t nelm = 8;
    unsigned cd[8];
    char name[128] = {0};
    H5Z_filter_t id = H5Pget_filter2(dcpl, unsigned(i), &flags, &nelm, cd, sizeof name, name, &config);
    CA_CHECK(id >= 0, CA_EFORMAT, w, ": cannot read filter ", i, ": ", h5_error());
    if (H5Zfilter_avail(id) <= 0) {
      H5Eclear2(H5E_DEFAULT);
      fail(CA_EUNSUPPORTED, w, " is compressed with HDF5 filter ", id, name[0] ? str(" ('", name, "')") : std::string(),
           ", which this libhdf5 does not have", id == 32000 ? " (lzf is h5py's own filter)" : "");
    }
    p.ids.push_back(id);
    if (id != H5Z_FILTER_SHUFFLE && id != H5Z_FILTER_DEFLATE) p.ours = false;
  }
  return p;
}

// An open dataset for reading, shared by the tasks of one compute (weak cache: closed with the last).
struct H5Source {
  std::string path, dataset, w;
  H5Id file, dset, ftype, mtype, dcpl;
  DType dtype = CA_DTYPE_INVALID;
  std::vector<Index> shape, chunks;
  Pipeline pipe;
  bool same_bytes = false;  // the file's type is the block's bytes
  bool contiguous = false;
  haddr_t contig_addr = HADDR_UNDEF;
  uint64_t base = 0;  // userblock size: file addresses are relative to it
  std::vector<unsigned char> fill;  // one element
  bool direct = false;  // read with pread (and decode here), HDF5 only locating chunks
  int fd = -1;

  ~H5Source() {
    if (fd >= 0) ::close(fd);
    H5Lock lk;
    dcpl.reset();
    mtype.reset();
    ftype.reset();
    dset.reset();
    file.reset();
  }
};

std::shared_ptr<H5Source> open_source(const std::string &path, const std::string &dataset) {
  auto s = std::make_shared<H5Source>();
  s->path = path;
  s->dataset = dataset;
  s->w = where(path, dataset);
  H5Lock lk;
  s->file = open_file(path, false);
  s->dset = open_dataset(s->file, path, dataset);
  s->ftype = H5Id(H5Dget_type(s->dset));
  CA_CHECK(s->ftype.ok(), CA_EFORMAT, s->w, ": cannot read its datatype: ", h5_error());
  s->dtype = dtype_of(s->ftype, s->w);
  s->mtype = mem_type(s->dtype, "from_hdf5");
  {
    H5Id space(H5Dget_space(s->dset));
    CA_CHECK(space.ok(), CA_EFORMAT, s->w, ": cannot read its dataspace: ", h5_error());
    s->shape = space_shape(space, s->w);
  }
  s->dcpl = H5Id(H5Dget_create_plist(s->dset));
  CA_CHECK(s->dcpl.ok(), CA_EFORMAT, s->w, ": cannot read its creation properties: ", h5_error());
  H5D_layout_t layout = H5Pget_layout(s->dcpl);
  if (layout == H5D_CHUNKED) {
    int nd = int(s->shape.size());
    std::vector<hsize_t> c(size_t(nd) + 1);
    CA_CHECK(H5Pget_chunk(s->dcpl, nd, c.data()) == nd, CA_EFORMAT, s->w, ": bad chunk shape: ", h5_error());
    for (int d = 0; d < nd; ++d) {
      CA_CHECK(c[d] >= 1 && c[d] <= hsize_t(1) << 40, CA_EFORMAT, s->w, ": chunk extent ", c[d], " along axis ", d);
      s->chunks.push_back(Index(c[d]));
    }
    s->pipe = read_pipeline(s->dcpl, s->w);
  } else {
    s->contiguous = layout == H5D_CONTIGUOUS;
    if (H5Pget_nfilters(s->dcpl) > 0) s->pipe = read_pipeline(s->dcpl, s->w);
  }
  htri_t eq = H5Tequal(s->ftype, s->mtype);
  s->same_bytes = eq > 0;
  H5Eclear2(H5E_DEFAULT);
  {
    H5Id fcpl(H5Fget_create_plist(s->file));
    hsize_t ub = 0;
    if (fcpl.ok() && H5Pget_userblock(fcpl, &ub) >= 0) s->base = uint64_t(ub);
  }
  if (s->contiguous && s->pipe.ids.empty()) s->contig_addr = H5Dget_offset(s->dset);
  H5Eclear2(H5E_DEFAULT);
  s->direct = direct_enabled() && s->same_bytes && s->pipe.ours &&
              (s->contiguous ? s->contig_addr != HADDR_UNDEF : !s->chunks.empty());
  if (s->direct) s->fd = open_fd(path, false);
  // The fill value (unallocated chunks), in the block's type.
  size_t isz = dtype_size(s->dtype);
  s->fill.assign(isz, 0);
  H5D_fill_value_t fv = H5D_FILL_VALUE_UNDEFINED;
  if (H5Pfill_value_defined(s->dcpl, &fv) >= 0 && fv == H5D_FILL_VALUE_USER_DEFINED) {
    if (H5Pget_fill_value(s->dcpl, s->mtype, s->fill.data()) < 0) std::fill(s->fill.begin(), s->fill.end(), 0);
  }
  H5Eclear2(H5E_DEFAULT);
  return s;
}

std::shared_ptr<H5Source> source_shared(const std::string &path, const std::string &dataset) {
  static std::mutex mu;
  static std::unordered_map<std::string, std::weak_ptr<H5Source>> cache;
  struct stat st{};
  std::string key = path + '\0' + dataset;
  if (::stat(path.c_str(), &st) == 0)
    key += '\0' + std::to_string(st.st_dev) + ':' + std::to_string(st.st_ino) + ':' + std::to_string(st.st_size) +
           ':' + std::to_string(st.st_mtim.tv_sec) + '.' + std::to_string(st.st_mtim.tv_nsec);
  {
    std::lock_guard<std::mutex> lk(mu);
    auto it = cache.find(key);
    if (it != cache.end())
      if (auto s = it->second.lock()) return s;
  }
  auto s = open_source(path, dataset);
  std::lock_guard<std::mutex> lk(mu);
  for (auto it = cache.begin(); it != cache.end();) it = it->second.expired() ? cache.erase(it) : std::next(it);
  cache[key] = s;
  return s;
}

// Decode one stored chunk (bytes at `raw`, filters applied except those in `mask`) into `dst` (the
// full chunk). `scratch` has room for a chunk.
void decode_h5_chunk(const H5Source &s, unsigned mask, unsigned char *raw, size_t rawlen, unsigned char *dst,
                     size_t nbytes, unsigned char *scratch, const std::string &what) {
  // Undo the pipeline last to first; the data moves between raw, scratch and dst, ending in dst.
  std::vector<H5Z_filter_t> todo;
  for (size_t i = 0; i < s.pipe.ids.size(); ++i)
    if (!(mask & (1u << i))) todo.push_back(s.pipe.ids[i]);
  const unsigned char *cur = raw;
  size_t curlen = rawlen;
  for (size_t k = todo.size(); k-- > 0;) {
    unsigned char *out = k == 0 ? dst : (cur == scratch ? raw : scratch);
    if (todo[k] == H5Z_FILTER_DEFLATE) {
      inflate_zlib(cur, curlen, out, nbytes, what);
    } else {  // shuffle
      CA_CHECK(curlen == nbytes, CA_EFORMAT, what, ": shuffled chunk has ", curlen, " bytes, expected ", nbytes);
      unshuffle_bytes(out, cur, nbytes, dtype_size(s.dtype));
    }
    cur = out;
    curlen = nbytes;
  }
  if (todo.empty()) {
    CA_CHECK(curlen == nbytes, CA_EFORMAT, what, ": stored chunk has ", curlen, " bytes, expected ", nbytes);
    if (cur != dst) std::memcpy(dst, cur, nbytes);
  }
}

// Read [start, start+ext) of a chunked dataset chunk by chunk: locations from HDF5 (locked), bytes by
// pread and decoding on this thread.
void read_chunked_direct(const H5Source &s, std::span<const Index> start, const Index *ext, Block &out) {
  const int nd = int(s.shape.size());
  const size_t isz = dtype_size(s.dtype);
  Index celems = 1;
  for (Index c : s.chunks) celems *= c;
  const size_t cbytes = size_t(celems) * isz;
  const size_t maxraw = max_encoded_size(Compressor::zlib(1), cbytes);
  std::vector<Index> first(nd), last(nd), idx(nd), lo(nd), box(nd), src_off(nd), dst_off(nd);
  for (int d = 0; d < nd; ++d) {
    first[d] = start[d] / s.chunks[d];
    last[d] = (start[d] + ext[d] - 1) / s.chunks[d];
    idx[d] = first[d];
  }
  H5Buffer chunk;
  unsigned char *raw = nullptr, *scratch = nullptr;
  struct Trim {
    ~Trim() {
      tl_raw.trim();
      tl_scratch.trim();
    }
  } trim;
  std::vector<hsize_t> coff(nd);
  while (true) {
    bool whole = true;  // the box is this one chunk exactly: decode straight into the block
    for (int d = 0; d < nd; ++d) {
      Index c0 = idx[d] * s.chunks[d];
      coff[d] = hsize_t(c0);
      lo[d] = std::max(c0, start[d]);
      Index hi = std::min(c0 + s.chunks[d], start[d] + ext[d]);
      box[d] = hi - lo[d];
      src_off[d] = lo[d] - c0;
      dst_off[d] = lo[d] - start[d];
      whole = whole && ext[d] == s.chunks[d] && c0 == start[d];
    }
    unsigned mask = 0;
    haddr_t addr = HADDR_UNDEF;
    hsize_t size = 0;
    {
      H5Lock lk;
      herr_t r = H5Dget_chunk_info_by_coord(s.dset, coff.data(), &mask, &addr, &size);
      if (r < 0) fail(CA_EFORMAT, s.w, ": cannot locate chunk at ", str_offsets(coff), ": ", h5_error());
    }
    std::string what = str(s.w, ", chunk at ", str_offsets(coff));
    unsigned char *dst;
    if (whole) {
      dst = static_cast<unsigned char *>(out.data);
    } else {
      if (!chunk) chunk = h5_buffer(cbytes);
      dst = chunk.get();
    }
    if (addr == HADDR_UNDEF) {
      fill_elements(dst, celems, s.fill.data(), isz);
    } else {
      CA_CHECK(size <= maxraw, CA_EFORMAT, what, ": stored size ", size, " is more than a chunk of ", cbytes,
               " bytes can take");
      bool filtered = false;
      for (size_t i = 0; i < s.pipe.ids.size(); ++i) filtered = filtered || !(mask & (1u << i));
      if (!filtered) {
        CA_CHECK(size == cbytes, CA_EFORMAT, what, ": stored chunk has ", size, " bytes, expected ", cbytes);
        h5_pread_all(s.fd, dst, cbytes, s.base + addr, what);
      } else {
        if (!raw) raw = tl_raw.get(std::max<size_t>(maxraw, cbytes));
        if (!scratch) scratch = tl_scratch.get(std::max<size_t>(maxraw, cbytes));
        h5_pread_all(s.fd, raw, size_t(size), s.base + addr, what);
        decode_h5_chunk(s, mask, raw, size_t(size), dst, cbytes, scratch, what);
      }
    }
    if (!whole)
      copy_box(out.data, out.shape, dst_off.data(), dst, s.chunks.data(), src_off.data(), box.data(), nd, isz);
    int d = nd - 1;
    for (; d >= 0; --d) {
      if (++idx[d] <= last[d]) break;
      idx[d] = first[d];
    }
    if (d < 0) return;
  }
}

// A hyperslab selection of [start, start+ext) in a dataspace (all of it for 0-d).
void select_box(hid_t space, std::span<const Index> start, const Index *ext) {
  if (start.empty()) return;
  std::vector<hsize_t> st(start.begin(), start.end()), cnt(ext, ext + start.size());
  H5Sselect_hyperslab(space, H5S_SELECT_SET, st.data(), nullptr, cnt.data(), nullptr);
}

H5Id mem_space(int nd, const Index *ext) {
  if (nd == 0) return H5Id(H5Screate(H5S_SCALAR));
  std::vector<hsize_t> d(ext, ext + nd);
  return H5Id(H5Screate_simple(nd, d.data(), nullptr));
}

}  // namespace h5

using namespace h5;

bool hdf5_available() noexcept { return true; }

H5LockStats hdf5_lock_stats() noexcept {
  return {g_acq.load(), g_wait_ns.load() / 1000, g_held_ns.load() / 1000};
}

int64_t hdf5_direct_io_bytes() noexcept { return g_dio_bytes.load(); }

H5Meta read_h5_meta(const std::string &path, const std::string &dataset) {
  auto s = open_source(path, dataset);
  return {s->dtype, s->shape, s->chunks};
}

BlockRef read_h5_region(const std::string &path, const std::string &dataset, DType dtype,
                        std::span<const Index> start, std::span<const Index> stop) {
  auto s = source_shared(path, dataset);
  const int nd = int(s->shape.size());
  CA_CHECK(s->dtype == dtype, CA_EFORMAT, s->w, " changed since the array was made: dtype ", dtype_name(s->dtype),
           ", was ", dtype_name(dtype));
  CA_CHECK(int(start.size()) == nd && int(stop.size()) == nd, CA_EFORMAT, s->w, " has ", nd,
           " dimensions, the block ", start.size());
  std::vector<Index> ext(static_cast<size_t>(nd));
  for (int d = 0; d < nd; ++d) {
    CA_CHECK(0 <= start[d] && start[d] <= stop[d] && stop[d] <= s->shape[d], CA_EFORMAT, s->w, ": block [",
             start[d], ", ", stop[d], ") along axis ", d, " lies outside its extent ", s->shape[d],
             " (the file changed since the array was made?)");
    ext[d] = stop[d] - start[d];
  }
  BlockRef out(block_new(dtype, nd, ext.data()));
  if (out->size == 0) return out;
  const size_t isz = dtype_size(dtype);
  const bool direct_ok = s->direct;
  if (direct_ok && s->contiguous) {
    auto *dst = static_cast<unsigned char *>(out->data);
    for_each_run(s->shape, start, ext.data(), [&](Index off, Index boff, Index n) {
      h5_pread_all(s->fd, dst + size_t(boff) * isz, size_t(n) * isz, s->base + s->contig_addr + uint64_t(off) * isz, s->w);
    });
    return out;
  }
  if (direct_ok) {
    read_chunked_direct(*s, start, ext.data(), *out);
    return out;
  }
  H5Lock lk;
  H5Id fspace(H5Dget_space(s->dset));
  select_box(fspace, start, ext.data());
  H5Id mspace = mem_space(nd, ext.data());
  if (H5Dread(s->dset, s->mtype, mspace, fspace, H5P_DEFAULT, out->data) < 0)
    fail(CA_EFORMAT, "reading ", s->w, ": ", h5_error());
  return out;
}

// ---- writing ------------------------------------------------------------------------------------

struct H5Writer::State {
  std::string path, dataset, w;
  DType dtype;
  std::vector<Index> shape, chunks;
  H5WriteOptions opts;
  H5Id file, dset, mtype;
  haddr_t contig_addr = HADDR_UNDEF;
  int fd = -1;
  // Unfiltered chunks allocated at creation (H5D_ALLOC_TIME_EARLY): each is written at its address
  // with h5_write_range, unlocked, O_DIRECT through dfd when that is open.
  bool chunk_addrs = false;
  int dfd = -1;
  size_t dio_min = SIZE_MAX;
  bool closed = false;

  // Also reached when the constructor throws (close() never ran): handles are released locked.
  ~State() {
    if (fd >= 0) ::close(fd);
    if (dfd >= 0) ::close(dfd);
    H5Lock lk;
    mtype.reset();
    dset.reset();
    file.reset();
  }
};

H5Writer::H5Writer(const std::string &path, const std::string &dataset, DType dtype, std::vector<Index> shape,
                   const H5WriteOptions &opts)
    : st_(std::make_unique<State>()) {
  State &s = *st_;
  s.path = path;
  s.dataset = dataset;
  s.w = where(path, dataset);
  s.dtype = dtype;
  s.shape = std::move(shape);
  s.opts = opts;
  const int nd = int(s.shape.size());
  CA_CHECK(!dataset.empty() && dataset != "/", CA_EINVAL, "to_hdf5: dataset name '", dataset, "' is empty");
  CA_CHECK(opts.gzip_level >= -1 && opts.gzip_level <= 9, CA_EINVAL, "to_hdf5: gzip level ", opts.gzip_level,
           " is outside -1..9");
  bool empty = false;
  for (Index e : s.shape) empty = empty || e == 0;
  if (!opts.chunks.empty()) {
    CA_CHECK(int(opts.chunks.size()) == nd, CA_EINVAL, "to_hdf5: chunks have ", opts.chunks.size(),
             " dimensions, the array ", nd);
    for (int d = 0; d < nd; ++d)
      CA_CHECK(opts.chunks[d] >= 1, CA_EINVAL, "to_hdf5: chunk size ", opts.chunks[d], " along axis ", d,
               " must be at least 1");
  }
  // Chunked unless contiguous was asked for or the array is 0-d or empty (HDF5 chunks need a nonzero
  // extent); filters need chunks.
  if (!opts.chunks.empty() && nd > 0 && !empty) {
    for (int d = 0; d < nd; ++d) s.chunks.push_back(std::min(opts.chunks[d], s.shape[d]));
    size_t cb = dtype_size(dtype);
    for (Index c : s.chunks) cb *= size_t(c);
    CA_CHECK(cb < (size_t(1) << 32), CA_EINVAL, "to_hdf5: an HDF5 chunk of ", cb, " bytes is over HDF5's 4 GiB limit");
  }
  make_dirs(parent_of(path));
  // O_DIRECT writes need page-aligned file offsets: the file places objects of at least
  // min(64 KiB, dio_min) bytes (chunks, contiguous data) on 4 KiB boundaries (H5Pset_alignment; h5py
  // reads such files as any other).
  const bool direct = direct_enabled();
  s.dio_min = direct ? odirect_min() : SIZE_MAX;
  const bool unfiltered = opts.gzip_level < 0 && !opts.shuffle;
  size_t cbytes = dtype_size(dtype);
  for (Index c : s.chunks) cbytes *= size_t(c);
  H5Lock lk;
  H5Id fapl(H5Pcreate(H5P_FILE_ACCESS));
  if (s.dio_min != SIZE_MAX && unfiltered)  // compressed chunks are not written direct: no padding for them
    H5Pset_alignment(fapl, hsize_t(std::min<size_t>(size_t(64) << 10, s.dio_min)), kDioAlign);
  s.mtype = mem_type(dtype, "to_hdf5");
  if (file_exists(path)) {
    s.file = open_file(path, true, fapl);
  } else {
    s.file = H5Id(H5Fcreate(path.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, fapl));
    if (!s.file.ok()) fail(CA_EIO, "cannot create HDF5 file '", path, "': ", h5_error());
  }
  if (first_missing(s.file, dataset, path).empty()) {
    H5Id o(H5Oopen(s.file, dataset.c_str(), H5P_DEFAULT));
    bool is_ds = o.ok() && H5Iget_type(o) == H5I_DATASET;
    H5Eclear2(H5E_DEFAULT);
    CA_CHECK(is_ds, CA_EEXISTS, "to_hdf5: '", dataset, "' in HDF5 file '", path,
             "' exists and is not a dataset: not replaced");
    CA_CHECK(opts.overwrite, CA_EEXISTS, "to_hdf5: ", s.w, " already exists (pass overwrite to replace it)");
    o.reset();
    if (H5Ldelete(s.file, dataset.c_str(), H5P_DEFAULT) < 0)
      fail(CA_EIO, "to_hdf5: cannot remove the old ", s.w, ": ", h5_error());
  }
  H5Id dcpl(H5Pcreate(H5P_DATASET_CREATE)), lcpl(H5Pcreate(H5P_LINK_CREATE));
  H5Pset_create_intermediate_group(lcpl, 1);
  if (!s.chunks.empty()) {
    std::vector<hsize_t> c(s.chunks.begin(), s.chunks.end());
    H5Pset_chunk(dcpl, nd, c.data());
    if (opts.shuffle) H5Pset_shuffle(dcpl);
    if (opts.gzip_level >= 0) H5Pset_deflate(dcpl, unsigned(opts.gzip_level));
    // Big unfiltered chunks: allocated now, so each task can write its chunks at their addresses;
    // no fill value is written at allocation (HDF5 1.10 otherwise writes the whole dataset's fill
    // first: measured, twice the bytes), every chunk is written by a task.
    if (unfiltered && cbytes >= s.dio_min) {
      H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);
      H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
      s.chunk_addrs = true;
    }
  } else {
    H5Pset_layout(dcpl, H5D_CONTIGUOUS);
    H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);
  }
  H5Id space = mem_space(nd, s.shape.data());
  s.dset = H5Id(H5Dcreate2(s.file, dataset.c_str(), s.mtype, space, lcpl, dcpl, H5P_DEFAULT));
  if (!s.dset.ok()) fail(CA_EIO, "to_hdf5: cannot create ", s.w, ": ", h5_error());
  H5Id fcpl(H5Fget_create_plist(s.file));
  hsize_t ub = 1;  // file addresses are relative to the userblock: pwrite only without one
  if (fcpl.ok()) H5Pget_userblock(fcpl, &ub);
  H5Eclear2(H5E_DEFAULT);
  if (ub == 0 && direct) {
    if (s.chunks.empty()) {
      s.contig_addr = H5Dget_offset(s.dset);
      H5Eclear2(H5E_DEFAULT);
      if (s.contig_addr != HADDR_UNDEF) s.fd = open_fd(path, true);
    } else if (s.chunk_addrs) {
      s.fd = open_fd(path, true);
    }
    if (s.fd >= 0 && s.dio_min != SIZE_MAX) s.dfd = ::open(path.c_str(), O_RDWR | O_DIRECT | O_CLOEXEC);  // -1: none
  } else {
    s.chunk_addrs = false;
  }
}

H5Writer::~H5Writer() {
  try {
    close();
  } catch (...) {
  }
}

void H5Writer::close() {
  State &s = *st_;
  if (s.closed) return;
  s.closed = true;
  if (s.fd >= 0) {
    ::close(s.fd);
    s.fd = -1;
  }
  if (s.dfd >= 0) {
    ::close(s.dfd);
    s.dfd = -1;
  }
  H5Lock lk;
  s.mtype.reset();
  s.dset.reset();
  if (s.file.ok()) {
    hid_t f = s.file.get();
    herr_t r = H5Fflush(f, H5F_SCOPE_LOCAL);
    s.file.reset();
    if (r < 0) fail(CA_EIO, "to_hdf5: cannot flush HDF5 file '", s.path, "': ", h5_error());
  }
}

void H5Writer::write_region(std::span<const Index> start, const Block &b) {
  State &s = *st_;
  const int nd = int(s.shape.size());
  CA_CHECK(b.dtype == s.dtype, CA_ETYPE, "to_hdf5: block has dtype ", dtype_name(b.dtype), ", the dataset ",
           dtype_name(s.dtype));
  CA_CHECK(b.ndim == nd && int(start.size()) == nd, CA_EINVAL, "to_hdf5: block has ", b.ndim,
           " dimensions, the dataset ", nd);
  for (int d = 0; d < nd; ++d)
    CA_CHECK(start[d] >= 0 && start[d] + b.shape[d] <= s.shape[d], CA_EINVAL, "to_hdf5: block [", start[d], ", ",
             start[d] + b.shape[d], ") along axis ", d, " lies outside the dataset's extent ", s.shape[d]);
  if (b.size == 0) return;
  const size_t isz = dtype_size(s.dtype);
  if (s.fd >= 0 && s.contig_addr != HADDR_UNDEF) {  // contiguous: straight into the file at its address
    const auto *src = static_cast<const unsigned char *>(b.data);
    for_each_run(s.shape, start, b.shape, [&](Index off, Index boff, Index n) {
      h5_write_range(s.fd, s.dfd, s.dio_min, src + size_t(boff) * isz, size_t(n) * isz,
                     s.contig_addr + uint64_t(off) * isz, s.w);
    });
    return;
  }
  bool aligned = !s.chunks.empty() && direct_enabled();
  for (int d = 0; d < nd && aligned; ++d) {
    Index stop = start[d] + b.shape[d];
    aligned = start[d] % s.chunks[d] == 0 && (stop % s.chunks[d] == 0 || stop == s.shape[d]);
  }
  if (!aligned) {
    H5Lock lk;
    H5Id fspace(H5Dget_space(s.dset));
    select_box(fspace, start, b.shape);
    H5Id mspace = mem_space(nd, b.shape);
    if (H5Dwrite(s.dset, s.mtype, mspace, fspace, H5P_DEFAULT, b.data) < 0)
      fail(CA_EIO, "to_hdf5: writing ", s.w, ": ", h5_error());
    return;
  }
  // Whole chunks: shuffle and deflate here, hand HDF5 the stored bytes.
  Index celems = 1;
  for (Index c : s.chunks) celems *= c;
  const size_t cbytes = size_t(celems) * isz;
  std::vector<Index> first(nd), last(nd), idx(nd), box(nd), src_off(nd), zero(nd, 0);
  for (int d = 0; d < nd; ++d) {
    first[d] = start[d] / s.chunks[d];
    last[d] = (start[d] + b.shape[d] - 1) / s.chunks[d];
    idx[d] = first[d];
  }
  H5Buffer chunk;
  struct Trim {
    ~Trim() {
      tl_scratch.trim();
      tl_out.trim();
    }
  } trim;
  std::vector<hsize_t> coff(nd);
  while (true) {
    bool whole = true;
    for (int d = 0; d < nd; ++d) {
      Index c0 = idx[d] * s.chunks[d];
      coff[d] = hsize_t(c0);
      box[d] = std::min(c0 + s.chunks[d], s.shape[d]) - c0;
      src_off[d] = c0 - start[d];
      whole = whole && box[d] == s.chunks[d] && b.shape[d] == s.chunks[d];
    }
    const unsigned char *data;
    if (whole) {
      data = static_cast<const unsigned char *>(b.data);
    } else {  // an edge chunk (HDF5 stores it whole: the rest is zero) or one of several in the block
      if (!chunk) chunk = h5_buffer(cbytes);
      bool partial = false;
      for (int d = 0; d < nd; ++d) partial = partial || box[d] != s.chunks[d];
      if (partial) std::memset(chunk.get(), 0, cbytes);
      copy_box(chunk.get(), s.chunks.data(), zero.data(), b.data, b.shape, src_off.data(), box.data(), nd, isz);
      data = chunk.get();
    }
    if (s.opts.shuffle) {
      unsigned char *shuf = tl_scratch.get(cbytes);
      shuffle_bytes(shuf, data, cbytes, isz);
      data = shuf;
    }
    size_t len = cbytes;
    if (s.opts.gzip_level >= 0) {
      len = deflate_zlib(data, cbytes, s.opts.gzip_level, isz, tl_out);
      data = tl_out.buf.get();
    }
    if (s.chunk_addrs && len == cbytes) {  // allocated at creation: write it at its address, unlocked
      unsigned mask = 0;
      haddr_t addr = HADDR_UNDEF;
      hsize_t size = 0;
      {
        H5Lock lk;
        if (H5Dget_chunk_info_by_coord(s.dset, coff.data(), &mask, &addr, &size) < 0) {
          H5Eclear2(H5E_DEFAULT);
          addr = HADDR_UNDEF;
        }
      }
      if (addr != HADDR_UNDEF && size == cbytes) {
        h5_write_range(s.fd, s.dfd, s.dio_min, data, cbytes, uint64_t(addr), str(s.w, ", chunk at ", str_offsets(coff)));
        data = nullptr;
      }
    }
    if (data) {
      H5Lock lk;
      if (H5Dwrite_chunk(s.dset, H5P_DEFAULT, 0, coff.data(), len, data) < 0)
        fail(CA_EIO, "to_hdf5: writing ", s.w, ", chunk at ", str_offsets(coff), ": ", h5_error());
    }
    int d = nd - 1;
    for (; d >= 0; --d) {
      if (++idx[d] <= last[d]) break;
      idx[d] = first[d];
    }
    if (d < 0) return;
  }
}

}  // namespace ca::io

#else  // !CA_HDF5

#include "core/error.hpp"

namespace ca::io {

namespace {
[[noreturn]] void no_hdf5(const char *what) {
  fail(CA_EUNSUPPORTED, what, ": this chunkarray was built without HDF5 (configure with -Dhdf5=enabled and "
       "Debian's libhdf5-dev)");
}
}  // namespace

bool hdf5_available() noexcept { return false; }
H5LockStats hdf5_lock_stats() noexcept { return {}; }
int64_t hdf5_direct_io_bytes() noexcept { return 0; }
H5Meta read_h5_meta(const std::string &, const std::string &) { no_hdf5("from_hdf5"); }
BlockRef read_h5_region(const std::string &, const std::string &, DType, std::span<const Index>,
                        std::span<const Index>) {
  no_hdf5("from_hdf5");
}
struct H5Writer::State {};
H5Writer::H5Writer(const std::string &, const std::string &, DType, std::vector<Index>, const H5WriteOptions &) {
  no_hdf5("to_hdf5");
}
H5Writer::~H5Writer() = default;
void H5Writer::write_region(std::span<const Index>, const Block &) { no_hdf5("to_hdf5"); }
void H5Writer::close() {}

}  // namespace ca::io

#endif  // CA_HDF5
