// Filesystem helpers for the storage layer: bounded reads of untrusted files, atomic durable writes,
// and the one check every name from input passes before it becomes part of a path.
//
// What the helpers guarantee, and why:
//  - Names that come from files or callers (array names in graph files, group members) are checked
//    with check_path_component() before they are joined to a directory: never ".", "..", empty, a
//    separator, NUL or a control character, so a name can only ever denote one entry inside the
//    directory it is joined to (a graph naming an array ".." once replaced the parent store).
//  - Reads open with O_NONBLOCK (a FIFO never blocks the open) and accept regular files only
//    (no FIFOs, devices, sockets, directories: /dev/zero would be read until memory runs out), and
//    read at most the size the caller expects (metadata: kMaxMetadataBytes; chunks: the codec's bound).
//  - Writes go to a hidden temporary file in the target's directory, are fsync'ed, renamed over the
//    target and the directory is fsync'ed, so after a crash the target is the old file or the new one,
//    never a torn one. CA_IO_NO_FSYNC=1 in the environment skips both fsyncs (faster, not durable).
//    Temporaries a killed process left behind are removed by the next write of the same target.
#pragma once

#include <sys/stat.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "core/big_buffer.hpp"

namespace ca::io {

/// The largest metadata file (.zarray, .zattrs, .zgroup) read or written: 16 MiB. Larger ones are
/// CA_EFORMAT before anything is parsed.
inline constexpr size_t kMaxMetadataBytes = size_t(16) << 20;

/// "a/b" from "a" and "b" (no doubled separator).
std::string join_path(const std::string &dir, const std::string &name);

/// Why `name` cannot be one path component (a file or directory name inside a directory), or nullptr
/// if it can: empty, "." or "..", a '/' or '\\', a NUL, a control character (below 0x20, or 0x7f), or
/// longer than 255 bytes.
const char *path_component_problem(std::string_view name) noexcept;
/// Throw CA_EINVAL if `name` cannot be one path component: "<what> '..' cannot be used as a file name
/// (it is '..', which names the parent directory)". The name is quoted with control bytes escaped.
void check_path_component(std::string_view name, const char *what);
/// `s` in single quotes for messages: at most 200 bytes, bytes outside printable ASCII as \xNN.
std::string quote_for_message(std::string_view s);

/// Open `path` for reading as an untrusted file: O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK (cleared
/// again after the open), then fstat. Returns the descriptor (the caller closes it) and fills `st`;
/// -1 if the file does not exist (ENOENT/ENOTDIR) and `missing_ok`. Throws CA_ENOTFOUND (missing and
/// not `missing_ok`), CA_EIO naming `what`, the path and the kind of file if it is not a regular file
/// (a directory, FIFO, device, socket), or the system error.
int open_regular_file(const std::string &path, struct stat &st, bool missing_ok, const char *what);

/// The whole file, or nullopt if it does not exist (ENOENT/ENOTDIR). Regular files only (as
/// open_regular_file()); a file larger than `max_bytes` is CA_EFORMAT naming `what`, the size and the
/// limit (checked before reading, and again while reading a file that grows). Other failures CA_EIO.
std::optional<std::string> read_file_if_exists(const std::string &path, size_t max_bytes, const char *what);
/// The same into a buffer of the big-buffer cache (core/big_buffer.hpp; no zero fill, reused pages):
/// for chunk files, read whole once per task.
std::optional<detail::BigBuffer> read_file_big_if_exists(const std::string &path, size_t max_bytes, const char *what);
/// Read a regular file of exactly `n` bytes into `dst`: false if it does not exist, CA_EFORMAT (naming
/// `what`) if its size differs, CA_EIO on a read error or a file that is not regular. No intermediate
/// buffer.
bool read_exact_if_exists(const std::string &path, void *dst, size_t n, const std::string &what);

/// Write `size` bytes to `path` atomically and durably: a hidden temporary file in the same directory
/// (".<name>.<pid>-<n>.partial"), fsync, rename(2) over `path`, fsync of the directory (both skipped
/// with CA_IO_NO_FSYNC=1). Readers see the old file or the new one, never a partial one. Creates
/// missing parent directories. Thread-safe (temporary names are unique per process and call). Throws
/// CA_EIO.
void write_file_atomic(const std::string &path, const void *data, size_t size);

/// True unless CA_IO_NO_FSYNC is set to a non-empty value other than "0" (read at every call).
bool fsync_enabled() noexcept;
/// fsync(fd) if fsync_enabled(); returns 0 or errno.
int sync_fd(int fd) noexcept;
/// fsync the directory holding `path` if fsync_enabled() (after a rename into it). Throws CA_EIO.
void sync_parent_dir(const std::string &path);

/// The name of a fresh temporary file for `path`: "<dir>/.<name>.<pid>-<n>.partial".
std::string temp_path_for(const std::string &path);
/// Remove the temporaries ".<name>.<pid>-<n>.partial" of target `path` left by processes that no longer
/// run (a write killed before its rename). Temporaries of live processes (including this one) are kept.
/// Only regular files and symbolic links are removed. Errors are ignored (cleaning is best effort).
void remove_stale_temporaries(const std::string &path) noexcept;
/// True if `name` is a temporary of ours (".<x>.<pid>-<n>.partial") whose process no longer runs.
bool is_stale_temporary(std::string_view name) noexcept;

/// The parent directory of `path` ("." for a bare name, "/" for "/x").
std::string parent_of(const std::string &path);

/// mkdir -p. Throws CA_EIO (CA_EEXISTS if a non-directory is in the way).
void make_dirs(const std::string &path);

bool path_exists(const std::string &path) noexcept;
bool is_directory(const std::string &path) noexcept;

}  // namespace ca::io
