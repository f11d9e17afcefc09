#include "io/npy.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/checked.hpp"
#include "core/error.hpp"
#include "io/fs.hpp"
#include "io/layout.hpp"

namespace ca::io {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;
// NumPy writes headers of at most a few hundred bytes (and refuses to read more than 10000 by default).
constexpr size_t kMaxNpyHeader = size_t(1) << 20;

// A tiny reader for the Python dict literal of a .npy header.
struct Lit {
  const char *s;
  size_t n, i = 0;
  const std::string &where;
  [[noreturn]] void bad(const char *what) const {
    // A bounded excerpt around the offset: the header may be megabytes of garbage.
    size_t from = i > 40 ? i - 40 : 0, len = n - from < 80 ? n - from : 80;
    fail(CA_EFORMAT, where, ": malformed .npy header (", what, " at offset ", i, "), near ",
         quote_for_message(std::string_view(s + from, len)));
  }
  void ws() {
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
  }
  bool eat(char c) {
    ws();
    if (i < n && s[i] == c) {
      ++i;
      return true;
    }
    return false;
  }
  void expect(char c, const char *what) {
    if (!eat(c)) bad(what);
  }
  std::string string() {
    ws();
    if (i >= n || (s[i] != '\'' && s[i] != '"')) bad("expected a string");
    char q = s[i++];
    std::string out;
    while (i < n && s[i] != q) out += s[i++];
    if (i >= n) bad("unterminated string");
    ++i;
    return out;
  }
  bool word(const char *w) {
    ws();
    size_t l = std::strlen(w);
    if (n - i >= l && std::memcmp(s + i, w, l) == 0) {
      i += l;
      return true;
    }
    return false;
  }
  Index integer() {
    ws();
    size_t b = i;
    while (i < n && s[i] >= '0' && s[i] <= '9') ++i;
    if (b == i || i - b > 18) bad("expected a non-negative integer");
    Index v = std::stoll(std::string(s + b, i - b));
    if (i < n && s[i] == 'L') ++i;  // Python 2 longs
    return v;
  }
};

// Magic, version, header length and the padded dict, so the data starts at a multiple of 64.
std::string header_bytes(DType dtype, const std::vector<Index> &shape) {
  std::string dict = str("{'descr': '", dtype_typestr(dtype), "', 'fortran_order': False, 'shape': ",
                         shape_str(shape), ", }");
  for (int major = 1; major <= 2; ++major) {
    size_t prefix = kMagicLen + 2 + (major == 1 ? 2 : 4);
    size_t total = (prefix + dict.size() + 1 + kBlockAlign - 1) / kBlockAlign * kBlockAlign;
    size_t hlen = total - prefix;
    if (major == 1 && hlen > 65535) continue;
    std::string h(kMagic, kMagicLen);
    h += char(major);
    h += char(0);
    for (size_t b = 0; b < (major == 1 ? 2u : 4u); ++b) h += char((hlen >> (8 * b)) & 0xff);
    h += dict;
    h.append(hlen - dict.size() - 1, ' ');
    h += '\n';
    return h;
  }
  fail(CA_EINTERNAL, "unreachable");
}

struct MapRef {
  std::shared_ptr<const NpyFile> file;
};
void release_map_ref(void *ud) { delete static_cast<MapRef *>(ud); }

}  // namespace

size_t NpyHeader::nbytes() const noexcept { return size_t(element_count(int(shape.size()), shape.data())) * dtype_size(dtype); }

NpyHeader parse_npy_header(const void *data0, size_t size, const std::string &where) {
  auto *data = static_cast<const unsigned char *>(data0);
  if (size < 10 || std::memcmp(data, kMagic, kMagicLen) != 0)
    fail(CA_EFORMAT, where, ": not a .npy file (bad magic)");
  NpyHeader h;
  h.major = data[6];
  h.minor = data[7];
  if (h.major < 1 || h.major > 3)
    fail(CA_EVERSION, where, ": .npy format version ", h.major, ".", h.minor, " is not supported (1.0 to 3.0)");
  size_t hlen, prefix;
  if (h.major == 1) {
    hlen = size_t(data[8]) | size_t(data[9]) << 8;
    prefix = 10;
  } else {
    if (size < 12) fail(CA_EFORMAT, where, ": truncated .npy header");
    hlen = size_t(data[8]) | size_t(data[9]) << 8 | size_t(data[10]) << 16 | size_t(data[11]) << 24;
    prefix = 12;
  }
  if (hlen > kMaxNpyHeader)
    fail(CA_EFORMAT, where, ": .npy header of ", hlen, " bytes is larger than the ", kMaxNpyHeader, " bytes allowed");
  if (size < prefix + hlen)
    fail(CA_EFORMAT, where, ": truncated .npy header (", prefix + hlen, " bytes expected, ", size, " present)");
  h.data_offset = prefix + hlen;
  Lit p{reinterpret_cast<const char *>(data + prefix), hlen, 0, where};
  bool has_descr = false, has_order = false, has_shape = false;
  p.expect('{', "expected '{'");
  while (!p.eat('}')) {
    std::string key = p.string();
    p.expect(':', "expected ':'");
    if (key == "descr") {
      p.ws();
      if (p.i < p.n && p.s[p.i] == '[')
        fail(CA_EUNSUPPORTED, where, ": structured dtypes are not supported");
      parse_numpy_typestr(p.string(), where, h.dtype, h.big_endian);
      has_descr = true;
    } else if (key == "fortran_order") {
      if (p.word("True")) h.fortran_order = true;
      else if (p.word("False")) h.fortran_order = false;
      else p.bad("fortran_order is neither True nor False");
      has_order = true;
    } else if (key == "shape") {
      p.expect('(', "expected a tuple");
      while (!p.eat(')')) {
        h.shape.push_back(p.integer());
        if (!p.eat(',')) {
          p.expect(')', "expected ',' or ')'");
          break;
        }
      }
      has_shape = true;
    } else {
      p.bad("unexpected key");
    }
    if (!p.eat(',')) {
      p.expect('}', "expected ',' or '}'");
      break;
    }
  }
  if (!has_descr || !has_order || !has_shape) p.bad("missing one of 'descr', 'fortran_order', 'shape'");
  if (h.shape.size() > size_t(CA_MAX_NDIM)) fail(CA_EUNSUPPORTED, where, ": ", h.shape.size(), " dimensions");
  Index n = 1;
  for (Index e : h.shape) {
    if (e != 0 && n > (Index(1) << 56) / e) fail(CA_EFORMAT, where, ": shape ", shape_str(h.shape), " is too large");
    n *= e;
  }
  return h;
}

NpyHeader read_npy_header(const std::string &path) {
  // Mapping is lazy: only the header's pages are read.
  return NpyFile::open(path)->header();
}

std::shared_ptr<const NpyFile> NpyFile::open(const std::string &path) {
  struct stat st;
  // Regular files only: a FIFO would block, a device would map or read without end.
  int fd = open_regular_file(path, st, false, ".npy file");
  size_t size = size_t(st.st_size);
  if (size < 10) {
    ::close(fd);
    fail(CA_EFORMAT, path, ": not a .npy file (", size, " bytes)");
  }
  void *m = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  int e = errno;
  ::close(fd);
  if (m == MAP_FAILED) fail(CA_EIO, "cannot map '", path, "': ", std::strerror(e));
  std::shared_ptr<NpyFile> f(new NpyFile());
  f->map_ = m;
  f->map_size_ = size;
  f->path_ = path;
  f->header_ = parse_npy_header(m, size, path);
  if (size - f->header_.data_offset < f->header_.nbytes())
    fail(CA_EFORMAT, path, ": truncated .npy file: the header promises ", f->header_.nbytes(), " data bytes, ",
         size - f->header_.data_offset, " are present");
  return f;
}

NpyFile::~NpyFile() {
  if (map_) ::munmap(map_, map_size_);
}

BlockRef NpyFile::read_region(std::span<const Index> start, std::span<const Index> stop) const {
  const int nd = ndim();
  const auto &shape = header_.shape;
  CA_CHECK(int(start.size()) == nd && int(stop.size()) == nd, CA_EINVAL, "region has ", start.size(), "/",
           stop.size(), " bounds, ", path_, " has ", nd, " dimensions");
  std::vector<Index> ext(nd);
  for (int d = 0; d < nd; ++d) {
    CA_CHECK(0 <= start[d] && start[d] <= stop[d] && stop[d] <= shape[d], CA_EINVAL, "region [", start[d], ", ",
             stop[d], ") along axis ", d, " is outside the extent ", shape[d], " of ", path_);
    ext[d] = stop[d] - start[d];
  }
  const size_t isz = dtype_size(header_.dtype);
  const bool fortran = header_.fortran_order && !order_is_irrelevant(nd, shape.data());
  auto strides = byte_strides(nd, shape.data(), isz, fortran);
  int64_t off = 0;
  for (int d = 0; d < nd; ++d) off += start[d] * strides[d];
  const unsigned char *src = static_cast<const unsigned char *>(map_) + header_.data_offset + off;
  const Index n = element_count(nd, ext.data());
  if (!header_.big_endian && !fortran && n > 0 && reinterpret_cast<uintptr_t>(src) % kBlockAlign == 0) {
    // Contiguous in C order: leading axes of extent 1, one partial axis, then full axes.
    bool contiguous = true;
    int d = 0;
    while (d < nd && ext[d] == 1) ++d;
    for (++d; d < nd; ++d) contiguous = contiguous && ext[d] == shape[d];
    if (contiguous) {
      auto *ref = new MapRef{shared_from_this()};
      return BlockRef(block_wrap(header_.dtype, nd, ext.data(), const_cast<unsigned char *>(src), release_map_ref, ref));
    }
  }
  BlockRef out(block_new(header_.dtype, nd, ext.data()));
  if (n == 0) return out;
  auto cs = byte_strides(nd, ext.data(), isz, false);
  copy_strided(out->data, cs.data(), src, strides.data(), nd, ext.data(), isz);
  if (header_.big_endian) byteswap_elements(out->data, n, header_.dtype);
  return out;
}

BlockRef NpyFile::read() const {
  std::vector<Index> zero(header_.shape.size(), 0);
  return read_region(zero, header_.shape);
}

BlockRef read_npy(const std::string &path) { return NpyFile::open(path)->read(); }

void write_npy(const std::string &path, const Block &block) {
  NpyWriter w(path, block.dtype, std::vector<Index>(block.shape, block.shape + block.ndim));
  std::vector<Index> zero(size_t(block.ndim), 0);
  w.write_region(zero, block);
  w.commit();
}

namespace {
void pwrite_all(int fd, const void *data, size_t n, size_t off, const std::string &path) {
  auto *p = static_cast<const char *>(data);
  while (n > 0) {
    ssize_t w = ::pwrite(fd, p, n, off_t(off));
    if (w < 0) {
      if (errno == EINTR) continue;
      fail(CA_EIO, "cannot write '", path, "': ", std::strerror(errno));
    }
    p += w;
    n -= size_t(w);
    off += size_t(w);
  }
}
}  // namespace

NpyWriter::NpyWriter(const std::string &path, DType dtype, std::vector<Index> shape)
    : path_(path), dtype_(dtype), shape_(std::move(shape)) {
  CA_CHECK(dtype_valid(dtype) && dtype != CA_RAW, CA_ETYPE, "dtype ", dtype, " cannot be stored in .npy");
  CA_CHECK(shape_.size() <= size_t(CA_MAX_NDIM), CA_EINVAL, "ndim ", shape_.size(), " is above ", CA_MAX_NDIM);
  for (size_t d = 0; d < shape_.size(); ++d)
    CA_CHECK(shape_[d] >= 0, CA_EINVAL, "shape[", d, "] is ", shape_[d], ", must be >= 0");
  std::string header = header_bytes(dtype, shape_);
  data_offset_ = header.size();
  size_t slash = path.find_last_of('/');
  std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  CA_CHECK(!base.empty(), CA_EINVAL, "cannot write to '", path, "': no file name");
  make_dirs(dir);
  remove_stale_temporaries(path);
  tmp_ = temp_path_for(path);
  do fd_ = ::open(tmp_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  while (fd_ < 0 && errno == EINTR);
  if (fd_ < 0) fail(CA_EIO, "cannot create '", tmp_, "': ", std::strerror(errno));
  const size_t total =
      size_t(checked_add(Index(data_offset_), shape_nbytes(shape_, dtype_size(dtype)), "the .npy file size (bytes)"));
  if (::ftruncate(fd_, off_t(total)) != 0) {
    int e = errno;
    ::close(fd_);
    ::unlink(tmp_.c_str());
    fd_ = -1;
    fail(CA_EIO, "cannot size '", tmp_, "' to ", total, " bytes: ", std::strerror(e));
  }
  try {
    pwrite_all(fd_, header.data(), header.size(), 0, tmp_);
  } catch (...) {
    ::close(fd_);
    ::unlink(tmp_.c_str());
    fd_ = -1;
    throw;
  }
}

NpyWriter::~NpyWriter() {
  if (fd_ >= 0) {
    ::close(fd_);
    ::unlink(tmp_.c_str());
  }
}

void NpyWriter::write_region(std::span<const Index> start, const Block &block) {
  CA_CHECK(fd_ >= 0, CA_EINVAL, "the .npy writer for '", path_, "' is already committed");
  const int nd = int(shape_.size());
  CA_CHECK(block.dtype == dtype_, CA_ETYPE, "block has dtype ", dtype_name(block.dtype), ", the .npy file has ",
           dtype_name(dtype_));
  CA_CHECK(block.ndim == nd && int(start.size()) == nd, CA_EINVAL, "block has ", block.ndim,
           " dimensions and start ", start.size(), " entries, the .npy file has ", nd);
  for (int d = 0; d < nd; ++d)
    CA_CHECK(start[d] >= 0 && start[d] + block.shape[d] <= shape_[d], CA_EINVAL, "block [", start[d], ", ",
             start[d] + block.shape[d], ") along axis ", d, " is outside the extent ", shape_[d]);
  if (block.size == 0) return;
  const size_t isz = dtype_size(dtype_);
  // Runs contiguous in both: axes j.. of the block (axes after j are full in the file).
  int j = nd;
  Index run = 1;
  while (j > 0) {
    --j;
    run *= block.shape[j];
    if (block.shape[j] != shape_[j]) break;
  }
  if (nd == 0) {
    pwrite_all(fd_, block.data, isz, data_offset_, tmp_);
    return;
  }
  auto fstr = byte_strides(nd, shape_.data(), isz, false);
  auto bstr = byte_strides(nd, block.shape, isz, false);
  std::vector<Index> idx(size_t(j), 0);
  while (true) {
    int64_t foff = 0, boff = 0;
    for (int d = 0; d < nd; ++d) {
      Index i = d < j ? idx[d] : 0;
      foff += (start[d] + i) * fstr[d];
      boff += i * bstr[d];
    }
    pwrite_all(fd_, static_cast<const char *>(block.data) + boff, size_t(run) * isz, data_offset_ + size_t(foff),
               tmp_);
    int d = j - 1;
    for (; d >= 0; --d) {
      if (++idx[d] < block.shape[d]) break;
      idx[d] = 0;
    }
    if (d < 0) return;
  }
}

void NpyWriter::commit() {
  CA_CHECK(fd_ >= 0, CA_EINVAL, "the .npy writer for '", path_, "' is already committed");
  int fd = fd_;
  fd_ = -1;
  int se = sync_fd(fd);
  if (::close(fd) != 0 || se != 0) {
    int e = se != 0 ? se : errno;
    ::unlink(tmp_.c_str());
    fail(CA_EIO, "cannot write '", path_, "': ", std::strerror(e));
  }
  if (::rename(tmp_.c_str(), path_.c_str()) != 0) {
    int e = errno;
    ::unlink(tmp_.c_str());
    fail(CA_EIO, "cannot rename '", tmp_, "' to '", path_, "': ", std::strerror(e));
  }
  sync_parent_dir(path_);
}

}  // namespace ca::io
