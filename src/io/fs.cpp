#include "io/fs.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "core/error.hpp"

namespace ca::io {

namespace {

std::string errno_text(int e) { return std::strerror(e); }

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

const char *file_kind(mode_t m) noexcept {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file";
}

std::string base_of(const std::string &path) {
  size_t p = path.find_last_of('/');
  return p == std::string::npos ? path : path.substr(p + 1);
}

size_t read_some(int fd, char *dst, size_t n, const std::string &path) {
  while (true) {
    ssize_t r = ::read(fd, dst, n);
    if (r >= 0) return size_t(r);
    if (errno != EINTR) fail(CA_EIO, "cannot read '", path, "': ", errno_text(errno));
  }
}

}  // namespace

std::string parent_of(const std::string &path) {
  size_t p = path.find_last_of('/');
  if (p == std::string::npos) return ".";
  if (p == 0) return "/";
  return path.substr(0, p);
}

std::string join_path(const std::string &dir, const std::string &name) {
  if (dir.empty()) return name;
  if (dir.back() == '/') return dir + name;
  return dir + "/" + name;
}

const char *path_component_problem(std::string_view name) noexcept {
  if (name.empty()) return "it is empty";
  if (name == ".") return "it is '.', which names the directory itself";
  if (name == "..") return "it is '..', which names the parent directory";
  if (name.size() > 255) return "it is longer than 255 bytes";
  for (char c : name) {
    if (c == '/' || c == '\\') return "it contains a path separator ('/' or '\\')";
    if (c == '\0') return "it contains a NUL byte";
    if ((unsigned char)c < 0x20 || c == 0x7f) return "it contains a control character";
  }
  return nullptr;
}

std::string quote_for_message(std::string_view s) {
  static const char hex[] = "0123456789abcdef";
  std::string out = "'";
  size_t n = s.size() < 200 ? s.size() : 200;
  for (size_t i = 0; i < n; ++i) {
    auto c = (unsigned char)s[i];
    if (c < 0x20 || c >= 0x7f || c == '\\') {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += char(c);
    }
  }
  out += "'";
  if (s.size() > n) out += str(" (", s.size(), " bytes, truncated)");
  return out;
}

void check_path_component(std::string_view name, const char *what) {
  if (const char *why = path_component_problem(name))
    fail(CA_EINVAL, what, " ", quote_for_message(name), " cannot be used as a file name (", why, ")");
}

bool path_exists(const std::string &path) noexcept {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

bool is_directory(const std::string &path) noexcept {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

int open_regular_file(const std::string &path, struct stat &st, bool missing_ok, const char *what) {
  int fd;
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
  do fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    int e = errno;
    if (e == ENOENT || e == ENOTDIR) {
      if (missing_ok) return -1;
      fail(CA_ENOTFOUND, what, " '", path, "' does not exist");
    }
    fail(CA_EIO, "cannot open ", what, " '", path, "': ", errno_text(e));
  }
  Fd guard{fd};
  if (::fstat(fd, &st) != 0) fail(CA_EIO, "cannot stat '", path, "': ", errno_text(errno));
  if (!S_ISREG(st.st_mode))
    fail(CA_EIO, what, " '", path, "' is ", file_kind(st.st_mode), ", expected a regular file");
  int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0)
    fail(CA_EIO, "cannot configure '", path, "': ", errno_text(errno));
  guard.fd = -1;
  return fd;
}

namespace {

// Open a file that is read whole: fd -1 when it does not exist, CA_EFORMAT when fstat says it is
// larger than `max_bytes`.
void open_whole(Fd &f, struct stat &st, const std::string &path, size_t max_bytes, const char *what) {
  f.fd = open_regular_file(path, st, true, what);
  if (f.fd >= 0 && uint64_t(st.st_size) > max_bytes)
    fail(CA_EFORMAT, what, " '", path, "' has ", int64_t(st.st_size), " bytes, more than the ", max_bytes,
         " bytes it may have");
}

// Read into dst until n bytes or the end of the file; the bytes read.
size_t read_up_to(int fd, char *dst, size_t n, const std::string &path) {
  size_t got = 0;
  while (got < n) {
    size_t r = read_some(fd, dst + got, n - got, path);
    if (r == 0) break;
    got += r;
  }
  return got;
}

}  // namespace

std::optional<std::string> read_file_if_exists(const std::string &path, size_t max_bytes, const char *what) {
  struct stat st;
  Fd f;
  open_whole(f, st, path, max_bytes, what);
  if (f.fd < 0) return std::nullopt;
  // Read the size fstat gave straight into the string, then confirm the end with a small read (a
  // file that grew meanwhile is appended in pieces, up to the limit). Never a doubled buffer: chunk
  // files are large.
  std::string out;
  out.resize(size_t(st.st_size));
  out.resize(read_up_to(f.fd, out.data(), out.size(), path));
  char extra[4096];
  for (size_t r; (r = read_some(f.fd, extra, sizeof extra, path)) > 0;) {
    if (out.size() + r > max_bytes)
      fail(CA_EFORMAT, what, " '", path, "' grew past the ", max_bytes, " bytes it may have while being read");
    out.append(extra, r);
  }
  return out;
}

std::optional<detail::BigBuffer> read_file_big_if_exists(const std::string &path, size_t max_bytes,
                                                         const char *what) {
  struct stat st;
  Fd f;
  open_whole(f, st, path, max_bytes, what);
  if (f.fd < 0) return std::nullopt;
  // The size fstat gave, plus one byte to see whether the file grew meanwhile.
  detail::BigBuffer out(size_t(st.st_size) + 1);
  const size_t got = read_up_to(f.fd, out.data(), out.size(), path);
  if (got <= size_t(st.st_size)) {
    out.resize_down(got);
    return out;
  }
  // It grew while being read: the whole file the slow way (rare; bounded by max_bytes).
  ::close(f.fd);
  f.fd = -1;
  auto whole = read_file_if_exists(path, max_bytes, what);
  if (!whole) return std::nullopt;
  detail::BigBuffer copy(whole->size());
  if (!whole->empty()) std::memcpy(copy.data(), whole->data(), whole->size());
  return copy;
}

bool read_exact_if_exists(const std::string &path, void *dst, size_t n, const std::string &what) {
  struct stat st;
  Fd f{open_regular_file(path, st, true, "chunk file")};
  if (f.fd < 0) return false;
  if (uint64_t(st.st_size) != n)
    fail(CA_EFORMAT, what, ": uncompressed chunk has ", int64_t(st.st_size), " bytes, expected ", n,
         " (chunk of the wrong size)");
  char *p = static_cast<char *>(dst);
  size_t got = 0;
  while (got < n) {
    size_t r = read_some(f.fd, p + got, n - got, path);
    if (r == 0) fail(CA_EFORMAT, what, ": uncompressed chunk ended after ", got, " bytes, expected ", n);
    got += r;
  }
  return true;
}

void make_dirs(const std::string &path) {
  if (path.empty() || is_directory(path)) return;
  std::string parent = parent_of(path);
  if (parent != path && parent != "." && parent != "/") make_dirs(parent);
  if (::mkdir(path.c_str(), 0777) != 0 && errno != EEXIST)
    fail(CA_EIO, "cannot create directory '", path, "': ", errno_text(errno));
  if (!is_directory(path)) fail(CA_EEXISTS, "'", path, "' exists and is not a directory");
}

bool fsync_enabled() noexcept {
  const char *v = std::getenv("CA_IO_NO_FSYNC");
  return v == nullptr || v[0] == '\0' || std::strcmp(v, "0") == 0;
}

int sync_fd(int fd) noexcept {
  if (!fsync_enabled()) return 0;
  while (::fsync(fd) != 0) {
    if (errno != EINTR) return errno;
  }
  return 0;
}

void sync_parent_dir(const std::string &path) {
  if (!fsync_enabled()) return;
  std::string dir = parent_of(path);
  Fd d;
  do d.fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  while (d.fd < 0 && errno == EINTR);
  if (d.fd < 0) fail(CA_EIO, "cannot open directory '", dir, "' to sync it: ", errno_text(errno));
  // Some filesystems cannot fsync a directory (EINVAL): the rename is then as durable as it gets.
  int e = sync_fd(d.fd);
  if (e != 0 && e != EINVAL && e != ENOTSUP) fail(CA_EIO, "cannot sync directory '", dir, "': ", errno_text(e));
}

std::string temp_path_for(const std::string &path) {
  static std::atomic<uint64_t> counter{0};
  // Hidden and ending in .partial, as zarr-python's DirectoryStore names its temporaries.
  return join_path(parent_of(path), str(".", base_of(path), ".", ::getpid(), "-", counter.fetch_add(1), ".partial"));
}

bool is_stale_temporary(std::string_view name) noexcept {
  constexpr std::string_view kSuffix = ".partial";
  if (name.size() < 2 + kSuffix.size() || name[0] != '.' || !name.ends_with(kSuffix)) return false;
  std::string_view stem = name.substr(0, name.size() - kSuffix.size());  // ".<base>.<pid>-<n>"
  size_t dot = stem.find_last_of('.');
  if (dot == 0 || dot == std::string_view::npos) return false;
  std::string_view tail = stem.substr(dot + 1);  // "<pid>-<n>"
  size_t dash = tail.find('-');
  if (dash == 0 || dash == std::string_view::npos || dash + 1 >= tail.size() || dash > 9) return false;
  long pid = 0;
  for (size_t i = 0; i < tail.size(); ++i) {
    if (i == dash) continue;
    if (tail[i] < '0' || tail[i] > '9') return false;
    if (i < dash) pid = pid * 10 + (tail[i] - '0');
  }
  if (pid <= 0 || pid == long(::getpid())) return false;
  return ::kill(pid_t(pid), 0) != 0 && errno == ESRCH;
}

void remove_stale_temporaries(const std::string &path) noexcept {
  try {
    std::string dir = parent_of(path), prefix = "." + base_of(path) + ".";
    DIR *d = ::opendir(dir.c_str());
    if (!d) return;
    while (struct dirent *e = ::readdir(d)) {
      std::string_view name = e->d_name;
      if (!name.starts_with(prefix) || !is_stale_temporary(name)) continue;
      // The name must be exactly ".<base>.<pid>-<n>.partial" (base itself may contain dots).
      std::string_view rest = name.substr(prefix.size());
      if (rest.find('.') != rest.size() - 8) continue;
      std::string full = join_path(dir, std::string(name));
      struct stat st;
      if (::lstat(full.c_str(), &st) == 0 && (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))) ::unlink(full.c_str());
    }
    ::closedir(d);
  } catch (...) {
  }
}

void write_file_atomic(const std::string &path, const void *data, size_t size) {
  std::string base = base_of(path);
  CA_CHECK(!base.empty(), CA_EINVAL, "cannot write to '", path, "': no file name");
  make_dirs(parent_of(path));
  std::string tmp = temp_path_for(path);
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
  if (err == 0) err = sync_fd(fd);
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err == 0 && ::rename(tmp.c_str(), path.c_str()) != 0) err = errno;
  if (err != 0) {
    ::unlink(tmp.c_str());
    fail(CA_EIO, "cannot write '", path, "': ", errno_text(err));
  }
  sync_parent_dir(path);
}

}  // namespace ca::io
