// Filesystem helpers for the storage layer: whole-file reads and atomic (temp file + rename) writes.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace ca::io {

/// "a/b" from "a" and "b" (no doubled separator).
std::string join_path(const std::string &dir, const std::string &name);

/// The whole file, or nullopt if it does not exist (ENOENT/ENOTDIR). Other failures throw CA_EIO.
std::optional<std::string> read_file_if_exists(const std::string &path);
/// Read a file of exactly `n` bytes into `dst`: false if it does not exist, CA_EFORMAT (naming `what`)
/// if its size differs, CA_EIO on a read error. No intermediate buffer.
bool read_exact_if_exists(const std::string &path, void *dst, size_t n, const std::string &what);

/// The whole file. Throws CA_ENOTFOUND naming `what` and the path if it is missing, CA_EIO otherwise.
std::string read_file(const std::string &path, const char *what = "file");

/// Write `size` bytes to `path` atomically: a hidden temporary file in the same directory, then
/// rename(2), so readers see the old file or the new one, never a partial one. Creates missing parent
/// directories. Thread-safe (temporary names are unique per process and call). Throws CA_EIO.
void write_file_atomic(const std::string &path, const void *data, size_t size);

/// mkdir -p. Throws CA_EIO (CA_EEXISTS if a non-directory is in the way).
void make_dirs(const std::string &path);

bool path_exists(const std::string &path) noexcept;
bool is_directory(const std::string &path) noexcept;

}  // namespace ca::io
