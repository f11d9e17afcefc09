#include "io/fs.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "core/error.hpp"

namespace ca::io {

namespace {

std::string errno_text(int e) { return std::strerror(e); }

std::string parent_of(const std::string &path) {
  size_t p = path.find_last_of('/');
  if (p == std::string::npos) return ".";
  if (p == 0) return "/";
  return path.substr(0, p);
}

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::string join_path(const std::string &dir, const std::string &name) {
  if (dir.empty()) return name;
  if (dir.back() == '/') return dir + name;
  return dir + "/" + name;
}

bool path_exists(const std::string &path) noexcept {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

bool is_directory(const std::string &path) noexcept {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::optional<std::string> read_file_if_exists(const std::string &path) {
  Fd f;
  do f.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  while (f.fd < 0 && errno == EINTR);
  if (f.fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return std::nullopt;
    fail(CA_EIO, "cannot open '", path, "': ", errno_text(errno));
  }
  struct stat st;
  if (::fstat(f.fd, &st) != 0) fail(CA_EIO, "cannot stat '", path, "': ", errno_text(errno));
  if (S_ISDIR(st.st_mode)) fail(CA_EIO, "'", path, "' is a directory, expected a file");
  // Read the size fstat gave straight into the string, then confirm the end with a small read (a
  // file that grew meanwhile is appended in pieces). Never a doubled buffer: chunk files are large.
  std::string out;
  out.resize(size_t(st.st_size));
  size_t got = 0;
  auto read_some = [&](char *dst, size_t n) -> size_t {
    while (true) {
      ssize_t r = ::read(f.fd, dst, n);
      if (r >= 0) return size_t(r);
      if (errno != EINTR) fail(CA_EIO, "cannot read '", path, "': ", errno_text(errno));
    }
  };
  while (got < out.size()) {
    size_t r = read_some(out.data() + got, out.size() - got);
    if (r == 0) break;
    got += r;
  }
  out.resize(got);
  char extra[4096];
  for (size_t r; (r = read_some(extra, sizeof extra)) > 0;) out.append(extra, r);
  return out;
}

bool read_exact_if_exists(const std::string &path, void *dst, size_t n, const std::string &what) {
  Fd f;
  do f.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  while (f.fd < 0 && errno == EINTR);
  if (f.fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return false;
    fail(CA_EIO, "cannot open '", path, "': ", errno_text(errno));
  }
  struct stat st;
  if (::fstat(f.fd, &st) != 0) fail(CA_EIO, "cannot stat '", path, "': ", errno_text(errno));
  if (S_ISDIR(st.st_mode)) fail(CA_EIO, "'", path, "' is a directory, expected a file");
  if (size_t(st.st_size) != n)
    fail(CA_EFORMAT, what, ": uncompressed chunk has ", size_t(st.st_size), " bytes, expected ", n,
         " (chunk of the wrong size)");
  char *p = static_cast<char *>(dst);
  size_t got = 0;
  while (got < n) {
    ssize_t r = ::read(f.fd, p + got, n - got);
    if (r < 0) {
      if (errno == EINTR) continue;
      fail(CA_EIO, "cannot read '", path, "': ", errno_text(errno));
    }
    if (r == 0) fail(CA_EFORMAT, what, ": uncompressed chunk ended after ", got, " bytes, expected ", n);
    got += size_t(r);
  }
  return true;
}

std::string read_file(const std::string &path, const char *what) {
  auto data = read_file_if_exists(path);
  if (!data) fail(CA_ENOTFOUND, what, " '", path, "' does not exist");
  return std::move(*data);
}

void make_dirs(const std::string &path) {
  if (path.empty() || is_directory(path)) return;
  std::string parent = parent_of(path);
  if (parent != path && parent != "." && parent != "/") make_dirs(parent);
  if (::mkdir(path.c_str(), 0777) != 0 && errno != EEXIST)
    fail(CA_EIO, "cannot create directory '", path, "': ", errno_text(errno));
  if (!is_directory(path)) fail(CA_EEXISTS, "'", path, "' exists and is not a directory");
}

void write_file_atomic(const std::string &path, const void *data, size_t size) {
  static std::atomic<uint64_t> counter{0};
  std::string dir = parent_of(path);
  std::string base = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
  CA_CHECK(!base.empty(), CA_EINVAL, "cannot write to '", path, "': no file name");
  make_dirs(dir);
  // Hidden and ending in .partial, as zarr-python's DirectoryStore names its temporaries.
  std::string tmp = join_path(dir, str(".", base, ".", ::getpid(), "-", counter.fetch_add(1), ".partial"));
  int fd;
  do fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  while (fd < 0 && errno == EINTR);
  if (fd < 0) fail(CA_EIO, "cannot create '", tmp, "': ", errno_text(errno));
  const char *p = static_cast<const char *>(data);
  size_t left = size;
  int err = 0;
  while (left > 0) {
    ssize_t w = ::write(fd, p, left);
    if (w < 0) {
      if (errno == EINTR) continue;
      err = errno;
      break;
    }
    p += w;
    left -= size_t(w);
  }
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err == 0 && ::rename(tmp.c_str(), path.c_str()) != 0) err = errno;
  if (err != 0) {
    ::unlink(tmp.c_str());
    fail(CA_EIO, "cannot write '", path, "': ", errno_text(err));
  }
}

}  // namespace ca::io
